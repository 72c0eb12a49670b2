/*
 * pq_encode.c: Parquet value encoders for the writer: byte buffers, the RLE/bit-packed hybrid,
 * PLAIN booleans and byte arrays, the dictionary builder, page compression and statistics
 * kernels (see pq_encode.h).
 *
 * INTERFACE
 *   pq_buf_*                              growable, tracker-charged byte buffer
 *   pq_rle_encode_u8/u32, pq_rle_max_size, pq_bit_width   RLE/bit-packed hybrid
 *   pq_plain_encode_bool, pq_plain_encode_bytes           PLAIN for BOOLEAN and BYTE_ARRAY
 *   pq_dict_*                             dictionary builder
 *   pq_compressor_*                       page compression
 *   pq_sbbf_*                             split-block bloom filters (BloomFilter.md)
 *   pq_minmax_*, pq_compare_*, pq_truncate_*              statistics
 * NOTES
 *   - RLE/bit-packed hybrid (Encodings.md): an RLE run is a ULEB128 header (count << 1) and the
 *     value in ceil(bit_width / 8) little-endian bytes; a bit-packed run is a header
 *     (groups << 1 | 1) and groups of 8 values packed LSB-first. The encoder works on a whole
 *     page of values at once: runs of >= 8 equal values become RLE runs, the rest is gathered in
 *     bit-packed runs of at most 63 groups (one header byte). A literal run ends early when an
 *     RLE-worthy run starts at a group boundary. Output space is reserved up front from
 *     pq_rle_max_size, so the inner loops write through a raw pointer.
 *   - The dictionary is an open-addressing table (linear probing, load <= 1/2) of 64-bit slots
 *     holding the upper 32 hash bits (a cheap filter before comparing values) and the entry
 *     index; entries live only in their PLAIN encoding, which is the dictionary page. Lookups are
 *     specialized for 4-, 8- and 16-byte values; the common hash functions of common/hash.h are
 *     used (the dictionary never reaches disk, so any hash works).
 *   - Compression reuses a ZSTD_CCtx, a zlib stream (gzip wrapper, RFC 1952) and an LZ4 state
 *     across pages; snappy and brotli are one-shot. Output goes straight into the caller's
 *     buffer, reserved with the codec's bound.
 *   - Floating-point statistics follow parquet.thrift ColumnOrder: NaNs never become bounds, a
 *     zero min is written as -0.0 and a zero max as +0.0.
 */
#include "format/parquet/pq_encode.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <brotli/encode.h>
#include <lz4.h>
#include <snappy-c.h>
#include <xxhash.h>
#include <zlib.h>
#include <zstd.h>

#include "common/hash.h"
#include "format/parquet/pq_codec.h"
#include "format/parquet/pq_meta.h"
#include "common/utf8.h"

/* ---- pq_buf --------------------------------------------------------------------------------- */

void pq_buf_init(pq_buf *b, mem_tracker *tracker) {
    memset(b, 0, sizeof(*b));
    b->tracker = tracker;
}

