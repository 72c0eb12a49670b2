/*
 * bind_query.c: query expressions around SELECT blocks: WITH (common table expressions), set
 * operations (UNION / INTERSECT / EXCEPT, DISTINCT or ALL), VALUES, TABLE t, nested queries,
 * and ORDER BY / OFFSET / LIMIT on their results; plus name resolution of tables and schemas
 * against the session.
 *
 * INTERFACE: bind_query, bind_query_node, bind_resolve_table_name, bind_resolve_schema_name,
 *   bind_find_catalog.
 * NOTES: CTEs are inlined: each reference binds the CTE's query afresh (new column ids), which
 * keeps plans trees rather than DAGs. Set operation inputs are cast to the column-wise common
 * super types, as in Trino.
 */
#include "bind/bind_int.h"
#include "common/stack.h"

#include <string.h>

int bind_limit_offset(binder *b, const sql_query *q, plan **p);

catalog *bind_find_catalog(const bind_env *env, const char *name) {
    for (uint32_t i = 0; i < env->n_catalogs; i++)
        if (strcmp(env->catalogs[i]->name, name) == 0) return env->catalogs[i];
    return NULL;
}

int bind_resolve_table_name(const bind_env *env, const sql_qname *name, catalog **cat,
                            const char **schema, const char **table, sqe_error *err) {
    const sql_ident *p = name->parts;
    const sql_ident *last = &p[name->n_parts - 1];
    const char *cat_name = env->catalog;
    *schema = env->schema;
    if (name->n_parts > 3)
        return err_set_at(err, SQE_ERR_SYNTAX_ERROR, p[0].line, p[0].col,
                          "Too many dots in table name: %s", last->text);
    if (name->n_parts == 3) {
        cat_name = p[0].name;
        *schema = p[1].name;
    } else if (name->n_parts == 2) {
        *schema = p[0].name;
    }
    if (!cat_name)
        return err_set_at(err, SQE_ERR_CATALOG_NOT_FOUND, p[0].line, p[0].col,
                          "Catalog must be specified when session catalog is not set");
    if (!*schema)
        return err_set_at(err, SQE_ERR_SCHEMA_NOT_FOUND, p[0].line, p[0].col,
                          "Schema must be specified when session schema is not set");
    *cat = bind_find_catalog(env, cat_name);
    if (!*cat)
        return err_set_at(err, SQE_ERR_CATALOG_NOT_FOUND, p[0].line, p[0].col,
                          "Catalog '%s' not found", cat_name);
    *table = last->name;
    return SQE_OK;
}

int bind_resolve_schema_name(const bind_env *env, const sql_qname *name, catalog **cat,
                             const char **schema, sqe_error *err) {
    const char *cat_name = env->catalog;
    *schema = env->schema;
    int line = 0, col = 0;
    if (name) {
        line = name->parts[0].line;
        col = name->parts[0].col;
        if (name->n_parts > 2)
            return err_set_at(err, SQE_ERR_SYNTAX_ERROR, line, col, "Too many parts in schema name");
        if (name->n_parts == 2) {
            cat_name = name->parts[0].name;
            *schema = name->parts[1].name;
        } else {
            *schema = name->parts[0].name;
        }
    }
    if (!cat_name)
        return err_set_at(err, SQE_ERR_CATALOG_NOT_FOUND, line, col,
                          "Catalog must be specified when session catalog is not set");
    if (!*schema)
        return err_set_at(err, SQE_ERR_SCHEMA_NOT_FOUND, line, col,
                          "Schema must be specified when session schema is not set");
    *cat = bind_find_catalog(env, cat_name);
    if (!*cat) return err_set_at(err, SQE_ERR_CATALOG_NOT_FOUND, line, col, "Catalog '%s' not found", cat_name);
    return SQE_OK;
}

/* Casts the columns of p to types (a projection when any differs). */
static int cast_columns(binder *b, plan **p, const sqe_type *types, int line, int col) {
    plan *in = *p;
    bool same = true;
    for (uint32_t i = 0; i < in->n_out && same; i++) same = type_equal(in->out[i].type, types[i]);
    if (same) return SQE_OK;
    bexpr **exprs = ARENA_ARRAY(b->pctx->arena, bexpr *, in->n_out);
    const char **names = ARENA_ARRAY(b->pctx->arena, const char *, in->n_out);
    BIND_CHECK(b, exprs && names);
    for (uint32_t i = 0; i < in->n_out; i++) {
        bexpr *c = bexpr_column(b->pctx, in->out[i].id, in->out[i].type);
        BIND_CHECK(b, c);
        SQE_TRY(bind_cast(b, c, types[i], false, line, col, &exprs[i]));
        names[i] = in->out[i].name;
    }
    *p = bind_make_project(b, in, exprs, names, in->n_out);
    BIND_CHECK(b, *p);
    return SQE_OK;
}

