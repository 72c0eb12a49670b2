/*
 * manifest.h: Iceberg manifest lists and manifests (Avro), read and written, and the binary
 * single-value serialization of Appendix D used by their bounds.
 *
 * Spec: apache/iceberg format/spec.md, "Manifests" (key-value metadata, manifest_entry,
 * data_file), "Manifest Lists" (manifest_file, field_summary), "Sequence Number Inheritance",
 * "First Row ID Inheritance", Appendix A "Avro" (field ids, map and list encodings), Appendix D
 * "Binary single-value serialization", Appendix E (v1 defaults when read by v2+ readers).
 *
 * Reading: the caller hands over the whole file (the io layer reads it); every object the
 * readers produce lives in the caller's arena (strings and bytes point into the arena's copy of
 * the decoded Avro values, never into the input buffer), so the result is dropped by resetting
 * the arena. Fields are found by Iceberg field id (by name only when a file carries no ids), so
 * files written by Java, pyiceberg and older writers read alike; unknown fields are ignored.
 * v1 files read with the v2 defaults (content 0, sequence numbers 0).
 *
 * Values: partition tuples and bounds are decoded into SQE values (types.h layouts) held in
 * *arena-backed vectors*: flat `vec`s whose data, validity and string bytes live in the arena.
 * They are read-only: use them with vec_is_null / vec_resolve / VEC_DATA and the predicate
 * functions of transform.h (ice_partition_pred_eval, ice_partition_pred_eval_range), never
 * with vec_destroy, vec_reset or anything that writes. Iceberg types map to SQE types as
 * ice_schema_to_sqe_type does (timestamp_ns values are floored to microseconds).
 *
 * Writing: ice_manifest_write and ice_manifest_list_write produce a complete Avro container file
 * in malloc'ed memory, with the exact Avro schemas Iceberg Java writes for format v1, v2 and v3
 * (record names, field names, field ids, element/key/value ids, optional fields as
 * ["null", T] with default null) and the key-value metadata the spec requires.
 *
 * Errors: INVALID_FILE "Invalid Iceberg manifest: ..." / "Invalid Iceberg manifest list: ..."
 * for any malformed content (wrong field types, missing required fields, bad enum values,
 * negative counts, bounds of the wrong size); the Avro layer's INVALID_FILE "Invalid Avro file:
 * ..." and NOT_SUPPORTED for container-level damage; INVALID_ARGUMENTS for bad writer input;
 * OUT_OF_MEMORY. Not thread-safe per arena; no global state.
 */
#ifndef SQE_ICEBERG_MANIFEST_H
#define SQE_ICEBERG_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/arena.h"
#include "common/err.h"
#include "format/avro/avro.h"
#include "iceberg/metadata.h"
#include "types/types.h"
#include "vec/vec.h"

/* Content of a manifest (manifest list field 517, header key "content"). */
typedef enum ice_manifest_content {
    ICE_MANIFEST_DATA = 0,
    ICE_MANIFEST_DELETES = 1,
} ice_manifest_content;

/* Content of a file (data_file field 134). */
typedef enum ice_file_content {
    ICE_CONTENT_DATA = 0,
    ICE_CONTENT_POSITION_DELETES = 1,
    ICE_CONTENT_EQUALITY_DELETES = 2,
} ice_file_content;

/* manifest_entry field 0. */
typedef enum ice_entry_status {
    ICE_STATUS_EXISTING = 0,
    ICE_STATUS_ADDED = 1,
    ICE_STATUS_DELETED = 2,
} ice_entry_status;

/* Java's marker for a sequence number not assigned yet (written manifests of a pending commit);
 * the manifest list writer replaces it with the commit's sequence number. */
#define ICE_SEQ_UNASSIGNED (-1)

typedef struct ice_bytes {
    const uint8_t *data; /* may be NULL when len is 0 */
    size_t len;
} ice_bytes;

/* ---- Appendix D: binary single-value serialization (bounds.c) ---------------------------- */

/* Makes *v an arena-backed flat vector of `type` with n rows, all valid and zero (see the top
 * of this file: read-only for everyone but its builder; never vec_destroy it). Returns SQE_OK
 * or OUT_OF_MEMORY. */
