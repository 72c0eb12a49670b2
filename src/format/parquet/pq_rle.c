/*
 * pq_rle.c: bit unpacking and the RLE/bit-packed hybrid decoder of Parquet (definition and
 * repetition levels, dictionary indices, RLE booleans), plus the deprecated BIT_PACKED levels.
 *
 * Spec (apache/parquet-format Encodings.md, "Run Length Encoding / Bit-Packing Hybrid (RLE = 3)"):
 *   rle-bit-packed-hybrid := <length>? <encoded-data>; length is a 4-byte LE int (data page v1
 *   levels only); encoded-data := <run>*; run := <bit-packed-run> | <rle-run>;
 *   bit-packed-run := ULEB128(groups << 1 | 1) then groups * bit_width bytes, 8 values per group,
 *   packed LSB-first; rle-run := ULEB128(count << 1) then the value in ceil(bit_width / 8) bytes LE.
 *   BIT_PACKED (= 4, deprecated): values packed MSB-first with no headers.
 *
 * INTERFACE
 *   pq_unpack32 / pq_unpack64          unpack n LSB-first values of a width (0..32 / 0..64)
 *   pq_rle_init / pq_rle_init_prefixed start a hybrid stream (raw / 4-byte length prefix)
 *   pq_rle_get_batch                   up to n values, returns the count
 *   pq_rle_get_exact / _get_indices    exactly n values (indices checked against a bound)
 *   pq_bitpacked_legacy_*              deprecated BIT_PACKED levels
 *
 * NOTES
 *   - Unpacking runs whole 8-value groups with unaligned 64-bit loads (memcpy) while the group
 *     start is at least bit_width + 8 bytes before the end of the buffer; the rest of the buffer
 *     is copied into a zeroed scratch group, so no load ever leaves [buf, buf + len).
 *   - Each width has its own loop (the width is a compile-time constant inside it).
 *   - A bit-packed run whose header promises more bytes than remain is clamped to the values the
 *     remaining bytes hold (writers pad the last group; some readers accept a short pad). Asking
 *     for more values than that is an error in pq_rle_get_exact.
 *   - Run counts are 64-bit, so a hostile header (up to 2^31 groups) cannot overflow; a run longer
 *     than the request is consumed across calls, never expanded into memory.
 */
#include <string.h>

#include "format/parquet/pq_encoding.h"

#define ALWAYS_INLINE inline __attribute__((always_inline))

static ALWAYS_INLINE uint64_t load64(const uint8_t *p) {
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

/* ---- unpacking --------------------------------------------------------------------------- */

/* Number of leading 8-value groups (of w bytes each) whose 64-bit loads stay inside avail. */
static ALWAYS_INLINE size_t fast_groups(size_t avail, int w) {
    if (w == 0) return SIZE_MAX;
    if (avail < (size_t)w + 8) return 0;
    return (avail - (size_t)w - 8) / (size_t)w + 1;
}

static ALWAYS_INLINE void unpack32_group(const uint8_t *in, uint32_t *out, int w) {
    const uint64_t mask = (w == 32) ? 0xffffffffu : ((1ull << w) - 1);
    for (int i = 0; i < 8; i++) {
        unsigned bit = (unsigned)(i * w);
        out[i] = w == 0 ? 0 : (uint32_t)((load64(in + (bit >> 3)) >> (bit & 7)) & mask);
    }
}

static ALWAYS_INLINE void unpack64_group(const uint8_t *in, uint64_t *out, int w) {
    const uint64_t mask = (w == 64) ? ~0ull : ((1ull << w) - 1);
    for (int i = 0; i < 8; i++) {
        unsigned bit = (unsigned)(i * w);
        unsigned sh = bit & 7;
        uint64_t v = 0;
        if (w != 0) {
            v = load64(in + (bit >> 3)) >> sh;
            if (w > 56 && sh + (unsigned)w > 64) v |= (uint64_t)in[(bit >> 3) + 8] << (64 - sh);
        }
        out[i] = v & mask;
    }
}

/* The body shared by every width: whole groups fast, then the tail through a scratch copy. */
#define UNPACK_BODY(T, GROUP)                                                                      \
    size_t n_groups = n / 8, fast = fast_groups(avail, w), g = 0;                                  \
    if (fast > n_groups) fast = n_groups;                                                          \
    for (; g < fast; g++) GROUP(in + g * (size_t)w, out + g * 8, w);                              \
    uint32_t done = (uint32_t)(g * 8);                                                             \
    while (done < n) {                                                                             \
        uint8_t tmp[64 + 16] = {0};                                                                \
        size_t off = (size_t)done / 8 * (size_t)w, cp = avail > off ? avail - off : 0;             \
        if (cp > (size_t)w) cp = (size_t)w;                                                        \
        if (cp) memcpy(tmp, in + off, cp);                                                         \
        T vals[8];                                                                                 \
        GROUP(tmp, vals, w);                                                                       \
        uint32_t k = n - done < 8 ? n - done : 8;                                                  \
        memcpy(out + done, vals, k * sizeof(T));                                                   \
        done += k;                                                                                 \
    }

#define DEF_UNPACK32(W)                                                                            \
    static void unpack32_w##W(const uint8_t *in, size_t avail, uint32_t *out, uint32_t n) {       \
        const int w = W;                                                                           \
        UNPACK_BODY(uint32_t, unpack32_group)                                                      \
    }
