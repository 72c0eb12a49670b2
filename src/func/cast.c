/*
 * cast.c: the CAST kernels: for every pair of types Trino can cast between, a vectorized kernel
 * (func.h contract) chosen once per query by func_cast_lookup.
 *
 * INTERFACE: func_cast_lookup.
 * NOTES:
 *   - Kernels are grouped by target type (cast_to_bigint, cast_to_varchar, ...); each switches
 *     once on the source type and then runs a type-specialized loop (CAST_LOOP in cast_impl.h:
 *     a plain counted loop for flat input without NULLs, else a selection/NULL-aware loop).
 *     NULL inputs give NULL outputs, so the kernels work whether or not the evaluator filters
 *     NULL rows first. Errors go through func_row_error (NULL under TRY).
 *   - Value conversions and Trino's error messages live in cast_value.h, JSON casts in
 *     cast_json.h, ARRAY/MAP/ROW casts in cast_nested.h; all are private to this file.
 *   - The set of supported pairs is type_can_cast (types.c); func_cast_lookup returns NULL
 *     exactly when type_can_cast is false (unit tests check every pair of a type matrix).
 *   - Strings: VARCHAR/CHAR -> VARCHAR/VARBINARY reuse the input's bytes (views into the input,
 *     valid while the input is, per vec.h); other string results are copied into out's heap.
 *     CHAR(n) values are stored padded with spaces to n characters; their padding is ignored
 *     when they are parsed as numbers, booleans or dates.
 *   - Time zones: TIMESTAMP <-> TIMESTAMP WITH TIME ZONE and DATE -> TIMESTAMP WITH TIME ZONE
 *     interpret local times in ctx->session_zone; WITH TIME ZONE -> local types use the value's
 *     own zone, as Trino does.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "func/cast_impl.h"
#include "func/cast_value.h"
#include "func/cast_json.h"
#include "func/cast_nested.h"
#include "types/datetime.h"
#include "types/decimal.h"
#include "types/float_text.h"
#include "types/tz.h"
#include "vec/vec_format.h"

/* Reads the text of a VARCHAR or CHAR value (CHAR without its padding). */
#define STRING_SOURCE(src, idx, is_char, p, len)                                                   \
    const char *p = sqe_str_data(&(src)[idx]);                                                     \
    size_t len = (src)[idx].len;                                                                   \
    if (is_char) len = rtrim_spaces(p, len)

/* --- Numbers ----------------------------------------------------------------------------- */

static int cast_to_boolean(CAST_ARGS) {
    const vec *in = args[0];
    vec_view u;
    vec_view_init(&u, in);
    CAST_CHECK(cast_begin(ctx, out, sel, count));
    uint8_t *dst = out->data;
    char msg[400];
    switch ((type_id)in->type.id) {
#define BOOL_FROM(ctype)                                                                           \
    {                                                                                              \
        const ctype *src = u.data;                                                                 \
        CAST_LOOP(u, sel, count, out, dst[row] = src[idx] != 0;);                                  \
        return SQE_OK;                                                                             \
    }
    case TYPE_TINYINT: BOOL_FROM(int8_t)
    case TYPE_SMALLINT: BOOL_FROM(int16_t)
    case TYPE_INTEGER: BOOL_FROM(int32_t)
    case TYPE_BIGINT: BOOL_FROM(int64_t)
    case TYPE_REAL: BOOL_FROM(float)
    case TYPE_DOUBLE: BOOL_FROM(double)
#undef BOOL_FROM
    case TYPE_DECIMAL: {
        sqe_type ft = in->type;
        CAST_LOOP(u, sel, count, out, dst[row] = decimal_get(u.data, ft, idx) != 0;);
        return SQE_OK;
    }
    case TYPE_VARCHAR:
    case TYPE_CHAR: {
        const sqe_str *src = u.data;
        bool is_char = in->type.id == TYPE_CHAR;
        CAST_LOOP(u, sel, count, out, {
            STRING_SOURCE(src, idx, is_char, p, len);
            int rc = text_to_bool(p, len, &dst[row], msg, sizeof msg);
            if (rc) CAST_FAIL(rc, "%s", msg);
        });
        return SQE_OK;
    }
    default: return cast_unsupported(ctx, in, out);
    }
}

