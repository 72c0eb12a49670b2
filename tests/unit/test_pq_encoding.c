/*
 * test_pq_encoding.c: unit tests of the Parquet value and level decoders
 * (src/format/parquet/pq_rle.c, pq_delta.c, pq_plain.c): the worked examples of Encodings.md,
 * round trips against small encoders written here (RLE/bit-packed hybrid at every bit width,
 * DELTA_BINARY_PACKED with widths up to 64, the delta byte-array forms, BYTE_STREAM_SPLIT), and
 * hostile inputs (truncation at every byte, huge runs, bad widths, negative lengths, random bytes)
 * that must give INVALID_FILE or correct values, never a sanitizer report.
 *
 * Benchmark: SQE_PQ_BENCH=1 unit_pq_encoding prints decode speeds (RLE width 17, delta int64).
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "format/parquet/pq_encoding.h"

/* --- helpers ------------------------------------------------------------------------------- */

static uint64_t g_rng = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void) { /* xorshift64* */
    g_rng ^= g_rng >> 12;
    g_rng ^= g_rng << 25;
    g_rng ^= g_rng >> 27;
    return g_rng * 2685821657736338717ull;
}

typedef struct bytebuf {
    uint8_t *p;
    size_t len, cap;
} bytebuf;

static void bb_put(bytebuf *b, uint8_t v) {
    if (b->len == b->cap) {
        b->cap = b->cap ? b->cap * 2 : 256;
        b->p = realloc(b->p, b->cap);
        assert_non_null(b->p);
    }
    b->p[b->len++] = v;
}
static void bb_uleb(bytebuf *b, uint64_t v) {
    while (v >= 0x80) {
        bb_put(b, (uint8_t)(v | 0x80));
        v >>= 7;
    }
    bb_put(b, (uint8_t)v);
}
static void bb_zigzag(bytebuf *b, int64_t v) { bb_uleb(b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63)); }
/* Packs n values LSB-first at width w (n multiple of 8 gives whole bytes). */
static void bb_pack(bytebuf *b, const uint64_t *v, size_t n, int w) {
    unsigned __int128 acc = 0;
    int bits = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t x = w == 64 ? v[i] : (v[i] & ((1ull << w) - 1));
        acc |= (unsigned __int128)x << bits;
        bits += w;
        while (bits >= 8) {
            bb_put(b, (uint8_t)acc);
            acc >>= 8;
            bits -= 8;
        }
    }
    if (bits) bb_put(b, (uint8_t)acc);
}

/* RLE/bit-packed hybrid encoder: RLE runs for >= 8 repeats, else bit-packed groups. */
static void rle_encode(bytebuf *b, const uint32_t *v, size_t n, int w) {
    size_t i = 0;
    while (i < n) {
        size_t r = 1;
        while (i + r < n && v[i + r] == v[i]) r++;
        if (r >= 8) {
            bb_uleb(b, (uint64_t)r << 1);
            for (int k = 0; k < (w + 7) / 8; k++) bb_put(b, (uint8_t)(v[i] >> (8 * k)));
            i += r;
            continue;
        }
        size_t j = i; /* collect up to 63 groups, stopping before a long run */
        while (j < n && j - i < 63 * 8) {
            size_t rr = 1;
            while (j + rr < n && v[j + rr] == v[j]) rr++;
            if (rr >= 8 && (j - i) % 8 == 0 && j > i) break;
            j++;
        }
        size_t cnt = j - i, groups = (cnt + 7) / 8;
        uint64_t tmp[63 * 8] = {0};
        for (size_t k = 0; k < cnt; k++) tmp[k] = v[i + k];
        bb_uleb(b, (uint64_t)groups << 1 | 1);
        bb_pack(b, tmp, groups * 8, w);
        i = j;
    }
}

