/*
 * scalar_math.c: the math family: abs, ceil/floor/round/truncate, sign, mod, roots, powers,
 * logarithms, trigonometry, constants, NaN/infinity tests, random numbers, width_bucket,
 * bitwise functions, base conversion and normal_cdf.
 *
 * INTERFACE: func_scalar_family_math.
 *
 * NOTES: semantics follow Trino's MathFunctions: double functions never fail (sqrt(-1) is NaN,
 * ln(0) is -Infinity); integer functions report overflow (abs(-128) on tinyint); decimal
 * rounding is HALF_UP and the result types are Trino's (round(decimal(p,s)) is
 * decimal(min(38, p-s+min(1,s)), 0), round(decimal(p,s), d) is decimal(min(38,p+1), s)).
 * round(double) rounds half away from zero. random() draws from a per-thread generator seeded
 * from the query's seed (func_random_*).
 */
#if defined(__GNUC__) && !defined(__clang__)
/* -O2 in GCC 12 only vectorizes loops that need no epilogue; abs/ceil/floor/trunc pay off. */
#pragma GCC optimize("tree-vectorize", "vect-cost-model=cheap")
#endif

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "func/scalar_kernel.h"
#include "types/decimal.h"

#define KERNEL(name)                                                                               \
    static int name(func_ctx *ctx, const vec *const *args, uint32_t n_args, const uint32_t *sel,   \
                    uint32_t count, vec *out)

/* --- double -> double ----------------------------------------------------------------------- */

#define DOUBLE_UNARY(fname, EXPR)                                                                  \
    KERNEL(fname) {                                                                                \
        double *r = out->data;                                                                     \
        if (!sel && args[0]->shape == VEC_FLAT) {                                                  \
            const double *a = args[0]->data;                                                       \
            for (uint32_t i = 0; i < count; i++) {                                                 \
                double x = a[i];                                                                   \
                r[i] = (EXPR);                                                                     \
            }                                                                                      \
            return SQE_OK;                                                                         \
        }                                                                                          \
        vec_view ua;                                                                               \
        vec_view_init(&ua, args[0]);                                                               \
        FUNC_FOR_ROWS(sel, count, row) {                                                           \
            double x = UVAL(&ua, double, row);                                                     \
            r[row] = (EXPR);                                                                       \
        }                                                                                          \
        return SQE_OK;                                                                             \
    }

#define DOUBLE_BINARY(fname, EXPR)                                                                 \
    KERNEL(fname) {                                                                                \
        double *r = out->data;                                                                     \
        vec_view ua, ub;                                                                           \
        vec_view_init(&ua, args[0]);                                                               \
        vec_view_init(&ub, args[1]);                                                               \
        FUNC_FOR_ROWS(sel, count, row) {                                                           \
            double x = UVAL(&ua, double, row), y = UVAL(&ub, double, row);                         \
            r[row] = (EXPR);                                                                       \
        }                                                                                          \
        return SQE_OK;                                                                             \
    }

#define REAL_UNARY(fname, EXPR)                                                                    \
    KERNEL(fname) {                                                                                \
        float *r = out->data;                                                                      \
        vec_view ua;                                                                               \
        vec_view_init(&ua, args[0]);                                                               \
        FUNC_FOR_ROWS(sel, count, row) {                                                           \
            float x = UVAL(&ua, float, row);                                                       \
            r[row] = (EXPR);                                                                       \
        }                                                                                          \
        return SQE_OK;                                                                             \
    }

/* Rounds x to d decimal places, half away from zero (Trino round(double, integer)). */
static double round_places(double x, int64_t d) {
    if (isnan(x) || isinf(x)) return x;
    if (d > 308) return x;
    if (d < -308) return 0.0 * x;
    double f = pow(10.0, (double)d), y = x * f;
    if (fabs(y) >= 0x1p52 || isinf(f)) return x; /* already integral at that scale */
    double r = round(y) / f;
    return isfinite(r) ? r : x;
}

static double trunc_places(double x, int64_t d) {
    if (isnan(x) || isinf(x)) return x;
    if (d > 308) return x;
    if (d < -308) return 0.0 * x;
    double f = pow(10.0, (double)d), y = x * f;
    if (fabs(y) >= 0x1p52 || isinf(f)) return x;
    return trunc(y) / f;
}

static double sign_d(double x) { return isnan(x) ? x : x > 0 ? 1.0 : x < 0 ? -1.0 : 0.0; }

