/*
 * srv_hooks.h: what a protocol front end (Trino HTTP, Flight SQL) asks of the server core:
 * authentication, session tokens and their saved state, and admission limits.
 *
 * The front ends never decide who a caller is or whether a query may run; they call these hooks,
 * which `sqe serve` fills from the auth chain, the session store and the limits
 * (src/server/core/). A NULL hook means "allow": authenticate without a hook gives a principal
 * for the protocol's user field (or "anonymous"; method "none"), admit without a hook always
 * admits.
 *
 * Principals (common/principal.h) are reference counted: a hook that hands one out gives the
 * caller one reference; the front end passes it to the session (sqe_conn_set_principal) and
 * drops its own when the request or call ends. The principal carries the caller's own bearer
 * token when a REST catalog accepted it (method "bearer"), which the catalogs then forward.
 *
 * Every hook is called from protocol threads concurrently and must be thread-safe. Strings a hook
 * returns through char ** are malloc'ed and owned by the caller. On error a hook sets err (code
 * and message the front end passes to the client: PERMISSION_DENIED / UNAUTHENTICATED-style codes
 * from errcodes.def) and leaves its outputs untouched.
 */
#ifndef SQE_SERVER_SRV_HOOKS_H
#define SQE_SERVER_SRV_HOOKS_H

#include <stdbool.h>
#include <stdint.h>

#include "common/principal.h"
#include "sqe/sqe.h"

/* The state of a session a front end keeps between calls, saved and restored through the
 * session hooks (so a session survives a coordinator restart with `[session] persistence =
 * "file"`). All strings may be NULL. Owned by whoever filled it (srv_session_state_clear). */
typedef struct srv_session_state {
    char *principal;
    char *catalog;
    char *schema;
    char *time_zone;
    uint32_t n_properties;        /* SET SESSION name = value, in order */
    char **property_names;
    char **property_values;
    uint32_t n_prepared;          /* prepared statements: handle/name -> SQL text */
    char **prepared_names;
    char **prepared_sql;
} srv_session_state;

/* Frees everything in *s and zeroes it. */
void srv_session_state_clear(srv_session_state *s);

typedef struct srv_hooks {
    void *ud;

    /* Authenticates one request. authorization is the request's Authorization header value
     * ("Basic ...", "Bearer ...") or NULL; user is the protocol's claimed user (X-Trino-User,
     * Flight username) or NULL; peer is the client address as "ip:port" (IPv6 in brackets).
     * On success *principal is the authenticated caller (one reference for the caller). */
    int (*authenticate)(void *ud, const char *authorization, const char *user, const char *peer,
                        sqe_principal **principal, sqe_error *err);
    /* authenticate for a request whose client may go away while it waits: gone(gone_ctx)
     * (thread-safe, cheap) says so, and a password not yet checked is then not checked at all
     * (USER_CANCELED). QUERY_QUEUE_FULL from either hook: too busy to check now, answer
     * 503 / UNAVAILABLE. May be NULL (then use authenticate). */
    int (*authenticate_cancellable)(void *ud, const char *authorization, const char *user,
                                    const char *peer, bool (*gone)(void *gone_ctx),
                                    void *gone_ctx, sqe_principal **principal, sqe_error *err);

    /* Creates a session for principal (its user) and returns its bearer token (Flight
     * Handshake). */
    int (*session_open)(void *ud, const sqe_principal *principal, char **token, sqe_error *err);
    /* Resolves a bearer token to its session: *principal (required; one reference, method
     * "session") and *state (may be NULL; the saved state, empty for a new session). Expired or
     * unknown tokens fail. */
    int (*session_resolve)(void *ud, const char *token, sqe_principal **principal,
                           srv_session_state *state, sqe_error *err);
    /* Saves the session's state (after it changed). */
    int (*session_save)(void *ud, const char *token, const srv_session_state *state,
                        sqe_error *err);
    /* Ends a session (CloseSession, logout). */
    void (*session_close)(void *ud, const char *token);

    /* Admission: called before a statement runs, with its text length. Fails (with a clear
     * message naming the limit) when a limit is reached; on success the caller must call
     * release exactly once when the statement ends. *timeout_ms gets the statement timeout to
     * enforce (0 = none). */
    int (*admit)(void *ud, const char *principal, size_t sql_bytes, uint32_t *timeout_ms,
                 sqe_error *err);
    void (*release)(void *ud, const char *principal);
} srv_hooks;

#endif
