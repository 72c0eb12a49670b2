/*
 * test_cast.c: unit tests for the CAST kernels (src/func/cast.c) and func_common.c.
 *
 * Covers: numeric casts (narrowing errors, rounding of doubles and decimals, NaN), decimal
 * rescale and precision errors, VARCHAR <-> every scalar (Trino's messages), VARCHAR(n)
 * truncation and length errors, CHAR padding, dates/times/timestamps with and without zones,
 * UUID, VARBINARY, JSON in both directions (scalars and nested), ARRAY/MAP/ROW element-wise,
 * the NULL literal, TRY mode, selections and CONST/DICT inputs, and that func_cast_lookup
 * agrees with type_can_cast over a matrix of types (each kernel run on sample data).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/strbuf.h"
#include "func/func.h"
#include "types/datetime.h"
#include "types/decimal.h"
#include "types/tz.h"
#include "types/types.h"
#include "vec/vec.h"
#include "vec/vec_format.h"

/* --- helpers ----------------------------------------------------------------------------- */

static sqe_type ty(const char *text) {
    sqe_type t;
    if (type_parse(text, strlen(text), &t) != 0) fail_msg("bad type %s", text);
    return t;
}

/* A VARCHAR (or other string-typed) vector; NULL entries are NULL rows. */
static void make_strings(vec *v, sqe_type t, const char *const *vals, uint32_t n) {
    assert_int_equal(vec_init(v, t, n, NULL, NULL), 0);
    for (uint32_t i = 0; i < n; i++) {
        if (!vals[i]) {
            vec_set_null(v, i);
            continue;
        }
        bool ok = true;
        VEC_DATA(v, sqe_str)[i] = vec_str_copy(v, vals[i], (uint32_t)strlen(vals[i]), &ok);
        assert_true(ok);
    }
}

static void make_i64(vec *v, sqe_type t, const int64_t *vals, uint32_t n) {
    assert_int_equal(vec_init(v, t, n, NULL, NULL), 0);
    for (uint32_t i = 0; i < n; i++) {
        switch (t.id) {
        case TYPE_TINYINT: VEC_DATA(v, int8_t)[i] = (int8_t)vals[i]; break;
        case TYPE_SMALLINT: VEC_DATA(v, int16_t)[i] = (int16_t)vals[i]; break;
        case TYPE_INTEGER:
        case TYPE_DATE:
        case TYPE_INTERVAL_YM: VEC_DATA(v, int32_t)[i] = (int32_t)vals[i]; break;
        case TYPE_BOOLEAN: VEC_DATA(v, uint8_t)[i] = (uint8_t)vals[i]; break;
        case TYPE_DECIMAL: decimal_put(v->data, t, i, vals[i]); break;
        default: VEC_DATA(v, int64_t)[i] = vals[i]; break;
        }
    }
}

static void make_f64(vec *v, sqe_type t, const double *vals, uint32_t n) {
    assert_int_equal(vec_init(v, t, n, NULL, NULL), 0);
    for (uint32_t i = 0; i < n; i++) {
        if (t.id == TYPE_REAL)
            VEC_DATA(v, float)[i] = (float)vals[i];
        else
            VEC_DATA(v, double)[i] = vals[i];
    }
}

typedef struct cast_result {
    vec out;
    sqe_error err;
    int rc;
} cast_result;

static int32_t session_zone = TZ_UTC;

static void run_sel(const vec *in, sqe_type to, const uint32_t *sel, uint32_t count, uint32_t cap,
                    bool try_mode, cast_result *r) {
    memset(r, 0, sizeof *r);
    func_scalar_fn fn = func_cast_lookup(in->type, to);
    if (!fn) {
        char a[128], b[128];
        type_format(in->type, a, sizeof a);
        type_format(to, b, sizeof b);
        fail_msg("no cast %s -> %s", a, b);
    }
    assert_int_equal(vec_init(&r->out, to, cap, NULL, NULL), 0);
    func_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.err = &r->err;
    ctx.try_mode = try_mode;
    ctx.session_zone = session_zone;
    const vec *args[1] = {in};
    r->rc = fn(&ctx, args, 1, sel, count, &r->out);
}

static void run(const vec *in, sqe_type to, uint32_t count, bool try_mode, cast_result *r) {
    run_sel(in, to, NULL, count, count, try_mode, r);
}

static char cell_buf[4][1024];
static int cell_slot;

static const char *cell(const vec *v, uint32_t row) {
    char *buf = cell_buf[cell_slot++ & 3];
    strbuf sb;
    strbuf_init(&sb);
    vec_format_value(v, row, &sb);
    snprintf(buf, 1024, "%s", strbuf_cstr(&sb));
    strbuf_reset(&sb);
    return buf;
}

/* Casts string values to `to` and checks each result's text (or NULL). */
static void expect_strings(const char *to, const char *const *in, const char *const *want, uint32_t n) {
    vec v;
    make_strings(&v, type_varchar(0), in, n);
    cast_result r;
    run(&v, ty(to), n, false, &r);
    if (r.rc) fail_msg("cast to %s failed: %s", to, r.err.message);
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(cell(&r.out, i), want[i]) != 0)
            fail_msg("'%s' as %s: got %s, want %s", in[i] ? in[i] : "NULL", to, cell(&r.out, i), want[i]);
    vec_destroy(&r.out);
    vec_destroy(&v);
}

/* Casts one string and expects an error with code and message. */
static void expect_string_error(const char *to, const char *in, int code, const char *message) {
    vec v;
    make_strings(&v, type_varchar(0), &in, 1);
    cast_result r;
    run(&v, ty(to), 1, false, &r);
    if (r.rc != code) fail_msg("'%s' as %s: rc %d (%s), want %d", in, to, r.rc, r.err.message, code);
    if (message) assert_string_equal(r.err.message, message);
    vec_destroy(&r.out);
    /* TRY: the row becomes NULL instead */
    run(&v, ty(to), 1, true, &r);
    assert_int_equal(r.rc, 0);
    assert_string_equal(cell(&r.out, 0), "NULL");
    vec_destroy(&r.out);
    vec_destroy(&v);
}

/* Casts a one-row vector and expects its text. */
static void expect_cell(const vec *in, const char *to, const char *want) {
    cast_result r;
    run(in, ty(to), 1, false, &r);
    if (r.rc) fail_msg("cast to %s failed: %s", to, r.err.message);
    assert_string_equal(cell(&r.out, 0), want);
    vec_destroy(&r.out);
}

static void expect_error(const vec *in, const char *to, int code, const char *message) {
    cast_result r;
    run(in, ty(to), 1, false, &r);
    if (r.rc != code) fail_msg("cast to %s: rc %d (%s), want %d", to, r.rc, r.err.message, code);
    if (message) assert_string_equal(r.err.message, message);
    vec_destroy(&r.out);
    run(in, ty(to), 1, true, &r);
    assert_int_equal(r.rc, 0);
    assert_string_equal(cell(&r.out, 0), "NULL");
    vec_destroy(&r.out);
}

