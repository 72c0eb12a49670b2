/*
 * agg_stats.c: statistical aggregates over doubles: variance, var_samp, var_pop, stddev,
 * stddev_samp, stddev_pop, skewness, kurtosis (one variable) and covar_samp, covar_pop, corr,
 * regr_slope, regr_intercept (pairs y, x), with Trino's signatures and NULL rules.
 *
 * Update kernels convert the selected rows to doubles a block at a time (one loop per input
 * class), then fold the block into the states with Welford's online recurrences: mean and M2
 * (sum of squared deviations) for the variance family, plus M3 and M4 for skewness and
 * kurtosis (Pébay 2008), co-moment C2 for the pair family. Partial states combine with the
 * parallel formulas of Chan et al. / Pébay. When every row of the batch goes to one state, a
 * block's moments are computed in two passes (mean, then deviations; vectorizable, no
 * division per row) and merged with the same formulas.
 *
 * INTERFACE: func_agg_family_stats.
 * NOTES (results, as in Trino): var_samp/stddev_samp/covar_samp need 2 rows, var_pop/
 * stddev_pop/covar_pop 1, skewness 3, kurtosis 4 (sample excess kurtosis), else NULL; corr,
 * regr_slope and regr_intercept are NULL when the result is not finite (e.g. a constant x).
 * Pairs with a NULL in either argument are skipped. The (real, real) forms of the pair family
 * return real.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "common/err.h"
#include "func/agg_value.h"
#include "func/func.h"
#include "types/types.h"
#include "vec/vec.h"

#define STAT_BLOCK 256

static int unsupported(func_ctx *ctx, const char *fn, sqe_type t) {
    char name[128];
    type_format(t, name, sizeof name);
    return err_set(ctx->err, SQE_ERR_GENERIC_INTERNAL_ERROR, "%s: unsupported argument type %s", fn, name);
}

/* Loads rows sel[from .. from + n) (or from .. from + n without sel) of u as doubles: x[k] and
 * ok[k] = 1 when the value is non-NULL. Returns false for a non-numeric class. */
static bool load_block(const vec_view *u, agg_phys cls, const uint32_t *sel, uint32_t from,
                       uint32_t n, double *x, uint8_t *ok) {
    switch (cls) {
#define LOAD_CASE(P, T)                                                                            \
    case P: {                                                                                      \
        const T *vals = (const T *)u->data;                                                        \
        for (uint32_t k = 0; k < n; k++) {                                                         \
            uint32_t i = vec_view_index(u, sel ? sel[from + k] : from + k);                        \
            ok[k] = agg_valid_at(u, i);                                                            \
            x[k] = (double)vals[i];                                                                \
        }                                                                                          \
        return true;                                                                               \
    }
        LOAD_CASE(AGG_P_I8, int8_t)
        LOAD_CASE(AGG_P_I16, int16_t)
        LOAD_CASE(AGG_P_I32, int32_t)
        LOAD_CASE(AGG_P_I64, int64_t)
        LOAD_CASE(AGG_P_F32, float)
        LOAD_CASE(AGG_P_F64, double)
#undef LOAD_CASE
    default: return false;
    }
}

static void put_double(vec *out, uint32_t row, double v) {
    if (out->type.id == TYPE_REAL)
        VEC_DATA(out, float)[row] = (float)v;
    else
        VEC_DATA(out, double)[row] = v;
    vec_set_valid(out, row);
}

/* ---- One variable: central moments ---------------------------------------------------------- */

typedef struct moments_state {
    int64_t n;
    double mean;
    double m2; /* sum of (x - mean)^2 */
    double m3; /* sum of (x - mean)^3 (skewness, kurtosis only) */
    double m4; /* sum of (x - mean)^4 (kurtosis only) */
} moments_state;

AGG_ZERO_INIT(moments_init, moments_state)

/* Folds one value into mean/M2 (Welford). */
static inline void welford2(moments_state *s, double x) {
    s->n++;
    double delta = x - s->mean;
    s->mean += delta / (double)s->n;
    s->m2 += delta * (x - s->mean);
}

