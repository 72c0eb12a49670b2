/*
 * test_parquet_writer.c: unit tests of the Parquet writer (src/format/parquet/thrift_write.c,
 * pq_meta_write.c, pq_encode.c, pq_writer.c): every encoder is read back through the existing
 * decoders (thrift.c, pq_meta.c, pq_rle.c, pq_plain.c, pq_codec.c), whole files are re-read
 * with pq_meta_read_footer and their pages decoded, nested columns are checked level by level
 * against the Dremel encoding, the page index and bloom filters are decoded and checked against
 * the pages and values, and
 * failures (bad options, unsupported types, I/O errors, abort) leave no file behind.
 *
 * Interop with pyarrow and DuckDB is tested in tests/parquet/test_writer_interop.py.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "format/parquet/pq_codec.h"
#include "format/parquet/pq_encode.h"
#include "format/parquet/pq_encoding.h"
#include "format/parquet/pq_meta.h"
#include "format/parquet/pq_meta_write.h"
#include "format/parquet/pq_writer.h"
#include "format/parquet/thrift.h"
#include "format/parquet/thrift_write.h"
#include "vec/vec.h"

/* --- helpers ------------------------------------------------------------------------------- */

static uint64_t g_rng = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void) {
    g_rng ^= g_rng >> 12;
    g_rng ^= g_rng << 25;
    g_rng ^= g_rng >> 27;
    return g_rng * 2685821657736338717ull;
}

static char g_dir[256];

static void make_dir(void) {
    snprintf(g_dir, sizeof g_dir, "/tmp/sqe_pqw_XXXXXX");
    assert_non_null(mkdtemp(g_dir));
}

static int count_dir_entries(const char *dir) {
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
    closedir(d);
    return n;
}

static void remove_dir(void) {
    DIR *d = opendir(g_dir);
    if (!d) return;
    struct dirent *e;
    char p[512];
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        snprintf(p, sizeof p, "%s/%s", g_dir, e->d_name);
        unlink(p);
    }
    closedir(d);
    rmdir(g_dir);
}

static uint8_t *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return buf;
}

/* --- Thrift writer ------------------------------------------------------------------------- */

static void test_thrift_roundtrip(void **state) {
    (void)state;
    pq_thrift_writer w;
    pq_thrift_writer_init(&w);
    static const int64_t i64s[] = {0, 1, -1, 63, -64, 64, INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN};
    pq_thrift_struct_open(&w);
    pq_thrift_write_i32_field(&w, 1, -123456);
    pq_thrift_write_bool_field(&w, 2, true);
    pq_thrift_write_bool_field(&w, 3, false);
    pq_thrift_write_i64_field(&w, 40, INT64_MIN); /* long-form header (delta > 15) */
    pq_thrift_write_binary_field(&w, 41, "abc", 3);
    pq_thrift_list_field(&w, 42, PQ_THRIFT_I64, 10);
    for (int i = 0; i < 10; i++) pq_thrift_write_i64(&w, i64s[i]);
    pq_thrift_list_field(&w, 43, PQ_THRIFT_BOOL_TRUE, 20); /* long-form list header */
    for (int i = 0; i < 20; i++) pq_thrift_write_bool_elem(&w, i % 3 == 0);
    pq_thrift_field(&w, PQ_THRIFT_STRUCT, 5); /* id going down: long form again */
    pq_thrift_struct_open(&w);
    pq_thrift_write_i8_field(&w, 1, -7);
    pq_thrift_field(&w, PQ_THRIFT_I16, 2);
    pq_thrift_write_i16(&w, -300);
    pq_thrift_field(&w, PQ_THRIFT_DOUBLE, 3);
    pq_thrift_write_double(&w, 2.5);
    pq_thrift_struct_close(&w);
    pq_thrift_struct_close(&w);
    assert_int_equal(pq_thrift_writer_status(&w, NULL), SQE_OK);

    pq_thrift_reader r;
    sqe_error err;
    pq_thrift_init(&r, w.buf, w.len, &err);
    int type;
    int16_t id;
    assert_int_equal(pq_thrift_struct_begin(&r), SQE_OK);
    assert_int_equal(pq_thrift_field_header(&r, &type, &id), SQE_OK);
    int32_t v32;
    assert_int_equal(id, 1);
    assert_int_equal(pq_thrift_read_i32(&r, &v32), SQE_OK);
    assert_int_equal(v32, -123456);
    assert_int_equal(pq_thrift_field_header(&r, &type, &id), SQE_OK);
    assert_true(id == 2 && pq_thrift_field_bool(type));
    assert_int_equal(pq_thrift_field_header(&r, &type, &id), SQE_OK);
    assert_true(id == 3 && !pq_thrift_field_bool(type) && type == PQ_THRIFT_BOOL_FALSE);
    assert_int_equal(pq_thrift_field_header(&r, &type, &id), SQE_OK);
    int64_t v64;
    assert_true(id == 40 && type == PQ_THRIFT_I64);
    assert_int_equal(pq_thrift_read_i64(&r, &v64), SQE_OK);
    assert_true(v64 == INT64_MIN);
    assert_int_equal(pq_thrift_field_header(&r, &type, &id), SQE_OK);
    const uint8_t *data;
    size_t len;
    assert_int_equal(pq_thrift_read_binary(&r, &data, &len), SQE_OK);
    assert_true(id == 41 && len == 3 && memcmp(data, "abc", 3) == 0);
    assert_int_equal(pq_thrift_field_header(&r, &type, &id), SQE_OK);
    uint32_t count;
    int et;
    assert_int_equal(pq_thrift_list_header(&r, &et, &count), SQE_OK);
    assert_true(id == 42 && et == PQ_THRIFT_I64 && count == 10);
    for (int i = 0; i < 10; i++) {
        assert_int_equal(pq_thrift_read_i64(&r, &v64), SQE_OK);
        assert_true(v64 == i64s[i]);
    }
    assert_int_equal(pq_thrift_field_header(&r, &type, &id), SQE_OK);
    assert_int_equal(pq_thrift_list_header(&r, &et, &count), SQE_OK);
    assert_true(id == 43 && count == 20);
    for (int i = 0; i < 20; i++) {
        bool b;
        assert_int_equal(pq_thrift_read_bool_elem(&r, &b), SQE_OK);
        assert_int_equal(b, i % 3 == 0);
    }
    assert_int_equal(pq_thrift_field_header(&r, &type, &id), SQE_OK);
    assert_true(id == 5 && type == PQ_THRIFT_STRUCT);
    assert_int_equal(pq_thrift_struct_begin(&r), SQE_OK);
    assert_int_equal(pq_thrift_field_header(&r, &type, &id), SQE_OK);
    int8_t v8;
    assert_int_equal(pq_thrift_read_i8(&r, &v8), SQE_OK);
    assert_int_equal(v8, -7);
    assert_int_equal(pq_thrift_field_header(&r, &type, &id), SQE_OK);
    int16_t v16;
    assert_int_equal(pq_thrift_read_i16(&r, &v16), SQE_OK);
    assert_int_equal(v16, -300);
    assert_int_equal(pq_thrift_field_header(&r, &type, &id), SQE_OK);
    double dv;
    assert_int_equal(pq_thrift_read_double(&r, &dv), SQE_OK);
    assert_true(dv == 2.5);
    assert_int_equal(pq_thrift_field_header(&r, &type, &id), SQE_OK);
    assert_int_equal(type, PQ_THRIFT_STOP);
    pq_thrift_struct_end(&r);
    assert_int_equal(pq_thrift_field_header(&r, &type, &id), SQE_OK);
    assert_int_equal(type, PQ_THRIFT_STOP);
    pq_thrift_struct_end(&r);
    assert_int_equal(pq_thrift_remaining(&r), 0);

    /* misuse is reported, not crashed on */
    pq_thrift_writer_clear(&w);
    pq_thrift_struct_close(&w);
    assert_int_equal(pq_thrift_writer_status(&w, &err), SQE_ERR_GENERIC_INTERNAL_ERROR);
    pq_thrift_writer_clear(&w);
    for (int i = 0; i < PQ_THRIFT_MAX_DEPTH + 2; i++) pq_thrift_struct_open(&w);
    assert_int_not_equal(pq_thrift_writer_status(&w, &err), SQE_OK);
    pq_thrift_writer_clear(&w);
    pq_thrift_struct_open(&w);
    assert_int_not_equal(pq_thrift_writer_status(&w, &err), SQE_OK); /* left open */
    pq_thrift_writer_reset(&w);
}

/* --- metadata ------------------------------------------------------------------------------ */

