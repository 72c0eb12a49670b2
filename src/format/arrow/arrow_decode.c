/*
 * arrow_decode.c: Arrow IPC -> SQE: Schema messages to column types, RecordBatch messages to
 * vec_chunks, encapsulated-message unframing and an in-memory IPC stream reader. This is the
 * input side of Flight DoPut (prepared-statement parameters, CommandStatementIngest), so every
 * byte is treated as hostile.
 *
 * INTERFACE: arrow_message_peek, arrow_schema_decode, arrow_batch_decode, arrow_message_unframe,
 *   arrow_stream_reader_open/next/close.
 * NOTES: the decoded schema keeps, per field, the Arrow layout (arrow_src_field, arrow_int.h)
 *   next to the SQE type, because several Arrow types decode to one SQE type (int32 and
 *   uint16 -> integer; Utf8 and LargeUtf8 -> varchar; any time unit -> microseconds).
 *   Safety: FlatBuffers reads go through flatbuf.c (bounds-checked); nodes and buffers are
 *   consumed through cursors that check counts; every buffer is checked to lie inside the body
 *   and to be long enough for the rows it describes before it is read; offsets are checked per
 *   valid row; nesting depth and field count are capped; row counts are capped by
 *   ARROW_IPC_MAX_ROWS and, in vector bytes over all nodes, by a budget of 8 x body + 64 MiB,
 *   so a small message cannot make the decoder allocate gigabytes. Values under NULL slots are
 *   never read. Strings are copied into the vectors' heaps and Utf8 is validated as UTF-8.
 */
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "format/arrow/arrow_int.h"
#include "format/arrow/flatbuf.h"
#include "types/tz.h"
#include "common/utf8.h"

#define MAX_DEPTH 64
#define MAX_FIELDS 10000

static int malformed(sqe_error *err, const char *what) {
    return err_set(err, SQE_ERR_INVALID_FILE, "arrow: malformed %s", what);
}

/* ---- Messages ------------------------------------------------------------------------------- */

static int open_message(fb_reader *r, const uint8_t *header, size_t len, fb_table *msg,
                        sqe_error *err) {
    if (!fb_reader_root(r, header, len, msg)) return malformed(err, "message header");
    int16_t version = fb_get_i16(msg, MSG_VERSION, 0);
    if (r->bad) return malformed(err, "message header");
    if (version < 3 || version > ARROW_V5)
        return err_set(err, SQE_ERR_NOT_SUPPORTED, "arrow: metadata version %d not supported (V4/V5 only)",
                       version + 1);
    return SQE_OK;
}

int arrow_message_peek(const uint8_t *header, size_t len, int *msg_type, int64_t *body_len,
                       sqe_error *err) {
    fb_reader r;
    fb_table msg;
    SQE_TRY(open_message(&r, header, len, &msg, err));
    *msg_type = fb_get_u8(&msg, MSG_HEADER_TYPE, 0);
    *body_len = fb_get_i64(&msg, MSG_BODY_LENGTH, 0);
    if (r.bad || *body_len < 0) return malformed(err, "message header");
    return SQE_OK;
}

int arrow_message_unframe(const uint8_t *buf, size_t len, const uint8_t **header,
                          size_t *header_len, const uint8_t **body, size_t *body_len,
                          size_t *consumed, sqe_error *err) {
    *header = NULL;
    *header_len = 0;
    *body = NULL;
    *body_len = 0;
    *consumed = 0;
    if (len == 0) return SQE_OK;
    if (len < 4) return malformed(err, "message prefix");
    uint32_t word, meta_len;
    size_t prefix;
    memcpy(&word, buf, 4);
    if (word == 0xFFFFFFFFu) {
        if (len < 8) return malformed(err, "message prefix");
        memcpy(&meta_len, buf + 4, 4);
        prefix = 8;
    } else {
        meta_len = word; /* legacy format without continuation marker */
        prefix = 4;
    }
    if (meta_len == 0) {
        *consumed = prefix;
        return SQE_OK;
    }
    if (meta_len > INT32_MAX || meta_len > len - prefix) return malformed(err, "message length");
    const uint8_t *h = buf + prefix;
    int msg_type;
    int64_t blen;
    SQE_TRY(arrow_message_peek(h, meta_len, &msg_type, &blen, err));
    size_t rest = len - prefix - meta_len;
    if ((uint64_t)blen > rest) return malformed(err, "message body length");
    *header = h;
    *header_len = meta_len;
    *body = h + meta_len;
    *body_len = (size_t)blen;
    *consumed = prefix + meta_len + (size_t)blen;
    return SQE_OK;
}

/* ---- Schema --------------------------------------------------------------------------------- */

typedef struct sdec {
    arena *a;
    sqe_error *err;
    uint32_t n_fields;
} sdec;

static int read_meta(sdec *d, const fb_table *t, unsigned slot, const arrow_kv **out,
                     uint32_t *n_out, const char **ext_name) {
    *out = NULL;
    *n_out = 0;
    if (ext_name) *ext_name = NULL;
    fb_vector v;
    if (!fb_get_vector(t, slot, 4, &v)) return t->r->bad ? malformed(d->err, "custom_metadata") : SQE_OK;
    if (v.n > MAX_FIELDS) return malformed(d->err, "custom_metadata count");
    arrow_kv *kvs = ARENA_ARRAY(d->a, arrow_kv, v.n ? v.n : 1);
    if (!kvs) return err_nomem(d->err, "arrow metadata");
    for (uint32_t i = 0; i < v.n; i++) {
        fb_table kv;
        const char *k = "", *val = "";
        uint32_t klen = 0, vlen = 0;
        if (!fb_vector_table(&v, i, &kv)) return malformed(d->err, "custom_metadata");
        (void)fb_get_string(&kv, KV_KEY, &k, &klen);
        (void)fb_get_string(&kv, KV_VALUE, &val, &vlen);
        if (t->r->bad) return malformed(d->err, "custom_metadata");
        kvs[i].key = arena_strndup(d->a, k, klen);
        kvs[i].value = arena_strndup(d->a, val, vlen);
        if (!kvs[i].key || !kvs[i].value) return err_nomem(d->err, "arrow metadata");
        if (ext_name && strcmp(kvs[i].key, ARROW_EXT_NAME) == 0) *ext_name = kvs[i].value;
    }
    *out = kvs;
    *n_out = v.n;
    return SQE_OK;
}

