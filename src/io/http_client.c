/*
 * http_client.c: the shared HTTP client over libcurl (see http_client.h).
 *
 * INTERFACE: http_client_create, http_client_destroy, http_client_send, http_client_send_many,
 *   http_response_free, http_response_header, http_client_stats_get, http_attempt_header,
 *   http_attempt_number, http_log_set, http_secret_name, http_redact_url, http_redact_header,
 *   http_redact_body.
 * NOTES
 *   - Pool: a mutex-protected stack of idle easy handles per client, so parallel senders never
 *     share a handle; every handle of a client uses one curl share object for the connection
 *     cache, DNS and TLS sessions (locked per data kind), so any thread reuses any idle
 *     keep-alive connection to the same host.
 *   - One attempt is an xfer: attempt_setup builds the header list (the request's, then the
 *     prepare hook's, then "Expect:" so bodies go at once), sets the options and the bounds;
 *     the transfer runs alone (curl_easy_perform) or with others (send_many, the multi
 *     interface); attempt_judge classifies it as done, retry after a delay, or failed.
 *   - Bodies: 2xx bodies go to the request's sink when it has one, all others into resp->body
 *     up to the bound; past the bound the transfer stops and the request fails with the body
 *     dropped. Headers are captured per attempt (a new status line starts them over, so a
 *     100 Continue or a redirect leaves only the final answer's).
 *   - A request that may not be repeated (a POST without HTTP_RETRY_YES, HTTP_RETRY_NO) goes
 *     on a new connection: libcurl silently resends a request whose reused keep-alive
 *     connection turns out dead, which would repeat it (a catalog commit) and make not_sent
 *     wrong (the resend's connect fails although the first copy reached the server).
 *   - Cancel: a request with a cancel hook runs its transfers on a multi handle polled every
 *     50 ms (and curl's progress callback checks it too); delays between attempts sleep in
 *     50 ms slices polling it.
 *   - Jitter comes from a process-wide xorshift state (atomic, seeded from the clock), not
 *     rand(), which is neither thread-safe nor ours to reseed.
 *   - Logs are formatted only when a level is set; every URL, header and body goes through the
 *     redactors first.
 */
#include "io/http_client.h"

#include <ctype.h>
#include <curl/curl.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define MAX_HEADERS 128
#define LOG_BODY_BYTES 512

struct http_client {
    char *name;
    http_client_config cfg;
    char *ca_file, *ca_path;
    pthread_mutex_t lock;
    CURL **idle;
    int n_idle;
    CURLSH *share;
    pthread_mutex_t share_locks[CURL_LOCK_DATA_LAST];
    _Atomic uint64_t requests, retries, connections, bytes_in, bytes_out;
};

/* ---- process-wide state ---------------------------------------------------------------------- */

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static http_log_fn g_log_fn;
static void *g_log_ud;
static int g_log_level;
static _Atomic uint64_t g_rand;

static void init_once(void) {
    curl_global_init(CURL_GLOBAL_DEFAULT);
    const char *v = getenv("SQE_HTTP_LOG");
    if (v && (*v == '1' || *v == '2')) g_log_level = *v - '0';
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t seed = ((uint64_t)ts.tv_sec * 1000000007u) ^ (uint64_t)ts.tv_nsec;
    atomic_store(&g_rand, seed ^ 0x9e3779b97f4a7c15u);
}

void http_log_set(http_log_fn fn, void *ud, int level) {
    pthread_once(&g_once, init_once);
    g_log_fn = fn;
    g_log_ud = ud;
    g_log_level = level < 0 ? 0 : level;
}

static void log_line(const char *line) {
    if (g_log_fn) g_log_fn(g_log_ud, line);
    else fprintf(stderr, "sqe-http: %s\n", line);
}

static uint64_t next_random(void) {
    uint64_t x = atomic_load(&g_rand), y;
    do {
        y = x;
        y ^= y << 13;
        y ^= y >> 7;
        y ^= y << 17;
    } while (!atomic_compare_exchange_weak(&g_rand, &x, y));
    return y;
}

static int64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void nap_ms(int64_t ms) {
    if (ms <= 0) return;
    struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* ---- redaction ------------------------------------------------------------------------------- */

static bool contains_ci(const char *s, size_t len, const char *word) {
    size_t w = strlen(word);
    for (size_t i = 0; i + w <= len; i++)
        if (strncasecmp(s + i, word, w) == 0) return true;
    return false;
}

bool http_secret_name(const char *name, size_t len) {
    static const char *const exact[] = {"authorization", "proxy-authorization", "cookie",
                                        "set-cookie", "x-amz-signature", "signature", "sig",
                                        "code", "key", "pass", "pwd"};
    for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++)
        if (strlen(exact[i]) == len && strncasecmp(name, exact[i], len) == 0) return true;
    static const char *const parts[] = {"token", "secret", "password", "passwd", "credential",
                                        "api-key", "api_key", "apikey", "session"};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        if (contains_ci(name, len, parts[i])) return true;
    return false;
}