/* One kernel per integer target; sources switch outside the loops. */
#define DEFINE_CAST_TO_INT(NAME, DT, TO_ID)                                                        \
    static int NAME(CAST_ARGS) {                                                                   \
        const vec *in = args[0];                                                                   \
        vec_view u;                                                                                \
        vec_view_init(&u, in);                                                                     \
        CAST_CHECK(cast_begin(ctx, out, sel, count));                                              \
        DT *dst = out->data;                                                                       \
        int64_t lo, hi, v;                                                                         \
        int_limits(TO_ID, &lo, &hi);                                                               \
        char msg[400];                                                                             \
        switch ((type_id)in->type.id) {                                                            \
        case TYPE_BOOLEAN: {                                                                       \
            const uint8_t *src = u.data;                                                           \
            CAST_LOOP(u, sel, count, out, dst[row] = (DT)(src[idx] != 0););                        \
            return SQE_OK;                                                                         \
        }                                                                                          \
        case TYPE_TINYINT: INT_FROM_INT(int8_t, DT)                                                \
        case TYPE_SMALLINT: INT_FROM_INT(int16_t, DT)                                              \
        case TYPE_INTEGER: INT_FROM_INT(int32_t, DT)                                               \
        case TYPE_BIGINT: INT_FROM_INT(int64_t, DT)                                                \
        case TYPE_REAL: INT_FROM_FLOAT(float, true, DT, TO_ID)                                     \
        case TYPE_DOUBLE: INT_FROM_FLOAT(double, false, DT, TO_ID)                                 \
        case TYPE_DECIMAL: {                                                                       \
            sqe_type ft = in->type;                                                                \
            CAST_LOOP(u, sel, count, out, {                                                        \
                int rc = decimal_to_int(decimal_get(u.data, ft, idx), ft, TO_ID, &v, msg,          \
                                        sizeof msg);                                               \
                if (rc) CAST_FAIL(rc, "%s", msg);                                                  \
                dst[row] = (DT)v;                                                                  \
            });                                                                                    \
            return SQE_OK;                                                                         \
        }                                                                                          \
        case TYPE_VARCHAR:                                                                         \
        case TYPE_CHAR: {                                                                          \
            const sqe_str *src = u.data;                                                           \
            bool is_char = in->type.id == TYPE_CHAR;                                               \
            CAST_LOOP(u, sel, count, out, {                                                        \
                STRING_SOURCE(src, idx, is_char, p, len);                                          \
                int rc = text_to_int(p, len, TO_ID, &v, msg, sizeof msg);                          \
                if (rc) CAST_FAIL(rc, "%s", msg);                                                  \
                dst[row] = (DT)v;                                                                  \
            });                                                                                    \
            return SQE_OK;                                                                         \
        }                                                                                          \
        default: return cast_unsupported(ctx, in, out);                                            \
        }                                                                                          \
    }

/* Integer -> integer: a range check (constant-folded away when widening). */
#define INT_FROM_INT(ST, DT)                                                                       \
    {                                                                                              \
        const ST *src = u.data;                                                                    \
        CAST_LOOP(u, sel, count, out, {                                                            \
            v = src[idx];                                                                          \
            if (v < lo || v > hi)                                                                  \
                CAST_FAIL(SQE_ERR_NUMERIC_VALUE_OUT_OF_RANGE, "Out of range for %s: %lld",         \
                          int_type_lower(out->type.id), (long long)v);                             \
            dst[row] = (DT)v;                                                                      \
        });                                                                                        \
        return SQE_OK;                                                                             \
    }

#define INT_FROM_FLOAT(ST, IS_REAL, DT, TO_ID)                                                     \
    {                                                                                              \
        const ST *src = u.data;                                                                    \
        CAST_LOOP(u, sel, count, out, {                                                            \
            int rc = double_to_int(src[idx], IS_REAL, TO_ID, &v, msg, sizeof msg);                 \
            if (rc) CAST_FAIL(rc, "%s", msg);                                                      \
            dst[row] = (DT)v;                                                                      \
        });                                                                                        \
        return SQE_OK;                                                                             \
    }

DEFINE_CAST_TO_INT(cast_to_tinyint, int8_t, TYPE_TINYINT)
DEFINE_CAST_TO_INT(cast_to_smallint, int16_t, TYPE_SMALLINT)
DEFINE_CAST_TO_INT(cast_to_integer, int32_t, TYPE_INTEGER)
DEFINE_CAST_TO_INT(cast_to_bigint, int64_t, TYPE_BIGINT)

#undef DEFINE_CAST_TO_INT
#undef INT_FROM_INT
#undef INT_FROM_FLOAT

