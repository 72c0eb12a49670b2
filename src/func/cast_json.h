/*
 * cast_json.h: private to func/cast.c (included once, by it): CAST(x AS JSON) and
 * CAST(json AS T), following Trino's JsonUtil.
 *
 * To JSON: booleans and numbers as JSON numbers (DOUBLE/REAL as Java prints them, NaN and
 *   infinities as strings, DECIMAL in plain notation), VARCHAR as a JSON string (so
 *   CAST('a' AS JSON) is the JSON text "a" with its quotes), DATE/TIMESTAMP as strings of their
 *   text, JSON values embedded as they are, ARRAY as an array, MAP as an object with keys sorted
 *   bytewise (Trino sorts them), ROW as an object of its field names (anonymous fields "").
 *   A SQL NULL at the top is a SQL NULL; NULLs inside become JSON null.
 * From JSON: a scalar target accepts numbers, strings (read as CAST(varchar AS T) would),
 *   true/false (1/0) and null (SQL NULL); VARCHAR takes strings as they are, integral numbers as
 *   written and other numbers as CAST(double AS VARCHAR) prints them; ARRAY takes an array, MAP
 *   an object (keys converted from their text), ROW an array (by position, exact length) or an
 *   object (fields matched by name ignoring case, missing fields NULL).
 * The reader is a bounded recursive descent over the text (depth limit JSON_MAX_DEPTH); any
 * malformed input is an INVALID_CAST_ARGUMENT error, never a crash.
 */
#ifndef SQE_FUNC_CAST_JSON_H
#define SQE_FUNC_CAST_JSON_H

#include "func/cast_value.h"
#include "types/tz.h"
#include "vec/vec_format.h"

#define JSON_MAX_DEPTH 64

typedef enum json_kind {
    JSON_K_NULL,
    JSON_K_TRUE,
    JSON_K_FALSE,
    JSON_K_NUMBER,
    JSON_K_STRING,
    JSON_K_ARRAY,
    JSON_K_OBJECT,
    JSON_K_BAD
} json_kind;

typedef struct json_cursor {
    const char *p;
    const char *end;
} json_cursor;

static inline void json_ws(json_cursor *c) {
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

static inline json_kind json_peek(json_cursor *c) {
    json_ws(c);
    if (c->p >= c->end) return JSON_K_BAD;
    switch (*c->p) {
    case 'n': return JSON_K_NULL;
    case 't': return JSON_K_TRUE;
    case 'f': return JSON_K_FALSE;
    case '"': return JSON_K_STRING;
    case '[': return JSON_K_ARRAY;
    case '{': return JSON_K_OBJECT;
    default: return (*c->p == '-' || (*c->p >= '0' && *c->p <= '9')) ? JSON_K_NUMBER : JSON_K_BAD;
    }
}

static inline bool json_literal(json_cursor *c, const char *lit, size_t n) {
    if ((size_t)(c->end - c->p) < n || memcmp(c->p, lit, n) != 0) return false;
    c->p += n;
    return true;
}

/* -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static inline bool json_number(json_cursor *c, const char **start, size_t *len, bool *is_int) {
    const char *p = c->p;
    *start = p;
    *is_int = true;
    if (p < c->end && *p == '-') p++;
    if (p >= c->end || *p < '0' || *p > '9') return false;
    if (*p == '0')
        p++;
    else
        while (p < c->end && *p >= '0' && *p <= '9') p++;
    if (p < c->end && *p == '.') {
        *is_int = false;
        p++;
        const char *d = p;
        while (p < c->end && *p >= '0' && *p <= '9') p++;
        if (p == d) return false;
    }
    if (p < c->end && (*p == 'e' || *p == 'E')) {
        *is_int = false;
        p++;
        if (p < c->end && (*p == '+' || *p == '-')) p++;
        const char *d = p;
        while (p < c->end && *p >= '0' && *p <= '9') p++;
        if (p == d) return false;
    }
    *len = (size_t)(p - *start);
    c->p = p;
    return true;
}

static inline void utf8_put(strbuf *sb, uint32_t cp) {
    char b[4];
    size_t n;
    if (cp < 0x80) {
        b[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        b[0] = (char)(0xC0 | cp >> 6);
        b[1] = (char)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        b[0] = (char)(0xE0 | cp >> 12);
        b[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        b[2] = (char)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        b[0] = (char)(0xF0 | cp >> 18);
        b[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        b[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        b[3] = (char)(0x80 | (cp & 0x3F));
        n = 4;
    }
    strbuf_append(sb, b, n);
}

static inline bool json_hex4(json_cursor *c, uint32_t *out) {
    if (c->end - c->p < 4) return false;
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        int h = hex_digit(c->p[i]);
        if (h < 0) return false;
        v = v << 4 | (uint32_t)h;
    }
    c->p += 4;
    *out = v;
    return true;
}

/* Reads a string token into sb (unescaped, replacing its contents). */
static inline bool json_string(json_cursor *c, strbuf *sb) {
    sb->len = 0;
    if (sb->data) sb->data[0] = '\0';
    if (c->p >= c->end || *c->p != '"') return false;
    c->p++;
    for (;;) {
        const char *run = c->p;
        while (c->p < c->end && *c->p != '"' && *c->p != '\\' && (unsigned char)*c->p >= 0x20)
            c->p++;
        strbuf_append(sb, run, (size_t)(c->p - run));
        if (c->p >= c->end || (unsigned char)*c->p < 0x20) return false;
        if (*c->p == '"') {
            c->p++;
            return !sb->failed;
        }
        c->p++; /* backslash */
        if (c->p >= c->end) return false;
        char e = *c->p++;
        switch (e) {
        case '"': strbuf_putc(sb, '"'); break;
        case '\\': strbuf_putc(sb, '\\'); break;
        case '/': strbuf_putc(sb, '/'); break;
        case 'b': strbuf_putc(sb, '\b'); break;
        case 'f': strbuf_putc(sb, '\f'); break;
        case 'n': strbuf_putc(sb, '\n'); break;
        case 'r': strbuf_putc(sb, '\r'); break;
        case 't': strbuf_putc(sb, '\t'); break;
        case 'u': {
            uint32_t cp;
            if (!json_hex4(c, &cp)) return false;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                uint32_t lo;
                if (c->end - c->p >= 6 && c->p[0] == '\\' && c->p[1] == 'u') {
                    c->p += 2;
                    if (!json_hex4(c, &lo) || lo < 0xDC00 || lo > 0xDFFF) return false;
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                } else {
                    return false;
                }
            } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                return false;
            }
            utf8_put(sb, cp);
            break;
        }
        default: return false;
        }
    }
}

