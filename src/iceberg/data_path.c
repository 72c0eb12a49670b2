/*
 * data_path.c: Iceberg partition paths: the "name=value/..." directory of a partition tuple as
 * Iceberg Java's PartitionSpec.partitionToPath builds it (Transform.toHumanString of each value,
 * java.net.URLEncoder on names and values).
 *
 * INTERFACE
 *   ice_partition_path      tuple -> "ts_day=2024-01-31/id_bucket=3"
 * NOTES
 *   - Human strings (Iceberg TransformUtil / Transforms): null "null"; year "%04d"; month
 *     "yyyy-MM"; day a java.time.LocalDate ("2024-01-31", "+10000-01-01"); hour "yyyy-MM-dd-HH";
 *     bucket the int; identity and truncate by the value's type: booleans true/false, numbers
 *     in decimal, floats as Java's Float/Double.toString ("1.0", "1.0E10", "NaN"), decimals
 *     plain with their scale, dates as above, times and timestamps as java.time's toString
 *     ("13:45", "13:45:07.123", "2024-01-31T13:45:07.123456", timestamptz with "Z"), strings
 *     as is, binaries base64 (with padding), UUIDs 8-4-4-4-12 lowercase.
 *   - URLEncoder: a-z A-Z 0-9 . - * _ stay, space becomes '+', every other byte of the UTF-8
 *     text %XX (uppercase hex).
 *   - Not reproduced: BigDecimal's exponent form for decimals whose adjusted exponent is below
 *     -6 (SQE writes them plain).
 */
#include "iceberg/data_writer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/strbuf.h"
#include "types/datetime.h"

static int sb_app(strbuf *sb, const char *s, size_t n) {
    strbuf_append(sb, s, n);
    return sb->failed ? -1 : 0;
}
static int sb_putc(strbuf *sb, char c) { return sb_app(sb, &c, 1); }

/* java.net.URLEncoder.encode(s, UTF_8). */
static int url_escape(strbuf *sb, const char *s, size_t len) {
    static const char hex[] = "0123456789ABCDEF";
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        int rc;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
            c == '.' || c == '-' || c == '*' || c == '_') {
            rc = sb_putc(sb, (char)c);
        } else if (c == ' ') {
            rc = sb_putc(sb, '+');
        } else {
            char e[3] = {'%', hex[c >> 4], hex[c & 15]};
            rc = sb_app(sb, e, 3);
        }
        if (rc) return rc;
    }
    return 0;
}

/* java.time.LocalDate.toString of days since 1970-01-01. */
static void format_date(int32_t days, char *buf, size_t n) {
    int32_t y, m, d;
    dt_civil_from_days(days, &y, &m, &d);
    if (y > 9999) snprintf(buf, n, "+%d-%02d-%02d", y, m, d);
    else if (y < 0) snprintf(buf, n, "-%04d-%02d-%02d", -y, m, d);
    else snprintf(buf, n, "%04d-%02d-%02d", y, m, d);
}

/* java.time.LocalTime.toString of micros within a day. */
static void format_time(int64_t micros, char *buf, size_t n) {
    int64_t s = micros / 1000000, frac = micros % 1000000;
    int h = (int)(s / 3600), mi = (int)(s / 60 % 60), se = (int)(s % 60);
    int k = snprintf(buf, n, "%02d:%02d", h, mi);
    if (se == 0 && frac == 0) return;
    k += snprintf(buf + k, n - (size_t)k, ":%02d", se);
    if (frac == 0) return;
    if (frac % 1000 == 0) snprintf(buf + k, n - (size_t)k, ".%03d", (int)(frac / 1000));
    else snprintf(buf + k, n - (size_t)k, ".%06d", (int)frac);
}

/* java.time.LocalDateTime.toString of timestamp micros. */
static void format_timestamp(int64_t micros, char *buf, size_t n) {
    int64_t days = dt_floor_div(micros, 86400000000LL);
    int64_t tod = micros - days * 86400000000LL;
    format_date((int32_t)days, buf, n);
    size_t k = strlen(buf);
    if (k + 1 < n) {
        buf[k++] = 'T';
        format_time(tod, buf + k, n - k);
    }
}

/* Java's Float.toString / Double.toString: the shortest digits that read back to the value,
 * plain between 1e-3 and 1e7, else d.dddE[-]x. */
