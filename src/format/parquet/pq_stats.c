/*
 * pq_stats.c: row-group pruning by column-chunk statistics, and the bound arithmetic shared
 * with the page index: sort orders, PLAIN bounds and SQE constants as comparable pq_bound
 * values, and the "may some value in [lo, hi] satisfy p" test.
 *
 * INTERFACE
 *   pq_stats_may_match         may a column chunk hold a row satisfying p?
 *   pq_stats_may_match_stats   the same over any Statistics struct (page headers)
 *   pq_stats_min_max           trusted chunk bounds as SQE physical values
 *   pq_leaf_sort_order         the ColumnOrder sort order of a leaf's type
 *   pq_bound_from_plain        PLAIN bound bytes -> SQE-space bound (leaf->conv)
 *   pq_bound_from_value        SQE constant -> bound
 *   pq_bound_compare, pq_bounds_may_match
 * NOTES
 *   Which bounds are trusted (parquet.thrift Statistics and ColumnOrder):
 *   - min_value/max_value only when the file's column_orders give TYPE_ORDER for the leaf
 *     (without column_orders their meaning is undefined), and the leaf's order is known (not
 *     INT96, INTERVAL or an unknown logical type). Each side is used on its own; inexact or
 *     truncated values are still bounds.
 *   - otherwise the deprecated min/max, which are always in signed order: usable as they are
 *     for signed-order non-binary types (ints, dates, times, timestamps, decimals in ints,
 *     floats, booleans); for unsigned integers only when min and max have the same sign (then
 *     both orders agree on everything between them); for binary types only when min == max
 *     byte for byte (all values equal, in any order), and never from parquet-mr before 1.8.0 or
 *     an unnamed writer (PARQUET-251: reused buffers made binary statistics wrong).
 *   - a bound that does not decode (wrong size, NaN, outside the SQE type's range) makes both
 *     bounds untrusted: a NaN bound means a legacy writer let NaN into the statistics, and an
 *     out-of-range value is read with a wrapping conversion, so neither side bounds the values.
 *   Floats compare by value in double: -0.0 == +0.0, so a +0.0 minimum never excludes -0.0.
 *   NaN never satisfies a comparison (IEEE, as the evaluator), so NaN values a writer left out
 *   of the bounds cannot be missed; a NaN constant never prunes.
 *   NULLs: null_count == num_values (num_values counts NULLs) proves an all-NULL chunk, which no
 *   comparison matches; null_count == 0, or a leaf that cannot be NULL (max_def == 0), rules out
 *   IS NULL. A missing null_count proves nothing.
 */
#include "format/parquet/pq_prune.h"

#include <math.h>
#include <string.h>

#include "types/decimal.h"
#include "vec/vec.h"

/* ---- sort orders ------------------------------------------------------------------------- */

/* The order implied by the conversion alone (what the reader does with the values). */
static pq_sort_order conv_sort_order(const pq_node *leaf) {
    switch (leaf->conv) {
    case PQ_CONV_NULL:
    case PQ_CONV_INT96:
        return PQ_SORT_UNKNOWN;
    case PQ_CONV_U8_TO_I16:
    case PQ_CONV_U16_TO_I32:
    case PQ_CONV_U32_TO_I64:
    case PQ_CONV_U64_TO_I64DEC:
    case PQ_CONV_BYTES:
    case PQ_CONV_UUID:
        return PQ_SORT_UNSIGNED;
    default:
        return PQ_SORT_SIGNED;
    }
}

/* parquet.thrift ColumnOrder: the order of the leaf's logical type, else its converted type,
 * else its physical type. */
