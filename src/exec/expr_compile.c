/*
 * expr_compile.c: compiles bound expressions (plan.h bexpr) into xnode trees once per query, and
 * creates the per-thread evaluation states.
 *
 * INTERFACE: exec_expr_compile, exec_expr_state_create, exec_expr_state_destroy,
 *   exec_expr_type, exec_expr_is_column, exec_expr_is_const.
 * NOTES: column ids are resolved against the input layout here, so evaluation never searches.
 * Lambda bodies are compiled against the enclosing layout extended by the lambda's parameters
 * (positions parent_n..), and each lambda records the enclosing positions its body reads, which
 * the evaluator gathers for the lambda's element rows. Casts resolve their kernel through
 * func_cast_lookup (NOT_SUPPORTED when none exists); IN lists of >= XSET_MIN constants of an
 * integer or string type become a hash set built here, other IN lists a chain of $eq kernels
 * resolved here. Everything compiled lives in the query arena; nothing needs freeing.
 */
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"
#include "exec/expr_int.h"

#define XSET_MIN 4

typedef struct cscope {
    const exec_layout *base;
    const plan_col_id *extra; /* lambda parameters of the enclosing lambdas, outermost first */
    uint32_t n_extra;
} cscope;

typedef struct cctx {
    exec_query_ctx *q;
    uint32_t n_nodes;
    sqe_error *err;
} cctx;

static int compile(cctx *c, const bexpr *e, const cscope *sc, xnode **out);

static int nomem(cctx *c) { return err_nomem(c->err, "compiled expression"); }

static xnode *new_node(cctx *c, uint8_t kind, const bexpr *e, sqe_type type, uint32_t n_args) {
    xnode *n = ARENA_NEW(c->q->arena, xnode);
    if (!n) return NULL;
    n->kind = kind;
    n->type = type;
    n->src = e;
    n->id = c->n_nodes++;
    n->n_args = n_args;
    if (n_args) {
        n->args = ARENA_ARRAY(c->q->arena, xnode *, n_args);
        if (!n->args) return NULL;
    }
    return n;
}

static bool all_const(const xnode *n) {
    for (uint32_t i = 0; i < n->n_args; i++)
        if (!n->args[i]->is_const) return false;
    return true;
}

static int compile_args(cctx *c, const bexpr *e, const cscope *sc, xnode *n) {
    for (uint32_t i = 0; i < e->n_args; i++) SQE_TRY(compile(c, e->args[i], sc, &n->args[i]));
    return SQE_OK;
}

static char *type_text(sqe_type t, char *buf, size_t cap) {
    type_format(t, buf, cap);
    return buf;
}

static int lookup_col(cctx *c, const cscope *sc, plan_col_id id, uint32_t *pos) {
    for (uint32_t i = sc->n_extra; i-- > 0;)
        if (sc->extra[i] == id) {
            *pos = sc->base->n_cols + i;
            return SQE_OK;
        }
    for (uint32_t i = 0; i < sc->base->n_cols; i++)
        if (sc->base->cols[i].id == id) {
            *pos = i;
            return SQE_OK;
        }
    return err_set(c->err, SQE_ERR_GENERIC_INTERNAL_ERROR,
                   "column #%u is not in the operator's input", id);
}

/* Resolves the $eq kernel for (a, b); when b must be cast first, wraps *b_node in a cast. */
static int resolve_eq(cctx *c, const bexpr *e, sqe_type a, xnode **b_node, func_scalar_fn *fn) {
    sqe_type args[2] = {a, (*b_node)->type};
    func_resolved r;
    memset(&r, 0, sizeof r);
    SQE_TRY(func_resolve_scalar(c->q->arena, "$eq", args, 2, NULL, &r, c->err));
    if (!r.scalar || !r.scalar->fn)
        return err_set(c->err, SQE_ERR_GENERIC_INTERNAL_ERROR, "no $eq kernel");
    char b1[64], b2[64];
    if (r.n_args == 2 && !type_equal(r.arg_types[0], a))
        return err_set(c->err, SQE_ERR_GENERIC_INTERNAL_ERROR,
                       "comparison of %s with %s needs coercion the binder did not insert",
                       type_text(a, b1, sizeof b1), type_text(args[1], b2, sizeof b2));
    if (r.n_args == 2 && !type_equal(r.arg_types[1], args[1])) {
        func_scalar_fn cast = func_cast_lookup(args[1], r.arg_types[1]);
        if (!cast)
            return err_set(c->err, SQE_ERR_NOT_SUPPORTED, "Cannot cast %s to %s",
                           type_text(args[1], b1, sizeof b1),
                           type_text(r.arg_types[1], b2, sizeof b2));
        xnode *cn = new_node(c, XK_CAST, e, r.arg_types[1], 1);
        if (!cn) return nomem(c);
        cn->args[0] = *b_node;
        cn->null_prop = true;
        cn->u.call.fn = cast;
        cn->u.call.name = "cast";
        cn->is_const = (*b_node)->is_const;
        *b_node = cn;
    }
    *fn = r.scalar->fn;
    return SQE_OK;
}

