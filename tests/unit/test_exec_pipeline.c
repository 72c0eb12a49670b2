/*
 * test_exec_pipeline.c: the driver and the streaming operators: LIMIT exactness with two threads
 * on a 1M-row table (and early stop), kernel errors and cancellation stopping every thread
 * without leaks, the per-query memory limit, VALUES, UNNEST (zipped arrays, maps, ordinality,
 * outer, long arrays over several output chunks), the scalar-subquery guard, table functions
 * through plan_source, EXPLAIN with profile, and the pipeline cutting of the driver (breakers,
 * join build/probe and the tail pipeline of outer joins) with mock operators.
 */
#include <unistd.h>
#include "test_exec_util.h"

#include "exec/driver.h"
#include "exec/ops.h"

#define BIG 1000000

static void fill_seq(void *ud, uint64_t row, uint32_t col, vec *v, uint32_t idx) {
    VEC_DATA(v, int64_t)[idx] = col == 0 ? (int64_t)row : (int64_t)(row % 1000);
}

static cat_table *make_big(tx *t) {
    sqe_type types[2] = {type_make(TYPE_BIGINT), type_make(TYPE_BIGINT)};
    cat_table *tab = tx_table(t, "big", 2, types);
    tx_fill(t, tab, BIG, fill_seq, NULL);
    return tab;
}

/* LIMIT / OFFSET are exact with two threads and stop the scan early. */
static void test_limit_parallel(void **state) {
    tx t;
    tx_init(&t, 2, 0);
    cat_table *tab = make_big(&t);
    plan *s = tx_scan(&t, tab);
    for (int rep = 0; rep < 20; rep++) {
        plan *l = tx_limit(&t, s, 1000 + rep, 10);
        strbuf ex;
        strbuf_init(&ex);
        tx_run_opts o = {.threads = 2, .keep_rows = true, .profile = true, .explain = &ex};
        assert_int_equal(tx_run_opt(&t, l, &o), SQE_OK);
        assert_int_equal(t.n_rows, 1000 + rep);
        /* no duplicates */
        qsort(t.rows, t.n_rows, sizeof(char *), tx_cmp_str);
        for (uint32_t i = 1; i < t.n_rows; i++) assert_string_not_equal(t.rows[i - 1], t.rows[i]);
        /* early stop: the scan read far fewer than all rows */
        const char *sc = strstr(strbuf_cstr(&ex), "Scan");
        assert_non_null(sc);
        unsigned long long scanned = 0;
        const char *r = strstr(sc, "rows: ");
        assert_non_null(r);
        sscanf(r, "rows: %llu", &scanned);
        assert_true(scanned < BIG / 2);
        strbuf_reset(&ex);
    }
    /* a filter below the limit, and a limit larger than the input */
    plan *f = tx_filter(&t, s, TX_CALL(&t, "$eq", tx_col(&t, s, 1), tx_int(&t, 7)));
    assert_int_equal(tx_run(&t, tx_limit(&t, f, 5000, 0), 2), SQE_OK);
    assert_int_equal(t.n_rows, 1000);
    assert_int_equal(tx_run(&t, tx_limit(&t, f, 999, 3), 2), SQE_OK);
    assert_int_equal(t.n_rows, 997);
    assert_int_equal(tx_run(&t, tx_limit(&t, f, 0, 0), 2), SQE_OK);
    assert_int_equal(t.n_rows, 0);
    /* offset only */
    tx_run_opts o = {.threads = 2};
    assert_int_equal(tx_run_opt(&t, tx_limit(&t, s, -1, BIG - 17), &o), SQE_OK);
    assert_int_equal(t.row_count, 17);
    tx_free(&t);
}

/* A kernel error on one thread stops the other and frees everything. */
static void test_error_stops_threads(void **state) {
    tx t;
    tx_init(&t, 2, 0);
    cat_table *tab = make_big(&t);
    plan *s = tx_scan(&t, tab);
    /* 1 / (c0 - 900000): fails at row 900000 only */
    bexpr *d = TX_CALL(&t, "$divide", tx_int(&t, 1),
                       TX_CALL(&t, "$subtract", tx_col(&t, s, 0), tx_int(&t, 900000)));
    plan *p = TX_PROJECT(&t, s, tx_col(&t, s, 0), d);
    for (int rep = 0; rep < 3; rep++) {
        tx_run_opts o = {.threads = 2};
        assert_int_equal(tx_run_opt(&t, p, &o), SQE_ERR_DIVISION_BY_ZERO);
        assert_int_equal(atomic_load(&t.query.used), 0);
    }
    /* in a filter too */
    plan *f = tx_filter(&t, s, TX_CALL(&t, "$gt", d, tx_int(&t, 0)));
    tx_run_opts o = {.threads = 2};
    assert_int_equal(tx_run_opt(&t, f, &o), SQE_ERR_DIVISION_BY_ZERO);
    tx_free(&t);
}

