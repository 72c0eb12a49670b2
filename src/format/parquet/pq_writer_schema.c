/*
 * pq_writer_schema.c: the Parquet writer's schema: SQE types to schema elements (physical,
 * converted and logical types, LogicalTypes.md) and to the writer's node tree and leaves, with
 * their definition and repetition levels.
 *
 * INTERFACE (pq_writer_int.h)
 *   pqw_add_element    one schema element
 *   pqw_build_field    a field and everything under it, pre-order
 * NOTES
 *   - Every top-level column and every nested field is OPTIONAL; arrays are 3-level LISTs
 *     (optional group (LIST) { repeated group list { optional element } }), maps are MAPs
 *     (optional group (MAP) { repeated group key_value { required key; optional value } }), rows
 *     are optional groups of optional fields. Each schema node knows the definition level at
 *     which its value is present and, for LIST/MAP, the repetition level of its entries; the
 *     leaves under a node are a contiguous range. options.fields (Iceberg) gives each node,
 *     nested ones included, a field id and may make it REQUIRED: a REQUIRED node adds no
 *     definition level, and a NULL written to it is an error.
 *   - Names and leaf paths live in w->meta; the arrays grow with realloc and are freed with the
 *     writer (pq_writer.c writer_free).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/parquet/pq_writer_int.h"

/* ---- schema --------------------------------------------------------------------------------- */

static int grow_array(void **p, uint32_t *cap, uint32_t need, size_t elem, sqe_error *err) {
    if (need <= *cap) return SQE_OK;
    uint32_t ncap = *cap ? *cap * 2 : 16;
    while (ncap < need) ncap *= 2;
    void *q = realloc(*p, (size_t)ncap * elem);
    if (!q) return err_nomem(err, "Parquet schema");
    memset((char *)q + (size_t)*cap * elem, 0, (size_t)(ncap - *cap) * elem);
    *p = q;
    *cap = ncap;
    return SQE_OK;
}

int pqw_add_element(pq_writer *w, const char *name, int repetition, uint32_t *idx, sqe_error *err) {
    SQE_TRY(grow_array((void **)&w->schema, &w->cap_schema, w->n_schema + 1,
                       sizeof(pq_schema_element), err));
    pq_schema_element *e = &w->schema[w->n_schema];
    memset(e, 0, sizeof(*e));
    e->name = arena_strdup(&w->meta, name ? name : "");
    if (!e->name) return err_nomem(err, "Parquet schema");
    e->has_repetition = true;
    e->repetition_type = repetition;
    *idx = w->n_schema++;
    return SQE_OK;
}

static int add_node(pq_writer *w, uint8_t kind, uint32_t *idx, sqe_error *err) {
    SQE_TRY(grow_array((void **)&w->nodes, &w->cap_nodes, w->n_nodes + 1, sizeof(wnode), err));
    wnode *n = &w->nodes[w->n_nodes];
    memset(n, 0, sizeof(*n));
    n->kind = kind;
    *idx = w->n_nodes++;
    return SQE_OK;
}

/* Minimal FIXED_LEN_BYTE_ARRAY width for a decimal of precision p (signed two's complement). */
static int32_t decimal_flba_width(int precision) {
    int128 max = 1;
    for (int i = 0; i < precision; i++) max *= 10;
    max -= 1; /* largest unscaled magnitude */
    for (int32_t n = 1; n < 16; n++) {
        int128 lim = ((int128)1 << (8 * n - 1)) - 1;
        if (max <= lim) return n;
    }
    return 16;
}

