/*
 * bind_subquery.c: subqueries in expressions become joins (decorrelation), so no query runs a
 * subquery once per row.
 *
 * INTERFACE: bind_plan_subqueries, bind_expr_refs_within.
 * NOTES: a correlated subquery refers to columns of the enclosing query. Its correlated
 * conjuncts are pulled up out of the subquery's filters (through projections, inner joins and
 * aggregations; an aggregation gains the inner side of each pulled equality as a grouping key)
 * and become the join condition:
 *   EXISTS / NOT EXISTS in WHERE      -> SEMI / ANTI join
 *   x IN (subquery) in WHERE          -> SEMI join on x = value
 *   EXISTS, IN, ANY, ALL elsewhere    -> MARK join; the expression reads the mark column
 *                                        (IN and NOT IN are NULL-aware)
 *   scalar subquery, uncorrelated     -> cross join with the single row it returns
 *   scalar aggregate, correlated      -> LEFT join with the subquery grouped by the correlation
 *                                        keys; its projection is evaluated above the join, with
 *                                        count-like aggregates COALESCEd to 0 (the count bug)
 *   other scalar, correlated          -> SINGLE join (error if a row matches twice)
 * Shapes that cannot be decorrelated this way fail with NOT_SUPPORTED naming the reason.
 */
#include "bind/bind_int.h"

#include <stdlib.h>
#include <string.h>

/* A set of column ids as a bitmap (ids are dense per query); it grows when decorrelation adds
 * columns (an id it cannot hold marks the plan context failed). */
typedef struct idset {
    uint64_t *bits;
    uint32_t n_words;
    plan_ctx *pctx;
} idset;

static int idset_init(binder *b, idset *s) {
    s->pctx = b->pctx;
    s->n_words = (b->pctx->next_col + 64) / 64;
    s->bits = ARENA_ARRAY(b->pctx->arena, uint64_t, s->n_words);
    return s->bits ? SQE_OK : bind_nomem(b);
}
static void idset_add(idset *s, plan_col_id id) {
    if (id / 64 >= s->n_words) {
        uint32_t n = (s->pctx->next_col + 64) / 64;
        if (n <= id / 64) n = id / 64 + 1;
        uint64_t *bits = ARENA_ARRAY(s->pctx->arena, uint64_t, n);
        if (!bits) {
            s->pctx->failed = 1;
            return;
        }
        memcpy(bits, s->bits, s->n_words * sizeof(uint64_t));
        s->bits = bits;
        s->n_words = n;
    }
    s->bits[id / 64] |= (uint64_t)1 << (id % 64);
}
static bool idset_has(const idset *s, plan_col_id id) {
    return id / 64 < s->n_words && ((s->bits[id / 64] >> (id % 64)) & 1);
}

static void add_cb(void *ud, plan_col_id id) { idset_add(ud, id); }

static void lambda_params(const bexpr *e, idset *s) {
    if (!e) return;
    if (e->kind == BEXPR_LAMBDA)
        for (uint32_t i = 0; i < e->u.lambda.n_params; i++) idset_add(s, e->u.lambda.params[i]);
    for (uint32_t i = 0; i < e->n_args; i++) lambda_params(e->args[i], s);
}

typedef struct collect_state {
    idset *produced;
    idset *referenced;
} collect_state;

static void collect_expr_cb(void *ud, bexpr **slot) {
    collect_state *st = ud;
    bexpr_visit_cols(*slot, add_cb, st->referenced);
    lambda_params(*slot, st->produced);
}

/* Columns produced anywhere in p and columns referenced by p's expressions. */
static void collect(plan *p, idset *produced, idset *referenced) {
    for (uint32_t i = 0; i < p->n_out; i++) idset_add(produced, p->out[i].id);
    if (p->kind == PLAN_AGGREGATE && p->u.agg.n_sets) idset_add(produced, p->u.agg.grouping_id);
    collect_state st = {produced, referenced};
    plan_for_each_expr(p, collect_expr_cb, &st);
    for (uint32_t i = 0; i < p->n_children; i++) collect(p->children[i], produced, referenced);
}

/* Does p reference columns it does not produce (outer columns)? */
static int is_correlated(binder *b, plan *p, bool *out) {
    idset prod, ref;
    SQE_TRY(idset_init(b, &prod));
    SQE_TRY(idset_init(b, &ref));
    collect(p, &prod, &ref);
    *out = false;
    for (uint32_t w = 0; w < ref.n_words; w++)
        if (ref.bits[w] & ~prod.bits[w]) *out = true;
    return SQE_OK;
}

/* Outer references of the subqueries inside e (columns their plans read but do not produce)
 * and e's own column references, added to refs. */
static int expr_refs(binder *b, const bexpr *e, idset *refs) {
    if (!e) return SQE_OK;
    if (e->kind == BEXPR_COLUMN) idset_add(refs, e->u.col);
    if (e->kind == BEXPR_SUBQUERY && e->u.subquery.query) {
        idset prod, ref;
        SQE_TRY(idset_init(b, &prod));
        SQE_TRY(idset_init(b, &ref));
        collect(e->u.subquery.query, &prod, &ref);
        for (uint32_t w = 0; w < ref.n_words; w++) {
            uint64_t outer = ref.bits[w] & ~(w < prod.n_words ? prod.bits[w] : 0);
            for (uint32_t i = 0; i < 64; i++)
                if ((outer >> i) & 1) idset_add(refs, (plan_col_id)(w * 64 + i));
        }
    }
    for (uint32_t i = 0; i < e->n_args; i++) SQE_TRY(expr_refs(b, e->args[i], refs));
    return SQE_OK;
}

