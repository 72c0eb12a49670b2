/*
 * cardinality.c: row count estimates for join ordering and build-side choice.
 *
 * INTERFACE: plan_estimate, plan_col_ndv (optimize_int.h).
 * NOTES: memory tables keep distinct-value sketches per column (catalog/col_stats.h); other
 * sources have no column statistics yet, and the estimates then use table sizes and textbook
 * selectivities: equality 10%, range 33%, LIKE 25%, IN n x 10%, other
 * predicates 50%, independent conjuncts multiplied. Equi-joins follow |L|*|R| / max(ndv(l),
 * ndv(r)) with ndv(column) approximated by the row count of the table the column comes from
 * (capped by the current row count), which gives foreign-key joins the size of the filtered
 * primary-key side's share of the foreign-key side.
 */
#include "plan/optimize_int.h"

#include <math.h>
#include <stdatomic.h>
#include <string.h>

/* LIKE by the shape of a constant pattern: without wildcards it is an equality; a prefix or a
 * suffix ('abc%', '%abc') keeps about as much as an equality on a few values; a substring
 * ('%green%') less; anything else (several wildcards in the middle) a quarter. */
static double like_selectivity(const bexpr *e) {
    if (e->n_args < 2 || e->args[1]->kind != BEXPR_CONST || !type_is_string(e->args[1]->type) ||
        vec_is_null(e->args[1]->u.constant, 0))
        return 0.25;
    const sqe_str *pat = &VEC_DATA(e->args[1]->u.constant, sqe_str)[0];
    const char *p = sqe_str_data(pat);
    uint32_t len = pat->len, wild = 0, inner = 0;
    for (uint32_t i = 0; i < len; i++) {
        if (p[i] != '%' && p[i] != '_') continue;
        wild++;
        if (i > 0 && i + 1 < len) inner++;
    }
    if (wild == 0) return 0.1;
    bool lead = len && p[0] == '%', trail = len > 1 && p[len - 1] == '%';
    if (inner == 0 && lead != trail) return 0.1;
    if (inner == 0 && lead && trail) return 0.05;
    return 0.25;
}

static double selectivity(const bexpr *e) {
    if (!e) return 1.0;
    switch (e->kind) {
    case BEXPR_AND: {
        double s = 1.0;
        for (uint32_t i = 0; i < e->n_args; i++) s *= selectivity(e->args[i]);
        return s;
    }
    case BEXPR_OR: {
        double miss = 1.0;
        for (uint32_t i = 0; i < e->n_args; i++) miss *= 1.0 - selectivity(e->args[i]);
        return 1.0 - miss;
    }
    case BEXPR_NOT:
        return 1.0 - selectivity(e->args[0]);
    case BEXPR_IN_LIST: {
        double s = 0.1 * (e->n_args - 1);
        return s > 0.9 ? 0.9 : s;
    }
    case BEXPR_IS_NULL:
        return 0.05;
    case BEXPR_IS_NOT_NULL:
        return 0.95;
    case BEXPR_CALL: {
        const char *n = e->u.call.name ? e->u.call.name : "";
        if (strcmp(n, "$eq") == 0) return 0.1;
        if (strcmp(n, "$ne") == 0) return 0.9;
        if (!strcmp(n, "$lt") || !strcmp(n, "$le") || !strcmp(n, "$gt") || !strcmp(n, "$ge")) return 0.33;
        if (strcmp(n, "like") == 0) return like_selectivity(e);
        return 0.5;
    }
    default:
        return 0.5;
    }
}

/* Distinct values of column id within p (see NOTES). */
double plan_col_ndv(plan *p, plan_col_id id);

