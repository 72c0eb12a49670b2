/*
 * test_parquet_prune.c: unit tests of the Parquet pruning building blocks: row-group statistics
 * (src/format/parquet/pq_stats.c), the page index (pq_page_index.c) and bloom filters
 * (pq_bloom.c).
 *
 * Hand-built metadata (pq_file_meta / pq_column_chunk / pq_node structs) covers each type
 * family and each trap of the statistics rules: sort orders (signed, unsigned, byte-wise),
 * new vs deprecated fields, missing column orders, writers with bad statistics (PARQUET-251),
 * NaN and -0.0/+0.0, truncated and inexact bounds, NULL counts, unit conversions (milliseconds,
 * nanoseconds floored), decimals in every physical type, FLOAT16, INT96. Hand-encoded Thrift
 * covers ColumnIndex/OffsetIndex/BloomFilterHeader decoding, including every truncation.
 *
 * Real files: tests/parquet/gen_prune_files.py writes files with pyarrow (page index, pages of
 * 100 rows, bloom filters) and DuckDB (dictionary columns with bloom filters), plus ground truth
 * for ~5000 predicates over them and over the parquet-testing corpus (parquet-mr, parquet-rs,
 * Impala, old parquet-cpp files). For every predicate and row group the tests check that
 * statistics, page index and bloom filter never drop a row group / page holding a matching row,
 * that pruning is exact where the data make it so, and that bloom filters do reject absent
 * values. The generator runs at test time (SQE_PYTHON or <repo>/.cache/venv/bin/python) into a
 * temporary directory, or SQE_PRUNE_DATA names a directory it already filled; the file tests
 * skip when neither works. The corpus comes from SQE_PARQUET_TESTING or
 * ../shared/corpus/parquet-testing.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/arena.h"
#include "common/err.h"
#include "format/parquet/pq_meta.h"
#include "format/parquet/pq_prune.h"
#include "format/parquet/pq_schema.h"
#include "format/parquet/thrift.h"
#include "types/decimal.h"
#include "types/types.h"
#include "vec/vec.h"

/* ---- constants (vectors) and byte pools, freed by the teardown --------------------------- */

#define MAX_VECS 64
static vec g_vecs[MAX_VECS];
static int g_n_vecs;
static uint8_t g_pool[1 << 16];
static size_t g_pool_len;

static int teardown(void **state) {
    (void)state;
    for (int i = 0; i < g_n_vecs; i++) vec_destroy(&g_vecs[i]);
    g_n_vecs = 0;
    g_pool_len = 0;
    return 0;
}

static uint8_t *pool_take(size_t n) {
    assert_true(g_pool_len + n <= sizeof(g_pool));
    uint8_t *p = g_pool + g_pool_len;
    g_pool_len += (n + 15) & ~(size_t)15;
    return p;
}

static vec *new_vec(sqe_type t, uint32_t n) {
    assert_true(g_n_vecs < MAX_VECS);
    vec *v = &g_vecs[g_n_vecs++];
    memset(v, 0, sizeof(*v));
    assert_int_equal(vec_init(v, t, n ? n : 1, NULL, NULL), SQE_OK);
    return v;
}

/* Stores integer-like x (int128) at row of v per v's type. */
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
        t.zone = 7; /* any zone: comparisons use the instant */
        VEC_DATA(v, sqe_timestamp_tz)[row] = t;
        break;
    }
    case TYPE_DECIMAL: decimal_put(v->data, v->type, row, x); break;
    default: fail_msg("put_int on type %d", v->type.id);
    }
}

static const vec *ints(sqe_type t, uint32_t n, const int64_t *xs) {
    vec *v = new_vec(t, n);
    for (uint32_t i = 0; i < n; i++) put_int(v, i, xs[i]);
    return v;
}

static const vec *int1(sqe_type t, int128 x) {
    vec *v = new_vec(t, 1);
    put_int(v, 0, x);
    return v;
}

static const vec *flt1(sqe_type t, double x) {
    vec *v = new_vec(t, 1);
    if (t.id == TYPE_REAL)
        VEC_DATA(v, float)[0] = (float)x;
    else
        VEC_DATA(v, double)[0] = x;
    return v;
}

static const vec *flts(sqe_type t, uint32_t n, const double *xs) {
    vec *v = new_vec(t, n);
    for (uint32_t i = 0; i < n; i++) {
        if (t.id == TYPE_REAL)
            VEC_DATA(v, float)[i] = (float)xs[i];
        else
            VEC_DATA(v, double)[i] = xs[i];
    }
    return v;
}

static const vec *bytes1(sqe_type t, const void *p, uint32_t len) {
    vec *v = new_vec(t, 1);
    uint8_t *copy = pool_take(len ? len : 1);
    if (len) memcpy(copy, p, len);
    if (t.id == TYPE_UUID)
        memcpy(v->data, copy, 16);
    else
        VEC_DATA(v, sqe_str)[0] = sqe_str_make((const char *)copy, len);
    return v;
}

static const vec *str1(const char *s) {
    return bytes1(type_varchar(0), s, (uint32_t)strlen(s));
}

static const uint8_t *le32(int32_t x) {
    uint8_t *p = pool_take(4);
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)((uint32_t)x >> (8 * i));
    return p;
}

static const uint8_t *le64(int64_t x) {
    uint8_t *p = pool_take(8);
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)((uint64_t)x >> (8 * i));
    return p;
}

static const uint8_t *f32b(float x) {
    uint8_t *p = pool_take(4);
    memcpy(p, &x, 4);
    return p;
}

static const uint8_t *f64b(double x) {
    uint8_t *p = pool_take(8);
    memcpy(p, &x, 8);
    return p;
}

/* ---- hand-built column chunks -------------------------------------------------------------- */

static int32_t g_type_order[1] = {PQ_ORDER_TYPE_DEFINED};
static int32_t g_unknown_order[1] = {PQ_ORDER_UNKNOWN};

typedef struct fx {
    pq_schema_element el;
    pq_node leaf;
    pq_file_meta meta;
    pq_column_chunk cc;
} fx;

/* An optional top-level leaf of the given physical type and conversion in a file written by a
 * current pyarrow (column_orders TYPE_ORDER), with an empty Statistics of 100 values. */
static void fx_init(fx *f, int32_t physical, pq_conv conv, sqe_type type) {
    memset(f, 0, sizeof(*f));
    f->el.name = (char *)"c";
    f->el.has_type = true;
    f->el.type = physical;
    f->el.has_repetition = true;
    f->el.repetition_type = PQ_REP_OPTIONAL;
    f->leaf.kind = PQ_NODE_LEAF;
    f->leaf.name = "c";
    f->leaf.type = type;
    f->leaf.nullable = true;
    f->leaf.def = 1;
    f->leaf.max_def = 1;
    f->leaf.element = &f->el;
    f->leaf.physical = physical;
    f->leaf.conv = conv;
    f->meta.version = 1;
    f->meta.created_by = (char *)"parquet-cpp-arrow version 26.0.1";
    f->meta.column_orders = g_type_order;
    f->meta.n_column_orders = 1;
    f->cc.has_meta_data = true;
    f->cc.meta_data.type = physical;
    f->cc.meta_data.num_values = 100;
    f->cc.meta_data.has_statistics = true;
}

static void fx_flba(fx *f, int32_t width) {
    f->el.has_type_length = true;
    f->el.type_length = width;
    f->leaf.type_length = width;
}

static void fx_logical(fx *f, pq_logical_kind kind) { f->el.logical.kind = kind; }

static void fx_int_logical(fx *f, int bits, bool is_signed) {
    f->el.logical.kind = PQ_LT_INTEGER;
    f->el.logical.bit_width = (int8_t)bits;
    f->el.logical.is_signed = is_signed;
}

static void fx_decimal(fx *f, int precision, int scale) {
    f->el.logical.kind = PQ_LT_DECIMAL;
    f->el.logical.precision = precision;
    f->el.logical.scale = scale;
    f->leaf.type = type_decimal(precision, scale);
}

static pq_statistics *st(fx *f) { return &f->cc.meta_data.statistics; }

/* min_value / max_value (NULL = absent). */
static void set_values(fx *f, const void *min, size_t min_len, const void *max, size_t max_len) {
    pq_statistics *s = st(f);
    s->has_min_value = min != NULL;
    s->min_value = min;
    s->min_value_len = min_len;
    s->has_max_value = max != NULL;
    s->max_value = max;
    s->max_value_len = max_len;
}

/* Deprecated min / max. */
static void set_old(fx *f, const void *min, size_t min_len, const void *max, size_t max_len) {
    pq_statistics *s = st(f);
    s->has_min = min != NULL;
    s->min = min;
    s->min_len = min_len;
    s->has_max = max != NULL;
    s->max = max;
    s->max_len = max_len;
}

static void set_nulls(fx *f, int64_t n) {
    st(f)->has_null_count = true;
    st(f)->null_count = n;
}

static bool may_n(fx *f, pq_pred_op op, const vec *v, uint32_t n) {
    pq_predicate p = {&f->leaf, op, v, n};
    return pq_stats_may_match(&f->meta, &f->cc, &p);
}

static bool may(fx *f, pq_pred_op op, const vec *v) { return may_n(f, op, v, v ? 1 : 0); }

#define T_INT type_make(TYPE_INTEGER)
#define T_BIGINT type_make(TYPE_BIGINT)

/* ---- statistics: integers and sort orders ---------------------------------------------------- */

static void test_stats_int32_signed(void **state) {
    (void)state;
    fx f;
    fx_init(&f, PQ_TYPE_INT32, PQ_CONV_I32, T_INT);
    set_values(&f, le32(-10), 4, le32(20), 4);
    set_nulls(&f, 0);
    assert_false(may(&f, PQ_PRED_EQ, int1(T_INT, -11)));
    assert_true(may(&f, PQ_PRED_EQ, int1(T_INT, -10)));
    assert_true(may(&f, PQ_PRED_EQ, int1(T_INT, 20)));
    assert_false(may(&f, PQ_PRED_EQ, int1(T_INT, 21)));
    assert_false(may(&f, PQ_PRED_LT, int1(T_INT, -10)));
    assert_true(may(&f, PQ_PRED_LT, int1(T_INT, -9)));
    assert_true(may(&f, PQ_PRED_LE, int1(T_INT, -10)));
    assert_false(may(&f, PQ_PRED_LE, int1(T_INT, -11)));
    assert_false(may(&f, PQ_PRED_GT, int1(T_INT, 20)));
    assert_true(may(&f, PQ_PRED_GT, int1(T_INT, 19)));
    assert_true(may(&f, PQ_PRED_GE, int1(T_INT, 20)));
    assert_false(may(&f, PQ_PRED_GE, int1(T_INT, 21)));
    int64_t out[] = {-50, 50, 21};
    int64_t in[] = {-50, 0};
    assert_false(may_n(&f, PQ_PRED_IN, ints(T_INT, 3, out), 3));
    assert_true(may_n(&f, PQ_PRED_IN, ints(T_INT, 2, in), 2));
    /* An empty IN list matches nothing. */
    assert_false(may_n(&f, PQ_PRED_IN, ints(T_INT, 1, in), 0));
    /* Nothing proves anything about NULLs here but the count. */
    assert_true(may(&f, PQ_PRED_IS_NOT_NULL, NULL));
    assert_false(may(&f, PQ_PRED_IS_NULL, NULL));
}

static void test_stats_missing(void **state) {
    (void)state;
    fx f;
    fx_init(&f, PQ_TYPE_INT32, PQ_CONV_I32, T_INT);
    f.cc.meta_data.has_statistics = false;
    assert_true(may(&f, PQ_PRED_EQ, int1(T_INT, 1)));
    assert_true(may(&f, PQ_PRED_IS_NULL, NULL));
    assert_true(may(&f, PQ_PRED_IS_NOT_NULL, NULL));
    /* Statistics without bounds or counts. */
    f.cc.meta_data.has_statistics = true;
    assert_true(may(&f, PQ_PRED_EQ, int1(T_INT, 1)));
    assert_true(may(&f, PQ_PRED_IS_NULL, NULL));
    /* One side only. */
    set_values(&f, NULL, 0, le32(5), 4);
    assert_false(may(&f, PQ_PRED_GT, int1(T_INT, 5)));
    assert_true(may(&f, PQ_PRED_LT, int1(T_INT, -1000000)));
    assert_true(may(&f, PQ_PRED_EQ, int1(T_INT, -1000000)));
    /* No column chunk metadata, or an encrypted one. */
    f.cc.has_meta_data = false;
    assert_true(may(&f, PQ_PRED_GT, int1(T_INT, 5)));
    f.cc.has_meta_data = true;
    f.cc.has_crypto_metadata = true;
    assert_true(may(&f, PQ_PRED_GT, int1(T_INT, 5)));
}

/* Without column_orders, min_value/max_value are undefined; deprecated min/max are signed. */
static void test_stats_legacy_without_column_orders(void **state) {
    (void)state;
    fx f;
    fx_init(&f, PQ_TYPE_INT32, PQ_CONV_I32, T_INT);
    f.meta.column_orders = NULL;
    f.meta.n_column_orders = 0;
    set_values(&f, le32(0), 4, le32(10), 4);
    assert_true(may(&f, PQ_PRED_EQ, int1(T_INT, 100)));
    set_old(&f, le32(0), 4, le32(10), 4);
    assert_false(may(&f, PQ_PRED_EQ, int1(T_INT, 100)));
    assert_true(may(&f, PQ_PRED_EQ, int1(T_INT, 5)));
    /* A column_orders list too short for the leaf counts as absent. */
    fx_init(&f, PQ_TYPE_INT32, PQ_CONV_I32, T_INT);
    f.leaf.leaf = 3;
    set_values(&f, le32(0), 4, le32(10), 4);
    assert_true(may(&f, PQ_PRED_EQ, int1(T_INT, 100)));
}

/* An order this reader does not know (e.g. IEEE_754_TOTAL_ORDER): ignore min_value/max_value,
 * the deprecated signed fields still hold. */
static void test_stats_unknown_column_order(void **state) {
    (void)state;
    fx f;
    sqe_type td = type_make(TYPE_DOUBLE);
    fx_init(&f, PQ_TYPE_DOUBLE, PQ_CONV_DOUBLE, td);
    f.meta.column_orders = g_unknown_order;
    set_values(&f, f64b(1.0), 8, f64b(2.0), 8);
    assert_true(may(&f, PQ_PRED_EQ, flt1(td, 5.0)));
    set_old(&f, f64b(1.0), 8, f64b(2.0), 8);
    assert_false(may(&f, PQ_PRED_EQ, flt1(td, 5.0)));
}

static void test_stats_uint32_unsigned_order(void **state) {
    (void)state;
    fx f;
    fx_init(&f, PQ_TYPE_INT32, PQ_CONV_U32_TO_I64, T_BIGINT);
    fx_int_logical(&f, 32, false);
    /* Unsigned bounds 5 .. 0x80000010 (negative as signed int32). */
    set_values(&f, le32(5), 4, le32((int32_t)0x80000010u), 4);
    assert_true(may(&f, PQ_PRED_EQ, int1(T_BIGINT, 0x80000005LL)));
    assert_true(may(&f, PQ_PRED_EQ, int1(T_BIGINT, 100)));
    assert_false(may(&f, PQ_PRED_EQ, int1(T_BIGINT, 4)));
    assert_false(may(&f, PQ_PRED_EQ, int1(T_BIGINT, 0x80000011LL)));
    assert_false(may(&f, PQ_PRED_GT, int1(T_BIGINT, 0x80000010LL)));
    assert_false(may(&f, PQ_PRED_EQ, int1(T_BIGINT, -1)));
    assert_false(may(&f, PQ_PRED_EQ, int1(T_BIGINT, 0x100000000LL)));
    /* Deprecated (signed) bounds of mixed sign say nothing about the unsigned order. */
    fx_init(&f, PQ_TYPE_INT32, PQ_CONV_U32_TO_I64, T_BIGINT);
    fx_int_logical(&f, 32, false);
    f.meta.column_orders = NULL;
    set_old(&f, le32((int32_t)0x80000010u), 4, le32(5), 4);
    assert_true(may(&f, PQ_PRED_EQ, int1(T_BIGINT, 4)));
    assert_true(may(&f, PQ_PRED_EQ, int1(T_BIGINT, 0x90000000LL)));
    /* Same sign: both orders agree. */
    set_old(&f, le32((int32_t)0x80000000u), 4, le32((int32_t)0x80000010u), 4);
    assert_false(may(&f, PQ_PRED_EQ, int1(T_BIGINT, 4)));
    assert_true(may(&f, PQ_PRED_EQ, int1(T_BIGINT, 0x80000008LL)));
    set_old(&f, le32(1), 4, le32(9), 4);
    assert_false(may(&f, PQ_PRED_EQ, int1(T_BIGINT, 0x80000008LL)));
}

