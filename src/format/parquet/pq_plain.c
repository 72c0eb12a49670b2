/*
 * pq_plain.c: PLAIN (= 0) and BYTE_STREAM_SPLIT (= 9) decoding of Parquet values, and the
 * Impala INT96 timestamp conversion.
 *
 * Spec (apache/parquet-format Encodings.md, "Plain" and "Byte Stream Split"):
 *   BOOLEAN: bit-packed, LSB first; INT32/INT64/FLOAT/DOUBLE: 4 or 8 bytes little-endian;
 *   INT96: 12 bytes; BYTE_ARRAY: 4-byte little-endian length then the bytes;
 *   FIXED_LEN_BYTE_ARRAY: type_length bytes each.
 *   BYTE_STREAM_SPLIT: for N values of K bytes, K streams of N bytes; byte k of value i is at
 *   k * N + i. Defined for FLOAT, DOUBLE, INT32, INT64 and FIXED_LEN_BYTE_ARRAY.
 *   INT96 timestamps (deprecated, LogicalTypes.md): 8 bytes nanoseconds of the day, then a
 *   4-byte Julian day number; Julian day 2440588 is 1970-01-01.
 *
 * INTERFACE
 *   pq_plain_init, pq_plain_get_{bool,int32,int64,float,double,int96,byte_array,flba}
 *   pq_int96_to_micros
 *   pq_bss_init, pq_bss_get
 *
 * NOTES
 *   - Every getter checks the whole request against the bytes left before writing, so a failed
 *     call consumes nothing. Byte-array outputs point into the page buffer (no copy).
 *   - Fixed-width values are copied with memcpy: the engine requires a little-endian host.
 */
#include <string.h>

#include "format/parquet/pq_encoding.h"

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "PLAIN decoding assumes little-endian");

static int short_page(sqe_error *err, const char *type, uint32_t n, size_t left) {
    return err_set(err, SQE_ERR_INVALID_FILE,
                   "Invalid Parquet page: PLAIN %s data truncated (%u values wanted, %zu bytes "
                   "left)", type, n, left);
}

void pq_plain_init(pq_plain_decoder *dec, const uint8_t *buf, size_t len) {
    dec->pos = buf;
    dec->end = buf ? buf + len : buf;
    dec->bit_pos = 0;
}

int pq_plain_get_bool(pq_plain_decoder *dec, uint8_t *out, uint32_t n, sqe_error *err) {
    size_t left = (size_t)(dec->end - dec->pos);
    if ((uint64_t)dec->bit_pos + n > (uint64_t)left * 8) return short_page(err, "BOOLEAN", n, left);
    const uint8_t *p = dec->pos;
    uint32_t bit = dec->bit_pos, i = 0;
    while (i < n && bit != 0) { /* finish a partly used byte */
        out[i++] = (*p >> bit) & 1;
        if (++bit == 8) {
            bit = 0;
            p++;
        }
    }
    for (; i + 8 <= n; i += 8, p++) {
        uint8_t b = *p;
        for (int k = 0; k < 8; k++) out[i + k] = (b >> k) & 1;
    }
    for (; i < n; i++) out[i] = (*p >> bit++) & 1;
    if (bit == 8) {
        bit = 0;
        p++;
    }
    dec->pos = p;
    dec->bit_pos = bit;
    return SQE_OK;
}

/* Fixed-width copy; a BOOLEAN partial byte is not involved (page sections hold one type). */
static int plain_fixed(pq_plain_decoder *dec, void *out, uint32_t n, size_t size,
                       const char *type, sqe_error *err) {
    size_t left = (size_t)(dec->end - dec->pos);
    if ((uint64_t)n * size > left) return short_page(err, type, n, left);
    if (n) memcpy(out, dec->pos, (size_t)n * size);
    dec->pos += (size_t)n * size;
    return SQE_OK;
}

int pq_plain_get_int32(pq_plain_decoder *dec, int32_t *out, uint32_t n, sqe_error *err) {
    return plain_fixed(dec, out, n, 4, "INT32", err);
}
int pq_plain_get_int64(pq_plain_decoder *dec, int64_t *out, uint32_t n, sqe_error *err) {
    return plain_fixed(dec, out, n, 8, "INT64", err);
}
int pq_plain_get_float(pq_plain_decoder *dec, float *out, uint32_t n, sqe_error *err) {
    return plain_fixed(dec, out, n, 4, "FLOAT", err);
}
int pq_plain_get_double(pq_plain_decoder *dec, double *out, uint32_t n, sqe_error *err) {
    return plain_fixed(dec, out, n, 8, "DOUBLE", err);
}
int pq_plain_get_int96(pq_plain_decoder *dec, uint8_t *out, uint32_t n, sqe_error *err) {
    return plain_fixed(dec, out, n, 12, "INT96", err);
}