/* Removes the "sqe:type" pair from col's metadata (the encoder writes it for its own decoder,
 * it is not the caller's metadata) and returns its value, or NULL. */
static const char *take_sqe_type(arrow_column *col) {
    const char *v = NULL;
    uint32_t k = 0;
    arrow_kv *kvs = (arrow_kv *)col->meta;
    for (uint32_t i = 0; i < col->n_meta; i++) {
        if (strcmp(kvs[i].key, ARROW_SQE_TYPE) == 0) v = kvs[i].value;
        else kvs[k++] = kvs[i];
    }
    col->n_meta = k;
    if (k == 0) col->meta = NULL;
    return v;
}

/* The precision SQE wrote for a time/timestamp field t (decoded from its unit) when the field's
 * "sqe:type" names the same kind of type with a precision that unit is written for; else t. */
static sqe_type written_precision(sqe_type t, int unit, const char *sqe_type_text) {
    sqe_type w;
    if (!sqe_type_text || type_parse(sqe_type_text, strlen(sqe_type_text), &w) != 0) return t;
    if (w.id != t.id || w.precision > 6 || arrow_unit_for_precision(w.precision) != unit) return t;
    return type_with_precision((type_id)t.id, w.precision);
}

static int unsupported(sdec *d, const char *name, const char *what) {
    return err_set(d->err, SQE_ERR_NOT_SUPPORTED, "arrow: field \"%s\": %s not supported", name, what);
}

