/*
 * test_http_client.c: io/http_client against a tiny in-test HTTP server (libmicrohttpd on a free
 * port, one thread per connection): keep-alive reuse through the pool, the body bound, the
 * per-attempt timeout, retry of an idempotent GET on 503 then success, no retry of a POST unless
 * marked, Retry-After honoured (and capped), the cancel hook, header capture, parallel sends,
 * and secrets absent from the captured log.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <microhttpd.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include "io/http_client.h"

/* ---- the server -------------------------------------------------------------------------------- */

static struct MHD_Daemon *g_daemon;
static int g_port;
static _Atomic int g_connections; /* TCP connections accepted */
static _Atomic int g_hits;        /* requests answered on the counting paths */

static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
                          enum MHD_ConnectionNotificationCode code) {
    (void)cls, (void)conn, (void)socket_context;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) atomic_fetch_add(&g_connections, 1);
}

static enum MHD_Result answer(struct MHD_Connection *conn, unsigned status, const char *body,
                              size_t len, const char *hname, const char *hvalue) {
    struct MHD_Response *r =
        MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);
    if (hname) MHD_add_response_header(r, hname, hvalue);
    enum MHD_Result ok = MHD_queue_response(conn, status, r);
    MHD_destroy_response(r);
    return ok;
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *conn, const char *url,
                               const char *method, const char *version, const char *upload,
                               size_t *upload_size, void **con_cls) {
    (void)cls, (void)method, (void)version, (void)upload;
    if (!*con_cls) { /* first call: headers only */
        *con_cls = (void *)1;
        return MHD_YES;
    }
    if (*upload_size) { /* swallow the body */
        *upload_size = 0;
        return MHD_YES;
    }
    if (!strcmp(url, "/ok")) return answer(conn, 200, "hello", 5, "X-Test", "yes");
    if (!strcmp(url, "/big")) {
        static char big[100000];
        memset(big, 'b', sizeof big);
        return answer(conn, 200, big, sizeof big, NULL, NULL);
    }
    if (!strcmp(url, "/slow")) {
        usleep(1500 * 1000);
        return answer(conn, 200, "late", 4, NULL, NULL);
    }
    if (!strcmp(url, "/flaky")) { /* 503 twice, then 200 */
        int n = atomic_fetch_add(&g_hits, 1);
        return n < 2 ? answer(conn, 503, "busy", 4, NULL, NULL)
                     : answer(conn, 200, "fine", 4, NULL, NULL);
    }
    if (!strcmp(url, "/down")) { /* always 503 */
        atomic_fetch_add(&g_hits, 1);
        return answer(conn, 503, "busy", 4, NULL, NULL);
    }
    if (!strcmp(url, "/after")) { /* 429 with Retry-After: 1, then 200 */
        int n = atomic_fetch_add(&g_hits, 1);
        return n < 1 ? answer(conn, 429, "slow down", 9, "Retry-After", "1")
                     : answer(conn, 200, "fine", 4, NULL, NULL);
    }
    if (!strcmp(url, "/after-long")) { /* Retry-After far beyond the cap */
        int n = atomic_fetch_add(&g_hits, 1);
        return n < 1 ? answer(conn, 503, "x", 1, "Retry-After", "3600")
                     : answer(conn, 200, "fine", 4, NULL, NULL);
    }
    return answer(conn, 404, "no", 2, NULL, NULL);
}

static int server_start(void **state) {
    (void)state;
    g_daemon = MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD |
                                    MHD_USE_ERROR_LOG,
                                0 /* a free port */, NULL, NULL, handler, NULL,
                                MHD_OPTION_NOTIFY_CONNECTION, on_connection, NULL,
                                MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)30, MHD_OPTION_END);
    if (!g_daemon) return -1;
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(g_daemon, MHD_DAEMON_INFO_BIND_PORT);
    g_port = info ? info->port : 0;
    return g_port ? 0 : -1;
}

static int server_stop(void **state) {
    (void)state;
    MHD_stop_daemon(g_daemon);
    return 0;
}

