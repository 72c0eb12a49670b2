/*
 * parse_query.c: queries (WITH, set operations, SELECT, VALUES, TABLE, ORDER BY, OFFSET,
 * LIMIT, FETCH) and relations (tables, subqueries, UNNEST, table functions, joins).
 *
 * INTERFACE
 *   sql_parse_query           query: [WITH ...] queryNoWith
 *   sql_parse_query_rest      continue a query whose first operand is already parsed
 *   sql_tok_starts_query      SELECT / WITH / VALUES / TABLE
 *   sql_parse_relation        relation with joins
 *   sql_parse_named_args      ( [name =>] value, ... )
 *
 * NOTES
 *   - INTERSECT binds tighter than UNION and EXCEPT; all are left-associative. A chain of the
 *     same operator and quantifier is flattened into one n-ary node (n-ary means a left fold, so
 *     this is also right for EXCEPT), which keeps long UNION ALL lists shallow.
 *   - A parenthesized query without its own WITH/ORDER BY/OFFSET/LIMIT is returned as is;
 *     otherwise it is wrapped in SQL_QUERY_NESTED so its clauses keep their scope.
 *   - `(` in FROM is a subquery when a query keyword follows, else a parenthesized relation; a
 *     parenthesized relation that turns out to be a bare subquery followed by UNION/ORDER BY/..
 *     continues as a query (FROM ((SELECT 1) UNION (SELECT 2)) t). No backtracking.
 *   - Non-reserved words that start clauses (LIMIT, OFFSET, FETCH, WINDOW) are not taken as
 *     implicit aliases; write AS to use them as aliases.
 */
#include <string.h>

#include "sql/sql.h"
#include "sql/sql_int.h"

static sql_query *parse_query_term(sql_parser *p, sql_query *first);
static sql_query *parse_query_tail(sql_parser *p, sql_query *q);

bool sql_tok_starts_query(const sql_token *t) {
    if (t->kind != TK_WORD) return false;
    return t->kw == KW_SELECT || t->kw == KW_WITH || t->kw == KW_VALUES || t->kw == KW_TABLE;
}

static sql_query *new_query(sql_parser *p, sql_query_kind kind, const sql_token *at) {
    sql_query *q = sql_alloc(p, sizeof *q);
    if (!q) return NULL;
    q->kind = (uint8_t)kind;
    q->line = at->line;
    q->col = at->col;
    return q;
}

static sql_relation *new_relation(sql_parser *p, sql_relation_kind kind, const sql_token *at) {
    sql_relation *r = sql_alloc(p, sizeof *r);
    if (!r) return NULL;
    r->kind = (uint8_t)kind;
    r->line = at->line;
    r->col = at->col;
    return r;
}

static bool has_tail(const sql_query *q) {
    return q->order_by.n > 0 || q->offset || q->limit || q->with;
}

/* Words that start a clause after a select item or relation and so cannot be implicit aliases. */
static bool is_clause_word(const sql_token *t) {
    if (t->kind != TK_WORD) return false;
    return t->kw == KW_LIMIT || t->kw == KW_OFFSET || t->kw == KW_FETCH || t->kw == KW_WINDOW;
}

/* [AS] alias; returns NULL without error when there is none. *ok is false on error. */
static sql_ident *parse_alias(sql_parser *p, bool *ok) {
    *ok = true;
    bool as = sql_accept_kw(p, KW_AS);
    if (!as && (!sql_is_ident(p) || is_clause_word(sql_cur(p)))) return NULL;
    sql_ident *id = sql_alloc(p, sizeof *id);
    if (!id || !sql_parse_ident(p, id)) {
        *ok = false;
        return NULL;
    }
    return id;
}

/* ---------------------------------------------------------------------------------------------
 * WITH
 * ------------------------------------------------------------------------------------------- */

