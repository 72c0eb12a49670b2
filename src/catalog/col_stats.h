/*
 * col_stats.h: per-column statistics of in-memory tables for the optimizer: a HyperLogLog
 * sketch of distinct values (2^12 registers, ~1.6% standard error) and a NULL count.
 *
 * Maintained on every append (cat_append_chunk) and merged into the table at commit, so join
 * ordering can tell keys (many distinct values) from foreign keys and flags (few).
 */
#ifndef SQE_CATALOG_COL_STATS_H
#define SQE_CATALOG_COL_STATS_H

#include <stdint.h>

#include "vec/vec.h"

#define COL_STATS_HLL_BITS 12
#define COL_STATS_HLL_M (1u << COL_STATS_HLL_BITS)

typedef struct col_stats {
    uint8_t hll[COL_STATS_HLL_M];
    uint64_t n_nulls;
    uint64_t n_values; /* non-NULL values added */
    double ndv;        /* col_stats_ndv, cached by col_stats_merge (0 = not computed) */
} col_stats;

void col_stats_init(col_stats *s);
/* Adds rows [0, count) of v (any shape). */
void col_stats_add(col_stats *s, const vec *v, uint32_t count);
/* dst = dst union src. */
void col_stats_merge(col_stats *dst, const col_stats *src);
/* Estimated number of distinct non-NULL values (0 when empty). */
double col_stats_ndv(const col_stats *s);

#endif
