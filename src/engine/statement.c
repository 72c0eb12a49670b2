/*
 * statement.c: running statements: parse, dispatch by kind, the query path (bind, optimize,
 * execute), EXPLAIN [ANALYZE], prepared statements (PREPARE / EXECUTE [IMMEDIATE] / DEALLOCATE
 * and the API's sqe_prepare), SET / RESET SESSION, and transaction statements (accepted; every
 * statement commits on its own). engine_execute records what the statement did (effects.c)
 * into the result.
 *
 * INTERFACE: sqe_query, sqe_prepare, sqe_stmt_*, engine_execute, engine_plan_query,
 *   engine_run_query, engine_explain.
 * NOTES: prepared statements keep their text and are re-bound at EXECUTE with the parameter
 * values as constants, so parameters type exactly like literals and plans always fit the values.
 * sqe_stmt_param_type binds the statement once with every parameter an untyped NULL and reads
 * each parameter's type off the implicit cast the binder put around it (or, for INSERT ...
 * VALUES, off the target column); the `?` positions are the parser's (sql_stmt.param_pos).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/engine.h"
#include "engine/ice_procedures.h"
#include "engine/merge_int.h"
#include "plan/optimize.h"

static int64_t now_micros(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int engine_plan_query(sqe_conn *conn, const sql_query *q, const vec *const *params,
                      uint32_t n_params, bool profile, sqe_result *r, bound_query *bq,
                      sqe_error *err) {
    return engine_plan_query_hook(conn, q, params, n_params, profile, NULL, NULL, r, bq, err);
}

typedef struct plan_opts {
    bool profile;
    engine_plan_hook hook;
    void *hook_ud;
    int (*sink)(void *ud, const vec_chunk *chunk, sqe_error *err);
    void *sink_ud;
} plan_opts;

static int plan_query(sqe_conn *conn, const sql_query *q, const vec *const *params,
                      uint32_t n_params, const plan_opts *po, sqe_result *r, bound_query *bq,
                      sqe_error *err);

int engine_plan_query_hook(sqe_conn *conn, const sql_query *q, const vec *const *params,
                           uint32_t n_params, bool profile, engine_plan_hook hook, void *hook_ud,
                           sqe_result *r, bound_query *bq, sqe_error *err) {
    plan_opts po = {.profile = profile, .hook = hook, .hook_ud = hook_ud};
    return plan_query(conn, q, params, n_params, &po, r, bq, err);
}

int engine_plan_query_sink(sqe_conn *conn, const sql_query *q, const vec *const *params,
                           uint32_t n_params,
                           int (*sink)(void *ud, const vec_chunk *chunk, sqe_error *err),
                           void *sink_ud, sqe_result *r, bound_query *bq, sqe_error *err) {
    plan_opts po = {.sink = sink, .sink_ud = sink_ud};
    return plan_query(conn, q, params, n_params, &po, r, bq, err);
}

int engine_plan_query_hook_sink(sqe_conn *conn, const sql_query *q, const vec *const *params,
                                uint32_t n_params, engine_plan_hook hook, void *hook_ud,
                                int (*sink)(void *ud, const vec_chunk *chunk, sqe_error *err),
                                void *sink_ud, sqe_result *r, bound_query *bq, sqe_error *err) {
    plan_opts po = {.hook = hook, .hook_ud = hook_ud, .sink = sink, .sink_ud = sink_ud};
    return plan_query(conn, q, params, n_params, &po, r, bq, err);
}

static int plan_query(sqe_conn *conn, const sql_query *q, const vec *const *params,
                      uint32_t n_params, const plan_opts *po, sqe_result *r, bound_query *bq,
                      sqe_error *err) {
    sqe_db *db = conn->db;
    int64_t limit = conn->query_max_memory ? conn->query_max_memory : db->query_memory_limit;
    r->db = db;
    r->user_mem = db_user_memory_acquire(db, conn->principal->user);
    mem_tracker_init(&r->tracker, "query", limit,
                     r->user_mem ? &r->user_mem->tracker : &db->tracker);
    r->row_limit = db->max_result_rows;
    arena_init(&r->arena, NULL);
    plan_ctx_init(&r->pctx, &r->arena, &r->tracker, exec_fold_const);
    r->pctx.cancel = conn->cancel;
    uint64_t deadline_ns = conn->deadline_ns;
    r->pctx.deadline_ns = deadline_ns;
    r->pctx.time_limit_ms = conn->time_limit_ms;
    r->has_plan = true;
    bind_env env;
    engine_bind_env(conn, &env);
    env.params = params;
    env.n_params = n_params;
    uint32_t mark = conn->effects ? conn->effects->n_pending : 0;
    SQE_TRY(bind_query(&r->pctx, &env, q, bq, err));
    if (po->hook) SQE_TRY(po->hook(po->hook_ud, &r->pctx, bq, err));
    int64_t start = now_micros();
    optimize_options oo = {conn->time_zone, start, conn->join_reorder};
    SQE_TRY(plan_optimize(&r->pctx, &bq->root, &oo, err));
    engine_effects_plan_done(conn->effects, mark); /* the columns each scan still reads */
    exec_options eo;
    memset(&eo, 0, sizeof eo);
    eo.pool = db->pool;
    eo.threads = conn->threads ? conn->threads : db->threads;
    eo.tracker = &r->tracker;
    eo.session_zone = conn->time_zone;
    eo.query_start_micros = start;
    eo.random_seed = (uint64_t)start;
    eo.profile = po->profile;
    eo.cancel = conn->cancel;
    eo.deadline_ns = deadline_ns;
    eo.time_limit_ms = conn->time_limit_ms;
    eo.result_sink = po->sink;
    eo.result_sink_ud = po->sink_ud;
    return exec_query_create(bq->root, &eo, &r->query, err);
}

