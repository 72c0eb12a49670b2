/*
 * bind_expr.c: expressions: names, operators, function calls (scalar, aggregate, window), special
 * forms, casts and implicit coercions, with Trino's typing rules.
 *
 * INTERFACE: bind_expr, bind_bool_expr, bind_cast, bind_call_scalar, bind_comparison,
 *   bind_common_type, bexpr_equal, bind_contains_aggregate, bind_type_name, bind_cast_to,
 *   bind_scalar_expr.
 * NOTES: operators are registry functions with reserved names ($add, $eq, ...; func.h), so the
 * registry's resolution decides coercions for them exactly as for named functions. Special forms
 * (AND, OR, NOT, CASE, COALESCE, NULLIF, IF, TRY, IN, IS NULL, CAST) become dedicated bexpr
 * kinds the evaluator short-circuits. Subqueries become BEXPR_SUBQUERY nodes that the caller
 * plans into joins (bind_subquery.c).
 */
#include "bind/bind_int.h"
#include "common/stack.h"

#include <stdio.h>
#include <string.h>

static const char *op_function(int op) {
    switch (op) {
    case SQL_OP_ADD: return "$add";
    case SQL_OP_SUB: return "$subtract";
    case SQL_OP_MUL: return "$multiply";
    case SQL_OP_DIV: return "$divide";
    case SQL_OP_MOD: return "$modulus";
    case SQL_OP_CONCAT: return "concat";
    case SQL_OP_EQ: return "$eq";
    case SQL_OP_NE: return "$ne";
    case SQL_OP_LT: return "$lt";
    case SQL_OP_LE: return "$le";
    case SQL_OP_GT: return "$gt";
    case SQL_OP_GE: return "$ge";
    case SQL_OP_IS_DISTINCT:
    case SQL_OP_IS_NOT_DISTINCT: return "$is_distinct_from";
    default: return NULL;
    }
}

static void type_text(sqe_type t, char *buf, size_t len) { type_format(t, buf, len); }

int bind_type_name(binder *b, const sql_type_name *t, sqe_type *out) {
    /* TYPE_MISMATCH as in Trino's analyzer (DDL reports TYPE_NOT_FOUND, engine/ddl.c) */
    if (type_parse(t->text, strlen(t->text), out) != 0)
        return bind_error(b, SQE_ERR_TYPE_MISMATCH, t->line, t->col, "Unknown type: %s", t->text);
    return SQE_OK;
}

int bind_cast(binder *b, bexpr *e, sqe_type to, bool explicit_cast, int line, int col,
              bexpr **out) {
    if (type_equal(e->type, to)) {
        *out = e;
        return SQE_OK;
    }
    bool ok = explicit_cast ? type_can_cast(e->type, to) : type_can_coerce(e->type, to);
    if (!ok) {
        char from_s[128], to_s[128];
        type_text(e->type, from_s, sizeof from_s);
        type_text(to, to_s, sizeof to_s);
        if (explicit_cast)
            return bind_error(b, SQE_ERR_TYPE_MISMATCH, line, col, "Cannot cast %s to %s", from_s,
                              to_s);
        return bind_error(b, SQE_ERR_TYPE_MISMATCH, line, col,
                          "Cannot implicitly coerce %s to %s", from_s, to_s);
    }
    func_scalar_fn fn = func_cast_lookup(e->type, to);
    if (!fn) {
        char from_s[128], to_s[128];
        type_text(e->type, from_s, sizeof from_s);
        type_text(to, to_s, sizeof to_s);
        return bind_error(b, SQE_ERR_TYPE_MISMATCH, line, col, "Cannot cast %s to %s", from_s,
                          to_s);
    }
    bexpr *c = bexpr_new(b->pctx, BEXPR_CAST, to, 1);
    BIND_CHECK(b, c);
    c->args[0] = e;
    c->u.cast.fn = fn;
    c->line = line;
    c->col = col;
    *out = c;
    return SQE_OK;
}

int bind_common_type(binder *b, bexpr **items, uint32_t n, int line, int col, const char *what,
                     sqe_type *out) {
    sqe_type t = type_make(TYPE_UNKNOWN);
    for (uint32_t i = 0; i < n; i++) {
        sqe_type next;
        if (!type_common_super(t, items[i]->type, &next)) {
            char a[128], c[128];
            type_text(t, a, sizeof a);
            type_text(items[i]->type, c, sizeof c);
            return bind_error(b, SQE_ERR_TYPE_MISMATCH, items[i]->line ? items[i]->line : line,
                              items[i]->line ? items[i]->col : col,
                              "All %s values must be the same type or coercible to a common "
                              "type. Cannot find common type between %s and %s",
                              what, a, c);
        }
        t = next;
    }
    *out = t;
    return SQE_OK;
}

/* Context for lambdas inside a call: the AST arguments and what each lambda bound to. */
typedef struct lambda_bind_state {
    binder *b;
    bind_scope *s;
    const sql_expr *const *ast_args;
    bexpr **bound; /* per argument: the bound lambda (BEXPR_LAMBDA) */
} lambda_bind_state;

static int bind_lambda_cb(void *ud, uint32_t arg_idx, const sqe_type *param_types,
                          uint32_t n_params, sqe_type *body_type, sqe_error *err) {
    lambda_bind_state *st = ud;
    binder *b = st->b;
    const sql_expr *ast = st->ast_args[arg_idx];
    if (ast->kind != SQL_EXPR_LAMBDA)
        return bind_error(b, SQE_ERR_TYPE_MISMATCH, ast->line, ast->col,
                          "Expected a lambda expression");
    if ((uint32_t)ast->u.lambda.params.n != n_params)
        return bind_error(b, SQE_ERR_TYPE_MISMATCH, ast->line, ast->col,
                          "Expected a lambda that takes %u argument(s) but got %d", n_params,
                          ast->u.lambda.params.n);
    bind_lambda_scope ls;
    ls.parent = b->lambdas;
    ls.names = ast->u.lambda.params.items;
    ls.n = n_params;
    ls.ids = ARENA_ARRAY(b->pctx->arena, plan_col_id, n_params + 1);
    ls.types = ARENA_ARRAY(b->pctx->arena, sqe_type, n_params + 1);
    BIND_CHECK(b, ls.ids && ls.types);
    for (uint32_t i = 0; i < n_params; i++) {
        ls.ids[i] = plan_new_col(b->pctx);
        ls.types[i] = param_types[i];
    }
    b->lambdas = &ls;
    bexpr *body;
    int rc = bind_expr(b, st->s, ast->u.lambda.body, &body);
    b->lambdas = ls.parent;
    if (rc) return rc;
    bexpr *lam = bexpr_new(b->pctx, BEXPR_LAMBDA, body->type, 1);
    BIND_CHECK(b, lam);
    lam->args[0] = body;
    lam->u.lambda.params = ls.ids;
    lam->u.lambda.n_params = n_params;
    lam->line = ast->line;
    lam->col = ast->col;
    st->bound[arg_idx] = lam;
    *body_type = body->type;
    (void)err;
    return SQE_OK;
}

/* Resolves and builds a scalar call. args may contain NULL entries at lambda positions when
 * lambdas is given. */
static int call_scalar(binder *b, const char *name, bexpr **args, uint32_t n_args,
                       const func_lambda_binder *lambdas, lambda_bind_state *lstate, int line,
                       int col, bexpr **out) {
    sqe_type types[n_args ? n_args : 1];
    for (uint32_t i = 0; i < n_args; i++) types[i] = args[i] ? args[i]->type : type_make(TYPE_UNKNOWN);
    func_resolved res;
    int rc = func_resolve_scalar(b->pctx->arena, name, types, n_args, lambdas, &res, b->err);
    if (rc) {
        if (b->err && b->err->line == 0) {
            b->err->line = line;
            b->err->column = col;
        }
        return rc;
    }
    bexpr *call = bexpr_new(b->pctx, BEXPR_CALL, res.ret, n_args);
    BIND_CHECK(b, call);
    for (uint32_t i = 0; i < n_args; i++) {
        if (!args[i]) {
            call->args[i] = lstate ? lstate->bound[i] : NULL;
            if (!call->args[i])
                return bind_error(b, SQE_ERR_TYPE_MISMATCH, line, col,
                                  "Lambda expression is not allowed here");
            continue;
        }
        SQE_TRY(bind_cast(b, args[i], res.arg_types[i], false, args[i]->line ? args[i]->line : line,
                          args[i]->line ? args[i]->col : col, &call->args[i]));
    }
    call->u.call.def = res.scalar;
    call->u.call.name = res.scalar->name;
    call->line = line;
    call->col = col;
    /* Bind step for constant arguments (e.g. a LIKE pattern or a regex). */
    if (res.scalar->bind_fn) {
        const vec *consts[n_args ? n_args : 1];
        for (uint32_t i = 0; i < n_args; i++)
            consts[i] = call->args[i] && call->args[i]->kind == BEXPR_CONST ? call->args[i]->u.constant
                                                                            : NULL;
        sqe_type cast_types[n_args ? n_args : 1];
        for (uint32_t i = 0; i < n_args; i++) cast_types[i] = call->args[i] ? call->args[i]->type : types[i];
        rc = res.scalar->bind_fn(b->pctx->arena, cast_types, consts, n_args, res.ret,
                                 &call->u.call.bind_data, b->err);
        if (rc) {
            if (b->err && b->err->line == 0) {
                b->err->line = line;
                b->err->column = col;
            }
            return rc;
        }
    }
    *out = call;
    return SQE_OK;
}

