/*
 * test_http_server.c: the shared HTTP server's route table (src/server/core/http_server.c), on
 * an in-process server on a free port, driven with libcurl (cmocka).
 *
 * - an unknown path is 404; a known path with another method is 405 with an Allow header that
 *   lists the path's methods once each (exact and prefix routes alike); HEAD is not implied;
 * - a route flagged HTTP_ROUTE_AUTH is refused without credentials (401 + a Basic challenge), a
 *   hook that is too busy gives 503 + Retry-After, and the handler sees the principal the hook
 *   gave; a route without the flag is served to anyone;
 * - the port's challenge hook adds a further WWW-Authenticate to a 401 (or replaces the reply);
 *   http_request_query gives a handler the %-decoded query parameters;
 * - a table added while the server runs answers from the next request; the first matching route
 *   wins; the health table (health_add_routes) goes on any port;
 * - bodies: a route gets up to max_body bytes, more is its too_large answer (default 413), a
 *   route with max_body 0 never sees one.
 *
 * Built as http_server_tests (CMakeLists.txt) and run by tests/server/run_server_tests.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "server/core/health.h"
#include "server/core/http_server.h"

typedef struct response {
    long status;
    char *body;
    size_t len;
    char allow[128];
    char www_auth[128];
    char retry_after[16];
} response;

static size_t collect(char *data, size_t size, size_t n, void *ud) {
    response *r = ud;
    char *b = realloc(r->body, r->len + size * n + 1);
    if (!b) return 0;
    memcpy(b + r->len, data, size * n);
    r->len += size * n;
    b[r->len] = 0;
    r->body = b;
    return size * n;
}

static void header_value(const char *line, size_t n, const char *name, char *out, size_t cap) {
    size_t nl = strlen(name);
    if (n <= nl + 1 || strncasecmp(line, name, nl) != 0 || line[nl] != ':') return;
    const char *v = line + nl + 1;
    while (*v == ' ') v++;
    size_t vl = n - (size_t)(v - line);
    while (vl && (v[vl - 1] == '\r' || v[vl - 1] == '\n')) vl--;
    if (vl >= cap) vl = cap - 1;
    memcpy(out, v, vl);
    out[vl] = 0;
}

static size_t on_header(char *line, size_t size, size_t n, void *ud) {
    response *r = ud;
    header_value(line, size * n, "Allow", r->allow, sizeof r->allow);
    header_value(line, size * n, "WWW-Authenticate", r->www_auth, sizeof r->www_auth);
    header_value(line, size * n, "Retry-After", r->retry_after, sizeof r->retry_after);
    return size * n;
}

/* One request to 127.0.0.1:port; authz is an Authorization value or NULL. */
static response http(uint16_t port, const char *method, const char *path, const char *body,
                     const char *authz) {
    char url[256], hdr[256];
    snprintf(url, sizeof url, "http://127.0.0.1:%u%s", (unsigned)port, path);
    response r;
    memset(&r, 0, sizeof r);
    CURL *c = curl_easy_init();
    assert_non_null(c);
    struct curl_slist *h = NULL;
    if (authz) {
        snprintf(hdr, sizeof hdr, "Authorization: %s", authz);
        h = curl_slist_append(h, hdr);
    }
    curl_easy_setopt(c, CURLOPT_URL, url);
    if (!strcmp(method, "HEAD"))
        curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
    else
        curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &r);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, &r);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 30L);
    if (body) curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
    assert_int_equal(curl_easy_perform(c), CURLE_OK);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.status);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    if (!r.body) r.body = calloc(1, 1);
    return r;
}

static void expect(uint16_t port, const char *method, const char *path, const char *body,
                   const char *authz, long status, const char *want_body) {
    response r = http(port, method, path, body, authz);
    if (r.status != status || (want_body && strcmp(r.body, want_body) != 0))
        fail_msg("%s %s: HTTP %ld '%s', want %ld '%s'", method, path, r.status, r.body, status,
                 want_body ? want_body : "*");
    free(r.body);
}

