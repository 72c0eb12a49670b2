/*
 * parse_expr.c: expressions (Trino SqlBase.g4 booleanExpression / valueExpression /
 * primaryExpression), window specifications and literals.
 *
 * INTERFACE
 *   sql_parse_expr          booleanExpression: OR > AND > NOT > predicate
 *   sql_parse_value_expr    valueExpression: || > + - > * / % > unary + - > AT TIME ZONE
 *   sql_parse_primary_expr  primaryExpression with subscripts and field dereferences
 *   sql_parse_expr_list     comma-separated expressions
 *   sql_parse_window_spec   ( [name] [PARTITION BY ..] [ORDER BY ..] [frame] )
 *
 * NOTES
 *   - valueExpression uses precedence climbing: one C frame per operator level instead of one
 *     per grammar rule. Every recursion passes through parse_value (or parse_not), which counts
 *     it against SQL_MAX_DEPTH, and so does every link of a left-associative chain (a+b+c...,
 *     a[1][2]...): the depth of the resulting tree is bounded, too.
 *   - AND and OR build flat n-ary nodes, so long generated predicate lists stay shallow.
 *   - As in Trino, a predicate (comparison, BETWEEN, IN, LIKE, IS) applies once to a
 *     valueExpression: `a = b = c` is a syntax error.
 *   - `(` starts, after a bounded lookahead, a lambda `(x, y) ->`, a subquery, a row `(a, b)`
 *     or a parenthesized expression. A parenthesized subquery followed by UNION/ORDER BY/...
 *     continues as a query: ((SELECT 1) UNION (SELECT 2)).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sql/sql.h"
#include "sql/sql_int.h"
#include "common/hex.h"

enum {
    PREC_CONCAT = 1,
    PREC_ADD = 2,
    PREC_MUL = 3,
    PREC_UNARY = 4,
    PREC_AT = 5,
};

static sql_expr *parse_value(sql_parser *p, int min_prec);
static sql_expr *parse_primary(sql_parser *p);

/* ---------------------------------------------------------------------------------------------
 * Helpers
 * ------------------------------------------------------------------------------------------- */

static sql_expr *make_call(sql_parser *p, const sql_token *at, const char *name, int n_args,
                           sql_expr **args) {
    sql_expr *e = sql_expr_new(p, SQL_EXPR_CALL, at);
    sql_ident *id = sql_alloc(p, sizeof *id);
    sql_expr **copy = n_args ? sql_alloc(p, sizeof(sql_expr *) * (size_t)n_args) : NULL;
    if (!e || !id || (n_args && !copy)) return NULL;
    id->name = name;
    id->text = name;
    id->line = at->line;
    id->col = at->col;
    for (int i = 0; i < n_args; i++) copy[i] = args[i];
    e->u.call.name.parts = id;
    e->u.call.name.n_parts = 1;
    e->u.call.args.items = copy;
    e->u.call.args.n = n_args;
    return e;
}

bool sql_parse_expr_list(sql_parser *p, sql_expr_list *out) {
    sql_vec v = {0};
    do {
        sql_expr *e = sql_parse_expr(p);
        if (!e || !sql_vec_push_ptr(p, &v, e)) return false;
    } while (sql_accept_tok(p, TK_COMMA));
    out->items = v.data;
    out->n = v.n;
    return true;
}

/* Is the token after a run of '(' starting at offset `from` one that starts a query? */
static bool parens_lead_to_query(const sql_parser *p, int from) {
    int i = from;
    while (sql_peek(p, i)->kind == TK_LPAREN) i++;
    return sql_tok_starts_query(sql_peek(p, i));
}

static bool is_query_continuation_kw(const sql_token *t) {
    if (t->kind != TK_WORD) return false;
    switch (t->kw) {
    case KW_UNION:
    case KW_INTERSECT:
    case KW_EXCEPT:
    case KW_ORDER:
    case KW_LIMIT:
    case KW_OFFSET:
    case KW_FETCH: return true;
    default: return false;
    }
}

bool sql_at_query_continuation(sql_parser *p) { return is_query_continuation_kw(sql_cur(p)); }

/* ---------------------------------------------------------------------------------------------
 * Literals
 * ------------------------------------------------------------------------------------------- */

static sql_expr *parse_number(sql_parser *p) {
    const sql_token *t = sql_cur(p);
    sql_advance(p);
    const char *src = p->text + t->off;
    /* copy without underscores */
    char *text = sql_alloc(p, t->len + 1);
    if (!text) return NULL;
    size_t n = 0;
    for (uint32_t i = 0; i < t->len; i++)
        if (src[i] != '_') text[n++] = src[i];
    text[n] = 0;

    if (t->kind == TK_DOUBLE) {
        sql_expr *e = sql_expr_new(p, SQL_EXPR_DOUBLE, t);
        if (!e) return NULL;
        e->u.num.text = text;
        e->u.num.dval = strtod(text, NULL);
        return e;
    }
    if (t->kind == TK_DECIMAL) {
        sql_expr *e = sql_expr_new(p, SQL_EXPR_DECIMAL, t);
        if (!e) return NULL;
        e->u.num.text = text;
        return e;
    }
    /* integer */
    int base = 10;
    const char *digits = text;
    if (n > 2 && text[0] == '0') {
        char c = text[1];
        if (c == 'x' || c == 'X') base = 16;
        if (c == 'o' || c == 'O') base = 8;
        if (c == 'b' || c == 'B') base = 2;
        if (base != 10) digits = text + 2;
    }
    uint64_t v = 0;
    bool overflow = false;
    for (const char *c = digits; *c; c++) {
        int d = hex_digit(*c); /* the lexer let only digits of the base through */
        if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base) {
            overflow = true;
            break;
        }
        v = v * (uint64_t)base + (uint64_t)d;
    }
    if (overflow || v > (uint64_t)INT64_MAX) {
        if (base != 10) {
            sql_error_at(p, t, "invalid numeric literal: %s (out of range for bigint)", text);
            return NULL;
        }
        /* Beyond bigint: a DECIMAL literal (the binder checks it fits decimal(38)). */
        const char *d = text;
        while (d[0] == '0' && d[1]) d++;
        sql_expr *e = sql_expr_new(p, SQL_EXPR_DECIMAL, t);
        if (!e) return NULL;
        e->u.num.text = d;
        return e;
    }
    sql_expr *e = sql_expr_new(p, SQL_EXPR_INTEGER, t);
    if (!e) return NULL;
    e->u.num.ival = (int64_t)v;
    e->u.num.text = base == 10 && text[0] != '0'
                        ? text
                        : arena_sprintf(p->a, "%llu", (unsigned long long)v);
    if (!e->u.num.text) return sql_error_nomem(p), NULL;
    return e;
}

