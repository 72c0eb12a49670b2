/*
 * arrow_ipc.h: Arrow IPC (columnar format version 1.x, metadata V5) encoding and decoding of SQE
 * vectors, without an Arrow library. Used by Flight SQL (DoGet results, GetSchema, DoPut
 * parameters and ingest) and by tests that exchange files with pyarrow.
 *
 * Three layers:
 *   schema   arrow_schema (SQE column names/types/nullability/metadata) <-> Schema message
 *   batch    vec_chunk rows <-> RecordBatch message: a FlatBuffer header plus a body of
 *            8-byte aligned buffers (Flight carries them as FlightData.data_header/data_body)
 *   stream   encapsulated messages (0xFFFFFFFF, int32 metadata length, header, padding, body)
 *            in the IPC streaming format: schema, batches, end-of-stream marker
 * Type mapping: see README.md in this folder. Dictionary batches, compression, unions and view
 * types are not produced; the decoder rejects them with NOT_SUPPORTED.
 *
 * Errors: SQE_OK or a code from errcodes.def (INVALID_FILE for malformed input, NOT_SUPPORTED for
 * valid Arrow this module does not map, OUT_OF_MEMORY / EXCEEDED_MEMORY_LIMIT). Decoding is
 * bounds-checked everywhere and safe on hostile input. All functions are reentrant.
 */
#ifndef SQE_FORMAT_ARROW_ARROW_IPC_H
#define SQE_FORMAT_ARROW_ARROW_IPC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/arena.h"
#include "sqe/sqe.h"
#include "types/types.h"
#include "vec/vec.h"

/* Message header types (Message.fbs union MessageHeader). */
enum {
    ARROW_MSG_NONE = 0,
    ARROW_MSG_SCHEMA = 1,
    ARROW_MSG_DICTIONARY_BATCH = 2,
    ARROW_MSG_RECORD_BATCH = 3,
};

/* Most rows one decoded RecordBatch may have (larger batches are rejected as NOT_SUPPORTED). */
#define ARROW_IPC_MAX_ROWS (1u << 26)

/* ---- Byte buffer ---------------------------------------------------------------------------- */

/* A growable byte buffer (malloc), used for message headers, bodies and whole streams. */
typedef struct arrow_buf {
    uint8_t *data;
    size_t len;
    size_t cap;
} arrow_buf;

void arrow_buf_init(arrow_buf *b);
/* Frees the bytes; b may be reused after arrow_buf_init. */
void arrow_buf_reset(arrow_buf *b);
/* Appends len bytes (data may be NULL: zeros). Returns SQE_OK or OUT_OF_MEMORY (b unchanged). */
int arrow_buf_append(arrow_buf *b, const void *data, size_t len, sqe_error *err);

/* ---- Schemas -------------------------------------------------------------------------------- */

typedef struct arrow_kv {
    const char *key;
    const char *value;
} arrow_kv;

typedef struct arrow_column {
    const char *name;
    sqe_type type;
    bool nullable;
    uint32_t n_meta;          /* field custom_metadata (e.g. ARROW:FLIGHT:SQL:TABLE_NAME) */
    const arrow_kv *meta;
} arrow_column;

/* The decoder's description of the Arrow physical layout of one field (private to this folder;
 * NULL in schemas made by callers). */
typedef struct arrow_src_field arrow_src_field;

typedef struct arrow_schema {
    uint32_t n_cols;
    const arrow_column *cols;
    uint32_t n_meta;          /* schema custom_metadata */
    const arrow_kv *meta;
    const arrow_src_field *src; /* decoded schemas only: n_cols entries */
} arrow_schema;

/* Encodes schema as a Schema Message FlatBuffer into *header (appended; header may be non-empty).
 * Column types map as in README.md; nested children get Arrow's conventional names ("item",
 * "entries"/"key"/"value") and ROW field names (anonymous fields become ""). On error *header
 * keeps its old length. */
int arrow_schema_encode(const arrow_schema *schema, arrow_buf *header, sqe_error *err);

/* Decodes a Schema Message FlatBuffer (header[0, len), no continuation prefix). Everything in
 * *out (names, metadata, columns, layout) is allocated in arena a and lives as long as it.
 * Unsupported Arrow types fail with NOT_SUPPORTED naming the field. */