static pq_sort_order element_sort_order(const pq_schema_element *el, int32_t physical) {
    if (el && el->logical.kind != PQ_LT_NONE) {
        switch (el->logical.kind) {
        case PQ_LT_STRING:
        case PQ_LT_ENUM:
        case PQ_LT_JSON:
        case PQ_LT_BSON:
        case PQ_LT_UUID:
            return PQ_SORT_UNSIGNED;
        case PQ_LT_INTEGER:
            return el->logical.is_signed ? PQ_SORT_SIGNED : PQ_SORT_UNSIGNED;
        case PQ_LT_DECIMAL:
        case PQ_LT_DATE:
        case PQ_LT_TIME:
        case PQ_LT_TIMESTAMP:
        case PQ_LT_FLOAT16:
            return PQ_SORT_SIGNED;
        default:
            return PQ_SORT_UNKNOWN;
        }
    }
    if (el && el->has_converted_type) {
        switch (el->converted_type) {
        case PQ_CT_UTF8:
        case PQ_CT_ENUM:
        case PQ_CT_JSON:
        case PQ_CT_BSON:
        case PQ_CT_UINT_8:
        case PQ_CT_UINT_16:
        case PQ_CT_UINT_32:
        case PQ_CT_UINT_64:
            return PQ_SORT_UNSIGNED;
        case PQ_CT_INT_8:
        case PQ_CT_INT_16:
        case PQ_CT_INT_32:
        case PQ_CT_INT_64:
        case PQ_CT_DECIMAL:
        case PQ_CT_DATE:
        case PQ_CT_TIME_MILLIS:
        case PQ_CT_TIME_MICROS:
        case PQ_CT_TIMESTAMP_MILLIS:
        case PQ_CT_TIMESTAMP_MICROS:
            return PQ_SORT_SIGNED;
        default:
            return PQ_SORT_UNKNOWN;
        }
    }
    switch (physical) {
    case PQ_TYPE_BOOLEAN:
    case PQ_TYPE_INT32:
    case PQ_TYPE_INT64:
    case PQ_TYPE_FLOAT:
    case PQ_TYPE_DOUBLE:
        return PQ_SORT_SIGNED;
    case PQ_TYPE_BYTE_ARRAY:
    case PQ_TYPE_FIXED_LEN_BYTE_ARRAY:
        return PQ_SORT_UNSIGNED;
    default:
        return PQ_SORT_UNKNOWN;
    }
}

pq_sort_order pq_leaf_sort_order(const pq_node *leaf) {
    if (!leaf || leaf->kind != PQ_NODE_LEAF || leaf->unsupported) return PQ_SORT_UNKNOWN;
    pq_sort_order by_conv = conv_sort_order(leaf);
    if (!leaf->element) return by_conv;
    pq_sort_order by_type = element_sort_order(leaf->element, leaf->physical);
    /* The schema's conversion and the annotations must agree on what the values are. */
    return by_type == by_conv ? by_type : PQ_SORT_UNKNOWN;
}

/* ---- bounds ------------------------------------------------------------------------------ */

static int32_t load_i32(const uint8_t *p) {
    uint32_t v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    return (int32_t)v;
}

static int64_t load_i64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
    return (int64_t)v;
}

/* Floor division by a positive divisor (nanoseconds -> microseconds, as the reader). */
static int128 floor_div(int128 v, int128 d) {
    int128 q = v / d;
    if (v % d != 0 && v < 0) q -= 1;
    return q;
}

/* IEEE 754 binary16 -> float (exact). */
static float half_to_float(uint16_t h) {
    int sign = h >> 15, exp = (h >> 10) & 0x1f, frac = h & 0x3ff;
    float v;
    if (exp == 0)
        v = ldexpf((float)frac, -24);
    else if (exp == 31)
        v = frac ? NAN : INFINITY;
    else
        v = ldexpf((float)(frac | 0x400), exp - 25);
    return sign ? -v : v;
}

/* Big-endian two's complement of len bytes -> int128; false when it does not fit. */
static bool be_to_int128(const uint8_t *p, size_t len, int128 *out) {
    if (len == 0) return false;
    uint8_t sign = (p[0] & 0x80) ? 0xff : 0x00;
    while (len > 16) {
        if (p[0] != sign) return false;
        p++;
        len--;
    }
    if (((p[0] & 0x80) ? 0xff : 0x00) != sign) return false;
    unsigned __int128 u = sign ? ~(unsigned __int128)0 : 0;
    for (size_t i = 0; i < len; i++) u = u << 8 | p[i];
    *out = (int128)u;
    return true;
}

