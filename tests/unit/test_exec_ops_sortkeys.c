/*
 * test_exec_ops_sortkeys.c: unit tests of normalized sort keys (exec/sort_keys.c): the memcmp
 * order of encoded keys equals the SQL order for every type (NULLs first/last, NaN, -0,
 * negative numbers, long decimals, strings with common prefixes longer than the key prefix),
 * ASC and DESC, multi-column keys; the radix sort, the k-way merge and the top-N heap against a
 * reference comparison sort.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "exec/sort_keys.h"

static mem_tracker g_tracker;
static uint64_t g_rng = 88172645463325252ULL;

static uint64_t rnd(void) {
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return g_rng;
}

typedef struct sort_case {
    exec_sort_spec spec;
    vec cols[8];
    uint32_t n_cols;
    uint32_t n;
} sort_case;

/* Reference: compare rows ra, rb column by column with the SQL comparator. */
static int ref_cmp_rows(const sort_case *c, uint32_t ra, uint32_t rb) {
    for (uint32_t k = 0; k < c->spec.n_keys; k++) {
        int r = exec_sort_compare_values(&c->spec.keys[k], &c->cols[k], ra, &c->cols[k], rb);
        if (r) return r;
    }
    return 0;
}

static int tiebreak(void *ud, const uint8_t *a, const uint8_t *b) {
    const sort_case *c = ud;
    return ref_cmp_rows(c, (uint32_t)exec_sort_payload(&c->spec, a),
                        (uint32_t)exec_sort_payload(&c->spec, b));
}

static const sqe_str *str_of(void *ud, const uint8_t *e, uint32_t k) {
    const sort_case *c = ud;
    uint32_t r = (uint32_t)exec_sort_payload(&c->spec, e);
    return &VEC_DATA(&c->cols[k], const sqe_str)[r];
}

static void fill_random(vec *v, uint32_t n, uint32_t null_every) {
    const char *words[] = {"", "a", "ab", "abc", "b", "prefix-shared-by-many-strings-1",
                           "prefix-shared-by-many-strings-2", "prefix-shared-by-many-strings-10",
                           "prefix-shared-by-many", "prefix-shared-by-many-strings-1\x01",
                           "Zebra", "\xc3\xa9t\xc3\xa9", "abcdefghijklmnop", "abcdefghijklmnopq"};
    double dvals[] = {0.0, -0.0, 1.0, -1.0, 1e308, -1e308, __builtin_inf(), -__builtin_inf(),
                      __builtin_nan(""), -__builtin_nan(""), 2.5, -2.5, 1e-300, -1e-300};
    for (uint32_t i = 0; i < n; i++) {
        uint64_t x = rnd();
        switch (v->type.id) {
        case TYPE_BOOLEAN: VEC_DATA(v, uint8_t)[i] = x & 1; break;
        case TYPE_TINYINT: VEC_DATA(v, int8_t)[i] = (int8_t)x; break;
        case TYPE_SMALLINT: VEC_DATA(v, int16_t)[i] = (int16_t)(x % 7 ? x : 0x8000); break;
        case TYPE_INTEGER:
        case TYPE_DATE: VEC_DATA(v, int32_t)[i] = (int32_t)(x % 5 ? (int32_t)x % 1000 : (int32_t)x); break;
        case TYPE_BIGINT:
        case TYPE_TIMESTAMP:
            VEC_DATA(v, int64_t)[i] = x % 3 ? (int64_t)(x % 200) - 100 : (int64_t)x;
            if (x % 97 == 0) VEC_DATA(v, int64_t)[i] = INT64_MIN;
            if (x % 89 == 0) VEC_DATA(v, int64_t)[i] = INT64_MAX;
            break;
        case TYPE_REAL: VEC_DATA(v, float)[i] = (float)dvals[x % 14]; break;
        case TYPE_DOUBLE:
            VEC_DATA(v, double)[i] = x % 2 ? dvals[x % 14] : (double)(int64_t)(x % 1000) / 7.0 - 50;
            break;
        case TYPE_DECIMAL:
            if (type_decimal_is_long(v->type)) {
                int128 val = (int128)(int64_t)x * ((int128)1 << 40) + (int128)(x % 1000);
                if (x % 4 == 0) val = -val;
                if (x % 5 == 0) val = (int128)(int64_t)(x % 10) - 5;
                VEC_DATA(v, int128)[i] = val;
            } else {
                VEC_DATA(v, int64_t)[i] = (int64_t)(x % 20001) - 10000;
            }
            break;
        case TYPE_TIMESTAMP_TZ:
            VEC_DATA(v, sqe_timestamp_tz)[i] = (sqe_timestamp_tz){(int64_t)(x % 1000) - 500, (int32_t)(x >> 40) % 7, 0};
            break;
        case TYPE_UUID:
            for (int b = 0; b < 16; b++) ((uint8_t *)v->data)[i * 16 + b] = (uint8_t)(b < 14 ? (x >> (b % 8)) & 3 : rnd());
            break;
        case TYPE_VARCHAR: {
            const char *w = words[x % 14];
            bool ok = true;
            VEC_DATA(v, sqe_str)[i] = vec_str_copy(v, w, (uint32_t)strlen(w), &ok);
            break;
        }
        default: break;
        }
        if (null_every && x % null_every == 0) vec_set_null(v, i);
    }
}

