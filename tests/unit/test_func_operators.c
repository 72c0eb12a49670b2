/*
 * test_func_operators.c: unit tests of the registry's overload resolution and of the operator
 * kernels (arithmetic, comparisons, LIKE, date/time/interval arithmetic), including the
 * flat/constant fast paths, selection vectors, overflow messages and TRY mode.
 */
#include "test_func_util.h"

/* --- Registry and resolution ------------------------------------------------------------------ */

static void test_resolution(void **state) {
    (void)state;
    tf_expect_ret("$add", "bigint", "integer", "bigint");
    tf_expect_ret("$add", "integer", "integer", "integer");
    tf_expect_ret("$add", "decimal(12,1)", "integer", "decimal(2,1)");
    tf_expect_ret("$add", "double", "decimal(2,1)", "double");
    tf_expect_ret("$multiply", "decimal(4,2)", "decimal(2,1)", "decimal(2,1)");
    tf_expect_ret("$divide", "decimal(3,1)", "decimal(2,1)", "decimal(2,1)");
    tf_expect_ret("$negate", "tinyint", "unknown");
    tf_expect_ret("$eq", "boolean", "integer", "decimal(2,1)");
    tf_expect_ret("$lt", "boolean", "varchar(3)", "varchar(5)");
    tf_expect_ret("$add", "date", "date", "interval day to second");
    tf_expect_ret("$add", "timestamp(3)", "timestamp(3)", "interval year to month");
    tf_expect_ret("$subtract", "interval day to second", "timestamp(6)", "timestamp(6)");
    tf_expect_ret("abs", "integer", "integer");
    tf_expect_ret("abs", "decimal(5,2)", "decimal(5,2)");
    tf_expect_ret("round", "decimal(4,0)", "decimal(5,2)");
    tf_expect_ret("greatest", "decimal(11,1)", "integer", "decimal(2,1)");

    sqe_error err;
    assert_int_equal(tf_error_code("no_such_function", 1, S("bigint:1"), &err),
                     SQE_ERR_FUNCTION_NOT_FOUND);
    assert_string_equal(err.message, "Function 'no_such_function' not registered");
    assert_int_equal(tf_error_code("abs", 1, S("varchar(3):abc"), &err), SQE_ERR_FUNCTION_NOT_FOUND);
    assert_non_null(strstr(err.message, "Unexpected parameters (varchar(3)) for function abs. "
                                        "Expected: abs(tinyint)"));
    assert_int_equal(tf_error_code("$add", 2, S("varchar(1):a", "integer:1"), &err),
                     SQE_ERR_TYPE_MISMATCH);
    assert_string_equal(err.message, "Cannot apply operator: varchar(1) + integer");
    assert_int_equal(tf_error_code("$lt", 2, S("map(varchar,integer):{\"a\":1}",
                                               "map(varchar,integer):{\"a\":1}"),
                                   &err),
                     SQE_ERR_TYPE_MISMATCH);
    assert_non_null(strstr(err.message, "not orderable"));

    assert_true(func_exists("abs"));
    assert_true(func_exists("ABS"));
    assert_false(func_exists("nope"));
    assert_false(func_is_aggregate("abs"));
}

static void count_cb(void *ud, const char *name, const char *args, const char *ret,
                     const char *kind, const char *description) {
    (void)name, (void)args, (void)ret, (void)description;
    if (strcmp(kind, "scalar") == 0) (*(int *)ud)++;
}

static void test_registry_list(void **state) {
    (void)state;
    int n = 0;
    func_registry_list(count_cb, &n);
    assert_true(n > 300);
}

/* --- Integer arithmetic -------------------------------------------------------------------- */