static void test_file_metadata_roundtrip(void **state) {
    (void)state;
    pq_schema_element schema[5];
    memset(schema, 0, sizeof schema);
    schema[0] = (pq_schema_element){.name = "schema", .has_num_children = true, .num_children = 3};
    schema[1] = (pq_schema_element){.name = "a", .has_type = true, .type = PQ_TYPE_INT32,
                                    .has_repetition = true, .repetition_type = PQ_REP_OPTIONAL,
                                    .has_converted_type = true, .converted_type = PQ_CT_INT_16,
                                    .has_field_id = true, .field_id = 7,
                                    .logical = {.kind = PQ_LT_INTEGER, .bit_width = 16, .is_signed = true}};
    schema[2] = (pq_schema_element){.name = "d", .has_type = true, .type = PQ_TYPE_FIXED_LEN_BYTE_ARRAY,
                                    .has_type_length = true, .type_length = 16, .has_repetition = true,
                                    .repetition_type = PQ_REP_OPTIONAL, .has_scale = true, .scale = 10,
                                    .has_precision = true, .precision = 38, .has_converted_type = true,
                                    .converted_type = PQ_CT_DECIMAL,
                                    .logical = {.kind = PQ_LT_DECIMAL, .scale = 10, .precision = 38}};
    schema[3] = (pq_schema_element){.name = "ts", .has_type = true, .type = PQ_TYPE_INT64,
                                    .has_repetition = true, .repetition_type = PQ_REP_REQUIRED,
                                    .logical = {.kind = PQ_LT_TIMESTAMP, .is_adjusted_to_utc = true,
                                                .unit = PQ_UNIT_MICROS}};
    schema[4] = (pq_schema_element){.name = "u", .has_type = true, .type = PQ_TYPE_FIXED_LEN_BYTE_ARRAY,
                                    .has_type_length = true, .type_length = 16,
                                    .logical = {.kind = PQ_LT_UUID}};
    int32_t encodings[] = {PQ_ENC_PLAIN, PQ_ENC_RLE, PQ_ENC_RLE_DICTIONARY};
    char *path[] = {"a"};
    pq_column_chunk cc;
    memset(&cc, 0, sizeof cc);
    cc.has_meta_data = true;
    cc.meta_data = (pq_column_meta){.type = PQ_TYPE_INT32, .encodings = encodings, .n_encodings = 3,
                                    .path_in_schema = path, .n_path_in_schema = 1,
                                    .codec = PQ_CODEC_ZSTD, .num_values = 100,
                                    .total_uncompressed_size = 1000, .total_compressed_size = 500,
                                    .data_page_offset = 40, .has_dictionary_page_offset = true,
                                    .dictionary_page_offset = 4, .has_statistics = true};
    int32_t mn = -5, mx = 77;
    pq_statistics *s = &cc.meta_data.statistics;
    s->has_null_count = s->has_min_value = s->has_max_value = true;
    s->null_count = 3;
    s->min_value = (const uint8_t *)&mn;
    s->min_value_len = 4;
    s->max_value = (const uint8_t *)&mx;
    s->max_value_len = 4;
    s->has_is_max_value_exact = true;
    s->is_max_value_exact = false;
    cc.has_offset_index = cc.has_column_index = true;
    cc.offset_index_offset = 9000;
    cc.offset_index_length = 30;
    cc.column_index_offset = 8000;
    cc.column_index_length = 50;
    pq_row_group rg = {.columns = &cc, .n_columns = 1, .total_byte_size = 1000, .num_rows = 100,
                       .has_file_offset = true, .file_offset = 4, .has_total_compressed_size = true,
                       .total_compressed_size = 500, .has_ordinal = true, .ordinal = 0};
    pq_key_value kv = {"k", "v"};
    int32_t orders[4] = {PQ_ORDER_TYPE_DEFINED, PQ_ORDER_TYPE_DEFINED, PQ_ORDER_TYPE_DEFINED,
                         PQ_ORDER_TYPE_DEFINED};
    pq_file_meta m = {.version = 2, .schema = schema, .n_schema = 5, .num_rows = 100, .row_groups = &rg,
                      .n_row_groups = 1, .key_value_metadata = &kv, .n_key_value_metadata = 1,
                      .created_by = "SQE version test", .column_orders = orders, .n_column_orders = 4};
    pq_thrift_writer w;
    pq_thrift_writer_init(&w);
    sqe_error err;
    assert_int_equal(pq_meta_encode_file_metadata(&w, &m, &err), SQE_OK);
    arena a;
    arena_init(&a, NULL);
    pq_file_meta *d;
    assert_int_equal(pq_meta_decode_file_metadata(&a, w.buf, w.len, &d, &err), SQE_OK);
    assert_int_equal(d->version, 2);
    assert_int_equal(d->n_schema, 5);
    assert_string_equal(d->schema[1].name, "a");
    assert_true(d->schema[1].has_field_id && d->schema[1].field_id == 7);
    assert_int_equal(d->schema[1].logical.kind, PQ_LT_INTEGER);
    assert_int_equal(d->schema[1].logical.bit_width, 16);
    assert_true(d->schema[1].logical.is_signed);
    assert_int_equal(d->schema[2].logical.kind, PQ_LT_DECIMAL);
    assert_int_equal(d->schema[2].logical.precision, 38);
    assert_int_equal(d->schema[2].logical.scale, 10);
    assert_int_equal(d->schema[2].type_length, 16);
    assert_int_equal(d->schema[3].logical.kind, PQ_LT_TIMESTAMP);
    assert_true(d->schema[3].logical.is_adjusted_to_utc);
    assert_int_equal(d->schema[3].logical.unit, PQ_UNIT_MICROS);
    assert_int_equal(d->schema[4].logical.kind, PQ_LT_UUID);
    assert_false(d->schema[4].has_repetition);
    assert_int_equal(d->num_rows, 100);
    assert_int_equal(d->n_row_groups, 1);
    const pq_column_chunk *dc = &d->row_groups[0].columns[0];
    assert_true(dc->has_meta_data && dc->has_offset_index && dc->has_column_index);
    assert_int_equal(dc->offset_index_offset, 9000);
    assert_int_equal(dc->column_index_length, 50);
    assert_int_equal(dc->meta_data.n_encodings, 3);
    assert_int_equal(dc->meta_data.encodings[2], PQ_ENC_RLE_DICTIONARY);
    assert_string_equal(dc->meta_data.path_in_schema[0], "a");
    assert_int_equal(dc->meta_data.dictionary_page_offset, 4);
    assert_true(dc->meta_data.has_statistics);
    const pq_statistics *ds = &dc->meta_data.statistics;
    assert_true(ds->has_null_count && ds->null_count == 3);
    assert_true(ds->has_min_value && ds->min_value_len == 4 && memcmp(ds->min_value, &mn, 4) == 0);
    assert_true(ds->has_is_max_value_exact && !ds->is_max_value_exact);
    assert_false(ds->has_is_min_value_exact);
    assert_true(d->row_groups[0].has_ordinal);
    assert_string_equal(d->created_by, "SQE version test");
    assert_int_equal(d->n_column_orders, 4);
    assert_int_equal(d->column_orders[3], PQ_ORDER_TYPE_DEFINED);
    assert_int_equal(d->n_key_value_metadata, 1);
    assert_string_equal(d->key_value_metadata[0].value, "v");

    /* page headers: v1 with statistics and crc, dictionary, v2 */
    pq_page_header h;
    memset(&h, 0, sizeof h);
    h.type = PQ_PAGE_DATA;
    h.uncompressed_page_size = 1234;
    h.compressed_page_size = 567;
    h.has_crc = true;
    h.crc = -12345;
    h.has_data_page_header = true;
    h.data_page_header = (pq_data_page_header){.num_values = 99, .encoding = PQ_ENC_RLE_DICTIONARY,
                                               .definition_level_encoding = PQ_ENC_RLE,
                                               .repetition_level_encoding = PQ_ENC_RLE,
                                               .has_statistics = true};
    h.data_page_header.statistics.has_null_count = true;
    h.data_page_header.statistics.null_count = 4;
    pq_thrift_writer_clear(&w);
    assert_int_equal(pq_meta_encode_page_header(&w, &h, &err), SQE_OK);
    pq_page_header hd;
    size_t hlen;
    assert_int_equal(pq_meta_decode_page_header(&a, w.buf, w.len, &hd, &hlen, &err), SQE_OK);
    assert_int_equal(hlen, w.len);
    assert_true(hd.has_crc && hd.crc == -12345 && hd.has_data_page_header);
    assert_int_equal(hd.data_page_header.num_values, 99);
    assert_int_equal(hd.data_page_header.encoding, PQ_ENC_RLE_DICTIONARY);
    assert_true(hd.data_page_header.has_statistics && hd.data_page_header.statistics.null_count == 4);
    memset(&h, 0, sizeof h);
    h.type = PQ_PAGE_DICTIONARY;
    h.uncompressed_page_size = h.compressed_page_size = 80;
    h.has_dictionary_page_header = true;
    h.dictionary_page_header = (pq_dictionary_page_header){.num_values = 10, .encoding = PQ_ENC_PLAIN,
                                                           .has_is_sorted = true, .is_sorted = true};
    pq_thrift_writer_clear(&w);
    assert_int_equal(pq_meta_encode_page_header(&w, &h, &err), SQE_OK);
    assert_int_equal(pq_meta_decode_page_header(&a, w.buf, w.len, &hd, &hlen, &err), SQE_OK);
    assert_true(hd.has_dictionary_page_header && hd.dictionary_page_header.num_values == 10);
    assert_true(hd.dictionary_page_header.has_is_sorted && hd.dictionary_page_header.is_sorted);
    memset(&h, 0, sizeof h);
    h.type = PQ_PAGE_DATA_V2;
    h.has_data_page_header_v2 = true;
    h.data_page_header_v2 = (pq_data_page_header_v2){.num_values = 5, .num_nulls = 1, .num_rows = 4,
                                                     .encoding = PQ_ENC_PLAIN,
                                                     .definition_levels_byte_length = 3,
                                                     .repetition_levels_byte_length = 2,
                                                     .is_compressed = false};
    pq_thrift_writer_clear(&w);
    assert_int_equal(pq_meta_encode_page_header(&w, &h, &err), SQE_OK);
    assert_int_equal(pq_meta_decode_page_header(&a, w.buf, w.len, &hd, &hlen, &err), SQE_OK);
    assert_true(hd.has_data_page_header_v2 && !hd.data_page_header_v2.is_compressed);
    assert_int_equal(hd.data_page_header_v2.num_rows, 4);
    assert_int_equal(hd.data_page_header_v2.repetition_levels_byte_length, 2);

    /* a footer without schema or a chunk without metadata is refused */
    pq_file_meta bad = m;
    bad.n_schema = 0;
    pq_thrift_writer_clear(&w);
    assert_int_equal(pq_meta_encode_file_metadata(&w, &bad, &err), SQE_ERR_GENERIC_INTERNAL_ERROR);
    arena_destroy(&a);
    pq_thrift_writer_reset(&w);
}