/* Decodes Field table f into *src (and, for the caller, its name, nullability and metadata). */
static int decode_field(sdec *d, const fb_table *f, int depth, arrow_src_field *src,
                        arrow_column *col) {
    if (depth > MAX_DEPTH) return err_set(d->err, SQE_ERR_NOT_SUPPORTED, "arrow: type nesting too deep");
    if (++d->n_fields > MAX_FIELDS) return err_set(d->err, SQE_ERR_NOT_SUPPORTED, "arrow: too many fields");
    fb_reader *r = f->r;
    const char *name = "";
    uint32_t name_len = 0;
    (void)fb_get_string(f, FIELD_NAME, &name, &name_len);
    memset(col, 0, sizeof *col);
    memset(src, 0, sizeof *src);
    col->name = arena_strndup(d->a, name, name_len);
    if (!col->name) return err_nomem(d->err, "arrow field name");
    col->nullable = fb_get_u8(f, FIELD_NULLABLE, 0) != 0;
    uint8_t tt = fb_get_u8(f, FIELD_TYPE_TYPE, 0);
    fb_table type;
    memset(&type, 0, sizeof type);
    type.r = r;
    (void)fb_get_table(f, FIELD_TYPE, &type);
    fb_table dict;
    if (fb_get_table(f, FIELD_DICTIONARY, &dict)) return unsupported(d, col->name, "dictionary encoding");
    const char *ext = NULL;
    SQE_TRY(read_meta(d, f, FIELD_META, &col->meta, &col->n_meta, &ext));
    const char *type_text = take_sqe_type(col);
    fb_vector kids;
    memset(&kids, 0, sizeof kids);
    (void)fb_get_vector(f, FIELD_CHILDREN, 4, &kids);
    if (r->bad) return malformed(d->err, "field");
    if (kids.n > MAX_FIELDS) return malformed(d->err, "field children");

    /* children first (nested types need their SQE types) */
    arrow_src_field *ksrc = NULL;
    arrow_column *kcol = NULL;
    if (kids.n) {
        ksrc = ARENA_ARRAY(d->a, arrow_src_field, kids.n);
        kcol = ARENA_ARRAY(d->a, arrow_column, kids.n);
        if (!ksrc || !kcol) return err_nomem(d->err, "arrow fields");
        for (uint32_t i = 0; i < kids.n; i++) {
            fb_table kf;
            if (!fb_vector_table(&kids, i, &kf)) return malformed(d->err, "field child");
            SQE_TRY(decode_field(d, &kf, depth + 1, &ksrc[i], &kcol[i]));
        }
    }
    src->arrow_type = tt;
    src->n_children = kids.n;
    src->children = ksrc;
    sqe_type t = type_make(TYPE_UNKNOWN);
    uint32_t want_kids = 0;
    switch (tt) {
    case ARROW_T_NULL: break;
    case ARROW_T_BOOL: t = type_make(TYPE_BOOLEAN); break;
    case ARROW_T_INT: {
        src->bit_width = fb_get_i32(&type, 0, 0);
        src->is_signed = fb_get_u8(&type, 1, 0) != 0;
        int w = src->bit_width;
        if (w != 8 && w != 16 && w != 32 && w != 64) return unsupported(d, col->name, "integer width");
        if (src->is_signed)
            t = type_make(w == 8 ? TYPE_TINYINT : w == 16 ? TYPE_SMALLINT : w == 32 ? TYPE_INTEGER : TYPE_BIGINT);
        else
            t = w == 8 ? type_make(TYPE_SMALLINT) : w == 16 ? type_make(TYPE_INTEGER)
                : w == 32 ? type_make(TYPE_BIGINT) : type_decimal(20, 0);
        break;
    }
    case ARROW_T_FLOAT:
        src->unit = fb_get_i16(&type, 0, 0);
        if (src->unit == ARROW_PREC_SINGLE) t = type_make(TYPE_REAL);
        else if (src->unit == ARROW_PREC_DOUBLE) t = type_make(TYPE_DOUBLE);
        else return unsupported(d, col->name, "half float");
        break;
    case ARROW_T_DECIMAL: {
        int32_t p = fb_get_i32(&type, 0, 0), s = fb_get_i32(&type, 1, 0);
        src->bit_width = fb_get_i32(&type, 2, 128);
        int w = src->bit_width;
        if (w != 32 && w != 64 && w != 128 && w != 256) return unsupported(d, col->name, "decimal width");
        if (p < 1 || p > 38 || s < 0 || s > p) return unsupported(d, col->name, "decimal precision/scale");
        t = type_decimal(p, s);
        break;
    }
    case ARROW_T_UTF8:
    case ARROW_T_LARGE_UTF8:
        t = type_make(ext && strcmp(ext, "arrow.json") == 0 ? TYPE_JSON : TYPE_VARCHAR);
        break;
    case ARROW_T_BINARY:
    case ARROW_T_LARGE_BINARY: t = type_make(TYPE_VARBINARY); break;
    case ARROW_T_FIXED_SIZE_BINARY:
        src->byte_width = fb_get_i32(&type, 0, 0);
        if (src->byte_width < 0) return malformed(d->err, "FixedSizeBinary width");
        t = type_make(src->byte_width == 16 && ext && strcmp(ext, "arrow.uuid") == 0 ? TYPE_UUID
                                                                                  : TYPE_VARBINARY);
        break;
    case ARROW_T_DATE:
        src->unit = fb_get_i16(&type, 0, ARROW_DATE_MILLI);
        if (src->unit != ARROW_DATE_DAY && src->unit != ARROW_DATE_MILLI) return malformed(d->err, "Date unit");
        t = type_make(TYPE_DATE);
        break;
    case ARROW_T_TIME:
        src->unit = fb_get_i16(&type, 0, ARROW_UNIT_MILLI);
        src->bit_width = fb_get_i32(&type, 1, 32);
        if (src->unit < ARROW_UNIT_SECOND || src->unit > ARROW_UNIT_NANO ||
            src->bit_width != (src->unit <= ARROW_UNIT_MILLI ? 32 : 64))
            return malformed(d->err, "Time unit/bitWidth");
        t = type_with_precision(TYPE_TIME, src->unit == ARROW_UNIT_SECOND ? 0 : src->unit == ARROW_UNIT_MILLI ? 3 : 6);
        t = written_precision(t, src->unit, type_text);
        break;
    case ARROW_T_TIMESTAMP: {
        src->unit = fb_get_i16(&type, 0, ARROW_UNIT_SECOND);
        if (src->unit < ARROW_UNIT_SECOND || src->unit > ARROW_UNIT_NANO) return malformed(d->err, "Timestamp unit");
        const char *tz = NULL;
        uint32_t tz_len = 0;
        (void)fb_get_string(&type, 1, &tz, &tz_len);
        int prec = src->unit == ARROW_UNIT_SECOND ? 0 : src->unit == ARROW_UNIT_MILLI ? 3 : 6;
        if (tz && tz_len) {
            int32_t key;
            if (tz_lookup(tz, tz_len, &key) != 0) return unsupported(d, col->name, "time zone");
            src->byte_width = key; /* zone key */
            t = type_with_precision(TYPE_TIMESTAMP_TZ, prec);
        } else {
            t = type_with_precision(TYPE_TIMESTAMP, prec);
        }
        t = written_precision(t, src->unit, type_text);
        break;
    }
    case ARROW_T_DURATION:
        src->unit = fb_get_i16(&type, 0, ARROW_UNIT_MILLI);
        if (src->unit < ARROW_UNIT_SECOND || src->unit > ARROW_UNIT_NANO) return malformed(d->err, "Duration unit");
        t = type_make(TYPE_INTERVAL_DS);
        break;
    case ARROW_T_INTERVAL:
        src->unit = fb_get_i16(&type, 0, 0);
        if (src->unit == ARROW_IVL_YEAR_MONTH) t = type_make(TYPE_INTERVAL_YM);
        else if (src->unit == ARROW_IVL_DAY_TIME || src->unit == ARROW_IVL_MONTH_DAY_NANO) t = type_make(TYPE_INTERVAL_DS);
        else return malformed(d->err, "Interval unit");
        break;
    case ARROW_T_LIST:
    case ARROW_T_LARGE_LIST:
    case ARROW_T_FIXED_SIZE_LIST:
        want_kids = 1;
        if (kids.n != 1) return malformed(d->err, "list children");
        if (tt == ARROW_T_FIXED_SIZE_LIST) {
            src->byte_width = fb_get_i32(&type, 0, 0);
            if (src->byte_width < 0) return malformed(d->err, "FixedSizeList size");
        }
        t = type_array(ksrc[0].type);
        if (t.id != TYPE_ARRAY) return err_nomem(d->err, "arrow type");
        break;
    case ARROW_T_MAP:
        want_kids = 1;
        if (kids.n != 1 || ksrc[0].arrow_type != ARROW_T_STRUCT || ksrc[0].n_children != 2)
            return malformed(d->err, "map children");
        t = type_map(ksrc[0].children[0].type, ksrc[0].children[1].type);
        if (t.id != TYPE_MAP) return err_nomem(d->err, "arrow type");
        break;
    case ARROW_T_STRUCT: {
        want_kids = kids.n;
        sqe_type *ft = ARENA_ARRAY(d->a, sqe_type, kids.n ? kids.n : 1);
        const char **fn = ARENA_ARRAY(d->a, const char *, kids.n ? kids.n : 1);
        if (!ft || !fn) return err_nomem(d->err, "arrow type");
        for (uint32_t i = 0; i < kids.n; i++) {
            ft[i] = ksrc[i].type;
            fn[i] = kcol[i].name[0] ? kcol[i].name : NULL;
        }
        t = type_row(kids.n, ft, fn);
        if (t.id != TYPE_ROW) return err_nomem(d->err, "arrow type");
        break;
    }
    case ARROW_T_UNION: return unsupported(d, col->name, "union type");
    case ARROW_T_RUN_END_ENCODED: return unsupported(d, col->name, "run-end encoding");
    case ARROW_T_BINARY_VIEW:
    case ARROW_T_UTF8_VIEW: return unsupported(d, col->name, "string view type");
    case ARROW_T_LIST_VIEW:
    case ARROW_T_LARGE_LIST_VIEW: return unsupported(d, col->name, "list view type");
    default: return unsupported(d, col->name, "unknown Arrow type");
    }
    if (r->bad) return malformed(d->err, "field type");
    if (kids.n != want_kids) return malformed(d->err, "field children");
    src->type = t;
    col->type = t;
    return SQE_OK;
}