void http_redact_url(strbuf *out, const char *url) {
    const char *p = url;
    const char *scheme = strstr(p, "://");
    if (scheme) {
        const char *auth = scheme + 3;
        size_t hl = strcspn(auth, "/?#");
        const char *at = memchr(auth, '@', hl);
        strbuf_append(out, p, (size_t)(auth - p));
        if (at) {
            strbuf_puts(out, "***@");
            p = at + 1;
        } else {
            p = auth;
        }
    }
    const char *q = strchr(p, '?');
    if (!q) {
        strbuf_puts(out, p);
        return;
    }
    strbuf_append(out, p, (size_t)(q - p) + 1);
    for (p = q + 1; *p;) {
        size_t n = strcspn(p, "&#");
        const char *eq = memchr(p, '=', n);
        if (eq && http_secret_name(p, (size_t)(eq - p))) {
            strbuf_append(out, p, (size_t)(eq - p) + 1);
            strbuf_puts(out, "***");
        } else {
            strbuf_append(out, p, n);
        }
        p += n;
        if (*p == '#') {
            strbuf_puts(out, p);
            break;
        }
        if (*p == '&') strbuf_putc(out, *p++);
    }
}

void http_redact_header(strbuf *out, const char *name, const char *value) {
    strbuf_puts(out, name);
    strbuf_puts(out, ": ");
    strbuf_puts(out, http_secret_name(name, strlen(name)) ? "***" : value);
}

static void put_printable(strbuf *out, const char *s, size_t n) {
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        strbuf_putc(out, ch >= 0x20 && ch < 0x7f ? (char)ch : '.');
    }
}

void http_redact_body(strbuf *out, const void *body, size_t len, size_t max) {
    const char *s = body;
    size_t n = len < max ? len : max;
    /* JSON-ish: "name" : "value" with a secret name has the value replaced */
    size_t i = 0;
    bool form = n > 0 && s[0] != '{' && s[0] != '[' && s[0] != '<';
    while (i < n) {
        if (form) {
            size_t j = i;
            while (j < n && s[j] != '&') j++;
            const char *eq = memchr(s + i, '=', j - i);
            if (eq && http_secret_name(s + i, (size_t)(eq - (s + i)))) {
                put_printable(out, s + i, (size_t)(eq - (s + i)) + 1);
                strbuf_puts(out, "***");
            } else {
                put_printable(out, s + i, j - i);
            }
            if (j < n) strbuf_putc(out, '&');
            i = j + 1;
            continue;
        }
        if (s[i] != '"') {
            put_printable(out, s + i, 1);
            i++;
            continue;
        }
        size_t j = i + 1;
        while (j < n && s[j] != '"') j += s[j] == '\\' ? 2 : 1;
        if (j >= n) {
            put_printable(out, s + i, n - i);
            break;
        }
        size_t name_at = i + 1, name_len = j - i - 1;
        put_printable(out, s + i, j + 1 - i);
        i = j + 1;
        size_t k = i;
        while (k < n && (s[k] == ' ' || s[k] == '\t' || s[k] == '\r' || s[k] == '\n')) k++;
        if (k < n && s[k] == ':' && http_secret_name(s + name_at, name_len)) {
            k++;
            while (k < n && (s[k] == ' ' || s[k] == '\t' || s[k] == '\r' || s[k] == '\n')) k++;
            strbuf_puts(out, ":\"***\"");
            if (k < n && s[k] == '"') {
                k++;
                while (k < n && s[k] != '"') k += s[k] == '\\' ? 2 : 1;
                i = k + 1;
            } else {
                while (k < n && s[k] != ',' && s[k] != '}' && s[k] != ']') k++;
                i = k;
            }
        }
    }
    if (len > n) strbuf_printf(out, "... (%zu bytes)", len);
}

/* ---- the client ------------------------------------------------------------------------------ */

static void share_lock(CURL *h, curl_lock_data data, curl_lock_access access, void *ud) {
    (void)h;
    (void)access;
    http_client *c = ud;
    if ((int)data >= 0 && data < CURL_LOCK_DATA_LAST) pthread_mutex_lock(&c->share_locks[data]);
}

static void share_unlock(CURL *h, curl_lock_data data, void *ud) {
    (void)h;
    http_client *c = ud;
    if ((int)data >= 0 && data < CURL_LOCK_DATA_LAST) pthread_mutex_unlock(&c->share_locks[data]);
}