static char *url_of(char *buf, size_t cap, const char *path) {
    snprintf(buf, cap, "http://127.0.0.1:%d%s", g_port, path);
    return buf;
}

static int64_t ms_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static http_client *client(int max_attempts, int timeout_ms) {
    http_client_config cfg = {.name = "test", .max_attempts = max_attempts,
                              .timeout_ms = timeout_ms, .backoff_ms = 10, .max_body = 1000,
                              .max_retry_after_ms = 300};
    http_client *c = NULL;
    sqe_error err;
    assert_int_equal(http_client_create(&cfg, &c, &err), SQE_OK);
    return c;
}

/* ---- tests ------------------------------------------------------------------------------------- */

static void test_pool_reuse(void **state) {
    (void)state;
    http_client *c = client(1, 5000);
    char u[128];
    int before = atomic_load(&g_connections);
    for (int i = 0; i < 5; i++) {
        http_request req = {.method = "GET", .url = url_of(u, sizeof u, "/ok")};
        http_response resp;
        sqe_error err;
        assert_int_equal(http_client_send(c, &req, &resp, &err), SQE_OK);
        assert_int_equal(resp.status, 200);
        assert_string_equal(strbuf_cstr(&resp.body), "hello");
        assert_string_equal(http_response_header(&resp, "x-test"), "yes"); /* header capture */
        assert_int_equal(resp.connections, i == 0 ? 1 : 0);
        http_response_free(&resp);
    }
    /* five requests, one TCP connection */
    assert_int_equal(atomic_load(&g_connections) - before, 1);
    http_client_stats st;
    http_client_stats_get(c, &st);
    assert_int_equal(st.requests, 5);
    assert_int_equal(st.connections, 1);
    http_client_destroy(c);
}

static void test_body_limit(void **state) {
    (void)state;
    http_client *c = client(1, 5000);
    char u[128];
    http_request req = {.method = "GET", .url = url_of(u, sizeof u, "/big")};
    http_response resp;
    sqe_error err;
    assert_int_equal(http_client_send(c, &req, &resp, &err), SQE_ERR_IO_ERROR);
    assert_non_null(strstr(err.message, "response larger than 1000 bytes"));
    assert_int_equal(resp.body.len, 0); /* nothing half-read is returned */
    assert_null(resp.body.data);
    http_response_free(&resp);
    /* a per-request bound above the body lets it through */
    req.max_body = 200000;
    assert_int_equal(http_client_send(c, &req, &resp, &err), SQE_OK);
    assert_int_equal(resp.body.len, 100000);
    http_response_free(&resp);
    http_client_destroy(c);
}

static void test_timeout(void **state) {
    (void)state;
    http_client *c = client(1, 300);
    char u[128];
    http_request req = {.method = "GET", .url = url_of(u, sizeof u, "/slow")};
    http_response resp;
    sqe_error err;
    int64_t t0 = ms_now();
    assert_int_equal(http_client_send(c, &req, &resp, &err), SQE_ERR_IO_ERROR);
    int64_t took = ms_now() - t0;
    assert_true(took >= 250 && took < 1400);
    assert_non_null(strstr(err.message, "failed after 1 attempt"));
    assert_int_equal(resp.status, 0);
    http_response_free(&resp);
    http_client_destroy(c);
}

static void test_retry_503_then_success(void **state) {
    (void)state;
    http_client *c = client(4, 5000);
    char u[128];
    atomic_store(&g_hits, 0);
    http_request req = {.method = "GET", .url = url_of(u, sizeof u, "/flaky")};
    http_response resp;
    sqe_error err;
    assert_int_equal(http_client_send(c, &req, &resp, &err), SQE_OK);
    assert_int_equal(resp.status, 200);
    assert_int_equal(resp.attempts, 3);
    assert_string_equal(strbuf_cstr(&resp.body), "fine");
    assert_int_equal(atomic_load(&g_hits), 3);
    http_response_free(&resp);
    http_client_stats st;
    http_client_stats_get(c, &st);
    assert_int_equal(st.retries, 2);
    /* out of attempts: the caller gets the last 503, not an error */
    atomic_store(&g_hits, 0);
    req.url = url_of(u, sizeof u, "/down");
    assert_int_equal(http_client_send(c, &req, &resp, &err), SQE_OK);
    assert_int_equal(resp.status, 503);
    assert_int_equal(resp.attempts, 4);
    assert_int_equal(atomic_load(&g_hits), 4);
    http_response_free(&resp);
    http_client_destroy(c);
}

