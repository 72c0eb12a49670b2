/*
 * sql.h: the SQL front end: parse Trino-dialect SQL text into the AST of ast.h.
 *
 * The parser is hand-written recursive descent (with precedence climbing for expressions). It
 * accepts exactly one statement per call; scripts are split first with sqe_statement_length
 * (include/sqe/sqe.h, implemented in split.c). Errors are SQE_ERR_SYNTAX_ERROR with the 1-based
 * line and column of the offending token and a Trino-style message ("mismatched input 'FORM'.
 * Expecting: ...").
 */
#ifndef SQE_SQL_SQL_H
#define SQE_SQL_SQL_H

#include <stddef.h>

#include "common/arena.h"
#include "common/err.h"
#include "common/strbuf.h"
#include "sql/ast.h"

/* Maximum nesting of expressions, queries, relations and types (and length of left-associative
 * operator chains), so that neither the parser nor later recursive passes can overflow the
 * stack. Deeper input fails with SYNTAX_ERROR "... nesting too deep". */
#define SQL_MAX_DEPTH 1000

/* Parses one statement from text[0..len) (text need not be NUL-terminated; embedded NUL bytes
 * outside string literals are errors). An optional trailing ';' is allowed; anything else after
 * the statement is an error. On success returns SQE_OK and *out points to the statement, which
 * lives in `a` (as does everything it references) until the arena is reset or destroyed; no
 * pointer into `text` is kept. On error returns SQE_ERR_SYNTAX_ERROR (line and column set),
 * SQE_ERR_QUERY_TEXT_TOO_LARGE (1 GiB or more) or SQE_ERR_OUT_OF_MEMORY; *out is then NULL and
 * whatever was allocated stays in the arena until it is reset. Thread-safe for distinct arenas
 * (no global state). */
int sql_parse(arena *a, const char *text, size_t len, sql_stmt **out, sqe_error *err);

/* Appends an S-expression dump of the statement to out, e.g.
 *   (query (select (items (name a) (call count *)) (from (table t)) (where (> (name a) 1))))
 * Used by unit tests and for debugging; the format is stable but not a public interface. */
void sql_ast_print(const sql_stmt *s, strbuf *out);
/* Same for a single expression or query (for tests and debugging). */
void sql_expr_print(const sql_expr *e, strbuf *out);
void sql_query_print(const sql_query *q, strbuf *out);

/* Names of enum values, for messages and the printer ("+", "UNION", "LEFT", ...). */
const char *sql_op_name(int op);
const char *sql_interval_field_name(int field);

#endif
