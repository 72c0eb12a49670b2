/*
 * test_agg.c: unit tests of the aggregate families (func/agg_*.c) and the window function
 * declarations (func/window_list.c), driving init/update/combine/finalize/destroy directly.
 *
 * Generic tests run every aggregate def of every family on generated input (every argument
 * type the signature names, NULLs included) and check that
 *   - a single pass, split-and-combine at several points (also into an empty state), and the
 *     grouped per-row path (rows spread over three states) give the same result;
 *   - empty input gives 0 for the counting aggregates and NULL otherwise, all-NULL input the
 *     documented result;
 *   - destroy returns every byte a state charged to the query tracker (and ASan sees no leak).
 * Specific tests check values: overflow of sum(bigint), decimal sums and HALF_UP averages,
 * NaN and string handling of min/max, min_by ties, the statistics against two-pass formulas,
 * HyperLogLog error on 100k distinct values, KLL rank error, the collect aggregates' layouts.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/err.h"
#include "common/mem.h"
#include "func/agg_value.h"
#include "func/func.h"
#include "types/decimal.h"
#include "types/types.h"
#include "vec/vec.h"

/* ---- Harness -------------------------------------------------------------------------------- */

static mem_tracker g_tracker; /* what states charge; must be back to 0 after destroy */
static sqe_error g_err;

static func_ctx make_ctx(void) {
    func_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.tracker = &g_tracker;
    ctx.err = &g_err;
    return ctx;
}

typedef const func_agg_def *(*family_fn)(uint32_t *);
static const family_fn families[] = {func_agg_family_basic, func_agg_family_stats,
                                     func_agg_family_approx, func_agg_family_collect};

static const func_agg_def *find_agg(const char *name, const char *args) {
    for (size_t f = 0; f < sizeof families / sizeof families[0]; f++) {
        uint32_t n;
        const func_agg_def *defs = families[f](&n);
        for (uint32_t i = 0; i < n; i++)
            if (!strcmp(defs[i].name, name) && !strcmp(defs[i].args, args)) return &defs[i];
    }
    fail_msg("aggregate %s(%s) not found", name, args);
    return NULL;
}

static uint8_t *state_new(const func_agg_def *d) {
    size_t size = (d->state_size + 15) & ~(size_t)15;
    uint8_t *s = aligned_alloc(16, size ? size : 16);
    assert_non_null(s);
    memset(s, 0xa5, size); /* init must set every byte it relies on */
    d->init(NULL, s);
    return s;
}

static void state_free(const func_agg_def *d, uint8_t *s) {
    if (d->destroy) d->destroy(s);
    free(s);
}

/* Updates `st` with rows sel[0..count) of n_rows-row arguments. */
static int feed(const func_agg_def *d, const vec *const *args, uint32_t n_args, uint32_t n_rows,
                const uint32_t *sel, uint32_t count, uint8_t *st) {
    func_ctx ctx = make_ctx();
    uint8_t **states = calloc(n_rows ? n_rows : 1, sizeof *states);
    for (uint32_t r = 0; r < n_rows; r++) states[r] = st;
    int rc = d->update(&ctx, args, n_args, sel, count, states);
    free(states);
    return rc;
}

static int finalize(const func_agg_def *d, const uint8_t *st, vec *out, uint32_t row) {
    func_ctx ctx = make_ctx();
    return d->finalize(&ctx, st, out, row);
}

static int combine(const func_agg_def *d, const uint8_t *src, uint8_t *dst) {
    func_ctx ctx = make_ctx();
    return d->combine(&ctx, src, dst);
}

static vec *vnew(sqe_type t, uint32_t n) {
    vec *v = calloc(1, sizeof *v);
    assert_non_null(v);
    assert_int_equal(vec_init(v, t, n, NULL, NULL), SQE_OK);
    return v;
}

static void vfree(vec *v) {
    vec_destroy(v);
    free(v);
}

/* Single pass over rows sel[0..count) (all n_rows rows when sel is NULL) into out[row]. */
static int run_sel(const func_agg_def *d, const vec *const *args, uint32_t n_args, uint32_t n_rows,
                   const uint32_t *sel, uint32_t count, vec *out, uint32_t row) {
    uint8_t *st = state_new(d);
    int rc = feed(d, args, n_args, n_rows, sel, count, st);
    if (rc == SQE_OK) rc = finalize(d, st, out, row);
    state_free(d, st);
    return rc;
}

static int run(const func_agg_def *d, const vec *const *args, uint32_t n_args, uint32_t n,
               vec *out, uint32_t row) {
    return run_sel(d, args, n_args, n, NULL, n, out, row);
}

/* Rows [0,k) into A, [k,n) into B, then A and B combined into an empty C -> out[row]. Also
 * combines B into A and checks that gives the same result. */
static int run_split(const func_agg_def *d, const vec *const *args, uint32_t n_args, uint32_t n,
                     uint32_t k, vec *out, uint32_t row, vec *out2, uint32_t row2) {
    uint32_t *sel = malloc(sizeof(uint32_t) * (n ? n : 1));
    for (uint32_t r = 0; r < n; r++) sel[r] = r;
    uint8_t *a = state_new(d), *b = state_new(d), *c = state_new(d);
    int rc = feed(d, args, n_args, n, sel, k, a);
    if (rc == SQE_OK) rc = feed(d, args, n_args, n, sel + k, n - k, b);
    if (rc == SQE_OK) rc = combine(d, a, c);
    if (rc == SQE_OK) rc = combine(d, b, c);
    if (rc == SQE_OK) rc = finalize(d, c, out, row);
    if (rc == SQE_OK) rc = combine(d, b, a);
    if (rc == SQE_OK) rc = finalize(d, a, out2, row2);
    state_free(d, a);
    state_free(d, b);
    state_free(d, c);
    free(sel);
    return rc;
}

/* Are out values a[ra] and b[rb] equal (doubles and reals within a relative tolerance)? */
static bool values_close(const vec *a, uint32_t ra, const vec *b, uint32_t rb) {
    bool na = vec_is_null(a, ra), nb = vec_is_null(b, rb);
    if (na || nb) return na == nb;
    if (a->type.id == TYPE_DOUBLE || a->type.id == TYPE_REAL) {
        double x = a->type.id == TYPE_DOUBLE ? VEC_DATA(a, double)[ra] : VEC_DATA(a, float)[ra];
        double y = b->type.id == TYPE_DOUBLE ? VEC_DATA(b, double)[rb] : VEC_DATA(b, float)[rb];
        if (isnan(x) || isnan(y)) return isnan(x) && isnan(y);
        double tol = a->type.id == TYPE_DOUBLE ? 1e-9 : 1e-5;
        return fabs(x - y) <= tol * fmax(1.0, fmax(fabs(x), fabs(y)));
    }
    return agg_value_equal(a, ra, b, rb);
}

static const char *def_label(const func_agg_def *d) {
    static char buf[160];
    snprintf(buf, sizeof buf, "%s(%s)", d->name, d->args);
    return buf;
}

/* Single pass == every split == grouped per-row path; no bytes left on the tracker. */
static void check_consistent(const func_agg_def *d, const vec *const *args, uint32_t n_args,
                             uint32_t n, sqe_type ret) {
    vec *ref = vnew(ret, 1);
    int rc = run(d, args, n_args, n, ref, 0);
    if (rc != SQE_OK) fail_msg("%s: %s", def_label(d), g_err.message);
    uint32_t splits[] = {0, 1, n / 3, n / 2, n > 0 ? n - 1 : 0, n};
    for (size_t s = 0; s < sizeof splits / sizeof splits[0]; s++) {
        vec *o1 = vnew(ret, 1), *o2 = vnew(ret, 1);
        rc = run_split(d, args, n_args, n, splits[s], o1, 0, o2, 0);
        if (rc != SQE_OK) fail_msg("%s split %u: %s", def_label(d), splits[s], g_err.message);
        if (!values_close(ref, 0, o1, 0) || !values_close(ref, 0, o2, 0))
            fail_msg("%s: split at %u differs from one pass", def_label(d), splits[s]);
        vfree(o1);
        vfree(o2);
    }
    /* Grouped: row r goes to group r % 3, in one update call. */
    enum { G = 3 };
    uint8_t *g[G];
    for (int k = 0; k < G; k++) g[k] = state_new(d);
    uint8_t **states = calloc(n ? n : 1, sizeof *states);
    for (uint32_t r = 0; r < n; r++) states[r] = g[r % G];
    func_ctx ctx = make_ctx();
    rc = d->update(&ctx, args, n_args, NULL, n, states);
    if (rc != SQE_OK) fail_msg("%s grouped: %s", def_label(d), g_err.message);
    vec *go = vnew(ret, G), *gref = vnew(ret, G);
    uint32_t *sel = calloc(n ? n : 1, sizeof *sel);
    for (int k = 0; k < G; k++) {
        assert_int_equal(finalize(d, g[k], go, (uint32_t)k), SQE_OK);
        uint32_t cnt = 0;
        for (uint32_t r = (uint32_t)k; r < n; r += G) sel[cnt++] = r;
        assert_int_equal(run_sel(d, args, n_args, n, sel, cnt, gref, (uint32_t)k), SQE_OK);
        if (!values_close(go, (uint32_t)k, gref, (uint32_t)k))
            fail_msg("%s: grouped result of group %d differs", def_label(d), k);
        state_free(d, g[k]);
    }
    free(sel);
    free(states);
    vfree(go);
    vfree(gref);
    vfree(ref);
    if (atomic_load(&g_tracker.used) != 0)
        fail_msg("%s: %lld bytes not released by destroy", def_label(d), (long long)atomic_load(&g_tracker.used));
}

