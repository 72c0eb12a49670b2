/*
 * pq_delta.c: the DELTA encodings of Parquet: DELTA_BINARY_PACKED (= 5) for INT32/INT64,
 * DELTA_LENGTH_BYTE_ARRAY (= 6) and DELTA_BYTE_ARRAY (= 7).
 *
 * Spec (apache/parquet-format Encodings.md, "Delta Encoding"):
 *   header := ULEB128 block_size, ULEB128 miniblocks_per_block, ULEB128 total_value_count,
 *             zigzag ULEB128 first_value; block_size is a multiple of 128 and
 *             block_size / miniblocks_per_block a multiple of 32.
 *   block  := zigzag ULEB128 min_delta, one bit-width byte per miniblock, then the miniblocks,
 *             each (values_per_miniblock * width / 8) bytes of (delta - min_delta) packed
 *             LSB-first. Unneeded miniblocks of the last block have a width byte but no data.
 *   DELTA_LENGTH_BYTE_ARRAY := DELTA_BINARY_PACKED lengths, then the concatenated bytes.
 *   DELTA_BYTE_ARRAY := DELTA_BINARY_PACKED prefix lengths, then DELTA_LENGTH_BYTE_ARRAY suffixes;
 *             value[i] = value[i-1][0..prefix[i]) ++ suffix[i].
 *
 * INTERFACE
 *   pq_delta_init / _count / _get_int64 / _get_int32 / _consumed   DELTA_BINARY_PACKED
 *   pq_dlba_init / pq_dlba_get                                     DELTA_LENGTH_BYTE_ARRAY
 *   pq_dba_init / pq_dba_get                                       DELTA_BYTE_ARRAY
 *
 * NOTES
 *   - All arithmetic is in uint64 and wraps, as the spec requires ("the delta computation is
 *     allowed to overflow"); INT32 output keeps the low 32 bits. Widths up to 64 are accepted.
 *   - Values are decoded 32 at a time (a miniblock holds a multiple of 32) into dec->buf.
 *   - The last miniblock must hold the bytes of the values it contributes; its padding may be
 *     missing (the stream then ends at the buffer end).
 *   - Header sanity: block_size in 128..2^20, miniblocks > 0 dividing it, counts bounded by the
 *     caller's max_values for the byte-array forms (which allocate per value).
 *   - DELTA_BYTE_ARRAY values with prefix 0 point into the page buffer; the others are built in
 *     the caller's arena. At most PQ_DBA_MAX_BYTES are materialized per decoder, which bounds the
 *     quadratic blow-up a hostile page (long prefixes, empty suffixes) could cause.
 */
#include <string.h>

#include "format/parquet/pq_encoding.h"

#define PQ_DELTA_MAX_BLOCK ((uint64_t)1 << 20)
#define PQ_DBA_MAX_BYTES ((uint64_t)1 << 30)

static int bad(sqe_error *err, const char *what) {
    return err_set(err, SQE_ERR_INVALID_FILE, "Invalid Parquet page: %s", what);
}

static int read_uleb64(const uint8_t **pp, const uint8_t *end, uint64_t *out) {
    const uint8_t *p = *pp;
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (p >= end) return -1;
        uint8_t b = *p++;
        if (shift == 63 && (b & 0x7e)) return -1;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *pp = p;
            *out = v;
            return 0;
        }
    }
    return -1;
}

static uint64_t unzigzag(uint64_t v) { return (v >> 1) ^ (0 - (v & 1)); }