int http_client_create(const http_client_config *cfg, http_client **out, sqe_error *err) {
    *out = NULL;
    pthread_once(&g_once, init_once);
    http_client_config d = {0};
    if (!cfg) cfg = &d;
    http_client *c = calloc(1, sizeof *c);
    if (!c) return err_nomem(err, "HTTP client");
    c->cfg = *cfg;
    c->name = strdup(cfg->name && *cfg->name ? cfg->name : "HTTP");
    c->ca_file = cfg->ca_file && *cfg->ca_file ? strdup(cfg->ca_file) : NULL;
    c->ca_path = cfg->ca_path && *cfg->ca_path ? strdup(cfg->ca_path) : NULL;
    if (c->cfg.connect_timeout_ms <= 0) c->cfg.connect_timeout_ms = 10000;
    if (c->cfg.timeout_ms == 0) c->cfg.timeout_ms = 30000;
    if (c->cfg.timeout_ms < 0) c->cfg.timeout_ms = 0;
    if (c->cfg.total_timeout_ms < 0) c->cfg.total_timeout_ms = 0;
    if (c->cfg.low_speed_time_s < 0) c->cfg.low_speed_time_s = 0;
    if (c->cfg.max_attempts <= 0) c->cfg.max_attempts = 4;
    if (c->cfg.backoff_ms <= 0) c->cfg.backoff_ms = 100;
    if (c->cfg.max_backoff_ms <= 0) c->cfg.max_backoff_ms = 5000;
    if (c->cfg.max_retry_after_ms <= 0) c->cfg.max_retry_after_ms = 30000;
    if (!c->cfg.max_body) c->cfg.max_body = HTTP_DEFAULT_MAX_BODY;
    if (c->cfg.pool_max <= 0) c->cfg.pool_max = 16;
    c->idle = calloc((size_t)c->cfg.pool_max, sizeof *c->idle);
    c->share = curl_share_init();
    if (!c->name || !c->idle || !c->share || (cfg->ca_file && *cfg->ca_file && !c->ca_file) ||
        (cfg->ca_path && *cfg->ca_path && !c->ca_path)) {
        if (c->share) curl_share_cleanup(c->share);
        free(c->idle);
        free(c->name);
        free(c->ca_file);
        free(c->ca_path);
        free(c);
        return err_nomem(err, "HTTP client");
    }
    c->cfg.name = c->name;
    c->cfg.ca_file = c->ca_file;
    c->cfg.ca_path = c->ca_path;
    pthread_mutex_init(&c->lock, NULL);
    for (int i = 0; i < CURL_LOCK_DATA_LAST; i++) pthread_mutex_init(&c->share_locks[i], NULL);
    curl_share_setopt(c->share, CURLSHOPT_LOCKFUNC, share_lock);
    curl_share_setopt(c->share, CURLSHOPT_UNLOCKFUNC, share_unlock);
    curl_share_setopt(c->share, CURLSHOPT_USERDATA, c);
    curl_share_setopt(c->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_CONNECT);
    curl_share_setopt(c->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
    curl_share_setopt(c->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
    *out = c;
    return SQE_OK;
}

void http_client_destroy(http_client *c) {
    if (!c) return;
    for (int i = 0; i < c->n_idle; i++) curl_easy_cleanup(c->idle[i]);
    curl_share_cleanup(c->share);
    for (int i = 0; i < CURL_LOCK_DATA_LAST; i++) pthread_mutex_destroy(&c->share_locks[i]);
    pthread_mutex_destroy(&c->lock);
    free(c->idle);
    free(c->name);
    free(c->ca_file);
    free(c->ca_path);
    free(c);
}

void http_client_stats_get(const http_client *c, http_client_stats *out) {
    out->requests = atomic_load(&c->requests);
    out->retries = atomic_load(&c->retries);
    out->connections = atomic_load(&c->connections);
    out->bytes_in = atomic_load(&c->bytes_in);
    out->bytes_out = atomic_load(&c->bytes_out);
}

static CURL *handle_get(http_client *c) {
    CURL *h = NULL;
    pthread_mutex_lock(&c->lock);
    if (c->n_idle > 0) h = c->idle[--c->n_idle];
    pthread_mutex_unlock(&c->lock);
    if (h) {
        curl_easy_reset(h);
        return h;
    }
    return curl_easy_init();
}

static void handle_put(http_client *c, CURL *h) {
    if (!h) return;
    pthread_mutex_lock(&c->lock);
    if (c->n_idle < c->cfg.pool_max) {
        c->idle[c->n_idle++] = h;
        h = NULL;
    }
    pthread_mutex_unlock(&c->lock);
    if (h) curl_easy_cleanup(h);
}

/* ---- responses ------------------------------------------------------------------------------- */

static void headers_free(http_response *r) {
    for (size_t i = 0; i < r->n_headers; i++) {
        free((char *)r->headers[i].name);
        free((char *)r->headers[i].value);
    }
    free(r->headers);
    r->headers = NULL;
    r->n_headers = 0;
}

void http_response_free(http_response *resp) {
    if (!resp) return;
    strbuf_reset(&resp->body);
    headers_free(resp);
    memset(resp, 0, sizeof *resp);
}

const char *http_response_header(const http_response *resp, const char *name) {
    for (size_t i = 0; resp && i < resp->n_headers; i++)
        if (strcasecmp(resp->headers[i].name, name) == 0) return resp->headers[i].value;
    return NULL;
}

/* ---- one attempt ----------------------------------------------------------------------------- */

struct http_attempt {
    struct curl_slist *hl;
    int number;
    bool failed;
};

bool http_attempt_header(http_attempt *a, const char *name, const char *value) {
    size_t n = strlen(name) + strlen(value) + 3;
    char *line = malloc(n);
    if (!line) return !(a->failed = true);
    snprintf(line, n, "%s: %s", name, value);
    struct curl_slist *l = curl_slist_append(a->hl, line);
    free(line);
    if (!l) return !(a->failed = true);
    a->hl = l;
    return true;
}

int http_attempt_number(const http_attempt *a) { return a->number; }

typedef struct xfer {
    http_client *c;
    const http_request *req;
    http_response *resp;
    CURL *h;
    http_attempt att;
    char errbuf[CURL_ERROR_SIZE];
    size_t max_body;
    int64_t started_ms;   /* first attempt (total deadline) */
    int64_t attempt_ms;   /* this attempt */
    long status;          /* as seen by the body callback */
    bool too_big, sink_done, sink_abort, cancelled, alloc_failed;
    CURLcode cc;          /* multi transfers */
    int64_t ready_ms;     /* send_many: when the next attempt may start */
    bool pending, active;
} xfer;

static bool is_2xx(long s) { return s >= 200 && s < 300; }

static size_t on_body(char *data, size_t sz, size_t nm, void *ud) {
    xfer *x = ud;
    size_t n = sz * nm;
    atomic_fetch_add(&x->c->bytes_in, n);
    if (!x->status) curl_easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &x->status);
    if (x->req->sink && is_2xx(x->status)) {
        http_sink_result r = x->req->sink(x->req->ud, x->status, data, n);
        if (r == HTTP_SINK_MORE) return n;
        if (r == HTTP_SINK_DONE) x->sink_done = true;
        else x->sink_abort = true;
        return 0;
    }
    strbuf *b = &x->resp->body;
    if (b->len + n > x->max_body) {
        x->too_big = true;
        return 0;
    }
    strbuf_append(b, data, n);
    if (b->failed) {
        x->alloc_failed = true;
        return 0;
    }
    return n;
}

static size_t on_header(char *data, size_t sz, size_t nm, void *ud) {
    xfer *x = ud;
    size_t n = sz * nm;
    http_response *r = x->resp;
    if (n >= 5 && strncmp(data, "HTTP/", 5) == 0) { /* a new answer starts */
        headers_free(r);
        x->status = 0;
        return n;
    }
    const char *colon = memchr(data, ':', n);
    if (!colon || r->n_headers >= MAX_HEADERS) return n;
    if (!r->headers && !(r->headers = calloc(MAX_HEADERS, sizeof *r->headers))) return n;
    size_t nl = (size_t)(colon - data);
    const char *v = colon + 1;
    size_t vl = n - nl - 1;
    while (vl && (*v == ' ' || *v == '\t')) v++, vl--;
    while (vl && (v[vl - 1] == '\r' || v[vl - 1] == '\n' || v[vl - 1] == ' ')) vl--;
    char *name = strndup(data, nl), *value = strndup(v, vl);
    if (!name || !value) {
        free(name);
        free(value);
        return n;
    }
    r->headers[r->n_headers++] = (http_header){name, value};
    return n;
}

static int on_progress(void *ud, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un) {
    (void)dt, (void)dn, (void)ut, (void)un;
    xfer *x = ud;
    if (x->req->cancel && x->req->cancel(x->req->ud)) {
        x->cancelled = true;
        return 1;
    }
    return 0;
}

static const char *method_of(const http_request *req) {
    return req->method && *req->method ? req->method : "GET";
}

static bool may_retry(const http_request *req) {
    if (req->retry == HTTP_RETRY_YES) return true;
    if (req->retry == HTTP_RETRY_NO) return false;
    const char *m = method_of(req);
    return !strcmp(m, "GET") || !strcmp(m, "HEAD") || !strcmp(m, "PUT") || !strcmp(m, "DELETE") ||
           !strcmp(m, "OPTIONS");
}

static void log_request_detail(const xfer *x) {
    strbuf sb;
    strbuf_init(&sb);
    for (struct curl_slist *l = x->att.hl; l; l = l->next) {
        const char *colon = strchr(l->data, ':');
        if (!colon || colon[1] == '\0') continue;
        char name[128];
        size_t nl = (size_t)(colon - l->data) < sizeof name - 1 ? (size_t)(colon - l->data)
                                                                 : sizeof name - 1;
        memcpy(name, l->data, nl);
        name[nl] = '\0';
        strbuf_printf(&sb, "%s > ", x->c->name);
        http_redact_header(&sb, name, colon[1] == ' ' ? colon + 2 : colon + 1);
        if (!sb.failed) log_line(strbuf_cstr(&sb));
        sb.len = 0;
        if (sb.data) sb.data[0] = '\0';
    }
    if (x->req->body && x->req->body_len) {
        strbuf_printf(&sb, "%s > body: ", x->c->name);
        if (x->req->body_secret) strbuf_printf(&sb, "(%zu bytes, not logged)", x->req->body_len);
        else http_redact_body(&sb, x->req->body, x->req->body_len, LOG_BODY_BYTES);
        if (!sb.failed) log_line(strbuf_cstr(&sb));
    }
    strbuf_reset(&sb);
}

/* Sets up attempt number x->att.number on a fresh (or reset) handle x->h. */
static int attempt_setup(xfer *x, sqe_error *err) {
    http_client *c = x->c;
    const http_request *req = x->req;
    http_response *resp = x->resp;
    strbuf_reset(&resp->body);
    headers_free(resp);
    resp->status = 0;
    x->status = 0;
    x->too_big = x->sink_done = x->sink_abort = x->cancelled = x->alloc_failed = false;
    x->errbuf[0] = '\0';
    curl_slist_free_all(x->att.hl);
    x->att.hl = NULL;
    x->att.failed = false;
    for (size_t i = 0; i < req->n_headers; i++)
        http_attempt_header(&x->att, req->headers[i].name, req->headers[i].value);
    if (req->prepare) {
        int rc = req->prepare(req->ud, &x->att, err);
        if (rc) return rc;
    }
    struct curl_slist *l = x->att.failed ? NULL : curl_slist_append(x->att.hl, "Expect:");
    if (!l) return err_nomem(err, "HTTP request");
    x->att.hl = l;
    int64_t now = now_ms();
    x->attempt_ms = now;
    long timeout = c->cfg.timeout_ms;
    if (c->cfg.total_timeout_ms) {
        int64_t left = x->started_ms + c->cfg.total_timeout_ms - now;
        if (left <= 0) left = 1;
        if (!timeout || left < timeout) timeout = (long)left;
    }
    CURL *h = x->h;
    const char *m = method_of(req);
    curl_easy_setopt(h, CURLOPT_URL, req->url);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, x->att.hl);
    curl_easy_setopt(h, CURLOPT_SHARE, c->share);
    curl_easy_setopt(h, CURLOPT_PRIVATE, x);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, (long)c->cfg.connect_timeout_ms);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, timeout);
    if (c->cfg.low_speed_time_s) {
        curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
        curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, (long)c->cfg.low_speed_time_s);
    }
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, x);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, x);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, x->errbuf);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, c->cfg.insecure ? 0L : 1L);
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, c->cfg.insecure ? 0L : 2L);
    if (c->ca_file) curl_easy_setopt(h, CURLOPT_CAINFO, c->ca_file);
    if (c->ca_path) curl_easy_setopt(h, CURLOPT_CAPATH, c->ca_path);
    if (!may_retry(req)) /* see NOTES: never resent behind our back */
        curl_easy_setopt(h, CURLOPT_FRESH_CONNECT, 1L);
    if (req->cancel) {
        curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
        curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
        curl_easy_setopt(h, CURLOPT_XFERINFODATA, x);
    }
    if (!strcmp(m, "HEAD")) {
        curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
    } else if (!strcmp(m, "GET") && !req->body) {
        curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
    } else {
        if (strcmp(m, "POST") != 0) curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, m);
        if (req->body || !strcmp(m, "POST") || !strcmp(m, "PUT")) {
            curl_easy_setopt(h, CURLOPT_POSTFIELDS, req->body ? (const char *)req->body : "");
            curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE,
                             (curl_off_t)(req->body ? req->body_len : 0));
        }
    }
    atomic_fetch_add(&c->requests, 1);
    if (x->att.number > 1) atomic_fetch_add(&c->retries, 1);
    if (req->body) atomic_fetch_add(&c->bytes_out, req->body_len);
    if (g_log_level >= 2) log_request_detail(x);
    return SQE_OK;
}

