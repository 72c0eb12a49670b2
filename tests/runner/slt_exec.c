/*
 * slt_exec.c: runs a parsed .test file on a connector and checks every record.
 *
 * The records of a script are interpreted in order with a small machine: a stack of loop frames
 * (loop/foreach ... endloop, with ${var} substituted into SQL and expected text), a skip mode
 * (mode skip/unskip), per-record skipif/onlyif conditions, and halt/require to end a file early.
 * `statement ok` must succeed; `statement error` must fail, and its expected lines may pin a
 * message substring, the SQLSTATE and the position; `query` compares the rows with the expected
 * ones after the requested sorting, numerically with a relative tolerance for R columns, or by
 * their MD5 when the expected result is `N values hashing to <md5>`.
 *
 * INTERFACE: slt_file_run.
 * NOTES:
 *   - Cell texts: NULL prints as "NULL" and the empty string as "(empty)". Expected rows are
 *     tab-separated; the classic one-value-per-line layout is accepted too.
 *   - --rewrite replaces the expected rows (and a wrong type string) of failing queries of the
 *     file itself (not those inside loops or included files) once the file has run.
 *   - __TEST_DIR__ expands to a private temporary directory, removed after the file;
 *     __WORKING_DIRECTORY__ to the current directory.
 *   - With --sqlite-corpus, statements go through slt_sqlite_map and cells through
 *     slt_sqlite_render, and skipif/onlyif also know the runner as the engine "postgresql".
 *   - A record on the skip list (--skip-list) counts as skipped under its heading; with
 *     --check-skipped it runs anyway (its report discarded) and a pass is reported as "PASSES",
 *     so the list can shrink as the engine improves.
 *   - --list-records prints each statement/query record as a JSON line (its SQL as it would run,
 *     its expected lines and why it is skipped, if it is) instead of running it: the same records
 *     for another engine (tests/sqlite/duckdb_rate.py).
 *   - --record-timeout: an alarm per record; when it rings, the record is reported as timed out
 *     and the file ends there (the process dies of SIGALRM, which fails the file).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "slt.h"

#define REPORT_MAX_LINES 20
#define REAL_TOLERANCE 1e-9
#define SLOW_RECORD_SECONDS 0.5 /* --verbose reports the time of records slower than this */

/* Features that `require` accepts; a file requiring anything else is skipped. */
static const char *const known_features[] = {
    NULL, /* none yet: add names here as the engine grows them (e.g. "parquet") */
};

typedef struct frame {
    int rec;   /* index of the loop/foreach record */
    long cur;  /* loop: current value */
    int idx;   /* foreach: current value index */
} frame;

typedef struct label_entry {
    char *label;
    char **values; /* copies, in comparison order */
    size_t n_values;
} label_entry;

typedef struct rewrite_entry {
    int header_line;   /* the "query ..." line */
    char *new_types;   /* replacement type string, or NULL */
    int after_line;    /* new rows go after this line */
    int add_sep;       /* write a "----" line first */
    int skip_from;     /* old expected lines to drop: [skip_from, skip_to] */
    int skip_to;
    char **rows;       /* tab-joined rows */
    size_t n_rows;
} rewrite_entry;

typedef struct run_state {
    const slt_script *script;
    const slt_options *opt;
    void *conn;
    FILE *report;
    slt_counts *counts;
    frame *frames;
    int n_frames;
    int skip_mode;
    label_entry *labels;
    int n_labels;
    rewrite_entry *rewrites;
    int n_rewrites;
    char *test_dir;
    int stop;
    long hash_threshold;     /* hash-threshold: --rewrite writes larger results as a hash */
    const slt_exception *cur_exc; /* the exceptions entry of the record being checked, or NULL */
    int quiet;                    /* the record's difference is excepted: no details */
    unsigned char *exc_seen;      /* per exceptions entry: a record of this file matched it */
    const slt_connector *peer;    /* --sqe-types: SQE in-process beside the oracle, or NULL */
    void *peer_conn;
} run_state;

/* The runner's engine name in the SQLite corpus mode (whose skipif/onlyif name sqlite, mysql,
 * mssql, oracle and postgresql). */
#define SQLITE_CORPUS_ENGINE "postgresql"

/* ---- text helpers ---------------------------------------------------------------------------- */

typedef struct text {
    char *data;
    size_t len;
    size_t cap;
} text;

static void text_add(text *t, const char *s, size_t len) {
    if (t->len + len + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 128;
        while (cap < t->len + len + 1) cap *= 2;
        char *grown = realloc(t->data, cap);
        if (!grown) {
            fprintf(stderr, "slt_runner: out of memory\n");
            exit(2);
        }
        t->data = grown;
        t->cap = cap;
    }
    memcpy(t->data + t->len, s, len);
    t->len += len;
    t->data[t->len] = '\0';
}

static void text_adds(text *t, const char *s) { text_add(t, s, strlen(s)); }

static char *xstrdup(const char *s) {
    char *copy = strdup(s);
    if (!copy) {
        fprintf(stderr, "slt_runner: out of memory\n");
        exit(2);
    }
    return copy;
}

static void *xcalloc(size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size);
    if (!p) {
        fprintf(stderr, "slt_runner: out of memory\n");
        exit(2);
    }
    return p;
}

/* ---- variables ------------------------------------------------------------------------------- */

