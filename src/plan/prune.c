/*
 * prune.c: column pruning: every node produces only the columns something above it reads, so
 * scans read (and hash joins copy) only what the query needs.
 *
 * INTERFACE: plan_prune_columns.
 * NOTES: top-down with the set of required column ids. Set operations and VALUES keep their
 * columns (they are positional); every other node narrows its `out` and its expressions to
 * what is required and asks its children for what those expressions read. A scan keeps at
 * least one column so that it still counts rows.
 */
#include "plan/optimize_int.h"

#include <string.h>

typedef struct idset {
    uint64_t *bits;
    uint32_t n_words;
} idset;

static int idset_make(opt_ctx *oc, idset *s) {
    s->n_words = (oc->pctx->next_col + 64) / 64;
    s->bits = ARENA_ARRAY(oc->pctx->arena, uint64_t, s->n_words);
    return s->bits ? SQE_OK : err_nomem(oc->err, "optimizer");
}
static void idset_add(idset *s, plan_col_id id) {
    if (id / 64 < s->n_words) s->bits[id / 64] |= (uint64_t)1 << (id % 64);
}
static bool idset_has(const idset *s, plan_col_id id) {
    return id / 64 < s->n_words && ((s->bits[id / 64] >> (id % 64)) & 1);
}
static void add_cb(void *ud, plan_col_id id) { idset_add(ud, id); }
static void add_expr_cb(void *ud, bexpr **slot) { bexpr_visit_cols(*slot, add_cb, ud); }

static int copy_set(opt_ctx *oc, const idset *from, idset *to) {
    SQE_TRY(idset_make(oc, to));
    memcpy(to->bits, from->bits, from->n_words * sizeof(uint64_t));
    return SQE_OK;
}

static void keep_out_of_child(plan *p) {
    plan *c = p->children[0];
    p->out = c->out;
    p->n_out = c->n_out;
}

static int prune(opt_ctx *oc, plan *p, const idset *req);

static int prune_child_all(opt_ctx *oc, plan *child) {
    idset all;
    SQE_TRY(idset_make(oc, &all));
    for (uint32_t i = 0; i < child->n_out; i++) idset_add(&all, child->out[i].id);
    return prune(oc, child, &all);
}

