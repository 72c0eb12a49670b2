/*
 * scalar_operators.c: the operator family: arithmetic on integers, real, double and decimal,
 * and the def table that also lists the comparison, LIKE and date/time/interval operators
 * (their kernels live in scalar_operators_compare.c, _like.c and _temporal.c).
 *
 * INTERFACE: func_scalar_family_operators.
 *
 * NOTES: these are the hottest kernels of the engine. Every (type, operator) pair is a
 * macro-generated loop with fast paths for (flat, flat), (flat, constant) and (constant, flat)
 * inputs without a selection vector; overflow is accumulated branch-free in a flag inside the
 * loop (so the small-integer loops vectorize) and only when it is set are the rows rescanned to
 * report the first offending value, or, in TRY mode, to null every offending row. Integer
 * division truncates toward zero; division or modulus by zero is DIVISION_BY_ZERO; real and
 * double follow IEEE (no errors). Decimal results take their type from decimal.h's rules.
 */
#if defined(__GNUC__) && !defined(__clang__)
/* -O2 in GCC 12 only vectorizes loops that need no epilogue; these loops pay off anyway. */
#pragma GCC optimize("tree-vectorize", "vect-cost-model=cheap")
#endif

#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "func/scalar_kernel.h"
#include "types/decimal.h"

/* --- Integer arithmetic ------------------------------------------------------------------ */

/* COMPUTE(CT, WT, x, y, r, bad): r = x op y; bad |= 1 on overflow. WT is a wider type for the
 * small integers; the accumulator is unsigned so that the loops vectorize. */
#define SMALL_ADD(CT, WT, x, y, r, bad)                                                            \
    do {                                                                                           \
        WT t_ = (WT)(x) + (WT)(y);                                                                 \
        (r) = (CT)t_;                                                                              \
        (bad) |= (uint32_t)(t_ != (CT)t_);                                                         \
    } while (0)
#define SMALL_SUB(CT, WT, x, y, r, bad)                                                            \
    do {                                                                                           \
        WT t_ = (WT)(x) - (WT)(y);                                                                 \
        (r) = (CT)t_;                                                                              \
        (bad) |= (uint32_t)(t_ != (CT)t_);                                                         \
    } while (0)
#define SMALL_MUL(CT, WT, x, y, r, bad)                                                            \
    do {                                                                                           \
        WT t_ = (WT)(x) * (WT)(y);                                                                 \
        (r) = (CT)t_;                                                                              \
        (bad) |= (uint32_t)(t_ != (CT)t_);                                                         \
    } while (0)
#define BIG_ADD(CT, WT, x, y, r, bad)                                                              \
    do {                                                                                           \
        int64_t t_ = (int64_t)((uint64_t)(x) + (uint64_t)(y));                                     \
        (r) = t_;                                                                                  \
        (bad) |= (uint32_t)((uint64_t)(((x) ^ t_) & ((y) ^ t_)) >> 63);                            \
    } while (0)
#define BIG_SUB(CT, WT, x, y, r, bad)                                                              \
    do {                                                                                           \
        int64_t t_ = (int64_t)((uint64_t)(x) - (uint64_t)(y));                                     \
        (r) = t_;                                                                                  \
        (bad) |= (uint32_t)((uint64_t)(((x) ^ (y)) & ((x) ^ t_)) >> 63);                           \
    } while (0)
#define BIG_MUL(CT, WT, x, y, r, bad)                                                              \
    do {                                                                                           \
        (bad) |= (uint32_t)__builtin_mul_overflow((x), (y), &(r));                                 \
    } while (0)

