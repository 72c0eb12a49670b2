/*
 * parser.c: the parser's core: entry point, token tests, error reporting, names and strings.
 *
 * INTERFACE
 *   sql_parse                 parse exactly one statement (sql.h)
 *   sql_is_kw / sql_accept_kw / sql_expect_kw, sql_is_tok / ..., sql_is_ident
 *   sql_error_unexpected / sql_error_at / sql_error_nomem / sql_depth_enter
 *   sql_alloc / sql_strndup / sql_expr_new / sql_vec_push / sql_vec_push_ptr
 *   sql_parse_ident / sql_parse_qname / sql_parse_ident_list / sql_ident_from_token
 *   sql_parse_string          decode '..' and U&'..' [UESCAPE '.'] literals
 *
 * NOTES
 *   - Recursive descent without backtracking. Every test of the current token goes through a
 *     helper that records what would have been accepted at that token; when parsing fails, the
 *     message lists those alternatives the way Trino (ANTLR) does: "mismatched input 'FORM'.
 *     Expecting: ',', 'FROM', ...".
 *   - Errors are sticky (p->rc): the first one wins and every parse function returns NULL/false
 *     from then on, so callers simply propagate.
 *   - Nesting is bounded by SQL_MAX_DEPTH (sql_depth_enter), so hostile input cannot overflow
 *     the stack here or in later recursive passes over the tree.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/utf8.h"
#include "common/hex.h"
#include "sql/sql.h"
#include "common/stack.h"
#include "sql/sql_int.h"

/* ---------------------------------------------------------------------------------------------
 * Allocation
 * ------------------------------------------------------------------------------------------- */

bool sql_error_nomem(sql_parser *p) {
    if (p->rc == SQE_OK) p->rc = err_nomem(p->err, "SQL syntax tree");
    return false;
}

void *sql_alloc(sql_parser *p, size_t size) {
    void *m = arena_zalloc(p->a, size);
    if (!m) sql_error_nomem(p);
    return m;
}

char *sql_strndup(sql_parser *p, const char *s, size_t len) {
    char *m = arena_strndup(p->a, s, len);
    if (!m) sql_error_nomem(p);
    return m;
}

sql_expr *sql_expr_new(sql_parser *p, sql_expr_kind kind, const sql_token *at) {
    sql_expr *e = sql_alloc(p, sizeof *e);
    if (!e) return NULL;
    e->kind = (uint8_t)kind;
    e->line = at->line;
    e->col = at->col;
    return e;
}

void *sql_vec_push(sql_parser *p, sql_vec *v, size_t elem_size) {
    if (v->n == v->cap) {
        if (v->cap > (1 << 28)) {
            sql_error_nomem(p);
            return NULL;
        }
        int cap = v->cap ? v->cap * 2 : 4;
        void *data = arena_alloc(p->a, elem_size * (size_t)cap);
        if (!data) {
            sql_error_nomem(p);
            return NULL;
        }
        if (v->n) memcpy(data, v->data, elem_size * (size_t)v->n);
        v->data = data;
        v->cap = cap;
    }
    char *slot = (char *)v->data + elem_size * (size_t)v->n++;
    memset(slot, 0, elem_size);
    return slot;
}

bool sql_vec_push_ptr(sql_parser *p, sql_vec *v, void *ptr) {
    void **slot = sql_vec_push(p, v, sizeof(void *));
    if (!slot) return false;
    *slot = ptr;
    return true;
}

/* ---------------------------------------------------------------------------------------------
 * Errors
 * ------------------------------------------------------------------------------------------- */

/* The token as shown in messages: its text (shortened), or <EOF>. */
static void token_display(const sql_parser *p, const sql_token *t, char *buf, size_t buf_len) {
    if (t->kind == TK_EOF) {
        snprintf(buf, buf_len, "<EOF>");
        return;
    }
    size_t n = t->len;
    const size_t max = 40;
    if (n > max) {
        snprintf(buf, buf_len, "%.*s...", (int)max, p->text + t->off);
    } else {
        snprintf(buf, buf_len, "%.*s", (int)n, p->text + t->off);
    }
    /* Keep messages printable: control characters and NULs inside literals become '?'. */
    for (char *c = buf; *c; c++)
        if ((unsigned char)*c < 0x20) *c = '?';
}

static bool set_error(sql_parser *p, const sql_token *t, const char *msg) {
    if (p->rc != SQE_OK) return false;
    p->rc = err_set_at(p->err, SQE_ERR_SYNTAX_ERROR, t->line, t->col, "%s", msg);
    return false;
}

