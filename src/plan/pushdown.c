/*
 * pushdown.c: predicate pushdown and join key extraction.
 *
 * INTERFACE: plan_push_filters, plan_extract_join_keys, plan_expr_sides, plan_expr_rejects_null.
 * NOTES: conjuncts travel down the tree and settle at the lowest node that produces all the
 * columns they read: through projections (substituting deterministic projected expressions),
 * into either side of inner joins (or into the join condition when they read both), into the
 * preserved side of outer joins, below aggregations when they read only grouping columns, and
 * through sorts and DISTINCT. A conjunct that rejects NULLs of the non-preserved side of an outer
 * join turns it into an inner join first. Cross joins with a condition become inner joins.
 */
#include "plan/optimize_int.h"

#include <string.h>

typedef struct sides_state {
    const plan *left, *right;
    unsigned sides;
} sides_state;

static void sides_cb(void *ud, plan_col_id id) {
    sides_state *st = ud;
    if (plan_find_col(st->left, id) >= 0)
        st->sides |= 1;
    else if (st->right && plan_find_col(st->right, id) >= 0)
        st->sides |= 2;
    else
        st->sides |= 4;
}

unsigned plan_expr_sides(const bexpr *e, const plan *left, const plan *right) {
    sides_state st = {left, right, 0};
    bexpr_visit_cols(e, sides_cb, &st);
    return st.sides;
}

/* Conservative strictness: e yields NULL when any column of `side` it reads is NULL. True for
 * comparisons and null-propagating calls whose arguments are strict; IS NULL, IS NOT NULL, AND,
 * OR, COALESCE, CASE, IS DISTINCT FROM are not strict (FALSE AND NULL is FALSE, and
 * (FALSE AND x) IS NOT NULL is TRUE when x is NULL: found by tests/difftest). */
static bool strict_on(const bexpr *e, const plan *side, bool *reads) {
    switch (e->kind) {
    case BEXPR_COLUMN:
        if (plan_find_col(side, e->u.col) >= 0) *reads = true;
        return true;
    case BEXPR_CONST:
        return true;
    case BEXPR_CAST:
        return strict_on(e->args[0], side, reads);
    case BEXPR_CALL:
        if (!e->u.call.def || !(e->u.call.def->flags & FUNC_NULL_PROPAGATES)) return false;
        for (uint32_t i = 0; i < e->n_args; i++)
            if (!strict_on(e->args[i], side, reads)) return false;
        return true;
    case BEXPR_IN_LIST:
        return strict_on(e->args[0], side, reads);
    default:
        return false;
    }
}

/* Null rejection, as a filter: e is not TRUE when the columns of `side` are all NULL (an AND
 * when one conjunct rejects, IS NOT NULL of a strict operand, a strict predicate). */
bool plan_expr_rejects_null(const bexpr *e, const plan *side) {
    bool reads = false;
    if (e->kind == BEXPR_AND) {
        for (uint32_t i = 0; i < e->n_args; i++)
            if (plan_expr_rejects_null(e->args[i], side)) return true;
        return false;
    }
    if (e->kind == BEXPR_IS_NOT_NULL) return strict_on(e->args[0], side, &reads) && reads;
    return strict_on(e, side, &reads) && reads;
}

/* --- substitution through projections --------------------------------------------------- */

typedef struct subst_state {
    opt_ctx *oc;
    const plan *project;
    bool ok;
} subst_state;

static bexpr *substitute(subst_state *st, const bexpr *e) {
    if (!e) return NULL;
    if (e->kind == BEXPR_COLUMN) {
        int idx = plan_find_col(st->project, e->u.col);
        if (idx < 0) return (bexpr *)e; /* a lambda parameter or an outer column */
        const bexpr *src = st->project->u.project.exprs[idx];
        if (bexpr_is_volatile(src)) st->ok = false;
        return bexpr_copy(st->oc->pctx, src);
    }
    bexpr *c = bexpr_copy(st->oc->pctx, e);
    if (!c) {
        st->ok = false;
        return NULL;
    }
    for (uint32_t i = 0; i < e->n_args; i++) c->args[i] = substitute(st, e->args[i]);
    return c;
}

