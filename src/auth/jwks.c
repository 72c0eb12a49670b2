/*
 * jwks.c: JWKS documents to OpenSSL public keys (see jwks.h).
 *
 * INTERFACE: jwks_parse, jwks_free, jwks_count, jwks_at, jwks_note.
 * NOTES: keys are built with EVP_PKEY_fromdata (RSA n/e, EC group + uncompressed point) and
 * EVP_PKEY_new_raw_public_key (Ed25519), then EVP_PKEY_public_check'd, so a point off its curve
 * is refused here rather than at the first token. Members are decoded with the strict base64url
 * decoder (no padding, no whitespace, no second spelling). The private-member check runs on
 * every entry, kept or skipped, before anything else about it. A refused key clears OpenSSL's
 * per-thread error queue so no stale error reaches the thread's next TLS call.
 */
#include "auth/jwks.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>

#include "common/base64.h"

#define RSA_MIN_BITS 2048
#define RSA_MAX_BYTES 1024 /* 8192 bits */
#define RSA_E_MAX_BYTES 8

struct jwks {
    jwk *keys;
    size_t n;
    char note[512];
};

/* Members that only a private (or symmetric) key has. */
static const char *const PRIVATE_MEMBERS[] = {"d", "p", "q", "dp", "dq", "qi", "oth", "k"};

/* Refuses key i of the document: "JWKS key <i> (kid "x"): <why>". */
static int refuse(sqe_error *err, size_t i, const char *kid, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int refuse(sqe_error *err, size_t i, const char *kid, const char *fmt, ...) {
    char why[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    if (kid)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "JWKS key %zu (kid \"%.64s\"): %s", i, kid,
                       why);
    return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "JWKS key %zu: %s", i, why);
}

/* Appends "key <i>: <why>" to the set's note (truncated quietly: it is informational). */
static void note_skip(jwks *set, size_t i, const char *kid, const char *why) {
    size_t used = strlen(set->note);
    if (used + 1 >= sizeof set->note) return;
    snprintf(set->note + used, sizeof set->note - used, "%skey %zu%s%.64s%s skipped: %s",
             used ? "; " : "", i, kid ? " (kid \"" : "", kid ? kid : "", kid ? "\")" : "", why);
}

/* Optional string member: SQE_OK with *out NULL when absent; refuses a non-string. */
static int opt_string(json_t *obj, const char *name, const char **out, size_t i, const char *kid,
                      sqe_error *err) {
    json_t *v = json_object_get(obj, name);
    *out = NULL;
    if (!v) return SQE_OK;
    if (!json_is_string(v)) return refuse(err, i, kid, "\"%s\" is not a string", name);
    *out = json_string_value(v);
    return SQE_OK;
}

/* Decodes base64url member name into a new buffer of exactly want bytes (want 0: 1..max). */
static int b64_member(json_t *obj, const char *name, size_t want, size_t max, unsigned char **out,
                      size_t *out_len, size_t i, const char *kid, sqe_error *err) {
    *out = NULL;
    json_t *v = json_object_get(obj, name);
    if (!v) return refuse(err, i, kid, "\"%s\" is missing", name);
    if (!json_is_string(v)) return refuse(err, i, kid, "\"%s\" is not a string", name);
    size_t tlen = json_string_length(v);
    size_t cap = want ? want : max;
    if (tlen == 0 || tlen > base64_encoded_len(cap, false))
        return refuse(err, i, kid, "\"%s\" has the wrong length", name);
    unsigned char *buf = malloc(cap);
    if (!buf) return err_nomem(err, "JWKS key");
    long got = base64_decode(json_string_value(v), tlen, true, buf, cap);
    if (got < 0 || (want && (size_t)got != want) || got == 0) {
        free(buf);
        return refuse(err, i, kid, "\"%s\" is not %s base64url", name,
                      want ? "the curve's length of" : "valid");
    }
    *out = buf;
    *out_len = (size_t)got;
    return SQE_OK;
}

