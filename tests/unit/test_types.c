/*
 * test_types.c: unit tests for src/types (types, decimal, float_text) and src/vec/vec_format.
 *
 * Covers: Trino type names and the type parser (aliases, nesting, quoted field names, bad
 * input), interning (also from several threads), layout, coercion and common super types,
 * cast rules, decimal arithmetic edge cases (38-digit overflow, HALF_UP on negatives, 256-bit
 * division), Java-compatible DOUBLE/REAL text, and the CLI/JSON text of vector values.
 */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/strbuf.h"
#include "types/decimal.h"
#include "types/float_text.h"
#include "types/types.h"
#include "vec/vec.h"
#include "vec/vec_format.h"

/* --- helpers ----------------------------------------------------------------------------- */

static sqe_type parse(const char *text) {
    sqe_type t;
    assert_int_equal(type_parse(text, strlen(text), &t), 0);
    return t;
}

static void assert_type_name(sqe_type t, const char *expected) {
    char buf[256];
    size_t n = type_format(t, buf, sizeof buf);
    assert_string_equal(buf, expected);
    assert_int_equal(n, strlen(expected));
}

static void assert_parse_format(const char *text, const char *expected) {
    assert_type_name(parse(text), expected);
}

static sqe_type T(type_id id) { return type_make(id); }

/* --- type names and parsing -------------------------------------------------------------- */

static void test_type_format(void **state) {
    (void)state;
    assert_type_name(T(TYPE_INTEGER), "integer");
    assert_type_name(T(TYPE_BIGINT), "bigint");
    assert_type_name(T(TYPE_DOUBLE), "double");
    assert_type_name(T(TYPE_REAL), "real");
    assert_type_name(type_decimal(12, 2), "decimal(12,2)");
    assert_type_name(type_varchar(0), "varchar");
    assert_type_name(type_varchar(10), "varchar(10)");
    assert_type_name(type_char(3), "char(3)");
    assert_type_name(T(TYPE_VARBINARY), "varbinary");
    assert_type_name(T(TYPE_JSON), "json");
    assert_type_name(T(TYPE_DATE), "date");
    assert_type_name(type_with_precision(TYPE_TIME, 3), "time(3)");
    assert_type_name(type_with_precision(TYPE_TIMESTAMP, 6), "timestamp(6)");
    assert_type_name(type_with_precision(TYPE_TIMESTAMP_TZ, 3), "timestamp(3) with time zone");
    assert_type_name(T(TYPE_INTERVAL_DS), "interval day to second");
    assert_type_name(T(TYPE_INTERVAL_YM), "interval year to month");
    assert_type_name(T(TYPE_UUID), "uuid");
    assert_type_name(T(TYPE_UNKNOWN), "unknown");
    assert_type_name(type_array(T(TYPE_BIGINT)), "array(bigint)");
    assert_type_name(type_map(type_varchar(0), T(TYPE_BIGINT)), "map(varchar, bigint)");
    sqe_type fields[2] = {T(TYPE_BIGINT), type_varchar(0)};
    const char *names[2] = {"a", "b"};
    assert_type_name(type_row(2, fields, names), "row(a bigint, b varchar)");
    assert_type_name(type_row(2, fields, NULL), "row(bigint, varchar)");
    /* Truncation: returns the needed length like snprintf. */
    char small[5];
    assert_int_equal(type_format(type_decimal(12, 2), small, sizeof small), 13);
    assert_string_equal(small, "deci");
}

static void test_type_parse(void **state) {
    (void)state;
    assert_parse_format("int", "integer");
    assert_parse_format("INTEGER", "integer");
    assert_parse_format("  BigInt  ", "bigint");
    assert_parse_format("double precision", "double");
    assert_parse_format("DOUBLE", "double");
    assert_parse_format("float", "real");
    assert_parse_format("decimal", "decimal(38,0)");
    assert_parse_format("decimal(10)", "decimal(10,0)");
    assert_parse_format("DECIMAL(12, 2)", "decimal(12,2)");
    assert_parse_format("varchar", "varchar");
    assert_parse_format("varchar(10)", "varchar(10)");
    assert_parse_format("char", "char(1)");
    assert_parse_format("char(3)", "char(3)");
    assert_parse_format("timestamp", "timestamp(3)");
    assert_parse_format("timestamp(6)", "timestamp(6)");
    assert_parse_format("timestamp without time zone", "timestamp(3)");
    assert_parse_format("timestamp with time zone", "timestamp(3) with time zone");
    assert_parse_format("TIMESTAMP(6) WITH TIME ZONE", "timestamp(6) with time zone");
    assert_parse_format("time", "time(3)");
    assert_parse_format("time(0)", "time(0)");
    assert_parse_format("interval day to second", "interval day to second");
    assert_parse_format("INTERVAL YEAR TO MONTH", "interval year to month");
    assert_parse_format("array(bigint)", "array(bigint)");
    assert_parse_format("array<int>", "array(integer)");
    assert_parse_format("bigint array", "array(bigint)");
    assert_parse_format("map(varchar,bigint)", "map(varchar, bigint)");
    assert_parse_format("map<varchar(3), array<double>>", "map(varchar(3), array(double))");
    assert_parse_format("row(a bigint, b varchar)", "row(a bigint, b varchar)");
    assert_parse_format("ROW(bigint, varchar)", "row(bigint, varchar)");
    assert_parse_format("row(\"x y\" int, \"q\"\"t\" date)", "row(\"x y\" integer, \"q\"\"t\" date)");
    assert_parse_format("row(double precision)", "row(double)");
    assert_parse_format("row(x double precision, timestamp timestamp(6))",
                        "row(x double, timestamp timestamp(6))");
    assert_parse_format("array(row(a bigint, b array(map(varchar, json))))",
                        "array(row(a bigint, b array(map(varchar, json))))");
    assert_parse_format("uuid", "uuid");
    assert_parse_format("json", "json");
    assert_parse_format("varbinary", "varbinary");
}

static void test_type_parse_invalid(void **state) {
    (void)state;
    const char *bad[] = {"", "   ", "foo", "varchar(", "varchar(0)", "varchar(x)", "decimal(39)",
                         "decimal(5,6)", "decimal(0)", "char(0)", "char(65537)", "timestamp(13)",
                         "time with time zone", "interval day", "array(bigint", "array<bigint)",
                         "map(bigint)", "row()", "row(a)", "row(a bigint,)", "bigint bigint",
                         "int(3)", "row(\"unterminated bigint)", "varchar(99999999999)"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sqe_type t;
        if (type_parse(bad[i], strlen(bad[i]), &t) == 0) fail_msg("accepted '%s'", bad[i]);
    }
    /* Deep nesting is refused, not a stack overflow. */
    char deep[4096];
    size_t n = 0;
    for (int i = 0; i < 500; i++) n += (size_t)snprintf(deep + n, sizeof deep - n, "array(");
    n += (size_t)snprintf(deep + n, sizeof deep - n, "bigint");
    for (int i = 0; i < 500 && n < sizeof deep - 1; i++) deep[n++] = ')';
    deep[n] = '\0';
    sqe_type t;
    assert_int_equal(type_parse(deep, n, &t), -1);
    assert_int_equal(type_parse(NULL, 0, &t), -1);
}

