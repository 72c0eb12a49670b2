/*
 * scalar_map.c: the map family: map(), map(keys, values), map_from_entries, map_entries,
 * map_keys, map_values, element_at and the subscript operator on maps, cardinality,
 * map_concat, and the lambda functions transform_keys, transform_values and map_filter.
 *
 * INTERFACE: func_scalar_family_map.
 *
 * NOTES: a map vector has keys in children[0] and values in children[1], with {offset, length}
 * entries. Building a map checks what Trino checks: keys are never NULL and never repeated
 * ("Duplicate map keys (...) are not allowed"), detected with a hash set over the output's key
 * positions. Lookups scan the entry's keys (maps are small); a missing key is NULL for
 * element_at and an error for the subscript operator. map_concat keeps the last value of a
 * repeated key, in the position of its first occurrence.
 */
#include <stdlib.h>
#include <string.h>

#include "func/scalar_kernel.h"

#define KERNEL(name)                                                                               \
    static int name(func_ctx *ctx, const vec *const *args, uint32_t n_args, const uint32_t *sel,   \
                    uint32_t count, vec *out)

static const vec *keys_of(const vec_view *u) { return &u->flat->children[0]; }
static const vec *values_of(const vec_view *u) { return &u->flat->children[1]; }

static int key_error(func_ctx *ctx, vec *out, uint32_t row, const char *fmt, const vec *kv,
                     uint32_t k) {
    char text[128];
    func_value_text(kv, k, text, sizeof text);
    return func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT, fmt, text);
}

/* Appends entry (key kv[k], value vv[v]) to the map being built; checks NULL and duplicate
 * keys (duplicates are an error unless `replace`, which overwrites the earlier value).
 * *bad is set when the row got an error (already reported). */
static int put_entry(func_ctx *ctx, vec *out, uint32_t row, func_value_set *keys, const vec *kv,
                     uint32_t k, const vec *vv, uint32_t v, bool replace, const char *dup_fmt,
                     bool *bad) {
    *bad = false;
    if (vec_is_null(kv, k)) {
        *bad = true;
        return func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                              "map key cannot be null");
    }
    int64_t prev = func_value_set_find(keys, kv, k);
    if (prev >= 0) {
        if (replace) {
            return func_copy_value(ctx, &out->children[1], (uint32_t)prev, vv, v);
        }
        *bad = true;
        return key_error(ctx, out, row, dup_fmt, kv, k);
    }
    uint32_t at;
    SQE_TRY(func_list_reserve(ctx, out, 1, &at));
    SQE_TRY(func_copy_value(ctx, &out->children[0], at, kv, k));
    SQE_TRY(func_copy_value(ctx, &out->children[1], at, vv, v));
    out->child_len = at + 1;
    if (func_value_set_add(keys, at, NULL) != SQE_OK) return func_nomem(ctx);
    return SQE_OK;
}

/* --- Construction ------------------------------------------------------------------------------ */

KERNEL(map_empty_fn) {
    FUNC_FOR_ROWS(sel, count, row)
    VEC_DATA(out, sqe_list_entry)[row] = (sqe_list_entry){out->child_len, 0};
    return SQE_OK;
}

KERNEL(map_from_arrays_fn) {
    vec_view uk, uv;
    vec_view_init(&uk, args[0]);
    vec_view_init(&uv, args[1]);
    const vec *ke = ulist_elems(&uk), *ve = ulist_elems(&uv);
    func_value_set keys;
    func_value_set_init(&keys, &out->children[0]);
    int rc = SQE_OK;
    FUNC_FOR_ROWS(sel, count, row) {
        sqe_list_entry a = ulist(&uk, row), b = ulist(&uv, row);
        if (a.length != b.length) {
            if ((rc = func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                                     "Key and value arrays must be the same length")))
                break;
            continue;
        }
        func_value_set_clear(&keys, &out->children[0]);
        uint32_t first = out->child_len;
        bool bad = false;
        for (uint32_t i = 0; i < a.length && !bad && rc == SQE_OK; i++)
            rc = put_entry(ctx, out, row, &keys, ke, a.offset + i, ve, b.offset + i, false,
                           "Duplicate map keys (%s) are not allowed", &bad);
        if (rc) break;
        if (!bad)
            VEC_DATA(out, sqe_list_entry)[row] = (sqe_list_entry){first, out->child_len - first};
    }
    func_value_set_destroy(&keys);
    return rc;
}

