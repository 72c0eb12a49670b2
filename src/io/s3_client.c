/*
 * s3_client.c: S3 requests over libcurl easy handles, signed per attempt (see s3_client.h).
 *
 * INTERFACE: s3_client_create, s3_client_destroy, s3_client_requests, s3_client_url, s3_head,
 *            s3_get_range, s3_get_ranges, s3_put, s3_upload_file, s3_list, s3_entries_free,
 *            s3_delete, s3_delete_objects, s3_stats_get, s3_stats_reset, s3_stats_format.
 * NOTES
 *   - One request path: attempt_setup builds URL and headers (host, x-amz-date,
 *     x-amz-content-sha256, x-amz-security-token when the credentials carry one, plus the
 *     operation's own) and signs; the transfer runs alone (call_perform, curl_easy_perform) or
 *     with others (s3_get_ranges, the curl multi interface); attempt_result classifies it. Bodies are sent from memory (POSTFIELDS with a
 *     custom method), so a retry resends the same bytes; GET bodies stream into the caller's
 *     buffer, error bodies into a capped buffer for their <Code>/<Message>.
 *   - Payload hash: bodies sign their SHA-256; requests without a body sign the SHA-256 of the
 *     empty string (not UNSIGNED-PAYLOAD: servers that recompute the hash over plain http, as
 *     botocore-based ones do, expect the real one, and it costs nothing for an empty body).
 *   - Handles: a mutex-protected stack of idle easy handles, so parallel readers never share
 *     a handle; all of a client's handles (easy or inside a multi transfer) use one curl share
 *     object for the connection cache, DNS and TLS sessions (locked per data kind), so any
 *     thread reuses any idle keep-alive connection to the endpoint.
 *   - Parallel ranges (s3_get_ranges): the ranges go through one multi handle, at most
 *     max_parallel transfers at a time (a new one is added as one finishes; curl's own
 *     per-host limit is not used, since with a shared connection cache it counts the
 *     connections of other threads and can wait forever); the ranges that fail retryably are
 *     resent together in the next round after the longest of their backoff delays.
 *   - Statistics: every attempt counts in process-wide atomics by kind (s3_stats_get);
 *     SQE_S3_STATS=1 prints them to stderr at exit.
 *   - Transfers give up when fewer than 1 byte/s moves for 60 s, so a stalled server cannot
 *     hang a query; connects time out after 10 s.
 *   - Multipart (S3 API: CreateMultipartUpload, UploadPart, CompleteMultipartUpload,
 *     AbortMultipartUpload): parts of part_size bytes; any failure aborts the upload.
 */
#include "io/s3_client.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <openssl/md5.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/base64.h"

#define EMPTY_SHA256 "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
#define POOL_MAX 16
#define ERROR_BODY_CAP ((size_t)64 << 10)
#define LIST_BODY_CAP ((size_t)32 << 20)
#define MIN_PART ((size_t)5 << 20)

struct s3_client {
    char *scheme;    /* "http" or "https" */
    char *hostport;  /* "127.0.0.1:9000" */
    char *region;
    bool path_style;
    int max_attempts;
    int backoff_ms;
    size_t part_size;
    int max_parallel;
    pthread_mutex_t lock;
    CURL *idle[POOL_MAX];
    int n_idle;
    CURLSH *share;   /* connections, DNS and TLS sessions shared by all handles of the client */
    pthread_mutex_t share_locks[CURL_LOCK_DATA_LAST];
    _Atomic uint64_t requests;
};

/* Process-wide request statistics (s3_stats_get); all clients add to them. */
static struct {
    _Atomic uint64_t requests[S3_KIND_COUNT];
    _Atomic uint64_t retries, bytes_in, bytes_out, connections;
} g_stats;

static const char *const kind_names[S3_KIND_COUNT] = {"get", "head", "put", "list", "delete"};

void s3_stats_get(s3_stats *out) {
    memset(out, 0, sizeof *out);
    for (int k = 0; k < S3_KIND_COUNT; k++) {
        out->requests[k] = atomic_load(&g_stats.requests[k]);
        out->total += out->requests[k];
    }
    out->retries = atomic_load(&g_stats.retries);
    out->bytes_in = atomic_load(&g_stats.bytes_in);
    out->bytes_out = atomic_load(&g_stats.bytes_out);
    out->connections = atomic_load(&g_stats.connections);
}

void s3_stats_reset(void) {
    for (int k = 0; k < S3_KIND_COUNT; k++) atomic_store(&g_stats.requests[k], 0);
    atomic_store(&g_stats.retries, 0);
    atomic_store(&g_stats.bytes_in, 0);
    atomic_store(&g_stats.bytes_out, 0);
    atomic_store(&g_stats.connections, 0);
}

void s3_stats_format(const s3_stats *s, char *buf, size_t cap) {
    size_t at = 0;
    int n = snprintf(buf, cap, "requests=%llu", (unsigned long long)s->total);
    for (int k = 0; k < S3_KIND_COUNT && n > 0 && (size_t)n < cap - at; k++) {
        at += (size_t)n;
        n = snprintf(buf + at, cap - at, " %s=%llu", kind_names[k],
                     (unsigned long long)s->requests[k]);
    }
    if (n > 0 && (size_t)n < cap - at) {
        at += (size_t)n;
        snprintf(buf + at, cap - at, " retries=%llu bytes_in=%llu bytes_out=%llu connections=%llu",
                 (unsigned long long)s->retries, (unsigned long long)s->bytes_in,
                 (unsigned long long)s->bytes_out, (unsigned long long)s->connections);
    }
}

