/*
 * auth.h: the authentication chain of `sqe serve`: an ordered list of authenticators that every
 * request of every protocol passes through, plus the two authenticators that exist today.
 *
 * Each authenticator looks at the request's Authorization header, claimed user and peer address
 * and either accepts it (a principal), passes it on (not its kind of credential), or rejects it.
 * The first that accepts or rejects decides; when every one passes, the request is rejected as
 * "authentication required". OIDC bearer tokens slot in later as one more provider.
 *
 *   password   Basic credentials checked against a users file (one
 *              "user:$pbkdf2-sha256$<iterations>$<salt b64>$<hash b64>" per line), reloaded when
 *              the file changes.
 *   anonymous  accepts a request without credentials (principal = the claimed user, else
 *              "anonymous"), only from a loopback peer when loopback_only.
 *
 * The chain also rate limits failures per (user, peer address) and per peer address whatever the
 * user name: after a few failed attempts in a row, further attempts are refused for a growing
 * backoff without checking the password. An attempt counts from the moment it starts, so parallel
 * attempts cannot slip past the limit. Failures are logged on stderr with user and peer, never
 * the password. A provider that is too busy to check (the password provider's hash gate) answers
 * QUERY_QUEUE_FULL, which the chain passes on uncounted (front ends answer 503 / UNAVAILABLE).
 */
#ifndef SQE_SERVER_CORE_AUTH_H
#define SQE_SERVER_CORE_AUTH_H

#include <stdbool.h>
#include <stdint.h>

#include "common/err.h"
#include "common/principal.h"

/* The code of an authentication failure. errcodes.def has no UNAUTHENTICATED yet; front ends
 * map every error of auth_chain_authenticate to HTTP 401 / gRPC UNAUTHENTICATED. */
#define AUTH_ERR_UNAUTHENTICATED SQE_ERR_UNAUTHENTICATED

/* PBKDF2 iterations `sqe passwd` uses by default, and the accepted range of a users file. */
#define AUTH_PBKDF2_DEFAULT_ITERATIONS 600000u
#define AUTH_PBKDF2_MIN_ITERATIONS 1000u
#define AUTH_PBKDF2_MAX_ITERATIONS 100000000u

typedef struct auth_request {
    const char *authorization; /* Authorization header value, or NULL */
    const char *user;          /* the protocol's claimed user (X-Trino-User), or NULL */
    const char *peer;          /* "ip:port", IPv6 as "[ip]:port"; NULL = unknown (not loopback) */
    /* Optional: true when the client no longer waits for the answer (connection closed, HTTP/2
     * stream reset); its password is then not checked. Called from the checking thread. */
    bool (*gone)(void *gone_ctx);
    void *gone_ctx;
} auth_request;

/* One authenticator. check returns SQE_OK with *principal set (one reference for the chain) to
 * accept, SQE_OK with *principal left NULL to pass the request on, or an error (err set) to
 * reject it. check is called concurrently from many threads. destroy frees state (may be
 * NULL). */
typedef struct auth_provider {
    const char *name; /* static: "password", "anonymous", "oidc_bearer", ... */
    sqe_auth_method method; /* what an accepted request's principal records */
    void *state;
    int (*check)(void *state, const auth_request *req, sqe_principal **principal,
                 sqe_error *err);
    void (*destroy)(void *state);
    /* The current fingerprint of user's credential (out, 32 bytes; never the secret itself):
     * true when the provider still knows user. NULL: the provider has no credentials (anonymous)
     * and accepts any user. Called concurrently. */
    bool (*fingerprint)(void *state, const char *user, unsigned char out[32]);
} auth_provider;

typedef struct auth_chain auth_chain;

/* Failure limits of a chain. */
typedef struct auth_chain_limits {
    uint32_t user_free_failures;    /* per (user, address) before the backoff; 0 = 3 */
    uint32_t address_free_failures; /* per address, any user name; 0 = 20 */
} auth_chain_limits;

#define AUTH_DEFAULT_USER_FREE_FAILURES 3u
#define AUTH_DEFAULT_ADDRESS_FREE_FAILURES 20u

/* Creates an empty chain (which rejects everything). The caller owns *out (auth_chain_destroy). */
int auth_chain_create(auth_chain **out, sqe_error *err);

/* Sets the failure limits (before the first request; zeros take the defaults). */
void auth_chain_set_limits(auth_chain *chain, const auth_chain_limits *limits);

/* The roles whose holders may run as another user, named by the request's claimed user
 * (X-Trino-User, x-sqe-user) when it differs from the authenticated one (strings copied; before
 * the first request). Without any, nobody may: a claimed user that is not the authenticated
 * one is refused. An allowed impersonation gives a principal for the claimed user with no
 * groups or roles, the impersonator's token and method. */