int pq_plain_get_byte_array(pq_plain_decoder *dec, pq_bytes *out, uint32_t n, sqe_error *err) {
    const uint8_t *p = dec->pos, *end = dec->end;
    for (uint32_t i = 0; i < n; i++) {
        if (end - p < 4) return short_page(err, "BYTE_ARRAY", n, (size_t)(dec->end - dec->pos));
        uint32_t len;
        memcpy(&len, p, 4);
        p += 4;
        if (len > (uint64_t)(end - p))
            return err_set(err, SQE_ERR_INVALID_FILE,
                           "Invalid Parquet page: PLAIN BYTE_ARRAY length %u exceeds the %zu "
                           "bytes left", len, (size_t)(end - p));
        out[i].ptr = p;
        out[i].len = len;
        p += len;
    }
    dec->pos = p;
    return SQE_OK;
}

int pq_plain_get_flba(pq_plain_decoder *dec, uint32_t type_length, pq_bytes *out, uint32_t n,
                      sqe_error *err) {
    if (type_length == 0)
        return err_set(err, SQE_ERR_INVALID_FILE,
                       "Invalid Parquet page: FIXED_LEN_BYTE_ARRAY type length 0");
    size_t left = (size_t)(dec->end - dec->pos);
    if ((uint64_t)n * type_length > left) return short_page(err, "FIXED_LEN_BYTE_ARRAY", n, left);
    const uint8_t *p = dec->pos;
    for (uint32_t i = 0; i < n; i++, p += type_length) {
        out[i].ptr = p;
        out[i].len = type_length;
    }
    dec->pos = p;
    return SQE_OK;
}

int pq_int96_to_micros(const uint8_t src[12], int64_t *out, sqe_error *err) {
    int64_t nanos;
    uint32_t jd;
    memcpy(&nanos, src, 8);
    memcpy(&jd, src + 8, 4);
    __int128 days = (__int128)jd - 2440588;
    __int128 us = days * 86400000000LL;
    int64_t q = nanos / 1000, r = nanos % 1000;
    if (r < 0) q--; /* floor */
    us += q;
    if (us > INT64_MAX || us < INT64_MIN)
        return err_set(err, SQE_ERR_INVALID_FILE,
                       "Invalid Parquet page: INT96 timestamp (day %u) out of range", jd);
    *out = (int64_t)us;
    return SQE_OK;
}

/* ---- BYTE_STREAM_SPLIT ------------------------------------------------------------------- */

int pq_bss_init(pq_bss_decoder *dec, const uint8_t *buf, size_t len, uint32_t width,
                sqe_error *err) {
    memset(dec, 0, sizeof *dec);
    if (width == 0 || len % width)
        return err_set(err, SQE_ERR_INVALID_FILE,
                       "Invalid Parquet page: BYTE_STREAM_SPLIT size %zu is not a multiple of the "
                       "value width %u", len, width);
    dec->buf = buf;
    dec->n_total = len / width;
    dec->width = width;
    return SQE_OK;
}

static inline __attribute__((always_inline)) void bss_gather(const uint8_t *base, uint64_t stride,
                                                             uint8_t *o, uint32_t n, uint32_t w) {
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t k = 0; k < w; k++) o[(size_t)i * w + k] = base[k * stride + i];
}

int pq_bss_get(pq_bss_decoder *dec, void *out, uint32_t n, sqe_error *err) {
    if ((uint64_t)n > dec->n_total - dec->idx)
        return err_set(err, SQE_ERR_INVALID_FILE,
                       "Invalid Parquet page: BYTE_STREAM_SPLIT holds %llu more values, %u wanted",
                       (unsigned long long)(dec->n_total - dec->idx), n);
    if (n == 0) return SQE_OK;
    const uint8_t *base = dec->buf + dec->idx;
    uint64_t stride = dec->n_total;
    if (dec->width == 4)
        bss_gather(base, stride, (uint8_t *)out, n, 4);
    else if (dec->width == 8)
        bss_gather(base, stride, (uint8_t *)out, n, 8);
    else
        bss_gather(base, stride, (uint8_t *)out, n, dec->width);
    dec->idx += n;
    return SQE_OK;
}
