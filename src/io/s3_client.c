/*
 * s3_client.c: S3 requests over io/http_client, signed per attempt (see s3_client.h).
 *
 * INTERFACE: s3_client_create, s3_client_destroy, s3_client_requests, s3_client_url, s3_head,
 *            s3_get_range, s3_get_ranges, s3_put, s3_upload_file, s3_list, s3_entries_free,
 *            s3_delete, s3_delete_objects, s3_stats_get, s3_stats_reset, s3_stats_format.
 * NOTES
 *   - One request path: call_setup builds what all attempts share (URL with the query, Host,
 *     the signed path, the payload hash); the http_client prepare hook (prepare_attempt) signs
 *     each attempt with a fresh x-amz-date (headers host, x-amz-date, x-amz-content-sha256,
 *     x-amz-security-token when the credentials carry one, plus the operation's own) and counts
 *     it; call_finish takes the answer and maps the status. The transfer runs alone
 *     (http_client_send) or with others (s3_get_ranges, http_client_send_many, at most
 *     max_parallel at once, each range retried on its own). Bodies are sent from memory, so a
 *     retry resends the same bytes; GET bodies stream into the caller's buffer (on_body, the
 *     sink), other bodies into a bounded buffer (LIST_BODY_CAP for listings and multipart
 *     answers, ERROR_BODY_CAP otherwise).
 *   - Connections, TLS, retries (connection errors, 429, 500, 502, 503, 504; max_attempts, the
 *     backoff doubling up to 5 s, Retry-After), the 10 s connect timeout and the stall bound
 *     (below 1 byte/s for 60 s gives up) are http_client's; its pool is one keep-alive
 *     connection cache per client shared by all threads.
 *   - Payload hash: bodies sign their SHA-256; requests without a body sign the SHA-256 of the
 *     empty string (not UNSIGNED-PAYLOAD: servers that recompute the hash over plain http, as
 *     botocore-based ones do, expect the real one, and it costs nothing for an empty body).
 *   - Statistics: every attempt counts in process-wide atomics by kind (s3_stats_get);
 *     SQE_S3_STATS=1 prints them to stderr at exit.
 *   - Multipart (S3 API: CreateMultipartUpload, UploadPart, CompleteMultipartUpload,
 *     AbortMultipartUpload): parts of part_size bytes; any failure aborts the upload.
 */
#include "io/s3_client.h"

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
#include "io/http_client.h"

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
    http_client *http; /* pooled keep-alive connections, retries, timeouts, redacted logs */
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

static pthread_once_t stats_once = PTHREAD_ONCE_INIT;
static void stats_init_once(void) {
    const char *v = getenv("SQE_S3_STATS");
    if (v && *v && strcmp(v, "0") != 0) atexit(stats_at_exit);
}

int s3_client_create(const s3_config *cfg, s3_client **out, sqe_error *err) {
    *out = NULL;
    pthread_once(&stats_once, stats_init_once);
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
    http_client_config hc = {.name = "S3",
                             .connect_timeout_ms = 10000,
                             .timeout_ms = -1,          /* objects are large: the speed bound */
                             .low_speed_time_s = 60,    /* below 1 byte/s for 60 s gives up */
                             .max_attempts = c->max_attempts,
                             .backoff_ms = c->backoff_ms,
                             .max_backoff_ms = 5000,
                             .max_body = LIST_BODY_CAP,
                             .pool_max = POOL_MAX};
    int rc = http_client_create(&hc, &c->http, err);
    if (rc) {
        free(c->scheme);
        free(c->hostport);
        free(c->region);
        free(c);
        return rc;
    }
    *out = c;
    return SQE_OK;
}

void s3_client_destroy(s3_client *c) {
    if (!c) return;
    http_client_destroy(c->http);
    free(c->scheme);
    free(c->hostport);
    free(c->region);
    free(c);
}

uint64_t s3_client_requests(const s3_client *c) { return atomic_load(&c->requests); }

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
    size_t resp_cap;              /* bound of resp; 0: ERROR_BODY_CAP */
    strbuf resp;
    char *etag;
    int64_t content_length;       /* from the response headers, -1 when absent */
    long status;
    int attempts;
    bool overflow;
    /* what every attempt of the request shares (call_setup .. call_teardown) */
    s3_client *c;
    const sigv4_credentials *cred;
    char *url, *host;
    strbuf path;
    char payload[65];
} s3_call;

/* Streams a 2xx body of a ranged GET into call->dst (the http_client sink). */
static http_sink_result on_body(void *ud, long status, const void *data, size_t n) {
    s3_call *call = ud;
    atomic_fetch_add(&g_stats.bytes_in, n);
    size_t skip = 0;
    if (status == 200) { /* the whole object: drop what precedes the range */
        skip = call->dst_skip > n ? n : (size_t)call->dst_skip;
        call->dst_skip -= skip;
    }
    size_t take = n - skip, room = call->dst_len - call->dst_got;
    if (take > room) {
        if (status != 200) {
            call->overflow = true;
            return HTTP_SINK_ABORT;
        }
        memcpy(call->dst + call->dst_got, (const uint8_t *)data + skip, room);
        call->dst_got += room;
        return HTTP_SINK_DONE; /* the range is complete: stop the transfer */
    }
    memcpy(call->dst + call->dst_got, (const uint8_t *)data + skip, take);
    call->dst_got += take;
    return HTTP_SINK_MORE;
}

