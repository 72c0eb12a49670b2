/*
 * jwt_principal.h: the sqe_principal of a verified JWT: the user, groups and roles read from
 * configurable claims, the expiry from exp, the raw token to forward, method oidc_bearer.
 *
 * Claim paths: a path is first looked up as one member name (so "https://example.com/groups"
 * or any name holding a dot works), then as dot-separated names into nested objects
 * ("realm_access.roles", "resource_access.sqe.roles").
 *   user:   user_claim (NULL: "preferred_username"); when that claim is absent, "sub". The value
 *           must be a non-empty string of at most JWT_PRINCIPAL_MAX_NAME bytes.
 *   groups, roles: absent (or no path configured) means none; a string is one entry; an array
 *           must hold only strings (at most JWT_PRINCIPAL_MAX_ENTRIES, each at most
 *           JWT_PRINCIPAL_MAX_NAME bytes). A leading '/' of Keycloak's full group paths is kept:
 *           the operator's mapper decides the spelling.
 * Anything else (a number, an object, a path through a non-object) is refused as
 * JWT_INVALID_CLAIM: a token whose identity cannot be read exactly is not guessed at.
 *
 * INTERFACE: jwt_principal_build, jwt_claim_path.
 */
#ifndef SQE_AUTH_JWT_PRINCIPAL_H
#define SQE_AUTH_JWT_PRINCIPAL_H

#include <stddef.h>

#include <jansson.h>

#include "auth/jwt.h"
#include "common/err.h"
#include "common/principal.h"

#define JWT_PRINCIPAL_MAX_ENTRIES 1024u
#define JWT_PRINCIPAL_MAX_NAME 1024u
#define JWT_PRINCIPAL_DEFAULT_USER_CLAIM "preferred_username"

typedef struct jwt_principal_config {
    const char *user_claim;   /* NULL: JWT_PRINCIPAL_DEFAULT_USER_CLAIM */
    const char *groups_claim; /* NULL: no groups */
    const char *roles_claim;  /* NULL: no roles */
} jwt_principal_config;

/* The principal of verified token t, whose raw text is raw (raw_len bytes; copied into the
 * principal as its token). On success the caller owns one reference to *out. A claim that
 * cannot be read returns UNAUTHENTICATED with *reason JWT_INVALID_CLAIM (or JWT_MISSING_CLAIM
 * when neither the user claim nor sub is there); OUT_OF_MEMORY. *out is NULL on error. */
int jwt_principal_build(const jwt_token *t, const char *raw, size_t raw_len,
                        const jwt_principal_config *cfg, sqe_principal **out, jwt_reason *reason,
                        sqe_error *err);
/* The value at path in claims (borrowed), or NULL when absent. *through_non_object is set when
 * a dotted path ran into a value that is not an object before its last name. */
json_t *jwt_claim_path(json_t *claims, const char *path, bool *through_non_object);

#endif