void pq_buf_reset(pq_buf *b) {
    if (b->data) mem_free(b->tracker, b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

int pq_buf_reserve(pq_buf *b, size_t extra, sqe_error *err) {
    if (b->cap - b->len >= extra) return SQE_OK;
    if (extra > SIZE_MAX / 4 - b->len) return err_nomem(err, "Parquet buffer");
    size_t need = b->len + extra;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < need) cap = cap + cap / 2 + 64;
    uint8_t *p = mem_realloc(b->tracker, b->data, cap, err);
    if (!p) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
    b->data = p;
    b->cap = cap;
    return SQE_OK;
}

int pq_buf_append(pq_buf *b, const void *p, size_t n, sqe_error *err) {
    if (!n) return SQE_OK;
    SQE_TRY(pq_buf_reserve(b, n, err));
    memcpy(b->data + b->len, p, n);
    b->len += n;
    return SQE_OK;
}

int pq_buf_append_u32(pq_buf *b, uint32_t v, sqe_error *err) {
    uint8_t le[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    return pq_buf_append(b, le, 4, err);
}

/* ---- RLE / bit-packed hybrid ---------------------------------------------------------------- */

int pq_bit_width(uint32_t max_value) { return max_value ? 32 - __builtin_clz(max_value) : 0; }

size_t pq_rle_max_size(size_t n, int bit_width) {
    /* per group of 8 values at most max(bit_width + 1 header byte, an RLE run of 8: a header
     * byte + 4 value bytes), plus one run header of up to 10 bytes at each end */
    size_t per_group = (size_t)bit_width + 6;
    return (n / 8 + 2) * per_group + 24;
}

static inline uint8_t *put_uleb(uint8_t *p, uint64_t v) {
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

static inline uint8_t *put_rle_run(uint8_t *p, uint32_t value, size_t count, int byte_width) {
    p = put_uleb(p, (uint64_t)count << 1);
    for (int b = 0; b < byte_width; b++) *p++ = (uint8_t)(value >> (8 * b));
    return p;
}

/* Packs 8 values of bit_width (1..32) LSB-first into exactly bit_width bytes. */
static inline uint8_t *pack8(uint8_t *p, const uint32_t *g, int bit_width) {
    uint64_t acc = 0;
    int bits = 0;
    for (int i = 0; i < 8; i++) {
        acc |= (uint64_t)g[i] << bits;
        bits += bit_width;
        while (bits >= 8) {
            *p++ = (uint8_t)acc;
            acc >>= 8;
            bits -= 8;
        }
    }
    return p;
}

/* The hybrid encoder, instantiated for uint8 levels and uint32 indices. */
#define RLE_ENCODE_BODY(T)                                                                         \
    if (n == 0) return SQE_OK;                                                                     \
    SQE_TRY(pq_buf_reserve(out, pq_rle_max_size(n, bit_width), err));                              \
    uint8_t *p = out->data + out->len;                                                             \
    int byte_width = (bit_width + 7) / 8;                                                          \
    if (bit_width == 0) {                                                                          \
        p = put_rle_run(p, 0, n, 0);                                                               \
        out->len = (size_t)(p - out->data);                                                        \
        return SQE_OK;                                                                             \
    }                                                                                              \
    size_t i = 0;                                                                                  \
    while (i < n) {                                                                                \
        T x = v[i];                                                                                \
        size_t r = 1;                                                                              \
        while (i + r < n && v[i + r] == x) r++;                                                    \
        if (r >= 8) {                                                                              \
            p = put_rle_run(p, x, r, byte_width);                                                  \
            i += r;                                                                                \
            continue;                                                                              \
        }                                                                                          \
        uint8_t *hdr = p++;                                                                        \
        uint32_t groups = 0;                                                                       \
        while (i < n && groups < 63) {                                                             \
            uint32_t g[8];                                                                         \
            size_t k = n - i < 8 ? n - i : 8;                                                      \
            for (size_t j = 0; j < k; j++) g[j] = v[i + j];                                        \
            for (size_t j = k; j < 8; j++) g[j] = 0;                                               \
            p = pack8(p, g, bit_width);                                                            \
            i += k;                                                                                \
            groups++;                                                                              \
            if (i + 8 <= n) {                                                                      \
                T y = v[i];                                                                        \
                size_t s = 1;                                                                      \
                while (s < 8 && v[i + s] == y) s++;                                                \
                if (s == 8) break;                                                                 \
            }                                                                                      \
        }                                                                                          \
        *hdr = (uint8_t)((groups << 1) | 1);                                                       \
    }                                                                                              \
    out->len = (size_t)(p - out->data);                                                            \
    return SQE_OK;

int pq_rle_encode_u8(const uint8_t *v, size_t n, int bit_width, pq_buf *out, sqe_error *err) {
    RLE_ENCODE_BODY(uint8_t)
}

int pq_rle_encode_u32(const uint32_t *v, size_t n, int bit_width, pq_buf *out, sqe_error *err) {
    RLE_ENCODE_BODY(uint32_t)
}

/* ---- PLAIN ---------------------------------------------------------------------------------- */

int pq_plain_encode_bool(const uint8_t *v, size_t n, pq_buf *out, sqe_error *err) {
    size_t bytes = (n + 7) / 8;
    SQE_TRY(pq_buf_reserve(out, bytes, err));
    uint8_t *p = out->data + out->len;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, v + i, 8);
        /* gather the low bit of each byte: bit k of byte k -> bit k of the result */
        w &= 0x0101010101010101ull;
        *p++ = (uint8_t)((w * 0x0102040810204080ull) >> 56);
    }
    if (i < n) {
        uint8_t b = 0;
        for (size_t k = 0; i + k < n; k++) b |= (uint8_t)((v[i + k] & 1) << k);
        *p++ = b;
    }
    out->len += bytes;
    return SQE_OK;
}

int pq_plain_encode_bytes(const uint32_t *lens, const uint8_t *data, size_t n, pq_buf *out,
                          sqe_error *err) {
    size_t total = 0;
    for (size_t i = 0; i < n; i++) total += lens[i];
    SQE_TRY(pq_buf_reserve(out, total + 4 * n, err));
    uint8_t *p = out->data + out->len;
    for (size_t i = 0; i < n; i++) {
        uint32_t len = lens[i];
        memcpy(p, &len, 4); /* little-endian host (checked in pq_plain.c) */
        if (len) memcpy(p + 4, data, len); /* data may be NULL when every value is empty */
        p += 4 + len;
        data += len;
    }
    out->len = (size_t)(p - out->data);
    return SQE_OK;
}

/* ---- dictionary ----------------------------------------------------------------------------- */

#define DICT_INITIAL_SLOTS 1024u

void pq_dict_init(pq_dict *d, uint32_t width, size_t byte_limit, mem_tracker *tracker) {
    memset(d, 0, sizeof(*d));
    d->width = width;
    d->limit = byte_limit;
    d->tracker = tracker;
    pq_buf_init(&d->plain, tracker);
}

void pq_dict_reset(pq_dict *d) {
    if (d->slots) mem_free(d->tracker, d->slots);
    if (d->offsets) mem_free(d->tracker, d->offsets);
    pq_buf_reset(&d->plain);
    mem_tracker *t = d->tracker;
    pq_dict_init(d, d->width, d->limit, t);
}

void pq_dict_clear(pq_dict *d, uint32_t width, size_t byte_limit) {
    if (d->slots && d->n) memset(d->slots, 0, ((size_t)d->mask + 1) * sizeof(uint64_t));
    d->n = 0;
    d->width = width;
    d->limit = byte_limit;
    pq_buf_clear(&d->plain);
}

static int dict_alloc_slots(pq_dict *d, sqe_error *err) {
    if (d->slots) return SQE_OK;
    d->slots = mem_calloc(d->tracker, DICT_INITIAL_SLOTS * sizeof(uint64_t), err);
    if (!d->slots) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
    d->mask = DICT_INITIAL_SLOTS - 1;
    return SQE_OK;
}

/* Doubles the table when it is half full. */
static int dict_maybe_grow(pq_dict *d, sqe_error *err) {
    size_t cap = (size_t)d->mask + 1;
    if ((size_t)d->n * 2 <= cap) return SQE_OK;
    if (cap >= ((size_t)1 << 31)) return err_nomem(err, "Parquet dictionary");
    size_t ncap = cap * 2;
    uint64_t *ns = mem_calloc(d->tracker, ncap * sizeof(uint64_t), err);
    if (!ns) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
    uint32_t nmask = (uint32_t)(ncap - 1);
    for (size_t i = 0; i < cap; i++) {
        uint64_t s = d->slots[i];
        if (!s) continue;
        uint32_t pos = (uint32_t)(s >> 32) & nmask;
        while (ns[pos]) pos = (pos + 1) & nmask;
        ns[pos] = s;
    }
    mem_free(d->tracker, d->slots);
    d->slots = ns;
    d->mask = nmask;
    return SQE_OK;
}

static inline uint64_t load_fixed_u64(const uint8_t *p, uint32_t width) {
    uint64_t x = 0;
    memcpy(&x, p, width); /* width <= 8 */
    return x;
}

/* Inserts one new fixed entry at slot pos (the caller checked the limit). */
static int dict_add_fixed(pq_dict *d, uint32_t pos, uint32_t h32, const uint8_t *val,
                          uint32_t *index, sqe_error *err) {
    SQE_TRY(pq_buf_append(&d->plain, val, d->width, err));
    d->slots[pos] = ((uint64_t)h32 << 32) | (uint64_t)(d->n + 1);
    *index = d->n++;
    return dict_maybe_grow(d, err);
}

#define DICT_FIXED_LOOP(HASH, EQUAL)                                                               \
    for (size_t i = 0; i < n; i++) {                                                               \
        const uint8_t *val = vals + i * w;                                                         \
        uint64_t h = (HASH);                                                                       \
        uint32_t h32 = (uint32_t)(h >> 32);                                                        \
        uint32_t pos = h32 & d->mask;                                                              \
        for (;;) {                                                                                 \
            uint64_t s = d->slots[pos];                                                            \
            if (!s) {                                                                              \
                if (d->plain.len + w > d->limit) {                                                 \
                    *done = i;                                                                     \
                    return SQE_OK;                                                                 \
                }                                                                                  \
                SQE_TRY(dict_add_fixed(d, pos, h32, val, &idx[i], err));                           \
                break;                                                                             \
            }                                                                                      \
            if ((uint32_t)(s >> 32) == h32) {                                                      \
                uint32_t e = (uint32_t)s - 1;                                                      \
                const uint8_t *ev = d->plain.data + (size_t)e * w;                                 \
                if (EQUAL) {                                                                       \
                    idx[i] = e;                                                                    \
                    break;                                                                         \
                }                                                                                  \
            }                                                                                      \
            pos = (pos + 1) & d->mask;                                                             \
        }                                                                                          \
    }

int pq_dict_insert_fixed(pq_dict *d, const uint8_t *vals, size_t n, uint32_t *idx, size_t *done,
                         sqe_error *err) {
    *done = 0;
    SQE_TRY(dict_alloc_slots(d, err));
    const uint32_t w = d->width;
    if (w == 4) {
        DICT_FIXED_LOOP(hash_u64(load_fixed_u64(val, 4)), memcmp(ev, val, 4) == 0)
    } else if (w == 8) {
        DICT_FIXED_LOOP(hash_u64(load_fixed_u64(val, 8)), memcmp(ev, val, 8) == 0)
    } else if (w == 16) {
        DICT_FIXED_LOOP(hash_u64(load_fixed_u64(val, 8) ^ hash_u64(load_fixed_u64(val + 8, 8))),
                        memcmp(ev, val, 16) == 0)
    } else {
        DICT_FIXED_LOOP(hash_bytes(val, w), memcmp(ev, val, w) == 0)
    }
    *done = n;
    return SQE_OK;
}

int pq_dict_insert_bytes(pq_dict *d, const uint32_t *lens, const uint8_t *data, size_t n,
                         uint32_t *idx, size_t *done, sqe_error *err) {
    *done = 0;
    SQE_TRY(dict_alloc_slots(d, err));
    for (size_t i = 0; i < n; i++) {
        uint32_t len = lens[i];
        const uint8_t *val = data;
        data += len;
        uint64_t h = hash_bytes(val, len);
        uint32_t h32 = (uint32_t)(h >> 32);
        uint32_t pos = h32 & d->mask;
        for (;;) {
            uint64_t s = d->slots[pos];
            if (!s) {
                if (d->plain.len + 4 + (size_t)len > d->limit || d->plain.len + 4 + len > UINT32_MAX) {
                    *done = i;
                    return SQE_OK;
                }
                if (d->n == d->offsets_cap) {
                    uint32_t cap = d->offsets_cap ? d->offsets_cap * 2 : 1024;
                    uint32_t *o =
                        mem_realloc(d->tracker, d->offsets, (size_t)cap * sizeof(uint32_t), err);
                    if (!o) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
                    d->offsets = o;
                    d->offsets_cap = cap;
                }
                SQE_TRY(pq_buf_reserve(&d->plain, 4 + (size_t)len, err));
                uint8_t *p = d->plain.data + d->plain.len;
                memcpy(p, &len, 4);
                if (len) memcpy(p + 4, val, len);
                d->offsets[d->n] = (uint32_t)(d->plain.len + 4);
                d->plain.len += 4 + (size_t)len;
                d->slots[pos] = ((uint64_t)h32 << 32) | (uint64_t)(d->n + 1);
                idx[i] = d->n++;
                SQE_TRY(dict_maybe_grow(d, err));
                break;
            }
            if ((uint32_t)(s >> 32) == h32) {
                uint32_t e = (uint32_t)s - 1;
                const uint8_t *ev = d->plain.data + d->offsets[e];
                uint32_t elen;
                memcpy(&elen, ev - 4, 4);
                if (elen == len && (len == 0 || memcmp(ev, val, len) == 0)) {
                    idx[i] = e;
                    break;
                }
            }
            pos = (pos + 1) & d->mask;
        }
    }
    *done = n;
    return SQE_OK;
}

/* ---- compression ---------------------------------------------------------------------------- */

static int bad_level(const char *codec, int level, sqe_error *err) {
    return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "invalid %s compression level %d", codec, level);
}

