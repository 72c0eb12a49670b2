/*
 * agg_value.h (private to func/agg_*.c): what aggregate kernels share.
 *
 *  - agg_phys: the physical class of a type (how its values are laid out and compared), so a
 *    kernel switches on the class once per batch and runs a loop specialized for it;
 *  - row iteration helpers (validity of a viewed vector, the one-state fast path);
 *  - agg_cell: one value of any type kept by a state beyond the current batch (min/max of
 *    strings, min_by/max_by, arbitrary);
 *  - agg_list: a growing list of values of any type (array_agg, map_agg, histogram, ...);
 *  - agg_keyset: a hash set of distinct values of any type, numbered in insertion order;
 *  - agg_value_hash / agg_value_equal: hashing and equality of vector rows of any type.
 *
 * Everything that allocates takes the query's mem_tracker and remembers it, so destroy
 * (which gets no context) releases memory on the tracker that paid for it. All functions with
 * an sqe_error return SQE_OK or an error code; on error the structure stays valid (it may be
 * freed, or used again).
 *
 * The cell, list, keyset and hashing functions are implemented in agg_collect.c.
 */
#ifndef SQE_FUNC_AGG_VALUE_H
#define SQE_FUNC_AGG_VALUE_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "common/err.h"
#include "common/hash.h"
#include "common/mem.h"
#include "func/func.h"
#include "types/types.h"
#include "vec/vec.h"

/* --- Physical classes ------------------------------------------------------------------ */

typedef enum agg_phys {
    AGG_P_NONE = 0, /* TYPE_UNKNOWN: no values */
    AGG_P_BOOL,     /* uint8 0/1 */
    AGG_P_I8,
    AGG_P_I16,
    AGG_P_I32,      /* integer, date, interval year to month */
    AGG_P_I64,      /* bigint, short decimal, time, timestamp, interval day to second */
    AGG_P_I128,     /* long decimal */
    AGG_P_F32,
    AGG_P_F64,
    AGG_P_UUID,     /* 16 bytes, memcmp order */
    AGG_P_TSTZ,     /* sqe_timestamp_tz, ordered and compared by instant */
    AGG_P_STR,      /* sqe_str views: varchar, char, varbinary, json */
    AGG_P_NESTED,   /* array, map, row */
} agg_phys;

static inline agg_phys agg_phys_of(sqe_type t) {
    switch ((type_id)t.id) {
    case TYPE_BOOLEAN: return AGG_P_BOOL;
    case TYPE_TINYINT: return AGG_P_I8;
    case TYPE_SMALLINT: return AGG_P_I16;
    case TYPE_INTEGER:
    case TYPE_DATE:
    case TYPE_INTERVAL_YM: return AGG_P_I32;
    case TYPE_BIGINT:
    case TYPE_TIME:
    case TYPE_TIMESTAMP:
    case TYPE_INTERVAL_DS: return AGG_P_I64;
    case TYPE_DECIMAL: return type_decimal_is_long(t) ? AGG_P_I128 : AGG_P_I64;
    case TYPE_REAL: return AGG_P_F32;
    case TYPE_DOUBLE: return AGG_P_F64;
    case TYPE_UUID: return AGG_P_UUID;
    case TYPE_TIMESTAMP_TZ: return AGG_P_TSTZ;
    case TYPE_VARCHAR:
    case TYPE_CHAR:
    case TYPE_VARBINARY:
    case TYPE_JSON: return AGG_P_STR;
    case TYPE_ARRAY:
    case TYPE_MAP:
    case TYPE_ROW: return AGG_P_NESTED;
    default: return AGG_P_NONE;
    }
}

/* A UUID value as a copyable struct. */
typedef struct agg_uuid {
    uint8_t bytes[16];
} agg_uuid;

/* Strict "less than" per class, in SQL order. Floating point: NaN is larger than every other
 * value (as ORDER BY and Trino's min/max treat it). */
#define AGG_LT_NUM(a, b) ((a) < (b))
#define AGG_LT_FLT(a, b) ((a) < (b) || (isnan(b) && !isnan(a)))
#define AGG_LT_UUID(a, b) (memcmp((a).bytes, (b).bytes, 16) < 0)
#define AGG_LT_TSTZ(a, b) ((a).micros < (b).micros)

