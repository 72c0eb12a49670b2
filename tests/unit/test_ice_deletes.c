/*
 * test_ice_deletes.c: unit tests of Iceberg row-level deletes: the 64-bit Roaring bitmap
 * (against a naive sorted set, random data with positions beyond 2^32, dense ranges that
 * become bitmap and run containers, seek, portable round trips), hostile Roaring and DV input
 * (every truncation, every bit flip: INVALID_FILE, never a crash), Puffin round trips (codecs,
 * compressed footers, properties) and damaged Puffin files, the delete writers (position
 * delete Parquet read back by field id, DV Puffin files) and the delete index (sequence-number
 * and partition rules, DVs replacing position files, equality deletes with NULL = NULL and
 * integer widening, the survivor selection, concurrent loading from threads).
 * Interop with pyroaring and pyiceberg: tests/iceberg/run_deletes_tests.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <pthread.h>

#include "common/arena.h"
#include "common/err.h"
#include "format/parquet/pq_reader.h"
#include "format/parquet/pq_writer.h"
#include "iceberg/delete_index.h"
#include "iceberg/delete_write.h"
#include "iceberg/puffin.h"
#include "iceberg/roaring.h"
#include "io/io.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static uint64_t rnd(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Sorts and dedups v[0..n); returns the new length. */
static size_t uniq(uint64_t *v, size_t n) {
    qsort(v, n, sizeof *v, cmp_u64);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (m == 0 || v[m - 1] != v[i]) v[m++] = v[i];
    return m;
}

static char tmpdir[256];

static const char *tpath(const char *name) {
    static char buf[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", tmpdir, name);
    return buf[k];
}

static void check_equal(const ice_roaring *r, const uint64_t *v, size_t n) {
    assert_int_equal(ice_roaring_cardinality(r), n);
    ice_roaring_iter it;
    ice_roaring_iter_init(&it, r);
    uint64_t buf[77];
    size_t at = 0;
    uint32_t got;
    while ((got = ice_roaring_iter_next(&it, buf, 77)) > 0) {
        for (uint32_t i = 0; i < got; i++) {
            assert_true(at < n);
            assert_int_equal(buf[i], v[at]);
            at++;
        }
    }
    assert_int_equal(at, n);
    if (n) assert_int_equal(ice_roaring_max(r), v[n - 1]);
}

/* Random positions: sparse values, values beyond 2^32, dense blocks and long runs. */
static size_t make_positions(uint64_t *v, size_t cap) {
    size_t n = 0;
    for (int i = 0; i < 3000 && n < cap; i++) v[n++] = rnd() % 5000000;
    for (int i = 0; i < 1000 && n < cap; i++) v[n++] = (rnd() % 7 + 1) * ((uint64_t)1 << 32) + rnd() % 200000;
    uint64_t base = 3 * 65536;
    for (int i = 0; i < 20000 && n < cap; i++) v[n++] = base + rnd() % 65536; /* bitmap container */
    base = (uint64_t)9 << 32 | 0x50000;
    for (uint64_t i = 0; i < 70000 && n < cap; i++) v[n++] = base + i;        /* runs */
    v[n++] = 0;
    v[n++] = UINT64_MAX;
    v[n++] = ((uint64_t)1 << 63) - 1;
    return n;
}

static void test_roaring_vs_naive(void **state) {
    (void)state;
    size_t cap = 200000;
    uint64_t *v = malloc(cap * sizeof *v);
    size_t n = make_positions(v, cap - 8);
    uint64_t *shuffled = malloc(n * sizeof *v);
    memcpy(shuffled, v, n * sizeof *v);
    for (size_t i = n; i > 1; i--) {
        size_t j = rnd() % i;
        uint64_t t = shuffled[i - 1];
        shuffled[i - 1] = shuffled[j];
        shuffled[j] = t;
    }
    ice_roaring r;
    ice_roaring_init(&r);
    for (size_t i = 0; i < n; i++) assert_int_equal(ice_roaring_add(&r, shuffled[i], NULL), SQE_OK);
    for (size_t i = 0; i < n / 3; i++) assert_int_equal(ice_roaring_add(&r, shuffled[i], NULL), SQE_OK);
    size_t m = uniq(v, n);
    check_equal(&r, v, m);
    /* contains: members and random probes against binary search in the naive set */
    for (size_t i = 0; i < m; i += 7) assert_true(ice_roaring_contains(&r, v[i]));
    for (int i = 0; i < 200000; i++) {
        uint64_t p = i % 2 ? rnd() % 6000000 : rnd();
        bool naive = bsearch(&p, v, m, sizeof *v, cmp_u64) != NULL;
        assert_int_equal(ice_roaring_contains(&r, p), naive);
    }
    /* seek: first value >= p */
    for (int i = 0; i < 2000; i++) {
        uint64_t p = i % 3 ? rnd() % ((uint64_t)10 << 32) : rnd();
        size_t lo = 0, hi = m;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (v[mid] < p) lo = mid + 1;
            else hi = mid;
        }
        ice_roaring_iter it;
        ice_roaring_iter_init(&it, &r);
        ice_roaring_iter_seek(&it, p);
        uint64_t out[3];
        uint32_t got = ice_roaring_iter_next(&it, out, 3);
        assert_int_equal(got, m - lo < 3 ? m - lo : 3);
        for (uint32_t k = 0; k < got; k++) assert_int_equal(out[k], v[lo + k]);
    }
    /* portable round trip, and the copy serializes to the same bytes */
    size_t len = ice_roaring_portable_size(&r);
    uint8_t *buf = malloc(len);
    ice_roaring_portable_write(&r, buf);
    ice_roaring r2;
    ice_roaring_init(&r2);
    size_t used = 0;
    sqe_error err;
    assert_int_equal(ice_roaring_portable_read(&r2, buf, len, &used, &err), SQE_OK);
    assert_int_equal(used, len);
    check_equal(&r2, v, m);
    assert_int_equal(ice_roaring_portable_size(&r2), len);
    uint8_t *buf2 = malloc(len);
    ice_roaring_portable_write(&r2, buf2);
    assert_memory_equal(buf, buf2, len);
    /* runs made the dense part small: 70000 consecutive values cost far less than 2 bytes each */
    assert_true(len < 2 * m);
    /* add_all */
    ice_roaring r3;
    ice_roaring_init(&r3);
    assert_int_equal(ice_roaring_add(&r3, 42, NULL), SQE_OK);
    assert_int_equal(ice_roaring_add_all(&r3, &r2, NULL), SQE_OK);
    assert_int_equal(ice_roaring_cardinality(&r3), m + (bsearch(&(uint64_t){42}, v, m, 8, cmp_u64) ? 0 : 1));
    ice_roaring_reset(&r);
    ice_roaring_reset(&r2);
    ice_roaring_reset(&r3);
    free(buf);
    free(buf2);
    free(v);
    free(shuffled);
}