#define DEF_UNPACK64(W)                                                                            \
    static void unpack64_w##W(const uint8_t *in, size_t avail, uint64_t *out, uint32_t n) {       \
        const int w = W;                                                                           \
        UNPACK_BODY(uint64_t, unpack64_group)                                                      \
    }

#define WIDTHS_1_32(X)                                                                             \
    X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15) X(16) X(17)  \
    X(18) X(19) X(20) X(21) X(22) X(23) X(24) X(25) X(26) X(27) X(28) X(29) X(30) X(31) X(32)
#define WIDTHS_33_64(X)                                                                            \
    X(33) X(34) X(35) X(36) X(37) X(38) X(39) X(40) X(41) X(42) X(43) X(44) X(45) X(46) X(47)     \
    X(48) X(49) X(50) X(51) X(52) X(53) X(54) X(55) X(56) X(57) X(58) X(59) X(60) X(61) X(62)     \
    X(63) X(64)

WIDTHS_1_32(DEF_UNPACK32)
WIDTHS_1_32(DEF_UNPACK64)
WIDTHS_33_64(DEF_UNPACK64)

void pq_unpack32(const uint8_t *in, size_t avail, int bit_width, uint32_t *out, uint32_t n) {
    switch (bit_width) {
#define CASE32(W)                                                                                  \
    case W: unpack32_w##W(in, avail, out, n); return;
        WIDTHS_1_32(CASE32)
#undef CASE32
    default: memset(out, 0, (size_t)n * sizeof *out); return;
    }
}

void pq_unpack64(const uint8_t *in, size_t avail, int bit_width, uint64_t *out, uint32_t n) {
    switch (bit_width) {
#define CASE64(W)                                                                                  \
    case W: unpack64_w##W(in, avail, out, n); return;
        WIDTHS_1_32(CASE64)
        WIDTHS_33_64(CASE64)
#undef CASE64
    default: memset(out, 0, (size_t)n * sizeof *out); return;
    }
}

/* ---- RLE / bit-packed hybrid ------------------------------------------------------------- */

static uint32_t rle_fail(pq_rle_decoder *dec, const char *why) {
    dec->status = SQE_ERR_INVALID_FILE;
    dec->why = why;
    dec->pos = dec->end;
    dec->rle_left = dec->bp_left = 0;
    dec->buf_pos = dec->buf_len = 0;
    return 0;
}

