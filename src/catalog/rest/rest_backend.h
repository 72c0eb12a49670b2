/*
 * rest_backend.h: the Iceberg REST catalog (Iceberg REST OpenAPI spec, /v1/...) as an Iceberg
 * catalog backend (catalog/ice_backend.h), so catalog_open_iceberg_backend turns it into an SQL
 * catalog.
 *
 * Config: GET /v1/config?warehouse=W (on first use, not at open, so a catalog that is down does
 * not stop SQE from starting): defaults, then the client config, then overrides; "prefix" gives
 * the path prefix /v1/{prefix}/. Namespaces are dotted SQL names ("a.b"), sent as levels joined
 * with %1F. Tables: load with ETag / If-None-Match revalidation against a per-user cache; create
 * (CreateTableRequest from the engine's metadata: current schema, default spec and sort order,
 * properties, location; the catalog assigns ids and writes the first metadata file); commit as
 * requirements + updates (rest_commit.h) computed from the cached base version; drop; rename.
 *
 * Identity: each request carries a bearer token: with cfg->token_exchange, the token the
 * identity provider issued for the statement's principal and the catalog's audience, exchanged
 * from the principal's own token (rest_exchange.h: cached per user; exchanged again once on a
 * 401; a principal without a token is refused with UNAUTHENTICATED, never sent anonymously);
 * otherwise the token of the statement's principal (who->token, the caller's own,
 * common/principal.h) when it has one (unless cfg->service_identity), else the configured
 * static token, else one obtained with OAuth2 client credentials (cached until it expires;
 * refreshed once on a 401), else none.
 * Cached table versions are kept per token, so one user never sees a version loaded with
 * another user's token.
 *
 * Errors (on top of those of ice_backend.h): UNAUTHENTICATED (401), PERMISSION_DENIED (403),
 * IO_ERROR for an unreachable catalog ("REST catalog <uri> unreachable: ..."), 5xx answers and
 * invalid responses; messages carry the server's error type and message. A commit answered with
 * 409 gives COMMIT_CONFLICT (the engine reloads and re-applies). A commit whose outcome is unknown
 * (5xx, timeout, connection lost after sending) gives REST_ERR_COMMIT_STATE_UNKNOWN with a message
 * starting "Commit state unknown": the caller must not delete the files it wrote.
 */
#ifndef SQE_CATALOG_REST_REST_BACKEND_H
#define SQE_CATALOG_REST_REST_BACKEND_H

#include <stdbool.h>

#include "catalog/ice_backend.h"
#include "catalog/rest/rest_client.h"
#include "catalog/rest/rest_exchange.h"

/* The code of a commit whose outcome is unknown (no errcodes.def entry of its own yet). */
#define REST_ERR_COMMIT_STATE_UNKNOWN SQE_ERR_COMMIT_STATE_UNKNOWN

/* Table versions kept in the per-user load cache (least recently used goes first). */
#define REST_CACHE_ENTRIES 256

typedef struct rest_backend_config {
    const char *uri;                  /* catalog base URI (required) */
    const char *warehouse;            /* ?warehouse= of /v1/config, or NULL */
    const char *prefix;               /* client-side prefix (the server's overrides win), or NULL */
    const char *location_root;        /* local warehouse root the catalog places tables under
                                         (ice_backend warehouse(); fallback for default table
                                         locations when the namespace has no "location"), or NULL */
    const char *token;                /* static bearer token, or NULL */
    const char *oauth2_client_id;     /* OAuth2 client credentials, or NULL */
    const char *oauth2_client_secret;
    const char *oauth2_scope;         /* NULL = "catalog" */
    const char *oauth2_token_uri;     /* NULL = <uri>/v1/oauth/tokens */
    bool vended_credentials;          /* send X-Iceberg-Access-Delegation: vended-credentials */
    bool service_identity;            /* true: every request carries the configured token (static
                                         or client credentials), never a user's; false: the
                                         principal's own token wins when it has one */
    const rest_exchange_config *token_exchange; /* auth = "token_exchange": per-user tokens
                                                   for this audience (copied), or NULL */
    rest_client_config http;          /* timeouts, retries, breaker (uri ignored) */
} rest_backend_config;

/* Creates a REST backend (no request is made yet). Strings are copied. On success the caller
 * owns *out (ice_backend_close, or hand it to catalog_open_iceberg_backend). */
int ice_backend_rest(const rest_backend_config *cfg, ice_backend **out, sqe_error *err);

/* Is b a REST backend? */
bool rest_backend_is_rest(const ice_backend *b);

/* Registers an existing metadata file as table ns.name (POST .../register). SCHEMA_NOT_FOUND,
 * ALREADY_EXISTS, and the errors above. */
int rest_backend_register_table(ice_backend *b, const sqe_principal *who, const char *ns,
                                const char *name, const char *metadata_location, sqe_error *err);

/* The properties of namespace ns, in a (sorted by key). SCHEMA_NOT_FOUND. */
int rest_backend_load_namespace_properties(ice_backend *b, const sqe_principal *who,
                                           const char *ns, arena *a, ice_kv_list *out,
                                           sqe_error *err);
/* Removes and sets namespace properties in one request. SCHEMA_NOT_FOUND, INVALID_ARGUMENTS. */
int rest_backend_update_namespace_properties(ice_backend *b, const sqe_principal *who,
                                             const char *ns, const char *const *removals,
                                             uint32_t n_removals, const ice_kv_list *updates,
                                             sqe_error *err);

/* The "config" of who's last load of ns.name (vended credentials such as s3.access-key-id),
 * in a; empty when the table was not loaded by this user. */
int rest_backend_table_config(ice_backend *b, const sqe_principal *who, const char *ns,
                              const char *name, arena *a, ice_kv_list *out, sqe_error *err);

#endif