static void test_stats_uint64_as_decimal(void **state) {
    (void)state;
    fx f;
    sqe_type t = type_decimal(20, 0);
    fx_init(&f, PQ_TYPE_INT64, PQ_CONV_U64_TO_I64DEC, t);
    fx_int_logical(&f, 64, false);
    int128 two63 = (int128)1 << 63;
    set_values(&f, le64(1), 8, le64((int64_t)(uint64_t)(two63 + 10)), 8);
    assert_true(may(&f, PQ_PRED_EQ, int1(t, two63 + 5)));
    assert_true(may(&f, PQ_PRED_EQ, int1(t, 2)));
    assert_false(may(&f, PQ_PRED_EQ, int1(t, two63 + 11)));
    assert_false(may(&f, PQ_PRED_LT, int1(t, 1)));
    uint8_t lo[16], hi[16];
    assert_true(pq_stats_min_max(&f.meta, &f.cc, &f.leaf, lo, hi));
    int128 got;
    memcpy(&got, hi, 16);
    assert_true(got == two63 + 10);
}

/* Narrowing conversions: a bound the SQE type cannot hold makes both bounds useless (the
 * reader would wrap such values anywhere). */
static void test_stats_narrow_ints_out_of_range(void **state) {
    (void)state;
    fx f;
    sqe_type ts = type_make(TYPE_SMALLINT), tt = type_make(TYPE_TINYINT);
    fx_init(&f, PQ_TYPE_INT32, PQ_CONV_U8_TO_I16, ts);
    fx_int_logical(&f, 8, false);
    set_values(&f, le32(10), 4, le32(200), 4);
    assert_false(may(&f, PQ_PRED_EQ, int1(ts, 201)));
    assert_false(may(&f, PQ_PRED_EQ, int1(ts, 9)));
    set_values(&f, le32(10), 4, le32(300), 4);
    assert_true(may(&f, PQ_PRED_EQ, int1(ts, 9)));
    fx_init(&f, PQ_TYPE_INT32, PQ_CONV_I32_TO_I8, tt);
    fx_int_logical(&f, 8, true);
    set_values(&f, le32(-100), 4, le32(100), 4);
    assert_false(may(&f, PQ_PRED_EQ, int1(tt, 101)));
    assert_false(may(&f, PQ_PRED_EQ, int1(tt, -128)));
    set_values(&f, le32(-100), 4, le32(200), 4);
    assert_true(may(&f, PQ_PRED_EQ, int1(tt, -128)));
    /* INT_16 via the converted type only (no logical type). */
    fx_init(&f, PQ_TYPE_INT32, PQ_CONV_I32_TO_I16, ts);
    f.el.has_converted_type = true;
    f.el.converted_type = PQ_CT_INT_16;
    set_values(&f, le32(-5), 4, le32(5), 4);
    assert_false(may(&f, PQ_PRED_EQ, int1(ts, 6)));
}

/* The schema conversion and the annotations disagree: the order is unknown, no pruning. */
static void test_stats_order_mismatch(void **state) {
    (void)state;
    fx f;
    fx_init(&f, PQ_TYPE_INT32, PQ_CONV_I32, T_INT);
    fx_int_logical(&f, 32, false); /* says unsigned, but read as signed INTEGER */
    set_values(&f, le32(0), 4, le32(10), 4);
    assert_true(may(&f, PQ_PRED_EQ, int1(T_INT, 100)));
}

static void test_stats_bool(void **state) {
    (void)state;
    fx f;
    sqe_type tb = type_make(TYPE_BOOLEAN);
    fx_init(&f, PQ_TYPE_BOOLEAN, PQ_CONV_BOOL, tb);
    uint8_t zero = 0, one = 1;
    set_values(&f, &zero, 1, &zero, 1);
    assert_false(may(&f, PQ_PRED_EQ, int1(tb, 1)));
    assert_true(may(&f, PQ_PRED_EQ, int1(tb, 0)));
    set_values(&f, &zero, 1, &one, 1);
    assert_true(may(&f, PQ_PRED_EQ, int1(tb, 1)));
}

/* ---- statistics: strings and binaries -------------------------------------------------------- */

static void test_stats_string_unsigned_order(void **state) {
    (void)state;
    fx f;
    fx_init(&f, PQ_TYPE_BYTE_ARRAY, PQ_CONV_BYTES, type_varchar(0));
    fx_logical(&f, PQ_LT_STRING);
    set_values(&f, "apple", 5, "\xc3\xa9" "clair", 7);
    /* 'z' (0x7a) < 0xc3: inside the bounds only in unsigned order. */
    assert_true(may(&f, PQ_PRED_EQ, str1("zebra")));
    assert_false(may(&f, PQ_PRED_EQ, str1("Apple")));
    assert_false(may(&f, PQ_PRED_EQ, str1("")));
    assert_false(may(&f, PQ_PRED_GT, str1("\xc3\xa9" "clair")));
    assert_true(may(&f, PQ_PRED_GE, str1("\xc3\xa9" "clair")));
    assert_false(may(&f, PQ_PRED_LT, str1("apple")));
    assert_false(may(&f, PQ_PRED_EQ, str1("\xc3\xa9" "clairs")));
    assert_true(may(&f, PQ_PRED_EQ, str1("applf")));
    /* A shorter prefix sorts first. */
    assert_false(may(&f, PQ_PRED_EQ, str1("appl")));
    /* pq_stats_min_max gives views into the metadata. */
    sqe_str lo, hi;
    assert_true(pq_stats_min_max(&f.meta, &f.cc, &f.leaf, &lo, &hi));
    assert_int_equal(lo.len, 5);
    assert_memory_equal(sqe_str_data(&lo), "apple", 5);
    assert_int_equal(hi.len, 7);
}

/* Truncated, inexact bounds ("ab" <= values <= "ac") are still bounds. */
static void test_stats_string_truncated(void **state) {
    (void)state;
    fx f;
    fx_init(&f, PQ_TYPE_BYTE_ARRAY, PQ_CONV_BYTES, type_varchar(0));
    fx_logical(&f, PQ_LT_STRING);
    set_values(&f, "ab", 2, "ac", 2);
    st(&f)->has_is_min_value_exact = st(&f)->has_is_max_value_exact = true;
    st(&f)->is_min_value_exact = st(&f)->is_max_value_exact = false;
    assert_true(may(&f, PQ_PRED_EQ, str1("abzzzzzzzzzzzzzzzzzzz")));
    assert_true(may(&f, PQ_PRED_EQ, str1("ac")));
    assert_true(may(&f, PQ_PRED_EQ, str1("ab")));
    assert_false(may(&f, PQ_PRED_EQ, str1("ac\x01")));
    assert_false(may(&f, PQ_PRED_EQ, str1("aa")));
    assert_false(may(&f, PQ_PRED_LT, str1("ab")));
    assert_true(may(&f, PQ_PRED_LE, str1("ab")));
    assert_true(may(&f, PQ_PRED_GE, str1("ac")));
    assert_false(may(&f, PQ_PRED_GT, str1("ac")));
}

/* Deprecated binary statistics: signed byte order, and PARQUET-251 writers. */
static void test_stats_binary_deprecated(void **state) {
    (void)state;
    fx f;
    fx_init(&f, PQ_TYPE_BYTE_ARRAY, PQ_CONV_BYTES, type_varchar(0));
    fx_logical(&f, PQ_LT_STRING);
    f.meta.column_orders = NULL;
    f.meta.created_by = (char *)"parquet-mr version 1.9.0 (build abc)";
    /* Signed order: min "\xc3.." < max "a" would exclude "b" wrongly in unsigned terms. */
    set_old(&f, "\xc3\xa9", 2, "a", 1);
    assert_true(may(&f, PQ_PRED_EQ, str1("b")));
    set_old(&f, "a", 1, "b", 1);
    assert_true(may(&f, PQ_PRED_EQ, str1("z")));
    /* min == max: every value equals it, whatever the order. */
    set_old(&f, "abc", 3, "abc", 3);
    assert_false(may(&f, PQ_PRED_EQ, str1("abd")));
    assert_true(may(&f, PQ_PRED_EQ, str1("abc")));
    assert_false(may(&f, PQ_PRED_LT, str1("abc")));
    /* ... unless the writer is known to get binary statistics wrong, or unknown. */
    const char *bad[] = {"parquet-mr version 1.7.0 (build x)", "parquet-mr version 1.6.0rc3",
                         "parquet-mr version 0.9", "parquet-mr version ", "parquet-mr", NULL};
    for (int i = 0; i < 6; i++) {
        f.meta.created_by = (char *)bad[i];
        assert_true(may(&f, PQ_PRED_EQ, str1("abd")));
    }
    const char *good[] = {"parquet-mr version 1.8.0 (build x)", "parquet-mr version 1.10.1",
                          "parquet-mr version 1.8.0-SNAPSHOT", "parquet-mr version 2.0.0",
                          "parquet-cpp version 1.2.0", "impala", "parquet-mrx version 1.0"};
    for (int i = 0; i < 7; i++) {
        f.meta.created_by = (char *)good[i];
        assert_false(may(&f, PQ_PRED_EQ, str1("abd")));
    }
    /* New fields with TYPE_ORDER need no created_by. */
    fx_init(&f, PQ_TYPE_BYTE_ARRAY, PQ_CONV_BYTES, type_varchar(0));
    fx_logical(&f, PQ_LT_STRING);
    f.meta.created_by = NULL;
    set_values(&f, "a", 1, "b", 1);
    assert_false(may(&f, PQ_PRED_EQ, str1("z")));
}

static void test_stats_uuid_and_flba(void **state) {
    (void)state;
    fx f;
    sqe_type tu = type_make(TYPE_UUID);
    fx_init(&f, PQ_TYPE_FIXED_LEN_BYTE_ARRAY, PQ_CONV_UUID, tu);
    fx_flba(&f, 16);
    fx_logical(&f, PQ_LT_UUID);
    uint8_t lo[16] = {0}, hi[16] = {0x80}, c[16];
    lo[15] = 1;
    set_values(&f, lo, 16, hi, 16);
    memset(c, 0xff, 16);
    assert_false(may(&f, PQ_PRED_EQ, bytes1(tu, c, 16)));
    memset(c, 0x7f, 16);
    assert_true(may(&f, PQ_PRED_EQ, bytes1(tu, c, 16)));
    memset(c, 0, 16);
    assert_false(may(&f, PQ_PRED_EQ, bytes1(tu, c, 16)));
    uint8_t out_lo[16], out_hi[16];
    assert_true(pq_stats_min_max(&f.meta, &f.cc, &f.leaf, out_lo, out_hi));
    assert_memory_equal(out_hi, hi, 16);
    /* A UUID bound of the wrong size is ignored. */
    set_values(&f, lo, 15, hi, 16);
    memset(c, 0xff, 16);
    assert_true(may(&f, PQ_PRED_EQ, bytes1(tu, c, 16)));
    /* FIXED_LEN_BYTE_ARRAY without annotation: VARBINARY, byte-wise order. */
    sqe_type tb = type_make(TYPE_VARBINARY);
    fx_init(&f, PQ_TYPE_FIXED_LEN_BYTE_ARRAY, PQ_CONV_BYTES, tb);
    fx_flba(&f, 2);
    set_values(&f, "\x01\x00", 2, "\x90\x00", 2);
    assert_true(may(&f, PQ_PRED_EQ, bytes1(tb, "\x85\x00", 2)));
    assert_false(may(&f, PQ_PRED_EQ, bytes1(tb, "\x91\x00", 2)));
}

/* ---- statistics: floating point ------------------------------------------------------------- */

static void test_stats_float_nan_bounds(void **state) {
    (void)state;
    fx f;
    sqe_type td = type_make(TYPE_DOUBLE), tr = type_make(TYPE_REAL);
    fx_init(&f, PQ_TYPE_DOUBLE, PQ_CONV_DOUBLE, td);
    set_values(&f, f64b(1.0), 8, f64b(2.0), 8);
    assert_false(may(&f, PQ_PRED_EQ, flt1(td, 1e9)));
    set_values(&f, f64b(1.0), 8, f64b(NAN), 8);
    assert_true(may(&f, PQ_PRED_EQ, flt1(td, 1e9)));
    assert_true(may(&f, PQ_PRED_LT, flt1(td, 0.5))); /* the NaN-tainted min is not used */
    set_values(&f, f64b(NAN), 8, f64b(2.0), 8);
    assert_true(may(&f, PQ_PRED_EQ, flt1(td, 1e9)));
    /* Deprecated fields with NaN (parquet-cpp 1.3.2 wrote max = NaN). */
    fx_init(&f, PQ_TYPE_DOUBLE, PQ_CONV_DOUBLE, td);
    f.meta.column_orders = NULL;
    set_old(&f, f64b(1.0), 8, f64b(NAN), 8);
    assert_true(may(&f, PQ_PRED_EQ, flt1(td, 1e9)));
    assert_true(may(&f, PQ_PRED_EQ, flt1(td, 0.0)));
    fx_init(&f, PQ_TYPE_FLOAT, PQ_CONV_FLOAT, tr);
    set_values(&f, f32b(-1.0f), 4, f32b(NAN), 4);
    assert_true(may(&f, PQ_PRED_GT, flt1(tr, 100.0)));
    set_values(&f, f32b(-1.0f), 4, f32b(1.0f), 4);
    assert_false(may(&f, PQ_PRED_GT, flt1(tr, 100.0)));
}

static void test_stats_float_nan_constant(void **state) {
    (void)state;
    fx f;
    sqe_type td = type_make(TYPE_DOUBLE);
    fx_init(&f, PQ_TYPE_DOUBLE, PQ_CONV_DOUBLE, td);
    set_values(&f, f64b(1.0), 8, f64b(2.0), 8);
    assert_true(may(&f, PQ_PRED_EQ, flt1(td, NAN)));
    assert_true(may(&f, PQ_PRED_LT, flt1(td, NAN)));
    assert_true(may(&f, PQ_PRED_GT, flt1(td, NAN)));
    double in[] = {1e9, NAN};
    assert_true(may_n(&f, PQ_PRED_IN, flts(td, 2, in), 2));
    double in2[] = {1e9, -1e9};
    assert_false(may_n(&f, PQ_PRED_IN, flts(td, 2, in2), 2));
    /* Infinities are ordinary values. */
    assert_false(may(&f, PQ_PRED_EQ, flt1(td, INFINITY)));
    set_values(&f, f64b(1.0), 8, f64b(INFINITY), 8);
    assert_true(may(&f, PQ_PRED_EQ, flt1(td, INFINITY)));
}

static void test_stats_float_signed_zeros(void **state) {
    (void)state;
    fx f;
    sqe_type td = type_make(TYPE_DOUBLE), tr = type_make(TYPE_REAL);
    fx_init(&f, PQ_TYPE_DOUBLE, PQ_CONV_DOUBLE, td);
    /* min +0.0 may hide -0.0 rows. */
    set_values(&f, f64b(0.0), 8, f64b(5.0), 8);
    assert_true(may(&f, PQ_PRED_EQ, flt1(td, -0.0)));
    assert_true(may(&f, PQ_PRED_LE, flt1(td, -0.0)));
    assert_false(may(&f, PQ_PRED_LT, flt1(td, 0.0)));
    assert_false(may(&f, PQ_PRED_LT, flt1(td, -0.0)));
    /* max -0.0 may hide +0.0 rows. */
    set_values(&f, f64b(-5.0), 8, f64b(-0.0), 8);
    assert_true(may(&f, PQ_PRED_EQ, flt1(td, 0.0)));
    assert_true(may(&f, PQ_PRED_GE, flt1(td, 0.0)));
    assert_false(may(&f, PQ_PRED_GT, flt1(td, -0.0)));
    assert_false(may(&f, PQ_PRED_GT, flt1(td, 0.0)));
    fx_init(&f, PQ_TYPE_FLOAT, PQ_CONV_FLOAT, tr);
    set_values(&f, f32b(-0.0f), 4, f32b(-0.0f), 4);
    assert_true(may(&f, PQ_PRED_EQ, flt1(tr, 0.0)));
    assert_false(may(&f, PQ_PRED_EQ, flt1(tr, 1e-30)));
}