static int bind_set_op(binder *b, bind_scope *outer, const sql_query *q, plan **out,
                       const char ***names) {
    uint32_t n = (uint32_t)q->u.set_op.n_inputs;
    plan **inputs = ARENA_ARRAY(b->pctx->arena, plan *, n);
    BIND_CHECK(b, inputs);
    const char **first_names = NULL;
    for (uint32_t i = 0; i < n; i++) {
        const char **nm;
        SQE_TRY(bind_query_node(b, outer, q->u.set_op.inputs[i], &inputs[i], &nm));
        if (i == 0) first_names = nm;
        if (inputs[i]->n_out != inputs[0]->n_out)
            return bind_error(b, SQE_ERR_TYPE_MISMATCH, q->u.set_op.inputs[i]->line,
                              q->u.set_op.inputs[i]->col,
                              "%s query has different number of fields: %u, %u",
                              q->u.set_op.op == SQL_SET_UNION ? "UNION"
                              : q->u.set_op.op == SQL_SET_INTERSECT ? "INTERSECT" : "EXCEPT",
                              inputs[i]->n_out, inputs[0]->n_out);
    }
    uint32_t n_cols = inputs[0]->n_out;
    sqe_type *types = ARENA_ARRAY(b->pctx->arena, sqe_type, n_cols + 1);
    BIND_CHECK(b, types);
    for (uint32_t c = 0; c < n_cols; c++) {
        sqe_type t = type_make(TYPE_UNKNOWN);
        for (uint32_t i = 0; i < n; i++) {
            sqe_type next;
            if (!type_common_super(t, inputs[i]->out[c].type, &next)) {
                char a[128], d[128];
                type_format(t, a, sizeof a);
                type_format(inputs[i]->out[c].type, d, sizeof d);
                return bind_error(b, SQE_ERR_TYPE_MISMATCH, q->line, q->col,
                                  "column %u in set operation query has incompatible types: %s, %s",
                                  c + 1, a, d);
            }
            t = next;
        }
        types[c] = t;
    }
    for (uint32_t i = 0; i < n; i++) SQE_TRY(cast_columns(b, &inputs[i], types, q->line, q->col));
    uint8_t op = q->u.set_op.op == SQL_SET_UNION ? SETOP_UNION
                 : q->u.set_op.op == SQL_SET_INTERSECT ? SETOP_INTERSECT : SETOP_EXCEPT;
    plan *p = plan_new(b->pctx, PLAN_SETOP, n, n_cols);
    BIND_CHECK(b, p);
    for (uint32_t i = 0; i < n; i++) p->children[i] = inputs[i];
    for (uint32_t c = 0; c < n_cols; c++) {
        p->out[c].id = plan_new_col(b->pctx);
        p->out[c].type = types[c];
        p->out[c].name = first_names ? first_names[c] : NULL;
    }
    p->u.setop.op = op;
    p->u.setop.all = q->u.set_op.quantifier == SQL_SET_ALL;
    *out = p;
    *names = first_names;
    return SQE_OK;
}

