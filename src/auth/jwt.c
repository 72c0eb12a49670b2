/*
 * jwt.c: compact JWS parsing, signature verification with OpenSSL EVP, claim checks (see
 * jwt.h).
 *
 * INTERFACE: jwt_verify, jwt_token_free, jwt_reason_name.
 * NOTES: the signing input is the token's own first two parts, never a re-encoding. ECDSA
 * signatures arrive as JOSE r||s (RFC 7518 section 3.4) and are turned into the DER
 * ECDSA-Sig-Value OpenSSL verifies; a wrong length is a bad signature, not something to pad.
 * RSASSA-PSS uses MGF1 with the same digest and a salt as long as the digest (RFC 7518 section
 * 3.5). A failed check clears OpenSSL's per-thread error queue, which the thread's TLS code
 * (curl, libmicrohttpd) reads after its own calls. Values from the token (the kid) appear in messages only as printable ASCII, cut short;
 * the token itself and the signature never do.
 */
#include "auth/jwt.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>

#include "common/base64.h"

#define MAX_SIG_BYTES 1025           /* RSA 8192 bits (+1 so an overlong one is seen) */
#define MAX_NUMERIC_DATE 253402300799 /* 9999-12-31T23:59:59Z */

const char *jwt_reason_name(jwt_reason r) {
    switch (r) {
    case JWT_OK: return "ok";
    case JWT_MALFORMED: return "malformed";
    case JWT_ALG_NOT_ALLOWED: return "alg_not_allowed";
    case JWT_UNKNOWN_KEY: return "unknown_key";
    case JWT_KEY_MISMATCH: return "key_mismatch";
    case JWT_BAD_SIGNATURE: return "bad_signature";
    case JWT_EXPIRED: return "expired";
    case JWT_NOT_YET_VALID: return "not_yet_valid";
    case JWT_WRONG_ISSUER: return "wrong_issuer";
    case JWT_WRONG_AUDIENCE: return "wrong_audience";
    case JWT_MISSING_CLAIM: return "missing_claim";
    case JWT_INVALID_CLAIM: return "invalid_claim";
    case JWT_WRONG_TYPE: return "wrong_type";
    }
    return "?";
}

int jwt_refuse(jwt_reason *reason, sqe_error *err, jwt_reason r, const char *fmt, ...) {
    char why[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    *reason = r;
    return err_set(err, SQE_ERR_UNAUTHENTICATED, "token refused (%s): %s", jwt_reason_name(r),
                   why);
}

/* s (from the token) as at most 48 printable ASCII characters, others as '?'. */
static const char *printable(const char *s, char buf[52]) {
    size_t o = 0;
    for (; s[o] && o < 48; o++) buf[o] = (s[o] >= 0x20 && s[o] < 0x7f) ? s[o] : '?';
    if (s[o]) {
        buf[o++] = '.';
        buf[o++] = '.';
    }
    buf[o] = 0;
    return buf;
}

/* Decodes the base64url JSON object of one token part. NULL when it is not one. */
static json_t *decode_object(const char *text, size_t len, size_t max) {
    if (len == 0 || len > base64_encoded_len(max, false)) return NULL;
    unsigned char *buf = malloc(max ? max : 1);
    if (!buf) return NULL;
    long n = base64_decode(text, len, true, buf, max);
    json_t *obj = NULL;
    if (n > 0) {
        json_error_t je;
        obj = json_loadb((const char *)buf, (size_t)n, JSON_REJECT_DUPLICATES, &je);
        if (obj && !json_is_object(obj)) {
            json_decref(obj);
            obj = NULL;
        }
    }
    free(buf);
    return obj;
}

/* Does key k go with alg (type, curve, and the JWK's own alg when it names one)? */
static bool key_suits(const jwk *k, jws_alg alg) {
    if (k->kty != jws_alg_kty(alg)) return false;
    const char *crv = jws_alg_crv(alg);
    if (crv && strcmp(crv, k->crv)) return false;
    return !k->alg[0] || !strcmp(k->alg, jws_alg_name(alg));
}

/* JOSE r||s (2 * coord bytes) to a DER ECDSA-Sig-Value in *der (OPENSSL_free). */
static int ec_sig_to_der(const unsigned char *sig, size_t coord, unsigned char **der, int *der_len) {
    *der = NULL;
    ECDSA_SIG *es = ECDSA_SIG_new();
    BIGNUM *r = BN_bin2bn(sig, (int)coord, NULL), *s = BN_bin2bn(sig + coord, (int)coord, NULL);
    if (!es || !r || !s || ECDSA_SIG_set0(es, r, s) != 1) {
        BN_free(r);
        BN_free(s);
        ECDSA_SIG_free(es);
        return -1;
    }
    *der_len = i2d_ECDSA_SIG(es, der);
    ECDSA_SIG_free(es);
    return *der_len > 0 ? 0 : -1;
}

/* Does sig verify over input with key k and alg? Errors inside OpenSSL count as "no". */
static bool verify_with(const jwk *k, jws_alg alg, const char *input, size_t input_len,
                        const unsigned char *sig, size_t sig_len) {
    const unsigned char *s = sig;
    size_t s_len = sig_len;
    unsigned char *der = NULL;
    if (k->kty == JWK_EC) {
        size_t coord = jws_alg_ec_coord_bytes(alg);
        int der_len = 0;
        if (sig_len != 2 * coord || ec_sig_to_der(sig, coord, &der, &der_len) != 0) {
            ERR_clear_error();
            return false;
        }
        s = der;
        s_len = (size_t)der_len;
    } else if (k->kty == JWK_RSA) {
        if ((int)sig_len != EVP_PKEY_get_size(k->pkey)) return false;
    } else if (sig_len != 64) {
        return false;
    }
    bool ok = false;
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    EVP_PKEY_CTX *pctx = NULL;
    if (md && EVP_DigestVerifyInit(md, &pctx, jws_alg_md(alg), NULL, k->pkey) == 1) {
        bool pss = alg == JWS_PS256 || alg == JWS_PS384 || alg == JWS_PS512;
        bool setup = !pss || (EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) == 1 &&
                              EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST) == 1 &&
                              EVP_PKEY_CTX_set_rsa_mgf1_md(pctx, jws_alg_md(alg)) == 1);
        ok = setup && EVP_DigestVerify(md, s, s_len, (const unsigned char *)input, input_len) == 1;
    }
    EVP_MD_CTX_free(md);
    OPENSSL_free(der);
    if (!ok) ERR_clear_error(); /* leave no stale error for the thread's next TLS call */
    return ok;
}

