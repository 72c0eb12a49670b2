/*
 * mem_table.c: the statements that write memory tables (engine_mem_table_impl, table_impl.h):
 * CREATE TABLE, INSERT, DELETE, UPDATE, MERGE (merge.c's merge_memory), TRUNCATE.
 *
 * INTERFACE: engine_mem_table_impl.
 * NOTES: writes are all-or-nothing: rows are appended to a private chunk list and committed in
 * one step (cat_append_*); on any error they are dropped. DELETE and UPDATE rewrite the table:
 * the surviving or updated rows are computed by a query over the table, then swapped in under
 * the table's writer lock. The memory catalog has no table properties and no ALTER TABLE.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "engine/merge_int.h"
#include "engine/table_impl.h"

static int mem_check_properties(catalog *cat, const sql_property_list *props, sqe_error *err) {
    if (!props || !props->n) return SQE_OK;
    return err_set_at(err, SQE_ERR_INVALID_TABLE_PROPERTY, props->items[0].name.line,
                      props->items[0].name.col,
                      "Catalog 'memory' table property '%s' does not exist",
                      props->items[0].name.text);
}

/* *created: true unless if_not_exists (then the table may have existed). */
static int mem_create_table(sqe_conn *conn, catalog *cat, const char *schema, const char *name,
                            const cat_column *cols, uint32_t n, const sql_property_list *props,
                            const vec *const *params, uint32_t n_params, bool if_not_exists,
                            bool *created, sqe_error *err) {
    if (created) *created = false;
    SQE_TRY(mem_check_properties(cat, props, err));
    SQE_TRY(catalog_create_table(cat, schema, name, cols, n, if_not_exists, NULL, err));
    if (created) *created = !if_not_exists;
    return SQE_OK;
}

/* Runs q and appends its rows to it->table: committed only if everything succeeds, or, with
 * keep, handed to the caller uncommitted. */
static int append_rows(sqe_conn *conn, const sql_query *q, engine_insert_target *it,
                       const vec *const *params, uint32_t n_params, int64_t *rows,
                       cat_append *keep, sqe_error *err) {
    sqe_result *r;
    SQE_TRY(engine_result_create(0, NULL, NULL, &r, err));
    bound_query bq;
    int rc = engine_plan_query_hook(conn, q, params, n_params, false, engine_insert_projection, it,
                                    r, &bq, err);
    cat_append ap;
    cat_append_init(&ap, it->table);
    while (!rc) {
        const vec_chunk *c;
        rc = exec_query_next(r->query, &c, err);
        if (rc || !c) break;
        rc = cat_append_chunk(&ap, c, err);
    }
    *rows = (int64_t)ap.n_rows;
    if (rc)
        cat_append_abort(&ap);
    else if (keep)
        *keep = ap; /* the caller commits */
    else
        rc = cat_append_commit(&ap, err);
    sqe_result_destroy(r);
    return rc;
}

static int mem_insert(sqe_conn *conn, const sql_query *q, engine_insert_target *it,
                      const vec *const *params, uint32_t n_params, int64_t *rows,
                      sqe_error *err) {
    return append_rows(conn, q, it, params, n_params, rows, NULL, err);
}

/* Replaces t's rows by those of q (a query over t). */
static int rewrite_table(sqe_conn *conn, cat_table *t, sql_query *q, const vec *const *params,
                         uint32_t n_params, sqe_error *err) {
    engine_insert_target it = {t, NULL, t->n_columns, 0, 0};
    int64_t rows;
    cat_append ap;
    SQE_TRY(append_rows(conn, q, &it, params, n_params, &rows, &ap, err));
    cat_table_truncate(t);
    return cat_append_commit(&ap, err);
}

/* DELETE: the rows that do not match where, swapped in (all of them go without where). */
static int mem_delete(sqe_conn *conn, cat_table *t, const sql_qname *table, sql_expr *where,
                      const vec *const *params, uint32_t n_params, int64_t *rows,
                      sqe_error *err) {
    uint64_t before = t->data.n_rows;
    int rc = SQE_OK;
    if (!where) {
        cat_table_truncate(t);
    } else {
        arena a;
        arena_init(&a, NULL);
        sql_select_item *star = ARENA_NEW(&a, sql_select_item);
        sql_expr *keep = ARENA_NEW(&a, sql_expr);
        sql_expr *is_true = dml_ast_is_true(&a, where);
        if (!star || !keep || !is_true) {
            rc = err_nomem(err, "delete");
        } else {
            star->kind = SQL_SELECT_STAR;
            keep->kind = SQL_EXPR_UNARY;
            keep->u.unary.op = SQL_OP_NOT;
            keep->u.unary.arg = is_true;
            sql_query *q = dml_ast_select(&a, table, star, 1, keep);
            rc = q ? rewrite_table(conn, t, q, params, n_params, err)
                   : err_nomem(err, "delete");
        }
        arena_destroy(&a);
    }
    *rows = (int64_t)(before - t->data.n_rows);
    return rc;
}


