/*
 * engine.h: the embedded engine behind the public API (include/sqe/sqe.h): databases, sessions,
 * statement dispatch and results. Private to src/engine/; what the server front ends and the
 * command line may use of it (struct sqe_db, struct sqe_chunk) is in engine_api.h, included here.
 *
 * A statement runs in its own query arena and memory tracker: parse (sql/), bind (bind/),
 * optimize (plan/), execute (exec/). DDL and SHOW statements are handled here directly.
 */
#ifndef SQE_ENGINE_ENGINE_H
#define SQE_ENGINE_ENGINE_H

#include <pthread.h>

#include "bind/bind.h"
#include "catalog/catalog.h"
#include "engine/engine_api.h"
#include "exec/exec.h"
#include "sql/sql.h"
#include "sqe/sqe_effects.h"

/* The memory all running queries of one user hold together ([query] per_user_memory): a
 * tracker between the queries' trackers and the database's, shared while any query of the user
 * runs (db_user_memory_acquire / _release). */
typedef struct user_memory {
    char *user;
    mem_tracker tracker;
    uint32_t refs;             /* guarded by the database's lock */
    struct user_memory *next;
} user_memory;

typedef struct prepared {
    char *name;
    char *text;                /* the statement text */
    struct prepared *next;
} prepared;

/* What a statement did (effects.c; read through sqe_effects.h). Strings and arrays are
 * malloc'ed and owned here. While a statement runs, the connection points at the one it fills
 * (sqe_conn.effects); the result takes it over at the end. */
typedef struct engine_effects {
    sqe_statement_kind kind;
    bool returns_rows;
    const char *update_type;       /* static; "" for statements that return rows */
    sqe_session_change *changes;
    uint32_t n_changes;
    sqe_table_access *tables;
    uint32_t n_tables;
    struct engine_pending_read {   /* reads whose pruned columns are known once optimized */
        const plan *node;
        uint32_t table;            /* index into tables */
    } *pending;
    uint32_t n_pending;
    bind_access_sink sink;         /* what bind_env.access points at */
    int64_t committed_snapshot;    /* the snapshot the statement's last Iceberg commit made (the
                                      table's writer hands it over: engine_effects_committed);
                                      0 = none */
    bool failed;                   /* out of memory while recording: the report is partial */
} engine_effects;

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
    engine_effects *effects;   /* the running statement's report (engine_execute), or NULL */
};

struct sqe_result {
    uint32_t n_cols;
    char **names;
    char **types;              /* Trino spellings */
    sqe_type *col_types;
    int64_t update_count;      /* -1 for queries */
    engine_effects fx;         /* what the statement did (zero for internal results) */
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

/* Results built in memory: engine_result_create, engine_result_add_text_row, ... (engine_api.h). */
/* Sets the columns of a result created with 0 columns (names and types copied). */
int engine_result_set_columns(sqe_result *r, uint32_t n_cols, const char *const *names,
                              const sqe_type *types, sqe_error *err);
int engine_result_set_update_count(sqe_result *r, int64_t n);
/* The answer of a statement that changed rows (INSERT, DELETE, COPY, ...): one BIGINT column
 * "rows" holding n, and update count n. On error *out is NULL. */
int engine_result_count(int64_t n, sqe_result **out, sqe_error *err);

/* ---- statement effects (effects.c) ------------------------------------------------------ */

/* Starts recording into fx (zeroed by the caller) for conn: binds of the statement report the
 * tables they read (engine_bind_env hands out fx->sink). */
void engine_effects_begin(engine_effects *fx);
/* After a plan of the statement was optimized: the reads bound since mark (fx->n_pending at the
 * start of that bind) take their pruned columns; those pending entries are dropped. fx may be
 * NULL. */
void engine_effects_plan_done(engine_effects *fx, uint32_t mark);
/* The statement's Iceberg commit made snapshot_id (fx may be NULL): the table written reports it,
 * not whatever is current when the statement ends (a concurrent writer may have moved on). */
void engine_effects_committed(engine_effects *fx, int64_t snapshot_id);
/* Records one session change (name and value copied; value may be NULL). */
void engine_effects_change(engine_effects *fx, sqe_session_change_kind kind, const char *name,
                           const char *value);
/* After st ran on conn successfully: sets the kind, update type and returns_rows from the syntax
 * tree (EXECUTE keeps what the executed statement reported) and records the tables written. */
void engine_effects_finish(engine_effects *fx, sqe_conn *conn, const sql_stmt *st);
/* Frees what fx holds and zeroes it. */
void engine_effects_clear(engine_effects *fx);
/* The kind, returns_rows and update type of a statement kind, from the syntax tree alone. */
sqe_statement_kind engine_statement_kind(const sql_stmt *st, bool *returns_rows,
                                         const char **update_type);

/* SET / RESET SESSION (session_props.c): applies st to conn; *value (may be NULL) gets the
 * value as text (malloc'ed, NULL for RESET). */
int engine_set_session(sqe_conn *conn, const sql_stmt *st, char **value, sqe_error *err);

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