int bind_expr_refs_within(binder *b, const bexpr *e, const plan *side, bool *out) {
    idset refs;
    SQE_TRY(idset_init(b, &refs));
    SQE_TRY(expr_refs(b, e, &refs));
    if (b->pctx->failed) return bind_nomem(b);
    *out = true;
    for (uint32_t w = 0; w < refs.n_words; w++)
        for (uint32_t i = 0; i < 64; i++)
            if (((refs.bits[w] >> i) & 1) && plan_find_col(side, (plan_col_id)(w * 64 + i)) < 0)
                *out = false;
    return SQE_OK;
}

typedef struct refs_state {
    const idset *inner;
    bool any_inner, any_outer;
} refs_state;

static void refs_cb(void *ud, plan_col_id id) {
    refs_state *st = ud;
    if (idset_has(st->inner, id))
        st->any_inner = true;
    else
        st->any_outer = true;
}

/* Classifies e's column references against the inner (subquery) columns. */
static void classify(const bexpr *e, const idset *inner, bool *has_inner, bool *has_outer) {
    refs_state st = {inner, false, false};
    bexpr_visit_cols(e, refs_cb, &st);
    *has_inner = st.any_inner;
    *has_outer = st.any_outer;
}

typedef struct pull_ctx {
    binder *b;
    const plan *outer;    /* the input the subquery is correlated to (its domain's source) */
    const plan *scalar_core; /* a scalar aggregation whose consumer joins it LEFT and COALESCEs
                                its counts, so an outer row without inner rows may lose its
                                group (plan_scalar, bind_lateral_join) */
    idset inner;          /* every column produced inside the subquery */
    bexpr_list pulled;    /* correlated conjuncts pulled so far */
    int line, col;
} pull_ctx;

static int unsupported(pull_ctx *pc, const char *why) {
    return bind_error(pc->b, SQE_ERR_NOT_SUPPORTED, pc->line, pc->col,
                      "Given correlated subquery is not supported: %s", why);
}

static int subtree_correlated(pull_ctx *pc, plan *p, bool *out) { return is_correlated(pc->b, p, out); }

/* Adds pass-through columns to projection p for every inner column that pulled conjuncts
 * (from index `from`) reference and p does not output. */
static int expose_through_project(pull_ctx *pc, plan *p, uint32_t from) {
    binder *b = pc->b;
    plan *child = p->children[0];
    for (uint32_t k = from; k < pc->pulled.n; k++) {
        idset refs;
        SQE_TRY(idset_init(b, &refs));
        bexpr_visit_cols(pc->pulled.items[k], add_cb, &refs);
        for (uint32_t c = 0; c < child->n_out; c++) {
            plan_col_id id = child->out[c].id;
            if (!idset_has(&refs, id) || plan_find_col(p, id) >= 0) continue;
            plan_col *out = ARENA_ARRAY(b->pctx->arena, plan_col, p->n_out + 1);
            bexpr **exprs = ARENA_ARRAY(b->pctx->arena, bexpr *, p->n_out + 1);
            BIND_CHECK(b, out && exprs);
            memcpy(out, p->out, p->n_out * sizeof(plan_col));
            memcpy(exprs, p->u.project.exprs, p->n_out * sizeof(bexpr *));
            out[p->n_out] = child->out[c];
            exprs[p->n_out] = bexpr_column(b->pctx, id, child->out[c].type);
            BIND_CHECK(b, exprs[p->n_out]);
            p->out = out;
            p->u.project.exprs = exprs;
            p->n_out++;
        }
    }
    return SQE_OK;
}

static int pull_up(pull_ctx *pc, plan **pp);
static plan *make_join(binder *b, plan *left, plan *right, uint8_t type, bexpr *residual);

/* Pulls correlated conjuncts out of a filter condition (or join residual). */
static int pull_conjuncts(pull_ctx *pc, bexpr **cond) {
    if (!*cond) return SQE_OK;
    bexpr_list conj = {0}, keep = {0};
    SQE_TRY(bexpr_split_and(pc->b->pctx, *cond, &conj));
    for (uint32_t i = 0; i < conj.n; i++) {
        bool in, out;
        classify(conj.items[i], &pc->inner, &in, &out);
        if (out && !bexpr_has_subquery(conj.items[i]))
            SQE_TRY(bexpr_list_push(pc->b->pctx, &pc->pulled, conj.items[i]));
        else
            SQE_TRY(bexpr_list_push(pc->b->pctx, &keep, conj.items[i]));
    }
    *cond = bexpr_make_and(pc->b->pctx, keep.items, keep.n);
    return SQE_OK;
}

/* Which side of c is inner_expr in `inner_expr = outer_expr`, or -1 when c is another shape. */
static int equality_inner_side(const pull_ctx *pc, const bexpr *c) {
    if (c->kind != BEXPR_CALL || !c->u.call.name || strcmp(c->u.call.name, "$eq") != 0 || c->n_args != 2)
        return -1;
    bool in0, out0, in1, out1;
    classify(c->args[0], &pc->inner, &in0, &out0);
    classify(c->args[1], &pc->inner, &in1, &out1);
    if (in0 && !out0 && out1 && !in1) return 0;
    if (in1 && !out1 && out0 && !in0) return 1;
    return -1;
}

