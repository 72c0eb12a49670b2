/*
 * test_avro.c: unit tests of the Avro library (src/format/avro): schema parsing (names and
 * namespaces, recursion, unions, logical types, Iceberg ids, errors), round trips through the
 * writer and reader in every codec, the JSON conversions, writer validation, and hand-made
 * hostile files (bad magic, overlong varints, counts beyond the data, zero-size items, sync
 * mismatches, bad CRCs, unknown codecs, deep nesting, random bytes) that must give errors,
 * never crashes. Interop with fastavro is tested by tests/avro/run_avro_tests.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <zlib.h>

#include "common/arena.h"
#include "common/err.h"
#include "common/strbuf.h"
#include "format/avro/avro.h"

static const uint8_t SYNC[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};

static avro_schema *parse_ok(arena *a, const char *json) {
    avro_schema *s = NULL;
    sqe_error err;
    int rc = avro_schema_parse(a, json, strlen(json), &s, &err);
    if (rc != SQE_OK) fail_msg("schema %s: %s", json, err.message);
    return s;
}

static void parse_fails(const char *json, const char *msg) {
    arena a;
    arena_init(&a, NULL);
    avro_schema *s = (avro_schema *)1;
    sqe_error err;
    int rc = avro_schema_parse(&a, json, strlen(json), &s, &err);
    if (rc != SQE_ERR_INVALID_ARGUMENTS) fail_msg("schema %s parsed (rc %d)", json, rc);
    assert_null(s);
    if (!strstr(err.message, msg)) fail_msg("message \"%s\" lacks \"%s\"", err.message, msg);
    arena_destroy(&a);
}

/* ---- schemas ------------------------------------------------------------------------------ */

static void test_schema_primitives(void **state) {
    (void)state;
    arena a;
    arena_init(&a, NULL);
    static const char *names[] = {"null", "boolean", "int", "long", "float", "double", "bytes",
                                  "string"};
    for (int i = 0; i < 8; i++) {
        char json[64];
        snprintf(json, sizeof json, "\"%s\"", names[i]);
        avro_schema *s = parse_ok(&a, json);
        assert_int_equal(s->type, (avro_type)i);
        assert_string_equal(avro_type_name(s->type), names[i]);
        snprintf(json, sizeof json, "{\"type\": \"%s\"}", names[i]);
        assert_int_equal(parse_ok(&a, json)->type, (avro_type)i);
    }
    arena_destroy(&a);
}

static void test_schema_record_ids_defaults(void **state) {
    (void)state;
    arena a;
    arena_init(&a, NULL);
    avro_schema *s = parse_ok(
        &a, "{\"type\":\"record\",\"name\":\"manifest_file\",\"fields\":["
            "{\"name\":\"manifest_path\",\"type\":\"string\",\"field-id\":500},"
            "{\"name\":\"partitions\",\"type\":[\"null\",{\"type\":\"array\",\"element-id\":508,"
            "\"items\":{\"type\":\"record\",\"name\":\"r508\",\"fields\":["
            "{\"name\":\"contains_null\",\"type\":\"boolean\",\"field-id\":509}]}}],"
            "\"default\":null,\"field-id\":507},"
            "{\"name\":\"props\",\"type\":{\"type\":\"map\",\"values\":\"string\",\"key-id\":6,"
            "\"value-id\":7},\"default\":{\"a\":\"b\"}},"
            "{\"name\":\"cs\",\"type\":{\"type\":\"array\",\"logicalType\":\"map\",\"items\":{"
            "\"type\":\"record\",\"name\":\"k117_v118\",\"fields\":["
            "{\"name\":\"key\",\"type\":\"int\",\"field-id\":117},"
            "{\"name\":\"value\",\"type\":\"long\",\"field-id\":118}]}}}]}");
    assert_int_equal(s->type, AVRO_RECORD);
    assert_string_equal(s->name, "manifest_file");
    assert_int_equal(s->n_fields, 4);
    assert_true(s->fields[0].has_field_id);
    assert_int_equal(s->fields[0].field_id, 500);
    assert_null(s->fields[0].default_json);
    const avro_field *f = avro_schema_field(s, "partitions", NULL);
    assert_non_null(f);
    assert_int_equal(f->field_id, 507);
    assert_string_equal(f->default_json, "null");
    assert_int_equal(f->type->type, AVRO_UNION);
    const avro_schema *arr = f->type->branches[1];
    assert_int_equal(arr->type, AVRO_ARRAY);
    assert_true(arr->has_element_id);
    assert_int_equal(arr->element_id, 508);
    assert_int_equal(arr->items->fields[0].field_id, 509);
    uint32_t idx = 0;
    f = avro_schema_field(s, "props", &idx);
    assert_int_equal(idx, 2);
    assert_string_equal(f->default_json, "{\"a\":\"b\"}");
    assert_true(f->type->has_key_id && f->type->has_value_id);
    assert_int_equal(f->type->key_id, 6);
    assert_int_equal(f->type->value_id, 7);
    f = avro_schema_field(s, "cs", NULL);
    assert_string_equal(f->type->logical, "map");
    assert_int_equal(f->type->items->fields[1].field_id, 118);
    assert_null(avro_schema_field(s, "nope", NULL));
    arena_destroy(&a);
}