static bool retryable_curl(CURLcode cc) {
    switch (cc) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
        return true;
    default:
        return false;
    }
}

static bool retryable_status(long s) {
    return s == 429 || s == 500 || s == 502 || s == 503 || s == 504;
}

/* Retry-After in ms (delta seconds or an HTTP date); -1 when absent or unreadable. */
static int64_t retry_after_ms(const http_response *r) {
    const char *v = http_response_header(r, "Retry-After");
    if (!v || !*v) return -1;
    if (isdigit((unsigned char)*v)) {
        char *end;
        errno = 0;
        long long s = strtoll(v, &end, 10);
        if (errno || *end) return -1;
        return s > INT32_MAX / 1000 ? INT32_MAX : (int64_t)s * 1000;
    }
    time_t t = curl_getdate(v, NULL);
    if (t == (time_t)-1) return -1;
    int64_t d = ((int64_t)t - (int64_t)time(NULL)) * 1000;
    return d < 0 ? 0 : d;
}

static int64_t backoff_delay(const http_client *c, int attempt) {
    int64_t d = c->cfg.backoff_ms;
    for (int i = 1; i < attempt && d < c->cfg.max_backoff_ms; i++) d *= 2;
    if (d > c->cfg.max_backoff_ms) d = c->cfg.max_backoff_ms;
    return d + (int64_t)(next_random() % (uint64_t)(d / 2 + 1));
}

