/*
 * delete_write.h: writing Iceberg delete files for merge-on-read DELETE / UPDATE / MERGE:
 * position delete files (Parquet, format v2) and deletion vectors (Puffin, format v3).
 *
 * Spec: apache/iceberg format/spec.md "Position Delete Files" (columns file_path, field id
 * 2147483546, and pos, 2147483545; rows sorted by file_path then pos), "Deletion Vectors",
 * "Manifests" (data_file fields of delete files: content 1, referenced_data_file,
 * content_offset, content_size_in_bytes); format/puffin-spec.md "deletion-vector-v1" (blob
 * properties referenced-data-file and cardinality, snapshot-id and sequence-number -1).
 *
 * Input: per data file, its path, the deleted positions (an ice_roaring) and its partition
 * (spec id and tuple, as in its manifest entry). Output: ice_data_file records ready for
 * ice_manifest_write in a delete manifest (sequence numbers and snapshot ids are left to the
 * commit). Strings of the records are allocated in the caller's arena; partition vectors are
 * borrowed from the input (they must live until the manifest is written).
 *
 * Files appear atomically (written to a temporary name, fsync'ed, renamed); on error nothing is
 * left at path. The plain functions write local paths only (like pq_writer); the *_as variants
 * also take object-store locations ("s3://..."), building the file in a private staging file
 * and uploading it as identity io (iceberg/stage.h).
 */
#ifndef SQE_ICEBERG_DELETE_WRITE_H
#define SQE_ICEBERG_DELETE_WRITE_H

#include <stdint.h>

#include "common/arena.h"
#include "common/err.h"
#include "format/parquet/pq_writer.h"
#include "iceberg/manifest.h"
#include "iceberg/roaring.h"
#include "io/io.h"

/* The deletes of one data file. */
typedef struct ice_delete_target {
    const char *data_file_path;
    const ice_roaring *positions;   /* positions in the data file (< 2^63) */
    int32_t spec_id;                /* the data file's partition spec and tuple */
    uint32_t n_partition;
    const vec *partition;
    uint32_t partition_row;
} ice_delete_target;

/*
 * Writes one Parquet position delete file at path holding the positions of targets[0..n),
 * rows sorted by (file_path, pos), columns file_path (string) and pos (long) with their
 * reserved field ids. All targets must be in the same spec and partition (the file's
 * partition is targets[0]'s). opts (may be NULL: defaults) sets compression and sizes; its
 * field_ids are ignored. On success *out is the file's record: content POSITION_DELETES,
 * format "PARQUET", record_count, file_size_in_bytes, column_sizes, value_counts,
 * null_value_counts, lower/upper bounds of both columns (Appendix D bytes, path bounds not
 * truncated), and referenced_data_file when n == 1.
 * Errors: INVALID_ARGUMENTS (no targets, no positions, targets in different specs, a position
 * >= 2^63), the pq_writer errors, IO_ERROR, OUT_OF_MEMORY; *out is unspecified then.
 */
int ice_position_delete_file_write(arena *a, const char *path, const ice_delete_target *targets,
                                   uint32_t n, const pq_writer_options *opts, ice_data_file *out,
                                   sqe_error *err);

/*
 * Writes one Puffin file at path with a deletion-vector-v1 blob per target (in the given
 * order; data file paths must be distinct). On success out[0..n) are the DV records: content
 * POSITION_DELETES, format "PUFFIN", file_path path, file_size_in_bytes of the Puffin file,
 * referenced_data_file, content_offset and content_size_in_bytes of the blob, record_count the
 * cardinality, the target's partition. Errors: INVALID_ARGUMENTS (no targets, an empty
 * bitmap, a position >= 2^63, duplicate paths), IO_ERROR, OUT_OF_MEMORY.
 */
int ice_dv_file_write(arena *a, const char *path, const ice_delete_target *targets, uint32_t n,
                      ice_data_file *out, sqe_error *err);

/* ice_position_delete_file_write and ice_dv_file_write for a path that may be an
 * object-store location, written as io (NULL: the environment's credentials). Same records
 * (file_path is path); on error nothing is left at path. */
int ice_position_delete_file_write_as(arena *a, const char *path, const io_identity *io,
                                      const ice_delete_target *targets, uint32_t n,
                                      const pq_writer_options *opts, ice_data_file *out,
                                      sqe_error *err);
int ice_dv_file_write_as(arena *a, const char *path, const io_identity *io,
                         const ice_delete_target *targets, uint32_t n, ice_data_file *out,
                         sqe_error *err);

#endif
