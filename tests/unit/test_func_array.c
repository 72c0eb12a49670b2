/*
 * test_func_array.c: unit tests of the array and map families, including the lambda functions
 * (lambdas are C callbacks, see test_func_util.h).
 */
#include "test_func_util.h"

#define AB "array(bigint):"
#define AV "array(varchar):"
#define MVB "map(varchar,bigint):"

static void test_access(void **state) {
    (void)state;
    tf_expect("cardinality", "3", AB "[1,2,3]");
    tf_expect("cardinality", "0", AB "[]");
    tf_expect("element_at", "2", AB "[1,2,3]", "bigint:2");
    tf_expect("element_at", "3", AB "[1,2,3]", "bigint:-1");
    tf_expect("element_at", "NULL", AB "[1,2,3]", "bigint:4");
    tf_expect("element_at", "NULL", AB "[1,null,3]", "bigint:2");
    tf_expect_error("element_at", "SQL array indices start at 1", AB "[1,2,3]", "bigint:0");
    tf_expect("$subscript", "b", AV "[\"a\",\"b\"]", "bigint:2");
    tf_expect_error("$subscript", "Array subscript must be less than or equal to array length: 5 > 3",
                    AB "[1,2,3]", "bigint:5");
    tf_expect_error("$subscript", "Array subscript is negative: -1", AB "[1,2,3]", "bigint:-1");
    sqe_error err;
    assert_int_equal(tf_error_code("$subscript", 2, S(AB "[1,2,3]", "bigint:5"), &err),
                     SQE_ERR_INVALID_FUNCTION_ARGUMENT);
    tf_expect("contains", "true", AB "[1,2,3]", "bigint:2");
    tf_expect("contains", "false", AB "[1,2,3]", "bigint:5");
    tf_expect("contains", "NULL", AB "[1,null]", "bigint:5");
    tf_expect("contains", "true", AB "[1,null]", "bigint:1");
    tf_expect("contains", "true", AV "[\"a\",\"bb\"]", "varchar:bb");
    tf_expect("contains", "true", AB "[1,2]", "integer:2");
    tf_expect("array_position", "2", AB "[1,2,3,2]", "bigint:2");
    tf_expect("array_position", "4", AB "[1,2,3,2]", "bigint:2", "bigint:-1");
    tf_expect("array_position", "0", AB "[1,2,3,2]", "bigint:7");
    tf_expect("array_max", "3", AB "[1,3,2]");
    tf_expect("array_min", "1", AB "[1,3,2]");
    tf_expect("array_max", "NULL", AB "[1,null,2]");
    tf_expect("array_max", "NULL", AB "[]");
    tf_expect("array_max", "b", AV "[\"a\",\"b\"]");
    tf_expect("array_join", "1,2,3", AB "[1,2,3]", "varchar:,");
    tf_expect("array_join", "1,3", AB "[1,null,3]", "varchar:,");
    tf_expect("array_join", "1,-,3", AB "[1,null,3]", "varchar:,", "varchar:-");
    tf_expect("array_join", "a b", AV "[\"a\",\"b\"]", "varchar: ");
    tf_expect("array_join", "1.5E0|2.0E0", "array(double):[1.5,2]", "varchar:|"); /* CAST(double AS varchar) */
}