static void test_integer_arithmetic(void **state) {
    (void)state;
    tf_expect("$add", "3", "bigint:1", "bigint:2");
    tf_expect("$subtract", "-1", "integer:1", "integer:2");
    tf_expect("$multiply", "6", "smallint:2", "smallint:3");
    tf_expect("$divide", "-2", "integer:-7", "integer:3");
    tf_expect("$modulus", "-1", "integer:-7", "integer:3");
    tf_expect("$modulus", "0", "bigint:-9223372036854775808", "bigint:-1");
    tf_expect("$negate", "-5", "tinyint:5");
    tf_expect("$add", "NULL", "bigint:NULL", "bigint:2");
    tf_expect_error("$add", "bigint addition overflow: 9223372036854775807 + 1",
                    "bigint:9223372036854775807", "bigint:1");
    tf_expect_error("$subtract", "bigint subtraction overflow: -9223372036854775808 - 1",
                    "bigint:-9223372036854775808", "bigint:1");
    tf_expect_error("$multiply", "bigint multiplication overflow: 9223372036854775807 * 2",
                    "bigint:9223372036854775807", "bigint:2");
    tf_expect_error("$add", "integer addition overflow: 2147483647 + 1", "integer:2147483647",
                    "integer:1");
    tf_expect_error("$add", "tinyint addition overflow: 127 + 1", "tinyint:127", "tinyint:1");
    tf_expect_error("$multiply", "smallint multiplication overflow: 200 * 200", "smallint:200",
                    "smallint:200");
    tf_expect_error("$divide", "Division by zero", "bigint:1", "bigint:0");
    tf_expect_error("$modulus", "Division by zero", "integer:1", "integer:0");
    tf_expect_error("$divide", "bigint division overflow: -9223372036854775808 / -1",
                    "bigint:-9223372036854775808", "bigint:-1");
    tf_expect_error("$negate", "bigint negation overflow: -9223372036854775808",
                    "bigint:-9223372036854775808");
}

/* The fast paths: flat/flat, flat/const, const/flat and a selection vector, with an overflow
 * in one row reported or nulled under TRY. */
static void test_arithmetic_shapes(void **state) {
    (void)state;
    vec *a = tf_col("bigint", 4, S("1", "2", "9223372036854775807", "4"));
    vec *b = tf_col("bigint", 4, S("10", "20", "30", "40"));
    vec *c = tf_const("bigint", "5");
    vec *out;
    sqe_error err;
    assert_int_equal(tf_call_ex("$add", (vec *[]){a, b}, 2, NULL, 4, false, NULL, &out, &err),
                     SQE_ERR_NUMERIC_VALUE_OUT_OF_RANGE);
    assert_string_equal(err.message, "bigint addition overflow: 9223372036854775807 + 30");
    assert_int_equal(tf_call_ex("$add", (vec *[]){a, b}, 2, NULL, 4, true, NULL, &out, &err),
                     SQE_OK);
    tf_assert_col(out, 4, S("11", "22", "NULL", "44"));
    tf_free(out);
    assert_int_equal(tf_call_ex("$subtract", (vec *[]){b, c}, 2, NULL, 4, false, NULL, &out, &err),
                     SQE_OK);
    tf_assert_col(out, 4, S("5", "15", "25", "35"));
    tf_free(out);
    assert_int_equal(tf_call_ex("$subtract", (vec *[]){c, b}, 2, NULL, 4, false, NULL, &out, &err),
                     SQE_OK);
    tf_assert_col(out, 4, S("-5", "-15", "-25", "-35"));
    tf_free(out);
    uint32_t sel[] = {0, 3};
    assert_int_equal(tf_call_ex("$add", (vec *[]){a, b}, 2, sel, 2, false, NULL, &out, &err),
                     SQE_OK);
    char *t0 = tf_text(out, 0), *t3 = tf_text(out, 3);
    assert_string_equal(t0, "11");
    assert_string_equal(t3, "44");
    free(t0);
    free(t3);
    tf_free(out);

    /* a dictionary vector over a flat one */
    vec *d = tf_new(a->type, 4);
    uint32_t *dsel = vec_sel_make(d, NULL);
    dsel[0] = 3, dsel[1] = 0, dsel[2] = 1, dsel[3] = 0;
    vec_set_dict(d, a, dsel);
    assert_int_equal(tf_call_ex("$multiply", (vec *[]){d, b}, 2, NULL, 4, false, NULL, &out, &err),
                     SQE_OK);
    tf_assert_col(out, 4, S("40", "20", "60", "40"));
    tf_free(out);
    tf_free(d);

    /* small integers: vectorized overflow detection */
    vec *x = tf_col("integer", 3, S("2147483647", "5", "-2147483648"));
    vec *y = tf_const("integer", "1");
    assert_int_equal(tf_call_ex("$add", (vec *[]){x, y}, 2, NULL, 3, true, NULL, &out, &err),
                     SQE_OK);
    tf_assert_col(out, 3, S("NULL", "6", "-2147483647"));
    tf_free(out);
    tf_free(x);
    tf_free(y);
    tf_free(a);
    tf_free(b);
    tf_free(c);
}

