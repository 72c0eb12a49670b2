/*
 * transform.c: Iceberg partition transforms over SQE vectors, and the projection of column
 * predicates onto partition values for scan planning (manifest and data-file pruning).
 *
 * The write path calls ice_transform_apply to compute each row's partition tuple; the read
 * path parses the spec's transforms, projects the scan's conjuncts through them
 * (ice_project_predicate) and tests each manifest summary and data file against the result.
 *
 * INTERFACE
 *   ice_transform_parse / ice_transform_format   JSON spelling <-> ice_transform
 *   ice_transform_result_type                    applicability and partition value type
 *   ice_transform_apply                          vectorized transform, NULL in -> NULL out
 *   ice_project_predicate                        inclusive projection of `col op constants`
 *   ice_partition_pred_destroy                   frees a projected predicate
 *   ice_partition_pred_eval                      test against one partition value
 *   ice_partition_pred_eval_range                test against bounds (summaries, metrics)
 *
 * NOTES
 *   Numeric sources (integers, decimals, dates, times, timestamps) are handled as one int128
 *   "key" in the source's own unit (the value, the unscaled decimal, days, micros), so one
 *   code path serves apply and projection and the +-1 of projection boundaries ("x < c" is
 *   "x <= c - 1") cannot overflow. Results are range-checked against the partition type: a
 *   value whose partition cannot be represented is an error on write and no pruning on read.
 *   Comparisons in evaluation follow SQE's orders: numbers numerically (-0.0 equals 0.0, NaN
 *   never prunes), strings and binaries byte-wise unsigned (UTF-8 byte order is code point
 *   order, Iceberg's string order), UUIDs byte-wise unsigned.
 */
#include "iceberg/transform.h"

#include <ctype.h>
#include <strings.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "types/datetime.h"
#include "types/decimal.h"

/* ---- source kinds ------------------------------------------------------------------------ */

typedef enum src_kind {
    SK_NONE = 0,
    SK_BOOL,
    SK_INT,     /* TINYINT, SMALLINT, INTEGER: Iceberg int */
    SK_LONG,    /* BIGINT */
    SK_FLOAT,   /* REAL, DOUBLE */
    SK_DECIMAL,
    SK_STRING,  /* VARCHAR, CHAR */
    SK_BINARY,  /* VARBINARY: binary and fixed */
    SK_DATE,
    SK_TIME,
    SK_TS,      /* TIMESTAMP */
    SK_TSTZ,    /* TIMESTAMP_TZ (UTC micros) */
    SK_UUID,
} src_kind;

static src_kind kind_of(sqe_type t) {
    switch ((type_id)t.id) {
    case TYPE_BOOLEAN: return SK_BOOL;
    case TYPE_TINYINT:
    case TYPE_SMALLINT:
    case TYPE_INTEGER: return SK_INT;
    case TYPE_BIGINT: return SK_LONG;
    case TYPE_REAL:
    case TYPE_DOUBLE: return SK_FLOAT;
    case TYPE_DECIMAL: return SK_DECIMAL;
    case TYPE_VARCHAR:
    case TYPE_CHAR: return SK_STRING;
    case TYPE_VARBINARY: return SK_BINARY;
    case TYPE_DATE: return SK_DATE;
    case TYPE_TIME: return SK_TIME;
    case TYPE_TIMESTAMP: return SK_TS;
    case TYPE_TIMESTAMP_TZ: return SK_TSTZ;
    case TYPE_UUID: return SK_UUID;
    default: return SK_NONE;
    }
}

static bool is_numeric_key(src_kind k) {
    return k == SK_INT || k == SK_LONG || k == SK_DECIMAL || k == SK_DATE || k == SK_TIME ||
           k == SK_TS || k == SK_TSTZ || k == SK_BOOL;
}

static bool is_timestamp(src_kind k) { return k == SK_TS || k == SK_TSTZ; }

/* ---- parse / format ---------------------------------------------------------------------- */

/* Matches "<name>[<digits>]" case-insensitively; *param gets the digits (saturated). */
static bool match_param(const char *text, const char *name, int64_t *param) {
    size_t n = strlen(name);
    if (strncasecmp(text, name, n) != 0 || text[n] != '[') return false;
    const char *p = text + n + 1;
    if (!isdigit((unsigned char)*p)) return false;
    int64_t v = 0;
    while (isdigit((unsigned char)*p)) {
        if (v <= INT64_C(1) << 40) v = v * 10 + (*p - '0');
        p++;
    }
    if (p[0] != ']' || p[1] != '\0') return false;
    *param = v;
    return true;
}