/* --- RLE / bit-packed hybrid ------------------------------------------------------------------ */

static void check_rle_u32(const uint32_t *v, size_t n, int bw) {
    pq_buf b;
    pq_buf_init(&b, NULL);
    sqe_error err;
    assert_int_equal(pq_rle_encode_u32(v, n, bw, &b, &err), SQE_OK);
    assert_true(b.len <= pq_rle_max_size(n, bw));
    pq_rle_decoder dec;
    assert_int_equal(pq_rle_init(&dec, b.data, b.len, bw, &err), SQE_OK);
    uint32_t *out = malloc((n + 1) * sizeof(uint32_t));
    assert_int_equal(pq_rle_get_exact(&dec, out, (uint32_t)n, &err), SQE_OK);
    for (size_t i = 0; i < n; i++) assert_int_equal(out[i], v[i]);
    free(out);
    pq_buf_reset(&b);
}

static void test_rle_roundtrip(void **state) {
    (void)state;
    enum { N = 5000 };
    uint32_t *v = malloc(N * sizeof(uint32_t));
    for (int bw = 0; bw <= 32; bw++) {
        uint64_t mask = bw == 32 ? 0xffffffffull : ((1ull << bw) - 1);
        size_t lens[] = {0, 1, 7, 8, 9, 63, 64, 65, 511, 512, 513, 1000, N};
        for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
            size_t n = lens[li];
            /* random */
            for (size_t i = 0; i < n; i++) v[i] = (uint32_t)(rnd() & mask);
            check_rle_u32(v, n, bw);
            /* runs of random lengths (1..40) mixed with literals */
            for (size_t i = 0; i < n;) {
                uint32_t x = (uint32_t)(rnd() & mask);
                size_t r = 1 + rnd() % 40;
                for (size_t k = 0; k < r && i < n; k++) v[i++] = rnd() % 4 == 0 ? (uint32_t)(rnd() & mask) : x;
            }
            check_rle_u32(v, n, bw);
            /* one value */
            for (size_t i = 0; i < n; i++) v[i] = (uint32_t)mask;
            check_rle_u32(v, n, bw);
        }
    }
    /* levels (u8): all ones is a single RLE run */
    uint8_t lv[3000];
    memset(lv, 1, sizeof lv);
    pq_buf b;
    pq_buf_init(&b, NULL);
    sqe_error err;
    assert_int_equal(pq_rle_encode_u8(lv, sizeof lv, 1, &b, &err), SQE_OK);
    assert_true(b.len <= 3);
    for (size_t i = 0; i < sizeof lv; i++) lv[i] = (uint8_t)(rnd() % 5 == 0 ? 0 : rnd() % 3);
    pq_buf_clear(&b);
    assert_int_equal(pq_rle_encode_u8(lv, sizeof lv, 2, &b, &err), SQE_OK);
    pq_rle_decoder dec;
    assert_int_equal(pq_rle_init(&dec, b.data, b.len, 2, &err), SQE_OK);
    uint32_t out[3000];
    assert_int_equal(pq_rle_get_exact(&dec, out, 3000, &err), SQE_OK);
    for (size_t i = 0; i < sizeof lv; i++) assert_int_equal(out[i], lv[i]);
    pq_buf_reset(&b);
    free(v);
    assert_int_equal(pq_bit_width(0), 0);
    assert_int_equal(pq_bit_width(1), 1);
    assert_int_equal(pq_bit_width(255), 8);
    assert_int_equal(pq_bit_width(256), 9);
    assert_int_equal(pq_bit_width(UINT32_MAX), 32);
}

/* --- PLAIN ------------------------------------------------------------------------------------ */

static void test_plain(void **state) {
    (void)state;
    sqe_error err;
    pq_buf b;
    pq_buf_init(&b, NULL);
    for (size_t n = 0; n < 70; n++) {
        uint8_t v[70], out[70];
        for (size_t i = 0; i < n; i++) v[i] = (uint8_t)(rnd() & 1);
        pq_buf_clear(&b);
        assert_int_equal(pq_plain_encode_bool(v, n, &b, &err), SQE_OK);
        assert_int_equal(b.len, (n + 7) / 8);
        pq_plain_decoder d;
        pq_plain_init(&d, b.data, b.len);
        assert_int_equal(pq_plain_get_bool(&d, out, (uint32_t)n, &err), SQE_OK);
        for (size_t i = 0; i < n; i++) assert_int_equal(out[i], v[i]);
    }
    const char *strs[] = {"", "a", "hello world", "", "ünïcödé"};
    uint32_t lens[5];
    char data[64];
    size_t at = 0;
    for (int i = 0; i < 5; i++) {
        lens[i] = (uint32_t)strlen(strs[i]);
        memcpy(data + at, strs[i], lens[i]);
        at += lens[i];
    }
    pq_buf_clear(&b);
    assert_int_equal(pq_plain_encode_bytes(lens, (const uint8_t *)data, 5, &b, &err), SQE_OK);
    pq_plain_decoder d;
    pq_plain_init(&d, b.data, b.len);
    pq_bytes out[5];
    assert_int_equal(pq_plain_get_byte_array(&d, out, 5, &err), SQE_OK);
    for (int i = 0; i < 5; i++) {
        assert_int_equal(out[i].len, lens[i]);
        assert_memory_equal(out[i].ptr, strs[i], lens[i] ? lens[i] : 0);
    }
    pq_buf_reset(&b);
}

/* --- dictionary ------------------------------------------------------------------------------- */

static void test_dictionary_fixed(void **state) {
    (void)state;
    sqe_error err;
    uint32_t widths[] = {4, 8, 16, 12, 1};
    enum { N = 20000 };
    uint8_t *vals = malloc((size_t)N * 16);
    uint32_t *idx = malloc(N * sizeof(uint32_t));
    for (size_t wi = 0; wi < sizeof widths / sizeof widths[0]; wi++) {
        uint32_t w = widths[wi];
        pq_dict d;
        pq_dict_init(&d, w, (size_t)1 << 20, NULL);
        for (size_t i = 0; i < N; i++) {
            uint64_t x = rnd() % 3000;
            for (uint32_t k = 0; k < w; k++) vals[i * w + k] = (uint8_t)(x >> (8 * (k % 8))) ^ (uint8_t)(k / 8);
        }
        size_t done;
        assert_int_equal(pq_dict_insert_fixed(&d, vals, N, idx, &done, &err), SQE_OK);
        assert_int_equal(done, N);
        assert_int_equal(d.plain.len, (size_t)d.n * w);
        for (size_t i = 0; i < N; i++) {
            assert_true(idx[i] < d.n);
            assert_memory_equal(d.plain.data + (size_t)idx[i] * w, vals + i * w, w);
        }
        /* entries are distinct */
        for (uint32_t e = 1; e < d.n && e < 300; e++)
            for (uint32_t f = 0; f < e; f++) assert_memory_not_equal(d.plain.data + e * w, d.plain.data + f * w, w);
        /* the limit stops before the first value that would not fit */
        pq_dict_clear(&d, w, 10 * w);
        assert_int_equal(pq_dict_insert_fixed(&d, vals, N, idx, &done, &err), SQE_OK);
        assert_true(done < N);
        assert_int_equal(d.n, 10);
        pq_dict_reset(&d);
    }
    free(vals);
    free(idx);
}