int pq_delta_init(pq_delta_decoder *dec, const uint8_t *buf, size_t len, sqe_error *err) {
    memset(dec, 0, sizeof *dec);
    if (buf == NULL) len = 0;
    const uint8_t *p = buf, *end = buf ? buf + len : buf;
    uint64_t first;
    if (read_uleb64(&p, end, &dec->block_size) || read_uleb64(&p, end, &dec->n_miniblocks) ||
        read_uleb64(&p, end, &dec->total) || read_uleb64(&p, end, &first))
        return bad(err, "DELTA_BINARY_PACKED header truncated or malformed");
    if (dec->block_size == 0 || dec->block_size % 128 || dec->block_size > PQ_DELTA_MAX_BLOCK)
        return bad(err, "DELTA_BINARY_PACKED block size is not a multiple of 128 in 128..2^20");
    if (dec->n_miniblocks == 0 || dec->block_size % dec->n_miniblocks ||
        (dec->block_size / dec->n_miniblocks) % 32)
        return bad(err, "DELTA_BINARY_PACKED miniblock count does not divide the block in "
                        "multiples of 32");
    dec->mb_size = dec->block_size / dec->n_miniblocks;
    dec->pos = dec->header_end = p;
    dec->end = end;
    dec->mb_idx = dec->n_miniblocks; /* the first delta starts a block */
    if (dec->total > 0) {
        dec->last = unzigzag(first);
        dec->buf[0] = dec->last;
        dec->buf_len = 1;
        dec->left = dec->total - 1;
    }
    return SQE_OK;
}

uint64_t pq_delta_count(const pq_delta_decoder *dec) { return dec->total; }

size_t pq_delta_consumed(const pq_delta_decoder *dec, const uint8_t *buf) {
    return (size_t)(dec->pos - buf);
}

/* Decodes the next up-to-32 values into dec->buf (dec->left > 0). */
static int delta_fill(pq_delta_decoder *dec, sqe_error *err) {
    if (dec->mb_left == 0) {
        if (dec->mb_idx >= dec->n_miniblocks) {
            uint64_t md;
            if (read_uleb64(&dec->pos, dec->end, &md))
                return bad(err, "DELTA_BINARY_PACKED block header truncated or malformed");
            if ((uint64_t)(dec->end - dec->pos) < dec->n_miniblocks)
                return bad(err, "DELTA_BINARY_PACKED miniblock bit widths truncated");
            dec->min_delta = unzigzag(md);
            dec->widths = dec->pos;
            dec->pos += dec->n_miniblocks;
            dec->mb_idx = 0;
        }
        int w = dec->widths[dec->mb_idx++];
        if (w > 64) return bad(err, "DELTA_BINARY_PACKED miniblock bit width above 64");
        uint64_t need_vals = dec->left < dec->mb_size ? dec->left : dec->mb_size;
        uint64_t need = (need_vals * (uint64_t)w + 7) / 8, full = dec->mb_size * (uint64_t)w / 8;
        uint64_t avail = (uint64_t)(dec->end - dec->pos);
        if (avail < need) return bad(err, "DELTA_BINARY_PACKED miniblock truncated");
        dec->mb_width = w;
        dec->mb_data = dec->pos;
        dec->pos += full < avail ? full : avail;
        dec->mb_left = dec->mb_size;
    }
    uint32_t k = dec->left < 32 ? (uint32_t)dec->left : 32;
    const int w = dec->mb_width;
    size_t avail = (size_t)(dec->end - dec->mb_data);
    uint64_t d[32];
    pq_unpack64(dec->mb_data, avail, w, d, k);
    size_t step = (size_t)4 * (size_t)w; /* 32 values */
    dec->mb_data += step < avail ? step : avail;
    uint64_t last = dec->last, md = dec->min_delta;
    for (uint32_t i = 0; i < k; i++) {
        last += md + d[i];
        dec->buf[i] = last;
    }
    dec->last = last;
    dec->mb_left -= 32;
    dec->left -= k;
    dec->buf_pos = 0;
    dec->buf_len = k;
    return SQE_OK;
}

static int delta_check(const pq_delta_decoder *dec, uint32_t n, sqe_error *err) {
    uint64_t have = (uint64_t)(dec->buf_len - dec->buf_pos) + dec->left;
    if ((uint64_t)n <= have) return SQE_OK;
    return err_set(err, SQE_ERR_INVALID_FILE,
                   "Invalid Parquet page: DELTA_BINARY_PACKED holds %llu more values, %u wanted",
                   (unsigned long long)have, n);
}

