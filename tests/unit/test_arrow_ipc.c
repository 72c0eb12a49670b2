/*
 * test_arrow_ipc.c: unit tests for src/format/arrow: the FlatBuffers builder/reader, schema and
 * record batch round trips for every SQE type and vector shape, slicing, framing, and decoding
 * of damaged input (every truncation and byte flip of valid messages must fail cleanly or
 * decode, never crash). Interoperability with pyarrow is in tests/arrow/.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/err.h"
#include "format/arrow/arrow_ipc.h"
#include "format/arrow/flatbuf.h"

/* ---- FlatBuffers ---------------------------------------------------------------------------- */

static void test_flatbuf_roundtrip(void **state) {
    (void)state;
    fb_builder b;
    fb_builder_init(&b);
    fb_ref s = fb_create_string(&b, "hello", 5);
    int64_t pairs[4] = {1, 2, 3, 4};
    fb_ref pvec = fb_create_vector(&b, pairs, 16, 2, 8);
    fb_table_start(&b);
    fb_table_add_i32(&b, 0, 42);
    fb_ref inner = fb_table_end(&b);
    fb_ref kids[2] = {inner, inner};
    fb_ref kv = fb_create_vector_refs(&b, kids, 2);
    fb_table_start(&b);
    fb_table_add_u8(&b, 0, 7);
    fb_table_add_i16(&b, 1, -3);
    fb_table_add_i64(&b, 2, INT64_MIN);
    fb_table_add_ref(&b, 3, s);
    fb_table_add_ref(&b, 4, pvec);
    fb_table_add_ref(&b, 5, inner);
    fb_table_add_ref(&b, 6, kv);
    /* slot 7 left out: default */
    fb_table_add_i32(&b, 8, 99);
    fb_ref root = fb_table_end(&b);
    const uint8_t *buf;
    size_t len;
    assert_true(fb_builder_finish(&b, root, &buf, &len));
    assert_int_equal(len % 8, 0);

    fb_reader r;
    fb_table t, sub;
    assert_true(fb_reader_root(&r, buf, len, &t));
    assert_int_equal(fb_get_u8(&t, 0, 0), 7);
    assert_int_equal(fb_get_i16(&t, 1, 0), -3);
    assert_true(fb_get_i64(&t, 2, 0) == INT64_MIN);
    const char *str;
    uint32_t slen;
    assert_true(fb_get_string(&t, 3, &str, &slen));
    assert_int_equal(slen, 5);
    assert_memory_equal(str, "hello", 5);
    fb_vector v;
    assert_true(fb_get_vector(&t, 4, 16, &v));
    assert_int_equal(v.n, 2);
    int64_t got[4];
    memcpy(got, fb_vector_data(&v), 32);
    assert_memory_equal(got, pairs, 32);
    assert_true(fb_get_table(&t, 5, &sub));
    assert_int_equal(fb_get_i32(&sub, 0, 0), 42);
    assert_true(fb_get_vector(&t, 6, 4, &v));
    assert_true(fb_vector_table(&v, 1, &sub));
    assert_int_equal(fb_get_i32(&sub, 0, 0), 42);
    assert_false(fb_vector_table(&v, 2, &sub));
    assert_int_equal(fb_get_i32(&t, 7, -5), -5);
    assert_int_equal(fb_get_i32(&t, 8, 0), 99);
    assert_int_equal(fb_get_i32(&t, 30, 11), 11);
    assert_false(r.bad);

    /* every truncation: no crash, and reads never succeed past the end */
    for (size_t cut = 0; cut < len; cut++) {
        uint8_t *copy = malloc(cut ? cut : 1);
        memcpy(copy, buf, cut);
        fb_reader r2;
        fb_table t2, s2;
        if (fb_reader_root(&r2, copy, cut, &t2)) {
            (void)fb_get_string(&t2, 3, &str, &slen);
            (void)fb_get_table(&t2, 5, &s2);
            (void)fb_get_i64(&t2, 2, 0);
        }
        free(copy);
    }
    fb_builder_reset(&b);
}

