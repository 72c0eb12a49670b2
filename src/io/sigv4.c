/*
 * sigv4.c: AWS Signature Version 4 signing of S3 requests (see sigv4.h).
 *
 * INTERFACE: sigv4_sign, sigv4_result_reset, sigv4_uri_encode, sigv4_canonical_query,
 *            sigv4_sha256_hex, sigv4_amz_date.
 * NOTES: follows the AWS SigV4 documentation (canonical request -> string to sign
 * "AWS4-HMAC-SHA256\n<date>\n<scope>\n<hex sha256(canonical request)>" -> signing key
 * HMAC chain "AWS4"+secret, date, region, service, "aws4_request" -> hex HMAC of the string
 * to sign). Checked against the aws-c-auth v4 test suite and the S3 documentation's examples
 * (tests/unit/test_sigv4.c). HMAC and SHA-256 come from OpenSSL (libcrypto); the derived key
 * is wiped after use.
 */
#include "io/sigv4.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>
#include <stdlib.h>
#include <string.h>

static const char HEX_UPPER[] = "0123456789ABCDEF";
static const char HEX_LOWER[] = "0123456789abcdef";

static void hex_lower(const unsigned char *d, size_t n, char *out) {
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = HEX_LOWER[d[i] >> 4];
        out[2 * i + 1] = HEX_LOWER[d[i] & 15];
    }
    out[2 * n] = '\0';
}

void sigv4_sha256_hex(const void *data, size_t len, char out[65]) {
    unsigned char d[SHA256_DIGEST_LENGTH];
    SHA256(data, len, d);
    hex_lower(d, sizeof d, out);
}

void sigv4_amz_date(time_t t, char out[17]) {
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, 17, "%Y%m%dT%H%M%SZ", &tm);
}

static bool unreserved(unsigned char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '.' || c == '_' || c == '~';
}

void sigv4_uri_encode(strbuf *sb, const char *s, size_t len, bool keep_slash) {
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (unreserved(c) || (keep_slash && c == '/')) {
            strbuf_putc(sb, (char)c);
        } else {
            char e[3] = {'%', HEX_UPPER[c >> 4], HEX_UPPER[c & 15]};
            strbuf_append(sb, e, 3);
        }
    }
}

/* ---- canonical query ------------------------------------------------------------------------ */

typedef struct enc_pair {
    char *name;
    char *value;
} enc_pair;

static int enc_pair_cmp(const void *a, const void *b) {
    const enc_pair *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : strcmp(x->value, y->value);
}

static char *encode_dup(const char *s) {
    strbuf sb;
    strbuf_init(&sb);
    sigv4_uri_encode(&sb, s ? s : "", s ? strlen(s) : 0, false);
    if (sb.failed) {
        strbuf_reset(&sb);
        return NULL;
    }
    return sb.data ? strbuf_move(&sb) : strdup("");
}

void sigv4_canonical_query(strbuf *sb, const sigv4_pair *q, uint32_t n) {
    if (n == 0) return;
    enc_pair *e = calloc(n, sizeof *e);
    if (!e) {
        sb->failed = 1;
        return;
    }
    bool ok = true;
    for (uint32_t i = 0; i < n && ok; i++) {
        e[i].name = encode_dup(q[i].name);
        e[i].value = encode_dup(q[i].value);
        ok = e[i].name && e[i].value;
    }
    if (ok) {
        qsort(e, n, sizeof *e, enc_pair_cmp);
        for (uint32_t i = 0; i < n; i++) {
            if (i) strbuf_putc(sb, '&');
            strbuf_puts(sb, e[i].name);
            strbuf_putc(sb, '=');
            strbuf_puts(sb, e[i].value);
        }
    } else {
        sb->failed = 1;
    }
    for (uint32_t i = 0; i < n; i++) {
        free(e[i].name);
        free(e[i].value);
    }
    free(e);
}

/* ---- canonical headers ---------------------------------------------------------------------- */

typedef struct canon_header {
    char *name;      /* lower-cased */
    const char *value;
    uint32_t order;  /* position in the request, for a stable sort */
} canon_header;

