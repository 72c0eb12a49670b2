/*
 * http_client.h: the one HTTP client of SQE (libcurl): a connection pool with keep-alive, TLS
 * verified by default, bounded response bodies, response header capture, retries with
 * exponential backoff and jitter (Retry-After honoured, bounded), connect/per-attempt/total
 * timeouts, a cancellation hook, and request logs with secrets redacted. The REST catalog
 * (catalog/rest/rest_client.c), S3 (io/s3_client.c) and STS (io/sts.c) send through it; so does
 * what comes next (OIDC discovery, JWKS, token endpoints, Ranger, OTLP, heartbeats).
 *
 * A client holds settings and connections, never credentials: each request carries its own
 * headers, so one client serves many users without mixing them. All functions are thread-safe
 * (one client may send from many threads at once).
 *
 * Retries: a request is retried when it is idempotent (GET, HEAD, PUT, DELETE, OPTIONS, or any
 * method with retry = HTTP_RETRY_YES; never with HTTP_RETRY_NO) and the attempt failed with a
 * connection error (refused, resolve, timeout, send/receive error, empty answer, TLS
 * handshake) or answered 429, 500, 502, 503 or 504 (or req->retry_on says so). The delay before
 * retry n is backoff_ms * 2^(n-1) capped at max_backoff_ms, plus up to half of it as random
 * jitter; a Retry-After header (seconds or an HTTP date) replaces it, capped at
 * max_retry_after_ms. No retry starts when it would pass the total deadline.
 *
 * Errors (all sending functions): IO_ERROR "<name> <METHOD> <url> failed after N attempt(s):
 * <why>" for transport failures after the retries (the URL with secrets redacted), "... response
 * larger than N bytes" when a body passes its bound (the partial body is dropped, resp has no
 * body), the same IO_ERROR ending " (total timeout)" when total_timeout_ms passed,
 * INVALID_ARGUMENTS for a URL that is not http(s)://, USER_CANCELED when the cancel hook said
 * so, OUT_OF_MEMORY. An HTTP status is not an error: the caller gets the last answer
 * (after retries of retryable statuses) and maps it.
 *
 * Logging: http_log_set installs a process-wide sink (default: none; SQE_HTTP_LOG=1 or 2 in the
 * environment logs to stderr). Level 1: one line per attempt (method, redacted URL, status,
 * milliseconds, attempt, new or reused connection). Level 2 adds the request and response
 * headers and the first bytes of request bodies, all through the redactors below: values of
 * Authorization, Proxy-Authorization, Cookie, Set-Cookie, X-Amz-Security-Token and any header
 * named *token*, *secret*, *password*, *credential* or *api-key*; query parameters and form or
 * JSON body fields with those names (token, access_token, client_secret, password,
 * X-Amz-Signature, X-Amz-Credential, X-Amz-Security-Token, WebIdentityToken, ...). Requests
 * marked body_secret never log their body at all.
 */
#ifndef SQE_IO_HTTP_CLIENT_H
#define SQE_IO_HTTP_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "common/strbuf.h"

#define HTTP_DEFAULT_MAX_BODY ((size_t)64 << 20)

typedef struct http_client http_client;
struct http_response;

typedef struct http_client_config {
    const char *name;            /* for messages and logs ("REST catalog", "S3"); NULL = "HTTP" */
    int connect_timeout_ms;      /* 0 = 10000 */
    int timeout_ms;              /* one attempt, whole transfer; 0 = 30000; < 0 = none */
    int total_timeout_ms;        /* all attempts and delays of one request; 0 = none */
    int low_speed_time_s;        /* abort an attempt moving < 1 byte/s this long; 0 = none */
    int max_attempts;            /* tries of a retryable request, the first included; 0 = 4 */
    int backoff_ms;              /* first retry delay; 0 = 100 */
    int max_backoff_ms;          /* 0 = 5000 */
    int max_retry_after_ms;      /* Retry-After honoured up to this; 0 = 30000 */
    size_t max_body;             /* default bound of bodies read into memory; 0 = 64 MiB */
    int pool_max;                /* idle connections (handles) kept; 0 = 16 */
    const char *ca_file;         /* CA bundle (PEM) instead of the system's, or NULL */
    const char *ca_path;         /* CA directory instead of the system's, or NULL */
    bool insecure;               /* skip TLS peer and host verification (tests only) */
} http_client_config;

typedef struct http_header {
    const char *name;
    const char *value;
} http_header;

typedef enum http_retry {
    HTTP_RETRY_DEFAULT, /* by method: GET, HEAD, PUT, DELETE, OPTIONS retry; others do not */
    HTTP_RETRY_YES,     /* the caller knows this request is safe to repeat */
    HTTP_RETRY_NO,      /* never repeat */
} http_retry;

/* What a streaming receiver tells the client after each piece of a 2xx body. */
typedef enum http_sink_result {
    HTTP_SINK_MORE,  /* go on */
    HTTP_SINK_DONE,  /* enough: stop the transfer, the request succeeded */
    HTTP_SINK_ABORT, /* refuse the body: the request fails (IO_ERROR, not retried) */
} http_sink_result;

