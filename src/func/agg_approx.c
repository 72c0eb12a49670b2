/*
 * agg_approx.c: approximate aggregates: approx_distinct (HyperLogLog) and approx_percentile
 * (a KLL quantile sketch), in their Trino signatures.
 *
 * approx_distinct(x[, e]) hashes every non-NULL value (agg_value_hash's hashes, remixed) into
 * a HyperLogLog of 2^p registers; e (max standard error, default 0.023) picks p as Trino does:
 * the number of buckets is the next power of two of ceil(1.0816 / e^2), so the default is
 * 2048 registers. A state starts sparse, as in HyperLogLog++: a hash set of (register, rank)
 * entries of a 2^25-register sketch, estimated by linear counting, which is near exact for
 * small sets and keeps GROUP BY with many small groups small; past 2^p / 16 entries it turns
 * into the dense register array (entries convert exactly to dense registers). The dense
 * estimate is Ertl's improved raw estimator ("New cardinality estimation algorithms for
 * HyperLogLog sketches", 2017), unbiased over the whole range without empirical correction
 * tables. Merging takes register maxima and the representation depends only on the entries
 * seen, so split-and-combine gives exactly the single-pass estimate.
 *
 * approx_percentile(x[, w], p | array(p)) keeps a KLL sketch (Karnin, Lang, Liberty,
 * "Optimal quantile approximation in streams", 2016) over order-preserving 64-bit encodings of
 * the values: level h holds items of weight 2^h; a level that outgrows its capacity
 * k * (2/3)^(depth) is sorted and every other item (random offset) moves up one level. With
 * k = 400 the rank error is well under 1%; inputs of up to k values are kept exactly. A
 * weight w (bigint >= 1) adds the value to level h for every set bit h of w. The quantile is the
 * item at weighted rank floor(p * n) (clamped to n - 1), which for exact data is what Trino's
 * t-digest returns for all-singleton digests. Results have the input type.
 *
 * INTERFACE: func_agg_family_approx.
 * NOTES: both sketches live on the heap (charged to the query tracker) and are created at the
 * first non-NULL input; compaction offsets come from a per-sketch xorshift generator with a
 * fixed seed, so results are reproducible run to run.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/hash.h"
#include "func/agg_value.h"
#include "func/func.h"
#include "types/types.h"
#include "vec/vec.h"

static int alloc_failed(sqe_error *err) {
    return err && err->code ? err->code : SQE_ERR_OUT_OF_MEMORY;
}

static int unsupported(func_ctx *ctx, const char *fn, sqe_type t) {
    char name[128];
    type_format(t, name, sizeof name);
    return err_set(ctx->err, SQE_ERR_GENERIC_INTERNAL_ERROR, "%s: unsupported argument type %s", fn, name);
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* ==== approx_distinct ========================================================================= */

#define HLL_DEFAULT_ERROR 0.023
#define HLL_MIN_ERROR 0.0040625
#define HLL_MAX_ERROR 0.26
#define HLL_MIN_P 4
#define HLL_MAX_P 16
#define HLL_SPARSE_P 25 /* precision of sparse entries */

/* Sparse entries: the top HLL_SPARSE_P bits of the hash (a register of a 2^25-register
 * sketch) << 6 | the rank of the remaining bits (1..40); 0 marks a free slot. */
typedef struct hll_state {
    uint8_t *regs;         /* dense: 2^p registers; NULL while sparse */
    uint32_t *slots;       /* sparse: open-addressing set of entries, one per sparse register */
    uint32_t n_slots;      /* power of two; at most half full */
    uint32_t n_sparse;     /* entries in slots */
    uint8_t p;             /* log2 of the dense register count; 0 before the first value */
    mem_tracker *tracker;  /* what regs and slots are charged to */
} hll_state;

AGG_ZERO_INIT(approx_distinct_init, hll_state)

/* Murmur3's 64-bit finalizer: spreads the engine hash over all bits before it is split. */
static inline uint64_t hll_mix(uint64_t h) {
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
}

/* A state stays sparse while it has at most this many entries (a sixteenth of the registers:
 * its slot array is then at most half the size of the dense registers). The choice depends
 * only on the set of sparse entries, so split-and-combine picks the same representation. */
static inline uint32_t hll_sparse_limit(uint8_t p) { return ((uint32_t)1 << p) / 16; }

