/*
 * sort_keys.h: normalized sort keys (ENGINE.md "Sort, top-N, window"): the ORDER BY columns of a
 * row encoded into a byte string whose memcmp order is the SQL order, sorting of such keys
 * (MSD radix sort), k-way merging of sorted runs, and the bounded top-N heap.
 *
 * Entry format: every sorted item is a fixed-width entry [key bytes][pad][payload u64], where
 * the payload is whatever the operator needs to find the row again (a row pointer, a row
 * number). Per key column the encoding is
 *   [NULL byte][value bytes]
 * NULL byte: 0 for NULL with NULLS FIRST, 2 for NULL with NULLS LAST, 1 otherwise (value bytes of
 * a NULL are zero). Value bytes: integers big-endian with the sign bit flipped; floats with the
 * IEEE trick (negative: all bits inverted, positive: sign flipped), -0 = 0, every NaN one value
 * above +infinity (Trino orders NaN last); long decimals as 16-byte big-endian; timestamps with
 * time zone by their instant; UUIDs as their 16 bytes; strings as their first `prefix` bytes
 * (zero padded) followed by one length byte (min(len, prefix + 1)). DESC inverts the value bytes
 * (never the NULL byte). Strings longer than the prefix and nested values (arrays, maps, rows:
 * NULL byte only) may tie in their bytes while their values differ: such keys are "truncated"
 * and the operator provides a tie-break comparator that compares the real values.
 */
#ifndef SQE_EXEC_SORT_KEYS_H
#define SQE_EXEC_SORT_KEYS_H

#include <stdbool.h>
#include <stdint.h>

#include "common/arena.h"
#include "common/err.h"
#include "common/mem.h"
#include "exec/hashtable.h"
#include "vec/vec.h"

typedef struct exec_sort_key {
    sqe_type type;
    bool desc;
    bool nulls_first;
    bool truncated;   /* bytes may tie while values differ (long strings, nested values) */
    uint32_t offset;  /* of the NULL byte within the key */
    uint32_t width;   /* NULL byte + value bytes */
    uint32_t prefix;  /* strings: value bytes kept before the length byte */
} exec_sort_key;

typedef struct exec_sort_spec {
    uint32_t n_keys;
    exec_sort_key *keys;
    uint32_t key_width;     /* K: bytes of the encoded key */
    uint32_t entry_width;   /* K rounded up to 8, plus the 8-byte payload */
    bool needs_tiebreak;    /* some key is truncated */
} exec_sort_spec;

/* Describes the keys (types, directions, NULL placement); memory from a. */
int exec_sort_spec_init(exec_sort_spec *s, arena *a, const sqe_type *types, const bool *desc,
                        const bool *nulls_first, uint32_t n_keys, sqe_error *err);

/* Encodes key k for rows 0..count-1 of v (any shape) into entries + i * stride + key offset.
 * sel (may be NULL) maps i to the vector row. */
void exec_sort_encode(const exec_sort_spec *s, uint32_t k, const vec *v, const uint32_t *sel,
                      uint32_t count, uint8_t *entries, uint32_t stride);

static inline uint64_t exec_sort_payload(const exec_sort_spec *s, const uint8_t *entry) {
    uint64_t p;
    memcpy(&p, entry + s->entry_width - 8, 8);
    return p;
}
static inline void exec_sort_set_payload(const exec_sort_spec *s, uint8_t *entry, uint64_t p) {
    memcpy(entry + s->entry_width - 8, &p, 8);
}

/* Full comparison of two entries (all keys, real values): returns <0, 0, >0 as entry a sorts
 * before, with, after entry b. Called only for entries holding truncated values. */
typedef int (*exec_sort_tiebreak)(void *ud, const uint8_t *a, const uint8_t *b);

/* The string value of key k of an entry (a string key whose value is not NULL), at an address
 * that stays valid during the sort (the row's or the vector's own view). */