bool sql_error_at(sql_parser *p, const sql_token *t, const char *fmt, ...) {
    if (p->rc != SQE_OK) return false;
    if (t->kind == TK_ERROR) return set_error(p, t, p->lex_error);
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return set_error(p, t, msg);
}

static int cmp_expected(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

bool sql_error_unexpected(sql_parser *p) {
    if (p->rc != SQE_OK) return false;
    const sql_token *t = sql_cur(p);
    if (t->kind == TK_ERROR) return set_error(p, t, p->lex_error);
    char shown[64];
    token_display(p, t, shown, sizeof shown);
    char msg[400];
    int n = snprintf(msg, sizeof msg, "mismatched input '%s'", shown);
    if (p->exp_pos == p->pos && p->n_expected > 0) {
        qsort(p->expected, (size_t)p->n_expected, sizeof p->expected[0], cmp_expected);
        n += snprintf(msg + n, sizeof msg - (size_t)n, ". Expecting: ");
        for (int i = 0; i < p->n_expected && n < (int)sizeof msg - 8; i++) {
            const char *sep = i ? ", " : "";
            int w = snprintf(msg + n, sizeof msg - (size_t)n, "%s%s", sep, p->expected[i]);
            if (w < 0 || n + w >= (int)sizeof msg - 8) {
                snprintf(msg + n, sizeof msg - (size_t)n, ", ...");
                break;
            }
            n += w;
        }
    }
    return set_error(p, t, msg);
}

bool sql_depth_enter(sql_parser *p) {
    if (++p->depth > SQL_MAX_DEPTH || stack_exhausted()) {
        p->depth--;
        return sql_error_at(p, sql_cur(p),
                            "expression nesting too deep (more than %d levels of nested "
                            "expressions, subqueries or types)",
                            SQL_MAX_DEPTH);
    }
    return true;
}

/* ---------------------------------------------------------------------------------------------
 * Token tests
 * ------------------------------------------------------------------------------------------- */

void sql_expect_note(sql_parser *p, const char *what) {
    if (p->pos < p->exp_pos) return;
    if (p->pos > p->exp_pos) {
        p->exp_pos = p->pos;
        p->n_expected = 0;
    }
    for (int i = 0; i < p->n_expected; i++)
        if (p->expected[i] == what || strcmp(p->expected[i], what) == 0) return;
    if (p->n_expected < SQL_MAX_EXPECTED) p->expected[p->n_expected++] = what;
}

/* Quoted keyword names for expectation lists ("'FROM'"), built once. */
static const char *kw_quoted(sql_kw kw) {
    static const char *const names[] = {
        "",
#define X(name, reserved) "'" #name "'",
#include "sql/keywords.def"
#undef X
    };
    return (kw > KW_NONE_ && kw < KW_COUNT_) ? names[kw] : "";
}

bool sql_is_kw(sql_parser *p, sql_kw kw) {
    const sql_token *t = sql_cur(p);
    if (t->kind == TK_WORD && t->kw == kw) return true;
    sql_expect_note(p, kw_quoted(kw));
    return false;
}

bool sql_accept_kw(sql_parser *p, sql_kw kw) {
    if (!sql_is_kw(p, kw)) return false;
    sql_advance(p);
    return true;
}

bool sql_expect_kw(sql_parser *p, sql_kw kw) {
    if (sql_accept_kw(p, kw)) return true;
    return sql_error_unexpected(p);
}

bool sql_is_tok(sql_parser *p, sql_tok_kind kind) {
    if (sql_cur(p)->kind == kind) return true;
    sql_expect_note(p, sql_tok_kind_name(kind));
    return false;
}

bool sql_accept_tok(sql_parser *p, sql_tok_kind kind) {
    if (!sql_is_tok(p, kind)) return false;
    sql_advance(p);
    return true;
}

bool sql_expect_tok(sql_parser *p, sql_tok_kind kind) {
    if (sql_accept_tok(p, kind)) return true;
    return sql_error_unexpected(p);
}

bool sql_tok_is_ident(const sql_token *t) {
    if (t->kind == TK_QIDENT) return true;
    return t->kind == TK_WORD && !sql_keyword_reserved((sql_kw)t->kw);
}

bool sql_is_ident(sql_parser *p) {
    if (sql_tok_is_ident(sql_cur(p))) return true;
    sql_expect_note(p, "<identifier>");
    return false;
}

/* ---------------------------------------------------------------------------------------------
 * Names
 * ------------------------------------------------------------------------------------------- */

bool sql_ident_from_token(sql_parser *p, const sql_token *t, sql_ident *out) {
    const char *src = p->text + t->off;
    out->line = t->line;
    out->col = t->col;
    if (t->kind == TK_QIDENT) {
        /* strip the quotes and unescape "" */
        size_t n = t->len - 2;
        char *name = sql_alloc(p, n + 1);
        if (!name) return false;
        size_t w = 0;
        for (size_t i = 1; i + 1 < t->len; i++) {
            name[w++] = src[i];
            if (src[i] == '"') i++;
        }
        name[w] = 0;
        out->name = name;
        out->text = name;
        out->quoted = true;
        return true;
    }
    char *text = sql_strndup(p, src, t->len);
    char *name = sql_strndup(p, src, t->len);
    if (!text || !name) return false;
    for (char *c = name; *c; c++)
        if (*c >= 'A' && *c <= 'Z') *c = (char)(*c + 32);
    out->name = name;
    out->text = text;
    out->quoted = false;
    return true;
}

bool sql_parse_ident(sql_parser *p, sql_ident *out) {
    if (!sql_is_ident(p)) return sql_error_unexpected(p);
    const sql_token *t = sql_cur(p);
    sql_advance(p);
    return sql_ident_from_token(p, t, out);
}

bool sql_parse_qname(sql_parser *p, sql_qname *out) {
    sql_vec parts = {0};
    do {
        sql_ident *part = sql_vec_push(p, &parts, sizeof(sql_ident));
        if (!part || !sql_parse_ident(p, part)) return false;
        /* a '.' followed by '*' belongs to the caller (t.*) */
        if (sql_cur(p)->kind == TK_DOT && !sql_tok_is_ident(sql_peek(p, 1))) {
            if (sql_peek(p, 1)->kind != TK_STAR) {
                sql_advance(p);
                return sql_parse_ident(p, &(sql_ident){0}); /* reports the error */
            }
            break;
        }
    } while (sql_accept_tok(p, TK_DOT));
    out->parts = parts.data;
    out->n_parts = parts.n;
    return true;
}

bool sql_parse_ident_list(sql_parser *p, sql_ident_list *out) {
    if (!sql_expect_tok(p, TK_LPAREN)) return false;
    sql_vec v = {0};
    do {
        sql_ident *id = sql_vec_push(p, &v, sizeof(sql_ident));
        if (!id || !sql_parse_ident(p, id)) return false;
    } while (sql_accept_tok(p, TK_COMMA));
    if (!sql_expect_tok(p, TK_RPAREN)) return false;
    out->items = v.data;
    out->n = v.n;
    return true;
}

/* ---------------------------------------------------------------------------------------------
 * String literals
 * ------------------------------------------------------------------------------------------- */



/* Copies the body of a quoted token (without quotes) into the arena, unescaping ''. */
static char *unquote(sql_parser *p, const char *body, size_t n, size_t *out_len) {
    char *s = sql_alloc(p, n + 1);
    if (!s) return NULL;
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        s[w++] = body[i];
        if (body[i] == '\'') i++;
    }
    s[w] = 0;
    *out_len = w;
    return s;
}