/* X(class, C type, less-than) for every fixed-width orderable class. */
#define AGG_FIXED_CLASSES(X)                                                                       \
    X(AGG_P_BOOL, uint8_t, AGG_LT_NUM)                                                             \
    X(AGG_P_I8, int8_t, AGG_LT_NUM)                                                                \
    X(AGG_P_I16, int16_t, AGG_LT_NUM)                                                              \
    X(AGG_P_I32, int32_t, AGG_LT_NUM)                                                              \
    X(AGG_P_I64, int64_t, AGG_LT_NUM)                                                              \
    X(AGG_P_I128, int128, AGG_LT_NUM)                                                              \
    X(AGG_P_F32, float, AGG_LT_FLT)                                                                \
    X(AGG_P_F64, double, AGG_LT_FLT)                                                               \
    X(AGG_P_UUID, agg_uuid, AGG_LT_UUID)                                                           \
    X(AGG_P_TSTZ, sqe_timestamp_tz, AGG_LT_TSTZ)

/* --- Row iteration ----------------------------------------------------------------------- */

/* Is data index idx of a viewed vector (vec_view) valid? */
static inline bool agg_valid_at(const vec_view *u, uint32_t idx) {
    return !u->validity || ((u->validity[idx >> 6] >> (idx & 63)) & 1);
}

/* The state every selected row goes to when they all share one (ungrouped aggregation, or a
 * batch of one group), else NULL. Kernels use it to accumulate in registers. Grouped batches
 * usually differ at the first or last row; the scan over the rest is branch-free per block. */
static inline uint8_t *agg_uniform_state(const uint32_t *sel, uint32_t count, uint8_t **states) {
    if (count == 0) return NULL;
    uint8_t *first = states[sel ? sel[0] : 0];
    if (states[sel ? sel[count - 1] : count - 1] != first) return NULL;
    for (uint32_t base = 0; base < count; base += 256) {
        uint32_t end = count - base < 256 ? count : base + 256;
        uintptr_t diff = 0;
        if (sel)
            for (uint32_t i = base; i < end; i++) diff |= (uintptr_t)states[sel[i]] ^ (uintptr_t)first;
        else
            for (uint32_t i = base; i < end; i++) diff |= (uintptr_t)states[i] ^ (uintptr_t)first;
        if (diff) return NULL;
    }
    return first;
}

/* True when the selected rows are rows 0..count-1 of a flat vector without NULLs, so a kernel
 * can run a plain loop over data[0..count). */
static inline bool agg_dense(const vec_view *u, const uint32_t *sel) {
    return !sel && vec_view_is_flat(u) && !u->validity;
}

/* Reports an out-of-memory on ctx (used when a vec helper returned a bare code). */
static inline int agg_nomem(func_ctx *ctx, const char *what) { return err_nomem(ctx->err, what); }

/* Writes NULL into out[row]. */
static inline int agg_set_null(func_ctx *ctx, vec *out, uint32_t row) {
    if (vec_set_null(out, row) != SQE_OK) return agg_nomem(ctx, "validity bitmap");
    return SQE_OK;
}

/* Defines `static void <name>(const void *bind, uint8_t *state)` that zeroes a <type>. */
#define AGG_ZERO_INIT(name, type)                                                                  \
    static void name(const void *bind_data, uint8_t *state) {                                      \
        (void)bind_data;                                                                           \
        memset(state, 0, sizeof(type));                                                            \
    }

/* Round a state size up to the caller's 16-byte alignment. */
#define AGG_STATE_SIZE(type) ((uint32_t)((sizeof(type) + 15) & ~(size_t)15))

/* --- Cells --------------------------------------------------------------------------------- */

typedef enum agg_cell_kind {
    AGG_CELL_EMPTY = 0, /* nothing stored yet (a zeroed cell) */
    AGG_CELL_NULL,      /* a SQL NULL was stored */
    AGG_CELL_FIXED,     /* `width` bytes in v.raw */
    AGG_CELL_STR,       /* v.str; long strings point into buf */
    AGG_CELL_BOXED,     /* row 0 of the one-row vector `boxed` (nested types) */
} agg_cell_kind;

/* One stored value. A zeroed cell is empty and owns nothing. */
typedef struct agg_cell {
    uint8_t kind;   /* agg_cell_kind */
    uint8_t width;  /* FIXED: bytes used in v.raw */
    uint32_t cap;   /* bytes allocated at buf */
    union {
        uint8_t raw[16];
        sqe_str str;
    } v;
    char *buf;             /* owned bytes of a long string */
    vec *boxed;            /* owned one-row vector for nested values */
    mem_tracker *tracker;  /* what buf and boxed are charged to */
} agg_cell;

