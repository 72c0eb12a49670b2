/*
 * hash.h: the hash functions of the engine (hash joins, aggregation, DISTINCT, partitioning).
 *
 * 64-bit hashes; integers go through a multiply-xorshift finalizer, bytes through a
 * wyhash-style mixer. hash_combine folds a column's hash into a row's running hash. These are
 * for in-memory tables only; persistent formats (Iceberg bucket: murmur3, Parquet bloom: xxhash)
 * use their own, spec-defined functions.
 */
#ifndef SQE_COMMON_HASH_H
#define SQE_COMMON_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint64_t hash_u64(uint64_t x) {
    x ^= x >> 32;
    x *= 0xd6e8feb86659fd93ULL;
    x ^= x >> 32;
    x *= 0xd6e8feb86659fd93ULL;
    x ^= x >> 32;
    return x;
}

static inline uint64_t hash_combine(uint64_t seed, uint64_t h) {
    return hash_u64(seed ^ (h + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2)));
}

static inline uint64_t hash_mix128(uint64_t a, uint64_t b) {
    __uint128_t r = (__uint128_t)a * b;
    return (uint64_t)r ^ (uint64_t)(r >> 64);
}

/* Hash of len bytes at p. */
static inline uint64_t hash_bytes(const void *p, size_t len) {
    const unsigned char *s = p;
    uint64_t seed = 0xa0761d6478bd642fULL ^ len;
    while (len >= 16) {
        uint64_t a, b;
        memcpy(&a, s, 8);
        memcpy(&b, s + 8, 8);
        seed = hash_mix128(a ^ 0xe7037ed1a0b428dbULL, b ^ seed);
        s += 16;
        len -= 16;
    }
    uint64_t a = 0, b = 0;
    if (len >= 8) {
        memcpy(&a, s, 8);
        if (len > 8) memcpy(&b, s + len - 8, 8);
    } else if (len > 0) {
        memcpy(&a, s, len);
    }
    return hash_u64(hash_mix128(a ^ 0x8ebc6af09c88c6e3ULL, b ^ seed));
}

#endif