#define DEFINE_CAST_TO_FLOAT(NAME, DT, IS_REAL)                                                    \
    static int NAME(CAST_ARGS) {                                                                   \
        const vec *in = args[0];                                                                   \
        vec_view u;                                                                                \
        vec_view_init(&u, in);                                                                     \
        CAST_CHECK(cast_begin(ctx, out, sel, count));                                              \
        DT *dst = out->data;                                                                       \
        char msg[400];                                                                             \
        switch ((type_id)in->type.id) {                                                            \
        case TYPE_BOOLEAN: FLOAT_FROM(uint8_t, DT)                                                 \
        case TYPE_TINYINT: FLOAT_FROM(int8_t, DT)                                                  \
        case TYPE_SMALLINT: FLOAT_FROM(int16_t, DT)                                                \
        case TYPE_INTEGER: FLOAT_FROM(int32_t, DT)                                                 \
        case TYPE_BIGINT: FLOAT_FROM(int64_t, DT)                                                  \
        case TYPE_REAL: FLOAT_FROM(float, DT)                                                      \
        case TYPE_DOUBLE: FLOAT_FROM(double, DT)                                                   \
        case TYPE_DECIMAL: {                                                                       \
            sqe_type ft = in->type;                                                                \
            if (!type_decimal_is_long(ft)) {                                                       \
                const int64_t *src = u.data;                                                       \
                const DT scale = (DT)pow10_double[ft.scale];                                       \
                CAST_LOOP(u, sel, count, out, dst[row] = (DT)src[idx] / scale;);                   \
            } else {                                                                               \
                CAST_LOOP(u, sel, count, out, {                                                    \
                    int128 v = decimal_get(u.data, ft, idx);                                       \
                    dst[row] = IS_REAL ? (DT)decimal_value_to_real(v, ft)                          \
                                       : (DT)decimal_value_to_double(v, ft);                       \
                });                                                                                \
            }                                                                                      \
            return SQE_OK;                                                                         \
        }                                                                                          \
        case TYPE_VARCHAR:                                                                         \
        case TYPE_CHAR: {                                                                          \
            const sqe_str *src = u.data;                                                           \
            bool is_char = in->type.id == TYPE_CHAR;                                               \
            CAST_LOOP(u, sel, count, out, {                                                        \
                STRING_SOURCE(src, idx, is_char, p, len);                                          \
                int rc;                                                                            \
                if (IS_REAL) {                                                                     \
                    float f = 0;                                                                   \
                    rc = text_to_real(p, len, &f, msg, sizeof msg);                                \
                    dst[row] = (DT)f;                                                              \
                } else {                                                                           \
                    double d = 0;                                                                  \
                    rc = text_to_double(p, len, &d, msg, sizeof msg);                              \
                    dst[row] = (DT)d;                                                              \
                }                                                                                  \
                if (rc) CAST_FAIL(rc, "%s", msg);                                                  \
            });                                                                                    \
            return SQE_OK;                                                                         \
        }                                                                                          \
        default: return cast_unsupported(ctx, in, out);                                            \
        }                                                                                          \
    }

#define FLOAT_FROM(ST, DT)                                                                         \
    {                                                                                              \
        const ST *src = u.data;                                                                    \
        CAST_LOOP(u, sel, count, out, dst[row] = (DT)src[idx];);                                   \
        return SQE_OK;                                                                             \
    }

DEFINE_CAST_TO_FLOAT(cast_to_real, float, true)
DEFINE_CAST_TO_FLOAT(cast_to_double, double, false)

#undef DEFINE_CAST_TO_FLOAT
#undef FLOAT_FROM

