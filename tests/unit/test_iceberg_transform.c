/*
 * test_iceberg_transform.c: unit tests of Iceberg partition transforms, their Murmur3 hashing
 * and the projection of column predicates onto partition values (src/iceberg/transform.c,
 * src/iceberg/murmur3.c).
 *
 * Covers: the test vectors of the Iceberg spec "Appendix B: 32-bit Hash Requirements" (read
 * from apache/iceberg format/spec.md) plus generic MurmurHash3 vectors; the minimal
 * big-endian decimal bytes at every byte boundary; parsing and formatting; the applicability
 * matrix; each transform's semantics at the edges (negative truncation, pre-1970 time parts,
 * code-point string truncation, NULLs, vector shapes, overflow errors); projection rules per
 * transform and operator; evaluation against partition values and bounds; and a randomized
 * soundness property: whenever a value satisfies a column predicate, its partition value
 * satisfies the projected predicate, and so do bounds of any set containing it.
 * The cross-check against pyiceberg lives in tests/iceberg/test_transform_oracle.py.
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
#include "iceberg/transform.h"
#include "types/datetime.h"
#include "types/decimal.h"
#include "types/types.h"
#include "vec/vec.h"

/* ---- vectors, freed by the teardown ------------------------------------------------------ */

#define MAX_VECS 256
static vec g_vecs[MAX_VECS];
static int g_n_vecs;

static int teardown(void **state) {
    (void)state;
    for (int i = 0; i < g_n_vecs; i++) vec_destroy(&g_vecs[i]);
    g_n_vecs = 0;
    return 0;
}

static vec *new_vec(sqe_type t, uint32_t n) {
    assert_true(g_n_vecs < MAX_VECS);
    vec *v = &g_vecs[g_n_vecs++];
    memset(v, 0, sizeof(*v));
    assert_int_equal(vec_init(v, t, n ? n : 1, NULL, NULL), SQE_OK);
    return v;
}

static void put_int(vec *v, uint32_t row, int128 x) {
    switch ((type_id)v->type.id) {
    case TYPE_BOOLEAN: VEC_DATA(v, uint8_t)[row] = (uint8_t)x; break;
    case TYPE_TINYINT: VEC_DATA(v, int8_t)[row] = (int8_t)x; break;
    case TYPE_SMALLINT: VEC_DATA(v, int16_t)[row] = (int16_t)x; break;
    case TYPE_INTEGER:
    case TYPE_DATE: VEC_DATA(v, int32_t)[row] = (int32_t)x; break;
    case TYPE_BIGINT:
    case TYPE_TIME:
    case TYPE_TIMESTAMP: VEC_DATA(v, int64_t)[row] = (int64_t)x; break;
    case TYPE_TIMESTAMP_TZ: {
        sqe_timestamp_tz t;
        memset(&t, 0, sizeof(t));
        t.micros = (int64_t)x;
        t.zone = 7;
        VEC_DATA(v, sqe_timestamp_tz)[row] = t;
        break;
    }
    case TYPE_DECIMAL: decimal_put(v->data, v->type, row, x); break;
    default: fail_msg("put_int on type %d", v->type.id);
    }
}

static int128 get_int(const vec *v, uint32_t row) {
    switch ((type_id)v->type.id) {
    case TYPE_TINYINT: return VEC_DATA(v, int8_t)[row];
    case TYPE_SMALLINT: return VEC_DATA(v, int16_t)[row];
    case TYPE_INTEGER:
    case TYPE_DATE: return VEC_DATA(v, int32_t)[row];
    case TYPE_BIGINT:
    case TYPE_TIME:
    case TYPE_TIMESTAMP: return VEC_DATA(v, int64_t)[row];
    case TYPE_TIMESTAMP_TZ: return VEC_DATA(v, sqe_timestamp_tz)[row].micros;
    case TYPE_DECIMAL: return decimal_get(v->data, v->type, row);
    default: fail_msg("get_int on type %d", v->type.id);
    }
    return 0;
}

static vec *int1(sqe_type t, int128 x) {
    vec *v = new_vec(t, 1);
    put_int(v, 0, x);
    return v;
}

static vec *ints(sqe_type t, uint32_t n, const int64_t *xs) {
    vec *v = new_vec(t, n);
    for (uint32_t i = 0; i < n; i++) put_int(v, i, xs[i]);
    return v;
}

/* Strings: the bytes must outlive the vector (string literals or static storage). */
static vec *strs(sqe_type t, uint32_t n, const char *const *xs) {
    vec *v = new_vec(t, n);
    for (uint32_t i = 0; i < n; i++) {
        bool ok = true;
        VEC_DATA(v, sqe_str)[i] = vec_str_copy(v, xs[i], (uint32_t)strlen(xs[i]), &ok);
        assert_true(ok);
    }
    return v;
}

static vec *str1(sqe_type t, const char *s) { return strs(t, 1, &s); }

static vec *bin1(const void *p, uint32_t len) {
    vec *v = new_vec(type_make(TYPE_VARBINARY), 1);
    bool ok = true;
    VEC_DATA(v, sqe_str)[0] = vec_str_copy(v, p, len, &ok);
    assert_true(ok);
    return v;
}

static vec *uuid1(const uint8_t b[16]) {
    vec *v = new_vec(type_make(TYPE_UUID), 1);
    memcpy(v->data, b, 16);
    return v;
}

static vec *dbl1(sqe_type t, double x) {
    vec *v = new_vec(t, 1);
    if (t.id == TYPE_REAL)
        VEC_DATA(v, float)[0] = (float)x;
    else
        VEC_DATA(v, double)[0] = x;
    return v;
}

static const sqe_type T_INT = {.id = TYPE_INTEGER};
static const sqe_type T_LONG = {.id = TYPE_BIGINT};
static const sqe_type T_DATE = {.id = TYPE_DATE};
static const sqe_type T_STR = {.id = TYPE_VARCHAR};
static const sqe_type T_BIN = {.id = TYPE_VARBINARY};
static sqe_type t_ts(void) { return type_make(TYPE_TIMESTAMP); }
static sqe_type t_tstz(void) { return type_make(TYPE_TIMESTAMP_TZ); }
static sqe_type t_time(void) { return type_make(TYPE_TIME); }

static ice_transform tr(ice_transform_kind k, int32_t p) {
    ice_transform t = {k, p};
    return t;
}

static int64_t ts_micros(int y, int mo, int d, int h, int mi, int s, int us) {
    return (int64_t)dt_days_from_civil(y, mo, d) * DT_MICROS_PER_DAY +
           ((int64_t)h * 3600 + mi * 60 + s) * DT_MICROS_PER_SECOND + us;
}

/* Applies t to `in` and returns the output vector (asserting success). */
static vec *apply(ice_transform t, const vec *in, uint32_t n) {
    sqe_type rt;
    assert_true(ice_transform_result_type(t, in->type, &rt));
    vec *out = new_vec(rt, 1);
    sqe_error err;
    int rc = ice_transform_apply(t, in, n, out, &err);
    if (rc != SQE_OK) fail_msg("apply failed: %s", err.message);
    return out;
}

/* ---- Appendix B ------------------------------------------------------------------------- */

static void test_murmur3_generic(void **state) {
    (void)state;
    assert_int_equal(ice_murmur3_32(NULL, 0), 0);
    assert_int_equal((uint32_t)ice_murmur3_32("hello", 5), 0x248BFA47u);
    assert_int_equal((uint32_t)ice_murmur3_32("The quick brown fox jumps over the lazy dog", 43),
                     0x2E4FF723u);
    /* Every tail length hashes from unaligned memory the same as aligned. */
    char buf[64], aligned[64];
    for (int i = 0; i < 40; i++) buf[i + 1] = (char)(i * 7 + 3);
    for (size_t len = 0; len < 20; len++) {
        memcpy(aligned, buf + 1, len);
        assert_int_equal(ice_murmur3_32(buf + 1, len), ice_murmur3_32(aligned, len));
    }
}