static void test_type_parse_roundtrip(void **state) {
    (void)state;
    const char *texts[] = {"boolean", "tinyint", "smallint", "integer", "bigint", "real",
                           "double", "decimal(38,10)", "varchar(7)", "char(9)", "varbinary",
                           "json", "date", "time(6)", "timestamp(0)",
                           "timestamp(6) with time zone", "interval day to second", "uuid",
                           "array(map(bigint, row(a array(varchar), b decimal(5,1))))"};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        sqe_type t = parse(texts[i]);
        char buf[256];
        type_format(t, buf, sizeof buf);
        assert_string_equal(buf, texts[i]);
        assert_true(type_equal(parse(buf), t));
    }
}

/* --- interning and layout ---------------------------------------------------------------- */

static void test_type_interning(void **state) {
    (void)state;
    sqe_type a = type_array(T(TYPE_BIGINT)), b = type_array(T(TYPE_BIGINT));
    assert_ptr_equal(a.nested, b.nested);
    assert_true(type_equal(a, b));
    assert_false(type_equal(a, type_array(T(TYPE_INTEGER))));
    sqe_type f1[1] = {T(TYPE_BIGINT)};
    const char *n1[1] = {"x"}, *n2[1] = {"y"};
    sqe_type r1 = type_row(1, f1, n1), r2 = type_row(1, f1, n2), r3 = type_row(1, f1, n1);
    assert_false(type_equal(r1, r2));
    assert_true(type_equal(r1, r3));
    assert_false(type_equal(r1, type_row(1, f1, NULL)));
    /* An array of bigint and a one-field row of bigint are different descriptions. */
    assert_ptr_not_equal(a.nested, type_row(1, f1, NULL).nested);
    /* Names are copied: the caller's buffer may go away. */
    char name[8] = "field";
    const char *names[1] = {name};
    sqe_type r4 = type_row(1, f1, names);
    strcpy(name, "other");
    assert_string_equal(r4.nested->names[0], "field");
    /* Parameters matter. */
    assert_false(type_equal(type_decimal(10, 2), type_decimal(10, 3)));
    assert_false(type_equal(type_varchar(3), type_varchar(0)));
    assert_false(type_equal(type_with_precision(TYPE_TIMESTAMP, 3),
                            type_with_precision(TYPE_TIMESTAMP, 6)));
    assert_true(type_equal(type_map(type_varchar(0), a), type_map(type_varchar(0), b)));
}

typedef struct intern_job {
    const type_nested *seen[64];
} intern_job;

static void *intern_thread(void *arg) {
    intern_job *job = arg;
    for (int i = 0; i < 64; i++) {
        sqe_type inner = type_array(type_decimal(1 + i % 38, 0));
        job->seen[i] = type_map(type_varchar((uint32_t)i), inner).nested;
    }
    return NULL;
}

static void test_type_interning_threads(void **state) {
    (void)state;
    pthread_t threads[8];
    intern_job jobs[8];
    for (int t = 0; t < 8; t++) pthread_create(&threads[t], NULL, intern_thread, &jobs[t]);
    for (int t = 0; t < 8; t++) pthread_join(threads[t], NULL);
    for (int t = 1; t < 8; t++)
        for (int i = 0; i < 64; i++) assert_ptr_equal(jobs[t].seen[i], jobs[0].seen[i]);
}

static void test_type_layout(void **state) {
    (void)state;
    assert_int_equal(type_physical_size(T(TYPE_BOOLEAN)), 1);
    assert_int_equal(type_physical_size(T(TYPE_SMALLINT)), 2);
    assert_int_equal(type_physical_size(T(TYPE_INTEGER)), 4);
    assert_int_equal(type_physical_size(T(TYPE_BIGINT)), 8);
    assert_int_equal(type_physical_size(type_decimal(18, 2)), 8);
    assert_int_equal(type_physical_size(type_decimal(19, 2)), 16);
    assert_int_equal(type_physical_size(type_varchar(0)), 16);
    assert_int_equal(type_physical_size(T(TYPE_TIMESTAMP_TZ)), 16);
    assert_int_equal(type_physical_size(T(TYPE_UUID)), 16);
    assert_int_equal(type_physical_size(T(TYPE_DATE)), 4);
    assert_int_equal(type_physical_size(type_array(T(TYPE_DATE))), 8);
    assert_int_equal(type_physical_size(type_row(1, (sqe_type[]){T(TYPE_DATE)}, NULL)), 0);
    assert_true(type_is_orderable(type_array(T(TYPE_BIGINT))));
    assert_false(type_is_orderable(type_map(T(TYPE_BIGINT), T(TYPE_BIGINT))));
    assert_true(type_is_comparable(type_map(T(TYPE_BIGINT), T(TYPE_BIGINT))));
    assert_false(type_is_orderable(T(TYPE_JSON)));
}

/* --- coercion and casts ------------------------------------------------------------------ */

static void assert_super(sqe_type a, sqe_type b, const char *expected) {
    sqe_type s;
    if (!expected) {
        assert_false(type_common_super(a, b, &s));
        assert_false(type_common_super(b, a, &s));
        return;
    }
    assert_true(type_common_super(a, b, &s));
    assert_type_name(s, expected);
    assert_true(type_common_super(b, a, &s));
    assert_type_name(s, expected);
}