static void test_schema_names(void **state) {
    (void)state;
    arena a;
    arena_init(&a, NULL);
    /* namespaces: inherited, overridden, dotted names, references by short and full name */
    avro_schema *s = parse_ok(
        &a, "{\"type\":\"record\",\"name\":\"outer\",\"namespace\":\"a.b\",\"fields\":["
            "{\"name\":\"x\",\"type\":{\"type\":\"fixed\",\"name\":\"f8\",\"size\":8}},"
            "{\"name\":\"y\",\"type\":\"f8\"},"
            "{\"name\":\"z\",\"type\":\"a.b.f8\"},"
            "{\"name\":\"e\",\"type\":{\"type\":\"enum\",\"name\":\"c.d.kind\",\"symbols\":[\"A\",\"B\"]}},"
            "{\"name\":\"e2\",\"type\":\"c.d.kind\"},"
            "{\"name\":\"o\",\"type\":{\"type\":\"record\",\"name\":\"in\",\"namespace\":\"q\","
            "\"fields\":[{\"name\":\"k\",\"type\":\"c.d.kind\",\"default\":\"A\"}]}}]}");
    assert_string_equal(s->name, "a.b.outer");
    assert_string_equal(s->fields[0].type->name, "a.b.f8");
    assert_ptr_equal(s->fields[1].type, s->fields[0].type);
    assert_ptr_equal(s->fields[2].type, s->fields[0].type);
    assert_string_equal(s->fields[3].type->name, "c.d.kind");
    assert_ptr_equal(s->fields[4].type, s->fields[3].type);
    assert_string_equal(s->fields[5].type->name, "q.in");
    assert_int_equal(s->fields[0].type->min_size, 8);
    assert_ptr_equal(s->fields[5].type->fields[0].type, s->fields[3].type);
    /* c.d.kind is not reachable by its short name from the null namespace */
    parse_fails("{\"type\":\"record\",\"name\":\"r\",\"fields\":["
                "{\"name\":\"e\",\"type\":{\"type\":\"enum\",\"name\":\"c.d.kind\",\"symbols\":[\"A\"]}},"
                "{\"name\":\"o\",\"type\":\"kind\"}]}",
                "unknown type \"kind\"");
    /* recursion: a linked list */
    avro_schema *l = parse_ok(&a, "{\"type\":\"record\",\"name\":\"node\",\"fields\":["
                                  "{\"name\":\"v\",\"type\":\"long\"},"
                                  "{\"name\":\"next\",\"type\":[\"null\",\"node\"]}]}");
    assert_ptr_equal(l->fields[1].type->branches[1], l);
    assert_int_equal(l->min_size, 2);
    arena_destroy(&a);
}

static void test_schema_logical(void **state) {
    (void)state;
    arena a;
    arena_init(&a, NULL);
    avro_schema *s = parse_ok(&a, "{\"type\":\"bytes\",\"logicalType\":\"decimal\","
                                  "\"precision\":10,\"scale\":2}");
    assert_string_equal(s->logical, "decimal");
    assert_int_equal(s->precision, 10);
    assert_int_equal(s->scale, 2);
    s = parse_ok(&a, "{\"type\":\"fixed\",\"name\":\"d\",\"size\":16,\"logicalType\":\"decimal\","
                     "\"precision\":38,\"scale\":0}");
    assert_string_equal(s->logical, "decimal");
    /* invalid decimals are ignored (spec): precision too large for the fixed, scale > precision */
    s = parse_ok(&a, "{\"type\":\"fixed\",\"name\":\"d\",\"size\":4,\"logicalType\":\"decimal\","
                     "\"precision\":10}");
    assert_null(s->logical);
    s = parse_ok(&a, "{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":2,\"scale\":3}");
    assert_null(s->logical);
    s = parse_ok(&a, "{\"type\":\"long\",\"logicalType\":\"timestamp-micros\",\"adjust-to-utc\":true}");
    assert_string_equal(s->logical, "timestamp-micros");
    assert_true(s->has_adjust_to_utc && s->adjust_to_utc);
    assert_string_equal(parse_ok(&a, "{\"type\":\"int\",\"logicalType\":\"date\"}")->logical, "date");
    assert_null(parse_ok(&a, "{\"type\":\"string\",\"logicalType\":\"date\"}")->logical);
    assert_string_equal(parse_ok(&a, "{\"type\":\"string\",\"logicalType\":\"uuid\"}")->logical,
                        "uuid");
    assert_string_equal(parse_ok(&a, "{\"type\":\"long\",\"logicalType\":\"time-micros\"}")->logical,
                        "time-micros");
    assert_string_equal(parse_ok(&a, "{\"type\":\"long\",\"logicalType\":\"zzz\"}")->logical, "zzz");
    arena_destroy(&a);
}

static void test_schema_errors(void **state) {
    (void)state;
    parse_fails("", "JSON error");
    parse_fails("{\"type\":", "JSON error");
    parse_fails("\"nope\"", "unknown type \"nope\"");
    parse_fails("42", "must be a string, an object or an array");
    parse_fails("[]", "union without branches");
    parse_fails("[\"int\",\"int\"]", "two branches of type int");
    parse_fails("[\"null\",[\"int\"]]", "union directly inside a union");
    parse_fails("{\"type\":\"record\",\"fields\":[]}", "without a name");
    parse_fails("{\"type\":\"record\",\"name\":\"r\"}", "without a fields array");
    parse_fails("{\"type\":\"record\",\"name\":\"r\",\"fields\":[{\"name\":\"a\",\"type\":\"int\"},"
                "{\"name\":\"a\",\"type\":\"int\"}]}",
                "appears twice");
    parse_fails("{\"type\":\"record\",\"name\":\"r\",\"fields\":[{\"name\":\"a\",\"type\":\"int\","
                "\"field-id\":\"x\"}]}",
                "field-id");
    parse_fails("{\"type\":\"record\",\"name\":\"r\",\"fields\":[{\"name\":\"a\",\"type\":"
                "{\"type\":\"fixed\",\"name\":\"r\",\"size\":1}}]}",
                "defined twice");
    parse_fails("{\"type\":\"fixed\",\"name\":\"f\",\"size\":-1}", "size");
    parse_fails("{\"type\":\"enum\",\"name\":\"e\",\"symbols\":[\"A\",\"A\"]}", "appears twice");
    parse_fails("{\"type\":\"array\"}", "items");
    parse_fails("{\"type\":\"map\"}", "values");
    parse_fails("{\"type\":\"int\",\"x\":1,\"x\":2}", "JSON error");
    /* nesting beyond AVRO_MAX_DEPTH */
    strbuf sb;
    strbuf_init(&sb);
    for (int i = 0; i < 150; i++) strbuf_puts(&sb, "{\"type\":\"array\",\"items\":");
    strbuf_puts(&sb, "\"int\"");
    for (int i = 0; i < 150; i++) strbuf_putc(&sb, '}');
    parse_fails(sb.data, "nested too deeply");
    strbuf_reset(&sb);
}