/* A sort of the big table (16 MB of rows) under a 4 MB query limit fails the query with
 * EXCEEDED_MEMORY_LIMIT and leaves nothing charged. */
static plan *sort_all(tx *t, plan *child, int64_t limit) {
    plan *p = plan_new(&t->pctx, limit < 0 ? PLAN_SORT : PLAN_TOPN, 1, child->n_out);
    p->children[0] = child;
    memcpy(p->out, child->out, sizeof(plan_col) * child->n_out);
    p->u.sort.keys = ARENA_ARRAY(&t->arena, plan_sort_key, 1);
    p->u.sort.keys[0].expr = tx_col(t, child, 1);
    p->u.sort.keys[0].desc = true;
    p->u.sort.n_keys = 1;
    p->u.sort.limit = limit;
    return p;
}

static void test_memory_limit(void **state) {
    tx t;
    tx_init(&t, 2, 4 << 20);
    cat_table *tab = make_big(&t);
    plan *s = tx_scan(&t, tab);
    plan *p = TX_PROJECT(&t, s, tx_col(&t, s, 0), TX_CALL(&t, "$add", tx_col(&t, s, 1), tx_int(&t, 1)));
    tx_run_opts o = {.threads = 2};
    assert_int_equal(tx_run_opt(&t, sort_all(&t, p, -1), &o), SQE_ERR_EXCEEDED_MEMORY_LIMIT);
    assert_non_null(strstr(t.err.message, "memory limit"));
    assert_int_equal(atomic_load(&t.query.used), 0);
    /* a top-N keeps the sort small */
    assert_int_equal(tx_run_opt(&t, sort_all(&t, p, 10), &o), SQE_OK);
    assert_int_equal(t.row_count, 10);
    tx_free(&t);
}

/* A result far larger than the query's memory limit streams through it: the driver holds a
 * bounded buffer, not the result (16 MB of rows under a 4 MB limit, twice over so the buffer
 * really fills while the reader is slow). */
static void test_result_streams_under_limit(void **state) {
    tx t;
    tx_init(&t, 2, 4 << 20);
    cat_table *tab = make_big(&t);
    plan *s = tx_scan(&t, tab);
    plan *p = TX_PROJECT(&t, s, tx_col(&t, s, 0), TX_CALL(&t, "$add", tx_col(&t, s, 1), tx_int(&t, 1)));
    exec_options opts;
    memset(&opts, 0, sizeof opts);
    opts.pool = t.pool;
    opts.threads = 2;
    opts.tracker = &t.query;
    exec_query *q = NULL;
    assert_int_equal(exec_query_create(p, &opts, &q, &t.err), SQE_OK);
    uint64_t rows = 0, sum = 0, chunks = 0;
    int64_t expect_next = 0;
    bool in_order = true;
    for (;;) {
        const vec_chunk *c;
        assert_int_equal(exec_query_next(q, &c, &t.err), SQE_OK);
        if (!c) break;
        if (++chunks % 64 == 0) usleep(2000); /* a slow reader: producers must wait for it */
        for (uint32_t r = 0; r < c->count; r++) {
            int64_t v = VEC_DATA(&c->cols[0], int64_t)[r];
            in_order = in_order && v == expect_next;
            expect_next = v + 1;
            sum += (uint64_t)VEC_DATA(&c->cols[1], int64_t)[r];
        }
        rows += c->count;
        assert_true(atomic_load(&t.query.used) < (4 << 20));
    }
    exec_query_destroy(q);
    assert_int_equal(rows, BIG);
    assert_true(in_order); /* table order survives two threads and parking */
    uint64_t expect_sum = 0;
    for (uint64_t r = 0; r < BIG; r++) expect_sum += r % 1000 + 1;
    assert_int_equal(sum, expect_sum);
    assert_int_equal(atomic_load(&t.query.used), 0);
    tx_free(&t);
}

/* A reader that stops after the first chunk and destroys the query: the producers stop, no
 * pool thread stays blocked, and the pool serves the next query at once. */
static void test_abandoned_stream(void **state) {
    tx t;
    tx_init(&t, 2, 0);
    cat_table *tab = make_big(&t);
    plan *s = tx_scan(&t, tab);
    plan *p = TX_PROJECT(&t, s, tx_col(&t, s, 0), TX_CALL(&t, "$add", tx_col(&t, s, 1), tx_int(&t, 1)));
    for (int round = 0; round < 20; round++) {
        exec_options opts;
        memset(&opts, 0, sizeof opts);
        opts.pool = t.pool;
        opts.threads = 2;
        opts.tracker = &t.query;
        exec_query *q = NULL;
        assert_int_equal(exec_query_create(p, &opts, &q, &t.err), SQE_OK);
        const vec_chunk *c;
        assert_int_equal(exec_query_next(q, &c, &t.err), SQE_OK);
        assert_non_null(c);
        if (round % 2) usleep(20000); /* let the producers fill the buffer and park */
        exec_query_destroy(q);
        assert_int_equal(atomic_load(&t.query.used), 0);
    }
    tx_run_opts o = {.threads = 2};
    assert_int_equal(tx_run_opt(&t, tx_limit(&t, p, 5, 0), &o), SQE_OK);
    assert_int_equal(t.row_count, 5);
    tx_free(&t);
}