static void format_java_double(double v, bool is_float, char *buf, size_t n) {
    if (isnan(v)) {
        snprintf(buf, n, "NaN");
        return;
    }
    if (isinf(v)) {
        snprintf(buf, n, v > 0 ? "Infinity" : "-Infinity");
        return;
    }
    if (v == 0) {
        snprintf(buf, n, signbit(v) ? "-0.0" : "0.0");
        return;
    }
    char e[64];
    for (int p = 1; p <= 17; p++) {
        snprintf(e, sizeof e, "%.*e", p - 1, v);
        double back = strtod(e, NULL);
        if (is_float ? (float)back == (float)v : back == v) break;
    }
    /* e: [-]d[.ddd]e[+-]xx */
    char digits[32];
    size_t nd = 0;
    const char *p = e;
    bool neg = *p == '-';
    if (neg) p++;
    for (; *p && *p != 'e'; p++)
        if (*p >= '0' && *p <= '9' && nd < sizeof digits - 1) digits[nd++] = *p;
    digits[nd] = 0;
    while (nd > 1 && digits[nd - 1] == '0') digits[--nd] = 0;
    int exp10 = *p == 'e' ? atoi(p + 1) : 0;
    double a = fabs(v);
    size_t k = 0;
    if (neg) buf[k++] = '-';
    if (a >= 1e-3 && a < 1e7) {
        if (exp10 >= 0) {
            for (int i = 0; i <= exp10; i++) buf[k++] = (size_t)i < nd ? digits[i] : '0';
            buf[k++] = '.';
            if ((size_t)exp10 + 1 >= nd) buf[k++] = '0';
            for (size_t i = (size_t)exp10 + 1; i < nd; i++) buf[k++] = digits[i];
        } else {
            buf[k++] = '0';
            buf[k++] = '.';
            for (int i = 0; i < -exp10 - 1; i++) buf[k++] = '0';
            for (size_t i = 0; i < nd; i++) buf[k++] = digits[i];
        }
        buf[k] = 0;
    } else {
        buf[k++] = digits[0];
        buf[k++] = '.';
        if (nd == 1) buf[k++] = '0';
        for (size_t i = 1; i < nd; i++) buf[k++] = digits[i];
        snprintf(buf + k, n - k, "E%d", exp10);
    }
}

/* Plain decimal text of an unscaled value with scale digits after the point. */
static void format_decimal(int128 u, int scale, char *buf) {
    char tmp[64];
    int k = 0;
    bool neg = u < 0;
    unsigned __int128 m = neg ? (unsigned __int128)0 - (unsigned __int128)u : (unsigned __int128)u;
    do {
        tmp[k++] = (char)('0' + (int)(m % 10));
        m /= 10;
    } while (m);
    while (k <= scale) tmp[k++] = '0';
    int o = 0;
    if (neg) buf[o++] = '-';
    for (int i = k - 1; i >= 0; i--) {
        buf[o++] = tmp[i];
        if (i == scale && scale > 0) buf[o++] = '.';
    }
    buf[o] = 0;
}

static int base64(strbuf *sb, const uint8_t *p, size_t n) {
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16;
        if (i + 1 < n) v |= (uint32_t)p[i + 1] << 8;
        if (i + 2 < n) v |= p[i + 2];
        char o[4] = {tab[v >> 18], tab[(v >> 12) & 63], i + 1 < n ? tab[(v >> 6) & 63] : '=',
                     i + 2 < n ? tab[v & 63] : '='};
        if (sb_app(sb, o, 4)) return -1;
    }
    return 0;
}