/* ---- round trips ------------------------------------------------------------------------- */

static const char *ALL_SCHEMA =
    "{\"type\":\"record\",\"name\":\"all\",\"namespace\":\"t\",\"fields\":["
    "{\"name\":\"n\",\"type\":\"null\"},"
    "{\"name\":\"b\",\"type\":\"boolean\"},"
    "{\"name\":\"i\",\"type\":\"int\"},"
    "{\"name\":\"l\",\"type\":\"long\"},"
    "{\"name\":\"f\",\"type\":\"float\"},"
    "{\"name\":\"d\",\"type\":\"double\"},"
    "{\"name\":\"by\",\"type\":\"bytes\"},"
    "{\"name\":\"s\",\"type\":\"string\"},"
    "{\"name\":\"e\",\"type\":{\"type\":\"enum\",\"name\":\"c\",\"symbols\":[\"R\",\"G\"]}},"
    "{\"name\":\"fx\",\"type\":{\"type\":\"fixed\",\"name\":\"f2\",\"size\":2}},"
    "{\"name\":\"a\",\"type\":{\"type\":\"array\",\"items\":\"long\"}},"
    "{\"name\":\"m\",\"type\":{\"type\":\"map\",\"values\":[\"null\",\"string\"]}},"
    "{\"name\":\"u\",\"type\":[\"null\",\"long\",\"string\"],\"default\":null}]}";

/* Builds record k of ALL_SCHEMA in a. */
static avro_value *make_all(arena *a, const avro_schema *s, int k) {
    avro_value *v = ARENA_NEW(a, avro_value);
    v->schema = s;
    v->rec.fields = ARENA_ARRAY(a, avro_value, s->n_fields);
    avro_value *f = v->rec.fields;
    f[1].b = k % 2;
    f[2].i = k % 3 == 0 ? INT32_MIN : k * 1000;
    f[3].l = k % 3 == 1 ? INT64_MAX : -(int64_t)k * 123456789012LL;
    f[4].f = 1.5f * (float)k;
    f[5].d = -0.25 * k;
    char *txt = arena_sprintf(a, "bytes%d", k);
    f[6].bytes = (avro_bytes){(const uint8_t *)txt, (size_t)k % 7};
    char *str = arena_sprintf(a, "str %d \xc3\xbc", k);
    f[7].bytes = (avro_bytes){(const uint8_t *)str, strlen(str)};
    f[8].i = k % 2;
    f[9].bytes = (avro_bytes){(const uint8_t *)"\x00\xff", 2};
    f[10].arr.n = (uint32_t)(k % 4);
    f[10].arr.items = ARENA_ARRAY(a, avro_value, 4);
    for (uint32_t i = 0; i < f[10].arr.n; i++) f[10].arr.items[i].l = (int64_t)i - 2;
    f[11].map.n = (uint32_t)(k % 3);
    f[11].map.keys = ARENA_ARRAY(a, avro_bytes, 3);
    f[11].map.values = ARENA_ARRAY(a, avro_value, 3);
    for (uint32_t i = 0; i < f[11].map.n; i++) {
        f[11].map.keys[i] = (avro_bytes){(const uint8_t *)(i ? "k1" : "k0"), 2};
        f[11].map.values[i].u.branch = i;
        f[11].map.values[i].u.value = ARENA_NEW(a, avro_value);
        f[11].map.values[i].u.value->bytes = (avro_bytes){(const uint8_t *)"v", 1};
    }
    f[12].u.branch = (uint32_t)(k % 3);
    f[12].u.value = ARENA_NEW(a, avro_value);
    if (k % 3 == 1) f[12].u.value->l = k;
    if (k % 3 == 2) f[12].u.value->bytes = (avro_bytes){(const uint8_t *)"u", 1};
    return v;
}