/* A cancel flag set before or during the run stops the query with USER_CANCELED. */
typedef struct endless {
    volatile int *cancel;
    _Atomic int chunks;
} endless;

static int endless_morsels(void *state, uint32_t n_threads, uint32_t *n, sqe_error *err) {
    *n = 4;
    return SQE_OK;
}
static int endless_open(void *state, uint32_t morsel, const uint32_t *cols, uint32_t n_cols,
                        void **reader, sqe_error *err) {
    *reader = state;
    return SQE_OK;
}
static int endless_next(void *reader, vec_chunk *out, sqe_error *err) {
    endless *e = reader;
    if (atomic_fetch_add(&e->chunks, 1) == 10) __atomic_store_n(e->cancel, 1, __ATOMIC_RELAXED);
    for (uint32_t i = 0; i < out->capacity; i++) VEC_DATA(&out->cols[0], int64_t)[i] = i;
    out->count = out->capacity;
    return SQE_OK;
}
static void endless_close(void *reader) {}

static plan *tfunc_plan(tx *t, const plan_source *src) {
    plan *p = plan_new(&t->pctx, PLAN_TABLE_FUNC, 0, 1);
    p->out[0].id = plan_new_col(&t->pctx);
    p->out[0].type = type_make(TYPE_BIGINT);
    p->u.tfunc.name = "endless";
    p->u.tfunc.source = src;
    p->u.tfunc.columns = ARENA_ARRAY(&t->arena, uint32_t, 1);
    return p;
}

static void test_cancel(void **state) {
    tx t;
    tx_init(&t, 2, 0);
    volatile int cancel = 0;
    endless e = {&cancel, 0};
    static const char *names[1] = {"x"};
    static sqe_type types[1];
    types[0] = type_make(TYPE_BIGINT);
    plan_source src = {.state = &e, .n_columns = 1, .names = names, .types = types, .est_rows = -1,
                       .plan_morsels = endless_morsels, .open = endless_open, .next = endless_next,
                       .close = endless_close};
    plan *p = tfunc_plan(&t, &src);
    plan *f = tx_filter(&t, p, TX_CALL(&t, "$lt", tx_col(&t, p, 0), tx_int(&t, 0)));
    tx_run_opts o = {.threads = 2, .cancel = &cancel};
    assert_int_equal(tx_run_opt(&t, f, &o), SQE_ERR_USER_CANCELED);
    assert_true(atomic_load(&e.chunks) >= 11);
    /* already canceled before the start */
    cancel = 1;
    cat_table *tab = make_big(&t);
    assert_int_equal(tx_run_opt(&t, tx_scan(&t, tab), &o), SQE_ERR_USER_CANCELED);
    assert_int_equal(atomic_load(&t.query.used), 0);
    tx_free(&t);
}

/* Table function with a pushed-down filter, several morsels and threads. */
typedef struct counter_src {
    uint32_t rows_per_morsel;
} counter_src;
typedef struct counter_reader {
    uint32_t morsel, done, per;
} counter_reader;
static int counter_morsels(void *state, uint32_t n_threads, uint32_t *n, sqe_error *err) {
    *n = 7;
    return SQE_OK;
}
static int counter_open(void *state, uint32_t morsel, const uint32_t *cols, uint32_t n_cols,
                        void **reader, sqe_error *err) {
    counter_reader *r = calloc(1, sizeof *r);
    r->morsel = morsel;
    r->per = ((counter_src *)state)->rows_per_morsel;
    *reader = r;
    return SQE_OK;
}
static int counter_next(void *reader, vec_chunk *out, sqe_error *err) {
    counter_reader *r = reader;
    uint32_t n = 0;
    while (r->done < r->per && n < out->capacity) {
        VEC_DATA(&out->cols[0], int64_t)[n++] = (int64_t)r->morsel * r->per + r->done;
        r->done++;
    }
    out->count = n;
    return SQE_OK;
}
static void counter_close(void *reader) { free(reader); }