/* Dense register and rank of a sparse entry: the same as computing them from the hash. */
static inline void hll_entry_to_dense(uint32_t e, uint8_t p, uint32_t *idx, uint8_t *rank) {
    uint32_t sidx = e >> 6, extra = HLL_SPARSE_P - p;
    uint32_t low = sidx & (((uint32_t)1 << extra) - 1);
    *idx = sidx >> extra;
    *rank = low ? (uint8_t)(__builtin_clz(low) - (32 - extra) + 1) : (uint8_t)(extra + (e & 63));
}

static inline void hll_dense_add(uint8_t *regs, uint32_t idx, uint8_t rank) {
    if (rank > regs[idx]) regs[idx] = rank;
}

static int hll_densify(hll_state *s, sqe_error *err) {
    uint8_t *regs = mem_calloc(s->tracker, (size_t)1 << s->p, err);
    if (!regs) return alloc_failed(err);
    for (uint32_t k = 0; k < s->n_slots; k++) {
        if (!s->slots[k]) continue;
        uint32_t idx;
        uint8_t rank;
        hll_entry_to_dense(s->slots[k], s->p, &idx, &rank);
        hll_dense_add(regs, idx, rank);
    }
    mem_free(s->tracker, s->slots);
    s->slots = NULL;
    s->n_slots = s->n_sparse = 0;
    s->regs = regs;
    return SQE_OK;
}

/* Inserts entry e into a slot array (keeping the higher rank of a register). Returns true when
 * a new register was added. */
static bool hll_slots_put(uint32_t *slots, uint32_t n_slots, uint32_t e) {
    uint32_t mask = n_slots - 1, pos = (e >> 6) & mask;
    for (;; pos = (pos + 1) & mask) {
        uint32_t cur = slots[pos];
        if (!cur) {
            slots[pos] = e;
            return true;
        }
        if ((cur >> 6) == (e >> 6)) {
            if ((e & 63) > (cur & 63)) slots[pos] = e;
            return false;
        }
    }
}

static int hll_slots_grow(hll_state *s, sqe_error *err) {
    uint32_t n = s->n_slots ? s->n_slots * 2 : 16;
    uint32_t *slots = mem_calloc(s->tracker, (size_t)n * sizeof *slots, err);
    if (!slots) return alloc_failed(err);
    for (uint32_t k = 0; k < s->n_slots; k++)
        if (s->slots[k]) hll_slots_put(slots, n, s->slots[k]);
    mem_free(s->tracker, s->slots);
    s->slots = slots;
    s->n_slots = n;
    return SQE_OK;
}

/* Records a sparse entry (or its dense equivalent). */
static int hll_add_entry(hll_state *s, uint32_t e, mem_tracker *tracker, sqe_error *err) {
    if (s->regs) {
        uint32_t idx;
        uint8_t rank;
        hll_entry_to_dense(e, s->p, &idx, &rank);
        hll_dense_add(s->regs, idx, rank);
        return SQE_OK;
    }
    if (!s->tracker) s->tracker = tracker;
    if ((s->n_sparse + 1) * 2 > s->n_slots) SQE_TRY(hll_slots_grow(s, err));
    if (hll_slots_put(s->slots, s->n_slots, e) && ++s->n_sparse > hll_sparse_limit(s->p))
        return hll_densify(s, err);
    return SQE_OK;
}

static inline int hll_add_hash(hll_state *s, uint64_t h, mem_tracker *tracker, sqe_error *err) {
    h = hll_mix(h);
    if (s->regs) { /* the common case once a group is large: straight to the register */
        uint64_t w = h << s->p;
        hll_dense_add(s->regs, (uint32_t)(h >> (64 - s->p)),
                      w ? (uint8_t)(__builtin_clzll(w) + 1) : (uint8_t)(64 - s->p + 1));
        return SQE_OK;
    }
    uint64_t w = h << HLL_SPARSE_P;
    uint32_t rank = w ? (uint32_t)__builtin_clzll(w) + 1 : 64 - HLL_SPARSE_P + 1;
    return hll_add_entry(s, (uint32_t)(h >> (64 - HLL_SPARSE_P)) << 6 | rank, tracker, err);
}

