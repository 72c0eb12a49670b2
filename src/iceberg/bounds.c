/*
 * bounds.c: Iceberg's binary single-value serialization (spec Appendix D, "Binary single-value
 * serialization"), which manifests use for lower/upper bounds and manifest lists for partition
 * field summaries, to and from SQE values; and the arena-backed vectors that hold decoded
 * values for scan planning.
 *
 * INTERFACE: ice_arena_vec_init, ice_arena_vec_set_null, ice_single_value_decode,
 *            ice_single_value_encode
 * NOTES:
 *   - Fixed-width values are little-endian (int, long, float, double, date, time, timestamps);
 *     decimals are the unscaled value big-endian two's complement in the fewest bytes; uuid is
 *     16 bytes big-endian (SQE's UUID layout, so copied as is); string, binary and fixed are
 *     the bytes themselves.
 *   - Type promotion (spec "Schema Evolution"): a bound written while a column was int (or
 *     date, or float) is 4 bytes long after the column became long (timestamp, double), so
 *     readers accept both widths for the promoted types. Nothing else of the wrong size is
 *     accepted: a hostile size must not be read as a value.
 *   - Arena-backed vectors are plain `vec` structs whose buffers are arena allocations; they
 *     own nothing, so vec_destroy must never see them (it would free arena memory).
 */
#include "iceberg/manifest.h"

#include <string.h>

int ice_arena_vec_init(arena *a, vec *v, sqe_type type, uint32_t n, sqe_error *err) {
    memset(v, 0, sizeof *v);
    v->type = type;
    v->shape = VEC_FLAT;
    v->capacity = n;
    size_t width = type_physical_size(type);
    if (width && n) {
        v->data = arena_zalloc(a, width * (size_t)n);
        if (!v->data) return err_nomem(err, "Iceberg manifest values");
    }
    return SQE_OK;
}

int ice_arena_vec_set_null(arena *a, vec *v, uint32_t row, sqe_error *err) {
    if (!v->validity) {
        size_t words = ((size_t)v->capacity + 63) / 64;
        uint64_t *bits = arena_alloc(a, (words ? words : 1) * sizeof(uint64_t));
        if (!bits) return err_nomem(err, "Iceberg manifest values");
        memset(bits, 0xff, (words ? words : 1) * sizeof(uint64_t));
        v->validity = bits;
    }
    v->validity[row >> 6] &= ~((uint64_t)1 << (row & 63));
    return SQE_OK;
}

static uint64_t load_le(const uint8_t *p, size_t n) {
    uint64_t x = 0;
    for (size_t i = 0; i < n; i++) x |= (uint64_t)p[i] << (8 * i);
    return x;
}

static void store_le(uint8_t *p, uint64_t x, size_t n) {
    for (size_t i = 0; i < n; i++) p[i] = (uint8_t)(x >> (8 * i));
}

static int128 pow10_128(int p) {
    int128 r = 1;
    for (int i = 0; i < p; i++) r *= 10;
    return r;
}

static int64_t floor_div(int64_t a, int64_t b) {
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
    return q;
}

static int bad_size(sqe_error *err, const char *what, const char *type, size_t len) {
    return err_set(err, SQE_ERR_INVALID_FILE,
                   "Invalid Iceberg manifest: %s: %zu bytes is not a valid %s value", what, len,
                   type);
}

/* Decodes a big-endian two's complement integer of 1..16 bytes. */
static bool decode_be_int128(const uint8_t *p, size_t len, int128 *out) {
    if (len == 0 || len > 16) return false;
    unsigned __int128 x = (p[0] & 0x80) ? ~(unsigned __int128)0 : 0;
    for (size_t i = 0; i < len; i++) x = (x << 8) | p[i];
    *out = (int128)x;
    return true;
}

