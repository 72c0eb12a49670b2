/*
 * vec_format.c: text and JSON forms of single vector values (see vec_format.h).
 *
 * INTERFACE: vec_format_value, vec_format_json, vec_format_json_string, vec_format_uuid.
 * NOTES: a logical row is resolved once through CONST/DICT shapes (vec_resolve); children of
 * nested vectors are flat, so recursion works on (flat vector, index) pairs. Scalars are
 * formatted into a stack buffer and appended in one call. Doubles and reals use float_text.h
 * (Java's shortest round-trip digits), datetime values datetime.h, decimals decimal.h.
 */
#include "vec/vec_format.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/err.h"
#include "types/datetime.h"
#include "types/decimal.h"
#include "types/float_text.h"

typedef enum format_mode { MODE_TEXT, MODE_JSON } format_mode;

static const char hex_digits[] = "0123456789abcdef";

int vec_format_uuid(const uint8_t *bytes, char *buf) {
    char *p = buf;
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10) *p++ = '-';
        *p++ = hex_digits[bytes[i] >> 4];
        *p++ = hex_digits[bytes[i] & 15];
    }
    *p = '\0';
    return 36;
}

void vec_format_json_string(const char *s, size_t len, strbuf *out) {
    strbuf_putc(out, '"');
    size_t run = 0; /* start of the pending run of bytes that need no escaping */
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != '"' && c != '\\') continue;
        strbuf_append(out, s + run, i - run);
        run = i + 1;
        char esc[8];
        switch (c) {
        case '"': strbuf_append(out, "\\\"", 2); break;
        case '\\': strbuf_append(out, "\\\\", 2); break;
        case '\b': strbuf_append(out, "\\b", 2); break;
        case '\f': strbuf_append(out, "\\f", 2); break;
        case '\n': strbuf_append(out, "\\n", 2); break;
        case '\r': strbuf_append(out, "\\r", 2); break;
        case '\t': strbuf_append(out, "\\t", 2); break;
        default:
            esc[0] = '\\';
            esc[1] = 'u';
            esc[2] = '0';
            esc[3] = '0';
            esc[4] = hex_digits[c >> 4];
            esc[5] = hex_digits[c & 15];
            strbuf_append(out, esc, 6);
            break;
        }
    }
    strbuf_append(out, s + run, len - run);
    strbuf_putc(out, '"');
}

static void put_base64(const uint8_t *p, size_t len, strbuf *out) {
    static const char alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char chunk[4];
    strbuf_putc(out, '"');
    size_t i = 0;
    for (; i + 3 <= len; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
        chunk[0] = alphabet[v >> 18];
        chunk[1] = alphabet[(v >> 12) & 63];
        chunk[2] = alphabet[(v >> 6) & 63];
        chunk[3] = alphabet[v & 63];
        strbuf_append(out, chunk, 4);
    }
    if (i < len) {
        uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < len ? (uint32_t)p[i + 1] << 8 : 0);
        chunk[0] = alphabet[v >> 18];
        chunk[1] = alphabet[(v >> 12) & 63];
        chunk[2] = i + 1 < len ? alphabet[(v >> 6) & 63] : '=';
        chunk[3] = '=';
        strbuf_append(out, chunk, 4);
    }
    strbuf_putc(out, '"');
}

static void put_hex_bytes(const uint8_t *p, size_t len, strbuf *out) {
    char pair[3];
    for (size_t i = 0; i < len; i++) {
        size_t n = 0;
        if (i) pair[n++] = ' ';
        pair[n++] = hex_digits[p[i] >> 4];
        pair[n++] = hex_digits[p[i] & 15];
        strbuf_append(out, pair, n);
    }
}

/* Appends text; in JSON mode as a JSON string. */
static void put_text(const char *s, size_t len, format_mode mode, strbuf *out) {
    if (mode == MODE_JSON)
        vec_format_json_string(s, len, out);
    else
        strbuf_append(out, s, len);
}