static void url_text(strbuf *sb, const char *url) { http_redact_url(sb, url); }

static void log_attempt(const xfer *x, CURLcode cc, long connects) {
    strbuf sb;
    strbuf_init(&sb);
    strbuf_printf(&sb, "%s %s ", x->c->name, method_of(x->req));
    url_text(&sb, x->req->url);
    if (cc == CURLE_OK || x->resp->status)
        strbuf_printf(&sb, " -> %ld", x->resp->status);
    else
        strbuf_printf(&sb, " -> %s", x->errbuf[0] ? x->errbuf : curl_easy_strerror(cc));
    strbuf_printf(&sb, " (%lld ms, attempt %d, %s connection)",
                  (long long)(now_ms() - x->attempt_ms), x->att.number,
                  connects > 0 ? "new" : "reused");
    if (!sb.failed) log_line(strbuf_cstr(&sb));
    if (g_log_level >= 2) {
        for (size_t i = 0; i < x->resp->n_headers; i++) {
            sb.len = 0;
            sb.data[0] = '\0';
            strbuf_printf(&sb, "%s < ", x->c->name);
            http_redact_header(&sb, x->resp->headers[i].name, x->resp->headers[i].value);
            if (!sb.failed) log_line(strbuf_cstr(&sb));
        }
    }
    strbuf_reset(&sb);
}

