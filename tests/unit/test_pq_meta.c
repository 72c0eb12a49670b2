/*
 * test_pq_meta.c: unit tests of the Thrift compact reader (src/format/parquet/thrift.c) and the
 * Parquet metadata decoder (src/format/parquet/pq_meta.c).
 *
 * Hand-made Thrift bytes cover varints, zigzag, short and long field headers, list/map headers,
 * skipping and the hostile-input limits. The parquet-testing corpus (directory from the
 * environment variable SQE_PARQUET_TESTING, else ../shared/corpus/parquet-testing next to the
 * repository; tests skip when it is missing) covers real footers: every data/<name>.parquet decodes
 * (with the first page header of each column chunk), encrypted files give NOT_SUPPORTED, every
 * bad_data file gives a clean error or decodes, and every truncation and 2000 random bit flips
 * of a few footers give an error or a result, never a crash (run under ASan/UBSan).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "common/arena.h"
#include "common/err.h"
#include "format/parquet/pq_meta.h"
#include "format/parquet/thrift.h"

/* ---- helpers ---------------------------------------------------------------------------- */

static const char *corpus_dir(void) {
    static char path[4096];
    const char *env = getenv("SQE_PARQUET_TESTING");
    struct stat st;
    if (env && *env) return env;
    /* <repo>/../shared/corpus/parquet-testing */
    (void)st;
    snprintf(path, sizeof(path), "%s/../shared/corpus/parquet-testing", SQE_SOURCE_DIR);
    return path;
}

static int has_suffix(const char *s, const char *suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static uint8_t *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
    if (buf && n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *len = (size_t)(n > 0 ? n : 0);
    return buf;
}

typedef void (*file_fn)(const char *path, const uint8_t *buf, size_t len, void *ctx);

/* Calls fn for every regular file in dir whose name ends with suffix; returns the count, or
 * -1 when dir is missing. */
static int for_each_file(const char *dir, const char *suffix, file_fn fn, void *ctx) {
    DIR *d = opendir(dir);
    if (!d) return -1;
    int count = 0;
    struct dirent *de;
    char path[8192];
    while ((de = readdir(d)) != NULL) {
        if (!has_suffix(de->d_name, suffix)) continue;
        snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
        struct stat st;
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) continue;
        size_t len;
        uint8_t *buf = read_file(path, &len);
        assert_non_null(buf);
        fn(path, buf, len, ctx);
        free(buf);
        count++;
    }
    closedir(d);
    return count;
}

static int run_in(const char *sub, const char *suffix, file_fn fn, void *ctx) {
    char dir[4096];
    snprintf(dir, sizeof(dir), "%s/%s", corpus_dir(), sub);
    return for_each_file(dir, suffix, fn, ctx);
}

/* Footer bytes of a whole file, or NULL. */
static const uint8_t *footer_of(const uint8_t *buf, size_t len, size_t *footer_len) {
    if (len < 12) return NULL;
    size_t n = (size_t)buf[len - 8] | (size_t)buf[len - 7] << 8 | (size_t)buf[len - 6] << 16 |
               (size_t)buf[len - 5] << 24;
    if (n > len - 12) return NULL;
    *footer_len = n;
    return buf + len - 8 - n;
}

/* ---- Thrift reader ------------------------------------------------------------------------ */

