/*
 * jwks.h: a JSON Web Key Set (RFC 7517) of public signing keys, parsed into OpenSSL keys: the
 * keys an OIDC identity provider signs its tokens with (the document behind `jwks_uri`).
 *
 * Kept: RSA (n, e; at least 2048 bits), EC (crv P-256, P-384, P-521; x, y on the curve) and OKP
 * Ed25519 (x) keys whose `use` is absent or "sig", whose `key_ops` (when present) include
 * "verify" and whose `alg` (when present) is a signing algorithm. Skipped, with a note
 * (jwks_note): encryption keys, unknown kty/crv/alg. Refused (the whole document): anything
 * malformed, a key carrying private members ("d", "p", "q", "dp", "dq", "qi", "oth") or a
 * symmetric secret ("k"), which means the operator pointed SQE at a private key file; more than
 * JWKS_MAX_KEYS keys; more than JWKS_MAX_BYTES of text.
 *
 * A set is immutable once parsed; threads may share it. Error messages name the key by index
 * and kid, never its material.
 *
 * INTERFACE: jwks_parse, jwks_free, jwks_count, jwks_at, jwks_note.
 */
#ifndef SQE_AUTH_JWKS_H
#define SQE_AUTH_JWKS_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/types.h>

#include "auth/jws_alg.h"
#include "common/err.h"

#define JWKS_MAX_BYTES (256u * 1024u) /* the text of one document */
#define JWKS_MAX_KEYS 64u             /* entries in "keys", kept or skipped */
#define JWK_MAX_KID 256u              /* bytes of a kid */

/* One public key. For EC, crv is "P-256" | "P-384" | "P-521"; for OKP "Ed25519"; "" for RSA. */
typedef struct jwk {
    const char *kid;  /* NULL when the key has none */
    jwk_kty kty;
    char crv[8];
    char alg[8];      /* "" when the key names none; else a JWS alg (RS256 .. EdDSA) */
    int bits;         /* RSA modulus bits, EC field bits, 256 for Ed25519 */
    EVP_PKEY *pkey;   /* owned by the set */
} jwk;

typedef struct jwks jwks;

/* Parses len bytes of JWKS text. On success the caller owns *out (jwks_free); a set with no
 * usable key is not an error (jwks_count 0, the note says why). Errors: INVALID_ARGUMENTS for a
 * malformed or refused document (message names the key and field), OUT_OF_MEMORY; *out is NULL
 * then. */
int jwks_parse(const char *text, size_t len, jwks **out, sqe_error *err);
/* Frees the set and its keys. NULL is ignored. */
void jwks_free(jwks *set);
/* Number of kept keys. */
size_t jwks_count(const jwks *set);
/* The i-th kept key (i < jwks_count), borrowed from the set. */
const jwk *jwks_at(const jwks *set, size_t i);
/* What was skipped and why ("" when nothing was), borrowed from the set. */
const char *jwks_note(const jwks *set);

#endif
