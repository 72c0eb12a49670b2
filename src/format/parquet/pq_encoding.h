/*
 * pq_encoding.h: Parquet value and level decoders (PLAIN, RLE/bit-packed hybrid, legacy
 * BIT_PACKED, DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY, BYTE_STREAM_SPLIT).
 *
 * Spec: apache/parquet-format Encodings.md. A page decoder initializes one decoder over the
 * (decompressed) bytes of a page section and pulls N values at a time into plain C arrays.
 *
 * Buffers: every decoder borrows its input buffer; the buffer must outlive the decoder and every
 * pq_bytes it produced that points into it (PLAIN BYTE_ARRAY / FIXED_LEN_BYTE_ARRAY and
 * DELTA_LENGTH_BYTE_ARRAY point into the input; DELTA_BYTE_ARRAY outputs live in a caller arena).
 * No decoder reads outside [buf, buf + len). All multi-byte values are little-endian on disk; the
 * engine targets little-endian hosts (checked at compile time in pq_plain.c).
 *
 * Errors: SQE_ERR_INVALID_FILE, message "Invalid Parquet page: ...". After an error the decoder
 * state is unspecified except that it is safe to drop (none of them owns heap memory).
 */
#ifndef SQE_FORMAT_PARQUET_PQ_ENCODING_H
#define SQE_FORMAT_PARQUET_PQ_ENCODING_H

#include <stddef.h>
#include <stdint.h>

#include "common/arena.h"
#include "common/err.h"

/* A byte string: points into the page buffer or into a caller arena (see the decoder). */
typedef struct pq_bytes {
    const uint8_t *ptr;
    uint32_t len;
} pq_bytes;

/* ---- bit unpacking (shared by RLE and DELTA; LSB-first, Encodings.md "Bit-packed") -------- */

/* Unpacks n values of bit_width (0..32) starting at in[0] bit 0 into out. avail is the number of
 * readable bytes at in; nothing at or past in + avail is read (such bits decode as 0, so callers
 * check avail >= ceil(n * bit_width / 8) themselves). Uses 64-bit loads where they stay inside
 * avail. Other widths produce zeros. */
void pq_unpack32(const uint8_t *in, size_t avail, int bit_width, uint32_t *out, uint32_t n);
/* Same for bit_width 0..64 into uint64. */
void pq_unpack64(const uint8_t *in, size_t avail, int bit_width, uint64_t *out, uint32_t n);

/* ---- RLE / bit-packed hybrid (levels, dictionary indices, booleans) ----------------------- */

typedef struct pq_rle_decoder {
    const uint8_t *pos;     /* next run header */
    const uint8_t *end;
    int bit_width;          /* 0..32 */
    int byte_width;         /* ceil(bit_width / 8): bytes of an RLE run value */
    int status;             /* sticky: SQE_OK or SQE_ERR_INVALID_FILE */
    const char *why;        /* reason of a malformed stream (static string), NULL if none */
    uint64_t rle_left;      /* values left in the current RLE run */
    uint32_t rle_value;
    uint64_t bp_left;       /* values left in the current bit-packed run (incl. buffered) */
    const uint8_t *bp_pos;  /* next unread group of the bit-packed run */
    uint32_t buf[8];        /* one unpacked group, partly consumed */
    uint32_t buf_pos, buf_len;
} pq_rle_decoder;

/* Initializes dec over buf[0..len) (no length prefix). bit_width > 32 is an error. On error dec
 * is left producing no values. */
int pq_rle_init(pq_rle_decoder *dec, const uint8_t *buf, size_t len, int bit_width, sqe_error *err);
/* Data page v1 levels: reads the 4-byte little-endian length prefix, checks it against len and
 * initializes dec over the levels that follow. *consumed = 4 + prefix length. */
int pq_rle_init_prefixed(pq_rle_decoder *dec, const uint8_t *buf, size_t len, int bit_width,
                         size_t *consumed, sqe_error *err);
/* Produces up to n values into out; returns how many. Fewer than n means the stream ended or is
 * malformed (dec->status / dec->why tell which; the stream stays ended). Never reads past end. */