int engine_run_query(sqe_conn *conn, const sql_query *q, const vec *const *params,
                     uint32_t n_params, bool profile, sqe_result **out, sqe_error *err) {
    sqe_result *r;
    SQE_TRY(engine_result_create(0, NULL, NULL, &r, err));
    bound_query bq;
    int rc = engine_plan_query(conn, q, params, n_params, profile, r, &bq, err);
    if (!rc) {
        sqe_type types[bq.root->n_out + 1];
        for (uint32_t i = 0; i < bq.root->n_out; i++) types[i] = bq.root->out[i].type;
        rc = engine_result_set_columns(r, bq.root->n_out, bq.names, types, err);
    }
    if (rc) {
        sqe_result_destroy(r);
        return rc;
    }
    *out = r;
    return SQE_OK;
}

/* A one-column result with one row per line of text (EXPLAIN output reads well in every
 * output format that way). */
static int text_result(const char *column, const char *text, sqe_result **out, sqe_error *err) {
    sqe_result *r;
    SQE_TRY(engine_result_create(1, &column, NULL, &r, err));
    int rc = SQE_OK;
    const char *p = text;
    while (!rc && *p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char *line = strndup(p, len);
        if (!line) {
            rc = err_nomem(err, "result");
            break;
        }
        const char *cell = line;
        rc = engine_result_add_text_row(r, &cell, err);
        free(line);
        p += len + (nl ? 1 : 0);
    }
    if (rc) {
        sqe_result_destroy(r);
        return rc;
    }
    *out = r;
    return SQE_OK;
}

int engine_explain(sqe_conn *conn, const sql_stmt *st, const vec *const *params,
                   uint32_t n_params, sqe_result **out, sqe_error *err) {
    const sql_stmt *inner = st->u.explain.stmt;
    if (inner->kind != SQL_STMT_QUERY)
        return err_set_at(err, SQE_ERR_NOT_SUPPORTED, inner->line, inner->col,
                          "EXPLAIN is supported for queries only");
    bool analyze = st->u.explain.analyze;
    sqe_result *r;
    SQE_TRY(engine_result_create(0, NULL, NULL, &r, err));
    bound_query bq;
    int rc = engine_plan_query(conn, inner->u.query, params, n_params, analyze, r, &bq, err);
    strbuf sb;
    strbuf_init(&sb);
    if (!rc && analyze) {
        const vec_chunk *c;
        do {
            rc = exec_query_next(r->query, &c, err);
        } while (!rc && c);
        if (!rc) exec_query_explain(r->query, &sb);
    } else if (!rc) {
        if (st->u.explain.type == SQL_EXPLAIN_DISTRIBUTED || st->u.explain.verbose)
            exec_query_explain(r->query, &sb);
        else
            plan_explain(bq.root, &sb);
    }
    sqe_result_destroy(r);
    if (!rc && sb.failed) rc = err_nomem(err, "explain");
    if (!rc) rc = text_result("Query Plan", strbuf_cstr(&sb), out, err);
    strbuf_reset(&sb);
    return rc;
}