/* Physical and logical type of a leaf for SQE type t (LogicalTypes.md). */
static int leaf_type(sqe_type t, pq_schema_element *e, leaf *l, sqe_error *err) {
    e->has_type = true;
    pq_logical_type *lt = &e->logical;
    char buf[64];
    switch ((type_id)t.id) {
    case TYPE_BOOLEAN:
        e->type = PQ_TYPE_BOOLEAN, l->kind = LK_BOOL, l->width = 1;
        break;
    case TYPE_TINYINT:
    case TYPE_SMALLINT:
        e->type = PQ_TYPE_INT32, l->width = 4;
        l->kind = t.id == TYPE_TINYINT ? LK_I8 : LK_I16;
        e->has_converted_type = true;
        e->converted_type = t.id == TYPE_TINYINT ? PQ_CT_INT_8 : PQ_CT_INT_16;
        lt->kind = PQ_LT_INTEGER;
        lt->bit_width = t.id == TYPE_TINYINT ? 8 : 16;
        lt->is_signed = true;
        break;
    case TYPE_INTEGER:
        e->type = PQ_TYPE_INT32, l->kind = LK_I32, l->width = 4;
        break;
    case TYPE_BIGINT:
        e->type = PQ_TYPE_INT64, l->kind = LK_I64, l->width = 8;
        break;
    case TYPE_REAL:
        e->type = PQ_TYPE_FLOAT, l->kind = LK_F32, l->width = 4;
        break;
    case TYPE_DOUBLE:
        e->type = PQ_TYPE_DOUBLE, l->kind = LK_F64, l->width = 8;
        break;
    case TYPE_DECIMAL:
        if (t.precision <= 9) {
            e->type = PQ_TYPE_INT32, l->kind = LK_DEC_I32, l->width = 4;
        } else if (t.precision <= 18) {
            e->type = PQ_TYPE_INT64, l->kind = LK_I64, l->width = 8;
        } else {
            e->type = PQ_TYPE_FIXED_LEN_BYTE_ARRAY, l->kind = LK_DEC_FLBA;
            e->has_type_length = true;
            e->type_length = decimal_flba_width(t.precision);
            l->width = (uint32_t)e->type_length;
            l->flba_signed = true;
        }
        e->has_converted_type = e->has_scale = e->has_precision = true;
        e->converted_type = PQ_CT_DECIMAL;
        e->scale = t.scale;
        e->precision = t.precision;
        lt->kind = PQ_LT_DECIMAL;
        lt->scale = t.scale;
        lt->precision = t.precision;
        break;
    case TYPE_VARCHAR:
    case TYPE_CHAR:
        e->type = PQ_TYPE_BYTE_ARRAY, l->kind = LK_STR, l->utf8 = true;
        e->has_converted_type = true;
        e->converted_type = PQ_CT_UTF8;
        lt->kind = PQ_LT_STRING;
        break;
    case TYPE_JSON:
        e->type = PQ_TYPE_BYTE_ARRAY, l->kind = LK_STR, l->utf8 = true;
        e->has_converted_type = true;
        e->converted_type = PQ_CT_JSON;
        lt->kind = PQ_LT_JSON;
        break;
    case TYPE_VARBINARY:
        e->type = PQ_TYPE_BYTE_ARRAY, l->kind = LK_STR;
        break;
    case TYPE_DATE:
        e->type = PQ_TYPE_INT32, l->kind = LK_I32, l->width = 4;
        e->has_converted_type = true;
        e->converted_type = PQ_CT_DATE;
        lt->kind = PQ_LT_DATE;
        break;
    case TYPE_TIME:
    case TYPE_TIMESTAMP:
        /* local (not UTC-adjusted) times: no ConvertedType, which would imply UTC */
        e->type = PQ_TYPE_INT64, l->kind = LK_I64, l->width = 8;
        lt->kind = t.id == TYPE_TIME ? PQ_LT_TIME : PQ_LT_TIMESTAMP;
        lt->is_adjusted_to_utc = false;
        lt->unit = PQ_UNIT_MICROS;
        break;
    case TYPE_TIMESTAMP_TZ:
        e->type = PQ_TYPE_INT64, l->kind = LK_TSTZ, l->width = 8;
        e->has_converted_type = true;
        e->converted_type = PQ_CT_TIMESTAMP_MICROS;
        lt->kind = PQ_LT_TIMESTAMP;
        lt->is_adjusted_to_utc = true;
        lt->unit = PQ_UNIT_MICROS;
        break;
    case TYPE_UUID:
        e->type = PQ_TYPE_FIXED_LEN_BYTE_ARRAY, l->kind = LK_UUID, l->width = 16;
        e->has_type_length = true;
        e->type_length = 16;
        lt->kind = PQ_LT_UUID;
        break;
    case TYPE_UNKNOWN:
        e->type = PQ_TYPE_INT32, l->kind = LK_NULL, l->width = 4;
        lt->kind = PQ_LT_UNKNOWN;
        break;
    default:
        type_format(t, buf, sizeof buf);
        return err_set(err, SQE_ERR_NOT_SUPPORTED, "unsupported: writing type %s to Parquet", buf);
    }
    l->phys = e->type;
    return SQE_OK;
}