/* Adds group key `key` (an expression over the aggregation's input) to aggregation p unless an
 * equal one is there; *gid is the group's output column. */
static int add_group_key(pull_ctx *pc, plan *p, bexpr *key, plan_col_id *gid) {
    binder *b = pc->b;
    for (uint32_t i = 0; i < p->u.agg.n_groups; i++)
        if (bexpr_equal(p->u.agg.groups[i], key)) {
            *gid = p->out[i].id;
            return SQE_OK;
        }
    uint32_t ng = p->u.agg.n_groups + 1;
    bexpr **groups = ARENA_ARRAY(b->pctx->arena, bexpr *, ng);
    plan_col *out = ARENA_ARRAY(b->pctx->arena, plan_col, p->n_out + 1);
    BIND_CHECK(b, groups && out);
    if (p->u.agg.n_groups) memcpy(groups, p->u.agg.groups, p->u.agg.n_groups * sizeof(bexpr *));
    groups[ng - 1] = key;
    /* out: groups first, then aggregates */
    memcpy(out, p->out, p->u.agg.n_groups * sizeof(plan_col));
    *gid = plan_new_col(b->pctx);
    out[ng - 1].id = *gid;
    out[ng - 1].type = key->type;
    out[ng - 1].name = NULL;
    memcpy(out + ng, p->out + p->u.agg.n_groups, (p->n_out - p->u.agg.n_groups) * sizeof(plan_col));
    p->u.agg.groups = groups;
    p->u.agg.n_groups = ng;
    p->out = out;
    p->n_out++;
    idset_add(&pc->inner, *gid);
    return SQE_OK;
}

typedef struct outer_cols_state {
    const idset *inner;
    plan_col_id *ids;
    uint32_t n, cap;
    plan_ctx *pctx;
} outer_cols_state;

static void outer_col_cb(void *ud, plan_col_id id) {
    outer_cols_state *st = ud;
    if (idset_has(st->inner, id)) return;
    for (uint32_t i = 0; i < st->n; i++)
        if (st->ids[i] == id) return;
    if (st->n == st->cap) {
        uint32_t cap = st->cap ? st->cap * 2 : 8;
        plan_col_id *ids = ARENA_ARRAY(st->pctx->arena, plan_col_id, cap);
        if (!ids) {
            st->pctx->failed = 1;
            return;
        }
        if (st->n) memcpy(ids, st->ids, st->n * sizeof *ids);
        st->ids = ids;
        st->cap = cap;
    }
    st->ids[st->n++] = id;
}

/* Correlation conditions of any shape below aggregation p (Neumann and Kemper, "Unnesting
 * Arbitrary Queries", 2015): the domain D = the distinct values of the outer columns they
 * read, from a copy of the outer input, joins the aggregation's input on those conditions, and
 * its columns become group keys; the pulled conditions become `outer IS NOT DISTINCT FROM
 * group`, equalities the join above can use as keys. keep_empty: the aggregation is scalar
 * and must still give one row per outer value when no input row matches (what a HAVING or
 * EXISTS above it sees), so D is joined LEFT and every aggregate skips the NULL-extended row
 * (FILTER on a marker column that is TRUE on real rows). */
