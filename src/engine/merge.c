/*
 * merge.c: MERGE INTO target USING source ON cond WHEN ... : the planning both catalogs share,
 * the routing of the joined rows through the WHEN cases, and MERGE on memory tables.
 *
 * INTERFACE: merge_plan_build, merge_run, engine_merge_memory (merge_int.h), engine_merge.
 * NOTES
 *   Trino's semantics: one query joins the target's rows (with their identity and a presence
 *   marker) with the source, and for every joined row the WHEN cases are tried in order, the
 *   first whose kind (MATCHED / NOT MATCHED) and AND condition fit wins:
 *       SELECT <identity>, CAST(CASE WHEN <matched> AND coalesce(c0, false) THEN 0 ...
 *                                    ELSE NULL END AS bigint),
 *              <target columns>, <SET and INSERT values>
 *       FROM (SELECT *, <identity>, true AS "$merge_target" FROM target) AS t
 *            RIGHT JOIN source ON cond                       -- Iceberg
 *            FULL JOIN (SELECT *, true AS "$merge_source" FROM source) AS s ON cond  -- memory
 *   A plan hook casts each value to its column's type (implicit coercions only, like INSERT;
 *   TYPE_MISMATCH otherwise). A target row that more than one source row updates or deletes
 *   fails the statement (MERGE_TARGET_ROW_MULTIPLE_MATCHES in Trino); source rows that match
 *   it but no case do not count. Updated and inserted rows are assembled here, checked against
 *   NOT NULL, and handed on in chunks.
 *   Identity: Iceberg rows by "$path" and "$pos" (ice_merge.c removes them as copy-on-write or
 *   merge-on-read). Memory tables number their rows in the query (row_number() OVER ()); the
 *   FULL JOIN brings back the rows no case touched, which are kept (once per row, even when
 *   several source rows matched it) and the table is rewritten as ddl.c does for UPDATE.
 *   The target (and a memory target's source) become subqueries named by their alias or last
 *   name part, so references written schema.table.col or catalog.schema.table.col are
 *   shortened in the statement's expressions first (subqueries inside them keep their names).
 *   A source that is a join of several relations without an alias is wrapped without a name
 *   on memory targets, so its columns must be referenced unqualified there.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "engine/merge_int.h"
#include "engine/table_impl.h"
#include "iceberg/roaring.h"

/* Trino: MERGE_TARGET_ROW_MULTIPLE_MATCHES (a user error); errcodes.def has no entry yet. */
#define MERGE_MULTIPLE_MATCHES SQE_ERR_MERGE_TARGET_ROW_MULTIPLE_MATCHES

/* ---- AST pieces ----------------------------------------------------------------------------- */

static sql_ident *ident(arena *a, const char *name) {
    sql_ident *id = ARENA_NEW(a, sql_ident);
    if (!id) return NULL;
    id->name = id->text = name;
    id->quoted = true;
    return id;
}

/* qual.name (qual may be NULL: name alone). */
static sql_expr *qualified(arena *a, const char *qual, const char *name) {
    if (!qual) return dml_ast_name(a, name);
    sql_expr *e = ARENA_NEW(a, sql_expr);
    sql_ident *parts = ARENA_ARRAY(a, sql_ident, 2);
    if (!e || !parts) return NULL;
    parts[0].name = parts[0].text = qual;
    parts[1].name = parts[1].text = name;
    parts[0].quoted = parts[1].quoted = true;
    e->kind = SQL_EXPR_NAME;
    e->u.name.parts = parts;
    e->u.name.n_parts = 2;
    return e;
}

static sql_expr *int_literal(arena *a, int64_t v) {
    sql_expr *e = ARENA_NEW(a, sql_expr);
    if (!e) return NULL;
    e->kind = SQL_EXPR_INTEGER;
    e->u.num.ival = v;
    e->u.num.text = arena_sprintf(a, "%lld", (long long)v);
    return e->u.num.text ? e : NULL;
}

static sql_expr *true_literal(arena *a) {
    sql_expr *e = ARENA_NEW(a, sql_expr);
    if (!e) return NULL;
    e->kind = SQL_EXPR_BOOL;
    e->u.bool_value = true;
    return e;
}

