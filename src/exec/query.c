/*
 * query.c: the physical planner and the query object: turns an optimized logical plan into
 * physical operators (ops.h), runs them through the driver, streams the results, and explains
 * the physical plan with its profile.
 *
 * INTERFACE: exec_query_create, exec_query_next, exec_query_explain, exec_query_destroy.
 * NOTES: every operator gets its own exec_query_ctx whose memory tracker is a child of the
 * query's tracker: the query limit applies to everything, and EXPLAIN ANALYZE can report each
 * operator's peak memory. Joins with equi keys become hash joins, others nested-loop joins;
 * PLAN_SORT and PLAN_TOPN both go to the sort operator. exec_query_next streams the result
 * through the driver (driver_stream.c): the work runs while the caller reads, with bounded
 * buffering; with a result_sink (COPY TO) the first call runs everything into the sink.
 */
#include <stdlib.h>
#include <string.h>

#include "exec/driver.h"
#include "exec/ops.h"

struct exec_query {
    exec_options opts;
    arena arena;
    exec_query_ctx qctx;
    const plan *root;
    exec_op *result;
    exec_op **ops;
    uint32_t n_ops, cap_ops;
    exec_driver *driver;
    bool ran;
    bool sink_done; /* the result_sink run completed */
    int rc;
    sqe_error err;
};

static int op_ctx(exec_query *q, exec_query_ctx **out, sqe_error *err) {
    exec_query_ctx *c = ARENA_NEW(&q->arena, exec_query_ctx);
    mem_tracker *t = ARENA_NEW(&q->arena, mem_tracker);
    if (!c || !t) return err_nomem(err, "operator context");
    *c = q->qctx;
    mem_tracker_init(t, "operator", 0, q->qctx.tracker);
    c->tracker = t;
    *out = c;
    return SQE_OK;
}

static int register_op(exec_query *q, exec_op *op, sqe_error *err) {
    if (q->n_ops == q->cap_ops) {
        uint32_t cap = q->cap_ops ? q->cap_ops * 2 : 16;
        exec_op **p = realloc(q->ops, cap * sizeof *p);
        if (!p) return err_nomem(err, "operator list");
        q->ops = p;
        q->cap_ops = cap;
    }
    q->ops[q->n_ops++] = op;
    return SQE_OK;
}