static void check_all(const avro_value *v, int k) {
    assert_true(avro_value_is_null(avro_value_field(v, "n")));
    assert_int_equal(avro_value_field(v, "b")->b, k % 2);
    assert_int_equal(avro_value_field(v, "i")->i, k % 3 == 0 ? INT32_MIN : k * 1000);
    assert_true(avro_value_field(v, "l")->l == (k % 3 == 1 ? INT64_MAX : -(int64_t)k * 123456789012LL));
    assert_true(avro_value_field(v, "f")->f == 1.5f * (float)k);
    assert_true(avro_value_field(v, "d")->d == -0.25 * k);
    const avro_value *by = avro_value_field(v, "by");
    assert_int_equal(by->bytes.len, k % 7);
    assert_int_equal(by->bytes.data[by->bytes.len], 0);
    char want[64];
    snprintf(want, sizeof want, "str %d \xc3\xbc", k);
    assert_string_equal((const char *)avro_value_field(v, "s")->bytes.data, want);
    assert_int_equal(avro_value_field(v, "e")->i, k % 2);
    assert_memory_equal(avro_value_field(v, "fx")->bytes.data, "\x00\xff", 2);
    const avro_value *arr = avro_value_field(v, "a");
    assert_int_equal(arr->arr.n, k % 4);
    for (uint32_t i = 0; i < arr->arr.n; i++) assert_true(arr->arr.items[i].l == (int64_t)i - 2);
    const avro_value *m = avro_value_field(v, "m");
    assert_int_equal(m->map.n, k % 3);
    if (m->map.n > 1) {
        assert_string_equal((const char *)m->map.keys[1].data, "k1");
        assert_string_equal((const char *)avro_value_unwrap(&m->map.values[1])->bytes.data, "v");
        assert_true(avro_value_is_null(&m->map.values[0]));
    }
    const avro_value *u = avro_value_field(v, "u");
    assert_int_equal(u->u.branch, k % 3);
    if (k % 3 == 1) assert_true(avro_value_unwrap(u)->l == k);
    assert_null(avro_value_field(v, "zzz"));
}

static uint8_t *write_all(avro_codec codec, int n, uint32_t block_records, size_t *len) {
    sqe_error err;
    avro_writer *w;
    static const avro_kv meta[] = {{"format-version", (const uint8_t *)"2", 1},
                                   {"bin", (const uint8_t *)"\x00\x01", 2}};
    avro_writer_opts opts = {.codec = codec, .block_records = block_records, .sync = SYNC};
    int rc = avro_writer_open(ALL_SCHEMA, strlen(ALL_SCHEMA), meta, 2, &opts, &w, &err);
    if (rc != SQE_OK) fail_msg("open: %s", err.message);
    for (int k = 0; k < n; k++) {
        avro_value *v = make_all(avro_writer_arena(w), avro_writer_schema(w), k);
        if (avro_writer_append(w, v, &err) != SQE_OK) fail_msg("append: %s", err.message);
    }
    assert_int_equal(avro_writer_count(w), n);
    uint8_t *bytes;
    if (avro_writer_finish(w, &bytes, len, &err) != SQE_OK) fail_msg("finish: %s", err.message);
    avro_writer_destroy(w);
    return bytes;
}

static int count_syncs(const uint8_t *p, size_t len) {
    int n = 0;
    for (size_t i = 0; i + 16 <= len; i++)
        if (memcmp(p + i, SYNC, 16) == 0) n++;
    return n;
}

static void read_all(const uint8_t *bytes, size_t len, int n, const char *codec) {
    arena a;
    arena_init(&a, NULL);
    sqe_error err;
    avro_reader *r;
    if (avro_reader_open(bytes, len, &a, &r, &err) != SQE_OK) fail_msg("open: %s", err.message);
    assert_string_equal(avro_reader_codec(r), codec);
    size_t mlen;
    assert_string_equal((const char *)avro_reader_meta(r, "format-version", &mlen), "2");
    assert_memory_equal(avro_reader_meta(r, "bin", &mlen), "\x00\x01", 2);
    assert_int_equal(mlen, 2);
    assert_null(avro_reader_meta(r, "nope", NULL));
    assert_int_equal(avro_reader_meta_count(r), 4);
    assert_string_equal(avro_reader_meta_at(r, 0, NULL, NULL), "avro.schema");
    assert_null(avro_reader_meta_at(r, 4, NULL, NULL));
    assert_string_equal(avro_reader_schema(r)->name, "t.all");
    for (int k = 0; k < n; k++) {
        avro_value *v;
        if (avro_reader_next(r, &v, &err) != SQE_OK) fail_msg("next %d: %s", k, err.message);
        assert_non_null(v);
        check_all(v, k);
    }
    avro_value *v = (avro_value *)1;
    assert_int_equal(avro_reader_next(r, &v, &err), SQE_OK);
    assert_null(v);
    assert_int_equal(avro_reader_next(r, &v, &err), SQE_OK);
    assert_null(v);
    avro_reader_close(r);
    arena_destroy(&a);
}

static void test_roundtrip_codecs(void **state) {
    (void)state;
    static const char *names[] = {"null", "deflate", "snappy"};
    for (int c = 0; c < 3; c++) {
        for (int n = 0; n <= 50; n += 25) {
            size_t len;
            uint8_t *bytes = write_all((avro_codec)c, n, 7, &len);
            /* header sync + one per block of 7 */
            assert_int_equal(count_syncs(bytes, len), 1 + (n + 6) / 7);
            read_all(bytes, len, n, names[c]);
            /* deterministic with a fixed sync marker */
            size_t len2;
            uint8_t *again = write_all((avro_codec)c, n, 7, &len2);
            assert_int_equal(len, len2);
            assert_memory_equal(bytes, again, len);
            free(again);
            free(bytes);
        }
    }
}

static void test_value_arena_redirect(void **state) {
    (void)state;
    size_t len;
    uint8_t *bytes = write_all(AVRO_CODEC_SNAPPY, 300, 100, &len);
    arena a, values;
    arena_init(&a, NULL);
    arena_init(&values, NULL);
    sqe_error err;
    avro_reader *r;
    assert_int_equal(avro_reader_open(bytes, len, &a, &r, &err), SQE_OK);
    avro_reader_set_value_arena(r, &values);
    size_t before = a.total;
    for (int k = 0;; k++) {
        avro_value *v;
        assert_int_equal(avro_reader_next(r, &v, &err), SQE_OK);
        if (!v) break;
        check_all(v, k);
        arena_reset(&values);
    }
    assert_int_equal(a.total, before);
    avro_reader_close(r);
    arena_destroy(&values);
    arena_destroy(&a);
    free(bytes);
}