static void test_spec_hash_vectors(void **state) {
    (void)state;
    /* int and long: 34 -> 2017239379 */
    assert_int_equal(ice_hash_long(34), 2017239379);
    int32_t h;
    assert_true(ice_hash_value(int1(T_INT, 34), 0, &h));
    assert_int_equal(h, 2017239379);
    assert_true(ice_hash_value(int1(T_LONG, 34), 0, &h));
    assert_int_equal(h, 2017239379);
    assert_true(ice_hash_value(int1(type_make(TYPE_SMALLINT), 34), 0, &h));
    assert_int_equal(h, 2017239379);
    /* decimal(P,S) 14.20 -> -500754589, for any scale/precision carrying unscaled 1420 */
    assert_int_equal(ice_hash_decimal(1420), -500754589);
    assert_true(ice_hash_value(int1(type_decimal(9, 2), 1420), 0, &h));
    assert_int_equal(h, -500754589);
    assert_true(ice_hash_value(int1(type_decimal(38, 2), 1420), 0, &h));
    assert_int_equal(h, -500754589);
    /* date 2017-11-16 -> -653330422 */
    assert_true(ice_hash_value(int1(T_DATE, dt_days_from_civil(2017, 11, 16)), 0, &h));
    assert_int_equal(h, -653330422);
    /* time 22:31:08 -> -662762989 */
    assert_true(ice_hash_value(int1(t_time(), (int64_t)(22 * 3600 + 31 * 60 + 8) * 1000000), 0,
                               &h));
    assert_int_equal(h, -662762989);
    /* timestamp 2017-11-16T22:31:08 -> -2047944441 */
    int64_t ts = ts_micros(2017, 11, 16, 22, 31, 8, 0);
    assert_true(ice_hash_value(int1(t_ts(), ts), 0, &h));
    assert_int_equal(h, -2047944441);
    /* timestamptz 2017-11-16T14:31:08-08:00 (the same instant) -> -2047944441 */
    assert_true(ice_hash_value(int1(t_tstz(), ts_micros(2017, 11, 16, 14, 31, 8, 0) +
                                                  8 * INT64_C(3600000000)),
                               0, &h));
    assert_int_equal(h, -2047944441);
    /* A second vector seen in implementations: 2017-11-16T22:31:08.000001 -> -1207196810 */
    assert_true(ice_hash_value(int1(t_ts(), ts + 1), 0, &h));
    assert_int_equal(h, -1207196810);
    /* string "iceberg" -> 1210000089 */
    assert_true(ice_hash_value(str1(T_STR, "iceberg"), 0, &h));
    assert_int_equal(h, 1210000089);
    assert_true(ice_hash_value(str1(type_char(7), "iceberg"), 0, &h));
    assert_int_equal(h, 1210000089);
    /* uuid f79c3e09-677c-4bbd-a479-3f349cb785e7 -> 1488055340 */
    static const uint8_t u[16] = {0xF7, 0x9C, 0x3E, 0x09, 0x67, 0x7C, 0x4B, 0xBD,
                                  0xA4, 0x79, 0x3F, 0x34, 0x9C, 0xB7, 0x85, 0xE7};
    assert_true(ice_hash_value(uuid1(u), 0, &h));
    assert_int_equal(h, 1488055340);
    /* fixed(4) / binary 00 01 02 03 -> -188683207 */
    static const uint8_t b[4] = {0, 1, 2, 3};
    assert_true(ice_hash_value(bin1(b, 4), 0, &h));
    assert_int_equal(h, -188683207);
    /* Not bucketable but specified: boolean true = hashInt(1), floats via doubleToLongBits. */
    assert_int_equal(ice_hash_long(1), 1392991556);
    assert_int_equal(ice_hash_double(1.0), -142385009);
    assert_int_equal(ice_hash_double((double)1.0f), -142385009);
    assert_int_equal(ice_hash_double(0.0), 1669671676);
    assert_int_equal(ice_hash_double(-0.0), 1669671676);
    assert_int_equal(ice_hash_double(__builtin_nan("")), ice_hash_double(-__builtin_nan("0x123")));
    assert_false(ice_hash_value(dbl1(type_make(TYPE_DOUBLE), 1.0), 0, &h));
    assert_false(ice_hash_value(int1(type_make(TYPE_BOOLEAN), 1), 0, &h));
}

/* Reference: minimal two's complement bytes built the slow way. */
static int32_t decimal_hash_ref(int128 v) {
    uint8_t b[17];
    for (int n = 1; n <= 16; n++) {
        bool fits = true;
        if (n < 16) {
            int128 lo = -((int128)1 << (8 * n - 1)), hi = ((int128)1 << (8 * n - 1)) - 1;
            fits = v >= lo && v <= hi;
        }
        if (fits) {
            for (int i = 0; i < n; i++)
                b[i] = (uint8_t)((unsigned __int128)v >> (8 * (n - 1 - i)));
            return ice_murmur3_32(b, (size_t)n);
        }
    }
    return 0;
}

static void test_decimal_bytes(void **state) {
    (void)state;
    static const uint8_t zero[1] = {0x00}, m128[1] = {0x80}, p128[2] = {0x00, 0x80},
                         m129[2] = {0xff, 0x7f}, p127[1] = {0x7f}, m1[1] = {0xff};
    assert_int_equal(ice_hash_decimal(0), ice_murmur3_32(zero, 1));
    assert_int_equal(ice_hash_decimal(-128), ice_murmur3_32(m128, 1));
    assert_int_equal(ice_hash_decimal(128), ice_murmur3_32(p128, 2));
    assert_int_equal(ice_hash_decimal(-129), ice_murmur3_32(m129, 2));
    assert_int_equal(ice_hash_decimal(127), ice_murmur3_32(p127, 1));
    assert_int_equal(ice_hash_decimal(-1), ice_murmur3_32(m1, 1));
    for (int bits = 1; bits < 127; bits++) {
        int128 p = (int128)1 << bits;
        int128 cases[6] = {p, p - 1, p + 1, -p, -p - 1, -p + 1};
        for (int i = 0; i < 6; i++)
            assert_int_equal(ice_hash_decimal(cases[i]), decimal_hash_ref(cases[i]));
    }
    int128 max38 = decimal_pow10(38) - 1;
    assert_int_equal(ice_hash_decimal(max38), decimal_hash_ref(max38));
    assert_int_equal(ice_hash_decimal(-max38), decimal_hash_ref(-max38));
}

/* ---- parse / format / result types ------------------------------------------------------ */

static void test_parse_format(void **state) {
    (void)state;
    static const char *const good[] = {"identity", "bucket[16]", "truncate[10]", "year",
                                       "month",    "day",        "hour",         "void",
                                       "bucket[1]", "truncate[2147483647]"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        ice_transform t;
        assert_int_equal(ice_transform_parse(good[i], &t, NULL), SQE_OK);
        assert_int_not_equal(t.kind, ICE_T_UNKNOWN);
        char buf[64];
        assert_int_equal(ice_transform_format(t, buf, sizeof buf), strlen(good[i]));
        assert_string_equal(buf, good[i]);
    }
    ice_transform t;
    assert_int_equal(ice_transform_parse("BUCKET[16]", &t, NULL), SQE_OK);
    assert_int_equal(t.kind, ICE_T_BUCKET);
    assert_int_equal(t.param, 16);
    assert_int_equal(ice_transform_parse("Day", &t, NULL), SQE_OK);
    assert_int_equal(t.kind, ICE_T_DAY);
    static const char *const unknown[] = {"zorder", "bucket", "bucket[]", "bucket[x]",
                                          "bucket[16] ", "bucket[-1]", "truncate[1]]", "",
                                          "days", "bucket[16,2]"};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        assert_int_equal(ice_transform_parse(unknown[i], &t, NULL), SQE_OK);
        assert_int_equal(t.kind, ICE_T_UNKNOWN);
    }
    sqe_error err;
    assert_int_equal(ice_transform_parse("bucket[0]", &t, &err), SQE_ERR_INVALID_ARGUMENTS);
    assert_int_equal(t.kind, ICE_T_UNKNOWN);
    assert_int_equal(ice_transform_parse("truncate[2147483648]", &t, &err),
                     SQE_ERR_INVALID_ARGUMENTS);
    assert_int_equal(ice_transform_parse("truncate[99999999999999999999999]", &t, &err),
                     SQE_ERR_INVALID_ARGUMENTS);
    assert_int_equal(ice_transform_parse(NULL, &t, NULL), SQE_ERR_INVALID_ARGUMENTS);
    char small[4];
    assert_int_equal(ice_transform_format(tr(ICE_T_BUCKET, 16), small, sizeof small), 10);
    assert_string_equal(small, "buc");
    assert_int_equal(ice_transform_format(tr(ICE_T_UNKNOWN, 0), small, sizeof small), 7);
}

