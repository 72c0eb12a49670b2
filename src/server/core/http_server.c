/*
 * http_server.c: one libmicrohttpd listener with a route table (see http_server.h).
 *
 * INTERFACE: http_server_options_init, http_server_create, http_server_add_routes,
 *   http_server_port, http_server_scheme, http_server_guard_kills, http_server_destroy;
 *   http_request_header, http_request_headers, http_request_peer, http_request_base_uri;
 *   http_reply_reset, http_reply_text, http_reply_take, http_reply_header (http_server.h).
 * NOTES: MHD runs an internal polling thread with a thread pool (MHD_USE_AUTO picks epoll). The
 * access handler is called once with the headers (framing check, route lookup, early 413), once
 * per body piece, and once at the end, where the request is answered: 404 / 405, pre_auth,
 * authentication, 413, the handler. A request's route is copied into its context at the first
 * call, so a table added meanwhile never moves it. The route list is under a read-write lock;
 * lookups take the read side. Bodies up to 16 x a route's max_body are read and dropped before
 * the 413, so the client sees the answer rather than a reset while it still sends; a larger
 * one is answered at once (MHD then closes the connection without reading it).
 */
#include "server/core/http_server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/strbuf.h"
#include "server/core/http_guard.h"
#include "server/core/http_strict.h"

#define DEFAULT_CONNECTION_MEMORY (256 * 1024)
#define DEFAULT_CONNECTION_TIMEOUT_S 60
#define DEFAULT_REQUEST_TIMEOUT_MS 30000
#define DEFAULT_CONNECTION_LIMIT 1000
#define MAX_PEM_BYTES (1 << 20)
#define DISCARD_FACTOR 16
#define TEXT "text/plain; charset=utf-8"
/* HTTPS: TLS 1.3 and 1.2 only, forward-secret (ECDHE) key exchange, AEAD ciphers only (no
 * static RSA, no CBC, no SHA-1 MACs), as the Flight SQL port. */
#define TLS_PRIORITIES                                                                          \
    "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2:-CIPHER-ALL:+AES-256-GCM:+AES-128-GCM:"        \
    "+CHACHA20-POLY1305:-MAC-ALL:+AEAD:-KX-ALL:+ECDHE-ECDSA:+ECDHE-RSA"

typedef struct route_entry {
    http_route r;
    void *ud;
} route_entry;

struct http_server {
    http_server_options opts;
    char *bind_address, *user_header;
    struct MHD_Daemon *daemon;
    http_guard *guard;
    char *tls_cert, *tls_key; /* PEM text, for HTTPS */
    const char *scheme;
    uint16_t port;
    pthread_rwlock_t lock; /* routes */
    route_entry *routes;
    size_t n_routes;
};

typedef enum lookup { FOUND, NO_PATH, NO_METHOD } lookup;

/* One request's state, from its first access-handler call to its completion. */
typedef struct req_ctx {
    lookup found;
    route_entry route;   /* FOUND: a copy */
    char allow[96];      /* NO_METHOD: the Allow header */
    strbuf body;
    bool too_large;
    bool replied;
} req_ctx;

/* --- replies -------------------------------------------------------------------------------- */

void http_reply_reset(http_reply *r) {
    free(r->body);
    for (uint32_t i = 0; i < r->n_headers; i++) free(r->headers[i].value);
    free(r->headers);
    memset(r, 0, sizeof *r);
}

int http_reply_take(http_reply *r, unsigned status, const char *content_type, char *body,
                    size_t len) {
    http_reply_reset(r);
    r->status = status;
    r->content_type = content_type;
    r->body = body;
    r->body_len = body ? len : 0;
    return SQE_OK;
}

int http_reply_text(http_reply *r, unsigned status, const char *content_type, const char *body) {
    char *copy = strdup(body ? body : "");
    if (!copy) {
        http_reply_reset(r);
        r->status = 500;
        return SQE_ERR_OUT_OF_MEMORY;
    }
    return http_reply_take(r, status, content_type ? content_type : TEXT, copy, strlen(copy));
}

int http_reply_header(http_reply *r, const char *name, const char *value) {
    char *copy = strdup(value);
    http_header *grown = copy ? realloc(r->headers, (r->n_headers + 1) * sizeof *grown) : NULL;
    if (!grown) {
        free(copy);
        return SQE_ERR_OUT_OF_MEMORY;
    }
    r->headers = grown;
    grown[r->n_headers].name = name;
    grown[r->n_headers].value = copy;
    r->n_headers++;
    return SQE_OK;
}