/* Skips one value of any kind. */
static inline bool json_skip(json_cursor *c, strbuf *sb, int depth) {
    if (depth > JSON_MAX_DEPTH) return false;
    const char *start;
    size_t len;
    bool is_int;
    switch (json_peek(c)) {
    case JSON_K_NULL: return json_literal(c, "null", 4);
    case JSON_K_TRUE: return json_literal(c, "true", 4);
    case JSON_K_FALSE: return json_literal(c, "false", 5);
    case JSON_K_NUMBER: return json_number(c, &start, &len, &is_int);
    case JSON_K_STRING: return json_string(c, sb);
    case JSON_K_ARRAY:
    case JSON_K_OBJECT: {
        bool object = *c->p == '{';
        char close = object ? '}' : ']';
        c->p++;
        json_ws(c);
        if (c->p < c->end && *c->p == close) {
            c->p++;
            return true;
        }
        for (;;) {
            if (object) {
                json_ws(c);
                if (!json_string(c, sb)) return false;
                json_ws(c);
                if (c->p >= c->end || *c->p != ':') return false;
                c->p++;
            }
            if (!json_skip(c, sb, depth + 1)) return false;
            json_ws(c);
            if (c->p < c->end && *c->p == ',') {
                c->p++;
                continue;
            }
            if (c->p < c->end && *c->p == close) {
                c->p++;
                return true;
            }
            return false;
        }
    }
    case JSON_K_BAD: return false;
    }
    return false;
}

/* --- JSON -> SQL values ------------------------------------------------------------------ */

typedef struct json_state {
    strbuf text;   /* unescaped strings */
    char msg[400]; /* error message of the failed value */
} json_state;

/* "Cannot cast to <type>. <why>" (INVALID_CAST_ARGUMENT). */
static inline int json_fail(json_state *st, sqe_type t, const char *why) {
    char tname[128];
    type_format(t, tname, sizeof tname);
    snprintf(st->msg, sizeof st->msg, "Cannot cast to %s. %s", tname, why);
    return SQE_ERR_INVALID_CAST_ARGUMENT;
}