static void test_table_func(void **state) {
    tx t;
    tx_init(&t, 2, 0);
    counter_src cs = {5000};
    static const char *names[1] = {"x"};
    static sqe_type types[1];
    types[0] = type_make(TYPE_BIGINT);
    plan_source src = {.state = &cs, .n_columns = 1, .names = names, .types = types,
                       .est_rows = -1, .plan_morsels = counter_morsels, .open = counter_open,
                       .next = counter_next, .close = counter_close};
    plan *p = tfunc_plan(&t, &src);
    p->u.tfunc.filter = TX_CALL(&t, "$eq", TX_CALL(&t, "$modulus", tx_col(&t, p, 0), tx_int(&t, 1000)),
                                tx_int(&t, 0));
    assert_int_equal(tx_run(&t, p, 2), SQE_OK);
    TX_EXPECT(&t, true, "0", "1000", "10000", "11000", "12000", "13000", "14000", "15000", "16000",
              "17000", "18000", "19000", "2000", "20000", "21000", "22000", "23000", "24000",
              "25000", "26000", "27000", "28000", "29000", "3000", "30000", "31000", "32000",
              "33000", "34000", "4000", "5000", "6000", "7000", "8000", "9000");
    tx_free(&t);
}

/* VALUES with constant and computed cells; the scalar-subquery guard. */
static plan *values_plan(tx *t, uint32_t n_rows, uint32_t n_cols, bexpr **cells) {
    plan *p = plan_new(&t->pctx, PLAN_VALUES, 0, n_cols);
    p->u.values.n_rows = n_rows;
    p->u.values.cells = cells;
    for (uint32_t c = 0; c < n_cols; c++) {
        p->out[c].id = plan_new_col(&t->pctx);
        p->out[c].type = cells[c]->type;
    }
    return p;
}

static plan *single_plan(tx *t, plan *child) {
    plan *p = plan_new(&t->pctx, PLAN_ENFORCE_SINGLE, 1, child->n_out);
    p->children[0] = child;
    memcpy(p->out, child->out, child->n_out * sizeof(plan_col));
    return p;
}

static void test_values_single(void **state) {
    tx t;
    tx_init(&t, 2, 0);
    bexpr *cells[6] = {tx_int(&t, 1), tx_str(&t, "one"),
                       TX_CALL(&t, "$add", tx_int(&t, 1), tx_int(&t, 1)), tx_null(&t, type_varchar(0)),
                       tx_int(&t, 3), TX_CALL(&t, "concat", tx_str(&t, "th"), tx_str(&t, "ree and more"))};
    plan *v = values_plan(&t, 3, 2, cells);
    assert_int_equal(tx_run(&t, v, 2), SQE_OK);
    TX_EXPECT(&t, false, "1|one", "2|NULL", "3|three and more");
    /* more than one row: error */
    assert_int_equal(tx_run(&t, single_plan(&t, v), 2), SQE_ERR_SUBQUERY_MULTIPLE_ROWS);
    assert_string_equal(t.err.message, "Scalar sub-query has returned multiple rows");
    /* one row */
    plan *f1 = tx_filter(&t, v, TX_CALL(&t, "$eq", tx_col(&t, v, 0), tx_int(&t, 3)));
    assert_int_equal(tx_run(&t, single_plan(&t, f1), 2), SQE_OK);
    TX_EXPECT(&t, false, "3|three and more");
    /* no row: one row of NULLs */
    plan *f0 = tx_filter(&t, v, TX_CALL(&t, "$eq", tx_col(&t, v, 0), tx_int(&t, 4)));
    assert_int_equal(tx_run(&t, single_plan(&t, f0), 2), SQE_OK);
    TX_EXPECT(&t, false, "NULL|NULL");
    /* FROM-less SELECT: a projection over one row without columns */
    plan *one = tx_one_row(&t);
    assert_int_equal(tx_run(&t, TX_PROJECT(&t, one, TX_CALL(&t, "$multiply", tx_int(&t, 6), tx_int(&t, 7))), 1),
                     SQE_OK);
    TX_EXPECT(&t, false, "42");
    /* empty */
    plan *e = plan_new(&t.pctx, PLAN_EMPTY, 0, 1);
    e->out[0].id = plan_new_col(&t.pctx);
    e->out[0].type = type_make(TYPE_BIGINT);
    assert_int_equal(tx_run(&t, e, 2), SQE_OK);
    assert_int_equal(t.n_rows, 0);
    tx_free(&t);
}

/* UNNEST over a table with array and map columns. */
static uint32_t arr_len(uint64_t row) {
    static const uint32_t lens[] = {3, 0, 0, 1, 3000, 2};
    return lens[row % 6];
}
static bool arr_null(uint64_t row) { return row == 2; }

