/*
 * test_func_math.c: unit tests of the math, conditional (greatest/least) and misc (typeof,
 * uuid) families.
 */
#include "test_func_util.h"

static void test_abs_sign(void **state) {
    (void)state;
    tf_expect("abs", "5", "integer:-5");
    tf_expect("abs", "5", "bigint:-5");
    tf_expect("abs", "2.5", "double:-2.5");
    tf_expect("abs", "2.5", "real:-2.5");
    tf_expect("abs", "1.25", "decimal(3,2):-1.25");
    tf_expect_error("abs", "Value -128 is out of range for abs(tinyint)", "tinyint:-128");
    tf_expect_error("abs", "Value -9223372036854775808 is out of range for abs(bigint)",
                    "bigint:-9223372036854775808");
    tf_expect("sign", "-1", "integer:-7");
    tf_expect("sign", "0.0", "double:0");
    tf_expect("sign", "1", "decimal(3,2):1.25");
    tf_expect("sign", "NaN", "double:NaN");
}

static void test_rounding(void **state) {
    (void)state;
    tf_expect("ceil", "3.0", "double:2.1");
    tf_expect("ceiling", "-2.0", "double:-2.1");
    tf_expect("floor", "-3.0", "double:-2.1");
    tf_expect("ceil", "3", "decimal(3,1):2.1");
    tf_expect("floor", "-3", "decimal(3,1):-2.1");
    tf_expect("ceil", "5", "integer:5");
    tf_expect("round", "3.0", "double:2.5");
    tf_expect("round", "-3.0", "double:-2.5");
    tf_expect("round", "0.0", "double:0.49999999999999994");
    tf_expect("round", "3", "decimal(3,1):2.5");
    tf_expect("round", "-3", "decimal(3,1):-2.5");
    tf_expect("round", "2.35", "double:2.345", "integer:2");
    tf_expect("round", "120", "integer:123", "integer:-1");
    tf_expect("round", "-130", "bigint:-125", "integer:-1");
    tf_expect("round", "2.350", "decimal(4,3):2.345", "integer:2");
    tf_expect("round", "100.000", "decimal(6,3):99.999", "integer:2");
    tf_expect("round", "1200.00", "decimal(6,2):1234.56", "integer:-2");
    tf_expect("truncate", "2.0", "double:2.9");
    tf_expect("truncate", "-2.0", "double:-2.9");
    tf_expect("truncate", "-2", "decimal(3,1):-2.9");
    tf_expect("truncate", "2.34", "double:2.349", "integer:2");
    tf_expect("truncate", "2.340", "decimal(4,3):2.349", "integer:2");
    tf_expect("round", "Infinity", "double:Infinity", "integer:2");
    tf_expect_ret("round", "decimal(2,0)", "decimal(3,2)");
    tf_expect_ret("round", "decimal(4,3)", "decimal(3,3)", "integer");
    tf_expect_ret("ceil", "decimal(3,0)", "decimal(3,1)");
}

static void test_mod_functions(void **state) {
    (void)state;
    tf_expect("mod", "-1", "integer:-7", "integer:3");
    tf_expect("mod", "1.5", "double:7.5", "double:3");
    tf_expect("mod", "1.0", "decimal(3,1):7.0", "decimal(2,1):3.0");
    tf_expect_error("mod", "Division by zero", "bigint:5", "bigint:0");
    tf_expect("sqrt", "3.0", "double:9");
    tf_expect("sqrt", "NaN", "double:-1");
    tf_expect("cbrt", "3.0", "double:27");
    tf_expect("exp", "1.0", "double:0");
    tf_expect("ln", "-Infinity", "double:0");
    tf_expect("log2", "10.0", "double:1024");
    tf_expect("log10", "3.0", "double:1000");
    tf_expect("log", "3.0", "double:2", "double:8");
    tf_expect("power", "1024.0", "double:2", "double:10");
    tf_expect("pow", "0.5", "double:4", "double:-0.5");
    tf_expect("degrees", "180.0", "double:3.141592653589793");
    tf_expect("radians", "3.141592653589793", "double:180");
    tf_expect("sin", "0.0", "double:0");
    tf_expect("cos", "1.0", "double:0");
    tf_expect("tan", "0.0", "double:0");
    tf_expect("asin", "1.5707963267948966", "double:1");
    tf_expect("acos", "0.0", "double:1");
    tf_expect("atan", "0.7853981633974483", "double:1");
    tf_expect("atan2", "0.7853981633974483", "double:1", "double:1");
    tf_expect("sinh", "0.0", "double:0");
    tf_expect("cosh", "1.0", "double:0");
    tf_expect("tanh", "0.0", "double:0");
    tf_expect0("pi", "3.141592653589793");
    tf_expect0("e", "2.718281828459045");
    tf_expect0("nan", "NaN");
    tf_expect0("infinity", "Infinity");
    tf_expect("is_nan", "true", "double:NaN");
    tf_expect("is_finite", "false", "double:Infinity");
    tf_expect("is_infinite", "true", "double:-Infinity");
    tf_expect("sqrt", "2.0", "integer:4"); /* integer coerces to double */
    tf_expect("normal_cdf", "0.5", "double:0", "double:1", "double:0");
}