/* Stores a scalar JSON token (kind, and for numbers and strings its text) as row `row` of dst, a
 * vector of a scalar type. Marks the row valid (or NULL for JSON null). */
static inline int json_store_scalar(json_kind kind, const char *text, size_t len, bool is_int, vec *dst,
                             uint32_t row, json_state *st) {
    if (kind == JSON_K_NULL) {
        return vec_set_null(dst, row) == SQE_OK ? SQE_OK : SQE_ERR_OUT_OF_MEMORY;
    }
    sqe_type t = dst->type;
    bool truth = kind == JSON_K_TRUE;
    bool is_bool = kind == JSON_K_TRUE || kind == JSON_K_FALSE;
    int rc = 0;
    char *msg = st->msg;
    size_t msg_len = sizeof st->msg;
    switch ((type_id)t.id) {
    case TYPE_BOOLEAN: {
        uint8_t b = truth;
        if (kind == JSON_K_NUMBER) {
            double d = strtod(text, NULL);
            b = d != 0;
        } else if (kind == JSON_K_STRING) {
            rc = text_to_bool(text, len, &b, msg, msg_len);
        }
        if (rc == 0) VEC_DATA(dst, uint8_t)[row] = b;
        break;
    }
    case TYPE_TINYINT:
    case TYPE_SMALLINT:
    case TYPE_INTEGER:
    case TYPE_BIGINT: {
        int64_t v = truth;
        if (kind == JSON_K_NUMBER && !is_int)
            rc = double_to_int(strtod(text, NULL), false, t.id, &v, msg, msg_len);
        else if (kind == JSON_K_NUMBER || kind == JSON_K_STRING)
            rc = text_to_int(text, len, t.id, &v, msg, msg_len);
        if (rc) break;
        switch ((type_id)t.id) {
        case TYPE_TINYINT: VEC_DATA(dst, int8_t)[row] = (int8_t)v; break;
        case TYPE_SMALLINT: VEC_DATA(dst, int16_t)[row] = (int16_t)v; break;
        case TYPE_INTEGER: VEC_DATA(dst, int32_t)[row] = (int32_t)v; break;
        default: VEC_DATA(dst, int64_t)[row] = v; break;
        }
        break;
    }
    case TYPE_REAL: {
        float f = truth;
        if (!is_bool) rc = text_to_real(text, len, &f, msg, msg_len);
        if (rc == 0) VEC_DATA(dst, float)[row] = f;
        break;
    }
    case TYPE_DOUBLE: {
        double d = truth;
        if (!is_bool) rc = text_to_double(text, len, &d, msg, msg_len);
        if (rc == 0) VEC_DATA(dst, double)[row] = d;
        break;
    }
    case TYPE_DECIMAL: {
        int128 v;
        if (is_bool)
            rc = int_to_decimal(truth, TYPE_BOOLEAN, t, &v, msg, msg_len);
        else
            rc = text_to_decimal(text, len, t, &v, msg, msg_len);
        if (rc == 0) decimal_put(dst->data, t, row, v);
        break;
    }
    case TYPE_VARCHAR: {
        char buf[FLOAT_TEXT_MAX];
        const char *p = text;
        size_t n = len;
        if (is_bool) {
            p = truth ? "true" : "false";
            n = strlen(p);
        } else if (kind == JSON_K_NUMBER && !is_int) {
            n = (size_t)float_text_double_sci(strtod(text, NULL), buf);
            p = buf;
        }
        if (t.length) n = utf8_prefix(p, n, t.length);
        if (!put_str(dst, row, p, n)) return SQE_ERR_OUT_OF_MEMORY;
        break;
    }
    default: return json_fail(st, t, "Unsupported target type");
    }
    if (rc) return rc;
    vec_set_valid(dst, row);
    return SQE_OK;
}

