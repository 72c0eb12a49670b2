/*
 * bind_from.c: the FROM clause: tables, views, CTE references, derived tables, UNNEST, table
 * functions, files, and joins (ON, USING, NATURAL, CROSS, comma lists), building the scope that
 * names in the rest of the query resolve against.
 *
 * INTERFACE: bind_from, bind_view_definition.
 * NOTES: join conditions are kept whole as the join's residual; the optimizer extracts
 * equi-join keys and pushes single-side conjuncts down. USING columns appear once: for FULL
 * joins as COALESCE(left, right), else the column of the preserved side; the other copies stay
 * reachable by qualified name only (hidden).
 * A view is expanded like a derived table: its stored text is parsed into the query arena (plan
 * names point into the AST) and bound in the catalog and schema the view was created in, with
 * no CTEs or outer columns of the referencing query visible and the session's other settings
 * (local-file permission included) unchanged. Its columns keep the names and types recorded at
 * creation (Trino): the query must still produce that many columns with those names, each
 * implicitly coercible to the recorded type, else the view is stale.
 */
#include "bind/bind_int.h"
#include "catalog/catalog_iceberg.h"
#include "common/stack.h"
#include "iceberg/metadata.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

int bind_table_function(binder *b, bind_scope *s, const sql_relation *r, plan **out,
                        const char ***names);
/* Metadata tables (bind_system.c): *handled is false when r is not one. */
int bind_system_table(binder *b, const sql_relation *r, plan **out, bind_scope *s, bool *handled);

static int set_alias_columns(binder *b, const sql_relation *r, plan *p, const char **names,
                             bind_rel *rel) {
    if (r->columns.n == 0) return SQE_OK;
    if ((uint32_t)r->columns.n != p->n_out)
        return bind_error(b, SQE_ERR_MISMATCHED_COLUMN_ALIASES, r->line, r->col,
                          "Column alias list has %d entries but '%s' has %u columns available",
                          r->columns.n, r->alias ? r->alias->text : "relation", p->n_out);
    for (int i = 0; i < r->columns.n; i++) rel->cols[i].name = r->columns.items[i].name;
    (void)names;
    return SQE_OK;
}

static bind_cte *find_cte(binder *b, const char *name) {
    for (bind_cte *c = b->ctes; c; c = c->next)
        if (strcmp(c->item->name.name, name) == 0) return c;
    return NULL;
}

static int bind_cte_ref(binder *b, bind_cte *cte, const sql_relation *r, plan **out,
                        bind_scope *s) {
    if (cte->depth > 0)
        return bind_error(b, SQE_ERR_NOT_SUPPORTED, r->line, r->col,
                          "Recursive reference to WITH query '%s' is not supported",
                          cte->item->name.text);
    cte->depth++;
    bind_cte *saved = b->ctes;
    b->ctes = cte->visible_from;
    plan *p;
    const char **names;
    /* A CTE body sees only the CTEs defined before it, and never the referencing query's
     * columns. */
    int rc = bind_query_node(b, NULL, cte->item->query, &p, &names);
    b->ctes = saved;
    cte->depth--;
    SQE_TRY(rc);
    const sql_ident_list *cols = &cte->item->columns;
    if (cols->n) {
        if ((uint32_t)cols->n != p->n_out)
            return bind_error(b, SQE_ERR_MISMATCHED_COLUMN_ALIASES, cte->item->line, cte->item->col,
                              "WITH column alias list has %d entries but WITH query '%s' has %u "
                              "columns",
                              cols->n, cte->item->name.text, p->n_out);
        for (int i = 0; i < cols->n; i++) names[i] = cols->items[i].name;
    }
    bind_rel *rel = bind_rel_from_plan(b, p, r->alias ? r->alias->name : cte->item->name.name, names);
    BIND_CHECK(b, rel);
    SQE_TRY(set_alias_columns(b, r, p, names, rel));
    SQE_TRY(bind_scope_add(b, s, rel));
    *out = p;
    return SQE_OK;
}

/* A join's ON condition (named "JOIN clause" in messages, as Trino). */
static int bind_join_on(binder *b, bind_scope *s, const sql_expr *on, bexpr **out) {
    const char *saved = b->clause;
    b->clause = "JOIN clause";
    int rc = bind_bool_expr(b, s, on, "JOIN ON clause", out);
    b->clause = saved;
    return rc;
}

/* The frame of view cat_name.schema.name if it is being expanded (or defined), else NULL. */
static const bind_view_frame *view_is_expanding(const bind_view_frame *f, const char *cat_name,
                                                const char *schema, const char *name) {
    for (; f; f = f->parent)
        if (strcmp(f->name, name) == 0 && strcmp(f->schema, schema) == 0 &&
            strcmp(f->catalog, cat_name) == 0)
            return f;
    return NULL;
}

/* Turns an error raised inside view v's text into one at the view reference r, keeping the
 * position inside the view text in the message (Trino: INVALID_VIEW "Failed analyzing stored
 * view"). An error from a view nested deeper keeps naming that view (once), not every view on
 * the way. Errors other than the user's (out of memory, internal) keep their code. */