static void set_int(pq_bound *b, int128 v) {
    memset(b, 0, sizeof(*b));
    b->kind = PQ_BOUND_INT;
    b->i = v;
}

static bool set_float(pq_bound *b, double v) {
    memset(b, 0, sizeof(*b));
    if (isnan(v)) return false;
    b->kind = PQ_BOUND_FLOAT;
    b->f = v;
    return true;
}

static void set_bytes(pq_bound *b, const uint8_t *p, uint32_t len) {
    memset(b, 0, sizeof(*b));
    b->kind = PQ_BOUND_BYTES;
    b->ptr = p;
    b->len = len;
}

bool pq_bound_from_plain(const pq_node *leaf, const uint8_t *raw, size_t len, pq_bound *out) {
    memset(out, 0, sizeof(*out));
    if (!raw && len) return false;
    if (len > UINT32_MAX) return false;
    switch (leaf->conv) {
    case PQ_CONV_BOOL:
        if (len != 1) return false;
        set_int(out, raw[0] & 1);
        return true;
    case PQ_CONV_I32:
    case PQ_CONV_I32_TO_I64:
        if (len != 4) return false;
        set_int(out, load_i32(raw));
        return true;
    case PQ_CONV_I32_TO_I8:
    case PQ_CONV_I32_TO_I16: {
        if (len != 4) return false;
        int32_t v = load_i32(raw);
        int32_t lim = leaf->conv == PQ_CONV_I32_TO_I8 ? 128 : 32768;
        if (v < -lim || v >= lim) return false;
        set_int(out, v);
        return true;
    }
    case PQ_CONV_U8_TO_I16:
    case PQ_CONV_U16_TO_I32:
    case PQ_CONV_U32_TO_I64: {
        if (len != 4) return false;
        uint32_t v = (uint32_t)load_i32(raw);
        if (leaf->conv == PQ_CONV_U8_TO_I16 && v > UINT8_MAX) return false;
        if (leaf->conv == PQ_CONV_U16_TO_I32 && v > UINT16_MAX) return false;
        set_int(out, v);
        return true;
    }
    case PQ_CONV_I32_MILLIS_TO_MICROS:
        if (len != 4) return false;
        set_int(out, (int128)load_i32(raw) * 1000);
        return true;
    case PQ_CONV_I64:
    case PQ_CONV_I64_TO_I128:
    case PQ_CONV_I64_TO_TSTZ:
        if (len != 8) return false;
        set_int(out, load_i64(raw));
        return true;
    case PQ_CONV_U64_TO_I64DEC:
        if (len != 8) return false;
        set_int(out, (uint64_t)load_i64(raw));
        return true;
    case PQ_CONV_I64_MILLIS_TO_MICROS:
    case PQ_CONV_I64_MILLIS_TO_TSTZ:
        if (len != 8) return false;
        set_int(out, (int128)load_i64(raw) * 1000);
        return true;
    case PQ_CONV_I64_NANOS_TO_MICROS:
    case PQ_CONV_I64_NANOS_TO_TSTZ:
        if (len != 8) return false;
        set_int(out, floor_div(load_i64(raw), 1000));
        return true;
    case PQ_CONV_FLOAT: {
        float f;
        if (len != 4) return false;
        memcpy(&f, raw, 4);
        return set_float(out, f);
    }
    case PQ_CONV_DOUBLE: {
        double d;
        if (len != 8) return false;
        memcpy(&d, raw, 8);
        return set_float(out, d);
    }
    case PQ_CONV_FLOAT16:
        if (len != 2) return false;
        return set_float(out, half_to_float((uint16_t)(raw[0] | raw[1] << 8)));
    case PQ_CONV_BYTES:
        set_bytes(out, raw, (uint32_t)len);
        return true;
    case PQ_CONV_UUID:
        if (len != 16) return false;
        set_bytes(out, raw, 16);
        return true;
    case PQ_CONV_DEC_BYTES: {
        int128 v;
        if (!be_to_int128(raw, len, &v)) return false;
        set_int(out, v);
        return true;
    }
    case PQ_CONV_NULL:
    case PQ_CONV_INT96:
    default:
        return false;
    }
}

