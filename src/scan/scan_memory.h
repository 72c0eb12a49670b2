/*
 * scan_memory.h: the scan of an in-memory catalog table (PLAN_SCAN): one consistent version of
 * the table's stored chunks, split into morsels of consecutive chunks.
 *
 * INTERFACE: scan_memory, scan_memory_open, scan_memory_morsel, scan_memory_chunk,
 * scan_memory_close.
 * NOTES: unlike the other sources this is not a plan_source: the executor (exec/op_scan.c)
 * hands the stored vectors out zero-copy as views and evaluates a pushed-down filter on them,
 * so the scan here only fixes the version and the morsels.
 */
#ifndef SQE_SCAN_SCAN_MEMORY_H
#define SQE_SCAN_SCAN_MEMORY_H

#include "catalog/catalog.h"

/* Consecutive stored chunks per morsel, at most (64 chunks: 131072 rows). */
#define SCAN_MEMORY_MAX_MORSEL_CHUNKS 64

typedef struct scan_memory {
    cat_snapshot snap;           /* owned: the chunk list when the scan was opened */
    uint32_t chunks_per_morsel;
    uint32_t n_morsels;
} scan_memory;

/* Snapshots t's chunk list (committed chunks are immutable, so a self-join sees one version)
 * and splits it into about four morsels per thread (threads 0 counts as 1). The caller holds a
 * reference to t while *out is open. On error nothing is held. */
int scan_memory_open(cat_table *t, uint32_t threads, scan_memory *out, sqe_error *err);

/* The stored chunks [*begin, *end) of morsel m (< n_morsels). */
static inline void scan_memory_morsel(const scan_memory *s, uint32_t m, uint32_t *begin,
                                      uint32_t *end) {
    *begin = m * s->chunks_per_morsel;
    *end = *begin + s->chunks_per_morsel;
    if (*end > s->snap.n_chunks) *end = s->snap.n_chunks;
}

/* Stored chunk i (< snap.n_chunks), borrowed from the table. */
static inline const vec_chunk *scan_memory_chunk(const scan_memory *s, uint32_t i) {
    return s->snap.chunks[i];
}

/* Releases the snapshot. */
void scan_memory_close(scan_memory *s);

#endif