static void test_flatbuf_misuse(void **state) {
    (void)state;
    fb_builder b;
    fb_builder_init(&b);
    fb_table_start(&b);
    fb_table_add_i32(&b, 0, 1);
    fb_table_add_i32(&b, 0, 2); /* same slot twice */
    fb_ref t = fb_table_end(&b);
    const uint8_t *buf;
    size_t len;
    assert_false(fb_builder_finish(&b, t, &buf, &len));
    fb_builder_reset(&b);
    fb_builder_init(&b);
    fb_table_start(&b);
    (void)fb_create_string(&b, "x", 1); /* object inside a table */
    assert_true(b.failed);
    fb_builder_reset(&b);
}

/* ---- Helpers -------------------------------------------------------------------------------- */

static sqe_type parse(const char *s) {
    sqe_type t;
    assert_int_equal(type_parse(s, strlen(s), &t), 0);
    return t;
}

static void put_str(vec *v, uint32_t row, const char *s) {
    bool ok = true;
    VEC_DATA(v, sqe_str)[row] = vec_str_copy(v, s, (uint32_t)strlen(s), &ok);
    assert_true(ok);
}

/* Encodes rows of chunk as one message pair (header, body). */
static void encode(const vec_chunk *c, uint32_t start, uint32_t n, arrow_buf *h, arrow_buf *b) {
    sqe_error err;
    arrow_buf_init(h);
    arrow_buf_init(b);
    int rc = arrow_batch_encode(c, start, n, h, b, &err);
    if (rc) fail_msg("encode: %s", err.message);
    assert_int_equal(b->len % 8, 0);
}

static void schema_of(const vec_chunk *c, arrow_column *cols, arrow_schema *s) {
    for (uint32_t i = 0; i < c->n_cols; i++)
        cols[i] = (arrow_column){.name = "c", .type = c->cols[i].type, .nullable = true};
    *s = (arrow_schema){.n_cols = c->n_cols, .cols = cols};
}

/* schema -> message -> decoded schema (in arena a). */
static void schema_roundtrip(const arrow_schema *in, arena *a, arrow_schema *out) {
    sqe_error err;
    arrow_buf h;
    arrow_buf_init(&h);
    assert_int_equal(arrow_schema_encode(in, &h, &err), SQE_OK);
    int rc = arrow_schema_decode(h.data, h.len, a, out, &err);
    if (rc) fail_msg("schema decode: %s", err.message);
    arrow_buf_reset(&h);
}

/* Asserts encode(decode(encode(c))) == encode(c) byte for byte (lossless types only). */
static void assert_batch_roundtrip(const vec_chunk *c) {
    arrow_column cols[32];
    arrow_schema s, ds;
    schema_of(c, cols, &s);
    arena a;
    arena_init(&a, NULL);
    schema_roundtrip(&s, &a, &ds);
    for (uint32_t i = 0; i < c->n_cols; i++) assert_true(type_equal(ds.cols[i].type, c->cols[i].type));
    arrow_buf h, b, h2, b2;
    encode(c, 0, c->count, &h, &b);
    vec_chunk d;
    sqe_error err;
    int rc = arrow_batch_decode(&ds, h.data, h.len, b.data, b.len, NULL, &d, &err);
    if (rc) fail_msg("decode: %s", err.message);
    assert_int_equal(d.count, c->count);
    encode(&d, 0, d.count, &h2, &b2);
    assert_int_equal(h.len, h2.len);
    assert_memory_equal(h.data, h2.data, h.len);
    assert_int_equal(b.len, b2.len);
    if (b.len) assert_memory_equal(b.data, b2.data, b.len);
    vec_chunk_destroy(&d);
    arrow_buf_reset(&h);
    arrow_buf_reset(&b);
    arrow_buf_reset(&h2);
    arrow_buf_reset(&b2);
    arena_destroy(&a);
}

/* A chunk of 5 rows with one column per scalar type, NULLs in row 1. */
static const char *const SCALAR_TYPES[] = {
    "boolean", "tinyint", "smallint", "integer", "bigint", "real", "double", "decimal(9,3)",
    "decimal(38,10)", "varchar", "varbinary", "json", "date", "time(6)", "timestamp(6)",
    "timestamp(6) with time zone", "interval day to second", "interval year to month", "uuid",
};
#define N_SCALAR (sizeof SCALAR_TYPES / sizeof SCALAR_TYPES[0])