bool pq_bound_from_value(const pq_node *leaf, const vec *values, uint32_t row, pq_bound *out) {
    memset(out, 0, sizeof(*out));
    if (!values || !leaf) return false;
    sqe_type lt = leaf->type, vt = values->type;
    if (lt.id != vt.id) return false;
    if (lt.id == TYPE_DECIMAL && lt.scale != vt.scale) return false;
    if (vec_is_null(values, row)) return false;
    uint32_t phys = 0;
    const vec *flat = vec_resolve(values, row, &phys);
    if (!flat || !flat->data) return false;
    const void *d = flat->data;
    switch ((type_id)vt.id) {
    case TYPE_BOOLEAN: set_int(out, ((const uint8_t *)d)[phys] != 0); return true;
    case TYPE_TINYINT: set_int(out, ((const int8_t *)d)[phys]); return true;
    case TYPE_SMALLINT: set_int(out, ((const int16_t *)d)[phys]); return true;
    case TYPE_INTEGER:
    case TYPE_DATE:
    case TYPE_INTERVAL_YM: set_int(out, ((const int32_t *)d)[phys]); return true;
    case TYPE_BIGINT:
    case TYPE_TIME:
    case TYPE_TIMESTAMP:
    case TYPE_INTERVAL_DS: set_int(out, ((const int64_t *)d)[phys]); return true;
    case TYPE_TIMESTAMP_TZ: set_int(out, ((const sqe_timestamp_tz *)d)[phys].micros); return true;
    case TYPE_DECIMAL: set_int(out, decimal_get(d, flat->type, phys)); return true;
    case TYPE_REAL: return set_float(out, ((const float *)d)[phys]);
    case TYPE_DOUBLE: return set_float(out, ((const double *)d)[phys]);
    case TYPE_VARCHAR:
    case TYPE_CHAR:
    case TYPE_VARBINARY:
    case TYPE_JSON: {
        const sqe_str *s = &((const sqe_str *)d)[phys];
        set_bytes(out, (const uint8_t *)sqe_str_data(s), s->len);
        return true;
    }
    case TYPE_UUID: set_bytes(out, (const uint8_t *)d + (size_t)phys * 16, 16); return true;
    default: return false;
    }
}

int pq_bound_compare(const pq_bound *a, const pq_bound *b) {
    switch (a->kind) {
    case PQ_BOUND_INT: return a->i < b->i ? -1 : a->i > b->i;
    case PQ_BOUND_FLOAT: return a->f < b->f ? -1 : a->f > b->f;
    case PQ_BOUND_BYTES: {
        uint32_t n = a->len < b->len ? a->len : b->len;
        int c = n ? memcmp(a->ptr, b->ptr, n) : 0;
        if (c) return c < 0 ? -1 : 1;
        return a->len < b->len ? -1 : a->len > b->len;
    }
    default: return 0;
    }
}

/* May some v in [lo, hi] satisfy `v op c`? */
static bool range_may_match(const pq_bound *lo, const pq_bound *hi, pq_pred_op op,
                            const pq_bound *c) {
    if ((lo && lo->kind != c->kind) || (hi && hi->kind != c->kind)) return true;
    switch (op) {
    case PQ_PRED_EQ:
    case PQ_PRED_IN:
        if (lo && pq_bound_compare(c, lo) < 0) return false;
        if (hi && pq_bound_compare(c, hi) > 0) return false;
        return true;
    case PQ_PRED_LT: return !(lo && pq_bound_compare(lo, c) >= 0);
    case PQ_PRED_LE: return !(lo && pq_bound_compare(lo, c) > 0);
    case PQ_PRED_GT: return !(hi && pq_bound_compare(hi, c) <= 0);
    case PQ_PRED_GE: return !(hi && pq_bound_compare(hi, c) < 0);
    default: return true;
    }
}