/* ---- Generated input -------------------------------------------------------------------- */

static uint64_t lcg_state = 42;
static uint64_t rnd(void) {
    lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return lcg_state >> 17;
}

/* Writes a generated non-NULL value derived from x into flat v[row] (nested: appends). */
static void gen_value(vec *v, uint32_t row, uint64_t x) {
    int64_t small = (int64_t)(x % 50) - 20;
    switch ((type_id)v->type.id) {
    case TYPE_BOOLEAN: VEC_DATA(v, uint8_t)[row] = (uint8_t)(x & 1); break;
    case TYPE_TINYINT: VEC_DATA(v, int8_t)[row] = (int8_t)small; break;
    case TYPE_SMALLINT: VEC_DATA(v, int16_t)[row] = (int16_t)(small * 100); break;
    case TYPE_INTEGER:
    case TYPE_DATE: VEC_DATA(v, int32_t)[row] = (int32_t)(small * 1000); break;
    case TYPE_INTERVAL_YM: VEC_DATA(v, int32_t)[row] = (int32_t)small; break;
    case TYPE_BIGINT:
    case TYPE_TIME:
    case TYPE_TIMESTAMP:
    case TYPE_INTERVAL_DS: VEC_DATA(v, int64_t)[row] = small * 1000003; break;
    case TYPE_REAL: VEC_DATA(v, float)[row] = (float)small / 8; break;
    case TYPE_DOUBLE: VEC_DATA(v, double)[row] = (double)(x % 1000) / 8 - 40; break;
    case TYPE_DECIMAL:
        decimal_put(v->data, v->type, row,
                    type_decimal_is_long(v->type) ? (int128)small * ((int128)1 << 80) + (int128)x : small * 12345);
        break;
    case TYPE_TIMESTAMP_TZ:
        VEC_DATA(v, sqe_timestamp_tz)[row] = (sqe_timestamp_tz){small * 1000000, 0, 0};
        break;
    case TYPE_UUID:
        for (int k = 0; k < 16; k++) ((uint8_t *)v->data)[row * 16 + k] = (uint8_t)(x % 7 + (uint64_t)k);
        break;
    case TYPE_VARCHAR:
    case TYPE_CHAR:
    case TYPE_VARBINARY:
    case TYPE_JSON: {
        char buf[64];
        int len = snprintf(buf, sizeof buf, "v%02d", (int)(x % 40));
        len += snprintf(buf + len, sizeof buf - (size_t)len, "%.*s", (int)(x % 23), "-abcdefghijklmnopqrstuvw");
        bool ok = true;
        VEC_DATA(v, sqe_str)[row] = vec_str_copy(v, buf, (uint32_t)len, &ok);
        assert_true(ok);
        break;
    }
    case TYPE_ARRAY: {
        uint32_t len = (uint32_t)(x % 4), at = v->child_len;
        assert_int_equal(vec_reserve(&v->children[0], at + len, NULL), SQE_OK);
        for (uint32_t k = 0; k < len; k++) gen_value(&v->children[0], at + k, x / 3 + k * 7);
        v->child_len = at + len;
        VEC_DATA(v, sqe_list_entry)[row] = (sqe_list_entry){at, len};
        break;
    }
    default: fail_msg("no generator for type %d", v->type.id);
    }
}

/* A vector of n generated values; every `null_every`-th row NULL (0: none). */
static vec *gen_vec(sqe_type t, uint32_t n, uint32_t null_every) {
    vec *v = vnew(t, n);
    for (uint32_t r = 0; r < n; r++) {
        if (null_every && r % null_every == null_every - 1)
            vec_set_null(v, r);
        else
            gen_value(v, r, rnd());
    }
    return v;
}

static vec *const_double_vec(double x, uint32_t n) {
    vec *v = vnew(type_make(TYPE_DOUBLE), n);
    for (uint32_t r = 0; r < n; r++) VEC_DATA(v, double)[r] = x;
    return v;
}

static vec *const_array_double_vec(const double *xs, uint32_t k, uint32_t n) {
    vec *v = vnew(type_array(type_make(TYPE_DOUBLE)), n);
    assert_int_equal(vec_reserve(&v->children[0], k * n, NULL), SQE_OK);
    for (uint32_t r = 0; r < n; r++) {
        for (uint32_t j = 0; j < k; j++) VEC_DATA(&v->children[0], double)[r * k + j] = xs[j];
        VEC_DATA(v, sqe_list_entry)[r] = (sqe_list_entry){r * k, k};
    }
    v->child_len = k * n;
    return v;
}

static vec *str_vec(const char *const *xs, uint32_t n) {
    vec *v = vnew(type_varchar(0), n);
    for (uint32_t r = 0; r < n; r++) {
        if (!xs[r]) {
            vec_set_null(v, r);
            continue;
        }
        bool ok = true;
        VEC_DATA(v, sqe_str)[r] = vec_str_copy(v, xs[r], (uint32_t)strlen(xs[r]), &ok);
    }
    return v;
}

/* Type bindings of one generic run (variant 0..2). */
typedef struct bindings {
    sqe_type t, k, v, dec;
} bindings;

static bindings bindings_for(int variant) {
    bindings b;
    sqe_type i32 = type_make(TYPE_INTEGER), i64 = type_make(TYPE_BIGINT), vc = type_varchar(0);
    switch (variant) {
    case 0: b = (bindings){i64, i64, vc, type_decimal(10, 2)}; break;
    case 1: b = (bindings){vc, vc, i64, type_decimal(30, 4)}; break;
    default: b = (bindings){type_array(i32), i64, type_make(TYPE_DOUBLE), type_decimal(18, 0)}; break;
    }
    return b;
}

/* Parses one signature token (or a ret string) with the bindings. */
static sqe_type sig_token_type(const char *s, size_t len, const bindings *b) {
    char tok[128];
    assert_true(len < sizeof tok);
    memcpy(tok, s, len);
    tok[len] = 0;
    if (!strcmp(tok, "T")) return b->t;
    if (!strcmp(tok, "K")) return b->k;
    if (!strcmp(tok, "V")) return b->v;
    if (!strcmp(tok, "any")) return b->t;
    if (!strcmp(tok, "decimal")) return b->dec;
    if (!strcmp(tok, "varchar")) return type_varchar(0);
    if (!strcmp(tok, "char")) return type_char(6);
    if (!strcmp(tok, "time")) return type_make(TYPE_TIME);
    if (!strcmp(tok, "timestamp")) return type_make(TYPE_TIMESTAMP);
    if (!strcmp(tok, "timestamp with time zone")) return type_make(TYPE_TIMESTAMP_TZ);
    if (!strncmp(tok, "array(", 6)) return type_array(sig_token_type(tok + 6, len - 7, b));
    if (!strncmp(tok, "map(", 4)) {
        int depth = 0;
        for (size_t i = 4; i < len - 1; i++) {
            if (tok[i] == '(') depth++;
            if (tok[i] == ')') depth--;
            if (tok[i] == ',' && depth == 0)
                return type_map(sig_token_type(tok + 4, i - 4, b), sig_token_type(tok + i + 1, len - i - 2, b));
        }
    }
    sqe_type t;
    if (type_parse(tok, len, &t) != 0) fail_msg("cannot parse signature type '%s'", tok);
    return t;
}

