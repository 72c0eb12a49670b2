/*
 * metadata.h: the Iceberg table metadata model (Iceberg spec: "Table Metadata", Appendix C "JSON
 * serialization") for format versions 1, 2 and 3: schemas with field ids, partition specs and
 * transforms, sort orders, snapshots, refs, logs and statistics, with a parser and a writer.
 *
 * Everything a parse produces lives in the caller's arena (all strings copied, NUL-terminated);
 * drop the whole model by resetting the arena. The model is plain data: callers may build or edit
 * it directly (allocating from an arena) and write it with ice_metadata_write.
 *
 * Round trip: ice_metadata_write(ice_metadata_parse(x)) is semantically equal to x (same keys and
 * values, key order may differ). For that the model records which optional keys were present
 * (`present`, `has_*` flags) and keeps every key it does not know as raw JSON text (`extra`) on
 * the table, schema, field, spec, sort order, snapshot, ref and log objects.
 */
#ifndef SQE_ICEBERG_METADATA_H
#define SQE_ICEBERG_METADATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/arena.h"
#include "common/err.h"
#include "common/strbuf.h"
#include "iceberg/transform.h"
#include "types/types.h"

/* Highest format version this code reads and writes. */
#define ICE_FORMAT_VERSION_MAX 3
/* Nesting limit of struct/list/map types in a schema (hostile input guard). */
#define ICE_MAX_TYPE_DEPTH 64

/* A string key with a string value (properties, summaries) or with raw JSON text (extra keys). */
typedef struct ice_kv {
    const char *key;
    const char *value;
} ice_kv;

typedef struct ice_kv_list {
    uint32_t n;
    ice_kv *items;
} ice_kv_list;

/* Value of key in list, or NULL. */
const char *ice_kv_get(const ice_kv_list *list, const char *key);

/* ---- types and schemas (schema.c) ------------------------------------------------------------ */

typedef enum ice_type_kind {
    ICE_TYPE_UNKNOWN = 0, /* v3 "unknown": always null */
    ICE_TYPE_BOOLEAN,
    ICE_TYPE_INT,
    ICE_TYPE_LONG,
    ICE_TYPE_FLOAT,
    ICE_TYPE_DOUBLE,
    ICE_TYPE_DECIMAL,        /* precision, scale */
    ICE_TYPE_DATE,
    ICE_TYPE_TIME,
    ICE_TYPE_TIMESTAMP,
    ICE_TYPE_TIMESTAMPTZ,
    ICE_TYPE_TIMESTAMP_NS,   /* v3 */
    ICE_TYPE_TIMESTAMPTZ_NS, /* v3 */
    ICE_TYPE_STRING,
    ICE_TYPE_UUID,
    ICE_TYPE_FIXED,          /* length */
    ICE_TYPE_BINARY,
    ICE_TYPE_VARIANT,        /* v3; no SQE type */
    ICE_TYPE_GEOMETRY,       /* v3; text keeps the spelling with its CRS; no SQE type */
    ICE_TYPE_GEOGRAPHY,      /* v3; likewise */
    ICE_TYPE_STRUCT,
    ICE_TYPE_LIST,           /* fields[0] is the element ("element", element-id) */
    ICE_TYPE_MAP,            /* fields[0] key ("key", key-id), fields[1] value ("value", value-id) */
    ICE_TYPE_COUNT_
} ice_type_kind;

typedef struct ice_field ice_field;

typedef struct ice_type {
    ice_type_kind kind;
    int32_t precision;  /* DECIMAL: 1..38 */
    int32_t scale;      /* DECIMAL: 0..precision */
    int32_t length;     /* FIXED: bytes, >= 1 */
    const char *text;   /* GEOMETRY/GEOGRAPHY: the type string as read (e.g. "geometry(srid:4326)") */
    uint32_t n_fields;  /* STRUCT: fields; LIST: 1; MAP: 2 */
    ice_field *fields;
} ice_type;