static int view_error(binder *b, const cat_view *v, const sql_relation *r, int rc) {
    static const char prefix[] = "Failed analyzing stored view '";
    if (!b->err || strcmp(err_code_lookup(rc)->trino_type, "USER_ERROR") != 0) return rc;
    rc = err_recode(b->err, SQE_ERR_INVALID_VIEW);
    bool named = strncmp(b->err->message, prefix, sizeof prefix - 1) == 0;
    if (!named && b->err->line)
        err_prefix(b->err, "Failed analyzing stored view '%s.%s.%s': line %d:%d", v->catalog,
                   v->schema, v->name, b->err->line, b->err->column);
    else if (!named)
        err_prefix(b->err, "Failed analyzing stored view '%s.%s.%s'", v->catalog, v->schema,
                   v->name);
    b->err->line = r->line;
    b->err->column = r->col;
    return rc;
}

/* Binds the text of view v into *out; names as the query gives them (NULL when unnamed). */
static int bind_view_text(binder *b, const cat_view *v, const sql_relation *r, plan **out,
                          const char ***names) {
    arena *a = b->pctx->arena;
    sql_stmt *st;
    SQE_TRY(sql_parse(a, v->sql, strlen(v->sql), &st, b->err));
    if (st->kind != SQL_STMT_QUERY || st->n_params > 0)
        return bind_error(b, SQE_ERR_GENERIC_USER_ERROR, r->line, r->col,
                          "Stored view '%s.%s.%s' is not a query without parameters", v->catalog,
                          v->schema, v->name);
    bind_env env = *b->env;
    env.catalog = v->ctx_catalog ? arena_strdup(a, v->ctx_catalog) : NULL;
    env.schema = v->ctx_schema ? arena_strdup(a, v->ctx_schema) : NULL;
    env.params = NULL;
    env.n_params = 0;
    bind_view_frame frame = {arena_strdup(a, v->catalog), arena_strdup(a, v->schema),
                             arena_strdup(a, v->name), b->views, false};
    BIND_CHECK(b, frame.catalog && frame.schema && frame.name &&
                      (env.catalog || !v->ctx_catalog) && (env.schema || !v->ctx_schema));
    binder vb;
    memset(&vb, 0, sizeof vb);
    vb.pctx = b->pctx;
    vb.env = &env;
    vb.err = b->err;
    vb.depth = b->depth;
    vb.views = &frame;
    return bind_query_node(&vb, NULL, st->u.query, out, names);
}

/* Checks the view's query output against the recorded columns and casts it to their types. */
static int fit_view_columns(binder *b, const cat_view *v, const sql_relation *r, plan **p,
                            const char **names) {
    plan *in = *p;
    if (in->n_out != v->n_columns)
        return bind_error(b, SQE_ERR_VIEW_IS_STALE, r->line, r->col,
                          "View '%s.%s.%s' is stale or in invalid state: stored view column count "
                          "(%u) does not match column count derived from the view query "
                          "analysis (%u)",
                          v->catalog, v->schema, v->name, v->n_columns, in->n_out);
    bexpr **exprs = ARENA_ARRAY(b->pctx->arena, bexpr *, in->n_out + 1);
    const char **out_names = ARENA_ARRAY(b->pctx->arena, const char *, in->n_out + 1);
    BIND_CHECK(b, exprs && out_names);
    bool same = true;
    for (uint32_t i = 0; i < in->n_out; i++) {
        const cat_column *vc = &v->columns[i];
        sqe_type got = in->out[i].type;
        bool renamed = !names || !names[i] || strcasecmp(names[i], vc->name) != 0;
        if (renamed || !type_can_coerce(got, vc->type)) {
            char want_t[128], got_t[128];
            type_format(vc->type, want_t, sizeof want_t);
            type_format(got, got_t, sizeof got_t);
            return bind_error(b, SQE_ERR_VIEW_IS_STALE, r->line, r->col,
                              "View '%s.%s.%s' is stale or in invalid state: column [%s] of type "
                              "%s projected from query view at position %u %s column [%s] of "
                              "type %s stored in view definition",
                              v->catalog, v->schema, v->name,
                              names && names[i] ? names[i] : "", got_t, i,
                              renamed ? "has a different name from" : "cannot be coerced to",
                              vc->name, want_t);
        }
        out_names[i] = arena_strdup(b->pctx->arena, vc->name);
        BIND_CHECK(b, out_names[i]);
        bexpr *col = bexpr_column(b->pctx, in->out[i].id, got);
        BIND_CHECK(b, col);
        SQE_TRY(bind_cast(b, col, vc->type, false, r->line, r->col, &exprs[i]));
        same = same && type_equal(got, vc->type);
    }
    if (!same) {
        *p = bind_make_project(b, in, exprs, out_names, in->n_out);
        BIND_CHECK(b, *p);
    } else {
        for (uint32_t i = 0; i < in->n_out; i++) in->out[i].name = out_names[i];
    }
    return SQE_OK;
}