/* Defines kernel `fname` computing out = a OP b over CT with overflow reporting. */
#define DEFINE_INT_BINOP(fname, CT, WT, tname, opname, opsym, COMPUTE)                               \
    static int fname(func_ctx *ctx, const vec *const *args, uint32_t n_args, const uint32_t *sel,  \
                     uint32_t count, vec *out) {                                                   \
        CT *restrict r = VEC_DATA(out, CT);                                                        \
        const vec *va = args[0], *vb = args[1];                                                    \
        uint32_t bad = 0;                                                                          \
        if (!sel && va->shape == VEC_FLAT && vb->shape == VEC_FLAT) {                              \
            const CT *restrict a = va->data, *restrict b = vb->data;                               \
            for (uint32_t i = 0; i < count; i++) COMPUTE(CT, WT, a[i], b[i], r[i], bad);             \
        } else if (!sel && va->shape == VEC_FLAT && vb->shape == VEC_CONST) {                      \
            const CT *restrict a = va->data;                                                       \
            const CT y = ((const CT *)vb->data)[0];                                                \
            for (uint32_t i = 0; i < count; i++) COMPUTE(CT, WT, a[i], y, r[i], bad);                \
        } else if (!sel && va->shape == VEC_CONST && vb->shape == VEC_FLAT) {                      \
            const CT x = ((const CT *)va->data)[0];                                                \
            const CT *restrict b = vb->data;                                                       \
            for (uint32_t i = 0; i < count; i++) COMPUTE(CT, WT, x, b[i], r[i], bad);                \
        } else {                                                                                   \
            vec_view ua, ub;                                                                       \
            vec_view_init(&ua, va);                                                                \
            vec_view_init(&ub, vb);                                                                \
            FUNC_FOR_ROWS(sel, count, row) {                                                       \
                CT x = UVAL(&ua, CT, row), y = UVAL(&ub, CT, row);                                 \
                COMPUTE(CT, WT, x, y, r[row], bad);                                                \
            }                                                                                      \
        }                                                                                          \
        if (!bad) return SQE_OK;                                                                   \
        vec_view ua, ub;                                                                           \
        vec_view_init(&ua, va);                                                                    \
        vec_view_init(&ub, vb);                                                                    \
        FUNC_FOR_ROWS(sel, count, row) {                                                           \
            CT x = UVAL(&ua, CT, row), y = UVAL(&ub, CT, row), t;                                  \
            uint32_t b1 = 0;                                                                       \
            COMPUTE(CT, WT, x, y, t, b1);                                                            \
            (void)t;                                                                               \
            if (b1)                                                                                \
                SQE_TRY(func_row_error(ctx, out, row, SQE_ERR_NUMERIC_VALUE_OUT_OF_RANGE,          \
                                       "%s %s overflow: %" PRId64 " %s %" PRId64, tname, opname,   \
                                       (int64_t)x, opsym, (int64_t)y));                            \
        }                                                                                          \
        return SQE_OK;                                                                             \
    }

/* Division and modulus: per-row checks (division does not vectorize anyway). */
#define DEFINE_INT_DIVOP(fname, CT, tname, IS_MOD)                                                 \
    static int fname(func_ctx *ctx, const vec *const *args, uint32_t n_args, const uint32_t *sel,  \
                     uint32_t count, vec *out) {                                                   \
        CT *r = VEC_DATA(out, CT);                                                                 \
        vec_view ua, ub;                                                                           \
        vec_view_init(&ua, args[0]);                                                               \
        vec_view_init(&ub, args[1]);                                                               \
        const CT min_ = (CT)((uint64_t)1 << (sizeof(CT) * 8 - 1));                                       \
        FUNC_FOR_ROWS(sel, count, row) {                                                           \
            CT x = UVAL(&ua, CT, row), y = UVAL(&ub, CT, row);                                     \
            if (y == 0) {                                                                          \
                SQE_TRY(func_row_error(ctx, out, row, SQE_ERR_DIVISION_BY_ZERO,                    \
                                       "Division by zero"));                                       \
                continue;                                                                          \
            }                                                                                      \
            if (y == -1) {                                                                         \
                if (IS_MOD) {                                                                      \
                    r[row] = 0;                                                                    \
                } else if (x == min_) {                                                            \
                    SQE_TRY(func_row_error(ctx, out, row, SQE_ERR_NUMERIC_VALUE_OUT_OF_RANGE,      \
                                           "%s division overflow: %" PRId64 " / -1", tname,        \
                                           (int64_t)x));                                           \
                } else {                                                                           \
                    r[row] = (CT)-x;                                                               \
                }                                                                                  \
                continue;                                                                          \
            }                                                                                      \
            r[row] = IS_MOD ? (CT)(x % y) : (CT)(x / y);                                           \
        }                                                                                          \
        return SQE_OK;                                                                             \
    }

