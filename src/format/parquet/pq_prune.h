/*
 * pq_prune.h: the Parquet pruning building blocks: row-group (and page-header) statistics,
 * the page index (ColumnIndex + OffsetIndex) and split-block bloom filters. The reader uses
 * them to skip row groups, pages and rows that cannot satisfy a pushed-down predicate.
 *
 * Every test here is conservative: it answers "may match" unless the file's metadata proves
 * that no row satisfies the predicate. Metadata the rules below do not trust (unknown sort
 * orders, deprecated statistics of a different order, writers with known bad statistics, NaN
 * bounds, values a conversion cannot represent) is ignored rather than interpreted.
 *
 * Comparisons happen in SQE space: file bounds are converted to SQE values with the leaf's
 * pq_conv (a monotone mapping, so a floored bound stays a bound) and compared with the
 * predicate constants, which are SQE values of type leaf->type. Bloom filters go the other way:
 * the SQE constant is converted back to the file's physical value and hashed.
 *
 * Spec: apache/parquet-format parquet.thrift (Statistics, ColumnOrder, ColumnIndex, OffsetIndex,
 * BloomFilterHeader), PageIndex.md, BloomFilter.md.
 */
#ifndef SQE_FORMAT_PARQUET_PQ_PRUNE_H
#define SQE_FORMAT_PARQUET_PQ_PRUNE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/arena.h"
#include "common/err.h"
#include "format/parquet/pq_encoding.h"
#include "format/parquet/pq_meta.h"
#include "format/parquet/pq_schema.h"
#include "types/types.h"

typedef struct vec vec;

/* ---- predicates --------------------------------------------------------------------------- */

typedef enum pq_pred_op {
    PQ_PRED_EQ,
    PQ_PRED_LT,
    PQ_PRED_LE,
    PQ_PRED_GT,
    PQ_PRED_GE,
    PQ_PRED_IN,
    PQ_PRED_IS_NULL,
    PQ_PRED_IS_NOT_NULL,
} pq_pred_op;

/* `leaf <op> values`. Comparison operators use row 0 of values; IN uses rows [0, n_values).
 * values is a vector of type leaf->type without NULLs (any shape; flat is expected); it is
 * unused for IS [NOT] NULL. A predicate whose values have another type than the leaf never
 * prunes. Rows where the leaf is NULL satisfy only IS NULL; NaN satisfies no comparison. */
typedef struct pq_predicate {
    const pq_node *leaf;  /* a LEAF with max_rep == 0 */
    pq_pred_op op;
    const vec *values;
    uint32_t n_values;
} pq_predicate;

/* ---- row-group statistics (pq_stats.c) ----------------------------------------------------- */

/* False only when the chunk's statistics prove that no row of the chunk satisfies p (all NULL
 * for a comparison, no NULL for IS NULL, bounds outside the constants, ...). Reads only
 * metadata; no allocation. */
bool pq_stats_may_match(const pq_file_meta *meta, const pq_column_chunk *cc,
                        const pq_predicate *p);

/* The same test over any Statistics struct covering num_values leaf entries (NULLs included),
 * e.g. a DataPageHeader's statistics for a leaf with max_rep == 0. */
bool pq_stats_may_match_stats(const pq_file_meta *meta, const pq_statistics *st,
                              int64_t num_values, const pq_predicate *p);

/* Decodes the chunk's trusted lower and upper bounds into SQE physical values of leaf->type
 * (type_physical_size(leaf->type) bytes each; strings and binaries as an sqe_str pointing into
 * the metadata, which must outlive it; TIMESTAMP_TZ with zone 0). Returns false, leaving the
 * outputs untouched, when either bound is absent or not trusted (see pq_stats.c NOTES). Bounds
 * need not be values of the chunk (truncated strings, floored timestamps). */
bool pq_stats_min_max(const pq_file_meta *meta, const pq_column_chunk *cc, const pq_node *leaf,
                      void *min_out, void *max_out);

/* ---- page index (pq_page_index.c) ---------------------------------------------------------- */

/* parquet.thrift: enum BoundaryOrder. */
enum { PQ_BOUNDARY_UNORDERED = 0, PQ_BOUNDARY_ASCENDING = 1, PQ_BOUNDARY_DESCENDING = 2 };

/* One column chunk's page index. Arrays have n_pages entries, in the arena given to decode;
 * min/max point into the column_index buffer given to decode, which must outlive them. */