static void make_scalar_chunk(vec_chunk *c, uint32_t rows) {
    sqe_type types[N_SCALAR];
    for (size_t i = 0; i < N_SCALAR; i++) types[i] = parse(SCALAR_TYPES[i]);
    assert_int_equal(vec_chunk_init(c, N_SCALAR, types, rows, NULL, NULL), SQE_OK);
    for (uint32_t r = 0; r < rows; r++) {
        for (uint32_t k = 0; k < N_SCALAR; k++) {
            vec *v = &c->cols[k];
            if (r % 5 == 1) {
                vec_set_null(v, r);
                memset((char *)v->data + type_physical_size(v->type) * r, 0, type_physical_size(v->type));
                continue;
            }
            int64_t x = (int64_t)r * 7919 - 20;
            switch (v->type.id) {
            case TYPE_BOOLEAN: VEC_DATA(v, uint8_t)[r] = r & 1; break;
            case TYPE_TINYINT: VEC_DATA(v, int8_t)[r] = (int8_t)x; break;
            case TYPE_SMALLINT: VEC_DATA(v, int16_t)[r] = (int16_t)x; break;
            case TYPE_INTEGER:
            case TYPE_DATE:
            case TYPE_INTERVAL_YM: VEC_DATA(v, int32_t)[r] = (int32_t)x; break;
            case TYPE_BIGINT:
            case TYPE_TIME:
            case TYPE_TIMESTAMP:
            case TYPE_INTERVAL_DS: VEC_DATA(v, int64_t)[r] = x * 1000003; break;
            case TYPE_REAL: VEC_DATA(v, float)[r] = (float)x / 3; break;
            case TYPE_DOUBLE: VEC_DATA(v, double)[r] = (double)x / 7; break;
            case TYPE_DECIMAL:
                if (type_decimal_is_long(v->type)) VEC_DATA(v, int128)[r] = (int128)x * INT64_MAX;
                else VEC_DATA(v, int64_t)[r] = x;
                break;
            case TYPE_TIMESTAMP_TZ: VEC_DATA(v, sqe_timestamp_tz)[r] = (sqe_timestamp_tz){x, 0, 0}; break;
            case TYPE_UUID: memset((char *)v->data + 16 * r, (int)r, 16); break;
            default: {
                char buf[64] = "";
                if (r % 5 != 3) snprintf(buf, sizeof buf, "value %u with some length", r);
                put_str(v, r, buf);
            }
            }
        }
    }
    c->count = rows;
}

/* ---- Schema --------------------------------------------------------------------------------- */

static void test_schema_all_types(void **state) {
    (void)state;
    const char *names[] = {"boolean", "tinyint", "smallint", "integer", "bigint", "real", "double",
                           "decimal(3,1)", "decimal(38,38)", "varchar", "varchar(10)", "char(4)",
                           "varbinary", "json", "date", "time(6)", "timestamp(6)", "timestamp(3)",
                           "timestamp(6) with time zone", "interval day to second",
                           "interval year to month", "uuid", "unknown", "array(integer)",
                           "map(varchar, array(row(a bigint, b double)))",
                           "row(x integer, y row(z varchar))"};
    const char *expect[] = {"boolean", "tinyint", "smallint", "integer", "bigint", "real", "double",
                            "decimal(3,1)", "decimal(38,38)", "varchar", "varchar", "varchar",
                            "varbinary", "json", "date", "time(6)", "timestamp(6)", "timestamp(3)",
                            "timestamp(6) with time zone", "interval day to second",
                            "interval year to month", "uuid", "unknown", "array(integer)",
                            "map(varchar, array(row(a bigint, b double)))",
                            "row(x integer, y row(z varchar))"};
    size_t n = sizeof names / sizeof names[0];
    arrow_column cols[32];
    arrow_kv meta[2] = {{"ARROW:FLIGHT:SQL:TABLE_NAME", "t1"}, {"k", ""}};
    for (size_t i = 0; i < n; i++) {
        cols[i] = (arrow_column){.name = names[i], .type = parse(names[i]), .nullable = i % 2 == 0};
        if (i == 3) cols[i].meta = meta, cols[i].n_meta = 2;
    }
    arrow_kv smeta[1] = {{"x", "y"}};
    arrow_schema s = {.n_cols = (uint32_t)n, .cols = cols, .n_meta = 1, .meta = smeta}, d;
    arena a;
    arena_init(&a, NULL);
    schema_roundtrip(&s, &a, &d);
    assert_int_equal(d.n_cols, n);
    for (size_t i = 0; i < n; i++) {
        char buf[256];
        type_format(d.cols[i].type, buf, sizeof buf);
        assert_string_equal(buf, expect[i]);
        assert_string_equal(d.cols[i].name, names[i]);
        assert_int_equal(d.cols[i].nullable, i % 2 == 0);
    }
    assert_int_equal(d.cols[3].n_meta, 2);
    assert_string_equal(d.cols[3].meta[0].value, "t1");
    assert_int_equal(d.n_meta, 1);
    assert_string_equal(d.meta[0].key, "x");
    /* json and uuid carry their canonical extension names */
    assert_string_equal(d.cols[13].meta[0].value, "arrow.json");
    assert_string_equal(d.cols[21].meta[0].value, "arrow.uuid");
    arena_destroy(&a);
}