struct ice_field {
    int32_t id;
    const char *name;            /* LIST/MAP children: "element", "key", "value" */
    bool required;
    ice_type type;
    const char *doc;             /* NULL when absent */
    const char *initial_default; /* v3: raw JSON text (Appendix D single-value form), NULL if absent */
    const char *write_default;   /* v3: likewise */
    ice_kv_list extra;           /* unknown keys of a struct field object (raw JSON) */
};

typedef struct ice_schema {
    int32_t schema_id;
    bool has_schema_id;               /* false only for a v1 schema written without one (id 0) */
    uint32_t n_identifier_field_ids;
    int32_t *identifier_field_ids;
    bool has_identifier_field_ids;    /* the key was present (possibly as []) */
    ice_type type;                    /* kind ICE_TYPE_STRUCT: the top-level columns */
    ice_kv_list extra;
} ice_schema;

/* Iceberg type name of a primitive kind as written in JSON ("long", "timestamptz_ns"), or
 * "struct"/"list"/"map". Never NULL. */
const char *ice_type_kind_name(ice_type_kind kind);
/* Writes the JSON spelling of a primitive type ("decimal(9, 2)", "fixed[16]") into buf like
 * snprintf; nested kinds give "struct"/"list"/"map". */
size_t ice_type_format(const ice_type *t, char *buf, size_t buf_len);
/* Parses a primitive type string ("decimal(9,2)", "fixed[16]", "geometry(...)"). Returns SQE_OK,
 * or INVALID_FILE for an unknown or malformed name (message names the text). */
int ice_type_parse_primitive(arena *a, const char *text, ice_type *out, sqe_error *err);

/* The SQE type for an Iceberg type: struct -> ROW (field names), list -> ARRAY, map -> MAP,
 * int -> INTEGER, long -> BIGINT, float -> REAL, string -> VARCHAR, fixed/binary -> VARBINARY,
 * uuid -> UUID, time/timestamp(tz) -> precision 6, timestamp(tz)_ns -> precision 6 as well (SQE
 * keeps microseconds; nanosecond values are truncated when read), unknown -> TYPE_UNKNOWN.
 * variant/geometry/geography give NOT_SUPPORTED "unsupported: ...". *out is set only on success. */
int ice_schema_to_sqe_type(const ice_type *t, sqe_type *out, sqe_error *err);
/* The Iceberg type for an SQE type, allocated in a, assigning fresh field ids: each new id is
 * ++*last_id (like Iceberg's assignFreshIds: all fields of a struct first, then their children;
 * list element and map key/value ids before their children). tinyint/smallint -> int,
 * char/varchar -> string, varbinary -> binary, TYPE_UNKNOWN -> unknown; nested children are
 * optional except map keys. json, intervals and anonymous row fields give NOT_SUPPORTED. On error
 * *out and *last_id are unspecified. */
int ice_type_from_sqe(arena *a, sqe_type t, int32_t *last_id, ice_type *out, sqe_error *err);
/* A schema from an SQE ROW type (its fields become the top-level columns, all optional), with
 * fresh ids from *last_id (as above). */
int ice_schema_from_sqe(arena *a, sqe_type row, int32_t schema_id, int32_t *last_id,
                        ice_schema **out, sqe_error *err);

/* The field with this id anywhere in the schema (nested fields, list elements, map keys and
 * values included), or NULL. */
const ice_field *ice_schema_find_field(const ice_schema *schema, int32_t id);
/* The field at a dotted path of struct field names ("a.b.c"), or NULL. Lists and maps are
 * entered through their child names ("tags.element", "m.key", "m.value"). Names containing dots
 * are matched whole first. case_insensitive compares ASCII letters without case. */
const ice_field *ice_schema_find_by_name(const ice_schema *schema, const char *path,
                                         bool case_insensitive);
/* Highest field id in the schema (0 if it has no fields). */
int32_t ice_schema_max_field_id(const ice_schema *schema);