/* Queues r (and frees it). */
static enum MHD_Result send_reply(struct MHD_Connection *c, http_reply *r) {
    struct MHD_Response *resp;
    if (r->body && r->body_len) {
        resp = MHD_create_response_from_buffer(r->body_len, r->body, MHD_RESPMEM_MUST_FREE);
        if (resp) r->body = NULL; /* MHD frees it */
    } else {
        resp = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
    }
    if (!resp) {
        http_reply_reset(r);
        return MHD_NO;
    }
    if (r->content_type) MHD_add_response_header(resp, "Content-Type", r->content_type);
    for (uint32_t i = 0; i < r->n_headers; i++)
        MHD_add_response_header(resp, r->headers[i].name, r->headers[i].value);
    enum MHD_Result ret = MHD_queue_response(c, r->status ? r->status : 500, resp);
    MHD_destroy_response(resp);
    http_reply_reset(r);
    return ret;
}

static enum MHD_Result send_text(struct MHD_Connection *c, unsigned status, const char *text,
                                 const char *hname, const char *hvalue) {
    http_reply r;
    memset(&r, 0, sizeof r);
    http_reply_text(&r, status, TEXT, text);
    if (hname && r.status == status) http_reply_header(&r, hname, hvalue);
    return send_reply(c, &r);
}

/* --- requests ------------------------------------------------------------------------------- */

const char *http_request_header(const http_request *req, const char *name) {
    return MHD_lookup_connection_value(req->conn, MHD_HEADER_KIND, name);
}

typedef struct header_walk {
    bool (*fn)(void *ctx, const char *name, const char *value);
    void *ctx;
} header_walk;

static enum MHD_Result walk_header(void *cls, enum MHD_ValueKind kind, const char *key,
                                   const char *value) {
    (void)kind;
    header_walk *w = cls;
    if (!key || !value) return MHD_YES;
    return w->fn(w->ctx, key, value) ? MHD_YES : MHD_NO;
}

const char *http_request_query(const http_request *req, const char *name) {
    return MHD_lookup_connection_value(req->conn, MHD_GET_ARGUMENT_KIND, name);
}

void http_request_headers(const http_request *req,
                          bool (*fn)(void *ctx, const char *name, const char *value), void *ctx) {
    header_walk w = {fn, ctx};
    MHD_get_connection_values(req->conn, MHD_HEADER_KIND, walk_header, &w);
}

static void peer_of(struct MHD_Connection *c, char *buf, size_t n) {
    buf[0] = 0;
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (!ci || !ci->client_addr) return;
    char ip[INET6_ADDRSTRLEN];
    const struct sockaddr *sa = ci->client_addr;
    if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *a = (const struct sockaddr_in *)sa;
        if (inet_ntop(AF_INET, &a->sin_addr, ip, sizeof ip))
            snprintf(buf, n, "%s:%u", ip, ntohs(a->sin_port));
    } else if (sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)sa;
        if (inet_ntop(AF_INET6, &a->sin6_addr, ip, sizeof ip))
            snprintf(buf, n, "[%s]:%u", ip, ntohs(a->sin6_port));
    }
}

void http_request_peer(const http_request *req, char *buf, size_t n) { peer_of(req->conn, buf, n); }

void http_request_base_uri(const http_request *req, char *buf, size_t n) {
    const http_server *srv = req->srv;
    const char *host = http_request_header(req, "Host");
    bool ok = host && *host && strlen(host) < 256;
    for (const char *p = host; ok && *p; p++) {
        char c = *p;
        ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
             c == '.' || c == '-' || c == ':' || c == '[' || c == ']' || c == '_';
    }
    if (ok)
        snprintf(buf, n, "%s://%s", srv->scheme, host);
    else if (strchr(srv->bind_address, ':'))
        snprintf(buf, n, "%s://[%s]:%u", srv->scheme, srv->bind_address, srv->port);
    else
        snprintf(buf, n, "%s://%s:%u", srv->scheme, srv->bind_address, srv->port);
}

/* --- routing -------------------------------------------------------------------------------- */

