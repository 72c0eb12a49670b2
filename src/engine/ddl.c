/*
 * ddl.c: statements that change a catalog or table data: CREATE / DROP SCHEMA, CREATE TABLE,
 * CREATE TABLE AS, CREATE [OR REPLACE] VIEW, DROP VIEW, INSERT, DELETE, UPDATE, TRUNCATE, DROP
 * TABLE, ALTER TABLE, and USE (SET / RESET SESSION: session_props.c).
 *
 * INTERFACE: engine_ddl, engine_insert_projection (table_impl.h).
 * NOTES: this file resolves names, checks columns and builds the INSERT projection; the writes
 * themselves go through the table's engine_table_impl (table_impl.h: mem_table.c, iceberg/ice_table.c),
 * never asking which kind of table it is. Writes are all-or-nothing; a table created by CTAS
 * is dropped again when its INSERT fails.
 * CREATE VIEW binds the query once to record its column names and types (Trino's view
 * definition) and stores the query text with the session's catalog and schema; the binder
 * expands the text wherever the view is used (bind_from.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <strings.h>

#include "common/config.h"
#include "engine/engine.h"
#include "engine/table_impl.h"
#include "types/tz.h"

static int ok_result(sqe_result **out, sqe_error *err) { return engine_result_create(0, NULL, NULL,
                     out, err); }

static int resolve_table(sqe_conn *conn, const sql_qname *name, catalog **cat, const char **schema,
                         const char **table, sqe_error *err) {
    bind_env env;
    engine_bind_env(conn, &env);
    int rc = bind_resolve_table_name(&env, name, cat, schema, table, err);
    if (rc && err && !err->line) {
        err->line = name->parts[0].line;
        err->column = name->parts[0].col;
    }
    return rc;
}

static void at_name(sqe_error *err, const sql_qname *name) {
    if (err && !err->line) {
        err->line = name->parts[0].line;
        err->column = name->parts[0].col;
    }
}

/* After a table lookup failed: when the name is a view, replaces the error with NOT_SUPPORTED
 * and message on_view (Trino: "Inserting into views is not supported"). Returns rc. */
static int view_instead(catalog *cat, const char *schema, const char *name, const sql_qname *qn,
                        const char *on_view, int rc, sqe_error *err) {
    cat_view *v;
    if (rc != SQE_ERR_TABLE_NOT_FOUND || catalog_get_view(cat, schema, name, &v, NULL) != SQE_OK)
        return rc;
    cat_view_unref(v);
    return err_set_at(err, SQE_ERR_NOT_SUPPORTED, qn->parts[0].line, qn->parts[0].col, "%s",
                      on_view);
}

/* Looks up a table named in a statement; errors point at the name. */
static int get_table_at(sqe_conn *conn, const sql_qname *qn, const char *on_view, catalog **cat,
                        const char **schema, const char **name, cat_table **t, sqe_error *err) {
    SQE_TRY(resolve_table(conn, qn, cat, schema, name, err));
    int rc = catalog_get_table(*cat, conn->principal, *schema, *name, t, err);
    if (rc) {
        at_name(err, qn);
        rc = view_instead(*cat, *schema, *name, qn, on_view, rc, err);
    }
    return rc;
}

/* --- INSERT / CTAS ------------------------------------------------------------------------- */