KERNEL(map_from_entries_fn) {
    vec_view ua;
    vec_view_init(&ua, args[0]);
    const vec *rows = ulist_elems(&ua);
    func_value_set keys;
    func_value_set_init(&keys, &out->children[0]);
    int rc = SQE_OK;
    FUNC_FOR_ROWS(sel, count, row) {
        sqe_list_entry e = ulist(&ua, row);
        func_value_set_clear(&keys, &out->children[0]);
        uint32_t first = out->child_len;
        bool bad = false;
        for (uint32_t i = 0; i < e.length && !bad && rc == SQE_OK; i++) {
            uint32_t phys;
            const vec *f = vec_resolve(rows, e.offset + i, &phys);
            if (!vec_is_valid_flat(f, phys)) {
                bad = true;
                rc = func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                                    "map entry cannot be null");
                break;
            }
            rc = put_entry(ctx, out, row, &keys, &f->children[0], phys, &f->children[1], phys,
                           false, "Duplicate map keys (%s) are not allowed", &bad);
        }
        if (rc) break;
        if (!bad)
            VEC_DATA(out, sqe_list_entry)[row] = (sqe_list_entry){first, out->child_len - first};
    }
    func_value_set_destroy(&keys);
    return rc;
}

KERNEL(map_concat_fn) {
    func_value_set keys;
    func_value_set_init(&keys, &out->children[0]);
    int rc = SQE_OK;
    FUNC_FOR_ROWS(sel, count, row) {
        func_value_set_clear(&keys, &out->children[0]);
        uint32_t first = out->child_len;
        bool bad = false;
        for (uint32_t a = 0; a < n_args && rc == SQE_OK; a++) {
            uint32_t phys;
            const vec *f = vec_resolve(args[a], row, &phys);
            sqe_list_entry e = VEC_DATA(f, sqe_list_entry)[phys];
            for (uint32_t i = 0; i < e.length && rc == SQE_OK; i++)
                rc = put_entry(ctx, out, row, &keys, &f->children[0], e.offset + i,
                               &f->children[1], e.offset + i, true, "%s", &bad);
        }
        if (rc) break;
        VEC_DATA(out, sqe_list_entry)[row] = (sqe_list_entry){first, out->child_len - first};
    }
    func_value_set_destroy(&keys);
    return rc;
}

/* --- Access ----------------------------------------------------------------------------------- */

KERNEL(map_cardinality_fn) {
    vec_view u;
    vec_view_init(&u, args[0]);
    FUNC_FOR_ROWS(sel, count, row) VEC_DATA(out, int64_t)[row] = ulist(&u, row).length;
    return SQE_OK;
}

static int copy_part(func_ctx *ctx, const vec *const *args, const uint32_t *sel, uint32_t count,
                     vec *out, int part) {
    vec_view u;
    vec_view_init(&u, args[0]);
    const vec *src = part == 0 ? keys_of(&u) : values_of(&u);
    FUNC_FOR_ROWS(sel, count, row) {
        sqe_list_entry e = ulist(&u, row);
        uint32_t start;
        SQE_TRY(func_list_reserve(ctx, out, e.length, &start));
        for (uint32_t i = 0; i < e.length; i++)
            SQE_TRY(func_copy_value(ctx, &out->children[0], start + i, src, e.offset + i));
        out->child_len = start + e.length;
        VEC_DATA(out, sqe_list_entry)[row] = (sqe_list_entry){start, e.length};
    }
    return SQE_OK;
}
KERNEL(map_keys_fn) { return copy_part(ctx, args, sel, count, out, 0); }
KERNEL(map_values_fn) { return copy_part(ctx, args, sel, count, out, 1); }

KERNEL(map_entries_fn) {
    vec_view u;
    vec_view_init(&u, args[0]);
    FUNC_FOR_ROWS(sel, count, row) {
        sqe_list_entry e = ulist(&u, row);
        uint32_t start;
        SQE_TRY(func_list_reserve(ctx, out, e.length, &start));
        vec *rows = &out->children[0];
        for (uint32_t i = 0; i < e.length; i++) {
            vec_set_valid(rows, start + i);
            SQE_TRY(func_copy_value(ctx, &rows->children[0], start + i, keys_of(&u), e.offset + i));
            SQE_TRY(func_copy_value(ctx, &rows->children[1], start + i, values_of(&u),
                                    e.offset + i));
        }
        out->child_len = start + e.length;
        VEC_DATA(out, sqe_list_entry)[row] = (sqe_list_entry){start, e.length};
    }
    return SQE_OK;
}