static void test_roaring_small_cases(void **state) {
    (void)state;
    ice_roaring r;
    ice_roaring_init(&r);
    /* empty */
    size_t len = ice_roaring_portable_size(&r);
    assert_int_equal(len, 8);
    uint8_t b[8];
    ice_roaring_portable_write(&r, b);
    ice_roaring r2;
    ice_roaring_init(&r2);
    assert_int_equal(ice_roaring_portable_read(&r2, b, 8, NULL, NULL), SQE_OK);
    assert_int_equal(ice_roaring_cardinality(&r2), 0);
    /* 4096 -> 4097 values converts array to bitmap; remains correct */
    for (uint64_t i = 0; i < 4097; i++) assert_int_equal(ice_roaring_add(&r, i * 3 % 65536, NULL), SQE_OK);
    assert_int_equal(ice_roaring_cardinality(&r), 4097);
    for (uint64_t i = 0; i < 4097; i++) assert_true(ice_roaring_contains(&r, i * 3 % 65536));
    assert_false(ice_roaring_contains(&r, 1));
    ice_roaring_reset(&r);
    /* A hand-written CRoaring-style bitmap with empty buckets (as Iceberg Java writes):
     * 3 buckets, keys 0 (empty), 1 ({5}), 2 (empty). */
    uint8_t hand[] = {3, 0, 0, 0, 0, 0, 0, 0,
                      0, 0, 0, 0, 0x3a, 0x30, 0, 0, 0, 0, 0, 0,
                      1, 0, 0, 0, 0x3a, 0x30, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 16, 0, 0, 0, 5, 0,
                      2, 0, 0, 0, 0x3a, 0x30, 0, 0, 0, 0, 0, 0};
    assert_int_equal(ice_roaring_portable_read(&r2, hand, sizeof hand, NULL, NULL), SQE_OK);
    assert_int_equal(ice_roaring_cardinality(&r2), 1);
    assert_true(ice_roaring_contains(&r2, ((uint64_t)1 << 32) + 5));
    ice_roaring_reset(&r2);
    /* run container read: cookie 12347, one container, runs {10..14, 20} */
    uint8_t run[] = {1, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0,
                     0x3b, 0x30, 0, 0, 1, 0, 0, 5, 0, 2, 0, 10, 0, 4, 0, 20, 0, 0, 0};
    assert_int_equal(ice_roaring_portable_read(&r2, run, sizeof run, NULL, NULL), SQE_OK);
    uint64_t expect[6];
    for (int i = 0; i < 5; i++) expect[i] = ((uint64_t)7 << 32) + 10 + (uint64_t)i;
    expect[5] = ((uint64_t)7 << 32) + 20;
    check_equal(&r2, expect, 6);
    /* adding to a run container turns it into an array */
    assert_int_equal(ice_roaring_add(&r2, ((uint64_t)7 << 32) + 15, NULL), SQE_OK);
    assert_true(ice_roaring_contains(&r2, ((uint64_t)7 << 32) + 15));
    assert_int_equal(ice_roaring_cardinality(&r2), 7);
    ice_roaring_reset(&r2);
}

static ice_roaring sample_bitmap(void) {
    ice_roaring r;
    ice_roaring_init(&r);
    for (uint64_t i = 0; i < 300; i++) ice_roaring_add(&r, i * 17, NULL);
    for (uint64_t i = 0; i < 5000; i++) ice_roaring_add(&r, 100000 + i * 2, NULL);
    for (uint64_t i = 0; i < 3000; i++) ice_roaring_add(&r, 400000 + i, NULL);
    ice_roaring_add(&r, (uint64_t)5 << 32, NULL);
    return r;
}