int pq_compressor_check(int codec, int level, sqe_error *err) {
    switch (codec) {
    case PQ_CODEC_UNCOMPRESSED:
    case PQ_CODEC_SNAPPY:
    case PQ_CODEC_LZ4_RAW:
        return SQE_OK;
    case PQ_CODEC_GZIP:
        if (level != 0 && (level < 1 || level > 9)) return bad_level("GZIP", level, err);
        return SQE_OK;
    case PQ_CODEC_ZSTD:
        if (level != 0 && (level < ZSTD_minCLevel() || level > ZSTD_maxCLevel()))
            return bad_level("ZSTD", level, err);
        return SQE_OK;
    case PQ_CODEC_BROTLI:
        if (level < 0 || level > 11) return bad_level("BROTLI", level, err);
        return SQE_OK;
    default:
        return err_set(err, SQE_ERR_NOT_SUPPORTED,
                       "unsupported: writing Parquet compression codec %s", pq_codec_name(codec));
    }
}

int pq_compressor_init(pq_compressor *c, int codec, int level, sqe_error *err) {
    memset(c, 0, sizeof(*c));
    SQE_TRY(pq_compressor_check(codec, level, err));
    c->codec = codec;
    if (level == 0) {
        level = codec == PQ_CODEC_GZIP     ? 6
                : codec == PQ_CODEC_ZSTD   ? 3
                : codec == PQ_CODEC_BROTLI ? 8
                                           : 0;
    }
    c->level = level;
    return SQE_OK;
}