static void test_post_not_retried_unless_marked(void **state) {
    (void)state;
    http_client *c = client(4, 5000);
    char u[128];
    atomic_store(&g_hits, 0);
    http_request req = {.method = "POST", .url = url_of(u, sizeof u, "/down"), .body = "x=1",
                        .body_len = 3};
    http_response resp;
    sqe_error err;
    assert_int_equal(http_client_send(c, &req, &resp, &err), SQE_OK);
    assert_int_equal(resp.status, 503);
    assert_int_equal(resp.attempts, 1);
    assert_int_equal(atomic_load(&g_hits), 1);
    http_response_free(&resp);
    /* a request that may not be repeated never rides a pooled connection (libcurl would resend
     * it on a fresh one if the kept-alive one turned out dead) */
    int before = atomic_load(&g_connections);
    assert_int_equal(http_client_send(c, &req, &resp, &err), SQE_OK);
    assert_int_equal(resp.connections, 1);
    assert_int_equal(atomic_load(&g_connections) - before, 1);
    http_response_free(&resp);
    /* marked idempotent: retried like a GET */
    atomic_store(&g_hits, 0);
    req.retry = HTTP_RETRY_YES;
    req.url = url_of(u, sizeof u, "/flaky");
    assert_int_equal(http_client_send(c, &req, &resp, &err), SQE_OK);
    assert_int_equal(resp.status, 200);
    assert_int_equal(atomic_load(&g_hits), 3);
    http_response_free(&resp);
    /* and a GET marked HTTP_RETRY_NO is not */
    atomic_store(&g_hits, 0);
    http_request get = {.method = "GET", .url = url_of(u, sizeof u, "/down"),
                        .retry = HTTP_RETRY_NO};
    assert_int_equal(http_client_send(c, &get, &resp, &err), SQE_OK);
    assert_int_equal(atomic_load(&g_hits), 1);
    http_response_free(&resp);
    http_client_destroy(c);
}

static void test_retry_after(void **state) {
    (void)state;
    /* backoff 10 ms, but the server says 1 s: capped by max_retry_after_ms = 300 */
    http_client *c = client(3, 5000);
    char u[128];
    atomic_store(&g_hits, 0);
    http_request req = {.method = "GET", .url = url_of(u, sizeof u, "/after")};
    http_response resp;
    sqe_error err;
    int64_t t0 = ms_now();
    assert_int_equal(http_client_send(c, &req, &resp, &err), SQE_OK);
    int64_t took = ms_now() - t0;
    assert_int_equal(resp.status, 200);
    assert_int_equal(resp.attempts, 2);
    assert_true(took >= 290);  /* waited (the cap), not the 10 ms backoff */
    assert_true(took < 900);   /* and not the full second */
    http_response_free(&resp);
    http_client_destroy(c);

    /* with a larger cap the full Retry-After is waited */
    http_client_config cfg = {.max_attempts = 2, .backoff_ms = 10, .max_retry_after_ms = 5000};
    assert_int_equal(http_client_create(&cfg, &c, &err), SQE_OK);
    atomic_store(&g_hits, 0);
    t0 = ms_now();
    assert_int_equal(http_client_send(c, &req, &resp, &err), SQE_OK);
    took = ms_now() - t0;
    assert_int_equal(resp.status, 200);
    assert_true(took >= 950);
    http_response_free(&resp);
    /* an hour's Retry-After is bounded by the cap (5 s), and by the total timeout: the caller
     * gets the 503 at once instead of waiting */
    http_client_destroy(c);
    http_client_config cfg2 = {.max_attempts = 2, .backoff_ms = 10, .max_retry_after_ms = 5000,
                               .total_timeout_ms = 1000};
    assert_int_equal(http_client_create(&cfg2, &c, &err), SQE_OK);
    atomic_store(&g_hits, 0);
    req.url = url_of(u, sizeof u, "/after-long");
    t0 = ms_now();
    assert_int_equal(http_client_send(c, &req, &resp, &err), SQE_OK);
    assert_int_equal(resp.status, 503);
    assert_true(ms_now() - t0 < 900);
    http_response_free(&resp);
    http_client_destroy(c);
}