static int pull_through_aggregate_by_domain(pull_ctx *pc, plan *p, uint32_t from, bool keep_empty) {
    binder *b = pc->b;
    plan_ctx *pctx = b->pctx;
    if (!pc->outer) return unsupported(pc, "a non-equality correlated predicate below an aggregation");
    outer_cols_state oc = {&pc->inner, NULL, 0, 0, pctx};
    for (uint32_t k = from; k < pc->pulled.n; k++) bexpr_visit_cols(pc->pulled.items[k], outer_col_cb, &oc);
    if (pctx->failed) return bind_nomem(b);
    for (uint32_t i = 0; i < oc.n; i++)
        if (plan_find_col(pc->outer, oc.ids[i]) < 0)
            return unsupported(pc, "a non-equality predicate below an aggregation correlated to an "
                                   "enclosing query");
    plan_id_map m;
    if (plan_id_map_init(pctx, &m)) return bind_nomem(b);
    plan *copy = plan_copy_fresh(pctx, &m, pc->outer);
    if (pctx->failed) return bind_nomem(b);
    if (!copy)
        return unsupported(pc, "a non-equality correlated predicate below an aggregation over a "
                               "window function or UNNEST");
    /* D: the distinct outer values */
    plan *proj = plan_new(pctx, PLAN_PROJECT, 1, oc.n);
    BIND_CHECK(b, proj);
    proj->children[0] = copy;
    proj->u.project.exprs = ARENA_ARRAY(pctx->arena, bexpr *, oc.n);
    BIND_CHECK(b, proj->u.project.exprs);
    for (uint32_t i = 0; i < oc.n; i++) {
        const plan_col *c = &pc->outer->out[plan_find_col(pc->outer, oc.ids[i])];
        plan_col_id d = plan_id_map_get(&m, c->id);
        proj->out[i] = *c;
        proj->out[i].id = d;
        proj->u.project.exprs[i] = bexpr_column(pctx, d, c->type);
        BIND_CHECK(b, proj->u.project.exprs[i]);
    }
    plan *domain = plan_new(pctx, PLAN_DISTINCT, 1, oc.n);
    BIND_CHECK(b, domain);
    domain->children[0] = proj;
    memcpy(domain->out, proj->out, oc.n * sizeof(plan_col));
    /* the aggregation's input joined with D on the correlation, outer columns read from D */
    bexpr_list conds = {0};
    for (uint32_t k = from; k < pc->pulled.n; k++) {
        bexpr *c = plan_copy_expr(pctx, &m, pc->pulled.items[k]);
        BIND_CHECK(b, c);
        SQE_TRY(bexpr_list_push(pctx, &conds, c));
    }
    bexpr *cond = bexpr_make_and(pctx, conds.items, conds.n);
    plan *input;
    if (keep_empty) {
        plan *in = p->children[0];
        plan *marked = plan_new(pctx, PLAN_PROJECT, 1, in->n_out + 1);
        BIND_CHECK(b, marked);
        marked->children[0] = in;
        marked->u.project.exprs = ARENA_ARRAY(pctx->arena, bexpr *, in->n_out + 1);
        BIND_CHECK(b, marked->u.project.exprs);
        for (uint32_t i = 0; i < in->n_out; i++) {
            marked->out[i] = in->out[i];
            marked->u.project.exprs[i] = bexpr_column(pctx, in->out[i].id, in->out[i].type);
            BIND_CHECK(b, marked->u.project.exprs[i]);
        }
        plan_col_id marker = plan_new_col(pctx);
        marked->out[in->n_out].id = marker;
        marked->out[in->n_out].type = type_make(TYPE_BOOLEAN);
        marked->out[in->n_out].name = "$row";
        marked->u.project.exprs[in->n_out] = bexpr_const_bool(pctx, true);
        BIND_CHECK(b, marked->u.project.exprs[in->n_out]);
        idset_add(&pc->inner, marker);
        input = make_join(b, domain, marked, JOIN_LEFT, cond); /* cond: at least one conjunct */
        BIND_CHECK(b, input);
        for (uint32_t a = 0; a < p->u.agg.n_aggs; a++) {
            plan_agg *g = &p->u.agg.aggs[a];
            bexpr *real = bexpr_column(pctx, marker, type_make(TYPE_BOOLEAN));
            BIND_CHECK(b, real);
            bexpr *both[2] = {g->filter, real};
            g->filter = g->filter ? bexpr_make_and(pctx, both, 2) : real;
            BIND_CHECK(b, g->filter);
        }
    } else {
        input = make_join(b, p->children[0], domain, JOIN_INNER, cond);
        BIND_CHECK(b, input);
    }
    p->children[0] = input;
    for (uint32_t i = 0; i < domain->n_out; i++) idset_add(&pc->inner, domain->out[i].id);
    /* group by D; what is pulled above is outer = D */
    pc->pulled.n = from;
    for (uint32_t i = 0; i < oc.n; i++) {
        bexpr *key = bexpr_column(pctx, domain->out[i].id, domain->out[i].type);
        BIND_CHECK(b, key);
        plan_col_id gid;
        SQE_TRY(add_group_key(pc, p, key, &gid));
        bexpr *outer = bexpr_column(pctx, oc.ids[i], domain->out[i].type);
        bexpr *group = bexpr_column(pctx, gid, domain->out[i].type);
        BIND_CHECK(b, outer && group);
        bexpr *eq;
        SQE_TRY(bind_comparison(b, SQL_OP_IS_NOT_DISTINCT, outer, group, pc->line, pc->col, &eq));
        SQE_TRY(bexpr_list_push(pctx, &pc->pulled, eq));
    }
    return pctx->failed ? bind_nomem(b) : SQE_OK;
}

static int pull_through_aggregate(pull_ctx *pc, plan *p, uint32_t from) {
    binder *b = pc->b;
    if (p->u.agg.n_sets) return unsupported(pc, "grouping sets");
    if (from == pc->pulled.n) return SQE_OK;
    if (p->u.agg.n_groups == 0 && p != pc->scalar_core) return pull_through_aggregate_by_domain(pc, p, from, true);
    for (uint32_t k = from; k < pc->pulled.n; k++)
        if (equality_inner_side(pc, pc->pulled.items[k]) < 0)
            return pull_through_aggregate_by_domain(pc, p, from, false);
    for (uint32_t k = from; k < pc->pulled.n; k++) {
        bexpr *c = pc->pulled.items[k];
        int inner_side = equality_inner_side(pc, c);
        bexpr *inner_expr = c->args[inner_side];
        plan_col_id gid;
        SQE_TRY(add_group_key(pc, p, inner_expr, &gid));
        bexpr *eq = bexpr_copy(b->pctx, c);
        BIND_CHECK(b, eq);
        eq->args[inner_side] = bexpr_column(b->pctx, gid, inner_expr->type);
        BIND_CHECK(b, eq->args[inner_side]);
        pc->pulled.items[k] = eq;
    }
    return SQE_OK;
}