static void test_reshape(void **state) {
    (void)state;
    tf_expect("flatten", "[1, 2, 3]", "array(array(bigint)):[[1],[],null,[2,3]]");
    tf_expect("reverse", "[3, NULL, 1]", AB "[1,null,3]");
    tf_expect("slice", "[2, 3]", AB "[1,2,3,4]", "bigint:2", "bigint:2");
    tf_expect("slice", "[3, 4]", AB "[1,2,3,4]", "bigint:-2", "bigint:5");
    tf_expect("slice", "[]", AB "[1,2,3,4]", "bigint:5", "bigint:1");
    tf_expect_error("slice", "SQL array indices start at 1", AB "[1]", "bigint:0", "bigint:1");
    tf_expect("trim_array", "[1, 2]", AB "[1,2,3,4]", "bigint:2");
    tf_expect_error("trim_array", "size must be in the interval", AB "[1]", "bigint:2");
    tf_expect("concat", "[1, 2, 3]", AB "[1]", AB "[2,3]");
    tf_expect("concat", "[0, 1]", "bigint:0", AB "[1]");
    tf_expect("concat", "[1, 9]", AB "[1]", "bigint:9");
    tf_expect("concat", "[1, 2]", "array(integer):[1]", AB "[2]");
    tf_expect("repeat", "[x, x, x]", "varchar:x", "integer:3");
    tf_expect("repeat", "[NULL, NULL]", "bigint:NULL", "integer:2");
    tf_expect("repeat", "[]", "bigint:1", "integer:0");
    tf_expect_error("repeat", "must be greater than or equal to 0", "bigint:1", "integer:-1");
    tf_expect("zip", "[{field0=1, field1=a}, {field0=2, field1=NULL}]", AB "[1,2]", AV "[\"a\"]");
    vec *a = tf_arg(AB "[1,2,3,4,5,6,7,8]"), *out;
    sqe_error err;
    assert_int_equal(tf_call_ex("shuffle", &a, 1, NULL, 1, false, NULL, &out, &err), 0);
    vec *sorted;
    assert_int_equal(tf_call_ex("array_sort", &out, 1, NULL, 1, false, NULL, &sorted, &err), 0);
    char *t = tf_text(sorted, 0);
    assert_string_equal(t, "[1, 2, 3, 4, 5, 6, 7, 8]"); /* a permutation */
    free(t);
    tf_free(sorted);
    tf_free(out);
    tf_free(a);
}

static void test_sequence(void **state) {
    (void)state;
    tf_expect("sequence", "[1, 2, 3]", "bigint:1", "bigint:3");
    tf_expect("sequence", "[3, 2, 1]", "bigint:3", "bigint:1");
    tf_expect("sequence", "[1, 4, 7]", "bigint:1", "bigint:8", "bigint:3");
    tf_expect_error("sequence", "step must not be zero", "bigint:1", "bigint:3", "bigint:0");
    tf_expect_error("sequence", "sequence stop value should be greater", "bigint:1", "bigint:3",
                    "bigint:-1");
    tf_expect_error("sequence", "must not have more than 10000 entries", "bigint:1",
                    "bigint:100000");
    tf_expect("sequence", "[2024-02-28, 2024-02-29, 2024-03-01]", "date:2024-02-28",
              "date:2024-03-01");
    tf_expect("sequence", "[2024-01-31, 2024-02-29, 2024-03-31]", "date:2024-01-31",
              "date:2024-04-15", "interval year to month:0-1");
    tf_expect("sequence", "[2024-01-01 00:00:00.000, 2024-01-01 12:00:00.000]",
              "timestamp(3):2024-01-01 00:00:00.000", "timestamp(3):2024-01-01 12:00:00.000",
              "interval day to second:0 12:00:00.000");
    tf_expect_error("sequence", "sequence step must be a day interval", "date:2024-01-01",
                    "date:2024-01-03", "interval day to second:0 12:00:00.000");
}

static void test_sets(void **state) {
    (void)state;
    tf_expect("array_distinct", "[1, 2, NULL, 3]", AB "[1,2,1,null,3,null,2]");
    tf_expect("array_distinct", "[NaN, 1.0]", "array(double):[\"NaN\",\"NaN\",1]");
    tf_expect("array_union", "[1, 2, 3]", AB "[1,2,2]", AB "[3,1]");
    tf_expect("array_intersect", "[2, 1]", AB "[2,1,2,5]", AB "[1,2,3]");
    tf_expect("array_except", "[5]", AB "[2,1,2,5]", AB "[1,2,3]");
    tf_expect("arrays_overlap", "true", AB "[1,2]", AB "[2,3]");
    tf_expect("arrays_overlap", "false", AB "[1,2]", AB "[3]");
    tf_expect("arrays_overlap", "NULL", AB "[1,null]", AB "[3]");
    tf_expect("array_remove", "[1, 3, NULL]", AB "[1,2,3,null,2]", "bigint:2");
    tf_expect("array_sort", "[1, 2, 3, NULL]", AB "[3,null,1,2]");
    tf_expect("array_sort", "[a, b, c]", AV "[\"c\",\"a\",\"b\"]");
    tf_expect("array_sort_desc", "[3, 2, 1, NULL]", AB "[3,null,1,2]");
    tf_expect("array_sort", "[[1], [1, 2], [2]]", "array(array(bigint)):[[2],[1,2],[1]]");
    sqe_error err;
    assert_int_equal(tf_error_code("array_sort", 1, S("array(map(varchar,bigint)):[{\"a\":1}]"),
                                   &err),
                     SQE_ERR_TYPE_MISMATCH);
}

