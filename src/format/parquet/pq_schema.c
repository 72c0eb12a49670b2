/*
 * pq_schema.c: builds the pq_node tree of a Parquet schema (see pq_schema.h).
 *
 * INTERFACE: pq_schema_build, pq_node_path.
 * NOTES
 *   Two passes. The first turns the depth-first flattened SchemaElement list into a raw tree
 *   (checking child counts). The second walks it with the running definition and repetition
 *   levels and applies LogicalTypes.md: LIST (3-level, and the 2-level/legacy layouts), MAP and
 *   MAP_KEY_VALUE, unannotated repeated fields (a list of required elements), structs, and the
 *   leaf type rules below.
 *
 *   Leaf types: logical type first, then the converted type, then the physical type. Unsigned
 *   integers widen to the next signed type (UINT64 -> DECIMAL(20,0)); INT96 and TIMESTAMP
 *   values become microseconds (nanoseconds floor); isAdjustedToUTC timestamps (and the legacy
 *   TIMESTAMP_MILLIS/MICROS converted types, which the spec defines as UTC-adjusted) become
 *   TIMESTAMP WITH TIME ZONE; strings, enums -> VARCHAR, JSON -> JSON, other binaries ->
 *   VARBINARY, UUID -> UUID, FLOAT16 -> REAL, UNKNOWN (null type) -> an always-NULL INTEGER;
 *   unknown logical types read as their physical type.
 */
#include "format/parquet/pq_schema.h"

#include <stdio.h>
#include <string.h>

#define PQ_MAX_DEPTH 100

typedef struct raw_node {
    const pq_schema_element *e;
    struct raw_node **children;
    uint32_t n_children;
} raw_node;

typedef struct builder {
    arena *a;
    const pq_file_meta *meta;
    uint32_t pos;          /* next schema element */
    pq_node **leaves;
    uint32_t n_leaves;
    sqe_error *err;
} builder;

static int schema_error(builder *b, const char *why) {
    return err_set(b->err, SQE_ERR_INVALID_FILE, "Invalid Parquet schema: %s", why);
}

/* ---- pass 1: flattened list -> raw tree ----------------------------------------------------- */

static int build_raw(builder *b, int depth, raw_node **out) {
    if (depth > PQ_MAX_DEPTH) return schema_error(b, "nesting deeper than 100 levels");
    if (b->pos >= b->meta->n_schema) return schema_error(b, "fewer elements than the child counts say");
    const pq_schema_element *e = &b->meta->schema[b->pos++];
    raw_node *r = ARENA_NEW(b->a, raw_node);
    if (!r) return err_nomem(b->err, "Parquet schema");
    r->e = e;
    if (e->has_num_children && e->num_children > 0 && !(depth > 0 && e->has_type)) {
        if ((uint32_t)e->num_children > b->meta->n_schema - b->pos)
            return schema_error(b, "a group claims more children than there are elements");
        r->n_children = (uint32_t)e->num_children;
        r->children = ARENA_ARRAY(b->a, raw_node *, r->n_children);
        if (!r->children) return err_nomem(b->err, "Parquet schema");
        for (uint32_t i = 0; i < r->n_children; i++)
            SQE_TRY(build_raw(b, depth + 1, &r->children[i]));
    } else if (depth > 0 && !e->has_type) {
        if (e->has_num_children) return schema_error(b, "an empty group");
        return schema_error(b, "a leaf without a physical type");
    }
    *out = r;
    return SQE_OK;
}

static bool is_group(const raw_node *r) { return r->children != NULL; }
static bool is_repeated(const raw_node *r) {
    return r->e->has_repetition && r->e->repetition_type == PQ_REP_REPEATED;
}
static bool is_optional(const raw_node *r) {
    /* A missing repetition is treated as OPTIONAL, as parquet-mr and Arrow do. */
    return !r->e->has_repetition || r->e->repetition_type == PQ_REP_OPTIONAL;
}
static bool is_list(const raw_node *r) {
    return r->e->logical.kind == PQ_LT_LIST ||
           (r->e->logical.kind == PQ_LT_NONE && r->e->has_converted_type &&
            r->e->converted_type == PQ_CT_LIST);
}
static bool is_map(const raw_node *r) {
    return r->e->logical.kind == PQ_LT_MAP ||
           (r->e->logical.kind == PQ_LT_NONE && r->e->has_converted_type &&
            (r->e->converted_type == PQ_CT_MAP || r->e->converted_type == PQ_CT_MAP_KEY_VALUE));
}

