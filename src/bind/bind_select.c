/*
 * bind_select.c: one SELECT block: FROM, WHERE, GROUP BY (grouping sets, ROLLUP, CUBE),
 * aggregates, HAVING, window functions, the select list (with * expansion), DISTINCT,
 * ORDER BY (by alias, ordinal or expression), OFFSET and LIMIT.
 *
 * INTERFACE: bind_select.
 * NOTES: expressions of an aggregating SELECT are first bound against the FROM scope, with
 * aggregate calls replaced by references to the aggregate's output column; then every subtree
 * equal to a GROUP BY expression is replaced by the group column, and any other reference to a
 * FROM column is the Trino error "must be an aggregate expression or appear in GROUP BY clause".
 * Window functions are collected the same way and computed by a WINDOW node above the
 * aggregation. ORDER BY expressions that are not in the select list are projected as hidden
 * columns and dropped at the end.
 */
#include "bind/bind_int.h"

#include <stdio.h>
#include <string.h>

/* --- the select list --------------------------------------------------------------------- */

typedef struct select_list {
    bexpr **exprs;
    const char **names;
    int *lines, *cols;
    uint32_t n, cap;
} select_list;

static int list_push(binder *b, select_list *l, bexpr *e, const char *name, int line, int col) {
    if (l->n == l->cap) {
        uint32_t cap = l->cap ? l->cap * 2 : 16;
        bexpr **e2 = ARENA_ARRAY(b->pctx->arena, bexpr *, cap);
        const char **n2 = ARENA_ARRAY(b->pctx->arena, const char *, cap);
        int *l2 = ARENA_ARRAY(b->pctx->arena, int, cap);
        int *c2 = ARENA_ARRAY(b->pctx->arena, int, cap);
        BIND_CHECK(b, e2 && n2 && l2 && c2);
        if (l->n) {
            memcpy(e2, l->exprs, l->n * sizeof *e2);
            memcpy(n2, l->names, l->n * sizeof *n2);
            memcpy(l2, l->lines, l->n * sizeof *l2);
            memcpy(c2, l->cols, l->n * sizeof *c2);
        }
        l->exprs = e2;
        l->names = n2;
        l->lines = l2;
        l->cols = c2;
        l->cap = cap;
    }
    l->exprs[l->n] = e;
    l->names[l->n] = name;
    l->lines[l->n] = line;
    l->cols[l->n] = col;
    l->n++;
    return SQE_OK;
}

static const char *derived_name(const sql_expr *e) {
    if (e->kind == SQL_EXPR_NAME) return e->u.name.parts[e->u.name.n_parts - 1].name;
    if (e->kind == SQL_EXPR_FIELD) return e->u.field.field.name;
    return NULL;
}

static int expand_star(binder *b, bind_scope *s, const sql_select_item *item, select_list *l) {
    if (!item->expr) {
        bool any = false;
        for (uint32_t r = 0; r < s->n_rels; r++)
            for (uint32_t c = 0; c < s->rels[r].n_cols; c++) {
                const bind_rel_col *col = &s->rels[r].cols[c];
                if (col->hidden || col->star_hidden) continue;
                bexpr *e = bexpr_column(b->pctx, col->id, col->type);
                BIND_CHECK(b, e);
                SQE_TRY(list_push(b, l, e, col->name, item->line, item->col));
                any = true;
            }
        if (!any)
            return bind_error(b, SQE_ERR_COLUMN_NOT_FOUND, item->line, item->col,
                              "SELECT * not allowed in queries without FROM clause");
        return SQE_OK;
    }
    /* t.* : a relation, or a ROW-valued expression */
    if (item->expr->kind == SQL_EXPR_NAME && item->expr->u.name.n_parts <= 2) {
        const sql_qname *qn = &item->expr->u.name;
        const char *rel_name = qn->parts[qn->n_parts - 1].name;
        const char *schema = qn->n_parts == 2 ? qn->parts[0].name : NULL;
        for (uint32_t r = 0; r < s->n_rels; r++) {
            const bind_rel *rel = &s->rels[r];
            if (!rel->alias || strcmp(rel->alias, rel_name) != 0) continue;
            if (schema && (!rel->schema || strcmp(rel->schema, schema) != 0)) continue;
            for (uint32_t c = 0; c < rel->n_cols; c++) {
                if (rel->cols[c].star_hidden) continue;
                bexpr *e = bexpr_column(b->pctx, rel->cols[c].id, rel->cols[c].type);
                BIND_CHECK(b, e);
                SQE_TRY(list_push(b, l, e, rel->cols[c].name, item->line, item->col));
            }
            return SQE_OK;
        }
    }
    bexpr *row;
    SQE_TRY(bind_expr(b, s, item->expr, &row));
    if (row->type.id != TYPE_ROW)
        return bind_error(b, SQE_ERR_TYPE_MISMATCH, item->line, item->col,
                          "Expression is not of type ROW and cannot be expanded with *");
    const type_nested *nt = row->type.nested;
    if (item->aliases.n && (uint32_t)item->aliases.n != nt->n_children)
        return bind_error(b, SQE_ERR_MISMATCHED_COLUMN_ALIASES, item->line, item->col,
                          "Column alias list has %d entries but the row has %u fields",
                          item->aliases.n, nt->n_children);
    for (uint32_t f = 0; f < nt->n_children; f++) {
        bexpr *fe = bexpr_new(b->pctx, BEXPR_FIELD, nt->children[f], 1);
        BIND_CHECK(b, fe);
        fe->args[0] = row;
        fe->u.field = f;
        const char *nm = item->aliases.n ? item->aliases.items[f].name : nt->names ? nt->names[f] : NULL;
        SQE_TRY(list_push(b, l, fe, nm, item->line, item->col));
    }
    return SQE_OK;
}

