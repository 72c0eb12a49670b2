/*
 * oidc_idp.h: one OpenID Connect identity provider as SQE's resource server sees it: its
 * discovery document, its signing keys (JWKS) cached with a time to live, and the check of a
 * bearer token against them that gives the caller's principal.
 *
 * Discovery: GET <discovery_url> (default <issuer>/.well-known/openid-configuration); its
 * "issuer" must equal the configured issuer exactly, its "jwks_uri" (and token, authorization
 * and end-session endpoints, when present) must be http(s) URLs, plain http only when the
 * configuration allows it. Discovery and the first key fetch happen on first use (or
 * oidc_idp_prefetch at startup), so SQE starts while the identity provider is still down.
 *
 * Keys: the key set is immutable and shared under a reference count; a fetch swaps in a new one.
 * It is used until jwks_cache_ttl after it was fetched; then the next token fetches it again.
 * A token whose kid is not in the set triggers one refetch (key rotation), at most once per
 * refetch_interval. When the identity provider cannot be reached, the cached set keeps working
 * until its TTL ends and tokens are refused after that (fail closed, reason unknown_key with a
 * message saying the keys could not be fetched); one fetch failure is retried at most once per
 * refetch_interval.
 *
 * Thread-safe: one oidc_idp serves every request thread. Fetches happen on the thread of the
 * request that needs them, one at a time (others wait for it rather than fetch too).
 *
 * INTERFACE: oidc_idp_create, oidc_idp_destroy, oidc_idp_prefetch, oidc_idp_verify,
 *   oidc_idp_endpoints, oidc_idp_issuer, oidc_idp_stats.
 */
#ifndef SQE_AUTH_OIDC_IDP_H
#define SQE_AUTH_OIDC_IDP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "auth/jwt.h"
#include "auth/jwt_principal.h"
#include "common/err.h"
#include "common/principal.h"

typedef struct oidc_idp oidc_idp;

typedef struct oidc_idp_config {
    const char *issuer;          /* required; exact "iss" */
    const char *discovery_url;   /* NULL or "": <issuer>/.well-known/openid-configuration */
    const char *audience;        /* required: must be in "aud" */
    uint32_t allowed_algs;       /* jws_alg bits (jws_alg_list_parse) */
    int64_t leeway_s;
    bool require_at_jwt;         /* RFC 9068 typ */
    jwt_principal_config claims; /* user, groups, roles claim paths (strings copied) */
    int64_t jwks_ttl_ms;         /* 0 = 10 minutes */
    int64_t refetch_interval_ms; /* least time between refetches for unknown keys; 0 = none */
    int64_t http_timeout_ms;     /* one request to the IdP; 0 = 10 s */
    bool allow_insecure_http;    /* http:// URLs allowed (config checked they are loopback) */
    const char *ca_file;         /* CA bundle for the IdP's TLS, or NULL for the system's */
} oidc_idp_config;

/* The endpoints of the discovery document (strings owned by the idp, valid until it is
 * destroyed; NULL when the document has none). */
typedef struct oidc_endpoints {
    const char *issuer;
    const char *jwks_uri;
    const char *token_endpoint;
    const char *authorization_endpoint;
    const char *end_session_endpoint;
} oidc_endpoints;

/* Creates the provider (no network yet; cfg's strings copied). INVALID_ARGUMENTS for a missing
 * issuer or audience. On success the caller owns *out (oidc_idp_destroy). */
int oidc_idp_create(const oidc_idp_config *cfg, oidc_idp **out, sqe_error *err);
/* Frees it. NULL is ignored; no call may be running. */
void oidc_idp_destroy(oidc_idp *idp);

/* Fetches discovery and keys now (startup); an error says why (IO_ERROR unreachable,
 * INVALID_ARGUMENTS for a wrong issuer or a bad document). The idp stays usable either way. */
int oidc_idp_prefetch(oidc_idp *idp, sqe_error *err);

/* Checks the len bytes of a bearer token (no "Bearer " prefix) and builds its principal
 * (method SQE_AUTH_OIDC_BEARER, the token inside). On success the caller owns one reference to
 * *out. A refused token: UNAUTHENTICATED with *reason and the jwt_verify message; the keys
 * unavailable (identity provider unreachable and nothing cached): UNAUTHENTICATED with reason
 * JWT_UNKNOWN_KEY. *out NULL on error. */
int oidc_idp_verify(oidc_idp *idp, const char *token, size_t len, sqe_principal **out,
                    jwt_reason *reason, sqe_error *err);

/* Discovery's endpoints (discovering first when not done yet). IO_ERROR when the identity
 * provider cannot be reached. */
int oidc_idp_endpoints(oidc_idp *idp, oidc_endpoints *out, sqe_error *err);

/* The configured issuer (owned by the idp). */
const char *oidc_idp_issuer(const oidc_idp *idp);

/* Counters (atomic reads). */
typedef struct oidc_idp_stats {
    uint64_t key_fetches;     /* JWKS documents fetched successfully */
    uint64_t fetch_failures;  /* discovery or JWKS fetches that failed */
    uint64_t verified;        /* tokens accepted */
    uint64_t refused;         /* tokens refused */
} oidc_idp_stats;
void oidc_idp_stats_get(const oidc_idp *idp, oidc_idp_stats *out);

#endif