static void expect_i64(const char *from, int64_t value, const char *to, const char *want) {
    vec v;
    make_i64(&v, ty(from), &value, 1);
    expect_cell(&v, to, want);
    vec_destroy(&v);
}

static void expect_i64_error(const char *from, int64_t value, const char *to, int code, const char *msg) {
    vec v;
    make_i64(&v, ty(from), &value, 1);
    expect_error(&v, to, code, msg);
    vec_destroy(&v);
}

static void expect_f64(const char *from, double value, const char *to, const char *want) {
    vec v;
    make_f64(&v, ty(from), &value, 1);
    expect_cell(&v, to, want);
    vec_destroy(&v);
}

static void expect_f64_error(const char *from, double value, const char *to, int code, const char *msg) {
    vec v;
    make_f64(&v, ty(from), &value, 1);
    expect_error(&v, to, code, msg);
    vec_destroy(&v);
}

/* --- numbers ----------------------------------------------------------------------------- */

static void test_integer_casts(void **state) {
    (void)state;
    expect_i64("bigint", 3000000000LL, "bigint", "3000000000");
    expect_i64("integer", -5, "bigint", "-5");
    expect_i64("tinyint", -128, "smallint", "-128");
    expect_i64("bigint", 127, "tinyint", "127");
    expect_i64_error("bigint", 3000000000LL, "integer", SQE_ERR_NUMERIC_VALUE_OUT_OF_RANGE,
                     "Out of range for integer: 3000000000");
    expect_i64_error("integer", 40000, "smallint", SQE_ERR_NUMERIC_VALUE_OUT_OF_RANGE,
                     "Out of range for smallint: 40000");
    expect_i64_error("smallint", -129, "tinyint", SQE_ERR_NUMERIC_VALUE_OUT_OF_RANGE,
                     "Out of range for tinyint: -129");
    expect_i64("bigint", 9007199254740993LL, "double", "9.007199254740992E15");
    expect_i64("integer", 16777217, "real", "1.6777216E7");
    expect_i64("integer", 0, "boolean", "false");
    expect_i64("bigint", -3, "boolean", "true");
    expect_i64("boolean", 1, "integer", "1");
    expect_i64("boolean", 1, "double", "1.0");
    expect_i64("integer", 7, "varchar", "7");
    expect_i64("bigint", INT64_MIN, "varchar", "-9223372036854775808");
    expect_i64("integer", 12345, "varchar(5)", "12345");
    expect_i64_error("integer", 12345, "varchar(3)", SQE_ERR_INVALID_CAST_ARGUMENT,
                     "Value 12345 cannot be represented as varchar(3)");
    expect_i64("boolean", 0, "varchar", "false");
}

static void test_float_casts(void **state) {
    (void)state;
    /* DOUBLE -> integers round half away from zero */
    expect_f64("double", 2.5, "integer", "3");
    expect_f64("double", -2.5, "integer", "-3");
    expect_f64("double", 1.4999, "bigint", "1");
    expect_f64("double", -0.5, "bigint", "-1");
    expect_f64("double", 127.4, "tinyint", "127");
    expect_f64("real", 2.5, "smallint", "3");
    expect_f64_error("double", 3e9, "integer", SQE_ERR_NUMERIC_VALUE_OUT_OF_RANGE,
                     "Out of range for integer: 3.0E9");
    expect_f64_error("double", 127.5, "tinyint", SQE_ERR_NUMERIC_VALUE_OUT_OF_RANGE,
                     "Out of range for tinyint: 127.5");
    expect_f64_error("double", NAN, "integer", SQE_ERR_INVALID_CAST_ARGUMENT,
                     "Cannot cast double NaN to integer");
    expect_f64_error("double", INFINITY, "integer", SQE_ERR_NUMERIC_VALUE_OUT_OF_RANGE,
                     "Out of range for integer: Infinity");
    expect_f64_error("double", 1e19, "bigint", SQE_ERR_INVALID_CAST_ARGUMENT,
                     "Unable to cast 1.0E19 to bigint");
    expect_f64_error("double", NAN, "bigint", SQE_ERR_INVALID_CAST_ARGUMENT,
                     "Unable to cast NaN to bigint");
    expect_f64_error("real", NAN, "bigint", SQE_ERR_INVALID_CAST_ARGUMENT,
                     "Cannot cast real NaN to bigint");
    expect_f64("real", INFINITY, "bigint", "9223372036854775807"); /* Java's (long) saturates */
    expect_f64("double", 9.2233720368547748e18, "bigint", "9223372036854774784");
    expect_f64("real", 1.1, "double", "1.100000023841858");
    expect_f64("double", 1.1, "real", "1.1");
    expect_f64("double", 1e300, "real", "Infinity");
    expect_f64("double", NAN, "boolean", "true");
    expect_f64("double", 0.0, "boolean", "false");
    /* CAST(double AS varchar) is scientific, as Trino's DecimalFormat */
    expect_f64("double", 1.5, "varchar", "1.5E0");
    expect_f64("double", 100.0, "varchar", "1.0E2");
    expect_f64("double", 0.0, "varchar", "0E0");
    expect_f64("double", -0.0, "varchar", "-0E0");
    expect_f64("double", NAN, "varchar", "NaN");
    expect_f64("double", -INFINITY, "varchar", "-Infinity");
    expect_f64("double", 123456789.123, "varchar", "1.23456789123E8");
    expect_f64("real", 1.2345678, "varchar", "1.234568E0");
    expect_f64_error("double", 1.5, "varchar(4)", SQE_ERR_INVALID_CAST_ARGUMENT,
                     "Value 1.5 (1.5E0) cannot be represented as varchar(4)");
}