static int cast_to_decimal(CAST_ARGS) {
    const vec *in = args[0];
    vec_view u;
    vec_view_init(&u, in);
    CAST_CHECK(cast_begin(ctx, out, sel, count));
    sqe_type to = out->type;
    sqe_type ft = in->type;
    char msg[400];
    int128 v;
    switch ((type_id)ft.id) {
#define DECIMAL_FROM_INT(ST, FROM_ID)                                                              \
    {                                                                                              \
        const ST *src = u.data;                                                                    \
        CAST_LOOP(u, sel, count, out, {                                                            \
            int rc = int_to_decimal(src[idx], FROM_ID, to, &v, msg, sizeof msg);                   \
            if (rc) CAST_FAIL(rc, "%s", msg);                                                      \
            decimal_put(out->data, to, row, v);                                                    \
        });                                                                                        \
        return SQE_OK;                                                                             \
    }
    case TYPE_BOOLEAN: DECIMAL_FROM_INT(uint8_t, TYPE_BOOLEAN)
    case TYPE_TINYINT: DECIMAL_FROM_INT(int8_t, TYPE_TINYINT)
    case TYPE_SMALLINT: DECIMAL_FROM_INT(int16_t, TYPE_SMALLINT)
    case TYPE_INTEGER: DECIMAL_FROM_INT(int32_t, TYPE_INTEGER)
    case TYPE_BIGINT: DECIMAL_FROM_INT(int64_t, TYPE_BIGINT)
#undef DECIMAL_FROM_INT
    case TYPE_REAL: {
        const float *src = u.data;
        CAST_LOOP(u, sel, count, out, {
            int rc = double_to_decimal(src[idx], true, to, &v, msg, sizeof msg);
            if (rc) CAST_FAIL(rc, "%s", msg);
            decimal_put(out->data, to, row, v);
        });
        return SQE_OK;
    }
    case TYPE_DOUBLE: {
        const double *src = u.data;
        CAST_LOOP(u, sel, count, out, {
            int rc = double_to_decimal(src[idx], false, to, &v, msg, sizeof msg);
            if (rc) CAST_FAIL(rc, "%s", msg);
            decimal_put(out->data, to, row, v);
        });
        return SQE_OK;
    }
    case TYPE_DECIMAL:
        if (ft.scale == to.scale && to.precision >= ft.precision &&
            type_decimal_is_long(ft) == type_decimal_is_long(to)) {
            /* Widening without rescale: a copy of the unscaled values. */
            size_t width = type_physical_size(to);
            CAST_LOOP(u, sel, count, out,
                      memcpy((char *)out->data + (size_t)row * width,
                             (const char *)u.data + (size_t)idx * width, width););
            return SQE_OK;
        }
        CAST_LOOP(u, sel, count, out, {
            int rc = decimal_to_decimal(decimal_get(u.data, ft, idx), ft, to, &v, msg, sizeof msg);
            if (rc) CAST_FAIL(rc, "%s", msg);
            decimal_put(out->data, to, row, v);
        });
        return SQE_OK;
    case TYPE_VARCHAR:
    case TYPE_CHAR: {
        const sqe_str *src = u.data;
        bool is_char = ft.id == TYPE_CHAR;
        CAST_LOOP(u, sel, count, out, {
            STRING_SOURCE(src, idx, is_char, p, len);
            int rc = text_to_decimal(p, len, to, &v, msg, sizeof msg);
            if (rc) CAST_FAIL(rc, "%s", msg);
            decimal_put(out->data, to, row, v);
        });
        return SQE_OK;
    }
    default: return cast_unsupported(ctx, in, out);
    }
}

/* --- Strings ----------------------------------------------------------------------------- */

/* Formats each value with FORMAT (writing `n` bytes into `buf`) and stores it as VARCHAR(limit),
 * failing when the text is longer than a bounded target. */
#define VARCHAR_FROM_TEXT(FORMAT)                                                                  \
    CAST_LOOP(u, sel, count, out, {                                                                \
        int n;                                                                                     \
        FORMAT;                                                                                    \
        if (limit && (uint32_t)n > limit && utf8_length(buf, (size_t)n) > limit)                   \
            CAST_FAIL(SQE_ERR_INVALID_CAST_ARGUMENT, "Value %.*s cannot be represented as varchar(%u)", \
                      n, buf, limit);                                                              \
        if (!put_str(out, row, buf, (size_t)n)) return cast_nomem(ctx);                            \
    })