DOUBLE_UNARY(abs_f64, fabs(x))
DOUBLE_UNARY(ceil_f64, ceil(x))
DOUBLE_UNARY(floor_f64, floor(x))
DOUBLE_UNARY(round_f64, round(x))
DOUBLE_UNARY(trunc_f64, trunc(x))
DOUBLE_UNARY(sign_f64, sign_d(x))
DOUBLE_UNARY(sqrt_f64, sqrt(x))
DOUBLE_UNARY(cbrt_f64, (double)cbrtl(x)) /* glibc cbrt is off by an ulp on exact cubes */
DOUBLE_UNARY(exp_f64, exp(x))
DOUBLE_UNARY(ln_f64, log(x))
DOUBLE_UNARY(log2_f64, log2(x))
DOUBLE_UNARY(log10_f64, log10(x))
DOUBLE_UNARY(degrees_f64, x * (180.0 / M_PI))
DOUBLE_UNARY(radians_f64, x * (M_PI / 180.0))
DOUBLE_UNARY(sin_f64, sin(x))
DOUBLE_UNARY(cos_f64, cos(x))
DOUBLE_UNARY(tan_f64, tan(x))
DOUBLE_UNARY(asin_f64, asin(x))
DOUBLE_UNARY(acos_f64, acos(x))
DOUBLE_UNARY(atan_f64, atan(x))
DOUBLE_UNARY(sinh_f64, sinh(x))
DOUBLE_UNARY(cosh_f64, cosh(x))
DOUBLE_UNARY(tanh_f64, tanh(x))
DOUBLE_BINARY(log_f64, log(y) / log(x))
DOUBLE_BINARY(pow_f64, pow(x, y))
DOUBLE_BINARY(atan2_f64, atan2(x, y))
DOUBLE_BINARY(mod_f64, fmod(x, y))
REAL_UNARY(abs_f32, fabsf(x))
REAL_UNARY(ceil_f32, ceilf(x))
REAL_UNARY(floor_f32, floorf(x))
REAL_UNARY(round_f32, roundf(x))
REAL_UNARY(trunc_f32, truncf(x))
REAL_UNARY(sign_f32, (float)sign_d(x))

KERNEL(mod_f32) {
    float *r = out->data;
    vec_view ua, ub;
    vec_view_init(&ua, args[0]);
    vec_view_init(&ub, args[1]);
    FUNC_FOR_ROWS(sel, count, row) r[row] = fmodf(UVAL(&ua, float, row), UVAL(&ub, float, row));
    return SQE_OK;
}

KERNEL(round_f64_d) {
    double *r = out->data;
    vec_view ua, ub;
    vec_view_init(&ua, args[0]);
    vec_view_init(&ub, args[1]);
    FUNC_FOR_ROWS(sel, count, row)
    r[row] = round_places(UVAL(&ua, double, row), uint_any(&ub, row));
    return SQE_OK;
}

KERNEL(round_f32_d) {
    float *r = out->data;
    vec_view ua, ub;
    vec_view_init(&ua, args[0]);
    vec_view_init(&ub, args[1]);
    FUNC_FOR_ROWS(sel, count, row)
    r[row] = (float)round_places(UVAL(&ua, float, row), uint_any(&ub, row));
    return SQE_OK;
}

KERNEL(trunc_f64_d) {
    double *r = out->data;
    vec_view ua, ub;
    vec_view_init(&ua, args[0]);
    vec_view_init(&ub, args[1]);
    FUNC_FOR_ROWS(sel, count, row)
    r[row] = trunc_places(UVAL(&ua, double, row), uint_any(&ub, row));
    return SQE_OK;
}

/* --- integers -------------------------------------------------------------------------------- */

#define INT_KERNELS(sfx, CT, tname)                                                                \
    KERNEL(abs_##sfx) {                                                                            \
        CT *r = out->data;                                                                         \
        vec_view ua;                                                                               \
        vec_view_init(&ua, args[0]);                                                               \
        const CT min_ = (CT)((uint64_t)1 << (sizeof(CT) * 8 - 1));                                 \
        FUNC_FOR_ROWS(sel, count, row) {                                                           \
            CT x = UVAL(&ua, CT, row);                                                             \
            if (x == min_) {                                                                       \
                SQE_TRY(func_row_error(ctx, out, row, SQE_ERR_NUMERIC_VALUE_OUT_OF_RANGE,          \
                                       "Value %" PRId64 " is out of range for abs(" tname ")",     \
                                       (int64_t)x));                                               \
                continue;                                                                          \
            }                                                                                      \
            r[row] = x < 0 ? (CT)-x : x;                                                           \
        }                                                                                          \
        return SQE_OK;                                                                             \
    }                                                                                              \
    KERNEL(sign_##sfx) {                                                                           \
        CT *r = out->data;                                                                         \
        vec_view ua;                                                                               \
        vec_view_init(&ua, args[0]);                                                               \
        FUNC_FOR_ROWS(sel, count, row) {                                                           \
            CT x = UVAL(&ua, CT, row);                                                             \
            r[row] = (CT)((x > 0) - (x < 0));                                                      \
        }                                                                                          \
        return SQE_OK;                                                                             \
    }                                                                                              \
    KERNEL(mod_##sfx) {                                                                            \
        CT *r = out->data;                                                                         \
        vec_view ua, ub;                                                                           \
        vec_view_init(&ua, args[0]);                                                               \
        vec_view_init(&ub, args[1]);                                                               \
        FUNC_FOR_ROWS(sel, count, row) {                                                           \
            CT x = UVAL(&ua, CT, row), y = UVAL(&ub, CT, row);                                     \
            if (y == 0) {                                                                          \
                SQE_TRY(func_row_error(ctx, out, row, SQE_ERR_DIVISION_BY_ZERO,                    \
                                       "Division by zero"));                                       \
                continue;                                                                          \
            }                                                                                      \
            r[row] = y == -1 ? 0 : (CT)(x % y);                                                    \
        }                                                                                          \
        return SQE_OK;                                                                             \
    }                                                                                              \
    KERNEL(round_##sfx##_d) {                                                                      \
        CT *r = out->data;                                                                         \
        vec_view ua, ub;                                                                           \
        vec_view_init(&ua, args[0]);                                                               \
        vec_view_init(&ub, args[1]);                                                               \
        FUNC_FOR_ROWS(sel, count, row) {                                                           \
            int64_t x = UVAL(&ua, CT, row), d = uint_any(&ub, row), v;                             \
            if (!round_integer(x, d, &v) || v != (CT)v) {                                          \
                SQE_TRY(func_row_error(ctx, out, row, SQE_ERR_NUMERIC_VALUE_OUT_OF_RANGE,          \
                                       "Value %" PRId64 " rounded to %" PRId64                     \
                                       " digits is out of range for " tname,                       \
                                       x, d));                                                     \
                continue;                                                                          \
            }                                                                                      \
            r[row] = (CT)v;                                                                        \
        }                                                                                          \
        return SQE_OK;                                                                             \
    }                                                                                              \
    KERNEL(trunc_##sfx##_d) {                                                                      \
        CT *r = out->data;                                                                         \
        vec_view ua, ub;                                                                           \
        vec_view_init(&ua, args[0]);                                                               \
        vec_view_init(&ub, args[1]);                                                               \
        FUNC_FOR_ROWS(sel, count, row) {                                                           \
            int64_t x = UVAL(&ua, CT, row), d = uint_any(&ub, row);                                \
            if (d >= 0) {                                                                          \
                r[row] = (CT)x;                                                                    \
            } else if (d < -18) {                                                                  \
                r[row] = 0;                                                                        \
            } else {                                                                               \
                int64_t f = (int64_t)decimal_pow10((int)-d);                                       \
                r[row] = (CT)(x / f * f);                                                          \
            }                                                                                      \
        }                                                                                          \
        return SQE_OK;                                                                             \
    }

