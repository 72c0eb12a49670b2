/*
 * sqe_values.h: typed access to results and session state, for SQE's own front ends (the
 * protocol servers). Not part of the stable embedding API in sqe.h.
 *
 * Results: sqe.h renders cells as text; a protocol server needs the values themselves (JSON
 * numbers, base64 bytes, Arrow buffers). These calls hand out the engine's own column type
 * (src/types/types.h) and column vector (src/vec/vec.h), so only code that may include those
 * layers (server/, cli/, tests) can use them; everything else sees opaque pointers.
 *
 * Sessions: a protocol carries the session in every request (Trino's X-Trino-Catalog, -Schema,
 * -Time-Zone, -Prepared-Statement headers) and must report what a statement changed (USE,
 * PREPARE). These calls set and read that state on a sqe_conn directly, without SQL.
 *
 * Threads: like sqe.h, a sqe_conn and its results are used by one thread at a time.
 */
#ifndef SQE_SQE_VALUES_H
#define SQE_SQE_VALUES_H

#include "sqe/sqe.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sqe_type;
struct vec;
struct sqe_principal;

/* ---- typed results --------------------------------------------------------------------- */

/* The engine type of column col (0-based), or NULL when col is out of range. The pointer stays
 * valid until sqe_result_destroy. */
const struct sqe_type *sqe_result_column_sqe_type(const sqe_result *res, int col);

/* The column vector of column col of a chunk (any vec shape: flat, constant or dictionary;
 * read it with vec_resolve / vec_format_json), or NULL when col is out of range. Valid as long
 * as the chunk (until the next sqe_result_next or sqe_result_destroy). */
const struct vec *sqe_chunk_column(const sqe_chunk *chunk, int col);

/* ---- database settings of a server ---------------------------------------------------- */

struct path_policy;
/* Makes every session of db reach files and object stores only as policy allows
 * (src/io/path_policy.h; taken over, freed with db; NULL: everything, the embedded default).
 * Call before the first connection. */
void sqe_db_set_path_policy(sqe_db *db, struct path_policy *policy);

/* Limits a server puts on every session of db (sqe_db_set_limits; call before the first
 * connection). Session properties can only lower them (SET SESSION query_max_memory, threads). */
typedef struct sqe_db_limits {
    int64_t memory_total;     /* all running queries together; 0 = 80% of RAM */
    int64_t memory_per_query; /* one query; 0 = keep sqe_db_options.memory_limit */
    int64_t memory_per_user;  /* all running queries of one user together; 0 = no limit */
    int64_t max_result_rows;  /* rows one result hands out; more fail with
                                 EXCEEDED_RESULT_ROWS_LIMIT; 0 = no limit */
} sqe_db_limits;
void sqe_db_set_limits(sqe_db *db, const sqe_db_limits *limits);

/* ---- the server's live sessions (system.runtime.sessions) ------------------------------ */

/* One live session of the host, as system.runtime.sessions shows it. Strings are borrowed for
 * the emit call; NULL = not known. Never a token, password or other secret: session_id is an
 * opaque id that grants nothing. */
typedef struct sqe_session_row {
    const char *session_id;
    const char *user;
    const char *auth_method;    /* sqe_auth_method_name of how the user authenticated */
    const char *protocol;       /* "trino", "flight" */
    const char *source;         /* the client's name for itself (X-Trino-Source), or NULL */
    const char *client_address; /* "ip:port" of the client, or NULL */
    int64_t created_ms;         /* ms since the epoch (CLOCK_REALTIME) */
    int64_t last_used_ms;
    const char *catalog;        /* the session's current catalog and schema */
    const char *schema;
    const char *state;          /* "active" (a statement runs) or "idle" */
} sqe_session_row;

/* Receives one row; a non-zero return (an error set in err) stops the listing. */
typedef int (*sqe_session_emit)(void *ctx, const sqe_session_row *row, sqe_error *err);
/* Lists the host's live sessions, calling emit(ctx, row, err) once per session; returns SQE_OK
 * or the first error. Called from query threads concurrently: must be thread-safe. The engine
 * shows a caller only the rows whose user is theirs, every row to a holder of one of the
 * database's admin roles (sqe_db_set_admin_roles). */