/* Folds unary minus into a numeric literal (so -9223372036854775808 is a bigint). */
static bool negate_literal(sql_parser *p, sql_expr *e) {
    const char *t = e->u.num.text;
    const char *neg = t[0] == '-' ? t + 1 : arena_sprintf(p->a, "-%s", t);
    if (!neg) return sql_error_nomem(p);
    switch (e->kind) {
    case SQL_EXPR_INTEGER:
        if (e->u.num.ival == INT64_MIN) {
            e->kind = SQL_EXPR_DECIMAL; /* -(-9223372036854775808) */
        } else {
            e->u.num.ival = -e->u.num.ival;
        }
        break;
    case SQL_EXPR_DECIMAL:
        if (strcmp(neg, "-9223372036854775808") == 0) {
            e->kind = SQL_EXPR_INTEGER;
            e->u.num.ival = INT64_MIN;
        }
        break;
    case SQL_EXPR_DOUBLE: e->u.num.dval = -e->u.num.dval; break;
    default: return true;
    }
    e->u.num.text = neg;
    return true;
}

static sql_expr *parse_string_literal(sql_parser *p) {
    const sql_token *t = sql_cur(p);
    sql_expr *e = sql_expr_new(p, SQL_EXPR_STRING, t);
    if (!e || !sql_parse_string(p, &e->u.str.data, &e->u.str.len)) return NULL;
    return e;
}