/* Replaces aggregate group column references by the grouping expressions. */
static bexpr *substitute_groups(opt_ctx *oc, const plan *agg, const bexpr *e, bool *ok) {
    if (e->kind == BEXPR_COLUMN) {
        int idx = plan_find_col(agg, e->u.col);
        if (idx >= 0 && (uint32_t)idx < agg->u.agg.n_groups) return bexpr_copy(oc->pctx, agg->u.agg.groups[idx]);
        if (idx >= 0) *ok = false; /* an aggregate result */
        return (bexpr *)e;
    }
    bexpr *c = bexpr_copy(oc->pctx, e);
    if (!c) {
        *ok = false;
        return NULL;
    }
    for (uint32_t i = 0; i < e->n_args; i++) c->args[i] = substitute_groups(oc, agg, e->args[i], ok);
    return c;
}

/* --- the pushdown --------------------------------------------------------------------------- */

static bool has_subquery(const bexpr *e) {
    if (!e) return false;
    if (e->kind == BEXPR_SUBQUERY) return true;
    for (uint32_t i = 0; i < e->n_args; i++)
        if (has_subquery(e->args[i])) return true;
    return false;
}

static plan *wrap_filter(opt_ctx *oc, plan *input, bexpr_list *conj) {
    /* identical conjuncts (e.g. derived twice) are evaluated once */
    if (bexpr_list_dedupe(oc->pctx, conj)) return input;
    if (conj->n == 0) return input;
    plan *f = plan_new(oc->pctx, PLAN_FILTER, 1, input->n_out);
    if (!f) return input;
    f->children[0] = input;
    memcpy(f->out, input->out, input->n_out * sizeof(plan_col));
    f->u.filter.cond = bexpr_make_and(oc->pctx, conj->items, conj->n);
    return f;
}

static int push(opt_ctx *oc, plan **pp, bexpr_list *conj);

/* Pushes `conj` into child i of p (a fresh list per child). */
static int push_child(opt_ctx *oc, plan *p, uint32_t i, bexpr_list *conj) {
    return push(oc, &p->children[i], conj);
}

/* From a disjunction reading both sides, derives the filter it implies on one side:
 * (l1 AND r1) OR (l2 AND r2) implies (l1 OR l2) on the left. NULL when some branch has no
 * conjunct reading only that side. */
static bexpr *implied_side_filter(opt_ctx *oc, const bexpr *or, const plan *left, const plan *right,
                                  unsigned side) {
    bexpr *branches[or->n_args];
    for (uint32_t b = 0; b < or->n_args; b++) {
        bexpr_list conj = {0}, mine = {0};
        if (bexpr_split_and(oc->pctx, or->args[b], &conj)) return NULL;
        for (uint32_t k = 0; k < conj.n; k++)
            if (plan_expr_sides(conj.items[k], left, right) == side && !bexpr_is_volatile(conj.items[k]) &&
                bexpr_list_push(oc->pctx, &mine, conj.items[k]))
                return NULL;
        if (mine.n == 0) return NULL;
        branches[b] = bexpr_make_and(oc->pctx, mine.items, mine.n);
    }
    bexpr *r = bexpr_new(oc->pctx, BEXPR_OR, type_make(TYPE_BOOLEAN), or->n_args);
    if (r) memcpy(r->args, branches, or->n_args * sizeof(bexpr *));
    return r;
}