/* --- lambdas ---------------------------------------------------------------------------------- */

static sqe_type body_param0(const sqe_type *p, uint32_t n) { (void)n; return p[0]; }
static sqe_type body_bool(const sqe_type *p, uint32_t n) { (void)p, (void)n; return type_make(TYPE_BOOLEAN); }
static sqe_type body_int(const sqe_type *p, uint32_t n) { (void)p, (void)n; return type_make(TYPE_INTEGER); }
static sqe_type body_bigint(const sqe_type *p, uint32_t n) { (void)p, (void)n; return type_make(TYPE_BIGINT); }
static sqe_type body_param1(const sqe_type *p, uint32_t n) { (void)n; return p[1]; }
static sqe_type body_super(const sqe_type *p, uint32_t n) {
    sqe_type t = p[0];
    for (uint32_t i = 1; i < n; i++) type_common_super(t, p[i], &t);
    return t;
}
static sqe_type body_varchar(const sqe_type *p, uint32_t n) { (void)p, (void)n; return type_varchar(0); }

static bool null_at(vec *const *p, uint32_t k, uint32_t i) { return !vec_is_valid_flat(p[k], i); }
static int64_t i64_at(vec *const *p, uint32_t k, uint32_t i) { return VEC_DATA(p[k], int64_t)[i]; }

/* x -> x * 2 */
static void ev_double(vec *const *p, uint32_t n, uint32_t i, vec *out) {
    (void)n;
    if (null_at(p, 0, i)) vec_set_null(out, i);
    else VEC_DATA(out, int64_t)[i] = i64_at(p, 0, i) * 2;
}
/* x -> x > 1 */
static void ev_gt1(vec *const *p, uint32_t n, uint32_t i, vec *out) {
    (void)n;
    if (null_at(p, 0, i)) vec_set_null(out, i);
    else VEC_DATA(out, uint8_t)[i] = i64_at(p, 0, i) > 1;
}
/* (s, x) -> s + x (and s -> s * 10 as the output function) */
static void ev_sum(vec *const *p, uint32_t n, uint32_t i, vec *out) {
    (void)n;
    if (null_at(p, 0, i) || null_at(p, 1, i)) vec_set_null(out, i);
    else VEC_DATA(out, int64_t)[i] = i64_at(p, 0, i) + i64_at(p, 1, i);
}
static void ev_times10(vec *const *p, uint32_t n, uint32_t i, vec *out) {
    (void)n;
    if (null_at(p, 0, i)) vec_set_null(out, i);
    else VEC_DATA(out, int64_t)[i] = i64_at(p, 0, i) * 10;
}
/* (x, y) -> sign(y - x): a descending comparator */
static void ev_desc(vec *const *p, uint32_t n, uint32_t i, vec *out) {
    (void)n;
    int64_t d = i64_at(p, 1, i) - i64_at(p, 0, i);
    VEC_DATA(out, int32_t)[i] = (d > 0) - (d < 0);
}
/* x -> 'v' || x (a string result) */
static void ev_tag(vec *const *p, uint32_t n, uint32_t i, vec *out) {
    (void)n;
    char buf[32];
    int len = snprintf(buf, sizeof buf, "v%lld", (long long)i64_at(p, 0, i));
    bool ok = true;
    VEC_DATA(out, sqe_str)[i] = vec_str_copy(out, buf, (uint32_t)len, &ok);
}
/* (k, v) -> v + 1, (k, v) -> v > 1, (k, v) -> length(k) */
static void ev_v_plus1(vec *const *p, uint32_t n, uint32_t i, vec *out) {
    (void)n;
    VEC_DATA(out, int64_t)[i] = i64_at(p, 1, i) + 1;
}
static void ev_v_gt1(vec *const *p, uint32_t n, uint32_t i, vec *out) {
    (void)n;
    VEC_DATA(out, uint8_t)[i] = i64_at(p, 1, i) > 1;
}
static void ev_klen(vec *const *p, uint32_t n, uint32_t i, vec *out) {
    (void)n;
    VEC_DATA(out, int64_t)[i] = VEC_DATA(p[0], sqe_str)[i].len;
}
static void ev_const1(vec *const *p, uint32_t n, uint32_t i, vec *out) {
    (void)p, (void)n;
    VEC_DATA(out, int64_t)[i] = 1;
}