/* --- grouping ------------------------------------------------------------------------------- */

typedef struct group_builder {
    bexpr **exprs;
    uint32_t n, cap;
    uint64_t *sets;
    uint32_t n_sets, cap_sets;
} group_builder;

static int group_add_expr(binder *b, group_builder *g, bexpr *e, uint32_t *idx) {
    for (uint32_t i = 0; i < g->n; i++)
        if (bexpr_equal(g->exprs[i], e)) {
            *idx = i;
            return SQE_OK;
        }
    if (g->n >= 63)
        return bind_error(b, SQE_ERR_NOT_SUPPORTED, e->line, e->col, "Too many grouping columns (maximum 63)");
    if (g->n == g->cap) {
        uint32_t cap = g->cap ? g->cap * 2 : 8;
        bexpr **grown = ARENA_ARRAY(b->pctx->arena, bexpr *, cap);
        BIND_CHECK(b, grown);
        if (g->n) memcpy(grown, g->exprs, g->n * sizeof(bexpr *));
        g->exprs = grown;
        g->cap = cap;
    }
    g->exprs[g->n] = e;
    *idx = g->n++;
    return SQE_OK;
}

static int group_add_set(binder *b, group_builder *g, uint64_t set) {
    if (g->n_sets >= 4096)
        return bind_error(b, SQE_ERR_NOT_SUPPORTED, 0, 0, "Too many grouping sets (maximum 4096)");
    if (g->n_sets == g->cap_sets) {
        uint32_t cap = g->cap_sets ? g->cap_sets * 2 : 8;
        uint64_t *grown = ARENA_ARRAY(b->pctx->arena, uint64_t, cap);
        BIND_CHECK(b, grown);
        if (g->n_sets) memcpy(grown, g->sets, g->n_sets * sizeof(uint64_t));
        g->sets = grown;
        g->cap_sets = cap;
    }
    g->sets[g->n_sets++] = set;
    return SQE_OK;
}

/* Binds one GROUP BY item: an ordinal refers to a select item. */
static int bind_group_item(binder *b, bind_scope *s, const sql_select *sel, const sql_expr *e,
                           bexpr **out) {
    if (e->kind == SQL_EXPR_INTEGER) {
        int64_t ord = e->u.num.ival;
        if (ord < 1 || ord > sel->n_items)
            return bind_error(b, SQE_ERR_INVALID_COLUMN_REFERENCE, e->line, e->col,
                              "GROUP BY position %lld is not in select list", (long long)ord);
        const sql_select_item *it = &sel->items[ord - 1];
        if (it->kind != SQL_SELECT_EXPR)
            return bind_error(b, SQE_ERR_INVALID_COLUMN_REFERENCE, e->line, e->col,
                              "GROUP BY position %lld refers to *", (long long)ord);
        e = it->expr;
    }
    if (bind_contains_aggregate(e))
        return bind_error(b, SQE_ERR_EXPRESSION_NOT_SCALAR, e->line, e->col,
                          "GROUP BY clause cannot contain aggregations, window functions or "
                          "grouping operations");
    return bind_expr(b, s, e, out);
}

/* Set of the expressions of one sql_expr_list (a grouping set) as a bitmask. */
static int bind_group_set(binder *b, bind_scope *s, const sql_select *sel, group_builder *g,
                          const sql_expr_list *l, uint64_t *mask) {
    *mask = 0;
    for (int i = 0; i < l->n; i++) {
        bexpr *e;
        SQE_TRY(bind_group_item(b, s, sel, l->items[i], &e));
        uint32_t idx = 0;
        SQE_TRY(group_add_expr(b, g, e, &idx));
        *mask |= (uint64_t)1 << idx;
    }
    return SQE_OK;
}

/* The grouping sets of one GROUP BY element, as a list of masks. */
static int element_sets(binder *b, bind_scope *s, const sql_select *sel, group_builder *g,
                        const sql_grouping_element *el, uint64_t **sets, uint32_t *n_sets) {
    uint32_t n = (uint32_t)el->n_sets;
    uint64_t *masks = ARENA_ARRAY(b->pctx->arena, uint64_t, n + 1);
    BIND_CHECK(b, masks);
    for (uint32_t i = 0; i < n; i++) SQE_TRY(bind_group_set(b, s, sel, g, &el->sets[i], &masks[i]));
    switch (el->kind) {
    case SQL_GROUPING_SIMPLE:
    case SQL_GROUPING_SETS:
        if (el->kind == SQL_GROUPING_SIMPLE) {
            uint64_t all = 0;
            for (uint32_t i = 0; i < n; i++) all |= masks[i];
            masks[0] = all;
            n = 1;
        }
        *sets = masks;
        *n_sets = n;
        return SQE_OK;
    case SQL_GROUPING_ROLLUP: {
        uint64_t *out = ARENA_ARRAY(b->pctx->arena, uint64_t, n + 1);
        BIND_CHECK(b, out);
        for (uint32_t k = 0; k <= n; k++) {
            uint64_t m = 0;
            for (uint32_t i = 0; i < n - k; i++) m |= masks[i];
            out[k] = m;
        }
        *sets = out;
        *n_sets = n + 1;
        return SQE_OK;
    }
    case SQL_GROUPING_CUBE: {
        if (n > 12)
            return bind_error(b, SQE_ERR_NOT_SUPPORTED, el->line, el->col, "CUBE of more than 12 elements");
        uint32_t total = 1u << n;
        uint64_t *out = ARENA_ARRAY(b->pctx->arena, uint64_t, total);
        BIND_CHECK(b, out);
        for (uint32_t bits = 0; bits < total; bits++) {
            uint32_t subset = total - 1 - bits; /* largest sets first, like Trino */
            uint64_t m = 0;
            for (uint32_t i = 0; i < n; i++)
                if (subset & (1u << (n - 1 - i))) m |= masks[i];
            out[bits] = m;
        }
        *sets = out;
        *n_sets = total;
        return SQE_OK;
    }
    default:
        return bind_error(b, SQE_ERR_NOT_SUPPORTED, el->line, el->col, "Unsupported grouping");
    }
}