static const char *test_dir(run_state *st) {
    if (!st->test_dir) {
        const char *tmp = getenv("TMPDIR");
        char templ[PATH_MAX];
        snprintf(templ, sizeof templ, "%s/slt_XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (mkdtemp(templ)) st->test_dir = xstrdup(templ);
        else st->test_dir = xstrdup("/tmp");
    }
    return st->test_dir;
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
    (void)sb, (void)flag, (void)ftw;
    remove(path);
    return 0;
}

/* Writes the value of loop variable name (len bytes) into t; 0 when there is no such variable. */
static int variable_value(run_state *st, const char *name, size_t len, text *t) {
    for (int i = st->n_frames - 1; i >= 0; i--) {
        const slt_record *r = &st->script->recs[st->frames[i].rec];
        if (strlen(r->arg) != len || strncmp(r->arg, name, len) != 0) continue;
        if (r->kind == SLT_LOOP) {
            char num[32];
            snprintf(num, sizeof num, "%ld", st->frames[i].cur);
            text_adds(t, num);
        } else {
            text_adds(t, r->values[st->frames[i].idx]);
        }
        return 1;
    }
    return 0;
}

/* Returns a malloc'd copy of s with ${var}, __TEST_DIR__ and __WORKING_DIRECTORY__ expanded. */
static char *substitute(run_state *st, const char *s) {
    text t = {0};
    text_add(&t, "", 0);
    const char *p = s;
    while (*p) {
        if (p[0] == '$' && p[1] == '{') {
            const char *end = strchr(p + 2, '}');
            if (end && variable_value(st, p + 2, (size_t)(end - p - 2), &t)) {
                p = end + 1;
                continue;
            }
        } else if (strncmp(p, "__TEST_DIR__", 12) == 0) {
            text_adds(&t, test_dir(st));
            p += 12;
            continue;
        } else if (strncmp(p, "__WORKING_DIRECTORY__", 21) == 0) {
            char cwd[PATH_MAX];
            text_adds(&t, getcwd(cwd, sizeof cwd) ? cwd : ".");
            p += 21;
            continue;
        }
        text_add(&t, p, 1);
        p++;
    }
    return t.data;
}

/* ---- reporting ------------------------------------------------------------------------------- */

static void report_header(run_state *st, const char *verdict, const slt_record *r) {
    fprintf(st->report, "%s %s:%d", verdict, r->file, r->line);
    if (st->n_frames > 0) {
        fputs(" (", st->report);
        for (int i = 0; i < st->n_frames; i++) {
            text t = {0};
            const slt_record *loop = &st->script->recs[st->frames[i].rec];
            variable_value(st, loop->arg, strlen(loop->arg), &t);
            fprintf(st->report, "%s%s=%s", i ? ", " : "", loop->arg, t.data ? t.data : "");
            free(t.data);
        }
        fputs(")", st->report);
    }
    fputc('\n', st->report);
}

/* Prints up to REPORT_MAX_LINES lines of s, indented. */
static void report_block(run_state *st, const char *title, const char *s) {
    if (st->quiet) return;
    fprintf(st->report, "  %s:\n", title);
    int n = 0;
    const char *p = s;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (n < REPORT_MAX_LINES) fprintf(st->report, "    %.*s\n", (int)len, p);
        n++;
        p += len;
        if (*p) p++;
    }
    if (n > REPORT_MAX_LINES)
        fprintf(st->report, "    ... (%d more lines)\n", n - REPORT_MAX_LINES);
}

/* Like report_lines for expected lines, with variables substituted. */
static void report_expected(run_state *st, const slt_record *r) {
    if (st->quiet) return;
    char **lines = xcalloc((size_t)r->n_expected, sizeof *lines);
    for (int i = 0; i < r->n_expected; i++) lines[i] = substitute(st, r->expected[i]);
    fprintf(st->report, "  expected (%d line%s):\n", r->n_expected, r->n_expected == 1 ? "" : "s");
    for (int i = 0; i < r->n_expected && i < REPORT_MAX_LINES; i++)
        fprintf(st->report, "    %s\n", lines[i]);
    if (r->n_expected > REPORT_MAX_LINES)
        fprintf(st->report, "    ... (%d more lines)\n", r->n_expected - REPORT_MAX_LINES);
    for (int i = 0; i < r->n_expected; i++) free(lines[i]);
    free(lines);
}

static void report_lines(run_state *st, const char *title, char **lines, size_t n) {
    if (st->quiet) return;
    fprintf(st->report, "  %s (%zu line%s):\n", title, n, n == 1 ? "" : "s");
    for (size_t i = 0; i < n && i < REPORT_MAX_LINES; i++)
        fprintf(st->report, "    %s\n", lines[i]);
    if (n > REPORT_MAX_LINES)
        fprintf(st->report, "    ... (%zu more lines)\n", n - REPORT_MAX_LINES);
}

static void record_pass(run_state *st, const slt_record *r) {
    if (st->cur_exc) {
        /* A listed difference that is gone: the list must say only what is true. */
        st->counts->failed++;
        report_header(st, "FAIL", r);
        fprintf(st->report, "  agrees, but is listed as an exception (line %d of the list: %s);"
                " remove the entry\n", st->cur_exc->list_line, st->cur_exc->reason);
        return;
    }
    st->counts->passed++;
    if (st->opt->verbose) report_header(st, "ok  ", r);
}

static void record_skip(run_state *st, const slt_record *r, int group) {
    st->counts->skipped++;
    if (group >= 0 && group < SLT_MAX_SKIP_GROUPS) st->counts->skipped_by[group]++;
    if (st->opt->verbose) report_header(st, "skip", r);
}