/* round(x, d) for integers: d >= 0 keeps x; d < 0 rounds to 10^-d, half away from zero. */
static bool round_integer(int64_t x, int64_t d, int64_t *out) {
    if (d >= 0) {
        *out = x;
        return true;
    }
    if (d < -18) {
        *out = 0;
        return true;
    }
    int64_t f = (int64_t)decimal_pow10((int)-d);
    int64_t rem = x % f, base = x - rem;
    int64_t mag = rem < 0 ? -rem : rem;
    if (mag * 2 >= f) return !__builtin_add_overflow(base, x < 0 ? -f : f, out);
    *out = base;
    return true;
}

INT_KERNELS(i8, int8_t, "tinyint")
INT_KERNELS(i16, int16_t, "smallint")
INT_KERNELS(i32, int32_t, "integer")
INT_KERNELS(i64, int64_t, "bigint")

/* ceil/floor/round/truncate of an integer: the identity (the binder casts to the def's type). */
KERNEL(int_identity) {
    size_t w = type_physical_size(out->type);
    vec_view ua;
    vec_view_init(&ua, args[0]);
    FUNC_FOR_ROWS(sel, count, row)
    memcpy((char *)out->data + w * row, (const char *)ua.data + w * vec_view_index(&ua, row), w);
    return SQE_OK;
}

/* --- decimals -------------------------------------------------------------------------------- */

static int ret_dec_round0(const sqe_type *args, uint32_t n, sqe_type *ret, sqe_error *err) {
    int p = args[0].precision, s = args[0].scale;
    int rp = p - s + (s < 1 ? s : 1);
    *ret = type_decimal(rp > 38 ? 38 : rp < 1 ? 1 : rp, 0);
    return SQE_OK;
}
static int ret_dec_round_n(const sqe_type *args, uint32_t n, sqe_type *ret, sqe_error *err) {
    int p = args[0].precision + 1;
    *ret = type_decimal(p > 38 ? 38 : p, args[0].scale);
    return SQE_OK;
}
static int ret_dec_trunc0(const sqe_type *args, uint32_t n, sqe_type *ret, sqe_error *err) {
    int p = args[0].precision - args[0].scale;
    *ret = type_decimal(p < 1 ? 1 : p, 0);
    return SQE_OK;
}
static int ret_dec_sign(const sqe_type *args, uint32_t n, sqe_type *ret, sqe_error *err) {
    *ret = type_decimal(1, 0);
    return SQE_OK;
}
static int ret_dec_mod(const sqe_type *args, uint32_t n, sqe_type *ret, sqe_error *err) {
    *ret = decimal_mod_type(args[0], args[1]);
    return SQE_OK;
}

static int dec_overflow(func_ctx *ctx, vec *out, uint32_t row) {
    return func_row_error(ctx, out, row, SQE_ERR_NUMERIC_VALUE_OUT_OF_RANGE, "Decimal overflow");
}

KERNEL(abs_dec) {
    sqe_type t = args[0]->type;
    vec_view ua;
    vec_view_init(&ua, args[0]);
    FUNC_FOR_ROWS(sel, count, row) {
        int128 x = udec(&ua, t, row);
        decimal_put(out->data, out->type, row, x < 0 ? -x : x);
    }
    return SQE_OK;
}

KERNEL(sign_dec) {
    sqe_type t = args[0]->type;
    vec_view ua;
    vec_view_init(&ua, args[0]);
    FUNC_FOR_ROWS(sel, count, row) {
        int128 x = udec(&ua, t, row);
        decimal_put(out->data, out->type, row, (x > 0) - (x < 0));
    }
    return SQE_OK;
}

