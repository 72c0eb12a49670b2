/*
 * thrift.h: a bounded reader of the Thrift compact protocol, the encoding of every Parquet
 * metadata structure (parquet.thrift: FileMetaData, PageHeader, ...).
 *
 * The reader walks a caller-owned byte range and never reads outside it. Every length, count and
 * nesting level is treated as hostile: violations set SQE_ERR_INVALID_FILE ("Invalid Parquet
 * metadata: ...") and make the reader fail sticky, so callers may check once per struct.
 */
#ifndef SQE_FORMAT_PARQUET_THRIFT_H
#define SQE_FORMAT_PARQUET_THRIFT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

/* Compact protocol wire types (Thrift compact protocol spec). */
enum {
    PQ_THRIFT_STOP = 0,
    PQ_THRIFT_BOOL_TRUE = 1,
    PQ_THRIFT_BOOL_FALSE = 2,
    PQ_THRIFT_I8 = 3,
    PQ_THRIFT_I16 = 4,
    PQ_THRIFT_I32 = 5,
    PQ_THRIFT_I64 = 6,
    PQ_THRIFT_DOUBLE = 7,
    PQ_THRIFT_BINARY = 8,
    PQ_THRIFT_LIST = 9,
    PQ_THRIFT_SET = 10,
    PQ_THRIFT_MAP = 11,
    PQ_THRIFT_STRUCT = 12,
};

#define PQ_THRIFT_MAX_DEPTH 64              /* struct/list/map nesting limit */
#define PQ_THRIFT_MAX_ELEMS (1u << 26)      /* list/set/map element limit */

/* A reader over buf[0, len). Caller-owned storage; holds no allocations. */
typedef struct pq_thrift_reader {
    const uint8_t *buf;     /* input, not owned */
    size_t len;             /* bytes in buf */
    size_t pos;             /* next byte to read */
    int depth;              /* current struct nesting (index into last_fid) */
    int16_t last_fid[PQ_THRIFT_MAX_DEPTH + 1]; /* previous field id per open struct */
    sqe_error *err;         /* where errors go; may be NULL */
    int failed;             /* sticky: an error was reported */
} pq_thrift_reader;

/* Initializes r over buf[0, len); errors are reported into err (may be NULL). */
void pq_thrift_init(pq_thrift_reader *r, const uint8_t *buf, size_t len, sqe_error *err);

/* Reports an INVALID_FILE error ("Invalid Parquet metadata: <msg>") once, marks r failed and
 * returns SQE_ERR_INVALID_FILE. Later calls keep the first message. */
int pq_thrift_fail(pq_thrift_reader *r, const char *msg);

/* Bytes not yet read. */
static inline size_t pq_thrift_remaining(const pq_thrift_reader *r) { return r->len - r->pos; }

/* Primitive readers. Each returns SQE_OK and stores *out, or an error (r fails, *out is 0). */
int pq_thrift_read_varint(pq_thrift_reader *r, uint64_t *out);  /* ULEB128, at most 10 bytes */
int pq_thrift_read_i8(pq_thrift_reader *r, int8_t *out);
int pq_thrift_read_i16(pq_thrift_reader *r, int16_t *out);       /* zigzag varint, range-checked */
int pq_thrift_read_i32(pq_thrift_reader *r, int32_t *out);       /* zigzag varint, range-checked */
int pq_thrift_read_i64(pq_thrift_reader *r, int64_t *out);       /* zigzag varint */
int pq_thrift_read_double(pq_thrift_reader *r, double *out);     /* 8 bytes little-endian */
/* Binary/string: *data points into the input buffer (not copied), *len its length (checked
 * against the remaining bytes). */
int pq_thrift_read_binary(pq_thrift_reader *r, const uint8_t **data, size_t *len);
/* A bool list element (one byte; 1 is true, as written by the reference implementations). */
int pq_thrift_read_bool_elem(pq_thrift_reader *r, bool *out);

/* Structs: struct_begin opens a nesting level (fails past PQ_THRIFT_MAX_DEPTH); field_header
 * reads the next field, storing its wire type (PQ_THRIFT_STOP at the end of the struct) and
 * id (short-form delta or long form). For bool fields the value is in the type
 * (PQ_THRIFT_BOOL_TRUE / _FALSE), see pq_thrift_field_bool. struct_end closes the level after
 * the STOP has been read. */
int pq_thrift_struct_begin(pq_thrift_reader *r);
int pq_thrift_field_header(pq_thrift_reader *r, int *type, int16_t *field_id);
void pq_thrift_struct_end(pq_thrift_reader *r);
static inline bool pq_thrift_field_bool(int type) { return type == PQ_THRIFT_BOOL_TRUE; }

/* List/set header: element type and count (short form, or long form with a varint size). The
 * count is checked against PQ_THRIFT_MAX_ELEMS and the remaining bytes (every element takes at
 * least one byte). The caller reads exactly *count elements. */
int pq_thrift_list_header(pq_thrift_reader *r, int *elem_type, uint32_t *count);
/* Map header: entry count, and key/value types when the count is non-zero (else 0). */
int pq_thrift_map_header(pq_thrift_reader *r, uint32_t *count, int *key_type, int *val_type);

/* Skips one value of wire type `type` (a field's value or a list element), recursing into
 * structs, lists, sets and maps within the depth limit. Used for unknown fields, so files written
 * by newer Parquet versions stay readable. Bool field values (type in the header) skip nothing. */
int pq_thrift_skip(pq_thrift_reader *r, int type);
/* Skips a list element of `type` (bools take one byte as list elements). */
int pq_thrift_skip_elem(pq_thrift_reader *r, int type);

#endif
