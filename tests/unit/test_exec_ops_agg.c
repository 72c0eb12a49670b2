/*
 * test_exec_ops_agg.c: end-to-end tests of hash aggregation, DISTINCT and set operations
 * (op_hash_agg.c, op_distinct.c, op_setop.c) from hand-made plans over memory tables, against
 * references computed in the test: NULL groups, string keys (long ones too), count / sum / min /
 * max, DISTINCT aggregates, FILTER, ORDER BY inside array_agg, grouping sets with the grouping
 * id, empty inputs with and without groups, a high-cardinality GROUP BY that overflows the
 * thread-local tables, SELECT DISTINCT, and UNION / INTERSECT / EXCEPT [ALL] with duplicates.
 * Every plan runs with one and with four threads.
 */
#include "test_exec_util.h"

#define N 20000

static const char *pick2(uint64_t k) {
    static const char *v[] = {NULL, "a", "bb", "long-string-group-name-1", "long-string-group-name-2", "a"};
    return v[k % 6];
}

typedef struct trow {
    bool g1_null;
    int64_t g1;
    const char *g2;
    bool x_null;
    int64_t x;
    int64_t y;
} trow;

static trow row_at(uint64_t i) {
    trow r;
    r.g1_null = i % 13 == 0;
    r.g1 = (int64_t)((i * 7) % 31);
    r.g2 = pick2(i % 6);
    r.x_null = i % 10 == 0;
    r.x = (int64_t)((i * 37) % 101) - 50;
    r.y = (int64_t)i;
    return r;
}

static void fill_t(void *ud, uint64_t row, uint32_t col, vec *v, uint32_t idx) {
    trow r = row_at(row);
    switch (col) {
    case 0:
        VEC_DATA(v, int64_t)[idx] = r.g1;
        if (r.g1_null) vec_set_null(v, idx);
        break;
    case 1:
        if (!r.g2) {
            vec_set_null(v, idx);
        } else {
            bool ok = true;
            VEC_DATA(v, sqe_str)[idx] = vec_str_copy(v, r.g2, (uint32_t)strlen(r.g2), &ok);
        }
        break;
    case 2:
        VEC_DATA(v, int64_t)[idx] = r.x;
        if (r.x_null) vec_set_null(v, idx);
        break;
    default: VEC_DATA(v, int64_t)[idx] = r.y; break;
    }
}

static cat_table *make_t(tx *t) {
    sqe_type types[4] = {type_make(TYPE_BIGINT), type_varchar(0), type_make(TYPE_BIGINT),
                         type_make(TYPE_BIGINT)};
    cat_table *tab = tx_table(t, "t", 4, types);
    tx_fill(t, tab, N, fill_t, NULL);
    return tab;
}

/* --- plan helpers ---------------------------------------------------------------------------- */

static plan_agg mk_agg(tx *t, const char *name, uint32_t n, bexpr **args, bool distinct,
                       bexpr *filter, plan_sort_key *order, uint32_t n_order) {
    sqe_type types[4];
    for (uint32_t i = 0; i < n; i++) types[i] = args[i]->type;
    func_resolved r;
    if (func_resolve_agg(&t->arena, name, types, n, &r, &t->err) != SQE_OK)
        fail_msg("resolve %s: %s", name, t->err.message);
    plan_agg a;
    memset(&a, 0, sizeof a);
    a.def = r.agg;
    a.n_args = n;
    a.args = ARENA_ARRAY(&t->arena, bexpr *, n + 1);
    for (uint32_t i = 0; i < n; i++)
        a.args[i] = type_equal(r.arg_types[i], args[i]->type) ? args[i] : tx_cast(t, args[i], r.arg_types[i], false);
    a.distinct = distinct;
    a.filter = filter;
    a.order = order;
    a.n_order = n_order;
    a.type = r.ret;
    a.name = name;
    a.out = plan_new_col(&t->pctx);
    return a;
}