/* GROUP BY a, ROLLUP(b), CUBE(c): the cross product of the elements' sets. */
static int bind_group_by(binder *b, bind_scope *s, const sql_select *sel, group_builder *g,
                         bool *explicit_sets) {
    const sql_group_by *gb = sel->group_by;
    uint64_t *acc = ARENA_ARRAY(b->pctx->arena, uint64_t, 1);
    BIND_CHECK(b, acc);
    acc[0] = 0;
    uint32_t n_acc = 1;
    *explicit_sets = false;
    for (int i = 0; i < gb->n_elements; i++) {
        uint64_t *sets = NULL;
        uint32_t n_sets = 0;
        SQE_TRY(element_sets(b, s, sel, g, &gb->elements[i], &sets, &n_sets));
        if (gb->elements[i].kind != SQL_GROUPING_SIMPLE) *explicit_sets = true;
        if ((uint64_t)n_acc * n_sets > 4096)
            return bind_error(b, SQE_ERR_NOT_SUPPORTED, gb->line, gb->col, "Too many grouping sets");
        uint64_t *next = ARENA_ARRAY(b->pctx->arena, uint64_t, n_acc * n_sets + 1);
        BIND_CHECK(b, next);
        uint32_t k = 0;
        for (uint32_t a = 0; a < n_acc; a++)
            for (uint32_t c = 0; c < n_sets; c++) next[k++] = acc[a] | sets[c];
        acc = next;
        n_acc = k;
    }
    bool distinct = gb->quantifier == SQL_SET_DISTINCT;
    for (uint32_t i = 0; i < n_acc; i++) {
        bool dup = false;
        for (uint32_t j = 0; distinct && j < g->n_sets; j++) dup = dup || g->sets[j] == acc[i];
        if (!dup) SQE_TRY(group_add_set(b, g, acc[i]));
    }
    return SQE_OK;
}

/* --- rewriting expressions above the aggregation ---------------------------------------- */

typedef struct post_agg {
    binder *b;
    bind_scope *from;
    bind_agg_ctx *agg;
    const char *clause;
} post_agg;

static int rewrite_subquery_refs(post_agg *pa, plan *p);

static const bind_rel_col *from_col(const bind_scope *s, plan_col_id id) {
    for (uint32_t r = 0; r < s->n_rels; r++)
        for (uint32_t c = 0; c < s->rels[r].n_cols; c++)
            if (s->rels[r].cols[c].id == id) return &s->rels[r].cols[c];
    return NULL;
}

/* GROUPING(a, b) = sum of bit(a) << 1 + bit(b) from the grouping id (bit i = group i absent),
 * an integer (Trino). */
static int grouping_value(post_agg *pa, bexpr *g, bexpr **out) {
    binder *b = pa->b;
    bind_agg_ctx *agg = pa->agg;
    if (!agg->n_groups && !agg->has_sets)
        return bind_error(b, SQE_ERR_MISSING_GROUP_BY, g->line, g->col,
                          "A GROUPING() operation can only be used with a corresponding "
                          "GROUPING SET/CUBE/ROLLUP/GROUP BY clause");
    uint32_t n = g->n_args;
    for (uint32_t k = 0; k < n; k++) {
        bool found = false;
        for (uint32_t i = 0; i < agg->n_groups && !found; i++)
            found = bexpr_equal(agg->groups[i], g->args[k]);
        if (!found)
            return bind_error(b, SQE_ERR_INVALID_ARGUMENTS, g->line, g->col,
                              "The arguments to GROUPING() must be expressions referenced by the "
                              "GROUP BY at the associated query level");
    }
    if (!agg->has_sets) {
        *out = bexpr_const_int64(b->pctx, type_make(TYPE_INTEGER), 0);
        BIND_CHECK(b, *out);
        return SQE_OK;
    }
    bexpr *gid = bexpr_column(b->pctx, agg->grouping_id, type_make(TYPE_BIGINT));
    BIND_CHECK(b, gid);
    bexpr *sum = NULL;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t idx = agg->n_groups;
        for (uint32_t i = 0; i < agg->n_groups; i++)
            if (bexpr_equal(agg->groups[i], g->args[k])) idx = i;
        /* ((gid / 2^idx) % 2) * 2^(n-1-k) */
        bexpr *args[2];
        args[0] = gid;
        args[1] = bexpr_const_int64(b->pctx, type_make(TYPE_BIGINT), (int64_t)1 << idx);
        bexpr *t;
        SQE_TRY(bind_call_scalar(b, "$divide", args, 2, g->line, g->col, &t));
        args[0] = t;
        args[1] = bexpr_const_int64(b->pctx, type_make(TYPE_BIGINT), 2);
        SQE_TRY(bind_call_scalar(b, "$modulus", args, 2, g->line, g->col, &t));
        args[0] = t;
        args[1] = bexpr_const_int64(b->pctx, type_make(TYPE_BIGINT), (int64_t)1 << (n - 1 - k));
        SQE_TRY(bind_call_scalar(b, "$multiply", args, 2, g->line, g->col, &t));
        if (sum) {
            args[0] = sum;
            args[1] = t;
            SQE_TRY(bind_call_scalar(b, "$add", args, 2, g->line, g->col, &sum));
        } else {
            sum = t;
        }
    }
    return bind_cast(b, sum, type_make(TYPE_INTEGER), true, g->line, g->col, out);
}

