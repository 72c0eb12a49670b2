/*
 * test_exec_lambda.c: lambda evaluation (func_ctx.lambda_eval) with a test-local
 * transform-like kernel: parameters bound to element vectors, captured outer columns gathered
 * through outer_rows, nested lambdas capturing an enclosing lambda's parameter, and calls with
 * more elements than one chunk (evaluated in pieces).
 */
#include "test_exec_util.h"

/* each(array(bigint), function(bigint, bigint)) -> array(bigint): applies the lambda to every
 * element; all elements of all selected rows in one lambda_eval call. */
static int each_fn(func_ctx *ctx, const vec *const *args, uint32_t n_args, const uint32_t *sel,
                   uint32_t count, vec *out) {
    const vec *arr = args[0];
    uint32_t total = 0;
    FUNC_FOR_ROWS(sel, count, row) {
        uint32_t phys;
        const vec *f = vec_resolve(arr, row, &phys);
        if (vec_is_valid_flat(f, phys)) total += VEC_DATA(f, sqe_list_entry)[phys].length;
    }
    vec elems, res;
    uint32_t cap = total ? total : 1;
    if (vec_init(&elems, type_make(TYPE_BIGINT), cap, ctx->tracker, ctx->err) ||
        vec_init(&res, type_make(TYPE_BIGINT), cap, ctx->tracker, ctx->err))
        return SQE_ERR_OUT_OF_MEMORY;
    uint32_t *outer = malloc(cap * sizeof(uint32_t));
    uint32_t k = 0;
    FUNC_FOR_ROWS(sel, count, row) {
        uint32_t phys;
        const vec *f = vec_resolve(arr, row, &phys);
        if (!vec_is_valid_flat(f, phys)) continue;
        sqe_list_entry e = VEC_DATA(f, sqe_list_entry)[phys];
        for (uint32_t i = 0; i < e.length; i++) {
            VEC_DATA(&elems, int64_t)[k] = VEC_DATA(&f->children[0], int64_t)[e.offset + i];
            outer[k++] = row;
        }
    }
    vec *largs[1] = {&elems};
    int rc = total ? ctx->lambda_eval(ctx->lambda_state, 1, largs, 1, outer, total, &res) : SQE_OK;
    if (rc == SQE_OK) {
        vec *oe = &out->children[0];
        vec_reserve(oe, out->child_len + total + 1, NULL);
        k = 0;
        FUNC_FOR_ROWS(sel, count, row) {
            uint32_t phys;
            const vec *f = vec_resolve(arr, row, &phys);
            if (!vec_is_valid_flat(f, phys)) {
                vec_set_null(out, row);
                continue;
            }
            uint32_t n = VEC_DATA(f, sqe_list_entry)[phys].length;
            VEC_DATA(out, sqe_list_entry)[row] = (sqe_list_entry){out->child_len, n};
            for (uint32_t i = 0; i < n; i++, k++)
                vec_copy_row(oe, out->child_len + i, &res, k, NULL);
            out->child_len += n;
        }
    }
    free(outer);
    vec_destroy(&elems);
    vec_destroy(&res);
    return rc;
}

static const func_scalar_def each_def = {"each", "array(bigint),function(bigint,bigint)",
                                         "array(bigint)", NULL, NULL, each_fn, FUNC_LAMBDA,
                                         "test"};

static bexpr *each_call(tx *t, bexpr *arr, plan_col_id param, bexpr *body) {
    bexpr *lam = bexpr_new(&t->pctx, BEXPR_LAMBDA, body->type, 1);
    lam->args[0] = body;
    lam->u.lambda.params = ARENA_ARRAY(&t->arena, plan_col_id, 1);
    lam->u.lambda.params[0] = param;
    lam->u.lambda.n_params = 1;
    bexpr *e = bexpr_new(&t->pctx, BEXPR_CALL, type_array(type_make(TYPE_BIGINT)), 2);
    e->args[0] = arr;
    e->args[1] = lam;
    e->u.call.def = &each_def;
    e->u.call.name = "each";
    return e;
}

static uint32_t len_of(uint64_t row) { return row == 3 ? 3000 : (uint32_t)(row % 4); }

static void fill(void *ud, uint64_t row, uint32_t col, vec *v, uint32_t idx) {
    if (col == 0) {
        VEC_DATA(v, int64_t)[idx] = (int64_t)row * 100;
        return;
    }
    if (row == 5) {
        vec_set_null(v, idx);
        return;
    }
    uint32_t n = len_of(row);
    vec_reserve(&v->children[0], v->child_len + n, NULL);
    for (uint32_t i = 0; i < n; i++) VEC_DATA(&v->children[0], int64_t)[v->child_len + i] = i;
    VEC_DATA(v, sqe_list_entry)[idx] = (sqe_list_entry){v->child_len, n};
    v->child_len += n;
}

