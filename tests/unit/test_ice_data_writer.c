/*
 * test_ice_data_writer.c: unit tests of the Iceberg data writer's pieces: truncate(N) bounds
 * (code points, rounding up, no bound when none exists), metrics mode and property parsing,
 * and open-time errors (no data directory, unsupported column types).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "iceberg/data_writer.h"

static void test_truncate_utf8(void **state) {
    (void)state;
    uint8_t out[64];
    size_t n;
    const char *s = "\xc3\xbc\xc3\xbc\xc3\xbc" "abc"; /* 3 x U+00FC then abc: 6 code points */
    assert_true(ice_truncate_bound((const uint8_t *)s, strlen(s), 4, true, false, out, &n));
    assert_int_equal(n, 7);
    assert_memory_equal(out, "\xc3\xbc\xc3\xbc\xc3\xbc" "a", 7);
    assert_true(ice_truncate_bound((const uint8_t *)s, strlen(s), 4, true, true, out, &n));
    assert_int_equal(n, 7);
    assert_memory_equal(out, "\xc3\xbc\xc3\xbc\xc3\xbc" "b", 7);
    /* short values stay */
    assert_true(ice_truncate_bound((const uint8_t *)s, strlen(s), 16, true, true, out, &n));
    assert_int_equal(n, strlen(s));
    /* U+10FFFF cannot be incremented: the code point before it is */
    const char *m = "a\xf4\x8f\xbf\xbf" "z";
    assert_true(ice_truncate_bound((const uint8_t *)m, strlen(m), 2, true, true, out, &n));
    assert_int_equal(n, 1);
    assert_int_equal(out[0], 'b');
    const char *only = "\xf4\x8f\xbf\xbf\xf4\x8f\xbf\xbf";
    assert_false(ice_truncate_bound((const uint8_t *)only, strlen(only), 1, true, true, out, &n));
    /* 0x7F -> U+0080 grows to two bytes */
    const char *d = "\x7f\x7f";
    assert_true(ice_truncate_bound((const uint8_t *)d, 2, 1, true, true, out, &n));
    assert_int_equal(n, 2);
    assert_memory_equal(out, "\xc2\x80", 2);
}

static void test_truncate_binary(void **state) {
    (void)state;
    uint8_t out[16];
    size_t n;
    const uint8_t v[] = {1, 0xFF, 0xFF, 7};
    assert_true(ice_truncate_bound(v, 4, 3, false, true, out, &n));
    assert_int_equal(n, 1);
    assert_int_equal(out[0], 2);
    assert_true(ice_truncate_bound(v, 4, 3, false, false, out, &n));
    assert_int_equal(n, 3);
    const uint8_t ff[] = {0xFF, 0xFF, 0xFF};
    assert_false(ice_truncate_bound(ff, 3, 2, false, true, out, &n));
}

static void test_metrics_modes(void **state) {
    (void)state;
    ice_metrics_mode m;
    sqe_error err = {0};
    assert_int_equal(ice_metrics_mode_parse(" Truncate( 8 ) ", &m, &err), SQE_OK);
    assert_int_equal(m.kind, ICE_METRICS_TRUNCATE);
    assert_int_equal(m.length, 8);
    assert_int_equal(ice_metrics_mode_parse("counts", &m, &err), SQE_OK);
    assert_int_equal(m.kind, ICE_METRICS_COUNTS);
    assert_int_equal(ice_metrics_mode_parse("truncate(0)", &m, &err), SQE_ERR_INVALID_TABLE_PROPERTY);
    assert_int_equal(ice_metrics_mode_parse("truncate(x)", &m, &err), SQE_ERR_INVALID_TABLE_PROPERTY);
    assert_int_equal(ice_metrics_mode_parse("bogus", &m, &err), SQE_ERR_INVALID_TABLE_PROPERTY);
    assert_non_null(strstr(err.message, "bogus"));
}

