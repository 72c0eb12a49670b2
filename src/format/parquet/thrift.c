/*
 * thrift.c: the Thrift compact protocol reader used to decode Parquet metadata (see thrift.h).
 *
 * INTERFACE
 *   pq_thrift_init, pq_thrift_fail                    set up / report an error
 *   pq_thrift_read_{varint,i8,i16,i32,i64,double,binary,bool_elem}   primitives
 *   pq_thrift_struct_begin/field_header/struct_end    struct traversal
 *   pq_thrift_list_header, pq_thrift_map_header       container headers
 *   pq_thrift_skip, pq_thrift_skip_elem               skip unknown values
 * NOTES
 *   The input is hostile: every read is bounds-checked, varints are at most 10 bytes, counts are
 *   limited by PQ_THRIFT_MAX_ELEMS and by the bytes left (no element is shorter than one byte),
 *   nesting is limited by PQ_THRIFT_MAX_DEPTH. Skipping is linear in the input size because every
 *   skipped element consumes at least one byte. The reader never allocates.
 *   Wire format: Thrift compact protocol (field header = delta<<4 | type, or type then zigzag
 *   i16 id; list header = size<<4 | elem type, size 15 means a varint size follows).
 */
#include "format/parquet/thrift.h"

#include <string.h>

void pq_thrift_init(pq_thrift_reader *r, const uint8_t *buf, size_t len, sqe_error *err) {
    memset(r, 0, sizeof(*r));
    r->buf = buf;
    r->len = buf ? len : 0;
    r->err = err;
}

int pq_thrift_fail(pq_thrift_reader *r, const char *msg) {
    if (!r->failed) {
        r->failed = 1;
        err_set(r->err, SQE_ERR_INVALID_FILE, "Invalid Parquet metadata: %s (at byte %zu)", msg,
                r->pos);
    }
    return SQE_ERR_INVALID_FILE;
}

static int need(pq_thrift_reader *r, size_t n) {
    if (r->failed) return SQE_ERR_INVALID_FILE;
    if (n > pq_thrift_remaining(r)) return pq_thrift_fail(r, "unexpected end of data");
    return SQE_OK;
}

int pq_thrift_read_varint(pq_thrift_reader *r, uint64_t *out) {
    uint64_t v = 0;
    *out = 0;
    if (r->failed) return SQE_ERR_INVALID_FILE;
    for (int shift = 0, n = 0; n < 10; n++, shift += 7) {
        if (r->pos >= r->len) return pq_thrift_fail(r, "truncated varint");
        uint8_t b = r->buf[r->pos++];
        if (n == 9 && (b & 0x7e)) return pq_thrift_fail(r, "varint overflows 64 bits");
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *out = v;
            return SQE_OK;
        }
    }
    return pq_thrift_fail(r, "varint longer than 10 bytes");
}

static int64_t unzigzag(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }

int pq_thrift_read_i64(pq_thrift_reader *r, int64_t *out) {
    uint64_t v;
    *out = 0;
    SQE_TRY(pq_thrift_read_varint(r, &v));
    *out = unzigzag(v);
    return SQE_OK;
}

int pq_thrift_read_i32(pq_thrift_reader *r, int32_t *out) {
    int64_t v;
    *out = 0;
    SQE_TRY(pq_thrift_read_i64(r, &v));
    if (v < INT32_MIN || v > INT32_MAX) return pq_thrift_fail(r, "i32 out of range");
    *out = (int32_t)v;
    return SQE_OK;
}

int pq_thrift_read_i16(pq_thrift_reader *r, int16_t *out) {
    int64_t v;
    *out = 0;
    SQE_TRY(pq_thrift_read_i64(r, &v));
    if (v < INT16_MIN || v > INT16_MAX) return pq_thrift_fail(r, "i16 out of range");
    *out = (int16_t)v;
    return SQE_OK;
}

