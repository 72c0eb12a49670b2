/*
 * trino_server.c: the HTTP side of the Trino client protocol on libmicrohttpd: routes, request
 * headers, body limits, replies. Queries themselves live in trino_query.c.
 *
 * INTERFACE: trino_server_options_init, trino_server_create, trino_server_port,
 *   trino_server_drain, trino_server_destroy; trino_request_reset, trino_kv_parse,
 *   trino_url_decode, trino_url_encode, trino_reply_reset, trino_reply_set (trino_int.h).
 * Routes:
 *   POST   /v1/statement                                  submit (body = SQL)
 *   HEAD   /v1/statement                                  200 (JDBC connection check)
 *   GET    /v1/statement/{queued|executing}/ID/SLUG/TOKEN next page
 *   DELETE /v1/statement/{queued|executing}/ID/SLUG/TOKEN cancel (204)
 *   GET    /v1/info, /v1/info/state                       server info
 * Anything else is 404 (405 for a known path with the wrong method).
 * NOTES: MHD runs an internal polling thread with a thread pool (MHD_USE_AUTO picks epoll);
 * handlers never block longer than max_wait_ms (a GET waiting for the next page) or a password
 * check's wait (auth_password.c's hash gate; a login over it gets 503 + Retry-After). Requests
 * whose framing a proxy could read differently (Transfer-Encoding, conflicting Content-Lengths,
 * folded or bare-LF header lines; http_strict.c) get 400 and a closed connection before any body
 * byte is read. HTTPS allows TLS 1.2+ with ECDHE and AEAD ciphers only. Request bodies are
 * bounded by max_sql_bytes (413, with a QUERY_TEXT_TOO_LARGE error in Trino's shape);
 * headers by MHD's per-connection memory limit (MHD answers 431 itself); slow clients by the
 * connection timeout. nextUri and infoUri are absolute, built from the Host header the client
 * used when it is a plain host[:port], else from the listening address.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "server/core/http_guard.h"
#include "server/core/http_strict.h"
#include "server/trino/trino_int.h"
#include "common/hex.h"

#define CONNECTION_MEMORY_LIMIT (256 * 1024) /* headers (prepared statements travel in them) */
#define CONNECTION_TIMEOUT_S 60
#define REQUEST_TIMEOUT_MS 30000
#define MAX_PEM_BYTES (1 << 20)
#define CONNECTION_LIMIT 1000
#define DISCARD_FACTOR 16 /* bodies up to 16 x max_sql_bytes are drained before the 413 */
/* HTTPS: TLS 1.3 and 1.2 only, forward-secret (ECDHE) key exchange, AEAD ciphers only (no
 * static RSA, no CBC, no SHA-1 MACs), as the Flight SQL port. */
#define TLS_PRIORITIES                                                                          \
    "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2:-CIPHER-ALL:+AES-256-GCM:+AES-128-GCM:"        \
    "+CHACHA20-POLY1305:-MAC-ALL:+AEAD:-KX-ALL:+ECDHE-ECDSA:+ECDHE-RSA"

struct trino_server {
    trino_server_options opts;
    char *bind_address;
    char *environment;
    struct MHD_Daemon *daemon;
    trino_registry *reg;
    uint16_t port;
    int64_t started_ms;
    http_guard *guard;
    health_state own_health; /* used when opts.health is NULL */
    char *tls_cert, *tls_key; /* PEM text, for HTTPS */
    const char *scheme;       /* "http" | "https" */
};

static health_state *health_of(trino_server *srv) {
    return srv->opts.health ? srv->opts.health : &srv->own_health;
}

/* --- small helpers (trino_int.h) ------------------------------------------------------------ */

void trino_request_reset(trino_request *req) {
    sqe_principal_unref(req->principal);
    free(req->sql);
    free(req->user);
    free(req->catalog);
    free(req->schema);
    free(req->time_zone);
    free(req->source);
    free(req->client_tags);
    for (uint32_t i = 0; i < req->n_session; i++) {
        free(req->session[i].name);
        free(req->session[i].value);
    }
    free(req->session);
    for (uint32_t i = 0; i < req->n_prepared; i++) {
        free(req->prepared[i].name);
        free(req->prepared[i].value);
    }
    free(req->prepared);
    free(req->header_error);
    memset(req, 0, sizeof *req);
}

