/*
 * fuzz_parquet_read.c: libFuzzer target over the whole Parquet read path: footer, schema,
 * row-group IO, pages, codecs, levels, values, dictionaries and nested record assembly.
 * Input = a file image, written to a memfd and read through io/ like any file; every column of
 * every row group is read (at most 64 batches per row group); odd row groups also go through
 * page-index selection with an IS NOT NULL predicate on the first column. Run with `make fuzz-parquet`.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "format/parquet/pq_prune.h"
#include "format/parquet/pq_reader.h"

static int fd = -1;
static char path[64];

static void read_all(pq_file *f) {
    const pq_schema *s = f->schema;
    uint32_t n = s->n_columns;
    uint32_t *cols = malloc((n ? n : 1) * sizeof *cols);
    sqe_type *types = malloc((n ? n : 1) * sizeof *types);
    if (!cols || !types) goto out;
    for (uint32_t i = 0; i < n; i++) {
        cols[i] = i;
        types[i] = s->columns[i]->type;
    }
    mem_tracker tracker;
    mem_tracker_init(&tracker, "fuzz", (int64_t)1 << 30, NULL);
    mem_tracker *t = &tracker;
    for (uint32_t g = 0; g < f->meta->n_row_groups && g < 16; g++) {
        sqe_error err;
        pq_rg_reader *r;
        /* An IS NOT NULL on the first top-level leaf exercises the page index and page skips. */
        const pq_node *first = n ? s->columns[0] : NULL;
        pq_predicate pred = {first, PQ_PRED_IS_NOT_NULL, NULL, 0};
        bool use_pred = first && first->kind == PQ_NODE_LEAF && !first->max_rep && (g & 1);
        if (pq_rg_open(f, g, cols, n, use_pred ? &pred : NULL, use_pred, t, &r, &err) != SQE_OK) continue;
        vec_chunk c;
        if (vec_chunk_init(&c, n, types, VEC_CHUNK_SIZE, t, &err) == SQE_OK) {
            for (int b = 0; b < 64; b++) {
                vec_chunk_reset(&c);
                if (pq_rg_next(r, &c, &err) != SQE_OK || c.count == 0) break;
            }
            vec_chunk_destroy(&c);
        }
        pq_rg_close(r);
    }
out:
    free(cols);
    free(types);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (fd < 0) {
        fd = memfd_create("fuzz-parquet", 0);
        if (fd < 0) abort();
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size) abort();
    pq_file_cache_clear();
    sqe_error err;
    pq_file *f;
    if (pq_file_open(path, &f, &err) == SQE_OK) {
        read_all(f);
        pq_file_release(f);
    }
    return 0;
}
