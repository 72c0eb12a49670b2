/*
 * data_writer.h: the Iceberg data-file writer: chunks of a table's rows -> Parquet data files
 * with field ids on every node, routed to one open file per partition (partition values from
 * the spec's transforms), rolled over at the target file size, and described as ice_data_file
 * records (partition tuple, counts, column sizes, value/null/NaN counts, Appendix D bounds
 * truncated as the metrics mode says, split offsets) ready for ice_manifest_write.
 *
 * Use:
 *   ice_write_options o;  ice_write_options_from_properties(&md->properties, &o, err);
 *   o.data_dir = "<table location>/data" (or write.data.path);  o.format_version = 2;
 *   ice_data_writer_open(schema, spec, &o, out_arena, tracker, &w, err);
 *   ice_data_writer_write(w, chunk, err) ...;      columns = the schema's top-level columns
 *   ice_data_writer_finish(w, &files, &n, err);    or ice_data_writer_abort(w)
 *
 * Files: "<data_dir>/<partition path>/<5-digit counter>-<uuid>.parquet" (no partition path
 * for an unpartitioned spec), the partition path as Iceberg Java's PartitionSpec.partitionToPath
 * writes it ("ts_day=2024-01-31/id_bucket=3"). Each file appears atomically (pq_writer renames a
 * temporary file at close; on an object store the finished file is uploaded whole as o.io).
 * Nothing is committed here: the caller writes manifests and commits.
 *
 * Memory: every open file buffers one Parquet row group. At most max_open_files files are open
 * (default 64): opening one more first closes the open file with the most bytes (it becomes a
 * finished data file; later rows of its partition start a new file). When the buffered row
 * groups of all open files exceed memory_budget (default 256 MiB), the largest buffered row
 * groups are written out early (smaller row groups, same files).
 *
 * Threads: a writer is used by one thread (Parquet column encoding may use options.parquet
 * .threads threads of its own). No global state.
 */
#ifndef SQE_ICEBERG_DATA_WRITER_H
#define SQE_ICEBERG_DATA_WRITER_H

#include <stdbool.h>
#include <stdint.h>

#include "common/arena.h"
#include "common/err.h"
#include "common/mem.h"
#include "format/parquet/pq_writer.h"
#include "iceberg/manifest.h"
#include "iceberg/metadata.h"
#include "io/io.h"
#include "vec/vec.h"

/* Iceberg metrics modes (table property write.metadata.metrics.*). */
typedef enum ice_metrics_kind {
    ICE_METRICS_NONE = 0,   /* only column sizes */
    ICE_METRICS_COUNTS,     /* + value, null and NaN counts */
    ICE_METRICS_TRUNCATE,   /* + bounds, strings/binaries cut to `length` (code points/bytes) */
    ICE_METRICS_FULL,       /* + untruncated bounds */
} ice_metrics_kind;

typedef struct ice_metrics_mode {
    ice_metrics_kind kind;
    int32_t length;         /* TRUNCATE: >= 1 */
} ice_metrics_mode;

#define ICE_DEFAULT_TARGET_FILE_SIZE ((uint64_t)512 << 20)
#define ICE_DEFAULT_MAX_OPEN_FILES 64
#define ICE_DEFAULT_WRITE_MEMORY ((uint64_t)256 << 20)

typedef struct ice_write_options {
    const char *data_dir;            /* required: where files go (no trailing '/' needed) */
    int format_version;              /* 1..3; 0 = 2 */
    uint64_t target_file_size;       /* write.target-file-size-bytes; 0 = 512 MiB */
    pq_writer_options parquet;       /* codec, row group and page sizes (fields are ignored) */
    ice_metrics_mode metrics_default;       /* write.metadata.metrics.default: truncate(16) */
    const ice_kv_list *properties;   /* for write.metadata.metrics.column.<name>; may be NULL;
                                      * read during ice_data_writer_open only */
    uint32_t max_open_files;         /* 0 = 64 */
    uint64_t memory_budget;          /* buffered bytes over all open files; 0 = 256 MiB */
    int32_t sort_order_id;           /* written as sort_order_id (0 = unsorted) */
    /* Copy-on-write rewrite of one file: when fixed_partition is given, every row goes to this
     * partition tuple (spec->n_fields vectors of the fields' result types, read at row
     * fixed_partition_row) without computing transforms. */
    const vec *fixed_partition;
    uint32_t fixed_partition_row;
    /* Whose credentials write an object-store data_dir ("s3://..."): files are built in a
     * private staging file (iceberg/stage.h) and uploaded as io when they close; NULL: the
     * environment's. Borrowed until finish/abort. Ignored for local directories. */
    const io_identity *io;
} ice_write_options;

/* Parses a metrics mode ("none", "counts", "full", "truncate(N)"; case-insensitive, spaces
 * around ignored). INVALID_TABLE_PROPERTY naming the text when malformed; *out unchanged. */
int ice_metrics_mode_parse(const char *text, ice_metrics_mode *out, sqe_error *err);

/* Fills o with the defaults and then the table properties (props may be NULL):
 * write.target-file-size-bytes, write.parquet.compression-codec (default zstd; zstd, snappy,
 * gzip, lz4, brotli, uncompressed/none), write.parquet.compression-level,
 * write.parquet.row-group-size-bytes (default 128 MiB), write.parquet.row-group-limit (rows),
 * write.parquet.page-size-bytes, write.parquet.page-row-limit, write.parquet.dict-size-bytes,
 * write.parquet.bloom-filter-enabled.column.<name> (any true turns Parquet bloom filters on for
 * the file; they are off by default, as in Iceberg Java), write.metadata.metrics.default.
 * o->properties is set to props (per-column metrics modes are read at open); data_dir and
 * format_version are left for the caller. Errors: INVALID_TABLE_PROPERTY naming the property
 * and value; o then holds the defaults plus the properties before the bad one. */
