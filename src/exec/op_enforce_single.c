/*
 * op_enforce_single.c: the scalar subquery guard (PLAN_ENFORCE_SINGLE): passes on exactly one
 * row: the only row of its input, or a row of NULLs when the input is empty; a second row fails
 * the query with SUBQUERY_MULTIPLE_ROWS.
 *
 * INTERFACE: exec_op_enforce_single_create (ops.h).
 * NOTES: a breaker (sink + source). The sink counts rows with an atomic counter across threads
 * and keeps a deep copy of the first; the source emits a view of that one-row chunk.
 */
#include <stdlib.h>

#include "exec/ops.h"

typedef struct single_g {
    _Atomic uint64_t rows;
    pthread_mutex_t lock;
    vec_chunk row;
    bool row_ok;
} single_g;

typedef struct single_src {
    bool done;
} single_src;

static void single_sink_destroy(exec_op *op, void *gstate) {
    single_g *g = gstate;
    if (!g) return;
    if (g->row_ok) vec_chunk_destroy(&g->row);
    pthread_mutex_destroy(&g->lock);
    free(g);
}

static int single_sink_init(exec_op *op, void **gstate, sqe_error *err) {
    single_g *g = calloc(1, sizeof *g);
    if (!g) return err_nomem(err, "enforce single row");
    pthread_mutex_init(&g->lock, NULL);
    atomic_init(&g->rows, 0);
    g->row_ok = true;
    int rc = vec_chunk_init(&g->row, op->n_types, op->types, 1, op->qctx->tracker, err);
    if (rc != SQE_OK) {
        single_sink_destroy(op, g);
        return rc;
    }
    *gstate = g;
    return SQE_OK;
}

static int single_local_init(exec_op *op, void *gstate, uint32_t input_idx, void **lstate,
                             sqe_error *err) {
    *lstate = NULL;
    return SQE_OK;
}

static int too_many(sqe_error *err) {
    return err_set(err, SQE_ERR_SUBQUERY_MULTIPLE_ROWS, "Scalar sub-query has returned multiple rows");
}

static int single_sink(exec_op *op, void *gstate, void *lstate, const vec_chunk *in,
                       sqe_error *err) {
    single_g *g = gstate;
    if (in->count == 0) return SQE_OK;
    if (in->count > 1) return too_many(err);
    uint64_t before = atomic_fetch_add(&g->rows, in->count);
    if (before > 0) return too_many(err);
    pthread_mutex_lock(&g->lock);
    int rc = SQE_OK;
    for (uint32_t c = 0; c < in->n_cols && rc == SQE_OK; c++)
        rc = exec_vec_copy(&g->row.cols[c], NULL, 0, &in->cols[c], NULL, 1, true, err);
    pthread_mutex_unlock(&g->lock);
    return rc;
}

static int single_combine(exec_op *op, void *gstate, void *lstate, sqe_error *err) {
    return SQE_OK;
}

static int single_finalize(exec_op *op, void *gstate, sqe_error *err) {
    single_g *g = gstate;
    if (atomic_load(&g->rows) == 0)
        for (uint32_t c = 0; c < g->row.n_cols; c++)
            if (vec_set_null(&g->row.cols[c], 0) != SQE_OK) return err_nomem(err, "validity");
    g->row.count = 1;
    return SQE_OK;
}

static int single_source_init(exec_op *op, void **gstate, sqe_error *err) {
    single_src *s = calloc(1, sizeof *s);
    if (!s) return err_nomem(err, "enforce single row");
    *gstate = s;
    return SQE_OK;
}

static int single_next(exec_op *op, void *gstate, void *lstate, vec_chunk *out, sqe_error *err) {
    single_src *s = gstate;
    single_g *g = op->sink_gstate;
    if (s->done || !g) {
        out->count = 0;
        return SQE_OK;
    }
    s->done = true;
    return exec_chunk_slice(out, &g->row, NULL, 1, err);
}

static void single_source_destroy(exec_op *op, void *gstate) { free(gstate); }

static uint32_t single_max_threads(exec_op *op, void *gstate) { return 1; }

static const exec_op_vtable single_vt = {
    .name = "EnforceSingleRow",
    .source_init = single_source_init,
    .source_next = single_next,
    .source_destroy = single_source_destroy,
    .source_serial = true,
    .sink_init = single_sink_init,
    .sink_local_init = single_local_init,
    .sink = single_sink,
    .sink_combine = single_combine,
    .sink_finalize = single_finalize,
    .sink_destroy = single_sink_destroy,
    .source_max_threads = single_max_threads,
};

int exec_op_enforce_single_create(exec_query_ctx *qctx, const plan *p, exec_op *child,
                                  exec_op **out, sqe_error *err) {
    exec_op *op = exec_op_alloc(qctx, &single_vt, p, 1);
    if (!op) return err_nomem(err, "operator");
    op->children[0] = child;
    *out = op;
    return SQE_OK;
}