/* Register count exponent for a max standard error e (Trino's rule). */
static int hll_precision(func_ctx *ctx, double e, uint8_t *p) {
    if (!(e >= HLL_MIN_ERROR && e <= HLL_MAX_ERROR))
        return err_set(ctx->err, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                       "Max standard error must be in [%g, %g]: %g", HLL_MIN_ERROR, HLL_MAX_ERROR, e);
    double buckets = ceil(1.0816 / (e * e));
    uint8_t k = HLL_MIN_P;
    while (k < HLL_MAX_P && (double)((uint32_t)1 << k) < buckets) k++;
    *p = k;
    return SQE_OK;
}

#define HLL_CASE(P, T, HASH)                                                                       \
    case P: {                                                                                      \
        const T *vals = (const T *)u.data;                                                         \
        FUNC_FOR_ROWS(sel, count, row) {                                                           \
            uint32_t i = vec_view_index(&u, row);                                                  \
            if (!agg_valid_at(&u, i)) continue;                                                    \
            hll_state *s = (hll_state *)states[row];                                               \
            if (!s->p) s->p = p;                                                                   \
            SQE_TRY(hll_add_hash(s, HASH(vals[i]), ctx->tracker, ctx->err));                       \
        }                                                                                          \
        break;                                                                                     \
    }

#define HASH_INT(x) agg_hash_i64((int64_t)(x))
#define HASH_FLT(x) agg_hash_f64((double)(x))
#define HASH_UUID(x) hash_bytes((x).bytes, 16)
#define HASH_TSTZ(x) agg_hash_i64((x).micros)
#define HASH_STR(x) agg_hash_str(&(x))

static int approx_distinct_update(func_ctx *ctx, const vec *const *args, uint32_t n_args,
                                  const uint32_t *sel, uint32_t count, uint8_t **states) {
    if (count == 0) return SQE_OK;
    uint8_t p = 0;
    double e = HLL_DEFAULT_ERROR;
    if (n_args > 1) {
        uint32_t first = sel ? sel[0] : 0;
        vec_view ue;
        vec_view_init(&ue, args[1]);
        uint32_t i = vec_view_index(&ue, first);
        if (!agg_valid_at(&ue, i))
            return err_set(ctx->err, SQE_ERR_INVALID_FUNCTION_ARGUMENT, "Max standard error cannot be null");
        e = ((const double *)ue.data)[i];
    }
    SQE_TRY(hll_precision(ctx, e, &p));
    vec_view u;
    vec_view_init(&u, args[0]);
    switch (agg_phys_of(args[0]->type)) {
        HLL_CASE(AGG_P_BOOL, uint8_t, HASH_INT)
        HLL_CASE(AGG_P_I8, int8_t, HASH_INT)
        HLL_CASE(AGG_P_I16, int16_t, HASH_INT)
        HLL_CASE(AGG_P_I32, int32_t, HASH_INT)
        HLL_CASE(AGG_P_I64, int64_t, HASH_INT)
        HLL_CASE(AGG_P_I128, int128, agg_hash_i128)
        HLL_CASE(AGG_P_F32, float, HASH_FLT)
        HLL_CASE(AGG_P_F64, double, HASH_FLT)
        HLL_CASE(AGG_P_UUID, agg_uuid, HASH_UUID)
        HLL_CASE(AGG_P_TSTZ, sqe_timestamp_tz, HASH_TSTZ)
        HLL_CASE(AGG_P_STR, sqe_str, HASH_STR)
    case AGG_P_NESTED:
        FUNC_FOR_ROWS(sel, count, row) {
            if (!agg_valid_at(&u, vec_view_index(&u, row))) continue;
            hll_state *s = (hll_state *)states[row];
            if (!s->p) s->p = p;
            SQE_TRY(hll_add_hash(s, agg_value_hash(args[0], row), ctx->tracker, ctx->err));
        }
        break;
    case AGG_P_NONE: break; /* approx_distinct(NULL): nothing to count */
    }
    return SQE_OK;
}

