/*
 * roaring.h: a 64-bit Roaring bitmap of row positions (the in-memory form of Iceberg position
 * deletes and deletion vectors) and its "portable" serialization.
 *
 * Spec: RoaringBitmap/RoaringFormatSpec ("Standard 32-bit Roaring Bitmap", "Extension for
 * 64-bit implementations"); the Iceberg Puffin spec, "deletion-vector-v1" blob type, uses that
 * 64-bit portable form.
 *
 * Layout: a sorted array of buckets keyed by the high 32 bits of a position; each bucket is a
 * 32-bit Roaring bitmap, a sorted array of containers keyed by the next 16 bits, each holding
 * the low 16 bits either as a sorted uint16 array (at most 4096 values) or as a 65536-bit
 * bitmap. Runs are a serialization form only (read, and written when smaller).
 *
 * Memory: malloc; an ice_roaring is caller-owned storage (ice_roaring_init, ice_roaring_reset
 * frees everything). Not thread-safe for writing; any number of threads may read a bitmap
 * nobody writes (contains, iterators, serialization).
 */
#ifndef SQE_ICEBERG_ROARING_H
#define SQE_ICEBERG_ROARING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

typedef struct ice_roaring_container ice_roaring_container;
typedef struct ice_roaring_bucket ice_roaring_bucket;

typedef struct ice_roaring {
    uint32_t n_buckets;
    uint32_t cap_buckets;
    ice_roaring_bucket *buckets;
    uint64_t cardinality;
} ice_roaring;

/* An in-order cursor over a bitmap nobody modifies while it is used. */
typedef struct ice_roaring_iter {
    const ice_roaring *r;
    uint32_t bucket;
    uint32_t container;
    uint32_t index; /* array: next entry; bitmap: next bit to test */
} ice_roaring_iter;

/* Makes r an empty bitmap (allocates nothing). */
void ice_roaring_init(ice_roaring *r);
/* Frees everything r holds; r is empty afterwards and may be reused. */
void ice_roaring_reset(ice_roaring *r);

/* Adds pos (any 64-bit value; adding a present value is a no-op). Appending in ascending order
 * is the fast path. Errors: OUT_OF_MEMORY; r is unchanged then. */
int ice_roaring_add(ice_roaring *r, uint64_t pos, sqe_error *err);
/* Adds every value of src to dst. Errors: OUT_OF_MEMORY; dst then holds a subset of the
 * union (still a valid bitmap). */
int ice_roaring_add_all(ice_roaring *dst, const ice_roaring *src, sqe_error *err);

bool ice_roaring_contains(const ice_roaring *r, uint64_t pos);
static inline uint64_t ice_roaring_cardinality(const ice_roaring *r) { return r->cardinality; }
/* Largest value (undefined for an empty bitmap: returns 0). */
uint64_t ice_roaring_max(const ice_roaring *r);

/* Starts an iterator at the smallest value. */
void ice_roaring_iter_init(ice_roaring_iter *it, const ice_roaring *r);
/* Moves the iterator to the first value >= pos (forward or backward). */
void ice_roaring_iter_seek(ice_roaring_iter *it, uint64_t pos);
/* Stores up to max next values in ascending order into out; returns how many (0 at the end). */
uint32_t ice_roaring_iter_next(ice_roaring_iter *it, uint64_t *out, uint32_t max);

/* Bytes of the 64-bit portable serialization of r. */
size_t ice_roaring_portable_size(const ice_roaring *r);
/* Writes the portable serialization (exactly ice_roaring_portable_size(r) bytes) to out: the
 * bucket count (8 bytes LE), then per bucket its key (4 bytes LE) and a 32-bit Roaring bitmap
 * (run containers where they are smaller, with the offset header when the spec asks for it). */
void ice_roaring_portable_write(const ice_roaring *r, uint8_t *out);
/*
 * Reads a portable serialization from p[0..len) into r, which must be empty. *used (may be
 * NULL) receives the bytes consumed (trailing bytes are the caller's business). Everything is
 * checked: cookies, counts against the remaining bytes, keys strictly ascending, array values
 * ascending, bitmap popcounts and run totals equal to the stated cardinalities, runs inside
 * their container, offset headers equal to the real container offsets. Empty 32-bit bitmaps
 * (Iceberg Java writes one for every key below the largest) are accepted.
 * Errors: INVALID_FILE "Invalid Roaring bitmap: ...", OUT_OF_MEMORY; r is empty then.
 */
int ice_roaring_portable_read(ice_roaring *r, const uint8_t *p, size_t len, size_t *used,
                              sqe_error *err);

#endif
