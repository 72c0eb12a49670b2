/*
 * test_exec_expr.c: the vectorized expression evaluator through real plans: scan + filter +
 * project with computed columns and NULLs, three-valued AND/OR/NOT, CASE, COALESCE, IN lists
 * (hash set and $eq chain), NULLIF, IS NULL, TRY and TRY_CAST, casts, ARRAY/ROW/field access,
 * parameters, constant folding, and kernel errors. Each result is compared with a reference
 * computed row by row in C, over several chunks and two threads.
 */
#include "test_exec_util.h"

#define N 5000 /* rows: three chunks, so morsels and chunk boundaries are exercised */

/* Reference data: c0 = i; c1 = i % 7, NULL when i % 5 == 0; c2 = a string (long for odd i),
 * NULL when i % 3 == 0; c3 = (i % 2 == 0), NULL when i % 4 == 1. */
static bool c1_null(uint64_t i) { return i % 5 == 0; }
static int64_t c1_val(uint64_t i) { return (int64_t)(i % 7); }
static bool c2_null(uint64_t i) { return i % 3 == 0; }
static void c2_text(uint64_t i, char *buf, size_t n) {
    if (i % 2)
        snprintf(buf, n, "a longer string number %llu", (unsigned long long)i);
    else
        snprintf(buf, n, "s%llu", (unsigned long long)i);
}
static int c3_val(uint64_t i) { return i % 4 == 1 ? 2 : i % 2 == 0; } /* 0 F, 1 T, 2 NULL */

static void fill(void *ud, uint64_t row, uint32_t col, vec *v, uint32_t idx) {
    switch (col) {
    case 0: VEC_DATA(v, int64_t)[idx] = (int64_t)row; break;
    case 1:
        if (c1_null(row))
            vec_set_null(v, idx);
        else
            VEC_DATA(v, int64_t)[idx] = c1_val(row);
        break;
    case 2:
        if (c2_null(row)) {
            vec_set_null(v, idx);
        } else {
            char buf[64];
            c2_text(row, buf, sizeof buf);
            bool ok = true;
            VEC_DATA(v, sqe_str)[idx] = vec_str_copy(v, buf, (uint32_t)strlen(buf), &ok);
        }
        break;
    default:
        if (c3_val(row) == 2)
            vec_set_null(v, idx);
        else
            VEC_DATA(v, uint8_t)[idx] = (uint8_t)c3_val(row);
        break;
    }
}

static cat_table *make_t(tx *t) {
    sqe_type types[4] = {type_make(TYPE_BIGINT), type_make(TYPE_BIGINT), type_varchar(0),
                         type_make(TYPE_BOOLEAN)};
    cat_table *tab = tx_table(t, "t", 4, types);
    tx_fill(t, tab, N, fill, NULL);
    return tab;
}

/* Expected rows, built by the test. */
typedef struct expect {
    char **rows;
    uint32_t n;
} expect;

static void ex_add(expect *e, const char *fmt, ...) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    e->rows = realloc(e->rows, (e->n + 1) * sizeof(char *));
    e->rows[e->n++] = strdup(buf);
}

static void ex_check(tx *t, expect *e, bool sort) {
    if (sort) qsort(e->rows, e->n, sizeof(char *), tx_cmp_str);
    tx_expect(t, sort, e->n, (const char *const *)e->rows);
    for (uint32_t i = 0; i < e->n; i++) free(e->rows[i]);
    free(e->rows);
    memset(e, 0, sizeof *e);
}

static const char *b3(int v) { return v == 2 ? "NULL" : v ? "true" : "false"; }
static int and3(int a, int b) { return a == 0 || b == 0 ? 0 : a == 2 || b == 2 ? 2 : 1; }
static int or3(int a, int b) { return a == 1 || b == 1 ? 1 : a == 2 || b == 2 ? 2 : 0; }
static int c1_gt(uint64_t i, int64_t k) { return c1_null(i) ? 2 : c1_val(i) > k; }
static void int_or_null(char *buf, size_t n, bool null, int64_t v) {
    if (null)
        snprintf(buf, n, "NULL");
    else
        snprintf(buf, n, "%lld", (long long)v);
}