double plan_col_ndv(plan *p, plan_col_id id) {
    double rows = plan_estimate(p);
    switch (p->kind) {
    case PLAN_SCAN: {
        int idx = plan_find_col(p, id);
        double ndv = idx >= 0 ? cat_table_column_ndv(p->u.scan.table, p->u.scan.columns[idx]) : 0;
        if (ndv <= 0) ndv = rows;
        return ndv < rows ? (ndv > 1 ? ndv : 1) : (rows > 1 ? rows : 1);
    }
    case PLAN_TABLE_FUNC: {
        int idx = plan_find_col(p, id);
        const plan_source *src = p->u.tfunc.source;
        double ndv = idx >= 0 && src->column_ndv ? src->column_ndv(src->state, p->u.tfunc.columns[idx]) : 0;
        if (ndv <= 0) ndv = rows;
        return ndv < rows ? (ndv > 1 ? ndv : 1) : (rows > 1 ? rows : 1);
    }
    case PLAN_VALUES:
        return rows > 1 ? rows : 1;
    case PLAN_AGGREGATE: {
        int idx = plan_find_col(p, id);
        if (idx >= 0 && (uint32_t)idx < p->u.agg.n_groups) return rows;
        return rows;
    }
    case PLAN_PROJECT: {
        int idx = plan_find_col(p, id);
        if (idx >= 0 && p->u.project.exprs[idx]->kind == BEXPR_COLUMN) {
            double d = plan_col_ndv(p->children[0], p->u.project.exprs[idx]->u.col);
            return d < rows ? d : rows;
        }
        return rows;
    }
    default:
        for (uint32_t i = 0; i < p->n_children; i++)
            if (plan_find_col(p->children[i], id) >= 0) {
                double d = plan_col_ndv(p->children[i], id);
                return d < rows ? (d > 1 ? d : 1) : (rows > 1 ? rows : 1);
            }
        return rows > 1 ? rows : 1;
    }
}

static double key_ndv(plan *side, const bexpr *key) {
    if (key->kind == BEXPR_COLUMN) return plan_col_ndv(side, key->u.col);
    return plan_estimate(side);
}

/* Estimate of an equi-join condition between two inputs: conjuncts of cond of the form
 * left_expr = right_expr use the ndv formula, others a default selectivity. */
double plan_join_estimate(plan *left, plan *right, const bexpr *cond);

double plan_join_estimate(plan *left, plan *right, const bexpr *cond) {
    double l = plan_estimate(left), r = plan_estimate(right);
    double est = l * r;
    if (!cond) return est;
    const bexpr *const *items = &cond;
    uint32_t n = 1;
    if (cond->kind == BEXPR_AND) {
        items = (const bexpr *const *)cond->args;
        n = cond->n_args;
    }
    bool any_key = false;
    for (uint32_t i = 0; i < n; i++) {
        const bexpr *c = items[i];
        if (c->kind == BEXPR_CALL && c->u.call.name && strcmp(c->u.call.name, "$eq") == 0 && c->n_args == 2) {
            unsigned a = plan_expr_sides(c->args[0], left, right);
            unsigned b = plan_expr_sides(c->args[1], left, right);
            const bexpr *lk = NULL, *rk = NULL;
            if (a == 1 && b == 2) {
                lk = c->args[0];
                rk = c->args[1];
            } else if (a == 2 && b == 1) {
                lk = c->args[1];
                rk = c->args[0];
            }
            if (lk) {
                double nl = key_ndv(left, lk), nr = key_ndv(right, rk);
                double m = nl > nr ? nl : nr;
                /* only the most selective key counts fully; further keys are correlated */
                est /= any_key ? sqrt(m > 1 ? m : 1) : (m > 1 ? m : 1);
                any_key = true;
                continue;
            }
        }
        est *= selectivity(c);
    }
    return est < 1 ? 1 : est;
}

/* The estimate epoch: a node's est_rows is reused while its est_epoch equals it. Without the
 * memo, estimating a join re-estimates both inputs once for the join and again for each key's
 * distinct count, which is exponential in the depth of a join tree (18 joined tables took 17 s
 * to plan). Bumping the epoch (any thread, any query) only forgets memos, so it is safe to
 * share. */
static _Atomic uint32_t est_epoch_now = 1;

void plan_estimates_invalidate(void) { atomic_fetch_add_explicit(&est_epoch_now, 1, memory_order_relaxed); }

