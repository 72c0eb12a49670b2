/*
 * jws_alg.c: the JWS algorithm table (see jws_alg.h).
 *
 * INTERFACE: jws_alg_from_name, jws_alg_name, jws_alg_kty, jws_alg_crv, jws_alg_md,
 *            jws_alg_ec_coord_bytes, jws_alg_list_parse, jwk_kty_name.
 * NOTES: one row per algorithm; the digest is looked up by name (EVP_get_digestbyname would
 * also do, but the fixed functions cannot fail).
 */
#include "auth/jws_alg.h"

#include <string.h>

#include <openssl/evp.h>

typedef struct alg_row {
    jws_alg alg;
    const char *name;
    jwk_kty kty;
    const char *crv;
    int md_bits; /* 256, 384, 512; 0 for EdDSA */
    size_t coord;
} alg_row;

static const alg_row ALGS[] = {
    {JWS_RS256, "RS256", JWK_RSA, NULL, 256, 0},   {JWS_RS384, "RS384", JWK_RSA, NULL, 384, 0},
    {JWS_RS512, "RS512", JWK_RSA, NULL, 512, 0},   {JWS_PS256, "PS256", JWK_RSA, NULL, 256, 0},
    {JWS_PS384, "PS384", JWK_RSA, NULL, 384, 0},   {JWS_PS512, "PS512", JWK_RSA, NULL, 512, 0},
    {JWS_ES256, "ES256", JWK_EC, "P-256", 256, 32}, {JWS_ES384, "ES384", JWK_EC, "P-384", 384, 48},
    {JWS_ES512, "ES512", JWK_EC, "P-521", 512, 66}, {JWS_EDDSA, "EdDSA", JWK_OKP, "Ed25519", 0, 0},
};
#define N_ALGS (sizeof ALGS / sizeof ALGS[0])

static const alg_row *row_of(jws_alg alg) {
    for (size_t i = 0; i < N_ALGS; i++)
        if (ALGS[i].alg == alg) return &ALGS[i];
    return NULL;
}

jws_alg jws_alg_from_name(const char *name) {
    if (!name) return 0;
    for (size_t i = 0; i < N_ALGS; i++)
        if (!strcmp(ALGS[i].name, name)) return ALGS[i].alg;
    return 0;
}

const char *jws_alg_name(jws_alg alg) {
    const alg_row *r = row_of(alg);
    return r ? r->name : "?";
}

jwk_kty jws_alg_kty(jws_alg alg) {
    const alg_row *r = row_of(alg);
    return r ? r->kty : 0;
}

const char *jws_alg_crv(jws_alg alg) {
    const alg_row *r = row_of(alg);
    return r ? r->crv : NULL;
}

const EVP_MD *jws_alg_md(jws_alg alg) {
    const alg_row *r = row_of(alg);
    if (!r) return NULL;
    switch (r->md_bits) {
    case 256: return EVP_sha256();
    case 384: return EVP_sha384();
    case 512: return EVP_sha512();
    default: return NULL;
    }
}

size_t jws_alg_ec_coord_bytes(jws_alg alg) {
    const alg_row *r = row_of(alg);
    return r ? r->coord : 0;
}

int jws_alg_list_parse(const char *const *names, size_t n, uint32_t *mask, sqe_error *err) {
    *mask = 0;
    if (n == 0) return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "allowed_algorithms is empty");
    for (size_t i = 0; i < n; i++) {
        const char *name = names[i] ? names[i] : "";
        jws_alg a = jws_alg_from_name(name);
        if (a) {
            *mask |= a;
            continue;
        }
        if (!strcmp(name, "none") || !strncmp(name, "HS", 2))
            return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                           "allowed_algorithms: \"%.16s\" is never accepted (only signatures "
                           "with public keys: RS*, PS*, ES*, EdDSA)", name);
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                       "allowed_algorithms: unknown algorithm \"%.16s\"", name);
    }
    return SQE_OK;
}

const char *jwk_kty_name(jwk_kty kty) {
    switch (kty) {
    case JWK_RSA: return "RSA";
    case JWK_EC: return "EC";
    case JWK_OKP: return "OKP";
    }
    return "?";
}