/* Folds one value into mean/M2/M3/M4 (Pébay / Terriberry). */
static inline void welford4(moments_state *s, double x) {
    double n1 = (double)s->n;
    s->n++;
    double n = (double)s->n;
    double delta = x - s->mean, dn = delta / n, dn2 = dn * dn, term1 = delta * dn * n1;
    s->mean += dn;
    s->m4 += term1 * dn2 * (n * n - 3 * n + 3) + 6 * dn2 * s->m2 - 4 * dn * s->m3;
    s->m3 += term1 * dn * (n - 2) - 3 * dn * s->m2;
    s->m2 += term1;
}

/* Merges b into a (Chan et al.; Pébay 2008 for M3, M4). `order` is 2 or 4. */
static void moments_merge(moments_state *a, const moments_state *b, int order) {
    if (b->n == 0) return;
    if (a->n == 0) {
        *a = *b;
        return;
    }
    double na = (double)a->n, nb = (double)b->n, n = na + nb;
    double delta = b->mean - a->mean, d2 = delta * delta;
    double m2 = a->m2 + b->m2 + d2 * na * nb / n;
    if (order == 4) {
        double d3 = d2 * delta, d4 = d2 * d2;
        double m3 = a->m3 + b->m3 + d3 * na * nb * (na - nb) / (n * n) +
                    3 * delta * (na * b->m2 - nb * a->m2) / n;
        double m4 = a->m4 + b->m4 + d4 * na * nb * (na * na - na * nb + nb * nb) / (n * n * n) +
                    6 * d2 * (na * na * b->m2 + nb * nb * a->m2) / (n * n) +
                    4 * delta * (na * b->m3 - nb * a->m3) / n;
        a->m3 = m3;
        a->m4 = m4;
    }
    a->mean += delta * nb / n;
    a->m2 = m2;
    a->n += b->n;
}

/* The moments of one block's valid values, computed in two passes (mean, then deviations):
 * vectorizable and as accurate as Welford. */
static void block_moments(const double *x, const uint8_t *ok, uint32_t n, int order,
                          moments_state *b) {
    double sum = 0;
    int64_t cnt = 0;
    for (uint32_t k = 0; k < n; k++) {
        sum += ok[k] ? x[k] : 0.0;
        cnt += ok[k];
    }
    memset(b, 0, sizeof *b);
    if (cnt == 0) return;
    b->n = cnt;
    b->mean = sum / (double)cnt;
    double m2 = 0, m3 = 0, m4 = 0;
    for (uint32_t k = 0; k < n; k++) {
        double d = ok[k] ? x[k] - b->mean : 0.0, d2 = d * d;
        m2 += d2;
        if (order == 4) {
            m3 += d2 * d;
            m4 += d2 * d2;
        }
    }
    b->m2 = m2;
    b->m3 = m3;
    b->m4 = m4;
}

static int moments_update(func_ctx *ctx, const vec *const *args, const uint32_t *sel,
                          uint32_t count, uint8_t **states, int order, const char *fn) {
    vec_view u;
    vec_view_init(&u, args[0]);
    agg_phys cls = agg_phys_of(args[0]->type);
    uint8_t *one = agg_uniform_state(sel, count, states);
    moments_state local;
    memset(&local, 0, sizeof local);
    double x[STAT_BLOCK];
    uint8_t ok[STAT_BLOCK];
    for (uint32_t from = 0; from < count; from += STAT_BLOCK) {
        uint32_t n = count - from < STAT_BLOCK ? count - from : STAT_BLOCK;
        if (!load_block(&u, cls, sel, from, n, x, ok)) return unsupported(ctx, fn, args[0]->type);
        if (one) {
            moments_state b;
            block_moments(x, ok, n, order, &b);
            moments_merge(&local, &b, order);
            continue;
        }
        for (uint32_t k = 0; k < n; k++) {
            if (!ok[k]) continue;
            moments_state *s = (moments_state *)states[sel ? sel[from + k] : from + k];
            if (order == 4)
                welford4(s, x[k]);
            else
                welford2(s, x[k]);
        }
    }
    if (one) moments_merge((moments_state *)one, &local, order);
    return SQE_OK;
}