/* SQE_S3_STATS=1: one "sqe-s3-stats: ..." line on stderr at exit. */
static void stats_at_exit(void) {
    s3_stats s;
    s3_stats_get(&s);
    char line[512];
    s3_stats_format(&s, line, sizeof line);
    fprintf(stderr, "sqe-s3-stats: %s\n", line);
}

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static void curl_init_once(void) {
    curl_global_init(CURL_GLOBAL_DEFAULT);
    const char *v = getenv("SQE_S3_STATS");
    if (v && *v && strcmp(v, "0") != 0) atexit(stats_at_exit);
}

static void share_lock(CURL *h, curl_lock_data data, curl_lock_access access, void *ud) {
    (void)h;
    (void)access;
    s3_client *c = ud;
    if ((int)data >= 0 && data < CURL_LOCK_DATA_LAST) pthread_mutex_lock(&c->share_locks[data]);
}

static void share_unlock(CURL *h, curl_lock_data data, void *ud) {
    (void)h;
    s3_client *c = ud;
    if ((int)data >= 0 && data < CURL_LOCK_DATA_LAST) pthread_mutex_unlock(&c->share_locks[data]);
}

int s3_client_create(const s3_config *cfg, s3_client **out, sqe_error *err) {
    *out = NULL;
    pthread_once(&curl_once, curl_init_once);
    const char *region = cfg->region && *cfg->region ? cfg->region : "us-east-1";
    char dflt[256];
    const char *ep = cfg->endpoint && *cfg->endpoint ? cfg->endpoint : NULL;
    if (!ep) {
        snprintf(dflt, sizeof dflt, "https://s3.%s.amazonaws.com", region);
        ep = dflt;
    }
    const char *hp;
    size_t scheme_len;
    if (strncmp(ep, "http://", 7) == 0) {
        hp = ep + 7;
        scheme_len = 4;
    } else if (strncmp(ep, "https://", 8) == 0) {
        hp = ep + 8;
        scheme_len = 5;
    } else {
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                       "S3 endpoint '%s' must start with http:// or https://", ep);
    }
    size_t hl = strcspn(hp, "/?#");
    if (hl == 0 || hp[hl + (hp[hl] == '/')] != '\0')
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                       "S3 endpoint '%s' must be scheme://host[:port] with no path", ep);
    for (size_t i = 0; i < hl; i++)
        if ((unsigned char)hp[i] <= ' ' || hp[i] == '@')
            return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "S3 endpoint '%s' has a bad host", ep);
    s3_client *c = calloc(1, sizeof *c);
    if (!c) return err_nomem(err, "S3 client");
    c->scheme = strndup(ep, scheme_len);
    c->hostport = strndup(hp, hl);
    c->region = strdup(region);
    if (!c->scheme || !c->hostport || !c->region) {
        free(c->scheme);
        free(c->hostport);
        free(c->region);
        free(c);
        return err_nomem(err, "S3 client");
    }
    c->path_style = cfg->path_style;
    c->max_attempts = cfg->max_attempts > 0 ? cfg->max_attempts : 6;
    c->backoff_ms = cfg->backoff_ms > 0 ? cfg->backoff_ms : 100;
    c->part_size = cfg->part_size ? cfg->part_size : (size_t)8 << 20;
    if (c->part_size < MIN_PART) c->part_size = MIN_PART;
    c->max_parallel = cfg->max_parallel > 0 ? cfg->max_parallel : 8;
    pthread_mutex_init(&c->lock, NULL);
    for (int i = 0; i < CURL_LOCK_DATA_LAST; i++) pthread_mutex_init(&c->share_locks[i], NULL);
    c->share = curl_share_init();
    if (c->share) {
        curl_share_setopt(c->share, CURLSHOPT_LOCKFUNC, share_lock);
        curl_share_setopt(c->share, CURLSHOPT_UNLOCKFUNC, share_unlock);
        curl_share_setopt(c->share, CURLSHOPT_USERDATA, c);
        curl_share_setopt(c->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_CONNECT);
        curl_share_setopt(c->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
        curl_share_setopt(c->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
    }
    *out = c;
    return SQE_OK;
}

void s3_client_destroy(s3_client *c) {
    if (!c) return;
    for (int i = 0; i < c->n_idle; i++) curl_easy_cleanup(c->idle[i]);
    if (c->share) curl_share_cleanup(c->share);
    for (int i = 0; i < CURL_LOCK_DATA_LAST; i++) pthread_mutex_destroy(&c->share_locks[i]);
    pthread_mutex_destroy(&c->lock);
    free(c->scheme);
    free(c->hostport);
    free(c->region);
    free(c);
}

uint64_t s3_client_requests(const s3_client *c) { return atomic_load(&c->requests); }

static CURL *handle_get(s3_client *c) {
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

static void handle_put(s3_client *c, CURL *h) {
    pthread_mutex_lock(&c->lock);
    if (c->n_idle < POOL_MAX) {
        c->idle[c->n_idle++] = h;
        h = NULL;
    }
    pthread_mutex_unlock(&c->lock);
    if (h) curl_easy_cleanup(h);
}

/* The object path as signed: "/bucket/key" (path style) or "/key". */
static void object_path(const s3_client *c, strbuf *sb, const char *bucket, const char *key) {
    strbuf_putc(sb, '/');
    if (c->path_style) {
        strbuf_puts(sb, bucket);
        if (key && *key) strbuf_putc(sb, '/');
    }
    if (key) strbuf_puts(sb, key);
}

char *s3_client_url(const s3_client *c, const char *bucket, const char *key, char **host) {
    strbuf h, u, p;
    strbuf_init(&h);
    strbuf_init(&u);
    strbuf_init(&p);
    if (!c->path_style) {
        strbuf_puts(&h, bucket);
        strbuf_putc(&h, '.');
    }
    strbuf_puts(&h, c->hostport);
    object_path(c, &p, bucket, key);
    strbuf_printf(&u, "%s://%s", c->scheme, strbuf_cstr(&h));
    sigv4_uri_encode(&u, strbuf_cstr(&p), p.len, true);
    strbuf_reset(&p);
    if (h.failed || u.failed) {
        strbuf_reset(&h);
        strbuf_reset(&u);
        *host = NULL;
        return NULL;
    }
    *host = strbuf_move(&h);
    return strbuf_move(&u);
}

/* ---- one request ---------------------------------------------------------------------------- */

typedef struct s3_call {
    const char *method;
    const char *bucket;
    const char *key;              /* NULL: the bucket */
    const sigv4_pair *query;
    uint32_t n_query;
    const sigv4_pair *headers;    /* operation headers (Range, If-None-Match, Content-MD5) */
    uint32_t n_headers;
    const void *body;             /* NULL: no body */
    size_t body_len;
    /* response */
    uint8_t *dst;                 /* ranged GET target */
    size_t dst_len;
    uint64_t dst_skip;            /* bytes to drop first (a server that ignored Range) */
    uint64_t dst_skip0;           /* dst_skip before the first attempt */
    size_t dst_got;
    size_t resp_cap;              /* cap for resp (success bodies); error bodies: ERROR_BODY_CAP */
    strbuf resp;
    char *etag;
    int64_t content_length;       /* from the response headers, -1 when absent */
    long status;
    CURL *h;
    struct curl_slist *hl;        /* the attempt's headers, alive until it has finished */
    int attempt;                  /* 1 for the first try */
    CURLcode cc;                  /* curl's result (multi transfers) */
    bool overflow;
} s3_call;

static size_t on_body(char *data, size_t sz, size_t nm, void *arg) {
    s3_call *call = arg;
    size_t n = sz * nm;
    atomic_fetch_add(&g_stats.bytes_in, n);
    long status = 0;
    curl_easy_getinfo(call->h, CURLINFO_RESPONSE_CODE, &status);
    bool ok = status >= 200 && status < 300;
    if (call->dst && ok) {
        size_t skip = 0;
        if (status == 200) { /* the whole object: drop what precedes the range */
            skip = call->dst_skip > n ? n : (size_t)call->dst_skip;
            call->dst_skip -= skip;
        }
        size_t take = n - skip, room = call->dst_len - call->dst_got;
        if (take > room) {
            if (status != 200) {
                call->overflow = true;
                return 0;
            }
            memcpy(call->dst + call->dst_got, data + skip, room);
            call->dst_got += room;
            return 0; /* the range is complete: stop the transfer (see call_perform) */
        }
        memcpy(call->dst + call->dst_got, data + skip, take);
        call->dst_got += take;
        return n;
    }
    size_t cap = ok && call->resp_cap ? call->resp_cap : ERROR_BODY_CAP;
    if (call->resp.len + n > cap) {
        call->overflow = ok;
        return ok ? 0 : n; /* error bodies: keep the head, drop the rest */
    }
    strbuf_append(&call->resp, data, n);
    return call->resp.failed ? 0 : n;
}

static size_t on_header(char *data, size_t sz, size_t nm, void *arg) {
    s3_call *call = arg;
    size_t n = sz * nm;
    if (n > 5 && strncasecmp(data, "etag:", 5) == 0) {
        const char *v = data + 5;
        size_t l = n - 5;
        while (l && (*v == ' ' || *v == '\t')) v++, l--;
        while (l && (v[l - 1] == '\r' || v[l - 1] == '\n' || v[l - 1] == ' ')) l--;
        free(call->etag);
        call->etag = strndup(v, l);
    } else if (n > 15 && strncasecmp(data, "content-length:", 15) == 0) {
        char num[32];
        size_t l = n - 15 < sizeof num - 1 ? n - 15 : sizeof num - 1;
        memcpy(num, data + 15, l);
        num[l] = '\0';
        char *e;
        errno = 0;
        long long v = strtoll(num, &e, 10);
        while (*e == ' ' || *e == '\r' || *e == '\n') e++;
        call->content_length = errno == 0 && *e == '\0' && v >= 0 ? v : -1;
    }
    return n;
}

static bool retryable_curl(CURLcode rc) {
    switch (rc) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_SSL_CONNECT_ERROR:
        return true;
    default:
        return false;
    }
}

static bool retryable_status(long s) { return s == 500 || s == 502 || s == 503 || s == 504 || s == 429; }

static void sleep_ms(long ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* The "s3://bucket/key" name used in messages. */
static void object_name(char *buf, size_t cap, const s3_call *call) {
    snprintf(buf, cap, "s3://%s/%s", call->bucket, call->key ? call->key : "");
}

static int status_error(const s3_call *call, sqe_error *err) {
    char name[1200];
    object_name(name, sizeof name, call);
    s3_error_info e;
    s3_error_info_parse(call->resp.data, call->resp.len, &e);
    const char *code = e.code ? e.code : "";
    const char *msg = e.message ? e.message : "";
    const char *sep = *code && *msg ? ": " : "";
    int rc;
    if (call->status == 404)
        rc = err_set(err, SQE_ERR_NOT_FOUND, "S3 object not found: %s%s%s%s%s", name,
                     *code ? " (" : "", code, *code ? ")" : "", "");
    else if (call->status == 403)
        rc = err_set(err, SQE_ERR_PERMISSION_DENIED, "S3 denied access to %s: %s%s%s", name,
                     *code ? code : "403 Forbidden", sep, msg);
    else if (call->status == 412)
        rc = err_set(err, SQE_ERR_ALREADY_EXISTS, "File already exists: %s", name);
    else
        rc = err_set(err, SQE_ERR_IO_ERROR, "S3 %s %s failed: HTTP %ld%s%s%s%s", call->method,
                     name, call->status, *code || *msg ? " " : "", code, sep, msg);
    s3_error_info_reset(&e);
    return rc;
}

/* The counter an attempt of call adds to (see s3_kind). */
static s3_kind call_kind(const s3_call *call) {
    const char *m = call->method;
    if (strcmp(m, "HEAD") == 0) return S3_KIND_HEAD;
    if (strcmp(m, "GET") == 0) return call->key ? S3_KIND_GET : S3_KIND_LIST;
    if (strcmp(m, "DELETE") == 0) return S3_KIND_DELETE;
    if (strcmp(m, "POST") == 0 && call->n_query && strcmp(call->query[0].name, "delete") == 0)
        return S3_KIND_DELETE;
    return S3_KIND_PUT; /* PUT, and the POSTs of a multipart upload */
}

/* Clears the response state of call before an attempt. */
static void attempt_reset(s3_call *call) {
    strbuf_reset(&call->resp);
    free(call->etag);
    call->etag = NULL;
    call->content_length = -1;
    call->dst_got = 0;
    call->dst_skip = call->dst_skip0;
    call->overflow = false;
    call->status = 0;
}

/* Builds and signs one attempt of call and sets it up on call->h (which must be a fresh or
 * reset handle); call->hl keeps the header list alive until attempt_cleanup. Counts the
 * attempt in the process statistics. */
static int attempt_setup(s3_client *c, const sigv4_credentials *cred, s3_call *call,
                         sqe_error *err) {
    int rc = SQE_OK;
    char *host = NULL;
    char *url = s3_client_url(c, call->bucket, call->key, &host);
    strbuf full_url, path;
    strbuf_init(&full_url);
    strbuf_init(&path);
    struct curl_slist *hl = NULL;
    sigv4_result sig = {0};
    sigv4_pair hdr[16];
    if (!url) {
        rc = err_nomem(err, "S3 request");
        goto out;
    }
    strbuf_puts(&full_url, url);
    if (call->n_query) {
        strbuf_putc(&full_url, '?');
        sigv4_canonical_query(&full_url, call->query, call->n_query);
    }
    object_path(c, &path, call->bucket, call->key);
    char amz_date[17], payload[65];
    sigv4_amz_date(time(NULL), amz_date);
    if (call->body) sigv4_sha256_hex(call->body, call->body_len, payload);
    else memcpy(payload, EMPTY_SHA256, sizeof payload);
    uint32_t nh = 0;
    hdr[nh++] = (sigv4_pair){"host", host};
    hdr[nh++] = (sigv4_pair){"x-amz-date", amz_date};
    hdr[nh++] = (sigv4_pair){"x-amz-content-sha256", payload};
    if (cred->session_token && *cred->session_token)
        hdr[nh++] = (sigv4_pair){"x-amz-security-token", cred->session_token};
    for (uint32_t i = 0; i < call->n_headers && nh < 16; i++) hdr[nh++] = call->headers[i];
    sigv4_request rq = {call->method, strbuf_cstr(&path), call->query, call->n_query, hdr, nh,
                        payload, c->region, "s3", amz_date};
    if (full_url.failed || path.failed) {
        rc = err_nomem(err, "S3 request");
        goto out;
    }
    rc = sigv4_sign(&rq, cred, &sig, err);
    if (rc) goto out;
    for (uint32_t i = 0; i < nh; i++) {
        char line[4096];
        snprintf(line, sizeof line, "%s: %s", hdr[i].name, hdr[i].value);
        struct curl_slist *n = curl_slist_append(hl, line);
        if (!n) goto oom;
        hl = n;
    }
    char auth[1024];
    snprintf(auth, sizeof auth, "Authorization: %s", sig.authorization);
    struct curl_slist *n = curl_slist_append(hl, auth);
    if (!n) goto oom;
    hl = n;
    if (!(n = curl_slist_append(hl, "Expect:"))) goto oom;
    hl = n;
    if (call->body) {
        if (!(n = curl_slist_append(hl, "Content-Type: application/octet-stream"))) goto oom;
        hl = n;
    }
    CURL *h = call->h;
    curl_easy_setopt(h, CURLOPT_URL, strbuf_cstr(&full_url)); /* copied by libcurl */
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, hl);
    curl_easy_setopt(h, CURLOPT_SHARE, c->share);
    curl_easy_setopt(h, CURLOPT_PRIVATE, call);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
    curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, 60L);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, call);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, call);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    if (strcmp(call->method, "HEAD") == 0) {
        curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
    } else if (strcmp(call->method, "GET") == 0) {
        curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
    } else {
        curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, call->method);
        if (call->body) {
            curl_easy_setopt(h, CURLOPT_POSTFIELDS, call->body);
            curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)call->body_len);
        }
    }
    call->hl = hl;
    hl = NULL;
    atomic_fetch_add(&c->requests, 1);
    atomic_fetch_add(&g_stats.requests[call_kind(call)], 1);
    if (call->attempt > 1) atomic_fetch_add(&g_stats.retries, 1);
    if (call->body) atomic_fetch_add(&g_stats.bytes_out, call->body_len);
    goto out;