/* DELTA_BINARY_PACKED encoder; garbage != 0 fills unused width bytes of the last block. */
static void delta_encode(bytebuf *b, const int64_t *v, size_t n, uint64_t block, uint64_t n_mb,
                         int garbage) {
    bb_uleb(b, block);
    bb_uleb(b, n_mb);
    bb_uleb(b, n);
    bb_zigzag(b, n ? v[0] : 0);
    uint64_t mb = block / n_mb;
    for (size_t start = 1; start < n; start += block) {
        size_t cnt = n - start < block ? n - start : block;
        int64_t min = INT64_MAX;
        for (size_t k = 0; k < cnt; k++) {
            int64_t d = (int64_t)((uint64_t)v[start + k] - (uint64_t)v[start + k - 1]);
            if (d < min) min = d;
        }
        bb_zigzag(b, min);
        uint64_t rel[1 << 12];
        int widths[64];
        size_t used = (cnt + mb - 1) / mb;
        for (uint64_t m = 0; m < n_mb; m++) {
            int w = 0;
            for (size_t k = m * mb; k < (m + 1) * mb && k < cnt; k++) {
                uint64_t r = (uint64_t)v[start + k] - (uint64_t)v[start + k - 1] - (uint64_t)min;
                rel[k] = r;
                while (w < 64 && (r >> w) != 0) w++;
            }
            widths[m] = w;
            bb_put(b, m < used ? (uint8_t)w : (uint8_t)(garbage ? rnd() : 0));
        }
        for (size_t m = 0; m < used; m++) {
            uint64_t tmp[1 << 12] = {0};
            for (size_t k = 0; k < mb && m * mb + k < cnt; k++) tmp[k] = rel[m * mb + k];
            bb_pack(b, tmp, mb, widths[m]);
        }
    }
}

static void delta_lengths_then(bytebuf *b, const char **s, size_t n) {
    int64_t *l = calloc(n + 1, sizeof *l);
    for (size_t i = 0; i < n; i++) l[i] = (int64_t)strlen(s[i]);
    delta_encode(b, l, n, 128, 4, 0);
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; s[i][k]; k++) bb_put(b, (uint8_t)s[i][k]);
    free(l);
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* --- RLE ------------------------------------------------------------------------------------ */

static void test_rle_spec_examples(void **state) {
    (void)state;
    /* Encodings.md: 0..7 at bit width 3 bit-packed = 10001000 11000110 11111010. */
    const uint8_t hybrid[] = {0x03, 0x88, 0xC6, 0xFA};
    pq_rle_decoder d;
    uint32_t out[8];
    assert_int_equal(pq_rle_init(&d, hybrid, sizeof hybrid, 3, NULL), SQE_OK);
    assert_int_equal(pq_rle_get_exact(&d, out, 8, NULL), SQE_OK);
    for (uint32_t i = 0; i < 8; i++) assert_int_equal(out[i], i);
    assert_int_equal(pq_rle_get_batch(&d, out, 1), 0);
    assert_int_equal(d.status, SQE_OK);
    /* Deprecated BIT_PACKED: same values = 00000101 00111001 01110111. */
    const uint8_t legacy[] = {0x05, 0x39, 0x77};
    pq_bitpacked_legacy_decoder l;
    assert_int_equal(pq_bitpacked_legacy_size(8, 3), 3);
    assert_int_equal(pq_bitpacked_legacy_init(&l, legacy, 3, 3, NULL), SQE_OK);
    assert_int_equal(pq_bitpacked_legacy_get(&l, out, 5, NULL), SQE_OK);
    assert_int_equal(pq_bitpacked_legacy_get(&l, out + 5, 3, NULL), SQE_OK);
    for (uint32_t i = 0; i < 8; i++) assert_int_equal(out[i], i);
    assert_int_not_equal(pq_bitpacked_legacy_get(&l, out, 1, NULL), SQE_OK);
    /* RLE run of 5 x 1 at width 1, then 4-byte prefixed form. */
    const uint8_t pref[] = {2, 0, 0, 0, 0x0A, 0x01, 0xEE};
    size_t used;
    assert_int_equal(pq_rle_init_prefixed(&d, pref, sizeof pref, 1, &used, NULL), SQE_OK);
    assert_int_equal(used, 6);
    assert_int_equal(pq_rle_get_exact(&d, out, 5, NULL), SQE_OK);
    for (int i = 0; i < 5; i++) assert_int_equal(out[i], 1);
    assert_int_not_equal(pq_rle_get_exact(&d, out, 1, NULL), SQE_OK);
    const uint8_t badpref[] = {9, 0, 0, 0, 0x0A};
    sqe_error e;
    assert_int_equal(pq_rle_init_prefixed(&d, badpref, sizeof badpref, 1, &used, &e),
                     SQE_ERR_INVALID_FILE);
    assert_non_null(strstr(e.message, "Invalid Parquet page"));
}