/* --- IN list hash sets ---------------------------------------------------------------------- */

static bool set_int_type(sqe_type t) {
    switch (t.id) {
    case TYPE_TINYINT:
    case TYPE_SMALLINT:
    case TYPE_INTEGER:
    case TYPE_BIGINT:
    case TYPE_DATE:
    case TYPE_TIME:
    case TYPE_TIMESTAMP:
    case TYPE_INTERVAL_DS:
    case TYPE_INTERVAL_YM: return true;
    case TYPE_DECIMAL: return !type_decimal_is_long(t);
    default: return false;
    }
}

static bool set_str_type(sqe_type t) {
    return t.id == TYPE_VARCHAR || t.id == TYPE_VARBINARY;
}

/* Reads integer-like value i of a flat vector as int64. */
static int64_t read_int(const vec *v, uint32_t i) {
    switch (type_physical_size(v->type)) {
    case 1: return ((const int8_t *)v->data)[i];
    case 2: return ((const int16_t *)v->data)[i];
    case 4: return ((const int32_t *)v->data)[i];
    default: return ((const int64_t *)v->data)[i];
    }
}

static int build_set(cctx *c, xnode *n) {
    uint32_t n_vals = n->n_args - 1;
    xset *s = ARENA_NEW(c->q->arena, xset);
    if (!s) return nomem(c);
    s->strings = set_str_type(n->args[0]->type);
    uint32_t cap = 16;
    while (cap < n_vals * 2) cap <<= 1;
    s->mask = cap - 1;
    s->used = ARENA_ARRAY(c->q->arena, uint8_t, cap);
    if (s->strings)
        s->strs = ARENA_ARRAY(c->q->arena, sqe_str, cap);
    else
        s->ints = ARENA_ARRAY(c->q->arena, int64_t, cap);
    if (!s->used || (!s->strs && !s->ints)) return nomem(c);
    for (uint32_t k = 1; k < n->n_args; k++) {
        const vec *cv = n->args[k]->u.constant;
        uint32_t phys = 0;
        const vec *f = cv ? vec_resolve(cv, 0, &phys) : NULL;
        if (!f || !vec_is_valid_flat(f, phys)) {
            s->has_null = true;
            continue;
        }
        if (s->strings) {
            const sqe_str *v = &((const sqe_str *)f->data)[phys];
            uint32_t h = (uint32_t)xset_hash_str(v) & s->mask;
            while (s->used[h] && !sqe_str_equal(&s->strs[h], v)) h = (h + 1) & s->mask;
            s->used[h] = 1;
            s->strs[h] = *v; /* the constant vector lives as long as the plan */
        } else {
            int64_t v = read_int(f, phys);
            uint32_t h = (uint32_t)xset_hash_int(v) & s->mask;
            while (s->used[h] && s->ints[h] != v) h = (h + 1) & s->mask;
            s->used[h] = 1;
            s->ints[h] = v;
        }
    }
    n->kind = XK_IN_SET;
    n->u.set = s;
    return SQE_OK;
}

