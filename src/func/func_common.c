/*
 * func_common.c: helpers every kernel uses (see func.h): unified read access to vectors of any
 * shape and per-row error reporting that honours TRY.
 *
 * INTERFACE: vec_unify, func_row_error.
 * NOTES: vec_unify resolves DICT vectors whose selection is NULL (identity views) through any
 * number of levels, and one DICT level with a selection over a FLAT or CONST vector. A
 * dictionary with a selection over another dictionary with a selection cannot be expressed
 * without allocating (producers compose such selections themselves); it is presented as
 * all-NULL rather than read out of bounds.
 */
#include <stdarg.h>
#include <string.h>

#include "func/func.h"

static const uint64_t no_rows_valid[1] = {0};

static void unify_base(const vec *v, const uint32_t *sel, vec_unified *out) {
    out->flat = v;
    out->data = v->data;
    out->validity = v->validity;
    if (v->shape == VEC_CONST) {
        out->mode = 1;
    } else if (sel) {
        out->sel = sel;
        out->mode = 2;
    } else {
        out->mode = 0;
    }
}

void vec_unify(const vec *v, vec_unified *out) {
    memset(out, 0, sizeof *out);
    const uint32_t *sel = NULL;
    for (int depth = 0; depth < 64 && v && v->shape == VEC_DICT; depth++) {
        if (v->sel) {
            if (sel) break; /* two selections: not composable here */
            sel = v->sel;
        }
        v = v->dict;
    }
    if (!v || v->shape == VEC_DICT) {
        /* Unsupported nesting: present a constant NULL. */
        out->flat = v ? v : NULL;
        out->data = v ? v->data : NULL;
        out->validity = no_rows_valid;
        out->mode = 1;
        return;
    }
    unify_base(v, sel, out);
}

int func_row_error(func_ctx *ctx, vec *out, uint32_t row, int code, const char *fmt, ...) {
    if (ctx->try_mode) {
        if (vec_set_null(out, row) != SQE_OK) return err_nomem(ctx->err, "validity bitmap");
        return SQE_OK;
    }
    va_list ap;
    va_start(ap, fmt);
    err_setv(ctx->err, code, fmt, ap);
    va_end(ap);
    return code;
}