oom:
    rc = err_nomem(err, "S3 request");
out:
    curl_slist_free_all(hl);
    sigv4_result_reset(&sig);
    strbuf_reset(&full_url);
    strbuf_reset(&path);
    free(url);
    free(host);
    return rc;
}

/* Frees what attempt_setup kept for the transfer (after it has finished). */
static void attempt_cleanup(s3_call *call) {
    curl_slist_free_all(call->hl);
    call->hl = NULL;
}

/* Judges a finished attempt (curl result cc; call->status read here). Returns SQE_OK with
 * *retry false on a 2xx answer, SQE_OK with *retry true when another attempt should be made,
 * else the error (with err set). */
static int attempt_result(s3_client *c, s3_call *call, CURLcode cc, bool *retry,
                          sqe_error *err) {
    *retry = false;
    call->status = 0;
    long connects = 0;
    if (curl_easy_getinfo(call->h, CURLINFO_NUM_CONNECTS, &connects) == CURLE_OK && connects > 0)
        atomic_fetch_add(&g_stats.connections, (uint64_t)connects);
    if (cc == CURLE_OK || cc == CURLE_WRITE_ERROR)
        curl_easy_getinfo(call->h, CURLINFO_RESPONSE_CODE, &call->status);
    int a = call->attempt;
    if (cc != CURLE_OK && !(cc == CURLE_WRITE_ERROR && call->status == 200 && call->dst &&
                            call->dst_got == call->dst_len)) {
        char name[1200];
        object_name(name, sizeof name, call);
        if (call->overflow)
            return err_set(err, SQE_ERR_IO_ERROR, "S3 returned more data than expected for %s",
                           name);
        if (!retryable_curl(cc) || a >= c->max_attempts)
            return err_set(err, SQE_ERR_IO_ERROR, "S3 %s %s failed after %d attempt%s: %s",
                           call->method, name, a, a == 1 ? "" : "s", curl_easy_strerror(cc));
    } else if (call->status >= 200 && call->status < 300) {
        return SQE_OK;
    } else {
        bool again = retryable_status(call->status);
        if (!again || a >= c->max_attempts) {
            int rc = status_error(call, err);
            if (again) err_prefix(err, "after %d attempts", a);
            return rc;
        }
    }
    *retry = true;
    return SQE_OK;
}

