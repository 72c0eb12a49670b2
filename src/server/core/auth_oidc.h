/*
 * auth_oidc.h: the OIDC providers of the authentication chain and their identity provider built
 * from [auth.oidc].
 *
 *   oidc_bearer   `Authorization: Bearer <access token>` checked against the identity provider's
 *                 keys; the principal comes from the token's claims and carries the token.
 */
#ifndef SQE_SERVER_CORE_AUTH_OIDC_H
#define SQE_SERVER_CORE_AUTH_OIDC_H

#include "auth/oidc_idp.h"
#include "common/config.h"
#include "server/core/auth.h"

/* The identity provider of [auth.oidc] (no network yet). Errors name the key. On success the
 * caller owns *out (oidc_idp_destroy, after every chain using it). */
int auth_oidc_idp_from_config(const config_oidc *o, oidc_idp **out, sqe_error *err);

/* The client secret of [auth.oidc]: client_secret, or the first line of client_secret_file.
 * *out is malloc'd (caller wipes and frees), NULL when neither is set. */
int auth_oidc_client_secret(const config_oidc *o, char **out, sqe_error *err);

/* The oidc_bearer provider checking tokens with idp (borrowed: it must outlive the chain). */
int auth_oidc_bearer_provider(oidc_idp *idp, auth_provider *out, sqe_error *err);

#endif