/* --- handlers and hooks --------------------------------------------------------------------- */

/* Answers "<tag> <method> <path> [user=U] [body=B]". */
static void echo(void *ud, const http_request *req, http_reply *reply) {
    char buf[512];
    snprintf(buf, sizeof buf, "%s %s %s%s%s%s%.*s", (const char *)ud, req->method, req->path,
             req->principal ? " user=" : "", req->principal ? req->principal->user : "",
             req->body ? " body=" : "", (int)req->body_len, req->body ? req->body : "");
    http_reply_text(reply, 200, NULL, buf);
}

static void custom_too_large(void *ud, const http_request *req, http_reply *reply) {
    (void)ud;
    (void)req;
    http_reply_text(reply, 413, NULL, "custom too large");
}

/* Accepts "Bearer good" as user "alice"; "Bearer busy" is too busy; anything else fails. */
static int toy_authenticate(void *ud, const char *authorization, const char *user,
                            const char *peer, sqe_principal **principal, sqe_error *err) {
    (void)ud;
    (void)user;
    assert_non_null(peer);
    if (authorization && !strcmp(authorization, "Bearer good"))
        return sqe_principal_for_user("alice", SQE_AUTH_BEARER, principal, err);
    if (authorization && !strcmp(authorization, "Bearer busy"))
        return err_set(err, SQE_ERR_QUERY_QUEUE_FULL, "busy checking passwords");
    return err_set(err, SQE_ERR_PERMISSION_DENIED, "no such token");
}

static const http_route base_routes[] = {
    {.method = "GET", .path = "/open", .handler = echo},
    {.method = "POST", .path = "/open", .max_body = 16, .handler = echo},
    {.method = "GET", .path = "/secret", .flags = HTTP_ROUTE_AUTH, .handler = echo},
    {.method = "GET", .path = "/items/", .flags = HTTP_ROUTE_PREFIX, .handler = echo},
    {.method = "DELETE", .path = "/items/", .flags = HTTP_ROUTE_PREFIX | HTTP_ROUTE_AUTH,
     .handler = echo},
    {.method = "GET", .path = "/items/", .flags = HTTP_ROUTE_PREFIX, .handler = echo}, /* again */
    {.method = "PUT", .path = "/upload", .max_body = 8, .handler = echo,
     .too_large = custom_too_large},
};

static srv_hooks toy_hooks = {.authenticate = toy_authenticate};

static http_server *start(void) {
    http_server_options o;
    http_server_options_init(&o);
    o.port = 0;
    o.threads = 2;
    o.hooks = &toy_hooks;
    o.routes = base_routes;
    o.n_routes = sizeof base_routes / sizeof base_routes[0];
    o.routes_ud = (void *)"base";
    http_server *srv = NULL;
    sqe_error err;
    memset(&err, 0, sizeof err);
    if (http_server_create(&o, &srv, &err) != SQE_OK) fail_msg("%s", err.message);
    assert_true(http_server_port(srv) > 0);
    assert_string_equal(http_server_scheme(srv), "http");
    return srv;
}

/* --- tests ---------------------------------------------------------------------------------- */

static void test_404_and_405_with_allow(void **state) {
    (void)state;
    http_server *srv = start();
    uint16_t port = http_server_port(srv);
    expect(port, "GET", "/", NULL, NULL, 404, "Not found");
    expect(port, "GET", "/opener", NULL, NULL, 404, NULL); /* exact routes are exact */
    expect(port, "GET", "/items", NULL, NULL, 404, NULL);  /* the prefix has its slash */
    response r = http(port, "PUT", "/open", "x", NULL);
    assert_int_equal(r.status, 405);
    assert_string_equal(r.allow, "GET, POST");
    free(r.body);
    r = http(port, "POST", "/items/7", "x", NULL); /* a prefix path: GET listed once */
    assert_int_equal(r.status, 405);
    assert_string_equal(r.allow, "GET, DELETE");
    free(r.body);
    r = http(port, "HEAD", "/open", NULL, NULL); /* HEAD is not implied by GET */
    assert_int_equal(r.status, 405);
    assert_string_equal(r.allow, "GET, POST");
    free(r.body);
    /* a 405 never asks for credentials, a 404 neither */
    r = http(port, "POST", "/secret", "x", NULL);
    assert_int_equal(r.status, 405);
    assert_string_equal(r.allow, "GET");
    free(r.body);
    http_server_destroy(srv);
}

