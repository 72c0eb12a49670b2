/*
 * optimize.h: the logical optimizer: constant folding and simplification, predicate pushdown
 * (through projections, joins and aggregations, turning cross joins into inner joins and outer
 * joins into inner joins where a filter rejects NULLs), equi-join key extraction, join ordering
 * from cardinality estimates (greedy operator ordering, smaller input on the build side), and
 * column pruning.
 */
#ifndef SQE_PLAN_OPTIMIZE_H
#define SQE_PLAN_OPTIMIZE_H

#include "plan/plan.h"

typedef struct optimize_options {
    int32_t session_zone;
    int64_t query_start_micros;
    bool join_reorder; /* default true */
} optimize_options;

/* Rewrites *root in place (nodes from pctx). The output columns of the root keep their ids and
 * order. Returns SQE_OK or OUT_OF_MEMORY. */
int plan_optimize(plan_ctx *pctx, plan **root, const optimize_options *opts, sqe_error *err);

/* Estimated output rows of p (also stored in p->est_rows). */
double plan_estimate(plan *p);
/* Forgets every memoized estimate: call before a pass that estimates a tree an earlier pass may
 * have changed (estimates are memoized per node, so estimating a join tree stays linear). */
void plan_estimates_invalidate(void);

#endif