static int compile_in(cctx *c, const bexpr *e, const cscope *sc, xnode **out) {
    if (e->n_args < 2)
        return err_set(c->err, SQE_ERR_GENERIC_INTERNAL_ERROR, "IN list without values");
    xnode *n = new_node(c, XK_IN_LIST, e, e->type, e->n_args);
    if (!n) return nomem(c);
    SQE_TRY(compile_args(c, e, sc, n));
    sqe_type xt = n->args[0]->type;
    bool consts = e->n_args - 1 >= XSET_MIN && (set_int_type(xt) || set_str_type(xt));
    for (uint32_t k = 1; consts && k < n->n_args; k++)
        consts = n->args[k]->kind == XK_CONST && type_equal(n->args[k]->type, xt);
    n->is_const = all_const(n);
    if (consts) {
        SQE_TRY(build_set(c, n));
        *out = n;
        return SQE_OK;
    }
    n->u.eqs = ARENA_ARRAY(c->q->arena, func_scalar_fn, n->n_args);
    if (!n->u.eqs) return nomem(c);
    for (uint32_t k = 1; k < n->n_args; k++)
        SQE_TRY(resolve_eq(c, e, xt, &n->args[k], &n->u.eqs[k]));
    *out = n;
    return SQE_OK;
}

/* --- Lambdas -------------------------------------------------------------------------------- */

static void collect_captured(const xnode *n, uint32_t parent_n, uint32_t *list, uint32_t *count,
                             uint32_t cap) {
    if (n->kind == XK_COLUMN && n->u.col < parent_n) {
        for (uint32_t i = 0; i < *count; i++)
            if (list[i] == n->u.col) return;
        if (*count < cap) list[(*count)++] = n->u.col;
        return;
    }
    for (uint32_t i = 0; i < n->n_args; i++) collect_captured(n->args[i], parent_n, list, count, cap);
}

static int compile_lambda(cctx *c, const bexpr *e, const cscope *sc, xnode **out) {
    if (e->n_args != 1)
        return err_set(c->err, SQE_ERR_GENERIC_INTERNAL_ERROR, "lambda without a body");
    xnode *n = new_node(c, XK_LAMBDA, e, e->args[0]->type, 1);
    if (!n) return nomem(c);
    uint32_t np = e->u.lambda.n_params;
    n->u.lambda.parent_n = sc->base->n_cols + sc->n_extra;
    n->u.lambda.n_params = np;
    plan_col_id *extra = ARENA_ARRAY(c->q->arena, plan_col_id, sc->n_extra + np + 1);
    if (!extra) return nomem(c);
    if (sc->n_extra) memcpy(extra, sc->extra, sc->n_extra * sizeof *extra);
    if (np) memcpy(extra + sc->n_extra, e->u.lambda.params, np * sizeof *extra);
    cscope inner = {sc->base, extra, sc->n_extra + np};
    SQE_TRY(compile(c, e->args[0], &inner, &n->args[0]));
    uint32_t parent_n = n->u.lambda.parent_n;
    uint32_t *cap = ARENA_ARRAY(c->q->arena, uint32_t, parent_n + 1);
    if (!cap) return nomem(c);
    uint32_t nc = 0;
    collect_captured(n->args[0], parent_n, cap, &nc, parent_n);
    n->u.lambda.captured = cap;
    n->u.lambda.n_captured = nc;
    *out = n;
    return SQE_OK;
}

/* A comparison of fixed-width columns and constants cannot fail and reads only real values, so
 * it may be computed on every row of the input (its fast path) instead of under a selection. */
static bool dense_comparison(const xnode *n) {
    static const char *const cmp[] = {"$eq", "$ne", "$lt", "$le", "$gt", "$ge"};
    bool is_cmp = false;
    for (size_t i = 0; i < sizeof cmp / sizeof cmp[0]; i++)
        if (n->u.call.name && strcmp(n->u.call.name, cmp[i]) == 0) is_cmp = true;
    if (!is_cmp || n->n_args != 2) return false;
    for (uint32_t i = 0; i < 2; i++) {
        const xnode *a = n->args[i];
        if (a->kind != XK_COLUMN && a->kind != XK_CONST) return false;
        if (type_is_string_view(a->type) || type_is_nested(a->type) || a->type.id == TYPE_UNKNOWN ||
            type_physical_size(a->type) == 0)
            return false;
    }
    return true;
}

/* --- Main ----------------------------------------------------------------------------------- */

static void flatten_count(const bexpr *e, uint8_t kind, uint32_t *n) {
    if (e->kind == kind) {
        for (uint32_t i = 0; i < e->n_args; i++) flatten_count(e->args[i], kind, n);
    } else {
        (*n)++;
    }
}