/* row_number() OVER () */
static sql_expr *row_number(arena *a) {
    sql_expr *c = ARENA_NEW(a, sql_expr);
    sql_window_spec *w = ARENA_NEW(a, sql_window_spec);
    sql_ident *id = ident(a, "row_number");
    if (!c || !w || !id) return NULL;
    id->quoted = false;
    c->kind = SQL_EXPR_CALL;
    c->u.call.name.parts = id;
    c->u.call.name.n_parts = 1;
    c->u.call.over = w;
    return c;
}

static void set_item(sql_select_item *it, sql_expr *e, sql_ident *alias) {
    it->kind = SQL_SELECT_EXPR;
    it->expr = e;
    it->alias = alias;
}

/* SELECT items FROM rel. */
static sql_query *select_from(arena *a, sql_relation *rel, sql_select_item *items, int n) {
    sql_query *q = ARENA_NEW(a, sql_query);
    sql_relation **from = ARENA_ARRAY(a, sql_relation *, 1);
    if (!q || !from || !rel) return NULL;
    from[0] = rel;
    q->kind = SQL_QUERY_SELECT;
    q->u.select.items = items;
    q->u.select.n_items = n;
    q->u.select.from = from;
    q->u.select.n_from = 1;
    return q;
}

static sql_relation *subquery(arena *a, sql_query *q, const char *alias) {
    sql_relation *r = ARENA_NEW(a, sql_relation);
    if (!r || !q) return NULL;
    r->kind = SQL_REL_SUBQUERY;
    r->u.subquery.query = q;
    if (alias && !(r->alias = ident(a, alias))) return NULL;
    return r;
}

/* ---- qualified names ------------------------------------------------------------------------ */

/* A table the statement wraps in a subquery named `table`: references written schema.table.col
 * or catalog.schema.table.col are shortened to table.col, which is what still resolves. */
typedef struct wrapped_name {
    const char *catalog, *schema, *table;
} wrapped_name;

static void unqualify_list(sql_expr **items, int n, const wrapped_name *w);

static void unqualify(sql_expr *e, const wrapped_name *w) {
    if (!e) return;
    switch (e->kind) {
    case SQL_EXPR_NAME: {
        sql_qname *q = &e->u.name;
        for (int skip = 2; skip >= 1; skip--) {
            if (q->n_parts < skip + 2) continue;
            const sql_ident *p = q->parts;
            bool match = !strcmp(p[skip].name, w->table) && !strcmp(p[skip - 1].name, w->schema) &&
                         (skip == 1 || !strcmp(p[0].name, w->catalog));
            if (match) {
                q->parts += skip;
                q->n_parts -= skip;
                return;
            }
        }
        return;
    }
    case SQL_EXPR_FIELD: unqualify(e->u.field.base, w); return;
    case SQL_EXPR_UNARY: unqualify(e->u.unary.arg, w); return;
    case SQL_EXPR_BINARY:
    case SQL_EXPR_AT_TIME_ZONE:
    case SQL_EXPR_SUBSCRIPT:
        unqualify(e->u.binary.left, w);
        unqualify(e->u.binary.right, w);
        return;
    case SQL_EXPR_AND:
    case SQL_EXPR_OR:
    case SQL_EXPR_ARRAY:
    case SQL_EXPR_GROUPING: unqualify_list(e->u.list.items, e->u.list.n, w); return;
    case SQL_EXPR_IS_NULL: unqualify(e->u.is_null.arg, w); return;
    case SQL_EXPR_BETWEEN:
        unqualify(e->u.between.arg, w);
        unqualify(e->u.between.low, w);
        unqualify(e->u.between.high, w);
        return;
    case SQL_EXPR_IN_LIST:
        unqualify(e->u.in_list.arg, w);
        unqualify_list(e->u.in_list.values.items, e->u.in_list.values.n, w);
        return;
    case SQL_EXPR_IN_SUBQUERY: unqualify(e->u.in_query.arg, w); return;
    case SQL_EXPR_LIKE:
        unqualify(e->u.like.arg, w);
        unqualify(e->u.like.pattern, w);
        unqualify(e->u.like.escape, w);
        return;
    case SQL_EXPR_QUANTIFIED: unqualify(e->u.quantified.arg, w); return;
    case SQL_EXPR_CALL:
        unqualify_list(e->u.call.args.items, e->u.call.args.n, w);
        unqualify(e->u.call.filter, w);
        return;
    case SQL_EXPR_CAST: unqualify(e->u.cast.arg, w); return;
    case SQL_EXPR_CASE:
        unqualify(e->u.case_.operand, w);
        for (int i = 0; i < e->u.case_.n_whens; i++) {
            unqualify(e->u.case_.whens[i].cond, w);
            unqualify(e->u.case_.whens[i].result, w);
        }
        unqualify(e->u.case_.else_result, w);
        return;
    case SQL_EXPR_EXTRACT: unqualify(e->u.extract.arg, w); return;
    case SQL_EXPR_ROW: unqualify_list(e->u.row.items.items, e->u.row.items.n, w); return;
    case SQL_EXPR_LAMBDA: unqualify(e->u.lambda.body, w); return;
    default: return; /* literals, parameters, subqueries (their own scope) */
    }
}