typedef enum verdict { V_DONE, V_RETRY, V_FAIL } verdict;

/* Judges the finished attempt of x (curl result cc): V_DONE (resp holds the answer), V_RETRY
 * (*delay_ms set), or V_FAIL (err set, *rc the code). */
static verdict attempt_judge(xfer *x, CURLcode cc, int64_t *delay_ms, int *rc, sqe_error *err) {
    http_client *c = x->c;
    const http_request *req = x->req;
    http_response *resp = x->resp;
    long connects = 0;
    if (curl_easy_getinfo(x->h, CURLINFO_NUM_CONNECTS, &connects) == CURLE_OK && connects > 0) {
        atomic_fetch_add(&c->connections, (uint64_t)connects);
        resp->connections += (int)connects;
    }
    resp->status = 0;
    resp->reason[0] = '\0';
    curl_easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &resp->status);
    resp->attempts = x->att.number;
    resp->not_sent = cc == CURLE_COULDNT_CONNECT || cc == CURLE_COULDNT_RESOLVE_HOST ||
                     cc == CURLE_COULDNT_RESOLVE_PROXY;
    if (g_log_level >= 1) log_attempt(x, cc, connects);
    const char *m = method_of(req);
    int a = x->att.number;
    strbuf u;
    strbuf_init(&u);
    url_text(&u, req->url);
    verdict v = V_FAIL;
    if (cc == CURLE_WRITE_ERROR && x->sink_done) cc = CURLE_OK;
    if (x->alloc_failed || u.failed) {
        *rc = err_nomem(err, "HTTP response");
    } else if (x->cancelled || (cc == CURLE_ABORTED_BY_CALLBACK)) {
        *rc = err_set(err, SQE_ERR_USER_CANCELED, "%s %s %s: canceled", c->name, m,
                      strbuf_cstr(&u));
    } else if (x->too_big) {
        *rc = err_set(err, SQE_ERR_IO_ERROR, "%s %s %s: response larger than %zu bytes", c->name,
                      m, strbuf_cstr(&u), x->max_body);
    } else if (x->sink_abort) {
        *rc = err_set(err, SQE_ERR_IO_ERROR, "%s %s %s: the response body was refused", c->name,
                      m, strbuf_cstr(&u));
    } else if (cc != CURLE_OK) {
        bool total_out = c->cfg.total_timeout_ms &&
                         now_ms() - x->started_ms >= c->cfg.total_timeout_ms;
        if (retryable_curl(cc) && !total_out && may_retry(req) && a < c->cfg.max_attempts) {
            *delay_ms = backoff_delay(c, a);
            v = V_RETRY;
        } else {
            resp->status = 0;
            strbuf why;
            strbuf_init(&why);
            strbuf_puts(&why, x->errbuf[0] ? x->errbuf : curl_easy_strerror(cc));
            if (total_out) strbuf_puts(&why, " (total timeout)");
            size_t wl = why.len < sizeof resp->reason - 1 ? why.len : sizeof resp->reason - 1;
            memcpy(resp->reason, strbuf_cstr(&why), wl);
            resp->reason[wl] = '\0';
            strbuf_reset(&why);
            *rc = err_set(err, SQE_ERR_IO_ERROR, "%s %s %s failed after %d attempt%s: %s%s",
                          c->name, m, strbuf_cstr(&u), a, a == 1 ? "" : "s",
                          x->errbuf[0] ? x->errbuf : curl_easy_strerror(cc),
                          total_out ? " (total timeout)" : "");
        }
    } else if (is_2xx(resp->status)) {
        v = V_DONE;
    } else {
        bool again = may_retry(req) && (retryable_status(resp->status) ||
                                        (req->retry_on && req->retry_on(req->ud, resp)));
        if (again && a < c->cfg.max_attempts) {
            int64_t d = backoff_delay(c, a);
            int64_t ra = retry_after_ms(resp);
            if (ra >= 0) d = ra > c->cfg.max_retry_after_ms ? c->cfg.max_retry_after_ms : ra;
            if (c->cfg.total_timeout_ms &&
                now_ms() + d - x->started_ms >= c->cfg.total_timeout_ms) {
                v = V_DONE; /* no time left: the caller gets this answer */
            } else {
                *delay_ms = d;
                v = V_RETRY;
            }
        } else {
            v = V_DONE;
        }
    }
    if (v == V_FAIL) strbuf_reset(&resp->body);
    strbuf_reset(&u);
    return v;
}