static void test_roaring_hostile(void **state) {
    (void)state;
    ice_roaring r = sample_bitmap();
    size_t len = ice_roaring_portable_size(&r);
    uint8_t *buf = malloc(len);
    ice_roaring_portable_write(&r, buf);
    ice_roaring x;
    ice_roaring_init(&x);
    sqe_error err;
    /* every truncation fails cleanly */
    for (size_t l = 0; l < len; l++) {
        int rc = ice_roaring_portable_read(&x, buf, l, NULL, &err);
        assert_int_equal(rc, SQE_ERR_INVALID_FILE);
        assert_int_equal(ice_roaring_cardinality(&x), 0);
        assert_non_null(strstr(err.message, "Invalid Roaring bitmap"));
    }
    /* every bit flip: an error, or a valid bitmap (never a crash or a leak) */
    size_t errors = 0;
    for (size_t i = 0; i < len; i++) {
        for (int bit = 0; bit < 8; bit += (i < 200 ? 1 : 3)) {
            buf[i] ^= (uint8_t)(1u << bit);
            int rc = ice_roaring_portable_read(&x, buf, len, NULL, &err);
            assert_true(rc == SQE_OK || rc == SQE_ERR_INVALID_FILE);
            if (rc) errors++;
            ice_roaring_reset(&x);
            buf[i] ^= (uint8_t)(1u << bit);
        }
    }
    assert_true(errors > 0);
    /* hostile counts */
    uint8_t huge[16] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    assert_int_equal(ice_roaring_portable_read(&x, huge, 16, NULL, &err), SQE_ERR_INVALID_FILE);
    uint8_t bad_cookie[20] = {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x11, 0x22, 0, 0};
    assert_int_equal(ice_roaring_portable_read(&x, bad_cookie, 20, NULL, &err), SQE_ERR_INVALID_FILE);
    /* many containers claimed, few bytes */
    uint8_t many[20] = {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x3a, 0x30, 0, 0, 0, 0, 1, 0};
    assert_int_equal(ice_roaring_portable_read(&x, many, 20, NULL, &err), SQE_ERR_INVALID_FILE);
    ice_roaring_reset(&r);
    free(buf);
}

static void test_dv_blob(void **state) {
    (void)state;
    ice_roaring r = sample_bitmap();
    uint8_t *blob;
    size_t len;
    assert_int_equal(ice_dv_encode(&r, &blob, &len, NULL), SQE_OK);
    /* framing: big-endian length of magic + vector, magic D1 D3 39 64 */
    assert_int_equal(((uint32_t)blob[0] << 24 | blob[1] << 16 | blob[2] << 8 | blob[3]), len - 8);
    assert_int_equal(blob[4], 0xD1);
    assert_int_equal(blob[7], 0x64);
    ice_roaring x;
    ice_roaring_init(&x);
    sqe_error err;
    assert_int_equal(ice_dv_decode(blob, len, "t", &x, &err), SQE_OK);
    assert_int_equal(ice_roaring_cardinality(&x), ice_roaring_cardinality(&r));
    assert_true(ice_roaring_contains(&x, (uint64_t)5 << 32));
    ice_roaring_reset(&x);
    /* every truncation and every single bit flip is INVALID_FILE (length, magic or CRC) */
    for (size_t l = 0; l < len; l++)
        assert_int_equal(ice_dv_decode(blob, l, "t", &x, &err), SQE_ERR_INVALID_FILE);
    for (size_t i = 0; i < len; i += (i < 64 ? 1 : 5)) {
        for (int bit = 0; bit < 8; bit++) {
            blob[i] ^= (uint8_t)(1u << bit);
            assert_int_equal(ice_dv_decode(blob, len, "t", &x, &err), SQE_ERR_INVALID_FILE);
            assert_int_equal(ice_roaring_cardinality(&x), 0);
            blob[i] ^= (uint8_t)(1u << bit);
        }
    }
    free(blob);
    /* positions >= 2^63 cannot be written */
    ice_roaring big;
    ice_roaring_init(&big);
    ice_roaring_add(&big, (uint64_t)1 << 63, NULL);
    assert_int_equal(ice_dv_encode(&big, &blob, &len, &err), SQE_ERR_INVALID_ARGUMENTS);
    ice_roaring_reset(&big);
    ice_roaring_reset(&r);
}

static void write_bytes(const char *path, const uint8_t *p, size_t n) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(p, 1, n, f), n);
    fclose(f);
}

