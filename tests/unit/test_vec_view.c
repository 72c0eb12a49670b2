/*
 * test_vec_view.c: unit tests of the "any vector shape" read view (vec_view, vec/vec.h).
 *
 * Every shape a kernel or a hash/compare loop can be handed is built over the same logical
 * column: flat (with NULLs), constant (NULL and non-NULL), a dictionary with a selection, an
 * identity view, a dictionary over a dictionary with two selections (the case the old
 * vec_unify presented as a constant NULL), a three-level chain, a dictionary over a constant and
 * a slice (exec_vec_slice). For each, every selected row's value and validity read through the
 * view (with and without a composing buffer) must equal the reference, which walks the chain
 * with vec_resolve. A cast kernel over a dictionary of a dictionary checks the same end to end.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/err.h"
#include "exec/ops.h"
#include "func/func.h"
#include "types/types.h"
#include "vec/vec.h"

enum { N = 16 };

static sqe_type bigint(void) { return type_make(TYPE_BIGINT); }

/* base: rows 0..N-1 with value 100 + i, rows divisible by 5 NULL. */
static void make_base(vec *v) {
    assert_int_equal(vec_init(v, bigint(), N, NULL, NULL), SQE_OK);
    for (uint32_t i = 0; i < N; i++) {
        VEC_DATA(v, int64_t)[i] = 100 + i;
        if (i % 5 == 0) assert_int_equal(vec_set_null(v, i), SQE_OK);
    }
}

static void make_const(vec *v, bool null) {
    assert_int_equal(vec_init(v, bigint(), N, NULL, NULL), SQE_OK);
    VEC_DATA(v, int64_t)[0] = 42;
    v->shape = VEC_CONST;
    if (null) vec_set_const_null(v);
}

/* The expected value of logical row r of any vector: -1 for NULL. */
static int64_t expect(const vec *v, uint32_t r) {
    uint32_t phys;
    const vec *f = vec_resolve(v, r, &phys);
    if (!vec_is_valid_flat(f, phys)) return -1;
    return VEC_DATA(f, int64_t)[phys];
}

static int64_t through(const vec_view *w, uint32_t r) {
    if (!vec_view_valid(w, r)) return -1;
    uint32_t idx = vec_view_index(w, r);
    assert_true(vec_view_valid_at(w, idx));
    return ((const int64_t *)w->data)[idx];
}

/* Checks rows sel[0..n) (all rows when sel is NULL) of v through both kinds of view, and that the
 * values are those in want (-1 = NULL) when want is given. */
static void check_rows(const vec *v, const uint32_t *sel, uint32_t n, const int64_t *want) {
    uint32_t buf[N], rows = 0; /* the composing buffer covers the rows read, as callers do */
    for (uint32_t i = 0; i < n; i++) {
        uint32_t r = sel ? sel[i] : i;
        if (r + 1 > rows) rows = r + 1;
    }
    vec_view plain, composed;
    vec_view_init(&plain, v);
    vec_view_init_buf(&composed, v, rows, buf);
    assert_true(plain.flat->shape == VEC_FLAT || plain.flat->shape == VEC_CONST);
    assert_ptr_equal(plain.flat, composed.flat);
    assert_null(composed.chain);
    if (rows) assert_true(vec_view_is_composed(&composed));
    for (uint32_t i = 0; i < n; i++) {
        uint32_t r = sel ? sel[i] : i;
        int64_t e = expect(v, r);
        if (want) assert_int_equal(e, want[i]);
        assert_int_equal(through(&plain, r), e);
        assert_int_equal(through(&composed, r), e);
        uint32_t idx = vec_view_index_composed(&composed, r);
        assert_int_equal(idx, vec_view_index(&composed, r));
    }
}

static const uint32_t every_other[] = {1, 3, 4, 7, 10, 15};

