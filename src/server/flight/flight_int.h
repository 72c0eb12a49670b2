/*
 * flight_int.h: private to src/server/flight/: the server, call, session, prepared-statement and
 * ticket records shared by the transport (flight_server.c), the command decoder (flight_cmd.c),
 * the SQL handlers (flight_sql.c, flight_put.c, flight_meta.c) and the SqlInfo encoder
 * (flight_sqlinfo.c).
 *
 * Locking: everything reachable from flight_server's lists (sessions, prepared, tickets) is
 * guarded by srv->lock; a call (flight_call) belongs to the worker thread serving it.
 */
#ifndef SQE_SERVER_FLIGHT_FLIGHT_INT_H
#define SQE_SERVER_FLIGHT_FLIGHT_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/byte_buffer_reader.h>
#include <grpc/support/alloc.h>
#include <protobuf-c/protobuf-c.h>

#include "flight.pb-c.h"
#include "flight_sql.pb-c.h"
#include "google/protobuf/any.pb-c.h"
#include "format/arrow/arrow_ipc.h"
#include "server/core/session.h"
#include "server/flight/flight_server.h"
#include "sqe/sqe_effects.h"

/* gRPC status codes used directly (grpc/status.h). */
enum { FLIGHT_UNAUTHENTICATED = 16 };

/* ---- commands (flight_cmd.c) ------------------------------------------------------------- */

typedef enum flight_cmd_kind {
    FCMD_STATEMENT_QUERY = 0,
    FCMD_PREPARED_QUERY,
    FCMD_TICKET_STATEMENT,
    FCMD_SQL_INFO,
    FCMD_CATALOGS,
    FCMD_DB_SCHEMAS,
    FCMD_TABLES,
    FCMD_TABLE_TYPES,
    FCMD_XDBC_TYPE_INFO,
    FCMD_PRIMARY_KEYS,
    FCMD_EXPORTED_KEYS,
    FCMD_IMPORTED_KEYS,
    FCMD_CROSS_REFERENCE,
    FCMD_STATEMENT_UPDATE,
    FCMD_PREPARED_UPDATE,
    FCMD_STATEMENT_INGEST,
    FCMD_CREATE_PREPARED,
    FCMD_CLOSE_PREPARED,
    FCMD_COUNT_
} flight_cmd_kind;

/* A decoded Flight SQL command: kind and the unpacked protobuf-c message of that kind. */
typedef struct flight_cmd {
    flight_cmd_kind kind;
    ProtobufCMessage *msg;
} flight_cmd;

/* Decodes a serialized google.protobuf.Any holding a Flight SQL command. Unknown type URLs fail
 * with NOT_SUPPORTED naming the URL, malformed bytes with INVALID_ARGUMENTS. On success the
 * caller frees *out with flight_cmd_free; on error *out is zeroed. Safe on any input. */
int flight_cmd_decode(const uint8_t *buf, size_t len, flight_cmd *out, sqe_error *err);
void flight_cmd_free(flight_cmd *c);
/* Name of a command kind ("CommandStatementQuery"). */
const char *flight_cmd_name(flight_cmd_kind kind);

/* Packs msg into a google.protobuf.Any (type URL from its descriptor) into a malloc'ed buffer.
 * Returns NULL on out of memory. */
uint8_t *flight_any_pack(const ProtobufCMessage *msg, size_t *len);

/* ---- server state ------------------------------------------------------------------------ */

typedef struct flight_session {
    char *key;                  /* bearer token, or "principal:<name>" for token-less calls */
    char *principal;
    /* What each statement's fresh sqe_conn is given (state.principal unused): catalog, schema
     * (NULL = the database's defaults), time zone, SET SESSION properties (name -> value as the
     * SQL text after '='), SQL prepared statements (PREPARE name -> statement text). */
    srv_session_state state;
    int64_t created_ms, last_used_ms;
    /* For system.runtime.sessions (flight_server_list_sessions): */
    uint64_t id;                /* from srv->next_session_id: the shown session_id, never the key */
    char auth_method[16];       /* how the call that opened it authenticated ("" = not yet) */
    char peer[64];              /* that call's client address */
    uint32_t running;           /* its statements executing or with a result not yet freed */
    struct flight_session *next;
} flight_session;