static void test_decimal_casts(void **state) {
    (void)state;
    expect_i64_error("decimal(5,2)", 12345, "decimal(3,1)", SQE_ERR_INVALID_CAST_ARGUMENT,
                     "Cannot cast DECIMAL(5, 2) '123.45' to DECIMAL(3, 1)");
    expect_i64("decimal(5,2)", 12345, "decimal(4,1)", "123.5");
    expect_i64("decimal(3,2)", 125, "decimal(2,1)", "1.3");
    expect_i64("decimal(3,2)", -125, "decimal(2,1)", "-1.3");
    expect_i64("decimal(3,2)", -124, "decimal(2,1)", "-1.2");
    expect_i64("decimal(10,2)", 1250, "decimal(12,2)", "12.50");
    expect_i64("decimal(10,2)", 1250, "decimal(30,5)", "12.50000");
    expect_i64("decimal(10,2)", -1250, "decimal(38,0)", "-13");
    expect_i64("decimal(4,2)", 250, "integer", "3");
    expect_i64("decimal(4,2)", -250, "bigint", "-3");
    expect_i64("decimal(4,2)", -249, "tinyint", "-2");
    expect_i64_error("decimal(10,0)", 3000000000LL, "integer", SQE_ERR_INVALID_CAST_ARGUMENT,
                     "Cannot cast '3000000000' to INTEGER");
    expect_i64("decimal(4,2)", 1250, "double", "12.5");
    expect_i64("decimal(4,2)", -5, "real", "-0.05");
    expect_i64("decimal(4,2)", 1, "boolean", "true");
    expect_i64("decimal(4,2)", -5, "varchar", "-0.05");
    expect_i64("bigint", 5, "decimal(3,2)", "5.00");
    expect_i64_error("bigint", 5, "decimal(1,1)", SQE_ERR_INVALID_CAST_ARGUMENT,
                     "Cannot cast BIGINT '5' to DECIMAL(1, 1)");
    expect_i64_error("integer", 100, "decimal(2,0)", SQE_ERR_INVALID_CAST_ARGUMENT,
                     "Cannot cast INTEGER '100' to DECIMAL(2, 0)");
    expect_i64("bigint", INT64_MAX, "decimal(38,10)", "9223372036854775807.0000000000");
    expect_i64("boolean", 1, "decimal(3,2)", "1.00");
    expect_f64("double", 1.005, "decimal(3,2)", "1.01");
    expect_f64("double", -2.5, "decimal(1,0)", "-3");
    expect_f64("double", 1e20, "decimal(38,2)", "100000000000000000000.00");
    expect_f64("real", 1.1, "decimal(10,5)", "1.10000");
    expect_f64_error("double", 1e40, "decimal(38,0)", SQE_ERR_INVALID_CAST_ARGUMENT,
                     "Cannot cast DOUBLE '1.0E40' to DECIMAL(38, 0)");
    expect_f64_error("double", NAN, "decimal(10,2)", SQE_ERR_INVALID_CAST_ARGUMENT,
                     "Cannot cast DOUBLE 'NaN' to DECIMAL(10, 2)");
    expect_f64_error("real", 1000, "decimal(3,1)", SQE_ERR_INVALID_CAST_ARGUMENT,
                     "Cannot cast REAL '1000.0' to DECIMAL(3, 1)");
    /* long decimals */
    vec v;
    int64_t one = 1;
    make_i64(&v, ty("decimal(38,0)"), &one, 1);
    VEC_DATA(&v, int128)[0] = decimal_max_unscaled(38);
    expect_cell(&v, "double", "1.0E38");
    expect_cell(&v, "varchar", "99999999999999999999999999999999999999");
    expect_error(&v, "decimal(38,1)", SQE_ERR_INVALID_CAST_ARGUMENT,
                 "Cannot cast DECIMAL(38, 0) '99999999999999999999999999999999999999' to DECIMAL(38, 1)");
    expect_error(&v, "bigint", SQE_ERR_INVALID_CAST_ARGUMENT,
                 "Cannot cast '99999999999999999999999999999999999999' to BIGINT");
    vec_destroy(&v);
}

/* --- VARCHAR -> scalars ------------------------------------------------------------------ */

static void test_varchar_to_numbers(void **state) {
    (void)state;
    const char *ints_in[] = {"12", " 12 ", "+7", "-2147483648", NULL, "0"};
    const char *ints_want[] = {"12", "12", "7", "-2147483648", "NULL", "0"};
    expect_strings("integer", ints_in, ints_want, 6);
    expect_string_error("integer", "abc", SQE_ERR_INVALID_CAST_ARGUMENT, "Cannot cast 'abc' to INT");
    expect_string_error("integer", "12.5", SQE_ERR_INVALID_CAST_ARGUMENT, "Cannot cast '12.5' to INT");
    expect_string_error("integer", "2147483648", SQE_ERR_INVALID_CAST_ARGUMENT,
                        "Cannot cast '2147483648' to INT");
    expect_string_error("bigint", "", SQE_ERR_INVALID_CAST_ARGUMENT, "Cannot cast '' to BIGINT");
    expect_string_error("bigint", "1 2", SQE_ERR_INVALID_CAST_ARGUMENT, "Cannot cast '1 2' to BIGINT");
    expect_string_error("smallint", "40000", SQE_ERR_INVALID_CAST_ARGUMENT,
                        "Cannot cast '40000' to SMALLINT");
    expect_string_error("tinyint", "x", SQE_ERR_INVALID_CAST_ARGUMENT, "Cannot cast 'x' to TINYINT");
    const char *big_in[] = {"9223372036854775807", "-9223372036854775808"};
    expect_strings("bigint", big_in, big_in, 2);
    expect_string_error("bigint", "9223372036854775808", SQE_ERR_INVALID_CAST_ARGUMENT, NULL);

    const char *dbl_in[] = {"1e5", " 1.5 ", "NaN", "-Infinity", ".5", "2.5d"};
    const char *dbl_want[] = {"100000.0", "1.5", "NaN", "-Infinity", "0.5", "2.5"};
    expect_strings("double", dbl_in, dbl_want, 6);
    expect_string_error("double", "abc", SQE_ERR_INVALID_CAST_ARGUMENT, "Cannot cast 'abc' to DOUBLE");
    expect_string_error("real", "1,5", SQE_ERR_INVALID_CAST_ARGUMENT, "Cannot cast '1,5' to REAL");
    const char *real_in[] = {"0.1", "3.4028235e38"};
    const char *real_want[] = {"0.1", "3.4028235E38"};
    expect_strings("real", real_in, real_want, 2);

    const char *dec_in[] = {"12.345", "-12.345", "1.5e2", " 7 ", "-.5"};
    const char *dec_want[] = {"12.35", "-12.35", "150.00", "7.00", "-0.50"};
    expect_strings("decimal(10,2)", dec_in, dec_want, 5);
    expect_string_error("decimal(10,2)", "abc", SQE_ERR_INVALID_CAST_ARGUMENT,
                        "Cannot cast VARCHAR 'abc' to DECIMAL(10, 2). Value is not a number.");
    expect_string_error("decimal(3,1)", "123.4", SQE_ERR_INVALID_CAST_ARGUMENT,
                        "Cannot cast VARCHAR '123.4' to DECIMAL(3, 1). Value too large.");
    const char *long_in[] = {"-12345678901234567890123456789.123456789"};
    const char *long_want[] = {"-12345678901234567890123456789.12346"};
    expect_strings("decimal(38,5)", long_in, long_want, 1);

    const char *bool_in[] = {"t", "F", "1", "0", "TRUE", "false", "True"};
    const char *bool_want[] = {"true", "false", "true", "false", "true", "false", "true"};
    expect_strings("boolean", bool_in, bool_want, 7);
    expect_string_error("boolean", "yes", SQE_ERR_INVALID_CAST_ARGUMENT, "Cannot cast 'yes' to BOOLEAN");
    expect_string_error("boolean", " true", SQE_ERR_INVALID_CAST_ARGUMENT,
                        "Cannot cast ' true' to BOOLEAN");
}

