/*
 * op_filter.c: WHERE / HAVING (PLAN_FILTER), a streaming operator.
 *
 * INTERFACE: exec_op_filter_create (ops.h).
 * NOTES: the condition is evaluated as a selection (exec_expr_select: AND narrows the rows the
 * next conjunct sees); the output chunk's columns become VEC_DICT views of the input through
 * that selection, composed with the input's own selections, so no value is copied. When every
 * row passes, the columns are identity views; when none does, nothing is pushed.
 */
#include <stdlib.h>

#include "exec/ops.h"

typedef struct filter_impl {
    exec_expr *cond;
} filter_impl;

typedef struct filter_l {
    exec_expr_state *st;
    uint32_t *sel;
    uint32_t cap;
} filter_l;

static void filter_local_destroy(exec_op *op, void *lstate) {
    filter_l *l = lstate;
    if (!l) return;
    exec_expr_state_destroy(l->st);
    mem_free(op->qctx->tracker, l->sel);
    free(l);
}

static int filter_local_init(exec_op *op, void **lstate, sqe_error *err) {
    filter_impl *f = op->impl;
    filter_l *l = calloc(1, sizeof *l);
    if (!l) return err_nomem(err, "filter");
    int rc = exec_expr_state_create(f->cond, op->qctx, &l->st, err);
    if (rc != SQE_OK) {
        filter_local_destroy(op, l);
        return rc;
    }
    *lstate = l;
    return SQE_OK;
}

static int filter_execute(exec_op *op, void *lstate, const vec_chunk *in, vec_chunk *out,
                          exec_op_result *res, sqe_error *err) {
    filter_l *l = lstate;
    *res = EXEC_NEED_INPUT;
    if (in->count > l->cap) {
        uint32_t cap = in->count > VEC_CHUNK_SIZE ? in->count : VEC_CHUNK_SIZE;
        mem_free(op->qctx->tracker, l->sel);
        l->cap = 0;
        l->sel = mem_alloc(op->qctx->tracker, cap * sizeof(uint32_t), err);
        if (!l->sel) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
        l->cap = cap;
    }
    uint32_t n;
    SQE_TRY(exec_expr_select(l->st, in, NULL, in->count, l->sel, &n, err));
    if (n == 0) {
        out->count = 0;
        return SQE_OK;
    }
    return exec_chunk_slice(out, in, n == in->count ? NULL : l->sel, n, err);
}

static const exec_op_vtable filter_vt = {
    .name = "Filter",
    .op_local_init = filter_local_init,
    .op_execute = filter_execute,
    .op_local_destroy = filter_local_destroy,
};

int exec_op_filter_create(exec_query_ctx *qctx, const plan *p, exec_op *child, exec_op **out,
                          sqe_error *err) {
    exec_op *op = exec_op_alloc(qctx, &filter_vt, p, 1);
    filter_impl *f = ARENA_NEW(qctx->arena, filter_impl);
    if (!op || !f) return err_nomem(err, "operator");
    op->children[0] = child;
    op->impl = f;
    exec_layout lay = exec_layout_of(p->children[0]);
    SQE_TRY(exec_expr_compile(qctx, p->u.filter.cond, &lay, &f->cond, err));
    if (exec_expr_type(f->cond).id != TYPE_BOOLEAN)
        return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "filter condition is not boolean");
    exec_op_detail_expr(op, "", p->u.filter.cond, p->children[0]);
    *out = op;
    return SQE_OK;
}
