/*
 * trino_int.h: the Trino server's folder-private interface, shared by trino_server.c (HTTP),
 * trino_query.c (query registry, workers, paging) and trino_json.c (JSON encoding).
 */
#ifndef SQE_SERVER_TRINO_TRINO_INT_H
#define SQE_SERVER_TRINO_TRINO_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "common/err.h"
#include "common/principal.h"
#include "common/strbuf.h"
#include "server/core/session.h"
#include "server/trino/trino_server.h"
#include "sqe/sqe_effects.h"
#include "sqe/sqe_values.h"

/* ---- requests and replies ------------------------------------------------------------------ */

/* A name=value pair (session property, prepared statement), both decoded and malloc'd. */
typedef struct trino_kv {
    char *name;
    char *value;
} trino_kv;

/* What a POST /v1/statement carries: the SQL and the client's session headers. Every string is
 * malloc'd and owned by the request (trino_request_reset frees them). */
typedef struct trino_request {
    char *sql;
    char *user;        /* X-Trino-User (required) */
    char *catalog;     /* X-Trino-Catalog, NULL when absent */
    char *schema;      /* X-Trino-Schema */
    char *time_zone;   /* X-Trino-Time-Zone */
    char *source;      /* X-Trino-Source */
    char *client_tags; /* X-Trino-Client-Tags, as sent (comma-joined) */
    char *client_address; /* the peer, "ip:port" (system.runtime.sessions), or NULL */
    trino_kv *session; /* X-Trino-Session, comma-joined and/or repeated */
    uint32_t n_session;
    trino_kv *prepared; /* X-Trino-Prepared-Statement */
    uint32_t n_prepared;
    char *header_error; /* set when a header could not be decoded: the statement fails with it */
    sqe_principal *principal; /* the caller hooks->authenticate accepted (a reference; user is
                                 then its name and X-Trino-User cannot change it), or NULL when
                                 the server has no hooks (the statement runs as user) */
} trino_request;

void trino_request_reset(trino_request *req);

/* Fills req's session fields from one request header (name case-insensitive; headers other than
 * X-Trino-* are ignored). Repeated single-valued headers: the last wins; X-Trino-Session and
 * X-Trino-Prepared-Statement accumulate. Returns SQE_OK, or an error (req keeps what it had)
 * for a value that cannot be decoded. The request-path entry point of fuzz_trino_request. */
int trino_request_header(trino_request *req, const char *name, const char *value,
                         sqe_error *err);

/* Parses one comma-separated list of url-encoded name=value pairs (X-Trino-Session,
 * X-Trino-Prepared-Statement) and appends them to *items. Returns SQE_OK, or an error (message
 * names the header) for an empty name, a missing '=' or a bad %-escape. */
int trino_kv_parse(const char *header, const char *text, trino_kv **items, uint32_t *n_items,
                   sqe_error *err);

/* URL-decodes len bytes of s ('+' is a space, %XX a byte) into a new NUL-terminated string.
 * Returns NULL for a malformed escape, an embedded NUL or out of memory. */
char *trino_url_decode(const char *s, size_t len);
/* Appends s URL-encoded (RFC 3986 unreserved characters kept, everything else %XX). */
void trino_url_encode(const char *s, strbuf *out);

/* An extra response header (X-Trino-Set-Catalog, ...). */
typedef struct trino_header {
    const char *name; /* static string */
    char *value;      /* malloc'd */
} trino_header;

/* An HTTP reply built by the query layer; the HTTP layer sends it and frees it. */
typedef struct trino_reply {
    unsigned status;      /* HTTP status */
    const char *content_type;
    char *body;           /* malloc'd, body_len bytes (may be NULL when body_len is 0) */
    size_t body_len;
    trino_header *headers;
    uint32_t n_headers;
} trino_reply;

void trino_reply_reset(trino_reply *r);
/* Sets a plain-text or JSON reply (body copied). Returns SQE_OK or out of memory. */
int trino_reply_set(trino_reply *r, unsigned status, const char *content_type, const char *body);

/* ---- query registry (trino_query.c) -------------------------------------------------------- */

typedef struct trino_registry trino_registry;

/* Creates the registry for db with the server's options (copied); starts its reaper thread. */
int trino_registry_create(sqe_db *db, const trino_server_options *opts, trino_registry **out,
                          sqe_error *err);
/* Cancels everything, joins the workers and the reaper, frees the registry. */
void trino_registry_destroy(trino_registry *reg);

/* Submits a statement: the registry takes over *req (which is left empty) and starts its
 * worker. Fills *reply with the first QueryResults (state QUEUED, nextUri token 1); with a
 * FAILED QueryResults (QUERY_QUEUE_FULL, or the admission hook's error) when max_queries
 * queries are in progress or the hook refuses; with a 503 reply when draining. base_uri is
 * "http://host:port" as the client reached us. */
int trino_query_submit(trino_registry *reg, trino_request *req, const char *base_uri,
                       trino_reply *reply);

/* Serves GET nextUri: query id, slug and token from the path. Waits up to max_wait_ms for the
 * next page. Unknown id or slug: 404; a token that is neither the last one nor the next: 410.
 * caller is the request's authenticated principal (NULL without hooks; borrowed): a query an
 * authenticated user submitted answers only that user, others get the same 404 as for an
 * unknown query (no admin exception: users-file principals carry no roles yet). */
int trino_query_fetch(trino_registry *reg, const char *id, const char *slug, uint64_t token,
                      const sqe_principal *caller, const char *base_uri, trino_reply *reply);

/* Serves DELETE nextUri: cancels the query (204), 404 when unknown or another user's (caller as
 * for trino_query_fetch). */
int trino_query_cancel(trino_registry *reg, const char *id, const char *slug,
                       const sqe_principal *caller, trino_reply *reply);

/* Refuses new statements from now on. */
void trino_registry_set_draining(trino_registry *reg);
/* Number of queries in progress (running, or with results not yet fully fetched). */
uint32_t trino_registry_active(trino_registry *reg);
/* Number of worker threads still executing. */
uint32_t trino_registry_running(trino_registry *reg);
/* Cancels every held query. */
void trino_registry_cancel_all(trino_registry *reg);
/* Lists the queries in progress as sessions (the Trino protocol keeps its session in the
 * client, so what the server holds of one is its open queries): emit(ctx, row, err) per query,
 * with registry and query locks held (emit must not call back into the server). */
int trino_registry_list_sessions(trino_registry *reg, sqe_session_emit emit, void *ctx,
                                 sqe_error *err);

/* ---- JSON (trino_json.c) ------------------------------------------------------------------- */

/* Appends s as a JSON string. */
void trino_json_string(const char *s, strbuf *out);
/* Appends the typeSignature object of t ({"rawType": ..., "arguments": [...]}) as Trino's
 * ClientTypeSignature encodes it. */
void trino_json_type_signature(const struct sqe_type *t, strbuf *out);
/* Appends the "columns" array of a result: [{"name", "type", "typeSignature"}, ...]. */
void trino_json_columns(const sqe_result *res, strbuf *out);
/* Appends row `row` of chunk (n_cols columns) as a JSON array of Trino-encoded values. */
void trino_json_row(const sqe_chunk *chunk, int n_cols, int row, strbuf *out);
/* Appends an "error" object (QueryError) for e: message, errorCode, errorName, errorType,
 * sqlState, errorLocation (when known), failureInfo. */
void trino_json_error(const sqe_error *e, strbuf *out);

#endif
