/*
 * pq_encode.h: the value-level half of the Parquet writer: a growable byte buffer, the
 * RLE/bit-packed hybrid encoder (levels, dictionary indices), PLAIN boolean packing, the
 * dictionary builder (open-addressing hash table, PLAIN dictionary page, byte limit), page
 * compression with reusable codec contexts, split-block bloom filters, and statistics kernels
 * (min/max in each column order, truncation of byte-array bounds).
 *
 * Spec: apache/parquet-format Encodings.md (PLAIN, RLE, RLE_DICTIONARY), Compression.md,
 * BloomFilter.md, parquet.thrift (Statistics, ColumnOrder sort orders). Everything here is
 * single-threaded per object; the writer gives each worker thread its own scratch objects.
 *
 * Errors: OUT_OF_MEMORY / EXCEEDED_MEMORY_LIMIT from allocation (buffers are charged to an
 * optional mem_tracker), NOT_SUPPORTED / INVALID_ARGUMENTS for codecs and levels,
 * GENERIC_INTERNAL_ERROR when a compression library fails.
 */
#ifndef SQE_FORMAT_PARQUET_PQ_ENCODE_H
#define SQE_FORMAT_PARQUET_PQ_ENCODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "common/mem.h"
#include "format/parquet/pq_encoding.h" /* pq_bytes */

/* ---- growable byte buffer ------------------------------------------------------------------ */

/* Caller-owned storage; owns data (allocated through tracker, which may be NULL). */
typedef struct pq_buf {
    uint8_t *data;
    size_t len;
    size_t cap;
    mem_tracker *tracker;
} pq_buf;

void pq_buf_init(pq_buf *b, mem_tracker *tracker);
/* Frees the storage; b is empty and may be reused. */
void pq_buf_reset(pq_buf *b);
static inline void pq_buf_clear(pq_buf *b) { b->len = 0; }
/* Ensures room for `extra` more bytes after len (grows geometrically). On error b is unchanged. */
int pq_buf_reserve(pq_buf *b, size_t extra, sqe_error *err);
/* Appends n bytes. */
int pq_buf_append(pq_buf *b, const void *p, size_t n, sqe_error *err);
/* Appends a little-endian uint32. */
int pq_buf_append_u32(pq_buf *b, uint32_t v, sqe_error *err);

/* ---- RLE / bit-packed hybrid (Encodings.md "Run Length Encoding / Bit-Packing Hybrid") ----- */

/* Upper bound of the bytes pq_rle_encode_* appends for n values of bit_width. */
size_t pq_rle_max_size(size_t n, int bit_width);
/* Appends the hybrid encoding of v[0, n) (no length prefix). Runs of 8 or more equal values
 * become RLE runs, everything else bit-packed runs of up to 63 groups of 8 (the last group is
 * zero-padded). Every value must fit in bit_width (0..32) bits; with bit_width 0 all values
 * must be 0. The _u8 variant serves definition/repetition levels, _u32 dictionary indices. */
int pq_rle_encode_u8(const uint8_t *v, size_t n, int bit_width, pq_buf *out, sqe_error *err);
int pq_rle_encode_u32(const uint32_t *v, size_t n, int bit_width, pq_buf *out, sqe_error *err);
/* Bits needed for values 0..max_value (0 for 0). */
int pq_bit_width(uint32_t max_value);

/* ---- PLAIN --------------------------------------------------------------------------------- */

/* PLAIN BOOLEAN: packs v[0, n) (0/1 bytes) LSB-first into ceil(n / 8) bytes appended to out. */
int pq_plain_encode_bool(const uint8_t *v, size_t n, pq_buf *out, sqe_error *err);
/* PLAIN BYTE_ARRAY: appends each value as a 4-byte little-endian length and its bytes. Values
 * are given as lengths lens[0, n) and their bytes back to back at data. */
int pq_plain_encode_bytes(const uint32_t *lens, const uint8_t *data, size_t n, pq_buf *out,
                          sqe_error *err);

/* ---- dictionary builder --------------------------------------------------------------------- */

/* A dictionary of distinct values in first-seen order. Fixed-width values (width 1..16 bytes,
 * compared bytewise, so -0.0/+0.0 and NaN payloads stay distinct) or byte arrays (width 0).
 * `plain` holds the PLAIN encoding of the entries, which is the dictionary page body. */
typedef struct pq_dict {
    uint32_t width;         /* bytes per value; 0 = byte arrays */
    uint64_t *slots;        /* 0 = empty, else hash high 32 bits << 32 | (index + 1) */
    uint32_t mask;          /* slot count - 1 (a power of two) */
    uint32_t n;             /* entries */
    size_t limit;           /* plain.len may not exceed this */
    pq_buf plain;           /* PLAIN-encoded entries */
    uint32_t *offsets;      /* byte arrays: offset of entry i's bytes (past its length) */
    uint32_t offsets_cap;
    mem_tracker *tracker;
} pq_dict;

/* Initializes an empty dictionary (allocates on first insert). byte_limit bounds the PLAIN size
 * of the dictionary page. */
void pq_dict_init(pq_dict *d, uint32_t width, size_t byte_limit, mem_tracker *tracker);
/* Frees everything. */
void pq_dict_reset(pq_dict *d);
/* Empties the dictionary and sets a new width and limit, keeping its memory. */
void pq_dict_clear(pq_dict *d, uint32_t width, size_t byte_limit);
/* Inserts fixed-width values vals[0, n) (n * width bytes) and stores each value's index in
 * idx[0, n). Stops before the first new value that would make the PLAIN size exceed the limit;
 * *done is the number of values processed (n when everything fit). Errors: allocation only. */