static void test_result_types(void **state) {
    (void)state;
    sqe_type out;
    /* bucket */
    static const type_id bucketable[] = {TYPE_TINYINT, TYPE_SMALLINT, TYPE_INTEGER, TYPE_BIGINT,
                                         TYPE_DECIMAL, TYPE_VARCHAR, TYPE_CHAR, TYPE_VARBINARY,
                                         TYPE_DATE, TYPE_TIME, TYPE_TIMESTAMP,
                                         TYPE_TIMESTAMP_TZ, TYPE_UUID};
    for (size_t i = 0; i < sizeof bucketable / sizeof bucketable[0]; i++) {
        sqe_type s = bucketable[i] == TYPE_DECIMAL ? type_decimal(10, 2) : type_make(bucketable[i]);
        assert_true(ice_transform_result_type(tr(ICE_T_BUCKET, 4), s, &out));
        assert_int_equal(out.id, TYPE_INTEGER);
        assert_true(ice_transform_result_type(tr(ICE_T_IDENTITY, 0), s, &out));
        assert_true(type_equal(out, s));
        assert_true(ice_transform_result_type(tr(ICE_T_VOID, 0), s, &out));
        assert_true(type_equal(out, s));
    }
    assert_false(ice_transform_result_type(tr(ICE_T_BUCKET, 4), type_make(TYPE_DOUBLE), &out));
    assert_false(ice_transform_result_type(tr(ICE_T_BUCKET, 4), type_make(TYPE_REAL), &out));
    assert_false(ice_transform_result_type(tr(ICE_T_BUCKET, 4), type_make(TYPE_BOOLEAN), &out));
    assert_false(ice_transform_result_type(tr(ICE_T_BUCKET, 0), T_INT, &out));
    assert_true(ice_transform_result_type(tr(ICE_T_IDENTITY, 0), type_make(TYPE_DOUBLE), &out));
    assert_false(ice_transform_result_type(tr(ICE_T_IDENTITY, 0), type_make(TYPE_JSON), &out));
    assert_false(ice_transform_result_type(tr(ICE_T_IDENTITY, 0), type_array(T_INT), &out));
    assert_false(ice_transform_result_type(tr(ICE_T_IDENTITY, 0),
                                           type_make(TYPE_INTERVAL_DS), &out));
    /* truncate */
    assert_true(ice_transform_result_type(tr(ICE_T_TRUNCATE, 3), type_decimal(30, 4), &out));
    assert_true(type_equal(out, type_decimal(30, 4)));
    assert_true(ice_transform_result_type(tr(ICE_T_TRUNCATE, 3), T_STR, &out));
    assert_true(ice_transform_result_type(tr(ICE_T_TRUNCATE, 3), T_BIN, &out));
    assert_false(ice_transform_result_type(tr(ICE_T_TRUNCATE, 3), T_DATE, &out));
    assert_false(ice_transform_result_type(tr(ICE_T_TRUNCATE, 3), t_ts(), &out));
    assert_false(ice_transform_result_type(tr(ICE_T_TRUNCATE, 3), type_make(TYPE_UUID), &out));
    assert_false(ice_transform_result_type(tr(ICE_T_TRUNCATE, 3), type_make(TYPE_DOUBLE), &out));
    /* time parts */
    ice_transform_kind parts[] = {ICE_T_YEAR, ICE_T_MONTH, ICE_T_DAY, ICE_T_HOUR};
    for (int i = 0; i < 4; i++) {
        bool date_ok = parts[i] != ICE_T_HOUR;
        assert_int_equal(ice_transform_result_type(tr(parts[i], 0), T_DATE, &out), date_ok);
        assert_true(ice_transform_result_type(tr(parts[i], 0), t_ts(), &out));
        assert_int_equal(out.id, parts[i] == ICE_T_DAY ? TYPE_DATE : TYPE_INTEGER);
        assert_true(ice_transform_result_type(tr(parts[i], 0), t_tstz(), &out));
        assert_false(ice_transform_result_type(tr(parts[i], 0), t_time(), &out));
        assert_false(ice_transform_result_type(tr(parts[i], 0), T_LONG, &out));
    }
    assert_false(ice_transform_result_type(tr(ICE_T_UNKNOWN, 0), T_INT, &out));
}

/* ---- apply -------------------------------------------------------------------------------- */

static void test_truncate_numbers(void **state) {
    (void)state;
    static const int64_t xs[] = {0, 1, -1, 9, 10, -10, -11, 11, 5, -5, 2147483647};
    static const int64_t want10[] = {0, 0, -10, 0, 10, -10, -20, 10, 0, -10, 2147483640};
    vec *out = apply(tr(ICE_T_TRUNCATE, 10), ints(T_INT, 11, xs), 11);
    for (int i = 0; i < 11; i++) assert_int_equal(get_int(out, i), want10[i]);
    out = apply(tr(ICE_T_TRUNCATE, 10), ints(T_LONG, 11, xs), 11);
    for (int i = 0; i < 11; i++) assert_int_equal(get_int(out, i), want10[i]);
    out = apply(tr(ICE_T_TRUNCATE, 1), ints(T_LONG, 11, xs), 11);
    for (int i = 0; i < 11; i++) assert_int_equal(get_int(out, i), xs[i]);
    /* Large widths do not overflow the remainder arithmetic. */
    int64_t big[] = {-5, 2147483646, -2147483647};
    out = apply(tr(ICE_T_TRUNCATE, INT32_MAX), ints(T_INT, 3, big), 3);
    assert_int_equal(get_int(out, 0), -2147483647);
    assert_int_equal(get_int(out, 1), 0);
    assert_int_equal(get_int(out, 2), -2147483647);
    int64_t lmin[] = {INT64_MIN + 5};
    out = apply(tr(ICE_T_TRUNCATE, 3), ints(T_LONG, 1, lmin), 1);
    assert_true(get_int(out, 0) <= INT64_MIN + 5 && get_int(out, 0) > INT64_MIN + 5 - 3);
    /* decimal: W=50, s=2: 10.65 -> 10.50 (spec example); -0.05 -> -0.50 */
    int64_t ds[] = {1065, -5, 0, 1050, 1049};
    out = apply(tr(ICE_T_TRUNCATE, 50), ints(type_decimal(9, 2), 5, ds), 5);
    assert_int_equal(get_int(out, 0), 1050);
    assert_int_equal(get_int(out, 1), -50);
    assert_int_equal(get_int(out, 2), 0);
    assert_int_equal(get_int(out, 3), 1050);
    assert_int_equal(get_int(out, 4), 1000);
    vec *dl = new_vec(type_decimal(38, 0), 1);
    put_int(dl, 0, -(decimal_pow10(37)) - 3);
    out = apply(tr(ICE_T_TRUNCATE, 10), dl, 1);
    assert_true(get_int(out, 0) == -(decimal_pow10(37)) - 10);
    /* A result beyond the type is an error, not a wrapped value. */
    sqe_error err;
    vec *o = new_vec(T_INT, 1);
    int64_t imin[] = {INT32_MIN};
    assert_int_equal(ice_transform_apply(tr(ICE_T_TRUNCATE, 10), ints(T_INT, 1, imin), 1, o,
                                         &err),
                     SQE_ERR_NUMERIC_VALUE_OUT_OF_RANGE);
    vec *d3 = new_vec(type_decimal(3, 0), 1);
    put_int(d3, 0, -999);
    o = new_vec(type_decimal(3, 0), 1);
    assert_int_equal(ice_transform_apply(tr(ICE_T_TRUNCATE, 10), d3, 1, o, &err),
                     SQE_ERR_NUMERIC_VALUE_OUT_OF_RANGE);
    int64_t tiny[] = {-128, 127, -3};
    out = apply(tr(ICE_T_TRUNCATE, 2), ints(type_make(TYPE_TINYINT), 3, tiny), 3);
    assert_int_equal(get_int(out, 0), -128);
    assert_int_equal(get_int(out, 1), 126);
    assert_int_equal(get_int(out, 2), -4);
}

static void assert_str_at(const vec *v, uint32_t row, const char *want, uint32_t len) {
    assert_true(vec_is_valid_flat(v, row));
    const sqe_str *s = &VEC_DATA(v, sqe_str)[row];
    assert_int_equal(s->len, len);
    assert_memory_equal(sqe_str_data(s), want, len);
}