static int approx_distinct_combine(func_ctx *ctx, const uint8_t *src, uint8_t *dst) {
    const hll_state *a = (const hll_state *)src;
    hll_state *d = (hll_state *)dst;
    if (!a->p) return SQE_OK;
    if (!d->p) d->p = a->p;
    if (d->p != a->p)
        return err_set(ctx->err, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                       "approx_distinct: cannot merge sketches of different precision");
    if (a->regs) {
        if (!d->regs) {
            if (!d->tracker) d->tracker = ctx->tracker;
            SQE_TRY(hll_densify(d, ctx->err));
        }
        uint32_t m = (uint32_t)1 << a->p;
        for (uint32_t k = 0; k < m; k++)
            if (a->regs[k] > d->regs[k]) d->regs[k] = a->regs[k];
        return SQE_OK;
    }
    for (uint32_t k = 0; k < a->n_slots; k++)
        if (a->slots[k]) SQE_TRY(hll_add_entry(d, a->slots[k], ctx->tracker, ctx->err));
    return SQE_OK;
}

static double hll_sigma(double x) {
    if (x == 1.0) return INFINITY;
    double y = 1, z = x, prev;
    do {
        x *= x;
        prev = z;
        z += x * y;
        y += y;
    } while (z != prev);
    return z;
}

static double hll_tau(double x) {
    if (x == 0.0 || x == 1.0) return 0.0;
    double y = 1.0, z = 1.0 - x, prev;
    do {
        x = sqrt(x);
        prev = z;
        y *= 0.5;
        z -= (1 - x) * (1 - x) * y;
    } while (z != prev);
    return z / 3;
}

/* Ertl's improved raw estimate from the register histogram c[0..q+1]. */
static double hll_estimate(const uint32_t *c, uint8_t p) {
    uint32_t q = 64u - p;
    double m = (double)((uint32_t)1 << p);
    double z = m * hll_tau(1.0 - c[q + 1] / m);
    for (uint32_t k = q; k >= 1; k--) z = 0.5 * (z + c[k]);
    z += m * hll_sigma(c[0] / m);
    return m * m / (2.0 * log(2.0)) / z;
}

static int approx_distinct_finalize(func_ctx *ctx, const uint8_t *state, vec *out, uint32_t row) {
    const hll_state *s = (const hll_state *)state;
    int64_t result = 0;
    if (s->regs) {
        uint32_t hist[66] = {0};
        uint32_t m = (uint32_t)1 << s->p;
        for (uint32_t k = 0; k < m; k++) hist[s->regs[k]]++;
        result = llround(hll_estimate(hist, s->p));
    } else if (s->n_sparse) {
        /* Linear counting over the 2^25 sparse registers: near exact for small sets. */
        double m = (double)((uint32_t)1 << HLL_SPARSE_P);
        result = llround(m * log(m / (m - s->n_sparse)));
    }
    VEC_DATA(out, int64_t)[row] = result;
    vec_set_valid(out, row);
    return SQE_OK;
}

static void approx_distinct_destroy(uint8_t *state) {
    hll_state *s = (hll_state *)state;
    mem_free(s->tracker, s->regs);
    mem_free(s->tracker, s->slots);
    memset(s, 0, sizeof *s);
}

/* ==== approx_percentile ======================================================================== */

#define KLL_K 400
#define KLL_MIN_CAP 8
#define KLL_LEVELS 64

typedef struct kll_level {
    uint64_t *items; /* unsorted encoded values of weight 2^h */
    uint32_t n, cap;
} kll_level;

typedef struct kll {
    uint64_t total;            /* sum of weights (= values when unweighted) */
    uint64_t rng;              /* xorshift64 state for compaction offsets */
    uint32_t n_levels;         /* levels in use */
    uint32_t caps_for;         /* n_levels that caps[] was computed for */
    uint32_t caps[KLL_LEVELS]; /* capacity of each level */
    uint32_t n_pcts;           /* requested percentiles */
    double *pcts;
    bool pct_array;            /* the percentile argument was an array */
    kll_level lvl[KLL_LEVELS];
    mem_tracker *tracker;
} kll;

typedef struct pct_state {
    kll *sk; /* NULL until the first non-NULL value */
} pct_state;

AGG_ZERO_INIT(pct_init, pct_state)

static void kll_free(kll *sk) {
    if (!sk) return;
    mem_tracker *t = sk->tracker;
    for (uint32_t h = 0; h < KLL_LEVELS; h++) mem_free(t, sk->lvl[h].items);
    mem_free(t, sk->pcts);
    mem_free(t, sk);
}

