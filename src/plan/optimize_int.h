/*
 * optimize_int.h: shared state of the optimizer passes (private to src/plan/).
 */
#ifndef SQE_PLAN_OPTIMIZE_INT_H
#define SQE_PLAN_OPTIMIZE_INT_H

#include "plan/optimize.h"

typedef struct opt_ctx {
    plan_ctx *pctx;
    const optimize_options *opts;
    sqe_error *err;
    uint32_t ticks; /* expressions visited: passes check cancellation every 1024 */
    bool stop;      /* a void pass saw the cancel; it returns, plan_optimize reports it */
} opt_ctx;

void plan_fold_constants(opt_ctx *oc, plan **pp);
int plan_push_filters(opt_ctx *oc, plan **pp);
int plan_extract_join_keys(opt_ctx *oc, plan *p);
int plan_reorder_joins(opt_ctx *oc, plan **pp);
int plan_prune_columns(opt_ctx *oc, plan **pp);
/* scan_filter.c: filters directly on table-function scans whose source can use them. */
int plan_merge_scan_filters(opt_ctx *oc, plan **pp);
/* build_side.c: SEMI/ANTI hash joins with a much smaller left input become RIGHT_SEMI/ANTI. */
int plan_choose_build_sides(opt_ctx *oc, plan *p);
int plan_eliminate_common_subexpressions(opt_ctx *oc, plan *p);
int plan_reduce_aggregates_by_joins(opt_ctx *oc, plan *p);

/* Which sides of a join an expression refers to: bit 0 left, bit 1 right, bit 2 other. */
unsigned plan_expr_sides(const bexpr *e, const plan *left, const plan *right);
/* Is e NULL whenever column id is NULL (so a filter on e rejects rows where id is NULL)? */
bool plan_expr_rejects_null(const bexpr *e, const plan *side);

#endif