static void test_rle_roundtrip_all_widths(void **state) {
    (void)state;
    enum { N = 5000 };
    uint32_t *v = malloc(N * sizeof *v), *got = malloc((N + 16) * sizeof *got);
    for (int w = 0; w <= 32; w++) {
        for (int rep = 0; rep < 4; rep++) {
            uint64_t mask = w == 32 ? 0xffffffffull : ((1ull << w) - 1);
            for (size_t i = 0; i < N;) { /* mix runs and noise */
                size_t r = rnd() % 3 == 0 ? 1 + rnd() % 40 : 1;
                uint32_t x = (uint32_t)(rnd() & mask);
                for (size_t k = 0; k < r && i < N; k++) v[i++] = x;
            }
            size_t n = rep == 3 ? N - (rnd() % 13) : N;
            bytebuf b = {0};
            rle_encode(&b, v, n, w);
            pq_rle_decoder d;
            assert_int_equal(pq_rle_init(&d, b.p, b.len, w, NULL), SQE_OK);
            size_t pos = 0;
            while (pos < n) {
                uint32_t k = (uint32_t)(1 + rnd() % (rep == 0 ? 7 : 300));
                if (k > n - pos) k = (uint32_t)(n - pos);
                assert_int_equal(pq_rle_get_exact(&d, got + pos, k, NULL), SQE_OK);
                pos += k;
            }
            assert_memory_equal(got, v, n * sizeof *v);
            /* truncation at every byte: error or (only padding lost) the right values */
            for (size_t cut = 0; cut < b.len && cut < 600; cut++) {
                assert_int_equal(pq_rle_init(&d, b.p, cut, w, NULL), SQE_OK);
                sqe_error e;
                if (pq_rle_get_exact(&d, got, (uint32_t)n, &e) == SQE_OK)
                    assert_memory_equal(got, v, n * sizeof *v);
                else
                    assert_int_equal(e.code, SQE_ERR_INVALID_FILE);
            }
            free(b.p);
        }
    }
    free(v);
    free(got);
}

static void test_unpack_direct(void **state) {
    (void)state;
    uint64_t v[64], got64[64];
    uint32_t got32[64];
    for (int w = 0; w <= 64; w++) {
        for (int i = 0; i < 64; i++) v[i] = w == 64 ? rnd() : (rnd() & ((1ull << w) - 1));
        bytebuf b = {0};
        bb_pack(&b, v, 64, w);
        for (uint32_t n = 0; n <= 64; n += 3) {
            size_t need = ((size_t)n * w + 7) / 8; /* exact-size copy: ASan catches overreads */
            uint8_t *exact = malloc(need ? need : 1);
            if (need) memcpy(exact, b.p, need);
            pq_unpack64(exact, need, w, got64, n);
            for (uint32_t i = 0; i < n; i++) assert_true(got64[i] == v[i]);
            if (w <= 32) {
                pq_unpack32(exact, need, w, got32, n);
                for (uint32_t i = 0; i < n; i++) assert_true(got32[i] == (uint32_t)v[i]);
            }
            free(exact);
        }
        free(b.p);
    }
}

static void test_rle_hostile(void **state) {
    (void)state;
    pq_rle_decoder d;
    sqe_error e;
    uint32_t out[1000];
    assert_int_equal(pq_rle_init(&d, NULL, 0, 33, &e), SQE_ERR_INVALID_FILE);
    assert_int_equal(pq_rle_init(&d, NULL, 0, -1, &e), SQE_ERR_INVALID_FILE);
    /* huge RLE run (2^31 - 1 values): pulled in pieces, never expanded */
    const uint8_t huge[] = {0xFE, 0xFF, 0xFF, 0xFF, 0x0F, 0x05};
    assert_int_equal(pq_rle_init(&d, huge, sizeof huge, 3, NULL), SQE_OK);
    for (int r = 0; r < 3; r++) {
        assert_int_equal(pq_rle_get_exact(&d, out, 1000, NULL), SQE_OK);
        assert_int_equal(out[999], 5);
    }
    /* huge bit-packed run with 2 bytes of data: only the bytes present are decoded */
    const uint8_t hugebp[] = {0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 0xAB, 0xCD};
    assert_int_equal(pq_rle_init(&d, hugebp, sizeof hugebp, 8, NULL), SQE_OK);
    assert_int_equal(pq_rle_get_batch(&d, out, 1000), 2);
    /* RLE value wider than the width, header longer than 5 bytes, truncated value */
    const uint8_t wide[] = {0x10, 0x09};
    assert_int_equal(pq_rle_init(&d, wide, 2, 3, NULL), SQE_OK);
    assert_int_equal(pq_rle_get_exact(&d, out, 8, &e), SQE_ERR_INVALID_FILE);
    const uint8_t longh[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x01, 0x00};
    assert_int_equal(pq_rle_init(&d, longh, sizeof longh, 3, NULL), SQE_OK);
    assert_int_equal(pq_rle_get_exact(&d, out, 1, &e), SQE_ERR_INVALID_FILE);
    const uint8_t truncv[] = {0x10, 0x01};
    assert_int_equal(pq_rle_init(&d, truncv, 2, 17, NULL), SQE_OK);
    assert_int_equal(pq_rle_get_exact(&d, out, 1, &e), SQE_ERR_INVALID_FILE);
    /* dictionary index bound */
    const uint8_t idx[] = {0x10, 0x07};
    assert_int_equal(pq_rle_init(&d, idx, 2, 3, NULL), SQE_OK);
    assert_int_equal(pq_rle_get_indices(&d, out, 8, 7, &e), SQE_ERR_INVALID_FILE);
    /* random bytes at random widths */
    for (int it = 0; it < 3000; it++) {
        size_t len = rnd() % 64;
        uint8_t *p = malloc(len ? len : 1);
        for (size_t i = 0; i < len; i++) p[i] = (uint8_t)rnd();
        assert_int_equal(pq_rle_init(&d, p, len, (int)(rnd() % 33), NULL), SQE_OK);
        (void)pq_rle_get_batch(&d, out, (uint32_t)(rnd() % 1000));
        (void)pq_rle_get_batch(&d, out, 1000);
        free(p);
    }
}