int pq_dict_insert_fixed(pq_dict *d, const uint8_t *vals, size_t n, uint32_t *idx, size_t *done,
                         sqe_error *err);
/* Same for byte arrays given as lengths lens[0, n) and bytes back to back at data. */
int pq_dict_insert_bytes(pq_dict *d, const uint32_t *lens, const uint8_t *data, size_t n,
                         uint32_t *idx, size_t *done, sqe_error *err);

/* ---- page compression ----------------------------------------------------------------------- */

/* A compressor for one codec, reusing its library context across pages. */
typedef struct pq_compressor {
    int codec;              /* pq_codec */
    int level;              /* effective level */
    void *zstd;             /* ZSTD_CCtx */
    void *zlib;             /* z_stream (gzip) */
    void *lz4;              /* LZ4 state */
} pq_compressor;

/* Checks codec (UNCOMPRESSED, SNAPPY, GZIP, BROTLI, ZSTD, LZ4_RAW) and level (0 = default: GZIP
 * 6, ZSTD 3, BROTLI 8; GZIP 1..9, ZSTD the library's range without 0, BROTLI 0..11; ignored by
 * the others) without allocating. NOT_SUPPORTED for LZO and the deprecated LZ4, INVALID_ARGUMENTS
 * for a bad level. */
int pq_compressor_check(int codec, int level, sqe_error *err);
/* Initializes c (contexts are created lazily). Errors as pq_compressor_check. */
int pq_compressor_init(pq_compressor *c, int codec, int level, sqe_error *err);
void pq_compressor_reset(pq_compressor *c);
/* Compresses in[0, n) and appends the result to out (UNCOMPRESSED copies). */
int pq_compressor_run(pq_compressor *c, const uint8_t *in, size_t n, pq_buf *out, sqe_error *err);

/* ---- split-block bloom filters (BloomFilter.md) --------------------------------------------- */

/* Bitset size in bytes for ndv distinct values at false-positive probability fpp: the spec's
 * optimal bit count rounded up to a power of two, at least 32 bytes and at most 128 MiB. */
uint32_t pq_sbbf_bytes(uint64_t ndv, double fpp);
/* Inserts a hash (XXH64, seed 0, of the value's PLAIN encoding without a length prefix) into a
 * bitset of n_bytes (a multiple of 32). */
void pq_sbbf_insert(uint8_t *bitset, uint32_t n_bytes, uint64_t hash);
/* True when the hash may have been inserted. */
bool pq_sbbf_check(const uint8_t *bitset, uint32_t n_bytes, uint64_t hash);
/* XXH64 with seed 0, the hash of Parquet bloom filters. */
uint64_t pq_sbbf_hash(const void *data, size_t len);

/* ---- statistics kernels (parquet.thrift ColumnOrder: TypeDefinedOrder) ---------------------- */

/* Signed min/max of n >= 1 values. */
void pq_minmax_i32(const int32_t *v, size_t n, int32_t *min, int32_t *max);
void pq_minmax_i64(const int64_t *v, size_t n, int64_t *min, int64_t *max);
/* Floating point: NaNs are skipped; returns false when every value is NaN. A zero min is
 * returned as -0.0 and a zero max as +0.0 (parquet.thrift ColumnOrder writing rules). */
bool pq_minmax_f32(const float *v, size_t n, float *min, float *max);
bool pq_minmax_f64(const double *v, size_t n, double *min, double *max);
/* Booleans (0/1 bytes): false < true. */
void pq_minmax_bool(const uint8_t *v, size_t n, uint8_t *min, uint8_t *max);
/* Byte arrays in the lens/data layout, unsigned lexicographic order; min/max point into data. */
void pq_minmax_bytes(const uint32_t *lens, const uint8_t *data, size_t n, pq_bytes *min,
                     pq_bytes *max);
/* Fixed-length byte arrays of width bytes: unsigned lexicographic, or signed big-endian two's
 * complement (decimals) when is_signed. min/max point into v. */
void pq_minmax_flba(const uint8_t *v, size_t n, uint32_t width, bool is_signed,
                    const uint8_t **min, const uint8_t **max);
/* Compares two fixed-length big-endian two's complement integers of width bytes. */
int pq_compare_be_signed(const uint8_t *a, const uint8_t *b, uint32_t width);
/* Unsigned lexicographic comparison of byte strings (shorter first on ties). */
int pq_compare_bytes(const uint8_t *a, size_t a_len, const uint8_t *b, size_t b_len);

/* Truncation of byte-array bounds to at most limit bytes (limit >= 4). A lower bound is a
 * prefix (cut at a UTF-8 character boundary when utf8): returns its length (len when no cut was
 * needed). An upper bound is a prefix whose last byte (utf8: last code point) is incremented so
 * it stays above every value with that prefix: writes it to out (limit bytes of room) and returns
 * true, or returns false when no such bound fits (all bytes 0xFF, or only U+10FFFF). When
 * len <= limit both return the value unchanged. */
size_t pq_truncate_lower(const uint8_t *v, size_t len, size_t limit, bool utf8);
bool pq_truncate_upper(const uint8_t *v, size_t len, size_t limit, bool utf8, uint8_t *out,
                       size_t *out_len);

#endif