/* A NumericDate claim: *present false when absent; INVALID_CLAIM for other JSON or a value out
 * of range. Fractions are dropped (RFC 7519 allows them). */
static int numeric_date(json_t *claims, const char *name, int64_t *out, bool *present,
                        jwt_reason *reason, sqe_error *err) {
    json_t *v = json_object_get(claims, name);
    *present = v != NULL;
    *out = 0;
    if (!v) return SQE_OK;
    double d;
    if (json_is_integer(v))
        d = (double)json_integer_value(v);
    else if (json_is_real(v))
        d = floor(json_real_value(v));
    else
        return jwt_refuse(reason, err, JWT_INVALID_CLAIM, "\"%s\" is not a number", name);
    if (!isfinite(d) || d < 0 || d > (double)MAX_NUMERIC_DATE)
        return jwt_refuse(reason, err, JWT_INVALID_CLAIM, "\"%s\" is out of range", name);
    *out = json_is_integer(v) ? (int64_t)json_integer_value(v) : (int64_t)d;
    return SQE_OK;
}

/* The claim checks of step 5 (jwt.h). */
static int check_claims(json_t *header, json_t *claims, const jwt_policy *pol, int64_t now,
                        int64_t *exp_out, jwt_reason *reason, sqe_error *err) {
    if (pol->require_at_jwt) {
        json_t *typ = json_object_get(header, "typ");
        const char *t = json_is_string(typ) ? json_string_value(typ) : NULL;
        if (!t || (strcasecmp(t, "at+jwt") && strcasecmp(t, "application/at+jwt")))
            return jwt_refuse(reason, err, JWT_WRONG_TYPE,
                          "the header typ is not \"at+jwt\" (RFC 9068 access token)");
    }
    json_t *iss = json_object_get(claims, "iss");
    if (!iss) return jwt_refuse(reason, err, JWT_MISSING_CLAIM, "\"iss\" is missing");
    if (!json_is_string(iss))
        return jwt_refuse(reason, err, JWT_INVALID_CLAIM, "\"iss\" is not a string");
    if (strcmp(json_string_value(iss), pol->issuer) ||
        json_string_length(iss) != strlen(pol->issuer))
        return jwt_refuse(reason, err, JWT_WRONG_ISSUER, "\"iss\" is not the configured issuer");
    json_t *aud = json_object_get(claims, "aud");
    if (!aud) return jwt_refuse(reason, err, JWT_MISSING_CLAIM, "\"aud\" is missing");
    bool ours = false;
    if (json_is_string(aud)) {
        ours = !strcmp(json_string_value(aud), pol->audience);
    } else if (json_is_array(aud) && json_array_size(aud) <= JWT_MAX_AUD) {
        for (size_t i = 0; i < json_array_size(aud); i++) {
            json_t *a = json_array_get(aud, i);
            if (!json_is_string(a))
                return jwt_refuse(reason, err, JWT_INVALID_CLAIM, "\"aud\" holds a non-string");
            if (!strcmp(json_string_value(a), pol->audience)) ours = true;
        }
    } else {
        return jwt_refuse(reason, err, JWT_INVALID_CLAIM,
                      "\"aud\" is not a string or an array of at most %u strings", JWT_MAX_AUD);
    }
    if (!ours)
        return jwt_refuse(reason, err, JWT_WRONG_AUDIENCE, "\"aud\" does not name this server");
    int64_t exp, nbf, iat;
    bool has_exp, has_nbf, has_iat;
    SQE_TRY(numeric_date(claims, "exp", &exp, &has_exp, reason, err));
    SQE_TRY(numeric_date(claims, "nbf", &nbf, &has_nbf, reason, err));
    SQE_TRY(numeric_date(claims, "iat", &iat, &has_iat, reason, err));
    if (!has_exp) return jwt_refuse(reason, err, JWT_MISSING_CLAIM, "\"exp\" is missing");
    if (now >= exp + pol->leeway_s)
        return jwt_refuse(reason, err, JWT_EXPIRED, "expired %lld s ago (leeway %lld s)",
                      (long long)(now - exp), (long long)pol->leeway_s);
    if (has_nbf && nbf - pol->leeway_s > now)
        return jwt_refuse(reason, err, JWT_NOT_YET_VALID, "not valid for another %lld s (nbf)",
                      (long long)(nbf - now));
    if (has_iat && iat - pol->leeway_s > now)
        return jwt_refuse(reason, err, JWT_NOT_YET_VALID, "issued %lld s in the future (iat)",
                      (long long)(iat - now));
    *exp_out = exp;
    return SQE_OK;
}