bool pq_bounds_may_match(const pq_bound *lo, const pq_bound *hi, const pq_predicate *p) {
    if (!p || !p->leaf || !p->values) return true;
    if (!lo && !hi) return true;
    switch (p->op) {
    case PQ_PRED_EQ:
    case PQ_PRED_LT:
    case PQ_PRED_LE:
    case PQ_PRED_GT:
    case PQ_PRED_GE: {
        pq_bound c;
        if (p->n_values < 1) return true;
        if (!pq_bound_from_value(p->leaf, p->values, 0, &c)) return true;
        return range_may_match(lo, hi, p->op, &c);
    }
    case PQ_PRED_IN:
        for (uint32_t i = 0; i < p->n_values; i++) {
            pq_bound c;
            if (!pq_bound_from_value(p->leaf, p->values, i, &c)) return true;
            if (range_may_match(lo, hi, PQ_PRED_IN, &c)) return true;
        }
        return false;
    default:
        return true;
    }
}

/* ---- which statistics to trust ------------------------------------------------------------ */

/* created_by "parquet-mr version 1.7.0 (build ...)": false for writers whose binary statistics
 * are known wrong (PARQUET-251, fixed in parquet-mr 1.8.0) or unknown (no created_by). */
static bool binary_stats_writer_ok(const char *created_by) {
    static const char app[] = "parquet-mr", version[] = " version ";
    if (!created_by) return false;
    if (strncmp(created_by, app, sizeof(app) - 1) != 0) return true;
    const char *s = created_by + sizeof(app) - 1;
    if (*s != ' ' && *s != '\0') return true; /* another application ("parquet-mr-foo") */
    if (strncmp(s, version, sizeof(version) - 1) != 0) return false;
    s += sizeof(version) - 1;
    long part[3] = {0, 0, 0};
    for (int i = 0; i < 3; i++) {
        if (*s < '0' || *s > '9') {
            if (i == 0) return false; /* unparseable parquet-mr version */
            break;
        }
        while (*s >= '0' && *s <= '9') {
            if (part[i] < 100000) part[i] = part[i] * 10 + (*s - '0');
            s++;
        }
        if (*s != '.') break;
        s++;
    }
    if (part[0] != 1) return part[0] > 1;
    return part[1] >= 8;
}

static bool column_order_defined(const pq_file_meta *meta, const pq_node *leaf) {
    return meta && meta->column_orders && leaf->leaf < meta->n_column_orders &&
           meta->column_orders[leaf->leaf] == PQ_ORDER_TYPE_DEFINED;
}

static bool is_binary_physical(int32_t physical) {
    return physical == PQ_TYPE_BYTE_ARRAY || physical == PQ_TYPE_FIXED_LEN_BYTE_ARRAY;
}