int pq_delta_get_int64(pq_delta_decoder *dec, int64_t *out, uint32_t n, sqe_error *err) {
    SQE_TRY(delta_check(dec, n, err));
    uint32_t got = 0;
    while (got < n) {
        if (dec->buf_pos == dec->buf_len) SQE_TRY(delta_fill(dec, err));
        uint32_t k = dec->buf_len - dec->buf_pos;
        if (k > n - got) k = n - got;
        memcpy(out + got, dec->buf + dec->buf_pos, k * sizeof *out);
        dec->buf_pos += k;
        got += k;
    }
    return SQE_OK;
}

int pq_delta_get_int32(pq_delta_decoder *dec, int32_t *out, uint32_t n, sqe_error *err) {
    SQE_TRY(delta_check(dec, n, err));
    uint32_t got = 0;
    while (got < n) {
        if (dec->buf_pos == dec->buf_len) SQE_TRY(delta_fill(dec, err));
        uint32_t k = dec->buf_len - dec->buf_pos;
        if (k > n - got) k = n - got;
        const uint64_t *src = dec->buf + dec->buf_pos;
        for (uint32_t i = 0; i < k; i++) out[got + i] = (int32_t)(uint32_t)src[i];
        dec->buf_pos += k;
        got += k;
    }
    return SQE_OK;
}

/* ---- byte arrays -------------------------------------------------------------------------- */

/* Decodes a whole DELTA_BINARY_PACKED stream of non-negative int32 into the arena. */
static int decode_lengths(const uint8_t *buf, size_t len, uint64_t max_values, arena *a,
                          int32_t **out, uint64_t *n_out, size_t *consumed, uint64_t *sum,
                          sqe_error *err) {
    pq_delta_decoder d;
    SQE_TRY(pq_delta_init(&d, buf, len, err));
    uint64_t n = d.total;
    if (n > max_values)
        return err_set(err, SQE_ERR_INVALID_FILE,
                       "Invalid Parquet page: %llu delta lengths for at most %llu values",
                       (unsigned long long)n, (unsigned long long)max_values);
    int32_t *v = NULL;
    if (n) {
        v = (int32_t *)arena_alloc(a, (size_t)n * sizeof *v);
        if (!v) return err_nomem(err, "Parquet delta lengths");
    }
    uint64_t total = 0;
    for (uint64_t i = 0; i < n;) {
        uint32_t k = n - i > 65536 ? 65536 : (uint32_t)(n - i);
        SQE_TRY(pq_delta_get_int32(&d, v + i, k, err));
        for (uint32_t j = 0; j < k; j++) {
            if (v[i + j] < 0) return bad(err, "negative length in a delta byte array");
            total += (uint64_t)v[i + j];
        }
        i += k;
    }
    *out = v;
    *n_out = n;
    *consumed = pq_delta_consumed(&d, buf);
    *sum = total;
    return SQE_OK;
}

int pq_dlba_init(pq_dlba_decoder *dec, const uint8_t *buf, size_t len, uint64_t max_values,
                 arena *a, sqe_error *err) {
    memset(dec, 0, sizeof *dec);
    if (buf == NULL) len = 0;
    size_t used;
    uint64_t sum;
    SQE_TRY(decode_lengths(buf, len, max_values, a, &dec->lengths, &dec->n, &used, &sum, err));
    if (sum > (uint64_t)(len - used))
        return err_set(err, SQE_ERR_INVALID_FILE,
                       "Invalid Parquet page: delta byte array lengths sum to %llu, %zu bytes left",
                       (unsigned long long)sum, len - used);
    dec->data = buf + used;
    dec->end = buf + len;
    return SQE_OK;
}