/* scan + filter (c1 < 3) + project (c0, c1 + 10, c2) */
static void test_scan_filter_project(void **state) {
    tx t;
    tx_init(&t, 2, 0);
    cat_table *tab = make_t(&t);
    plan *s = tx_scan(&t, tab);
    plan *f = tx_filter(&t, s, TX_CALL(&t, "$lt", tx_col(&t, s, 1), tx_int(&t, 3)));
    plan *p = TX_PROJECT(&t, f, tx_col(&t, f, 0), TX_CALL(&t, "$add", tx_col(&t, f, 1), tx_int(&t, 10)),
                         tx_col(&t, f, 2));
    assert_int_equal(tx_run(&t, p, 2), SQE_OK);
    expect e = {0};
    for (uint64_t i = 0; i < N; i++) {
        if (c1_null(i) || c1_val(i) >= 3) continue;
        char s2[64];
        if (c2_null(i))
            strcpy(s2, "NULL");
        else
            c2_text(i, s2, sizeof s2);
        ex_add(&e, "%llu|%lld|%s", (unsigned long long)i, (long long)c1_val(i) + 10, s2);
    }
    ex_check(&t, &e, true);
    tx_free(&t);
}

/* AND / OR / NOT in projections (three-valued) and in filters. */
static void test_and_or_not(void **state) {
    tx t;
    tx_init(&t, 2, 0);
    cat_table *tab = make_t(&t);
    plan *s = tx_scan(&t, tab);
    bexpr *c3 = tx_col(&t, s, 3);
    bexpr *gt2 = TX_CALL(&t, "$gt", tx_col(&t, s, 1), tx_int(&t, 2));
    bexpr *gt4 = TX_CALL(&t, "$gt", tx_col(&t, s, 1), tx_int(&t, 4));
    plan *p = TX_PROJECT(&t, s, tx_col(&t, s, 0), TX_FORM(&t, BEXPR_AND, TX_BOOL_T, c3, gt2),
                         TX_FORM(&t, BEXPR_OR, TX_BOOL_T, c3, gt4),
                         TX_FORM(&t, BEXPR_NOT, TX_BOOL_T, c3),
                         TX_FORM(&t, BEXPR_AND, TX_BOOL_T, gt2, TX_FORM(&t, BEXPR_OR, TX_BOOL_T, c3, gt4),
                                 TX_FORM(&t, BEXPR_NOT, TX_BOOL_T, gt4)));
    assert_int_equal(tx_run(&t, p, 2), SQE_OK);
    expect e = {0};
    for (uint64_t i = 0; i < N; i++) {
        int a = c3_val(i), g2 = c1_gt(i, 2), g4 = c1_gt(i, 4);
        int n4 = g4 == 2 ? 2 : !g4;
        ex_add(&e, "%llu|%s|%s|%s|%s", (unsigned long long)i, b3(and3(a, g2)), b3(or3(a, g4)),
               b3(a == 2 ? 2 : !a), b3(and3(and3(g2, or3(a, g4)), n4)));
    }
    ex_check(&t, &e, true);

    /* the same conditions as filters: rows where the result is TRUE */
    plan *f = tx_filter(&t, s, TX_FORM(&t, BEXPR_OR, TX_BOOL_T,
                                       TX_FORM(&t, BEXPR_AND, TX_BOOL_T, c3, gt2),
                                       TX_FORM(&t, BEXPR_NOT, TX_BOOL_T, gt4)));
    plan *p2 = TX_PROJECT(&t, f, tx_col(&t, f, 0));
    assert_int_equal(tx_run(&t, p2, 2), SQE_OK);
    for (uint64_t i = 0; i < N; i++) {
        int g4 = c1_gt(i, 4);
        if (or3(and3(c3_val(i), c1_gt(i, 2)), g4 == 2 ? 2 : !g4) == 1)
            ex_add(&e, "%llu", (unsigned long long)i);
    }
    ex_check(&t, &e, true);
    tx_free(&t);
}

