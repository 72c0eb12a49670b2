/*
 * cast_value.h: private to func/cast.c (included once, by it): conversions of one value, used
 * inside the vector loops of the cast kernels and by the JSON casts. Each converter returns 0,
 * or an error code with Trino's message for the value written into msg (msg_len bytes).
 *
 * Messages follow Trino (io.trino.type.*Operators, DecimalCasts, DecimalConversions):
 *   varchar -> number   "Cannot cast 'abc' to INT" (BIGINT, SMALLINT, TINYINT, DOUBLE, REAL, BOOLEAN)
 *   number narrowing    "Out of range for integer: 3000000000" (NUMERIC_VALUE_OUT_OF_RANGE)
 *   double -> bigint    "Unable to cast 1.0E19 to bigint"; NaN "Cannot cast double NaN to integer"
 *   -> decimal          "Cannot cast BIGINT '5' to DECIMAL(1, 0)", "Cannot cast DOUBLE '1.0E40' to
 *                       DECIMAL(38, 0)", "Cannot cast DECIMAL(5, 2) '123.45' to DECIMAL(3, 1)",
 *                       "Cannot cast VARCHAR 'x' to DECIMAL(10, 2). Value is not a number."
 */
#ifndef SQE_FUNC_CAST_VALUE_H
#define SQE_FUNC_CAST_VALUE_H

#include <math.h>
#include <stdio.h>

#include "func/cast_impl.h"
#include "types/datetime.h"
#include "types/decimal.h"
#include "types/float_text.h"
#include "common/hex.h"

#define MSG_TEXT_MAX 256 /* bytes of an offending string quoted in a message */

static inline void int_limits(uint8_t id, int64_t *lo, int64_t *hi) {
    switch ((type_id)id) {
    case TYPE_TINYINT: *lo = INT8_MIN, *hi = INT8_MAX; return;
    case TYPE_SMALLINT: *lo = INT16_MIN, *hi = INT16_MAX; return;
    case TYPE_INTEGER: *lo = INT32_MIN, *hi = INT32_MAX; return;
    default: *lo = INT64_MIN, *hi = INT64_MAX; return;
    }
}

static inline int msg_len_of(size_t len) { return (int)(len > MSG_TEXT_MAX ? MSG_TEXT_MAX : len); }

/* Upper-case integer type names of decimal messages ("INTEGER", not "INT"). */
static inline const char *int_type_upper(uint8_t id) {
    switch ((type_id)id) {
    case TYPE_TINYINT: return "TINYINT";
    case TYPE_SMALLINT: return "SMALLINT";
    case TYPE_INTEGER: return "INTEGER";
    default: return "BIGINT";
    }
}

static inline int text_to_int(const char *s, size_t len, uint8_t to_id, int64_t *out, char *msg,
                              size_t msg_len) {
    int64_t v, lo, hi;
    int_limits(to_id, &lo, &hi);
    if (!parse_java_long(s, len, &v) || v < lo || v > hi) {
        snprintf(msg, msg_len, "Cannot cast '%.*s' to %s", msg_len_of(len), s,
                 cast_type_upper(to_id));
        return SQE_ERR_INVALID_CAST_ARGUMENT;
    }
    *out = v;
    return 0;
}

/* VarcharOperators.castToBoolean: t, f, 1, 0, true, false in any case; no trimming. */
static inline int text_to_bool(const char *s, size_t len, uint8_t *out, char *msg, size_t msg_len) {
    if (len == 1) {
        char c = (char)(s[0] & ~0x20);
        if (c == 'T' || s[0] == '1') return *out = 1, 0;
        if (c == 'F' || s[0] == '0') return *out = 0, 0;
    } else if (len == 4 && strncasecmp(s, "true", 4) == 0) {
        return *out = 1, 0;
    } else if (len == 5 && strncasecmp(s, "false", 5) == 0) {
        return *out = 0, 0;
    }
    snprintf(msg, msg_len, "Cannot cast '%.*s' to BOOLEAN", msg_len_of(len), s);
    return SQE_ERR_INVALID_CAST_ARGUMENT;
}

static inline int text_to_double(const char *s, size_t len, double *out, char *msg,
                                 size_t msg_len) {
    if (float_text_parse(s, len, out) != 0) {
        snprintf(msg, msg_len, "Cannot cast '%.*s' to DOUBLE", msg_len_of(len), s);
        return SQE_ERR_INVALID_CAST_ARGUMENT;
    }
    return 0;
}

