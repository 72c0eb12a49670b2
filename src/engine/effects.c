/*
 * effects.c: what a statement did, for sqe_effects.h: its kind and Trino update type from the
 * syntax tree, the session changes the statement handlers record, and the tables read (told by
 * the binder through bind_env.access, with the columns the optimized plan still reads) and
 * written (the DML and DDL targets, with the Iceberg snapshot after the write).
 *
 * INTERFACE: engine_effects_begin/plan_done/change/finish/clear, engine_statement_kind
 *   (engine.h); sqe_statement_kind_name, sqe_result_statement_kind, sqe_result_returns_rows,
 *   sqe_result_update_type, sqe_result_session_change(_count), sqe_result_table(_count),
 *   sqe_statement_classify (sqe_effects.h).
 * NOTES: recording never fails a statement: out of memory marks the report partial
 *   (engine_effects.failed) and drops the entry. The snapshot a write produced is read back from
 *   the catalog after the statement (one table load): the Iceberg writers do not hand it out yet.
 */
#include <stdlib.h>
#include <string.h>

#include "catalog/catalog_iceberg.h"
#include "engine/engine.h"
#include "sqe/sqe_values.h"

/* ---- statement kinds ------------------------------------------------------------------------ */

typedef struct kind_info {
    sqe_statement_kind kind;
    bool rows;
    const char *update_type;
} kind_info;

static kind_info kind_of(uint8_t k) {
    switch ((sql_stmt_kind)k) {
    case SQL_STMT_QUERY: return (kind_info){SQE_STATEMENT_QUERY, true, ""};
    case SQL_STMT_EXPLAIN: return (kind_info){SQE_STATEMENT_EXPLAIN, true, ""};
    case SQL_STMT_SHOW: return (kind_info){SQE_STATEMENT_SHOW, true, ""};
    case SQL_STMT_DESCRIBE_INPUT:
    case SQL_STMT_DESCRIBE_OUTPUT: return (kind_info){SQE_STATEMENT_DESCRIBE, true, ""};
    case SQL_STMT_COPY: return (kind_info){SQE_STATEMENT_COPY, false, ""};
    case SQL_STMT_CREATE_SCHEMA: return (kind_info){SQE_STATEMENT_CREATE_SCHEMA, false, "CREATE SCHEMA"};
    case SQL_STMT_DROP_SCHEMA: return (kind_info){SQE_STATEMENT_DROP_SCHEMA, false, "DROP SCHEMA"};
    case SQL_STMT_CREATE_TABLE: return (kind_info){SQE_STATEMENT_CREATE_TABLE, false, "CREATE TABLE"};
    case SQL_STMT_CREATE_TABLE_AS:
        return (kind_info){SQE_STATEMENT_CREATE_TABLE_AS, false, "CREATE TABLE"};
    case SQL_STMT_DROP_TABLE: return (kind_info){SQE_STATEMENT_DROP_TABLE, false, "DROP TABLE"};
    case SQL_STMT_INSERT: return (kind_info){SQE_STATEMENT_INSERT, false, "INSERT"};
    case SQL_STMT_DELETE: return (kind_info){SQE_STATEMENT_DELETE, false, "DELETE"};
    case SQL_STMT_UPDATE: return (kind_info){SQE_STATEMENT_UPDATE, false, "UPDATE"};
    case SQL_STMT_MERGE: return (kind_info){SQE_STATEMENT_MERGE, false, "MERGE"};
    case SQL_STMT_TRUNCATE: return (kind_info){SQE_STATEMENT_TRUNCATE, false, "TRUNCATE TABLE"};
    case SQL_STMT_ALTER_TABLE: return (kind_info){SQE_STATEMENT_ALTER_TABLE, false, "ALTER TABLE"};
    case SQL_STMT_CREATE_VIEW: return (kind_info){SQE_STATEMENT_CREATE_VIEW, false, "CREATE VIEW"};
    case SQL_STMT_DROP_VIEW: return (kind_info){SQE_STATEMENT_DROP_VIEW, false, "DROP VIEW"};
    case SQL_STMT_USE: return (kind_info){SQE_STATEMENT_USE, false, "USE"};
    case SQL_STMT_SET_SESSION: return (kind_info){SQE_STATEMENT_SET_SESSION, false, "SET SESSION"};
    case SQL_STMT_RESET_SESSION:
        return (kind_info){SQE_STATEMENT_RESET_SESSION, false, "RESET SESSION"};
    case SQL_STMT_PREPARE: return (kind_info){SQE_STATEMENT_PREPARE, false, "PREPARE"};
    case SQL_STMT_DEALLOCATE: return (kind_info){SQE_STATEMENT_DEALLOCATE, false, "DEALLOCATE"};
    case SQL_STMT_EXECUTE: return (kind_info){SQE_STATEMENT_EXECUTE, false, ""};
    case SQL_STMT_START_TRANSACTION:
        return (kind_info){SQE_STATEMENT_START_TRANSACTION, false, "START TRANSACTION"};
    case SQL_STMT_COMMIT: return (kind_info){SQE_STATEMENT_COMMIT, false, "COMMIT"};
    case SQL_STMT_ROLLBACK: return (kind_info){SQE_STATEMENT_ROLLBACK, false, "ROLLBACK"};
    case SQL_STMT_CALL: return (kind_info){SQE_STATEMENT_CALL, false, "CALL"};
    default: break;
    }
    return (kind_info){SQE_STATEMENT_QUERY, true, ""};
}

