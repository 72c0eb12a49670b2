/*
 * agg_basic.c: the everyday aggregates: count, count_if, sum, avg, min, max, min_by, max_by,
 * arbitrary/any_value, bool_and/every, bool_or, bitwise_{and,or,xor}_agg, geometric_mean,
 * checksum.
 *
 * Each update kernel views its argument vectors once, switches once per batch on the
 * physical class of the input (agg_phys), and runs a loop generated for that class. When every
 * selected row shares one state (ungrouped aggregation, or a batch of one group) the loop
 * accumulates in locals and touches the state once at the end.
 *
 * INTERFACE: func_agg_family_basic.
 * NOTES:
 *  - Integer sums (and interval sums) accumulate in int128, which cannot overflow for any
 *    realistic row count; the range of the result type is checked at finalize, so the result
 *    never depends on the order of the rows ("bigint addition overflow" as in Trino).
 *  - Decimal sums accumulate in 192 bits (int128 low part with carries into an int64 high
 *    part), so even sums of decimal(38) values are exact; finalize checks decimal(38) range,
 *    and avg(decimal(p,s)) divides the 192-bit sum by the count with HALF_UP rounding.
 *  - avg(integer types) and avg(interval) keep the exact int128 sum; avg(real/double) and
 *    sum(real/double) accumulate in double, as Trino does.
 *  - min/max/min_by/max_by order floating point with NaN above every number, and timestamps
 *    with time zone by instant. Strings are copied into state-owned memory only when they
 *    become the new extreme (for the one-state path: once per batch).
 *  - Empty input (or only NULLs): count and count_if give 0, everything else NULL; checksum
 *    counts NULL rows as input, as Trino does.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "common/err.h"
#include "common/hash.h"
#include "func/agg_value.h"
#include "func/func.h"
#include "types/decimal.h"
#include "types/types.h"
#include "vec/vec.h"

static int unsupported(func_ctx *ctx, const char *fn, sqe_type t) {
    char name[128];
    type_format(t, name, sizeof name);
    return err_set(ctx->err, SQE_ERR_GENERIC_INTERNAL_ERROR, "%s: unsupported argument type %s", fn, name);
}

/* Return types computed from the arguments. */
static int ret_arg0(const sqe_type *args, uint32_t n_args, sqe_type *ret, sqe_error *err) {
    if (n_args < 1) return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "missing argument");
    *ret = args[0];
    return SQE_OK;
}

static int ret_sum_decimal(const sqe_type *args, uint32_t n_args, sqe_type *ret, sqe_error *err) {
    if (n_args < 1 || args[0].id != TYPE_DECIMAL)
        return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "sum: decimal argument expected");
    *ret = type_decimal(38, args[0].scale);
    return SQE_OK;
}

/* Writes an int64 result. */
static void put_i64(vec *out, uint32_t row, int64_t v) {
    VEC_DATA(out, int64_t)[row] = v;
    vec_set_valid(out, row);
}

/* ---- count(*), count(x), count_if(b) ------------------------------------------------------- */

typedef struct count_state {
    int64_t n;
} count_state;

AGG_ZERO_INIT(count_init, count_state)

static int count_star_update(func_ctx *ctx, const vec *const *args, uint32_t n_args,
                             const uint32_t *sel, uint32_t count, uint8_t **states) {
    uint8_t *one = agg_uniform_state(sel, count, states);
    if (one) {
        ((count_state *)one)->n += count;
        return SQE_OK;
    }
    FUNC_FOR_ROWS(sel, count, row) { ((count_state *)states[row])->n++; }
    return SQE_OK;
}

static int count_update(func_ctx *ctx, const vec *const *args, uint32_t n_args,
                        const uint32_t *sel, uint32_t count, uint8_t **states) {
    vec_view u;
    vec_view_init(&u, args[0]);
    if (!u.validity) return count_star_update(ctx, args, n_args, sel, count, states);
    uint8_t *one = agg_uniform_state(sel, count, states);
    if (one) {
        int64_t n = 0;
        if (!sel && vec_view_is_flat(&u)) {
            /* Rows 0..count-1: count the validity bits. */
            uint32_t full = count / 64, rest = count % 64;
            for (uint32_t w = 0; w < full; w++) n += __builtin_popcountll(u.validity[w]);
            if (rest) n += __builtin_popcountll(u.validity[full] & (((uint64_t)1 << rest) - 1));
        } else {
            FUNC_FOR_ROWS(sel, count, row) { n += agg_valid_at(&u, vec_view_index(&u, row)); }
        }
        ((count_state *)one)->n += n;
        return SQE_OK;
    }
    FUNC_FOR_ROWS(sel, count, row) {
        ((count_state *)states[row])->n += agg_valid_at(&u, vec_view_index(&u, row));
    }
    return SQE_OK;
}

static int count_if_update(func_ctx *ctx, const vec *const *args, uint32_t n_args,
                           const uint32_t *sel, uint32_t count, uint8_t **states) {
    vec_view u;
    vec_view_init(&u, args[0]);
    const uint8_t *vals = (const uint8_t *)u.data;
    uint8_t *one = agg_uniform_state(sel, count, states);
    if (one) {
        int64_t n = 0;
        if (agg_dense(&u, sel)) {
            for (uint32_t r = 0; r < count; r++) n += vals[r] != 0;
        } else {
            FUNC_FOR_ROWS(sel, count, row) {
                uint32_t i = vec_view_index(&u, row);
                n += agg_valid_at(&u, i) && vals[i];
            }
        }
        ((count_state *)one)->n += n;
        return SQE_OK;
    }
    FUNC_FOR_ROWS(sel, count, row) {
        uint32_t i = vec_view_index(&u, row);
        ((count_state *)states[row])->n += agg_valid_at(&u, i) && vals[i];
    }
    return SQE_OK;
}

static int count_combine(func_ctx *ctx, const uint8_t *src, uint8_t *dst) {
    ((count_state *)dst)->n += ((const count_state *)src)->n;
    return SQE_OK;
}

static int count_finalize(func_ctx *ctx, const uint8_t *state, vec *out, uint32_t row) {
    put_i64(out, row, ((const count_state *)state)->n);
    return SQE_OK;
}

/* ---- sum and avg --------------------------------------------------------------------------- */

typedef struct sum_state {
    union {
        int128 i;            /* integers and intervals */
        unsigned __int128 u; /* decimals: low 128 bits of the 192-bit sum */
        double d;            /* real and double */
    } acc;
    int64_t hi; /* decimals: high 64 bits of the 192-bit two's complement sum */
    int64_t n;  /* non-NULL inputs */
} sum_state;

AGG_ZERO_INIT(sum_init, sum_state)

/* Adds a signed 128-bit value to the 192-bit sum (lo, hi). */
#define ADD192(lo, hi, v)                                                                          \
    do {                                                                                           \
        unsigned __int128 add192_old_ = (lo);                                                      \
        (lo) = add192_old_ + (unsigned __int128)(int128)(v);                                       \
        (hi) += (int64_t)((lo) < add192_old_) - (int64_t)((v) < 0);                                \
    } while (0)