static int pull_up(pull_ctx *pc, plan **pp) {
    plan *p = *pp;
    bool corr;
    SQE_TRY(subtree_correlated(pc, p, &corr));
    if (!corr) return SQE_OK;
    uint32_t from = pc->pulled.n;
    switch (p->kind) {
    case PLAN_FILTER:
        SQE_TRY(pull_up(pc, &p->children[0]));
        /* a filter passes its input's columns, including those the pull added below */
        p->out = p->children[0]->out;
        p->n_out = p->children[0]->n_out;
        SQE_TRY(pull_conjuncts(pc, &p->u.filter.cond));
        if (!p->u.filter.cond) {
            *pp = p->children[0];
            return SQE_OK;
        }
        break;
    case PLAN_PROJECT:
        SQE_TRY(pull_up(pc, &p->children[0]));
        SQE_TRY(expose_through_project(pc, p, from));
        break;
    case PLAN_AGGREGATE:
        SQE_TRY(pull_up(pc, &p->children[0]));
        SQE_TRY(pull_through_aggregate(pc, p, from));
        break;
    case PLAN_JOIN:
        if (p->u.join.type == JOIN_INNER || p->u.join.type == JOIN_CROSS) {
            SQE_TRY(pull_up(pc, &p->children[0]));
            SQE_TRY(pull_up(pc, &p->children[1]));
            SQE_TRY(pull_conjuncts(pc, &p->u.join.residual));
            if (!p->u.join.residual && p->u.join.type == JOIN_INNER) p->u.join.type = JOIN_CROSS;
        } else {
            bool right_corr;
            SQE_TRY(subtree_correlated(pc, p->children[1], &right_corr));
            if (right_corr) return unsupported(pc, "correlation inside an outer join");
            SQE_TRY(pull_up(pc, &p->children[0]));
        }
        /* join outputs: keep in sync with children (they may have grown) */
        {
            plan *l = p->children[0], *r = p->children[1];
            bool keep_right = p->u.join.type != JOIN_SEMI && p->u.join.type != JOIN_ANTI;
            uint32_t n = l->n_out + (keep_right ? r->n_out : 0) + (p->u.join.type == JOIN_MARK ? 1 : 0);
            plan_col *out = ARENA_ARRAY(pc->b->pctx->arena, plan_col, n + 1);
            BIND_CHECK(pc->b, out);
            memcpy(out, l->out, l->n_out * sizeof(plan_col));
            uint32_t k = l->n_out;
            if (keep_right) {
                memcpy(out + k, r->out, r->n_out * sizeof(plan_col));
                k += r->n_out;
            }
            if (p->u.join.type == JOIN_MARK) out[k++] = p->out[p->n_out - 1];
            p->out = out;
            p->n_out = k;
        }
        break;
    case PLAN_SORT:
        SQE_TRY(pull_up(pc, &p->children[0]));
        *pp = p->children[0]; /* order is meaningless inside the subquery */
        return SQE_OK;
    default:
        return unsupported(pc, "correlation below this kind of operation (LIMIT, DISTINCT, window, "
                               "set operation or UNNEST)");
    }
    /* Anything still correlated in this node itself cannot be handled. */
    idset prod, ref;
    SQE_TRY(idset_init(pc->b, &prod));
    SQE_TRY(idset_init(pc->b, &ref));
    for (uint32_t i = 0; i < p->n_children; i++) collect(p->children[i], &prod, &ref);
    for (uint32_t i = 0; i < p->n_out; i++) idset_add(&prod, p->out[i].id);
    idset own_ref;
    SQE_TRY(idset_init(pc->b, &own_ref));
    collect_state st = {&prod, &own_ref};
    plan_for_each_expr(p, collect_expr_cb, &st);
    for (uint32_t w = 0; w < own_ref.n_words; w++)
        if (own_ref.bits[w] & ~prod.bits[w])
            return unsupported(pc, "a correlated reference outside of WHERE conditions");
    return SQE_OK;
}

/* Prepares decorrelation of sub, correlated to outer: pulls its correlated conjuncts into
 * pc->pulled. */
static int decorrelate(binder *b, plan **sub, const plan *outer, const plan *scalar_core,
                       pull_ctx *pc, int line, int col) {
    memset(pc, 0, sizeof *pc);
    pc->b = b;
    pc->outer = outer;
    pc->scalar_core = scalar_core;
    pc->line = line;
    pc->col = col;
    SQE_TRY(idset_init(b, &pc->inner));
    idset ref;
    SQE_TRY(idset_init(b, &ref));
    collect(*sub, &pc->inner, &ref);
    return pull_up(pc, sub);
}

static plan *make_join(binder *b, plan *left, plan *right, uint8_t type, bexpr *residual) {
    bool keep_right = type != JOIN_SEMI && type != JOIN_ANTI && type != JOIN_MARK;
    uint32_t n = left->n_out + (keep_right ? right->n_out : 0) + (type == JOIN_MARK ? 1 : 0);
    plan *j = plan_new(b->pctx, PLAN_JOIN, 2, n);
    if (!j) return NULL;
    j->children[0] = left;
    j->children[1] = right;
    memcpy(j->out, left->out, left->n_out * sizeof(plan_col));
    if (keep_right) memcpy(j->out + left->n_out, right->out, right->n_out * sizeof(plan_col));
    if (type == JOIN_MARK) {
        j->u.join.mark = plan_new_col(b->pctx);
        j->out[n - 1].id = j->u.join.mark;
        j->out[n - 1].type = type_make(TYPE_BOOLEAN);
        j->out[n - 1].name = "$mark";
    }
    j->u.join.type = type;
    j->u.join.residual = residual;
    return j;
}

static bexpr *make_not(binder *b, bexpr *x) {
    bexpr *n = bexpr_new(b->pctx, BEXPR_NOT, type_make(TYPE_BOOLEAN), 1);
    if (n) n->args[0] = x;
    return n;
}

