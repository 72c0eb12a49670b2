/*
 * jwt.h: offline validation of a bearer JWT (a compact JWS, RFC 7515/7519) against a key set
 * and a policy: the resource-server check an OIDC provider in the auth chain will make.
 *
 * Order of checks, each refusal with a reason code and a message that names neither the token
 * nor key material:
 *   1. shape: at most JWT_MAX_TOKEN_BYTES, three base64url parts (no padding, no whitespace,
 *      nothing outside the alphabet, canonical), header and payload JSON objects without
 *      duplicate members, a header "alg" string, no "crit";                       -> MALFORMED
 *   2. alg on the caller's allow-list (never "none" or HMAC: they have no jws_alg) -> ALG_NOT_ALLOWED
 *   3. key: by "kid" (string) among keys whose kty/crv (and own alg, when the JWK names one) go
 *      with alg; without a kid only when exactly one key suits              -> UNKNOWN_KEY,
 *      or a key with that kid exists but is of another type                  -> KEY_MISMATCH
 *   4. signature over "header.payload" (ES*: JOSE r||s of the exact length)  -> BAD_SIGNATURE
 *   5. claims, only once the signature holds: "iss" exact (WRONG_ISSUER), "aud" a string or an
 *      array of strings containing ours (WRONG_AUDIENCE), "exp" required (MISSING_CLAIM),
 *      now < exp + leeway (EXPIRED), nbf - leeway <= now and iat - leeway <= now
 *      (NOT_YET_VALID), the RFC 9068 "typ" when asked (WRONG_TYPE); a claim of the wrong JSON
 *      type is INVALID_CLAIM.
 * Time is whole seconds since the epoch (policy.now, or the wall clock when 0).
 *
 * INTERFACE: jwt_verify, jwt_token_free, jwt_reason_name, jwt_refuse.
 */
#ifndef SQE_AUTH_JWT_H
#define SQE_AUTH_JWT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "auth/jwks.h"
#include "auth/jws_alg.h"
#include "common/err.h"

#define JWT_MAX_TOKEN_BYTES 16384u  /* the whole compact token */
#define JWT_MAX_HEADER_BYTES 2048u  /* decoded header JSON */
#define JWT_MAX_AUD 64u             /* entries of an "aud" array */
#define JWT_MAX_LEEWAY_S 3600       /* larger leeways are refused as a policy error */

/* Why a token was refused (JWT_OK when it was not). */
typedef enum jwt_reason {
    JWT_OK = 0,
    JWT_MALFORMED,
    JWT_ALG_NOT_ALLOWED,
    JWT_UNKNOWN_KEY,
    JWT_KEY_MISMATCH,
    JWT_BAD_SIGNATURE,
    JWT_EXPIRED,
    JWT_NOT_YET_VALID,
    JWT_WRONG_ISSUER,
    JWT_WRONG_AUDIENCE,
    JWT_MISSING_CLAIM,
    JWT_INVALID_CLAIM,
    JWT_WRONG_TYPE,
} jwt_reason;

/* What a token must satisfy. issuer and audience are required. */
typedef struct jwt_policy {
    const char *issuer;     /* exact match of "iss" */
    const char *audience;   /* must be (in) "aud" */
    uint32_t allowed_algs;  /* OR of jws_alg bits; 0 refuses every token */
    int64_t leeway_s;       /* clock skew allowed on exp, nbf and iat (0 .. JWT_MAX_LEEWAY_S) */
    bool require_at_jwt;    /* RFC 9068: header typ "at+jwt" or "application/at+jwt" */
    int64_t now;            /* seconds since the epoch; 0 = time(NULL) */
} jwt_policy;

/* A token whose signature and claims held. Read-only; the JSON belongs to the token. */
typedef struct jwt_token {
    json_t *header;
    json_t *claims;
    jws_alg alg;
    const jwk *key;         /* the key that verified it, borrowed from the set */
    int64_t exp;            /* seconds since the epoch */
} jwt_token;

/* Validates the len bytes of token against keys and policy. On success returns SQE_OK, sets
 * *reason to JWT_OK and gives the caller *out (jwt_token_free). A refused token returns
 * UNAUTHENTICATED with *reason set and a message "token refused (<reason>): ..."; a bad policy
 * (no issuer or audience, leeway out of range) INVALID_ARGUMENTS with *reason JWT_OK;
 * OUT_OF_MEMORY. *out is NULL on any error. */
int jwt_verify(const char *token, size_t len, const jwks *keys, const jwt_policy *policy,
               jwt_token **out, jwt_reason *reason, sqe_error *err);
/* Frees a verified token. NULL is ignored. */
void jwt_token_free(jwt_token *t);
/* "ok", "malformed", "alg_not_allowed", "unknown_key", "key_mismatch", "bad_signature",
 * "expired", "not_yet_valid", "wrong_issuer", "wrong_audience", "missing_claim",
 * "invalid_claim", "wrong_type". Static storage. */
const char *jwt_reason_name(jwt_reason r);
/* Refuses a token: sets *reason = r and err to UNAUTHENTICATED "token refused (<reason name>):
 * <fmt ...>" (the caller keeps the token and key material out of fmt), and returns the error
 * code. For the validators of this layer (jwt.c, jwt_principal.c). */
int jwt_refuse(jwt_reason *reason, sqe_error *err, jwt_reason r, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
