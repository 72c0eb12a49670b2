/*
 * murmur3.c: the 32-bit hash behind Iceberg's bucket[N] transform: MurmurHash3, x86 variant,
 * 32-bit result, seed 0 (Austin Appleby's public-domain algorithm), and the per-type byte
 * forms that Iceberg spec "Appendix B: 32-bit Hash Requirements" defines.
 *
 * INTERFACE
 *   ice_murmur3_32      hashBytes(data)
 *   ice_hash_long       hashLong(v): 8 little-endian bytes (also int, date, time, timestamps)
 *   ice_hash_decimal    minimal big-endian two's-complement bytes of the unscaled value
 *   ice_hash_double     doubleToLongBits with NaN and -0.0 canonicalized (not for buckets)
 *   ice_hash_value      the hash of one SQE value, dispatched on its type
 *
 * NOTES
 *   Blocks are read byte by byte as little-endian words, so the result does not depend on the
 *   host's byte order or on alignment. Arithmetic is on uint32_t (wrapping is defined); the
 *   final cast to int32_t gives Java's signed view of the same bits.
 *   Appendix B note 1: int and long hash the same for equal values, so an int column promoted
 *   to long keeps its buckets; dates likewise hash as longs ("hashInt" is defined by note 1 as
 *   hashLong of the widened value, which the spec's date test vector confirms).
 */
#include <string.h>

#include "iceberg/transform.h"

static inline uint32_t rotl32(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }

static inline uint32_t fmix32(uint32_t h) {
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

int32_t ice_murmur3_32(const void *data, size_t len) {
    const uint8_t *p = data;
    const uint32_t c1 = 0xcc9e2d51u, c2 = 0x1b873593u;
    uint32_t h1 = 0; /* seed 0 */
    size_t n_blocks = len / 4;
    for (size_t i = 0; i < n_blocks; i++) {
        const uint8_t *b = p + 4 * i;
        uint32_t k1 = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
                      (uint32_t)b[3] << 24;
        k1 *= c1;
        k1 = rotl32(k1, 15);
        k1 *= c2;
        h1 ^= k1;
        h1 = rotl32(h1, 13);
        h1 = h1 * 5 + 0xe6546b64u;
    }
    const uint8_t *tail = p + 4 * n_blocks;
    uint32_t k1 = 0;
    switch (len & 3) {
    case 3:
        k1 ^= (uint32_t)tail[2] << 16;
        /* fall through */
    case 2:
        k1 ^= (uint32_t)tail[1] << 8;
        /* fall through */
    case 1:
        k1 ^= tail[0];
        k1 *= c1;
        k1 = rotl32(k1, 15);
        k1 *= c2;
        h1 ^= k1;
        break;
    default:
        break;
    }
    h1 ^= (uint32_t)len;
    return (int32_t)fmix32(h1);
}

int32_t ice_hash_long(int64_t v) {
    uint64_t u = (uint64_t)v;
    uint8_t b[8];
    for (int i = 0; i < 8; i++) b[i] = (uint8_t)(u >> (8 * i));
    return ice_murmur3_32(b, sizeof b);
}

int32_t ice_hash_decimal(int128 unscaled) {
    /* Java BigInteger.toByteArray(): the fewest bytes whose sign-extension is the value. */
    unsigned __int128 u = (unsigned __int128)unscaled;
    int n = 16;
    while (n > 1) {
        /* Byte n-1 (most significant kept) is redundant when it is pure sign extension of the
           next byte's top bit. */
        uint8_t top = (uint8_t)(u >> (8 * (n - 1)));
        uint8_t next = (uint8_t)(u >> (8 * (n - 2)));
        if ((top == 0x00 && !(next & 0x80)) || (top == 0xff && (next & 0x80)))
            n--;
        else
            break;
    }
    uint8_t b[16];
    for (int i = 0; i < n; i++) b[i] = (uint8_t)(u >> (8 * (n - 1 - i)));
    return ice_murmur3_32(b, (size_t)n);
}

int32_t ice_hash_double(double v) {
    uint64_t bits;
    if (v != v)
        bits = UINT64_C(0x7ff8000000000000);
    else {
        if (v == 0.0) v = 0.0; /* -0.0 -> +0.0 */
        memcpy(&bits, &v, sizeof bits);
    }
    return ice_hash_long((int64_t)bits);
}

bool ice_hash_value(const vec *v, uint32_t row, int32_t *out) {
    uint32_t phys;
    const vec *f = vec_resolve(v, row, &phys);
    if (!vec_is_valid_flat(f, phys)) return false;
    const void *data = f->data;
    switch ((type_id)v->type.id) {
    case TYPE_TINYINT: *out = ice_hash_long(((const int8_t *)data)[phys]); return true;
    case TYPE_SMALLINT: *out = ice_hash_long(((const int16_t *)data)[phys]); return true;
    case TYPE_INTEGER:
    case TYPE_DATE: *out = ice_hash_long(((const int32_t *)data)[phys]); return true;
    case TYPE_BIGINT:
    case TYPE_TIME:
    case TYPE_TIMESTAMP: *out = ice_hash_long(((const int64_t *)data)[phys]); return true;
    case TYPE_TIMESTAMP_TZ:
        *out = ice_hash_long(((const sqe_timestamp_tz *)data)[phys].micros);
        return true;
    case TYPE_DECIMAL:
        *out = ice_hash_decimal(type_decimal_is_long(v->type) ? ((const int128 *)data)[phys]
                                                              : ((const int64_t *)data)[phys]);
        return true;
    case TYPE_VARCHAR:
    case TYPE_CHAR:
    case TYPE_VARBINARY: {
        const sqe_str *s = &((const sqe_str *)data)[phys];
        *out = ice_murmur3_32(sqe_str_data(s), s->len);
        return true;
    }
    case TYPE_UUID: *out = ice_murmur3_32((const uint8_t *)data + 16 * (size_t)phys, 16); return true;
    default: return false;
    }
}