/* A view in FROM: its query as a derived table named like the view. */
static int bind_view_ref(binder *b, const cat_view *v, const sql_relation *r, plan **out,
                         bind_scope *s) {
    plan *p;
    const char **names;
    int rc = bind_view_text(b, v, r, &p, &names);
    if (rc) return view_error(b, v, r, rc);
    SQE_TRY(fit_view_columns(b, v, r, &p, names));
    const char **view_names = ARENA_ARRAY(b->pctx->arena, const char *, p->n_out + 1);
    BIND_CHECK(b, view_names);
    for (uint32_t i = 0; i < p->n_out; i++) view_names[i] = p->out[i].name;
    const char *alias = r->alias ? r->alias->name : arena_strdup(b->pctx->arena, v->name);
    bind_rel *rel = bind_rel_from_plan(b, p, alias, view_names);
    BIND_CHECK(b, alias && rel);
    if (!r->alias) {
        const char *schema = arena_strdup(b->pctx->arena, v->schema);
        const char *cat_name = arena_strdup(b->pctx->arena, v->catalog);
        BIND_CHECK(b, schema && cat_name);
        bind_rel_qualify(rel, r, cat_name, schema);
    }
    SQE_TRY(set_alias_columns(b, r, p, view_names, rel));
    SQE_TRY(bind_scope_add(b, s, rel));
    *out = p;
    return SQE_OK;
}

int bind_view_definition(plan_ctx *pctx, const bind_env *env, const char *cat_name,
                         const char *schema, const char *name, const sql_query *q,
                         bound_query *out, sqe_error *err) {
    bind_view_frame self = {cat_name, schema, name, NULL, true};
    binder b;
    memset(&b, 0, sizeof b);
    b.pctx = pctx;
    b.env = env;
    b.err = err;
    b.views = &self;
    SQE_TRY(bind_query_node(&b, NULL, q, &out->root, &out->names));
    if (!out->names) {
        out->names = ARENA_ARRAY(pctx->arena, const char *, out->root->n_out + 1);
        BIND_CHECK(&b, out->names);
    }
    return SQE_OK;
}

/* Tells env->access (when set) that node reads t at snapshot snap (-1: none, a memory table). */
static void note_read(binder *b, const cat_table *t, int64_t snap, const plan *node) {
    const bind_access_sink *a = b->env->access;
    if (!a || !a->table_read) return;
    while (node && node->kind != PLAN_TABLE_FUNC && node->kind != PLAN_SCAN &&
           node->n_children == 1)
        node = node->children[0];
    a->table_read(a->ud, t, node, snap);
}

/* An Iceberg table (consumes the reference t). */
static int bind_iceberg_ref(binder *b, cat_table *t, const sql_relation *r, plan **out,
                            bind_scope *s) {
    int rc = plan_ctx_add_table(b->pctx, t, b->err);
    cat_table_unref(t);
    SQE_TRY(rc);
    const char **names;
    plan *p;
    int64_t snap;
    SQE_TRY(bind_iceberg_table(b, t, r, &p, &names, &snap));
    note_read(b, t, snap, p);
    bind_rel *rel = bind_rel_from_plan(b, p, r->alias ? r->alias->name : t->name, names);
    BIND_CHECK(b, rel);
    bind_rel_qualify(rel, r, t->catalog, t->schema);
    uint32_t n_visible = p->n_out - ICE_SCAN_HIDDEN_COLUMNS;
    for (uint32_t i = n_visible; i < p->n_out; i++) rel->cols[i].star_hidden = true;
    if (r->columns.n && (uint32_t)r->columns.n != n_visible)
        return bind_error(b, SQE_ERR_MISMATCHED_COLUMN_ALIASES, r->line, r->col,
                          "Column alias list has %d entries but '%s' has %u columns available",
                          r->columns.n, r->alias ? r->alias->text : "relation", n_visible);
    for (int i = 0; i < r->columns.n; i++) rel->cols[i].name = r->columns.items[i].name;
    SQE_TRY(bind_scope_add(b, s, rel));
    *out = p;
    return SQE_OK;
}

/* A metadata table "t$suffix" of Iceberg table t (consumes the reference t). */
static int bind_iceberg_meta_ref(binder *b, cat_table *t, const char *suffix,
                                 const sql_relation *r, plan **out, bind_scope *s) {
    int rc = plan_ctx_add_table(b->pctx, t, b->err);
    cat_table_unref(t);
    SQE_TRY(rc);
    if (r->u.table.version != SQL_VERSION_NONE)
        return bind_error(b, SQE_ERR_NOT_SUPPORTED, r->line, r->col,
                          "This connector does not support versioned tables");
    const char **names;
    plan *p;
    SQE_TRY(bind_iceberg_meta_table(b, t, suffix, r, &p, &names));
    bind_rel *rel = bind_rel_from_plan(b, p, r->alias ? r->alias->name : p->u.tfunc.name, names);
    BIND_CHECK(b, rel);
    SQE_TRY(set_alias_columns(b, r, p, names, rel));
    SQE_TRY(bind_scope_add(b, s, rel));
    *out = p;
    return SQE_OK;
}