static void fill_nested(void *ud, uint64_t row, uint32_t col, vec *v, uint32_t idx) {
    if (col == 0) {
        VEC_DATA(v, int64_t)[idx] = (int64_t)row;
        return;
    }
    if (col == 1) {
        if (arr_null(row)) {
            vec_set_null(v, idx);
            return;
        }
        uint32_t n = arr_len(row);
        vec_reserve(&v->children[0], v->child_len + n, NULL);
        for (uint32_t i = 0; i < n; i++)
            VEC_DATA(&v->children[0], int64_t)[v->child_len + i] = (int64_t)(row * 10000 + i);
        VEC_DATA(v, sqe_list_entry)[idx] = (sqe_list_entry){v->child_len, n};
        v->child_len += n;
        return;
    }
    /* col 2: map(varchar, bigint) with row % 3 entries */
    uint32_t n = (uint32_t)(row % 3);
    vec_reserve(&v->children[0], v->child_len + n, NULL);
    vec_reserve(&v->children[1], v->child_len + n, NULL);
    for (uint32_t i = 0; i < n; i++) {
        char k[64];
        snprintf(k, sizeof k, "key-%u-of-row-%llu", i, (unsigned long long)row);
        bool ok = true;
        VEC_DATA(&v->children[0], sqe_str)[v->child_len + i] =
            vec_str_copy(&v->children[0], k, (uint32_t)strlen(k), &ok);
        if (i == 1)
            vec_set_null(&v->children[1], v->child_len + i);
        else
            VEC_DATA(&v->children[1], int64_t)[v->child_len + i] = (int64_t)i;
    }
    VEC_DATA(v, sqe_list_entry)[idx] = (sqe_list_entry){v->child_len, n};
    v->child_len += n;
}

static plan *unnest_plan(tx *t, plan *child, uint32_t n_arrays, bexpr **arrays, bool ord,
                         bool outer, uint32_t n_new, const sqe_type *new_types) {
    uint32_t n_out = child->n_out + n_new + (ord ? 1 : 0);
    plan *p = plan_new(&t->pctx, PLAN_UNNEST, 1, n_out);
    p->children[0] = child;
    memcpy(p->out, child->out, child->n_out * sizeof(plan_col));
    for (uint32_t i = 0; i < n_new + (ord ? 1 : 0); i++) {
        p->out[child->n_out + i].id = plan_new_col(&t->pctx);
        p->out[child->n_out + i].type = i < n_new ? new_types[i] : type_make(TYPE_BIGINT);
    }
    p->u.unnest.arrays = arrays;
    p->u.unnest.n_arrays = n_arrays;
    p->u.unnest.ordinality = ord;
    p->u.unnest.outer = outer;
    p->u.unnest.n_child_out = child->n_out;
    return p;
}

static void test_unnest(void **state) {
    tx t;
    tx_init(&t, 2, 0);
    sqe_type bi = type_make(TYPE_BIGINT), vc = type_varchar(0);
    sqe_type types[3] = {bi, type_array(bi), type_map(vc, bi)};
    cat_table *tab = tx_table(&t, "n", 3, types);
    tx_fill(&t, tab, 12, fill_nested, NULL);
    plan *s = tx_scan(&t, tab);
    plan *id_arr = TX_PROJECT(&t, s, tx_col(&t, s, 0), tx_col(&t, s, 1), tx_col(&t, s, 2));
    /* UNNEST(arr) WITH ORDINALITY: count rows and check a few */
    bexpr **a1 = ARENA_ARRAY(&t.arena, bexpr *, 1);
    a1[0] = tx_col(&t, id_arr, 1);
    sqe_type nt[3] = {bi, vc, bi};
    plan *u = unnest_plan(&t, id_arr, 1, a1, true, false, 1, nt);
    plan *f = tx_filter(&t, u, TX_FORM(&t, BEXPR_OR, TX_BOOL_T,
                                        TX_CALL(&t, "$lt", tx_col(&t, u, 0), tx_int(&t, 4)),
                                        TX_CALL(&t, "$eq", tx_col(&t, u, 4), tx_int(&t, 3000))));
    plan *pr = TX_PROJECT(&t, f, tx_col(&t, f, 0), tx_col(&t, f, 3), tx_col(&t, f, 4));
    assert_int_equal(tx_run(&t, pr, 2), SQE_OK);
    TX_EXPECT(&t, true, "0|0|1", "0|1|2", "0|2|3", "10|102999|3000", "3|30000|1", "4|42999|3000");
    tx_run_opts o = {.threads = 2};
    assert_int_equal(tx_run_opt(&t, u, &o), SQE_OK);
    assert_int_equal(t.row_count, 2 * (3 + 0 + 0 + 1 + 3000 + 2));
    /* zipped array + map, outer */
    bexpr **a2 = ARENA_ARRAY(&t.arena, bexpr *, 2);
    a2[0] = tx_col(&t, id_arr, 1);
    a2[1] = tx_col(&t, id_arr, 2);
    plan *u2 = unnest_plan(&t, id_arr, 2, a2, true, true, 3, nt);
    plan *f2 = tx_filter(&t, u2, TX_CALL(&t, "$lt", tx_col(&t, u2, 0), tx_int(&t, 4)));
    plan *pr2 = TX_PROJECT(&t, f2, tx_col(&t, f2, 0), tx_col(&t, f2, 3), tx_col(&t, f2, 4),
                           tx_col(&t, f2, 5), tx_col(&t, f2, 6));
    assert_int_equal(tx_run(&t, pr2, 2), SQE_OK);
    TX_EXPECT(&t, true, "0|0|NULL|NULL|1", "0|1|NULL|NULL|2", "0|2|NULL|NULL|3",
              "1|NULL|key-0-of-row-1|0|1", "2|NULL|key-0-of-row-2|0|1",
              "2|NULL|key-1-of-row-2|NULL|2", "3|30000|NULL|NULL|1");
    tx_free(&t);
}

