/*
 * rest_client.h: the HTTP + JSON transport of the Iceberg REST catalog backend over io/http_client
 * (pooled connections, TLS, timeouts, retries with backoff for idempotent calls, redacted logs):
 * JSON bodies (jansson), bearer tokens, a circuit breaker per client (per catalog), the REST
 * error model (ErrorModel "error": {message, type, code}) mapped to SQE error codes, and the
 * OAuth2 client-credentials token request.
 *
 * Errors (all functions): IO_ERROR "REST catalog <uri>: ..." for transport failures (connection
 * refused, timeout, oversized or undecodable response) after the retries, and while the circuit
 * is open; OUT_OF_MEMORY. HTTP error statuses are not errors of rest_client_request: the caller
 * gets the status and maps it with rest_client_http_error.
 *
 * Thread-safety: a rest_client may be used by many threads at once (each request takes its own
 * pooled connection; the breaker state is under a mutex).
 */
#ifndef SQE_CATALOG_REST_REST_CLIENT_H
#define SQE_CATALOG_REST_REST_CLIENT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/err.h"

/* Largest response body accepted (hostile servers). */
#define REST_MAX_RESPONSE_BYTES ((size_t)64 << 20)

typedef struct rest_client rest_client;

typedef struct rest_client_config {
    const char *uri;            /* base URI, e.g. "http://127.0.0.1:8181" (no trailing slash needed) */
    int timeout_ms;             /* whole-request timeout; 0 = 30000 */
    int connect_timeout_ms;     /* 0 = 5000 */
    int max_retries;            /* extra attempts for idempotent calls; 0 = 3; < 0 = none */
    int backoff_ms;             /* first backoff; 0 = 50 (doubles, +jitter, capped at 2000) */
    int breaker_threshold;      /* consecutive failures that open the circuit; 0 = 5 */
    int breaker_cooldown_ms;    /* how long it stays open; 0 = 10000 */
} rest_client_config;

typedef enum rest_method { REST_GET, REST_HEAD, REST_POST, REST_DELETE } rest_method;

typedef struct rest_request {
    rest_method method;
    const char *path;           /* after the base URI, starting with '/', already encoded,
                                   may carry a query string */
    json_t *body;               /* JSON body (borrowed) or NULL */
    const char *form;           /* application/x-www-form-urlencoded body instead, or NULL */
    const char *token;          /* bearer token or NULL */
    const char *if_none_match;  /* ETag to revalidate, or NULL */
    const char *delegation;     /* X-Iceberg-Access-Delegation value, or NULL */
    bool idempotent;            /* retried on connection errors, 429, 500, 502, 503, 504 */
    bool *not_sent;             /* optional out: set true when the request failed before any
                                   byte reached the server (connect/resolve failure, circuit
                                   open), false otherwise */
} rest_request;

typedef struct rest_response {
    long status;                /* HTTP status */
    json_t *body;               /* parsed JSON body (owned; NULL when empty) */
    char *etag;                 /* ETag header (owned) or NULL */
} rest_response;

/* Creates a client for cfg->uri (copied). On success the caller owns *out (rest_client_close). */
int rest_client_open(const rest_client_config *cfg, rest_client **out, sqe_error *err);
/* Frees the client. NULL is ignored. No request may be running. */
void rest_client_close(rest_client *c);
/* The base URI (owned by c). */
const char *rest_client_uri(const rest_client *c);

/* Sends req and fills *resp (the caller frees it with rest_response_free, also after an error,
 * when it is left empty). A non-JSON body on a 2xx status is IO_ERROR ("invalid JSON"); on
 * other statuses a non-JSON body is dropped (resp->body NULL). Counts transport failures and
 * 5xx answers for the circuit breaker. */
int rest_client_request(rest_client *c, const rest_request *req, rest_response *resp,
                        sqe_error *err);
void rest_response_free(rest_response *resp);

/* Maps a non-2xx response to an SQE error and returns its code: 400 INVALID_ARGUMENTS,
 * 401 UNAUTHENTICATED, 403 PERMISSION_DENIED, 404 SCHEMA_NOT_FOUND (NoSuchNamespaceException) /
 * TABLE_NOT_FOUND (NoSuchTableException) / NOT_FOUND, 409 ALREADY_EXISTS (AlreadyExistsException)
 * / SCHEMA_NOT_EMPTY (NamespaceNotEmptyException) / COMMIT_CONFLICT (CommitFailedException and
 * other 409s), 5xx and others IO_ERROR. The message is "REST catalog: <what>: <type>: <message>
 * (HTTP <status>)" with the server's type and message when the body has them. */
int rest_client_http_error(const rest_response *resp, const char *what, sqe_error *err);

/* OAuth2 client credentials (RFC 6749 4.4) against token_uri (absolute, or a path below the base
 * URI): sets *token (malloc'ed, caller frees) and *expires_in_s (0 when not given).
 * UNAUTHENTICATED when the server refuses the client; IO_ERROR otherwise. */
int rest_client_oauth2(rest_client *c, const char *token_uri, const char *client_id,
                       const char *client_secret, const char *scope, char **token,
                       int64_t *expires_in_s, sqe_error *err);

/* Appends s to out percent-encoded as one URL path segment or query value (RFC 3986
 * unreserved characters kept). Returns false on out of memory. */
struct strbuf;
bool rest_url_encode(struct strbuf *out, const char *s);

/* Milliseconds of a monotonic clock. */
int64_t rest_now_ms(void);

#endif
