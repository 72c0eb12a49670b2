/*
 * split.c: splitting a script into statements (sqe_statement_length, include/sqe/sqe.h).
 *
 * INTERFACE
 *   sqe_statement_length   length of the first statement of a script, up to its ';'
 *
 * NOTES
 *   - A ';' ends a statement unless it is inside a string ('...', with '' escapes, also the
 *     U&'..' and X'..' forms), a quoted identifier ("...") or a comment (-- to end of line,
 *     non-nesting block comments), exactly the lexical rules of lexer.c.
 *   - The returned length starts at sql[0], so leading whitespace and comments belong to the
 *     statement; an empty statement (" ;") is returned as such and the caller decides whether
 *     to skip it. Linear time, no allocation.
 */
#include <stddef.h>

#include "sqe/sqe.h"

size_t sqe_statement_length(const char *sql, int *complete) {
    if (complete) *complete = 0;
    if (!sql) return 0;
    size_t i = 0;
    int saw_token = 0; /* anything other than whitespace and comments */
    for (;;) {
        char c = sql[i];
        if (c == 0) break;
        if (c == ';') {
            if (complete) *complete = 1;
            return i + 1;
        }
        if (c == '-' && sql[i + 1] == '-') {
            i += 2;
            while (sql[i] && sql[i] != '\n') i++;
            continue;
        }
        if (c == '/' && sql[i + 1] == '*') {
            i += 2;
            while (sql[i] && !(sql[i] == '*' && sql[i + 1] == '/')) i++;
            if (sql[i]) i += 2;
            continue;
        }
        if (c == '\'' || c == '"') {
            saw_token = 1;
            i++;
            /* a doubled quote inside is an escape: it closes and reopens, same effect */
            while (sql[i] && sql[i] != c) i++;
            if (sql[i]) i++;
            continue;
        }
        if (!(c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'))
            saw_token = 1;
        i++;
    }
    return saw_token ? i : 0;
}
