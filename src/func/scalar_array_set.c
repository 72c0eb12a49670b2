/*
 * scalar_array_set.c: the array family, set part: array_distinct, array_union,
 * array_intersect, array_except, arrays_overlap, array_remove, array_sort, array_sort_desc.
 *
 * INTERFACE: func_array_set_defs (joined into the array family).
 *
 * NOTES: set operations hash elements with func_value_hash and compare them with
 * func_value_same, so NULL equals NULL (one NULL survives array_distinct, as in Trino) and NaN
 * equals NaN. Results keep the order of first occurrence. The "already output" set is built on
 * the output's own element vector (positions), so no element is copied twice. array_sort puts
 * NULLs last.
 */
#define _GNU_SOURCE
#include <stdlib.h>

#include "func/scalar_kernel.h"

#define KERNEL(name)                                                                               \
    static int name(func_ctx *ctx, const vec *const *args, uint32_t n_args, const uint32_t *sel,   \
                    uint32_t count, vec *out)

/* Appends element src[i] to the output array under construction and records it in `done`. */
static int emit(func_ctx *ctx, vec *out, func_value_set *done, const vec *src, uint32_t i) {
    uint32_t at;
    SQE_TRY(func_list_reserve(ctx, out, 1, &at));
    SQE_TRY(func_copy_value(ctx, &out->children[0], at, src, i));
    out->child_len = at + 1;
    if (done && func_value_set_add(done, at, NULL) != SQE_OK) return func_nomem(ctx);
    return SQE_OK;
}

enum set_op { OP_DISTINCT, OP_UNION, OP_INTERSECT, OP_EXCEPT };

static int set_op(func_ctx *ctx, const vec *const *args, uint32_t n_args, const uint32_t *sel,
                  uint32_t count, vec *out, int op) {
    vec_view ux, uy = {0};
    vec_view_init(&ux, args[0]);
    if (n_args > 1) vec_view_init(&uy, args[1]);
    const vec *xe = ulist_elems(&ux), *ye = n_args > 1 ? ulist_elems(&uy) : NULL;
    func_value_set done, other;
    func_value_set_init(&done, &out->children[0]);
    func_value_set_init(&other, ye);
    int rc = SQE_OK;
    FUNC_FOR_ROWS(sel, count, row) {
        func_value_set_clear(&done, &out->children[0]);
        uint32_t first = out->child_len;
        sqe_list_entry ex = ulist(&ux, row);
        sqe_list_entry ey = n_args > 1 ? ulist(&uy, row) : (sqe_list_entry){0, 0};
        if (op == OP_INTERSECT || op == OP_EXCEPT) {
            func_value_set_clear(&other, ye);
            for (uint32_t i = 0; i < ey.length && rc == SQE_OK; i++)
                if (func_value_set_add(&other, ey.offset + i, NULL) != SQE_OK) rc = func_nomem(ctx);
        }
        for (uint32_t i = 0; i < ex.length && rc == SQE_OK; i++) {
            uint32_t at = ex.offset + i;
            if (func_value_set_find(&done, xe, at) >= 0) continue;
            if (op == OP_INTERSECT && func_value_set_find(&other, xe, at) < 0) continue;
            if (op == OP_EXCEPT && func_value_set_find(&other, xe, at) >= 0) continue;
            rc = emit(ctx, out, &done, xe, at);
        }
        if (op == OP_UNION)
            for (uint32_t i = 0; i < ey.length && rc == SQE_OK; i++)
                if (func_value_set_find(&done, ye, ey.offset + i) < 0)
                    rc = emit(ctx, out, &done, ye, ey.offset + i);
        if (rc) break;
        VEC_DATA(out, sqe_list_entry)[row] = (sqe_list_entry){first, out->child_len - first};
    }
    func_value_set_destroy(&done);
    func_value_set_destroy(&other);
    return rc;
}

KERNEL(array_distinct_fn) { return set_op(ctx, args, n_args, sel, count, out, OP_DISTINCT); }
KERNEL(array_union_fn) { return set_op(ctx, args, n_args, sel, count, out, OP_UNION); }
KERNEL(array_intersect_fn) { return set_op(ctx, args, n_args, sel, count, out, OP_INTERSECT); }
KERNEL(array_except_fn) { return set_op(ctx, args, n_args, sel, count, out, OP_EXCEPT); }

KERNEL(arrays_overlap_fn) {
    vec_view ux, uy;
    vec_view_init(&ux, args[0]);
    vec_view_init(&uy, args[1]);
    const vec *xe = ulist_elems(&ux), *ye = ulist_elems(&uy);
    func_value_set ys;
    func_value_set_init(&ys, ye);
    int rc = SQE_OK;
    FUNC_FOR_ROWS(sel, count, row) {
        sqe_list_entry ex = ulist(&ux, row), ey = ulist(&uy, row);
        func_value_set_clear(&ys, ye);
        bool has_null = false, found = false;
        for (uint32_t i = 0; i < ey.length && rc == SQE_OK; i++) {
            if (vec_is_null(ye, ey.offset + i)) has_null = true;
            else if (func_value_set_add(&ys, ey.offset + i, NULL) != SQE_OK) rc = func_nomem(ctx);
        }
        for (uint32_t i = 0; i < ex.length && !found && rc == SQE_OK; i++) {
            if (vec_is_null(xe, ex.offset + i)) has_null = true;
            else found = func_value_set_find(&ys, xe, ex.offset + i) >= 0;
        }
        if (rc) break;
        if (!found && has_null && ex.length && ey.length) rc = func_out_null(ctx, out, row);
        else VEC_DATA(out, uint8_t)[row] = found;
        if (rc) break;
    }
    func_value_set_destroy(&ys);
    return rc;
}