static bool cancel_after_200ms(void *ud) { return ms_now() - *(int64_t *)ud > 200; }

static void test_cancel(void **state) {
    (void)state;
    http_client *c = client(1, 5000);
    char u[128];
    int64_t t0 = ms_now();
    http_request req = {.method = "GET", .url = url_of(u, sizeof u, "/slow"),
                        .cancel = cancel_after_200ms, .ud = &t0};
    http_response resp;
    sqe_error err;
    assert_int_equal(http_client_send(c, &req, &resp, &err), SQE_ERR_USER_CANCELED);
    assert_true(ms_now() - t0 < 1200);
    http_response_free(&resp);
    /* the same in a parallel batch */
    http_request reqs[2] = {req, req};
    http_response resps[2];
    uint32_t failed;
    t0 = ms_now();
    assert_int_equal(http_client_send_many(c, reqs, resps, 2, 2, &failed, &err),
                     SQE_ERR_USER_CANCELED);
    assert_true(ms_now() - t0 < 1200);
    http_response_free(&resps[0]);
    http_response_free(&resps[1]);
    http_client_destroy(c);
}

static void test_send_many(void **state) {
    (void)state;
    http_client *c = client(4, 5000);
    char u[4][128];
    atomic_store(&g_hits, 0);
    http_request reqs[4] = {
        {.method = "GET", .url = url_of(u[0], sizeof u[0], "/ok")},
        {.method = "GET", .url = url_of(u[1], sizeof u[1], "/flaky")},
        {.method = "GET", .url = url_of(u[2], sizeof u[2], "/ok")},
        {.method = "GET", .url = url_of(u[3], sizeof u[3], "/ok")},
    };
    http_response resps[4];
    sqe_error err;
    uint32_t failed = 99;
    assert_int_equal(http_client_send_many(c, reqs, resps, 4, 2, &failed, &err), SQE_OK);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(resps[i].status, 200);
        http_response_free(&resps[i]);
    }
    /* one too-big body fails the batch, naming its index */
    reqs[2].url = url_of(u[2], sizeof u[2], "/big");
    assert_int_equal(http_client_send_many(c, reqs, resps, 4, 2, &failed, &err), SQE_ERR_IO_ERROR);
    assert_int_equal(failed, 2);
    assert_non_null(strstr(err.message, "larger than"));
    for (int i = 0; i < 4; i++) http_response_free(&resps[i]);
    http_client_destroy(c);
}

typedef struct capture {
    strbuf text;
} capture;

static void capture_line(void *ud, const char *line) {
    capture *cap = ud;
    strbuf_puts(&cap->text, line);
    strbuf_putc(&cap->text, '\n');
}