static void unqualify_list(sql_expr **items, int n, const wrapped_name *w) {
    for (int i = 0; i < n; i++) unqualify(items[i], w);
}

/* Shortens references to the table `qn` in every expression of the statement. */
static int unqualify_stmt(sqe_conn *conn, const sql_stmt *st, const sql_qname *qn,
                          sqe_error *err) {
    bind_env env;
    engine_bind_env(conn, &env);
    catalog *cat;
    wrapped_name w;
    SQE_TRY(bind_resolve_table_name(&env, qn, &cat, &w.schema, &w.table, err));
    w.catalog = cat->name;
    unqualify(st->u.merge.on, &w);
    for (int k = 0; k < st->u.merge.n_cases; k++) {
        const sql_merge_case *mc = &st->u.merge.cases[k];
        unqualify(mc->cond, &w);
        for (int s = 0; s < mc->n_sets; s++) unqualify(mc->sets[s].value, &w);
        unqualify_list(mc->values.items, mc->values.n, &w);
    }
    return SQE_OK;
}

/* ---- analysis -------------------------------------------------------------------------------- */

static int column_index(const cat_table *t, const char *name) {
    for (uint32_t c = 0; c < t->n_columns; c++)
        if (!strcmp(t->columns[c].name, name)) return (int)c;
    return -1;
}

/* Fills case_src for case k and appends its values. */
static int analyse_case(const sql_merge_case *mc, cat_table *t, merge_plan *p,
                        sql_expr **values, int *src, sqe_error *err) {
    uint32_t n = t->n_columns;
    if (mc->action == SQL_MERGE_DELETE) return SQE_OK;
    if (mc->action == SQL_MERGE_UPDATE) {
        for (uint32_t c = 0; c < n; c++) src[c] = MERGE_SRC_TARGET;
        for (int s = 0; s < mc->n_sets; s++) {
            const sql_ident *col = &mc->sets[s].column;
            int ci = column_index(t, col->name);
            if (ci < 0)
                return err_set_at(err, SQE_ERR_COLUMN_NOT_FOUND, col->line, col->col,
                                  "Column '%s' cannot be resolved", col->text);
            if (src[ci] != MERGE_SRC_TARGET)
                return err_set_at(err, SQE_ERR_DUPLICATE_COLUMN_NAME, col->line, col->col,
                                  "Merge column name is specified more than once: %s", col->text);
            src[ci] = (int)p->n_values;
            p->value_col[p->n_values] = ci;
            values[p->n_values++] = mc->sets[s].value;
        }
        return SQE_OK;
    }
    for (uint32_t c = 0; c < n; c++) src[c] = MERGE_SRC_NULL;
    const sql_ident_list *cl = &mc->columns;
    uint32_t n_cols = cl->n ? (uint32_t)cl->n : n;
    if ((uint32_t)mc->values.n != n_cols)
        return err_set_at(err, SQE_ERR_TYPE_MISMATCH, mc->line, mc->col,
                          "MERGE INSERT has %d values but %u target columns", mc->values.n,
                          n_cols);
    for (uint32_t k = 0; k < n_cols; k++) {
        int ci = (int)k;
        if (cl->n) {
            const sql_ident *col = &cl->items[k];
            ci = column_index(t, col->name);
            if (ci < 0)
                return err_set_at(err, SQE_ERR_COLUMN_NOT_FOUND, col->line, col->col,
                                  "Insert column name does not exist in target table: %s",
                                  col->text);
            if (src[ci] != MERGE_SRC_NULL)
                return err_set_at(err, SQE_ERR_DUPLICATE_COLUMN_NAME, col->line, col->col,
                                  "Insert column name is specified more than once: %s",
                                  col->text);
        }
        src[ci] = (int)p->n_values;
        p->value_col[p->n_values] = ci;
        values[p->n_values++] = mc->values.items[k];
    }
    return SQE_OK;
}

