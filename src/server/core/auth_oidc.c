/*
 * auth_oidc.c: the oidc_bearer provider of the authentication chain: an OIDC access token in
 * `Authorization: Bearer <jwt>` (Trino HTTP; Flight's `authorization` header on every call and
 * on Handshake), checked offline against the identity provider's keys (auth/oidc_idp.h).
 *
 * INTERFACE: auth_oidc_bearer_provider (auth_oidc.h), auth_oidc_idp_from_config.
 * NOTES:
 * - Every Bearer credential is this provider's: one it cannot verify is rejected (reason code in
 *   the message), never passed on to a provider that might accept it for less. SQE's own session
 *   tokens never reach the chain (srv_core resolves them first).
 * - The principal is the token's: user, groups, roles, expiry and the token itself, which the
 *   catalogs forward (auth = "session_bearer") or exchange (auth = "token_exchange").
 */
#include "server/core/auth_oidc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "auth/jws_alg.h"

static int bearer_check(void *state, const auth_request *req, sqe_principal **principal,
                        sqe_error *err) {
    oidc_idp *idp = state;
    const char *a = req->authorization;
    if (!a || strncasecmp(a, "Bearer ", 7) != 0) return SQE_OK; /* not ours */
    a += 7;
    while (*a == ' ') a++;
    size_t len = strlen(a);
    while (len && a[len - 1] == ' ') len--;
    jwt_reason reason;
    return oidc_idp_verify(idp, a, len, principal, &reason, err);
}

int auth_oidc_bearer_provider(oidc_idp *idp, auth_provider *out, sqe_error *err) {
    (void)err;
    memset(out, 0, sizeof *out);
    out->name = "oidc_bearer";
    out->method = SQE_AUTH_OIDC_BEARER;
    out->state = idp;
    out->check = bearer_check;
    return SQE_OK;
}

int auth_oidc_idp_from_config(const config_oidc *o, oidc_idp **out, sqe_error *err) {
    *out = NULL;
    uint32_t algs = 0;
    int rc = jws_alg_list_parse(o->allowed_algorithms.items, o->allowed_algorithms.n, &algs, err);
    if (rc) {
        err_prefix(err, "[auth.oidc] allowed_algorithms");
        return rc;
    }
    oidc_idp_config ic = {
        .issuer = o->issuer,
        .discovery_url = o->discovery_url,
        .audience = *o->audience ? o->audience : o->client_id,
        .allowed_algs = algs,
        .leeway_s = o->leeway_ms / 1000,
        .require_at_jwt = o->require_access_token_type != 0,
        .claims = {.user_claim = o->user_claim,
                   .groups_claim = *o->groups_claim ? o->groups_claim : NULL,
                   .roles_claim = *o->roles_claim ? o->roles_claim : NULL},
        .jwks_ttl_ms = o->jwks_cache_ttl_ms,
        .refetch_interval_ms = o->jwks_refetch_interval_ms,
        .http_timeout_ms = o->http_timeout_ms,
        .allow_insecure_http = o->allow_insecure_http != 0,
    };
    rc = oidc_idp_create(&ic, out, err);
    if (rc) err_prefix(err, "[auth.oidc]");
    return rc;
}