int ice_transform_parse(const char *text, ice_transform *out, sqe_error *err) {
    out->kind = ICE_T_UNKNOWN;
    out->param = 0;
    if (!text) return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "Missing partition transform");
    static const struct {
        const char *name;
        ice_transform_kind kind;
    } plain[] = {{"identity", ICE_T_IDENTITY}, {"year", ICE_T_YEAR}, {"month", ICE_T_MONTH},
                 {"day", ICE_T_DAY},           {"hour", ICE_T_HOUR}, {"void", ICE_T_VOID}};
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++) {
        if (strcasecmp(text, plain[i].name) == 0) {
            out->kind = plain[i].kind;
            return SQE_OK;
        }
    }
    int64_t param;
    ice_transform_kind kind;
    if (match_param(text, "bucket", &param))
        kind = ICE_T_BUCKET;
    else if (match_param(text, "truncate", &param))
        kind = ICE_T_TRUNCATE;
    else
        return SQE_OK; /* unknown: readable, ignored for filtering */
    if (param < 1 || param > INT32_MAX)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "Invalid partition transform '%s': the "
                       "parameter must be between 1 and 2147483647", text);
    out->kind = kind;
    out->param = (int32_t)param;
    return SQE_OK;
}

size_t ice_transform_format(ice_transform t, char *buf, size_t buf_len) {
    const char *name = "unknown";
    switch (t.kind) {
    case ICE_T_IDENTITY: name = "identity"; break;
    case ICE_T_BUCKET: return (size_t)snprintf(buf, buf_len, "bucket[%d]", (int)t.param);
    case ICE_T_TRUNCATE: return (size_t)snprintf(buf, buf_len, "truncate[%d]", (int)t.param);
    case ICE_T_YEAR: name = "year"; break;
    case ICE_T_MONTH: name = "month"; break;
    case ICE_T_DAY: name = "day"; break;
    case ICE_T_HOUR: name = "hour"; break;
    case ICE_T_VOID: name = "void"; break;
    case ICE_T_UNKNOWN: break;
    }
    return (size_t)snprintf(buf, buf_len, "%s", name);
}

/* ---- result types ------------------------------------------------------------------------ */

bool ice_transform_result_type(ice_transform t, sqe_type source, sqe_type *out) {
    src_kind k = kind_of(source);
    if (k == SK_NONE) return false;
    switch (t.kind) {
    case ICE_T_IDENTITY:
    case ICE_T_VOID: *out = source; return true;
    case ICE_T_BUCKET:
        if (t.param < 1 || k == SK_BOOL || k == SK_FLOAT) return false;
        *out = type_make(TYPE_INTEGER);
        return true;
    case ICE_T_TRUNCATE:
        if (t.param < 1) return false;
        if (k != SK_INT && k != SK_LONG && k != SK_DECIMAL && k != SK_STRING && k != SK_BINARY)
            return false;
        *out = source;
        return true;
    case ICE_T_YEAR:
    case ICE_T_MONTH:
    case ICE_T_DAY:
        if (k != SK_DATE && !is_timestamp(k)) return false;
        *out = type_make(t.kind == ICE_T_DAY ? TYPE_DATE : TYPE_INTEGER);
        return true;
    case ICE_T_HOUR:
        if (!is_timestamp(k)) return false;
        *out = type_make(TYPE_INTEGER);
        return true;
    case ICE_T_UNKNOWN: return false;
    }
    return false;
}

/* ---- numeric keys ------------------------------------------------------------------------ */

/* The key of flat row phys of f (kind k): the integer, unscaled decimal, days or micros. */
static int128 key_get(const vec *f, src_kind k, uint32_t phys) {
    const void *d = f->data;
    switch ((type_id)f->type.id) {
    case TYPE_BOOLEAN: return ((const uint8_t *)d)[phys] != 0;
    case TYPE_TINYINT: return ((const int8_t *)d)[phys];
    case TYPE_SMALLINT: return ((const int16_t *)d)[phys];
    case TYPE_INTEGER:
    case TYPE_DATE: return ((const int32_t *)d)[phys];
    case TYPE_BIGINT:
    case TYPE_TIME:
    case TYPE_TIMESTAMP: return ((const int64_t *)d)[phys];
    case TYPE_TIMESTAMP_TZ: return ((const sqe_timestamp_tz *)d)[phys].micros;
    case TYPE_DECIMAL: return decimal_get(d, f->type, phys);
    default: (void)k; return 0;
    }
}

