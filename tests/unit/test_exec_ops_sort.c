/*
 * test_exec_ops_sort.c: end-to-end tests of ORDER BY and top-N (op_sort.c) from hand-made plans
 * over a memory table, against a reference sort in the test: bigint (negatives, extremes),
 * double (NaN, -0, infinities), varchar (common prefixes longer than the key prefix), date,
 * long decimals and booleans, ASC/DESC, NULLS FIRST/LAST, multi-column keys, and top-N equal to
 * sort + limit/offset for many limits, with one and four threads.
 */
#include "test_exec_util.h"

#define N 12000

static const char *strs[] = {"", "a", "ab", "abc", "b", "prefix-shared-by-many-strings-1",
                             "prefix-shared-by-many-strings-2", "prefix-shared-by-many-strings-10",
                             "prefix-shared-by-many", "Zebra", "abcdefghijklmnop",
                             "abcdefghijklmnopq"};
static const double dbls[] = {0.0, -0.0, 1.0, -1.0, 1e308, -1e308, 2.5, -2.5, 1e-300};

typedef struct srow {
    int64_t id;
    bool a_null, d_null, s_null, t_null, m_null, b_null;
    int64_t a;
    double d;
    const char *s;
    int32_t t;
    int128 m;
    bool b;
} srow;

static srow row_at(uint64_t i) {
    srow r;
    memset(&r, 0, sizeof r);
    r.id = (int64_t)i;
    uint64_t h = i * 0x9e3779b97f4a7c15ULL;
    h ^= h >> 29;
    r.a_null = h % 9 == 0;
    r.a = (int64_t)(h % 2001) - 1000;
    if (h % 101 == 0) r.a = INT64_MIN;
    if (h % 103 == 0) r.a = INT64_MAX;
    r.d_null = h % 11 == 0;
    r.d = (h >> 8) % 3 ? dbls[(h >> 12) % 9] : (double)((int64_t)(h % 400) - 200) / 8.0;
    if ((h >> 20) % 17 == 0) r.d = __builtin_nan("");
    if ((h >> 20) % 19 == 0) r.d = (h & 1) ? __builtin_inf() : -__builtin_inf();
    r.s_null = h % 13 == 0;
    r.s = strs[(h >> 16) % 12];
    r.t_null = h % 7 == 0;
    r.t = (int32_t)((h >> 24) % 5000) - 2500;
    r.m_null = h % 5 == 0;
    r.m = ((int128)(int64_t)(h >> 30) - (int128)(1LL << 33)) * ((int128)1 << 40) + (int128)(h % 1000);
    r.b_null = h % 17 == 0;
    r.b = (h >> 3) & 1;
    return r;
}

static void fill_s(void *ud, uint64_t row, uint32_t col, vec *v, uint32_t idx) {
    srow r = row_at(row);
    bool nul = false;
    switch (col) {
    case 0: VEC_DATA(v, int64_t)[idx] = r.id; break;
    case 1: VEC_DATA(v, int64_t)[idx] = r.a; nul = r.a_null; break;
    case 2: VEC_DATA(v, double)[idx] = r.d; nul = r.d_null; break;
    case 3: {
        bool ok = true;
        VEC_DATA(v, sqe_str)[idx] = vec_str_copy(v, r.s, (uint32_t)strlen(r.s), &ok);
        nul = r.s_null;
        break;
    }
    case 4: VEC_DATA(v, int32_t)[idx] = r.t; nul = r.t_null; break;
    case 5: VEC_DATA(v, int128)[idx] = r.m; nul = r.m_null; break;
    default: VEC_DATA(v, uint8_t)[idx] = r.b; nul = r.b_null; break;
    }
    if (nul) vec_set_null(v, idx);
}

/* --- reference ------------------------------------------------------------------------------ */

typedef struct skey {
    uint32_t col; /* 1..6 */
    bool desc, nulls_first;
} skey;

static const skey *g_keys;
static uint32_t g_nkeys;

#define CMP3(x, y) ((x) < (y) ? -1 : (x) > (y))

static int dbl_cmp(double x, double y) {
    bool nx = x != x, ny = y != y;
    if (nx || ny) return nx == ny ? 0 : nx ? 1 : -1;
    return CMP3(x, y);
}

static int key_cmp(const srow *x, const srow *y, const skey *k) {
    bool nx, ny;
    int c = 0;
    switch (k->col) {
    case 1: nx = x->a_null; ny = y->a_null; c = CMP3(x->a, y->a); break;
    case 2: nx = x->d_null; ny = y->d_null; c = dbl_cmp(x->d, y->d); break;
    case 3: {
        nx = x->s_null;
        ny = y->s_null;
        size_t lx = strlen(x->s), ly = strlen(y->s);
        c = memcmp(x->s, y->s, lx < ly ? lx : ly);
        c = c ? CMP3(c, 0) : CMP3(lx, ly);
        break;
    }
    case 4: nx = x->t_null; ny = y->t_null; c = CMP3(x->t, y->t); break;
    case 5: nx = x->m_null; ny = y->m_null; c = CMP3(x->m, y->m); break;
    default: nx = x->b_null; ny = y->b_null; c = CMP3(x->b, y->b); break;
    }
    if (nx || ny) {
        if (nx && ny) return 0;
        return nx ? (k->nulls_first ? -1 : 1) : (k->nulls_first ? 1 : -1);
    }
    return k->desc ? -c : c;
}