/* --- DELTA ---------------------------------------------------------------------------------- */

static void test_delta_spec_examples(void **state) {
    (void)state;
    /* Example 1: 1..5, deltas all 1: min delta 1, width 0, no miniblock data. */
    const uint8_t ex1[] = {0x80, 0x01, 0x04, 0x05, 0x02, 0x02, 0, 0, 0, 0};
    pq_delta_decoder d;
    int64_t out[8];
    assert_int_equal(pq_delta_init(&d, ex1, sizeof ex1, NULL), SQE_OK);
    assert_int_equal(pq_delta_count(&d), 5);
    assert_int_equal(pq_delta_get_int64(&d, out, 5, NULL), SQE_OK);
    for (int i = 0; i < 5; i++) assert_int_equal(out[i], i + 1);
    assert_int_equal(pq_delta_consumed(&d, ex1), sizeof ex1);
    assert_int_not_equal(pq_delta_get_int64(&d, out, 1, NULL), SQE_OK);
    /* Example 2: 7,5,3,1,2,3,4,5: min delta -3, relative 1,1,1,4,4,4,4 at width 3. */
    bytebuf b = {0};
    const uint8_t head[] = {0x80, 0x01, 0x04, 0x08, 0x0E, 0x05, 3, 0, 0, 0};
    for (size_t i = 0; i < sizeof head; i++) bb_put(&b, head[i]);
    uint64_t rel[32] = {1, 1, 1, 4, 4, 4, 4};
    bb_pack(&b, rel, 32, 3);
    assert_int_equal(b.len, sizeof head + 12);
    int32_t o32[8];
    const int32_t want[] = {7, 5, 3, 1, 2, 3, 4, 5};
    assert_int_equal(pq_delta_init(&d, b.p, b.len, NULL), SQE_OK);
    assert_int_equal(pq_delta_get_int32(&d, o32, 3, NULL), SQE_OK);
    assert_int_equal(pq_delta_get_int32(&d, o32 + 3, 5, NULL), SQE_OK);
    assert_memory_equal(o32, want, sizeof want);
    assert_int_equal(pq_delta_consumed(&d, b.p), b.len);
    free(b.p);
}