/* Position of key (args[1] row) in the map's entry, or -1. */
static int64_t find_key(const vec_view *u, uint32_t row, const vec *key) {
    sqe_list_entry e = ulist(u, row);
    const vec *keys = keys_of(u);
    for (uint32_t i = 0; i < e.length; i++)
        if (func_value_same(keys, e.offset + i, key, row)) return e.offset + i;
    return -1;
}

KERNEL(map_element_at_fn) {
    vec_view u;
    vec_view_init(&u, args[0]);
    FUNC_FOR_ROWS(sel, count, row) {
        int64_t at = find_key(&u, row, args[1]);
        if (at < 0) SQE_TRY(func_out_null(ctx, out, row));
        else SQE_TRY(func_copy_value(ctx, out, row, values_of(&u), (uint32_t)at));
    }
    return SQE_OK;
}

KERNEL(map_subscript_fn) {
    vec_view u;
    vec_view_init(&u, args[0]);
    FUNC_FOR_ROWS(sel, count, row) {
        int64_t at = find_key(&u, row, args[1]);
        if (at < 0) {
            SQE_TRY(key_error(ctx, out, row, "Key not present in map: %s", args[1], row));
            continue;
        }
        SQE_TRY(func_copy_value(ctx, out, row, values_of(&u), (uint32_t)at));
    }
    return SQE_OK;
}

/* --- Lambdas ---------------------------------------------------------------------------------- */

/* Keys and values of the selected rows gathered into flat vectors, and the lambda applied. */
typedef struct map_gather {
    vec keys, values, res;
    uint32_t *rows;
    uint32_t total;
    int inited;
} map_gather;

static void map_gather_destroy(map_gather *g) {
    if (g->inited > 0) vec_destroy(&g->keys);
    if (g->inited > 1) vec_destroy(&g->values);
    if (g->inited > 2) vec_destroy(&g->res);
    free(g->rows);
}

static int map_apply(func_ctx *ctx, const vec_view *u, const uint32_t *sel, uint32_t count,
                     sqe_type res_type, map_gather *g) {
    memset(g, 0, sizeof *g);
    uint64_t total = 0;
    FUNC_FOR_ROWS(sel, count, row) total += ulist(u, row).length;
    if (total > FUNC_MAX_ELEMENTS)
        return err_set(ctx->err, SQE_ERR_EXCEEDED_MEMORY_LIMIT, "too many map entries");
    g->total = (uint32_t)total;
    g->rows = malloc(sizeof(uint32_t) * (total ? total : 1));
    if (!g->rows) return func_nomem(ctx);
    SQE_TRY(func_temp_vec(ctx, &g->keys, keys_of(u)->type, g->total));
    g->inited++;
    SQE_TRY(func_temp_vec(ctx, &g->values, values_of(u)->type, g->total));
    g->inited++;
    SQE_TRY(func_temp_vec(ctx, &g->res, res_type, g->total));
    g->inited++;
    uint32_t k = 0;
    FUNC_FOR_ROWS(sel, count, row) {
        sqe_list_entry e = ulist(u, row);
        for (uint32_t i = 0; i < e.length; i++, k++) {
            g->rows[k] = row;
            SQE_TRY(func_copy_value(ctx, &g->keys, k, keys_of(u), e.offset + i));
            SQE_TRY(func_copy_value(ctx, &g->values, k, values_of(u), e.offset + i));
        }
    }
    if (!ctx->lambda_eval)
        return err_set(ctx->err, SQE_ERR_GENERIC_INTERNAL_ERROR,
                       "lambda evaluation is not available for this call");
    if (g->total == 0) return SQE_OK;
    vec *params[2] = {&g->keys, &g->values};
    return ctx->lambda_eval(ctx->lambda_state, 1, params, 2, g->rows, g->total, &g->res);
}

enum map_lambda { ML_KEYS, ML_VALUES, ML_FILTER };