int engine_insert_projection(void *ud, plan_ctx *pc, bound_query *bq, sqe_error *err) {
    engine_insert_target *it = ud;
    cat_table *t = it->table;
    if (bq->root->n_out != it->n_cols)
        return err_set_at(err, SQE_ERR_TYPE_MISMATCH, it->line, it->col,
                          "Insert query has %u columns but the target has %u columns",
                          bq->root->n_out, it->n_cols);
    bexpr **exprs = ARENA_ARRAY(pc->arena, bexpr *, t->n_columns + 1);
    if (!exprs) return err_nomem(err, "insert");
    for (uint32_t c = 0; c < t->n_columns; c++) {
        int src = -1;
        for (uint32_t k = 0; k < it->n_cols; k++)
            if ((it->cols ? (uint32_t)it->cols[k] : k) == c) src = (int)k;
        if (src < 0) {
            if (t->columns[c].not_null)
                return err_set_at(err, SQE_ERR_CONSTRAINT_VIOLATION, it->line, it->col,
                                  "NULL value not allowed for NOT NULL column: %s", t->columns[c].name);
            exprs[c] = bexpr_const_null(pc, t->columns[c].type);
            continue;
        }
        const plan_col *qc = &bq->root->out[src];
        bexpr *e = bexpr_column(pc, qc->id, qc->type);
        if (!e) return err_nomem(err, "insert");
        if (bind_cast_to(pc, e, t->columns[c].type, false, &exprs[c], NULL) != SQE_OK) {
            char want[128], got[128];
            type_format(t->columns[c].type, want, sizeof want);
            type_format(qc->type, got, sizeof got);
            return err_set_at(err, SQE_ERR_TYPE_MISMATCH, it->line, it->col,
                              "Insert query has mismatched column types: Table: [%s] for column %s, "
                              "Query: [%s]",
                              want, t->columns[c].name, got);
        }
    }
    plan *proj = plan_new(pc, PLAN_PROJECT, 1, t->n_columns);
    if (!proj || pc->failed) return err_nomem(err, "insert");
    proj->children[0] = bq->root;
    proj->u.project.exprs = exprs;
    for (uint32_t c = 0; c < t->n_columns; c++) {
        proj->out[c].id = plan_new_col(pc);
        proj->out[c].type = t->columns[c].type;
        proj->out[c].name = t->columns[c].name;
    }
    bq->root = proj;
    return SQE_OK;
}

static int do_insert(sqe_conn *conn, const sql_stmt *st, const vec *const *params,
                     uint32_t n_params,
                     sqe_result **out, sqe_error *err) {
    catalog *cat;
    const char *schema, *name;
    SQE_TRY(resolve_table(conn, &st->u.insert.table, &cat, &schema, &name, err));
    cat_table *t;
    int rc = catalog_get_table(cat, conn->principal, schema, name, &t, err);
    if (rc) {
        if (err) {
            err->line = st->u.insert.table.parts[0].line;
            err->column = st->u.insert.table.parts[0].col;
        }
        return view_instead(cat, schema, name, &st->u.insert.table,
                            "Inserting into views is not supported", rc, err);
    }
    engine_insert_target it = {t, NULL, t->n_columns, st->line, st->col};
    int *cols = NULL;
    const sql_ident_list *cl = &st->u.insert.columns;
    if (cl->n) {
        cols = calloc((size_t)cl->n, sizeof(int));
        if (!cols) rc = err_nomem(err, "insert");
        for (int i = 0; !rc && i < cl->n; i++) {
            cols[i] = -1;
            for (uint32_t c = 0; c < t->n_columns; c++)
                if (strcmp(t->columns[c].name, cl->items[i].name) == 0) cols[i] = (int)c;
            if (cols[i] < 0)
                rc = err_set_at(err, SQE_ERR_COLUMN_NOT_FOUND, cl->items[i].line, cl->items[i].col,
                                "Insert column name does not exist in target table: %s", cl->items[i].text);
            for (int j = 0; !rc && j < i; j++)
                if (cols[j] == cols[i])
                    rc = err_set_at(err, SQE_ERR_DUPLICATE_COLUMN_NAME, cl->items[i].line,
                                    cl->items[i].col, "Insert column name is specified more than once: %s",
                                    cl->items[i].text);
        }
        it.cols = cols;
        it.n_cols = (uint32_t)cl->n;
    }
    int64_t rows = 0;
    if (!rc)
        rc = engine_table_impl_of(t)->insert(conn, st->u.insert.query, &it, params, n_params,
                                             &rows, err);
    free(cols);
    cat_table_unref(t);
    SQE_TRY(rc);
    return engine_result_count(rows, out, err);
}