/* One accumulation loop: `ACC` is the local accumulator type of the one-state path, FIELD the
 * state member, ADD(acc, x) folds a value in. */
#define SUM_LOOP(T, ACC, FIELD)                                                                    \
    do {                                                                                           \
        const T *vals = (const T *)u.data;                                                         \
        if (one) {                                                                                 \
            ACC acc = 0;                                                                           \
            int64_t n = 0;                                                                         \
            if (agg_dense(&u, sel)) {                                                              \
                for (uint32_t r = 0; r < count; r++) acc += vals[r];                               \
                n = count;                                                                         \
            } else {                                                                               \
                FUNC_FOR_ROWS(sel, count, row) {                                                   \
                    uint32_t i = vec_view_index(&u, row);                                          \
                    if (!agg_valid_at(&u, i)) continue;                                            \
                    acc += vals[i];                                                                \
                    n++;                                                                           \
                }                                                                                  \
            }                                                                                      \
            ((sum_state *)one)->acc.FIELD += acc;                                                  \
            ((sum_state *)one)->n += n;                                                            \
        } else {                                                                                   \
            FUNC_FOR_ROWS(sel, count, row) {                                                       \
                uint32_t i = vec_view_index(&u, row);                                              \
                if (!agg_valid_at(&u, i)) continue;                                                \
                sum_state *s = (sum_state *)states[row];                                           \
                s->acc.FIELD += vals[i];                                                           \
                s->n++;                                                                            \
            }                                                                                      \
        }                                                                                          \
    } while (0)

static int sum_int_update(func_ctx *ctx, const vec *const *args, uint32_t n_args,
                          const uint32_t *sel, uint32_t count, uint8_t **states) {
    vec_view u;
    vec_view_init(&u, args[0]);
    uint8_t *one = agg_uniform_state(sel, count, states);
    switch (agg_phys_of(args[0]->type)) {
    case AGG_P_I8: SUM_LOOP(int8_t, int64_t, i); break;
    case AGG_P_I16: SUM_LOOP(int16_t, int64_t, i); break;
    case AGG_P_I32: SUM_LOOP(int32_t, int64_t, i); break;
    case AGG_P_I64: SUM_LOOP(int64_t, int128, i); break;
    default: return unsupported(ctx, "sum", args[0]->type);
    }
    return SQE_OK;
}

static int sum_dbl_update(func_ctx *ctx, const vec *const *args, uint32_t n_args,
                          const uint32_t *sel, uint32_t count, uint8_t **states) {
    vec_view u;
    vec_view_init(&u, args[0]);
    uint8_t *one = agg_uniform_state(sel, count, states);
    switch (agg_phys_of(args[0]->type)) {
    case AGG_P_F32: SUM_LOOP(float, double, d); break;
    case AGG_P_F64: SUM_LOOP(double, double, d); break;
    default: return unsupported(ctx, "sum", args[0]->type);
    }
    return SQE_OK;
}

static int sum_dec_update(func_ctx *ctx, const vec *const *args, uint32_t n_args,
                          const uint32_t *sel, uint32_t count, uint8_t **states) {
    vec_view u;
    vec_view_init(&u, args[0]);
    uint8_t *one = agg_uniform_state(sel, count, states);
    agg_phys cls = agg_phys_of(args[0]->type);
    if (args[0]->type.id != TYPE_DECIMAL) return unsupported(ctx, "sum", args[0]->type);
    if (cls == AGG_P_I64) {
        /* Short decimals: |v| < 10^18, so a batch of up to 2^32 rows fits an int128. */
        const int64_t *vals = (const int64_t *)u.data;
        if (one) {
            int128 acc = 0;
            int64_t n = 0;
            if (agg_dense(&u, sel)) {
                for (uint32_t r = 0; r < count; r++) acc += vals[r];
                n = count;
            } else {
                FUNC_FOR_ROWS(sel, count, row) {
                    uint32_t i = vec_view_index(&u, row);
                    if (!agg_valid_at(&u, i)) continue;
                    acc += vals[i];
                    n++;
                }
            }
            sum_state *s = (sum_state *)one;
            ADD192(s->acc.u, s->hi, acc);
            s->n += n;
            return SQE_OK;
        }
        FUNC_FOR_ROWS(sel, count, row) {
            uint32_t i = vec_view_index(&u, row);
            if (!agg_valid_at(&u, i)) continue;
            sum_state *s = (sum_state *)states[row];
            ADD192(s->acc.u, s->hi, (int128)vals[i]);
            s->n++;
        }
        return SQE_OK;
    }
    const int128 *vals = (const int128 *)u.data;
    if (one) {
        sum_state *s = (sum_state *)one;
        unsigned __int128 lo = s->acc.u;
        int64_t hi = s->hi, n = 0;
        FUNC_FOR_ROWS(sel, count, row) {
            uint32_t i = vec_view_index(&u, row);
            if (!agg_valid_at(&u, i)) continue;
            ADD192(lo, hi, vals[i]);
            n++;
        }
        s->acc.u = lo;
        s->hi = hi;
        s->n += n;
        return SQE_OK;
    }
    FUNC_FOR_ROWS(sel, count, row) {
        uint32_t i = vec_view_index(&u, row);
        if (!agg_valid_at(&u, i)) continue;
        sum_state *s = (sum_state *)states[row];
        ADD192(s->acc.u, s->hi, vals[i]);
        s->n++;
    }
    return SQE_OK;
}

static int sum_int_combine(func_ctx *ctx, const uint8_t *src, uint8_t *dst) {
    const sum_state *a = (const sum_state *)src;
    sum_state *d = (sum_state *)dst;
    d->acc.i += a->acc.i;
    d->n += a->n;
    return SQE_OK;
}

static int sum_dbl_combine(func_ctx *ctx, const uint8_t *src, uint8_t *dst) {
    const sum_state *a = (const sum_state *)src;
    sum_state *d = (sum_state *)dst;
    d->acc.d += a->acc.d;
    d->n += a->n;
    return SQE_OK;
}

static int sum_dec_combine(func_ctx *ctx, const uint8_t *src, uint8_t *dst) {
    const sum_state *a = (const sum_state *)src;
    sum_state *d = (sum_state *)dst;
    unsigned __int128 old = d->acc.u;
    d->acc.u = old + a->acc.u;
    d->hi += a->hi + (int64_t)(d->acc.u < old);
    d->n += a->n;
    return SQE_OK;
}