/* Correlated references of a subquery above an aggregation (in the select list, HAVING or
 * ORDER BY) see the grouped rows: a reference to a FROM column must be a plain grouping
 * column, and becomes that group's output column. */
typedef struct outer_ref_state {
    post_agg *pa;
    int rc;
} outer_ref_state;

static void rewrite_outer_ref(outer_ref_state *st, bexpr **slot) {
    bexpr *e = *slot;
    if (!e || st->rc) return;
    if (e->kind == BEXPR_COLUMN) {
        const bind_rel_col *c = from_col(st->pa->from, e->u.col);
        if (!c) return;
        bind_agg_ctx *agg = st->pa->agg;
        for (uint32_t i = 0; i < agg->n_groups; i++)
            if (agg->groups[i]->kind == BEXPR_COLUMN && agg->groups[i]->u.col == e->u.col) {
                bexpr *g = bexpr_column(st->pa->b->pctx, agg->group_cols[i], e->type);
                if (!g) {
                    st->rc = bind_nomem(st->pa->b);
                    return;
                }
                g->line = e->line;
                g->col = e->col;
                *slot = g;
                return;
            }
        st->rc = bind_error(st->pa->b, SQE_ERR_EXPRESSION_NOT_AGGREGATE, e->line, e->col,
                            "Subquery uses '%s' which must appear in GROUP BY clause",
                            c->name ? c->name : "column");
        return;
    }
    if (e->kind == BEXPR_SUBQUERY) {
        for (uint32_t i = 0; i < e->n_args; i++) rewrite_outer_ref(st, &e->args[i]);
        if (!st->rc) st->rc = rewrite_subquery_refs(st->pa, e->u.subquery.query);
        return;
    }
    for (uint32_t i = 0; i < e->n_args; i++) rewrite_outer_ref(st, &e->args[i]);
}

static void rewrite_outer_ref_cb(void *ud, bexpr **slot) { rewrite_outer_ref(ud, slot); }

static int rewrite_subquery_refs(post_agg *pa, plan *p) {
    outer_ref_state st = {pa, SQE_OK};
    plan_for_each_expr(p, rewrite_outer_ref_cb, &st);
    for (uint32_t i = 0; i < p->n_children && !st.rc; i++) st.rc = rewrite_subquery_refs(pa, p->children[i]);
    return st.rc;
}

static int rewrite_post_agg(post_agg *pa, bexpr **slot) {
    bexpr *e = *slot;
    bind_agg_ctx *agg = pa->agg;
    for (uint32_t i = 0; i < agg->n_groups; i++)
        if (bexpr_equal(agg->groups[i], e)) {
            bexpr *c = bexpr_column(pa->b->pctx, agg->group_cols[i], agg->groups[i]->type);
            BIND_CHECK(pa->b, c);
            c->line = e->line;
            c->col = e->col;
            *slot = c;
            return SQE_OK;
        }
    if (e->kind == BEXPR_GROUPING) return grouping_value(pa, e, slot);
    if (e->kind == BEXPR_COLUMN) {
        const bind_rel_col *c = from_col(pa->from, e->u.col);
        if (c)
            return bind_error(pa->b, SQE_ERR_EXPRESSION_NOT_AGGREGATE, e->line, e->col,
                              "'%s' must be an aggregate expression or appear in GROUP BY clause",
                              c->name ? c->name : "column");
        return SQE_OK;
    }
    if (e->kind == BEXPR_SUBQUERY) {
        /* the left operand of IN / ANY is above the aggregation like any other expression,
         * and so are the subquery's correlated references to FROM columns */
        if (e->n_args) SQE_TRY(rewrite_post_agg(pa, &e->args[0]));
        return rewrite_subquery_refs(pa, e->u.subquery.query);
    }
    for (uint32_t i = 0; i < e->n_args; i++) SQE_TRY(rewrite_post_agg(pa, &e->args[i]));
    return SQE_OK;
}

/* --- ORDER BY ---------------------------------------------------------------------------- */

