/*
 * test_exec_ops_errors.c: failure paths of the heavy operators: the per-query memory limit hit
 * inside a join build, an aggregation, a sort, a window and a set operation; cancellation;
 * errors raised by aggregate kernels during the merge and by window functions. Each must
 * return its error and release every byte charged to the query (tx_free checks the query
 * tracker is back at zero; ASan checks the rest).
 */
#include "test_exec_util.h"

#define N 200000

static void fill_big(void *ud, uint64_t row, uint32_t col, vec *v, uint32_t idx) {
    if (col == 2) {
        char buf[40];
        int n = snprintf(buf, sizeof buf, "a string that is long enough %llu", (unsigned long long)row);
        bool ok = true;
        VEC_DATA(v, sqe_str)[idx] = vec_str_copy(v, buf, (uint32_t)n, &ok);
        return;
    }
    VEC_DATA(v, int64_t)[idx] = col == 0 ? (int64_t)row : (int64_t)(row % 1000) * 4611686018427387LL;
}

static cat_table *make_big(tx *t) {
    sqe_type ty[3] = {type_make(TYPE_BIGINT), type_make(TYPE_BIGINT), type_varchar(0)};
    cat_table *tab = tx_table(t, "big", 3, ty);
    tx_fill(t, tab, N, fill_big, NULL);
    return tab;
}

static plan *join_of(tx *t, plan *l, plan *r) {
    plan *p = plan_new(&t->pctx, PLAN_JOIN, 2, l->n_out + r->n_out);
    p->children[0] = l;
    p->children[1] = r;
    memcpy(p->out, l->out, sizeof(plan_col) * l->n_out);
    memcpy(p->out + l->n_out, r->out, sizeof(plan_col) * r->n_out);
    p->u.join.type = JOIN_INNER;
    p->u.join.n_keys = 1;
    p->u.join.left_keys = ARENA_ARRAY(&t->arena, bexpr *, 1);
    p->u.join.right_keys = ARENA_ARRAY(&t->arena, bexpr *, 1);
    p->u.join.left_keys[0] = tx_col(t, l, 0);
    p->u.join.right_keys[0] = tx_col(t, r, 0);
    return p;
}

static plan_agg mk_agg(tx *t, const char *name, uint32_t n, bexpr **args) {
    sqe_type types[4];
    memset(types, 0, sizeof types);
    for (uint32_t i = 0; i < n; i++) types[i] = args[i]->type;
    func_resolved r;
    assert_int_equal(func_resolve_agg(&t->arena, name, types, n, &r, &t->err), SQE_OK);
    plan_agg a;
    memset(&a, 0, sizeof a);
    a.def = r.agg;
    a.n_args = n;
    a.args = ARENA_ARRAY(&t->arena, bexpr *, n + 1);
    for (uint32_t i = 0; i < n; i++) a.args[i] = args[i];
    a.type = r.ret;
    a.out = plan_new_col(&t->pctx);
    return a;
}

static plan *agg_of(tx *t, plan *s, uint32_t n_groups, bexpr **groups, plan_agg *aggs,
                    uint32_t n_aggs) {
    plan *p = plan_new(&t->pctx, PLAN_AGGREGATE, 1, n_groups + n_aggs);
    p->children[0] = s;
    p->u.agg.groups = ARENA_ARRAY(&t->arena, bexpr *, n_groups + 1);
    for (uint32_t g = 0; g < n_groups; g++) {
        p->u.agg.groups[g] = groups[g];
        p->out[g].id = plan_new_col(&t->pctx);
        p->out[g].type = groups[g]->type;
    }
    p->u.agg.n_groups = n_groups;
    p->u.agg.aggs = aggs;
    p->u.agg.n_aggs = n_aggs;
    for (uint32_t a = 0; a < n_aggs; a++) {
        p->out[n_groups + a].id = aggs[a].out;
        p->out[n_groups + a].type = aggs[a].type;
    }
    return p;
}

static plan *sort_of(tx *t, plan *s, uint8_t kind, int64_t limit) {
    plan *p = plan_new(&t->pctx, kind, 1, s->n_out);
    p->children[0] = s;
    memcpy(p->out, s->out, sizeof(plan_col) * s->n_out);
    p->u.sort.keys = ARENA_ARRAY(&t->arena, plan_sort_key, 1);
    p->u.sort.keys[0].expr = tx_col(t, s, 2);
    p->u.sort.n_keys = 1;
    p->u.sort.limit = limit;
    return p;
}