bool sql_parse_string(sql_parser *p, const char **out, size_t *out_len) {
    const sql_token *t = sql_cur(p);
    if (t->kind == TK_STRING) {
        sql_advance(p);
        char *s = unquote(p, p->text + t->off + 1, t->len - 2, out_len);
        *out = s;
        return s != NULL;
    }
    if (t->kind != TK_USTRING) {
        sql_expect_note(p, "<string>");
        return sql_error_unexpected(p);
    }
    sql_advance(p);
    size_t raw_len;
    char *raw = unquote(p, p->text + t->off + 3, t->len - 3 - 1, &raw_len);
    if (!raw) return false;
    char esc = '\\';
    if (sql_accept_kw(p, KW_UESCAPE)) {
        const sql_token *e = sql_cur(p);
        if (e->kind != TK_STRING) {
            sql_expect_note(p, "<string>");
            return sql_error_unexpected(p);
        }
        sql_advance(p);
        size_t elen;
        char *es = unquote(p, p->text + e->off + 1, e->len - 2, &elen);
        if (!es) return false;
        if (elen != 1 || hex_digit(es[0]) >= 0 || es[0] == '+' || es[0] == '"' || es[0] == '\'' ||
            es[0] == ' ' || es[0] == '\t' || es[0] == '\n' || es[0] == '\r' ||
            (unsigned char)es[0] >= 0x80)
            return sql_error_at(p, e, "invalid Unicode escape character: '%s'", es);
        esc = es[0];
    }
    /* Decoding never grows the text: an escape of k >= 5 bytes yields at most 4 bytes. */
    char *s = sql_alloc(p, raw_len + 1);
    if (!s) return false;
    size_t w = 0;
    for (size_t i = 0; i < raw_len;) {
        if (raw[i] != esc) {
            s[w++] = raw[i++];
            continue;
        }
        if (i + 1 < raw_len && raw[i + 1] == esc) {
            s[w++] = esc;
            i += 2;
            continue;
        }
        int digits = 4;
        size_t j = i + 1;
        if (j < raw_len && raw[j] == '+') {
            digits = 6;
            j++;
        }
        uint32_t cp = 0;
        for (int k = 0; k < digits; k++, j++) {
            int h = j < raw_len ? hex_digit(raw[j]) : -1;
            if (h < 0)
                return sql_error_at(p, t,
                                    "invalid Unicode escape sequence in string literal: expected "
                                    "%d hexadecimal digits after the escape character",
                                    digits);
            cp = cp * 16 + (uint32_t)h;
        }
        if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return sql_error_at(p, t, "invalid Unicode code point in string literal: U+%X", cp);
        w += utf8_encode(cp, s + w);
        i = j;
    }
    s[w] = 0;
    *out = s;
    *out_len = w;
    return true;
}

