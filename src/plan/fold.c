/*
 * fold.c: constant folding and boolean simplification of every expression in a plan.
 *
 * INTERFACE: plan_fold_constants (optimize_int.h).
 * NOTES: a constant subtree is evaluated once by the executor's own kernels (pctx->fold_const, which
 * the engine sets to exec_fold_const), so folding can never disagree with execution. A subtree whose evaluation fails (1/0) stays as it
 * is: the error is raised only if a row reaches it, as in Trino. Filters that fold to TRUE
 * disappear; filters that fold to FALSE or NULL make their subtree an empty relation.
 */
#include "plan/optimize_int.h"

#include <string.h>

static bool const_bool(const bexpr *e, bool *value) {
    if (e->kind != BEXPR_CONST || e->type.id != TYPE_BOOLEAN) return false;
    if (vec_is_null(e->u.constant, 0)) return false;
    *value = VEC_DATA(e->u.constant, uint8_t)[0] != 0;
    return true;
}

static bool const_null(const bexpr *e) { return e->kind == BEXPR_CONST && vec_is_null(e->u.constant, 0); }

/* (A AND B) OR (A AND C)  ->  A AND (B OR C): conjuncts common to every branch of an OR are
 * pulled out, so a join key hidden in a disjunction (TPC-H Q19) becomes a join key. */
static bexpr *factor_or(opt_ctx *oc, bexpr *e) {
    bexpr_list first = {0};
    if (bexpr_split_and(oc->pctx, e->args[0], &first)) return e;
    bexpr_list common = {0};
    for (uint32_t i = 0; i < first.n; i++) {
        bool everywhere = !bexpr_is_volatile(first.items[i]);
        for (uint32_t b = 1; b < e->n_args && everywhere; b++) {
            bexpr_list other = {0};
            if (bexpr_split_and(oc->pctx, e->args[b], &other)) return e;
            bool found = false;
            for (uint32_t k = 0; k < other.n && !found; k++) found = bexpr_equal(other.items[k], first.items[i]);
            everywhere = found;
        }
        if (everywhere && bexpr_list_push(oc->pctx, &common, first.items[i])) return e;
    }
    if (common.n == 0) return e;
    /* rebuild each branch without the common conjuncts */
    bexpr *or = bexpr_new(oc->pctx, BEXPR_OR, e->type, e->n_args);
    if (!or) return e;
    for (uint32_t b = 0; b < e->n_args; b++) {
        bexpr_list conj = {0}, rest = {0};
        if (bexpr_split_and(oc->pctx, e->args[b], &conj)) return e;
        for (uint32_t k = 0; k < conj.n; k++) {
            bool is_common = false;
            for (uint32_t c = 0; c < common.n && !is_common; c++) is_common = bexpr_equal(conj.items[k], common.items[c]);
            if (!is_common && bexpr_list_push(oc->pctx, &rest, conj.items[k])) return e;
        }
        if (rest.n == 0) return bexpr_make_and(oc->pctx, common.items, common.n); /* A OR (A AND B) = A */
        or->args[b] = bexpr_make_and(oc->pctx, rest.items, rest.n);
    }
    if (bexpr_list_push(oc->pctx, &common, or)) return e;
    bexpr *and = bexpr_make_and(oc->pctx, common.items, common.n);
    return and ? and : e;
}

static void fold_expr(opt_ctx *oc, bexpr **slot) {
    bexpr *e = *slot;
    if (!e || oc->stop) return;
    if ((++oc->ticks & 1023) == 0) {
        sqe_error ignored;
        if (plan_check_cancel(oc->pctx, &ignored)) oc->stop = true; /* plan_optimize reports */
    }
    if (e->kind == BEXPR_LAMBDA) return;
    for (uint32_t i = 0; i < e->n_args; i++) fold_expr(oc, &e->args[i]);
    switch (e->kind) {
    case BEXPR_AND:
    case BEXPR_OR: {
        bool is_and = e->kind == BEXPR_AND;
        uint32_t k = 0;
        for (uint32_t i = 0; i < e->n_args; i++) {
            bool v;
            if (const_bool(e->args[i], &v)) {
                if (v == !is_and) { /* FALSE in AND, TRUE in OR decides */
                    *slot = e->args[i];
                    return;
                }
                continue; /* TRUE in AND, FALSE in OR is neutral */
            }
            e->args[k++] = e->args[i];
        }
        if (k == 0) {
            *slot = bexpr_const_bool(oc->pctx, is_and);
            return;
        }
        if (k == 1) {
            *slot = e->args[0];
            return;
        }
        e->n_args = k;
        if (!is_and) *slot = factor_or(oc, e);
        return;
    }
    case BEXPR_NOT:
        if (e->args[0]->kind == BEXPR_NOT) {
            *slot = e->args[0]->args[0];
            return;
        }
        break;
    case BEXPR_CASE: {
        /* drop WHEN FALSE/NULL branches; a leading WHEN TRUE decides */
        uint32_t n_when = e->n_args / 2;
        if (e->n_args > 0) {
            bool v;
            if (const_bool(e->args[0], &v) && v) {
                *slot = e->args[1];
                return;
            }
        }
        uint32_t k = 0;
        for (uint32_t w = 0; w < n_when; w++) {
            bool v;
            if ((const_bool(e->args[2 * w], &v) && !v) || const_null(e->args[2 * w])) continue;
            e->args[2 * k] = e->args[2 * w];
            e->args[2 * k + 1] = e->args[2 * w + 1];
            k++;
        }
        if (e->u.case_has_else) e->args[2 * k] = e->args[e->n_args - 1];
        e->n_args = 2 * k + (e->u.case_has_else ? 1 : 0);
        if (k == 0) {
            *slot = e->u.case_has_else ? e->args[0] : bexpr_const_null(oc->pctx, e->type);
            return;
        }
        break;
    }
    default:
        break;
    }
    e = *slot;
    if (e->kind == BEXPR_CONST || e->kind == BEXPR_COLUMN || !bexpr_is_const(e)) return;
    if (type_is_nested(e->type)) return;
    bexpr *folded;
    sqe_error ignored;
    if (oc->pctx->fold_const &&
        oc->pctx->fold_const(oc->pctx, e, oc->opts->session_zone, oc->opts->query_start_micros,
                             &folded, &ignored) == SQE_OK) {
        folded->line = e->line;
        folded->col = e->col;
        *slot = folded;
    }
}

static void fold_cb(void *ud, bexpr **slot) { fold_expr(ud, slot); }

static plan *empty_like(opt_ctx *oc, plan *p) {
    plan *e = plan_new(oc->pctx, PLAN_EMPTY, 0, p->n_out);
    if (!e) return p;
    memcpy(e->out, p->out, p->n_out * sizeof(plan_col));
    e->est_rows = 0;
    return e;
}

void plan_fold_constants(opt_ctx *oc, plan **pp) {
    plan *p = *pp;
    for (uint32_t i = 0; i < p->n_children; i++) plan_fold_constants(oc, &p->children[i]);
    plan_for_each_expr(p, fold_cb, oc);
    if (p->kind == PLAN_FILTER) {
        bool v;
        if (const_bool(p->u.filter.cond, &v)) {
            *pp = v ? p->children[0] : empty_like(oc, p);
        } else if (const_null(p->u.filter.cond)) {
            *pp = empty_like(oc, p);
        }
    }
}