static void test_float_arithmetic(void **state) {
    (void)state;
    tf_expect("$add", "0.30000000000000004", "double:0.1", "double:0.2");
    tf_expect("$divide", "Infinity", "double:1", "double:0");
    tf_expect("$divide", "NaN", "double:0", "double:0");
    tf_expect("$modulus", "1.5", "double:7.5", "double:3");
    tf_expect("$multiply", "7.5", "real:2.5", "real:3");
    tf_expect("$negate", "-2.5", "double:2.5");
    tf_expect("$add", "3.5", "integer:1", "double:2.5");
}

static void test_decimal_arithmetic(void **state) {
    (void)state;
    tf_expect("$add", "3.75", "decimal(3,2):1.25", "decimal(3,1):2.5");
    tf_expect("$subtract", "-1.25", "decimal(3,2):1.25", "decimal(3,1):2.5");
    tf_expect("$multiply", "3.125", "decimal(3,2):1.25", "decimal(3,1):2.5");
    tf_expect("$divide", "0.3", "decimal(2,1):1.0", "decimal(2,1):3.0");
    tf_expect("$divide", "0.7", "decimal(2,1):2.0", "decimal(2,1):3.0");
    tf_expect("$divide", "-0.7", "decimal(2,1):-2.0", "decimal(2,1):3.0");
    tf_expect("$modulus", "1.0", "decimal(3,1):7.0", "decimal(2,1):3.0");
    tf_expect("$add", "3.5", "integer:1", "decimal(2,1):2.5");
    tf_expect("$negate", "-1.25", "decimal(3,2):1.25");
    tf_expect("$add", "12345678901234567890.12", "decimal(22,2):12345678901234567890.00",
              "decimal(3,2):0.12");
    tf_expect("$multiply", "121932631235894527259.37",
              "decimal(20,2):12345678901.23", "decimal(20,0):9876543219");
    tf_expect_error("$divide", "Division by zero", "decimal(3,1):1.0", "decimal(3,1):0.0");
    tf_expect_error("$add", "Decimal overflow", "decimal(38,0):99999999999999999999999999999999999999",
                    "decimal(38,0):1");
}

/* --- Comparisons ------------------------------------------------------------------------------- */

static void test_comparisons(void **state) {
    (void)state;
    tf_expect("$eq", "true", "bigint:5", "bigint:5");
    tf_expect("$ne", "true", "integer:5", "bigint:6");
    tf_expect("$lt", "true", "integer:1", "decimal(2,1):1.5");
    tf_expect("$ge", "false", "double:1", "double:NaN");
    tf_expect("$eq", "false", "double:NaN", "double:NaN");
    tf_expect("$ne", "true", "double:NaN", "double:NaN");
    tf_expect("$lt", "true", "varchar:abc", "varchar:abd");
    tf_expect("$lt", "true", "varchar:ab", "varchar:abc");
    tf_expect("$gt", "true", "varchar:é", "varchar:z");
    tf_expect("$eq", "true", "char(5):ab", "varchar:ab");
    tf_expect("$le", "true", "date:2024-01-01", "date:2024-01-01");
    tf_expect("$lt", "true", "timestamp(3):2024-01-01 00:00:00.000",
              "timestamp(6):2024-01-01 00:00:00.000001");
    tf_expect("$eq", "true", "timestamp(3) with time zone:2024-01-01 01:00:00.000 +01:00",
              "timestamp(3) with time zone:2024-01-01 00:00:00.000 UTC");
    tf_expect("$gt", "true", "boolean:true", "boolean:false");
    tf_expect("$lt", "true", "varbinary:a", "varbinary:b");
    tf_expect("$eq", "true", "decimal(20,2):12345678901234567.89",
              "decimal(20,2):12345678901234567.89");
    tf_expect("$lt", "true", "interval day to second:1 00:00:00.000",
              "interval day to second:2 00:00:00.000");
    tf_expect("$eq", "true", "uuid:12151fd2-7586-11e9-8f9e-2a86e4085a59",
              "uuid:12151fd2-7586-11e9-8f9e-2a86e4085a59");
    /* nested: three-valued equality, ordering refuses NULL elements */
    tf_expect("$eq", "true", "array(integer):[1,2]", "array(integer):[1,2]");
    tf_expect("$eq", "false", "array(integer):[1,2]", "array(integer):[1,2,3]");
    tf_expect("$eq", "NULL", "array(integer):[1,null]", "array(integer):[1,null]");
    tf_expect("$eq", "false", "array(integer):[1,null]", "array(integer):[2,null]");
    tf_expect("$lt", "true", "array(integer):[1,2]", "array(integer):[1,3]");
    tf_expect("$lt", "true", "array(integer):[1,2]", "array(integer):[1,2,0]");
    tf_expect_error("$lt", "ARRAY comparison not supported for arrays with null elements",
                    "array(integer):[null,2]", "array(integer):[1,3]");
    tf_expect("$eq", "true", "map(varchar,integer):{\"a\":1,\"b\":2}",
              "map(varchar,integer):{\"b\":2,\"a\":1}");
    tf_expect("$eq", "true", "row(a integer,b varchar):[1,\"x\"]",
              "row(a integer,b varchar):[1,\"x\"]");
    tf_expect("$lt", "true", "row(a integer,b varchar):[1,\"x\"]",
              "row(a integer,b varchar):[1,\"y\"]");
}