int ice_arena_vec_init(arena *a, vec *v, sqe_type type, uint32_t n, sqe_error *err);
/* Marks row `row` of an arena-backed vector NULL. Returns SQE_OK or OUT_OF_MEMORY. */
int ice_arena_vec_set_null(arena *a, vec *v, uint32_t row, sqe_error *err);

/*
 * Decodes the Appendix D binary form of a value of Iceberg primitive type t from p[0..len)
 * into row `row` of out, an arena-backed vector (ice_arena_vec_init) whose type is the SQE type
 * of t. Sizes: boolean 1; int, date 4; long, time, timestamp(tz) 8 or 4 (a bound written before
 * promotion from int / date: widened, days turned into microseconds); float 4; double 8 or 4
 * (promoted from float); timestamp(tz)_ns 8 (floored to microseconds) or 4 (days); decimal
 * 1..16 bytes big-endian two's complement whose value fits the precision; uuid 16; fixed(L) at
 * most L bytes; string and binary any length (the bytes are referenced, not copied: p must live
 * as long as out's arena). Errors: INVALID_FILE "Invalid Iceberg manifest: <what>: ..." (what
 * names the value for the message, e.g. "lower bound of field 3") for a wrong size or an
 * out-of-range decimal, NOT_SUPPORTED for types without a binary form (unknown, variant,
 * geometry, geography, nested). On error the row is unchanged.
 */
int ice_single_value_decode(const ice_type *t, const uint8_t *p, size_t len, vec *out,
                            uint32_t row, const char *what, sqe_error *err);
/*
 * Encodes row `row` of v (any shape; SQE type of t, or a narrower integer type for int/long)
 * in the Appendix D binary form of Iceberg type t, into bytes allocated in a (*out). Decimals
 * use the fewest bytes (0 -> 00, -1 -> ff, 128 -> 00 80); timestamp_ns multiplies by 1000.
 * Errors: INVALID_ARGUMENTS when the row is NULL or v's type does not fit t,
 * NUMERIC_VALUE_OUT_OF_RANGE when a nanosecond value overflows, NOT_SUPPORTED as above,
 * OUT_OF_MEMORY. On error *out is unchanged.
 */
int ice_single_value_encode(arena *a, const ice_type *t, const vec *v, uint32_t row,
                            ice_bytes *out, sqe_error *err);

/* ---- manifest lists ---------------------------------------------------------------------- */

/* field_summary (manifest list field 508): one per partition field of the manifest's spec.
 * Bounds stay in their Appendix D bytes (their type comes from the spec, which the list does
 * not carry); decode them with ice_single_value_decode and the partition field's type. */
typedef struct ice_field_summary {
    bool contains_null;   /* 509 */
    int8_t contains_nan;  /* 518: 1, 0, or -1 when null (unknown) */
    bool has_lower;       /* 510 present (non-null) */
    bool has_upper;       /* 511 */
    ice_bytes lower;
    ice_bytes upper;
} ice_field_summary;

/* manifest_file: one entry of a manifest list. For files without a v2 field, the v1 default
 * applies (content 0, sequence numbers 0) and the has_ flag is false. */
typedef struct ice_manifest_file {
    const char *manifest_path;         /* 500 */
    int64_t manifest_length;           /* 501 */
    int32_t partition_spec_id;         /* 502 */
    ice_manifest_content content;      /* 517 (0 for v1) */
    bool has_sequence_number;
    int64_t sequence_number;           /* 515 (0 for v1; ICE_SEQ_UNASSIGNED when writing new) */
    bool has_min_sequence_number;
    int64_t min_sequence_number;       /* 516 */
    int64_t added_snapshot_id;         /* 503 */
    bool has_added_files_count, has_existing_files_count, has_deleted_files_count;
    int32_t added_files_count;         /* 504 */
    int32_t existing_files_count;      /* 505 */
    int32_t deleted_files_count;       /* 506 */
    bool has_added_rows_count, has_existing_rows_count, has_deleted_rows_count;
    int64_t added_rows_count;          /* 512 */
    int64_t existing_rows_count;       /* 513 */
    int64_t deleted_rows_count;        /* 514 */
    bool has_partitions;               /* 507 present (possibly empty) */
    uint32_t n_partitions;
    ice_field_summary *partitions;
    bool has_key_metadata;
    ice_bytes key_metadata;            /* 519 */
    bool has_first_row_id;
    int64_t first_row_id;              /* 520 (v3) */
} ice_manifest_file;

