/*
 * engine.h: the embedded engine behind the public API (include/sqe/sqe.h): databases, sessions,
 * statement dispatch and results. Private to src/engine/.
 *
 * A statement runs in its own query arena and memory tracker: parse (sql/), bind (bind/),
 * optimize (plan/), execute (exec/). DDL and SHOW statements are handled here directly.
 */
#ifndef SQE_ENGINE_ENGINE_H
#define SQE_ENGINE_ENGINE_H

#include <pthread.h>

#include "bind/bind.h"
#include "catalog/catalog.h"
#include "exec/exec.h"
#include "sql/sql.h"

/* The memory all running queries of one user hold together ([query] per_user_memory): a
 * tracker between the queries' trackers and the database's, shared while any query of the user
 * runs (db_user_memory_acquire / _release). */
typedef struct user_memory {
    char *user;
    mem_tracker tracker;
    uint32_t refs;             /* guarded by the database's lock */
    struct user_memory *next;
} user_memory;

struct sqe_db {
    catalog **catalogs;
    uint32_t n_catalogs;
    exec_pool *pool;
    uint32_t threads;
    mem_tracker tracker;       /* everything the database holds (tables, running queries);
                                  limit: sqe_db_set_limits memory_total */
    int64_t query_memory_limit;/* per query, the ceiling of SET SESSION query_max_memory */
    int64_t user_memory_limit; /* per user ([query] per_user_memory); 0 = none */
    int64_t max_result_rows;   /* rows a result may hand to the client; 0 = no limit */
    user_memory *users;        /* users with running queries (guarded by lock) */
    struct path_policy *paths; /* what SQL may read and write of files and object stores
                                  (io/path_policy.h; owned); NULL: everything (embedded) */
    pthread_mutex_t lock;
};

typedef struct prepared {
    char *name;
    char *text;                /* the statement text */
    struct prepared *next;
} prepared;

struct sqe_conn {
    sqe_db *db;
    char *catalog;
    char *schema;
    uint32_t threads;          /* SET SESSION threads; 0 = the database's */
    int64_t query_max_memory;  /* SET SESSION query_max_memory; 0 = the database's */
    int32_t time_zone;
    bool join_reorder;
    prepared *prepared;
    sqe_principal *principal;  /* who the session's statements run as (a reference, never
                                  NULL): the OS user for the embedded shell, the authenticated
                                  caller in the server (sqe_conn_set_principal) */
    volatile int *cancel;      /* non-zero cancels the running query (exec_options.cancel) */
    uint64_t deadline_ns;      /* CLOCK_MONOTONIC deadline of its queries (sqe_conn_set_deadline);
                                  0 = none */
    uint32_t time_limit_ms;    /* the limit the deadline came from, for the message */
};

struct sqe_chunk {
    const vec_chunk *chunk;
};

struct sqe_result {
    uint32_t n_cols;
    char **names;
    char **types;              /* Trino spellings */
    sqe_type *col_types;
    int64_t update_count;      /* -1 for queries */
    /* rows come either from a running query ... */
    exec_query *query;
    plan_ctx pctx;
    arena arena;
    mem_tracker tracker;
    bool has_plan;
    arena ast_arena;           /* the statement's AST, which plan names may point into */
    bool has_ast;
    user_memory *user_mem;     /* the user tracker r->tracker is charged to, or NULL */
    sqe_db *db;                /* for user_mem */
    int64_t row_limit;         /* max rows sqe_result_next hands out (0 = none) */
    int64_t rows_out;
    /* ... or from materialized chunks (SHOW, EXPLAIN) */
    vec_chunk **chunks;
    uint32_t n_chunks, next_chunk;
    sqe_chunk current;
};

/* Results built in memory (all-varchar or typed columns). */
int engine_result_create(uint32_t n_cols, const char *const *names, const sqe_type *types,
                         sqe_result **out, sqe_error *err);
/* Sets the columns of a result created with 0 columns (names and types copied). */
int engine_result_set_columns(sqe_result *r, uint32_t n_cols, const char *const *names,
                              const sqe_type *types, sqe_error *err);
/* Appends a row of texts (NULL entries are NULL values) to an all-varchar result. */
int engine_result_add_text_row(sqe_result *r, const char *const *cells, sqe_error *err);
/* Appends a bigint/varchar row: cells as text, converted by the column type. */
int engine_result_set_update_count(sqe_result *r, int64_t n);
/* The answer of a statement that changed rows (INSERT, DELETE, COPY, ...): one BIGINT column
 * "rows" holding n, and update count n. On error *out is NULL. */
int engine_result_count(int64_t n, sqe_result **out, sqe_error *err);