static void test_comparison_shapes(void **state) {
    (void)state;
    vec *a = tf_col("varchar", 4, S("apple", "banana long string", "cherry", "apple"));
    vec *c = tf_const("varchar", "apple");
    vec *out;
    sqe_error err;
    assert_int_equal(tf_call_ex("$eq", (vec *[]){a, c}, 2, NULL, 4, false, NULL, &out, &err), 0);
    tf_assert_col(out, 4, S("true", "false", "false", "true"));
    tf_free(out);
    assert_int_equal(tf_call_ex("$lt", (vec *[]){c, a}, 2, NULL, 4, false, NULL, &out, &err), 0);
    tf_assert_col(out, 4, S("false", "true", "true", "false"));
    tf_free(out);
    vec *x = tf_col("double", 3, S("1.5", "NaN", "-0.0"));
    vec *y = tf_col("double", 3, S("1.5", "NaN", "0.0"));
    assert_int_equal(tf_call_ex("$eq", (vec *[]){x, y}, 2, NULL, 3, false, NULL, &out, &err), 0);
    tf_assert_col(out, 3, S("true", "false", "true"));
    tf_free(out);
    uint32_t sel[] = {1, 2};
    assert_int_equal(tf_call_ex("$ge", (vec *[]){x, y}, 2, sel, 2, false, NULL, &out, &err), 0);
    char *t = tf_text(out, 2);
    assert_string_equal(t, "true");
    free(t);
    tf_free(out);
    tf_free(x);
    tf_free(y);
    tf_free(a);
    tf_free(c);
}

static void test_is_distinct_from(void **state) {
    (void)state;
    tf_expect("$is_distinct_from", "false", "bigint:NULL", "bigint:NULL");
    tf_expect("$is_distinct_from", "true", "bigint:NULL", "bigint:1");
    tf_expect("$is_distinct_from", "false", "bigint:1", "bigint:1");
    tf_expect("$is_distinct_from", "false", "double:NaN", "double:NaN");
    tf_expect("$is_distinct_from", "true", "varchar:a", "varchar:b");
    tf_expect("$is_distinct_from", "false", "array(integer):[1,null]", "array(integer):[1,null]");
}

/* --- LIKE -------------------------------------------------------------------------------------- */