static void test_delta_roundtrip(void **state) {
    (void)state;
    enum { N = 3000 };
    int64_t *v = malloc(N * sizeof *v), *got = malloc(N * sizeof *got);
    int32_t *g32 = malloc(N * sizeof *g32);
    const uint64_t shapes[][2] = {{128, 4}, {128, 1}, {256, 8}, {1024, 32}, {128, 2}};
    for (int s = 0; s < 5; s++) {
        for (int range = 0; range <= 64; range += 4) {
            size_t n = (size_t)(rnd() % N);
            int64_t x = (int64_t)rnd();
            for (size_t i = 0; i < n; i++) {
                uint64_t step = range == 64 ? rnd() : (rnd() & ((1ull << range) - 1));
                x = (int64_t)((uint64_t)x + step - (range ? (1ull << (range - 1)) : 0));
                v[i] = x;
            }
            bytebuf b = {0};
            delta_encode(&b, v, n, shapes[s][0], shapes[s][1], 1);
            pq_delta_decoder d;
            assert_int_equal(pq_delta_init(&d, b.p, b.len, NULL), SQE_OK);
            assert_int_equal(pq_delta_count(&d), n);
            for (size_t pos = 0; pos < n;) {
                uint32_t k = (uint32_t)(1 + rnd() % 100);
                if (k > n - pos) k = (uint32_t)(n - pos);
                assert_int_equal(pq_delta_get_int64(&d, got + pos, k, NULL), SQE_OK);
                pos += k;
            }
            assert_memory_equal(got, v, n * sizeof *v);
            assert_int_equal(pq_delta_consumed(&d, b.p), b.len);
            assert_int_equal(pq_delta_init(&d, b.p, b.len, NULL), SQE_OK);
            assert_int_equal(pq_delta_get_int32(&d, g32, (uint32_t)n, NULL), SQE_OK);
            for (size_t i = 0; i < n; i++) assert_int_equal(g32[i], (int32_t)v[i]);
            for (size_t cut = 0; cut < b.len && cut < 400; cut++) {
                sqe_error e;
                int rc = pq_delta_init(&d, b.p, cut, &e);
                if (rc == SQE_OK) rc = pq_delta_get_int64(&d, got, (uint32_t)n, &e);
                if (rc == SQE_OK && n > 0)
                    assert_memory_equal(got, v, n * sizeof *v);
                else if (rc != SQE_OK)
                    assert_int_equal(e.code, SQE_ERR_INVALID_FILE);
            }
            free(b.p);
        }
    }
    free(v);
    free(got);
    free(g32);
}

static void test_delta_hostile(void **state) {
    (void)state;
    pq_delta_decoder d;
    sqe_error e;
    int64_t out[300];
    const uint8_t badblock[] = {0x81, 0x01, 0x04, 0x05, 0x02};
    assert_int_equal(pq_delta_init(&d, badblock, sizeof badblock, &e), SQE_ERR_INVALID_FILE);
    const uint8_t badmb[] = {0x80, 0x01, 0x03, 0x05, 0x02};
    assert_int_equal(pq_delta_init(&d, badmb, sizeof badmb, &e), SQE_ERR_INVALID_FILE);
    const uint8_t zeromb[] = {0x80, 0x01, 0x00, 0x05, 0x02};
    assert_int_equal(pq_delta_init(&d, zeromb, sizeof zeromb, &e), SQE_ERR_INVALID_FILE);
    const uint8_t w65[] = {0x80, 0x01, 0x04, 0x05, 0x02, 0x02, 65, 0, 0, 0};
    assert_int_equal(pq_delta_init(&d, w65, sizeof w65, NULL), SQE_OK);
    assert_int_equal(pq_delta_get_int64(&d, out, 5, &e), SQE_ERR_INVALID_FILE);
    assert_non_null(strstr(e.message, "above 64"));
    const uint8_t longv[] = {0x80, 0x01, 0x04, 0x05, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                             0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01};
    assert_int_equal(pq_delta_init(&d, longv, sizeof longv, &e), SQE_ERR_INVALID_FILE);
    /* a huge count with width-0 miniblocks is fine to stream, but refused by byte arrays */
    const uint8_t hugecount[] = {0x80, 0x01, 0x04, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 0x00,
                                 0x00, 0, 0, 0, 0, 0x00, 0, 0, 0, 0, 0x00, 0, 0, 0, 0};
    assert_int_equal(pq_delta_init(&d, hugecount, sizeof hugecount, NULL), SQE_OK);
    assert_int_equal(pq_delta_get_int64(&d, out, 256, NULL), SQE_OK);
    assert_int_equal(pq_delta_get_int64(&d, out, 200, &e), SQE_ERR_INVALID_FILE);
    arena a;
    arena_init(&a, NULL);
    pq_dlba_decoder l;
    assert_int_equal(pq_dlba_init(&l, hugecount, sizeof hugecount, 1000, &a, &e),
                     SQE_ERR_INVALID_FILE);
    /* random bytes */
    for (int it = 0; it < 3000; it++) {
        size_t len = rnd() % 80;
        uint8_t *p = malloc(len ? len : 1);
        for (size_t i = 0; i < len; i++) p[i] = (uint8_t)rnd();
        if (len > 3 && rnd() % 2) { p[0] = 0x80; p[1] = 0x01; p[2] = 0x04; }
        if (pq_delta_init(&d, p, len, NULL) == SQE_OK) {
            (void)pq_delta_get_int64(&d, out, (uint32_t)(rnd() % 300), NULL);
        }
        pq_dba_decoder db;
        if (pq_dba_init(&db, p, len, 64, &a, NULL) == SQE_OK) {
            pq_bytes bo[64];
            (void)pq_dba_get(&db, bo, (uint32_t)(rnd() % 64), NULL);
        }
        free(p);
    }
    arena_destroy(&a);
}

