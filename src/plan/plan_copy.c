/*
 * plan_copy.c: deep copies of logical plans in which every produced column gets a fresh id, so
 * the copy can stand in the same plan as its original (semi-join reduction evaluates a small
 * input twice; decorrelation joins a copy of the outer query's input into a subquery).
 *
 * INTERFACE: plan_id_map_init, plan_copy_fresh, plan_copy_expr, plan_id_map_get (plan.h).
 * NOTES: nodes are copied bottom-up; a node's output ids are mapped as they are met, and its
 * expressions then refer to the mapped ids of what it reads. Columns the copied subtree reads
 * without producing (outer references) keep their ids. Window and UNNEST nodes, and table
 * functions whose source cannot clone its state, are not copied (NULL, pctx->failed unset):
 * callers fall back to not using a copy.
 */
#include "plan/plan.h"

#include <string.h>

int plan_id_map_init(plan_ctx *ctx, plan_id_map *m) {
    m->n = ctx->next_col;
    m->to = ARENA_ARRAY(ctx->arena, plan_col_id, m->n ? m->n : 1);
    if (!m->to) {
        ctx->failed = 1;
        return SQE_ERR_OUT_OF_MEMORY;
    }
    return SQE_OK;
}

plan_col_id plan_id_map_get(const plan_id_map *m, plan_col_id id) {
    return id < m->n && m->to[id] ? m->to[id] : id;
}

static plan_col_id map_id(plan_ctx *ctx, plan_id_map *m, plan_col_id id) {
    if (id >= m->n) return id; /* created after the copy started: not part of the copy */
    if (!m->to[id]) m->to[id] = plan_new_col(ctx);
    return m->to[id];
}

static void remap_cols(const plan_id_map *m, bexpr *x) {
    if (x->kind == BEXPR_COLUMN) x->u.col = plan_id_map_get(m, x->u.col);
    for (uint32_t i = 0; i < x->n_args; i++) remap_cols(m, x->args[i]);
}

bexpr *plan_copy_expr(plan_ctx *ctx, const plan_id_map *m, const bexpr *e) {
    if (!e) return NULL;
    bexpr *c = bexpr_copy(ctx, e);
    if (c) remap_cols(m, c);
    return c;
}

static bool copy_exprs(plan_ctx *ctx, plan_id_map *m, bexpr ***arr, uint32_t n) {
    if (!n || !*arr) return true;
    bexpr **c = ARENA_ARRAY(ctx->arena, bexpr *, n);
    if (!c) return false;
    for (uint32_t i = 0; i < n; i++)
        if (!(c[i] = plan_copy_expr(ctx, m, (*arr)[i]))) return false;
    *arr = c;
    return true;
}

static bool copy_opt_expr(plan_ctx *ctx, plan_id_map *m, bexpr **slot) {
    return !*slot || (*slot = plan_copy_expr(ctx, m, *slot)) != NULL;
}

static bool copy_keys(plan_ctx *ctx, plan_id_map *m, plan_sort_key **keys, uint32_t n) {
    if (!n) return true;
    plan_sort_key *c = ARENA_ARRAY(ctx->arena, plan_sort_key, n);
    if (!c) return false;
    for (uint32_t i = 0; i < n; i++) {
        c[i] = (*keys)[i];
        if (!(c[i].expr = plan_copy_expr(ctx, m, (*keys)[i].expr))) return false;
    }
    *keys = c;
    return true;
}

static bool copy_columns(plan_ctx *ctx, uint32_t **cols, uint32_t n) {
    uint32_t *c = ARENA_ARRAY(ctx->arena, uint32_t, n ? n : 1);
    if (!c) return false;
    memcpy(c, *cols, n * sizeof(uint32_t));
    *cols = c;
    return true;
}