static int bind_table(binder *b, const sql_relation *r, plan **out, bind_scope *s) {
    const sql_qname *qn = &r->u.table.name;
    if (qn->n_parts == 1) {
        bind_cte *cte = find_cte(b, qn->parts[0].name);
        if (cte) return bind_cte_ref(b, cte, r, out, s);
    }
    bool system_table;
    int system_rc = bind_system_table(b, r, out, s, &system_table);
    if (system_table) return system_rc;
    catalog *cat;
    const char *schema, *name;
    SQE_TRY(bind_resolve_table_name(b->env, qn, &cat, &schema, &name, b->err));
    cat_view *v;
    if (catalog_get_view(cat, schema, name, &v, NULL) == SQE_OK) {
        /* A view on the way down: the one being defined (CREATE OR REPLACE), or a stored cycle.
         * A new view naming itself is a missing table below, as in Trino. */
        const bind_view_frame *f = view_is_expanding(b->views, cat->name, schema, name);
        if (f) {
            cat_view_unref(v);
            if (f->defining)
                return bind_error(b, SQE_ERR_VIEW_IS_RECURSIVE, r->line, r->col,
                                  "Statement would create a recursive view");
            return bind_error(b, SQE_ERR_VIEW_IS_RECURSIVE, r->line, r->col,
                              "View '%s.%s.%s' is recursive", cat->name, schema, name);
        }
        int rc = bind_view_ref(b, v, r, out, s);
        cat_view_unref(v);
        return rc;
    }
    cat_table *t;
    const char *dollar = strchr(name, '$');
    if (dollar && dollar != name && cat->ops->kind == CAT_KIND_ICEBERG) {
        const char *base = arena_strndup(b->pctx->arena, name, (size_t)(dollar - name));
        BIND_CHECK(b, base);
        if (catalog_get_table(cat, b->env->principal, schema, base, &t, NULL) == SQE_OK)
            return bind_iceberg_meta_ref(b, t, dollar + 1, r, out, s);
    }
    int rc = catalog_get_table(cat, b->env->principal, schema, name, &t, b->err);
    if (rc) {
        if (b->err) {
            b->err->line = r->line;
            b->err->column = r->col;
        }
        return rc;
    }
    if (t->ops->kind == CAT_KIND_ICEBERG) return bind_iceberg_ref(b, t, r, out, s);
    if (r->u.table.version != SQL_VERSION_NONE) {
        cat_table_unref(t);
        return bind_error(b, SQE_ERR_NOT_SUPPORTED, r->line, r->col,
                          "This connector does not support versioned tables");
    }
    rc = plan_ctx_add_table(b->pctx, t, b->err);
    cat_table_unref(t);
    SQE_TRY(rc);
    plan *p = plan_new(b->pctx, PLAN_SCAN, 0, t->n_columns);
    BIND_CHECK(b, p);
    p->u.scan.table = t;
    p->u.scan.columns = ARENA_ARRAY(b->pctx->arena, uint32_t, t->n_columns + 1);
    BIND_CHECK(b, p->u.scan.columns);
    const char **names = ARENA_ARRAY(b->pctx->arena, const char *, t->n_columns + 1);
    BIND_CHECK(b, names);
    for (uint32_t i = 0; i < t->n_columns; i++) {
        p->out[i].id = plan_new_col(b->pctx);
        p->out[i].type = t->columns[i].type;
        p->out[i].name = t->columns[i].name;
        p->u.scan.columns[i] = i;
        names[i] = t->columns[i].name;
    }
    p->est_rows = (double)t->data.n_rows;
    note_read(b, t, -1, p);
    bind_rel *rel = bind_rel_from_plan(b, p, r->alias ? r->alias->name : name, names);
    BIND_CHECK(b, rel);
    bind_rel_qualify(rel, r, t->catalog, t->schema);
    SQE_TRY(set_alias_columns(b, r, p, names, rel));
    SQE_TRY(bind_scope_add(b, s, rel));
    *out = p;
    return SQE_OK;
}

static int bind_derived(binder *b, bind_scope *outer, const sql_relation *r, plan **out,
                        bind_scope *s) {
    plan *p;
    const char **names;
    /* outer: the enclosing queries' scopes (and, for LATERAL, the items to the left), whose
     * columns the derived table may reference as outer (correlated) columns */
    SQE_TRY(bind_query_node(b, outer, r->u.subquery.query, &p, &names));
    bind_rel *rel = bind_rel_from_plan(b, p, r->alias ? r->alias->name : NULL, names);
    BIND_CHECK(b, rel);
    SQE_TRY(set_alias_columns(b, r, p, names, rel));
    SQE_TRY(bind_scope_add(b, s, rel));
    *out = p;
    return SQE_OK;
}

/* A plan producing exactly one row and no columns (FROM-less SELECT, standalone UNNEST). */
static plan *single_row(binder *b) {
    plan *p = plan_new(b->pctx, PLAN_VALUES, 0, 0);
    if (p) {
        p->u.values.n_rows = 1;
        p->est_rows = 1;
    }
    return p;
}

/* UNNEST(a, b, ...) [WITH ORDINALITY] over `input` (single row, or the left side of a lateral
 * join), binding the array expressions in scope `args_scope`. */