typedef struct pq_page_index {
    uint32_t n_pages;
    /* OffsetIndex */
    int64_t *offset;          /* file offset of the page (header included) */
    int32_t *compressed_size; /* page size with its header, > 0 */
    int64_t *first_row;       /* first row of the page within the row group; [0] == 0,
                                 strictly increasing */
    /* ColumnIndex (all NULL when has_column_index is false) */
    bool has_column_index;
    bool *null_page;          /* the page holds only NULLs (min/max then meaningless) */
    pq_bytes *min, *max;      /* PLAIN-encoded bounds (no length prefix), by the ColumnOrder */
    int64_t *null_count;      /* -1 when unknown */
    int32_t boundary_order;   /* PQ_BOUNDARY_* as found (other values are kept, not used) */
} pq_page_index;

/* Decodes a chunk's OffsetIndex (offset_index[0, oi_len), required) and ColumnIndex
 * (column_index[0, ci_len); ci_len == 0 means absent). Checks: required fields present, list
 * lengths equal to the number of pages, first_row[0] == 0 and strictly increasing, offsets
 * non-negative and non-decreasing, sizes positive; offsets inside the file and first rows below
 * the row group's row count are checked by the caller (pq_page_index_select checks the latter).
 * Allocation is bounded by a small multiple of oi_len + ci_len.
 * Errors: INVALID_FILE ("Invalid Parquet page index: ..."), OUT_OF_MEMORY. On error *out is
 * zeroed; partial allocations stay in a. */
int pq_page_index_decode(arena *a, const uint8_t *column_index, size_t ci_len,
                         const uint8_t *offset_index, size_t oi_len, pq_page_index *out,
                         sqe_error *err);

/* Half-open row ranges [begin[i], end[i]) relative to the row group, sorted, disjoint and
 * non-adjacent (touching ranges are merged); begin < end. n == 0 selects nothing. */
typedef struct pq_row_ranges {
    uint32_t n;
    int64_t *begin, *end;
} pq_row_ranges;

/* Rows [begin, end) of page page_idx (the last page ends at rg_rows). */
void pq_page_index_page_rows(const pq_page_index *pi, uint32_t page_idx, int64_t rg_rows,
                             int64_t *begin, int64_t *end);

/* The rows of the pages that may satisfy p (the leaf's chunk in a row group of rg_rows rows),
 * as ranges allocated in a. Uses null_pages and null_counts always, and min/max only when the
 * file's ColumnOrder for the leaf is TYPE_ORDER and the leaf's order is known; pages whose
 * bounds are absent, NaN or undecodable are kept. Errors: INVALID_FILE when the index does
 * not fit the row group (no pages for a non-empty row group, a first row >= rg_rows),
 * OUT_OF_MEMORY. On error *out is zeroed. */
int pq_page_index_select(arena *a, const pq_page_index *pi, const pq_node *leaf,
                         const pq_file_meta *meta, int64_t rg_rows, const pq_predicate *p,
                         pq_row_ranges *out, sqe_error *err);

/* Every row: [0, rg_rows) (no range when rg_rows <= 0). OUT_OF_MEMORY only. */
int pq_row_ranges_all(arena *a, int64_t rg_rows, pq_row_ranges *out, sqe_error *err);
/* Rows in both x and y (AND of predicates) / in either (OR). The result is allocated in a; out
 * may be x or y itself. OUT_OF_MEMORY only; on error *out is unchanged. */
int pq_row_ranges_intersect(arena *a, const pq_row_ranges *x, const pq_row_ranges *y,
                            pq_row_ranges *out, sqe_error *err);
int pq_row_ranges_union(arena *a, const pq_row_ranges *x, const pq_row_ranges *y,
                        pq_row_ranges *out, sqe_error *err);
/* Number of rows selected. */
int64_t pq_row_ranges_count(const pq_row_ranges *r);
/* Whether any selected row lies in [begin, end) (binary search), e.g. to skip the pages of
 * another column whose OffsetIndex has other page boundaries. */
bool pq_row_ranges_overlaps(const pq_row_ranges *r, int64_t begin, int64_t end);

/* ---- bloom filters (pq_bloom.c) ------------------------------------------------------------ */

/* A split-block bloom filter: n_bytes (a positive multiple of 32) bytes of 256-bit blocks. The
 * bitset is borrowed from the buffer given to pq_bloom_decode. */
typedef struct pq_bloom {
    const uint8_t *bitset;
    uint32_t n_bytes;
} pq_bloom;

/* Largest bitset accepted (the reference writers' limit). */
#define PQ_BLOOM_MAX_BYTES (128u << 20)