/* The WHEN conditions as one CASE giving the case number (NULL when none applies). */
static sql_expr *case_number(arena *a, const sql_stmt *st, const char *tname, const char *sname,
                             bool full_join) {
    int n = st->u.merge.n_cases;
    sql_expr *ce = ARENA_NEW(a, sql_expr);
    sql_when *whens = ARENA_ARRAY(a, sql_when, n + 1);
    if (!ce || !whens) return NULL;
    for (int k = 0; k < n; k++) {
        const sql_merge_case *mc = &st->u.merge.cases[k];
        sql_expr *present = dml_ast_is_true(a, qualified(a, tname, "$merge_target"));
        sql_expr *cond;
        if (mc->matched) {
            cond = present;
            if (full_join)
                cond = dml_ast_and(a, cond,
                                   dml_ast_is_true(a, qualified(a, sname, "$merge_source")));
        } else {
            cond = dml_ast_not(a, present);
        }
        if (mc->cond) cond = dml_ast_and(a, cond, dml_ast_is_true(a, mc->cond));
        whens[k].cond = cond;
        whens[k].result = int_literal(a, k);
        if (!cond || !whens[k].result) return NULL;
    }
    ce->kind = SQL_EXPR_CASE;
    ce->u.case_.whens = whens;
    ce->u.case_.n_whens = n;
    return dml_ast_cast(a, ce, type_make(TYPE_BIGINT));
}