static void test_json_conversions(void **state) {
    (void)state;
    arena a;
    arena_init(&a, NULL);
    avro_schema *s = parse_ok(&a, ALL_SCHEMA);
    const char *in = "{\"n\":null,\"b\":true,\"i\":-5,\"l\":9007199254740993,\"f\":0.5,"
                     "\"d\":\"-Infinity\",\"by\":\"\\u0000\\u00ff\",\"s\":\"\\u00fc\","
                     "\"e\":\"G\",\"fx\":\"ab\",\"a\":[1,2],\"m\":{\"k\":{\"string\":\"v\"},"
                     "\"z\":null}}";
    avro_value *v;
    sqe_error err;
    if (avro_value_from_json(&a, s, in, strlen(in), &v, &err) != SQE_OK)
        fail_msg("from_json: %s", err.message);
    assert_true(avro_value_field(v, "l")->l == 9007199254740993LL);
    assert_int_equal(avro_value_field(v, "by")->bytes.len, 2);
    assert_int_equal(avro_value_field(v, "by")->bytes.data[1], 0xff);
    assert_int_equal(avro_value_field(v, "s")->bytes.len, 2); /* UTF-8 */
    assert_int_equal(avro_value_field(v, "u")->u.branch, 0); /* from the default */
    char *out;
    assert_int_equal(avro_value_to_json(v, &out, &err), SQE_OK);
    assert_string_equal(out, "{\"n\":null,\"b\":true,\"i\":-5,\"l\":9007199254740993,\"f\":0.5,"
                             "\"d\":\"-Infinity\",\"by\":\"\\u0000\xc3\xbf\",\"s\":\"\xc3\xbc\","
                             "\"e\":\"G\",\"fx\":\"ab\",\"a\":[1,2],\"m\":{\"k\":{\"string\":\"v\"},"
                             "\"z\":null},\"u\":null}");
    free(out);
    /* mismatches */
    static const char *bad[] = {
        "{\"n\":1}", "{\"i\":4294967296}", "{\"e\":\"X\"}", "{\"fx\":\"abc\"}",
        "{\"by\":\"\\u0100\"}", "{\"u\":{\"double\":1}}", "{\"u\":5}", "[1]", "{",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        /* fill the rest from a valid record so that only the bad field fails */
        char buf[512];
        snprintf(buf, sizeof buf, "%s", bad[i]);
        assert_int_equal(avro_value_from_json(&a, s, buf, strlen(buf), &v, &err),
                         SQE_ERR_INVALID_ARGUMENTS);
        assert_null(v);
        assert_non_null(strstr(err.message, "Invalid Avro value"));
    }
    arena_destroy(&a);
}

static void test_writer_rejects_bad_values(void **state) {
    (void)state;
    sqe_error err;
    avro_writer *w;
    static const avro_kv reserved[] = {{"avro.codec", (const uint8_t *)"x", 1}};
    assert_int_equal(avro_writer_open(ALL_SCHEMA, strlen(ALL_SCHEMA), reserved, 1, NULL, &w, &err),
                     SQE_ERR_INVALID_ARGUMENTS);
    assert_null(w);
    static const avro_kv dup[] = {{"k", NULL, 0}, {"k", NULL, 0}};
    assert_int_equal(avro_writer_open(ALL_SCHEMA, strlen(ALL_SCHEMA), dup, 2, NULL, &w, &err),
                     SQE_ERR_INVALID_ARGUMENTS);
    assert_int_equal(avro_writer_open("\"nope\"", 6, NULL, 0, NULL, &w, &err),
                     SQE_ERR_INVALID_ARGUMENTS);
    avro_writer_opts opts = {.codec = (avro_codec)7};
    assert_int_equal(avro_writer_open("\"int\"", 5, NULL, 0, &opts, &w, &err),
                     SQE_ERR_INVALID_ARGUMENTS);

    opts = (avro_writer_opts){.sync = SYNC};
    assert_int_equal(avro_writer_open(ALL_SCHEMA, strlen(ALL_SCHEMA), NULL, 0, &opts, &w, &err),
                     SQE_OK);
    arena *a = avro_writer_arena(w);
    const avro_schema *s = avro_writer_schema(w);
    avro_value *v = make_all(a, s, 1);
    v->rec.fields[12].u.branch = 3;
    assert_int_equal(avro_writer_append(w, v, &err), SQE_ERR_INVALID_ARGUMENTS);
    assert_non_null(strstr(err.message, "union branch 3 out of range"));
    assert_non_null(strstr(err.message, "field \"u\""));
    v = make_all(a, s, 1);
    v->rec.fields[9].bytes.len = 3;
    assert_int_equal(avro_writer_append(w, v, &err), SQE_ERR_INVALID_ARGUMENTS);
    v = make_all(a, s, 1);
    v->rec.fields[8].i = 2;
    assert_int_equal(avro_writer_append(w, v, &err), SQE_ERR_INVALID_ARGUMENTS);
    v = make_all(a, s, 1);
    v->rec.fields[10].arr.items = NULL;
    assert_int_equal(avro_writer_append(w, v, &err), SQE_ERR_INVALID_ARGUMENTS);
    assert_int_equal(avro_writer_append(w, NULL, &err), SQE_ERR_INVALID_ARGUMENTS);
    /* still usable: the good record is the only one written */
    assert_int_equal(avro_writer_append(w, make_all(a, s, 0), &err), SQE_OK);
    uint8_t *bytes;
    size_t len;
    assert_int_equal(avro_writer_finish(w, &bytes, &len, &err), SQE_OK);
    assert_int_equal(avro_writer_append(w, make_all(a, s, 0), &err), SQE_ERR_GENERIC_INTERNAL_ERROR);
    avro_writer_destroy(w);
    arena ra;
    arena_init(&ra, NULL);
    avro_reader *r;
    assert_int_equal(avro_reader_open(bytes, len, &ra, &r, &err), SQE_OK);
    avro_value *got;
    assert_int_equal(avro_reader_next(r, &got, &err), SQE_OK);
    check_all(got, 0);
    assert_int_equal(avro_reader_next(r, &got, &err), SQE_OK);
    assert_null(got);
    avro_reader_close(r);
    arena_destroy(&ra);
    free(bytes);
}

