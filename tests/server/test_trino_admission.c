/*
 * test_trino_admission.c: the Trino front end's admission limit and retry window (issue 15
 * item 7), against an in-process trino_server driven over HTTP with libcurl (cmocka).
 *
 * - finished queries do not count: with max_queries = 4, 60 statements run one after the other
 *   within the retry window all succeed with their answers (the old registry counted every
 *   query for 5 s after it finished and refused the 5th with a bare 503);
 * - the limit is one of concurrency: with max_queries = 2 and two queries in progress (results
 *   not fetched), a third statement gets a FAILED QueryResults with errorName QUERY_QUEUE_FULL,
 *   errorType INSUFFICIENT_RESOURCES and SQLSTATE 53000 (HTTP 200, a proper Trino error); once
 *   one of the two is canceled, statements run again;
 * - the retry window: the final response of a finished query comes again for the same token,
 *   until retain_ms after its last request or until max_retained newer finished queries pushed
 *   it out (then 404), and a retried query never blocks admission.
 *
 * Built as trino_admission_tests (CMakeLists.txt) and run by tests/server/run_server_tests.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <curl/curl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "server/trino/trino_server.h"
#include "sqe/sqe.h"

#define BIG_SQL                                                                                  \
    "SELECT a * 1000 + b FROM UNNEST(sequence(0, 999)) x(a) CROSS JOIN UNNEST(sequence(1, 1000)) " \
    "y(b)"

typedef struct fixture {
    sqe_db *db;
    trino_server *srv;
    char base[64];
} fixture;

typedef struct response {
    long status;
    char *body;
    size_t len;
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

/* One HTTP request: method to url (the server's base + path when path starts with '/'). */
static response http(const fixture *f, const char *method, const char *path, const char *body) {
    char url[512];
    if (path[0] == '/')
        snprintf(url, sizeof url, "%s%s", f->base, path);
    else
        snprintf(url, sizeof url, "%s", path);
    response r = {0, NULL, 0};
    CURL *c = curl_easy_init();
    assert_non_null(c);
    struct curl_slist *h = curl_slist_append(NULL, "X-Trino-User: tester");
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &r);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 60L);
    if (body) curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
    assert_int_equal(curl_easy_perform(c), CURLE_OK);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.status);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    if (!r.body) r.body = calloc(1, 1);
    return r;
}

static json_t *parse(const response *r) {
    json_error_t je;
    json_t *doc = json_loads(r->body, 0, &je);
    if (!doc) fail_msg("not JSON (HTTP %ld): %s", r->status, r->body);
    return doc;
}

static const char *next_uri(json_t *doc) { return json_string_value(json_object_get(doc, "nextUri")); }

static const char *state_of(json_t *doc) {
    return json_string_value(json_object_get(json_object_get(doc, "stats"), "state"));
}

/* POSTs sql; returns the first document (HTTP 200 asserted). */
static json_t *submit(const fixture *f, const char *sql) {
    response r = http(f, "POST", "/v1/statement", sql);
    if (r.status != 200) fail_msg("POST %s: HTTP %ld %s", sql, r.status, r.body);
    json_t *doc = parse(&r);
    free(r.body);
    return doc;
}

/* Follows nextUri to the end; returns the final document, *last_uri the URI that answered it
 * (malloc'd) and the integer of data[0][0] in *first_value (-1 when there was none). */
static json_t *follow(const fixture *f, json_t *doc, char **last_uri, long long *first_value) {
    *first_value = -1;
    *last_uri = NULL;
    for (int step = 0; next_uri(doc) && step < 100000; step++) {
        char *uri = strdup(next_uri(doc));
        response r = http(f, "GET", uri, NULL);
        if (r.status != 200) fail_msg("GET %s: HTTP %ld %s", uri, r.status, r.body);
        json_decref(doc);
        doc = parse(&r);
        free(r.body);
        json_t *data = json_object_get(doc, "data");
        if (*first_value < 0 && json_array_size(data))
            *first_value = json_integer_value(json_array_get(json_array_get(data, 0), 0));
        free(*last_uri);
        *last_uri = uri;
    }
    return doc;
}

/* Runs sql to the end and checks it FINISHED with data[0][0] == want. */
static void run_expect(const fixture *f, const char *sql, long long want) {
    json_t *doc = submit(f, sql);
    char *uri;
    long long v;
    doc = follow(f, doc, &uri, &v);
    if (strcmp(state_of(doc), "FINISHED") != 0) {
        char *text = json_dumps(doc, 0);
        fail_msg("%s: %s", sql, text);
    }
    assert_int_equal(v, want);
    free(uri);
    json_decref(doc);
}

static void start(fixture *f, uint32_t max_queries, uint32_t retain_ms, uint32_t max_retained) {
    memset(f, 0, sizeof *f);
    sqe_error err;
    memset(&err, 0, sizeof err);
    assert_int_equal(sqe_db_open(NULL, &f->db, &err), SQE_OK);
    trino_server_options o;
    trino_server_options_init(&o);
    o.port = 0;
    o.http_threads = 4;
    o.page_rows = 1000; /* BIG_SQL holds pages (the worker waits for the client) */
    o.max_queries = max_queries;
    o.retain_ms = retain_ms;
    o.max_retained = max_retained;
    if (trino_server_create(f->db, &o, &f->srv, &err) != SQE_OK) fail_msg("%s", err.message);
    snprintf(f->base, sizeof f->base, "http://127.0.0.1:%u", (unsigned)trino_server_port(f->srv));
}