void pq_compressor_reset(pq_compressor *c) {
    if (c->zstd) ZSTD_freeCCtx(c->zstd);
    if (c->zlib) {
        deflateEnd(c->zlib);
        free(c->zlib);
    }
    free(c->lz4);
    memset(c, 0, sizeof(*c));
}

static int compress_gzip(pq_compressor *c, const uint8_t *in, size_t n, pq_buf *out,
                         sqe_error *err) {
    if (n > UINT_MAX) return err_set(err, SQE_ERR_NOT_SUPPORTED, "unsupported: GZIP page over 4 GiB");
    z_stream *zs = c->zlib;
    if (!zs) {
        zs = calloc(1, sizeof(*zs));
        if (!zs) return err_nomem(err, "GZIP compressor");
        /* windowBits 15 + 16: a gzip (RFC 1952) wrapper, as Parquet GZIP requires */
        if (deflateInit2(zs, c->level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
            free(zs);
            return err_nomem(err, "GZIP compressor");
        }
        c->zlib = zs;
    } else if (deflateReset(zs) != Z_OK) {
        return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "GZIP compressor reset failed");
    }
    size_t bound = deflateBound(zs, (uLong)n) + 64;
    SQE_TRY(pq_buf_reserve(out, bound, err));
    zs->next_in = (Bytef *)(uintptr_t)in;
    zs->avail_in = (uInt)n;
    zs->next_out = out->data + out->len;
    zs->avail_out = (uInt)(bound > UINT_MAX ? UINT_MAX : bound);
    int zrc = deflate(zs, Z_FINISH);
    if (zrc != Z_STREAM_END)
        return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "GZIP compression failed (%d)", zrc);
    out->len += (size_t)(zs->next_out - (out->data + out->len));
    return SQE_OK;
}