/* The delay before retry number a (1-based) of a request, with a little jitter. */
static long retry_delay(const s3_client *c, int a) {
    long d = c->backoff_ms;
    for (int i = 1; i < a && d < 5000; i++) d *= 2;
    if (d > 5000) d = 5000;
    return d + (long)(a * 13 % 37);
}

/* Performs call with retries; SQE_OK on a 2xx answer. */
static int call_perform(s3_client *c, const sigv4_credentials *cred, s3_call *call,
                        sqe_error *err) {
    if (!cred || !cred->access_key_id || !*cred->access_key_id || !cred->secret_access_key)
        return err_set(err, SQE_ERR_PERMISSION_DENIED,
                       "No S3 credentials for s3://%s/%s", call->bucket, call->key ? call->key : "");
    call->h = handle_get(c);
    if (!call->h) return err_nomem(err, "S3 connection");
    call->dst_skip0 = call->dst_skip;
    int rc = SQE_OK;
    for (call->attempt = 1;; call->attempt++) {
        attempt_reset(call);
        if (call->attempt > 1) curl_easy_reset(call->h);
        rc = attempt_setup(c, cred, call, err);
        if (rc) break;
        CURLcode cc = curl_easy_perform(call->h);
        attempt_cleanup(call);
        bool again;
        rc = attempt_result(c, call, cc, &again, err);
        if (rc || !again) break;
        sleep_ms(retry_delay(c, call->attempt));
    }
    handle_put(c, call->h);
    call->h = NULL;
    return rc;
}

