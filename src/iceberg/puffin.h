/*
 * puffin.h: Puffin files (Iceberg's container for statistics and deletion vectors) read and
 * written, and the "deletion-vector-v1" blob.
 *
 * Spec: apache/iceberg format/puffin-spec.md: "File structure" (Magic Blob* Footer), "Footer
 * structure" (Magic FooterPayload FooterPayloadSize Flags Magic; magic "PFA1"; flag bit 0 =
 * payload LZ4-compressed), "FileMetadata" / "BlobMetadata" (footer JSON), "Compression codecs"
 * (lz4: one LZ4 frame with content size; zstd: one Zstandard frame with content size), blob
 * type "deletion-vector-v1" (4-byte big-endian length of magic + vector, magic D1 D3 39 64,
 * the 64-bit portable Roaring bitmap, big-endian CRC-32 of magic + vector).
 *
 * Reading goes through io_file byte ranges (only the footer and the blobs asked for are read).
 * Footer objects live in the caller's arena. Blob bytes are malloc'ed (they can be large and
 * are usually dropped right after decoding).
 *
 * Errors: INVALID_FILE "Invalid Puffin file <path>: ..." for anything malformed (magic, sizes,
 * flags, JSON, blob ranges, decompression), INVALID_FILE "Invalid deletion vector ..." for bad
 * DV blobs (length, magic, CRC, Roaring content, positions >= 2^63), NOT_SUPPORTED for unknown
 * compression codecs or footer flags, IO errors of io.h, OUT_OF_MEMORY. No global state;
 * thread-safe as long as arenas are not shared.
 */
#ifndef SQE_ICEBERG_PUFFIN_H
#define SQE_ICEBERG_PUFFIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/arena.h"
#include "common/err.h"
#include "iceberg/metadata.h"
#include "iceberg/roaring.h"
#include "io/io.h"

#define ICE_PUFFIN_MAGIC "PFA1"
#define ICE_PUFFIN_DV_TYPE "deletion-vector-v1"
/* Iceberg's reserved field id of the row position (_pos), which DV blobs list in "fields". */
#define ICE_FIELD_ID_POS 2147483545
/* Reserved field id of a position delete's file_path. */
#define ICE_FIELD_ID_FILE_PATH 2147483546
/* Largest decompressed footer / blob accepted (hostile sizes fail before allocating). */
#define ICE_PUFFIN_MAX_FOOTER (64u << 20)
#define ICE_PUFFIN_MAX_BLOB ((size_t)1 << 30)

/* BlobMetadata. */
typedef struct ice_puffin_blob {
    const char *type;
    uint32_t n_fields;
    int32_t *fields;
    int64_t snapshot_id;
    int64_t sequence_number;
    int64_t offset;
    int64_t length;
    const char *compression_codec; /* NULL when absent (uncompressed) */
    ice_kv_list properties;
} ice_puffin_blob;

/* FileMetadata. */
typedef struct ice_puffin_footer {
    uint32_t n_blobs;
    ice_puffin_blob *blobs;
    ice_kv_list properties;
    uint64_t footer_start; /* file offset of the footer's first magic (blobs end before it) */
} ice_puffin_footer;

/*
 * Reads and checks the footer of the Puffin file f: both footer magics and the leading magic,
 * payload size against the file, flags (only bit 0 known), LZ4 payload decompression, JSON
 * shape (blobs required; every required blob field present with its JSON type), and every
 * blob's [offset, offset + length) inside the blob area [4, footer_start). On success *out
 * lives in a. On error *out is untouched (a may hold partial allocations).
 */
int ice_puffin_footer_read(arena *a, io_file *f, ice_puffin_footer **out, sqe_error *err);

/*
 * Reads blob b of f and decompresses it (lz4 or zstd per b->compression_codec). On success
 * *data (malloc'ed; free with free(); non-NULL even when empty) and *len hold the bytes. On
 * error *data is NULL.
 */
int ice_puffin_blob_read(io_file *f, const ice_puffin_blob *b, uint8_t **data, size_t *len,
                         sqe_error *err);

/* ---- writing ------------------------------------------------------------------------------- */

/* Builds a Puffin file in memory: blobs are appended as they come; finish adds the footer. */
typedef struct ice_puffin_writer {
    uint8_t *buf;
    size_t len, cap;
    void *blobs_json; /* private: the footer's "blobs" array (jansson) */
} ice_puffin_writer;

/* Makes w an empty writer (the leading magic is written on the first add or at finish). */
void ice_puffin_writer_init(ice_puffin_writer *w);
/* Frees w's memory (safe after finish and after errors). */
void ice_puffin_writer_reset(ice_puffin_writer *w);

/*
 * Appends a blob: type, the field ids it covers, snapshot id and sequence number (-1 when
 * unknown, as for DVs), codec NULL / "lz4" / "zstd" (data compressed here), properties (may be
 * NULL; keys and values copied). *offset and *length (may be NULL) receive where the stored
 * bytes went. Errors: NOT_SUPPORTED for another codec, INVALID_ARGUMENTS for sizes beyond the
 * format, OUT_OF_MEMORY; w is unchanged then.
 */
int ice_puffin_writer_add(ice_puffin_writer *w, const char *type, const int32_t *fields,
                          uint32_t n_fields, int64_t snapshot_id, int64_t sequence_number,
                          const char *codec, const ice_kv_list *properties, const uint8_t *data,
                          size_t len, int64_t *offset, int64_t *length, sqe_error *err);

/*
 * Writes the footer (file properties may be NULL; "created-by" is added when absent;
 * compress_footer selects an LZ4 frame payload) and hands over the file: *bytes (malloc'ed)
 * and *len. w is empty afterwards (reusable after ice_puffin_writer_init). On error *bytes is
 * NULL and w must be reset.
 */
int ice_puffin_writer_finish(ice_puffin_writer *w, const ice_kv_list *properties,
                             bool compress_footer, uint8_t **bytes, size_t *len, sqe_error *err);

/* ---- deletion-vector-v1 -------------------------------------------------------------------- */

/* Encodes positions as a deletion-vector-v1 blob into *out (malloc'ed) / *len. Errors:
 * INVALID_ARGUMENTS when a position is >= 2^63, OUT_OF_MEMORY; *out NULL then. */
int ice_dv_encode(const ice_roaring *positions, uint8_t **out, size_t *len, sqe_error *err);

/* Decodes a deletion-vector-v1 blob p[0..len) into out (which must be empty): length prefix
 * equal to len - 8, magic, CRC-32, Roaring content using every byte, no position >= 2^63.
 * what (may be NULL) names the blob in messages (e.g. the Puffin path). Errors: INVALID_FILE
 * "Invalid deletion vector <what>: ...", OUT_OF_MEMORY; out is empty then. */
int ice_dv_decode(const uint8_t *p, size_t len, const char *what, ice_roaring *out,
                  sqe_error *err);

/* Reads the DV blob at [offset, offset + size) of f (a manifest's content_offset and
 * content_size_in_bytes) and decodes it into out (empty). Range outside the file:
 * INVALID_FILE. Other errors as ice_dv_decode and io_read. */
int ice_dv_read(io_file *f, int64_t offset, int64_t size, ice_roaring *out, sqe_error *err);

#endif