static int kll_create(mem_tracker *tracker, kll **out, sqe_error *err) {
    kll *sk = mem_calloc(tracker, sizeof *sk, err);
    if (!sk) return alloc_failed(err);
    sk->tracker = tracker;
    sk->rng = 0x9e3779b97f4a7c15ULL;
    sk->n_levels = 1;
    *out = sk;
    return SQE_OK;
}

/* Capacity of level h: k * (2/3)^(depth below the top), at least KLL_MIN_CAP. */
static uint32_t kll_capacity(kll *sk, uint32_t h) {
    if (sk->caps_for != sk->n_levels) {
        double c = KLL_K;
        for (uint32_t k = sk->n_levels; k-- > 0;) {
            sk->caps[k] = c < KLL_MIN_CAP ? KLL_MIN_CAP : (uint32_t)c;
            c *= 2.0 / 3.0;
        }
        for (uint32_t k = sk->n_levels; k < KLL_LEVELS; k++) sk->caps[k] = KLL_K;
        sk->caps_for = sk->n_levels;
    }
    return sk->caps[h];
}

static int kll_reserve(kll *sk, uint32_t h, uint32_t n, sqe_error *err) {
    kll_level *l = &sk->lvl[h];
    if (n <= l->cap) return SQE_OK;
    uint32_t cap = l->cap ? l->cap : 16;
    while (cap < n) {
        if (cap > UINT32_MAX / 2) return err_set(err, SQE_ERR_EXCEEDED_MEMORY_LIMIT, "approx_percentile sketch too large");
        cap *= 2;
    }
    uint64_t *p = mem_realloc(sk->tracker, l->items, (size_t)cap * sizeof *p, err);
    if (!p) return alloc_failed(err);
    l->items = p;
    l->cap = cap;
    return SQE_OK;
}

static inline int kll_push(kll *sk, uint32_t h, uint64_t item, sqe_error *err) {
    kll_level *l = &sk->lvl[h];
    if (l->n == l->cap) SQE_TRY(kll_reserve(sk, h, l->n + 1, err));
    l->items[l->n++] = item;
    if (h >= sk->n_levels) sk->n_levels = h + 1;
    return SQE_OK;
}

/* Sorts level h and moves every other item (random offset) to level h + 1; an odd item out
 * stays at level h. The total weight is unchanged. */
static int kll_compact(kll *sk, uint32_t h, sqe_error *err) {
    kll_level *l = &sk->lvl[h];
    qsort(l->items, l->n, sizeof *l->items, cmp_u64);
    uint32_t n = l->n, keep = n & 1, half = n / 2;
    sk->rng ^= sk->rng << 13;
    sk->rng ^= sk->rng >> 7;
    sk->rng ^= sk->rng << 17;
    uint32_t offset = (uint32_t)(sk->rng >> 63);
    SQE_TRY(kll_reserve(sk, h + 1, sk->lvl[h + 1].n + half, err));
    kll_level *up = &sk->lvl[h + 1];
    for (uint32_t j = 0; j < half; j++) up->items[up->n++] = l->items[keep + 2 * j + offset];
    l->n = keep; /* an odd item out (the smallest) stays at level h */
    if (h + 2 > sk->n_levels) sk->n_levels = h + 2;
    return SQE_OK;
}

/* Compacts the lowest over-full level until every level fits its capacity. */
static int kll_compress(kll *sk, sqe_error *err) {
    for (;;) {
        uint32_t h = 0;
        while (h + 1 < KLL_LEVELS && !(sk->lvl[h].n >= 2 && sk->lvl[h].n >= kll_capacity(sk, h))) h++;
        if (h + 1 >= KLL_LEVELS) return SQE_OK;
        SQE_TRY(kll_compact(sk, h, err));
    }
}

/* Adds item with weight w >= 1 (one copy per set bit of w, at that bit's level). */
static int kll_add(kll *sk, uint64_t item, uint64_t w, sqe_error *err) {
    if (sk->total > UINT64_MAX - w)
        return err_set(err, SQE_ERR_NUMERIC_VALUE_OUT_OF_RANGE, "approx_percentile: total weight overflow");
    sk->total += w;
    bool full = false;
    for (uint32_t h = 0; w; h++, w >>= 1) {
        if (!(w & 1)) continue;
        SQE_TRY(kll_push(sk, h, item, err));
        full = full || sk->lvl[h].n >= kll_capacity(sk, h);
    }
    return full ? kll_compress(sk, err) : SQE_OK;
}