static void test_stats_float16(void **state) {
    (void)state;
    fx f;
    sqe_type tr = type_make(TYPE_REAL);
    fx_init(&f, PQ_TYPE_FIXED_LEN_BYTE_ARRAY, PQ_CONV_FLOAT16, tr);
    fx_flba(&f, 2);
    fx_logical(&f, PQ_LT_FLOAT16);
    set_values(&f, "\x00\xc0", 2, "\x00\x40", 2); /* -2.0 .. 2.0 */
    assert_false(may(&f, PQ_PRED_EQ, flt1(tr, 2.5)));
    assert_true(may(&f, PQ_PRED_EQ, flt1(tr, 1.0)));
    assert_false(may(&f, PQ_PRED_LT, flt1(tr, -2.0)));
    float lo, hi;
    assert_true(pq_stats_min_max(&f.meta, &f.cc, &f.leaf, &lo, &hi));
    assert_true(lo == -2.0f && hi == 2.0f);
    set_values(&f, "\x00\xc0", 2, "\x00\x7e", 2); /* max NaN */
    assert_true(may(&f, PQ_PRED_EQ, flt1(tr, 2.5)));
    assert_false(pq_stats_min_max(&f.meta, &f.cc, &f.leaf, &lo, &hi));
    set_values(&f, "\x01\x00", 2, "\x00\x7c", 2); /* smallest subnormal .. +inf */
    assert_false(may(&f, PQ_PRED_LT, flt1(tr, 5.9604644775390625e-08)));
    assert_true(may(&f, PQ_PRED_LE, flt1(tr, 5.9604644775390625e-08)));
}

/* ---- statistics: NULLs ---------------------------------------------------------------------- */

static void test_stats_all_null_chunk(void **state) {
    (void)state;
    fx f;
    fx_init(&f, PQ_TYPE_INT32, PQ_CONV_I32, T_INT);
    set_nulls(&f, 100); /* == num_values, no bounds */
    assert_false(may(&f, PQ_PRED_EQ, int1(T_INT, 1)));
    assert_false(may(&f, PQ_PRED_LT, int1(T_INT, 1)));
    assert_false(may(&f, PQ_PRED_GE, int1(T_INT, 1)));
    int64_t in[] = {1, 2};
    assert_false(may_n(&f, PQ_PRED_IN, ints(T_INT, 2, in), 2));
    assert_true(may(&f, PQ_PRED_IS_NULL, NULL));
    assert_false(may(&f, PQ_PRED_IS_NOT_NULL, NULL));
    /* A NaN constant on an all-NULL chunk: still nothing. */
    sqe_type td = type_make(TYPE_DOUBLE);
    fx_init(&f, PQ_TYPE_DOUBLE, PQ_CONV_DOUBLE, td);
    set_nulls(&f, 100);
    assert_false(may(&f, PQ_PRED_EQ, flt1(td, NAN)));
}

static void test_stats_null_counts(void **state) {
    (void)state;
    fx f;
    fx_init(&f, PQ_TYPE_INT32, PQ_CONV_I32, T_INT);
    set_values(&f, le32(1), 4, le32(5), 4);
    /* No null_count: nothing known about NULLs. */
    assert_true(may(&f, PQ_PRED_IS_NULL, NULL));
    assert_true(may(&f, PQ_PRED_IS_NOT_NULL, NULL));
    set_nulls(&f, 0);
    assert_false(may(&f, PQ_PRED_IS_NULL, NULL));
    assert_true(may(&f, PQ_PRED_IS_NOT_NULL, NULL));
    /* num_values counts NULLs: 5 NULLs of 100 values leave 95 non-NULL. */
    set_nulls(&f, 5);
    assert_true(may(&f, PQ_PRED_IS_NULL, NULL));
    assert_true(may(&f, PQ_PRED_IS_NOT_NULL, NULL));
    f.cc.meta_data.num_values = 5;
    assert_false(may(&f, PQ_PRED_IS_NOT_NULL, NULL));
    /* A NULL count above the value count is corrupt: proves nothing. */
    set_nulls(&f, 7);
    assert_true(may(&f, PQ_PRED_IS_NOT_NULL, NULL));
    assert_true(may(&f, PQ_PRED_EQ, int1(T_INT, 3)));
    /* A REQUIRED leaf holds no NULLs, with or without statistics. */
    fx_init(&f, PQ_TYPE_INT32, PQ_CONV_I32, T_INT);
    f.leaf.max_def = 0;
    f.leaf.nullable = false;
    f.cc.meta_data.has_statistics = false;
    assert_false(may(&f, PQ_PRED_IS_NULL, NULL));
    assert_true(may(&f, PQ_PRED_IS_NOT_NULL, NULL));
    /* The same rules over a page header's statistics. */
    pq_statistics ps;
    memset(&ps, 0, sizeof(ps));
    ps.has_null_count = true;
    ps.null_count = 7;
    fx_init(&f, PQ_TYPE_INT32, PQ_CONV_I32, T_INT);
    pq_predicate p = {&f.leaf, PQ_PRED_EQ, int1(T_INT, 3), 1};
    assert_false(pq_stats_may_match_stats(&f.meta, &ps, 7, &p));
    assert_true(pq_stats_may_match_stats(&f.meta, &ps, 8, &p));
    assert_true(pq_stats_may_match_stats(&f.meta, NULL, 8, &p));
}

/* The UNKNOWN logical type (always NULL) and unsupported leaves. */
static void test_stats_null_type_and_unsupported(void **state) {
    (void)state;
    fx f;
    fx_init(&f, PQ_TYPE_INT32, PQ_CONV_NULL, T_INT);
    fx_logical(&f, PQ_LT_UNKNOWN);
    f.cc.meta_data.has_statistics = false;
    assert_false(may(&f, PQ_PRED_EQ, int1(T_INT, 1)));
    assert_false(may(&f, PQ_PRED_IS_NOT_NULL, NULL));
    assert_true(may(&f, PQ_PRED_IS_NULL, NULL));
    fx_init(&f, PQ_TYPE_INT32, PQ_CONV_I32, T_INT);
    set_values(&f, le32(1), 4, le32(5), 4);
    f.leaf.unsupported = "unsupported: test";
    assert_true(may(&f, PQ_PRED_EQ, int1(T_INT, 100)));
    /* A repeated leaf is not a row-level predicate target. */
    f.leaf.unsupported = NULL;
    f.leaf.max_rep = 1;
    assert_true(may(&f, PQ_PRED_EQ, int1(T_INT, 100)));
}

/* ---- statistics: conversions ----------------------------------------------------------------- */

static void test_stats_timestamp_millis(void **state) {
    (void)state;
    fx f;
    sqe_type t = type_make(TYPE_TIMESTAMP);
    fx_init(&f, PQ_TYPE_INT64, PQ_CONV_I64_MILLIS_TO_MICROS, t);
    fx_logical(&f, PQ_LT_TIMESTAMP);
    f.el.logical.unit = PQ_UNIT_MILLIS;
    set_values(&f, le64(1000), 8, le64(2000), 8); /* 1 s .. 2 s */
    assert_false(may(&f, PQ_PRED_EQ, int1(t, 999999)));
    assert_true(may(&f, PQ_PRED_EQ, int1(t, 1000000)));
    assert_true(may(&f, PQ_PRED_EQ, int1(t, 1500500)));
    assert_true(may(&f, PQ_PRED_EQ, int1(t, 2000000)));
    assert_false(may(&f, PQ_PRED_GT, int1(t, 2000000)));
    int64_t lo, hi;
    assert_true(pq_stats_min_max(&f.meta, &f.cc, &f.leaf, &lo, &hi));
    assert_true(lo == 1000000 && hi == 2000000);
    /* Bounds that overflow int64 microseconds still prune (compared exactly) but have no
     * SQE value. */
    set_values(&f, le64(INT64_MAX / 10), 8, le64(INT64_MAX), 8);
    assert_false(may(&f, PQ_PRED_EQ, int1(t, 0)));
    assert_false(pq_stats_min_max(&f.meta, &f.cc, &f.leaf, &lo, &hi));
    /* TIMESTAMP WITH TIME ZONE: the instant is compared, the zone ignored. */
    sqe_type tz = type_make(TYPE_TIMESTAMP_TZ);
    fx_init(&f, PQ_TYPE_INT64, PQ_CONV_I64_MILLIS_TO_TSTZ, tz);
    fx_logical(&f, PQ_LT_TIMESTAMP);
    f.el.logical.unit = PQ_UNIT_MILLIS;
    f.el.logical.is_adjusted_to_utc = true;
    set_values(&f, le64(1000), 8, le64(2000), 8);
    assert_false(may(&f, PQ_PRED_EQ, int1(tz, 999999)));
    assert_true(may(&f, PQ_PRED_EQ, int1(tz, 1000000)));
    sqe_timestamp_tz zlo, zhi;
    assert_true(pq_stats_min_max(&f.meta, &f.cc, &f.leaf, &zlo, &zhi));
    assert_true(zlo.micros == 1000000 && zhi.micros == 2000000 && zlo.zone == 0);
}

/* Nanoseconds are floored to microseconds, so a floored bound stays a bound; truncation toward
 * zero would turn a -1 ns minimum into 0 us and drop the row read as -1 us. */
static void test_stats_timestamp_nanos_floor(void **state) {
    (void)state;
    fx f;
    sqe_type t = type_make(TYPE_TIMESTAMP);
    fx_init(&f, PQ_TYPE_INT64, PQ_CONV_I64_NANOS_TO_MICROS, t);
    fx_logical(&f, PQ_LT_TIMESTAMP);
    f.el.logical.unit = PQ_UNIT_NANOS;
    set_values(&f, le64(-1), 8, le64(5), 8);
    assert_true(may(&f, PQ_PRED_EQ, int1(t, -1)));
    assert_true(may(&f, PQ_PRED_EQ, int1(t, 0)));
    assert_false(may(&f, PQ_PRED_LT, int1(t, -1)));
    assert_false(may(&f, PQ_PRED_EQ, int1(t, 1)));
    set_values(&f, le64(-1001), 8, le64(-999), 8); /* -2 us .. -1 us after floor */
    assert_true(may(&f, PQ_PRED_EQ, int1(t, -2)));
    assert_false(may(&f, PQ_PRED_EQ, int1(t, 0)));
    int64_t lo, hi;
    assert_true(pq_stats_min_max(&f.meta, &f.cc, &f.leaf, &lo, &hi));
    assert_true(lo == -2 && hi == -1);
}

static void test_stats_time_and_date(void **state) {
    (void)state;
    fx f;
    sqe_type tt = type_with_precision(TYPE_TIME, 3), td = type_make(TYPE_DATE);
    fx_init(&f, PQ_TYPE_INT32, PQ_CONV_I32_MILLIS_TO_MICROS, tt);
    fx_logical(&f, PQ_LT_TIME);
    f.el.logical.unit = PQ_UNIT_MILLIS;
    set_values(&f, le32(1), 4, le32(10), 4);
    assert_true(may(&f, PQ_PRED_EQ, int1(tt, 5000)));
    assert_false(may(&f, PQ_PRED_EQ, int1(tt, 11000)));
    assert_false(may(&f, PQ_PRED_LT, int1(tt, 1000)));
    fx_init(&f, PQ_TYPE_INT32, PQ_CONV_I32, td);
    fx_logical(&f, PQ_LT_DATE);
    set_values(&f, le32(-3650), 4, le32(-1), 4);
    assert_false(may(&f, PQ_PRED_EQ, int1(td, 0)));
    assert_true(may(&f, PQ_PRED_EQ, int1(td, -1)));
    int32_t lo, hi;
    assert_true(pq_stats_min_max(&f.meta, &f.cc, &f.leaf, &lo, &hi));
    assert_true(lo == -3650 && hi == -1);
}

static void test_stats_decimal_ints(void **state) {
    (void)state;
    fx f;
    fx_init(&f, PQ_TYPE_INT32, PQ_CONV_I32_TO_I64, T_INT);
    fx_decimal(&f, 9, 2);
    set_values(&f, le32(-500), 4, le32(500), 4);
    sqe_type t = f.leaf.type;
    assert_false(may(&f, PQ_PRED_EQ, int1(t, 501)));
    assert_true(may(&f, PQ_PRED_EQ, int1(t, -500)));
    /* A constant of another scale is another type: no pruning. */
    assert_true(may(&f, PQ_PRED_EQ, int1(type_decimal(9, 3), 5010)));
    fx_init(&f, PQ_TYPE_INT64, PQ_CONV_I64, T_INT);
    fx_decimal(&f, 18, 4);
    t = f.leaf.type;
    set_values(&f, le64(-1), 8, le64(INT64_MAX), 8);
    assert_false(may(&f, PQ_PRED_EQ, int1(t, -2)));
    int64_t lo, hi;
    assert_true(pq_stats_min_max(&f.meta, &f.cc, &f.leaf, &lo, &hi));
    assert_true(lo == -1 && hi == INT64_MAX);
    /* INT64 decimal with precision > 18: int128 in SQE. */
    fx_init(&f, PQ_TYPE_INT64, PQ_CONV_I64_TO_I128, T_INT);
    fx_decimal(&f, 20, 0);
    t = f.leaf.type;
    set_values(&f, le64(-7), 8, le64(7), 8);
    assert_false(may(&f, PQ_PRED_EQ, int1(t, (int128)1 << 70)));
    assert_true(may(&f, PQ_PRED_EQ, int1(t, 7)));
}

/* Decimals in binaries compare as signed big-endian integers, not byte-wise. */
static void test_stats_decimal_binary_signed(void **state) {
    (void)state;
    fx f;
    fx_init(&f, PQ_TYPE_FIXED_LEN_BYTE_ARRAY, PQ_CONV_DEC_BYTES, T_INT);
    fx_flba(&f, 4);
    fx_decimal(&f, 9, 2);
    sqe_type t = f.leaf.type;
    set_values(&f, "\xff\xff\xff\xfe", 4, "\x00\x00\x00\x05", 4); /* -2 .. 5 */
    assert_true(may(&f, PQ_PRED_EQ, int1(t, -1)));
    assert_true(may(&f, PQ_PRED_EQ, int1(t, 4)));
    assert_false(may(&f, PQ_PRED_EQ, int1(t, -3)));
    assert_false(may(&f, PQ_PRED_EQ, int1(t, 6)));
    int64_t lo, hi;
    assert_true(pq_stats_min_max(&f.meta, &f.cc, &f.leaf, &lo, &hi));
    assert_true(lo == -2 && hi == 5);
    /* BYTE_ARRAY with bounds of different widths: -128 .. 256, long decimal. */
    fx_init(&f, PQ_TYPE_BYTE_ARRAY, PQ_CONV_DEC_BYTES, T_INT);
    fx_decimal(&f, 38, 0);
    t = f.leaf.type;
    set_values(&f, "\x80", 1, "\x01\x00", 2);
    assert_true(may(&f, PQ_PRED_EQ, int1(t, 255)));
    assert_true(may(&f, PQ_PRED_EQ, int1(t, -128)));
    assert_false(may(&f, PQ_PRED_EQ, int1(t, -129)));
    assert_false(may(&f, PQ_PRED_EQ, int1(t, 257)));
    int128 wlo, whi;
    assert_true(pq_stats_min_max(&f.meta, &f.cc, &f.leaf, &wlo, &whi));
    assert_true(wlo == -128 && whi == 256);
    /* 17 bytes: a redundant sign byte is fine, a real 17th byte does not fit int128. */
    uint8_t b17[17];
    memset(b17, 0xff, 17);
    set_values(&f, b17, 17, "\x01\x00", 2); /* -1 .. 256 */
    assert_false(may(&f, PQ_PRED_EQ, int1(t, -2)));
    b17[0] = 0x7f;
    set_values(&f, "\x80", 1, b17, 17);
    assert_true(may(&f, PQ_PRED_EQ, int1(t, -129)));
    set_values(&f, "", 0, "\x01\x00", 2); /* an empty bound is invalid */
    assert_true(may(&f, PQ_PRED_EQ, int1(t, -129)));
    /* Deprecated binary decimal statistics: signed byte order is not numeric order. */
    fx_init(&f, PQ_TYPE_FIXED_LEN_BYTE_ARRAY, PQ_CONV_DEC_BYTES, T_INT);
    fx_flba(&f, 2);
    fx_decimal(&f, 4, 0);
    t = f.leaf.type;
    f.meta.column_orders = NULL;
    f.meta.created_by = (char *)"parquet-mr version 1.8.2 (build x)";
    set_old(&f, "\x00\x80", 2, "\x00\x7f", 2); /* signed-bytewise min 128, max 127 */
    assert_true(may(&f, PQ_PRED_EQ, int1(t, 128)));
    assert_true(may(&f, PQ_PRED_EQ, int1(t, 100)));
}