/* ---- Batches -------------------------------------------------------------------------------- */

static void test_batch_scalars(void **state) {
    (void)state;
    vec_chunk c;
    make_scalar_chunk(&c, 23);
    assert_batch_roundtrip(&c);
    c.count = 0; /* zero-row batch */
    assert_batch_roundtrip(&c);
    vec_chunk_destroy(&c);
}

static void test_batch_values(void **state) {
    (void)state;
    vec_chunk c;
    make_scalar_chunk(&c, 5);
    arrow_column cols[N_SCALAR];
    arrow_schema s, ds;
    schema_of(&c, cols, &s);
    arena a;
    arena_init(&a, NULL);
    schema_roundtrip(&s, &a, &ds);
    arrow_buf h, b;
    encode(&c, 0, 5, &h, &b);
    vec_chunk d;
    assert_int_equal(arrow_batch_decode(&ds, h.data, h.len, b.data, b.len, NULL, &d, NULL), SQE_OK);
    assert_true(vec_is_null(&d.cols[0], 1));
    assert_false(vec_is_null(&d.cols[0], 2));
    assert_int_equal(VEC_DATA(&d.cols[4], int64_t)[2], (int64_t)(2 * 7919 - 20) * 1000003);
    assert_true(VEC_DATA(&d.cols[8], int128)[4] == (int128)(4 * 7919 - 20) * INT64_MAX);
    sqe_str *s3 = &VEC_DATA(&d.cols[9], sqe_str)[3], *s4 = &VEC_DATA(&d.cols[9], sqe_str)[4];
    assert_int_equal(s3->len, 0);
    assert_int_equal(s4->len, strlen("value 4 with some length"));
    assert_memory_equal(sqe_str_data(s4), "value 4 with some length", s4->len);
    vec_chunk_destroy(&d);
    arrow_buf_reset(&h);
    arrow_buf_reset(&b);
    arena_destroy(&a);
    vec_chunk_destroy(&c);
}