static void test_truncate_strings(void **state) {
    (void)state;
    static const char *const xs[] = {
        "iceberg", "ic", "", "h\xc3\xa9llo w\xc3\xb6rld, long enough", "\xf0\x9f\x98\x80\xf0\x9f\x98\x81xyz",
        "\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac", "abc\x80\x80\x80\x80\x80\x80z",
        "a very long string that is not inline"};
    vec *in = strs(T_STR, 8, xs);
    vec *out = apply(tr(ICE_T_TRUNCATE, 3), in, 8);
    assert_str_at(out, 0, "ice", 3);
    assert_str_at(out, 1, "ic", 2);
    assert_str_at(out, 2, "", 0);
    assert_str_at(out, 3, "h\xc3\xa9l", 4);
    assert_str_at(out, 4, "\xf0\x9f\x98\x80\xf0\x9f\x98\x81x", 9);
    assert_str_at(out, 5, "\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac", 9);
    /* malformed: a run of continuation bytes belongs to the code point before, 4 bytes max */
    assert_str_at(out, 6, "abc\x80\x80\x80", 6);
    assert_str_at(out, 7, "a v", 3);
    out = apply(tr(ICE_T_TRUNCATE, 20), in, 8);
    assert_str_at(out, 7, "a very long string t", 20);
    assert_str_at(out, 3, "h\xc3\xa9llo w\xc3\xb6rld, long en", 22);
    /* the output owns its bytes: the input can go away */
    vec copy;
    memset(&copy, 0, sizeof copy);
    assert_int_equal(vec_init(&copy, T_STR, 1, NULL, NULL), SQE_OK);
    assert_int_equal(ice_transform_apply(tr(ICE_T_TRUNCATE, 30), in, 8, &copy, NULL), SQE_OK);
    assert_true(sqe_str_data(&VEC_DATA(&copy, sqe_str)[7]) != sqe_str_data(&VEC_DATA(in, sqe_str)[7]));
    vec_destroy(&copy);
    /* binary truncates bytes */
    static const uint8_t b[5] = {1, 2, 3, 4, 5};
    out = apply(tr(ICE_T_TRUNCATE, 3), bin1(b, 5), 1);
    assert_str_at(out, 0, "\x01\x02\x03", 3);
    static const char e[4] = {(char)0xe2, (char)0x82, (char)0xac, 'x'};
    out = apply(tr(ICE_T_TRUNCATE, 2), bin1(e, 4), 1);
    assert_str_at(out, 0, e, 2);
}

static void test_time_parts(void **state) {
    (void)state;
    int64_t ts[] = {0,
                    -1,
                    ts_micros(2017, 11, 16, 22, 31, 8, 0),
                    ts_micros(1969, 1, 1, 0, 0, 0, 0),
                    ts_micros(1968, 12, 31, 23, 59, 59, 999999),
                    ts_micros(1900, 3, 1, 0, 0, 0, 0) - 1,
                    -DT_MICROS_PER_DAY,
                    ts_micros(9999, 12, 31, 23, 59, 59, 999999)};
    struct { int32_t y, m, d, h; } want[] = {
        {0, 0, 0, 0},
        {-1, -1, -1, -1},
        {47, 47 * 12 + 10, 17486, 17486 * 24 + 22},
        {-1, -12, -365, -365 * 24},
        {-2, -13, -366, -366 * 24 + 23},
        {-70, -70 * 12 + 1, dt_days_from_civil(1900, 2, 28), dt_days_from_civil(1900, 2, 28) * 24 + 23},
        {-1, -1, -1, -24},
        {8029, 8029 * 12 + 11, dt_days_from_civil(9999, 12, 31),
         dt_days_from_civil(9999, 12, 31) * 24 + 23},
    };
    sqe_type types[2] = {t_ts(), t_tstz()};
    for (int ti = 0; ti < 2; ti++) {
        vec *in = ints(types[ti], 8, ts);
        vec *y = apply(tr(ICE_T_YEAR, 0), in, 8), *m = apply(tr(ICE_T_MONTH, 0), in, 8);
        vec *d = apply(tr(ICE_T_DAY, 0), in, 8), *h = apply(tr(ICE_T_HOUR, 0), in, 8);
        for (int i = 0; i < 8; i++) {
            assert_int_equal(get_int(y, i), want[i].y);
            assert_int_equal(get_int(m, i), want[i].m);
            assert_int_equal(get_int(d, i), want[i].d);
            assert_int_equal(get_int(h, i), want[i].h);
        }
    }
    int64_t days[] = {0, -1, 17486, -365, -366, dt_days_from_civil(1900, 2, 28)};
    vec *in = ints(T_DATE, 6, days);
    vec *y = apply(tr(ICE_T_YEAR, 0), in, 6), *m = apply(tr(ICE_T_MONTH, 0), in, 6);
    vec *d = apply(tr(ICE_T_DAY, 0), in, 6);
    int32_t wy[] = {0, -1, 47, -1, -2, -70}, wm[] = {0, -1, 574, -12, -13, -70 * 12 + 1};
    for (int i = 0; i < 6; i++) {
        assert_int_equal(get_int(y, i), wy[i]);
        assert_int_equal(get_int(m, i), wm[i]);
        assert_int_equal(get_int(d, i), days[i]);
    }
    /* Extreme dates and timestamps: years and months fit; hours may not. */
    int64_t ext[] = {INT32_MIN, INT32_MAX};
    y = apply(tr(ICE_T_YEAR, 0), ints(T_DATE, 2, ext), 2);
    assert_true(get_int(y, 0) < -5000000 && get_int(y, 1) > 5000000);
    int64_t lts[] = {INT64_MIN, INT64_MAX};
    m = apply(tr(ICE_T_MONTH, 0), ints(t_ts(), 2, lts), 2);
    assert_true(get_int(m, 0) < 0 && get_int(m, 1) > 0);
    sqe_error err;
    vec *o = new_vec(T_INT, 2);
    assert_int_equal(ice_transform_apply(tr(ICE_T_HOUR, 0), ints(t_ts(), 2, lts), 2, o, &err),
                     SQE_ERR_NUMERIC_VALUE_OUT_OF_RANGE);
}

static void test_bucket_apply(void **state) {
    (void)state;
    int64_t xs[] = {34, -1, 0, INT32_MIN, INT32_MAX};
    vec *in = ints(T_INT, 5, xs);
    vec *out = apply(tr(ICE_T_BUCKET, 16), in, 5);
    for (int i = 0; i < 5; i++)
        assert_int_equal(get_int(out, i), ice_bucket_from_hash(ice_hash_long(xs[i]), 16));
    assert_int_equal(get_int(out, 0), (2017239379 & INT32_MAX) % 16);
    /* int and long agree (promotion keeps buckets) */
    vec *outl = apply(tr(ICE_T_BUCKET, 16), ints(T_LONG, 5, xs), 5);
    for (int i = 0; i < 5; i++) assert_int_equal(get_int(out, i), get_int(outl, i));
    out = apply(tr(ICE_T_BUCKET, 1), in, 5);
    for (int i = 0; i < 5; i++) assert_int_equal(get_int(out, i), 0);
    out = apply(tr(ICE_T_BUCKET, INT32_MAX), in, 5);
    for (int i = 0; i < 5; i++) assert_true(get_int(out, i) >= 0);
    /* negative hashes: the sign bit is dropped, not the absolute value */
    out = apply(tr(ICE_T_BUCKET, 100), str1(T_STR, "iceberg"), 1);
    assert_int_equal(get_int(out, 0), (1210000089 & INT32_MAX) % 100);
    static const uint8_t b[4] = {0, 1, 2, 3};
    out = apply(tr(ICE_T_BUCKET, 100), bin1(b, 4), 1);
    assert_int_equal(get_int(out, 0), (int32_t)((uint32_t)-188683207 & 0x7fffffffu) % 100);
    out = apply(tr(ICE_T_BUCKET, 7), int1(type_decimal(30, 2), 1420), 1);
    assert_int_equal(get_int(out, 0), (int32_t)((uint32_t)-500754589 & 0x7fffffffu) % 7);
}