char *trino_url_decode(const char *s, size_t len) {
    char *out = malloc(len + 1);
    if (!out) return NULL;
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (c == '+') {
            c = ' ';
        } else if (c == '%') {
            int hi = i + 2 < len ? hex_digit(s[i + 1]) : -1;
            int lo = i + 2 < len ? hex_digit(s[i + 2]) : -1;
            if (hi < 0 || lo < 0) {
                free(out);
                return NULL;
            }
            c = (char)(hi * 16 + lo);
            i += 2;
        }
        if (c == 0) {
            free(out);
            return NULL;
        }
        out[n++] = c;
    }
    out[n] = 0;
    return out;
}

void trino_url_encode(const char *s, strbuf *out) {
    static const char hex[] = "0123456789ABCDEF";
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        unsigned char c = *p;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
            c == '-' || c == '_' || c == '.' || c == '~') {
            strbuf_putc(out, (char)c);
        } else {
            char esc[3] = {'%', hex[c >> 4], hex[c & 15]};
            strbuf_append(out, esc, 3);
        }
    }
}

static void trim(const char **s, const char **e) {
    while (*s < *e && (**s == ' ' || **s == '\t')) (*s)++;
    while (*e > *s && ((*e)[-1] == ' ' || (*e)[-1] == '\t')) (*e)--;
}

int trino_kv_parse(const char *header, const char *text, trino_kv **items, uint32_t *n_items,
                   sqe_error *err) {
    const char *p = text;
    while (*p) {
        const char *end = strchr(p, ',');
        if (!end) end = p + strlen(p);
        const char *s = p, *e = end;
        trim(&s, &e);
        p = *end ? end + 1 : end;
        if (s == e) continue; /* empty element (",," or a trailing comma) */
        const char *eq = memchr(s, '=', (size_t)(e - s));
        if (!eq || eq == s)
            return err_set(err, SQE_ERR_GENERIC_USER_ERROR,
                           "Invalid %s header: expected name=value", header);
        if (*n_items >= 10000)
            return err_set(err, SQE_ERR_GENERIC_USER_ERROR, "Too many entries in %s", header);
        const char *ns = s, *ne = eq;
        trim(&ns, &ne);
        char *name = trino_url_decode(ns, (size_t)(ne - ns));
        char *value = trino_url_decode(eq + 1, (size_t)(e - eq - 1));
        trino_kv *grown = name && value ? realloc(*items, (*n_items + 1) * sizeof **items) : NULL;
        if (!grown) {
            free(name);
            free(value);
            if (!name || !value)
                return err_set(err, SQE_ERR_GENERIC_USER_ERROR,
                               "Invalid %s header: bad %%-escape", header);
            return err_nomem(err, "request headers");
        }
        *items = grown;
        grown[*n_items].name = name;
        grown[*n_items].value = value;
        (*n_items)++;
    }
    return SQE_OK;
}

void trino_reply_reset(trino_reply *r) {
    free(r->body);
    for (uint32_t i = 0; i < r->n_headers; i++) free(r->headers[i].value);
    free(r->headers);
    memset(r, 0, sizeof *r);
}

int trino_reply_set(trino_reply *r, unsigned status, const char *content_type, const char *body) {
    trino_reply_reset(r);
    r->status = status;
    r->content_type = content_type;
    r->body = strdup(body ? body : "");
    if (!r->body) {
        r->status = 500;
        return SQE_ERR_OUT_OF_MEMORY;
    }
    r->body_len = strlen(r->body);
    return SQE_OK;
}

/* --- requests ------------------------------------------------------------------------------- */

typedef struct conn_ctx {
    strbuf body;
    bool too_large;
    bool replied;
} conn_ctx;