/* Reads one JSON value at c into row `row` of dst (any castable type). */
static inline int json_store(json_cursor *c, vec *dst, uint32_t row, json_state *st, int depth) {
    if (depth > JSON_MAX_DEPTH) return json_fail(st, dst->type, "JSON nesting too deep");
    sqe_type t = dst->type;
    json_kind kind = json_peek(c);
    if (kind == JSON_K_BAD) return json_fail(st, t, "Invalid JSON");
    if (t.id == TYPE_JSON) { /* array(json) and friends: keep the value's text */
        if (kind == JSON_K_NULL) {
            c->p += 4;
            return vec_set_null(dst, row) == SQE_OK ? SQE_OK : SQE_ERR_OUT_OF_MEMORY;
        }
        const char *start = c->p;
        if (!json_skip(c, &st->text, depth)) return json_fail(st, t, "Invalid JSON");
        if (!put_str(dst, row, start, (size_t)(c->p - start))) return SQE_ERR_OUT_OF_MEMORY;
        vec_set_valid(dst, row);
        return SQE_OK;
    }
    switch (kind) {
    case JSON_K_NULL:
        if (!json_literal(c, "null", 4)) return json_fail(st, t, "Invalid JSON");
        return json_store_scalar(kind, NULL, 0, false, dst, row, st);
    case JSON_K_TRUE:
    case JSON_K_FALSE:
        if (!json_literal(c, kind == JSON_K_TRUE ? "true" : "false", kind == JSON_K_TRUE ? 4 : 5))
            return json_fail(st, t, "Invalid JSON");
        if (type_is_nested(t)) return json_fail(st, t, "Unexpected JSON boolean");
        return json_store_scalar(kind, NULL, 0, false, dst, row, st);
    case JSON_K_NUMBER: {
        const char *start;
        size_t len;
        bool is_int;
        if (!json_number(c, &start, &len, &is_int)) return json_fail(st, t, "Invalid JSON");
        if (type_is_nested(t)) return json_fail(st, t, "Unexpected JSON number");
        char stack[64];
        if (len < sizeof stack) { /* NUL-terminated copy for strtod */
            memcpy(stack, start, len);
            stack[len] = '\0';
            return json_store_scalar(kind, stack, len, is_int, dst, row, st);
        }
        strbuf_reset(&st->text);
        strbuf_append(&st->text, start, len);
        if (st->text.failed) return SQE_ERR_OUT_OF_MEMORY;
        return json_store_scalar(kind, st->text.data, len, is_int, dst, row, st);
    }
    case JSON_K_STRING:
        if (!json_string(c, &st->text)) return json_fail(st, t, "Invalid JSON");
        if (type_is_nested(t)) return json_fail(st, t, "Unexpected JSON string");
        return json_store_scalar(kind, strbuf_cstr(&st->text), st->text.len, false, dst, row, st);
    case JSON_K_ARRAY:
    case JSON_K_OBJECT:
        break;
    case JSON_K_BAD: return json_fail(st, t, "Invalid JSON");
    }
    bool object = kind == JSON_K_OBJECT;
    char close = object ? '}' : ']';
    if (t.id == TYPE_ROW) {
        uint32_t n_fields = dst->n_children;
        for (uint32_t f = 0; f < n_fields; f++)
            if (vec_set_null(&dst->children[f], row) != SQE_OK) return SQE_ERR_OUT_OF_MEMORY;
    } else if (t.id != (object ? TYPE_MAP : TYPE_ARRAY)) {
        return json_fail(st, t, object ? "Unexpected JSON object" : "Unexpected JSON array");
    }
    c->p++;
    uint32_t start = dst->child_len, n = 0;
    json_ws(c);
    bool empty = c->p < c->end && *c->p == close;
    if (empty) c->p++;
    while (!empty) {
        int rc;
        if (object) {
            json_ws(c);
            if (!json_string(c, &st->text)) return json_fail(st, t, "Invalid JSON");
            json_ws(c);
            if (c->p >= c->end || *c->p != ':') return json_fail(st, t, "Invalid JSON");
            c->p++;
            if (t.id == TYPE_MAP) {
                vec *keys = &dst->children[0], *values = &dst->children[1];
                if (vec_reserve(keys, start + n + 1, NULL) != SQE_OK ||
                    vec_reserve(values, start + n + 1, NULL) != SQE_OK)
                    return SQE_ERR_OUT_OF_MEMORY;
                rc = json_store_scalar(JSON_K_STRING, strbuf_cstr(&st->text), st->text.len, false,
                                       keys, start + n, st);
                if (rc) return rc;
                rc = json_store(c, values, start + n, st, depth + 1);
                if (rc) return rc;
                n++;
                dst->child_len = start + n;
            } else { /* ROW from an object: match the field name, ignoring case */
                uint32_t f = 0;
                const char *const *names = t.nested ? t.nested->names : NULL;
                for (; f < dst->n_children; f++)
                    if (names && names[f] && strlen(names[f]) == st->text.len &&
                        strncasecmp(names[f], strbuf_cstr(&st->text), st->text.len) == 0)
                        break;
                if (f < dst->n_children)
                    rc = json_store(c, &dst->children[f], row, st, depth + 1);
                else
                    rc = json_skip(c, &st->text, depth + 1) ? SQE_OK : json_fail(st, t, "Invalid JSON");
                if (rc) return rc;
            }
        } else if (t.id == TYPE_ARRAY) {
            vec *elems = &dst->children[0];
            if (vec_reserve(elems, start + n + 1, NULL) != SQE_OK) return SQE_ERR_OUT_OF_MEMORY;
            rc = json_store(c, elems, start + n, st, depth + 1);
            if (rc) return rc;
            n++;
            dst->child_len = start + n;
        } else { /* ROW from an array: by position */
            if (n >= dst->n_children) return json_fail(st, t, "Too many JSON array elements");
            rc = json_store(c, &dst->children[n], row, st, depth + 1);
            if (rc) return rc;
            n++;
        }
        json_ws(c);
        if (c->p < c->end && *c->p == ',') {
            c->p++;
            continue;
        }
        if (c->p < c->end && *c->p == close) {
            c->p++;
            break;
        }
        return json_fail(st, t, "Invalid JSON");
    }
    if (t.id == TYPE_ROW) {
        if (!object && n != dst->n_children)
            return json_fail(st, t, "Wrong number of JSON array elements");
    } else {
        VEC_DATA(dst, sqe_list_entry)[row] = (sqe_list_entry){start, n};
    }
    vec_set_valid(dst, row);
    return SQE_OK;
}