static int kll_merge(kll *dst, const kll *src, sqe_error *err) {
    if (dst->total > UINT64_MAX - src->total)
        return err_set(err, SQE_ERR_NUMERIC_VALUE_OUT_OF_RANGE, "approx_percentile: total weight overflow");
    for (uint32_t h = 0; h < src->n_levels; h++) {
        const kll_level *l = &src->lvl[h];
        if (!l->n) continue;
        SQE_TRY(kll_reserve(dst, h, dst->lvl[h].n + l->n, err));
        memcpy(dst->lvl[h].items + dst->lvl[h].n, l->items, (size_t)l->n * sizeof *l->items);
        dst->lvl[h].n += l->n;
    }
    if (src->n_levels > dst->n_levels) dst->n_levels = src->n_levels;
    dst->total += src->total;
    return kll_compress(dst, err);
}

typedef struct kll_item {
    uint64_t value;
    uint64_t weight;
} kll_item;

static int cmp_item(const void *a, const void *b) {
    return cmp_u64(&((const kll_item *)a)->value, &((const kll_item *)b)->value);
}

/* Writes the items sorted by value into *out (caller frees with mem_free on tracker). */
static int kll_sorted(const kll *sk, mem_tracker *tracker, kll_item **out, uint32_t *n_out,
                      sqe_error *err) {
    uint64_t n = 0;
    for (uint32_t h = 0; h < sk->n_levels; h++) n += sk->lvl[h].n;
    kll_item *items = mem_alloc(tracker, (size_t)(n ? n : 1) * sizeof *items, err);
    if (!items) return alloc_failed(err);
    uint32_t k = 0;
    for (uint32_t h = 0; h < sk->n_levels; h++)
        for (uint32_t i = 0; i < sk->lvl[h].n; i++) items[k++] = (kll_item){sk->lvl[h].items[i], (uint64_t)1 << h};
    qsort(items, k, sizeof *items, cmp_item);
    *out = items;
    *n_out = k;
    return SQE_OK;
}

/* The item at weighted rank floor(q * total), clamped to the last one. */
static uint64_t kll_quantile(const kll_item *items, uint32_t n, uint64_t total, double q) {
    double r = floor(q * (double)total);
    uint64_t rank = r >= (double)total ? total - 1 : (uint64_t)r;
    uint64_t cum = 0;
    for (uint32_t i = 0; i < n; i++) {
        cum += items[i].weight;
        if (cum > rank) return items[i].value;
    }
    return items[n - 1].value;
}

