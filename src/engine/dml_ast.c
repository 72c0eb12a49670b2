/*
 * dml_ast.c: small AST builders for statements the engine rewrites into queries (DELETE,
 * UPDATE and MERGE on tables become SELECTs over the table): all nodes in the caller's arena,
 * NULL on out-of-memory.
 *
 * INTERFACE: dml_ast_select, dml_ast_name, dml_ast_string, dml_ast_is_true, dml_ast_not,
 *   dml_ast_and, dml_ast_in_strings, dml_ast_count_star, dml_ast_cast (engine.h).
 */
#include <string.h>

#include "engine/engine.h"

sql_query *dml_ast_select(arena *a, const sql_qname *table, sql_select_item *items, int n_items,
                          sql_expr *where) {
    sql_query *q = ARENA_NEW(a, sql_query);
    sql_relation *rel = ARENA_NEW(a, sql_relation);
    sql_relation **from = ARENA_ARRAY(a, sql_relation *, 1);
    if (!q || !rel || !from) return NULL;
    rel->kind = SQL_REL_TABLE;
    rel->u.table.name = *table;
    from[0] = rel;
    q->kind = SQL_QUERY_SELECT;
    q->u.select.items = items;
    q->u.select.n_items = n_items;
    q->u.select.from = from;
    q->u.select.n_from = 1;
    q->u.select.where = where;
    return q;
}

sql_expr *dml_ast_name(arena *a, const char *name) {
    sql_expr *e = ARENA_NEW(a, sql_expr);
    sql_ident *id = ARENA_NEW(a, sql_ident);
    if (!e || !id) return NULL;
    id->name = name;
    id->text = name;
    id->quoted = true;
    e->kind = SQL_EXPR_NAME;
    e->u.name.parts = id;
    e->u.name.n_parts = 1;
    return e;
}

sql_expr *dml_ast_string(arena *a, const char *s) {
    sql_expr *e = ARENA_NEW(a, sql_expr);
    if (!e) return NULL;
    e->kind = SQL_EXPR_STRING;
    e->u.str.data = s;
    e->u.str.len = strlen(s);
    return e;
}

static sql_expr *call(arena *a, const char *fname, sql_expr **args, int n, int line, int col) {
    sql_expr *c = ARENA_NEW(a, sql_expr);
    sql_ident *id = ARENA_NEW(a, sql_ident);
    if (!c || !id) return NULL;
    id->name = id->text = fname;
    c->kind = SQL_EXPR_CALL;
    c->line = line;
    c->col = col;
    c->u.call.name.parts = id;
    c->u.call.name.n_parts = 1;
    c->u.call.args.items = args;
    c->u.call.args.n = n;
    return c;
}

sql_expr *dml_ast_is_true(arena *a, sql_expr *cond) {
    sql_expr *f = ARENA_NEW(a, sql_expr);
    sql_expr **args = ARENA_ARRAY(a, sql_expr *, 2);
    if (!f || !args || !cond) return NULL;
    f->kind = SQL_EXPR_BOOL;
    f->u.bool_value = false;
    args[0] = cond;
    args[1] = f;
    return call(a, "coalesce", args, 2, cond->line, cond->col);
}

sql_expr *dml_ast_not(arena *a, sql_expr *e) {
    sql_expr *n = ARENA_NEW(a, sql_expr);
    if (!n || !e) return NULL;
    n->kind = SQL_EXPR_UNARY;
    n->u.unary.op = SQL_OP_NOT;
    n->u.unary.arg = e;
    return n;
}

sql_expr *dml_ast_and(arena *a, sql_expr *x, sql_expr *y) {
    sql_expr *e = ARENA_NEW(a, sql_expr);
    sql_expr **items = ARENA_ARRAY(a, sql_expr *, 2);
    if (!e || !items || !x || !y) return NULL;
    items[0] = x;
    items[1] = y;
    e->kind = SQL_EXPR_AND;
    e->u.list.items = items;
    e->u.list.n = 2;
    return e;
}

sql_expr *dml_ast_in_strings(arena *a, sql_expr *arg, const char *const *values, uint32_t n) {
    sql_expr *e = ARENA_NEW(a, sql_expr);
    sql_expr **items = ARENA_ARRAY(a, sql_expr *, n + 1);
    if (!e || !items || !arg) return NULL;
    for (uint32_t i = 0; i < n; i++)
        if (!(items[i] = dml_ast_string(a, values[i]))) return NULL;
    e->kind = SQL_EXPR_IN_LIST;
    e->u.in_list.arg = arg;
    e->u.in_list.values.items = items;
    e->u.in_list.values.n = (int)n;
    return e;
}

sql_expr *dml_ast_count_star(arena *a) {
    sql_expr *c = call(a, "count", NULL, 0, 0, 0);
    if (c) c->u.call.star = true;
    return c;
}

sql_expr *dml_ast_cast(arena *a, sql_expr *v, sqe_type t) {
    sql_expr *cast = ARENA_NEW(a, sql_expr);
    char tname[256];
    type_format(t, tname, sizeof tname);
    if (!cast || !v) return NULL;
    cast->kind = SQL_EXPR_CAST;
    cast->line = v->line;
    cast->col = v->col;
    cast->u.cast.arg = v;
    cast->u.cast.type.text = arena_strdup(a, tname);
    return cast->u.cast.type.text ? cast : NULL;
}