static int var_update(func_ctx *ctx, const vec *const *args, uint32_t n_args, const uint32_t *sel,
                      uint32_t count, uint8_t **states) {
    return moments_update(ctx, args, sel, count, states, 2, "variance");
}

static int moments4_update(func_ctx *ctx, const vec *const *args, uint32_t n_args,
                           const uint32_t *sel, uint32_t count, uint8_t **states) {
    return moments_update(ctx, args, sel, count, states, 4, "skewness/kurtosis");
}

static int var_combine(func_ctx *ctx, const uint8_t *src, uint8_t *dst) {
    moments_merge((moments_state *)dst, (const moments_state *)src, 2);
    return SQE_OK;
}

static int moments4_combine(func_ctx *ctx, const uint8_t *src, uint8_t *dst) {
    moments_merge((moments_state *)dst, (const moments_state *)src, 4);
    return SQE_OK;
}

/* Finalizers: NULL when fewer than `min_n` rows. */
#define MOMENT_FINALIZE(name, min_n, expr)                                                         \
    static int name(func_ctx *ctx, const uint8_t *state, vec *out, uint32_t row) {                 \
        const moments_state *s = (const moments_state *)state;                                     \
        if (s->n < (min_n)) return agg_set_null(ctx, out, row);                                    \
        double n = (double)s->n;                                                                   \
        (void)n;                                                                                   \
        put_double(out, row, (expr));                                                              \
        return SQE_OK;                                                                             \
    }

MOMENT_FINALIZE(var_samp_finalize, 2, s->m2 / (n - 1))
MOMENT_FINALIZE(var_pop_finalize, 1, s->m2 / n)
MOMENT_FINALIZE(stddev_samp_finalize, 2, sqrt(s->m2 / (n - 1)))
MOMENT_FINALIZE(stddev_pop_finalize, 1, sqrt(s->m2 / n))
/* Trino: sqrt(n) * m3 / m2^1.5 (Fisher's moment coefficient). */
MOMENT_FINALIZE(skewness_finalize, 3, sqrt(n) * s->m3 / pow(s->m2, 1.5))
/* Trino: sample excess kurtosis. */
MOMENT_FINALIZE(kurtosis_finalize, 4,
                (n - 1) * n * (n + 1) / ((n - 2) * (n - 3)) * s->m4 / (s->m2 * s->m2) -
                    3 * (n - 1) * (n - 1) / ((n - 2) * (n - 3)))

/* ---- Two variables: co-moments ------------------------------------------------------------ */

typedef struct covar_state {
    int64_t n;
    double mean_x, mean_y;
    double m2_x, m2_y; /* sums of squared deviations */
    double c2;         /* sum of (x - mean_x)(y - mean_y) */
} covar_state;

AGG_ZERO_INIT(covar_init, covar_state)

static inline void covar_add(covar_state *s, double y, double x) {
    s->n++;
    double n = (double)s->n;
    double dx = x - s->mean_x, dy = y - s->mean_y;
    s->mean_x += dx / n;
    s->mean_y += dy / n;
    s->m2_x += dx * (x - s->mean_x);
    s->m2_y += dy * (y - s->mean_y);
    s->c2 += dx * (y - s->mean_y);
}

static void covar_merge(covar_state *a, const covar_state *b) {
    if (b->n == 0) return;
    if (a->n == 0) {
        *a = *b;
        return;
    }
    double na = (double)a->n, nb = (double)b->n, n = na + nb;
    double dx = b->mean_x - a->mean_x, dy = b->mean_y - a->mean_y;
    a->c2 += b->c2 + dx * dy * na * nb / n;
    a->m2_x += b->m2_x + dx * dx * na * nb / n;
    a->m2_y += b->m2_y + dy * dy * na * nb / n;
    a->mean_x += dx * nb / n;
    a->mean_y += dy * nb / n;
    a->n += b->n;
}