/* Header metadata of a manifest list (Iceberg Java writes these keys). */
typedef struct ice_manifest_list_info {
    int format_version;         /* "format-version", 1 when absent */
    bool has_snapshot_id;
    int64_t snapshot_id;        /* "snapshot-id" */
    bool has_parent_snapshot_id;
    int64_t parent_snapshot_id; /* "parent-snapshot-id" (Java writes "null" for none) */
    bool has_sequence_number;
    int64_t sequence_number;    /* "sequence-number" (v2+) */
    bool has_first_row_id;
    int64_t first_row_id;       /* "first-row-id" (v3) */
} ice_manifest_list_info;

/*
 * Reads a manifest list held in buf[0..len) (an Avro container file). On success *out is an
 * array of *n manifest files in file order, allocated in a (NULL when empty), and *info (may be
 * NULL) the header metadata. Checks: every field's Avro type, required fields (path, length,
 * spec id, added snapshot id, and in files that declare format-version >= 2 also content,
 * sequence numbers and the six counts), content 0/1, lengths and counts >= 0. Errors: as at the
 * top; on error *out and *n are untouched (a may hold partial allocations).
 */
int ice_manifest_list_read(arena *a, const uint8_t *buf, size_t len, ice_manifest_file **out,
                           uint32_t *n, ice_manifest_list_info *info, sqe_error *err);

typedef struct ice_manifest_list_write_opts {
    int format_version;        /* 1, 2 or 3; 0 = 2 */
    int64_t snapshot_id;       /* the snapshot this list belongs to ("snapshot-id") */
    bool has_parent_snapshot_id;
    int64_t parent_snapshot_id;
    int64_t sequence_number;   /* the commit's sequence number (v2+): replaces
                                * ICE_SEQ_UNASSIGNED in manifest files */
    int64_t first_row_id;      /* v3: the snapshot's first-row-id; data manifests without one
                                * are assigned ids from here (spec "First Row ID Assignment") */
    avro_codec codec;          /* default AVRO_CODEC_NULL; Java uses deflate */
    const uint8_t *sync;       /* 16 bytes for reproducible output, or NULL (random) */
} ice_manifest_list_write_opts;

/*
 * Writes a manifest list of files[0..n) with the v1/v2/v3 manifest_file schema. v1 omits
 * content and sequence numbers (content must be data); v2+ requires the six counts (has_ flags
 * set) and writes sequence numbers, replacing ICE_SEQ_UNASSIGNED by opts->sequence_number; v3
 * writes first_row_id (assigned for data manifests without one: the next id grows by each
 * assigned manifest's added + existing rows). On success *bytes (malloc'ed, free with free())
 * and *len hold the file; *next_row_id (may be NULL) gets the first row id after the assigned
 * ones (v3) or opts->first_row_id. Errors: INVALID_ARGUMENTS for an inconsistent input (missing
 * v2 counts, delete manifest in v1, negative counts), OUT_OF_MEMORY; *bytes NULL then.
 */
int ice_manifest_list_write(const ice_manifest_list_write_opts *opts,
                            const ice_manifest_file *files, uint32_t n, uint8_t **bytes,
                            size_t *len, int64_t *next_row_id, sqe_error *err);

/* ---- manifests ----------------------------------------------------------------------------- */

/* An int -> long metrics map entry (column_sizes, value_counts, null/nan_value_counts). */
typedef struct ice_id_count {
    int32_t field_id;
    int64_t value;
} ice_id_count;

typedef struct ice_counts {
    bool present;          /* the map was non-null (possibly empty) */
    uint32_t n;
    ice_id_count *items;
} ice_counts;

