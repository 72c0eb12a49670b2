/*
 * avro.h: Apache Avro for Iceberg manifest lists and manifests: schemas (JSON), the binary
 * encoding, and object container files (read and write), with a generic value tree.
 *
 * Spec: Avro 1.11 "Specification" (avro.apache.org/docs/1.11.1/specification): sections
 * "Schema Declaration", "Data Serialization and Deserialization" (binary encoding), "Object
 * Container Files" and "Required Codecs"/"Optional Codecs" (null, deflate, snappy). Iceberg
 * (iceberg.apache.org/spec, "Avro") adds attributes kept here: "field-id" on record fields,
 * "element-id" on arrays, "key-id"/"value-id" on maps, "adjust-to-utc" on timestamps, and
 * logicalType "map" on arrays of key/value records (maps with non-string keys).
 *
 * Memory: schemas and decoded values live in a caller-supplied arena (everything reachable from
 * an avro_schema or avro_value is freed with it). Readers and writers hold a little heap state
 * released by avro_reader_close / avro_writer_destroy.
 *
 * Errors: INVALID_FILE "Invalid Avro file: ..." for malformed container bytes, INVALID_ARGUMENTS
 * "Invalid Avro schema: ..." for a bad schema text and "Invalid Avro value: ..." for a value that
 * does not match the writer's schema, NOT_SUPPORTED "unsupported: Avro codec X",
 * OUT_OF_MEMORY. Every length and count read from a file is checked against the bytes left,
 * varints are at most 10 bytes, schema and value nesting is capped at AVRO_MAX_DEPTH, and the
 * number of values decoded from a block is bounded by a multiple of the block's size, so
 * allocation is bounded relative to the input. Not thread-safe: one reader or writer per thread.
 */
#ifndef SQE_FORMAT_AVRO_AVRO_H
#define SQE_FORMAT_AVRO_AVRO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/arena.h"
#include "common/err.h"

/* Deepest nesting of schemas (JSON objects/arrays) and of decoded values. */
#define AVRO_MAX_DEPTH 100
/* Largest uncompressed block a reader accepts (and a writer produces). */
#define AVRO_MAX_BLOCK_BYTES ((size_t)1 << 28)

/* Avro spec "Primitive Types" and "Complex Types". */
typedef enum avro_type {
    AVRO_NULL,
    AVRO_BOOLEAN,
    AVRO_INT,
    AVRO_LONG,
    AVRO_FLOAT,
    AVRO_DOUBLE,
    AVRO_BYTES,
    AVRO_STRING,
    AVRO_RECORD,
    AVRO_ENUM,
    AVRO_ARRAY,
    AVRO_MAP,
    AVRO_UNION,
    AVRO_FIXED,
} avro_type;

typedef struct avro_schema avro_schema;

/* A record field (spec "Records": name, type, default; Iceberg: field-id). */
typedef struct avro_field {
    const char *name;
    avro_schema *type;
    bool has_field_id;
    int32_t field_id;          /* Iceberg "field-id" */
    const char *default_json;  /* the "default" attribute re-encoded as compact JSON; NULL when
                                * absent (a default of null is the text "null") */
} avro_field;

/*
 * A schema node. Named types (record, enum, fixed) are shared by every reference to them, so a
 * recursive record makes the tree a graph: walkers must bound their depth.
 */
struct avro_schema {
    avro_type type;
    const char *name;          /* full name of record/enum/fixed ("ns.name"), else NULL */
    const char *logical;       /* "logicalType" when valid for the type ("date", "decimal",
                                * "uuid", "time-micros", "timestamp-micros", "map", ...), or NULL;
                                * an invalid decimal annotation is dropped (spec) */
    int32_t precision, scale;  /* logical "decimal" */
    bool has_adjust_to_utc;    /* Iceberg "adjust-to-utc" on timestamps */
    bool adjust_to_utc;
    avro_field *fields;        /* record */
    uint32_t n_fields;
    const char **symbols;      /* enum */
    uint32_t n_symbols;
    avro_schema *items;        /* array */
    avro_schema *values;       /* map (keys are strings) */
    avro_schema **branches;    /* union */
    uint32_t n_branches;
    uint32_t size;             /* fixed: bytes per value */
    bool has_element_id, has_key_id, has_value_id;
    int32_t element_id;        /* Iceberg "element-id" on arrays */
    int32_t key_id, value_id;  /* Iceberg "key-id"/"value-id" on maps */
    uint32_t min_size;         /* least bytes a value of this schema encodes to (internal bound) */
};

