/*
 * jws_alg.h: the JWS signature algorithms SQE accepts (RFC 7518 section 3, RFC 8037 for EdDSA),
 * as bits of an allow-list, with the key type, curve and digest each one needs.
 *
 * Only asymmetric algorithms exist here: "none" and the HMAC family (HS256/384/512) have no
 * value, so no configuration can allow them and a token naming them is refused before any key
 * is looked at (an HS256 token "signed" with an RSA public key as the secret cannot verify).
 *
 * INTERFACE: jws_alg_from_name, jws_alg_name, jws_alg_kty, jws_alg_crv, jws_alg_md,
 *            jws_alg_ec_coord_bytes, jws_alg_list_parse, jwk_kty_name.
 */
#ifndef SQE_AUTH_JWS_ALG_H
#define SQE_AUTH_JWS_ALG_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/types.h>

#include "common/err.h"

/* Key types of RFC 7518 section 6 that SQE verifies with. */
typedef enum jwk_kty { JWK_RSA = 1, JWK_EC, JWK_OKP } jwk_kty;

/* One bit per algorithm; an allow-list is their OR. */
typedef enum jws_alg {
    JWS_RS256 = 1u << 0,
    JWS_RS384 = 1u << 1,
    JWS_RS512 = 1u << 2,
    JWS_PS256 = 1u << 3,
    JWS_PS384 = 1u << 4,
    JWS_PS512 = 1u << 5,
    JWS_ES256 = 1u << 6,
    JWS_ES384 = 1u << 7,
    JWS_ES512 = 1u << 8,
    JWS_EDDSA = 1u << 9,
} jws_alg;

#define JWS_ALG_ALL 0x3FFu
/* What an OIDC provider is configured with when the operator names none: every algorithm
 * above (the key type and the key's own alg still have to match). */
#define JWS_ALG_DEFAULT JWS_ALG_ALL

/* The algorithm named name (exact, case-sensitive as RFC 7515 requires), or 0 for anything else
 * ("none", "HS256", unknown). */
jws_alg jws_alg_from_name(const char *name);
/* "RS256" .. "EdDSA"; "?" for 0 or several bits. Static storage. */
const char *jws_alg_name(jws_alg alg);
/* The key type alg verifies with. */
jwk_kty jws_alg_kty(jws_alg alg);
/* The curve alg needs ("P-256", "P-384", "P-521", "Ed25519"), NULL for RSA. */
const char *jws_alg_crv(jws_alg alg);
/* The digest (NULL for EdDSA, which hashes inside). */
const EVP_MD *jws_alg_md(jws_alg alg);
/* Bytes of one of r and s in a JOSE ECDSA signature (32, 48, 66), 0 for the others. */
size_t jws_alg_ec_coord_bytes(jws_alg alg);
/* The allow-list of n names (configuration's allowed_algorithms) into *mask. INVALID_ARGUMENTS
 * naming the first unknown or refused name ("none" and HS* get their own message); an empty
 * list is refused too. */
int jws_alg_list_parse(const char *const *names, size_t n, uint32_t *mask, sqe_error *err);
/* "RSA", "EC", "OKP". */
const char *jwk_kty_name(jwk_kty kty);

#endif
