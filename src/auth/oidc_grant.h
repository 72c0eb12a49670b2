/*
 * oidc_grant.h: OAuth 2.0 grants at an identity provider's token endpoint, for SQE's own
 * client (client_id and secret of [auth.oidc]): the resource-owner password grant
 * (oidc_password), client credentials, refresh, RFC 8693 token exchange (per-catalog tokens for
 * a user) and the authorization code with PKCE (Trino external authentication).
 *
 * Every grant is one form POST (application/x-www-form-urlencoded) with client authentication
 * by HTTP Basic (client_secret_basic; public clients send client_id in the form), never retried
 * (HTTP_RETRY_NO: a password is tried once), its body never logged. The answer is a JSON token
 * response (RFC 6749 section 5.1), bounded to OIDC_GRANT_MAX_RESPONSE bytes.
 *
 * Errors: the identity provider said no (400/401/403 with "error": invalid_grant, invalid_client,
 * unauthorized_client, invalid_scope, access_denied, ...) -> UNAUTHENTICATED "identity provider
 * refused the <grant> grant: <error>" (the error code only, never the description, which may
 * echo input; never which of user or password was wrong); anything else the IdP answers (5xx,
 * a body that is not a token response) or a transport failure -> IO_ERROR naming the endpoint;
 * OUT_OF_MEMORY. The `error` member of the result holds the OAuth error code when there was one
 * (only codes of RFC 6749's characters, at most 47 of them; anything else is an IO_ERROR).
 *
 * Thread-safe: a grant client may be used from many threads at once.
 *
 * INTERFACE: oidc_grant_client_create, oidc_grant_client_destroy, oidc_grant_password,
 *   oidc_grant_client_credentials, oidc_grant_refresh, oidc_grant_exchange,
 *   oidc_grant_authorization_code, oidc_tokens_clear, oidc_pkce_new, oidc_random_state;
 *   the pieces, for tests: oidc_pkce_challenge, oidc_form_add, oidc_basic_credentials,
 *   oidc_tokens_parse.
 * NOTES: jansson keeps its own copies of the parsed strings and frees them without wiping; the
 *   form, the Basic header, the response body and every string of oidc_tokens are wiped.
 */
#ifndef SQE_AUTH_OIDC_GRANT_H
#define SQE_AUTH_OIDC_GRANT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "common/strbuf.h"

#define OIDC_GRANT_MAX_RESPONSE (64u * 1024u)

typedef struct oidc_grant_client oidc_grant_client;

typedef struct oidc_grant_config {
    const char *token_endpoint; /* required: http(s) URL (discovery's token_endpoint) */
    const char *client_id;      /* required */
    const char *client_secret;  /* NULL or "": a public client */
    const char *scope;          /* sent with password and client-credentials grants; NULL = none */
    int64_t timeout_ms;         /* one request; 0 = 10 s */
    const char *ca_file;        /* CA bundle or NULL */
} oidc_grant_config;

/* A token response. Strings malloc'd (NULL when absent), owned by the struct
 * (oidc_tokens_clear wipes and frees them). Times in ms since the epoch, computed from
 * expires_in / refresh_expires_in when the answer arrived (0 = not given). */
typedef struct oidc_tokens {
    char *access_token;
    char *refresh_token;
    char *id_token;
    char *token_type;          /* "Bearer" (case as sent) */
    char *scope;
    char *issued_token_type;   /* token exchange: urn:ietf:params:oauth:token-type:... */
    int64_t expires_at_ms;
    int64_t refresh_expires_at_ms;
    char error[48];            /* after an UNAUTHENTICATED refusal: the OAuth error code */
} oidc_tokens;

/* Creates a client (strings copied). INVALID_ARGUMENTS for a missing endpoint or client id.
 * The caller owns *out (oidc_grant_client_destroy). */
int oidc_grant_client_create(const oidc_grant_config *cfg, oidc_grant_client **out,
                             sqe_error *err);
void oidc_grant_client_destroy(oidc_grant_client *c);

/* grant_type=password for user and password. On success *out is filled (caller clears it);
 * on error *out is zeroed but for `error`. Same contract for every grant below. */
int oidc_grant_password(oidc_grant_client *c, const char *user, const char *password,
                        oidc_tokens *out, sqe_error *err);
/* grant_type=client_credentials, authenticated as client_id:client_secret given here (a
 * service account logging in through SQE), not the configured client. */
int oidc_grant_client_credentials(oidc_grant_client *c, const char *client_id,
                                  const char *client_secret, oidc_tokens *out, sqe_error *err);
/* grant_type=refresh_token. */
int oidc_grant_refresh(oidc_grant_client *c, const char *refresh_token, oidc_tokens *out,
                       sqe_error *err);
/* RFC 8693 token exchange: subject_token (an access token, subject_token_type
 * urn:ietf:params:oauth:token-type:access_token) for a token with audience (NULL = none),
 * requested_token_type access_token. */
int oidc_grant_exchange(oidc_grant_client *c, const char *subject_token, const char *audience,
                        oidc_tokens *out, sqe_error *err);
/* grant_type=authorization_code with the PKCE code_verifier and the redirect_uri the
 * authorization request used. */
int oidc_grant_authorization_code(oidc_grant_client *c, const char *code,
                                  const char *redirect_uri, const char *code_verifier,
                                  oidc_tokens *out, sqe_error *err);

/* Wipes and frees the strings of t and zeroes it. NULL is ignored. */
void oidc_tokens_clear(oidc_tokens *t);

/* PKCE (RFC 7636, S256): a fresh random verifier (43 base64url characters from 32 random
 * bytes) and its challenge base64url(SHA-256(verifier)), both NUL-terminated. */
typedef struct oidc_pkce {
    char verifier[64];
    char challenge[64];
} oidc_pkce;
int oidc_pkce_new(oidc_pkce *out, sqe_error *err);
/* n-1 random base64url characters (from the system's CSPRNG) and a NUL into buf (n >= 17). */
int oidc_random_state(char *buf, size_t n, sqe_error *err);

/* ---- the pieces, exposed for the unit tests ------------------------------------------------ */

/* The S256 challenge of verifier (43..128 characters of [A-Za-z0-9-._~], RFC 7636 4.1) into
 * out: base64url without padding of SHA-256(verifier). INVALID_ARGUMENTS for another
 * verifier. */
int oidc_pkce_challenge(const char *verifier, char out[64], sqe_error *err);
/* Appends "&name=value" (no '&' when sb is empty) to sb, name and value percent-encoded as RFC
 * 3986 says (everything but A-Z a-z 0-9 - . _ ~ as %XX, upper-case hex). Check sb->failed. */
void oidc_form_add(strbuf *sb, const char *name, const char *value);
/* "Basic " + base64(form-urlencode(client_id) ":" form-urlencode(secret)) (RFC 6749 2.3.1) into
 * out. Check out->failed. */
void oidc_basic_credentials(strbuf *out, const char *client_id, const char *client_secret);
/* Parses a 2xx token response body of len bytes received at now_ms into *out (caller clears
 * it): a JSON object with a non-empty string access_token; token_type, refresh_token,
 * id_token, scope, issued_token_type strings when present (null = absent); expires_in and
 * refresh_expires_in integers 0..10 years when present. IO_ERROR "<what> answered with an
 * invalid token response: <why>" for anything else (a body over OIDC_GRANT_MAX_RESPONSE
 * included), OUT_OF_MEMORY; on error *out is zeroed. */
int oidc_tokens_parse(const char *body, size_t len, int64_t now_ms, const char *what,
                      oidc_tokens *out, sqe_error *err);

#endif