static void test_dictionary_bytes(void **state) {
    (void)state;
    sqe_error err;
    enum { N = 10000 };
    uint32_t *lens = malloc(N * sizeof(uint32_t));
    uint8_t *data = malloc((size_t)N * 40);
    uint32_t *idx = malloc(N * sizeof(uint32_t));
    size_t at = 0;
    for (size_t i = 0; i < N; i++) {
        uint64_t x = rnd() % 500;
        char s[40];
        int n = x == 0 ? 0 : snprintf(s, sizeof s, "value-%llu-%.*s", (unsigned long long)x, (int)(x % 20),
                                      "xxxxxxxxxxxxxxxxxxxxxxxxx");
        lens[i] = (uint32_t)n;
        memcpy(data + at, s, (size_t)n);
        at += (size_t)n;
    }
    pq_dict d;
    pq_dict_init(&d, 0, (size_t)1 << 20, NULL);
    size_t done;
    assert_int_equal(pq_dict_insert_bytes(&d, lens, data, N, idx, &done, &err), SQE_OK);
    assert_int_equal(done, N);
    assert_true(d.n <= 500);
    /* the dictionary page decodes as PLAIN byte arrays, and indices point at equal values */
    pq_plain_decoder pd;
    pq_plain_init(&pd, d.plain.data, d.plain.len);
    pq_bytes *entries = malloc(d.n * sizeof(pq_bytes));
    assert_int_equal(pq_plain_get_byte_array(&pd, entries, d.n, &err), SQE_OK);
    at = 0;
    for (size_t i = 0; i < N; i++) {
        assert_int_equal(entries[idx[i]].len, lens[i]);
        if (lens[i]) assert_memory_equal(entries[idx[i]].ptr, data + at, lens[i]);
        at += lens[i];
    }
    pq_dict_clear(&d, 0, 100);
    assert_int_equal(pq_dict_insert_bytes(&d, lens, data, N, idx, &done, &err), SQE_OK);
    assert_true(done < N && d.plain.len <= 100);
    free(entries);
    pq_dict_reset(&d);
    free(lens);
    free(data);
    free(idx);
}

/* --- compression ------------------------------------------------------------------------------ */

static void test_compressors(void **state) {
    (void)state;
    int codecs[] = {PQ_CODEC_UNCOMPRESSED, PQ_CODEC_SNAPPY, PQ_CODEC_GZIP, PQ_CODEC_BROTLI,
                    PQ_CODEC_ZSTD, PQ_CODEC_LZ4_RAW};
    size_t n = 300000;
    uint8_t *in = malloc(n), *out = malloc(n);
    for (size_t i = 0; i < n; i++) in[i] = (uint8_t)(i % 251 < 100 ? 'a' + i % 7 : rnd());
    sqe_error err;
    for (size_t c = 0; c < sizeof codecs / sizeof codecs[0]; c++) {
        pq_compressor comp;
        assert_int_equal(pq_compressor_init(&comp, codecs[c], 0, &err), SQE_OK);
        pq_buf b;
        pq_buf_init(&b, NULL);
        for (int round = 0; round < 3; round++) { /* context reuse */
            size_t len = round == 2 ? 0 : n / (size_t)(round + 1);
            pq_buf_clear(&b);
            assert_int_equal(pq_compressor_run(&comp, in, len, &b, &err), SQE_OK);
            assert_int_equal(pq_decompress(codecs[c], b.data, b.len, out, len, &err), SQE_OK);
            assert_memory_equal(out, in, len ? len : 0);
        }
        pq_buf_reset(&b);
        pq_compressor_reset(&comp);
    }
    pq_compressor comp;
    assert_int_equal(pq_compressor_init(&comp, PQ_CODEC_LZO, 0, &err), SQE_ERR_NOT_SUPPORTED);
    assert_int_equal(pq_compressor_init(&comp, PQ_CODEC_LZ4, 0, &err), SQE_ERR_NOT_SUPPORTED);
    assert_int_equal(pq_compressor_init(&comp, PQ_CODEC_GZIP, 12, &err), SQE_ERR_INVALID_ARGUMENTS);
    assert_int_equal(pq_compressor_init(&comp, PQ_CODEC_ZSTD, 1000, &err), SQE_ERR_INVALID_ARGUMENTS);
    assert_int_equal(pq_compressor_init(&comp, PQ_CODEC_ZSTD, 19, &err), SQE_OK);
    pq_compressor_reset(&comp);
    free(in);
    free(out);
}

/* --- bloom filters ------------------------------------------------------------------------------ */

/* Reads a BloomFilterHeader: returns numBytes and sets *hlen; checks the three unions. */
static int32_t read_bloom_header(const uint8_t *buf, size_t len, size_t *hlen) {
    pq_thrift_reader r;
    sqe_error err;
    pq_thrift_init(&r, buf, len, &err);
    int type;
    int16_t id;
    int32_t n = -1;
    int unions = 0;
    assert_int_equal(pq_thrift_struct_begin(&r), SQE_OK);
    for (;;) {
        assert_int_equal(pq_thrift_field_header(&r, &type, &id), SQE_OK);
        if (type == PQ_THRIFT_STOP) break;
        if (id == 1) {
            assert_int_equal(pq_thrift_read_i32(&r, &n), SQE_OK);
            continue;
        }
        assert_int_equal(type, PQ_THRIFT_STRUCT);
        assert_true(id >= 2 && id <= 4);
        assert_int_equal(pq_thrift_struct_begin(&r), SQE_OK);
        assert_int_equal(pq_thrift_field_header(&r, &type, &id), SQE_OK);
        assert_true(id == 1 && type == PQ_THRIFT_STRUCT); /* BLOCK / XXHASH / UNCOMPRESSED */
        assert_int_equal(pq_thrift_skip(&r, type), SQE_OK);
        assert_int_equal(pq_thrift_field_header(&r, &type, &id), SQE_OK);
        assert_int_equal(type, PQ_THRIFT_STOP);
        pq_thrift_struct_end(&r);
        unions++;
    }
    pq_thrift_struct_end(&r);
    assert_int_equal(unions, 3);
    *hlen = r.pos;
    return n;
}

static void test_bloom(void **state) {
    (void)state;
    assert_true(pq_sbbf_hash("", 0) == 0xEF46DB3751D8E999ull); /* XXH64 of nothing, seed 0 */
    assert_int_equal(pq_sbbf_bytes(0, 0.01), 32);
    uint32_t big = pq_sbbf_bytes(1000000, 0.01);
    assert_true(big >= 1000000 && (big & (big - 1)) == 0);
    uint32_t n = pq_sbbf_bytes(1000, 0.01);
    uint8_t *bits = calloc(n, 1);
    for (uint64_t i = 0; i < 1000; i++) pq_sbbf_insert(bits, n, pq_sbbf_hash(&i, 8));
    for (uint64_t i = 0; i < 1000; i++) assert_true(pq_sbbf_check(bits, n, pq_sbbf_hash(&i, 8)));
    int fp = 0;
    for (uint64_t i = 1000; i < 11000; i++) fp += pq_sbbf_check(bits, n, pq_sbbf_hash(&i, 8));
    assert_true(fp < 300); /* about 1% of 10000 */
    free(bits);
    pq_thrift_writer w;
    pq_thrift_writer_init(&w);
    assert_int_equal(pq_meta_encode_bloom_header(&w, 4096, NULL), SQE_OK);
    size_t hlen;
    assert_int_equal(read_bloom_header(w.buf, w.len, &hlen), 4096);
    assert_int_equal(hlen, w.len);
    pq_thrift_writer_reset(&w);
}

/* --- statistics ------------------------------------------------------------------------------- */