static void test_common_super(void **state) {
    (void)state;
    assert_super(T(TYPE_INTEGER), T(TYPE_BIGINT), "bigint");
    assert_super(T(TYPE_TINYINT), T(TYPE_SMALLINT), "smallint");
    assert_super(T(TYPE_INTEGER), type_decimal(5, 2), "decimal(12,2)");
    assert_super(T(TYPE_BIGINT), type_decimal(38, 0), "decimal(38,0)");
    assert_super(T(TYPE_BIGINT), T(TYPE_DOUBLE), "double");
    assert_super(T(TYPE_BIGINT), T(TYPE_REAL), "real");
    assert_super(T(TYPE_REAL), T(TYPE_DOUBLE), "double");
    assert_super(type_decimal(10, 2), type_decimal(5, 4), "decimal(12,4)");
    assert_super(type_decimal(38, 0), type_decimal(38, 38), "decimal(38,38)");
    assert_super(type_decimal(10, 2), T(TYPE_DOUBLE), "double");
    assert_super(type_varchar(3), type_varchar(5), "varchar(5)");
    assert_super(type_varchar(3), type_varchar(0), "varchar");
    assert_super(type_varchar(3), type_char(5), "char(5)");
    assert_super(T(TYPE_DATE), type_with_precision(TYPE_TIMESTAMP, 3), "timestamp(3)");
    assert_super(T(TYPE_DATE), type_with_precision(TYPE_TIMESTAMP_TZ, 6),
                 "timestamp(6) with time zone");
    assert_super(type_with_precision(TYPE_TIMESTAMP, 6), type_with_precision(TYPE_TIMESTAMP_TZ, 3),
                 "timestamp(6) with time zone");
    assert_super(T(TYPE_UNKNOWN), T(TYPE_BIGINT), "bigint");
    assert_super(T(TYPE_UNKNOWN), type_array(T(TYPE_DATE)), "array(date)");
    assert_super(type_array(T(TYPE_INTEGER)), type_array(T(TYPE_DOUBLE)), "array(double)");
    assert_super(type_map(type_varchar(1), T(TYPE_INTEGER)), type_map(type_varchar(0), T(TYPE_BIGINT)),
                 "map(varchar, bigint)");
    sqe_type fa[2] = {T(TYPE_INTEGER), type_varchar(2)}, fb[2] = {T(TYPE_BIGINT), type_varchar(4)};
    const char *na[2] = {"a", "b"}, *nb[2] = {"a", "c"};
    assert_super(type_row(2, fa, na), type_row(2, fb, nb), "row(a bigint, varchar(4))");
    assert_super(T(TYPE_BIGINT), type_varchar(0), NULL);
    assert_super(T(TYPE_DATE), T(TYPE_BIGINT), NULL);
    assert_super(T(TYPE_BOOLEAN), T(TYPE_INTEGER), NULL);
    assert_super(type_array(T(TYPE_INTEGER)), T(TYPE_INTEGER), NULL);
    assert_super(T(TYPE_JSON), type_varchar(0), NULL);
}

static void test_can_coerce(void **state) {
    (void)state;
    assert_true(type_can_coerce(T(TYPE_TINYINT), T(TYPE_BIGINT)));
    assert_true(type_can_coerce(T(TYPE_INTEGER), T(TYPE_DOUBLE)));
    assert_true(type_can_coerce(T(TYPE_BIGINT), T(TYPE_REAL)));
    assert_true(type_can_coerce(T(TYPE_INTEGER), type_decimal(10, 0)));
    assert_true(type_can_coerce(T(TYPE_INTEGER), type_decimal(12, 2)));
    assert_false(type_can_coerce(T(TYPE_INTEGER), type_decimal(9, 0)));
    assert_false(type_can_coerce(T(TYPE_BIGINT), T(TYPE_INTEGER)));
    assert_false(type_can_coerce(T(TYPE_DOUBLE), T(TYPE_REAL)));
    assert_true(type_can_coerce(type_decimal(5, 2), type_decimal(6, 2)));
    assert_true(type_can_coerce(type_decimal(5, 2), type_decimal(7, 4)));
    assert_false(type_can_coerce(type_decimal(5, 2), type_decimal(6, 4)));
    assert_false(type_can_coerce(type_decimal(5, 2), type_decimal(5, 1)));
    assert_true(type_can_coerce(type_decimal(5, 2), T(TYPE_DOUBLE)));
    assert_true(type_can_coerce(type_varchar(3), type_varchar(5)));
    assert_true(type_can_coerce(type_varchar(3), type_varchar(0)));
    assert_false(type_can_coerce(type_varchar(5), type_varchar(3)));
    assert_false(type_can_coerce(type_varchar(0), type_varchar(3)));
    assert_true(type_can_coerce(type_varchar(3), type_char(3)));
    assert_false(type_can_coerce(type_char(3), type_varchar(0)));
    assert_true(type_can_coerce(T(TYPE_UNKNOWN), type_map(T(TYPE_BIGINT), T(TYPE_JSON))));
    assert_true(type_can_coerce(T(TYPE_DATE), type_with_precision(TYPE_TIMESTAMP, 0)));
    assert_true(type_can_coerce(T(TYPE_DATE), type_with_precision(TYPE_TIMESTAMP, 6)));
    assert_false(type_can_coerce(type_with_precision(TYPE_TIMESTAMP, 6), T(TYPE_DATE)));
    assert_true(type_can_coerce(type_with_precision(TYPE_TIMESTAMP, 3),
                                type_with_precision(TYPE_TIMESTAMP, 6)));
    assert_false(type_can_coerce(type_with_precision(TYPE_TIMESTAMP, 6),
                                 type_with_precision(TYPE_TIMESTAMP, 3)));
    assert_true(type_can_coerce(type_with_precision(TYPE_TIMESTAMP, 3),
                                type_with_precision(TYPE_TIMESTAMP_TZ, 3)));
    assert_true(type_can_coerce(type_array(T(TYPE_INTEGER)), type_array(T(TYPE_BIGINT))));
    assert_false(type_can_coerce(type_array(T(TYPE_BIGINT)), type_array(T(TYPE_INTEGER))));
    sqe_type f[1] = {T(TYPE_INTEGER)}, g[1] = {T(TYPE_BIGINT)};
    const char *nx[1] = {"x"}, *ny[1] = {"y"};
    assert_true(type_can_coerce(type_row(1, f, nx), type_row(1, g, ny))); /* names ignored */
    assert_false(type_can_coerce(T(TYPE_BIGINT), type_varchar(0)));
    assert_false(type_can_coerce(T(TYPE_BOOLEAN), T(TYPE_INTEGER)));
}

static void test_can_cast(void **state) {
    (void)state;
    assert_true(type_can_cast(T(TYPE_DOUBLE), T(TYPE_TINYINT)));
    assert_true(type_can_cast(T(TYPE_BOOLEAN), type_decimal(3, 1)));
    assert_true(type_can_cast(type_varchar(0), T(TYPE_DATE)));
    assert_true(type_can_cast(type_varchar(0), T(TYPE_JSON)));
    assert_true(type_can_cast(T(TYPE_JSON), type_varchar(0)));
    assert_true(type_can_cast(T(TYPE_JSON), type_array(T(TYPE_BIGINT))));
    assert_true(type_can_cast(type_map(type_varchar(0), T(TYPE_BIGINT)), T(TYPE_JSON)));
    assert_false(type_can_cast(type_map(T(TYPE_DATE), T(TYPE_BIGINT)), T(TYPE_JSON)));
    assert_true(type_can_cast(T(TYPE_INTERVAL_DS), type_varchar(0)));
    assert_false(type_can_cast(type_varchar(0), T(TYPE_INTERVAL_DS)));
    assert_true(type_can_cast(T(TYPE_UUID), type_varchar(0)));
    assert_true(type_can_cast(T(TYPE_VARBINARY), T(TYPE_UUID)));
    assert_false(type_can_cast(T(TYPE_VARBINARY), type_varchar(0)));
    assert_true(type_can_cast(type_varchar(0), T(TYPE_VARBINARY)));
    assert_false(type_can_cast(T(TYPE_DATE), T(TYPE_BIGINT)));
    assert_false(type_can_cast(T(TYPE_BIGINT), T(TYPE_DATE)));
    assert_true(type_can_cast(T(TYPE_UNKNOWN), type_array(T(TYPE_DATE))));
    assert_true(type_can_cast(type_array(T(TYPE_INTEGER)), type_array(type_varchar(0))));
    assert_false(type_can_cast(type_array(T(TYPE_DATE)), type_array(T(TYPE_BIGINT))));
    sqe_type f2[2] = {T(TYPE_INTEGER), T(TYPE_DATE)}, f1[1] = {T(TYPE_INTEGER)};
    assert_false(type_can_cast(type_row(2, f2, NULL), type_row(1, f1, NULL)));
    assert_true(type_can_cast(type_with_precision(TYPE_TIMESTAMP_TZ, 3), T(TYPE_TIME)));
}