static void test_stats_int96_never_by_bounds(void **state) {
    (void)state;
    fx f;
    sqe_type t = type_make(TYPE_TIMESTAMP);
    fx_init(&f, PQ_TYPE_INT96, PQ_CONV_INT96, t);
    uint8_t lo[12] = {0}, hi[12] = {0};
    hi[11] = 1;
    set_values(&f, lo, 12, hi, 12);
    set_old(&f, lo, 12, hi, 12);
    assert_true(may(&f, PQ_PRED_EQ, int1(t, INT64_MIN / 2)));
    int64_t a, b;
    assert_false(pq_stats_min_max(&f.meta, &f.cc, &f.leaf, &a, &b));
    set_nulls(&f, 0);
    assert_false(may(&f, PQ_PRED_IS_NULL, NULL));
}

static void test_stats_bad_inputs(void **state) {
    (void)state;
    fx f;
    fx_init(&f, PQ_TYPE_INT32, PQ_CONV_I32, T_INT);
    /* Wrong bound sizes. */
    set_values(&f, le32(1), 3, le32(5), 4);
    assert_true(may(&f, PQ_PRED_EQ, int1(T_INT, 100)));
    set_values(&f, le32(1), 4, le32(5), 8);
    assert_true(may(&f, PQ_PRED_EQ, int1(T_INT, 100)));
    /* Constant of another type than the leaf. */
    set_values(&f, le32(1), 4, le32(5), 4);
    assert_true(may(&f, PQ_PRED_EQ, int1(T_BIGINT, 100)));
    /* Missing constant. */
    assert_true(may_n(&f, PQ_PRED_EQ, NULL, 0));
    assert_true(may_n(&f, PQ_PRED_EQ, int1(T_INT, 100), 0));
    /* Chunk of another physical type than the leaf. */
    f.cc.meta_data.type = PQ_TYPE_INT64;
    assert_true(may(&f, PQ_PRED_EQ, int1(T_INT, 100)));
    /* Constant vectors of other shapes (constant) and a NULL constant. */
    fx_init(&f, PQ_TYPE_INT32, PQ_CONV_I32, T_INT);
    set_values(&f, le32(1), 4, le32(5), 4);
    vec *c = (vec *)int1(T_INT, 100);
    c->shape = VEC_CONST;
    assert_false(may_n(&f, PQ_PRED_IN, c, 3));
    assert_int_equal(vec_set_null(c, 0), SQE_OK);
    assert_true(may(&f, PQ_PRED_EQ, c));
}

/* ---- page index: hand-encoded Thrift --------------------------------------------------------- */

typedef struct tw {
    uint8_t buf[4096];
    size_t len;
    int16_t last[16];
    int depth;
} tw;

static void tw_byte(tw *w, uint8_t b) {
    assert_true(w->len < sizeof(w->buf));
    w->buf[w->len++] = b;
}
static void tw_varint(tw *w, uint64_t v) {
    while (v >= 0x80) {
        tw_byte(w, (uint8_t)(v | 0x80));
        v >>= 7;
    }
    tw_byte(w, (uint8_t)v);
}
static void tw_zigzag(tw *w, int64_t v) { tw_varint(w, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63)); }
static void tw_begin(tw *w) { w->last[++w->depth] = 0; }
static void tw_end(tw *w) {
    tw_byte(w, 0);
    w->depth--;
}
static void tw_field(tw *w, int type, int16_t id) {
    int16_t delta = (int16_t)(id - w->last[w->depth]);
    if (delta > 0 && delta <= 15) {
        tw_byte(w, (uint8_t)(delta << 4 | type));
    } else {
        tw_byte(w, (uint8_t)type);
        tw_zigzag(w, id);
    }
    w->last[w->depth] = id;
}
static void tw_list(tw *w, int elem_type, uint32_t n) {
    if (n < 15) {
        tw_byte(w, (uint8_t)(n << 4 | elem_type));
    } else {
        tw_byte(w, (uint8_t)(0xf0 | elem_type));
        tw_varint(w, n);
    }
}
static void tw_binary(tw *w, const void *p, size_t n) {
    tw_varint(w, n);
    for (size_t i = 0; i < n; i++) tw_byte(w, ((const uint8_t *)p)[i]);
}

/* OffsetIndex with n pages. */
static void enc_offset_index(tw *w, uint32_t n, const int64_t *off, const int32_t *size,
                             const int64_t *first) {
    memset(w, 0, sizeof(*w));
    tw_begin(w);
    tw_field(w, PQ_THRIFT_LIST, 1);
    tw_list(w, PQ_THRIFT_STRUCT, n);
    for (uint32_t i = 0; i < n; i++) {
        tw_begin(w);
        tw_field(w, PQ_THRIFT_I64, 1);
        tw_zigzag(w, off[i]);
        tw_field(w, PQ_THRIFT_I32, 2);
        tw_zigzag(w, size[i]);
        tw_field(w, PQ_THRIFT_I64, 3);
        tw_zigzag(w, first[i]);
        tw_end(w);
    }
    tw_end(w);
}

/* ColumnIndex with INT32 bounds (null pages get empty bounds); null_counts when nulls != NULL. */
static void enc_column_index(tw *w, uint32_t n, const bool *null_page, const int32_t *min,
                             const int32_t *max, const int64_t *nulls, int32_t order) {
    memset(w, 0, sizeof(*w));
    tw_begin(w);
    tw_field(w, PQ_THRIFT_LIST, 1);
    tw_list(w, PQ_THRIFT_BOOL_TRUE, n);
    for (uint32_t i = 0; i < n; i++) tw_byte(w, null_page[i] ? 1 : 2);
    for (int16_t fid = 2; fid <= 3; fid++) {
        tw_field(w, PQ_THRIFT_LIST, fid);
        tw_list(w, PQ_THRIFT_BINARY, n);
        for (uint32_t i = 0; i < n; i++) {
            int32_t v = fid == 2 ? min[i] : max[i];
            uint8_t b[4];
            for (int k = 0; k < 4; k++) b[k] = (uint8_t)((uint32_t)v >> (8 * k));
            tw_binary(w, b, null_page[i] ? 0 : 4);
        }
    }
    tw_field(w, PQ_THRIFT_I32, 4);
    tw_zigzag(w, order);
    if (nulls) {
        tw_field(w, PQ_THRIFT_LIST, 5);
        tw_list(w, PQ_THRIFT_I64, n);
        for (uint32_t i = 0; i < n; i++) tw_zigzag(w, nulls[i]);
    }
    /* An unknown field (nan_counts-like) to skip. */
    tw_field(w, PQ_THRIFT_LIST, 8);
    tw_list(w, PQ_THRIFT_I64, 1);
    tw_zigzag(w, 0);
    tw_end(w);
}

/* 4 pages of rows [0,10) [10,25) [25,40) [40,50) in a 50-row row group. */
static const int64_t k_off[4] = {4, 100, 200, 260};
static const int32_t k_size[4] = {96, 100, 60, 30};
static const int64_t k_first[4] = {0, 10, 25, 40};
static const bool k_null_page[4] = {false, true, false, false};
static const int32_t k_min[4] = {-5, 0, 10, 30};
static const int32_t k_max[4] = {5, 0, 20, 40};
static const int64_t k_nulls[4] = {0, 15, 3, 0};

static void decode_fixture(arena *a, pq_page_index *pi, tw *ci, tw *oi) {
    enc_offset_index(oi, 4, k_off, k_size, k_first);
    enc_column_index(ci, 4, k_null_page, k_min, k_max, k_nulls, PQ_BOUNDARY_ASCENDING);
    sqe_error err;
    assert_int_equal(pq_page_index_decode(a, ci->buf, ci->len, oi->buf, oi->len, pi, &err), SQE_OK);
}

static void test_page_index_decode(void **state) {
    (void)state;
    arena a;
    arena_init(&a, NULL);
    tw ci, oi;
    pq_page_index pi;
    decode_fixture(&a, &pi, &ci, &oi);
    assert_int_equal(pi.n_pages, 4);
    assert_true(pi.has_column_index);
    assert_int_equal(pi.boundary_order, PQ_BOUNDARY_ASCENDING);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(pi.offset[i], k_off[i]);
        assert_int_equal(pi.compressed_size[i], k_size[i]);
        assert_int_equal(pi.first_row[i], k_first[i]);
        assert_int_equal(pi.null_page[i], k_null_page[i]);
        assert_int_equal(pi.null_count[i], k_nulls[i]);
        assert_int_equal(pi.min[i].len, k_null_page[i] ? 0 : 4);
    }
    int64_t b, e;
    pq_page_index_page_rows(&pi, 3, 50, &b, &e);
    assert_true(b == 40 && e == 50);
    /* OffsetIndex only. */
    sqe_error err;
    assert_int_equal(pq_page_index_decode(&a, NULL, 0, oi.buf, oi.len, &pi, &err), SQE_OK);
    assert_false(pi.has_column_index);
    assert_null(pi.null_page);
    /* Without null_counts: -1. */
    enc_column_index(&ci, 4, k_null_page, k_min, k_max, NULL, 0);
    assert_int_equal(pq_page_index_decode(&a, ci.buf, ci.len, oi.buf, oi.len, &pi, &err), SQE_OK);
    assert_int_equal(pi.null_count[2], -1);
    /* A zero-page OffsetIndex decodes (an empty row group). */
    enc_offset_index(&oi, 0, k_off, k_size, k_first);
    assert_int_equal(pq_page_index_decode(&a, NULL, 0, oi.buf, oi.len, &pi, &err), SQE_OK);
    assert_int_equal(pi.n_pages, 0);
    arena_destroy(&a);
}

static void expect_invalid(arena *a, tw *ci, tw *oi, const char *what) {
    pq_page_index pi;
    sqe_error err;
    int rc = pq_page_index_decode(a, ci ? ci->buf : NULL, ci ? ci->len : 0, oi ? oi->buf : NULL,
                                  oi ? oi->len : 0, &pi, &err);
    if (rc != SQE_ERR_INVALID_FILE) fail_msg("%s: rc %d", what, rc);
    assert_int_equal(pi.n_pages, 0);
    assert_null(pi.first_row);
}

static void test_page_index_decode_invalid(void **state) {
    (void)state;
    arena a;
    arena_init(&a, NULL);
    tw ci, oi;
    int64_t first_bad[4] = {1, 10, 25, 40}, first_dup[4] = {0, 10, 10, 40};
    int64_t off_dec[4] = {4, 100, 90, 260}, off_neg[4] = {-4, 100, 200, 260};
    int32_t size_zero[4] = {96, 0, 60, 30};
    int64_t nulls_neg[4] = {0, -1, 0, 0};
    enc_column_index(&ci, 4, k_null_page, k_min, k_max, k_nulls, 1);
    enc_offset_index(&oi, 4, k_off, k_size, first_bad);
    expect_invalid(&a, &ci, &oi, "first row not 0");
    enc_offset_index(&oi, 4, k_off, k_size, first_dup);
    expect_invalid(&a, &ci, &oi, "first rows not increasing");
    enc_offset_index(&oi, 4, off_dec, k_size, k_first);
    expect_invalid(&a, &ci, &oi, "offsets decreasing");
    enc_offset_index(&oi, 4, off_neg, k_size, k_first);
    expect_invalid(&a, &ci, &oi, "negative offset");
    enc_offset_index(&oi, 4, k_off, size_zero, k_first);
    expect_invalid(&a, &ci, &oi, "zero size");
    expect_invalid(&a, &ci, NULL, "no OffsetIndex");
    /* ColumnIndex lists of another length than the pages. */
    enc_offset_index(&oi, 3, k_off, k_size, k_first);
    expect_invalid(&a, &ci, &oi, "list length");
    enc_offset_index(&oi, 4, k_off, k_size, k_first);
    enc_column_index(&ci, 4, k_null_page, k_min, k_max, nulls_neg, 1);
    expect_invalid(&a, &ci, &oi, "negative null count");
    /* Missing required ColumnIndex field: drop boundary_order by truncating the struct. */
    memset(&ci, 0, sizeof(ci));
    tw_begin(&ci);
    tw_field(&ci, PQ_THRIFT_LIST, 1);
    tw_list(&ci, PQ_THRIFT_BOOL_TRUE, 4);
    for (int i = 0; i < 4; i++) tw_byte(&ci, 2);
    tw_end(&ci);
    expect_invalid(&a, &ci, &oi, "ColumnIndex without bounds");
    /* PageLocation without first_row_index. */
    memset(&oi, 0, sizeof(oi));
    tw_begin(&oi);
    tw_field(&oi, PQ_THRIFT_LIST, 1);
    tw_list(&oi, PQ_THRIFT_STRUCT, 1);
    tw_begin(&oi);
    tw_field(&oi, PQ_THRIFT_I64, 1);
    tw_zigzag(&oi, 4);
    tw_field(&oi, PQ_THRIFT_I32, 2);
    tw_zigzag(&oi, 10);
    tw_end(&oi);
    tw_end(&oi);
    expect_invalid(&a, NULL, &oi, "PageLocation without first row");
    /* Wrong list element type. */
    memset(&oi, 0, sizeof(oi));
    tw_begin(&oi);
    tw_field(&oi, PQ_THRIFT_LIST, 1);
    tw_list(&oi, PQ_THRIFT_I64, 1);
    tw_zigzag(&oi, 4);
    tw_end(&oi);
    expect_invalid(&a, NULL, &oi, "element type");
    /* OffsetIndex without page_locations. */
    memset(&oi, 0, sizeof(oi));
    tw_begin(&oi);
    tw_end(&oi);
    expect_invalid(&a, NULL, &oi, "empty OffsetIndex");
    arena_destroy(&a);
}

/* Every truncation and many bit flips of a valid page index: an error or a result, never a crash
 * (run under ASan/UBSan), and bounded allocation. */
static void test_page_index_hostile(void **state) {
    (void)state;
    arena a;
    arena_init(&a, NULL);
    tw ci, oi;
    pq_page_index pi;
    enc_offset_index(&oi, 4, k_off, k_size, k_first);
    enc_column_index(&ci, 4, k_null_page, k_min, k_max, k_nulls, 1);
    for (size_t n = 0; n < oi.len; n++)
        assert_int_not_equal(pq_page_index_decode(&a, ci.buf, ci.len, oi.buf, n, &pi, NULL),
                             SQE_OK);
    for (size_t n = 1; n < ci.len; n++)
        assert_int_not_equal(pq_page_index_decode(&a, ci.buf, n, oi.buf, oi.len, &pi, NULL),
                             SQE_OK);
    uint32_t seed = 12345;
    uint8_t cib[4096], oib[4096];
    for (int iter = 0; iter < 4000; iter++) {
        memcpy(cib, ci.buf, ci.len);
        memcpy(oib, oi.buf, oi.len);
        for (int k = 0; k < 3; k++) {
            seed = seed * 1103515245u + 12345u;
            size_t pos = (seed >> 8) % (ci.len + oi.len);
            uint8_t bit = (uint8_t)(1u << ((seed >> 4) & 7));
            if (pos < ci.len)
                cib[pos] ^= bit;
            else
                oib[pos - ci.len] ^= bit;
        }
        arena_reset(&a);
        if (pq_page_index_decode(&a, cib, ci.len, oib, oi.len, &pi, NULL) == SQE_OK) {
            assert_true(pi.n_pages <= oi.len);
            /* A decoded index is consistent enough to select from. */
            pq_row_ranges rr;
            fx f;
            fx_init(&f, PQ_TYPE_INT32, PQ_CONV_I32, T_INT);
            pq_predicate p = {&f.leaf, PQ_PRED_EQ, int1(T_INT, 12), 1};
            int rc = pq_page_index_select(&a, &pi, &f.leaf, &f.meta, 1000, &p, &rr, NULL);
            assert_true(rc == SQE_OK || rc == SQE_ERR_INVALID_FILE);
            teardown(NULL);
        }
        assert_true(a.total < (1u << 20));
    }
    arena_destroy(&a);
}

static bool ranges_are(const pq_row_ranges *r, uint32_t n, const int64_t *pairs) {
    if (r->n != n) return false;
    for (uint32_t i = 0; i < n; i++)
        if (r->begin[i] != pairs[2 * i] || r->end[i] != pairs[2 * i + 1]) return false;
    return true;
}