int bind_call_scalar(binder *b, const char *name, bexpr **args, uint32_t n_args, int line,
                     int col, bexpr **out) {
    return call_scalar(b, name, args, n_args, NULL, NULL, line, col, out);
}

int bind_comparison(binder *b, int op, bexpr *l, bexpr *r, int line, int col, bexpr **out) {
    sqe_type common;
    if (!type_common_super(l->type, r->type, &common)) {
        char a[128], c[128];
        type_text(l->type, a, sizeof a);
        type_text(r->type, c, sizeof c);
        return bind_error(b, SQE_ERR_TYPE_MISMATCH, line, col,
                          "Cannot apply operator: %s %s %s", a, sql_op_name(op), c);
    }
    bexpr *args[2];
    SQE_TRY(bind_cast(b, l, common, false, line, col, &args[0]));
    SQE_TRY(bind_cast(b, r, common, false, line, col, &args[1]));
    bexpr *call;
    SQE_TRY(call_scalar(b, op_function(op), args, 2, NULL, NULL, line, col, &call));
    if (op == SQL_OP_IS_NOT_DISTINCT) {
        bexpr *n = bexpr_new(b->pctx, BEXPR_NOT, type_make(TYPE_BOOLEAN), 1);
        BIND_CHECK(b, n);
        n->args[0] = call;
        n->line = line;
        n->col = col;
        call = n;
    }
    *out = call;
    return SQE_OK;
}

int bind_bool_expr(binder *b, bind_scope *s, const sql_expr *e, const char *clause, bexpr **out) {
    bexpr *x;
    SQE_TRY(bind_expr(b, s, e, &x));
    if (x->type.id != TYPE_BOOLEAN) {
        if (x->type.id == TYPE_UNKNOWN) return bind_cast(b, x, type_make(TYPE_BOOLEAN), false, e->line, e->col, out);
        char t[128];
        type_text(x->type, t, sizeof t);
        return bind_error(b, SQE_ERR_TYPE_MISMATCH, e->line, e->col,
                          "%s must evaluate to a boolean: actual type %s", clause, t);
    }
    *out = x;
    return SQE_OK;
}

static int to_boolean(binder *b, bexpr *x, const char *what, bexpr **out) {
    if (x->type.id == TYPE_BOOLEAN) {
        *out = x;
        return SQE_OK;
    }
    if (x->type.id == TYPE_UNKNOWN) return bind_cast(b, x, type_make(TYPE_BOOLEAN), false, x->line, x->col, out);
    char t[128];
    type_text(x->type, t, sizeof t);
    return bind_error(b, SQE_ERR_TYPE_MISMATCH, x->line, x->col,
                      "%s must evaluate to a boolean: actual type %s", what, t);
}

static bexpr *make_not(binder *b, bexpr *x) {
    bexpr *n = bexpr_new(b->pctx, BEXPR_NOT, type_make(TYPE_BOOLEAN), 1);
    if (n) {
        n->args[0] = x;
        n->line = x->line;
        n->col = x->col;
    }
    return n;
}

bool bexpr_has_subquery(const bexpr *e) {
    if (!e) return false;
    if (e->kind == BEXPR_SUBQUERY) return true;
    for (uint32_t i = 0; i < e->n_args; i++)
        if (bexpr_has_subquery(e->args[i])) return true;
    return false;
}

static int bind_subquery_expr(binder *b, bind_scope *s, const sql_query *q, uint8_t kind,
                              int line, int col, bexpr **out) {
    plan *sub;
    const char **names;
    bind_scope inner_parent = *s; /* the subquery sees s as its enclosing scope */
    (void)inner_parent;
    bind_agg_ctx *saved_agg = b->agg;
    bind_win_ctx *saved_win = b->win;
    b->agg = NULL;
    b->win = NULL;
    int rc = bind_query_node(b, s, q, &sub, &names);
    b->agg = saved_agg;
    b->win = saved_win;
    if (rc) return rc;
    if (kind == SUBQ_SCALAR && sub->n_out > 1) {
        /* a scalar subquery of several columns is one ROW value (IN / ANY / ALL compare its
         * columns one by one instead, bind_subquery.c) */
        plan *row = plan_new(b->pctx, PLAN_PROJECT, 1, 1);
        BIND_CHECK(b, row);
        sqe_type types[sub->n_out];
        for (uint32_t i = 0; i < sub->n_out; i++) types[i] = sub->out[i].type;
        bexpr *r = bexpr_new(b->pctx, BEXPR_ROW, type_row(sub->n_out, types, names), sub->n_out);
        row->u.project.exprs = ARENA_ARRAY(b->pctx->arena, bexpr *, 1);
        BIND_CHECK(b, r && row->u.project.exprs && r->type.id == TYPE_ROW);
        for (uint32_t i = 0; i < sub->n_out; i++) {
            r->args[i] = bexpr_column(b->pctx, sub->out[i].id, sub->out[i].type);
            BIND_CHECK(b, r->args[i]);
        }
        row->children[0] = sub;
        row->u.project.exprs[0] = r;
        row->out[0].id = plan_new_col(b->pctx);
        row->out[0].type = r->type;
        sub = row;
    }
    sqe_type t = kind == SUBQ_SCALAR ? sub->out[0].type : type_make(TYPE_BOOLEAN);
    bexpr *e = bexpr_new(b->pctx, BEXPR_SUBQUERY, t, 0);
    BIND_CHECK(b, e);
    e->u.subquery.kind = kind;
    e->u.subquery.query = sub;
    e->line = line;
    e->col = col;
    *out = e;
    return SQE_OK;
}

static const char *call_name(const sql_expr *e) {
    const sql_qname *n = &e->u.call.name;
    return n->parts[n->n_parts - 1].name;
}

bool bind_contains_aggregate(const sql_expr *e) {
    if (!e) return false;
    switch (e->kind) {
    case SQL_EXPR_CALL:
        if (!e->u.call.over && !e->u.call.over_name && func_is_aggregate(call_name(e))) return true;
        for (int i = 0; i < e->u.call.args.n; i++)
            if (bind_contains_aggregate(e->u.call.args.items[i])) return true;
        if (e->u.call.over)
            for (int i = 0; i < e->u.call.over->order_by.n; i++)
                if (bind_contains_aggregate(e->u.call.over->order_by.items[i].expr)) return true;
        if (e->u.call.over)
            for (int i = 0; i < e->u.call.over->partition_by.n; i++)
                if (bind_contains_aggregate(e->u.call.over->partition_by.items[i])) return true;
        return false;
    case SQL_EXPR_FIELD: return bind_contains_aggregate(e->u.field.base);
    case SQL_EXPR_UNARY: return bind_contains_aggregate(e->u.unary.arg);
    case SQL_EXPR_BINARY:
    case SQL_EXPR_AT_TIME_ZONE:
    case SQL_EXPR_SUBSCRIPT:
        return bind_contains_aggregate(e->u.binary.left) || bind_contains_aggregate(e->u.binary.right);
    case SQL_EXPR_AND:
    case SQL_EXPR_OR:
    case SQL_EXPR_ARRAY:
    case SQL_EXPR_GROUPING:
        for (int i = 0; i < e->u.list.n; i++)
            if (bind_contains_aggregate(e->u.list.items[i])) return true;
        return e->kind == SQL_EXPR_GROUPING;
    case SQL_EXPR_ROW:
        for (int i = 0; i < e->u.row.items.n; i++)
            if (bind_contains_aggregate(e->u.row.items.items[i])) return true;
        return false;
    case SQL_EXPR_IS_NULL: return bind_contains_aggregate(e->u.is_null.arg);
    case SQL_EXPR_BETWEEN:
        return bind_contains_aggregate(e->u.between.arg) || bind_contains_aggregate(e->u.between.low) ||
               bind_contains_aggregate(e->u.between.high);
    case SQL_EXPR_IN_LIST:
        if (bind_contains_aggregate(e->u.in_list.arg)) return true;
        for (int i = 0; i < e->u.in_list.values.n; i++)
            if (bind_contains_aggregate(e->u.in_list.values.items[i])) return true;
        return false;
    case SQL_EXPR_IN_SUBQUERY: return bind_contains_aggregate(e->u.in_query.arg);
    case SQL_EXPR_QUANTIFIED: return bind_contains_aggregate(e->u.quantified.arg);
    case SQL_EXPR_LIKE:
        return bind_contains_aggregate(e->u.like.arg) || bind_contains_aggregate(e->u.like.pattern);
    case SQL_EXPR_CAST: return bind_contains_aggregate(e->u.cast.arg);
    case SQL_EXPR_CASE:
        if (bind_contains_aggregate(e->u.case_.operand) || bind_contains_aggregate(e->u.case_.else_result))
            return true;
        for (int i = 0; i < e->u.case_.n_whens; i++)
            if (bind_contains_aggregate(e->u.case_.whens[i].cond) ||
                bind_contains_aggregate(e->u.case_.whens[i].result))
                return true;
        return false;
    case SQL_EXPR_EXTRACT: return bind_contains_aggregate(e->u.extract.arg);
    case SQL_EXPR_LAMBDA: return bind_contains_aggregate(e->u.lambda.body);
    default: return false;
    }
}