static void test_batch_nested(void **state) {
    (void)state;
    sqe_type types[3] = {parse("array(row(a integer, b varchar))"), parse("map(varchar, array(bigint))"),
                         parse("row(x double, y array(varchar))")};
    vec_chunk c;
    assert_int_equal(vec_chunk_init(&c, 3, types, 4, NULL, NULL), SQE_OK);
    /* col 0: [[{1,"a"}, null], null, [], [{null, "long string value here"}]] */
    vec *l = &c.cols[0], *st = &l->children[0];
    assert_int_equal(vec_reserve(st, 8, NULL), SQE_OK);
    VEC_DATA(&st->children[0], int32_t)[0] = 1;
    put_str(&st->children[1], 0, "a");
    vec_set_null(st, 1);
    vec_set_null(&st->children[0], 2);
    put_str(&st->children[1], 2, "long string value here");
    l->child_len = 3;
    VEC_DATA(l, sqe_list_entry)[0] = (sqe_list_entry){0, 2};
    vec_set_null(l, 1);
    VEC_DATA(l, sqe_list_entry)[2] = (sqe_list_entry){2, 0};
    VEC_DATA(l, sqe_list_entry)[3] = (sqe_list_entry){2, 1};
    /* col 1: [{"k": [1,2]}, {}, null, {"a": null, "b": []}] */
    vec *m = &c.cols[1], *keys = &m->children[0], *vals = &m->children[1];
    assert_int_equal(vec_reserve(keys, 8, NULL), SQE_OK);
    assert_int_equal(vec_reserve(vals, 8, NULL), SQE_OK);
    assert_int_equal(vec_reserve(&vals->children[0], 8, NULL), SQE_OK);
    put_str(keys, 0, "k");
    put_str(keys, 1, "a");
    put_str(keys, 2, "b");
    VEC_DATA(&vals->children[0], int64_t)[0] = 1;
    VEC_DATA(&vals->children[0], int64_t)[1] = 2;
    vals->child_len = 2;
    VEC_DATA(vals, sqe_list_entry)[0] = (sqe_list_entry){0, 2};
    vec_set_null(vals, 1);
    VEC_DATA(vals, sqe_list_entry)[2] = (sqe_list_entry){2, 0};
    m->child_len = 3;
    VEC_DATA(m, sqe_list_entry)[0] = (sqe_list_entry){0, 1};
    VEC_DATA(m, sqe_list_entry)[1] = (sqe_list_entry){1, 0};
    vec_set_null(m, 2);
    VEC_DATA(m, sqe_list_entry)[3] = (sqe_list_entry){1, 2};
    /* col 2: rows 0 and 3 set; row 1 NULL with children left as garbage; row 2 fields NULL */
    vec *r = &c.cols[2], *ry = &r->children[1];
    assert_int_equal(vec_reserve(&ry->children[0], 4, NULL), SQE_OK);
    VEC_DATA(&r->children[0], double)[0] = 0.5;
    VEC_DATA(&r->children[0], double)[3] = -1;
    put_str(&ry->children[0], 0, "e0");
    ry->child_len = 1;
    VEC_DATA(ry, sqe_list_entry)[0] = (sqe_list_entry){0, 1};
    VEC_DATA(ry, sqe_list_entry)[3] = (sqe_list_entry){1, 0};
    vec_set_null(r, 1);
    VEC_DATA(ry, sqe_list_entry)[1] = (sqe_list_entry){12345, 99999}; /* garbage under a NULL row */
    VEC_DATA(&r->children[0], double)[1] = 0;
    vec_set_null(&r->children[0], 2);
    vec_set_null(ry, 2);
    c.count = 4;
    assert_batch_roundtrip(&c);
    vec_chunk_destroy(&c);
}

static void test_batch_shapes_and_slices(void **state) {
    (void)state;
    vec_chunk src;
    make_scalar_chunk(&src, 40);
    sqe_type types[N_SCALAR];
    for (size_t i = 0; i < N_SCALAR; i++) types[i] = src.cols[i].type;
    /* dict view selecting rows 39, 37, ... and const columns */
    vec_chunk view;
    assert_int_equal(vec_chunk_init(&view, N_SCALAR, types, 20, NULL, NULL), SQE_OK);
    uint32_t sel[20];
    for (uint32_t i = 0; i < 20; i++) sel[i] = 39 - 2 * i;
    for (uint32_t k = 0; k < N_SCALAR; k++) {
        if (k % 3 == 0)
            assert_int_equal(vec_set_const_from(&view.cols[k], &src.cols[k], 7, NULL), SQE_OK);
        else
            vec_set_dict(&view.cols[k], &src.cols[k], sel);
    }
    view.count = 20;
    /* the same rows materialized flat */
    vec_chunk flat;
    assert_int_equal(vec_chunk_init(&flat, N_SCALAR, types, 20, NULL, NULL), SQE_OK);
    for (uint32_t k = 0; k < N_SCALAR; k++)
        for (uint32_t r = 0; r < 20; r++)
            assert_int_equal(vec_copy_row(&flat.cols[k], r, &view.cols[k], r, NULL), SQE_OK);
    flat.count = 20;
    arrow_buf h1, b1, h2, b2;
    encode(&view, 0, 20, &h1, &b1);
    encode(&flat, 0, 20, &h2, &b2);
    assert_int_equal(b1.len, b2.len);
    assert_memory_equal(b1.data, b2.data, b1.len);
    assert_memory_equal(h1.data, h2.data, h1.len);
    arrow_buf_reset(&h1);
    arrow_buf_reset(&b1);
    arrow_buf_reset(&h2);
    arrow_buf_reset(&b2);
    /* slice [5, 15) of the view == slice of the flat copy */
    encode(&view, 5, 10, &h1, &b1);
    encode(&flat, 5, 10, &h2, &b2);
    assert_int_equal(b1.len, b2.len);
    assert_memory_equal(b1.data, b2.data, b1.len);
    arrow_buf_reset(&h1);
    arrow_buf_reset(&b1);
    arrow_buf_reset(&h2);
    arrow_buf_reset(&b2);
    /* out-of-range slice */
    sqe_error err;
    arrow_buf_init(&h1);
    arrow_buf_init(&b1);
    assert_int_not_equal(arrow_batch_encode(&view, 15, 10, &h1, &b1, &err), SQE_OK);
    assert_int_equal(h1.len, 0);
    assert_int_equal(b1.len, 0);
    vec_chunk_destroy(&flat);
    vec_chunk_destroy(&view);
    vec_chunk_destroy(&src);
}