static void test_varchar_to_temporal(void **state) {
    (void)state;
    const char *date_in[] = {"2024-02-29", " 2024-1-5 ", "-0001-01-01"};
    const char *date_want[] = {"2024-02-29", "2024-01-05", "-0001-01-01"};
    expect_strings("date", date_in, date_want, 3);
    expect_string_error("date", "2024-02-30", SQE_ERR_INVALID_CAST_ARGUMENT,
                        "Value cannot be cast to date: 2024-02-30");
    const char *ts_in[] = {"2024-02-29 13:45:10.123456", "2024-02-29", "2024-02-29 13:45:10.9999"};
    const char *ts_want[] = {"2024-02-29 13:45:10.123", "2024-02-29 00:00:00.000",
                             "2024-02-29 13:45:11.000"};
    expect_strings("timestamp(3)", ts_in, ts_want, 3);
    const char *ts6_want[] = {"2024-02-29 13:45:10.123456", "2024-02-29 00:00:00.000000",
                              "2024-02-29 13:45:10.999900"};
    expect_strings("timestamp(6)", ts_in, ts6_want, 3);
    expect_string_error("timestamp", "2024-02-29 25:00", SQE_ERR_INVALID_CAST_ARGUMENT,
                        "Value cannot be cast to timestamp: 2024-02-29 25:00");
    const char *time_in[] = {"13:45", "23:59:59.9999"};
    const char *time_want[] = {"13:45:00.000", "00:00:00.000"};
    expect_strings("time(3)", time_in, time_want, 2);
    expect_string_error("time", "25:00", SQE_ERR_INVALID_CAST_ARGUMENT,
                        "Value cannot be cast to time: 25:00");
    const char *tz_in[] = {"2024-03-10 10:00 America/New_York", "2024-01-01 00:00:00 +05:30",
                           "2024-07-01 12:00:00"};
    const char *tz_want[] = {"2024-03-10 10:00:00.000 America/New_York",
                             "2024-01-01 00:00:00.000 +05:30", "2024-07-01 12:00:00.000 UTC"};
    expect_strings("timestamp(3) with time zone", tz_in, tz_want, 3);
    session_zone = TZ_UTC;
    assert_int_equal(tz_lookup("Europe/Amsterdam", 16, &session_zone), 0);
    const char *tz_local_want[] = {"2024-07-01 12:00:00.000 Europe/Amsterdam"};
    expect_strings("timestamp(3) with time zone", &tz_in[2], tz_local_want, 1);
    session_zone = TZ_UTC;
    expect_string_error("timestamp(3) with time zone", "2024-01-01 00:00 Nowhere/Zone",
                        SQE_ERR_INVALID_CAST_ARGUMENT, NULL);
}

static void test_varchar_strings(void **state) {
    (void)state;
    const char *in[] = {"abcdef", "ab", "h\xc3\xa9llo w\xc3\xb6rld", "", "a long string with more than twelve bytes"};
    const char *want3[] = {"abc", "ab", "h\xc3\xa9l", "", "a l"};
    expect_strings("varchar(3)", in, want3, 5);
    expect_strings("varchar", in, in, 5);
    const char *want_char4[] = {"abcd", "ab  ", "h\xc3\xa9ll", "    ", "a lo"};
    expect_strings("char(4)", in, want_char4, 5);
    const char *want_char20[] = {"abcdef              ", "ab                  ",
                                 "h\xc3\xa9llo w\xc3\xb6rld         ", "                    ",
                                 "a long string with m"};
    expect_strings("char(20)", in, want_char20, 5);

    /* CHAR sources: padding is ignored when parsing, kept when copying */
    vec c;
    const char *cvals[] = {"12   ", "t    "};
    make_strings(&c, ty("char(5)"), cvals, 2);
    cast_result r;
    run(&c, ty("integer"), 1, false, &r);
    assert_int_equal(r.rc, 0);
    assert_string_equal(cell(&r.out, 0), "12");
    vec_destroy(&r.out);
    run_sel(&c, ty("boolean"), (const uint32_t[]){1}, 1, 2, false, &r);
    assert_int_equal(r.rc, 0);
    assert_string_equal(cell(&r.out, 1), "true");
    vec_destroy(&r.out);
    run(&c, ty("varchar"), 2, false, &r);
    assert_string_equal(cell(&r.out, 0), "12   ");
    vec_destroy(&r.out);
    run(&c, ty("char(2)"), 1, false, &r);
    assert_string_equal(cell(&r.out, 0), "12");
    vec_destroy(&r.out);
    vec_destroy(&c);

    /* VARBINARY */
    vec s;
    const char *svals[] = {"ab"};
    make_strings(&s, type_varchar(0), svals, 1);
    expect_cell(&s, "varbinary", "61 62");
    vec_destroy(&s);
}