static int bind_unnest(binder *b, bind_scope *args_scope, plan *input, const sql_relation *r,
                       plan **out, bind_scope *s) {
    uint32_t n = (uint32_t)r->u.unnest.args.n;
    bexpr **arrays = ARENA_ARRAY(b->pctx->arena, bexpr *, n + 1);
    BIND_CHECK(b, arrays);
    uint32_t n_cols = 0;
    const char *saved_clause = b->clause;
    for (uint32_t i = 0; i < n; i++) {
        b->clause = "UNNEST"; /* in messages, as Trino */
        int rc = bind_expr(b, args_scope, r->u.unnest.args.items[i], &arrays[i]);
        b->clause = saved_clause;
        SQE_TRY(rc);
        sqe_type t = arrays[i]->type;
        if (t.id == TYPE_ARRAY)
            n_cols += 1;
        else if (t.id == TYPE_MAP)
            n_cols += 2;
        else
            return bind_error(b, SQE_ERR_TYPE_MISMATCH, arrays[i]->line, arrays[i]->col,
                              "Cannot unnest type: not an array or map");
    }
    if (r->u.unnest.with_ordinality) n_cols++;
    plan *u = plan_new(b->pctx, PLAN_UNNEST, 1, input->n_out + n_cols);
    BIND_CHECK(b, u);
    u->children[0] = input;
    memcpy(u->out, input->out, input->n_out * sizeof(plan_col));
    u->u.unnest.arrays = arrays;
    u->u.unnest.n_arrays = n;
    u->u.unnest.ordinality = r->u.unnest.with_ordinality;
    u->u.unnest.n_child_out = input->n_out;
    uint32_t k = input->n_out;
    for (uint32_t i = 0; i < n; i++) {
        sqe_type t = arrays[i]->type;
        for (uint32_t c = 0; c < (t.id == TYPE_MAP ? 2u : 1u); c++) {
            u->out[k].id = plan_new_col(b->pctx);
            u->out[k].type = t.nested->children[c];
            k++;
        }
    }
    if (r->u.unnest.with_ordinality) {
        u->out[k].id = plan_new_col(b->pctx);
        u->out[k].type = type_make(TYPE_BIGINT);
    }
    /* Arrays of rows expand into one column per field (Trino). */
    plan *top = u;
    uint32_t n_fields = 0;
    for (uint32_t i = input->n_out; i < u->n_out; i++)
        n_fields += u->out[i].type.id == TYPE_ROW && n == 1 && !r->u.unnest.with_ordinality
                        ? u->out[i].type.nested->n_children
                        : 1;
    bool expand = n_fields != u->n_out - input->n_out;
    if (expand) {
        uint32_t total = input->n_out + n_fields;
        bexpr **exprs = ARENA_ARRAY(b->pctx->arena, bexpr *, total);
        BIND_CHECK(b, exprs);
        uint32_t j = 0;
        for (uint32_t i = 0; i < input->n_out; i++) exprs[j++] = bexpr_column(b->pctx, u->out[i].id, u->out[i].type);
        for (uint32_t i = input->n_out; i < u->n_out; i++) {
            sqe_type t = u->out[i].type;
            bexpr *col = bexpr_column(b->pctx, u->out[i].id, t);
            BIND_CHECK(b, col);
            for (uint32_t f = 0; f < t.nested->n_children; f++) {
                bexpr *fe = bexpr_new(b->pctx, BEXPR_FIELD, t.nested->children[f], 1);
                BIND_CHECK(b, fe);
                fe->args[0] = col;
                fe->u.field = f;
                exprs[j++] = fe;
            }
        }
        top = bind_make_project(b, u, exprs, NULL, total);
        BIND_CHECK(b, top);
    }
    /* The relation exposes only the unnested columns. */
    uint32_t n_new = top->n_out - input->n_out;
    bind_rel *rel = ARENA_NEW(b->pctx->arena, bind_rel);
    BIND_CHECK(b, rel);
    rel->alias = r->alias ? r->alias->name : NULL;
    rel->cols = ARENA_ARRAY(b->pctx->arena, bind_rel_col, n_new + 1);
    BIND_CHECK(b, rel->cols);
    rel->n_cols = n_new;
    if (r->columns.n && (uint32_t)r->columns.n != n_new)
        return bind_error(b, SQE_ERR_MISMATCHED_COLUMN_ALIASES, r->line, r->col,
                          "Column alias list has %d entries but UNNEST has %u columns",
                          r->columns.n, n_new);
    for (uint32_t i = 0; i < n_new; i++) {
        const plan_col *pc = &top->out[input->n_out + i];
        rel->cols[i].id = pc->id;
        rel->cols[i].type = pc->type;
        rel->cols[i].name = r->columns.n ? r->columns.items[i].name : NULL;
        if (!rel->cols[i].name) {
            const sqe_type *rt = NULL;
            (void)rt;
            rel->cols[i].name = arena_sprintf(b->pctx->arena, "_col%u", i);
        }
    }
    SQE_TRY(bind_scope_add(b, s, rel));
    *out = top;
    return SQE_OK;
}

static const bind_rel_col *scope_col(const bind_scope *s, uint32_t first_rel, uint32_t n_rels,
                                     const char *name) {
    const bind_rel_col *found = NULL;
    for (uint32_t r = first_rel; r < first_rel + n_rels; r++)
        for (uint32_t c = 0; c < s->rels[r].n_cols; c++)
            if (!s->rels[r].cols[c].hidden && s->rels[r].cols[c].name &&
                strcmp(s->rels[r].cols[c].name, name) == 0 && !found)
                found = &s->rels[r].cols[c];
    return found;
}