static int cast_to_varchar(CAST_ARGS) {
    const vec *in = args[0];
    vec_view u;
    vec_view_init(&u, in);
    CAST_CHECK(cast_begin(ctx, out, sel, count));
    sqe_type ft = in->type;
    uint32_t limit = out->type.length;
    char buf[256];
    sqe_str *dst = out->data;
    switch ((type_id)ft.id) {
    case TYPE_BOOLEAN: {
        const uint8_t *src = u.data;
        VARCHAR_FROM_TEXT(n = src[idx] ? 4 : 5; memcpy(buf, src[idx] ? "true" : "false", 5));
        return SQE_OK;
    }
    case TYPE_TINYINT: {
        const int8_t *src = u.data;
        VARCHAR_FROM_TEXT(n = decimal_format(src[idx], 0, buf));
        return SQE_OK;
    }
    case TYPE_SMALLINT: {
        const int16_t *src = u.data;
        VARCHAR_FROM_TEXT(n = decimal_format(src[idx], 0, buf));
        return SQE_OK;
    }
    case TYPE_INTEGER: {
        const int32_t *src = u.data;
        VARCHAR_FROM_TEXT(n = decimal_format(src[idx], 0, buf));
        return SQE_OK;
    }
    case TYPE_BIGINT: {
        const int64_t *src = u.data;
        VARCHAR_FROM_TEXT(n = decimal_format(src[idx], 0, buf));
        return SQE_OK;
    }
    case TYPE_REAL:
    case TYPE_DOUBLE: {
        bool is_real = ft.id == TYPE_REAL;
        CAST_LOOP(u, sel, count, out, {
            double d = is_real ? (double)((const float *)u.data)[idx] : ((const double *)u.data)[idx];
            int n = is_real ? float_text_real_sci((float)d, buf) : float_text_double_sci(d, buf);
            if (limit && (uint32_t)n > limit) {
                char java[FLOAT_TEXT_MAX];
                if (is_real)
                    float_text_real((float)d, java);
                else
                    float_text_double(d, java);
                CAST_FAIL(SQE_ERR_INVALID_CAST_ARGUMENT,
                          "Value %s (%.*s) cannot be represented as varchar(%u)", java, n, buf,
                          limit);
            }
            if (!put_str(out, row, buf, (size_t)n)) return cast_nomem(ctx);
        });
        return SQE_OK;
    }
    case TYPE_DECIMAL:
        VARCHAR_FROM_TEXT(n = decimal_format(decimal_get(u.data, ft, idx), ft.scale, buf));
        return SQE_OK;
    case TYPE_DATE: {
        const int32_t *src = u.data;
        VARCHAR_FROM_TEXT(n = dt_format_date(src[idx], buf));
        return SQE_OK;
    }
    case TYPE_TIME: {
        const int64_t *src = u.data;
        VARCHAR_FROM_TEXT(n = dt_format_time(src[idx], ft.precision, buf));
        return SQE_OK;
    }
    case TYPE_TIMESTAMP: {
        const int64_t *src = u.data;
        VARCHAR_FROM_TEXT(n = dt_format_timestamp(src[idx], ft.precision, buf));
        return SQE_OK;
    }
    case TYPE_TIMESTAMP_TZ: {
        const sqe_timestamp_tz *src = u.data;
        VARCHAR_FROM_TEXT(n = dt_format_timestamp_tz(src[idx].micros, src[idx].zone, ft.precision, buf));
        return SQE_OK;
    }
    case TYPE_INTERVAL_DS: {
        const int64_t *src = u.data;
        VARCHAR_FROM_TEXT(n = dt_format_interval_ds(src[idx], buf));
        return SQE_OK;
    }
    case TYPE_INTERVAL_YM: {
        const int32_t *src = u.data;
        VARCHAR_FROM_TEXT(n = dt_format_interval_ym(src[idx], buf));
        return SQE_OK;
    }
    case TYPE_UUID: {
        const uint8_t *src = u.data;
        VARCHAR_FROM_TEXT(n = vec_format_uuid(src + (size_t)idx * 16, buf));
        return SQE_OK;
    }
    case TYPE_VARCHAR:
    case TYPE_CHAR: {
        /* Views on the input's bytes, truncated to the target length in characters. */
        const sqe_str *src = u.data;
        if (!limit) {
            CAST_LOOP(u, sel, count, out, dst[row] = src[idx];);
            return SQE_OK;
        }
        CAST_LOOP(u, sel, count, out, {
            const sqe_str *s = &src[idx];
            if (s->len <= limit) {
                dst[row] = *s; /* at most `limit` bytes: at most `limit` characters */
            } else {
                const char *p = sqe_str_data(s);
                dst[row] = sqe_str_make(p, (uint32_t)utf8_prefix(p, s->len, limit));
            }
        });
        return SQE_OK;
    }
    default: return cast_unsupported(ctx, in, out);
    }
}

#undef VARCHAR_FROM_TEXT

/* VARCHAR/CHAR -> CHAR(n): truncate to n characters, pad with spaces to n characters. */
static int cast_to_char(CAST_ARGS) {
    const vec *in = args[0];
    vec_view u;
    vec_view_init(&u, in);
    CAST_CHECK(cast_begin(ctx, out, sel, count));
    if (in->type.id != TYPE_VARCHAR && in->type.id != TYPE_CHAR) return cast_unsupported(ctx, in, out);
    uint32_t n = out->type.length;
    const sqe_str *src = u.data;
    sqe_str *dst = out->data;
    CAST_LOOP(u, sel, count, out, {
        const sqe_str *s = &src[idx];
        const char *p = sqe_str_data(s);
        size_t bytes = utf8_prefix(p, s->len, n);
        size_t chars = utf8_length(p, bytes);
        size_t total = bytes + (n - chars);
        if (total == s->len) { /* already exactly n characters */
            dst[row] = *s;
            continue;
        }
        if (total > UINT32_MAX) return cast_nomem(ctx);
        char small[SQE_STR_INLINE];
        char *buf = total <= SQE_STR_INLINE ? small : vec_str_reserve(out, (uint32_t)total);
        if (!buf) return cast_nomem(ctx);
        memcpy(buf, p, bytes);
        memset(buf + bytes, ' ', total - bytes);
        dst[row] = sqe_str_make(buf, (uint32_t)total);
    });
    return SQE_OK;
}