static void select_rows(arena *a, fx *f, const pq_page_index *pi, pq_pred_op op, const vec *v,
                        pq_row_ranges *out) {
    pq_predicate p = {&f->leaf, op, v, v ? 1 : 0};
    sqe_error err;
    assert_int_equal(pq_page_index_select(a, pi, &f->leaf, &f->meta, 50, &p, out, &err), SQE_OK);
}

static void test_page_index_select(void **state) {
    (void)state;
    arena a;
    arena_init(&a, NULL);
    tw ci, oi;
    pq_page_index pi;
    decode_fixture(&a, &pi, &ci, &oi);
    fx f;
    fx_init(&f, PQ_TYPE_INT32, PQ_CONV_I32, T_INT);
    pq_row_ranges r;
    /* Page 0 [-5,5], page 1 all NULL, page 2 [10,20] with 3 NULLs, page 3 [30,40]. */
    select_rows(&a, &f, &pi, PQ_PRED_EQ, int1(T_INT, 12), &r);
    assert_true(ranges_are(&r, 1, (int64_t[]){25, 40}));
    select_rows(&a, &f, &pi, PQ_PRED_EQ, int1(T_INT, 25), &r);
    assert_int_equal(r.n, 0);
    select_rows(&a, &f, &pi, PQ_PRED_LT, int1(T_INT, 11), &r);
    assert_true(ranges_are(&r, 2, (int64_t[]){0, 10, 25, 40}));
    select_rows(&a, &f, &pi, PQ_PRED_GE, int1(T_INT, 20), &r);
    assert_true(ranges_are(&r, 1, (int64_t[]){25, 50}));
    select_rows(&a, &f, &pi, PQ_PRED_IS_NULL, NULL, &r);
    assert_true(ranges_are(&r, 1, (int64_t[]){10, 40}));
    select_rows(&a, &f, &pi, PQ_PRED_IS_NOT_NULL, NULL, &r);
    assert_true(ranges_are(&r, 2, (int64_t[]){0, 10, 25, 50}));
    int64_t in[] = {0, 35};
    pq_predicate p = {&f.leaf, PQ_PRED_IN, ints(T_INT, 2, in), 2};
    assert_int_equal(pq_page_index_select(&a, &pi, &f.leaf, &f.meta, 50, &p, &r, NULL), SQE_OK);
    assert_true(ranges_are(&r, 2, (int64_t[]){0, 10, 40, 50}));
    /* null_pages alone (no null_counts) prove a page all NULL. */
    pq_page_index no_counts = pi;
    int64_t unknown[4] = {-1, -1, -1, -1};
    no_counts.null_count = unknown;
    select_rows(&a, &f, &no_counts, PQ_PRED_IS_NOT_NULL, NULL, &r);
    assert_true(ranges_are(&r, 2, (int64_t[]){0, 10, 25, 50}));
    select_rows(&a, &f, &no_counts, PQ_PRED_LE, int1(T_INT, 10), &r);
    assert_true(ranges_are(&r, 2, (int64_t[]){0, 10, 25, 40}));
    select_rows(&a, &f, &no_counts, PQ_PRED_IS_NULL, NULL, &r);
    assert_true(ranges_are(&r, 1, (int64_t[]){0, 50}));
    /* Without column_orders the bounds are not used; null pages still are. */
    f.meta.column_orders = NULL;
    select_rows(&a, &f, &pi, PQ_PRED_EQ, int1(T_INT, 25), &r);
    assert_true(ranges_are(&r, 2, (int64_t[]){0, 10, 25, 50}));
    /* Without a ColumnIndex everything is kept. */
    pq_page_index oi_only = pi;
    oi_only.has_column_index = false;
    select_rows(&a, &f, &oi_only, PQ_PRED_IS_NULL, NULL, &r);
    assert_true(ranges_are(&r, 1, (int64_t[]){0, 50}));
    /* A REQUIRED leaf has no NULL rows at all. */
    f.leaf.max_def = 0;
    select_rows(&a, &f, &pi, PQ_PRED_IS_NULL, NULL, &r);
    assert_int_equal(r.n, 0);
    /* Row group size inconsistent with the index. */
    fx_init(&f, PQ_TYPE_INT32, PQ_CONV_I32, T_INT);
    pq_predicate q = {&f.leaf, PQ_PRED_EQ, int1(T_INT, 1), 1};
    sqe_error err;
    assert_int_equal(pq_page_index_select(&a, &pi, &f.leaf, &f.meta, 40, &q, &r, &err),
                     SQE_ERR_INVALID_FILE);
    pq_page_index empty = pi;
    empty.n_pages = 0;
    assert_int_equal(pq_page_index_select(&a, &empty, &f.leaf, &f.meta, 40, &q, &r, &err),
                     SQE_ERR_INVALID_FILE);
    assert_int_equal(pq_page_index_select(&a, &empty, &f.leaf, &f.meta, 0, &q, &r, &err), SQE_OK);
    assert_int_equal(r.n, 0);
    arena_destroy(&a);
}

/* Pages whose bounds are absent, undecodable or NaN are kept; descending boundary order does
 * not change a linear scan. */
static void test_page_index_select_unusable_bounds(void **state) {
    (void)state;
    arena a;
    arena_init(&a, NULL);
    /* DOUBLE pages: [1,2], [NaN,NaN] (legacy), [3, NaN], [4,5] with an empty min. */
    tw ci, oi;
    enc_offset_index(&oi, 4, k_off, k_size, k_first);
    memset(&ci, 0, sizeof(ci));
    double mins[4] = {1, NAN, 3, 4}, maxs[4] = {2, NAN, NAN, 5};
    tw_begin(&ci);
    tw_field(&ci, PQ_THRIFT_LIST, 1);
    tw_list(&ci, PQ_THRIFT_BOOL_TRUE, 4);
    for (int i = 0; i < 4; i++) tw_byte(&ci, 2);
    for (int16_t fid = 2; fid <= 3; fid++) {
        tw_field(&ci, PQ_THRIFT_LIST, fid);
        tw_list(&ci, PQ_THRIFT_BINARY, 4);
        for (int i = 0; i < 4; i++) {
            double d = fid == 2 ? mins[i] : maxs[i];
            tw_binary(&ci, &d, fid == 2 && i == 3 ? 0 : 8);
        }
    }
    tw_field(&ci, PQ_THRIFT_I32, 4);
    tw_zigzag(&ci, PQ_BOUNDARY_DESCENDING);
    tw_end(&ci);
    pq_page_index pi;
    assert_int_equal(pq_page_index_decode(&a, ci.buf, ci.len, oi.buf, oi.len, &pi, NULL), SQE_OK);
    assert_int_equal(pi.null_count[0], -1);
    fx f;
    sqe_type td = type_make(TYPE_DOUBLE);
    fx_init(&f, PQ_TYPE_DOUBLE, PQ_CONV_DOUBLE, td);
    pq_row_ranges r;
    pq_predicate p = {&f.leaf, PQ_PRED_EQ, flt1(td, 100.0), 1};
    assert_int_equal(pq_page_index_select(&a, &pi, &f.leaf, &f.meta, 50, &p, &r, NULL), SQE_OK);
    assert_true(ranges_are(&r, 1, (int64_t[]){10, 50}));
    p.values = flt1(td, 1.5);
    assert_int_equal(pq_page_index_select(&a, &pi, &f.leaf, &f.meta, 50, &p, &r, NULL), SQE_OK);
    assert_true(ranges_are(&r, 1, (int64_t[]){0, 50}));
    p.values = flt1(td, NAN);
    assert_int_equal(pq_page_index_select(&a, &pi, &f.leaf, &f.meta, 50, &p, &r, NULL), SQE_OK);
    assert_true(ranges_are(&r, 1, (int64_t[]){0, 50}));
    /* No null_counts: IS NULL keeps every page that is not known to be NULL-free. */
    p.op = PQ_PRED_IS_NULL;
    assert_int_equal(pq_page_index_select(&a, &pi, &f.leaf, &f.meta, 50, &p, &r, NULL), SQE_OK);
    assert_true(ranges_are(&r, 1, (int64_t[]){0, 50}));
    arena_destroy(&a);
}

static void test_row_ranges(void **state) {
    (void)state;
    arena a;
    arena_init(&a, NULL);
    int64_t xb[] = {0, 10, 30}, xe[] = {5, 20, 40};
    int64_t yb[] = {3, 15, 40}, ye[] = {12, 30, 45};
    pq_row_ranges x = {3, xb, xe}, y = {3, yb, ye}, r, none = {0, NULL, NULL};
    assert_int_equal(pq_row_ranges_intersect(&a, &x, &y, &r, NULL), SQE_OK);
    assert_true(ranges_are(&r, 3, (int64_t[]){3, 5, 10, 12, 15, 20}));
    assert_int_equal(pq_row_ranges_count(&r), 2 + 2 + 5);
    assert_int_equal(pq_row_ranges_union(&a, &x, &y, &r, NULL), SQE_OK);
    assert_true(ranges_are(&r, 1, (int64_t[]){0, 45})); /* touching ranges merge */
    assert_int_equal(pq_row_ranges_intersect(&a, &x, &none, &r, NULL), SQE_OK);
    assert_int_equal(r.n, 0);
    assert_int_equal(pq_row_ranges_union(&a, &none, &y, &r, NULL), SQE_OK);
    assert_true(ranges_are(&r, 3, (int64_t[]){3, 12, 15, 30, 40, 45}));
    /* out may alias an input. */
    pq_row_ranges z = x;
    assert_int_equal(pq_row_ranges_intersect(&a, &z, &y, &z, NULL), SQE_OK);
    assert_true(ranges_are(&z, 3, (int64_t[]){3, 5, 10, 12, 15, 20}));
    assert_int_equal(pq_row_ranges_all(&a, 7, &r, NULL), SQE_OK);
    assert_true(ranges_are(&r, 1, (int64_t[]){0, 7}));
    assert_int_equal(pq_row_ranges_all(&a, 0, &r, NULL), SQE_OK);
    assert_int_equal(r.n, 0);
    assert_true(pq_row_ranges_overlaps(&x, 4, 6));
    assert_false(pq_row_ranges_overlaps(&x, 5, 10));
    assert_true(pq_row_ranges_overlaps(&x, 5, 11));
    assert_false(pq_row_ranges_overlaps(&x, 40, 100));
    assert_true(pq_row_ranges_overlaps(&x, -5, 1));
    assert_false(pq_row_ranges_overlaps(&x, 3, 3));
    assert_false(pq_row_ranges_overlaps(&none, 0, 100));
    /* Random cross-check of intersect/union against a bitmap. */
    uint32_t seed = 99;
    for (int iter = 0; iter < 500; iter++) {
        bool bx[64] = {0}, by[64] = {0};
        int64_t b1[32], e1[32], b2[32], e2[32];
        pq_row_ranges rx = {0, b1, e1}, ry = {0, b2, e2};
        for (int k = 0; k < 2; k++) {
            bool *bits = k ? by : bx;
            pq_row_ranges *rr = k ? &ry : &rx;
            int64_t pos = 0;
            while (pos < 64) {
                seed = seed * 1103515245u + 12345u;
                int64_t gap = (seed >> 16) % 6, len = 1 + (seed >> 8) % 6;
                if (pos + gap + len > 64) break;
                rr->begin[rr->n] = pos + gap;
                rr->end[rr->n] = pos + gap + len;
                for (int64_t i = pos + gap; i < pos + gap + len; i++) bits[i] = true;
                rr->n++;
                pos += gap + len + 1; /* keep ranges non-adjacent */
            }
        }
        pq_row_ranges ri, ru;
        assert_int_equal(pq_row_ranges_intersect(&a, &rx, &ry, &ri, NULL), SQE_OK);
        assert_int_equal(pq_row_ranges_union(&a, &rx, &ry, &ru, NULL), SQE_OK);
        for (int64_t i = 0; i < 64; i++) {
            assert_int_equal(pq_row_ranges_overlaps(&ri, i, i + 1), bx[i] && by[i]);
            assert_int_equal(pq_row_ranges_overlaps(&ru, i, i + 1), bx[i] || by[i]);
        }
        for (uint32_t i = 0; i + 1 < ru.n; i++) assert_true(ru.end[i] < ru.begin[i + 1]);
        for (uint32_t i = 0; i + 1 < ri.n; i++) assert_true(ri.end[i] < ri.begin[i + 1]);
    }
    arena_destroy(&a);
}

/* ---- bloom filters --------------------------------------------------------------------------- */

/* BloomFilterHeader with the given union member ids (1 = BLOCK / XXHASH / UNCOMPRESSED). */
static void enc_bloom_header(tw *w, int32_t n_bytes, int16_t alg, int16_t hash, int16_t comp) {
    memset(w, 0, sizeof(*w));
    tw_begin(w);
    tw_field(w, PQ_THRIFT_I32, 1);
    tw_zigzag(w, n_bytes);
    int16_t ids[3] = {alg, hash, comp};
    for (int i = 0; i < 3; i++) {
        if (!ids[i]) continue;
        tw_field(w, PQ_THRIFT_STRUCT, (int16_t)(2 + i));
        tw_begin(w);
        tw_field(w, PQ_THRIFT_STRUCT, ids[i]);
        tw_begin(w);
        tw_end(w);
        tw_end(w);
    }
    tw_end(w);
}

static void test_bloom_header(void **state) {
    (void)state;
    tw w;
    uint32_t hl, nb;
    sqe_error err;
    pq_bloom b;
    enc_bloom_header(&w, 64, 1, 1, 1);
    size_t header = w.len;
    assert_int_equal(pq_bloom_header_decode(w.buf, w.len, &hl, &nb, &err), SQE_OK);
    assert_int_equal(hl, header);
    assert_int_equal(nb, 64);
    /* The bitset must follow in full. */
    assert_int_equal(pq_bloom_decode(w.buf, w.len, &b, &err), SQE_ERR_INVALID_FILE);
    assert_null(b.bitset);
    memset(w.buf + w.len, 0, 64);
    w.len += 64;
    assert_int_equal(pq_bloom_decode(w.buf, w.len, &b, &err), SQE_OK);
    assert_ptr_equal(b.bitset, w.buf + header);
    assert_int_equal(b.n_bytes, 64);
    assert_int_equal(pq_bloom_decode(w.buf, w.len - 1, &b, &err), SQE_ERR_INVALID_FILE);
    /* Other algorithm / hash / compression members: unsupported, the filter is ignored. */
    int16_t other[3][3] = {{2, 1, 1}, {1, 2, 1}, {1, 1, 2}};
    for (int i = 0; i < 3; i++) {
        enc_bloom_header(&w, 64, other[i][0], other[i][1], other[i][2]);
        assert_int_equal(pq_bloom_header_decode(w.buf, w.len, &hl, &nb, &err),
                         SQE_ERR_NOT_SUPPORTED);
    }
    /* Missing members and bad sizes: invalid. */
    enc_bloom_header(&w, 64, 1, 0, 1);
    assert_int_equal(pq_bloom_header_decode(w.buf, w.len, &hl, &nb, &err), SQE_ERR_INVALID_FILE);
    int32_t bad_sizes[] = {0, -32, 33, 31, (int32_t)PQ_BLOOM_MAX_BYTES + 32, INT32_MIN};
    for (size_t i = 0; i < sizeof(bad_sizes) / sizeof(bad_sizes[0]); i++) {
        enc_bloom_header(&w, bad_sizes[i], 1, 1, 1);
        assert_int_equal(pq_bloom_header_decode(w.buf, w.len, &hl, &nb, &err),
                         SQE_ERR_INVALID_FILE);
    }
    /* Every truncation of a valid header fails cleanly. */
    enc_bloom_header(&w, 32, 1, 1, 1);
    for (size_t n = 0; n < w.len; n++)
        assert_int_not_equal(pq_bloom_header_decode(w.buf, n, &hl, &nb, NULL), SQE_OK);
}