static void test_temporal_casts(void **state) {
    (void)state;
    int64_t day = dt_days_from_civil(2024, 2, 29);
    expect_i64("date", day, "timestamp(3)", "2024-02-29 00:00:00.000");
    expect_i64("date", day, "varchar", "2024-02-29");
    expect_i64_error("date", day, "varchar(5)", SQE_ERR_INVALID_CAST_ARGUMENT,
                     "Value 2024-02-29 cannot be represented as varchar(5)");
    int64_t ts = (day * 86400 + 13 * 3600 + 45 * 60 + 10) * INT64_C(1000000) + 123456;
    expect_i64("timestamp(6)", ts, "date", "2024-02-29");
    expect_i64("timestamp(6)", -1, "date", "1969-12-31");
    expect_i64("timestamp(6)", ts, "timestamp(3)", "2024-02-29 13:45:10.123");
    expect_i64("timestamp(6)", ts + 400, "timestamp(3)", "2024-02-29 13:45:10.124");
    expect_i64("timestamp(6)", ts, "timestamp(0)", "2024-02-29 13:45:10");
    expect_i64("timestamp(6)", -500000, "timestamp(0)", "1970-01-01 00:00:00"); /* half up */
    expect_i64("timestamp(6)", -500001, "timestamp(0)", "1969-12-31 23:59:59");
    expect_i64("timestamp(6)", ts, "time(6)", "13:45:10.123456");
    expect_i64("timestamp(6)", ts, "varchar", "2024-02-29 13:45:10.123456");
    expect_i64("timestamp(6)", ts, "timestamp(6) with time zone", "2024-02-29 13:45:10.123456 UTC");
    expect_i64("time(6)", 45296789012LL, "time(0)", "12:34:57");
    expect_i64("time(6)", 45296789012LL, "varchar", "12:34:56.789012");
    expect_i64("interval day to second", -(INT64_C(86400000000) + 1000), "varchar", "-1 00:00:00.001");
    expect_i64("interval year to month", 14, "varchar", "1-2");

    /* session zone for local <-> zoned */
    assert_int_equal(tz_lookup("America/New_York", 16, &session_zone), 0);
    int64_t noon = (dt_days_from_civil(2024, 7, 1) * 86400 + 12 * 3600) * INT64_C(1000000);
    expect_i64("timestamp(3)", noon, "timestamp(3) with time zone",
               "2024-07-01 12:00:00.000 America/New_York");
    expect_i64("date", dt_days_from_civil(2024, 7, 1), "timestamp(0) with time zone",
               "2024-07-01 00:00:00 America/New_York");
    vec z;
    assert_int_equal(vec_init(&z, ty("timestamp(3) with time zone"), 1, NULL, NULL), 0);
    int32_t kolkata;
    assert_int_equal(tz_lookup("Asia/Kolkata", 12, &kolkata), 0);
    /* 2024-07-01 20:00 UTC is 2024-07-02 01:30 in Kolkata: local date and time */
    VEC_DATA(&z, sqe_timestamp_tz)[0] = (sqe_timestamp_tz){noon + INT64_C(8) * 3600000000, kolkata, 0};
    expect_cell(&z, "timestamp(3)", "2024-07-02 01:30:00.000");
    expect_cell(&z, "date", "2024-07-02");
    expect_cell(&z, "time(3)", "01:30:00.000");
    expect_cell(&z, "varchar", "2024-07-02 01:30:00.000 Asia/Kolkata");
    expect_cell(&z, "timestamp(0) with time zone", "2024-07-02 01:30:00 Asia/Kolkata");
    vec_destroy(&z);
    session_zone = TZ_UTC;
}

static void test_uuid_casts(void **state) {
    (void)state;
    const char *in[] = {"12151FD2-7586-11e9-8f9e-2a86e4085a59"};
    const char *want[] = {"12151fd2-7586-11e9-8f9e-2a86e4085a59"};
    expect_strings("uuid", in, want, 1);
    expect_string_error("uuid", "12151fd2-7586-11e9-8f9e-2a86e4085a5", SQE_ERR_INVALID_CAST_ARGUMENT,
                        "Invalid UUID string length: 35");
    expect_string_error("uuid", "12151fd2x7586-11e9-8f9e-2a86e4085a59", SQE_ERR_INVALID_CAST_ARGUMENT,
                        "Cannot cast value to UUID: 12151fd2x7586-11e9-8f9e-2a86e4085a59");
    vec v;
    make_strings(&v, type_varchar(0), in, 1);
    cast_result r;
    run(&v, ty("uuid"), 1, false, &r);
    expect_cell(&r.out, "varchar", want[0]);
    cast_result b;
    run(&r.out, ty("varbinary"), 1, false, &b);
    assert_string_equal(cell(&b.out, 0), "12 15 1f d2 75 86 11 e9 8f 9e 2a 86 e4 08 5a 59");
    expect_cell(&b.out, "uuid", want[0]);
    vec_destroy(&b.out);
    vec_destroy(&r.out);
    vec_destroy(&v);
    vec bin;
    const char *short_bin[] = {"abc"};
    make_strings(&bin, ty("varbinary"), short_bin, 1);
    expect_error(&bin, "uuid", SQE_ERR_INVALID_CAST_ARGUMENT, "Invalid UUID binary length: 3");
    vec_destroy(&bin);
}

/* --- JSON -------------------------------------------------------------------------------- */

static void expect_json(const char *to, const char *json, const char *want) {
    vec v;
    make_strings(&v, ty("json"), &json, 1);
    expect_cell(&v, to, want);
    vec_destroy(&v);
}

static void expect_json_error(const char *to, const char *json) {
    vec v;
    make_strings(&v, ty("json"), &json, 1);
    expect_error(&v, to, SQE_ERR_INVALID_CAST_ARGUMENT, NULL);
    vec_destroy(&v);
}

static void test_json_from(void **state) {
    (void)state;
    expect_json("varchar", "\"abc\"", "abc");
    expect_json("varchar", "\"a\\\"b\\u00e9\\ud83d\\ude00\"", "a\"b\xc3\xa9\xf0\x9f\x98\x80");
    expect_json("varchar", "12", "12");
    expect_json("varchar", "1e2", "1.0E2");
    expect_json("varchar", "true", "true");
    expect_json("varchar", "null", "NULL");
    expect_json("bigint", "12", "12");
    expect_json("bigint", "12.5", "13");
    expect_json("bigint", "\"42\"", "42");
    expect_json("bigint", "true", "1");
    expect_json("double", "12.5", "12.5");
    expect_json("double", " \"1e3\" ", "1000.0");
    expect_json("boolean", "0", "false");
    expect_json("boolean", "\"t\"", "true");
    expect_json("decimal(5,2)", "1.005", "1.01");
    expect_json("array(bigint)", "[1, 2, null, 3]", "[1, 2, NULL, 3]");
    expect_json("array(bigint)", "[]", "[]");
    expect_json("array(array(varchar))", "[[\"a\"], [], null, [\"b\", \"c\"]]", "[[a], [], NULL, [b, c]]");
    expect_json("map(varchar, bigint)", "{\"a\": 1, \"b\": null}", "{a=1, b=NULL}");
    expect_json("map(bigint, double)", "{\"1\": 1.5}", "{1=1.5}");
    expect_json("row(x bigint, y varchar)", "{\"x\": 1, \"Y\": \"abc\", \"z\": [1]}", "{x=1, y=abc}");
    expect_json("row(x bigint, y varchar)", "{\"y\": \"only\"}", "{x=NULL, y=only}");
    expect_json("row(bigint, bigint, boolean)", "[1, \"2\", true]", "{field0=1, field1=2, field2=true}");
    expect_json("array(json)", "[1, {\"a\": [2]}, \"x\"]", "[1, {\"a\": [2]}, \"x\"]");
    expect_json("array(row(a double))", "[{\"a\": 1}, {\"a\": 2.5}]", "[{a=1.0}, {a=2.5}]");
    expect_json_error("bigint", "[1,2]");
    expect_json_error("bigint", "\"abc\"");
    expect_json_error("bigint", "1e30");
    expect_json_error("array(bigint)", "[1, 2");
    expect_json_error("array(bigint)", "{\"a\": 1}");
    expect_json_error("array(bigint)", "[1] x");
    expect_json_error("varchar", "[1]");
    expect_json_error("varchar", "");
    expect_json_error("varchar", "\"unterminated");
    expect_json_error("varchar", "\"bad \\x escape\"");
    expect_json_error("row(bigint, bigint)", "[1]");
    expect_json_error("row(bigint, bigint)", "[1, 2, 3]");
    /* deep nesting is an error, not a stack overflow */
    char deep[2100];
    for (int i = 0; i < 1000; i++) deep[i] = '[';
    for (int i = 0; i < 1000; i++) deep[1000 + i] = ']';
    deep[2000] = '\0';
    expect_json_error("array(json)", deep);
}

