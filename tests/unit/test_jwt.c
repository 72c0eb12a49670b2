/*
 * test_jwt.c: offline JWT validation (src/auth/): JWKS parsing, every accepted algorithm, every
 * refusal with its reason code, leeway boundaries, and principals built from claim paths.
 *
 * Keys (RSA 2048, EC P-256, P-384 and P-521, Ed25519) are generated here with OpenSSL, their
 * JWKS documents written here, and tokens signed by the small test-only signer below (sign_raw:
 * EVP_DigestSign, DER ECDSA signatures turned into JOSE r||s, HMAC for the forged HS256 token).
 * A fixed clock (NOW) stands in for the wall clock.
 *
 * With JWT_SEED_DIR set, the test also writes the seed corpus of tests/fuzz/fuzz_jwt.c there
 * (regenerate: JWT_SEED_DIR=tests/fuzz/jwt_seeds build-asan/unit_jwt).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#include "auth/jwks.h"
#include "auth/jws_alg.h"
#include "auth/jwt.h"
#include "auth/jwt_principal.h"
#include "common/base64.h"

#define NOW 1700000000LL
#define ISS "https://idp.example/realms/sqe"
#define AUD "sqe"

/* ---- keys and the test signer ---- */

static EVP_PKEY *rsa_key, *rsa_other, *ec256, *ec384, *ec521, *ed_key;
static char *jwks_all; /* every key above but rsa_other, kids rsa1 ec256 ec384 ec521 ed1 */

static char *b64url(const unsigned char *p, size_t n) {
    char *out = malloc(base64_encoded_len(n, false) + 1);
    base64_encode(p, n, true, false, out);
    return out;
}

static char *b64url_str(const char *s) { return b64url((const unsigned char *)s, strlen(s)); }

static char *bn_b64(const BIGNUM *bn, int pad) {
    int n = pad ? pad : BN_num_bytes(bn);
    unsigned char *buf = malloc((size_t)n);
    BN_bn2binpad(bn, buf, n);
    char *s = b64url(buf, (size_t)n);
    free(buf);
    return s;
}

/* The public JWK of pkey as JSON text; extra (may be "") is spliced in as more members. */
static char *jwk_json(EVP_PKEY *pkey, const char *kid, const char *extra) {
    char *out = malloc(4096);
    int id = EVP_PKEY_get_base_id(pkey);
    if (id == EVP_PKEY_RSA) {
        BIGNUM *n = NULL, *e = NULL;
        EVP_PKEY_get_bn_param(pkey, OSSL_PKEY_PARAM_RSA_N, &n);
        EVP_PKEY_get_bn_param(pkey, OSSL_PKEY_PARAM_RSA_E, &e);
        char *ns = bn_b64(n, 0), *es = bn_b64(e, 0);
        snprintf(out, 4096, "{\"kty\":\"RSA\",\"kid\":\"%s\",\"n\":\"%s\",\"e\":\"%s\"%s}", kid, ns,
                 es, extra);
        free(ns);
        free(es);
        BN_free(n);
        BN_free(e);
    } else if (id == EVP_PKEY_EC) {
        BIGNUM *x = NULL, *y = NULL;
        char group[32];
        size_t gl;
        EVP_PKEY_get_utf8_string_param(pkey, OSSL_PKEY_PARAM_GROUP_NAME, group, sizeof group, &gl);
        EVP_PKEY_get_bn_param(pkey, OSSL_PKEY_PARAM_EC_PUB_X, &x);
        EVP_PKEY_get_bn_param(pkey, OSSL_PKEY_PARAM_EC_PUB_Y, &y);
        const char *crv = !strcmp(group, "prime256v1") ? "P-256"
                          : !strcmp(group, "secp384r1") ? "P-384" : "P-521";
        int coord = !strcmp(crv, "P-256") ? 32 : !strcmp(crv, "P-384") ? 48 : 66;
        char *xs = bn_b64(x, coord), *ys = bn_b64(y, coord);
        snprintf(out, 4096, "{\"kty\":\"EC\",\"crv\":\"%s\",\"kid\":\"%s\",\"x\":\"%s\",\"y\":\"%s\"%s}",
                 crv, kid, xs, ys, extra);
        free(xs);
        free(ys);
        BN_free(x);
        BN_free(y);
    } else {
        unsigned char raw[32];
        size_t rl = sizeof raw;
        EVP_PKEY_get_raw_public_key(pkey, raw, &rl);
        char *xs = b64url(raw, rl);
        snprintf(out, 4096, "{\"kty\":\"OKP\",\"crv\":\"Ed25519\",\"kid\":\"%s\",\"x\":\"%s\"%s}",
                 kid, xs, extra);
        free(xs);
    }
    return out;
}

static char *jwks_doc(const char *const *keys, size_t n) {
    size_t len = 16;
    for (size_t i = 0; i < n; i++) len += strlen(keys[i]) + 1;
    char *out = malloc(len);
    strcpy(out, "{\"keys\":[");
    for (size_t i = 0; i < n; i++) {
        if (i) strcat(out, ",");
        strcat(out, keys[i]);
    }
    strcat(out, "]}");
    return out;
}

/* The signature of input under alg (JOSE form) into sig; returns its length. */
static size_t sign_raw(const char *alg, EVP_PKEY *pkey, const char *input, unsigned char *sig) {
    const EVP_MD *md = NULL;
    if (strstr(alg, "256")) md = EVP_sha256();
    if (strstr(alg, "384")) md = EVP_sha384();
    if (strstr(alg, "512")) md = EVP_sha512();
    if (!strcmp(alg, "EdDSA")) md = NULL;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    EVP_PKEY_CTX *pctx = NULL;
    assert_int_equal(EVP_DigestSignInit(ctx, &pctx, md, NULL, pkey), 1);
    if (alg[0] == 'P') {
        EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING);
        EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST);
    }
    unsigned char der[2048];
    size_t n = sizeof der;
    assert_int_equal(EVP_DigestSign(ctx, der, &n, (const unsigned char *)input, strlen(input)), 1);
    EVP_MD_CTX_free(ctx);
    if (alg[0] != 'E' || !strcmp(alg, "EdDSA")) {
        memcpy(sig, der, n);
        return n;
    }
    size_t coord = !strcmp(alg, "ES256") ? 32 : !strcmp(alg, "ES384") ? 48 : 66;
    const unsigned char *p = der;
    ECDSA_SIG *es = d2i_ECDSA_SIG(NULL, &p, (long)n);
    assert_non_null(es);
    BN_bn2binpad(ECDSA_SIG_get0_r(es), sig, (int)coord);
    BN_bn2binpad(ECDSA_SIG_get0_s(es), sig + coord, (int)coord);
    ECDSA_SIG_free(es);
    return 2 * coord;
}