static bool path_matches(const http_route *r, const char *url) {
    if (r->flags & HTTP_ROUTE_PREFIX) return !strncmp(url, r->path, strlen(r->path));
    return !strcmp(url, r->path);
}

/* Finds the route for method and url into ctx (FOUND), or the Allow list of the path's methods
 * (NO_METHOD), or NO_PATH. */
static void route_lookup(http_server *srv, const char *method, const char *url, req_ctx *ctx) {
    ctx->found = NO_PATH;
    size_t used = 0;
    pthread_rwlock_rdlock(&srv->lock);
    for (size_t i = 0; i < srv->n_routes; i++) {
        const route_entry *e = &srv->routes[i];
        if (!path_matches(&e->r, url)) continue;
        if (!strcmp(e->r.method, method)) {
            ctx->route = *e;
            ctx->found = FOUND;
            break;
        }
        ctx->found = NO_METHOD;
        /* the methods of the path, each once, in table order */
        size_t ml = strlen(e->r.method);
        bool seen = false;
        for (const char *p = ctx->allow; *p && !seen;) {
            const char *end = strstr(p, ", ");
            size_t l = end ? (size_t)(end - p) : strlen(p);
            seen = l == ml && !strncmp(p, e->r.method, ml);
            p = end ? end + 2 : p + l;
        }
        if (!seen && used + ml + 3 < sizeof ctx->allow)
            used += (size_t)snprintf(ctx->allow + used, sizeof ctx->allow - used, "%s%s",
                                     used ? ", " : "", e->r.method);
    }
    pthread_rwlock_unlock(&srv->lock);
}

int http_server_add_routes(http_server *srv, const http_route *routes, size_t n, void *ud) {
    pthread_rwlock_wrlock(&srv->lock);
    route_entry *grown = realloc(srv->routes, (srv->n_routes + n) * sizeof *grown);
    if (!grown && n) {
        pthread_rwlock_unlock(&srv->lock);
        return SQE_ERR_OUT_OF_MEMORY;
    }
    srv->routes = grown;
    for (size_t i = 0; i < n; i++) {
        grown[srv->n_routes + i].r = routes[i];
        grown[srv->n_routes + i].ud = ud;
    }
    srv->n_routes += n;
    pthread_rwlock_unlock(&srv->lock);
    return SQE_OK;
}

/* --- authentication ------------------------------------------------------------------------- */

/* True when the client closed its end of the connection (end of file waiting on the socket):
 * its password is then not checked. */
