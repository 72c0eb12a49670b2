/*
 * table_impl.h: the engine's side of the table interface: per kind of table storage
 * (catalog_ops.h cat_kind), the entry points of the statements that write tables or change
 * them: CREATE TABLE [AS], INSERT, DELETE, UPDATE, MERGE, TRUNCATE, ALTER TABLE and CALL.
 *
 * ddl.c and merge.c resolve the table (or catalog), then call through
 * engine_table_impl_of(t) / engine_catalog_impl(c): they never ask which kind a table is. The
 * catalog layer cannot hold these entry points (they plan and run queries: plan/, bind/, exec/
 * are above it), so the kind a catalog_ops / table_ops table names picks the set here. A
 * wrapping catalog (catalog_open_ops) keeps its inner catalog's kind, so its tables are written
 * by the same code, and their commits reach the catalog through catalog_commit, which it sees.
 *
 * Implementations: the memory tables (mem_table.c) and Iceberg tables (iceberg/ice_table.c,
 * over the other files of engine/iceberg/). An entry point a kind does not have is NULL: the
 * caller answers NOT_SUPPORTED with the message documented at the field.
 *
 * Add a kind: a value in cat_kind, a file filling engine_table_impl, its entry in
 * table_impl.c, and the catalog_ops / table_ops of its catalog.
 */
#ifndef SQE_ENGINE_TABLE_IMPL_H
#define SQE_ENGINE_TABLE_IMPL_H

#include "engine/engine.h"

struct merge_plan;

/* What INSERT writes into: the table and which of its columns the query's columns fill. */
typedef struct engine_insert_target {
    cat_table *table;
    const int *cols;   /* table column of each query column; NULL = in order */
    uint32_t n_cols;   /* query columns expected */
    int line, col;
} engine_insert_target;

/* The plan hook of every INSERT (ddl.c; ud an engine_insert_target): projects the query onto
 * all table columns, casting, NULL for missing columns. */
int engine_insert_projection(void *ud, plan_ctx *pc, bound_query *bq, sqe_error *err);

/* Runs query q, giving every result chunk to sink (one thread at a time); hook (may be NULL)
 * rewrites the bound plan first. Nothing is kept after return. */
int engine_dml_run(sqe_conn *conn, const sql_query *q, const vec *const *params,
                   uint32_t n_params, engine_plan_hook hook, void *hook_ud,
                   int (*sink)(void *, const vec_chunk *, sqe_error *), void *ud,
                   sqe_error *err);

typedef struct engine_table_impl {
    const char *type;  /* "memory", "iceberg" (messages) */

    /* CREATE TABLE in catalog cat (of this kind) from columns and the WITH properties. Check
     * them first with check_properties (CTAS does, before binding its query). *created tells
     * whether the table was made. Errors without a position get the table name's. */
    int (*check_properties)(catalog *cat, const sql_property_list *props, sqe_error *err);
    int (*create_table)(sqe_conn *conn, catalog *cat, const char *schema, const char *name,
                        const cat_column *cols, uint32_t n, const sql_property_list *props,
                        const vec *const *params, uint32_t n_params, bool if_not_exists,
                        bool *created, sqe_error *err);
    /* The error code of a missing schema in CREATE VIEW (the connector's answer in Trino). */
    int missing_schema_code;

    /* INSERT: runs q projected onto it->table (engine_insert_projection) and commits its rows
     * in one step; nothing changes on error. *rows gets the rows inserted. */
    int (*insert)(sqe_conn *conn, const sql_query *q, engine_insert_target *it,
                  const vec *const *params, uint32_t n_params, int64_t *rows, sqe_error *err);
    /* DELETE / UPDATE: table is the statement's name for t (rewritten queries read it again);
     * *rows gets the rows deleted or updated. */
    int (*delete_rows)(sqe_conn *conn, cat_table *t, const sql_qname *table, sql_expr *where,
                       const vec *const *params, uint32_t n_params, int64_t *rows,
                       sqe_error *err);
    int (*update_rows)(sqe_conn *conn, cat_table *t, const sql_qname *table,
                       const sql_assignment *sets, int n_sets, sql_expr *where,
                       const vec *const *params, uint32_t n_params, int64_t *rows,
                       sqe_error *err);
    /* MERGE: the plan's shape (merge_plan_build): true when target rows are identified by
     * file position ("$path", "$pos", RIGHT JOIN: untouched rows stay in place), false when the
     * whole table is rewritten (a row number, FULL JOIN; the source table is then read as a
     * subquery named by its last name part). */
    bool merge_by_position;
    int (*merge)(sqe_conn *conn, cat_table *t, const struct merge_plan *p,
                 const vec *const *params, uint32_t n_params, int64_t *rows, sqe_error *err);
    /* TRUNCATE; *rows gets the rows removed. */
    int (*truncate)(sqe_conn *conn, cat_table *t, int64_t *rows, sqe_error *err);
    /* ALTER TABLE (NULL: "ALTER TABLE is not supported by the <type> catalog"). */
    int (*alter)(sqe_conn *conn, catalog *cat, cat_table *t, const sql_stmt *st,
                 const vec *const *params, uint32_t n_params, sqe_error *err);
} engine_table_impl;

extern const engine_table_impl engine_mem_table_impl;  /* mem_table.c */
extern const engine_table_impl engine_ice_table_impl;  /* iceberg/ice_table.c */

/* The entry points for t's kind / for the tables of catalog c (never NULL; static). */
const engine_table_impl *engine_table_impl_of(const cat_table *t);
const engine_table_impl *engine_catalog_impl(const catalog *c);

#endif