/* Steps 3 and 4: finds the key and checks the signature; *used is the key that verified. */
static int check_signature(const jwks *keys, json_t *header, jws_alg alg, const char *input,
                           size_t input_len, const unsigned char *sig, size_t sig_len,
                           const jwk **used, jwt_reason *reason, sqe_error *err) {
    *used = NULL;
    json_t *kidv = json_object_get(header, "kid");
    if (kidv && !json_is_string(kidv))
        return jwt_refuse(reason, err, JWT_MALFORMED, "the header kid is not a string");
    const char *kid = kidv ? json_string_value(kidv) : NULL;
    size_t n = jwks_count(keys), named = 0, suitable = 0;
    const jwk *only = NULL;
    for (size_t i = 0; i < n; i++) {
        const jwk *k = jwks_at(keys, i);
        if (kid && (!k->kid || strcmp(k->kid, kid))) continue;
        named++;
        if (!key_suits(k, alg)) continue;
        suitable++;
        only = k;
        if (kid && verify_with(k, alg, input, input_len, sig, sig_len)) {
            *used = k;
            return SQE_OK;
        }
    }
    char buf[52];
    if (kid) {
        if (!named)
            return jwt_refuse(reason, err, JWT_UNKNOWN_KEY, "no key with kid \"%s\"",
                          printable(kid, buf));
        if (!suitable)
            return jwt_refuse(reason, err, JWT_KEY_MISMATCH, "key \"%s\" is not a key for %s",
                          printable(kid, buf), jws_alg_name(alg));
        return jwt_refuse(reason, err, JWT_BAD_SIGNATURE, "the %s signature does not verify",
                      jws_alg_name(alg));
    }
    if (suitable != 1)
        return jwt_refuse(reason, err, JWT_UNKNOWN_KEY,
                      "no kid, and %zu keys for %s (one is needed to go without a kid)", suitable,
                      jws_alg_name(alg));
    if (!verify_with(only, alg, input, input_len, sig, sig_len))
        return jwt_refuse(reason, err, JWT_BAD_SIGNATURE, "the %s signature does not verify",
                      jws_alg_name(alg));
    *used = only;
    return SQE_OK;
}