/* VARCHAR/CHAR (their bytes) and UUID (16 bytes) -> VARBINARY. */
static int cast_to_varbinary(CAST_ARGS) {
    const vec *in = args[0];
    vec_view u;
    vec_view_init(&u, in);
    CAST_CHECK(cast_begin(ctx, out, sel, count));
    sqe_str *dst = out->data;
    if (in->type.id == TYPE_VARCHAR || in->type.id == TYPE_CHAR) {
        const sqe_str *src = u.data;
        CAST_LOOP(u, sel, count, out, dst[row] = src[idx];);
        return SQE_OK;
    }
    if (in->type.id == TYPE_UUID) {
        const uint8_t *src = u.data;
        CAST_LOOP(u, sel, count, out, {
            if (!put_str(out, row, (const char *)src + (size_t)idx * 16, 16)) return cast_nomem(ctx);
        });
        return SQE_OK;
    }
    return cast_unsupported(ctx, in, out);
}

static int cast_to_uuid(CAST_ARGS) {
    const vec *in = args[0];
    vec_view u;
    vec_view_init(&u, in);
    CAST_CHECK(cast_begin(ctx, out, sel, count));
    uint8_t *dst = out->data;
    const sqe_str *src = u.data;
    char msg[400];
    if (in->type.id == TYPE_VARCHAR) {
        CAST_LOOP(u, sel, count, out, {
            int rc = text_to_uuid(sqe_str_data(&src[idx]), src[idx].len, dst + (size_t)row * 16, msg,
                                  sizeof msg);
            if (rc) CAST_FAIL(rc, "%s", msg);
        });
        return SQE_OK;
    }
    if (in->type.id == TYPE_VARBINARY) {
        CAST_LOOP(u, sel, count, out, {
            if (src[idx].len != 16)
                CAST_FAIL(SQE_ERR_INVALID_CAST_ARGUMENT, "Invalid UUID binary length: %u",
                          src[idx].len);
            memcpy(dst + (size_t)row * 16, sqe_str_data(&src[idx]), 16);
        });
        return SQE_OK;
    }
    return cast_unsupported(ctx, in, out);
}

/* --- Date and time ----------------------------------------------------------------------- */

static int cast_to_date(CAST_ARGS) {
    const vec *in = args[0];
    vec_view u;
    vec_view_init(&u, in);
    CAST_CHECK(cast_begin(ctx, out, sel, count));
    int32_t *dst = out->data;
    switch ((type_id)in->type.id) {
    case TYPE_VARCHAR:
    case TYPE_CHAR: {
        const sqe_str *src = u.data;
        CAST_LOOP(u, sel, count, out, {
            const char *p = sqe_str_data(&src[idx]);
            if (dt_parse_date(p, src[idx].len, &dst[row]) != 0)
                CAST_FAIL(SQE_ERR_INVALID_CAST_ARGUMENT, "Value cannot be cast to date: %.*s",
                          msg_len_of(src[idx].len), p);
        });
        return SQE_OK;
    }
    case TYPE_TIMESTAMP: {
        const int64_t *src = u.data;
        CAST_LOOP(u, sel, count, out, dst[row] = (int32_t)dt_floor_div(src[idx], DT_MICROS_PER_DAY););
        return SQE_OK;
    }
    case TYPE_TIMESTAMP_TZ: {
        const sqe_timestamp_tz *src = u.data;
        CAST_LOOP(u, sel, count, out, {
            int64_t local = tz_utc_to_local(src[idx].zone, src[idx].micros);
            dst[row] = (int32_t)dt_floor_div(local, DT_MICROS_PER_DAY);
        });
        return SQE_OK;
    }
    default: return cast_unsupported(ctx, in, out);
    }
}