int pq_compressor_run(pq_compressor *c, const uint8_t *in, size_t n, pq_buf *out, sqe_error *err) {
    switch (c->codec) {
    case PQ_CODEC_UNCOMPRESSED:
        return pq_buf_append(out, in, n, err);
    case PQ_CODEC_SNAPPY: {
        size_t cap = snappy_max_compressed_length(n);
        SQE_TRY(pq_buf_reserve(out, cap, err));
        size_t len = cap;
        if (snappy_compress((const char *)in, n, (char *)out->data + out->len, &len) != SNAPPY_OK)
            return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "SNAPPY compression failed");
        out->len += len;
        return SQE_OK;
    }
    case PQ_CODEC_GZIP:
        return compress_gzip(c, in, n, out, err);
    case PQ_CODEC_BROTLI: {
        size_t cap = BrotliEncoderMaxCompressedSize(n);
        if (cap == 0) cap = n + 1024; /* the library gives 0 for huge inputs */
        SQE_TRY(pq_buf_reserve(out, cap, err));
        size_t len = cap;
        if (!BrotliEncoderCompress(c->level, BROTLI_DEFAULT_WINDOW, BROTLI_MODE_GENERIC, n, in, &len,
                                   out->data + out->len))
            return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "BROTLI compression failed");
        out->len += len;
        return SQE_OK;
    }
    case PQ_CODEC_ZSTD: {
        if (!c->zstd) {
            c->zstd = ZSTD_createCCtx();
            if (!c->zstd) return err_nomem(err, "ZSTD compressor");
        }
        size_t cap = ZSTD_compressBound(n);
        SQE_TRY(pq_buf_reserve(out, cap, err));
        size_t len = ZSTD_compressCCtx(c->zstd, out->data + out->len, cap, in, n, c->level);
        if (ZSTD_isError(len))
            return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "ZSTD compression failed: %s",
                           ZSTD_getErrorName(len));
        out->len += len;
        return SQE_OK;
    }
    case PQ_CODEC_LZ4_RAW: {
        if (n > (size_t)LZ4_MAX_INPUT_SIZE)
            return err_set(err, SQE_ERR_NOT_SUPPORTED, "unsupported: LZ4_RAW page over %d bytes",
                           LZ4_MAX_INPUT_SIZE);
        if (!c->lz4) {
            c->lz4 = malloc((size_t)LZ4_sizeofState());
            if (!c->lz4) return err_nomem(err, "LZ4 compressor");
        }
        int cap = LZ4_compressBound((int)n);
        SQE_TRY(pq_buf_reserve(out, (size_t)cap, err));
        int len = LZ4_compress_fast_extState(c->lz4, (const char *)in, (char *)out->data + out->len,
                                             (int)n, cap, 1);
        if (len <= 0 && n > 0)
            return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "LZ4_RAW compression failed");
        out->len += (size_t)(len > 0 ? len : 0);
        return SQE_OK;
    }
    default:
        return pq_compressor_check(c->codec, 0, err);
    }
}