int arrow_schema_decode(const uint8_t *header, size_t len, arena *a, arrow_schema *out,
                        sqe_error *err);

/* ---- Record batches ------------------------------------------------------------------------- */

/* Encodes rows [row_start, row_start + n_rows) of chunk (columns of any shape: flat, const,
 * dict; nested to any depth) as a RecordBatch Message: the FlatBuffer goes to *header and the
 * body (8-byte aligned buffers, validity bitmaps only for columns with NULLs) to *body; both
 * are appended to (the body's buffer offsets are relative to its length on entry, which must
 * be a multiple of 8). The column types of the chunk must match the schema the client received.
 * On error both buffers keep their old lengths. */
int arrow_batch_encode(const vec_chunk *chunk, uint32_t row_start, uint32_t n_rows,
                       arrow_buf *header, arrow_buf *body, sqe_error *err);

/* Decodes a RecordBatch Message (header FlatBuffer + body) written for `schema` (which must come
 * from arrow_schema_decode). On success *out is a new chunk (caller calls vec_chunk_destroy)
 * with one flat column per schema column, count = the batch length, strings copied into the
 * vectors' heaps (nothing points into body afterwards); memory is charged to tracker (may be
 * NULL). On error *out is zeroed (nothing to free). */
int arrow_batch_decode(const arrow_schema *schema, const uint8_t *header, size_t header_len,
                       const uint8_t *body, size_t body_len, mem_tracker *tracker,
                       vec_chunk *out, sqe_error *err);

/* Reads the header type (ARROW_MSG_*) and declared body length of a Message FlatBuffer. */
int arrow_message_peek(const uint8_t *header, size_t len, int *msg_type, int64_t *body_len,
                       sqe_error *err);

/* ---- Encapsulated messages and streams ------------------------------------------------------ */

/* Appends the encapsulated form of one message to *out: 0xFFFFFFFF, int32 metadata length
 * (header padded to 8 bytes), header, padding, body (len must be a multiple of 8; may be 0).
 * This is also the form of FlightInfo.schema (a Schema message with no body). */
int arrow_message_frame(const uint8_t *header, size_t header_len, const uint8_t *body,
                        size_t body_len, arrow_buf *out, sqe_error *err);

/* Splits the encapsulated message at buf[0, len): sets header/body spans (borrowed from buf) and
 * *consumed. Accepts the pre-0.15 form without continuation marker. An end-of-stream marker (or
 * len == 0) returns SQE_OK with *header == NULL. */
int arrow_message_unframe(const uint8_t *buf, size_t len, const uint8_t **header,
                          size_t *header_len, const uint8_t **body, size_t *body_len,
                          size_t *consumed, sqe_error *err);

/* IPC stream writer helpers: append the schema message, a batch, or the end-of-stream marker
 * (0xFFFFFFFF 0x00000000) to *out. */
int arrow_stream_write_schema(arrow_buf *out, const arrow_schema *schema, sqe_error *err);
int arrow_stream_write_batch(arrow_buf *out, const vec_chunk *chunk, uint32_t row_start,
                             uint32_t n_rows, sqe_error *err);
int arrow_stream_write_eos(arrow_buf *out, sqe_error *err);

/* IPC stream reader over a complete stream in memory (borrowed; must outlive the reader). */
typedef struct arrow_stream_reader {
    const uint8_t *buf;
    size_t len;
    size_t pos;
    arena arena;          /* holds the schema */
    arrow_schema schema;  /* valid after a successful open */
    mem_tracker *tracker;
} arrow_stream_reader;

/* Reads the Schema message. On error the reader is closed (safe to call _close again). */
int arrow_stream_reader_open(arrow_stream_reader *r, const uint8_t *buf, size_t len,
                             mem_tracker *tracker, sqe_error *err);
/* Decodes the next record batch into *out (a new chunk; caller destroys it); at the end of the
 * stream sets *eos = true and leaves *out zeroed. Dictionary batches fail with NOT_SUPPORTED. */
int arrow_stream_reader_next(arrow_stream_reader *r, vec_chunk *out, bool *eos, sqe_error *err);
void arrow_stream_reader_close(arrow_stream_reader *r);

#endif