static void test_auth_routes(void **state) {
    (void)state;
    http_server *srv = start();
    uint16_t port = http_server_port(srv);
    response r = http(port, "GET", "/secret", NULL, NULL);
    assert_int_equal(r.status, 401);
    assert_string_equal(r.www_auth, "Basic realm=\"sqe\"");
    assert_non_null(strstr(r.body, "no such token"));
    free(r.body);
    r = http(port, "GET", "/secret", NULL, "Bearer wrong");
    assert_int_equal(r.status, 401);
    free(r.body);
    r = http(port, "GET", "/secret", NULL, "Bearer busy");
    assert_int_equal(r.status, 503);
    assert_string_equal(r.retry_after, "1");
    free(r.body);
    expect(port, "GET", "/secret", NULL, "Bearer good", 200, "base GET /secret user=alice");
    /* one method of a prefix needs credentials, the other does not */
    expect(port, "DELETE", "/items/3", NULL, NULL, 401, NULL);
    expect(port, "DELETE", "/items/3", NULL, "Bearer good", 200, "base DELETE /items/3 user=alice");
    expect(port, "GET", "/items/3", NULL, NULL, 200, "base GET /items/3");
    /* a public route never consults the hook, even with bad credentials */
    expect(port, "GET", "/open", NULL, "Bearer wrong", 200, "base GET /open");
    http_server_destroy(srv);
}

/* Adds a second challenge; "Bearer full" gets a 503 instead. */
static void toy_challenge(void *ud, const struct http_request *req, struct http_reply *reply) {
    (void)ud;
    assert_int_equal(reply->status, 401);
    const char *authz = http_request_header(req, "Authorization");
    if (authz && !strcmp(authz, "Bearer full")) {
        http_reply_text(reply, 503, NULL, "no room");
        return;
    }
    http_reply_header(reply, "WWW-Authenticate", "Bearer x_token_server=\"t\"");
}

/* Answers the query parameter q, or "-". */
static void echo_query(void *ud, const http_request *req, http_reply *reply) {
    (void)ud;
    const char *q = http_request_query(req, "q");
    http_reply_text(reply, 200, NULL, q ? q : "-");
}

static void test_challenge_hook_and_query(void **state) {
    (void)state;
    static const http_route routes[] = {
        {.method = "GET", .path = "/secret", .flags = HTTP_ROUTE_AUTH, .handler = echo},
        {.method = "GET", .path = "/q", .handler = echo_query},
    };
    http_server_options o;
    http_server_options_init(&o);
    o.port = 0;
    o.threads = 2;
    o.hooks = &toy_hooks;
    o.challenge = toy_challenge;
    o.routes = routes;
    o.n_routes = 2;
    o.routes_ud = (void *)"base";
    http_server *srv = NULL;
    sqe_error err;
    if (http_server_create(&o, &srv, &err) != SQE_OK) fail_msg("%s", err.message);
    uint16_t port = http_server_port(srv);
    response r = http(port, "GET", "/secret", NULL, NULL);
    assert_int_equal(r.status, 401);
    assert_string_equal(r.www_auth, "Bearer x_token_server=\"t\""); /* the last of the two */
    free(r.body);
    r = http(port, "GET", "/secret", NULL, "Bearer full");
    assert_int_equal(r.status, 503);
    assert_string_equal(r.body, "no room");
    free(r.body);
    expect(port, "GET", "/secret", NULL, "Bearer good", 200, "base GET /secret user=alice");
    expect(port, "GET", "/q?q=a%20b%26c&q=second", NULL, NULL, 200, "a b&c");
    expect(port, "GET", "/q", NULL, NULL, 200, "-");
    http_server_destroy(srv);
}