/* Decodes the BloomFilterHeader at buf[0, len): *header_len is its encoded size and *n_bytes
 * the bitset size that follows it (checked: positive multiple of 32, at most
 * PQ_BLOOM_MAX_BYTES; not checked against len). For a reader that does not know the filter's
 * length up front. Errors: INVALID_FILE (malformed header), NOT_SUPPORTED (an algorithm, hash or
 * compression other than BLOCK / XXHASH / UNCOMPRESSED: the caller ignores the filter). */
int pq_bloom_header_decode(const uint8_t *buf, size_t len, uint32_t *header_len,
                           uint32_t *n_bytes, sqe_error *err);

/* Decodes header and bitset from buf[0, len) (bytes past the bitset are ignored). On success
 * out->bitset points into buf. Errors as pq_bloom_header_decode, plus INVALID_FILE when the
 * bitset is truncated; on error *out is zeroed. */
int pq_bloom_decode(const uint8_t *buf, size_t len, pq_bloom *out, sqe_error *err);

/* XXH64 with seed 0 of a PLAIN-encoded value (BloomFilter.md). */
uint64_t pq_bloom_hash(const void *data, size_t len);
/* filter_check / filter_insert of BloomFilter.md on a hash. insert writes into bitset (a
 * writer's own buffer of n_bytes, a positive multiple of 32). */
bool pq_bloom_check_hash(const pq_bloom *b, uint64_t hash);
void pq_bloom_insert_hash(uint8_t *bitset, uint32_t n_bytes, uint64_t hash);

/* False only when the filter proves that no row equals the constant (EQ) or any of the
 * constants (IN): each constant is converted back to the leaf's physical value and its PLAIN
 * encoding hashed. Constants the file's type cannot hold (a TIME with sub-millisecond digits in
 * a millisecond column, an out-of-range unsigned value, a REAL that is no FLOAT16) are provably
 * absent; constants with several possible encodings (nanosecond timestamps, INT96, decimals in
 * BYTE_ARRAY, NaN) answer true, and -0.0/+0.0 are both probed. Other operators answer true. */
bool pq_bloom_may_contain(const pq_bloom *b, const pq_node *leaf, const pq_predicate *p);

/* ---- shared by the files above: bounds in SQE space ---------------------------------------- */

typedef enum pq_sort_order {
    PQ_SORT_UNKNOWN = 0,  /* no usable order (INT96, INTERVAL, unknown logical types) */
    PQ_SORT_SIGNED,       /* numeric order of the represented value (parquet.thrift "signed") */
    PQ_SORT_UNSIGNED,     /* unsigned integers, unsigned byte-wise for binaries */
} pq_sort_order;

/* The sort order parquet.thrift (ColumnOrder) defines for a leaf's logical/physical type. */
pq_sort_order pq_leaf_sort_order(const pq_node *leaf);

typedef enum pq_bound_kind {
    PQ_BOUND_NONE = 0,
    PQ_BOUND_INT,    /* exact integer: integers, dates, times, timestamps (micros), decimals
                        (unscaled), booleans */
    PQ_BOUND_FLOAT,  /* REAL, DOUBLE (never NaN) */
    PQ_BOUND_BYTES,  /* strings, binaries, UUID: unsigned byte-wise order */
} pq_bound_kind;

/* One value in SQE space, in a form comparable across representations. */
typedef struct pq_bound {
    pq_bound_kind kind;
    int128 i;
    double f;
    const uint8_t *ptr;  /* BYTES: borrowed */
    uint32_t len;
} pq_bound;

/* Converts a PLAIN-encoded physical value of the leaf (a statistics or column index bound) to
 * SQE space with the leaf's conversion. Returns false when the bytes have the wrong size, the
 * value is NaN, or the SQE type cannot represent it. BYTES bounds point into raw. */
bool pq_bound_from_plain(const pq_node *leaf, const uint8_t *raw, size_t len, pq_bound *out);
/* Row `row` of a vector of the leaf's SQE type as a bound; false when the value is NaN or the
 * vector's type does not match the leaf. */
bool pq_bound_from_value(const pq_node *leaf, const vec *values, uint32_t row, pq_bound *out);
/* Orders two bounds of the same kind (-1, 0, 1; -0.0 equals +0.0). */
int pq_bound_compare(const pq_bound *a, const pq_bound *b);
/* Whether some value v with lo <= v <= hi (a NULL side is unbounded) may satisfy the comparison
 * or IN predicate p. IS [NOT] NULL answer true. */
bool pq_bounds_may_match(const pq_bound *lo, const pq_bound *hi, const pq_predicate *p);

#endif
