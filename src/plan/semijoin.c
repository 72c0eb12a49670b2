/*
 * semijoin.c: semi-join reduction below aggregations.
 *
 * INTERFACE: plan_reduce_aggregates_by_joins (optimize_int.h).
 * NOTES: an inner join whose one input is an aggregation grouped by plain columns, joined on
 * those group columns, with a much smaller other input R, only needs the groups whose keys R
 * has. A copy of R (fresh column ids) filters the aggregation's input with a semi join on the
 * same keys, so the aggregation sees only matching rows: TPC-H Q17 aggregates the lineitems
 * of 200 parts instead of all 200,000 parts. Decorrelated subqueries produce exactly this
 * shape. R is evaluated twice, which is why it must be small relative to what it saves; a
 * table function is copied only when its source can clone its state (plan_source.clone), since
 * a source's morsels and pushed-down filter belong to one scan.
 */
#include "plan/optimize_int.h"

#include <string.h>

/* If side `agg_side` of join j is an aggregation joined on plain group columns, returns the
 * aggregation's input columns matching the join keys (in key order) in *in_keys. */
static plan *reducible(plan *j, uint32_t agg_side, bexpr ***in_keys) {
    plan *a = j->children[agg_side];
    if (a->kind != PLAN_AGGREGATE || a->u.agg.n_sets || a->u.agg.n_groups == 0) return NULL;
    bexpr **keys = agg_side == 0 ? j->u.join.left_keys : j->u.join.right_keys;
    for (uint32_t k = 0; k < j->u.join.n_keys; k++) {
        if (keys[k]->kind != BEXPR_COLUMN) return NULL;
        int idx = plan_find_col(a, keys[k]->u.col);
        if (idx < 0 || (uint32_t)idx >= a->u.agg.n_groups) return NULL;
        if (a->u.agg.groups[idx]->kind != BEXPR_COLUMN) return NULL;
        (*in_keys)[k] = a->u.agg.groups[idx];
    }
    return a;
}

static int reduce_join(opt_ctx *oc, plan *j) {
    if (j->kind != PLAN_JOIN || j->u.join.type != JOIN_INNER || j->u.join.n_keys == 0) return SQE_OK;
    for (uint32_t side = 0; side < 2; side++) {
        bexpr **in_keys = ARENA_ARRAY(oc->pctx->arena, bexpr *, j->u.join.n_keys);
        if (!in_keys) return err_nomem(oc->err, "optimizer");
        plan *a = reducible(j, side, &in_keys);
        if (!a) continue;
        plan *r = j->children[1 - side];
        double r_rows = plan_estimate(r), in_rows = plan_estimate(a->children[0]);
        if (r_rows * 4 > in_rows || in_rows < 50000) continue;
        plan_id_map m;
        if (plan_id_map_init(oc->pctx, &m)) return err_nomem(oc->err, "optimizer");
        plan *rc = plan_copy_fresh(oc->pctx, &m, r);
        if (oc->pctx->failed) return err_nomem(oc->err, "optimizer");
        if (!rc) continue;
        bexpr **other_keys = side == 0 ? j->u.join.right_keys : j->u.join.left_keys;
        plan *semi = plan_new(oc->pctx, PLAN_JOIN, 2, a->children[0]->n_out);
        if (!semi) return err_nomem(oc->err, "optimizer");
        semi->children[0] = a->children[0];
        semi->children[1] = rc;
        memcpy(semi->out, a->children[0]->out, a->children[0]->n_out * sizeof(plan_col));
        semi->u.join.type = JOIN_SEMI;
        semi->u.join.n_keys = j->u.join.n_keys;
        semi->u.join.left_keys = in_keys;
        semi->u.join.right_keys = ARENA_ARRAY(oc->pctx->arena, bexpr *, j->u.join.n_keys);
        semi->u.join.null_safe = ARENA_ARRAY(oc->pctx->arena, bool, j->u.join.n_keys);
        if (!semi->u.join.right_keys || !semi->u.join.null_safe) return err_nomem(oc->err, "optimizer");
        for (uint32_t k = 0; k < j->u.join.n_keys; k++) {
            semi->u.join.right_keys[k] = plan_copy_expr(oc->pctx, &m, other_keys[k]);
            if (!semi->u.join.right_keys[k]) return err_nomem(oc->err, "optimizer");
        }
        semi->est_rows = -1;
        a->children[0] = semi;
        return SQE_OK;
    }
    return SQE_OK;
}

int plan_reduce_aggregates_by_joins(opt_ctx *oc, plan *p) {
    for (uint32_t i = 0; i < p->n_children; i++) SQE_TRY(plan_reduce_aggregates_by_joins(oc, p->children[i]));
    return reduce_join(oc, p);
}
