/*
 * slt.h: the sqllogictest runner's internal interface (tests/runner/ only).
 *
 * slt_parse.c reads a .test file into a flat array of records (statements, queries and control
 * lines such as loop/endloop); slt_exec.c interprets that array on a connector, compares results
 * and reports failures; slt_conn.c holds the connectors (the embedded API; the Trino HTTP and
 * Flight SQL clients of slt_conn_trino.c and slt_conn_flight.c) behind one small interface;
 * slt_runner.c is main (options, file discovery, parallel jobs); slt_hash.c hashes results
 * (`N values hashing to <md5>`); slt_skip.c holds the skip groups and the skip list file;
 * slt_sqlite.c is the SQLite corpus mode (--sqlite-corpus: DDL mapping and SQLite's value
 * rendering). README.md beside this file documents the dialect.
 */
#ifndef SQE_TESTS_SLT_H
#define SQE_TESTS_SLT_H

#include <stddef.h>
#include <stdio.h>

#include "sqe/sqe.h"

/* ---- records --------------------------------------------------------------------------------- */

typedef enum slt_kind {
    SLT_STATEMENT_OK,
    SLT_STATEMENT_ERROR,
    SLT_QUERY,
    SLT_REQUIRE,     /* arg: feature */
    SLT_LOOP,        /* arg: variable; start, end */
    SLT_FOREACH,     /* arg: variable; values */
    SLT_ENDLOOP,
    SLT_HALT,
    SLT_MODE_SKIP,
    SLT_MODE_UNSKIP,
    SLT_LOAD,        /* arg: path of a SQL script */
    SLT_HASH_THRESHOLD, /* start: the threshold (hash results with more values, --rewrite) */
    SLT_BAD          /* unreadable record; arg: what is wrong. Fails when reached. */
} slt_kind;

typedef enum slt_sort { SLT_SORT_NONE, SLT_SORT_ROW, SLT_SORT_VALUE } slt_sort;

typedef struct slt_condition {
    int only;         /* 1 for onlyif, 0 for skipif */
    char *connector;  /* a connector name, or an engine name in the SQLite corpus mode */
} slt_condition;

typedef struct slt_record {
    slt_kind kind;
    const char *file;         /* the file the record came from (owned by the script) */
    int line;                 /* 1-based line of the command */
    slt_condition *conds;     /* skipif/onlyif lines before the record */
    int n_conds;
    char *sql;                /* statement or query text, lines joined with '\n' */
    char *types;              /* query: type string, one letter per column (I, T, R, ...) */
    slt_sort sort;
    char *label;              /* query: optional label, or NULL */
    int has_results;          /* a "----" line was present */
    char **expected;          /* lines after "----" */
    int n_expected;
    int sql_last_line;        /* last line of the SQL text */
    int results_last_line;    /* last expected line (the "----" line when none) */
    char *arg;                /* see slt_kind */
    char **values;            /* foreach values */
    int n_values;
    long start, end;          /* loop bounds: start <= var < end */
    int match;                /* loop/foreach: index of its endloop; endloop: of its loop */
} slt_record;

typedef struct slt_script {
    char *path;
    slt_record *recs;
    int n_recs;
    char **files;             /* names of the file and of included files (owned) */
    int n_files;
} slt_script;

/* Parses the file at path. Unreadable records become SLT_BAD records, so a file always parses;
 * returns 0, or -1 when the file itself cannot be read (msg then says why). On success the caller
 * owns *out and calls slt_script_free(). */
int slt_script_parse(const char *path, slt_script *out, char *msg, size_t msg_len);
void slt_script_free(slt_script *script);

/* ---- connectors ------------------------------------------------------------------------------ */

/* A statement's outcome in connector-neutral form. */
typedef struct slt_result {
    int failed;               /* 1 when the statement failed; err says how */
    sqe_error err;
    char error_name[64];      /* the Trino errorName of a failure over the protocol, else "" */
    int n_cols;
    char **col_types;         /* Trino type names (n_cols) */
    char **values;            /* n_rows * n_cols texts; NULL for SQL NULL */
    size_t n_rows;
    size_t partial;           /* cells of an unfinished last row (slt_result_push) */
} slt_result;

typedef struct slt_options slt_options;

/* ---- exceptions (slt_exceptions.c) ----------------------------------------------------------- */

/* One entry of an exceptions list: a folder ("x/"), a file, or a record (file and line). */
typedef struct slt_exception {
    char *path;
    int line;                 /* the record's command line; 0 for a folder or a whole file */
    char *reason;
    int list_line;            /* where the entry is in the list */
} slt_exception;