int arrow_schema_decode(const uint8_t *header, size_t len, arena *a, arrow_schema *out,
                        sqe_error *err) {
    memset(out, 0, sizeof *out);
    fb_reader r;
    fb_table msg, sch;
    SQE_TRY(open_message(&r, header, len, &msg, err));
    if (fb_get_u8(&msg, MSG_HEADER_TYPE, 0) != ARROW_MSG_SCHEMA)
        return err_set(err, SQE_ERR_INVALID_FILE, "arrow: expected a Schema message");
    if (!fb_get_table(&msg, MSG_HEADER, &sch)) return malformed(err, "schema");
    if (fb_get_i16(&sch, SCHEMA_ENDIANNESS, 0) != 0)
        return err_set(err, SQE_ERR_NOT_SUPPORTED, "arrow: big-endian data not supported");
    sdec d = {.a = a, .err = err};
    fb_vector fields;
    memset(&fields, 0, sizeof fields);
    (void)fb_get_vector(&sch, SCHEMA_FIELDS, 4, &fields);
    if (r.bad) return malformed(err, "schema");
    if (fields.n > MAX_FIELDS) return err_set(err, SQE_ERR_NOT_SUPPORTED, "arrow: too many fields");
    arrow_column *cols = ARENA_ARRAY(a, arrow_column, fields.n ? fields.n : 1);
    arrow_src_field *src = ARENA_ARRAY(a, arrow_src_field, fields.n ? fields.n : 1);
    if (!cols || !src) return err_nomem(err, "arrow schema");
    for (uint32_t i = 0; i < fields.n; i++) {
        fb_table f;
        if (!fb_vector_table(&fields, i, &f)) return malformed(err, "schema field");
        SQE_TRY(decode_field(&d, &f, 0, &src[i], &cols[i]));
    }
    const arrow_kv *meta;
    uint32_t n_meta;
    SQE_TRY(read_meta(&d, &sch, SCHEMA_META, &meta, &n_meta, NULL));
    out->n_cols = fields.n;
    out->cols = cols;
    out->src = src;
    out->meta = meta;
    out->n_meta = n_meta;
    return SQE_OK;
}

/* ---- Record batches ------------------------------------------------------------------------- */

typedef struct bdec {
    const uint8_t *body;
    size_t body_len;
    fb_vector nodes, bufs;
    uint32_t node_idx, buf_idx;
    uint64_t bytes_left;   /* budget of vector bytes over all nodes (see arrow_batch_decode) */
    sqe_error *err;
} bdec;

typedef struct span {
    const uint8_t *p;
    size_t len;
} span;

/* Bytes one row of a field takes in its SQE vector (at least 1). */
static uint64_t row_bytes(const arrow_src_field *f) {
    size_t w = type_physical_size(f->type);
    return w ? w : 1;
}

static int next_node(bdec *d, const arrow_src_field *src, uint32_t *length, int64_t *nulls) {
    if (d->node_idx >= d->nodes.n) return malformed(d->err, "record batch (too few nodes)");
    int64_t v[2];
    memcpy(v, fb_vector_data(&d->nodes) + 16 * (size_t)d->node_idx++, 16);
    if (v[0] < 0 || v[1] < 0 || v[1] > v[0]) return malformed(d->err, "field node");
    if ((uint64_t)v[0] > ARROW_IPC_MAX_ROWS)
        return err_set(d->err, SQE_ERR_NOT_SUPPORTED, "arrow: batch column of %lld rows exceeds %u",
                       (long long)v[0], ARROW_IPC_MAX_ROWS);
    uint64_t bytes = (uint64_t)v[0] * row_bytes(src);
    if (bytes > d->bytes_left) return malformed(d->err, "record batch (rows exceed body)");
    d->bytes_left -= bytes;
    *length = (uint32_t)v[0];
    *nulls = v[1];
    return SQE_OK;
}

static int next_buffer(bdec *d, span *s) {
    if (d->buf_idx >= d->bufs.n) return malformed(d->err, "record batch (too few buffers)");
    int64_t v[2];
    memcpy(v, fb_vector_data(&d->bufs) + 16 * (size_t)d->buf_idx++, 16);
    if (v[0] < 0 || v[1] < 0 || (uint64_t)v[0] > d->body_len || (uint64_t)v[1] > d->body_len - (uint64_t)v[0])
        return malformed(d->err, "buffer (outside the body)");
    s->p = d->body + v[0];
    s->len = (size_t)v[1];
    return SQE_OK;
}