/* --- prepared statements ------------------------------------------------------------------- */

static prepared *find_prepared(sqe_conn *conn, const char *name) {
    for (prepared *p = conn->prepared; p; p = p->next)
        if (strcmp(p->name, name) == 0) return p;
    return NULL;
}

/* EXECUTE name [USING ...] and EXECUTE IMMEDIATE 'text' [USING ...]. */
static int execute_prepared(sqe_conn *conn, const sql_stmt *st, sqe_result **out, sqe_error *err) {
    const char *ptext = st->u.execute.immediate;
    if (!ptext) {
        prepared *p = find_prepared(conn, st->u.execute.name.name);
        if (!p)
            return err_set_at(err, SQE_ERR_NOT_FOUND, st->u.execute.name.line,
                              st->u.execute.name.col, "Prepared statement not found: %s",
                              st->u.execute.name.text);
        ptext = p->text;
    }
    /* the text stays alive while it runs: a prepared statement replaced meanwhile (PREPARE
     * inside the executed statement cannot happen: PREPARE does not nest) */
    char *text = strdup(ptext);
    if (!text) return err_nomem(err, "statement");
    /* Evaluate the USING values as constants. */
    arena a;
    arena_init(&a, NULL);
    plan_ctx pctx;
    plan_ctx_init(&pctx, &a, NULL, exec_fold_const);
    bind_env env;
    engine_bind_env(conn, &env);
    uint32_t n = (uint32_t)st->u.execute.args.n;
    const vec **vals = ARENA_ARRAY(&a, const vec *, n + 1);
    int rc = vals ? SQE_OK : err_nomem(err, "parameters");
    for (uint32_t i = 0; !rc && i < n; i++) {
        bexpr *e;
        rc = bind_scalar_expr(&pctx, &env, st->u.execute.args.items[i], &e, err);
        if (!rc && e->kind != BEXPR_CONST) {
            bexpr *folded;
            rc = exec_fold_const(&pctx, e, conn->time_zone, now_micros(), &folded, err);
            e = folded;
        }
        if (!rc) vals[i] = e->u.constant;
    }
    if (!rc) {
        arena pa;
        arena_init(&pa, NULL);
        sql_stmt *parsed;
        rc = sql_parse(&pa, text, strlen(text), &parsed, err);
        if (!rc && (uint32_t)parsed->n_params != n)
            rc = err_set(err, SQE_ERR_INVALID_PARAMETER_USAGE,
                         "Incorrect number of parameters: expected %d but found %u",
                         parsed->n_params, n);
        if (!rc) rc = engine_execute(conn, parsed, text, vals, n, out, err);
        if (!rc && (*out)->has_plan && !(*out)->has_ast) {
            (*out)->ast_arena = pa;
            (*out)->has_ast = true;
        } else {
            arena_destroy(&pa);
        }
    }
    /* constants live in pctx: keep them alive with the result */
    if (!rc) {
        /* the result copied what it needs (bexpr_const_from) */
    }
    plan_ctx_destroy(&pctx);
    arena_destroy(&a);
    free(text);
    return rc;
}

static int prepare_stmt(sqe_conn *conn, const sql_stmt *st, sqe_error *err) {
    const char *name = st->u.prepare.name.name;
    prepared *p = find_prepared(conn, name);
    char *text = strdup(st->u.prepare.text);
    if (!text) return err_nomem(err, "prepared statement");
    if (p) {
        free(p->text);
        p->text = text;
        return SQE_OK;
    }
    p = calloc(1, sizeof *p);
    if (!p || !(p->name = strdup(name))) {
        free(p);
        free(text);
        return err_nomem(err, "prepared statement");
    }
    p->text = text;
    p->next = conn->prepared;
    conn->prepared = p;
    return SQE_OK;
}