int ice_write_options_from_properties(const ice_kv_list *props, ice_write_options *o,
                                      sqe_error *err);

/* The data directory of a table: write.data.path when set, else "<location>/data" (a trailing
 * '/' of location dropped). Allocated in a; NULL on out-of-memory. */
const char *ice_write_data_dir(arena *a, const char *location, const ice_kv_list *props);

typedef struct ice_data_writer ice_data_writer;

/* Opens a writer for rows of `schema` (the table's current schema; chunks carry its top-level
 * columns in order with the SQE types of ice_schema_to_sqe_type) partitioned by `spec` (its
 * fields must apply to schema). schema, spec and o's strings are borrowed until finish/abort.
 * Records, paths and partition vectors are allocated in out (the caller's arena, which must
 * outlive their use); tracker (may be NULL) is charged for buffered row groups.
 * Errors: INVALID_ARGUMENTS (no data_dir, a spec field whose source is not a primitive reachable
 * through structs, a fixed partition of the wrong shape), NOT_SUPPORTED "unsupported: ..."
 * for columns SQE cannot write yet (fixed[L], timestamp_ns, variant, geometry) and for
 * unknown or multi-argument transforms, INVALID_TABLE_PROPERTY for a bad per-column metrics
 * mode, OUT_OF_MEMORY. No file is created before the first row. On error *out is NULL. */
int ice_data_writer_open(const ice_schema *schema, const ice_partition_spec *spec,
                         const ice_write_options *o, arena *out, mem_tracker *tracker,
                         ice_data_writer **out_writer, sqe_error *err);

/* Routes the chunk's rows to their partitions' files (opening, closing and rolling files as
 * described at the top). NULL partition sources give NULL partition values ("null" in paths).
 * Errors: TYPE_MISMATCH when a column's type is not the schema's, INVALID_ARGUMENTS for a
 * NULL in a required field, NUMERIC_VALUE_OUT_OF_RANGE from transforms, IO_ERROR, memory
 * errors. After an error the writer is unusable: call ice_data_writer_abort. */
int ice_data_writer_write(ice_data_writer *w, const vec_chunk *chunk, sqe_error *err);

/* Rows written so far, and files finished or open. */
uint64_t ice_data_writer_rows(const ice_data_writer *w);

/* Closes every open file and returns all data files written, in the order they were finished,
 * as an array of *n records in the caller's arena (content DATA, "PARQUET", spec_id, the
 * partition tuple as 1-row arena vectors, metrics, split offsets, sort_order_id). Files
 * without rows are never created. Always frees w; on error every file it wrote is deleted and
 * *files is NULL, *n 0. */
int ice_data_writer_finish(ice_data_writer *w, ice_data_file **files, uint32_t *n,
                           sqe_error *err);

/* Deletes every file the writer wrote (finished or open) and frees it. NULL is allowed. */
void ice_data_writer_abort(ice_data_writer *w);

/* ---- pieces, exported for rewrites and imports (data_metrics.c, data_path.c) ---------------- */

/* The Appendix D bound of a string (utf8) or binary value truncated for metrics: a lower bound
 * is the first `length` code points (bytes); an upper bound the same prefix with its last code
 * point (byte) incremented, dropping trailing ones that cannot be, as Iceberg Java's
 * UnicodeUtil/BinaryUtil do. Writes at most len bytes to out (*out_len). Returns false when no
 * upper bound exists (then the bound is omitted). Values no longer than length are kept. */
bool ice_truncate_bound(const uint8_t *v, size_t len, int32_t length, bool utf8, bool upper,
                        uint8_t *out, size_t *out_len);

/* Fills the metrics of f (record_count, column_sizes, value_counts, null_value_counts,
 * nan_value_counts, lower/upper bounds, split_offsets) from the footer `meta` of a Parquet file
 * written for `schema` (leaves in the schema's pre-order, as ice_data_writer writes them;
 * leaves are matched by the field ids of the Parquet schema). modes[i] is the metrics mode of
 * leaf i (NULL: truncate(16) for all); nan_counts[i] the NaN count of leaf i when it is a
 * float/double (NULL: no NaN counts). Bounds only for leaves reached through structs alone.
 * Allocates in a. Errors: INVALID_FILE when the footer does not match the schema,
 * OUT_OF_MEMORY. */
int ice_data_file_metrics(arena *a, const ice_schema *schema, const struct pq_file_meta *meta,
                          const ice_metrics_mode *modes, const int64_t *nan_counts,
                          ice_data_file *f, sqe_error *err);

/* The partition path of the tuple at row `row` of values (spec->n_fields vectors of the
 * fields' result types) as PartitionSpec.partitionToPath: "name=value" joined by '/', both
 * URL-encoded as java.net.URLEncoder does, values in Iceberg's human form (dates 2024-01-31,
 * hours 2024-01-31-13, months 2024-01, years 2024, binaries base64, null "null"). Allocated in
 * a ("" for an unpartitioned spec). Errors: INVALID_ARGUMENTS for a field the schema cannot
 * type, OUT_OF_MEMORY. */
int ice_partition_path(arena *a, const ice_schema *schema, const ice_partition_spec *spec,
                       const vec *values, uint32_t row, const char **out, sqe_error *err);

#endif