/* CASE, COALESCE, NULLIF, IS NULL, IS NOT NULL. */
static void test_case_coalesce(void **state) {
    tx t;
    tx_init(&t, 2, 0);
    cat_table *tab = make_t(&t);
    plan *s = tx_scan(&t, tab);
    sqe_type vc = type_varchar(0), bi = type_make(TYPE_BIGINT);
    bexpr *cs = TX_FORM(&t, BEXPR_CASE, vc, TX_CALL(&t, "$lt", tx_col(&t, s, 1), tx_int(&t, 2)),
                        tx_str(&t, "low"), TX_CALL(&t, "$lt", tx_col(&t, s, 1), tx_int(&t, 4)),
                        tx_col(&t, s, 2));
    cs->u.case_has_else = false;
    bexpr *cs2 = TX_FORM(&t, BEXPR_CASE, bi, tx_col(&t, s, 3), tx_col(&t, s, 1),
                         TX_FORM(&t, BEXPR_IS_NULL, TX_BOOL_T, tx_col(&t, s, 2)),
                         TX_CALL(&t, "$multiply", tx_col(&t, s, 0), tx_int(&t, 2)), tx_int(&t, -1));
    cs2->u.case_has_else = true;
    bexpr *co = TX_FORM(&t, BEXPR_COALESCE, bi, tx_col(&t, s, 1),
                        TX_FORM(&t, BEXPR_CASE, bi, tx_col(&t, s, 3), tx_null(&t, bi)),
                        TX_CALL(&t, "$multiply", tx_col(&t, s, 0), tx_int(&t, 100)));
    co->args[1]->u.case_has_else = false;
    bexpr *ni = TX_FORM(&t, BEXPR_NULLIF, bi, tx_col(&t, s, 1), tx_int(&t, 3));
    bexpr *nn = TX_FORM(&t, BEXPR_IS_NOT_NULL, TX_BOOL_T, tx_col(&t, s, 2));
    plan *p = TX_PROJECT(&t, s, tx_col(&t, s, 0), cs, cs2, co, ni, nn);
    assert_int_equal(tx_run(&t, p, 2), SQE_OK);
    expect e = {0};
    for (uint64_t i = 0; i < N; i++) {
        char a[64], b[32], c[32], d[32], s2[64];
        if (c2_null(i))
            strcpy(s2, "NULL");
        else
            c2_text(i, s2, sizeof s2);
        if (!c1_null(i) && c1_val(i) < 2)
            strcpy(a, "low");
        else if (!c1_null(i) && c1_val(i) < 4)
            strcpy(a, s2);
        else
            strcpy(a, "NULL");
        if (c3_val(i) == 1)
            int_or_null(b, sizeof b, c1_null(i), c1_val(i));
        else if (c2_null(i))
            snprintf(b, sizeof b, "%lld", (long long)i * 2);
        else
            strcpy(b, "-1");
        snprintf(c, sizeof c, "%lld", c1_null(i) ? (long long)i * 100 : (long long)c1_val(i));
        int_or_null(d, sizeof d, c1_null(i) || c1_val(i) == 3, c1_val(i));
        ex_add(&e, "%llu|%s|%s|%s|%s|%s", (unsigned long long)i, a, b, c, d,
               c2_null(i) ? "false" : "true");
    }
    ex_check(&t, &e, true);
    tx_free(&t);
}

/* IN lists: hash set (>= 4 constants, with and without NULL), $eq chain (column elements),
 * varchar set. */
static void test_in_list(void **state) {
    tx t;
    tx_init(&t, 2, 0);
    cat_table *tab = make_t(&t);
    plan *s = tx_scan(&t, tab);
    bexpr *x = tx_col(&t, s, 1);
    sqe_type bi = type_make(TYPE_BIGINT);
    bexpr *in_set = TX_FORM(&t, BEXPR_IN_LIST, TX_BOOL_T, x, tx_int(&t, 1), tx_int(&t, 3),
                            tx_int(&t, 5), tx_int(&t, 100));
    bexpr *in_set_null = TX_FORM(&t, BEXPR_IN_LIST, TX_BOOL_T, x, tx_int(&t, 1), tx_int(&t, 3),
                                 tx_null(&t, bi), tx_int(&t, 5), tx_int(&t, 100));
    bexpr *in_chain = TX_FORM(&t, BEXPR_IN_LIST, TX_BOOL_T, x, tx_int(&t, 2),
                              TX_CALL(&t, "$subtract", tx_col(&t, s, 0), tx_col(&t, s, 0)));
    bexpr *in_chain_null = TX_FORM(&t, BEXPR_IN_LIST, TX_BOOL_T, x, tx_int(&t, 2), tx_null(&t, bi));
    bexpr *in_str = TX_FORM(&t, BEXPR_IN_LIST, TX_BOOL_T, tx_col(&t, s, 2), tx_str(&t, "s2"),
                            tx_str(&t, "s4"), tx_str(&t, "a longer string number 7"),
                            tx_str(&t, "zzz"));
    plan *p = TX_PROJECT(&t, s, tx_col(&t, s, 0), in_set, in_set_null, in_chain, in_chain_null,
                         in_str);
    assert_int_equal(tx_run(&t, p, 2), SQE_OK);
    expect e = {0};
    for (uint64_t i = 0; i < N; i++) {
        int64_t v = c1_val(i);
        bool nl = c1_null(i);
        bool m1 = v == 1 || v == 3 || v == 5;
        int r1 = nl ? 2 : m1;
        int r2 = nl ? 2 : m1 ? 1 : 2;
        int r3 = nl ? 2 : (v == 2 || v == 0);
        int r4 = nl ? 2 : v == 2 ? 1 : 2;
        int r5 = c2_null(i) ? 2 : (i == 2 || i == 4 || i == 7);
        ex_add(&e, "%llu|%s|%s|%s|%s|%s", (unsigned long long)i, b3(r1), b3(r2), b3(r3), b3(r4),
               b3(r5));
    }
    ex_check(&t, &e, true);
    tx_free(&t);
}

