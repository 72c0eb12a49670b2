/*
 * op_setop.c: set operations (PLAN_SETOP): UNION [ALL], INTERSECT [ALL], EXCEPT [ALL] over n
 * inputs whose columns match by position (the binder casts every input to the common types).
 *
 * INTERFACE: exec_op_setop_create (ops.h).
 * NOTES:
 * - UNION ALL concatenates: each input's chunks are copied (thread-locally) into a collection
 *   that the source hands out chunk by chunk in parallel, as zero-copy views.
 * - The others are grouped aggregations over all columns (op_hash_agg_int.h) with one row
 *   counter per input; each group is emitted as many times as SQL's multiset rules say:
 *   UNION once; INTERSECT once when every counter is > 0, INTERSECT ALL min(counters) times;
 *   EXCEPT once when the first counter is > 0 and all others are 0, EXCEPT ALL
 *   max(c0 - c1 - ... , 0) times (n-ary operations associate to the left).
 */
#include <stdlib.h>
#include <string.h>

#include "exec/chunk_store.h"
#include "exec/hashtable.h"
#include "exec/op_hash_agg_int.h"

typedef struct union_local {
    exec_chunk_list rows; /* this thread's input rows */
} union_local;

typedef struct union_global {
    exec_chunk_store all; /* every input's rows; sealed by finalize */
} union_global;

typedef struct union_src {
    _Atomic uint32_t next;
} union_src;

static void union_local_free(exec_op *op, union_local *l) {
    if (!l) return;
    exec_chunk_list_destroy(&l->rows, op->qctx->tracker);
    mem_free(op->qctx->tracker, l);
}

static int union_sink_init(exec_op *op, void **gstate, sqe_error *err) {
    union_global *g = mem_calloc(op->qctx->tracker, sizeof *g, err);
    if (!g) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
    exec_chunk_store_init(&g->all);
    *gstate = g;
    return SQE_OK;
}

static void union_sink_destroy(exec_op *op, void *gstate) {
    union_global *g = gstate;
    if (!g) return;
    exec_chunk_store_destroy(&g->all, op->qctx->tracker);
    mem_free(op->qctx->tracker, g);
}

static int union_local_init(exec_op *op, void *gstate, uint32_t input_idx, void **lstate,
                            sqe_error *err) {
    union_local *l = mem_calloc(op->qctx->tracker, sizeof *l, err);
    if (!l) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
    *lstate = l;
    return SQE_OK;
}

static int union_sink(exec_op *op, void *gstate, void *lstate, const vec_chunk *in,
                      sqe_error *err) {
    union_local *l = lstate;
    return exec_chunk_list_append_copy(&l->rows, in, op->qctx->tracker, err);
}

/* Moves the thread's rows into the store; the local state ends here (the driver does not
 * destroy a combined local state). */
static int union_combine(exec_op *op, void *gstate, void *lstate, sqe_error *err) {
    union_global *g = gstate;
    union_local *l = lstate;
    int rc = exec_chunk_store_add(&g->all, &l->rows, op->qctx->tracker, err);
    union_local_free(op, l);
    return rc;
}

static void union_local_destroy(exec_op *op, void *gstate, void *lstate) {
    union_local_free(op, lstate);
}

static int union_finalize(exec_op *op, void *gstate, sqe_error *err) {
    union_global *g = gstate;
    return exec_chunk_store_seal(&g->all, op->qctx->tracker, err);
}

static int union_source_init(exec_op *op, void **gstate, sqe_error *err) {
    union_src *s = mem_calloc(op->qctx->tracker, sizeof *s, err);
    if (!s) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
    atomic_init(&s->next, 0);
    *gstate = s;
    return SQE_OK;
}

static void union_source_destroy(exec_op *op, void *gstate) { mem_free(op->qctx->tracker, gstate); }

static int union_next(exec_op *op, void *gstate, void *lstate, vec_chunk *out, sqe_error *err) {
    union_src *s = gstate;
    union_global *g = op->sink_gstate;
    uint32_t i = atomic_fetch_add(&s->next, 1);
    if (i >= exec_chunk_store_count(&g->all)) {
        out->count = 0;
        return SQE_OK;
    }
    const vec_chunk *c = exec_chunk_store_chunk(&g->all, i);
    return exec_chunk_slice(out, c, NULL, c->count, err);
}

static uint32_t union_max_threads(exec_op *op, void *gstate) {
    union_global *g = op->sink_gstate;
    return g && exec_chunk_store_count(&g->all) ? exec_chunk_store_count(&g->all) : 1;
}

static const exec_op_vtable union_all_vt = {
    .name = "UnionAll",
    .source_init = union_source_init,
    .source_next = union_next,
    .source_destroy = union_source_destroy,
    .sink_init = union_sink_init,
    .sink_local_init = union_local_init,
    .sink = union_sink,
    .sink_combine = union_combine,
    .sink_finalize = union_finalize,
    .sink_destroy = union_sink_destroy,
    .source_max_threads = union_max_threads,
    .sink_local_destroy = union_local_destroy,
};

int exec_op_setop_create(exec_query_ctx *qctx, const plan *p, exec_op **children,
                         uint32_t n_children, exec_op **out, sqe_error *err) {
    if (n_children == 0) return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "set operation without inputs");
    for (uint32_t i = 0; i < n_children; i++)
        if (p->children[i]->n_out != p->n_out)
            return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR,
                           "set operation input %u has %u columns, expected %u", i,
                           p->children[i]->n_out, p->n_out);
    if (p->u.setop.op == SETOP_UNION && p->u.setop.all) {
        exec_op *op = exec_op_alloc(qctx, &union_all_vt, p, n_children);
        if (!op) return err_nomem(err, "operator");
        for (uint32_t i = 0; i < n_children; i++) op->children[i] = children[i];
        *out = op;
        return SQE_OK;
    }
    exec_agg_spec spec;
    memset(&spec, 0, sizeof spec);
    spec.n_groups = p->n_out;
    spec.n_inputs = n_children;
    spec.counters = true;
    spec.setop = p->u.setop.op;
    spec.setop_all = p->u.setop.all;
    spec.name = "SetOperation";
    if (n_children > 64)
        return err_set(err, SQE_ERR_NOT_SUPPORTED, "set operations over more than 64 inputs");
    SQE_TRY(exec_agg_op_create(qctx, p, &spec, children, n_children, out, err));
    static const char *names[] = {"", "UNION", "INTERSECT", "EXCEPT"};
    exec_op_set_detail(*out, "%s%s", p->u.setop.op <= 3 ? names[p->u.setop.op] : "?",
                       p->u.setop.all ? " ALL" : "");
    return SQE_OK;
}