static int build(exec_query *q, const plan *p, uint32_t depth, exec_op **out, sqe_error *err) {
    if (!p) return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "missing plan node");
    if (depth > 5000) return err_set(err, SQE_ERR_NOT_SUPPORTED, "plan too deep");
    exec_op *kid_small[2] = {NULL, NULL};
    exec_op **kids = kid_small;
    if (p->n_children > 2) {
        kids = ARENA_ARRAY(&q->arena, exec_op *, p->n_children);
        if (!kids) return err_nomem(err, "operator children");
    }
    for (uint32_t i = 0; i < p->n_children; i++)
        SQE_TRY(build(q, p->children[i], depth + 1, &kids[i], err));
    exec_query_ctx *c;
    SQE_TRY(op_ctx(q, &c, err));
    exec_op *op = NULL;
    int rc;
    uint32_t need = 0;
    switch (p->kind) {
    case PLAN_SCAN: rc = exec_op_scan_create(c, p, &op, err); break;
    case PLAN_VALUES: rc = exec_op_values_create(c, p, &op, err); break;
    case PLAN_EMPTY: rc = exec_op_empty_create(c, p, &op, err); break;
    case PLAN_TABLE_FUNC: rc = exec_op_table_func_create(c, p, &op, err); break;
    case PLAN_FILTER: need = 1; rc = SQE_OK; break;
    case PLAN_PROJECT: need = 1; rc = SQE_OK; break;
    case PLAN_LIMIT: need = 1; rc = SQE_OK; break;
    case PLAN_UNNEST: need = 1; rc = SQE_OK; break;
    case PLAN_AGGREGATE: need = 1; rc = SQE_OK; break;
    case PLAN_DISTINCT: need = 1; rc = SQE_OK; break;
    case PLAN_SORT:
    case PLAN_TOPN: need = 1; rc = SQE_OK; break;
    case PLAN_WINDOW: need = 1; rc = SQE_OK; break;
    case PLAN_ENFORCE_SINGLE: need = 1; rc = SQE_OK; break;
    case PLAN_JOIN: need = 2; rc = SQE_OK; break;
    case PLAN_SETOP: rc = exec_op_setop_create(c, p, kids, p->n_children, &op, err); break;
    default:
        return err_set(err, SQE_ERR_NOT_SUPPORTED, "plan node kind %u is not executable",
                       p->kind);
    }
    if (rc != SQE_OK) return rc;
    if (need) {
        if (p->n_children != need)
            return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR,
                           "plan node kind %u with %u inputs", p->kind, p->n_children);
        switch (p->kind) {
        case PLAN_FILTER: rc = exec_op_filter_create(c, p, kids[0], &op, err); break;
        case PLAN_PROJECT: rc = exec_op_project_create(c, p, kids[0], &op, err); break;
        case PLAN_LIMIT: rc = exec_op_limit_create(c, p, kids[0], &op, err); break;
        case PLAN_UNNEST: rc = exec_op_unnest_create(c, p, kids[0], &op, err); break;
        case PLAN_AGGREGATE: rc = exec_op_hash_agg_create(c, p, kids[0], &op, err); break;
        case PLAN_DISTINCT: rc = exec_op_distinct_create(c, p, kids[0], &op, err); break;
        case PLAN_SORT:
        case PLAN_TOPN: rc = exec_op_sort_create(c, p, kids[0], &op, err); break;
        case PLAN_WINDOW: rc = exec_op_window_create(c, p, kids[0], &op, err); break;
        case PLAN_ENFORCE_SINGLE:
            rc = exec_op_enforce_single_create(c, p, kids[0], &op, err);
            break;
        case PLAN_JOIN:
            if (p->u.join.n_keys > 0 && p->u.join.type != JOIN_CROSS)
                rc = exec_op_hash_join_create(c, p, kids[0], kids[1], &op, err);
            else
                rc = exec_op_nl_join_create(c, p, kids[0], kids[1], &op, err);
            break;
        default: break;
        }
        if (rc != SQE_OK) return rc;
    }
    if (!op) return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "no operator built");
    SQE_TRY(register_op(q, op, err));
    *out = op;
    return SQE_OK;
}

int exec_query_create(const plan *root, const exec_options *opts, exec_query **out,
                      sqe_error *err) {
    exec_query *q = calloc(1, sizeof *q);
    if (!q) return err_nomem(err, "query");
    q->opts = *opts;
    q->root = root;
    arena_init(&q->arena, opts->tracker);
    uint32_t pool_n = exec_pool_size(opts->pool);
    uint32_t threads = opts->threads && opts->threads < pool_n ? opts->threads : pool_n;
    if (!opts->pool || threads == 0) threads = 1;
    exec_query_ctx *c = &q->qctx;
    c->tracker = opts->tracker;
    c->session_zone = opts->session_zone;
    c->query_start_micros = opts->query_start_micros;
    c->random_seed = opts->random_seed;
    c->params = opts->params;
    c->n_params = opts->n_params;
    c->arena = &q->arena;
    c->cancel = opts->cancel;
    c->deadline_ns = opts->deadline_ns;
    c->time_limit_ms = opts->time_limit_ms;
    c->result_sink = opts->result_sink;
    c->result_sink_ud = opts->result_sink_ud;
    c->threads = threads;
    exec_op *top = NULL;
    int rc = build(q, root, 0, &top, err);
    exec_query_ctx *rctx = NULL;
    if (rc == SQE_OK) rc = op_ctx(q, &rctx, err);
    if (rc == SQE_OK) rc = exec_op_result_create(rctx, root, top, &q->result, err);
    if (rc == SQE_OK) rc = register_op(q, q->result, err);
    if (rc == SQE_OK)
        rc = exec_driver_create(&q->qctx, q->result, opts->pool, threads, opts->profile,
                                &q->driver, err);
    if (rc == SQE_OK && q->arena.failed) rc = err_nomem(err, "query arena");
    if (rc != SQE_OK) {
        exec_query_destroy(q);
        return rc;
    }
    *out = q;
    return SQE_OK;
}