int ice_single_value_decode(const ice_type *t, const uint8_t *p, size_t len, vec *out,
                            uint32_t row, const char *what, sqe_error *err) {
    if (!what) what = "value";
    if (row >= out->capacity)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "Iceberg value row out of range");
    const char *tn = ice_type_kind_name(t->kind);
    void *d = out->data;
    switch (t->kind) {
    case ICE_TYPE_BOOLEAN:
        if (len != 1) return bad_size(err, what, tn, len);
        ((uint8_t *)d)[row] = p[0] != 0;
        return SQE_OK;
    case ICE_TYPE_INT:
    case ICE_TYPE_DATE:
        if (len != 4) return bad_size(err, what, tn, len);
        ((int32_t *)d)[row] = (int32_t)(uint32_t)load_le(p, 4);
        return SQE_OK;
    case ICE_TYPE_LONG:
    case ICE_TYPE_TIME:
        if (len == 4 && t->kind == ICE_TYPE_LONG) {
            ((int64_t *)d)[row] = (int32_t)(uint32_t)load_le(p, 4);
            return SQE_OK;
        }
        if (len != 8) return bad_size(err, what, tn, len);
        ((int64_t *)d)[row] = (int64_t)load_le(p, 8);
        return SQE_OK;
    case ICE_TYPE_TIMESTAMP:
    case ICE_TYPE_TIMESTAMPTZ:
    case ICE_TYPE_TIMESTAMP_NS:
    case ICE_TYPE_TIMESTAMPTZ_NS: {
        int64_t micros;
        if (len == 4) { /* promoted from date: days */
            micros = (int64_t)(int32_t)(uint32_t)load_le(p, 4) * INT64_C(86400000000);
        } else if (len == 8) {
            micros = (int64_t)load_le(p, 8);
            if (t->kind == ICE_TYPE_TIMESTAMP_NS || t->kind == ICE_TYPE_TIMESTAMPTZ_NS)
                micros = floor_div(micros, 1000);
        } else {
            return bad_size(err, what, tn, len);
        }
        if (t->kind == ICE_TYPE_TIMESTAMPTZ || t->kind == ICE_TYPE_TIMESTAMPTZ_NS) {
            sqe_timestamp_tz *tz = &((sqe_timestamp_tz *)d)[row];
            memset(tz, 0, sizeof *tz);
            tz->micros = micros;
        } else {
            ((int64_t *)d)[row] = micros;
        }
        return SQE_OK;
    }
    case ICE_TYPE_FLOAT: {
        if (len != 4) return bad_size(err, what, tn, len);
        uint32_t bits = (uint32_t)load_le(p, 4);
        float f;
        memcpy(&f, &bits, 4);
        ((float *)d)[row] = f;
        return SQE_OK;
    }
    case ICE_TYPE_DOUBLE: {
        double v;
        if (len == 4) {
            uint32_t bits = (uint32_t)load_le(p, 4);
            float f;
            memcpy(&f, &bits, 4);
            v = f;
        } else if (len == 8) {
            uint64_t bits = load_le(p, 8);
            memcpy(&v, &bits, 8);
        } else {
            return bad_size(err, what, tn, len);
        }
        ((double *)d)[row] = v;
        return SQE_OK;
    }
    case ICE_TYPE_DECIMAL: {
        int128 x;
        if (!decode_be_int128(p, len, &x)) return bad_size(err, what, "decimal", len);
        int128 lim = pow10_128(t->precision);
        if (x >= lim || x <= -lim)
            return err_set(err, SQE_ERR_INVALID_FILE,
                           "Invalid Iceberg manifest: %s: value does not fit decimal(%d, %d)",
                           what, t->precision, t->scale);
        if (t->precision > 18) ((int128 *)d)[row] = x;
        else ((int64_t *)d)[row] = (int64_t)x;
        return SQE_OK;
    }
    case ICE_TYPE_UUID:
        if (len != 16) return bad_size(err, what, tn, len);
        memcpy((uint8_t *)d + (size_t)row * 16, p, 16);
        return SQE_OK;
    case ICE_TYPE_FIXED:
        if (len > (size_t)t->length) return bad_size(err, what, "fixed", len);
        /* fall through */
    case ICE_TYPE_STRING:
    case ICE_TYPE_BINARY:
        if (len > UINT32_MAX) return bad_size(err, what, tn, len);
        ((sqe_str *)d)[row] = sqe_str_make((const char *)p, (uint32_t)len);
        return SQE_OK;
    default:
        return err_set(err, SQE_ERR_NOT_SUPPORTED,
                       "unsupported: Iceberg %s values have no binary single-value form", tn);
    }
}

/* Fewest bytes of the two's complement form of x (1..16). */
static size_t decimal_min_bytes(int128 x) {
    for (size_t n = 1; n < 16; n++) {
        int128 lo = -((int128)1 << (8 * n - 1)), hi = ((int128)1 << (8 * n - 1)) - 1;
        if (x >= lo && x <= hi) return n;
    }
    return 16;
}

static int wrong_type(sqe_error *err, const ice_type *t, sqe_type have) {
    char buf[64];
    type_format(have, buf, sizeof buf);
    return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                   "cannot serialize a %s value as Iceberg %s", buf, ice_type_kind_name(t->kind));
}