static void test_puffin_round_trip(void **state) {
    (void)state;
    for (int compress = 0; compress < 2; compress++) {
        ice_puffin_writer w;
        ice_puffin_writer_init(&w);
        uint8_t data[3][5000];
        for (int b = 0; b < 3; b++)
            for (int i = 0; i < 5000; i++) data[b][i] = (uint8_t)(b == 0 ? rnd() : (uint64_t)(i / 50 + b));
        const char *codecs[3] = {NULL, "lz4", "zstd"};
        int64_t off[3], len[3];
        int32_t fields[2] = {1, 7};
        ice_kv kv[1] = {{"ndv", "42"}};
        ice_kv_list props = {1, kv};
        for (int b = 0; b < 3; b++)
            assert_int_equal(ice_puffin_writer_add(&w, "apache-datasketches-theta-v1", fields, 2,
                                                   1234, 5, codecs[b], b == 1 ? &props : NULL,
                                                   data[b], 5000, &off[b], &len[b], NULL),
                             SQE_OK);
        assert_int_equal(off[0], 4);
        assert_true(len[2] < 5000); /* compressible data compressed */
        uint8_t *bytes;
        size_t n;
        assert_int_equal(ice_puffin_writer_finish(&w, NULL, compress, &bytes, &n, NULL), SQE_OK);
        ice_puffin_writer_reset(&w);
        assert_memory_equal(bytes, "PFA1", 4);
        assert_memory_equal(bytes + n - 4, "PFA1", 4);
        assert_int_equal(bytes[n - 8], compress);
        const char *path = tpath("rt.puffin");
        write_bytes(path, bytes, n);
        io_file *f;
        assert_int_equal(io_open(path, &f, NULL), SQE_OK);
        arena a;
        arena_init(&a, NULL);
        ice_puffin_footer *ft;
        sqe_error err;
        int rc = ice_puffin_footer_read(&a, f, &ft, &err);
        if (rc) fail_msg("%s", err.message);
        assert_int_equal(ft->n_blobs, 3);
        assert_string_equal(ice_kv_get(&ft->properties, "created-by"), "SQE");
        for (int b = 0; b < 3; b++) {
            ice_puffin_blob *bl = &ft->blobs[b];
            assert_string_equal(bl->type, "apache-datasketches-theta-v1");
            assert_int_equal(bl->n_fields, 2);
            assert_int_equal(bl->fields[1], 7);
            assert_int_equal(bl->snapshot_id, 1234);
            assert_int_equal(bl->sequence_number, 5);
            assert_int_equal(bl->offset, off[b]);
            assert_int_equal(bl->length, len[b]);
            if (codecs[b]) assert_string_equal(bl->compression_codec, codecs[b]);
            else assert_null(bl->compression_codec);
            uint8_t *out;
            size_t olen;
            assert_int_equal(ice_puffin_blob_read(f, bl, &out, &olen, NULL), SQE_OK);
            assert_int_equal(olen, 5000);
            assert_memory_equal(out, data[b], 5000);
            free(out);
        }
        assert_string_equal(ice_kv_get(&ft->blobs[1].properties, "ndv"), "42");
        io_close(f);
        /* damage: every truncation fails (footer or blob), bit flips never crash */
        const char *dpath = tpath("damaged.puffin");
        for (size_t l = 0; l < n; l += (l < 40 || l > n - 400 ? 1 : 97)) {
            write_bytes(dpath, bytes, l);
            assert_int_equal(io_open(dpath, &f, NULL), SQE_OK);
            rc = ice_puffin_footer_read(&a, f, &ft, &err);
            assert_int_not_equal(rc, SQE_OK);
            assert_true(rc == SQE_ERR_INVALID_FILE || rc == SQE_ERR_NOT_SUPPORTED);
            io_close(f);
        }
        for (size_t i = 0; i < n; i += (i > n - 600 ? 1 : 61)) {
            bytes[i] ^= 0x24;
            write_bytes(dpath, bytes, n);
            assert_int_equal(io_open(dpath, &f, NULL), SQE_OK);
            rc = ice_puffin_footer_read(&a, f, &ft, &err);
            assert_true(rc == SQE_OK || rc == SQE_ERR_INVALID_FILE || rc == SQE_ERR_NOT_SUPPORTED);
            for (uint32_t b = 0; rc == SQE_OK && b < ft->n_blobs; b++) {
                uint8_t *out = NULL;
                size_t olen;
                int brc = ice_puffin_blob_read(f, &ft->blobs[b], &out, &olen, &err);
                assert_true(brc == SQE_OK || brc == SQE_ERR_INVALID_FILE ||
                            brc == SQE_ERR_NOT_SUPPORTED);
                free(out);
            }
            io_close(f);
            bytes[i] ^= 0x24;
        }
        /* magic damage is always caught */
        bytes[n - 1] ^= 1;
        write_bytes(dpath, bytes, n);
        assert_int_equal(io_open(dpath, &f, NULL), SQE_OK);
        assert_int_equal(ice_puffin_footer_read(&a, f, &ft, &err), SQE_ERR_INVALID_FILE);
        assert_non_null(strstr(err.message, "Invalid Puffin file"));
        io_close(f);
        arena_destroy(&a);
        free(bytes);
    }
}

static void test_dv_file_write(void **state) {
    (void)state;
    ice_roaring r1 = sample_bitmap(), r2;
    ice_roaring_init(&r2);
    ice_roaring_add(&r2, 3, NULL);
    ice_delete_target t[2] = {{.data_file_path = "/d/b.parquet", .positions = &r1},
                              {.data_file_path = "/d/a.parquet", .positions = &r2}};
    arena a;
    arena_init(&a, NULL);
    ice_data_file out[2];
    const char *path = tpath("dv.puffin");
    sqe_error err;
    int rc = ice_dv_file_write(&a, path, t, 2, out, &err);
    if (rc) fail_msg("%s", err.message);
    io_file *f;
    assert_int_equal(io_open(path, &f, NULL), SQE_OK);
    ice_puffin_footer *ft;
    assert_int_equal(ice_puffin_footer_read(&a, f, &ft, NULL), SQE_OK);
    assert_int_equal(ft->n_blobs, 2);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(out[i].content, ICE_CONTENT_POSITION_DELETES);
        assert_string_equal(out[i].file_format, "PUFFIN");
        assert_string_equal(out[i].referenced_data_file, t[i].data_file_path);
        assert_int_equal(out[i].record_count, ice_roaring_cardinality(t[i].positions));
        assert_int_equal(out[i].file_size_in_bytes, io_size(f));
        assert_string_equal(ft->blobs[i].type, "deletion-vector-v1");
        assert_int_equal(ft->blobs[i].offset, out[i].content_offset);
        assert_int_equal(ft->blobs[i].length, out[i].content_size_in_bytes);
        assert_int_equal(ft->blobs[i].snapshot_id, -1);
        assert_null(ft->blobs[i].compression_codec);
        assert_string_equal(ice_kv_get(&ft->blobs[i].properties, "referenced-data-file"),
                            t[i].data_file_path);
        char card[32];
        snprintf(card, sizeof card, "%lld", (long long)out[i].record_count);
        assert_string_equal(ice_kv_get(&ft->blobs[i].properties, "cardinality"), card);
        ice_roaring x;
        ice_roaring_init(&x);
        assert_int_equal(ice_dv_read(f, out[i].content_offset, out[i].content_size_in_bytes, &x, NULL),
                         SQE_OK);
        assert_int_equal(ice_roaring_cardinality(&x), out[i].record_count);
        ice_roaring_reset(&x);
    }
    /* a range outside the file */
    ice_roaring x;
    ice_roaring_init(&x);
    assert_int_equal(ice_dv_read(f, 4, (int64_t)io_size(f), &x, &err), SQE_ERR_INVALID_FILE);
    io_close(f);
    /* duplicates and empty bitmaps are rejected */
    ice_delete_target dup[2] = {t[0], t[0]};
    assert_int_equal(ice_dv_file_write(&a, tpath("dup.puffin"), dup, 2, out, &err),
                     SQE_ERR_INVALID_ARGUMENTS);
    ice_roaring empty;
    ice_roaring_init(&empty);
    ice_delete_target e = {.data_file_path = "/x", .positions = &empty};
    assert_int_equal(ice_dv_file_write(&a, tpath("e.puffin"), &e, 1, out, &err),
                     SQE_ERR_INVALID_ARGUMENTS);
    assert_int_not_equal(access(tpath("e.puffin"), F_OK), 0);
    arena_destroy(&a);
    ice_roaring_reset(&r1);
    ice_roaring_reset(&r2);
}

