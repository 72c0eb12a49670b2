/*
 * optimize.c: the optimizer's driver (see optimize.h for the passes).
 *
 * INTERFACE: plan_optimize.
 * NOTES: pass order: fold constants, push filters down (turning cross joins with conditions into
 * inner joins), order the joins, push again (conditions found their joins), extract equi-join
 * keys, hand filters to table-function scans that can skip data, prune columns, reduce aggregations by the joins above them (semijoin.c), compute common
 * subexpressions once, build SEMI/ANTI hash tables on the smaller input, estimate. The root's output columns are restored exactly (ids and
 * order) at the end, because the result's shape must not change. Cancellation is checked between
 * passes and inside the passes that can take long (pushdown per node, join ordering per step).
 */
#include "plan/optimize_int.h"

#include <string.h>

int plan_optimize(plan_ctx *pctx, plan **root, const optimize_options *opts, sqe_error *err) {
    opt_ctx oc = {pctx, opts, err, 0, false};
    plan *p = *root;
    uint32_t n_out = p->n_out;
    plan_col *want = ARENA_ARRAY(pctx->arena, plan_col, n_out + 1);
    if (!want) return err_nomem(err, "optimizer");
    memcpy(want, p->out, n_out * sizeof(plan_col));

    plan_fold_constants(&oc, &p);
    SQE_TRY(plan_check_cancel(pctx, err));
    SQE_TRY(plan_push_filters(&oc, &p));
    if (opts->join_reorder) {
        plan_estimates_invalidate();
        SQE_TRY(plan_reorder_joins(&oc, &p));
        SQE_TRY(plan_push_filters(&oc, &p));
    }
    SQE_TRY(plan_check_cancel(pctx, err));
    SQE_TRY(plan_extract_join_keys(&oc, p));
    SQE_TRY(plan_merge_scan_filters(&oc, &p));
    SQE_TRY(plan_prune_columns(&oc, &p));
    plan_estimates_invalidate();
    SQE_TRY(plan_check_cancel(pctx, err));
    SQE_TRY(plan_reduce_aggregates_by_joins(&oc, p));
    SQE_TRY(plan_eliminate_common_subexpressions(&oc, p));
    plan_estimates_invalidate();
    SQE_TRY(plan_check_cancel(pctx, err));
    if (opts->join_reorder) SQE_TRY(plan_choose_build_sides(&oc, p));
    if (pctx->failed) return err_nomem(err, "optimizer");

    bool same = p->n_out == n_out;
    for (uint32_t i = 0; same && i < n_out; i++) same = p->out[i].id == want[i].id;
    if (!same) {
        plan *proj = plan_new(pctx, PLAN_PROJECT, 1, n_out);
        if (!proj) return err_nomem(err, "optimizer");
        proj->children[0] = p;
        proj->u.project.exprs = ARENA_ARRAY(pctx->arena, bexpr *, n_out + 1);
        if (!proj->u.project.exprs) return err_nomem(err, "optimizer");
        for (uint32_t i = 0; i < n_out; i++) {
            proj->out[i] = want[i];
            proj->u.project.exprs[i] = bexpr_column(pctx, want[i].id, want[i].type);
        }
        p = proj;
    }
    plan_estimates_invalidate();
    plan_estimate(p);
    if (pctx->failed) return err_nomem(err, "optimizer");
    *root = p;
    return SQE_OK;
}