/* Splits def->args into types; returns the count. */
static uint32_t sig_arg_types(const func_agg_def *d, const bindings *b, sqe_type *out) {
    const char *s = d->args;
    uint32_t n = 0;
    if (!*s) return 0;
    size_t start = 0, len = strlen(s);
    int depth = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i < len && s[i] == '(') depth++;
        if (i < len && s[i] == ')') depth--;
        if (i == len || (s[i] == ',' && depth == 0)) {
            out[n++] = sig_token_type(s + start, i - start, b);
            start = i + 1;
        }
    }
    return n;
}

static sqe_type def_ret_type(const func_agg_def *d, const sqe_type *args, uint32_t n_args,
                             const bindings *b) {
    if (!strcmp(d->ret, "?")) {
        sqe_type t;
        assert_int_equal(d->ret_fn(args, n_args, &t, NULL), SQE_OK);
        return t;
    }
    return sig_token_type(d->ret, strlen(d->ret), b);
}

/* Builds generated arguments for def d: n rows, NULLs every `null_every` rows in the first
 * argument (and in other data arguments); parameter-like arguments get valid constants. */
static uint32_t gen_args(const func_agg_def *d, const bindings *b, uint32_t n, uint32_t null_every,
                         vec **args, sqe_type *ret) {
    sqe_type types[8];
    uint32_t n_args = sig_arg_types(d, b, types);
    for (uint32_t i = 0; i < n_args; i++) {
        bool last = i + 1 == n_args;
        if (!strcmp(d->name, "approx_percentile") && last) {
            static const double ps[] = {0.1, 0.5, 0.9};
            args[i] = types[i].id == TYPE_ARRAY ? const_array_double_vec(ps, 3, n) : const_double_vec(0.5, n);
        } else if (!strcmp(d->name, "approx_percentile") && i == 1) {
            args[i] = vnew(types[i], n);
            for (uint32_t r = 0; r < n; r++) VEC_DATA(args[i], int64_t)[r] = 1 + (int64_t)(rnd() % 5);
        } else if (!strcmp(d->name, "approx_distinct") && i == 1) {
            args[i] = const_double_vec(0.01, n);
        } else if (!strcmp(d->name, "listagg") && i == 1) {
            const char **seps = calloc(n, sizeof *seps);
            for (uint32_t r = 0; r < n; r++) seps[r] = ", ";
            args[i] = str_vec(seps, n);
            free(seps);
        } else {
            args[i] = gen_vec(types[i], n, i == 0 ? null_every : (null_every ? null_every + 4 : 0));
        }
    }
    *ret = def_ret_type(d, types, n_args, b);
    return n_args;
}

static void free_args(vec **args, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) vfree(args[i]);
}

/* Every aggregate def of every family. */
static const func_agg_def *all_defs[1024];
static uint32_t n_all_defs;

static void collect_defs(void) {
    n_all_defs = 0;
    for (size_t f = 0; f < sizeof families / sizeof families[0]; f++) {
        uint32_t n;
        const func_agg_def *defs = families[f](&n);
        for (uint32_t i = 0; i < n && n_all_defs < 1024; i++) all_defs[n_all_defs++] = &defs[i];
    }
}

#define FOR_EACH_DEF(d)                                                                            \
    for (uint32_t def_i_ = 0; def_i_ < n_all_defs; def_i_++)                                        \
        for (const func_agg_def *d = all_defs[def_i_]; d; d = NULL)

/* ---- Generic tests over every def ---------------------------------------------------------- */

static void test_every_agg_split_combine_grouped(void **unused) {
    (void)unused;
    uint32_t tested = 0;
    FOR_EACH_DEF(d) {
        for (int variant = 0; variant < 3; variant++) {
            bindings b = bindings_for(variant);
            vec *args[8];
            sqe_type ret;
            uint32_t n = 150;
            uint32_t n_args = gen_args(d, &b, n, 7, args, &ret);
            check_consistent(d, (const vec *const *)args, n_args, n, ret);
            free_args(args, n_args);
            tested++;
        }
    }
    assert_true(tested > 100);
}

static bool counts_to_zero(const func_agg_def *d) {
    return !strcmp(d->name, "count") || !strcmp(d->name, "count_if") || !strcmp(d->name, "approx_distinct");
}

static void test_every_agg_empty_input(void **unused) {
    (void)unused;
    FOR_EACH_DEF(d) {
        bindings b = bindings_for(0);
        vec *args[8];
        sqe_type ret;
        uint32_t n_args = gen_args(d, &b, 4, 0, args, &ret);
        vec *out = vnew(ret, 1);
        /* No rows at all: a fresh state, and an update with count 0. */
        uint32_t sel[1] = {0};
        assert_int_equal(run_sel(d, (const vec *const *)args, n_args, 4, sel, 0, out, 0), SQE_OK);
        if (counts_to_zero(d)) {
            assert_false(vec_is_null(out, 0));
            assert_int_equal(VEC_DATA(out, int64_t)[0], 0);
        } else if (vec_is_null(out, 0) == false) {
            fail_msg("%s: empty input should give NULL", def_label(d));
        }
        vfree(out);
        free_args(args, n_args);
    }
    assert_int_equal(atomic_load(&g_tracker.used), 0);
}

static void test_every_agg_all_null_input(void **unused) {
    (void)unused;
    FOR_EACH_DEF(d) {
        if (!d->args[0]) continue; /* count(*) */
        bindings b = bindings_for(1);
        vec *args[8];
        sqe_type ret;
        uint32_t n = 9;
        uint32_t n_args = gen_args(d, &b, n, 1, args, &ret); /* every row of arg 0 NULL */
        vec *out = vnew(ret, 1);
        int rc = run(d, (const vec *const *)args, n_args, n, out, 0);
        if (rc != SQE_OK) fail_msg("%s: %s", def_label(d), g_err.message);
        if (counts_to_zero(d)) {
            assert_int_equal(VEC_DATA(out, int64_t)[0], 0);
        } else if (!strcmp(d->name, "checksum") || !strcmp(d->name, "array_agg") ||
                   !strcmp(d->name, "min_by") || !strcmp(d->name, "max_by")) {
            /* checksum counts NULL rows; array_agg keeps NULL elements; min_by/max_by have a
             * non-NULL key (arg 1) and a NULL value: a non-NULL result only for the first two. */
            bool null_expected = !strcmp(d->name, "min_by") || !strcmp(d->name, "max_by");
            if (vec_is_null(out, 0) != null_expected) fail_msg("%s: wrong all-NULL result", def_label(d));
        } else if (!vec_is_null(out, 0)) {
            fail_msg("%s: all-NULL input should give NULL", def_label(d));
        }
        vfree(out);
        free_args(args, n_args);
    }
    assert_int_equal(atomic_load(&g_tracker.used), 0);
}

/* Every def is complete and its state size is a multiple of 16. */
static void test_defs_well_formed(void **unused) {
    (void)unused;
    FOR_EACH_DEF(d) {
        assert_non_null(d->name);
        assert_non_null(d->args);
        assert_non_null(d->ret);
        assert_non_null(d->init);
        assert_non_null(d->update);
        assert_non_null(d->combine);
        assert_non_null(d->finalize);
        assert_non_null(d->description);
        assert_int_equal(d->state_size % 16, 0);
        assert_true(d->state_size > 0 && d->state_size <= 256);
        if (!strcmp(d->ret, "?")) assert_non_null(d->ret_fn);
    }
}

/* ---- count, count_if --------------------------------------------------------------------- */

static vec *i64_vec(const int64_t *xs, const bool *nulls, uint32_t n) {
    vec *v = vnew(type_make(TYPE_BIGINT), n);
    for (uint32_t r = 0; r < n; r++) {
        VEC_DATA(v, int64_t)[r] = xs[r];
        if (nulls && nulls[r]) vec_set_null(v, r);
    }
    return v;
}

static vec *f64_vec(const double *xs, uint32_t n) {
    vec *v = vnew(type_make(TYPE_DOUBLE), n);
    for (uint32_t r = 0; r < n; r++) VEC_DATA(v, double)[r] = xs[r];
    return v;
}

static int64_t run_i64(const char *name, const char *sig, vec *const *args, uint32_t n_args, uint32_t n) {
    const func_agg_def *d = find_agg(name, sig);
    vec *out = vnew(type_make(TYPE_BIGINT), 1);
    assert_int_equal(run(d, (const vec *const *)args, n_args, n, out, 0), SQE_OK);
    assert_false(vec_is_null(out, 0));
    int64_t v = VEC_DATA(out, int64_t)[0];
    vfree(out);
    return v;
}