/* Whether key x is a value of type t (used after the +-1 of projection boundaries). */
static bool key_fits(sqe_type t, int128 x) {
    switch ((type_id)t.id) {
    case TYPE_BOOLEAN: return x == 0 || x == 1;
    case TYPE_TINYINT: return x >= INT8_MIN && x <= INT8_MAX;
    case TYPE_SMALLINT: return x >= INT16_MIN && x <= INT16_MAX;
    case TYPE_INTEGER:
    case TYPE_DATE: return x >= INT32_MIN && x <= INT32_MAX;
    case TYPE_BIGINT:
    case TYPE_TIMESTAMP:
    case TYPE_TIMESTAMP_TZ: return x >= INT64_MIN && x <= INT64_MAX;
    case TYPE_TIME: return x >= 0 && x < DT_MICROS_PER_DAY;
    case TYPE_DECIMAL: return decimal_fits(x, t.precision);
    default: return false;
    }
}

/* Stores key x at row `row` of flat vector out of type t (x must fit: see key_fits). */
static void key_put(vec *out, uint32_t row, int128 x) {
    void *d = out->data;
    switch ((type_id)out->type.id) {
    case TYPE_BOOLEAN: ((uint8_t *)d)[row] = (uint8_t)(x != 0); break;
    case TYPE_TINYINT: ((int8_t *)d)[row] = (int8_t)x; break;
    case TYPE_SMALLINT: ((int16_t *)d)[row] = (int16_t)x; break;
    case TYPE_INTEGER:
    case TYPE_DATE: ((int32_t *)d)[row] = (int32_t)x; break;
    case TYPE_BIGINT:
    case TYPE_TIME:
    case TYPE_TIMESTAMP: ((int64_t *)d)[row] = (int64_t)x; break;
    case TYPE_TIMESTAMP_TZ: {
        sqe_timestamp_tz v = {.micros = (int64_t)x, .zone = 0, .pad_ = 0};
        ((sqe_timestamp_tz *)d)[row] = v;
        break;
    }
    case TYPE_DECIMAL: decimal_put(d, out->type, row, x); break;
    default: break;
    }
}

static int32_t days_of(src_kind k, int128 x) {
    if (k == SK_DATE) return (int32_t)x;
    return (int32_t)dt_floor_div((int64_t)x, DT_MICROS_PER_DAY);
}

/* The partition value of key x of kind k under t (not identity/void), in the result type's
 * key space (ints, unscaled decimals, days). */
static int128 key_transform(ice_transform t, sqe_type source, src_kind k, int128 x) {
    switch (t.kind) {
    case ICE_T_BUCKET: {
        int32_t h = k == SK_DECIMAL ? ice_hash_decimal(x) : ice_hash_long((int64_t)x);
        return ice_bucket_from_hash(h, t.param);
    }
    case ICE_T_TRUNCATE: {
        int128 w = t.param;
        return x - (((x % w) + w) % w);
    }
    case ICE_T_YEAR:
    case ICE_T_MONTH: {
        int32_t y, m, d;
        dt_civil_from_days(days_of(k, x), &y, &m, &d);
        int128 years = (int128)y - 1970;
        return t.kind == ICE_T_YEAR ? years : years * 12 + (m - 1);
    }
    case ICE_T_DAY: return days_of(k, x);
    case ICE_T_HOUR: return dt_floor_div((int64_t)x, INT64_C(3600000000));
    default: (void)source; return x;
    }
}

/* ---- strings ----------------------------------------------------------------------------- */

/* Byte length of the first w code points of s[0, len) (continuation bytes stay with the code
 * point they follow; a malformed sequence never takes more than 4 bytes per code point). */
static uint32_t utf8_prefix_len(const uint8_t *s, uint32_t len, int32_t w) {
    uint32_t i = 0;
    for (int32_t cp = 0; cp < w && i < len; cp++) {
        uint32_t start = i++;
        while (i < len && (s[i] & 0xc0) == 0x80 && i - start < 4) i++;
    }
    return i;
}

/* ---- apply ------------------------------------------------------------------------------- */

