/*
 * trino_server.c: the Trino client protocol's route table on the shared HTTP server
 * (server/core/http_server.c), and the server's lifecycle (registry, drain). Queries themselves
 * live in trino_query.c, request headers and replies in trino_request.c.
 *
 * INTERFACE: trino_server_options_init, trino_server_create, trino_server_port,
 *   trino_server_http, trino_server_begin_drain, trino_server_drain, trino_server_destroy,
 *   trino_server_list_sessions (trino_server.h).
 * Routes (auth = through opts.hooks when set):
 *   POST   /v1/statement                                  submit (body = SQL)        auth
 *   HEAD   /v1/statement                                  200 (JDBC connection check) auth
 *   GET    /v1/statement/{queued|executing}/ID/SLUG/TOKEN next page                   auth
 *   DELETE /v1/statement/{queued|executing}/ID/SLUG/TOKEN cancel (204)                auth
 *   GET    /v1/info, /v1/info/state (and HEAD)            server info
 *   GET    /healthz, /readyz (and HEAD)                   health.c's table
 *   /oauth2/token/initiate/ID, /oauth2/callback, /oauth2/token/ID (GET, DELETE): external
 *                                                         authentication (trino_oauth2.c), with
 *                                                         opts.oauth2
 * 404 / 405 + Allow, the framing checks, TLS, limits and authentication failures (401, 503) are
 * the shared server's (http_server.h).
 * NOTES: handlers never block longer than max_wait_ms (a GET waiting for the next page). A POST
 * body is bounded by max_sql_bytes (413, with a QUERY_TEXT_TOO_LARGE error in Trino's shape);
 * with hooks, a POST with neither credentials nor X-Trino-User is 400 before any credential
 * check (not with external authentication: its 401 starts the login). nextUri and infoUri are
 * absolute, built from the Host header the client used when it is a plain host[:port], else
 * from the listening address (http_request_base_uri).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "common/clock.h"
#include "server/core/http_server.h"
#include "server/trino/trino_int.h"

#define REQUEST_TIMEOUT_MS 30000
#define CONNECTION_TIMEOUT_S 60
#define CONNECTION_MEMORY_LIMIT (256 * 1024) /* headers (prepared statements travel in them) */
#define CONNECTION_LIMIT 1000

struct trino_server {
    trino_server_options opts;
    char *environment;
    http_server *http;
    trino_registry *reg;
    trino_oauth2 *oauth2; /* external authentication, or NULL */
    int64_t started_ms;
    health_state own_health; /* used when opts.health is NULL */
};

static health_state *health_of(trino_server *srv) {
    return srv->opts.health ? srv->opts.health : &srv->own_health;
}

/* Moves a reply of the query layer into the HTTP reply. */
static void reply_to_http(trino_reply *t, http_reply *r) {
    http_reply_take(r, t->status, t->content_type, t->body, t->body_len);
    t->body = NULL;
    for (uint32_t i = 0; i < t->n_headers; i++)
        if (http_reply_header(r, t->headers[i].name, t->headers[i].value) != SQE_OK) {
            http_reply_text(r, 500, NULL, "out of memory");
            break;
        }
    trino_reply_reset(t);
}

static void reply_json(http_reply *r, unsigned status, strbuf *sb) {
    if (sb->failed) {
        strbuf_reset(sb);
        http_reply_text(r, 500, NULL, "out of memory");
        return;
    }
    size_t len = sb->len;
    http_reply_take(r, status, "application/json", strbuf_move(sb), len);
}

/* --- POST /v1/statement --------------------------------------------------------------------- */

typedef struct header_scan {
    trino_request *req;
    sqe_error err;
    bool failed;
} header_scan;

static bool scan_header(void *cls, const char *key, const char *value) {
    header_scan *hs = cls;
    if (!hs->failed && trino_request_header(hs->req, key, value, &hs->err) != SQE_OK)
        hs->failed = true;
    return true;
}

/* With hooks: a POST with neither credentials nor a user name is refused before any check. */
static bool submit_pre_auth(void *ud, const http_request *hr, http_reply *reply) {
    trino_server *srv = ud;
    const srv_hooks *hooks = srv->opts.hooks;
    if (!hooks || (!hooks->authenticate && !hooks->authenticate_cancellable)) return false;
    if (srv->oauth2) return false; /* the 401 offers the login; the token names the user */
    const char *user = http_request_header(hr, "X-Trino-User");
    if (http_request_header(hr, "Authorization") || (user && *user)) return false;
    http_reply_text(reply, 400, NULL, "User must be set");
    return true;
}

