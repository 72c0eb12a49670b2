/*
 * test_pq_codec.c: unit tests of Parquet page (de)compression (src/format/parquet/pq_codec.c):
 * round trips of every supported codec over random and repetitive data of 0, 1, 1000 and 1 MiB
 * bytes, exact-size checks (claims one byte short or long), concatenated gzip members and zlib
 * streams, the deprecated Hadoop-framed LZ4 (frames built here) with its raw-block fallback,
 * LZO / unknown codecs, compression levels, CRC-32 of page bodies, and hostile inputs (random
 * bytes, every truncation and bit flip of small compressed buffers) that must give errors,
 * never crashes or sanitizer reports.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <lz4.h>
#include <zlib.h>

#include "format/parquet/pq_codec.h"

/* --- helpers ------------------------------------------------------------------------------- */

static const int k_codecs[] = {PQ_CODEC_UNCOMPRESSED, PQ_CODEC_SNAPPY, PQ_CODEC_GZIP,
                               PQ_CODEC_BROTLI,       PQ_CODEC_ZSTD,   PQ_CODEC_LZ4_RAW};
#define N_CODECS (sizeof k_codecs / sizeof k_codecs[0])

static uint64_t g_rng = 0x9E3779B97F4A7C15ull;

static uint64_t rng_next(void) {
    /* xorshift64* */
    g_rng ^= g_rng >> 12;
    g_rng ^= g_rng << 25;
    g_rng ^= g_rng >> 27;
    return g_rng * 0x2545F4914F6CDD1Dull;
}

/* kind 0: random bytes; kind 1: repetitive text with occasional variation. */
static uint8_t *make_data(size_t n, int kind) {
    uint8_t *p = malloc(n ? n : 1);
    assert_non_null(p);
    static const char pat[] = "parquet page 0123456789 abcdefghijklmnopqrstuvwxyz ";
    for (size_t i = 0; i < n; i++) {
        if (kind == 0)
            p[i] = (uint8_t)rng_next();
        else
            p[i] = (i % 997 == 13) ? (uint8_t)rng_next() : (uint8_t)pat[i % (sizeof pat - 1)];
    }
    return p;
}

static void check_err(int rc, const sqe_error *err, int code, const char *needle) {
    assert_int_equal(rc, code);
    assert_int_equal(err->code, code);
    if (needle && !strstr(err->message, needle))
        fail_msg("message '%s' lacks '%s'", err->message, needle);
}

static void roundtrip(int codec, const uint8_t *data, size_t n) {
    sqe_error err;
    uint8_t *comp = NULL;
    size_t comp_len = 0;
    assert_int_equal(pq_compress(codec, data, n, &comp, &comp_len, PQ_LEVEL_DEFAULT, &err), SQE_OK);
    assert_non_null(comp);

    uint8_t *out = malloc(n + 1);
    assert_non_null(out);
    assert_int_equal(pq_decompress(codec, comp, comp_len, out, n, &err), SQE_OK);
    assert_memory_equal(out, data, n);

    /* The header's uncompressed size claims one byte more: too little data. */
    memset(&err, 0, sizeof err);
    check_err(pq_decompress(codec, comp, comp_len, out, n + 1, &err), &err, SQE_ERR_INVALID_FILE,
              codec == PQ_CODEC_LZ4_RAW ? "Invalid Parquet page" : "does not match");
    /* One byte less: too much data. */
    if (n > 0) {
        memset(&err, 0, sizeof err);
        check_err(pq_decompress(codec, comp, comp_len, out, n - 1, &err), &err,
                  SQE_ERR_INVALID_FILE, "does not match");
    }
    free(out);
    free(comp);
}

/* --- round trips --------------------------------------------------------------------------- */

static void test_roundtrip_all(void **state) {
    (void)state;
    static const size_t sizes[] = {0, 1, 1000, 1u << 20};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        for (int kind = 0; kind < 2; kind++) {
            uint8_t *data = make_data(sizes[s], kind);
            for (size_t c = 0; c < N_CODECS; c++) roundtrip(k_codecs[c], data, sizes[s]);
            free(data);
        }
    }
}

