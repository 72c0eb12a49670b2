/*
 * scalar_string_binary.c: the string family, binary part: to_utf8/from_utf8, to_hex/from_hex,
 * base64 (standard and URL alphabets), md5/sha1/sha256/sha512 and the hmac_* variants
 * (OpenSSL), crc32, xxhash64, big-endian integer encodings, and luhn_check.
 *
 * INTERFACE: func_string_binary_defs (joined into the string family).
 *
 * NOTES: every decoder treats its input as hostile: invalid hex or base64 is
 * INVALID_FUNCTION_ARGUMENT naming the offending character; from_utf8 replaces invalid
 * sequences with U+FFFD (or the given replacement) as Trino does. CRC-32 (IEEE, as zlib) and
 * XXH64 (seed 0, printed big-endian as Trino does) are implemented here.
 */
#include <inttypes.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/base64.h"
#include "func/scalar_kernel.h"
#include "common/hex.h"

#define KERNEL(name)                                                                               \
    static int name(func_ctx *ctx, const vec *const *args, uint32_t n_args, const uint32_t *sel,   \
                    uint32_t count, vec *out)
#define SDATA(s) sqe_str_data(s)

/* --- UTF-8 ------------------------------------------------------------------------------------ */

KERNEL(to_utf8_fn) {
    vec_view us;
    vec_view_init(&us, args[0]);
    FUNC_FOR_ROWS(sel, count, row) {
        const sqe_str *s = ustr(&us, row);
        SQE_TRY(func_out_str(ctx, out, row, SDATA(s), s->len));
    }
    return SQE_OK;
}

KERNEL(from_utf8_fn) {
    vec_view ub, ur = {0};
    vec_view_init(&ub, args[0]);
    if (n_args > 1) vec_view_init(&ur, args[1]);
    strbuf sb;
    strbuf_init(&sb);
    int rc = SQE_OK;
    FUNC_FOR_ROWS(sel, count, row) {
        const sqe_str *b = ustr(&ub, row);
        char repl[4];
        size_t repl_len = utf8_encode(0xFFFD, repl);
        if (n_args > 1) {
            if (args[1]->type.id == TYPE_BIGINT) {
                int64_t cp = UVAL(&ur, int64_t, row);
                if (cp < 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
                    if ((rc = func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                                             "Invalid replacement character")))
                        break;
                    continue;
                }
                repl_len = utf8_encode((uint32_t)cp, repl);
            } else {
                const sqe_str *r = ustr(&ur, row);
                size_t adv = 0;
                if (r->len > 0) utf8_decode_cp((const unsigned char *)SDATA(r), r->len, &adv);
                if (r->len > 4 || adv != r->len) {
                    if ((rc = func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                                             "Replacement character string must empty or a "
                                             "single character")))
                        break;
                    continue;
                }
                memcpy(repl, SDATA(r), r->len);
                repl_len = r->len;
            }
        }
        const unsigned char *p = (const unsigned char *)SDATA(b);
        sb.len = 0;
        for (uint32_t i = 0; i < b->len;) {
            size_t adv;
            int32_t cp = utf8_decode_cp(p + i, b->len - i, &adv);
            if (cp < 0) strbuf_append(&sb, repl, repl_len);
            else strbuf_append(&sb, (const char *)p + i, adv);
            i += (uint32_t)adv;
        }
        if ((rc = func_out_sb(ctx, out, row, &sb))) break;
    }
    strbuf_reset(&sb);
    return rc;
}

/* --- hex -------------------------------------------------------------------------------------- */

KERNEL(to_hex_fn) {
    static const char digits[] = "0123456789ABCDEF";
    vec_view ub;
    vec_view_init(&ub, args[0]);
    FUNC_FOR_ROWS(sel, count, row) {
        const sqe_str *b = ustr(&ub, row);
        if ((size_t)b->len * 2 > FUNC_MAX_STRING) {
            SQE_TRY(func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                                   "to_hex result is too large"));
            continue;
        }
        char small[SQE_STR_INLINE];
        uint32_t n = b->len * 2;
        char *dst = n <= SQE_STR_INLINE ? small : vec_str_reserve(out, n);
        if (!dst) return func_nomem(ctx);
        const unsigned char *p = (const unsigned char *)SDATA(b);
        for (uint32_t i = 0; i < b->len; i++) {
            dst[2 * i] = digits[p[i] >> 4];
            dst[2 * i + 1] = digits[p[i] & 15];
        }
        VEC_DATA(out, sqe_str)[row] = sqe_str_make(dst, n);
    }
    return SQE_OK;
}