static sql_expr *parse_binary_literal(sql_parser *p) {
    const sql_token *t = sql_cur(p);
    sql_advance(p);
    const char *src = p->text + t->off + 2;
    size_t n = t->len - 3;
    char *bytes = sql_alloc(p, n / 2 + 1);
    if (!bytes) return NULL;
    size_t w = 0;
    int hi = -1;
    for (size_t i = 0; i < n; i++) {
        char c = src[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
        int h = hex_digit(c);
        if (h < 0) {
            sql_error_at(p, t, "binary literal can only contain hexadecimal digits");
            return NULL;
        }
        if (hi < 0) {
            hi = h;
        } else {
            bytes[w++] = (char)(hi * 16 + h);
            hi = -1;
        }
    }
    if (hi >= 0) {
        sql_error_at(p, t, "binary literal must contain an even number of digits");
        return NULL;
    }
    sql_expr *e = sql_expr_new(p, SQL_EXPR_VARBINARY, t);
    if (!e) return NULL;
    e->u.str.data = bytes;
    e->u.str.len = w;
    return e;
}

static bool is_string_tok(const sql_token *t) {
    return t->kind == TK_STRING || t->kind == TK_USTRING;
}

static uint8_t interval_field(const sql_token *t) {
    if (t->kind != TK_WORD) return SQL_IFIELD_NONE;
    switch (t->kw) {
    case KW_YEAR: return SQL_IFIELD_YEAR;
    case KW_MONTH: return SQL_IFIELD_MONTH;
    case KW_DAY: return SQL_IFIELD_DAY;
    case KW_HOUR: return SQL_IFIELD_HOUR;
    case KW_MINUTE: return SQL_IFIELD_MINUTE;
    case KW_SECOND: return SQL_IFIELD_SECOND;
    default: return SQL_IFIELD_NONE;
    }
}

static bool expect_interval_field(sql_parser *p, uint8_t *out) {
    *out = interval_field(sql_cur(p));
    if (*out != SQL_IFIELD_NONE) {
        sql_advance(p);
        return true;
    }
    sql_expect_note(p, "'YEAR'");
    sql_expect_note(p, "'MONTH'");
    sql_expect_note(p, "'DAY'");
    sql_expect_note(p, "'HOUR'");
    sql_expect_note(p, "'MINUTE'");
    sql_expect_note(p, "'SECOND'");
    return sql_error_unexpected(p);
}

/* INTERVAL [+|-] 'value' field [TO field]; the current token is INTERVAL. */
static sql_expr *parse_interval(sql_parser *p) {
    const sql_token *t = sql_cur(p);
    sql_advance(p);
    sql_expr *e = sql_expr_new(p, SQL_EXPR_INTERVAL, t);
    if (!e) return NULL;
    e->u.interval.sign = 1;
    if (sql_accept_tok(p, TK_MINUS))
        e->u.interval.sign = -1;
    else
        sql_accept_tok(p, TK_PLUS);
    size_t len;
    if (!sql_parse_string(p, &e->u.interval.value, &len)) return NULL;
    if (!expect_interval_field(p, &e->u.interval.from)) return NULL;
    if (sql_accept_kw(p, KW_TO)) {
        if (!expect_interval_field(p, &e->u.interval.to)) return NULL;
    }
    return e;
}

/* type 'value' (DATE '2020-01-01', DECIMAL '1.5', DOUBLE PRECISION '1', ...). The current token
 * is the type word; `words` is 1 or 2 (DOUBLE PRECISION). */
static sql_expr *parse_typed_literal(sql_parser *p, int words) {
    const sql_token *t = sql_cur(p);
    sql_expr *e = sql_expr_new(p, SQL_EXPR_TYPED, t);
    if (!e) return NULL;
    sql_ident id;
    if (!sql_ident_from_token(p, t, &id)) return NULL;
    e->u.typed.type.text = words == 2 ? "double" : id.name;
    e->u.typed.type.line = t->line;
    e->u.typed.type.col = t->col;
    for (int i = 0; i < words; i++) sql_advance(p);
    if (!sql_parse_string(p, &e->u.typed.value, &e->u.typed.len)) return NULL;
    return e;
}

/* ---------------------------------------------------------------------------------------------
 * Windows and ORDER BY
 * ------------------------------------------------------------------------------------------- */

bool sql_parse_order_by(sql_parser *p, sql_order_list *out) {
    sql_vec v = {0};
    do {
        const sql_token *t = sql_cur(p);
        sql_order_item *it = sql_vec_push(p, &v, sizeof *it);
        if (!it) return false;
        it->line = t->line;
        it->col = t->col;
        it->expr = sql_parse_expr(p);
        if (!it->expr) return false;
        if (sql_accept_kw(p, KW_DESC))
            it->desc = true;
        else
            sql_accept_kw(p, KW_ASC);
        if (sql_accept_kw(p, KW_NULLS)) {
            if (sql_accept_kw(p, KW_FIRST))
                it->nulls = SQL_NULLS_FIRST;
            else if (sql_expect_kw(p, KW_LAST))
                it->nulls = SQL_NULLS_LAST;
            else
                return false;
        }
    } while (sql_accept_tok(p, TK_COMMA));
    out->items = v.data;
    out->n = v.n;
    return true;
}

static bool parse_frame_bound(sql_parser *p, sql_frame_bound *b) {
    const sql_token *t = sql_cur(p);
    b->line = t->line;
    b->col = t->col;
    if (sql_accept_kw(p, KW_UNBOUNDED)) {
        if (sql_accept_kw(p, KW_PRECEDING)) {
            b->kind = SQL_BOUND_UNBOUNDED_PRECEDING;
            return true;
        }
        if (!sql_expect_kw(p, KW_FOLLOWING)) return false;
        b->kind = SQL_BOUND_UNBOUNDED_FOLLOWING;
        return true;
    }
    if (sql_is_kw(p, KW_CURRENT) && sql_peek_kw(p, 1, KW_ROW)) {
        sql_advance(p);
        sql_advance(p);
        b->kind = SQL_BOUND_CURRENT_ROW;
        return true;
    }
    b->offset = sql_parse_expr(p);
    if (!b->offset) return false;
    if (sql_accept_kw(p, KW_PRECEDING)) {
        b->kind = SQL_BOUND_PRECEDING;
        return true;
    }
    if (!sql_expect_kw(p, KW_FOLLOWING)) return false;
    b->kind = SQL_BOUND_FOLLOWING;
    return true;
}

static bool is_frame_unit(const sql_token *t) {
    return t->kind == TK_WORD && (t->kw == KW_ROWS || t->kw == KW_RANGE || t->kw == KW_GROUPS);
}

sql_window_spec *sql_parse_window_spec(sql_parser *p) {
    const sql_token *open = sql_cur(p);
    if (!sql_expect_tok(p, TK_LPAREN)) return NULL;
    sql_window_spec *w = sql_alloc(p, sizeof *w);
    if (!w) return NULL;
    w->line = open->line;
    w->col = open->col;
    /* existing window name: an identifier that does not start a clause */
    const sql_token *t = sql_cur(p);
    bool clause = (t->kind == TK_WORD && t->kw == KW_PARTITION && sql_peek_kw(p, 1, KW_BY)) ||
                  (is_frame_unit(t) && !sql_peek_tok(p, 1, TK_RPAREN) &&
                   !sql_peek_kw(p, 1, KW_PARTITION) && !sql_peek_kw(p, 1, KW_ORDER));
    if (!clause && sql_is_ident(p)) {
        w->base = sql_alloc(p, sizeof *w->base);
        if (!w->base || !sql_parse_ident(p, w->base)) return NULL;
    }
    if (sql_accept_kw(p, KW_PARTITION)) {
        if (!sql_expect_kw(p, KW_BY) || !sql_parse_expr_list(p, &w->partition_by)) return NULL;
    }
    if (sql_accept_kw(p, KW_ORDER)) {
        if (!sql_expect_kw(p, KW_BY) || !sql_parse_order_by(p, &w->order_by)) return NULL;
    }
    sql_is_kw(p, KW_ROWS);
    sql_is_kw(p, KW_RANGE);
    sql_is_kw(p, KW_GROUPS);
    if (is_frame_unit(sql_cur(p))) {
        const sql_token *u = sql_cur(p);
        sql_window_frame *f = sql_alloc(p, sizeof *f);
        if (!f) return NULL;
        f->line = u->line;
        f->col = u->col;
        f->unit = u->kw == KW_ROWS    ? SQL_FRAME_ROWS
                  : u->kw == KW_RANGE ? SQL_FRAME_RANGE
                                      : SQL_FRAME_GROUPS;
        sql_advance(p);
        if (sql_accept_kw(p, KW_BETWEEN)) {
            if (!parse_frame_bound(p, &f->start) || !sql_expect_kw(p, KW_AND) ||
                !parse_frame_bound(p, &f->end))
                return NULL;
            f->has_end = true;
        } else if (!parse_frame_bound(p, &f->start)) {
            return NULL;
        }
        w->frame = f;
    }
    if (!sql_expect_tok(p, TK_RPAREN)) return NULL;
    return w;
}

/* ---------------------------------------------------------------------------------------------
 * Function calls
 * ------------------------------------------------------------------------------------------- */

/* After the arguments: FILTER (WHERE ..), IGNORE/RESPECT NULLS, OVER w / OVER (..). */
static bool parse_call_suffix(sql_parser *p, sql_expr *e) {
    if (sql_is_kw(p, KW_FILTER) && sql_peek_tok(p, 1, TK_LPAREN)) {
        sql_advance(p);
        sql_advance(p);
        if (!sql_expect_kw(p, KW_WHERE)) return false;
        e->u.call.filter = sql_parse_expr(p);
        if (!e->u.call.filter || !sql_expect_tok(p, TK_RPAREN)) return false;
    }
    if ((sql_is_kw(p, KW_IGNORE) || sql_is_kw(p, KW_RESPECT)) && sql_peek_kw(p, 1, KW_NULLS)) {
        e->u.call.nulls = sql_cur(p)->kw == KW_IGNORE ? SQL_NULLS_IGNORE : SQL_NULLS_RESPECT;
        sql_advance(p);
        sql_advance(p);
        if (!sql_is_kw(p, KW_OVER)) return sql_error_unexpected(p);
    }
    if (sql_is_kw(p, KW_OVER) &&
        (sql_peek_tok(p, 1, TK_LPAREN) || sql_tok_is_ident(sql_peek(p, 1)))) {
        sql_advance(p);
        if (sql_is_tok(p, TK_LPAREN)) {
            e->u.call.over = sql_parse_window_spec(p);
            if (!e->u.call.over) return false;
        } else {
            e->u.call.over_name = sql_alloc(p, sizeof(sql_ident));
            if (!e->u.call.over_name || !sql_parse_ident(p, e->u.call.over_name)) return false;
        }
    }
    return true;
}

/* name ( ... ): the name is parsed; the current token is '('. Handles count(*), DISTINCT,
 * ORDER BY inside the call and SUBSTRING(a FROM b FOR c). */
static sql_expr *parse_call(sql_parser *p, const sql_token *at, sql_qname name) {
    sql_expr *e = sql_expr_new(p, SQL_EXPR_CALL, at);
    if (!e) return NULL;
    e->u.call.name = name;
    sql_advance(p); /* ( */
    bool is_substring = name.n_parts == 1 && !name.parts[0].quoted &&
                        strcmp(name.parts[0].name, "substring") == 0;
    if (sql_accept_tok(p, TK_STAR)) {
        e->u.call.star = true;
        if (!sql_expect_tok(p, TK_RPAREN)) return NULL;
        return parse_call_suffix(p, e) ? e : NULL;
    }
    if (!sql_accept_tok(p, TK_RPAREN)) {
        if (sql_accept_kw(p, KW_DISTINCT)) {
            e->u.call.distinct = true;
        } else if (sql_is_kw(p, KW_ALL) && !sql_peek_tok(p, 1, TK_RPAREN) &&
                   !sql_peek_tok(p, 1, TK_COMMA) && !sql_peek_tok(p, 1, TK_DOT)) {
            sql_advance(p);
        }
        sql_vec args = {0};
        do {
            sql_expr *arg = sql_parse_expr(p);
            if (!arg || !sql_vec_push_ptr(p, &args, arg)) return NULL;
            if (is_substring && args.n == 1 && !e->u.call.distinct && sql_accept_kw(p, KW_FROM)) {
                /* SUBSTRING(a FROM b [FOR c]) */
                sql_expr *from = sql_parse_value_expr(p);
                if (!from || !sql_vec_push_ptr(p, &args, from)) return NULL;
                if (sql_accept_kw(p, KW_FOR)) {
                    sql_expr *len = sql_parse_value_expr(p);
                    if (!len || !sql_vec_push_ptr(p, &args, len)) return NULL;
                }
                break;
            }
        } while (sql_accept_tok(p, TK_COMMA));
        e->u.call.args.items = args.data;
        e->u.call.args.n = args.n;
        if (sql_accept_kw(p, KW_ORDER)) {
            if (!sql_expect_kw(p, KW_BY) || !sql_parse_order_by(p, &e->u.call.order_by))
                return NULL;
        }
        if (!sql_expect_tok(p, TK_RPAREN)) return NULL;
    }
    return parse_call_suffix(p, e) ? e : NULL;
}

/* ---------------------------------------------------------------------------------------------
 * Special forms
 * ------------------------------------------------------------------------------------------- */

static sql_expr *parse_case(sql_parser *p) {
    const sql_token *t = sql_cur(p);
    sql_advance(p);
    sql_expr *e = sql_expr_new(p, SQL_EXPR_CASE, t);
    if (!e) return NULL;
    if (!sql_is_kw(p, KW_WHEN)) {
        e->u.case_.operand = sql_parse_expr(p);
        if (!e->u.case_.operand) return NULL;
    }
    sql_vec whens = {0};
    if (!sql_is_kw(p, KW_WHEN)) return sql_error_unexpected(p), NULL;
    while (sql_accept_kw(p, KW_WHEN)) {
        sql_when *w = sql_vec_push(p, &whens, sizeof *w);
        if (!w) return NULL;
        w->cond = sql_parse_expr(p);
        if (!w->cond || !sql_expect_kw(p, KW_THEN)) return NULL;
        w->result = sql_parse_expr(p);
        if (!w->result) return NULL;
    }
    e->u.case_.whens = whens.data;
    e->u.case_.n_whens = whens.n;
    if (sql_accept_kw(p, KW_ELSE)) {
        e->u.case_.else_result = sql_parse_expr(p);
        if (!e->u.case_.else_result) return NULL;
    }
    if (!sql_expect_kw(p, KW_END)) return NULL;
    return e;
}

static sql_expr *parse_cast(sql_parser *p, bool try_cast) {
    const sql_token *t = sql_cur(p);
    sql_advance(p);
    if (!sql_expect_tok(p, TK_LPAREN)) return NULL;
    sql_expr *e = sql_expr_new(p, SQL_EXPR_CAST, t);
    if (!e) return NULL;
    e->u.cast.try_cast = try_cast;
    e->u.cast.arg = sql_parse_expr(p);
    if (!e->u.cast.arg || !sql_expect_kw(p, KW_AS) || !sql_parse_type(p, &e->u.cast.type) ||
        !sql_expect_tok(p, TK_RPAREN))
        return NULL;
    return e;
}

static const char *const extract_fields[] = {
    "year", "quarter", "month", "week", "day", "day_of_month", "day_of_week", "dow",
    "day_of_year", "doy", "year_of_week", "yow", "hour", "minute", "second",
    "timezone_minute", "timezone_hour",
};

static sql_expr *parse_extract(sql_parser *p) {
    const sql_token *t = sql_cur(p);
    sql_advance(p);
    if (!sql_expect_tok(p, TK_LPAREN)) return NULL;
    sql_expr *e = sql_expr_new(p, SQL_EXPR_EXTRACT, t);
    if (!e) return NULL;
    const sql_token *ft = sql_cur(p);
    if (!sql_parse_ident(p, &e->u.extract.field)) return NULL;
    bool known = false;
    for (size_t i = 0; i < sizeof extract_fields / sizeof extract_fields[0]; i++)
        if (strcmp(e->u.extract.field.name, extract_fields[i]) == 0) known = true;
    if (!known || e->u.extract.field.quoted) {
        sql_error_at(p, ft, "invalid EXTRACT field: %s", e->u.extract.field.text);
        return NULL;
    }
    if (!sql_expect_kw(p, KW_FROM)) return NULL;
    e->u.extract.arg = sql_parse_value_expr(p);
    if (!e->u.extract.arg || !sql_expect_tok(p, TK_RPAREN)) return NULL;
    return e;
}

static sql_expr *parse_current(sql_parser *p, sql_current_kind which, bool has_precision) {
    const sql_token *t = sql_cur(p);
    sql_advance(p);
    sql_expr *e = sql_expr_new(p, SQL_EXPR_CURRENT, t);
    if (!e) return NULL;
    e->u.current.which = (uint8_t)which;
    e->u.current.precision = -1;
    if (has_precision && sql_accept_tok(p, TK_LPAREN)) {
        const sql_token *n = sql_cur(p);
        if (!sql_is_tok(p, TK_INTEGER)) return sql_error_unexpected(p), NULL;
        sql_advance(p);
        long v = 0;
        for (uint32_t i = 0; i < n->len && v < 1000; i++) {
            char c = p->text[n->off + i];
            if (c < '0' || c > '9') {
                v = 1000;
                break;
            }
            v = v * 10 + (c - '0');
        }
        if (v > 12) {
            sql_error_at(p, n, "invalid precision for %s: %.*s", sql_keyword_name((sql_kw)t->kw),
                         (int)n->len, p->text + n->off);
            return NULL;
        }
        e->u.current.precision = (int)v;
        if (!sql_expect_tok(p, TK_RPAREN)) return NULL;
    }
    return e;
}

/* TRIM([BOTH|LEADING|TRAILING] [chars] FROM s) | TRIM(s [, chars]) */
static sql_expr *parse_trim(sql_parser *p) {
    const sql_token *t = sql_cur(p);
    sql_advance(p);
    if (!sql_expect_tok(p, TK_LPAREN)) return NULL;
    const char *fn = "trim";
    bool has_spec = false;
    const sql_token *s = sql_cur(p);
    if (s->kind == TK_WORD && (s->kw == KW_BOTH || s->kw == KW_LEADING || s->kw == KW_TRAILING) &&
        !sql_peek_tok(p, 1, TK_RPAREN) && !sql_peek_tok(p, 1, TK_COMMA)) {
        fn = s->kw == KW_LEADING ? "ltrim" : s->kw == KW_TRAILING ? "rtrim" : "trim";
        has_spec = true;
        sql_advance(p);
    }
    sql_expr *source = NULL, *chars = NULL;
    if (has_spec && sql_accept_kw(p, KW_FROM)) {
        source = sql_parse_value_expr(p);
        if (!source) return NULL;
    } else {
        sql_expr *first = sql_parse_value_expr(p);
        if (!first) return NULL;
        if (sql_accept_kw(p, KW_FROM)) {
            chars = first;
            source = sql_parse_value_expr(p);
            if (!source) return NULL;
        } else if (has_spec) {
            return sql_error_unexpected(p), NULL;
        } else if (sql_accept_tok(p, TK_COMMA)) {
            source = first;
            chars = sql_parse_value_expr(p);
            if (!chars) return NULL;
        } else {
            source = first;
        }
    }
    if (!sql_expect_tok(p, TK_RPAREN)) return NULL;
    sql_expr *args[2] = {source, chars};
    return make_call(p, t, fn, chars ? 2 : 1, args);
}

/* POSITION(needle IN haystack) -> strpos(haystack, needle) */
static sql_expr *parse_position(sql_parser *p) {
    const sql_token *t = sql_cur(p);
    sql_advance(p);
    sql_advance(p); /* ( */
    sql_expr *needle = sql_parse_value_expr(p);
    if (!needle || !sql_expect_kw(p, KW_IN)) return NULL;
    sql_expr *haystack = sql_parse_value_expr(p);
    if (!haystack || !sql_expect_tok(p, TK_RPAREN)) return NULL;
    sql_expr *args[2] = {haystack, needle};
    return make_call(p, t, "strpos", 2, args);
}

/* NORMALIZE(s [, NFC|NFD|NFKC|NFKD]) -> normalize(s [, 'NFC']) */
static sql_expr *parse_normalize(sql_parser *p) {
    const sql_token *t = sql_cur(p);
    sql_advance(p);
    if (!sql_expect_tok(p, TK_LPAREN)) return NULL;
    sql_expr *args[2] = {sql_parse_value_expr(p), NULL};
    if (!args[0]) return NULL;
    if (sql_accept_tok(p, TK_COMMA)) {
        const sql_token *f = sql_cur(p);
        sql_ident form;
        if (!sql_parse_ident(p, &form)) return NULL;
        const char *forms[] = {"nfc", "nfd", "nfkc", "nfkd"};
        const char *upper = NULL;
        const char *uforms[] = {"NFC", "NFD", "NFKC", "NFKD"};
        for (int i = 0; i < 4; i++)
            if (!form.quoted && strcmp(form.name, forms[i]) == 0) upper = uforms[i];
        if (!upper) {
            sql_error_at(p, f, "invalid normal form: %s (expected NFC, NFD, NFKC or NFKD)",
                         form.text);
            return NULL;
        }
        args[1] = sql_expr_new(p, SQL_EXPR_STRING, f);
        if (!args[1]) return NULL;
        args[1]->u.str.data = upper;
        args[1]->u.str.len = strlen(upper);
    }
    if (!sql_expect_tok(p, TK_RPAREN)) return NULL;
    return make_call(p, t, "normalize", args[1] ? 2 : 1, args);
}

/* LISTAGG([DISTINCT] x [, sep] [ON OVERFLOW ERROR]) WITHIN GROUP (ORDER BY ...) */
static sql_expr *parse_listagg(sql_parser *p) {
    const sql_token *t = sql_cur(p);
    sql_advance(p);
    if (!sql_expect_tok(p, TK_LPAREN)) return NULL;
    sql_expr *e = make_call(p, t, "listagg", 0, NULL);
    if (!e) return NULL;
    e->u.call.distinct = sql_accept_kw(p, KW_DISTINCT);
    sql_expr *args[2] = {sql_parse_expr(p), NULL};
    if (!args[0]) return NULL;
    if (sql_accept_tok(p, TK_COMMA)) {
        args[1] = sql_parse_expr(p);
        if (!args[1]) return NULL;
    }
    if (sql_accept_kw(p, KW_ON)) {
        if (!sql_expect_kw(p, KW_OVERFLOW)) return NULL;
        if (sql_is_kw(p, KW_TRUNCATE)) {
            sql_error_at(p, sql_cur(p), "LISTAGG ... ON OVERFLOW TRUNCATE is not supported");
            return NULL;
        }
        if (!sql_expect_kw(p, KW_ERROR)) return NULL;
    }
    if (!sql_expect_tok(p, TK_RPAREN)) return NULL;
    sql_expr *with = make_call(p, t, "listagg", args[1] ? 2 : 1, args);
    if (!with) return NULL;
    e->u.call.args = with->u.call.args;
    if (!sql_expect_kw(p, KW_WITHIN) || !sql_expect_kw(p, KW_GROUP) ||
        !sql_expect_tok(p, TK_LPAREN) || !sql_expect_kw(p, KW_ORDER) || !sql_expect_kw(p, KW_BY) ||
        !sql_parse_order_by(p, &e->u.call.order_by) || !sql_expect_tok(p, TK_RPAREN))
        return NULL;
    return parse_call_suffix(p, e) ? e : NULL;
}

/* GROUPING(a, t.b) */
static sql_expr *parse_grouping(sql_parser *p) {
    const sql_token *t = sql_cur(p);
    sql_advance(p);
    if (!sql_expect_tok(p, TK_LPAREN)) return NULL;
    sql_expr *e = sql_expr_new(p, SQL_EXPR_GROUPING, t);
    if (!e) return NULL;
    sql_vec v = {0};
    if (!sql_is_tok(p, TK_RPAREN)) {
        do {
            const sql_token *nt = sql_cur(p);
            sql_expr *n = sql_expr_new(p, SQL_EXPR_NAME, nt);
            if (!n || !sql_parse_qname(p, &n->u.name) || !sql_vec_push_ptr(p, &v, n)) return NULL;
        } while (sql_accept_tok(p, TK_COMMA));
    }
    if (!sql_expect_tok(p, TK_RPAREN)) return NULL;
    e->u.list.items = v.data;
    e->u.list.n = v.n;
    return e;
}

static sql_expr *parse_subquery_expr(sql_parser *p, sql_expr_kind kind, const sql_token *at) {
    if (!sql_expect_tok(p, TK_LPAREN)) return NULL;
    sql_expr *e = sql_expr_new(p, kind, at);
    if (!e) return NULL;
    e->u.query = sql_parse_query(p);
    if (!e->u.query || !sql_expect_tok(p, TK_RPAREN)) return NULL;
    return e;
}

/* Lambda lookahead at '(': ( [ident {, ident}] ) -> */
static bool at_paren_lambda(const sql_parser *p) {
    int i = 1;
    if (sql_peek(p, i)->kind != TK_RPAREN) {
        for (;;) {
            if (!sql_tok_is_ident(sql_peek(p, i))) return false;
            i++;
            if (sql_peek(p, i)->kind == TK_COMMA) {
                i++;
                continue;
            }
            break;
        }
        if (sql_peek(p, i)->kind != TK_RPAREN) return false;
    }
    return sql_peek(p, i + 1)->kind == TK_ARROW;
}

static sql_expr *parse_lambda(sql_parser *p) {
    const sql_token *t = sql_cur(p);
    sql_expr *e = sql_expr_new(p, SQL_EXPR_LAMBDA, t);
    if (!e) return NULL;
    sql_vec params = {0};
    if (t->kind == TK_LPAREN) {
        sql_advance(p);
        if (!sql_is_tok(p, TK_RPAREN)) {
            do {
                sql_ident *id = sql_vec_push(p, &params, sizeof *id);
                if (!id || !sql_parse_ident(p, id)) return NULL;
            } while (sql_accept_tok(p, TK_COMMA));
        }
        if (!sql_expect_tok(p, TK_RPAREN)) return NULL;
    } else {
        sql_ident *id = sql_vec_push(p, &params, sizeof *id);
        if (!id || !sql_parse_ident(p, id)) return NULL;
    }
    if (!sql_expect_tok(p, TK_ARROW)) return NULL;
    e->u.lambda.params.items = params.data;
    e->u.lambda.params.n = params.n;
    e->u.lambda.body = sql_parse_expr(p);
    return e->u.lambda.body ? e : NULL;
}

/* '(' in expression position. */
static sql_expr *parse_paren(sql_parser *p) {
    const sql_token *t = sql_cur(p);
    if (at_paren_lambda(p)) return parse_lambda(p);
    if (sql_tok_starts_query(sql_peek(p, 1))) {
        sql_advance(p);
        sql_expr *e = sql_expr_new(p, SQL_EXPR_SUBQUERY, t);
        if (!e) return NULL;
        e->u.query = sql_parse_query(p);
        if (!e->u.query || !sql_expect_tok(p, TK_RPAREN)) return NULL;
        return e;
    }
    sql_advance(p);
    sql_expr *first = sql_parse_expr(p);
    if (!first) return NULL;
    if (sql_is_tok(p, TK_COMMA)) {
        sql_vec items = {0};
        if (!sql_vec_push_ptr(p, &items, first)) return NULL;
        while (sql_accept_tok(p, TK_COMMA)) {
            sql_expr *e = sql_parse_expr(p);
            if (!e || !sql_vec_push_ptr(p, &items, e)) return NULL;
        }
        if (!sql_expect_tok(p, TK_RPAREN)) return NULL;
        sql_expr *row = sql_expr_new(p, SQL_EXPR_ROW, t);
        if (!row) return NULL;
        row->u.row.items.items = items.data;
        row->u.row.items.n = items.n;
        row->u.row.implicit = true;
        return row;
    }
    if (first->kind == SQL_EXPR_SUBQUERY && sql_at_query_continuation(p)) {
        /* ((SELECT 1) UNION (SELECT 2)) */
        sql_query *q = sql_parse_query_rest(p, first->u.query);
        if (!q) return NULL;
        first = sql_expr_new(p, SQL_EXPR_SUBQUERY, t);
        if (!first) return NULL;
        first->u.query = q;
    }
    if (!sql_expect_tok(p, TK_RPAREN)) return NULL;
    return first;
}

/* ARRAY[...] */
static sql_expr *parse_array(sql_parser *p) {
    const sql_token *t = sql_cur(p);
    sql_advance(p);
    sql_advance(p); /* [ */
    sql_expr *e = sql_expr_new(p, SQL_EXPR_ARRAY, t);
    if (!e) return NULL;
    if (!sql_accept_tok(p, TK_RBRACKET)) {
        if (!sql_parse_expr_list(p, &e->u.list) || !sql_expect_tok(p, TK_RBRACKET)) return NULL;
    }
    return e;
}

/* ROW(a, b) */
static sql_expr *parse_row(sql_parser *p) {
    const sql_token *t = sql_cur(p);
    sql_advance(p);
    sql_advance(p); /* ( */
    sql_expr *e = sql_expr_new(p, SQL_EXPR_ROW, t);
    if (!e || !sql_parse_expr_list(p, &e->u.row.items) || !sql_expect_tok(p, TK_RPAREN))
        return NULL;
    return e;
}

/* ---------------------------------------------------------------------------------------------
 * Primary expressions
 * ------------------------------------------------------------------------------------------- */

static sql_expr *parse_word(sql_parser *p) {
    const sql_token *t = sql_cur(p);
    const sql_token *next = sql_peek(p, 1);
    switch ((sql_kw)t->kw) {
    case KW_NULL: {
        sql_advance(p);
        return sql_expr_new(p, SQL_EXPR_NULL, t);
    }
    case KW_TRUE:
    case KW_FALSE: {
        sql_advance(p);
        sql_expr *e = sql_expr_new(p, SQL_EXPR_BOOL, t);
        if (e) e->u.bool_value = t->kw == KW_TRUE;
        return e;
    }
    case KW_CASE: return parse_case(p);
    case KW_CAST: return parse_cast(p, false);
    case KW_EXTRACT: return parse_extract(p);
    case KW_EXISTS: sql_advance(p); return parse_subquery_expr(p, SQL_EXPR_EXISTS, t);
    case KW_CURRENT_DATE: return parse_current(p, SQL_CURRENT_DATE, false);
    case KW_CURRENT_TIME: return parse_current(p, SQL_CURRENT_TIME, true);
    case KW_CURRENT_TIMESTAMP: return parse_current(p, SQL_CURRENT_TIMESTAMP, true);
    case KW_LOCALTIME: return parse_current(p, SQL_LOCALTIME, true);
    case KW_LOCALTIMESTAMP: return parse_current(p, SQL_LOCALTIMESTAMP, true);
    case KW_CURRENT_USER: return parse_current(p, SQL_CURRENT_USER, false);
    case KW_CURRENT_CATALOG: return parse_current(p, SQL_CURRENT_CATALOG, false);
    case KW_CURRENT_SCHEMA: return parse_current(p, SQL_CURRENT_SCHEMA, false);
    case KW_CURRENT_PATH: return parse_current(p, SQL_CURRENT_PATH, false);
    case KW_CURRENT_ROLE: return parse_current(p, SQL_CURRENT_ROLE, false);
    case KW_TRIM: return parse_trim(p);
    case KW_NORMALIZE: return parse_normalize(p);
    case KW_GROUPING: return parse_grouping(p);
    case KW_LISTAGG: return parse_listagg(p);
    case KW_TRY_CAST:
        if (next->kind == TK_LPAREN) return parse_cast(p, true);
        break;
    case KW_POSITION:
        if (next->kind == TK_LPAREN) return parse_position(p);
        break;
    case KW_ARRAY:
        if (next->kind == TK_LBRACKET) return parse_array(p);
        break;
    case KW_ROW:
        if (next->kind == TK_LPAREN) return parse_row(p);
        break;
    case KW_INTERVAL:
        /* INTERVAL 'x' without a field is the generic literal of a type named interval (as
         * in Trino's grammar), which the binder refuses as an unknown type. */
        if (is_string_tok(next) && interval_field(sql_peek(p, 2)) == SQL_IFIELD_NONE)
            return parse_typed_literal(p, 1);
        if (is_string_tok(next) ||
            ((next->kind == TK_MINUS || next->kind == TK_PLUS) && is_string_tok(sql_peek(p, 2))))
            return parse_interval(p);
        break;
    case KW_DOUBLE:
        if (sql_peek_kw(p, 1, KW_PRECISION) && is_string_tok(sql_peek(p, 2)))
            return parse_typed_literal(p, 2);
        break;
    default: break;
    }
    if (!sql_tok_is_ident(t)) {
        sql_expect_note(p, "<expression>");
        return sql_error_unexpected(p), NULL;
    }
    if (is_string_tok(next)) return parse_typed_literal(p, 1);
    if (next->kind == TK_ARROW) return parse_lambda(p);
    sql_qname name;
    if (!sql_parse_qname(p, &name)) return NULL;
    if (sql_cur(p)->kind == TK_LPAREN) return parse_call(p, t, name);
    sql_expr *e = sql_expr_new(p, SQL_EXPR_NAME, t);
    if (e) e->u.name = name;
    return e;
}

static sql_expr *parse_primary(sql_parser *p) {
    const sql_token *t = sql_cur(p);
    switch ((sql_tok_kind)t->kind) {
    case TK_INTEGER:
    case TK_DECIMAL:
    case TK_DOUBLE: return parse_number(p);
    case TK_STRING:
    case TK_USTRING: return parse_string_literal(p);
    case TK_BSTRING: return parse_binary_literal(p);
    case TK_PARAM: {
        sql_advance(p);
        sql_expr *e = sql_expr_new(p, SQL_EXPR_PARAM, t);
        sql_param_pos *pos = e ? sql_vec_push(p, &p->params, sizeof *pos) : NULL;
        if (!pos) return NULL;
        pos->line = t->line;
        pos->col = t->col;
        e->u.param_index = ++p->n_params;
        return e;
    }
    case TK_LPAREN: return parse_paren(p);
    case TK_WORD:
    case TK_QIDENT: return parse_word(p);
    default: break;
    }
    sql_expect_note(p, "<expression>");
    sql_error_unexpected(p);
    return NULL;
}

sql_expr *sql_parse_primary_expr(sql_parser *p) {
    sql_expr *e = parse_primary(p);
    int links = 0;
    while (e) {
        const sql_token *t = sql_cur(p);
        if (t->kind == TK_LBRACKET) {
            if (!sql_depth_enter(p)) return NULL;
            links++;
            sql_advance(p);
            sql_expr *s = sql_expr_new(p, SQL_EXPR_SUBSCRIPT, t);
            if (!s) return NULL;
            s->line = e->line;
            s->col = e->col;
            s->u.binary.left = e;
            s->u.binary.right = parse_value(p, 0);
            if (!s->u.binary.right || !sql_expect_tok(p, TK_RBRACKET)) return NULL;
            e = s;
        } else if (t->kind == TK_DOT && sql_peek(p, 1)->kind != TK_STAR) {
            if (!sql_depth_enter(p)) return NULL;
            links++;
            sql_advance(p);
            sql_expr *f = sql_expr_new(p, SQL_EXPR_FIELD, t);
            if (!f || !sql_parse_ident(p, &f->u.field.field)) return NULL;
            f->line = e->line;
            f->col = e->col;
            f->u.field.base = e;
            e = f;
        } else {
            break;
        }
    }
    p->depth -= links;
    return e;
}

/* ---------------------------------------------------------------------------------------------
 * valueExpression: precedence climbing
 * ------------------------------------------------------------------------------------------- */

static int binary_prec(const sql_parser *p, sql_op *op) {
    const sql_token *t = sql_cur(p);
    switch ((sql_tok_kind)t->kind) {
    case TK_CONCAT: *op = SQL_OP_CONCAT; return PREC_CONCAT;
    case TK_PLUS: *op = SQL_OP_ADD; return PREC_ADD;
    case TK_MINUS: *op = SQL_OP_SUB; return PREC_ADD;
    case TK_STAR: *op = SQL_OP_MUL; return PREC_MUL;
    case TK_SLASH: *op = SQL_OP_DIV; return PREC_MUL;
    case TK_PERCENT: *op = SQL_OP_MOD; return PREC_MUL;
    case TK_WORD:
        if (t->kw == KW_AT && sql_peek_kw(p, 1, KW_TIME) && sql_peek_kw(p, 2, KW_ZONE)) {
            *op = SQL_OP_NONE;
            return PREC_AT;
        }
        return 0;
    default: return 0;
    }
}

static sql_expr *parse_value(sql_parser *p, int min_prec) {
    if (!sql_depth_enter(p)) return NULL;
    const sql_token *t = sql_cur(p);
    sql_expr *left;
    if (t->kind == TK_MINUS || t->kind == TK_PLUS) {
        sql_advance(p);
        sql_expr *arg = parse_value(p, PREC_UNARY);
        if (!arg) return NULL;
        bool numeric = arg->kind == SQL_EXPR_INTEGER || arg->kind == SQL_EXPR_DECIMAL ||
                       arg->kind == SQL_EXPR_DOUBLE;
        if (numeric) {
            if (t->kind == TK_MINUS && !negate_literal(p, arg)) return NULL;
            arg->line = t->line;
            arg->col = t->col;
            left = arg;
        } else {
            left = sql_expr_new(p, SQL_EXPR_UNARY, t);
            if (!left) return NULL;
            left->u.unary.op = t->kind == TK_MINUS ? SQL_OP_NEG : SQL_OP_PLUS;
            left->u.unary.arg = arg;
        }
    } else {
        left = sql_parse_primary_expr(p);
        if (!left) return NULL;
    }
    int links = 0;
    for (;;) {
        sql_op op = SQL_OP_NONE;
        int prec = binary_prec(p, &op);
        if (prec == 0 || prec < min_prec) break;
        if (!sql_depth_enter(p)) return NULL;
        links++;
        const sql_token *ot = sql_cur(p);
        sql_expr *e;
        if (prec == PREC_AT) {
            sql_advance(p);
            sql_advance(p);
            sql_advance(p);
            e = sql_expr_new(p, SQL_EXPR_AT_TIME_ZONE, ot);
            if (!e) return NULL;
            e->u.binary.left = left;
            e->u.binary.right = sql_parse_primary_expr(p);
        } else {
            sql_advance(p);
            e = sql_expr_new(p, SQL_EXPR_BINARY, ot);
            if (!e) return NULL;
            e->u.binary.op = (uint8_t)op;
            e->u.binary.left = left;
            e->u.binary.right = parse_value(p, prec + 1);
        }
        if (!e->u.binary.right) return NULL;
        left = e;
    }
    p->depth -= links;
    sql_depth_leave(p);
    return left;
}

sql_expr *sql_parse_value_expr(sql_parser *p) { return parse_value(p, 0); }

/* ---------------------------------------------------------------------------------------------
 * booleanExpression
 * ------------------------------------------------------------------------------------------- */

static int comparison_op(const sql_token *t) {
    switch ((sql_tok_kind)t->kind) {
    case TK_EQ: return SQL_OP_EQ;
    case TK_NE: return SQL_OP_NE;
    case TK_LT: return SQL_OP_LT;
    case TK_LE: return SQL_OP_LE;
    case TK_GT: return SQL_OP_GT;
    case TK_GE: return SQL_OP_GE;
    default: return SQL_OP_NONE;
    }
}

/* x IN ( ... ) after IN. */
static sql_expr *parse_in(sql_parser *p, const sql_token *at, sql_expr *arg, bool negated) {
    if (!sql_expect_tok(p, TK_LPAREN)) return NULL;
    if (sql_tok_starts_query(sql_cur(p))) {
        sql_expr *e = sql_expr_new(p, SQL_EXPR_IN_SUBQUERY, at);
        if (!e) return NULL;
        e->u.in_query.arg = arg;
        e->u.in_query.negated = negated;
        e->u.in_query.query = sql_parse_query(p);
        if (!e->u.in_query.query || !sql_expect_tok(p, TK_RPAREN)) return NULL;
        return e;
    }
    sql_vec items = {0};
    do {
        sql_expr *v = sql_parse_expr(p);
        if (!v || !sql_vec_push_ptr(p, &items, v)) return NULL;
        if (items.n == 1 && v->kind == SQL_EXPR_SUBQUERY && sql_at_query_continuation(p)) {
            /* x IN ((SELECT 1) UNION (SELECT 2)) */
            sql_expr *e = sql_expr_new(p, SQL_EXPR_IN_SUBQUERY, at);
            if (!e) return NULL;
            e->u.in_query.arg = arg;
            e->u.in_query.negated = negated;
            e->u.in_query.query = sql_parse_query_rest(p, v->u.query);
            if (!e->u.in_query.query || !sql_expect_tok(p, TK_RPAREN)) return NULL;
            return e;
        }
    } while (sql_accept_tok(p, TK_COMMA));
    if (!sql_expect_tok(p, TK_RPAREN)) return NULL;
    sql_expr *e = sql_expr_new(p, SQL_EXPR_IN_LIST, at);
    if (!e) return NULL;
    e->u.in_list.arg = arg;
    e->u.in_list.negated = negated;
    e->u.in_list.values.items = items.data;
    e->u.in_list.values.n = items.n;
    return e;
}

static sql_expr *parse_predicated(sql_parser *p) {
    sql_expr *v = parse_value(p, 0);
    if (!v) return NULL;
    const sql_token *t = sql_cur(p);
    int cmp = comparison_op(t);
    if (cmp != SQL_OP_NONE) {
        sql_advance(p);
        const sql_token *q = sql_cur(p);
        if (q->kind == TK_WORD && (q->kw == KW_ANY || q->kw == KW_SOME || q->kw == KW_ALL) &&
            sql_peek_tok(p, 1, TK_LPAREN) && parens_lead_to_query(p, 2)) {
            sql_advance(p);
            sql_expr *e = sql_expr_new(p, SQL_EXPR_QUANTIFIED, t);
            if (!e) return NULL;
            e->u.quantified.op = (uint8_t)cmp;
            e->u.quantified.quantifier = q->kw == KW_ALL ? SQL_QUANT_ALL : SQL_QUANT_ANY;
            e->u.quantified.arg = v;
            if (!sql_expect_tok(p, TK_LPAREN)) return NULL;
            e->u.quantified.query = sql_parse_query(p);
            if (!e->u.quantified.query || !sql_expect_tok(p, TK_RPAREN)) return NULL;
            return e;
        }
        sql_expr *e = sql_expr_new(p, SQL_EXPR_BINARY, t);
        if (!e) return NULL;
        e->u.binary.op = (uint8_t)cmp;
        e->u.binary.left = v;
        e->u.binary.right = parse_value(p, 0);
        return e->u.binary.right ? e : NULL;
    }
    if (sql_accept_kw(p, KW_IS)) {
        bool negated = sql_accept_kw(p, KW_NOT);
        if (sql_accept_kw(p, KW_NULL)) {
            sql_expr *e = sql_expr_new(p, SQL_EXPR_IS_NULL, t);
            if (!e) return NULL;
            e->u.is_null.arg = v;
            e->u.is_null.negated = negated;
            return e;
        }
        if (!sql_expect_kw(p, KW_DISTINCT) || !sql_expect_kw(p, KW_FROM)) return NULL;
        sql_expr *e = sql_expr_new(p, SQL_EXPR_BINARY, t);
        if (!e) return NULL;
        e->u.binary.op = negated ? SQL_OP_IS_NOT_DISTINCT : SQL_OP_IS_DISTINCT;
        e->u.binary.left = v;
        e->u.binary.right = parse_value(p, 0);
        return e->u.binary.right ? e : NULL;
    }
    bool negated = false;
    if (sql_is_kw(p, KW_NOT)) {
        const sql_token *n = sql_peek(p, 1);
        if (n->kind == TK_WORD && (n->kw == KW_BETWEEN || n->kw == KW_IN || n->kw == KW_LIKE)) {
            sql_advance(p);
            negated = true;
        }
    }
    if (sql_accept_kw(p, KW_BETWEEN)) {
        sql_expr *e = sql_expr_new(p, SQL_EXPR_BETWEEN, t);
        if (!e) return NULL;
        e->u.between.arg = v;
        e->u.between.negated = negated;
        e->u.between.low = parse_value(p, 0);
        if (!e->u.between.low || !sql_expect_kw(p, KW_AND)) return NULL;
        e->u.between.high = parse_value(p, 0);
        return e->u.between.high ? e : NULL;
    }
    if (sql_accept_kw(p, KW_IN)) return parse_in(p, t, v, negated);
    if (sql_accept_kw(p, KW_LIKE)) {
        sql_expr *e = sql_expr_new(p, SQL_EXPR_LIKE, t);
        if (!e) return NULL;
        e->u.like.arg = v;
        e->u.like.negated = negated;
        e->u.like.pattern = parse_value(p, 0);
        if (!e->u.like.pattern) return NULL;
        if (sql_accept_kw(p, KW_ESCAPE)) {
            e->u.like.escape = parse_value(p, 0);
            if (!e->u.like.escape) return NULL;
        }
        return e;
    }
    return v;
}

static sql_expr *parse_not(sql_parser *p) {
    const sql_token *t = sql_cur(p);
    if (t->kind == TK_WORD && t->kw == KW_NOT) {
        if (!sql_depth_enter(p)) return NULL;
        sql_advance(p);
        sql_expr *arg = parse_not(p);
        if (!arg) return NULL;
        sql_depth_leave(p);
        sql_expr *e = sql_expr_new(p, SQL_EXPR_UNARY, t);
        if (!e) return NULL;
        e->u.unary.op = SQL_OP_NOT;
        e->u.unary.arg = arg;
        return e;
    }
    return parse_predicated(p);
}

/* One level of AND or OR: operand { kw operand }, flattened into an n-ary node. */
static sql_expr *parse_logical(sql_parser *p, sql_kw kw) {
    sql_expr *first = kw == KW_OR ? parse_logical(p, KW_AND) : parse_not(p);
    if (!first) return NULL;
    if (!sql_is_kw(p, kw)) return first;
    const sql_token *t = sql_cur(p);
    sql_vec items = {0};
    if (!sql_vec_push_ptr(p, &items, first)) return NULL;
    while (sql_accept_kw(p, kw)) {
        sql_expr *e = kw == KW_OR ? parse_logical(p, KW_AND) : parse_not(p);
        if (!e || !sql_vec_push_ptr(p, &items, e)) return NULL;
    }
    sql_expr *e = sql_expr_new(p, kw == KW_OR ? SQL_EXPR_OR : SQL_EXPR_AND, t);
    if (!e) return NULL;
    e->u.list.items = items.data;
    e->u.list.n = items.n;
    return e;
}

sql_expr *sql_parse_expr(sql_parser *p) { return parse_logical(p, KW_OR); }