static void test_bloom_xxhash_and_spec_example(void **state) {
    (void)state;
    assert_true(pq_bloom_hash("", 0) == 0xef46db3751d8e999ULL);
    assert_true(pq_bloom_hash("hello", 5) == 0x26c7827d889f6da3ULL);
    assert_true(pq_bloom_hash("parquet", 7) == 0x3c9d29275c52e429ULL);
    /* Insert/check round trip over many values, and a low false-positive rate. */
    static uint8_t bits[1024];
    memset(bits, 0, sizeof(bits));
    pq_bloom b = {bits, sizeof(bits)};
    for (int64_t i = 0; i < 200; i++)
        pq_bloom_insert_hash(bits, sizeof(bits), pq_bloom_hash(&i, 8));
    for (int64_t i = 0; i < 200; i++) assert_true(pq_bloom_check_hash(&b, pq_bloom_hash(&i, 8)));
    int fp = 0;
    for (int64_t i = 1000; i < 11000; i++) fp += pq_bloom_check_hash(&b, pq_bloom_hash(&i, 8));
    assert_true(fp < 500);
    /* A filter of the wrong shape never rejects. */
    pq_bloom bad = {bits, 16};
    assert_true(pq_bloom_check_hash(&bad, 1));
}

/* The file of apache/parquet-testing written by parquet-mr: "hello", "parquet", "bloom",
 * "filter" inserted. */
static const char *corpus_dir(void);
static uint8_t *read_whole(const char *path, size_t *len);

static void test_bloom_parquet_mr_file(void **state) {
    (void)state;
    char path[4096];
    snprintf(path, sizeof(path), "%s/data/bloom_filter.xxhash.bin", corpus_dir());
    size_t len;
    uint8_t *buf = read_whole(path, &len);
    if (!buf) skip();
    pq_bloom b;
    sqe_error err;
    assert_int_equal(pq_bloom_decode(buf, len, &b, &err), SQE_OK);
    assert_int_equal(b.n_bytes, 1024);
    assert_ptr_equal(b.bitset, buf + 16);
    fx f;
    fx_init(&f, PQ_TYPE_BYTE_ARRAY, PQ_CONV_BYTES, type_varchar(0));
    fx_logical(&f, PQ_LT_STRING);
    const char *in[] = {"hello", "parquet", "bloom", "filter"};
    for (int i = 0; i < 4; i++) {
        pq_predicate p = {&f.leaf, PQ_PRED_EQ, str1(in[i]), 1};
        assert_true(pq_bloom_may_contain(&b, &f.leaf, &p));
    }
    const char *out[] = {"absent", "", "Hello", "parquet2", "xyz"};
    int rejected = 0;
    for (int i = 0; i < 5; i++) {
        pq_predicate p = {&f.leaf, PQ_PRED_EQ, str1(out[i]), 1};
        rejected += !pq_bloom_may_contain(&b, &f.leaf, &p);
    }
    assert_true(rejected >= 4);
    free(buf);
}

/* A bloom filter holding exactly the given PLAIN encodings. */
typedef struct bloom_fx {
    uint8_t bits[256];
    pq_bloom b;
} bloom_fx;

static void bloom_init(bloom_fx *bf) {
    memset(bf->bits, 0, sizeof(bf->bits));
    bf->b.bitset = bf->bits;
    bf->b.n_bytes = sizeof(bf->bits);
}

static void bloom_add(bloom_fx *bf, const void *p, size_t n) {
    pq_bloom_insert_hash(bf->bits, sizeof(bf->bits), pq_bloom_hash(p, n));
}

static bool bmay(const pq_bloom *b, fx *f, pq_pred_op op, const vec *v, uint32_t n) {
    pq_predicate p = {&f->leaf, op, v, n};
    return pq_bloom_may_contain(b, &f->leaf, &p);
}

/* Each conversion's constant is hashed as the writer hashed the physical value. */
static void test_bloom_physical_encodings(void **state) {
    (void)state;
    bloom_fx bf;
    fx f;
    /* INT32: INTEGER, DATE, TINYINT (INT_8), decimals in INT32. */
    bloom_init(&bf);
    bloom_add(&bf, le32(-42), 4);
    fx_init(&f, PQ_TYPE_INT32, PQ_CONV_I32, T_INT);
    assert_true(bmay(&bf.b, &f, PQ_PRED_EQ, int1(T_INT, -42), 1));
    assert_false(bmay(&bf.b, &f, PQ_PRED_EQ, int1(T_INT, 42), 1));
    sqe_type tt = type_make(TYPE_TINYINT);
    fx_init(&f, PQ_TYPE_INT32, PQ_CONV_I32_TO_I8, tt);
    fx_int_logical(&f, 8, true);
    assert_true(bmay(&bf.b, &f, PQ_PRED_EQ, int1(tt, -42), 1));
    fx_init(&f, PQ_TYPE_INT32, PQ_CONV_I32_TO_I64, T_INT);
    fx_decimal(&f, 9, 2);
    assert_true(bmay(&bf.b, &f, PQ_PRED_EQ, int1(f.leaf.type, -42), 1));
    /* A decimal constant wider than INT32 cannot be in the column. */
    fx_init(&f, PQ_TYPE_INT32, PQ_CONV_I32_TO_I64, T_INT);
    fx_decimal(&f, 18, 2); /* a writer with p > 9 in INT32 (allowed but rare) */
    memset(bf.bits, 0xff, sizeof(bf.bits));
    assert_false(bmay(&bf.b, &f, PQ_PRED_EQ, int1(f.leaf.type, (int128)1 << 40), 1));
    /* Unsigned: the bit pattern; out-of-range constants are absent even from a full filter. */
    sqe_type ts = type_make(TYPE_SMALLINT);
    fx_init(&f, PQ_TYPE_INT32, PQ_CONV_U8_TO_I16, ts);
    fx_int_logical(&f, 8, false);
    assert_false(bmay(&bf.b, &f, PQ_PRED_EQ, int1(ts, 256), 1));
    assert_false(bmay(&bf.b, &f, PQ_PRED_EQ, int1(ts, -1), 1));
    assert_true(bmay(&bf.b, &f, PQ_PRED_EQ, int1(ts, 255), 1));
    fx_init(&f, PQ_TYPE_INT32, PQ_CONV_U32_TO_I64, T_BIGINT);
    fx_int_logical(&f, 32, false);
    assert_false(bmay(&bf.b, &f, PQ_PRED_EQ, int1(T_BIGINT, 0x100000000LL), 1));
    bloom_init(&bf);
    bloom_add(&bf, le32((int32_t)0xfffffff0u), 4);
    assert_true(bmay(&bf.b, &f, PQ_PRED_EQ, int1(T_BIGINT, 0xfffffff0LL), 1));
    assert_false(bmay(&bf.b, &f, PQ_PRED_EQ, int1(T_BIGINT, -16), 1));
    sqe_type t20 = type_decimal(20, 0);
    fx_init(&f, PQ_TYPE_INT64, PQ_CONV_U64_TO_I64DEC, t20);
    fx_int_logical(&f, 64, false);
    bloom_init(&bf);
    bloom_add(&bf, le64(-1), 8);
    assert_true(bmay(&bf.b, &f, PQ_PRED_EQ, int1(t20, ((int128)1 << 64) - 1), 1));
    assert_false(bmay(&bf.b, &f, PQ_PRED_EQ, int1(t20, -1), 1));
    /* INT64 and milliseconds. */
    sqe_type tsm = type_make(TYPE_TIMESTAMP);
    fx_init(&f, PQ_TYPE_INT64, PQ_CONV_I64_MILLIS_TO_MICROS, tsm);
    fx_logical(&f, PQ_LT_TIMESTAMP);
    f.el.logical.unit = PQ_UNIT_MILLIS;
    bloom_init(&bf);
    bloom_add(&bf, le64(-1234), 8);
    assert_true(bmay(&bf.b, &f, PQ_PRED_EQ, int1(tsm, -1234000), 1));
    assert_false(bmay(&bf.b, &f, PQ_PRED_EQ, int1(tsm, -1233000), 1));
    memset(bf.bits, 0xff, sizeof(bf.bits));
    assert_false(bmay(&bf.b, &f, PQ_PRED_EQ, int1(tsm, -1234001), 1)); /* sub-millisecond */
    assert_true(bmay(&bf.b, &f, PQ_PRED_EQ, int1(tsm, -1234000), 1));
    sqe_type ttm = type_with_precision(TYPE_TIME, 3);
    fx_init(&f, PQ_TYPE_INT32, PQ_CONV_I32_MILLIS_TO_MICROS, ttm);
    fx_logical(&f, PQ_LT_TIME);
    bloom_init(&bf);
    bloom_add(&bf, le32(5), 4);
    assert_true(bmay(&bf.b, &f, PQ_PRED_EQ, int1(ttm, 5000), 1));
    assert_false(bmay(&bf.b, &f, PQ_PRED_EQ, int1(ttm, 5001), 1));
    sqe_type tz = type_make(TYPE_TIMESTAMP_TZ);
    fx_init(&f, PQ_TYPE_INT64, PQ_CONV_I64_TO_TSTZ, tz);
    fx_logical(&f, PQ_LT_TIMESTAMP);
    bloom_init(&bf);
    bloom_add(&bf, le64(77), 8);
    assert_true(bmay(&bf.b, &f, PQ_PRED_EQ, int1(tz, 77), 1));
    /* Strings: bytes without length prefix; FIXED_LEN_BYTE_ARRAY of another length: absent. */
    fx_init(&f, PQ_TYPE_BYTE_ARRAY, PQ_CONV_BYTES, type_varchar(0));
    fx_logical(&f, PQ_LT_STRING);
    bloom_init(&bf);
    bloom_add(&bf, "a long string over twelve bytes", 31);
    bloom_add(&bf, "", 0);
    assert_true(bmay(&bf.b, &f, PQ_PRED_EQ, str1("a long string over twelve bytes"), 1));
    assert_true(bmay(&bf.b, &f, PQ_PRED_EQ, str1(""), 1));
    assert_false(bmay(&bf.b, &f, PQ_PRED_EQ, str1("a long string over twelve byte"), 1));
    sqe_type tb = type_make(TYPE_VARBINARY);
    fx_init(&f, PQ_TYPE_FIXED_LEN_BYTE_ARRAY, PQ_CONV_BYTES, tb);
    fx_flba(&f, 4);
    memset(bf.bits, 0xff, sizeof(bf.bits));
    assert_false(bmay(&bf.b, &f, PQ_PRED_EQ, bytes1(tb, "abc", 3), 1));
    assert_true(bmay(&bf.b, &f, PQ_PRED_EQ, bytes1(tb, "abcd", 4), 1));
    /* Decimal in FIXED_LEN_BYTE_ARRAY: big-endian two's complement of the column's width. */
    fx_init(&f, PQ_TYPE_FIXED_LEN_BYTE_ARRAY, PQ_CONV_DEC_BYTES, T_INT);
    fx_flba(&f, 12);
    fx_decimal(&f, 27, 3);
    bloom_init(&bf);
    uint8_t m5[12];
    memset(m5, 0xff, 12);
    m5[11] = 0xfb;
    bloom_add(&bf, m5, 12);
    assert_true(bmay(&bf.b, &f, PQ_PRED_EQ, int1(f.leaf.type, -5), 1));
    assert_false(bmay(&bf.b, &f, PQ_PRED_EQ, int1(f.leaf.type, 5), 1));
    fx_flba(&f, 2);
    fx_decimal(&f, 4, 0);
    memset(bf.bits, 0xff, sizeof(bf.bits));
    assert_false(bmay(&bf.b, &f, PQ_PRED_EQ, int1(f.leaf.type, 40000), 1)); /* > 2 bytes */
    assert_true(bmay(&bf.b, &f, PQ_PRED_EQ, int1(f.leaf.type, -32768), 1));
    /* UUID. */
    sqe_type tu = type_make(TYPE_UUID);
    fx_init(&f, PQ_TYPE_FIXED_LEN_BYTE_ARRAY, PQ_CONV_UUID, tu);
    fx_flba(&f, 16);
    fx_logical(&f, PQ_LT_UUID);
    bloom_init(&bf);
    uint8_t u[16];
    for (int i = 0; i < 16; i++) u[i] = (uint8_t)(0xf0 + i);
    bloom_add(&bf, u, 16);
    assert_true(bmay(&bf.b, &f, PQ_PRED_EQ, bytes1(tu, u, 16), 1));
    u[0] = 0;
    assert_false(bmay(&bf.b, &f, PQ_PRED_EQ, bytes1(tu, u, 16), 1));
    /* FLOAT16: exact halves are probed, other REALs are absent. */
    sqe_type tr = type_make(TYPE_REAL);
    fx_init(&f, PQ_TYPE_FIXED_LEN_BYTE_ARRAY, PQ_CONV_FLOAT16, tr);
    fx_flba(&f, 2);
    fx_logical(&f, PQ_LT_FLOAT16);
    bloom_init(&bf);
    bloom_add(&bf, "\x00\x3e", 2);         /* 1.5 */
    bloom_add(&bf, "\x01\x00", 2);         /* 2^-24 (subnormal) */
    bloom_add(&bf, "\xff\x7b", 2);         /* 65504 */
    assert_true(bmay(&bf.b, &f, PQ_PRED_EQ, flt1(tr, 1.5), 1));
    assert_true(bmay(&bf.b, &f, PQ_PRED_EQ, flt1(tr, 5.9604644775390625e-08), 1));
    assert_true(bmay(&bf.b, &f, PQ_PRED_EQ, flt1(tr, 65504.0), 1));
    assert_false(bmay(&bf.b, &f, PQ_PRED_EQ, flt1(tr, 2.5), 1));
    memset(bf.bits, 0xff, sizeof(bf.bits));
    assert_false(bmay(&bf.b, &f, PQ_PRED_EQ, flt1(tr, 0.1), 1));
    assert_false(bmay(&bf.b, &f, PQ_PRED_EQ, flt1(tr, 65520.0), 1));
    assert_false(bmay(&bf.b, &f, PQ_PRED_EQ, flt1(tr, 1e-9), 1));
    assert_true(bmay(&bf.b, &f, PQ_PRED_EQ, flt1(tr, -3.0517578125e-05), 1));
}

static void test_bloom_floats_zero_and_nan(void **state) {
    (void)state;
    bloom_fx bf;
    fx f;
    sqe_type td = type_make(TYPE_DOUBLE), tr = type_make(TYPE_REAL);
    fx_init(&f, PQ_TYPE_DOUBLE, PQ_CONV_DOUBLE, td);
    bloom_init(&bf);
    bloom_add(&bf, f64b(-0.0), 8);
    assert_true(bmay(&bf.b, &f, PQ_PRED_EQ, flt1(td, 0.0), 1));
    assert_true(bmay(&bf.b, &f, PQ_PRED_EQ, flt1(td, -0.0), 1));
    assert_false(bmay(&bf.b, &f, PQ_PRED_EQ, flt1(td, 1.0), 1));
    bloom_init(&bf);
    bloom_add(&bf, f64b(0.0), 8);
    assert_true(bmay(&bf.b, &f, PQ_PRED_EQ, flt1(td, -0.0), 1));
    /* NaN has many encodings: never pruned, even by an empty filter. */
    bloom_init(&bf);
    assert_true(bmay(&bf.b, &f, PQ_PRED_EQ, flt1(td, NAN), 1));
    fx_init(&f, PQ_TYPE_FLOAT, PQ_CONV_FLOAT, tr);
    bloom_add(&bf, f32b(-0.0f), 4);
    assert_true(bmay(&bf.b, &f, PQ_PRED_EQ, flt1(tr, 0.0), 1));
    bloom_add(&bf, f32b(2.5f), 4);
    assert_true(bmay(&bf.b, &f, PQ_PRED_EQ, flt1(tr, 2.5), 1));
    assert_false(bmay(&bf.b, &f, PQ_PRED_EQ, flt1(tr, 2.25), 1));
    assert_true(bmay(&bf.b, &f, PQ_PRED_EQ, flt1(tr, NAN), 1));
}