/* Division by zero fails the query; TRY turns it into NULL; TRY_CAST likewise. */
static void test_errors_and_try(void **state) {
    tx t;
    tx_init(&t, 2, 0);
    cat_table *tab = make_t(&t);
    plan *s = tx_scan(&t, tab);
    bexpr *div = TX_CALL(&t, "$divide", tx_int(&t, 100),
                         TX_CALL(&t, "$subtract", tx_col(&t, s, 1), tx_int(&t, 3)));
    plan *p = TX_PROJECT(&t, s, tx_col(&t, s, 0), div);
    int rc = tx_run(&t, p, 2);
    assert_int_equal(rc, SQE_ERR_DIVISION_BY_ZERO);
    assert_non_null(strstr(t.err.message, "zero"));

    bexpr *tdiv = TX_FORM(&t, BEXPR_TRY, div->type, div);
    bexpr *tc = tx_cast(&t, tx_col(&t, s, 2), type_make(TYPE_BIGINT), true);
    plan *p2 = TX_PROJECT(&t, s, tx_col(&t, s, 0), tdiv, tc);
    assert_int_equal(tx_run(&t, p2, 2), SQE_OK);
    expect e = {0};
    for (uint64_t i = 0; i < N; i++) {
        char a[32];
        int_or_null(a, sizeof a, c1_null(i) || c1_val(i) == 3, c1_null(i) || c1_val(i) == 3 ? 0 : 100 / (c1_val(i) - 3));
        ex_add(&e, "%llu|%s|NULL", (unsigned long long)i, a);
    }
    ex_check(&t, &e, true);

    /* a failing cast without TRY */
    plan *p3 = TX_PROJECT(&t, s, tx_cast(&t, tx_col(&t, s, 2), type_make(TYPE_BIGINT), false));
    rc = tx_run(&t, p3, 2);
    assert_int_equal(rc, SQE_ERR_INVALID_CAST_ARGUMENT);
    /* a cast that works: varchar of c0 back to bigint */
    plan *p4 = TX_PROJECT(&t, s, tx_cast(&t, tx_cast(&t, tx_col(&t, s, 0), type_varchar(0), false),
                                         type_make(TYPE_BIGINT), false));
    assert_int_equal(tx_run(&t, p4, 2), SQE_OK);
    assert_int_equal(t.n_rows, N);
    tx_free(&t);
}