sqe_statement_kind engine_statement_kind(const sql_stmt *st, bool *returns_rows,
                                         const char **update_type) {
    kind_info k = kind_of(st->kind);
    if (returns_rows) *returns_rows = k.rows;
    if (update_type) *update_type = k.update_type;
    return k.kind;
}

const char *sqe_statement_kind_name(sqe_statement_kind kind) {
    static const char *const names[] = {
        [SQE_STATEMENT_QUERY] = "QUERY",
        [SQE_STATEMENT_INSERT] = "INSERT",
        [SQE_STATEMENT_UPDATE] = "UPDATE",
        [SQE_STATEMENT_DELETE] = "DELETE",
        [SQE_STATEMENT_MERGE] = "MERGE",
        [SQE_STATEMENT_TRUNCATE] = "TRUNCATE",
        [SQE_STATEMENT_CREATE_SCHEMA] = "CREATE SCHEMA",
        [SQE_STATEMENT_DROP_SCHEMA] = "DROP SCHEMA",
        [SQE_STATEMENT_CREATE_TABLE] = "CREATE TABLE",
        [SQE_STATEMENT_CREATE_TABLE_AS] = "CREATE TABLE AS",
        [SQE_STATEMENT_DROP_TABLE] = "DROP TABLE",
        [SQE_STATEMENT_ALTER_TABLE] = "ALTER TABLE",
        [SQE_STATEMENT_CREATE_VIEW] = "CREATE VIEW",
        [SQE_STATEMENT_DROP_VIEW] = "DROP VIEW",
        [SQE_STATEMENT_USE] = "USE",
        [SQE_STATEMENT_SET_SESSION] = "SET SESSION",
        [SQE_STATEMENT_RESET_SESSION] = "RESET SESSION",
        [SQE_STATEMENT_SET_TIME_ZONE] = "SET TIME ZONE",
        [SQE_STATEMENT_PREPARE] = "PREPARE",
        [SQE_STATEMENT_DEALLOCATE] = "DEALLOCATE",
        [SQE_STATEMENT_EXECUTE] = "EXECUTE",
        [SQE_STATEMENT_SHOW] = "SHOW",
        [SQE_STATEMENT_DESCRIBE] = "DESCRIBE",
        [SQE_STATEMENT_EXPLAIN] = "EXPLAIN",
        [SQE_STATEMENT_COPY] = "COPY",
        [SQE_STATEMENT_CALL] = "CALL",
        [SQE_STATEMENT_START_TRANSACTION] = "START TRANSACTION",
        [SQE_STATEMENT_COMMIT] = "COMMIT",
        [SQE_STATEMENT_ROLLBACK] = "ROLLBACK",
    };
    if ((int)kind < 1 || (size_t)kind >= sizeof names / sizeof names[0] || !names[kind])
        return "UNKNOWN";
    return names[kind];
}

