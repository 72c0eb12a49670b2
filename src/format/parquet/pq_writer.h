/*
 * pq_writer.h: writes vector chunks (vec.h) to a Parquet file: SQE types mapped to Parquet
 * physical/logical types, nested types shredded into definition/repetition levels, row groups
 * with dictionary or PLAIN pages, compression, statistics, the page index (ColumnIndex and
 * OffsetIndex), bloom filters and the footer.
 *
 * Spec: apache/parquet-format (parquet.thrift, Encodings.md, LogicalTypes.md, PageIndex.md,
 * BloomFilter.md).
 *
 * Use:
 *   pq_writer_options o;  pq_writer_options_init(&o);  pq_writer_options_set(&o, "compression", "snappy", err);
 *   pq_writer_open(path, n, names, types, &o, tracker, &w, err);
 *   pq_writer_write(w, chunk, err) ...;     (any number of chunks, any vector shapes)
 *   pq_writer_close(w, &rows, err);         or pq_writer_abort(w) to give up
 *
 * Files appear atomically: the writer writes "<path>.tmp-<pid>-<random>" and renames it over
 * path in pq_writer_close after an fsync, so a failed or aborted write leaves no partial file.
 * Memory: the writer buffers one row group (at most row_group_rows rows, closed early once its
 * buffered values reach row_group_bytes) and its encoded pages, never the whole input.
 * A writer is used by one thread at a time; with options.threads > 1 it encodes the columns of
 * a row group on that many threads of its own.
 */
#ifndef SQE_FORMAT_PARQUET_PQ_WRITER_H
#define SQE_FORMAT_PARQUET_PQ_WRITER_H

#include <stdbool.h>
#include <stdint.h>

#include "common/err.h"
#include "common/mem.h"
#include "types/types.h"
#include "vec/vec.h"

struct pq_file_meta;
struct arena;

/* Per schema node: the field id and nullability of one node of the written schema. A column's
 * nodes are listed in pre-order: the column itself, then for a ROW its fields' nodes in order,
 * for an ARRAY its element's nodes, for a MAP its key's nodes and then its value's nodes (the
 * Parquet "list"/"key_value" repeated groups are not nodes here). Iceberg needs this to give
 * every Parquet node its field id (struct fields, list elements, map keys and values). */
typedef struct pq_field_info {
    int32_t field_id;               /* < 0: none */
    bool required;                  /* REQUIRED in Parquet (map keys always are) */
} pq_field_info;

typedef struct pq_writer_options {
    int codec;                      /* pq_codec; default PQ_CODEC_ZSTD */
    int compression_level;          /* 0 = the codec's default */
    uint64_t row_group_rows;        /* default 122880 */
    uint64_t row_group_bytes;       /* default 128 MiB of buffered values; whichever comes first */
    uint32_t page_bytes;            /* default 1 MiB (uncompressed page body) */
    uint32_t page_rows;             /* default 20000 rows per page */
    bool dictionary;                /* default true */
    uint32_t dictionary_page_bytes; /* default 1 MiB; PLAIN for the column chunk beyond */
    bool write_page_index;          /* default true */
    bool write_statistics;          /* default true */
    bool write_crc;                 /* page CRC-32 in page headers; default false */
    bool bloom_filter;              /* bloom filters for dictionary-encoded chunks; default true */
    double bloom_filter_fpp;        /* their false-positive probability; default 0.01 */
    uint32_t statistics_truncate;   /* byte-array bounds cut to this many bytes; default 64 */
    uint32_t threads;               /* column encoding threads per row group; 0/1 = caller's */
    const int32_t *field_ids;       /* per top-level column (< 0: none) or NULL */
    const pq_field_info *fields;    /* every node of every column (see pq_field_info), or NULL;
                                     * when given, field_ids is ignored */
    uint32_t n_fields;              /* entries in fields: must be the number of nodes */
    bool no_replace;                /* close fails with ALREADY_EXISTS instead of replacing a
                                       file that exists at path (the rename is atomic either
                                       way); default false */
} pq_writer_options;

