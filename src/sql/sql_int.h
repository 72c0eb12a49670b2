/*
 * sql_int.h: folder-private declarations of the SQL front end: the parser state and the helpers
 * the parser files (parser.c, parse_stmt.c, parse_query.c, parse_expr.c, parse_type.c) share;
 * the tokens and keyword table are public in lexer.h (included here). Nothing outside src/sql/
 * includes this header.
 */
#ifndef SQE_SQL_SQL_INT_H
#define SQE_SQL_SQL_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/arena.h"
#include "common/err.h"
#include "sql/ast.h"
#include "sql/lexer.h"

/* ---------------------------------------------------------------------------------------------
 * Parser state (parser.c)
 * ------------------------------------------------------------------------------------------- */

#define SQL_MAX_EXPECTED 48

/* Growable array in the arena (old storage is abandoned when it grows). */
typedef struct sql_vec {
    void *data;
    int n, cap;
} sql_vec;

typedef struct sql_parser {
    arena *a;
    const char *text;
    size_t len;
    sql_token *toks;
    int n_toks;
    int pos;           /* index of the current token */
    int depth;         /* current nesting (see SQL_MAX_DEPTH) */
    int n_params;      /* `?` seen so far */
    sql_vec params;    /* their positions (sql_param_pos), n_params of them */
    int rc;            /* sticky: the first error code, SQE_OK while parsing goes well */
    sqe_error *err;
    const char *lex_error;
    /* Tokens that would have been accepted at token index exp_pos (for error messages). */
    int exp_pos;
    int n_expected;
    const char *expected[SQL_MAX_EXPECTED];
} sql_parser;


/* Returns a pointer to a new zeroed slot of elem_size bytes at the end of v, or NULL (error
 * set). */
void *sql_vec_push(sql_parser *p, sql_vec *v, size_t elem_size);
/* Appends a pointer. */
bool sql_vec_push_ptr(sql_parser *p, sql_vec *v, void *ptr);

/* Token access. */
static inline const sql_token *sql_cur(const sql_parser *p) { return &p->toks[p->pos]; }
/* The token n places ahead (clamped to the final EOF). Does not record expectations. */
static inline const sql_token *sql_peek(const sql_parser *p, int n) {
    int i = p->pos + n;
    return &p->toks[i < p->n_toks ? i : p->n_toks - 1];
}
static inline void sql_advance(sql_parser *p) {
    if (p->toks[p->pos].kind != TK_EOF && p->toks[p->pos].kind != TK_ERROR) p->pos++;
}
static inline bool sql_peek_kw(const sql_parser *p, int n, sql_kw kw) {
    const sql_token *t = sql_peek(p, n);
    return t->kind == TK_WORD && t->kw == kw;
}
static inline bool sql_peek_tok(const sql_parser *p, int n, sql_tok_kind kind) {
    return sql_peek(p, n)->kind == kind;
}

/* Expectation-recording tests of the current token ("is" does not consume; "accept" consumes
 * on a match; "expect" consumes or fails with a syntax error). */
void sql_expect_note(sql_parser *p, const char *what);
bool sql_is_kw(sql_parser *p, sql_kw kw);
bool sql_accept_kw(sql_parser *p, sql_kw kw);
bool sql_expect_kw(sql_parser *p, sql_kw kw);
bool sql_is_tok(sql_parser *p, sql_tok_kind kind);
bool sql_accept_tok(sql_parser *p, sql_tok_kind kind);
bool sql_expect_tok(sql_parser *p, sql_tok_kind kind);
/* Can the token be an identifier (unquoted non-reserved word or quoted identifier)? */
bool sql_tok_is_ident(const sql_token *t);
bool sql_is_ident(sql_parser *p); /* records "<identifier>" */

/* Errors. All return false/NULL-friendly values so callers can `return sql_error...`. */
bool sql_error_unexpected(sql_parser *p);  /* "mismatched input 'x'. Expecting: ..." */
bool sql_error_at(sql_parser *p, const sql_token *t, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
bool sql_error_nomem(sql_parser *p);
bool sql_depth_enter(sql_parser *p);
static inline void sql_depth_leave(sql_parser *p) { p->depth--; }

/* Allocation. */
void *sql_alloc(sql_parser *p, size_t size);  /* zeroed; NULL with OUT_OF_MEMORY set */
char *sql_strndup(sql_parser *p, const char *s, size_t len);
sql_expr *sql_expr_new(sql_parser *p, sql_expr_kind kind, const sql_token *at);

/* Names. */
bool sql_parse_ident(sql_parser *p, sql_ident *out);
bool sql_parse_qname(sql_parser *p, sql_qname *out);
/* Makes an identifier from a word or quoted-identifier token. */
bool sql_ident_from_token(sql_parser *p, const sql_token *t, sql_ident *out);
/* `( ident, ... )` */
bool sql_parse_ident_list(sql_parser *p, sql_ident_list *out);
/* Decodes a string token ('..' or U&'..' with optional UESCAPE, which it consumes); the result
 * is NUL-terminated in the arena. The current token must be TK_STRING or TK_USTRING. */
bool sql_parse_string(sql_parser *p, const char **out, size_t *out_len);

/* ---------------------------------------------------------------------------------------------
 * Grammar entry points across files
 * ------------------------------------------------------------------------------------------- */

/* parse_stmt.c */
sql_stmt *sql_parse_statement(sql_parser *p);

/* parse_query.c */
bool sql_tok_starts_query(const sql_token *t);           /* SELECT, WITH, VALUES, TABLE */
sql_query *sql_parse_query(sql_parser *p);                /* [WITH] body [ORDER BY] [LIMIT] */
/* Continues a query whose first operand (a parenthesized subquery) was already parsed as an
 * expression or relation: set operations, ORDER BY, OFFSET, LIMIT/FETCH. */
sql_query *sql_parse_query_rest(sql_parser *p, sql_query *first);
bool sql_at_query_continuation(sql_parser *p);
sql_relation *sql_parse_relation(sql_parser *p);
bool sql_parse_order_by(sql_parser *p, sql_order_list *out); /* after ORDER BY */
bool sql_parse_named_args(sql_parser *p, sql_named_arg **args, int *n_args); /* ( ... ) */

/* parse_expr.c */
sql_expr *sql_parse_expr(sql_parser *p);           /* booleanExpression */
sql_expr *sql_parse_value_expr(sql_parser *p);     /* valueExpression (no predicates) */
sql_expr *sql_parse_primary_expr(sql_parser *p);   /* primaryExpression with postfixes */
bool sql_parse_expr_list(sql_parser *p, sql_expr_list *out); /* e, e, ... (no parentheses) */
sql_window_spec *sql_parse_window_spec(sql_parser *p);       /* ( spec ) */

/* parse_type.c */
bool sql_parse_type(sql_parser *p, sql_type_name *out);

#endif