/* Starts a failure report: "FAIL file:line", the reason and the SQL. */
static void record_fail(run_state *st, const slt_record *r, const char *sql, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void record_fail(run_state *st, const slt_record *r, const char *sql, const char *fmt, ...) {
    if (st->cur_exc) {
        /* Listed: one line with the reason (the details only with --verbose). */
        st->counts->excepted++;
        st->quiet = !st->opt->verbose;
        report_header(st, "EXCEPT", r);
        fprintf(st->report, "  listed: %s\n", st->cur_exc->reason);
        if (st->quiet) return;
    } else {
        st->counts->failed++;
        report_header(st, "FAIL", r);
    }
    va_list ap;
    va_start(ap, fmt);
    fputs("  ", st->report);
    vfprintf(st->report, fmt, ap);
    fputc('\n', st->report);
    va_end(ap);
    if (sql) report_block(st, "SQL", sql);
}

/* An error record whose SQLSTATE agrees with the oracle's but whose message or position does
 * not: counted and shown apart, not a failure (engines word their errors differently). */
static void record_note(run_state *st, const slt_record *r, int *count, const char *what,
                        const char *expected, const char *actual) {
    (*count)++;
    fprintf(st->report, "%s %s:%d\n  expected: %.300s\n  oracle:   %.300s\n", what, r->file,
            r->line, expected, actual);
}

static void describe_error(const sqe_error *err, char *buf, size_t len) {
    char sqlstate[sizeof err->sqlstate];
    memcpy(sqlstate, err->sqlstate, sizeof sqlstate);
    sqlstate[sizeof sqlstate - 1] = '\0';
    int n = snprintf(buf, len, "%s", err->message[0] ? err->message : "unknown error");
    if (n >= 0 && (size_t)n < len && sqlstate[0])
        n += snprintf(buf + n, len - (size_t)n, " (SQLSTATE %s)", sqlstate);
    if (n >= 0 && (size_t)n < len && err->line > 0)
        snprintf(buf + n, len - (size_t)n, " at %d:%d", err->line, err->column);
}

/* ---- values ---------------------------------------------------------------------------------- */

static const char *cell_text(const char *value) {
    if (!value) return "NULL";
    if (!*value) return "(empty)";
    return value;
}

static int parse_number(const char *s, double *out) {
    char *end;
    errno = 0;
    *out = strtod(s, &end);
    return end != s && *end == '\0';
}

static int values_equal(const char *expected, const char *actual, int real) {
    if (strcmp(expected, actual) == 0) return 1;
    double a, b;
    if (!real || !parse_number(expected, &a) || !parse_number(actual, &b)) return 0;
    if (a == b) return 1;
    return fabs(a - b) <= REAL_TOLERANCE * fmax(fabs(a), fabs(b));
}

static int compare_rows(const void *a, const void *b, void *arg) {
    const char *const *ra = *(const char *const *const *)a;
    const char *const *rb = *(const char *const *const *)b;
    int n_cols = *(const int *)arg;
    for (int i = 0; i < n_cols; i++) {
        int c = strcmp(ra[i], rb[i]);
        if (c) return c;
    }
    return 0;
}

static int compare_values(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Sorts n_rows x n_cols values in place as the record asks. */
static void sort_values(const char **values, size_t n_rows, int n_cols, slt_sort sort) {
    if (sort == SLT_SORT_VALUE) {
        qsort(values, n_rows * (size_t)n_cols, sizeof *values, compare_values);
    } else if (sort == SLT_SORT_ROW && n_rows > 1) {
        const char ***rows = xcalloc(n_rows, sizeof *rows);
        const char **copy = xcalloc(n_rows * (size_t)n_cols, sizeof *copy);
        memcpy(copy, values, n_rows * (size_t)n_cols * sizeof *copy);
        for (size_t i = 0; i < n_rows; i++) rows[i] = copy + i * (size_t)n_cols;
        qsort_r(rows, n_rows, sizeof *rows, compare_rows, &n_cols);
        for (size_t i = 0; i < n_rows; i++)
            memcpy(values + i * (size_t)n_cols, rows[i], (size_t)n_cols * sizeof *values);
        free(rows);
        free(copy);
    }
}

/* Joins each row's values with tabs; returns n_rows malloc'd lines. */
static char **join_rows(const char **values, size_t n_rows, int n_cols) {
    char **lines = xcalloc(n_rows, sizeof *lines);
    for (size_t i = 0; i < n_rows; i++) {
        text t = {0};
        text_add(&t, "", 0);
        for (int c = 0; c < n_cols; c++) {
            if (c) text_add(&t, "\t", 1);
            text_adds(&t, values[i * (size_t)n_cols + (size_t)c]);
        }
        lines[i] = t.data;
    }
    return lines;
}

static void free_lines(char **lines, size_t n) {
    for (size_t i = 0; i < n; i++) free(lines[i]);
    free(lines);
}

/* ---- rewrite --------------------------------------------------------------------------------- */

static char type_letter(const char *type) {
    static const char *const integers[] = {"tinyint", "smallint", "integer", "bigint"};
    for (size_t i = 0; i < sizeof integers / sizeof integers[0]; i++)
        if (strcasecmp(type, integers[i]) == 0) return 'I';
    if (strcasecmp(type, "real") == 0 || strcasecmp(type, "double") == 0 ||
        strncasecmp(type, "decimal", 7) == 0)
        return 'R';
    return 'T';
}

static void rewrite_add(run_state *st, const slt_record *r, const slt_result *res,
                        const char **values, size_t n_rows) {
    if (!st->opt->rewrite || st->n_frames > 0 || r->file != st->script->files[0]) return;
    for (int i = 0; i < st->n_rewrites; i++)
        if (st->rewrites[i].header_line == r->line) return;
    rewrite_entry *grown = realloc(st->rewrites, (size_t)(st->n_rewrites + 1) * sizeof *grown);
    if (!grown) return;
    st->rewrites = grown;
    rewrite_entry *e = &st->rewrites[st->n_rewrites++];
    memset(e, 0, sizeof *e);
    e->header_line = r->line;
    if ((size_t)res->n_cols != strlen(r->types)) {
        e->new_types = xcalloc((size_t)res->n_cols + 1, 1);
        for (int i = 0; i < res->n_cols; i++) e->new_types[i] = type_letter(res->col_types[i]);
    }
    if (r->has_results) {
        e->after_line = r->sql_last_line + 1;
        e->skip_from = r->sql_last_line + 2;
        e->skip_to = r->results_last_line;
    } else {
        e->after_line = r->sql_last_line;
        e->add_sep = n_rows > 0;
        e->skip_from = 1, e->skip_to = 0;
    }
    size_t n_values = n_rows * (size_t)res->n_cols;
    if (st->hash_threshold > 0 && n_values > (size_t)st->hash_threshold) {
        char hex[33], line[96];
        slt_hash_values(values, n_values, hex);
        snprintf(line, sizeof line, "%zu values hashing to %s", n_values, hex);
        e->rows = xcalloc(1, sizeof *e->rows);
        e->rows[0] = xstrdup(line);
        e->n_rows = 1;
        return;
    }
    e->rows = join_rows(values, n_rows, res->n_cols);
    e->n_rows = n_rows;
}

/* Rewrites the main file with the collected entries. */
static void rewrite_apply(run_state *st) {
    if (st->n_rewrites == 0) return;
    const char *path = st->script->files[0];
    FILE *in = fopen(path, "rb");
    char tmp_path[PATH_MAX];
    snprintf(tmp_path, sizeof tmp_path, "%s.rewrite", path);
    FILE *out = in ? fopen(tmp_path, "wb") : NULL;
    if (!in || !out) {
        fprintf(st->report, "REWRITE %s: cannot write: %s\n", path, strerror(errno));
        if (in) fclose(in);
        return;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int line_no = 0;
    while ((len = getline(&line, &cap, in)) >= 0) {
        line_no++;
        int skip = 0;
        for (int i = 0; i < st->n_rewrites; i++) {
            rewrite_entry *e = &st->rewrites[i];
            if (line_no >= e->skip_from && line_no <= e->skip_to) skip = 1;
            if (line_no == e->header_line && e->new_types) {
                /* "query OLD rest" -> "query NEW rest" */
                char *types = line + strspn(line, " \t") + 5;
                types += strspn(types, " \t");
                size_t old_len = strcspn(types, " \t\r\n");
                fprintf(out, "%.*s%s%s", (int)(types - line), line, e->new_types, types + old_len);
                skip = 1;
            }
        }
        if (!skip) fputs(line, out);
        for (int i = 0; i < st->n_rewrites; i++) {
            rewrite_entry *e = &st->rewrites[i];
            if (line_no != e->after_line) continue;
            if (e->add_sep) fputs("----\n", out);
            for (size_t j = 0; j < e->n_rows; j++) fprintf(out, "%s\n", e->rows[j]);
        }
    }
    free(line);
    fclose(in);
    if (fclose(out) != 0 || rename(tmp_path, path) != 0) {
        fprintf(st->report, "REWRITE %s: cannot write: %s\n", path, strerror(errno));
        remove(tmp_path);
        return;
    }
    fprintf(st->report, "REWRITE %s: %d quer%s rewritten\n", path, st->n_rewrites,
            st->n_rewrites == 1 ? "y" : "ies");
}

/* ---- records --------------------------------------------------------------------------------- */

/* Whether the skipif/onlyif lines of r let it run on the connector (and, in the SQLite corpus
 * mode, the engine name SQLITE_CORPUS_ENGINE). */
static int conditions_allow(const slt_record *r, const char *connector, const char *engine) {
    for (int i = 0; i < r->n_conds; i++) {
        int same = strcmp(r->conds[i].connector, connector) == 0 ||
                   (engine && strcmp(r->conds[i].connector, engine) == 0);
        if (r->conds[i].only ? !same : same) return 0;
    }
    return 1;
}

/* Runs sql on the file's connection and, with --sqe-types, on the SQE peer too, which sees every
 * statement so its tables follow the oracle's; the peer's result goes to *peer (freed by the
 * caller) or, when peer is NULL, is dropped. */
static void run_both(run_state *st, const char *sql, slt_result *res, slt_result *peer) {
    st->opt->connector->run(st->conn, sql, res);
    if (peer) memset(peer, 0, sizeof *peer);
    if (!st->peer_conn) return;
    slt_result dropped;
    st->peer->run(st->peer_conn, sql, peer ? peer : &dropped);
    if (!peer) slt_result_free(&dropped);
}

/* Type names equal but for case and blanks after commas: Trino's protocol writes
 * "decimal(12, 2)" where typeof() and SQE write "decimal(12,2)". */
static int same_type_name(const char *a, const char *b) {
    for (;;) {
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return 0;
        if (!*a) return 1;
        if (*a == ',') {
            while (a[1] == ' ') a++;
            while (b[1] == ' ') b++;
        }
        a++, b++;
    }
}

/* Appends the column types of r to t as "a, b, c". */
static void add_types(text *t, const slt_result *r) {
    for (int i = 0; i < r->n_cols; i++) {
        if (i) text_adds(t, ", ");
        text_adds(t, r->col_types[i]);
    }
}

/* --sqe-types: a query both engines answered must have the same column types (Trino's names,
 * compared as text). A difference fails the record (reason says both lists) and is counted. */
static void compare_types(run_state *st, const slt_result *oracle, const slt_result *sqe,
                          char *reason, size_t reason_len) {
    if (!st->peer_conn || oracle->failed || sqe->failed) return;
    int same = oracle->n_cols == sqe->n_cols;
    for (int i = 0; same && i < oracle->n_cols; i++)
        same = same_type_name(oracle->col_types[i], sqe->col_types[i]);
    if (same) return;
    st->counts->types++;
    text t = {0};
    text_adds(&t, "column types differ: oracle ");
    add_types(&t, oracle);
    text_adds(&t, "; SQE ");
    add_types(&t, sqe);
    snprintf(reason, reason_len, "%s", t.data);
    free(t.data);
}

static void run_statement_ok(run_state *st, const slt_record *r, const char *sql) {
    slt_result res;
    run_both(st, sql, &res, NULL);
    if (res.failed) {
        char msg[700];
        describe_error(&res.err, msg, sizeof msg);
        record_fail(st, r, sql, "statement failed: %s", msg);
    } else {
        record_pass(st, r);
    }
    slt_result_free(&res);
}

/* The verdict on an error record against an external oracle: it must fail with the expected
 * SQLSTATE (when the record names one); message text and position are noted, not failed. */
static void run_oracle_error(run_state *st, const slt_record *r, const char *sql,
                             const slt_result *res, const char *actual, const char *message,
                             const char *sqlstate, int want_line, int want_column) {
    if (!res->failed) {
        record_fail(st, r, sql, "statement succeeded, but an error was expected");
        return;
    }
    if (sqlstate[0] && strncmp(res->err.sqlstate, sqlstate, 5) != 0) {
        record_fail(st, r, sql, "expected SQLSTATE %s, got: %s", sqlstate, actual);
        return;
    }
    if (st->cur_exc) {
        record_pass(st, r); /* a listed error record that agrees: stale */
        return;
    }
    if (message && !strstr(res->err.message, message))
        record_note(st, r, &st->counts->messages, "MESSAGE", message, actual);
    /* Trino gives no position for errors at run time (division by zero, casts, ...): only a
     * position it gives is compared. */
    if (want_line >= 0 && res->err.line > 0 &&
        (res->err.line != want_line || res->err.column != want_column)) {
        char want[32];
        snprintf(want, sizeof want, "at %d:%d", want_line, want_column);
        record_note(st, r, &st->counts->positions, "POSITION", want, actual);
    }
    record_pass(st, r);
}

static void run_statement_error(run_state *st, const slt_record *r, const char *sql) {
    text message = {0};
    char sqlstate[16] = "";
    int want_line = -1, want_column = -1;
    for (int i = 0; i < r->n_expected; i++) {
        char *line = substitute(st, r->expected[i]);
        char state[16];
        int l, c;
        if (sscanf(line, "sqlstate: %15s", state) == 1 || sscanf(line, "SQLSTATE %15s", state) == 1)
            snprintf(sqlstate, sizeof sqlstate, "%s", state);
        else if (sscanf(line, "position: %d:%d", &l, &c) == 2)
            want_line = l, want_column = c;
        else {
            if (message.len) text_add(&message, "\n", 1);
            text_adds(&message, line);
        }
        free(line);
    }
    slt_result res;
    run_both(st, sql, &res, NULL);
    char actual[700];
    describe_error(&res.err, actual, sizeof actual);
    if (res.error_name[0]) {
        size_t n = strlen(actual);
        snprintf(actual + n, sizeof actual - n, " [%s]", res.error_name);
    }
    if (st->opt->trino_url) {
        run_oracle_error(st, r, sql, &res, actual, message.data, sqlstate, want_line, want_column);
        free(message.data);
        slt_result_free(&res);
        return;
    }
    if (!res.failed) {
        record_fail(st, r, sql, "statement succeeded, but an error was expected");
    } else if (message.len && !strstr(res.err.message, message.data)) {
        record_fail(st, r, sql, "error message does not contain the expected text");
        report_block(st, "expected message", message.data);
        report_block(st, "actual error", actual);
    } else if (sqlstate[0] && strncmp(res.err.sqlstate, sqlstate, 5) != 0) {
        record_fail(st, r, sql, "expected SQLSTATE %s, got: %s", sqlstate, actual);
    } else if (want_line >= 0 && st->opt->connector->has_positions &&
               (res.err.line != want_line || res.err.column != want_column)) {
        /* (A connector whose protocol carries no position checks message and SQLSTATE only.) */
        record_fail(st, r, sql, "expected the error at %d:%d, got: %s", want_line, want_column,
                    actual);
    } else {
        record_pass(st, r);
    }
    free(message.data);
    slt_result_free(&res);
}

/* Splits the expected lines of a query into n_cols-wide rows of values (pointing into *store).
 * Returns the number of rows, or -1 when the lines do not fit the column count. */
static long expected_values(run_state *st, const slt_record *r, int n_cols, char ***store,
                            const char ***values_out) {
    char **lines = xcalloc((size_t)r->n_expected, sizeof *lines);
    size_t n_fields = 0;
    int rows_ok = 1, singles = 1;
    for (int i = 0; i < r->n_expected; i++) {
        lines[i] = substitute(st, r->expected[i]);
        int fields = 1;
        for (const char *p = lines[i]; *p; p++) fields += *p == '\t';
        if (fields != n_cols) rows_ok = 0;
        if (fields != 1) singles = 0;
        n_fields += (size_t)fields;
    }
    *store = lines;
    long n_rows;
    if (rows_ok) n_rows = r->n_expected;
    else if (singles && n_cols > 0 && r->n_expected % n_cols == 0) n_rows = r->n_expected / n_cols;
    else n_rows = -1;
    const char **values = xcalloc(n_fields, sizeof *values);
    size_t k = 0;
    for (int i = 0; i < r->n_expected; i++) {
        char *p = lines[i];
        values[k++] = p;
        for (; *p; p++)
            if (*p == '\t') {
                *p = '\0';
                values[k++] = p + 1;
            }
    }
    *values_out = values;
    return n_rows;
}

/* Checks (or stores) the result of a labelled query; returns 1 when it agrees. */
static int check_label(run_state *st, const char *label, const char **values, size_t n,
                       int real) {
    for (int i = 0; i < st->n_labels; i++) {
        label_entry *e = &st->labels[i];
        if (strcmp(e->label, label) != 0) continue;
        if (e->n_values != n) return 0;
        for (size_t j = 0; j < n; j++)
            if (!values_equal(e->values[j], values[j], real)) return 0;
        return 1;
    }
    label_entry *grown = realloc(st->labels, (size_t)(st->n_labels + 1) * sizeof *grown);
    if (!grown) return 1;
    st->labels = grown;
    label_entry *e = &st->labels[st->n_labels++];
    e->label = xstrdup(label);
    e->values = xcalloc(n, sizeof *e->values);
    e->n_values = n;
    for (size_t j = 0; j < n; j++) e->values[j] = xstrdup(values[j]);
    return 1;
}

static void run_query(run_state *st, const slt_record *r, const char *sql) {
    slt_result res, peer;
    run_both(st, sql, &res, &peer);
    char type_reason[1200] = "";
    compare_types(st, &res, &peer, type_reason, sizeof type_reason);
    slt_result_free(&peer);
    int n_cols = (int)strlen(r->types);
    if (res.failed) {
        char msg[700];
        describe_error(&res.err, msg, sizeof msg);
        record_fail(st, r, sql, "query failed: %s", msg);
        if (r->n_expected) report_expected(st, r);
        slt_result_free(&res);
        return;
    }
    size_t n_act = res.n_rows * (size_t)res.n_cols;
    const char **act = xcalloc(n_act, sizeof *act);
    char **rendered = NULL; /* the SQLite corpus mode's cell texts (owned) */
    if (st->opt->sqlite_corpus) {
        rendered = xcalloc(n_act, sizeof *rendered);
        for (size_t i = 0; i < n_act; i++) {
            int col = (int)(i % (size_t)res.n_cols);
            char letter = col < n_cols ? r->types[col] : 'T';
            rendered[i] = slt_sqlite_render(res.values[i], res.col_types[col], letter);
            act[i] = rendered[i];
        }
    } else {
        for (size_t i = 0; i < n_act; i++) act[i] = cell_text(res.values[i]);
    }
    sort_values(act, res.n_rows, res.n_cols, r->sort);
    int real = strchr(r->types, 'R') != NULL;

    char **exp_store = NULL;
    const char **exp = NULL;
    long n_exp_rows = expected_values(st, r, n_cols, &exp_store, &exp);
    size_t hash_count = 0;
    char want_hash[33];
    int hashed = r->n_expected == 1 && slt_hash_line_parse(exp[0], &hash_count, want_hash);
    char reason[1200] = "";
    if (res.n_cols != n_cols) {
        snprintf(reason, sizeof reason, "expected %d column%s (types %s), got %d", n_cols,
                 n_cols == 1 ? "" : "s", r->types, res.n_cols);
    } else if (hashed) {
        char got_hash[33];
        slt_hash_values(act, n_act, got_hash);
        if (hash_count != n_act || strcmp(want_hash, got_hash) != 0)
            snprintf(reason, sizeof reason, "expected %zu values hashing to %s, got %zu hashing "
                     "to %s", hash_count, want_hash, n_act, got_hash);
    } else if (n_exp_rows < 0) {
        snprintf(reason, sizeof reason,
                 "the expected lines do not hold %d tab-separated values each", n_cols);
    } else if (r->has_results || !r->label) {
        sort_values(exp, (size_t)n_exp_rows, n_cols, r->sort);
        if ((size_t)n_exp_rows != res.n_rows) {
            snprintf(reason, sizeof reason, "expected %ld row%s, got %zu", n_exp_rows,
                     n_exp_rows == 1 ? "" : "s", res.n_rows);
        } else {
            for (size_t i = 0; i < n_act; i++) {
                int col = (int)(i % (size_t)n_cols);
                int is_real = r->sort == SLT_SORT_VALUE ? real : r->types[col] == 'R';
                if (!values_equal(exp[i], act[i], is_real)) {
                    snprintf(reason, sizeof reason,
                             "row %zu, column %d: expected '%.400s', got '%.400s'",
                             i / (size_t)n_cols + 1, col + 1, exp[i], act[i]);
                    break;
                }
            }
        }
    }
    if (!reason[0] && type_reason[0]) snprintf(reason, sizeof reason, "%s", type_reason);
    if (!reason[0] && r->label && !check_label(st, r->label, act, n_act, real))
        snprintf(reason, sizeof reason, "result differs from the earlier query labelled '%s'",
                 r->label);

    if (reason[0]) {
        record_fail(st, r, sql, "%s", reason);
        report_expected(st, r);
        char **lines = join_rows(act, res.n_rows, res.n_cols);
        report_lines(st, "actual", lines, res.n_rows);
        free_lines(lines, res.n_rows);
        rewrite_add(st, r, &res, act, res.n_rows);
    } else {
        record_pass(st, r);
    }
    free_lines(exp_store, (size_t)r->n_expected);
    free(exp);
    free(act);
    if (rendered) free_lines(rendered, n_act);
    slt_result_free(&res);
}

/* Reads the script at path (as given, else beside the test file) and runs its statements. */
static void run_load(run_state *st, const slt_record *r) {
    char *path = substitute(st, r->arg);
    FILE *fp = fopen(path, "rb");
    if (!fp && path[0] != '/') {
        const char *slash = strrchr(r->file, '/');
        if (slash) {
            char alt[PATH_MAX];
            snprintf(alt, sizeof alt, "%.*s/%s", (int)(slash - r->file), r->file, path);
            fp = fopen(alt, "rb");
        }
    }
    if (!fp) {
        record_fail(st, r, NULL, "load: cannot open %s: %s", path, strerror(errno));
        free(path);
        return;
    }
    text script = {0};
    text_add(&script, "", 0);
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, fp)) > 0) text_add(&script, buf, n);
    fclose(fp);
    const char *p = script.data;
    int ok = 1;
    while (ok && *p) {
        int complete;
        size_t len = sqe_statement_length(p, &complete);
        if (len == 0) break;
        char *stmt = strndup(p, len);
        if (!stmt) break;
        slt_result res;
        run_both(st, stmt, &res, NULL);
        if (res.failed) {
            char msg[700];
            describe_error(&res.err, msg, sizeof msg);
            record_fail(st, r, stmt, "load %s: statement failed: %s", path, msg);
            ok = 0;
        }
        slt_result_free(&res);
        free(stmt);
        p += len;
    }
    if (ok) record_pass(st, r);
    free(script.data);
    free(path);
}