/* A lower or upper bound: the Appendix D bytes, and the value decoded with the column's type
 * in the table's schema (see ice_manifest_read): a 1-row arena-backed vector, NULL-typed
 * (TYPE_UNKNOWN, row NULL) when the column is unknown or its type has no binary form. */
typedef struct ice_bound {
    int32_t field_id;
    ice_bytes raw;
    vec value;
} ice_bound;

typedef struct ice_bounds {
    bool present;
    uint32_t n;
    ice_bound *items;
} ice_bounds;

/* data_file (manifest_entry field 2). */
typedef struct ice_data_file {
    ice_file_content content;      /* 134 (0 for v1) */
    const char *file_path;         /* 100 */
    const char *file_format;       /* 101, as written ("PARQUET" by Java and pyiceberg) */
    int32_t spec_id;               /* the manifest's partition spec id */
    /* 102: the partition tuple: value k is row partition_row of partition[k] (arena-backed
     * vectors shared by every entry of the manifest, one per partition field, typed by the
     * field's result type; see ice_manifest.partition_fields). */
    uint32_t n_partition;
    const vec *partition;
    uint32_t partition_row;
    int64_t record_count;          /* 103 */
    int64_t file_size_in_bytes;    /* 104 */
    bool has_block_size_in_bytes;
    int64_t block_size_in_bytes;   /* 105 (v1 only) */
    ice_counts column_sizes;       /* 108 */
    ice_counts value_counts;       /* 109 */
    ice_counts null_value_counts;  /* 110 */
    ice_counts nan_value_counts;   /* 137 */
    ice_counts distinct_counts;    /* 111 (deprecated; read, never written) */
    ice_bounds lower_bounds;       /* 125 */
    ice_bounds upper_bounds;       /* 128 */
    bool has_key_metadata;
    ice_bytes key_metadata;        /* 131 */
    bool has_split_offsets;
    uint32_t n_split_offsets;
    int64_t *split_offsets;        /* 132 */
    bool has_equality_ids;
    uint32_t n_equality_ids;
    int32_t *equality_ids;         /* 135 */
    bool has_sort_order_id;
    int32_t sort_order_id;         /* 140 */
    bool has_first_row_id;
    int64_t first_row_id;          /* 142 (v3; inherited on read) */
    const char *referenced_data_file; /* 143, NULL when null */
    bool has_content_offset;
    int64_t content_offset;        /* 144 (v3) */
    bool has_content_size_in_bytes;
    int64_t content_size_in_bytes; /* 145 (v3) */
} ice_data_file;

/* manifest_entry. After ice_manifest_read with a manifest list entry, null snapshot ids and
 * sequence numbers are inherited (has_ flags set). */
typedef struct ice_manifest_entry {
    ice_entry_status status;             /* 0 */
    bool has_snapshot_id;
    int64_t snapshot_id;                 /* 1 */
    bool has_sequence_number;
    int64_t sequence_number;             /* 3: data sequence number */
    bool has_file_sequence_number;
    int64_t file_sequence_number;        /* 4 */
    ice_data_file file;                  /* 2 */
} ice_manifest_entry;

/* A partition field of a manifest: from the manifest's partition record (field id, name) typed
 * by the table's partition spec (or, when the spec is not in the table metadata or its
 * transform is unknown, by the Avro type). */
typedef struct ice_manifest_partition_field {
    int32_t field_id;
    const char *name;
    bool has_type;        /* false when only the Avro type was known */
    ice_type type;        /* Iceberg result type (valid when has_type) */
    sqe_type sqe;         /* the SQE type of the values in the partition vector */
    const ice_partition_field *spec_field; /* in the table's spec, or NULL */
} ice_manifest_partition_field;