static void test_stats_kernels(void **state) {
    (void)state;
    double d[] = {NAN, 3.0, -0.0, 2.0, NAN};
    double dmin, dmax;
    assert_true(pq_minmax_f64(d, 5, &dmin, &dmax));
    assert_true(dmin == 0.0 && signbit(dmin) && dmax == 3.0);
    double z[] = {0.0, -0.0};
    assert_true(pq_minmax_f64(z, 2, &dmin, &dmax));
    assert_true(signbit(dmin) && !signbit(dmax));
    float nan2[] = {NAN, NAN};
    float fmin, fmax;
    assert_false(pq_minmax_f32(nan2, 2, &fmin, &fmax));
    uint8_t bools[] = {1, 1, 1};
    uint8_t bmin, bmax;
    pq_minmax_bool(bools, 3, &bmin, &bmax);
    assert_true(bmin == 1 && bmax == 1);
    /* decimals in FLBA compare signed */
    uint8_t flba[3][4] = {{0x00, 0, 0, 5}, {0xff, 0xff, 0xff, 0xfe}, {0x7f, 0, 0, 0}};
    const uint8_t *mn, *mx;
    pq_minmax_flba(&flba[0][0], 3, 4, true, &mn, &mx);
    assert_ptr_equal(mn, flba[1]);
    assert_ptr_equal(mx, flba[2]);
    pq_minmax_flba(&flba[0][0], 3, 4, false, &mn, &mx);
    assert_ptr_equal(mn, flba[0]);
    assert_ptr_equal(mx, flba[1]);
    /* byte arrays: unsigned, shorter first */
    uint32_t lens[] = {2, 1, 3, 1};
    const uint8_t bytes[] = {'a', 'b', 'a', 0xc3, 0xa9, 'x', 'b'};
    pq_bytes bmn, bmx;
    pq_minmax_bytes(lens, bytes, 4, &bmn, &bmx);
    assert_true(bmn.len == 1 && bmn.ptr[0] == 'a');
    assert_true(bmx.len == 3 && bmx.ptr[0] == 0xc3);
}

static void test_truncation(void **state) {
    (void)state;
    uint8_t out[64];
    size_t out_len;
    /* short values stay */
    assert_int_equal(pq_truncate_lower((const uint8_t *)"abc", 3, 8, true), 3);
    assert_true(pq_truncate_upper((const uint8_t *)"abc", 3, 8, true, out, &out_len));
    assert_true(out_len == 3 && memcmp(out, "abc", 3) == 0);
    /* binary: bump the last byte below 0xFF */
    const uint8_t b1[] = {'a', 'b', 0xff, 0xff, 'c'};
    assert_true(pq_truncate_upper(b1, 5, 4, false, out, &out_len));
    assert_true(out_len == 2 && out[0] == 'a' && out[1] == 'c');
    const uint8_t all_ff[] = {0xff, 0xff, 0xff, 0xff, 0xff};
    assert_false(pq_truncate_upper(all_ff, 5, 4, false, out, &out_len));
    /* UTF-8: 'é' (2 bytes) straddling the limit is cut whole */
    const char *s = "abcé"; /* 5 bytes */
    assert_int_equal(pq_truncate_lower((const uint8_t *)s, 5, 4, true), 3);
    assert_int_equal(pq_truncate_lower((const uint8_t *)s, 5, 4, false), 4);
    const char *s2 = "aébcdef";
    assert_true(pq_truncate_upper((const uint8_t *)s2, strlen(s2), 4, true, out, &out_len));
    assert_true(out_len == 4 && memcmp(out, "a\xc3\xa9" "c", 4) == 0);
    /* an incremented code point that needs more bytes than fit: bump the previous one */
    const char *s3 = "ab\x7f" "cdef"; /* U+007F -> U+0080 needs 2 bytes */
    assert_true(pq_truncate_upper((const uint8_t *)s3, strlen(s3), 3, true, out, &out_len));
    assert_true(out_len == 2 && out[0] == 'a' && out[1] == 'c');
    /* U+D7FF + 1 skips the surrogates */
    const char *s4 = "\xed\x9f\xbf" "zz"; /* U+D7FF */
    assert_true(pq_truncate_upper((const uint8_t *)s4, 5, 3, true, out, &out_len));
    assert_true(out_len == 3 && memcmp(out, "\xee\x80\x80", 3) == 0); /* U+E000 */
    /* only U+10FFFF: no upper bound */
    const char *s5 = "\xf4\x8f\xbf\xbf\xf4\x8f\xbf\xbf";
    assert_false(pq_truncate_upper((const uint8_t *)s5, 8, 4, true, out, &out_len));
}

/* --- the writer: files read back ---------------------------------------------------------------- */

typedef struct col_data {
    int64_t n_levels, n_values;
    uint32_t def[20000], rep[20000];
    int64_t ints[20000];
    pq_bytes strs[20000];
    bool dict_seen;
    uint32_t n_pages;
} col_data;

/* Decodes every page of column chunk cc (leaf with max_def/max_rep, physical type) of file. */
static void read_chunk(arena *a, const uint8_t *file, size_t file_len, const pq_column_chunk *cc,
                       int max_def, int max_rep, col_data *out) {
    sqe_error err;
    const pq_column_meta *m = &cc->meta_data;
    int64_t start = m->has_dictionary_page_offset ? m->dictionary_page_offset : m->data_page_offset;
    int64_t end = start + m->total_compressed_size;
    assert_true(end <= (int64_t)file_len);
    pq_bytes dict_s[5000];
    int64_t dict_i[5000];
    uint32_t dict_n = 0;
    int64_t pos = start;
    while (pos < end) {
        pq_page_header h;
        size_t hlen;
        assert_int_equal(pq_meta_decode_page_header(a, file + pos, (size_t)(end - pos), &h, &hlen, &err), SQE_OK);
        const uint8_t *body = file + pos + hlen;
        uint8_t *page = arena_alloc(a, (size_t)h.uncompressed_page_size + 1);
        assert_int_equal(pq_check_page_crc(h.has_crc, h.crc, body, (size_t)h.compressed_page_size, &err), SQE_OK);
        assert_int_equal(pq_decompress(m->codec, body, (size_t)h.compressed_page_size, page,
                                       (size_t)h.uncompressed_page_size, &err),
                         SQE_OK);
        pos += (int64_t)hlen + h.compressed_page_size;
        pq_plain_decoder pd;
        if (h.type == PQ_PAGE_DICTIONARY) {
            out->dict_seen = true;
            dict_n = (uint32_t)h.dictionary_page_header.num_values;
            assert_true(dict_n <= 5000);
            pq_plain_init(&pd, page, (size_t)h.uncompressed_page_size);
            if (m->type == PQ_TYPE_BYTE_ARRAY)
                assert_int_equal(pq_plain_get_byte_array(&pd, dict_s, dict_n, &err), SQE_OK);
            else
                assert_int_equal(pq_plain_get_int64(&pd, dict_i, dict_n, &err), SQE_OK);
            continue;
        }
        assert_int_equal(h.type, PQ_PAGE_DATA);
        out->n_pages++;
        uint32_t nlev = (uint32_t)h.data_page_header.num_values;
        const uint8_t *p = page, *pend = page + h.uncompressed_page_size;
        pq_rle_decoder rd;
        size_t used;
        uint32_t *rep = out->rep + out->n_levels, *def = out->def + out->n_levels;
        if (max_rep) {
            assert_int_equal(pq_rle_init_prefixed(&rd, p, (size_t)(pend - p), pq_bit_width((uint32_t)max_rep), &used, &err), SQE_OK);
            assert_int_equal(pq_rle_get_exact(&rd, rep, nlev, &err), SQE_OK);
            p += used;
        } else {
            for (uint32_t i = 0; i < nlev; i++) rep[i] = 0;
        }
        assert_true(max_def > 0);
        assert_int_equal(pq_rle_init_prefixed(&rd, p, (size_t)(pend - p), pq_bit_width((uint32_t)max_def), &used, &err), SQE_OK);
        assert_int_equal(pq_rle_get_exact(&rd, def, nlev, &err), SQE_OK);
        p += used;
        uint32_t nv = 0;
        for (uint32_t i = 0; i < nlev; i++) nv += def[i] == (uint32_t)max_def;
        out->n_levels += nlev;
        int64_t *ints = out->ints + out->n_values;
        pq_bytes *strs = out->strs + out->n_values;
        if (h.data_page_header.encoding == PQ_ENC_RLE_DICTIONARY) {
            uint32_t idx[20000];
            int bw = *p++;
            assert_int_equal(pq_rle_init(&rd, p, (size_t)(pend - p), bw, &err), SQE_OK);
            assert_int_equal(pq_rle_get_indices(&rd, idx, nv, dict_n, &err), SQE_OK);
            for (uint32_t i = 0; i < nv; i++) {
                if (m->type == PQ_TYPE_BYTE_ARRAY) strs[i] = dict_s[idx[i]];
                else ints[i] = dict_i[idx[i]];
            }
        } else {
            assert_int_equal(h.data_page_header.encoding, PQ_ENC_PLAIN);
            pq_plain_init(&pd, p, (size_t)(pend - p));
            if (m->type == PQ_TYPE_BYTE_ARRAY) {
                assert_int_equal(pq_plain_get_byte_array(&pd, strs, nv, &err), SQE_OK);
            } else if (m->type == PQ_TYPE_INT32) {
                int32_t tmp[20000];
                assert_int_equal(pq_plain_get_int32(&pd, tmp, nv, &err), SQE_OK);
                for (uint32_t i = 0; i < nv; i++) ints[i] = tmp[i];
            } else {
                assert_int_equal(pq_plain_get_int64(&pd, ints, nv, &err), SQE_OK);
            }
            assert_true(pd.pos == pd.end);
        }
        out->n_values += nv;
    }
    assert_int_equal(pos, end);
    assert_int_equal(out->n_levels, m->num_values);
}