/* ---- leaf types --------------------------------------------------------------------------- */

typedef struct leaf_type {
    sqe_type type;
    pq_conv conv;
    const char *unsupported;
} leaf_type;

static leaf_type lt(sqe_type t, pq_conv c) { return (leaf_type){t, c, NULL}; }
static leaf_type lt_unsupported(const char *why) {
    return (leaf_type){type_make(TYPE_INTEGER), PQ_CONV_NULL, why};
}

static leaf_type decimal_type(const pq_schema_element *e, int32_t precision, int32_t scale) {
    if (precision < 1 || precision > 38)
        return lt_unsupported(precision > 38 ? "decimals with more than 38 digits"
                                             : "decimal with an invalid precision");
    if (scale < 0 || scale > precision) return lt_unsupported("decimal with scale outside 0..precision");
    sqe_type t = type_decimal(precision, scale);
    bool wide = precision > 18;
    switch (e->type) {
    case PQ_TYPE_INT32:
        if (wide) return lt_unsupported("INT32 decimal with more than 18 digits");
        return lt(t, PQ_CONV_I32_TO_I64);
    case PQ_TYPE_INT64: return lt(t, wide ? PQ_CONV_I64_TO_I128 : PQ_CONV_I64);
    case PQ_TYPE_BYTE_ARRAY: return lt(t, PQ_CONV_DEC_BYTES);
    case PQ_TYPE_FIXED_LEN_BYTE_ARRAY:
        if (e->type_length < 1 || e->type_length > 16)
            return lt_unsupported("FIXED_LEN_BYTE_ARRAY decimal wider than 16 bytes");
        return lt(t, PQ_CONV_DEC_BYTES);
    default: return lt_unsupported("decimal on a BOOLEAN, INT96 or floating-point column");
    }
}

static leaf_type integer_type(const pq_schema_element *e, int bits, bool is_signed) {
    if (e->type == PQ_TYPE_INT32 && bits <= 32) {
        if (is_signed) {
            if (bits == 8) return lt(type_make(TYPE_TINYINT), PQ_CONV_I32_TO_I8);
            if (bits == 16) return lt(type_make(TYPE_SMALLINT), PQ_CONV_I32_TO_I16);
            return lt(type_make(TYPE_INTEGER), PQ_CONV_I32);
        }
        if (bits == 8) return lt(type_make(TYPE_SMALLINT), PQ_CONV_U8_TO_I16);
        if (bits == 16) return lt(type_make(TYPE_INTEGER), PQ_CONV_U16_TO_I32);
        return lt(type_make(TYPE_BIGINT), PQ_CONV_U32_TO_I64);
    }
    if (e->type == PQ_TYPE_INT64) {
        if (is_signed) return lt(type_make(TYPE_BIGINT), PQ_CONV_I64);
        return lt(type_decimal(20, 0), PQ_CONV_U64_TO_I64DEC);
    }
    return lt_unsupported("integer annotation on a non-integer column");
}

static leaf_type timestamp_type(const pq_schema_element *e, pq_time_unit unit, bool utc) {
    if (e->type != PQ_TYPE_INT64) return lt_unsupported("TIMESTAMP annotation on a non-INT64 column");
    int prec = unit == PQ_UNIT_MILLIS ? 3 : 6;
    sqe_type t = type_with_precision(utc ? TYPE_TIMESTAMP_TZ : TYPE_TIMESTAMP, prec);
    switch (unit) {
    case PQ_UNIT_MILLIS: return lt(t, utc ? PQ_CONV_I64_MILLIS_TO_TSTZ : PQ_CONV_I64_MILLIS_TO_MICROS);
    case PQ_UNIT_MICROS: return lt(t, utc ? PQ_CONV_I64_TO_TSTZ : PQ_CONV_I64);
    case PQ_UNIT_NANOS: return lt(t, utc ? PQ_CONV_I64_NANOS_TO_TSTZ : PQ_CONV_I64_NANOS_TO_MICROS);
    default: return lt_unsupported("TIMESTAMP with an unknown unit");
    }
}