static bool client_gone(void *ctx) {
    struct MHD_Connection *c = ctx;
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (!ci || ci->connect_fd < 0) return false;
    char b;
    ssize_t n = recv(ci->connect_fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
    return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

/* Authenticates c through the hooks. Returns SQE_OK with *principal (a reference), or the hook's
 * error with *answered set to what was queued (401; 503 + Retry-After; MHD_NO = close). */
static int authenticate(http_server *srv, const http_request *hr, sqe_principal **principal,
                        enum MHD_Result *answered) {
    struct MHD_Connection *c = hr->conn;
    const srv_hooks *hooks = srv->opts.hooks;
    char peer[80];
    peer_of(c, peer, sizeof peer);
    sqe_error e;
    err_clear(&e);
    const char *authz = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
    const char *user =
        srv->user_header ? MHD_lookup_connection_value(c, MHD_HEADER_KIND, srv->user_header)
                         : NULL;
    int rc = hooks->authenticate_cancellable
                 ? hooks->authenticate_cancellable(hooks->ud, authz, user, peer[0] ? peer : NULL,
                                                   client_gone, c, principal, &e)
                 : hooks->authenticate(hooks->ud, authz, user, peer[0] ? peer : NULL, principal,
                                       &e);
    if (rc == SQE_OK) return SQE_OK;
    char msg[600];
    if (rc == SQE_ERR_USER_CANCELED) {
        *answered = MHD_NO; /* nobody to answer: close */
    } else if (rc == SQE_ERR_QUERY_QUEUE_FULL) {
        /* too busy to check the credentials (the trino clients retry a 503 by themselves) */
        snprintf(msg, sizeof msg, "Service unavailable: %s", e.message[0] ? e.message : "server busy");
        *answered = send_text(c, 503, msg, "Retry-After", "1");
    } else {
        /* a Basic challenge: clients then send their configured credentials; a refused
         * bearer token gets RFC 6750's invalid_token (the reason is in the body) */
        snprintf(msg, sizeof msg, "Unauthorized: %s",
                 e.message[0] ? e.message : "authentication failed");
        bool bearer = authz && strncasecmp(authz, "Bearer ", 7) == 0;
        http_reply r;
        memset(&r, 0, sizeof r);
        if (http_reply_text(&r, 401, TEXT, msg) == SQE_OK &&
            http_reply_header(&r, "WWW-Authenticate",
                              bearer ? "Bearer realm=\"sqe\", error=\"invalid_token\""
                                     : "Basic realm=\"sqe\"") == SQE_OK &&
            srv->opts.challenge)
            srv->opts.challenge(srv->opts.challenge_ud, hr, &r); /* e.g. Trino's OAuth2 login */
        *answered = send_reply(c, &r);
    }
    return rc ? rc : SQE_ERR_GENERIC_INTERNAL_ERROR;
}

/* --- the access handler --------------------------------------------------------------------- */

static enum MHD_Result answer_too_large(http_server *srv, struct MHD_Connection *c,
                                        const char *url, const char *method, req_ctx *ctx) {
    if (!ctx->route.r.too_large)
        return send_text(c, 413, "Request body too large", NULL, NULL);
    http_request req = {.method = method, .path = url, .conn = c, .srv = srv};
    http_reply r;
    memset(&r, 0, sizeof r);
    ctx->route.r.too_large(ctx->route.ud, &req, &r);
    return send_reply(c, &r);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
                              const char *method, const char *version, const char *upload_data,
                              size_t *upload_data_size, void **con_cls) {
    (void)version;
    http_server *srv = cls;
    req_ctx *ctx = *con_cls;
    if (!ctx) { /* the headers are in */
        ctx = calloc(1, sizeof *ctx);
        if (!ctx) return MHD_NO;
        strbuf_init(&ctx->body);
        *con_cls = ctx;
        const char *why = NULL;
        if (!http_strict_check(c, &why)) { /* framing a proxy could read differently */
            ctx->replied = true;
            http_guard_request_done(c);
            return http_strict_refuse(c, why);
        }
        route_lookup(srv, method, url, ctx);
        size_t max = ctx->found == FOUND ? ctx->route.r.max_body : 0;
        if (max) {
            const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
            unsigned long long len = cl ? strtoull(cl, NULL, 10) : 0;
            if (len > max) ctx->too_large = true;
            if (len > (unsigned long long)max * DISCARD_FACTOR) {
                ctx->replied = true;
                return answer_too_large(srv, c, url, method, ctx);
            }
        }
        return MHD_YES;
    }
    if (*upload_data_size) {
        size_t n = *upload_data_size;
        *upload_data_size = 0;
        size_t max = ctx->found == FOUND ? ctx->route.r.max_body : 0;
        if (!max || ctx->too_large || ctx->replied) return MHD_YES; /* dropped */
        if (ctx->body.len + n > max) {
            ctx->too_large = true;
            strbuf_reset(&ctx->body);
            return MHD_YES;
        }
        strbuf_append(&ctx->body, upload_data, n);
        return MHD_YES;
    }
    if (ctx->replied) return MHD_YES;
    ctx->replied = true;
    http_guard_request_done(c);

    if (ctx->found == NO_PATH) return send_text(c, 404, "Not found", NULL, NULL);
    if (ctx->found == NO_METHOD)
        return send_text(c, 405, "Method not allowed", "Allow", ctx->allow);
    const http_route *rt = &ctx->route.r;
    http_request req = {.method = method, .path = url, .conn = c, .srv = srv};
    http_reply r;
    memset(&r, 0, sizeof r);
    if (rt->pre_auth && rt->pre_auth(ctx->route.ud, &req, &r)) return send_reply(c, &r);
    http_reply_reset(&r);
    sqe_principal *principal = NULL;
    if ((rt->flags & HTTP_ROUTE_AUTH) && srv->opts.hooks &&
        (srv->opts.hooks->authenticate || srv->opts.hooks->authenticate_cancellable)) {
        enum MHD_Result answered = MHD_NO;
        if (authenticate(srv, &req, &principal, &answered) != SQE_OK) return answered;
    }
    enum MHD_Result ret;
    if (ctx->too_large) {
        ret = answer_too_large(srv, c, url, method, ctx);
    } else {
        req.principal = principal;
        if (rt->max_body && ctx->body.len) {
            req.body = strbuf_cstr(&ctx->body);
            req.body_len = ctx->body.len;
        }
        req.body_failed = ctx->body.failed;
        rt->handler(ctx->route.ud, &req, &r);
        ret = send_reply(c, &r);
    }
    sqe_principal_unref(principal);
    return ret;
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls,
                      enum MHD_RequestTerminationCode toe) {
    (void)cls;
    (void)c;
    (void)toe;
    req_ctx *ctx = *con_cls;
    if (!ctx) return;
    strbuf_reset(&ctx->body);
    free(ctx);
    *con_cls = NULL;
}

/* --- lifecycle ------------------------------------------------------------------------------ */

void http_server_options_init(http_server_options *opts) {
    memset(opts, 0, sizeof *opts);
    opts->bind_address = "127.0.0.1";
    opts->connection_limit = DEFAULT_CONNECTION_LIMIT;
    opts->connection_memory = DEFAULT_CONNECTION_MEMORY;
    opts->connection_timeout_s = DEFAULT_CONNECTION_TIMEOUT_S;
    opts->request_timeout_ms = DEFAULT_REQUEST_TIMEOUT_MS;
}

/* Reads a PEM file (at most 1 MiB) into a new string. */
static int read_pem(const char *path, const char *what, char **out, sqe_error *err) {
    FILE *fp = fopen(path, "rb");
    if (!fp) return err_set(err, SQE_ERR_IO_ERROR, "cannot read the TLS %s %s", what, path);
    char *buf = malloc(MAX_PEM_BYTES + 1);
    size_t n = buf ? fread(buf, 1, MAX_PEM_BYTES + 1, fp) : 0;
    fclose(fp);
    if (!buf) return err_nomem(err, "TLS");
    if (n == 0 || n > MAX_PEM_BYTES || memchr(buf, 0, n) ||
        !strstr((buf[n] = 0, buf), "-----BEGIN")) {
        free(buf);
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "the TLS %s %s is not a PEM file", what,
                       path);
    }
    *out = buf;
    return SQE_OK;
}

static int fail(http_server *srv, int rc) {
    http_server_destroy(srv);
    return rc;
}

int http_server_create(const http_server_options *opts, http_server **out, sqe_error *err) {
    *out = NULL;
    http_server *srv = calloc(1, sizeof *srv);
    if (!srv) return err_nomem(err, "HTTP server");
    pthread_rwlock_init(&srv->lock, NULL);
    srv->opts = *opts;
    srv->bind_address = strdup(opts->bind_address ? opts->bind_address : "127.0.0.1");
    srv->user_header = opts->user_header ? strdup(opts->user_header) : NULL;
    if (!srv->bind_address || (opts->user_header && !srv->user_header))
        return fail(srv, err_nomem(err, "HTTP server"));
    srv->opts.bind_address = srv->bind_address;
    srv->opts.user_header = srv->user_header;
    srv->opts.tls_cert_file = srv->opts.tls_key_file = NULL; /* not kept */
    srv->opts.routes = NULL;
    srv->opts.n_routes = 0;
    if (opts->n_routes && http_server_add_routes(srv, opts->routes, opts->n_routes,
                                                 opts->routes_ud) != SQE_OK)
        return fail(srv, err_nomem(err, "HTTP server"));
    srv->scheme = "http";
    bool tls = opts->tls_cert_file && *opts->tls_cert_file;
    if (tls != (opts->tls_key_file && *opts->tls_key_file))
        return fail(srv, err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                                 "TLS needs both a certificate and a key file"));
    if (tls) {
        int trc = read_pem(opts->tls_cert_file, "certificate", &srv->tls_cert, err);
        if (!trc) trc = read_pem(opts->tls_key_file, "key", &srv->tls_key, err);
        if (trc) return fail(srv, trc);
        srv->scheme = "https";
    }

    struct sockaddr_in a4;
    struct sockaddr_in6 a6;
    struct sockaddr *addr;
    unsigned flags = MHD_USE_AUTO | MHD_USE_INTERNAL_POLLING_THREAD;
    memset(&a4, 0, sizeof a4);
    memset(&a6, 0, sizeof a6);
    if (inet_pton(AF_INET, srv->bind_address, &a4.sin_addr) == 1) {
        a4.sin_family = AF_INET;
        a4.sin_port = htons(opts->port);
        addr = (struct sockaddr *)&a4;
    } else if (inet_pton(AF_INET6, srv->bind_address, &a6.sin6_addr) == 1) {
        a6.sin6_family = AF_INET6;
        a6.sin6_port = htons(opts->port);
        addr = (struct sockaddr *)&a6;
        flags |= MHD_USE_IPv6;
    } else {
        return fail(srv, err_set(err, SQE_ERR_GENERIC_USER_ERROR,
                                 "Invalid bind address '%s' (an IPv4 or IPv6 address literal)",
                                 srv->bind_address));
    }
    unsigned threads = opts->threads;
    if (!threads) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        threads = cores > 4 ? (unsigned)(2 * cores) : 8;
        if (threads > 64) threads = 64;
    }
    int rc = http_guard_create(opts->request_timeout_ms ? opts->request_timeout_ms
                                                        : DEFAULT_REQUEST_TIMEOUT_MS,
                               &srv->guard, err);
    if (rc) return fail(srv, rc);
    unsigned conn_timeout =
        opts->connection_timeout_s ? opts->connection_timeout_s : DEFAULT_CONNECTION_TIMEOUT_S;
    unsigned conn_limit = opts->connection_limit ? opts->connection_limit : DEFAULT_CONNECTION_LIMIT;
    size_t conn_memory = opts->connection_memory ? opts->connection_memory
                                                 : (size_t)DEFAULT_CONNECTION_MEMORY;
    struct MHD_OptionItem tls_opts[] = {
        {tls ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END, 0, srv->tls_cert},
        {tls ? MHD_OPTION_HTTPS_MEM_KEY : MHD_OPTION_END, 0, srv->tls_key},
        {tls ? MHD_OPTION_HTTPS_PRIORITIES : MHD_OPTION_END, 0, (void *)TLS_PRIORITIES},
        {MHD_OPTION_END, 0, NULL},
    };
    if (tls) flags |= MHD_USE_TLS;
    srv->daemon = MHD_start_daemon(
        flags, opts->port, NULL, NULL, handle, srv, MHD_OPTION_SOCK_ADDR, addr,
        MHD_OPTION_THREAD_POOL_SIZE, threads, MHD_OPTION_CONNECTION_TIMEOUT, conn_timeout,
        MHD_OPTION_CONNECTION_LIMIT, conn_limit, MHD_OPTION_CONNECTION_MEMORY_LIMIT, conn_memory,
        MHD_OPTION_NOTIFY_COMPLETED, completed, srv, MHD_OPTION_NOTIFY_CONNECTION,
        http_guard_notify, srv->guard, MHD_OPTION_URI_LOG_CALLBACK, http_guard_uri_log,
        srv->guard, MHD_OPTION_ARRAY, tls_opts, MHD_OPTION_ARRAY, http_strict_options(),
        MHD_OPTION_END);
    if (!srv->daemon)
        return fail(srv, err_set(err, SQE_ERR_IO_ERROR,
                                 tls ? "Cannot listen on %s port %u (address in use, or the TLS "
                                       "certificate and key do not load?)"
                                     : "Cannot listen on %s port %u (address in use?)",
                                 srv->bind_address, opts->port));
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(srv->daemon, MHD_DAEMON_INFO_BIND_PORT);
    srv->port = info && info->port ? info->port : opts->port;
    *out = srv;
    return SQE_OK;
}

uint16_t http_server_port(const http_server *srv) { return srv->port; }

const char *http_server_scheme(const http_server *srv) { return srv->scheme; }

uint64_t http_server_guard_kills(http_server *srv) { return http_guard_kills(srv->guard); }

void http_server_destroy(http_server *srv) {
    if (!srv) return;
    if (srv->daemon) MHD_stop_daemon(srv->daemon);
    http_guard_destroy(srv->guard);
    free(srv->tls_cert);
    if (srv->tls_key) {
        memset(srv->tls_key, 0, strlen(srv->tls_key));
        free(srv->tls_key);
    }
    free(srv->routes);
    pthread_rwlock_destroy(&srv->lock);
    free(srv->bind_address);
    free(srv->user_header);
    free(srv);
}