/* ---- bloom filters --------------------------------------------------------------------------- */

/* BloomFilter.md "Technical Approach": the eight salts of the block insert/check. */
static const uint32_t sbbf_salt[8] = {0x47b6137bu, 0x44974d91u, 0x8824ad5bu, 0xa2b7289du,
                                      0x705495c7u, 0x2df1424bu, 0x9efc4947u, 0x5c6bfb31u};

uint32_t pq_sbbf_bytes(uint64_t ndv, double fpp) {
    if (ndv == 0) ndv = 1;
    if (fpp <= 0.0 || fpp >= 1.0) fpp = 0.01;
    /* m = -8 * ndv / ln(1 - fpp^(1/8)) bits (BloomFilter.md "Sizing") */
    double bits = -8.0 * (double)ndv / log(1.0 - pow(fpp, 1.0 / 8.0));
    double bytes = bits / 8.0;
    uint32_t n = 32;
    while (n < bytes && n < (128u << 20)) n <<= 1;
    return n;
}

static inline uint32_t sbbf_block(uint64_t hash, uint32_t n_bytes) {
    uint64_t n_blocks = n_bytes / 32;
    return (uint32_t)(((hash >> 32) * n_blocks) >> 32);
}

void pq_sbbf_insert(uint8_t *bitset, uint32_t n_bytes, uint64_t hash) {
    uint8_t *block = bitset + (size_t)sbbf_block(hash, n_bytes) * 32;
    uint32_t key = (uint32_t)hash;
    for (int i = 0; i < 8; i++) {
        uint32_t word;
        memcpy(&word, block + 4 * i, 4);
        word |= 1u << ((key * sbbf_salt[i]) >> 27);
        memcpy(block + 4 * i, &word, 4);
    }
}