static int create_table(sqe_conn *conn, const sql_stmt *st, sqe_result **out, sqe_error *err) {
    catalog *cat;
    const char *schema, *name;
    SQE_TRY(resolve_table(conn, &st->u.create_table.name, &cat, &schema, &name, err));
    uint32_t n = (uint32_t)st->u.create_table.n_columns;
    cat_column *cols = calloc(n + 1, sizeof(cat_column));
    if (!cols) return err_nomem(err, "create table");
    int rc = SQE_OK;
    for (uint32_t i = 0; i < n && !rc; i++) {
        const sql_column_def *d = &st->u.create_table.columns[i];
        cols[i].name = (char *)d->name.name;
        cols[i].not_null = d->not_null;
        cols[i].comment = (char *)d->comment;
        if (type_parse(d->type.text, strlen(d->type.text), &cols[i].type) != 0)
            rc = err_set_at(err, SQE_ERR_TYPE_NOT_FOUND, d->type.line, d->type.col,
                            "Unknown type '%s' for column '%s'",
                            d->type.text, d->name.text);
        for (uint32_t j = 0; !rc && j < i; j++)
            if (strcmp(cols[j].name, cols[i].name) == 0)
                rc = err_set_at(err, SQE_ERR_DUPLICATE_COLUMN_NAME, d->line, d->col,
                                "Column name '%s' specified more than once", d->name.text);
    }
    bool created;
    if (!rc)
        rc = engine_catalog_impl(cat)->create_table(conn, cat, schema, name, cols, n,
                                                    &st->u.create_table.props, NULL, 0,
                                                    st->u.create_table.if_not_exists, &created,
                                                    err);
    if (rc && err && !err->line) {
        err->line = st->u.create_table.name.parts[0].line;
        err->column = st->u.create_table.name.parts[0].col;
    }
    free(cols);
    SQE_TRY(rc);
    return ok_result(out, err);
}

/* CTAS: binds the query to learn the columns, creates the table, inserts, drops it on error. */
typedef struct ctas_state {
    sqe_conn *conn;
    const sql_stmt *st;
    catalog *cat;
    const char *schema, *name;
    cat_table *table;
    bool existed;
} ctas_state;

static int create_table_as(sqe_conn *conn, const sql_stmt *st, const vec *const *params,
                           uint32_t n_params, sqe_result **out, sqe_error *err) {
    catalog *cat;
    const char *schema, *name;
    SQE_TRY(resolve_table(conn, &st->u.create_table_as.name, &cat, &schema, &name, err));
    const engine_table_impl *impl = engine_catalog_impl(cat);
    if (impl->check_properties)
        SQE_TRY(impl->check_properties(cat, &st->u.create_table_as.props, err));
    /* Bind once to learn the column names and types. */
    arena a;
    arena_init(&a, NULL);
    plan_ctx pc;
    plan_ctx_init(&pc, &a, NULL, exec_fold_const);
    bind_env env;
    engine_bind_env(conn, &env);
    env.params = params;
    env.n_params = n_params;
    bound_query bq;
    int rc = bind_query(&pc, &env, st->u.create_table_as.query, &bq, err);
    cat_column *cols = NULL;
    uint32_t n = rc ? 0 : bq.root->n_out;
    const sql_ident_list *aliases = &st->u.create_table_as.columns;
    if (!rc && aliases->n && (uint32_t)aliases->n != n)
        rc = err_set_at(err, SQE_ERR_MISMATCHED_COLUMN_ALIASES, st->line, st->col,
                        "Column alias list has %d entries but the query has %u columns", aliases->n, n);
    if (!rc) {
        cols = calloc(n + 1, sizeof(cat_column));
        if (!cols) rc = err_nomem(err, "create table");
    }
    for (uint32_t i = 0; !rc && i < n; i++) {
        cols[i].name = (char *)(aliases->n ? aliases->items[i].name : bq.names[i]);
        cols[i].type = bq.root->out[i].type;
        if (cols[i].type.id == TYPE_UNKNOWN)
            rc = err_set_at(err, SQE_ERR_GENERIC_USER_ERROR, st->line, st->col,
                            "Column type is unknown: %s", cols[i].name);
        for (uint32_t j = 0; !rc && j < i; j++)
            if (strcmp(cols[j].name, cols[i].name) == 0)
                rc = err_set_at(err, SQE_ERR_DUPLICATE_COLUMN_NAME, st->line, st->col,
                                "Column name '%s' specified more than once", cols[i].name);
    }
    bool exists = false;
    if (!rc) {
        cat_table *existing;
        cat_view *view;
        exists = catalog_get_table(cat, conn->principal, schema, name, &existing, NULL) == SQE_OK;
        if (exists) cat_table_unref(existing);
        if (!exists && catalog_get_view(cat, schema, name, &view, NULL) == SQE_OK) {
            cat_view_unref(view);
            exists = true; /* as Trino: a view of that name is an existing destination too */
        }
        if (exists && !st->u.create_table_as.if_not_exists)
            rc = err_set_at(err, SQE_ERR_TABLE_ALREADY_EXISTS,
                            st->u.create_table_as.name.parts[0].line,
                            st->u.create_table_as.name.parts[0].col,
                            "Destination table '%s.%s.%s' already exists", cat->name, schema, name);
    }
    cat_table *t = NULL;
    if (!rc && !exists) {
        bool created = false;
        rc = impl->create_table(conn, cat, schema, name, cols, n, &st->u.create_table_as.props,
                                params, n_params, false, &created, err);
        if (!rc) rc = catalog_get_table(cat, conn->principal, schema, name, &t, err);
        if (rc && err && !err->line) {
            err->line = st->u.create_table_as.name.parts[0].line;
            err->column = st->u.create_table_as.name.parts[0].col;
        }
    }
    free(cols);
    plan_ctx_destroy(&pc);
    arena_destroy(&a);
    if (rc || exists) {
        SQE_TRY(rc);
        return engine_result_count(0, out, err);
    }
    int64_t rows = 0;
    if (st->u.create_table_as.with_data) {
        engine_insert_target it = {t, NULL, t->n_columns, st->line, st->col};
        rc = impl->insert(conn, st->u.create_table_as.query, &it, params, n_params, &rows, err);
    }
    cat_table_unref(t);
    if (rc) {
        catalog_drop_table(cat, conn->principal, schema, name, true, NULL);
        return rc;
    }
    return engine_result_count(rows, out, err);
}