/* header.payload.signature; header JSON is {"alg":alg,"kid":kid} (no kid for NULL) unless
 * header is given. pkey NULL: an HS256 MAC keyed by hmac_key. */
static char *sign_token(const char *alg, const char *kid, const char *header, const char *payload,
                        EVP_PKEY *pkey, const char *hmac_key) {
    char hbuf[512];
    if (!header) {
        if (kid)
            snprintf(hbuf, sizeof hbuf, "{\"alg\":\"%s\",\"kid\":\"%s\",\"typ\":\"JWT\"}", alg, kid);
        else
            snprintf(hbuf, sizeof hbuf, "{\"alg\":\"%s\",\"typ\":\"JWT\"}", alg);
        header = hbuf;
    }
    char *h = b64url_str(header), *p = b64url_str(payload);
    size_t in_len = strlen(h) + strlen(p) + 2;
    char *input = malloc(in_len);
    snprintf(input, in_len, "%s.%s", h, p);
    unsigned char sig[2048];
    size_t sl;
    if (pkey) {
        sl = sign_raw(alg, pkey, input, sig);
    } else {
        unsigned int ml = 0;
        HMAC(EVP_sha256(), hmac_key, (int)strlen(hmac_key), (const unsigned char *)input,
             strlen(input), sig, &ml);
        sl = ml;
    }
    char *s = b64url(sig, sl);
    char *tok = malloc(in_len + strlen(s) + 1);
    sprintf(tok, "%s.%s", input, s);
    free(h);
    free(p);
    free(input);
    free(s);
    return tok;
}

/* Standard claims with exp/nbf/iat relative to NOW; more (may be "") appended as members. */
static char *claims(long long exp_off, const char *more) {
    size_t cap = strlen(more) + 512;
    char *out = malloc(cap);
    snprintf(out, cap,
             "{\"iss\":\"" ISS "\",\"aud\":\"" AUD "\",\"sub\":\"u-123\",\"exp\":%lld,"
             "\"iat\":%lld,\"preferred_username\":\"alice\"%s}",
             NOW + exp_off, NOW - 10, more);
    return out;
}

static jwks *parse_set(const char *doc) {
    jwks *set = NULL;
    sqe_error err;
    int rc = jwks_parse(doc, strlen(doc), &set, &err);
    if (rc != SQE_OK) fail_msg("jwks_parse: %s", err.message);
    return set;
}

static jwt_policy policy(void) {
    return (jwt_policy){.issuer = ISS, .audience = AUD, .allowed_algs = JWS_ALG_ALL,
                        .leeway_s = 0, .now = NOW};
}

/* Verifies tok against set and pol; expects want (JWT_OK: accepted). The message of a refusal
 * must name the reason and never contain the token, its signature or its payload. */
static void expect_pol(const char *tok, const jwks *set, const jwt_policy *pol, jwt_reason want) {
    jwt_token *t = NULL;
    jwt_reason r = JWT_OK;
    sqe_error err;
    int rc = jwt_verify(tok, strlen(tok), set, pol, &t, &r, &err);
    if (want == JWT_OK) {
        if (rc != SQE_OK) fail_msg("refused: %s", err.message);
        assert_non_null(t);
        assert_int_equal(r, JWT_OK);
        jwt_token_free(t);
        return;
    }
    if (rc == SQE_OK) fail_msg("accepted, wanted %s", jwt_reason_name(want));
    assert_null(t);
    assert_int_equal(rc, SQE_ERR_UNAUTHENTICATED);
    if (r != want) fail_msg("reason %s, wanted %s: %s", jwt_reason_name(r), jwt_reason_name(want),
                            err.message);
    char prefix[64];
    snprintf(prefix, sizeof prefix, "token refused (%s)", jwt_reason_name(want));
    assert_non_null(strstr(err.message, prefix));
    const char *last = strrchr(tok, '.');
    if (last && strlen(last + 1) >= 8) assert_null(strstr(err.message, last + 1));
    const char *first = strchr(tok, '.');
    if (first && last && last - first > 9) {
        char mid[9];
        memcpy(mid, first + 1, 8);
        mid[8] = 0;
        assert_null(strstr(err.message, mid));
    }
}

static void expect(const char *tok, const jwks *set, jwt_reason want) {
    jwt_policy pol = policy();
    expect_pol(tok, set, &pol, want);
}

static int setup(void **state) {
    (void)state;
    rsa_key = EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)2048);
    rsa_other = EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)2048);
    ec256 = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
    ec384 = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-384");
    ec521 = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-521");
    ed_key = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
    if (!rsa_key || !rsa_other || !ec256 || !ec384 || !ec521 || !ed_key) return -1;
    char *k[6] = {jwk_json(rsa_key, "rsa1", ",\"use\":\"sig\""), jwk_json(ec256, "ec256", ""),
                  jwk_json(ec384, "ec384", ",\"alg\":\"ES384\""), jwk_json(ec521, "ec521", ""),
                  jwk_json(ed_key, "ed1", ",\"alg\":\"EdDSA\",\"key_ops\":[\"verify\"]"),
                  jwk_json(rsa_key, "rsa1-enc", ",\"use\":\"enc\"")};
    jwks_all = jwks_doc((const char *const *)k, 6);
    for (int i = 0; i < 6; i++) free(k[i]);
    return 0;
}

static int teardown(void **state) {
    (void)state;
    EVP_PKEY_free(rsa_key);
    EVP_PKEY_free(rsa_other);
    EVP_PKEY_free(ec256);
    EVP_PKEY_free(ec384);
    EVP_PKEY_free(ec521);
    EVP_PKEY_free(ed_key);
    free(jwks_all);
    return 0;
}

/* ---- accepted ---- */