/* Integer part of x at scale s, rounded per mode: 'f' floor, 'c' ceiling, 't' truncate,
 * 'r' half away from zero. */
static int128 dec_to_integral(int128 x, int s, char mode) {
    if (s == 0) return x;
    int128 f = decimal_pow10(s), q = x / f, r = x % f;
    switch (mode) {
    case 'f': return r < 0 ? q - 1 : q;
    case 'c': return r > 0 ? q + 1 : q;
    case 'r': {
        int128 mag = r < 0 ? -r : r;
        if (mag * 2 >= f) q += x < 0 ? -1 : 1;
        return q;
    }
    default: return q;
    }
}

#define DEC_INTEGRAL(fname, mode)                                                                  \
    KERNEL(fname) {                                                                                \
        sqe_type t = args[0]->type;                                                                \
        vec_view ua;                                                                               \
        vec_view_init(&ua, args[0]);                                                               \
        FUNC_FOR_ROWS(sel, count, row) {                                                           \
            int128 v = dec_to_integral(udec(&ua, t, row), t.scale, mode);                          \
            if (!decimal_fits(v, out->type.precision)) {                                           \
                SQE_TRY(dec_overflow(ctx, out, row));                                              \
                continue;                                                                          \
            }                                                                                      \
            decimal_put(out->data, out->type, row, v);                                             \
        }                                                                                          \
        return SQE_OK;                                                                             \
    }
DEC_INTEGRAL(ceil_dec, 'c')
DEC_INTEGRAL(floor_dec, 'f')
DEC_INTEGRAL(round_dec, 'r')
DEC_INTEGRAL(trunc_dec, 't')

/* round/truncate(decimal(p,s), d): the value rounded at d fraction digits, still at scale s. */
static int dec_places(func_ctx *ctx, const vec *const *args, const uint32_t *sel, uint32_t count,
                      vec *out, bool round_half_up) {
    sqe_type t = args[0]->type;
    vec_view ua, ub;
    vec_view_init(&ua, args[0]);
    vec_view_init(&ub, args[1]);
    FUNC_FOR_ROWS(sel, count, row) {
        int128 x = udec(&ua, t, row), v;
        int64_t d = uint_any(&ub, row);
        int64_t drop = (int64_t)t.scale - d;
        if (drop <= 0) {
            v = x;
        } else if (drop > 38) {
            v = 0;
        } else {
            int128 f = decimal_pow10((int)drop), q = x / f, r = x % f;
            if (round_half_up) {
                int128 mag = r < 0 ? -r : r;
                if (mag * 2 >= f) q += x < 0 ? -1 : 1;
            }
            if (__builtin_mul_overflow(q, f, &v)) {
                SQE_TRY(dec_overflow(ctx, out, row));
                continue;
            }
        }
        if (!decimal_fits(v, out->type.precision)) {
            SQE_TRY(dec_overflow(ctx, out, row));
            continue;
        }
        decimal_put(out->data, out->type, row, v);
    }
    return SQE_OK;
}
KERNEL(round_dec_d) { return dec_places(ctx, args, sel, count, out, true); }
KERNEL(trunc_dec_d) { return dec_places(ctx, args, sel, count, out, false); }

KERNEL(mod_dec) {
    sqe_type ta = args[0]->type, tb = args[1]->type, tr = out->type;
    int s = ta.scale > tb.scale ? ta.scale : tb.scale;
    vec_view ua, ub;
    vec_view_init(&ua, args[0]);
    vec_view_init(&ub, args[1]);
    FUNC_FOR_ROWS(sel, count, row) {
        int128 x, y;
        if (udec(&ub, tb, row) == 0) {
            SQE_TRY(func_row_error(ctx, out, row, SQE_ERR_DIVISION_BY_ZERO, "Division by zero"));
            continue;
        }
        if (!decimal_rescale(udec(&ua, ta, row), ta.scale, s, &x) ||
            !decimal_rescale(udec(&ub, tb, row), tb.scale, s, &y)) {
            SQE_TRY(dec_overflow(ctx, out, row));
            continue;
        }
        int128 r = x % y;
        if (tr.scale != s && !decimal_rescale(r, s, tr.scale, &r)) {
            SQE_TRY(dec_overflow(ctx, out, row));
            continue;
        }
        decimal_put(out->data, tr, row, r);
    }
    return SQE_OK;
}

/* --- constants, NaN tests, random --------------------------------------------------------------- */

#define CONSTANT(fname, value)                                                                     \
    KERNEL(fname) {                                                                                \
        double *r = out->data;                                                                     \
        FUNC_FOR_ROWS(sel, count, row) r[row] = (value);                                           \
        return SQE_OK;                                                                             \
    }
CONSTANT(pi_fn, M_PI)
CONSTANT(e_fn, M_E)
CONSTANT(nan_fn, NAN)
CONSTANT(infinity_fn, INFINITY)

#define DOUBLE_TEST(fname, EXPR)                                                                   \
    KERNEL(fname) {                                                                                \
        uint8_t *r = out->data;                                                                    \
        vec_view ua;                                                                               \
        vec_view_init(&ua, args[0]);                                                               \
        FUNC_FOR_ROWS(sel, count, row) {                                                           \
            double x = UVAL(&ua, double, row);                                                     \
            r[row] = (uint8_t)(EXPR);                                                              \
        }                                                                                          \
        return SQE_OK;                                                                             \
    }