/* Reads a position delete file back: rows as (path, pos), checks field ids. */
static void test_position_delete_write(void **state) {
    (void)state;
    ice_roaring ra, rb;
    ice_roaring_init(&ra);
    ice_roaring_init(&rb);
    for (uint64_t i = 0; i < 5000; i++) ice_roaring_add(&ra, 4999 - i * 1, NULL);
    ice_roaring_add(&rb, 7, NULL);
    ice_roaring_add(&rb, 2, NULL);
    ice_delete_target t[2] = {{.data_file_path = "/w/z-file.parquet", .positions = &rb},
                              {.data_file_path = "/w/a-file-with-a-long-name.parquet", .positions = &ra}};
    arena a;
    arena_init(&a, NULL);
    ice_data_file out;
    const char *path = tpath("pos.parquet");
    sqe_error err;
    int rc = ice_position_delete_file_write(&a, path, t, 2, NULL, &out, &err);
    if (rc) fail_msg("%s", err.message);
    assert_int_equal(out.content, ICE_CONTENT_POSITION_DELETES);
    assert_string_equal(out.file_format, "PARQUET");
    assert_int_equal(out.record_count, 5002);
    assert_null(out.referenced_data_file);
    assert_true(out.file_size_in_bytes > 0);
    assert_int_equal(out.lower_bounds.items[0].field_id, ICE_FIELD_ID_FILE_PATH);
    assert_memory_equal(out.lower_bounds.items[0].raw.data, "/w/a-file", 9);
    assert_memory_equal(out.upper_bounds.items[0].raw.data, "/w/z-file.parquet", 17);
    assert_int_equal(out.lower_bounds.items[1].raw.data[0], 0);
    assert_int_equal(out.upper_bounds.items[1].raw.data[0] | out.upper_bounds.items[1].raw.data[1] << 8, 4999);
    assert_int_equal(out.value_counts.items[1].value, 5002);
    assert_true(out.column_sizes.items[0].value > 0);
    pq_file *pf;
    assert_int_equal(pq_file_open(path, &pf, NULL), SQE_OK);
    assert_int_equal(pf->schema->n_columns, 2);
    assert_int_equal(pf->schema->columns[0]->field_id, ICE_FIELD_ID_FILE_PATH);
    assert_int_equal(pf->schema->columns[1]->field_id, ICE_FIELD_ID_POS);
    assert_int_equal(pf->total_rows, 5002);
    uint32_t cols[2] = {0, 1};
    sqe_type types[2] = {pf->schema->columns[0]->type, pf->schema->columns[1]->type};
    vec_chunk c;
    assert_int_equal(vec_chunk_init(&c, 2, types, VEC_CHUNK_SIZE, NULL, NULL), SQE_OK);
    int64_t row = 0;
    for (uint32_t g = 0; g < pf->meta->n_row_groups; g++) {
        pq_rg_reader *r;
        assert_int_equal(pq_rg_open(pf, g, cols, 2, NULL, 0, NULL, &r, NULL), SQE_OK);
        for (;;) {
            vec_chunk_reset(&c);
            assert_int_equal(pq_rg_next(r, &c, NULL), SQE_OK);
            if (!c.count) break;
            for (uint32_t i = 0; i < c.count; i++, row++) {
                uint32_t p0, p1;
                const vec *v0 = vec_resolve(&c.cols[0], i, &p0), *v1 = vec_resolve(&c.cols[1], i, &p1);
                const sqe_str *s = &VEC_DATA(v0, sqe_str)[p0];
                int64_t pos = VEC_DATA(v1, int64_t)[p1];
                const char *expect_path = row < 5000 ? t[1].data_file_path : t[0].data_file_path;
                int64_t expect_pos = row < 5000 ? row : (row == 5000 ? 2 : 7);
                assert_int_equal(s->len, strlen(expect_path));
                assert_memory_equal(sqe_str_data(s), expect_path, s->len);
                assert_int_equal(pos, expect_pos);
            }
        }
        pq_rg_close(r);
    }
    assert_int_equal(row, 5002);
    vec_chunk_destroy(&c);
    pq_file_release(pf);
    /* one target: referenced_data_file set */
    rc = ice_position_delete_file_write(&a, tpath("pos1.parquet"), t, 1, NULL, &out, &err);
    assert_int_equal(rc, SQE_OK);
    assert_string_equal(out.referenced_data_file, t[0].data_file_path);
    arena_destroy(&a);
    ice_roaring_reset(&ra);
    ice_roaring_reset(&rb);
}

