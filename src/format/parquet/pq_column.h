/*
 * pq_column.h: reads one column chunk (one leaf of one row group) into SQE vectors.
 *
 * The reader walks the chunk's pages in order: it decompresses each page, checks its CRC when
 * present, decodes the dictionary page once into a vector of SQE values (converted once), and
 * decodes data pages (v1 and v2) level by level and value by value, converting physical values
 * into the leaf's SQE type (pq_schema.h pq_conv).
 *
 * Two ways to consume a chunk:
 *   - pq_column_read_flat: top-level leaves without repetition produce n rows straight into a
 *     vector. String columns whose pages are dictionary-encoded come out as VEC_DICT vectors over
 *     the dictionary (NULLs point at an extra NULL row after the dictionary), everything else
 *     flat. pq_column_skip_flat skips rows, skipping whole pages without decompressing them
 *     when they lie inside the skipped range.
 *   - pq_column_next_entries: the level-and-value stream for nested leaves, used by the record
 *     assembler (pq_assemble.c): entries (d, r) with values for entries with d == max_def.
 *
 * Lifetimes: the chunk bytes are borrowed and must outlive the reader. Values in vectors the
 * reader produced (string views into pages or the dictionary, the dictionary vector of a
 * VEC_DICT) stay valid until the next call of pq_column_batch_begin or pq_column_close.
 *
 * Errors: INVALID_FILE ("Invalid Parquet file ...: ...") for anything malformed, NOT_SUPPORTED
 * ("unsupported: ...") for encodings and codecs SQE does not read, OUT_OF_MEMORY /
 * EXCEEDED_MEMORY_LIMIT through the tracker. After an error the reader must only be closed.
 */
#ifndef SQE_FORMAT_PARQUET_PQ_COLUMN_H
#define SQE_FORMAT_PARQUET_PQ_COLUMN_H

#include <stdbool.h>
#include <stdint.h>

#include "common/arena.h"
#include "common/err.h"
#include "common/mem.h"
#include "format/parquet/pq_encoding.h"
#include "format/parquet/pq_schema.h"
#include "vec/vec.h"

typedef struct pq_column_reader pq_column_reader;

/* Opens a reader over chunk[0, len): the bytes of the column chunk from its first page
 * (dictionary page if any) to its end. leaf and cm must outlive the reader. `what` names the
 * file in errors (borrowed). On success *out owns its buffers (freed by pq_column_close). */
int pq_column_open(const pq_node *leaf, const pq_column_meta *cm, const uint8_t *chunk, size_t len,
                   const char *what, mem_tracker *tracker, pq_column_reader **out, sqe_error *err);
void pq_column_close(pq_column_reader *r);

/* Ends the lifetime of what the previous batch produced (frees finished pages). */
void pq_column_batch_begin(pq_column_reader *r);

/* Reads the next n rows of a top-level leaf with max_rep == 0 into out (a vector of the leaf's
 * type, reset by the caller, capacity >= n). Fewer rows in the chunk than asked is
 * INVALID_FILE. */
int pq_column_read_flat(pq_column_reader *r, vec *out, uint32_t n, sqe_error *err);

/* Skips the next n rows of a top-level leaf with max_rep == 0. */
int pq_column_skip_flat(pq_column_reader *r, uint64_t n, sqe_error *err);

/* Nested leaves: decodes up to max entries from the current position (stopping at the end of
 * a page) into def[] and rep[] (each capacity >= max; rep untouched when max_rep == 0) and
 * appends the values of the entries with d == max_def to vals (a flat vector of the leaf's type,
 * grown as needed, starting at row *n_vals, which is advanced). *n_entries == 0 at the end of
 * the chunk. */
int pq_column_next_entries(pq_column_reader *r, uint32_t max, uint16_t *def, uint16_t *rep,
                           uint32_t *n_entries, vec *vals, uint32_t *n_vals, sqe_error *err);

#endif