/* *p becomes a filter on cond over *p, cond's subqueries planned as in WHERE (semi, anti and
 * mark joins over *p). */
static int filter_with_subqueries(binder *b, plan **p, bexpr *cond) {
    bexpr_list conj = {0}, plain = {0};
    SQE_TRY(bexpr_split_and(b->pctx, cond, &conj));
    for (uint32_t i = 0; i < conj.n; i++) {
        bexpr *c = conj.items[i];
        if (bexpr_has_subquery(c)) {
            SQE_TRY(bind_plan_subqueries(b, p, &c, true));
            if (!c) continue;
        }
        SQE_TRY(bexpr_list_push(b->pctx, &plain, c));
    }
    if (plain.n) {
        *p = bind_make_filter(b, *p, bexpr_make_and(b->pctx, plain.items, plain.n));
        BIND_CHECK(b, *p);
    }
    return SQE_OK;
}

/* Plans each subquery in *slot on the join input whose rows alone decide it (its columns and
 * its outer references all come from that side); side[] are the two inputs, rewritten. */
static int plan_on_slot(binder *b, const sql_expr *on, plan *side[2], bexpr **slot) {
    bexpr *e = *slot;
    if (!e || !bexpr_has_subquery(e)) return SQE_OK;
    if (e->kind != BEXPR_SUBQUERY) {
        for (uint32_t i = 0; i < e->n_args; i++) SQE_TRY(plan_on_slot(b, on, side, &e->args[i]));
        return SQE_OK;
    }
    for (int t = 0; t < 2; t++) {
        bool within;
        SQE_TRY(bind_expr_refs_within(b, e, side[t], &within));
        if (within) return bind_plan_subqueries(b, &side[t], slot, false);
    }
    return bind_error(b, SQE_ERR_NOT_SUPPORTED, on->line, on->col,
                      "Subqueries in JOIN ON conditions are supported only when each reads the "
                      "columns of one side of the join");
}

/* Subqueries in an ON condition: each one whose columns (its outer references included) all
 * come from one side is decided by that side's row alone, so it is planned on that input,
 * below the join (a mark or scalar join there), for every join type; *jp is rebuilt over the
 * new inputs. One that reads both sides is NOT_SUPPORTED (an inner join takes the
 * filter_with_subqueries path instead). */
static int plan_on_subqueries(binder *b, const sql_expr *on, plan **jp, bexpr **cond) {
    plan *j = *jp;
    plan *side[2] = {j->children[0], j->children[1]};
    SQE_TRY(plan_on_slot(b, on, side, cond));
    if (side[0] != j->children[0] || side[1] != j->children[1]) {
        plan *n = plan_new(b->pctx, PLAN_JOIN, 2, side[0]->n_out + side[1]->n_out);
        BIND_CHECK(b, n);
        n->children[0] = side[0];
        n->children[1] = side[1];
        memcpy(n->out, side[0]->out, side[0]->n_out * sizeof(plan_col));
        memcpy(n->out + side[0]->n_out, side[1]->out, side[1]->n_out * sizeof(plan_col));
        n->u.join = j->u.join;
        *jp = n;
    }
    return SQE_OK;
}