KERNEL(from_hex_fn) {
    vec_view us;
    vec_view_init(&us, args[0]);
    FUNC_FOR_ROWS(sel, count, row) {
        const sqe_str *s = ustr(&us, row);
        const char *p = SDATA(s);
        if (s->len % 2) {
            SQE_TRY(func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                                   "invalid input length %u", s->len));
            continue;
        }
        uint32_t n = s->len / 2;
        char small[SQE_STR_INLINE];
        char *dst = n <= SQE_STR_INLINE ? small : vec_str_reserve(out, n);
        if (!dst) return func_nomem(ctx);
        int bad = -1;
        for (uint32_t i = 0; i < n && bad < 0; i++) {
            int hi = hex_digit(p[2 * i]), lo = hex_digit(p[2 * i + 1]);
            if (hi < 0) bad = (int)(2 * i);
            else if (lo < 0) bad = (int)(2 * i + 1);
            else dst[i] = (char)(hi << 4 | lo);
        }
        if (bad >= 0) {
            SQE_TRY(func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                                   "invalid hex character: %c", p[bad]));
            continue;
        }
        VEC_DATA(out, sqe_str)[row] = sqe_str_make(dst, n);
    }
    return SQE_OK;
}

/* --- base64 ----------------------------------------------------------------------------------- */

static int to_base64_common(func_ctx *ctx, const vec *const *args, const uint32_t *sel,
                            uint32_t count, vec *out, bool url) {
    vec_view ub;
    vec_view_init(&ub, args[0]);
    FUNC_FOR_ROWS(sel, count, row) {
        const sqe_str *b = ustr(&ub, row);
        size_t n = base64_encoded_len(b->len, true);
        if (n > FUNC_MAX_STRING) {
            SQE_TRY(func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                                   "base64 result is too large"));
            continue;
        }
        char small[SQE_STR_INLINE + 1];
        char *dst = n <= SQE_STR_INLINE ? small : vec_str_reserve(out, (uint32_t)n + 1);
        if (!dst) return func_nomem(ctx);
        size_t o = base64_encode((const unsigned char *)SDATA(b), b->len, url, true, dst);
        VEC_DATA(out, sqe_str)[row] = sqe_str_make(dst, (uint32_t)o);
    }
    return SQE_OK;
}

static int from_base64_common(func_ctx *ctx, const vec *const *args, const uint32_t *sel,
                              uint32_t count, vec *out, bool url) {
    vec_view us;
    vec_view_init(&us, args[0]);
    FUNC_FOR_ROWS(sel, count, row) {
        const sqe_str *s = ustr(&us, row);
        const char *p = SDATA(s);
        uint32_t len = s->len;
        while (len > 0 && p[len - 1] == '=' && s->len - len < 2) len--;
        uint32_t n = len / 4 * 3 + (len % 4 == 2 ? 1 : len % 4 == 3 ? 2 : 0);
        char small[SQE_STR_INLINE];
        char *dst = n <= SQE_STR_INLINE ? small : vec_str_reserve(out, n);
        if (!dst) return func_nomem(ctx);
        const char *bad = NULL;
        if (len % 4 == 1) bad = "Input byte array has wrong 4-byte ending unit";
        uint32_t acc = 0, bits = 0, o = 0;
        for (uint32_t i = 0; i < len && !bad; i++) {
            int v = base64_digit(p[i], url);
            if (v < 0) {
                SQE_TRY(func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                                       "Illegal base64 character %x", (unsigned char)p[i]));
                bad = "";
                break;
            }
            acc = acc << 6 | (uint32_t)v;
            bits += 6;
            if (bits >= 8) {
                bits -= 8;
                dst[o++] = (char)(acc >> bits);
                acc &= (1u << bits) - 1;
            }
        }
        if (bad) {
            if (*bad)
                SQE_TRY(func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT, "%s", bad));
            continue;
        }
        VEC_DATA(out, sqe_str)[row] = sqe_str_make(dst, o);
    }
    return SQE_OK;
}

KERNEL(to_base64_fn) { return to_base64_common(ctx, args, sel, count, out, false); }
KERNEL(to_base64url_fn) { return to_base64_common(ctx, args, sel, count, out, true); }
KERNEL(from_base64_fn) { return from_base64_common(ctx, args, sel, count, out, false); }
KERNEL(from_base64url_fn) { return from_base64_common(ctx, args, sel, count, out, true); }

