/*
 * join_order.c: join ordering by greedy operator ordering (GOO).
 *
 * INTERFACE: plan_reorder_joins.
 * NOTES: a region is a maximal tree of inner and cross joins; its leaves are the other nodes
 * (scans, aggregations, outer joins, ...). Its conditions are pooled; then, repeatedly, the two
 * inputs connected by a condition whose join has the smallest estimated result are joined, the
 * smaller one as the build (right) side, until one input remains (unconnected inputs are
 * cross-joined smallest first). Each condition is placed at the first join where both its
 * sides are available. Regions of more than 64 inputs keep their written order.
 */
#include "plan/optimize_int.h"

#include <string.h>

double plan_join_estimate(plan *left, plan *right, const bexpr *cond);

#define MAX_LEAVES 64

typedef struct region {
    plan *leaves[MAX_LEAVES];
    uint32_t n_leaves;
    bexpr_list conds;
    bool too_big;
} region;

static int collect_region(opt_ctx *oc, plan *p, region *r) {
    bool inner = p->kind == PLAN_JOIN && (p->u.join.type == JOIN_INNER || p->u.join.type == JOIN_CROSS) &&
                 p->u.join.n_keys == 0;
    if (!inner) {
        if (r->n_leaves == MAX_LEAVES) {
            r->too_big = true;
            return SQE_OK;
        }
        r->leaves[r->n_leaves++] = p;
        return SQE_OK;
    }
    SQE_TRY(bexpr_split_and(oc->pctx, p->u.join.residual, &r->conds));
    SQE_TRY(collect_region(oc, p->children[0], r));
    return collect_region(oc, p->children[1], r);
}

typedef struct item {
    plan *p;
    uint64_t mask; /* leaves it contains */
} item;

typedef struct mask_state {
    const region *r;
    uint64_t mask;
    bool foreign;
} mask_state;

static void mask_cb(void *ud, plan_col_id id) {
    mask_state *st = ud;
    for (uint32_t i = 0; i < st->r->n_leaves; i++)
        if (plan_find_col(st->r->leaves[i], id) >= 0) {
            st->mask |= (uint64_t)1 << i;
            return;
        }
    st->foreign = true;
}

static uint64_t expr_mask(const region *r, const bexpr *e) {
    mask_state st = {r, 0, false};
    bexpr_visit_cols(e, mask_cb, &st);
    if (st.foreign) return ~(uint64_t)0; /* e.g. lambda parameters: keep at the top */
    return st.mask;
}

static plan *make_join(opt_ctx *oc, plan *left, plan *right, bexpr *cond) {
    plan *j = plan_new(oc->pctx, PLAN_JOIN, 2, left->n_out + right->n_out);
    if (!j) return NULL;
    j->children[0] = left;
    j->children[1] = right;
    memcpy(j->out, left->out, left->n_out * sizeof(plan_col));
    memcpy(j->out + left->n_out, right->out, right->n_out * sizeof(plan_col));
    j->u.join.type = cond ? JOIN_INNER : JOIN_CROSS;
    j->u.join.residual = cond;
    return j;
}

/* Conditions applicable to a join of masks a and b (not yet used). */
static bexpr *conds_for(opt_ctx *oc, const region *r, const uint64_t *masks, bool *used, uint64_t a,
                        uint64_t b, bool take) {
    bexpr *items[r->conds.n + 1];
    uint32_t n = 0;
    for (uint32_t i = 0; i < r->conds.n; i++) {
        if (used[i]) continue;
        uint64_t m = masks[i];
        if ((m & ~(a | b)) == 0 && (m & a) && (m & b)) {
            items[n++] = r->conds.items[i];
            if (take) used[i] = true;
        }
    }
    return bexpr_make_and(oc->pctx, items, n);
}