static bool is_count_like(const plan_agg *a) {
    const char *n = a->def->name;
    return strcmp(n, "count") == 0 || strcmp(n, "count_if") == 0 || strcmp(n, "approx_distinct") == 0;
}

/* Replaces references to count-like aggregate outputs of agg with COALESCE(x, 0). */
static int coalesce_counts(binder *b, const plan *agg, bexpr **slot) {
    bexpr *e = *slot;
    if (e->kind == BEXPR_COLUMN) {
        for (uint32_t i = 0; i < agg->u.agg.n_aggs; i++) {
            const plan_agg *a = &agg->u.agg.aggs[i];
            if (a->out != e->u.col || !is_count_like(a)) continue;
            bexpr *co = bexpr_new(b->pctx, BEXPR_COALESCE, e->type, 2);
            BIND_CHECK(b, co);
            co->args[0] = e;
            co->args[1] = bexpr_const_int64(b->pctx, e->type, 0);
            BIND_CHECK(b, co->args[1]);
            *slot = co;
            return SQE_OK;
        }
        return SQE_OK;
    }
    for (uint32_t i = 0; i < e->n_args; i++) SQE_TRY(coalesce_counts(b, agg, &e->args[i]));
    return SQE_OK;
}

/* Scalar subquery: replaces *slot (the BEXPR_SUBQUERY) with its value, joining into *input. */
static int plan_scalar(binder *b, plan **input, bexpr **slot) {
    bexpr *sq = *slot;
    plan *sub = sq->u.subquery.query;
    bool corr;
    SQE_TRY(is_correlated(b, sub, &corr));
    if (!corr) {
        plan *single = plan_new(b->pctx, PLAN_ENFORCE_SINGLE, 1, sub->n_out);
        BIND_CHECK(b, single);
        single->children[0] = sub;
        memcpy(single->out, sub->out, sub->n_out * sizeof(plan_col));
        single->est_rows = 1;
        *input = make_join(b, *input, single, JOIN_CROSS, NULL);
        BIND_CHECK(b, *input);
        *slot = bexpr_column(b->pctx, sub->out[0].id, sub->out[0].type);
        BIND_CHECK(b, *slot);
        return SQE_OK;
    }
    /* Strip projections above a scalar aggregate: their expression is evaluated above the join. */
    bexpr *value = bexpr_column(b->pctx, sub->out[0].id, sub->out[0].type);
    BIND_CHECK(b, value);
    plan *core = sub;
    while (core->kind == PLAN_PROJECT) {
        int idx = -1;
        for (uint32_t i = 0; i < core->n_out; i++)
            if (value->kind == BEXPR_COLUMN && core->out[i].id == value->u.col) idx = (int)i;
        if (idx < 0) break;
        /* substitute: value = project expr (only single-column chains are composed) */
        if (value->kind != BEXPR_COLUMN) break;
        value = core->u.project.exprs[idx];
        core = core->children[0];
    }
    bool scalar_agg = core->kind == PLAN_AGGREGATE && core->u.agg.n_groups == 0 && !core->u.agg.n_sets;
    pull_ctx pc;
    if (scalar_agg) {
        /* value refers only to the aggregate's outputs (or constants) */
        SQE_TRY(decorrelate(b, &core, *input, core, &pc, sq->line, sq->col));
        if (pc.pulled.n == 0) return unsupported(&pc, "correlated references outside of WHERE conditions");
        SQE_TRY(coalesce_counts(b, core, &value));
        bexpr *cond = bexpr_make_and(b->pctx, pc.pulled.items, pc.pulled.n);
        *input = make_join(b, *input, core, JOIN_LEFT, cond);
        BIND_CHECK(b, *input);
        *slot = value;
        return SQE_OK;
    }
    SQE_TRY(decorrelate(b, &sub, *input, NULL, &pc, sq->line, sq->col));
    bexpr *cond = bexpr_make_and(b->pctx, pc.pulled.items, pc.pulled.n);
    *input = make_join(b, *input, sub, JOIN_SINGLE, cond);
    BIND_CHECK(b, *input);
    *slot = bexpr_column(b->pctx, sub->out[0].id, sub->out[0].type);
    BIND_CHECK(b, *slot);
    return SQE_OK;
}

/* The expression that replaced subquery node sq when it was planned already, or NULL. */
static bexpr *planned_already(const binder *b, const bexpr *sq) {
    for (uint32_t i = 0; i < b->n_subq; i++)
        if (b->subq_from[i] == sq) return b->subq_to[i];
    return NULL;
}

static int remember_planned(binder *b, const bexpr *sq, bexpr *replacement) {
    if (b->n_subq == b->cap_subq) {
        uint32_t cap = b->cap_subq ? b->cap_subq * 2 : 8;
        const bexpr **from = ARENA_ARRAY(b->pctx->arena, const bexpr *, cap);
        bexpr **to = ARENA_ARRAY(b->pctx->arena, bexpr *, cap);
        BIND_CHECK(b, from && to);
        if (b->n_subq) {
            memcpy(from, b->subq_from, b->n_subq * sizeof *from);
            memcpy(to, b->subq_to, b->n_subq * sizeof *to);
        }
        b->subq_from = from;
        b->subq_to = to;
        b->cap_subq = cap;
    }
    b->subq_from[b->n_subq] = sq;
    b->subq_to[b->n_subq++] = replacement;
    return SQE_OK;
}