static sql_with *parse_with(sql_parser *p) {
    const sql_token *t = sql_cur(p);
    sql_advance(p); /* WITH */
    sql_with *w = sql_alloc(p, sizeof *w);
    if (!w) return NULL;
    w->line = t->line;
    w->col = t->col;
    w->recursive = sql_accept_kw(p, KW_RECURSIVE);
    sql_vec items = {0};
    do {
        const sql_token *it = sql_cur(p);
        sql_with_item *item = sql_vec_push(p, &items, sizeof *item);
        if (!item || !sql_parse_ident(p, &item->name)) return NULL;
        item->line = it->line;
        item->col = it->col;
        if (sql_is_tok(p, TK_LPAREN) && !sql_parse_ident_list(p, &item->columns)) return NULL;
        if (!sql_expect_kw(p, KW_AS) || !sql_expect_tok(p, TK_LPAREN)) return NULL;
        item->query = sql_parse_query(p);
        if (!item->query || !sql_expect_tok(p, TK_RPAREN)) return NULL;
    } while (sql_accept_tok(p, TK_COMMA));
    w->items = items.data;
    w->n_items = items.n;
    return w;
}

/* ---------------------------------------------------------------------------------------------
 * SELECT
 * ------------------------------------------------------------------------------------------- */

static bool parse_select_item(sql_parser *p, sql_select_item *it) {
    const sql_token *t = sql_cur(p);
    it->line = t->line;
    it->col = t->col;
    if (sql_accept_tok(p, TK_STAR)) {
        it->kind = SQL_SELECT_STAR;
        return true;
    }
    it->expr = sql_parse_expr(p);
    if (!it->expr) return false;
    if (sql_cur(p)->kind == TK_DOT && sql_peek(p, 1)->kind == TK_STAR) {
        sql_advance(p);
        sql_advance(p);
        it->kind = SQL_SELECT_STAR;
        if (sql_accept_kw(p, KW_AS)) return sql_parse_ident_list(p, &it->aliases);
        return true;
    }
    it->kind = SQL_SELECT_EXPR;
    bool ok;
    it->alias = parse_alias(p, &ok);
    return ok;
}

/* A grouping set: (a, b) | () | expr. */
static bool parse_grouping_set(sql_parser *p, sql_expr_list *set) {
    if (sql_cur(p)->kind == TK_LPAREN && sql_peek(p, 1)->kind == TK_RPAREN) {
        sql_advance(p);
        sql_advance(p);
        set->items = NULL;
        set->n = 0;
        return true;
    }
    sql_expr *e = sql_parse_expr(p);
    if (!e) return false;
    if (e->kind == SQL_EXPR_ROW && e->u.row.implicit) {
        *set = e->u.row.items;
        return true;
    }
    set->items = sql_alloc(p, sizeof(sql_expr *));
    if (!set->items) return false;
    set->items[0] = e;
    set->n = 1;
    return true;
}

static bool parse_grouping_element(sql_parser *p, sql_grouping_element *el) {
    const sql_token *t = sql_cur(p);
    el->line = t->line;
    el->col = t->col;
    sql_vec sets = {0};
    bool multi = false;
    if (sql_accept_kw(p, KW_ROLLUP)) {
        el->kind = SQL_GROUPING_ROLLUP;
        multi = true;
    } else if (sql_accept_kw(p, KW_CUBE)) {
        el->kind = SQL_GROUPING_CUBE;
        multi = true;
    } else if (sql_is_kw(p, KW_GROUPING) && sql_peek_kw(p, 1, KW_SETS)) {
        sql_advance(p);
        sql_advance(p);
        el->kind = SQL_GROUPING_SETS;
        multi = true;
    } else {
        el->kind = SQL_GROUPING_SIMPLE;
    }
    if (multi) {
        if (!sql_expect_tok(p, TK_LPAREN)) return false;
        if (!(el->kind != SQL_GROUPING_SETS && sql_is_tok(p, TK_RPAREN))) {
            do {
                sql_expr_list *set = sql_vec_push(p, &sets, sizeof *set);
                if (!set || !parse_grouping_set(p, set)) return false;
            } while (sql_accept_tok(p, TK_COMMA));
        }
        if (!sql_expect_tok(p, TK_RPAREN)) return false;
    } else {
        sql_expr_list *set = sql_vec_push(p, &sets, sizeof *set);
        if (!set || !parse_grouping_set(p, set)) return false;
    }
    el->sets = sets.data;
    el->n_sets = sets.n;
    return true;
}

static bool ends_group_by(const sql_token *t) {
    switch ((sql_tok_kind)t->kind) {
    case TK_EOF:
    case TK_SEMI:
    case TK_RPAREN:
    case TK_COMMA: return true;
    case TK_WORD:
        return t->kw == KW_HAVING || t->kw == KW_ORDER || t->kw == KW_LIMIT ||
               t->kw == KW_OFFSET || t->kw == KW_FETCH || t->kw == KW_WINDOW ||
               t->kw == KW_UNION || t->kw == KW_INTERSECT || t->kw == KW_EXCEPT;
    default: return false;
    }
}