static void test_levels(void **state) {
    (void)state;
    uint8_t *data = make_data(5000, 1);
    static const struct { int codec, level; } ok[] = {
        {PQ_CODEC_GZIP, 1}, {PQ_CODEC_GZIP, 9}, {PQ_CODEC_ZSTD, 1}, {PQ_CODEC_ZSTD, 19},
        {PQ_CODEC_ZSTD, -5}, {PQ_CODEC_BROTLI, 1}, {PQ_CODEC_BROTLI, 11}, {PQ_CODEC_SNAPPY, 42},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        sqe_error err;
        uint8_t *comp = NULL, out[5000];
        size_t comp_len = 0;
        assert_int_equal(pq_compress(ok[i].codec, data, 5000, &comp, &comp_len, ok[i].level, &err),
                         SQE_OK);
        assert_int_equal(pq_decompress(ok[i].codec, comp, comp_len, out, 5000, &err), SQE_OK);
        assert_memory_equal(out, data, 5000);
        free(comp);
    }
    static const struct { int codec, level; } bad[] = {
        {PQ_CODEC_GZIP, 10}, {PQ_CODEC_GZIP, -1}, {PQ_CODEC_ZSTD, 1000}, {PQ_CODEC_BROTLI, 12},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sqe_error err;
        uint8_t *comp = (uint8_t *)1;
        size_t comp_len = 7;
        check_err(pq_compress(bad[i].codec, data, 5000, &comp, &comp_len, bad[i].level, &err), &err,
                  SQE_ERR_INVALID_ARGUMENTS, "level");
        assert_null(comp);
        assert_int_equal(comp_len, 0);
    }
    free(data);
}

/* --- GZIP specifics ------------------------------------------------------------------------ */

static void test_gzip_concatenated_and_zlib(void **state) {
    (void)state;
    sqe_error err;
    uint8_t *data = make_data(30000, 1);
    uint8_t *a = NULL, *b = NULL, *c = NULL;
    size_t la = 0, lb = 0, lc = 0;
    assert_int_equal(pq_compress(PQ_CODEC_GZIP, data, 10000, &a, &la, 0, &err), SQE_OK);
    assert_int_equal(pq_compress(PQ_CODEC_GZIP, data + 10000, 15000, &b, &lb, 1, &err), SQE_OK);
    assert_int_equal(pq_compress(PQ_CODEC_GZIP, data + 25000, 5000, &c, &lc, 9, &err), SQE_OK);
    uint8_t *cat = malloc(la + lb + lc + 3);
    memcpy(cat, a, la);
    memcpy(cat + la, b, lb);
    memcpy(cat + la + lb, c, lc);
    uint8_t *out = malloc(30001);
    assert_int_equal(pq_decompress(PQ_CODEC_GZIP, cat, la + lb + lc, out, 30000, &err), SQE_OK);
    assert_memory_equal(out, data, 30000);
    check_err(pq_decompress(PQ_CODEC_GZIP, cat, la + lb + lc, out, 30001, &err), &err,
              SQE_ERR_INVALID_FILE, "decompressed size 30000 does not match");
    check_err(pq_decompress(PQ_CODEC_GZIP, cat, la + lb + lc, out, 29999, &err), &err,
              SQE_ERR_INVALID_FILE, "does not match");
    /* Trailing garbage after the last member. */
    memcpy(cat + la + lb + lc, "xyz", 3);
    check_err(pq_decompress(PQ_CODEC_GZIP, cat, la + lb + lc + 3, out, 30000, &err), &err,
              SQE_ERR_INVALID_FILE, "GZIP");

    /* A zlib (RFC 1950) stream is accepted as well. */
    uLongf zl = compressBound(30000);
    uint8_t *z = malloc(zl);
    assert_int_equal(compress2(z, &zl, data, 30000, 6), Z_OK);
    assert_int_equal(pq_decompress(PQ_CODEC_GZIP, z, zl, out, 30000, &err), SQE_OK);
    assert_memory_equal(out, data, 30000);
    free(z);
    free(out);
    free(cat);
    free(a);
    free(b);
    free(c);
    free(data);
}

/* --- deprecated LZ4 ------------------------------------------------------------------------ */