/* ---- Framing, streams ----------------------------------------------------------------------- */

static void test_stream_roundtrip(void **state) {
    (void)state;
    vec_chunk c;
    make_scalar_chunk(&c, 10);
    arrow_column cols[N_SCALAR];
    arrow_schema s;
    schema_of(&c, cols, &s);
    arrow_buf out;
    arrow_buf_init(&out);
    sqe_error err;
    assert_int_equal(arrow_stream_write_schema(&out, &s, &err), SQE_OK);
    assert_int_equal(arrow_stream_write_batch(&out, &c, 0, 10, &err), SQE_OK);
    assert_int_equal(arrow_stream_write_batch(&out, &c, 3, 0, &err), SQE_OK);
    assert_int_equal(arrow_stream_write_batch(&out, &c, 4, 6, &err), SQE_OK);
    assert_int_equal(arrow_stream_write_eos(&out, &err), SQE_OK);
    assert_int_equal(out.len % 8, 0);
    arrow_stream_reader r;
    assert_int_equal(arrow_stream_reader_open(&r, out.data, out.len, NULL, &err), SQE_OK);
    assert_int_equal(r.schema.n_cols, N_SCALAR);
    uint32_t counts[3] = {10, 0, 6}, n = 0;
    for (;;) {
        vec_chunk d;
        bool eos;
        assert_int_equal(arrow_stream_reader_next(&r, &d, &eos, &err), SQE_OK);
        if (eos) break;
        assert_true(n < 3);
        assert_int_equal(d.count, counts[n++]);
        vec_chunk_destroy(&d);
    }
    assert_int_equal(n, 3);
    arrow_stream_reader_close(&r);

    /* every truncation of the stream: errors or a shorter stream, never a crash or leak */
    for (size_t cut = 0; cut < out.len; cut++) {
        uint8_t *copy = malloc(cut ? cut : 1);
        memcpy(copy, out.data, cut);
        if (arrow_stream_reader_open(&r, copy, cut, NULL, &err) == SQE_OK) {
            for (int guard = 0; guard < 10; guard++) {
                vec_chunk d;
                bool eos;
                if (arrow_stream_reader_next(&r, &d, &eos, &err) != SQE_OK || eos) break;
                vec_chunk_destroy(&d);
            }
            arrow_stream_reader_close(&r);
        }
        free(copy);
    }
    arrow_buf_reset(&out);
    vec_chunk_destroy(&c);
}

