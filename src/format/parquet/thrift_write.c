/*
 * thrift_write.c: the Thrift compact protocol writer (see thrift_write.h).
 *
 * INTERFACE
 *   pq_thrift_writer_init/reset/clear/status       buffer lifecycle and sticky failure
 *   pq_thrift_write_{varint,i8,i16,i32,i64,double,binary,string,bool_elem}   values
 *   pq_thrift_struct_open/close, pq_thrift_field   structs and field headers
 *   pq_thrift_write_*_field                        header + value helpers
 *   pq_thrift_list_begin, pq_thrift_list_field     list headers
 * NOTES
 *   Wire format (Thrift compact protocol spec): a field header is one byte (id delta << 4 |
 *   type) when the id is 1..15 above the previous one in the same struct, else the type byte
 *   followed by the zigzag-varint i16 id; bool fields carry the value in the type (1 true,
 *   2 false); a list header is (size << 4 | elem type) for sizes below 15, else 0xF0 | type and
 *   a varint size. Integers are zigzag varints, doubles 8 bytes little-endian.
 *   The buffer grows geometrically; the first failure is kept and everything after it is a
 *   no-op, so a caller checks pq_thrift_writer_status once per message.
 */
#include "format/parquet/thrift_write.h"

#include <stdlib.h>
#include <string.h>

void pq_thrift_writer_init(pq_thrift_writer *w) { memset(w, 0, sizeof(*w)); }

void pq_thrift_writer_reset(pq_thrift_writer *w) {
    free(w->buf);
    memset(w, 0, sizeof(*w));
}

void pq_thrift_writer_clear(pq_thrift_writer *w) {
    w->len = 0;
    w->depth = 0;
    w->last_fid[0] = 0;
    w->failed = 0;
}

int pq_thrift_writer_status(const pq_thrift_writer *w, sqe_error *err) {
    if (w->failed == SQE_ERR_OUT_OF_MEMORY) return err_nomem(err, "Parquet metadata");
    if (w->failed) return err_set(err, w->failed, "Parquet metadata encoder misuse");
    if (w->depth != 0)
        return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR,
                       "Parquet metadata encoder: %d struct(s) left open", w->depth);
    return SQE_OK;
}

/* Makes room for n more bytes; returns false (and fails w) on out-of-memory. */
static bool reserve(pq_thrift_writer *w, size_t n) {
    if (w->failed) return false;
    if (w->cap - w->len >= n) return true;
    size_t cap = w->cap ? w->cap : 256;
    while (cap - w->len < n) {
        if (cap > SIZE_MAX / 2) {
            w->failed = SQE_ERR_OUT_OF_MEMORY;
            return false;
        }
        cap *= 2;
    }
    uint8_t *p = realloc(w->buf, cap);
    if (!p) {
        w->failed = SQE_ERR_OUT_OF_MEMORY;
        return false;
    }
    w->buf = p;
    w->cap = cap;
    return true;
}

static void put_byte(pq_thrift_writer *w, uint8_t b) {
    if (!reserve(w, 1)) return;
    w->buf[w->len++] = b;
}

void pq_thrift_write_varint(pq_thrift_writer *w, uint64_t v) {
    if (!reserve(w, 10)) return;
    uint8_t *p = w->buf + w->len;
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    w->len = (size_t)(p - w->buf);
}

static uint64_t zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }

void pq_thrift_write_i8(pq_thrift_writer *w, int8_t v) { put_byte(w, (uint8_t)v); }
void pq_thrift_write_i16(pq_thrift_writer *w, int16_t v) { pq_thrift_write_varint(w, zigzag(v)); }
void pq_thrift_write_i32(pq_thrift_writer *w, int32_t v) { pq_thrift_write_varint(w, zigzag(v)); }
void pq_thrift_write_i64(pq_thrift_writer *w, int64_t v) { pq_thrift_write_varint(w, zigzag(v)); }

void pq_thrift_write_double(pq_thrift_writer *w, double v) {
    if (!reserve(w, 8)) return;
    uint64_t bits;
    memcpy(&bits, &v, 8);
    for (int i = 0; i < 8; i++) w->buf[w->len++] = (uint8_t)(bits >> (8 * i));
}