/* A floating-point value: a JSON number, except non-finite values, which are strings. */
static void put_float_text(const char *text, int n, bool finite, format_mode mode, strbuf *out) {
    if (mode == MODE_JSON && !finite)
        vec_format_json_string(text, (size_t)n, out);
    else
        strbuf_append(out, text, (size_t)n);
}

static void format_at(const vec *flat, uint32_t idx, format_mode mode, strbuf *out);

/* Logical row -> (flat vector, index), then format. */
static void format_row(const vec *v, uint32_t row, format_mode mode, strbuf *out) {
    uint32_t phys;
    const vec *flat = vec_resolve(v, row, &phys);
    format_at(flat, phys, mode, out);
}

static void format_nested(const vec *flat, uint32_t idx, format_mode mode, strbuf *out) {
    sqe_type t = flat->type;
    if (t.id == TYPE_ROW) {
        strbuf_putc(out, mode == MODE_JSON ? '[' : '{');
        for (uint32_t f = 0; f < flat->n_children; f++) {
            if (f) strbuf_append(out, mode == MODE_JSON ? "," : ", ", mode == MODE_JSON ? 1 : 2);
            if (mode == MODE_TEXT) {
                const char *name = t.nested && t.nested->names ? t.nested->names[f] : NULL;
                if (name)
                    strbuf_puts(out, name);
                else
                    strbuf_printf(out, "field%u", f);
                strbuf_putc(out, '=');
            }
            format_row(&flat->children[f], idx, mode, out);
        }
        strbuf_putc(out, mode == MODE_JSON ? ']' : '}');
        return;
    }
    sqe_list_entry e = VEC_DATA(flat, const sqe_list_entry)[idx];
    if (flat->n_children == 0 || (uint64_t)e.offset + e.length > flat->children[0].capacity) {
        strbuf_puts(out, mode == MODE_JSON ? "null" : "NULL"); /* malformed: never read out of bounds */
        return;
    }
    if (t.id == TYPE_ARRAY) {
        strbuf_putc(out, '[');
        for (uint32_t i = 0; i < e.length; i++) {
            if (i) strbuf_append(out, mode == MODE_JSON ? "," : ", ", mode == MODE_JSON ? 1 : 2);
            format_row(&flat->children[0], e.offset + i, mode, out);
        }
        strbuf_putc(out, ']');
        return;
    }
    /* MAP */
    if (flat->n_children < 2 || (uint64_t)e.offset + e.length > flat->children[1].capacity) {
        strbuf_puts(out, mode == MODE_JSON ? "null" : "NULL");
        return;
    }
    strbuf_putc(out, '{');
    for (uint32_t i = 0; i < e.length; i++) {
        if (i) strbuf_append(out, mode == MODE_JSON ? "," : ", ", mode == MODE_JSON ? 1 : 2);
        if (mode == MODE_JSON) {
            /* Keys become strings: format the key as text, then quote it. */
            strbuf key;
            strbuf_init(&key);
            format_row(&flat->children[0], e.offset + i, MODE_TEXT, &key);
            if (key.failed) out->failed = 1;
            vec_format_json_string(strbuf_cstr(&key), key.len, out);
            strbuf_reset(&key);
            strbuf_putc(out, ':');
        } else {
            format_row(&flat->children[0], e.offset + i, MODE_TEXT, out);
            strbuf_putc(out, '=');
        }
        format_row(&flat->children[1], e.offset + i, mode, out);
    }
    strbuf_putc(out, '}');
}