static int ref_cmp(const void *a, const void *b) {
    srow x = row_at(*(const uint64_t *)a), y = row_at(*(const uint64_t *)b);
    for (uint32_t k = 0; k < g_nkeys; k++) {
        int c = key_cmp(&x, &y, &g_keys[k]);
        if (c) return c;
    }
    return CMP3(x.id, y.id); /* the id is the last key of every plan */
}

/* --- plans ----------------------------------------------------------------------------------- */

static plan *sort_plan(tx *t, cat_table *tab, const skey *keys, uint32_t nk, bool topn,
                       int64_t limit, int64_t offset) {
    plan *s = tx_scan(t, tab);
    plan *p = plan_new(&t->pctx, topn ? PLAN_TOPN : PLAN_SORT, 1, s->n_out);
    p->children[0] = s;
    memcpy(p->out, s->out, sizeof(plan_col) * s->n_out);
    p->u.sort.keys = ARENA_ARRAY(&t->arena, plan_sort_key, nk + 1);
    for (uint32_t k = 0; k < nk; k++) {
        p->u.sort.keys[k].expr = tx_col(t, s, keys[k].col);
        p->u.sort.keys[k].desc = keys[k].desc;
        p->u.sort.keys[k].nulls_first = keys[k].nulls_first;
    }
    p->u.sort.keys[nk].expr = tx_col(t, s, 0);
    p->u.sort.n_keys = nk + 1;
    p->u.sort.limit = limit;
    p->u.sort.offset = offset;
    return TX_PROJECT(t, p, tx_col(t, p, 0));
}

static void check(tx *t, cat_table *tab, const skey *keys, uint32_t nk, const uint64_t *sorted,
                  bool topn, int64_t limit, int64_t offset, uint32_t threads) {
    plan *p = sort_plan(t, tab, keys, nk, topn, limit, offset);
    if (tx_run(t, p, threads) != SQE_OK) fail_msg("%s", t->err.message);
    uint64_t first = topn ? (uint64_t)offset : 0;
    uint64_t end = topn ? first + (uint64_t)limit : N;
    if (first > N) first = N;
    if (end > N) end = N;
    if (t->n_rows != end - first)
        fail_msg("key col %u: %u rows, expected %llu", keys[0].col, t->n_rows,
                 (unsigned long long)(end - first));
    for (uint64_t i = first; i < end; i++) {
        char buf[32];
        snprintf(buf, sizeof buf, "%llu", (unsigned long long)sorted[i]);
        if (strcmp(t->rows[i - first], buf) != 0)
            fail_msg("keys (%u desc %d nf %d, ...) topn %d limit %lld offset %lld threads %u: "
                     "position %llu: expected id %s, got %s",
                     keys[0].col, keys[0].desc, keys[0].nulls_first, topn, (long long)limit,
                     (long long)offset, threads, (unsigned long long)i, buf, t->rows[i - first]);
    }
}

static cat_table *make_table(tx *t) {
    sqe_type types[7] = {type_make(TYPE_BIGINT), type_make(TYPE_BIGINT), type_make(TYPE_DOUBLE),
                         type_varchar(0),        type_make(TYPE_DATE),   type_decimal(30, 2),
                         type_make(TYPE_BOOLEAN)};
    cat_table *tab = tx_table(t, "s", 7, types);
    tx_fill(t, tab, N, fill_s, NULL);
    return tab;
}

static void run_keys(tx *t, cat_table *tab, const skey *keys, uint32_t nk, bool with_topn) {
    uint64_t *ids = malloc(sizeof(uint64_t) * N);
    for (uint64_t i = 0; i < N; i++) ids[i] = i;
    g_keys = keys;
    g_nkeys = nk;
    qsort(ids, N, sizeof(uint64_t), ref_cmp);
    check(t, tab, keys, nk, ids, false, 0, 0, 4);
    if (with_topn) {
        static const int64_t limits[][2] = {{0, 0}, {1, 0}, {10, 0}, {10, 5}, {1000, 37},
                                            {5000, 0}, {N + 10, 0}, {3, N - 2}};
        for (size_t l = 0; l < sizeof limits / sizeof limits[0]; l++)
            check(t, tab, keys, nk, ids, true, limits[l][0], limits[l][1], l % 2 ? 1 : 4);
    }
    free(ids);
}

static void test_single_keys(void **state) {
    (void)state;
    tx t;
    tx_init(&t, 4, 0);
    cat_table *tab = make_table(&t);
    for (uint32_t col = 1; col <= 6; col++)
        for (int d = 0; d < 2; d++)
            for (int nf = 0; nf < 2; nf++) {
                skey k = {col, d, nf};
                run_keys(&t, tab, &k, 1, col == 3 || (d && nf));
            }
    tx_free(&t);
}

static void test_multi_keys(void **state) {
    (void)state;
    tx t;
    tx_init(&t, 4, 0);
    cat_table *tab = make_table(&t);
    skey k1[3] = {{3, false, true}, {2, true, false}, {6, false, false}};
    run_keys(&t, tab, k1, 3, true);
    skey k2[2] = {{6, true, true}, {3, true, false}};
    run_keys(&t, tab, k2, 2, true);
    skey k3[3] = {{5, true, false}, {4, false, true}, {1, true, true}};
    run_keys(&t, tab, k3, 3, true);
    tx_free(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_single_keys),
        cmocka_unit_test(test_multi_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
