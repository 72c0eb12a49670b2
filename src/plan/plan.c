/*
 * plan.c: construction and inspection helpers for bound expressions and plan nodes (plan.h).
 *
 * INTERFACE: plan_ctx_init/destroy/add_table, plan_new_col, plan_new, bexpr_new, bexpr_column,
 *   bexpr_const_*, plan_const_vec, bexpr_copy, bexpr_uses_col, bexpr_visit_cols,
 *   bexpr_bound_by, bexpr_is_const, bexpr_is_volatile, plan_find_col, bexpr_list_push,
 *   bexpr_split_and, bexpr_make_and.
 * NOTES: allocation failures set ctx->failed and return NULL; callers check once per statement
 * (bind and optimize return OUT_OF_MEMORY when ctx->failed is set).
 */
#include "plan/plan.h"

#include "common/clock.h"
#include "common/hash.h"

#include <stdlib.h>
#include <string.h>

void plan_ctx_init(plan_ctx *ctx, arena *a, mem_tracker *tracker, plan_fold_const_fn fold_const) {
    memset(ctx, 0, sizeof *ctx);
    ctx->arena = a;
    ctx->fold_const = fold_const;
    ctx->tracker = tracker;
    ctx->next_col = 1;
}

int plan_check_cancel(const plan_ctx *ctx, sqe_error *err) {
    if (ctx->cancel && __atomic_load_n(ctx->cancel, __ATOMIC_RELAXED))
        return err_set(err, SQE_ERR_USER_CANCELED, "Query was canceled");
    if (clock_deadline_passed(ctx->deadline_ns))
        return err_set(err, SQE_ERR_EXCEEDED_TIME_LIMIT,
                       "Query exceeded the maximum execution time limit of %u ms",
                       ctx->time_limit_ms);
    return SQE_OK;
}

void plan_ctx_destroy(plan_ctx *ctx) {
    for (uint32_t i = 0; i < ctx->n_constants; i++) {
        vec_destroy(ctx->constants[i]);
        free(ctx->constants[i]);
    }
    free(ctx->constants);
    for (uint32_t i = 0; i < ctx->n_tables; i++) cat_table_unref(ctx->tables[i]);
    free(ctx->tables);
    for (uint32_t i = 0; i < ctx->n_sources; i++)
        if (ctx->sources[i]->destroy) ctx->sources[i]->destroy(ctx->sources[i]->state);
    free(ctx->sources);
    ctx->sources = NULL;
    ctx->n_sources = 0;
    ctx->constants = NULL;
    ctx->tables = NULL;
    ctx->n_constants = ctx->n_tables = 0;
}

static int grow_ptrs(void ***arr, uint32_t *cap, uint32_t need) {
    if (need <= *cap) return 0;
    uint32_t n = *cap ? *cap * 2 : 16;
    while (n < need) n *= 2;
    void **p = realloc(*arr, n * sizeof(void *));
    if (!p) return -1;
    *arr = p;
    *cap = n;
    return 0;
}

int plan_ctx_add_table(plan_ctx *ctx, cat_table *t, sqe_error *err) {
    if (grow_ptrs((void ***)&ctx->tables, &ctx->cap_tables, ctx->n_tables + 1))
        return err_nomem(err, "table list");
    cat_table_ref(t);
    ctx->tables[ctx->n_tables++] = t;
    return SQE_OK;
}

int plan_ctx_add_source(plan_ctx *ctx, plan_source *src, sqe_error *err) {
    if (grow_ptrs((void ***)&ctx->sources, &ctx->cap_sources, ctx->n_sources + 1)) {
        if (src->destroy) src->destroy(src->state);
        return err_nomem(err, "source list");
    }
    ctx->sources[ctx->n_sources++] = src;
    return SQE_OK;
}

plan_col_id plan_new_col(plan_ctx *ctx) { return ctx->next_col++; }

plan *plan_new(plan_ctx *ctx, plan_kind kind, uint32_t n_children, uint32_t n_out) {
    plan *p = ARENA_NEW(ctx->arena, plan);
    if (!p) goto out_fail;
    p->kind = (uint8_t)kind;
    p->est_rows = -1;
    if (n_children) {
        p->children = ARENA_ARRAY(ctx->arena, plan *, n_children);
        if (!p->children) goto out_fail;
    }
    p->n_children = n_children;
    /* always allocated (at least one entry), so copying zero columns never sees NULL */
    p->out = ARENA_ARRAY(ctx->arena, plan_col, n_out ? n_out : 1);
    if (!p->out) goto out_fail;
    p->n_out = n_out;
    return p;
out_fail:
    ctx->failed = 1;
    return NULL;
}