static int feature_known(const char *name) {
    for (size_t i = 0; i < sizeof known_features / sizeof known_features[0]; i++)
        if (known_features[i] && strcmp(known_features[i], name) == 0) return 1;
    return 0;
}

/* Counts the records from index first on that would have been checked. */
static int remaining_checks(const slt_script *s, int first) {
    int n = 0;
    for (int i = first; i < s->n_recs; i++) {
        slt_kind k = s->recs[i].kind;
        n += k == SLT_STATEMENT_OK || k == SLT_STATEMENT_ERROR || k == SLT_QUERY || k == SLT_LOAD;
    }
    return n;
}

static void push_frame(run_state *st, int rec) {
    frame *grown = realloc(st->frames, (size_t)(st->n_frames + 1) * sizeof *grown);
    if (!grown) {
        fprintf(stderr, "slt_runner: out of memory\n");
        exit(2);
    }
    st->frames = grown;
    frame *f = &st->frames[st->n_frames++];
    f->rec = rec;
    f->cur = st->script->recs[rec].start;
    f->idx = 0;
}

/* ---- one record ------------------------------------------------------------------------------ */

/* What the SIGALRM handler of --record-timeout writes: prepared before each record, because a
 * signal handler may only write(). */
static char timeout_report[1024];
static size_t timeout_report_len;