int exec_query_next(exec_query *q, const vec_chunk **out, sqe_error *err) {
    *out = NULL;
    if (q->rc != SQE_OK) {
        if (err) *err = q->err;
        return q->rc;
    }
    q->ran = true;
    sqe_error local;
    memset(&local, 0, sizeof local);
    int rc;
    if (q->qctx.result_sink) {
        /* the consumer takes every chunk itself: run everything now */
        rc = q->sink_done ? SQE_OK : exec_driver_run(q->driver, &local);
        q->sink_done = true;
    } else {
        rc = exec_driver_next(q->driver, out, &local);
    }
    if (rc != SQE_OK) {
        q->rc = rc;
        q->err = local;
        if (err) *err = local;
    }
    return rc;
}

void exec_query_destroy(exec_query *q) {
    if (!q) return;
    exec_driver_destroy(q->driver);
    for (uint32_t i = q->n_ops; i-- > 0;)
        if (q->ops[i]->vt->destroy) q->ops[i]->vt->destroy(q->ops[i]);
    free(q->ops);
    arena_destroy(&q->arena);
    free(q);
}

/* --- EXPLAIN -------------------------------------------------------------------------------- */

static void put_bytes(strbuf *out, int64_t b) {
    if (b < 1024)
        strbuf_printf(out, "%lld B", (long long)b);
    else if (b < 1024 * 1024)
        strbuf_printf(out, "%.1f KB", (double)b / 1024.0);
    else if (b < (int64_t)1024 * 1024 * 1024)
        strbuf_printf(out, "%.1f MB", (double)b / (1024.0 * 1024.0));
    else
        strbuf_printf(out, "%.2f GB", (double)b / (1024.0 * 1024.0 * 1024.0));
}

static void put_time(strbuf *out, uint64_t ns) {
    double ms = (double)ns / 1e6;
    if (ms < 10)
        strbuf_printf(out, "%.2f ms", ms);
    else
        strbuf_printf(out, "%.1f ms", ms);
}

static void explain_op(const exec_query *q, const exec_op *op, uint32_t depth, strbuf *out) {
    for (uint32_t i = 0; i < depth; i++) strbuf_puts(out, "  ");
    strbuf_puts(out, op->vt->name);
    if (op->detail[0]) {
        strbuf_putc(out, ' ');
        strbuf_puts(out, op->detail);
    }
    if (q->opts.profile && q->ran) {
        uint64_t in = atomic_load(&op->profile.rows_in), o = atomic_load(&op->profile.rows_out);
        bool has_input = op->n_children > 0 || in > 0;
        if (has_input)
            strbuf_printf(out, "  rows: %llu -> %llu", (unsigned long long)in,
                          (unsigned long long)o);
        else
            strbuf_printf(out, "  rows: %llu", (unsigned long long)o);
        strbuf_puts(out, "  time: ");
        put_time(out, atomic_load(&op->profile.nanos));
        int64_t peak = op->qctx->tracker ? atomic_load(&op->qctx->tracker->peak) : 0;
        int64_t own = atomic_load(&op->profile.peak_bytes);
        if (own > peak) peak = own;
        if (peak > 0) {
            strbuf_puts(out, "  peak memory: ");
            put_bytes(out, peak);
        }
    }
    strbuf_putc(out, '\n');
    for (uint32_t i = 0; i < op->n_children; i++) explain_op(q, op->children[i], depth + 1, out);
}

void exec_query_explain(const exec_query *q, strbuf *out) {
    if (!q || !q->result) return;
    explain_op(q, q->result->children[0], 0, out);
    if (q->opts.profile && q->ran && q->opts.tracker) {
        strbuf_puts(out, "Query peak memory: ");
        put_bytes(out, atomic_load(&q->opts.tracker->peak));
        strbuf_putc(out, '\n');
    }
}