/* Decodes the chunk's OffsetIndex and checks each location points at a page header and that
 * page counts agree; returns the number of pages. Checks the ColumnIndex null counts too. */
static uint32_t check_page_index(const uint8_t *file, size_t file_len, const pq_column_chunk *cc,
                                 int64_t rg_rows) {
    assert_true(cc->has_offset_index);
    sqe_error err;
    pq_thrift_reader r;
    pq_thrift_init(&r, file + cc->offset_index_offset, (size_t)cc->offset_index_length, &err);
    int type;
    int16_t id;
    uint32_t n;
    int et;
    assert_int_equal(pq_thrift_struct_begin(&r), SQE_OK);
    assert_int_equal(pq_thrift_field_header(&r, &type, &id), SQE_OK);
    assert_int_equal(id, 1);
    assert_int_equal(pq_thrift_list_header(&r, &et, &n), SQE_OK);
    int64_t prev_row = -1;
    arena a;
    arena_init(&a, NULL);
    for (uint32_t i = 0; i < n; i++) {
        int64_t off = -1, first = -1;
        int32_t size = -1;
        assert_int_equal(pq_thrift_struct_begin(&r), SQE_OK);
        for (;;) {
            assert_int_equal(pq_thrift_field_header(&r, &type, &id), SQE_OK);
            if (type == PQ_THRIFT_STOP) break;
            if (id == 1) assert_int_equal(pq_thrift_read_i64(&r, &off), SQE_OK);
            if (id == 2) assert_int_equal(pq_thrift_read_i32(&r, &size), SQE_OK);
            if (id == 3) assert_int_equal(pq_thrift_read_i64(&r, &first), SQE_OK);
        }
        pq_thrift_struct_end(&r);
        assert_true(first > prev_row && first < rg_rows);
        if (i == 0) assert_int_equal(first, 0);
        prev_row = first;
        pq_page_header h;
        size_t hlen;
        assert_true(off > 0 && off + size <= (int64_t)file_len);
        assert_int_equal(pq_meta_decode_page_header(&a, file + off, (size_t)size, &h, &hlen, &err), SQE_OK);
        assert_int_equal(h.type, PQ_PAGE_DATA);
        assert_int_equal((int64_t)hlen + h.compressed_page_size, size);
    }
    arena_destroy(&a);
    if (cc->has_column_index) {
        pq_thrift_init(&r, file + cc->column_index_offset, (size_t)cc->column_index_length, &err);
        assert_int_equal(pq_thrift_struct_begin(&r), SQE_OK);
        uint32_t lists = 0;
        for (;;) {
            assert_int_equal(pq_thrift_field_header(&r, &type, &id), SQE_OK);
            if (type == PQ_THRIFT_STOP) break;
            if (type == PQ_THRIFT_LIST) {
                uint32_t cnt;
                assert_int_equal(pq_thrift_list_header(&r, &et, &cnt), SQE_OK);
                assert_int_equal(cnt, n);
                lists++;
                for (uint32_t i = 0; i < cnt; i++) assert_int_equal(pq_thrift_skip_elem(&r, et), SQE_OK);
            } else {
                int32_t order;
                assert_int_equal(id, 4);
                assert_int_equal(pq_thrift_read_i32(&r, &order), SQE_OK);
                assert_true(order >= 0 && order <= 2);
            }
        }
        assert_int_equal(lists, 4); /* null_pages, min_values, max_values, null_counts */
    }
    return n;
}

static void test_writer_flat_file(void **state) {
    (void)state;
    make_dir();
    char path[512];
    snprintf(path, sizeof path, "%s/flat.parquet", g_dir);
    sqe_type types[4] = {type_make(TYPE_BIGINT), type_varchar(0), type_make(TYPE_SMALLINT),
                         type_make(TYPE_BIGINT)};
    const char *names[4] = {"id", "s", "small", "k"};
    pq_writer_options o;
    pq_writer_options_init(&o);
    sqe_error err;
    assert_int_equal(pq_writer_options_set(&o, "row_group_size", "2000", &err), SQE_OK);
    assert_int_equal(pq_writer_options_set(&o, "page_row_limit", "700", &err), SQE_OK);
    assert_int_equal(pq_writer_options_set(&o, "compression", "SNAPPY", &err), SQE_OK);
    assert_int_equal(pq_writer_options_set(&o, "page_checksum", "true", &err), SQE_OK);
    assert_int_equal(pq_writer_options_set(&o, "threads", "3", &err), SQE_OK);
    int32_t ids[4] = {10, 11, -1, 13};
    o.field_ids = ids;
    mem_tracker t;
    mem_tracker_init(&t, "test", 0, NULL);
    pq_writer *w;
    assert_int_equal(pq_writer_open(path, 4, names, types, &o, &t, &w, &err), SQE_OK);
    vec_chunk c;
    assert_int_equal(vec_chunk_init(&c, 4, types, 2048, NULL, &err), SQE_OK);
    /* a dictionary-shaped copy of column 0 and a constant for column 3 */
    vec dictsrc;
    assert_int_equal(vec_init(&dictsrc, types[3], 4, NULL, &err), SQE_OK);
    for (int i = 0; i < 4; i++) VEC_DATA(&dictsrc, int64_t)[i] = 1000 + i;
    vec_set_null(&dictsrc, 2);
    enum { ROWS = 6000 };
    int64_t row = 0;
    char sbuf[64];
    while (row < ROWS) {
        vec_chunk_reset(&c);
        uint32_t n = (uint32_t)(ROWS - row < 1500 ? ROWS - row : 1500);
        uint32_t *sel = vec_sel_make(&c.cols[3], &err);
        for (uint32_t i = 0; i < n; i++) {
            int64_t x = row + i;
            VEC_DATA(&c.cols[0], int64_t)[i] = x;
            if (x % 10 == 3) {
                vec_set_null(&c.cols[1], i);
            } else {
                int len = snprintf(sbuf, sizeof sbuf, "s%lld", (long long)(x % 37));
                bool ok = true;
                VEC_DATA(&c.cols[1], sqe_str)[i] = vec_str_copy(&c.cols[1], sbuf, (uint32_t)len, &ok);
            }
            VEC_DATA(&c.cols[2], int16_t)[i] = (int16_t)(x * 13 % 65536 - 32768);
            sel[i] = (uint32_t)(x % 4);
        }
        vec_set_dict(&c.cols[3], &dictsrc, sel);
        c.count = n;
        assert_int_equal(pq_writer_write(w, &c, &err), SQE_OK);
        row += n;
    }
    uint64_t rows = 0;
    assert_int_equal(pq_writer_close(w, &rows, &err), SQE_OK);
    assert_int_equal(rows, ROWS);
    assert_int_equal(t.used, 0); /* everything charged was released */
    assert_int_equal(count_dir_entries(g_dir), 1);

    size_t len;
    uint8_t *file = read_file(path, &len);
    arena a;
    arena_init(&a, NULL);
    pq_file_meta *m;
    assert_int_equal(pq_meta_read_footer(&a, file, len, &m, &err), SQE_OK);
    assert_int_equal(m->num_rows, ROWS);
    assert_int_equal(m->n_row_groups, 3);
    assert_int_equal(m->n_schema, 5);
    assert_int_equal(m->schema[0].num_children, 4);
    assert_true(m->schema[1].has_field_id && m->schema[1].field_id == 10);
    assert_false(m->schema[3].has_field_id);
    assert_int_equal(m->schema[2].logical.kind, PQ_LT_STRING);
    assert_int_equal(m->schema[3].logical.kind, PQ_LT_INTEGER);
    assert_int_equal(m->schema[3].logical.bit_width, 16);
    assert_int_equal(m->schema[3].type, PQ_TYPE_INT32);
    assert_int_equal(m->schema[1].repetition_type, PQ_REP_OPTIONAL);
    assert_int_equal(m->n_column_orders, 4);
    assert_non_null(strstr(m->created_by, "SQE version"));
    static col_data cd;
    for (uint32_t g = 0; g < m->n_row_groups; g++) {
        const pq_row_group *rg = &m->row_groups[g];
        assert_int_equal(rg->num_rows, 2000);
        for (uint32_t col = 0; col < 4; col++) {
            memset(&cd, 0, sizeof cd);
            const pq_column_chunk *cc = &rg->columns[col];
            read_chunk(&a, file, len, cc, 1, 0, &cd);
            assert_int_equal(cd.n_levels, 2000);
            assert_int_equal(check_page_index(file, len, cc, rg->num_rows), cd.n_pages);
            assert_int_equal(cd.n_pages, 3); /* 700 + 700 + 600 rows */
            int64_t v = 0;
            for (int64_t i = 0; i < 2000; i++) {
                int64_t x = (int64_t)g * 2000 + i;
                switch (col) {
                case 0:
                    assert_int_equal(cd.def[i], 1);
                    assert_int_equal(cd.ints[v++], x);
                    break;
                case 1:
                    if (x % 10 == 3) {
                        assert_int_equal(cd.def[i], 0);
                    } else {
                        int n = snprintf(sbuf, sizeof sbuf, "s%lld", (long long)(x % 37));
                        assert_int_equal(cd.strs[v].len, n);
                        assert_memory_equal(cd.strs[v].ptr, sbuf, (size_t)n);
                        v++;
                    }
                    break;
                case 2:
                    assert_int_equal(cd.ints[v++], x * 13 % 65536 - 32768);
                    break;
                default:
                    if (x % 4 == 2) {
                        assert_int_equal(cd.def[i], 0);
                    } else {
                        assert_int_equal(cd.ints[v++], 1000 + x % 4);
                    }
                }
            }
            assert_int_equal(cd.n_values, v);
            const pq_statistics *s = &cc->meta_data.statistics;
            assert_true(cc->meta_data.has_statistics && s->has_null_count);
            assert_int_equal(s->null_count, 2000 - v);
            if (col == 0) {
                int64_t mn, mx;
                memcpy(&mn, s->min_value, 8);
                memcpy(&mx, s->max_value, 8);
                assert_int_equal(mn, g * 2000);
                assert_int_equal(mx, g * 2000 + 1999);
                assert_false(cd.dict_seen); /* unique: PLAIN */
            }
            if (col == 1) {
                /* the bloom filter holds every value */
                assert_true(cc->meta_data.has_bloom_filter_offset && cc->meta_data.has_bloom_filter_length);
                const uint8_t *bf = file + cc->meta_data.bloom_filter_offset;
                size_t hlen;
                int32_t nb = read_bloom_header(bf, (size_t)cc->meta_data.bloom_filter_length, &hlen);
                assert_int_equal((int64_t)hlen + nb, cc->meta_data.bloom_filter_length);
                for (int64_t k = 0; k < v; k++)
                    assert_true(pq_sbbf_check(bf + hlen, (uint32_t)nb, pq_sbbf_hash(cd.strs[k].ptr, cd.strs[k].len)));
                assert_false(pq_sbbf_check(bf + hlen, (uint32_t)nb, pq_sbbf_hash("s37", 3)) &&
                             pq_sbbf_check(bf + hlen, (uint32_t)nb, pq_sbbf_hash("s38", 3)) &&
                             pq_sbbf_check(bf + hlen, (uint32_t)nb, pq_sbbf_hash("nope", 4)));
                assert_true(cd.dict_seen); /* 37 distinct strings */
                assert_true(s->min_value_len == 2 && memcmp(s->min_value, "s0", 2) == 0);
                assert_true(s->max_value_len == 2 && memcmp(s->max_value, "s9", 2) == 0);
            }
            assert_int_equal(cc->meta_data.codec, PQ_CODEC_SNAPPY);
        }
    }
    arena_destroy(&a);
    free(file);
    vec_destroy(&dictsrc);
    vec_chunk_destroy(&c);
    remove_dir();
}

