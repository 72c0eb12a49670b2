/*
 * parse_type.c: SQL type names (Trino SqlBase.g4 `type`), as used by CAST, TRY_CAST and column
 * definitions, normalized to text.
 *
 * INTERFACE
 *   sql_parse_type    parse a type and store its normalized spelling
 *
 * NOTES
 *   - The parser does not resolve types; it checks the shape and writes Trino's spelling:
 *     lower-case names, "decimal(12,2)" (numeric parameters joined by ","), "map(varchar,
 *     array(integer))" (type parameters joined by ", "), "timestamp(3) with time zone",
 *     "row(a bigint, \"b c\" varchar)", "interval day to second". DOUBLE PRECISION becomes
 *     "double", WITHOUT TIME ZONE is dropped, and the legacy forms ARRAY<T>, MAP<K,V> and
 *     `T ARRAY` become array(T) / map(K, V). The binder calls type_parse on the result.
 *   - Unquoted row field names are lower-cased; quoted ones keep their case and quotes.
 *   - Nesting counts against SQL_MAX_DEPTH.
 */
#include <string.h>

#include "common/strbuf.h"
#include "sql/sql.h"
#include "sql/sql_int.h"

static bool parse_type_into(sql_parser *p, strbuf *sb);

static bool is_interval_field(const sql_token *t) {
    if (t->kind != TK_WORD) return false;
    switch (t->kw) {
    case KW_YEAR:
    case KW_MONTH:
    case KW_DAY:
    case KW_HOUR:
    case KW_MINUTE:
    case KW_SECOND: return true;
    default: return false;
    }
}

static bool append_interval_field(sql_parser *p, strbuf *sb) {
    const sql_token *t = sql_cur(p);
    if (!is_interval_field(t)) {
        sql_expect_note(p, "'YEAR'");
        sql_expect_note(p, "'MONTH'");
        sql_expect_note(p, "'DAY'");
        sql_expect_note(p, "'HOUR'");
        sql_expect_note(p, "'MINUTE'");
        sql_expect_note(p, "'SECOND'");
        return sql_error_unexpected(p);
    }
    for (uint32_t i = 0; i < t->len; i++) {
        char c = p->text[t->off + i];
        strbuf_putc(sb, (c >= 'A' && c <= 'Z') ? (char)(c + 32) : c);
    }
    sql_advance(p);
    return true;
}

static void append_ident(strbuf *sb, const sql_ident *id) {
    if (!id->quoted) {
        strbuf_puts(sb, id->name);
        return;
    }
    strbuf_putc(sb, '"');
    for (const char *c = id->name; *c; c++) {
        if (*c == '"') strbuf_putc(sb, '"');
        strbuf_putc(sb, *c);
    }
    strbuf_putc(sb, '"');
}

/* An integer type parameter: digits without underscores. */
static bool append_integer(sql_parser *p, strbuf *sb) {
    const sql_token *t = sql_cur(p);
    const char *s = p->text + t->off;
    char base = t->len > 2 && s[0] == '0' ? (char)(s[1] | 0x20) : 0;
    if (base == 'x' || base == 'o' || base == 'b')
        return sql_error_at(p, t, "type parameters must be decimal integers");
    for (uint32_t i = 0; i < t->len; i++)
        if (s[i] != '_') strbuf_putc(sb, s[i]);
    sql_advance(p);
    return true;
}

/* [(p)] [WITH TIME ZONE | WITHOUT TIME ZONE] after TIME / TIMESTAMP. */
static bool parse_datetime_suffix(sql_parser *p, strbuf *sb) {
    if (sql_accept_tok(p, TK_LPAREN)) {
        strbuf_putc(sb, '(');
        if (!sql_is_tok(p, TK_INTEGER)) return sql_error_unexpected(p);
        if (!append_integer(p, sb) || !sql_expect_tok(p, TK_RPAREN)) return false;
        strbuf_putc(sb, ')');
    }
    if (sql_accept_kw(p, KW_WITH)) {
        if (!sql_expect_kw(p, KW_TIME) || !sql_expect_kw(p, KW_ZONE)) return false;
        strbuf_puts(sb, " with time zone");
    } else if (sql_accept_kw(p, KW_WITHOUT)) {
        if (!sql_expect_kw(p, KW_TIME) || !sql_expect_kw(p, KW_ZONE)) return false;
    }
    return true;
}

/* Does a row field start with a name (`a bigint`) rather than a bare type (`bigint`)? */
static bool row_field_has_name(const sql_parser *p) {
    const sql_token *t = sql_cur(p), *n = sql_peek(p, 1);
    if (!sql_tok_is_ident(t) || !sql_tok_is_ident(n)) return false;
    if (t->kind == TK_WORD) {
        if (t->kw == KW_DOUBLE && n->kind == TK_WORD && n->kw == KW_PRECISION) return false;
        if (t->kw == KW_INTERVAL && is_interval_field(n)) return false;
        if ((t->kw == KW_TIME || t->kw == KW_TIMESTAMP) && n->kind == TK_WORD &&
            n->kw == KW_WITHOUT)
            return false;
    }
    return true;
}

static bool parse_row_type(sql_parser *p, strbuf *sb) {
    sql_advance(p); /* ROW */
    if (!sql_expect_tok(p, TK_LPAREN)) return false;
    strbuf_puts(sb, "row(");
    int n_fields = 0;
    do {
        if (n_fields++) strbuf_puts(sb, ", ");
        if (row_field_has_name(p)) {
            sql_ident name;
            if (!sql_parse_ident(p, &name)) return false;
            append_ident(sb, &name);
            strbuf_putc(sb, ' ');
        }
        if (!parse_type_into(p, sb)) return false;
    } while (sql_accept_tok(p, TK_COMMA));
    if (!sql_expect_tok(p, TK_RPAREN)) return false;
    strbuf_putc(sb, ')');
    return true;
}