static int bind_values(binder *b, bind_scope *outer, const sql_query *q, plan **out,
                       const char ***names) {
    uint32_t n_rows = (uint32_t)q->u.values.n_rows;
    const sql_expr *first = q->u.values.rows[0];
    uint32_t n_cols = first->kind == SQL_EXPR_ROW ? (uint32_t)first->u.row.items.n : 1;
    bexpr **cells = ARENA_ARRAY(b->pctx->arena, bexpr *, (size_t)n_rows * n_cols);
    BIND_CHECK(b, cells);
    bind_scope empty;
    memset(&empty, 0, sizeof empty);
    empty.parent = outer;
    b->clause = "VALUES";
    for (uint32_t r = 0; r < n_rows; r++) {
        const sql_expr *row = q->u.values.rows[r];
        uint32_t n = row->kind == SQL_EXPR_ROW ? (uint32_t)row->u.row.items.n : 1;
        if (n != n_cols)
            return bind_error(b, SQE_ERR_TYPE_MISMATCH, row->line, row->col,
                              "Values rows have mismatched sizes: %u vs %u", n_cols, n);
        for (uint32_t c = 0; c < n; c++) {
            const sql_expr *cell = row->kind == SQL_EXPR_ROW ? row->u.row.items.items[c] : row;
            SQE_TRY(bind_expr(b, &empty, cell, &cells[(size_t)r * n_cols + c]));
            if (bexpr_has_subquery(cells[(size_t)r * n_cols + c]))
                return bind_error(b, SQE_ERR_NOT_SUPPORTED, cell->line, cell->col,
                                  "Subqueries in VALUES are not supported");
        }
    }
    plan *p = plan_new(b->pctx, PLAN_VALUES, 0, n_cols);
    BIND_CHECK(b, p);
    const char **nm = ARENA_ARRAY(b->pctx->arena, const char *, n_cols + 1);
    BIND_CHECK(b, nm);
    for (uint32_t c = 0; c < n_cols; c++) {
        bexpr *col[n_rows];
        for (uint32_t r = 0; r < n_rows; r++) col[r] = cells[(size_t)r * n_cols + c];
        sqe_type t;
        SQE_TRY(bind_common_type(b, col, n_rows, q->line, q->col, "VALUES", &t));
        for (uint32_t r = 0; r < n_rows; r++)
            SQE_TRY(bind_cast(b, cells[(size_t)r * n_cols + c], t, false, q->line, q->col,
                              &cells[(size_t)r * n_cols + c]));
        p->out[c].id = plan_new_col(b->pctx);
        p->out[c].type = t;
        nm[c] = arena_sprintf(b->pctx->arena, "_col%u", c);
        p->out[c].name = nm[c];
    }
    p->u.values.cells = cells;
    p->u.values.n_rows = n_rows;
    p->est_rows = n_rows;
    *out = p;
    *names = nm;
    return SQE_OK;
}

/* ORDER BY on the output of a set operation, VALUES or TABLE: by output name or ordinal. */
static int bind_output_order(binder *b, const sql_query *q, plan **p, const char **names) {
    if (!q->order_by.n) return SQE_OK;
    plan *in = *p;
    plan *so = plan_new(b->pctx, PLAN_SORT, 1, in->n_out);
    BIND_CHECK(b, so);
    so->children[0] = in;
    memcpy(so->out, in->out, in->n_out * sizeof(plan_col));
    so->u.sort.keys = ARENA_ARRAY(b->pctx->arena, plan_sort_key, q->order_by.n);
    BIND_CHECK(b, so->u.sort.keys);
    so->u.sort.n_keys = (uint32_t)q->order_by.n;
    so->u.sort.limit = -1;
    bind_scope s;
    memset(&s, 0, sizeof s);
    bind_rel *rel = bind_rel_from_plan(b, in, NULL, names);
    BIND_CHECK(b, rel);
    SQE_TRY(bind_scope_add(b, &s, rel));
    for (int i = 0; i < q->order_by.n; i++) {
        const sql_order_item *it = &q->order_by.items[i];
        bexpr *e;
        if (it->expr->kind == SQL_EXPR_INTEGER) {
            int64_t ord = it->expr->u.num.ival;
            if (ord < 1 || ord > (int64_t)in->n_out)
                return bind_error(b, SQE_ERR_INVALID_COLUMN_REFERENCE, it->line, it->col,
                                  "ORDER BY position %lld is not in select list", (long long)ord);
            e = bexpr_column(b->pctx, in->out[ord - 1].id, in->out[ord - 1].type);
            BIND_CHECK(b, e);
        } else {
            b->agg = NULL;
            b->win = NULL;
            SQE_TRY(bind_expr(b, &s, it->expr, &e));
        }
        so->u.sort.keys[i].expr = e;
        so->u.sort.keys[i].desc = it->desc;
        so->u.sort.keys[i].nulls_first = it->nulls == SQL_NULLS_FIRST;
    }
    *p = so;
    return SQE_OK;
}