/* --- views ---------------------------------------------------------------------------------- */

/* CREATE [OR REPLACE] VIEW name AS query. */
static int create_view(sqe_conn *conn, const sql_stmt *st, sqe_result **out, sqe_error *err) {
    const sql_qname *qn = &st->u.create_view.name;
    bool or_replace = st->u.create_view.or_replace;
    catalog *cat;
    const char *schema, *name;
    SQE_TRY(resolve_table(conn, qn, &cat, &schema, &name, err));
    if (st->n_params > 0)
        return err_set_at(err, SQE_ERR_NOT_SUPPORTED, st->line, st->col,
                          "Parameters are not allowed in a view definition");
    /* Name conflicts first, as they are cheaper than the query (re-checked on creation). */
    if (!catalog_has_schema(cat, conn->principal, schema)) /* the connector's answer in Trino */
        return err_set_at(err, engine_catalog_impl(cat)->missing_schema_code,
                          qn->parts[0].line, qn->parts[0].col, "Schema %s not found", schema);
    cat_table *t;
    cat_view *v;
    if (catalog_get_table(cat, conn->principal, schema, name, &t, NULL) == SQE_OK) {
        cat_table_unref(t);
        return err_set_at(err, SQE_ERR_TABLE_ALREADY_EXISTS, qn->parts[0].line, qn->parts[0].col,
                          "Table already exists: '%s.%s.%s'", cat->name, schema, name);
    }
    if (!or_replace && catalog_get_view(cat, schema, name, &v, NULL) == SQE_OK) {
        cat_view_unref(v);
        return err_set_at(err, SQE_ERR_TABLE_ALREADY_EXISTS, qn->parts[0].line, qn->parts[0].col,
                          "View already exists: '%s.%s.%s'", cat->name, schema, name);
    }
    arena a;
    arena_init(&a, NULL);
    plan_ctx pc;
    plan_ctx_init(&pc, &a, NULL, exec_fold_const);
    bind_env env;
    engine_bind_env(conn, &env);
    bound_query bq;
    int rc = bind_view_definition(&pc, &env, cat->name, schema, name, st->u.create_view.query,
                                  &bq, err);
    uint32_t n = rc ? 0 : bq.root->n_out;
    cat_column *cols = rc ? NULL : calloc(n + 1, sizeof(cat_column));
    if (!rc && !cols) rc = err_nomem(err, "create view");
    /* Trino: every column needs a name, a distinct one, and a known type. */
    for (uint32_t i = 0; !rc && i < n; i++) {
        cols[i].name = (char *)bq.names[i];
        cols[i].type = bq.root->out[i].type;
        if (!cols[i].name)
            rc = err_set_at(err, SQE_ERR_GENERIC_USER_ERROR, st->line, st->col,
                            "Column name not specified at position %u", i + 1);
        for (uint32_t j = 0; !rc && j < i; j++)
            if (strcmp(cols[j].name, cols[i].name) == 0)
                rc = err_set_at(err, SQE_ERR_DUPLICATE_COLUMN_NAME, st->line, st->col,
                                "Column name '%s' specified more than once", cols[i].name);
        if (!rc && cols[i].type.id == TYPE_UNKNOWN)
            rc = err_set_at(err, SQE_ERR_GENERIC_USER_ERROR, st->line, st->col,
                            "Column type is unknown: %s", cols[i].name);
    }
    if (!rc) {
        cat_view def;
        memset(&def, 0, sizeof def);
        def.schema = (char *)schema;
        def.name = (char *)name;
        def.sql = (char *)st->u.create_view.text;
        def.ctx_catalog = conn->catalog;
        def.ctx_schema = conn->schema;
        def.columns = cols;
        def.n_columns = n;
        def.comment = (char *)st->u.create_view.comment;
        rc = catalog_create_view(cat, &def, or_replace, err);
        if (rc) at_name(err, qn);
    }
    free(cols);
    plan_ctx_destroy(&pc);
    arena_destroy(&a);
    SQE_TRY(rc);
    return ok_result(out, err);
}

