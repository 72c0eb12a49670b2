/*
 * op_limit.c: LIMIT / OFFSET without ORDER BY (PLAN_LIMIT), a streaming operator.
 *
 * INTERFACE: exec_op_limit_create (ops.h).
 * NOTES: the rows are numbered globally by one atomic counter shared by every thread (and
 * every pipeline the operator runs in): a chunk of n rows takes the numbers [start, start+n)
 * and passes on those in [offset, offset+limit), as a view. Exactly `limit` rows pass in total,
 * whatever the number of threads. Once the counter has reached offset+limit the operator
 * returns EXEC_FINISHED, which stops the pipeline's source on every thread.
 */
#include <stdlib.h>

#include "exec/ops.h"

typedef struct limit_impl {
    int64_t limit;              /* < 0: none */
    int64_t offset;
    _Atomic int64_t counter;    /* rows numbered so far (shared, query lifetime) */
} limit_impl;

typedef struct limit_l {
    uint32_t *rows;
    uint32_t cap;
} limit_l;

static int limit_local_init(exec_op *op, void **lstate, sqe_error *err) {
    limit_l *l = calloc(1, sizeof *l);
    if (!l) return err_nomem(err, "limit");
    *lstate = l;
    return SQE_OK;
}

static void limit_local_destroy(exec_op *op, void *lstate) {
    limit_l *l = lstate;
    if (!l) return;
    mem_free(op->qctx->tracker, l->rows);
    free(l);
}

static int limit_execute(exec_op *op, void *lstate, const vec_chunk *in, vec_chunk *out,
                         exec_op_result *res, sqe_error *err) {
    limit_impl *li = op->impl;
    limit_l *l = lstate;
    int64_t n = in->count;
    int64_t end = li->limit < 0 ? INT64_MAX
                  : li->offset > INT64_MAX - li->limit ? INT64_MAX
                                                       : li->offset + li->limit;
    int64_t start = end == INT64_MAX ? atomic_fetch_add(&li->counter, n)
                                     : atomic_load(&li->counter) >= end
                                         ? end
                                         : atomic_fetch_add(&li->counter, n);
    *res = start + n >= end ? EXEC_FINISHED : EXEC_NEED_INPUT;
    int64_t lo = li->offset - start;
    if (lo < 0) lo = 0;
    int64_t hi = end - start;
    if (hi > n) hi = n;
    if (lo >= hi) {
        out->count = 0;
        return SQE_OK;
    }
    if (lo == 0 && hi == n) return exec_chunk_slice(out, in, NULL, (uint32_t)n, err);
    uint32_t cnt = (uint32_t)(hi - lo);
    if (cnt > l->cap) {
        mem_free(op->qctx->tracker, l->rows);
        l->cap = 0;
        uint32_t cap = cnt > VEC_CHUNK_SIZE ? cnt : VEC_CHUNK_SIZE;
        l->rows = mem_alloc(op->qctx->tracker, cap * sizeof(uint32_t), err);
        if (!l->rows) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
        l->cap = cap;
    }
    for (uint32_t i = 0; i < cnt; i++) l->rows[i] = (uint32_t)lo + i;
    return exec_chunk_slice(out, in, l->rows, cnt, err);
}

static const exec_op_vtable limit_vt = {
    .name = "Limit",
    .op_local_init = limit_local_init,
    .op_execute = limit_execute,
    .op_local_destroy = limit_local_destroy,
};

int exec_op_limit_create(exec_query_ctx *qctx, const plan *p, exec_op *child, exec_op **out,
                         sqe_error *err) {
    exec_op *op = exec_op_alloc(qctx, &limit_vt, p, 1);
    limit_impl *li = ARENA_NEW(qctx->arena, limit_impl);
    if (!op || !li) return err_nomem(err, "operator");
    op->children[0] = child;
    op->impl = li;
    li->limit = p->u.limit.limit;
    li->offset = p->u.limit.offset > 0 ? p->u.limit.offset : 0;
    atomic_init(&li->counter, 0);
    if (li->limit >= 0 && li->offset > 0)
        exec_op_set_detail(op, "%lld offset %lld", (long long)li->limit, (long long)li->offset);
    else if (li->limit >= 0)
        exec_op_set_detail(op, "%lld", (long long)li->limit);
    else
        exec_op_set_detail(op, "offset %lld", (long long)li->offset);
    *out = op;
    return SQE_OK;
}