static void test_nulls_shapes_void_identity(void **state) {
    (void)state;
    int64_t xs[] = {5, 17, -3, 40};
    vec *in = ints(T_INT, 4, xs);
    assert_int_equal(vec_set_null(in, 1), SQE_OK);
    ice_transform all[] = {tr(ICE_T_IDENTITY, 0), tr(ICE_T_BUCKET, 4), tr(ICE_T_TRUNCATE, 4)};
    for (int i = 0; i < 3; i++) {
        vec *out = apply(all[i], in, 4);
        assert_true(vec_is_null(out, 1));
        assert_false(vec_is_null(out, 0));
        assert_false(vec_is_null(out, 3));
    }
    vec *out = apply(tr(ICE_T_VOID, 0), in, 4);
    for (int i = 0; i < 4; i++) assert_true(vec_is_null(out, i));
    out = apply(tr(ICE_T_IDENTITY, 0), in, 4);
    assert_int_equal(get_int(out, 3), 40);
    /* identity copies strings into the output */
    static const char *const ss[] = {"short", "a string longer than twelve bytes"};
    out = apply(tr(ICE_T_IDENTITY, 0), strs(T_STR, 2, ss), 2);
    assert_str_at(out, 1, ss[1], (uint32_t)strlen(ss[1]));
    /* dictionary view and constant */
    uint32_t sel[3] = {3, 1, 0};
    vec *dict = new_vec(T_INT, 3);
    vec_set_dict(dict, in, sel);
    out = apply(tr(ICE_T_TRUNCATE, 10), dict, 3);
    assert_int_equal(get_int(out, 0), 40);
    assert_true(vec_is_null(out, 1));
    assert_int_equal(get_int(out, 2), 0);
    vec *c = new_vec(T_INT, 1);
    assert_int_equal(vec_set_const_from(c, in, 2, NULL), SQE_OK);
    out = apply(tr(ICE_T_TRUNCATE, 10), c, 5);
    for (int i = 0; i < 5; i++) assert_int_equal(get_int(out, i), -10);
    vec *cn = new_vec(T_INT, 1);
    vec_set_const_null(cn);
    out = apply(tr(ICE_T_BUCKET, 10), cn, 3);
    for (int i = 0; i < 3; i++) assert_true(vec_is_null(out, i));
    /* reuse of an output vector with a previous NULL: rows are valid again */
    vec *o = new_vec(T_INT, 1);
    assert_int_equal(ice_transform_apply(tr(ICE_T_BUCKET, 4), in, 4, o, NULL), SQE_OK);
    int64_t ys[] = {1, 2, 3, 4};
    assert_int_equal(ice_transform_apply(tr(ICE_T_BUCKET, 4), ints(T_INT, 4, ys), 4, o, NULL),
                     SQE_OK);
    assert_false(vec_is_null(o, 1));
    /* zero rows */
    assert_int_equal(ice_transform_apply(tr(ICE_T_BUCKET, 4), in, 0, o, NULL), SQE_OK);
    /* errors */
    sqe_error err;
    assert_int_equal(ice_transform_apply(tr(ICE_T_BUCKET, 4), dbl1(type_make(TYPE_DOUBLE), 1),
                                         1, o, &err),
                     SQE_ERR_NOT_SUPPORTED);
    assert_non_null(strstr(err.message, "bucket[4]"));
    assert_int_equal(ice_transform_apply(tr(ICE_T_UNKNOWN, 0), in, 1, o, &err),
                     SQE_ERR_NOT_SUPPORTED);
    vec *wrong = new_vec(T_LONG, 1);
    assert_int_equal(ice_transform_apply(tr(ICE_T_BUCKET, 4), in, 4, wrong, &err),
                     SQE_ERR_TYPE_MISMATCH);
    vec *wrongdec = new_vec(type_decimal(10, 3), 1);
    assert_int_equal(ice_transform_apply(tr(ICE_T_TRUNCATE, 4), int1(type_decimal(10, 2), 5),
                                         1, wrongdec, &err),
                     SQE_ERR_TYPE_MISMATCH);
}

/* ---- projection --------------------------------------------------------------------------- */

static ice_partition_pred project(ice_transform t, sqe_type src, ice_pred_op op, const vec *c,
                                  uint32_t n) {
    ice_partition_pred p;
    sqe_error err;
    int rc = ice_project_predicate(t, src, op, c, n, &p, &err);
    if (rc != SQE_OK) fail_msg("project failed: %s", err.message);
    return p;
}

static void assert_pred_ints(const ice_partition_pred *p, ice_pred_op op, uint32_t n,
                             const int64_t *want) {
    assert_int_equal(p->op, op);
    assert_int_equal(p->n_values, n);
    for (uint32_t i = 0; i < n; i++) assert_true(get_int(&p->values, i) == want[i]);
}