int ice_transform_apply(ice_transform t, const vec *in, uint32_t count, vec *out,
                        sqe_error *err) {
    sqe_type rt;
    if (!ice_transform_result_type(t, in->type, &rt)) {
        char tbuf[48], ybuf[64];
        ice_transform_format(t, tbuf, sizeof tbuf);
        type_format(in->type, ybuf, sizeof ybuf);
        return err_set(err, SQE_ERR_NOT_SUPPORTED,
                       "Partition transform %s cannot be applied to type %s", tbuf, ybuf);
    }
    if (out->type.id != rt.id ||
        (rt.id == TYPE_DECIMAL && (out->type.precision != rt.precision ||
                                   out->type.scale != rt.scale)))
        return err_set(err, SQE_ERR_TYPE_MISMATCH, "Partition value vector has the wrong type");
    vec_reset(out);
    SQE_TRY(vec_reserve(out, count ? count : 1, err));
    if (t.kind == ICE_T_IDENTITY) return vec_copy_rows(out, 0, in, 0, count, err);
    if (t.kind == ICE_T_VOID) {
        size_t width = type_physical_size(rt);
        if (width && count) memset(out->data, 0, width * count);
        for (uint32_t row = 0; row < count; row++)
            if (vec_set_null(out, row) != SQE_OK) return err_nomem(err, "partition values");
        return SQE_OK;
    }
    src_kind k = kind_of(in->type);
    for (uint32_t row = 0; row < count; row++) {
        uint32_t phys;
        const vec *f = vec_resolve(in, row, &phys);
        if (!vec_is_valid_flat(f, phys)) {
            if (vec_set_null(out, row) != SQE_OK) return err_nomem(err, "partition values");
            continue;
        }
        if (is_numeric_key(k)) {
            int128 r = key_transform(t, in->type, k, key_get(f, k, phys));
            if (!key_fits(rt, r))
                return err_set(err, SQE_ERR_NUMERIC_VALUE_OUT_OF_RANGE,
                               "Partition value out of range for the %s transform",
                               t.kind == ICE_T_TRUNCATE ? "truncate" : "hour");
            key_put(out, row, r);
            continue;
        }
        if (t.kind == ICE_T_BUCKET) {
            int32_t h = 0;
            ice_hash_value(in, row, &h);
            ((int32_t *)out->data)[row] = ice_bucket_from_hash(h, t.param);
            continue;
        }
        /* truncate of a string or binary */
        const sqe_str *s = &((const sqe_str *)f->data)[phys];
        const uint8_t *p = (const uint8_t *)sqe_str_data(s);
        uint32_t n = k == SK_STRING ? utf8_prefix_len(p, s->len, t.param)
                                    : (s->len < (uint32_t)t.param ? s->len : (uint32_t)t.param);
        bool ok = true;
        ((sqe_str *)out->data)[row] = vec_str_copy(out, (const char *)p, n, &ok);
        if (!ok) return err_nomem(err, "partition values");
    }
    return SQE_OK;
}

/* ---- projection -------------------------------------------------------------------------- */

/* Constants usable for a column of type source: same type (decimals: same precision and
 * scale, so the stored width and the unit agree). */
static bool constants_match(sqe_type source, sqe_type c) {
    if (kind_of(source) != kind_of(c)) return false;
    if (kind_of(source) == SK_STRING) return true;
    if (source.id != c.id) return false;
    if (source.id == TYPE_DECIMAL)
        return source.precision == c.precision && source.scale == c.scale;
    return true;
}

static bool is_nan_at(const vec *v, uint32_t row) {
    uint32_t phys;
    const vec *f = vec_resolve(v, row, &phys);
    if (f->type.id == TYPE_REAL) {
        float x = ((const float *)f->data)[phys];
        return x != x;
    }
    if (f->type.id == TYPE_DOUBLE) {
        double x = ((const double *)f->data)[phys];
        return x != x;
    }
    return false;
}

void ice_partition_pred_destroy(ice_partition_pred *p) {
    vec_destroy(&p->values);
    memset(p, 0, sizeof *p);
    p->op = ICE_PRED_TRUE;
}

/* Outcome of projecting one constant: stored (one or two values), or "no projection". */
typedef enum proj_rc { PROJ_OK = 0, PROJ_GIVE_UP, PROJ_ERROR } proj_rc;

/* Appends value x (key space) to p->values, checking that it fits the partition type. */
static bool append_key(ice_partition_pred *p, int128 x) {
    if (!key_fits(p->type, x)) return false;
    key_put(&p->values, p->n_values++, x);
    return true;
}