int ice_single_value_encode(arena *a, const ice_type *t, const vec *v, uint32_t row,
                            ice_bytes *out, sqe_error *err) {
    uint32_t phys;
    const vec *flat = vec_resolve(v, row, &phys);
    if (!vec_is_valid_flat(flat, phys))
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "cannot serialize a NULL Iceberg value");
    const void *d = flat->data;
    type_id id = (type_id)v->type.id;
    uint8_t buf[16];
    size_t n = 0;
    const uint8_t *src = buf;
    switch (t->kind) {
    case ICE_TYPE_BOOLEAN:
        if (id != TYPE_BOOLEAN) return wrong_type(err, t, v->type);
        buf[0] = ((const uint8_t *)d)[phys] ? 1 : 0;
        n = 1;
        break;
    case ICE_TYPE_INT:
    case ICE_TYPE_LONG: {
        int64_t x;
        if (id == TYPE_TINYINT) x = ((const int8_t *)d)[phys];
        else if (id == TYPE_SMALLINT) x = ((const int16_t *)d)[phys];
        else if (id == TYPE_INTEGER) x = ((const int32_t *)d)[phys];
        else if (id == TYPE_BIGINT && t->kind == ICE_TYPE_LONG) x = ((const int64_t *)d)[phys];
        else return wrong_type(err, t, v->type);
        n = t->kind == ICE_TYPE_INT ? 4 : 8;
        store_le(buf, (uint64_t)x, n);
        break;
    }
    case ICE_TYPE_DATE:
        if (id != TYPE_DATE) return wrong_type(err, t, v->type);
        store_le(buf, (uint32_t)((const int32_t *)d)[phys], 4);
        n = 4;
        break;
    case ICE_TYPE_TIME:
    case ICE_TYPE_TIMESTAMP:
    case ICE_TYPE_TIMESTAMPTZ:
    case ICE_TYPE_TIMESTAMP_NS:
    case ICE_TYPE_TIMESTAMPTZ_NS: {
        bool tz = t->kind == ICE_TYPE_TIMESTAMPTZ || t->kind == ICE_TYPE_TIMESTAMPTZ_NS;
        type_id want = t->kind == ICE_TYPE_TIME ? TYPE_TIME : tz ? TYPE_TIMESTAMP_TZ : TYPE_TIMESTAMP;
        if (id != want) return wrong_type(err, t, v->type);
        int64_t x = tz ? ((const sqe_timestamp_tz *)d)[phys].micros : ((const int64_t *)d)[phys];
        if (t->kind == ICE_TYPE_TIMESTAMP_NS || t->kind == ICE_TYPE_TIMESTAMPTZ_NS) {
            if (__builtin_mul_overflow(x, 1000, &x))
                return err_set(err, SQE_ERR_NUMERIC_VALUE_OUT_OF_RANGE,
                               "timestamp out of range for nanoseconds");
        }
        store_le(buf, (uint64_t)x, 8);
        n = 8;
        break;
    }
    case ICE_TYPE_FLOAT: {
        if (id != TYPE_REAL) return wrong_type(err, t, v->type);
        uint32_t bits;
        memcpy(&bits, &((const float *)d)[phys], 4);
        store_le(buf, bits, 4);
        n = 4;
        break;
    }
    case ICE_TYPE_DOUBLE: {
        double x;
        if (id == TYPE_DOUBLE) x = ((const double *)d)[phys];
        else if (id == TYPE_REAL) x = ((const float *)d)[phys];
        else return wrong_type(err, t, v->type);
        uint64_t bits;
        memcpy(&bits, &x, 8);
        store_le(buf, bits, 8);
        n = 8;
        break;
    }
    case ICE_TYPE_DECIMAL: {
        if (id != TYPE_DECIMAL || v->type.scale != t->scale) return wrong_type(err, t, v->type);
        int128 x = type_decimal_is_long(v->type) ? ((const int128 *)d)[phys]
                                                 : (int128)((const int64_t *)d)[phys];
        n = decimal_min_bytes(x);
        for (size_t i = 0; i < n; i++) buf[n - 1 - i] = (uint8_t)((unsigned __int128)x >> (8 * i));
        break;
    }
    case ICE_TYPE_UUID:
        if (id != TYPE_UUID) return wrong_type(err, t, v->type);
        memcpy(buf, (const uint8_t *)d + (size_t)phys * 16, 16);
        n = 16;
        break;
    case ICE_TYPE_STRING:
    case ICE_TYPE_BINARY:
    case ICE_TYPE_FIXED: {
        bool ok = t->kind == ICE_TYPE_STRING ? type_is_string(v->type) : id == TYPE_VARBINARY;
        if (!ok) return wrong_type(err, t, v->type);
        const sqe_str *s = &((const sqe_str *)d)[phys];
        if (t->kind == ICE_TYPE_FIXED && s->len != (uint32_t)t->length)
            return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                           "a fixed[%d] value must have %d bytes, not %u", t->length, t->length,
                           s->len);
        src = (const uint8_t *)sqe_str_data(s);
        n = s->len;
        break;
    }
    default:
        return err_set(err, SQE_ERR_NOT_SUPPORTED,
                       "unsupported: Iceberg %s values have no binary single-value form",
                       ice_type_kind_name(t->kind));
    }
    uint8_t *copy = NULL;
    if (n) {
        copy = arena_memdup(a, src, n);
        if (!copy) return err_nomem(err, "Iceberg value");
    }
    out->data = copy;
    out->len = n;
    return SQE_OK;
}
