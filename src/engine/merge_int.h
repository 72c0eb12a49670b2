/*
 * merge_int.h: what the row-level statements share (DELETE, UPDATE and MERGE): the positions a
 * query found per Iceberg data file and their application as copy-on-write or merge-on-read
 * (ice_dml.c), and MERGE's planning and row routing for both catalogs (merge.c, ice_merge.c).
 * Private to src/engine/.
 */
#ifndef SQE_ENGINE_MERGE_INT_H
#define SQE_ENGINE_MERGE_INT_H

#include "engine/engine.h"
#include "engine/ice_write_int.h"
#include "iceberg/roaring.h"

/* ---- Iceberg row positions and their application (ice_dml.c) ------------------------------ */

typedef struct ice_file_positions {
    char *path;                /* in the owning ice_positions' arena */
    ice_roaring pos;           /* row positions in the data file */
} ice_file_positions;

/* Positions per data file. Paths live in arena a; the file array and bitmaps are heap memory
 * freed by ice_positions_reset. */
typedef struct ice_positions {
    arena *a;
    ice_file_positions *files;
    uint32_t n_files, cap_files, last;
} ice_positions;

void ice_positions_init(ice_positions *p, arena *a);
/* Frees the bitmaps and the file array (the paths go with the arena). Safe after init. */
void ice_positions_reset(ice_positions *p);
/* Adds position pos of data file path[0..len). *added (may be NULL) tells whether it was new.
 * On error (out of memory) p keeps what it had. */
int ice_positions_add(ice_positions *p, const char *path, uint32_t len, uint64_t pos,
                      bool *added, sqe_error *err);

/* Runs query q, giving every result chunk to sink (one thread at a time); hook (may be NULL)
 * rewrites the bound plan first. Nothing is kept after return. */
int engine_dml_run(sqe_conn *conn, const sql_query *q, const vec *const *params,
                   uint32_t n_params, engine_plan_hook hook, void *hook_ud,
                   int (*sink)(void *, const vec_chunk *, sqe_error *), void *ud,
                   sqe_error *err);

/* Applies a row-level change to w->table and commits it as one snapshot: the rows at positions
 * p are removed (merge-on-read when mor: position delete files in v2, deletion vectors in v3;
 * otherwise copy-on-write: the affected data files are rewritten without those rows, through w,
 * reading them with `table`, the statement's name of the table) and the rows already written
 * to w are added. Operation "append" when nothing was removed, "delete" when no data file was
 * added, else "overwrite". The writer is finished here (engine_ice_writer_end still frees w).
 * On error the table is unchanged and every file written is deleted. */
int ice_dml_apply(ice_insert *w, ice_positions *p, bool mor, const sql_qname *table,
                  sqe_error *err);

/* True when the table's `property` (write.delete.mode, write.update.mode, write.merge.mode)
 * is merge-on-read and the format allows it (v2 and later). */
bool ice_dml_merge_on_read(const cat_table *t, const char *property);

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

/* MERGE into Iceberg table t (ice_merge.c): write.merge.mode picks copy-on-write or
 * merge-on-read; one commit. *rows gets the rows inserted + updated + deleted. */
int engine_ice_merge(sqe_conn *conn, cat_table *t, const merge_plan *p, const vec *const *params,
                     uint32_t n_params, int64_t *rows, sqe_error *err);

/* The MERGE statement on either catalog: a one-row result with the rows changed. */
int engine_merge(sqe_conn *conn, const sql_stmt *st, const vec *const *params, uint32_t n_params,
                 sqe_result **out, sqe_error *err);

#endif
