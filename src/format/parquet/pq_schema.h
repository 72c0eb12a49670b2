/*
 * pq_schema.h: a Parquet file's schema as a tree of SQE values, with the level arithmetic the
 * column readers need.
 *
 * The footer's flattened SchemaElement list becomes a tree of pq_node. Each node is one SQE
 * value: a leaf (one column chunk per row group), a struct (ROW), a list (ARRAY) or a map (MAP).
 * Parquet's wrapper groups disappear: a 3-level LIST `optional group a (LIST) { repeated group
 * list { optional int32 element } }` is one PQ_NODE_LIST with one child (the element), and the
 * legacy 2-level forms, unannotated repeated fields and MAP/MAP_KEY_VALUE follow the backward
 * compatibility rules of LogicalTypes.md.
 *
 * Levels (Dremel): for a value at a node, with d and r the definition and repetition level of
 * an entry of a leaf below it,
 *   - the value exists (its parent is non-null)   when d >= parent_def,
 *   - the value is non-null                         when d >= def,
 *   - a LIST/MAP has at least this element          when d >= elem_def,
 *   - an entry with r == elem_rep starts a new element of the innermost LIST/MAP whose
 *     elem_rep is r; r == 0 starts a new top-level row.
 *
 * Physical-to-SQE conversion of a leaf is described by pq_conv (see pq_schema.c for the type
 * rules: unsigned integers widen, UINT64 becomes DECIMAL(20,0), INT96 and nanosecond values are
 * truncated to microseconds, UTC-adjusted timestamps become TIMESTAMP WITH TIME ZONE).
 */
#ifndef SQE_FORMAT_PARQUET_PQ_SCHEMA_H
#define SQE_FORMAT_PARQUET_PQ_SCHEMA_H

#include <stdbool.h>
#include <stdint.h>

#include "common/arena.h"
#include "common/err.h"
#include "format/parquet/pq_meta.h"
#include "types/types.h"

typedef enum pq_node_kind {
    PQ_NODE_LEAF = 0,
    PQ_NODE_STRUCT,
    PQ_NODE_LIST,
    PQ_NODE_MAP,
} pq_node_kind;

/* How a leaf's physical values become SQE values (one per conversion loop in the reader). */
typedef enum pq_conv {
    PQ_CONV_NULL = 0,      /* UNKNOWN logical type: always NULL (type INTEGER) */
    PQ_CONV_BOOL,          /* BOOLEAN -> BOOLEAN */
    PQ_CONV_I32,           /* INT32 -> INTEGER, DATE, DECIMAL(p<=9) as int64 (see below) */
    PQ_CONV_I32_TO_I8,     /* INT32 (INT_8) -> TINYINT */
    PQ_CONV_I32_TO_I16,    /* INT32 (INT_16) -> SMALLINT */
    PQ_CONV_U8_TO_I16,     /* INT32 (UINT_8) -> SMALLINT */
    PQ_CONV_U16_TO_I32,    /* INT32 (UINT_16) -> INTEGER */
    PQ_CONV_U32_TO_I64,    /* INT32 (UINT_32) -> BIGINT */
    PQ_CONV_I32_TO_I64,    /* INT32 (DECIMAL) -> DECIMAL stored in int64 */
    PQ_CONV_I32_MILLIS_TO_MICROS, /* INT32 TIME(MILLIS) -> TIME */
    PQ_CONV_I64,           /* INT64 -> BIGINT, DECIMAL(p<=18), TIME/TIMESTAMP micros */
    PQ_CONV_I64_TO_I128,   /* INT64 DECIMAL with precision > 18 (rare) */
    PQ_CONV_U64_TO_I64DEC, /* INT64 (UINT_64) -> DECIMAL(20,0) stored as int128 */
    PQ_CONV_I64_MILLIS_TO_MICROS,
    PQ_CONV_I64_NANOS_TO_MICROS, /* floor division */
    PQ_CONV_I64_TO_TSTZ,   /* INT64 micros UTC -> TIMESTAMP_TZ */
    PQ_CONV_I64_MILLIS_TO_TSTZ,
    PQ_CONV_I64_NANOS_TO_TSTZ,
    PQ_CONV_INT96,         /* INT96 -> TIMESTAMP (micros) */
    PQ_CONV_FLOAT,         /* FLOAT -> REAL */
    PQ_CONV_DOUBLE,        /* DOUBLE -> DOUBLE */
    PQ_CONV_FLOAT16,       /* FIXED_LEN_BYTE_ARRAY(2) FLOAT16 -> REAL */
    PQ_CONV_BYTES,         /* BYTE_ARRAY / FIXED_LEN_BYTE_ARRAY -> VARCHAR, VARBINARY, JSON */
    PQ_CONV_DEC_BYTES,     /* BYTE_ARRAY / FLBA big-endian two's complement -> DECIMAL */
    PQ_CONV_UUID,          /* FIXED_LEN_BYTE_ARRAY(16) UUID -> UUID */
} pq_conv;

typedef struct pq_node pq_node;

struct pq_node {
    pq_node_kind kind;
    const char *name;         /* the field name (the wrapper group's name for LIST/MAP) */
    sqe_type type;            /* the SQE type of this value */
    bool has_field_id;
    int32_t field_id;         /* the Parquet field_id of the outermost element of this value */
    bool nullable;            /* OPTIONAL (a NULL value is possible) */
    int16_t parent_def;       /* see the level rules above */
    int16_t def;
    int16_t elem_def;         /* LIST / MAP only */
    int16_t elem_rep;         /* LIST / MAP only */
    pq_node **children;       /* STRUCT: fields; LIST: [element]; MAP: [key, value] */
    uint32_t n_children;
    pq_node *parent;          /* NULL for top-level columns */
    /* LEAF only */
    uint32_t leaf;            /* index of this leaf's column chunk in every row group */
    const pq_schema_element *element; /* the Parquet leaf element */
    int32_t physical;         /* pq_physical_type */
    int32_t type_length;      /* FIXED_LEN_BYTE_ARRAY width */
    pq_conv conv;
    int16_t max_def;          /* the leaf's maximum definition level */
    int16_t max_rep;          /* the leaf's maximum repetition level */
    uint32_t first_leaf;      /* any node: index of the first leaf below it (itself for leaves) */
    const char *unsupported;  /* non-NULL: why SQE cannot read this value (reported only when
                                 the column is read); type is then INTEGER */
};

typedef struct pq_schema {
    pq_node **columns;        /* top-level columns (the root's fields) */
    uint32_t n_columns;
    pq_node **leaves;         /* every leaf in schema order; leaves[i]->leaf == i */
    uint32_t n_leaves;
} pq_schema;

/* Builds the tree for meta's schema in arena a. Checks the flattened list's structure (child
 * counts, leaves with a physical type, FIXED_LEN_BYTE_ARRAY widths, level depth at most 100) and
 * that every row group has one column chunk per leaf of the matching physical type. Types SQE
 * cannot represent (decimals over 38 digits, ...) do not fail here: their top-level column gets
 * `unsupported` set, and reading it fails with NOT_SUPPORTED ("unsupported: ...").
 * Errors: INVALID_FILE ("Invalid Parquet schema: ..."). On error *out is NULL; partial
 * allocations stay in a. */
int pq_schema_build(arena *a, const pq_file_meta *meta, pq_schema **out, sqe_error *err);

/* Writes the dotted path of node (e.g. "a.list.element") into buf (snprintf-style result). */
size_t pq_node_path(const pq_node *node, char *buf, size_t len);

#endif