int merge_plan_build(arena *a, const sql_stmt *st, cat_table *t, bool iceberg, merge_plan *out,
                     sqe_error *err) {
    memset(out, 0, sizeof *out);
    out->st = st;
    out->t = t;
    uint32_t n = t->n_columns;
    out->n_columns = n;
    out->n_ids = iceberg ? 2 : 1;
    int n_cases = st->u.merge.n_cases;
    uint32_t max_values = 0;
    for (int k = 0; k < n_cases; k++) {
        const sql_merge_case *mc = &st->u.merge.cases[k];
        bool ok = mc->matched ? mc->action != SQL_MERGE_INSERT : mc->action == SQL_MERGE_INSERT;
        if (!ok)
            return err_set_at(err, SQE_ERR_SYNTAX_ERROR, mc->line, mc->col,
                              mc->matched ? "WHEN MATCHED cannot INSERT"
                                          : "WHEN NOT MATCHED can only INSERT");
        max_values += (uint32_t)(mc->n_sets > 0 ? mc->n_sets : 0) +
                      (uint32_t)(mc->values.n > 0 ? mc->values.n : 0);
    }
    sql_expr **values = ARENA_ARRAY(a, sql_expr *, max_values + 1);
    out->value_col = ARENA_ARRAY(a, int, max_values + 1);
    out->case_src = ARENA_ARRAY(a, int *, n_cases + 1);
    if (!values || !out->value_col || !out->case_src) return err_nomem(err, "merge");
    for (int k = 0; k < n_cases; k++) {
        out->case_src[k] = ARENA_ARRAY(a, int, n + 1);
        if (!out->case_src[k]) return err_nomem(err, "merge");
        SQE_TRY(analyse_case(&st->u.merge.cases[k], t, out, values, out->case_src[k], err));
    }

    /* the target with its identity and presence marker */
    const sql_qname *target = &st->u.merge.target;
    const char *tname = st->u.merge.alias ? st->u.merge.alias->name
                                          : target->parts[target->n_parts - 1].name;
    sql_select_item *ti = ARENA_ARRAY(a, sql_select_item, 4);
    if (!ti) return err_nomem(err, "merge");
    ti[0].kind = SQL_SELECT_STAR;
    int n_ti = 1;
    if (iceberg) {
        set_item(&ti[n_ti++], dml_ast_name(a, "$path"), NULL);
        set_item(&ti[n_ti++], dml_ast_name(a, "$pos"), NULL);
    } else {
        set_item(&ti[n_ti++], row_number(a), ident(a, "$merge_row"));
    }
    set_item(&ti[n_ti++], true_literal(a), ident(a, "$merge_target"));
    for (int i = 1; i < n_ti; i++)
        if (!ti[i].expr) return err_nomem(err, "merge");
    sql_query *tq = dml_ast_select(a, target, ti, n_ti, NULL);
    sql_relation *trel = tq ? subquery(a, tq, tname) : NULL;

    /* the source: as written (Iceberg), or with a presence marker (memory) */
    sql_relation *src = st->u.merge.source;
    const char *sname = NULL;
    if (!iceberg) {
        if (src->alias)
            sname = src->alias->name;
        else if (src->kind == SQL_REL_TABLE)
            sname = src->u.table.name.parts[src->u.table.name.n_parts - 1].name;
        sql_select_item *si = ARENA_ARRAY(a, sql_select_item, 2);
        if (!si) return err_nomem(err, "merge");
        si[0].kind = SQL_SELECT_STAR;
        set_item(&si[1], true_literal(a), ident(a, "$merge_source"));
        src = subquery(a, si[1].expr && si[1].alias ? select_from(a, st->u.merge.source, si, 2)
                                                    : NULL,
                       sname);
    }
    sql_relation *join = ARENA_NEW(a, sql_relation);
    if (!trel || !src || !join) return err_nomem(err, "merge");
    join->kind = SQL_REL_JOIN;
    join->line = st->line;
    join->col = st->col;
    join->u.join.type = iceberg ? SQL_JOIN_RIGHT : SQL_JOIN_FULL;
    join->u.join.left = trel;
    join->u.join.right = src;
    join->u.join.on = st->u.merge.on;

    /* identity, case number, target columns, values */
    uint32_t n_items = out->n_ids + 1 + n + out->n_values;
    sql_select_item *items = ARENA_ARRAY(a, sql_select_item, n_items);
    if (!items) return err_nomem(err, "merge");
    uint32_t i = 0;
    if (iceberg) {
        set_item(&items[i++], qualified(a, tname, "$path"), NULL);
        set_item(&items[i++], qualified(a, tname, "$pos"), NULL);
    } else {
        set_item(&items[i++], qualified(a, tname, "$merge_row"), NULL);
    }
    set_item(&items[i++], case_number(a, st, tname, sname, !iceberg), NULL);
    for (uint32_t c = 0; c < n; c++) set_item(&items[i++], qualified(a, tname, t->columns[c].name), NULL);
    for (uint32_t v = 0; v < out->n_values; v++) set_item(&items[i++], values[v], NULL);
    for (i = 0; i < n_items; i++)
        if (!items[i].expr) return err_nomem(err, "merge");
    out->query = select_from(a, join, items, (int)n_items);
    return out->query ? SQE_OK : err_nomem(err, "merge");
}

/* ---- running: casts, case routing, row assembly ---------------------------------------------- */