/* One bound parameter value. */
typedef struct flight_param {
    int kind;                   /* 0 NULL, 1 int64, 2 double, 3 text */
    int64_t i;
    double d;
    char *text;
} flight_param;

typedef struct flight_prepared {
    char handle[40];
    char *session_key;
    char *sql;
    int n_params;
    bool is_query;
    uint32_t n_rows;            /* bound parameter rows (n_rows x n_params values) */
    flight_param *params;
    struct flight_prepared *next;
} flight_prepared;

/* A result produced by GetFlightInfo, waiting for its DoGet. */
typedef struct flight_ticket {
    char handle[40];
    char *session_key;
    sqe_conn *conn;
    sqe_stmt *stmt;             /* prepared statements: kept until res is destroyed */
    sqe_result *res;
    volatile int cancel;        /* the engine's cancel flag for conn */
    bool in_use;                /* a DoGet streams it */
    bool admitted;              /* hooks.release is owed for principal */
    char *principal;            /* the user name admission counted (conn keeps the principal
                                   itself, so a DoGet on another thread runs as the same
                                   caller) */
    int64_t created_ms;
    struct flight_ticket *next;
} flight_ticket;

/* Open DoGet streams of one user (flight_server.c). */
typedef struct flight_stream_count {
    char *user;
    uint32_t open;
    struct flight_stream_count *next;
} flight_stream_count;

typedef struct flight_worker {
    struct flight_server *srv;
    pthread_t thread;
    grpc_completion_queue *cq;
    bool started;
} flight_worker;

struct flight_server {
    sqe_db *db;
    flight_server_options opts;
    char *bind_address, *tls_cert_path, *tls_key_path;
    grpc_server *server;
    grpc_resource_quota *quota; /* opts.transport_memory_bytes for all connections */
    grpc_completion_queue *shutdown_cq; /* registered NEXT queue for the shutdown notice */
    bool started;
    uint16_t port;
    uint32_t n_workers;
    flight_worker *workers;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    flight_session *sessions;
    flight_prepared *prepared;
    flight_ticket *tickets;
    uint32_t running;           /* statements executing or streaming */
    uint64_t next_session_id;   /* flight_session.id */
    flight_stream_count *streams; /* users with open DoGet streams */
    uint32_t streams_open;      /* DoGet streams of all users */
    uint32_t streams_max_total; /* n_workers - n_workers / 4: the rest serve other calls */
    int draining;
    int stopping;
};

/* One call being served by a worker. */
typedef struct flight_call {
    flight_server *srv;
    grpc_completion_queue *cq;
    grpc_call *call;
    grpc_call_details details;
    grpc_metadata_array md;
    int cancelled;              /* RECV_CLOSE_ON_SERVER reported a cancel */
    bool closed;
    bool md_sent;
    bool finished;
    volatile int *cancel_target;/* set to 1 when the client cancels or goes away */
    uint32_t time_limit_ms;     /* [query] timeout of the admitted statement (0 = none) */
    uint64_t deadline_ns;       /* CLOCK_MONOTONIC admission + time_limit_ms: its queries stop
                                   with EXCEEDED_TIME_LIMIT past it (0 = none) */
    char peer[128];
    sqe_principal *principal;   /* the authenticated caller (a reference): every statement of
                                   the call runs as it (flight_open_conn); its token, when it
                                   has one, is the one REST catalogs get */
    char *session_key;          /* "principal:<user>@<peer>" (no token), "principal:<user>@
                                   bearer:<token>" (a REST catalog's token: not an SQE session,
                                   never saved), else the SQE session token */
    char *reply_authorization;  /* sent in the initial metadata (Handshake) */
    int grpc_status;            /* status to send for an error (0 = from the error code) */
    bool idle_expired;          /* a send waited stream_idle_ms: the call was cancelled */
} flight_call;

/* ---- call I/O (flight_server.c) ---------------------------------------------------------- */

/* Receives the next request message into a malloc'ed buffer (*out, *len); *out = NULL at the end
 * of the client's stream. Fails (IO_ERROR) when the call broke. */