/* args are (y, x), as in Trino's corr(y, x) and regr_slope(y, x). */
/* The co-moments of one block's valid pairs, in two passes. */
static void block_covar(const double *y, const double *x, const uint8_t *oky, const uint8_t *okx,
                        uint32_t n, covar_state *b) {
    double sx = 0, sy = 0;
    int64_t cnt = 0;
    for (uint32_t k = 0; k < n; k++) {
        bool ok = oky[k] & okx[k];
        sx += ok ? x[k] : 0.0;
        sy += ok ? y[k] : 0.0;
        cnt += ok;
    }
    memset(b, 0, sizeof *b);
    if (cnt == 0) return;
    b->n = cnt;
    b->mean_x = sx / (double)cnt;
    b->mean_y = sy / (double)cnt;
    double m2x = 0, m2y = 0, c2 = 0;
    for (uint32_t k = 0; k < n; k++) {
        bool ok = oky[k] & okx[k];
        double dx = ok ? x[k] - b->mean_x : 0.0, dy = ok ? y[k] - b->mean_y : 0.0;
        m2x += dx * dx;
        m2y += dy * dy;
        c2 += dx * dy;
    }
    b->m2_x = m2x;
    b->m2_y = m2y;
    b->c2 = c2;
}

static int covar_update(func_ctx *ctx, const vec *const *args, uint32_t n_args,
                        const uint32_t *sel, uint32_t count, uint8_t **states) {
    vec_view uy, ux;
    vec_view_init(&uy, args[0]);
    vec_view_init(&ux, args[1]);
    agg_phys cy = agg_phys_of(args[0]->type), cx = agg_phys_of(args[1]->type);
    uint8_t *one = agg_uniform_state(sel, count, states);
    covar_state local;
    memset(&local, 0, sizeof local);
    double y[STAT_BLOCK], x[STAT_BLOCK];
    uint8_t oky[STAT_BLOCK], okx[STAT_BLOCK];
    for (uint32_t from = 0; from < count; from += STAT_BLOCK) {
        uint32_t n = count - from < STAT_BLOCK ? count - from : STAT_BLOCK;
        if (!load_block(&uy, cy, sel, from, n, y, oky)) return unsupported(ctx, "covariance", args[0]->type);
        if (!load_block(&ux, cx, sel, from, n, x, okx)) return unsupported(ctx, "covariance", args[1]->type);
        if (one) {
            covar_state b;
            block_covar(y, x, oky, okx, n, &b);
            covar_merge(&local, &b);
            continue;
        }
        for (uint32_t k = 0; k < n; k++) {
            if (!(oky[k] & okx[k])) continue;
            covar_state *s = (covar_state *)states[sel ? sel[from + k] : from + k];
            covar_add(s, y[k], x[k]);
        }
    }
    if (one) covar_merge((covar_state *)one, &local);
    return SQE_OK;
}

static int covar_combine(func_ctx *ctx, const uint8_t *src, uint8_t *dst) {
    covar_merge((covar_state *)dst, (const covar_state *)src);
    return SQE_OK;
}

static int covar_samp_finalize(func_ctx *ctx, const uint8_t *state, vec *out, uint32_t row) {
    const covar_state *s = (const covar_state *)state;
    if (s->n < 2) return agg_set_null(ctx, out, row);
    put_double(out, row, s->c2 / (double)(s->n - 1));
    return SQE_OK;
}

static int covar_pop_finalize(func_ctx *ctx, const uint8_t *state, vec *out, uint32_t row) {
    const covar_state *s = (const covar_state *)state;
    if (s->n < 1) return agg_set_null(ctx, out, row);
    put_double(out, row, s->c2 / (double)s->n);
    return SQE_OK;
}