static void test_project_rules(void **state) {
    (void)state;
    ice_partition_pred p;
    /* identity keeps everything */
    p = project(tr(ICE_T_IDENTITY, 0), T_INT, ICE_PRED_LT, int1(T_INT, 7), 1);
    assert_pred_ints(&p, ICE_PRED_LT, 1, (int64_t[]){7});
    ice_partition_pred_destroy(&p);
    int64_t in3[] = {3, 1, 2};
    p = project(tr(ICE_T_IDENTITY, 0), T_INT, ICE_PRED_IN, ints(T_INT, 3, in3), 3);
    assert_pred_ints(&p, ICE_PRED_IN, 3, in3);
    ice_partition_pred_destroy(&p);
    /* bucket: EQ / IN only */
    p = project(tr(ICE_T_BUCKET, 16), T_INT, ICE_PRED_EQ, int1(T_INT, 34), 1);
    assert_pred_ints(&p, ICE_PRED_EQ, 1, (int64_t[]){(2017239379 & INT32_MAX) % 16});
    ice_partition_pred_destroy(&p);
    p = project(tr(ICE_T_BUCKET, 16), T_INT, ICE_PRED_GT, int1(T_INT, 34), 1);
    assert_int_equal(p.op, ICE_PRED_TRUE);
    p = project(tr(ICE_T_BUCKET, 16), T_STR, ICE_PRED_IN, str1(T_STR, "iceberg"), 1);
    assert_pred_ints(&p, ICE_PRED_IN, 1, (int64_t[]){(1210000089 & INT32_MAX) % 16});
    ice_partition_pred_destroy(&p);
    p = project(tr(ICE_T_BUCKET, 16), T_STR, ICE_PRED_IS_NULL, NULL, 0);
    assert_int_equal(p.op, ICE_PRED_IS_NULL);
    ice_partition_pred_destroy(&p);
    /* truncate numbers: boundaries move by one before truncating */
    p = project(tr(ICE_T_TRUNCATE, 10), T_INT, ICE_PRED_LT, int1(T_INT, 10), 1);
    assert_pred_ints(&p, ICE_PRED_LE, 1, (int64_t[]){0});
    ice_partition_pred_destroy(&p);
    p = project(tr(ICE_T_TRUNCATE, 10), T_INT, ICE_PRED_LE, int1(T_INT, 10), 1);
    assert_pred_ints(&p, ICE_PRED_LE, 1, (int64_t[]){10});
    ice_partition_pred_destroy(&p);
    p = project(tr(ICE_T_TRUNCATE, 10), T_INT, ICE_PRED_GT, int1(T_INT, 9), 1);
    assert_pred_ints(&p, ICE_PRED_GE, 1, (int64_t[]){10});
    ice_partition_pred_destroy(&p);
    p = project(tr(ICE_T_TRUNCATE, 10), T_INT, ICE_PRED_GE, int1(T_INT, -1), 1);
    assert_pred_ints(&p, ICE_PRED_GE, 1, (int64_t[]){-10});
    ice_partition_pred_destroy(&p);
    p = project(tr(ICE_T_TRUNCATE, 50), type_decimal(9, 2), ICE_PRED_EQ,
                int1(type_decimal(9, 2), 1065), 1);
    assert_pred_ints(&p, ICE_PRED_EQ, 1, (int64_t[]){1050});
    ice_partition_pred_destroy(&p);
    /* boundaries at the type's edge give up rather than wrap */
    p = project(tr(ICE_T_TRUNCATE, 10), T_INT, ICE_PRED_LT, int1(T_INT, INT32_MIN), 1);
    assert_int_equal(p.op, ICE_PRED_TRUE);
    p = project(tr(ICE_T_TRUNCATE, 10), T_INT, ICE_PRED_GT, int1(T_INT, INT32_MAX), 1);
    assert_int_equal(p.op, ICE_PRED_TRUE);
    p = project(tr(ICE_T_TRUNCATE, 10), T_INT, ICE_PRED_EQ, int1(T_INT, INT32_MIN + 1), 1);
    assert_int_equal(p.op, ICE_PRED_TRUE);
    /* truncate strings: no boundary move */
    p = project(tr(ICE_T_TRUNCATE, 3), T_STR, ICE_PRED_LT, str1(T_STR, "iceberg"), 1);
    assert_int_equal(p.op, ICE_PRED_LE);
    assert_str_at(&p.values, 0, "ice", 3);
    ice_partition_pred_destroy(&p);
    p = project(tr(ICE_T_TRUNCATE, 3), T_STR, ICE_PRED_GT, str1(T_STR, "iceberg"), 1);
    assert_int_equal(p.op, ICE_PRED_GE);
    ice_partition_pred_destroy(&p);
    /* time parts: x < c is p <= f(c - 1 unit) */
    int64_t jan1 = ts_micros(2020, 1, 1, 0, 0, 0, 0);
    p = project(tr(ICE_T_YEAR, 0), t_ts(), ICE_PRED_LT, int1(t_ts(), jan1), 1);
    assert_pred_ints(&p, ICE_PRED_LE, 1, (int64_t[]){49});
    ice_partition_pred_destroy(&p);
    p = project(tr(ICE_T_DAY, 0), t_ts(), ICE_PRED_GT, int1(t_ts(), jan1 - 1), 1);
    assert_pred_ints(&p, ICE_PRED_GE, 1, (int64_t[]){dt_days_from_civil(2020, 1, 1)});
    assert_int_equal(p.type.id, TYPE_DATE);
    ice_partition_pred_destroy(&p);
    p = project(tr(ICE_T_MONTH, 0), T_DATE, ICE_PRED_LT, int1(T_DATE, dt_days_from_civil(2020, 3, 1)), 1);
    assert_pred_ints(&p, ICE_PRED_LE, 1, (int64_t[]){50 * 12 + 1});
    ice_partition_pred_destroy(&p);
    /* pre-1970: widened by one for older writers */
    p = project(tr(ICE_T_HOUR, 0), t_ts(), ICE_PRED_EQ, int1(t_ts(), -1), 1);
    assert_pred_ints(&p, ICE_PRED_IN, 2, (int64_t[]){-1, 0});
    ice_partition_pred_destroy(&p);
    p = project(tr(ICE_T_YEAR, 0), t_ts(), ICE_PRED_LE, int1(t_ts(), ts_micros(1960, 5, 1, 0, 0, 0, 0)), 1);
    assert_pred_ints(&p, ICE_PRED_LE, 1, (int64_t[]){-9});
    ice_partition_pred_destroy(&p);
    p = project(tr(ICE_T_YEAR, 0), t_ts(), ICE_PRED_GE, int1(t_ts(), ts_micros(1960, 5, 1, 0, 0, 0, 0)), 1);
    assert_pred_ints(&p, ICE_PRED_GE, 1, (int64_t[]){-10});
    ice_partition_pred_destroy(&p);
    p = project(tr(ICE_T_DAY, 0), T_DATE, ICE_PRED_EQ, int1(T_DATE, -5), 1);
    assert_pred_ints(&p, ICE_PRED_EQ, 1, (int64_t[]){-5}); /* day(date) is exact */
    ice_partition_pred_destroy(&p);
    int64_t pre[] = {-1, 5 * DT_MICROS_PER_DAY};
    p = project(tr(ICE_T_DAY, 0), t_tstz(), ICE_PRED_IN, ints(t_tstz(), 2, pre), 2);
    assert_pred_ints(&p, ICE_PRED_IN, 3, (int64_t[]){-1, 5, 0});
    ice_partition_pred_destroy(&p);
    /* void and unknown never prune; IN () never matches */
    p = project(tr(ICE_T_VOID, 0), T_INT, ICE_PRED_EQ, int1(T_INT, 1), 1);
    assert_int_equal(p.op, ICE_PRED_TRUE);
    p = project(tr(ICE_T_VOID, 0), T_INT, ICE_PRED_IS_NULL, NULL, 0);
    assert_int_equal(p.op, ICE_PRED_TRUE);
    p = project(tr(ICE_T_UNKNOWN, 0), T_INT, ICE_PRED_EQ, int1(T_INT, 1), 1);
    assert_int_equal(p.op, ICE_PRED_TRUE);
    p = project(tr(ICE_T_IDENTITY, 0), T_INT, ICE_PRED_IN, int1(T_INT, 1), 0);
    assert_int_equal(p.op, ICE_PRED_FALSE);
    /* mismatched constants, NaN, NULL constants: no projection */
    p = project(tr(ICE_T_IDENTITY, 0), T_INT, ICE_PRED_EQ, int1(T_LONG, 1), 1);
    assert_int_equal(p.op, ICE_PRED_TRUE);
    p = project(tr(ICE_T_TRUNCATE, 5), type_decimal(9, 2), ICE_PRED_EQ,
                int1(type_decimal(9, 3), 1), 1);
    assert_int_equal(p.op, ICE_PRED_TRUE);
    p = project(tr(ICE_T_IDENTITY, 0), type_make(TYPE_DOUBLE), ICE_PRED_EQ,
                dbl1(type_make(TYPE_DOUBLE), __builtin_nan("")), 1);
    assert_int_equal(p.op, ICE_PRED_TRUE);
    vec *nul = new_vec(T_INT, 1);
    vec_set_const_null(nul);
    p = project(tr(ICE_T_IDENTITY, 0), T_INT, ICE_PRED_EQ, nul, 1);
    assert_int_equal(p.op, ICE_PRED_TRUE);
    p = project(tr(ICE_T_YEAR, 0), t_time(), ICE_PRED_EQ, int1(t_time(), 1), 1);
    assert_int_equal(p.op, ICE_PRED_TRUE);
    p = project(tr(ICE_T_IDENTITY, 0), T_INT, (ice_pred_op)99, int1(T_INT, 1), 1);
    assert_int_equal(p.op, ICE_PRED_TRUE);
    ice_partition_pred_destroy(&p);
    ice_partition_pred_destroy(&p);
}

static void test_eval(void **state) {
    (void)state;
    ice_partition_pred p = project(tr(ICE_T_TRUNCATE, 10), T_INT, ICE_PRED_LT, int1(T_INT, 25), 1);
    int64_t parts[] = {10, 20, 30};
    vec *pv = ints(T_INT, 3, parts);
    assert_int_equal(vec_set_null(pv, 2), SQE_OK);
    assert_true(ice_partition_pred_eval(&p, pv, 0));
    assert_true(ice_partition_pred_eval(&p, pv, 1));
    assert_false(ice_partition_pred_eval(&p, pv, 2)); /* NULL partition: all NULL */
    assert_false(ice_partition_pred_eval(&p, int1(T_INT, 30), 0));
    assert_true(ice_partition_pred_eval(&p, int1(T_LONG, 20), 0));  /* widths compare */
    assert_true(ice_partition_pred_eval(&p, str1(T_STR, "x"), 0));  /* wrong type: may match */
    ice_partition_pred_destroy(&p);
    p = project(tr(ICE_T_IDENTITY, 0), T_INT, ICE_PRED_IS_NULL, NULL, 0);
    assert_false(ice_partition_pred_eval(&p, pv, 0));
    assert_true(ice_partition_pred_eval(&p, pv, 2));
    p = project(tr(ICE_T_IDENTITY, 0), T_INT, ICE_PRED_NOT_NULL, NULL, 0);
    assert_true(ice_partition_pred_eval(&p, pv, 0));
    assert_false(ice_partition_pred_eval(&p, pv, 2));
    /* day partitions typed INTEGER by a reader still compare with DATE constants */
    p = project(tr(ICE_T_DAY, 0), t_ts(), ICE_PRED_EQ, int1(t_ts(), 3 * DT_MICROS_PER_DAY + 5), 1);
    assert_true(ice_partition_pred_eval(&p, int1(T_INT, 3), 0));
    assert_false(ice_partition_pred_eval(&p, int1(T_INT, 4), 0));
    assert_false(ice_partition_pred_eval(&p, int1(T_DATE, 4), 0));
    ice_partition_pred_destroy(&p);
    /* strings */
    static const char *const in[] = {"apple", "banana"};
    p = project(tr(ICE_T_TRUNCATE, 2), T_STR, ICE_PRED_IN, strs(T_STR, 2, in), 2);
    assert_true(ice_partition_pred_eval(&p, str1(T_STR, "ap"), 0));
    assert_true(ice_partition_pred_eval(&p, str1(T_STR, "ba"), 0));
    assert_false(ice_partition_pred_eval(&p, str1(T_STR, "ch"), 0));
    assert_false(ice_partition_pred_eval(&p, str1(T_STR, "a"), 0));
    ice_partition_pred_destroy(&p);
    p = project(tr(ICE_T_IDENTITY, 0), T_STR, ICE_PRED_GE, str1(T_STR, "\xc3\xa9"), 1);
    assert_true(ice_partition_pred_eval(&p, str1(T_STR, "\xf0\x9f\x98\x80"), 0));
    assert_false(ice_partition_pred_eval(&p, str1(T_STR, "z"), 0));
    ice_partition_pred_destroy(&p);
    /* floats: -0.0 equals 0.0, NaN partitions may match */
    sqe_type d = type_make(TYPE_DOUBLE);
    p = project(tr(ICE_T_IDENTITY, 0), d, ICE_PRED_EQ, dbl1(d, 0.0), 1);
    assert_true(ice_partition_pred_eval(&p, dbl1(d, -0.0), 0));
    assert_false(ice_partition_pred_eval(&p, dbl1(d, 1.0), 0));
    assert_true(ice_partition_pred_eval(&p, dbl1(d, __builtin_nan("")), 0));
    ice_partition_pred_destroy(&p);
    /* uuid identity */
    uint8_t u1[16] = {0x80}, u2[16] = {0x01};
    p = project(tr(ICE_T_IDENTITY, 0), type_make(TYPE_UUID), ICE_PRED_GT, uuid1(u2), 1);
    assert_true(ice_partition_pred_eval(&p, uuid1(u1), 0));
    assert_false(ice_partition_pred_eval(&p, uuid1(u2), 0));
    ice_partition_pred_destroy(&p);
    /* timestamp with time zone: the instant counts, not the zone */
    p = project(tr(ICE_T_IDENTITY, 0), t_tstz(), ICE_PRED_EQ, int1(t_tstz(), 77), 1);
    vec *z = int1(t_tstz(), 77);
    VEC_DATA(z, sqe_timestamp_tz)[0].zone = 3;
    assert_true(ice_partition_pred_eval(&p, z, 0));
    ice_partition_pred_destroy(&p);
    /* TRUE / FALSE */
    p = project(tr(ICE_T_VOID, 0), T_INT, ICE_PRED_EQ, int1(T_INT, 1), 1);
    assert_true(ice_partition_pred_eval(&p, pv, 2));
    p = project(tr(ICE_T_IDENTITY, 0), T_INT, ICE_PRED_IN, int1(T_INT, 1), 0);
    assert_false(ice_partition_pred_eval(&p, pv, 0));
}