/* EXPLAIN ANALYZE text. */
static void test_explain(void **state) {
    tx t;
    tx_init(&t, 2, 0);
    cat_table *tab = make_big(&t);
    plan *s = tx_scan(&t, tab);
    plan *f = tx_filter(&t, s, TX_CALL(&t, "$lt", tx_col(&t, s, 1), tx_int(&t, 10)));
    plan *p = TX_PROJECT(&t, f, TX_CALL(&t, "$add", tx_col(&t, f, 0), tx_col(&t, f, 1)));
    strbuf ex;
    strbuf_init(&ex);
    tx_run_opts o = {.threads = 2, .profile = true, .explain = &ex};
    assert_int_equal(tx_run_opt(&t, p, &o), SQE_OK);
    assert_int_equal(t.row_count, 10000);
    const char *txt = strbuf_cstr(&ex);
    print_message("%s", txt);
    assert_non_null(strstr(txt, "Project"));
    assert_non_null(strstr(txt, "  Filter"));
    assert_non_null(strstr(txt, "    Scan memory.default.big"));
    assert_non_null(strstr(txt, "rows: 1000000 -> 10000"));
    assert_non_null(strstr(txt, "time: "));
    assert_non_null(strstr(txt, "Query peak memory"));
    strbuf_reset(&ex);
    tx_free(&t);
}

/* Several queries share one pool at the same time. */
typedef struct conc_arg {
    exec_pool *pool;
    const plan *p;
    mem_tracker tracker;
    uint64_t rows;
    int rc;
} conc_arg;

static void *conc_run(void *ud) {
    conc_arg *a = ud;
    for (int rep = 0; rep < 5 && a->rc == SQE_OK; rep++) {
        exec_options opts;
        memset(&opts, 0, sizeof opts);
        opts.pool = a->pool;
        opts.tracker = &a->tracker;
        exec_query *q;
        sqe_error err;
        a->rc = exec_query_create(a->p, &opts, &q, &err);
        if (a->rc) break;
        a->rows = 0;
        const vec_chunk *c;
        while ((a->rc = exec_query_next(q, &c, &err)) == SQE_OK && c) a->rows += c->count;
        exec_query_destroy(q);
    }
    return NULL;
}

static void test_concurrent_queries(void **state) {
    tx t;
    tx_init(&t, 2, 0);
    cat_table *tab = make_big(&t);
    plan *s = tx_scan(&t, tab);
    plan *f1 = tx_filter(&t, s, TX_CALL(&t, "$lt", tx_col(&t, s, 1), tx_int(&t, 10)));
    plan *f2 = tx_filter(&t, s, TX_CALL(&t, "$ge", tx_col(&t, s, 1), tx_int(&t, 990)));
    plan *p1 = TX_PROJECT(&t, f1, tx_col(&t, f1, 0));
    plan *p2 = TX_PROJECT(&t, f2, TX_CALL(&t, "$add", tx_col(&t, f2, 0), tx_col(&t, f2, 1)));
    conc_arg a[4];
    pthread_t th[4];
    for (int i = 0; i < 4; i++) {
        memset(&a[i], 0, sizeof a[i]);
        a[i].pool = t.pool;
        a[i].p = i % 2 ? p2 : p1;
        mem_tracker_init(&a[i].tracker, "query", 0, NULL);
        pthread_create(&th[i], NULL, conc_run, &a[i]);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        assert_int_equal(a[i].rc, SQE_OK);
        assert_int_equal(a[i].rows, 10000);
        assert_int_equal(atomic_load(&a[i].tracker.used), 0);
    }
    tx_free(&t);
}

/* --- Driver with mock operators --------------------------------------------------------- */

/* A log of calls (shared by all mock operators of a test). */
typedef struct mlog {
    pthread_mutex_t lock;
    char text[4096];
} mlog;
static mlog g_log;

static void logf_(const char *fmt, ...) {
    char buf[128];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&g_log.lock);
    strncat(g_log.text, buf, sizeof g_log.text - strlen(g_log.text) - 1);
    strncat(g_log.text, " ", sizeof g_log.text - strlen(g_log.text) - 1);
    pthread_mutex_unlock(&g_log.lock);
}