static void check_sort(const sqe_type *types, const bool *desc, const bool *nf, uint32_t n_keys,
                       uint32_t n) {
    sort_case c;
    memset(&c, 0, sizeof c);
    arena a;
    arena_init(&a, &g_tracker);
    assert_int_equal(exec_sort_spec_init(&c.spec, &a, types, desc, nf, n_keys, NULL), 0);
    c.n = n;
    for (uint32_t k = 0; k < n_keys; k++) {
        assert_int_equal(vec_init(&c.cols[k], types[k], n, &g_tracker, NULL), 0);
        fill_random(&c.cols[k], n, 11);
    }
    uint32_t W = c.spec.entry_width;
    /* strings compared through str_of (fast path) or the full tie-break, alternately */
    static int round;
    bool use_str = (round++ & 1) == 0;
    exec_sort_ctx cmp_tb = {tiebreak, NULL, &c};
    exec_sort_ctx cmp = {tiebreak, use_str ? str_of : NULL, &c};
    uint8_t *ent = calloc(n, W);
    for (uint32_t k = 0; k < n_keys; k++) exec_sort_encode(&c.spec, k, &c.cols[k], NULL, n, ent, W);
    for (uint32_t i = 0; i < n; i++) exec_sort_set_payload(&c.spec, ent + (size_t)i * W, i);
    /* key comparison agrees with the reference comparator on random pairs */
    for (int t = 0; t < 2000; t++) {
        uint32_t x = (uint32_t)(rnd() % n), y = (uint32_t)(rnd() % n);
        int mc = exec_sort_entry_cmp(&c.spec, ent + (size_t)x * W, ent + (size_t)y * W,
                                     use_str ? &cmp : &cmp_tb);
        int rc = ref_cmp_rows(&c, x, y);
        if ((mc < 0 ? -1 : mc > 0) != (rc < 0 ? -1 : rc > 0))
            fail_msg("type %d desc %d nf %d rows %u %u: memcmp %d ref %d", types[0].id, desc[0],
                     nf[0], x, y, mc, rc);
    }
    /* two runs sorted then merged = the whole */
    uint32_t half = n / 3;
    uint8_t *runs[2] = {ent, ent + (size_t)half * W};
    uint64_t run_n[2] = {half, n - half};
    assert_int_equal(exec_sort_entries(&c.spec, runs[0], run_n[0], &cmp, &g_tracker, NULL), 0);
    assert_int_equal(exec_sort_entries(&c.spec, runs[1], run_n[1], &cmp, &g_tracker, NULL), 0);
    uint8_t *merged = calloc(n, W);
    exec_sort_merge(&c.spec, runs, run_n, 2, merged, &cmp);
    char *seen = calloc(n, 1);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t r = (uint32_t)exec_sort_payload(&c.spec, merged + (size_t)i * W);
        assert_true(r < n);
        assert_false(seen[r]);
        seen[r] = 1;
        if (i) {
            uint32_t p = (uint32_t)exec_sort_payload(&c.spec, merged + (size_t)(i - 1) * W);
            if (ref_cmp_rows(&c, p, r) > 0) fail_msg("out of order at %u", i);
        }
    }
    /* top-N heap of the merged data: the first N are the N smallest */
    uint64_t N = n / 10 + 1;
    exec_topn_heap h;
    assert_int_equal(exec_topn_heap_init(&h, &c.spec, N, &cmp, &g_tracker, NULL), 0);
    uint8_t *shuffled = calloc(n, W);
    memcpy(shuffled, ent, (size_t)n * W);
    for (uint32_t i = n - 1; i > 0; i--) {
        uint32_t j = (uint32_t)(rnd() % (i + 1));
        uint8_t tmp[512];
        memcpy(tmp, shuffled + (size_t)i * W, W);
        memcpy(shuffled + (size_t)i * W, shuffled + (size_t)j * W, W);
        memcpy(shuffled + (size_t)j * W, tmp, W);
    }
    for (uint32_t i = 0; i < n; i++)
        if (exec_topn_heap_admits(&h, shuffled + (size_t)i * W))
            exec_topn_heap_push(&h, shuffled + (size_t)i * W, NULL);
    exec_topn_heap_sort(&h);
    assert_int_equal(h.size, N);
    for (uint64_t i = 0; i < N; i++) {
        uint32_t got = (uint32_t)exec_sort_payload(&c.spec, h.entries + i * W);
        uint32_t want = (uint32_t)exec_sort_payload(&c.spec, merged + i * W);
        assert_int_equal(ref_cmp_rows(&c, got, want), 0);
    }
    exec_topn_heap_destroy(&h);
    free(shuffled);
    free(seen);
    free(merged);
    free(ent);
    for (uint32_t k = 0; k < n_keys; k++) vec_destroy(&c.cols[k]);
    arena_destroy(&a);
}

