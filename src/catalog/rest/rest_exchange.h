/*
 * rest_exchange.h: per-user catalog tokens by RFC 8693 token exchange, for REST catalogs with
 * auth = "token_exchange": the user's own token (sqe_principal.token) goes to the identity
 * provider's token endpoint as the subject token, with SQE's client ([auth.oidc] client_id and
 * secret) and the catalog's audience; the token the IdP issues for that user and audience is
 * what the catalog gets. The user's own token never reaches the catalog.
 *
 * The token endpoint comes from discovery ("<issuer>/.well-known/openid-configuration", or the
 * configured discovery URL; its "issuer" must equal the configured one), fetched on first use
 * (so an IdP that is down does not stop SQE from starting) and kept; a failed discovery is tried
 * again by the next request.
 *
 * Cache: per subject token, keyed by its SHA-256 (the subject token itself is not kept), the
 * exchanged token until shortly before it expires (30 s before, or a quarter of its lifetime
 * when that is shorter; 60 s when the IdP gave no lifetime), never past the subject token's own
 * expiry when known; at most REST_EXCHANGE_CACHE entries, the least recently used evicted.
 * Evicted and replaced tokens are wiped.
 *
 * Errors: UNAUTHENTICATED when the IdP refuses the exchange (oidc_grant.h: the OAuth error code
 * only) or when there is no subject token; IO_ERROR for an unreachable IdP or a bad discovery
 * document; OUT_OF_MEMORY. Messages name the audience, never a token.
 *
 * Thread-safe: the cache is under a mutex; exchanges run outside it (two threads missing the
 * cache for one user at once both exchange; the later result wins).
 *
 * INTERFACE: rest_exchange_create, rest_exchange_destroy, rest_exchange_token,
 *   rest_exchange_audience.
 */
#ifndef SQE_CATALOG_REST_REST_EXCHANGE_H
#define SQE_CATALOG_REST_REST_EXCHANGE_H

#include <stdbool.h>
#include <stdint.h>

#include "common/err.h"

#define REST_EXCHANGE_CACHE 256

typedef struct rest_exchange rest_exchange;

typedef struct rest_exchange_config {
    const char *issuer;        /* required: [auth.oidc] issuer */
    const char *discovery_url; /* NULL or "" = <issuer>/.well-known/openid-configuration */
    const char *client_id;     /* required: [auth.oidc] client_id */
    const char *client_secret; /* NULL or "" = a public client */
    const char *audience;      /* required: the catalog's audience */
    int64_t timeout_ms;        /* one request to the IdP; 0 = 10 s */
    const char *ca_file;       /* CA bundle or NULL */
    bool allow_insecure_http;  /* [auth.oidc] allow_insecure_http: http IdP URLs to loopback */
} rest_exchange_config;

/* Creates an exchanger (strings copied; no request yet). INVALID_ARGUMENTS for a missing
 * issuer, client_id or audience. The caller owns *out (rest_exchange_destroy). */
int rest_exchange_create(const rest_exchange_config *cfg, rest_exchange **out, sqe_error *err);
/* Frees x and wipes its cached tokens. NULL is ignored; no call may be running. */
void rest_exchange_destroy(rest_exchange *x);

/* *tok = the catalog token for the user whose token is subject_token (expiring at
 * subject_expires_ms, 0 = unknown): the cached one, or a new exchange (renew: drop the cached
 * one first, after the catalog refused it). *tok is malloc'ed; the caller wipes and frees it. */
int rest_exchange_token(rest_exchange *x, const char *subject_token, int64_t subject_expires_ms,
                        bool renew, char **tok, sqe_error *err);

/* The configured audience (owned by x). */
const char *rest_exchange_audience(const rest_exchange *x);

#endif