static int prune(opt_ctx *oc, plan *p, const idset *req) {
    idset need;
    switch (p->kind) {
    case PLAN_SCAN:
    case PLAN_TABLE_FUNC: {
        uint32_t *cols = p->kind == PLAN_SCAN ? p->u.scan.columns : p->u.tfunc.columns;
        bexpr *filter = p->kind == PLAN_SCAN ? p->u.scan.filter : p->u.tfunc.filter;
        SQE_TRY(copy_set(oc, req, &need));
        if (filter) bexpr_visit_cols(filter, add_cb, &need);
        uint32_t k = 0;
        for (uint32_t i = 0; i < p->n_out; i++)
            if (idset_has(&need, p->out[i].id)) {
                p->out[k] = p->out[i];
                cols[k] = cols[i];
                k++;
            }
        if (k == 0 && p->n_out > 0) k = 1; /* keep one column to count rows */
        p->n_out = k;
        return SQE_OK;
    }
    case PLAN_PROJECT: {
        SQE_TRY(idset_make(oc, &need));
        uint32_t k = 0;
        for (uint32_t i = 0; i < p->n_out; i++)
            if (idset_has(req, p->out[i].id)) {
                p->out[k] = p->out[i];
                p->u.project.exprs[k] = p->u.project.exprs[i];
                bexpr_visit_cols(p->u.project.exprs[k], add_cb, &need);
                k++;
            }
        p->n_out = k;
        return prune(oc, p->children[0], &need);
    }
    case PLAN_FILTER:
    case PLAN_SORT:
    case PLAN_TOPN:
    case PLAN_LIMIT:
    case PLAN_ENFORCE_SINGLE: {
        SQE_TRY(copy_set(oc, req, &need));
        plan_for_each_expr(p, add_expr_cb, &need);
        if (p->kind == PLAN_ENFORCE_SINGLE) return prune_child_all(oc, p->children[0]);
        SQE_TRY(prune(oc, p->children[0], &need));
        keep_out_of_child(p);
        return SQE_OK;
    }
    case PLAN_AGGREGATE: {
        SQE_TRY(idset_make(oc, &need));
        uint32_t k = 0;
        for (uint32_t a = 0; a < p->u.agg.n_aggs; a++)
            if (idset_has(req, p->u.agg.aggs[a].out)) p->u.agg.aggs[k++] = p->u.agg.aggs[a];
        p->u.agg.n_aggs = k;
        /* out: groups, kept aggregates, [grouping id] */
        uint32_t n = 0;
        plan_col *out = ARENA_ARRAY(oc->pctx->arena, plan_col, p->n_out + 1);
        if (!out) return err_nomem(oc->err, "optimizer");
        for (uint32_t i = 0; i < p->u.agg.n_groups; i++) out[n++] = p->out[i];
        for (uint32_t a = 0; a < k; a++) {
            int idx = plan_find_col(p, p->u.agg.aggs[a].out);
            out[n++] = p->out[idx];
        }
        if (p->u.agg.n_sets) out[n++] = p->out[p->n_out - 1];
        p->out = out;
        p->n_out = n;
        plan_for_each_expr(p, add_expr_cb, &need);
        return prune(oc, p->children[0], &need);
    }
    case PLAN_JOIN: {
        SQE_TRY(copy_set(oc, req, &need));
        plan_for_each_expr(p, add_expr_cb, &need);
        plan *l = p->children[0], *r = p->children[1];
        SQE_TRY(prune(oc, l, &need));
        SQE_TRY(prune(oc, r, &need));
        uint8_t t = p->u.join.type;
        bool keep_right = t != JOIN_SEMI && t != JOIN_ANTI && t != JOIN_MARK;
        uint32_t n = l->n_out + (keep_right ? r->n_out : 0) + (t == JOIN_MARK ? 1 : 0);
        plan_col *out = ARENA_ARRAY(oc->pctx->arena, plan_col, n + 1);
        if (!out) return err_nomem(oc->err, "optimizer");
        memcpy(out, l->out, l->n_out * sizeof(plan_col));
        uint32_t k = l->n_out;
        if (keep_right) {
            memcpy(out + k, r->out, r->n_out * sizeof(plan_col));
            k += r->n_out;
        }
        if (t == JOIN_MARK) out[k++] = p->out[p->n_out - 1];
        p->out = out;
        p->n_out = k;
        return SQE_OK;
    }
    case PLAN_WINDOW: {
        SQE_TRY(copy_set(oc, req, &need));
        uint32_t n_child = p->n_out - p->u.window.n_funcs;
        uint32_t k = 0;
        for (uint32_t f = 0; f < p->u.window.n_funcs; f++)
            if (idset_has(req, p->u.window.funcs[f].out)) p->u.window.funcs[k++] = p->u.window.funcs[f];
        p->u.window.n_funcs = k;
        plan_for_each_expr(p, add_expr_cb, &need);
        (void)n_child;
        SQE_TRY(prune(oc, p->children[0], &need));
        plan *c = p->children[0];
        plan_col *out = ARENA_ARRAY(oc->pctx->arena, plan_col, c->n_out + k + 1);
        if (!out) return err_nomem(oc->err, "optimizer");
        memcpy(out, c->out, c->n_out * sizeof(plan_col));
        for (uint32_t f = 0; f < k; f++) {
            out[c->n_out + f].id = p->u.window.funcs[f].out;
            out[c->n_out + f].type = p->u.window.funcs[f].type;
            out[c->n_out + f].name = p->u.window.funcs[f].name;
        }
        p->out = out;
        p->n_out = c->n_out + k;
        return SQE_OK;
    }
    case PLAN_UNNEST: {
        SQE_TRY(copy_set(oc, req, &need));
        plan_for_each_expr(p, add_expr_cb, &need);
        uint32_t old_child = p->u.unnest.n_child_out;
        SQE_TRY(prune(oc, p->children[0], &need));
        plan *c = p->children[0];
        uint32_t n_new = p->n_out - old_child;
        plan_col *out = ARENA_ARRAY(oc->pctx->arena, plan_col, c->n_out + n_new + 1);
        if (!out) return err_nomem(oc->err, "optimizer");
        memcpy(out, c->out, c->n_out * sizeof(plan_col));
        memcpy(out + c->n_out, p->out + old_child, n_new * sizeof(plan_col));
        p->out = out;
        p->n_out = c->n_out + n_new;
        p->u.unnest.n_child_out = c->n_out;
        return SQE_OK;
    }
    case PLAN_DISTINCT:
    case PLAN_SETOP:
        for (uint32_t i = 0; i < p->n_children; i++) SQE_TRY(prune_child_all(oc, p->children[i]));
        if (p->kind == PLAN_DISTINCT) keep_out_of_child(p);
        return SQE_OK;
    default:
        for (uint32_t i = 0; i < p->n_children; i++) SQE_TRY(prune_child_all(oc, p->children[i]));
        return SQE_OK;
    }
}

/* A projection that passes its input's columns through unchanged, in order, is dropped. */
static void drop_identity_projects(plan **pp) {
    plan *p = *pp;
    for (uint32_t i = 0; i < p->n_children; i++) drop_identity_projects(&p->children[i]);
    if (p->kind != PLAN_PROJECT) return;
    plan *c = p->children[0];
    if (c->n_out != p->n_out) return;
    for (uint32_t i = 0; i < p->n_out; i++) {
        const bexpr *e = p->u.project.exprs[i];
        if (e->kind != BEXPR_COLUMN || e->u.col != c->out[i].id || p->out[i].id != c->out[i].id) return;
    }
    *pp = c;
}

int plan_prune_columns(opt_ctx *oc, plan **pp) {
    plan *p = *pp;
    idset req;
    SQE_TRY(idset_make(oc, &req));
    for (uint32_t i = 0; i < p->n_out; i++) idset_add(&req, p->out[i].id);
    /* the root keeps its columns exactly: prune below it only */
    if (p->kind == PLAN_PROJECT) {
        idset need;
        SQE_TRY(idset_make(oc, &need));
        plan_for_each_expr(p, add_expr_cb, &need);
        SQE_TRY(prune(oc, p->children[0], &need));
        drop_identity_projects(&p->children[0]);
        return SQE_OK;
    }
    uint32_t n_before = p->n_out;
    plan_col before[n_before + 1];
    memcpy(before, p->out, n_before * sizeof(plan_col));
    SQE_TRY(prune(oc, p, &req));
    (void)before;
    for (uint32_t i = 0; i < p->n_children; i++) drop_identity_projects(&p->children[i]);
    return SQE_OK;
}