/* --- aggregates and windows ------------------------------------------------------------- */

static int bind_agg_args(binder *b, const sql_expr *e, bexpr ***args_out, uint32_t *n_out) {
    bind_agg_ctx *agg = b->agg;
    bind_win_ctx *win = b->win;
    const char *win_nest = b->win_nest;
    b->agg = NULL; /* aggregates cannot nest */
    b->win = NULL;
    b->win_nest = arena_sprintf(b->pctx->arena, "aggregation '%s'", call_name(e));
    uint32_t n = (uint32_t)e->u.call.args.n;
    bexpr **args = ARENA_ARRAY(b->pctx->arena, bexpr *, n + 1);
    int rc = args && b->win_nest ? SQE_OK : bind_nomem(b);
    for (uint32_t i = 0; rc == SQE_OK && i < n; i++) {
        const sql_expr *a = e->u.call.args.items[i];
        if (bind_contains_aggregate(a)) {
            rc = bind_error(b, SQE_ERR_NESTED_AGGREGATION, a->line, a->col,
                            "Cannot nest aggregations inside aggregation '%s'", call_name(e));
            break;
        }
        rc = bind_expr(b, agg ? agg->from_scope : NULL, a, &args[i]);
    }
    b->agg = agg;
    b->win = win;
    b->win_nest = win_nest;
    *args_out = args;
    *n_out = n;
    return rc;
}

static int bind_sort_keys(binder *b, bind_scope *s, const sql_order_list *ol, plan_sort_key **out,
                          uint32_t *n_out) {
    plan_sort_key *keys = ARENA_ARRAY(b->pctx->arena, plan_sort_key, ol->n + 1);
    BIND_CHECK(b, keys);
    for (int i = 0; i < ol->n; i++) {
        SQE_TRY(bind_expr(b, s, ol->items[i].expr, &keys[i].expr));
        if (!type_is_orderable(keys[i].expr->type)) {
            char t[128];
            type_text(keys[i].expr->type, t, sizeof t);
            return bind_error(b, SQE_ERR_TYPE_MISMATCH, ol->items[i].line, ol->items[i].col,
                              "Type %s is not orderable, and therefore cannot be used in ORDER BY", t);
        }
        keys[i].desc = ol->items[i].desc;
        keys[i].nulls_first = ol->items[i].nulls == SQL_NULLS_FIRST;
    }
    *out = keys;
    *n_out = (uint32_t)ol->n;
    return SQE_OK;
}

static int bind_aggregate_call(binder *b, const sql_expr *e, bexpr **out) {
    bind_agg_ctx *agg = b->agg;
    bexpr **args;
    uint32_t n;
    SQE_TRY(bind_agg_args(b, e, &args, &n));
    sqe_type types[n + 1];
    for (uint32_t i = 0; i < n; i++) types[i] = args[i]->type;
    func_resolved res;
    int rc = func_resolve_agg(b->pctx->arena, call_name(e), types, n, &res, b->err);
    if (rc) {
        if (b->err && b->err->line == 0) {
            b->err->line = e->line;
            b->err->column = e->col;
        }
        return rc;
    }
    for (uint32_t i = 0; i < n; i++)
        SQE_TRY(bind_cast(b, args[i], res.arg_types[i], false, e->line, e->col, &args[i]));
    if (agg->n_aggs == agg->cap_aggs) {
        uint32_t cap = agg->cap_aggs ? agg->cap_aggs * 2 : 8;
        plan_agg *grown = ARENA_ARRAY(b->pctx->arena, plan_agg, cap);
        BIND_CHECK(b, grown);
        if (agg->n_aggs) memcpy(grown, agg->aggs, agg->n_aggs * sizeof(plan_agg));
        agg->aggs = grown;
        agg->cap_aggs = cap;
    }
    plan_agg *a = &agg->aggs[agg->n_aggs];
    memset(a, 0, sizeof *a);
    a->def = res.agg;
    a->args = args;
    a->n_args = n;
    a->distinct = e->u.call.distinct;
    a->type = res.ret;
    a->name = res.agg->name;
    /* FILTER and ORDER BY see the rows below the aggregation: no aggregates, no windows. */
    bind_win_ctx *saved_win = b->win;
    const char *saved_nest = b->win_nest;
    if (e->u.call.filter || e->u.call.order_by.n) {
        b->win = NULL;
        b->win_nest = arena_sprintf(b->pctx->arena, "aggregation '%s'", call_name(e));
        BIND_CHECK(b, b->win_nest);
    }
    if (e->u.call.filter) {
        bind_agg_ctx *saved = b->agg;
        b->agg = NULL;
        rc = bind_bool_expr(b, saved->from_scope, e->u.call.filter, "FILTER clause", &a->filter);
        b->agg = saved;
    }
    if (rc == SQE_OK && e->u.call.order_by.n) {
        bind_agg_ctx *saved = b->agg;
        b->agg = NULL;
        rc = bind_sort_keys(b, saved->from_scope, &e->u.call.order_by, &a->order, &a->n_order);
        b->agg = saved;
    }
    b->win = saved_win;
    b->win_nest = saved_nest;
    SQE_TRY(rc);
    if (res.agg->bind_fn) {
        const vec *consts[n + 1];
        for (uint32_t i = 0; i < n; i++)
            consts[i] = args[i]->kind == BEXPR_CONST ? args[i]->u.constant : NULL;
        for (uint32_t i = 0; i < n; i++) types[i] = args[i]->type;
        rc = res.agg->bind_fn(b->pctx->arena, types, consts, n, res.ret, &a->bind_data, b->err);
        if (rc) return rc;
    }
    /* Identical aggregates are computed once. */
    for (uint32_t i = 0; i < agg->n_aggs; i++) {
        plan_agg *o = &agg->aggs[i];
        if (o->def != a->def || o->n_args != a->n_args || o->distinct != a->distinct ||
            !bexpr_equal(o->filter, a->filter) || o->n_order || a->n_order)
            continue;
        bool same = true;
        for (uint32_t k = 0; k < n && same; k++) same = bexpr_equal(o->args[k], a->args[k]);
        if (!same) continue;
        *out = bexpr_column(b->pctx, o->out, o->type);
        BIND_CHECK(b, *out);
        return SQE_OK;
    }
    a->out = plan_new_col(b->pctx);
    agg->n_aggs++;
    *out = bexpr_column(b->pctx, a->out, a->type);
    BIND_CHECK(b, *out);
    (*out)->line = e->line;
    (*out)->col = e->col;
    return SQE_OK;
}

static const sql_window_def *find_window(binder *b, const sql_ident *name) {
    bind_win_ctx *w = b->win;
    for (int i = 0; w && i < w->n_defs; i++)
        if (strcmp(w->defs[i].name.name, name->name) == 0) return &w->defs[i];
    return NULL;
}

static int frame_bound(binder *b, bind_scope *s, const sql_frame_bound *fb, uint8_t *kind,
                       bexpr **offset) {
    switch (fb->kind) {
    case SQL_BOUND_UNBOUNDED_PRECEDING: *kind = BOUND_UNBOUNDED_PRECEDING; break;
    case SQL_BOUND_PRECEDING: *kind = BOUND_PRECEDING; break;
    case SQL_BOUND_CURRENT_ROW: *kind = BOUND_CURRENT_ROW; break;
    case SQL_BOUND_FOLLOWING: *kind = BOUND_FOLLOWING; break;
    default: *kind = BOUND_UNBOUNDED_FOLLOWING; break;
    }
    *offset = NULL;
    if (fb->offset) SQE_TRY(bind_expr(b, s, fb->offset, offset));
    return SQE_OK;
}

