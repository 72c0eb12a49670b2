/*
 * scan_wire.c: byte-level writer and bounds-checked reader of the scan task encoding (see
 * scan_wire.h).
 *
 * INTERFACE: scan_w_*, scan_r_*.
 * NOTES
 *   The reader never trusts a length or count: every one is checked against the bytes left
 *   before anything is allocated, so a hostile task cannot make the decoder allocate more
 *   than a small multiple of its own size. Nested types are limited in depth and width.
 */
#include "scan/scan_wire.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void scan_w_bytes(strbuf *w, const void *p, size_t n) { strbuf_append(w, (const char *)p, n); }
void scan_w_u8(strbuf *w, uint8_t v) { scan_w_bytes(w, &v, 1); }
void scan_w_u16(strbuf *w, uint16_t v) {
    uint8_t b[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
    scan_w_bytes(w, b, 2);
}
void scan_w_u32(strbuf *w, uint32_t v) {
    uint8_t b[4];
    for (int i = 0; i < 4; i++) b[i] = (uint8_t)(v >> (8 * i));
    scan_w_bytes(w, b, 4);
}
void scan_w_u64(strbuf *w, uint64_t v) {
    uint8_t b[8];
    for (int i = 0; i < 8; i++) b[i] = (uint8_t)(v >> (8 * i));
    scan_w_bytes(w, b, 8);
}
void scan_w_strn(strbuf *w, const char *s, uint32_t len) {
    scan_w_u32(w, len);
    scan_w_bytes(w, s, len);
}
void scan_w_str(strbuf *w, const char *s) {
    if (!s) {
        scan_w_u32(w, UINT32_MAX);
        return;
    }
    scan_w_strn(w, s, (uint32_t)strlen(s));
}
void scan_w_patch_u32(strbuf *w, size_t pos, uint32_t v) {
    if (w->failed || pos + 4 > w->len) return;
    for (int i = 0; i < 4; i++) w->data[pos + (size_t)i] = (char)(uint8_t)(v >> (8 * i));
}

void scan_w_type(strbuf *w, sqe_type t) {
    scan_w_u8(w, t.id);
    scan_w_u8(w, t.precision);
    scan_w_u8(w, t.scale);
    scan_w_u32(w, t.length);
    if (!type_is_nested(t)) return;
    uint32_t n = t.nested ? t.nested->n_children : 0;
    scan_w_u32(w, n);
    for (uint32_t i = 0; i < n; i++) {
        const char *name = t.nested->names ? t.nested->names[i] : NULL;
        scan_w_str(w, name);
        scan_w_type(w, t.nested->children[i]);
    }
}

/* ---- reading ---- */

void scan_r_init(scan_r *r, const uint8_t *p, size_t len, size_t base, arena *a, sqe_error *err) {
    memset(r, 0, sizeof *r);
    r->p = p;
    r->len = len;
    r->base = base;
    r->a = a;
    r->err = err;
}

static int failv(scan_r *r, int code, bool where, const char *fmt, va_list ap) {
    if (r->rc) return r->rc;
    char msg[256];
    vsnprintf(msg, sizeof msg, fmt, ap);
    if (where)
        r->rc = err_set(r->err, code, "Invalid scan task: %s at offset %zu", msg, r->base + r->pos);
    else
        r->rc = err_set(r->err, code, "%s", msg);
    if (!r->rc) r->rc = code;
    return r->rc;
}

int scan_r_fail(scan_r *r, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int rc = failv(r, SQE_ERR_INVALID_ARGUMENTS, true, fmt, ap);
    va_end(ap);
    return rc;
}

int scan_r_fail_code(scan_r *r, int code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int rc = failv(r, code, code == SQE_ERR_INVALID_ARGUMENTS, fmt, ap);
    va_end(ap);
    return rc;
}

const uint8_t *scan_r_bytes(scan_r *r, size_t n, const char *what) {
    if (r->rc) return NULL;
    if (n > scan_r_left(r)) {
        scan_r_fail(r, "%s needs %zu bytes, %zu left", what, n, scan_r_left(r));
        return NULL;
    }
    const uint8_t *p = r->p + r->pos;
    r->pos += n;
    return p;
}

static uint64_t read_le(scan_r *r, size_t n, const char *what) {
    const uint8_t *p = scan_r_bytes(r, n, what);
    if (!p) return 0;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

uint8_t scan_r_u8(scan_r *r, const char *what) { return (uint8_t)read_le(r, 1, what); }
uint16_t scan_r_u16(scan_r *r, const char *what) { return (uint16_t)read_le(r, 2, what); }
uint32_t scan_r_u32(scan_r *r, const char *what) { return (uint32_t)read_le(r, 4, what); }
uint64_t scan_r_u64(scan_r *r, const char *what) { return read_le(r, 8, what); }
int64_t scan_r_i64(scan_r *r, const char *what) { return (int64_t)read_le(r, 8, what); }
int32_t scan_r_i32(scan_r *r, const char *what) { return (int32_t)(uint32_t)read_le(r, 4, what); }

bool scan_r_bool(scan_r *r, const char *what) {
    uint8_t v = scan_r_u8(r, what);
    if (v > 1) scan_r_fail(r, "%s: flag %u is neither 0 nor 1", what, v);
    return v == 1;
}

const char *scan_r_str(scan_r *r, bool allow_null, uint32_t *len_out, const char *what) {
    if (len_out) *len_out = 0;
    uint32_t n = scan_r_u32(r, what);
    if (r->rc) return NULL;
    if (n == UINT32_MAX) {
        if (!allow_null) scan_r_fail(r, "%s is missing (NULL)", what);
        return NULL;
    }
    if (n > scan_r_left(r)) {
        scan_r_fail(r, "%s: length %u exceeds the %zu bytes left", what, n, scan_r_left(r));
        return NULL;
    }
    const uint8_t *p = scan_r_bytes(r, n, what);
    char *s = p ? arena_strndup(r->a, (const char *)p, n) : NULL;
    if (p && !s) scan_r_fail_code(r, SQE_ERR_OUT_OF_MEMORY, "out of memory decoding a scan task");
    if (len_out && s) *len_out = n;
    return s;
}

uint32_t scan_r_count(scan_r *r, size_t min_item_bytes, uint32_t max, const char *what) {
    uint32_t n = scan_r_u32(r, what);
    if (r->rc) return 0;
    if (n > max) {
        scan_r_fail(r, "%s: count %u exceeds the limit %u", what, n, max);
        return 0;
    }
    if (min_item_bytes && (uint64_t)n * min_item_bytes > scan_r_left(r)) {
        scan_r_fail(r, "%s: count %u needs at least %llu bytes, %zu left", what, n,
                    (unsigned long long)((uint64_t)n * min_item_bytes), scan_r_left(r));
        return 0;
    }
    return n;
}

sqe_type scan_r_type(scan_r *r, uint32_t depth, const char *what) {
    sqe_type bad = type_make(TYPE_UNKNOWN);
    size_t at = r->pos;
    uint8_t id = scan_r_u8(r, what);
    uint8_t precision = scan_r_u8(r, what);
    uint8_t scale = scan_r_u8(r, what);
    uint32_t length = scan_r_u32(r, what);
    if (r->rc) return bad;
    if (id >= TYPE_COUNT_) {
        r->pos = at;
        scan_r_fail(r, "%s: unknown type id %u", what, id);
        return bad;
    }
    sqe_type t;
    switch (id) {
    case TYPE_DECIMAL:
        if (precision < 1 || precision > 38 || scale > precision) {
            r->pos = at;
            scan_r_fail(r, "%s: decimal(%u,%u) is out of range", what, precision, scale);
            return bad;
        }
        t = type_decimal(precision, scale);
        break;
    case TYPE_VARCHAR: t = type_varchar(length); break;
    case TYPE_CHAR: t = type_char(length); break;
    case TYPE_TIME:
    case TYPE_TIMESTAMP:
    case TYPE_TIMESTAMP_TZ: t = type_with_precision((type_id)id, precision); break;
    case TYPE_ARRAY:
    case TYPE_MAP:
    case TYPE_ROW: {
        if (depth == 0) {
            r->pos = at;
            scan_r_fail(r, "%s: nested type too deep", what);
            return bad;
        }
        uint32_t n = scan_r_count(r, 8, 256, what);
        if (r->rc) return bad;
        if ((id == TYPE_ARRAY && n != 1) || (id == TYPE_MAP && n != 2) || (id == TYPE_ROW && !n)) {
            r->pos = at;
            scan_r_fail(r, "%s: %u children for a %s type", what, n,
                        id == TYPE_ARRAY ? "array" : id == TYPE_MAP ? "map" : "row");
            return bad;
        }
        sqe_type kids[256];
        const char *names[256];
        bool named = false;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t nl;
            names[i] = scan_r_str(r, true, &nl, what);
            if (names[i]) named = true;
            if (names[i] && nl > 1024) scan_r_fail(r, "%s: field name too long", what);
            kids[i] = scan_r_type(r, depth - 1, what);
            if (r->rc) return bad;
            if (kids[i].id == TYPE_UNKNOWN) {
                scan_r_fail(r, "%s: a nested type's child is unknown", what);
                return bad;
            }
        }
        if (id == TYPE_ARRAY) t = type_array(kids[0]);
        else if (id == TYPE_MAP) t = type_map(kids[0], kids[1]);
        else t = type_row(n, kids, named ? names : NULL);
        if (t.id == TYPE_UNKNOWN) {
            scan_r_fail_code(r, SQE_ERR_OUT_OF_MEMORY, "out of memory decoding a scan task");
            return bad;
        }
        return t;
    }
    default: t = type_make((type_id)id); break;
    }
    if (t.precision != precision || t.scale != scale || t.length != length) {
        r->pos = at;
        scan_r_fail(r, "%s: parameters (%u, %u, %u) are not valid for type id %u", what,
                    precision, scale, length, id);
        return bad;
    }
    return t;
}