/* name [(param, ...)] */
static bool parse_generic_type(sql_parser *p, strbuf *sb) {
    if (!sql_is_ident(p)) {
        sql_expect_note(p, "<type>");
        return sql_error_unexpected(p);
    }
    sql_ident name;
    if (!sql_parse_ident(p, &name)) return false;
    for (const char *c = name.name; *c; c++)
        strbuf_putc(sb, (*c >= 'A' && *c <= 'Z') ? (char)(*c + 32) : *c);
    if (!sql_accept_tok(p, TK_LPAREN)) return true;
    strbuf_putc(sb, '(');
    /* Parameters go into their own buffer first: the separator depends on whether all of them
     * are integers ("decimal(12,2)") or not ("map(varchar, bigint)"). */
    strbuf params;
    strbuf_init(&params);
    bool all_numbers = true;
    int n = 0;
    bool ok = true;
    do {
        if (n++) strbuf_putc(&params, '\x01');
        if (sql_cur(p)->kind == TK_INTEGER) {
            ok = append_integer(p, &params);
        } else {
            all_numbers = false;
            ok = parse_type_into(p, &params);
        }
    } while (ok && sql_accept_tok(p, TK_COMMA));
    if (ok) ok = sql_expect_tok(p, TK_RPAREN);
    if (ok && params.data) {
        for (size_t i = 0; i < params.len; i++) {
            if (params.data[i] == '\x01')
                strbuf_puts(sb, all_numbers ? "," : ", ");
            else
                strbuf_putc(sb, params.data[i]);
        }
    }
    if (params.failed) ok = sql_error_nomem(p);
    strbuf_reset(&params);
    strbuf_putc(sb, ')');
    return ok;
}

static bool parse_type_into(sql_parser *p, strbuf *sb) {
    if (!sql_depth_enter(p)) return false;
    size_t start = sb->len;
    const sql_token *t = sql_cur(p);
    const sql_token *n = sql_peek(p, 1);
    bool ok;
    if (t->kind == TK_WORD && t->kw == KW_ROW && n->kind == TK_LPAREN) {
        ok = parse_row_type(p, sb);
    } else if (t->kind == TK_WORD && t->kw == KW_INTERVAL && is_interval_field(n)) {
        sql_advance(p);
        strbuf_puts(sb, "interval ");
        ok = append_interval_field(p, sb);
        if (ok && sql_accept_kw(p, KW_TO)) {
            strbuf_puts(sb, " to ");
            ok = append_interval_field(p, sb);
        }
    } else if (t->kind == TK_WORD && (t->kw == KW_TIMESTAMP || t->kw == KW_TIME)) {
        sql_advance(p);
        strbuf_puts(sb, t->kw == KW_TIME ? "time" : "timestamp");
        ok = parse_datetime_suffix(p, sb);
    } else if (t->kind == TK_WORD && t->kw == KW_DOUBLE && n->kind == TK_WORD &&
               n->kw == KW_PRECISION) {
        sql_advance(p);
        sql_advance(p);
        strbuf_puts(sb, "double");
        ok = true;
    } else if (t->kind == TK_WORD && t->kw == KW_ARRAY && n->kind == TK_LT) {
        sql_advance(p);
        sql_advance(p);
        strbuf_puts(sb, "array(");
        ok = parse_type_into(p, sb) && sql_expect_tok(p, TK_GT);
        strbuf_putc(sb, ')');
    } else if (t->kind == TK_WORD && t->kw == KW_MAP && n->kind == TK_LT) {
        sql_advance(p);
        sql_advance(p);
        strbuf_puts(sb, "map(");
        ok = parse_type_into(p, sb) && sql_expect_tok(p, TK_COMMA);
        strbuf_puts(sb, ", ");
        ok = ok && parse_type_into(p, sb) && sql_expect_tok(p, TK_GT);
        strbuf_putc(sb, ')');
    } else {
        ok = parse_generic_type(p, sb);
    }
    /* postfix `T ARRAY [n]` (legacy) */
    int links = 0;
    while (ok && sql_cur(p)->kind == TK_WORD && sql_cur(p)->kw == KW_ARRAY) {
        if (!sql_depth_enter(p)) return false;
        links++;
        sql_advance(p);
        if (sql_accept_tok(p, TK_LBRACKET)) {
            ok = sql_is_tok(p, TK_INTEGER) ? (sql_advance(p), sql_expect_tok(p, TK_RBRACKET))
                                           : sql_error_unexpected(p);
        }
        if (sb->failed) break;
        size_t tail_len = sb->len - start;
        char *tail = sql_strndup(p, sb->data + start, tail_len);
        if (!tail) return false;
        sb->len = start;
        sb->data[start] = 0;
        strbuf_puts(sb, "array(");
        strbuf_append(sb, tail, tail_len);
        strbuf_putc(sb, ')');
    }
    p->depth -= links;
    sql_depth_leave(p);
    return ok;
}

bool sql_parse_type(sql_parser *p, sql_type_name *out) {
    const sql_token *t = sql_cur(p);
    out->line = t->line;
    out->col = t->col;
    strbuf sb;
    strbuf_init(&sb);
    bool ok = parse_type_into(p, &sb);
    if (ok && sb.failed) ok = sql_error_nomem(p);
    if (ok) {
        out->text = sql_strndup(p, sb.data, sb.len);
        ok = out->text != NULL;
    }
    strbuf_reset(&sb);
    return ok;
}
