/*
 * trino_oauth2.h: Trino's OAuth2 external authentication on the Trino port, the flow that
 * `trino --external-authentication`, JDBC's externalAuthentication and the Python client's
 * OAuth2Authentication speak, with the authorization code grant and PKCE (S256) at the
 * identity provider of [auth.oidc].
 *
 * The flow, one "login" per refused request that could use it (no Authorization header, or a
 * Bearer one):
 *   1. the 401 gets a second challenge: WWW-Authenticate: Bearer
 *      x_redirect_server="<browser base>/oauth2/token/initiate/<login id>",
 *      x_token_server="<base>/oauth2/token/<poll id>" (two unrelated random ids of 258 bits:
 *      the browser's URL cannot be used to poll the token);
 *   2. the client shows the first URL; the browser's GET there is redirected (303) to the
 *      identity provider's authorization_endpoint with response_type=code, client_id,
 *      redirect_uri=<browser base>/oauth2/callback, scope, a fresh random state and the PKCE
 *      challenge;
 *   3. the identity provider sends the browser back to /oauth2/callback?code&state; the state
 *      (single use) names the login, the code is exchanged (with the verifier) at the token
 *      endpoint, and the access token is kept for the login; the browser gets a small page
 *      (never the token);
 *   4. the client long-polls GET <x_token_server>: {"nextUri": the same URL} while the login is
 *      pending (each poll waits up to poll_wait_ms), then {"token": "..."} once (the login is
 *      then forgotten) or {"error": "..."} (failed, expired, unknown); DELETE forgets it.
 * The client then sends Authorization: Bearer <token>, which the oidc_bearer provider checks
 * (nothing here validates tokens).
 *
 * Limits: at most max_pending logins at once and max_pending_per_address per client address;
 * beyond them the refused request gets 503 + Retry-After instead of the 401. A login expires
 * login_ttl_ms after its challenge. Tokens, codes, verifiers and states are never logged and
 * wiped when dropped.
 *
 * Thread-safe: the handlers run on the HTTP thread pool.
 *
 * INTERFACE: trino_oauth2_options_init, trino_oauth2_create, trino_oauth2_add_routes,
 *   trino_oauth2_challenge, trino_oauth2_destroy.
 */
#ifndef SQE_SERVER_TRINO_TRINO_OAUTH2_H
#define SQE_SERVER_TRINO_TRINO_OAUTH2_H

#include <stdint.h>

#include "auth/oidc_idp.h"
#include "common/err.h"
#include "server/core/http_server.h"

typedef struct trino_oauth2_options {
    oidc_idp *idp;                 /* required, borrowed (must outlive the flow): discovery's
                                      authorization and token endpoints */
    const char *client_id;         /* required: SQE's client at the identity provider */
    const char *client_secret;     /* NULL or "": a public client */
    const char *scope;             /* NULL or "": "openid" */
    const char *redirect_url;      /* base URL browsers reach the Trino port at (scheme://host
                                      [:port][/prefix]); NULL or "": from the request's Host */
    const char *ca_file;           /* CA bundle for the token endpoint, or NULL */
    int64_t http_timeout_ms;       /* one token request; 0 = 10 s */
    uint32_t max_pending;          /* default 256 */
    uint32_t max_pending_per_address; /* default 32 */
    uint32_t login_ttl_ms;         /* default 5 minutes */
    uint32_t poll_wait_ms;         /* default 10 s */
} trino_oauth2_options;

typedef struct trino_oauth2 trino_oauth2;

/* Fills *o with the defaults above (no idp, no client). */
void trino_oauth2_options_init(trino_oauth2_options *o);

/* Creates the flow (o and its strings copied; the idp borrowed). INVALID_ARGUMENTS without an
 * idp or client id, or for a redirect_url that is not http(s). The caller owns *out
 * (trino_oauth2_destroy, after the HTTP server that calls it is gone). */
int trino_oauth2_create(const trino_oauth2_options *o, trino_oauth2 **out, sqe_error *err);

/* Puts the public routes GET /oauth2/token/initiate/..., GET and DELETE /oauth2/token/... and
 * GET /oauth2/callback on srv. SQE_OK or OUT_OF_MEMORY. */
int trino_oauth2_add_routes(trino_oauth2 *f, http_server *srv);

/* http_server_options.challenge (ud = the flow): adds the Bearer challenge of a new login to a
 * 401 whose request sent no credentials or a Bearer token; replaces the reply with a 503 when
 * the limits are reached. */
void trino_oauth2_challenge(void *ud, const struct http_request *req, struct http_reply *reply);

/* Wakes and answers nothing more; frees every login (tokens wiped). NULL is ignored. */
void trino_oauth2_destroy(trino_oauth2 *f);

#endif