typedef struct header_scan {
    trino_request *req;
    const char *host;
    sqe_error err;
    bool failed;
} header_scan;

static int64_t mono_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Replaces *slot with a copy of value (the last of repeated single-valued headers wins). */
static bool set_string(char **slot, const char *value) {
    char *copy = strdup(value);
    if (!copy) return false;
    free(*slot);
    *slot = copy;
    return true;
}

int trino_request_header(trino_request *req, const char *key, const char *value,
                         sqe_error *err) {
    if (!key || !value || strncasecmp(key, "X-Trino-", 8) != 0) return SQE_OK;
    bool ok = true;
    if (!strcasecmp(key, "X-Trino-User")) {
        if (!req->principal) ok = set_string(&req->user, value);
    } else if (!strcasecmp(key, "X-Trino-Catalog")) {
        ok = set_string(&req->catalog, value);
    } else if (!strcasecmp(key, "X-Trino-Schema")) {
        ok = set_string(&req->schema, value);
    } else if (!strcasecmp(key, "X-Trino-Time-Zone")) {
        ok = set_string(&req->time_zone, value);
    } else if (!strcasecmp(key, "X-Trino-Source")) {
        ok = set_string(&req->source, value);
    } else if (!strcasecmp(key, "X-Trino-Client-Tags")) {
        ok = set_string(&req->client_tags, value);
    } else if (!strcasecmp(key, "X-Trino-Session")) {
        return trino_kv_parse("X-Trino-Session", value, &req->session, &req->n_session, err);
    } else if (!strcasecmp(key, "X-Trino-Prepared-Statement")) {
        return trino_kv_parse("X-Trino-Prepared-Statement", value, &req->prepared,
                              &req->n_prepared, err);
    }
    return ok ? SQE_OK : err_nomem(err, "request headers");
}

static enum MHD_Result scan_header(void *cls, enum MHD_ValueKind kind, const char *key,
                                   const char *value) {
    (void)kind;
    header_scan *hs = cls;
    if (!key || !value) return MHD_YES;
    if (!strcasecmp(key, "Host")) {
        hs->host = value;
        return MHD_YES;
    }
    if (!hs->failed && trino_request_header(hs->req, key, value, &hs->err) != SQE_OK)
        hs->failed = true;
    return MHD_YES;
}

/* "http://host[:port]" as the client reached us: the Host header when it is a plain host name
 * or address literal with an optional port, else the listening address. */
static void base_uri(const trino_server *srv, const char *host, char *buf, size_t n) {
    bool ok = host && *host && strlen(host) < 256;
    for (const char *p = host; ok && *p; p++) {
        char c = *p;
        ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
             c == '.' || c == '-' || c == ':' || c == '[' || c == ']' || c == '_';
    }
    if (ok) {
        snprintf(buf, n, "%s://%s", srv->scheme, host);
    } else if (strchr(srv->bind_address, ':')) {
        snprintf(buf, n, "%s://[%s]:%u", srv->scheme, srv->bind_address, srv->port);
    } else {
        snprintf(buf, n, "%s://%s:%u", srv->scheme, srv->bind_address, srv->port);
    }
}

static enum MHD_Result send_reply(struct MHD_Connection *c, trino_reply *r) {
    struct MHD_Response *resp;
    if (r->body && r->body_len) {
        resp = MHD_create_response_from_buffer(r->body_len, r->body, MHD_RESPMEM_MUST_FREE);
        if (resp) r->body = NULL; /* MHD frees it */
    } else {
        resp = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
    }
    if (!resp) {
        trino_reply_reset(r);
        return MHD_NO;
    }
    if (r->content_type) MHD_add_response_header(resp, "Content-Type", r->content_type);
    for (uint32_t i = 0; i < r->n_headers; i++)
        MHD_add_response_header(resp, r->headers[i].name, r->headers[i].value);
    enum MHD_Result ret = MHD_queue_response(c, r->status ? r->status : 500, resp);
    MHD_destroy_response(resp);
    trino_reply_reset(r);
    return ret;
}