static leaf_type time_type(const pq_schema_element *e, pq_time_unit unit) {
    if (unit == PQ_UNIT_MILLIS && e->type == PQ_TYPE_INT32)
        return lt(type_with_precision(TYPE_TIME, 3), PQ_CONV_I32_MILLIS_TO_MICROS);
    if (unit == PQ_UNIT_MICROS && e->type == PQ_TYPE_INT64)
        return lt(type_with_precision(TYPE_TIME, 6), PQ_CONV_I64);
    if (unit == PQ_UNIT_NANOS && e->type == PQ_TYPE_INT64)
        return lt(type_with_precision(TYPE_TIME, 6), PQ_CONV_I64_NANOS_TO_MICROS);
    return lt_unsupported("TIME with a unit that does not match its physical type");
}

static leaf_type physical_type(const pq_schema_element *e) {
    switch (e->type) {
    case PQ_TYPE_BOOLEAN: return lt(type_make(TYPE_BOOLEAN), PQ_CONV_BOOL);
    case PQ_TYPE_INT32: return lt(type_make(TYPE_INTEGER), PQ_CONV_I32);
    case PQ_TYPE_INT64: return lt(type_make(TYPE_BIGINT), PQ_CONV_I64);
    case PQ_TYPE_INT96: return lt(type_with_precision(TYPE_TIMESTAMP, 6), PQ_CONV_INT96);
    case PQ_TYPE_FLOAT: return lt(type_make(TYPE_REAL), PQ_CONV_FLOAT);
    case PQ_TYPE_DOUBLE: return lt(type_make(TYPE_DOUBLE), PQ_CONV_DOUBLE);
    case PQ_TYPE_BYTE_ARRAY:
    case PQ_TYPE_FIXED_LEN_BYTE_ARRAY: return lt(type_make(TYPE_VARBINARY), PQ_CONV_BYTES);
    default: return lt_unsupported("an unknown physical type");
    }
}

static leaf_type string_type(const pq_schema_element *e, type_id id) {
    if (e->type != PQ_TYPE_BYTE_ARRAY && e->type != PQ_TYPE_FIXED_LEN_BYTE_ARRAY)
        return physical_type(e);
    return lt(id == TYPE_VARCHAR ? type_varchar(0) : type_make(id), PQ_CONV_BYTES);
}

static leaf_type leaf_type_of(const pq_schema_element *e) {
    const pq_logical_type *l = &e->logical;
    if (e->type == PQ_TYPE_BOOLEAN) return physical_type(e);
    switch (l->kind) {
    case PQ_LT_STRING:
    case PQ_LT_ENUM: return string_type(e, TYPE_VARCHAR);
    case PQ_LT_JSON: return string_type(e, TYPE_JSON);
    case PQ_LT_BSON: return string_type(e, TYPE_VARBINARY);
    case PQ_LT_DECIMAL: return decimal_type(e, l->precision, l->scale);
    case PQ_LT_DATE:
        if (e->type != PQ_TYPE_INT32) return lt_unsupported("DATE annotation on a non-INT32 column");
        return lt(type_make(TYPE_DATE), PQ_CONV_I32);
    case PQ_LT_TIME: return time_type(e, l->unit);
    case PQ_LT_TIMESTAMP: return timestamp_type(e, l->unit, l->is_adjusted_to_utc);
    case PQ_LT_INTEGER:
        if (l->bit_width != 8 && l->bit_width != 16 && l->bit_width != 32 && l->bit_width != 64)
            return lt_unsupported("integer annotation with a bit width other than 8, 16, 32, 64");
        return integer_type(e, l->bit_width, l->is_signed);
    case PQ_LT_UNKNOWN: return lt(type_make(TYPE_INTEGER), PQ_CONV_NULL);
    case PQ_LT_UUID:
        if (e->type != PQ_TYPE_FIXED_LEN_BYTE_ARRAY || e->type_length != 16)
            return lt_unsupported("UUID annotation on a column other than FIXED_LEN_BYTE_ARRAY(16)");
        return lt(type_make(TYPE_UUID), PQ_CONV_UUID);
    case PQ_LT_FLOAT16:
        if (e->type != PQ_TYPE_FIXED_LEN_BYTE_ARRAY || e->type_length != 2)
            return lt_unsupported("FLOAT16 annotation on a column other than FIXED_LEN_BYTE_ARRAY(2)");
        return lt(type_make(TYPE_REAL), PQ_CONV_FLOAT16);
    case PQ_LT_LIST:
    case PQ_LT_MAP: return lt_unsupported("LIST or MAP annotation on a primitive column");
    case PQ_LT_OTHER: return physical_type(e);
    case PQ_LT_NONE: break;
    }
    if (!e->has_converted_type) return physical_type(e);
    switch (e->converted_type) {
    case PQ_CT_UTF8:
    case PQ_CT_ENUM: return string_type(e, TYPE_VARCHAR);
    case PQ_CT_JSON: return string_type(e, TYPE_JSON);
    case PQ_CT_BSON: return string_type(e, TYPE_VARBINARY);
    case PQ_CT_DECIMAL: return decimal_type(e, e->precision, e->scale);
    case PQ_CT_DATE:
        if (e->type != PQ_TYPE_INT32) return lt_unsupported("DATE annotation on a non-INT32 column");
        return lt(type_make(TYPE_DATE), PQ_CONV_I32);
    case PQ_CT_TIME_MILLIS: return time_type(e, PQ_UNIT_MILLIS);
    case PQ_CT_TIME_MICROS: return time_type(e, PQ_UNIT_MICROS);
    case PQ_CT_TIMESTAMP_MILLIS: return timestamp_type(e, PQ_UNIT_MILLIS, true);
    case PQ_CT_TIMESTAMP_MICROS: return timestamp_type(e, PQ_UNIT_MICROS, true);
    case PQ_CT_UINT_8: return integer_type(e, 8, false);
    case PQ_CT_UINT_16: return integer_type(e, 16, false);
    case PQ_CT_UINT_32: return integer_type(e, 32, false);
    case PQ_CT_UINT_64: return integer_type(e, 64, false);
    case PQ_CT_INT_8: return integer_type(e, 8, true);
    case PQ_CT_INT_16: return integer_type(e, 16, true);
    case PQ_CT_INT_32: return integer_type(e, 32, true);
    case PQ_CT_INT_64: return integer_type(e, 64, true);
    default: return physical_type(e); /* INTERVAL and anything unknown: the raw bytes */
    }
}

