/*
 * flight_server.h: the Arrow Flight SQL server (gRPC, service arrow.flight.protocol.FlightService)
 * serving one sqe_db.
 *
 * The server runs on the gRPC C core with generic (unregistered) methods: a pool of worker
 * threads, each with its own completion queue, takes one call at a time and serves it to the end
 * (a DoGet stream sends a batch, waits until gRPC took it, then pulls the next chunk from the
 * engine, so a slow client slows the query instead of filling memory; a client that stops
 * reading is cancelled after stream_idle_ms, and DoGet streams are capped per user and in
 * total so stalled readers cannot take every worker). Flight SQL commands are
 * protobuf messages packed in google.protobuf.Any (proto/flight_sql.proto). Authentication,
 * session tokens and admission go through srv_hooks. See src/server/flight/README.md.
 */
#ifndef SQE_SERVER_FLIGHT_FLIGHT_SERVER_H
#define SQE_SERVER_FLIGHT_FLIGHT_SERVER_H

#include <stddef.h>
#include <stdint.h>

#include "server/srv_hooks.h"
#include "sqe/sqe.h"
#include "sqe/sqe_values.h"

/* Settings; flight_server_options_init fills the defaults. Strings are copied by create. */
typedef struct flight_server_options {
    const char *bind_address;     /* IPv4 or IPv6 literal; default "127.0.0.1" */
    uint16_t port;                /* default 32010; 0 = any free port (see flight_server_port) */
    uint32_t threads;             /* calls served at once (one worker thread each); 0 = 32 */
    size_t max_message_bytes;     /* largest FlightData the server sends (record batches are
                                     split below it); default 4 MiB, at least 64 KiB */
    size_t max_receive_bytes;     /* largest message a client may send; default 64 MiB */
    uint32_t ticket_timeout_ms;   /* a result nobody fetched with DoGet for this long is
                                     dropped; default 300000 */
    uint32_t request_timeout_ms;  /* slow clients: a connection must finish its HTTP/2 (and TLS)
                                     handshake within this, and must answer the server's
                                     keepalive PING within this after each idle period of this
                                     length, else it is closed; calls and idle connections that
                                     answer pings are never cut. Default 30000 (as the Trino
                                     port's request timeout), at least 1000 */
    uint32_t max_idle_ms;         /* a connection without any call for this long is closed
                                     (GOAWAY); this also ends clients that trickle bytes forever
                                     without completing a request. Default 3600000, the idle
                                     time after which an anonymous session (keyed by its
                                     connection) may be dropped anyway */
    uint32_t max_streams_per_user;/* DoGet result streams one user may have open at once; more
                                     fail with RESOURCE_EXHAUSTED naming the limit. Default
                                     (0) a quarter of threads, at least 1. Streams of all users
                                     together never take more than threads - threads / 4
                                     workers, so other calls always find one */
    uint32_t stream_idle_ms;      /* a call whose client takes no message for this long (flow
                                     control: it stopped reading) is cancelled with
                                     DEADLINE_EXCEEDED and its worker freed; default 300000,
                                     UINT32_MAX = never */
    size_t max_header_bytes;      /* largest request header frame (gRPC metadata; gRPC 1.51
                                     checks it per HEADERS / CONTINUATION frame, not per
                                     block) a client may send; default 16 KiB, at least 1 KiB */
    size_t transport_memory_bytes;/* memory gRPC may buffer for all connections together (read
                                     buffers, calls, request headers being parsed): beyond it
                                     gRPC resets streams and closes connections, which bounds
                                     a header block continued forever (CONTINUATION flood).
                                     Default 64 MiB, at least 4 MiB; leave room for a few
                                     max_receive_bytes messages being received */
    const char *tls_cert_path;    /* PEM certificate chain; NULL (with tls_key_path NULL) =
                                     plaintext */
    const char *tls_key_path;     /* PEM private key */
    srv_hooks hooks;              /* all NULL = allow everything (embedded default) */
} flight_server_options;

typedef struct flight_server flight_server;

/* Fills *opts with the defaults above (hooks zeroed). */
void flight_server_options_init(flight_server_options *opts);

/* Starts listening on bind_address:port and serving Flight SQL on db, which must stay open until
 * flight_server_destroy returns. opts is copied (strings and hooks too; hooks.ud is borrowed). On
 * success the caller owns *out; on error (bad address, port in use, unreadable TLS files) *out
 * is NULL and nothing is left running. */
int flight_server_create(sqe_db *db, const flight_server_options *opts, flight_server **out,
                         sqe_error *err);

/* The port the server listens on (the chosen one when opts->port was 0). */
uint16_t flight_server_port(const flight_server *srv);

/* Starts a graceful shutdown: new statements get UNAVAILABLE ("server is shutting down") while
 * running ones (including DoGet streams) continue. Waits until none runs or deadline_ms passed,
 * then cancels the rest. Returns the number of statements still running at the end (0 when all
 * drained). Call it from any thread but a server worker. */
uint32_t flight_server_drain(flight_server *srv, uint32_t deadline_ms);
/* The first half of flight_server_drain: refuses new statements from now on, waits for nothing
 * (so a process with several listeners stops them all at once, then waits once). NULL ignored. */
void flight_server_begin_drain(flight_server *srv);

/* Stops the server: cancels every call, joins the workers, frees pending results and sessions.
 * NULL is ignored. */
void flight_server_destroy(flight_server *srv);

/* Lists the server's sessions for system.runtime.sessions: emit(ctx, row, err) per session
 * (session_id "flight-<n>", a counter, never the token), with the server's lock held (emit
 * must not call back into the server). Returns SQE_OK or emit's first error. */
int flight_server_list_sessions(flight_server *srv, sqe_session_emit emit, void *ctx,
                                sqe_error *err);

#endif