/* A public key from the parameter set built in bld (consumed). */
static int pkey_from_params(const char *type, OSSL_PARAM_BLD *bld, EVP_PKEY **out, size_t i,
                            const char *kid, sqe_error *err) {
    *out = NULL;
    OSSL_PARAM *params = OSSL_PARAM_BLD_to_param(bld);
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, type, NULL);
    int ok = params && ctx && EVP_PKEY_fromdata_init(ctx) == 1 &&
             EVP_PKEY_fromdata(ctx, out, EVP_PKEY_PUBLIC_KEY, params) == 1;
    OSSL_PARAM_free(params);
    EVP_PKEY_CTX_free(ctx);
    if (!ok) {
        ERR_clear_error();
        return refuse(err, i, kid, "the %s public key is not valid", type);
    }
    return SQE_OK;
}

/* Checks a freshly built key (EC point on the curve, RSA modulus sane). */
static int check_public(EVP_PKEY *pkey, size_t i, const char *kid, sqe_error *err) {
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(NULL, pkey, NULL);
    int ok = ctx && EVP_PKEY_public_check(ctx) == 1;
    EVP_PKEY_CTX_free(ctx);
    if (ok) return SQE_OK;
    ERR_clear_error();
    return refuse(err, i, kid, "the public key fails its consistency check");
}

static int build_rsa(json_t *obj, jwk *k, size_t i, sqe_error *err) {
    unsigned char *n = NULL, *e = NULL;
    size_t n_len = 0, e_len = 0;
    int rc = b64_member(obj, "n", 0, RSA_MAX_BYTES + 1, &n, &n_len, i, k->kid, err);
    if (rc == SQE_OK) rc = b64_member(obj, "e", 0, RSA_E_MAX_BYTES, &e, &e_len, i, k->kid, err);
    BIGNUM *bn_n = NULL, *bn_e = NULL;
    OSSL_PARAM_BLD *bld = NULL;
    if (rc != SQE_OK) goto done;
    bn_n = BN_bin2bn(n, (int)n_len, NULL);
    bn_e = BN_bin2bn(e, (int)e_len, NULL);
    if (!bn_n || !bn_e) {
        rc = err_nomem(err, "JWKS key");
        goto done;
    }
    k->bits = BN_num_bits(bn_n);
    if (k->bits < RSA_MIN_BITS || k->bits > RSA_MAX_BYTES * 8) {
        rc = refuse(err, i, k->kid, "RSA modulus of %d bits (%d to %d accepted)", k->bits,
                    RSA_MIN_BITS, RSA_MAX_BYTES * 8);
        goto done;
    }
    if (!BN_is_odd(bn_e) || BN_num_bits(bn_e) < 2) {
        rc = refuse(err, i, k->kid, "RSA exponent is not an odd number above 1");
        goto done;
    }
    bld = OSSL_PARAM_BLD_new();
    if (!bld || !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, bn_n) ||
        !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, bn_e)) {
        rc = err_nomem(err, "JWKS key");
        goto done;
    }
    rc = pkey_from_params("RSA", bld, &k->pkey, i, k->kid, err);
done:
    OSSL_PARAM_BLD_free(bld);
    BN_free(bn_n);
    BN_free(bn_e);
    free(n);
    free(e);
    return rc;
}

static int build_ec(json_t *obj, jwk *k, size_t coord, size_t i, sqe_error *err) {
    unsigned char *x = NULL, *y = NULL, point[1 + 2 * 66];
    size_t xl = 0, yl = 0;
    int rc = b64_member(obj, "x", coord, coord, &x, &xl, i, k->kid, err);
    if (rc == SQE_OK) rc = b64_member(obj, "y", coord, coord, &y, &yl, i, k->kid, err);
    if (rc == SQE_OK) {
        point[0] = 0x04; /* uncompressed */
        memcpy(point + 1, x, coord);
        memcpy(point + 1 + coord, y, coord);
        OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
        if (!bld || !OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, k->crv, 0) ||
            !OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, point, 1 + 2 * coord))
            rc = err_nomem(err, "JWKS key");
        else
            rc = pkey_from_params("EC", bld, &k->pkey, i, k->kid, err);
        OSSL_PARAM_BLD_free(bld);
    }
    free(x);
    free(y);
    return rc;
}

