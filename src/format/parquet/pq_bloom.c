/*
 * pq_bloom.c: Parquet split-block bloom filters (BloomFilter.md): the BloomFilterHeader, the
 * block check/insert of the spec, and the equality test of a predicate against a column
 * chunk's filter.
 *
 * INTERFACE
 *   pq_bloom_header_decode     BloomFilterHeader -> header size, bitset size
 *   pq_bloom_decode            header + bitset view
 *   pq_bloom_hash              XXH64 (seed 0) of a PLAIN-encoded value
 *   pq_bloom_check_hash, pq_bloom_insert_hash
 *   pq_bloom_may_contain       EQ / IN test of SQE constants
 * NOTES
 *   Writers hash the PLAIN encoding of the physical value: 4 bytes little-endian for INT32
 *   (dates, decimals in INT32, unsigned integers as their bit pattern), 8 for INT64, the raw
 *   bytes of FLOAT/DOUBLE, the bytes of a BYTE_ARRAY without its length prefix, the bytes of a
 *   FIXED_LEN_BYTE_ARRAY. An SQE constant is converted back to that value. Conversions that
 *   are not injective or not exact are handled so that the answer stays conservative:
 *   - a constant the file's type cannot hold is provably absent (false): a TIME/TIMESTAMP with
 *     sub-millisecond digits in a millisecond column, an unsigned or narrow integer out of its
 *     range, a decimal too wide for its INT32/INT64/FIXED_LEN_BYTE_ARRAY width, a REAL that is
 *     not exactly a FLOAT16, a binary of another length than a FIXED_LEN_BYTE_ARRAY's;
 *   - a constant with many possible file values answers true: nanosecond and INT96 timestamps
 *     (the reader floors them to microseconds), decimals in BYTE_ARRAY (the writer chooses the
 *     width), NaN (many bit patterns), booleans (writers build no filters for them);
 *   - 0.0 is probed as both +0.0 and -0.0, which compare equal but hash differently.
 *   Bitsets are borrowed, never copied; checking allocates nothing.
 */
#include "format/parquet/pq_prune.h"

#include <math.h>
#include <string.h>

#include <xxhash.h>

#include "format/parquet/thrift.h"
#include "types/decimal.h"
#include "vec/vec.h"

/* ---- header ---------------------------------------------------------------------------------- */

/* Reads a union (BloomFilterAlgorithm / Hash / Compression) whose only known member is field 1
 * (an empty struct); *known tells whether that member was set. */
static int read_union(pq_thrift_reader *r, bool *known) {
    *known = false;
    int members = 0;
    SQE_TRY(pq_thrift_struct_begin(r));
    for (;;) {
        int t;
        int16_t fid;
        SQE_TRY(pq_thrift_field_header(r, &t, &fid));
        if (t == PQ_THRIFT_STOP) break;
        if (fid == 1 && t == PQ_THRIFT_STRUCT) *known = true;
        members++;
        SQE_TRY(pq_thrift_skip(r, t));
    }
    pq_thrift_struct_end(r);
    if (members != 1) *known = false;
    return SQE_OK;
}

int pq_bloom_header_decode(const uint8_t *buf, size_t len, uint32_t *header_len,
                           uint32_t *n_bytes, sqe_error *err) {
    pq_thrift_reader r;
    bool has_size = false, has_alg = false, has_hash = false, has_comp = false;
    bool alg_ok = false, hash_ok = false, comp_ok = false;
    int32_t size = 0;
    *header_len = 0;
    *n_bytes = 0;
    pq_thrift_init(&r, buf, len, err);
    SQE_TRY(pq_thrift_struct_begin(&r));
    for (;;) {
        int t;
        int16_t fid;
        SQE_TRY(pq_thrift_field_header(&r, &t, &fid));
        if (t == PQ_THRIFT_STOP) break;
        if (fid == 1 && t == PQ_THRIFT_I32) {
            SQE_TRY(pq_thrift_read_i32(&r, &size));
            has_size = true;
        } else if (fid == 2 && t == PQ_THRIFT_STRUCT) {
            SQE_TRY(read_union(&r, &alg_ok));
            has_alg = true;
        } else if (fid == 3 && t == PQ_THRIFT_STRUCT) {
            SQE_TRY(read_union(&r, &hash_ok));
            has_hash = true;
        } else if (fid == 4 && t == PQ_THRIFT_STRUCT) {
            SQE_TRY(read_union(&r, &comp_ok));
            has_comp = true;
        } else {
            SQE_TRY(pq_thrift_skip(&r, t));
        }
    }
    pq_thrift_struct_end(&r);
    if (!has_size || !has_alg || !has_hash || !has_comp)
        return err_set(err, SQE_ERR_INVALID_FILE,
                       "Invalid Parquet bloom filter: header without size, algorithm, hash or "
                       "compression");
    if (!alg_ok || !hash_ok || !comp_ok)
        return err_set(err, SQE_ERR_NOT_SUPPORTED,
                       "unsupported: Parquet bloom filter algorithm, hash or compression");
    if (size <= 0 || size % 32 != 0 || (uint32_t)size > PQ_BLOOM_MAX_BYTES)
        return err_set(err, SQE_ERR_INVALID_FILE,
                       "Invalid Parquet bloom filter: bitset size %d", (int)size);
    *header_len = (uint32_t)r.pos;
    *n_bytes = (uint32_t)size;
    return SQE_OK;
}