static void test_like(void **state) {
    (void)state;
    tf_expect("like", "true", "varchar:hello", "varchar:hello");
    tf_expect("like", "false", "varchar:hello", "varchar:hell");
    tf_expect("like", "true", "varchar:hello", "varchar:he%");
    tf_expect("like", "true", "varchar:hello", "varchar:%llo");
    tf_expect("like", "true", "varchar:hello", "varchar:%ell%");
    tf_expect("like", "true", "varchar:hello", "varchar:%");
    tf_expect("like", "true", "varchar:", "varchar:%");
    tf_expect("like", "true", "varchar:hello", "varchar:h_llo");
    tf_expect("like", "false", "varchar:hello", "varchar:h_lo");
    tf_expect("like", "true", "varchar:héllo", "varchar:h_llo");
    tf_expect("like", "true", "varchar:abcabc", "varchar:a%c%c");
    tf_expect("like", "false", "varchar:abcab", "varchar:a%c%c");
    tf_expect("like", "true", "varchar:a%b", "varchar:a\\%b", "varchar:\\");
    tf_expect("like", "false", "varchar:axb", "varchar:a\\%b", "varchar:\\");
    tf_expect("like", "true", "varchar:a_b", "varchar:a#_b", "varchar:#");
    tf_expect("like", "true", "varchar:a#b", "varchar:a##b", "varchar:#");
    tf_expect("like", "true", "varchar:xyz", "varchar:%_%_%_%");
    tf_expect("like", "false", "varchar:xy", "varchar:%_%_%_%");
    tf_expect("like", "true", "varchar:aaa", "varchar:%a");
    tf_expect_error("like", "Escape character must be followed by '%', '_' or the escape",
                    "varchar:abc", "varchar:a#bc", "varchar:#");
    tf_expect_error("like", "Escape string must be a single character", "varchar:abc",
                    "varchar:abc", "varchar:##");
    /* constant pattern compiled at bind time vs per-row patterns */
    vec *s = tf_col("varchar", 4, S("apple pie", "banana", "grape", "pineapple"));
    vec *p = tf_const("varchar", "%apple%");
    vec *out;
    sqe_error err;
    assert_int_equal(tf_call_ex("like", (vec *[]){s, p}, 2, NULL, 4, false, NULL, &out, &err), 0);
    tf_assert_col(out, 4, S("true", "false", "false", "true"));
    tf_free(out);
    vec *ps = tf_col("varchar", 4, S("apple%", "b_n%", "%x", "pine%"));
    assert_int_equal(tf_call_ex("like", (vec *[]){s, ps}, 2, NULL, 4, false, NULL, &out, &err), 0);
    tf_assert_col(out, 4, S("true", "true", "false", "true"));
    tf_free(out);
    tf_free(ps);
    tf_free(p);
    tf_free(s);
}

/* --- Date/time arithmetic ---------------------------------------------------------------------- */

static void test_temporal(void **state) {
    (void)state;
    tf_expect("$add", "2024-03-01", "date:2024-02-29", "interval day to second:1 00:00:00.000");
    tf_expect("$add", "2024-02-29", "date:2024-01-31", "interval year to month:0-1");
    tf_expect("$subtract", "2023-02-28", "date:2024-02-29", "interval year to month:1-0");
    tf_expect_error("$add", "Cannot add hour, minutes or seconds to a date", "date:2024-02-29",
                    "interval day to second:0 03:00:00.000");
    tf_expect("$add", "2024-01-01 03:04:05.000", "timestamp(3):2024-01-01 00:00:00.000",
              "interval day to second:0 03:04:05.000");
    tf_expect("$add", "2024-02-29 10:00:00.000", "timestamp(3):2024-01-31 10:00:00.000",
              "interval year to month:0-1");
    tf_expect("$subtract", "1 01:00:00.000", "timestamp(3):2024-01-02 01:00:00.000",
              "timestamp(3):2024-01-01 00:00:00.000");
    tf_expect("$subtract", "31 00:00:00.000", "date:2024-02-01", "date:2024-01-01");
    tf_expect("$add", "01:00:00.000", "time(3):23:00:00.000",
              "interval day to second:0 02:00:00.000");
    tf_expect("$add", "2024-03-10 12:00:00.000 America/New_York",
              "timestamp(3) with time zone:2024-02-10 12:00:00.000 America/New_York",
              "interval year to month:0-1");
    tf_expect("$multiply", "0 03:00:00.000", "interval day to second:0 01:00:00.000",
              "bigint:3");
    tf_expect("$divide", "0 00:30:00.000", "interval day to second:0 01:00:00.000",
              "bigint:2");
    tf_expect("$add", "1-3", "interval year to month:1-1", "interval year to month:0-2");
    tf_expect("$negate", "-1-1", "interval year to month:1-1");
    tf_expect_error("$divide", "Division by zero", "interval day to second:0 01:00:00.000",
                    "bigint:0");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resolution),
        cmocka_unit_test(test_registry_list),
        cmocka_unit_test(test_integer_arithmetic),
        cmocka_unit_test(test_arithmetic_shapes),
        cmocka_unit_test(test_float_arithmetic),
        cmocka_unit_test(test_decimal_arithmetic),
        cmocka_unit_test(test_comparisons),
        cmocka_unit_test(test_comparison_shapes),
        cmocka_unit_test(test_is_distinct_from),
        cmocka_unit_test(test_like),
        cmocka_unit_test(test_temporal),
    };
    return cmocka_run_group_tests(tests, tf_setup, NULL);
}