/* ---- delete index -------------------------------------------------------------------------- */

/* A manifest entry for a file; partition: one INTEGER field with value part (or none when
 * part < 0). */
typedef struct fake_entry {
    ice_manifest_entry e;
    vec part;
    int32_t part_val;
} fake_entry;

static void fake(fake_entry *f, ice_file_content content, const char *path, const char *format,
                 int64_t seq, int part) {
    memset(f, 0, sizeof *f);
    f->e.status = ICE_STATUS_ADDED;
    f->e.has_sequence_number = true;
    f->e.sequence_number = seq;
    f->e.file.content = content;
    f->e.file.file_path = path;
    f->e.file.file_format = format;
    if (part >= 0) {
        f->part_val = part;
        f->part.type = type_make(TYPE_INTEGER);
        f->part.shape = VEC_FLAT;
        f->part.capacity = 1;
        f->part.data = &f->part_val;
        f->e.file.spec_id = 1;
        f->e.file.n_partition = 1;
        f->e.file.partition = &f->part;
    }
}

/* Writes an equality delete Parquet file with columns (id INTEGER field 1, name VARCHAR field 2)
 * and rows given; NULL name when name[i] is NULL. */
static void write_eq_file(const char *path, const int32_t *ids, const char *const *names,
                          uint32_t n) {
    pq_writer_options o;
    pq_writer_options_init(&o);
    int32_t fids[2] = {1, 2};
    o.field_ids = fids;
    const char *cn[2] = {"id", "name"};
    sqe_type types[2] = {type_make(TYPE_INTEGER), type_make(TYPE_VARCHAR)};
    pq_writer *w;
    assert_int_equal(pq_writer_open(path, 2, cn, types, &o, NULL, &w, NULL), SQE_OK);
    vec_chunk c;
    assert_int_equal(vec_chunk_init(&c, 2, types, 64, NULL, NULL), SQE_OK);
    for (uint32_t i = 0; i < n; i++) {
        VEC_DATA(&c.cols[0], int32_t)[i] = ids[i];
        if (names[i]) VEC_DATA(&c.cols[1], sqe_str)[i] = sqe_str_make(names[i], (uint32_t)strlen(names[i]));
        else vec_set_null(&c.cols[1], i);
    }
    c.count = n;
    assert_int_equal(pq_writer_write(w, &c, NULL), SQE_OK);
    assert_int_equal(pq_writer_close(w, NULL, NULL), SQE_OK);
    vec_chunk_destroy(&c);
}

typedef struct thread_arg {
    ice_delete_index *idx;
    const ice_manifest_entry *data;
    uint64_t card;
    int rc;
} thread_arg;

static void *thread_main(void *p) {
    thread_arg *t = p;
    ice_file_deletes d;
    t->rc = ice_delete_index_for_file(t->idx, t->data, &d, NULL);
    t->card = d.positions ? ice_roaring_cardinality(d.positions) : 0;
    ice_file_deletes_release(&d);
    return NULL;
}

