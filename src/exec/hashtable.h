/*
 * hashtable.h: row-format storage and the open-addressing hash tables of the heavy operators
 * (hash join, hash aggregation, DISTINCT, set operations), ENGINE.md "Hash tables".
 *
 * Rows: a row layout places a fixed set of typed fields in a fixed-width row:
 *   [hash u64][next ptr (join rows only)][fields ...][NULL bitmap][pad][payload (16-aligned)]
 * Fixed-width values are stored inline, strings as 16-byte sqe_str views whose non-inline bytes
 * are copied into the row store's heap, nested values (array, map, row) as a reference to a copy
 * kept in side vectors of the row store. Rows live in append-only blocks of a row store and never
 * move, so pointers to rows stay valid for the store's lifetime.
 *
 * Tables: a power-of-two array of 64-bit entries, each the row pointer (low 48 bits) and a 16-bit
 * hash salt (high bits); 0 is empty; linear probing. Probing is vectorized: hash a whole chunk,
 * walk every row to its first salt match or empty slot, compare keys column by column for all
 * candidates at once, and continue only with the rows whose keys differed.
 *
 * Thread-safety: a row store and a table belong to one thread while they are written; read-only
 * use (probing a finished join table) is safe from any number of threads.
 */
#ifndef SQE_EXEC_HASHTABLE_H
#define SQE_EXEC_HASHTABLE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "common/arena.h"
#include "common/err.h"
#include "common/mem.h"
#include "vec/vec.h"

/* Reports a failed allocation of about n bytes made through tracker t by a helper that lost the
 * reason (arenas, vector bitmaps): EXCEEDED_MEMORY_LIMIT when the query's limit is what fails,
 * else OUT_OF_MEMORY naming `what`. Returns the code. */
int exec_alloc_error(mem_tracker *t, size_t n, sqe_error *err, const char *what);

/* --------------------------------------------------------------------------------------------
 * Hashing and key semantics
 * ------------------------------------------------------------------------------------------ */

/* Physical key kinds: how a type is stored, hashed and compared. */
typedef enum exec_key_kind {
    EXEC_KEY_U8 = 0,   /* boolean, tinyint, unknown */
    EXEC_KEY_I16,
    EXEC_KEY_I32,      /* integer, date, interval year-month */
    EXEC_KEY_I64,      /* bigint, short decimal, time, timestamp, interval day-second */
    EXEC_KEY_I128,     /* long decimal, uuid: 16 bytes compared bitwise */
    EXEC_KEY_F32,      /* real: -0 = 0, NaN = NaN */
    EXEC_KEY_F64,      /* double: same */
    EXEC_KEY_TSTZ,     /* timestamp with time zone: compared and hashed by the UTC instant */
    EXEC_KEY_STR,      /* varchar, char, varbinary, json (sqe_str views) */
    EXEC_KEY_NESTED,   /* array, map, row: generic (slow) path */
} exec_key_kind;

exec_key_kind exec_key_kind_of(sqe_type t);
/* Bytes a value of this type takes in a row (strings 16, nested 16). */
uint32_t exec_row_width_of(sqe_type t);

#define EXEC_HASH_NULL 0x5bd1e9955bd1e995ULL

/* hashes[i] = hash of row sel[i] of v (sel NULL = row i), for i < count; with combine, the
 * value's hash is folded into the existing hashes[i] (multi-column keys). Any shape. */
void exec_hash_vec(const vec *v, const uint32_t *sel, uint32_t count, uint64_t *hashes,
                   bool combine);

/* --------------------------------------------------------------------------------------------
 * Row layouts and row stores
 * ------------------------------------------------------------------------------------------ */

#define EXEC_ROW_HASH 0 /* offset of the row's hash (u64) */
#define EXEC_ROW_NEXT 8 /* offset of the chain pointer in layouts made with_next */

typedef struct exec_row_layout {
    uint32_t n_fields;
    sqe_type *types;
    uint8_t *kinds;          /* exec_key_kind per field */
    uint32_t *offsets;       /* field offsets in the row */
    uint32_t null_offset;    /* NULL bitmap: bit f set when field f is NULL */
    uint32_t payload_offset; /* 16-aligned */
    uint32_t payload_size;
    uint32_t row_width;      /* multiple of 16 with a payload, else of 8 */
    bool has_nested;
} exec_row_layout;