static int cast_to_time(CAST_ARGS) {
    const vec *in = args[0];
    vec_view u;
    vec_view_init(&u, in);
    CAST_CHECK(cast_begin(ctx, out, sel, count));
    int64_t *dst = out->data;
    int64_t factor = precision_factor(out->type.precision);
    switch ((type_id)in->type.id) {
    case TYPE_VARCHAR: {
        const sqe_str *src = u.data;
        CAST_LOOP(u, sel, count, out, {
            const char *p = sqe_str_data(&src[idx]);
            int64_t t;
            int precision;
            if (dt_parse_time(p, src[idx].len, &t, &precision) != 0)
                CAST_FAIL(SQE_ERR_INVALID_CAST_ARGUMENT, "Value cannot be cast to time: %.*s",
                          msg_len_of(src[idx].len), p);
            dst[row] = dt_floor_mod(round_micros(t, factor), DT_MICROS_PER_DAY);
        });
        return SQE_OK;
    }
    case TYPE_TIME:
    case TYPE_TIMESTAMP: {
        const int64_t *src = u.data;
        CAST_LOOP(u, sel, count, out,
                  dst[row] = dt_floor_mod(round_micros(src[idx], factor), DT_MICROS_PER_DAY););
        return SQE_OK;
    }
    case TYPE_TIMESTAMP_TZ: {
        const sqe_timestamp_tz *src = u.data;
        CAST_LOOP(u, sel, count, out, {
            int64_t local = tz_utc_to_local(src[idx].zone, src[idx].micros);
            dst[row] = dt_floor_mod(round_micros(local, factor), DT_MICROS_PER_DAY);
        });
        return SQE_OK;
    }
    default: return cast_unsupported(ctx, in, out);
    }
}

static int cast_to_timestamp(CAST_ARGS) {
    const vec *in = args[0];
    vec_view u;
    vec_view_init(&u, in);
    CAST_CHECK(cast_begin(ctx, out, sel, count));
    int64_t *dst = out->data;
    int64_t factor = precision_factor(out->type.precision);
    switch ((type_id)in->type.id) {
    case TYPE_VARCHAR: {
        const sqe_str *src = u.data;
        CAST_LOOP(u, sel, count, out, {
            const char *p = sqe_str_data(&src[idx]);
            int64_t t;
            int precision;
            if (dt_parse_timestamp(p, src[idx].len, &t, &precision) != 0)
                CAST_FAIL(SQE_ERR_INVALID_CAST_ARGUMENT, "Value cannot be cast to timestamp: %.*s",
                          msg_len_of(src[idx].len), p);
            dst[row] = round_micros(t, factor);
        });
        return SQE_OK;
    }
    case TYPE_DATE: {
        const int32_t *src = u.data;
        CAST_LOOP(u, sel, count, out, {
            if (__builtin_mul_overflow((int64_t)src[idx], DT_MICROS_PER_DAY, &dst[row])) {
                char text[64];
                dt_format_date(src[idx], text);
                CAST_FAIL(SQE_ERR_INVALID_CAST_ARGUMENT, "Value cannot be cast to timestamp: %s", text);
            }
        });
        return SQE_OK;
    }
    case TYPE_TIMESTAMP: {
        const int64_t *src = u.data;
        if (factor == 1 || in->type.precision <= out->type.precision) {
            CAST_LOOP(u, sel, count, out, dst[row] = src[idx];);
        } else {
            CAST_LOOP(u, sel, count, out, dst[row] = round_micros(src[idx], factor););
        }
        return SQE_OK;
    }
    case TYPE_TIMESTAMP_TZ: {
        const sqe_timestamp_tz *src = u.data;
        CAST_LOOP(u, sel, count, out,
                  dst[row] = round_micros(tz_utc_to_local(src[idx].zone, src[idx].micros), factor););
        return SQE_OK;
    }
    default: return cast_unsupported(ctx, in, out);
    }
}