bexpr *bexpr_new(plan_ctx *ctx, bexpr_kind kind, sqe_type type, uint32_t n_args) {
    bexpr *e = ARENA_NEW(ctx->arena, bexpr);
    if (!e) goto out_fail;
    e->kind = (uint8_t)kind;
    e->type = type;
    if (n_args) {
        e->args = ARENA_ARRAY(ctx->arena, bexpr *, n_args);
        if (!e->args) goto out_fail;
    }
    e->n_args = n_args;
    return e;
out_fail:
    ctx->failed = 1;
    return NULL;
}

bexpr *bexpr_column(plan_ctx *ctx, plan_col_id id, sqe_type type) {
    bexpr *e = bexpr_new(ctx, BEXPR_COLUMN, type, 0);
    if (e) e->u.col = id;
    return e;
}

vec *plan_const_vec(plan_ctx *ctx, sqe_type type) {
    if (grow_ptrs((void ***)&ctx->constants, &ctx->cap_constants, ctx->n_constants + 1))
        goto out_fail;
    vec *v = calloc(1, sizeof *v);
    if (!v) goto out_fail;
    if (vec_init(v, type, 1, NULL, NULL) != SQE_OK) {
        vec_destroy(v);
        free(v);
        goto out_fail;
    }
    v->shape = VEC_CONST;
    ctx->constants[ctx->n_constants++] = v;
    return v;
out_fail:
    ctx->failed = 1;
    return NULL;
}

static bexpr *const_expr(plan_ctx *ctx, sqe_type type, vec **v) {
    *v = plan_const_vec(ctx, type);
    if (!*v) return NULL;
    bexpr *e = bexpr_new(ctx, BEXPR_CONST, type, 0);
    if (e) e->u.constant = *v;
    return e;
}

bexpr *bexpr_const_null(plan_ctx *ctx, sqe_type type) {
    vec *v;
    bexpr *e = const_expr(ctx, type, &v);
    if (e && vec_set_null(v, 0) != SQE_OK) ctx->failed = 1;
    return e;
}

bexpr *bexpr_const_from(plan_ctx *ctx, const vec *value, uint32_t row) {
    vec *v;
    bexpr *e = const_expr(ctx, value->type, &v);
    if (!e) return NULL;
    if (vec_copy_row(v, 0, value, row, NULL) != SQE_OK) ctx->failed = 1;
    v->shape = VEC_CONST;
    return e;
}

bexpr *bexpr_const_bool(plan_ctx *ctx, bool b) {
    vec *v;
    bexpr *e = const_expr(ctx, type_make(TYPE_BOOLEAN), &v);
    if (e) VEC_DATA(v, uint8_t)[0] = b;
    return e;
}

bexpr *bexpr_const_int64(plan_ctx *ctx, sqe_type type, int64_t x) {
    vec *v;
    bexpr *e = const_expr(ctx, type, &v);
    if (!e) return NULL;
    switch (type.id) {
    case TYPE_TINYINT: VEC_DATA(v, int8_t)[0] = (int8_t)x; break;
    case TYPE_SMALLINT: VEC_DATA(v, int16_t)[0] = (int16_t)x; break;
    case TYPE_INTEGER:
    case TYPE_DATE:
    case TYPE_INTERVAL_YM: VEC_DATA(v, int32_t)[0] = (int32_t)x; break;
    case TYPE_DECIMAL:
        if (type_decimal_is_long(type))
            VEC_DATA(v, int128)[0] = x;
        else
            VEC_DATA(v, int64_t)[0] = x;
        break;
    default: VEC_DATA(v, int64_t)[0] = x; break;
    }
    return e;
}

bexpr *bexpr_const_double(plan_ctx *ctx, double d) {
    vec *v;
    bexpr *e = const_expr(ctx, type_make(TYPE_DOUBLE), &v);
    if (e) VEC_DATA(v, double)[0] = d;
    return e;
}

bexpr *bexpr_const_str(plan_ctx *ctx, sqe_type type, const char *s, size_t len) {
    vec *v;
    bexpr *e = const_expr(ctx, type, &v);
    if (!e) return NULL;
    bool ok = true;
    VEC_DATA(v, sqe_str)[0] = vec_str_copy(v, s, (uint32_t)len, &ok);
    if (!ok) ctx->failed = 1;
    return e;
}