/* --- digests ---------------------------------------------------------------------------------- */

static int digest_common(func_ctx *ctx, const vec *const *args, uint32_t n_args,
                         const uint32_t *sel, uint32_t count, vec *out, const EVP_MD *md,
                         bool hmac) {
    vec_view ub, uk = {0};
    vec_view_init(&ub, args[0]);
    if (hmac) vec_view_init(&uk, args[1]);
    FUNC_FOR_ROWS(sel, count, row) {
        const sqe_str *b = ustr(&ub, row);
        unsigned char digest[EVP_MAX_MD_SIZE];
        unsigned int n = 0;
        int ok;
        if (hmac) {
            const sqe_str *k = ustr(&uk, row);
            ok = HMAC(md, SDATA(k), (int)k->len, (const unsigned char *)SDATA(b), b->len, digest,
                      &n) != NULL;
        } else {
            ok = EVP_Digest(SDATA(b), b->len, digest, &n, md, NULL);
        }
        if (!ok) return err_set(ctx->err, SQE_ERR_GENERIC_INTERNAL_ERROR, "digest failed");
        SQE_TRY(func_out_str(ctx, out, row, (const char *)digest, n));
    }
    return SQE_OK;
}

KERNEL(md5_fn) { return digest_common(ctx, args, n_args, sel, count, out, EVP_md5(), false); }
KERNEL(sha1_fn) { return digest_common(ctx, args, n_args, sel, count, out, EVP_sha1(), false); }
KERNEL(sha256_fn) {
    return digest_common(ctx, args, n_args, sel, count, out, EVP_sha256(), false);
}
KERNEL(sha512_fn) {
    return digest_common(ctx, args, n_args, sel, count, out, EVP_sha512(), false);
}
KERNEL(hmac_md5_fn) { return digest_common(ctx, args, n_args, sel, count, out, EVP_md5(), true); }
KERNEL(hmac_sha1_fn) {
    return digest_common(ctx, args, n_args, sel, count, out, EVP_sha1(), true);
}
KERNEL(hmac_sha256_fn) {
    return digest_common(ctx, args, n_args, sel, count, out, EVP_sha256(), true);
}
KERNEL(hmac_sha512_fn) {
    return digest_common(ctx, args, n_args, sel, count, out, EVP_sha512(), true);
}

/* CRC-32 (IEEE 802.3, reflected, as zlib's crc32). */
static uint32_t crc_table[256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void crc_table_init(void) {
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_table[i] = c;
    }
}

static uint32_t crc32_ieee(const unsigned char *p, size_t n) {
    pthread_once(&crc_once, crc_table_init);
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) c = crc_table[(c ^ p[i]) & 0xFF] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

KERNEL(crc32_fn) {
    int64_t *r = out->data;
    vec_view ub;
    vec_view_init(&ub, args[0]);
    FUNC_FOR_ROWS(sel, count, row) {
        const sqe_str *b = ustr(&ub, row);
        r[row] = crc32_ieee((const unsigned char *)SDATA(b), b->len);
    }
    return SQE_OK;
}

/* XXH64 (xxHash specification, seed 0). */
#define XXP1 0x9E3779B185EBCA87ULL
#define XXP2 0xC2B2AE3D27D4EB4FULL
#define XXP3 0x165667B19E3779F9ULL
#define XXP4 0x85EBCA77C2B2AE63ULL
#define XXP5 0x27D4EB2F165667C5ULL

static uint64_t rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
static uint64_t read64(const unsigned char *p) {
    uint64_t v;
    memcpy(&v, p, 8);
    return v; /* little-endian host */
}
static uint32_t read32(const unsigned char *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}
static uint64_t xx_round(uint64_t acc, uint64_t input) {
    acc += input * XXP2;
    acc = rotl64(acc, 31);
    return acc * XXP1;
}
static uint64_t xx_merge(uint64_t acc, uint64_t val) {
    acc ^= xx_round(0, val);
    return acc * XXP1 + XXP4;
}