int pq_thrift_read_i8(pq_thrift_reader *r, int8_t *out) {
    *out = 0;
    SQE_TRY(need(r, 1));
    *out = (int8_t)r->buf[r->pos++];
    return SQE_OK;
}

int pq_thrift_read_bool_elem(pq_thrift_reader *r, bool *out) {
    *out = false;
    SQE_TRY(need(r, 1));
    *out = r->buf[r->pos++] == 1;
    return SQE_OK;
}

int pq_thrift_read_double(pq_thrift_reader *r, double *out) {
    uint64_t bits = 0;
    *out = 0;
    SQE_TRY(need(r, 8));
    for (int i = 7; i >= 0; i--) bits = bits << 8 | r->buf[r->pos + (size_t)i];
    r->pos += 8;
    memcpy(out, &bits, sizeof(*out));
    return SQE_OK;
}

int pq_thrift_read_binary(pq_thrift_reader *r, const uint8_t **data, size_t *len) {
    uint64_t n;
    *data = NULL;
    *len = 0;
    SQE_TRY(pq_thrift_read_varint(r, &n));
    if (n > pq_thrift_remaining(r)) return pq_thrift_fail(r, "binary length exceeds data");
    *data = r->buf + r->pos;
    *len = (size_t)n;
    r->pos += (size_t)n;
    return SQE_OK;
}

int pq_thrift_struct_begin(pq_thrift_reader *r) {
    if (r->failed) return SQE_ERR_INVALID_FILE;
    if (r->depth >= PQ_THRIFT_MAX_DEPTH) return pq_thrift_fail(r, "nesting too deep");
    r->depth++;
    r->last_fid[r->depth] = 0;
    return SQE_OK;
}

void pq_thrift_struct_end(pq_thrift_reader *r) {
    if (r->depth > 0) r->depth--;
}

static bool valid_type(int type) { return type >= PQ_THRIFT_BOOL_TRUE && type <= PQ_THRIFT_STRUCT; }

int pq_thrift_field_header(pq_thrift_reader *r, int *type, int16_t *field_id) {
    *type = PQ_THRIFT_STOP;
    *field_id = 0;
    SQE_TRY(need(r, 1));
    uint8_t b = r->buf[r->pos++];
    int t = b & 0x0f;
    if (t == PQ_THRIFT_STOP) {
        if (b != 0) return pq_thrift_fail(r, "malformed field stop");
        return SQE_OK;
    }
    if (!valid_type(t)) return pq_thrift_fail(r, "invalid field type");
    int delta = b >> 4;
    int16_t fid;
    if (delta == 0) {
        SQE_TRY(pq_thrift_read_i16(r, &fid));
    } else {
        int32_t wide = (int32_t)r->last_fid[r->depth] + delta;
        if (wide > INT16_MAX) return pq_thrift_fail(r, "field id out of range");
        fid = (int16_t)wide;
    }
    r->last_fid[r->depth] = fid;
    *type = t;
    *field_id = fid;
    return SQE_OK;
}

static int check_count(pq_thrift_reader *r, uint64_t n, uint64_t min_bytes_each) {
    if (n > PQ_THRIFT_MAX_ELEMS) return pq_thrift_fail(r, "too many list elements");
    if (n * min_bytes_each > pq_thrift_remaining(r))
        return pq_thrift_fail(r, "list size exceeds data");
    return SQE_OK;
}

int pq_thrift_list_header(pq_thrift_reader *r, int *elem_type, uint32_t *count) {
    *elem_type = PQ_THRIFT_STOP;
    *count = 0;
    SQE_TRY(need(r, 1));
    uint8_t b = r->buf[r->pos++];
    int t = b & 0x0f;
    uint64_t n = b >> 4;
    if (!valid_type(t)) return pq_thrift_fail(r, "invalid list element type");
    if (n == 15) SQE_TRY(pq_thrift_read_varint(r, &n));
    SQE_TRY(check_count(r, n, 1));
    *elem_type = t;
    *count = (uint32_t)n;
    return SQE_OK;
}

