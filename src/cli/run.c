/*
 * run.c: runs statements and scripts on a shell session and prints their results.
 *
 * A script is cut into statements with sqe_statement_length; each statement goes to sqe_query,
 * and its result is streamed chunk by chunk into a cli_output formatter (output.c). Errors are
 * printed to the session's error stream as "Error: <message> (SQLSTATE xxxxx) at line L, column
 * C", with L and C translated from the statement to the script it came from.
 *
 * INTERFACE: cli_statement_run, cli_script_run, cli_file_run, cli_names_query, cli_names_free,
 *   cli_schema_print.
 * NOTES:
 *   - A statement with no result columns, or one that reports an update count, is drained to the
 *     end before its update count is read, so engines that count rows while streaming work too.
 *   - The result stream is flushed after every statement: the TPC-H harness times statements by
 *     the arrival of their JSON lines.
 *   - Ctrl-C in the shell sets cli_interrupted; printing stops at the next row and the result is
 *     dropped (the engine has no cancel call yet, so the statement itself is not interrupted).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"

volatile sig_atomic_t cli_interrupted = 0;

/* ---- errors --------------------------------------------------------------------------------- */

/* Prints err, with its position moved from statement to script coordinates. */
static void report_error(cli_session *s, const sqe_error *err, cli_pos at, int json_line_done) {
    int line = err->line;
    int column = err->column;
    if (line > 0 && at.line > 0) {
        if (line == 1) column = at.column + column - 1;
        line = at.line + line - 1;
    } else {
        line = column = 0;
    }
    const char *message = err->message[0] ? err->message : "unknown error";
    char sqlstate[sizeof err->sqlstate];
    memcpy(sqlstate, err->sqlstate, sizeof sqlstate);
    sqlstate[sizeof sqlstate - 1] = '\0';
    fflush(s->out);
    cli_error_print(s->err, message, sqlstate, line, column);
    fflush(s->err);
    if (!json_line_done) cli_output_error(s->out, s->format, message, sqlstate, line, column);
}

static void set_local_error(sqe_error *err, const char *sqlstate, const char *message) {
    memset(err, 0, sizeof *err);
    err->code = -1;
    snprintf(err->sqlstate, sizeof err->sqlstate, "%s", sqlstate);
    snprintf(err->message, sizeof err->message, "%s", message);
}

/* ---- results -------------------------------------------------------------------------------- */

typedef struct cell_buffers {
    int n;
    char **text;        /* per column, grown as needed */
    size_t *cap;
    const char **cells; /* per column: text[i] or NULL for SQL NULL */
} cell_buffers;

static void cell_buffers_destroy(cell_buffers *b) {
    for (int i = 0; i < b->n; i++)
        if (b->text) free(b->text[i]);
    free(b->text);
    free(b->cap);
    free(b->cells);
}

static int cell_buffers_init(cell_buffers *b, int n) {
    memset(b, 0, sizeof *b);
    b->n = n;
    b->text = calloc((size_t)n + 1, sizeof *b->text);
    b->cap = calloc((size_t)n + 1, sizeof *b->cap);
    b->cells = calloc((size_t)n + 1, sizeof *b->cells);
    if (!b->text || !b->cap || !b->cells) return -1;
    for (int i = 0; i < n; i++) {
        b->cap[i] = 64;
        b->text[i] = malloc(b->cap[i]);
        if (!b->text[i]) return -1;
    }
    return 0;
}

/* Formats the cell (col, row) of chunk into b; returns 0 or -1 when out of memory. */
static int cell_format(cell_buffers *b, const sqe_chunk *chunk, int col, int row) {
    if (sqe_chunk_is_null(chunk, col, row)) {
        b->cells[col] = NULL;
        return 0;
    }
    size_t need = sqe_chunk_format(chunk, col, row, b->text[col], b->cap[col]);
    if (need >= b->cap[col]) {
        char *grown = realloc(b->text[col], need + 1);
        if (!grown) return -1;
        b->text[col] = grown;
        b->cap[col] = need + 1;
        sqe_chunk_format(chunk, col, row, b->text[col], b->cap[col]);
    }
    b->cells[col] = b->text[col];
    return 0;
}

/* Drains a result that has no rows to show and prints its update count or "ok". */
static int print_count(cli_session *s, sqe_result *res, sqe_error *err) {
    const sqe_chunk *chunk;
    do {
        if (sqe_result_next(res, &chunk, err) != SQE_OK) return 1;
    } while (chunk);
    int64_t n = sqe_result_update_count(res);
    if (n >= 0) cli_output_update_count(s->out, s->format, n);
    else cli_output_ok(s->out, s->format);
    return 0;
}

/* Prints res in the session's format. Returns 0, or 1 with *err set; *json_line_done tells whether
 * the statement's JSON line was already (partly) written. */