/* ---- partition specs (partition_spec.c; transforms are in transform.h) ---------------------- */

typedef struct ice_partition_spec ice_partition_spec;
typedef struct ice_partition_field ice_partition_field;

/* The Iceberg type of a partition field's values: the transform's result type for the source
 * column's type in schema (spec "Partition Transforms"): identity, truncate and void keep the
 * source type; bucket, year, month and hour give int; day gives date (int32 days; the spec's
 * table says int, Iceberg Java and pyiceberg type it date, as transform.h does). Multi-argument
 * (v3 source-ids) fields use their first source. Errors: COLUMN_NOT_FOUND when the source id is
 * not in schema, TYPE_MISMATCH when the transform does not apply to the source type (or the
 * source is a struct, list or map), NOT_SUPPORTED for an unknown transform. */
int ice_partition_field_type(const ice_schema *schema, const ice_partition_field *field,
                             ice_type *out, sqe_error *err);
/* The partition tuple type of spec under schema: a struct with one optional field per partition
 * field (id = partition field id, name = partition name, type as above), allocated in a. This is
 * the `partition` struct of manifest entries. Same errors, plus OUT_OF_MEMORY. */
int ice_partition_spec_type(arena *a, const ice_schema *schema, const ice_partition_spec *spec,
                            ice_type *out, sqe_error *err);

struct ice_partition_field {
    int32_t source_id;        /* single-argument transforms; first of source_ids otherwise */
    bool has_source_id;       /* "source-id" was present */
    uint32_t n_source_ids;    /* v3 multi-argument transforms ("source-ids"); 0 when absent */
    int32_t *source_ids;
    int32_t field_id;         /* v1 without field-id: 1000 + position (reference implementation) */
    bool has_field_id;
    const char *name;
    ice_transform transform;
    const char *transform_text; /* the string as read; written back for ICE_T_UNKNOWN */
    ice_kv_list extra;
};

struct ice_partition_spec {
    int32_t spec_id;
    uint32_t n_fields;
    ice_partition_field *fields;
    ice_kv_list extra;
};

/* Partition field ids start here (Iceberg reference implementation; v1 assigns them in order). */
#define ICE_PARTITION_FIELD_ID_START 1000

/* ---- sort orders ----------------------------------------------------------------------------- */

typedef struct ice_sort_field {
    ice_transform transform;
    const char *transform_text; /* as read; written back for ICE_T_UNKNOWN */
    int32_t source_id;
    bool has_source_id;
    uint32_t n_source_ids;
    int32_t *source_ids;
    bool descending;   /* "direction": "asc" | "desc" */
    bool nulls_first;  /* "null-order": "nulls-first" | "nulls-last" */
    ice_kv_list extra;
} ice_sort_field;

typedef struct ice_sort_order {
    int32_t order_id;  /* 0 = unsorted */
    uint32_t n_fields;
    ice_sort_field *fields;
    ice_kv_list extra;
} ice_sort_order;

/* ---- snapshots, refs, logs, statistics ------------------------------------------------------- */

typedef struct ice_snapshot {
    int64_t snapshot_id;
    bool has_parent;
    int64_t parent_snapshot_id;
    bool has_sequence_number;   /* v1 snapshots have none (sequence number 0) */
    int64_t sequence_number;
    int64_t timestamp_ms;
    const char *manifest_list;  /* NULL for a v1 snapshot that lists "manifests" instead */
    bool has_manifests;         /* v1 legacy "manifests" list */
    uint32_t n_manifests;
    const char **manifests;
    bool has_summary;
    ice_kv_list summary;        /* "operation" first when present */
    bool has_schema_id;
    int32_t schema_id;
    bool has_first_row_id;      /* v3 */
    int64_t first_row_id;
    bool has_added_rows;        /* v3 */
    int64_t added_rows;
    const char *key_id;         /* v3 encryption key id, NULL when absent */
    ice_kv_list extra;
} ice_snapshot;