/* --- decimals ---------------------------------------------------------------------------- */

static int128 dec(const char *text, int precision, int scale) {
    int128 v;
    assert_int_equal(decimal_parse(text, strlen(text), precision, scale, &v), 0);
    return v;
}

static void assert_dec_text(int128 v, int scale, const char *expected) {
    char buf[48];
    int n = decimal_format(v, scale, buf);
    assert_string_equal(buf, expected);
    assert_int_equal(n, strlen(expected));
}

static void test_decimal_pow10_fits(void **state) {
    (void)state;
    assert_true(decimal_pow10(0) == 1);
    assert_true(decimal_pow10(18) == 1000000000000000000LL);
    assert_dec_text(decimal_pow10(38), 0, "100000000000000000000000000000000000000");
    assert_dec_text(decimal_max_unscaled(38), 0, "99999999999999999999999999999999999999");
    assert_true(decimal_fits(decimal_max_unscaled(38), 38));
    assert_false(decimal_fits(decimal_pow10(38), 38));
    assert_false(decimal_fits(-decimal_pow10(38), 38));
    assert_true(decimal_fits(-99999, 5));
    assert_false(decimal_fits(100000, 5));
    assert_true(decimal_pow10(39) == 0);
}

static void test_decimal_result_types(void **state) {
    (void)state;
    assert_type_name(decimal_add_type(type_decimal(10, 2), type_decimal(5, 4)), "decimal(13,4)");
    assert_type_name(decimal_add_type(type_decimal(38, 0), type_decimal(38, 0)), "decimal(38,0)");
    assert_type_name(decimal_mul_type(type_decimal(10, 2), type_decimal(5, 4)), "decimal(15,6)");
    assert_type_name(decimal_mul_type(type_decimal(30, 2), type_decimal(20, 2)), "decimal(38,4)");
    assert_type_name(decimal_div_type(type_decimal(10, 2), type_decimal(5, 4)), "decimal(16,4)");
    assert_type_name(decimal_mod_type(type_decimal(10, 2), type_decimal(5, 4)), "decimal(5,4)");
    assert_type_name(decimal_for_integer(T(TYPE_TINYINT)), "decimal(3,0)");
    assert_type_name(decimal_for_integer(T(TYPE_SMALLINT)), "decimal(5,0)");
    assert_type_name(decimal_for_integer(T(TYPE_INTEGER)), "decimal(10,0)");
    assert_type_name(decimal_for_integer(T(TYPE_BIGINT)), "decimal(19,0)");
    assert_int_equal(decimal_add_type(T(TYPE_BIGINT), type_decimal(1, 0)).id, TYPE_UNKNOWN);
}

static void test_decimal_rescale(void **state) {
    (void)state;
    int128 out;
    /* HALF_UP away from zero, also for negative numbers */
    assert_true(decimal_rescale(15, 1, 0, &out) && out == 2);
    assert_true(decimal_rescale(-15, 1, 0, &out) && out == -2);
    assert_true(decimal_rescale(14, 1, 0, &out) && out == 1);
    assert_true(decimal_rescale(-14, 1, 0, &out) && out == -1);
    assert_true(decimal_rescale(-125, 2, 1, &out) && out == -13);
    assert_true(decimal_rescale(-124, 2, 1, &out) && out == -12);
    assert_true(decimal_rescale(5, 1, 0, &out) && out == 1);
    assert_true(decimal_rescale(-5, 1, 0, &out) && out == -1);
    assert_true(decimal_rescale(4, 1, 0, &out) && out == 0);
    assert_true(decimal_rescale(123, 0, 3, &out) && out == 123000);
    /* 38-digit overflow */
    assert_false(decimal_rescale(decimal_max_unscaled(38), 0, 1, &out));
    assert_true(decimal_rescale(decimal_max_unscaled(37), 0, 1, &out));
    assert_false(decimal_rescale(1, 0, 39, &out));
    assert_true(decimal_rescale(0, 0, 60, &out) && out == 0);
    /* rounding away the largest value */
    assert_true(decimal_rescale(decimal_max_unscaled(38), 38, 0, &out) && out == 1);
    assert_true(decimal_rescale(-decimal_max_unscaled(38), 38, 0, &out) && out == -1);
    assert_true(decimal_rescale(decimal_max_unscaled(38), 0, -1 + 0, &out));
}

static void test_decimal_div_round(void **state) {
    (void)state;
    int128 out;
    assert_true(decimal_div_round(7, 2, 0, &out) && out == 4);   /* 3.5 -> 4 */
    assert_true(decimal_div_round(-7, 2, 0, &out) && out == -4); /* -3.5 -> -4 */
    assert_true(decimal_div_round(7, -2, 0, &out) && out == -4);
    assert_true(decimal_div_round(10, 3, 2, &out) && out == 333); /* 3.33 */
    assert_true(decimal_div_round(20, 3, 2, &out) && out == 667); /* 6.67 */
    assert_true(decimal_div_round(-20, 3, 2, &out) && out == -667);
    assert_false(decimal_div_round(1, 0, 0, &out));
    /* 256-bit path: 38-digit dividend scaled by 10^10 */
    int128 big = decimal_max_unscaled(38);
    assert_true(decimal_div_round(big, decimal_pow10(20), 10, &out));
    assert_dec_text(out, 0, "10000000000000000000000000000"); /* 9999...9.9999999999 rounds up */
    assert_true(decimal_div_round(-big, decimal_pow10(20), 10, &out));
    assert_dec_text(out, 0, "-10000000000000000000000000000");
    assert_true(decimal_div_round(decimal_pow10(37), 3, 1, &out));
    assert_dec_text(out, 0, "33333333333333333333333333333333333333");
    /* result too large */
    assert_false(decimal_div_round(big, 1, 10, &out));
    /* negative shift divides the dividend */
    assert_true(decimal_div_round(12345, 1, -2, &out) && out == 123);
}