static bool retryable_status(long s) { return s == 500 || s == 502 || s == 503 || s == 504 || s == 429; }

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

/* What every attempt of call shares: the URL (query included), the Host header, the path as
 * signed and the payload hash. */
static int call_setup(s3_client *c, const sigv4_credentials *cred, s3_call *call,
                      sqe_error *err) {
    call->c = c;
    call->cred = cred;
    call->content_length = -1;
    strbuf_init(&call->path);
    char *url = s3_client_url(c, call->bucket, call->key, &call->host);
    strbuf full;
    strbuf_init(&full);
    if (url) strbuf_puts(&full, url);
    free(url);
    if (call->n_query) {
        strbuf_putc(&full, '?');
        sigv4_canonical_query(&full, call->query, call->n_query);
    }
    object_path(c, &call->path, call->bucket, call->key);
    call->url = full.failed || !url ? NULL : strbuf_move(&full);
    strbuf_reset(&full);
    if (call->body) sigv4_sha256_hex(call->body, call->body_len, call->payload);
    else memcpy(call->payload, EMPTY_SHA256, sizeof call->payload);
    if (!call->url || !call->host || call->path.failed) return err_nomem(err, "S3 request");
    return SQE_OK;
}

static void call_teardown(s3_call *call) {
    free(call->url);
    free(call->host);
    call->url = call->host = NULL;
    strbuf_reset(&call->path);
}

/* Signs one attempt of call with a fresh date (the http_client prepare hook) and counts it in
 * the statistics. */
static int prepare_attempt(void *ud, http_attempt *a, sqe_error *err) {
    s3_call *call = ud;
    s3_client *c = call->c;
    call->dst_got = 0;
    call->dst_skip = call->dst_skip0;
    call->overflow = false;
    char amz_date[17];
    sigv4_amz_date(time(NULL), amz_date);
    sigv4_pair hdr[16];
    uint32_t nh = 0;
    hdr[nh++] = (sigv4_pair){"host", call->host};
    hdr[nh++] = (sigv4_pair){"x-amz-date", amz_date};
    hdr[nh++] = (sigv4_pair){"x-amz-content-sha256", call->payload};
    if (call->cred->session_token && *call->cred->session_token)
        hdr[nh++] = (sigv4_pair){"x-amz-security-token", call->cred->session_token};
    for (uint32_t i = 0; i < call->n_headers && nh < 16; i++) hdr[nh++] = call->headers[i];
    sigv4_request rq = {call->method, strbuf_cstr(&call->path), call->query, call->n_query, hdr,
                        nh, call->payload, c->region, "s3", amz_date};
    sigv4_result sig = {0};
    int rc = sigv4_sign(&rq, call->cred, &sig, err);
    if (rc) return rc;
    bool ok = true;
    for (uint32_t i = 0; i < nh && ok; i++) ok = http_attempt_header(a, hdr[i].name, hdr[i].value);
    if (ok) ok = http_attempt_header(a, "Authorization", sig.authorization);
    if (ok && call->body) ok = http_attempt_header(a, "Content-Type", "application/octet-stream");
    sigv4_result_reset(&sig);
    if (!ok) return err_nomem(err, "S3 request");
    atomic_fetch_add(&c->requests, 1);
    atomic_fetch_add(&g_stats.requests[call_kind(call)], 1);
    if (http_attempt_number(a) > 1) atomic_fetch_add(&g_stats.retries, 1);
    if (call->body) atomic_fetch_add(&g_stats.bytes_out, call->body_len);
    return SQE_OK;
}

/* The HTTP request of call (after call_setup). Every S3 request is retried on the shared rules
 * (its operations can be repeated: a PUT or a part rewrites the same bytes). */
static http_request call_request(s3_call *call) {
    return (http_request){.method = call->method,
                          .url = call->url,
                          .body = call->body,
                          .body_len = call->body_len,
                          .body_secret = true, /* object data: never logged */
                          .retry = HTTP_RETRY_YES,
                          .max_body = call->resp_cap ? call->resp_cap : ERROR_BODY_CAP,
                          .prepare = prepare_attempt,
                          .sink = call->dst ? on_body : NULL,
                          .ud = call};
}

/* Takes the answer of call from hres (rc: http_client's result) and judges it: SQE_OK on a 2xx
 * answer, else the error. */