static plan *agg_plan(tx *t, plan *child, uint32_t n_groups, bexpr **groups, uint32_t n_aggs,
                      plan_agg *aggs, uint32_t n_sets, uint64_t *sets) {
    uint32_t n_out = n_groups + n_aggs + (n_sets ? 1 : 0);
    plan *p = plan_new(&t->pctx, PLAN_AGGREGATE, 1, n_out);
    p->children[0] = child;
    p->u.agg.groups = ARENA_ARRAY(&t->arena, bexpr *, n_groups + 1);
    for (uint32_t g = 0; g < n_groups; g++) {
        p->u.agg.groups[g] = groups[g];
        p->out[g].id = plan_new_col(&t->pctx);
        p->out[g].type = groups[g]->type;
    }
    p->u.agg.n_groups = n_groups;
    p->u.agg.aggs = ARENA_ARRAY(&t->arena, plan_agg, n_aggs + 1);
    for (uint32_t a = 0; a < n_aggs; a++) {
        p->u.agg.aggs[a] = aggs[a];
        p->out[n_groups + a].id = aggs[a].out;
        p->out[n_groups + a].type = aggs[a].type;
    }
    p->u.agg.n_aggs = n_aggs;
    if (n_sets) {
        p->u.agg.sets = sets;
        p->u.agg.n_sets = n_sets;
        p->u.agg.grouping_id = plan_new_col(&t->pctx);
        p->out[n_out - 1].id = p->u.agg.grouping_id;
        p->out[n_out - 1].type = type_make(TYPE_BIGINT);
    }
    return p;
}

/* --- reference ------------------------------------------------------------------------------- */

typedef struct strlist {
    char **v;
    uint32_t n, cap;
} strlist;

static void sl_add(strlist *l, const char *s) {
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 256;
        l->v = realloc(l->v, sizeof(char *) * l->cap);
    }
    l->v[l->n++] = strdup(s);
}

