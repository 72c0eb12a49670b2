/*
 * col_stats.c: distinct-value sketches and NULL counts of table columns (see col_stats.h).
 *
 * INTERFACE: col_stats_init, col_stats_add, col_stats_merge, col_stats_ndv.
 * NOTES: HyperLogLog (Flajolet et al. 2007) with the small-range (linear counting) correction;
 * the hash is the engine's in-memory hash of the value's bytes (strings by content).
 */
#include "catalog/col_stats.h"

#include <math.h>
#include <string.h>

#include "common/hash.h"

void col_stats_init(col_stats *s) { memset(s, 0, sizeof *s); }

static inline void add_hash(col_stats *s, uint64_t h) {
    uint32_t idx = (uint32_t)(h >> (64 - COL_STATS_HLL_BITS));
    uint64_t rest = h << COL_STATS_HLL_BITS;
    uint8_t rank = rest ? (uint8_t)(__builtin_clzll(rest) + 1) : (uint8_t)(64 - COL_STATS_HLL_BITS + 1);
    if (rank > s->hll[idx]) s->hll[idx] = rank;
}

/* Flat vectors: one tight loop per physical width. */
static bool add_flat(col_stats *s, const vec *v, uint32_t count) {
    while (v->shape == VEC_DICT && !v->sel) v = v->dict;
    if (v->shape != VEC_FLAT) return false;
    size_t width = type_physical_size(v->type);
    bool view = type_is_string_view(v->type);
    for (uint32_t r = 0; r < count; r++) {
        if (!vec_is_valid_flat(v, r)) {
            s->n_nulls++;
            continue;
        }
        uint64_t h;
        if (view) {
            const sqe_str *str = &VEC_DATA(v, const sqe_str)[r];
            h = hash_bytes(sqe_str_data(str), str->len);
        } else if (width == 8) {
            h = hash_u64((uint64_t)VEC_DATA(v, const int64_t)[r]);
        } else if (width == 4) {
            h = hash_u64((uint64_t)(uint32_t)VEC_DATA(v, const int32_t)[r]);
        } else if (width > 0) {
            h = hash_bytes((const char *)v->data + width * r, width);
        } else {
            h = hash_u64(r);
        }
        s->n_values++;
        add_hash(s, h);
    }
    return true;
}

void col_stats_add(col_stats *s, const vec *v, uint32_t count) {
    if (add_flat(s, v, count)) return;
    size_t width = type_physical_size(v->type);
    bool view = type_is_string_view(v->type);
    for (uint32_t r = 0; r < count; r++) {
        uint32_t phys;
        const vec *flat = vec_resolve(v, r, &phys);
        if (!vec_is_valid_flat(flat, phys)) {
            s->n_nulls++;
            continue;
        }
        s->n_values++;
        uint64_t h;
        if (view) {
            const sqe_str *str = &VEC_DATA(flat, const sqe_str)[phys];
            h = hash_bytes(sqe_str_data(str), str->len);
        } else if (width == 8) {
            uint64_t x;
            memcpy(&x, (const char *)flat->data + 8 * (size_t)phys, 8);
            h = hash_u64(x);
        } else if (width > 0) {
            h = hash_bytes((const char *)flat->data + width * phys, width);
        } else {
            h = hash_u64(phys); /* rows: no sketch; treat as distinct */
        }
        add_hash(s, h);
    }
}

void col_stats_merge(col_stats *dst, const col_stats *src) {
    for (uint32_t i = 0; i < COL_STATS_HLL_M; i++)
        if (src->hll[i] > dst->hll[i]) dst->hll[i] = src->hll[i];
    dst->n_nulls += src->n_nulls;
    dst->n_values += src->n_values;
    dst->ndv = 0;
    dst->ndv = col_stats_ndv(dst);
}

double col_stats_ndv(const col_stats *s) {
    if (s->n_values == 0) return 0;
    if (s->ndv > 0) return s->ndv;
    const double m = COL_STATS_HLL_M;
    double sum = 0;
    uint32_t zeros = 0;
    for (uint32_t i = 0; i < COL_STATS_HLL_M; i++) {
        sum += ldexp(1.0, -(int)s->hll[i]);
        if (s->hll[i] == 0) zeros++;
    }
    double alpha = 0.7213 / (1.0 + 1.079 / m);
    double est = alpha * m * m / sum;
    if (est <= 2.5 * m && zeros) est = m * log(m / zeros);
    if (est > (double)s->n_values) est = (double)s->n_values;
    return est < 1 ? 1 : est;
}