static void test_array_lambdas(void **state) {
    (void)state;
    tf_lambdas dbl = {(tf_lambda[]){{1, body_param0, ev_double}}, 1};
    tf_expect_lambda("transform", "[2, NULL, 6]", &dbl, AB "[1,null,3]", NULL);
    tf_expect_lambda("transform", "NULL", &dbl, AB "NULL", NULL);
    tf_lambdas tag = {(tf_lambda[]){{1, body_varchar, ev_tag}}, 1};
    tf_expect_lambda("transform", "[v1, v22]", &tag, AB "[1,22]", NULL);
    tf_lambdas gt1 = {(tf_lambda[]){{1, body_bool, ev_gt1}}, 1};
    tf_expect_lambda("filter", "[2, 3]", &gt1, AB "[1,2,null,3]", NULL);
    tf_expect_lambda("any_match", "true", &gt1, AB "[1,2]", NULL);
    tf_expect_lambda("any_match", "NULL", &gt1, AB "[1,null]", NULL);
    tf_expect_lambda("any_match", "false", &gt1, AB "[]", NULL);
    tf_expect_lambda("all_match", "false", &gt1, AB "[1,null]", NULL);
    tf_expect_lambda("all_match", "NULL", &gt1, AB "[2,null]", NULL);
    tf_expect_lambda("all_match", "true", &gt1, AB "[]", NULL);
    tf_expect_lambda("none_match", "true", &gt1, AB "[0,1]", NULL);
    tf_lambdas red = {(tf_lambda[]){{2, body_super, ev_sum}, {3, body_param0, ev_times10}}, 2};
    tf_expect_lambda("reduce", "60", &red, AB "[1,2,3]", "bigint:0", NULL, NULL);
    tf_expect_lambda("reduce", "50", &red, AB "[]", "bigint:5", NULL, NULL);
    tf_expect_lambda("reduce", "NULL", &red, AB "[1,null]", "bigint:0", NULL, NULL);
    tf_expect_lambda("reduce", "NULL", &red, AB "NULL", "bigint:0", NULL, NULL);
    /* the state type widens from integer to bigint to match the body */
    tf_expect_lambda("reduce", "60", &red, AB "[1,2,3]", "integer:0", NULL, NULL);
    tf_lambdas zw = {(tf_lambda[]){{2, body_super, ev_sum}}, 1};
    tf_expect_lambda("zip_with", "[11, 22, NULL]", &zw, AB "[1,2,3]", AB "[10,20]", NULL);
    tf_lambdas cmp = {(tf_lambda[]){{1, body_int, ev_desc}}, 1};
    tf_expect_lambda("array_sort", "[5, 3, 2, 1]", &cmp, AB "[3,1,5,2]", NULL);
    /* a body of the wrong type is a clear error */
    tf_lambdas bad = {(tf_lambda[]){{1, body_bigint, ev_double}}, 1};
    vec *out;
    sqe_error err;
    vec *arr = tf_arg(AB "[1]");
    assert_int_equal(tf_call_ex("filter", (vec *[]){arr, NULL}, 2, NULL, 1, false, &bad, &out,
                                &err),
                     SQE_ERR_TYPE_MISMATCH);
    assert_non_null(strstr(err.message, "returns bigint where boolean is expected"));
    tf_free(arr);
}

/* --- maps ------------------------------------------------------------------------------------- */