int pq_dlba_get(pq_dlba_decoder *dec, pq_bytes *out, uint32_t n, sqe_error *err) {
    if ((uint64_t)n > dec->n - dec->idx)
        return err_set(err, SQE_ERR_INVALID_FILE,
                       "Invalid Parquet page: DELTA_LENGTH_BYTE_ARRAY holds %llu more values, %u "
                       "wanted", (unsigned long long)(dec->n - dec->idx), n);
    if (n == 0) return SQE_OK;
    const int32_t *lens = dec->lengths + dec->idx;
    const uint8_t *p = dec->data;
    for (uint32_t i = 0; i < n; i++) { /* lengths were checked against the buffer at init */
        out[i].ptr = p;
        out[i].len = (uint32_t)lens[i];
        p += lens[i];
    }
    dec->data = p;
    dec->idx += n;
    return SQE_OK;
}

int pq_dba_init(pq_dba_decoder *dec, const uint8_t *buf, size_t len, uint64_t max_values,
                arena *a, sqe_error *err) {
    memset(dec, 0, sizeof *dec);
    if (buf == NULL) len = 0;
    size_t used;
    uint64_t sum;
    SQE_TRY(decode_lengths(buf, len, max_values, a, &dec->prefix, &dec->n, &used, &sum, err));
    SQE_TRY(pq_dlba_init(&dec->suffixes, buf + used, len - used, max_values, a, err));
    if (dec->suffixes.n != dec->n)
        return err_set(err, SQE_ERR_INVALID_FILE,
                       "Invalid Parquet page: DELTA_BYTE_ARRAY has %llu prefixes and %llu "
                       "suffixes", (unsigned long long)dec->n,
                       (unsigned long long)dec->suffixes.n);
    dec->a = a;
    return SQE_OK;
}

int pq_dba_get(pq_dba_decoder *dec, pq_bytes *out, uint32_t n, sqe_error *err) {
    if ((uint64_t)n > dec->n - dec->idx)
        return err_set(err, SQE_ERR_INVALID_FILE,
                       "Invalid Parquet page: DELTA_BYTE_ARRAY holds %llu more values, %u wanted",
                       (unsigned long long)(dec->n - dec->idx), n);
    if (n == 0) return SQE_OK;
    SQE_TRY(pq_dlba_get(&dec->suffixes, out, n, err)); /* suffixes, rewritten in place below */
    const int32_t *pre = dec->prefix + dec->idx;
    /* First pass: check prefixes against the previous length and size the batch. */
    uint64_t prev_len = dec->prev.len, bytes = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t p = (uint64_t)pre[i];
        if (p > prev_len) {
            dec->suffixes.idx -= n; /* leave the decoder as before the call */
            dec->suffixes.data = out[0].ptr;
            return bad(err, "DELTA_BYTE_ARRAY prefix longer than the previous value");
        }
        prev_len = p + out[i].len;
        if (p) bytes += prev_len;
    }
    if (bytes > PQ_DBA_MAX_BYTES - dec->out_bytes) {
        dec->suffixes.idx -= n;
        dec->suffixes.data = out[0].ptr;
        return bad(err, "DELTA_BYTE_ARRAY expands beyond 1 GiB");
    }
    uint8_t *mem = NULL;
    if (bytes) {
        mem = (uint8_t *)arena_alloc(dec->a, (size_t)bytes);
        if (!mem) {
            dec->suffixes.idx -= n;
            dec->suffixes.data = out[0].ptr;
            return err_nomem(err, "Parquet DELTA_BYTE_ARRAY values");
        }
    }
    dec->out_bytes += bytes;
    pq_bytes prev = dec->prev;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t p = (uint32_t)pre[i];
        if (p) {
            memcpy(mem, prev.ptr, p);
            if (out[i].len) memcpy(mem + p, out[i].ptr, out[i].len);
            out[i].ptr = mem;
            out[i].len += p;
            mem += out[i].len;
        }
        prev = out[i];
    }
    dec->prev = prev;
    dec->idx += n;
    return SQE_OK;
}