/* Sleeps ms, polling req's cancel hook; false when it cancelled. */
static bool wait_ms(const http_request *req, int64_t ms) {
    int64_t until = now_ms() + ms;
    for (;;) {
        if (req->cancel && req->cancel(req->ud)) return false;
        int64_t left = until - now_ms();
        if (left <= 0) return true;
        nap_ms(left < 50 ? left : 50);
    }
}

static int check_request(http_client *c, const http_request *req, sqe_error *err) {
    if (!req->url ||
        (strncmp(req->url, "http://", 7) != 0 && strncmp(req->url, "https://", 8) != 0))
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "%s: '%s' is not an http:// or https:// URL",
                       c->name, req->url ? req->url : "");
    return SQE_OK;
}

static void xfer_init(xfer *x, http_client *c, const http_request *req, http_response *resp) {
    memset(x, 0, sizeof *x);
    x->c = c;
    x->req = req;
    x->resp = resp;
    x->max_body = req->max_body ? req->max_body : c->cfg.max_body;
    x->started_ms = now_ms();
}

/* Runs the attempt on x->h: curl_easy_perform, or with a cancel hook a multi loop that polls
 * the hook every 50 ms (curl's progress callback alone may wait a second between calls). */
static CURLcode perform(xfer *x) {
    if (!x->req->cancel) return curl_easy_perform(x->h);
    CURLM *m = curl_multi_init();
    if (!m || curl_multi_add_handle(m, x->h) != CURLM_OK) {
        if (m) curl_multi_cleanup(m);
        return curl_easy_perform(x->h);
    }
    CURLcode cc = CURLE_OK;
    for (bool done = false; !done;) {
        int running = 0;
        CURLMcode mc = curl_multi_perform(m, &running);
        CURLMsg *msg;
        int left;
        while ((msg = curl_multi_info_read(m, &left)))
            if (msg->msg == CURLMSG_DONE) {
                cc = msg->data.result;
                done = true;
            }
        if (done) break;
        if (mc != CURLM_OK) {
            cc = CURLE_RECV_ERROR;
            break;
        }
        if (x->req->cancel(x->req->ud)) {
            x->cancelled = true;
            cc = CURLE_ABORTED_BY_CALLBACK;
            break;
        }
        curl_multi_poll(m, NULL, 0, 50, NULL);
    }
    curl_multi_remove_handle(m, x->h);
    curl_multi_cleanup(m);
    return cc;
}

int http_client_send(http_client *c, const http_request *req, http_response *resp,
                     sqe_error *err) {
    memset(resp, 0, sizeof *resp);
    strbuf_init(&resp->body);
    SQE_TRY(check_request(c, req, err));
    xfer x;
    xfer_init(&x, c, req, resp);
    if (!(x.h = handle_get(c))) return err_nomem(err, "HTTP connection");
    int rc = SQE_OK;
    for (x.att.number = 1;; x.att.number++) {
        if (x.att.number > 1) curl_easy_reset(x.h);
        rc = attempt_setup(&x, err);
        if (rc) {
            resp->not_sent = true;
            break;
        }
        CURLcode cc = perform(&x);
        int64_t delay = 0;
        verdict v = attempt_judge(&x, cc, &delay, &rc, err);
        if (v != V_RETRY) break;
        if (!wait_ms(req, delay)) {
            rc = err_set(err, SQE_ERR_USER_CANCELED, "%s %s: canceled", c->name, method_of(req));
            break;
        }
    }
    curl_slist_free_all(x.att.hl);
    handle_put(c, x.h);
    if (rc) strbuf_reset(&resp->body);
    return rc;
}