static double run_f64(const char *name, const char *sig, vec *const *args, uint32_t n_args,
                      uint32_t n, bool *is_null) {
    const func_agg_def *d = find_agg(name, sig);
    vec *out = vnew(type_make(TYPE_DOUBLE), 1);
    int rc = run(d, (const vec *const *)args, n_args, n, out, 0);
    if (rc != SQE_OK) fail_msg("%s: %s", name, g_err.message);
    *is_null = vec_is_null(out, 0);
    double v = VEC_DATA(out, double)[0];
    vfree(out);
    return v;
}

static void test_count(void **unused) {
    (void)unused;
    int64_t xs[6] = {1, 2, 3, 4, 5, 6};
    bool nulls[6] = {false, true, false, true, false, false};
    vec *v = i64_vec(xs, nulls, 6);
    assert_int_equal(run_i64("count", "", &v, 0, 6), 6);
    assert_int_equal(run_i64("count", "any", &v, 1, 6), 4);
    vfree(v);

    vec *b = vnew(type_make(TYPE_BOOLEAN), 5);
    uint8_t bs[5] = {1, 0, 1, 1, 0};
    memcpy(b->data, bs, 5);
    vec_set_null(b, 2);
    assert_int_equal(run_i64("count_if", "boolean", &b, 1, 5), 2);
    vfree(b);
}

/* Constant and dictionary shaped inputs go through vec_view. */
static void test_shapes(void **unused) {
    (void)unused;
    vec *c = vnew(type_make(TYPE_BIGINT), 10);
    VEC_DATA(c, int64_t)[0] = 7;
    c->shape = VEC_CONST;
    assert_int_equal(run_i64("sum", "bigint", &c, 1, 10), 70);
    assert_int_equal(run_i64("count", "any", &c, 1, 10), 10);
    vec_set_null(c, 0);
    assert_int_equal(run_i64("count", "any", &c, 1, 10), 0);
    vfree(c);

    int64_t xs[4] = {10, 20, 30, 40};
    vec *base = i64_vec(xs, NULL, 4);
    vec_set_null(base, 3);
    vec *d = vnew(type_make(TYPE_BIGINT), 6);
    static const uint32_t map[6] = {0, 0, 1, 3, 2, 2};
    vec_set_dict(d, base, map);
    assert_int_equal(run_i64("sum", "bigint", &d, 1, 6), 10 + 10 + 20 + 30 + 30);
    assert_int_equal(run_i64("count", "any", &d, 1, 6), 5);
    assert_int_equal(run_i64("max", "bigint", &d, 1, 6), 30);
    vfree(d);
    vfree(base);
}

/* ---- sum and avg -------------------------------------------------------------------------- */

static void test_sum_bigint_overflow(void **unused) {
    (void)unused;
    const func_agg_def *d = find_agg("sum", "bigint");
    int64_t xs[3] = {INT64_MAX, 1, -1};
    vec *v = i64_vec(xs, NULL, 3);
    /* INT64_MAX + 1 - 1: no error, whatever the order. */
    assert_int_equal(run_i64("sum", "bigint", &v, 1, 3), INT64_MAX);
    /* INT64_MAX + 1: overflow at finalize. */
    vec *out = vnew(type_make(TYPE_BIGINT), 1);
    assert_int_equal(run(d, (const vec *const *)&v, 1, 2, out, 0), SQE_ERR_NUMERIC_VALUE_OUT_OF_RANGE);
    assert_non_null(strstr(g_err.message, "bigint addition overflow"));
    /* Same through split and combine. */
    vec *o2 = vnew(type_make(TYPE_BIGINT), 1);
    assert_int_equal(run_split(d, (const vec *const *)&v, 1, 2, 1, out, 0, o2, 0),
                     SQE_ERR_NUMERIC_VALUE_OUT_OF_RANGE);
    int64_t ys[2] = {INT64_MIN, -1};
    vec *w = i64_vec(ys, NULL, 2);
    assert_int_equal(run(d, (const vec *const *)&w, 1, 2, out, 0), SQE_ERR_NUMERIC_VALUE_OUT_OF_RANGE);
    vfree(w);
    vfree(o2);
    vfree(out);
    vfree(v);
    assert_int_equal(atomic_load(&g_tracker.used), 0);
}

static void test_sum_small_ints_and_doubles(void **unused) {
    (void)unused;
    vec *v = vnew(type_make(TYPE_TINYINT), 300);
    for (uint32_t r = 0; r < 300; r++) VEC_DATA(v, int8_t)[r] = 127;
    vec_set_null(v, 5);
    assert_int_equal(run_i64("sum", "tinyint", &v, 1, 300), 127 * 299);
    bool is_null;
    assert_true(fabs(run_f64("avg", "tinyint", &v, 1, 300, &is_null) - 127.0) < 1e-12);
    vfree(v);

    double xs[4] = {1.5, 2.5, -1.0, 0.25};
    vec *f = f64_vec(xs, 4);
    assert_true(fabs(run_f64("sum", "double", &f, 1, 4, &is_null) - 3.25) < 1e-12);
    assert_true(fabs(run_f64("avg", "double", &f, 1, 4, &is_null) - 0.8125) < 1e-12);
    vfree(f);

    vec *r = vnew(type_make(TYPE_REAL), 3);
    float rs[3] = {1.5f, 2.0f, 4.0f};
    memcpy(r->data, rs, sizeof rs);
    vec *out = vnew(type_make(TYPE_REAL), 1);
    assert_int_equal(run(find_agg("avg", "real"), (const vec *const *)&r, 1, 3, out, 0), SQE_OK);
    assert_true(fabsf(VEC_DATA(out, float)[0] - 2.5f) < 1e-6f);
    assert_int_equal(run(find_agg("sum", "real"), (const vec *const *)&r, 1, 3, out, 0), SQE_OK);
    assert_true(fabsf(VEC_DATA(out, float)[0] - 7.5f) < 1e-6f);
    vfree(out);
    vfree(r);
}

static vec *dec_vec(sqe_type t, const int64_t *xs, uint32_t n) {
    vec *v = vnew(t, n);
    for (uint32_t r = 0; r < n; r++) decimal_put(v->data, t, r, xs[r]);
    return v;
}

static int128 run_dec(const char *name, vec *v, uint32_t n, sqe_type ret, int *rc) {
    vec *out = vnew(ret, 1);
    *rc = run(find_agg(name, "decimal"), (const vec *const *)&v, 1, n, out, 0);
    int128 x = *rc == SQE_OK && !vec_is_null(out, 0) ? decimal_get(out->data, out->type, 0) : 0;
    vfree(out);
    return x;
}

static void test_decimal_sum_avg(void **unused) {
    (void)unused;
    int rc;
    sqe_type t = type_decimal(5, 2);
    sqe_type sum_t;
    assert_int_equal(find_agg("sum", "decimal")->ret_fn(&t, 1, &sum_t, NULL), SQE_OK);
    assert_int_equal(sum_t.precision, 38);
    assert_int_equal(sum_t.scale, 2);

    int64_t xs[3] = {100, 200, 200}; /* 1.00, 2.00, 2.00 */
    vec *v = dec_vec(t, xs, 3);
    assert_true(run_dec("sum", v, 3, sum_t, &rc) == 500 && rc == SQE_OK);
    assert_true(run_dec("avg", v, 3, t, &rc) == 167 && rc == SQE_OK); /* 1.6666.. -> 1.67 */
    vfree(v);

    sqe_type t0 = type_decimal(3, 0);
    int64_t half[2] = {1, 2}, neg_half[2] = {-1, -2}, down[3] = {1, 1, 2};
    v = dec_vec(t0, half, 2);
    assert_true(run_dec("avg", v, 2, t0, &rc) == 2); /* 1.5 -> 2 */
    vfree(v);
    v = dec_vec(t0, neg_half, 2);
    assert_true(run_dec("avg", v, 2, t0, &rc) == -2); /* -1.5 -> -2 (half away from zero) */
    vfree(v);
    v = dec_vec(t0, down, 3);
    assert_true(run_dec("avg", v, 3, t0, &rc) == 1); /* 1.333 -> 1 */
    vfree(v);

    /* Long decimals: sums beyond int128 range cancel exactly; overflow is reported. */
    sqe_type tl = type_decimal(38, 0), tl_sum;
    assert_int_equal(find_agg("sum", "decimal")->ret_fn(&tl, 1, &tl_sum, NULL), SQE_OK);
    int128 big = decimal_max_unscaled(38); /* 10^38 - 1 */
    vec *l = vnew(tl, 8);
    for (uint32_t r = 0; r < 4; r++) decimal_put(l->data, tl, r, big);
    for (uint32_t r = 4; r < 8; r++) decimal_put(l->data, tl, r, -big);
    assert_true(run_dec("sum", l, 8, tl_sum, &rc) == 0 && rc == SQE_OK);
    assert_true(run_dec("avg", l, 8, tl, &rc) == 0 && rc == SQE_OK);
    assert_true(run_dec("avg", l, 4, tl, &rc) == big && rc == SQE_OK); /* sum is 4e38 > int128 */
    run_dec("sum", l, 4, tl_sum, &rc);
    assert_int_equal(rc, SQE_ERR_NUMERIC_VALUE_OUT_OF_RANGE);
    run_dec("sum", l, 2, tl_sum, &rc); /* 2e38 fits int128 but not decimal(38) */
    assert_int_equal(rc, SQE_ERR_NUMERIC_VALUE_OUT_OF_RANGE);
    /* Negative long average with rounding: (-big - big + 1) / 2 -> -big + 0.5 -> -big + 1? */
    decimal_put(l->data, tl, 0, -big);
    decimal_put(l->data, tl, 1, -big + 1);
    assert_true(run_dec("avg", l, 2, tl, &rc) == -big); /* -(big - 0.5) rounds away to -big */
    vfree(l);
    assert_int_equal(atomic_load(&g_tracker.used), 0);
}