typedef enum ice_ref_type { ICE_REF_BRANCH = 0, ICE_REF_TAG } ice_ref_type;

typedef struct ice_ref {
    const char *name;
    int64_t snapshot_id;
    ice_ref_type type;
    bool has_max_ref_age_ms;
    int64_t max_ref_age_ms;
    bool has_max_snapshot_age_ms;
    int64_t max_snapshot_age_ms;
    bool has_min_snapshots_to_keep;
    int32_t min_snapshots_to_keep;
    bool implicit;   /* the "main" branch made from current-snapshot-id when refs lacked it; not written */
    ice_kv_list extra;
} ice_ref;

typedef struct ice_snapshot_log_entry {
    int64_t timestamp_ms;
    int64_t snapshot_id;
    ice_kv_list extra;
} ice_snapshot_log_entry;

typedef struct ice_metadata_log_entry {
    int64_t timestamp_ms;
    const char *metadata_file;
    ice_kv_list extra;
} ice_metadata_log_entry;

/* A table statistics or partition statistics file: the fields scans need plus the object as raw
 * JSON (written back verbatim). */
typedef struct ice_statistics_file {
    int64_t snapshot_id;
    const char *path;  /* "statistics-path" */
    const char *json;  /* the whole object */
} ice_statistics_file;

/* Which optional (or version-dependent) top-level keys were present; the writer writes a key
 * when its bit is set. ice_metadata_default_present gives what Iceberg Java writes. */
enum {
    ICE_MD_TABLE_UUID = 1u << 0,
    ICE_MD_LAST_SEQUENCE_NUMBER = 1u << 1,
    ICE_MD_SCHEMAS = 1u << 2,
    ICE_MD_CURRENT_SCHEMA_ID = 1u << 3,
    ICE_MD_LEGACY_SCHEMA = 1u << 4,          /* v1 "schema" (the current schema) */
    ICE_MD_PARTITION_SPECS = 1u << 5,
    ICE_MD_DEFAULT_SPEC_ID = 1u << 6,
    ICE_MD_LEGACY_PARTITION_SPEC = 1u << 7,  /* v1 "partition-spec" (default spec's fields) */
    ICE_MD_LAST_PARTITION_ID = 1u << 8,
    ICE_MD_PROPERTIES = 1u << 9,
    ICE_MD_CURRENT_SNAPSHOT_ID = 1u << 10,   /* written as the id, or -1 when none */
    ICE_MD_CURRENT_SNAPSHOT_NULL = 1u << 11, /* written as null when none (v3 Java) */
    ICE_MD_SNAPSHOTS = 1u << 12,
    ICE_MD_SNAPSHOT_LOG = 1u << 13,
    ICE_MD_METADATA_LOG = 1u << 14,
    ICE_MD_SORT_ORDERS = 1u << 15,
    ICE_MD_DEFAULT_SORT_ORDER_ID = 1u << 16,
    ICE_MD_REFS = 1u << 17,
    ICE_MD_STATISTICS = 1u << 18,
    ICE_MD_PARTITION_STATISTICS = 1u << 19,
    ICE_MD_NEXT_ROW_ID = 1u << 20,
};