int auth_chain_set_impersonation(auth_chain *chain, const char *const *roles, size_t n,
                                 sqe_error *err);

/* Appends a provider; the chain owns its state from now on, also when this fails (then the
 * provider is destroyed at once). */
int auth_chain_add(auth_chain *chain, const auth_provider *provider, sqe_error *err);

/* Number of providers and the name of provider i (for the startup log). */
uint32_t auth_chain_count(const auth_chain *chain);
const char *auth_chain_name(const auth_chain *chain, uint32_t i);

/* Authenticates one request. On success *principal is the user name (malloc'd, caller frees).
 * On error (AUTH_ERR_UNAUTHENTICATED, message for the client, never naming which of user or
 * password was wrong) *principal is untouched and the failure is counted for rate limiting;
 * SQE_ERR_QUERY_QUEUE_FULL means the server was too busy to check, SQE_ERR_USER_CANCELED that
 * the client went away before its password was checked (both counted against the address only,
 * not the user). */
int auth_chain_authenticate(auth_chain *chain, const auth_request *req, char **principal,
                            sqe_error *err);
/* auth_chain_authenticate giving the whole principal the accepting provider built (user,
 * method; groups, roles, token and expiry from OIDC providers). On success the caller owns one
 * reference to *out; on error *out is untouched. */
int auth_chain_authenticate_principal(auth_chain *chain, const auth_request *req,
                                      sqe_principal **out, sqe_error *err);

/* The current credential fingerprint of user as the chain's provider of method sees it (for
 * sessions: a session lives as long as its fingerprint matches). False when no provider of
 * method is configured or it does not know user any more (removed from the users file). */
bool auth_chain_fingerprint(auth_chain *chain, sqe_auth_method method, const char *user,
                            unsigned char out[32]);

/* Frees the chain and its providers. NULL is ignored. */
void auth_chain_destroy(auth_chain *chain);

/* --- providers -------------------------------------------------------------------------------- */

/* The users-file provider: loads users_file now (IO_ERROR when unreadable; INVALID_ARGUMENTS
 * "FILE:LINE: why" for a malformed line) and reloads it whenever its size, mtime or inode
 * changes (a reload that fails keeps the previous users and logs the error). On success *out is
 * filled (add it to a chain); on error nothing is allocated. */
int auth_password_provider(const char *users_file, auth_provider *out, sqe_error *err);

/* The password provider's hash gate (see auth_password.c). */
typedef struct auth_password_options {
    uint32_t max_concurrent; /* PBKDF2 checks at a time; 0 = half the cores, at least 1 */
    uint32_t wait_ms;        /* how long a check waits for a place; 0 = do not wait */
} auth_password_options;

#define AUTH_PASSWORD_DEFAULT_WAIT_MS 100u

/* Defaults: max_concurrent 0, wait_ms AUTH_PASSWORD_DEFAULT_WAIT_MS. */
void auth_password_options_init(auth_password_options *o);

/* auth_password_provider with gate options. */
int auth_password_provider_opts(const char *users_file, const auth_password_options *o,
                                auth_provider *out, sqe_error *err);

/* The anonymous provider: accepts requests that carry no Authorization header; with
 * loopback_only, only from loopback peers (others are rejected with a message saying so).
 * Requests with credentials are passed on. */
int auth_anonymous_provider(bool loopback_only, auth_provider *out, sqe_error *err);

/* --- helpers ---------------------------------------------------------------------------------- */

/* Makes the users-file hash of password ("$pbkdf2-sha256$<iterations>$<salt>$<hash>", 16 random
 * salt bytes, 32-byte hash, standard base64). *out is malloc'd (caller frees). */
int auth_password_hash(const char *password, uint32_t iterations, char **out, sqe_error *err);

/* Checks password against a hash made by auth_password_hash: *ok = true when it matches
 * (constant-time comparison). INVALID_ARGUMENTS when hash is malformed. */
int auth_password_verify(const char *hash, const char *password, bool *ok, sqe_error *err);

/* Splits "Basic <base64(user:password)>" (scheme case-insensitive) into malloc'd *user and
 * *password. INVALID_ARGUMENTS (nothing allocated) for another scheme or malformed credentials. */
int auth_basic_decode(const char *authorization, char **user, char **password, sqe_error *err);

/* True when peer ("ip:port", "[ip]:port", or a bare address) is a loopback address (127.0.0.0/8,
 * ::1, ::ffff:127.x.x.x). NULL and unparsable addresses are not loopback. */
bool auth_peer_is_loopback(const char *peer);

/* A user name is 1..128 bytes, no control characters and no ':' (the users-file separator). */
bool auth_user_name_valid(const char *user);

#endif