static void test_thrift_varint_zigzag(void **state) {
    (void)state;
    pq_thrift_reader r;
    sqe_error err;
    uint64_t u;
    int64_t v;
    int32_t i32;
    int16_t i16;
    const uint8_t b1[] = {0xac, 0x02};                       /* 300 */
    pq_thrift_init(&r, b1, sizeof(b1), &err);
    assert_int_equal(pq_thrift_read_varint(&r, &u), SQE_OK);
    assert_int_equal(u, 300);
    assert_int_equal(pq_thrift_remaining(&r), 0);

    const uint8_t b2[] = {0x03, 0x04, 0x01};                 /* zigzag -2, 2, -1 */
    pq_thrift_init(&r, b2, sizeof(b2), &err);
    assert_int_equal(pq_thrift_read_i64(&r, &v), SQE_OK);
    assert_int_equal(v, -2);
    assert_int_equal(pq_thrift_read_i32(&r, &i32), SQE_OK);
    assert_int_equal(i32, 2);
    assert_int_equal(pq_thrift_read_i16(&r, &i16), SQE_OK);
    assert_int_equal(i16, -1);

    /* INT64_MIN and INT64_MAX: 10-byte varints. */
    const uint8_t b3[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
                          0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    pq_thrift_init(&r, b3, sizeof(b3), &err);
    assert_int_equal(pq_thrift_read_i64(&r, &v), SQE_OK);
    assert_true(v == INT64_MIN);
    assert_int_equal(pq_thrift_read_i64(&r, &v), SQE_OK);
    assert_true(v == INT64_MAX);

    /* 11-byte varint, overflowing 10th byte, truncation, i32 out of range. */
    const uint8_t b4[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
    pq_thrift_init(&r, b4, sizeof(b4), &err);
    assert_int_equal(pq_thrift_read_varint(&r, &u), SQE_ERR_INVALID_FILE);
    assert_non_null(strstr(err.message, "Invalid Parquet metadata"));
    const uint8_t b5[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02};
    pq_thrift_init(&r, b5, sizeof(b5), &err);
    assert_int_equal(pq_thrift_read_varint(&r, &u), SQE_ERR_INVALID_FILE);
    const uint8_t b6[] = {0x80};
    pq_thrift_init(&r, b6, sizeof(b6), &err);
    assert_int_equal(pq_thrift_read_varint(&r, &u), SQE_ERR_INVALID_FILE);
    const uint8_t b7[] = {0x80, 0x80, 0x80, 0x80, 0x10};  /* 2^32 zigzag -> 2^31 */
    pq_thrift_init(&r, b7, sizeof(b7), &err);
    assert_int_equal(pq_thrift_read_i32(&r, &i32), SQE_ERR_INVALID_FILE);
    /* Sticky failure: later reads fail too. */
    assert_int_equal(pq_thrift_read_i8(&r, &(int8_t){0}), SQE_ERR_INVALID_FILE);
    pq_thrift_init(&r, NULL, 0, NULL);
    assert_int_equal(pq_thrift_read_varint(&r, &u), SQE_ERR_INVALID_FILE);
}

static void test_thrift_struct_fields(void **state) {
    (void)state;
    /* struct { 1: i32 = 5 (short), 3: bool true, 300: binary "ab" (long form), 301: double 1.5,
     *          302: list<i16> [1,-1], 303: map<i8,binary>{7:"x"}, 304: struct{1:i64 9} }. */
    const uint8_t b[] = {0x15, 0x0a,                 /* delta 1, I32, zigzag 5 */
                         0x21,                       /* delta 2, BOOL_TRUE */
                         0x08, 0xd8, 0x04, 0x02, 'a', 'b',  /* long form id 300 */
                         0x17, 0, 0, 0, 0, 0, 0, 0xf8, 0x3f, /* delta 1, DOUBLE 1.5 */
                         0x19, 0x24, 0x02, 0x01,     /* delta 1, LIST of 2 I16 */
                         0x1b, 0x01, 0x38, 0x07, 0x01, 'x', /* delta 1, MAP 1 entry */
                         0x1c, 0x16, 0x12, 0x00,     /* delta 1, STRUCT {1: i64 9} */
                         0x00};
    pq_thrift_reader r;
    sqe_error err;
    int t;
    int16_t fid;
    pq_thrift_init(&r, b, sizeof(b), &err);
    assert_int_equal(pq_thrift_struct_begin(&r), SQE_OK);
    assert_int_equal(pq_thrift_field_header(&r, &t, &fid), SQE_OK);
    assert_int_equal(t, PQ_THRIFT_I32);
    assert_int_equal(fid, 1);
    int32_t i32;
    assert_int_equal(pq_thrift_read_i32(&r, &i32), SQE_OK);
    assert_int_equal(i32, 5);
    assert_int_equal(pq_thrift_field_header(&r, &t, &fid), SQE_OK);
    assert_int_equal(fid, 3);
    assert_true(pq_thrift_field_bool(t));
    assert_int_equal(pq_thrift_field_header(&r, &t, &fid), SQE_OK);
    assert_int_equal(fid, 300);
    assert_int_equal(t, PQ_THRIFT_BINARY);
    const uint8_t *data;
    size_t len;
    assert_int_equal(pq_thrift_read_binary(&r, &data, &len), SQE_OK);
    assert_int_equal(len, 2);
    assert_memory_equal(data, "ab", 2);
    assert_int_equal(pq_thrift_field_header(&r, &t, &fid), SQE_OK);
    assert_int_equal(fid, 301);
    double d;
    assert_int_equal(pq_thrift_read_double(&r, &d), SQE_OK);
    assert_true(d == 1.5);
    assert_int_equal(pq_thrift_field_header(&r, &t, &fid), SQE_OK);
    assert_int_equal(fid, 302);
    int et;
    uint32_t n;
    assert_int_equal(pq_thrift_list_header(&r, &et, &n), SQE_OK);
    assert_int_equal(et, PQ_THRIFT_I16);
    assert_int_equal(n, 2);
    int16_t i16;
    assert_int_equal(pq_thrift_read_i16(&r, &i16), SQE_OK);
    assert_int_equal(i16, 1);
    assert_int_equal(pq_thrift_read_i16(&r, &i16), SQE_OK);
    assert_int_equal(i16, -1);
    assert_int_equal(pq_thrift_field_header(&r, &t, &fid), SQE_OK);
    assert_int_equal(fid, 303);
    assert_int_equal(pq_thrift_skip(&r, t), SQE_OK);     /* the map */
    assert_int_equal(pq_thrift_field_header(&r, &t, &fid), SQE_OK);
    assert_int_equal(fid, 304);
    assert_int_equal(t, PQ_THRIFT_STRUCT);
    assert_int_equal(pq_thrift_skip(&r, t), SQE_OK);
    assert_int_equal(pq_thrift_field_header(&r, &t, &fid), SQE_OK);
    assert_int_equal(t, PQ_THRIFT_STOP);
    pq_thrift_struct_end(&r);
    assert_int_equal(pq_thrift_remaining(&r), 0);

    /* The whole struct skips in one call, too. */
    pq_thrift_init(&r, b, sizeof(b), &err);
    assert_int_equal(pq_thrift_skip(&r, PQ_THRIFT_STRUCT), SQE_OK);
    assert_int_equal(pq_thrift_remaining(&r), 0);
}

static void test_thrift_hostile(void **state) {
    (void)state;
    pq_thrift_reader r;
    sqe_error err;
    int et;
    uint32_t n;
    /* Long-form list size larger than the bytes left. */
    const uint8_t b1[] = {0xf5, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x00};
    pq_thrift_init(&r, b1, sizeof(b1), &err);
    assert_int_equal(pq_thrift_list_header(&r, &et, &n), SQE_ERR_INVALID_FILE);
    assert_int_equal(n, 0);
    /* Binary length past the end. */
    const uint8_t b2[] = {0x05, 'a'};
    const uint8_t *data;
    size_t len;
    pq_thrift_init(&r, b2, sizeof(b2), &err);
    assert_int_equal(pq_thrift_read_binary(&r, &data, &len), SQE_ERR_INVALID_FILE);
    /* Invalid field type 13, invalid list element type. */
    const uint8_t b3[] = {0x1d, 0x00};
    pq_thrift_init(&r, b3, sizeof(b3), &err);
    assert_int_equal(pq_thrift_skip(&r, PQ_THRIFT_STRUCT), SQE_ERR_INVALID_FILE);
    const uint8_t b4[] = {0x1e, 0x00};
    pq_thrift_init(&r, b4, sizeof(b4), &err);
    assert_int_equal(pq_thrift_list_header(&r, &et, &n), SQE_ERR_INVALID_FILE);
    /* Nesting deeper than the limit: 100 nested structs, and 100 nested lists. */
    uint8_t deep[300];
    for (int i = 0; i < 100; i++) deep[i] = 0x1c;        /* field 1: struct */
    memset(deep + 100, 0, 200);
    pq_thrift_init(&r, deep, sizeof(deep), &err);
    assert_int_equal(pq_thrift_skip(&r, PQ_THRIFT_STRUCT), SQE_ERR_INVALID_FILE);
    assert_non_null(strstr(err.message, "nesting"));
    for (int i = 0; i < 100; i++) deep[i] = 0x19;        /* list of 1 list */
    pq_thrift_init(&r, deep, sizeof(deep), &err);
    assert_int_equal(pq_thrift_skip(&r, PQ_THRIFT_LIST), SQE_ERR_INVALID_FILE);
    /* 64 nested structs are fine. */
    for (int i = 0; i < 63; i++) deep[i] = 0x1c;
    memset(deep + 63, 0, 64);
    pq_thrift_init(&r, deep, 127, &err);
    assert_int_equal(pq_thrift_skip(&r, PQ_THRIFT_STRUCT), SQE_OK);
    assert_int_equal(pq_thrift_remaining(&r), 0);
    /* A map claiming more entries than bytes. */
    const uint8_t b5[] = {0x80, 0x80, 0x04, 0x88, 0x01};
    pq_thrift_init(&r, b5, sizeof(b5), &err);
    assert_int_equal(pq_thrift_skip(&r, PQ_THRIFT_MAP), SQE_ERR_INVALID_FILE);
    /* A list of bools: one byte per element. */
    const uint8_t b6[] = {0x31, 0x01, 0x02, 0x01};
    pq_thrift_init(&r, b6, sizeof(b6), &err);
    assert_int_equal(pq_thrift_skip(&r, PQ_THRIFT_LIST), SQE_OK);
    assert_int_equal(pq_thrift_remaining(&r), 0);
}

/* A tiny hand-built FileMetaData with an unknown field (id 99) that must be skipped. */
static void test_meta_minimal(void **state) {
    (void)state;
    const uint8_t b[] = {
        0x15, 0x02,                                   /* 1: version 1 */
        0x19, 0x2c,                                   /* 2: list of 2 structs */
        0x48, 0x06, 's', 'c', 'h', 'e', 'm', 'a',     /*   4: name "schema" */
        0x15, 0x02, 0x00,                             /*   5: num_children 1 */
        0x15, 0x02, 0x25, 0x00, 0x18, 0x01, 'a',      /*   1 INT32, 3 REQUIRED, 4 "a" */
        0x6c, 0xac, 0x13, 0x20, 0x11, 0x00, 0x00,     /*   10: INTEGER{bitWidth 32, signed} */
        0x00,
        0x16, 0x06,                                   /* 3: num_rows 3 */
        0x19, 0x0c,                                   /* 4: row_groups: empty list */
        0x0c, 0xc6, 0x01, 0x15, 0x00, 0x00,           /* 99: unknown struct */
        0x00};
    arena a;
    arena_init(&a, NULL);
    pq_file_meta *fm;
    sqe_error err;
    assert_int_equal(pq_meta_decode_file_metadata(&a, b, sizeof(b), &fm, &err), SQE_OK);
    assert_int_equal(fm->version, 1);
    assert_int_equal(fm->n_schema, 2);
    assert_string_equal(fm->schema[0].name, "schema");
    assert_int_equal(fm->schema[0].num_children, 1);
    assert_string_equal(fm->schema[1].name, "a");
    assert_int_equal(fm->schema[1].type, PQ_TYPE_INT32);
    assert_int_equal(fm->schema[1].logical.kind, PQ_LT_INTEGER);
    assert_int_equal(fm->schema[1].logical.bit_width, 32);
    assert_true(fm->schema[1].logical.is_signed);
    assert_int_equal(fm->num_rows, 3);
    assert_int_equal(fm->n_row_groups, 0);
    assert_null(fm->created_by);
    /* Every proper prefix fails. */
    for (size_t n = 0; n < sizeof(b); n++)
        assert_int_equal(pq_meta_decode_file_metadata(&a, b, n, &fm, &err), SQE_ERR_INVALID_FILE);
    arena_destroy(&a);
}

/* ---- corpus --------------------------------------------------------------------------------- */

static int corpus_missing(void) {
    char dir[4096];
    struct stat st;
    snprintf(dir, sizeof(dir), "%s/data", corpus_dir());
    return stat(dir, &st) != 0;
}

/* Checks a decoded footer for consistency and decodes the first page header of each chunk. */
static void check_good_file(const char *path, const uint8_t *buf, size_t len, void *ctx) {
    int *n_pages = ctx;
    arena a;
    arena_init(&a, NULL);
    pq_file_meta *fm = NULL;
    sqe_error err;
    int rc = pq_meta_read_footer(&a, buf, len, &fm, &err);
    if (rc != SQE_OK) fail_msg("%s: %s", path, err.message);
    assert_true(fm->n_schema >= 1);
    assert_true(fm->schema[0].has_num_children);
    int64_t rows = 0;
    for (uint32_t g = 0; g < fm->n_row_groups; g++) {
        const pq_row_group *rg = &fm->row_groups[g];
        rows += rg->num_rows;
        for (uint32_t ci = 0; ci < rg->n_columns; ci++) {
            const pq_column_chunk *cc = &rg->columns[ci];
            if (!cc->has_meta_data || cc->file_path || cc->meta_data.num_values == 0) continue;
            const pq_column_meta *m = &cc->meta_data;
            assert_true(m->n_path_in_schema >= 1);
            int64_t off = m->data_page_offset;
            if (m->has_dictionary_page_offset && m->dictionary_page_offset > 0 &&
                m->dictionary_page_offset < off)
                off = m->dictionary_page_offset;
            if (off <= 0 || (size_t)off >= len)
                fail_msg("%s: bad page offset %lld (num_values %lld)", path, (long long)off,
                         (long long)m->num_values);
            pq_page_header ph;
            size_t hlen;
            rc = pq_meta_decode_page_header(&a, buf + off, len - (size_t)off, &ph, &hlen, &err);
            if (rc != SQE_OK) fail_msg("%s: page header: %s", path, err.message);
            assert_true(hlen > 0);
            assert_true(ph.type >= PQ_PAGE_DATA && ph.type <= PQ_PAGE_DATA_V2);
            assert_true((size_t)ph.compressed_page_size <= len - (size_t)off - hlen);
            if (ph.type == PQ_PAGE_DICTIONARY) assert_true(ph.has_dictionary_page_header);
            if (ph.type == PQ_PAGE_DATA) assert_true(ph.has_data_page_header);
            if (ph.type == PQ_PAGE_DATA_V2) assert_true(ph.has_data_page_header_v2);
            (*n_pages)++;
        }
    }
    /* Some writers leave FileMetaData.num_rows at 0 (repeated_no_annotation.parquet); the
     * reader will trust the row groups, so only report the mismatch. */
    if (rows != fm->num_rows)
        print_message("note: %s: num_rows %lld, row groups sum to %lld\n", path,
                      (long long)fm->num_rows, (long long)rows);
    assert_true(fm->num_rows >= 0);
    arena_destroy(&a);
}

static void test_corpus_footers(void **state) {
    (void)state;
    if (corpus_missing()) skip();
    int n_pages = 0;
    int n = run_in("data", ".parquet", check_good_file, &n_pages);
    assert_true(n > 50);
    n = run_in("data/geospatial", ".parquet", check_good_file, &n_pages);
    assert_true(n >= 0);
    print_message("decoded %d page headers\n", n_pages);
    assert_true(n_pages > 100);
}

/* Decodes corpus file `name` (relative to the corpus root) into *fm, or fails the test. */
static uint8_t *load_meta(arena *a, const char *name, pq_file_meta **fm, size_t *len) {
    char path[4096];
    sqe_error err;
    snprintf(path, sizeof(path), "%s/%s", corpus_dir(), name);
    uint8_t *buf = read_file(path, len);
    if (!buf) fail_msg("cannot read %s", path);
    if (pq_meta_read_footer(a, buf, *len, fm, &err) != SQE_OK) fail_msg("%s: %s", name, err.message);
    return buf;
}

static const pq_schema_element *find_elem(const pq_file_meta *fm, const char *name) {
    for (uint32_t i = 0; i < fm->n_schema; i++)
        if (strcmp(fm->schema[i].name, name) == 0) return &fm->schema[i];
    fail_msg("no schema element %s", name);
    return NULL;
}

/* Known values of a few corpus files pin the field ids of parquet.thrift. */
static void test_corpus_values(void **state) {
    (void)state;
    if (corpus_missing()) skip();
    arena a;
    arena_init(&a, NULL);
    pq_file_meta *fm;
    size_t len;
    sqe_error err;

    uint8_t *buf = load_meta(&a, "data/alltypes_plain.parquet", &fm, &len);
    assert_int_equal(fm->num_rows, 8);
    assert_int_equal(fm->n_schema, 12);
    assert_int_equal(fm->schema[0].num_children, 11);
    assert_string_equal(fm->schema[1].name, "id");
    assert_int_equal(fm->schema[1].type, PQ_TYPE_INT32);
    assert_int_equal(fm->schema[1].repetition_type, PQ_REP_OPTIONAL);
    assert_int_equal(fm->n_row_groups, 1);
    assert_int_equal(fm->row_groups[0].n_columns, 11);
    const pq_column_meta *m = &fm->row_groups[0].columns[0].meta_data;
    assert_int_equal(m->codec, PQ_CODEC_UNCOMPRESSED);
    assert_int_equal(m->num_values, 8);
    assert_string_equal(m->path_in_schema[0], "id");
    assert_true(m->has_dictionary_page_offset);
    assert_int_equal(m->dictionary_page_offset, 4);
    pq_page_header ph;
    size_t hlen;
    assert_int_equal(pq_meta_decode_page_header(&a, buf + 4, len - 4, &ph, &hlen, &err), SQE_OK);
    assert_int_equal(ph.type, PQ_PAGE_DICTIONARY);
    assert_true(ph.has_dictionary_page_header);
    assert_int_equal(ph.dictionary_page_header.num_values, 8);
    assert_int_equal((int64_t)(4 + hlen) + ph.compressed_page_size, m->data_page_offset);
    size_t off = (size_t)m->data_page_offset;
    assert_int_equal(pq_meta_decode_page_header(&a, buf + off, len - off, &ph, &hlen, &err),
                     SQE_OK);
    assert_int_equal(ph.type, PQ_PAGE_DATA);
    assert_int_equal(ph.data_page_header.num_values, 8);
    assert_int_equal(ph.data_page_header.encoding, PQ_ENC_PLAIN_DICTIONARY);
    assert_int_equal(ph.data_page_header.definition_level_encoding, PQ_ENC_RLE);
    assert_int_equal(off + hlen + (size_t)ph.compressed_page_size,
                     (size_t)(4 + m->total_compressed_size));
    free(buf);

    buf = load_meta(&a, "data/byte_stream_split_extended.gzip.parquet", &fm, &len);
    const pq_schema_element *e = find_elem(fm, "decimal_plain");
    assert_int_equal(e->logical.kind, PQ_LT_DECIMAL);
    assert_int_equal(e->logical.scale, 3);
    assert_int_equal(e->logical.precision, 7);
    assert_int_equal(e->converted_type, PQ_CT_DECIMAL);
    e = find_elem(fm, "float16_plain");
    assert_int_equal(e->logical.kind, PQ_LT_FLOAT16);
    assert_int_equal(e->type, PQ_TYPE_FIXED_LEN_BYTE_ARRAY);
    assert_int_equal(e->type_length, 2);
    assert_int_equal(fm->row_groups[0].columns[0].meta_data.codec, PQ_CODEC_GZIP);
    free(buf);

    /* Plain-footer file with every annotated type (decodes although it is in bad_data/). */
    buf = load_meta(&a, "bad_data/ARROW-GH-41321.parquet", &fm, &len);
    e = find_elem(fm, "timestamp_ms_gmt");
    assert_int_equal(e->logical.kind, PQ_LT_TIMESTAMP);
    assert_true(e->logical.is_adjusted_to_utc);
    assert_int_equal(e->logical.unit, PQ_UNIT_MILLIS);
    e = find_elem(fm, "time64_ns");
    assert_int_equal(e->logical.kind, PQ_LT_TIME);
    assert_int_equal(e->logical.unit, PQ_UNIT_NANOS);
    e = find_elem(fm, "uint16");
    assert_int_equal(e->logical.kind, PQ_LT_INTEGER);
    assert_int_equal(e->logical.bit_width, 16);
    assert_false(e->logical.is_signed);
    assert_int_equal(find_elem(fm, "null")->logical.kind, PQ_LT_UNKNOWN);
    assert_int_equal(find_elem(fm, "date32")->logical.kind, PQ_LT_DATE);
    free(buf);

    buf = load_meta(&a, "data/unknown-logical-type.parquet", &fm, &len);
    e = find_elem(fm, "column with unknown type");
    assert_int_equal(e->logical.kind, PQ_LT_OTHER);
    assert_int_equal(find_elem(fm, "column with known type")->logical.kind, PQ_LT_STRING);
    free(buf);

    buf = load_meta(&a, "data/data_index_bloom_encoding_stats.parquet", &fm, &len);
    const pq_column_chunk *cc = &fm->row_groups[0].columns[0];
    assert_true(cc->meta_data.has_bloom_filter_offset);
    assert_true(cc->has_column_index && cc->has_offset_index);
    assert_true(cc->meta_data.has_statistics && cc->meta_data.statistics.has_min_value);
    assert_int_equal(fm->n_column_orders, 1);
    assert_int_equal(fm->column_orders[0], PQ_ORDER_TYPE_DEFINED);
    free(buf);

    buf = load_meta(&a, "data/datapage_v2.snappy.parquet", &fm, &len);
    int n_v2 = 0;
    for (uint32_t ci = 0; ci < fm->row_groups[0].n_columns; ci++) {
        m = &fm->row_groups[0].columns[ci].meta_data;
        off = (size_t)m->data_page_offset;
        assert_true(off < len);
        assert_int_equal(pq_meta_decode_page_header(&a, buf + off, len - off, &ph, &hlen, &err),
                         SQE_OK);
        if (ph.type != PQ_PAGE_DATA_V2) continue;
        n_v2++;
        assert_int_equal(ph.data_page_header_v2.num_rows, 5);
        assert_true(ph.data_page_header_v2.num_values >= ph.data_page_header_v2.num_nulls);
    }
    assert_true(n_v2 > 0);
    free(buf);
    arena_destroy(&a);
}

static void check_encrypted(const char *path, const uint8_t *buf, size_t len, void *ctx) {
    (void)ctx;
    arena a;
    arena_init(&a, NULL);
    pq_file_meta *fm = NULL;
    sqe_error err;
    int rc = pq_meta_read_footer(&a, buf, len, &fm, &err);
    if (rc != SQE_ERR_NOT_SUPPORTED) fail_msg("%s: rc %d", path, rc);
    assert_string_equal(err.message, "unsupported: encrypted Parquet files");
    assert_null(fm);
    arena_destroy(&a);
}

static void test_corpus_encrypted(void **state) {
    (void)state;
    if (corpus_missing()) skip();
    int n = run_in("data", ".parquet.encrypted", check_encrypted, NULL);
    assert_true(n >= 5);
    assert_true(run_in("data/aes256", ".parquet.encrypted", check_encrypted, NULL) >= 0);
}

static void check_bad(const char *path, const uint8_t *buf, size_t len, void *ctx) {
    int *n_errors = ctx;
    arena a;
    arena_init(&a, NULL);
    pq_file_meta *fm = NULL;
    sqe_error err;
    int rc = pq_meta_read_footer(&a, buf, len, &fm, &err);
    if (rc == SQE_OK) {
        assert_non_null(fm);
    } else {
        if (rc != SQE_ERR_INVALID_FILE && rc != SQE_ERR_NOT_SUPPORTED)
            fail_msg("%s: unexpected code %d", path, rc);
        assert_true(err.message[0] != '\0');
        assert_null(fm);
        (*n_errors)++;
    }
    arena_destroy(&a);
}

static void test_corpus_bad_data(void **state) {
    (void)state;
    if (corpus_missing()) skip();
    int n_errors = 0;
    int n = run_in("bad_data", ".parquet", check_bad, &n_errors);
    assert_true(n >= 0);
    print_message("bad_data: %d files, %d footer errors\n", n, n_errors);
}

/* Footers mutated: every truncation, and random bit flips. */
static const char *const mutated_files[] = {
    "alltypes_plain.parquet",
    "nested_maps.snappy.parquet",
    "data_index_bloom_encoding_stats.parquet",
    "column_chunk_key_value_metadata.parquet",
    "int32_decimal.parquet",
};

static uint64_t rng_next(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void test_corpus_mutations(void **state) {
    (void)state;
    if (corpus_missing()) skip();
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    size_t n_files = sizeof(mutated_files) / sizeof(mutated_files[0]);
    int n_ok = 0, n_err = 0;
    for (size_t fi = 0; fi < n_files; fi++) {
        char path[4096];
        snprintf(path, sizeof(path), "%s/data/%s", corpus_dir(), mutated_files[fi]);
        size_t len;
        uint8_t *buf = read_file(path, &len);
        if (!buf) fail_msg("cannot read %s", path);
        size_t flen = 0;
        const uint8_t *footer = footer_of(buf, len, &flen);
        assert_non_null(footer);
        arena a;
        arena_init(&a, NULL);
        pq_file_meta *fm;
        sqe_error err;
        /* Each prefix is a heap copy of exactly that size, so ASan sees any over-read. */
        for (size_t n = 0; n < flen; n++) {
            uint8_t *copy = malloc(n ? n : 1);
            memcpy(copy, footer, n);
            int rc = pq_meta_decode_file_metadata(&a, copy, n, &fm, &err);
            assert_int_equal(rc, SQE_ERR_INVALID_FILE);
            free(copy);
            if (n % 64 == 0) arena_reset(&a);
        }
        uint8_t *copy = malloc(flen);
        for (int flip = 0; flip < 2000 / (int)n_files; flip++) {
            memcpy(copy, footer, flen);
            int n_bits = 1 + (int)(rng_next(&seed) % 3);
            for (int bit = 0; bit < n_bits; bit++) {
                size_t pos = (size_t)(rng_next(&seed) % (flen * 8));
                copy[pos / 8] ^= (uint8_t)(1u << (pos % 8));
            }
            int rc = pq_meta_decode_file_metadata(&a, copy, flen, &fm, &err);
            if (rc == SQE_OK) {
                assert_true(fm->n_schema >= 1);
                n_ok++;
            } else {
                assert_true(rc == SQE_ERR_INVALID_FILE || rc == SQE_ERR_OUT_OF_MEMORY);
                n_err++;
            }
            arena_reset(&a);
        }
        free(copy);
        arena_destroy(&a);
        free(buf);
    }
    print_message("bit flips: %d decoded, %d errors\n", n_ok, n_err);
}

/* Every truncation of the first page header of a file, and bit flips in it. */
static void test_page_header_mutations(void **state) {
    (void)state;
    if (corpus_missing()) skip();
    char path[4096];
    snprintf(path, sizeof(path), "%s/data/alltypes_plain.parquet", corpus_dir());
    size_t len;
    uint8_t *buf = read_file(path, &len);
    assert_non_null(buf);
    arena a;
    arena_init(&a, NULL);
    pq_page_header ph;
    size_t hlen;
    sqe_error err;
    assert_int_equal(pq_meta_decode_page_header(&a, buf + 4, len - 4, &ph, &hlen, &err), SQE_OK);
    for (size_t n = 0; n < hlen; n++) {
        uint8_t *copy = malloc(n ? n : 1);
        memcpy(copy, buf + 4, n);
        assert_int_equal(pq_meta_decode_page_header(&a, copy, n, &ph, &hlen, &err),
                         SQE_ERR_INVALID_FILE);
        assert_int_equal(hlen, 0);
        free(copy);
    }
    uint64_t seed = 12345;
    uint8_t *copy = malloc(64);
    for (int flip = 0; flip < 2000; flip++) {
        size_t n = len - 4 < 64 ? len - 4 : 64;
        memcpy(copy, buf + 4, n);
        size_t pos = (size_t)(rng_next(&seed) % (n * 8));
        copy[pos / 8] ^= (uint8_t)(1u << (pos % 8));
        int rc = pq_meta_decode_page_header(&a, copy, n, &ph, &hlen, &err);
        assert_true(rc == SQE_OK || rc == SQE_ERR_INVALID_FILE);
        if (rc == SQE_OK) assert_true(hlen > 0 && hlen <= n);
        arena_reset(&a);
    }
    free(copy);
    arena_destroy(&a);
    free(buf);
}

static void test_footer_framing(void **state) {
    (void)state;
    arena a;
    arena_init(&a, NULL);
    pq_file_meta *fm;
    sqe_error err;
    const uint8_t tiny[] = "PAR1PAR1";
    assert_int_equal(pq_meta_read_footer(&a, tiny, 8, &fm, &err), SQE_ERR_INVALID_FILE);
    uint8_t f[16] = {'P', 'A', 'R', '1', 0, 0, 0, 0, 0xff, 0xff, 0xff, 0x7f, 'P', 'A', 'R', '1'};
    assert_int_equal(pq_meta_read_footer(&a, f, sizeof(f), &fm, &err), SQE_ERR_INVALID_FILE);
    assert_non_null(strstr(err.message, "footer length"));
    f[8] = 0x00; f[9] = f[10] = f[11] = 0;
    assert_int_equal(pq_meta_read_footer(&a, f, sizeof(f), &fm, &err), SQE_ERR_INVALID_FILE);
    f[8] = 4;  /* 4 zero bytes: a FileMetaData with no fields */
    assert_int_equal(pq_meta_read_footer(&a, f, sizeof(f), &fm, &err), SQE_ERR_INVALID_FILE);
    memcpy(f + 12, "PARE", 4);
    assert_int_equal(pq_meta_read_footer(&a, f, sizeof(f), &fm, &err), SQE_ERR_NOT_SUPPORTED);
    memcpy(f + 12, "PAR2", 4);
    assert_int_equal(pq_meta_read_footer(&a, f, sizeof(f), &fm, &err), SQE_ERR_INVALID_FILE);
    assert_null(fm);
    arena_destroy(&a);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_thrift_varint_zigzag),
        cmocka_unit_test(test_thrift_struct_fields),
        cmocka_unit_test(test_thrift_hostile),
        cmocka_unit_test(test_meta_minimal),
        cmocka_unit_test(test_footer_framing),
        cmocka_unit_test(test_corpus_footers),
        cmocka_unit_test(test_corpus_values),
        cmocka_unit_test(test_corpus_encrypted),
        cmocka_unit_test(test_corpus_bad_data),
        cmocka_unit_test(test_corpus_mutations),
        cmocka_unit_test(test_page_header_mutations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