/* ---- recording ------------------------------------------------------------------------------ */

static char *dup_or_fail(engine_effects *fx, const char *s) {
    if (!s) return NULL;
    char *d = strdup(s);
    if (!d) fx->failed = true;
    return d;
}

void engine_effects_change(engine_effects *fx, sqe_session_change_kind kind, const char *name,
                           const char *value) {
    if (!fx) return;
    sqe_session_change *c = realloc(fx->changes, (fx->n_changes + 1) * sizeof *c);
    if (!c) {
        fx->failed = true;
        return;
    }
    fx->changes = c;
    char *n = dup_or_fail(fx, name ? name : ""), *v = dup_or_fail(fx, value);
    if (!n || (value && !v)) {
        free(n);
        free(v);
        return;
    }
    c[fx->n_changes++] = (sqe_session_change){kind, n, v};
}

/* The entry for (catalog, schema, table, written, snapshot), added when missing; -1 on out of
 * memory. */
static int table_entry(engine_effects *fx, const char *cat, const char *schema, const char *name,
                       bool written, int64_t snapshot) {
    for (uint32_t i = 0; i < fx->n_tables; i++) {
        const sqe_table_access *a = &fx->tables[i];
        if (a->written == (int)written && a->snapshot_id == snapshot &&
            !strcmp(a->catalog, cat) && !strcmp(a->schema, schema) && !strcmp(a->table, name))
            return (int)i;
    }
    sqe_table_access *t = realloc(fx->tables, (fx->n_tables + 1) * sizeof *t);
    if (!t) {
        fx->failed = true;
        return -1;
    }
    fx->tables = t;
    char *c = dup_or_fail(fx, cat), *s = dup_or_fail(fx, schema), *n = dup_or_fail(fx, name);
    if (!c || !s || !n) {
        free(c);
        free(s);
        free(n);
        return -1;
    }
    t[fx->n_tables] = (sqe_table_access){c, s, n, written, snapshot, 0, NULL};
    return (int)fx->n_tables++;
}

static void add_column(engine_effects *fx, uint32_t ti, const char *col) {
    sqe_table_access *a = &fx->tables[ti];
    if (!col || col[0] == '$') return; /* hidden scan columns ($path, $pos) */
    for (int i = 0; i < a->n_columns; i++)
        if (!strcmp(a->columns[i], col)) return;
    const char **cols = realloc((void *)a->columns, (size_t)(a->n_columns + 1) * sizeof *cols);
    char *c = cols ? dup_or_fail(fx, col) : NULL;
    if (cols) a->columns = cols;
    if (!c) {
        fx->failed = true;
        return;
    }
    cols[a->n_columns++] = c;
}

static const char *node_column(const plan *node, uint32_t i) {
    if (node->kind == PLAN_SCAN) {
        const cat_table *t = node->u.scan.table;
        uint32_t c = node->u.scan.columns[i];
        return t && c < t->n_columns ? t->columns[c].name : NULL;
    }
    if (node->kind == PLAN_TABLE_FUNC) {
        const plan_source *src = node->u.tfunc.source;
        uint32_t c = node->u.tfunc.columns[i];
        return src && src->names && c < src->n_columns ? src->names[c] : NULL;
    }
    return NULL;
}

static void on_table_read(void *ud, const cat_table *t, const plan *node, int64_t snapshot) {
    engine_effects *fx = ud;
    int ti = table_entry(fx, t->catalog, t->schema, t->name, false, snapshot);
    if (ti < 0 || !node || (node->kind != PLAN_SCAN && node->kind != PLAN_TABLE_FUNC)) return;
    struct engine_pending_read *p = realloc(fx->pending, (fx->n_pending + 1) * sizeof *p);
    if (!p) {
        fx->failed = true;
        return;
    }
    fx->pending = p;
    p[fx->n_pending++] = (struct engine_pending_read){node, (uint32_t)ti};
}