bool pq_sbbf_check(const uint8_t *bitset, uint32_t n_bytes, uint64_t hash) {
    const uint8_t *block = bitset + (size_t)sbbf_block(hash, n_bytes) * 32;
    uint32_t key = (uint32_t)hash;
    for (int i = 0; i < 8; i++) {
        uint32_t word;
        memcpy(&word, block + 4 * i, 4);
        if (!(word & (1u << ((key * sbbf_salt[i]) >> 27)))) return false;
    }
    return true;
}

uint64_t pq_sbbf_hash(const void *data, size_t len) { return XXH64(data, len, 0); }

/* ---- statistics ----------------------------------------------------------------------------- */

void pq_minmax_i32(const int32_t *v, size_t n, int32_t *min, int32_t *max) {
    int32_t lo = v[0], hi = v[0];
    for (size_t i = 1; i < n; i++) {
        lo = v[i] < lo ? v[i] : lo;
        hi = v[i] > hi ? v[i] : hi;
    }
    *min = lo;
    *max = hi;
}

void pq_minmax_i64(const int64_t *v, size_t n, int64_t *min, int64_t *max) {
    int64_t lo = v[0], hi = v[0];
    for (size_t i = 1; i < n; i++) {
        lo = v[i] < lo ? v[i] : lo;
        hi = v[i] > hi ? v[i] : hi;
    }
    *min = lo;
    *max = hi;
}

#define MINMAX_FLOAT_BODY(T, ZERO_NEG, ZERO_POS)                                                   \
    size_t i = 0;                                                                                  \
    while (i < n && isnan(v[i])) i++;                                                              \
    if (i == n) return false;                                                                      \
    T lo = v[i], hi = v[i];                                                                        \
    for (; i < n; i++) {                                                                           \
        T x = v[i];                                                                                \
        /* comparisons with NaN are false: NaN never becomes a bound */                            \
        if (x < lo) lo = x;                                                                        \
        if (x > hi) hi = x;                                                                        \
    }                                                                                              \
    *min = lo == 0 ? ZERO_NEG : lo;                                                                \
    *max = hi == 0 ? ZERO_POS : hi;                                                                \
    return true;

bool pq_minmax_f32(const float *v, size_t n, float *min, float *max) {
    MINMAX_FLOAT_BODY(float, -0.0f, 0.0f)
}

bool pq_minmax_f64(const double *v, size_t n, double *min, double *max) {
    MINMAX_FLOAT_BODY(double, -0.0, 0.0)
}

void pq_minmax_bool(const uint8_t *v, size_t n, uint8_t *min, uint8_t *max) {
    uint8_t any_true = 0, all_true = 1;
    for (size_t i = 0; i < n; i++) {
        any_true |= v[i];
        all_true &= v[i];
    }
    *min = all_true ? 1 : 0;
    *max = any_true ? 1 : 0;
}

