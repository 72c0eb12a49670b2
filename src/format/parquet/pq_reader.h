/*
 * pq_reader.h: reading Parquet files: the file handle with its decoded footer (cached), and the
 * row-group reader that turns projected columns of one row group into vector chunks.
 *
 * Typical use:
 *   pq_file *f;  pq_file_open(path, &f, err);           -> f->meta, f->schema (shared, cached)
 *   for each row group g (a morsel):
 *     pq_rg_reader *r;  pq_rg_open(f, g, cols, n_cols, tracker, &r, err);
 *     while (pq_rg_next(r, chunk, err) == SQE_OK && chunk->count > 0) ...
 *     pq_rg_close(r);
 *   pq_file_release(f);
 *
 * The footer cache is keyed by path, size, version (mtime / ETag) and identity, so a changed
 * file is re-read and one user's entry is never served to another; entries are shared between
 * queries and threads (reference counted) and evicted least recently used beyond a byte budget.
 * A file opened as an identity (pq_file_open_as: a user's object-store credentials) keeps a
 * reference to it, and every later read of the file (row groups, on any thread) uses it.
 */
#ifndef SQE_FORMAT_PARQUET_PQ_READER_H
#define SQE_FORMAT_PARQUET_PQ_READER_H

#include <stdbool.h>
#include <stdint.h>

#include "common/arena.h"
#include "common/err.h"
#include "common/mem.h"
#include "format/parquet/pq_meta.h"
#include "format/parquet/pq_schema.h"
#include "io/io.h"
#include "vec/vec.h"

typedef struct pq_file {
    char *path;
    uint64_t size;
    int64_t version;
    pq_file_meta *meta;
    pq_schema *schema;
    uint64_t total_rows;         /* sum of the row groups' num_rows */
    /* private */
    arena a;
    size_t footer_bytes;
    io_identity *id;             /* reference; NULL: the environment's credentials */
    _Atomic int refs;
} pq_file;

/* Opens path (through the footer cache). On success *out holds a reference the caller drops
 * with pq_file_release. Errors: those of io_open, INVALID_FILE, NOT_SUPPORTED (encrypted). */
int pq_file_open(const char *path, pq_file **out, sqe_error *err);
/* pq_file_open as identity id (io_open_as; NULL is pq_file_open). The file keeps a reference to
 * id for its later reads. */
int pq_file_open_as(const char *path, const io_identity *id, pq_file **out, sqe_error *err);
void pq_file_release(pq_file *f);
/* Empties the footer cache (entries in use stay alive until released). */
void pq_file_cache_clear(void);

/* The number of entries of the dictionary page of leaf's chunk in row group g (reads that page's
 * header from the file), or -1 when the chunk has no dictionary page or it cannot be read. */
int64_t pq_file_dictionary_size(const pq_file *f, uint32_t g, uint32_t leaf);

typedef struct pq_rg_reader pq_rg_reader;

struct pq_predicate;

/* Opens row group g of f for the given top-level columns (indices into f->schema->columns;
 * the chunk filled by pq_rg_next has these columns in this order). Reads the projected column
 * chunks' byte ranges (coalesced) from the file. Columns with an unsupported type fail here with
 * NOT_SUPPORTED. f must outlive the reader.
 * preds (may be NULL) are conjuncts of the scan's filter over f's leaves: when every projected
 * column is a top-level leaf, the page indexes of their columns select the pages that may
 * match, and pq_rg_next skips the rest (without decompressing them). The rows it returns are
 * then a superset of the matching rows, not every row: the caller still applies the filter. */
int pq_rg_open(pq_file *f, uint32_t g, const uint32_t *columns, uint32_t n_columns,
               const struct pq_predicate *preds, uint32_t n_preds, mem_tracker *tracker,
               pq_rg_reader **out, sqe_error *err);
/* Rows of the row group the page indexes excluded (0 without page pruning). */
int64_t pq_rg_rows_skipped(const pq_rg_reader *r);
/* Fills out (created for the projected types) with the next up to out->capacity rows;
 * out->count == 0 at the end. Values stay valid until the next call or pq_rg_close. */
int pq_rg_next(pq_rg_reader *r, vec_chunk *out, sqe_error *err);
void pq_rg_close(pq_rg_reader *r);

#endif
