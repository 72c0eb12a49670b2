/*
 * fold.c: constant folding through the executor: the optimizer hands a constant expression to
 * exec_fold_const, which compiles and evaluates it once with the real kernels, so folding can
 * never disagree with execution.
 *
 * INTERFACE: exec_fold_const (exec.h).
 * NOTES: the expression is compiled against an empty input and evaluated on a one-row chunk
 * without columns, on the calling thread. The compiled form and the evaluation state live in a
 * private arena freed before returning; the value is copied into a new plan constant.
 */
#include <string.h>

#include "exec/exec_int.h"

int exec_fold_const(plan_ctx *pctx, const bexpr *e, int32_t session_zone,
                    int64_t query_start_micros, bexpr **out, sqe_error *err) {
    arena a;
    arena_init(&a, pctx->tracker);
    exec_query_ctx q;
    memset(&q, 0, sizeof q);
    q.tracker = pctx->tracker;
    q.session_zone = session_zone;
    q.query_start_micros = query_start_micros;
    q.arena = &a;
    q.threads = 1;
    exec_layout empty = {NULL, 0};
    exec_expr *x = NULL;
    exec_expr_state *st = NULL;
    vec_chunk one;
    memset(&one, 0, sizeof one);
    one.count = 1;
    one.capacity = 1;
    const vec *res = NULL;
    int rc = exec_expr_compile(&q, e, &empty, &x, err);
    if (rc == SQE_OK) rc = exec_expr_state_create(x, &q, &st, err);
    if (rc == SQE_OK) rc = exec_expr_eval_view(st, &one, NULL, 1, &res, err);
    if (rc == SQE_OK) {
        bexpr *c = bexpr_const_from(pctx, res, 0);
        if (!c || pctx->failed) {
            rc = err_nomem(err, "constant");
        } else {
            c->type = e->type;
            c->line = e->line;
            c->col = e->col;
            *out = c;
        }
    }
    exec_expr_state_destroy(st);
    arena_destroy(&a);
    return rc;
}