static void test_routes_added_later(void **state) {
    (void)state;
    http_server *srv = start();
    uint16_t port = http_server_port(srv);
    expect(port, "GET", "/metrics", NULL, NULL, 404, NULL);
    static const http_route later[] = {
        {.method = "GET", .path = "/metrics", .handler = echo},
        {.method = "GET", .path = "/open", .handler = echo}, /* shadowed by the first table */
        {.method = "POST", .path = "/items/", .flags = HTTP_ROUTE_PREFIX, .handler = echo},
    };
    assert_int_equal(http_server_add_routes(srv, later, 3, (void *)"later"), SQE_OK);
    assert_int_equal(health_add_routes(srv, NULL), SQE_OK);
    expect(port, "GET", "/metrics", NULL, NULL, 200, "later GET /metrics");
    expect(port, "GET", "/open", NULL, NULL, 200, "base GET /open");
    expect(port, "POST", "/items/9", "b", NULL, 200, "later POST /items/9");
    expect(port, "GET", "/healthz", NULL, NULL, 200, "ok\n");
    expect(port, "HEAD", "/readyz", NULL, NULL, 200, "");
    response r = http(port, "PUT", "/metrics", "x", NULL);
    assert_int_equal(r.status, 405);
    assert_string_equal(r.allow, "GET");
    free(r.body);
    http_server_destroy(srv);
}

static void test_bodies(void **state) {
    (void)state;
    http_server *srv = start();
    uint16_t port = http_server_port(srv);
    expect(port, "POST", "/open", "0123456789abcdef", NULL, 200,
           "base POST /open body=0123456789abcdef");
    expect(port, "POST", "/open", "0123456789abcdefg", NULL, 413, "Request body too large");
    char big[400];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = 0;
    expect(port, "POST", "/open", big, NULL, 413, NULL); /* over 16 x max_body: answered at once */
    expect(port, "PUT", "/upload", "123456789", NULL, 413, "custom too large");
    expect(port, "PUT", "/upload", "1234", NULL, 200, "base PUT /upload body=1234");
    /* a route that takes no body never sees one */
    expect(port, "GET", "/items/1", "ignored", NULL, 200, "base GET /items/1");
    http_server_destroy(srv);
}

static void test_health_server(void **state) {
    (void)state;
    health_state hs;
    memset(&hs, 0, sizeof hs);
    http_server *srv = NULL;
    sqe_error err;
    memset(&err, 0, sizeof err);
    assert_int_equal(health_server_create("127.0.0.1", 0, &hs, &srv, &err), SQE_OK);
    uint16_t port = http_server_port(srv);
    expect(port, "GET", "/healthz", NULL, NULL, 200, "ok\n");
    expect(port, "GET", "/readyz", NULL, NULL, 503, "starting\n");
    health_set(&hs, HEALTH_READY);
    expect(port, "GET", "/readyz", NULL, NULL, 200, "ready\n");
    health_set(&hs, HEALTH_DRAINING);
    expect(port, "GET", "/readyz", NULL, NULL, 503, "draining\n");
    expect(port, "GET", "/v1/info", NULL, NULL, 404, NULL);
    response r = http(port, "POST", "/healthz", "x", NULL);
    assert_int_equal(r.status, 405);
    assert_string_equal(r.allow, "GET, HEAD");
    free(r.body);
    http_server_destroy(srv);
    /* a bad address fails cleanly */
    assert_int_not_equal(health_server_create("nowhere", 0, &hs, &srv, &err), SQE_OK);
    assert_null(srv);
}

int main(void) {
    curl_global_init(CURL_GLOBAL_DEFAULT);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_404_and_405_with_allow),
        cmocka_unit_test(test_auth_routes),
        cmocka_unit_test(test_challenge_hook_and_query),
        cmocka_unit_test(test_routes_added_later),
        cmocka_unit_test(test_bodies),
        cmocka_unit_test(test_health_server),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    curl_global_cleanup();
    return rc;
}