static int reorder_region(opt_ctx *oc, plan **pp) {
    region r;
    memset(&r, 0, sizeof r);
    SQE_TRY(collect_region(oc, *pp, &r));
    if (r.too_big || r.n_leaves < 2) return SQE_OK;
    for (uint32_t i = 0; i < r.n_leaves; i++) SQE_TRY(plan_reorder_joins(oc, &r.leaves[i]));
    uint64_t masks[r.conds.n + 1];
    bool used[r.conds.n + 1];
    for (uint32_t i = 0; i < r.conds.n; i++) {
        masks[i] = expr_mask(&r, r.conds.items[i]);
        used[i] = false;
    }
    item items[MAX_LEAVES];
    uint32_t n = r.n_leaves;
    for (uint32_t i = 0; i < n; i++) {
        items[i].p = r.leaves[i];
        items[i].mask = (uint64_t)1 << i;
        /* single-leaf conditions (rare after pushdown) become filters on the leaf */
        for (uint32_t c = 0; c < r.conds.n; c++) {
            if (used[c] || masks[c] != items[i].mask) continue;
            plan *f = plan_new(oc->pctx, PLAN_FILTER, 1, items[i].p->n_out);
            if (!f) return err_nomem(oc->err, "optimizer");
            f->children[0] = items[i].p;
            memcpy(f->out, items[i].p->out, items[i].p->n_out * sizeof(plan_col));
            f->u.filter.cond = r.conds.items[c];
            items[i].p = f;
            used[c] = true;
        }
    }
    while (n > 1) {
        SQE_TRY(plan_check_cancel(oc->pctx, oc->err));
        int best_a = -1, best_b = -1;
        double best = 0;
        for (uint32_t a = 0; a < n; a++)
            for (uint32_t b = a + 1; b < n; b++) {
                bexpr *cond = conds_for(oc, &r, masks, used, items[a].mask, items[b].mask, false);
                if (!cond) continue;
                double est = plan_join_estimate(items[a].p, items[b].p, cond);
                if (best_a < 0 || est < best) {
                    best = est;
                    best_a = (int)a;
                    best_b = (int)b;
                }
            }
        if (best_a < 0) {
            /* no connected pair: cross join the two smallest */
            for (uint32_t a = 0; a < n; a++)
                if (best_a < 0 || plan_estimate(items[a].p) < plan_estimate(items[best_a].p)) best_a = (int)a;
            for (uint32_t b = 0; b < n; b++)
                if ((int)b != best_a &&
                    (best_b < 0 || plan_estimate(items[b].p) < plan_estimate(items[best_b].p)))
                    best_b = (int)b;
        }
        item *ia = &items[best_a], *ib = &items[best_b];
        bexpr *cond = conds_for(oc, &r, masks, used, ia->mask, ib->mask, true);
        plan *big = ia->p, *small = ib->p;
        if (plan_estimate(big) < plan_estimate(small)) {
            plan *t = big;
            big = small;
            small = t;
        }
        plan *j = make_join(oc, big, small, cond);
        if (!j) return err_nomem(oc->err, "optimizer");
        ia->p = j;
        ia->mask |= ib->mask;
        items[best_b] = items[n - 1];
        n--;
    }
    /* conditions that never found a place (referencing outside the region) go on top */
    bexpr *left_over[r.conds.n + 1];
    uint32_t n_left = 0;
    for (uint32_t i = 0; i < r.conds.n; i++)
        if (!used[i]) left_over[n_left++] = r.conds.items[i];
    plan *top = items[0].p;
    if (n_left) {
        plan *f = plan_new(oc->pctx, PLAN_FILTER, 1, top->n_out);
        if (!f) return err_nomem(oc->err, "optimizer");
        f->children[0] = top;
        memcpy(f->out, top->out, top->n_out * sizeof(plan_col));
        f->u.filter.cond = bexpr_make_and(oc->pctx, left_over, n_left);
        top = f;
    }
    *pp = top;
    return SQE_OK;
}

int plan_reorder_joins(opt_ctx *oc, plan **pp) {
    plan *p = *pp;
    if (p->kind == PLAN_JOIN && (p->u.join.type == JOIN_INNER || p->u.join.type == JOIN_CROSS) &&
        p->u.join.n_keys == 0)
        return reorder_region(oc, pp);
    for (uint32_t i = 0; i < p->n_children; i++) SQE_TRY(plan_reorder_joins(oc, &p->children[i]));
    return SQE_OK;
}