static void on_record_timeout(int sig) {
    ssize_t ignored = write(STDOUT_FILENO, timeout_report, timeout_report_len);
    (void)ignored;
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Arms the alarm of --record-timeout for record r (sql: its text). */
static void arm_record_timeout(run_state *st, const slt_record *r, const char *sql) {
    unsigned seconds = st->opt->record_timeout;
    if (!seconds) return;
    int n = snprintf(timeout_report, sizeof timeout_report,
                     "FAIL %s:%d\n  timed out after %u s (--record-timeout); the rest of the "
                     "file did not run\n  SQL: %.300s\n",
                     r->file, r->line, seconds, sql);
    timeout_report_len = n < 0 ? 0 : (size_t)n >= sizeof timeout_report ? sizeof timeout_report - 1
                                                                        : (size_t)n;
    fflush(st->report);
    signal(SIGALRM, on_record_timeout);
    alarm(seconds);
}

static void disarm_record_timeout(run_state *st) {
    if (st->opt->record_timeout) alarm(0);
}

/* Runs a statement, query or load record that no skip rule holds back. */
static void run_record_now(run_state *st, const slt_record *r) {
    if (r->kind == SLT_LOAD) {
        run_load(st, r);
        return;
    }
    char *sql = substitute(st, r->sql);
    if (st->opt->sqlite_corpus) {
        int group = -1;
        char *mapped = slt_sqlite_map(sql, &group);
        free(sql);
        if (!mapped) {
            record_skip(st, r, group);
            return;
        }
        sql = mapped;
    }
    arm_record_timeout(st, r, sql);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (r->kind == SLT_STATEMENT_OK) run_statement_ok(st, r, sql);
    else if (r->kind == SLT_STATEMENT_ERROR) run_statement_error(st, r, sql);
    else run_query(st, r, sql);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    disarm_record_timeout(st);
    double seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    if (st->opt->verbose && seconds >= SLOW_RECORD_SECONDS)
        fprintf(st->report, "  (%s:%d took %.2f s)\n", r->file, r->line, seconds);
    free(sql);
}

/* --check-skipped: runs a skip-listed record with its report discarded; reports it when it
 * passes. */
static void check_listed_record(run_state *st, const slt_record *r, const slt_skip_entry *e) {
    static FILE *discard;
    if (!discard) discard = fopen("/dev/null", "w");
    if (!discard) return;
    slt_counts scratch;
    memset(&scratch, 0, sizeof scratch);
    slt_counts *counts = st->counts;
    FILE *report = st->report;
    st->counts = &scratch;
    st->report = discard;
    run_record_now(st, r);
    st->counts = counts;
    st->report = report;
    if (scratch.passed > 0)
        fprintf(report, "PASSES %s:%d (skip list line %d, \"%s\"): remove it from the list\n",
                r->file, r->line, e->source_line, slt_skip_group_name(e->group));
}

/* ---- --list-records ------------------------------------------------------------------------- */

static void json_string(FILE *out, const char *s) {
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') fprintf(out, "\\%c", *p);
        else if (*p == '\n') fputs("\\n", out);
        else if (*p == '\t') fputs("\\t", out);
        else if (*p < 0x20) fprintf(out, "\\u%04x", *p);
        else fputc(*p, out);
    }
    fputc('"', out);
}

