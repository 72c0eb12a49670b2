/*
 * cse.c: common subexpressions of a projection or an aggregation are computed once.
 *
 * INTERFACE: plan_eliminate_common_subexpressions (optimize_int.h).
 * NOTES: for each PROJECT and AGGREGATE node, every deterministic, non-trivial subtree that
 * occurs at least twice among the node's expressions (TPC-H Q1: l_extendedprice * (1 -
 * l_discount) inside two sums) is computed once by a new projection below the node, and the
 * occurrences read its column. Largest repeated subtrees are chosen first; a subtree inside a
 * chosen one is not chosen separately. Lambdas and CASE/COALESCE/AND/OR branches (which are
 * evaluated conditionally) are not looked into, so nothing is evaluated that would not have been.
 */
#include "plan/optimize_int.h"

#include <string.h>

#define CSE_MAX 256

typedef struct cse_set {
    bexpr *items[CSE_MAX];
    uint32_t count[CSE_MAX];
    uint32_t n;
} cse_set;

static bool candidate(const bexpr *e) {
    if (e->kind != BEXPR_CALL && e->kind != BEXPR_CAST) return false;
    if (e->kind == BEXPR_CALL && e->u.call.def && (e->u.call.def->flags & (FUNC_VOLATILE | FUNC_LAMBDA)))
        return false;
    return !bexpr_is_volatile(e);
}

static void collect(cse_set *s, bexpr *e) {
    if (!e) return;
    switch (e->kind) {
    case BEXPR_CASE:
    case BEXPR_COALESCE:
    case BEXPR_AND:
    case BEXPR_OR:
    case BEXPR_TRY:
    case BEXPR_LAMBDA:
    case BEXPR_SUBQUERY:
        return; /* conditional or scoped evaluation */
    default:
        break;
    }
    if (candidate(e)) {
        for (uint32_t i = 0; i < s->n; i++)
            if (bexpr_equal(s->items[i], e)) {
                s->count[i]++;
                goto children;
            }
        if (s->n < CSE_MAX) {
            s->items[s->n] = e;
            s->count[s->n++] = 1;
        }
    }
children:
    for (uint32_t i = 0; i < e->n_args; i++) collect(s, e->args[i]);
}

static void collect_cb(void *ud, bexpr **slot) { collect(ud, *slot); }

static uint32_t size_of(const bexpr *e) {
    uint32_t n = 1;
    for (uint32_t i = 0; i < e->n_args; i++) n += size_of(e->args[i]);
    return n;
}

static bool contains(const bexpr *outer, const bexpr *inner) {
    if (bexpr_equal(outer, inner)) return true;
    for (uint32_t i = 0; i < outer->n_args; i++)
        if (contains(outer->args[i], inner)) return true;
    return false;
}

typedef struct replace_state {
    bexpr **chosen;
    bexpr **refs;
    uint32_t n;
} replace_state;

static void replace(replace_state *st, bexpr **slot) {
    bexpr *e = *slot;
    if (!e) return;
    if (e->kind == BEXPR_CASE || e->kind == BEXPR_COALESCE || e->kind == BEXPR_AND ||
        e->kind == BEXPR_OR || e->kind == BEXPR_TRY || e->kind == BEXPR_LAMBDA || e->kind == BEXPR_SUBQUERY)
        return;
    for (uint32_t i = 0; i < st->n; i++)
        if (bexpr_equal(st->chosen[i], e)) {
            *slot = st->refs[i];
            return;
        }
    for (uint32_t i = 0; i < e->n_args; i++) replace(st, &e->args[i]);
}

static void replace_cb(void *ud, bexpr **slot) { replace(ud, slot); }

static int cse_node(opt_ctx *oc, plan *p) {
    if (p->kind != PLAN_PROJECT && p->kind != PLAN_AGGREGATE) return SQE_OK;
    if (p->kind == PLAN_AGGREGATE && p->u.agg.n_sets) return SQE_OK;
    cse_set s;
    s.n = 0;
    plan_for_each_expr(p, collect_cb, &s);
    /* choose repeated subtrees, largest first, skipping ones inside a chosen subtree */
    bexpr *chosen[CSE_MAX];
    uint32_t n_chosen = 0;
    for (;;) {
        int best = -1;
        uint32_t best_size = 0;
        for (uint32_t i = 0; i < s.n; i++) {
            if (s.count[i] < 2) continue;
            bool inside = false;
            for (uint32_t c = 0; c < n_chosen && !inside; c++) inside = contains(chosen[c], s.items[i]);
            if (inside) continue;
            uint32_t sz = size_of(s.items[i]);
            if (sz > best_size) {
                best = (int)i;
                best_size = sz;
            }
        }
        if (best < 0) break;
        chosen[n_chosen++] = s.items[best];
        s.count[best] = 0;
    }
    if (n_chosen == 0) return SQE_OK;
    /* projection below: the child's columns plus the chosen subexpressions */
    plan *child = p->children[0];
    plan *proj = plan_new(oc->pctx, PLAN_PROJECT, 1, child->n_out + n_chosen);
    if (!proj) return err_nomem(oc->err, "optimizer");
    proj->children[0] = child;
    proj->u.project.exprs = ARENA_ARRAY(oc->pctx->arena, bexpr *, child->n_out + n_chosen);
    bexpr **refs = ARENA_ARRAY(oc->pctx->arena, bexpr *, n_chosen);
    if (!proj->u.project.exprs || !refs) return err_nomem(oc->err, "optimizer");
    memcpy(proj->out, child->out, child->n_out * sizeof(plan_col));
    for (uint32_t i = 0; i < child->n_out; i++)
        proj->u.project.exprs[i] = bexpr_column(oc->pctx, child->out[i].id, child->out[i].type);
    for (uint32_t c = 0; c < n_chosen; c++) {
        uint32_t k = child->n_out + c;
        proj->u.project.exprs[k] = chosen[c];
        proj->out[k].id = plan_new_col(oc->pctx);
        proj->out[k].type = chosen[c]->type;
        proj->out[k].name = NULL;
        refs[c] = bexpr_column(oc->pctx, proj->out[k].id, chosen[c]->type);
        if (!refs[c]) return err_nomem(oc->err, "optimizer");
    }
    replace_state st = {chosen, refs, n_chosen};
    plan_for_each_expr(p, replace_cb, &st);
    p->children[0] = proj;
    return oc->pctx->failed ? err_nomem(oc->err, "optimizer") : SQE_OK;
}

int plan_eliminate_common_subexpressions(opt_ctx *oc, plan *p) {
    for (uint32_t i = 0; i < p->n_children; i++) SQE_TRY(plan_eliminate_common_subexpressions(oc, p->children[i]));
    return cse_node(oc, p);
}