static int bind_window_call(binder *b, bind_scope *s, const sql_expr *e, bexpr **out) {
    bind_win_ctx *win = b->win;
    const sql_window_spec *spec = e->u.call.over;
    if (!spec && e->u.call.over_name) {
        const sql_window_def *d = find_window(b, e->u.call.over_name);
        if (!d)
            return bind_error(b, SQE_ERR_GENERIC_USER_ERROR, e->u.call.over_name->line,
                              e->u.call.over_name->col, "Cannot resolve WINDOW name %s",
                              e->u.call.over_name->text);
        spec = d->spec;
    }
    /* A window spec may extend a named window (partition from the base). */
    const sql_window_spec *base = NULL;
    if (spec->base) {
        const sql_window_def *d = find_window(b, spec->base);
        if (!d)
            return bind_error(b, SQE_ERR_GENERIC_USER_ERROR, spec->base->line, spec->base->col,
                              "Cannot resolve WINDOW name %s", spec->base->text);
        base = d->spec;
    }
    if (win->n_funcs == win->cap_funcs) {
        uint32_t cap = win->cap_funcs ? win->cap_funcs * 2 : 4;
        plan_window_func *grown = ARENA_ARRAY(b->pctx->arena, plan_window_func, cap);
        BIND_CHECK(b, grown);
        if (win->n_funcs) memcpy(grown, win->funcs, win->n_funcs * sizeof(plan_window_func));
        win->funcs = grown;
        win->cap_funcs = cap;
    }
    plan_window_func f;
    memset(&f, 0, sizeof f);
    b->win = NULL; /* no nested windows */
    const char *saved_nest = b->win_nest;
    b->win_nest = "window function arguments";
    uint32_t n = (uint32_t)e->u.call.args.n;
    f.args = ARENA_ARRAY(b->pctx->arena, bexpr *, n + 1);
    int rc = f.args ? SQE_OK : bind_nomem(b);
    for (uint32_t i = 0; rc == SQE_OK && i < n; i++) rc = bind_expr(b, s, e->u.call.args.items[i], &f.args[i]);
    f.n_args = n;
    b->win_nest = "window specification";
    const sql_expr_list *part = base && spec->partition_by.n == 0 ? &base->partition_by : &spec->partition_by;
    const sql_order_list *ord = base && spec->order_by.n == 0 ? &base->order_by : &spec->order_by;
    const sql_window_frame *frame = spec->frame ? spec->frame : base ? base->frame : NULL;
    if (rc == SQE_OK) {
        f.partition = ARENA_ARRAY(b->pctx->arena, bexpr *, part->n + 1);
        rc = f.partition ? SQE_OK : bind_nomem(b);
    }
    for (int i = 0; rc == SQE_OK && i < part->n; i++) rc = bind_expr(b, s, part->items[i], &f.partition[i]);
    f.n_partition = (uint32_t)part->n;
    if (rc == SQE_OK) rc = bind_sort_keys(b, s, ord, &f.order, &f.n_order);
    if (rc == SQE_OK && e->u.call.filter) rc = bind_bool_expr(b, s, e->u.call.filter, "FILTER clause", &f.filter);
    f.frame_unit = FRAME_RANGE;
    f.start_bound = BOUND_UNBOUNDED_PRECEDING;
    f.end_bound = f.n_order ? BOUND_CURRENT_ROW : BOUND_UNBOUNDED_FOLLOWING;
    if (rc == SQE_OK && frame) {
        f.frame_unit = frame->unit == SQL_FRAME_ROWS ? FRAME_ROWS
                       : frame->unit == SQL_FRAME_GROUPS ? FRAME_GROUPS : FRAME_RANGE;
        rc = frame_bound(b, s, &frame->start, &f.start_bound, &f.start_offset);
        if (rc == SQE_OK && frame->has_end)
            rc = frame_bound(b, s, &frame->end, &f.end_bound, &f.end_offset);
        else
            f.end_bound = BOUND_CURRENT_ROW;
        if (rc == SQE_OK && (f.start_bound == BOUND_UNBOUNDED_FOLLOWING ||
                             f.end_bound == BOUND_UNBOUNDED_PRECEDING))
            rc = bind_error(b, SQE_ERR_INVALID_WINDOW_FRAME, frame->line, frame->col,
                            "Window frame start cannot be UNBOUNDED FOLLOWING and end cannot be "
                            "UNBOUNDED PRECEDING");
    }
    b->win = win;
    b->win_nest = saved_nest;
    SQE_TRY(rc);
    f.ignore_nulls = e->u.call.nulls == SQL_NULLS_IGNORE;
    f.distinct = e->u.call.distinct;
    sqe_type types[n + 1];
    for (uint32_t i = 0; i < n; i++) types[i] = f.args[i]->type;
    func_resolved res;
    const char *name = call_name(e);
    if (func_is_window(name)) {
        rc = func_resolve_window(b->pctx->arena, name, types, n, &res, b->err);
        if (rc == SQE_OK) f.win = res.window;
    } else if (func_is_aggregate(name)) {
        rc = func_resolve_agg(b->pctx->arena, name, types, n, &res, b->err);
        if (rc == SQE_OK) f.agg = res.agg;
    } else {
        rc = bind_error(b, SQE_ERR_FUNCTION_NOT_FOUND, e->line, e->col,
                        "Not an aggregate or window function: %s", name);
    }
    if (rc) {
        if (b->err && b->err->line == 0) {
            b->err->line = e->line;
            b->err->column = e->col;
        }
        return rc;
    }
    for (uint32_t i = 0; i < n; i++)
        SQE_TRY(bind_cast(b, f.args[i], res.arg_types[i], false, e->line, e->col, &f.args[i]));
    f.type = res.ret;
    f.name = name;
    f.out = plan_new_col(b->pctx);
    win->funcs[win->n_funcs++] = f;
    *out = bexpr_column(b->pctx, f.out, f.type);
    BIND_CHECK(b, *out);
    (*out)->line = e->line;
    (*out)->col = e->col;
    return SQE_OK;
}

/* --- special forms ------------------------------------------------------------------------ */

static int bind_list(binder *b, bind_scope *s, const sql_expr_list *l, bexpr ***out) {
    bexpr **items = ARENA_ARRAY(b->pctx->arena, bexpr *, l->n + 1);
    BIND_CHECK(b, items);
    for (int i = 0; i < l->n; i++) SQE_TRY(bind_expr(b, s, l->items[i], &items[i]));
    *out = items;
    return SQE_OK;
}

static int cast_all(binder *b, bexpr **items, uint32_t n, sqe_type t) {
    for (uint32_t i = 0; i < n; i++)
        SQE_TRY(bind_cast(b, items[i], t, false, items[i]->line, items[i]->col, &items[i]));
    return SQE_OK;
}

static int make_case(binder *b, bexpr **conds, bexpr **vals, uint32_t n, bexpr *else_val, int line,
                     int col, bexpr **out) {
    bexpr *all[n + 1];
    for (uint32_t i = 0; i < n; i++) all[i] = vals[i];
    uint32_t n_all = n;
    if (else_val) all[n_all++] = else_val;
    sqe_type t;
    SQE_TRY(bind_common_type(b, all, n_all, line, col, "CASE", &t));
    SQE_TRY(cast_all(b, all, n_all, t));
    bexpr *c = bexpr_new(b->pctx, BEXPR_CASE, t, 2 * n + (else_val ? 1 : 0));
    BIND_CHECK(b, c);
    for (uint32_t i = 0; i < n; i++) {
        SQE_TRY(to_boolean(b, conds[i], "CASE WHEN clause", &c->args[2 * i]));
        c->args[2 * i + 1] = all[i];
    }
    if (else_val) c->args[2 * n] = all[n];
    c->u.case_has_else = else_val != NULL;
    c->line = line;
    c->col = col;
    *out = c;
    return SQE_OK;
}