/* ---- pass 2: raw tree -> pq_node tree ----------------------------------------------------- */

static int convert_field(builder *b, const raw_node *r, pq_node *parent, int16_t def_in,
                         int16_t rep_in, pq_node **out);

static pq_node *node_new(builder *b, pq_node_kind kind, const raw_node *r, pq_node *parent) {
    pq_node *n = ARENA_NEW(b->a, pq_node);
    if (!n) return NULL;
    n->kind = kind;
    n->name = r->e->name ? r->e->name : "";
    n->has_field_id = r->e->has_field_id;
    n->field_id = r->e->field_id;
    n->parent = parent;
    n->first_leaf = b->n_leaves;
    return n;
}

/* The first unsupported reason below n (to report it at the top-level column). */
static const char *first_unsupported(const pq_node *n) {
    if (n->unsupported) return n->unsupported;
    for (uint32_t i = 0; i < n->n_children; i++) {
        const char *u = first_unsupported(n->children[i]);
        if (u) return u;
    }
    return NULL;
}

/* A value at r with the given levels of its parent, not treating r's own repetition (the
 * caller handled it): as a group (struct/list/map) or a leaf. def_self is the level at which
 * this value is non-null. */
static int convert_value(builder *b, const raw_node *r, pq_node *parent, int16_t parent_def,
                         int16_t def_self, int16_t rep, pq_node **out) {
    if (def_self > PQ_MAX_DEPTH || rep > PQ_MAX_DEPTH)
        return schema_error(b, "nesting deeper than 100 levels");
    if (!is_group(r)) {
        pq_node *n = node_new(b, PQ_NODE_LEAF, r, parent);
        if (!n) return err_nomem(b->err, "Parquet schema");
        const pq_schema_element *e = r->e;
        if (e->type < PQ_TYPE_BOOLEAN || e->type > PQ_TYPE_FIXED_LEN_BYTE_ARRAY)
            return schema_error(b, "a leaf with an unknown physical type");
        if (e->type == PQ_TYPE_FIXED_LEN_BYTE_ARRAY && (!e->has_type_length || e->type_length < 0))
            return schema_error(b, "FIXED_LEN_BYTE_ARRAY without a valid type_length");
        leaf_type t = leaf_type_of(e);
        n->type = t.type;
        n->conv = t.conv;
        n->unsupported = t.unsupported;
        n->leaf = b->n_leaves;
        n->element = e;
        n->physical = e->type;
        n->type_length = e->type_length;
        n->parent_def = parent_def;
        n->def = def_self;
        n->max_def = def_self;
        n->max_rep = rep;
        n->nullable = def_self > parent_def;
        if (b->n_leaves >= b->meta->n_schema) return schema_error(b, "too many leaves");
        b->leaves[b->n_leaves++] = n;
        *out = n;
        return SQE_OK;
    }
    if (is_map(r)) {
        const raw_node *kv = r->children[0];
        if (r->n_children != 1 || !is_repeated(kv) || !is_group(kv) || kv->n_children < 1 ||
            kv->n_children > 2)
            return schema_error(b, "a MAP group must hold one repeated group of key and value");
        /* A MAP without values reads as the list of its keys (as Arrow does). */
        bool keys_only = kv->n_children == 1;
        pq_node *n = node_new(b, keys_only ? PQ_NODE_LIST : PQ_NODE_MAP, r, parent);
        if (!n) return err_nomem(b->err, "Parquet schema");
        n->parent_def = parent_def;
        n->def = def_self;
        n->nullable = def_self > parent_def;
        n->elem_def = (int16_t)(def_self + 1);
        n->elem_rep = (int16_t)(rep + 1);
        n->n_children = kv->n_children;
        n->children = ARENA_ARRAY(b->a, pq_node *, 2);
        if (!n->children) return err_nomem(b->err, "Parquet schema");
        for (uint32_t i = 0; i < kv->n_children; i++)
            SQE_TRY(convert_field(b, kv->children[i], n, n->elem_def, n->elem_rep, &n->children[i]));
        n->type = keys_only ? type_array(n->children[0]->type)
                            : type_map(n->children[0]->type, n->children[1]->type);
        n->unsupported = first_unsupported(n);
        *out = n;
        return SQE_OK;
    }
    if (is_list(r)) {
        const raw_node *rep_child = r->children[0];
        if (r->n_children != 1 || !is_repeated(rep_child))
            return schema_error(b, "a LIST group must hold exactly one repeated field");
        pq_node *n = node_new(b, PQ_NODE_LIST, r, parent);
        if (!n) return err_nomem(b->err, "Parquet schema");
        n->parent_def = parent_def;
        n->def = def_self;
        n->nullable = def_self > parent_def;
        n->elem_def = (int16_t)(def_self + 1);
        n->elem_rep = (int16_t)(rep + 1);
        n->n_children = 1;
        n->children = ARENA_ARRAY(b->a, pq_node *, 1);
        if (!n->children) return err_nomem(b->err, "Parquet schema");
        /* LogicalTypes.md backward-compatibility rules for the element. */
        bool two_level = !is_group(rep_child) || rep_child->n_children > 1;
        if (!two_level && rep_child->n_children == 1) {
            char tuple[512];
            snprintf(tuple, sizeof tuple, "%s_tuple", r->e->name ? r->e->name : "");
            const char *cn = rep_child->e->name ? rep_child->e->name : "";
            if (strcmp(cn, "array") == 0 || strcmp(cn, tuple) == 0) two_level = true;
        }
        if (two_level)
            SQE_TRY(convert_value(b, rep_child, n, n->elem_def, n->elem_def, n->elem_rep,
                                  &n->children[0]));
        else
            SQE_TRY(convert_field(b, rep_child->children[0], n, n->elem_def, n->elem_rep,
                                  &n->children[0]));
        n->type = type_array(n->children[0]->type);
        n->unsupported = first_unsupported(n);
        *out = n;
        return SQE_OK;
    }
    pq_node *n = node_new(b, PQ_NODE_STRUCT, r, parent);
    if (!n) return err_nomem(b->err, "Parquet schema");
    n->parent_def = parent_def;
    n->def = def_self;
    n->nullable = def_self > parent_def;
    n->n_children = r->n_children;
    n->children = ARENA_ARRAY(b->a, pq_node *, r->n_children);
    sqe_type *ft = ARENA_ARRAY(b->a, sqe_type, r->n_children);
    const char **fn = ARENA_ARRAY(b->a, const char *, r->n_children);
    if (!n->children || !ft || !fn) return err_nomem(b->err, "Parquet schema");
    for (uint32_t i = 0; i < r->n_children; i++) {
        SQE_TRY(convert_field(b, r->children[i], n, def_self, rep, &n->children[i]));
        ft[i] = n->children[i]->type;
        fn[i] = n->children[i]->name;
    }
    n->type = type_row(r->n_children, ft, fn);
    n->unsupported = first_unsupported(n);
    *out = n;
    return SQE_OK;
}