static void test_decimal_text(void **state) {
    (void)state;
    assert_dec_text(dec("12.5", 5, 2), 2, "12.50");
    assert_dec_text(dec("-12.345", 5, 2), 2, "-12.35"); /* HALF_UP away from zero */
    assert_dec_text(dec("12.345", 5, 2), 2, "12.35");
    assert_dec_text(dec("-12.344", 5, 2), 2, "-12.34");
    assert_dec_text(dec("-.5", 3, 2), 2, "-0.50");
    assert_dec_text(dec(".5", 1, 1), 1, "0.5");
    assert_dec_text(dec("+7.", 3, 0), 0, "7");
    assert_dec_text(dec("0", 1, 0), 0, "0");
    assert_dec_text(dec("0.004", 3, 2), 2, "0.00");
    assert_dec_text(dec("-0.005", 3, 2), 2, "-0.01");
    assert_dec_text(dec("000123.4", 4, 0), 0, "123");
    assert_dec_text(-5, 3, "-0.005");
    int128 v;
    assert_int_equal(decimal_parse("1e3", 3, 10, 0, &v), -1);
    assert_int_equal(decimal_parse("abc", 3, 10, 0, &v), -1);
    assert_int_equal(decimal_parse("", 0, 10, 0, &v), -1);
    assert_int_equal(decimal_parse(".", 1, 10, 0, &v), -1);
    assert_int_equal(decimal_parse("1.2.3", 5, 10, 0, &v), -1);
    assert_int_equal(decimal_parse(" 1", 2, 10, 0, &v), -1);
    assert_int_equal(decimal_parse("123.4", 5, 3, 1, &v), -2);
    assert_int_equal(decimal_parse("99.95", 5, 3, 1, &v), -2); /* rounds to 100.0 */
    assert_int_equal(decimal_parse("99.94", 5, 3, 1, &v), 0);
    const char *d39 = "123456789012345678901234567890123456789";
    assert_int_equal(decimal_parse(d39, strlen(d39), 38, 0, &v), -2);
    const char *d38 = "99999999999999999999999999999999999999";
    assert_int_equal(decimal_parse(d38, strlen(d38), 38, 0, &v), 0);
    assert_dec_text(v, 0, d38);
    assert_int_equal(decimal_parse("-99999999999999999999999999999999999999", 39, 38, 0, &v), 0);
    /* CAST syntax: exponent and spaces */
    assert_int_equal(decimal_parse_text(" 1.5e2 ", 7, 10, 2, &v), 0);
    assert_dec_text(v, 2, "150.00");
    assert_int_equal(decimal_parse_text("-2E-3", 5, 10, 2, &v), 0);
    assert_dec_text(v, 2, "0.00");
    assert_int_equal(decimal_parse_text("-5E-3", 5, 10, 2, &v), 0);
    assert_dec_text(v, 2, "-0.01");
    assert_int_equal(decimal_parse_text("1e40", 4, 38, 0, &v), -2);
    assert_int_equal(decimal_parse_text("1e", 2, 38, 0, &v), -1);
    assert_int_equal(decimal_parse_text("1e-999999999999", 15, 38, 2, &v), 0);
    assert_true(v == 0);
}

static void test_decimal_literal_type(void **state) {
    (void)state;
    sqe_type t;
    assert_int_equal(decimal_literal_type("12.50", 5, &t), 0);
    assert_type_name(t, "decimal(4,2)");
    assert_int_equal(decimal_literal_type("0.5", 3, &t), 0);
    assert_type_name(t, "decimal(1,1)");
    assert_int_equal(decimal_literal_type("007", 3, &t), 0);
    assert_type_name(t, "decimal(1,0)");
    assert_int_equal(decimal_literal_type("-0", 2, &t), 0);
    assert_type_name(t, "decimal(1,0)");
    assert_int_equal(decimal_literal_type(".000", 4, &t), 0);
    assert_type_name(t, "decimal(3,3)");
    assert_int_equal(decimal_literal_type("1e3", 3, &t), -1);
    assert_int_equal(decimal_literal_type(".", 1, &t), -1);
    const char *d39 = "1234567890123456789012345678901234567890";
    assert_int_equal(decimal_literal_type(d39, strlen(d39), &t), -2);
}

static void test_decimal_double(void **state) {
    (void)state;
    assert_true(decimal_to_double(1250, 2) == 12.5);
    assert_true(decimal_to_double(-1, 1) == -0.1);
    assert_true(decimal_to_double(decimal_max_unscaled(38), 0) == 1e38);
    int128 v;
    assert_true(decimal_from_double(0.1, 3, 2, &v) && v == 10);
    assert_true(decimal_from_double(1.005, 3, 2, &v) && v == 101); /* shortest digits "1.005" */
    assert_true(decimal_from_double(-1.005, 3, 2, &v) && v == -101);
    assert_true(decimal_from_double(2.5, 1, 0, &v) && v == 3);
    assert_true(decimal_from_double(-2.5, 1, 0, &v) && v == -3);
    assert_true(decimal_from_double(1e20, 38, 0, &v));
    assert_dec_text(v, 0, "100000000000000000000");
    assert_true(decimal_from_double(1e-20, 10, 5, &v) && v == 0);
    assert_false(decimal_from_double(1e40, 38, 0, &v));
    assert_false(decimal_from_double(100, 2, 0, &v));
    assert_false(decimal_from_double(NAN, 10, 0, &v));
    assert_false(decimal_from_double(INFINITY, 10, 0, &v));
}

/* --- DOUBLE / REAL text ------------------------------------------------------------------ */

static void assert_double_text(double d, const char *java, const char *sci) {
    char buf[FLOAT_TEXT_MAX];
    float_text_double(d, buf);
    assert_string_equal(buf, java);
    float_text_double_sci(d, buf);
    assert_string_equal(buf, sci);
}

static void test_float_text_double(void **state) {
    (void)state;
    assert_double_text(0.1, "0.1", "1.0E-1");
    assert_double_text(1e-5, "1.0E-5", "1.0E-5");
    assert_double_text(1e7, "1.0E7", "1.0E7");
    assert_double_text(123456789.123, "1.23456789123E8", "1.23456789123E8");
    assert_double_text(-0.0, "-0.0", "-0E0");
    assert_double_text(0.0, "0.0", "0E0");
    assert_double_text(NAN, "NaN", "NaN");
    assert_double_text(INFINITY, "Infinity", "Infinity");
    assert_double_text(-INFINITY, "-Infinity", "-Infinity");
    assert_double_text(100.0, "100.0", "1.0E2");
    assert_double_text(1.5, "1.5", "1.5E0");
    assert_double_text(-1.5, "-1.5", "-1.5E0");
    assert_double_text(1e10, "1.0E10", "1.0E10");
    assert_double_text(9999999.0, "9999999.0", "9.999999E6");
    assert_double_text(0.001, "0.001", "1.0E-3");
    assert_double_text(0.00099, "9.9E-4", "9.9E-4");
    assert_double_text(1.0 / 3, "0.3333333333333333", "3.333333333333333E-1");
    assert_double_text(2.0 / 3, "0.6666666666666666", "6.666666666666666E-1");
    assert_double_text(4.9e-324, "4.9E-324", "4.9E-324");
    assert_double_text(1.7976931348623157e308, "1.7976931348623157E308", "1.7976931348623157E308");
    assert_double_text(1e23, "1.0E23", "1.0E23");
    assert_double_text(123.456, "123.456", "1.23456E2");
    assert_double_text(9007199254740993.0, "9.007199254740992E15", "9.007199254740992E15");
    /* Every printed value reads back to the same double. */
    srand(7);
    for (int i = 0; i < 20000; i++) {
        uint64_t bits = ((uint64_t)rand() << 40) ^ ((uint64_t)rand() << 20) ^ (uint64_t)rand();
        double d;
        memcpy(&d, &bits, sizeof d);
        if (!isfinite(d)) continue;
        char buf[FLOAT_TEXT_MAX];
        float_text_double(d, buf);
        double back;
        assert_int_equal(float_text_parse(buf, strlen(buf), &back), 0);
        assert_true(back == d);
    }
}