/* UPDATE: every row through CASE WHEN where THEN CAST(value AS type) ELSE column END, swapped
 * in; *rows gets the rows where selects. */
static int mem_update(sqe_conn *conn, cat_table *t, const sql_qname *table,
                      const sql_assignment *sets, int n_sets, sql_expr *where,
                      const vec *const *params, uint32_t n_params, int64_t *rows,
                      sqe_error *err) {
    arena a;
    arena_init(&a, NULL);
    int rc = SQE_OK;
    sql_select_item *items = ARENA_ARRAY(&a, sql_select_item, t->n_columns + 1);
    if (!items) rc = err_nomem(err, "update");
    for (uint32_t c = 0; !rc && c < t->n_columns; c++) {
        sql_expr *col = dml_ast_name(&a, t->columns[c].name);
        sql_expr *val = col;
        for (int s = 0; s < n_sets; s++)
            if (strcmp(t->columns[c].name, sets[s].column.name) == 0) {
                sql_expr *v = sets[s].value;
                if (!where) {
                    val = v;
                    continue;
                }
                /* CASE WHEN coalesce(where, false) THEN CAST(v AS type) ELSE col END */
                sql_expr *ce = ARENA_NEW(&a, sql_expr);
                sql_when *w = ARENA_NEW(&a, sql_when);
                sql_expr *cast = ARENA_NEW(&a, sql_expr);
                char tname[128];
                type_format(t->columns[c].type, tname, sizeof tname);
                if (!ce || !w || !cast) {
                    rc = err_nomem(err, "update");
                    break;
                }
                cast->kind = SQL_EXPR_CAST;
                cast->line = v->line;
                cast->col = v->col;
                cast->u.cast.arg = v;
                cast->u.cast.type.text = arena_strdup(&a, tname);
                w->cond = dml_ast_is_true(&a, where);
                w->result = cast;
                ce->kind = SQL_EXPR_CASE;
                ce->u.case_.whens = w;
                ce->u.case_.n_whens = 1;
                ce->u.case_.else_result = col;
                val = ce;
            }
        items[c].kind = SQL_SELECT_EXPR;
        items[c].expr = val;
    }
    int64_t changed = 0;
    if (!rc) {
        /* count the rows the WHERE selects */
        sql_query *q = dml_ast_select(&a, table, items, (int)t->n_columns, NULL);
        if (!q) rc = err_nomem(err, "update");
        if (!rc && where) {
            sqe_result *cr;
            sql_select_item *cnt = ARENA_NEW(&a, sql_select_item);
            sql_expr *call = ARENA_NEW(&a, sql_expr);
            sql_ident *fname = ARENA_NEW(&a, sql_ident);
            if (!cnt || !call || !fname) {
                rc = err_nomem(err, "update");
            } else {
                fname->name = fname->text = "count";
                call->kind = SQL_EXPR_CALL;
                call->u.call.name.parts = fname;
                call->u.call.name.n_parts = 1;
                call->u.call.star = true;
                cnt->kind = SQL_SELECT_EXPR;
                cnt->expr = call;
                sql_query *cq = dml_ast_select(&a, table, cnt, 1,
                                                  dml_ast_is_true(&a, where));
                rc = engine_run_query(conn, cq, params, n_params, false, &cr, err);
                const sqe_chunk *ch;
                if (!rc) rc = sqe_result_next(cr, &ch, err);
                if (!rc && ch) changed = VEC_DATA(&ch->chunk->cols[0], int64_t)[0];
                if (cr) sqe_result_destroy(cr);
            }
        } else if (!rc) {
            changed = (int64_t)t->data.n_rows;
        }
        if (!rc) rc = rewrite_table(conn, t, q, params, n_params, err);
    }
    arena_destroy(&a);
    *rows = changed;
    return rc;
}


static int mem_truncate(sqe_conn *conn, cat_table *t, int64_t *rows, sqe_error *err) {
    *rows = (int64_t)t->data.n_rows;
    cat_table_truncate(t);
    return SQE_OK;
}

const engine_table_impl engine_mem_table_impl = {
    .type = "memory",
    .check_properties = mem_check_properties,
    .create_table = mem_create_table,
    .missing_schema_code = SQE_ERR_NOT_FOUND, /* Trino's memory connector */
    .insert = mem_insert,
    .delete_rows = mem_delete,
    .update_rows = mem_update,
    .merge_by_position = false,
    .merge = engine_merge_memory,
    .truncate = mem_truncate,
    .alter = NULL,
};