/* Resolves ORDER BY item i to a select list position, or -1 if it is another expression. */
static int order_target(binder *b, const sql_order_item *it, const select_list *l, int *pos) {
    const sql_expr *e = it->expr;
    *pos = -1;
    if (e->kind == SQL_EXPR_INTEGER) {
        int64_t ord = e->u.num.ival;
        if (ord < 1 || ord > (int64_t)l->n)
            return bind_error(b, SQE_ERR_INVALID_COLUMN_REFERENCE, e->line, e->col,
                              "ORDER BY position %lld is not in select list", (long long)ord);
        *pos = (int)ord - 1;
        return SQE_OK;
    }
    if (e->kind == SQL_EXPR_NAME && e->u.name.n_parts == 1) {
        const char *nm = e->u.name.parts[0].name;
        int hit = -1;
        for (uint32_t i = 0; i < l->n; i++)
            if (l->names[i] && strcmp(l->names[i], nm) == 0) {
                if (hit >= 0 && !bexpr_equal(l->exprs[hit], l->exprs[i]))
                    return bind_error(b, SQE_ERR_AMBIGUOUS_NAME, e->line, e->col,
                                      "'%s' in ORDER BY is ambiguous", e->u.name.parts[0].text);
                hit = (int)i;
            }
        *pos = hit;
    }
    return SQE_OK;
}

static int64_t limit_value(binder *b, const sql_expr *e, const char *what, int *rc) {
    bexpr *x;
    *rc = bind_scalar_expr(b->pctx, b->env, e, &x, b->err);
    if (*rc) return 0;
    if (x->kind != BEXPR_CONST || !type_is_integer(x->type) || vec_is_null(x->u.constant, 0)) {
        *rc = bind_error(b, SQE_ERR_TYPE_MISMATCH, e->line, e->col,
                         "%s must be a non-negative integer constant", what);
        return 0;
    }
    const vec *v = x->u.constant;
    int64_t n;
    switch (v->type.id) {
    case TYPE_TINYINT: n = VEC_DATA(v, int8_t)[0]; break;
    case TYPE_SMALLINT: n = VEC_DATA(v, int16_t)[0]; break;
    case TYPE_INTEGER: n = VEC_DATA(v, int32_t)[0]; break;
    default: n = VEC_DATA(v, int64_t)[0]; break;
    }
    if (n < 0) {
        *rc = bind_error(b, SQE_ERR_INVALID_ARGUMENTS, e->line, e->col,
                         "%s must be greater than or equal to 0 (actual: %lld)", what, (long long)n);
        return 0;
    }
    return n;
}

int bind_limit_offset(binder *b, const sql_query *q, plan **p);

int bind_limit_offset(binder *b, const sql_query *q, plan **p) {
    if (!q->limit && !q->offset) return SQE_OK;
    int rc = SQE_OK;
    int64_t limit = -1, offset = 0;
    if (q->limit) limit = limit_value(b, q->limit, q->fetch_first ? "FETCH FIRST count" : "LIMIT", &rc);
    SQE_TRY(rc);
    if (q->offset) offset = limit_value(b, q->offset, "OFFSET", &rc);
    SQE_TRY(rc);
    plan *input = *p;
    if (q->with_ties) {
        /* FETCH FIRST n ROWS WITH TIES = rows whose rank in the ORDER BY is <= n */
        if (input->kind != PLAN_SORT)
            return bind_error(b, SQE_ERR_GENERIC_USER_ERROR, q->limit->line, q->limit->col,
                              "FETCH FIRST WITH TIES clause requires ORDER BY");
        if (offset)
            return bind_error(b, SQE_ERR_NOT_SUPPORTED, q->offset->line, q->offset->col,
                              "OFFSET with FETCH FIRST ... WITH TIES is not supported");
        func_resolved res;
        SQE_TRY(func_resolve_window(b->pctx->arena, "rank", NULL, 0, &res, b->err));
        plan *child = input->children[0];
        plan *w = plan_new(b->pctx, PLAN_WINDOW, 1, child->n_out + 1);
        plan_window_func *f = ARENA_NEW(b->pctx->arena, plan_window_func);
        BIND_CHECK(b, w && f);
        f->win = res.window;
        f->order = input->u.sort.keys;
        f->n_order = input->u.sort.n_keys;
        f->frame_unit = FRAME_RANGE;
        f->start_bound = BOUND_UNBOUNDED_PRECEDING;
        f->end_bound = BOUND_CURRENT_ROW;
        f->out = plan_new_col(b->pctx);
        f->type = res.ret;
        f->name = "rank";
        w->children[0] = child;
        memcpy(w->out, child->out, child->n_out * sizeof(plan_col));
        w->out[child->n_out].id = f->out;
        w->out[child->n_out].type = f->type;
        w->u.window.funcs = f;
        w->u.window.n_funcs = 1;
        bexpr *rk = bexpr_column(b->pctx, f->out, f->type);
        bexpr *lim = bexpr_const_int64(b->pctx, type_make(TYPE_BIGINT), limit);
        BIND_CHECK(b, rk && lim);
        bexpr *le;
        SQE_TRY(bind_comparison(b, SQL_OP_LE, rk, lim, q->limit->line, q->limit->col, &le));
        plan *flt = bind_make_filter(b, w, le);
        BIND_CHECK(b, flt);
        input->children[0] = flt;
        memcpy(input->out, child->out, child->n_out * sizeof(plan_col)); /* sort keeps child's columns */
        input->n_out = child->n_out;
        return SQE_OK;
    }
    if (input->kind == PLAN_SORT && limit >= 0) {
        input->kind = PLAN_TOPN;
        input->u.sort.limit = limit;
        input->u.sort.offset = offset;
        return SQE_OK;
    }
    plan *l = plan_new(b->pctx, PLAN_LIMIT, 1, input->n_out);
    BIND_CHECK(b, l);
    l->children[0] = input;
    memcpy(l->out, input->out, input->n_out * sizeof(plan_col));
    l->u.limit.limit = limit;
    l->u.limit.offset = offset;
    *p = l;
    return SQE_OK;
}