int pq_compare_bytes(const uint8_t *a, size_t a_len, const uint8_t *b, size_t b_len) {
    size_t m = a_len < b_len ? a_len : b_len;
    int c = m ? memcmp(a, b, m) : 0;
    if (c) return c;
    return a_len < b_len ? -1 : a_len > b_len;
}

void pq_minmax_bytes(const uint32_t *lens, const uint8_t *data, size_t n, pq_bytes *min,
                     pq_bytes *max) {
    pq_bytes lo = {data, lens[0]}, hi = lo;
    const uint8_t *p = data + lens[0];
    for (size_t i = 1; i < n; i++) {
        uint32_t len = lens[i];
        if (pq_compare_bytes(p, len, lo.ptr, lo.len) < 0) lo = (pq_bytes){p, len};
        else if (pq_compare_bytes(p, len, hi.ptr, hi.len) > 0) hi = (pq_bytes){p, len};
        p += len;
    }
    *min = lo;
    *max = hi;
}

int pq_compare_be_signed(const uint8_t *a, const uint8_t *b, uint32_t width) {
    if (width == 0) return 0;
    int8_t sa = (int8_t)a[0], sb = (int8_t)b[0];
    if (sa != sb) return sa < sb ? -1 : 1;
    return width > 1 ? memcmp(a + 1, b + 1, width - 1) : 0;
}

void pq_minmax_flba(const uint8_t *v, size_t n, uint32_t width, bool is_signed,
                    const uint8_t **min, const uint8_t **max) {
    const uint8_t *lo = v, *hi = v;
    for (size_t i = 1; i < n; i++) {
        const uint8_t *x = v + i * width;
        int clo = is_signed ? pq_compare_be_signed(x, lo, width) : memcmp(x, lo, width);
        if (clo < 0) {
            lo = x;
            continue;
        }
        int chi = is_signed ? pq_compare_be_signed(x, hi, width) : memcmp(x, hi, width);
        if (chi > 0) hi = x;
    }
    *min = lo;
    *max = hi;
}

size_t pq_truncate_lower(const uint8_t *v, size_t len, size_t limit, bool utf8) {
    if (len <= limit) return len;
    /* v[limit] is the first byte cut off; if it continues a character, cut before that one */
    return utf8 ? utf8_char_start((const char *)v, limit) : limit;
}

static bool truncate_upper_binary(const uint8_t *v, size_t cut, uint8_t *out, size_t *out_len) {
    while (cut > 0 && v[cut - 1] == 0xFF) cut--;
    if (cut == 0) return false;
    memcpy(out, v, cut);
    out[cut - 1]++;
    *out_len = cut;
    return true;
}

bool pq_truncate_upper(const uint8_t *v, size_t len, size_t limit, bool utf8, uint8_t *out,
                       size_t *out_len) {
    if (len <= limit) {
        if (len) memcpy(out, v, len);
        *out_len = len;
        return true;
    }
    if (!utf8) return truncate_upper_binary(v, limit, out, out_len);
    const char *text = (const char *)v;
    size_t cut = utf8_char_start(text, limit);
    while (cut > 0) {
        size_t start = utf8_char_start(text, cut - 1);
        uint32_t cp;
        if (utf8_decode(text + start, cut - start, &cp) != cut - start)
            return truncate_upper_binary(v, limit, out, out_len); /* not UTF-8 */
        uint32_t next = cp + 1;
        if (next >= 0xD800 && next <= 0xDFFF) next = 0xE000;
        if (next <= 0x10FFFF) {
            char enc[4];
            size_t enc_len = utf8_encode(next, enc);
            if (start + enc_len <= limit) {
                if (start) memcpy(out, v, start);
                memcpy(out + start, enc, enc_len);
                *out_len = start + enc_len;
                return true;
            }
        }
        cut = start; /* drop this character and bump the one before */
    }
    return false;
}