static int drop_view(sqe_conn *conn, const sql_stmt *st, sqe_result **out, sqe_error *err) {
    catalog *cat;
    const char *schema, *name;
    SQE_TRY(resolve_table(conn, &st->u.drop.name, &cat, &schema, &name, err));
    int rc = catalog_drop_view(cat, schema, name, st->u.drop.if_exists, err);
    if (rc) {
        at_name(err, &st->u.drop.name);
        return rc;
    }
    return ok_result(out, err);
}

/* --- DELETE / UPDATE: rewrite the table through a query ------------------------------------ */

static int do_delete(sqe_conn *conn, const sql_stmt *st, const vec *const *params,
                     uint32_t n_params,
                     sqe_result **out, sqe_error *err) {
    catalog *cat;
    const char *schema, *name;
    cat_table *t;
    SQE_TRY(get_table_at(conn, &st->u.delete_.table, "Deleting from views is not supported", &cat,
                         &schema, &name, &t, err));
    int64_t n = 0;
    int rc = engine_table_impl_of(t)->delete_rows(conn, t, &st->u.delete_.table,
                                                  st->u.delete_.where, params, n_params, &n, err);
    cat_table_unref(t);
    SQE_TRY(rc);
    return engine_result_count(n, out, err);
}

static int do_update(sqe_conn *conn, const sql_stmt *st, const vec *const *params,
                     uint32_t n_params,
                     sqe_result **out, sqe_error *err) {
    catalog *cat;
    const char *schema, *name;
    cat_table *t;
    SQE_TRY(get_table_at(conn, &st->u.update.table, "Updating views is not supported", &cat,
                         &schema, &name, &t, err));
    for (int s = 0; s < st->u.update.n_sets; s++) {
        bool found = false;
        for (uint32_t c = 0; c < t->n_columns; c++)
            found = found || strcmp(t->columns[c].name, st->u.update.sets[s].column.name) == 0;
        if (!found) {
            cat_table_unref(t);
            return err_set_at(err, SQE_ERR_COLUMN_NOT_FOUND, st->u.update.sets[s].column.line,
                              st->u.update.sets[s].column.col, "Column '%s' cannot be resolved",
                              st->u.update.sets[s].column.text);
        }
    }
    int64_t n = 0;
    int rc = engine_table_impl_of(t)->update_rows(conn, t, &st->u.update.table, st->u.update.sets,
                                                  st->u.update.n_sets, st->u.update.where,
                                                  params, n_params, &n, err);
    cat_table_unref(t);
    SQE_TRY(rc);
    return engine_result_count(n, out, err);
}

/* --- schemas, DROP, TRUNCATE, session -------------------------------------------------------- */