static int bind_special_call(binder *b, bind_scope *s, const sql_expr *e, const char *name,
                             bool *handled, bexpr **out) {
    *handled = true;
    int n = e->u.call.args.n;
    if (strcmp(name, "coalesce") == 0) {
        if (n < 1)
            return bind_error(b, SQE_ERR_GENERIC_USER_ERROR, e->line, e->col,
                              "The 'coalesce' function must have at least one argument");
        bexpr **items;
        SQE_TRY(bind_list(b, s, &e->u.call.args, &items));
        sqe_type t;
        SQE_TRY(bind_common_type(b, items, (uint32_t)n, e->line, e->col, "COALESCE", &t));
        SQE_TRY(cast_all(b, items, (uint32_t)n, t));
        if (n == 1) {
            *out = items[0];
            return SQE_OK;
        }
        bexpr *c = bexpr_new(b->pctx, BEXPR_COALESCE, t, (uint32_t)n);
        BIND_CHECK(b, c);
        memcpy(c->args, items, (size_t)n * sizeof(bexpr *));
        c->line = e->line;
        c->col = e->col;
        *out = c;
        return SQE_OK;
    }
    if (strcmp(name, "if") == 0) {
        if (n != 2 && n != 3)
            return bind_error(b, SQE_ERR_GENERIC_USER_ERROR, e->line, e->col,
                              "The 'if' function takes 2 or 3 arguments");
        bexpr **items;
        SQE_TRY(bind_list(b, s, &e->u.call.args, &items));
        return make_case(b, &items[0], &items[1], 1, n == 3 ? items[2] : NULL, e->line, e->col, out);
    }
    if (strcmp(name, "nullif") == 0) {
        if (n != 2)
            return bind_error(b, SQE_ERR_GENERIC_USER_ERROR, e->line, e->col,
                              "The 'nullif' function takes 2 arguments");
        bexpr **items;
        SQE_TRY(bind_list(b, s, &e->u.call.args, &items));
        /* NULLIF(a, b) = CASE WHEN a = b THEN NULL ELSE a END, typed as a. */
        bexpr *eq;
        SQE_TRY(bind_comparison(b, SQL_OP_EQ, items[0], items[1], e->line, e->col, &eq));
        bexpr *null_val = bexpr_const_null(b->pctx, items[0]->type);
        BIND_CHECK(b, null_val);
        bexpr *c = bexpr_new(b->pctx, BEXPR_CASE, items[0]->type, 3);
        BIND_CHECK(b, c);
        c->args[0] = eq;
        c->args[1] = null_val;
        c->args[2] = items[0];
        c->u.case_has_else = true;
        c->line = e->line;
        c->col = e->col;
        *out = c;
        return SQE_OK;
    }
    if (strcmp(name, "current_groups") == 0 || strcmp(name, "current_roles") == 0) {
        /* The session principal's groups or roles, in its order: a constant of the statement,
         * like current_user (nothing is looked up at run time). */
        if (n != 0)
            return bind_error(b, SQE_ERR_FUNCTION_NOT_FOUND, e->line, e->col,
                              "Unexpected parameters for function %s. Expected: %s()", name,
                              name);
        const sqe_principal *p = b->env->principal;
        bool groups = strcmp(name, "current_groups") == 0;
        const char *const *items = !p ? NULL : groups ? p->groups : p->roles;
        uint32_t k = !p ? 0 : groups ? p->n_groups : p->n_roles;
        *out = bexpr_const_str_array(b->pctx, items, k);
        BIND_CHECK(b, *out);
        (*out)->line = e->line;
        (*out)->col = e->col;
        return SQE_OK;
    }
    if (strcmp(name, "try") == 0) {
        if (n != 1)
            return bind_error(b, SQE_ERR_GENERIC_USER_ERROR, e->line, e->col,
                              "The 'try' function takes 1 argument");
        bexpr *arg;
        SQE_TRY(bind_expr(b, s, e->u.call.args.items[0], &arg));
        bexpr *t = bexpr_new(b->pctx, BEXPR_TRY, arg->type, 1);
        BIND_CHECK(b, t);
        t->args[0] = arg;
        t->line = e->line;
        t->col = e->col;
        *out = t;
        return SQE_OK;
    }
    *handled = false;
    return SQE_OK;
}

/* An aggregate, window function or GROUPING() where the clause allows none (Trino:
 * EXPRESSION_NOT_SCALAR). */
static int not_scalar(binder *b, const sql_expr *e, const char *what) {
    return bind_error(b, SQE_ERR_EXPRESSION_NOT_SCALAR, e->line, e->col,
                      "%s cannot contain aggregations, window functions or grouping operations: "
                      "[%s]",
                      b->clause ? b->clause : "This context", what);
}

static int bind_call(binder *b, bind_scope *s, const sql_expr *e, bexpr **out) {
    const char *name = call_name(e);
    /* Qualified names (catalog.schema.f) resolve by their last part. */
    if (e->u.call.over || e->u.call.over_name) {
        if (!b->win && b->win_nest)
            return bind_error(b, SQE_ERR_NESTED_WINDOW, e->line, e->col,
                              "Cannot nest window functions or row pattern measures inside %s",
                              b->win_nest);
        if (!b->win && b->clause && strcmp(b->clause, "HAVING clause") == 0)
            return bind_error(b, SQE_ERR_NESTED_WINDOW, e->line, e->col,
                              "HAVING clause cannot contain window functions or row pattern "
                              "measures");
        if (!b->win) return not_scalar(b, e, name);
        return bind_window_call(b, s, e, out);
    }
    if (func_is_aggregate(name)) {
        if (!b->agg) return not_scalar(b, e, name);
        return bind_aggregate_call(b, e, out);
    }
    if (func_is_window(name))
        return bind_error(b, SQE_ERR_MISSING_OVER, e->line, e->col,
                          "Window function %s requires an OVER clause", name);
    if (e->u.call.distinct || e->u.call.filter || e->u.call.order_by.n)
        return bind_error(b, SQE_ERR_GENERIC_USER_ERROR, e->line, e->col,
                          "DISTINCT, FILTER and ORDER BY are only allowed in aggregate function "
                          "calls: %s",
                          name);
    bool handled;
    SQE_TRY(bind_special_call(b, s, e, name, &handled, out));
    if (handled) return SQE_OK;
    uint32_t n = (uint32_t)e->u.call.args.n;
    bexpr **args = ARENA_ARRAY(b->pctx->arena, bexpr *, n + 1);
    BIND_CHECK(b, args);
    bool has_lambda = false;
    for (uint32_t i = 0; i < n; i++) {
        const sql_expr *a = e->u.call.args.items[i];
        if (a->kind == SQL_EXPR_LAMBDA) {
            args[i] = NULL;
            has_lambda = true;
            continue;
        }
        SQE_TRY(bind_expr(b, s, a, &args[i]));
    }
    if (!has_lambda) return call_scalar(b, name, args, n, NULL, NULL, e->line, e->col, out);
    lambda_bind_state st;
    st.b = b;
    st.s = s;
    st.ast_args = (const sql_expr *const *)e->u.call.args.items;
    st.bound = ARENA_ARRAY(b->pctx->arena, bexpr *, n + 1);
    BIND_CHECK(b, st.bound);
    func_lambda_binder lb = {bind_lambda_cb, &st};
    return call_scalar(b, name, args, n, &lb, &st, e->line, e->col, out);
}

static int bind_case(binder *b, bind_scope *s, const sql_expr *e, bexpr **out) {
    uint32_t n = (uint32_t)e->u.case_.n_whens;
    bexpr **conds = ARENA_ARRAY(b->pctx->arena, bexpr *, n + 1);
    bexpr **vals = ARENA_ARRAY(b->pctx->arena, bexpr *, n + 1);
    BIND_CHECK(b, conds && vals);
    bexpr *operand = NULL;
    if (e->u.case_.operand) SQE_TRY(bind_expr(b, s, e->u.case_.operand, &operand));
    for (uint32_t i = 0; i < n; i++) {
        const sql_when *w = &e->u.case_.whens[i];
        bexpr *c;
        SQE_TRY(bind_expr(b, s, w->cond, &c));
        if (operand) SQE_TRY(bind_comparison(b, SQL_OP_EQ, operand, c, w->cond->line, w->cond->col, &c));
        conds[i] = c;
        SQE_TRY(bind_expr(b, s, w->result, &vals[i]));
    }
    bexpr *else_val = NULL;
    if (e->u.case_.else_result) SQE_TRY(bind_expr(b, s, e->u.case_.else_result, &else_val));
    return make_case(b, conds, vals, n, else_val, e->line, e->col, out);
}

static int bind_in_list(binder *b, bind_scope *s, const sql_expr *e, bexpr **out) {
    uint32_t n = (uint32_t)e->u.in_list.values.n;
    bexpr **items = ARENA_ARRAY(b->pctx->arena, bexpr *, n + 2);
    BIND_CHECK(b, items);
    SQE_TRY(bind_expr(b, s, e->u.in_list.arg, &items[0]));
    for (uint32_t i = 0; i < n; i++) SQE_TRY(bind_expr(b, s, e->u.in_list.values.items[i], &items[i + 1]));
    sqe_type t;
    SQE_TRY(bind_common_type(b, items, n + 1, e->line, e->col, "IN", &t));
    SQE_TRY(cast_all(b, items, n + 1, t));
    if (!type_is_comparable(t)) {
        char ts[128];
        type_text(t, ts, sizeof ts);
        return bind_error(b, SQE_ERR_TYPE_MISMATCH, e->line, e->col, "Type %s is not comparable", ts);
    }
    bexpr *in = bexpr_new(b->pctx, BEXPR_IN_LIST, type_make(TYPE_BOOLEAN), n + 1);
    BIND_CHECK(b, in);
    memcpy(in->args, items, (n + 1) * sizeof(bexpr *));
    in->line = e->line;
    in->col = e->col;
    /* The evaluator compares with the $eq kernel for type t. */
    bexpr *eq_args[2] = {items[0], items[0]};
    bexpr *eq;
    SQE_TRY(call_scalar(b, "$eq", eq_args, 2, NULL, NULL, e->line, e->col, &eq));
    in->u.call.def = eq->u.call.def;
    in->u.call.name = "$eq";
    *out = e->u.in_list.negated ? make_not(b, in) : in;
    BIND_CHECK(b, *out);
    return SQE_OK;
}