KERNEL(array_remove_fn) {
    vec_view ux;
    vec_view_init(&ux, args[0]);
    const vec *xe = ulist_elems(&ux);
    FUNC_FOR_ROWS(sel, count, row) {
        sqe_list_entry ex = ulist(&ux, row);
        uint32_t first = out->child_len;
        for (uint32_t i = 0; i < ex.length; i++)
            if (func_value_equal3(xe, ex.offset + i, args[1], row) != FUNC_TRUE)
                SQE_TRY(emit(ctx, out, NULL, xe, ex.offset + i));
        VEC_DATA(out, sqe_list_entry)[row] = (sqe_list_entry){first, out->child_len - first};
    }
    return SQE_OK;
}

typedef struct sort_ctx {
    const vec *elems;
    bool desc;
} sort_ctx;

static int sort_cmp(const void *a, const void *b, void *arg) {
    const sort_ctx *sc = arg;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    bool nx = vec_is_null(sc->elems, x), ny = vec_is_null(sc->elems, y);
    if (nx || ny) return nx == ny ? 0 : nx ? 1 : -1; /* NULLs last either way */
    int c = func_value_compare(sc->elems, x, sc->elems, y);
    return sc->desc ? -c : c;
}

static int sort_common(func_ctx *ctx, const vec *const *args, const uint32_t *sel,
                       uint32_t count, vec *out, bool desc) {
    vec_view ux;
    vec_view_init(&ux, args[0]);
    sort_ctx sc = {ulist_elems(&ux), desc};
    uint32_t *idx = NULL, cap = 0;
    int rc = SQE_OK;
    FUNC_FOR_ROWS(sel, count, row) {
        sqe_list_entry ex = ulist(&ux, row);
        if (ex.length > cap) {
            uint32_t *p = realloc(idx, sizeof(uint32_t) * ex.length);
            if (!p) {
                rc = func_nomem(ctx);
                break;
            }
            idx = p;
            cap = ex.length;
        }
        for (uint32_t i = 0; i < ex.length; i++) idx[i] = ex.offset + i;
        if (ex.length > 1) qsort_r(idx, ex.length, sizeof *idx, sort_cmp, &sc);
        uint32_t first = out->child_len;
        for (uint32_t i = 0; i < ex.length && rc == SQE_OK; i++)
            rc = emit(ctx, out, NULL, sc.elems, idx[i]);
        if (rc) break;
        VEC_DATA(out, sqe_list_entry)[row] = (sqe_list_entry){first, ex.length};
    }
    free(idx);
    return rc;
}
KERNEL(array_sort_fn) { return sort_common(ctx, args, sel, count, out, false); }
KERNEL(array_sort_desc_fn) { return sort_common(ctx, args, sel, count, out, true); }

static int ret_sorted(const sqe_type *args, uint32_t n, sqe_type *ret, sqe_error *err) {
    sqe_type e = args[0].nested ? args[0].nested->children[0] : type_make(TYPE_UNKNOWN), b;
    SQE_TRY(func_ret_orderable(&e, 1, &b, err));
    *ret = args[0];
    return SQE_OK;
}

#define NP FUNC_NULL_PROPAGATES

static const func_scalar_def array_set_defs[] = {
    {"array_distinct", "array(E)", "array(E)", NULL, NULL, array_distinct_fn, NP,
     "elements without duplicates"},
    {"array_union", "array(E),array(E)", "array(E)", NULL, NULL, array_union_fn, NP,
     "distinct elements of both arrays"},
    {"array_intersect", "array(E),array(E)", "array(E)", NULL, NULL, array_intersect_fn, NP,
     "distinct elements in both arrays"},
    {"array_except", "array(E),array(E)", "array(E)", NULL, NULL, array_except_fn, NP,
     "distinct elements of x not in y"},
    {"arrays_overlap", "array(E),array(E)", "boolean", NULL, NULL, arrays_overlap_fn, NP,
     "do the arrays share a non-NULL element"},
    {"array_remove", "array(E),E", "array(E)", NULL, NULL, array_remove_fn, NP,
     "elements not equal to a value"},
    {"array_sort", "array(E)", "?", ret_sorted, NULL, array_sort_fn, NP,
     "elements in ascending order, NULLs last"},
    {"array_sort_desc", "array(E)", "?", ret_sorted, NULL, array_sort_desc_fn, NP,
     "elements in descending order, NULLs last"},
};

const func_scalar_def *func_array_set_defs(uint32_t *count) {
    *count = FUNC_N(array_set_defs);
    return array_set_defs;
}
