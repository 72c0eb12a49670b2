/*
 * op_project.c: projection (PLAN_PROJECT), a streaming operator.
 *
 * INTERFACE: exec_op_project_create (ops.h).
 * NOTES: a column passed through becomes a zero-copy view of the input column. A computed
 * column is evaluated straight into the output chunk's vector (exec_expr_eval_to); when the
 * result lives elsewhere (a constant, a nested field, a column) the output becomes a view of it
 * or a constant, never a copy.
 */
#include <stdlib.h>

#include "exec/ops.h"

typedef struct project_impl {
    exec_expr **exprs;
    int64_t *pass; /* input position of a passed-through column, or -1 */
    uint32_t n;
} project_impl;

typedef struct project_l {
    exec_expr_state **st;
} project_l;

static void project_local_destroy(exec_op *op, void *lstate) {
    project_impl *p = op->impl;
    project_l *l = lstate;
    if (!l) return;
    if (l->st)
        for (uint32_t i = 0; i < p->n; i++) exec_expr_state_destroy(l->st[i]);
    free(l->st);
    free(l);
}

static int project_local_init(exec_op *op, void **lstate, sqe_error *err) {
    project_impl *p = op->impl;
    project_l *l = calloc(1, sizeof *l);
    if (!l) return err_nomem(err, "project");
    l->st = calloc(p->n ? p->n : 1, sizeof *l->st);
    if (!l->st) {
        free(l);
        return err_nomem(err, "project");
    }
    for (uint32_t i = 0; i < p->n; i++) {
        if (p->pass[i] >= 0) continue;
        int rc = exec_expr_state_create(p->exprs[i], op->qctx, &l->st[i], err);
        if (rc != SQE_OK) {
            project_local_destroy(op, l);
            return rc;
        }
    }
    *lstate = l;
    return SQE_OK;
}

static int project_execute(exec_op *op, void *lstate, const vec_chunk *in, vec_chunk *out,
                           exec_op_result *res, sqe_error *err) {
    project_impl *p = op->impl;
    project_l *l = lstate;
    *res = EXEC_NEED_INPUT;
    for (uint32_t i = 0; i < p->n; i++) {
        vec *dst = &out->cols[i];
        if (p->pass[i] >= 0) {
            SQE_TRY(exec_vec_slice(dst, &in->cols[p->pass[i]], NULL, in->count, err));
            continue;
        }
        const vec *r;
        SQE_TRY(exec_expr_eval_to(l->st[i], in, NULL, in->count, dst, &r, err));
        if (r != dst) SQE_TRY(exec_vec_slice(dst, r, NULL, in->count, err));
    }
    out->count = in->count;
    return SQE_OK;
}

static const exec_op_vtable project_vt = {
    .name = "Project",
    .op_local_init = project_local_init,
    .op_execute = project_execute,
    .op_local_destroy = project_local_destroy,
};

int exec_op_project_create(exec_query_ctx *qctx, const plan *p, exec_op *child, exec_op **out,
                           sqe_error *err) {
    exec_op *op = exec_op_alloc(qctx, &project_vt, p, 1);
    project_impl *pi = ARENA_NEW(qctx->arena, project_impl);
    if (!op || !pi) return err_nomem(err, "operator");
    op->children[0] = child;
    op->impl = pi;
    pi->n = p->n_out;
    pi->exprs = ARENA_ARRAY(qctx->arena, exec_expr *, p->n_out + 1);
    pi->pass = ARENA_ARRAY(qctx->arena, int64_t, p->n_out + 1);
    if (!pi->exprs || !pi->pass) return err_nomem(err, "operator");
    exec_layout lay = exec_layout_of(p->children[0]);
    uint32_t n_computed = 0;
    for (uint32_t i = 0; i < p->n_out; i++) {
        SQE_TRY(exec_expr_compile(qctx, p->u.project.exprs[i], &lay, &pi->exprs[i], err));
        if (!exec_types_compatible(exec_expr_type(pi->exprs[i]), p->out[i].type))
            return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR,
                           "projection %u: expression type differs from the column type", i);
        uint32_t pos;
        pi->pass[i] = exec_expr_is_column(pi->exprs[i], &pos) ? (int64_t)pos : -1;
        if (pi->pass[i] < 0) n_computed++;
    }
    exec_op_set_detail(op, "%u columns, %u computed", p->n_out, n_computed);
    *out = op;
    return SQE_OK;
}