/* CAST(json AS T) for any T the JSON casts support. */
static inline int cast_from_json(CAST_ARGS) {
    const vec *in = args[0];
    vec_view u;
    vec_view_init(&u, in);
    CAST_CHECK(cast_begin(ctx, out, sel, count));
    CAST_CHECK(cast_prepare_nulls(ctx, &u, out));
    const sqe_str *src = u.data;
    json_state st;
    strbuf_init(&st.text);
    int result = SQE_OK;
    CAST_LOOP(u, sel, count, out, {
        const sqe_str *s = &src[idx];
        json_cursor c = {sqe_str_data(s), sqe_str_data(s) + s->len};
        st.msg[0] = '\0';
        int rc = json_store(&c, out, row, &st, 0);
        if (rc == SQE_OK) {
            json_ws(&c);
            if (c.p != c.end) rc = json_fail(&st, out->type, "Trailing characters after JSON value");
        }
        if (rc == SQE_ERR_OUT_OF_MEMORY) {
            result = cast_nomem(ctx);
            break;
        }
        if (rc != SQE_OK) {
            int fail = func_row_error(ctx, out, row, rc, "%s", st.msg);
            if (fail != SQE_OK) {
                result = fail;
                break;
            }
        }
    });
    strbuf_reset(&st.text);
    return result;
}

/* --- SQL values -> JSON ------------------------------------------------------------------ */

typedef struct json_key {
    char *text;
    size_t len;
    uint32_t index;
} json_key;

static inline int json_key_compare(const void *a, const void *b) {
    const json_key *x = a, *y = b;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->text, y->text, n);
    if (c) return c;
    return x->len < y->len ? -1 : x->len > y->len;
}

static inline void json_write(const vec *v, uint32_t row, strbuf *sb);

static inline void json_write_nested(const vec *flat, uint32_t idx, strbuf *sb) {
    sqe_type t = flat->type;
    if (t.id == TYPE_ROW) {
        strbuf_putc(sb, '{');
        for (uint32_t f = 0; f < flat->n_children; f++) {
            if (f) strbuf_putc(sb, ',');
            const char *name = t.nested && t.nested->names ? t.nested->names[f] : NULL;
            vec_format_json_string(name ? name : "", name ? strlen(name) : 0, sb);
            strbuf_putc(sb, ':');
            json_write(&flat->children[f], idx, sb);
        }
        strbuf_putc(sb, '}');
        return;
    }
    sqe_list_entry e = VEC_DATA(flat, const sqe_list_entry)[idx];
    if (t.id == TYPE_ARRAY) {
        strbuf_putc(sb, '[');
        for (uint32_t i = 0; i < e.length; i++) {
            if (i) strbuf_putc(sb, ',');
            json_write(&flat->children[0], e.offset + i, sb);
        }
        strbuf_putc(sb, ']');
        return;
    }
    /* MAP: keys as text, sorted */
    json_key *keys = e.length ? calloc(e.length, sizeof *keys) : NULL;
    if (e.length && !keys) {
        sb->failed = 1;
        return;
    }
    for (uint32_t i = 0; i < e.length; i++) {
        strbuf k;
        strbuf_init(&k);
        vec_format_value(&flat->children[0], e.offset + i, &k);
        if (k.failed) sb->failed = 1;
        keys[i].len = k.len;
        keys[i].text = strbuf_move(&k);
        keys[i].index = e.offset + i;
    }
    if (e.length > 1) qsort(keys, e.length, sizeof *keys, json_key_compare);
    strbuf_putc(sb, '{');
    for (uint32_t i = 0; i < e.length; i++) {
        if (i) strbuf_putc(sb, ',');
        vec_format_json_string(keys[i].text ? keys[i].text : "", keys[i].len, sb);
        strbuf_putc(sb, ':');
        json_write(&flat->children[1], keys[i].index, sb);
        free(keys[i].text);
    }
    strbuf_putc(sb, '}');
    free(keys);
}