/* Builds one attempt: filled by the client for req->prepare (below). */
typedef struct http_attempt http_attempt;
/* Adds a request header to this attempt (copied). false on out of memory. */
bool http_attempt_header(http_attempt *a, const char *name, const char *value);
/* 1 for the first try. */
int http_attempt_number(const http_attempt *a);

typedef struct http_request {
    const char *method;          /* "GET", "HEAD", "PUT", "POST", "DELETE", ... */
    const char *url;             /* absolute http:// or https:// URL, already encoded */
    const http_header *headers;  /* sent with every attempt (borrowed) */
    size_t n_headers;
    const void *body;            /* sent from memory, again on each retry; NULL = no body */
    size_t body_len;
    bool body_secret;            /* never log the body, not even redacted */
    http_retry retry;
    size_t max_body;             /* bound for the body read into memory; 0 = the client's */
    /* Called before each attempt (signing with a fresh date, resetting a receiver); may add
     * headers. Returns SQE_OK or an error (with err set) that ends the request. */
    int (*prepare)(void *ud, http_attempt *a, sqe_error *err);
    /* Receives a 2xx body instead of resp->body (status given); NULL = collect it. Error
     * bodies are always collected (bounded) for the caller's message. */
    http_sink_result (*sink)(void *ud, long status, const void *data, size_t len);
    /* For an answer the rules above do not retry: true retries it anyway (e.g. an STS
     * Throttling 400). The body is in resp->body. */
    bool (*retry_on)(void *ud, const struct http_response *resp);
    /* Polled while waiting and during transfers: true cancels the request (USER_CANCELED). */
    bool (*cancel)(void *ud);
    void *ud;                    /* passed to the four hooks */
} http_request;

typedef struct http_response {
    long status;                 /* HTTP status of the last attempt; 0 = no answer */
    strbuf body;                 /* collected body (owned; empty with a sink on 2xx) */
    http_header *headers;        /* response headers of the last attempt (owned, names as
                                    sent; at most 128 of them) */
    size_t n_headers;
    int attempts;                /* attempts made */
    int connections;             /* new connections opened (0: all reused one) */
    bool not_sent;               /* the last attempt failed before any byte reached the server
                                    (connect or resolve failure, or prepare failed) */
    char reason[256];            /* why the last attempt failed in transport (curl's words, no
                                    URL), "" when it got an answer */
} http_response;

/* Creates a client (strings of cfg copied; cfg may be NULL for the defaults). On success the
 * caller owns *out (http_client_destroy); on error *out is NULL. */
int http_client_create(const http_client_config *cfg, http_client **out, sqe_error *err);
/* Frees the client and its idle connections. NULL is ignored; no request may be in flight. */
void http_client_destroy(http_client *c);

/* Sends req with the retry rules above and fills *resp, which the caller frees with
 * http_response_free after success and after error alike (on error it holds the status and
 * headers of the last answer, if any, but no body). */
int http_client_send(http_client *c, const http_request *req, http_response *resp,
                     sqe_error *err);
/* Sends n requests at once (at most max_parallel transfers; 0 = 8), each retried on its own
 * rules; resps[i] answers reqs[i] (each freed by the caller, also on error). Fails with the
 * error of the first failing request by index (the others are finished or stopped first);
 * *failed (may be NULL) gets that index. */
int http_client_send_many(http_client *c, const http_request *reqs, http_response *resps,
                          uint32_t n, int max_parallel, uint32_t *failed, sqe_error *err);

/* Frees what resp owns and empties it. NULL is ignored. */
void http_response_free(http_response *resp);
/* The value of the first response header called name (any case), owned by resp; NULL. */
const char *http_response_header(const http_response *resp, const char *name);

/* Counters of one client (every attempt counts; reads are atomic). */
typedef struct http_client_stats {
    uint64_t requests;     /* attempts sent */
    uint64_t retries;      /* attempts that repeated a failed one */
    uint64_t connections;  /* new connections opened */
    uint64_t bytes_in;     /* response body bytes */
    uint64_t bytes_out;    /* request body bytes */
} http_client_stats;
void http_client_stats_get(const http_client *c, http_client_stats *out);

/* ---- logging and redaction ------------------------------------------------------------------ */

/* Receives one log line (no newline; already redacted). */
typedef void (*http_log_fn)(void *ud, const char *line);
/* Installs the process-wide log sink and level (0 off, 1 requests, 2 headers and bodies);
 * fn NULL logs to stderr. Replaces SQE_HTTP_LOG. Not for use while requests run. */
void http_log_set(http_log_fn fn, void *ud, int level);

/* True when a header, query parameter or body field called name carries a secret. */
bool http_secret_name(const char *name, size_t len);
/* Appends url to out with the values of secret query parameters (and any user:password@)
 * replaced by "***". */
void http_redact_url(strbuf *out, const char *url);
/* Appends "Name: value" to out, the value "***" when the header is secret. */
void http_redact_header(strbuf *out, const char *name, const char *value);
/* Appends at most max bytes of a request or response body to out with the values of secret
 * form fields (name=value&...) and JSON string members ("name": "value") replaced by "***";
 * bytes that are not printable ASCII become '.'. */
void http_redact_body(strbuf *out, const void *body, size_t len, size_t max);

#endif