/* Adds the schema elements and writer nodes of a field of type t (pre-order), with the
 * definition/repetition levels of its parent. path holds the names from the top-level column
 * down to this field (depth entries, this field's included). */
int pqw_build_field(pq_writer *w, const char *name, sqe_type t, bool required, uint8_t parent_def,
                    uint8_t parent_rep, int32_t field_id, const char **path, uint32_t depth,
                    uint32_t *out, sqe_error *err) {
    if (depth > MAX_NESTING)
        return err_set(err, SQE_ERR_NOT_SUPPORTED, "unsupported: Parquet nesting deeper than %d",
                       MAX_NESTING);
    bool map_key = required; /* only map keys are required without field info */
    if (w->finfo) {
        /* pre-order: this node's entry; past the end is reported by pq_writer_open */
        if (w->finfo_next < w->n_finfo) {
            field_id = w->finfo[w->finfo_next].field_id;
            required = required || w->finfo[w->finfo_next].required;
        }
        w->finfo_next++;
    }
    uint8_t def = (uint8_t)(required ? parent_def : parent_def + 1);
    if (def > MAX_LEVEL - 3 || parent_rep > MAX_LEVEL - 3)
        return err_set(err, SQE_ERR_NOT_SUPPORTED, "unsupported: Parquet nesting too deep");
    uint32_t el, ni;
    SQE_TRY(pqw_add_element(w, name, required ? PQ_REP_REQUIRED : PQ_REP_OPTIONAL, &el, err));
    if (field_id >= 0) {
        w->schema[el].has_field_id = true;
        w->schema[el].field_id = field_id;
    }
    path[depth - 1] = w->schema[el].name;
    if (!type_is_nested(t)) {
        SQE_TRY(add_node(w, NODE_LEAF, &ni, err));
        SQE_TRY(grow_array((void **)&w->leaves, &w->cap_leaves, w->n_leaves + 1, sizeof(leaf), err));
        leaf *l = &w->leaves[w->n_leaves];
        memset(l, 0, sizeof(*l));
        SQE_TRY(leaf_type(t, &w->schema[el], l, err));
        l->schema_idx = el;
        l->max_def = def;
        l->max_rep = parent_rep;
        l->n_path = depth;
        l->path = ARENA_ARRAY(&w->meta, char *, depth);
        if (!l->path) return err_nomem(err, "Parquet schema");
        for (uint32_t i = 0; i < depth; i++) l->path[i] = (char *)path[i];
        pq_buf_init(&l->def, w->tracker);
        pq_buf_init(&l->rep, w->tracker);
        pq_buf_init(&l->vals, w->tracker);
        pq_buf_init(&l->lens, w->tracker);
        pq_buf_init(&l->chunk, w->tracker);
        pq_buf_init(&l->page_bounds, w->tracker);
        pq_buf_init(&l->column_index, w->tracker);
        pq_buf_init(&l->bloom, w->tracker);
        wnode *n = &w->nodes[ni];
        n->def = def;
        n->required = required;
        n->map_key = map_key;
        n->schema_idx = el;
        n->leaf = w->n_leaves;
        n->first_leaf = w->n_leaves;
        n->end_leaf = ++w->n_leaves;
        *out = ni;
        return SQE_OK;
    }
    const type_nested *tn = t.nested;
    uint32_t n_kids = t.id == TYPE_ROW ? (tn ? tn->n_children : 0) : t.id == TYPE_MAP ? 2 : 1;
    if (!tn || tn->n_children < (t.id == TYPE_MAP ? 2u : t.id == TYPE_ARRAY ? 1u : 0u))
        return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "malformed nested type");
    if (t.id == TYPE_ROW && n_kids == 0)
        return err_set(err, SQE_ERR_NOT_SUPPORTED,
                       "unsupported: writing a row type without fields to Parquet");
    uint8_t kind = t.id == TYPE_ROW ? NODE_ROW : t.id == TYPE_MAP ? NODE_MAP : NODE_LIST;
    SQE_TRY(add_node(w, kind, &ni, err));
    w->nodes[ni].def = def;
    w->nodes[ni].required = required;
    w->nodes[ni].map_key = map_key;
    w->nodes[ni].schema_idx = el;
    w->nodes[ni].first_leaf = w->n_leaves;
    uint32_t *kids = ARENA_ARRAY(&w->meta, uint32_t, n_kids);
    if (!kids) return err_nomem(err, "Parquet schema");
    w->schema[el].has_num_children = true;
    if (t.id == TYPE_ROW) {
        w->schema[el].num_children = (int32_t)n_kids;
        for (uint32_t i = 0; i < n_kids; i++) {
            char fallback[32];
            const char *fname = tn->names && tn->names[i] ? tn->names[i] : NULL;
            if (!fname) {
                snprintf(fallback, sizeof fallback, "field%u", i + 1);
                fname = fallback;
            }
            SQE_TRY(pqw_build_field(w, fname, tn->children[i], false, def, parent_rep, -1, path,
                                    depth + 1, &kids[i], err));
        }
    } else {
        /* LIST: optional group (LIST) { repeated group list { optional element } };
         * MAP: optional group (MAP) { repeated group key_value { required key; optional value } } */
        bool is_map = t.id == TYPE_MAP;
        w->schema[el].num_children = 1;
        w->schema[el].has_converted_type = true;
        w->schema[el].converted_type = is_map ? PQ_CT_MAP : PQ_CT_LIST;
        w->schema[el].logical.kind = is_map ? PQ_LT_MAP : PQ_LT_LIST;
        uint32_t rg;
        SQE_TRY(pqw_add_element(w, is_map ? "key_value" : "list", PQ_REP_REPEATED, &rg, err));
        w->schema[rg].has_num_children = true;
        w->schema[rg].num_children = is_map ? 2 : 1;
        path[depth] = w->schema[rg].name;
        uint8_t rep = (uint8_t)(parent_rep + 1);
        w->nodes[ni].rep = rep;
        if (is_map) {
            SQE_TRY(pqw_build_field(w, "key", tn->children[0], true, (uint8_t)(def + 1), rep, -1,
                                    path, depth + 2, &kids[0], err));
            SQE_TRY(pqw_build_field(w, "value", tn->children[1], false, (uint8_t)(def + 1), rep,
                                    -1, path, depth + 2, &kids[1], err));
        } else {
            SQE_TRY(pqw_build_field(w, "element", tn->children[0], false, (uint8_t)(def + 1), rep,
                                    -1, path, depth + 2, &kids[0], err));
        }
    }
    w->nodes[ni].children = kids;
    w->nodes[ni].n_children = n_kids;
    w->nodes[ni].end_leaf = w->n_leaves;
    *out = ni;
    return SQE_OK;
}