static int deallocate(sqe_conn *conn, const sql_stmt *st, sqe_error *err) {
    for (prepared **pp = &conn->prepared; *pp; pp = &(*pp)->next) {
        if (strcmp((*pp)->name, st->u.prepared.name) != 0) continue;
        prepared *p = *pp;
        *pp = p->next;
        free(p->name);
        free(p->text);
        free(p);
        return SQE_OK;
    }
    return err_set_at(err, SQE_ERR_NOT_FOUND, st->u.prepared.line, st->u.prepared.col,
                      "Prepared statement not found: %s", st->u.prepared.text);
}

static int ok_result(sqe_result **out, sqe_error *err) { return engine_result_create(0, NULL, NULL, out, err); }

/* SET / RESET SESSION, recorded as a session change with the value as text. */
static int set_session(sqe_conn *conn, const sql_stmt *st, sqe_result **out, sqe_error *err) {
    char *value = NULL;
    SQE_TRY(engine_set_session(conn, st, &value, err));
    strbuf name; /* the property's dotted name as folded */
    strbuf_init(&name);
    const sql_qname *n = &st->u.set_session.name;
    for (int i = 0; i < n->n_parts; i++) {
        if (i) strbuf_putc(&name, '.');
        strbuf_puts(&name, n->parts[i].name);
    }
    engine_effects_change(conn->effects,
                          st->kind == SQL_STMT_RESET_SESSION ? SQE_CHANGE_PROPERTY_RESET
                                                             : SQE_CHANGE_PROPERTY_SET,
                          name.failed ? "" : strbuf_cstr(&name), value);
    strbuf_reset(&name);
    free(value);
    return ok_result(out, err);
}

static int dispatch(sqe_conn *conn, const sql_stmt *st, const vec *const *params,
                    uint32_t n_params, sqe_result **out, sqe_error *err);

/* Runs st and reports what it did: the outermost statement of a connection records into its
 * own engine_effects, which the result takes over; a statement run by it (EXECUTE) records
 * into the same one. */
int engine_execute(sqe_conn *conn, const sql_stmt *st, const char *text, const vec *const *params,
                   uint32_t n_params, sqe_result **out, sqe_error *err) {
    (void)text;
    *out = NULL;
    engine_effects fx, *outer = conn->effects;
    if (!outer) {
        memset(&fx, 0, sizeof fx);
        engine_effects_begin(&fx);
        conn->effects = &fx;
    }
    int rc = dispatch(conn, st, params, n_params, out, err);
    if (!rc) engine_effects_finish(conn->effects, conn, st);
    if (!outer) {
        conn->effects = NULL;
        free(fx.pending);
        fx.pending = NULL;
        fx.n_pending = 0;
        fx.sink.ud = NULL;
        if (!rc) {
            engine_effects_clear(&(*out)->fx);
            (*out)->fx = fx;
        } else {
            engine_effects_clear(&fx);
        }
    }
    return rc;
}

static int dispatch(sqe_conn *conn, const sql_stmt *st, const vec *const *params,
                    uint32_t n_params, sqe_result **out, sqe_error *err) {
    if ((uint32_t)st->n_params > n_params && st->kind != SQL_STMT_PREPARE)
        return err_set_at(err, SQE_ERR_INVALID_PARAMETER_USAGE, st->line, st->col,
                          "Incorrect number of parameters: expected %d but found %u", st->n_params,
                          n_params);
    switch (st->kind) {
    case SQL_STMT_QUERY:
        return engine_run_query(conn, st->u.query, params, n_params, false, out, err);
    case SQL_STMT_EXPLAIN:
        return engine_explain(conn, st, params, n_params, out, err);
    case SQL_STMT_COPY:
        return engine_copy(conn, st, params, n_params, out, err);
    case SQL_STMT_SHOW:
        return engine_show(conn, st, out, err);
    case SQL_STMT_PREPARE:
        SQE_TRY(prepare_stmt(conn, st, err));
        return ok_result(out, err);
    case SQL_STMT_EXECUTE:
        return execute_prepared(conn, st, out, err);
    case SQL_STMT_DEALLOCATE:
        SQE_TRY(deallocate(conn, st, err));
        return ok_result(out, err);
    case SQL_STMT_START_TRANSACTION:
    case SQL_STMT_COMMIT:
    case SQL_STMT_ROLLBACK:
        return ok_result(out, err);
    case SQL_STMT_CALL:
        return engine_ice_call(conn, st, params, n_params, out, err);
    case SQL_STMT_MERGE:
        return engine_merge(conn, st, params, n_params, out, err);
    case SQL_STMT_DESCRIBE_INPUT:
    case SQL_STMT_DESCRIBE_OUTPUT:
        return engine_show(conn, st, out, err);
    case SQL_STMT_SET_SESSION:
    case SQL_STMT_RESET_SESSION:
        return set_session(conn, st, out, err);
    default:
        return engine_ddl(conn, st, params, n_params, out, err);
    }
}