bexpr *bexpr_const_str_array(plan_ctx *ctx, const char *const *items, uint32_t n) {
    sqe_type elem = type_varchar(0);
    vec *v;
    bexpr *e = const_expr(ctx, type_array(elem), &v);
    if (!e) return NULL;
    if (!v->n_children || (n && vec_reserve(&v->children[0], n, NULL) != SQE_OK)) {
        ctx->failed = 1;
        return NULL;
    }
    vec *elems = &v->children[0];
    for (uint32_t i = 0; i < n; i++) {
        bool ok = true;
        VEC_DATA(elems, sqe_str)[i] = vec_str_copy(elems, items[i], (uint32_t)strlen(items[i]), &ok);
        if (!ok) ctx->failed = 1;
    }
    elems->shape = VEC_FLAT;
    v->child_len = n;
    VEC_DATA(v, sqe_list_entry)[0] = (sqe_list_entry){0, n};
    return e;
}

bexpr *bexpr_copy(plan_ctx *ctx, const bexpr *e) {
    if (!e) return NULL;
    bexpr *c = ARENA_NEW(ctx->arena, bexpr);
    if (!c) {
        ctx->failed = 1;
        return NULL;
    }
    *c = *e;
    if (e->n_args) {
        c->args = ARENA_ARRAY(ctx->arena, bexpr *, e->n_args);
        if (!c->args) {
            ctx->failed = 1;
            return NULL;
        }
        for (uint32_t i = 0; i < e->n_args; i++) c->args[i] = bexpr_copy(ctx, e->args[i]);
    }
    return c;
}

void bexpr_visit_cols(const bexpr *e, void (*cb)(void *ud, plan_col_id id), void *ud) {
    if (!e) return;
    if (e->kind == BEXPR_COLUMN) cb(ud, e->u.col);
    for (uint32_t i = 0; i < e->n_args; i++) bexpr_visit_cols(e->args[i], cb, ud);
}

typedef struct uses_state {
    plan_col_id id;
    bool found;
} uses_state;

static void uses_cb(void *ud, plan_col_id id) {
    uses_state *s = ud;
    if (id == s->id) s->found = true;
}

bool bexpr_uses_col(const bexpr *e, plan_col_id id) {
    uses_state s = {id, false};
    bexpr_visit_cols(e, uses_cb, &s);
    return s.found;
}

int plan_find_col(const plan *p, plan_col_id id) {
    for (uint32_t i = 0; i < p->n_out; i++)
        if (p->out[i].id == id) return (int)i;
    return -1;
}

typedef struct bound_state {
    const plan *p;
    const bexpr *lambda_scope; /* unused: lambda params are ids too */
    bool ok;
} bound_state;

static bool is_lambda_param(const bexpr *root, plan_col_id id) {
    if (!root) return false;
    if (root->kind == BEXPR_LAMBDA)
        for (uint32_t i = 0; i < root->u.lambda.n_params; i++)
            if (root->u.lambda.params[i] == id) return true;
    for (uint32_t i = 0; i < root->n_args; i++)
        if (is_lambda_param(root->args[i], id)) return true;
    return false;
}

static bool bound_rec(const bexpr *root, const bexpr *e, const plan *p) {
    if (!e) return true;
    if (e->kind == BEXPR_COLUMN && plan_find_col(p, e->u.col) < 0 && !is_lambda_param(root, e->u.col))
        return false;
    if (e->kind == BEXPR_SUBQUERY) return false;
    for (uint32_t i = 0; i < e->n_args; i++)
        if (!bound_rec(root, e->args[i], p)) return false;
    return true;
}

bool bexpr_bound_by(const bexpr *e, const plan *p) { return bound_rec(e, e, p); }

bool bexpr_is_volatile(const bexpr *e) {
    if (!e) return false;
    if (e->kind == BEXPR_CALL && e->u.call.def && (e->u.call.def->flags & FUNC_VOLATILE)) return true;
    if (e->kind == BEXPR_SUBQUERY || e->kind == BEXPR_PARAM) return true;
    for (uint32_t i = 0; i < e->n_args; i++)
        if (bexpr_is_volatile(e->args[i])) return true;
    return false;
}

bool bexpr_is_const(const bexpr *e) {
    if (!e) return true;
    switch (e->kind) {
    case BEXPR_COLUMN:
    case BEXPR_PARAM:
    case BEXPR_SUBQUERY:
    case BEXPR_LAMBDA:
    case BEXPR_GROUPING:
        return false;
    case BEXPR_CALL:
        if (e->u.call.def && (e->u.call.def->flags & (FUNC_VOLATILE | FUNC_SESSION))) return false;
        break;
    default:
        break;
    }
    for (uint32_t i = 0; i < e->n_args; i++)
        if (!bexpr_is_const(e->args[i])) return false;
    return true;
}