static void test_each_alg_accepted(void **state) {
    (void)state;
    jwks *set = parse_set(jwks_all);
    assert_int_equal(jwks_count(set), 5);
    assert_non_null(strstr(jwks_note(set), "rsa1-enc"));
    struct { const char *alg, *kid; EVP_PKEY *key; } cases[] = {
        {"RS256", "rsa1", rsa_key}, {"RS384", "rsa1", rsa_key}, {"RS512", "rsa1", rsa_key},
        {"PS256", "rsa1", rsa_key}, {"PS384", "rsa1", rsa_key}, {"PS512", "rsa1", rsa_key},
        {"ES256", "ec256", ec256},  {"ES384", "ec384", ec384},  {"ES512", "ec521", ec521},
        {"EdDSA", "ed1", ed_key},
    };
    char *c = claims(300, "");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *tok = sign_token(cases[i].alg, cases[i].kid, NULL, c, cases[i].key, NULL);
        jwt_token *t = NULL;
        jwt_reason r;
        sqe_error err;
        jwt_policy pol = policy();
        if (jwt_verify(tok, strlen(tok), set, &pol, &t, &r, &err) != SQE_OK)
            fail_msg("%s: %s", cases[i].alg, err.message);
        assert_int_equal(t->alg, jws_alg_from_name(cases[i].alg));
        assert_string_equal(t->key->kid, cases[i].kid);
        assert_int_equal(t->exp, NOW + 300);
        jwt_token_free(t);
        /* only that algorithm allowed: still fine; everything but it: refused */
        pol.allowed_algs = jws_alg_from_name(cases[i].alg);
        expect_pol(tok, set, &pol, JWT_OK);
        pol.allowed_algs = JWS_ALG_ALL & ~jws_alg_from_name(cases[i].alg);
        expect_pol(tok, set, &pol, JWT_ALG_NOT_ALLOWED);
        free(tok);
    }
    free(c);
    jwks_free(set);
}

static void test_no_kid(void **state) {
    (void)state;
    char *one = jwk_json(ec256, "ec256", "");
    char *doc = jwks_doc((const char *const *)&one, 1);
    jwks *single = parse_set(doc), *all = parse_set(jwks_all);
    char *c = claims(300, "");
    char *tok = sign_token("ES256", NULL, NULL, c, ec256, NULL);
    expect(tok, single, JWT_OK);
    /* jwks_all has one P-256 key: still exactly one suitable key */
    expect(tok, all, JWT_OK);
    free(tok);
    /* RS256 without a kid against a set with one RSA signing key: fine; with two: refused */
    tok = sign_token("RS256", NULL, NULL, c, rsa_key, NULL);
    expect(tok, all, JWT_OK);
    char *two[2] = {jwk_json(rsa_key, "a", ""), jwk_json(rsa_other, "b", "")};
    char *doc2 = jwks_doc((const char *const *)two, 2);
    jwks *pair = parse_set(doc2);
    expect(tok, pair, JWT_UNKNOWN_KEY);
    expect(tok, single, JWT_UNKNOWN_KEY);
    free(tok);
    free(two[0]);
    free(two[1]);
    free(doc2);
    jwks_free(pair);
    free(c);
    free(one);
    free(doc);
    jwks_free(single);
    jwks_free(all);
}

static void test_at_jwt_typ(void **state) {
    (void)state;
    jwks *set = parse_set(jwks_all);
    char *c = claims(300, "");
    jwt_policy pol = policy();
    pol.require_at_jwt = true;
    char *plain = sign_token("ES256", "ec256", NULL, c, ec256, NULL);
    expect_pol(plain, set, &pol, JWT_WRONG_TYPE);
    char *at = sign_token("ES256", NULL, "{\"alg\":\"ES256\",\"kid\":\"ec256\",\"typ\":\"at+jwt\"}",
                          c, ec256, NULL);
    expect_pol(at, set, &pol, JWT_OK);
    char *app = sign_token("ES256", NULL,
                           "{\"alg\":\"ES256\",\"kid\":\"ec256\",\"typ\":\"application/at+JWT\"}", c,
                           ec256, NULL);
    expect_pol(app, set, &pol, JWT_OK);
    pol.require_at_jwt = false;
    expect_pol(plain, set, &pol, JWT_OK);
    free(plain);
    free(at);
    free(app);
    free(c);
    jwks_free(set);
}

/* ---- refused: claims ---- */

static void test_claim_refusals(void **state) {
    (void)state;
    jwks *set = parse_set(jwks_all);
    struct { const char *payload; jwt_reason want; } cases[] = {
        {"{\"iss\":\"" ISS "\",\"aud\":\"" AUD "\",\"exp\":1699999000}", JWT_EXPIRED},
        {"{\"iss\":\"" ISS "\",\"aud\":\"" AUD "\",\"exp\":1700000300,\"nbf\":1700000100}",
         JWT_NOT_YET_VALID},
        {"{\"iss\":\"" ISS "\",\"aud\":\"" AUD "\",\"exp\":1700000300,\"iat\":1700000100}",
         JWT_NOT_YET_VALID},
        {"{\"iss\":\"" ISS "\",\"aud\":\"other\",\"exp\":1700000300}", JWT_WRONG_AUDIENCE},
        {"{\"iss\":\"" ISS "\",\"aud\":[\"a\",\"b\"],\"exp\":1700000300}", JWT_WRONG_AUDIENCE},
        {"{\"iss\":\"" ISS "\",\"aud\":[\"a\",\"" AUD "\"],\"exp\":1700000300}", JWT_OK},
        {"{\"iss\":\"" ISS "\",\"aud\":[\"a\",7],\"exp\":1700000300}", JWT_INVALID_CLAIM},
        {"{\"iss\":\"" ISS "\",\"aud\":{},\"exp\":1700000300}", JWT_INVALID_CLAIM},
        {"{\"iss\":\"" ISS "\",\"exp\":1700000300}", JWT_MISSING_CLAIM},
        {"{\"iss\":\"https://idp.example/realms/other\",\"aud\":\"" AUD "\",\"exp\":1700000300}",
         JWT_WRONG_ISSUER},
        {"{\"iss\":\"" ISS "/\",\"aud\":\"" AUD "\",\"exp\":1700000300}", JWT_WRONG_ISSUER},
        {"{\"iss\":\"HTTPS://IDP.EXAMPLE/realms/sqe\",\"aud\":\"" AUD "\",\"exp\":1700000300}",
         JWT_WRONG_ISSUER},
        {"{\"aud\":\"" AUD "\",\"exp\":1700000300}", JWT_MISSING_CLAIM},
        {"{\"iss\":5,\"aud\":\"" AUD "\",\"exp\":1700000300}", JWT_INVALID_CLAIM},
        {"{\"iss\":\"" ISS "\",\"aud\":\"" AUD "\"}", JWT_MISSING_CLAIM},
        {"{\"iss\":\"" ISS "\",\"aud\":\"" AUD "\",\"exp\":\"1700000300\"}", JWT_INVALID_CLAIM},
        {"{\"iss\":\"" ISS "\",\"aud\":\"" AUD "\",\"exp\":-5}", JWT_INVALID_CLAIM},
        {"{\"iss\":\"" ISS "\",\"aud\":\"" AUD "\",\"exp\":1e300}", JWT_INVALID_CLAIM},
        {"{\"iss\":\"" ISS "\",\"aud\":\"" AUD "\",\"exp\":1700000300.75}", JWT_OK},
        {"{\"iss\":\"" ISS "\",\"aud\":\"" AUD "\",\"exp\":1700000300,\"nbf\":null}",
         JWT_INVALID_CLAIM},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *tok = sign_token("RS256", "rsa1", NULL, cases[i].payload, rsa_key, NULL);
        expect(tok, set, cases[i].want);
        free(tok);
    }
    jwks_free(set);
}