static int print_result(cli_session *s, sqe_result *res, sqe_error *err, int *json_line_done) {
    *json_line_done = 0;
    int n_cols = sqe_result_column_count(res);
    if (n_cols <= 0 || sqe_result_update_count(res) >= 0) return print_count(s, res, err);

    int rc = 1;
    cli_output *out = NULL;
    cell_buffers cells;
    const char **names = calloc((size_t)n_cols, sizeof *names);
    const char **types = calloc((size_t)n_cols, sizeof *types);
    if (cell_buffers_init(&cells, n_cols) != 0 || !names || !types) goto out_nomem;
    for (int i = 0; i < n_cols; i++) {
        names[i] = sqe_result_column_name(res, i);
        types[i] = sqe_result_column_type(res, i);
    }
    if (cli_output_create(s->out, s->format, n_cols, names, types, &out) != 0) goto out_nomem;
    for (;;) {
        const sqe_chunk *chunk;
        if (sqe_result_next(res, &chunk, err) != SQE_OK) goto out_abort;
        if (!chunk) break;
        int n_rows = sqe_chunk_row_count(chunk);
        for (int row = 0; row < n_rows; row++) {
            if (cli_interrupted) {
                set_local_error(err, "57014", "interrupted");
                goto out_abort;
            }
            for (int col = 0; col < n_cols; col++)
                if (cell_format(&cells, chunk, col, row) != 0) goto out_nomem_abort;
            if (cli_output_row(out, cells.cells) != 0) goto out_nomem_abort;
        }
    }
    if (cli_output_finish(out) != 0) goto out_nomem_abort;
    rc = 0;
    goto out_free;

out_nomem_abort:
    set_local_error(err, "53200", "out of memory while printing the result");
out_abort:
    *json_line_done = cli_output_abort(out);
    goto out_free;
out_nomem:
    set_local_error(err, "53200", "out of memory while printing the result");
out_free:
    cli_output_destroy(out);
    cell_buffers_destroy(&cells);
    free(names);
    free(types);
    return rc;
}

/* ---- statements and scripts ----------------------------------------------------------------- */

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Prints sql without its leading and trailing white space. */
static void echo_statement(FILE *fp, const char *sql) {
    const char *start = sql + strspn(sql, " \t\r\n");
    size_t len = strlen(start);
    while (len > 0 && strchr(" \t\r\n", start[len - 1])) len--;
    fwrite(start, 1, len, fp);
    fputc('\n', fp);
}

int cli_statement_run(cli_session *s, const char *sql, cli_pos at) {
    cli_interrupted = 0;
    if (s->echo) echo_statement(s->out, sql);
    double start = now_seconds();
    sqe_error err;
    memset(&err, 0, sizeof err);
    sqe_result *res = NULL;
    int failed = 0;
    int json_line_done = 0;
    if (sqe_query(s->conn, sql, &res, &err) != SQE_OK || !res) {
        if (res) sqe_result_destroy(res);
        res = NULL;
        failed = 1;
    } else {
        failed = print_result(s, res, &err, &json_line_done);
        sqe_result_destroy(res);
    }
    if (failed) {
        report_error(s, &err, at, json_line_done);
        s->n_failed++;
        if (s->bail) s->stopped = 1;
    }
    if (s->timer) fprintf(s->out, "Run Time: %.3f s\n", now_seconds() - start);
    fflush(s->out);
    return failed;
}

static void pos_advance(cli_pos *at, const char *text, size_t len) {
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c == '\n') {
            at->line++;
            at->column = 1;
        } else if ((c & 0xC0) != 0x80) {
            at->column++;
        }
    }
}

/* 1 if stmt is only white space and comments, possibly followed by ';'. */
static int statement_is_empty(const char *stmt, size_t len) {
    if (len > 0 && stmt[len - 1] == ';') len--;
    char *copy = strndup(stmt, len);
    if (!copy) return 0;
    int complete;
    size_t n = sqe_statement_length(copy, &complete);
    free(copy);
    return n == 0;
}

size_t cli_script_run(cli_session *s, const char *text, int final, cli_pos *at) {
    size_t pos = 0;
    size_t total = strlen(text);
    while (!s->stopped && pos < total) {
        int complete = 0;
        size_t len = sqe_statement_length(text + pos, &complete);
        if (len == 0) { /* only white space and comments are left */
            if (final) {
                pos_advance(at, text + pos, total - pos);
                pos = total;
            }
            break;
        }
        if (len > total - pos) len = total - pos;
        if (!complete && !final) break;
        if (!statement_is_empty(text + pos, len)) {
            char *stmt = strndup(text + pos, len);
            if (!stmt) {
                fprintf(s->err, "Error: out of memory\n");
                s->n_failed++;
                s->stopped = 1;
                break;
            }
            cli_statement_run(s, stmt, *at);
            free(stmt);
        }
        pos_advance(at, text + pos, len);
        pos += len;
    }
    return pos;
}