static int need(bdec *d, const span *s, uint64_t bytes, const char *what) {
    if (s->len < bytes) return err_set(d->err, SQE_ERR_INVALID_FILE, "arrow: %s buffer too short", what);
    return SQE_OK;
}

static bool bit(const uint8_t *p, uint64_t i) { return (p[i >> 3] >> (i & 7)) & 1; }

/* Reads the validity buffer for n rows into dst (only when the node declares NULLs). */
static int read_validity(bdec *d, vec *dst, uint32_t n, int64_t nulls) {
    span s;
    SQE_TRY(next_buffer(d, &s));
    if (nulls == 0 || n == 0) return SQE_OK;
    SQE_TRY(need(d, &s, ((uint64_t)n + 7) / 8, "validity"));
    uint64_t *bits = vec_validity_make(dst);
    if (!bits) return err_nomem(d->err, "arrow validity");
    memcpy(bits, s.p, ((size_t)n + 7) / 8);
    return SQE_OK;
}

static int64_t floor_div(int64_t a, int64_t b) {
    int64_t q = a / b;
    return (a % b != 0 && (a < 0)) ? q - 1 : q;
}

/* Converts v in `unit` to microseconds; false on overflow. */
static bool to_micros(int64_t v, int unit, int64_t *out) {
    switch (unit) {
    case ARROW_UNIT_SECOND: return !__builtin_mul_overflow(v, (int64_t)1000000, out);
    case ARROW_UNIT_MILLI: return !__builtin_mul_overflow(v, (int64_t)1000, out);
    case ARROW_UNIT_MICRO: *out = v; return true;
    default: *out = floor_div(v, 1000); return true;
    }
}

static int out_of_range(bdec *d, const char *what) {
    return err_set(d->err, SQE_ERR_NUMERIC_VALUE_OUT_OF_RANGE, "arrow: %s value out of range", what);
}

static int decode_col(bdec *d, const arrow_src_field *src, vec *dst, bool fixed_n, uint32_t want,
                      uint32_t *n_out, int depth);

/* Reads the offsets of n rows (n + 1 entries, int32 or int64), checks those of valid rows against
 * limit (and the uint32 range of SQE list entries) and stores {start, length} in entries[0, n). */
static int read_offsets(bdec *d, const span *s, bool large, uint32_t n, const vec *dst,
                        uint64_t limit, sqe_list_entry *entries) {
    if (n == 0) return SQE_OK;
    size_t w = large ? 8 : 4;
    SQE_TRY(need(d, s, ((uint64_t)n + 1) * w, "offsets"));
    for (uint32_t i = 0; i < n; i++) {
        if (!vec_is_valid_flat(dst, i)) {
            entries[i] = (sqe_list_entry){0, 0};
            continue;
        }
        int64_t o0, o1;
        if (large) {
            memcpy(&o0, s->p + 8 * (size_t)i, 8);
            memcpy(&o1, s->p + 8 * (size_t)i + 8, 8);
        } else {
            int32_t a, b;
            memcpy(&a, s->p + 4 * (size_t)i, 4);
            memcpy(&b, s->p + 4 * (size_t)i + 4, 4);
            o0 = a;
            o1 = b;
        }
        if (o0 < 0 || o1 < o0 || (uint64_t)o1 > limit || (uint64_t)o1 > UINT32_MAX)
            return malformed(d->err, "offsets");
        entries[i] = (sqe_list_entry){(uint32_t)o0, (uint32_t)(o1 - o0)};
    }
    return SQE_OK;
}

static int decode_strings(bdec *d, const arrow_src_field *src, vec *dst, uint32_t n) {
    bool large = src->arrow_type == ARROW_T_LARGE_UTF8 || src->arrow_type == ARROW_T_LARGE_BINARY;
    bool utf8 = src->arrow_type == ARROW_T_UTF8 || src->arrow_type == ARROW_T_LARGE_UTF8;
    span offs, data;
    SQE_TRY(next_buffer(d, &offs));
    SQE_TRY(next_buffer(d, &data));
    if (n == 0) return SQE_OK;
    sqe_list_entry *ent = malloc(sizeof *ent * n);
    if (!ent) return err_nomem(d->err, "arrow offsets");
    int rc = read_offsets(d, &offs, large, n, dst, data.len, ent);
    for (uint32_t i = 0; !rc && i < n; i++) {
        sqe_str *out = &VEC_DATA(dst, sqe_str)[i];
        memset(out, 0, sizeof *out);
        if (!vec_is_valid_flat(dst, i)) continue;
        const uint8_t *p = data.p + ent[i].offset;
        if (utf8 && !utf8_valid((const char *)p, ent[i].length)) {
            rc = err_set(d->err, SQE_ERR_INVALID_FILE, "arrow: invalid UTF-8 in a Utf8 column");
            break;
        }
        bool ok = true;
        *out = vec_str_copy(dst, (const char *)p, ent[i].length, &ok);
        if (!ok) rc = err_nomem(d->err, "arrow strings");
    }
    free(ent);
    return rc;
}