static void test_leeway_boundaries(void **state) {
    (void)state;
    jwks *set = parse_set(jwks_all);
    jwt_policy pol = policy();
    struct { const char *fmt; long long off; long long leeway; jwt_reason want; } cases[] = {
        {"\"exp\":%lld", 0, 0, JWT_EXPIRED},           /* exp == now: expired */
        {"\"exp\":%lld", 1, 0, JWT_OK},
        {"\"exp\":%lld", -29, 30, JWT_OK},
        {"\"exp\":%lld", -30, 30, JWT_EXPIRED},
        {"\"exp\":1700000300,\"nbf\":%lld", 0, 0, JWT_OK},   /* nbf == now: valid */
        {"\"exp\":1700000300,\"nbf\":%lld", 1, 0, JWT_NOT_YET_VALID},
        {"\"exp\":1700000300,\"nbf\":%lld", 30, 30, JWT_OK},
        {"\"exp\":1700000300,\"nbf\":%lld", 31, 30, JWT_NOT_YET_VALID},
        {"\"exp\":1700000300,\"iat\":%lld", 0, 0, JWT_OK},
        {"\"exp\":1700000300,\"iat\":%lld", 1, 0, JWT_NOT_YET_VALID},
        {"\"exp\":1700000300,\"iat\":%lld", 60, 60, JWT_OK},
        {"\"exp\":1700000300,\"iat\":%lld", 61, 60, JWT_NOT_YET_VALID},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char fields[128], payload[256];
        snprintf(fields, sizeof fields, cases[i].fmt, NOW + cases[i].off);
        snprintf(payload, sizeof payload, "{\"iss\":\"" ISS "\",\"aud\":\"" AUD "\",%s}", fields);
        char *tok = sign_token("ES256", "ec256", NULL, payload, ec256, NULL);
        pol.leeway_s = cases[i].leeway;
        expect_pol(tok, set, &pol, cases[i].want);
        free(tok);
    }
    /* policy errors: leeway out of range, no issuer */
    char *c = claims(300, "");
    char *tok = sign_token("ES256", "ec256", NULL, c, ec256, NULL);
    jwt_token *t = NULL;
    jwt_reason r;
    sqe_error err;
    pol.leeway_s = JWT_MAX_LEEWAY_S + 1;
    assert_int_equal(jwt_verify(tok, strlen(tok), set, &pol, &t, &r, &err),
                     SQE_ERR_INVALID_ARGUMENTS);
    pol = policy();
    pol.issuer = NULL;
    assert_int_equal(jwt_verify(tok, strlen(tok), set, &pol, &t, &r, &err),
                     SQE_ERR_INVALID_ARGUMENTS);
    assert_null(t);
    free(tok);
    free(c);
    jwks_free(set);
}

/* ---- refused: keys and signatures ---- */

static void test_key_refusals(void **state) {
    (void)state;
    jwks *set = parse_set(jwks_all);
    char *c = claims(300, "");
    /* signed by an unknown key under a known kid: the signature fails */
    char *tok = sign_token("RS256", "rsa1", NULL, c, rsa_other, NULL);
    expect(tok, set, JWT_BAD_SIGNATURE);
    free(tok);
    /* under an unknown kid */
    tok = sign_token("RS256", "rsa-rotated", NULL, c, rsa_other, NULL);
    expect(tok, set, JWT_UNKNOWN_KEY);
    free(tok);
    /* kid of an encryption key (skipped from the set) */
    tok = sign_token("RS256", "rsa1-enc", NULL, c, rsa_key, NULL);
    expect(tok, set, JWT_UNKNOWN_KEY);
    free(tok);
    /* alg none, with an empty and with a non-empty signature */
    char *h = b64url_str("{\"alg\":\"none\"}"), *p = b64url_str(c);
    char buf[8192];
    snprintf(buf, sizeof buf, "%s.%s.", h, p);
    expect(buf, set, JWT_ALG_NOT_ALLOWED);
    snprintf(buf, sizeof buf, "%s.%s.AAAA", h, p);
    expect(buf, set, JWT_ALG_NOT_ALLOWED);
    free(h);
    /* alg "None", "NONE": not algorithms either */
    h = b64url_str("{\"alg\":\"NONE\",\"kid\":\"rsa1\"}");
    snprintf(buf, sizeof buf, "%s.%s.AAAA", h, p);
    expect(buf, set, JWT_ALG_NOT_ALLOWED);
    free(h);
    /* HS256 keyed by the RSA public key (PEM and the JWK's n): never an algorithm */
    BIO *bio = BIO_new(BIO_s_mem());
    PEM_write_bio_PUBKEY(bio, rsa_key);
    char *pem = NULL;
    long pem_len = BIO_get_mem_data(bio, &pem);
    char *pem_s = strndup(pem, (size_t)pem_len);
    BIO_free(bio);
    tok = sign_token("HS256", "rsa1", NULL, c, NULL, pem_s);
    expect(tok, set, JWT_ALG_NOT_ALLOWED);
    free(tok);
    tok = sign_token("HS256", NULL, NULL, c, NULL, pem_s);
    expect(tok, set, JWT_ALG_NOT_ALLOWED);
    free(tok);
    free(pem_s);
    /* a key embedded in the header (jwk) is never used: signed by the attacker's own key */
    EVP_PKEY *mine = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
    char *mine_jwk = jwk_json(mine, "ec256", "");
    char hdr[1024];
    snprintf(hdr, sizeof hdr, "{\"alg\":\"ES256\",\"kid\":\"ec256\",\"jwk\":%s}", mine_jwk);
    tok = sign_token("ES256", NULL, hdr, c, mine, NULL);
    expect(tok, set, JWT_BAD_SIGNATURE);
    free(tok);
    snprintf(hdr, sizeof hdr, "{\"alg\":\"ES256\",\"jku\":\"https://evil.example/jwks\"}");
    tok = sign_token("ES256", NULL, hdr, c, mine, NULL);
    expect(tok, set, JWT_BAD_SIGNATURE);
    free(tok);
    free(mine_jwk);
    EVP_PKEY_free(mine);
    /* a failed check leaves no OpenSSL error behind for the thread's next TLS call */
    assert_int_equal(ERR_peek_error(), 0);
    /* payload edited after signing */
    tok = sign_token("RS256", "rsa1", NULL, c, rsa_key, NULL);
    char *edited_claims = claims(300, ",\"groups\":[\"admin\"]");
    char *ep = b64url_str(edited_claims);
    char *d1 = strchr(tok, '.'), *d2 = strrchr(tok, '.');
    snprintf(buf, sizeof buf, "%.*s.%s%s", (int)(d1 - tok), tok, ep, d2);
    expect(buf, set, JWT_BAD_SIGNATURE);
    /* one bit of the signature flipped */
    snprintf(buf, sizeof buf, "%s", tok);
    char *last = strrchr(buf, '.') + 5;
    *last = *last == 'A' ? 'B' : 'A';
    expect(buf, set, JWT_BAD_SIGNATURE);
    /* header alg swapped to another allowed alg of the same key, then of another kty */
    const char *swaps[][2] = {{"RS384", "bad"}, {"PS256", "bad"}, {"ES256", "mismatch"},
                              {"EdDSA", "mismatch"}};
    for (size_t i = 0; i < 4; i++) {
        char hj[128];
        snprintf(hj, sizeof hj, "{\"alg\":\"%s\",\"kid\":\"rsa1\",\"typ\":\"JWT\"}", swaps[i][0]);
        char *hs = b64url_str(hj);
        snprintf(buf, sizeof buf, "%s%s", hs, d1);
        expect(buf, set, swaps[i][1][0] == 'b' ? JWT_BAD_SIGNATURE : JWT_KEY_MISMATCH);
        free(hs);
    }
    free(tok);
    /* a JWK naming its own alg binds it: ec384 says ES384 */
    tok = sign_token("ES256", "ec384", NULL, c, ec256, NULL);
    expect(tok, set, JWT_KEY_MISMATCH);
    free(tok);
    /* an RSA JWK that names RS256 refuses a PS256 token by that key */
    char *bound = jwk_json(rsa_key, "rsa1", ",\"alg\":\"RS256\"");
    char *bdoc = jwks_doc((const char *const *)&bound, 1);
    jwks *bset = parse_set(bdoc);
    tok = sign_token("PS256", "rsa1", NULL, c, rsa_key, NULL);
    expect(tok, bset, JWT_KEY_MISMATCH);
    free(tok);
    tok = sign_token("RS256", "rsa1", NULL, c, rsa_key, NULL);
    expect(tok, bset, JWT_OK);
    free(tok);
    jwks_free(bset);
    free(bound);
    free(bdoc);
    free(edited_claims);
    free(ep);
    free(p);
    free(c);
    jwks_free(set);
}