DOUBLE_TEST(is_nan_fn, isnan(x) != 0)
DOUBLE_TEST(is_finite_fn, isfinite(x) != 0)
DOUBLE_TEST(is_infinite_fn, isinf(x) != 0)

KERNEL(random_double) {
    double *r = out->data;
    FUNC_FOR_ROWS(sel, count, row) r[row] = func_random_double(ctx);
    return SQE_OK;
}

/* random(n) and random(m, n) for every integer type (values widened to int64). */
static void put_int(vec *out, uint32_t row, int64_t v) {
    switch (out->type.id) {
    case TYPE_TINYINT: VEC_DATA(out, int8_t)[row] = (int8_t)v; break;
    case TYPE_SMALLINT: VEC_DATA(out, int16_t)[row] = (int16_t)v; break;
    case TYPE_INTEGER: VEC_DATA(out, int32_t)[row] = (int32_t)v; break;
    default: VEC_DATA(out, int64_t)[row] = v; break;
    }
}

KERNEL(random_int) {
    vec_view ua, ub = {0};
    vec_view_init(&ua, args[0]);
    if (n_args > 1) vec_view_init(&ub, args[1]);
    FUNC_FOR_ROWS(sel, count, row) {
        int64_t lo = 0, hi = uint_any(&ua, row);
        if (n_args > 1) {
            lo = hi;
            hi = uint_any(&ub, row);
            if (lo >= hi) {
                SQE_TRY(func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                                       "start value must be less than stop value"));
                continue;
            }
        } else if (hi <= 0) {
            SQE_TRY(func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                                   "bound must be positive"));
            continue;
        }
        uint64_t span = (uint64_t)hi - (uint64_t)lo;
        put_int(out, row, (int64_t)((uint64_t)lo + func_random_below(ctx, span)));
    }
    return SQE_OK;
}

/* --- width_bucket ------------------------------------------------------------------------------ */

KERNEL(width_bucket_fn) {
    int64_t *r = out->data;
    vec_view ux, u1, u2, un;
    vec_view_init(&ux, args[0]);
    vec_view_init(&u1, args[1]);
    vec_view_init(&u2, args[2]);
    vec_view_init(&un, args[3]);
    FUNC_FOR_ROWS(sel, count, row) {
        double x = UVAL(&ux, double, row), b1 = UVAL(&u1, double, row), b2 = UVAL(&u2, double, row);
        int64_t n = UVAL(&un, int64_t, row);
        const char *msg = NULL;
        if (n <= 0) msg = "bucketCount must be greater than 0";
        else if (isnan(x)) msg = "operand must not be NaN";
        else if (!isfinite(b1)) msg = "first bound must be finite";
        else if (!isfinite(b2)) msg = "second bound must be finite";
        else if (b1 == b2) msg = "bounds cannot equal each other";
        if (msg) {
            SQE_TRY(func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT, "%s", msg));
            continue;
        }
        int64_t b;
        if (b1 < b2) {
            if (x < b1) b = 0;
            else if (x >= b2) b = n + 1;
            else b = (int64_t)((double)n * (x - b1) / (b2 - b1)) + 1;
        } else {
            if (x > b1) b = 0;
            else if (x <= b2) b = n + 1;
            else b = (int64_t)((double)n * (b1 - x) / (b1 - b2)) + 1;
        }
        if (b > n + 1) b = n + 1;
        r[row] = b;
    }
    return SQE_OK;
}

/* width_bucket(x, bins): the number of bins <= x (bins must be sorted ascending). */
KERNEL(width_bucket_bins) {
    int64_t *r = out->data;
    vec_view ux, ub;
    vec_view_init(&ux, args[0]);
    vec_view_init(&ub, args[1]);
    const vec *elems = ulist_elems(&ub);
    vec_view ue;
    vec_view_init(&ue, elems);
    FUNC_FOR_ROWS(sel, count, row) {
        double x = UVAL(&ux, double, row);
        sqe_list_entry e = ulist(&ub, row);
        uint32_t lo = 0, hi = e.length;
        bool bad = false;
        for (uint32_t i = 0; i < e.length; i++)
            if (!vec_view_valid(&ue, e.offset + i)) bad = true;
        if (bad) {
            SQE_TRY(func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                                   "Bin values cannot be NULL"));
            continue;
        }
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            if (x < UVAL(&ue, double, e.offset + mid)) hi = mid;
            else lo = mid + 1;
        }
        r[row] = lo;
    }
    return SQE_OK;
}

/* --- bitwise ---------------------------------------------------------------------------------- */

#define BITWISE(fname, EXPR)                                                                       \
    KERNEL(fname) {                                                                                \
        int64_t *r = out->data;                                                                    \
        vec_view ua, ub;                                                                           \
        vec_view_init(&ua, args[0]);                                                               \
        vec_view_init(&ub, args[1]);                                                               \
        FUNC_FOR_ROWS(sel, count, row) {                                                           \
            int64_t x = UVAL(&ua, int64_t, row), y = UVAL(&ub, int64_t, row);                      \
            r[row] = (EXPR);                                                                       \
        }                                                                                          \
        return SQE_OK;                                                                             \
    }