static int decode_list(bdec *d, const arrow_src_field *src, vec *dst, uint32_t n, int depth) {
    bool fixed = src->arrow_type == ARROW_T_FIXED_SIZE_LIST;
    span offs = {0};
    if (!fixed) SQE_TRY(next_buffer(d, &offs));
    if (!dst->children || dst->n_children < (src->arrow_type == ARROW_T_MAP ? 2u : 1u))
        return malformed(d->err, "nested vector");
    const arrow_src_field *child = &src->children[0];
    uint32_t child_n = 0;
    if (src->arrow_type == ARROW_T_MAP) {
        /* entries struct: node + validity (ignored: entries are never null), then key, value */
        uint32_t len;
        int64_t nulls;
        span ignore;
        SQE_TRY(next_node(d, child, &len, &nulls));
        SQE_TRY(next_buffer(d, &ignore));
        SQE_TRY(vec_reserve(&dst->children[0], len, d->err));
        SQE_TRY(vec_reserve(&dst->children[1], len, d->err));
        SQE_TRY(decode_col(d, &child->children[0], &dst->children[0], true, len, NULL, depth + 2));
        SQE_TRY(decode_col(d, &child->children[1], &dst->children[1], true, len, NULL, depth + 2));
        child_n = len;
    } else {
        SQE_TRY(decode_col(d, child, &dst->children[0], false, 0, &child_n, depth + 1));
    }
    dst->child_len = child_n;
    sqe_list_entry *ent = VEC_DATA(dst, sqe_list_entry);
    if (fixed) {
        uint64_t k = (uint64_t)src->byte_width;
        if (k * n > child_n) return malformed(d->err, "fixed-size list");
        for (uint32_t i = 0; i < n; i++)
            ent[i] = vec_is_valid_flat(dst, i) ? (sqe_list_entry){(uint32_t)(k * i), (uint32_t)k}
                                               : (sqe_list_entry){0, 0};
        return SQE_OK;
    }
    return read_offsets(d, &offs, src->arrow_type == ARROW_T_LARGE_LIST, n, dst, child_n, ent);
}

static int decode_values(bdec *d, const arrow_src_field *src, vec *dst, uint32_t n, int depth) {
    span s;
    sqe_type t = src->type;
    switch (src->arrow_type) {
    case ARROW_T_BOOL:
        SQE_TRY(next_buffer(d, &s));
        SQE_TRY(need(d, &s, ((uint64_t)n + 7) / 8, "boolean"));
        for (uint32_t i = 0; i < n; i++) VEC_DATA(dst, uint8_t)[i] = bit(s.p, i);
        return SQE_OK;
    case ARROW_T_INT: {
        SQE_TRY(next_buffer(d, &s));
        size_t w = (size_t)src->bit_width / 8;
        SQE_TRY(need(d, &s, (uint64_t)n * w, "integer"));
        if (src->is_signed) {
            if (n) memcpy(dst->data, s.p, w * n);
            return SQE_OK;
        }
        for (uint32_t i = 0; i < n; i++) {
            uint64_t v = 0;
            memcpy(&v, s.p + w * i, w);
            switch (w) {
            case 1: VEC_DATA(dst, int16_t)[i] = (int16_t)v; break;
            case 2: VEC_DATA(dst, int32_t)[i] = (int32_t)v; break;
            case 4: VEC_DATA(dst, int64_t)[i] = (int64_t)v; break;
            default: VEC_DATA(dst, int128)[i] = (int128)v; break;
            }
        }
        return SQE_OK;
    }
    case ARROW_T_FLOAT: {
        SQE_TRY(next_buffer(d, &s));
        size_t w = src->unit == ARROW_PREC_SINGLE ? 4 : 8;
        SQE_TRY(need(d, &s, (uint64_t)n * w, "floating point"));
        if (n) memcpy(dst->data, s.p, w * n);
        return SQE_OK;
    }
    case ARROW_T_DECIMAL: {
        SQE_TRY(next_buffer(d, &s));
        size_t w = (size_t)src->bit_width / 8;
        SQE_TRY(need(d, &s, (uint64_t)n * w, "decimal"));
        for (uint32_t i = 0; i < n; i++) {
            int128 v = 0;
            const uint8_t *p = s.p + w * i;
            if (w == 4) { int32_t x; memcpy(&x, p, 4); v = x; }
            else if (w == 8) { int64_t x; memcpy(&x, p, 8); v = x; }
            else {
                memcpy(&v, p, 16);
                if (w == 32 && vec_is_valid_flat(dst, i)) {
                    uint8_t ext[16];
                    memset(ext, v < 0 ? 0xFF : 0, 16);
                    if (memcmp(p + 16, ext, 16) != 0) return out_of_range(d, "decimal256");
                }
            }
            if (type_decimal_is_long(t)) {
                VEC_DATA(dst, int128)[i] = v;
            } else {
                if (vec_is_valid_flat(dst, i) && (v > INT64_MAX || v < INT64_MIN)) return out_of_range(d, "decimal");
                VEC_DATA(dst, int64_t)[i] = (int64_t)v;
            }
        }
        return SQE_OK;
    }
    case ARROW_T_UTF8:
    case ARROW_T_LARGE_UTF8:
    case ARROW_T_BINARY:
    case ARROW_T_LARGE_BINARY:
        return decode_strings(d, src, dst, n);
    case ARROW_T_FIXED_SIZE_BINARY: {
        SQE_TRY(next_buffer(d, &s));
        uint64_t w = (uint64_t)src->byte_width;
        SQE_TRY(need(d, &s, w * n, "fixed-size binary"));
        for (uint32_t i = 0; i < n; i++) {
            if (t.id == TYPE_UUID) {
                memcpy((uint8_t *)dst->data + 16 * (size_t)i, s.p + 16 * (size_t)i, 16);
                continue;
            }
            sqe_str *out = &VEC_DATA(dst, sqe_str)[i];
            memset(out, 0, sizeof *out);
            if (!vec_is_valid_flat(dst, i)) continue;
            bool ok = true;
            *out = vec_str_copy(dst, (const char *)s.p + w * i, (uint32_t)w, &ok);
            if (!ok) return err_nomem(d->err, "arrow strings");
        }
        return SQE_OK;
    }
    case ARROW_T_DATE:
        SQE_TRY(next_buffer(d, &s));
        if (src->unit == ARROW_DATE_DAY) {
            SQE_TRY(need(d, &s, (uint64_t)n * 4, "date"));
            if (n) memcpy(dst->data, s.p, 4 * (size_t)n);
            return SQE_OK;
        }
        SQE_TRY(need(d, &s, (uint64_t)n * 8, "date64"));
        for (uint32_t i = 0; i < n; i++) {
            int64_t ms;
            memcpy(&ms, s.p + 8 * (size_t)i, 8);
            int64_t days = floor_div(ms, 86400000);
            if (vec_is_valid_flat(dst, i) && (days > INT32_MAX || days < INT32_MIN)) return out_of_range(d, "date64");
            VEC_DATA(dst, int32_t)[i] = (int32_t)days;
        }
        return SQE_OK;
    case ARROW_T_TIME:
    case ARROW_T_TIMESTAMP:
    case ARROW_T_DURATION: {
        SQE_TRY(next_buffer(d, &s));
        size_t w = src->arrow_type == ARROW_T_TIME && src->bit_width == 32 ? 4 : 8;
        SQE_TRY(need(d, &s, (uint64_t)n * w, "temporal"));
        for (uint32_t i = 0; i < n; i++) {
            int64_t v, us = 0;
            if (w == 4) { int32_t x; memcpy(&x, s.p + 4 * (size_t)i, 4); v = x; }
            else memcpy(&v, s.p + 8 * (size_t)i, 8);
            bool valid = vec_is_valid_flat(dst, i);
            if (!to_micros(v, src->unit, &us) && valid) return out_of_range(d, "temporal");
            if (!valid) us = 0;
            if (t.id == TYPE_TIMESTAMP_TZ)
                VEC_DATA(dst, sqe_timestamp_tz)[i] = (sqe_timestamp_tz){us, src->byte_width, 0};
            else
                VEC_DATA(dst, int64_t)[i] = us;
        }
        return SQE_OK;
    }
    case ARROW_T_INTERVAL: {
        SQE_TRY(next_buffer(d, &s));
        size_t w = src->unit == ARROW_IVL_YEAR_MONTH ? 4 : src->unit == ARROW_IVL_DAY_TIME ? 8 : 16;
        SQE_TRY(need(d, &s, (uint64_t)n * w, "interval"));
        for (uint32_t i = 0; i < n; i++) {
            const uint8_t *p = s.p + w * i;
            if (w == 4) {
                memcpy(&VEC_DATA(dst, int32_t)[i], p, 4);
                continue;
            }
            int32_t months = 0, days, ms = 0;
            int64_t nanos = 0, us = 0;
            if (w == 8) {
                memcpy(&days, p, 4);
                memcpy(&ms, p + 4, 4);
            } else {
                memcpy(&months, p, 4);
                memcpy(&days, p + 4, 4);
                memcpy(&nanos, p + 8, 8);
            }
            if (vec_is_valid_flat(dst, i)) {
                if (months != 0)
                    return err_set(d->err, SQE_ERR_NOT_SUPPORTED,
                                   "arrow: month_day_nano interval with months cannot be an interval day to second");
                /* days beyond about 106 million overflow int64 microseconds */
                if (__builtin_mul_overflow((int64_t)days, (int64_t)86400000000LL, &us) ||
                    __builtin_add_overflow(us, (int64_t)ms * 1000 + floor_div(nanos, 1000), &us))
                    return out_of_range(d, "interval");
            }
            VEC_DATA(dst, int64_t)[i] = us;
        }
        return SQE_OK;
    }
    case ARROW_T_LIST:
    case ARROW_T_LARGE_LIST:
    case ARROW_T_FIXED_SIZE_LIST:
    case ARROW_T_MAP:
        return decode_list(d, src, dst, n, depth);
    case ARROW_T_STRUCT:
        if (src->n_children && (!dst->children || dst->n_children < src->n_children))
            return malformed(d->err, "struct vector");
        for (uint32_t c = 0; c < src->n_children; c++)
            SQE_TRY(decode_col(d, &src->children[c], &dst->children[c], true, n, NULL, depth + 1));
        return SQE_OK;
    default: break;
    }
    return err_set(d->err, SQE_ERR_NOT_SUPPORTED, "arrow: type %d not supported", src->arrow_type);
}