static void test_delta_byte_arrays(void **state) {
    (void)state;
    arena a;
    arena_init(&a, NULL);
    sqe_error e;
    /* DELTA_LENGTH_BYTE_ARRAY: Hello World Foobar ABCDEF (Encodings.md example) */
    const char *words[] = {"Hello", "World", "Foobar", "ABCDEF"};
    bytebuf b = {0};
    delta_lengths_then(&b, words, 4);
    pq_dlba_decoder l;
    pq_bytes out[8];
    assert_int_equal(pq_dlba_init(&l, b.p, b.len, 4, &a, NULL), SQE_OK);
    assert_int_equal(pq_dlba_get(&l, out, 1, NULL), SQE_OK);
    assert_int_equal(pq_dlba_get(&l, out + 1, 3, NULL), SQE_OK);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(out[i].len, strlen(words[i]));
        assert_memory_equal(out[i].ptr, words[i], out[i].len);
    }
    assert_int_equal(pq_dlba_get(&l, out, 1, &e), SQE_ERR_INVALID_FILE);
    assert_int_equal(pq_dlba_init(&l, b.p, b.len - 1, 4, &a, &e), SQE_ERR_INVALID_FILE);
    free(b.p);
    /* DELTA_BYTE_ARRAY: axis axle babble babyhood = prefixes 0 2 0 3, suffixes axis le babble yhood */
    b = (bytebuf){0};
    const int64_t pre[] = {0, 2, 0, 3};
    const char *suf[] = {"axis", "le", "babble", "yhood"};
    const char *want[] = {"axis", "axle", "babble", "babyhood"};
    delta_encode(&b, pre, 4, 128, 4, 0);
    delta_lengths_then(&b, suf, 4);
    pq_dba_decoder db;
    assert_int_equal(pq_dba_init(&db, b.p, b.len, 4, &a, NULL), SQE_OK);
    assert_int_equal(pq_dba_get(&db, out, 2, NULL), SQE_OK);
    assert_int_equal(pq_dba_get(&db, out + 2, 2, NULL), SQE_OK);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(out[i].len, strlen(want[i]));
        assert_memory_equal(out[i].ptr, want[i], out[i].len);
    }
    for (size_t cut = 0; cut < b.len; cut++) {
        int rc = pq_dba_init(&db, b.p, cut, 4, &a, &e);
        if (rc == SQE_OK) rc = pq_dba_get(&db, out, 4, &e);
        assert_int_equal(rc, SQE_ERR_INVALID_FILE);
    }
    free(b.p);
    /* prefix longer than the previous value; negative suffix length */
    b = (bytebuf){0};
    const int64_t badpre[] = {0, 9};
    const char *two[] = {"ab", "c"};
    delta_encode(&b, badpre, 2, 128, 4, 0);
    delta_lengths_then(&b, two, 2);
    assert_int_equal(pq_dba_init(&db, b.p, b.len, 2, &a, NULL), SQE_OK);
    assert_int_equal(pq_dba_get(&db, out, 2, &e), SQE_ERR_INVALID_FILE);
    free(b.p);
    b = (bytebuf){0};
    const int64_t neg[] = {3, -1};
    delta_encode(&b, neg, 2, 128, 4, 0);
    bb_put(&b, 'x');
    bb_put(&b, 'y');
    bb_put(&b, 'z');
    assert_int_equal(pq_dlba_init(&l, b.p, b.len, 2, &a, &e), SQE_ERR_INVALID_FILE);
    assert_non_null(strstr(e.message, "negative"));
    free(b.p);
    arena_destroy(&a);
}

/* --- PLAIN and BYTE_STREAM_SPLIT -------------------------------------------------------------- */