static inline int text_to_real(const char *s, size_t len, float *out, char *msg, size_t msg_len) {
    if (float_text_parse_real(s, len, out) != 0) {
        snprintf(msg, msg_len, "Cannot cast '%.*s' to REAL", msg_len_of(len), s);
        return SQE_ERR_INVALID_CAST_ARGUMENT;
    }
    return 0;
}

static inline int text_to_decimal(const char *s, size_t len, sqe_type to, int128 *out, char *msg,
                                  size_t msg_len) {
    int rc = decimal_parse_text(s, len, to.precision, to.scale, out);
    if (rc == 0) return 0;
    snprintf(msg, msg_len, "Cannot cast VARCHAR '%.*s' to DECIMAL(%u, %u). Value %s",
             msg_len_of(len), s, to.precision, to.scale,
             rc == -2 ? "too large." : "is not a number.");
    return SQE_ERR_INVALID_CAST_ARGUMENT;
}

/* DOUBLE/REAL -> integer type: HALF_UP (away from zero), Trino's range and NaN rules. */
static inline int double_to_int(double v, bool from_real, uint8_t to_id, int64_t *out, char *msg,
                                size_t msg_len) {
    const char *src = from_real ? "real" : "double";
    char text[FLOAT_TEXT_MAX];
    if (isnan(v)) {
        if (to_id == TYPE_BIGINT && !from_real)
            snprintf(msg, msg_len, "Unable to cast NaN to bigint");
        else
            snprintf(msg, msg_len, "Cannot cast %s NaN to %s", src, int_type_lower(to_id));
        return SQE_ERR_INVALID_CAST_ARGUMENT;
    }
    double r = round(v);
    if (to_id == TYPE_BIGINT) {
        if (r >= -9223372036854775808.0 && r < 9223372036854775808.0) {
            *out = (int64_t)r;
            return 0;
        }
        if (from_real) { /* Java's (long) saturates */
            *out = r > 0 ? INT64_MAX : INT64_MIN;
            return 0;
        }
        float_text_double(v, text);
        snprintf(msg, msg_len, "Unable to cast %s to bigint", text);
        return SQE_ERR_INVALID_CAST_ARGUMENT;
    }
    int64_t lo, hi;
    int_limits(to_id, &lo, &hi);
    if (r >= (double)lo && r <= (double)hi) {
        *out = (int64_t)r;
        return 0;
    }
    if (from_real)
        float_text_real((float)v, text);
    else
        float_text_double(v, text);
    snprintf(msg, msg_len, "Out of range for %s: %s", int_type_lower(to_id), text);
    return SQE_ERR_NUMERIC_VALUE_OUT_OF_RANGE;
}

/* DECIMAL -> integer type, rounding HALF_UP. */
static inline int decimal_to_int(int128 v, sqe_type from, uint8_t to_id, int64_t *out, char *msg,
                                 size_t msg_len) {
    int128 r;
    decimal_rescale(v, from.scale, 0, &r);
    int64_t lo, hi;
    int_limits(to_id, &lo, &hi);
    if (r >= lo && r <= hi) {
        *out = (int64_t)r;
        return 0;
    }
    char text[48];
    if (type_decimal_is_long(from))
        decimal_format(v, from.scale, text);
    else
        decimal_format(r, 0, text);
    snprintf(msg, msg_len, "Cannot cast '%s' to %s", text, int_type_upper(to_id));
    return SQE_ERR_INVALID_CAST_ARGUMENT;
}

static inline int int_to_decimal(int64_t v, uint8_t from_id, sqe_type to, int128 *out, char *msg,
                                 size_t msg_len) {
    int128 r;
    if (!__builtin_mul_overflow((int128)v, decimal_pow10(to.scale), &r) &&
        decimal_fits(r, to.precision)) {
        *out = r;
        return 0;
    }
    if (from_id == TYPE_BOOLEAN)
        snprintf(msg, msg_len, "Cannot cast BOOLEAN '%s' to DECIMAL(%u, %u)", v ? "true" : "false",
                 to.precision, to.scale);
    else
        snprintf(msg, msg_len, "Cannot cast %s '%lld' to DECIMAL(%u, %u)", int_type_upper(from_id),
                 (long long)v, to.precision, to.scale);
    return SQE_ERR_INVALID_CAST_ARGUMENT;
}