static int bind_join(binder *b, bind_scope *outer, const sql_relation *r, plan **out,
                     bind_scope *s) {
    bind_scope left_scope, right_scope;
    memset(&left_scope, 0, sizeof left_scope);
    memset(&right_scope, 0, sizeof right_scope);
    left_scope.parent = outer;
    plan *left, *right;
    SQE_TRY(bind_from(b, outer, r->u.join.left, &left, &left_scope));
    const sql_relation *rr = r->u.join.right;
    bool lateral_unnest = rr->kind == SQL_REL_UNNEST;
    bool lateral_query = rr->kind == SQL_REL_SUBQUERY && rr->u.subquery.lateral;
    if (lateral_unnest) {
        /* UNNEST may reference the left side: it runs on the left's rows. */
        right_scope.parent = outer;
        left_scope.parent = outer;
        bind_scope args_scope = left_scope;
        plan *un;
        SQE_TRY(bind_unnest(b, &args_scope, left, rr, &un, &right_scope));
        for (uint32_t i = 0; i < left_scope.n_rels; i++) SQE_TRY(bind_scope_add(b, s, &left_scope.rels[i]));
        for (uint32_t i = 0; i < right_scope.n_rels; i++) SQE_TRY(bind_scope_add(b, s, &right_scope.rels[i]));
        plan *p = un;
        if (r->u.join.on) {
            bexpr *cond;
            SQE_TRY(bind_join_on(b, s, r->u.join.on, &cond));
            bool is_true = cond->kind == BEXPR_CONST && !vec_is_null(cond->u.constant, 0) &&
                           VEC_DATA(cond->u.constant, uint8_t)[0];
            if (r->u.join.type == SQL_JOIN_LEFT && is_true) {
                plan *q = un;
                while (q->kind != PLAN_UNNEST) q = q->children[0];
                q->u.unnest.outer = true;
            } else if (!is_true) {
                if (r->u.join.type != SQL_JOIN_INNER)
                    return bind_error(b, SQE_ERR_NOT_SUPPORTED, r->line, r->col,
                                      "LEFT JOIN with UNNEST supports only ON true");
                p = bind_make_filter(b, un, cond);
                BIND_CHECK(b, p);
            }
        }
        *out = p;
        return SQE_OK;
    }
    right_scope.parent = lateral_query ? &left_scope : outer;
    SQE_TRY(bind_from(b, right_scope.parent, rr, &right, &right_scope));
    for (uint32_t i = 0; i < left_scope.n_rels; i++) SQE_TRY(bind_scope_add(b, s, &left_scope.rels[i]));
    uint32_t first_right = s->n_rels;
    for (uint32_t i = 0; i < right_scope.n_rels; i++) SQE_TRY(bind_scope_add(b, s, &right_scope.rels[i]));
    if (lateral_query) {
        uint8_t jt2 = r->u.join.type == SQL_JOIN_LEFT ? JOIN_LEFT : JOIN_INNER;
        if (r->u.join.type != SQL_JOIN_LEFT && r->u.join.type != SQL_JOIN_INNER &&
            r->u.join.type != SQL_JOIN_CROSS)
            return bind_error(b, SQE_ERR_NOT_SUPPORTED, rr->line, rr->col,
                              "LATERAL is supported with CROSS, INNER and LEFT joins");
        bexpr *on = NULL;
        if (r->u.join.on) SQE_TRY(bind_join_on(b, s, r->u.join.on, &on));
        return bind_lateral_join(b, left, right, jt2, on, out);
    }

    uint8_t jt;
    switch (r->u.join.type) {
    case SQL_JOIN_LEFT: jt = JOIN_LEFT; break;
    case SQL_JOIN_RIGHT: jt = JOIN_RIGHT; break;
    case SQL_JOIN_FULL: jt = JOIN_FULL; break;
    case SQL_JOIN_CROSS: jt = JOIN_CROSS; break;
    default: jt = JOIN_INNER; break;
    }
    plan *j = plan_new(b->pctx, PLAN_JOIN, 2, left->n_out + right->n_out);
    BIND_CHECK(b, j);
    j->children[0] = left;
    j->children[1] = right;
    memcpy(j->out, left->out, left->n_out * sizeof(plan_col));
    memcpy(j->out + left->n_out, right->out, right->n_out * sizeof(plan_col));
    j->u.join.type = jt;

    /* USING / NATURAL: equality on the named columns, one visible copy. */
    sql_ident_list using = r->u.join.using;
    const char **natural = NULL;
    uint32_t n_natural = 0;
    if (r->u.join.natural) {
        natural = ARENA_ARRAY(b->pctx->arena, const char *, 64);
        BIND_CHECK(b, natural);
        for (uint32_t rel = 0; rel < left_scope.n_rels; rel++)
            for (uint32_t c = 0; c < left_scope.rels[rel].n_cols && n_natural < 64; c++) {
                const char *nm = left_scope.rels[rel].cols[c].name;
                if (nm && scope_col(s, first_right, right_scope.n_rels, nm)) natural[n_natural++] = nm;
            }
    }
    uint32_t n_using = natural ? n_natural : (uint32_t)using.n;
    if (n_using) {
        bexpr **conds = ARENA_ARRAY(b->pctx->arena, bexpr *, n_using);
        bexpr **coalesced = ARENA_ARRAY(b->pctx->arena, bexpr *, n_using);
        BIND_CHECK(b, conds && coalesced);
        bind_rel using_rel;
        memset(&using_rel, 0, sizeof using_rel);
        using_rel.cols = ARENA_ARRAY(b->pctx->arena, bind_rel_col, n_using);
        BIND_CHECK(b, using_rel.cols);
        for (uint32_t i = 0; i < n_using; i++) {
            const char *nm = natural ? natural[i] : using.items[i].name;
            int line = natural ? r->line : using.items[i].line;
            int col = natural ? r->col : using.items[i].col;
            const bind_rel_col *lc = scope_col(s, 0, first_right, nm);
            const bind_rel_col *rc2 = scope_col(s, first_right, right_scope.n_rels, nm);
            if (!lc || !rc2)
                return bind_error(b, SQE_ERR_COLUMN_NOT_FOUND, line, col,
                                  "Column '%s' is missing from %s side of join", nm,
                                  lc ? "right" : "left");
            bexpr *le = bexpr_column(b->pctx, lc->id, lc->type);
            bexpr *re = bexpr_column(b->pctx, rc2->id, rc2->type);
            BIND_CHECK(b, le && re);
            SQE_TRY(bind_comparison(b, SQL_OP_EQ, le, re, line, col, &conds[i]));
            /* the visible column */
            sqe_type common;
            if (!type_common_super(lc->type, rc2->type, &common)) common = lc->type;
            using_rel.cols[i].name = nm;
            if (jt == JOIN_FULL) {
                bexpr *co = bexpr_new(b->pctx, BEXPR_COALESCE, common, 2);
                BIND_CHECK(b, co);
                SQE_TRY(bind_cast(b, le, common, false, line, col, &co->args[0]));
                SQE_TRY(bind_cast(b, re, common, false, line, col, &co->args[1]));
                coalesced[i] = co;
            } else {
                coalesced[i] = jt == JOIN_RIGHT ? re : le;
            }
            using_rel.cols[i].type = coalesced[i]->type;
        }
        j->u.join.residual = bexpr_make_and(b->pctx, conds, n_using);
        plan *p = j;
        if (jt == JOIN_FULL) {
            /* project all join columns plus the coalesced ones */
            uint32_t total = j->n_out + n_using;
            bexpr **exprs = ARENA_ARRAY(b->pctx->arena, bexpr *, total);
            BIND_CHECK(b, exprs);
            for (uint32_t i = 0; i < j->n_out; i++) exprs[i] = bexpr_column(b->pctx, j->out[i].id, j->out[i].type);
            for (uint32_t i = 0; i < n_using; i++) exprs[j->n_out + i] = coalesced[i];
            p = bind_make_project(b, j, exprs, NULL, total);
            BIND_CHECK(b, p);
            for (uint32_t i = 0; i < n_using; i++) using_rel.cols[i].id = p->out[j->n_out + i].id;
        } else {
            for (uint32_t i = 0; i < n_using; i++) using_rel.cols[i].id = coalesced[i]->u.col;
        }
        using_rel.n_cols = n_using;
        /* hide the per-side copies from unqualified lookup and from `*` */
        for (uint32_t rel = 0; rel < s->n_rels; rel++)
            for (uint32_t c = 0; c < s->rels[rel].n_cols; c++)
                for (uint32_t i = 0; i < n_using; i++)
                    if (s->rels[rel].cols[c].name &&
                        strcmp(s->rels[rel].cols[c].name, using_rel.cols[i].name) == 0) {
                        bind_rel_col *copy = ARENA_ARRAY(b->pctx->arena, bind_rel_col, s->rels[rel].n_cols);
                        BIND_CHECK(b, copy);
                        memcpy(copy, s->rels[rel].cols, s->rels[rel].n_cols * sizeof(bind_rel_col));
                        copy[c].hidden = true;
                        s->rels[rel].cols = copy;
                    }
        /* the USING columns come first in `*` (Trino order) */
        if (s->n_rels == s->cap_rels) {
            SQE_TRY(bind_scope_add(b, s, &using_rel)); /* grows the array */
            s->n_rels--;
        }
        memmove(&s->rels[1], &s->rels[0], s->n_rels * sizeof(bind_rel));
        s->rels[0] = using_rel;
        s->n_rels++;
        *out = p;
        return SQE_OK;
    }
    if (r->u.join.on) {
        bexpr *cond;
        SQE_TRY(bind_join_on(b, s, r->u.join.on, &cond));
        if (bexpr_has_subquery(cond) && jt == JOIN_INNER) {
            /* an inner join's ON is a WHERE over the cross join: its subqueries may read both
             * sides (the optimizer pushes the plain conjuncts back into the join) */
            j->u.join.type = JOIN_CROSS;
            plan *p = j;
            SQE_TRY(filter_with_subqueries(b, &p, cond));
            *out = p;
            return SQE_OK;
        }
        if (bexpr_has_subquery(cond)) SQE_TRY(plan_on_subqueries(b, r->u.join.on, &j, &cond));
        j->u.join.residual = cond;
    } else if (jt != JOIN_CROSS && jt != JOIN_INNER) {
        return bind_error(b, SQE_ERR_SYNTAX_ERROR, r->line, r->col, "Join requires an ON or USING clause");
    }
    if (jt == JOIN_INNER && !j->u.join.residual) j->u.join.type = JOIN_CROSS;
    *out = j;
    return SQE_OK;
}

