/*
 * op_scan.c: scan of an in-memory catalog table (PLAN_SCAN), the source of most pipelines.
 *
 * INTERFACE: exec_op_scan_create (ops.h).
 * NOTES: the table's version and morsels come from scan/scan_memory.h when the operator is
 * built (a chunk-list snapshot, so a self-join sees one version; morsels of consecutive stored
 * chunks, about four per thread), handed out here through an atomic counter. Columns are
 * handed out zero-copy: each output vector is a VEC_DICT view with sel == NULL over the stored
 * vector. A pushed-down filter is evaluated right here on those views; the surviving rows
 * become the views' selection, so nothing is copied either way.
 */
#include <stdlib.h>
#include <string.h>

#include "exec/ops.h"
#include "scan/scan_memory.h"

typedef struct scan_impl {
    scan_memory mem;             /* the table's version and morsels */
    bool mem_ok;
    const uint32_t *columns;
    uint32_t n_cols;
    exec_expr *filter;
} scan_impl;

typedef struct scan_g {
    _Atomic uint32_t next;
} scan_g;

typedef struct scan_l {
    uint32_t chunk, end;
    exec_expr_state *fst;
    uint32_t *sel;
} scan_l;

static int scan_init(exec_op *op, void **gstate, sqe_error *err) {
    scan_g *g = calloc(1, sizeof *g);
    if (!g) return err_nomem(err, "scan");
    atomic_init(&g->next, 0);
    *gstate = g;
    return SQE_OK;
}

static uint32_t scan_max_threads(exec_op *op, void *gstate) {
    scan_impl *s = op->impl;
    return s->mem.n_morsels ? s->mem.n_morsels : 1;
}

static void scan_local_destroy(exec_op *op, void *lstate) {
    scan_l *l = lstate;
    if (!l) return;
    exec_expr_state_destroy(l->fst);
    mem_free(op->qctx->tracker, l->sel);
    free(l);
}

static int scan_local_init(exec_op *op, void *gstate, void **lstate, sqe_error *err) {
    scan_impl *s = op->impl;
    scan_l *l = calloc(1, sizeof *l);
    if (!l) return err_nomem(err, "scan");
    if (s->filter) {
        int rc = exec_expr_state_create(s->filter, op->qctx, &l->fst, err);
        if (rc == SQE_OK) {
            l->sel = mem_alloc(op->qctx->tracker, VEC_CHUNK_SIZE * sizeof(uint32_t), err);
            if (!l->sel) rc = err ? err->code : SQE_ERR_OUT_OF_MEMORY;
        }
        if (rc != SQE_OK) {
            scan_local_destroy(op, l);
            return rc;
        }
    }
    *lstate = l;
    return SQE_OK;
}

static int scan_next(exec_op *op, void *gstate, void *lstate, vec_chunk *out, sqe_error *err) {
    scan_impl *s = op->impl;
    scan_g *g = gstate;
    scan_l *l = lstate;
    for (;;) {
        if (l->chunk >= l->end) {
            uint32_t m = atomic_fetch_add(&g->next, 1);
            if (m >= s->mem.n_morsels) {
                out->count = 0;
                return SQE_OK;
            }
            scan_memory_morsel(&s->mem, m, &l->chunk, &l->end);
            continue;
        }
        const vec_chunk *c = scan_memory_chunk(&s->mem, l->chunk++);
        if (c->count == 0) continue;
        for (uint32_t i = 0; i < s->n_cols; i++)
            vec_set_dict(&out->cols[i], &c->cols[s->columns[i]], NULL);
        out->count = c->count;
        out->seq = l->chunk; /* the stored chunk's position + 1: table order */
        if (!s->filter) return SQE_OK;
        if (c->count > VEC_CHUNK_SIZE)
            return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "stored chunk too large");
        uint32_t n;
        SQE_TRY(exec_expr_select(l->fst, out, NULL, c->count, l->sel, &n, err));
        atomic_fetch_add_explicit(&op->profile.rows_in, c->count, memory_order_relaxed);
        if (n == c->count) return SQE_OK;
        if (n == 0) continue;
        for (uint32_t i = 0; i < s->n_cols; i++)
            SQE_TRY(exec_vec_slice(&out->cols[i], &c->cols[s->columns[i]], l->sel, n, err));
        out->count = n;
        return SQE_OK;
    }
}

static void scan_destroy_g(exec_op *op, void *gstate) { free(gstate); }

static void scan_destroy(exec_op *op) {
    scan_impl *s = op->impl;
    if (s && s->mem_ok) scan_memory_close(&s->mem);
}

static const exec_op_vtable scan_vt = {
    .name = "Scan",
    .source_init = scan_init,
    .source_local_init = scan_local_init,
    .source_next = scan_next,
    .source_local_destroy = scan_local_destroy,
    .source_destroy = scan_destroy_g,
    .destroy = scan_destroy,
    .source_max_threads = scan_max_threads,
};

int exec_op_scan_create(exec_query_ctx *qctx, const plan *p, exec_op **out, sqe_error *err) {
    cat_table *t = p->u.scan.table;
    if (!t) return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "scan without a table");
    for (uint32_t i = 0; i < p->n_out; i++)
        if (!p->u.scan.columns || p->u.scan.columns[i] >= t->n_columns ||
            !exec_types_compatible(t->columns[p->u.scan.columns[i]].type, p->out[i].type))
            return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "scan column %u does not match the table", i);
    exec_op *op = exec_op_alloc(qctx, &scan_vt, p, 0);
    scan_impl *s = ARENA_NEW(qctx->arena, scan_impl);
    if (!op || !s) return err_nomem(err, "operator");
    op->impl = s;
    s->columns = p->u.scan.columns;
    s->n_cols = p->n_out;
    if (p->u.scan.filter) {
        exec_layout lay = exec_layout_of(p);
        SQE_TRY(exec_expr_compile(qctx, p->u.scan.filter, &lay, &s->filter, err));
        if (exec_expr_type(s->filter).id != TYPE_BOOLEAN)
            return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "scan filter is not boolean");
    }
    SQE_TRY(scan_memory_open(t, qctx->threads, &s->mem, err));
    s->mem_ok = true;
    exec_op_set_detail(op, "%s.%s.%s", t->catalog ? t->catalog : "?", t->schema ? t->schema : "?",
                       t->name ? t->name : "?");
    exec_op_detail_expr(op, "filter: ", p->u.scan.filter, p);
    *out = op;
    return SQE_OK;
}