/* 413 with a failed QueryResults carrying QUERY_TEXT_TOO_LARGE. */
static void submit_too_large(void *ud, const http_request *hr, http_reply *reply) {
    trino_server *srv = ud;
    sqe_error e;
    err_set(&e, SQE_ERR_QUERY_TEXT_TOO_LARGE,
            "Query text length exceeds the maximum of %zu bytes ([query] max_sql_bytes)",
            srv->opts.max_sql_bytes);
    char base[320];
    http_request_base_uri(hr, base, sizeof base);
    strbuf sb;
    strbuf_init(&sb);
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
    if (sb.failed) {
        strbuf_reset(&sb);
        http_reply_text(reply, 413, NULL, "Query text too large");
        return;
    }
    reply_json(reply, 413, &sb);
}

static void submit(void *ud, const http_request *hr, http_reply *reply) {
    trino_server *srv = ud;
    trino_request req;
    memset(&req, 0, sizeof req);
    req.principal = sqe_principal_ref(hr->principal);
    char peer[128];
    http_request_peer(hr, peer, sizeof peer);
    req.client_address = peer[0] ? strdup(peer) : NULL;
    if (hr->principal && !(req.user = strdup(hr->principal->user))) {
        trino_request_reset(&req);
        http_reply_text(reply, 500, NULL, "out of memory");
        return;
    }
    header_scan hs;
    memset(&hs, 0, sizeof hs);
    hs.req = &req;
    http_request_headers(hr, scan_header, &hs);
    if (!req.user || !req.user[0]) {
        http_reply_text(reply, 400, NULL, "User must be set");
    } else if (hr->body_failed) {
        http_reply_text(reply, 500, NULL, "out of memory");
    } else if (!hr->body || strspn(hr->body, " \t\r\n") == hr->body_len) {
        http_reply_text(reply, 400, NULL, "SQL statement is empty");
    } else if (memchr(hr->body, 0, hr->body_len)) {
        http_reply_text(reply, 400, NULL, "SQL statement contains a NUL byte");
    } else {
        if (hs.failed) req.header_error = strdup(hs.err.message);
        req.sql = strdup(hr->body);
        if (!req.sql || (hs.failed && !req.header_error)) {
            http_reply_text(reply, 500, NULL, "out of memory");
        } else {
            char base[320];
            http_request_base_uri(hr, base, sizeof base);
            trino_reply r;
            memset(&r, 0, sizeof r);
            trino_query_submit(srv->reg, &req, base, &r);
            reply_to_http(&r, reply);
        }
    }
    trino_request_reset(&req);
}

static void statement_head(void *ud, const http_request *hr, http_reply *reply) {
    (void)ud;
    (void)hr;
    http_reply_text(reply, 200, NULL, "");
}

/* --- nextUri: GET (next page), DELETE (cancel) ---------------------------------------------- */

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

/* The query a nextUri path names; false (404 set) when it names none. */
static bool query_of(const http_request *hr, char *id, size_t id_len, char *slug, size_t slug_len,
                     uint64_t *token, http_reply *reply) {
    const char *rest = !strncmp(hr->path, "/v1/statement/queued/", 21) ? hr->path + 21
                                                                         : hr->path + 24;
    if (parse_query_path(rest, id, id_len, slug, slug_len, token)) return true;
    http_reply_text(reply, 404, NULL, "Not found");
    return false;
}

static void next_page(void *ud, const http_request *hr, http_reply *reply) {
    trino_server *srv = ud;
    char id[64], slug[64], base[320];
    uint64_t token;
    if (!query_of(hr, id, sizeof id, slug, sizeof slug, &token, reply)) return;
    http_request_base_uri(hr, base, sizeof base);
    trino_reply r;
    memset(&r, 0, sizeof r);
    trino_query_fetch(srv->reg, id, slug, token, hr->principal, base, &r);
    reply_to_http(&r, reply);
}

static void cancel(void *ud, const http_request *hr, http_reply *reply) {
    trino_server *srv = ud;
    char id[64], slug[64];
    uint64_t token;
    if (!query_of(hr, id, sizeof id, slug, sizeof slug, &token, reply)) return;
    trino_reply r;
    memset(&r, 0, sizeof r);
    trino_query_cancel(srv->reg, id, slug, hr->principal, &r);
    reply_to_http(&r, reply);
}

/* --- /v1/info ------------------------------------------------------------------------------- */