/* A decoded manifest. */
typedef struct ice_manifest {
    int format_version;            /* header "format-version"; 1 when absent */
    ice_manifest_content content;  /* header "content"; data when absent */
    bool has_schema_id;
    int32_t schema_id;             /* header "schema-id" */
    int32_t spec_id;               /* header "partition-spec-id", else the list entry's, else 0 */
    const ice_partition_spec *spec;     /* the spec in the table metadata, or NULL */
    const char *schema_json;            /* header "schema" as read (NULL when absent) */
    const char *partition_spec_json;    /* header "partition-spec" as read */
    uint32_t n_partition_fields;
    ice_manifest_partition_field *partition_fields;
    vec *partition;                /* n_partition_fields arena-backed vectors of n_entries rows */
    uint32_t n_entries;
    ice_manifest_entry *entries;
} ice_manifest;

/*
 * Reads a manifest held in buf[0..len). m (required) is the table metadata: the partition spec
 * (header "partition-spec-id", else from->partition_spec_id) types the partition tuple, and
 * bounds are decoded with the column's type in the current schema (so bounds written before a
 * type promotion read widened), else in the schema named by the header's "schema-id" (dropped
 * columns); other ids keep only their bytes. from (may be NULL) is
 * the manifest's entry in the manifest list: when given, null snapshot ids inherit
 * from->added_snapshot_id, null sequence numbers of ADDED entries (of all entries when the
 * list's sequence number is 0, i.e. v1) inherit from->sequence_number, and v3 null first row
 * ids are assigned from from->first_row_id (spec "Sequence Number Inheritance", "First Row ID
 * Inheritance"). v1 manifests (no sequence number fields) read with sequence numbers 0.
 * On success *out lives in a. Errors: as at the top; on error *out is untouched.
 */
int ice_manifest_read(arena *a, const uint8_t *buf, size_t len, const ice_metadata *m,
                      const ice_manifest_file *from, ice_manifest **out, sqe_error *err);

typedef struct ice_manifest_write_opts {
    int format_version;                /* 1, 2 or 3; 0 = 2 */
    ice_manifest_content content;      /* data or deletes (v2+) */
    const ice_schema *schema;          /* written as header "schema" and "schema-id" */
    const ice_partition_spec *spec;    /* partition tuple type and header "partition-spec" */
    int64_t snapshot_id;               /* v1: written for entries without a snapshot id */
    avro_codec codec;
    const uint8_t *sync;               /* 16 bytes, or NULL (random) */
} ice_manifest_write_opts;

/*
 * Writes a manifest of entries[0..n) with the manifest_entry schema of the format version and
 * the partition type of opts->spec over opts->schema. Each entry's file.partition must hold
 * spec->n_fields vectors (any shape) typed by the fields' result types (SQE types), read at
 * file.partition_row (NULL rows become null). Bounds are written from their raw bytes. v1
 * writes snapshot ids (opts->snapshot_id when absent) and block_size_in_bytes (64 MiB when
 * absent), no sequence numbers and no content; v2+ writes nulls for absent snapshot ids and
 * sequence numbers (inheritance). v3 fields are written only for v3. On success *bytes
 * (malloc'ed) and *len hold the file. Errors: INVALID_ARGUMENTS (unknown transforms, partition
 * values of the wrong type, delete files in v1, bad enum values), OUT_OF_MEMORY; *bytes NULL.
 */
int ice_manifest_write(const ice_manifest_write_opts *opts, const ice_manifest_entry *entries,
                       uint32_t n, uint8_t **bytes, size_t *len, sqe_error *err);

/*
 * Fills the manifest list entry for a manifest just written from entries[0..n): counts of
 * added/existing/deleted files and rows, partition field summaries (contains_null,
 * contains_nan, lower/upper bounds in Appendix D form, bounds allocated in a), min sequence
 * number (ICE_SEQ_UNASSIGNED when an entry has none), content and spec id from opts, path and
 * length from the caller, sequence_number ICE_SEQ_UNASSIGNED, added_snapshot_id
 * opts->snapshot_id. Errors: INVALID_ARGUMENTS, OUT_OF_MEMORY (*out unspecified then).
 */
int ice_manifest_summarize(arena *a, const ice_manifest_write_opts *opts,
                           const ice_manifest_entry *entries, uint32_t n, const char *path,
                           int64_t length, ice_manifest_file *out, sqe_error *err);

#endif