static void test_plain(void **state) {
    (void)state;
    pq_plain_decoder d;
    sqe_error e;
    const uint8_t bools[] = {0xA5, 0x03}; /* 1,0,1,0,0,1,0,1, 1,1 */
    const uint8_t want[] = {1, 0, 1, 0, 0, 1, 0, 1, 1, 1, 0};
    uint8_t bo[16];
    pq_plain_init(&d, bools, 2);
    assert_int_equal(pq_plain_get_bool(&d, bo, 3, NULL), SQE_OK);
    assert_int_equal(pq_plain_get_bool(&d, bo + 3, 8, NULL), SQE_OK);
    assert_memory_equal(bo, want, 11);
    assert_int_equal(pq_plain_get_bool(&d, bo, 6, &e), SQE_ERR_INVALID_FILE);
    assert_int_equal(pq_plain_get_bool(&d, bo, 5, NULL), SQE_OK);

    const int32_t i32[] = {1, -2, 3};
    int32_t o32[3];
    pq_plain_init(&d, (const uint8_t *)i32, sizeof i32);
    assert_int_equal(pq_plain_get_int32(&d, o32, 3, NULL), SQE_OK);
    assert_memory_equal(o32, i32, sizeof i32);
    pq_plain_init(&d, (const uint8_t *)i32, sizeof i32 - 1);
    assert_int_equal(pq_plain_get_int32(&d, o32, 3, &e), SQE_ERR_INVALID_FILE);
    const double dv[] = {1.5, -0.25};
    double od[2];
    pq_plain_init(&d, (const uint8_t *)dv, sizeof dv);
    assert_int_equal(pq_plain_get_double(&d, od, 2, NULL), SQE_OK);
    assert_memory_equal(od, dv, sizeof dv);

    const uint8_t ba[] = {3, 0, 0, 0, 'a', 'b', 'c', 0, 0, 0, 0, 1, 0, 0, 0, 'z'};
    pq_bytes bs[3];
    pq_plain_init(&d, ba, sizeof ba);
    assert_int_equal(pq_plain_get_byte_array(&d, bs, 3, NULL), SQE_OK);
    assert_int_equal(bs[0].len, 3);
    assert_memory_equal(bs[0].ptr, "abc", 3);
    assert_int_equal(bs[1].len, 0);
    assert_int_equal(bs[2].len, 1);
    for (size_t cut = 0; cut < sizeof ba; cut++) {
        pq_plain_init(&d, ba, cut);
        assert_int_equal(pq_plain_get_byte_array(&d, bs, 3, &e), SQE_ERR_INVALID_FILE);
        assert_ptr_equal(d.pos, ba); /* nothing consumed */
    }
    const uint8_t neg[] = {0xFF, 0xFF, 0xFF, 0xFF, 'x'};
    pq_plain_init(&d, neg, sizeof neg);
    assert_int_equal(pq_plain_get_byte_array(&d, bs, 1, &e), SQE_ERR_INVALID_FILE);
    pq_plain_init(&d, ba, 6);
    assert_int_equal(pq_plain_get_flba(&d, 3, bs, 2, NULL), SQE_OK);
    assert_memory_equal(bs[1].ptr, "\0ab", 3); /* bytes 3..5 */
    pq_plain_init(&d, ba, 6);
    assert_int_equal(pq_plain_get_flba(&d, 0, bs, 1, &e), SQE_ERR_INVALID_FILE);
    assert_int_equal(pq_plain_get_flba(&d, 4, bs, 2, &e), SQE_ERR_INVALID_FILE);
    uint8_t i96[24];
    pq_plain_init(&d, ba, 12);
    assert_int_equal(pq_plain_get_int96(&d, i96, 1, NULL), SQE_OK);
    assert_int_equal(pq_plain_get_int96(&d, i96, 1, &e), SQE_ERR_INVALID_FILE);
}

static void make_int96(uint8_t *b, int64_t nanos, uint32_t jd) {
    memcpy(b, &nanos, 8);
    memcpy(b + 8, &jd, 4);
}

static void test_int96(void **state) {
    (void)state;
    uint8_t b[12];
    int64_t us;
    make_int96(b, 0, 2440588);
    assert_int_equal(pq_int96_to_micros(b, &us, NULL), SQE_OK);
    assert_int_equal(us, 0);
    make_int96(b, 1500, 2440589);
    assert_int_equal(pq_int96_to_micros(b, &us, NULL), SQE_OK);
    assert_int_equal(us, 86400000001LL);
    make_int96(b, 43200000000000LL, 2440587); /* 1969-12-31 12:00 */
    assert_int_equal(pq_int96_to_micros(b, &us, NULL), SQE_OK);
    assert_int_equal(us, -43200000000LL);
    make_int96(b, -1, 2440588);
    assert_int_equal(pq_int96_to_micros(b, &us, NULL), SQE_OK);
    assert_int_equal(us, -1);
    make_int96(b, INT64_MAX, 0xFFFFFFFFu);
    sqe_error e;
    assert_int_equal(pq_int96_to_micros(b, &us, &e), SQE_ERR_INVALID_FILE);
}