static int flatten_compile(cctx *c, const bexpr *e, uint8_t kind, const cscope *sc, xnode *n,
                           uint32_t *k) {
    if (e->kind == kind) {
        for (uint32_t i = 0; i < e->n_args; i++)
            SQE_TRY(flatten_compile(c, e->args[i], kind, sc, n, k));
        return SQE_OK;
    }
    return compile(c, e, sc, &n->args[(*k)++]);
}

static int need_args(cctx *c, const bexpr *e, uint32_t min, const char *what) {
    if (e->n_args < min)
        return err_set(c->err, SQE_ERR_GENERIC_INTERNAL_ERROR, "%s with %u arguments", what,
                       e->n_args);
    return SQE_OK;
}

static int compile(cctx *c, const bexpr *e, const cscope *sc, xnode **out) {
    if (!e) return err_set(c->err, SQE_ERR_GENERIC_INTERNAL_ERROR, "missing expression");
    if ((c->n_nodes & 1023) == 1023) SQE_TRY(exec_check_cancel(c->q, c->err)); /* huge trees */
    xnode *n = NULL;
    char b1[64], b2[64];
    switch (e->kind) {
    case BEXPR_COLUMN:
        if (!(n = new_node(c, XK_COLUMN, e, e->type, 0))) return nomem(c);
        SQE_TRY(lookup_col(c, sc, e->u.col, &n->u.col));
        break;
    case BEXPR_CONST:
        if (!(n = new_node(c, XK_CONST, e, e->type, 0))) return nomem(c);
        n->u.constant = e->u.constant;
        n->is_const = true;
        break;
    case BEXPR_PARAM:
        if (e->u.param == 0 || e->u.param > c->q->n_params || !c->q->params ||
            !c->q->params[e->u.param - 1])
            return err_set_at(c->err, SQE_ERR_INVALID_PARAMETER_USAGE, e->line, e->col,
                              "No value bound for parameter %u", e->u.param);
        if (!(n = new_node(c, XK_PARAM, e, e->type, 0))) return nomem(c);
        n->u.param = e->u.param - 1;
        n->is_const = true;
        break;
    case BEXPR_CALL: {
        const func_scalar_def *def = e->u.call.def;
        if (!def || !def->fn)
            return err_set(c->err, SQE_ERR_GENERIC_INTERNAL_ERROR, "function %s has no kernel",
                           e->u.call.name ? e->u.call.name : def ? def->name : "?");
        if (!(n = new_node(c, XK_CALL, e, e->type, e->n_args))) return nomem(c);
        n->u.call.fn = def->fn;
        n->u.call.bind_data = e->u.call.bind_data;
        n->u.call.name = e->u.call.name ? e->u.call.name : def->name;
        n->u.call.volatile_ = (def->flags & FUNC_VOLATILE) != 0;
        n->null_prop = (def->flags & FUNC_NULL_PROPAGATES) != 0;
        for (uint32_t i = 0; i < e->n_args; i++) {
            if (e->args[i]->kind == BEXPR_LAMBDA) {
                SQE_TRY(compile_lambda(c, e->args[i], sc, &n->args[i]));
                n->u.call.has_lambda = true;
            } else {
                SQE_TRY(compile(c, e->args[i], sc, &n->args[i]));
            }
        }
        n->is_const = all_const(n) && !n->u.call.volatile_ && !n->u.call.has_lambda;
        n->u.call.dense_ok = dense_comparison(n);
        break;
    }
    case BEXPR_CAST: {
        SQE_TRY(need_args(c, e, 1, "CAST"));
        xnode *arg;
        SQE_TRY(compile(c, e->args[0], sc, &arg));
        sqe_type from = arg->type, to = e->type;
        if (type_equal(from, to)) {
            *out = arg;
            return SQE_OK;
        }
        if (from.id == TYPE_UNKNOWN) {
            if (!(n = new_node(c, XK_CONST, e, to, 0))) return nomem(c);
            n->u.constant = NULL;
            n->is_const = true;
            break;
        }
        func_scalar_fn fn = e->u.cast.fn ? e->u.cast.fn : func_cast_lookup(from, to);
        if (!fn)
            return err_set_at(c->err, SQE_ERR_NOT_SUPPORTED, e->line, e->col,
                              "Cannot cast %s to %s", type_text(from, b1, sizeof b1),
                              type_text(to, b2, sizeof b2));
        if (!(n = new_node(c, XK_CAST, e, to, 1))) return nomem(c);
        n->args[0] = arg;
        n->u.call.fn = fn;
        n->u.call.name = "cast";
        n->u.call.try_cast = e->u.cast.try_cast;
        n->null_prop = true;
        n->is_const = arg->is_const;
        break;
    }
    case BEXPR_AND:
    case BEXPR_OR: {
        SQE_TRY(need_args(c, e, 1, e->kind == BEXPR_AND ? "AND" : "OR"));
        uint32_t cnt = 0;
        flatten_count(e, e->kind, &cnt);
        if (!(n = new_node(c, e->kind == BEXPR_AND ? XK_AND : XK_OR, e, e->type, cnt)))
            return nomem(c);
        uint32_t k = 0;
        SQE_TRY(flatten_compile(c, e, e->kind, sc, n, &k));
        if (cnt == 1) {
            *out = n->args[0];
            return SQE_OK;
        }
        n->is_const = all_const(n);
        break;
    }
    case BEXPR_NOT:
    case BEXPR_IS_NULL:
    case BEXPR_IS_NOT_NULL:
    case BEXPR_TRY:
        SQE_TRY(need_args(c, e, 1, "unary expression"));
        if (!(n = new_node(c,
                           e->kind == BEXPR_NOT       ? XK_NOT
                           : e->kind == BEXPR_IS_NULL ? XK_IS_NULL
                           : e->kind == BEXPR_TRY     ? XK_TRY
                                                      : XK_IS_NOT_NULL,
                           e, e->type, 1)))
            return nomem(c);
        SQE_TRY(compile_args(c, e, sc, n));
        n->n_args = 1;
        n->is_const = all_const(n);
        break;
    case BEXPR_CASE:
    case BEXPR_IF: {
        SQE_TRY(need_args(c, e, 2, "CASE"));
        if (!(n = new_node(c, XK_CASE, e, e->type, e->n_args))) return nomem(c);
        SQE_TRY(compile_args(c, e, sc, n));
        n->u.has_else = e->kind == BEXPR_IF ? e->n_args == 3 : e->u.case_has_else;
        if (n->u.has_else ? e->n_args % 2 == 0 : e->n_args % 2 == 1)
            return err_set(c->err, SQE_ERR_GENERIC_INTERNAL_ERROR, "CASE with %u arguments",
                           e->n_args);
        n->is_const = all_const(n);
        break;
    }
    case BEXPR_COALESCE:
        SQE_TRY(need_args(c, e, 1, "COALESCE"));
        if (!(n = new_node(c, XK_COALESCE, e, e->type, e->n_args))) return nomem(c);
        SQE_TRY(compile_args(c, e, sc, n));
        if (e->n_args == 1) {
            *out = n->args[0];
            return SQE_OK;
        }
        n->is_const = all_const(n);
        break;
    case BEXPR_IN_LIST: return compile_in(c, e, sc, out);
    case BEXPR_NULLIF: {
        SQE_TRY(need_args(c, e, 2, "NULLIF"));
        if (!(n = new_node(c, XK_NULLIF, e, e->type, 2))) return nomem(c);
        SQE_TRY(compile_args(c, e, sc, n));
        if (e->u.call.def && e->u.call.def->fn)
            n->u.call.fn = e->u.call.def->fn;
        else
            SQE_TRY(resolve_eq(c, e, n->args[0]->type, &n->args[1], &n->u.call.fn));
        n->u.call.name = "nullif";
        n->is_const = all_const(n);
        break;
    }
    case BEXPR_ARRAY:
        if (e->type.id != TYPE_ARRAY)
            return err_set(c->err, SQE_ERR_GENERIC_INTERNAL_ERROR, "ARRAY of a non-array type");
        if (!(n = new_node(c, XK_ARRAY, e, e->type, e->n_args))) return nomem(c);
        SQE_TRY(compile_args(c, e, sc, n));
        n->is_const = all_const(n);
        break;
    case BEXPR_ROW:
        if (e->type.id != TYPE_ROW || !e->type.nested || e->type.nested->n_children != e->n_args)
            return err_set(c->err, SQE_ERR_GENERIC_INTERNAL_ERROR, "ROW type mismatch");
        if (!(n = new_node(c, XK_ROW, e, e->type, e->n_args))) return nomem(c);
        SQE_TRY(compile_args(c, e, sc, n));
        n->is_const = all_const(n);
        break;
    case BEXPR_FIELD:
        SQE_TRY(need_args(c, e, 1, "field access"));
        if (!(n = new_node(c, XK_FIELD, e, e->type, 1))) return nomem(c);
        SQE_TRY(compile_args(c, e, sc, n));
        n->n_args = 1;
        if (n->args[0]->type.id != TYPE_ROW || !n->args[0]->type.nested ||
            e->u.field >= n->args[0]->type.nested->n_children)
            return err_set(c->err, SQE_ERR_GENERIC_INTERNAL_ERROR, "field %u of a non-row",
                           e->u.field);
        n->u.field = e->u.field;
        n->is_const = all_const(n);
        break;
    case BEXPR_LAMBDA:
        return err_set(c->err, SQE_ERR_GENERIC_INTERNAL_ERROR,
                       "lambda expression outside a function call reached the executor");
    case BEXPR_SUBQUERY:
        return err_set(c->err, SQE_ERR_GENERIC_INTERNAL_ERROR,
                       "BEXPR_SUBQUERY reached the executor (subqueries must be decorrelated "
                       "into joins by the optimizer)");
    case BEXPR_GROUPING:
        return err_set(c->err, SQE_ERR_GENERIC_INTERNAL_ERROR,
                       "BEXPR_GROUPING reached the executor (GROUPING() is resolved by the "
                       "aggregate planner)");
    default:
        return err_set(c->err, SQE_ERR_GENERIC_INTERNAL_ERROR, "unknown expression kind %u",
                       e->kind);
    }
    *out = n;
    return SQE_OK;
}