/* Reference for the shortest digits: the fewest significant digits p for which the correctly
 * rounded p-digit decimal, or the one above it (the rounding interval of a power of two is
 * wider above), reads back as v; among the two the closer (the correctly rounded) wins. */
static bool reads_back(const char *text, double v, bool single) {
    return single ? strtof(text, NULL) == (float)v : strtod(text, NULL) == v;
}

static int reference_digits(double v, bool single, char *digits, int *exp10) {
    char t[64], u[64];
    for (int p = 1; p <= (single ? 9 : 17); p++) {
        snprintf(t, sizeof t, "%.*e", p - 1, fabs(v));
        const char *best = NULL;
        if (reads_back(t, fabs(v), single)) {
            best = t;
        } else {
            strcpy(u, t);
            char *q = strchr(u, 'e') - 1;
            bool carry = true;
            while (carry && q >= u) {
                if (*q == '.') {
                    q--;
                } else if (*q == '9') {
                    *q-- = '0';
                } else {
                    (*q)++;
                    carry = false;
                }
            }
            if (!carry && reads_back(u, fabs(v), single)) best = u;
        }
        if (!best) continue;
        if (p == 1) { /* JDK: the closest decimal of length 1 or 2 */
            snprintf(u, sizeof u, "%.1e", fabs(v));
            if (reads_back(u, fabs(v), single)) best = u;
        }
        int n = 0;
        const char *x = best;
        for (; *x && *x != 'e'; x++)
            if (*x >= '0' && *x <= '9') digits[n++] = *x;
        *exp10 = atoi(x + 1);
        while (n > 1 && digits[n - 1] == '0') n--;
        digits[n] = '\0';
        return n;
    }
    return -1;
}

static void test_float_text_shortest(void **state) {
    (void)state;
    uint64_t seed = 88172645463325252ULL;
    for (int i = 0; i < 60000; i++) {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        bool single = i & 1;
        double v;
        switch ((i >> 1) % 5) {
        case 0: { /* random bits */
            if (single) {
                uint32_t b = (uint32_t)seed;
                float f;
                memcpy(&f, &b, sizeof f);
                v = f;
            } else {
                memcpy(&v, &seed, sizeof v);
            }
            break;
        }
        case 1: v = ldexp(1.0, (int)(seed % 2098) - 1074); break; /* powers of two */
        case 2: v = (double)(int64_t)(seed % 20000001) / 1000.0; break;  /* short decimals */
        case 3: v = (double)(seed % 100000) * pow(10, (int)(seed >> 40) % 40 - 20); break;
        default: v = ldexp((double)(seed % 4096), -1074 + (int)(seed >> 50) % 40); break; /* subnormal */
        }
        if (single) v = (float)v;
        if (!isfinite(v) || v == 0) continue;
        char got[24], want[24];
        int eg, ew;
        int ng = float_text_digits(v, single, got, &eg);
        int nw = reference_digits(v, single, want, &ew);
        if (ng != nw || eg != ew || strcmp(got, want) != 0)
            fail_msg("%s %.17g: %s e%d, want %s e%d", single ? "real" : "double", v, got, eg, want, ew);
    }
}

static void test_float_text_real(void **state) {
    (void)state;
    char buf[FLOAT_TEXT_MAX];
    float_text_real(1.1f, buf);
    assert_string_equal(buf, "1.1");
    float_text_real(0.1f, buf);
    assert_string_equal(buf, "0.1");
    float_text_real(1e10f, buf);
    assert_string_equal(buf, "1.0E10");
    float_text_real(3.4028235e38f, buf);
    assert_string_equal(buf, "3.4028235E38");
    float_text_real(1.4e-45f, buf);
    assert_string_equal(buf, "1.4E-45");
    float_text_real(100.0f, buf);
    assert_string_equal(buf, "100.0");
    float_text_real(1.2345678f, buf);
    assert_string_equal(buf, "1.2345678");
    float_text_real_sci(1.2345678f, buf);
    assert_string_equal(buf, "1.234568E0");
    float_text_real_sci(3.4028235e38f, buf);
    assert_string_equal(buf, "3.402824E38");
    float_text_real_sci(9999999.5f, buf); /* rounds up through every digit */
    assert_string_equal(buf, "1.0E7");
    float_text_real_sci(-0.0f, buf);
    assert_string_equal(buf, "-0E0");
}

static void test_float_text_parse(void **state) {
    (void)state;
    double d;
    assert_int_equal(float_text_parse(" 1.5 ", 5, &d), 0);
    assert_true(d == 1.5);
    assert_int_equal(float_text_parse("1e5", 3, &d), 0);
    assert_true(d == 1e5);
    assert_int_equal(float_text_parse("-.5", 3, &d), 0);
    assert_true(d == -0.5);
    assert_int_equal(float_text_parse("5.", 2, &d), 0);
    assert_true(d == 5);
    assert_int_equal(float_text_parse("1.5d", 4, &d), 0);
    assert_true(d == 1.5);
    assert_int_equal(float_text_parse("NaN", 3, &d), 0);
    assert_true(isnan(d));
    assert_int_equal(float_text_parse("-Infinity", 9, &d), 0);
    assert_true(isinf(d) && d < 0);
    assert_int_equal(float_text_parse("1e999", 5, &d), 0);
    assert_true(isinf(d));
    const char *bad[] = {"", " ", "abc", "1.2.3", "inf", "nan", "1e", "e5", "--1", "1 2", ".", "0x10"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        d = 42;
        assert_int_equal(float_text_parse(bad[i], strlen(bad[i]), &d), -1);
        assert_true(d == 42);
    }
    float f;
    assert_int_equal(float_text_parse_real("0.1", 3, &f), 0);
    assert_true(f == 0.1f);
    /* Long input goes through the heap path. */
    char longnum[600];
    memset(longnum, '1', sizeof longnum - 1);
    longnum[sizeof longnum - 1] = '\0';
    longnum[1] = '.';
    assert_int_equal(float_text_parse(longnum, strlen(longnum), &d), 0);
    assert_true(fabs(d - 1.1111111111111112) < 1e-15);
}

