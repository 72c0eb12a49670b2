/*
 * output.h: result formatters of the shell (table, csv, tsv, json).
 *
 * The formatters know nothing about the engine: they take column names, Trino type names and the
 * text of each cell (NULL for SQL NULL), so they can be unit-tested with made-up rows. The code
 * that pulls chunks from a sqe_result and feeds them here is in run.c.
 *
 * JSON values: integers, real and double as JSON numbers (NaN, Infinity as strings), booleans
 * bare, other scalars (decimal, varchar, date, timestamp, varbinary, uuid, json, ...) as strings
 * of their text, NULL as null. Nested values become JSON: ARRAY an array, ROW an object keyed by
 * field name ("fieldN" for anonymous fields), MAP an object when the key type is varchar/char and
 * otherwise an array of [key, value] pairs, with elements written like top-level scalars. They
 * are parsed back from the cell text guided by the type name, so a string element holding a
 * separator of the text form (", ", "=", "]", "}"), equal to "NULL" or empty may be split
 * wrongly (see output.c); text that does not parse is written as a string.
 */
#ifndef SQE_CLI_OUTPUT_H
#define SQE_CLI_OUTPUT_H

#include <stdint.h>
#include <stdio.h>

typedef enum cli_format {
    CLI_FORMAT_TABLE, /* box drawing, aligned columns, "(N rows)" footer */
    CLI_FORMAT_CSV,   /* RFC 4180 quoting, header line */
    CLI_FORMAT_TSV,   /* header line, no quoting, \t \n \r \\ escaped */
    CLI_FORMAT_JSON   /* exactly one line per statement */
} cli_format;

/* Rows the table format buffers to compute column widths; later rows reuse those widths. */
#define CLI_TABLE_BUFFER_ROWS 10000

/* Parses "table", "csv", "tsv" or "json" into *out. Returns 0, or -1 (and leaves *out) when the
 * name is unknown. */
int cli_format_parse(const char *name, cli_format *out);
/* The name of fmt ("table", ...). Never NULL. */
const char *cli_format_name(cli_format fmt);

typedef struct cli_output cli_output;

/* Starts printing a query result of n_cols columns to fp. names and types (Trino spellings such as
 * "bigint" or "decimal(12,2)") are copied. On success the caller owns *out and calls
 * cli_output_destroy(); returns 0, or -1 when out of memory (*out is then NULL). */
int cli_output_create(FILE *fp, cli_format fmt, int n_cols, const char *const *names,
                      const char *const *types, cli_output **out);
/* Adds one row; cells[i] is the text of column i, or NULL for SQL NULL. The cells are copied when
 * they must be buffered. Returns 0, or -1 when out of memory. */
int cli_output_row(cli_output *out, const char *const *cells);
/* Prints what is still buffered and the closing part (table footer, JSON "]"), ending the output
 * with a newline. Returns 0, or -1 when out of memory. */
int cli_output_finish(cli_output *out);
/* Ends an output interrupted by an error: the table format prints the buffered rows and closes the
 * box; the JSON format ends its (now truncated, unparseable) line so the next statement starts on a
 * line of its own; csv/tsv print nothing more. Returns 1 when the JSON format had already started
 * the statement's line (the caller must then not print a JSON error line), else 0. */
int cli_output_abort(cli_output *out);
/* Frees the formatter (NULL is ignored). It does not close fp. */
void cli_output_destroy(cli_output *out);
/* Rows passed to cli_output_row so far. */
int64_t cli_output_row_count(const cli_output *out);

/* The line for a statement that returned an update count (JSON: {"rows": N}; table: "(N rows
 * affected)"; csv/tsv: nothing). */
void cli_output_update_count(FILE *fp, cli_format fmt, int64_t n_rows);
/* The line for a statement without a result (JSON: {"ok": true}; other formats: nothing). */
void cli_output_ok(FILE *fp, cli_format fmt);
/* The JSON line of a failed statement:
 *   {"error": {"message": "...", "sqlstate": "42601", "line": 1, "column": 8}}
 * Other formats print nothing here (the message goes to stderr, see cli_error_print). */
void cli_output_error(FILE *fp, cli_format fmt, const char *message, const char *sqlstate,
                      int line, int column);
/* Prints "Error: <message> (SQLSTATE xxxxx) at line L, column C" and a newline to fp; the SQLSTATE
 * part is left out when sqlstate is empty, the position when line is 0. */
void cli_error_print(FILE *fp, const char *message, const char *sqlstate, int line, int column);

/* Writes s as a JSON string literal (quotes included): escapes quotes, backslashes and control
 * characters; replaces invalid UTF-8 bytes by U+FFFD. */
void cli_json_write_string(FILE *fp, const char *s);
/* 1 if s is a number in JSON's grammar (-?int frac? exp?), else 0. */
int cli_json_is_number(const char *s);

#endif
