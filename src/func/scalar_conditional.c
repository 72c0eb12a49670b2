/*
 * scalar_conditional.c: the conditional family: greatest and least. (IF, CASE, COALESCE,
 * NULLIF and TRY are special forms of the expression evaluator, not registry functions.)
 *
 * INTERFACE: func_scalar_family_conditional.
 *
 * NOTES: greatest/least take "T,T...": the binder casts every argument to the common super
 * type, so greatest(1, 2.5) is decimal(11,1). As in Trino the result is NULL when any argument
 * is NULL, and a NaN argument of real/double is INVALID_FUNCTION_ARGUMENT. Numeric types run a
 * typed loop; other orderable types compare through func_value_compare and copy the winner.
 */
#include <math.h>
#include <stdlib.h>

#include "func/scalar_kernel.h"

static int ret_orderable_same(const sqe_type *args, uint32_t n_args, sqe_type *ret,
                              sqe_error *err) {
    sqe_type b;
    SQE_TRY(func_ret_orderable(args, n_args, &b, err));
    *ret = args[0];
    return SQE_OK;
}

#define EXTREME_LOOP(CT, IS_NAN)                                                                   \
    do {                                                                                           \
        CT *r = out->data;                                                                         \
        FUNC_FOR_ROWS(sel, count, row) {                                                           \
            CT best = UVAL(&u[0], CT, row);                                                        \
            bool nan = IS_NAN(best);                                                               \
            for (uint32_t i = 1; i < n_args; i++) {                                                \
                CT x = UVAL(&u[i], CT, row);                                                       \
                nan |= IS_NAN(x);                                                                  \
                if (greatest ? x > best : x < best) best = x;                                      \
            }                                                                                      \
            if (nan) {                                                                             \
                rc = func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,              \
                                    "Invalid argument to %s(): NaN", greatest ? "greatest"         \
                                                                              : "least");          \
                if (rc) goto out_free;                                                             \
                continue;                                                                          \
            }                                                                                      \
            r[row] = best;                                                                         \
        }                                                                                          \
        goto out_free;                                                                             \
    } while (0)

#define NO_NAN(x) ((void)(x), false)
#define F_NAN(x) (isnan(x) != 0)

static int extreme(func_ctx *ctx, const vec *const *args, uint32_t n_args, const uint32_t *sel,
                   uint32_t count, vec *out, bool greatest) {
    vec_view stack[16];
    vec_view *u = n_args <= 16 ? stack : malloc(sizeof(vec_view) * n_args);
    if (!u) return func_nomem(ctx);
    for (uint32_t i = 0; i < n_args; i++) vec_view_init(&u[i], args[i]);
    int rc = SQE_OK;
    bool same = true;
    for (uint32_t i = 1; i < n_args; i++) same &= type_equal(args[i]->type, args[0]->type);
    if (same) {
        switch (args[0]->type.id) {
        case TYPE_TINYINT: EXTREME_LOOP(int8_t, NO_NAN);
        case TYPE_SMALLINT: EXTREME_LOOP(int16_t, NO_NAN);
        case TYPE_INTEGER:
        case TYPE_DATE: EXTREME_LOOP(int32_t, NO_NAN);
        case TYPE_BIGINT:
        case TYPE_TIMESTAMP:
        case TYPE_TIME: EXTREME_LOOP(int64_t, NO_NAN);
        case TYPE_REAL: EXTREME_LOOP(float, F_NAN);
        case TYPE_DOUBLE: EXTREME_LOOP(double, F_NAN);
        default: break;
        }
    }
    FUNC_FOR_ROWS(sel, count, row) {
        uint32_t best = 0;
        for (uint32_t i = 1; i < n_args; i++) {
            int c = func_value_compare(args[i], row, args[best], row);
            if (greatest ? c > 0 : c < 0) best = i;
        }
        if ((rc = func_copy_value(ctx, out, row, args[best], row)) != SQE_OK) break;
    }
out_free:
    if (u != stack) free(u);
    return rc;
}

static int greatest_fn(func_ctx *ctx, const vec *const *args, uint32_t n_args,
                       const uint32_t *sel, uint32_t count, vec *out) {
    return extreme(ctx, args, n_args, sel, count, out, true);
}

static int least_fn(func_ctx *ctx, const vec *const *args, uint32_t n_args, const uint32_t *sel,
                    uint32_t count, vec *out) {
    return extreme(ctx, args, n_args, sel, count, out, false);
}

static const func_scalar_def conditional_defs[] = {
    {"greatest", "T,T...", "?", ret_orderable_same, NULL, greatest_fn, FUNC_NULL_PROPAGATES,
     "the largest argument (NULL if any is NULL)"},
    {"least", "T,T...", "?", ret_orderable_same, NULL, least_fn, FUNC_NULL_PROPAGATES,
     "the smallest argument (NULL if any is NULL)"},
};

const func_scalar_def *func_scalar_family_conditional(uint32_t *count) {
    *count = FUNC_N(conditional_defs);
    return conditional_defs;
}
