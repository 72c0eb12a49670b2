/*
 * test_func_regexp.c: unit tests of the regexp family (constant patterns compiled at bind time
 * and per-row patterns).
 */
#include "test_func_util.h"

static void test_like_extract(void **state) {
    (void)state;
    tf_expect("regexp_like", "true", "varchar:hello world", "varchar:o\\s+w");
    tf_expect("regexp_like", "false", "varchar:hello", "varchar:^ello");
    tf_expect("regexp_like", "true", "varchar:héllo", "varchar:^h.llo$");
    tf_expect("regexp_like", "true", "varchar:ab\xff", "varchar:ab"); /* invalid UTF-8 subject */
    tf_expect("regexp_extract", "123", "varchar:abc123def456", "varchar:\\d+");
    tf_expect("regexp_extract", "def", "varchar:abc123def456", "varchar:(\\d+)([a-z]+)",
              "bigint:2");
    tf_expect("regexp_extract", "NULL", "varchar:abc", "varchar:\\d+");
    tf_expect("regexp_extract", "NULL", "varchar:ac", "varchar:a(b)?c", "bigint:1");
    tf_expect_error("regexp_extract", "Pattern has 1 groups. Cannot access group 2",
                    "varchar:abc", "varchar:(b)", "bigint:2");
    tf_expect_error("regexp_like", "Invalid regular expression '(abc'", "varchar:abc",
                    "varchar:(abc");
    tf_expect("regexp_extract_all", "[123, 456]", "varchar:abc123def456", "varchar:\\d+");
    tf_expect("regexp_extract_all", "[1, 4]", "varchar:abc123def456", "varchar:(\\d)\\d+",
              "bigint:1");
    tf_expect("regexp_extract_all", "[, b, , ]", "varchar:abc", "varchar:b*");
    tf_expect("regexp_extract_all", "[]", "varchar:abc", "varchar:\\d");
}

static void test_replace_count_split(void **state) {
    (void)state;
    tf_expect("regexp_replace", "abcdef", "varchar:abc123def456", "varchar:\\d+");
    tf_expect("regexp_replace", "abc#def#", "varchar:abc123def456", "varchar:\\d+", "varchar:#");
    tf_expect("regexp_replace", "1-a 2-b", "varchar:a1 b2", "varchar:([a-z])(\\d)",
              "varchar:$2-$1");
    tf_expect("regexp_replace", "[b]", "varchar:b", "varchar:(?<x>b)", "varchar:[${x}]");
    tf_expect("regexp_replace", "$a", "varchar:a", "varchar:a", "varchar:\\$a");
    tf_expect("regexp_replace", "xaxbxcx", "varchar:abc", "varchar:", "varchar:x");
    tf_expect_error("regexp_replace", "Illegal group reference", "varchar:a", "varchar:a",
                    "varchar:$x");
    tf_expect_error("regexp_replace", "No group with that index", "varchar:a", "varchar:a",
                    "varchar:$2");
    tf_expect("regexp_count", "2", "varchar:abc123def456", "varchar:\\d+");
    tf_expect("regexp_count", "4", "varchar:abc", "varchar:x*");
    tf_expect("regexp_position", "4", "varchar:abc123def456", "varchar:\\d");
    tf_expect("regexp_position", "2", "varchar:é1b2", "varchar:\\d");
    tf_expect("regexp_position", "10", "varchar:abc123def456", "varchar:\\d", "bigint:5",
              "bigint:3");
    tf_expect("regexp_position", "-1", "varchar:abc", "varchar:\\d");
    tf_expect_error("regexp_position", "start position cannot be smaller than 1", "varchar:abc",
                    "varchar:b", "bigint:0");
    tf_expect("regexp_split", "[a, b, c, ]", "varchar:a1b2c3", "varchar:\\d");
    tf_expect("regexp_split", "[abc]", "varchar:abc", "varchar:\\d");
}

static void test_pattern_shapes(void **state) {
    (void)state;
    vec *s = tf_col("varchar", 4, S("a1", "b22", "c", "d4444"));
    vec *pc = tf_const("varchar", "\\d+");
    vec *pr = tf_col("varchar", 4, S("\\d", "b", "(", "4{2}"));
    vec *out;
    sqe_error err;
    assert_int_equal(tf_call_ex("regexp_extract", (vec *[]){s, pc}, 2, NULL, 4, false, NULL, &out,
                                &err),
                     0);
    tf_assert_col(out, 4, S("1", "22", "NULL", "4444"));
    tf_free(out);
    assert_int_equal(tf_call_ex("regexp_extract", (vec *[]){s, pr}, 2, NULL, 4, false, NULL, &out,
                                &err),
                     SQE_ERR_INVALID_FUNCTION_ARGUMENT);
    assert_non_null(strstr(err.message, "Invalid regular expression '('"));
    assert_int_equal(tf_call_ex("regexp_extract", (vec *[]){s, pr}, 2, NULL, 4, true, NULL, &out,
                                &err),
                     0);
    tf_assert_col(out, 4, S("1", "b", "NULL", "44"));
    tf_free(out);
    tf_free(pr);
    tf_free(pc);
    tf_free(s);
}

/* A constant pattern too long for the process-wide cache is compiled into the bind arena. */
static void test_long_pattern(void **state) {
    (void)state;
    char *pat = malloc(6 * 1000 + 2);
    assert_non_null(pat);
    for (int i = 0; i < 1000; i++) memcpy(pat + 6 * i, "a{0,1}", 6);
    memcpy(pat + 6000, "b", 2);
    vec *s = tf_col("varchar", 2, S("aaab", "ccc"));
    vec *p = tf_const("varchar", pat);
    vec *out;
    sqe_error err;
    assert_int_equal(tf_call_ex("regexp_like", (vec *[]){s, p}, 2, NULL, 2, false, NULL, &out,
                                &err),
                     0);
    tf_assert_col(out, 2, S("true", "false"));
    tf_free(out);
    tf_free(p);
    tf_free(s);
    free(pat);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_like_extract),
        cmocka_unit_test(test_replace_count_split),
        cmocka_unit_test(test_pattern_shapes),
        cmocka_unit_test(test_long_pattern),
    };
    return cmocka_run_group_tests(tests, tf_setup, NULL);
}