static int bind_like(binder *b, bind_scope *s, const sql_expr *e, bexpr **out) {
    bexpr *args[3];
    uint32_t n = 2;
    SQE_TRY(bind_expr(b, s, e->u.like.arg, &args[0]));
    SQE_TRY(bind_expr(b, s, e->u.like.pattern, &args[1]));
    if (e->u.like.escape) {
        SQE_TRY(bind_expr(b, s, e->u.like.escape, &args[2]));
        n = 3;
    }
    bexpr *call;
    SQE_TRY(call_scalar(b, "like", args, n, NULL, NULL, e->line, e->col, &call));
    *out = e->u.like.negated ? make_not(b, call) : call;
    BIND_CHECK(b, *out);
    return SQE_OK;
}

static int bind_current(binder *b, const sql_expr *e, bexpr **out) {
    const char *fname = NULL;
    switch (e->u.current.which) {
    case SQL_CURRENT_DATE: fname = "current_date"; break;
    case SQL_CURRENT_TIME: fname = "current_time"; break;
    case SQL_CURRENT_TIMESTAMP: fname = "current_timestamp"; break;
    case SQL_LOCALTIME: fname = "localtime"; break;
    case SQL_LOCALTIMESTAMP: fname = "localtimestamp"; break;
    case SQL_CURRENT_USER: {
        const char *u = b->env->user ? b->env->user : "user";
        *out = bexpr_const_str(b->pctx, type_varchar(0), u, strlen(u));
        BIND_CHECK(b, *out);
        return SQE_OK;
    }
    case SQL_CURRENT_CATALOG:
    case SQL_CURRENT_SCHEMA: {
        const char *v = e->u.current.which == SQL_CURRENT_CATALOG ? b->env->catalog : b->env->schema;
        *out = v ? bexpr_const_str(b->pctx, type_varchar(0), v, strlen(v))
                 : bexpr_const_null(b->pctx, type_varchar(0));
        BIND_CHECK(b, *out);
        return SQE_OK;
    }
    default:
        return bind_error(b, SQE_ERR_NOT_SUPPORTED, e->line, e->col, "Unsupported special value");
    }
    bexpr *call;
    SQE_TRY(call_scalar(b, fname, NULL, 0, NULL, NULL, e->line, e->col, &call));
    if (e->u.current.precision >= 0 && e->u.current.which != SQL_CURRENT_DATE) {
        sqe_type t = call->type;
        if (e->u.current.precision > 6)
            return bind_error(b, SQE_ERR_NOT_SUPPORTED, e->line, e->col,
                              "Precision %d is not supported (maximum 6)", e->u.current.precision);
        t.precision = (uint8_t)e->u.current.precision;
        SQE_TRY(bind_cast(b, call, t, true, e->line, e->col, &call));
    }
    *out = call;
    return SQE_OK;
}

static int bind_grouping(binder *b, bind_scope *s, const sql_expr *e, bexpr **out) {
    if (!b->agg) return not_scalar(b, e, "GROUPING");
    bind_agg_ctx *agg = b->agg;
    b->agg = NULL;
    bexpr **items = NULL;
    int rc = bind_list(b, agg->from_scope, &e->u.list, &items);
    b->agg = agg;
    SQE_TRY(rc);
    bexpr *g = bexpr_new(b->pctx, BEXPR_GROUPING, type_make(TYPE_INTEGER), (uint32_t)e->u.list.n);
    BIND_CHECK(b, g);
    memcpy(g->args, items, (size_t)e->u.list.n * sizeof(bexpr *));
    g->u.grouping.n = (uint32_t)e->u.list.n;
    g->line = e->line;
    g->col = e->col;
    *out = g;
    (void)s;
    return SQE_OK;
}

/* Each braced case of bind_expr is its own function so that a deeply nested expression
 * costs one small frame per level (the parser allows 1000 levels). */
/* Binds the two operands of a binary-shaped node (operators, AT TIME ZONE, subscripts). */
static int bind_operands(binder *b, bind_scope *s, const sql_expr *e, bexpr *args[2]) {
    SQE_TRY(bind_expr(b, s, e->u.binary.left, &args[0]));
    return bind_expr(b, s, e->u.binary.right, &args[1]);
}

static __attribute__((noinline)) int expr_field(binder *b, bind_scope *s, const sql_expr *e, bexpr **out) {
    int rc = SQE_OK;
    bexpr *r = NULL;
    do {
        bexpr *base;
        rc = bind_expr(b, s, e->u.field.base, &base);
        if (rc) break;
        sql_qname qn = {(sql_ident *)&e->u.field.field, 1};
        /* reuse the name resolver's field logic through a one-part path */
        if (base->type.id != TYPE_ROW || !base->type.nested) {
            rc = bind_error(b, SQE_ERR_TYPE_MISMATCH, e->line, e->col,
                            "Expression is not of type ROW: cannot access field %s",
                            e->u.field.field.text);
            break;
        }
        const type_nested *nt = base->type.nested;
        uint32_t idx = nt->n_children;
        for (uint32_t f = 0; f < nt->n_children; f++)
            if (nt->names && nt->names[f] && strcmp(nt->names[f], qn.parts[0].name) == 0) idx = f;
        if (idx == nt->n_children) {
            rc = bind_error(b, SQE_ERR_COLUMN_NOT_FOUND, e->line, e->col,
                            "Column '%s' cannot be resolved", e->u.field.field.text);
            break;
        }
        r = bexpr_new(b->pctx, BEXPR_FIELD, nt->children[idx], 1);
        if (!r) break;
        r->args[0] = base;
        r->u.field = idx;
        break;
    } while (0);
    *out = r;
    (void)s;
    return rc;
}

static __attribute__((noinline)) int expr_unary(binder *b, bind_scope *s, const sql_expr *e, bexpr **out) {
    int rc = SQE_OK;
    bexpr *r = NULL;
    do {
        bexpr *arg;
        rc = bind_expr(b, s, e->u.unary.arg, &arg);
        if (rc) break;
        if (e->u.unary.op == SQL_OP_NOT) {
            rc = to_boolean(b, arg, "NOT", &arg);
            if (!rc) r = make_not(b, arg);
        } else if (e->u.unary.op == SQL_OP_NEG) {
            rc = call_scalar(b, "$negate", &arg, 1, NULL, NULL, e->line, e->col, &r);
        } else {
            if (!type_is_numeric(arg->type) && arg->type.id != TYPE_UNKNOWN &&
                arg->type.id != TYPE_INTERVAL_DS && arg->type.id != TYPE_INTERVAL_YM) {
                char t[128];
                type_text(arg->type, t, sizeof t);
                rc = bind_error(b, SQE_ERR_TYPE_MISMATCH, e->line, e->col,
                                "Cannot apply operator: + %s", t);
            }
            r = arg;
        }
        break;
    } while (0);
    *out = r;
    (void)s;
    return rc;
}

static __attribute__((noinline)) int expr_binary(binder *b, bind_scope *s, const sql_expr *e, bexpr **out) {
    int rc = SQE_OK;
    bexpr *r = NULL;
    do {
        bexpr *args[2];
        rc = bind_operands(b, s, e, args);
        if (rc) break;
        int op = e->u.binary.op;
        if (op >= SQL_OP_EQ && op <= SQL_OP_IS_NOT_DISTINCT)
            rc = bind_comparison(b, op, args[0], args[1], e->line, e->col, &r);
        else
            rc = call_scalar(b, op_function(op), args, 2, NULL, NULL, e->line, e->col, &r);
        break;
    } while (0);
    *out = r;
    (void)s;
    return rc;
}

static __attribute__((noinline)) int expr_or(binder *b, bind_scope *s, const sql_expr *e, bexpr **out) {
    int rc = SQE_OK;
    bexpr *r = NULL;
    do {
        bool is_and = e->kind == SQL_EXPR_AND;
        r = bexpr_new(b->pctx, is_and ? BEXPR_AND : BEXPR_OR, type_make(TYPE_BOOLEAN),
                      (uint32_t)e->u.list.n);
        if (!r) break;
        for (int i = 0; i < e->u.list.n && !rc; i++) {
            rc = bind_expr(b, s, e->u.list.items[i], &r->args[i]);
            if (!rc) rc = to_boolean(b, r->args[i], is_and ? "AND" : "OR", &r->args[i]);
        }
        break;
    } while (0);
    *out = r;
    (void)s;
    return rc;
}

