/*
 * auth_oidc.h: the OIDC providers of the authentication chain and their identity provider built
 * from [auth.oidc].
 *
 *   oidc_bearer         `Authorization: Bearer <access token>` checked against the identity
 *                       provider's keys; the principal comes from the token's claims and carries
 *                       the token.
 *   oidc_password       Basic user:password exchanged at the identity provider's token endpoint
 *                       (resource-owner password grant) for the user's tokens, so clients that
 *                       only know passwords (JDBC, the Trino CLI, dbt, BI tools) run with real
 *                       per-user tokens.
 *   client_credentials  Basic client_id:secret run as a client-credentials grant (service
 *                       accounts); credentials the IdP does not know as a client are passed on.
 * The two grant providers share one cache of logins (oidc_logins), refreshed before expiry;
 * see auth_oidc_login.c.
 */
#ifndef SQE_SERVER_CORE_AUTH_OIDC_H
#define SQE_SERVER_CORE_AUTH_OIDC_H

#include "auth/oidc_idp.h"
#include "common/config.h"
#include "server/core/auth.h"

/* The identity provider of [auth.oidc] (no network yet). Errors name the key. On success the
 * caller owns *out (oidc_idp_destroy, after every chain using it). */
int auth_oidc_idp_from_config(const config_oidc *o, oidc_idp **out, sqe_error *err);

/* The oidc_bearer provider checking tokens with idp (borrowed: it must outlive the chain). */
int auth_oidc_bearer_provider(oidc_idp *idp, auth_provider *out, sqe_error *err);

/* --- logins SQE makes for password clients ---------------------------------------------------- */

typedef struct oidc_logins oidc_logins;

typedef struct oidc_logins_config {
    const char *client_id;     /* required: SQE's client ([auth.oidc] client_id) */
    const char *client_secret; /* NULL or "": a public client */
    const char *scope;         /* NULL: none */
    int64_t refresh_before_ms; /* refresh this long before the access token expires */
    int64_t timeout_ms;        /* one IdP request; 0 = 10 s */
} oidc_logins_config;

/* The login cache, verifying the tokens it gets with idp (borrowed: it must outlive the cache).
 * Strings copied. On success the caller owns *out (oidc_logins_destroy, after the chain). */
int oidc_logins_create(oidc_idp *idp, const oidc_logins_config *cfg, oidc_logins **out,
                       sqe_error *err);
void oidc_logins_destroy(oidc_logins *ls);

/* The providers on ls (borrowed: it must outlive the chain). */
int auth_oidc_password_provider(oidc_logins *ls, auth_provider *out, sqe_error *err);
int auth_oidc_client_credentials_provider(oidc_logins *ls, auth_provider *out, sqe_error *err);

/* The key of the login that made principal p (sessions are tied to it): true and *key filled
 * when p came from this cache and its login is still there. */
bool oidc_logins_key(oidc_logins *ls, const sqe_principal *p, unsigned char key[32]);
/* Is the login of key still cached? (cheap: the session store's validator) */
bool oidc_logins_known(oidc_logins *ls, const unsigned char key[32]);
/* The current principal of the login of key, refreshed with its refresh token when its access
 * token is about to expire; one reference for the caller. UNAUTHENTICATED ("Session ended:
 * ...") when the login is gone or cannot be refreshed (it is then forgotten). */
int oidc_logins_current(oidc_logins *ls, const unsigned char key[32], sqe_principal **out,
                        sqe_error *err);

#endif