void pq_thrift_write_binary(pq_thrift_writer *w, const void *data, size_t len) {
    pq_thrift_write_varint(w, len);
    if (!len || !reserve(w, len)) return;
    memcpy(w->buf + w->len, data, len);
    w->len += len;
}

void pq_thrift_write_string(pq_thrift_writer *w, const char *s) {
    pq_thrift_write_binary(w, s, s ? strlen(s) : 0);
}

void pq_thrift_write_bool_elem(pq_thrift_writer *w, bool v) {
    put_byte(w, v ? PQ_THRIFT_BOOL_TRUE : PQ_THRIFT_BOOL_FALSE);
}

void pq_thrift_struct_open(pq_thrift_writer *w) {
    if (w->failed) return;
    if (w->depth >= PQ_THRIFT_MAX_DEPTH) {
        w->failed = SQE_ERR_GENERIC_INTERNAL_ERROR;
        return;
    }
    w->last_fid[++w->depth] = 0;
}

void pq_thrift_struct_close(pq_thrift_writer *w) {
    if (w->failed) return;
    if (w->depth <= 0) {
        w->failed = SQE_ERR_GENERIC_INTERNAL_ERROR;
        return;
    }
    put_byte(w, PQ_THRIFT_STOP);
    w->depth--;
}

void pq_thrift_field(pq_thrift_writer *w, int type, int16_t id) {
    if (w->failed) return;
    int16_t *last = &w->last_fid[w->depth];
    int delta = (int)id - (int)*last;
    if (delta > 0 && delta <= 15) {
        put_byte(w, (uint8_t)((delta << 4) | (type & 0x0f)));
    } else {
        put_byte(w, (uint8_t)(type & 0x0f));
        pq_thrift_write_i16(w, id);
    }
    *last = id;
}

void pq_thrift_write_bool_field(pq_thrift_writer *w, int16_t id, bool v) {
    pq_thrift_field(w, v ? PQ_THRIFT_BOOL_TRUE : PQ_THRIFT_BOOL_FALSE, id);
}

void pq_thrift_write_i8_field(pq_thrift_writer *w, int16_t id, int8_t v) {
    pq_thrift_field(w, PQ_THRIFT_I8, id);
    pq_thrift_write_i8(w, v);
}

void pq_thrift_write_i32_field(pq_thrift_writer *w, int16_t id, int32_t v) {
    pq_thrift_field(w, PQ_THRIFT_I32, id);
    pq_thrift_write_i32(w, v);
}

void pq_thrift_write_i64_field(pq_thrift_writer *w, int16_t id, int64_t v) {
    pq_thrift_field(w, PQ_THRIFT_I64, id);
    pq_thrift_write_i64(w, v);
}

void pq_thrift_write_binary_field(pq_thrift_writer *w, int16_t id, const void *data, size_t len) {
    pq_thrift_field(w, PQ_THRIFT_BINARY, id);
    pq_thrift_write_binary(w, data, len);
}

void pq_thrift_write_string_field(pq_thrift_writer *w, int16_t id, const char *s) {
    pq_thrift_field(w, PQ_THRIFT_BINARY, id);
    pq_thrift_write_string(w, s);
}

void pq_thrift_write_empty_struct_field(pq_thrift_writer *w, int16_t id) {
    pq_thrift_field(w, PQ_THRIFT_STRUCT, id);
    pq_thrift_struct_open(w);
    pq_thrift_struct_close(w);
}

void pq_thrift_list_begin(pq_thrift_writer *w, int elem_type, uint32_t count) {
    if (count < 15) {
        put_byte(w, (uint8_t)((count << 4) | (uint32_t)(elem_type & 0x0f)));
    } else {
        put_byte(w, (uint8_t)(0xf0 | (elem_type & 0x0f)));
        pq_thrift_write_varint(w, count);
    }
}

void pq_thrift_list_field(pq_thrift_writer *w, int16_t id, int elem_type, uint32_t count) {
    pq_thrift_field(w, PQ_THRIFT_LIST, id);
    pq_thrift_list_begin(w, elem_type, count);
}
