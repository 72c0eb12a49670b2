/*
 * trino_server.h: the Trino client REST protocol server (POST /v1/statement, nextUri paging,
 * DELETE to cancel, GET /v1/info), serving one sqe_db.
 *
 * The server owns an HTTP port (server/core/http_server.h: a route table with the Trino and the
 * health routes; TLS, limits and hardening are the shared server's) and a query registry:
 * every statement runs on its own worker thread with its own session (sqe_conn) restored from
 * the request headers, and its rows are handed out as JSON pages. See
 * docs/trino-protocol.md for what the protocol covers.
 */
#ifndef SQE_SERVER_TRINO_TRINO_SERVER_H
#define SQE_SERVER_TRINO_TRINO_SERVER_H

#include <stddef.h>
#include <stdint.h>

#include "server/core/health.h"
#include "server/core/http_server.h"
#include "server/srv_hooks.h"
#include "server/trino/trino_oauth2.h"
#include "sqe/sqe.h"
#include "sqe/sqe_values.h"

/* Settings; trino_server_options_init fills the defaults (loopback, port 8080). `sqe serve`
 * fills it from the configuration ([coordinator], [query]) and its command line. */
typedef struct trino_server_options {
    const char *bind_address;     /* IPv4 or IPv6 literal to listen on; default "127.0.0.1" */
    uint16_t port;                /* default 8080; 0 = any free port (see trino_server_port) */
    uint32_t http_threads;        /* HTTP thread pool size; 0 = max(8, 2 * cores) */
    size_t max_sql_bytes;         /* larger POST bodies get 413; default 1 MiB */
    uint32_t page_rows;           /* rows per result page at most; default 8192 */
    size_t page_bytes;            /* JSON bytes per page, roughly (a page closes after the row
                                     that crosses it); default 1 MiB */
    uint32_t max_wait_ms;         /* how long a GET waits for the next page; default 1000 */
    uint32_t max_queries;         /* queries in progress at once (queued, running, or with
                                     results not yet fully fetched); a statement beyond it fails
                                     with QUERY_QUEUE_FULL. Finished queries do not count.
                                     Default 1000 */
    uint32_t max_running;         /* statements executing at once; the rest wait QUEUED;
                                     default 64 */
    uint32_t idle_timeout_ms;     /* a query nobody fetched for this long is canceled and
                                     dropped; default 300000 */
    uint32_t retain_ms;           /* a finished query answers retries (the last token again)
                                     this long after its last request; default 5000 */
    uint32_t max_retained;        /* finished queries kept for retries at most (the least
                                     recently used go first); default 4096 */
    size_t max_retained_bytes;    /* and at most this much memory for them; default 64 MiB */
    const char *environment;      /* reported by /v1/info; default "sqe" */
    const srv_hooks *hooks;       /* authentication and admission (must outlive the server);
                                     NULL = X-Trino-User is trusted, no limits */
    health_state *health;         /* readiness shared with the other listeners (must outlive
                                     the server); NULL = ready from start until a drain */
    const char *tls_cert_file;    /* PEM certificate chain and key: both set = HTTPS only */
    const char *tls_key_file;
    uint32_t request_timeout_ms;  /* a request's headers and body must arrive within this
                                     (slow clients are disconnected); default 30000 */
    uint32_t connection_timeout_s; /* an idle connection is closed after this; default 60 */
    const trino_oauth2_options *oauth2; /* Trino OAuth2 external authentication (its 401
                                      challenge and /oauth2/ routes; trino_oauth2.h), read
                                      during create; NULL = none */
} trino_server_options;

typedef struct trino_server trino_server;

/* Fills *opts with the defaults above. */
void trino_server_options_init(trino_server_options *opts);

/* Starts listening on opts->bind_address:opts->port and serving queries on db, which must stay
 * open until trino_server_destroy returns. opts is copied (its strings too). On success the
 * caller owns *out (trino_server_destroy); on error (bad address, port in use) *out is NULL and
 * nothing is left running. */
int trino_server_create(sqe_db *db, const trino_server_options *opts, trino_server **out,
                        sqe_error *err);

/* The port the server listens on (the chosen one when opts->port was 0). */
uint16_t trino_server_port(const trino_server *srv);

/* The HTTP server of the Trino port (borrowed; lives until trino_server_destroy), to put more
 * route tables on the same port (http_server_add_routes): the Trino table and health.c's are
 * already there. */
http_server *trino_server_http(trino_server *srv);

/* Authentication: with opts->hooks every request to a route except /v1/info, /healthz and
 * /readyz is authenticated (unknown paths get 404 and wrong methods 405 + Allow first) through hooks->authenticate (the Authorization header, X-Trino-User and the peer
 * address); a failure is 401 with "WWW-Authenticate: Basic realm=\"sqe\"". The statement runs as
 * the authenticated principal. Every statement passes hooks->admit first (a refusal is a FAILED
 * result naming the limit) and is canceled with EXCEEDED_TIME_LIMIT at the timeout admit gave.
 *
 * Starts a graceful shutdown: new statements are refused (503, SERVER_SHUTTING_DOWN) while
 * queries already submitted keep running and keep serving their pages. Waits until every query
 * has finished and been fetched (or canceled), or until deadline_ms passed, then cancels what is
 * left. Returns the number of queries still executing at the end (0 when all drained). Safe to
 * call from any thread except an HTTP handler. */
uint32_t trino_server_drain(trino_server *srv, uint32_t deadline_ms);
/* The first half of trino_server_drain: health says draining and new statements are refused from
 * now on; waits for nothing (see flight_server_begin_drain). */
void trino_server_begin_drain(trino_server *srv);

/* Stops the HTTP daemon, cancels every query, waits for the worker threads and frees the
 * server. Worker threads still inside a long engine call are waited for (the engine has no
 * cancel hook yet; see docs/trino-protocol.md). NULL is ignored. */
void trino_server_destroy(trino_server *srv);

/* Lists the queries in progress as sessions for system.runtime.sessions (the Trino protocol
 * keeps its session in the client: what the server holds of one is its open queries; the
 * session_id is the query id, which without the nextUri slug grants nothing). emit(ctx, row,
 * err) per query, with the server's locks held (emit must not call back into the server).
 * Returns SQE_OK or emit's first error. */
int trino_server_list_sessions(trino_server *srv, sqe_session_emit emit, void *ctx,
                               sqe_error *err);

#endif