int sqe_query(sqe_conn *conn, const char *sql, sqe_result **out, sqe_error *err) {
    *out = NULL;
    if (!sql) return err_set(err, SQE_ERR_SYNTAX_ERROR, "empty statement");
    arena a;
    arena_init(&a, NULL);
    sql_stmt *st;
    int rc = sql_parse(&a, sql, strlen(sql), &st, err);
    if (!rc) rc = engine_execute(conn, st, sql, NULL, 0, out, err);
    if (!rc && (*out)->has_plan && !(*out)->has_ast) {
        (*out)->ast_arena = a;
        (*out)->has_ast = true;
    } else {
        arena_destroy(&a);
    }
    return rc;
}

/* --- API prepared statements ------------------------------------------------------------- */

struct sqe_stmt {
    sqe_conn *conn;
    char *text;
    int n_params;
    vec *params;   /* n_params 1-row vectors */
    bool *bound;
    char **param_types; /* inferred type names (sqe_stmt_param_type); NULL until asked */
};

int sqe_prepare(sqe_conn *conn, const char *sql, sqe_stmt **out, sqe_error *err) {
    arena a;
    arena_init(&a, NULL);
    sql_stmt *st;
    int rc = sql_parse(&a, sql, strlen(sql), &st, err);
    int n = rc ? 0 : st->n_params;
    arena_destroy(&a);
    SQE_TRY(rc);
    sqe_stmt *s = calloc(1, sizeof *s);
    if (!s) return err_nomem(err, "statement");
    s->conn = conn;
    s->text = strdup(sql);
    s->n_params = n;
    s->params = calloc((size_t)n + 1, sizeof(vec));
    s->bound = calloc((size_t)n + 1, sizeof(bool));
    if (!s->text || !s->params || !s->bound) {
        sqe_stmt_destroy(s);
        return err_nomem(err, "statement");
    }
    *out = s;
    return SQE_OK;
}

int sqe_stmt_param_count(const sqe_stmt *stmt) { return stmt->n_params; }

static int param_slot(sqe_stmt *s, int idx, sqe_type t, vec **v, sqe_error *err) {
    if (idx < 1 || idx > s->n_params)
        return err_set(err, SQE_ERR_INVALID_PARAMETER_USAGE, "Parameter index %d out of range 1..%d",
                       idx, s->n_params);
    *v = &s->params[idx - 1];
    if (s->bound[idx - 1]) vec_destroy(*v);
    s->bound[idx - 1] = false;
    SQE_TRY(vec_init(*v, t, 1, NULL, err));
    s->bound[idx - 1] = true;
    (*v)->shape = VEC_CONST;
    return SQE_OK;
}

int sqe_stmt_bind_null(sqe_stmt *stmt, int idx, sqe_error *err) {
    vec *v;
    SQE_TRY(param_slot(stmt, idx, type_make(TYPE_UNKNOWN), &v, err));
    return vec_set_null(v, 0) ? err_nomem(err, "parameter") : SQE_OK;
}

int sqe_stmt_bind_int64(sqe_stmt *stmt, int idx, int64_t value, sqe_error *err) {
    vec *v;
    SQE_TRY(param_slot(stmt, idx, type_make(TYPE_BIGINT), &v, err));
    VEC_DATA(v, int64_t)[0] = value;
    return SQE_OK;
}

int sqe_stmt_bind_double(sqe_stmt *stmt, int idx, double value, sqe_error *err) {
    vec *v;
    SQE_TRY(param_slot(stmt, idx, type_make(TYPE_DOUBLE), &v, err));
    VEC_DATA(v, double)[0] = value;
    return SQE_OK;
}