/* Appends the human string of row `row` of v (any shape) for a field with transform t. */
static int human_value(strbuf *sb, ice_transform t, const vec *v, uint32_t row) {
    uint32_t ph;
    const vec *f = vec_resolve(v, row, &ph);
    if (t.kind == ICE_T_VOID || !vec_is_valid_flat(f, ph)) return sb_app(sb, "null", 4);
    char buf[96];
    switch (t.kind) {
    case ICE_T_YEAR:
        snprintf(buf, sizeof buf, "%04d", 1970 + VEC_DATA(f, int32_t)[ph]);
        return sb_app(sb, buf, strlen(buf));
    case ICE_T_MONTH: {
        int64_t m = VEC_DATA(f, int32_t)[ph];
        snprintf(buf, sizeof buf, "%04d-%02d", (int)(1970 + dt_floor_div(m, 12)),
                 (int)(m - dt_floor_div(m, 12) * 12 + 1));
        return sb_app(sb, buf, strlen(buf));
    }
    case ICE_T_HOUR: {
        int64_t h = VEC_DATA(f, int32_t)[ph];
        int64_t d = dt_floor_div(h, 24);
        format_date((int32_t)d, buf, sizeof buf);
        size_t k = strlen(buf);
        snprintf(buf + k, sizeof buf - k, "-%02d", (int)(h - d * 24));
        return sb_app(sb, buf, strlen(buf));
    }
    case ICE_T_BUCKET:
        snprintf(buf, sizeof buf, "%d", VEC_DATA(f, int32_t)[ph]);
        return sb_app(sb, buf, strlen(buf));
    default:
        break; /* identity, truncate, day: by the value's type */
    }
    switch ((type_id)f->type.id) {
    case TYPE_BOOLEAN:
        return VEC_DATA(f, uint8_t)[ph] ? sb_app(sb, "true", 4)
                                        : sb_app(sb, "false", 5);
    case TYPE_TINYINT: snprintf(buf, sizeof buf, "%d", VEC_DATA(f, int8_t)[ph]); break;
    case TYPE_SMALLINT: snprintf(buf, sizeof buf, "%d", VEC_DATA(f, int16_t)[ph]); break;
    case TYPE_INTEGER: snprintf(buf, sizeof buf, "%d", VEC_DATA(f, int32_t)[ph]); break;
    case TYPE_BIGINT: snprintf(buf, sizeof buf, "%lld", (long long)VEC_DATA(f, int64_t)[ph]); break;
    case TYPE_REAL: format_java_double(VEC_DATA(f, float)[ph], true, buf, sizeof buf); break;
    case TYPE_DOUBLE: format_java_double(VEC_DATA(f, double)[ph], false, buf, sizeof buf); break;
    case TYPE_DECIMAL:
        format_decimal(type_decimal_is_long(f->type) ? VEC_DATA(f, int128)[ph]
                                                     : (int128)VEC_DATA(f, int64_t)[ph],
                       f->type.scale, buf);
        break;
    case TYPE_DATE: format_date(VEC_DATA(f, int32_t)[ph], buf, sizeof buf); break;
    case TYPE_TIME: format_time(VEC_DATA(f, int64_t)[ph], buf, sizeof buf); break;
    case TYPE_TIMESTAMP: format_timestamp(VEC_DATA(f, int64_t)[ph], buf, sizeof buf); break;
    case TYPE_TIMESTAMP_TZ: {
        format_timestamp(VEC_DATA(f, sqe_timestamp_tz)[ph].micros, buf, sizeof buf - 1);
        size_t k = strlen(buf);
        buf[k] = 'Z';
        buf[k + 1] = 0;
        break;
    }
    case TYPE_UUID: {
        const uint8_t *u = (const uint8_t *)f->data + (size_t)ph * 16;
        int k = 0;
        for (int i = 0; i < 16; i++) {
            if (i == 4 || i == 6 || i == 8 || i == 10) buf[k++] = '-';
            k += snprintf(buf + k, sizeof buf - (size_t)k, "%02x", u[i]);
        }
        break;
    }
    case TYPE_VARCHAR:
    case TYPE_CHAR: {
        const sqe_str *s = &VEC_DATA(f, sqe_str)[ph];
        return sb_app(sb, sqe_str_data(s), s->len);
    }
    case TYPE_VARBINARY: {
        const sqe_str *s = &VEC_DATA(f, sqe_str)[ph];
        return base64(sb, (const uint8_t *)sqe_str_data(s), s->len);
    }
    default:
        return -2;
    }
    return sb_app(sb, buf, strlen(buf));
}

int ice_partition_path(arena *a, const ice_schema *schema, const ice_partition_spec *spec,
                       const vec *values, uint32_t row, const char **out, sqe_error *err) {
    (void)schema;
    strbuf sb, hv;
    strbuf_init(&sb);
    strbuf_init(&hv);
    int rc = SQE_OK;
    for (uint32_t i = 0; i < spec->n_fields && !rc; i++) {
        const ice_partition_field *pf = &spec->fields[i];
        if (i && sb_putc(&sb, '/')) goto nomem;
        const char *name = pf->name ? pf->name : "";
        if (url_escape(&sb, name, strlen(name)) || sb_putc(&sb, '=')) goto nomem;
        hv.len = 0;
        int hr = human_value(&hv, pf->transform, &values[i], row);
        if (hr == -2) {
            rc = err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                         "Iceberg partition field '%s' has a value type without a path form", name);
            break;
        }
        if (hr || url_escape(&sb, hv.len ? hv.data : "", hv.len)) goto nomem;
    }
    if (!rc) {
        char *s = arena_strndup(a, sb.len ? sb.data : "", sb.len);
        if (!s) goto nomem;
        *out = s;
    }
    strbuf_reset(&sb);
    strbuf_reset(&hv);
    return rc;
nomem:
    strbuf_reset(&sb);
    strbuf_reset(&hv);
    return err_nomem(err, "Iceberg partition path");
}