/* Fills l for fields of the given types (copied into a), with room for payload_size bytes of
 * payload (agg states, counters, flags). Memory from a (the query arena). */
int exec_row_layout_init(exec_row_layout *l, arena *a, const sqe_type *types, uint32_t n_fields,
                         bool with_next, uint32_t payload_size, sqe_error *err);
/* The same for rows that never go into a hash table (sort payloads): no header, no payload. */
int exec_row_layout_init_plain(exec_row_layout *l, arena *a, const sqe_type *types,
                               uint32_t n_fields, sqe_error *err);

static inline bool exec_row_is_null(const exec_row_layout *l, const uint8_t *row, uint32_t f) {
    return (row[l->null_offset + (f >> 3)] >> (f & 7)) & 1;
}
static inline uint64_t exec_row_hash(const uint8_t *row) {
    uint64_t h;
    memcpy(&h, row + EXEC_ROW_HASH, 8);
    return h;
}

typedef struct exec_row_block {
    struct exec_row_block *next;
    uint32_t n_rows;
    uint32_t cap_rows;
    _Alignas(16) uint8_t rows[];
} exec_row_block;

/* A nested value kept for a row: the row's field holds {const vec *store; uint32_t idx}. */
typedef struct exec_row_nested_ref {
    const vec *store;
    uint32_t idx;
    uint32_t pad_;
} exec_row_nested_ref;

typedef struct exec_row_store {
    const exec_row_layout *layout;
    mem_tracker *tracker;
    exec_row_block *head, *tail;
    uint64_t n_rows;
    uint32_t next_cap;     /* rows in the next block */
    arena heap;            /* string bytes */
    char *str_cur;         /* unaligned string bytes carved from heap blocks */
    uint32_t str_left;
    vec **side;            /* nested values: vectors of VEC_CHUNK_SIZE values each */
    uint32_t n_side, cap_side;
    uint32_t side_used;    /* values used in side[n_side - 1] */
} exec_row_store;

void exec_row_store_init(exec_row_store *s, const exec_row_layout *l, mem_tracker *tracker);
/* Frees every block, string and nested value (not agg states: see exec_row_store_foreach). */
void exec_row_store_destroy(exec_row_store *s);
/* Appends n rows (header, NULL bitmap and payload zeroed; the fields are left for the caller to
 * write with exec_row_scatter) and writes their addresses into rows[0..n). On error some rows
 * may have been appended (owned by the store). */
int exec_row_store_append(exec_row_store *s, uint32_t n, uint8_t **rows, sqe_error *err);
/* Writes values of v (any shape) into field f of rows: rows[i] gets row sel[i] of v (sel NULL =
 * row i), i < count. Strings and nested values are copied into s. */
int exec_row_scatter(exec_row_store *s, uint32_t f, const vec *v, const uint32_t *sel,
                     uint32_t count, uint8_t *const *rows, sqe_error *err);
/* Writes field f of rows[0..count) into out[out_offset + i] (out flat, capacity large enough).
 * A NULL row pointer gives a NULL value. String views point into the row store (valid while
 * the store lives); nested values are copied into out. */
int exec_row_gather(const exec_row_layout *l, uint32_t f, uint8_t *const *rows, uint32_t count,
                    vec *out, uint32_t out_offset, sqe_error *err);
/* Copies a row (fields, strings, nested values and payload bytes as they are) into a new row of
 * s (same layout). */
int exec_row_copy(exec_row_store *s, const uint8_t *src, uint8_t **out, sqe_error *err);

/* Compares field fa of row a (layout la) with field fb of row b (layout lb) for equality
 * (NULL equals NULL); the fields must have the same type. */
bool exec_row_field_equal(const exec_row_layout *la, const uint8_t *a, uint32_t fa,
                          const exec_row_layout *lb, const uint8_t *b, uint32_t fb);