/* ---- hostile files ----------------------------------------------------------------------- */

/* A header for schema with the given codec (NULL: no avro.codec key) and SYNC. */
static void put_varint(strbuf *sb, int64_t v) {
    uint64_t z = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
    while (z >= 0x80) {
        strbuf_putc(sb, (char)(z | 0x80));
        z >>= 7;
    }
    strbuf_putc(sb, (char)z);
}

static void put_str(strbuf *sb, const char *s) {
    put_varint(sb, (int64_t)strlen(s));
    strbuf_puts(sb, s);
}

static void header(strbuf *sb, const char *schema, const char *codec) {
    strbuf_init(sb);
    strbuf_append(sb, "Obj\x01", 4);
    put_varint(sb, codec ? 2 : 1);
    put_str(sb, "avro.schema");
    put_str(sb, schema);
    if (codec) {
        put_str(sb, "avro.codec");
        put_str(sb, codec);
    }
    put_varint(sb, 0);
    strbuf_append(sb, (const char *)SYNC, 16);
}

/* Appends a block with count objects of body[0..len) (uncompressed) and a sync marker. */
static void block(strbuf *sb, int64_t count, const void *body, size_t len) {
    put_varint(sb, count);
    put_varint(sb, (int64_t)len);
    strbuf_append(sb, body, len);
    strbuf_append(sb, (const char *)SYNC, 16);
}

/* Reads every record; returns the first error code (SQE_OK when the file reads cleanly) and
 * checks the message. */
static int read_file(const strbuf *sb, const char *msg) {
    arena a;
    arena_init(&a, NULL);
    sqe_error err;
    avro_reader *r;
    int rc = avro_reader_open((const uint8_t *)sb->data, sb->len, &a, &r, &err);
    if (rc == SQE_OK) {
        for (;;) {
            avro_value *v;
            rc = avro_reader_next(r, &v, &err);
            if (rc != SQE_OK || !v) break;
        }
        if (rc != SQE_OK) {
            avro_value *v;
            sqe_error again;
            assert_int_equal(avro_reader_next(r, &v, &again), SQE_ERR_INVALID_FILE);
            assert_non_null(strstr(again.message, "failed earlier"));
            assert_null(v);
        }
        avro_reader_close(r);
    }
    if (rc != SQE_OK && msg && !strstr(err.message, msg))
        fail_msg("message \"%s\" lacks \"%s\"", err.message, msg);
    arena_destroy(&a);
    return rc;
}