int flight_call_recv(flight_call *fc, uint8_t **out, size_t *len, sqe_error *err);
/* Sends one message (initial metadata first if not sent yet). Takes ownership of slice.
 * Returns SQE_OK once gRPC accepted it; USER_CANCELED when the client is gone. */
int flight_call_send_slice(flight_call *fc, grpc_slice slice, sqe_error *err);
/* Packs and sends a protobuf-c message. */
int flight_call_send_msg(flight_call *fc, const ProtobufCMessage *msg, sqe_error *err);
/* Non-blocking look at the completion queue: notices a client cancel. Returns true when the
 * call is cancelled. */
bool flight_call_poll_cancel(flight_call *fc);
/* The request's metadata value for key (lower-case), or NULL; *len gets its length. */
const char *flight_call_header(const flight_call *fc, const char *key, size_t *len);

/* ---- sessions and registries (flight_state.c) ---------------------------------------------- */

int64_t flight_now_ms(void);
/* Writes a random 32-hex-digit handle into out (at least 33 bytes). */
void flight_random_handle(char *out);
/* Finds or creates the session for key (caller holds no lock). Returns a copy of its catalog and
 * schema into *catalog / *schema (malloc'ed or NULL). */
int flight_session_touch(flight_server *srv, const char *key, const char *principal,
                         char **catalog, char **schema, sqe_error *err);
/* Sets catalog and/or schema (NULL = unchanged, "" = reset) of session key. */
int flight_session_set(flight_server *srv, const char *key, const char *catalog,
                       const char *schema, sqe_error *err);
/* Sets (value != NULL) or removes (value NULL) one session property or SQL prepared statement
 * of session key. Properties keep the order they were first set in. */
typedef enum flight_session_list { FLIGHT_SESSION_PROPERTIES, FLIGHT_SESSION_PREPARED } flight_session_list;
int flight_session_put(flight_server *srv, const char *key, flight_session_list list,
                       const char *name, const char *value, sqe_error *err);
/* Applies what res reports its statement changed to session key's state (srv_session_note);
 * *changed tells whether anything did. */
int flight_session_note_result(flight_server *srv, const char *key, const sqe_result *res,
                               bool *changed, sqe_error *err);
/* A deep copy of session key's state (principal included) into *out; the caller clears it with
 * srv_session_state_clear. On error *out is empty. */
int flight_session_snapshot(flight_server *srv, const char *key, srv_session_state *out,
                            sqe_error *err);
/* A session the server does not know yet (restart): when session key's state is still empty,
 * moves the saved state into it (saved keeps only its principal). */
void flight_session_adopt(flight_server *srv, const char *key, srv_session_state *saved);
void flight_session_drop(flight_server *srv, const char *key);
/* Records, once, how the caller of session key authenticated and from where (the first call
 * of a session is the one that opened it). */
void flight_session_describe(flight_server *srv, const char *key, const sqe_principal *p,
                             const char *peer);
/* A statement of session key starts (+1) or ends (-1): the session is active meanwhile.
 * Caller holds srv->lock. */
void flight_session_running_locked(flight_server *srv, const char *key, int delta);

/* ---- session state and statements (flight_session.c) -------------------------------------- */

/* Gives conn the call's session state: catalog, schema, time zone, properties and SQL prepared
 * statements, through the connection setters (srv_session_apply). Errors carry no position. */
int flight_session_restore(flight_call *fc, sqe_conn *conn, sqe_error *err);
/* After a statement ran successfully: records in the session what its result reports it
 * changed (USE, SET/RESET SESSION, PREPARE, DEALLOCATE PREPARE) and, when anything did, saves
 * the session through hooks.session_save. */
int flight_session_note(flight_call *fc, const sqe_result *res, sqe_error *err);
/* Saves the session's state through hooks.session_save (token sessions only; failures are
 * ignored: the in-memory session stays right). */
void flight_session_save(flight_call *fc);
/* Does sql return rows (a query, SHOW, DESCRIBE, EXPLAIN, or EXECUTE of a prepared statement
 * of conn that is one), as the engine classifies it (sqe_statement_classify)? false when it
 * does not parse. */
