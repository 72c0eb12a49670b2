/*
 * test_trino_oauth2.c: the parts of Trino's OAuth2 external authentication
 * (src/server/trino/trino_oauth2.c) that need no identity provider, on an in-process HTTP
 * server on a free port with the flow's challenge hook and routes, driven with libcurl
 * (cmocka). The whole login against Keycloak is tests/auth/test_trino_oauth2.py.
 *
 * - a 401 without credentials or with a Bearer token gets the Bearer challenge (two different
 *   258-bit ids), one with Basic credentials does not;
 * - a pending login polls {"nextUri"} after poll_wait_ms; once login_ttl_ms passed it polls
 *   {"error"} and its login link is gone (an expired login cannot be completed);
 * - max_pending_per_address: the next refused request gets 503 + Retry-After; DELETE frees a
 *   place;
 * - the login link with the identity provider unreachable: 502, and the login stays pending.
 *
 * Built as trino_oauth2_tests (CMakeLists.txt) and run by tests/server/run_server_tests.sh.
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
#include <unistd.h>

#include "auth/oidc_idp.h"
#include "server/core/http_server.h"
#include "server/trino/trino_oauth2.h"

typedef struct response {
    long status;
    char *body;
    size_t len;
    char bearer[512]; /* the WWW-Authenticate value starting "Bearer ", if any */
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

static void header_value(const char *line, size_t n, const char *name, const char *prefix,
                         char *out, size_t cap) {
    size_t nl = strlen(name);
    if (n <= nl + 1 || strncasecmp(line, name, nl) != 0 || line[nl] != ':') return;
    const char *v = line + nl + 1;
    while (*v == ' ') v++;
    size_t vl = n - (size_t)(v - line);
    while (vl && (v[vl - 1] == '\r' || v[vl - 1] == '\n')) vl--;
    if (prefix && (vl < strlen(prefix) || strncmp(v, prefix, strlen(prefix)) != 0)) return;
    if (vl >= cap) vl = cap - 1;
    memcpy(out, v, vl);
    out[vl] = 0;
}

static size_t on_header(char *line, size_t size, size_t n, void *ud) {
    response *r = ud;
    header_value(line, size * n, "WWW-Authenticate", "Bearer x_", r->bearer, sizeof r->bearer);
    header_value(line, size * n, "Retry-After", NULL, r->retry_after, sizeof r->retry_after);
    return size * n;
}

static response http(uint16_t port, const char *method, const char *path, const char *authz) {
    char url[512], hdr[256];
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
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &r);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, &r);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 30L);
    assert_int_equal(curl_easy_perform(c), CURLE_OK);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.status);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    if (!r.body) r.body = calloc(1, 1);
    return r;
}

/* Refuses everything: the chain found no credential it accepts. */
static int refuse(void *ud, const char *authorization, const char *user, const char *peer,
                  sqe_principal **principal, sqe_error *err) {
    (void)ud, (void)authorization, (void)user, (void)peer, (void)principal;
    return err_set(err, SQE_ERR_UNAUTHENTICATED, "no credentials");
}

static void never(void *ud, const http_request *req, http_reply *reply) {
    (void)ud, (void)req;
    http_reply_text(reply, 500, NULL, "the handler must not run");
}

static srv_hooks hooks = {.authenticate = refuse};
static const http_route routes[] = {
    {.method = "POST", .path = "/v1/statement", .flags = HTTP_ROUTE_AUTH, .handler = never},
};

typedef struct fixture {
    oidc_idp *idp;
    trino_oauth2 *flow;
    http_server *srv;
    uint16_t port;
} fixture;

static void start(fixture *fx, uint32_t ttl_ms, uint32_t per_address) {
    memset(fx, 0, sizeof *fx);
    sqe_error err;
    /* a port nobody listens on: discovery fails, which only initiate needs */
    oidc_idp_config ic = {.issuer = "http://127.0.0.1:9/realms/none", .audience = "sqe",
                          .allow_insecure_http = true, .http_timeout_ms = 2000};
    if (oidc_idp_create(&ic, &fx->idp, &err) != SQE_OK) fail_msg("%s", err.message);
    trino_oauth2_options o;
    trino_oauth2_options_init(&o);
    o.idp = fx->idp;
    o.client_id = "sqe";
    o.login_ttl_ms = ttl_ms;
    o.poll_wait_ms = 100;
    o.max_pending_per_address = per_address;
    if (trino_oauth2_create(&o, &fx->flow, &err) != SQE_OK) fail_msg("%s", err.message);
    http_server_options ho;
    http_server_options_init(&ho);
    ho.port = 0;
    ho.threads = 4;
    ho.hooks = &hooks;
    ho.challenge = trino_oauth2_challenge;
    ho.challenge_ud = fx->flow;
    ho.routes = routes;
    ho.n_routes = 1;
    if (http_server_create(&ho, &fx->srv, &err) != SQE_OK) fail_msg("%s", err.message);
    assert_int_equal(trino_oauth2_add_routes(fx->flow, fx->srv), SQE_OK);
    fx->port = http_server_port(fx->srv);
}

