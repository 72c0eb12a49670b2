/*
 * cast_impl.h: private to func/cast.c (included once, by it): the loop skeleton shared by every
 * cast kernel and small text helpers (trimming, UTF-8 code points, Java integer parsing).
 *
 * Every kernel has the func_scalar_fn signature and follows the same pattern:
 *   vec_view u; vec_view_init(&u, args[0]);      -- any input shape
 *   CAST_CHECK(cast_begin(ctx, out, sel, count));
 *   CAST_LOOP(u, sel, count, out, { ... dst[row] = f(src[idx]); ... });
 * CAST_LOOP binds `row` (the output row) and `idx` (the input data index). Its fast path (no
 * selection, flat input, no NULLs) is a plain counted loop the compiler can vectorize; the
 * general path skips NULL inputs and marks the output NULL. A body reports a bad value with
 * CAST_FAIL(code, fmt, ...), which sets the row NULL under TRY and otherwise returns the error.
 */
#ifndef SQE_FUNC_CAST_IMPL_H
#define SQE_FUNC_CAST_IMPL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "func/func.h"

#define CAST_ARGS                                                                                  \
    func_ctx *ctx, const vec *const *args, uint32_t n_args __attribute__((unused)),              \
        const uint32_t *sel, uint32_t count, vec *out

#define CAST_CHECK(expr)                                                                           \
    do {                                                                                           \
        int cast_rc_ = (expr);                                                                     \
        if (cast_rc_ != SQE_OK) return cast_rc_;                                                   \
    } while (0)

#define CAST_LOOP(u, sel, count, out, ...)                                                         \
    do {                                                                                           \
        if (!(sel) && vec_view_is_flat(&(u)) && !(u).validity) {                                   \
            for (uint32_t row = 0; row < (count); row++) {                                         \
                const uint32_t idx = row;                                                          \
                (void)idx;                                                                         \
                __VA_ARGS__                                                                        \
            }                                                                                      \
        } else {                                                                                   \
            for (uint32_t loop_i_ = 0; loop_i_ < (count); loop_i_++) {                             \
                const uint32_t row = (sel) ? (sel)[loop_i_] : loop_i_;                             \
                const uint32_t idx = vec_view_index(&(u), row);                                    \
                if ((u).validity && !(((u).validity[idx >> 6] >> (idx & 63)) & 1)) {               \
                    if (vec_set_null((out), row) != SQE_OK) return cast_nomem(ctx);                \
                    continue;                                                                      \
                }                                                                                  \
                __VA_ARGS__                                                                        \
            }                                                                                      \
        }                                                                                          \
    } while (0)

#define CAST_FAIL(code, ...)                                                                       \
    {                                                                                              \
        int fail_rc_ = func_row_error(ctx, out, row, (code), __VA_ARGS__);                         \
        if (fail_rc_ != SQE_OK) return fail_rc_;                                                   \
        continue;                                                                                  \
    }

static inline int cast_nomem(func_ctx *ctx) { return err_nomem(ctx->err, "cast result"); }

/* Marks the selected rows valid when out already has a validity bitmap (a reused vector). */
static inline int cast_begin(func_ctx *ctx, vec *out, const uint32_t *sel, uint32_t count) {
    (void)ctx;
    if (!out->validity) return SQE_OK;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t row = sel ? sel[i] : i;
        out->validity[row >> 6] |= (uint64_t)1 << (row & 63);
    }
    return SQE_OK;
}

/* Makes sure out has a validity bitmap when rows may become NULL (NULL inputs, TRY), so that
 * marking a row NULL inside a loop cannot fail; kernels that own temporary buffers call this
 * before allocating them, so no early return can leak. */
static inline int cast_prepare_nulls(func_ctx *ctx, const vec_view *u, vec *out) {
    if ((u->validity || ctx->try_mode) && !vec_validity_make(out)) return cast_nomem(ctx);
    return SQE_OK;
}