static __attribute__((noinline)) int expr_is_null(binder *b, bind_scope *s, const sql_expr *e, bexpr **out) {
    int rc = SQE_OK;
    bexpr *r = NULL;
    do {
        bexpr *arg;
        rc = bind_expr(b, s, e->u.is_null.arg, &arg);
        if (rc) break;
        r = bexpr_new(b->pctx, e->u.is_null.negated ? BEXPR_IS_NOT_NULL : BEXPR_IS_NULL,
                      type_make(TYPE_BOOLEAN), 1);
        if (r) r->args[0] = arg;
        break;
    } while (0);
    *out = r;
    (void)s;
    return rc;
}

static __attribute__((noinline)) int expr_between(binder *b, bind_scope *s, const sql_expr *e, bexpr **out) {
    int rc = SQE_OK;
    bexpr *r = NULL;
    do {
        bexpr *items[3];
        rc = bind_expr(b, s, e->u.between.arg, &items[0]);
        if (!rc) rc = bind_expr(b, s, e->u.between.low, &items[1]);
        if (!rc) rc = bind_expr(b, s, e->u.between.high, &items[2]);
        sqe_type t;
        if (!rc) rc = bind_common_type(b, items, 3, e->line, e->col, "BETWEEN", &t);
        if (!rc) rc = cast_all(b, items, 3, t);
        bexpr *ge = NULL, *le = NULL;
        if (!rc) rc = bind_comparison(b, SQL_OP_GE, items[0], items[1], e->line, e->col, &ge);
        if (!rc) rc = bind_comparison(b, SQL_OP_LE, items[0], items[2], e->line, e->col, &le);
        if (rc) break;
        r = bexpr_new(b->pctx, BEXPR_AND, type_make(TYPE_BOOLEAN), 2);
        if (!r) break;
        r->args[0] = ge;
        r->args[1] = le;
        if (e->u.between.negated) r = make_not(b, r);
        break;
    } while (0);
    *out = r;
    (void)s;
    return rc;
}

/* (a, b, ...) IN / = ANY / <> ALL (SELECT x, y, ...): each value cast to the common type of it
 * and its column; the row stays a ROW(...) constructor, which bind_subquery.c compares field by
 * field. */
static int row_in_subquery(binder *b, const sql_expr *e, bexpr *row, const plan *q, int op, bexpr **out) {
    if (op != SQL_OP_EQ && !(op == SQL_OP_NE && e->kind == SQL_EXPR_QUANTIFIED &&
                             e->u.quantified.quantifier == SQL_QUANT_ALL))
        return bind_error(b, SQE_ERR_NOT_SUPPORTED, e->line, e->col,
                          "A row is compared with a subquery of several columns only by IN, = ANY "
                          "and <> ALL");
    sqe_type types[q->n_out];
    bexpr *r = bexpr_new(b->pctx, BEXPR_ROW, type_make(TYPE_ROW), q->n_out);
    BIND_CHECK(b, r);
    for (uint32_t i = 0; i < q->n_out; i++) {
        sqe_type common;
        if (!type_common_super(row->args[i]->type, q->out[i].type, &common)) {
            char a[128], c2[128];
            type_text(row->type, a, sizeof a);
            sqe_type qt[q->n_out];
            for (uint32_t k = 0; k < q->n_out; k++) qt[k] = q->out[k].type;
            type_text(type_row(q->n_out, qt, NULL), c2, sizeof c2);
            return bind_error(b, SQE_ERR_TYPE_MISMATCH, e->line, e->col,
                              "Value expression and result of subquery must be of the same type: "
                              "%s vs %s", a, c2);
        }
        SQE_TRY(bind_cast(b, row->args[i], common, false, e->line, e->col, &r->args[i]));
        types[i] = common;
    }
    r->type = type_row(q->n_out, types, NULL);
    r->line = row->line;
    r->col = row->col;
    *out = r;
    return SQE_OK;
}

static __attribute__((noinline)) int expr_quantified(binder *b, bind_scope *s, const sql_expr *e, bexpr **out) {
    int rc = SQE_OK;
    bexpr *r = NULL;
    do {
        bool in = e->kind == SQL_EXPR_IN_SUBQUERY;
        bexpr *arg;
        rc = bind_expr(b, s, in ? e->u.in_query.arg : e->u.quantified.arg, &arg);
        if (rc) break;
        uint8_t kind = in ? SUBQ_IN : e->u.quantified.quantifier == SQL_QUANT_ALL ? SUBQ_ALL : SUBQ_ANY;
        rc = bind_subquery_expr(b, s, in ? e->u.in_query.query : e->u.quantified.query, kind,
                                e->line, e->col, &r);
        if (rc) break;
        bexpr *sub = r;
        sub->args = ARENA_ARRAY(b->pctx->arena, bexpr *, 1);
        if (!sub->args) {
            r = NULL;
            break;
        }
        sub->n_args = 1;
        /* Compare in the common type of the value and the subquery's column (or, for a
         * subquery of several columns, of each field of a ROW value and each column) */
        const plan *q = sub->u.subquery.query;
        sqe_type sub_type = q->out[0].type;
        if (q->n_out > 1) {
            sqe_type types[q->n_out];
            for (uint32_t i = 0; i < q->n_out; i++) types[i] = q->out[i].type;
            sub_type = type_row(q->n_out, types, NULL);
            if (arg->kind == BEXPR_ROW && arg->n_args == q->n_out) {
                rc = row_in_subquery(b, e, arg, q, in ? SQL_OP_EQ : e->u.quantified.op, &sub->args[0]);
                if (rc) break;
                sub->u.subquery.cmp = in ? SQL_OP_EQ : e->u.quantified.op;
                if (in && e->u.in_query.negated) r = make_not(b, sub);
                break;
            }
        }
        sqe_type common;
        if (!type_common_super(arg->type, sub_type, &common)) {
            char a[128], c2[128];
            type_text(arg->type, a, sizeof a);
            type_text(sub_type, c2, sizeof c2);
            rc = bind_error(b, SQE_ERR_TYPE_MISMATCH, e->line, e->col,
                            "Value expression and result of subquery must be of the same type: "
                            "%s vs %s",
                            a, c2);
            break;
        }
        if (q->n_out > 1) {
            rc = bind_error(b, SQE_ERR_NOT_SUPPORTED, e->line, e->col,
                            "A subquery of several columns is compared only with a row of as many "
                            "values: (a, b) IN (SELECT x, y ...)");
            break;
        }
        rc = bind_cast(b, arg, common, false, e->line, e->col, &sub->args[0]);
        sub->u.subquery.cmp = in ? SQL_OP_EQ : e->u.quantified.op;
        if (!rc && in && e->u.in_query.negated) r = make_not(b, sub);
        break;
    } while (0);
    *out = r;
    (void)s;
    return rc;
}

static __attribute__((noinline)) int expr_at_time_zone(binder *b, bind_scope *s, const sql_expr *e, bexpr **out) {
    int rc = SQE_OK;
    bexpr *r = NULL;
    do {
        bexpr *args[2];
        rc = bind_operands(b, s, e, args);
        if (!rc) rc = call_scalar(b, "at_timezone", args, 2, NULL, NULL, e->line, e->col, &r);
        break;
    } while (0);
    *out = r;
    (void)s;
    return rc;
}

static __attribute__((noinline)) int expr_subscript(binder *b, bind_scope *s, const sql_expr *e, bexpr **out) {
    int rc = SQE_OK;
    bexpr *r = NULL;
    do {
        bexpr *args[2];
        rc = bind_operands(b, s, e, args);
        if (rc) break;
        if (args[0]->type.id == TYPE_ROW && args[1]->kind == BEXPR_CONST &&
            type_is_integer(args[1]->type)) {
            /* row[n]: 1-based field access by position */
            int64_t idx = 0;
            const vec *cv = args[1]->u.constant;
            switch (cv->type.id) {
            case TYPE_TINYINT: idx = VEC_DATA(cv, int8_t)[0]; break;
            case TYPE_SMALLINT: idx = VEC_DATA(cv, int16_t)[0]; break;
            case TYPE_INTEGER: idx = VEC_DATA(cv, int32_t)[0]; break;
            default: idx = VEC_DATA(cv, int64_t)[0]; break;
            }
            const type_nested *nt = args[0]->type.nested;
            if (!nt || idx < 1 || idx > (int64_t)nt->n_children) {
                rc = bind_error(b, SQE_ERR_INVALID_FUNCTION_ARGUMENT, e->line, e->col,
                                "Invalid subscript index: %lld, ROW has %u fields",
                                (long long)idx, nt ? nt->n_children : 0);
                break;
            }
            r = bexpr_new(b->pctx, BEXPR_FIELD, nt->children[idx - 1], 1);
            if (!r) break;
            r->args[0] = args[0];
            r->u.field = (uint32_t)(idx - 1);
            break;
        }
        rc = call_scalar(b, "$subscript", args, 2, NULL, NULL, e->line, e->col, &r);
        break;
    } while (0);
    *out = r;
    (void)s;
    return rc;
}