typedef struct ice_metadata {
    int format_version;            /* 1..3 */
    const char *table_uuid;        /* NULL when absent (v1 only) */
    const char *location;
    int64_t last_sequence_number;  /* v1: 0 */
    int64_t last_updated_ms;
    int32_t last_column_id;
    uint32_t n_schemas;
    ice_schema *schemas;
    int32_t current_schema_id;
    uint32_t n_specs;
    ice_partition_spec *specs;
    int32_t default_spec_id;
    int32_t last_partition_id;     /* v1 without it: highest field id, or 999 */
    ice_kv_list properties;
    int64_t current_snapshot_id;   /* -1 = none */
    uint32_t n_snapshots;
    ice_snapshot *snapshots;
    uint32_t n_snapshot_log;
    ice_snapshot_log_entry *snapshot_log;
    uint32_t n_metadata_log;
    ice_metadata_log_entry *metadata_log;
    uint32_t n_sort_orders;
    ice_sort_order *sort_orders;   /* v1 without sort-orders: the unsorted order 0 */
    int32_t default_sort_order_id;
    uint32_t n_refs;
    ice_ref *refs;
    uint32_t n_statistics;
    ice_statistics_file *statistics;
    uint32_t n_partition_statistics;
    ice_statistics_file *partition_statistics;
    int64_t next_row_id;           /* v3; 0 otherwise */
    const char *encryption_keys;   /* v3 "encryption-keys" as raw JSON, NULL when absent */
    /* v1 files with both "schema" and "schemas" (or "partition-spec" and "partition-specs"):
     * the legacy value as read, raw JSON, written back verbatim (pyiceberg leaves it stale
     * after evolution). NULL otherwise; set to NULL after changing schemas or specs, so the
     * writer derives it from the current schema / default spec as Iceberg Java does. */
    const char *legacy_schema_json;
    const char *legacy_partition_spec_json;
    uint32_t present;              /* ICE_MD_* bits */
    ice_kv_list extra;             /* unknown top-level keys, raw JSON */
    /* Not part of the JSON: whose object-store credentials read and write this version's files
     * (the user who loaded it: vended or configured keys, io.h), or NULL for the process
     * default. Borrowed from the owner of the loaded version (ice_table_ref), which outlives
     * every metadata derived from it (ice_metadata_update copies the pointer). */
    const struct io_identity *io;
} ice_metadata;

/* The ICE_MD_* bits Iceberg Java's TableMetadataParser writes for a format version (use it when
 * building metadata from scratch). */
uint32_t ice_metadata_default_present(int format_version);

/* Parses table metadata JSON (len bytes at json, need not be NUL-terminated) into a model
 * allocated in a. Checks every field's JSON type, int/long ranges, required fields per format
 * version (v1 accepts the legacy "schema" and "partition-spec"), type nesting depth, duplicate
 * field ids, and that current schema/spec/sort order/snapshot and refs point at existing objects.
 * Errors: INVALID_FILE "Invalid Iceberg metadata: <json path>: <problem>"; NOT_SUPPORTED
 * "unsupported: ..." for format versions above 3 and gzip-compressed input; OUT_OF_MEMORY.
 * On error *out is untouched (the arena may hold partial allocations). */
int ice_metadata_parse(arena *a, const char *json, size_t len, ice_metadata **out,
                       sqe_error *err);

/* Appends the metadata as compact JSON to out, keys in Iceberg Java's order (then any extra
 * keys). Writes only keys whose presence the model records (see `present` and the has_* flags).
 * Errors: INVALID_ARGUMENTS for an inconsistent model (e.g. an extra value that is not JSON,
 * an unknown type kind), OUT_OF_MEMORY; out may then hold a partial text. */
int ice_metadata_write(const ice_metadata *m, strbuf *out, sqe_error *err);
/* Appends one schema's JSON object (as in "schemas"). Same errors. */
int ice_schema_write(const ice_schema *s, strbuf *out, sqe_error *err);

/* Lookups; each returns NULL when there is no such object. */
const ice_schema *ice_metadata_schema(const ice_metadata *m, int32_t schema_id);
const ice_schema *ice_metadata_current_schema(const ice_metadata *m);
const ice_partition_spec *ice_metadata_spec(const ice_metadata *m, int32_t spec_id);
const ice_partition_spec *ice_metadata_default_spec(const ice_metadata *m);
const ice_sort_order *ice_metadata_sort_order(const ice_metadata *m, int32_t order_id);
const ice_snapshot *ice_metadata_snapshot(const ice_metadata *m, int64_t snapshot_id);
const ice_snapshot *ice_metadata_current_snapshot(const ice_metadata *m);
const ice_ref *ice_metadata_ref(const ice_metadata *m, const char *name);

#endif