static void test_byte_stream_split(void **state) {
    (void)state;
    const uint32_t widths[] = {4, 8, 3, 16};
    for (int wi = 0; wi < 4; wi++) {
        uint32_t w = widths[wi];
        size_t n = 37;
        uint8_t *vals = malloc(n * w), *enc = malloc(n * w), *got = malloc(n * w);
        for (size_t i = 0; i < n * w; i++) vals[i] = (uint8_t)rnd();
        for (size_t i = 0; i < n; i++)
            for (uint32_t k = 0; k < w; k++) enc[k * n + i] = vals[i * w + k];
        pq_bss_decoder d;
        assert_int_equal(pq_bss_init(&d, enc, n * w, w, NULL), SQE_OK);
        assert_int_equal(pq_bss_get(&d, got, 10, NULL), SQE_OK);
        assert_int_equal(pq_bss_get(&d, got + 10 * w, 27, NULL), SQE_OK);
        assert_memory_equal(got, vals, n * w);
        sqe_error e;
        assert_int_equal(pq_bss_get(&d, got, 1, &e), SQE_ERR_INVALID_FILE);
        assert_int_equal(pq_bss_init(&d, enc, n * w - 1, w, &e), SQE_ERR_INVALID_FILE);
        free(vals);
        free(enc);
        free(got);
    }
    const float f[] = {1.0f, -2.5f};
    uint8_t enc[8];
    const uint8_t *fb = (const uint8_t *)f;
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < 4; k++) enc[k * 2 + i] = fb[i * 4 + k];
    float fo[2];
    pq_bss_decoder d;
    assert_int_equal(pq_bss_init(&d, enc, 8, 4, NULL), SQE_OK);
    assert_int_equal(pq_bss_get(&d, fo, 2, NULL), SQE_OK);
    assert_memory_equal(fo, f, sizeof f);
}

/* --- benchmark ------------------------------------------------------------------------------ */

static void bench(void) {
    enum { N = 1 << 22, B = 1024 };
    uint32_t *v = malloc(N * sizeof *v), *out = malloc(B * sizeof *out);
    for (size_t i = 0; i < N; i++) v[i] = (uint32_t)(rnd() & 0x1ffff);
    bytebuf b = {0};
    rle_encode(&b, v, N, 17);
    double t0 = now_s(), total = 0;
    for (int rep = 0; rep < 10; rep++) {
        pq_rle_decoder d;
        pq_rle_init(&d, b.p, b.len, 17, NULL);
        for (size_t i = 0; i < N; i += B) pq_rle_get_exact(&d, out, B, NULL);
        total += N;
    }
    printf("RLE/bit-packed width 17: %.0f M values/s\n", total / (now_s() - t0) / 1e6);
    free(b.p);
    int64_t *dv = malloc(N * sizeof *dv), *dout = malloc(B * sizeof *dout);
    int64_t x = 0;
    for (size_t i = 0; i < N; i++) dv[i] = x += (int64_t)(rnd() % 100000) - 30000;
    b = (bytebuf){0};
    delta_encode(&b, dv, N, 128, 4, 0);
    t0 = now_s();
    total = 0;
    for (int rep = 0; rep < 10; rep++) {
        pq_delta_decoder d;
        pq_delta_init(&d, b.p, b.len, NULL);
        for (size_t i = 0; i < N; i += B) pq_delta_get_int64(&d, dout, B, NULL);
        total += N;
    }
    printf("DELTA_BINARY_PACKED int64 (~17-bit deltas): %.0f M values/s\n",
           total / (now_s() - t0) / 1e6);
    free(b.p);
    free(v);
    free(out);
    free(dv);
    free(dout);
}

int main(void) {
    if (getenv("SQE_PQ_BENCH")) {
        bench();
        return 0;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rle_spec_examples),   cmocka_unit_test(test_unpack_direct),
        cmocka_unit_test(test_rle_roundtrip_all_widths), cmocka_unit_test(test_rle_hostile),
        cmocka_unit_test(test_delta_spec_examples), cmocka_unit_test(test_delta_roundtrip),
        cmocka_unit_test(test_delta_hostile),       cmocka_unit_test(test_delta_byte_arrays),
        cmocka_unit_test(test_plain),               cmocka_unit_test(test_int96),
        cmocka_unit_test(test_byte_stream_split),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