static int push_join(opt_ctx *oc, plan **pp, bexpr_list *conj) {
    plan *p = *pp;
    plan *left = p->children[0], *right = p->children[1];
    uint8_t t = p->u.join.type;
    bexpr_list above = {0}, to_left = {0}, to_right = {0}, cond = {0};
    /* outer joins that a filter makes inner */
    for (uint32_t i = 0; i < conj->n && (t == JOIN_LEFT || t == JOIN_FULL || t == JOIN_RIGHT); i++) {
        bexpr *c = conj->items[i];
        if ((t == JOIN_LEFT || t == JOIN_FULL) && plan_expr_rejects_null(c, right))
            t = t == JOIN_LEFT ? JOIN_INNER : JOIN_RIGHT;
        if ((t == JOIN_RIGHT || t == JOIN_FULL) && plan_expr_rejects_null(c, left))
            t = t == JOIN_RIGHT ? JOIN_INNER : JOIN_LEFT;
    }
    p->u.join.type = t;
    /* the join's own condition */
    bexpr_list own = {0};
    SQE_TRY(bexpr_split_and(oc->pctx, p->u.join.residual, &own));
    p->u.join.residual = NULL;
    bool inner = t == JOIN_INNER || t == JOIN_CROSS;
    for (uint32_t i = 0; i < own.n; i++) {
        bexpr *c = own.items[i];
        unsigned s = plan_expr_sides(c, left, right);
        if (inner && s == 1)
            SQE_TRY(bexpr_list_push(oc->pctx, &to_left, c));
        else if ((inner || t == JOIN_LEFT || t == JOIN_SEMI || t == JOIN_ANTI || t == JOIN_MARK ||
                  t == JOIN_SINGLE) && s == 2 && !bexpr_is_volatile(c))
            SQE_TRY(bexpr_list_push(oc->pctx, &to_right, c));
        else
            SQE_TRY(bexpr_list_push(oc->pctx, &cond, c));
    }
    for (uint32_t i = 0; i < conj->n; i++) {
        bexpr *c = conj->items[i];
        unsigned s = plan_expr_sides(c, left, right);
        bool reads_mark = t == JOIN_MARK && bexpr_uses_col(c, p->u.join.mark);
        if (s == 1 && !reads_mark && t != JOIN_RIGHT && t != JOIN_FULL)
            SQE_TRY(bexpr_list_push(oc->pctx, &to_left, c));
        else if (s == 2 && inner)
            SQE_TRY(bexpr_list_push(oc->pctx, &to_right, c));
        else if (inner && s == 3)
            SQE_TRY(bexpr_list_push(oc->pctx, &cond, c));
        else
            SQE_TRY(bexpr_list_push(oc->pctx, &above, c));
    }
    /* disjunctions over both sides imply filters on each side (TPC-H Q7) */
    if (inner) {
        uint32_t n_cond = cond.n;
        for (uint32_t i = 0; i < n_cond; i++) {
            bexpr *c = cond.items[i];
            if (c->kind != BEXPR_OR) continue;
            bexpr *l = implied_side_filter(oc, c, left, right, 1);
            bexpr *r = implied_side_filter(oc, c, left, right, 2);
            if (l) SQE_TRY(bexpr_list_push(oc->pctx, &to_left, l));
            if (r) SQE_TRY(bexpr_list_push(oc->pctx, &to_right, r));
        }
    }
    if (t == JOIN_CROSS && cond.n) p->u.join.type = JOIN_INNER;
    if (t == JOIN_INNER && !cond.n && p->u.join.n_keys == 0) p->u.join.type = JOIN_CROSS;
    p->u.join.residual = bexpr_make_and(oc->pctx, cond.items, cond.n);
    SQE_TRY(push_child(oc, p, 0, &to_left));
    SQE_TRY(push_child(oc, p, 1, &to_right));
    /* children may have changed their outputs' order only through wrapping filters (same out) */
    *pp = wrap_filter(oc, p, &above);
    return SQE_OK;
}