BITWISE(bitwise_and_fn, x & y)
BITWISE(bitwise_or_fn, x | y)
BITWISE(bitwise_xor_fn, x ^ y)
BITWISE(shift_left_fn, (y < 0 || y >= 64) ? 0 : (int64_t)((uint64_t)x << y))
BITWISE(shift_right_fn, (y < 0 || y >= 64) ? 0 : (int64_t)((uint64_t)x >> y))
BITWISE(shift_right_arith_fn, (y < 0 || y >= 64) ? (x < 0 ? -1 : 0) : x >> y)

KERNEL(bitwise_not_fn) {
    int64_t *r = out->data;
    vec_view ua;
    vec_view_init(&ua, args[0]);
    FUNC_FOR_ROWS(sel, count, row) r[row] = ~UVAL(&ua, int64_t, row);
    return SQE_OK;
}

KERNEL(bit_count_fn) {
    int64_t *r = out->data;
    vec_view ua, ub;
    vec_view_init(&ua, args[0]);
    vec_view_init(&ub, args[1]);
    FUNC_FOR_ROWS(sel, count, row) {
        int64_t x = UVAL(&ua, int64_t, row), bits = UVAL(&ub, int64_t, row);
        if (bits < 2 || bits > 64) {
            SQE_TRY(func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                                   "Bits specified in bit_count must be between 2 and 64, got "
                                   "%" PRId64,
                                   bits));
            continue;
        }
        if (bits < 64) {
            int64_t lo = -((int64_t)1 << (bits - 1)), hi = ((int64_t)1 << (bits - 1)) - 1;
            if (x < lo || x > hi) {
                SQE_TRY(func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                                       "Number must be representable with the bits specified. "
                                       "%" PRId64 " can not be represented with %" PRId64 " bits",
                                       x, bits));
                continue;
            }
        }
        uint64_t mask = bits == 64 ? UINT64_MAX : (((uint64_t)1 << bits) - 1);
        r[row] = __builtin_popcountll((uint64_t)x & mask);
    }
    return SQE_OK;
}

/* --- base conversion -------------------------------------------------------------------------- */

KERNEL(from_base_fn) {
    int64_t *r = out->data;
    vec_view us, ub;
    vec_view_init(&us, args[0]);
    vec_view_init(&ub, args[1]);
    FUNC_FOR_ROWS(sel, count, row) {
        const sqe_str *s = ustr(&us, row);
        int64_t radix = UVAL(&ub, int64_t, row);
        if (radix < 2 || radix > 36) {
            SQE_TRY(func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                                   "Radix must be between 2 and 36"));
            continue;
        }
        const char *p = sqe_str_data(s);
        uint32_t i = 0, n = s->len;
        bool neg = false, ok = n > 0;
        if (ok && (p[0] == '-' || p[0] == '+')) {
            neg = p[0] == '-';
            i = 1;
            ok = n > 1;
        }
        uint64_t acc = 0, limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
        for (; ok && i < n; i++) {
            char c = p[i];
            int dv = c >= '0' && c <= '9'   ? c - '0'
                     : c >= 'a' && c <= 'z' ? c - 'a' + 10
                     : c >= 'A' && c <= 'Z' ? c - 'A' + 10
                                            : 99;
            if (dv >= radix || acc > (limit - (uint64_t)dv) / (uint64_t)radix) ok = false;
            else acc = acc * (uint64_t)radix + (uint64_t)dv;
        }
        if (!ok) {
            SQE_TRY(func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                                   "Not a valid base-%" PRId64 " number: %.*s", radix,
                                   (int)(n > 100 ? 100 : n), p));
            continue;
        }
        r[row] = neg ? (int64_t)(0 - acc) : (int64_t)acc;
    }
    return SQE_OK;
}

KERNEL(to_base_fn) {
    vec_view ua, ub;
    vec_view_init(&ua, args[0]);
    vec_view_init(&ub, args[1]);
    FUNC_FOR_ROWS(sel, count, row) {
        int64_t x = UVAL(&ua, int64_t, row), radix = UVAL(&ub, int64_t, row);
        if (radix < 2 || radix > 36) {
            SQE_TRY(func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                                   "Radix must be between 2 and 36"));
            continue;
        }
        char buf[72];
        int pos = (int)sizeof buf;
        uint64_t mag = x < 0 ? 0 - (uint64_t)x : (uint64_t)x;
        do {
            buf[--pos] = "0123456789abcdefghijklmnopqrstuvwxyz"[mag % (uint64_t)radix];
            mag /= (uint64_t)radix;
        } while (mag);
        if (x < 0) buf[--pos] = '-';
        SQE_TRY(func_out_str(ctx, out, row, buf + pos, sizeof buf - (size_t)pos));
    }
    return SQE_OK;
}

/* normal_cdf(mean, sd, v) */
KERNEL(normal_cdf_fn) {
    double *r = out->data;
    vec_view um, us, uv;
    vec_view_init(&um, args[0]);
    vec_view_init(&us, args[1]);
    vec_view_init(&uv, args[2]);
    FUNC_FOR_ROWS(sel, count, row) {
        double m = UVAL(&um, double, row), sd = UVAL(&us, double, row), v = UVAL(&uv, double, row);
        if (!(sd > 0)) {
            SQE_TRY(func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                                   "standardDeviation must be > 0"));
            continue;
        }
        r[row] = 0.5 * erfc(-(v - m) / (sd * M_SQRT2));
    }
    return SQE_OK;
}