int sqe_stmt_bind_text(sqe_stmt *stmt, int idx, const char *value, sqe_error *err) {
    vec *v;
    SQE_TRY(param_slot(stmt, idx, type_varchar(0), &v, err));
    bool ok = true;
    VEC_DATA(v, sqe_str)[0] = vec_str_copy(v, value, (uint32_t)strlen(value), &ok);
    return ok ? SQE_OK : err_nomem(err, "parameter");
}

int sqe_stmt_execute(sqe_stmt *stmt, sqe_result **out, sqe_error *err) {
    const vec *vals[stmt->n_params + 1];
    for (int i = 0; i < stmt->n_params; i++) {
        if (!stmt->bound[i])
            return err_set(err, SQE_ERR_INVALID_PARAMETER_USAGE, "No value bound for parameter %d", i + 1);
        vals[i] = &stmt->params[i];
    }
    arena a;
    arena_init(&a, NULL);
    sql_stmt *st;
    int rc = sql_parse(&a, stmt->text, strlen(stmt->text), &st, err);
    if (!rc) rc = engine_execute(stmt->conn, st, stmt->text, vals, (uint32_t)stmt->n_params, out, err);
    if (!rc && (*out)->has_plan && !(*out)->has_ast) {
        (*out)->ast_arena = a;
        (*out)->has_ast = true;
    } else {
        arena_destroy(&a);
    }
    return rc;
}

/* --- parameter types: bind once with every parameter an untyped NULL ------------------------- */

/* The walk over a bound plan: pos[k] is the source position of `?` number k+1; a cast of an
 * untyped constant at that position gives the parameter's type. */
typedef struct param_infer {
    const sql_param_pos *pos;
    int n;
    sqe_type *types;
} param_infer;

static int param_at(const param_infer *pi, const bexpr *e) {
    if (!e || e->kind != BEXPR_CONST || e->type.id != TYPE_UNKNOWN) return -1;
    for (int k = 0; k < pi->n; k++)
        if (pi->pos[k].line == e->line && pi->pos[k].col == e->col) return k;
    return -1;
}

static void infer_plan(param_infer *pi, plan *p, int depth);

static void infer_expr(param_infer *pi, const bexpr *e, int depth) {
    if (!e || depth > 200) return;
    if (e->kind == BEXPR_CAST && e->n_args == 1) {
        int k = param_at(pi, e->args[0]);
        if (k >= 0 && pi->types[k].id == TYPE_UNKNOWN) pi->types[k] = e->type;
    }
    for (uint32_t i = 0; i < e->n_args; i++) infer_expr(pi, e->args[i], depth + 1);
    if (e->kind == BEXPR_SUBQUERY && e->u.subquery.query) infer_plan(pi, e->u.subquery.query, depth + 1);
}

static void infer_slot(void *ud, bexpr **slot) {
    param_infer *pi = ud;
    infer_expr(pi, *slot, 0);
}

static void infer_plan(param_infer *pi, plan *p, int depth) {
    if (!p || depth > 200) return;
    plan_for_each_expr(p, infer_slot, pi);
    for (uint32_t i = 0; i < p->n_children; i++) infer_plan(pi, p->children[i], depth + 1);
}

/* INSERT INTO t [(cols)] VALUES (?, ...): a bare parameter in column j of the rows takes the
 * type of the table column j is written to. */
static void infer_insert(param_infer *pi, const bind_env *env, const sql_stmt *st,
                         const plan *root) {
    while (root && root->kind == PLAN_PROJECT && root->n_children == 1) root = root->children[0];
    if (!root || root->kind != PLAN_VALUES) return;
    catalog *cat;
    const char *schema, *name;
    cat_table *t;
    if (bind_resolve_table_name(env, &st->u.insert.table, &cat, &schema, &name, NULL) ||
        catalog_get_table(cat, env->principal, schema, name, &t, NULL))
        return;
    const sql_ident_list *cl = &st->u.insert.columns;
    for (uint32_t j = 0; j < root->n_out; j++) {
        int tc = -1;
        if (cl->n == 0) {
            tc = j < t->n_columns ? (int)j : -1;
        } else if ((int)j < cl->n) {
            for (uint32_t c = 0; c < t->n_columns; c++)
                if (strcmp(t->columns[c].name, cl->items[j].name) == 0) tc = (int)c;
        }
        if (tc < 0) continue;
        for (uint32_t r = 0; r < root->u.values.n_rows; r++) {
            int k = param_at(pi, root->u.values.cells[(size_t)r * root->n_out + j]);
            if (k >= 0 && pi->types[k].id == TYPE_UNKNOWN) pi->types[k] = t->columns[tc].type;
        }
    }
    cat_table_unref(t);
}