static void test_ec_signature_length(void **state) {
    (void)state;
    jwks *set = parse_set(jwks_all);
    char *c = claims(300, "");
    char *h = b64url_str("{\"alg\":\"ES256\",\"kid\":\"ec256\"}"), *p = b64url_str(c);
    char input[4096];
    snprintf(input, sizeof input, "%s.%s", h, p);
    unsigned char sig[256];
    size_t n = sign_raw("ES256", ec256, input, sig);
    assert_int_equal(n, 64);
    char buf[8192];
    size_t lens[] = {63, 65, 96, 32};
    sig[64] = 0;
    for (size_t i = 0; i < 4; i++) {
        char *s = b64url(sig, lens[i]);
        snprintf(buf, sizeof buf, "%s.%s", input, s);
        expect(buf, set, JWT_BAD_SIGNATURE);
        free(s);
    }
    /* the DER form OpenSSL produces is not the JOSE form */
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    unsigned char der[256];
    size_t dl = sizeof der;
    EVP_DigestSignInit(ctx, NULL, EVP_sha256(), NULL, ec256);
    EVP_DigestSign(ctx, der, &dl, (const unsigned char *)input, strlen(input));
    EVP_MD_CTX_free(ctx);
    char *s = b64url(der, dl);
    snprintf(buf, sizeof buf, "%s.%s", input, s);
    expect(buf, set, JWT_BAD_SIGNATURE);
    free(s);
    /* the right one */
    s = b64url(sig, 64);
    snprintf(buf, sizeof buf, "%s.%s", input, s);
    expect(buf, set, JWT_OK);
    free(s);
    /* r||s with s replaced by n - s is the other valid ECDSA signature: fine by RFC, but a
     * zero r or s never is */
    memset(sig, 0, 32);
    s = b64url(sig, 64);
    snprintf(buf, sizeof buf, "%s.%s", input, s);
    expect(buf, set, JWT_BAD_SIGNATURE);
    free(s);
    free(h);
    free(p);
    free(c);
    jwks_free(set);
}

/* ---- refused: shape ---- */

static void test_malformed(void **state) {
    (void)state;
    jwks *set = parse_set(jwks_all);
    char *c = claims(300, "");
    char *good = sign_token("ES256", "ec256", NULL, c, ec256, NULL);
    expect(good, set, JWT_OK);
    const char *garbage[] = {"", ".", "..", "...", "abc", "a.b", "a.b.c.d", "eyJ.eyJ.",
                             "!!!.???.***", "Bearer x.y.z", "\xff\xfe.\x01.\x02"};
    for (size_t i = 0; i < sizeof garbage / sizeof garbage[0]; i++)
        expect(garbage[i], set, JWT_MALFORMED);
    char buf[8192];
    size_t gl = strlen(good);
    /* every truncation of a good token is refused (none as anything but the shape or the
     * signature) */
    for (size_t cut = 0; cut < gl; cut++) {
        snprintf(buf, sizeof buf, "%.*s", (int)cut, good);
        jwt_token *t = NULL;
        jwt_reason r;
        sqe_error err;
        assert_int_not_equal(jwt_verify(buf, cut, set, &(jwt_policy){.issuer = ISS,
                             .audience = AUD, .allowed_algs = JWS_ALG_ALL, .now = NOW}, &t, &r,
                             &err), SQE_OK);
        assert_true(r == JWT_MALFORMED || r == JWT_BAD_SIGNATURE);
    }
    /* padding, whitespace, the standard alphabet */
    snprintf(buf, sizeof buf, "%s=", good);
    expect(buf, set, JWT_MALFORMED);
    snprintf(buf, sizeof buf, " %s", good);
    expect(buf, set, JWT_MALFORMED);
    snprintf(buf, sizeof buf, "%s\n", good);
    expect(buf, set, JWT_MALFORMED);
    snprintf(buf, sizeof buf, "%s", good);
    char *d1 = strchr(buf, '.');
    memmove(d1 + 2, d1 + 1, strlen(d1 + 1) + 1);
    d1[1] = ' ';
    expect(buf, set, JWT_MALFORMED);
    /* header or payload not a JSON object; duplicate members; crit; alg not a string */
    const char *headers[] = {"[\"ES256\"]", "{\"alg\":\"ES256\",\"alg\":\"ES256\"}",
                             "{\"alg\":\"ES256\",\"kid\":\"ec256\",\"crit\":[\"exp\"]}",
                             "{\"alg\":256}", "{}", "{\"alg\":\"ES256\",\"kid\":7}", "null"};
    for (size_t i = 0; i < sizeof headers / sizeof headers[0]; i++) {
        char *t = sign_token("ES256", NULL, headers[i], c, ec256, NULL);
        expect(t, set, JWT_MALFORMED);
        free(t);
    }
    const char *payloads[] = {"[1]", "\"x\"", "{\"exp\":1,\"exp\":2}", "{", "{\"a\":\"\\u0000\"}"};
    for (size_t i = 0; i < sizeof payloads / sizeof payloads[0]; i++) {
        char *t = sign_token("ES256", "ec256", NULL, payloads[i], ec256, NULL);
        expect(t, set, JWT_MALFORMED);
        free(t);
    }
    /* oversized: a signed token with a huge claim, and plain filler */
    char *big_claim = malloc(20000);
    strcpy(big_claim, ",\"pad\":\"");
    memset(big_claim + 8, 'x', 13000);
    strcpy(big_claim + 8 + 13000, "\"");
    char *bc = claims(300, big_claim);
    char *big = sign_token("ES256", "ec256", NULL, bc, ec256, NULL);
    assert_true(strlen(big) > JWT_MAX_TOKEN_BYTES);
    expect(big, set, JWT_MALFORMED);
    char *filler = malloc(1 << 20);
    memset(filler, 'A', (1 << 20) - 1);
    filler[(1 << 20) - 1] = 0;
    filler[10] = '.';
    filler[20] = '.';
    expect(filler, set, JWT_MALFORMED);
    free(filler);
    free(big);
    free(bc);
    free(big_claim);
    free(good);
    free(c);
    jwks_free(set);
}