static void test_redaction(void **state) {
    (void)state;
    capture cap;
    strbuf_init(&cap.text);
    http_log_set(capture_line, &cap, 2);
    http_client *c = client(1, 5000);
    char u[256];
    snprintf(u, sizeof u,
             "http://user:SECRET0@127.0.0.1:%d/ok?a=1&token=SECRET1&X-Amz-Signature=SECRET2&b=2",
             g_port);
    http_header h[] = {{"Authorization", "Bearer SECRET3"},
                       {"X-Amz-Security-Token", "SECRET4"},
                       {"X-Visible", "shown"}};
    const char *form = "grant_type=client_credentials&client_secret=SECRET5&password=SECRET6";
    http_request req = {.method = "POST", .url = u, .headers = h, .n_headers = 3, .body = form,
                        .body_len = strlen(form)};
    http_response resp;
    sqe_error err;
    assert_int_equal(http_client_send(c, &req, &resp, &err), SQE_OK);
    http_response_free(&resp);
    const char *json = "{\"user\": \"bob\", \"password\" : \"SECRET7\", \"access_token\":\"SEC\\\"RET8\"}";
    req.body = json;
    req.body_len = strlen(json);
    req.n_headers = 0;
    assert_int_equal(http_client_send(c, &req, &resp, &err), SQE_OK);
    http_response_free(&resp);
    /* an error message carries the URL redacted too */
    snprintf(u, sizeof u, "http://127.0.0.1:1/x?token=SECRET9");
    http_request bad = {.method = "GET", .url = u};
    assert_int_equal(http_client_send(c, &bad, &resp, &err), SQE_ERR_IO_ERROR);
    http_response_free(&resp);
    http_log_set(NULL, NULL, 0);
    const char *log = strbuf_cstr(&cap.text);
    assert_null(strstr(log, "SECRET"));
    assert_null(strstr(log, "RET8"));
    assert_null(strstr(err.message, "SECRET"));
    /* what is not secret is there: the log is real */
    assert_non_null(strstr(log, "/ok?a=1&token=***&X-Amz-Signature=***&b=2"));
    assert_non_null(strstr(log, "Authorization: ***"));
    assert_non_null(strstr(log, "X-Visible: shown"));
    assert_non_null(strstr(log, "grant_type=client_credentials&client_secret=***"));
    assert_non_null(strstr(log, "\"user\": \"bob\""));
    assert_non_null(strstr(log, "-> 200"));
    assert_non_null(strstr(err.message, "token=***"));
    strbuf_reset(&cap.text);
    http_client_destroy(c);
}

static void test_redactors(void **state) {
    (void)state;
    strbuf sb;
    strbuf_init(&sb);
    http_redact_url(&sb, "https://h/p?X-Amz-Credential=AK%2F1&X-Amz-Security-Token=t&q=v#frag");
    assert_string_equal(strbuf_cstr(&sb),
                        "https://h/p?X-Amz-Credential=***&X-Amz-Security-Token=***&q=v#frag");
    strbuf_reset(&sb);
    http_redact_url(&sb, "http://h/plain");
    assert_string_equal(strbuf_cstr(&sb), "http://h/plain");
    strbuf_reset(&sb);
    http_redact_header(&sb, "Cookie", "s=1");
    assert_string_equal(strbuf_cstr(&sb), "Cookie: ***");
    strbuf_reset(&sb);
    http_redact_header(&sb, "Content-Type", "text/plain");
    assert_string_equal(strbuf_cstr(&sb), "Content-Type: text/plain");
    strbuf_reset(&sb);
    const char *form = "Action=AssumeRoleWithWebIdentity&WebIdentityToken=eyJ.x.y&Version=1";
    http_redact_body(&sb, form, strlen(form), 1000);
    assert_string_equal(strbuf_cstr(&sb),
                        "Action=AssumeRoleWithWebIdentity&WebIdentityToken=***&Version=1");
    strbuf_reset(&sb);
    http_redact_body(&sb, "{\"token\": 12345, \"n\": 1}", 24, 1000);
    assert_string_equal(strbuf_cstr(&sb), "{\"token\":\"***\", \"n\": 1}");
    strbuf_reset(&sb);
    /* not an http URL: refused before any connection */
    http_client *c = client(1, 1000);
    http_request req = {.method = "GET", .url = "file:///etc/passwd"};
    http_response resp;
    sqe_error err;
    assert_int_equal(http_client_send(c, &req, &resp, &err), SQE_ERR_INVALID_ARGUMENTS);
    http_response_free(&resp);
    http_client_destroy(c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pool_reuse),
        cmocka_unit_test(test_body_limit),
        cmocka_unit_test(test_timeout),
        cmocka_unit_test(test_retry_503_then_success),
        cmocka_unit_test(test_post_not_retried_unless_marked),
        cmocka_unit_test(test_retry_after),
        cmocka_unit_test(test_cancel),
        cmocka_unit_test(test_send_many),
        cmocka_unit_test(test_redaction),
        cmocka_unit_test(test_redactors),
    };
    return cmocka_run_group_tests(tests, server_start, server_stop);
}