static void call_done(s3_call *call) {
    strbuf_reset(&call->resp);
    free(call->etag);
    call->etag = NULL;
}

/* ---- operations ----------------------------------------------------------------------------- */

int s3_head(s3_client *c, const sigv4_credentials *cred, const char *bucket, const char *key,
            uint64_t *size, char **etag, sqe_error *err) {
    s3_call call = {.method = "HEAD", .bucket = bucket, .key = key};
    strbuf_init(&call.resp);
    if (etag) *etag = NULL;
    *size = 0;
    int rc = call_perform(c, cred, &call, err);
    if (rc == SQE_ERR_PERMISSION_DENIED && call.status == 403) {
        /* a HEAD answer has no body: ask again with a 1-byte GET to report S3's error code */
        uint8_t one;
        sqe_error why;
        if (s3_get_range(c, cred, bucket, key, 0, 1, &one, &why) == SQE_ERR_PERMISSION_DENIED &&
            err)
            *err = why;
    }
    if (!rc && call.content_length < 0)
        rc = err_set(err, SQE_ERR_IO_ERROR, "S3 HEAD s3://%s/%s: no Content-Length", bucket, key);
    if (!rc) {
        *size = (uint64_t)call.content_length;
        if (etag) {
            *etag = call.etag;
            call.etag = NULL;
        }
    }
    call_done(&call);
    return rc;
}

int s3_get_range(s3_client *c, const sigv4_credentials *cred, const char *bucket,
                 const char *key, uint64_t off, size_t len, void *buf, sqe_error *err) {
    if (len == 0) return SQE_OK;
    char range[64];
    snprintf(range, sizeof range, "bytes=%llu-%llu", (unsigned long long)off,
             (unsigned long long)(off + len - 1));
    sigv4_pair h[] = {{"range", range}};
    s3_call call = {.method = "GET", .bucket = bucket, .key = key, .headers = h, .n_headers = 1,
                    .dst = buf, .dst_len = len};
    strbuf_init(&call.resp);
    /* a server that ignores Range answers 200 with the whole object: on_body skips to off */
    call.dst_skip = off;
    int rc = call_perform(c, cred, &call, err);
    if (!rc && call.dst_got != len)
        rc = err_set(err, SQE_ERR_IO_ERROR,
                     "Cannot read s3://%s/%s: got %zu of %zu bytes at offset %llu (did it change "
                     "while reading?)", bucket, key, call.dst_got, len, (unsigned long long)off);
    call_done(&call);
    return rc;
}

/* Sends one attempt of every pending call, at most max_parallel at once on the multi handle
 * m (a new one starts as one finishes: a connection limit inside curl would wait on the
 * connections other threads hold in the shared cache). Every curl result lands in its call
 * (cc); every call that was sent has its handle in call->h and is no longer in m afterwards.
 * Fails only when a request cannot be built or curl's multi machinery fails; the transfers
 * already started are finished or removed first. */