static void test_frame_unframe(void **state) {
    (void)state;
    arrow_column col = {.name = "x", .type = type_make(TYPE_BIGINT), .nullable = true};
    arrow_schema s = {.n_cols = 1, .cols = &col};
    arrow_buf h, f;
    arrow_buf_init(&h);
    arrow_buf_init(&f);
    sqe_error err;
    assert_int_equal(arrow_schema_encode(&s, &h, &err), SQE_OK);
    assert_int_equal(arrow_message_frame(h.data, h.len, NULL, 0, &f, &err), SQE_OK);
    uint32_t prefix[2];
    memcpy(prefix, f.data, 8);
    assert_int_equal(prefix[0], 0xFFFFFFFFu);
    assert_int_equal(prefix[1] % 8, 0);
    const uint8_t *hp, *bp;
    size_t hl, bl, used;
    assert_int_equal(arrow_message_unframe(f.data, f.len, &hp, &hl, &bp, &bl, &used, &err), SQE_OK);
    assert_non_null(hp);
    assert_int_equal(used, f.len);
    assert_int_equal(bl, 0);
    int type;
    int64_t blen;
    assert_int_equal(arrow_message_peek(hp, hl, &type, &blen, &err), SQE_OK);
    assert_int_equal(type, ARROW_MSG_SCHEMA);
    /* legacy prefix (no continuation marker) */
    assert_int_equal(arrow_message_unframe(f.data + 4, f.len - 4, &hp, &hl, &bp, &bl, &used, &err), SQE_OK);
    assert_int_equal(used, f.len - 4);
    /* end of stream */
    uint32_t eos[2] = {0xFFFFFFFFu, 0};
    assert_int_equal(arrow_message_unframe((const uint8_t *)eos, 8, &hp, &hl, &bp, &bl, &used, &err), SQE_OK);
    assert_null(hp);
    assert_int_equal(used, 8);
    /* a body that is not a multiple of 8 is refused */
    assert_int_not_equal(arrow_message_frame(h.data, h.len, (const uint8_t *)"abc", 3, &f, &err), SQE_OK);
    /* schema messages are not record batches and vice versa */
    arena a;
    arena_init(&a, NULL);
    arrow_schema ds;
    assert_int_equal(arrow_schema_decode(h.data, h.len, &a, &ds, &err), SQE_OK);
    vec_chunk d;
    assert_int_equal(arrow_batch_decode(&ds, h.data, h.len, NULL, 0, NULL, &d, &err), SQE_ERR_INVALID_FILE);
    arena_destroy(&a);
    arrow_buf_reset(&h);
    arrow_buf_reset(&f);
}

/* ---- Hostile input -------------------------------------------------------------------------- */

static void test_hostile_mutations(void **state) {
    (void)state;
    sqe_type types[4] = {parse("varchar"), parse("array(row(a integer, b varchar))"),
                         parse("map(varchar, bigint)"), parse("decimal(20,2)")};
    vec_chunk c;
    assert_int_equal(vec_chunk_init(&c, 4, types, 3, NULL, NULL), SQE_OK);
    for (uint32_t r = 0; r < 3; r++) {
        put_str(&c.cols[0], r, r == 1 ? "a string that is long" : "s");
        VEC_DATA(&c.cols[1], sqe_list_entry)[r] = (sqe_list_entry){0, 0};
        VEC_DATA(&c.cols[2], sqe_list_entry)[r] = (sqe_list_entry){0, 0};
        VEC_DATA(&c.cols[3], int128)[r] = r;
    }
    vec_set_null(&c.cols[3], 2);
    c.count = 3;
    arrow_column cols[4];
    arrow_schema s, ds;
    schema_of(&c, cols, &s);
    arrow_buf sh;
    arrow_buf_init(&sh);
    assert_int_equal(arrow_schema_encode(&s, &sh, NULL), SQE_OK);
    arrow_buf h, b;
    encode(&c, 0, 3, &h, &b);
    arena a;
    arena_init(&a, NULL);
    assert_int_equal(arrow_schema_decode(sh.data, sh.len, &a, &ds, NULL), SQE_OK);
    sqe_error err;
    /* flip every byte of the schema, header and body in turn */
    for (int which = 0; which < 3; which++) {
        arrow_buf *target = which == 0 ? &sh : which == 1 ? &h : &b;
        for (size_t i = 0; i < target->len; i++) {
            for (int mask = 0; mask < 3; mask++) {
                uint8_t old = target->data[i];
                target->data[i] ^= (uint8_t)(mask == 0 ? 0xFF : mask == 1 ? 0x01 : 0x80);
                if (which == 0) {
                    arena a2;
                    arena_init(&a2, NULL);
                    arrow_schema s2;
                    (void)arrow_schema_decode(sh.data, sh.len, &a2, &s2, &err);
                    arena_destroy(&a2);
                } else {
                    vec_chunk d;
                    if (arrow_batch_decode(&ds, h.data, h.len, b.data, b.len, NULL, &d, &err) == SQE_OK)
                        vec_chunk_destroy(&d);
                }
                target->data[i] = old;
            }
        }
    }
    /* a bad UTF-8 byte in a Utf8 column is rejected */
    vec_chunk d;
    assert_int_equal(arrow_batch_decode(&ds, h.data, h.len, b.data, b.len, NULL, &d, &err), SQE_OK);
    vec_chunk_destroy(&d);
    uint8_t *hit = NULL;
    for (size_t i = 0; i + 4 <= b.len && !hit; i++)
        if (memcmp(b.data + i, "long", 4) == 0) hit = b.data + i;
    assert_non_null(hit);
    hit[0] = 0xC0;
    assert_int_equal(arrow_batch_decode(&ds, h.data, h.len, b.data, b.len, NULL, &d, &err), SQE_ERR_INVALID_FILE);
    /* a body that is too short */
    assert_int_not_equal(arrow_batch_decode(&ds, h.data, h.len, b.data, 8, NULL, &d, &err), SQE_OK);
    arena_destroy(&a);
    arrow_buf_reset(&sh);
    arrow_buf_reset(&h);
    arrow_buf_reset(&b);
    vec_chunk_destroy(&c);
}