typedef struct slt_exceptions {
    slt_exception *items;
    int n;
} slt_exceptions;

/* Reads the list at path. Returns 0 (the caller then owns *out: slt_exceptions_free), or -1 with
 * msg saying why and *out empty. */
int slt_exceptions_load(const char *path, slt_exceptions *out, char *msg, size_t msg_len);
void slt_exceptions_free(slt_exceptions *ex);
/* The folder or file entry that leaves path out of the run, or NULL (ex may be NULL). */
const slt_exception *slt_exceptions_file(const slt_exceptions *ex, const char *path);
/* The entry for the record at file:line, or NULL (ex may be NULL). */
const slt_exception *slt_exceptions_record(const slt_exceptions *ex, const char *file, int line);

typedef struct slt_connector {
    const char *name;         /* what skipif/onlyif name */
    int has_positions;        /* errors carry line:column (else `position:` is not checked) */
    /* Opens a fresh database and session; returns 0 or non-zero with err set. */
    int (*open)(const slt_options *opt, void **conn, sqe_error *err);
    /* Runs one statement and fills *out (always; out->failed tells the outcome). */
    void (*run)(void *conn, const char *sql, slt_result *out);
    void (*close)(void *conn);
} slt_connector;

/* The connector named name, or NULL. */
const slt_connector *slt_connector_find(const char *name);
/* Frees the contents of r and zeroes it. */
void slt_result_free(slt_result *r);

/* Helpers shared by the connectors (slt_conn.c). */

/* Opens the fresh database every connector starts from (threads and warehouse from opt; with
 * opt->rest_uri and a warehouse, the REST catalog as the default catalog "iceberg" instead, its
 * namespace "default" created when missing). On success the caller owns *db (sqe_db_close); on
 * error *db is NULL and err says why. */