/* Writes v, or NULL when no rows or v is not finite. */
static int put_finite(func_ctx *ctx, const covar_state *s, vec *out, uint32_t row, double v) {
    if (s->n == 0 || !isfinite(v)) return agg_set_null(ctx, out, row);
    put_double(out, row, v);
    return SQE_OK;
}

static int corr_finalize(func_ctx *ctx, const uint8_t *state, vec *out, uint32_t row) {
    const covar_state *s = (const covar_state *)state;
    return put_finite(ctx, s, out, row, s->c2 / sqrt(s->m2_x * s->m2_y));
}

static int regr_slope_finalize(func_ctx *ctx, const uint8_t *state, vec *out, uint32_t row) {
    const covar_state *s = (const covar_state *)state;
    return put_finite(ctx, s, out, row, s->c2 / s->m2_x);
}

static int regr_intercept_finalize(func_ctx *ctx, const uint8_t *state, vec *out, uint32_t row) {
    const covar_state *s = (const covar_state *)state;
    return put_finite(ctx, s, out, row, s->mean_y - s->c2 / s->m2_x * s->mean_x);
}

/* ---- Table --------------------------------------------------------------------------------- */

#define STAT(name, args, ret, state, init, update, combine, finalize, desc)                        \
    {name, args, ret, NULL, NULL, AGG_STATE_SIZE(state), init, update, combine, finalize, NULL, 0, \
     desc}

/* One-variable functions: every integer type and double (real and decimal coerce to double,
 * as in Trino, where only bigint and double are declared). */
#define ONE_VAR(name, update, combine, finalize, desc)                                             \
    STAT(name, "tinyint", "double", moments_state, moments_init, update, combine, finalize, desc), \
    STAT(name, "smallint", "double", moments_state, moments_init, update, combine, finalize, desc),\
    STAT(name, "integer", "double", moments_state, moments_init, update, combine, finalize, desc), \
    STAT(name, "bigint", "double", moments_state, moments_init, update, combine, finalize, desc),  \
    STAT(name, "double", "double", moments_state, moments_init, update, combine, finalize, desc)

#define TWO_VAR(name, finalize, desc)                                                              \
    STAT(name, "double,double", "double", covar_state, covar_init, covar_update, covar_combine,    \
         finalize, desc),                                                                          \
    STAT(name, "real,real", "real", covar_state, covar_init, covar_update, covar_combine,          \
         finalize, desc)

static const func_agg_def stats_defs[] = {
    ONE_VAR("variance", var_update, var_combine, var_samp_finalize, "Sample variance"),
    ONE_VAR("var_samp", var_update, var_combine, var_samp_finalize, "Sample variance"),
    ONE_VAR("var_pop", var_update, var_combine, var_pop_finalize, "Population variance"),
    ONE_VAR("stddev", var_update, var_combine, stddev_samp_finalize, "Sample standard deviation"),
    ONE_VAR("stddev_samp", var_update, var_combine, stddev_samp_finalize,
            "Sample standard deviation"),
    ONE_VAR("stddev_pop", var_update, var_combine, stddev_pop_finalize,
            "Population standard deviation"),
    ONE_VAR("skewness", moments4_update, moments4_combine, skewness_finalize, "Skewness"),
    ONE_VAR("kurtosis", moments4_update, moments4_combine, kurtosis_finalize,
            "Sample excess kurtosis"),
    TWO_VAR("covar_samp", covar_samp_finalize, "Sample covariance of (y, x)"),
    TWO_VAR("covar_pop", covar_pop_finalize, "Population covariance of (y, x)"),
    TWO_VAR("corr", corr_finalize, "Correlation coefficient of (y, x)"),
    TWO_VAR("regr_slope", regr_slope_finalize, "Slope of the least-squares line of y on x"),
    TWO_VAR("regr_intercept", regr_intercept_finalize,
            "Intercept of the least-squares line of y on x"),
};

const func_agg_def *func_agg_family_stats(uint32_t *count) {
    *count = (uint32_t)(sizeof stats_defs / sizeof stats_defs[0]);
    return stats_defs;
}