/*
 * Parses an Avro schema from JSON text json[0..len) (a primitive name, an object or a union
 * array). Named types are resolved with namespaces as in spec "Names"; references to names not
 * yet defined, redefinitions and malformed attributes are errors. On success *out lives in a.
 * Errors: INVALID_ARGUMENTS "Invalid Avro schema: ...", OUT_OF_MEMORY; on error *out is NULL
 * and a may hold partial allocations.
 */
int avro_schema_parse(arena *a, const char *json, size_t len, avro_schema **out, sqe_error *err);

/* Name of a type ("record", "long", ...); never NULL. */
const char *avro_type_name(avro_type t);

/* The field of a record schema called name, and its index in *idx (may be NULL); NULL when
 * absent or when s is not a record. */
const avro_field *avro_schema_field(const avro_schema *s, const char *name, uint32_t *idx);

/* Bytes, strings and fixed values. data[len] is always 0, so a string can be used as a C
 * string (it may also contain NUL bytes; len is authoritative). */
typedef struct avro_bytes {
    const uint8_t *data;
    size_t len;
} avro_bytes;

/*
 * A decoded (or to-be-encoded) value. The member used follows schema->type:
 *   BOOLEAN b; INT and ENUM (symbol index) i; LONG l; FLOAT f; DOUBLE d; BYTES, STRING and
 *   FIXED bytes; RECORD rec (schema->n_fields values in field order); ARRAY arr; MAP map (keys
 *   are strings); UNION u (branch index into schema->branches and the branch's value).
 * Values built by a caller for avro_writer_append may leave schema NULL: the writer follows its
 * own schema and reads the members that schema implies.
 */
typedef struct avro_value avro_value;
struct avro_value {
    const avro_schema *schema;
    union {
        bool b;
        int32_t i;
        int64_t l;
        float f;
        double d;
        avro_bytes bytes;
        struct {
            avro_value *fields;
        } rec;
        struct {
            avro_value *items;
            uint32_t n;
        } arr;
        struct {
            avro_bytes *keys;
            avro_value *values;
            uint32_t n;
        } map;
        struct {
            uint32_t branch;
            avro_value *value;
        } u;
    };
};

/* The value of record field name in v (a RECORD value with its schema set), or NULL when v is
 * not a record or has no such field. A union-typed field is returned as the union value; use
 * avro_value_unwrap to see through it. */
const avro_value *avro_value_field(const avro_value *v, const char *name);
/* For a UNION value, the branch's value; any other value is returned as is. NULL stays NULL. */
const avro_value *avro_value_unwrap(const avro_value *v);
/* True when v is NULL, a null value, or a union whose branch holds null. */
bool avro_value_is_null(const avro_value *v);

/*
 * Converts a value to the Avro JSON encoding (spec "JSON Encoding"): bytes and fixed as strings
 * whose code points 0..255 are the bytes, non-null union branches as {"<type name>": value},
 * enums as the symbol; NaN and infinities (not JSON) as the strings "NaN", "Infinity",
 * "-Infinity". v must carry its schema (as decoded values do). On success *out is a malloc'ed
 * compact JSON text (free with free()). Errors: INVALID_ARGUMENTS, OUT_OF_MEMORY.
 */
int avro_value_to_json(const avro_value *v, char **out, sqe_error *err);
/*
 * The reverse: builds a value of schema s in a from JSON text in the Avro JSON encoding (as
 * above; numbers for floats may also be the three strings). Errors: INVALID_ARGUMENTS "Invalid
 * Avro value: ..." when the JSON does not match s, OUT_OF_MEMORY; on error *out is NULL.
 */
int avro_value_from_json(arena *a, const avro_schema *s, const char *json, size_t len,
                         avro_value **out, sqe_error *err);

/* ---- Reading object container files (spec "Object Container Files") -------------------- */

typedef struct avro_reader avro_reader;

/*
 * Opens a container file held entirely in buf[0..len): checks the magic "Obj\x01", decodes the
 * metadata map, parses "avro.schema", checks "avro.codec" (absent or "null", "deflate",
 * "snappy") and reads the sync marker. buf must stay valid and unchanged until the reader is
 * closed. The reader, its schema, metadata and (by default) the decoded values live in a.
 * On success the caller calls avro_reader_close(*out) (also after errors from next).
 * Errors: INVALID_FILE "Invalid Avro file: ...", NOT_SUPPORTED "unsupported: Avro codec X",
 * OUT_OF_MEMORY; on error *out is NULL and nothing needs closing.
 */
int avro_reader_open(const uint8_t *buf, size_t len, arena *a, avro_reader **out,
                     sqe_error *err);