/* ---- JWKS ---- */

static void expect_jwks_refused(const char *doc, const char *words) {
    jwks *set = NULL;
    sqe_error err;
    int rc = jwks_parse(doc, strlen(doc), &set, &err);
    if (rc == SQE_OK) fail_msg("JWKS accepted, wanted \"%s\"", words);
    assert_int_equal(rc, SQE_ERR_INVALID_ARGUMENTS);
    assert_null(set);
    if (!strstr(err.message, words)) fail_msg("\"%s\" lacks \"%s\"", err.message, words);
}

static void test_jwks(void **state) {
    (void)state;
    /* a private key: refused, naming the member, never its value */
    BIGNUM *d = NULL;
    EVP_PKEY_get_bn_param(rsa_key, OSSL_PKEY_PARAM_RSA_D, &d);
    char *ds = bn_b64(d, 0);
    BN_free(d);
    char extra[1200];
    snprintf(extra, sizeof extra, ",\"d\":\"%s\"", ds);
    char *priv = jwk_json(rsa_key, "rsa1", extra);
    char *doc = jwks_doc((const char *const *)&priv, 1);
    jwks *set = NULL;
    sqe_error err;
    assert_int_equal(jwks_parse(doc, strlen(doc), &set, &err), SQE_ERR_INVALID_ARGUMENTS);
    assert_non_null(strstr(err.message, "private member \"d\""));
    assert_null(strstr(err.message, ds));
    free(doc);
    free(priv);
    free(ds);
    /* an EC private key, also when it is an encryption key that would be skipped */
    char *ecp = jwk_json(ec256, "e", ",\"use\":\"enc\",\"d\":\"AAAA\"");
    doc = jwks_doc((const char *const *)&ecp, 1);
    expect_jwks_refused(doc, "private member \"d\"");
    free(doc);
    free(ecp);
    expect_jwks_refused("{\"keys\":[{\"kty\":\"oct\",\"k\":\"c2VjcmV0\"}]}", "private member \"k\"");
    /* shape */
    expect_jwks_refused("", "not JSON");
    expect_jwks_refused("[]", "\"keys\" array");
    expect_jwks_refused("{\"keys\":{}}", "\"keys\" array");
    expect_jwks_refused("{\"keys\":[1]}", "not a JSON object");
    expect_jwks_refused("{\"keys\":[{\"kid\":\"a\"}]}", "\"kty\" is missing");
    expect_jwks_refused("{\"keys\":[{\"kty\":\"RSA\",\"kid\":5}]}", "\"kid\" is not a string");
    expect_jwks_refused("{\"keys\":[{\"kty\":\"RSA\",\"n\":\"AQAB\"}]}", "\"e\" is missing");
    expect_jwks_refused("{\"keys\":[{\"kty\":\"RSA\",\"n\":\"AQAB\",\"e\":\"AQAB\"}]}",
                        "RSA modulus of 17 bits");
    expect_jwks_refused("{\"keys\":[{\"kty\":\"EC\",\"crv\":\"P-256\",\"x\":\"AAAA\",\"y\":\"AAAA\"}]}",
                        "\"x\"");
    expect_jwks_refused("{\"keys\":[{\"kty\":\"OKP\",\"crv\":\"Ed25519\",\"x\":\"AAAA\"}]}", "\"x\"");
    expect_jwks_refused("{\"keys\":[{\"kty\":\"EC\",\"x\":\"AAAA\"}]}", "\"crv\" is missing");
    expect_jwks_refused("{\"keys\":[{\"kty\":\"RSA\",\"alg\":\"ES256\"}]}", "does not go with");
    expect_jwks_refused("{\"keys\":[{\"kty\":\"EC\",\"crv\":\"P-384\",\"alg\":\"ES256\"}]}",
                        "does not go with");
    expect_jwks_refused("{\"keys\":[{\"kty\":\"RSA\",\"key_ops\":\"verify\"}]}", "key_ops");
    /* an EC point off its curve: y + 1 */
    char *ec = jwk_json(ec256, "ec256", "");
    char *y = strstr(ec, "\"y\":\"") + 5;
    y[5] = y[5] == 'A' ? 'B' : 'A';
    doc = jwks_doc((const char *const *)&ec, 1);
    expect_jwks_refused(doc, "ec256");
    free(doc);
    free(ec);
    /* padding in a member */
    char *rs = jwk_json(rsa_key, "r", "");
    char *e = strstr(rs, "\"e\":\"AQAB\"");
    memcpy(e, "\"e\":\"AQA=\"", 10);
    doc = jwks_doc((const char *const *)&rs, 1);
    expect_jwks_refused(doc, "\"e\"");
    free(doc);
    free(rs);
    /* limits */
    char *big = malloc(JWKS_MAX_BYTES + 64);
    memset(big, ' ', JWKS_MAX_BYTES + 10);
    memcpy(big, "{\"keys\":[]}", 11);
    big[JWKS_MAX_BYTES + 10] = 0;
    expect_jwks_refused(big, "bytes");
    free(big);
    char many[8192] = "{\"keys\":[";
    for (unsigned i = 0; i <= JWKS_MAX_KEYS; i++)
        strcat(many, i ? ",{\"kty\":\"oct\"}" : "{\"kty\":\"oct\"}");
    strcat(many, "]}");
    expect_jwks_refused(many, "keys (at most");
    /* skipped with a note, not refused */
    set = parse_set("{\"keys\":[{\"kty\":\"oct\",\"kid\":\"s\"},{\"kty\":\"EC\",\"crv\":\"secp256k1\"},"
                    "{\"kty\":\"RSA\",\"use\":\"enc\"},{\"kty\":\"RSA\",\"alg\":\"RSA-OAEP\"},"
                    "{\"kty\":\"OKP\",\"crv\":\"Ed448\"},{\"kty\":\"RSA\",\"key_ops\":[\"encrypt\"]}],"
                    "\"other\":1}");
    assert_int_equal(jwks_count(set), 0);
    const char *note = jwks_note(set);
    assert_non_null(strstr(note, "kty \"oct\""));
    assert_non_null(strstr(note, "secp256k1"));
    assert_non_null(strstr(note, "use \"enc\""));
    assert_non_null(strstr(note, "RSA-OAEP"));
    assert_non_null(strstr(note, "Ed448"));
    assert_non_null(strstr(note, "key_ops"));
    /* an empty set refuses every token as unknown_key */
    char *c = claims(300, "");
    char *tok = sign_token("ES256", "ec256", NULL, c, ec256, NULL);
    expect(tok, set, JWT_UNKNOWN_KEY);
    free(tok);
    free(c);
    jwks_free(set);
    set = parse_set("{\"keys\":[]}");
    assert_string_equal(jwks_note(set), "");
    jwks_free(set);
    /* the allow-list from configuration */
    uint32_t mask;
    const char *ok[] = {"RS256", "ES256", "EdDSA"};
    assert_int_equal(jws_alg_list_parse(ok, 3, &mask, &err), SQE_OK);
    assert_int_equal(mask, JWS_RS256 | JWS_ES256 | JWS_EDDSA);
    const char *none[] = {"RS256", "none"};
    assert_int_equal(jws_alg_list_parse(none, 2, &mask, &err), SQE_ERR_INVALID_ARGUMENTS);
    assert_non_null(strstr(err.message, "never accepted"));
    const char *hs[] = {"HS256"};
    assert_int_equal(jws_alg_list_parse(hs, 1, &mask, &err), SQE_ERR_INVALID_ARGUMENTS);
    const char *rs1[] = {"rs256"};
    assert_int_equal(jws_alg_list_parse(rs1, 1, &mask, &err), SQE_ERR_INVALID_ARGUMENTS);
    assert_int_equal(jws_alg_list_parse(NULL, 0, &mask, &err), SQE_ERR_INVALID_ARGUMENTS);
    assert_int_equal(jws_alg_from_name("HS256"), 0);
    assert_int_equal(jws_alg_from_name("none"), 0);
    assert_int_equal(ERR_peek_error(), 0); /* refused keys left no OpenSSL error behind */
}