static int use_schema(sqe_conn *conn, const sql_stmt *st, sqe_error *err) {
    bind_env env;
    engine_bind_env(conn, &env);
    catalog *cat;
    const char *schema;
    SQE_TRY(bind_resolve_schema_name(&env, &st->u.use, &cat, &schema, err));
    if (!catalog_has_schema(cat, conn->principal, schema))
        return err_set_at(err, SQE_ERR_NOT_FOUND, st->u.use.parts[0].line, /* Trino's UseTask */
                          st->u.use.parts[0].col,
                          "Schema does not exist: %s.%s", cat->name, schema);
    char *c = strdup(cat->name), *s = strdup(schema);
    if (!c || !s) {
        free(c);
        free(s);
        return err_nomem(err, "session");
    }
    free(conn->catalog);
    free(conn->schema);
    conn->catalog = c;
    conn->schema = s;
    return SQE_OK;
}

int engine_ddl(sqe_conn *conn, const sql_stmt *st, const vec *const *params, uint32_t n_params,
               sqe_result **out, sqe_error *err) {
    bind_env env;
    engine_bind_env(conn, &env);
    catalog *cat;
    const char *schema, *name;
    switch (st->kind) {
    case SQL_STMT_CREATE_SCHEMA:
        SQE_TRY(bind_resolve_schema_name(&env, &st->u.create_schema.name, &cat, &schema, err));
        SQE_TRY(catalog_create_schema(cat, conn->principal, schema,
                st->u.create_schema.if_not_exists, err));
        return ok_result(out, err);
    case SQL_STMT_DROP_SCHEMA:
        SQE_TRY(bind_resolve_schema_name(&env, &st->u.drop.name, &cat, &schema, err));
        SQE_TRY(catalog_drop_schema(cat, conn->principal, schema, st->u.drop.if_exists,
                st->u.drop.cascade, err));
        return ok_result(out, err);
    case SQL_STMT_CREATE_TABLE:
        return create_table(conn, st, out, err);
    case SQL_STMT_CREATE_TABLE_AS:
        return create_table_as(conn, st, params, n_params, out, err);
    case SQL_STMT_CREATE_VIEW:
        return create_view(conn, st, out, err);
    case SQL_STMT_DROP_VIEW:
        return drop_view(conn, st, out, err);
    case SQL_STMT_DROP_TABLE:
        SQE_TRY(resolve_table(conn, &st->u.drop.name, &cat, &schema, &name, err));
        if (catalog_drop_table(cat, conn->principal, schema, name, st->u.drop.if_exists,
            err) != SQE_OK) {
            at_name(err, &st->u.drop.name);
            return err ? err->code : SQE_ERR_TABLE_NOT_FOUND;
        }
        return ok_result(out, err);
    case SQL_STMT_TRUNCATE: {
        cat_table *t;
        SQE_TRY(get_table_at(conn, &st->u.drop.name, "Cannot truncate a view", &cat, &schema, &name,
                             &t, err));
        int64_t rows;
        int rc = engine_table_impl_of(t)->truncate(conn, t, &rows, err);
        cat_table_unref(t);
        SQE_TRY(rc);
        return ok_result(out, err);
    }
    case SQL_STMT_INSERT:
        return do_insert(conn, st, params, n_params, out, err);
    case SQL_STMT_DELETE:
        return do_delete(conn, st, params, n_params, out, err);
    case SQL_STMT_UPDATE:
        return do_update(conn, st, params, n_params, out, err);
    case SQL_STMT_USE:
        SQE_TRY(use_schema(conn, st, err));
        return ok_result(out, err);
    case SQL_STMT_ALTER_TABLE: {
        cat_table *t;
        int rc = resolve_table(conn, &st->u.alter.table, &cat, &schema, &name, err);
        if (!rc) rc = catalog_get_table(cat, conn->principal, schema, name, &t, err);
        if (rc) {
            if (rc == SQE_ERR_TABLE_NOT_FOUND && st->u.alter.if_exists) return ok_result(out, err);
            at_name(err, &st->u.alter.table);
            return rc;
        }
        const engine_table_impl *impl = engine_table_impl_of(t);
        if (impl->alter) rc = impl->alter(conn, cat, t, st, params, n_params, err);
        else rc = err_set_at(err, SQE_ERR_NOT_SUPPORTED, st->line, st->col,
                             "ALTER TABLE is not supported by the %s catalog", impl->type);
        cat_table_unref(t);
        SQE_TRY(rc);
        return ok_result(out, err);
    }
    default:
        return err_set_at(err, SQE_ERR_NOT_SUPPORTED, st->line, st->col,
                          "Statement is not supported");
    }
}