/* Plan hook: casts the values to their columns' types. */
static int cast_values(void *ud, plan_ctx *pc, bound_query *bq, sqe_error *err) {
    const merge_plan *p = ud;
    const cat_table *t = p->t;
    uint32_t first = p->n_ids + 1 + p->n_columns, n_out = first + p->n_values;
    if (bq->root->n_out != n_out)
        return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "MERGE query has %u columns, not %u",
                       bq->root->n_out, n_out);
    bexpr **exprs = ARENA_ARRAY(pc->arena, bexpr *, n_out);
    plan *proj = plan_new(pc, PLAN_PROJECT, 1, n_out);
    if (!exprs || !proj || pc->failed) return err_nomem(err, "merge");
    for (uint32_t c = 0; c < n_out; c++) {
        const plan_col *qc = &bq->root->out[c];
        bexpr *e = bexpr_column(pc, qc->id, qc->type);
        if (!e) return err_nomem(err, "merge");
        sqe_type to = qc->type;
        if (c >= first) {
            const cat_column *col = &t->columns[p->value_col[c - first]];
            to = col->type;
            if (bind_cast_to(pc, e, to, false, &e, NULL) != SQE_OK) {
                char want[128], got[128];
                type_format(to, want, sizeof want);
                type_format(qc->type, got, sizeof got);
                const sql_expr *v = p->query->u.select.items[c].expr;
                return err_set_at(err, SQE_ERR_TYPE_MISMATCH, v->line, v->col,
                                  "MERGE table column types don't match for column %s: Table: "
                                  "[%s], Expression: [%s]",
                                  col->name, want, got);
            }
        }
        exprs[c] = e;
        proj->out[c].id = plan_new_col(pc);
        proj->out[c].type = to;
        proj->out[c].name = qc->name;
    }
    proj->children[0] = bq->root;
    proj->u.project.exprs = exprs;
    bq->root = proj;
    return pc->failed ? err_nomem(err, "merge") : SQE_OK;
}

typedef struct merge_exec {
    const merge_plan *p;
    const merge_target_ops *ops;
    vec_chunk out;             /* rows being assembled (the table's columns) */
    int64_t changed;
} merge_exec;

static int flush(merge_exec *x, sqe_error *err) {
    if (!x->out.count) return SQE_OK;
    int rc = x->ops->emit(x->ops->ud, &x->out, err);
    vec_chunk_reset(&x->out);
    return rc;
}

/* Appends the row case k builds from query row `row`. */
static int emit_row(merge_exec *x, const vec_chunk *c, uint32_t row, int k, sqe_error *err) {
    const merge_plan *p = x->p;
    uint32_t tcol = p->n_ids + 1, vcol = tcol + p->n_columns, at = x->out.count;
    for (uint32_t col = 0; col < p->n_columns; col++) {
        int s = p->case_src[k][col];
        vec *dst = &x->out.cols[col];
        const vec *src = s == MERGE_SRC_NULL ? NULL
                         : s == MERGE_SRC_TARGET ? &c->cols[tcol + col]
                                                 : &c->cols[vcol + (uint32_t)s];
        bool null = !src || vec_is_null(src, row);
        if (null && p->t->columns[col].not_null)
            return err_set_at(err, SQE_ERR_CONSTRAINT_VIOLATION, p->st->line, p->st->col,
                              "NULL value not allowed for NOT NULL column: %s",
                              p->t->columns[col].name);
        if (null) {
            if (vec_set_null(dst, at)) return err_nomem(err, "merge");
        } else {
            SQE_TRY(vec_copy_row(dst, at, src, row, err));
        }
    }
    x->out.count++;
    return x->out.count == x->out.capacity ? flush(x, err) : SQE_OK;
}

static int merge_sink(void *ud, const vec_chunk *c, sqe_error *err) {
    merge_exec *x = ud;
    const merge_plan *p = x->p;
    const sql_stmt *st = p->st;
    for (uint32_t row = 0; row < c->count; row++) {
        uint32_t phys;
        const vec *cv = vec_resolve(&c->cols[p->n_ids], row, &phys);
        int64_t k = vec_is_null(&c->cols[p->n_ids], row) ? -1 : VEC_DATA(cv, int64_t)[phys];
        if (k < 0 || k >= st->u.merge.n_cases) {
            if (x->ops->keep && !vec_is_null(&c->cols[0], row))
                SQE_TRY(x->ops->keep(x->ops->ud, c, row, err));
            continue;
        }
        const sql_merge_case *mc = &st->u.merge.cases[k];
        if (mc->matched) {
            bool added = false;
            SQE_TRY(x->ops->mark(x->ops->ud, c, row, &added, err));
            if (!added)
                return err_set_at(err, MERGE_MULTIPLE_MATCHES, st->line, st->col,
                                  "One MERGE target table row matched more than one source row");
        }
        x->changed++;
        if (mc->action != SQL_MERGE_DELETE) SQE_TRY(emit_row(x, c, row, (int)k, err));
    }
    return SQE_OK;
}