uint32_t pq_rle_get_batch(pq_rle_decoder *dec, uint32_t *out, uint32_t n);
/* Produces exactly n values or fails with INVALID_FILE (truncated or malformed stream). */
int pq_rle_get_exact(pq_rle_decoder *dec, uint32_t *out, uint32_t n, sqe_error *err);
/* Same, and checks every value < max_value (dictionary indices vs dictionary size). */
int pq_rle_get_indices(pq_rle_decoder *dec, uint32_t *out, uint32_t n, uint32_t max_value,
                       sqe_error *err);

/* Legacy BIT_PACKED levels (deprecated; MSB-first, no run headers). The stream holds exactly
 * ceil(n_total * bit_width / 8) bytes; pq_bitpacked_legacy_size computes that size. */
typedef struct pq_bitpacked_legacy_decoder {
    const uint8_t *buf;
    size_t len;
    uint64_t bit_pos;
    int bit_width;          /* 0..32 */
} pq_bitpacked_legacy_decoder;

size_t pq_bitpacked_legacy_size(uint64_t n_total, int bit_width);
int pq_bitpacked_legacy_init(pq_bitpacked_legacy_decoder *dec, const uint8_t *buf, size_t len,
                             int bit_width, sqe_error *err);
/* Produces exactly n values or fails (INVALID_FILE) if the buffer holds fewer. */
int pq_bitpacked_legacy_get(pq_bitpacked_legacy_decoder *dec, uint32_t *out, uint32_t n,
                            sqe_error *err);

/* ---- DELTA_BINARY_PACKED ------------------------------------------------------------------ */

typedef struct pq_delta_decoder {
    const uint8_t *pos;         /* next block header or miniblock */
    const uint8_t *end;
    const uint8_t *header_end;  /* first byte after the stream header */
    uint64_t block_size;        /* values per block, multiple of 128 */
    uint64_t n_miniblocks;      /* miniblocks per block */
    uint64_t mb_size;           /* values per miniblock, multiple of 32 */
    uint64_t total;             /* total values in the stream (header) */
    uint64_t left;              /* deltas not yet decoded */
    uint64_t last;              /* last value decoded (wrapping arithmetic) */
    uint64_t min_delta;
    const uint8_t *widths;      /* bit widths of the current block's miniblocks */
    uint64_t mb_idx;            /* next miniblock of the block */
    uint64_t mb_left;           /* values left in current miniblock */
    const uint8_t *mb_data;     /* next 32-value chunk of the current miniblock */
    int mb_width;               /* bit width of the current miniblock */
    uint32_t buf_pos, buf_len;
    uint64_t buf[32];           /* decoded absolute values, partly consumed */
} pq_delta_decoder;

/* Reads the header (block size, miniblocks, count, first value) and checks it. */
int pq_delta_init(pq_delta_decoder *dec, const uint8_t *buf, size_t len, sqe_error *err);
/* Total values in the stream according to its header. */
uint64_t pq_delta_count(const pq_delta_decoder *dec);
/* Produce exactly n values (n <= remaining, else INVALID_FILE). int32 keeps the low 32 bits. */
int pq_delta_get_int64(pq_delta_decoder *dec, int64_t *out, uint32_t n, sqe_error *err);
int pq_delta_get_int32(pq_delta_decoder *dec, int32_t *out, uint32_t n, sqe_error *err);
/* After all values are read: bytes of buf occupied by the stream (its end is the end of the
 * last miniblock holding values, padding included when present). */
size_t pq_delta_consumed(const pq_delta_decoder *dec, const uint8_t *buf);

/* ---- DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY ----------------------------------------- */

typedef struct pq_dlba_decoder {
    int32_t *lengths;           /* all lengths, in the arena given to init */
    uint64_t n, idx;
    const uint8_t *data;        /* next value bytes */
    const uint8_t *end;
} pq_dlba_decoder;