static sql_group_by *parse_group_by(sql_parser *p, const sql_token *at) {
    sql_group_by *g = sql_alloc(p, sizeof *g);
    if (!g) return NULL;
    g->line = at->line;
    g->col = at->col;
    if (sql_accept_kw(p, KW_DISTINCT)) {
        g->quantifier = SQL_SET_DISTINCT;
    } else if (sql_is_kw(p, KW_ALL) && !ends_group_by(sql_peek(p, 1)) &&
               sql_peek(p, 1)->kind != TK_DOT) {
        sql_advance(p);
        g->quantifier = SQL_SET_ALL;
    }
    sql_vec els = {0};
    do {
        sql_grouping_element *el = sql_vec_push(p, &els, sizeof *el);
        if (!el || !parse_grouping_element(p, el)) return NULL;
    } while (sql_accept_tok(p, TK_COMMA));
    g->elements = els.data;
    g->n_elements = els.n;
    return g;
}

static bool parse_window_defs(sql_parser *p, sql_select *s) {
    sql_vec defs = {0};
    do {
        sql_window_def *d = sql_vec_push(p, &defs, sizeof *d);
        if (!d || !sql_parse_ident(p, &d->name) || !sql_expect_kw(p, KW_AS)) return false;
        d->spec = sql_parse_window_spec(p);
        if (!d->spec) return false;
    } while (sql_accept_tok(p, TK_COMMA));
    s->windows = defs.data;
    s->n_windows = defs.n;
    return true;
}

static sql_query *parse_select(sql_parser *p) {
    const sql_token *t = sql_cur(p);
    sql_advance(p); /* SELECT */
    sql_query *q = new_query(p, SQL_QUERY_SELECT, t);
    if (!q) return NULL;
    sql_select *s = &q->u.select;
    if (sql_accept_kw(p, KW_DISTINCT))
        s->distinct = true;
    else if (sql_is_kw(p, KW_ALL) && !sql_peek_tok(p, 1, TK_COMMA) && !sql_peek_kw(p, 1, KW_FROM) &&
             !sql_peek_tok(p, 1, TK_DOT) && !sql_peek_tok(p, 1, TK_EOF))
        sql_advance(p);
    sql_vec items = {0};
    do {
        sql_select_item *it = sql_vec_push(p, &items, sizeof *it);
        if (!it || !parse_select_item(p, it)) return NULL;
    } while (sql_accept_tok(p, TK_COMMA));
    s->items = items.data;
    s->n_items = items.n;
    if (sql_accept_kw(p, KW_FROM)) {
        sql_vec from = {0};
        do {
            sql_relation *r = sql_parse_relation(p);
            if (!r || !sql_vec_push_ptr(p, &from, r)) return NULL;
        } while (sql_accept_tok(p, TK_COMMA));
        s->from = from.data;
        s->n_from = from.n;
    }
    if (sql_accept_kw(p, KW_WHERE)) {
        s->where = sql_parse_expr(p);
        if (!s->where) return NULL;
    }
    const sql_token *g = sql_cur(p);
    if (sql_accept_kw(p, KW_GROUP)) {
        if (!sql_expect_kw(p, KW_BY)) return NULL;
        s->group_by = parse_group_by(p, g);
        if (!s->group_by) return NULL;
    }
    if (sql_accept_kw(p, KW_HAVING)) {
        s->having = sql_parse_expr(p);
        if (!s->having) return NULL;
    }
    if (sql_is_kw(p, KW_WINDOW) && sql_tok_is_ident(sql_peek(p, 1)) && sql_peek_kw(p, 2, KW_AS)) {
        sql_advance(p);
        if (!parse_window_defs(p, s)) return NULL;
    }
    return q;
}

/* ---------------------------------------------------------------------------------------------
 * Query terms and tails
 * ------------------------------------------------------------------------------------------- */