static int canon_header_cmp(const void *a, const void *b) {
    const canon_header *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    if (c) return c;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* Appends value trimmed, with runs of spaces and tabs collapsed to one space. */
static void put_trimmed(strbuf *sb, const char *v) {
    if (!v) return;
    while (*v == ' ' || *v == '\t') v++;
    bool space = false;
    for (; *v; v++) {
        if (*v == ' ' || *v == '\t') {
            space = true;
            continue;
        }
        if (space) strbuf_putc(sb, ' ');
        space = false;
        strbuf_putc(sb, *v);
    }
}

/* Appends "name:value\n" lines to canon and "name;name" to signed_list. */
static int canonical_headers(const sigv4_pair *h, uint32_t n, strbuf *canon, strbuf *signed_list,
                             sqe_error *err) {
    canon_header *c = calloc(n ? n : 1, sizeof *c);
    if (!c) return err_nomem(err, "SigV4 headers");
    int rc = SQE_OK;
    for (uint32_t i = 0; i < n && !rc; i++) {
        if (!h[i].name || !*h[i].name) {
            rc = err_set(err, SQE_ERR_INVALID_ARGUMENTS, "SigV4: a header has no name");
            break;
        }
        c[i].name = strdup(h[i].name);
        if (!c[i].name) {
            rc = err_nomem(err, "SigV4 headers");
            break;
        }
        for (char *p = c[i].name; *p; p++)
            if (*p >= 'A' && *p <= 'Z') *p = (char)(*p - 'A' + 'a');
        c[i].value = h[i].value;
        c[i].order = i;
    }
    if (!rc) {
        qsort(c, n, sizeof *c, canon_header_cmp);
        for (uint32_t i = 0; i < n; i++) {
            bool same = i > 0 && strcmp(c[i].name, c[i - 1].name) == 0;
            if (same) {
                strbuf_putc(canon, ',');
            } else {
                if (i > 0) {
                    strbuf_putc(canon, '\n');
                    strbuf_putc(signed_list, ';');
                }
                strbuf_puts(canon, c[i].name);
                strbuf_putc(canon, ':');
                strbuf_puts(signed_list, c[i].name);
            }
            put_trimmed(canon, c[i].value);
        }
        if (n) strbuf_putc(canon, '\n');
    }
    for (uint32_t i = 0; i < n; i++) free(c[i].name);
    free(c);
    return rc;
}

/* ---- signing -------------------------------------------------------------------------------- */

static bool hmac(const void *key, size_t key_len, const char *msg, unsigned char out[32]) {
    unsigned int out_len = 0;
    return HMAC(EVP_sha256(), key, (int)key_len, (const unsigned char *)msg, strlen(msg), out,
                &out_len) != NULL &&
           out_len == 32;
}

static bool valid_amz_date(const char *d) {
    if (!d || strlen(d) != 16 || d[8] != 'T' || d[15] != 'Z') return false;
    for (int i = 0; i < 15; i++)
        if (i != 8 && (d[i] < '0' || d[i] > '9')) return false;
    return true;
}

void sigv4_result_reset(sigv4_result *r) {
    free(r->canonical_request);
    free(r->string_to_sign);
    free(r->signed_headers);
    free(r->authorization);
    memset(r, 0, sizeof *r);
}

int sigv4_sign(const sigv4_request *rq, const sigv4_credentials *cred, sigv4_result *out,
               sqe_error *err) {
    memset(out, 0, sizeof *out);
    if (!rq->method || !rq->path || !rq->payload_hash || !rq->region || !rq->service || !cred ||
        !cred->access_key_id || !cred->secret_access_key)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "SigV4: incomplete request or credentials");
    if (!valid_amz_date(rq->amz_date))
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "SigV4: bad x-amz-date '%s'",
                       rq->amz_date ? rq->amz_date : "");
    strbuf creq, heads, signed_list, sts, auth;
    strbuf_init(&creq);
    strbuf_init(&heads);
    strbuf_init(&signed_list);
    strbuf_init(&sts);
    strbuf_init(&auth);
    int rc = canonical_headers(rq->headers, rq->n_headers, &heads, &signed_list, err);
    if (rc) goto out_free;

    strbuf_puts(&creq, rq->method);
    strbuf_putc(&creq, '\n');
    sigv4_uri_encode(&creq, rq->path, strlen(rq->path), true);
    strbuf_putc(&creq, '\n');
    sigv4_canonical_query(&creq, rq->query, rq->n_query);
    strbuf_putc(&creq, '\n');
    strbuf_append(&creq, heads.data ? heads.data : "", heads.len);
    strbuf_putc(&creq, '\n');
    strbuf_append(&creq, signed_list.data ? signed_list.data : "", signed_list.len);
    strbuf_putc(&creq, '\n');
    strbuf_puts(&creq, rq->payload_hash);

    char date[9];
    memcpy(date, rq->amz_date, 8);
    date[8] = '\0';
    char creq_hash[65];
    sigv4_sha256_hex(strbuf_cstr(&creq), creq.len, creq_hash);
    strbuf_printf(&sts, "AWS4-HMAC-SHA256\n%s\n%s/%s/%s/aws4_request\n%s", rq->amz_date, date,
                  rq->region, rq->service, creq_hash);

    unsigned char k[32], k2[32];
    strbuf secret;
    strbuf_init(&secret);
    strbuf_puts(&secret, "AWS4");
    strbuf_puts(&secret, cred->secret_access_key);
    bool ok = !secret.failed && hmac(secret.data, secret.len, date, k) &&
              hmac(k, 32, rq->region, k2) && hmac(k2, 32, rq->service, k) &&
              hmac(k, 32, "aws4_request", k2) && !sts.failed && hmac(k2, 32, strbuf_cstr(&sts), k);
    if (secret.data) OPENSSL_cleanse(secret.data, secret.len);
    strbuf_reset(&secret);
    if (ok) hex_lower(k, 32, out->signature);
    OPENSSL_cleanse(k, sizeof k);
    OPENSSL_cleanse(k2, sizeof k2);
    if (!ok) {
        rc = err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "SigV4: HMAC-SHA256 failed");
        goto out_free;
    }
    strbuf_printf(&auth, "AWS4-HMAC-SHA256 Credential=%s/%s/%s/%s/aws4_request, SignedHeaders=%s, "
                  "Signature=%s", cred->access_key_id, date, rq->region, rq->service,
                  strbuf_cstr(&signed_list), out->signature);
    if (creq.failed || sts.failed || auth.failed || signed_list.failed) {
        rc = err_nomem(err, "SigV4 signature");
        goto out_free;
    }
    out->canonical_request = strbuf_move(&creq);
    out->string_to_sign = strbuf_move(&sts);
    out->signed_headers = signed_list.data ? strbuf_move(&signed_list) : strdup("");
    out->authorization = strbuf_move(&auth);
    if (!out->signed_headers) {
        sigv4_result_reset(out);
        rc = err_nomem(err, "SigV4 signature");
    }
out_free:
    strbuf_reset(&creq);
    strbuf_reset(&heads);
    strbuf_reset(&signed_list);
    strbuf_reset(&sts);
    strbuf_reset(&auth);
    if (rc) memset(out->signature, 0, sizeof out->signature);
    return rc;
}