int slt_db_open(const slt_options *opt, sqe_db **db, sqe_error *err);
/* Marks r failed with sqlstate and a formatted message (r's rows stay; the caller frees r). */
void slt_result_fail(slt_result *r, const char *sqlstate, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Sets the columns of r: n names of Trino types, copied. Returns 0, or -1 with r failed. */
int slt_result_set_columns(slt_result *r, int n, const char *const *types);
/* Appends one cell (row-major, n_cols cells per row; n_rows counts complete rows) and takes
 * value (malloc'd; NULL = SQL NULL). *cap is the caller's capacity counter, 0 at first. Returns
 * 0, or -1 with r failed and value freed (out of memory or over the runner's result cap). */
int slt_result_push(slt_result *r, char *value, size_t *cap);

/* The protocol connectors (slt_conn_trino.c, slt_conn_flight.c). */
extern const slt_connector slt_conn_trino;
extern const slt_connector slt_conn_flight;

/* ---- skipped records (slt_skip.c) ----------------------------------------------------------- */

#define SLT_MAX_SKIP_GROUPS 32

/* Why records were skipped: every skipped record is counted under one group. The fixed groups come
 * first; the SQLite mapping and the headings of the skip list file add theirs at start-up, before
 * any file runs (the forked children share the numbering). */
enum {
    SLT_SKIP_CONDITION,      /* skipif/onlyif (also the records after a halt that has them) */
    SLT_SKIP_MODE,           /* mode skip, require, the records after a plain halt */
    SLT_SKIP_UNSTABLE,       /* --exceptions "unstable:": the oracle's answer varies by run */
    SLT_SKIP_FIRST_FREE
};

/* Registers a group named name (copied) and returns its index; an existing name returns its index.
 * Returns -1 when the table is full (SLT_MAX_SKIP_GROUPS). Not thread-safe; call before running. */
int slt_skip_group(const char *name);
/* The name of group idx ("" when unknown). */
const char *slt_skip_group_name(int idx);
int slt_skip_group_count(void);

/* The skip list file: records (file:line) and whole files not to run, each with a reason,
 * grouped by "## heading" lines. See README.md. */
typedef struct slt_skip_entry {
    char *path;               /* relative to the corpus; matched as a suffix of the record's file */
    int line;                 /* the record's command line; 0 for the whole file */
    char *reason;
    int group;                /* slt_skip_group index of its heading */
    int source_line;          /* its line in the list, for messages */
} slt_skip_entry;

typedef struct slt_skip_list {
    slt_skip_entry *entries;
    int n_entries;
} slt_skip_list;

/* Reads the list at path and registers its headings as skip groups. Returns 0, or -1 with msg set
 * (unreadable file, a malformed line, too many groups); on error *out is empty. The caller owns
 * *out and calls slt_skip_list_free(). */
int slt_skip_list_load(const char *path, slt_skip_list *out, char *msg, size_t msg_len);
void slt_skip_list_free(slt_skip_list *list);
/* The entry that skips the record at file:line, or NULL. */
const slt_skip_entry *slt_skip_list_find(const slt_skip_list *list, const char *file, int line);

/* ---- hash results (slt_hash.c) --------------------------------------------------------------- */

/* Writes into hex (33 bytes) the lowercase MD5 of the values, each followed by "\n", in order: the
 * digest of SQLite's `N values hashing to <md5>` results. */
void slt_hash_values(const char *const *values, size_t n, char hex[33]);
/* Parses "N values hashing to <32 hex digits>" into *n and hex; returns 1 when line is one. */
int slt_hash_line_parse(const char *line, size_t *n, char hex[33]);

/* ---- the SQLite corpus mode (slt_sqlite.c) --------------------------------------------------- */

/* Registers the mapping's skip groups (before any file runs). */
void slt_sqlite_init(void);
/* Maps a statement of SQLite's corpus to Trino's dialect (see README.md in tests/sqlite/): returns
 * a malloc'd statement to run, or NULL with *skip_group set to the group of a statement that has no
 * Trino equivalent (CREATE INDEX, ...). Exits on out of memory. */
char *slt_sqlite_map(const char *sql, int *skip_group);
/* Renders a cell as SQLite's sqllogictest prints it for the type letter (I: integer, R: "%.3f",
 * T: text; NULL as "NULL", '' as "(empty)", booleans as 1/0); value is the engine's text (NULL =
 * SQL NULL) and type its Trino type. Returns a malloc'd string; exits on out of memory. */
char *slt_sqlite_render(const char *value, const char *type, char letter);

/* ---- running --------------------------------------------------------------------------------- */

struct slt_options {
    const slt_connector *connector;
    int rewrite;              /* rewrite the expected rows of failing queries in place */
    int verbose;              /* report every record */
    int threads;              /* engine threads per database (0 = default) */
    const char *warehouse;    /* Iceberg warehouse of the database, or NULL (set per file) */
    /* --iceberg-rest: files under "iceberg/" use this REST catalog (as catalog "iceberg", with
     * the static bearer token rest_token and vended S3 credentials, s3_endpoint path-style)
     * instead of a fresh local warehouse; NULL: the local warehouse. */
    const char *rest_uri;
    const char *rest_token;
    const char *s3_endpoint;
    /* --sqlite-corpus: SQLite's corpus (DDL mapping, SQLite's value rendering, the engine name
     * "postgresql" for skipif/onlyif besides the connector's); 0 for the project's own tests. */
    int sqlite_corpus;
    const slt_skip_list *skip_list;   /* --skip-list, or NULL */
    /* --check-skipped SUBSTR: run the skip-listed records whose group name contains it and
     * report those that pass (they still count as skipped). NULL: do not run them. */
    const char *check_skipped;
    unsigned record_timeout;  /* --record-timeout: seconds per record (0: the file timeout only) */
    int list_records;         /* --list-records: print the records as JSON lines, run nothing */
    /* --trino-url: the "trino" connector talks to this external server (no in-process SQE),
     * each file on a fresh memory catalog named trino_catalog (default "memory"), schema
     * "default"; error records then compare the SQLSTATE (Trino's errorName through
     * errcodes.def) and count message and position differences apart (slt_counts.messages,
     * .positions). */
    const char *trino_url;
    const char *trino_catalog;
    const slt_exceptions *exceptions;  /* --exceptions: listed records count as excepted */
    /* --sqe-types (with --trino-url): every statement also runs on SQE in-process, and a query
     * both answer must have the same column types, else it fails (slt_counts.types counts). */
    int sqe_types;
};

typedef struct slt_counts {
    int passed;
    int failed;
    int skipped;
    int skipped_by[SLT_MAX_SKIP_GROUPS]; /* the skipped records by slt_skip_group */
    int excepted;             /* records that differ and are listed in the exceptions */
    int messages;             /* error records whose SQLSTATE agrees but message text differs */
    int positions;            /* error records whose SQLSTATE agrees but position differs */
    int types;                /* --sqe-types: queries whose column types differ from SQE's */
} slt_counts;

/* Runs one .test file on a fresh database, adding to *counts as it goes (so a crash keeps the
 * records counted so far) and writing FAIL reports to report. */
void slt_file_run(const char *path, const slt_options *opt, slt_counts *counts, FILE *report);

#endif