int merge_run(sqe_conn *conn, const merge_plan *p, const vec *const *params, uint32_t n_params,
              const merge_target_ops *ops, int64_t *changed, sqe_error *err) {
    *changed = 0;
    merge_exec x = {.p = p, .ops = ops};
    sqe_type *types = calloc(p->n_columns + 1, sizeof *types);
    if (!types) return err_nomem(err, "merge");
    for (uint32_t c = 0; c < p->n_columns; c++) types[c] = p->t->columns[c].type;
    int rc = vec_chunk_init(&x.out, p->n_columns, types, VEC_CHUNK_SIZE, NULL, err);
    free(types);
    if (!rc)
        rc = engine_dml_run(conn, p->query, params, n_params, cast_values, (void *)p, merge_sink,
                            &x, err);
    if (!rc) rc = flush(&x, err);
    vec_chunk_destroy(&x.out);
    if (!rc) *changed = x.changed;
    return rc;
}

/* ---- memory tables --------------------------------------------------------------------------- */

typedef struct mem_merge {
    const merge_plan *p;
    cat_append ap;             /* the table's new rows */
    ice_roaring changed;       /* row numbers updated or deleted */
    ice_roaring kept;          /* row numbers no case touched (seen) */
    vec_chunk **kbuf;          /* those rows: the table's columns, then the row number */
    uint32_t n_kbuf, cap_kbuf;
} mem_merge;

static int64_t row_id(const vec_chunk *c, uint32_t row) {
    uint32_t phys;
    const vec *v = vec_resolve(&c->cols[0], row, &phys);
    return VEC_DATA(v, int64_t)[phys];
}

static int mem_mark(void *ud, const vec_chunk *c, uint32_t row, bool *added, sqe_error *err) {
    mem_merge *m = ud;
    uint64_t id = (uint64_t)row_id(c, row);
    *added = !ice_roaring_contains(&m->changed, id);
    return *added ? ice_roaring_add(&m->changed, id, err) : SQE_OK;
}

static int mem_keep(void *ud, const vec_chunk *c, uint32_t row, sqe_error *err) {
    mem_merge *m = ud;
    const merge_plan *p = m->p;
    uint64_t id = (uint64_t)row_id(c, row);
    if (ice_roaring_contains(&m->kept, id)) return SQE_OK;
    SQE_TRY(ice_roaring_add(&m->kept, id, err));
    vec_chunk *b = m->n_kbuf ? m->kbuf[m->n_kbuf - 1] : NULL;
    if (!b || b->count == b->capacity) {
        if (m->n_kbuf == m->cap_kbuf) {
            uint32_t cap = m->cap_kbuf ? m->cap_kbuf * 2 : 8;
            vec_chunk **g = realloc(m->kbuf, cap * sizeof *g);
            if (!g) return err_nomem(err, "merge");
            m->kbuf = g;
            m->cap_kbuf = cap;
        }
        sqe_type types[p->n_columns + 1];
        for (uint32_t col = 0; col < p->n_columns; col++) types[col] = p->t->columns[col].type;
        types[p->n_columns] = type_make(TYPE_BIGINT);
        b = calloc(1, sizeof *b);
        if (!b) return err_nomem(err, "merge");
        if (vec_chunk_init(b, p->n_columns + 1, types, VEC_CHUNK_SIZE, NULL, err)) {
            vec_chunk_destroy(b);
            free(b);
            return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
        }
        m->kbuf[m->n_kbuf++] = b;
    }
    for (uint32_t col = 0; col < p->n_columns; col++)
        SQE_TRY(vec_copy_row(&b->cols[col], b->count, &c->cols[p->n_ids + 1 + col], row, err));
    VEC_DATA(&b->cols[p->n_columns], int64_t)[b->count] = (int64_t)id;
    b->count++;
    return SQE_OK;
}

static int mem_emit(void *ud, const vec_chunk *rows, sqe_error *err) {
    mem_merge *m = ud;
    return cat_append_chunk(&m->ap, rows, err);
}