static void sl_free(strlist *l) {
    for (uint32_t i = 0; i < l->n; i++) free(l->v[i]);
    free(l->v);
    memset(l, 0, sizeof *l);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void expect_rows(tx *t, strlist *want, const char *what) {
    if (want->n) qsort(want->v, want->n, sizeof(char *), cmp_str);
    if (t->n_rows) qsort(t->rows, t->n_rows, sizeof(char *), cmp_str);
    if (t->n_rows != want->n) {
        for (uint32_t i = 0; i < t->n_rows && i < 5; i++) print_message("  got: %s\n", t->rows[i]);
        for (uint32_t i = 0; i < want->n && i < 5; i++) print_message("  want: %s\n", want->v[i]);
        fail_msg("%s: %u rows, expected %u", what, t->n_rows, want->n);
    }
    for (uint32_t i = 0; i < want->n; i++)
        if (strcmp(t->rows[i], want->v[i]) != 0)
            fail_msg("%s: row %u: expected '%s', got '%s'", what, i, want->v[i], t->rows[i]);
}

/* group key of a row under a set mask (bit 0 = g1, bit 1 = g2) as text "g1|g2" */
static void key_text(const trow *r, uint64_t mask, char *buf, size_t len) {
    char a[32];
    if (!(mask & 1) || r->g1_null)
        snprintf(a, sizeof a, "NULL");
    else
        snprintf(a, sizeof a, "%lld", (long long)r->g1);
    snprintf(buf, len, "%s|%s", a, (mask & 2) && r->g2 ? r->g2 : "NULL");
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* Aggregates of the rows idx[0..n): the full list (count(*), count(x), sum, min, max,
 * count(DISTINCT x), sum(DISTINCT x), sum(x) FILTER (y % 3 = 0), array_agg(x ORDER BY y DESC)
 * FILTER (y % 97 = 0)). */
static void agg_text(const uint64_t *idx, uint32_t n, bool full, char *buf, size_t len) {
    int64_t cnt = n, cx = 0, sum = 0, mn = 0, mx = 0, sf = 0;
    bool any_sf = false;
    int64_t *xs = malloc(sizeof(int64_t) * (n + 1));
    uint32_t nx = 0;
    for (uint32_t i = 0; i < n; i++) {
        trow r = row_at(idx[i]);
        if (r.x_null) continue;
        if (!cx || r.x < mn) mn = r.x;
        if (!cx || r.x > mx) mx = r.x;
        cx++;
        sum += r.x;
        xs[nx++] = r.x;
        if (r.y % 3 == 0) {
            sf += r.x;
            any_sf = true;
        }
    }
    qsort(xs, nx, sizeof(int64_t), cmp_i64);
    int64_t cd = 0, sd = 0;
    for (uint32_t i = 0; i < nx; i++)
        if (i == 0 || xs[i] != xs[i - 1]) {
            cd++;
            sd += xs[i];
        }
    free(xs);
    char s_sum[32], s_mn[32], s_mx[32], s_sd[32], s_sf[32];
    snprintf(s_sum, sizeof s_sum, cx ? "%lld" : "NULL", (long long)sum);
    snprintf(s_mn, sizeof s_mn, cx ? "%lld" : "NULL", (long long)mn);
    snprintf(s_mx, sizeof s_mx, cx ? "%lld" : "NULL", (long long)mx);
    snprintf(s_sd, sizeof s_sd, cd ? "%lld" : "NULL", (long long)sd);
    snprintf(s_sf, sizeof s_sf, any_sf ? "%lld" : "NULL", (long long)sf);
    if (!full) {
        snprintf(buf, len, "%lld|%s|%lld", (long long)cnt, s_sum, (long long)cd);
        return;
    }
    /* array_agg(x ORDER BY y DESC) FILTER (y % 97 = 0): idx is ascending in y */
    char arr[4096];
    size_t al = 0;
    uint32_t na = 0;
    arr[al++] = '[';
    for (uint32_t i = n; i-- > 0;) {
        trow r = row_at(idx[i]);
        if (r.y % 97 != 0) continue;
        if (na++) al += (size_t)snprintf(arr + al, sizeof arr - al, ", ");
        if (r.x_null)
            al += (size_t)snprintf(arr + al, sizeof arr - al, "NULL");
        else
            al += (size_t)snprintf(arr + al, sizeof arr - al, "%lld", (long long)r.x);
    }
    snprintf(arr + al, sizeof arr - al, "]");
    snprintf(buf, len, "%lld|%lld|%s|%s|%s|%lld|%s|%s|%s", (long long)cnt, (long long)cx, s_sum,
             s_mn, s_mx, (long long)cd, s_sd, s_sf, na ? arr : "NULL");
}

typedef struct keyed {
    char key[96];
    uint64_t idx;
} keyed;

static int cmp_keyed(const void *a, const void *b) {
    const keyed *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    if (c) return c;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Reference GROUP BY under the given sets (masks); with_gid appends the grouping id. */
static void reference(uint64_t n_rows, const uint64_t *masks, uint32_t n_masks, bool full,
                      bool with_gid, strlist *out) {
    char aggs[8192], row[8600];
    uint64_t *idx = malloc(sizeof(uint64_t) * (n_rows + 1));
    keyed *k = malloc(sizeof(keyed) * (n_rows + 1));
    for (uint32_t s = 0; s < n_masks; s++) {
        for (uint64_t i = 0; i < n_rows; i++) {
            trow r = row_at(i);
            key_text(&r, masks[s], k[i].key, sizeof k[i].key);
            k[i].idx = i;
        }
        qsort(k, n_rows, sizeof(keyed), cmp_keyed);
        for (uint64_t i = 0; i < n_rows;) {
            uint32_t n = 0;
            uint64_t j = i;
            while (j < n_rows && strcmp(k[j].key, k[i].key) == 0) idx[n++] = k[j++].idx;
            agg_text(idx, n, full, aggs, sizeof aggs);
            if (with_gid)
                snprintf(row, sizeof row, "%s|%s|%llu", k[i].key, aggs, (unsigned long long)(~masks[s] & 3));
            else
                snprintf(row, sizeof row, "%s|%s", k[i].key, aggs);
            sl_add(out, row);
            i = j;
        }
        if (n_rows == 0 && masks[s] == 0) {
            agg_text(idx, 0, full, aggs, sizeof aggs);
            snprintf(row, sizeof row, "NULL|NULL|%s|%llu", aggs, (unsigned long long)(~masks[s] & 3));
            sl_add(out, row);
        }
    }
    free(idx);
    free(k);
}

/* --- tests ----------------------------------------------------------------------------------- */

static bexpr *mod_eq0(tx *t, plan *s, uint32_t col, int64_t m) {
    return TX_CALL(t, "$eq", TX_CALL(t, "$modulus", tx_col(t, s, col), tx_int(t, m)), tx_int(t, 0));
}

static void full_aggs(tx *t, plan *s, plan_agg *aggs) {
    bexpr *x = tx_col(t, s, 2);
    aggs[0] = mk_agg(t, "count", 0, NULL, false, NULL, NULL, 0);
    aggs[1] = mk_agg(t, "count", 1, &x, false, NULL, NULL, 0);
    aggs[2] = mk_agg(t, "sum", 1, &x, false, NULL, NULL, 0);
    aggs[3] = mk_agg(t, "min", 1, &x, false, NULL, NULL, 0);
    aggs[4] = mk_agg(t, "max", 1, &x, false, NULL, NULL, 0);
    aggs[5] = mk_agg(t, "count", 1, &x, true, NULL, NULL, 0);
    aggs[6] = mk_agg(t, "sum", 1, &x, true, NULL, NULL, 0);
    aggs[7] = mk_agg(t, "sum", 1, &x, false, mod_eq0(t, s, 3, 3), NULL, 0);
    plan_sort_key *ord = ARENA_ARRAY(&t->arena, plan_sort_key, 1);
    ord[0].expr = tx_col(t, s, 3);
    ord[0].desc = true;
    aggs[8] = mk_agg(t, "array_agg", 1, &x, false, mod_eq0(t, s, 3, 97), ord, 1);
}

static void test_group_by(void **state) {
    (void)state;
    tx t;
    tx_init(&t, 4, 0);
    cat_table *tab = make_t(&t);
    strlist want = {0};
    uint64_t all = 3;
    reference(N, &all, 1, true, false, &want);
    for (uint32_t threads = 1; threads <= 4; threads += 3) {
        plan *s = tx_scan(&t, tab);
        bexpr *groups[2] = {tx_col(&t, s, 0), tx_col(&t, s, 1)};
        plan_agg aggs[9];
        full_aggs(&t, s, aggs);
        plan *p = agg_plan(&t, s, 2, groups, 9, aggs, 0, NULL);
        if (tx_run(&t, p, threads) != SQE_OK) fail_msg("%s", t.err.message);
        expect_rows(&t, &want, "group by");
    }
    sl_free(&want);
    tx_free(&t);
}

static void test_grouping_sets(void **state) {
    (void)state;
    tx t;
    tx_init(&t, 4, 0);
    cat_table *tab = make_t(&t);
    uint64_t sets[3] = {3, 1, 0};
    strlist want = {0};
    reference(N, sets, 3, false, true, &want);
    for (uint32_t threads = 1; threads <= 4; threads += 3) {
        plan *s = tx_scan(&t, tab);
        bexpr *groups[2] = {tx_col(&t, s, 0), tx_col(&t, s, 1)};
        bexpr *x = tx_col(&t, s, 2);
        plan_agg aggs[3] = {mk_agg(&t, "count", 0, NULL, false, NULL, NULL, 0),
                            mk_agg(&t, "sum", 1, &x, false, NULL, NULL, 0),
                            mk_agg(&t, "count", 1, &x, true, NULL, NULL, 0)};
        uint64_t *ps = ARENA_ARRAY(&t.arena, uint64_t, 3);
        memcpy(ps, sets, sizeof sets);
        plan *p = agg_plan(&t, s, 2, groups, 3, aggs, 3, ps);
        if (tx_run(&t, p, threads) != SQE_OK) fail_msg("%s", t.err.message);
        expect_rows(&t, &want, "grouping sets");
    }
    sl_free(&want);
    tx_free(&t);
}

/* Empty input: one row without groups, none with groups; grouping sets keep the () row. */
static void test_empty_input(void **state) {
    (void)state;
    tx t;
    tx_init(&t, 4, 0);
    cat_table *tab = make_t(&t);
    for (uint32_t threads = 1; threads <= 4; threads += 3) {
        plan *s = tx_filter(&t, tx_scan(&t, tab), tx_bool(&t, false));
        plan_agg aggs[9];
        full_aggs(&t, s, aggs);
        plan *p = agg_plan(&t, s, 0, NULL, 9, aggs, 0, NULL);
        assert_int_equal(tx_run(&t, p, threads), SQE_OK);
        TX_EXPECT(&t, false, "0|0|NULL|NULL|NULL|0|NULL|NULL|NULL");
        bexpr *g = tx_col(&t, s, 0);
        full_aggs(&t, s, aggs);
        p = agg_plan(&t, s, 1, &g, 9, aggs, 0, NULL);
        assert_int_equal(tx_run(&t, p, threads), SQE_OK);
        assert_int_equal(t.n_rows, 0);
        uint64_t *ps = ARENA_ARRAY(&t.arena, uint64_t, 2);
        ps[0] = 3;
        ps[1] = 0;
        bexpr *groups[2] = {tx_col(&t, s, 0), tx_col(&t, s, 1)};
        bexpr *x = tx_col(&t, s, 2);
        plan_agg a3[3] = {mk_agg(&t, "count", 0, NULL, false, NULL, NULL, 0),
                          mk_agg(&t, "sum", 1, &x, false, NULL, NULL, 0),
                          mk_agg(&t, "count", 1, &x, true, NULL, NULL, 0)};
        p = agg_plan(&t, s, 2, groups, 3, a3, 2, ps);
        assert_int_equal(tx_run(&t, p, threads), SQE_OK);
        TX_EXPECT(&t, false, "NULL|NULL|0|NULL|0|3");
    }
    tx_free(&t);
}

/* 300k rows in 150k groups: the thread-local tables overflow and are cleared, the merge
 * combines the duplicates. */
static void fill_hc(void *ud, uint64_t row, uint32_t col, vec *v, uint32_t idx) {
    VEC_DATA(v, int64_t)[idx] = col == 0 ? (int64_t)(row % 150000) : (int64_t)row;
}

static void test_high_cardinality(void **state) {
    (void)state;
    tx t;
    tx_init(&t, 4, 0);
    sqe_type ty[2] = {type_make(TYPE_BIGINT), type_make(TYPE_BIGINT)};
    cat_table *tab = tx_table(&t, "hc", 2, ty);
    tx_fill(&t, tab, 300000, fill_hc, NULL);
    for (uint32_t threads = 1; threads <= 4; threads += 3) {
        plan *s = tx_scan(&t, tab);
        bexpr *g = tx_col(&t, s, 0), *y = tx_col(&t, s, 1);
        plan_agg aggs[2] = {mk_agg(&t, "count", 0, NULL, false, NULL, NULL, 0),
                            mk_agg(&t, "sum", 1, &y, false, NULL, NULL, 0)};
        plan *p = agg_plan(&t, s, 1, &g, 2, aggs, 0, NULL);
        assert_int_equal(tx_run(&t, p, threads), SQE_OK);
        assert_int_equal(t.n_rows, 150000);
        for (uint32_t i = 0; i < t.n_rows; i++) {
            long long k, c, sum;
            assert_int_equal(sscanf(t.rows[i], "%lld|%lld|%lld", &k, &c, &sum), 3);
            assert_int_equal(c, 2);
            assert_int_equal(sum, 2 * k + 150000);
        }
        /* DISTINCT over the same keys */
        plan *d = plan_new(&t.pctx, PLAN_DISTINCT, 1, 1);
        plan *s2 = tx_scan(&t, tab);
        plan *proj = TX_PROJECT(&t, s2, TX_CALL(&t, "$modulus", tx_col(&t, s2, 0), tx_int(&t, 1000)));
        d->children[0] = proj;
        d->out[0] = proj->out[0];
        assert_int_equal(tx_run(&t, d, threads), SQE_OK);
        assert_int_equal(t.n_rows, 1000);
    }
    tx_free(&t);
}

/* SELECT DISTINCT g1, g2 */
static void test_distinct(void **state) {
    (void)state;
    tx t;
    tx_init(&t, 4, 0);
    cat_table *tab = make_t(&t);
    strlist want = {0};
    char key[256];
    for (uint64_t i = 0; i < N; i++) {
        trow r = row_at(i);
        key_text(&r, 3, key, sizeof key);
        bool seen = false;
        for (uint32_t j = 0; j < want.n && !seen; j++) seen = strcmp(want.v[j], key) == 0;
        if (!seen) sl_add(&want, key);
    }
    for (uint32_t threads = 1; threads <= 4; threads += 3) {
        plan *s = tx_scan(&t, tab);
        plan *proj = TX_PROJECT(&t, s, tx_col(&t, s, 0), tx_col(&t, s, 1));
        plan *d = plan_new(&t.pctx, PLAN_DISTINCT, 1, 2);
        d->children[0] = proj;
        memcpy(d->out, proj->out, sizeof(plan_col) * 2);
        assert_int_equal(tx_run(&t, d, threads), SQE_OK);
        expect_rows(&t, &want, "distinct");
    }
    sl_free(&want);
    tx_free(&t);
}

/* Set operations over two inputs with duplicates: a = i % 10 for i < 50 (each value 5 times),
 * b = i % 7 for i < 21 plus NULLs (each value 3 times). */
static void fill_set(void *ud, uint64_t row, uint32_t col, vec *v, uint32_t idx) {
    int which = *(int *)ud;
    if (which == 0) {
        VEC_DATA(v, int64_t)[idx] = (int64_t)(row % 10);
        if (row % 10 == 9) vec_set_null(v, idx);
    } else {
        VEC_DATA(v, int64_t)[idx] = (int64_t)(row % 7) + 5;
        if (row % 7 == 6) vec_set_null(v, idx);
    }
}

static plan *setop_plan(tx *t, plan *a, plan *b, uint8_t op, bool all) {
    plan *p = plan_new(&t->pctx, PLAN_SETOP, 2, 1);
    p->children[0] = a;
    p->children[1] = b;
    p->out[0].id = plan_new_col(&t->pctx);
    p->out[0].type = type_make(TYPE_BIGINT);
    p->u.setop.op = op;
    p->u.setop.all = all;
    return p;
}

static void test_setops(void **state) {
    (void)state;
    tx t;
    tx_init(&t, 4, 0);
    sqe_type ty[1] = {type_make(TYPE_BIGINT)};
    cat_table *ta = tx_table(&t, "sa", 1, ty), *tb = tx_table(&t, "sb", 1, ty);
    int wa = 0, wb = 1;
    tx_fill(&t, ta, 50, fill_set, &wa);
    tx_fill(&t, tb, 21, fill_set, &wb);
    /* multiplicities: a: 0..8 x5, NULL x5; b: 5..10 x3, NULL x3 */
    int64_t ca[12] = {0}, cb[12] = {0}; /* index 11 = NULL */
    for (int v = 0; v <= 8; v++) ca[v] = 5;
    ca[11] = 5;
    for (int v = 5; v <= 10; v++) cb[v] = 3;
    cb[11] = 3;
    struct {
        uint8_t op;
        bool all;
    } cases[] = {{SETOP_UNION, true},      {SETOP_UNION, false},  {SETOP_INTERSECT, false},
                 {SETOP_INTERSECT, true}, {SETOP_EXCEPT, false}, {SETOP_EXCEPT, true}};
    for (uint32_t threads = 1; threads <= 4; threads += 3)
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            strlist want = {0};
            for (int v = 0; v < 12; v++) {
                int64_t m;
                switch (cases[c].op) {
                case SETOP_UNION: m = cases[c].all ? ca[v] + cb[v] : (ca[v] + cb[v] > 0); break;
                case SETOP_INTERSECT:
                    m = cases[c].all ? (ca[v] < cb[v] ? ca[v] : cb[v]) : (ca[v] > 0 && cb[v] > 0);
                    break;
                default:
                    m = cases[c].all ? (ca[v] > cb[v] ? ca[v] - cb[v] : 0) : (ca[v] > 0 && cb[v] == 0);
                    break;
                }
                char buf[32];
                if (v == 11)
                    snprintf(buf, sizeof buf, "NULL");
                else
                    snprintf(buf, sizeof buf, "%d", v);
                for (int64_t k = 0; k < m; k++) sl_add(&want, buf);
            }
            plan *p = setop_plan(&t, tx_scan(&t, ta), tx_scan(&t, tb), cases[c].op, cases[c].all);
            assert_int_equal(tx_run(&t, p, threads), SQE_OK);
            expect_rows(&t, &want, "set operation");
            sl_free(&want);
        }
    tx_free(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_group_by),         cmocka_unit_test(test_grouping_sets),
        cmocka_unit_test(test_empty_input),      cmocka_unit_test(test_high_cardinality),
        cmocka_unit_test(test_distinct),         cmocka_unit_test(test_setops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