static inline int cast_unsupported(func_ctx *ctx, const vec *in, const vec *out) {
    char a[128], b[128];
    type_format(in->type, a, sizeof a);
    type_format(out->type, b, sizeof b);
    return err_set(ctx->err, SQE_ERR_GENERIC_INTERNAL_ERROR, "unsupported cast from %s to %s", a, b);
}

/* Stores len bytes as row `row` of a string vector (copied into its heap when not inline). */
static inline bool put_str(vec *out, uint32_t row, const char *p, size_t len) {
    bool ok = true;
    VEC_DATA(out, sqe_str)[row] = vec_str_copy(out, p, (uint32_t)len, &ok);
    return ok;
}

/* --- Text helpers ------------------------------------------------------------------------ */

/* Java String.trim(): drops bytes <= ' ' at both ends. */
static inline void java_trim(const char **s, size_t *len) {
    while (*len && (unsigned char)**s <= ' ') (*s)++, (*len)--;
    while (*len && (unsigned char)(*s)[*len - 1] <= ' ') (*len)--;
}

/* Drops trailing spaces (CHAR values are compared and converted without their padding). */
static inline size_t rtrim_spaces(const char *s, size_t len) {
    while (len && s[len - 1] == ' ') len--;
    return len;
}

/* Number of UTF-8 code points (bytes that do not continue a sequence). */
static inline size_t utf8_length(const char *s, size_t len) {
    size_t n = 0;
    for (size_t i = 0; i < len; i++) n += ((unsigned char)s[i] & 0xC0) != 0x80;
    return n;
}

/* Byte length of the first `points` code points of s (all of s when it has fewer). */
static inline size_t utf8_prefix(const char *s, size_t len, size_t points) {
    size_t seen = 0;
    for (size_t i = 0; i < len; i++) {
        if (((unsigned char)s[i] & 0xC0) != 0x80) {
            if (seen == points) return i;
            seen++;
        }
    }
    return len;
}

/* Java Long.parseLong after trim(): [+-]digits, no overflow. */
static inline bool parse_java_long(const char *s, size_t len, int64_t *out) {
    java_trim(&s, &len);
    if (len == 0) return false;
    size_t i = 0;
    bool negative = false;
    if (s[0] == '+' || s[0] == '-') {
        negative = s[0] == '-';
        i++;
    }
    if (i == len) return false;
    int64_t v = 0; /* accumulated negatively so INT64_MIN parses */
    for (; i < len; i++) {
        if (s[i] < '0' || s[i] > '9') return false;
        if (__builtin_mul_overflow(v, 10, &v) || __builtin_sub_overflow(v, s[i] - '0', &v))
            return false;
    }
    if (!negative) {
        if (v == INT64_MIN) return false;
        v = -v;
    }
    *out = v;
    return true;
}

/* Trino's text name of a target type in "Cannot cast '...' to X" messages. */
static inline const char *cast_type_upper(uint8_t id) {
    switch ((type_id)id) {
    case TYPE_BOOLEAN: return "BOOLEAN";
    case TYPE_TINYINT: return "TINYINT";
    case TYPE_SMALLINT: return "SMALLINT";
    case TYPE_INTEGER: return "INT";
    case TYPE_BIGINT: return "BIGINT";
    case TYPE_REAL: return "REAL";
    case TYPE_DOUBLE: return "DOUBLE";
    case TYPE_DECIMAL: return "DECIMAL";
    case TYPE_DATE: return "DATE";
    case TYPE_TIME: return "TIME";
    case TYPE_TIMESTAMP: return "TIMESTAMP";
    case TYPE_TIMESTAMP_TZ: return "TIMESTAMP WITH TIME ZONE";
    case TYPE_UUID: return "UUID";
    case TYPE_JSON: return "JSON";
    default: return "VARCHAR";
    }
}

/* Lower-case SQL name of an integer type ("Out of range for integer: ..."). */
static inline const char *int_type_lower(uint8_t id) {
    switch ((type_id)id) {
    case TYPE_TINYINT: return "tinyint";
    case TYPE_SMALLINT: return "smallint";
    case TYPE_INTEGER: return "integer";
    default: return "bigint";
    }
}

#endif