static __attribute__((noinline)) int expr_cast(binder *b, bind_scope *s, const sql_expr *e, bexpr **out) {
    int rc = SQE_OK;
    bexpr *r = NULL;
    do {
        bexpr *arg;
        sqe_type t;
        rc = bind_expr(b, s, e->u.cast.arg, &arg);
        if (!rc) {
            rc = bind_type_name(b, &e->u.cast.type, &t);
            if (rc && b->err) { /* at the CAST, as Trino */
                b->err->line = e->line;
                b->err->column = e->col;
            }
        }
        if (rc) break;
        if (type_equal(arg->type, t) && !e->u.cast.try_cast) {
            r = arg;
            break;
        }
        if (!type_can_cast(arg->type, t)) {
            char a[128], c2[128];
            type_text(arg->type, a, sizeof a);
            type_text(t, c2, sizeof c2);
            rc = bind_error(b, SQE_ERR_TYPE_MISMATCH, e->line, e->col, "Cannot cast %s to %s", a, c2);
            break;
        }
        func_scalar_fn fn = func_cast_lookup(arg->type, t);
        if (!fn) {
            char a[128], c2[128];
            type_text(arg->type, a, sizeof a);
            type_text(t, c2, sizeof c2);
            rc = bind_error(b, SQE_ERR_TYPE_MISMATCH, e->line, e->col, "Cannot cast %s to %s", a, c2);
            break;
        }
        r = bexpr_new(b->pctx, BEXPR_CAST, t, 1);
        if (!r) break;
        r->args[0] = arg;
        r->u.cast.fn = fn;
        r->u.cast.try_cast = e->u.cast.try_cast;
        break;
    } while (0);
    *out = r;
    (void)s;
    return rc;
}

static __attribute__((noinline)) int expr_extract(binder *b, bind_scope *s, const sql_expr *e, bexpr **out) {
    int rc = SQE_OK;
    bexpr *r = NULL;
    do {
        bexpr *arg;
        rc = bind_expr(b, s, e->u.extract.arg, &arg);
        if (!rc) rc = call_scalar(b, e->u.extract.field.name, &arg, 1, NULL, NULL, e->line, e->col, &r);
        break;
    } while (0);
    *out = r;
    (void)s;
    return rc;
}

static __attribute__((noinline)) int expr_array(binder *b, bind_scope *s, const sql_expr *e, bexpr **out) {
    int rc = SQE_OK;
    bexpr *r = NULL;
    do {
        uint32_t n = (uint32_t)e->u.list.n;
        bexpr **items;
        rc = bind_list(b, s, &e->u.list, &items);
        sqe_type t = type_make(TYPE_UNKNOWN);
        if (!rc) rc = bind_common_type(b, items, n, e->line, e->col, "ARRAY", &t);
        if (!rc) rc = cast_all(b, items, n, t);
        if (rc) break;
        r = bexpr_new(b->pctx, BEXPR_ARRAY, type_array(t), n);
        if (r && n) memcpy(r->args, items, n * sizeof(bexpr *));
        break;
    } while (0);
    *out = r;
    (void)s;
    return rc;
}

static __attribute__((noinline)) int expr_row(binder *b, bind_scope *s, const sql_expr *e, bexpr **out) {
    int rc = SQE_OK;
    bexpr *r = NULL;
    do {
        uint32_t n = (uint32_t)e->u.row.items.n;
        bexpr **items;
        rc = bind_list(b, s, &e->u.row.items, &items);
        if (rc) break;
        sqe_type types[n + 1];
        for (uint32_t i = 0; i < n; i++) types[i] = items[i]->type;
        r = bexpr_new(b->pctx, BEXPR_ROW, type_row(n, types, NULL), n);
        if (r && n) memcpy(r->args, items, n * sizeof(bexpr *));
        break;
    } while (0);
    *out = r;
    (void)s;
    return rc;
}
int bind_expr(binder *b, bind_scope *s, const sql_expr *e, bexpr **out) {
    if (++b->depth > SQL_MAX_DEPTH || stack_exhausted()) {
        b->depth--;
        return bind_error(b, SQE_ERR_GENERIC_USER_ERROR, e->line, e->col, "Expression nesting too deep");
    }
    int rc = SQE_OK;
    bexpr *r = NULL;
    switch (e->kind) {
    case SQL_EXPR_NULL:
    case SQL_EXPR_BOOL:
    case SQL_EXPR_INTEGER:
    case SQL_EXPR_DECIMAL:
    case SQL_EXPR_DOUBLE:
    case SQL_EXPR_STRING:
    case SQL_EXPR_VARBINARY:
    case SQL_EXPR_TYPED:
    case SQL_EXPR_INTERVAL:
    case SQL_EXPR_PARAM:
        rc = bind_literal(b, e, &r);
        break;
    case SQL_EXPR_NAME:
        rc = bind_resolve_name(b, s, &e->u.name, e->line, e->col, &r);
        break;
    case SQL_EXPR_FIELD:
        rc = expr_field(b, s, e, &r);
        break;
    case SQL_EXPR_UNARY:
        rc = expr_unary(b, s, e, &r);
        break;
    case SQL_EXPR_BINARY:
        rc = expr_binary(b, s, e, &r);
        break;
    case SQL_EXPR_AND:
    case SQL_EXPR_OR:
        rc = expr_or(b, s, e, &r);
        break;
    case SQL_EXPR_IS_NULL:
        rc = expr_is_null(b, s, e, &r);
        break;
    case SQL_EXPR_BETWEEN:
        rc = expr_between(b, s, e, &r);
        break;
    case SQL_EXPR_IN_LIST:
        rc = bind_in_list(b, s, e, &r);
        break;
    case SQL_EXPR_IN_SUBQUERY:
    case SQL_EXPR_QUANTIFIED:
        rc = expr_quantified(b, s, e, &r);
        break;
    case SQL_EXPR_EXISTS:
        rc = bind_subquery_expr(b, s, e->u.query, SUBQ_EXISTS, e->line, e->col, &r);
        break;
    case SQL_EXPR_SUBQUERY:
        rc = bind_subquery_expr(b, s, e->u.query, SUBQ_SCALAR, e->line, e->col, &r);
        break;
    case SQL_EXPR_LIKE:
        rc = bind_like(b, s, e, &r);
        break;
    case SQL_EXPR_AT_TIME_ZONE:
        rc = expr_at_time_zone(b, s, e, &r);
        break;
    case SQL_EXPR_SUBSCRIPT:
        rc = expr_subscript(b, s, e, &r);
        break;
    case SQL_EXPR_CALL:
        rc = bind_call(b, s, e, &r);
        break;
    case SQL_EXPR_CAST:
        rc = expr_cast(b, s, e, &r);
        break;
    case SQL_EXPR_CASE:
        rc = bind_case(b, s, e, &r);
        break;
    case SQL_EXPR_EXTRACT:
        rc = expr_extract(b, s, e, &r);
        break;
    case SQL_EXPR_CURRENT:
        rc = bind_current(b, e, &r);
        break;
    case SQL_EXPR_ARRAY:
        rc = expr_array(b, s, e, &r);
        break;
    case SQL_EXPR_ROW:
        rc = expr_row(b, s, e, &r);
        break;
    case SQL_EXPR_LAMBDA:
        rc = bind_error(b, SQE_ERR_TYPE_MISMATCH, e->line, e->col,
                        "Lambda expression should always be used inside a function");
        break;
    case SQL_EXPR_GROUPING:
        rc = bind_grouping(b, s, e, &r);
        break;
    default:
        rc = bind_error(b, SQE_ERR_NOT_SUPPORTED, e->line, e->col, "Unsupported expression");
        break;
    }
    b->depth--;
    if (rc) return rc;
    if (!r || b->pctx->failed) return bind_nomem(b);
    if (!r->line) {
        r->line = e->line;
        r->col = e->col;
    }
    *out = r;
    return SQE_OK;
}

int bind_cast_to(plan_ctx *pctx, bexpr *e, sqe_type to, bool explicit_cast, bexpr **out,
                 sqe_error *err) {
    binder b;
    memset(&b, 0, sizeof b);
    b.pctx = pctx;
    b.err = err;
    return bind_cast(&b, e, to, explicit_cast, e->line, e->col, out);
}

int bind_scalar_expr(plan_ctx *pctx, const bind_env *env, const sql_expr *e, bexpr **out,
                     sqe_error *err) {
    binder b;
    memset(&b, 0, sizeof b);
    b.pctx = pctx;
    b.env = env;
    b.err = err;
    b.clause = "this expression";
    bind_scope empty;
    memset(&empty, 0, sizeof empty);
    return bind_expr(&b, &empty, e, out);
}