int http_client_send_many(http_client *c, const http_request *reqs, http_response *resps,
                          uint32_t n, int max_parallel, uint32_t *failed, sqe_error *err) {
    if (failed) *failed = 0;
    for (uint32_t i = 0; i < n; i++) {
        memset(&resps[i], 0, sizeof resps[i]);
        strbuf_init(&resps[i].body);
    }
    for (uint32_t i = 0; i < n; i++) {
        int rc = check_request(c, &reqs[i], err);
        if (rc) {
            if (failed) *failed = i;
            return rc;
        }
    }
    if (n == 0) return SQE_OK;
    if (max_parallel <= 0) max_parallel = 8;
    xfer *xs = calloc(n, sizeof *xs);
    CURLM *m = curl_multi_init();
    if (!xs || !m) {
        free(xs);
        if (m) curl_multi_cleanup(m);
        return err_nomem(err, "HTTP parallel requests");
    }
    for (uint32_t i = 0; i < n; i++) {
        xfer_init(&xs[i], c, &reqs[i], &resps[i]);
        xs[i].pending = true;
    }
    uint32_t n_pending = n, fail_at = UINT32_MAX;
    int active = 0, rc = SQE_OK;
    sqe_error first;
    memset(&first, 0, sizeof first);
    while (fail_at == UINT32_MAX && (n_pending > (uint32_t)active || active > 0)) {
        int64_t now = now_ms(), next_ready = INT64_MAX;
        for (uint32_t i = 0; i < n && active < max_parallel && fail_at == UINT32_MAX; i++) {
            xfer *x = &xs[i];
            if (!x->pending || x->active) continue;
            if (x->ready_ms > now) {
                if (x->ready_ms < next_ready) next_ready = x->ready_ms;
                continue;
            }
            if (!x->h && !(x->h = handle_get(c))) {
                fail_at = i;
                rc = err_nomem(&first, "HTTP connection");
                break;
            }
            x->att.number++;
            int r = attempt_setup(x, &first);
            if (!r && curl_multi_add_handle(m, x->h) != CURLM_OK)
                r = err_set(&first, SQE_ERR_IO_ERROR, "%s: curl multi failed", c->name);
            if (r) {
                fail_at = i;
                rc = r;
                break;
            }
            x->active = true;
            active++;
        }
        if (fail_at != UINT32_MAX) break;
        if (active == 0) {
            if (next_ready != INT64_MAX) {
                bool go = true;
                for (uint32_t i = 0; i < n && go; i++)
                    if (xs[i].pending && reqs[i].cancel && reqs[i].cancel(reqs[i].ud)) go = false;
                if (!go) {
                    rc = err_set(&first, SQE_ERR_USER_CANCELED, "%s: canceled", c->name);
                    fail_at = 0;
                    break;
                }
                int64_t d = next_ready - now_ms();
                nap_ms(d < 50 ? d : 50);
            }
            continue;
        }
        int running = 0;
        CURLMcode mc = curl_multi_perform(m, &running);
        CURLMsg *msg;
        int left;
        while ((msg = curl_multi_info_read(m, &left))) {
            if (msg->msg != CURLMSG_DONE) continue;
            xfer *x = NULL;
            curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&x);
            CURLcode cc = msg->data.result;
            curl_multi_remove_handle(m, msg->easy_handle);
            active--;
            if (!x) continue;
            x->active = false;
            int64_t delay = 0;
            int r = SQE_OK;
            sqe_error e;
            verdict v = attempt_judge(x, cc, &delay, &r, &e);
            uint32_t i = (uint32_t)(x - xs);
            if (v == V_RETRY) {
                x->ready_ms = now_ms() + delay;
                curl_easy_reset(x->h);
            } else {
                x->pending = false;
                n_pending--;
                handle_put(c, x->h);
                x->h = NULL;
                if (v == V_FAIL && i < fail_at) {
                    fail_at = i;
                    rc = r;
                    first = e;
                }
            }
        }
        if (mc != CURLM_OK && fail_at == UINT32_MAX) {
            rc = err_set(&first, SQE_ERR_IO_ERROR, "%s: %s", c->name, curl_multi_strerror(mc));
            fail_at = 0;
        }
        for (uint32_t i = 0; i < n && fail_at == UINT32_MAX; i++)
            if (xs[i].active && reqs[i].cancel && reqs[i].cancel(reqs[i].ud)) {
                rc = err_set(&first, SQE_ERR_USER_CANCELED, "%s %s: canceled", c->name,
                             method_of(&reqs[i]));
                fail_at = i;
            }
        if (active > 0 && fail_at == UINT32_MAX) curl_multi_poll(m, NULL, 0, 50, NULL);
    }
    for (uint32_t i = 0; i < n; i++) {
        xfer *x = &xs[i];
        if (x->active) curl_multi_remove_handle(m, x->h);
        if (x->h) handle_put(c, x->h);
        curl_slist_free_all(x->att.hl);
        if (rc) strbuf_reset(&resps[i].body);
    }
    curl_multi_cleanup(m);
    free(xs);
    if (rc) {
        if (failed) *failed = fail_at == UINT32_MAX ? 0 : fail_at;
        if (err) *err = first;
    }
    return rc;
}