/* Finalize of integer and interval sums: checks the range of the result type. */
static int sum_int_finalize(func_ctx *ctx, const uint8_t *state, vec *out, uint32_t row) {
    const sum_state *s = (const sum_state *)state;
    if (s->n == 0) return agg_set_null(ctx, out, row);
    int128 v = s->acc.i;
    if (out->type.id == TYPE_INTERVAL_YM) {
        if (v > INT32_MAX || v < INT32_MIN)
            return err_set(ctx->err, SQE_ERR_NUMERIC_VALUE_OUT_OF_RANGE, "interval addition overflow");
        VEC_DATA(out, int32_t)[row] = (int32_t)v;
        vec_set_valid(out, row);
        return SQE_OK;
    }
    if (v > INT64_MAX || v < INT64_MIN) {
        if (out->type.id == TYPE_INTERVAL_DS)
            return err_set(ctx->err, SQE_ERR_NUMERIC_VALUE_OUT_OF_RANGE, "interval addition overflow");
        return err_set(ctx->err, SQE_ERR_NUMERIC_VALUE_OUT_OF_RANGE, "bigint addition overflow");
    }
    put_i64(out, row, (int64_t)v);
    return SQE_OK;
}

/* floor(sum / n + 1/2) (Java's Math.round of the average), exact. */
static int128 avg_round(int128 sum, int64_t n) {
    int128 q = sum / n, r = sum % n;
    if (r < 0) {
        q -= 1;
        r += n;
    }
    return 2 * r >= n ? q + 1 : q;
}

static int avg_int_finalize(func_ctx *ctx, const uint8_t *state, vec *out, uint32_t row) {
    const sum_state *s = (const sum_state *)state;
    if (s->n == 0) return agg_set_null(ctx, out, row);
    switch (out->type.id) {
    case TYPE_INTERVAL_YM: VEC_DATA(out, int32_t)[row] = (int32_t)avg_round(s->acc.i, s->n); break;
    case TYPE_INTERVAL_DS: VEC_DATA(out, int64_t)[row] = (int64_t)avg_round(s->acc.i, s->n); break;
    default: VEC_DATA(out, double)[row] = (double)s->acc.i / (double)s->n; break;
    }
    vec_set_valid(out, row);
    return SQE_OK;
}

static int sum_dbl_finalize(func_ctx *ctx, const uint8_t *state, vec *out, uint32_t row) {
    const sum_state *s = (const sum_state *)state;
    if (s->n == 0) return agg_set_null(ctx, out, row);
    if (out->type.id == TYPE_REAL)
        VEC_DATA(out, float)[row] = (float)s->acc.d;
    else
        VEC_DATA(out, double)[row] = s->acc.d;
    vec_set_valid(out, row);
    return SQE_OK;
}

static int avg_dbl_finalize(func_ctx *ctx, const uint8_t *state, vec *out, uint32_t row) {
    const sum_state *s = (const sum_state *)state;
    if (s->n == 0) return agg_set_null(ctx, out, row);
    double avg = s->acc.d / (double)s->n;
    if (out->type.id == TYPE_REAL)
        VEC_DATA(out, float)[row] = (float)avg;
    else
        VEC_DATA(out, double)[row] = avg;
    vec_set_valid(out, row);
    return SQE_OK;
}

/* The 192-bit sum as an int128 when it fits. */
static bool sum192_to_int128(unsigned __int128 lo, int64_t hi, int128 *out) {
    int128 v = (int128)lo;
    if ((hi == 0 && v >= 0) || (hi == -1 && v < 0)) {
        *out = v;
        return true;
    }
    return false;
}

static int sum_dec_finalize(func_ctx *ctx, const uint8_t *state, vec *out, uint32_t row) {
    const sum_state *s = (const sum_state *)state;
    if (s->n == 0) return agg_set_null(ctx, out, row);
    int128 v;
    if (!sum192_to_int128(s->acc.u, s->hi, &v) || !decimal_fits(v, out->type.precision))
        return err_set(ctx->err, SQE_ERR_NUMERIC_VALUE_OUT_OF_RANGE, "decimal overflow");
    decimal_put(out->data, out->type, row, v);
    vec_set_valid(out, row);
    return SQE_OK;
}

/* round(sum / n) with HALF_UP (half away from zero) for the 192-bit sum (lo, hi) and n >= 1.
 * The average of decimal(p,s) values is itself within decimal(p,s), so it fits an int128. */
static int128 avg_dec_round(unsigned __int128 lo, int64_t hi, int64_t n) {
    bool neg = hi < 0;
    uint64_t limb[3] = {(uint64_t)lo, (uint64_t)(lo >> 64), (uint64_t)hi};
    if (neg) { /* two's complement negation of the 192-bit value */
        unsigned carry = 1;
        for (int k = 0; k < 3; k++) {
            limb[k] = ~limb[k] + carry;
            carry = carry && limb[k] == 0;
        }
    }
    uint64_t d = (uint64_t)n, r = 0;
    for (int k = 2; k >= 0; k--) {
        unsigned __int128 cur = ((unsigned __int128)r << 64) | limb[k];
        limb[k] = (uint64_t)(cur / d);
        r = (uint64_t)(cur % d);
    }
    unsigned __int128 q = ((unsigned __int128)limb[1] << 64) | limb[0];
    if (r >= d - r) q++; /* 2r >= d without overflow */
    return neg ? -(int128)q : (int128)q;
}

static int avg_dec_finalize(func_ctx *ctx, const uint8_t *state, vec *out, uint32_t row) {
    const sum_state *s = (const sum_state *)state;
    if (s->n == 0) return agg_set_null(ctx, out, row);
    int128 v = avg_dec_round(s->acc.u, s->hi, s->n);
    if (!decimal_fits(v, out->type.precision))
        return err_set(ctx->err, SQE_ERR_NUMERIC_VALUE_OUT_OF_RANGE, "decimal overflow");
    decimal_put(out->data, out->type, row, v);
    vec_set_valid(out, row);
    return SQE_OK;
}

/* ---- min and max of fixed-width values ----------------------------------------------------- */

typedef struct minmax_state {
    union {
        int128 i128;
        uint8_t raw[16];
    } v;
    uint8_t has; /* a value is stored */
    uint8_t cls; /* agg_phys of the value */
} minmax_state;

AGG_ZERO_INIT(minmax_init, minmax_state)

/* BETTER(x, cur): x replaces cur. */
#define MM_BETTER(LT, IS_MAX, x, cur) ((IS_MAX) ? LT(cur, x) : LT(x, cur))