int bexpr_list_push(plan_ctx *ctx, bexpr_list *l, bexpr *e) {
    if (l->n == l->cap) {
        uint32_t cap = l->cap ? l->cap * 2 : 8;
        bexpr **items = ARENA_ARRAY(ctx->arena, bexpr *, cap);
        if (!items) {
            ctx->failed = 1;
            return SQE_ERR_OUT_OF_MEMORY;
        }
        if (l->n) memcpy(items, l->items, l->n * sizeof(bexpr *));
        l->items = items;
        l->cap = cap;
    }
    l->items[l->n++] = e;
    return SQE_OK;
}

int bexpr_split_and(plan_ctx *ctx, bexpr *e, bexpr_list *out) {
    if (!e) return SQE_OK;
    if (e->kind == BEXPR_AND) {
        for (uint32_t i = 0; i < e->n_args; i++) SQE_TRY(bexpr_split_and(ctx, e->args[i], out));
        return SQE_OK;
    }
    return bexpr_list_push(ctx, out, e);
}

bexpr *bexpr_make_and(plan_ctx *ctx, bexpr **items, uint32_t n) {
    if (n == 0) return NULL;
    if (n == 1) return items[0];
    bexpr *e = bexpr_new(ctx, BEXPR_AND, type_make(TYPE_BOOLEAN), n);
    if (e) memcpy(e->args, items, n * sizeof(bexpr *));
    return e;
}

static void visit_sort_keys(plan_sort_key *keys, uint32_t n, void (*cb)(void *, bexpr **), void *ud) {
    for (uint32_t i = 0; i < n; i++) cb(ud, &keys[i].expr);
}

void plan_for_each_expr(plan *p, void (*cb)(void *ud, bexpr **slot), void *ud) {
    switch (p->kind) {
    case PLAN_SCAN:
        if (p->u.scan.filter) cb(ud, &p->u.scan.filter);
        break;
    case PLAN_TABLE_FUNC:
        if (p->u.tfunc.filter) cb(ud, &p->u.tfunc.filter);
        break;
    case PLAN_VALUES:
        for (uint32_t i = 0; i < p->u.values.n_rows * p->n_out; i++) cb(ud, &p->u.values.cells[i]);
        break;
    case PLAN_FILTER:
        cb(ud, &p->u.filter.cond);
        break;
    case PLAN_PROJECT:
        for (uint32_t i = 0; i < p->n_out; i++) cb(ud, &p->u.project.exprs[i]);
        break;
    case PLAN_AGGREGATE:
        for (uint32_t i = 0; i < p->u.agg.n_groups; i++) cb(ud, &p->u.agg.groups[i]);
        for (uint32_t a = 0; a < p->u.agg.n_aggs; a++) {
            plan_agg *g = &p->u.agg.aggs[a];
            for (uint32_t i = 0; i < g->n_args; i++) cb(ud, &g->args[i]);
            if (g->filter) cb(ud, &g->filter);
            visit_sort_keys(g->order, g->n_order, cb, ud);
        }
        break;
    case PLAN_JOIN:
        for (uint32_t i = 0; i < p->u.join.n_keys; i++) {
            cb(ud, &p->u.join.left_keys[i]);
            cb(ud, &p->u.join.right_keys[i]);
        }
        if (p->u.join.residual) cb(ud, &p->u.join.residual);
        if (p->u.join.mark_cond) cb(ud, &p->u.join.mark_cond);
        break;
    case PLAN_SORT:
    case PLAN_TOPN:
        visit_sort_keys(p->u.sort.keys, p->u.sort.n_keys, cb, ud);
        break;
    case PLAN_WINDOW:
        for (uint32_t f = 0; f < p->u.window.n_funcs; f++) {
            plan_window_func *w = &p->u.window.funcs[f];
            for (uint32_t i = 0; i < w->n_args; i++) cb(ud, &w->args[i]);
            for (uint32_t i = 0; i < w->n_partition; i++) cb(ud, &w->partition[i]);
            visit_sort_keys(w->order, w->n_order, cb, ud);
            if (w->start_offset) cb(ud, &w->start_offset);
            if (w->end_offset) cb(ud, &w->end_offset);
            if (w->filter) cb(ud, &w->filter);
        }
        break;
    case PLAN_UNNEST:
        for (uint32_t i = 0; i < p->u.unnest.n_arrays; i++) cb(ud, &p->u.unnest.arrays[i]);
        break;
    default:
        break;
    }
}