/* (a, b, ...) = (x, y, ...) for a subquery of several columns, as Trino 476 answers it: each
 * field must equal its column, and a NULL field matches nothing, so the mark is TRUE or FALSE
 * and never NULL (Trino: (3, NULL) NOT IN (SELECT 3, 4) is true and (a, b) IN (SELECT x, y) over
 * rows (3, NULL) on both sides false; only when both rows are constants does it call (1, NULL)
 * IN (SELECT 1, NULL) true). The equalities are conditions like the correlation's, so each can
 * be a key of the join. */
static int row_equalities(binder *b, bexpr *row, const plan *sub, uint32_t n_values, int line, int col,
                          bexpr_list *conds) {
    for (uint32_t i = 0; i < n_values; i++) {
        bexpr *value = bexpr_column(b->pctx, sub->out[i].id, sub->out[i].type);
        BIND_CHECK(b, value);
        bexpr *eq;
        SQE_TRY(bind_comparison(b, SQL_OP_EQ, row->args[i], value, line, col, &eq));
        SQE_TRY(bexpr_list_push(b->pctx, conds, eq));
    }
    return SQE_OK;
}

/* EXISTS / IN / ANY / ALL. top: the expression is a WHERE conjunct (possibly under NOT).
 * The pulled correlation conditions must be TRUE for a subquery row to count; the comparison
 * of IN / ANY / ALL is three-valued: in a MARK join it goes to mark_cond (see plan.h), so a
 * NULL on either side of it makes the mark NULL while a NULL correlation only drops the row. */
static int plan_predicate(binder *b, plan **input, bexpr **slot, bool top, bool negated,
                          bool *absorbed) {
    bexpr *sq = *slot;
    plan *sub = sq->u.subquery.query;
    uint8_t kind = sq->u.subquery.kind;
    uint32_t n_values = sub->n_out; /* decorrelation may expose more columns after these */
    pull_ctx pc;
    SQE_TRY(decorrelate(b, &sub, *input, NULL, &pc, sq->line, sq->col));
    bexpr_list conds = pc.pulled;
    bool null_aware = false;
    bexpr *cmp = NULL;
    if (kind != SUBQ_EXISTS) {
        int op = sq->u.subquery.cmp;
        bool all = kind == SUBQ_ALL;
        if (all) {
            /* x op ALL (S)  ==  NOT (x (NOT op) ANY (S)) */
            switch (op) {
            case SQL_OP_EQ: op = SQL_OP_NE; break;
            case SQL_OP_NE: op = SQL_OP_EQ; break;
            case SQL_OP_LT: op = SQL_OP_GE; break;
            case SQL_OP_LE: op = SQL_OP_GT; break;
            case SQL_OP_GT: op = SQL_OP_LE; break;
            default: op = SQL_OP_LT; break;
            }
            negated = !negated;
        }
        if (n_values > 1) {
            /* the binder let through only a ROW(...) of as many values, with = (row_in_subquery) */
            if (op != SQL_OP_EQ || sq->args[0]->kind != BEXPR_ROW || sq->args[0]->n_args != n_values)
                return bind_error(b, SQE_ERR_NOT_SUPPORTED, sq->line, sq->col,
                                  "A row is compared with a subquery of several columns only by IN, "
                                  "= ANY and <> ALL");
            SQE_TRY(row_equalities(b, sq->args[0], sub, n_values, sq->line, sq->col, &conds));
        } else {
            bexpr *value = bexpr_column(b->pctx, sub->out[0].id, sub->out[0].type);
            BIND_CHECK(b, value);
            SQE_TRY(bind_comparison(b, op, sq->args[0], value, sq->line, sq->col, &cmp));
            null_aware = true;
        }
    }
    if (top && (!negated || !null_aware)) {
        /* a WHERE conjunct: NULL and FALSE both drop the row, so the comparison is one more
         * condition of a SEMI / ANTI join */
        if (cmp) SQE_TRY(bexpr_list_push(b->pctx, &conds, cmp));
        bexpr *cond = bexpr_make_and(b->pctx, conds.items, conds.n);
        *input = make_join(b, *input, sub, negated ? JOIN_ANTI : JOIN_SEMI, cond);
        BIND_CHECK(b, *input);
        *absorbed = true;
        /* the predicate is TRUE (SEMI) or FALSE (ANTI) on every row that remains */
        bexpr *value = bexpr_const_bool(b->pctx, !negated);
        BIND_CHECK(b, value);
        return remember_planned(b, sq, value);
    }
    plan *j = make_join(b, *input, sub, JOIN_MARK, bexpr_make_and(b->pctx, conds.items, conds.n));
    BIND_CHECK(b, j);
    j->u.join.mark_null_aware = null_aware;
    j->u.join.mark_cond = cmp;
    *input = j;
    bexpr *mark = bexpr_column(b->pctx, j->u.join.mark, type_make(TYPE_BOOLEAN));
    BIND_CHECK(b, mark);
    SQE_TRY(remember_planned(b, sq, mark));
    *slot = negated ? make_not(b, mark) : mark;
    BIND_CHECK(b, *slot);
    *absorbed = false;
    return SQE_OK;
}