/* Operators and types a filter cannot answer: true even with an empty filter. */
static void test_bloom_unanswerable(void **state) {
    (void)state;
    bloom_fx bf;
    bloom_init(&bf);
    fx f;
    fx_init(&f, PQ_TYPE_INT32, PQ_CONV_I32, T_INT);
    assert_true(bmay(&bf.b, &f, PQ_PRED_LT, int1(T_INT, 1), 1));
    assert_true(bmay(&bf.b, &f, PQ_PRED_IS_NULL, NULL, 0));
    assert_true(bmay(&bf.b, &f, PQ_PRED_IS_NOT_NULL, NULL, 0));
    assert_true(bmay(&bf.b, &f, PQ_PRED_EQ, int1(T_BIGINT, 1), 1)); /* type mismatch */
    assert_true(bmay(&bf.b, &f, PQ_PRED_EQ, NULL, 0));
    assert_true(bmay(NULL, &f, PQ_PRED_EQ, int1(T_INT, 1), 1));
    sqe_type t = type_make(TYPE_TIMESTAMP);
    fx_init(&f, PQ_TYPE_INT64, PQ_CONV_I64_NANOS_TO_MICROS, t);
    assert_true(bmay(&bf.b, &f, PQ_PRED_EQ, int1(t, 5), 1));
    fx_init(&f, PQ_TYPE_INT96, PQ_CONV_INT96, t);
    assert_true(bmay(&bf.b, &f, PQ_PRED_EQ, int1(t, 5), 1));
    fx_init(&f, PQ_TYPE_BYTE_ARRAY, PQ_CONV_DEC_BYTES, T_INT);
    fx_decimal(&f, 20, 2);
    assert_true(bmay(&bf.b, &f, PQ_PRED_EQ, int1(f.leaf.type, 5), 1));
    sqe_type tb = type_make(TYPE_BOOLEAN);
    fx_init(&f, PQ_TYPE_BOOLEAN, PQ_CONV_BOOL, tb);
    assert_true(bmay(&bf.b, &f, PQ_PRED_EQ, int1(tb, 1), 1));
    /* IN: absent when every constant is. */
    fx_init(&f, PQ_TYPE_INT32, PQ_CONV_I32, T_INT);
    bloom_add(&bf, le32(7), 4);
    int64_t none[] = {1, 2, 3}, some[] = {1, 7, 3};
    assert_false(bmay(&bf.b, &f, PQ_PRED_IN, ints(T_INT, 3, none), 3));
    assert_true(bmay(&bf.b, &f, PQ_PRED_IN, ints(T_INT, 3, some), 3));
    assert_false(bmay(&bf.b, &f, PQ_PRED_IN, ints(T_INT, 3, some), 0));
}

/* ---- real files ------------------------------------------------------------------------------ */

static const char *corpus_dir(void) {
    static char path[4096];
    const char *env = getenv("SQE_PARQUET_TESTING");
    struct stat st_buf;
    if (env && *env) return env;
    (void)st_buf;
    snprintf(path, sizeof(path), "%s/../shared/corpus/parquet-testing", SQE_SOURCE_DIR);
    return path;
}

static uint8_t *read_whole(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
    if (buf && n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *len = (size_t)(n > 0 ? n : 0);
    return buf;
}

/* The generated files: SQE_PRUNE_DATA, or generated once per run into a temporary directory. */
static char g_data_dir[4096];
static bool g_data_tmp;

static const char *data_dir(void) {
    static int state_done; /* 0 not tried, 1 ok, -1 failed */
    if (state_done) return state_done > 0 ? g_data_dir : NULL;
    state_done = -1;
    const char *env = getenv("SQE_PRUNE_DATA");
    char stamp[4200];
    if (env && *env) {
        snprintf(g_data_dir, sizeof(g_data_dir), "%s", env);
        snprintf(stamp, sizeof(stamp), "%s/pa_types.expect", g_data_dir);
        struct stat st_buf;
        if (stat(stamp, &st_buf) == 0) {
            state_done = 1;
            return g_data_dir;
        }
    } else {
        snprintf(g_data_dir, sizeof(g_data_dir), "/tmp/sqe_prune_XXXXXX");
        if (!mkdtemp(g_data_dir)) return NULL;
        g_data_tmp = true;
    }
    const char *root = SQE_SOURCE_DIR;
    const char *py = getenv("SQE_PYTHON");
    char py_buf[4200];
    if (!py || !*py) {
        snprintf(py_buf, sizeof(py_buf), "%s/.cache/venv/bin/python", root);
        py = py_buf;
    }
    char cmd[16384];
    snprintf(cmd, sizeof(cmd), "'%s' '%s/tests/parquet/gen_prune_files.py' '%s' '%s/data' >&2",
             py, root, g_data_dir, corpus_dir());
    if (system(cmd) != 0) {
        fprintf(stderr, "# gen_prune_files.py failed; file tests skipped\n");
        return NULL;
    }
    state_done = 1;
    return g_data_dir;
}

static void remove_data_dir(void) {
    if (!g_data_tmp) return;
    DIR *d = opendir(g_data_dir);
    if (d) {
        struct dirent *de;
        char path[8300];
        while ((de = readdir(d)) != NULL) {
            if (de->d_name[0] == '.') continue;
            snprintf(path, sizeof(path), "%s/%s", g_data_dir, de->d_name);
            unlink(path);
        }
        closedir(d);
    }
    rmdir(g_data_dir);
}

/* One open file of the expectations. */
typedef struct pfile {
    char name[256];
    uint8_t *buf;
    size_t len;
    arena a;
    pq_file_meta *meta;
    pq_schema *schema;
    bool ok;
} pfile;

static void pfile_close(pfile *pf) {
    if (pf->buf) {
        free(pf->buf);
        arena_destroy(&pf->a);
    }
    memset(pf, 0, sizeof(*pf));
}

static bool pfile_open(pfile *pf, const char *dir, const char *name) {
    pfile_close(pf);
    snprintf(pf->name, sizeof(pf->name), "%s", name);
    char path[8300];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    pf->buf = read_whole(path, &pf->len);
    if (!pf->buf) return false;
    arena_init(&pf->a, NULL);
    sqe_error err;
    if (pq_meta_read_footer(&pf->a, pf->buf, pf->len, &pf->meta, &err) != SQE_OK) return false;
    if (pq_schema_build(&pf->a, pf->meta, &pf->schema, &err) != SQE_OK) {
        fprintf(stderr, "# %s: %s\n", name, err.message);
        return false;
    }
    pf->ok = true;
    return true;
}

/* Statistics of one expectations run. */
typedef struct tally {
    long lines, skipped;
    long rg_checks, rg_truth0, rg_pruned, rg_exact_checks;
    long page_checks, rows_total, rows_pruned, rows_truth;
    long bloom_checks, bloom_candidates, bloom_pruned;
    long failures;
} tally;

/* Per column bloom statistics (to require that filters do reject). */
typedef struct bloom_col {
    char key[300];
    long candidates, pruned;
    bool probeable;
} bloom_col;

#define MAX_BLOOM_COLS 256
static bloom_col g_bloom_cols[MAX_BLOOM_COLS];
static int g_n_bloom_cols;

static bloom_col *bloom_col_get(const char *file, const char *col, bool probeable) {
    char key[300];
    snprintf(key, sizeof(key), "%s:%s", file, col);
    for (int i = 0; i < g_n_bloom_cols; i++)
        if (strcmp(g_bloom_cols[i].key, key) == 0) return &g_bloom_cols[i];
    assert_true(g_n_bloom_cols < MAX_BLOOM_COLS);
    bloom_col *b = &g_bloom_cols[g_n_bloom_cols++];
    memset(b, 0, sizeof(*b));
    snprintf(b->key, sizeof(b->key), "%s", key);
    b->probeable = probeable;
    return b;
}

static bool parse_int128(const char *s, int128 *out) {
    bool neg = *s == '-';
    if (neg) s++;
    if (!*s) return false;
    unsigned __int128 v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9') return false;
        v = v * 10 + (unsigned)(*s - '0');
    }
    *out = neg ? -(int128)v : (int128)v;
    return true;
}

static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

/* Builds the constant vector of leaf's type from tokens; false when a token does not fit. */
static bool build_consts(const pq_node *leaf, char **tok, uint32_t n, const vec **out) {
    sqe_type t = leaf->type;
    vec *v = new_vec(t, n);
    for (uint32_t i = 0; i < n; i++) {
        const char *s = tok[i];
        if (s[0] == 'i' && s[1] == ':') {
            int128 x;
            if (!parse_int128(s + 2, &x)) return false;
            int128 lo, hi;
            switch ((type_id)t.id) {
            case TYPE_BOOLEAN: lo = 0, hi = 1; break;
            case TYPE_TINYINT: lo = INT8_MIN, hi = INT8_MAX; break;
            case TYPE_SMALLINT: lo = INT16_MIN, hi = INT16_MAX; break;
            case TYPE_INTEGER:
            case TYPE_DATE: lo = INT32_MIN, hi = INT32_MAX; break;
            case TYPE_BIGINT:
            case TYPE_TIME:
            case TYPE_TIMESTAMP:
            case TYPE_TIMESTAMP_TZ: lo = INT64_MIN, hi = INT64_MAX; break;
            case TYPE_DECIMAL:
                hi = decimal_max_unscaled(t.precision);
                lo = -hi;
                break;
            default: return false;
            }
            if (x < lo || x > hi) return false;
            put_int(v, i, x);
        } else if (s[0] == 'f' && s[1] == ':') {
            double d = strcmp(s + 2, "nan") == 0 ? NAN : strtod(s + 2, NULL);
            if (t.id == TYPE_REAL)
                VEC_DATA(v, float)[i] = (float)d;
            else if (t.id == TYPE_DOUBLE)
                VEC_DATA(v, double)[i] = d;
            else
                return false;
        } else if (s[0] == 'x' && s[1] == ':') {
            size_t hl = strlen(s + 2);
            if (hl % 2) return false;
            uint8_t *b = pool_take(hl / 2 + 1);
            for (size_t k = 0; k < hl / 2; k++) {
                int hi4 = hexval(s[2 + 2 * k]), lo4 = hexval(s[3 + 2 * k]);
                if (hi4 < 0 || lo4 < 0) return false;
                b[k] = (uint8_t)(hi4 << 4 | lo4);
            }
            if (t.id == TYPE_UUID) {
                if (hl / 2 != 16) return false;
                memcpy((uint8_t *)v->data + 16 * (size_t)i, b, 16);
            } else if (type_is_string_view(t)) {
                VEC_DATA(v, sqe_str)[i] = sqe_str_make((const char *)b, (uint32_t)(hl / 2));
            } else {
                return false;
            }
        } else {
            return false;
        }
    }
    *out = v;
    return true;
}

/* Parses "a-b,c-d" (or "_") into ranges allocated in a. */
static void parse_ranges(arena *a, const char *s, size_t len, pq_row_ranges *out) {
    memset(out, 0, sizeof(*out));
    if (len == 1 && s[0] == '_') return;
    uint32_t cap = 1;
    for (size_t i = 0; i < len; i++) cap += s[i] == ',';
    out->begin = arena_alloc(a, cap * sizeof(int64_t));
    out->end = arena_alloc(a, cap * sizeof(int64_t));
    const char *p = s, *end = s + len;
    while (p < end) {
        char *q;
        long long b = strtoll(p, &q, 10);
        assert_true(*q == '-');
        long long e = strtoll(q + 1, &q, 10);
        out->begin[out->n] = b;
        out->end[out->n] = e;
        out->n++;
        p = q + (q < end && *q == ',');
    }
}

static bool probeable_conv(const pq_node *leaf) {
    switch (leaf->conv) {
    case PQ_CONV_NULL:
    case PQ_CONV_BOOL:
    case PQ_CONV_INT96:
    case PQ_CONV_I64_NANOS_TO_MICROS:
    case PQ_CONV_I64_NANOS_TO_TSTZ:
        return false;
    case PQ_CONV_DEC_BYTES:
        return leaf->physical == PQ_TYPE_FIXED_LEN_BYTE_ARRAY;
    default:
        return true;
    }
}

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            t->failures++;                                                                         \
            if (t->failures <= 30) {                                                               \
                fprintf(stderr, "FAIL %s:%ld: ", path, line_no);                                   \
                fprintf(stderr, __VA_ARGS__);                                                      \
                fprintf(stderr, "\n    %.300s\n", line_copy);                                      \
            }                                                                                      \
        }                                                                                          \
    } while (0)

/* Runs every predicate of one .expect file against its Parquet file(s). */
static void run_expect(const char *dir, const char *expect_name, const char *files_dir,
                       tally *t) {
    char path[8300];
    snprintf(path, sizeof(path), "%s/%s", dir, expect_name);
    FILE *fp = fopen(path, "r");
    assert_non_null(fp);
    pfile pf;
    memset(&pf, 0, sizeof(pf));
    arena scratch;
    arena_init(&scratch, NULL);
    size_t cap = 0;
    char *line = NULL;
    ssize_t got;
    long line_no = 0;
    while ((got = getline(&line, &cap, fp)) > 0) {
        line_no++;
        if (line[0] != 'P') continue;
        if (line[got - 1] == '\n') line[--got] = 0;
        char *line_copy = strndup(line, 400);
        arena_reset(&scratch);
        teardown(NULL);
        t->lines++;
        /* Tokenize. */
        char *tok[600];
        int nt = 0;
        for (char *s = strtok(line, " "); s && nt < 600; s = strtok(NULL, " ")) tok[nt++] = s;
        assert_true(nt >= 7);
        const char *fname = tok[1], *col = tok[2], *op_s = tok[3];
        uint32_t n_consts = (uint32_t)atoi(tok[4]);
        assert_true(5 + (int)n_consts + 2 <= nt);
        const char *rg_bits = tok[5 + n_consts] + 3;
        const char *rows_s = tok[6 + n_consts] + 5;
        bool exact = nt > 7 + (int)n_consts && strcmp(tok[7 + n_consts], "exact") == 0;
        if (!pf.ok || strcmp(pf.name, fname) != 0) {
            if (!pfile_open(&pf, files_dir, fname)) {
                /* Files SQE cannot open (schema) are covered by the schema tests. */
                t->skipped++;
                free(line_copy);
                continue;
            }
        }
        const pq_node *leaf = NULL;
        for (uint32_t i = 0; i < pf.schema->n_columns; i++)
            if (strcmp(pf.schema->columns[i]->name, col) == 0) leaf = pf.schema->columns[i];
        if (!leaf || leaf->kind != PQ_NODE_LEAF || leaf->max_rep != 0 || leaf->unsupported) {
            t->skipped++;
            free(line_copy);
            continue;
        }
        pq_pred_op op;
        if (!strcmp(op_s, "EQ")) op = PQ_PRED_EQ;
        else if (!strcmp(op_s, "LT")) op = PQ_PRED_LT;
        else if (!strcmp(op_s, "LE")) op = PQ_PRED_LE;
        else if (!strcmp(op_s, "GT")) op = PQ_PRED_GT;
        else if (!strcmp(op_s, "GE")) op = PQ_PRED_GE;
        else if (!strcmp(op_s, "IN")) op = PQ_PRED_IN;
        else if (!strcmp(op_s, "ISNULL")) op = PQ_PRED_IS_NULL;
        else op = PQ_PRED_IS_NOT_NULL;
        const vec *consts = NULL;
        if (n_consts && !build_consts(leaf, &tok[5], n_consts, &consts)) {
            t->skipped++;
            free(line_copy);
            continue;
        }
        pq_predicate p = {leaf, op, consts, n_consts};
        assert_int_equal(strlen(rg_bits), pf.meta->n_row_groups);
        const char *rs = rows_s;
        for (uint32_t g = 0; g < pf.meta->n_row_groups; g++) {
            const pq_row_group *rg = &pf.meta->row_groups[g];
            const pq_column_chunk *cc = &rg->columns[leaf->leaf];
            bool truth = rg_bits[g] == '1';
            const char *slash = strchr(rs, '/');
            size_t rlen = slash ? (size_t)(slash - rs) : strlen(rs);
            pq_row_ranges truth_rows;
            parse_ranges(&scratch, rs, rlen, &truth_rows);
            rs = slash ? slash + 1 : rs + rlen;
            CHECK(truth == (truth_rows.n > 0), "rg %u: truth bits and rows disagree", g);
            /* Statistics. */
            bool stats_may = pq_stats_may_match(pf.meta, cc, &p);
            t->rg_checks++;
            if (!truth) t->rg_truth0++;
            if (!stats_may) t->rg_pruned++;
            CHECK(!truth || stats_may, "rg %u: statistics pruned a matching row group", g);
            if (exact) {
                t->rg_exact_checks++;
                CHECK(truth || !stats_may, "rg %u: statistics did not prune (exact)", g);
            }
            /* Page index. */
            if (cc->has_offset_index) {
                sqe_error err;
                pq_page_index pi;
                const uint8_t *ci = NULL, *oi = NULL;
                size_t ci_len = 0, oi_len = 0;
                if (cc->offset_index_offset >= 0 && cc->offset_index_length > 0 &&
                    (uint64_t)cc->offset_index_offset + (uint64_t)cc->offset_index_length <=
                        pf.len) {
                    oi = pf.buf + cc->offset_index_offset;
                    oi_len = (size_t)cc->offset_index_length;
                }
                if (cc->has_column_index && cc->column_index_offset >= 0 &&
                    cc->column_index_length > 0 &&
                    (uint64_t)cc->column_index_offset + (uint64_t)cc->column_index_length <=
                        pf.len) {
                    ci = pf.buf + cc->column_index_offset;
                    ci_len = (size_t)cc->column_index_length;
                }
                int rc = pq_page_index_decode(&scratch, ci, ci_len, oi, oi_len, &pi, &err);
                CHECK(rc == SQE_OK, "rg %u: page index: %s", g, err.message);
                if (rc == SQE_OK) {
                    pq_row_ranges sel, both;
                    rc = pq_page_index_select(&scratch, &pi, leaf, pf.meta, rg->num_rows, &p, &sel,
                                              &err);
                    CHECK(rc == SQE_OK, "rg %u: page select: %s", g, err.message);
                    if (rc == SQE_OK) {
                        assert_int_equal(pq_row_ranges_intersect(&scratch, &truth_rows, &sel, &both,
                                                                 NULL),
                                         SQE_OK);
                        t->page_checks++;
                        t->rows_total += rg->num_rows;
                        t->rows_pruned += rg->num_rows - pq_row_ranges_count(&sel);
                        t->rows_truth += pq_row_ranges_count(&truth_rows);
                        CHECK(pq_row_ranges_count(&both) == pq_row_ranges_count(&truth_rows),
                              "rg %u: page index dropped matching rows", g);
                        if (exact) {
                            for (uint32_t k = 0; k < pi.n_pages; k++) {
                                int64_t b, e;
                                pq_page_index_page_rows(&pi, k, rg->num_rows, &b, &e);
                                bool kept = pq_row_ranges_overlaps(&sel, b, e);
                                bool has = pq_row_ranges_overlaps(&truth_rows, b, e);
                                CHECK(kept == has, "rg %u page %u: kept %d, matches %d (exact)", g,
                                      k, kept, has);
                            }
                        }
                    }
                }
            }
            /* Bloom filter. */
            if (cc->has_meta_data && cc->meta_data.has_bloom_filter_offset &&
                (op == PQ_PRED_EQ || op == PQ_PRED_IN)) {
                int64_t off = cc->meta_data.bloom_filter_offset;
                CHECK(off >= 0 && (uint64_t)off < pf.len, "rg %u: bloom offset", g);
                if (off >= 0 && (uint64_t)off < pf.len) {
                    size_t avail = pf.len - (size_t)off;
                    if (cc->meta_data.has_bloom_filter_length &&
                        (size_t)cc->meta_data.bloom_filter_length <= avail)
                        avail = (size_t)cc->meta_data.bloom_filter_length;
                    pq_bloom b;
                    sqe_error err;
                    int rc = pq_bloom_decode(pf.buf + off, avail, &b, &err);
                    CHECK(rc == SQE_OK, "rg %u: bloom decode: %s", g, err.message);
                    if (rc == SQE_OK) {
                        bool bm = pq_bloom_may_contain(&b, leaf, &p);
                        t->bloom_checks++;
                        CHECK(!truth || bm, "rg %u: bloom filter dropped a matching row group", g);
                        if (!truth && stats_may) {
                            bloom_col *bc = bloom_col_get(fname, col, probeable_conv(leaf));
                            bc->candidates++;
                            t->bloom_candidates++;
                            if (!bm) {
                                bc->pruned++;
                                t->bloom_pruned++;
                            } else if (getenv("SQE_PRUNE_VERBOSE")) {
                                fprintf(stderr, "# bloom kept rg %u: %.200s\n", g, line_copy);
                            }
                        }
                    }
                }
            }
        }
        free(line_copy);
    }
    free(line);
    fclose(fp);
    pfile_close(&pf);
    arena_destroy(&scratch);
    teardown(NULL);
}

