/*
 * thrift_write.h: a writer of the Thrift compact protocol into a growable buffer, the encoding
 * of every Parquet metadata structure (parquet.thrift: FileMetaData, PageHeader, ColumnIndex,
 * OffsetIndex). The counterpart of thrift.h (the reader).
 *
 * The writer appends to a heap buffer it owns. Out-of-memory and misuse (struct nesting beyond
 * PQ_THRIFT_MAX_DEPTH, unbalanced struct_end) make it fail sticky: later calls do nothing, and
 * pq_thrift_writer_status reports the failure once the caller is done, so encoders need not
 * check every call.
 *
 * Typical use:
 *   pq_thrift_writer w;  pq_thrift_writer_init(&w);
 *   pq_thrift_struct_open(&w);
 *   pq_thrift_write_i32_field(&w, 1, value);
 *   pq_thrift_struct_close(&w);
 *   if (pq_thrift_writer_status(&w, err)) ...;   bytes are w.buf[0, w.len)
 *   pq_thrift_writer_reset(&w);
 */
#ifndef SQE_FORMAT_PARQUET_THRIFT_WRITE_H
#define SQE_FORMAT_PARQUET_THRIFT_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "format/parquet/thrift.h" /* wire type constants, PQ_THRIFT_MAX_DEPTH */

/* A writer. Caller-owned storage; owns buf (freed by pq_thrift_writer_reset). */
typedef struct pq_thrift_writer {
    uint8_t *buf;           /* encoded bytes [0, len) */
    size_t len;
    size_t cap;
    int depth;              /* open structs */
    int16_t last_fid[PQ_THRIFT_MAX_DEPTH + 1]; /* previous field id per open struct */
    int failed;             /* sticky: 0, SQE_ERR_OUT_OF_MEMORY or SQE_ERR_GENERIC_INTERNAL_ERROR */
} pq_thrift_writer;

/* Initializes an empty writer (no allocation yet). */
void pq_thrift_writer_init(pq_thrift_writer *w);
/* Frees the buffer; w may be initialized again. */
void pq_thrift_writer_reset(pq_thrift_writer *w);
/* Empties the writer for the next message, keeping its buffer; clears a failure. */
void pq_thrift_writer_clear(pq_thrift_writer *w);
/* SQE_OK, or the sticky failure reported into err (OUT_OF_MEMORY, or GENERIC_INTERNAL_ERROR for
 * unbalanced structs or excessive nesting). Also fails if a struct is still open. */
int pq_thrift_writer_status(const pq_thrift_writer *w, sqe_error *err);

/* ---- values (list elements, or the value after a field header) ---------------------------- */
void pq_thrift_write_varint(pq_thrift_writer *w, uint64_t v); /* ULEB128 */
void pq_thrift_write_i8(pq_thrift_writer *w, int8_t v);       /* one byte */
void pq_thrift_write_i16(pq_thrift_writer *w, int16_t v);     /* zigzag varint */
void pq_thrift_write_i32(pq_thrift_writer *w, int32_t v);     /* zigzag varint */
void pq_thrift_write_i64(pq_thrift_writer *w, int64_t v);     /* zigzag varint */
void pq_thrift_write_double(pq_thrift_writer *w, double v);   /* 8 bytes little-endian */
void pq_thrift_write_binary(pq_thrift_writer *w, const void *data, size_t len); /* varint len */
void pq_thrift_write_string(pq_thrift_writer *w, const char *s); /* NUL-terminated */
void pq_thrift_write_bool_elem(pq_thrift_writer *w, bool v);  /* list element: 1 or 2 */

/* ---- structs and fields ------------------------------------------------------------------- */
/* Opens a struct (as a field value, list element or the top-level message). */
void pq_thrift_struct_open(pq_thrift_writer *w);
/* Writes the STOP byte and closes the innermost struct. */
void pq_thrift_struct_close(pq_thrift_writer *w);
/* A field header of wire type `type` (not for bools, see pq_thrift_write_bool_field); ids must
 * increase within a struct for the short form, any order works (long form). */
void pq_thrift_field(pq_thrift_writer *w, int type, int16_t id);

/* Field helpers: header plus value. */
void pq_thrift_write_bool_field(pq_thrift_writer *w, int16_t id, bool v);
void pq_thrift_write_i8_field(pq_thrift_writer *w, int16_t id, int8_t v);
void pq_thrift_write_i32_field(pq_thrift_writer *w, int16_t id, int32_t v);
void pq_thrift_write_i64_field(pq_thrift_writer *w, int16_t id, int64_t v);
void pq_thrift_write_binary_field(pq_thrift_writer *w, int16_t id, const void *data, size_t len);
void pq_thrift_write_string_field(pq_thrift_writer *w, int16_t id, const char *s);
/* A field holding an empty struct (parameterless union members such as StringType). */
void pq_thrift_write_empty_struct_field(pq_thrift_writer *w, int16_t id);

/* List header: element wire type and count (short form below 15). The caller writes exactly
 * count elements afterwards. */
void pq_thrift_list_begin(pq_thrift_writer *w, int elem_type, uint32_t count);
/* Field header of type LIST followed by the list header. */
void pq_thrift_list_field(pq_thrift_writer *w, int16_t id, int elem_type, uint32_t count);

#endif