#define MINMAX_CASE(P, T, LT, IS_MAX)                                                              \
    case P: {                                                                                      \
        const T *vals = (const T *)u.data;                                                         \
        if (one) {                                                                                 \
            minmax_state *s = (minmax_state *)one;                                                 \
            bool has = s->has;                                                                     \
            T best;                                                                                \
            memset(&best, 0, sizeof best);                                                         \
            if (has) memcpy(&best, &s->v, sizeof best);                                            \
            if (agg_dense(&u, sel) && count > 0) {                                                 \
                if (!has) best = vals[0];                                                          \
                has = true;                                                                        \
                for (uint32_t r = 0; r < count; r++) {                                             \
                    T x = vals[r];                                                                 \
                    best = MM_BETTER(LT, IS_MAX, x, best) ? x : best;                              \
                }                                                                                  \
            } else {                                                                               \
                FUNC_FOR_ROWS(sel, count, row) {                                                   \
                    uint32_t i = vec_view_index(&u, row);                                          \
                    if (!agg_valid_at(&u, i)) continue;                                            \
                    T x = vals[i];                                                                 \
                    if (!has || MM_BETTER(LT, IS_MAX, x, best)) {                                  \
                        best = x;                                                                  \
                        has = true;                                                                \
                    }                                                                              \
                }                                                                                  \
            }                                                                                      \
            if (has) {                                                                             \
                memcpy(&s->v, &best, sizeof best);                                                 \
                s->has = 1;                                                                        \
                s->cls = P;                                                                        \
            }                                                                                      \
        } else {                                                                                   \
            FUNC_FOR_ROWS(sel, count, row) {                                                       \
                uint32_t i = vec_view_index(&u, row);                                              \
                if (!agg_valid_at(&u, i)) continue;                                                \
                minmax_state *s = (minmax_state *)states[row];                                     \
                T x = vals[i];                                                                     \
                if (s->has) {                                                                      \
                    T cur;                                                                         \
                    memcpy(&cur, &s->v, sizeof cur);                                               \
                    if (!MM_BETTER(LT, IS_MAX, x, cur)) continue;                                  \
                }                                                                                  \
                memcpy(&s->v, &x, sizeof x);                                                       \
                s->has = 1;                                                                        \
                s->cls = P;                                                                        \
            }                                                                                      \
        }                                                                                          \
        break;                                                                                     \
    }

#define MIN_CASE(P, T, LT) MINMAX_CASE(P, T, LT, false)
#define MAX_CASE(P, T, LT) MINMAX_CASE(P, T, LT, true)

static int min_update(func_ctx *ctx, const vec *const *args, uint32_t n_args, const uint32_t *sel,
                      uint32_t count, uint8_t **states) {
    vec_view u;
    vec_view_init(&u, args[0]);
    uint8_t *one = agg_uniform_state(sel, count, states);
    switch (agg_phys_of(args[0]->type)) {
        AGG_FIXED_CLASSES(MIN_CASE)
    default: return unsupported(ctx, "min", args[0]->type);
    }
    return SQE_OK;
}

static int max_update(func_ctx *ctx, const vec *const *args, uint32_t n_args, const uint32_t *sel,
                      uint32_t count, uint8_t **states) {
    vec_view u;
    vec_view_init(&u, args[0]);
    uint8_t *one = agg_uniform_state(sel, count, states);
    switch (agg_phys_of(args[0]->type)) {
        AGG_FIXED_CLASSES(MAX_CASE)
    default: return unsupported(ctx, "max", args[0]->type);
    }
    return SQE_OK;
}

static void minmax_merge(const minmax_state *a, minmax_state *d, bool is_max) {
    if (!a->has) return;
    if (!d->has) {
        *d = *a;
        return;
    }
    switch (a->cls) {
#define MERGE_CASE(P, T, LT)                                                                       \
    case P: {                                                                                      \
        T x, cur;                                                                                  \
        memcpy(&x, &a->v, sizeof x);                                                               \
        memcpy(&cur, &d->v, sizeof cur);                                                           \
        if (MM_BETTER(LT, is_max, x, cur)) memcpy(&d->v, &x, sizeof x);                            \
        break;                                                                                     \
    }
        AGG_FIXED_CLASSES(MERGE_CASE)
#undef MERGE_CASE
    default: break;
    }
}

static int min_combine(func_ctx *ctx, const uint8_t *src, uint8_t *dst) {
    minmax_merge((const minmax_state *)src, (minmax_state *)dst, false);
    return SQE_OK;
}

static int max_combine(func_ctx *ctx, const uint8_t *src, uint8_t *dst) {
    minmax_merge((const minmax_state *)src, (minmax_state *)dst, true);
    return SQE_OK;
}

static int minmax_finalize(func_ctx *ctx, const uint8_t *state, vec *out, uint32_t row) {
    const minmax_state *s = (const minmax_state *)state;
    if (!s->has) return agg_set_null(ctx, out, row);
    size_t width = type_physical_size(out->type);
    if (width == 0 || width > sizeof s->v)
        return err_set(ctx->err, SQE_ERR_GENERIC_INTERNAL_ERROR, "min/max: bad result type");
    memcpy((char *)out->data + width * row, &s->v, width);
    vec_set_valid(out, row);
    return SQE_OK;
}

/* ---- min and max of strings ---------------------------------------------------------------- */

typedef struct minmax_str_state {
    agg_cell best;
} minmax_str_state;

AGG_ZERO_INIT(minmax_str_init, minmax_str_state)

static inline bool str_better(const sqe_str *x, const sqe_str *cur, bool is_max) {
    int c = sqe_str_compare(x, cur);
    return is_max ? c > 0 : c < 0;
}

static int minmax_str_update(func_ctx *ctx, const vec *const *args, const uint32_t *sel,
                             uint32_t count, uint8_t **states, bool is_max) {
    if (agg_phys_of(args[0]->type) != AGG_P_STR) return unsupported(ctx, is_max ? "max" : "min", args[0]->type);
    vec_view u;
    vec_view_init(&u, args[0]);
    const sqe_str *vals = (const sqe_str *)u.data;
    uint8_t *one = agg_uniform_state(sel, count, states);
    if (one) {
        /* Find the batch's extreme first, then copy it at most once. */
        const sqe_str *best = NULL;
        FUNC_FOR_ROWS(sel, count, row) {
            uint32_t i = vec_view_index(&u, row);
            if (!agg_valid_at(&u, i)) continue;
            if (!best || str_better(&vals[i], best, is_max)) best = &vals[i];
        }
        agg_cell *c = &((minmax_str_state *)one)->best;
        if (best && (c->kind != AGG_CELL_STR || str_better(best, &c->v.str, is_max)))
            return agg_cell_set_str(c, best, ctx->tracker, ctx->err);
        return SQE_OK;
    }
    FUNC_FOR_ROWS(sel, count, row) {
        uint32_t i = vec_view_index(&u, row);
        if (!agg_valid_at(&u, i)) continue;
        agg_cell *c = &((minmax_str_state *)states[row])->best;
        if (c->kind == AGG_CELL_STR && !str_better(&vals[i], &c->v.str, is_max)) continue;
        SQE_TRY(agg_cell_set_str(c, &vals[i], ctx->tracker, ctx->err));
    }
    return SQE_OK;
}

static int min_str_update(func_ctx *ctx, const vec *const *args, uint32_t n_args,
                          const uint32_t *sel, uint32_t count, uint8_t **states) {
    return minmax_str_update(ctx, args, sel, count, states, false);
}

static int max_str_update(func_ctx *ctx, const vec *const *args, uint32_t n_args,
                          const uint32_t *sel, uint32_t count, uint8_t **states) {
    return minmax_str_update(ctx, args, sel, count, states, true);
}