static void test_lambda(void **state) {
    tx t;
    tx_init(&t, 2, 0);
    sqe_type bi = type_make(TYPE_BIGINT);
    sqe_type types[2] = {bi, type_array(bi)};
    cat_table *tab = tx_table(&t, "l", 2, types);
    tx_fill(&t, tab, 8, fill, NULL);
    plan *s = tx_scan(&t, tab);
    /* each(arr, x -> x + c0) */
    plan_col_id x = plan_new_col(&t.pctx);
    bexpr *body = TX_CALL(&t, "$add", bexpr_column(&t.pctx, x, bi), tx_col(&t, s, 0));
    bexpr *e1 = each_call(&t, tx_col(&t, s, 1), x, body);
    plan *f = tx_filter(&t, s, TX_CALL(&t, "$ne", tx_col(&t, s, 0), tx_int(&t, 300)));
    bexpr *e1f = each_call(&t, tx_col(&t, f, 1), x,
                           TX_CALL(&t, "$add", bexpr_column(&t.pctx, x, bi), tx_col(&t, f, 0)));
    plan *p = TX_PROJECT(&t, f, tx_col(&t, f, 0), e1f);
    assert_int_equal(tx_run(&t, p, 2), SQE_OK);
    TX_EXPECT(&t, true, "0|[]", "100|[100]", "200|[200, 201]", "400|[]", "500|NULL",
              "600|[600, 601]", "700|[700, 701, 702]");
    /* with the long array (3000 elements: two pieces) */
    plan *p2 = TX_PROJECT(&t, s, tx_col(&t, s, 0), e1);
    assert_int_equal(tx_run(&t, p2, 2), SQE_OK);
    assert_int_equal(t.n_rows, 8);
    qsort(t.rows, t.n_rows, sizeof(char *), tx_cmp_str);
    const char *r3 = t.rows[3]; /* "300|[300, 301, ..., 3299]" */
    assert_true(strncmp(r3, "300|[300, 301, 302", 18) == 0);
    assert_non_null(strstr(r3, ", 3299]"));
    tx_free(&t);
}

/* Nested lambdas: the inner lambda captures the outer lambda's parameter and an outer column;
 * a kernel reducing the inner array to its sum keeps the outer body scalar. */
static int sum_each_fn(func_ctx *ctx, const vec *const *args, uint32_t n_args, const uint32_t *sel,
                       uint32_t count, vec *out) {
    /* sum_each(array(bigint), function(bigint,bigint)) -> bigint: sum of lambda(element) */
    vec tmp;
    if (vec_init(&tmp, type_array(type_make(TYPE_BIGINT)), count ? sel ? sel[count - 1] + 1 : count : 1,
                 ctx->tracker, ctx->err))
        return SQE_ERR_OUT_OF_MEMORY;
    int rc = each_fn(ctx, args, n_args, sel, count, &tmp);
    if (rc == SQE_OK) {
        FUNC_FOR_ROWS(sel, count, row) {
            if (vec_is_null(&tmp, row)) {
                vec_set_null(out, row);
                continue;
            }
            sqe_list_entry e = VEC_DATA(&tmp, sqe_list_entry)[row];
            int64_t sum = 0;
            for (uint32_t i = 0; i < e.length; i++) sum += VEC_DATA(&tmp.children[0], int64_t)[e.offset + i];
            VEC_DATA(out, int64_t)[row] = sum;
        }
    }
    vec_destroy(&tmp);
    return rc;
}

static const func_scalar_def sum_each_def = {"sum_each", "array(bigint),function(bigint,bigint)",
                                             "bigint", NULL, NULL, sum_each_fn, FUNC_LAMBDA, "test"};

static bexpr *sum_each_call(tx *t, bexpr *arr, plan_col_id param, bexpr *body) {
    bexpr *e = each_call(t, arr, param, body);
    e->type = type_make(TYPE_BIGINT);
    e->u.call.def = &sum_each_def;
    e->u.call.name = "sum_each";
    return e;
}

static void test_nested_lambda(void **state) {
    tx t;
    tx_init(&t, 2, 0);
    sqe_type bi = type_make(TYPE_BIGINT);
    sqe_type types[2] = {bi, type_array(bi)};
    cat_table *tab = tx_table(&t, "l", 2, types);
    tx_fill(&t, tab, 8, fill, NULL);
    plan *s = tx_scan(&t, tab);
    plan *f = tx_filter(&t, s, TX_CALL(&t, "$ne", tx_col(&t, s, 0), tx_int(&t, 300)));
    /* each(arr, y -> sum_each(ARRAY[y, 1], z -> z * 10 + y + c0)) */
    plan_col_id y = plan_new_col(&t.pctx), z = plan_new_col(&t.pctx);
    bexpr *inner = sum_each_call(
        &t, TX_FORM(&t, BEXPR_ARRAY, type_array(bi), bexpr_column(&t.pctx, y, bi), tx_int(&t, 1)), z,
        TX_CALL(&t, "$add", TX_CALL(&t, "$multiply", bexpr_column(&t.pctx, z, bi), tx_int(&t, 10)),
                TX_CALL(&t, "$add", bexpr_column(&t.pctx, y, bi), tx_col(&t, f, 0))));
    bexpr *outer = each_call(&t, tx_col(&t, f, 1), y, inner);
    plan *p = TX_PROJECT(&t, f, tx_col(&t, f, 0), outer);
    assert_int_equal(tx_run(&t, p, 2), SQE_OK);
    /* element y of row with c0: (y*10 + y + c0) + (1*10 + y + c0) = 12y + 2c0 + 10 */
    TX_EXPECT(&t, true, "0|[]", "100|[210]", "200|[410, 422]", "400|[]", "500|NULL",
              "600|[1210, 1222]", "700|[1410, 1422, 1434]");
    tx_free(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lambda),
        cmocka_unit_test(test_nested_lambda),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