/* --- the SELECT block ------------------------------------------------------------------------ */

static int bind_where(binder *b, bind_scope *s, const sql_expr *where, plan **p) {
    bexpr *cond;
    b->clause = "WHERE clause";
    SQE_TRY(bind_bool_expr(b, s, where, "WHERE clause", &cond));
    bexpr_list conj = {0};
    SQE_TRY(bexpr_split_and(b->pctx, cond, &conj));
    bexpr_list plain = {0};
    for (uint32_t i = 0; i < conj.n; i++) {
        bexpr *c = conj.items[i];
        if (bexpr_has_subquery(c)) {
            SQE_TRY(bind_plan_subqueries(b, p, &c, true));
            if (!c) continue;
        }
        SQE_TRY(bexpr_list_push(b->pctx, &plain, c));
    }
    if (plain.n) {
        *p = bind_make_filter(b, *p, bexpr_make_and(b->pctx, plain.items, plain.n));
        BIND_CHECK(b, *p);
    }
    return SQE_OK;
}

static bool select_has_aggregates(const sql_query *q) {
    const sql_select *sel = &q->u.select;
    if (sel->group_by || sel->having) return true;
    for (int i = 0; i < sel->n_items; i++)
        if (sel->items[i].kind == SQL_SELECT_EXPR && bind_contains_aggregate(sel->items[i].expr))
            return true;
    for (int i = 0; i < q->order_by.n; i++)
        if (bind_contains_aggregate(q->order_by.items[i].expr)) return true;
    return false;
}

static int build_aggregate(binder *b, bind_agg_ctx *agg, const group_builder *g, bool explicit_sets,
                           plan **p) {
    plan *input = *p;
    uint32_t n_out = agg->n_groups + agg->n_aggs + (explicit_sets ? 1 : 0);
    plan *a = plan_new(b->pctx, PLAN_AGGREGATE, 1, n_out);
    BIND_CHECK(b, a);
    a->children[0] = input;
    a->u.agg.groups = agg->groups;
    a->u.agg.n_groups = agg->n_groups;
    a->u.agg.aggs = agg->aggs;
    a->u.agg.n_aggs = agg->n_aggs;
    for (uint32_t i = 0; i < agg->n_groups; i++) {
        a->out[i].id = agg->group_cols[i];
        a->out[i].type = agg->groups[i]->type;
        if (agg->groups[i]->kind == BEXPR_COLUMN) {
            int idx = plan_find_col(input, agg->groups[i]->u.col);
            if (idx >= 0) a->out[i].name = input->out[idx].name;
        }
    }
    for (uint32_t i = 0; i < agg->n_aggs; i++) {
        a->out[agg->n_groups + i].id = agg->aggs[i].out;
        a->out[agg->n_groups + i].type = agg->aggs[i].type;
        a->out[agg->n_groups + i].name = agg->aggs[i].name;
    }
    if (explicit_sets) {
        a->u.agg.sets = g->sets;
        a->u.agg.n_sets = g->n_sets;
        a->u.agg.grouping_id = agg->grouping_id;
        a->out[n_out - 1].id = agg->grouping_id;
        a->out[n_out - 1].type = type_make(TYPE_BIGINT);
        a->out[n_out - 1].name = "$grouping_id";
    }
    *p = a;
    return SQE_OK;
}

/* Subqueries inside the expressions an aggregation evaluates on its input rows (arguments,
 * FILTER, ORDER BY, grouping expressions) become joins below it (bind_subquery.c). */
static int plan_aggregate_input_subqueries(binder *b, bind_agg_ctx *agg, plan **p) {
    for (uint32_t i = 0; i < agg->n_groups; i++)
        if (bexpr_has_subquery(agg->groups[i])) SQE_TRY(bind_plan_subqueries(b, p, &agg->groups[i], false));
    for (uint32_t a = 0; a < agg->n_aggs; a++) {
        plan_agg *g = &agg->aggs[a];
        for (uint32_t i = 0; i < g->n_args; i++)
            if (bexpr_has_subquery(g->args[i])) SQE_TRY(bind_plan_subqueries(b, p, &g->args[i], false));
        if (g->filter && bexpr_has_subquery(g->filter)) SQE_TRY(bind_plan_subqueries(b, p, &g->filter, false));
        for (uint32_t i = 0; i < g->n_order; i++)
            if (bexpr_has_subquery(g->order[i].expr))
                SQE_TRY(bind_plan_subqueries(b, p, &g->order[i].expr, false));
    }
    return SQE_OK;
}

/* The same for window functions: they are evaluated on the rows below the window node. */
static int plan_window_subqueries(binder *b, bind_win_ctx *win, plan **p) {
    for (uint32_t f = 0; f < win->n_funcs; f++) {
        plan_window_func *w = &win->funcs[f];
        bexpr **slots[] = {w->filter ? &w->filter : NULL, w->start_offset ? &w->start_offset : NULL,
                           w->end_offset ? &w->end_offset : NULL};
        for (uint32_t i = 0; i < w->n_args; i++)
            if (bexpr_has_subquery(w->args[i])) SQE_TRY(bind_plan_subqueries(b, p, &w->args[i], false));
        for (uint32_t i = 0; i < w->n_partition; i++)
            if (bexpr_has_subquery(w->partition[i])) SQE_TRY(bind_plan_subqueries(b, p, &w->partition[i], false));
        for (uint32_t i = 0; i < w->n_order; i++)
            if (bexpr_has_subquery(w->order[i].expr)) SQE_TRY(bind_plan_subqueries(b, p, &w->order[i].expr, false));
        for (size_t i = 0; i < sizeof slots / sizeof slots[0]; i++)
            if (slots[i] && bexpr_has_subquery(*slots[i])) SQE_TRY(bind_plan_subqueries(b, p, slots[i], false));
    }
    return SQE_OK;
}