/* Decodes one field: its node (length L; with fixed_n, L must be >= want and `want` rows are
 * decoded, else all L rows), validity and values into dst (reserved here). */
static int decode_col(bdec *d, const arrow_src_field *src, vec *dst, bool fixed_n, uint32_t want,
                      uint32_t *n_out, int depth) {
    if (depth > MAX_DEPTH) return malformed(d->err, "nesting");
    uint32_t len;
    int64_t nulls;
    SQE_TRY(next_node(d, src, &len, &nulls));
    if (fixed_n && len < want) return malformed(d->err, "child length");
    uint32_t n = fixed_n ? want : len;
    if (n_out) *n_out = n;
    SQE_TRY(vec_reserve(dst, n ? n : 1, d->err));
    if (src->arrow_type == ARROW_T_NULL) { /* no buffers in V5 */
        uint64_t *bits = vec_validity_make(dst);
        if (!bits) return err_nomem(d->err, "arrow validity");
        memset(bits, 0, ((size_t)n + 63) / 64 * 8);
        return SQE_OK;
    }
    SQE_TRY(read_validity(d, dst, n, nulls));
    return decode_values(d, src, dst, n, depth);
}

/* Bytes per row of all vectors in the tree of one field (vec_init gives children the parent's
 * capacity); bounded by the schema decoder's field cap. */
static uint64_t tree_row_bytes(const arrow_src_field *f, int depth) {
    uint64_t n = row_bytes(f);
    for (uint32_t i = 0; depth < MAX_DEPTH && i < f->n_children; i++) n += tree_row_bytes(&f->children[i], depth + 1);
    return n;
}