/* Appends logical row `row` of v as JSON text. */
static inline void json_write(const vec *v, uint32_t row, strbuf *sb) {
    uint32_t idx;
    const vec *flat = vec_resolve(v, row, &idx);
    if (!vec_is_valid_flat(flat, idx) || flat->type.id == TYPE_UNKNOWN) {
        strbuf_append(sb, "null", 4);
        return;
    }
    sqe_type t = flat->type;
    char buf[256];
    int n;
    switch ((type_id)t.id) {
    case TYPE_BOOLEAN:
        strbuf_puts(sb, VEC_DATA(flat, const uint8_t)[idx] ? "true" : "false");
        return;
    case TYPE_TINYINT:
    case TYPE_SMALLINT:
    case TYPE_INTEGER:
    case TYPE_BIGINT:
    case TYPE_VARCHAR:
    case TYPE_CHAR:
    case TYPE_DATE:
    case TYPE_TIMESTAMP:
        if (type_is_integer(t)) {
            vec_format_value(flat, idx, sb); /* plain integer text */
            return;
        }
        if (type_is_string(t)) {
            const sqe_str *s = &VEC_DATA(flat, const sqe_str)[idx];
            vec_format_json_string(sqe_str_data(s), s->len, sb);
            return;
        }
        vec_format_json(flat, idx, sb); /* dates and timestamps: a string of their text */
        return;
    case TYPE_REAL: {
        float f = VEC_DATA(flat, const float)[idx];
        n = float_text_real(f, buf);
        if (isfinite(f))
            strbuf_append(sb, buf, (size_t)n);
        else
            vec_format_json_string(buf, (size_t)n, sb);
        return;
    }
    case TYPE_DOUBLE: {
        double d = VEC_DATA(flat, const double)[idx];
        n = float_text_double(d, buf);
        if (isfinite(d))
            strbuf_append(sb, buf, (size_t)n);
        else
            vec_format_json_string(buf, (size_t)n, sb);
        return;
    }
    case TYPE_DECIMAL:
        n = decimal_format(decimal_get(flat->data, t, idx), t.scale, buf);
        strbuf_append(sb, buf, (size_t)n);
        return;
    case TYPE_JSON: {
        const sqe_str *s = &VEC_DATA(flat, const sqe_str)[idx];
        strbuf_append(sb, sqe_str_data(s), s->len);
        return;
    }
    case TYPE_ARRAY:
    case TYPE_MAP:
    case TYPE_ROW: json_write_nested(flat, idx, sb); return;
    default: vec_format_json(flat, idx, sb); return;
    }
}

/* CAST(x AS JSON). */
static inline int cast_to_json(CAST_ARGS) {
    const vec *in = args[0];
    vec_view u;
    vec_view_init(&u, in);
    CAST_CHECK(cast_begin(ctx, out, sel, count));
    CAST_CHECK(cast_prepare_nulls(ctx, &u, out));
    strbuf sb;
    strbuf_init(&sb);
    int result = SQE_OK;
    CAST_LOOP(u, sel, count, out, {
        sb.len = 0;
        json_write(u.flat, idx, &sb);
        if (sb.failed || !put_str(out, row, strbuf_cstr(&sb), sb.len)) {
            result = cast_nomem(ctx);
            break;
        }
    });
    strbuf_reset(&sb);
    return result;
}

#endif