static void test_interval_sum_avg(void **unused) {
    (void)unused;
    sqe_type t = type_make(TYPE_INTERVAL_DS);
    vec *v = vnew(t, 3);
    int64_t xs[3] = {1000000, 2000000, 2000001};
    memcpy(v->data, xs, sizeof xs);
    vec *out = vnew(t, 1);
    assert_int_equal(run(find_agg("sum", "interval day to second"), (const vec *const *)&v, 1, 3, out, 0), SQE_OK);
    assert_int_equal(VEC_DATA(out, int64_t)[0], 5000001);
    assert_int_equal(run(find_agg("avg", "interval day to second"), (const vec *const *)&v, 1, 3, out, 0), SQE_OK);
    assert_int_equal(VEC_DATA(out, int64_t)[0], 1666667);
    vfree(out);
    vfree(v);
}

/* ---- min / max ---------------------------------------------------------------------------- */

static void test_minmax_numbers(void **unused) {
    (void)unused;
    double xs[5] = {3.0, NAN, -1.0, 7.5, 2.0};
    vec *f = f64_vec(xs, 5);
    vec_set_null(f, 4);
    bool is_null;
    assert_true(isnan(run_f64("max", "double", &f, 1, 5, &is_null))); /* NaN is largest */
    assert_true(run_f64("min", "double", &f, 1, 5, &is_null) == -1.0);
    vfree(f);

    int64_t ys[4] = {5, -9, 12, 0};
    bool nulls[4] = {false, false, true, false};
    vec *v = i64_vec(ys, nulls, 4);
    assert_int_equal(run_i64("max", "bigint", &v, 1, 4), 5);
    assert_int_equal(run_i64("min", "bigint", &v, 1, 4), -9);
    vfree(v);

    /* timestamp with time zone: by instant, not by zone. */
    sqe_type tz = type_make(TYPE_TIMESTAMP_TZ);
    vec *t = vnew(tz, 3);
    VEC_DATA(t, sqe_timestamp_tz)[0] = (sqe_timestamp_tz){100, 5, 0};
    VEC_DATA(t, sqe_timestamp_tz)[1] = (sqe_timestamp_tz){50, 9, 0};
    VEC_DATA(t, sqe_timestamp_tz)[2] = (sqe_timestamp_tz){75, 1, 0};
    vec *out = vnew(tz, 1);
    assert_int_equal(run(find_agg("min", "timestamp with time zone"), (const vec *const *)&t, 1, 3, out, 0), SQE_OK);
    assert_int_equal(VEC_DATA(out, sqe_timestamp_tz)[0].micros, 50);
    assert_int_equal(VEC_DATA(out, sqe_timestamp_tz)[0].zone, 9);
    vfree(out);
    vfree(t);

    /* Long decimals. */
    sqe_type dt = type_decimal(30, 0);
    vec *d = vnew(dt, 3);
    int128 big = (int128)1 << 90;
    decimal_put(d->data, dt, 0, -big);
    decimal_put(d->data, dt, 1, big);
    decimal_put(d->data, dt, 2, 3);
    out = vnew(dt, 1);
    assert_int_equal(run(find_agg("max", "decimal"), (const vec *const *)&d, 1, 3, out, 0), SQE_OK);
    assert_true(decimal_get(out->data, dt, 0) == big);
    assert_int_equal(run(find_agg("min", "decimal"), (const vec *const *)&d, 1, 3, out, 0), SQE_OK);
    assert_true(decimal_get(out->data, dt, 0) == -big);
    vfree(out);
    vfree(d);
}

static void test_minmax_strings_outlive_input(void **unused) {
    (void)unused;
    const char *xs[5] = {"pear-long-enough-to-be-out-of-line", NULL, "apple-also-quite-a-long-string",
                         "zebra-the-largest-of-them-all-by-far", "fig"};
    const func_agg_def *dmin = find_agg("min", "varchar"), *dmax = find_agg("max", "varchar");
    uint8_t *smin = state_new(dmin), *smax = state_new(dmax);
    /* Feed in two batches from vectors that are destroyed before finalize. */
    for (int batch = 0; batch < 2; batch++) {
        vec *v = str_vec(xs + batch * 3, batch ? 2 : 3);
        assert_int_equal(feed(dmin, (const vec *const *)&v, 1, batch ? 2 : 3, NULL, batch ? 2 : 3, smin), SQE_OK);
        assert_int_equal(feed(dmax, (const vec *const *)&v, 1, batch ? 2 : 3, NULL, batch ? 2 : 3, smax), SQE_OK);
        vfree(v);
    }
    vec *out = vnew(type_varchar(0), 2);
    assert_int_equal(finalize(dmin, smin, out, 0), SQE_OK);
    assert_int_equal(finalize(dmax, smax, out, 1), SQE_OK);
    sqe_str a = VEC_DATA(out, sqe_str)[0], b = VEC_DATA(out, sqe_str)[1];
    assert_memory_equal(sqe_str_data(&a), xs[2], a.len);
    assert_int_equal(a.len, strlen(xs[2]));
    assert_memory_equal(sqe_str_data(&b), xs[3], b.len);
    state_free(dmin, smin);
    state_free(dmax, smax);
    vfree(out);
    assert_int_equal(atomic_load(&g_tracker.used), 0);
}

/* ---- min_by / max_by, arbitrary, bool, bitwise, geometric_mean ------------------------------- */

static void test_min_by_max_by(void **unused) {
    (void)unused;
    const char *xs[5] = {"first-of-the-maxima-long-text", "a", NULL, "second-max", "min-value"};
    int64_t ys[5] = {9, 4, 1, 9, 1};
    bool ynull[5] = {false, false, false, false, false};
    vec *args[2] = {str_vec(xs, 5), i64_vec(ys, ynull, 5)};
    vec *out = vnew(type_varchar(0), 1);
    assert_int_equal(run(find_agg("max_by", "T,bigint"), (const vec *const *)args, 2, 5, out, 0), SQE_OK);
    sqe_str s = VEC_DATA(out, sqe_str)[0]; /* ties keep the first row */
    assert_int_equal(s.len, strlen(xs[0]));
    assert_memory_equal(sqe_str_data(&s), xs[0], s.len);
    /* min y = 1 first at row 2 whose x is NULL: the result is NULL. */
    assert_int_equal(run(find_agg("min_by", "T,bigint"), (const vec *const *)args, 2, 5, out, 0), SQE_OK);
    assert_true(vec_is_null(out, 0));
    vfree(out);
    vfree(args[0]);
    vfree(args[1]);
}

static void test_bool_bits_geo(void **unused) {
    (void)unused;
    vec *b = vnew(type_make(TYPE_BOOLEAN), 4);
    uint8_t bs[4] = {1, 1, 0, 1};
    memcpy(b->data, bs, 4);
    vec_set_null(b, 2);
    vec *out = vnew(type_make(TYPE_BOOLEAN), 1);
    assert_int_equal(run(find_agg("bool_and", "boolean"), (const vec *const *)&b, 1, 4, out, 0), SQE_OK);
    assert_int_equal(VEC_DATA(out, uint8_t)[0], 1);
    VEC_DATA(b, uint8_t)[3] = 0;
    assert_int_equal(run(find_agg("every", "boolean"), (const vec *const *)&b, 1, 4, out, 0), SQE_OK);
    assert_int_equal(VEC_DATA(out, uint8_t)[0], 0);
    assert_int_equal(run(find_agg("bool_or", "boolean"), (const vec *const *)&b, 1, 4, out, 0), SQE_OK);
    assert_int_equal(VEC_DATA(out, uint8_t)[0], 1);
    vfree(out);
    vfree(b);

    int64_t xs[3] = {0xff, 0x0f, 0x3c};
    vec *v = i64_vec(xs, NULL, 3);
    assert_int_equal(run_i64("bitwise_and_agg", "bigint", &v, 1, 3), 0x0c);
    assert_int_equal(run_i64("bitwise_or_agg", "bigint", &v, 1, 3), 0xff);
    assert_int_equal(run_i64("bitwise_xor_agg", "bigint", &v, 1, 3), 0xff ^ 0x0f ^ 0x3c);
    vfree(v);

    double gs[3] = {1, 2, 4};
    vec *g = f64_vec(gs, 3);
    bool is_null;
    assert_true(fabs(run_f64("geometric_mean", "double", &g, 1, 3, &is_null) - 2.0) < 1e-12);
    vfree(g);
}