/* Whether projected time values need the pre-1970 widening (see transform.h). */
static bool time_widening(ice_transform t, src_kind k) {
    if (t.kind == ICE_T_YEAR || t.kind == ICE_T_MONTH || t.kind == ICE_T_HOUR) return true;
    return t.kind == ICE_T_DAY && k != SK_DATE;
}

/* Projects constant `row` of c for operator op (EQ, LE or GE after boundary adjustment is
 * decided by the caller via `delta`: the constant is moved by delta units first). */
static proj_rc project_one(ice_transform t, sqe_type source, const vec *c, uint32_t row,
                           int delta, ice_partition_pred *p, sqe_error *err) {
    src_kind k = kind_of(source);
    if (t.kind == ICE_T_IDENTITY) {
        if (vec_copy_row(&p->values, p->n_values, c, row, err) != SQE_OK) return PROJ_ERROR;
        p->n_values++;
        return PROJ_OK;
    }
    uint32_t phys;
    const vec *f = vec_resolve(c, row, &phys);
    if (!vec_is_valid_flat(f, phys)) return PROJ_GIVE_UP;
    if (is_numeric_key(k)) {
        int128 x = key_get(f, k, phys) + delta;
        if (!key_fits(source, x)) return PROJ_GIVE_UP;
        return append_key(p, key_transform(t, source, k, x)) ? PROJ_OK : PROJ_GIVE_UP;
    }
    if (t.kind == ICE_T_BUCKET) {
        int32_t h;
        if (!ice_hash_value(c, row, &h)) return PROJ_GIVE_UP;
        return append_key(p, ice_bucket_from_hash(h, t.param)) ? PROJ_OK : PROJ_GIVE_UP;
    }
    if (t.kind != ICE_T_TRUNCATE || (k != SK_STRING && k != SK_BINARY)) return PROJ_GIVE_UP;
    const sqe_str *s = &((const sqe_str *)f->data)[phys];
    const uint8_t *bytes = (const uint8_t *)sqe_str_data(s);
    uint32_t n = k == SK_STRING ? utf8_prefix_len(bytes, s->len, t.param)
                                : (s->len < (uint32_t)t.param ? s->len : (uint32_t)t.param);
    bool ok = true;
    ((sqe_str *)p->values.data)[p->n_values] =
        vec_str_copy(&p->values, (const char *)bytes, n, &ok);
    if (!ok) {
        err_nomem(err, "partition predicate");
        return PROJ_ERROR;
    }
    p->n_values++;
    return PROJ_OK;
}

