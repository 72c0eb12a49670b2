/*
 * scan_preds.h: the conjuncts of a filter pushed into a scan that metadata can judge:
 * `column <cmp> constant` (either side), `column IN (constants)` and `column IS [NOT] NULL`.
 * Sources use them to skip data (Parquet row groups and pages, Iceberg manifests and files);
 * everything else in the filter is left to the executor.
 */
#ifndef SQE_PLAN_SCAN_PREDS_H
#define SQE_PLAN_SCAN_PREDS_H

#include "plan/plan.h"

typedef enum plan_pred_op {
    PLAN_PRED_EQ,
    PLAN_PRED_LT,
    PLAN_PRED_LE,
    PLAN_PRED_GT,
    PLAN_PRED_GE,
    PLAN_PRED_IN,
    PLAN_PRED_IS_NULL,
    PLAN_PRED_IS_NOT_NULL,
} plan_pred_op;

/* One usable conjunct over source column `column`. consts are non-NULL constants (BEXPR_CONST,
 * row 0 of u.constant); none for IS [NOT] NULL, one for comparisons. */
typedef struct plan_scan_pred {
    uint32_t column;
    plan_pred_op op;
    const bexpr *const *consts;
    uint32_t n_consts;
} plan_scan_pred;

typedef int (*plan_scan_pred_fn)(void *ud, const plan_scan_pred *p, sqe_error *err);

/* Calls fn for every usable conjunct of filter (a set_filter argument: col_ids[i] is the plan
 * column of source column columns[i], n entries). Stops at the first error fn returns. */
int plan_scan_preds_collect(const bexpr *filter, const plan_col_id *col_ids,
                            const uint32_t *columns, uint32_t n, plan_scan_pred_fn fn, void *ud,
                            sqe_error *err);

#endif
