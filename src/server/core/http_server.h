/*
 * http_server.h: one HTTP(S) listener with a route table, on libmicrohttpd, shared by every
 * HTTP front end of `sqe serve` (the Trino protocol, the health endpoints; next /metrics, /mcp,
 * the web UI).
 *
 * A port is created with its TLS settings and limits (thread pool, connections, header memory,
 * idle and receive timeouts, the http_guard slowloris deadline and the http_strict framing
 * checks always on), then route tables are added to it. A route is a method and an exact path or
 * a path prefix, a handler, a body limit and whether the caller must be authenticated. The
 * server answers what no route decides, the same way on every port:
 *   - framing a proxy could read differently: 400 + Connection: close (http_strict.h);
 *   - no route for the path: 404 "Not found";
 *   - routes for the path, none for the method: 405 with "Allow: <their methods>";
 *   - a body over the route's limit: the route's too_large answer (default 413);
 *   - HTTP_ROUTE_AUTH and the hooks refuse: 401 + WWW-Authenticate Basic (Bearer invalid_token
 *     for a refused bearer token; opts.challenge may add further challenges), or 503 + Retry-After
 *     when too busy to check (hooks->authenticate_cancellable), or the connection is closed when
 *     the client left while its password was checked.
 * HEAD is a method like the others: a table that answers HEAD lists it (libmicrohttpd then sends
 * the headers without the body), so a HEAD never runs a GET handler with side effects. Bodies
 * are taken with a Content-Length only (http_strict refuses chunked ones). The URL path given to
 * handlers has no query string (http_request_query reads its parameters).
 *
 * Use: http_server_options_init, set the fields (opts.routes: the first table),
 * http_server_create (listens at once), http_server_add_routes for each further table (any
 * time; a table added while serving answers from its next request), http_server_destroy.
 * Handlers run on the thread pool and may block only for bounded waits (they hold a pool
 * thread).
 */
#ifndef SQE_SERVER_CORE_HTTP_SERVER_H
#define SQE_SERVER_CORE_HTTP_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "common/principal.h"
#include "server/srv_hooks.h"

struct MHD_Connection;
struct http_request;
struct http_reply;

/* Settings of one port; http_server_options_init fills the defaults noted. */
typedef struct http_server_options {
    const char *bind_address;      /* IPv4 or IPv6 literal; default "127.0.0.1" */
    uint16_t port;                 /* 0 = any free port (see http_server_port) */
    const char *tls_cert_file;     /* PEM chain and key, both or neither: HTTPS only, TLS 1.2+ */
    const char *tls_key_file;      /*   with ECDHE and AEAD ciphers only */
    uint32_t threads;              /* thread pool size; 0 = max(8, 2 * cores), at most 64 */
    uint32_t connection_limit;     /* open connections at most; default 1000 */
    size_t connection_memory;      /* per-connection buffer (bounds the header block: MHD
                                      answers 431 beyond); default 256 KiB */
    uint32_t connection_timeout_s; /* an idle connection is closed after this; default 60 */
    uint32_t request_timeout_ms;   /* headers and body of a request must arrive within this
                                      (http_guard); default 30000 */
    const srv_hooks *hooks;        /* authenticates HTTP_ROUTE_AUTH routes (must outlive the
                                      server); NULL = no authentication (req->principal NULL) */
    const char *user_header;       /* the header naming the claimed user, handed to
                                      authenticate (e.g. "X-Trino-User"); NULL = none */
    /* Optional: called for every 401 the hooks' refusal gives (the reply already holds the text
     * and the Basic challenge) to add further WWW-Authenticate challenges, or to replace the
     * reply (e.g. 503 when it cannot offer one now). Runs on the request's thread. */
    void (*challenge)(void *ud, const struct http_request *req, struct http_reply *reply);
    void *challenge_ud;
    const struct http_route *routes; /* a first route table, in place before the port listens */
    size_t n_routes;               /*   (as http_server_add_routes(routes, n_routes, routes_ud)) */
    void *routes_ud;
} http_server_options;

typedef struct http_server http_server;
typedef struct http_route http_route;

/* One request as a handler sees it. Everything is borrowed for the handler call. */
typedef struct http_request {
    const char *method;          /* "GET", "POST", ... (HEAD for a GET route answering HEAD) */
    const char *path;            /* the URL path, without the query string */
    const char *body;            /* the request body (NUL-terminated; may contain NULs), or
                                    NULL when the route takes none or the client sent none */
    size_t body_len;
    bool body_failed;            /* the body could not be buffered (out of memory) */
    const sqe_principal *principal; /* the authenticated caller (HTTP_ROUTE_AUTH with hooks),
                                    else NULL; sqe_principal_ref to keep it */
    struct MHD_Connection *conn; /* private: the libmicrohttpd connection */
    const http_server *srv;      /* private */
} http_request;