static int cast_to_timestamp_tz(CAST_ARGS) {
    const vec *in = args[0];
    vec_view u;
    vec_view_init(&u, in);
    CAST_CHECK(cast_begin(ctx, out, sel, count));
    sqe_timestamp_tz *dst = out->data;
    int64_t factor = precision_factor(out->type.precision);
    int32_t session = ctx->session_zone;
    switch ((type_id)in->type.id) {
    case TYPE_VARCHAR: {
        const sqe_str *src = u.data;
        CAST_LOOP(u, sel, count, out, {
            const char *p = sqe_str_data(&src[idx]);
            int64_t t;
            int32_t zone;
            bool has_zone;
            int precision;
            if (dt_parse_timestamp_tz(p, src[idx].len, &t, &zone, &has_zone, &precision) != 0)
                CAST_FAIL(SQE_ERR_INVALID_CAST_ARGUMENT,
                          "Value cannot be cast to timestamp with time zone: %.*s",
                          msg_len_of(src[idx].len), p);
            if (!has_zone) {
                zone = session;
                t = tz_local_to_utc(zone, t);
            }
            dst[row] = (sqe_timestamp_tz){round_micros(t, factor), zone, 0};
        });
        return SQE_OK;
    }
    case TYPE_DATE: {
        const int32_t *src = u.data;
        CAST_LOOP(u, sel, count, out, {
            int64_t local;
            if (__builtin_mul_overflow((int64_t)src[idx], DT_MICROS_PER_DAY, &local)) {
                char text[64];
                dt_format_date(src[idx], text);
                CAST_FAIL(SQE_ERR_INVALID_CAST_ARGUMENT,
                          "Value cannot be cast to timestamp with time zone: %s", text);
            }
            dst[row] = (sqe_timestamp_tz){tz_local_to_utc(session, local), session, 0};
        });
        return SQE_OK;
    }
    case TYPE_TIMESTAMP: {
        const int64_t *src = u.data;
        CAST_LOOP(u, sel, count, out,
                  dst[row] = (sqe_timestamp_tz){tz_local_to_utc(session, round_micros(src[idx], factor)),
                                                session, 0};);
        return SQE_OK;
    }
    case TYPE_TIMESTAMP_TZ: {
        const sqe_timestamp_tz *src = u.data;
        CAST_LOOP(u, sel, count, out,
                  dst[row] = (sqe_timestamp_tz){round_micros(src[idx].micros, factor), src[idx].zone, 0};);
        return SQE_OK;
    }
    default: return cast_unsupported(ctx, in, out);
    }
}

/* --- Special cases ----------------------------------------------------------------------- */

/* NULL literal (UNKNOWN) -> anything: every selected row NULL. */
static int cast_all_null(CAST_ARGS) {
    (void)args;
    uint64_t *bits = vec_validity_make(out);
    if (!bits) return cast_nomem(ctx);
    for (uint32_t i = 0; i < count; i++) {
        uint32_t row = sel ? sel[i] : i;
        bits[row >> 6] &= ~((uint64_t)1 << (row & 63));
    }
    return SQE_OK;
}

/* Same type: values copied (strings as views on the input; nested values row by row). */
static int cast_identity(CAST_ARGS) {
    const vec *in = args[0];
    vec_view u;
    vec_view_init(&u, in);
    CAST_CHECK(cast_begin(ctx, out, sel, count));
    if (type_is_nested(out->type)) {
        for (uint32_t i = 0; i < count; i++) {
            uint32_t row = sel ? sel[i] : i;
            CAST_CHECK(vec_copy_row(out, row, in, row, ctx->err));
        }
        return SQE_OK;
    }
    size_t width = type_physical_size(out->type);
    CAST_LOOP(u, sel, count, out,
              memcpy((char *)out->data + (size_t)row * width,
                     (const char *)u.data + (size_t)idx * width, width););
    return SQE_OK;
}

/* --- Lookup ------------------------------------------------------------------------------ */

func_scalar_fn func_cast_lookup(sqe_type from, sqe_type to) {
    if (!type_can_cast(from, to)) return NULL;
    if (from.id == TYPE_UNKNOWN) return cast_all_null;
    if (type_equal(from, to)) return cast_identity;
    if (from.id == TYPE_JSON) return cast_from_json;
    switch ((type_id)to.id) {
    case TYPE_BOOLEAN: return cast_to_boolean;
    case TYPE_TINYINT: return cast_to_tinyint;
    case TYPE_SMALLINT: return cast_to_smallint;
    case TYPE_INTEGER: return cast_to_integer;
    case TYPE_BIGINT: return cast_to_bigint;
    case TYPE_REAL: return cast_to_real;
    case TYPE_DOUBLE: return cast_to_double;
    case TYPE_DECIMAL: return cast_to_decimal;
    case TYPE_VARCHAR: return cast_to_varchar;
    case TYPE_CHAR: return cast_to_char;
    case TYPE_VARBINARY: return cast_to_varbinary;
    case TYPE_JSON: return cast_to_json;
    case TYPE_DATE: return cast_to_date;
    case TYPE_TIME: return cast_to_time;
    case TYPE_TIMESTAMP: return cast_to_timestamp;
    case TYPE_TIMESTAMP_TZ: return cast_to_timestamp_tz;
    case TYPE_UUID: return cast_to_uuid;
    case TYPE_ARRAY:
    case TYPE_MAP: return cast_list;
    case TYPE_ROW: return cast_row;
    default: return NULL;
    }
}