/* Compares field f of a row with value idx of a flat vector of the same type: true only when
 * both are non-NULL and equal. */
bool exec_row_field_equal_value(const exec_row_layout *l, const uint8_t *row, uint32_t f,
                                const vec *flat, uint32_t idx);

/* --------------------------------------------------------------------------------------------
 * The hash table directory
 * ------------------------------------------------------------------------------------------ */

#define EXEC_HT_PTR_MASK 0x0000FFFFFFFFFFFFULL
#define EXEC_HT_SALT(h) ((h) & 0xFFFF000000000000ULL)

typedef struct exec_ht {
    uint64_t *entries;
    uint64_t mask;     /* capacity - 1 */
    uint64_t count;    /* used entries (single-writer tables; join tables count elsewhere) */
    uint64_t rmask;    /* region capacity - 1 */
    uint64_t pmask;    /* radix partitions - 1 (regions are partitions), 0 = one region */
    uint32_t rbits;    /* log2 of the region capacity */
    mem_tracker *tracker;
} exec_ht;

/* Allocates a cleared directory of capacity entries (power of two >= 16). */
int exec_ht_init(exec_ht *ht, uint64_t capacity, mem_tracker *tracker, sqe_error *err);
/* A directory of 2^part_bits regions of region_capacity entries (power of two >= 16): a hash
 * stays in the region of its radix partition (exec_radix_of), so the partitions of a join
 * build can be inserted by different threads at once. */
int exec_ht_init_regions(exec_ht *ht, uint64_t region_capacity, uint32_t part_bits,
                         mem_tracker *tracker, sqe_error *err);
void exec_ht_destroy(exec_ht *ht);
void exec_ht_clear(exec_ht *ht);
/* Power of two >= max(16, 2 * n): the capacity that keeps the load at or below 1/2. */
uint64_t exec_ht_capacity_for(uint64_t n);
/* Rehashes into a directory of new_capacity using the hashes stored in the rows. */
int exec_ht_resize(exec_ht *ht, uint64_t new_capacity, sqe_error *err);

static inline uint8_t *exec_ht_entry_row(uint64_t e) { return (uint8_t *)(uintptr_t)(e & EXEC_HT_PTR_MASK); }

/* Scratch for vectorized probing of up to VEC_CHUNK_SIZE rows (one per thread). */
typedef struct exec_ht_scratch {
    uint64_t slots[VEC_CHUNK_SIZE];
    uint32_t todo[VEC_CHUNK_SIZE];
    uint32_t cand[VEC_CHUNK_SIZE];
    uint32_t miss[VEC_CHUNK_SIZE];
    uint8_t *cand_rows[VEC_CHUNK_SIZE];
    uint32_t newi[VEC_CHUNK_SIZE];
    uint8_t *new_rows[VEC_CHUNK_SIZE];
    uint32_t idxbuf[8][VEC_CHUNK_SIZE]; /* view index maps for up to 8 key columns */
} exec_ht_scratch;

/* Compares key field k (0..n_keys) of rows[cand[i]] with the view's value at row idx[cand[i]] for
 * the n candidates; writes the positions (values of cand) that matched into match and those that
 * did not into miss. NULL equals NULL. Returns the number matched; *n_miss gets the others. */
uint32_t exec_keys_compare_vec(const exec_row_layout *l, uint32_t n_keys, const vec_view *keys,
                               const uint32_t *rowidx, uint8_t *const *rows, const uint32_t *cand,
                               uint32_t n, uint32_t *match, uint32_t *miss, uint32_t *n_miss);

/* --- Aggregation tables ------------------------------------------------------------------- */

/* Finds or creates the group of each of count rows (rowidx[i] is the chunk row, hashes[i] its
 * hash over the key views; keys are fields 0..n_keys of the layout). New group rows are
 * appended to stores[partition(hash)] with their keys and hash written and a zeroed payload;
 * their positions i are listed in new_idx (*n_new of them) so the caller initializes payloads.
 * rows_out[i] receives the group row. The directory must have room (load <= 1/2 after adding
 * count entries). Strings and nested values of new rows are kept in stores[0]. */