int bind_from(binder *b, bind_scope *outer, const sql_relation *r, plan **out, bind_scope *s) {
    if (++b->depth > SQL_MAX_DEPTH || stack_exhausted()) {
        b->depth--;
        return bind_error(b, SQE_ERR_GENERIC_USER_ERROR, r->line, r->col, "Query nesting too deep");
    }
    int rc;
    switch (r->kind) {
    case SQL_REL_TABLE: rc = bind_table(b, r, out, s); break;
    case SQL_REL_SUBQUERY: rc = bind_derived(b, outer, r, out, s); break;
    case SQL_REL_UNNEST: {
        plan *one = single_row(b);
        rc = one ? bind_unnest(b, outer ? outer : s, one, r, out, s) : bind_nomem(b);
        break;
    }
    case SQL_REL_FUNCTION:
    case SQL_REL_FILE: {
        const char **names;
        rc = bind_table_function(b, s, r, out, &names);
        if (rc) break;
        bind_rel *rel = bind_rel_from_plan(b, *out, r->alias ? r->alias->name : NULL, names);
        if (!rel) {
            rc = bind_nomem(b);
            break;
        }
        rc = set_alias_columns(b, r, *out, names, rel);
        if (!rc) rc = bind_scope_add(b, s, rel);
        break;
    }
    case SQL_REL_JOIN: rc = bind_join(b, outer, r, out, s); break;
    default: rc = bind_error(b, SQE_ERR_NOT_SUPPORTED, r->line, r->col, "Unsupported relation"); break;
    }
    b->depth--;
    return rc;
}