static int multi_round(s3_client *c, const sigv4_credentials *cred, CURLM *m, s3_call *calls,
                       const bool *pending, uint32_t n, sqe_error *err) {
    uint32_t next = 0;
    int active = 0, rc = SQE_OK;
    for (;;) {
        while (!rc && active < c->max_parallel && next < n) {
            if (!pending[next]) {
                next++;
                continue;
            }
            s3_call *call = &calls[next++];
            call->attempt++;
            attempt_reset(call);
            call->cc = CURLE_OK;
            if (!(call->h = handle_get(c))) {
                rc = err_nomem(err, "S3 connection");
                break;
            }
            rc = attempt_setup(c, cred, call, err);
            if (rc) break;
            if (curl_multi_add_handle(m, call->h) != CURLM_OK) {
                rc = err_set(err, SQE_ERR_IO_ERROR, "S3 parallel read of s3://%s/%s: curl multi "
                             "failed", call->bucket, call->key);
                break;
            }
            call->cc = CURLE_AGAIN; /* in flight */
            active++;
        }
        if (active == 0) break;
        int running = 0;
        CURLMcode mc = curl_multi_perform(m, &running);
        int left;
        CURLMsg *msg;
        while ((msg = curl_multi_info_read(m, &left))) {
            if (msg->msg != CURLMSG_DONE) continue;
            s3_call *call = NULL;
            curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&call);
            CURLcode result = msg->data.result;
            curl_multi_remove_handle(m, msg->easy_handle);
            if (call) call->cc = result;
            active--;
        }
        if (mc != CURLM_OK) {
            for (uint32_t i = 0; i < n; i++)
                if (calls[i].h && calls[i].cc == CURLE_AGAIN) {
                    curl_multi_remove_handle(m, calls[i].h);
                    calls[i].cc = CURLE_RECV_ERROR;
                }
            if (!rc)
                rc = err_set(err, SQE_ERR_IO_ERROR, "S3 parallel read: %s", curl_multi_strerror(mc));
            break;
        }
        if (active > 0) curl_multi_poll(m, NULL, 0, 1000, NULL);
    }
    return rc;
}

int s3_get_ranges(s3_client *c, const sigv4_credentials *cred, const char *bucket,
                  const char *key, const s3_range *ranges, uint32_t n, sqe_error *err) {
    if (n == 0) return SQE_OK;
    if (n == 1) return s3_get_range(c, cred, bucket, key, ranges[0].off, ranges[0].len,
                                    ranges[0].buf, err);
    if (!cred || !cred->access_key_id || !*cred->access_key_id || !cred->secret_access_key)
        return err_set(err, SQE_ERR_PERMISSION_DENIED, "No S3 credentials for s3://%s/%s",
                       bucket, key);
    s3_call *calls = calloc(n, sizeof *calls);
    char (*range_text)[64] = calloc(n, sizeof *range_text);
    sigv4_pair *hdrs = calloc(n, sizeof *hdrs);
    bool *pending = calloc(n, sizeof *pending);
    CURLM *m = curl_multi_init();
    int rc = SQE_OK;
    if (!calls || !range_text || !hdrs || !pending || !m) {
        rc = err_nomem(err, "S3 parallel read");
        goto out_free;
    }
    uint32_t n_pending = 0;
    for (uint32_t i = 0; i < n; i++) {
        s3_call *call = &calls[i];
        strbuf_init(&call->resp);
        if (ranges[i].len == 0) continue;
        snprintf(range_text[i], sizeof range_text[i], "bytes=%llu-%llu",
                 (unsigned long long)ranges[i].off,
                 (unsigned long long)(ranges[i].off + ranges[i].len - 1));
        hdrs[i] = (sigv4_pair){"range", range_text[i]};
        call->method = "GET";
        call->bucket = bucket;
        call->key = key;
        call->headers = &hdrs[i];
        call->n_headers = 1;
        call->dst = ranges[i].buf;
        call->dst_len = ranges[i].len;
        call->dst_skip0 = ranges[i].off; /* a server that ignores Range: see on_body */
        pending[i] = true;
        n_pending++;
    }
    while (n_pending && !rc) {
        rc = multi_round(c, cred, m, calls, pending, n, err);
        long delay = 0;
        for (uint32_t i = 0; i < n; i++) {
            s3_call *call = &calls[i];
            if (!call->h) continue;
            attempt_cleanup(call);
            if (!rc && pending[i]) {
                bool again;
                sqe_error e;
                int r = attempt_result(c, call, call->cc, &again, &e);
                if (!r && !again && call->dst_got != call->dst_len)
                    r = err_set(&e, SQE_ERR_IO_ERROR,
                                "Cannot read s3://%s/%s: got %zu of %zu bytes at offset %llu (did "
                                "it change while reading?)", bucket, key, call->dst_got,
                                call->dst_len, (unsigned long long)ranges[i].off);
                if (r) {
                    rc = r;
                    if (err) *err = e;
                } else if (!again) {
                    pending[i] = false;
                    n_pending--;
                } else {
                    long d = retry_delay(c, call->attempt);
                    if (d > delay) delay = d;
                }
            }
            handle_put(c, call->h);
            call->h = NULL;
        }
        if (!rc && n_pending) sleep_ms(delay);
    }
out_free:
    if (calls)
        for (uint32_t i = 0; i < n; i++) call_done(&calls[i]);
    if (m) curl_multi_cleanup(m);
    free(calls);
    free(range_text);
    free(hdrs);
    free(pending);
    return rc;
}