/* The trusted bounds of st (see NOTES); *lo / *hi are NULL for an unknown side. */
static void trusted_bounds(const pq_file_meta *meta, const pq_node *leaf, const pq_statistics *st,
                           pq_bound *lo_buf, pq_bound *hi_buf, const pq_bound **lo,
                           const pq_bound **hi) {
    *lo = *hi = NULL;
    pq_sort_order order = pq_leaf_sort_order(leaf);
    if (order == PQ_SORT_UNKNOWN) return;
    if (column_order_defined(meta, leaf) && (st->has_min_value || st->has_max_value)) {
        if (st->has_min_value &&
            !pq_bound_from_plain(leaf, st->min_value, st->min_value_len, lo_buf))
            return;
        if (st->has_max_value &&
            !pq_bound_from_plain(leaf, st->max_value, st->max_value_len, hi_buf))
            return;
        if (st->has_min_value) *lo = lo_buf;
        if (st->has_max_value) *hi = hi_buf;
        return;
    }
    /* Deprecated min/max: signed order. */
    if (is_binary_physical(leaf->physical)) {
        if (!st->has_min || !st->has_max || st->min_len != st->max_len) return;
        if (st->min_len && memcmp(st->min, st->max, st->min_len) != 0) return;
        if (!binary_stats_writer_ok(meta ? meta->created_by : NULL)) return;
    } else if (order == PQ_SORT_UNSIGNED) {
        /* Unsigned ints: signed and unsigned order agree between two values of one sign. */
        if (!st->has_min || !st->has_max || st->min_len != st->max_len) return;
        if (st->min_len != 4 && st->min_len != 8) return;
        if ((st->min[st->min_len - 1] ^ st->max[st->max_len - 1]) & 0x80) return;
    } else if (leaf->physical == PQ_TYPE_INT96) {
        return;
    }
    if (st->has_min && !pq_bound_from_plain(leaf, st->min, st->min_len, lo_buf)) return;
    if (st->has_max && !pq_bound_from_plain(leaf, st->max, st->max_len, hi_buf)) return;
    if (st->has_min) *lo = lo_buf;
    if (st->has_max) *hi = hi_buf;
}

/* ---- pruning ------------------------------------------------------------------------------ */

static bool leaf_usable(const pq_predicate *p) {
    const pq_node *leaf = p ? p->leaf : NULL;
    return leaf && leaf->kind == PQ_NODE_LEAF && leaf->max_rep == 0 && !leaf->unsupported;
}

bool pq_stats_may_match_stats(const pq_file_meta *meta, const pq_statistics *st,
                              int64_t num_values, const pq_predicate *p) {
    if (!leaf_usable(p)) return true;
    const pq_node *leaf = p->leaf;
    /* An UNKNOWN (always NULL) column: only IS NULL holds, whatever the statistics say. */
    if (leaf->conv == PQ_CONV_NULL) return p->op == PQ_PRED_IS_NULL;
    if (p->op == PQ_PRED_IS_NULL && leaf->max_def == 0) return false;
    if (!st) return true;
    bool all_null = st->has_null_count && num_values >= 0 && st->null_count == num_values;
    switch (p->op) {
    case PQ_PRED_IS_NULL: return !(st->has_null_count && st->null_count == 0);
    case PQ_PRED_IS_NOT_NULL: return !all_null;
    default: break;
    }
    if (all_null) return false; /* comparisons and IN hold for no NULL */
    pq_bound lo_buf, hi_buf;
    const pq_bound *lo, *hi;
    trusted_bounds(meta, leaf, st, &lo_buf, &hi_buf, &lo, &hi);
    return pq_bounds_may_match(lo, hi, p);
}

bool pq_stats_may_match(const pq_file_meta *meta, const pq_column_chunk *cc,
                        const pq_predicate *p) {
    if (!cc || !cc->has_meta_data || cc->has_crypto_metadata || !leaf_usable(p)) return true;
    if (cc->meta_data.type != p->leaf->physical) return true;
    if (!cc->meta_data.has_statistics) {
        /* No statistics: only the schema can prove something. */
        return pq_stats_may_match_stats(meta, NULL, cc->meta_data.num_values, p);
    }
    return pq_stats_may_match_stats(meta, &cc->meta_data.statistics, cc->meta_data.num_values, p);
}

/* ---- min/max for EXPLAIN and parquet_metadata ------------------------------------------------ */

static bool int_fits(int128 v, int128 lo, int128 hi) { return v >= lo && v <= hi; }