int pq_rle_init(pq_rle_decoder *dec, const uint8_t *buf, size_t len, int bit_width,
                sqe_error *err) {
    memset(dec, 0, sizeof *dec);
    dec->pos = dec->end = buf;
    if (bit_width < 0 || bit_width > 32) {
        rle_fail(dec, "RLE bit width out of range");
        return err_set(err, SQE_ERR_INVALID_FILE,
                       "Invalid Parquet page: RLE bit width %d out of range 0..32", bit_width);
    }
    dec->end = buf ? buf + len : buf;
    dec->bit_width = bit_width;
    dec->byte_width = (bit_width + 7) / 8;
    return SQE_OK;
}

int pq_rle_init_prefixed(pq_rle_decoder *dec, const uint8_t *buf, size_t len, int bit_width,
                         size_t *consumed, sqe_error *err) {
    *consumed = 0;
    if (len < 4) {
        pq_rle_init(dec, buf, 0, 0, NULL);
        return err_set(err, SQE_ERR_INVALID_FILE,
                       "Invalid Parquet page: levels length prefix truncated (%zu bytes)", len);
    }
    uint32_t n = (uint32_t)buf[0] | (uint32_t)buf[1] << 8 | (uint32_t)buf[2] << 16 |
                 (uint32_t)buf[3] << 24;
    if ((uint64_t)n > len - 4) {
        pq_rle_init(dec, buf, 0, 0, NULL);
        return err_set(err, SQE_ERR_INVALID_FILE,
                       "Invalid Parquet page: levels length %u exceeds the %zu bytes left", n,
                       len - 4);
    }
    SQE_TRY(pq_rle_init(dec, buf + 4, n, bit_width, err));
    *consumed = 4 + (size_t)n;
    return SQE_OK;
}

/* Reads the next run header; returns 0 at the end of the stream or on a malformed header. */
static int rle_next_run(pq_rle_decoder *dec) {
    if (dec->pos >= dec->end) return 0;
    uint64_t h = 0;
    int shift = 0;
    for (;;) {
        if (dec->pos >= dec->end) return (int)rle_fail(dec, "truncated RLE run header");
        uint8_t b = *dec->pos++;
        h |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) break;
        shift += 7;
        if (shift > 28) return (int)rle_fail(dec, "RLE run header longer than 5 bytes");
    }
    if (h > 0xffffffffu) return (int)rle_fail(dec, "RLE run header exceeds 32 bits");
    size_t avail = (size_t)(dec->end - dec->pos);
    if (h & 1) {
        uint64_t groups = h >> 1, bytes = groups * (uint64_t)dec->bit_width;
        uint64_t values = groups * 8;
        if (bytes > avail) {
            values = (uint64_t)avail * 8 / (uint64_t)dec->bit_width; /* bit_width > 0 here */
            bytes = avail;
        }
        dec->bp_pos = dec->pos;
        dec->bp_left = values;
        dec->pos += bytes;
    } else {
        if (avail < (size_t)dec->byte_width) return (int)rle_fail(dec, "truncated RLE run value");
        uint32_t v = 0;
        for (int i = 0; i < dec->byte_width; i++) v |= (uint32_t)dec->pos[i] << (8 * i);
        if (dec->bit_width < 32 && (v >> dec->bit_width) != 0)
            return (int)rle_fail(dec, "RLE run value wider than the bit width");
        dec->pos += dec->byte_width;
        dec->rle_value = v;
        dec->rle_left = h >> 1;
    }
    return 1;
}