static void put_be32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* Builds Hadoop LZ4 framing of data[0..n) cut into frames of at most `chunk` bytes. */
static uint8_t *hadoop_frame(const uint8_t *data, size_t n, size_t chunk, size_t *len) {
    size_t cap = 16, used = 0;
    for (size_t off = 0; off < n; off += chunk) cap += 8 + (size_t)LZ4_compressBound((int)chunk);
    uint8_t *buf = malloc(cap);
    assert_non_null(buf);
    for (size_t off = 0; off < n; off += chunk) {
        size_t u = n - off < chunk ? n - off : chunk;
        int c = LZ4_compress_default((const char *)data + off, (char *)buf + used + 8, (int)u,
                                     (int)(cap - used - 8));
        assert_true(c > 0);
        put_be32(buf + used, (uint32_t)u);
        put_be32(buf + used + 4, (uint32_t)c);
        used += 8 + (size_t)c;
    }
    *len = used;
    return buf;
}

static void test_lz4_hadoop(void **state) {
    (void)state;
    sqe_error err;
    const size_t n = 100000;
    uint8_t *data = make_data(n, 1);
    uint8_t *out = malloc(n + 1);
    static const size_t chunks[] = {n, 30000, 4096};
    for (size_t i = 0; i < 3; i++) {
        size_t len = 0;
        uint8_t *framed = hadoop_frame(data, n, chunks[i], &len);
        memset(out, 0, n);
        assert_int_equal(pq_decompress(PQ_CODEC_LZ4, framed, len, out, n, &err), SQE_OK);
        assert_memory_equal(out, data, n);
        check_err(pq_decompress(PQ_CODEC_LZ4, framed, len, out, n + 1, &err), &err,
                  SQE_ERR_INVALID_FILE, "Invalid Parquet page");
        check_err(pq_decompress(PQ_CODEC_LZ4, framed, len, out, n - 1, &err), &err,
                  SQE_ERR_INVALID_FILE, "Invalid Parquet page");
        /* A frame claiming a wrong uncompressed size is not Hadoop; the raw fallback fails. */
        put_be32(framed, (uint32_t)chunks[i] - 1);
        check_err(pq_decompress(PQ_CODEC_LZ4, framed, len, out, n, &err), &err,
                  SQE_ERR_INVALID_FILE, "LZ4");
        /* A compressed length past the end of the buffer. */
        put_be32(framed, (uint32_t)chunks[i]);
        put_be32(framed + 4, 0xFFFFFFF0u);
        check_err(pq_decompress(PQ_CODEC_LZ4, framed, len, out, n, &err), &err,
                  SQE_ERR_INVALID_FILE, "LZ4");
        free(framed);
    }
    /* Fallback: a raw LZ4 block (older parquet-cpp) under the LZ4 id. */
    uint8_t *raw = NULL;
    size_t raw_len = 0;
    assert_int_equal(pq_compress(PQ_CODEC_LZ4_RAW, data, n, &raw, &raw_len, 0, &err), SQE_OK);
    assert_int_equal(pq_decompress(PQ_CODEC_LZ4, raw, raw_len, out, n, &err), SQE_OK);
    assert_memory_equal(out, data, n);
    free(raw);
    /* Writing the deprecated codec is refused. */
    uint8_t *comp = NULL;
    size_t comp_len = 0;
    check_err(pq_compress(PQ_CODEC_LZ4, data, n, &comp, &comp_len, 0, &err), &err,
              SQE_ERR_NOT_SUPPORTED, "LZ4");
    free(out);
    free(data);
}

/* --- unsupported codecs, sizes, NULLs ------------------------------------------------------ */

static void test_unsupported(void **state) {
    (void)state;
    sqe_error err;
    uint8_t in[4] = {1, 2, 3, 4}, out[4];
    check_err(pq_decompress(PQ_CODEC_LZO, in, 4, out, 4, &err), &err, SQE_ERR_NOT_SUPPORTED,
              "unsupported: Parquet compression codec LZO");
    check_err(pq_decompress(8, in, 4, out, 4, &err), &err, SQE_ERR_NOT_SUPPORTED, "unsupported");
    check_err(pq_decompress(-1, in, 4, out, 4, &err), &err, SQE_ERR_NOT_SUPPORTED, "unsupported");
    check_err(pq_decompress(PQ_CODEC_LZO, NULL, 0, NULL, 0, &err), &err, SQE_ERR_NOT_SUPPORTED,
              "LZO");
    uint8_t *comp = NULL;
    size_t comp_len = 0;
    check_err(pq_compress(PQ_CODEC_LZO, in, 4, &comp, &comp_len, 0, &err), &err,
              SQE_ERR_NOT_SUPPORTED, "LZO");
    assert_int_equal(pq_compress(1234, in, 4, &comp, &comp_len, 0, NULL), SQE_ERR_NOT_SUPPORTED);
    assert_string_equal(pq_codec_name(PQ_CODEC_ZSTD), "ZSTD");
    assert_string_equal(pq_codec_name(77), "UNKNOWN");
}