static void stop(fixture *f) {
    trino_server_destroy(f->srv);
    sqe_db_close(f->db);
}

static void test_finished_queries_do_not_count(void **state) {
    (void)state;
    fixture f;
    start(&f, 4, 60000, 0); /* a long retry window: every finished query stays retained */
    for (int i = 0; i < 60; i++) {
        char sql[64];
        snprintf(sql, sizeof sql, "SELECT %d + 1", i);
        run_expect(&f, sql, i + 1);
    }
    stop(&f);
}

static void test_full_is_query_queue_full(void **state) {
    (void)state;
    fixture f;
    start(&f, 2, 0, 0);
    json_t *held[2];
    for (int i = 0; i < 2; i++) held[i] = submit(&f, BIG_SQL); /* in progress: nobody fetches */
    json_t *doc = submit(&f, "SELECT 1");
    assert_null(next_uri(doc));
    assert_string_equal(state_of(doc), "FAILED");
    json_t *e = json_object_get(doc, "error");
    assert_string_equal(json_string_value(json_object_get(e, "errorName")), "QUERY_QUEUE_FULL");
    assert_string_equal(json_string_value(json_object_get(e, "errorType")),
                        "INSUFFICIENT_RESOURCES");
    assert_string_equal(json_string_value(json_object_get(e, "sqlState")), "53000");
    assert_non_null(strstr(json_string_value(json_object_get(e, "message")), "in progress"));
    json_decref(doc);

    /* cancel one: its slot comes back once its worker is gone */
    response r = http(&f, "DELETE", next_uri(held[0]), NULL);
    assert_int_equal(r.status, 204);
    free(r.body);
    bool ran = false;
    for (int attempt = 0; attempt < 200 && !ran; attempt++) {
        doc = submit(&f, "SELECT 7");
        char *uri;
        long long v;
        doc = follow(&f, doc, &uri, &v);
        ran = !strcmp(state_of(doc), "FINISHED") && v == 7;
        free(uri);
        json_decref(doc);
        if (!ran) usleep(20000);
    }
    assert_true(ran);
    r = http(&f, "DELETE", next_uri(held[1]), NULL);
    assert_int_equal(r.status, 204);
    free(r.body);
    json_decref(held[0]);
    json_decref(held[1]);
    stop(&f);
}

static void test_retry_window(void **state) {
    (void)state;
    fixture f;
    start(&f, 1, 2000, 0);
    /* a retry of the final response gets the same body, and admission stays open meanwhile */
    json_t *doc = submit(&f, "SELECT 41 + 1");
    char *uri;
    long long v;
    doc = follow(&f, doc, &uri, &v);
    assert_int_equal(v, 42);
    char *final_text = json_dumps(doc, JSON_SORT_KEYS);
    json_decref(doc);
    run_expect(&f, "SELECT 5", 5); /* max_queries = 1: the finished query is not in the way */
    response r = http(&f, "GET", uri, NULL);
    assert_int_equal(r.status, 200);
    doc = parse(&r);
    char *again = json_dumps(doc, JSON_SORT_KEYS);
    assert_string_equal(again, final_text);
    free(again);
    json_decref(doc);
    free(r.body);

    /* retain_ms after its last request it is gone */
    usleep(3000 * 1000);
    r = http(&f, "GET", uri, NULL);
    assert_int_equal(r.status, 404);
    free(r.body);
    free(uri);
    free(final_text);
    stop(&f);
}

static void test_retained_are_bounded(void **state) {
    (void)state;
    fixture f;
    start(&f, 1, 600000, 3);
    /* max_retained = 3: newer finished queries push the least recently used out */
    char *uris[5];
    long long v;
    for (int i = 0; i < 5; i++) {
        char sql[32];
        snprintf(sql, sizeof sql, "SELECT %d", 100 + i);
        json_t *doc = follow(&f, submit(&f, sql), &uris[i], &v);
        assert_int_equal(v, 100 + i);
        json_decref(doc);
    }
    for (int i = 0; i < 5; i++) {
        response r = http(&f, "GET", uris[i], NULL);
        assert_int_equal(r.status, i < 2 ? 404 : 200);
        free(r.body);
    }
    /* a retry makes a query the most recently used: now the 4th goes first */
    response r = http(&f, "GET", uris[2], NULL);
    assert_int_equal(r.status, 200);
    free(r.body);
    free(uris[0]);
    json_decref(follow(&f, submit(&f, "SELECT 9"), &uris[0], &v));
    assert_int_equal(v, 9);
    for (int i = 2; i < 5; i++) {
        r = http(&f, "GET", uris[i], NULL);
        assert_int_equal(r.status, i == 3 ? 404 : 200);
        free(r.body);
    }
    for (int i = 0; i < 5; i++) free(uris[i]);
    stop(&f);
}

int main(void) {
    curl_global_init(CURL_GLOBAL_DEFAULT);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_finished_queries_do_not_count),
        cmocka_unit_test(test_full_is_query_queue_full),
        cmocka_unit_test(test_retry_window),
        cmocka_unit_test(test_retained_are_bounded),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    curl_global_cleanup();
    return rc;
}