static sql_query *parse_query_primary(sql_parser *p) {
    const sql_token *t = sql_cur(p);
    if (sql_is_kw(p, KW_SELECT)) return parse_select(p);
    if (sql_accept_kw(p, KW_VALUES)) {
        sql_query *q = new_query(p, SQL_QUERY_VALUES, t);
        sql_expr_list rows;
        if (!q || !sql_parse_expr_list(p, &rows)) return NULL;
        q->u.values.rows = rows.items;
        q->u.values.n_rows = rows.n;
        return q;
    }
    if (sql_accept_kw(p, KW_TABLE)) {
        sql_query *q = new_query(p, SQL_QUERY_TABLE, t);
        if (!q || !sql_parse_qname(p, &q->u.table)) return NULL;
        return q;
    }
    if (sql_is_tok(p, TK_LPAREN)) {
        sql_advance(p);
        sql_query *inner = sql_parse_query(p);
        if (!inner || !sql_expect_tok(p, TK_RPAREN)) return NULL;
        if (!has_tail(inner)) return inner;
        sql_query *q = new_query(p, SQL_QUERY_NESTED, t);
        if (!q) return NULL;
        q->u.nested = inner;
        return q;
    }
    sql_is_kw(p, KW_WITH);
    sql_error_unexpected(p);
    return NULL;
}

/* The n-ary set operation node being extended by a loop, with its growable input array. */
typedef struct set_chain {
    sql_query *node;
    sql_vec inputs;
} set_chain;

/* left op right: appends to left when left is the chain's node (or another set operation of
 * the same op and quantifier without clauses of its own), else makes a new binary node.
 * Returns NULL on error. */
static sql_query *combine(sql_parser *p, set_chain *chain, sql_query *left, sql_query *right,
                          uint8_t op, uint8_t quant, const sql_token *at, int *links) {
    if (!right) return NULL;
    if (left->kind == SQL_QUERY_SET_OP && left->u.set_op.op == op &&
        left->u.set_op.quantifier == quant && !has_tail(left)) {
        if (chain->node != left) {
            /* adopt a node made elsewhere (a parenthesized operand): copy its inputs once */
            chain->node = left;
            chain->inputs = (sql_vec){0};
            for (int i = 0; i < left->u.set_op.n_inputs; i++)
                if (!sql_vec_push_ptr(p, &chain->inputs, left->u.set_op.inputs[i])) return NULL;
        }
        if (!sql_vec_push_ptr(p, &chain->inputs, right)) return NULL;
        left->u.set_op.inputs = chain->inputs.data;
        left->u.set_op.n_inputs = chain->inputs.n;
        return left;
    }
    if (!sql_depth_enter(p)) return NULL;
    (*links)++;
    sql_query *q = new_query(p, SQL_QUERY_SET_OP, at);
    if (!q) return NULL;
    chain->node = q;
    chain->inputs = (sql_vec){0};
    if (!sql_vec_push_ptr(p, &chain->inputs, left) || !sql_vec_push_ptr(p, &chain->inputs, right))
        return NULL;
    q->u.set_op.op = op;
    q->u.set_op.quantifier = quant;
    q->u.set_op.inputs = chain->inputs.data;
    q->u.set_op.n_inputs = 2;
    return q;
}

static sql_query *parse_intersect_level(sql_parser *p, sql_query *first) {
    sql_query *left = first ? first : parse_query_primary(p);
    int links = 0;
    set_chain chain = {0};
    while (left && sql_is_kw(p, KW_INTERSECT)) {
        const sql_token *t = sql_cur(p);
        sql_advance(p);
        uint8_t quant = SQL_SET_DISTINCT;
        if (sql_accept_kw(p, KW_ALL))
            quant = SQL_SET_ALL;
        else
            sql_accept_kw(p, KW_DISTINCT);
        sql_query *right = parse_query_primary(p);
        if (!right) return NULL;
        left = combine(p, &chain, left, right, SQL_SET_INTERSECT, quant, t, &links);
    }
    p->depth -= links;
    return left;
}

static sql_query *parse_query_term(sql_parser *p, sql_query *first) {
    sql_query *left = parse_intersect_level(p, first);
    int links = 0;
    set_chain chain = {0};
    while (left && (sql_is_kw(p, KW_UNION) || sql_is_kw(p, KW_EXCEPT))) {
        const sql_token *t = sql_cur(p);
        uint8_t op = t->kw == KW_UNION ? SQL_SET_UNION : SQL_SET_EXCEPT;
        sql_advance(p);
        uint8_t quant = SQL_SET_DISTINCT;
        if (sql_accept_kw(p, KW_ALL))
            quant = SQL_SET_ALL;
        else
            sql_accept_kw(p, KW_DISTINCT);
        sql_query *right = parse_intersect_level(p, NULL);
        if (!right) return NULL;
        left = combine(p, &chain, left, right, op, quant, t, &links);
    }
    p->depth -= links;
    return left;
}