static void test_exact_sizes(void **state) {
    (void)state;
    sqe_error err;
    uint8_t in[8] = {1, 2, 3, 4, 5, 6, 7, 8}, out[16];
    assert_int_equal(pq_decompress(PQ_CODEC_UNCOMPRESSED, in, 8, out, 8, &err), SQE_OK);
    assert_memory_equal(in, out, 8);
    check_err(pq_decompress(PQ_CODEC_UNCOMPRESSED, in, 8, out, 9, &err), &err,
              SQE_ERR_INVALID_FILE, "decompressed size 8 does not match the page header's "
                                    "uncompressed size 9");
    check_err(pq_decompress(PQ_CODEC_UNCOMPRESSED, in, 8, out, 7, &err), &err,
              SQE_ERR_INVALID_FILE, "does not match");
    /* Empty page with empty body: fine for every codec; empty body with a size: an error. */
    for (size_t c = 0; c < N_CODECS; c++) {
        assert_int_equal(pq_decompress(k_codecs[c], NULL, 0, NULL, 0, &err), SQE_OK);
        check_err(pq_decompress(k_codecs[c], NULL, 0, out, 5, &err), &err, SQE_ERR_INVALID_FILE,
                  "Invalid Parquet page");
    }
    assert_int_equal(pq_decompress(PQ_CODEC_LZ4, NULL, 0, NULL, 0, &err), SQE_OK);
    /* Snappy's preamble claims a size different from the header's. */
    uint8_t *comp = NULL;
    size_t comp_len = 0;
    assert_int_equal(pq_compress(PQ_CODEC_SNAPPY, in, 8, &comp, &comp_len, 0, &err), SQE_OK);
    check_err(pq_decompress(PQ_CODEC_SNAPPY, comp, comp_len, out, 16, &err), &err,
              SQE_ERR_INVALID_FILE, "decompressed size 8 does not match");
    free(comp);
    /* NULL output with a size is refused, not dereferenced. */
    assert_int_not_equal(pq_decompress(PQ_CODEC_UNCOMPRESSED, in, 8, NULL, 8, &err), SQE_OK);
    /* Compressing an empty input gives a non-NULL buffer that decodes to nothing. */
    for (size_t c = 0; c < N_CODECS; c++) {
        assert_int_equal(pq_compress(k_codecs[c], NULL, 0, &comp, &comp_len, 0, &err), SQE_OK);
        assert_non_null(comp);
        assert_int_equal(pq_decompress(k_codecs[c], comp, comp_len, out, 0, &err), SQE_OK);
        free(comp);
    }
}

/* --- hostile inputs ------------------------------------------------------------------------ */

static const int k_read_codecs[] = {PQ_CODEC_SNAPPY, PQ_CODEC_GZIP,   PQ_CODEC_BROTLI,
                                    PQ_CODEC_LZ4,    PQ_CODEC_ZSTD,   PQ_CODEC_LZ4_RAW};

static void test_random_bytes(void **state) {
    (void)state;
    uint8_t in[512], out[4096];
    int errors = 0, runs = 0;
    for (int iter = 0; iter < 2000; iter++) {
        size_t in_len = (size_t)(rng_next() % sizeof in);
        size_t out_len = (size_t)(rng_next() % sizeof out);
        for (size_t i = 0; i < in_len; i++) in[i] = (uint8_t)rng_next();
        for (size_t c = 0; c < sizeof k_read_codecs / sizeof k_read_codecs[0]; c++) {
            /* Every other round starts with a plausible header, to get past the magic checks. */
            int codec = k_read_codecs[c];
            if (iter % 2 == 1 && in_len >= 8) {
                static const uint8_t gz[4] = {0x1f, 0x8b, 0x08, 0x00};
                static const uint8_t zs[4] = {0x28, 0xb5, 0x2f, 0xfd};
                if (codec == PQ_CODEC_GZIP) memcpy(in, gz, 4);
                if (codec == PQ_CODEC_ZSTD) memcpy(in, zs, 4);
                if (codec == PQ_CODEC_SNAPPY) { /* varint preamble = out_len */
                    in[0] = (uint8_t)(0x80 | (out_len & 0x7f));
                    in[1] = (uint8_t)(out_len >> 7);
                }
                if (codec == PQ_CODEC_LZ4) { /* one Hadoop frame covering the buffer */
                    put_be32(in, (uint32_t)out_len);
                    put_be32(in + 4, (uint32_t)(in_len - 8));
                }
            }
            sqe_error err;
            int rc = pq_decompress(codec, in, in_len, out, out_len, &err);
            assert_true(rc == SQE_OK || rc == SQE_ERR_INVALID_FILE);
            errors += rc != SQE_OK;
            runs++;
        }
    }
    assert_true(errors > runs * 9 / 10);
}