/* Prints record r as one JSON object per line, with its SQL as the runner would send it and the
 * skip group that holds it back, if any (group; listed: by the skip list). */
static void list_record(run_state *st, const slt_record *r, int group, int listed) {
    static const char *const kinds[] = {[SLT_STATEMENT_OK] = "ok", [SLT_STATEMENT_ERROR] = "error",
                                        [SLT_QUERY] = "query", [SLT_LOAD] = "load"};
    static const char *const sorts[] = {"nosort", "rowsort", "valuesort"};
    FILE *out = st->report;
    char *sql = substitute(st, r->kind == SLT_LOAD ? r->arg : r->sql);
    if (st->opt->sqlite_corpus && r->kind != SLT_LOAD) {
        int map_group = -1;
        char *mapped = slt_sqlite_map(sql, &map_group);
        if (mapped) {
            free(sql);
            sql = mapped;
        } else if (group < 0) {
            group = map_group;
        }
    }
    fputs("{\"file\": ", out);
    json_string(out, r->file);
    fprintf(out, ", \"line\": %d, \"kind\": \"%s\", \"sql\": ", r->line, kinds[r->kind]);
    json_string(out, sql);
    if (r->kind == SLT_QUERY) {
        fputs(", \"types\": ", out);
        json_string(out, r->types);
        fprintf(out, ", \"sort\": \"%s\", \"label\": ", sorts[r->sort]);
        if (r->label) json_string(out, r->label);
        else fputs("null", out);
    }
    fputs(", \"expected\": [", out);
    for (int i = 0; i < r->n_expected; i++) {
        char *line = substitute(st, r->expected[i]);
        if (i) fputs(", ", out);
        json_string(out, line);
        free(line);
    }
    fputs("], \"skip\": ", out);
    if (group >= 0) json_string(out, slt_skip_group_name(group));
    else fputs("null", out);
    fprintf(out, ", \"listed\": %s}\n", listed ? "true" : "false");
    free(sql);
}