/* The per-user tracker of user (created on first use; a reference), or NULL when the database
 * has no per-user limit or on out of memory (the query then runs without that level). */
user_memory *db_user_memory_acquire(sqe_db *db, const char *user);
void db_user_memory_release(sqe_db *db, user_memory *um);

/* The binder environment of a session. */
void engine_bind_env(sqe_conn *conn, bind_env *env);

/* Statement handlers (statement.c, ddl.c, show.c). */
int engine_execute(sqe_conn *conn, const sql_stmt *st, const char *text, const vec *const *params,
                   uint32_t n_params, sqe_result **out, sqe_error *err);
int engine_run_query(sqe_conn *conn, const sql_query *q, const vec *const *params,
                     uint32_t n_params, bool profile, sqe_result **out, sqe_error *err);
int engine_show(sqe_conn *conn, const sql_stmt *st, sqe_result **out, sqe_error *err);
int engine_ddl(sqe_conn *conn, const sql_stmt *st, const vec *const *params, uint32_t n_params,
               sqe_result **out, sqe_error *err);
int engine_explain(sqe_conn *conn, const sql_stmt *st, const vec *const *params,
                   uint32_t n_params, sqe_result **out, sqe_error *err);
/* COPY (query) TO 'file' [WITH (...)] (copy.c): writes the query's rows to a Parquet file and
 * returns one row with the BIGINT column "rows". On error no file is left behind. */
int engine_copy(sqe_conn *conn, const sql_stmt *st, const vec *const *params, uint32_t n_params,
                sqe_result **out, sqe_error *err);

/* Prepares a query's plan and executor in a fresh result (used by queries, INSERT, CTAS). On
 * success r owns the plan and the running query. */
int engine_plan_query(sqe_conn *conn, const sql_query *q, const vec *const *params,
                      uint32_t n_params, bool profile, sqe_result *r, bound_query *bq,
                      sqe_error *err);
/* Same, with a hook that may rewrite the bound plan before it is optimized (INSERT adds the
 * projection onto the table's columns). */
typedef int (*engine_plan_hook)(void *ud, plan_ctx *pctx, bound_query *bq, sqe_error *err);
int engine_plan_query_hook(sqe_conn *conn, const sql_query *q, const vec *const *params,
                           uint32_t n_params, bool profile, engine_plan_hook hook, void *hook_ud,
                           sqe_result *r, bound_query *bq, sqe_error *err);
/* Same, streaming the result into sink (exec_options.result_sink) instead of collecting it. */
int engine_plan_query_sink(sqe_conn *conn, const sql_query *q, const vec *const *params,
                           uint32_t n_params,
                           int (*sink)(void *ud, const vec_chunk *chunk, sqe_error *err),
                           void *sink_ud, sqe_result *r, bound_query *bq, sqe_error *err);
/* Both: the hook rewrites the bound plan, the sink gets the rows (called by one thread at a
 * time). */
int engine_plan_query_hook_sink(sqe_conn *conn, const sql_query *q, const vec *const *params,
                                uint32_t n_params, engine_plan_hook hook, void *hook_ud,
                                int (*sink)(void *ud, const vec_chunk *chunk, sqe_error *err),
                                void *sink_ud, sqe_result *r, bound_query *bq, sqe_error *err);

/* ---- AST builders for rewritten DML (dml_ast.c): nodes in a; NULL on out-of-memory (also
 * when an argument is NULL, so calls can nest) -------------------------------------------- */

/* SELECT items FROM table [WHERE where]. */
sql_query *dml_ast_select(arena *a, const sql_qname *table, sql_select_item *items, int n_items,
                          sql_expr *where);
sql_expr *dml_ast_name(arena *a, const char *name);             /* a quoted column name */
sql_expr *dml_ast_string(arena *a, const char *s);              /* 's' (s borrowed) */
sql_expr *dml_ast_is_true(arena *a, sql_expr *cond);            /* coalesce(cond, false) */
sql_expr *dml_ast_not(arena *a, sql_expr *e);
sql_expr *dml_ast_and(arena *a, sql_expr *x, sql_expr *y);
sql_expr *dml_ast_in_strings(arena *a, sql_expr *arg, const char *const *values, uint32_t n);
sql_expr *dml_ast_count_star(arena *a);                         /* count(*) */
sql_expr *dml_ast_cast(arena *a, sql_expr *v, sqe_type t);      /* CAST(v AS t) */

/* Statements on tables go through the table's kind: engine/table_impl.h (memory tables:
 * mem_table.c; Iceberg tables: iceberg/ice_table.c, whose internals are in iceberg/ice_write_int.h). */

#endif