int s3_put(s3_client *c, const sigv4_credentials *cred, const char *bucket, const char *key,
           const void *data, size_t len, bool if_none_match, sqe_error *err) {
    sigv4_pair h[] = {{"if-none-match", "*"}};
    s3_call call = {.method = "PUT", .bucket = bucket, .key = key, .headers = h,
                    .n_headers = if_none_match ? 1 : 0, .body = data ? data : "", .body_len = len};
    strbuf_init(&call.resp);
    int rc = call_perform(c, cred, &call, err);
    call_done(&call);
    return rc;
}

/* ---- multipart ------------------------------------------------------------------------------ */

static int multipart_abort(s3_client *c, const sigv4_credentials *cred, const char *bucket,
                           const char *key, const char *upload_id) {
    sigv4_pair q[] = {{"uploadId", upload_id}};
    s3_call call = {.method = "DELETE", .bucket = bucket, .key = key, .query = q, .n_query = 1};
    strbuf_init(&call.resp);
    int rc = call_perform(c, cred, &call, NULL);
    call_done(&call);
    return rc;
}

static int read_full(int fd, uint8_t *buf, size_t len, uint64_t off) {
    while (len > 0) {
        ssize_t n = pread(fd, buf, len, (off_t)off);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return n < 0 ? errno : EIO;
        buf += n;
        len -= (size_t)n;
        off += (uint64_t)n;
    }
    return 0;
}

static int multipart_upload(s3_client *c, const sigv4_credentials *cred, const char *bucket,
                            const char *key, int fd, uint64_t size, const char *path,
                            sqe_error *err) {
    sigv4_pair q_create[] = {{"uploads", ""}};
    s3_call call = {.method = "POST", .bucket = bucket, .key = key, .query = q_create,
                    .n_query = 1, .body = "", .body_len = 0, .resp_cap = ERROR_BODY_CAP};
    strbuf_init(&call.resp);
    int rc = call_perform(c, cred, &call, err);
    char *upload_id = rc ? NULL : s3_xml_text(call.resp.data, call.resp.len, "UploadId", NULL);
    call_done(&call);
    if (rc) return rc;
    if (!upload_id || !*upload_id) {
        free(upload_id);
        return err_set(err, SQE_ERR_IO_ERROR,
                       "S3 CreateMultipartUpload for s3://%s/%s returned no UploadId", bucket, key);
    }
    uint8_t *buf = malloc(c->part_size);
    strbuf done;
    strbuf_init(&done);
    strbuf_puts(&done, "<CompleteMultipartUpload>");
    if (!buf) rc = err_nomem(err, "S3 upload part");
    uint32_t part = 0;
    for (uint64_t off = 0; !rc && off < size; off += c->part_size) {
        size_t n = size - off < c->part_size ? (size_t)(size - off) : c->part_size;
        int e = read_full(fd, buf, n, off);
        if (e) {
            rc = err_set(err, SQE_ERR_IO_ERROR, "Cannot read %s: %s", path, strerror(e));
            break;
        }
        if (++part > 10000) {
            rc = err_set(err, SQE_ERR_IO_ERROR, "s3://%s/%s: more than 10000 parts", bucket, key);
            break;
        }
        char num[16];
        snprintf(num, sizeof num, "%u", part);
        sigv4_pair q[] = {{"partNumber", num}, {"uploadId", upload_id}};
        s3_call pc = {.method = "PUT", .bucket = bucket, .key = key, .query = q, .n_query = 2,
                      .body = buf, .body_len = n};
        strbuf_init(&pc.resp);
        rc = call_perform(c, cred, &pc, err);
        if (!rc && !pc.etag)
            rc = err_set(err, SQE_ERR_IO_ERROR, "S3 UploadPart for s3://%s/%s returned no ETag",
                         bucket, key);
        if (!rc) {
            strbuf_printf(&done, "<Part><PartNumber>%u</PartNumber><ETag>", part);
            s3_xml_escape(&done, pc.etag);
            strbuf_puts(&done, "</ETag></Part>");
        }
        call_done(&pc);
    }
    strbuf_puts(&done, "</CompleteMultipartUpload>");
    free(buf);
    if (!rc && done.failed) rc = err_nomem(err, "S3 upload");
    if (!rc) {
        sigv4_pair q[] = {{"uploadId", upload_id}};
        s3_call cc = {.method = "POST", .bucket = bucket, .key = key, .query = q, .n_query = 1,
                      .body = done.data, .body_len = done.len, .resp_cap = ERROR_BODY_CAP};
        strbuf_init(&cc.resp);
        rc = call_perform(c, cred, &cc, err);
        /* CompleteMultipartUpload can fail inside a 200 answer */
        if (!rc && cc.resp.data && strstr(cc.resp.data, "<Error>")) {
            cc.status = 500;
            rc = status_error(&cc, err);
        }
        call_done(&cc);
    }
    strbuf_reset(&done);
    if (rc) multipart_abort(c, cred, bucket, key, upload_id);
    free(upload_id);
    return rc;
}

int s3_upload_file(s3_client *c, const sigv4_credentials *cred, const char *bucket,
                   const char *key, const char *path, sqe_error *err) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return err_set(err, SQE_ERR_IO_ERROR, "Cannot open %s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return err_set(err, SQE_ERR_IO_ERROR, "Cannot open %s: %s", path, strerror(e));
    }
    uint64_t size = (uint64_t)st.st_size;
    int rc;
    if (size > c->part_size) {
        rc = multipart_upload(c, cred, bucket, key, fd, size, path, err);
    } else {
        uint8_t *buf = malloc(size ? (size_t)size : 1);
        if (!buf) {
            close(fd);
            return err_nomem(err, "S3 upload");
        }
        int e = read_full(fd, buf, (size_t)size, 0);
        rc = e ? err_set(err, SQE_ERR_IO_ERROR, "Cannot read %s: %s", path, strerror(e))
               : s3_put(c, cred, bucket, key, buf, (size_t)size, false, err);
        free(buf);
    }
    close(fd);
    return rc;
}