/* A statement, query or load record: skipped (mode skip, skipif/onlyif, the skip list, the SQLite
 * mapping), run, or listed (--list-records). */
static void run_checked_record(run_state *st, const slt_record *r) {
    const char *engine = st->opt->sqlite_corpus ? SQLITE_CORPUS_ENGINE : NULL;
    const slt_skip_entry *listed = NULL;
    int group = -1;
    if (st->skip_mode) group = SLT_SKIP_MODE;
    else if (!conditions_allow(r, st->opt->connector->name, engine)) group = SLT_SKIP_CONDITION;
    else if ((listed = slt_skip_list_find(st->opt->skip_list, r->file, r->line)))
        group = listed->group;
    if (st->opt->list_records) {
        list_record(st, r, group, listed != NULL);
        return;
    }
    if (group >= 0) {
        record_skip(st, r, group);
        if (listed && st->opt->check_skipped &&
            strstr(slt_skip_group_name(listed->group), st->opt->check_skipped))
            check_listed_record(st, r, listed);
        return;
    }
    /* --exceptions: a listed record's difference from the oracle counts as excepted */
    st->quiet = 0;
    st->cur_exc = slt_exceptions_record(st->opt->exceptions, r->file, r->line);
    if (st->cur_exc) st->exc_seen[st->cur_exc - st->opt->exceptions->items] = 1;
    if (st->cur_exc && strncmp(st->cur_exc->reason, "unstable:", 9) == 0) {
        st->cur_exc = NULL; /* the oracle's answer varies from run to run: not run */
        record_skip(st, r, SLT_SKIP_UNSTABLE);
        return;
    }
    run_record_now(st, r);
    st->cur_exc = NULL;
    st->quiet = 0;
}

/* Counts the checkable records from index first on as skipped under group (after a halt), or
 * lists them so (--list-records). */
static void skip_rest(run_state *st, int first, int group) {
    const slt_script *s = st->script;
    for (int i = first; i < s->n_recs; i++) {
        const slt_record *r = &s->recs[i];
        if (r->kind != SLT_STATEMENT_OK && r->kind != SLT_STATEMENT_ERROR &&
            r->kind != SLT_QUERY && r->kind != SLT_LOAD)
            continue;
        if (st->opt->list_records) list_record(st, r, group, 0);
        else record_skip(st, r, group);
    }
}