/* Order-preserving encodings of the input values as uint64. */
static inline uint64_t enc_i64(int64_t x) { return (uint64_t)x ^ (1ULL << 63); }
static inline int64_t dec_i64(uint64_t k) { return (int64_t)(k ^ (1ULL << 63)); }
static inline uint64_t enc_f64(double d) {
    if (isnan(d)) d = NAN;
    if (d == 0) d = 0.0;
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    return (b >> 63) ? ~b : b | (1ULL << 63);
}
static inline double dec_f64(uint64_t k) {
    uint64_t b = (k >> 63) ? k & ~(1ULL << 63) : ~k;
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

/* Reads the percentile argument at `row` into the new sketch (validated). */
static int pct_capture(func_ctx *ctx, kll *sk, const vec *arg, uint32_t row) {
    uint32_t phys;
    const vec *f = vec_resolve(arg, row, &phys);
    if (!vec_is_valid_flat(f, phys))
        return err_set(ctx->err, SQE_ERR_INVALID_FUNCTION_ARGUMENT, "Percentile cannot be null");
    const vec *vals = f;
    uint32_t from = phys, n = 1;
    if (f->type.id == TYPE_ARRAY) {
        sqe_list_entry e = VEC_DATA(f, const sqe_list_entry)[phys];
        vals = &f->children[0];
        from = e.offset;
        n = e.length;
        sk->pct_array = true;
    }
    double *p = mem_alloc(sk->tracker, (size_t)(n ? n : 1) * sizeof *p, ctx->err);
    if (!p) return alloc_failed(ctx->err);
    for (uint32_t k = 0; k < n; k++) {
        uint32_t ep;
        const vec *ef = vec_resolve(vals, from + k, &ep);
        if (!vec_is_valid_flat(ef, ep)) {
            mem_free(sk->tracker, p);
            return err_set(ctx->err, SQE_ERR_INVALID_FUNCTION_ARGUMENT, "Percentile cannot be null");
        }
        p[k] = VEC_DATA(ef, const double)[ep];
        if (!(p[k] >= 0 && p[k] <= 1)) {
            mem_free(sk->tracker, p);
            return err_set(ctx->err, SQE_ERR_INVALID_FUNCTION_ARGUMENT, "Percentile must be between 0 and 1");
        }
    }
    sk->pcts = p;
    sk->n_pcts = n;
    return SQE_OK;
}

#define PCT_CASE(P, T, ENC)                                                                        \
    case P: {                                                                                      \
        const T *vals = (const T *)u.data;                                                         \
        FUNC_FOR_ROWS(sel, count, row) {                                                           \
            uint32_t i = vec_view_index(&u, row);                                                  \
            if (!agg_valid_at(&u, i)) continue;                                                    \
            uint64_t w = 1;                                                                        \
            if (weighted) {                                                                        \
                uint32_t j = vec_view_index(&uw, row);                                             \
                if (!agg_valid_at(&uw, j)) continue;                                               \
                int64_t wv = ((const int64_t *)uw.data)[j];                                        \
                if (wv < 1)                                                                        \
                    return err_set(ctx->err, SQE_ERR_INVALID_FUNCTION_ARGUMENT,                    \
                                   "Percentile weight must be at least 1: %lld", (long long)wv);   \
                w = (uint64_t)wv;                                                                  \
            }                                                                                      \
            pct_state *s = (pct_state *)states[row];                                               \
            if (!s->sk) {                                                                          \
                kll *sk;                                                                           \
                SQE_TRY(kll_create(ctx->tracker, &sk, ctx->err));                                  \
                int rc = pct_capture(ctx, sk, args[n_args - 1], row);                             \
                if (rc != SQE_OK) {                                                                \
                    kll_free(sk);                                                                  \
                    return rc;                                                                     \
                }                                                                                  \
                s->sk = sk;                                                                        \
            }                                                                                      \
            SQE_TRY(kll_add(s->sk, ENC(vals[i]), w, ctx->err));                                    \
        }                                                                                          \
        break;                                                                                     \
    }

#define ENC_INT(x) enc_i64((int64_t)(x))
#define ENC_FLT(x) enc_f64((double)(x))

static int pct_update(func_ctx *ctx, const vec *const *args, uint32_t n_args, const uint32_t *sel,
                      uint32_t count, uint8_t **states) {
    vec_view u, uw = {0};
    vec_view_init(&u, args[0]);
    bool weighted = n_args == 3;
    if (weighted) vec_view_init(&uw, args[1]);
    else memset(&uw, 0, sizeof uw);
    switch (agg_phys_of(args[0]->type)) {
        PCT_CASE(AGG_P_I8, int8_t, ENC_INT)
        PCT_CASE(AGG_P_I16, int16_t, ENC_INT)
        PCT_CASE(AGG_P_I32, int32_t, ENC_INT)
        PCT_CASE(AGG_P_I64, int64_t, ENC_INT)
        PCT_CASE(AGG_P_F32, float, ENC_FLT)
        PCT_CASE(AGG_P_F64, double, ENC_FLT)
    default: return unsupported(ctx, "approx_percentile", args[0]->type);
    }
    return SQE_OK;
}

static int pct_combine(func_ctx *ctx, const uint8_t *src, uint8_t *dst) {
    const pct_state *a = (const pct_state *)src;
    pct_state *d = (pct_state *)dst;
    if (!a->sk) return SQE_OK;
    if (!d->sk) {
        kll *sk;
        SQE_TRY(kll_create(ctx->tracker, &sk, ctx->err));
        sk->pcts = mem_alloc(sk->tracker, (size_t)(a->sk->n_pcts ? a->sk->n_pcts : 1) * sizeof(double), ctx->err);
        if (!sk->pcts) {
            kll_free(sk);
            return alloc_failed(ctx->err);
        }
        memcpy(sk->pcts, a->sk->pcts, (size_t)a->sk->n_pcts * sizeof(double));
        sk->n_pcts = a->sk->n_pcts;
        sk->pct_array = a->sk->pct_array;
        d->sk = sk;
    }
    return kll_merge(d->sk, a->sk, ctx->err);
}

/* Stores decoded value `k` at out[row] (out has the input's type). */
static void pct_put(vec *out, uint32_t row, uint64_t k) {
    switch (agg_phys_of(out->type)) {
    case AGG_P_I8: VEC_DATA(out, int8_t)[row] = (int8_t)dec_i64(k); break;
    case AGG_P_I16: VEC_DATA(out, int16_t)[row] = (int16_t)dec_i64(k); break;
    case AGG_P_I32: VEC_DATA(out, int32_t)[row] = (int32_t)dec_i64(k); break;
    case AGG_P_I64: VEC_DATA(out, int64_t)[row] = dec_i64(k); break;
    case AGG_P_F32: VEC_DATA(out, float)[row] = (float)dec_f64(k); break;
    default: VEC_DATA(out, double)[row] = dec_f64(k); break;
    }
    vec_set_valid(out, row);
}

static int pct_finalize(func_ctx *ctx, const uint8_t *state, vec *out, uint32_t row) {
    const kll *sk = ((const pct_state *)state)->sk;
    if (!sk || sk->total == 0) return agg_set_null(ctx, out, row);
    kll_item *items = NULL;
    uint32_t n = 0;
    SQE_TRY(kll_sorted(sk, ctx->tracker, &items, &n, ctx->err));
    int rc = SQE_OK;
    if (out->type.id != TYPE_ARRAY) {
        pct_put(out, row, kll_quantile(items, n, sk->total, sk->pcts[0]));
    } else if (out->n_children < 1) {
        rc = err_set(ctx->err, SQE_ERR_GENERIC_INTERNAL_ERROR, "approx_percentile: bad result type");
    } else {
        vec *child = &out->children[0];
        uint32_t at = out->child_len;
        rc = at > UINT32_MAX - sk->n_pcts ? err_set(ctx->err, SQE_ERR_EXCEEDED_MEMORY_LIMIT, "result too large")
                                         : vec_reserve(child, at + sk->n_pcts, ctx->err);
        if (rc == SQE_OK) {
            for (uint32_t k = 0; k < sk->n_pcts; k++)
                pct_put(child, at + k, kll_quantile(items, n, sk->total, sk->pcts[k]));
            out->child_len = at + sk->n_pcts;
            VEC_DATA(out, sqe_list_entry)[row] = (sqe_list_entry){at, sk->n_pcts};
            vec_set_valid(out, row);
        }
    }
    mem_free(ctx->tracker, items);
    return rc;
}

static void pct_destroy(uint8_t *state) {
    pct_state *s = (pct_state *)state;
    kll_free(s->sk);
    s->sk = NULL;
}

/* ==== Table =================================================================================== */

#define APPROX(name, args, ret, prefix, state, desc)                                               \
    {name, args, ret, NULL, NULL, AGG_STATE_SIZE(state), prefix##_init, prefix##_update,           \
     prefix##_combine, prefix##_finalize, prefix##_destroy, 0, desc}

#define PCT(args, ret)                                                                             \
    {"approx_percentile", args, ret, NULL, NULL, AGG_STATE_SIZE(pct_state), pct_init, pct_update,  \
     pct_combine, pct_finalize, pct_destroy, 0, "Approximate percentile (KLL sketch, <1% rank error)"}

#define PCT_TYPE(t)                                                                                \
    PCT(t ",double", t), PCT(t ",array(double)", "array(" t ")"), PCT(t ",bigint,double", t),      \
        PCT(t ",bigint,array(double)", "array(" t ")")

static const func_agg_def approx_defs[] = {
    APPROX("approx_distinct", "T", "bigint", approx_distinct, hll_state,
           "Approximate number of distinct non-NULL values (HyperLogLog, 2.3% standard error)"),
    APPROX("approx_distinct", "T,double", "bigint", approx_distinct, hll_state,
           "Approximate number of distinct non-NULL values with the given max standard error"),
    PCT_TYPE("tinyint"),
    PCT_TYPE("smallint"),
    PCT_TYPE("integer"),
    PCT_TYPE("bigint"),
    PCT_TYPE("real"),
    PCT_TYPE("double"),
};

const func_agg_def *func_agg_family_approx(uint32_t *count) {
    *count = (uint32_t)(sizeof approx_defs / sizeof approx_defs[0]);
    return approx_defs;
}
