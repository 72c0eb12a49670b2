/*
 * fuzz_jwt.c: libFuzzer target for the JWT and JWKS parsers (src/auth/jwks.c, jwt.c,
 * jwt_principal.c).
 *
 * The first byte picks what the rest is:
 *   0: a JWKS document (jwks_parse); a set that parses must have a note and keys that suit
 *      their own alg;
 *   1: a compact token checked against a fixed public set (one EC P-256 key, one Ed25519 key);
 *   2: a JWKS document, a NUL byte, then a token checked against that set (the seeds of
 *      tests/fuzz/jwt_seeds are of this kind, with tokens the unit test signed);
 *   3: a claims JSON object turned into a principal (jwt_principal_build) with claim paths.
 * Every refusal must be UNAUTHENTICATED with a reason, or INVALID_ARGUMENTS for a JWKS; an
 * accepted token must have its reason JWT_OK. Anything else aborts.
 *
 * Build and run: make fuzz-jwt [FUZZ_SECONDS=600] (build-fuzz/, clang, -DSQE_FUZZ=ON).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "auth/jwks.h"
#include "auth/jwt.h"
#include "auth/jwt_principal.h"

static const char FIXED_JWKS[] =
    "{\"keys\":[{\"kty\":\"EC\",\"crv\":\"P-256\",\"kid\":\"ec1\",\"use\":\"sig\","
    "\"x\":\"SSScy6IgmVaKSh9GtL_8mvmHL4ID17H4nYdnOReHfmk\","
    "\"y\":\"Ks2-UNQHLybodbKoXyIVnE5b5ZgLrnPVw9VelbJz1g4\"},"
    "{\"kty\":\"OKP\",\"crv\":\"Ed25519\",\"kid\":\"ed1\","
    "\"x\":\"L0MUfSGMVB7V9tfZ3ZBXSpo0yNqLnQDTgBe-0m9taE0\"}]}";

static jwks *fixed_set(void) {
    static jwks *set;
    if (!set && jwks_parse(FIXED_JWKS, strlen(FIXED_JWKS), &set, NULL) != SQE_OK) abort();
    return set;
}

static void check_token(const uint8_t *tok, size_t n, const jwks *set) {
    jwt_policy pol = {.issuer = "https://idp.example/realms/sqe",
                      .audience = "sqe",
                      .allowed_algs = JWS_ALG_ALL,
                      .leeway_s = 60,
                      .now = 1700000000};
    jwt_token *t = NULL;
    jwt_reason reason = JWT_OK;
    sqe_error err;
    int rc = jwt_verify((const char *)tok, n, set, &pol, &t, &reason, &err);
    if (rc == SQE_OK) {
        if (!t || reason != JWT_OK) abort();
        jwt_principal_config cfg = {.groups_claim = "groups", .roles_claim = "realm_access.roles"};
        sqe_principal *p = NULL;
        rc = jwt_principal_build(t, (const char *)tok, n, &cfg, &p, &reason, &err);
        if (rc == SQE_OK && (!p || !p->user[0])) abort();
        if (rc != SQE_OK && (p || rc != SQE_ERR_UNAUTHENTICATED || reason == JWT_OK)) abort();
        sqe_principal_unref(p);
        jwt_token_free(t);
        return;
    }
    if (t || rc != SQE_ERR_UNAUTHENTICATED || reason == JWT_OK) abort();
}

static void check_jwks(const uint8_t *doc, size_t n, const uint8_t *tok, size_t tok_n) {
    jwks *set = NULL;
    sqe_error err;
    int rc = jwks_parse((const char *)doc, n, &set, &err);
    if (rc != SQE_OK) {
        if (set || (rc != SQE_ERR_INVALID_ARGUMENTS && rc != SQE_ERR_OUT_OF_MEMORY)) abort();
        return;
    }
    if (!jwks_note(set)) abort();
    for (size_t i = 0; i < jwks_count(set); i++) {
        const jwk *k = jwks_at(set, i);
        if (!k->pkey || (k->alg[0] && jws_alg_kty(jws_alg_from_name(k->alg)) != k->kty)) abort();
    }
    if (tok) check_token(tok, tok_n, set);
    jwks_free(set);
}

static void check_claims(const uint8_t *doc, size_t n) {
    json_t *claims = json_loadb((const char *)doc, n, JSON_REJECT_DUPLICATES, NULL);
    if (!claims) return;
    if (!json_is_object(claims)) {
        json_decref(claims);
        return;
    }
    jwt_token t = {.claims = claims, .exp = 1700000000};
    jwt_principal_config cfg = {.user_claim = "user.name", .groups_claim = "groups",
                                .roles_claim = "resource_access.sqe.roles"};
    sqe_principal *p = NULL;
    jwt_reason reason = JWT_OK;
    sqe_error err;
    int rc = jwt_principal_build(&t, "x", 1, &cfg, &p, &reason, &err);
    if (rc == SQE_OK && (!p || strcmp(sqe_auth_method_name(p->method), "oidc_bearer"))) abort();
    if (rc != SQE_OK && (p || reason == JWT_OK)) abort();
    sqe_principal_unref(p);
    json_decref(claims);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    const uint8_t *rest = data + 1;
    size_t n = size - 1;
    switch (data[0] & 3) {
    case 0: check_jwks(rest, n, NULL, 0); break;
    case 1: check_token(rest, n, fixed_set()); break;
    case 2: {
        const uint8_t *nul = memchr(rest, 0, n);
        if (!nul) return 0;
        size_t doc_n = (size_t)(nul - rest);
        check_jwks(rest, doc_n, nul + 1, n - doc_n - 1);
        break;
    }
    default: check_claims(rest, n); break;
    }
    return 0;
}