static void stop(fixture *fx) {
    http_server_destroy(fx->srv);
    trino_oauth2_destroy(fx->flow);
    oidc_idp_destroy(fx->idp);
}

/* Refused statement; its challenge's paths (after the base) into login and poll. */
static void challenge(fixture *fx, const char *authz, char *login, char *poll, size_t n) {
    response r = http(fx->port, "POST", "/v1/statement", authz);
    assert_int_equal(r.status, 401);
    char base[64];
    snprintf(base, sizeof base, "http://127.0.0.1:%u", (unsigned)fx->port);
    const char *a = strstr(r.bearer, "x_redirect_server=\"");
    const char *b = strstr(r.bearer, "x_token_server=\"");
    if (!a || !b) fail_msg("no Bearer challenge: '%s'", r.bearer);
    a += strlen("x_redirect_server=\"") + strlen(base);
    b += strlen("x_token_server=\"") + strlen(base);
    snprintf(login, n, "%.*s", (int)(strchr(a, '"') - a), a);
    snprintf(poll, n, "%.*s", (int)(strchr(b, '"') - b), b);
    assert_int_equal(strncmp(login, "/oauth2/token/initiate/", 23), 0);
    assert_int_equal(strncmp(poll, "/oauth2/token/", 14), 0);
    assert_int_equal(strlen(login + 23), 43);
    assert_int_equal(strlen(poll + 14), 43);
    assert_string_not_equal(login + 23, poll + 14);
    free(r.body);
}

static void expect_poll(fixture *fx, const char *path, const char *field) {
    response r = http(fx->port, "GET", path, NULL);
    assert_int_equal(r.status, 200);
    char want[32];
    snprintf(want, sizeof want, "{\"%s\":", field);
    if (strncmp(r.body, want, strlen(want)) != 0) fail_msg("poll %s: %s", path, r.body);
    free(r.body);
}

static void test_challenge_kinds(void **state) {
    (void)state;
    fixture fx;
    start(&fx, 60000, 8);
    char login[128], poll[128];
    challenge(&fx, NULL, login, poll, sizeof login);
    challenge(&fx, "Bearer expired.token.here", login, poll, sizeof login);
    response r = http(fx.port, "POST", "/v1/statement", "Basic YWxpY2U6d3Jvbmc=");
    assert_int_equal(r.status, 401);
    assert_string_equal(r.bearer, ""); /* a password client is not sent to a browser */
    free(r.body);
    stop(&fx);
}

static void test_pending_then_expired(void **state) {
    (void)state;
    fixture fx;
    start(&fx, 600, 8);
    char login[128], poll[128];
    challenge(&fx, NULL, login, poll, sizeof login);
    expect_poll(&fx, poll, "nextUri");
    usleep(700 * 1000);
    expect_poll(&fx, poll, "error");
    response r = http(fx.port, "GET", login, NULL);
    assert_int_equal(r.status, 404); /* the login link expired with it */
    free(r.body);
    stop(&fx);
}

static void test_per_address_limit(void **state) {
    (void)state;
    fixture fx;
    start(&fx, 60000, 2);
    char login[128], poll1[128], poll2[128];
    challenge(&fx, NULL, login, poll1, sizeof login);
    challenge(&fx, NULL, login, poll2, sizeof login);
    response r = http(fx.port, "POST", "/v1/statement", NULL);
    assert_int_equal(r.status, 503);
    assert_string_equal(r.retry_after, "5");
    assert_non_null(strstr(r.body, "too many external authentication logins"));
    free(r.body);
    r = http(fx.port, "DELETE", poll1, NULL);
    assert_int_equal(r.status, 204);
    free(r.body);
    expect_poll(&fx, poll1, "error"); /* forgotten */
    challenge(&fx, NULL, login, poll1, sizeof login); /* its place is free again */
    stop(&fx);
}

static void test_identity_provider_unreachable(void **state) {
    (void)state;
    fixture fx;
    start(&fx, 60000, 8);
    char login[128], poll[128];
    challenge(&fx, NULL, login, poll, sizeof login);
    response r = http(fx.port, "GET", login, NULL);
    assert_int_equal(r.status, 502);
    assert_non_null(strstr(r.body, "Identity provider unavailable"));
    free(r.body);
    expect_poll(&fx, poll, "nextUri"); /* still pending: the browser may try again */
    stop(&fx);
}

int main(void) {
    curl_global_init(CURL_GLOBAL_DEFAULT);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_challenge_kinds),
        cmocka_unit_test(test_pending_then_expired),
        cmocka_unit_test(test_per_address_limit),
        cmocka_unit_test(test_identity_provider_unreachable),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    curl_global_cleanup();
    return rc;
}