/* Zero rows of fixed-width columns and zero columns: an empty body (fuzzer regression: no
 * pointer arithmetic on the empty body buffer). */
static void test_empty_body(void **state) {
    (void)state;
    sqe_type types[2] = {type_make(TYPE_BIGINT), parse("row(a integer)")};
    vec_chunk c;
    assert_int_equal(vec_chunk_init(&c, 2, types, 4, NULL, NULL), SQE_OK);
    c.count = 0;
    arrow_buf h, b;
    encode(&c, 0, 0, &h, &b);
    assert_int_equal(b.len, 0);
    arrow_buf_reset(&h);
    arrow_buf_reset(&b);
    c.n_cols = 0;
    encode(&c, 0, 0, &h, &b);
    assert_int_equal(b.len, 0);
    c.n_cols = 2;
    arrow_buf_reset(&h);
    arrow_buf_reset(&b);
    vec_chunk_destroy(&c);
}

/* A batch that claims far more rows than its body can hold is refused before allocating. */
static void test_row_claims_bounded(void **state) {
    (void)state;
    sqe_type types[1] = {type_make(TYPE_BIGINT)};
    vec_chunk c;
    assert_int_equal(vec_chunk_init(&c, 1, types, 4, NULL, NULL), SQE_OK);
    memset(c.cols[0].data, 0, 32);
    c.count = 4;
    arrow_column cols[1];
    arrow_schema s, ds;
    schema_of(&c, cols, &s);
    arena a;
    arena_init(&a, NULL);
    schema_roundtrip(&s, &a, &ds);
    arrow_buf h, b;
    encode(&c, 0, 4, &h, &b);
    /* patch RecordBatch.length and the node length (both int64 4) to 2^25 */
    int patched = 0;
    for (size_t i = 0; i + 8 <= h.len; i += 4) {
        int64_t v;
        memcpy(&v, h.data + i, 8);
        if (v == 4) {
            v = (int64_t)1 << 25;
            memcpy(h.data + i, &v, 8);
            patched++;
        }
    }
    assert_true(patched >= 2);
    vec_chunk d;
    sqe_error err;
    assert_int_equal(arrow_batch_decode(&ds, h.data, h.len, b.data, b.len, NULL, &d, &err), SQE_ERR_INVALID_FILE);
    arrow_buf_reset(&h);
    arrow_buf_reset(&b);
    arena_destroy(&a);
    vec_chunk_destroy(&c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flatbuf_roundtrip),
        cmocka_unit_test(test_flatbuf_misuse),
        cmocka_unit_test(test_schema_all_types),
        cmocka_unit_test(test_batch_scalars),
        cmocka_unit_test(test_batch_values),
        cmocka_unit_test(test_batch_nested),
        cmocka_unit_test(test_batch_shapes_and_slices),
        cmocka_unit_test(test_stream_roundtrip),
        cmocka_unit_test(test_frame_unframe),
        cmocka_unit_test(test_hostile_mutations),
        cmocka_unit_test(test_empty_body),
        cmocka_unit_test(test_row_claims_bounded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