static enum MHD_Result send_text(struct MHD_Connection *c, unsigned status, const char *text) {
    trino_reply r;
    memset(&r, 0, sizeof r);
    trino_reply_set(&r, status, "text/plain; charset=utf-8", text);
    return send_reply(c, &r);
}

/* 413 with a failed QueryResults carrying QUERY_TEXT_TOO_LARGE. */
static enum MHD_Result send_too_large(const trino_server *srv, struct MHD_Connection *c) {
    sqe_error e;
    err_set(&e, SQE_ERR_QUERY_TEXT_TOO_LARGE,
            "Query text length exceeds the maximum of %zu bytes ([query] max_sql_bytes)",
            srv->opts.max_sql_bytes);
    strbuf sb;
    strbuf_init(&sb);
    char base[320];
    base_uri(srv, MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Host"), base, sizeof base);
    strbuf_printf(&sb,
                  "{\"id\":\"rejected\",\"infoUri\":\"%s/v1/info\",\"stats\":{\"state\":\"FAILED\","
                  "\"queued\":false,\"scheduled\":false,\"nodes\":0,\"totalSplits\":0,"
                  "\"queuedSplits\":0,\"runningSplits\":0,\"completedSplits\":0,"
                  "\"cpuTimeMillis\":0,\"wallTimeMillis\":0,\"queuedTimeMillis\":0,"
                  "\"elapsedTimeMillis\":0,\"processedRows\":0,\"processedBytes\":0,"
                  "\"peakMemoryBytes\":0},\"error\":",
                  base);
    trino_json_error(&e, &sb);
    strbuf_puts(&sb, "}");
    trino_reply r;
    memset(&r, 0, sizeof r);
    r.status = 413;
    r.content_type = "application/json";
    r.body_len = sb.len;
    r.body = sb.failed ? NULL : strbuf_move(&sb);
    if (!r.body) {
        strbuf_reset(&sb);
        return send_text(c, 413, "Query text too large");
    }
    return send_reply(c, &r);
}

/* Takes the reference to principal (NULL when the server has no hooks). */
static enum MHD_Result handle_submit(trino_server *srv, struct MHD_Connection *c, conn_ctx *ctx,
                                     sqe_principal *principal) {
    if (ctx->too_large) {
        sqe_principal_unref(principal);
        return send_too_large(srv, c);
    }
    trino_request req;
    memset(&req, 0, sizeof req);
    req.principal = principal;
    if (principal && !(req.user = strdup(principal->user))) {
        sqe_principal_unref(principal);
        return send_text(c, 500, "out of memory");
    }
    header_scan hs;
    memset(&hs, 0, sizeof hs);
    hs.req = &req;
    MHD_get_connection_values(c, MHD_HEADER_KIND, scan_header, &hs);
    enum MHD_Result ret;
    char base[320];
    base_uri(srv, hs.host, base, sizeof base);
    if (!req.user || !req.user[0]) {
        ret = send_text(c, 400, "User must be set");
    } else if (ctx->body.failed) {
        ret = send_text(c, 500, "out of memory");
    } else if (ctx->body.len == 0 || strspn(strbuf_cstr(&ctx->body), " \t\r\n") == ctx->body.len) {
        ret = send_text(c, 400, "SQL statement is empty");
    } else if (memchr(ctx->body.data, 0, ctx->body.len)) {
        ret = send_text(c, 400, "SQL statement contains a NUL byte");
    } else {
        if (hs.failed) req.header_error = strdup(hs.err.message);
        req.sql = strbuf_move(&ctx->body);
        trino_reply r;
        memset(&r, 0, sizeof r);
        if (!req.sql || (hs.failed && !req.header_error)) {
            trino_request_reset(&req);
            return send_text(c, 500, "out of memory");
        }
        trino_query_submit(srv->reg, &req, base, &r);
        ret = send_reply(c, &r);
    }
    trino_request_reset(&req);
    return ret;
}

/* Parses "ID/SLUG/TOKEN" (the rest of a nextUri path). */
static bool parse_query_path(const char *p, char *id, size_t id_len, char *slug, size_t slug_len,
                             uint64_t *token) {
    const char *s1 = strchr(p, '/');
    if (!s1 || s1 == p || (size_t)(s1 - p) >= id_len) return false;
    const char *s2 = strchr(s1 + 1, '/');
    if (!s2 || s2 == s1 + 1 || (size_t)(s2 - s1 - 1) >= slug_len) return false;
    const char *t = s2 + 1;
    size_t tl = strlen(t);
    if (tl == 0 || tl > 18 || strspn(t, "0123456789") != tl) return false;
    memcpy(id, p, (size_t)(s1 - p));
    id[s1 - p] = 0;
    memcpy(slug, s1 + 1, (size_t)(s2 - s1 - 1));
    slug[s2 - s1 - 1] = 0;
    if (strspn(id, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(id)) return false;
    if (strspn(slug, "abcdefghijklmnopqrstuvwxyz0123456789") != strlen(slug)) return false;
    *token = strtoull(t, NULL, 10);
    return true;
}

/* The client address as "ip:port" ("[ip]:port" for IPv6); "" when unknown. */
static void peer_of(struct MHD_Connection *c, char *buf, size_t n) {
    buf[0] = 0;
    const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
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

/* 401 with a Basic challenge (the trino clients then send their configured credentials). */
static enum MHD_Result send_unauthorized(struct MHD_Connection *c, const char *why) {
    char msg[600];
    snprintf(msg, sizeof msg, "Unauthorized: %s", why);
    struct MHD_Response *r =
        MHD_create_response_from_buffer(strlen(msg), msg, MHD_RESPMEM_MUST_COPY);
    if (!r) return MHD_NO;
    MHD_add_response_header(r, "Content-Type", "text/plain; charset=utf-8");
    MHD_add_response_header(r, "WWW-Authenticate", "Basic realm=\"sqe\"");
    enum MHD_Result ret = MHD_queue_response(c, 401, r);
    MHD_destroy_response(r);
    return ret;
}

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

/* 503 with Retry-After: the server was too busy to check the credentials (the trino clients
 * retry a 503 by themselves). */
static enum MHD_Result send_busy(struct MHD_Connection *c, const char *why) {
    char msg[600];
    snprintf(msg, sizeof msg, "Service unavailable: %s", why && *why ? why : "server busy");
    struct MHD_Response *r =
        MHD_create_response_from_buffer(strlen(msg), msg, MHD_RESPMEM_MUST_COPY);
    if (!r) return MHD_NO;
    MHD_add_response_header(r, "Content-Type", "text/plain; charset=utf-8");
    MHD_add_response_header(r, "Retry-After", "1");
    enum MHD_Result ret = MHD_queue_response(c, 503, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result handle_info(trino_server *srv, struct MHD_Connection *c, bool state_only) {
    strbuf sb;
    strbuf_init(&sb);
    if (state_only) {
        health_phase ph = health_get(health_of(srv));
        strbuf_puts(&sb, ph == HEALTH_DRAINING   ? "\"SHUTTING_DOWN\""
                         : ph == HEALTH_STARTING ? "\"INACTIVE\""
                                                 : "\"ACTIVE\"");
    } else {
        double secs = (double)(mono_ms() - srv->started_ms) / 1000.0;
        char uptime[32];
        if (secs < 60)
            snprintf(uptime, sizeof uptime, "%.2fs", secs);
        else if (secs < 3600)
            snprintf(uptime, sizeof uptime, "%.2fm", secs / 60);
        else if (secs < 86400)
            snprintf(uptime, sizeof uptime, "%.2fh", secs / 3600);
        else
            snprintf(uptime, sizeof uptime, "%.2fd", secs / 86400);
        strbuf_puts(&sb, "{\"nodeVersion\":{\"version\":");
        trino_json_string(sqe_version(), &sb);
        strbuf_puts(&sb, "},\"environment\":");
        trino_json_string(srv->environment, &sb);
        strbuf_printf(&sb, ",\"coordinator\":true,\"starting\":%s,\"uptime\":\"%s\"}",
                      health_get(health_of(srv)) == HEALTH_STARTING ? "true" : "false", uptime);
    }
    trino_reply r;
    memset(&r, 0, sizeof r);
    r.status = 200;
    r.content_type = "application/json";
    r.body_len = sb.len;
    r.body = sb.failed ? NULL : strbuf_move(&sb);
    if (!r.body) {
        strbuf_reset(&sb);
        return send_text(c, 500, "out of memory");
    }
    return send_reply(c, &r);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
                              const char *method, const char *version, const char *upload_data,
                              size_t *upload_data_size, void **con_cls) {
    (void)version;
    trino_server *srv = cls;
    conn_ctx *ctx = *con_cls;
    bool is_post = !strcmp(method, MHD_HTTP_METHOD_POST);
    bool is_submit = is_post && !strcmp(url, "/v1/statement");
    if (!ctx) {
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
        if (is_submit) {
            /* A body a little over the limit is read and dropped, so the client sees the 413
             * rather than a reset while it still sends; a much larger one is answered at once
             * (MHD then closes the connection without reading it). */
            const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
            unsigned long long len = cl ? strtoull(cl, NULL, 10) : 0;
            if (len > srv->opts.max_sql_bytes) ctx->too_large = true;
            if (len > (unsigned long long)srv->opts.max_sql_bytes * DISCARD_FACTOR) {
                ctx->replied = true;
                return send_too_large(srv, c);
            }
        }
        return MHD_YES;
    }
    if (*upload_data_size) {
        size_t n = *upload_data_size;
        *upload_data_size = 0;
        if (!is_submit || ctx->too_large) return MHD_YES; /* discarded */
        if (ctx->body.len + n > srv->opts.max_sql_bytes) {
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

    bool is_get = !strcmp(method, MHD_HTTP_METHOD_GET);
    bool is_head = !strcmp(method, MHD_HTTP_METHOD_HEAD);
    bool is_delete = !strcmp(method, MHD_HTTP_METHOD_DELETE);
    const char *health_body = NULL;
    unsigned health_status = health_answer(health_of(srv), url, &health_body);
    if (health_status) {
        if (!is_get && !is_head) return send_text(c, 405, "Method not allowed");
        return send_text(c, health_status, health_body);
    }
    if (!strcmp(url, "/v1/info") || !strcmp(url, "/v1/info/state")) {
        if (!is_get && !is_head) return send_text(c, 405, "Method not allowed");
        return handle_info(srv, c, url[8] == '/');
    }

    sqe_principal *principal = NULL;
    const srv_hooks *hooks = srv->opts.hooks;
    if (hooks && hooks->authenticate) {
        char peer[80];
        peer_of(c, peer, sizeof peer);
        sqe_error e;
        err_clear(&e);
        const char *authz = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
        const char *user = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "X-Trino-User");
        if (!authz && (!user || !*user) && is_post && !strcmp(url, "/v1/statement"))
            return send_text(c, 400, "User must be set");
        int arc = hooks->authenticate_cancellable
                      ? hooks->authenticate_cancellable(hooks->ud, authz, user,
                                                        peer[0] ? peer : NULL, client_gone, c,
                                                        &principal, &e)
                      : hooks->authenticate(hooks->ud, authz, user, peer[0] ? peer : NULL,
                                            &principal, &e);
        if (arc == SQE_ERR_USER_CANCELED) return MHD_NO; /* nobody to answer: close */
        if (arc == SQE_ERR_QUERY_QUEUE_FULL) return send_busy(c, e.message);
        if (arc != SQE_OK)
            return send_unauthorized(c, e.message[0] ? e.message : "authentication failed");
    }
    if (!strcmp(url, "/v1/statement")) {
        if (is_post) return handle_submit(srv, c, ctx, principal);
        sqe_principal_unref(principal);
        if (is_head) return send_text(c, 200, "");
        return send_text(c, 405, "Method not allowed");
    }
    const char *rest = NULL;
    if (!strncmp(url, "/v1/statement/queued/", 21))
        rest = url + 21;
    else if (!strncmp(url, "/v1/statement/executing/", 24))
        rest = url + 24;
    if (rest) {
        char id[64], slug[64];
        uint64_t token;
        if (!parse_query_path(rest, id, sizeof id, slug, sizeof slug, &token)) {
            sqe_principal_unref(principal);
            return send_text(c, 404, "Not found");
        }
        trino_reply r;
        memset(&r, 0, sizeof r);
        if (is_get) {
            char base[320];
            base_uri(srv, MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Host"), base,
                     sizeof base);
            trino_query_fetch(srv->reg, id, slug, token, principal, base, &r);
        } else if (is_delete) {
            trino_query_cancel(srv->reg, id, slug, principal, &r);
        } else {
            sqe_principal_unref(principal);
            return send_text(c, 405, "Method not allowed");
        }
        sqe_principal_unref(principal);
        return send_reply(c, &r);
    }
    sqe_principal_unref(principal);
    return send_text(c, 404, "Not found");
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls,
                      enum MHD_RequestTerminationCode toe) {
    (void)cls;
    (void)c;
    (void)toe;
    conn_ctx *ctx = *con_cls;
    if (!ctx) return;
    strbuf_reset(&ctx->body);
    free(ctx);
    *con_cls = NULL;
}

/* --- lifecycle ------------------------------------------------------------------------------ */

void trino_server_options_init(trino_server_options *opts) {
    memset(opts, 0, sizeof *opts);
    opts->bind_address = "127.0.0.1";
    opts->port = 8080;
    opts->max_sql_bytes = 1 << 20;
    opts->page_rows = 8192;
    opts->page_bytes = 1 << 20;
    opts->max_wait_ms = 1000;
    opts->max_queries = 1000;
    opts->max_running = 64;
    opts->idle_timeout_ms = 300000;
    opts->retain_ms = 5000;
    opts->max_retained = 4096;
    opts->max_retained_bytes = (size_t)64 << 20;
    opts->environment = "sqe";
    opts->request_timeout_ms = REQUEST_TIMEOUT_MS;
    opts->connection_timeout_s = CONNECTION_TIMEOUT_S;
}

/* Reads a PEM file (at most 1 MiB) into a new string. */
static int read_pem(const char *path, const char *what, char **out, sqe_error *err) {
    FILE *fp = fopen(path, "rb");
    if (!fp) return err_set(err, SQE_ERR_IO_ERROR, "cannot read the TLS %s %s", what, path);
    char *buf = malloc(MAX_PEM_BYTES + 1);
    size_t n = buf ? fread(buf, 1, MAX_PEM_BYTES + 1, fp) : 0;
    fclose(fp);
    if (!buf) return err_nomem(err, "TLS");
    if (n == 0 || n > MAX_PEM_BYTES || memchr(buf, 0, n) || !strstr((buf[n] = 0, buf), "-----BEGIN")) {
        free(buf);
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "the TLS %s %s is not a PEM file", what,
                       path);
    }
    *out = buf;
    return SQE_OK;
}

int trino_server_create(sqe_db *db, const trino_server_options *opts, trino_server **out,
                        sqe_error *err) {
    *out = NULL;
    trino_server *srv = calloc(1, sizeof *srv);
    if (!srv) return err_nomem(err, "server");
    srv->opts = *opts;
    srv->bind_address = strdup(opts->bind_address ? opts->bind_address : "127.0.0.1");
    srv->environment = strdup(opts->environment ? opts->environment : "sqe");
    srv->started_ms = mono_ms();
    if (!srv->bind_address || !srv->environment) {
        trino_server_destroy(srv);
        return err_nomem(err, "server");
    }
    if (!srv->opts.max_sql_bytes) srv->opts.max_sql_bytes = 1 << 20;
    srv->opts.bind_address = srv->bind_address;
    srv->opts.environment = srv->environment;
    srv->opts.tls_cert_file = srv->opts.tls_key_file = NULL; /* not kept */
    srv->scheme = "http";
    health_set(&srv->own_health, HEALTH_READY);
    bool tls = opts->tls_cert_file && *opts->tls_cert_file;
    if (tls != (opts->tls_key_file && *opts->tls_key_file)) {
        trino_server_destroy(srv);
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                       "TLS needs both a certificate and a key file");
    }
    if (tls) {
        int trc = read_pem(opts->tls_cert_file, "certificate", &srv->tls_cert, err);
        if (!trc) trc = read_pem(opts->tls_key_file, "key", &srv->tls_key, err);
        if (trc) {
            trino_server_destroy(srv);
            return trc;
        }
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
        int rc = err_set(err, SQE_ERR_GENERIC_USER_ERROR,
                         "Invalid bind address '%s' (an IPv4 or IPv6 address literal)",
                         srv->bind_address);
        trino_server_destroy(srv);
        return rc;
    }
    int rc = trino_registry_create(db, &srv->opts, &srv->reg, err);
    if (rc) {
        trino_server_destroy(srv);
        return rc;
    }
    unsigned threads = opts->http_threads;
    if (!threads) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        threads = cores > 4 ? (unsigned)(2 * cores) : 8;
        if (threads > 64) threads = 64;
    }
    rc = http_guard_create(opts->request_timeout_ms, &srv->guard, err);
    if (rc) {
        trino_server_destroy(srv);
        return rc;
    }
    unsigned conn_timeout = opts->connection_timeout_s ? opts->connection_timeout_s
                                                       : CONNECTION_TIMEOUT_S;
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
        MHD_OPTION_CONNECTION_LIMIT, (unsigned)CONNECTION_LIMIT,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)CONNECTION_MEMORY_LIMIT,
        MHD_OPTION_NOTIFY_COMPLETED, completed, srv, MHD_OPTION_NOTIFY_CONNECTION,
        http_guard_notify, srv->guard, MHD_OPTION_URI_LOG_CALLBACK, http_guard_uri_log,
        srv->guard, MHD_OPTION_ARRAY, tls_opts, MHD_OPTION_ARRAY, http_strict_options(),
        MHD_OPTION_END);
    if (!srv->daemon) {
        rc = err_set(err, SQE_ERR_IO_ERROR,
                     tls ? "Cannot listen on %s port %u (address in use, or the TLS certificate "
                           "and key do not load?)"
                         : "Cannot listen on %s port %u (address in use?)",
                     srv->bind_address, opts->port);
        trino_server_destroy(srv);
        return rc;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(srv->daemon, MHD_DAEMON_INFO_BIND_PORT);
    srv->port = info && info->port ? info->port : opts->port;
    *out = srv;
    return SQE_OK;
}

uint16_t trino_server_port(const trino_server *srv) { return srv->port; }

void trino_server_begin_drain(trino_server *srv) {
    health_set(&srv->own_health, HEALTH_DRAINING);
    if (srv->opts.health) health_set(srv->opts.health, HEALTH_DRAINING);
    trino_registry_set_draining(srv->reg);
}

uint32_t trino_server_drain(trino_server *srv, uint32_t deadline_ms) {
    trino_server_begin_drain(srv);
    int64_t start = mono_ms();
    while (trino_registry_active(srv->reg) > 0 && mono_ms() - start < (int64_t)deadline_ms)
        usleep(20000);
    if (trino_registry_active(srv->reg) > 0) trino_registry_cancel_all(srv->reg);
    return trino_registry_running(srv->reg);
}

void trino_server_destroy(trino_server *srv) {
    if (!srv) return;
    if (srv->daemon) MHD_stop_daemon(srv->daemon);
    http_guard_destroy(srv->guard);
    trino_registry_destroy(srv->reg);
    free(srv->tls_cert);
    if (srv->tls_key) {
        memset(srv->tls_key, 0, strlen(srv->tls_key));
        free(srv->tls_key);
    }
    free(srv->bind_address);
    free(srv->environment);
    free(srv);
}