int jwt_verify(const char *token, size_t len, const jwks *keys, const jwt_policy *policy,
               jwt_token **out, jwt_reason *reason, sqe_error *err) {
    *out = NULL;
    *reason = JWT_OK;
    if (!policy->issuer || !*policy->issuer || !policy->audience || !*policy->audience)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "token policy needs an issuer and an audience");
    if (policy->leeway_s < 0 || policy->leeway_s > JWT_MAX_LEEWAY_S)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "token leeway must be 0 to %d s",
                       JWT_MAX_LEEWAY_S);
    if (len > JWT_MAX_TOKEN_BYTES)
        return jwt_refuse(reason, err, JWT_MALFORMED, "%zu bytes (at most %u)", len,
                      JWT_MAX_TOKEN_BYTES);
    const char *dot1 = memchr(token, '.', len);
    const char *dot2 = dot1 ? memchr(dot1 + 1, '.', len - (size_t)(dot1 + 1 - token)) : NULL;
    if (!dot2 || memchr(dot2 + 1, '.', len - (size_t)(dot2 + 1 - token)))
        return jwt_refuse(reason, err, JWT_MALFORMED, "not three dot-separated parts");
    size_t h_len = (size_t)(dot1 - token), p_len = (size_t)(dot2 - dot1 - 1);
    size_t s_len = len - (size_t)(dot2 + 1 - token);
    if (!h_len || !p_len)
        return jwt_refuse(reason, err, JWT_MALFORMED, "an empty header or payload");

    json_t *header = decode_object(token, h_len, JWT_MAX_HEADER_BYTES);
    if (!header)
        return jwt_refuse(reason, err, JWT_MALFORMED, "the header is not base64url of a JSON object");
    json_t *claims = NULL;
    int rc;
    json_t *algv = json_object_get(header, "alg");
    if (!json_is_string(algv)) {
        rc = jwt_refuse(reason, err, JWT_MALFORMED, "the header has no alg string");
        goto fail;
    }
    if (json_object_get(header, "crit")) {
        rc = jwt_refuse(reason, err, JWT_MALFORMED, "the header names critical extensions");
        goto fail;
    }
    claims = decode_object(dot1 + 1, p_len, JWT_MAX_TOKEN_BYTES);
    if (!claims) {
        rc = jwt_refuse(reason, err, JWT_MALFORMED, "the payload is not base64url of a JSON object");
        goto fail;
    }
    jws_alg alg = jws_alg_from_name(json_string_value(algv));
    if (!alg || !(policy->allowed_algs & alg)) {
        char buf[52];
        rc = jwt_refuse(reason, err, JWT_ALG_NOT_ALLOWED, "alg \"%s\" is not allowed",
                    printable(json_string_value(algv), buf));
        goto fail;
    }
    if (!s_len) {
        rc = jwt_refuse(reason, err, JWT_MALFORMED, "no signature (unsigned tokens are refused)");
        goto fail;
    }
    unsigned char sig[MAX_SIG_BYTES];
    long sig_n = s_len <= base64_encoded_len(sizeof sig, false)
                     ? base64_decode(dot2 + 1, s_len, true, sig, sizeof sig)
                     : -1;
    if (sig_n <= 0) {
        rc = jwt_refuse(reason, err, JWT_MALFORMED, "the signature is not base64url");
        goto fail;
    }
    const jwk *used = NULL;
    rc = check_signature(keys, header, alg, token, (size_t)(dot2 - token), sig, (size_t)sig_n,
                         &used, reason, err);
    if (rc != SQE_OK) goto fail;
    int64_t now = policy->now ? policy->now : (int64_t)time(NULL);
    int64_t exp = 0;
    rc = check_claims(header, claims, policy, now, &exp, reason, err);
    if (rc != SQE_OK) goto fail;
    jwt_token *t = calloc(1, sizeof *t);
    if (!t) {
        rc = err_nomem(err, "token");
        goto fail;
    }
    t->header = header;
    t->claims = claims;
    t->alg = alg;
    t->key = used;
    t->exp = exp;
    *out = t;
    return SQE_OK;
fail:
    json_decref(header);
    json_decref(claims);
    return rc;
}

void jwt_token_free(jwt_token *t) {
    if (!t) return;
    json_decref(t->header);
    json_decref(t->claims);
    free(t);
}