static int build_ed25519(json_t *obj, jwk *k, size_t i, sqe_error *err) {
    unsigned char *x = NULL;
    size_t xl = 0;
    int rc = b64_member(obj, "x", 32, 32, &x, &xl, i, k->kid, err);
    if (rc != SQE_OK) return rc;
    k->pkey = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, x, 32);
    free(x);
    if (!k->pkey) {
        ERR_clear_error();
        return refuse(err, i, k->kid, "the Ed25519 public key is not valid");
    }
    return SQE_OK;
}

/* Does key_ops (an array of strings) include "verify"? Refuses other shapes. */
static int key_ops_verify(json_t *ops, bool *verify, size_t i, const char *kid, sqe_error *err) {
    *verify = false;
    if (!json_is_array(ops) || json_array_size(ops) > 16)
        return refuse(err, i, kid, "\"key_ops\" is not an array of at most 16 strings");
    for (size_t j = 0; j < json_array_size(ops); j++) {
        json_t *op = json_array_get(ops, j);
        if (!json_is_string(op)) return refuse(err, i, kid, "\"key_ops\" holds a non-string");
        if (!strcmp(json_string_value(op), "verify")) *verify = true;
    }
    return SQE_OK;
}

/* Parses entry i into *k; *keep false (with a note) when it is not a signing key we use. */
static int parse_key(jwks *set, json_t *obj, size_t i, jwk *k, bool *keep, sqe_error *err) {
    *keep = false;
    if (!json_is_object(obj)) return refuse(err, i, NULL, "not a JSON object");
    const char *kid = NULL, *kty = NULL, *use = NULL, *alg = NULL, *crv = NULL;
    SQE_TRY(opt_string(obj, "kid", &kid, i, NULL, err));
    if (kid && (!*kid || strlen(kid) > JWK_MAX_KID))
        return refuse(err, i, NULL, "\"kid\" is empty or longer than %u bytes", JWK_MAX_KID);
    for (size_t m = 0; m < sizeof PRIVATE_MEMBERS / sizeof PRIVATE_MEMBERS[0]; m++)
        if (json_object_get(obj, PRIVATE_MEMBERS[m]))
            return refuse(err, i, kid,
                          "carries the private member \"%s\": a JWKS must hold public keys only "
                          "(publish the provider's jwks_uri document, not a key file)",
                          PRIVATE_MEMBERS[m]);
    SQE_TRY(opt_string(obj, "kty", &kty, i, kid, err));
    SQE_TRY(opt_string(obj, "use", &use, i, kid, err));
    SQE_TRY(opt_string(obj, "alg", &alg, i, kid, err));
    SQE_TRY(opt_string(obj, "crv", &crv, i, kid, err));
    if (!kty) return refuse(err, i, kid, "\"kty\" is missing");
    char why[128];
    if (use && strcmp(use, "sig")) {
        snprintf(why, sizeof why, "use \"%.16s\" is not \"sig\"", use);
        note_skip(set, i, kid, why);
        return SQE_OK;
    }
    json_t *ops = json_object_get(obj, "key_ops");
    if (ops) {
        bool verify;
        SQE_TRY(key_ops_verify(ops, &verify, i, kid, err));
        if (!verify) {
            note_skip(set, i, kid, "key_ops lacks \"verify\"");
            return SQE_OK;
        }
    }
    jwk_kty t = !strcmp(kty, "RSA") ? JWK_RSA
                : !strcmp(kty, "EC") ? JWK_EC
                : !strcmp(kty, "OKP") ? JWK_OKP : 0;
    if (!t) {
        snprintf(why, sizeof why, "kty \"%.16s\" is not supported", kty);
        note_skip(set, i, kid, why);
        return SQE_OK;
    }
    jws_alg a = 0;
    if (alg) {
        a = jws_alg_from_name(alg);
        if (!a) {
            snprintf(why, sizeof why, "alg \"%.16s\" is not a supported signature algorithm", alg);
            note_skip(set, i, kid, why);
            return SQE_OK;
        }
        if (jws_alg_kty(a) != t)
            return refuse(err, i, kid, "alg %s does not go with kty %s", alg, kty);
    }
    size_t coord = 0;
    if (t == JWK_EC || t == JWK_OKP) {
        if (!crv) return refuse(err, i, kid, "\"crv\" is missing");
        bool known = t == JWK_EC ? (!strcmp(crv, "P-256") || !strcmp(crv, "P-384") ||
                                    !strcmp(crv, "P-521"))
                                 : !strcmp(crv, "Ed25519");
        if (!known) {
            snprintf(why, sizeof why, "crv \"%.16s\" is not supported", crv);
            note_skip(set, i, kid, why);
            return SQE_OK;
        }
        if (a && strcmp(jws_alg_crv(a), crv))
            return refuse(err, i, kid, "alg %s does not go with crv %s", alg, crv);
        coord = !strcmp(crv, "P-256") ? 32 : !strcmp(crv, "P-384") ? 48 : 66;
        snprintf(k->crv, sizeof k->crv, "%s", crv);
    }
    k->kty = t;
    if (a) snprintf(k->alg, sizeof k->alg, "%s", alg);
    if (kid) {
        k->kid = strdup(kid);
        if (!k->kid) return err_nomem(err, "JWKS key");
    }
    int rc = t == JWK_RSA ? build_rsa(obj, k, i, err)
             : t == JWK_EC ? build_ec(obj, k, coord, i, err)
                           : build_ed25519(obj, k, i, err);
    if (rc == SQE_OK && t == JWK_EC) {
        k->bits = coord == 66 ? 521 : (int)coord * 8;
        rc = check_public(k->pkey, i, k->kid, err);
    }
    if (rc == SQE_OK && t == JWK_OKP) k->bits = 256;
    if (rc == SQE_OK) *keep = true;
    return rc;
}