static int plan_rec(binder *b, plan **input, bexpr **slot) {
    bexpr *e = *slot;
    if (!e) return SQE_OK;
    if (e->kind == BEXPR_SUBQUERY) {
        bexpr *done = planned_already(b, e);
        if (done) {
            *slot = done;
            return SQE_OK;
        }
        if (e->n_args) SQE_TRY(plan_rec(b, input, &e->args[0]));
        if (e->u.subquery.kind == SUBQ_SCALAR) {
            SQE_TRY(plan_scalar(b, input, slot));
            return remember_planned(b, e, *slot);
        }
        bool absorbed;
        return plan_predicate(b, input, slot, false, false, &absorbed);
    }
    if (e->kind == BEXPR_LAMBDA) return SQE_OK;
    for (uint32_t i = 0; i < e->n_args; i++) SQE_TRY(plan_rec(b, input, &e->args[i]));
    return SQE_OK;
}

int bind_plan_subqueries(binder *b, plan **input, bexpr **e, bool top_filter) {
    if (top_filter) {
        bexpr *x = *e;
        bool negated = false;
        if (x->kind == BEXPR_NOT && x->args[0]->kind == BEXPR_SUBQUERY) {
            negated = true;
            x = x->args[0];
        }
        if (x->kind == BEXPR_SUBQUERY && x->u.subquery.kind != SUBQ_SCALAR &&
            !(x->n_args && bexpr_has_subquery(x->args[0])) && !planned_already(b, x)) {
            bexpr *slot = x;
            bool absorbed;
            SQE_TRY(plan_predicate(b, input, &slot, true, negated, &absorbed));
            *e = absorbed ? NULL : slot;
            return SQE_OK;
        }
    }
    return plan_rec(b, input, e);
}

int bind_lateral_join(binder *b, plan *left, plan *right, uint8_t join_type, bexpr *on,
                      plan **out) {
    bool corr;
    SQE_TRY(is_correlated(b, right, &corr));
    plan *lifted = NULL; /* a projection evaluated above the join instead of below it */
    if (corr && right->kind == PLAN_PROJECT) {
        lifted = right;
        right = right->children[0];
    }
    /* A scalar aggregate returns one row for every outer row, even when nothing matches: after
     * grouping by the correlation keys that needs a LEFT join, with counts COALESCEd to 0. */
    plan *scalar_agg = corr && right->kind == PLAN_AGGREGATE && right->u.agg.n_groups == 0 &&
                               !right->u.agg.n_sets
                           ? right
                           : NULL;
    bexpr *cond = on;
    if (corr) {
        pull_ctx pc;
        SQE_TRY(decorrelate(b, &right, left, scalar_agg, &pc, 0, 0));
        if (on) SQE_TRY(bexpr_list_push(b->pctx, &pc.pulled, on));
        cond = bexpr_make_and(b->pctx, pc.pulled.items, pc.pulled.n);
    }
    if (scalar_agg) {
        if (join_type != JOIN_INNER && join_type != JOIN_LEFT)
            return bind_error(b, SQE_ERR_NOT_SUPPORTED, 0, 0, "Unsupported LATERAL join with an aggregate");
        join_type = JOIN_LEFT;
        if (!lifted) {
            /* evaluate the aggregate's outputs above the join, counts COALESCEd */
            lifted = plan_new(b->pctx, PLAN_PROJECT, 1, scalar_agg->n_out);
            BIND_CHECK(b, lifted);
            lifted->u.project.exprs = ARENA_ARRAY(b->pctx->arena, bexpr *, scalar_agg->n_out + 1);
            BIND_CHECK(b, lifted->u.project.exprs);
            uint32_t k = 0;
            for (uint32_t i = 0; i < scalar_agg->n_out; i++) {
                bool is_group = i < scalar_agg->u.agg.n_groups;
                if (is_group) continue; /* correlation keys added by decorrelation */
                lifted->out[k] = scalar_agg->out[i];
                lifted->u.project.exprs[k] = bexpr_column(b->pctx, scalar_agg->out[i].id, scalar_agg->out[i].type);
                BIND_CHECK(b, lifted->u.project.exprs[k]);
                k++;
            }
            lifted->n_out = k;
        }
        for (uint32_t i = 0; i < lifted->n_out; i++)
            SQE_TRY(coalesce_counts(b, scalar_agg, &lifted->u.project.exprs[i]));
    }
    uint8_t t = join_type;
    if (t == JOIN_INNER && !cond) t = JOIN_CROSS;
    plan *j = make_join(b, left, right, t, cond);
    BIND_CHECK(b, j);
    if (lifted) {
        /* left columns, then the lifted projection's columns under their own ids */
        uint32_t n = left->n_out + lifted->n_out;
        bexpr **exprs = ARENA_ARRAY(b->pctx->arena, bexpr *, n + 1);
        BIND_CHECK(b, exprs);
        for (uint32_t i = 0; i < left->n_out; i++) {
            exprs[i] = bexpr_column(b->pctx, left->out[i].id, left->out[i].type);
            BIND_CHECK(b, exprs[i]);
        }
        for (uint32_t i = 0; i < lifted->n_out; i++) exprs[left->n_out + i] = lifted->u.project.exprs[i];
        plan *p = plan_new(b->pctx, PLAN_PROJECT, 1, n);
        BIND_CHECK(b, p);
        p->children[0] = j;
        p->u.project.exprs = exprs;
        memcpy(p->out, left->out, left->n_out * sizeof(plan_col));
        memcpy(p->out + left->n_out, lifted->out, lifted->n_out * sizeof(plan_col));
        j = p;
    }
    *out = j;
    return SQE_OK;
}