/* The writer's schema from "avro.schema". */
const avro_schema *avro_reader_schema(const avro_reader *r);
/* The value of metadata key (a NUL-terminated copy; *len gets its length when len is non-NULL),
 * or NULL when absent. */
const uint8_t *avro_reader_meta(const avro_reader *r, const char *key, size_t *len);
/* Number of metadata entries and the i-th one (file order); returns the key, NULL when out of
 * range. */
uint32_t avro_reader_meta_count(const avro_reader *r);
const char *avro_reader_meta_at(const avro_reader *r, uint32_t i, const uint8_t **value,
                                size_t *len);
/* The codec name as found ("null" when the key is absent). */
const char *avro_reader_codec(const avro_reader *r);
/* Allocate the values returned by later avro_reader_next calls in values instead of the
 * reader's arena (so a caller can reset it per record). NULL restores the default. */
void avro_reader_set_value_arena(avro_reader *r, arena *values);
/*
 * Decodes the next record: *out is a value of avro_reader_schema(r), or NULL at the end of the
 * file (return SQE_OK). Blocks are decompressed and checked (snappy CRC, exact block size, sync
 * marker) as they are reached. Errors: as for open; after an error the reader stays failed and
 * every later call returns INVALID_FILE, with *out NULL.
 */
int avro_reader_next(avro_reader *r, avro_value **out, sqe_error *err);
/* Frees the reader's heap buffers; the arena allocations stay until the arena goes. NULL is
 * ignored. */
void avro_reader_close(avro_reader *r);

/* ---- Writing object container files ----------------------------------------------------- */

typedef enum avro_codec {
    AVRO_CODEC_NULL = 0,
    AVRO_CODEC_DEFLATE = 1,    /* raw deflate, RFC 1951 */
    AVRO_CODEC_SNAPPY = 2,     /* snappy block + big-endian CRC-32 of the uncompressed data */
} avro_codec;

/* One metadata entry; value need not be NUL-terminated. */
typedef struct avro_kv {
    const char *key;
    const uint8_t *value;
    size_t value_len;
} avro_kv;

typedef struct avro_writer_opts {
    avro_codec codec;
    uint32_t block_records;    /* records per block; 0 = 1000 */
    size_t block_bytes;        /* also end a block once it holds this many bytes; 0 = 1 MiB */
    int deflate_level;         /* 1..9, or 0 for zlib's default (6) */
    const uint8_t *sync;       /* 16 bytes to use as the sync marker (for reproducible output);
                                * NULL = random */
} avro_writer_opts;

typedef struct avro_writer avro_writer;

/*
 * Starts a container file with the schema JSON text schema_json[0..schema_len) (stored verbatim
 * as "avro.schema"), the codec and the extra metadata entries meta[0..n_meta) (copied; keys
 * "avro.schema" and "avro.codec" and duplicates are rejected). opts may be NULL (null codec,
 * defaults). On success the caller owns *out and calls avro_writer_destroy.
 * Errors: INVALID_ARGUMENTS (bad schema, options or metadata), OUT_OF_MEMORY; *out NULL then.
 */
int avro_writer_open(const char *schema_json, size_t schema_len, const avro_kv *meta,
                     uint32_t n_meta, const avro_writer_opts *opts, avro_writer **out,
                     sqe_error *err);
/* The parsed writer schema, owned by the writer; use it to build values. */
const avro_schema *avro_writer_schema(const avro_writer *w);
/* An arena owned by the writer, freed by avro_writer_destroy, for building values. */
arena *avro_writer_arena(avro_writer *w);
/*
 * Encodes one record v (a value of the writer's schema; see avro_value) and appends it to the
 * current block, flushing the block when full. Errors: INVALID_ARGUMENTS "Invalid Avro value:
 * ..." (the record is then not written; the writer stays usable), OUT_OF_MEMORY (the writer is
 * failed and only avro_writer_destroy remains).
 */
int avro_writer_append(avro_writer *w, const avro_value *v, sqe_error *err);
/* Records appended so far. */
uint64_t avro_writer_count(const avro_writer *w);
/*
 * Flushes the last block and hands over the whole file: *bytes (malloc'ed; free with free(),
 * non-NULL) and *len. Afterwards only avro_writer_destroy is allowed. On error *bytes is NULL.
 */
int avro_writer_finish(avro_writer *w, uint8_t **bytes, size_t *len, sqe_error *err);
/* Frees the writer, its arena and any unfinished output. NULL is ignored. */
void avro_writer_destroy(avro_writer *w);

#endif