/* ---- principals ---- */

/* The principal of a token with claims payload under cfg; NULL with *reason on refusal. */
static sqe_principal *principal_of(const char *payload, const jwt_principal_config *cfg,
                                   jwt_reason *reason, char **raw_out) {
    static jwks *set;
    if (!set) set = parse_set(jwks_all);
    char *tok = sign_token("EdDSA", "ed1", NULL, payload, ed_key, NULL);
    jwt_token *t = NULL;
    sqe_error err;
    jwt_policy pol = policy();
    if (jwt_verify(tok, strlen(tok), set, &pol, &t, reason, &err) != SQE_OK)
        fail_msg("verify: %s", err.message);
    sqe_principal *p = NULL;
    int rc = jwt_principal_build(t, tok, strlen(tok), cfg, &p, reason, &err);
    jwt_token_free(t);
    if (rc != SQE_OK) {
        assert_int_equal(rc, SQE_ERR_UNAUTHENTICATED);
        assert_null(p);
        assert_null(strstr(err.message, strrchr(tok, '.') + 1));
    }
    if (raw_out)
        *raw_out = tok;
    else
        free(tok);
    return p;
}

#define BASE "\"iss\":\"" ISS "\",\"aud\":\"" AUD "\",\"exp\":1700000300"

static void test_principal_claims(void **state) {
    (void)state;
    jwt_reason r;
    char *raw = NULL;
    /* defaults: preferred_username, no groups or roles configured */
    sqe_principal *p = principal_of("{" BASE ",\"sub\":\"u-1\",\"preferred_username\":\"alice\","
                                    "\"groups\":[\"g\"]}", NULL, &r, &raw);
    assert_non_null(p);
    assert_string_equal(p->user, "alice");
    assert_int_equal(p->n_groups, 0);
    assert_string_equal(p->token, raw);
    assert_int_equal(p->token_expires_ms, 1700000300LL * 1000);
    assert_string_equal(sqe_auth_method_name(p->method), "oidc_bearer");
    sqe_principal_unref(p);
    free(raw);
    /* fallback to sub */
    p = principal_of("{" BASE ",\"sub\":\"u-1\"}", NULL, &r, NULL);
    assert_string_equal(p->user, "u-1");
    sqe_principal_unref(p);
    jwt_principal_config cfg = {.user_claim = "email", .groups_claim = "groups",
                                .roles_claim = "realm_access.roles"};
    p = principal_of("{" BASE ",\"sub\":\"u-1\",\"email\":\"bob@example.com\","
                     "\"groups\":[\"/eng\",\"analysts\"],"
                     "\"realm_access\":{\"roles\":[\"reader\",\"writer\"]}}", &cfg, &r, NULL);
    assert_string_equal(p->user, "bob@example.com");
    assert_int_equal(p->n_groups, 2);
    assert_string_equal(p->groups[0], "/eng");
    assert_string_equal(p->groups[1], "analysts");
    assert_int_equal(p->n_roles, 2);
    assert_true(sqe_principal_has_role(p, "writer"));
    sqe_principal_unref(p);
    /* configured claim absent: sub; groups/roles absent: none; a single string: one entry */
    p = principal_of("{" BASE ",\"sub\":\"u-2\",\"groups\":\"solo\"}", &cfg, &r, NULL);
    assert_string_equal(p->user, "u-2");
    assert_int_equal(p->n_groups, 1);
    assert_string_equal(p->groups[0], "solo");
    assert_int_equal(p->n_roles, 0);
    sqe_principal_unref(p);
    /* deeper paths, and a member whose name holds dots */
    jwt_principal_config deep = {.user_claim = "ext.login",
                                 .groups_claim = "https://sqe.example/groups",
                                 .roles_claim = "resource_access.sqe.roles"};
    p = principal_of("{" BASE ",\"ext\":{\"login\":\"carol\"},\"https://sqe.example/groups\":[\"x\"],"
                     "\"resource_access\":{\"sqe\":{\"roles\":[\"admin\"]},\"other\":{\"roles\":[\"no\"]}}}",
                     &deep, &r, NULL);
    assert_string_equal(p->user, "carol");
    assert_int_equal(p->n_groups, 1);
    assert_true(sqe_principal_has_role(p, "admin"));
    assert_false(sqe_principal_has_role(p, "no"));
    sqe_principal_unref(p);
    /* empty arrays */
    p = principal_of("{" BASE ",\"sub\":\"u\",\"groups\":[],\"realm_access\":{\"roles\":[]}}", &cfg,
                     &r, NULL);
    assert_int_equal(p->n_groups, 0);
    assert_int_equal(p->n_roles, 0);
    sqe_principal_unref(p);
    /* refusals: wrong types */
    struct { const char *payload; const jwt_principal_config *cfg; jwt_reason want; } bad[] = {
        {"{" BASE "}", NULL, JWT_MISSING_CLAIM},
        {"{" BASE ",\"preferred_username\":5,\"sub\":\"u\"}", NULL, JWT_INVALID_CLAIM},
        {"{" BASE ",\"preferred_username\":\"\",\"sub\":\"u\"}", NULL, JWT_INVALID_CLAIM},
        {"{" BASE ",\"sub\":[\"u\"]}", NULL, JWT_INVALID_CLAIM},
        {"{" BASE ",\"sub\":\"u\",\"groups\":5}", &cfg, JWT_INVALID_CLAIM},
        {"{" BASE ",\"sub\":\"u\",\"groups\":[\"a\",1]}", &cfg, JWT_INVALID_CLAIM},
        {"{" BASE ",\"sub\":\"u\",\"groups\":[\"a\",[\"b\"]]}", &cfg, JWT_INVALID_CLAIM},
        {"{" BASE ",\"sub\":\"u\",\"groups\":{\"a\":1}}", &cfg, JWT_INVALID_CLAIM},
        {"{" BASE ",\"sub\":\"u\",\"realm_access\":\"reader\"}", &cfg, JWT_INVALID_CLAIM},
        {"{" BASE ",\"sub\":\"u\",\"realm_access\":{\"roles\":true}}", &cfg, JWT_INVALID_CLAIM},
        {"{" BASE ",\"sub\":\"u\",\"ext\":\"carol\"}", &deep, JWT_INVALID_CLAIM},
        {"{" BASE ",\"sub\":\"u\",\"resource_access\":{\"sqe\":[1]}}", &deep, JWT_INVALID_CLAIM},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        p = principal_of(bad[i].payload, bad[i].cfg, &r, NULL);
        if (p) fail_msg("case %zu accepted as %s", i, p->user);
        if (r != bad[i].want)
            fail_msg("case %zu: %s, wanted %s", i, jwt_reason_name(r), jwt_reason_name(bad[i].want));
    }
    /* too many groups */
    char *many = malloc(32 * 1100 + 256);
    strcpy(many, "{" BASE ",\"sub\":\"u\",\"groups\":[");
    for (int i = 0; i < 1100; i++) strcat(many, i ? ",\"g\"" : "\"g\"");
    strcat(many, "]}");
    jwt_principal_config groups_only = {.groups_claim = "groups"};
    p = principal_of(many, &groups_only, &r, NULL);
    assert_null(p);
    assert_int_equal(r, JWT_INVALID_CLAIM);
    free(many);
}