int ice_project_predicate(ice_transform t, sqe_type source_type, ice_pred_op op,
                          const vec *constants, uint32_t n, ice_partition_pred *out,
                          sqe_error *err) {
    memset(out, 0, sizeof *out);
    out->op = ICE_PRED_TRUE;
    sqe_type rt;
    if (!ice_transform_result_type(t, source_type, &rt) || t.kind == ICE_T_VOID) return SQE_OK;
    if (op == ICE_PRED_IS_NULL || op == ICE_PRED_NOT_NULL) {
        out->op = op;
        out->type = rt;
        return SQE_OK;
    }
    if (op < ICE_PRED_EQ || op > ICE_PRED_IN) return SQE_OK;
    if (op == ICE_PRED_IN && n == 0) {
        out->op = ICE_PRED_FALSE;
        return SQE_OK;
    }
    if (!constants || !constants_match(source_type, constants->type)) return SQE_OK;
    if (op != ICE_PRED_IN) n = 1;
    if (t.kind == ICE_T_BUCKET && op != ICE_PRED_EQ && op != ICE_PRED_IN) return SQE_OK;
    for (uint32_t i = 0; i < n; i++)
        if (vec_is_null(constants, i) || is_nan_at(constants, i)) return SQE_OK;

    src_kind k = kind_of(source_type);
    bool exact = t.kind == ICE_T_IDENTITY;
    bool widen = time_widening(t, k);
    /* EQ and IN may double with the widening. */
    uint32_t cap = widen ? 2 * n : n;
    if (n > UINT32_MAX / 2) return SQE_OK;
    int rc = vec_init(&out->values, rt, cap, NULL, err);
    if (rc != SQE_OK) {
        ice_partition_pred_destroy(out);
        return rc;
    }
    out->type = rt;
    ice_pred_op pop = op;
    int delta = 0;
    if (!exact) {
        bool numeric = is_numeric_key(k);
        if (op == ICE_PRED_LT) {
            pop = ICE_PRED_LE;
            delta = numeric ? -1 : 0;
        } else if (op == ICE_PRED_GT) {
            pop = ICE_PRED_GE;
            delta = numeric ? 1 : 0;
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        proj_rc r = project_one(t, source_type, constants, i, delta, out, err);
        if (r != PROJ_OK) {
            int code = r == PROJ_ERROR ? (err ? err->code : SQE_ERR_OUT_OF_MEMORY) : SQE_OK;
            ice_partition_pred_destroy(out);
            return code;
        }
    }
    if (widen && (pop == ICE_PRED_LE || pop == ICE_PRED_EQ || pop == ICE_PRED_IN)) {
        uint32_t n_base = out->n_values;
        for (uint32_t i = 0; i < n_base; i++) {
            int128 v = ((const int32_t *)out->values.data)[i];
            if (v >= 0) continue;
            if (pop == ICE_PRED_LE)
                ((int32_t *)out->values.data)[i] = (int32_t)(v + 1);
            else
                append_key(out, v + 1); /* v < 0, so v + 1 fits */
        }
        if (pop == ICE_PRED_EQ && out->n_values > 1) pop = ICE_PRED_IN;
    }
    out->op = pop;
    return SQE_OK;
}

/* ---- evaluation -------------------------------------------------------------------------- */

typedef enum cmp_class { CC_NONE = 0, CC_INT, CC_FLOAT, CC_BYTES, CC_UUID } cmp_class;

/* One comparable value. */
typedef struct cmp_value {
    cmp_class cls;
    int128 i;
    double f;
    const uint8_t *ptr;
    uint32_t len;
} cmp_value;

static cmp_class class_of(sqe_type t) {
    switch (kind_of(t)) {
    case SK_FLOAT: return CC_FLOAT;
    case SK_STRING:
    case SK_BINARY: return CC_BYTES;
    case SK_UUID: return CC_UUID;
    case SK_NONE: return CC_NONE;
    default: return CC_INT;
    }
}

/* Whether values of type a and b compare directly: equal types, integers of any width among
 * themselves, INTEGER with DATE (day partitions stored as int), VARCHAR with CHAR. */
static bool types_comparable(sqe_type a, sqe_type b) {
    if (a.id == b.id)
        return a.id != TYPE_DECIMAL || a.scale == b.scale;
    src_kind ka = kind_of(a), kb = kind_of(b);
    if (ka == SK_STRING && kb == SK_STRING) return true;
    bool ia = ka == SK_INT || ka == SK_LONG || a.id == TYPE_DATE;
    bool ib = kb == SK_INT || kb == SK_LONG || b.id == TYPE_DATE;
    if (ia && ib) return (a.id == TYPE_DATE) == (b.id == TYPE_DATE) ||
                         a.id == TYPE_INTEGER || b.id == TYPE_INTEGER;
    return false;
}

/* Reads row `row` of v (type comparable with the predicate's); false when NULL or NaN. */
static bool value_get(const vec *v, uint32_t row, cmp_value *out) {
    uint32_t phys;
    const vec *f = vec_resolve(v, row, &phys);
    if (!vec_is_valid_flat(f, phys)) return false;
    memset(out, 0, sizeof *out);
    out->cls = class_of(f->type);
    switch (out->cls) {
    case CC_INT: out->i = key_get(f, kind_of(f->type), phys); return true;
    case CC_FLOAT:
        out->f = f->type.id == TYPE_REAL ? ((const float *)f->data)[phys]
                                         : ((const double *)f->data)[phys];
        return out->f == out->f;
    case CC_BYTES: {
        const sqe_str *s = &((const sqe_str *)f->data)[phys];
        out->ptr = (const uint8_t *)sqe_str_data(s);
        out->len = s->len;
        return true;
    }
    case CC_UUID:
        out->ptr = (const uint8_t *)f->data + 16 * (size_t)phys;
        out->len = 16;
        return true;
    case CC_NONE: return false;
    }
    return false;
}

static int value_cmp(const cmp_value *a, const cmp_value *b) {
    switch (a->cls) {
    case CC_INT: return a->i < b->i ? -1 : a->i > b->i;
    case CC_FLOAT: return a->f < b->f ? -1 : a->f > b->f;
    case CC_BYTES:
    case CC_UUID: {
        uint32_t n = a->len < b->len ? a->len : b->len;
        int c = n ? memcmp(a->ptr, b->ptr, n) : 0;
        if (c) return c < 0 ? -1 : 1;
        return a->len < b->len ? -1 : a->len > b->len;
    }
    case CC_NONE: break;
    }
    return 0;
}

bool ice_partition_pred_eval(const ice_partition_pred *p, const vec *partition_value,
                             uint32_t row) {
    switch (p->op) {
    case ICE_PRED_TRUE: return true;
    case ICE_PRED_FALSE: return false;
    case ICE_PRED_IS_NULL: return vec_is_null(partition_value, row);
    case ICE_PRED_NOT_NULL: return !vec_is_null(partition_value, row);
    default: break;
    }
    if (vec_is_null(partition_value, row)) return false;
    if (!types_comparable(p->type, partition_value->type)) return true;
    cmp_value v;
    if (!value_get(partition_value, row, &v)) return true; /* NaN */
    uint32_t n = p->op == ICE_PRED_IN ? p->n_values : 1;
    for (uint32_t i = 0; i < n && i < p->n_values; i++) {
        cmp_value c;
        if (!value_get(&p->values, i, &c)) return true;
        int cmp = value_cmp(&v, &c);
        switch (p->op) {
        case ICE_PRED_EQ:
        case ICE_PRED_IN:
            if (cmp == 0) return true;
            break;
        case ICE_PRED_LT: return cmp < 0;
        case ICE_PRED_LE: return cmp <= 0;
        case ICE_PRED_GT: return cmp > 0;
        case ICE_PRED_GE: return cmp >= 0;
        default: return true;
        }
    }
    return p->n_values == 0;
}

/* Reads a bound; *present is false when absent. Returns false when the bound cannot be used
 * (wrong type, NaN): the caller then gives up pruning. */
static bool bound_get(const ice_partition_pred *p, const vec *b, uint32_t row, cmp_value *out,
                      bool *present) {
    *present = false;
    if (!b || vec_is_null(b, row)) return true;
    if (!types_comparable(p->type, b->type)) return false;
    if (!value_get(b, row, out)) return false;
    *present = true;
    return true;
}

bool ice_partition_pred_eval_range(const ice_partition_pred *p, const ice_value_range *r) {
    switch (p->op) {
    case ICE_PRED_TRUE: return true;
    case ICE_PRED_FALSE: return false;
    case ICE_PRED_IS_NULL: return r->has_null != 0 || r->all_null == 1;
    case ICE_PRED_NOT_NULL: return r->all_null != 1;
    default: break;
    }
    if (r->all_null == 1) return false;
    cmp_class cls = class_of(p->type);
    if (cls == CC_UUID || cls == CC_NONE) return true;
    if (cls == CC_FLOAT && r->has_nan != 0) return true;
    cmp_value lo, hi;
    bool has_lo, has_hi;
    if (!bound_get(p, r->lower, r->row, &lo, &has_lo)) return true;
    if (!bound_get(p, r->upper, r->row, &hi, &has_hi)) return true;
    if (!has_lo && !has_hi) {
        /* Iceberg Java (ManifestEvaluator): no bounds and a NULL means every value is NULL. */
        return !(r->has_null == 1 && (cls != CC_FLOAT || r->has_nan == 0));
    }
    if (has_lo && has_hi && value_cmp(&lo, &hi) > 0) return true;
    uint32_t n = p->op == ICE_PRED_IN ? p->n_values : 1;
    for (uint32_t i = 0; i < n && i < p->n_values; i++) {
        cmp_value c;
        if (!value_get(&p->values, i, &c)) return true;
        int c_lo = has_lo ? value_cmp(&lo, &c) : -1; /* lo vs c */
        int c_hi = has_hi ? value_cmp(&hi, &c) : 1;  /* hi vs c */
        switch (p->op) {
        case ICE_PRED_EQ:
        case ICE_PRED_IN:
            if (c_lo <= 0 && c_hi >= 0) return true;
            break;
        case ICE_PRED_LT: return c_lo < 0;
        case ICE_PRED_LE: return c_lo <= 0;
        case ICE_PRED_GT: return c_hi > 0;
        case ICE_PRED_GE: return c_hi >= 0;
        default: return true;
        }
    }
    return p->n_values == 0;
}