static int push(opt_ctx *oc, plan **pp, bexpr_list *conj) {
    SQE_TRY(plan_check_cancel(oc->pctx, oc->err));
    plan *p = *pp;
    switch (p->kind) {
    case PLAN_FILTER: {
        SQE_TRY(bexpr_split_and(oc->pctx, p->u.filter.cond, conj));
        *pp = p->children[0];
        return push(oc, pp, conj);
    }
    case PLAN_PROJECT: {
        bexpr_list below = {0}, above = {0};
        for (uint32_t i = 0; i < conj->n; i++) {
            subst_state st = {oc, p, true};
            bexpr *s = substitute(&st, conj->items[i]);
            if (st.ok && s && !has_subquery(s))
                SQE_TRY(bexpr_list_push(oc->pctx, &below, s));
            else
                SQE_TRY(bexpr_list_push(oc->pctx, &above, conj->items[i]));
        }
        SQE_TRY(push_child(oc, p, 0, &below));
        *pp = wrap_filter(oc, p, &above);
        return SQE_OK;
    }
    case PLAN_JOIN:
        return push_join(oc, pp, conj);
    case PLAN_AGGREGATE: {
        bexpr_list below = {0}, above = {0};
        for (uint32_t i = 0; i < conj->n; i++) {
            bool ok = p->u.agg.n_sets == 0 && !bexpr_is_volatile(conj->items[i]);
            bexpr *s = ok ? substitute_groups(oc, p, conj->items[i], &ok) : NULL;
            if (ok && s)
                SQE_TRY(bexpr_list_push(oc->pctx, &below, s));
            else
                SQE_TRY(bexpr_list_push(oc->pctx, &above, conj->items[i]));
        }
        SQE_TRY(push_child(oc, p, 0, &below));
        *pp = wrap_filter(oc, p, &above);
        return SQE_OK;
    }
    case PLAN_SORT:
    case PLAN_DISTINCT: {
        SQE_TRY(push_child(oc, p, 0, conj));
        return SQE_OK;
    }
    default: {
        /* stop here: push nothing further, but optimize the children on their own */
        for (uint32_t i = 0; i < p->n_children; i++) {
            bexpr_list none = {0};
            SQE_TRY(push_child(oc, p, i, &none));
        }
        *pp = wrap_filter(oc, p, conj);
        return SQE_OK;
    }
    }
}

int plan_push_filters(opt_ctx *oc, plan **pp) {
    bexpr_list none = {0};
    return push(oc, pp, &none);
}

/* --- join keys ------------------------------------------------------------------------------ */

/* The MARK join's residual once its comparison's equalities became keys (plan.h): the rest of
 * the comparison, three-valued, under the correlation, which only counts when TRUE. NULL only
 * when both are absent or out of memory (pctx->failed). */
static bexpr *mark_residual(opt_ctx *oc, bexpr *correlation, bexpr *comparison) {
    if (!correlation) return comparison;
    bexpr *is_true = bexpr_new(oc->pctx, BEXPR_COALESCE, type_make(TYPE_BOOLEAN), 2);
    if (!is_true) return NULL;
    is_true->args[0] = correlation;
    is_true->args[1] = bexpr_const_bool(oc->pctx, false);
    if (!is_true->args[1]) return NULL;
    if (!comparison) return is_true;
    bexpr *both[2] = {is_true, comparison};
    return bexpr_make_and(oc->pctx, both, 2);
}