/* Appends the kept rows no case changed after all. */
static int mem_add_kept(mem_merge *m, sqe_error *err) {
    uint32_t n_cols = m->p->n_columns;
    vec *views = calloc(n_cols + 1, sizeof *views);
    uint32_t *sel = calloc(VEC_CHUNK_SIZE, sizeof *sel);
    int rc = views && sel ? SQE_OK : err_nomem(err, "merge");
    for (uint32_t i = 0; !rc && i < m->n_kbuf; i++) {
        const vec_chunk *b = m->kbuf[i];
        uint32_t n = 0;
        for (uint32_t row = 0; row < b->count; row++)
            if (!ice_roaring_contains(&m->changed,
                                      (uint64_t)VEC_DATA(&b->cols[n_cols], int64_t)[row]))
                sel[n++] = row;
        if (!n) continue;
        for (uint32_t col = 0; col < n_cols; col++) {
            vec_set_dict(&views[col], &b->cols[col], sel);
            views[col].type = b->cols[col].type;
            views[col].capacity = n;
        }
        vec_chunk kept = {.n_cols = n_cols, .count = n, .capacity = n, .cols = views};
        rc = cat_append_chunk(&m->ap, &kept, err);
    }
    free(views);
    free(sel);
    return rc;
}

int engine_merge_memory(sqe_conn *conn, cat_table *t, const merge_plan *p,
                        const vec *const *params, uint32_t n_params, int64_t *rows,
                        sqe_error *err) {
    mem_merge m = {.p = p};
    cat_append_init(&m.ap, t);
    ice_roaring_init(&m.changed);
    ice_roaring_init(&m.kept);
    merge_target_ops ops = {mem_mark, mem_keep, mem_emit, &m};
    int rc = merge_run(conn, p, params, n_params, &ops, rows, err);
    if (!rc) rc = mem_add_kept(&m, err);
    if (!rc) {
        cat_table_truncate(t);
        rc = cat_append_commit(&m.ap, err);
    } else {
        cat_append_abort(&m.ap);
    }
    for (uint32_t i = 0; i < m.n_kbuf; i++) {
        vec_chunk_destroy(m.kbuf[i]);
        free(m.kbuf[i]);
    }
    free(m.kbuf);
    ice_roaring_reset(&m.changed);
    ice_roaring_reset(&m.kept);
    return rc;
}

/* ---- the statement ----------------------------------------------------------------------------- */

/* The target table (a new reference); errors point at its name. */
static int merge_target(sqe_conn *conn, const sql_qname *qn, cat_table **t, sqe_error *err) {
    bind_env env;
    engine_bind_env(conn, &env);
    catalog *cat;
    const char *schema, *name;
    int rc = bind_resolve_table_name(&env, qn, &cat, &schema, &name, err);
    if (!rc) rc = catalog_get_table(cat, conn->principal, schema, name, t, err);
    if (rc == SQE_ERR_TABLE_NOT_FOUND) {
        cat_view *v;
        if (catalog_get_view(cat, schema, name, &v, NULL) == SQE_OK) {
            cat_view_unref(v);
            rc = err_set(err, SQE_ERR_NOT_SUPPORTED, "Merging into views is not supported");
        }
    }
    if (rc && err && !err->line) {
        err->line = qn->parts[0].line;
        err->column = qn->parts[0].col;
    }
    return rc;
}

int engine_merge(sqe_conn *conn, const sql_stmt *st, const vec *const *params, uint32_t n_params,
                 sqe_result **out, sqe_error *err) {
    *out = NULL;
    cat_table *t;
    SQE_TRY(merge_target(conn, &st->u.merge.target, &t, err));
    arena a;
    arena_init(&a, NULL);
    merge_plan p;
    int64_t rows = 0;
    /* the target (and, on memory tables, a source table) become subqueries named by their
       last name part: references through longer names are shortened to match */
    int rc = st->u.merge.alias ? SQE_OK : unqualify_stmt(conn, st, &st->u.merge.target, err);
    const sql_relation *src = st->u.merge.source;
    const engine_table_impl *impl = engine_table_impl_of(t);
    if (!rc && !impl->merge_by_position && src->kind == SQL_REL_TABLE && !src->alias)
        rc = unqualify_stmt(conn, st, &src->u.table.name, err);
    if (!rc) rc = merge_plan_build(&a, st, t, impl->merge_by_position, &p, err);
    if (!rc) rc = impl->merge(conn, t, &p, params, n_params, &rows, err);
    arena_destroy(&a);
    cat_table_unref(t);
    SQE_TRY(rc);
    return engine_result_count(rows, out, err);
}