static void test_each_type(void **state) {
    (void)state;
    sqe_type types[] = {type_make(TYPE_BOOLEAN), type_make(TYPE_TINYINT), type_make(TYPE_SMALLINT),
                        type_make(TYPE_INTEGER), type_make(TYPE_BIGINT), type_make(TYPE_REAL),
                        type_make(TYPE_DOUBLE), type_decimal(10, 2), type_decimal(30, 3),
                        type_make(TYPE_DATE), type_make(TYPE_TIMESTAMP),
                        type_make(TYPE_TIMESTAMP_TZ), type_make(TYPE_UUID), type_varchar(0),
                        type_varchar(5)};
    for (uint32_t t = 0; t < sizeof types / sizeof types[0]; t++)
        for (int d = 0; d < 2; d++)
            for (int f = 0; f < 2; f++) {
                bool desc = d, nf = f;
                check_sort(&types[t], &desc, &nf, 1, 3000);
            }
}

static void test_multi_key(void **state) {
    (void)state;
    sqe_type types[] = {type_varchar(0), type_make(TYPE_DOUBLE), type_make(TYPE_INTEGER)};
    bool desc[] = {false, true, false};
    bool nf[] = {true, false, false};
    check_sort(types, desc, nf, 3, 20000);
    sqe_type t2[] = {type_make(TYPE_BOOLEAN), type_make(TYPE_BIGINT)};
    bool d2[] = {true, true};
    bool n2[] = {false, true};
    check_sort(t2, d2, n2, 2, 50000);
}

/* The encoding puts specific values in the documented order. */
static void test_known_order(void **state) {
    (void)state;
    sqe_type t = type_make(TYPE_DOUBLE);
    arena a;
    arena_init(&a, &g_tracker);
    exec_sort_spec s;
    bool desc = false, nf = false;
    assert_int_equal(exec_sort_spec_init(&s, &a, &t, &desc, &nf, 1, NULL), 0);
    vec v;
    assert_int_equal(vec_init(&v, t, 8, &g_tracker, NULL), 0);
    double vals[] = {-__builtin_inf(), -1.0, -0.0, 0.0, 1e-300, 1.0, __builtin_inf(), __builtin_nan("")};
    memcpy(v.data, vals, sizeof vals);
    uint8_t ent[8][24];
    assert_int_equal(s.entry_width, 24);
    exec_sort_encode(&s, 0, &v, NULL, 8, &ent[0][0], s.entry_width);
    for (int i = 1; i < 8; i++) {
        int c = memcmp(ent[i - 1], ent[i], s.key_width);
        if (i == 3)
            assert_int_equal(c, 0); /* -0 = 0 */
        else
            assert_true(c < 0);
    }
    /* NULLS LAST puts NULL after NaN */
    vec_set_null(&v, 0);
    exec_sort_encode(&s, 0, &v, NULL, 8, &ent[0][0], s.entry_width);
    assert_true(memcmp(ent[0], ent[7], s.key_width) > 0);
    vec_destroy(&v);
    arena_destroy(&a);
}

int main(void) {
    mem_tracker_init(&g_tracker, "test", 0, NULL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_order),
        cmocka_unit_test(test_each_type),
        cmocka_unit_test(test_multi_key),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    if (atomic_load(&g_tracker.used) != 0) {
        fprintf(stderr, "leaked %lld bytes\n", (long long)atomic_load(&g_tracker.used));
        return 1;
    }
    return rc;
}