static void test_hostile_header(void **state) {
    (void)state;
    strbuf sb;
    strbuf_init(&sb);
    strbuf_puts(&sb, "Obj");
    assert_int_equal(read_file(&sb, "magic"), SQE_ERR_INVALID_FILE);
    strbuf_reset(&sb);
    header(&sb, "\"long\"", "null");
    sb.len -= 3; /* no full sync marker */
    assert_int_equal(read_file(&sb, "truncated header"), SQE_ERR_INVALID_FILE);
    strbuf_reset(&sb);
    header(&sb, "\"long\"", "zstandard");
    assert_int_equal(read_file(&sb, "unsupported: Avro codec zstandard"), SQE_ERR_NOT_SUPPORTED);
    strbuf_reset(&sb);
    header(&sb, "{\"type\":\"nope\"}", NULL);
    assert_int_equal(read_file(&sb, "Invalid Avro file: bad avro.schema: unknown type"),
                     SQE_ERR_INVALID_FILE);
    strbuf_reset(&sb);
    /* no schema */
    strbuf_init(&sb);
    strbuf_append(&sb, "Obj\x01\x00", 5);
    strbuf_append(&sb, (const char *)SYNC, 16);
    assert_int_equal(read_file(&sb, "no avro.schema"), SQE_ERR_INVALID_FILE);
    strbuf_reset(&sb);
    /* a metadata count far beyond the bytes */
    strbuf_init(&sb);
    strbuf_append(&sb, "Obj\x01", 4);
    put_varint(&sb, INT64_MAX);
    assert_int_equal(read_file(&sb, "metadata count"), SQE_ERR_INVALID_FILE);
    strbuf_reset(&sb);
    /* an 11-byte varint */
    strbuf_init(&sb);
    strbuf_append(&sb, "Obj\x01\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 15);
    assert_int_equal(read_file(&sb, "varint"), SQE_ERR_INVALID_FILE);
    strbuf_reset(&sb);
    /* a length beyond the file */
    strbuf_init(&sb);
    strbuf_append(&sb, "Obj\x01\x02", 5);
    put_varint(&sb, 1000);
    strbuf_puts(&sb, "avro.schema");
    assert_int_equal(read_file(&sb, "length exceeds"), SQE_ERR_INVALID_FILE);
    strbuf_reset(&sb);
    /* a negative length */
    strbuf_init(&sb);
    strbuf_append(&sb, "Obj\x01\x02\x01xxxxxxxx", 14);
    assert_int_equal(read_file(&sb, "negative length"), SQE_ERR_INVALID_FILE);
    strbuf_reset(&sb);
    /* no codec key means null; a file with no blocks is empty */
    header(&sb, "\"long\"", NULL);
    assert_int_equal(read_file(&sb, NULL), SQE_OK);
    strbuf_reset(&sb);
}

static void test_hostile_blocks(void **state) {
    (void)state;
    strbuf sb;
    /* count beyond the bytes: 1000 longs in 3 bytes */
    header(&sb, "\"long\"", "null");
    block(&sb, 1000, "\x02\x04\x06", 3);
    assert_int_equal(read_file(&sb, "claims 1000 objects"), SQE_ERR_INVALID_FILE);
    strbuf_reset(&sb);
    /* zero-size objects (null schema): a huge count is bounded by the value budget */
    header(&sb, "\"null\"", "null");
    block(&sb, INT64_MAX / 2, "", 0);
    assert_int_equal(read_file(&sb, "too many objects"), SQE_ERR_INVALID_FILE);
    strbuf_reset(&sb);
    header(&sb, "\"null\"", "null");
    block(&sb, 100, "", 0); /* fine: small */
    assert_int_equal(read_file(&sb, NULL), SQE_OK);
    strbuf_reset(&sb);
    /* array of nulls claiming 2^40 items in one byte */
    header(&sb, "{\"type\":\"array\",\"items\":\"null\"}", "null");
    {
        strbuf body;
        strbuf_init(&body);
        put_varint(&body, (int64_t)1 << 40);
        put_varint(&body, 0);
        block(&sb, 1, body.data, body.len);
        strbuf_reset(&body);
    }
    assert_int_equal(read_file(&sb, "too many values"), SQE_ERR_INVALID_FILE);
    strbuf_reset(&sb);
    /* array of longs claiming more items than bytes */
    header(&sb, "{\"type\":\"array\",\"items\":\"long\"}", "null");
    block(&sb, 1, "\x7e\x02\x00", 3); /* count 63, then 1 item */
    assert_int_equal(read_file(&sb, "item count exceeds"), SQE_ERR_INVALID_FILE);
    strbuf_reset(&sb);
    /* negative array block count with a byte size beyond the data */
    header(&sb, "{\"type\":\"array\",\"items\":\"long\"}", "null");
    block(&sb, 1, "\x01\x7e\x02\x00", 4);
    assert_int_equal(read_file(&sb, "block size exceeds"), SQE_ERR_INVALID_FILE);
    strbuf_reset(&sb);
    /* negative count with a right byte size is fine */
    header(&sb, "{\"type\":\"array\",\"items\":\"long\"}", "null");
    block(&sb, 1, "\x03\x04\x02\x04\x00", 5); /* count -2, size 2, items 1 2, end */
    assert_int_equal(read_file(&sb, NULL), SQE_OK);
    strbuf_reset(&sb);
    /* sync mismatch */
    header(&sb, "\"long\"", "null");
    block(&sb, 1, "\x02", 1);
    sb.data[sb.len - 1] ^= 1;
    assert_int_equal(read_file(&sb, "sync marker mismatch"), SQE_ERR_INVALID_FILE);
    strbuf_reset(&sb);
    /* bytes left over in a block */
    header(&sb, "\"long\"", "null");
    block(&sb, 1, "\x02\x02", 2);
    assert_int_equal(read_file(&sb, "left over"), SQE_ERR_INVALID_FILE);
    strbuf_reset(&sb);
    /* block size beyond the file, negative count */
    header(&sb, "\"long\"", "null");
    put_varint(&sb, 1);
    put_varint(&sb, 1 << 20);
    assert_int_equal(read_file(&sb, "truncated"), SQE_ERR_INVALID_FILE);
    strbuf_reset(&sb);
    header(&sb, "\"long\"", "null");
    block(&sb, -1, "\x02", 1);
    assert_int_equal(read_file(&sb, "negative object count"), SQE_ERR_INVALID_FILE);
    strbuf_reset(&sb);
    /* bad values: int out of range, boolean 2, enum and union index out of range */
    header(&sb, "\"int\"", "null");
    block(&sb, 1, "\x80\x80\x80\x80\x20", 5);
    assert_int_equal(read_file(&sb, "int value out of range"), SQE_ERR_INVALID_FILE);
    strbuf_reset(&sb);
    header(&sb, "\"boolean\"", "null");
    block(&sb, 1, "\x02", 1);
    assert_int_equal(read_file(&sb, "boolean"), SQE_ERR_INVALID_FILE);
    strbuf_reset(&sb);
    header(&sb, "{\"type\":\"enum\",\"name\":\"e\",\"symbols\":[\"A\"]}", "null");
    block(&sb, 1, "\x02", 1);
    assert_int_equal(read_file(&sb, "enum index 1"), SQE_ERR_INVALID_FILE);
    strbuf_reset(&sb);
    header(&sb, "[\"null\",\"long\"]", "null");
    block(&sb, 1, "\x04", 1);
    assert_int_equal(read_file(&sb, "union branch 2"), SQE_ERR_INVALID_FILE);
    strbuf_reset(&sb);
    header(&sb, "{\"type\":\"fixed\",\"name\":\"f\",\"size\":4}", "null");
    block(&sb, 1, "\x01\x02", 2);
    assert_int_equal(read_file(&sb, "claims 1 objects in 2 bytes"), SQE_ERR_INVALID_FILE);
    strbuf_reset(&sb);
    header(&sb, "[\"null\",{\"type\":\"fixed\",\"name\":\"f\",\"size\":4}]", "null");
    block(&sb, 1, "\x02\x01\x02", 3);
    assert_int_equal(read_file(&sb, "truncated fixed"), SQE_ERR_INVALID_FILE);
    strbuf_reset(&sb);
    /* recursive schema: values nested beyond AVRO_MAX_DEPTH */
    header(&sb, "{\"type\":\"record\",\"name\":\"n\",\"fields\":[{\"name\":\"next\","
                "\"type\":[\"null\",\"n\"]}]}",
           "null");
    {
        char body[300];
        memset(body, 0x02, 299);
        body[299] = 0;
        block(&sb, 1, body, 300);
    }
    assert_int_equal(read_file(&sb, "nested too deeply"), SQE_ERR_INVALID_FILE);
    strbuf_reset(&sb);
}

static void test_hostile_codecs(void **state) {
    (void)state;
    strbuf sb;
    /* snappy: CRC mismatch, too short, garbage */
    size_t len;
    uint8_t *good = write_all(AVRO_CODEC_SNAPPY, 3, 10, &len);
    uint8_t *copy = malloc(len);
    memcpy(copy, good, len);
    copy[len - 17] ^= 0x40; /* inside the CRC of the only block */
    strbuf_init(&sb);
    strbuf_append(&sb, (const char *)copy, len);
    assert_int_equal(read_file(&sb, "snappy block CRC mismatch"), SQE_ERR_INVALID_FILE);
    strbuf_reset(&sb);
    free(copy);
    free(good);
    header(&sb, "\"long\"", "snappy");
    block(&sb, 1, "\x01\x02", 2);
    assert_int_equal(read_file(&sb, "shorter than its CRC"), SQE_ERR_INVALID_FILE);
    strbuf_reset(&sb);
    header(&sb, "\"long\"", "snappy");
    block(&sb, 1, "\xff\xff\xff\xff\x0f\x00\x00\x00\x00", 9); /* claims 4 GiB */
    assert_int_equal(read_file(&sb, "snappy block"), SQE_ERR_INVALID_FILE);
    strbuf_reset(&sb);
    /* deflate: garbage, truncated stream, zlib-wrapped data, trailing bytes */
    header(&sb, "\"long\"", "deflate");
    block(&sb, 1, "\xff\xff\xff", 3);
    assert_int_equal(read_file(&sb, "deflate"), SQE_ERR_INVALID_FILE);
    strbuf_reset(&sb);
    uint8_t body[64], packed[128];
    for (int i = 0; i < 64; i++) body[i] = 2; /* 64 longs of value 1 */
    uLongf plen = sizeof packed;
    assert_int_equal(compress2(packed, &plen, body, 64, 6), Z_OK); /* zlib wrapper */
    header(&sb, "\"long\"", "deflate");
    block(&sb, 64, packed, plen);
    assert_int_equal(read_file(&sb, NULL), SQE_OK);
    strbuf_reset(&sb);
    header(&sb, "\"long\"", "deflate");
    block(&sb, 64, packed + 2, plen - 3); /* raw with 3 trailer bytes, as fastavro writes */
    assert_int_equal(read_file(&sb, NULL), SQE_OK);
    strbuf_reset(&sb);
    header(&sb, "\"long\"", "deflate");
    block(&sb, 64, packed + 2, 5); /* cut short */
    assert_int_equal(read_file(&sb, "deflate"), SQE_ERR_INVALID_FILE);
    strbuf_reset(&sb);
}

/* Every truncation and random corruption of valid files: errors only, never a crash. */
static void test_damage_sweep(void **state) {
    (void)state;
    uint64_t seed = 42;
    for (int c = 0; c < 3; c++) {
        size_t len;
        uint8_t *good = write_all((avro_codec)c, 20, 6, &len);
        strbuf sb;
        for (size_t n = 0; n < len; n++) {
            strbuf_init(&sb);
            strbuf_append(&sb, (const char *)good, n);
            int rc = read_file(&sb, NULL);
            assert_true(rc == SQE_OK || rc == SQE_ERR_INVALID_FILE);
            strbuf_reset(&sb);
        }
        for (int t = 0; t < 2000; t++) {
            strbuf_init(&sb);
            strbuf_append(&sb, (const char *)good, len);
            for (int k = 0; k < 1 + t % 4; k++) {
                seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
                sb.data[(seed >> 33) % len] ^= (char)(1u << ((seed >> 20) % 8));
            }
            int rc = read_file(&sb, NULL);
            assert_true(rc == SQE_OK || rc == SQE_ERR_INVALID_FILE || rc == SQE_ERR_NOT_SUPPORTED);
            strbuf_reset(&sb);
        }
        free(good);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_schema_primitives),
        cmocka_unit_test(test_schema_record_ids_defaults),
        cmocka_unit_test(test_schema_names),
        cmocka_unit_test(test_schema_logical),
        cmocka_unit_test(test_schema_errors),
        cmocka_unit_test(test_roundtrip_codecs),
        cmocka_unit_test(test_value_arena_redirect),
        cmocka_unit_test(test_json_conversions),
        cmocka_unit_test(test_writer_rejects_bad_values),
        cmocka_unit_test(test_hostile_header),
        cmocka_unit_test(test_hostile_blocks),
        cmocka_unit_test(test_hostile_codecs),
        cmocka_unit_test(test_damage_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