int bind_query_node(binder *b, bind_scope *outer, const sql_query *q, plan **out,
                    const char ***names) {
    if (++b->depth > SQL_MAX_DEPTH || stack_exhausted()) {
        b->depth--;
        return bind_error(b, SQE_ERR_GENERIC_USER_ERROR, q->line, q->col, "Query nesting too deep");
    }
    bind_cte *saved_ctes = b->ctes;
    bind_agg_ctx *saved_agg = b->agg;
    bind_win_ctx *saved_win = b->win;
    const char *saved_clause = b->clause;
    const char *saved_nest = b->win_nest;
    bind_lambda_scope *saved_lambdas = b->lambdas;
    b->lambdas = NULL;
    b->win_nest = NULL;
    int rc = SQE_OK;
    if (q->with) {
        if (q->with->recursive) {
            /* Trino checks the column aliases of every WITH RECURSIVE query first. */
            for (int i = 0; i < q->with->n_items; i++) {
                const sql_with_item *it = &q->with->items[i];
                if (!it->columns.n) {
                    rc = bind_error(b, SQE_ERR_MISSING_COLUMN_ALIASES, it->line, it->col,
                                    "missing column aliases in recursive WITH query");
                    goto out_restore;
                }
            }
            rc = bind_error(b, SQE_ERR_NOT_SUPPORTED, q->with->line, q->with->col,
                            "WITH RECURSIVE is not supported");
            goto out_restore;
        }
        for (int i = 0; i < q->with->n_items; i++) {
            const sql_with_item *it = &q->with->items[i];
            for (int j = 0; j < i; j++)
                if (strcmp(q->with->items[j].name.name, it->name.name) == 0) {
                    rc = bind_error(b, SQE_ERR_GENERIC_USER_ERROR, it->line, it->col,
                                    "WITH query name '%s' specified more than once", it->name.text);
                    goto out_restore;
                }
            bind_cte *c = ARENA_NEW(b->pctx->arena, bind_cte);
            if (!c) {
                rc = bind_nomem(b);
                goto out_restore;
            }
            c->item = it;
            c->visible_from = b->ctes;
            c->next = b->ctes;
            b->ctes = c;
        }
    }
    switch (q->kind) {
    case SQL_QUERY_SELECT:
        rc = bind_select(b, outer, q, out, names);
        break;
    case SQL_QUERY_SET_OP:
        rc = bind_set_op(b, outer, q, out, names);
        if (!rc) rc = bind_output_order(b, q, out, *names);
        if (!rc) rc = bind_limit_offset(b, q, out);
        break;
    case SQL_QUERY_VALUES:
        rc = bind_values(b, outer, q, out, names);
        if (!rc) rc = bind_output_order(b, q, out, *names);
        if (!rc) rc = bind_limit_offset(b, q, out);
        break;
    case SQL_QUERY_TABLE: {
        sql_relation r;
        memset(&r, 0, sizeof r);
        r.kind = SQL_REL_TABLE;
        r.line = q->line;
        r.col = q->col;
        r.u.table.name = q->u.table;
        bind_scope s;
        memset(&s, 0, sizeof s);
        rc = bind_from(b, outer, &r, out, &s);
        if (rc) break;
        const char **nm = ARENA_ARRAY(b->pctx->arena, const char *, (*out)->n_out + 1);
        if (!nm) {
            rc = bind_nomem(b);
            break;
        }
        for (uint32_t i = 0; i < (*out)->n_out; i++) nm[i] = s.rels[0].cols[i].name;
        *names = nm;
        rc = bind_output_order(b, q, out, nm);
        if (!rc) rc = bind_limit_offset(b, q, out);
        break;
    }
    case SQL_QUERY_NESTED:
        rc = bind_query_node(b, outer, q->u.nested, out, names);
        if (!rc) rc = bind_output_order(b, q, out, *names);
        if (!rc) rc = bind_limit_offset(b, q, out);
        break;
    default:
        rc = bind_error(b, SQE_ERR_NOT_SUPPORTED, q->line, q->col, "Unsupported query");
        break;
    }
out_restore:
    b->ctes = saved_ctes;
    b->agg = saved_agg;
    b->win = saved_win;
    b->clause = saved_clause;
    b->win_nest = saved_nest;
    b->lambdas = saved_lambdas;
    b->depth--;
    if (!rc && b->pctx->failed) rc = bind_nomem(b);
    return rc;
}

int bind_query(plan_ctx *pctx, const bind_env *env, const sql_query *q, bound_query *out,
               sqe_error *err) {
    binder b;
    memset(&b, 0, sizeof b);
    b.pctx = pctx;
    b.env = env;
    b.err = err;
    const char **names;
    SQE_TRY(bind_query_node(&b, NULL, q, &out->root, &names));
    /* Unnamed output columns get Trino's _colN names. */
    const char **final = ARENA_ARRAY(pctx->arena, const char *, out->root->n_out + 1);
    if (!final) return err_nomem(err, "names");
    for (uint32_t i = 0; i < out->root->n_out; i++)
        final[i] = names && names[i] ? names[i] : arena_sprintf(pctx->arena, "_col%u", i);
    out->names = final;
    return SQE_OK;
}