/* rowCount: INTEGER_VALUE | '?' */
static sql_expr *parse_row_count(sql_parser *p) {
    const sql_token *t = sql_cur(p);
    if (!sql_is_tok(p, TK_INTEGER) && !sql_is_tok(p, TK_PARAM)) {
        sql_error_unexpected(p);
        return NULL;
    }
    sql_expr *e = sql_parse_primary_expr(p);
    if (e && e->kind != SQL_EXPR_INTEGER && e->kind != SQL_EXPR_PARAM) {
        sql_error_at(p, t, "invalid row count: %.*s", (int)(t->len > 40 ? 40 : t->len),
                     p->text + t->off);
        return NULL;
    }
    return e;
}

static sql_query *parse_query_tail(sql_parser *p, sql_query *q) {
    if (!q) return NULL;
    if (sql_is_kw(p, KW_ORDER)) {
        sql_advance(p);
        if (!sql_expect_kw(p, KW_BY) || !sql_parse_order_by(p, &q->order_by)) return NULL;
    }
    if (sql_accept_kw(p, KW_OFFSET)) {
        q->offset = parse_row_count(p);
        if (!q->offset) return NULL;
        if (!sql_accept_kw(p, KW_ROW)) sql_accept_kw(p, KW_ROWS);
    }
    if (sql_accept_kw(p, KW_LIMIT)) {
        if (!sql_accept_kw(p, KW_ALL)) {
            q->limit = parse_row_count(p);
            if (!q->limit) return NULL;
        }
        /* LIMIT n OFFSET m (accepted as an extension when OFFSET was not given first) */
        if (!q->offset && sql_accept_kw(p, KW_OFFSET)) {
            q->offset = parse_row_count(p);
            if (!q->offset) return NULL;
            if (!sql_accept_kw(p, KW_ROW)) sql_accept_kw(p, KW_ROWS);
        }
    } else if (sql_is_kw(p, KW_FETCH)) {
        const sql_token *t = sql_cur(p);
        sql_advance(p);
        if (!sql_accept_kw(p, KW_FIRST) && !sql_expect_kw(p, KW_NEXT)) return NULL;
        if (sql_is_tok(p, TK_INTEGER) || sql_is_tok(p, TK_PARAM)) {
            q->limit = parse_row_count(p);
            if (!q->limit) return NULL;
        } else {
            q->limit = sql_expr_new(p, SQL_EXPR_INTEGER, t);
            if (!q->limit) return NULL;
            q->limit->u.num.ival = 1;
            q->limit->u.num.text = "1";
        }
        q->fetch_first = true;
        if (!sql_accept_kw(p, KW_ROW) && !sql_expect_kw(p, KW_ROWS)) return NULL;
        if (sql_accept_kw(p, KW_WITH)) {
            if (!sql_expect_kw(p, KW_TIES)) return NULL;
            q->with_ties = true;
        } else if (!sql_expect_kw(p, KW_ONLY)) {
            return NULL;
        }
    }
    return q;
}

sql_query *sql_parse_query_rest(sql_parser *p, sql_query *first) {
    return parse_query_tail(p, parse_query_term(p, first));
}

sql_query *sql_parse_query(sql_parser *p) {
    if (!sql_depth_enter(p)) return NULL;
    const sql_token *t = sql_cur(p);
    sql_with *with = NULL;
    if (sql_is_kw(p, KW_WITH)) {
        with = parse_with(p);
        if (!with) return NULL;
    }
    sql_query *q = parse_query_tail(p, parse_query_term(p, NULL));
    if (!q) return NULL;
    if (with) {
        if (q->with) {
            sql_query *outer = new_query(p, SQL_QUERY_NESTED, t);
            if (!outer) return NULL;
            outer->u.nested = q;
            q = outer;
        }
        q->with = with;
        q->line = t->line;
        q->col = t->col;
    }
    sql_depth_leave(p);
    return q;
}

/* ---------------------------------------------------------------------------------------------
 * Relations
 * ------------------------------------------------------------------------------------------- */