/* A compressed buffer for codec (as the reader sees it; LZ4 gets Hadoop framing). */
static uint8_t *compressed_for(int codec, const uint8_t *data, size_t n, size_t *len) {
    if (codec == PQ_CODEC_LZ4) return hadoop_frame(data, n, 300, len);
    sqe_error err;
    uint8_t *comp = NULL;
    assert_int_equal(pq_compress(codec, data, n, &comp, len, 0, &err), SQE_OK);
    return comp;
}

static void test_truncations_and_flips(void **state) {
    (void)state;
    const size_t n = 1000;
    uint8_t *data = make_data(n, 1);
    uint8_t out[1000];
    for (size_t c = 0; c < sizeof k_read_codecs / sizeof k_read_codecs[0]; c++) {
        int codec = k_read_codecs[c];
        size_t len = 0;
        uint8_t *comp = compressed_for(codec, data, n, &len);
        for (size_t cut = 0; cut < len; cut++) {
            /* Copy the prefix into an exact-size heap buffer so ASan sees any over-read. */
            uint8_t *prefix = malloc(cut ? cut : 1);
            memcpy(prefix, comp, cut);
            sqe_error err;
            int rc = pq_decompress(codec, prefix, cut, out, n, &err);
            if (rc != SQE_ERR_INVALID_FILE)
                fail_msg("codec %s truncated at %zu/%zu: rc %d", pq_codec_name(codec), cut, len,
                         rc);
            free(prefix);
        }
        uint8_t *copy = malloc(len);
        for (size_t pos = 0; pos < len; pos++) {
            for (int bit = 0; bit < 8; bit += 3) {
                memcpy(copy, comp, len);
                copy[pos] ^= (uint8_t)(1u << bit);
                sqe_error err;
                int rc = pq_decompress(codec, copy, len, out, n, &err);
                assert_true(rc == SQE_OK || rc == SQE_ERR_INVALID_FILE);
            }
        }
        free(copy);
        free(comp);
    }
    free(data);
}

/* --- CRC ----------------------------------------------------------------------------------- */

static void test_crc(void **state) {
    (void)state;
    sqe_error err;
    const uint8_t *check = (const uint8_t *)"123456789";
    assert_int_equal(pq_crc32(check, 9), 0xCBF43926u);
    assert_int_equal(pq_crc32(NULL, 0), 0);
    assert_int_equal(pq_check_page_crc(true, (int32_t)0xCBF43926u, check, 9, &err), SQE_OK);
    assert_int_equal(pq_check_page_crc(false, 0, check, 9, &err), SQE_OK);
    check_err(pq_check_page_crc(true, (int32_t)0xCBF43927u, check, 9, &err), &err,
              SQE_ERR_INVALID_FILE, "Invalid Parquet page: CRC mismatch");
    check_err(pq_check_page_crc(true, 1, NULL, 0, &err), &err, SQE_ERR_INVALID_FILE,
              "CRC mismatch");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip_all),
        cmocka_unit_test(test_levels),
        cmocka_unit_test(test_gzip_concatenated_and_zlib),
        cmocka_unit_test(test_lz4_hadoop),
        cmocka_unit_test(test_unsupported),
        cmocka_unit_test(test_exact_sizes),
        cmocka_unit_test(test_random_bytes),
        cmocka_unit_test(test_truncations_and_flips),
        cmocka_unit_test(test_crc),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