#define DEFINE_INT_NEGATE(fname, CT, tname)                                                        \
    static int fname(func_ctx *ctx, const vec *const *args, uint32_t n_args, const uint32_t *sel,  \
                     uint32_t count, vec *out) {                                                   \
        CT *r = VEC_DATA(out, CT);                                                                 \
        vec_view ua;                                                                               \
        vec_view_init(&ua, args[0]);                                                               \
        const CT min_ = (CT)((uint64_t)1 << (sizeof(CT) * 8 - 1));                                       \
        FUNC_FOR_ROWS(sel, count, row) {                                                           \
            CT x = UVAL(&ua, CT, row);                                                             \
            if (x == min_) {                                                                       \
                SQE_TRY(func_row_error(ctx, out, row, SQE_ERR_NUMERIC_VALUE_OUT_OF_RANGE,          \
                                       "%s negation overflow: %" PRId64, tname, (int64_t)x));      \
                continue;                                                                          \
            }                                                                                      \
            r[row] = (CT)-x;                                                                       \
        }                                                                                          \
        return SQE_OK;                                                                             \
    }

#define DEFINE_INT_OPS(sfx, CT, WT, tname, ADD, SUB, MUL)                                          \
    DEFINE_INT_BINOP(add_##sfx, CT, WT, tname, "addition", "+", ADD)                               \
    DEFINE_INT_BINOP(sub_##sfx, CT, WT, tname, "subtraction", "-", SUB)                            \
    DEFINE_INT_BINOP(mul_##sfx, CT, WT, tname, "multiplication", "*", MUL)                         \
    DEFINE_INT_DIVOP(div_##sfx, CT, tname, 0)                                                      \
    DEFINE_INT_DIVOP(mod_##sfx, CT, tname, 1)                                                      \
    DEFINE_INT_NEGATE(neg_##sfx, CT, tname)

DEFINE_INT_OPS(i8, int8_t, int32_t, "tinyint", SMALL_ADD, SMALL_SUB, SMALL_MUL)
DEFINE_INT_OPS(i16, int16_t, int32_t, "smallint", SMALL_ADD, SMALL_SUB, SMALL_MUL)
DEFINE_INT_OPS(i32, int32_t, int64_t, "integer", SMALL_ADD, SMALL_SUB, SMALL_MUL)
DEFINE_INT_OPS(i64, int64_t, int64_t, "bigint", BIG_ADD, BIG_SUB, BIG_MUL)

/* --- Floating point ---------------------------------------------------------------------- */

#define DEFINE_FLOAT_BINOP(fname, CT, EXPR)                                                        \
    static int fname(func_ctx *ctx, const vec *const *args, uint32_t n_args, const uint32_t *sel,  \
                     uint32_t count, vec *out) {                                                   \
        CT *restrict r = VEC_DATA(out, CT);                                                        \
        const vec *va = args[0], *vb = args[1];                                                    \
        if (!sel && va->shape == VEC_FLAT && vb->shape == VEC_FLAT) {                              \
            const CT *restrict a = va->data, *restrict b = vb->data;                               \
            for (uint32_t i = 0; i < count; i++) {                                                 \
                CT x = a[i], y = b[i];                                                             \
                r[i] = EXPR;                                                                       \
            }                                                                                      \
        } else if (!sel && va->shape == VEC_FLAT && vb->shape == VEC_CONST) {                      \
            const CT *restrict a = va->data;                                                       \
            const CT y = ((const CT *)vb->data)[0];                                                \
            for (uint32_t i = 0; i < count; i++) {                                                 \
                CT x = a[i];                                                                       \
                r[i] = EXPR;                                                                       \
            }                                                                                      \
        } else if (!sel && va->shape == VEC_CONST && vb->shape == VEC_FLAT) {                      \
            const CT x = ((const CT *)va->data)[0];                                                \
            const CT *restrict b = vb->data;                                                       \
            for (uint32_t i = 0; i < count; i++) {                                                 \
                CT y = b[i];                                                                       \
                r[i] = EXPR;                                                                       \
            }                                                                                      \
        } else {                                                                                   \
            vec_view ua, ub;                                                                       \
            vec_view_init(&ua, va);                                                                \
            vec_view_init(&ub, vb);                                                                \
            FUNC_FOR_ROWS(sel, count, row) {                                                       \
                CT x = UVAL(&ua, CT, row), y = UVAL(&ub, CT, row);                                 \
                r[row] = EXPR;                                                                     \
            }                                                                                      \
        }                                                                                          \
        return SQE_OK;                                                                             \
    }

#define DEFINE_FLOAT_NEGATE(fname, CT)                                                             \
    static int fname(func_ctx *ctx, const vec *const *args, uint32_t n_args, const uint32_t *sel,  \
                     uint32_t count, vec *out) {                                                   \
        CT *r = VEC_DATA(out, CT);                                                                 \
        vec_view ua;                                                                               \
        vec_view_init(&ua, args[0]);                                                               \
        FUNC_FOR_ROWS(sel, count, row) r[row] = -UVAL(&ua, CT, row);                               \
        return SQE_OK;                                                                             \
    }

DEFINE_FLOAT_BINOP(add_f32, float, x + y)
DEFINE_FLOAT_BINOP(sub_f32, float, x - y)
DEFINE_FLOAT_BINOP(mul_f32, float, x * y)
DEFINE_FLOAT_BINOP(div_f32, float, x / y)
DEFINE_FLOAT_BINOP(mod_f32, float, fmodf(x, y))
DEFINE_FLOAT_NEGATE(neg_f32, float)
DEFINE_FLOAT_BINOP(add_f64, double, x + y)
DEFINE_FLOAT_BINOP(sub_f64, double, x - y)
DEFINE_FLOAT_BINOP(mul_f64, double, x * y)
DEFINE_FLOAT_BINOP(div_f64, double, x / y)
DEFINE_FLOAT_BINOP(mod_f64, double, fmod(x, y))
DEFINE_FLOAT_NEGATE(neg_f64, double)

/* --- Decimal ----------------------------------------------------------------------------- */

static int ret_decimal_add(const sqe_type *args, uint32_t n, sqe_type *ret, sqe_error *err) {
    *ret = decimal_add_type(args[0], args[1]);
    return SQE_OK;
}
static int ret_decimal_mul(const sqe_type *args, uint32_t n, sqe_type *ret, sqe_error *err) {
    *ret = decimal_mul_type(args[0], args[1]);
    return SQE_OK;
}
static int ret_decimal_div(const sqe_type *args, uint32_t n, sqe_type *ret, sqe_error *err) {
    *ret = decimal_div_type(args[0], args[1]);
    return SQE_OK;
}
static int ret_decimal_mod(const sqe_type *args, uint32_t n, sqe_type *ret, sqe_error *err) {
    *ret = decimal_mod_type(args[0], args[1]);
    return SQE_OK;
}

static int decimal_overflow(func_ctx *ctx, vec *out, uint32_t row) {
    return func_row_error(ctx, out, row, SQE_ERR_NUMERIC_VALUE_OUT_OF_RANGE, "Decimal overflow");
}

/* 10^n as int64 for n <= 18. */
static int64_t pow10_i64(int n) { return (int64_t)decimal_pow10(n); }

static bool scale_up(int128 v, int by, int128 *out) {
    if (by == 0) {
        *out = v;
        return true;
    }
    return !__builtin_mul_overflow(v, decimal_pow10(by), out);
}

static int dec_addsub(func_ctx *ctx, const vec *const *args, const uint32_t *sel, uint32_t count,
                      vec *out, bool subtract) {
    sqe_type ta = args[0]->type, tb = args[1]->type, tr = out->type;
    int sa = tr.scale - ta.scale, sb = tr.scale - tb.scale;
    if (!sel && !type_decimal_is_long(tr) && !type_decimal_is_long(ta) &&
        !type_decimal_is_long(tb) && args[0]->shape == VEC_FLAT && args[1]->shape == VEC_FLAT) {
        /* short result: no overflow possible (the result precision covers both operands) */
        const int64_t *restrict a = args[0]->data, *restrict b = args[1]->data;
        int64_t *restrict r = out->data;
        int64_t ma = pow10_i64(sa), mb = subtract ? -pow10_i64(sb) : pow10_i64(sb);
        for (uint32_t i = 0; i < count; i++) r[i] = a[i] * ma + b[i] * mb;
        return SQE_OK;
    }
    vec_view ua, ub;
    vec_view_init(&ua, args[0]);
    vec_view_init(&ub, args[1]);
    const int128 max = decimal_max_unscaled(tr.precision);
    FUNC_FOR_ROWS(sel, count, row) {
        int128 x, y, r;
        if (!scale_up(udec(&ua, ta, row), sa, &x) || !scale_up(udec(&ub, tb, row), sb, &y) ||
            (subtract ? __builtin_sub_overflow(x, y, &r) : __builtin_add_overflow(x, y, &r)) ||
            r > max || r < -max) {
            SQE_TRY(decimal_overflow(ctx, out, row));
            continue;
        }
        decimal_put(out->data, tr, row, r);
    }
    return SQE_OK;
}

static int dec_add(func_ctx *ctx, const vec *const *args, uint32_t n_args, const uint32_t *sel,
                   uint32_t count, vec *out) {
    return dec_addsub(ctx, args, sel, count, out, false);
}
static int dec_sub(func_ctx *ctx, const vec *const *args, uint32_t n_args, const uint32_t *sel,
                   uint32_t count, vec *out) {
    return dec_addsub(ctx, args, sel, count, out, true);
}

static int dec_mul(func_ctx *ctx, const vec *const *args, uint32_t n_args, const uint32_t *sel,
                   uint32_t count, vec *out) {
    sqe_type ta = args[0]->type, tb = args[1]->type, tr = out->type;
    if (!sel && !type_decimal_is_long(tr) && args[0]->shape == VEC_FLAT &&
        args[1]->shape == VEC_FLAT) {
        /* p1 + p2 <= 18: the product fits */
        const int64_t *restrict a = args[0]->data, *restrict b = args[1]->data;
        int64_t *restrict r = out->data;
        for (uint32_t i = 0; i < count; i++) r[i] = a[i] * b[i];
        return SQE_OK;
    }
    vec_view ua, ub;
    vec_view_init(&ua, args[0]);
    vec_view_init(&ub, args[1]);
    const int128 max = decimal_max_unscaled(tr.precision);
    if (!sel && !type_decimal_is_long(ta) && !type_decimal_is_long(tb) &&
        args[0]->shape == VEC_FLAT && args[1]->shape == VEC_FLAT) {
        /* short operands, long result (p1 + p2 > 18): an int64 x int64 product always fits */
        const int64_t *a = args[0]->data, *b = args[1]->data;
        int128 *r = out->data;
        uint32_t bad = 0;
        for (uint32_t i = 0; i < count; i++) {
            int128 v = (int128)a[i] * b[i];
            r[i] = v;
            bad |= (uint32_t)(v > max || v < -max);
        }
        if (!bad) return SQE_OK;
    }
    FUNC_FOR_ROWS(sel, count, row) {
        int128 r;
        if (__builtin_mul_overflow(udec(&ua, ta, row), udec(&ub, tb, row), &r) || r > max ||
            r < -max) {
            SQE_TRY(decimal_overflow(ctx, out, row));
            continue;
        }
        decimal_put(out->data, tr, row, r);
    }
    return SQE_OK;
}

static int dec_div(func_ctx *ctx, const vec *const *args, uint32_t n_args, const uint32_t *sel,
                   uint32_t count, vec *out) {
    sqe_type ta = args[0]->type, tb = args[1]->type, tr = out->type;
    int shift = tr.scale + tb.scale - ta.scale;
    const int128 max = decimal_max_unscaled(tr.precision);
    vec_view ua, ub;
    vec_view_init(&ua, args[0]);
    vec_view_init(&ub, args[1]);
    FUNC_FOR_ROWS(sel, count, row) {
        int128 x = udec(&ua, ta, row), y = udec(&ub, tb, row), r;
        if (y == 0) {
            SQE_TRY(func_row_error(ctx, out, row, SQE_ERR_DIVISION_BY_ZERO, "Division by zero"));
            continue;
        }
        bool ok = shift >= 0 ? decimal_div_round(x, y, shift, &r)
                             : decimal_div_round(x, y * decimal_pow10(-shift), 0, &r);
        if (!ok || r > max || r < -max) {
            SQE_TRY(decimal_overflow(ctx, out, row));
            continue;
        }
        decimal_put(out->data, tr, row, r);
    }
    return SQE_OK;
}

static int dec_mod(func_ctx *ctx, const vec *const *args, uint32_t n_args, const uint32_t *sel,
                   uint32_t count, vec *out) {
    sqe_type ta = args[0]->type, tb = args[1]->type, tr = out->type;
    int s = ta.scale > tb.scale ? ta.scale : tb.scale;
    vec_view ua, ub;
    vec_view_init(&ua, args[0]);
    vec_view_init(&ub, args[1]);
    FUNC_FOR_ROWS(sel, count, row) {
        int128 x, y, r;
        if (udec(&ub, tb, row) == 0) {
            SQE_TRY(func_row_error(ctx, out, row, SQE_ERR_DIVISION_BY_ZERO, "Division by zero"));
            continue;
        }
        if (!scale_up(udec(&ua, ta, row), s - ta.scale, &x) ||
            !scale_up(udec(&ub, tb, row), s - tb.scale, &y)) {
            SQE_TRY(decimal_overflow(ctx, out, row));
            continue;
        }
        r = x % y;
        if (tr.scale != s && !decimal_rescale(r, s, tr.scale, &r)) {
            SQE_TRY(decimal_overflow(ctx, out, row));
            continue;
        }
        decimal_put(out->data, tr, row, r);
    }
    return SQE_OK;
}

static int dec_neg(func_ctx *ctx, const vec *const *args, uint32_t n_args, const uint32_t *sel,
                   uint32_t count, vec *out) {
    sqe_type t = args[0]->type;
    vec_view ua;
    vec_view_init(&ua, args[0]);
    FUNC_FOR_ROWS(sel, count, row) decimal_put(out->data, out->type, row, -udec(&ua, t, row));
    return SQE_OK;
}

/* --- The table --------------------------------------------------------------------------- */

static int ret_arg1(const sqe_type *args, uint32_t n, sqe_type *ret, sqe_error *err) {
    *ret = args[1];
    return SQE_OK;
}

/* A time, timestamp or timestamp with time zone plus or minus a day-to-second interval has at
 * least millisecond precision, as in Trino: timestamp(0) + INTERVAL '1' SECOND is timestamp(3),
 * timestamp(6) stays timestamp(6). (Year-to-month intervals keep the precision.) */
static sqe_type at_least_millis(sqe_type t) {
    if (t.precision < 3) t.precision = 3;
    return t;
}
static int ret_ids_arg0(const sqe_type *args, uint32_t n, sqe_type *ret, sqe_error *err) {
    *ret = at_least_millis(args[0]);
    return SQE_OK;
}
static int ret_ids_arg1(const sqe_type *args, uint32_t n, sqe_type *ret, sqe_error *err) {
    *ret = at_least_millis(args[1]);
    return SQE_OK;
}

#define NP FUNC_NULL_PROPAGATES
#define ARITH(sfx, tname)                                                                          \
    {"$add", tname "," tname, tname, NULL, NULL, add_##sfx, NP, "addition"},                       \
    {"$subtract", tname "," tname, tname, NULL, NULL, sub_##sfx, NP, "subtraction"},               \
    {"$multiply", tname "," tname, tname, NULL, NULL, mul_##sfx, NP, "multiplication"},            \
    {"$divide", tname "," tname, tname, NULL, NULL, div_##sfx, NP, "division"},                    \
    {"$modulus", tname "," tname, tname, NULL, NULL, mod_##sfx, NP, "remainder"},                  \
    {"$negate", tname, tname, NULL, NULL, neg_##sfx, NP, "negation"}
#define TEMPORAL(name, args, ret, kernel)                                                          \
    {name, args, ret, NULL, NULL, func_op_##kernel, NP, NULL}
#define COMPARE(name, kernel, ret_fn, desc)                                                        \
    {name, "T,T", "?", ret_fn, NULL, kernel, NP, desc}

static const func_scalar_def operator_defs[] = {
    ARITH(i8, "tinyint"),
    ARITH(i16, "smallint"),
    ARITH(i32, "integer"),
    ARITH(i64, "bigint"),
    ARITH(f32, "real"),
    ARITH(f64, "double"),
    {"$add", "decimal,decimal", "?", ret_decimal_add, NULL, dec_add, NP, "decimal addition"},
    {"$subtract", "decimal,decimal", "?", ret_decimal_add, NULL, dec_sub, NP,
     "decimal subtraction"},
    {"$multiply", "decimal,decimal", "?", ret_decimal_mul, NULL, dec_mul, NP,
     "decimal multiplication"},
    {"$divide", "decimal,decimal", "?", ret_decimal_div, NULL, dec_div, NP,
     "decimal division (HALF_UP)"},
    {"$modulus", "decimal,decimal", "?", ret_decimal_mod, NULL, dec_mod, NP, "decimal remainder"},
    {"$negate", "decimal", "?", func_ret_same_as_arg0, NULL, dec_neg, NP, "decimal negation"},

    /* date/time/interval arithmetic */
    TEMPORAL("$add", "date,interval day to second", "date", date_plus_ids),
    TEMPORAL("$add", "interval day to second,date", "date", ids_plus_date),
    TEMPORAL("$add", "date,interval year to month", "date", date_plus_iym),
    TEMPORAL("$add", "interval year to month,date", "date", iym_plus_date),
    TEMPORAL("$subtract", "date,interval day to second", "date", date_minus_ids),
    TEMPORAL("$subtract", "date,interval year to month", "date", date_minus_iym),
    {"$add", "timestamp,interval day to second", "?", ret_ids_arg0, NULL,
     func_op_ts_plus_ids, NP, NULL},
    {"$add", "interval day to second,timestamp", "?", ret_ids_arg1, NULL, func_op_ids_plus_ts, NP,
     NULL},
    {"$add", "timestamp,interval year to month", "?", func_ret_same_as_arg0, NULL,
     func_op_ts_plus_iym, NP, NULL},
    {"$add", "interval year to month,timestamp", "?", ret_arg1, NULL, func_op_iym_plus_ts, NP, NULL},
    {"$subtract", "timestamp,interval day to second", "?", ret_ids_arg0, NULL,
     func_op_ts_minus_ids, NP, NULL},
    {"$subtract", "timestamp,interval year to month", "?", func_ret_same_as_arg0, NULL,
     func_op_ts_minus_iym, NP, NULL},
    {"$add", "timestamp with time zone,interval day to second", "?", ret_ids_arg0, NULL,
     func_op_tstz_plus_ids, NP, NULL},
    {"$add", "interval day to second,timestamp with time zone", "?", ret_ids_arg1, NULL,
     func_op_ids_plus_tstz, NP, NULL},
    {"$add", "timestamp with time zone,interval year to month", "?", func_ret_same_as_arg0, NULL,
     func_op_tstz_plus_iym, NP, NULL},
    {"$add", "interval year to month,timestamp with time zone", "?", ret_arg1, NULL,
     func_op_iym_plus_tstz, NP, NULL},
    {"$subtract", "timestamp with time zone,interval day to second", "?", ret_ids_arg0,
     NULL, func_op_tstz_minus_ids, NP, NULL},
    {"$subtract", "timestamp with time zone,interval year to month", "?", func_ret_same_as_arg0,
     NULL, func_op_tstz_minus_iym, NP, NULL},
    {"$add", "time,interval day to second", "?", ret_ids_arg0, NULL,
     func_op_time_plus_ids, NP, NULL},
    {"$add", "interval day to second,time", "?", ret_ids_arg1, NULL, func_op_ids_plus_time, NP,
     NULL},
    {"$subtract", "time,interval day to second", "?", ret_ids_arg0, NULL,
     func_op_time_minus_ids, NP, NULL},
    TEMPORAL("$add", "interval day to second,interval day to second", "interval day to second",
             ids_plus_ids),
    TEMPORAL("$add", "interval year to month,interval year to month", "interval year to month",
             iym_plus_iym),
    TEMPORAL("$subtract", "interval day to second,interval day to second",
             "interval day to second", ids_minus_ids),
    TEMPORAL("$subtract", "interval year to month,interval year to month",
             "interval year to month", iym_minus_iym),
    TEMPORAL("$subtract", "timestamp,timestamp", "interval day to second", ts_minus_ts),
    TEMPORAL("$subtract", "timestamp with time zone,timestamp with time zone",
             "interval day to second", tstz_minus_tstz),
    TEMPORAL("$subtract", "date,date", "interval day to second", date_minus_date),
    TEMPORAL("$subtract", "time,time", "interval day to second", time_minus_time),
    TEMPORAL("$multiply", "interval day to second,bigint", "interval day to second",
             ids_times_int),
    TEMPORAL("$multiply", "bigint,interval day to second", "interval day to second",
             int_times_ids),
    TEMPORAL("$multiply", "interval year to month,bigint", "interval year to month",
             iym_times_int),
    TEMPORAL("$multiply", "bigint,interval year to month", "interval year to month",
             int_times_iym),
    TEMPORAL("$multiply", "interval day to second,double", "interval day to second",
             ids_times_double),
    TEMPORAL("$multiply", "double,interval day to second", "interval day to second",
             double_times_ids),
    TEMPORAL("$multiply", "interval year to month,double", "interval year to month",
             iym_times_double),
    TEMPORAL("$multiply", "double,interval year to month", "interval year to month",
             double_times_iym),
    TEMPORAL("$divide", "interval day to second,bigint", "interval day to second", ids_div_int),
    TEMPORAL("$divide", "interval year to month,bigint", "interval year to month", iym_div_int),
    TEMPORAL("$divide", "interval day to second,double", "interval day to second",
             ids_div_double),
    TEMPORAL("$divide", "interval year to month,double", "interval year to month",
             iym_div_double),
    TEMPORAL("$negate", "interval day to second", "interval day to second", ids_negate),
    TEMPORAL("$negate", "interval year to month", "interval year to month", iym_negate),

    /* comparisons: T is the common super type of both sides (the binder casts them) */
    COMPARE("$eq", func_op_eq, func_ret_comparable, "equality"),
    COMPARE("$ne", func_op_ne, func_ret_comparable, "inequality"),
    COMPARE("$lt", func_op_lt, func_ret_orderable, "less than"),
    COMPARE("$le", func_op_le, func_ret_orderable, "less than or equal"),
    COMPARE("$gt", func_op_gt, func_ret_orderable, "greater than"),
    COMPARE("$ge", func_op_ge, func_ret_orderable, "greater than or equal"),
    {"$is_distinct_from", "T,T", "?", func_ret_comparable, NULL, func_op_distinct, 0,
     "null-safe inequality"},

    {"like", "varchar,varchar", "boolean", NULL, func_like_bind, func_like, NP,
     "SQL LIKE pattern match"},
    {"like", "varchar,varchar,varchar", "boolean", NULL, func_like_bind, func_like, NP,
     "SQL LIKE pattern match with an escape character"},
};

const func_scalar_def *func_scalar_family_operators(uint32_t *count) {
    *count = FUNC_N(operator_defs);
    return operator_defs;
}