int exec_agg_ht_find_or_create(exec_ht *ht, const exec_row_layout *l, uint32_t n_keys,
                               const vec_view *keys, const vec *const *key_vecs,
                               const uint32_t *rowidx, const uint64_t *hashes, uint32_t count,
                               exec_row_store *stores, uint32_t radix_bits, uint8_t **rows_out,
                               uint32_t *new_idx, uint32_t *n_new, exec_ht_scratch *sc,
                               sqe_error *err);

static inline uint32_t exec_radix_of(uint64_t hash, uint32_t bits) {
    return bits ? (uint32_t)((hash >> 40) & ((1u << bits) - 1)) : 0;
}

/* Finds rows equal in their first n_keys fields (row-vs-row, layouts la for the table rows and
 * lb for the probing rows; key i of lb is field key_fields_b[i], NULL = fields 0..n_keys).
 * rows_out[i] = matching table row or NULL. probe_hashes[i] is the hash of probe row i over
 * those keys (NULL: the hash in the probe row's header). */
void exec_ht_find_rows(const exec_ht *ht, const exec_row_layout *la, uint32_t n_keys,
                       const exec_row_layout *lb, const uint32_t *key_fields_b,
                       uint8_t *const *probe, const uint64_t *probe_hashes, uint32_t count,
                       uint8_t **rows_out);

/* Merges rows into a table of unique keys (the rows themselves become the table's rows, nothing
 * is copied): for each probe row, when an equal row is already in the table it is listed as a
 * duplicate (dups_dst[k] = the table row, dups_src[k] = the probe row, *n_dups), otherwise the
 * probe row is inserted and appended to uniq (*n_uniq). Room for count more entries needed. */
void exec_ht_merge_rows(exec_ht *ht, const exec_row_layout *l, uint32_t n_keys,
                        uint8_t *const *rows, uint32_t count, uint8_t **uniq, uint32_t *n_uniq,
                        uint8_t **dups_dst, uint8_t **dups_src, uint32_t *n_dups,
                        exec_ht_scratch *sc);

/* --- Join tables ---------------------------------------------------------------------------- */

/* Inserts build rows (layout made with_next; hash in the header) into the directory; rows with
 * keys equal to a row already present are chained behind it (head->next list) instead of taking
 * an entry. Rows are inserted whatever their NULLs: the caller filters rows with NULL in a key
 * that is not null-safe. Adds the number of new entries to *added; stops and returns false when
 * more than `limit` new entries would be needed (the table is then partly filled). Threads may
 * insert concurrently when their rows belong to different regions. */
bool exec_join_ht_insert(exec_ht *ht, const exec_row_layout *l, uint32_t n_keys,
                         uint8_t *const *rows, uint32_t count, uint64_t limit, uint64_t *added);

/* Probes count rows (rowidx[i] = chunk row, hashes[i]) against a finished join table: heads[i] =
 * the first build row with equal keys (follow EXEC_ROW_NEXT for the others) or NULL. */
void exec_join_ht_probe(const exec_ht *ht, const exec_row_layout *l, uint32_t n_keys,
                        const vec_view *keys, const uint32_t *rowidx, const uint64_t *hashes,
                        uint32_t count, uint8_t **heads, exec_ht_scratch *sc);

static inline uint8_t *exec_row_next(const uint8_t *row) {
    uint8_t *n;
    memcpy(&n, row + EXEC_ROW_NEXT, sizeof n);
    return n;
}

/* --------------------------------------------------------------------------------------------
 * Materialized chunks (set operations, nested-loop join, window)
 * ------------------------------------------------------------------------------------------ */

/* Copies rows sel[0..count) (sel NULL = all) of src's columns cols[0..n_cols) (cols NULL = all)
 * into a new flat chunk owned by the caller (vec_chunk_destroy + mem_free of *out). */
int exec_chunk_copy(const vec_chunk *src, const uint32_t *cols, uint32_t n_cols,
                    const uint32_t *sel, uint32_t count, mem_tracker *tracker, vec_chunk **out,
                    sqe_error *err);
void exec_chunk_free(vec_chunk *c, mem_tracker *tracker);
#endif