static void print_tally(const char *what, const tally *t) {
    printf("# %s: %ld predicates (%ld skipped); statistics pruned %ld of %ld row groups "
           "(%ld without matches; %ld exact checks); page index: %ld chunks, %ld of %ld rows "
           "pruned (%ld rows match); bloom: %ld checks, %ld of %ld candidates pruned; "
           "%ld failures\n",
           what, t->lines, t->skipped, t->rg_pruned, t->rg_checks, t->rg_truth0,
           t->rg_exact_checks, t->page_checks, t->rows_pruned, t->rows_total, t->rows_truth,
           t->bloom_checks, t->bloom_pruned, t->bloom_candidates, t->failures);
}

static void test_files_generated(void **state) {
    (void)state;
    const char *dir = data_dir();
    if (!dir) skip();
    const char *names[] = {"pa_types.expect", "duckdb_bloom.expect"};
    for (int i = 0; i < 2; i++) {
        tally t;
        memset(&t, 0, sizeof(t));
        g_n_bloom_cols = 0;
        run_expect(dir, names[i], dir, &t);
        print_tally(names[i], &t);
        assert_int_equal(t.failures, 0);
        assert_true(t.lines > 500);
        assert_true(t.skipped * 20 < t.lines);
        assert_true(t.rg_pruned > t.rg_truth0 / 2);
        if (i == 0) {
            assert_true(t.page_checks > 1000);
            assert_true(t.rows_pruned > t.rows_total / 3);
        }
        /* Bloom filters reject most absent values of every column with a probe-able type. */
        for (int k = 0; k < g_n_bloom_cols; k++) {
            bloom_col *bc = &g_bloom_cols[k];
            printf("#   bloom %-28s %4ld of %4ld pruned%s\n", bc->key, bc->pruned, bc->candidates,
                   bc->probeable ? "" : " (not probe-able)");
            if (bc->probeable && bc->candidates >= 6)
                assert_true(bc->pruned * 2 >= bc->candidates);
        }
    }
}

static void test_files_corpus(void **state) {
    (void)state;
    const char *dir = data_dir();
    if (!dir) skip();
    char path[8300];
    snprintf(path, sizeof(path), "%s/corpus.expect", dir);
    struct stat st_buf;
    if (stat(path, &st_buf) != 0) skip();
    char files[4200];
    snprintf(files, sizeof(files), "%s/data", corpus_dir());
    tally t;
    memset(&t, 0, sizeof(t));
    g_n_bloom_cols = 0;
    run_expect(dir, "corpus.expect", files, &t);
    print_tally("parquet-testing", &t);
    for (int k = 0; k < g_n_bloom_cols; k++)
        printf("#   bloom %-50s %4ld of %4ld pruned\n", g_bloom_cols[k].key, g_bloom_cols[k].pruned,
               g_bloom_cols[k].candidates);
    assert_int_equal(t.failures, 0);
    assert_true(t.lines > 1000);
    assert_true(t.page_checks > 100);
}

/* Specific corpus facts: the NaN max of pyarrow 0.8 is not trusted, the parquet-mr 1.8.2
 * decimal statistics (deprecated, binary) are not used, IEEE 754 ordered columns keep their
 * row groups, the alltypes_tiny_pages index selects few short pages. */
static void test_corpus_specifics(void **state) {
    (void)state;
    char dir[4200];
    snprintf(dir, sizeof(dir), "%s/data", corpus_dir());
    pfile pf;
    memset(&pf, 0, sizeof(pf));
    if (!pfile_open(&pf, dir, "nan_in_stats.parquet")) skip();
    const pq_node *x = pf.schema->columns[0];
    sqe_type td = type_make(TYPE_DOUBLE);
    pq_predicate p = {x, PQ_PRED_EQ, flt1(td, 1.0), 1};
    assert_true(pq_stats_may_match(pf.meta, &pf.meta->row_groups[0].columns[0], &p));
    p.op = PQ_PRED_GT;
    p.values = flt1(td, 5.0);
    assert_true(pq_stats_may_match(pf.meta, &pf.meta->row_groups[0].columns[0], &p));
    double lo, hi;
    assert_false(pq_stats_min_max(pf.meta, &pf.meta->row_groups[0].columns[0], x, &lo, &hi));

    assert_true(pfile_open(&pf, dir, "fixed_length_decimal_legacy.parquet"));
    x = pf.schema->columns[0];
    assert_null(pf.meta->column_orders);
    p.leaf = x;
    p.op = PQ_PRED_EQ;
    p.values = int1(x->type, 100000);
    assert_true(pq_stats_may_match(pf.meta, &pf.meta->row_groups[0].columns[0], &p));

    assert_true(pfile_open(&pf, dir, "alltypes_tiny_pages.parquet"));
    x = pf.schema->columns[0]; /* id 0 .. 7299 */
    const pq_column_chunk *cc = &pf.meta->row_groups[0].columns[0];
    arena a;
    arena_init(&a, NULL);
    pq_page_index pi;
    sqe_error err;
    assert_int_equal(pq_page_index_decode(&a, pf.buf + cc->column_index_offset,
                                          (size_t)cc->column_index_length,
                                          pf.buf + cc->offset_index_offset,
                                          (size_t)cc->offset_index_length, &pi, &err),
                     SQE_OK);
    assert_true(pi.n_pages > 100);
    pq_row_ranges r;
    p.leaf = x;
    p.values = int1(x->type, 5000);
    assert_int_equal(pq_page_index_select(&a, &pi, x, pf.meta, pf.meta->row_groups[0].num_rows, &p,
                                          &r, &err),
                     SQE_OK);
    /* id 5000 is row 5885 (ids are not in file order); a few short pages remain. */
    assert_true(pq_row_ranges_overlaps(&r, 5885, 5886));
    assert_true(pq_row_ranges_count(&r) < 7300 / 20);
    /* Every column chunk's page index of the file decodes. */
    for (uint32_t c = 0; c < pf.meta->row_groups[0].n_columns; c++) {
        cc = &pf.meta->row_groups[0].columns[c];
        assert_int_equal(pq_page_index_decode(&a, pf.buf + cc->column_index_offset,
                                              (size_t)cc->column_index_length,
                                              pf.buf + cc->offset_index_offset,
                                              (size_t)cc->offset_index_length, &pi, &err),
                         SQE_OK);
    }
    arena_destroy(&a);
    pfile_close(&pf);
}

static const pq_node *column_named(const pfile *pf, const char *name) {
    for (uint32_t i = 0; i < pf->schema->n_columns; i++)
        if (strcmp(pf->schema->columns[i]->name, name) == 0) return pf->schema->columns[i];
    fail_msg("no column %s", name);
    return NULL;
}

/* Facts of the pyarrow file: unsigned and byte-wise bounds decode as SQE values, the all-NULL
 * row group and the NULL pages are dropped. */
static void test_generated_file_specifics(void **state) {
    (void)state;
    const char *dir = data_dir();
    if (!dir) skip();
    pfile pf;
    memset(&pf, 0, sizeof(pf));
    assert_true(pfile_open(&pf, dir, "pa_types.parquet"));
    assert_int_equal(pf.meta->n_row_groups, 3);
    assert_non_null(pf.meta->column_orders);
    /* uint32 across 2^31: row group 1 holds 2^31 - 500 .. 2^31 + 499. */
    const pq_node *u32 = column_named(&pf, "u32");
    assert_int_equal(u32->conv, PQ_CONV_U32_TO_I64);
    int64_t lo, hi;
    assert_true(pq_stats_min_max(pf.meta, &pf.meta->row_groups[1].columns[u32->leaf], u32, &lo,
                                 &hi));
    assert_true(lo == 2147483648LL - 500 && hi == 2147483648LL + 499);
    /* uint64 across 2^63 as DECIMAL(20,0). */
    const pq_node *u64 = column_named(&pf, "u64");
    int128 wlo, whi;
    assert_true(pq_stats_min_max(pf.meta, &pf.meta->row_groups[2].columns[u64->leaf], u64, &wlo,
                                 &whi));
    assert_true(wlo == ((int128)1 << 63) + 500 && whi == ((int128)1 << 63) + 1499);
    /* Strings: the largest value starts with the 4-byte UTF-8 rocket (0xf0). */
    const pq_node *str = column_named(&pf, "str");
    sqe_str slo, shi;
    assert_true(pq_stats_min_max(pf.meta, &pf.meta->row_groups[0].columns[str->leaf], str, &slo,
                                 &shi));
    assert_int_equal((uint8_t)sqe_str_data(&shi)[0], 0xf0);
    /* Nanoseconds read as floored microseconds (the expectations test constants so floored). */
    const pq_node *ns = column_named(&pf, "ts_ns");
    assert_int_equal(ns->conv, PQ_CONV_I64_NANOS_TO_MICROS);
    /* The "nulls" column: all NULL in row group 1, NULL rows 100..299 in row group 0. */
    const pq_node *nulls = column_named(&pf, "nulls");
    pq_predicate p = {nulls, PQ_PRED_EQ, int1(nulls->type, 1500), 1};
    const pq_column_chunk *cc1 = &pf.meta->row_groups[1].columns[nulls->leaf];
    assert_false(pq_stats_may_match(pf.meta, cc1, &p));
    p.op = PQ_PRED_IS_NOT_NULL;
    assert_false(pq_stats_may_match(pf.meta, cc1, &p));
    p.op = PQ_PRED_IS_NULL;
    assert_true(pq_stats_may_match(pf.meta, cc1, &p));
    const pq_column_chunk *cc0 = &pf.meta->row_groups[0].columns[nulls->leaf];
    arena a;
    arena_init(&a, NULL);
    pq_page_index pi;
    sqe_error err;
    assert_int_equal(pq_page_index_decode(&a, pf.buf + cc0->column_index_offset,
                                          (size_t)cc0->column_index_length,
                                          pf.buf + cc0->offset_index_offset,
                                          (size_t)cc0->offset_index_length, &pi, &err),
                     SQE_OK);
    assert_int_equal(pi.n_pages, 10);
    assert_true(pi.null_page[1] && pi.null_page[2] && !pi.null_page[3]);
    pq_row_ranges r;
    p.op = PQ_PRED_IS_NOT_NULL;
    assert_int_equal(pq_page_index_select(&a, &pi, nulls, pf.meta, 1000, &p, &r, &err), SQE_OK);
    assert_true(ranges_are(&r, 2, (int64_t[]){0, 100, 300, 1000}));
    p.op = PQ_PRED_IS_NULL;
    assert_int_equal(pq_page_index_select(&a, &pi, nulls, pf.meta, 1000, &p, &r, &err), SQE_OK);
    assert_true(ranges_are(&r, 1, (int64_t[]){100, 300}));
    arena_destroy(&a);
    pfile_close(&pf);
}

static int group_teardown(void **state) {
    (void)state;
    remove_data_dir();
    return 0;
}

#define T(fn) cmocka_unit_test_teardown(fn, teardown)

int main(void) {
    const struct CMUnitTest tests[] = {
        T(test_stats_int32_signed),
        T(test_stats_missing),
        T(test_stats_legacy_without_column_orders),
        T(test_stats_unknown_column_order),
        T(test_stats_uint32_unsigned_order),
        T(test_stats_uint64_as_decimal),
        T(test_stats_narrow_ints_out_of_range),
        T(test_stats_order_mismatch),
        T(test_stats_bool),
        T(test_stats_string_unsigned_order),
        T(test_stats_string_truncated),
        T(test_stats_binary_deprecated),
        T(test_stats_uuid_and_flba),
        T(test_stats_float_nan_bounds),
        T(test_stats_float_nan_constant),
        T(test_stats_float_signed_zeros),
        T(test_stats_float16),
        T(test_stats_all_null_chunk),
        T(test_stats_null_counts),
        T(test_stats_null_type_and_unsupported),
        T(test_stats_timestamp_millis),
        T(test_stats_timestamp_nanos_floor),
        T(test_stats_time_and_date),
        T(test_stats_decimal_ints),
        T(test_stats_decimal_binary_signed),
        T(test_stats_int96_never_by_bounds),
        T(test_stats_bad_inputs),
        T(test_page_index_decode),
        T(test_page_index_decode_invalid),
        T(test_page_index_hostile),
        T(test_page_index_select),
        T(test_page_index_select_unusable_bounds),
        T(test_row_ranges),
        T(test_bloom_header),
        T(test_bloom_xxhash_and_spec_example),
        T(test_bloom_parquet_mr_file),
        T(test_bloom_physical_encodings),
        T(test_bloom_floats_zero_and_nan),
        T(test_bloom_unanswerable),
        T(test_files_generated),
        T(test_generated_file_specifics),
        T(test_files_corpus),
        T(test_corpus_specifics),
    };
    return cmocka_run_group_tests(tests, NULL, group_teardown);
}