static int minmax_str_merge(func_ctx *ctx, const uint8_t *src, uint8_t *dst, bool is_max) {
    const agg_cell *a = &((const minmax_str_state *)src)->best;
    agg_cell *d = &((minmax_str_state *)dst)->best;
    if (a->kind != AGG_CELL_STR) return SQE_OK;
    if (d->kind == AGG_CELL_STR && !str_better(&a->v.str, &d->v.str, is_max)) return SQE_OK;
    return agg_cell_set_str(d, &a->v.str, ctx->tracker, ctx->err);
}

static int min_str_combine(func_ctx *ctx, const uint8_t *src, uint8_t *dst) {
    return minmax_str_merge(ctx, src, dst, false);
}

static int max_str_combine(func_ctx *ctx, const uint8_t *src, uint8_t *dst) {
    return minmax_str_merge(ctx, src, dst, true);
}

/* Shared by every cell-based state whose first member is the result cell. */
static int cell_finalize(func_ctx *ctx, const uint8_t *state, vec *out, uint32_t row) {
    return agg_cell_write((const agg_cell *)state, out, row, ctx->err);
}

static void cell_destroy(uint8_t *state) { agg_cell_free((agg_cell *)state); }

/* ---- min_by(x, y), max_by(x, y) ------------------------------------------------------------ */

typedef struct by_state {
    agg_cell value; /* x of the best row so far (may be NULL) */
    agg_cell key;   /* y of the best row so far; EMPTY until a row with non-NULL y */
    uint8_t cls;    /* agg_phys of y */
} by_state;

AGG_ZERO_INIT(by_init, by_state)

#define BY_CASE(P, T, LT)                                                                          \
    case P: {                                                                                      \
        const T *keys = (const T *)uy.data;                                                        \
        if (one) {                                                                                 \
            by_state *s = (by_state *)one;                                                         \
            bool has = s->key.kind == AGG_CELL_FIXED, found = false;                               \
            uint32_t best_row = 0;                                                                 \
            T best;                                                                                \
            memset(&best, 0, sizeof best);                                                         \
            if (has) memcpy(&best, s->key.v.raw, sizeof best);                                     \
            FUNC_FOR_ROWS(sel, count, row) {                                                       \
                uint32_t i = vec_view_index(&uy, row);                                             \
                if (!agg_valid_at(&uy, i)) continue;                                               \
                if (!has || MM_BETTER(LT, is_max, keys[i], best)) {                                \
                    best = keys[i];                                                                \
                    has = found = true;                                                            \
                    best_row = row;                                                                \
                }                                                                                  \
            }                                                                                      \
            if (found) {                                                                           \
                agg_cell_set_fixed(&s->key, &best, sizeof best);                                   \
                s->cls = P;                                                                        \
                SQE_TRY(agg_cell_set(&s->value, args[0], best_row, ctx->tracker, ctx->err));       \
            }                                                                                      \
        } else {                                                                                   \
            FUNC_FOR_ROWS(sel, count, row) {                                                       \
                uint32_t i = vec_view_index(&uy, row);                                             \
                if (!agg_valid_at(&uy, i)) continue;                                               \
                by_state *s = (by_state *)states[row];                                             \
                T k = keys[i];                                                                     \
                if (s->key.kind == AGG_CELL_FIXED) {                                               \
                    T cur;                                                                         \
                    memcpy(&cur, s->key.v.raw, sizeof cur);                                        \
                    if (!MM_BETTER(LT, is_max, k, cur)) continue;                                  \
                }                                                                                  \
                agg_cell_set_fixed(&s->key, &k, sizeof k);                                         \
                s->cls = P;                                                                        \
                SQE_TRY(agg_cell_set(&s->value, args[0], row, ctx->tracker, ctx->err));            \
            }                                                                                      \
        }                                                                                          \
        break;                                                                                     \
    }

static int by_update(func_ctx *ctx, const vec *const *args, const uint32_t *sel, uint32_t count,
                     uint8_t **states, bool is_max) {
    vec_view uy;
    vec_view_init(&uy, args[1]);
    uint8_t *one = agg_uniform_state(sel, count, states);
    switch (agg_phys_of(args[1]->type)) {
        AGG_FIXED_CLASSES(BY_CASE)
    case AGG_P_STR: {
        const sqe_str *keys = (const sqe_str *)uy.data;
        if (one) {
            by_state *s = (by_state *)one;
            const sqe_str *best = s->key.kind == AGG_CELL_STR ? &s->key.v.str : NULL;
            uint32_t best_row = 0;
            bool found = false;
            FUNC_FOR_ROWS(sel, count, row) {
                uint32_t i = vec_view_index(&uy, row);
                if (!agg_valid_at(&uy, i)) continue;
                if (!best || str_better(&keys[i], best, is_max)) {
                    best = &keys[i];
                    best_row = row;
                    found = true;
                }
            }
            if (found) {
                SQE_TRY(agg_cell_set_str(&s->key, best, ctx->tracker, ctx->err));
                s->cls = AGG_P_STR;
                SQE_TRY(agg_cell_set(&s->value, args[0], best_row, ctx->tracker, ctx->err));
            }
            break;
        }
        FUNC_FOR_ROWS(sel, count, row) {
            uint32_t i = vec_view_index(&uy, row);
            if (!agg_valid_at(&uy, i)) continue;
            by_state *s = (by_state *)states[row];
            if (s->key.kind == AGG_CELL_STR && !str_better(&keys[i], &s->key.v.str, is_max)) continue;
            SQE_TRY(agg_cell_set_str(&s->key, &keys[i], ctx->tracker, ctx->err));
            s->cls = AGG_P_STR;
            SQE_TRY(agg_cell_set(&s->value, args[0], row, ctx->tracker, ctx->err));
        }
        break;
    }
    default: return unsupported(ctx, is_max ? "max_by" : "min_by", args[1]->type);
    }
    return SQE_OK;
}

static int min_by_update(func_ctx *ctx, const vec *const *args, uint32_t n_args,
                         const uint32_t *sel, uint32_t count, uint8_t **states) {
    return by_update(ctx, args, sel, count, states, false);
}

static int max_by_update(func_ctx *ctx, const vec *const *args, uint32_t n_args,
                         const uint32_t *sel, uint32_t count, uint8_t **states) {
    return by_update(ctx, args, sel, count, states, true);
}

/* Does key x (of class cls) beat key cur? */
static bool key_better(uint8_t cls, const agg_cell *x, const agg_cell *cur, bool is_max) {
    switch (cls) {
#define KEY_CASE(P, T, LT)                                                                         \
    case P: {                                                                                      \
        T a, b;                                                                                    \
        memcpy(&a, x->v.raw, sizeof a);                                                            \
        memcpy(&b, cur->v.raw, sizeof b);                                                          \
        return MM_BETTER(LT, is_max, a, b);                                                        \
    }
        AGG_FIXED_CLASSES(KEY_CASE)
#undef KEY_CASE
    case AGG_P_STR: return str_better(&x->v.str, &cur->v.str, is_max);
    default: return false;
    }
}