static void test_json_to(void **state) {
    (void)state;
    const char *s[] = {"a\"b\n", NULL};
    vec v;
    make_strings(&v, type_varchar(0), s, 2);
    cast_result r;
    run(&v, ty("json"), 2, false, &r);
    assert_int_equal(r.rc, 0);
    assert_string_equal(cell(&r.out, 0), "\"a\\\"b\\n\"");
    assert_string_equal(cell(&r.out, 1), "NULL");
    /* and back: the JSON string becomes the original text */
    expect_cell(&r.out, "varchar", "a\"b\n");
    vec_destroy(&r.out);
    vec_destroy(&v);
    expect_i64("bigint", -12, "json", "-12");
    expect_i64("boolean", 1, "json", "true");
    expect_i64("decimal(5,2)", 1250, "json", "12.50");
    expect_i64("date", 0, "json", "\"1970-01-01\"");
    expect_i64("timestamp(3)", 0, "json", "\"1970-01-01 00:00:00.000\"");
    expect_f64("double", 1e10, "json", "1.0E10");
    expect_f64("double", NAN, "json", "\"NaN\"");
    expect_f64("real", 0.1, "json", "0.1");

    /* array(integer) with a NULL element */
    vec a;
    assert_int_equal(vec_init(&a, ty("array(integer)"), 1, NULL, NULL), 0);
    vec_reserve(&a.children[0], 3, NULL);
    VEC_DATA(&a.children[0], int32_t)[0] = 1;
    VEC_DATA(&a.children[0], int32_t)[1] = 2;
    vec_set_null(&a.children[0], 2);
    a.child_len = 3;
    VEC_DATA(&a, sqe_list_entry)[0] = (sqe_list_entry){0, 3};
    expect_cell(&a, "json", "[1,2,null]");
    vec_destroy(&a);

    /* map with keys sorted */
    vec m;
    assert_int_equal(vec_init(&m, ty("map(varchar, double)"), 1, NULL, NULL), 0);
    vec_reserve(&m.children[0], 3, NULL);
    vec_reserve(&m.children[1], 3, NULL);
    const char *keys[] = {"k2", "k10", "a"};
    for (int i = 0; i < 3; i++) {
        bool ok = true;
        VEC_DATA(&m.children[0], sqe_str)[i] = vec_str_copy(&m.children[0], keys[i], (uint32_t)strlen(keys[i]), &ok);
        VEC_DATA(&m.children[1], double)[i] = i + 0.5;
    }
    m.child_len = 3;
    VEC_DATA(&m, sqe_list_entry)[0] = (sqe_list_entry){0, 3};
    expect_cell(&m, "json", "{\"a\":2.5,\"k10\":1.5,\"k2\":0.5}");
    vec_destroy(&m);

    /* row as an object */
    vec row;
    assert_int_equal(vec_init(&row, ty("row(v1 bigint, v2 varchar, v3 boolean)"), 1, NULL, NULL), 0);
    VEC_DATA(&row.children[0], int64_t)[0] = 123;
    bool ok = true;
    VEC_DATA(&row.children[1], sqe_str)[0] = vec_str_copy(&row.children[1], "abc", 3, &ok);
    VEC_DATA(&row.children[2], uint8_t)[0] = 1;
    expect_cell(&row, "json", "{\"v1\":123,\"v2\":\"abc\",\"v3\":true}");
    vec_destroy(&row);
}

/* Random token soup: every JSON cast must end in a value or a clean error. */
static void test_json_fuzz(void **state) {
    (void)state;
    static const char *const pieces[] = {"[", "]", "{", "}", ",", ":", "\"a\"", "\"x\\u00e9\"",
                                         "1", "-2.5e3", "true", "false", "null", " ", "\"", "\\",
                                         "1e999", "\"12\"", "0", "-", "{\"a\":", "[[[", "]]]"};
    const char *targets[] = {"varchar", "bigint", "double", "decimal(10,2)", "boolean", "array(bigint)",
                             "map(varchar, array(double))", "row(a bigint, b array(varchar))",
                             "array(json)", "map(bigint, json)"};
    srand(99);
    char text[256];
    const char *rows[64];
    char store[64][256];
    for (int round = 0; round < 60; round++) {
        for (int r = 0; r < 64; r++) {
            size_t n = 0;
            int parts = rand() % 12;
            for (int i = 0; i < parts; i++) {
                const char *p = pieces[rand() % (int)(sizeof pieces / sizeof pieces[0])];
                size_t len = strlen(p);
                if (n + len >= sizeof text) break;
                memcpy(text + n, p, len);
                n += len;
            }
            text[n] = '\0';
            memcpy(store[r], text, n + 1);
            rows[r] = store[r];
        }
        vec v;
        make_strings(&v, ty("json"), rows, 64);
        for (size_t t = 0; t < sizeof targets / sizeof targets[0]; t++) {
            for (int try_mode = 0; try_mode < 2; try_mode++) {
                cast_result r;
                run(&v, ty(targets[t]), 64, try_mode, &r);
                assert_true(r.rc == 0 || r.rc == SQE_ERR_INVALID_CAST_ARGUMENT ||
                            r.rc == SQE_ERR_NUMERIC_VALUE_OUT_OF_RANGE);
                if (try_mode) assert_int_equal(r.rc, 0);
                if (r.rc == 0)
                    for (uint32_t i = 0; i < 64; i++) (void)cell(&r.out, i);
                vec_destroy(&r.out);
            }
        }
        vec_destroy(&v);
    }
}

/* --- nested ------------------------------------------------------------------------------ */

static void fill_int_array(vec *a, const int32_t *vals, const uint32_t *lens, uint32_t rows) {
    uint32_t total = 0;
    for (uint32_t r = 0; r < rows; r++) total += lens[r];
    assert_int_equal(vec_reserve(&a->children[0], total ? total : 1, NULL), 0);
    uint32_t off = 0;
    for (uint32_t r = 0; r < rows; r++) {
        VEC_DATA(a, sqe_list_entry)[r] = (sqe_list_entry){off, lens[r]};
        off += lens[r];
    }
    for (uint32_t i = 0; i < total; i++) VEC_DATA(&a->children[0], int32_t)[i] = vals[i];
    a->child_len = total;
}