int plan_extract_join_keys(opt_ctx *oc, plan *p) {
    for (uint32_t i = 0; i < p->n_children; i++) SQE_TRY(plan_extract_join_keys(oc, p->children[i]));
    if (p->kind != PLAN_JOIN || p->u.join.type == JOIN_CROSS) return SQE_OK;
    bool mark = p->u.join.type == JOIN_MARK && p->u.join.mark_null_aware;
    if (mark && !p->u.join.mark_cond) return SQE_OK; /* done already */
    if (!p->u.join.residual && !mark) return SQE_OK;
    plan *left = p->children[0], *right = p->children[1];
    bexpr_list conj = {0}, rest = {0}, cmp = {0}, cmp_rest = {0};
    SQE_TRY(bexpr_split_and(oc->pctx, p->u.join.residual, &conj));
    if (mark) SQE_TRY(bexpr_split_and(oc->pctx, p->u.join.mark_cond, &cmp));
    uint32_t n_keys = p->u.join.n_keys;
    uint32_t cap = n_keys + conj.n + cmp.n + 1;
    bexpr **lk = ARENA_ARRAY(oc->pctx->arena, bexpr *, cap);
    bexpr **rk = ARENA_ARRAY(oc->pctx->arena, bexpr *, cap);
    bool *ns = ARENA_ARRAY(oc->pctx->arena, bool, cap);
    if (!lk || !rk || !ns) return err_nomem(oc->err, "optimizer");
    for (uint32_t i = 0; i < n_keys; i++) {
        lk[i] = p->u.join.left_keys[i];
        rk[i] = p->u.join.right_keys[i];
        ns[i] = p->u.join.null_safe ? p->u.join.null_safe[i] : false;
    }
    for (uint32_t i = 0; i < conj.n; i++) {
        bexpr *c = conj.items[i];
        bool null_safe = false;
        bexpr *eq = c;
        if (c->kind == BEXPR_NOT && c->args[0]->kind == BEXPR_CALL && c->args[0]->u.call.name &&
            strcmp(c->args[0]->u.call.name, "$is_distinct_from") == 0) {
            eq = c->args[0];
            null_safe = true;
        }
        bool is_eq = eq->kind == BEXPR_CALL && eq->n_args == 2 && eq->u.call.name &&
                     (null_safe || strcmp(eq->u.call.name, "$eq") == 0);
        if (is_eq && !bexpr_is_volatile(eq)) {
            unsigned a = plan_expr_sides(eq->args[0], left, right);
            unsigned b2 = plan_expr_sides(eq->args[1], left, right);
            if (a == 1 && b2 == 2) {
                lk[n_keys] = eq->args[0];
                rk[n_keys] = eq->args[1];
                ns[n_keys++] = null_safe;
                continue;
            }
            if (a == 2 && b2 == 1) {
                lk[n_keys] = eq->args[1];
                rk[n_keys] = eq->args[0];
                ns[n_keys++] = null_safe;
                continue;
            }
        }
        SQE_TRY(bexpr_list_push(oc->pctx, &rest, c));
    }
    /* the comparison's equalities become the last keys; a constant side (1 IN (SELECT ...))
     * is a key of the side it faces */
    uint32_t first_mark_key = n_keys;
    for (uint32_t i = 0; i < cmp.n; i++) {
        bexpr *c = cmp.items[i], *eq = c;
        bool null_safe = c->kind == BEXPR_NOT && c->args[0]->kind == BEXPR_CALL && c->args[0]->u.call.name &&
                         strcmp(c->args[0]->u.call.name, "$is_distinct_from") == 0;
        if (null_safe) eq = c->args[0];
        bool is_eq = eq->kind == BEXPR_CALL && eq->n_args == 2 && eq->u.call.name &&
                     (null_safe || strcmp(eq->u.call.name, "$eq") == 0) && !bexpr_is_volatile(eq);
        if (is_eq) {
            unsigned a = plan_expr_sides(eq->args[0], left, right);
            unsigned b2 = plan_expr_sides(eq->args[1], left, right);
            if ((a | b2) && (a | 1) == 1 && (b2 | 2) == 2) {
                lk[n_keys] = eq->args[0];
                rk[n_keys] = eq->args[1];
                ns[n_keys++] = null_safe;
                continue;
            }
            if ((a | b2) && (a | 2) == 2 && (b2 | 1) == 1) {
                lk[n_keys] = eq->args[1];
                rk[n_keys] = eq->args[0];
                ns[n_keys++] = null_safe;
                continue;
            }
        }
        SQE_TRY(bexpr_list_push(oc->pctx, &cmp_rest, c));
    }
    p->u.join.left_keys = lk;
    p->u.join.right_keys = rk;
    p->u.join.null_safe = ns;
    p->u.join.n_keys = n_keys;
    p->u.join.residual = bexpr_make_and(oc->pctx, rest.items, rest.n);
    if (mark) {
        p->u.join.n_mark_keys = n_keys - first_mark_key;
        bexpr *comparison = bexpr_make_and(oc->pctx, cmp_rest.items, cmp_rest.n);
        p->u.join.residual = mark_residual(oc, p->u.join.residual, comparison);
        if (oc->pctx->failed) return err_nomem(oc->err, "optimizer");
        p->u.join.mark_cond = NULL;
    }
    return SQE_OK;
}