/* Reads all of fp into a malloc'd NUL-terminated string; NULL on error (errno set). */
static char *read_all(FILE *fp) {
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    if (!buf) return NULL;
    for (;;) {
        if (len + 1 >= cap) {
            char *grown = realloc(buf, cap * 2);
            if (!grown) {
                free(buf);
                errno = ENOMEM;
                return NULL;
            }
            buf = grown;
            cap *= 2;
        }
        errno = 0;
        size_t n = fread(buf + len, 1, cap - len - 1, fp);
        len += n;
        if (n == 0) break;
    }
    if (ferror(fp)) {
        int saved = errno ? errno : EIO;
        free(buf);
        errno = saved;
        return NULL;
    }
    buf[len] = '\0';
    if (strlen(buf) != len) {
        free(buf);
        errno = EILSEQ; /* NUL bytes: not a SQL script */
        return NULL;
    }
    return buf;
}

int cli_file_run(cli_session *s, const char *path) {
    int from_stdin = strcmp(path, "-") == 0;
    FILE *fp = from_stdin ? stdin : fopen(path, "rb");
    char *text = fp ? read_all(fp) : NULL;
    int saved_errno = errno;
    if (fp && !from_stdin) fclose(fp);
    if (!text) {
        fflush(s->out);
        fprintf(s->err, "Error: cannot read %s: %s\n", path, strerror(saved_errno));
        s->n_failed++;
        if (s->bail) s->stopped = 1;
        return 1;
    }
    int failed_before = s->n_failed;
    cli_pos at = {1, 1};
    cli_script_run(s, text, 1, &at);
    free(text);
    return s->n_failed > failed_before;
}

/* ---- helpers for dot commands --------------------------------------------------------------- */

void cli_names_free(char **names) {
    if (!names) return;
    for (char **p = names; *p; p++) free(*p);
    free(names);
}

/* Runs sql and returns the texts of its first column (NULL cells left out) as a NULL-terminated
 * malloc'd array; NULL with *err set after an error. */
static char **first_column(cli_session *s, const char *sql, sqe_error *err) {
    sqe_result *res = NULL;
    size_t n = 0, cap = 16;
    char **names = calloc(cap + 1, sizeof *names);
    cell_buffers cells;
    int cells_ok = cell_buffers_init(&cells, 1) == 0;
    if (!names || !cells_ok) goto out_nomem;
    if (sqe_query(s->conn, sql, &res, err) != SQE_OK || !res) goto out_error;
    if (sqe_result_column_count(res) < 1) goto out_done;
    for (;;) {
        const sqe_chunk *chunk;
        if (sqe_result_next(res, &chunk, err) != SQE_OK) goto out_error;
        if (!chunk) break;
        for (int row = 0; row < sqe_chunk_row_count(chunk); row++) {
            if (cell_format(&cells, chunk, 0, row) != 0) goto out_nomem;
            if (!cells.cells[0]) continue;
            if (n == cap) {
                char **grown = realloc(names, (cap * 2 + 1) * sizeof *names);
                if (!grown) goto out_nomem;
                names = grown;
                cap *= 2;
            }
            names[n] = strdup(cells.cells[0]);
            if (!names[n]) goto out_nomem;
            names[++n] = NULL;
        }
    }
out_done:
    if (res) sqe_result_destroy(res);
    cell_buffers_destroy(&cells);
    return names;

out_nomem:
    set_local_error(err, "53200", "out of memory");
out_error:
    if (res) sqe_result_destroy(res);
    cell_buffers_destroy(&cells);
    cli_names_free(names);
    return NULL;
}

char **cli_names_query(cli_session *s, const char *sql) {
    sqe_error err;
    memset(&err, 0, sizeof err);
    char **names = first_column(s, sql, &err);
    if (!names) {
        cli_pos at = {0, 0}; /* generated SQL: no position */
        report_error(s, &err, at, 0);
        s->n_failed++;
    }
    return names;
}

int cli_schema_print(cli_session *s, const char *name) {
    size_t len = strlen(name) + 32;
    char *sql = malloc(len);
    if (!sql) return 1;
    snprintf(sql, len, "SHOW CREATE TABLE %s", name);
    sqe_error err;
    memset(&err, 0, sizeof err);
    char **texts = first_column(s, sql, &err);
    int rc = 0;
    if (texts) {
        for (char **p = texts; *p; p++) fprintf(s->out, "%s;\n", *p);
        fflush(s->out);
        cli_names_free(texts);
    } else {
        snprintf(sql, len, "SHOW COLUMNS FROM %s", name);
        cli_pos at = {0, 0}; /* generated SQL: no position */
        rc = cli_statement_run(s, sql, at);
    }
    free(sql);
    return rc;
}