/* Constant folding through the executor. */
static void test_fold(void **state) {
    tx t;
    tx_init(&t, 0, 0);
    bexpr *e = TX_CALL(&t, "$add", tx_int(&t, 40), TX_CALL(&t, "$multiply", tx_int(&t, 1), tx_int(&t, 2)));
    bexpr *out = NULL;
    assert_int_equal(exec_fold_const(&t.pctx, e, 0, 0, &out, &t.err), SQE_OK);
    assert_int_equal(out->kind, BEXPR_CONST);
    assert_int_equal(VEC_DATA(out->u.constant, int64_t)[0], 42);
    bexpr *bad = TX_CALL(&t, "$divide", tx_int(&t, 1), tx_int(&t, 0));
    assert_int_equal(exec_fold_const(&t.pctx, bad, 0, 0, &out, &t.err), SQE_ERR_DIVISION_BY_ZERO);
    bexpr *s = TX_CALL(&t, "concat", tx_str(&t, "hello, "), tx_str(&t, "a world of long strings"));
    assert_int_equal(exec_fold_const(&t.pctx, s, 0, 0, &out, &t.err), SQE_OK);
    strbuf sb;
    strbuf_init(&sb);
    vec_format_value(out->u.constant, 0, &sb);
    assert_string_equal(strbuf_cstr(&sb), "hello, a world of long strings");
    strbuf_reset(&sb);
    /* NULL propagation of a constant */
    bexpr *nl = TX_CALL(&t, "$add", tx_int(&t, 1), tx_null(&t, type_make(TYPE_BIGINT)));
    assert_int_equal(exec_fold_const(&t.pctx, nl, 0, 0, &out, &t.err), SQE_OK);
    assert_true(vec_is_null(out->u.constant, 0));
    /* subqueries never reach the executor */
    bexpr *sq = bexpr_new(&t.pctx, BEXPR_SUBQUERY, type_make(TYPE_BIGINT), 0);
    assert_int_equal(exec_fold_const(&t.pctx, sq, 0, 0, &out, &t.err), SQE_ERR_GENERIC_INTERNAL_ERROR);
    assert_non_null(strstr(t.err.message, "BEXPR_SUBQUERY"));
    tx_free(&t);
}

/* ARRAY[...] and ROW(...) constructors and field access, parameters. */
static void test_nested_and_params(void **state) {
    tx t;
    tx_init(&t, 2, 0);
    cat_table *tab = make_t(&t);
    plan *s = tx_scan(&t, tab);
    plan *f = tx_filter(&t, s, TX_CALL(&t, "$lt", tx_col(&t, s, 0), tx_int(&t, 4)));
    sqe_type bi = type_make(TYPE_BIGINT), vc = type_varchar(0);
    bexpr *arr = TX_FORM(&t, BEXPR_ARRAY, type_array(bi), tx_col(&t, f, 0), tx_col(&t, f, 1),
                         tx_int(&t, 7));
    sqe_type rt_fields[2] = {bi, vc};
    const char *rt_names[2] = {"a", "b"};
    sqe_type rt = type_row(2, rt_fields, rt_names);
    bexpr *row = TX_FORM(&t, BEXPR_ROW, rt, tx_col(&t, f, 1), tx_col(&t, f, 2));
    bexpr *fld = TX_FORM(&t, BEXPR_FIELD, vc, TX_FORM(&t, BEXPR_ROW, rt, tx_col(&t, f, 1), tx_col(&t, f, 2)));
    fld->u.field = 1;
    bexpr *prm = bexpr_new(&t.pctx, BEXPR_PARAM, bi, 0);
    prm->u.param = 1;
    bexpr *padd = TX_CALL(&t, "$add", tx_col(&t, f, 0), prm);
    plan *p = TX_PROJECT(&t, f, arr, row, fld, padd);
    vec pv;
    assert_int_equal(vec_init(&pv, bi, 1, NULL, NULL), SQE_OK);
    VEC_DATA(&pv, int64_t)[0] = 1000;
    const vec *params[1] = {&pv};
    tx_run_opts o = {.threads = 2, .keep_rows = true, .params = params, .n_params = 1};
    assert_int_equal(tx_run_opt(&t, p, &o), SQE_OK);
    TX_EXPECT(&t, true, "[0, NULL, 7]|{a=NULL, b=NULL}|NULL|1000",
              "[1, 1, 7]|{a=1, b=a longer string number 1}|a longer string number 1|1001",
              "[2, 2, 7]|{a=2, b=s2}|s2|1002", "[3, 3, 7]|{a=3, b=NULL}|NULL|1003");
    /* a missing parameter is an error at build time */
    assert_int_equal(tx_run(&t, p, 2), SQE_ERR_INVALID_PARAMETER_USAGE);
    vec_destroy(&pv);
    tx_free(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scan_filter_project), cmocka_unit_test(test_and_or_not),
        cmocka_unit_test(test_case_coalesce),       cmocka_unit_test(test_in_list),
        cmocka_unit_test(test_errors_and_try),      cmocka_unit_test(test_fold),
        cmocka_unit_test(test_nested_and_params),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