/* Runs the records; returns when the file ends, halts or is skipped. */
static void run_records(run_state *st) {
    const slt_script *s = st->script;
    const char *connector = st->opt->connector->name;
    const char *engine = st->opt->sqlite_corpus ? SQLITE_CORPUS_ENGINE : NULL;
    int pc = 0;
    while (pc < s->n_recs && !st->stop) {
        const slt_record *r = &s->recs[pc];
        switch (r->kind) {
        case SLT_LOOP:
            if (r->start >= r->end) {
                pc = r->match + 1;
                continue;
            }
            push_frame(st, pc);
            break;
        case SLT_FOREACH:
            push_frame(st, pc);
            break;
        case SLT_ENDLOOP: {
            frame *f = &st->frames[st->n_frames - 1];
            const slt_record *loop = &s->recs[f->rec];
            int again = loop->kind == SLT_LOOP ? ++f->cur < loop->end
                                               : ++f->idx < loop->n_values;
            if (again) {
                pc = f->rec + 1;
                continue;
            }
            st->n_frames--;
            break;
        }
        case SLT_HALT:
            if (conditions_allow(r, connector, engine)) {
                skip_rest(st, pc + 1, r->n_conds ? SLT_SKIP_CONDITION : SLT_SKIP_MODE);
                st->stop = 1;
            }
            break;
        case SLT_MODE_SKIP: st->skip_mode = 1; break;
        case SLT_MODE_UNSKIP: st->skip_mode = 0; break;
        case SLT_REQUIRE:
            if (!feature_known(r->arg)) {
                if (st->opt->verbose)
                    fprintf(st->report, "SKIP %s:%d: requires %s\n", r->file, r->line, r->arg);
                int n = remaining_checks(s, pc);
                st->counts->skipped += n;
                st->counts->skipped_by[SLT_SKIP_MODE] += n;
                st->stop = 1;
            }
            break;
        case SLT_BAD:
            record_fail(st, r, NULL, "%s", r->arg ? r->arg : "unreadable record");
            break;
        case SLT_STATEMENT_OK:
        case SLT_STATEMENT_ERROR:
        case SLT_QUERY:
        case SLT_LOAD:
            run_checked_record(st, r);
            break;
        case SLT_HASH_THRESHOLD: st->hash_threshold = r->start; break;
        }
        pc++;
    }
}

/* Removes a directory tree (a test warehouse); errors are ignored. */
static void remove_tree(const char *dir) { nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS); }

void slt_file_run(const char *path, const slt_options *opt, slt_counts *counts, FILE *report) {
    char msg[1024];
    slt_script script;
    if (slt_script_parse(path, &script, msg, sizeof msg) != 0) {
        counts->failed++;
        fprintf(report, "FAIL %s:0\n  %s\n", path, msg);
        return;
    }
    run_state st;
    memset(&st, 0, sizeof st);
    st.script = &script;
    st.opt = opt;
    st.report = report;
    st.counts = counts;
    if (opt->verbose && !opt->list_records) fprintf(report, "file %s\n", path);

    /* Files under an "iceberg" folder run on a fresh Iceberg warehouse (the session default
     * catalog "iceberg"), removed afterwards. */
    slt_options file_opt = *opt;
    char warehouse[64] = "";
    if (strstr(path, "iceberg/")) {
        snprintf(warehouse, sizeof warehouse, "/tmp/slt-warehouse-XXXXXX");
        if (!mkdtemp(warehouse)) warehouse[0] = '\0';
        file_opt.warehouse = warehouse[0] ? warehouse : NULL;
    }
    sqe_error err;
    memset(&err, 0, sizeof err);
    if (!opt->list_records && opt->connector->open(&file_opt, &st.conn, &err) != 0) {
        char desc[700];
        describe_error(&err, desc, sizeof desc);
        counts->failed++;
        fprintf(report, "FAIL %s:0\n  cannot open the database: %s\n", path, desc);
        slt_script_free(&script);
        if (warehouse[0]) remove_tree(warehouse);
        return;
    }
    if (opt->sqe_types) {
        st.peer = slt_connector_find("embedded");
        if (st.peer->open(&file_opt, &st.peer_conn, &err) != 0) {
            char desc[700];
            describe_error(&err, desc, sizeof desc);
            fprintf(report, "FAIL %s:0\n  cannot open the SQE peer: %s\n", path, desc);
            counts->failed++;
            st.peer_conn = NULL;
        }
    }
    const slt_exceptions *ex = opt->exceptions;
    if (ex && ex->n) st.exc_seen = xcalloc((size_t)ex->n, 1);
    run_records(&st);
    if (st.peer_conn) st.peer->close(st.peer_conn);
    /* An entry for this file that matched no record names a line that is not a record's. */
    for (int i = 0; ex && i < ex->n && !st.stop; i++) {
        if (ex->items[i].line == 0 || st.exc_seen[i]) continue;
        for (int f = 0; f < script.n_files; f++) {
            slt_record where = {.file = script.files[f], .line = ex->items[i].line};
            if (slt_exceptions_record(ex, where.file, where.line) != &ex->items[i]) continue;
            counts->failed++;
            fprintf(report, "FAIL %s:%d\n  line %d of the exceptions list names no record that"
                    " ran\n", where.file, where.line, ex->items[i].list_line);
        }
    }
    free(st.exc_seen);
    if (!opt->list_records) opt->connector->close(st.conn);
    if (warehouse[0]) remove_tree(warehouse);
    rewrite_apply(&st);

    for (int i = 0; i < st.n_labels; i++) {
        for (size_t j = 0; j < st.labels[i].n_values; j++) free(st.labels[i].values[j]);
        free(st.labels[i].values);
        free(st.labels[i].label);
    }
    free(st.labels);
    for (int i = 0; i < st.n_rewrites; i++) {
        free(st.rewrites[i].new_types);
        free_lines(st.rewrites[i].rows, st.rewrites[i].n_rows);
    }
    free(st.rewrites);
    free(st.frames);
    if (st.test_dir && strcmp(st.test_dir, "/tmp") != 0)
        nftw(st.test_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    free(st.test_dir);
    slt_script_free(&script);
    fflush(report);
}