bool flight_statement_returns_rows(sqe_conn *conn, const char *sql);
void flight_state_free_all(flight_server *srv);
void flight_prepared_free(flight_prepared *p);
/* Frees a ticket (already unlinked), releasing its admission and running count. Caller holds
 * srv->lock. */
void flight_ticket_free(flight_server *srv, flight_ticket *t);
/* Drops tickets older than opts.ticket_timeout_ms (not in use). Caller holds srv->lock. */
void flight_tickets_expire_locked(flight_server *srv);

/* ---- handlers ---------------------------------------------------------------------------- */

/* Each handler serves the call's request (already received: req, len) and either sends the
 * reply messages and returns SQE_OK (the caller sends status OK) or returns an error (the
 * caller sends the mapped status and message). */
int flight_get_flight_info(flight_call *fc, const uint8_t *req, size_t len, sqe_error *err);
int flight_get_schema(flight_call *fc, const uint8_t *req, size_t len, sqe_error *err);
int flight_do_get(flight_call *fc, const uint8_t *req, size_t len, sqe_error *err);
int flight_do_action(flight_call *fc, const uint8_t *req, size_t len, sqe_error *err);
int flight_list_actions(flight_call *fc, sqe_error *err);
/* DoPut: req is the first FlightData message. */
int flight_do_put(flight_call *fc, const uint8_t *req, size_t len, sqe_error *err);

/* Opens a connection for the call's session (catalog, schema, user, cancel flag). */
int flight_open_conn(flight_call *fc, sqe_conn **out, volatile int *cancel, sqe_error *err);
/* Admission around a statement: start returns an error when draining or over a limit. */
int flight_stmt_begin(flight_call *fc, size_t sql_bytes, sqe_error *err);
void flight_stmt_end(flight_call *fc);

/* Streams res as FlightData (schema, then batches under max_message_bytes). not_null may be
 * NULL (every column nullable). The result is not destroyed. */
int flight_stream_result(flight_call *fc, sqe_result *res, const bool *not_null,
                         sqe_error *err);
/* The encapsulated IPC schema of res (FlightInfo.schema form) appended to *out. */
int flight_result_schema(const sqe_result *res, const bool *not_null, bool framed,
                         arrow_buf *out, sqe_error *err);

/* Statement helpers (flight_sql.c). flight_prepared_copy: a private copy of the session's prepared statement `handle`.
 * flight_run_statement: runs sql or prepared p (parameter row `row`) on a new connection; on
 * success *conn, *stmt (may be NULL) and *res are the caller's. flight_statement_schema: the
 * encapsulated result schema (empty for statements that are not queries; queries are planned
 * but not fetched). flight_send_data: sends one FlightData. */
int flight_prepared_copy(flight_call *fc, const uint8_t *handle, size_t len,
                         flight_prepared **out, sqe_error *err);
int flight_run_statement(flight_call *fc, const char *sql, const flight_prepared *p,
                         uint32_t row, volatile int *cancel, sqe_conn **conn, sqe_stmt **stmt,
                         sqe_result **res, sqe_error *err);
int flight_statement_schema(flight_call *fc, const char *sql, const flight_prepared *p,
                            arrow_buf *schema, sqe_error *err);
int flight_send_data(flight_call *fc, const uint8_t *header, size_t hlen, const uint8_t *body,
                     size_t blen, sqe_error *err);

/* ---- metadata (flight_meta.c) and SqlInfo (flight_sqlinfo.c) ------------------------------ */

/* Builds the in-memory result of a metadata command (catalogs, schemas, tables, table types,
 * keys, xdbc types); *not_null gets a static nullability array. */
int flight_meta_result(flight_call *fc, const flight_cmd *cmd, sqe_result **out,
                       const bool **not_null, sqe_error *err);
/* The SqlInfo result: FlightData header/body of the schema and of the one batch for the
 * requested ids (n = 0: all). framed_schema gets the encapsulated schema. */
int flight_sqlinfo_encode(const uint32_t *ids, size_t n, arrow_buf *schema_header,
                          arrow_buf *batch_header, arrow_buf *batch_body, sqe_error *err);

#endif
