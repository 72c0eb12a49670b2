/*
 * build_side.c: the optimizer's last rewrite: a hash SEMI or ANTI join whose left (probe)
 * input is much smaller than its right (build) input is turned around into RIGHT_SEMI /
 * RIGHT_ANTI, so the hash table is built on the small side and the large side streams through
 * it, marking the build rows it matches (TPC-H q04, q21: 57 thousand orders against millions of
 * lineitems).
 *
 * INTERFACE: plan_choose_build_sides (optimize_int.h).
 * NOTES: runs after every other pass (the new join types are known only to the estimator,
 * EXPLAIN and the hash join operator). Only joins with equi-keys are turned (the nested-loop
 * join has no right variants); the output columns (the left input's) do not change, they just
 * come from the build side now. FLIP_RATIO keeps estimate noise from flipping near-equal sides.
 */
#include "plan/optimize_int.h"

#define FLIP_RATIO 4.0

int plan_choose_build_sides(opt_ctx *oc, plan *p) {
    for (uint32_t i = 0; i < p->n_children; i++) SQE_TRY(plan_choose_build_sides(oc, p->children[i]));
    if (p->kind != PLAN_JOIN || p->u.join.n_keys == 0) return SQE_OK;
    uint8_t t = p->u.join.type;
    if (t != JOIN_SEMI && t != JOIN_ANTI) return SQE_OK;
    double le = plan_estimate(p->children[0]), re = plan_estimate(p->children[1]);
    if (!(le * FLIP_RATIO < re)) return SQE_OK;
    plan *l = p->children[0];
    p->children[0] = p->children[1];
    p->children[1] = l;
    bexpr **k = p->u.join.left_keys;
    p->u.join.left_keys = p->u.join.right_keys;
    p->u.join.right_keys = k;
    p->u.join.type = t == JOIN_SEMI ? JOIN_RIGHT_SEMI : JOIN_RIGHT_ANTI;
    p->est_rows = -1;
    return SQE_OK;
}