/* array(bigint) and row(a bigint, b array(varchar)) shredded into levels (Dremel). */
static void test_writer_nested_levels(void **state) {
    (void)state;
    make_dir();
    char path[512];
    snprintf(path, sizeof path, "%s/nested.parquet", g_dir);
    sqe_type elem = type_make(TYPE_BIGINT);
    sqe_type arr = type_array(elem);
    sqe_type inner = type_array(type_varchar(0));
    sqe_type fields[2] = {type_make(TYPE_BIGINT), inner};
    const char *fnames[2] = {"a", "b"};
    sqe_type rowt = type_row(2, fields, fnames);
    sqe_type types[2] = {arr, rowt};
    const char *names[2] = {"arr", "r"};
    sqe_error err;
    pq_writer *w;
    pq_writer_options o;
    pq_writer_options_init(&o);
    o.codec = PQ_CODEC_UNCOMPRESSED;
    assert_int_equal(pq_writer_open(path, 2, names, types, &o, NULL, &w, &err), SQE_OK);
    vec_chunk c;
    assert_int_equal(vec_chunk_init(&c, 2, types, 8, NULL, &err), SQE_OK);
    /* arr rows: [1, 2], NULL, [], [NULL, 5] */
    vec *av = &c.cols[0], *ae = &av->children[0];
    assert_int_equal(vec_reserve(ae, 8, &err), SQE_OK);
    int64_t ev[] = {1, 2, 0, 5};
    for (int i = 0; i < 4; i++) VEC_DATA(ae, int64_t)[i] = ev[i];
    vec_set_null(ae, 2);
    av->child_len = 4;
    sqe_list_entry le[] = {{0, 2}, {0, 0}, {2, 0}, {2, 2}};
    memcpy(av->data, le, sizeof le);
    vec_set_null(av, 1);
    /* r rows: {a=7, b=['x']}, NULL, {a=NULL, b=NULL}, {a=9, b=[]} */
    vec *rv = &c.cols[1], *ra = &rv->children[0], *rb = &rv->children[1], *rbe = &rb->children[0];
    VEC_DATA(ra, int64_t)[0] = 7;
    VEC_DATA(ra, int64_t)[3] = 9;
    vec_set_null(ra, 2);
    vec_set_null(rv, 1);
    sqe_list_entry rle[] = {{0, 1}, {0, 0}, {1, 0}, {1, 0}};
    memcpy(rb->data, rle, sizeof rle);
    vec_set_null(rb, 2);
    bool ok = true;
    VEC_DATA(rbe, sqe_str)[0] = vec_str_copy(rbe, "x", 1, &ok);
    rb->child_len = 1;
    c.count = 4;
    assert_int_equal(pq_writer_write(w, &c, &err), SQE_OK);
    uint64_t rows;
    assert_int_equal(pq_writer_close(w, &rows, &err), SQE_OK);
    assert_int_equal(rows, 4);

    size_t len;
    uint8_t *file = read_file(path, &len);
    arena a;
    arena_init(&a, NULL);
    pq_file_meta *m;
    assert_int_equal(pq_meta_read_footer(&a, file, len, &m, &err), SQE_OK);
    /* schema: root, arr (LIST), list, element, r, a, b (LIST), list, element */
    assert_int_equal(m->n_schema, 9);
    assert_int_equal(m->schema[1].converted_type, PQ_CT_LIST);
    assert_int_equal(m->schema[2].repetition_type, PQ_REP_REPEATED);
    assert_string_equal(m->schema[3].name, "element");
    assert_int_equal(m->row_groups[0].n_columns, 3);
    assert_int_equal(m->row_groups[0].columns[0].meta_data.n_path_in_schema, 3);
    assert_string_equal(m->row_groups[0].columns[0].meta_data.path_in_schema[1], "list");
    static col_data cd;
    /* arr.list.element: max_def 3, max_rep 1 */
    memset(&cd, 0, sizeof cd);
    read_chunk(&a, file, len, &m->row_groups[0].columns[0], 3, 1, &cd);
    uint32_t want_def0[] = {3, 3, 0, 1, 2, 3}, want_rep0[] = {0, 1, 0, 0, 0, 1};
    assert_int_equal(cd.n_levels, 6);
    for (int i = 0; i < 6; i++) {
        assert_int_equal(cd.def[i], want_def0[i]);
        assert_int_equal(cd.rep[i], want_rep0[i]);
    }
    assert_int_equal(cd.n_values, 3);
    assert_true(cd.ints[0] == 1 && cd.ints[1] == 2 && cd.ints[2] == 5);
    assert_int_equal(m->row_groups[0].columns[0].meta_data.statistics.null_count, 3);
    /* r.a: max_def 2 */
    memset(&cd, 0, sizeof cd);
    read_chunk(&a, file, len, &m->row_groups[0].columns[1], 2, 0, &cd);
    uint32_t want_def1[] = {2, 0, 1, 2};
    for (int i = 0; i < 4; i++) assert_int_equal(cd.def[i], want_def1[i]);
    /* r.b.list.element: max_def 4, max_rep 1 */
    memset(&cd, 0, sizeof cd);
    read_chunk(&a, file, len, &m->row_groups[0].columns[2], 4, 1, &cd);
    uint32_t want_def2[] = {4, 0, 1, 2};
    assert_int_equal(cd.n_levels, 4);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(cd.def[i], want_def2[i]);
        assert_int_equal(cd.rep[i], 0);
    }
    assert_true(cd.n_values == 1 && cd.strs[0].len == 1 && cd.strs[0].ptr[0] == 'x');
    arena_destroy(&a);
    free(file);
    vec_chunk_destroy(&c);
    remove_dir();
}