uint32_t pq_rle_get_batch(pq_rle_decoder *dec, uint32_t *out, uint32_t n) {
    uint32_t got = 0;
    const int w = dec->bit_width;
    while (got < n) {
        if (dec->buf_pos < dec->buf_len) {
            uint32_t k = dec->buf_len - dec->buf_pos;
            if (k > n - got) k = n - got;
            memcpy(out + got, dec->buf + dec->buf_pos, k * sizeof *out);
            dec->buf_pos += k;
            got += k;
        } else if (dec->rle_left) {
            uint32_t k = dec->rle_left < (uint64_t)(n - got) ? (uint32_t)dec->rle_left : n - got;
            uint32_t v = dec->rle_value, *o = out + got;
            for (uint32_t i = 0; i < k; i++) o[i] = v;
            dec->rle_left -= k;
            got += k;
        } else if (dec->bp_left) {
            size_t avail = (size_t)(dec->end - dec->bp_pos);
            if (n - got >= 8 && dec->bp_left >= 8) {
                uint64_t groups = (n - got) / 8;
                if (groups > dec->bp_left / 8) groups = dec->bp_left / 8;
                uint32_t k = (uint32_t)groups * 8;
                pq_unpack32(dec->bp_pos, avail, w, out + got, k);
                dec->bp_pos += groups * (uint64_t)w;
                dec->bp_left -= k;
                got += k;
            } else {
                uint32_t k = dec->bp_left < 8 ? (uint32_t)dec->bp_left : 8;
                pq_unpack32(dec->bp_pos, avail, w, dec->buf, k);
                dec->bp_pos += avail < (size_t)w ? avail : (size_t)w;
                dec->bp_left -= k;
                dec->buf_pos = 0;
                dec->buf_len = k;
            }
        } else if (!rle_next_run(dec)) {
            break;
        }
    }
    return got;
}

int pq_rle_get_exact(pq_rle_decoder *dec, uint32_t *out, uint32_t n, sqe_error *err) {
    uint32_t got = pq_rle_get_batch(dec, out, n);
    if (got == n) return SQE_OK;
    if (dec->why)
        return err_set(err, SQE_ERR_INVALID_FILE, "Invalid Parquet page: %s", dec->why);
    return err_set(err, SQE_ERR_INVALID_FILE,
                   "Invalid Parquet page: RLE/bit-packed data ends after %u of %u values", got, n);
}

int pq_rle_get_indices(pq_rle_decoder *dec, uint32_t *out, uint32_t n, uint32_t max_value,
                       sqe_error *err) {
    SQE_TRY(pq_rle_get_exact(dec, out, n, err));
    uint32_t bad = 0;
    for (uint32_t i = 0; i < n; i++) bad |= out[i] >= max_value;
    if (!bad) return SQE_OK;
    for (uint32_t i = 0; i < n; i++)
        if (out[i] >= max_value)
            return err_set(err, SQE_ERR_INVALID_FILE,
                           "Invalid Parquet page: dictionary index %u out of range (size %u)",
                           out[i], max_value);
    return SQE_OK;
}

/* ---- legacy BIT_PACKED (MSB-first) ------------------------------------------------------- */

size_t pq_bitpacked_legacy_size(uint64_t n_total, int bit_width) {
    return (size_t)((n_total * (uint64_t)bit_width + 7) / 8);
}

int pq_bitpacked_legacy_init(pq_bitpacked_legacy_decoder *dec, const uint8_t *buf, size_t len,
                             int bit_width, sqe_error *err) {
    memset(dec, 0, sizeof *dec);
    if (bit_width < 0 || bit_width > 32)
        return err_set(err, SQE_ERR_INVALID_FILE,
                       "Invalid Parquet page: BIT_PACKED bit width %d out of range 0..32",
                       bit_width);
    dec->buf = buf;
    dec->len = buf ? len : 0;
    dec->bit_width = bit_width;
    return SQE_OK;
}

int pq_bitpacked_legacy_get(pq_bitpacked_legacy_decoder *dec, uint32_t *out, uint32_t n,
                            sqe_error *err) {
    const unsigned w = (unsigned)dec->bit_width;
    if (dec->bit_pos + (uint64_t)n * w > (uint64_t)dec->len * 8)
        return err_set(err, SQE_ERR_INVALID_FILE,
                       "Invalid Parquet page: BIT_PACKED levels truncated (%u values wanted)", n);
    uint64_t bit = dec->bit_pos;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t v = 0;
        unsigned need = w;
        while (need) {
            unsigned off = (unsigned)(bit & 7), room = 8 - off, take = need < room ? need : room;
            unsigned byte = dec->buf[bit >> 3];
            v = v << take | ((byte >> (room - take)) & ((1u << take) - 1));
            need -= take;
            bit += take;
        }
        out[i] = (uint32_t)v;
    }
    dec->bit_pos = bit;
    return SQE_OK;
}