uint64_t bexpr_hash(const bexpr *e) {
    if (!e) return 0;
    uint64_t h = hash_combine(hash_u64(e->kind), hash_u64(((uint64_t)e->type.id << 32) | e->n_args));
    switch (e->kind) {
    case BEXPR_COLUMN:
        h = hash_combine(h, hash_u64(e->u.col));
        break;
    case BEXPR_CONST: {
        const vec *x = e->u.constant;
        if (vec_is_null(x, 0)) break;
        if (type_is_string_view(x->type)) {
            const sqe_str *sv = &VEC_DATA(x, sqe_str)[0];
            h = hash_combine(h, hash_bytes(sqe_str_data(sv), sv->len));
        } else if (!type_is_nested(x->type)) {
            size_t w = type_physical_size(x->type);
            if (w) h = hash_combine(h, hash_bytes(x->data, w));
        }
        break;
    }
    case BEXPR_CALL:
        h = hash_combine(h, hash_u64((uint64_t)(uintptr_t)e->u.call.def));
        break;
    case BEXPR_CAST:
        h = hash_combine(h, hash_u64((uint64_t)(uintptr_t)e->u.cast.fn));
        break;
    case BEXPR_FIELD:
        h = hash_combine(h, hash_u64(e->u.field));
        break;
    case BEXPR_PARAM:
        h = hash_combine(h, hash_u64(e->u.param));
        break;
    default:
        break;
    }
    for (uint32_t i = 0; i < e->n_args; i++) h = hash_combine(h, bexpr_hash(e->args[i]));
    return h;
}

int bexpr_list_dedupe(plan_ctx *ctx, bexpr_list *l) {
    if (l->n < 2) return SQE_OK;
    uint32_t cap = 16;
    while (cap < l->n * 2) cap *= 2;
    uint32_t *slots = ARENA_ARRAY(ctx->arena, uint32_t, cap); /* index + 1, 0 = empty */
    uint64_t *hashes = ARENA_ARRAY(ctx->arena, uint64_t, l->n);
    if (!slots || !hashes) {
        ctx->failed = 1;
        return SQE_ERR_OUT_OF_MEMORY;
    }
    memset(slots, 0, cap * sizeof *slots);
    uint32_t k = 0;
    for (uint32_t i = 0; i < l->n; i++) {
        bexpr *e = l->items[i];
        uint64_t h = bexpr_hash(e);
        uint32_t s = (uint32_t)h & (cap - 1);
        bool dup = false;
        for (; slots[s]; s = (s + 1) & (cap - 1))
            if (hashes[slots[s] - 1] == h && bexpr_equal(l->items[slots[s] - 1], e)) {
                dup = true;
                break;
            }
        if (dup) continue;
        hashes[k] = h;
        l->items[k] = e;
        slots[s] = ++k;
    }
    l->n = k;
    return SQE_OK;
}

bool bexpr_equal(const bexpr *a, const bexpr *c) {
    if (a == c) return true;
    if (!a || !c) return false;
    if (a->kind != c->kind || !type_equal(a->type, c->type) || a->n_args != c->n_args) return false;
    switch (a->kind) {
    case BEXPR_COLUMN:
        if (a->u.col != c->u.col) return false;
        break;
    case BEXPR_CONST: {
        const vec *x = a->u.constant, *y = c->u.constant;
        bool nx = vec_is_null(x, 0), ny = vec_is_null(y, 0);
        if (nx || ny) return nx && ny;
        size_t w = type_physical_size(x->type);
        if (type_is_string_view(x->type)) {
            if (!sqe_str_equal(&VEC_DATA(x, sqe_str)[0], &VEC_DATA(y, sqe_str)[0])) return false;
        } else if (type_is_nested(x->type)) {
            return false;
        } else if (w && memcmp(x->data, y->data, w) != 0) {
            return false;
        }
        break;
    }
    case BEXPR_CALL:
        if (a->u.call.def != c->u.call.def) return false;
        if (a->u.call.def && (a->u.call.def->flags & FUNC_VOLATILE)) return false;
        break;
    case BEXPR_CAST:
        if (a->u.cast.fn != c->u.cast.fn || a->u.cast.try_cast != c->u.cast.try_cast) return false;
        break;
    case BEXPR_CASE:
        if (a->u.case_has_else != c->u.case_has_else) return false;
        break;
    case BEXPR_FIELD:
        if (a->u.field != c->u.field) return false;
        break;
    case BEXPR_PARAM:
        if (a->u.param != c->u.param) return false;
        break;
    case BEXPR_SUBQUERY:
    case BEXPR_LAMBDA:
    case BEXPR_GROUPING:
        return false;
    default:
        break;
    }
    for (uint32_t i = 0; i < a->n_args; i++)
        if (!bexpr_equal(a->args[i], c->args[i])) return false;
    return true;
}
