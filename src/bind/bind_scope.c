/*
 * bind_scope.c: scopes and name resolution.
 *
 * INTERFACE: bind_error, bind_nomem, bind_rel_qualify, bind_scope_add, bind_rel_from_plan,
 *   bind_resolve_name, bind_make_filter, bind_make_project.
 * NOTES: a name a.b.c is first a lambda parameter `a` with field accesses; else the scopes are
 * searched innermost first (Trino's Scope.resolveField), and in each one the name is tried as
 * schema `a`, relation `b`, column `c`; relation `a`, column `b`; column `a` of any relation
 * (then b, c are ROW field accesses). A scope holding a column `a` ends the search there, so
 * a.b never reaches an outer relation `a` past it (a non-ROW `a` is TYPE_MISMATCH "Expression a
 * is not of type ROW"). A relation matches the schema-qualified form only when the FROM item was
 * written with its schema (bind_rel_qualify). Two relations of the same scope offering the same
 * column make the name ambiguous (AMBIGUOUS_NAME), as in Trino.
 */
#include "bind/bind_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int bind_error(binder *b, int code, int line, int col, const char *fmt, ...) {
    if (!b->err) return code;
    va_list ap;
    va_start(ap, fmt);
    err_setv(b->err, code, fmt, ap);
    va_end(ap);
    b->err->line = line;
    b->err->column = col;
    return code;
}

int bind_nomem(binder *b) { return err_nomem(b->err, "binding the statement"); }

void bind_rel_qualify(bind_rel *rel, const sql_relation *r, const char *cat_name,
                      const char *schema) {
    if (r->alias || r->kind != SQL_REL_TABLE) return;
    int parts = r->u.table.name.n_parts;
    if (parts >= 2) rel->schema = schema;
    if (parts >= 3) rel->catalog = cat_name;
}

int bind_scope_add(binder *b, bind_scope *s, const bind_rel *rel) {
    if (s->n_rels == s->cap_rels) {
        uint32_t cap = s->cap_rels ? s->cap_rels * 2 : 4;
        bind_rel *rels = ARENA_ARRAY(b->pctx->arena, bind_rel, cap);
        BIND_CHECK(b, rels);
        if (s->n_rels) memcpy(rels, s->rels, s->n_rels * sizeof(bind_rel));
        s->rels = rels;
        s->cap_rels = cap;
    }
    s->rels[s->n_rels++] = *rel;
    return SQE_OK;
}

bind_rel *bind_rel_from_plan(binder *b, const plan *p, const char *alias, const char **names) {
    bind_rel *r = ARENA_NEW(b->pctx->arena, bind_rel);
    if (!r) return NULL;
    r->alias = alias;
    r->cols = ARENA_ARRAY(b->pctx->arena, bind_rel_col, p->n_out ? p->n_out : 1);
    if (!r->cols) return NULL;
    r->n_cols = p->n_out;
    for (uint32_t i = 0; i < p->n_out; i++) {
        r->cols[i].name = names ? names[i] : p->out[i].name;
        r->cols[i].id = p->out[i].id;
        r->cols[i].type = p->out[i].type;
    }
    return r;
}

/* Looks for column `name` among the relations of s (optionally only relation `rel_name`,
 * optionally also matching the relation's schema). Returns 0 not found, 1 found, -1 ambiguous. */
static int find_in_scope(const bind_scope *s, const char *schema, const char *rel_name,
                         const char *name, const bind_rel_col **found) {
    int hits = 0;
    for (uint32_t r = 0; r < s->n_rels; r++) {
        const bind_rel *rel = &s->rels[r];
        if (rel_name && (!rel->alias || strcmp(rel->alias, rel_name) != 0)) continue;
        if (schema && (!rel->schema || strcmp(rel->schema, schema) != 0)) continue;
        for (uint32_t c = 0; c < rel->n_cols; c++) {
            if (!rel->cols[c].name || strcmp(rel->cols[c].name, name) != 0) continue;
            if (rel->cols[c].hidden && !rel_name) continue;
            if (hits && *found && (*found)->id == rel->cols[c].id) continue;
            *found = &rel->cols[c];
            hits++;
        }
    }
    return hits > 1 ? -1 : hits;
}

static bool has_rel(const bind_scope *s, const char *rel_name) {
    for (uint32_t r = 0; r < s->n_rels; r++)
        if (s->rels[r].alias && strcmp(s->rels[r].alias, rel_name) == 0) return true;
    return false;
}

/* Applies field accesses parts[first..n) to base (a ROW value). */
static int apply_fields(binder *b, bexpr *base, const sql_qname *name, int first, bexpr **out) {
    bexpr *cur = base;
    for (int i = first; i < name->n_parts; i++) {
        const sql_ident *part = &name->parts[i];
        if (cur->type.id != TYPE_ROW || !cur->type.nested)
            return bind_error(b, SQE_ERR_COLUMN_NOT_FOUND, part->line, part->col,
                              "Column '%s' cannot be resolved", part->text);
        const type_nested *n = cur->type.nested;
        uint32_t idx = n->n_children;
        for (uint32_t f = 0; f < n->n_children; f++)
            if (n->names && n->names[f] && strcmp(n->names[f], part->name) == 0) idx = f;
        if (idx == n->n_children)
            return bind_error(b, SQE_ERR_COLUMN_NOT_FOUND, part->line, part->col,
                              "Column '%s' cannot be resolved", part->text);
        bexpr *f = bexpr_new(b->pctx, BEXPR_FIELD, n->children[idx], 1);
        BIND_CHECK(b, f);
        f->args[0] = cur;
        f->u.field = idx;
        f->line = part->line;
        f->col = part->col;
        cur = f;
    }
    *out = cur;
    return SQE_OK;
}