/* ---- listing and deleting ------------------------------------------------------------------- */

void s3_entries_free(s3_object_entry *items, uint32_t n) {
    for (uint32_t i = 0; items && i < n; i++) {
        free(items[i].key);
        free(items[i].etag);
    }
    free(items);
}

int s3_list(s3_client *c, const sigv4_credentials *cred, const char *bucket, const char *prefix,
            s3_object_entry **items, uint32_t *n, sqe_error *err) {
    *items = NULL;
    *n = 0;
    s3_object_entry *all = NULL;
    uint32_t count = 0, cap = 0;
    char *token = NULL;
    int rc = SQE_OK;
    for (uint32_t pages = 0; !rc; pages++) {
        if (pages >= 1000000) {
            rc = err_set(err, SQE_ERR_IO_ERROR, "S3 listing of s3://%s/%s does not end", bucket,
                         prefix);
            break;
        }
        sigv4_pair q[3] = {{"list-type", "2"}, {"prefix", prefix}, {"continuation-token", token}};
        s3_call call = {.method = "GET", .bucket = bucket, .key = NULL, .query = q,
                        .n_query = token ? 3 : 2, .resp_cap = LIST_BODY_CAP};
        strbuf_init(&call.resp);
        rc = call_perform(c, cred, &call, err);
        s3_list_page page = {0};
        if (!rc) rc = s3_list_page_parse(call.resp.data, call.resp.len, &page, err);
        call_done(&call);
        if (rc) break;
        if (count + (uint64_t)page.n_items > UINT32_MAX / 2) {
            s3_list_page_reset(&page);
            rc = err_set(err, SQE_ERR_IO_ERROR, "too many objects under s3://%s/%s", bucket, prefix);
            break;
        }
        if (count + page.n_items > cap) {
            uint32_t ncap = cap ? cap : 64;
            while (ncap < count + page.n_items) ncap *= 2;
            s3_object_entry *m = realloc(all, (size_t)ncap * sizeof *m);
            if (!m) {
                s3_list_page_reset(&page);
                rc = err_nomem(err, "S3 listing");
                break;
            }
            all = m;
            cap = ncap;
        }
        if (page.n_items) memcpy(all + count, page.items, page.n_items * sizeof *all);
        count += page.n_items;
        free(page.items);
        page.items = NULL;
        page.n_items = 0;
        bool more = page.truncated;
        if (more && token && strcmp(token, page.next_token) == 0) {
            s3_list_page_reset(&page);
            rc = err_set(err, SQE_ERR_IO_ERROR,
                         "S3 listing of s3://%s/%s repeats its continuation token", bucket, prefix);
            break;
        }
        free(token);
        token = page.next_token;
        page.next_token = NULL;
        if (!more) break;
    }
    free(token);
    if (rc) {
        s3_entries_free(all, count);
        return rc;
    }
    *items = all;
    *n = count;
    return SQE_OK;
}

int s3_delete(s3_client *c, const sigv4_credentials *cred, const char *bucket, const char *key,
              sqe_error *err) {
    s3_call call = {.method = "DELETE", .bucket = bucket, .key = key};
    strbuf_init(&call.resp);
    int rc = call_perform(c, cred, &call, err);
    call_done(&call);
    return rc;
}

int s3_delete_objects(s3_client *c, const sigv4_credentials *cred, const char *bucket,
                      const char *const *keys, uint32_t n, sqe_error *err) {
    int rc = SQE_OK;
    for (uint32_t at = 0; at < n && !rc; at += 1000) {
        uint32_t end = n - at > 1000 ? at + 1000 : n;
        strbuf body;
        strbuf_init(&body);
        strbuf_puts(&body, "<Delete><Quiet>true</Quiet>");
        for (uint32_t i = at; i < end; i++) {
            strbuf_puts(&body, "<Object><Key>");
            s3_xml_escape(&body, keys[i]);
            strbuf_puts(&body, "</Key></Object>");
        }
        strbuf_puts(&body, "</Delete>");
        if (body.failed) {
            strbuf_reset(&body);
            return err_nomem(err, "S3 delete");
        }
        unsigned char md5[MD5_DIGEST_LENGTH];
        unsigned int md5_len = 0;
        EVP_Digest(body.data, body.len, md5, &md5_len, EVP_md5(), NULL);
        char md5_b64[32];
        md5_b64[base64_encode(md5, MD5_DIGEST_LENGTH, false, true, md5_b64)] = '\0';
        sigv4_pair q[] = {{"delete", ""}};
        sigv4_pair h[] = {{"content-md5", md5_b64}};
        s3_call call = {.method = "POST", .bucket = bucket, .key = NULL, .query = q, .n_query = 1,
                        .headers = h, .n_headers = 1, .body = body.data, .body_len = body.len,
                        .resp_cap = LIST_BODY_CAP};
        strbuf_init(&call.resp);
        rc = call_perform(c, cred, &call, err);
        if (!rc && call.resp.data && strstr(call.resp.data, "<Error>")) {
            char *k = s3_xml_text(call.resp.data, call.resp.len, "Key", NULL);
            char *code = s3_xml_text(call.resp.data, call.resp.len, "Code", NULL);
            rc = err_set(err, code && strcmp(code, "AccessDenied") == 0 ? SQE_ERR_PERMISSION_DENIED
                                                                      : SQE_ERR_IO_ERROR,
                         "S3 could not delete s3://%s/%s: %s", bucket, k ? k : "?",
                         code ? code : "error");
            free(k);
            free(code);
        }
        call_done(&call);
        strbuf_reset(&body);
    }
    return rc;
}