typedef struct pq_writer pq_writer;

/* Fills o with the defaults above. */
void pq_writer_options_init(pq_writer_options *o);

/* Sets one option from text (as given in COPY ... WITH (key = value)); keys are
 * case-insensitive: compression (zstd|snappy|gzip|lz4|lz4_raw|brotli|none|uncompressed),
 * compression_level, row_group_size (rows), row_group_size_bytes, page_size (bytes),
 * page_row_limit, dictionary (true/false), dictionary_page_size (bytes), page_index
 * (true/false), statistics (true/false), page_checksum (true/false), bloom_filter
 * (true/false), threads.
 * Unknown key or bad value: INVALID_ARGUMENTS naming the key; o is unchanged then. */
int pq_writer_options_set(pq_writer_options *o, const char *key, const char *value,
                          sqe_error *err);

/* Creates the temporary file next to path and prepares the schema of n_cols top-level columns
 * (names and types are copied; options too, field_ids and fields included). Every node is
 * OPTIONAL (map keys REQUIRED) unless options.fields says REQUIRED; a NULL written to a
 * REQUIRED node fails pq_writer_write with INVALID_ARGUMENTS naming the column. fields with a
 * count that does not match the schema's nodes gives INVALID_ARGUMENTS.
 * tracker (may be NULL) is charged for the buffered row group.
 * Errors: NOT_SUPPORTED "unsupported: ..." for types without a Parquet mapping (intervals),
 * INVALID_ARGUMENTS for bad options, IO_ERROR when the file cannot be created, OUT_OF_MEMORY.
 * On success the caller owns *out and must end it with pq_writer_close or pq_writer_abort; on
 * error *out is NULL and no file is left behind. */
int pq_writer_open(const char *path, uint32_t n_cols, const char *const *names,
                   const sqe_type *types, const pq_writer_options *o, mem_tracker *tracker,
                   pq_writer **out, sqe_error *err);

/* Appends the rows of chunk (n_cols columns of the types given at open, any vector shape).
 * May write row groups. On error the writer is unusable: call pq_writer_abort. */
int pq_writer_write(pq_writer *w, const vec_chunk *chunk, sqe_error *err);

/* Bytes the file would have if closed now (estimate): bytes already written plus the buffered
 * row group scaled by the compression ratio of the row groups written so far (1 before the
 * first). Without the page index and footer. */
uint64_t pq_writer_estimated_size(const pq_writer *w);
/* Bytes buffered for the current row group (levels and values before encoding). */
uint64_t pq_writer_buffered_bytes(const pq_writer *w);
/* Rows written so far (flushed and buffered). */
uint64_t pq_writer_rows(const pq_writer *w);
/* Ends the current row group now (writes it; nothing when it is empty), to bound memory.
 * On error the writer is unusable: call pq_writer_abort. */
int pq_writer_flush(pq_writer *w, sqe_error *err);

/* Flushes the last row group, writes the page index and the footer, fsyncs and renames the
 * temporary file to the final path (with options.no_replace: only when nothing is there).
 * Always frees w (on error the temporary file is deleted).
 * *rows_written (may be NULL) receives the number of rows in the file. */
int pq_writer_close(pq_writer *w, uint64_t *rows_written, sqe_error *err);

/* pq_writer_close that also hands back the footer it wrote, decoded into a (*meta, allocated
 * in a; may be NULL to skip), and the final file size in bytes (*file_size, may be NULL).
 * Always frees w; on error the file is deleted and *meta is NULL. */
int pq_writer_close_meta(pq_writer *w, struct arena *a, struct pq_file_meta **meta,
                         uint64_t *file_size, sqe_error *err);

/* Deletes the temporary file and frees w. NULL is allowed. */
void pq_writer_abort(pq_writer *w);

#endif