static ice_value_range range(const vec *lo, const vec *hi, int8_t has_null, int8_t has_nan,
                             int8_t all_null) {
    ice_value_range r = {lo, hi, 0, has_null, has_nan, all_null};
    return r;
}

static void test_eval_range(void **state) {
    (void)state;
    ice_partition_pred p = project(tr(ICE_T_IDENTITY, 0), T_INT, ICE_PRED_EQ, int1(T_INT, 5), 1);
    ice_value_range r = range(int1(T_INT, 1), int1(T_INT, 4), 0, -1, 0);
    assert_false(ice_partition_pred_eval_range(&p, &r));
    r = range(int1(T_INT, 1), int1(T_INT, 5), 0, -1, 0);
    assert_true(ice_partition_pred_eval_range(&p, &r));
    r = range(int1(T_INT, 6), NULL, 0, -1, -1);
    assert_false(ice_partition_pred_eval_range(&p, &r));
    r = range(NULL, int1(T_INT, 6), 0, -1, -1);
    assert_true(ice_partition_pred_eval_range(&p, &r));
    r = range(NULL, NULL, -1, -1, -1);
    assert_true(ice_partition_pred_eval_range(&p, &r));
    r = range(NULL, NULL, 1, -1, -1); /* summary of an all-NULL partition field */
    assert_false(ice_partition_pred_eval_range(&p, &r));
    r = range(int1(T_INT, 1), int1(T_INT, 9), 1, 0, 1); /* metrics: all values NULL */
    assert_false(ice_partition_pred_eval_range(&p, &r));
    r = range(int1(T_INT, 9), int1(T_INT, 1), 0, 0, 0); /* inverted bounds are not trusted */
    assert_true(ice_partition_pred_eval_range(&p, &r));
    r = range(int1(T_LONG, 1), int1(T_LONG, 4), 0, 0, 0); /* long bounds of an int field */
    assert_false(ice_partition_pred_eval_range(&p, &r));
    r = range(str1(T_STR, "a"), str1(T_STR, "b"), 0, 0, 0); /* wrong type */
    assert_true(ice_partition_pred_eval_range(&p, &r));
    ice_partition_pred_destroy(&p);
    /* comparisons */
    struct { ice_pred_op op; int c; bool want; } cases[] = {
        {ICE_PRED_LT, 10, false}, {ICE_PRED_LT, 11, true}, {ICE_PRED_LE, 10, true},
        {ICE_PRED_LE, 9, false},  {ICE_PRED_GT, 20, false}, {ICE_PRED_GT, 19, true},
        {ICE_PRED_GE, 20, true},  {ICE_PRED_GE, 21, false}, {ICE_PRED_EQ, 15, true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        p = project(tr(ICE_T_IDENTITY, 0), T_INT, cases[i].op, int1(T_INT, cases[i].c), 1);
        r = range(int1(T_INT, 10), int1(T_INT, 20), 0, 0, 0);
        assert_int_equal(ice_partition_pred_eval_range(&p, &r), cases[i].want);
        ice_partition_pred_destroy(&p);
    }
    int64_t in[] = {1, 25, 30};
    p = project(tr(ICE_T_IDENTITY, 0), T_INT, ICE_PRED_IN, ints(T_INT, 3, in), 3);
    r = range(int1(T_INT, 10), int1(T_INT, 20), 0, 0, 0);
    assert_false(ice_partition_pred_eval_range(&p, &r));
    r = range(int1(T_INT, 10), int1(T_INT, 25), 0, 0, 0);
    assert_true(ice_partition_pred_eval_range(&p, &r));
    ice_partition_pred_destroy(&p);
    /* null tests */
    p = project(tr(ICE_T_BUCKET, 8), T_INT, ICE_PRED_IS_NULL, NULL, 0);
    r = range(int1(T_INT, 1), int1(T_INT, 2), 0, 0, 0);
    assert_false(ice_partition_pred_eval_range(&p, &r));
    r.has_null = -1;
    assert_true(ice_partition_pred_eval_range(&p, &r));
    p = project(tr(ICE_T_BUCKET, 8), T_INT, ICE_PRED_NOT_NULL, NULL, 0);
    r = range(NULL, NULL, 1, 0, 1);
    assert_false(ice_partition_pred_eval_range(&p, &r));
    r.all_null = -1;
    assert_true(ice_partition_pred_eval_range(&p, &r));
    /* floats: NaN possible -> no pruning; all-null inference needs has_nan == 0 */
    sqe_type d = type_make(TYPE_DOUBLE);
    p = project(tr(ICE_T_IDENTITY, 0), d, ICE_PRED_GT, dbl1(d, 5.0), 1);
    r = range(dbl1(d, 1.0), dbl1(d, 2.0), 0, 1, 0);
    assert_true(ice_partition_pred_eval_range(&p, &r));
    r.has_nan = 0;
    assert_false(ice_partition_pred_eval_range(&p, &r));
    r = range(NULL, NULL, 1, -1, -1);
    assert_true(ice_partition_pred_eval_range(&p, &r));
    r = range(dbl1(d, 1.0), dbl1(d, __builtin_nan("")), 0, 0, 0);
    assert_true(ice_partition_pred_eval_range(&p, &r));
    ice_partition_pred_destroy(&p);
    /* UUID bounds are not trusted */
    uint8_t u1[16] = {0x10}, u2[16] = {0x20}, u3[16] = {0x30};
    p = project(tr(ICE_T_IDENTITY, 0), type_make(TYPE_UUID), ICE_PRED_EQ, uuid1(u3), 1);
    r = range(uuid1(u1), uuid1(u2), 0, 0, 0);
    assert_true(ice_partition_pred_eval_range(&p, &r));
    ice_partition_pred_destroy(&p);
    /* truncated string bounds (metrics) */
    p = project(tr(ICE_T_IDENTITY, 0), T_STR, ICE_PRED_EQ, str1(T_STR, "abcdefgh"), 1);
    r = range(str1(T_STR, "abd"), str1(T_STR, "abz"), 0, 0, 0);
    assert_false(ice_partition_pred_eval_range(&p, &r));
    r = range(str1(T_STR, "abc"), str1(T_STR, "abd"), 0, 0, 0);
    assert_true(ice_partition_pred_eval_range(&p, &r));
    ice_partition_pred_destroy(&p);
}

/* ---- randomized soundness ---------------------------------------------------------------- */

static uint64_t g_rng = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void) {
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return g_rng;
}