/* --- vec_format -------------------------------------------------------------------------- */

static char text_buf[1024];

static const char *fmt_value(const vec *v, uint32_t row) {
    strbuf sb;
    strbuf_init(&sb);
    assert_int_equal(vec_format_value(v, row, &sb), 0);
    snprintf(text_buf, sizeof text_buf, "%s", strbuf_cstr(&sb));
    strbuf_reset(&sb);
    return text_buf;
}

static const char *fmt_json(const vec *v, uint32_t row) {
    strbuf sb;
    strbuf_init(&sb);
    assert_int_equal(vec_format_json(v, row, &sb), 0);
    snprintf(text_buf, sizeof text_buf, "%s", strbuf_cstr(&sb));
    strbuf_reset(&sb);
    return text_buf;
}

static void set_str(vec *v, uint32_t row, const char *s) {
    bool ok = true;
    VEC_DATA(v, sqe_str)[row] = vec_str_copy(v, s, (uint32_t)strlen(s), &ok);
    assert_true(ok);
}

static void test_format_scalars(void **state) {
    (void)state;
    vec v;
    assert_int_equal(vec_init(&v, T(TYPE_DOUBLE), 8, NULL, NULL), 0);
    double ds[] = {0.1, 1e-5, 1e7, 123456789.123, -0.0, NAN, 100.0, INFINITY};
    const char *exp_text[] = {"0.1", "1.0E-5", "1.0E7", "1.23456789123E8", "-0.0", "NaN", "100.0", "Infinity"};
    const char *exp_json[] = {"0.1", "1.0E-5", "1.0E7", "1.23456789123E8", "-0.0", "\"NaN\"", "100.0", "\"Infinity\""};
    for (int i = 0; i < 8; i++) VEC_DATA(&v, double)[i] = ds[i];
    for (int i = 0; i < 8; i++) {
        assert_string_equal(fmt_value(&v, (uint32_t)i), exp_text[i]);
        assert_string_equal(fmt_json(&v, (uint32_t)i), exp_json[i]);
    }
    vec_set_null(&v, 3);
    assert_string_equal(fmt_value(&v, 3), "NULL");
    assert_string_equal(fmt_json(&v, 3), "null");
    vec_destroy(&v);

    vec b;
    vec_init(&b, T(TYPE_BOOLEAN), 2, NULL, NULL);
    VEC_DATA(&b, uint8_t)[0] = 1;
    VEC_DATA(&b, uint8_t)[1] = 0;
    assert_string_equal(fmt_value(&b, 0), "true");
    assert_string_equal(fmt_json(&b, 1), "false");
    vec_destroy(&b);

    vec i64;
    vec_init(&i64, T(TYPE_BIGINT), 1, NULL, NULL);
    VEC_DATA(&i64, int64_t)[0] = INT64_MIN;
    assert_string_equal(fmt_value(&i64, 0), "-9223372036854775808");
    assert_string_equal(fmt_json(&i64, 0), "-9223372036854775808");
    vec_destroy(&i64);

    vec r;
    vec_init(&r, T(TYPE_REAL), 1, NULL, NULL);
    VEC_DATA(&r, float)[0] = 1.1f;
    assert_string_equal(fmt_value(&r, 0), "1.1");
    vec_destroy(&r);

    vec d;
    vec_init(&d, type_decimal(5, 2), 2, NULL, NULL);
    VEC_DATA(&d, int64_t)[0] = 1250;
    VEC_DATA(&d, int64_t)[1] = -5;
    assert_string_equal(fmt_value(&d, 0), "12.50");
    assert_string_equal(fmt_value(&d, 1), "-0.05");
    assert_string_equal(fmt_json(&d, 0), "\"12.50\"");
    vec_destroy(&d);

    vec ld;
    vec_init(&ld, type_decimal(38, 10), 1, NULL, NULL);
    VEC_DATA(&ld, int128)[0] = -decimal_max_unscaled(38);
    assert_string_equal(fmt_value(&ld, 0), "-9999999999999999999999999999.9999999999");
    vec_destroy(&ld);

    vec s;
    vec_init(&s, type_varchar(0), 2, NULL, NULL);
    set_str(&s, 0, "hello \"world\"\n\x01 with a longer tail");
    set_str(&s, 1, "");
    assert_string_equal(fmt_value(&s, 0), "hello \"world\"\n\x01 with a longer tail");
    assert_string_equal(fmt_json(&s, 0), "\"hello \\\"world\\\"\\n\\u0001 with a longer tail\"");
    assert_string_equal(fmt_json(&s, 1), "\"\"");
    vec_destroy(&s);

    vec bin;
    vec_init(&bin, T(TYPE_VARBINARY), 2, NULL, NULL);
    set_str(&bin, 0, "\x0a\x0b\xff");
    set_str(&bin, 1, "ab");
    assert_string_equal(fmt_value(&bin, 0), "0a 0b ff");
    assert_string_equal(fmt_json(&bin, 0), "\"Cgv/\"");
    assert_string_equal(fmt_json(&bin, 1), "\"YWI=\"");
    vec_destroy(&bin);

    vec u;
    vec_init(&u, T(TYPE_UUID), 1, NULL, NULL);
    const uint8_t bytes[16] = {0x12, 0x15, 0x1f, 0xd2, 0x75, 0x86, 0x11, 0xe9,
                               0x8f, 0x9e, 0x2a, 0x86, 0xe4, 0x08, 0x5a, 0x59};
    memcpy(u.data, bytes, 16);
    assert_string_equal(fmt_value(&u, 0), "12151fd2-7586-11e9-8f9e-2a86e4085a59");
    assert_string_equal(fmt_json(&u, 0), "\"12151fd2-7586-11e9-8f9e-2a86e4085a59\"");
    vec_destroy(&u);

    vec dt;
    vec_init(&dt, T(TYPE_DATE), 1, NULL, NULL);
    VEC_DATA(&dt, int32_t)[0] = 19782;
    assert_string_equal(fmt_value(&dt, 0), "2024-02-29");
    assert_string_equal(fmt_json(&dt, 0), "\"2024-02-29\"");
    vec_destroy(&dt);

    vec ts;
    vec_init(&ts, type_with_precision(TYPE_TIMESTAMP, 3), 1, NULL, NULL);
    VEC_DATA(&ts, int64_t)[0] = INT64_C(1709214310500000);
    assert_string_equal(fmt_value(&ts, 0), "2024-02-29 13:45:10.500");
    vec_destroy(&ts);

    vec tz;
    vec_init(&tz, type_with_precision(TYPE_TIMESTAMP_TZ, 3), 1, NULL, NULL);
    VEC_DATA(&tz, sqe_timestamp_tz)[0] = (sqe_timestamp_tz){INT64_C(1709214310500000), 0, 0};
    assert_string_equal(fmt_value(&tz, 0), "2024-02-29 13:45:10.500 UTC");
    vec_destroy(&tz);

    vec iv;
    vec_init(&iv, T(TYPE_INTERVAL_DS), 1, NULL, NULL);
    VEC_DATA(&iv, int64_t)[0] = 2 * INT64_C(86400000000);
    assert_string_equal(fmt_value(&iv, 0), "2 00:00:00.000");
    vec_destroy(&iv);

    vec ym;
    vec_init(&ym, T(TYPE_INTERVAL_YM), 1, NULL, NULL);
    VEC_DATA(&ym, int32_t)[0] = 14;
    assert_string_equal(fmt_value(&ym, 0), "1-2");
    vec_destroy(&ym);

    vec js;
    vec_init(&js, T(TYPE_JSON), 1, NULL, NULL);
    set_str(&js, 0, "{\"a\":[1,2]}");
    assert_string_equal(fmt_value(&js, 0), "{\"a\":[1,2]}");
    assert_string_equal(fmt_json(&js, 0), "\"{\\\"a\\\":[1,2]}\"");
    vec_destroy(&js);

    vec un;
    vec_init(&un, T(TYPE_UNKNOWN), 1, NULL, NULL);
    assert_string_equal(fmt_value(&un, 0), "NULL");
    assert_string_equal(fmt_json(&un, 0), "null");
    vec_destroy(&un);
}

