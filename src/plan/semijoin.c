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

typedef struct id_map {
    plan_col_id *to;  /* old id -> new id (0 = not mapped) */
    uint32_t n;
} id_map;

static plan_col_id map_id(opt_ctx *oc, id_map *m, plan_col_id id) {
    if (id >= m->n) return id; /* created after the copy started: not part of the copy */
    if (!m->to[id]) m->to[id] = plan_new_col(oc->pctx);
    return m->to[id];
}

static bexpr *copy_expr(opt_ctx *oc, id_map *m, const bexpr *e) {
    if (!e) return NULL;
    bexpr *c = bexpr_copy(oc->pctx, e);
    if (!c) return NULL;
    struct stack_item {
        bexpr *x;
    };
    /* remap column references (recursively) */
    bexpr *todo[512];
    uint32_t n = 0;
    todo[n++] = c;
    while (n) {
        bexpr *x = todo[--n];
        if (x->kind == BEXPR_COLUMN && x->u.col < m->n && m->to[x->u.col]) x->u.col = m->to[x->u.col];
        for (uint32_t i = 0; i < x->n_args; i++) {
            if (n == 512) return NULL; /* too deep for this optimization */
            todo[n++] = x->args[i];
        }
    }
    return c;
}

static bool copy_exprs(opt_ctx *oc, id_map *m, bexpr ***arr, uint32_t n) {
    if (!n || !*arr) return true;
    bexpr **c = ARENA_ARRAY(oc->pctx->arena, bexpr *, n);
    if (!c) return false;
    for (uint32_t i = 0; i < n; i++)
        if (!(c[i] = copy_expr(oc, m, (*arr)[i]))) return false;
    *arr = c;
    return true;
}

static bool copy_keys(opt_ctx *oc, id_map *m, plan_sort_key **keys, uint32_t n) {
    if (!n) return true;
    plan_sort_key *c = ARENA_ARRAY(oc->pctx->arena, plan_sort_key, n);
    if (!c) return false;
    for (uint32_t i = 0; i < n; i++) {
        c[i] = (*keys)[i];
        if (!(c[i].expr = copy_expr(oc, m, (*keys)[i].expr))) return false;
    }
    *keys = c;
    return true;
}

/* Deep copy of p where every produced column gets a fresh id. NULL when p cannot be copied. */
static plan *copy_plan(opt_ctx *oc, id_map *m, const plan *p) {
    if (p->kind == PLAN_WINDOW || p->kind == PLAN_UNNEST) return NULL;
    if (p->kind == PLAN_TABLE_FUNC && (!p->u.tfunc.source || !p->u.tfunc.source->clone)) return NULL;
    plan *c = ARENA_NEW(oc->pctx->arena, plan);
    if (!c) return NULL;
    *c = *p;
    if (p->n_children) {
        c->children = ARENA_ARRAY(oc->pctx->arena, plan *, p->n_children);
        if (!c->children) return NULL;
        for (uint32_t i = 0; i < p->n_children; i++)
            if (!(c->children[i] = copy_plan(oc, m, p->children[i]))) return NULL;
    }
    c->out = ARENA_ARRAY(oc->pctx->arena, plan_col, p->n_out ? p->n_out : 1);
    if (!c->out) return NULL;
    for (uint32_t i = 0; i < p->n_out; i++) {
        c->out[i] = p->out[i];
        c->out[i].id = map_id(oc, m, p->out[i].id);
    }
    switch (p->kind) {
    case PLAN_SCAN:
        c->u.scan.columns = ARENA_ARRAY(oc->pctx->arena, uint32_t, p->n_out ? p->n_out : 1);
        if (!c->u.scan.columns) return NULL;
        memcpy(c->u.scan.columns, p->u.scan.columns, p->n_out * sizeof(uint32_t));
        if (p->u.scan.filter && !(c->u.scan.filter = copy_expr(oc, m, p->u.scan.filter))) return NULL;
        break;
    case PLAN_VALUES:
        if (!copy_exprs(oc, m, &c->u.values.cells, p->u.values.n_rows * p->n_out)) return NULL;
        break;
    case PLAN_TABLE_FUNC: {
        plan_source *src = ARENA_NEW(oc->pctx->arena, plan_source);
        if (!src) return NULL;
        *src = *p->u.tfunc.source;
        sqe_error ignored;
        if (src->clone(p->u.tfunc.source->state, &src->state, &ignored) != SQE_OK) return NULL;
        if (plan_ctx_add_source(oc->pctx, src, &ignored) != SQE_OK) return NULL;
        c->u.tfunc.source = src;
        c->u.tfunc.columns = ARENA_ARRAY(oc->pctx->arena, uint32_t, p->n_out ? p->n_out : 1);
        if (!c->u.tfunc.columns) return NULL;
        memcpy(c->u.tfunc.columns, p->u.tfunc.columns, p->n_out * sizeof(uint32_t));
        if (p->u.tfunc.filter && !(c->u.tfunc.filter = copy_expr(oc, m, p->u.tfunc.filter)))
            return NULL;
        break;
    }
    case PLAN_FILTER:
        if (!(c->u.filter.cond = copy_expr(oc, m, p->u.filter.cond))) return NULL;
        break;
    case PLAN_PROJECT:
        if (!copy_exprs(oc, m, &c->u.project.exprs, p->n_out)) return NULL;
        break;
    case PLAN_AGGREGATE: {
        if (!copy_exprs(oc, m, &c->u.agg.groups, p->u.agg.n_groups)) return NULL;
        plan_agg *aggs = ARENA_ARRAY(oc->pctx->arena, plan_agg, p->u.agg.n_aggs ? p->u.agg.n_aggs : 1);
        if (!aggs) return NULL;
        for (uint32_t a = 0; a < p->u.agg.n_aggs; a++) {
            aggs[a] = p->u.agg.aggs[a];
            aggs[a].out = map_id(oc, m, p->u.agg.aggs[a].out);
            if (!copy_exprs(oc, m, &aggs[a].args, aggs[a].n_args)) return NULL;
            if (aggs[a].filter && !(aggs[a].filter = copy_expr(oc, m, aggs[a].filter))) return NULL;
            if (!copy_keys(oc, m, &aggs[a].order, aggs[a].n_order)) return NULL;
        }
        c->u.agg.aggs = aggs;
        if (p->u.agg.n_sets) c->u.agg.grouping_id = map_id(oc, m, p->u.agg.grouping_id);
        break;
    }
    case PLAN_JOIN:
        if (!copy_exprs(oc, m, &c->u.join.left_keys, p->u.join.n_keys)) return NULL;
        if (!copy_exprs(oc, m, &c->u.join.right_keys, p->u.join.n_keys)) return NULL;
        if (p->u.join.residual && !(c->u.join.residual = copy_expr(oc, m, p->u.join.residual))) return NULL;
        if (p->u.join.type == JOIN_MARK) c->u.join.mark = map_id(oc, m, p->u.join.mark);
        break;
    case PLAN_SORT:
    case PLAN_TOPN:
        if (!copy_keys(oc, m, &c->u.sort.keys, p->u.sort.n_keys)) return NULL;
        break;
    default:
        break;
    }
    return c;
}

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
        id_map m;
        m.n = oc->pctx->next_col;
        m.to = ARENA_ARRAY(oc->pctx->arena, plan_col_id, m.n);
        if (!m.to) return err_nomem(oc->err, "optimizer");
        plan *rc = copy_plan(oc, &m, r);
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
            semi->u.join.right_keys[k] = copy_expr(oc, &m, other_keys[k]);
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
