/*
 * cast_nested.h: private to func/cast.c (included once, by it): element-wise casts of ARRAY,
 * MAP and ROW values.
 *
 * ARRAY and MAP: the elements of the selected, non-NULL rows are gathered (a dictionary view on
 *   the input's child vector), cast by the element kernel in one vectorized call into a new child
 *   vector, and that vector becomes the output's child (or is appended to it when the output
 *   already holds elements from an earlier call). List entries are rewritten to the new offsets.
 * ROW: each field is cast by its kernel directly from the input's field vector, through a
 *   dictionary view when the input is CONST or DICT, restricted to the non-NULL rows.
 * Under TRY a bad element or field becomes NULL (Trino would make the whole value NULL).
 */
#ifndef SQE_FUNC_CAST_NESTED_H
#define SQE_FUNC_CAST_NESTED_H

#include "func/cast_impl.h"

/* A DICT view selecting rows sel_map[i] of src (which must be FLAT or CONST). */
static inline vec dict_view(const vec *src, const uint32_t *sel_map, uint32_t n) {
    vec view;
    memset(&view, 0, sizeof view);
    view.type = src->type;
    view.shape = VEC_DICT;
    view.capacity = n;
    view.dict = src;
    view.sel = sel_map;
    return view;
}

/* Casts elements gather[0..n) of src_child into dst_child at positions base..base+n-1. */
static inline int cast_elements(func_ctx *ctx, const vec *src_child, uint32_t *gather, uint32_t n,
                         vec *dst_child, uint32_t base) {
    if (n == 0) return SQE_OK;
    func_scalar_fn fn = func_cast_lookup(src_child->type, dst_child->type);
    if (!fn) return cast_unsupported(ctx, src_child, dst_child);
    vec tmp;
    int rc = vec_init(&tmp, dst_child->type, n, dst_child->tracker, ctx->err);
    if (rc == SQE_OK) {
        vec view = dict_view(src_child, gather, n);
        const vec *arg = &view;
        rc = fn(ctx, &arg, 1, NULL, n, &tmp);
    }
    if (rc != SQE_OK) {
        vec_destroy(&tmp);
        return rc;
    }
    if (base == 0) { /* the output child holds nothing yet: take the new vector over */
        vec_destroy(dst_child);
        *dst_child = tmp;
        return SQE_OK;
    }
    rc = vec_reserve(dst_child, base + n, ctx->err);
    for (uint32_t i = 0; rc == SQE_OK && i < n; i++)
        rc = vec_copy_row(dst_child, base + i, &tmp, i, ctx->err);
    vec_destroy(&tmp);
    return rc;
}

/* ARRAY -> ARRAY and MAP -> MAP. */
static inline int cast_list(CAST_ARGS) {
    const vec *in = args[0];
    vec_view u;
    vec_view_init(&u, in);
    CAST_CHECK(cast_begin(ctx, out, sel, count));
    CAST_CHECK(cast_prepare_nulls(ctx, &u, out));
    const vec *src = u.flat;
    uint32_t n_kids = in->type.id == TYPE_MAP ? 2 : 1;
    if (src->n_children < n_kids || out->n_children < n_kids) return cast_unsupported(ctx, in, out);
    const sqe_list_entry *entries = u.data;
    sqe_list_entry *dst = out->data;
    uint32_t base = out->child_len;
    uint32_t src_len = src->children[0].capacity;
    for (uint32_t k = 1; k < n_kids; k++)
        if (src->children[k].capacity < src_len) src_len = src->children[k].capacity;
    uint32_t *gather = NULL;
    uint64_t n = 0, cap = 0;
    int result = SQE_OK;
    CAST_LOOP(u, sel, count, out, {
        sqe_list_entry e = entries[idx];
        if ((uint64_t)e.offset + e.length > src_len || n + e.length > UINT32_MAX - base) {
            result = err_set(ctx->err, SQE_ERR_GENERIC_INTERNAL_ERROR,
                             "cast: list entry out of bounds");
            break;
        }
        if (n + e.length > cap) {
            uint64_t want = cap * 2 > n + e.length ? cap * 2 : n + e.length;
            if (want < 64) want = 64;
            uint32_t *grown = realloc(gather, sizeof(uint32_t) * want);
            if (!grown) {
                result = cast_nomem(ctx);
                break;
            }
            gather = grown;
            cap = want;
        }
        for (uint32_t j = 0; j < e.length; j++) gather[n + j] = e.offset + j;
        dst[row] = (sqe_list_entry){base + (uint32_t)n, e.length};
        n += e.length;
    });
    for (uint32_t k = 0; result == SQE_OK && k < n_kids; k++)
        result = cast_elements(ctx, &src->children[k], gather, (uint32_t)n, &out->children[k], base);
    if (result == SQE_OK) out->child_len = base + (uint32_t)n;
    free(gather);
    return result;
}

/* ROW -> ROW, field by field. */
static inline int cast_row(CAST_ARGS) {
    const vec *in = args[0];
    vec_view u;
    vec_view_init(&u, in);
    CAST_CHECK(cast_begin(ctx, out, sel, count));
    CAST_CHECK(cast_prepare_nulls(ctx, &u, out));
    const vec *src = u.flat;
    uint32_t n_fields = out->n_children;
    if (src->n_children != n_fields) return cast_unsupported(ctx, in, out);
    if (count == 0) return SQE_OK;
    bool direct = vec_view_is_flat(&u) && !u.validity;
    uint32_t *rows = NULL, *map = NULL, n_rows = 0, max_row = 0;
    int result = SQE_OK;
    if (!direct) {
        /* Non-NULL rows (NULL rows become NULL) and, for CONST/DICT input, row -> input index. */
        rows = malloc(sizeof(uint32_t) * count);
        for (uint32_t i = 0; i < count; i++) {
            uint32_t r = sel ? sel[i] : i;
            if (r > max_row) max_row = r;
        }
        map = !vec_view_is_flat(&u) ? malloc(sizeof(uint32_t) * ((size_t)max_row + 1)) : NULL;
        if (!rows || (!vec_view_is_flat(&u) && !map)) {
            free(rows);
            free(map);
            return cast_nomem(ctx);
        }
        CAST_LOOP(u, sel, count, out, {
            rows[n_rows++] = row;
            if (map) map[row] = idx;
        });
    }
    for (uint32_t f = 0; result == SQE_OK && f < n_fields; f++) {
        const vec *field = &src->children[f];
        func_scalar_fn fn = func_cast_lookup(field->type, out->children[f].type);
        if (!fn) {
            result = cast_unsupported(ctx, field, &out->children[f]);
            break;
        }
        if (direct) {
            result = fn(ctx, &field, 1, sel, count, &out->children[f]);
        } else if (n_rows) {
            vec view;
            const vec *arg = field;
            if (map) {
                view = dict_view(field, map, max_row + 1);
                arg = &view;
            }
            result = fn(ctx, &arg, 1, rows, n_rows, &out->children[f]);
        }
    }
    free(rows);
    free(map);
    return result;
}

#endif