/* Stores row `row` of src (any shape; NULL rows store AGG_CELL_NULL). */
int agg_cell_set(agg_cell *c, const vec *src, uint32_t row, mem_tracker *tracker, sqe_error *err);
/* Stores a string value (copying its bytes). */
int agg_cell_set_str(agg_cell *c, const sqe_str *s, mem_tracker *tracker, sqe_error *err);
/* Stores `width` bytes of a fixed-width value. */
static inline void agg_cell_set_fixed(agg_cell *c, const void *p, uint32_t width) {
    memcpy(c->v.raw, p, width);
    c->width = (uint8_t)width;
    c->kind = AGG_CELL_FIXED;
}
/* Makes dst hold a copy of src's value. */
int agg_cell_copy(agg_cell *dst, const agg_cell *src, mem_tracker *tracker, sqe_error *err);
/* Writes the value into out[row] (NULL for empty and NULL cells). */
int agg_cell_write(const agg_cell *c, vec *out, uint32_t row, sqe_error *err);
/* Frees what the cell owns and empties it. */
void agg_cell_free(agg_cell *c);

/* --- Lists ---------------------------------------------------------------------------------- */

/* A list of values of one type, in append order, NULLs included. A zeroed list is empty. */
typedef struct agg_list {
    vec *v;      /* owned flat vector holding the values; NULL until the first append */
    uint32_t n;  /* values in v */
} agg_list;

/* Appends row `row` of src (any shape). The list takes src's type on the first append. */
int agg_list_append(agg_list *l, const vec *src, uint32_t row, mem_tracker *tracker,
                    sqe_error *err);
/* Appends every value of src to dst. */
int agg_list_append_all(agg_list *dst, const agg_list *src, mem_tracker *tracker, sqe_error *err);
/* Copies n values into the elements vector `child` starting at child index `at`: value
 * idx[i] (or from + i when idx is NULL) of the list goes to child[at + i]. Grows child. */
int agg_list_copy_out(const agg_list *l, const uint32_t *idx, uint32_t from, uint32_t n,
                      vec *child, uint32_t at, sqe_error *err);
void agg_list_free(agg_list *l);

/* Appends n list values (as agg_list_copy_out) as one array value out[row] (out is ARRAY). */
int agg_write_array(vec *out, uint32_t row, const agg_list *l, const uint32_t *idx,
                    uint32_t from, uint32_t n, sqe_error *err);

/* --- Key sets ----------------------------------------------------------------------------- */

/* Distinct values numbered 0, 1, ... in insertion order. A zeroed keyset is empty. */
typedef struct agg_keyset {
    agg_list keys;         /* the distinct values */
    uint64_t *hashes;      /* hash of each key (keys.n used, hash_cap allocated) */
    uint32_t *slots;       /* open addressing: 0 free, else key number + 1 */
    uint32_t n_slots;      /* power of two, 0 before the first insert */
    uint32_t hash_cap;
    mem_tracker *tracker;  /* what hashes and slots are charged to */
} agg_keyset;

/* Finds row `row` of src among the keys or adds it. *idx receives the key number, *added
 * whether it was new. NULL is a value like any other here (callers skip NULL keys). */
int agg_keyset_add(agg_keyset *ks, const vec *src, uint32_t row, uint32_t *idx, bool *added,
                   mem_tracker *tracker, sqe_error *err);
void agg_keyset_free(agg_keyset *ks);

/* --- Hashing and equality of values ------------------------------------------------------------ */

/* Hash of row `row` of v (any shape and type). Equal values (per agg_value_equal) hash
 * equally: -0.0 and 0.0, all NaNs, and timestamps with time zone at the same instant. */
uint64_t agg_value_hash(const vec *v, uint32_t row);
/* IS NOT DISTINCT FROM of two rows of vectors of the same type (any shapes). */
bool agg_value_equal(const vec *a, uint32_t row_a, const vec *b, uint32_t row_b);

/* The same hashes for single values, for kernels that hash fixed-width data directly. */
static inline uint64_t agg_hash_i64(int64_t x) { return hash_u64((uint64_t)x); }
static inline uint64_t agg_hash_f64(double d) {
    if (d == 0) d = 0.0;
    if (isnan(d)) return 0x7ff8000000000000ULL;
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    return hash_u64(bits);
}
static inline uint64_t agg_hash_i128(int128 x) {
    return hash_combine(hash_u64((uint64_t)x), hash_u64((uint64_t)((unsigned __int128)x >> 64)));
}
static inline uint64_t agg_hash_str(const sqe_str *s) { return hash_bytes(sqe_str_data(s), s->len); }

#endif