/* A source of `rows` rows (one bigint column) in chunks of 100; impl = (rows). */
typedef struct msrc {
    const char *name;
    uint32_t rows;
    _Atomic uint32_t next;
} msrc;
static int msrc_init(exec_op *op, void **g, sqe_error *err) {
    msrc *m = op->impl;
    atomic_store(&m->next, 0);
    logf_("init:%s", m->name);
    *g = NULL;
    return SQE_OK;
}
static int msrc_next(exec_op *op, void *g, void *l, vec_chunk *out, sqe_error *err) {
    msrc *m = op->impl;
    uint32_t start = atomic_fetch_add(&m->next, 100);
    uint32_t n = start >= m->rows ? 0 : m->rows - start < 100 ? m->rows - start : 100;
    for (uint32_t i = 0; i < n; i++) VEC_DATA(&out->cols[0], int64_t)[i] = start + i;
    out->count = n;
    return SQE_OK;
}
static const exec_op_vtable msrc_vt = {.name = "MockSource", .source_init = msrc_init,
                                       .source_next = msrc_next};

/* A "join": build side counts rows (sink), probe passes rows through (op), and as a source emits
 * one chunk of `built` rows after the probe (the tail of an outer join). */
typedef struct mjoin_g {
    _Atomic uint64_t built;
    _Atomic int finalized;
} mjoin_g;
static int mj_sink_init(exec_op *op, void **g, sqe_error *err) {
    logf_("build-init");
    *g = calloc(1, sizeof(mjoin_g));
    return SQE_OK;
}
static int mj_local(exec_op *op, void *g, uint32_t idx, void **l, sqe_error *err) {
    *l = NULL;
    return idx == 1 ? SQE_OK : err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "bad input");
}
static int mj_sink(exec_op *op, void *g, void *l, const vec_chunk *in, sqe_error *err) {
    atomic_fetch_add(&((mjoin_g *)g)->built, in->count);
    return SQE_OK;
}
static int mj_combine(exec_op *op, void *g, void *l, sqe_error *err) { return SQE_OK; }
static int mj_finalize(exec_op *op, void *g, sqe_error *err) {
    logf_("build-final:%llu", (unsigned long long)atomic_load(&((mjoin_g *)g)->built));
    atomic_store(&((mjoin_g *)g)->finalized, 1);
    return SQE_OK;
}
static void mj_sink_destroy(exec_op *op, void *g) {
    logf_("build-destroy");
    free(g);
}
static int mj_exec(exec_op *op, void *l, const vec_chunk *in, vec_chunk *out, exec_op_result *res,
                   sqe_error *err) {
    mjoin_g *g = op->sink_gstate;
    if (!atomic_load(&g->finalized)) return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "probe before build");
    *res = EXEC_NEED_INPUT;
    return exec_chunk_slice(out, in, NULL, in->count, err);
}
typedef struct mj_src {
    _Atomic int done;
} mj_src;
static int mj_src_init(exec_op *op, void **g, sqe_error *err) {
    logf_("tail-init");
    *g = calloc(1, sizeof(mj_src));
    return SQE_OK;
}
static int mj_src_next(exec_op *op, void *g, void *l, vec_chunk *out, sqe_error *err) {
    mj_src *s = g;
    if (atomic_exchange(&s->done, 1)) {
        out->count = 0;
        return SQE_OK;
    }
    uint64_t n = atomic_load(&((mjoin_g *)op->sink_gstate)->built);
    for (uint32_t i = 0; i < n && i < out->capacity; i++) VEC_DATA(&out->cols[0], int64_t)[i] = -1;
    out->count = (uint32_t)(n < out->capacity ? n : out->capacity);
    return SQE_OK;
}
static void mj_src_destroy(exec_op *op, void *g) { free(g); }
static const exec_op_vtable mjoin_vt = {
    .name = "MockJoin", .sink_init = mj_sink_init, .sink_local_init = mj_local,
    .sink = mj_sink, .sink_combine = mj_combine, .sink_finalize = mj_finalize,
    .sink_destroy = mj_sink_destroy, .op_execute = mj_exec, .source_init = mj_src_init,
    .source_next = mj_src_next, .source_destroy = mj_src_destroy,
};

/* A breaker counting its input (two inputs allowed) and emitting the counts per input. */
typedef struct mbrk_g {
    _Atomic uint64_t n[2];
    int order[2];
    _Atomic int seen;
    bool emitted;
} mbrk_g;
static int mb_sink_init(exec_op *op, void **g, sqe_error *err) {
    *g = calloc(1, sizeof(mbrk_g));
    return SQE_OK;
}
static int mb_local(exec_op *op, void *g, uint32_t idx, void **l, sqe_error *err) {
    *l = (void *)(uintptr_t)(idx + 1);
    return SQE_OK;
}
static int mb_sink(exec_op *op, void *g, void *l, const vec_chunk *in, sqe_error *err) {
    atomic_fetch_add(&((mbrk_g *)g)->n[(uintptr_t)l - 1], in->count);
    return SQE_OK;
}
static int mb_combine(exec_op *op, void *g, void *l, sqe_error *err) { return SQE_OK; }
static int mb_finalize(exec_op *op, void *g, sqe_error *err) {
    mbrk_g *b = g;
    logf_("agg-final:%llu+%llu", (unsigned long long)atomic_load(&b->n[0]),
          (unsigned long long)atomic_load(&b->n[1]));
    return SQE_OK;
}
static void mb_destroy(exec_op *op, void *g) { free(g); }
static int mb_next(exec_op *op, void *g, void *l, vec_chunk *out, sqe_error *err) {
    mbrk_g *b = op->sink_gstate;
    if (b->emitted) {
        out->count = 0;
        return SQE_OK;
    }
    b->emitted = true;
    VEC_DATA(&out->cols[0], int64_t)[0] = (int64_t)(atomic_load(&b->n[0]) * 1000 + atomic_load(&b->n[1]));
    out->count = 1;
    return SQE_OK;
}
static const exec_op_vtable mbrk_vt = {
    .name = "MockAgg", .sink_init = mb_sink_init, .sink_local_init = mb_local, .sink = mb_sink,
    .sink_combine = mb_combine, .sink_finalize = mb_finalize, .sink_destroy = mb_destroy,
    .source_next = mb_next, .source_serial = true,
};

