/*
 * scan_memory.c: the scan of an in-memory catalog table: its version (the chunk-list snapshot)
 * and its morsels.
 *
 * INTERFACE: scan_memory_open, scan_memory_close (scan_memory.h).
 */
#include "scan/scan_memory.h"

int scan_memory_open(cat_table *t, uint32_t threads, scan_memory *out, sqe_error *err) {
    SQE_TRY(cat_table_snapshot(t, &out->snap, err));
    if (!threads) threads = 1;
    uint32_t per = (out->snap.n_chunks + 4 * threads - 1) / (4 * threads);
    if (per < 1) per = 1;
    if (per > SCAN_MEMORY_MAX_MORSEL_CHUNKS) per = SCAN_MEMORY_MAX_MORSEL_CHUNKS;
    out->chunks_per_morsel = per;
    out->n_morsels = (out->snap.n_chunks + per - 1) / per;
    return SQE_OK;
}

void scan_memory_close(scan_memory *s) { cat_snapshot_destroy(&s->snap); }