/* --- The table ------------------------------------------------------------------------------ */

#define NP FUNC_NULL_PROPAGATES
#define D1(name, kernel, desc) {name, "double", "double", NULL, NULL, kernel, NP, desc}
#define D2(name, kernel, desc) {name, "double,double", "double", NULL, NULL, kernel, NP, desc}
#define INTS(name, sfx_kernel, desc)                                                               \
    {name, "tinyint", "tinyint", NULL, NULL, sfx_kernel##_i8, NP, desc},                           \
    {name, "smallint", "smallint", NULL, NULL, sfx_kernel##_i16, NP, desc},                        \
    {name, "integer", "integer", NULL, NULL, sfx_kernel##_i32, NP, desc},                          \
    {name, "bigint", "bigint", NULL, NULL, sfx_kernel##_i64, NP, desc}
#define INTS_IDENTITY(name, desc)                                                                  \
    {name, "tinyint", "tinyint", NULL, NULL, int_identity, NP, desc},                              \
    {name, "smallint", "smallint", NULL, NULL, int_identity, NP, desc},                            \
    {name, "integer", "integer", NULL, NULL, int_identity, NP, desc},                              \
    {name, "bigint", "bigint", NULL, NULL, int_identity, NP, desc}
#define INTS_D(name, sfx_kernel, desc)                                                             \
    {name, "tinyint,integer", "tinyint", NULL, NULL, sfx_kernel##_i8_d, NP, desc},                 \
    {name, "smallint,integer", "smallint", NULL, NULL, sfx_kernel##_i16_d, NP, desc},              \
    {name, "integer,integer", "integer", NULL, NULL, sfx_kernel##_i32_d, NP, desc},                \
    {name, "bigint,integer", "bigint", NULL, NULL, sfx_kernel##_i64_d, NP, desc}
#define ROUNDING(name, fkernel, dkernel, desc)                                                     \
    INTS_IDENTITY(name, desc), {name, "real", "real", NULL, NULL, fkernel##_f32, NP, desc},        \
        {name, "double", "double", NULL, NULL, fkernel##_f64, NP, desc},                           \
        {name, "decimal", "?", ret_dec_round0, NULL, dkernel, NP, desc}

static const func_scalar_def math_defs[] = {
    INTS("abs", abs, "absolute value"),
    {"abs", "real", "real", NULL, NULL, abs_f32, NP, "absolute value"},
    {"abs", "double", "double", NULL, NULL, abs_f64, NP, "absolute value"},
    {"abs", "decimal", "?", func_ret_same_as_arg0, NULL, abs_dec, NP, "absolute value"},
    ROUNDING("ceil", ceil, ceil_dec, "smallest integral value not less than x"),
    ROUNDING("ceiling", ceil, ceil_dec, "smallest integral value not less than x"),
    ROUNDING("floor", floor, floor_dec, "largest integral value not greater than x"),
    ROUNDING("round", round, round_dec, "x rounded to the nearest integer (half away from zero)"),
    INTS_D("round", round, "x rounded to d decimal places"),
    {"round", "real,integer", "real", NULL, NULL, round_f32_d, NP, "x rounded to d decimal places"},
    {"round", "double,integer", "double", NULL, NULL, round_f64_d, NP,
     "x rounded to d decimal places"},
    {"round", "decimal,integer", "?", ret_dec_round_n, NULL, round_dec_d, NP,
     "x rounded to d decimal places (HALF_UP)"},
    INTS_IDENTITY("truncate", "x with its fraction removed"),
    {"truncate", "real", "real", NULL, NULL, trunc_f32, NP, "x with its fraction removed"},
    {"truncate", "double", "double", NULL, NULL, trunc_f64, NP, "x with its fraction removed"},
    {"truncate", "decimal", "?", ret_dec_trunc0, NULL, trunc_dec, NP,
     "x with its fraction removed"},
    INTS_D("truncate", trunc, "x truncated to n decimal places"),
    {"truncate", "double,integer", "double", NULL, NULL, trunc_f64_d, NP,
     "x truncated to n decimal places"},
    {"truncate", "decimal,integer", "?", func_ret_same_as_arg0, NULL, trunc_dec_d, NP,
     "x truncated to n decimal places"},
    INTS("sign", sign, "signum of x"),
    {"sign", "real", "real", NULL, NULL, sign_f32, NP, "signum of x"},
    {"sign", "double", "double", NULL, NULL, sign_f64, NP, "signum of x"},
    {"sign", "decimal", "?", ret_dec_sign, NULL, sign_dec, NP, "signum of x"},
    {"mod", "tinyint,tinyint", "tinyint", NULL, NULL, mod_i8, NP, "remainder of n / m"},
    {"mod", "smallint,smallint", "smallint", NULL, NULL, mod_i16, NP, "remainder of n / m"},
    {"mod", "integer,integer", "integer", NULL, NULL, mod_i32, NP, "remainder of n / m"},
    {"mod", "bigint,bigint", "bigint", NULL, NULL, mod_i64, NP, "remainder of n / m"},
    {"mod", "real,real", "real", NULL, NULL, mod_f32, NP, "remainder of n / m"},
    {"mod", "double,double", "double", NULL, NULL, mod_f64, NP, "remainder of n / m"},
    {"mod", "decimal,decimal", "?", ret_dec_mod, NULL, mod_dec, NP, "remainder of n / m"},
    D1("sqrt", sqrt_f64, "square root"),
    D1("cbrt", cbrt_f64, "cube root"),
    D1("exp", exp_f64, "Euler's number raised to x"),
    D1("ln", ln_f64, "natural logarithm"),
    D1("log2", log2_f64, "base 2 logarithm"),
    D1("log10", log10_f64, "base 10 logarithm"),
    D2("log", log_f64, "base b logarithm of x"),
    D2("pow", pow_f64, "x raised to the power of p"),
    D2("power", pow_f64, "x raised to the power of p"),
    D1("degrees", degrees_f64, "radians converted to degrees"),
    D1("radians", radians_f64, "degrees converted to radians"),
    D1("sin", sin_f64, "sine"),
    D1("cos", cos_f64, "cosine"),
    D1("tan", tan_f64, "tangent"),
    D1("asin", asin_f64, "arc sine"),
    D1("acos", acos_f64, "arc cosine"),
    D1("atan", atan_f64, "arc tangent"),
    D2("atan2", atan2_f64, "arc tangent of y / x"),
    D1("sinh", sinh_f64, "hyperbolic sine"),
    D1("cosh", cosh_f64, "hyperbolic cosine"),
    D1("tanh", tanh_f64, "hyperbolic tangent"),
    {"pi", "", "double", NULL, NULL, pi_fn, 0, "the constant pi"},
    {"e", "", "double", NULL, NULL, e_fn, 0, "Euler's number"},
    {"nan", "", "double", NULL, NULL, nan_fn, 0, "not-a-number"},
    {"infinity", "", "double", NULL, NULL, infinity_fn, 0, "positive infinity"},
    {"is_nan", "double", "boolean", NULL, NULL, is_nan_fn, NP, "is x not-a-number"},
    {"is_finite", "double", "boolean", NULL, NULL, is_finite_fn, NP, "is x finite"},
    {"is_infinite", "double", "boolean", NULL, NULL, is_infinite_fn, NP, "is x infinite"},
    {"random", "", "double", NULL, NULL, random_double, FUNC_VOLATILE,
     "pseudo-random value in [0, 1)"},
    {"rand", "", "double", NULL, NULL, random_double, FUNC_VOLATILE,
     "pseudo-random value in [0, 1)"},
#define RANDOM_INT(name, t)                                                                        \
    {name, t, t, NULL, NULL, random_int, NP | FUNC_VOLATILE, "pseudo-random value in [0, n)"},     \
    {name, t "," t, t, NULL, NULL, random_int, NP | FUNC_VOLATILE,                                 \
     "pseudo-random value in [m, n)"}
    RANDOM_INT("random", "tinyint"),
    RANDOM_INT("random", "smallint"),
    RANDOM_INT("random", "integer"),
    RANDOM_INT("random", "bigint"),
    RANDOM_INT("rand", "tinyint"),
    RANDOM_INT("rand", "smallint"),
    RANDOM_INT("rand", "integer"),
    RANDOM_INT("rand", "bigint"),
    {"width_bucket", "double,double,double,bigint", "bigint", NULL, NULL, width_bucket_fn, NP,
     "bucket of x in an equi-width histogram"},
    {"width_bucket", "double,array(double)", "bigint", NULL, NULL, width_bucket_bins, NP,
     "bucket of x among sorted bins"},
    {"bitwise_and", "bigint,bigint", "bigint", NULL, NULL, bitwise_and_fn, NP, "bitwise AND"},
    {"bitwise_or", "bigint,bigint", "bigint", NULL, NULL, bitwise_or_fn, NP, "bitwise OR"},
    {"bitwise_xor", "bigint,bigint", "bigint", NULL, NULL, bitwise_xor_fn, NP, "bitwise XOR"},
    {"bitwise_not", "bigint", "bigint", NULL, NULL, bitwise_not_fn, NP, "bitwise NOT"},
    {"bitwise_left_shift", "bigint,bigint", "bigint", NULL, NULL, shift_left_fn, NP,
     "left shift"},
    {"bitwise_right_shift", "bigint,bigint", "bigint", NULL, NULL, shift_right_fn, NP,
     "logical right shift"},
    {"bitwise_right_shift_arithmetic", "bigint,bigint", "bigint", NULL, NULL,
     shift_right_arith_fn, NP, "arithmetic right shift"},
    {"bit_count", "bigint,bigint", "bigint", NULL, NULL, bit_count_fn, NP,
     "number of set bits of x as a bits-bit two's complement integer"},
    {"from_base", "varchar,bigint", "bigint", NULL, NULL, from_base_fn, NP,
     "the value of a base-radix string"},
    {"to_base", "bigint,bigint", "varchar", NULL, NULL, to_base_fn, NP,
     "base-radix text of x"},
    {"normal_cdf", "double,double,double", "double", NULL, NULL, normal_cdf_fn, NP,
     "normal cumulative distribution function"},
};

const func_scalar_def *func_scalar_family_math(uint32_t *count) {
    *count = FUNC_N(math_defs);
    return math_defs;
}