static int column_ref(binder *b, const bind_rel_col *c, int line, int col, bexpr **out) {
    bexpr *e = bexpr_column(b->pctx, c->id, c->type);
    BIND_CHECK(b, e);
    e->line = line;
    e->col = col;
    *out = e;
    return SQE_OK;
}

static void mark_outer(bind_scope *from, bind_scope *to) {
    for (bind_scope *s = from; s && s != to; s = s->parent) s->used_outer = true;
}

int bind_resolve_name(binder *b, bind_scope *s, const sql_qname *name, int line, int col,
                      bexpr **out) {
    const sql_ident *p = name->parts;
    int n = name->n_parts;
    /* Lambda parameters shadow columns. */
    for (bind_lambda_scope *ls = b->lambdas; ls; ls = ls->parent)
        for (uint32_t i = 0; i < ls->n; i++)
            if (strcmp(ls->names[i].name, p[0].name) == 0) {
                bexpr *e = bexpr_column(b->pctx, ls->ids[i], ls->types[i]);
                BIND_CHECK(b, e);
                e->line = line;
                e->col = col;
                return apply_fields(b, e, name, 1, out);
            }
    /* Scope by scope, innermost first (Trino's Scope.resolveField): the qualified reference
     * (schema.table.column, table.column) first, then a column named by the first part, whose
     * ROW fields the other parts name; a scope with such a column ends the search even when the
     * fields do not fit (dept.id with a column dept is "Expression dept is not of type ROW"),
     * so an outer table of that name is not reached. */
    for (bind_scope *cur = s; cur; cur = cur->parent) {
        const bind_rel_col *found = NULL;
        if (n >= 3 && find_in_scope(cur, p[0].name, p[1].name, p[2].name, &found) > 0) {
            mark_outer(s, cur);
            bexpr *e = NULL;
            SQE_TRY(column_ref(b, found, line, col, &e));
            return apply_fields(b, e, name, 3, out);
        }
        if (n >= 2 && has_rel(cur, p[0].name)) {
            int hits = find_in_scope(cur, NULL, p[0].name, p[1].name, &found);
            if (hits < 0)
                return bind_error(b, SQE_ERR_AMBIGUOUS_NAME, line, col,
                                  "Column '%s.%s' is ambiguous", p[0].text, p[1].text);
            if (hits > 0) {
                mark_outer(s, cur);
                bexpr *e = NULL;
                SQE_TRY(column_ref(b, found, line, col, &e));
                return apply_fields(b, e, name, 2, out);
            }
        }
        int hits = find_in_scope(cur, NULL, NULL, p[0].name, &found);
        if (hits < 0)
            return bind_error(b, SQE_ERR_AMBIGUOUS_NAME, line, col, "Column '%s' is ambiguous",
                              p[0].text);
        if (hits > 0) {
            mark_outer(s, cur);
            bexpr *e = NULL;
            SQE_TRY(column_ref(b, found, line, col, &e));
            if (n >= 2 && (e->type.id != TYPE_ROW || !e->type.nested))
                return bind_error(b, SQE_ERR_TYPE_MISMATCH, line, col,
                                  "Expression %s is not of type ROW", p[0].text);
            return apply_fields(b, e, name, 1, out);
        }
        if (n >= 2 && has_rel(cur, p[0].name))
            return bind_error(b, SQE_ERR_COLUMN_NOT_FOUND, line, col,
                              "Column '%s.%s' cannot be resolved", p[0].text, p[1].text);
    }
    strbuf sb;
    strbuf_init(&sb);
    for (int i = 0; i < n; i++) {
        if (i) strbuf_putc(&sb, '.');
        strbuf_puts(&sb, p[i].text);
    }
    int rc = bind_error(b, SQE_ERR_COLUMN_NOT_FOUND, line, col, "Column '%s' cannot be resolved",
                        strbuf_cstr(&sb));
    strbuf_reset(&sb);
    return rc;
}

plan *bind_make_filter(binder *b, plan *input, bexpr *cond) {
    if (!cond) return input;
    plan *f = plan_new(b->pctx, PLAN_FILTER, 1, input->n_out);
    if (!f) return NULL;
    f->children[0] = input;
    memcpy(f->out, input->out, input->n_out * sizeof(plan_col));
    f->u.filter.cond = cond;
    return f;
}

plan *bind_make_project(binder *b, plan *input, bexpr **exprs, const char **names, uint32_t n) {
    plan *p = plan_new(b->pctx, PLAN_PROJECT, 1, n);
    if (!p) return NULL;
    p->children[0] = input;
    p->u.project.exprs = ARENA_ARRAY(b->pctx->arena, bexpr *, n ? n : 1);
    if (!p->u.project.exprs) return NULL;
    for (uint32_t i = 0; i < n; i++) {
        p->u.project.exprs[i] = exprs[i];
        /* A plain column passes through under its own id; computed values get a new id. */
        bool reuse = exprs[i]->kind == BEXPR_COLUMN && plan_find_col(input, exprs[i]->u.col) >= 0;
        for (uint32_t j = 0; reuse && j < i; j++)
            if (p->out[j].id == exprs[i]->u.col) reuse = false;
        if (reuse)
            p->out[i].id = exprs[i]->u.col;
        else
            p->out[i].id = plan_new_col(b->pctx);
        p->out[i].type = exprs[i]->type;
        p->out[i].name = names ? names[i] : NULL;
    }
    return p;
}