typedef const sqe_str *(*exec_sort_str_fn)(void *ud, const uint8_t *entry, uint32_t k);

/* How entries with truncated values are compared: strings through str (their bytes after the
 * prefix), anything else (nested values, or strings without str) through tb. Either may be
 * NULL; with neither, truncated values compare by their key bytes only. */
typedef struct exec_sort_ctx {
    exec_sort_tiebreak tb;
    exec_sort_str_fn str;
    void *ud;
} exec_sort_ctx;

/* Compares two entries whose key bytes [0, depth) are equal: memcmp of the key bytes, except
 * that where both share the bytes of a key holding a truncated value the real values decide
 * (and the comparison goes on with the next key when they are equal). c may be NULL. */
int exec_sort_cmp_from(const exec_sort_spec *s, const uint8_t *a, const uint8_t *b,
                       uint32_t depth, const exec_sort_ctx *c);

static inline int exec_sort_entry_cmp(const exec_sort_spec *s, const uint8_t *a, const uint8_t *b,
                                      const exec_sort_ctx *c) {
    if (!c || !s->needs_tiebreak) return memcmp(a, b, s->key_width);
    return exec_sort_cmp_from(s, a, b, 0, c);
}

/* Sorts n entries in place (MSD radix sort on the key bytes, insertion sort for small buckets).
 * Entries whose key bytes agree up to a truncated string key are ordered by a multikey
 * quicksort on the rest of the strings (c->str) and then by the following keys; other
 * truncated values by c->tb. Scratch memory through tracker. Not stable. */
int exec_sort_entries(const exec_sort_spec *s, uint8_t *entries, uint64_t n,
                      const exec_sort_ctx *c, mem_tracker *tracker, sqe_error *err);

/* Merges n_runs sorted runs (runs[i] with run_n[i] entries) into out (room for the sum). */
void exec_sort_merge(const exec_sort_spec *s, uint8_t *const *runs, const uint64_t *run_n,
                     uint32_t n_runs, uint8_t *out, const exec_sort_ctx *c);

/* SQL order of two values of the key's type (rows of any-shaped vectors), with the key's
 * direction and NULL placement: <0, 0, >0. */
int exec_sort_compare_values(const exec_sort_key *k, const vec *a, uint32_t ra, const vec *b,
                             uint32_t rb);
/* The same for field f of two rows of a row layout. */
int exec_sort_compare_fields(const exec_sort_key *k, const exec_row_layout *l, const uint8_t *a,
                             const uint8_t *b, uint32_t f);

/* --------------------------------------------------------------------------------------------
 * Top-N heap: the `limit` smallest entries seen so far, as a max-heap (the worst at the top).
 * ------------------------------------------------------------------------------------------ */

typedef struct exec_topn_heap {
    const exec_sort_spec *spec;
    exec_sort_ctx cmp;
    uint8_t *entries;  /* capacity * entry_width bytes */
    uint64_t size;
    uint64_t capacity;
    mem_tracker *tracker;
} exec_topn_heap;

int exec_topn_heap_init(exec_topn_heap *h, const exec_sort_spec *spec, uint64_t capacity,
                        const exec_sort_ctx *c, mem_tracker *tracker, sqe_error *err);
void exec_topn_heap_destroy(exec_topn_heap *h);
/* Would the entry enter the heap (heap not full, or entry sorts before the current worst)? */
bool exec_topn_heap_admits(const exec_topn_heap *h, const uint8_t *entry);
/* Adds the entry (the caller checked exec_topn_heap_admits); when the heap was full the worst
 * entry is evicted and copied into evicted (may be NULL) and true is returned. */
bool exec_topn_heap_push(exec_topn_heap *h, const uint8_t *entry, uint8_t *evicted);
/* Sorts the heap's entries ascending in place (the heap is no longer a heap afterwards). */
void exec_topn_heap_sort(exec_topn_heap *h);

#endif