static void test_maps(void **state) {
    (void)state;
    tf_expect("map", "{a=1, b=2}", AV "[\"a\",\"b\"]", AB "[1,2]");
    tf_expect_error("map", "Duplicate map keys (a) are not allowed", AV "[\"a\",\"a\"]",
                    AB "[1,2]");
    tf_expect_error("map", "map key cannot be null", AV "[null]", AB "[1]");
    tf_expect_error("map", "Key and value arrays must be the same length", AV "[\"a\"]",
                    AB "[1,2]");
    tf_expect0("map", "{}");
    tf_expect("map_keys", "[a, b]", MVB "{\"a\":1,\"b\":2}");
    tf_expect("map_values", "[1, 2]", MVB "{\"a\":1,\"b\":2}");
    tf_expect("cardinality", "2", MVB "{\"a\":1,\"b\":2}");
    tf_expect("element_at", "2", MVB "{\"a\":1,\"b\":2}", "varchar:b");
    tf_expect("element_at", "NULL", MVB "{\"a\":1,\"b\":2}", "varchar:c");
    tf_expect("$subscript", "1", MVB "{\"a\":1,\"b\":2}", "varchar:a");
    tf_expect_error("$subscript", "Key not present in map: c", MVB "{\"a\":1,\"b\":2}",
                    "varchar:c");
    tf_expect("map_concat", "{a=1, b=3, c=4}", MVB "{\"a\":1,\"b\":2}", MVB "{\"b\":3,\"c\":4}");
    tf_expect("map_entries", "[{field0=a, field1=1}]", MVB "{\"a\":1}");
    tf_expect("map_from_entries", "{a=1, b=2}",
              "array(row(varchar,bigint)):[[\"a\",1],[\"b\",2]]");
    tf_expect_error("map_from_entries", "map entry cannot be null",
                    "array(row(varchar,bigint)):[null]");
    tf_expect_error("map_from_entries", "Duplicate map keys (a) are not allowed",
                    "array(row(varchar,bigint)):[[\"a\",1],[\"a\",2]]");

    tf_lambdas vp1 = {(tf_lambda[]){{1, body_param1, ev_v_plus1}}, 1};
    tf_expect_lambda("transform_values", "{a=2, b=3}", &vp1, MVB "{\"a\":1,\"b\":2}", NULL);
    tf_lambdas vf = {(tf_lambda[]){{1, body_bool, ev_v_gt1}}, 1};
    tf_expect_lambda("map_filter", "{b=2}", &vf, MVB "{\"a\":1,\"b\":2}", NULL);
    tf_lambdas kl = {(tf_lambda[]){{1, body_bigint, ev_klen}}, 1};
    tf_expect_lambda("transform_keys", "{1=1, 2=2}", &kl, MVB "{\"a\":1,\"bb\":2}", NULL);
    tf_lambdas k1 = {(tf_lambda[]){{1, body_bigint, ev_const1}}, 1};
    tf_expect_error_lambda("transform_keys", "Duplicate keys (1) are not allowed", &k1,
                           MVB "{\"a\":1,\"b\":2}", NULL);
}

/* Many rows with a selection vector: list offsets must stay consistent. */
static void test_batch(void **state) {
    (void)state;
    vec *a = tf_col("array(bigint)", 4, S("[3,1,2]", "[]", "[5,5]", "[9]"));
    vec *out;
    sqe_error err;
    uint32_t sel[] = {0, 2, 3};
    assert_int_equal(tf_call_ex("array_sort", &a, 1, sel, 3, false, NULL, &out, &err), 0);
    char *t0 = tf_text(out, 0), *t2 = tf_text(out, 2), *t3 = tf_text(out, 3);
    assert_string_equal(t0, "[1, 2, 3]");
    assert_string_equal(t2, "[5, 5]");
    assert_string_equal(t3, "[9]");
    free(t0), free(t2), free(t3);
    tf_free(out);
    tf_lambdas dbl = {(tf_lambda[]){{1, body_param0, ev_double}}, 1};
    vec *args[2] = {a, NULL};
    assert_int_equal(tf_call_ex("transform", args, 2, NULL, 4, false, &dbl, &out, &err), 0);
    tf_assert_col(out, 4, S("[6, 2, 4]", "[]", "[10, 10]", "[18]"));
    tf_free(out);
    tf_free(a);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_access),  cmocka_unit_test(test_reshape),
        cmocka_unit_test(test_sequence), cmocka_unit_test(test_sets),
        cmocka_unit_test(test_array_lambdas), cmocka_unit_test(test_maps),
        cmocka_unit_test(test_batch),
    };
    return cmocka_run_group_tests(tests, tf_setup, NULL);
}