static int by_merge(func_ctx *ctx, const uint8_t *src, uint8_t *dst, bool is_max) {
    const by_state *a = (const by_state *)src;
    by_state *d = (by_state *)dst;
    if (a->key.kind == AGG_CELL_EMPTY) return SQE_OK;
    if (d->key.kind != AGG_CELL_EMPTY && !key_better(a->cls, &a->key, &d->key, is_max)) return SQE_OK;
    SQE_TRY(agg_cell_copy(&d->key, &a->key, ctx->tracker, ctx->err));
    d->cls = a->cls;
    return agg_cell_copy(&d->value, &a->value, ctx->tracker, ctx->err);
}

static int min_by_combine(func_ctx *ctx, const uint8_t *src, uint8_t *dst) {
    return by_merge(ctx, src, dst, false);
}

static int max_by_combine(func_ctx *ctx, const uint8_t *src, uint8_t *dst) {
    return by_merge(ctx, src, dst, true);
}

static void by_destroy(uint8_t *state) {
    by_state *s = (by_state *)state;
    agg_cell_free(&s->value);
    agg_cell_free(&s->key);
}

/* ---- arbitrary(x) / any_value(x) ----------------------------------------------------------- */

typedef struct arbitrary_state {
    agg_cell value; /* the first non-NULL value seen */
} arbitrary_state;

AGG_ZERO_INIT(arbitrary_init, arbitrary_state)

static int arbitrary_update(func_ctx *ctx, const vec *const *args, uint32_t n_args,
                            const uint32_t *sel, uint32_t count, uint8_t **states) {
    vec_view u;
    vec_view_init(&u, args[0]);
    FUNC_FOR_ROWS(sel, count, row) {
        agg_cell *c = &((arbitrary_state *)states[row])->value;
        if (c->kind != AGG_CELL_EMPTY || !agg_valid_at(&u, vec_view_index(&u, row))) continue;
        SQE_TRY(agg_cell_set(c, args[0], row, ctx->tracker, ctx->err));
    }
    return SQE_OK;
}

static int arbitrary_combine(func_ctx *ctx, const uint8_t *src, uint8_t *dst) {
    const agg_cell *a = &((const arbitrary_state *)src)->value;
    agg_cell *d = &((arbitrary_state *)dst)->value;
    if (d->kind != AGG_CELL_EMPTY || a->kind == AGG_CELL_EMPTY) return SQE_OK;
    return agg_cell_copy(d, a, ctx->tracker, ctx->err);
}

/* ---- bool_and / every / bool_or ------------------------------------------------------------ */

typedef struct bool_state {
    uint8_t has;
    uint8_t value;
} bool_state;

AGG_ZERO_INIT(bool_init, bool_state)

static int bool_update(func_ctx *ctx, const vec *const *args, const uint32_t *sel, uint32_t count,
                       uint8_t **states, bool is_or) {
    vec_view u;
    vec_view_init(&u, args[0]);
    const uint8_t *vals = (const uint8_t *)u.data;
    FUNC_FOR_ROWS(sel, count, row) {
        uint32_t i = vec_view_index(&u, row);
        if (!agg_valid_at(&u, i)) continue;
        bool_state *s = (bool_state *)states[row];
        uint8_t x = vals[i] != 0;
        s->value = !s->has ? x : is_or ? (s->value | x) : (s->value & x);
        s->has = 1;
    }
    return SQE_OK;
}

static int bool_and_update(func_ctx *ctx, const vec *const *args, uint32_t n_args,
                           const uint32_t *sel, uint32_t count, uint8_t **states) {
    return bool_update(ctx, args, sel, count, states, false);
}

static int bool_or_update(func_ctx *ctx, const vec *const *args, uint32_t n_args,
                          const uint32_t *sel, uint32_t count, uint8_t **states) {
    return bool_update(ctx, args, sel, count, states, true);
}

static void bool_merge(const uint8_t *src, uint8_t *dst, bool is_or) {
    const bool_state *a = (const bool_state *)src;
    bool_state *d = (bool_state *)dst;
    if (!a->has) return;
    d->value = !d->has ? a->value : is_or ? (d->value | a->value) : (d->value & a->value);
    d->has = 1;
}

static int bool_and_combine(func_ctx *ctx, const uint8_t *src, uint8_t *dst) {
    bool_merge(src, dst, false);
    return SQE_OK;
}

static int bool_or_combine(func_ctx *ctx, const uint8_t *src, uint8_t *dst) {
    bool_merge(src, dst, true);
    return SQE_OK;
}

static int bool_finalize(func_ctx *ctx, const uint8_t *state, vec *out, uint32_t row) {
    const bool_state *s = (const bool_state *)state;
    if (!s->has) return agg_set_null(ctx, out, row);
    VEC_DATA(out, uint8_t)[row] = s->value;
    vec_set_valid(out, row);
    return SQE_OK;
}

/* ---- bitwise_and_agg / bitwise_or_agg / bitwise_xor_agg ------------------------------------ */

typedef struct bits_state {
    int64_t value;
    uint8_t has;
} bits_state;

AGG_ZERO_INIT(bits_init, bits_state)

enum { BITS_AND, BITS_OR, BITS_XOR };

static inline int64_t bits_apply(int op, int64_t a, int64_t b) {
    return op == BITS_AND ? (a & b) : op == BITS_OR ? (a | b) : (a ^ b);
}

#define BITS_CASE(P, T)                                                                            \
    case P: {                                                                                      \
        const T *vals = (const T *)u.data;                                                         \
        FUNC_FOR_ROWS(sel, count, row) {                                                           \
            uint32_t i = vec_view_index(&u, row);                                                  \
            if (!agg_valid_at(&u, i)) continue;                                                    \
            bits_state *s = (bits_state *)states[row];                                             \
            s->value = s->has ? bits_apply(op, s->value, vals[i]) : vals[i];                       \
            s->has = 1;                                                                            \
        }                                                                                          \
        break;                                                                                     \
    }

static int bits_update(func_ctx *ctx, const vec *const *args, const uint32_t *sel, uint32_t count,
                       uint8_t **states, int op) {
    vec_view u;
    vec_view_init(&u, args[0]);
    switch (agg_phys_of(args[0]->type)) {
        BITS_CASE(AGG_P_I8, int8_t)
        BITS_CASE(AGG_P_I16, int16_t)
        BITS_CASE(AGG_P_I32, int32_t)
        BITS_CASE(AGG_P_I64, int64_t)
    default: return unsupported(ctx, "bitwise aggregate", args[0]->type);
    }
    return SQE_OK;
}

static int bits_merge(const uint8_t *src, uint8_t *dst, int op) {
    const bits_state *a = (const bits_state *)src;
    bits_state *d = (bits_state *)dst;
    if (!a->has) return SQE_OK;
    d->value = d->has ? bits_apply(op, d->value, a->value) : a->value;
    d->has = 1;
    return SQE_OK;
}

#define BITS_FNS(name, op)                                                                         \
    static int name##_update(func_ctx *ctx, const vec *const *args, uint32_t n_args,               \
                             const uint32_t *sel, uint32_t count, uint8_t **states) {              \
        return bits_update(ctx, args, sel, count, states, op);                                     \
    }                                                                                              \
    static int name##_combine(func_ctx *ctx, const uint8_t *src, uint8_t *dst) {                   \
        return bits_merge(src, dst, op);                                                           \
    }
