/*
 * scan_preds.c: the conjuncts of a pushed-down filter that metadata can judge (see
 * scan_preds.h).
 *
 * INTERFACE: plan_scan_preds_collect.
 */
#include "plan/scan_preds.h"

#include <string.h>

/* Source column of a column reference, or UINT32_MAX. */
static uint32_t source_column(const bexpr *e, const plan_col_id *col_ids, const uint32_t *columns,
                              uint32_t n) {
    if (e->kind != BEXPR_COLUMN) return UINT32_MAX;
    for (uint32_t i = 0; i < n; i++)
        if (col_ids[i] == e->u.col) return columns[i];
    return UINT32_MAX;
}

static bool is_plain_const(const bexpr *e) {
    return e->kind == BEXPR_CONST && !vec_is_null(e->u.constant, 0);
}

int plan_scan_preds_collect(const bexpr *e, const plan_col_id *col_ids, const uint32_t *columns,
                            uint32_t n, plan_scan_pred_fn fn, void *ud, sqe_error *err) {
    if (e->kind == BEXPR_AND) {
        for (uint32_t i = 0; i < e->n_args; i++)
            SQE_TRY(plan_scan_preds_collect(e->args[i], col_ids, columns, n, fn, ud, err));
        return SQE_OK;
    }
    if ((e->kind == BEXPR_IS_NULL || e->kind == BEXPR_IS_NOT_NULL) && e->n_args == 1) {
        uint32_t c = source_column(e->args[0], col_ids, columns, n);
        if (c == UINT32_MAX) return SQE_OK;
        plan_scan_pred p = {c, e->kind == BEXPR_IS_NULL ? PLAN_PRED_IS_NULL : PLAN_PRED_IS_NOT_NULL,
                            NULL, 0};
        return fn(ud, &p, err);
    }
    if (e->kind == BEXPR_IN_LIST && e->n_args >= 2) {
        uint32_t c = source_column(e->args[0], col_ids, columns, n);
        if (c == UINT32_MAX) return SQE_OK;
        for (uint32_t i = 1; i < e->n_args; i++)
            if (!is_plain_const(e->args[i])) return SQE_OK;
        plan_scan_pred p = {c, PLAN_PRED_IN, (const bexpr *const *)e->args + 1, e->n_args - 1};
        return fn(ud, &p, err);
    }
    if (e->kind != BEXPR_CALL || e->n_args != 2 || !e->u.call.name) return SQE_OK;
    static const struct {
        const char *name;
        plan_pred_op op, flipped;
    } ops[] = {{"$eq", PLAN_PRED_EQ, PLAN_PRED_EQ}, {"$lt", PLAN_PRED_LT, PLAN_PRED_GT},
               {"$le", PLAN_PRED_LE, PLAN_PRED_GE}, {"$gt", PLAN_PRED_GT, PLAN_PRED_LT},
               {"$ge", PLAN_PRED_GE, PLAN_PRED_LE}};
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        if (strcmp(e->u.call.name, ops[k].name) != 0) continue;
        uint32_t c = source_column(e->args[0], col_ids, columns, n);
        if (c != UINT32_MAX && is_plain_const(e->args[1])) {
            plan_scan_pred p = {c, ops[k].op, (const bexpr *const *)&e->args[1], 1};
            return fn(ud, &p, err);
        }
        c = source_column(e->args[1], col_ids, columns, n);
        if (c != UINT32_MAX && is_plain_const(e->args[0])) {
            plan_scan_pred p = {c, ops[k].flipped, (const bexpr *const *)&e->args[0], 1};
            return fn(ud, &p, err);
        }
        return SQE_OK;
    }
    return SQE_OK;
}