static void test_flat(void **state) {
    (void)state;
    vec base;
    make_base(&base);
    int64_t want[N];
    for (uint32_t i = 0; i < N; i++) want[i] = i % 5 == 0 ? -1 : 100 + (int64_t)i;
    check_rows(&base, NULL, N, want);
    check_rows(&base, every_other, 6, NULL);
    vec_view w;
    vec_view_init(&w, &base);
    assert_true(vec_view_is_flat(&w));
    vec_destroy(&base);
}

static void test_constants(void **state) {
    (void)state;
    vec c, cn;
    make_const(&c, false);
    make_const(&cn, true);
    int64_t want42[N], wantnull[N];
    for (uint32_t i = 0; i < N; i++) {
        want42[i] = 42;
        wantnull[i] = -1;
    }
    check_rows(&c, NULL, N, want42);
    check_rows(&cn, NULL, N, wantnull);
    check_rows(&cn, every_other, 6, wantnull);
    vec_view w;
    vec_view_init(&w, &c);
    assert_false(vec_view_is_flat(&w));
    assert_int_equal(vec_view_index(&w, N - 1), 0);
    /* a dictionary over a constant is that constant whatever its selection */
    static const uint32_t sel[N] = {9, 3, 7, 1, 0, 2, 4, 6, 8, 10, 11, 12, 13, 14, 15, 5};
    vec d, dn;
    assert_int_equal(vec_init(&d, bigint(), N, NULL, NULL), SQE_OK);
    assert_int_equal(vec_init(&dn, bigint(), N, NULL, NULL), SQE_OK);
    vec_set_dict(&d, &c, sel);
    vec_set_dict(&dn, &cn, sel);
    check_rows(&d, NULL, N, want42);
    check_rows(&dn, every_other, 6, wantnull);
    vec_destroy(&d);
    vec_destroy(&dn);
    vec_destroy(&c);
    vec_destroy(&cn);
}

static void test_dictionaries(void **state) {
    (void)state;
    vec base;
    make_base(&base);
    /* one selection */
    static const uint32_t s1[N] = {15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0};
    vec d1;
    assert_int_equal(vec_init(&d1, bigint(), N, NULL, NULL), SQE_OK);
    vec_set_dict(&d1, &base, s1);
    int64_t want[N];
    for (uint32_t i = 0; i < N; i++) want[i] = s1[i] % 5 == 0 ? -1 : 100 + (int64_t)s1[i];
    check_rows(&d1, NULL, N, want);
    check_rows(&d1, every_other, 6, NULL);
    /* identity view over the dictionary: still one selection */
    vec id;
    assert_int_equal(vec_init(&id, bigint(), N, NULL, NULL), SQE_OK);
    vec_set_dict(&id, &d1, NULL);
    check_rows(&id, NULL, N, want);
    vec_view w;
    vec_view_init(&w, &id);
    assert_ptr_equal(w.sel, s1);
    /* dictionary over a dictionary, both with selections (was a constant NULL) */
    static const uint32_t s2[N] = {2, 2, 0, 1, 3, 4, 6, 8, 11, 12, 13, 15, 14, 9, 7, 5};
    vec d2;
    assert_int_equal(vec_init(&d2, bigint(), N, NULL, NULL), SQE_OK);
    vec_set_dict(&d2, &d1, s2);
    int64_t want2[N];
    for (uint32_t i = 0; i < N; i++) {
        uint32_t p = s1[s2[i]];
        want2[i] = p % 5 == 0 ? -1 : 100 + (int64_t)p;
    }
    check_rows(&d2, NULL, N, want2);
    check_rows(&d2, every_other, 6, NULL);
    vec_view_init(&w, &d2);
    assert_int_equal(w.mode, VEC_VIEW_CHAIN);
    assert_ptr_equal(w.chain, &d2);
    assert_false(vec_view_is_composed(&w));
    uint32_t nonnull = 0;
    for (uint32_t i = 0; i < N; i++) nonnull += vec_view_valid(&w, i);
    assert_true(nonnull > 0);
    /* three levels, two selections, an identity view in the middle, and a third selection on top */
    vec mid, d3;
    assert_int_equal(vec_init(&mid, bigint(), N, NULL, NULL), SQE_OK);
    assert_int_equal(vec_init(&d3, bigint(), N, NULL, NULL), SQE_OK);
    vec_set_dict(&mid, &d2, NULL);
    vec_set_dict(&d3, &mid, s1);
    int64_t want3[N];
    for (uint32_t i = 0; i < N; i++) want3[i] = want2[s1[i]];
    check_rows(&d3, NULL, N, want3);
    check_rows(&d3, every_other, 6, NULL);
    vec_destroy(&d3);
    vec_destroy(&mid);
    vec_destroy(&d2);
    vec_destroy(&id);
    vec_destroy(&d1);
    vec_destroy(&base);
}