/* Decodes all lengths (at most max_values, e.g. the page's value count, else error) into a,
 * checks each >= 0 and that their sum fits in buf. Outputs point into buf. */
int pq_dlba_init(pq_dlba_decoder *dec, const uint8_t *buf, size_t len, uint64_t max_values,
                 arena *a, sqe_error *err);
/* Produces exactly n values (error if fewer remain). */
int pq_dlba_get(pq_dlba_decoder *dec, pq_bytes *out, uint32_t n, sqe_error *err);

typedef struct pq_dba_decoder {
    int32_t *prefix;            /* all prefix lengths, in the arena */
    pq_dlba_decoder suffixes;
    uint64_t n, idx;
    pq_bytes prev;              /* last value produced (in the arena) */
    uint64_t out_bytes;         /* bytes materialized so far (capped, see NOTES in pq_delta.c) */
    arena *a;
} pq_dba_decoder;

/* Values are materialized in a (prefix of previous value + suffix); a must not be reset while
 * the decoder is in use, and outputs stay valid until it is reset. */
int pq_dba_init(pq_dba_decoder *dec, const uint8_t *buf, size_t len, uint64_t max_values,
                arena *a, sqe_error *err);
int pq_dba_get(pq_dba_decoder *dec, pq_bytes *out, uint32_t n, sqe_error *err);

/* ---- PLAIN ---------------------------------------------------------------------------------- */

typedef struct pq_plain_decoder {
    const uint8_t *pos;
    const uint8_t *end;
    uint32_t bit_pos;           /* BOOLEAN only: bit offset (0..7) within *pos */
} pq_plain_decoder;

void pq_plain_init(pq_plain_decoder *dec, const uint8_t *buf, size_t len);
/* Each produces exactly n values or fails with INVALID_FILE (then nothing is consumed). */
int pq_plain_get_bool(pq_plain_decoder *dec, uint8_t *out, uint32_t n, sqe_error *err);
int pq_plain_get_int32(pq_plain_decoder *dec, int32_t *out, uint32_t n, sqe_error *err);
int pq_plain_get_int64(pq_plain_decoder *dec, int64_t *out, uint32_t n, sqe_error *err);
int pq_plain_get_float(pq_plain_decoder *dec, float *out, uint32_t n, sqe_error *err);
int pq_plain_get_double(pq_plain_decoder *dec, double *out, uint32_t n, sqe_error *err);
/* INT96 kept raw: out receives n * 12 bytes. */
int pq_plain_get_int96(pq_plain_decoder *dec, uint8_t *out, uint32_t n, sqe_error *err);
/* BYTE_ARRAY / FIXED_LEN_BYTE_ARRAY: outputs point into the input buffer. */
int pq_plain_get_byte_array(pq_plain_decoder *dec, pq_bytes *out, uint32_t n, sqe_error *err);
int pq_plain_get_flba(pq_plain_decoder *dec, uint32_t type_length, pq_bytes *out, uint32_t n,
                      sqe_error *err);

/* Impala INT96 timestamp (8 bytes nanos of day LE, 4 bytes Julian day LE) -> microseconds
 * since 1970-01-01 (nanos truncated toward negative infinity). INVALID_FILE if out of range. */
int pq_int96_to_micros(const uint8_t src[12], int64_t *out, sqe_error *err);

/* ---- BYTE_STREAM_SPLIT ---------------------------------------------------------------------- */

typedef struct pq_bss_decoder {
    const uint8_t *buf;
    uint64_t n_total;           /* values in the stream = len / width */
    uint64_t idx;
    uint32_t width;             /* 4 (FLOAT, INT32), 8 (DOUBLE, INT64) or FLBA type_length */
} pq_bss_decoder;

/* len must be a multiple of width (> 0). */
int pq_bss_init(pq_bss_decoder *dec, const uint8_t *buf, size_t len, uint32_t width,
                sqe_error *err);
/* Writes n values (n * width bytes, reassembled) into out; fails if fewer than n remain. */
int pq_bss_get(pq_bss_decoder *dec, void *out, uint32_t n, sqe_error *err);

#endif
