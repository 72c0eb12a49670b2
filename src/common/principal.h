/*
 * principal.h: who a statement runs as: the authenticated caller (user, groups, roles, the raw
 * bearer token and its expiry, and how they authenticated).
 *
 * A principal is made once, when a request is authenticated (srv_hooks.authenticate in the
 * server; the operating-system user in the embedded shell), and never changes afterwards: it is
 * immutable and reference counted, so threads share it without locks. References are held by
 *   - the front end's request or call while it runs (Trino request, Flight call, Flight ticket);
 *   - the session (sqe_conn) for its whole life (sqe_conn_set_principal takes one);
 *   - every Iceberg table version loaded for it (ice_table_ref.principal), so a commit made
 *     later, on another thread or after the session moved on, still goes out as the user who
 *     loaded the version, with that user's token.
 * The strings belong to the principal and live until its last reference is dropped. The token
 * is a secret: it is never logged or put in an error message, and its bytes are wiped when the
 * principal is freed.
 *
 * Layers below the server take `const sqe_principal *` (catalog backend operations, the binder's
 * bind_env, the path policy of io/path_policy.h) and never keep the pointer beyond the call
 * unless they take a reference. There is no thread-local or global "current user".
 */
#ifndef SQE_COMMON_PRINCIPAL_H
#define SQE_COMMON_PRINCIPAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

/* How the caller proved who they are. */
typedef enum sqe_auth_method {
    SQE_AUTH_NONE = 0,  /* nobody was asked: the embedded shell's OS user, servers without hooks */
    SQE_AUTH_ANONYMOUS, /* the server's anonymous mode: the claimed name, no credential */
    SQE_AUTH_PASSWORD,  /* Basic credentials checked against the users file */
    SQE_AUTH_SESSION,   /* an SQE session token (Flight handshake) the session store resolved */
    SQE_AUTH_BEARER,    /* the caller's own bearer token, accepted by a REST catalog */
    SQE_AUTH_OIDC_BEARER, /* an OIDC bearer JWT whose signature and claims SQE checked
                             (src/auth/jwt.h); groups, roles and expiry come from its claims */
    SQE_AUTH_OIDC_PASSWORD, /* Basic user:password SQE exchanged at the identity provider for
                               the user's tokens (password grant); the principal is the access
                               token's, like oidc_bearer */
    SQE_AUTH_CLIENT_CREDENTIALS, /* Basic client_id:secret run as a client-credentials grant:
                                    the client's service account */
} sqe_auth_method;

/* What a principal is made from (everything copied by sqe_principal_create). */
typedef struct sqe_principal_info {
    const char *user;              /* required, non-empty */
    const char *const *groups;     /* may be NULL when n_groups is 0 */
    uint32_t n_groups;
    const char *const *roles;
    uint32_t n_roles;
    const char *token;             /* the raw bearer token to forward (REST catalogs with
                                      auth = "session_bearer"), or NULL */
    int64_t token_expires_ms;      /* ms since the epoch; 0 = not known */
    sqe_auth_method method;
} sqe_principal_info;

/* Read the fields; never write them. */
typedef struct sqe_principal {
    _Atomic int refs;              /* private: sqe_principal_ref / _unref */
    const char *user;
    const char *const *groups;
    uint32_t n_groups;
    const char *const *roles;
    uint32_t n_roles;
    const char *token;             /* NULL when the caller has none to forward */
    int64_t token_expires_ms;
    sqe_auth_method method;
} sqe_principal;

/* A new principal from info (one allocation; strings copied). On success the caller owns one
 * reference to *out; INVALID_ARGUMENTS for a missing user, OUT_OF_MEMORY; on error *out is
 * NULL. */
int sqe_principal_create(const sqe_principal_info *info, sqe_principal **out, sqe_error *err);
/* A principal for user with nothing else (method SQE_AUTH_NONE): the embedded shell, servers
 * without hooks. Same contract as sqe_principal_create. */
int sqe_principal_for_user(const char *user, sqe_auth_method method, sqe_principal **out,
                           sqe_error *err);
/* Another reference (NULL gives NULL). */
sqe_principal *sqe_principal_ref(const sqe_principal *p);
/* Drops a reference; the last one frees the principal and wipes its token. NULL is ignored. */
void sqe_principal_unref(sqe_principal *p);

/* Does p hold role (exact match)? False for NULL. */
bool sqe_principal_has_role(const sqe_principal *p, const char *role);
/* Does p hold any of the n roles? */
bool sqe_principal_has_any_role(const sqe_principal *p, const char *const *roles, size_t n);
/* "none", "anonymous", "password", "session", "bearer", "oidc_bearer", "oidc_password",
 * "client_credentials". */
const char *sqe_auth_method_name(sqe_auth_method m);

#endif