int exec_expr_compile(exec_query_ctx *qctx, const bexpr *e, const exec_layout *layout,
                      exec_expr **out, sqe_error *err) {
    exec_layout empty = {NULL, 0};
    cctx c = {qctx, 0, err};
    cscope sc = {layout ? layout : &empty, NULL, 0};
    exec_expr *x = ARENA_NEW(qctx->arena, exec_expr);
    if (!x) return err_nomem(err, "compiled expression");
    SQE_TRY(compile(&c, e, &sc, &x->root));
    x->n_nodes = c.n_nodes;
    x->qctx = qctx;
    *out = x;
    return SQE_OK;
}

sqe_type exec_expr_type(const exec_expr *x) { return x->root->type; }

bool exec_expr_is_column(const exec_expr *x, uint32_t *pos) {
    if (x->root->kind != XK_COLUMN) return false;
    if (pos) *pos = x->root->u.col;
    return true;
}

bool exec_expr_is_const(const exec_expr *x) { return x->root->is_const; }

/* --- States --------------------------------------------------------------------------------- */

int exec_expr_state_create(const exec_expr *x, exec_query_ctx *qctx, exec_expr_state **out,
                           sqe_error *err) {
    exec_expr_state *st = mem_calloc(qctx->tracker, sizeof *st, err);
    if (!st) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
    st->x = x;
    st->qctx = qctx;
    arena_init(&st->scratch, qctx->tracker);
    st->slots = mem_calloc(qctx->tracker, (x->n_nodes ? x->n_nodes : 1) * sizeof(xslot), err);
    if (!st->slots) {
        exec_expr_state_destroy(st);
        return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
    }
    *out = st;
    return SQE_OK;
}

void exec_expr_state_destroy(exec_expr_state *st) {
    if (!st) return;
    mem_tracker *t = st->qctx->tracker;
    if (st->slots) {
        for (uint32_t i = 0; i < st->x->n_nodes; i++) {
            xslot *s = &st->slots[i];
            if (s->v_init) vec_destroy(&s->v);
            if (s->aux_init) vec_destroy(&s->aux);
            mem_free(t, s->sels);
            if (s->lchunk_init) vec_chunk_destroy(&s->lchunk);
            mem_free(t, s->lrows);
        }
        mem_free(t, st->slots);
    }
    mem_free(t, st->marks);
    arena_destroy(&st->scratch);
    mem_free(t, st);
}