static uint64_t xxh64(const void *data, size_t len, uint64_t seed) {
    const unsigned char *p = data, *end = p + len;
    uint64_t h;
    if (len >= 32) {
        uint64_t v1 = seed + XXP1 + XXP2, v2 = seed + XXP2, v3 = seed, v4 = seed - XXP1;
        const unsigned char *limit = end - 32;
        do {
            v1 = xx_round(v1, read64(p));
            v2 = xx_round(v2, read64(p + 8));
            v3 = xx_round(v3, read64(p + 16));
            v4 = xx_round(v4, read64(p + 24));
            p += 32;
        } while (p <= limit);
        h = rotl64(v1, 1) + rotl64(v2, 7) + rotl64(v3, 12) + rotl64(v4, 18);
        h = xx_merge(h, v1);
        h = xx_merge(h, v2);
        h = xx_merge(h, v3);
        h = xx_merge(h, v4);
    } else {
        h = seed + XXP5;
    }
    h += (uint64_t)len;
    while (p + 8 <= end) {
        h ^= xx_round(0, read64(p));
        h = rotl64(h, 27) * XXP1 + XXP4;
        p += 8;
    }
    if (p + 4 <= end) {
        h ^= (uint64_t)read32(p) * XXP1;
        h = rotl64(h, 23) * XXP2 + XXP3;
        p += 4;
    }
    while (p < end) {
        h ^= (*p) * XXP5;
        h = rotl64(h, 11) * XXP1;
        p++;
    }
    h ^= h >> 33;
    h *= XXP2;
    h ^= h >> 29;
    h *= XXP3;
    h ^= h >> 32;
    return h;
}

static void put_be64(unsigned char *b, uint64_t v) {
    for (int i = 7; i >= 0; i--) {
        b[i] = (unsigned char)v;
        v >>= 8;
    }
}

KERNEL(xxhash64_fn) {
    vec_view ub;
    vec_view_init(&ub, args[0]);
    FUNC_FOR_ROWS(sel, count, row) {
        const sqe_str *b = ustr(&ub, row);
        unsigned char buf[8];
        put_be64(buf, xxh64(SDATA(b), b->len, 0));
        SQE_TRY(func_out_str(ctx, out, row, (const char *)buf, 8));
    }
    return SQE_OK;
}

/* --- big-endian encodings ----------------------------------------------------------------------- */

KERNEL(to_be64_fn) {
    vec_view ua;
    vec_view_init(&ua, args[0]);
    FUNC_FOR_ROWS(sel, count, row) {
        unsigned char buf[8];
        put_be64(buf, (uint64_t)UVAL(&ua, int64_t, row));
        SQE_TRY(func_out_str(ctx, out, row, (const char *)buf, 8));
    }
    return SQE_OK;
}

KERNEL(to_be32_fn) {
    vec_view ua;
    vec_view_init(&ua, args[0]);
    FUNC_FOR_ROWS(sel, count, row) {
        uint32_t v = (uint32_t)UVAL(&ua, int32_t, row);
        unsigned char buf[4] = {(unsigned char)(v >> 24), (unsigned char)(v >> 16),
                                (unsigned char)(v >> 8), (unsigned char)v};
        SQE_TRY(func_out_str(ctx, out, row, (const char *)buf, 4));
    }
    return SQE_OK;
}

static int from_be_common(func_ctx *ctx, const vec *const *args, const uint32_t *sel,
                          uint32_t count, vec *out, uint32_t width) {
    vec_view ub;
    vec_view_init(&ub, args[0]);
    FUNC_FOR_ROWS(sel, count, row) {
        const sqe_str *b = ustr(&ub, row);
        if (b->len != width) {
            SQE_TRY(func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                                   "expected %u-byte input, but got instead: %u", width, b->len));
            continue;
        }
        const unsigned char *p = (const unsigned char *)SDATA(b);
        uint64_t v = 0;
        for (uint32_t i = 0; i < width; i++) v = v << 8 | p[i];
        if (width == 8) VEC_DATA(out, int64_t)[row] = (int64_t)v;
        else VEC_DATA(out, int32_t)[row] = (int32_t)(uint32_t)v;
    }
    return SQE_OK;
}
KERNEL(from_be64_fn) { return from_be_common(ctx, args, sel, count, out, 8); }
KERNEL(from_be32_fn) { return from_be_common(ctx, args, sel, count, out, 4); }

/* --- luhn_check ------------------------------------------------------------------------------- */

KERNEL(luhn_check_fn) {
    uint8_t *r = out->data;
    vec_view us;
    vec_view_init(&us, args[0]);
    FUNC_FOR_ROWS(sel, count, row) {
        const sqe_str *s = ustr(&us, row);
        const char *p = SDATA(s);
        bool bad = false;
        uint32_t sum = 0;
        for (uint32_t k = 0; k < s->len; k++) {
            char c = p[s->len - 1 - k];
            if (c < '0' || c > '9') {
                bad = true;
                break;
            }
            uint32_t d = (uint32_t)(c - '0');
            if (k % 2 == 1) {
                d *= 2;
                if (d > 9) d -= 9;
            }
            sum += d;
        }
        if (bad) {
            SQE_TRY(func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                                   "Input for luhn_check must contain only digits: '%.*s'",
                                   (int)(s->len > 64 ? 64 : s->len), p));
            continue;
        }
        r[row] = s->len > 0 && sum % 10 == 0;
    }
    return SQE_OK;
}