int pq_bloom_decode(const uint8_t *buf, size_t len, pq_bloom *out, sqe_error *err) {
    uint32_t header_len, n_bytes;
    memset(out, 0, sizeof(*out));
    SQE_TRY(pq_bloom_header_decode(buf, len, &header_len, &n_bytes, err));
    if (len - header_len < n_bytes)
        return err_set(err, SQE_ERR_INVALID_FILE,
                       "Invalid Parquet bloom filter: bitset truncated (%zu of %u bytes)",
                       len - header_len, n_bytes);
    out->bitset = buf + header_len;
    out->n_bytes = n_bytes;
    return SQE_OK;
}

/* ---- split-block filter (BloomFilter.md) ----------------------------------------------------- */

static const uint32_t bloom_salt[8] = {0x47b6137bU, 0x44974d91U, 0x8824ad5bU, 0xa2b7289dU,
                                       0x705495c7U, 0x2df1424bU, 0x9efc4947U, 0x5c6bfb31U};

uint64_t pq_bloom_hash(const void *data, size_t len) { return XXH64(data, len, 0); }

static uint32_t load_word(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

bool pq_bloom_check_hash(const pq_bloom *b, uint64_t hash) {
    if (!b || !b->bitset || b->n_bytes < 32) return true;
    uint64_t n_blocks = b->n_bytes / 32;
    uint64_t block = ((hash >> 32) * n_blocks) >> 32;
    const uint8_t *words = b->bitset + block * 32;
    uint32_t key = (uint32_t)hash;
    for (int i = 0; i < 8; i++) {
        uint32_t bit = (key * bloom_salt[i]) >> 27;
        if (!((load_word(words + 4 * i) >> bit) & 1)) return false;
    }
    return true;
}

void pq_bloom_insert_hash(uint8_t *bitset, uint32_t n_bytes, uint64_t hash) {
    if (!bitset || n_bytes < 32) return;
    uint64_t n_blocks = n_bytes / 32;
    uint64_t block = ((hash >> 32) * n_blocks) >> 32;
    uint8_t *words = bitset + block * 32;
    uint32_t key = (uint32_t)hash;
    for (int i = 0; i < 8; i++) {
        uint32_t bit = (key * bloom_salt[i]) >> 27;
        words[4 * i + bit / 8] |= (uint8_t)(1u << (bit % 8));
    }
}

/* ---- constants -> physical values ------------------------------------------------------------ */

/* The answer for one constant: absent (false), maybe (true) or a PLAIN encoding to probe. */
typedef enum probe { PROBE_ABSENT, PROBE_MAYBE, PROBE_BYTES } probe;

static void store_le(uint8_t *out, uint64_t v, int n) {
    for (int i = 0; i < n; i++) out[i] = (uint8_t)(v >> (8 * i));
}

/* Fills buf / *data / *len with the PLAIN encoding of an integer-like constant v. */
static probe int_probe(int128 v, int128 lo, int128 hi, int width, uint8_t *buf,
                       const uint8_t **data, size_t *len) {
    if (v < lo || v > hi) return PROBE_ABSENT;
    store_le(buf, (uint64_t)v, width);
    *data = buf;
    *len = (size_t)width;
    return PROBE_BYTES;
}

/* A millisecond column holds v (microseconds) only when v is whole milliseconds. */
static probe millis_probe(int128 v, int width, uint8_t *buf, const uint8_t **data, size_t *len) {
    if (v % 1000 != 0) return PROBE_ABSENT;
    int128 ms = v / 1000;
    if (width == 4) return int_probe(ms, INT32_MIN, INT32_MAX, 4, buf, data, len);
    return int_probe(ms, INT64_MIN, INT64_MAX, 8, buf, data, len);
}

/* Big-endian two's complement of v in exactly width bytes (FIXED_LEN_BYTE_ARRAY decimals). */
static probe flba_decimal_probe(int128 v, int32_t width, uint8_t *buf, const uint8_t **data,
                                size_t *len) {
    if (width <= 0 || width > 32) return PROBE_MAYBE;
    if (width < 16) {
        int128 lim = (int128)1 << (8 * width - 1);
        if (v < -lim || v >= lim) return PROBE_ABSENT;
    }
    unsigned __int128 u = (unsigned __int128)v;
    uint8_t fill = v < 0 ? 0xff : 0x00;
    for (int32_t i = width - 1, shift = 0; i >= 0; i--, shift += 8)
        buf[i] = shift < 128 ? (uint8_t)(u >> shift) : fill;
    *data = buf;
    *len = (size_t)width;
    return PROBE_BYTES;
}

/* A REAL value as IEEE 754 binary16 bits, when it is exactly one (FLOAT16 columns read every
 * half exactly as a REAL, so no other REAL can equal a column value). */
static bool float_to_half_exact(float f, uint16_t *out) {
    uint16_t sign = signbit(f) ? 0x8000 : 0;
    float a = fabsf(f);
    if (isnan(a)) return false;
    if (isinf(a)) {
        *out = sign | 0x7c00;
        return true;
    }
    if (a == 0.0f) {
        *out = sign;
        return true;
    }
    if (a < 0x1p-14f) { /* subnormal half: k * 2^-24, k < 1024 */
        float k = a * 0x1p24f;
        if (k != floorf(k)) return false;
        *out = sign | (uint16_t)k;
        return true;
    }
    int e;
    float m = frexpf(a, &e); /* a = m * 2^e, m in [0.5, 1) */
    int biased = e - 1 + 15;
    if (biased > 30) return false;
    float frac = (2.0f * m - 1.0f) * 1024.0f; /* exact: scaling by powers of two */
    if (frac != floorf(frac)) return false;
    *out = sign | (uint16_t)(biased << 10) | (uint16_t)frac;
    return true;
}

/* Converts constant c (a bound of the leaf's SQE type) to the PLAIN encoding the writer hashed.
 * buf holds at least 32 bytes. */
static probe constant_probe(const pq_node *leaf, const pq_bound *c, uint8_t *buf,
                            const uint8_t **data, size_t *len) {
    switch (leaf->conv) {
    case PQ_CONV_I32:
    case PQ_CONV_I32_TO_I8:
    case PQ_CONV_I32_TO_I16:
    case PQ_CONV_I32_TO_I64:
        if (c->kind != PQ_BOUND_INT) return PROBE_MAYBE;
        return int_probe(c->i, INT32_MIN, INT32_MAX, 4, buf, data, len);
    case PQ_CONV_U8_TO_I16:
        if (c->kind != PQ_BOUND_INT) return PROBE_MAYBE;
        return int_probe(c->i, 0, UINT8_MAX, 4, buf, data, len);
    case PQ_CONV_U16_TO_I32:
        if (c->kind != PQ_BOUND_INT) return PROBE_MAYBE;
        return int_probe(c->i, 0, UINT16_MAX, 4, buf, data, len);
    case PQ_CONV_U32_TO_I64:
        if (c->kind != PQ_BOUND_INT) return PROBE_MAYBE;
        return int_probe(c->i, 0, UINT32_MAX, 4, buf, data, len);
    case PQ_CONV_I32_MILLIS_TO_MICROS:
        if (c->kind != PQ_BOUND_INT) return PROBE_MAYBE;
        return millis_probe(c->i, 4, buf, data, len);
    case PQ_CONV_I64:
    case PQ_CONV_I64_TO_I128:
    case PQ_CONV_I64_TO_TSTZ:
        if (c->kind != PQ_BOUND_INT) return PROBE_MAYBE;
        return int_probe(c->i, INT64_MIN, INT64_MAX, 8, buf, data, len);
    case PQ_CONV_U64_TO_I64DEC:
        if (c->kind != PQ_BOUND_INT) return PROBE_MAYBE;
        return int_probe(c->i, 0, UINT64_MAX, 8, buf, data, len);
    case PQ_CONV_I64_MILLIS_TO_MICROS:
    case PQ_CONV_I64_MILLIS_TO_TSTZ:
        if (c->kind != PQ_BOUND_INT) return PROBE_MAYBE;
        return millis_probe(c->i, 8, buf, data, len);
    case PQ_CONV_FLOAT: {
        if (c->kind != PQ_BOUND_FLOAT) return PROBE_MAYBE;
        float f = (float)c->f;
        if ((double)f != c->f) return PROBE_ABSENT; /* not a REAL value (cannot happen for REAL
                                                       constants, kept for safety) */
        memcpy(buf, &f, 4);
        *data = buf;
        *len = 4;
        return PROBE_BYTES;
    }
    case PQ_CONV_FLOAT16: {
        uint16_t h;
        if (c->kind != PQ_BOUND_FLOAT) return PROBE_MAYBE;
        float f = (float)c->f;
        if ((double)f != c->f || !float_to_half_exact(f, &h)) return PROBE_ABSENT;
        store_le(buf, h, 2);
        *data = buf;
        *len = 2;
        return PROBE_BYTES;
    }
    case PQ_CONV_DOUBLE:
        if (c->kind != PQ_BOUND_FLOAT) return PROBE_MAYBE;
        memcpy(buf, &c->f, 8);
        *data = buf;
        *len = 8;
        return PROBE_BYTES;
    case PQ_CONV_BYTES:
        if (c->kind != PQ_BOUND_BYTES) return PROBE_MAYBE;
        if (leaf->physical == PQ_TYPE_FIXED_LEN_BYTE_ARRAY && c->len != (uint32_t)leaf->type_length)
            return PROBE_ABSENT;
        *data = c->ptr;
        *len = c->len;
        return PROBE_BYTES;
    case PQ_CONV_UUID:
        if (c->kind != PQ_BOUND_BYTES || c->len != 16) return PROBE_MAYBE;
        *data = c->ptr;
        *len = 16;
        return PROBE_BYTES;
    case PQ_CONV_DEC_BYTES:
        if (c->kind != PQ_BOUND_INT) return PROBE_MAYBE;
        if (leaf->physical != PQ_TYPE_FIXED_LEN_BYTE_ARRAY) return PROBE_MAYBE;
        return flba_decimal_probe(c->i, leaf->type_length, buf, data, len);
    default:
        /* NULL, BOOL, INT96, nanoseconds: no single encoding to probe. */
        return PROBE_MAYBE;
    }
}

static bool constant_may_be_in(const pq_bloom *b, const pq_node *leaf, const pq_bound *c) {
    uint8_t buf[32];
    const uint8_t *data = NULL;
    size_t len = 0;
    probe pr = constant_probe(leaf, c, buf, &data, &len);
    if (pr == PROBE_ABSENT) return false;
    if (pr == PROBE_MAYBE) return true;
    if (pq_bloom_check_hash(b, pq_bloom_hash(data, len))) return true;
    if (c->kind == PQ_BOUND_FLOAT && c->f == 0.0) {
        /* The other zero: equal in SQL, different bits on disk. */
        pq_bound other = *c;
        other.f = signbit(c->f) ? 0.0 : -0.0;
        pr = constant_probe(leaf, &other, buf, &data, &len);
        return pr != PROBE_BYTES || pq_bloom_check_hash(b, pq_bloom_hash(data, len));
    }
    return false;
}

bool pq_bloom_may_contain(const pq_bloom *b, const pq_node *leaf, const pq_predicate *p) {
    if (!b || !b->bitset || !leaf || !p || !p->values || p->leaf != leaf) return true;
    if (leaf->kind != PQ_NODE_LEAF || leaf->max_rep != 0 || leaf->unsupported) return true;
    uint32_t n;
    if (p->op == PQ_PRED_EQ)
        n = p->n_values >= 1 ? 1 : 0;
    else if (p->op == PQ_PRED_IN)
        n = p->n_values;
    else
        return true;
    if (n == 0) return p->op == PQ_PRED_EQ; /* EQ without a constant: nothing to test */
    for (uint32_t i = 0; i < n; i++) {
        pq_bound c;
        if (!pq_bound_from_value(leaf, p->values, i, &c)) return true; /* NaN, type mismatch */
        if (constant_may_be_in(b, leaf, &c)) return true;
    }
    return false;
}