/* ---------------------------------------------------------------------------------------------
 * Entry point
 * ------------------------------------------------------------------------------------------- */

/* Statements are UTF-8 text: anything else is refused before lexing (with the position of the
 * first bad byte), so no invalid string ever reaches a result. */
static int check_utf8(const char *text, size_t len, sqe_error *err) {
    size_t bad = utf8_valid_prefix(text, len);
    if (bad == len) return SQE_OK;
    int line = 1, col = 1;
    for (size_t i = 0; i < bad; i++) {
        if (text[i] == '\n') {
            line++;
            col = 1;
        } else if (((unsigned char)text[i] & 0xC0) != 0x80) {
            col++;
        }
    }
    return err_set_at(err, SQE_ERR_SYNTAX_ERROR, line, col,
                      "Statement text is not valid UTF-8 (byte 0x%02x)", (unsigned char)text[bad]);
}

int sql_parse(arena *a, const char *text, size_t len, sql_stmt **out, sqe_error *err) {
    *out = NULL;
    if (!text) len = 0;
    if (text) SQE_TRY(check_utf8(text, len, err));
    sql_lexed lexed;
    int rc = sql_lex(a, text ? text : "", len, &lexed, err);
    if (rc != SQE_OK) return rc;
    sql_parser p;
    memset(&p, 0, sizeof p);
    p.a = a;
    p.text = text ? text : "";
    p.len = len;
    p.toks = lexed.toks;
    p.n_toks = lexed.n_toks;
    p.err = err;
    p.lex_error = lexed.error;
    p.exp_pos = -1;
    /* lexed.error lives on this stack frame; copy it into the arena for the parser's lifetime */
    p.lex_error = arena_strdup(a, lexed.error);
    if (!p.lex_error) return err_nomem(err, "SQL syntax tree");

    sql_stmt *s = sql_parse_statement(&p);
    if (s && p.rc == SQE_OK) {
        bool semi = sql_accept_tok(&p, TK_SEMI);
        if (!sql_is_tok(&p, TK_EOF)) {
            if (semi)
                sql_error_at(&p, sql_cur(&p),
                             "only one statement can be parsed at a time; found '%.*s' after ';'",
                             (int)(sql_cur(&p)->len > 40 ? 40 : sql_cur(&p)->len),
                             p.text + sql_cur(&p)->off);
            else
                sql_error_unexpected(&p);
        }
    }
    if (p.rc != SQE_OK) return p.rc;
    if (!s) return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "parser returned no statement");
    s->n_params = p.n_params;
    s->param_pos = p.params.data;
    /* a statement nested at the end (PREPARE x FROM ..., EXPLAIN ...) holds the last markers */
    sql_stmt *inner = s->kind == SQL_STMT_PREPARE   ? s->u.prepare.stmt
                      : s->kind == SQL_STMT_EXPLAIN ? s->u.explain.stmt
                                                    : NULL;
    if (inner && inner->n_params <= s->n_params && s->param_pos)
        inner->param_pos = s->param_pos + (s->n_params - inner->n_params);
    *out = s;
    return SQE_OK;
}