static void info(void *ud, const http_request *hr, http_reply *reply) {
    trino_server *srv = ud;
    strbuf sb;
    strbuf_init(&sb);
    if (!strcmp(hr->path, "/v1/info/state")) {
        health_phase ph = health_get(health_of(srv));
        strbuf_puts(&sb, ph == HEALTH_DRAINING   ? "\"SHUTTING_DOWN\""
                         : ph == HEALTH_STARTING ? "\"INACTIVE\""
                                                 : "\"ACTIVE\"");
    } else {
        double secs = (double)(clock_mono_ms() - srv->started_ms) / 1000.0;
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
    reply_json(reply, 200, &sb);
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

int trino_server_create(sqe_db *db, const trino_server_options *opts, trino_server **out,
                        sqe_error *err) {
    *out = NULL;
    trino_server *srv = calloc(1, sizeof *srv);
    if (!srv) return err_nomem(err, "server");
    srv->opts = *opts;
    srv->environment = strdup(opts->environment ? opts->environment : "sqe");
    srv->started_ms = clock_mono_ms();
    if (!srv->environment) {
        trino_server_destroy(srv);
        return err_nomem(err, "server");
    }
    if (!srv->opts.max_sql_bytes) srv->opts.max_sql_bytes = 1 << 20;
    srv->opts.environment = srv->environment;
    srv->opts.bind_address = NULL; /* the HTTP server's */
    srv->opts.tls_cert_file = srv->opts.tls_key_file = NULL; /* not kept */
    health_set(&srv->own_health, HEALTH_READY);
    srv->opts.oauth2 = NULL; /* not kept */
    int rc = trino_registry_create(db, &srv->opts, &srv->reg, err);
    if (!rc && opts->oauth2) rc = trino_oauth2_create(opts->oauth2, &srv->oauth2, err);
    if (rc) {
        trino_server_destroy(srv);
        return rc;
    }
    const unsigned A = HTTP_ROUTE_AUTH, P = HTTP_ROUTE_PREFIX | HTTP_ROUTE_AUTH;
    const http_route routes[] = {
        {"POST", "/v1/statement", A, srv->opts.max_sql_bytes, submit, submit_pre_auth,
         submit_too_large},
        {"HEAD", "/v1/statement", A, 0, statement_head, NULL, NULL},
        {"GET", "/v1/statement/queued/", P, 0, next_page, NULL, NULL},
        {"DELETE", "/v1/statement/queued/", P, 0, cancel, NULL, NULL},
        {"GET", "/v1/statement/executing/", P, 0, next_page, NULL, NULL},
        {"DELETE", "/v1/statement/executing/", P, 0, cancel, NULL, NULL},
        {"GET", "/v1/info", 0, 0, info, NULL, NULL},
        {"HEAD", "/v1/info", 0, 0, info, NULL, NULL},
        {"GET", "/v1/info/state", 0, 0, info, NULL, NULL},
        {"HEAD", "/v1/info/state", 0, 0, info, NULL, NULL},
    };
    http_server_options ho;
    http_server_options_init(&ho);
    ho.bind_address = opts->bind_address ? opts->bind_address : "127.0.0.1";
    ho.port = opts->port;
    ho.tls_cert_file = opts->tls_cert_file;
    ho.tls_key_file = opts->tls_key_file;
    ho.threads = opts->http_threads;
    ho.connection_limit = CONNECTION_LIMIT;
    ho.connection_memory = CONNECTION_MEMORY_LIMIT;
    ho.connection_timeout_s = opts->connection_timeout_s;
    ho.request_timeout_ms = opts->request_timeout_ms;
    ho.hooks = opts->hooks;
    ho.user_header = "X-Trino-User";
    ho.routes = routes;
    ho.n_routes = sizeof routes / sizeof routes[0];
    ho.routes_ud = srv;
    if (srv->oauth2) {
        ho.challenge = trino_oauth2_challenge;
        ho.challenge_ud = srv->oauth2;
    }
    rc = http_server_create(&ho, &srv->http, err);
    if (!rc && health_add_routes(srv->http, health_of(srv)) != SQE_OK)
        rc = err_nomem(err, "server");
    if (!rc && srv->oauth2 && trino_oauth2_add_routes(srv->oauth2, srv->http) != SQE_OK)
        rc = err_nomem(err, "server");
    if (rc) {
        trino_server_destroy(srv);
        return rc;
    }
    *out = srv;
    return SQE_OK;
}

uint16_t trino_server_port(const trino_server *srv) { return http_server_port(srv->http); }

http_server *trino_server_http(trino_server *srv) { return srv->http; }

void trino_server_begin_drain(trino_server *srv) {
    health_set(&srv->own_health, HEALTH_DRAINING);
    if (srv->opts.health) health_set(srv->opts.health, HEALTH_DRAINING);
    trino_registry_set_draining(srv->reg);
}

uint32_t trino_server_drain(trino_server *srv, uint32_t deadline_ms) {
    trino_server_begin_drain(srv);
    int64_t start = clock_mono_ms();
    while (trino_registry_active(srv->reg) > 0 && clock_mono_ms() - start < (int64_t)deadline_ms)
        usleep(20000);
    if (trino_registry_active(srv->reg) > 0) trino_registry_cancel_all(srv->reg);
    return trino_registry_running(srv->reg);
}

void trino_server_destroy(trino_server *srv) {
    if (!srv) return;
    http_server_destroy(srv->http); /* no handler runs after this */
    trino_registry_destroy(srv->reg);
    trino_oauth2_destroy(srv->oauth2);
    free(srv->environment);
    free(srv);
}

int trino_server_list_sessions(trino_server *srv, sqe_session_emit emit, void *ctx,
                               sqe_error *err) {
    return trino_registry_list_sessions(srv->reg, emit, ctx, err);
}
