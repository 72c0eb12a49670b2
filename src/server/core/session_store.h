/*
 * session_store.h: server sessions behind bearer tokens (Flight SQL handshakes, later OIDC):
 * who the session belongs to and its saved state (catalog, schema, properties, prepared
 * statements), with idle and absolute timeouts, a cap on their number, and optional persistence
 * to a file so sessions survive a coordinator restart.
 *
 * A token is 32 random bytes in base64url (43 characters). The store keeps only the SHA-256 of
 * each token, never the token itself, in memory and on disk.
 */
#ifndef SQE_SERVER_CORE_SESSION_STORE_H
#define SQE_SERVER_CORE_SESSION_STORE_H

#include <stdbool.h>
#include <stdint.h>

#include "common/err.h"
#include "server/srv_hooks.h"

typedef struct session_store_options {
    int64_t idle_timeout_ms;     /* unused this long: expired ([session] idle_timeout) */
    int64_t absolute_timeout_ms; /* this long after creation: expired (absolute_timeout) */
    uint32_t max_sessions;       /* more are refused (max_sessions) */
    const char *dir;             /* persistence directory; NULL or "" = memory only */
    int64_t snapshot_interval_ms; /* with dir: a changed store is written this often */
    int64_t sweep_interval_ms;    /* expired sessions are removed this often */
} session_store_options;

typedef struct session_store session_store;

/* The credential a session was opened with: how its user logged in and a fingerprint of what
 * the server checked (for a users-file password: SHA-256 of the user and the file's hash entry,
 * never the password). method "" = none recorded (sessions saved by older versions). */
typedef struct session_cred {
    char method[24];              /* "password", "anonymous", "oidc_password",
                                     "client_credentials", or "" */
    unsigned char fingerprint[32];
} session_cred;

/* Says whether the credential a session of principal was opened with is still accepted (the
 * user still exists, the password did not change). Called with the store's lock held: it must
 * not call back into the store. */
typedef bool (*session_validator)(void *ud, const char *principal, const session_cred *cred);

/* Creates an empty store and starts its background thread (sweeps, snapshots). With opts->dir
 * the directory is created (mode 0700) when missing (IO_ERROR when that fails). opts is copied.
 * The caller owns *out (session_store_destroy). */
int session_store_create(const session_store_options *opts, session_store **out,
                         sqe_error *err);

/* Restores the sessions saved in opts->dir (file "sessions.json"; missing file = nothing to
 * restore). Expired sessions are skipped. On error (unreadable or malformed file, message with
 * the path) the store is left empty and usable. */
int session_store_load(session_store *store, sqe_error *err);

/* Creates a session for principal. *token gets the bearer token (malloc'd, caller frees).
 * Fails with a message naming [session] max_sessions when the store is full. */
int session_store_open(session_store *store, const char *principal, char **token,
                       sqe_error *err);

/* session_store_open recording cred (copied; NULL = none): with a validator set, the session
 * lives only as long as the validator accepts cred. */
int session_store_open_cred(session_store *store, const char *principal, const session_cred *cred,
                            char **token, sqe_error *err);

/* Sets the validator resolve and save consult before they accept a session (NULL = none, every
 * session is accepted). A session the validator refuses is removed at once (and the removal
 * persisted) and its token fails with AUTH_ERR_UNAUTHENTICATED. Set it before the store is used. */
void session_store_set_validator(session_store *store, session_validator fn, void *ud);

/* Resolves token: *principal (malloc'd) and, when state is not NULL, a copy of the saved state
 * (caller clears it with srv_session_state_clear). Refreshes the idle timer. Unknown or expired
 * tokens fail with AUTH_ERR_UNAUTHENTICATED; outputs are untouched then. */
int session_store_resolve(session_store *store, const char *token, char **principal,
                          srv_session_state *state, sqe_error *err);
/* session_store_resolve also giving the credential the session was opened with (*cred, when
 * not NULL). */
int session_store_resolve_cred(session_store *store, const char *token, char **principal,
                               srv_session_state *state, session_cred *cred, sqe_error *err);

/* Replaces the saved state of token's session (copied; state->principal is ignored: a session
 * never changes owner). Fails like resolve for unknown or expired tokens. */
int session_store_save(session_store *store, const char *token, const srv_session_state *state,
                       sqe_error *err);

/* Ends token's session; unknown tokens are ignored. With persistence the removal is written to
 * the file before this returns (a crash right after cannot bring the session back); a failed
 * write is logged. */
void session_store_close(session_store *store, const char *token);

/* Number of live sessions. */
uint32_t session_store_count(session_store *store);

/* Removes expired sessions, and those the validator refuses, now. */
void session_store_sweep(session_store *store);

/* Writes the store to its file now when it changed since the last write (atomic: temporary file
 * with mode 0600, fsync, rename). No-op without a directory. On error the old file stays. */
int session_store_flush(session_store *store, sqe_error *err);

/* Stops the background thread, writes the store a last time (errors are logged), frees it.
 * NULL is ignored. */
void session_store_destroy(session_store *store);

#endif