int pq_thrift_map_header(pq_thrift_reader *r, uint32_t *count, int *key_type, int *val_type) {
    uint64_t n;
    *count = 0;
    *key_type = *val_type = PQ_THRIFT_STOP;
    SQE_TRY(pq_thrift_read_varint(r, &n));
    if (n == 0) return SQE_OK;
    SQE_TRY(need(r, 1));
    uint8_t b = r->buf[r->pos++];
    int kt = b >> 4, vt = b & 0x0f;
    if (!valid_type(kt) || !valid_type(vt)) return pq_thrift_fail(r, "invalid map types");
    SQE_TRY(check_count(r, n, 2));
    *count = (uint32_t)n;
    *key_type = kt;
    *val_type = vt;
    return SQE_OK;
}

static int skip_value(pq_thrift_reader *r, int type, bool in_list);

static int skip_container(pq_thrift_reader *r, int type) {
    /* Containers count toward the nesting limit like structs do. */
    if (r->depth >= PQ_THRIFT_MAX_DEPTH) return pq_thrift_fail(r, "nesting too deep");
    r->depth++;
    r->last_fid[r->depth] = 0;
    int rc = SQE_OK;
    if (type == PQ_THRIFT_MAP) {
        uint32_t n;
        int kt, vt;
        rc = pq_thrift_map_header(r, &n, &kt, &vt);
        for (uint32_t i = 0; rc == SQE_OK && i < n; i++) {
            rc = skip_value(r, kt, true);
            if (rc == SQE_OK) rc = skip_value(r, vt, true);
        }
    } else {
        uint32_t n;
        int et;
        rc = pq_thrift_list_header(r, &et, &n);
        for (uint32_t i = 0; rc == SQE_OK && i < n; i++) rc = skip_value(r, et, true);
    }
    r->depth--;
    return rc;
}

static int skip_value(pq_thrift_reader *r, int type, bool in_list) {
    uint64_t v;
    const uint8_t *data;
    size_t len;
    if (r->failed) return SQE_ERR_INVALID_FILE;
    switch (type) {
    case PQ_THRIFT_BOOL_TRUE:
    case PQ_THRIFT_BOOL_FALSE:
        if (!in_list) return SQE_OK; /* a bool field's value is in its header */
        SQE_TRY(need(r, 1));
        r->pos++;
        return SQE_OK;
    case PQ_THRIFT_I8:
        SQE_TRY(need(r, 1));
        r->pos++;
        return SQE_OK;
    case PQ_THRIFT_I16:
    case PQ_THRIFT_I32:
    case PQ_THRIFT_I64:
        return pq_thrift_read_varint(r, &v);
    case PQ_THRIFT_DOUBLE:
        SQE_TRY(need(r, 8));
        r->pos += 8;
        return SQE_OK;
    case PQ_THRIFT_BINARY:
        return pq_thrift_read_binary(r, &data, &len);
    case PQ_THRIFT_LIST:
    case PQ_THRIFT_SET:
    case PQ_THRIFT_MAP:
        return skip_container(r, type);
    case PQ_THRIFT_STRUCT: {
        SQE_TRY(pq_thrift_struct_begin(r));
        for (;;) {
            int ft;
            int16_t fid;
            int rc = pq_thrift_field_header(r, &ft, &fid);
            if (rc == SQE_OK && ft == PQ_THRIFT_STOP) break;
            if (rc == SQE_OK) rc = skip_value(r, ft, false);
            if (rc != SQE_OK) {
                pq_thrift_struct_end(r);
                return rc;
            }
        }
        pq_thrift_struct_end(r);
        return SQE_OK;
    }
    default:
        return pq_thrift_fail(r, "invalid type");
    }
}

int pq_thrift_skip(pq_thrift_reader *r, int type) { return skip_value(r, type, false); }

int pq_thrift_skip_elem(pq_thrift_reader *r, int type) { return skip_value(r, type, true); }