void engine_effects_begin(engine_effects *fx) {
    fx->sink.ud = fx;
    fx->sink.table_read = on_table_read;
}

void engine_effects_committed(engine_effects *fx, int64_t snapshot_id) {
    if (fx) fx->committed_snapshot = snapshot_id;
}

void engine_effects_plan_done(engine_effects *fx, uint32_t mark) {
    if (!fx || mark > fx->n_pending) return;
    for (uint32_t k = mark; k < fx->n_pending; k++) {
        const plan *node = fx->pending[k].node;
        for (uint32_t i = 0; i < node->n_out; i++)
            add_column(fx, fx->pending[k].table, node_column(node, i));
    }
    fx->n_pending = mark;
}

/* A written table: its resolved name, the snapshot the statement's commit made (Iceberg; -1 when
 * it committed nothing) and the columns written (INSERT: its column list or all; UPDATE: the SET
 * targets; MERGE, CREATE TABLE AS, ...: none listed). The table is loaded again only for an
 * INSERT without a column list. */
static void note_write(engine_effects *fx, sqe_conn *conn, const sql_stmt *st,
                       const sql_qname *qn, bool exists_after) {
    bind_env env;
    engine_bind_env(conn, &env);
    catalog *cat;
    const char *schema, *name;
    if (bind_resolve_table_name(&env, qn, &cat, &schema, &name, NULL) != SQE_OK) return;
    cat_table *t = NULL;
    int64_t snap = fx->committed_snapshot > 0 ? fx->committed_snapshot : -1;
    if (exists_after && st->kind == SQL_STMT_INSERT && st->u.insert.columns.n == 0 &&
        catalog_get_table(cat, conn->principal, schema, name, &t, NULL) != SQE_OK)
        t = NULL;
    int ti = table_entry(fx, cat->name, schema, name, true, snap);
    if (ti >= 0 && st->kind == SQL_STMT_INSERT) {
        const sql_ident_list *cl = &st->u.insert.columns;
        for (int i = 0; i < cl->n; i++) add_column(fx, (uint32_t)ti, cl->items[i].name);
        for (uint32_t i = 0; t && cl->n == 0 && i < t->n_columns; i++)
            add_column(fx, (uint32_t)ti, t->columns[i].name);
    } else if (ti >= 0 && st->kind == SQL_STMT_UPDATE) {
        for (int i = 0; i < st->u.update.n_sets; i++)
            add_column(fx, (uint32_t)ti, st->u.update.sets[i].column.name);
    }
    if (t) cat_table_unref(t);
}

void engine_effects_finish(engine_effects *fx, sqe_conn *conn, const sql_stmt *st) {
    if (!fx) return;
    if (st->kind == SQL_STMT_EXECUTE) {
        /* the executed statement filled the rest */
        fx->kind = SQE_STATEMENT_EXECUTE;
        return;
    }
    kind_info k = kind_of(st->kind);
    fx->kind = k.kind;
    fx->returns_rows = k.rows;
    fx->update_type = k.update_type;
    switch (st->kind) {
    case SQL_STMT_INSERT: note_write(fx, conn, st, &st->u.insert.table, true); break;
    case SQL_STMT_DELETE: note_write(fx, conn, st, &st->u.delete_.table, true); break;
    case SQL_STMT_UPDATE: note_write(fx, conn, st, &st->u.update.table, true); break;
    case SQL_STMT_MERGE: note_write(fx, conn, st, &st->u.merge.target, true); break;
    case SQL_STMT_TRUNCATE: note_write(fx, conn, st, &st->u.drop.name, true); break;
    case SQL_STMT_CREATE_TABLE: note_write(fx, conn, st, &st->u.create_table.name, true); break;
    case SQL_STMT_CREATE_TABLE_AS:
        note_write(fx, conn, st, &st->u.create_table_as.name, true);
        break;
    case SQL_STMT_ALTER_TABLE: note_write(fx, conn, st, &st->u.alter.table, true); break;
    case SQL_STMT_DROP_TABLE: note_write(fx, conn, st, &st->u.drop.name, false); break;
    case SQL_STMT_USE:
        engine_effects_change(fx, SQE_CHANGE_CATALOG_SCHEMA, sqe_conn_catalog(conn),
                              sqe_conn_schema(conn));
        break;
    case SQL_STMT_PREPARE:
        engine_effects_change(fx, SQE_CHANGE_PREPARED_ADDED, st->u.prepare.name.name,
                              st->u.prepare.text);
        break;
    case SQL_STMT_DEALLOCATE:
        engine_effects_change(fx, SQE_CHANGE_PREPARED_REMOVED, st->u.prepared.name, NULL);
        break;
    default: break;
    }
}