static void key_clear(jwk *k) {
    EVP_PKEY_free(k->pkey);
    free((char *)k->kid);
    memset(k, 0, sizeof *k);
}

int jwks_parse(const char *text, size_t len, jwks **out, sqe_error *err) {
    *out = NULL;
    if (len > JWKS_MAX_BYTES)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "JWKS document of %zu bytes (at most %u)",
                       len, JWKS_MAX_BYTES);
    json_error_t je;
    json_t *doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (!doc)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "JWKS document is not JSON (line %d: %.80s)",
                       je.line, je.text);
    int rc = SQE_OK;
    jwks *set = NULL;
    json_t *keys = json_is_object(doc) ? json_object_get(doc, "keys") : NULL;
    if (!json_is_array(keys)) {
        rc = err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                     "JWKS document is not an object with a \"keys\" array");
        goto done;
    }
    size_t n = json_array_size(keys);
    if (n > JWKS_MAX_KEYS) {
        rc = err_set(err, SQE_ERR_INVALID_ARGUMENTS, "JWKS document has %zu keys (at most %u)", n,
                     JWKS_MAX_KEYS);
        goto done;
    }
    set = calloc(1, sizeof *set);
    if (set && n) set->keys = calloc(n, sizeof *set->keys);
    if (!set || (n && !set->keys)) {
        rc = err_nomem(err, "JWKS");
        goto done;
    }
    for (size_t i = 0; i < n && rc == SQE_OK; i++) {
        jwk *k = &set->keys[set->n];
        bool keep = false;
        rc = parse_key(set, json_array_get(keys, i), i, k, &keep, err);
        if (rc == SQE_OK && keep)
            set->n++;
        else
            key_clear(k);
    }
done:
    json_decref(doc);
    if (rc != SQE_OK) {
        jwks_free(set);
        return rc;
    }
    *out = set;
    return SQE_OK;
}

void jwks_free(jwks *set) {
    if (!set) return;
    for (size_t i = 0; i < set->n; i++) key_clear(&set->keys[i]);
    free(set->keys);
    free(set);
}

size_t jwks_count(const jwks *set) { return set ? set->n : 0; }

const jwk *jwks_at(const jwks *set, size_t i) { return &set->keys[i]; }

const char *jwks_note(const jwks *set) { return set->note; }