/* ---- Statistics ----------------------------------------------------------------------------- */

static void test_stats_against_two_pass(void **unused) {
    (void)unused;
    enum { N = 1000 };
    double xs[N], ys[N];
    for (int i = 0; i < N; i++) {
        xs[i] = 1e6 + (double)(rnd() % 10000) / 7; /* large offset: tests numerical stability */
        ys[i] = 3 * xs[i] - 2 + (double)(rnd() % 100) / 50;
    }
    double mx = 0, my = 0;
    for (int i = 0; i < N; i++) mx += xs[i], my += ys[i];
    mx /= N, my /= N;
    double m2 = 0, m3 = 0, m4 = 0, m2y = 0, c2 = 0;
    for (int i = 0; i < N; i++) {
        double d = xs[i] - mx, e = ys[i] - my;
        m2 += d * d, m3 += d * d * d, m4 += d * d * d * d, m2y += e * e, c2 += d * e;
    }
    vec *vx = f64_vec(xs, N), *vy = f64_vec(ys, N);
    bool is_null;
#define NEAR(a, b) assert_true(fabs((a) - (b)) <= 1e-7 * fmax(1.0, fabs(b)))
    NEAR(run_f64("var_samp", "double", &vx, 1, N, &is_null), m2 / (N - 1));
    NEAR(run_f64("variance", "double", &vx, 1, N, &is_null), m2 / (N - 1));
    NEAR(run_f64("var_pop", "double", &vx, 1, N, &is_null), m2 / N);
    NEAR(run_f64("stddev", "double", &vx, 1, N, &is_null), sqrt(m2 / (N - 1)));
    NEAR(run_f64("stddev_pop", "double", &vx, 1, N, &is_null), sqrt(m2 / N));
    NEAR(run_f64("skewness", "double", &vx, 1, N, &is_null), sqrt((double)N) * m3 / pow(m2, 1.5));
    double n = N;
    NEAR(run_f64("kurtosis", "double", &vx, 1, N, &is_null),
         (n - 1) * n * (n + 1) / ((n - 2) * (n - 3)) * m4 / (m2 * m2) - 3 * (n - 1) * (n - 1) / ((n - 2) * (n - 3)));
    vec *yx[2] = {vy, vx};
    NEAR(run_f64("covar_samp", "double,double", yx, 2, N, &is_null), c2 / (N - 1));
    NEAR(run_f64("covar_pop", "double,double", yx, 2, N, &is_null), c2 / N);
    NEAR(run_f64("corr", "double,double", yx, 2, N, &is_null), c2 / sqrt(m2 * m2y));
    NEAR(run_f64("regr_slope", "double,double", yx, 2, N, &is_null), c2 / m2);
    NEAR(run_f64("regr_intercept", "double,double", yx, 2, N, &is_null), my - c2 / m2 * mx);
#undef NEAR
    /* NULL rules: one row -> var_samp NULL, var_pop 0; constant x -> corr NULL. */
    run_f64("var_samp", "double", &vx, 1, 1, &is_null);
    assert_true(is_null);
    assert_true(run_f64("var_pop", "double", &vx, 1, 1, &is_null) == 0 && !is_null);
    run_f64("kurtosis", "double", &vx, 1, 3, &is_null);
    assert_true(is_null);
    vec *cx = const_double_vec(5, 10);
    vec *cyx[2] = {vy, cx};
    run_f64("corr", "double,double", cyx, 2, 10, &is_null);
    assert_true(is_null);
    run_f64("regr_slope", "double,double", cyx, 2, 10, &is_null);
    assert_true(is_null);
    vfree(cx);
    vfree(vx);
    vfree(vy);
}

/* ---- approx_distinct ------------------------------------------------------------------------- */

static int64_t hll_run(vec *v, uint32_t n, const char *sig, vec *err_arg) {
    vec *args[2] = {v, err_arg};
    return run_i64("approx_distinct", sig, args, err_arg ? 2 : 1, n);
}

static void test_approx_distinct_accuracy(void **unused) {
    (void)unused;
    enum { N = 100000 };
    vec *v = vnew(type_make(TYPE_BIGINT), N);
    for (uint32_t r = 0; r < N; r++) VEC_DATA(v, int64_t)[r] = (int64_t)r * 7 - 12345;
    int64_t est = hll_run(v, N, "T", NULL);
    double rel = fabs((double)est - N) / N;
    if (rel > 0.05) fail_msg("approx_distinct(100k) = %lld", (long long)est);
    /* Duplicates do not count. */
    for (uint32_t r = 0; r < N; r++) VEC_DATA(v, int64_t)[r] = r % 1000;
    est = hll_run(v, N, "T", NULL);
    assert_true(fabs((double)est - 1000) / 1000 < 0.05);
    /* Small cardinalities are exact in practice (sparse mode, 2^25 registers). */
    assert_int_equal(hll_run(v, 10, "T", NULL), 10);
    assert_int_equal(hll_run(v, 100, "T", NULL), 100);
    /* Around the sparse/dense boundary (128 entries at p = 11), split and combine gives the
     * single-pass answer whichever representation each part ends in. */
    const func_agg_def *hd = find_agg("approx_distinct", "T");
    static const uint32_t sizes[] = {120, 128, 129, 140, 200, 1000};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        for (uint32_t r = 0; r < sizes[k]; r++) VEC_DATA(v, int64_t)[r] = (int64_t)(r * 2654435761u);
        int64_t single = hll_run(v, sizes[k], "T", NULL);
        assert_true(fabs((double)single - sizes[k]) <= 0.05 * sizes[k]);
        uint32_t splits[] = {1, sizes[k] / 3, sizes[k] / 2, sizes[k] - 1};
        for (size_t j = 0; j < 4; j++) {
            vec *o1 = vnew(type_make(TYPE_BIGINT), 1), *o2 = vnew(type_make(TYPE_BIGINT), 1);
            assert_int_equal(run_split(hd, (const vec *const *)&v, 1, sizes[k], splits[j], o1, 0, o2, 0), SQE_OK);
            assert_int_equal(VEC_DATA(o1, int64_t)[0], single);
            assert_int_equal(VEC_DATA(o2, int64_t)[0], single);
            vfree(o1);
            vfree(o2);
        }
    }
    /* A tighter error bound. */
    for (uint32_t r = 0; r < N; r++) VEC_DATA(v, int64_t)[r] = (int64_t)rnd();
    vec *e = const_double_vec(0.0040625, N);
    est = hll_run(v, N, "T,double", e);
    assert_true(fabs((double)est - N) / N < 0.015);
    vfree(e);
    /* Invalid max standard error. */
    e = const_double_vec(0.5, 4);
    vec *args[2] = {v, e};
    vec *out = vnew(type_make(TYPE_BIGINT), 1);
    assert_int_equal(run(find_agg("approx_distinct", "T,double"), (const vec *const *)args, 2, 4, out, 0),
                     SQE_ERR_INVALID_FUNCTION_ARGUMENT);
    vfree(out);
    vfree(e);
    vfree(v);

    /* Strings, and split across 8 partial states: identical to one pass. */
    vec *s = vnew(type_varchar(0), 50000);
    for (uint32_t r = 0; r < 50000; r++) {
        char buf[32];
        int len = snprintf(buf, sizeof buf, "customer#%09u", r);
        bool ok = true;
        VEC_DATA(s, sqe_str)[r] = vec_str_copy(s, buf, (uint32_t)len, &ok);
    }
    const func_agg_def *d = find_agg("approx_distinct", "T");
    int64_t one_pass = hll_run(s, 50000, "T", NULL);
    assert_true(fabs((double)one_pass - 50000) / 50000 < 0.05);
    uint8_t *parts[8], *all = state_new(d);
    uint32_t *sel = malloc(50000 * sizeof *sel);
    for (uint32_t r = 0; r < 50000; r++) sel[r] = r;
    for (int p = 0; p < 8; p++) {
        parts[p] = state_new(d);
        assert_int_equal(feed(d, (const vec *const *)&s, 1, 50000, sel + p * 6250, 6250, parts[p]), SQE_OK);
        assert_int_equal(combine(d, parts[p], all), SQE_OK);
        state_free(d, parts[p]);
    }
    out = vnew(type_make(TYPE_BIGINT), 1);
    assert_int_equal(finalize(d, all, out, 0), SQE_OK);
    assert_int_equal(VEC_DATA(out, int64_t)[0], one_pass);
    state_free(d, all);
    free(sel);
    vfree(out);
    vfree(s);
    assert_int_equal(atomic_load(&g_tracker.used), 0);
}