static void test_array_casts(void **state) {
    (void)state;
    vec a;
    assert_int_equal(vec_init(&a, ty("array(integer)"), 4, NULL, NULL), 0);
    const int32_t vals[] = {1, 2, 3, 4, 5};
    const uint32_t lens[] = {2, 0, 3, 0};
    fill_int_array(&a, vals, lens, 4);
    vec_set_null(&a, 3);
    cast_result r;
    run(&a, ty("array(varchar)"), 4, false, &r);
    assert_int_equal(r.rc, 0);
    assert_string_equal(cell(&r.out, 0), "[1, 2]");
    assert_string_equal(cell(&r.out, 1), "[]");
    assert_string_equal(cell(&r.out, 2), "[3, 4, 5]");
    assert_string_equal(cell(&r.out, 3), "NULL");
    /* and back to array(bigint) */
    cast_result back;
    run(&r.out, ty("array(bigint)"), 4, false, &back);
    assert_int_equal(back.rc, 0);
    assert_string_equal(cell(&back.out, 2), "[3, 4, 5]");
    vec_destroy(&back.out);
    vec_destroy(&r.out);

    /* a selection of rows, written at their own row positions */
    static const uint32_t sel[] = {2, 0};
    run_sel(&a, ty("array(double)"), sel, 2, 4, false, &r);
    assert_int_equal(r.rc, 0);
    assert_string_equal(cell(&r.out, 0), "[1.0, 2.0]");
    assert_string_equal(cell(&r.out, 2), "[3.0, 4.0, 5.0]");
    vec_destroy(&r.out);
    vec_destroy(&a);

    /* element errors: the error, or under TRY a NULL element */
    vec s;
    assert_int_equal(vec_init(&s, ty("array(varchar)"), 1, NULL, NULL), 0);
    vec_reserve(&s.children[0], 2, NULL);
    bool ok = true;
    VEC_DATA(&s.children[0], sqe_str)[0] = vec_str_copy(&s.children[0], "1", 1, &ok);
    VEC_DATA(&s.children[0], sqe_str)[1] = vec_str_copy(&s.children[0], "x", 1, &ok);
    s.child_len = 2;
    VEC_DATA(&s, sqe_list_entry)[0] = (sqe_list_entry){0, 2};
    run(&s, ty("array(integer)"), 1, false, &r);
    assert_int_equal(r.rc, SQE_ERR_INVALID_CAST_ARGUMENT);
    assert_string_equal(r.err.message, "Cannot cast 'x' to INT");
    vec_destroy(&r.out);
    run(&s, ty("array(integer)"), 1, true, &r);
    assert_int_equal(r.rc, 0);
    assert_string_equal(cell(&r.out, 0), "[1, NULL]");
    vec_destroy(&r.out);
    vec_destroy(&s);

    /* a constant array */
    vec src, c;
    assert_int_equal(vec_init(&src, ty("array(integer)"), 1, NULL, NULL), 0);
    const uint32_t one_len[] = {2};
    fill_int_array(&src, vals, one_len, 1);
    assert_int_equal(vec_init(&c, ty("array(integer)"), 3, NULL, NULL), 0);
    assert_int_equal(vec_set_const_from(&c, &src, 0, NULL), 0);
    run(&c, ty("array(bigint)"), 3, false, &r);
    assert_int_equal(r.rc, 0);
    for (uint32_t i = 0; i < 3; i++) assert_string_equal(cell(&r.out, i), "[1, 2]");
    vec_destroy(&r.out);
    vec_destroy(&c);
    vec_destroy(&src);
}

static void test_map_row_casts(void **state) {
    (void)state;
    vec m;
    assert_int_equal(vec_init(&m, ty("map(varchar, integer)"), 1, NULL, NULL), 0);
    vec_reserve(&m.children[0], 2, NULL);
    vec_reserve(&m.children[1], 2, NULL);
    bool ok = true;
    VEC_DATA(&m.children[0], sqe_str)[0] = vec_str_copy(&m.children[0], "a", 1, &ok);
    VEC_DATA(&m.children[0], sqe_str)[1] = vec_str_copy(&m.children[0], "b", 1, &ok);
    VEC_DATA(&m.children[1], int32_t)[0] = 1;
    vec_set_null(&m.children[1], 1);
    m.child_len = 2;
    VEC_DATA(&m, sqe_list_entry)[0] = (sqe_list_entry){0, 2};
    expect_cell(&m, "map(varchar, double)", "{a=1.0, b=NULL}");
    expect_cell(&m, "map(varchar(1), varchar)", "{a=1, b=NULL}");
    vec_destroy(&m);

    vec r;
    assert_int_equal(vec_init(&r, ty("row(a integer, b varchar)"), 3, NULL, NULL), 0);
    for (int i = 0; i < 3; i++) {
        VEC_DATA(&r.children[0], int32_t)[i] = 10 + i;
        char text[8];
        snprintf(text, sizeof text, "%d", 100 + (i & 7));
        VEC_DATA(&r.children[1], sqe_str)[i] = vec_str_copy(&r.children[1], text, 3, &ok);
    }
    vec_set_null(&r, 1);
    cast_result res;
    run(&r, ty("row(x bigint, y integer)"), 3, false, &res);
    assert_int_equal(res.rc, 0);
    assert_string_equal(cell(&res.out, 0), "{x=10, y=100}");
    assert_string_equal(cell(&res.out, 1), "NULL");
    assert_string_equal(cell(&res.out, 2), "{x=12, y=102}");
    vec_destroy(&res.out);
    /* through a dictionary view */
    vec d;
    assert_int_equal(vec_init(&d, r.type, 2, NULL, NULL), 0);
    static const uint32_t pick[2] = {2, 0};
    vec_set_dict(&d, &r, pick);
    run(&d, ty("row(x double, y varchar)"), 2, false, &res);
    assert_int_equal(res.rc, 0);
    assert_string_equal(cell(&res.out, 0), "{x=12.0, y=102}");
    assert_string_equal(cell(&res.out, 1), "{x=10.0, y=100}");
    vec_destroy(&res.out);
    vec_destroy(&d);
    vec_destroy(&r);
}

/* --- shapes, NULL literal, matrix --------------------------------------------------------- */

