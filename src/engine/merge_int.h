/*
 * merge_int.h: MERGE's planning and row routing for every kind of table (merge.c; the Iceberg
 * side is iceberg/ice_merge.c) and the memory table's MERGE. Private to src/engine/.
 */
#ifndef SQE_ENGINE_MERGE_INT_H
#define SQE_ENGINE_MERGE_INT_H

#include "engine/engine.h"
#include "iceberg/roaring.h"

/* ---- MERGE (merge.c, ice_merge.c) --------------------------------------------------------- */

/* The analysed MERGE: the query joining target and source and how each WHEN case builds its
 * row. The query's columns are: the target row's identity (n_ids columns: Iceberg "$path",
 * "$pos"; memory tables a row number), the number of the WHEN case that applies (BIGINT, NULL
 * when none), the target's columns (n_columns, NULL for source rows without a match), then the
 * n_values SET / INSERT values, cast to their columns' types by merge_run's plan hook. */
typedef struct merge_plan {
    const sql_stmt *st;
    cat_table *t;              /* borrowed */
    uint32_t n_ids;
    uint32_t n_columns;
    uint32_t n_values;
    int *value_col;            /* target column of each value */
    int **case_src;            /* per case and column: MERGE_SRC_* or a value index */
    sql_query *query;          /* in the plan's arena */
} merge_plan;

enum { MERGE_SRC_NULL = -1, MERGE_SRC_TARGET = -2 };

/* Validates st (an SQL_STMT_MERGE on table t: SET and INSERT columns exist and are not
 * repeated, INSERT value counts match) and builds the plan in arena a. iceberg selects the row
 * identity and join: Iceberg targets RIGHT JOIN the source ("$path", "$pos"); memory targets
 * FULL JOIN it (a row number), so that untouched rows come back too. Errors point into st. */
int merge_plan_build(arena *a, const sql_stmt *st, cat_table *t, bool iceberg, merge_plan *out,
                     sqe_error *err);

/* Callbacks receiving merge_run's rows. `c` is a query chunk (layout in merge_plan), `row` a
 * row of it. */
typedef struct merge_target_ops {
    /* a target row an UPDATE or DELETE case applies to: *added false when that row was already
       changed (then MERGE fails: one target row matched by more than one source row) */
    int (*mark)(void *ud, const vec_chunk *c, uint32_t row, bool *added, sqe_error *err);
    /* a target row no case applies to (NULL: ignore them; Iceberg leaves them in place) */
    int (*keep)(void *ud, const vec_chunk *c, uint32_t row, sqe_error *err);
    /* updated and inserted rows: the table's columns, in order */
    int (*emit)(void *ud, const vec_chunk *rows, sqe_error *err);
    void *ud;
} merge_target_ops;

/* Runs the plan's query and routes its rows: *changed gets rows inserted + updated + deleted.
 * Fails with MERGE_TARGET_ROW_MULTIPLE_MATCHES (see merge.c), CONSTRAINT_VIOLATION (NULL for a
 * NOT NULL column), TYPE_MISMATCH (a value not coercible to its column) or the query's errors;
 * the callbacks may have received rows by then (the caller discards them). */
int merge_run(sqe_conn *conn, const merge_plan *p, const vec *const *params, uint32_t n_params,
              const merge_target_ops *ops, int64_t *changed, sqe_error *err);

/* MERGE into memory table t (merge.c; engine_mem_table_impl): the whole table is rewritten in
 * one step. *rows gets the rows inserted + updated + deleted. */
int engine_merge_memory(sqe_conn *conn, cat_table *t, const merge_plan *p,
                        const vec *const *params, uint32_t n_params, int64_t *rows,
                        sqe_error *err);

/* The MERGE statement on either catalog: a one-row result with the rows changed. */
int engine_merge(sqe_conn *conn, const sql_stmt *st, const vec *const *params, uint32_t n_params,
                 sqe_result **out, sqe_error *err);

#endif
