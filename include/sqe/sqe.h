/*
 * sqe.h: the public embedding API of SQE.
 *
 * Open a database (catalogs, thread pool, memory limits), connect (a session: current catalog and
 * schema, session properties, prepared statements), run statements and stream the result chunk by
 * chunk. The shell, the test runner and the protocol servers all sit on this API.
 *
 * Errors: every fallible call returns SQE_OK (0) or a positive error code and fills the optional
 * sqe_error; its contents are defined only after a non-zero return.
 * Threads: a sqe_db may be shared by threads; a sqe_conn and everything made from it is used by
 * one thread at a time.
 */
#ifndef SQE_SQE_H
#define SQE_SQE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SQE_OK 0

/* An error: code (see src/common/errcodes.def), SQLSTATE, message, and for SQL text errors the
 * 1-based line and column of the offending token (0 when unknown). */
typedef struct sqe_error {
    int code;
    char sqlstate[6];
    int line;
    int column;
    char message[512];
} sqe_error;

typedef struct sqe_db sqe_db;
typedef struct sqe_conn sqe_conn;
typedef struct sqe_result sqe_result;
typedef struct sqe_chunk sqe_chunk;
typedef struct sqe_stmt sqe_stmt;

typedef struct sqe_db_options {
    int threads;              /* worker threads; 0 = number of cores */
    uint64_t memory_limit;    /* per-query memory limit in bytes; 0 = default (80% of RAM) */
    const char *warehouse;    /* Iceberg warehouse root (a local directory, created when
                                 missing); NULL = no Iceberg catalog */
    const char *catalog_db;   /* its SQLite catalog file; NULL = <warehouse>/catalog.db */
    const char *catalog_name; /* SQL name of the Iceberg catalog, also the catalog_name its rows
                                 carry (pyiceberg's SqlCatalog name); NULL = "iceberg" */
} sqe_db_options;

/* Opens an embedded database with an in-memory catalog "memory" (schema "default") and, when
 * opts->warehouse is set, the Iceberg catalog over that warehouse (namespace "default" created
 * when missing), which is then the sessions' default catalog.
 * opts may be NULL for defaults. On success the caller owns *out (sqe_db_close). */
int sqe_db_open(const sqe_db_options *opts, sqe_db **out, sqe_error *err);
/* Closes the database; all connections must be closed first. NULL is ignored. */
void sqe_db_close(sqe_db *db);

/* Opens a session on db. On success the caller owns *out (sqe_disconnect). */
int sqe_connect(sqe_db *db, sqe_conn **out, sqe_error *err);
void sqe_disconnect(sqe_conn *conn);

/* Runs one SQL statement. On success the caller owns *out (sqe_result_destroy), which streams the
 * rows; on error *out is NULL and nothing the statement wrote is kept. */
int sqe_query(sqe_conn *conn, const char *sql, sqe_result **out, sqe_error *err);

/* Splits a script: returns the length of the first statement of sql (up to and including its ';'
 * or the end of the text), skipping quotes and comments; *complete is set to 1 when the statement
 * ends with ';'. Returns 0 when sql holds only whitespace and comments. */
size_t sqe_statement_length(const char *sql, int *complete);

/* Prepared statements with `?` parameters. The caller owns *out (sqe_stmt_destroy). */
int sqe_prepare(sqe_conn *conn, const char *sql, sqe_stmt **out, sqe_error *err);
int sqe_stmt_param_count(const sqe_stmt *stmt);
/* The SQL type parameter idx (1-based) takes from where it stands, spelled as
 * sqe_result_column_type does: `id = ?` gives id's type, `INSERT INTO t VALUES (?, ...)` the
 * target column's type. "unknown" when the context fixes no type (`SELECT ?`, UPDATE / DELETE,
 * a statement that does not bind yet) or idx is out of range; any value may still be bound then.
 * The first call binds the statement against the session's catalogs (no error is reported).
 * The string is owned by stmt and stays valid until sqe_stmt_destroy. */
const char *sqe_stmt_param_type(sqe_stmt *stmt, int idx);
/* Binds parameter idx (1-based) as NULL, a 64-bit integer, a double, or text (copied). The text
 * form takes the parameter's SQL type from context the way a string literal would. */
int sqe_stmt_bind_null(sqe_stmt *stmt, int idx, sqe_error *err);
int sqe_stmt_bind_int64(sqe_stmt *stmt, int idx, int64_t value, sqe_error *err);
int sqe_stmt_bind_double(sqe_stmt *stmt, int idx, double value, sqe_error *err);
int sqe_stmt_bind_text(sqe_stmt *stmt, int idx, const char *value, sqe_error *err);
int sqe_stmt_execute(sqe_stmt *stmt, sqe_result **out, sqe_error *err);
void sqe_stmt_destroy(sqe_stmt *stmt);

/* Result metadata. Column types are spelled as Trino does ("bigint", "decimal(12,2)",
 * "array(varchar)", "timestamp(6) with time zone"). */
int sqe_result_column_count(const sqe_result *res);
const char *sqe_result_column_name(const sqe_result *res, int col);
const char *sqe_result_column_type(const sqe_result *res, int col);
/* For statements that change data: the number of rows written; -1 for queries. */
int64_t sqe_result_update_count(const sqe_result *res);

/* Streams the next chunk of rows. *out is set to NULL at the end. The chunk is owned by the
 * result and stays valid until the next call or sqe_result_destroy. */
int sqe_result_next(sqe_result *res, const sqe_chunk **out, sqe_error *err);
void sqe_result_destroy(sqe_result *res);

/* Chunk access. */
int sqe_chunk_row_count(const sqe_chunk *chunk);
/* 1 if the cell is NULL. */
int sqe_chunk_is_null(const sqe_chunk *chunk, int col, int row);
/* Formats a cell as Trino renders it in text (NULL cells as "NULL") into buf (always
 * NUL-terminated); returns the full length the text needs, like snprintf. */
size_t sqe_chunk_format(const sqe_chunk *chunk, int col, int row, char *buf, size_t buf_len);

/* Build information, e.g. "0.1.0". */
const char *sqe_version(void);

#ifdef __cplusplus
}
#endif
#endif