static void test_shapes_and_unknown(void **state) {
    (void)state;
    vec flat;
    const char *vals[] = {"1", "2", NULL, "4"};
    make_strings(&flat, type_varchar(0), vals, 4);
    vec d;
    assert_int_equal(vec_init(&d, flat.type, 4, NULL, NULL), 0);
    static const uint32_t pick[4] = {3, 2, 1, 0};
    vec_set_dict(&d, &flat, pick);
    cast_result r;
    run(&d, ty("integer"), 4, false, &r);
    assert_int_equal(r.rc, 0);
    assert_string_equal(cell(&r.out, 0), "4");
    assert_string_equal(cell(&r.out, 1), "NULL");
    assert_string_equal(cell(&r.out, 3), "1");
    vec_destroy(&r.out);
    /* identity view (sel == NULL) over a dictionary */
    vec view;
    assert_int_equal(vec_init(&view, flat.type, 4, NULL, NULL), 0);
    vec_set_dict(&view, &d, NULL);
    run(&view, ty("bigint"), 4, false, &r);
    assert_int_equal(r.rc, 0);
    assert_string_equal(cell(&r.out, 0), "4");
    vec_destroy(&r.out);
    vec_destroy(&view);
    vec_destroy(&d);

    /* a reused output vector with NULLs from an earlier batch */
    vec out;
    assert_int_equal(vec_init(&out, ty("integer"), 4, NULL, NULL), 0);
    for (uint32_t i = 0; i < 4; i++) vec_set_null(&out, i);
    func_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    sqe_error err;
    ctx.err = &err;
    const vec *args[1] = {&flat};
    assert_int_equal(func_cast_lookup(flat.type, out.type)(&ctx, args, 1, NULL, 4, &out), 0);
    assert_string_equal(cell(&out, 0), "1");
    assert_string_equal(cell(&out, 2), "NULL");
    vec_destroy(&out);
    vec_destroy(&flat);

    /* the NULL literal casts to anything as NULL */
    vec u;
    assert_int_equal(vec_init(&u, type_make(TYPE_UNKNOWN), 2, NULL, NULL), 0);
    vec_set_null(&u, 0);
    vec_set_null(&u, 1);
    run(&u, ty("array(bigint)"), 2, false, &r);
    assert_int_equal(r.rc, 0);
    assert_string_equal(cell(&r.out, 1), "NULL");
    vec_destroy(&r.out);
    vec_destroy(&u);

    /* vec_view of a constant */
    vec c;
    assert_int_equal(vec_init(&c, ty("bigint"), 4, NULL, NULL), 0);
    VEC_DATA(&c, int64_t)[0] = 9;
    c.shape = VEC_CONST;
    vec_view un;
    vec_view_init(&un, &c);
    assert_int_equal(un.mode, VEC_VIEW_CONST);
    assert_int_equal(vec_view_index(&un, 3), 0);
    assert_true(vec_view_valid(&un, 3));
    vec_destroy(&c);
}

/* Sample vector of any type: 3 rows, row 1 NULL, values zero/empty (JSON "1"). */
static void make_sample(vec *v, sqe_type t) {
    assert_int_equal(vec_init(v, t, 3, NULL, NULL), 0);
    size_t w = type_physical_size(t);
    if (w) memset(v->data, 0, w * 3);
    if (type_is_string_view(t)) {
        const char *text = t.id == TYPE_JSON ? "1" : t.id == TYPE_VARBINARY ? "" : "1";
        for (int i = 0; i < 3; i++) VEC_DATA(v, sqe_str)[i] = sqe_str_make(text, (uint32_t)strlen(text));
        if (t.id == TYPE_CHAR) {
            for (int i = 0; i < 3; i++) {
                bool ok = true;
                char pad[16];
                memset(pad, ' ', sizeof pad);
                pad[0] = '1';
                VEC_DATA(v, sqe_str)[i] = vec_str_copy(v, pad, t.length < 16 ? t.length : 16, &ok);
            }
        }
    }
    if (t.id == TYPE_ROW)
        for (uint32_t f = 0; f < v->n_children; f++) {
            vec_destroy(&v->children[f]);
            make_sample(&v->children[f], t.nested->children[f]);
        }
    if (t.id == TYPE_ARRAY || t.id == TYPE_MAP) {
        for (uint32_t k = 0; k < v->n_children; k++) {
            vec_destroy(&v->children[k]);
            make_sample(&v->children[k], t.nested->children[k]);
            if (k == 0 && t.id == TYPE_MAP) vec_set_valid(&v->children[k], 1);
        }
        for (int i = 0; i < 3; i++) VEC_DATA(v, sqe_list_entry)[i] = (sqe_list_entry){(uint32_t)i, 1};
        v->child_len = 3;
    }
    vec_set_null(v, 1);
}

static void test_lookup_matrix(void **state) {
    (void)state;
    const char *names[] = {"unknown", "boolean", "tinyint", "smallint", "integer", "bigint", "real",
                           "double", "decimal(5,2)", "decimal(30,4)", "varchar", "varchar(3)",
                           "char(4)", "varbinary", "json", "date", "time(3)", "timestamp(3)",
                           "timestamp(6)", "timestamp(3) with time zone", "interval day to second",
                           "interval year to month", "uuid", "array(bigint)", "array(varchar)",
                           "map(varchar, bigint)", "row(a bigint, b varchar)", "row(double, date)",
                           "array(json)", "map(bigint, array(double))"};
    size_t n = sizeof names / sizeof names[0];
    int pairs = 0, casts = 0;
    for (size_t i = 0; i < n; i++) {
        sqe_type from = ty(names[i]);
        vec in;
        make_sample(&in, from);
        for (size_t j = 0; j < n; j++) {
            sqe_type to = ty(names[j]);
            func_scalar_fn fn = func_cast_lookup(from, to);
            pairs++;
            if ((fn != NULL) != type_can_cast(from, to))
                fail_msg("lookup %s -> %s disagrees with type_can_cast", names[i], names[j]);
            if (!fn || to.id == TYPE_UNKNOWN) continue;
            casts++;
            for (int try_mode = 0; try_mode < 2; try_mode++) {
                cast_result r;
                run(&in, to, 3, try_mode, &r);
                if (r.rc == SQE_ERR_GENERIC_INTERNAL_ERROR)
                    fail_msg("%s -> %s: %s", names[i], names[j], r.err.message);
                if (try_mode && r.rc != 0)
                    fail_msg("%s -> %s under TRY: %s", names[i], names[j], r.err.message);
                if (r.rc == 0) {
                    assert_string_equal(cell(&r.out, 1), "NULL");
                    (void)cell(&r.out, 0);
                    (void)cell(&r.out, 2);
                }
                vec_destroy(&r.out);
            }
        }
        vec_destroy(&in);
    }
    assert_true(casts > 200);
    (void)pairs;
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_integer_casts),
        cmocka_unit_test(test_float_casts),
        cmocka_unit_test(test_decimal_casts),
        cmocka_unit_test(test_varchar_to_numbers),
        cmocka_unit_test(test_varchar_to_temporal),
        cmocka_unit_test(test_varchar_strings),
        cmocka_unit_test(test_temporal_casts),
        cmocka_unit_test(test_uuid_casts),
        cmocka_unit_test(test_json_from),
        cmocka_unit_test(test_json_to),
        cmocka_unit_test(test_json_fuzz),
        cmocka_unit_test(test_array_casts),
        cmocka_unit_test(test_map_row_casts),
        cmocka_unit_test(test_shapes_and_unknown),
        cmocka_unit_test(test_lookup_matrix),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