static void format_at(const vec *flat, uint32_t idx, format_mode mode, strbuf *out) {
    if (!vec_is_valid_flat(flat, idx) || flat->type.id == TYPE_UNKNOWN) {
        strbuf_puts(out, mode == MODE_JSON ? "null" : "NULL");
        return;
    }
    sqe_type t = flat->type;
    char buf[256];
    int n = 0;
    switch ((type_id)t.id) {
    case TYPE_BOOLEAN: strbuf_puts(out, VEC_DATA(flat, const uint8_t)[idx] ? "true" : "false"); return;
    case TYPE_TINYINT: n = decimal_format(VEC_DATA(flat, const int8_t)[idx], 0, buf); break;
    case TYPE_SMALLINT: n = decimal_format(VEC_DATA(flat, const int16_t)[idx], 0, buf); break;
    case TYPE_INTEGER: n = decimal_format(VEC_DATA(flat, const int32_t)[idx], 0, buf); break;
    case TYPE_BIGINT: n = decimal_format(VEC_DATA(flat, const int64_t)[idx], 0, buf); break;
    case TYPE_REAL: {
        float f = VEC_DATA(flat, const float)[idx];
        n = float_text_real(f, buf);
        put_float_text(buf, n, isfinite(f), mode, out);
        return;
    }
    case TYPE_DOUBLE: {
        double d = VEC_DATA(flat, const double)[idx];
        n = float_text_double(d, buf);
        put_float_text(buf, n, isfinite(d), mode, out);
        return;
    }
    case TYPE_DECIMAL:
        n = decimal_format(decimal_get(flat->data, t, idx), t.scale, buf);
        put_text(buf, (size_t)n, mode, out);
        return;
    case TYPE_VARCHAR:
    case TYPE_CHAR:
    case TYPE_JSON: {
        const sqe_str *s = &VEC_DATA(flat, const sqe_str)[idx];
        put_text(sqe_str_data(s), s->len, mode, out);
        return;
    }
    case TYPE_VARBINARY: {
        const sqe_str *s = &VEC_DATA(flat, const sqe_str)[idx];
        if (mode == MODE_JSON)
            put_base64((const uint8_t *)sqe_str_data(s), s->len, out);
        else
            put_hex_bytes((const uint8_t *)sqe_str_data(s), s->len, out);
        return;
    }
    case TYPE_DATE:
        n = dt_format_date(VEC_DATA(flat, const int32_t)[idx], buf);
        put_text(buf, (size_t)n, mode, out);
        return;
    case TYPE_TIME:
        n = dt_format_time(VEC_DATA(flat, const int64_t)[idx], t.precision, buf);
        put_text(buf, (size_t)n, mode, out);
        return;
    case TYPE_TIMESTAMP:
        n = dt_format_timestamp(VEC_DATA(flat, const int64_t)[idx], t.precision, buf);
        put_text(buf, (size_t)n, mode, out);
        return;
    case TYPE_TIMESTAMP_TZ: {
        const sqe_timestamp_tz *v = &VEC_DATA(flat, const sqe_timestamp_tz)[idx];
        n = dt_format_timestamp_tz(v->micros, v->zone, t.precision, buf);
        put_text(buf, (size_t)n, mode, out);
        return;
    }
    case TYPE_INTERVAL_DS:
        n = dt_format_interval_ds(VEC_DATA(flat, const int64_t)[idx], buf);
        put_text(buf, (size_t)n, mode, out);
        return;
    case TYPE_INTERVAL_YM:
        n = dt_format_interval_ym(VEC_DATA(flat, const int32_t)[idx], buf);
        put_text(buf, (size_t)n, mode, out);
        return;
    case TYPE_UUID:
        n = vec_format_uuid((const uint8_t *)flat->data + (size_t)idx * 16, buf);
        put_text(buf, (size_t)n, mode, out);
        return;
    case TYPE_ARRAY:
    case TYPE_MAP:
    case TYPE_ROW: format_nested(flat, idx, mode, out); return;
    case TYPE_UNKNOWN:
    case TYPE_COUNT_: strbuf_puts(out, mode == MODE_JSON ? "null" : "NULL"); return;
    }
    strbuf_append(out, buf, (size_t)n); /* integers: the same text in both modes */
}

int vec_format_value(const vec *v, uint32_t row, strbuf *out) {
    format_row(v, row, MODE_TEXT, out);
    return out->failed ? SQE_ERR_OUT_OF_MEMORY : SQE_OK;
}

int vec_format_json(const vec *v, uint32_t row, strbuf *out) {
    format_row(v, row, MODE_JSON, out);
    return out->failed ? SQE_ERR_OUT_OF_MEMORY : SQE_OK;
}
