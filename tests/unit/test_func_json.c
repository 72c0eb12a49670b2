/*
 * test_func_json.c: unit tests of the JSON family.
 */
#include "test_func_util.h"

static void test_parse_format(void **state) {
    (void)state;
    tf_expect("json_parse", "{\"a\":[1,2.5,\"x\"],\"b\":null}", "varchar:{ \"b\" : null, \"a\" : [1, 2.5, \"x\"] }");
    tf_expect("json_parse", "1.0E10", "varchar:1e10");
    tf_expect("json_parse", "\"caf\u00e9\\n\"", "varchar:\"caf\\u00e9\\n\"");
    tf_expect("json_parse", "[true,false,null]", "varchar:[true,false,null]");
    tf_expect("json_parse", "0.1", "varchar:0.1");
    tf_expect_error("json_parse", "Cannot convert value to JSON", "varchar:{\"a\":");
    tf_expect_error("json_parse", "Cannot convert value to JSON", "varchar:abc");
    tf_expect("json_format", "{\"a\":1}", "json:{\"a\":1}");
}

static void test_extract(void **state) {
    (void)state;
    const char *doc = "json:{\"a\":{\"b\":[10,{\"c\":\"x\"}]},\"k e\":5,\"s\":\"str\"}";
    tf_expect("json_extract", "[10,{\"c\":\"x\"}]", doc, "varchar:$.a.b");
    tf_expect("json_extract", "{\"c\":\"x\"}", doc, "varchar:$.a.b[1]");
    tf_expect("json_extract", "5", doc, "varchar:$[\"k e\"]");
    tf_expect("json_extract", "NULL", doc, "varchar:$.missing");
    tf_expect("json_extract", "NULL", doc, "varchar:$.a.b[7]");
    tf_expect("json_extract_scalar", "x", doc, "varchar:$.a.b[1].c");
    tf_expect("json_extract_scalar", "10", doc, "varchar:$.a.b[0]");
    tf_expect("json_extract_scalar", "str", doc, "varchar:$['s']");
    tf_expect("json_extract_scalar", "NULL", doc, "varchar:$.a");
    tf_expect("json_extract_scalar", "NULL", "varchar:{not json", "varchar:$.a");
    tf_expect("json_extract_scalar", "1", "varchar:{\"a\":1}", "varchar:$.a");
    tf_expect_error("json_extract", "Invalid JSON path: '$.a[x]'", doc, "varchar:$.a[x]");
    tf_expect_error("json_extract", "Invalid JSON path: 'a.b'", doc, "varchar:a.b");
    tf_expect("json_size", "2", doc, "varchar:$.a.b");
    tf_expect("json_size", "3", doc, "varchar:$");
    tf_expect("json_size", "0", doc, "varchar:$.s");
}

static void test_arrays(void **state) {
    (void)state;
    tf_expect("json_array_length", "3", "json:[1,2,[3]]");
    tf_expect("json_array_length", "NULL", "json:{\"a\":1}");
    tf_expect("json_array_get", "2", "json:[1,2,3]", "bigint:1");
    tf_expect("json_array_get", "3", "json:[1,2,3]", "bigint:-1");
    tf_expect("json_array_get", "NULL", "json:[1,2,3]", "bigint:3");
    tf_expect("json_array_contains", "true", "json:[1,2,3]", "bigint:2");
    tf_expect("json_array_contains", "false", "json:[1,2,3]", "bigint:5");
    tf_expect("json_array_contains", "true", "json:[\"a\",true]", "varchar:a");
    tf_expect("json_array_contains", "true", "json:[\"a\",true]", "boolean:true");
    tf_expect("json_array_contains", "true", "json:[1.5]", "double:1.5");
    tf_expect("is_json_scalar", "true", "json:1");
    tf_expect("is_json_scalar", "false", "json:[1]");
    tf_expect_error("is_json_scalar", "Invalid JSON value", "varchar:[1");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_format),
        cmocka_unit_test(test_extract),
        cmocka_unit_test(test_arrays),
    };
    return cmocka_run_group_tests(tests, tf_setup, NULL);
}