bool sql_parse_named_args(sql_parser *p, sql_named_arg **args, int *n_args) {
    if (!sql_expect_tok(p, TK_LPAREN)) return false;
    sql_vec v = {0};
    if (!sql_is_tok(p, TK_RPAREN)) {
        do {
            sql_named_arg *a = sql_vec_push(p, &v, sizeof *a);
            if (!a) return false;
            if (sql_tok_is_ident(sql_cur(p)) && sql_peek_tok(p, 1, TK_NAMED)) {
                a->name = sql_alloc(p, sizeof *a->name);
                if (!a->name || !sql_parse_ident(p, a->name)) return false;
                sql_advance(p); /* => */
            }
            a->value = sql_parse_expr(p);
            if (!a->value) return false;
        } while (sql_accept_tok(p, TK_COMMA));
    }
    if (!sql_expect_tok(p, TK_RPAREN)) return false;
    *args = v.data;
    *n_args = v.n;
    return true;
}

static sql_relation *parse_subquery_relation(sql_parser *p, const sql_token *at, bool lateral) {
    if (!sql_expect_tok(p, TK_LPAREN)) return NULL;
    sql_relation *r = new_relation(p, SQL_REL_SUBQUERY, at);
    if (!r) return NULL;
    r->u.subquery.lateral = lateral;
    r->u.subquery.query = sql_parse_query(p);
    if (!r->u.subquery.query || !sql_expect_tok(p, TK_RPAREN)) return NULL;
    return r;
}

static sql_relation *parse_relation_primary(sql_parser *p) {
    const sql_token *t = sql_cur(p);
    if (t->kind == TK_LPAREN) {
        if (sql_tok_starts_query(sql_peek(p, 1))) return parse_subquery_relation(p, t, false);
        sql_advance(p);
        sql_relation *r = sql_parse_relation(p);
        if (!r) return NULL;
        if (r->kind == SQL_REL_SUBQUERY && !r->alias && !r->u.subquery.lateral &&
            sql_at_query_continuation(p)) {
            sql_query *q = sql_parse_query_rest(p, r->u.subquery.query);
            if (!q) return NULL;
            r = new_relation(p, SQL_REL_SUBQUERY, t);
            if (!r) return NULL;
            r->u.subquery.query = q;
        }
        if (!sql_expect_tok(p, TK_RPAREN)) return NULL;
        return r;
    }
    if (t->kind == TK_STRING || t->kind == TK_USTRING) {
        sql_relation *r = new_relation(p, SQL_REL_FILE, t);
        if (!r || !sql_parse_string(p, &r->u.file.path, &r->u.file.len)) return NULL;
        return r;
    }
    if (sql_is_kw(p, KW_LATERAL) && sql_peek_tok(p, 1, TK_LPAREN)) {
        sql_advance(p);
        return parse_subquery_relation(p, t, true);
    }
    if (sql_accept_kw(p, KW_UNNEST)) {
        sql_relation *r = new_relation(p, SQL_REL_UNNEST, t);
        if (!r || !sql_expect_tok(p, TK_LPAREN) || !sql_parse_expr_list(p, &r->u.unnest.args) ||
            !sql_expect_tok(p, TK_RPAREN))
            return NULL;
        if (sql_is_kw(p, KW_WITH) && sql_peek_kw(p, 1, KW_ORDINALITY)) {
            sql_advance(p);
            sql_advance(p);
            r->u.unnest.with_ordinality = true;
        }
        return r;
    }
    if (sql_is_kw(p, KW_TABLE) && sql_peek_tok(p, 1, TK_LPAREN)) {
        /* TABLE(fn(args)) */
        sql_advance(p);
        sql_advance(p);
        sql_relation *r = new_relation(p, SQL_REL_FUNCTION, t);
        if (!r || !sql_parse_qname(p, &r->u.function.name) ||
            !sql_parse_named_args(p, &r->u.function.args, &r->u.function.n_args) ||
            !sql_expect_tok(p, TK_RPAREN))
            return NULL;
        return r;
    }
    if (!sql_is_ident(p)) {
        sql_is_tok(p, TK_LPAREN);
        sql_is_kw(p, KW_UNNEST);
        sql_is_kw(p, KW_LATERAL);
        sql_error_unexpected(p);
        return NULL;
    }
    sql_qname name;
    if (!sql_parse_qname(p, &name)) return NULL;
    if (sql_cur(p)->kind == TK_LPAREN) {
        sql_relation *r = new_relation(p, SQL_REL_FUNCTION, t);
        if (!r) return NULL;
        r->u.function.name = name;
        if (!sql_parse_named_args(p, &r->u.function.args, &r->u.function.n_args)) return NULL;
        return r;
    }
    sql_relation *r = new_relation(p, SQL_REL_TABLE, t);
    if (!r) return NULL;
    r->u.table.name = name;
    if (sql_is_kw(p, KW_FOR) &&
        (sql_peek_kw(p, 1, KW_VERSION) || sql_peek_kw(p, 1, KW_TIMESTAMP))) {
        sql_advance(p);
        r->u.table.version =
            sql_cur(p)->kw == KW_VERSION ? SQL_VERSION_VERSION : SQL_VERSION_TIMESTAMP;
        sql_advance(p);
        if (!sql_expect_kw(p, KW_AS) || !sql_expect_kw(p, KW_OF)) return NULL;
        r->u.table.as_of = sql_parse_value_expr(p);
        if (!r->u.table.as_of) return NULL;
    }
    return r;
}