/* --- The table ------------------------------------------------------------------------------ */

#define NP FUNC_NULL_PROPAGATES
#define VB "varbinary"

static const func_scalar_def binary_defs[] = {
    {"to_utf8", "varchar", VB, NULL, NULL, to_utf8_fn, NP, "UTF-8 bytes of a string"},
    {"from_utf8", VB, "varchar", NULL, NULL, from_utf8_fn, NP,
     "decodes UTF-8, replacing invalid sequences with U+FFFD"},
    {"from_utf8", VB ",varchar", "varchar", NULL, NULL, from_utf8_fn, NP,
     "decodes UTF-8, replacing invalid sequences"},
    {"from_utf8", VB ",bigint", "varchar", NULL, NULL, from_utf8_fn, NP,
     "decodes UTF-8, replacing invalid sequences by a code point"},
    {"to_hex", VB, "varchar", NULL, NULL, to_hex_fn, NP, "hex encoding (upper case)"},
    {"from_hex", "varchar", VB, NULL, NULL, from_hex_fn, NP, "decodes hex"},
    {"to_base64", VB, "varchar", NULL, NULL, to_base64_fn, NP, "base64 encoding"},
    {"from_base64", "varchar", VB, NULL, NULL, from_base64_fn, NP, "decodes base64"},
    {"from_base64", VB, VB, NULL, NULL, from_base64_fn, NP, "decodes base64"},
    {"to_base64url", VB, "varchar", NULL, NULL, to_base64url_fn, NP,
     "base64 encoding with the URL-safe alphabet"},
    {"from_base64url", "varchar", VB, NULL, NULL, from_base64url_fn, NP,
     "decodes base64 with the URL-safe alphabet"},
    {"from_base64url", VB, VB, NULL, NULL, from_base64url_fn, NP,
     "decodes base64 with the URL-safe alphabet"},
    {"md5", VB, VB, NULL, NULL, md5_fn, NP, "MD5 digest"},
    {"sha1", VB, VB, NULL, NULL, sha1_fn, NP, "SHA-1 digest"},
    {"sha256", VB, VB, NULL, NULL, sha256_fn, NP, "SHA-256 digest"},
    {"sha512", VB, VB, NULL, NULL, sha512_fn, NP, "SHA-512 digest"},
    {"hmac_md5", VB "," VB, VB, NULL, NULL, hmac_md5_fn, NP, "HMAC-MD5 of data with key"},
    {"hmac_sha1", VB "," VB, VB, NULL, NULL, hmac_sha1_fn, NP, "HMAC-SHA1 of data with key"},
    {"hmac_sha256", VB "," VB, VB, NULL, NULL, hmac_sha256_fn, NP,
     "HMAC-SHA256 of data with key"},
    {"hmac_sha512", VB "," VB, VB, NULL, NULL, hmac_sha512_fn, NP,
     "HMAC-SHA512 of data with key"},
    {"crc32", VB, "bigint", NULL, NULL, crc32_fn, NP, "CRC-32 checksum"},
    {"xxhash64", VB, VB, NULL, NULL, xxhash64_fn, NP, "XXH64 hash (8 bytes, big-endian)"},
    {"to_big_endian_64", "bigint", VB, NULL, NULL, to_be64_fn, NP,
     "8-byte big-endian two's complement"},
    {"from_big_endian_64", VB, "bigint", NULL, NULL, from_be64_fn, NP,
     "bigint from 8 big-endian bytes"},
    {"to_big_endian_32", "integer", VB, NULL, NULL, to_be32_fn, NP,
     "4-byte big-endian two's complement"},
    {"from_big_endian_32", VB, "integer", NULL, NULL, from_be32_fn, NP,
     "integer from 4 big-endian bytes"},
    {"luhn_check", "varchar", "boolean", NULL, NULL, luhn_check_fn, NP,
     "is a string of digits valid per the Luhn algorithm"},
};

const func_scalar_def *func_string_binary_defs(uint32_t *count) {
    *count = FUNC_N(binary_defs);
    return binary_defs;
}
