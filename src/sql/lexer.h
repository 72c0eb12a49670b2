/*
 * lexer.h: the SQL tokenizer (lexer.c): keyword ids (keywords.def), token kinds, the token array
 * of a statement text, and keyword lookup. The parser files reach it through sql_int.h; outside
 * src/sql/ it is for code that needs the tokens of a statement text itself (the engine finds the
 * source positions of `?` parameters with it, engine/statement.c). Everything else works on the
 * AST (sql.h, ast.h).
 */
#ifndef SQE_SQL_LEXER_H
#define SQE_SQL_LEXER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/arena.h"
#include "common/err.h"

typedef enum sql_kw {
    KW_NONE_ = 0,
#define X(name, reserved) KW_##name,
#include "sql/keywords.def"
#undef X
    KW_COUNT_
} sql_kw;

typedef enum sql_tok_kind {
    TK_EOF = 0,
    TK_ERROR,    /* a lexical error; the lexer's message is in sql_lexed.error */
    TK_WORD,     /* unquoted identifier or keyword (kw != 0 for keywords) */
    TK_QIDENT,   /* "quoted identifier" */
    TK_STRING,   /* 'string' */
    TK_USTRING,  /* U&'unicode string' */
    TK_BSTRING,  /* X'binary' */
    TK_INTEGER,  /* 123, 1_000, 0x1F, 0b101, 0o17 */
    TK_DECIMAL,  /* 1.5, .5, 1. */
    TK_DOUBLE,   /* 1e10, 1.5E-3 */
    TK_PARAM,    /* ? */
    TK_LPAREN,
    TK_RPAREN,
    TK_LBRACKET,
    TK_RBRACKET,
    TK_COMMA,
    TK_DOT,
    TK_SEMI,
    TK_EQ,
    TK_NE,       /* <> or != */
    TK_LT,
    TK_LE,
    TK_GT,
    TK_GE,
    TK_PLUS,
    TK_MINUS,
    TK_STAR,
    TK_SLASH,
    TK_PERCENT,
    TK_CONCAT,   /* || */
    TK_ARROW,    /* -> */
    TK_NAMED,    /* => */
    TK_COUNT_
} sql_tok_kind;

typedef struct sql_token {
    uint8_t kind;  /* sql_tok_kind */
    uint16_t kw;   /* sql_kw for TK_WORD, else 0 */
    uint32_t off;  /* byte offset in the text */
    uint32_t len;  /* byte length */
    int line, col; /* 1-based */
} sql_token;

/* The token array of one statement text; always ends with a TK_EOF (preceded by at most one
 * TK_ERROR, where lexing stopped). */
typedef struct sql_lexed {
    sql_token *toks;
    int n_toks;
    char error[200]; /* message for a TK_ERROR token */
} sql_lexed;

/* Tokenizes text[0..len). Returns SQE_OK (lexical errors become a TK_ERROR token, reported when
 * the parser reaches it) or OUT_OF_MEMORY / QUERY_TEXT_TOO_LARGE. Tokens live in `a`. */
int sql_lex(arena *a, const char *text, size_t len, sql_lexed *out, sqe_error *err);

/* Keyword lookup by (case-insensitive) word; KW_NONE_ when the word is not a keyword. */
sql_kw sql_keyword_lookup(const char *word, size_t len);
const char *sql_keyword_name(sql_kw kw); /* upper case */
bool sql_keyword_reserved(sql_kw kw);
/* 1 if the keyword table is sorted (checked by the unit tests). */
int sql_keyword_table_sorted(void);

/* Display text of a token kind for "Expecting: ..." lists, e.g. "','" or "<identifier>". */
const char *sql_tok_kind_name(sql_tok_kind kind);

#endif