static int map_lambda(func_ctx *ctx, const vec *const *args, const uint32_t *sel, uint32_t count,
                      vec *out, int kind) {
    vec_view u;
    vec_view_init(&u, args[0]);
    sqe_type res_type = kind == ML_KEYS     ? out->type.nested->children[0]
                        : kind == ML_VALUES ? out->type.nested->children[1]
                                            : type_make(TYPE_BOOLEAN);
    map_gather g;
    int rc = map_apply(ctx, &u, sel, count, res_type, &g);
    func_value_set keys;
    func_value_set_init(&keys, &out->children[0]);
    uint32_t k = 0;
    if (rc == SQE_OK) {
        FUNC_FOR_ROWS(sel, count, row) {
            uint32_t len = ulist(&u, row).length, first = out->child_len;
            func_value_set_clear(&keys, &out->children[0]);
            bool bad = false;
            for (uint32_t i = 0; i < len && rc == SQE_OK; i++, k++) {
                if (bad) continue;
                if (kind == ML_KEYS) {
                    rc = put_entry(ctx, out, row, &keys, &g.res, k, &g.values, k, false,
                                   "Duplicate keys (%s) are not allowed", &bad);
                    continue;
                }
                if (kind == ML_FILTER &&
                    !(vec_is_valid_flat(&g.res, k) && VEC_DATA(&g.res, uint8_t)[k]))
                    continue;
                uint32_t at;
                rc = func_list_reserve(ctx, out, 1, &at);
                if (rc == SQE_OK) rc = func_copy_value(ctx, &out->children[0], at, &g.keys, k);
                if (rc == SQE_OK)
                    rc = func_copy_value(ctx, &out->children[1], at,
                                         kind == ML_VALUES ? &g.res : &g.values, k);
                if (rc == SQE_OK) out->child_len = at + 1;
            }
            if (rc) break;
            if (!bad)
                VEC_DATA(out, sqe_list_entry)[row] =
                    (sqe_list_entry){first, out->child_len - first};
        }
    }
    func_value_set_destroy(&keys);
    map_gather_destroy(&g);
    return rc;
}

KERNEL(transform_keys_fn) { return map_lambda(ctx, args, sel, count, out, ML_KEYS); }
KERNEL(transform_values_fn) { return map_lambda(ctx, args, sel, count, out, ML_VALUES); }
KERNEL(map_filter_fn) { return map_lambda(ctx, args, sel, count, out, ML_FILTER); }

/* --- The table ------------------------------------------------------------------------------ */

static int ret_map_comparable(const sqe_type *args, uint32_t n, sqe_type *ret, sqe_error *err) {
    sqe_type k = args[0].nested ? args[0].nested->children[0] : type_make(TYPE_UNKNOWN);
    sqe_type v = args[1].nested ? args[1].nested->children[0] : type_make(TYPE_UNKNOWN);
    sqe_type b;
    SQE_TRY(func_ret_comparable(&k, 1, &b, err));
    *ret = type_map(k, v);
    return ret->id == TYPE_MAP ? SQE_OK : err_nomem(err, "type");
}

#define NP FUNC_NULL_PROPAGATES
#define LNP (FUNC_NULL_PROPAGATES | FUNC_LAMBDA)

static const func_scalar_def map_defs[] = {
    {"map", "", "map(K,V)", NULL, NULL, map_empty_fn, 0, "an empty map"},
    {"map", "array(K),array(V)", "?", ret_map_comparable, NULL, map_from_arrays_fn, NP,
     "a map from arrays of keys and values"},
    {"map_from_entries", "array(row(K,V))", "map(K,V)", NULL, NULL, map_from_entries_fn, NP,
     "a map from an array of (key, value) rows"},
    {"map_entries", "map(K,V)", "array(row(K,V))", NULL, NULL, map_entries_fn, NP,
     "the (key, value) rows of a map"},
    {"map_keys", "map(K,V)", "array(K)", NULL, NULL, map_keys_fn, NP, "the keys of a map"},
    {"map_values", "map(K,V)", "array(V)", NULL, NULL, map_values_fn, NP, "the values of a map"},
    {"cardinality", "map(K,V)", "bigint", NULL, NULL, map_cardinality_fn, NP,
     "number of entries"},
    {"element_at", "map(K,V),K", "V", NULL, NULL, map_element_at_fn, NP,
     "value of a key (NULL if absent)"},
    {"$subscript", "map(K,V),K", "V", NULL, NULL, map_subscript_fn, NP,
     "map[key]: value of a key"},
    {"map_concat", "map(K,V),map(K,V)...", "map(K,V)", NULL, NULL, map_concat_fn, NP,
     "union of maps (later values win)"},
    {"transform_keys", "map(K,V),function(K,V,K2)", "map(K2,V)", NULL, NULL, transform_keys_fn,
     LNP, "applies a function to every key"},
    {"transform_values", "map(K,V),function(K,V,V2)", "map(K,V2)", NULL, NULL,
     transform_values_fn, LNP, "applies a function to every value"},
    {"map_filter", "map(K,V),function(K,V,boolean)", "map(K,V)", NULL, NULL, map_filter_fn, LNP,
     "entries for which the predicate is true"},
};

const func_scalar_def *func_scalar_family_map(uint32_t *count) {
    *count = FUNC_N(map_defs);
    return map_defs;
}