BITS_FNS(bit_and, BITS_AND)
BITS_FNS(bit_or, BITS_OR)
BITS_FNS(bit_xor, BITS_XOR)

static int bits_finalize(func_ctx *ctx, const uint8_t *state, vec *out, uint32_t row) {
    const bits_state *s = (const bits_state *)state;
    if (!s->has) return agg_set_null(ctx, out, row);
    put_i64(out, row, s->value);
    return SQE_OK;
}

/* ---- geometric_mean(x) --------------------------------------------------------------------- */

typedef struct geo_state {
    double log_sum;
    int64_t n;
} geo_state;

AGG_ZERO_INIT(geo_init, geo_state)

#define GEO_CASE(P, T)                                                                             \
    case P: {                                                                                      \
        const T *vals = (const T *)u.data;                                                         \
        FUNC_FOR_ROWS(sel, count, row) {                                                           \
            uint32_t i = vec_view_index(&u, row);                                                  \
            if (!agg_valid_at(&u, i)) continue;                                                    \
            geo_state *s = (geo_state *)states[row];                                               \
            s->log_sum += log((double)vals[i]);                                                    \
            s->n++;                                                                                \
        }                                                                                          \
        break;                                                                                     \
    }

static int geo_update(func_ctx *ctx, const vec *const *args, uint32_t n_args, const uint32_t *sel,
                      uint32_t count, uint8_t **states) {
    vec_view u;
    vec_view_init(&u, args[0]);
    switch (agg_phys_of(args[0]->type)) {
        GEO_CASE(AGG_P_I8, int8_t)
        GEO_CASE(AGG_P_I16, int16_t)
        GEO_CASE(AGG_P_I32, int32_t)
        GEO_CASE(AGG_P_I64, int64_t)
        GEO_CASE(AGG_P_F32, float)
        GEO_CASE(AGG_P_F64, double)
    default: return unsupported(ctx, "geometric_mean", args[0]->type);
    }
    return SQE_OK;
}

static int geo_combine(func_ctx *ctx, const uint8_t *src, uint8_t *dst) {
    const geo_state *a = (const geo_state *)src;
    geo_state *d = (geo_state *)dst;
    d->log_sum += a->log_sum;
    d->n += a->n;
    return SQE_OK;
}

static int geo_finalize(func_ctx *ctx, const uint8_t *state, vec *out, uint32_t row) {
    const geo_state *s = (const geo_state *)state;
    if (s->n == 0) return agg_set_null(ctx, out, row);
    double v = exp(s->log_sum / (double)s->n);
    if (out->type.id == TYPE_REAL)
        VEC_DATA(out, float)[row] = (float)v;
    else
        VEC_DATA(out, double)[row] = v;
    vec_set_valid(out, row);
    return SQE_OK;
}

/* ---- checksum(x) -> varbinary ------------------------------------------------------------- */

/* An order-independent checksum: the wrapping sum of a per-value hash times a prime (NULLs
 * contribute the prime itself), as Trino's checksum is built; the hash is SQE's own, so the
 * bytes differ from Trino's. */
typedef struct checksum_state {
    uint64_t sum;
    int64_t n; /* rows seen, NULLs included */
} checksum_state;

AGG_ZERO_INIT(checksum_init, checksum_state)

#define CHECKSUM_PRIME 0x9e3779b185ebca87ULL

static int checksum_update(func_ctx *ctx, const vec *const *args, uint32_t n_args,
                           const uint32_t *sel, uint32_t count, uint8_t **states) {
    FUNC_FOR_ROWS(sel, count, row) {
        checksum_state *s = (checksum_state *)states[row];
        uint64_t h = vec_is_null(args[0], row) ? 1 : agg_value_hash(args[0], row);
        s->sum += h * CHECKSUM_PRIME;
        s->n++;
    }
    return SQE_OK;
}

static int checksum_combine(func_ctx *ctx, const uint8_t *src, uint8_t *dst) {
    const checksum_state *a = (const checksum_state *)src;
    checksum_state *d = (checksum_state *)dst;
    d->sum += a->sum;
    d->n += a->n;
    return SQE_OK;
}

static int checksum_finalize(func_ctx *ctx, const uint8_t *state, vec *out, uint32_t row) {
    const checksum_state *s = (const checksum_state *)state;
    if (s->n == 0) return agg_set_null(ctx, out, row);
    char bytes[8];
    for (int k = 0; k < 8; k++) bytes[k] = (char)(s->sum >> (8 * k)); /* little-endian */
    VEC_DATA(out, sqe_str)[row] = sqe_str_make(bytes, sizeof bytes);   /* 8 bytes: inline */
    vec_set_valid(out, row);
    return SQE_OK;
}

/* ---- Table --------------------------------------------------------------------------------- */

#define AGG(name, args, ret, ret_fn, state, init, update, combine, finalize, destroy, desc)        \
    {name, args, ret, ret_fn, NULL, AGG_STATE_SIZE(state), init, update, combine, finalize,        \
     destroy, 0, desc}

/* The orderable types min/max/min_by/max_by accept: X(signature, ret, ret_fn) for fixed-width
 * types, S(...) for string types. */
#define MINMAX_TYPES(X, S)                                                                         \
    X("boolean", "boolean", NULL)                                                                  \
    X("tinyint", "tinyint", NULL)                                                                  \
    X("smallint", "smallint", NULL)                                                                \
    X("integer", "integer", NULL)                                                                  \
    X("bigint", "bigint", NULL)                                                                    \
    X("real", "real", NULL)                                                                        \
    X("double", "double", NULL)                                                                    \
    X("decimal", "?", ret_arg0)                                                                    \
    X("date", "date", NULL)                                                                        \
    X("time", "?", ret_arg0)                                                                       \
    X("timestamp", "?", ret_arg0)                                                                  \
    X("timestamp with time zone", "?", ret_arg0)                                                   \
    X("interval day to second", "interval day to second", NULL)                                    \
    X("interval year to month", "interval year to month", NULL)                                    \
    X("uuid", "uuid", NULL)                                                                        \
    S("varchar", "?", ret_arg0)                                                                    \
    S("char", "?", ret_arg0)                                                                       \
    S("varbinary", "varbinary", NULL)

#define MIN_FIXED(sig, ret, fn)                                                                    \
    AGG("min", sig, ret, fn, minmax_state, minmax_init, min_update, min_combine, minmax_finalize,  \
        NULL, "Minimum of the non-NULL values"),
#define MIN_STR(sig, ret, fn)                                                                      \
    AGG("min", sig, ret, fn, minmax_str_state, minmax_str_init, min_str_update, min_str_combine,   \
        cell_finalize, cell_destroy, "Minimum of the non-NULL values"),
#define MAX_FIXED(sig, ret, fn)                                                                    \
    AGG("max", sig, ret, fn, minmax_state, minmax_init, max_update, max_combine, minmax_finalize,  \
        NULL, "Maximum of the non-NULL values"),