/* A random key for type t, clustered so that collisions and edges are frequent. */
static int128 rnd_key(sqe_type t) {
    int64_t small = (int64_t)(rnd() % 2001) - 1000;
    switch ((type_id)t.id) {
    case TYPE_INTEGER: return rnd() % 8 ? small : (int32_t)rnd();
    case TYPE_BIGINT: return rnd() % 8 ? small : (int64_t)rnd();
    case TYPE_DECIMAL: return rnd() % 8 ? small : (int64_t)(rnd() % 1000000000) - 500000000;
    case TYPE_DATE: return rnd() % 4 ? small : (int64_t)(rnd() % 200000) - 100000;
    case TYPE_TIMESTAMP:
    case TYPE_TIMESTAMP_TZ: {
        int64_t unit[] = {1, 1000000, 3600000000LL, 86400000000LL, 86400000000LL * 31};
        return small * unit[rnd() % 5] + (int64_t)(rnd() % 3) - 1;
    }
    default: return small;
    }
}

static bool holds(ice_pred_op op, int c) {
    switch (op) {
    case ICE_PRED_EQ:
    case ICE_PRED_IN: return c == 0;
    case ICE_PRED_LT: return c < 0;
    case ICE_PRED_LE: return c <= 0;
    case ICE_PRED_GT: return c > 0;
    case ICE_PRED_GE: return c >= 0;
    default: return true;
    }
}

static void test_soundness_numeric(void **state) {
    (void)state;
    sqe_type types[] = {T_INT, T_LONG, type_decimal(12, 3), T_DATE, t_ts(), t_tstz()};
    ice_transform trs[] = {tr(ICE_T_IDENTITY, 0), tr(ICE_T_BUCKET, 7), tr(ICE_T_TRUNCATE, 10),
                           tr(ICE_T_TRUNCATE, 3),  tr(ICE_T_YEAR, 0),  tr(ICE_T_MONTH, 0),
                           tr(ICE_T_DAY, 0),       tr(ICE_T_HOUR, 0),  tr(ICE_T_VOID, 0)};
    ice_pred_op ops[] = {ICE_PRED_EQ, ICE_PRED_LT, ICE_PRED_LE, ICE_PRED_GT, ICE_PRED_GE,
                         ICE_PRED_IN};
    long checks = 0;
    for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
        for (size_t xi = 0; xi < sizeof trs / sizeof trs[0]; xi++) {
            sqe_type rt;
            if (!ice_transform_result_type(trs[xi], types[ti], &rt)) continue;
            for (int iter = 0; iter < 300; iter++) {
                /* a "file": 4 values, its partition values and their bounds */
                vec *xs = new_vec(types[ti], 4);
                for (int i = 0; i < 4; i++) put_int(xs, i, rnd_key(types[ti]));
                vec *pv = apply(trs[xi], xs, 4);
                for (size_t oi = 0; oi < sizeof ops / sizeof ops[0]; oi++) {
                    vec *c = new_vec(types[ti], 3);
                    for (int i = 0; i < 3; i++)
                        put_int(c, i, rnd() % 2 ? get_int(xs, (uint32_t)(rnd() % 4)) + (int)(rnd() % 3) - 1
                                                : rnd_key(types[ti]));
                    uint32_t n = ops[oi] == ICE_PRED_IN ? 3 : 1;
                    ice_partition_pred p = project(trs[xi], types[ti], ops[oi], c, n);
                    for (uint32_t row = 0; row < 4; row++) {
                        bool match = false;
                        for (uint32_t k = 0; k < n; k++) {
                            int128 a = get_int(xs, row), b = get_int(c, k);
                            match |= holds(ops[oi], a < b ? -1 : a > b);
                        }
                        if (!match) continue;
                        checks++;
                        if (!ice_partition_pred_eval(&p, pv, row))
                            fail_msg("pruned a match: type %d transform %d op %d row %u",
                                     types[ti].id, trs[xi].kind, ops[oi], row);
                        if (trs[xi].kind == ICE_T_VOID) continue;
                        /* bounds of the partition values of the file */
                        vec *lo = new_vec(rt, 1), *hi = new_vec(rt, 1);
                        int128 mn = get_int(pv, 0), mx = mn;
                        for (uint32_t k = 1; k < 4; k++) {
                            int128 v = get_int(pv, k);
                            mn = v < mn ? v : mn;
                            mx = v > mx ? v : mx;
                        }
                        put_int(lo, 0, mn);
                        put_int(hi, 0, mx);
                        ice_value_range r = range(lo, hi, 0, 0, 0);
                        if (!ice_partition_pred_eval_range(&p, &r))
                            fail_msg("range pruned a match: type %d transform %d op %d",
                                     types[ti].id, trs[xi].kind, ops[oi]);
                    }
                    ice_partition_pred_destroy(&p);
                }
                teardown(NULL);
            }
        }
    }
    assert_true(checks > 10000);
}

static void test_soundness_strings(void **state) {
    (void)state;
    static const char alphabet[][5] = {"a", "b", "z", "\xc3\xa9", "\xe2\x82\xac",
                                       "\xf0\x9f\x98\x80", "\x7f", ""};
    static char pool[4096][24];
    int n_pool = 0;
    ice_transform trs[] = {tr(ICE_T_IDENTITY, 0), tr(ICE_T_TRUNCATE, 1), tr(ICE_T_TRUNCATE, 2),
                           tr(ICE_T_TRUNCATE, 4), tr(ICE_T_BUCKET, 5)};
    ice_pred_op ops[] = {ICE_PRED_EQ, ICE_PRED_LT, ICE_PRED_LE, ICE_PRED_GT, ICE_PRED_GE,
                         ICE_PRED_IN};
    sqe_type types[] = {T_STR, T_BIN};
    long checks = 0;
    for (int iter = 0; iter < 2000; iter++) {
        n_pool = 0;
        const char *xs[7];
        for (int i = 0; i < 7; i++) {
            char *s = pool[n_pool++];
            s[0] = 0;
            int len = (int)(rnd() % 5);
            for (int k = 0; k < len; k++) strcat(s, alphabet[rnd() % 8]);
            xs[i] = s;
        }
        for (size_t ti = 0; ti < 2; ti++) {
            vec *v = strs(types[ti], 4, xs);
            vec *c = strs(types[ti], 3, xs + 4);
            for (size_t xi = 0; xi < sizeof trs / sizeof trs[0]; xi++) {
                vec *pv = apply(trs[xi], v, 4);
                for (size_t oi = 0; oi < sizeof ops / sizeof ops[0]; oi++) {
                    uint32_t n = ops[oi] == ICE_PRED_IN ? 3 : 1;
                    ice_partition_pred p = project(trs[xi], types[ti], ops[oi], c, n);
                    for (uint32_t row = 0; row < 4; row++) {
                        bool match = false;
                        for (uint32_t k = 0; k < n; k++)
                            match |= holds(ops[oi], sqe_str_compare(&VEC_DATA(v, sqe_str)[row],
                                                                    &VEC_DATA(c, sqe_str)[k]));
                        if (!match) continue;
                        checks++;
                        if (!ice_partition_pred_eval(&p, pv, row))
                            fail_msg("pruned a string match: transform %d op %d", trs[xi].kind,
                                     ops[oi]);
                    }
                    ice_partition_pred_destroy(&p);
                }
            }
        }
        teardown(NULL);
    }
    assert_true(checks > 5000);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_murmur3_generic, teardown),
        cmocka_unit_test_teardown(test_spec_hash_vectors, teardown),
        cmocka_unit_test_teardown(test_decimal_bytes, teardown),
        cmocka_unit_test_teardown(test_parse_format, teardown),
        cmocka_unit_test_teardown(test_result_types, teardown),
        cmocka_unit_test_teardown(test_truncate_numbers, teardown),
        cmocka_unit_test_teardown(test_truncate_strings, teardown),
        cmocka_unit_test_teardown(test_time_parts, teardown),
        cmocka_unit_test_teardown(test_bucket_apply, teardown),
        cmocka_unit_test_teardown(test_nulls_shapes_void_identity, teardown),
        cmocka_unit_test_teardown(test_project_rules, teardown),
        cmocka_unit_test_teardown(test_eval, teardown),
        cmocka_unit_test_teardown(test_eval_range, teardown),
        cmocka_unit_test_teardown(test_soundness_numeric, teardown),
        cmocka_unit_test_teardown(test_soundness_strings, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