/* Fills types[0..n) (all TYPE_UNKNOWN on entry) for the statement text; failures leave them. */
static void infer_param_types(sqe_stmt *s, sqe_type *types) {
    arena a;
    arena_init(&a, NULL);
    sql_stmt *st = NULL;
    vec *nulls = ARENA_ARRAY(&a, vec, (size_t)s->n_params + 1);
    const vec **vals = ARENA_ARRAY(&a, const vec *, (size_t)s->n_params + 1);
    if (!nulls || !vals || sql_parse(&a, s->text, strlen(s->text), &st, NULL)) {
        arena_destroy(&a);
        return;
    }
    const sql_param_pos *pos = st->param_pos; /* recorded by the parser */
    int n = st->n_params;
    int made = 0;
    bool ok = n == s->n_params && (n == 0 || pos) &&
              (st->kind == SQL_STMT_QUERY || st->kind == SQL_STMT_INSERT);
    for (; ok && made < n; made++) {
        if (vec_init(&nulls[made], type_make(TYPE_UNKNOWN), 1, NULL, NULL) != SQE_OK) break;
        nulls[made].shape = VEC_CONST;
        if (vec_set_null(&nulls[made], 0)) {
            made++;
            ok = false;
            break;
        }
        vals[made] = &nulls[made];
    }
    if (ok && made == n) {
        sqe_db *db = s->conn->db;
        mem_tracker tracker;
        arena qa;
        plan_ctx pctx;
        mem_tracker_init(&tracker, "parameter types", db->query_memory_limit, &db->tracker);
        arena_init(&qa, NULL);
        plan_ctx_init(&pctx, &qa, &tracker, exec_fold_const);
        bind_env env;
        engine_bind_env(s->conn, &env);
        env.params = vals;
        env.n_params = (uint32_t)n;
        param_infer pi = {pos, n, types};
        bound_query bq;
        const sql_query *q = st->kind == SQL_STMT_QUERY ? st->u.query : st->u.insert.query;
        if (q && bind_query(&pctx, &env, q, &bq, NULL) == SQE_OK) {
            infer_plan(&pi, bq.root, 0);
            if (st->kind == SQL_STMT_INSERT) infer_insert(&pi, &env, st, bq.root);
        }
        plan_ctx_destroy(&pctx);
        arena_destroy(&qa);
    }
    for (int i = 0; i < made; i++) vec_destroy(&nulls[i]);
    arena_destroy(&a);
}

const char *sqe_stmt_param_type(sqe_stmt *stmt, int idx) {
    if (!stmt || idx < 1 || idx > stmt->n_params) return "unknown";
    if (!stmt->param_types) {
        sqe_type *types = calloc((size_t)stmt->n_params, sizeof *types);
        char **names = calloc((size_t)stmt->n_params, sizeof *names);
        if (!types || !names) {
            free(types);
            free(names);
            return "unknown";
        }
        for (int i = 0; i < stmt->n_params; i++) types[i] = type_make(TYPE_UNKNOWN);
        infer_param_types(stmt, types);
        for (int i = 0; i < stmt->n_params; i++) {
            char buf[256];
            type_format(types[i], buf, sizeof buf);
            names[i] = strdup(types[i].id == TYPE_UNKNOWN ? "unknown" : buf);
        }
        free(types);
        stmt->param_types = names;
    }
    const char *t = stmt->param_types[idx - 1];
    return t ? t : "unknown";
}

void sqe_stmt_destroy(sqe_stmt *stmt) {
    if (!stmt) return;
    if (stmt->param_types)
        for (int i = 0; i < stmt->n_params; i++) free(stmt->param_types[i]);
    free(stmt->param_types);
    for (int i = 0; i < stmt->n_params; i++)
        if (stmt->bound && stmt->bound[i]) vec_destroy(&stmt->params[i]);
    free(stmt->params);
    free(stmt->bound);
    free(stmt->text);
    free(stmt);
}