void engine_effects_clear(engine_effects *fx) {
    for (uint32_t i = 0; i < fx->n_changes; i++) {
        free((char *)fx->changes[i].name);
        free((char *)fx->changes[i].value);
    }
    free(fx->changes);
    for (uint32_t i = 0; i < fx->n_tables; i++) {
        sqe_table_access *a = &fx->tables[i];
        free((char *)a->catalog);
        free((char *)a->schema);
        free((char *)a->table);
        for (int c = 0; c < a->n_columns; c++) free((char *)a->columns[c]);
        free((void *)a->columns);
    }
    free(fx->tables);
    free(fx->pending);
    memset(fx, 0, sizeof *fx);
}

/* ---- accessors ------------------------------------------------------------------------------ */

sqe_statement_kind sqe_result_statement_kind(const sqe_result *res) {
    return res->fx.kind ? res->fx.kind : SQE_STATEMENT_QUERY;
}

int sqe_result_returns_rows(const sqe_result *res) {
    return res->fx.kind ? res->fx.returns_rows : res->n_cols > 0;
}

const char *sqe_result_update_type(const sqe_result *res) {
    return res->fx.update_type ? res->fx.update_type : "";
}

int sqe_result_session_change_count(const sqe_result *res) { return (int)res->fx.n_changes; }

const sqe_session_change *sqe_result_session_change(const sqe_result *res, int idx) {
    return idx >= 0 && (uint32_t)idx < res->fx.n_changes ? &res->fx.changes[idx] : NULL;
}

int sqe_result_table_count(const sqe_result *res) { return (int)res->fx.n_tables; }

const sqe_table_access *sqe_result_table(const sqe_result *res, int idx) {
    return idx >= 0 && (uint32_t)idx < res->fx.n_tables ? &res->fx.tables[idx] : NULL;
}

int sqe_statement_classify(sqe_conn *conn, const char *sql, sqe_statement_kind *kind,
                           int *returns_rows, sqe_error *err) {
    arena a;
    arena_init(&a, NULL);
    sql_stmt *st;
    int rc = sql_parse(&a, sql ? sql : "", sql ? strlen(sql) : 0, &st, err);
    bool rows = false;
    sqe_statement_kind k = SQE_STATEMENT_QUERY;
    if (!rc) {
        k = engine_statement_kind(st, &rows, NULL);
        if (st->kind == SQL_STMT_EXECUTE) {
            const char *text = st->u.execute.immediate
                                   ? st->u.execute.immediate
                                   : sqe_conn_prepared_text(conn, st->u.execute.name.name);
            if (!text) {
                rc = err_set_at(err, SQE_ERR_NOT_FOUND, st->line, st->col,
                                "Prepared statement not found: %s", st->u.execute.name.text);
            } else {
                sql_stmt *inner;
                rc = sql_parse(&a, text, strlen(text), &inner, err);
                if (!rc) engine_statement_kind(inner, &rows, NULL);
            }
        }
    }
    arena_destroy(&a);
    if (!rc) {
        if (kind) *kind = k;
        if (returns_rows) *returns_rows = rows;
    }
    return rc;
}