/* A header of a reply. */
typedef struct http_header {
    const char *name; /* static string */
    char *value;      /* malloc'd, owned by the reply */
} http_header;

/* What a handler answers; the server sends it and frees it (http_reply_reset). A handler that
 * leaves status 0 answers 500. */
typedef struct http_reply {
    unsigned status;
    const char *content_type; /* static string; NULL = none */
    char *body;               /* malloc'd, body_len bytes; NULL when empty */
    size_t body_len;
    http_header *headers;
    uint32_t n_headers;
} http_reply;

typedef void (*http_handler)(void *ud, const http_request *req, http_reply *reply);

enum {
    HTTP_ROUTE_PREFIX = 1u << 0, /* path is a prefix ("/v1/statement/queued/"), not exact */
    HTTP_ROUTE_AUTH = 1u << 1,   /* the caller must be authenticated (opts.hooks) */
};

struct http_route {
    const char *method;  /* static string: "GET", "POST", "HEAD", "DELETE", ... */
    const char *path;    /* static string */
    unsigned flags;      /* HTTP_ROUTE_* */
    size_t max_body;     /* bytes of body the handler gets; 0 = the body is read and dropped */
    http_handler handler;
    /* Optional, run before authentication: answers (returns true) a request that must not get
     * as far as the credential check (e.g. a missing user name). */
    bool (*pre_auth)(void *ud, const http_request *req, http_reply *reply);
    /* Optional: the answer for a body over max_body (default 413 text). Run without the
     * handler; before authentication when the Content-Length is more than 16 x max_body (then
     * answered at once, the body never read), else after it (the body is read and dropped). */
    void (*too_large)(void *ud, const http_request *req, http_reply *reply);
};

/* Fills *opts with the defaults. */
void http_server_options_init(http_server_options *opts);

/* Starts listening (opts copied, strings too; the TLS files are read now and not kept). On
 * success the caller owns *out (http_server_destroy); on error (bad address, port in use, TLS
 * files) *out is NULL and nothing is left running. A server with no routes answers 404. */
int http_server_create(const http_server_options *opts, http_server **out, sqe_error *err);

/* Adds the n routes of a table (copied; the strings and functions must outlive the server),
 * each called with ud. Thread-safe. A request goes to the first route, in the order added,
 * whose method and path match; list a longer prefix before a shorter one. Returns SQE_OK or
 * out of memory (nothing added). */
int http_server_add_routes(http_server *srv, const http_route *routes, size_t n, void *ud);

/* The port listened on (the chosen one when opts.port was 0). */
uint16_t http_server_port(const http_server *srv);
/* "http" or "https". */
const char *http_server_scheme(const http_server *srv);
/* Connections the receive deadline shut down so far (http_guard_kills). */
uint64_t http_server_guard_kills(http_server *srv);

/* Stops the daemon (waits for the handlers running) and frees the server. NULL is ignored. */
void http_server_destroy(http_server *srv);

/* ---- for handlers -------------------------------------------------------------------------- */

/* A request header's value (name case-insensitive; the first of repeated ones), or NULL;
 * borrowed, valid during the handler call. */
const char *http_request_header(const http_request *req, const char *name);
/* Calls fn for every request header in wire order; fn returns false to stop. */
void http_request_headers(const http_request *req,
                          bool (*fn)(void *ctx, const char *name, const char *value), void *ctx);
/* A query-string parameter's value, %-decoded (the first of repeated ones), or NULL; borrowed,
 * valid during the handler call. */
const char *http_request_query(const http_request *req, const char *name);
/* The client address as "ip:port" ("[ip]:port" for IPv6); "" when unknown. */
void http_request_peer(const http_request *req, char *buf, size_t n);
/* "scheme://host[:port]" as the client reached the server: the Host header when it is a plain
 * host name or address literal with an optional port, else the listening address. */
void http_request_base_uri(const http_request *req, char *buf, size_t n);

/* Frees what *r holds and zeroes it. */
void http_reply_reset(http_reply *r);
/* The setters below replace what *r held and return SQE_OK, or OUT_OF_MEMORY with a bare 500
 * set. A text reply; body copied; content_type NULL = "text/plain; charset=utf-8". */
int http_reply_text(http_reply *r, unsigned status, const char *content_type, const char *body);
/* A reply taking a malloc'd body of len bytes (freed on error too). */
int http_reply_take(http_reply *r, unsigned status, const char *content_type, char *body,
                    size_t len);
/* Adds a header (value copied) to *r; OUT_OF_MEMORY leaves *r as it was. */
int http_reply_header(http_reply *r, const char *name, const char *value);

#endif