/* ---- fuzz seeds (only with JWT_SEED_DIR) ---- */

static void write_seed(const char *dir, const char *name, unsigned char mode, const char *a,
                       const char *b) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputc(mode, f);
    fputs(a, f);
    if (b) {
        fputc(0, f);
        fputs(b, f);
    }
    fclose(f);
}

static void test_write_seeds(void **state) {
    (void)state;
    const char *dir = getenv("JWT_SEED_DIR");
    if (!dir) return; /* only when asked */
    char *ec = jwk_json(ec256, "ec256", ""), *ed = jwk_json(ed_key, "ed1", ""),
         *rs = jwk_json(rsa_key, "rsa1", ",\"alg\":\"RS256\",\"use\":\"sig\"");
    char *one[1] = {ec};
    char *ec_doc = jwks_doc((const char *const *)one, 1);
    one[0] = ed;
    char *ed_doc = jwks_doc((const char *const *)one, 1);
    one[0] = rs;
    char *rs_doc = jwks_doc((const char *const *)one, 1);
    char *c = claims(300, ",\"groups\":[\"eng\"],\"realm_access\":{\"roles\":[\"reader\"]}");
    char *t_ec = sign_token("ES256", "ec256", NULL, c, ec256, NULL);
    char *t_ed = sign_token("EdDSA", NULL, NULL, c, ed_key, NULL);
    char *t_rs = sign_token("RS256", "rsa1", NULL, c, rsa_key, NULL);
    write_seed(dir, "jwks_all", 0, jwks_all, NULL);
    write_seed(dir, "jwks_rsa", 0, rs_doc, NULL);
    write_seed(dir, "token_fixed_set", 1, t_ec, NULL);
    write_seed(dir, "pair_es256", 2, ec_doc, t_ec);
    write_seed(dir, "pair_eddsa", 2, ed_doc, t_ed);
    write_seed(dir, "pair_rs256", 2, rs_doc, t_rs);
    write_seed(dir, "claims", 3, "{\"sub\":\"u\",\"user\":{\"name\":\"a\"},\"groups\":[\"g\"],"
               "\"resource_access\":{\"sqe\":{\"roles\":[\"r\"]}}}", NULL);
    free(ec);
    free(ed);
    free(rs);
    free(ec_doc);
    free(ed_doc);
    free(rs_doc);
    free(c);
    free(t_ec);
    free(t_ed);
    free(t_rs);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_alg_accepted), cmocka_unit_test(test_no_kid),
        cmocka_unit_test(test_at_jwt_typ),        cmocka_unit_test(test_claim_refusals),
        cmocka_unit_test(test_leeway_boundaries), cmocka_unit_test(test_key_refusals),
        cmocka_unit_test(test_ec_signature_length), cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_jwks),              cmocka_unit_test(test_principal_claims),
        cmocka_unit_test(test_write_seeds),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