static int call_finish(s3_call *call, http_response *hres, int rc, sqe_error *err) {
    atomic_fetch_add(&g_stats.bytes_in, hres->body.len);
    atomic_fetch_add(&g_stats.connections, (uint64_t)hres->connections);
    call->status = hres->status;
    call->attempts = hres->attempts;
    strbuf_reset(&call->resp);
    call->resp = hres->body;
    strbuf_init(&hres->body);
    const char *etag = http_response_header(hres, "ETag");
    free(call->etag);
    call->etag = etag ? strdup(etag) : NULL;
    const char *cl = http_response_header(hres, "Content-Length");
    call->content_length = -1;
    if (cl) {
        char *e;
        errno = 0;
        long long v = strtoll(cl, &e, 10);
        call->content_length = errno == 0 && *e == '\0' && e != cl && v >= 0 ? v : -1;
    }
    if (rc) {
        if (call->overflow) {
            char name[1200];
            object_name(name, sizeof name, call);
            return err_set(err, SQE_ERR_IO_ERROR, "S3 returned more data than expected for %s",
                           name);
        }
        if (rc == SQE_ERR_IO_ERROR && hres->reason[0]) { /* transport: name the object */
            char name[1200];
            object_name(name, sizeof name, call);
            int a = hres->attempts;
            return err_set(err, SQE_ERR_IO_ERROR, "S3 %s %s failed after %d attempt%s: %s",
                           call->method, name, a, a == 1 ? "" : "s", hres->reason);
        }
        return rc;
    }
    if (call->status >= 200 && call->status < 300) return SQE_OK;
    rc = status_error(call, err);
    if (retryable_status(call->status) && call->attempts > 1)
        err_prefix(err, "after %d attempts", call->attempts);
    return rc;
}

/* Performs call with retries; SQE_OK on a 2xx answer. */
static int call_perform(s3_client *c, const sigv4_credentials *cred, s3_call *call,
                        sqe_error *err) {
    if (!cred || !cred->access_key_id || !*cred->access_key_id || !cred->secret_access_key)
        return err_set(err, SQE_ERR_PERMISSION_DENIED,
                       "No S3 credentials for s3://%s/%s", call->bucket, call->key ? call->key : "");
    call->dst_skip0 = call->dst_skip;
    int rc = call_setup(c, cred, call, err);
    if (!rc) {
        http_request req = call_request(call);
        http_response hres;
        rc = http_client_send(c->http, &req, &hres, err);
        rc = call_finish(call, &hres, rc, err);
        http_response_free(&hres);
    }
    call_teardown(call);
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
    uint32_t *idx = calloc(n, sizeof *idx);
    http_request *reqs = calloc(n, sizeof *reqs);
    http_response *resps = calloc(n, sizeof *resps);
    int rc = SQE_OK;
    uint32_t m = 0; /* calls sent (the non-empty ranges) */
    if (!calls || !range_text || !hdrs || !idx || !reqs || !resps) {
        rc = err_nomem(err, "S3 parallel read");
        goto out_free;
    }
    for (uint32_t i = 0; i < n && !rc; i++) {
        if (ranges[i].len == 0) continue;
        s3_call *call = &calls[m];
        strbuf_init(&call->resp);
        snprintf(range_text[m], sizeof range_text[m], "bytes=%llu-%llu",
                 (unsigned long long)ranges[i].off,
                 (unsigned long long)(ranges[i].off + ranges[i].len - 1));
        hdrs[m] = (sigv4_pair){"range", range_text[m]};
        call->method = "GET";
        call->bucket = bucket;
        call->key = key;
        call->headers = &hdrs[m];
        call->n_headers = 1;
        call->dst = ranges[i].buf;
        call->dst_len = ranges[i].len;
        call->dst_skip0 = call->dst_skip = ranges[i].off; /* a server that ignores Range */
        idx[m] = i;
        rc = call_setup(c, cred, call, err);
        reqs[m] = call_request(call);
        m++;
    }
    if (!rc) {
        uint32_t failed = 0;
        sqe_error e;
        int r = http_client_send_many(c->http, reqs, resps, m, c->max_parallel, &failed, &e);
        if (r) { /* a transfer failed: the others were stopped, its error is the answer */
            rc = call_finish(&calls[failed], &resps[failed], r, err);
            if (!calls[failed].overflow && err) *err = e;
        }
        /* else the first failing range by index: an error answer or a short body */
        for (uint32_t j = 0; j < m && !rc; j++) {
            rc = call_finish(&calls[j], &resps[j], SQE_OK, err);
            if (!rc && calls[j].dst_got != calls[j].dst_len)
                rc = err_set(err, SQE_ERR_IO_ERROR,
                             "Cannot read s3://%s/%s: got %zu of %zu bytes at offset %llu (did "
                             "it change while reading?)", bucket, key, calls[j].dst_got,
                             calls[j].dst_len, (unsigned long long)ranges[idx[j]].off);
        }
    }
out_free:
    for (uint32_t j = 0; j < m; j++) {
        call_teardown(&calls[j]);
        call_done(&calls[j]);
        http_response_free(&resps[j]);
    }
    free(calls);
    free(range_text);
    free(hdrs);
    free(idx);
    free(reqs);
    free(resps);
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
