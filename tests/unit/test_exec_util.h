/*
 * test_exec_util.h: helpers shared by the executor's unit tests (test_exec_*.c): a memory
 * catalog with tables filled row by row, hand-built plans and expressions (functions resolved
 * through the real registry), and running a plan through exec_query_create/next into rows of
 * text ("a|b|c", NULL as "NULL").
 */
#ifndef SQE_TEST_EXEC_UTIL_H
#define SQE_TEST_EXEC_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "catalog/catalog.h"
#include "exec/exec.h"
#include "func/func.h"
#include "plan/plan.h"
#include "vec/vec_format.h"

typedef struct tx {
    mem_tracker db;      /* catalog memory */
    mem_tracker query;   /* query memory (limit) */
    arena arena;
    plan_ctx pctx;
    catalog *cat;
    exec_pool *pool;
    sqe_error err;
    char **rows;         /* last result, as text */
    uint32_t n_rows;
    uint64_t row_count;  /* last result row count (also when not kept as text) */
} tx;

static inline void tx_init(tx *t, uint32_t pool_threads, int64_t limit) {
    memset(t, 0, sizeof *t);
    mem_tracker_init(&t->db, "database", 0, NULL);
    mem_tracker_init(&t->query, "query", limit, NULL);
    arena_init(&t->arena, NULL);
    plan_ctx_init(&t->pctx, &t->arena, &t->query, exec_fold_const);
    assert_int_equal(func_registry_init(&t->err), SQE_OK);
    assert_int_equal(catalog_create("memory", &t->db, &t->cat, &t->err), SQE_OK);
    if (pool_threads) assert_int_equal(exec_pool_create(pool_threads, &t->pool, &t->err), SQE_OK);
}

static inline void tx_clear_rows(tx *t) {
    for (uint32_t i = 0; i < t->n_rows; i++) free(t->rows[i]);
    free(t->rows);
    t->rows = NULL;
    t->n_rows = 0;
}

static inline void tx_free(tx *t) {
    tx_clear_rows(t);
    plan_ctx_destroy(&t->pctx);
    arena_destroy(&t->arena);
    catalog_destroy(t->cat);
    exec_pool_destroy(t->pool);
    assert_int_equal(atomic_load(&t->query.used), 0);
}

/* --- Tables ----------------------------------------------------------------------------- */

static inline cat_table *tx_table(tx *t, const char *name, uint32_t n, const sqe_type *types) {
    cat_column cols[16];
    char names[16][16];
    memset(cols, 0, sizeof cols);
    for (uint32_t i = 0; i < n; i++) {
        snprintf(names[i], sizeof names[i], "c%u", i);
        cols[i].name = names[i];
        cols[i].type = types[i];
    }
    cat_table *tab = NULL;
    assert_int_equal(catalog_create_table(t->cat, "default", name, cols, n, false, &tab, &t->err),
                     SQE_OK);
    assert_int_equal(plan_ctx_add_table(&t->pctx, tab, &t->err), SQE_OK);
    cat_table_unref(tab);
    return tab;
}

/* Fills `rows` rows: fill(ud, row, col, v, idx) writes value (row, col) into v[idx] (or sets
 * it NULL). */
typedef void (*tx_fill_fn)(void *ud, uint64_t row, uint32_t col, vec *v, uint32_t idx);

static inline void tx_fill(tx *t, cat_table *tab, uint64_t rows, tx_fill_fn fill, void *ud) {
    sqe_type types[16];
    for (uint32_t c = 0; c < tab->n_columns; c++) types[c] = tab->columns[c].type;
    vec_chunk ch;
    assert_int_equal(vec_chunk_init(&ch, tab->n_columns, types, VEC_CHUNK_SIZE, NULL, &t->err),
                     SQE_OK);
    cat_append ap;
    cat_append_init(&ap, tab);
    for (uint64_t done = 0; done < rows;) {
        vec_chunk_reset(&ch);
        uint32_t n = rows - done < VEC_CHUNK_SIZE ? (uint32_t)(rows - done) : VEC_CHUNK_SIZE;
        for (uint32_t c = 0; c < tab->n_columns; c++)
            for (uint32_t i = 0; i < n; i++) fill(ud, done + i, c, &ch.cols[c], i);
        ch.count = n;
        assert_int_equal(cat_append_chunk(&ap, &ch, &t->err), SQE_OK);
        done += n;
    }
    assert_int_equal(cat_append_commit(&ap, &t->err), SQE_OK);
    vec_chunk_destroy(&ch);
}