#define MAX_STR(sig, ret, fn)                                                                      \
    AGG("max", sig, ret, fn, minmax_str_state, minmax_str_init, max_str_update, max_str_combine,   \
        cell_finalize, cell_destroy, "Maximum of the non-NULL values"),
#define MIN_BY(sig, ret, fn)                                                                       \
    AGG("min_by", "T," sig, "T", NULL, by_state, by_init, min_by_update, min_by_combine,           \
        cell_finalize, by_destroy, "Value of x at the row with the minimum y"),
#define MAX_BY(sig, ret, fn)                                                                       \
    AGG("max_by", "T," sig, "T", NULL, by_state, by_init, max_by_update, max_by_combine,           \
        cell_finalize, by_destroy, "Value of x at the row with the maximum y"),

#define SUM_INT(sig)                                                                               \
    AGG("sum", sig, "bigint", NULL, sum_state, sum_init, sum_int_update, sum_int_combine,          \
        sum_int_finalize, NULL, "Sum of the non-NULL values"),
#define AVG_INT(sig)                                                                               \
    AGG("avg", sig, "double", NULL, sum_state, sum_init, sum_int_update, sum_int_combine,          \
        avg_int_finalize, NULL, "Average of the non-NULL values"),

static const func_agg_def basic_defs[] = {
    AGG("count", "", "bigint", NULL, count_state, count_init, count_star_update, count_combine,
        count_finalize, NULL, "Number of rows"),
    AGG("count", "any", "bigint", NULL, count_state, count_init, count_update, count_combine,
        count_finalize, NULL, "Number of non-NULL values"),
    AGG("count_if", "boolean", "bigint", NULL, count_state, count_init, count_if_update,
        count_combine, count_finalize, NULL, "Number of TRUE values"),

    SUM_INT("tinyint") SUM_INT("smallint") SUM_INT("integer") SUM_INT("bigint")
    AGG("sum", "real", "real", NULL, sum_state, sum_init, sum_dbl_update, sum_dbl_combine,
        sum_dbl_finalize, NULL, "Sum of the non-NULL values"),
    AGG("sum", "double", "double", NULL, sum_state, sum_init, sum_dbl_update, sum_dbl_combine,
        sum_dbl_finalize, NULL, "Sum of the non-NULL values"),
    AGG("sum", "decimal", "?", ret_sum_decimal, sum_state, sum_init, sum_dec_update,
        sum_dec_combine, sum_dec_finalize, NULL, "Sum of the non-NULL values, as decimal(38,s)"),
    AGG("sum", "interval day to second", "interval day to second", NULL, sum_state, sum_init,
        sum_int_update, sum_int_combine, sum_int_finalize, NULL, "Sum of the non-NULL values"),
    AGG("sum", "interval year to month", "interval year to month", NULL, sum_state, sum_init,
        sum_int_update, sum_int_combine, sum_int_finalize, NULL, "Sum of the non-NULL values"),

    AVG_INT("tinyint") AVG_INT("smallint") AVG_INT("integer") AVG_INT("bigint")
    AGG("avg", "real", "real", NULL, sum_state, sum_init, sum_dbl_update, sum_dbl_combine,
        avg_dbl_finalize, NULL, "Average of the non-NULL values"),
    AGG("avg", "double", "double", NULL, sum_state, sum_init, sum_dbl_update, sum_dbl_combine,
        avg_dbl_finalize, NULL, "Average of the non-NULL values"),
    AGG("avg", "decimal", "?", ret_arg0, sum_state, sum_init, sum_dec_update, sum_dec_combine,
        avg_dec_finalize, NULL, "Average of the non-NULL values, rounded half up"),
    AGG("avg", "interval day to second", "interval day to second", NULL, sum_state, sum_init,
        sum_int_update, sum_int_combine, avg_int_finalize, NULL, "Average of the non-NULL values"),
    AGG("avg", "interval year to month", "interval year to month", NULL, sum_state, sum_init,
        sum_int_update, sum_int_combine, avg_int_finalize, NULL, "Average of the non-NULL values"),

    MINMAX_TYPES(MIN_FIXED, MIN_STR)
    MINMAX_TYPES(MAX_FIXED, MAX_STR)
    MINMAX_TYPES(MIN_BY, MIN_BY)
    MINMAX_TYPES(MAX_BY, MAX_BY)

    AGG("arbitrary", "T", "T", NULL, arbitrary_state, arbitrary_init, arbitrary_update,
        arbitrary_combine, cell_finalize, cell_destroy, "Some non-NULL value of the group"),
    AGG("any_value", "T", "T", NULL, arbitrary_state, arbitrary_init, arbitrary_update,
        arbitrary_combine, cell_finalize, cell_destroy, "Some non-NULL value of the group"),

    AGG("bool_and", "boolean", "boolean", NULL, bool_state, bool_init, bool_and_update,
        bool_and_combine, bool_finalize, NULL, "TRUE when every non-NULL value is TRUE"),
    AGG("every", "boolean", "boolean", NULL, bool_state, bool_init, bool_and_update,
        bool_and_combine, bool_finalize, NULL, "TRUE when every non-NULL value is TRUE"),
    AGG("bool_or", "boolean", "boolean", NULL, bool_state, bool_init, bool_or_update,
        bool_or_combine, bool_finalize, NULL, "TRUE when some non-NULL value is TRUE"),

    AGG("bitwise_and_agg", "bigint", "bigint", NULL, bits_state, bits_init, bit_and_update,
        bit_and_combine, bits_finalize, NULL, "Bitwise AND of the non-NULL values"),
    AGG("bitwise_or_agg", "bigint", "bigint", NULL, bits_state, bits_init, bit_or_update,
        bit_or_combine, bits_finalize, NULL, "Bitwise OR of the non-NULL values"),
    AGG("bitwise_xor_agg", "bigint", "bigint", NULL, bits_state, bits_init, bit_xor_update,
        bit_xor_combine, bits_finalize, NULL, "Bitwise XOR of the non-NULL values"),

    AGG("geometric_mean", "bigint", "double", NULL, geo_state, geo_init, geo_update, geo_combine,
        geo_finalize, NULL, "Geometric mean of the non-NULL values"),
    AGG("geometric_mean", "double", "double", NULL, geo_state, geo_init, geo_update, geo_combine,
        geo_finalize, NULL, "Geometric mean of the non-NULL values"),
    AGG("geometric_mean", "real", "real", NULL, geo_state, geo_init, geo_update, geo_combine,
        geo_finalize, NULL, "Geometric mean of the non-NULL values"),

    AGG("checksum", "T", "varbinary", NULL, checksum_state, checksum_init, checksum_update,
        checksum_combine, checksum_finalize, NULL, "Order-independent checksum of the values"),
};

const func_agg_def *func_agg_family_basic(uint32_t *count) {
    *count = (uint32_t)(sizeof basic_defs / sizeof basic_defs[0]);
    return basic_defs;
}