static sql_relation *parse_aliased_relation(sql_parser *p) {
    if (!sql_depth_enter(p)) return NULL;
    sql_relation *r = parse_relation_primary(p);
    if (!r) return NULL;
    bool ok;
    sql_ident *alias = parse_alias(p, &ok);
    if (!ok) return NULL;
    if (alias) {
        r->alias = alias;
        r->columns.items = NULL;
        r->columns.n = 0;
        if (sql_is_tok(p, TK_LPAREN) && !sql_parse_ident_list(p, &r->columns)) return NULL;
    }
    sql_depth_leave(p);
    return r;
}

/* Join type keywords; returns 0 when the current token does not start a join. */
static int parse_join_type(sql_parser *p, bool *natural) {
    *natural = sql_accept_kw(p, KW_NATURAL);
    if (!*natural && sql_accept_kw(p, KW_CROSS))
        return sql_expect_kw(p, KW_JOIN) ? SQL_JOIN_CROSS : -1;
    int type = 0;
    if (sql_accept_kw(p, KW_INNER)) {
        type = SQL_JOIN_INNER;
    } else if (sql_accept_kw(p, KW_LEFT)) {
        type = SQL_JOIN_LEFT;
        sql_accept_kw(p, KW_OUTER);
    } else if (sql_accept_kw(p, KW_RIGHT)) {
        type = SQL_JOIN_RIGHT;
        sql_accept_kw(p, KW_OUTER);
    } else if (sql_accept_kw(p, KW_FULL)) {
        type = SQL_JOIN_FULL;
        sql_accept_kw(p, KW_OUTER);
    }
    if (type == 0 && !*natural && !sql_is_kw(p, KW_JOIN)) return 0;
    if (!sql_expect_kw(p, KW_JOIN)) return -1;
    return type ? type : SQL_JOIN_INNER;
}

sql_relation *sql_parse_relation(sql_parser *p) {
    sql_relation *left = parse_aliased_relation(p);
    int links = 0;
    while (left) {
        const sql_token *t = sql_cur(p);
        bool natural;
        int type = parse_join_type(p, &natural);
        if (type < 0) return NULL;
        if (type == 0) break;
        if (!sql_depth_enter(p)) return NULL;
        links++;
        sql_relation *j = new_relation(p, SQL_REL_JOIN, t);
        if (!j) return NULL;
        j->line = left->line;
        j->col = left->col;
        j->u.join.type = (uint8_t)type;
        j->u.join.natural = natural;
        j->u.join.left = left;
        j->u.join.right = parse_aliased_relation(p);
        if (!j->u.join.right) return NULL;
        if (type != SQL_JOIN_CROSS && !natural) {
            if (sql_accept_kw(p, KW_ON)) {
                j->u.join.on = sql_parse_expr(p);
                if (!j->u.join.on) return NULL;
            } else if (sql_is_kw(p, KW_USING)) {
                sql_advance(p);
                if (!sql_parse_ident_list(p, &j->u.join.using)) return NULL;
            } else {
                sql_error_unexpected(p);
                return NULL;
            }
        }
        left = j;
    }
    p->depth -= links;
    return left;
}
