/*
 * op_table_func.c: scan of a scan source (PLAN_TABLE_FUNC: Iceberg tables, read_parquet,
 * read_csv, rows built at bind time), driven through the scan-source interface
 * (scan/scan_source.h); the sources themselves live in scan/.
 *
 * INTERFACE: exec_op_table_func_create (ops.h).
 * NOTES: source_init prepares the source (scan_source_prepare: filter, morsels, EXPLAIN
 * ANALYZE note); threads take morsels from an atomic counter and open one reader each, which
 * fills the output chunk directly. A
 * pushed-down filter is still applied here: the reader then fills a private chunk and the
 * output becomes views of its surviving rows.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/ops.h"
#include "scan/scan_source.h"

typedef struct tfunc_impl {
    const plan_source *src;
    const uint32_t *columns;
    uint32_t n_cols;
    exec_expr *filter;
    const bexpr *filter_expr;    /* for the source's set_filter */
    plan_col_id *col_ids;
} tfunc_impl;

typedef struct tfunc_g {
    uint32_t n_morsels;
    _Atomic uint32_t next;
} tfunc_g;

typedef struct tfunc_l {
    void *reader;
    uint32_t morsel;             /* of the open reader */
    uint32_t batch;              /* batches read from it */
    exec_expr_state *fst;
    vec_chunk inner;
    bool inner_ok;
    uint32_t *sel;
} tfunc_l;

static int tfunc_init(exec_op *op, void **gstate, sqe_error *err) {
    tfunc_impl *t = op->impl;
    tfunc_g *g = calloc(1, sizeof *g);
    if (!g) return err_nomem(err, "table function");
    atomic_init(&g->next, 0);
    char note[200];
    int rc = scan_source_prepare(t->src, t->filter_expr, t->col_ids, t->columns, t->n_cols,
                                 op->qctx->threads, &g->n_morsels, note, sizeof note, err);
    if (rc != SQE_OK) {
        free(g);
        return rc;
    }
    size_t len = strlen(op->detail);
    if (note[0] && len + 3 < sizeof op->detail)
        snprintf(op->detail + len, sizeof op->detail - len, "%s%s", len ? "  " : "", note);
    *gstate = g;
    return SQE_OK;
}

static uint32_t tfunc_max_threads(exec_op *op, void *gstate) {
    tfunc_g *g = gstate;
    return g && g->n_morsels ? g->n_morsels : 1;
}

static void tfunc_destroy_g(exec_op *op, void *gstate) { free(gstate); }

static void tfunc_local_destroy(exec_op *op, void *lstate) {
    tfunc_impl *t = op->impl;
    tfunc_l *l = lstate;
    if (!l) return;
    scan_source_close(t->src, l->reader);
    exec_expr_state_destroy(l->fst);
    if (l->inner_ok) vec_chunk_destroy(&l->inner);
    mem_free(op->qctx->tracker, l->sel);
    free(l);
}

static int tfunc_local_init(exec_op *op, void *gstate, void **lstate, sqe_error *err) {
    tfunc_impl *t = op->impl;
    tfunc_l *l = calloc(1, sizeof *l);
    if (!l) return err_nomem(err, "table function");
    int rc = SQE_OK;
    if (t->filter) {
        rc = exec_expr_state_create(t->filter, op->qctx, &l->fst, err);
        if (rc == SQE_OK) {
            l->inner_ok = true;
            rc = exec_chunk_create_for(op, &l->inner, err);
        }
        if (rc == SQE_OK) {
            l->sel = mem_alloc(op->qctx->tracker, VEC_CHUNK_SIZE * sizeof(uint32_t), err);
            if (!l->sel) rc = err ? err->code : SQE_ERR_OUT_OF_MEMORY;
        }
    }
    if (rc != SQE_OK) {
        tfunc_local_destroy(op, l);
        return rc;
    }
    *lstate = l;
    return SQE_OK;
}

static int tfunc_next(exec_op *op, void *gstate, void *lstate, vec_chunk *out, sqe_error *err) {
    tfunc_impl *t = op->impl;
    tfunc_g *g = gstate;
    tfunc_l *l = lstate;
    for (;;) {
        if (!l->reader) {
            uint32_t m = atomic_fetch_add(&g->next, 1);
            if (m >= g->n_morsels) {
                out->count = 0;
                return SQE_OK;
            }
            SQE_TRY(scan_source_open(t->src, m, t->columns, t->n_cols, &l->reader, err));
            l->morsel = m;
            l->batch = 0;
        }
        /* Chunks carry (morsel, batch) so results can keep the source's order. */
        uint64_t seq = ((uint64_t)(l->morsel + 1) << 32) | ++l->batch;
        vec_chunk *dst = t->filter ? &l->inner : out;
        vec_chunk_reset(dst);
        SQE_TRY(scan_source_next(t->src, l->reader, dst, err));
        if (dst->count == 0) {
            scan_source_close(t->src, l->reader);
            l->reader = NULL;
            continue;
        }
        if (!t->filter) {
            out->seq = seq;
            return SQE_OK;
        }
        if (dst->count > VEC_CHUNK_SIZE)
            return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "source chunk too large");
        uint32_t n;
        SQE_TRY(exec_expr_select(l->fst, dst, NULL, dst->count, l->sel, &n, err));
        atomic_fetch_add_explicit(&op->profile.rows_in, dst->count, memory_order_relaxed);
        if (n == 0) continue;
        SQE_TRY(exec_chunk_slice(out, dst, n == dst->count ? NULL : l->sel, n, err));
        out->seq = seq;
        return SQE_OK;
    }
}

static const exec_op_vtable tfunc_vt = {
    .name = "TableFunction",
    .source_init = tfunc_init,
    .source_local_init = tfunc_local_init,
    .source_next = tfunc_next,
    .source_local_destroy = tfunc_local_destroy,
    .source_destroy = tfunc_destroy_g,
    .source_max_threads = tfunc_max_threads,
};

int exec_op_table_func_create(exec_query_ctx *qctx, const plan *p, exec_op **out, sqe_error *err) {
    const plan_source *src = p->u.tfunc.source;
    if (!src || !src->open || !src->next)
        return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "table function without a source");
    for (uint32_t i = 0; i < p->n_out; i++)
        if (!p->u.tfunc.columns || p->u.tfunc.columns[i] >= src->n_columns)
            return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "table function column out of range");
    exec_op *op = exec_op_alloc(qctx, &tfunc_vt, p, 0);
    tfunc_impl *t = ARENA_NEW(qctx->arena, tfunc_impl);
    if (!op || !t) return err_nomem(err, "operator");
    op->impl = t;
    t->src = src;
    t->columns = p->u.tfunc.columns;
    t->n_cols = p->n_out;
    if (p->u.tfunc.filter) {
        t->filter_expr = p->u.tfunc.filter;
        t->col_ids = ARENA_ARRAY(qctx->arena, plan_col_id, p->n_out + 1);
        if (!t->col_ids) return err_nomem(err, "operator");
        for (uint32_t i = 0; i < p->n_out; i++) t->col_ids[i] = p->out[i].id;
        exec_layout lay = exec_layout_of(p);
        SQE_TRY(exec_expr_compile(qctx, p->u.tfunc.filter, &lay, &t->filter, err));
    }
    exec_op_set_detail(op, "%s", p->u.tfunc.name ? p->u.tfunc.name : "?");
    exec_op_detail_expr(op, "filter: ", p->u.tfunc.filter, p);
    *out = op;
    return SQE_OK;
}