/* --- Plans ------------------------------------------------------------------------------ */

static inline plan *tx_scan(tx *t, cat_table *tab) {
    plan *p = plan_new(&t->pctx, PLAN_SCAN, 0, tab->n_columns);
    p->u.scan.table = tab;
    p->u.scan.columns = ARENA_ARRAY(&t->arena, uint32_t, tab->n_columns);
    for (uint32_t i = 0; i < tab->n_columns; i++) {
        p->u.scan.columns[i] = i;
        p->out[i].id = plan_new_col(&t->pctx);
        p->out[i].type = tab->columns[i].type;
        p->out[i].name = tab->columns[i].name;
    }
    return p;
}

static inline plan *tx_filter(tx *t, plan *child, bexpr *cond) {
    plan *p = plan_new(&t->pctx, PLAN_FILTER, 1, child->n_out);
    p->children[0] = child;
    memcpy(p->out, child->out, child->n_out * sizeof(plan_col));
    p->u.filter.cond = cond;
    return p;
}

static inline plan *tx_project(tx *t, plan *child, uint32_t n, bexpr **exprs) {
    plan *p = plan_new(&t->pctx, PLAN_PROJECT, 1, n);
    p->children[0] = child;
    p->u.project.exprs = ARENA_ARRAY(&t->arena, bexpr *, n + 1);
    for (uint32_t i = 0; i < n; i++) {
        p->u.project.exprs[i] = exprs[i];
        p->out[i].id = plan_new_col(&t->pctx);
        p->out[i].type = exprs[i]->type;
    }
    return p;
}
#define TX_PROJECT(t, child, ...)                                                                  \
    tx_project(t, child, sizeof((bexpr *[]){__VA_ARGS__}) / sizeof(bexpr *), (bexpr *[]){__VA_ARGS__})

static inline plan *tx_limit(tx *t, plan *child, int64_t limit, int64_t offset) {
    plan *p = plan_new(&t->pctx, PLAN_LIMIT, 1, child->n_out);
    p->children[0] = child;
    memcpy(p->out, child->out, child->n_out * sizeof(plan_col));
    p->u.limit.limit = limit;
    p->u.limit.offset = offset;
    return p;
}

/* One-row VALUES with no columns (the FROM-less SELECT). */
static inline plan *tx_one_row(tx *t) {
    plan *p = plan_new(&t->pctx, PLAN_VALUES, 0, 0);
    p->u.values.n_rows = 1;
    return p;
}

/* --- Expressions ------------------------------------------------------------------------ */

static inline bexpr *tx_col(tx *t, const plan *p, uint32_t i) {
    return bexpr_column(&t->pctx, p->out[i].id, p->out[i].type);
}
static inline bexpr *tx_int(tx *t, int64_t v) {
    return bexpr_const_int64(&t->pctx, type_make(TYPE_BIGINT), v);
}
static inline bexpr *tx_i32(tx *t, int32_t v) {
    return bexpr_const_int64(&t->pctx, type_make(TYPE_INTEGER), v);
}
static inline bexpr *tx_str(tx *t, const char *s) {
    return bexpr_const_str(&t->pctx, type_varchar(0), s, strlen(s));
}
static inline bexpr *tx_bool(tx *t, bool b) { return bexpr_const_bool(&t->pctx, b); }
static inline bexpr *tx_null(tx *t, sqe_type ty) { return bexpr_const_null(&t->pctx, ty); }

static inline bexpr *tx_cast(tx *t, bexpr *e, sqe_type to, bool try_cast) {
    bexpr *c = bexpr_new(&t->pctx, BEXPR_CAST, to, 1);
    c->args[0] = e;
    c->u.cast.try_cast = try_cast;
    return c;
}