/* ---- approx_percentile ---------------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Fraction of sorted[] strictly below v, and at or below v. */
static void rank_of(const double *sorted, uint32_t n, double v, double *lo, double *hi) {
    uint32_t a = 0, b = 0;
    while (a < n && sorted[a] < v) a++;
    b = a;
    while (b < n && sorted[b] <= v) b++;
    *lo = (double)a / n;
    *hi = (double)b / n;
}

static void test_approx_percentile_exact_small(void **unused) {
    (void)unused;
    double xs[10] = {7, 3, 10, 1, 5, 2, 9, 4, 8, 6};
    vec *args[2] = {f64_vec(xs, 10), const_double_vec(0.5, 10)};
    bool is_null;
    assert_true(run_f64("approx_percentile", "double,double", args, 2, 10, &is_null) == 6);
    vfree(args[1]);
    args[1] = const_double_vec(0.0, 10);
    assert_true(run_f64("approx_percentile", "double,double", args, 2, 10, &is_null) == 1);
    vfree(args[1]);
    args[1] = const_double_vec(1.0, 10);
    assert_true(run_f64("approx_percentile", "double,double", args, 2, 10, &is_null) == 10);
    vfree(args[1]);
    /* Out of range percentile. */
    args[1] = const_double_vec(1.5, 10);
    vec *out = vnew(type_make(TYPE_DOUBLE), 1);
    assert_int_equal(run(find_agg("approx_percentile", "double,double"), (const vec *const *)args, 2, 10, out, 0),
                     SQE_ERR_INVALID_FUNCTION_ARGUMENT);
    vfree(out);
    vfree(args[1]);
    vfree(args[0]);

    /* Integer input keeps its type; the array form. */
    vec *iv = vnew(type_make(TYPE_INTEGER), 5);
    int32_t is[5] = {50, 10, 40, 20, 30};
    memcpy(iv->data, is, sizeof is);
    static const double ps[3] = {0.1, 0.5, 0.99};
    vec *iargs[2] = {iv, const_array_double_vec(ps, 3, 5)};
    out = vnew(type_array(type_make(TYPE_INTEGER)), 1);
    assert_int_equal(run(find_agg("approx_percentile", "integer,array(double)"), (const vec *const *)iargs, 2, 5, out, 0),
                     SQE_OK);
    sqe_list_entry e = VEC_DATA(out, sqe_list_entry)[0];
    assert_int_equal(e.length, 3);
    assert_int_equal(VEC_DATA(&out->children[0], int32_t)[e.offset + 0], 10);
    assert_int_equal(VEC_DATA(&out->children[0], int32_t)[e.offset + 1], 30);
    assert_int_equal(VEC_DATA(&out->children[0], int32_t)[e.offset + 2], 50);
    vfree(out);
    vfree(iargs[1]);

    /* Weighted: 10 x1, 30 x3 -> values 10,30,30,30: median (rank 2) is 30. */
    vec *w = vnew(type_make(TYPE_BIGINT), 2);
    VEC_DATA(w, int64_t)[0] = 1;
    VEC_DATA(w, int64_t)[1] = 3;
    int32_t two[2] = {10, 30};
    memcpy(iv->data, two, sizeof two);
    vec *wargs[3] = {iv, w, const_double_vec(0.5, 2)};
    out = vnew(type_make(TYPE_INTEGER), 1);
    assert_int_equal(run(find_agg("approx_percentile", "integer,bigint,double"), (const vec *const *)wargs, 3, 2, out, 0),
                     SQE_OK);
    assert_int_equal(VEC_DATA(out, int32_t)[0], 30);
    vfree(out);
    vfree(wargs[2]);
    vfree(w);
    vfree(iv);
}

static void test_approx_percentile_accuracy(void **unused) {
    (void)unused;
    enum { N = 100000 };
    double *xs = malloc(N * sizeof *xs);
    for (uint32_t r = 0; r < N; r++) xs[r] = (double)(rnd() % 1000000) / 3.0 + (r % 3 ? 0 : 1e6);
    static const double ps[] = {0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999};
    enum { NP = sizeof ps / sizeof ps[0] };
    vec *args[2] = {f64_vec(xs, N), const_array_double_vec(ps, NP, N)};
    qsort(xs, N, sizeof *xs, cmp_double);
    const func_agg_def *d = find_agg("approx_percentile", "double,array(double)");
    sqe_type ret = type_array(type_make(TYPE_DOUBLE));
    /* One pass, and 10 partial states combined. */
    for (int mode = 0; mode < 2; mode++) {
        vec *out = vnew(ret, 1);
        if (mode == 0) {
            assert_int_equal(run(d, (const vec *const *)args, 2, N, out, 0), SQE_OK);
        } else {
            uint32_t *sel = malloc(N * sizeof *sel);
            for (uint32_t r = 0; r < N; r++) sel[r] = r;
            uint8_t *all = state_new(d);
            for (int p = 0; p < 10; p++) {
                uint8_t *part = state_new(d);
                assert_int_equal(feed(d, (const vec *const *)args, 2, N, sel + p * (N / 10), N / 10, part), SQE_OK);
                assert_int_equal(combine(d, part, all), SQE_OK);
                state_free(d, part);
            }
            assert_int_equal(finalize(d, all, out, 0), SQE_OK);
            state_free(d, all);
            free(sel);
        }
        sqe_list_entry e = VEC_DATA(out, sqe_list_entry)[0];
        assert_int_equal(e.length, NP);
        for (uint32_t k = 0; k < NP; k++) {
            double v = VEC_DATA(&out->children[0], double)[e.offset + k], lo, hi;
            rank_of(xs, N, v, &lo, &hi);
            double err = ps[k] < lo ? lo - ps[k] : ps[k] > hi ? ps[k] - hi : 0;
            if (err > 0.01) fail_msg("mode %d: p=%g rank error %g", mode, ps[k], err);
        }
        vfree(out);
    }
    vfree(args[0]);
    vfree(args[1]);
    free(xs);
    assert_int_equal(atomic_load(&g_tracker.used), 0);
}

/* ---- Collect ---------------------------------------------------------------------------------- */

static void test_array_agg_and_listagg(void **unused) {
    (void)unused;
    const char *xs[5] = {"alpha", NULL, "a-string-longer-than-twelve", "", "omega"};
    vec *v = str_vec(xs, 5);
    vec *out = vnew(type_array(type_varchar(0)), 2);
    /* Row 1 first gets another value so that children offsets are non-trivial. */
    const func_agg_def *d = find_agg("array_agg", "T");
    assert_int_equal(run(d, (const vec *const *)&v, 1, 1, out, 1), SQE_OK);
    assert_int_equal(run(d, (const vec *const *)&v, 1, 5, out, 0), SQE_OK);
    sqe_list_entry e = VEC_DATA(out, sqe_list_entry)[0];
    assert_int_equal(e.offset, 1);
    assert_int_equal(e.length, 5);
    const vec *c = &out->children[0];
    for (uint32_t k = 0; k < 5; k++) {
        if (!xs[k]) {
            assert_true(vec_is_null(c, e.offset + k));
            continue;
        }
        sqe_str s = VEC_DATA(c, sqe_str)[e.offset + k];
        assert_int_equal(s.len, strlen(xs[k]));
        assert_memory_equal(sqe_str_data(&s), xs[k], s.len);
    }
    vfree(out);

    const char *seps[5] = {" | ", " | ", " | ", " | ", " | "};
    vec *args[2] = {v, str_vec(seps, 5)};
    out = vnew(type_varchar(0), 1);
    assert_int_equal(run(find_agg("listagg", "varchar,varchar"), (const vec *const *)args, 2, 5, out, 0), SQE_OK);
    sqe_str s = VEC_DATA(out, sqe_str)[0];
    const char *want = "alpha | a-string-longer-than-twelve |  | omega";
    assert_int_equal(s.len, strlen(want));
    assert_memory_equal(sqe_str_data(&s), want, s.len);
    vfree(out);
    vfree(args[1]);
    vfree(v);
}