/* Stores bound b as an SQE physical value of type t at out. */
static bool store_bound(sqe_type t, const pq_bound *b, void *out) {
    switch ((type_id)t.id) {
    case TYPE_BOOLEAN: {
        if (b->kind != PQ_BOUND_INT || !int_fits(b->i, 0, 1)) return false;
        uint8_t v = (uint8_t)b->i;
        memcpy(out, &v, 1);
        return true;
    }
    case TYPE_TINYINT: {
        if (b->kind != PQ_BOUND_INT || !int_fits(b->i, INT8_MIN, INT8_MAX)) return false;
        int8_t v = (int8_t)b->i;
        memcpy(out, &v, 1);
        return true;
    }
    case TYPE_SMALLINT: {
        if (b->kind != PQ_BOUND_INT || !int_fits(b->i, INT16_MIN, INT16_MAX)) return false;
        int16_t v = (int16_t)b->i;
        memcpy(out, &v, 2);
        return true;
    }
    case TYPE_INTEGER:
    case TYPE_DATE:
    case TYPE_INTERVAL_YM: {
        if (b->kind != PQ_BOUND_INT || !int_fits(b->i, INT32_MIN, INT32_MAX)) return false;
        int32_t v = (int32_t)b->i;
        memcpy(out, &v, 4);
        return true;
    }
    case TYPE_BIGINT:
    case TYPE_TIME:
    case TYPE_TIMESTAMP:
    case TYPE_INTERVAL_DS: {
        if (b->kind != PQ_BOUND_INT || !int_fits(b->i, INT64_MIN, INT64_MAX)) return false;
        int64_t v = (int64_t)b->i;
        memcpy(out, &v, 8);
        return true;
    }
    case TYPE_TIMESTAMP_TZ: {
        if (b->kind != PQ_BOUND_INT || !int_fits(b->i, INT64_MIN, INT64_MAX)) return false;
        sqe_timestamp_tz v;
        memset(&v, 0, sizeof(v));
        v.micros = (int64_t)b->i;
        memcpy(out, &v, sizeof(v));
        return true;
    }
    case TYPE_DECIMAL:
        if (b->kind != PQ_BOUND_INT) return false;
        if (type_decimal_is_long(t)) {
            memcpy(out, &b->i, sizeof(int128));
        } else {
            if (!int_fits(b->i, INT64_MIN, INT64_MAX)) return false;
            int64_t v = (int64_t)b->i;
            memcpy(out, &v, 8);
        }
        return true;
    case TYPE_REAL: {
        if (b->kind != PQ_BOUND_FLOAT) return false;
        float v = (float)b->f;
        memcpy(out, &v, 4);
        return true;
    }
    case TYPE_DOUBLE:
        if (b->kind != PQ_BOUND_FLOAT) return false;
        memcpy(out, &b->f, 8);
        return true;
    case TYPE_VARCHAR:
    case TYPE_CHAR:
    case TYPE_VARBINARY:
    case TYPE_JSON: {
        if (b->kind != PQ_BOUND_BYTES) return false;
        sqe_str s = sqe_str_make((const char *)b->ptr, b->len);
        memcpy(out, &s, sizeof(s));
        return true;
    }
    case TYPE_UUID:
        if (b->kind != PQ_BOUND_BYTES || b->len != 16) return false;
        memcpy(out, b->ptr, 16);
        return true;
    default:
        return false;
    }
}

bool pq_stats_min_max(const pq_file_meta *meta, const pq_column_chunk *cc, const pq_node *leaf,
                      void *min_out, void *max_out) {
    if (!cc || !leaf || leaf->kind != PQ_NODE_LEAF || leaf->unsupported) return false;
    if (!cc->has_meta_data || cc->has_crypto_metadata || !cc->meta_data.has_statistics)
        return false;
    if (cc->meta_data.type != leaf->physical) return false;
    pq_bound lo_buf, hi_buf;
    const pq_bound *lo, *hi;
    trusted_bounds(meta, leaf, &cc->meta_data.statistics, &lo_buf, &hi_buf, &lo, &hi);
    if (!lo || !hi) return false;
    size_t size = type_physical_size(leaf->type);
    if (size == 0 || size > 32) return false;
    uint8_t lo_tmp[32], hi_tmp[32];
    if (!store_bound(leaf->type, lo, lo_tmp) || !store_bound(leaf->type, hi, hi_tmp)) return false;
    memcpy(min_out, lo_tmp, size);
    memcpy(max_out, hi_tmp, size);
    return true;
}