static void test_properties(void **state) {
    (void)state;
    ice_kv items[] = {{"write.target-file-size-bytes", "1048576"},
                      {"write.parquet.compression-codec", "snappy"},
                      {"write.parquet.row-group-size-bytes", "4096"},
                      {"write.metadata.metrics.default", "full"}};
    ice_kv_list props = {4, items};
    ice_write_options o;
    sqe_error err = {0};
    assert_int_equal(ice_write_options_from_properties(&props, &o, &err), SQE_OK);
    assert_int_equal(o.target_file_size, 1048576);
    assert_int_equal(o.parquet.row_group_bytes, 4096);
    assert_int_equal(o.metrics_default.kind, ICE_METRICS_FULL);
    assert_false(o.parquet.bloom_filter);
    ice_kv bad[] = {{"write.parquet.compression-codec", "lzo-ish"}};
    ice_kv_list bp = {1, bad};
    assert_int_equal(ice_write_options_from_properties(&bp, &o, &err), SQE_ERR_INVALID_TABLE_PROPERTY);
    ice_kv bad2[] = {{"write.target-file-size-bytes", "-5"}};
    ice_kv_list bp2 = {1, bad2};
    assert_int_equal(ice_write_options_from_properties(&bp2, &o, &err), SQE_ERR_INVALID_TABLE_PROPERTY);
    arena a;
    arena_init(&a, NULL);
    assert_string_equal(ice_write_data_dir(&a, "/w/t/", NULL), "/w/t/data");
    ice_kv dp[] = {{"write.data.path", "/elsewhere"}};
    ice_kv_list dpl = {1, dp};
    assert_string_equal(ice_write_data_dir(&a, "/w/t", &dpl), "/elsewhere");
    arena_destroy(&a);
}

static void test_open_errors(void **state) {
    (void)state;
    arena a;
    arena_init(&a, NULL);
    ice_field fields[2];
    memset(fields, 0, sizeof fields);
    fields[0] = (ice_field){.id = 1, .name = "a", .type = {.kind = ICE_TYPE_LONG}};
    fields[1] = (ice_field){.id = 2, .name = "f", .type = {.kind = ICE_TYPE_FIXED, .length = 4}};
    ice_schema schema = {.type = {.kind = ICE_TYPE_STRUCT, .n_fields = 2, .fields = fields}};
    ice_partition_spec spec = {0};
    ice_write_options o;
    sqe_error err = {0};
    ice_write_options_from_properties(NULL, &o, &err);
    ice_data_writer *w = NULL;
    assert_int_equal(ice_data_writer_open(&schema, &spec, &o, &a, NULL, &w, &err),
                     SQE_ERR_INVALID_ARGUMENTS);
    assert_null(w);
    o.data_dir = "/tmp/sqe-ice-dw-unit";
    assert_int_equal(ice_data_writer_open(&schema, &spec, &o, &a, NULL, &w, &err), SQE_ERR_NOT_SUPPORTED);
    assert_non_null(strstr(err.message, "fixed"));
    schema.type.n_fields = 1;
    ice_partition_field pf = {.source_id = 7, .field_id = 1000, .name = "p",
                              .transform = {ICE_T_IDENTITY, 0}};
    ice_partition_spec bad = {.spec_id = 1, .n_fields = 1, .fields = &pf};
    assert_int_not_equal(ice_data_writer_open(&schema, &bad, &o, &a, NULL, &w, &err), SQE_OK);
    assert_null(w);
    assert_int_equal(ice_data_writer_open(&schema, &spec, &o, &a, NULL, &w, &err), SQE_OK);
    ice_data_file *files;
    uint32_t n;
    assert_int_equal(ice_data_writer_finish(w, &files, &n, &err), SQE_OK);
    assert_int_equal(n, 0); /* no rows, no files */
    arena_destroy(&a);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_truncate_utf8),   cmocka_unit_test(test_truncate_binary),
        cmocka_unit_test(test_metrics_modes),   cmocka_unit_test(test_properties),
        cmocka_unit_test(test_open_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