static exec_op *mock_op(exec_query_ctx *q, const exec_op_vtable *vt, uint32_t n_children,
                     void *impl) {
    exec_op *op = exec_op_alloc(q, vt, NULL, n_children);
    op->types = ARENA_ARRAY(q->arena, sqe_type, 1);
    op->types[0] = type_make(TYPE_BIGINT);
    op->n_types = 1;
    op->impl = impl;
    return op;
}

static void test_driver_pipelines(void **state) {
    tx t;
    tx_init(&t, 2, 0);
    pthread_mutex_init(&g_log.lock, NULL);
    g_log.text[0] = 0;
    arena a;
    arena_init(&a, &t.query);
    exec_query_ctx q;
    memset(&q, 0, sizeof q);
    q.tracker = &t.query;
    q.arena = &a;
    q.threads = 2;
    /* result <- agg(join(probe: src A 1000 rows, build: src B 250 rows), src C 30 rows) */
    msrc sa = {"A", 1000, 0}, sb = {"B", 250, 0}, sc = {"C", 30, 0};
    exec_op *A = mock_op(&q, &msrc_vt, 0, &sa), *B = mock_op(&q, &msrc_vt, 0, &sb);
    exec_op *C = mock_op(&q, &msrc_vt, 0, &sc);
    exec_op *J = mock_op(&q, &mjoin_vt, 2, NULL);
    J->children[0] = A;
    J->children[1] = B;
    exec_op *G = mock_op(&q, &mbrk_vt, 2, NULL);
    G->children[0] = J;
    G->children[1] = C;
    exec_op *R;
    plan root;
    memset(&root, 0, sizeof root);
    assert_int_equal(exec_op_result_create(&q, &root, G, &R, &t.err), SQE_OK);
    R->types = G->types;
    R->n_types = 1;
    exec_driver *d;
    assert_int_equal(exec_driver_create(&q, R, t.pool, 2, false, &d, &t.err), SQE_OK);
    assert_int_equal(exec_driver_pipeline_count(d), 5);
    const char *expect_pipes[5] = {"MockSource -> MockJoin[1]", "MockSource -> MockJoin -> MockAgg[0]",
                                   "MockJoin -> MockAgg[0]", "MockSource -> MockAgg[1]",
                                   "MockAgg -> Output[0]"};
    for (uint32_t i = 0; i < 5; i++) {
        strbuf sb2;
        strbuf_init(&sb2);
        exec_driver_describe(d, i, &sb2);
        assert_string_equal(strbuf_cstr(&sb2), expect_pipes[i]);
        strbuf_reset(&sb2);
    }
    assert_int_equal(exec_driver_run(d, &t.err), SQE_OK);
    const vec_chunk *c = exec_op_result_next(R);
    assert_non_null(c);
    assert_int_equal(c->count, 1);
    /* agg saw 1000 probe rows + 250 tail rows on input 0 and 30 on input 1 */
    assert_int_equal(VEC_DATA(&c->cols[0], int64_t)[0], 1250 * 1000 + 30);
    assert_null(exec_op_result_next(R));
    assert_string_equal(g_log.text, "build-init init:B build-final:250 init:A tail-init "
                                     "build-destroy init:C agg-final:1250+30 ");
    exec_driver_destroy(d);
    arena_destroy(&a);
    pthread_mutex_destroy(&g_log.lock);
    tx_free(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_limit_parallel),   cmocka_unit_test(test_error_stops_threads),
        cmocka_unit_test(test_memory_limit),
        cmocka_unit_test(test_result_streams_under_limit),
        cmocka_unit_test(test_abandoned_stream),     cmocka_unit_test(test_cancel),
        cmocka_unit_test(test_table_func),       cmocka_unit_test(test_values_single),
        cmocka_unit_test(test_unnest),           cmocka_unit_test(test_explain),
        cmocka_unit_test(test_driver_pipelines), cmocka_unit_test(test_concurrent_queries),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