int arrow_batch_decode(const arrow_schema *schema, const uint8_t *header, size_t header_len,
                       const uint8_t *body, size_t body_len, mem_tracker *tracker,
                       vec_chunk *out, sqe_error *err) {
    memset(out, 0, sizeof *out);
    if (!schema->src && schema->n_cols)
        return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "arrow: schema was not decoded");
    fb_reader r;
    fb_table msg, rb, comp;
    SQE_TRY(open_message(&r, header, header_len, &msg, err));
    if (fb_get_u8(&msg, MSG_HEADER_TYPE, 0) != ARROW_MSG_RECORD_BATCH)
        return err_set(err, SQE_ERR_INVALID_FILE, "arrow: expected a RecordBatch message");
    if (!fb_get_table(&msg, MSG_HEADER, &rb)) return malformed(err, "record batch");
    if (fb_get_table(&rb, RB_COMPRESSION, &comp))
        return err_set(err, SQE_ERR_NOT_SUPPORTED, "arrow: compressed record batches not supported");
    int64_t length = fb_get_i64(&rb, RB_LENGTH, 0);
    bdec d = {.body = body, .body_len = body ? body_len : 0, .err = err};
    memset(&d.nodes, 0, sizeof d.nodes);
    memset(&d.bufs, 0, sizeof d.bufs);
    (void)fb_get_vector(&rb, RB_NODES, 16, &d.nodes);
    (void)fb_get_vector(&rb, RB_BUFFERS, 16, &d.bufs);
    if (r.bad || length < 0) return malformed(err, "record batch");
    if ((uint64_t)length > ARROW_IPC_MAX_ROWS)
        return err_set(err, SQE_ERR_NOT_SUPPORTED, "arrow: batch of %lld rows exceeds %u",
                       (long long)length, ARROW_IPC_MAX_ROWS);
    /* The vectors may take at most 8 bytes per body byte (bit-packed booleans become bytes)
     * plus 64 MiB (Null and struct columns have no body bytes), whatever the message claims.
     * vec_chunk_init sizes every vector of the tree for `length` rows before any node is read. */
    d.bytes_left = (uint64_t)d.body_len * 8 + ((uint64_t)1 << 26);
    uint64_t tree_bytes = 0;
    for (uint32_t c = 0; c < schema->n_cols; c++) tree_bytes += tree_row_bytes(&schema->src[c], 0);
    if ((uint64_t)length * tree_bytes > d.bytes_left) return malformed(err, "record batch (rows exceed body)");
    uint32_t n = (uint32_t)length;
    sqe_type *types = malloc(sizeof(sqe_type) * (schema->n_cols ? schema->n_cols : 1));
    if (!types) return err_nomem(err, "arrow batch");
    for (uint32_t c = 0; c < schema->n_cols; c++) types[c] = schema->src[c].type;
    int rc = vec_chunk_init(out, schema->n_cols, types, n ? n : 1, tracker, err);
    free(types);
    for (uint32_t c = 0; !rc && c < schema->n_cols; c++) {
        uint32_t got;
        rc = decode_col(&d, &schema->src[c], &out->cols[c], false, 0, &got, 0);
        if (!rc && got != n) rc = malformed(err, "column length (differs from the batch length)");
    }
    if (rc) {
        vec_chunk_destroy(out);
        memset(out, 0, sizeof *out);
        return rc;
    }
    out->count = n;
    return SQE_OK;
}

/* ---- Stream reader -------------------------------------------------------------------------- */

int arrow_stream_reader_open(arrow_stream_reader *r, const uint8_t *buf, size_t len,
                             mem_tracker *tracker, sqe_error *err) {
    memset(r, 0, sizeof *r);
    r->buf = buf;
    r->len = len;
    r->tracker = tracker;
    arena_init(&r->arena, tracker);
    const uint8_t *h, *body;
    size_t hlen, blen, used;
    int rc = arrow_message_unframe(buf, len, &h, &hlen, &body, &blen, &used, err);
    if (!rc && !h) rc = err_set(err, SQE_ERR_INVALID_FILE, "arrow: empty stream (no schema)");
    if (!rc) rc = arrow_schema_decode(h, hlen, &r->arena, &r->schema, err);
    if (rc) {
        arrow_stream_reader_close(r);
        return rc;
    }
    r->pos = used;
    return SQE_OK;
}

int arrow_stream_reader_next(arrow_stream_reader *r, vec_chunk *out, bool *eos, sqe_error *err) {
    memset(out, 0, sizeof *out);
    *eos = false;
    const uint8_t *h, *body;
    size_t hlen, blen, used;
    SQE_TRY(arrow_message_unframe(r->buf + r->pos, r->len - r->pos, &h, &hlen, &body, &blen, &used, err));
    if (!h) {
        r->pos += used;
        *eos = true;
        return SQE_OK;
    }
    int type;
    int64_t declared;
    SQE_TRY(arrow_message_peek(h, hlen, &type, &declared, err));
    if (type == ARROW_MSG_DICTIONARY_BATCH)
        return err_set(err, SQE_ERR_NOT_SUPPORTED, "arrow: dictionary batches not supported");
    if (type != ARROW_MSG_RECORD_BATCH)
        return err_set(err, SQE_ERR_INVALID_FILE, "arrow: unexpected message type %d in stream", type);
    SQE_TRY(arrow_batch_decode(&r->schema, h, hlen, body, blen, r->tracker, out, err));
    r->pos += used;
    return SQE_OK;
}

void arrow_stream_reader_close(arrow_stream_reader *r) {
    arena_destroy(&r->arena);
    memset(&r->schema, 0, sizeof r->schema);
    r->buf = NULL;
    r->len = r->pos = 0;
}
