/*
 * op_empty.c: a source of no rows (PLAN_EMPTY: WHERE false, LIMIT 0 after optimization).
 *
 * INTERFACE: exec_op_empty_create (ops.h).
 */
#include "exec/ops.h"

static int empty_next(exec_op *op, void *gstate, void *lstate, vec_chunk *out, sqe_error *err) {
    out->count = 0;
    return SQE_OK;
}

static uint32_t empty_max_threads(exec_op *op, void *gstate) { return 1; }

static const exec_op_vtable empty_vt = {
    .name = "Empty",
    .source_next = empty_next,
    .source_max_threads = empty_max_threads,
};

int exec_op_empty_create(exec_query_ctx *qctx, const plan *p, exec_op **out, sqe_error *err) {
    exec_op *op = exec_op_alloc(qctx, &empty_vt, p, 0);
    if (!op) return err_nomem(err, "operator");
    *out = op;
    return SQE_OK;
}