static void test_map_agg_histogram_multimap(void **unused) {
    (void)unused;
    int64_t ks[6] = {3, 1, 3, 2, 0, 1};
    bool knull[6] = {false, false, false, false, true, false};
    const char *vs[6] = {"three", "one", "three-again", NULL, "null-key", "one-again"};
    vec *args[2] = {i64_vec(ks, knull, 6), str_vec(vs, 6)};

    vec *out = vnew(type_map(type_make(TYPE_BIGINT), type_varchar(0)), 1);
    assert_int_equal(run(find_agg("map_agg", "K,V"), (const vec *const *)args, 2, 6, out, 0), SQE_OK);
    sqe_list_entry e = VEC_DATA(out, sqe_list_entry)[0];
    assert_int_equal(e.length, 3); /* keys 3, 1, 2; NULL key skipped; first value wins */
    assert_int_equal(VEC_DATA(&out->children[0], int64_t)[e.offset + 0], 3);
    assert_int_equal(VEC_DATA(&out->children[0], int64_t)[e.offset + 1], 1);
    assert_int_equal(VEC_DATA(&out->children[0], int64_t)[e.offset + 2], 2);
    sqe_str s = VEC_DATA(&out->children[1], sqe_str)[e.offset + 0];
    assert_memory_equal(sqe_str_data(&s), "three", 5);
    assert_int_equal(s.len, 5);
    assert_true(vec_is_null(&out->children[1], e.offset + 2));
    vfree(out);

    out = vnew(type_map(type_make(TYPE_BIGINT), type_make(TYPE_BIGINT)), 1);
    assert_int_equal(run(find_agg("histogram", "T"), (const vec *const *)args, 1, 6, out, 0), SQE_OK);
    e = VEC_DATA(out, sqe_list_entry)[0];
    assert_int_equal(e.length, 3);
    for (uint32_t k = 0; k < 3; k++) {
        int64_t key = VEC_DATA(&out->children[0], int64_t)[e.offset + k];
        int64_t cnt = VEC_DATA(&out->children[1], int64_t)[e.offset + k];
        assert_int_equal(cnt, key == 2 ? 1 : 2);
    }
    vfree(out);

    out = vnew(type_map(type_make(TYPE_BIGINT), type_array(type_varchar(0))), 1);
    assert_int_equal(run(find_agg("multimap_agg", "K,V"), (const vec *const *)args, 2, 6, out, 0), SQE_OK);
    e = VEC_DATA(out, sqe_list_entry)[0];
    assert_int_equal(e.length, 3);
    const vec *arrays = &out->children[1];
    sqe_list_entry a1 = VEC_DATA(arrays, sqe_list_entry)[e.offset + 1]; /* key 1 */
    assert_int_equal(a1.length, 2);
    s = VEC_DATA(&arrays->children[0], sqe_str)[a1.offset + 1];
    assert_int_equal(s.len, strlen("one-again"));
    assert_memory_equal(sqe_str_data(&s), "one-again", s.len);
    vfree(out);
    vfree(args[0]);
    vfree(args[1]);
    assert_int_equal(atomic_load(&g_tracker.used), 0);
}

/* ---- Memory accounting and limits -------------------------------------------------------- */

static void test_memory_limit_reported(void **unused) {
    (void)unused;
    mem_tracker small;
    mem_tracker_init(&small, "test", 256, NULL);
    const func_agg_def *d = find_agg("array_agg", "T");
    vec *v = gen_vec(type_varchar(0), 200, 0);
    uint8_t *st = state_new(d);
    uint8_t **states = calloc(200, sizeof *states);
    for (int r = 0; r < 200; r++) states[r] = st;
    func_ctx ctx = make_ctx();
    ctx.tracker = &small;
    int rc = d->update(&ctx, (const vec *const *)&v, 1, NULL, 200, states);
    assert_int_equal(rc, SQE_ERR_EXCEEDED_MEMORY_LIMIT);
    state_free(d, st); /* the partial state is still valid to destroy */
    assert_int_equal(atomic_load(&small.used), 0);
    free(states);
    vfree(v);
}

/* ---- Window declarations and registry resolution ------------------------------------------ */

static void test_window_list(void **unused) {
    (void)unused;
    uint32_t n;
    const func_window_def *w = func_window_family(&n);
    assert_true(n >= 11);
    bool seen[FUNC_WIN_NTH_VALUE + 1] = {false};
    for (uint32_t i = 0; i < n; i++) {
        assert_true(w[i].kind >= FUNC_WIN_ROW_NUMBER && w[i].kind <= FUNC_WIN_NTH_VALUE);
        seen[w[i].kind] = true;
    }
    for (int k = FUNC_WIN_ROW_NUMBER; k <= FUNC_WIN_NTH_VALUE; k++) assert_true(seen[k]);
}

static void resolve_ok(const char *name, const sqe_type *args, uint32_t n, const char *want_ret) {
    arena a;
    arena_init(&a, NULL);
    func_resolved r;
    sqe_error err;
    int rc = func_resolve_agg(&a, name, args, n, &r, &err);
    if (rc != SQE_OK) fail_msg("resolve %s: %s", name, err.message);
    char buf[128];
    type_format(r.ret, buf, sizeof buf);
    if (strcmp(buf, want_ret)) fail_msg("%s returns %s, expected %s", name, buf, want_ret);
    arena_destroy(&a);
}

static void test_registry_resolves_aggregates(void **unused) {
    (void)unused;
    sqe_error err;
    assert_int_equal(func_registry_init(&err), SQE_OK);
    sqe_type i32 = type_make(TYPE_INTEGER), i64 = type_make(TYPE_BIGINT), dbl = type_make(TYPE_DOUBLE);
    sqe_type d52 = type_decimal(5, 2), vc10 = type_varchar(10);
    resolve_ok("count", NULL, 0, "bigint");
    resolve_ok("count", &vc10, 1, "bigint");
    resolve_ok("sum", &i32, 1, "bigint");
    resolve_ok("sum", &d52, 1, "decimal(38,2)");
    resolve_ok("avg", &d52, 1, "decimal(5,2)");
    resolve_ok("avg", &i64, 1, "double");
    resolve_ok("min", &vc10, 1, "varchar(10)");
    resolve_ok("stddev", &i32, 1, "double");
    resolve_ok("array_agg", &i64, 1, "array(bigint)");
    sqe_type kv[2] = {vc10, i64};
    resolve_ok("map_agg", kv, 2, "map(varchar(10), bigint)");
    resolve_ok("histogram", &vc10, 1, "map(varchar(10), bigint)");
    sqe_type pa[2] = {i64, type_array(dbl)};
    resolve_ok("approx_percentile", pa, 2, "array(bigint)");
    sqe_type by[2] = {vc10, dbl};
    resolve_ok("max_by", by, 2, "varchar(10)");
    assert_true(func_is_window("row_number"));
    assert_true(func_is_aggregate("approx_distinct"));
}

int main(void) {
    mem_tracker_init(&g_tracker, "agg test", 0, NULL);
    collect_defs();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defs_well_formed),
        cmocka_unit_test(test_every_agg_split_combine_grouped),
        cmocka_unit_test(test_every_agg_empty_input),
        cmocka_unit_test(test_every_agg_all_null_input),
        cmocka_unit_test(test_count),
        cmocka_unit_test(test_shapes),
        cmocka_unit_test(test_sum_bigint_overflow),
        cmocka_unit_test(test_sum_small_ints_and_doubles),
        cmocka_unit_test(test_decimal_sum_avg),
        cmocka_unit_test(test_interval_sum_avg),
        cmocka_unit_test(test_minmax_numbers),
        cmocka_unit_test(test_minmax_strings_outlive_input),
        cmocka_unit_test(test_min_by_max_by),
        cmocka_unit_test(test_bool_bits_geo),
        cmocka_unit_test(test_stats_against_two_pass),
        cmocka_unit_test(test_approx_distinct_accuracy),
        cmocka_unit_test(test_approx_percentile_exact_small),
        cmocka_unit_test(test_approx_percentile_accuracy),
        cmocka_unit_test(test_array_agg_and_listagg),
        cmocka_unit_test(test_map_agg_histogram_multimap),
        cmocka_unit_test(test_memory_limit_reported),
        cmocka_unit_test(test_window_list),
        cmocka_unit_test(test_registry_resolves_aggregates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