static void test_slices(void **state) {
    (void)state;
    vec base;
    make_base(&base);
    static const uint32_t s1[N] = {15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0};
    vec d1;
    assert_int_equal(vec_init(&d1, bigint(), N, NULL, NULL), SQE_OK);
    vec_set_dict(&d1, &base, s1);
    /* a selection into the middle of another selection (a window of rows) */
    vec win;
    assert_int_equal(vec_init(&win, bigint(), N, NULL, NULL), SQE_OK);
    vec_set_dict(&win, &d1, every_other);
    check_rows(&win, NULL, 6, NULL);
    /* exec_vec_slice composes what it can: flat, dictionary, dictionary of dictionary */
    const vec *srcs[] = {&base, &d1, &win};
    static const uint32_t pick[] = {0, 2, 3, 5};
    for (uint32_t k = 0; k < 3; k++) {
        vec out;
        sqe_error err;
        assert_int_equal(vec_init(&out, bigint(), N, NULL, NULL), SQE_OK);
        assert_int_equal(exec_vec_slice(&out, srcs[k], pick, 4, &err), SQE_OK);
        int64_t want[4];
        for (uint32_t i = 0; i < 4; i++) want[i] = expect(srcs[k], pick[i]);
        check_rows(&out, NULL, 4, want);
        vec_destroy(&out);
    }
    vec_destroy(&win);
    vec_destroy(&d1);
    vec_destroy(&base);
}

/* A kernel (the bigint -> double cast) over a dictionary of a dictionary reads the right rows. */
static void test_kernel_reads_dict_of_dict(void **state) {
    (void)state;
    vec base, d1, d2, out;
    make_base(&base);
    static const uint32_t s1[N] = {15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0};
    static const uint32_t s2[N] = {1, 2, 3, 4, 6, 7, 8, 9, 11, 12, 13, 14, 0, 5, 10, 15};
    assert_int_equal(vec_init(&d1, bigint(), N, NULL, NULL), SQE_OK);
    assert_int_equal(vec_init(&d2, bigint(), N, NULL, NULL), SQE_OK);
    vec_set_dict(&d1, &base, s1);
    vec_set_dict(&d2, &d1, s2);
    sqe_type dbl = type_make(TYPE_DOUBLE);
    func_scalar_fn fn = func_cast_lookup(bigint(), dbl);
    assert_non_null(fn);
    assert_int_equal(vec_init(&out, dbl, N, NULL, NULL), SQE_OK);
    sqe_error err;
    memset(&err, 0, sizeof err);
    func_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.err = &err;
    const vec *arg = &d2;
    assert_int_equal(fn(&ctx, &arg, 1, NULL, N, &out), SQE_OK);
    for (uint32_t i = 0; i < N; i++) {
        int64_t e = expect(&d2, i);
        if (e < 0) {
            assert_false(vec_is_valid_flat(&out, i));
        } else {
            assert_true(vec_is_valid_flat(&out, i));
            assert_true(VEC_DATA(&out, double)[i] == (double)e);
        }
    }
    vec_destroy(&out);
    vec_destroy(&d2);
    vec_destroy(&d1);
    vec_destroy(&base);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flat),
        cmocka_unit_test(test_constants),
        cmocka_unit_test(test_dictionaries),
        cmocka_unit_test(test_slices),
        cmocka_unit_test(test_kernel_reads_dict_of_dict),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