static inline bexpr *tx_call(tx *t, const char *name, uint32_t n, bexpr **args) {
    sqe_type types[8];
    for (uint32_t i = 0; i < n; i++) types[i] = args[i]->type;
    func_resolved r;
    int rc = func_resolve_scalar(&t->arena, name, types, n, NULL, &r, &t->err);
    if (rc != SQE_OK) fail_msg("resolve %s: %s", name, t->err.message);
    bexpr *e = bexpr_new(&t->pctx, BEXPR_CALL, r.ret, n);
    e->u.call.def = r.scalar;
    e->u.call.name = name;
    for (uint32_t i = 0; i < n; i++)
        e->args[i] = type_equal(r.arg_types[i], args[i]->type) ? args[i]
                                                                : tx_cast(t, args[i], r.arg_types[i], false);
    return e;
}
#define TX_CALL(t, name, ...)                                                                      \
    tx_call(t, name, sizeof((bexpr *[]){__VA_ARGS__}) / sizeof(bexpr *), (bexpr *[]){__VA_ARGS__})

static inline bexpr *tx_form(tx *t, bexpr_kind kind, sqe_type type, uint32_t n, bexpr **args) {
    bexpr *e = bexpr_new(&t->pctx, kind, type, n);
    for (uint32_t i = 0; i < n; i++) e->args[i] = args[i];
    return e;
}
#define TX_FORM(t, kind, type, ...)                                                                \
    tx_form(t, kind, type, sizeof((bexpr *[]){__VA_ARGS__}) / sizeof(bexpr *), (bexpr *[]){__VA_ARGS__})
#define TX_BOOL_T type_make(TYPE_BOOLEAN)

/* --- Running ---------------------------------------------------------------------------- */

typedef struct tx_run_opts {
    uint32_t threads;
    bool keep_rows;       /* render rows as text */
    bool profile;
    volatile int *cancel;
    strbuf *explain;      /* receives EXPLAIN text when set */
    const vec *const *params;
    uint32_t n_params;
} tx_run_opts;

static inline int tx_run_opt(tx *t, const plan *p, const tx_run_opts *o) {
    tx_clear_rows(t);
    t->row_count = 0;
    exec_options opts;
    memset(&opts, 0, sizeof opts);
    opts.pool = t->pool;
    opts.threads = o->threads;
    opts.tracker = &t->query;
    opts.profile = o->profile;
    opts.cancel = o->cancel;
    opts.params = o->params;
    opts.n_params = o->n_params;
    exec_query *q = NULL;
    int rc = exec_query_create(p, &opts, &q, &t->err);
    if (rc != SQE_OK) return rc;
    uint32_t cap = 0;
    for (;;) {
        const vec_chunk *c;
        rc = exec_query_next(q, &c, &t->err);
        if (rc != SQE_OK || !c) break;
        t->row_count += c->count;
        if (!o->keep_rows) continue;
        for (uint32_t r = 0; r < c->count; r++) {
            strbuf sb;
            strbuf_init(&sb);
            for (uint32_t col = 0; col < c->n_cols; col++) {
                if (col) strbuf_putc(&sb, '|');
                vec_format_value(&c->cols[col], r, &sb);
            }
            if (t->n_rows == cap) {
                cap = cap ? cap * 2 : 16;
                t->rows = realloc(t->rows, cap * sizeof(char *));
            }
            t->rows[t->n_rows++] = strbuf_move(&sb);
        }
    }
    if (o->explain) exec_query_explain(q, o->explain);
    exec_query_destroy(q);
    return rc;
}

static inline int tx_run(tx *t, const plan *p, uint32_t threads) {
    tx_run_opts o = {.threads = threads, .keep_rows = true};
    return tx_run_opt(t, p, &o);
}

static int tx_cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Checks the last result against expected rows (in order unless sorted). */
static inline void tx_expect(tx *t, bool sort, uint32_t n, const char *const *expected) {
    if (sort && t->n_rows) qsort(t->rows, t->n_rows, sizeof(char *), tx_cmp_str);
    if (t->n_rows != n) {
        for (uint32_t i = 0; i < t->n_rows && i < 20; i++) print_message("  got: %s\n", t->rows[i]);
        fail_msg("expected %u rows, got %u", n, t->n_rows);
    }
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(t->rows[i], expected[i]) != 0)
            fail_msg("row %u: expected '%s', got '%s'", i, expected[i], t->rows[i]);
}
#define TX_EXPECT(t, sort, ...)                                                                    \
    tx_expect(t, sort, sizeof((const char *[]){__VA_ARGS__}) / sizeof(char *),                    \
              (const char *[]){__VA_ARGS__})

#endif