double plan_estimate(plan *p) {
    uint32_t epoch = atomic_load_explicit(&est_epoch_now, memory_order_relaxed);
    if (p->kind != PLAN_SCAN && p->est_epoch == epoch && p->est_rows >= 0) return p->est_rows;
    double est;
    switch (p->kind) {
    case PLAN_SCAN:
        est = p->est_rows >= 0 ? p->est_rows : (double)p->u.scan.table->data.n_rows;
        est *= selectivity(p->u.scan.filter);
        break;
    case PLAN_TABLE_FUNC:
        est = p->u.tfunc.source->est_rows >= 0 ? p->u.tfunc.source->est_rows : 1000;
        if (p->u.tfunc.filter) est *= selectivity(p->u.tfunc.filter);
        break;
    case PLAN_VALUES:
        est = p->u.values.n_rows;
        break;
    case PLAN_EMPTY:
        est = 0;
        break;
    case PLAN_FILTER:
        est = plan_estimate(p->children[0]) * selectivity(p->u.filter.cond);
        break;
    case PLAN_AGGREGATE: {
        double in = plan_estimate(p->children[0]);
        if (p->u.agg.n_groups == 0) {
            est = 1;
            break;
        }
        double g = 1;
        for (uint32_t i = 0; i < p->u.agg.n_groups; i++)
            g *= p->u.agg.groups[i]->kind == BEXPR_COLUMN ? plan_col_ndv(p->children[0], p->u.agg.groups[i]->u.col) : in * 0.1;
        est = g < in ? g : in;
        if (p->u.agg.n_sets) est *= p->u.agg.n_sets;
        break;
    }
    case PLAN_JOIN: {
        plan *l = p->children[0], *r = p->children[1];
        double le = plan_estimate(l), re = plan_estimate(r);
        switch (p->u.join.type) {
        case JOIN_SEMI: est = le * 0.5; break;
        case JOIN_ANTI: est = le * 0.5; break;
        case JOIN_RIGHT_SEMI:
        case JOIN_RIGHT_ANTI: est = re * 0.5; break;
        case JOIN_MARK:
        case JOIN_SINGLE: est = le; break;
        case JOIN_CROSS: est = le * re; break;
        default: {
            bexpr_list conds = {0};
            (void)conds;
            /* rebuild the condition from keys and residual for the estimate */
            double e2 = le * re;
            for (uint32_t i = 0; i < p->u.join.n_keys; i++) {
                double nl = key_ndv(l, p->u.join.left_keys[i]), nr = key_ndv(r, p->u.join.right_keys[i]);
                double m = nl > nr ? nl : nr;
                e2 /= i == 0 ? (m > 1 ? m : 1) : sqrt(m > 1 ? m : 1);
            }
            if (p->u.join.n_keys == 0 && p->u.join.residual)
                e2 = plan_join_estimate(l, r, p->u.join.residual);
            else if (p->u.join.residual)
                e2 *= selectivity(p->u.join.residual);
            if (p->u.join.type == JOIN_LEFT && e2 < le) e2 = le;
            if (p->u.join.type == JOIN_RIGHT && e2 < re) e2 = re;
            if (p->u.join.type == JOIN_FULL && e2 < le + re) e2 = le + re;
            est = e2;
        }
        }
        break;
    }
    case PLAN_LIMIT: {
        double in = plan_estimate(p->children[0]);
        est = p->u.limit.limit >= 0 && (double)p->u.limit.limit < in ? (double)p->u.limit.limit : in;
        break;
    }
    case PLAN_TOPN: {
        double in = plan_estimate(p->children[0]);
        est = (double)p->u.sort.limit < in ? (double)p->u.sort.limit : in;
        break;
    }
    case PLAN_DISTINCT:
        est = plan_estimate(p->children[0]) * 0.5;
        break;
    case PLAN_SETOP: {
        est = 0;
        for (uint32_t i = 0; i < p->n_children; i++) est += plan_estimate(p->children[i]);
        break;
    }
    case PLAN_UNNEST:
        est = plan_estimate(p->children[0]) * 5;
        break;
    case PLAN_ENFORCE_SINGLE:
        est = 1;
        break;
    default:
        est = p->n_children ? plan_estimate(p->children[0]) : 1;
        break;
    }
    if (est < 0) est = 0;
    if (p->kind != PLAN_SCAN) {
        p->est_rows = est;
        p->est_epoch = epoch;
    }
    return est;
}
