/*
 * fuzz_sql.c: libFuzzer target for the SQL front end (lexer, parser, AST printer, splitter).
 *
 * Each input is treated as one statement text: it is split with sqe_statement_length, every
 * piece is parsed with sql_parse into a fresh arena, and successful parses are printed with
 * sql_ast_print (which walks the whole tree). Errors must be SYNTAX_ERROR with a position inside
 * the text, or OUT_OF_MEMORY / QUERY_TEXT_TOO_LARGE; anything else aborts.
 *
 * Build (standalone):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Iinclude -Isrc tests/fuzz/fuzz_sql.c \
 *       src/sql/[a-z]*.c src/common/[a-z]*.c -o /tmp/fuzz_sql
 *   /tmp/fuzz_sql -max_len=4096 corpus/ tests/fuzz/sql_seeds
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/arena.h"
#include "common/err.h"
#include "common/strbuf.h"
#include "sql/sql.h"

static void parse_one(const char *text, size_t len) {
    arena a;
    arena_init(&a, NULL);
    sql_stmt *stmt = NULL;
    sqe_error err;
    int rc = sql_parse(&a, text, len, &stmt, &err);
    if (rc == SQE_OK) {
        if (!stmt) abort();
        strbuf sb;
        strbuf_init(&sb);
        sql_ast_print(stmt, &sb);
        strbuf_reset(&sb);
    } else {
        if (stmt) abort();
        if (rc != SQE_ERR_SYNTAX_ERROR && rc != SQE_ERR_OUT_OF_MEMORY &&
            rc != SQE_ERR_QUERY_TEXT_TOO_LARGE)
            abort();
        if (rc == SQE_ERR_SYNTAX_ERROR) {
            if (err.line < 1 || err.column < 1 || err.message[0] == 0) abort();
            if ((size_t)err.line > len + 1 || (size_t)err.column > len + 1) abort();
        }
    }
    arena_destroy(&a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = 0;
    /* The whole input as one statement (embedded NULs included)... */
    parse_one(text, size);
    /* ...and each statement of it as a script. */
    const char *p = text;
    int complete;
    for (int guard = 0; guard < 64; guard++) {
        size_t n = sqe_statement_length(p, &complete);
        if (n == 0) break;
        if (p + n > text + size) abort();
        if (n < (size_t)(text + size - p)) parse_one(p, n);
        p += n;
    }
    free(text);
    return 0;
}