static void test_format_nested(void **state) {
    (void)state;
    /* array(bigint): [1, 2, NULL], [] */
    vec a;
    assert_int_equal(vec_init(&a, type_array(T(TYPE_BIGINT)), 2, NULL, NULL), 0);
    vec *el = &a.children[0];
    vec_reserve(el, 3, NULL);
    VEC_DATA(el, int64_t)[0] = 1;
    VEC_DATA(el, int64_t)[1] = 2;
    vec_set_null(el, 2);
    a.child_len = 3;
    VEC_DATA(&a, sqe_list_entry)[0] = (sqe_list_entry){0, 3};
    VEC_DATA(&a, sqe_list_entry)[1] = (sqe_list_entry){3, 0};
    assert_string_equal(fmt_value(&a, 0), "[1, 2, NULL]");
    assert_string_equal(fmt_json(&a, 0), "[1,2,null]");
    assert_string_equal(fmt_value(&a, 1), "[]");
    vec_destroy(&a);

    /* map(varchar, double) */
    vec m;
    vec_init(&m, type_map(type_varchar(0), T(TYPE_DOUBLE)), 1, NULL, NULL);
    vec_reserve(&m.children[0], 2, NULL);
    vec_reserve(&m.children[1], 2, NULL);
    set_str(&m.children[0], 0, "a");
    set_str(&m.children[0], 1, "b");
    VEC_DATA(&m.children[1], double)[0] = 1;
    VEC_DATA(&m.children[1], double)[1] = 0.5;
    m.child_len = 2;
    VEC_DATA(&m, sqe_list_entry)[0] = (sqe_list_entry){0, 2};
    assert_string_equal(fmt_value(&m, 0), "{a=1.0, b=0.5}");
    assert_string_equal(fmt_json(&m, 0), "{\"a\":1.0,\"b\":0.5}");
    vec_destroy(&m);

    /* row(x bigint, y varchar) and an anonymous row */
    sqe_type fields[2] = {T(TYPE_BIGINT), type_varchar(0)};
    const char *names[2] = {"x", "y"};
    vec r;
    vec_init(&r, type_row(2, fields, names), 2, NULL, NULL);
    VEC_DATA(&r.children[0], int64_t)[0] = 1;
    set_str(&r.children[1], 0, "abc");
    vec_set_null(&r, 1);
    assert_string_equal(fmt_value(&r, 0), "{x=1, y=abc}");
    assert_string_equal(fmt_json(&r, 0), "[1,\"abc\"]");
    assert_string_equal(fmt_value(&r, 1), "NULL");
    vec_destroy(&r);

    vec anon;
    vec_init(&anon, type_row(2, fields, NULL), 1, NULL, NULL);
    VEC_DATA(&anon.children[0], int64_t)[0] = 7;
    vec_set_null(&anon.children[1], 0);
    assert_string_equal(fmt_value(&anon, 0), "{field0=7, field1=NULL}");
    vec_destroy(&anon);
}

static void test_format_shapes(void **state) {
    (void)state;
    vec flat;
    vec_init(&flat, T(TYPE_INTEGER), 4, NULL, NULL);
    for (int i = 0; i < 4; i++) VEC_DATA(&flat, int32_t)[i] = 10 * i;
    vec_set_null(&flat, 2);
    vec c;
    vec_init(&c, T(TYPE_INTEGER), 4, NULL, NULL);
    assert_int_equal(vec_set_const_from(&c, &flat, 3, NULL), 0);
    assert_string_equal(fmt_value(&c, 0), "30");
    assert_string_equal(fmt_value(&c, 3), "30");
    vec d;
    vec_init(&d, T(TYPE_INTEGER), 4, NULL, NULL);
    static const uint32_t sel[3] = {3, 2, 1};
    vec_set_dict(&d, &flat, sel);
    assert_string_equal(fmt_value(&d, 0), "30");
    assert_string_equal(fmt_value(&d, 1), "NULL");
    assert_string_equal(fmt_value(&d, 2), "10");
    vec_destroy(&d);
    vec_destroy(&c);
    vec_destroy(&flat);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_type_format),
        cmocka_unit_test(test_type_parse),
        cmocka_unit_test(test_type_parse_invalid),
        cmocka_unit_test(test_type_parse_roundtrip),
        cmocka_unit_test(test_type_interning),
        cmocka_unit_test(test_type_interning_threads),
        cmocka_unit_test(test_type_layout),
        cmocka_unit_test(test_common_super),
        cmocka_unit_test(test_can_coerce),
        cmocka_unit_test(test_can_cast),
        cmocka_unit_test(test_decimal_pow10_fits),
        cmocka_unit_test(test_decimal_result_types),
        cmocka_unit_test(test_decimal_rescale),
        cmocka_unit_test(test_decimal_div_round),
        cmocka_unit_test(test_decimal_text),
        cmocka_unit_test(test_decimal_literal_type),
        cmocka_unit_test(test_decimal_double),
        cmocka_unit_test(test_float_text_double),
        cmocka_unit_test(test_float_text_shortest),
        cmocka_unit_test(test_float_text_real),
        cmocka_unit_test(test_float_text_parse),
        cmocka_unit_test(test_format_scalars),
        cmocka_unit_test(test_format_nested),
        cmocka_unit_test(test_format_shapes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