/* DOUBLE -> decimal via the shortest digits (BigDecimal.valueOf); REAL via Float.toString's. */
static inline int double_to_decimal(double v, bool from_real, sqe_type to, int128 *out, char *msg,
                                    size_t msg_len) {
    if (from_real && isfinite(v)) {
        char text[FLOAT_TEXT_MAX];
        int n = float_text_real((float)v, text);
        if (decimal_parse_text(text, (size_t)n, to.precision, to.scale, out) == 0) return 0;
    } else if (!from_real && decimal_from_double(v, to.precision, to.scale, out)) {
        return 0;
    }
    char text[FLOAT_TEXT_MAX];
    if (from_real)
        float_text_real((float)v, text);
    else
        float_text_double(v, text);
    snprintf(msg, msg_len, "Cannot cast %s '%s' to DECIMAL(%u, %u)", from_real ? "REAL" : "DOUBLE",
             text, to.precision, to.scale);
    return SQE_ERR_INVALID_CAST_ARGUMENT;
}

static inline int decimal_to_decimal(int128 v, sqe_type from, sqe_type to, int128 *out, char *msg,
                                     size_t msg_len) {
    int128 r;
    if (decimal_rescale(v, from.scale, to.scale, &r) && decimal_fits(r, to.precision)) {
        *out = r;
        return 0;
    }
    char text[48];
    decimal_format(v, from.scale, text);
    snprintf(msg, msg_len, "Cannot cast DECIMAL(%u, %u) '%s' to DECIMAL(%u, %u)", from.precision,
             from.scale, text, to.precision, to.scale);
    return SQE_ERR_INVALID_CAST_ARGUMENT;
}

static const double pow10_double[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                      1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                      1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* DecimalConversions: short decimals divide in double/float, long ones are exact when small and
 * otherwise read back from their text. */
static inline double decimal_value_to_double(int128 v, sqe_type t) {
    if (!type_decimal_is_long(t)) return (double)(int64_t)v / pow10_double[t.scale];
    return decimal_to_double(v, t.scale);
}

static inline float decimal_value_to_real(int128 v, sqe_type t) {
    if (!type_decimal_is_long(t)) return (float)(int64_t)v / (float)(int64_t)decimal_pow10(t.scale);
    if (t.scale <= 10 && v >= -((1 << 22) - 1) && v <= (1 << 22) - 1)
        return (float)(int64_t)v / (float)pow10_double[t.scale];
    char text[48];
    decimal_format(v, t.scale, text);
    return strtof(text, NULL);
}

/* Rounds micros to a multiple of factor (10^(6-p)), half up. */
static inline int64_t round_micros(int64_t v, int64_t factor) {
    if (factor <= 1) return v;
    int64_t shifted;
    if (__builtin_add_overflow(v, factor / 2, &shifted)) return v - dt_floor_mod(v, factor);
    return dt_floor_div(shifted, factor) * factor;
}

static inline int64_t precision_factor(int precision) {
    static const int64_t f[] = {1000000, 100000, 10000, 1000, 100, 10, 1};
    return precision < 0 ? 1000000 : precision > 6 ? 1 : f[precision];
}

/* "12151fd2-7586-11e9-8f9e-2a86e4085a59" (any case) -> 16 bytes. */
static inline int text_to_uuid(const char *s, size_t len, uint8_t *out, char *msg,
                               size_t msg_len) {
    if (len != 36) {
        snprintf(msg, msg_len, "Invalid UUID string length: %zu", len);
        return SQE_ERR_INVALID_CAST_ARGUMENT;
    }
    int n = 0;
    for (size_t i = 0; i < 36; i++) {
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            if (s[i] != '-') goto out_bad;
            continue;
        }
        int hi = hex_digit(s[i]), lo = i + 1 < 36 ? hex_digit(s[i + 1]) : -1;
        if (hi < 0 || lo < 0) goto out_bad;
        out[n++] = (uint8_t)(hi << 4 | lo);
        i++;
    }
    return 0;
out_bad:
    snprintf(msg, msg_len, "Cannot cast value to UUID: %.*s", msg_len_of(len), s);
    return SQE_ERR_INVALID_CAST_ARGUMENT;
}

#endif