/* A field with its own repetition: a repeated field outside a LIST/MAP wrapper is a list of
 * required values. */
static int convert_field(builder *b, const raw_node *r, pq_node *parent, int16_t def_in,
                         int16_t rep_in, pq_node **out) {
    if (is_repeated(r)) {
        pq_node *n = node_new(b, PQ_NODE_LIST, r, parent);
        if (!n) return err_nomem(b->err, "Parquet schema");
        n->parent_def = def_in;
        n->def = def_in;
        n->elem_def = (int16_t)(def_in + 1);
        n->elem_rep = (int16_t)(rep_in + 1);
        n->n_children = 1;
        n->children = ARENA_ARRAY(b->a, pq_node *, 1);
        if (!n->children) return err_nomem(b->err, "Parquet schema");
        SQE_TRY(convert_value(b, r, n, n->elem_def, n->elem_def, n->elem_rep, &n->children[0]));
        n->type = type_array(n->children[0]->type);
        n->unsupported = first_unsupported(n);
        *out = n;
        return SQE_OK;
    }
    int16_t def_self = (int16_t)(def_in + (is_optional(r) ? 1 : 0));
    return convert_value(b, r, parent, def_in, def_self, rep_in, out);
}

int pq_schema_build(arena *a, const pq_file_meta *meta, pq_schema **out, sqe_error *err) {
    *out = NULL;
    builder b = {.a = a, .meta = meta, .err = err};
    if (!meta->n_schema) return schema_error(&b, "no root element");
    raw_node *root;
    SQE_TRY(build_raw(&b, 0, &root));
    if (b.pos != meta->n_schema) return schema_error(&b, "elements left after the root's children");
    b.leaves = ARENA_ARRAY(a, pq_node *, meta->n_schema);
    pq_schema *s = ARENA_NEW(a, pq_schema);
    if (!b.leaves || !s) return err_nomem(err, "Parquet schema");
    s->n_columns = root->n_children;
    s->columns = ARENA_ARRAY(a, pq_node *, root->n_children + 1);
    if (!s->columns) return err_nomem(err, "Parquet schema");
    for (uint32_t i = 0; i < root->n_children; i++)
        SQE_TRY(convert_field(&b, root->children[i], NULL, 0, 0, &s->columns[i]));
    s->leaves = b.leaves;
    s->n_leaves = b.n_leaves;
    for (uint32_t g = 0; g < meta->n_row_groups; g++) {
        const pq_row_group *rg = &meta->row_groups[g];
        if (rg->n_columns != s->n_leaves)
            return err_set(err, SQE_ERR_INVALID_FILE,
                           "Invalid Parquet metadata: row group %u has %u column chunks for %u leaf "
                           "columns", g, rg->n_columns, s->n_leaves);
        if (rg->num_rows < 0)
            return err_set(err, SQE_ERR_INVALID_FILE,
                           "Invalid Parquet metadata: row group %u has a negative row count", g);
        for (uint32_t c = 0; c < rg->n_columns; c++) {
            const pq_column_chunk *cc = &rg->columns[c];
            if (cc->has_meta_data && cc->meta_data.type != s->leaves[c]->physical)
                return err_set(err, SQE_ERR_INVALID_FILE,
                               "Invalid Parquet metadata: column chunk %u of row group %u has "
                               "another physical type than its schema", c, g);
        }
    }
    *out = s;
    return SQE_OK;
}

size_t pq_node_path(const pq_node *node, char *buf, size_t len) {
    const pq_node *chain[PQ_MAX_DEPTH + 2];
    int n = 0;
    for (const pq_node *p = node; p && n < PQ_MAX_DEPTH + 2; p = p->parent) chain[n++] = p;
    size_t used = 0;
    if (len) buf[0] = 0;
    for (int i = n - 1; i >= 0; i--) {
        int w = snprintf(used < len ? buf + used : NULL, used < len ? len - used : 0, "%s%s",
                         i == n - 1 ? "" : ".", chain[i]->name);
        if (w > 0) used += (size_t)w;
    }
    return used;
}