/* --- failures ---------------------------------------------------------------------------------- */

static void test_options(void **state) {
    (void)state;
    pq_writer_options o;
    pq_writer_options_init(&o);
    sqe_error err;
    assert_int_equal(o.codec, PQ_CODEC_ZSTD);
    assert_int_equal(o.row_group_rows, 122880);
    assert_true(o.dictionary && o.write_page_index && o.write_statistics);
    assert_int_equal(pq_writer_options_set(&o, "compression", "lz4", &err), SQE_OK);
    assert_int_equal(o.codec, PQ_CODEC_LZ4_RAW);
    assert_int_equal(pq_writer_options_set(&o, "Compression", "uncompressed", &err), SQE_OK);
    assert_int_equal(o.codec, PQ_CODEC_UNCOMPRESSED);
    assert_int_equal(pq_writer_options_set(&o, "row_group_size_bytes", "64MB", &err), SQE_OK);
    assert_int_equal(o.row_group_bytes, 64000000);
    assert_int_equal(pq_writer_options_set(&o, "page_size", "1MiB", &err), SQE_OK);
    assert_int_equal(o.page_bytes, 1048576);
    assert_int_equal(pq_writer_options_set(&o, "dictionary", "false", &err), SQE_OK);
    assert_false(o.dictionary);
    assert_int_equal(pq_writer_options_set(&o, "compression_level", "-3", &err), SQE_OK);
    assert_int_equal(o.compression_level, -3);
    pq_writer_options before = o;
    assert_int_equal(pq_writer_options_set(&o, "compression", "lzo", &err), SQE_ERR_INVALID_ARGUMENTS);
    assert_non_null(strstr(err.message, "compression"));
    assert_int_equal(pq_writer_options_set(&o, "row_group_size", "0", &err), SQE_ERR_INVALID_ARGUMENTS);
    assert_int_equal(pq_writer_options_set(&o, "row_group_size", "12abc", &err), SQE_ERR_INVALID_ARGUMENTS);
    assert_int_equal(pq_writer_options_set(&o, "row_group_size", "-1", &err), SQE_ERR_INVALID_ARGUMENTS);
    assert_int_equal(pq_writer_options_set(&o, "dictionary", "maybe", &err), SQE_ERR_INVALID_ARGUMENTS);
    assert_non_null(strstr(err.message, "dictionary"));
    assert_int_equal(pq_writer_options_set(&o, "compression_level", "x", &err), SQE_ERR_INVALID_ARGUMENTS);
    assert_int_equal(pq_writer_options_set(&o, "bogus", "1", &err), SQE_ERR_INVALID_ARGUMENTS);
    assert_non_null(strstr(err.message, "bogus"));
    assert_memory_equal(&o, &before, sizeof o);
}

static void test_failures_leave_nothing(void **state) {
    (void)state;
    make_dir();
    char path[512];
    sqe_error err;
    pq_writer *w = (pq_writer *)1;
    sqe_type ok_types[1] = {type_make(TYPE_INTEGER)};
    const char *names[2] = {"a", "b"};
    /* missing directory */
    snprintf(path, sizeof path, "%s/missing/x.parquet", g_dir);
    assert_int_equal(pq_writer_open(path, 1, names, ok_types, NULL, NULL, &w, &err), SQE_ERR_IO_ERROR);
    assert_null(w);
    assert_non_null(strstr(err.message, "missing/x.parquet"));
    /* unsupported types */
    snprintf(path, sizeof path, "%s/x.parquet", g_dir);
    sqe_type bad[2] = {type_make(TYPE_INTEGER), type_make(TYPE_INTERVAL_DS)};
    assert_int_equal(pq_writer_open(path, 2, names, bad, NULL, NULL, &w, &err), SQE_ERR_NOT_SUPPORTED);
    assert_non_null(strstr(err.message, "unsupported"));
    sqe_type nested_bad[1] = {type_array(type_make(TYPE_INTERVAL_YM))};
    assert_int_equal(pq_writer_open(path, 1, names, nested_bad, NULL, NULL, &w, &err), SQE_ERR_NOT_SUPPORTED);
    /* bad level for the codec */
    pq_writer_options o;
    pq_writer_options_init(&o);
    o.codec = PQ_CODEC_GZIP;
    o.compression_level = 20;
    assert_int_equal(pq_writer_open(path, 1, names, ok_types, &o, NULL, &w, &err), SQE_ERR_INVALID_ARGUMENTS);
    assert_int_equal(count_dir_entries(g_dir), 0);
    /* abort after writing */
    assert_int_equal(pq_writer_open(path, 1, names, ok_types, NULL, NULL, &w, &err), SQE_OK);
    assert_int_equal(count_dir_entries(g_dir), 1); /* the temporary file */
    vec_chunk c;
    assert_int_equal(vec_chunk_init(&c, 1, ok_types, 100, NULL, &err), SQE_OK);
    for (int i = 0; i < 100; i++) VEC_DATA(&c.cols[0], int32_t)[i] = i;
    c.count = 100;
    assert_int_equal(pq_writer_write(w, &c, &err), SQE_OK);
    pq_writer_abort(w);
    assert_int_equal(count_dir_entries(g_dir), 0);
    /* a chunk of the wrong shape */
    assert_int_equal(pq_writer_open(path, 2, names, bad, NULL, NULL, &w, &err), SQE_ERR_NOT_SUPPORTED);
    sqe_type two[2] = {type_make(TYPE_INTEGER), type_make(TYPE_INTEGER)};
    assert_int_equal(pq_writer_open(path, 2, names, two, NULL, NULL, &w, &err), SQE_OK);
    assert_int_equal(pq_writer_write(w, &c, &err), SQE_ERR_GENERIC_INTERNAL_ERROR);
    pq_writer_abort(w);
    assert_int_equal(count_dir_entries(g_dir), 0);
    /* a NULL map key */
    sqe_type mt[1] = {type_map(type_varchar(0), type_make(TYPE_INTEGER))};
    assert_int_equal(pq_writer_open(path, 1, names, mt, NULL, NULL, &w, &err), SQE_OK);
    vec_chunk mc;
    assert_int_equal(vec_chunk_init(&mc, 1, mt, 4, NULL, &err), SQE_OK);
    sqe_list_entry e = {0, 1};
    memcpy(mc.cols[0].data, &e, sizeof e);
    vec_set_null(&mc.cols[0].children[0], 0);
    mc.cols[0].child_len = 1;
    mc.count = 1;
    assert_int_equal(pq_writer_write(w, &mc, &err), SQE_ERR_INVALID_ARGUMENTS);
    pq_writer_abort(w);
    assert_int_equal(count_dir_entries(g_dir), 0);
    /* zero rows make a valid file */
    assert_int_equal(pq_writer_open(path, 1, names, ok_types, NULL, NULL, &w, &err), SQE_OK);
    uint64_t rows = 99;
    assert_int_equal(pq_writer_close(w, &rows, &err), SQE_OK);
    assert_int_equal(rows, 0);
    size_t len;
    uint8_t *file = read_file(path, &len);
    arena a;
    arena_init(&a, NULL);
    pq_file_meta *m;
    assert_int_equal(pq_meta_read_footer(&a, file, len, &m, &err), SQE_OK);
    assert_int_equal(m->num_rows, 0);
    assert_int_equal(m->n_row_groups, 0);
    arena_destroy(&a);
    free(file);
    pq_writer_abort(NULL);
    vec_chunk_destroy(&c);
    vec_chunk_destroy(&mc);
    remove_dir();
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_thrift_roundtrip),
        cmocka_unit_test(test_file_metadata_roundtrip),
        cmocka_unit_test(test_rle_roundtrip),
        cmocka_unit_test(test_plain),
        cmocka_unit_test(test_dictionary_fixed),
        cmocka_unit_test(test_dictionary_bytes),
        cmocka_unit_test(test_compressors),
        cmocka_unit_test(test_bloom),
        cmocka_unit_test(test_stats_kernels),
        cmocka_unit_test(test_truncation),
        cmocka_unit_test(test_writer_flat_file),
        cmocka_unit_test(test_writer_nested_levels),
        cmocka_unit_test(test_options),
        cmocka_unit_test(test_failures_leave_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