typedef int (*sqe_session_lister)(void *ud, sqe_session_emit emit, void *ctx, sqe_error *err);
/* Makes system.runtime.sessions list the sessions fn reports (ud passed back; both borrowed,
 * they must outlive db's queries). Without one the table is empty (the embedded shell). Call
 * before the first connection; NULL removes it. */
void sqe_db_set_session_lister(sqe_db *db, sqe_session_lister fn, void *ud);
/* The roles whose holders administer the server ([auth] admin_roles): they see every user's
 * row of system.runtime.sessions. Copied (n = 0: nobody); replaces the previous list. Call
 * before the first connection. OUT_OF_MEMORY leaves the old list. */
int sqe_db_set_admin_roles(sqe_db *db, const char *const *roles, uint32_t n, sqe_error *err);

/* ---- session state ------------------------------------------------------------------------ */

/* The session's current catalog and schema (never NULL; valid until the next statement or
 * setter call on conn). */
const char *sqe_conn_catalog(const sqe_conn *conn);
const char *sqe_conn_schema(const sqe_conn *conn);

/* Sets the current catalog and/or schema without checking that they exist (as a client header
 * does; a statement naming a missing one fails later). NULL leaves that part unchanged. On error
 * (out of memory) nothing changes. */
int sqe_conn_set_catalog_schema(sqe_conn *conn, const char *catalog_name, const char *schema_name,
                                sqe_error *err);

/* Makes the session run as a principal for user that carries nothing else (no token, no roles;
 * method "none"): servers without authentication hooks. INVALID_ARGUMENTS for an empty user; on
 * error nothing changes. */
int sqe_conn_set_user(sqe_conn *conn, const char *user, sqe_error *err);
/* Makes the session run as principal (src/common/principal.h; the session takes a reference and
 * keeps it until the next call or sqe_disconnect): current_user, the catalogs' view of the
 * caller (REST catalogs get its token), the file and object-store checks. NULL is ignored. */
void sqe_conn_set_principal(sqe_conn *conn, const struct sqe_principal *principal);
/* The principal the session runs as (never NULL; valid until the next setter call). */
const struct sqe_principal *sqe_conn_principal(const sqe_conn *conn);
/* Queries of conn stop with USER_CANCELED soon after *flag becomes non-zero (checked between
 * chunks). flag is borrowed and must outlive the connection's queries; NULL removes it. */
void sqe_conn_set_cancel_flag(sqe_conn *conn, volatile int *flag);
/* Queries of conn stop with EXCEEDED_TIME_LIMIT ("... limit of limit_ms ms") once
 * CLOCK_MONOTONIC passes deadline_ns (checked in planning and between chunks, as cancellation):
 * a server sets it when it admits a statement, so parsing and every step after count. 0
 * removes the deadline. */
void sqe_conn_set_deadline(sqe_conn *conn, uint64_t deadline_ns, uint32_t limit_ms);

/* Sets the session time zone from a zone name ("UTC", "Europe/Berlin", "+02:00"). Returns
 * SQE_ERR_INVALID_SESSION_PROPERTY for an unknown zone (nothing changes then). */
int sqe_conn_set_time_zone(sqe_conn *conn, const char *zone, sqe_error *err);

/* Adds (or replaces) prepared statement `name` with statement text `sql`, as PREPARE name FROM
 * sql would, without parsing it (EXECUTE parses it). On error nothing changes. */
int sqe_conn_prepared_put(sqe_conn *conn, const char *name, const char *sql, sqe_error *err);

/* The text of prepared statement `name`, or NULL when there is none. Valid until the statement
 * is replaced or deallocated. */
const char *sqe_conn_prepared_text(const sqe_conn *conn, const char *name);

#ifdef __cplusplus
}
#endif
#endif