int bind_select(binder *b, bind_scope *outer, const sql_query *q, plan **out, const char ***names_out) {
    const sql_select *sel = &q->u.select;
    bind_scope s;
    memset(&s, 0, sizeof s);
    s.parent = outer;
    plan *p = NULL;
    b->agg = NULL;
    b->win = NULL;
    b->clause = "FROM clause";
    if (sel->n_from == 0) {
        p = plan_new(b->pctx, PLAN_VALUES, 0, 0);
        BIND_CHECK(b, p);
        p->u.values.n_rows = 1;
        p->est_rows = 1;
    }
    if (sel->n_from > 0) {
        /* A comma list is a chain of cross joins (so LATERAL and UNNEST items see the items
         * to their left). */
        const sql_relation *rel = sel->from[0];
        for (int i = 1; i < sel->n_from; i++) {
            sql_relation *j = ARENA_NEW(b->pctx->arena, sql_relation);
            BIND_CHECK(b, j);
            j->kind = SQL_REL_JOIN;
            j->line = sel->from[i]->line;
            j->col = sel->from[i]->col;
            j->u.join.type = SQL_JOIN_CROSS;
            j->u.join.left = (sql_relation *)rel;
            j->u.join.right = sel->from[i];
            rel = j;
        }
        SQE_TRY(bind_from(b, outer, rel, &p, &s));
    }
    if (sel->where) SQE_TRY(bind_where(b, &s, sel->where, &p));

    /* Aggregation context. */
    bool aggregating = select_has_aggregates(q);
    bind_agg_ctx agg;
    memset(&agg, 0, sizeof agg);
    agg.from_scope = &s;
    group_builder g;
    memset(&g, 0, sizeof g);
    bool explicit_sets = false;
    if (sel->group_by) {
        b->clause = "GROUP BY clause";
        SQE_TRY(bind_group_by(b, &s, sel, &g, &explicit_sets));
    }
    if (aggregating) {
        agg.groups = g.exprs;
        agg.n_groups = g.n;
        agg.group_cols = ARENA_ARRAY(b->pctx->arena, plan_col_id, g.n + 1);
        BIND_CHECK(b, agg.group_cols);
        for (uint32_t i = 0; i < g.n; i++) agg.group_cols[i] = plan_new_col(b->pctx);
        if (explicit_sets) {
            agg.has_sets = true;
            agg.grouping_id = plan_new_col(b->pctx);
        }
    }
    bind_win_ctx win;
    memset(&win, 0, sizeof win);
    win.defs = sel->windows;
    win.n_defs = sel->n_windows;

    /* Select list. */
    select_list l;
    memset(&l, 0, sizeof l);
    b->agg = aggregating ? &agg : NULL;
    b->win = &win;
    b->clause = "SELECT list";
    for (int i = 0; i < sel->n_items; i++) {
        const sql_select_item *it = &sel->items[i];
        if (it->kind == SQL_SELECT_STAR) {
            SQE_TRY(expand_star(b, &s, it, &l));
            continue;
        }
        bexpr *e;
        SQE_TRY(bind_expr(b, &s, it->expr, &e));
        const char *nm = it->alias ? it->alias->name : derived_name(it->expr);
        SQE_TRY(list_push(b, &l, e, nm, it->line, it->col));
    }
    uint32_t n_visible = l.n;

    /* HAVING. */
    bexpr *having = NULL;
    if (sel->having) {
        b->win = NULL;
        b->clause = "HAVING clause";
        SQE_TRY(bind_bool_expr(b, &s, sel->having, "HAVING clause", &having));
        b->win = &win;
    }

    /* ORDER BY: targets in the select list, or extra hidden expressions. */
    int *order_pos = ARENA_ARRAY(b->pctx->arena, int, q->order_by.n + 1);
    BIND_CHECK(b, order_pos);
    b->clause = "ORDER BY clause";
    for (int i = 0; i < q->order_by.n; i++) {
        const sql_order_item *it = &q->order_by.items[i];
        SQE_TRY(order_target(b, it, &l, &order_pos[i]));
        if (order_pos[i] >= 0) continue;
        bexpr *e;
        SQE_TRY(bind_expr(b, &s, it->expr, &e));
        int found = -1;
        for (uint32_t k = 0; k < l.n && found < 0; k++)
            if (bexpr_equal(l.exprs[k], e)) found = (int)k;
        if (found < 0) {
            if (sel->distinct)
                return bind_error(b, SQE_ERR_EXPRESSION_NOT_IN_DISTINCT, it->line, it->col,
                                  "For SELECT DISTINCT, ORDER BY expressions must appear in select "
                                  "list");
            SQE_TRY(list_push(b, &l, e, NULL, it->line, it->col));
            found = (int)l.n - 1;
        }
        order_pos[i] = found;
    }
    b->agg = NULL;
    b->win = NULL;

    /* Aggregate, HAVING, then rewrite everything above the aggregation. */
    if (aggregating) {
        SQE_TRY(plan_aggregate_input_subqueries(b, &agg, &p));
        SQE_TRY(build_aggregate(b, &agg, &g, explicit_sets, &p));
        post_agg pa = {b, &s, &agg, "SELECT"};
        for (uint32_t i = 0; i < l.n; i++) SQE_TRY(rewrite_post_agg(&pa, &l.exprs[i]));
        if (having) SQE_TRY(rewrite_post_agg(&pa, &having));
        for (uint32_t f = 0; f < win.n_funcs; f++) {
            plan_window_func *wf = &win.funcs[f];
            for (uint32_t k = 0; k < wf->n_args; k++) SQE_TRY(rewrite_post_agg(&pa, &wf->args[k]));
            for (uint32_t k = 0; k < wf->n_partition; k++) SQE_TRY(rewrite_post_agg(&pa, &wf->partition[k]));
            for (uint32_t k = 0; k < wf->n_order; k++) SQE_TRY(rewrite_post_agg(&pa, &wf->order[k].expr));
            if (wf->filter) SQE_TRY(rewrite_post_agg(&pa, &wf->filter));
        }
    }
    if (having) {
        bexpr_list conj = {0};
        SQE_TRY(bexpr_split_and(b->pctx, having, &conj));
        bexpr_list plain = {0};
        for (uint32_t i = 0; i < conj.n; i++) {
            bexpr *c = conj.items[i];
            if (bexpr_has_subquery(c)) {
                SQE_TRY(bind_plan_subqueries(b, &p, &c, true));
                if (!c) continue;
            }
            SQE_TRY(bexpr_list_push(b->pctx, &plain, c));
        }
        if (plain.n) {
            p = bind_make_filter(b, p, bexpr_make_and(b->pctx, plain.items, plain.n));
            BIND_CHECK(b, p);
        }
    }

    /* Window functions. */
    if (win.n_funcs) {
        SQE_TRY(plan_window_subqueries(b, &win, &p));
        plan *w = plan_new(b->pctx, PLAN_WINDOW, 1, p->n_out + win.n_funcs);
        BIND_CHECK(b, w);
        w->children[0] = p;
        memcpy(w->out, p->out, p->n_out * sizeof(plan_col));
        for (uint32_t f = 0; f < win.n_funcs; f++) {
            w->out[p->n_out + f].id = win.funcs[f].out;
            w->out[p->n_out + f].type = win.funcs[f].type;
            w->out[p->n_out + f].name = win.funcs[f].name;
        }
        w->u.window.funcs = win.funcs;
        w->u.window.n_funcs = win.n_funcs;
        p = w;
    }

    /* Subqueries in the select list become joins below the projection. */
    for (uint32_t i = 0; i < l.n; i++)
        if (bexpr_has_subquery(l.exprs[i])) SQE_TRY(bind_plan_subqueries(b, &p, &l.exprs[i], false));

    p = bind_make_project(b, p, l.exprs, l.names, l.n);
    BIND_CHECK(b, p);
    if (sel->distinct) {
        plan *d = plan_new(b->pctx, PLAN_DISTINCT, 1, p->n_out);
        BIND_CHECK(b, d);
        d->children[0] = p;
        memcpy(d->out, p->out, p->n_out * sizeof(plan_col));
        p = d;
    }
    if (q->order_by.n) {
        plan *so = plan_new(b->pctx, PLAN_SORT, 1, p->n_out);
        BIND_CHECK(b, so);
        so->children[0] = p;
        memcpy(so->out, p->out, p->n_out * sizeof(plan_col));
        so->u.sort.keys = ARENA_ARRAY(b->pctx->arena, plan_sort_key, q->order_by.n);
        BIND_CHECK(b, so->u.sort.keys);
        so->u.sort.n_keys = (uint32_t)q->order_by.n;
        for (int i = 0; i < q->order_by.n; i++) {
            const plan_col *c = &p->out[order_pos[i]];
            if (!type_is_orderable(c->type)) {
                char t[128];
                type_format(c->type, t, sizeof t);
                return bind_error(b, SQE_ERR_TYPE_MISMATCH, q->order_by.items[i].line,
                                  q->order_by.items[i].col,
                                  "Type %s is not orderable, and therefore cannot be used in ORDER BY", t);
            }
            so->u.sort.keys[i].expr = bexpr_column(b->pctx, c->id, c->type);
            BIND_CHECK(b, so->u.sort.keys[i].expr);
            so->u.sort.keys[i].desc = q->order_by.items[i].desc;
            so->u.sort.keys[i].nulls_first = q->order_by.items[i].nulls == SQL_NULLS_FIRST;
        }
        so->u.sort.limit = -1;
        p = so;
    }
    SQE_TRY(bind_limit_offset(b, q, &p));
    if (l.n > n_visible) {
        bexpr **keep = ARENA_ARRAY(b->pctx->arena, bexpr *, n_visible + 1);
        BIND_CHECK(b, keep);
        for (uint32_t i = 0; i < n_visible; i++) keep[i] = bexpr_column(b->pctx, p->out[i].id, p->out[i].type);
        p = bind_make_project(b, p, keep, l.names, n_visible);
        BIND_CHECK(b, p);
    }
    if (b->pctx->failed) return bind_nomem(b);
    *out = p;
    *names_out = l.names;
    return SQE_OK;
}