static plan *window_of(tx *t, plan *s, int64_t buckets) {
    plan *p = plan_new(&t->pctx, PLAN_WINDOW, 1, s->n_out + 1);
    p->children[0] = s;
    memcpy(p->out, s->out, sizeof(plan_col) * s->n_out);
    p->u.window.funcs = ARENA_ARRAY(&t->arena, plan_window_func, 1);
    p->u.window.n_funcs = 1;
    plan_window_func *f = &p->u.window.funcs[0];
    sqe_type bt = type_make(TYPE_BIGINT);
    func_resolved r;
    assert_int_equal(func_resolve_window(&t->arena, "ntile", &bt, 1, &r, &t->err), SQE_OK);
    f->win = r.window;
    f->args = ARENA_ARRAY(&t->arena, bexpr *, 1);
    f->args[0] = tx_int(t, buckets);
    f->n_args = 1;
    f->order = ARENA_ARRAY(&t->arena, plan_sort_key, 1);
    f->order[0].expr = tx_col(t, s, 2);
    f->n_order = 1;
    f->frame_unit = FRAME_RANGE;
    f->start_bound = BOUND_UNBOUNDED_PRECEDING;
    f->end_bound = BOUND_CURRENT_ROW;
    f->type = r.ret;
    f->out = plan_new_col(&t->pctx);
    p->out[s->n_out].id = f->out;
    p->out[s->n_out].type = r.ret;
    return p;
}

static plan *setop_of(tx *t, plan *a, plan *b) {
    plan *p = plan_new(&t->pctx, PLAN_SETOP, 2, a->n_out);
    p->children[0] = a;
    p->children[1] = b;
    for (uint32_t c = 0; c < a->n_out; c++) {
        p->out[c].id = plan_new_col(&t->pctx);
        p->out[c].type = a->out[c].type;
    }
    p->u.setop.op = SETOP_INTERSECT;
    p->u.setop.all = true;
    return p;
}

/* Every heavy operator over 200k rows under a 4 MB limit. */
static void test_memory_limit(void **state) {
    (void)state;
    for (uint32_t threads = 1; threads <= 4; threads += 3) {
        tx t;
        tx_init(&t, 4, 4 << 20);
        cat_table *tab = make_big(&t);
        plan *plans[6];
        plans[0] = join_of(&t, tx_scan(&t, tab), tx_scan(&t, tab));
        plan *s = tx_scan(&t, tab);
        bexpr *g = tx_col(&t, s, 2), *x = tx_col(&t, s, 0);
        plan_agg *aggs = ARENA_ARRAY(&t.arena, plan_agg, 2);
        aggs[0] = mk_agg(&t, "count", 0, NULL);
        aggs[1] = mk_agg(&t, "array_agg", 1, &x);
        plans[1] = agg_of(&t, s, 1, &g, aggs, 2);
        plans[2] = sort_of(&t, tx_scan(&t, tab), PLAN_SORT, 0);
        plans[3] = window_of(&t, tx_scan(&t, tab), 3);
        plans[4] = setop_of(&t, tx_scan(&t, tab), tx_scan(&t, tab));
        plans[5] = sort_of(&t, tx_scan(&t, tab), PLAN_TOPN, 150000);
        for (int i = 0; i < 6; i++) {
            int rc = tx_run(&t, plans[i], threads);
            if (rc != SQE_ERR_EXCEEDED_MEMORY_LIMIT)
                fail_msg("plan %d threads %u: expected EXCEEDED_MEMORY_LIMIT, got %d (%s)", i,
                         threads, rc, t.err.message);
            assert_int_equal(atomic_load(&t.query.used), 0);
        }
        tx_free(&t);
    }
}

/* A canceled query stops with USER_CANCELED and frees everything. */
static void test_cancel(void **state) {
    (void)state;
    tx t;
    tx_init(&t, 4, 0);
    cat_table *tab = make_big(&t);
    volatile int cancel = 1;
    plan *p = sort_of(&t, join_of(&t, tx_scan(&t, tab), tx_scan(&t, tab)), PLAN_SORT, 0);
    tx_run_opts o = {.threads = 4, .cancel = &cancel};
    assert_int_equal(tx_run_opt(&t, p, &o), SQE_ERR_USER_CANCELED);
    assert_int_equal(atomic_load(&t.query.used), 0);
    tx_free(&t);
}

/* Kernel errors: sum overflowing bigint (raised while merging or finalizing the groups) and
 * ntile(0). */
static void test_kernel_errors(void **state) {
    (void)state;
    tx t;
    tx_init(&t, 4, 0);
    cat_table *tab = make_big(&t);
    for (uint32_t threads = 1; threads <= 4; threads += 3) {
        plan *s = tx_scan(&t, tab);
        bexpr *v = tx_col(&t, s, 1), *g = TX_CALL(&t, "$modulus", tx_col(&t, s, 0), tx_int(&t, 7));
        plan_agg *aggs = ARENA_ARRAY(&t.arena, plan_agg, 1);
        aggs[0] = mk_agg(&t, "sum", 1, &v);
        int rc = tx_run(&t, agg_of(&t, s, 1, &g, aggs, 1), threads);
        assert_int_equal(rc, SQE_ERR_NUMERIC_VALUE_OUT_OF_RANGE);
        assert_int_equal(atomic_load(&t.query.used), 0);
        rc = tx_run(&t, window_of(&t, tx_scan(&t, tab), 0), threads);
        assert_int_equal(rc, SQE_ERR_INVALID_FUNCTION_ARGUMENT);
        assert_non_null(strstr(t.err.message, "Buckets"));
        assert_int_equal(atomic_load(&t.query.used), 0);
    }
    tx_free(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_memory_limit),
        cmocka_unit_test(test_cancel),
        cmocka_unit_test(test_kernel_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