static void test_random(void **state) {
    (void)state;
    vec *out;
    sqe_error err;
    assert_int_equal(tf_call_ex("random", NULL, 0, NULL, 100, false, NULL, &out, &err), 0);
    for (uint32_t i = 0; i < 100; i++) {
        double d = VEC_DATA(out, double)[i];
        assert_true(d >= 0 && d < 1);
    }
    tf_free(out);
    vec *n = tf_col("integer", 1, S("10"));
    vec *c = tf_new(n->type, 50);
    assert_int_equal(vec_set_const_from(c, n, 0, NULL), 0);
    assert_int_equal(tf_call_ex("random", (vec *[]){c}, 1, NULL, 50, false, NULL, &out, &err), 0);
    for (uint32_t i = 0; i < 50; i++) {
        int32_t v = VEC_DATA(out, int32_t)[i];
        assert_true(v >= 0 && v < 10);
    }
    tf_free(out);
    tf_free(c);
    tf_free(n);
    tf_expect("random", "5", "bigint:5", "bigint:6");
    tf_expect("rand", "7", "integer:7", "integer:8");
    /* the same seed gives the same sequence on one thread */
    vec *r1, *r2;
    assert_int_equal(tf_call_ex("rand", NULL, 0, NULL, 8, false, NULL, &r1, &err), 0);
    assert_int_equal(tf_call_ex("rand", NULL, 0, NULL, 8, false, NULL, &r2, &err), 0);
    assert_true(VEC_DATA(r1, double)[0] != VEC_DATA(r2, double)[0]); /* the stream continues */
    tf_free(r1);
    tf_free(r2);
    tf_expect_error("random", "bound must be positive", "bigint:0");
    tf_expect_error("random", "start value must be less than stop value", "bigint:5", "bigint:5");
}

static void test_width_bucket_bits(void **state) {
    (void)state;
    tf_expect("width_bucket", "3", "double:5.35", "double:0.024", "double:10.06", "bigint:5");
    tf_expect("width_bucket", "0", "double:-1", "double:0", "double:10", "bigint:5");
    tf_expect("width_bucket", "6", "double:10", "double:0", "double:10", "bigint:5");
    tf_expect("width_bucket", "4", "double:3", "double:10", "double:0", "bigint:5");
    tf_expect_error("width_bucket", "bounds cannot equal each other", "double:1", "double:1",
                    "double:1", "bigint:5");
    tf_expect("width_bucket", "2", "double:2.5", "array(double):[1,2,3]");
    tf_expect("bitwise_and", "1", "bigint:3", "bigint:5");
    tf_expect("bitwise_or", "7", "bigint:3", "bigint:5");
    tf_expect("bitwise_xor", "6", "bigint:3", "bigint:5");
    tf_expect("bitwise_not", "-6", "bigint:5");
    tf_expect("bitwise_left_shift", "8", "bigint:1", "bigint:3");
    tf_expect("bitwise_right_shift", "1", "bigint:8", "bigint:3");
    tf_expect("bitwise_right_shift_arithmetic", "-1", "bigint:-8", "bigint:3");
    tf_expect("bit_count", "2", "bigint:9", "bigint:64");
    tf_expect("bit_count", "8", "bigint:-1", "bigint:8");
    tf_expect_error("bit_count", "Number must be representable with the bits specified",
                    "bigint:9", "bigint:2");
    tf_expect("from_base", "255", "varchar:ff", "bigint:16");
    tf_expect("from_base", "-5", "varchar:-101", "bigint:2");
    tf_expect_error("from_base", "Not a valid base-2 number: 123", "varchar:123", "bigint:2");
    tf_expect_error("from_base", "Radix must be between 2 and 36", "varchar:1", "bigint:37");
    tf_expect("to_base", "ff", "bigint:255", "bigint:16");
    tf_expect("to_base", "-101", "bigint:-5", "bigint:2");
}

static void test_greatest_least(void **state) {
    (void)state;
    tf_expect("greatest", "3", "bigint:1", "bigint:3", "bigint:2");
    tf_expect("least", "1", "integer:1", "integer:3");
    tf_expect("greatest", "2.5", "integer:1", "decimal(2,1):2.5");
    tf_expect("greatest", "NULL", "integer:1", "integer:NULL");
    tf_expect("greatest", "b", "varchar:a", "varchar:b");
    tf_expect("least", "2024-01-01", "date:2024-01-01", "date:2024-02-01");
    tf_expect_error("greatest", "Invalid argument to greatest(): NaN", "double:1", "double:NaN");
    tf_expect_ret("greatest", "decimal(11,1)", "integer", "decimal(2,1)");
}

static void test_misc(void **state) {
    (void)state;
    tf_expect("typeof", "integer", "integer:1");
    tf_expect("typeof", "varchar(3)", "varchar(3):abc");
    tf_expect("typeof", "array(bigint)", "array(bigint):[1]");
    tf_expect("typeof", "unknown", "unknown:NULL");
    vec *out;
    sqe_error err;
    assert_int_equal(tf_call_ex("uuid", NULL, 0, NULL, 2, false, NULL, &out, &err), 0);
    char *a = tf_text(out, 0), *b = tf_text(out, 1);
    assert_int_equal(strlen(a), 36);
    assert_int_equal(a[14], '4');
    assert_string_not_equal(a, b);
    free(a);
    free(b);
    tf_free(out);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_abs_sign),         cmocka_unit_test(test_rounding),
        cmocka_unit_test(test_mod_functions),    cmocka_unit_test(test_random),
        cmocka_unit_test(test_width_bucket_bits), cmocka_unit_test(test_greatest_least),
        cmocka_unit_test(test_misc),
    };
    return cmocka_run_group_tests(tests, tf_setup, NULL);
}