static void test_delete_index(void **state) {
    (void)state;
    arena a;
    arena_init(&a, NULL);
    sqe_error err;
    /* position delete file (seq 3, partition 1) for data files A and B */
    ice_roaring pa, pb, dva;
    ice_roaring_init(&pa);
    ice_roaring_init(&pb);
    ice_roaring_init(&dva);
    for (uint64_t i = 0; i < 10; i += 2) ice_roaring_add(&pa, i, NULL); /* A: 0 2 4 6 8 */
    ice_roaring_add(&pb, 1, NULL);
    const char *A = "/t/data/A.parquet", *B = "/t/data/B.parquet", *C = "/t/data/C.parquet";
    ice_delete_target tg[2] = {{.data_file_path = A, .positions = &pa},
                               {.data_file_path = B, .positions = &pb}};
    ice_data_file posfile;
    assert_int_equal(ice_position_delete_file_write(&a, tpath("p.parquet"), tg, 2, NULL, &posfile, &err), SQE_OK);
    /* DV (seq 5) for C: positions 1, 3 */
    ice_roaring_add(&dva, 1, NULL);
    ice_roaring_add(&dva, 3, NULL);
    ice_delete_target tc = {.data_file_path = C, .positions = &dva};
    ice_data_file dvfile;
    assert_int_equal(ice_dv_file_write(&a, tpath("c.puffin"), &tc, 1, &dvfile, &err), SQE_OK);
    /* equality deletes (seq 4, global): (id 2, name NULL), (id 3, "c") on fields 1, 2 */
    int32_t ids[2] = {2, 3};
    const char *names[2] = {NULL, "c"};
    write_eq_file(tpath("eq.parquet"), ids, names, 2);

    fake_entry fpos, fdv, feq, fdv_old;
    fake(&fpos, ICE_CONTENT_POSITION_DELETES, tpath("p.parquet"), "PARQUET", 3, 1);
    fpos.e.file.lower_bounds = posfile.lower_bounds;
    fpos.e.file.upper_bounds = posfile.upper_bounds;
    fake(&fdv, ICE_CONTENT_POSITION_DELETES, tpath("c.puffin"), "PUFFIN", 5, 1);
    fdv.e.file.referenced_data_file = C;
    fdv.e.file.has_content_offset = fdv.e.file.has_content_size_in_bytes = true;
    fdv.e.file.content_offset = dvfile.content_offset;
    fdv.e.file.content_size_in_bytes = dvfile.content_size_in_bytes;
    fake(&feq, ICE_CONTENT_EQUALITY_DELETES, tpath("eq.parquet"), "PARQUET", 4, -1);
    int32_t eq_ids[2] = {1, 2};
    feq.e.file.has_equality_ids = true;
    feq.e.file.n_equality_ids = 2;
    feq.e.file.equality_ids = eq_ids;
    fdv_old = fdv; /* a removed DV entry is ignored */
    fdv_old.e.status = ICE_STATUS_DELETED;
    fdv_old.e.file.content_offset = 0;

    ice_delete_index *idx;
    assert_int_equal(ice_delete_index_create(NULL, &idx, NULL), SQE_OK);
    assert_int_equal(ice_delete_index_add(idx, &fpos.e, &err), SQE_OK);
    assert_int_equal(ice_delete_index_add(idx, &fdv.e, &err), SQE_OK);
    assert_int_equal(ice_delete_index_add(idx, &feq.e, &err), SQE_OK);
    assert_int_equal(ice_delete_index_add(idx, &fdv_old.e, &err), SQE_OK);
    assert_int_equal(ice_delete_index_count(idx), 3);
    fake_entry bad;
    fake(&bad, ICE_CONTENT_DATA, A, "PARQUET", 1, 1);
    assert_int_equal(ice_delete_index_add(idx, &bad.e, &err), SQE_ERR_INVALID_ARGUMENTS);

    fake_entry dA, dA_late, dA_other_part, dB, dC, dC_new, dD, dA_eqseq;
    fake(&dA, ICE_CONTENT_DATA, A, "PARQUET", 2, 1);
    fake(&dA_late, ICE_CONTENT_DATA, A, "PARQUET", 4, 1);      /* newer than the pos deletes */
    fake(&dA_other_part, ICE_CONTENT_DATA, A, "PARQUET", 2, 2);
    fake(&dB, ICE_CONTENT_DATA, B, "PARQUET", 3, 1);           /* same seq: pos applies */
    fake(&dC, ICE_CONTENT_DATA, C, "PARQUET", 1, 1);
    fake(&dC_new, ICE_CONTENT_DATA, C, "PARQUET", 6, 1);
    fake(&dD, ICE_CONTENT_DATA, "/t/data/D.parquet", "PARQUET", 9, 1);
    fake(&dA_eqseq, ICE_CONTENT_DATA, A, "PARQUET", 4, 7);     /* eq: seq equal, not applied */

    assert_true(ice_delete_index_may_apply(idx, &dA.e));
    assert_false(ice_delete_index_may_apply(idx, &dD.e));
    assert_false(ice_delete_index_may_apply(idx, &dC_new.e));
    assert_false(ice_delete_index_may_apply(idx, &dA_eqseq.e));
    assert_true(ice_delete_index_may_apply(idx, &dA_other_part.e)); /* eq deletes are global */

    ice_file_deletes d;
    int rc = ice_delete_index_for_file(idx, &dA.e, &d, &err);
    if (rc) fail_msg("%s", err.message);
    assert_non_null(d.positions);
    assert_int_equal(ice_roaring_cardinality(d.positions), 5);
    assert_int_equal(d.n_eq, 1);
    assert_int_equal(ice_eq_delete_set_n_fields(d.eq[0]), 2);
    assert_int_equal(ice_eq_delete_set_field_ids(d.eq[0])[1], 2);
    assert_int_equal(ice_eq_delete_set_size(d.eq[0]), 2);
    /* filter a chunk of rows 10..19 of A (positions 0..9 deleted at 0,2,4,6,8 only affect the
     * first chunk): chunk columns (name VARCHAR, id BIGINT: widened from int) */
    sqe_type types[2] = {type_make(TYPE_VARCHAR), type_make(TYPE_BIGINT)};
    vec_chunk c;
    assert_int_equal(vec_chunk_init(&c, 2, types, 16, NULL, NULL), SQE_OK);
    const char *row_names[10] = {"a", NULL, "c", "c", NULL, "x", "y", "c", NULL, "z"};
    int64_t row_ids[10] = {1, 2, 3, 3, 2, 2, 4, 3, 5, 6};
    for (uint32_t i = 0; i < 10; i++) {
        VEC_DATA(&c.cols[1], int64_t)[i] = row_ids[i];
        if (row_names[i]) VEC_DATA(&c.cols[0], sqe_str)[i] = sqe_str_make(row_names[i], (uint32_t)strlen(row_names[i]));
        else vec_set_null(&c.cols[0], i);
    }
    c.count = 10;
    uint32_t map0[2] = {1, 0};
    const uint32_t *eq_cols[1] = {map0};
    uint32_t sel[16], n_sel;
    rc = ice_file_deletes_filter(&d, &c, 0, eq_cols, sel, &n_sel, &err);
    if (rc) fail_msg("%s", err.message);
    /* positions 0,2,4,6,8 deleted; eq: rows 1 (2,NULL), 3 (3,c), 7 (3,c) deleted; 5 (2,"x") kept */
    uint32_t expect[] = {5, 9};
    assert_int_equal(n_sel, 2);
    assert_memory_equal(sel, expect, sizeof expect);
    /* a later chunk: positions start at 8 -> only row 0 (pos 8) deleted by position */
    rc = ice_file_deletes_filter(&d, &c, 8, eq_cols, sel, &n_sel, &err);
    assert_int_equal(rc, SQE_OK);
    /* rows kept: checked against a naive evaluation of both rules */
    uint32_t naive[16], nn = 0;
    for (uint32_t i = 0; i < 10; i++) {
        bool pos_del = (8 + i) < 10 && (8 + i) % 2 == 0;
        bool eq_del = (row_ids[i] == 2 && !row_names[i]) || (row_ids[i] == 3 && row_names[i] && !strcmp(row_names[i], "c"));
        if (!pos_del && !eq_del) naive[nn++] = i;
    }
    assert_int_equal(n_sel, nn);
    assert_memory_equal(sel, naive, nn * sizeof *sel);
    /* bad column index */
    uint32_t bad_map[2] = {1, 9};
    const uint32_t *bad_cols[1] = {bad_map};
    assert_int_equal(ice_file_deletes_filter(&d, &c, 0, bad_cols, sel, &n_sel, &err),
                     SQE_ERR_INVALID_ARGUMENTS);
    ice_file_deletes_release(&d);

    /* later data file: no position deletes (seq 4 > 3), equality deletes not (4 == 4) */
    assert_int_equal(ice_delete_index_for_file(idx, &dA_late.e, &d, &err), SQE_OK);
    assert_true(ice_file_deletes_empty(&d));
    ice_file_deletes_release(&d);
    /* other partition: only the (global) equality deletes */
    assert_int_equal(ice_delete_index_for_file(idx, &dA_other_part.e, &d, &err), SQE_OK);
    assert_null(d.positions);
    assert_int_equal(d.n_eq, 1);
    ice_file_deletes_release(&d);
    /* B at the same sequence number: position delete applies; eq too (3 < 4) */
    assert_int_equal(ice_delete_index_for_file(idx, &dB.e, &d, &err), SQE_OK);
    assert_int_equal(ice_roaring_cardinality(d.positions), 1);
    assert_true(ice_roaring_contains(d.positions, 1));
    ice_file_deletes_release(&d);
    /* C: the DV */
    assert_int_equal(ice_delete_index_for_file(idx, &dC.e, &d, &err), SQE_OK);
    assert_int_equal(ice_roaring_cardinality(d.positions), 2);
    ice_file_deletes_release(&d);
    /* concurrent askers get the same answer */
    pthread_t th[8];
    thread_arg args[8];
    for (int i = 0; i < 8; i++) {
        args[i] = (thread_arg){idx, i % 2 ? &dA.e : &dC.e, 0, -1};
        pthread_create(&th[i], NULL, thread_main, &args[i]);
    }
    for (int i = 0; i < 8; i++) {
        pthread_join(th[i], NULL);
        assert_int_equal(args[i].rc, SQE_OK);
        assert_int_equal(args[i].card, (uint64_t)(i % 2 ? 5 : 2));
    }
    ice_delete_index_destroy(idx);

    /* a DV replaces position delete files of the same data file; a missing delete file gives
     * an error naming it, remembered for later askers */
    assert_int_equal(ice_delete_index_create(NULL, &idx, NULL), SQE_OK);
    fake_entry fpos_c, fmissing;
    ice_delete_target tcp = {.data_file_path = C, .positions = &pa};
    ice_data_file pc;
    assert_int_equal(ice_position_delete_file_write(&a, tpath("pc.parquet"), &tcp, 1, NULL, &pc, &err), SQE_OK);
    fake(&fpos_c, ICE_CONTENT_POSITION_DELETES, tpath("pc.parquet"), "PARQUET", 5, 1);
    fpos_c.e.file.referenced_data_file = C;
    assert_int_equal(ice_delete_index_add(idx, &fpos_c.e, &err), SQE_OK);
    assert_int_equal(ice_delete_index_for_file(idx, &dC.e, &d, &err), SQE_OK);
    assert_int_equal(ice_roaring_cardinality(d.positions), 5);
    ice_file_deletes_release(&d);
    assert_int_equal(ice_delete_index_add(idx, &fdv.e, &err), SQE_OK);
    assert_int_equal(ice_delete_index_for_file(idx, &dC.e, &d, &err), SQE_OK);
    assert_int_equal(ice_roaring_cardinality(d.positions), 2);
    ice_file_deletes_release(&d);
    fake(&fmissing, ICE_CONTENT_POSITION_DELETES, tpath("missing.parquet"), "PARQUET", 5, 1);
    assert_int_equal(ice_delete_index_add(idx, &fmissing.e, &err), SQE_OK);
    for (int k = 0; k < 2; k++) {
        rc = ice_delete_index_for_file(idx, &dA.e, &d, &err);
        assert_int_not_equal(rc, SQE_OK);
        assert_non_null(strstr(err.message, "missing.parquet"));
        ice_file_deletes_release(&d);
    }
    /* a DV entry without its offsets is a manifest error */
    fake_entry fdv_bad = fdv;
    fdv_bad.e.file.has_content_offset = false;
    assert_int_equal(ice_delete_index_add(idx, &fdv_bad.e, &err), SQE_ERR_INVALID_FILE);
    ice_delete_index_destroy(idx);

    vec_chunk_destroy(&c);
    ice_roaring_reset(&pa);
    ice_roaring_reset(&pb);
    ice_roaring_reset(&dva);
    arena_destroy(&a);
}

int main(void) {
    snprintf(tmpdir, sizeof tmpdir, "/tmp/sqe-ice-deletes-%ld", (long)getpid());
    char cmd[300];
    snprintf(cmd, sizeof cmd, "mkdir -p %s", tmpdir);
    if (system(cmd) != 0) return 2;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roaring_vs_naive),
        cmocka_unit_test(test_roaring_small_cases),
        cmocka_unit_test(test_roaring_hostile),
        cmocka_unit_test(test_dv_blob),
        cmocka_unit_test(test_puffin_round_trip),
        cmocka_unit_test(test_dv_file_write),
        cmocka_unit_test(test_position_delete_write),
        cmocka_unit_test(test_delete_index),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    if (system(cmd) != 0) rc = rc ? rc : 1;
    return rc;
}
