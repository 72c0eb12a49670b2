/*
 * op_values.c: VALUES rows (PLAN_VALUES), a single-threaded source.
 *
 * INTERFACE: exec_op_values_create (ops.h).
 * NOTES: constant cells (the usual case) are copied from their plan constants; other cells
 * (VALUES (rand()), (1 + ?)) are compiled once and evaluated on a one-row input per cell, so
 * volatile functions give a fresh value per row. Rows are produced in order, up to
 * VEC_CHUNK_SIZE per chunk.
 */
#include <stdlib.h>

#include "exec/ops.h"

typedef struct values_impl {
    const bexpr *const *cells; /* n_rows * n_cols */
    exec_expr **compiled;      /* per cell, NULL for constants */
    uint8_t *null_cell;        /* per cell: an untyped NULL literal */
    uint32_t n_rows, n_cols;
} values_impl;

typedef struct values_g {
    uint32_t next_row;
    exec_expr_state **st;      /* per cell, created on first use */
    vec_chunk one;             /* empty one-row input */
} values_g;

static int values_init(exec_op *op, void **gstate, sqe_error *err) {
    values_impl *v = op->impl;
    values_g *g = calloc(1, sizeof *g);
    if (!g) return err_nomem(err, "values");
    size_t n = (size_t)v->n_rows * v->n_cols;
    g->st = calloc(n ? n : 1, sizeof *g->st);
    if (!g->st) {
        free(g);
        return err_nomem(err, "values");
    }
    g->one.count = 1;
    g->one.capacity = 1;
    *gstate = g;
    return SQE_OK;
}

static void values_destroy_g(exec_op *op, void *gstate) {
    values_impl *v = op->impl;
    values_g *g = gstate;
    if (!g) return;
    size_t n = (size_t)v->n_rows * v->n_cols;
    for (size_t i = 0; i < n; i++) exec_expr_state_destroy(g->st[i]);
    free(g->st);
    free(g);
}

static int values_next(exec_op *op, void *gstate, void *lstate, vec_chunk *out, sqe_error *err) {
    values_impl *v = op->impl;
    values_g *g = gstate;
    uint32_t r = 0;
    while (g->next_row < v->n_rows && r < out->capacity) {
        uint32_t row = g->next_row;
        for (uint32_t c = 0; c < v->n_cols; c++) {
            size_t k = (size_t)row * v->n_cols + c;
            const vec *val;
            if (v->null_cell[k]) {
                if (vec_set_null(&out->cols[c], r) != SQE_OK) return err_nomem(err, "validity");
                continue;
            }
            if (v->compiled[k]) {
                if (!g->st[k])
                    SQE_TRY(exec_expr_state_create(v->compiled[k], op->qctx, &g->st[k], err));
                SQE_TRY(exec_expr_eval_view(g->st[k], &g->one, NULL, 1, &val, err));
            } else {
                val = v->cells[k]->u.constant;
            }
            SQE_TRY(exec_vec_copy(&out->cols[c], NULL, r, val, NULL, 1, true, err));
        }
        g->next_row++;
        r++;
    }
    out->count = r;
    return SQE_OK;
}

static uint32_t values_max_threads(exec_op *op, void *gstate) { return 1; }

static const exec_op_vtable values_vt = {
    .name = "Values",
    .source_init = values_init,
    .source_next = values_next,
    .source_destroy = values_destroy_g,
    .source_serial = true,
    .source_max_threads = values_max_threads,
};

int exec_op_values_create(exec_query_ctx *qctx, const plan *p, exec_op **out, sqe_error *err) {
    exec_op *op = exec_op_alloc(qctx, &values_vt, p, 0);
    values_impl *v = ARENA_NEW(qctx->arena, values_impl);
    if (!op || !v) return err_nomem(err, "operator");
    op->impl = v;
    v->n_rows = p->u.values.n_rows;
    v->n_cols = p->n_out;
    v->cells = (const bexpr *const *)p->u.values.cells;
    size_t n = (size_t)v->n_rows * v->n_cols;
    v->compiled = ARENA_ARRAY(qctx->arena, exec_expr *, n + 1);
    v->null_cell = ARENA_ARRAY(qctx->arena, uint8_t, n + 1);
    if (!v->compiled || !v->null_cell) return err_nomem(err, "operator");
    exec_layout empty = {NULL, 0};
    for (size_t k = 0; k < n; k++) {
        const bexpr *e = v->cells[k];
        if (!e) return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "VALUES cell missing");
        if (e->type.id == TYPE_UNKNOWN) {
            v->null_cell[k] = 1;
            continue;
        }
        if (!exec_types_compatible(e->type, p->out[k % v->n_cols].type) ||
            (e->kind == BEXPR_CONST && e->u.constant &&
             !exec_types_compatible(e->u.constant->type, p->out[k % v->n_cols].type)))
            return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR,
                           "VALUES cell type differs from the column type");
        if (e->kind == BEXPR_CONST && e->u.constant) continue;
        SQE_TRY(exec_expr_compile(qctx, e, &empty, &v->compiled[k], err));
    }
    exec_op_set_detail(op, "%u rows", v->n_rows);
    *out = op;
    return SQE_OK;
}