plan *plan_copy_fresh(plan_ctx *ctx, plan_id_map *m, const plan *p) {
    if (p->kind == PLAN_WINDOW || p->kind == PLAN_UNNEST) return NULL;
    if (p->kind == PLAN_TABLE_FUNC && (!p->u.tfunc.source || !p->u.tfunc.source->clone)) return NULL;
    plan *c = ARENA_NEW(ctx->arena, plan);
    if (!c) return NULL;
    *c = *p;
    if (p->n_children) {
        c->children = ARENA_ARRAY(ctx->arena, plan *, p->n_children);
        if (!c->children) return NULL;
        for (uint32_t i = 0; i < p->n_children; i++)
            if (!(c->children[i] = plan_copy_fresh(ctx, m, p->children[i]))) return NULL;
    }
    c->out = ARENA_ARRAY(ctx->arena, plan_col, p->n_out ? p->n_out : 1);
    if (!c->out) return NULL;
    for (uint32_t i = 0; i < p->n_out; i++) {
        c->out[i] = p->out[i];
        c->out[i].id = map_id(ctx, m, p->out[i].id);
    }
    switch (p->kind) {
    case PLAN_SCAN:
        if (!copy_columns(ctx, &c->u.scan.columns, p->n_out)) return NULL;
        if (!copy_opt_expr(ctx, m, &c->u.scan.filter)) return NULL;
        break;
    case PLAN_VALUES:
        if (!copy_exprs(ctx, m, &c->u.values.cells, p->u.values.n_rows * p->n_out)) return NULL;
        break;
    case PLAN_TABLE_FUNC: {
        plan_source *src = ARENA_NEW(ctx->arena, plan_source);
        if (!src) return NULL;
        *src = *p->u.tfunc.source;
        sqe_error ignored;
        if (src->clone(p->u.tfunc.source->state, &src->state, &ignored) != SQE_OK) return NULL;
        if (plan_ctx_add_source(ctx, src, &ignored) != SQE_OK) return NULL;
        c->u.tfunc.source = src;
        if (!copy_columns(ctx, &c->u.tfunc.columns, p->n_out)) return NULL;
        if (!copy_opt_expr(ctx, m, &c->u.tfunc.filter)) return NULL;
        break;
    }
    case PLAN_FILTER:
        if (!copy_opt_expr(ctx, m, &c->u.filter.cond)) return NULL;
        break;
    case PLAN_PROJECT:
        if (!copy_exprs(ctx, m, &c->u.project.exprs, p->n_out)) return NULL;
        break;
    case PLAN_AGGREGATE: {
        if (!copy_exprs(ctx, m, &c->u.agg.groups, p->u.agg.n_groups)) return NULL;
        plan_agg *aggs = ARENA_ARRAY(ctx->arena, plan_agg, p->u.agg.n_aggs ? p->u.agg.n_aggs : 1);
        if (!aggs) return NULL;
        for (uint32_t a = 0; a < p->u.agg.n_aggs; a++) {
            aggs[a] = p->u.agg.aggs[a];
            aggs[a].out = map_id(ctx, m, p->u.agg.aggs[a].out);
            if (!copy_exprs(ctx, m, &aggs[a].args, aggs[a].n_args)) return NULL;
            if (!copy_opt_expr(ctx, m, &aggs[a].filter)) return NULL;
            if (!copy_keys(ctx, m, &aggs[a].order, aggs[a].n_order)) return NULL;
        }
        c->u.agg.aggs = aggs;
        if (p->u.agg.n_sets) c->u.agg.grouping_id = map_id(ctx, m, p->u.agg.grouping_id);
        break;
    }
    case PLAN_JOIN:
        if (!copy_exprs(ctx, m, &c->u.join.left_keys, p->u.join.n_keys)) return NULL;
        if (!copy_exprs(ctx, m, &c->u.join.right_keys, p->u.join.n_keys)) return NULL;
        if (!copy_opt_expr(ctx, m, &c->u.join.residual)) return NULL;
        if (!copy_opt_expr(ctx, m, &c->u.join.mark_cond)) return NULL;
        if (p->u.join.type == JOIN_MARK) c->u.join.mark = map_id(ctx, m, p->u.join.mark);
        break;
    case PLAN_SORT:
    case PLAN_TOPN:
        if (!copy_keys(ctx, m, &c->u.sort.keys, p->u.sort.n_keys)) return NULL;
        break;
    default: /* LIMIT, DISTINCT, EMPTY, ENFORCE_SINGLE, SETOP: no expressions */
        break;
    }
    return c;
}
