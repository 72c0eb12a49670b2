/*
 * op_nl_join.c: joins without equi keys (PLAN_JOIN without keys, CROSS JOIN): nested loops over
 * the materialized build side.
 *
 * INTERFACE: exec_op_nl_join_create (ops.h).
 * NOTES:
 * - Build (sink, child 1): chunks are copied into a thread-local list; finalize concatenates
 *   the lists and numbers the rows (a "found" byte per build row for RIGHT/FULL).
 * - Probe (op, child 0): for each input chunk, the cross product with one build chunk at a time
 *   is cut into batches of at most VEC_CHUNK_SIZE pairs (a few build rows times the probe rows);
 *   both sides of a batch are zero-copy views (probe chunk and build chunk through pair
 *   selections), the residual is evaluated on the batch, and passing pairs are emitted as views
 *   too. SEMI/ANTI/MARK only pair probe rows not matched yet; MARK evaluates the residual as a
 *   value so a NULL result can make the mark NULL (mark_null_aware).
 * - LEFT/FULL/SINGLE emit unmatched probe rows after the last build chunk; RIGHT/FULL emit the
 *   unmatched build rows from the source role after the probe pipeline (as the hash join).
 */
#include <stdlib.h>
#include <string.h>

#include "exec/chunk_store.h"
#include "exec/hashtable.h"
#include "exec/ops.h"

enum { SIDE_LEFT = 0, SIDE_RIGHT, SIDE_MARK };

typedef struct nl_impl {
    uint8_t type;
    exec_expr *residual;
    bool mark_null_aware;
    uint32_t n_left, n_right;
    sqe_type *pair_types;
    uint32_t n_out;
    uint8_t *out_side;
    uint32_t *out_idx;
    bool outer_build, outer_probe, semi_like;
} nl_impl;

typedef struct nl_local {
    exec_chunk_list rows;     /* this thread's build rows */
} nl_local;

typedef struct nl_global {
    exec_chunk_store build;   /* every thread's build rows; sealed by finalize */
    uint8_t *found;           /* RIGHT/FULL: per build row */
} nl_global;

typedef struct nl_probe {
    exec_expr_state *res_st;
    vec_chunk pairs;
    bool pairs_ok;
    vec resv;                 /* MARK: residual values */
    bool resv_ok;
    int phase;                /* 0 new input, 1 pairs, 2 tail */
    uint32_t bc, br;          /* next build chunk and row */
    uint32_t active[VEC_CHUNK_SIZE];
    uint32_t n_active;
    uint8_t matched[VEC_CHUNK_SIZE];
    uint8_t maybe[VEC_CHUNK_SIZE]; /* MARK: some residual was NULL */
    uint32_t pair_probe[VEC_CHUNK_SIZE];
    uint32_t pair_build[VEC_CHUNK_SIZE];
    uint32_t res_sel[VEC_CHUNK_SIZE];
    uint32_t out_probe[VEC_CHUNK_SIZE];
    uint32_t out_build[VEC_CHUNK_SIZE];
    int8_t marks[VEC_CHUNK_SIZE];
} nl_probe;

typedef struct nlt_src {
    _Atomic uint32_t next;
} nlt_src;

/* --------------------------------------------------------------------------------------------
 * Build
 * ------------------------------------------------------------------------------------------ */

static void nl_local_free(exec_op *op, nl_local *l) {
    if (!l) return;
    mem_tracker *t = op->qctx->tracker;
    exec_chunk_list_destroy(&l->rows, t);
    mem_free(t, l);
}

static int nl_local_init(exec_op *op, void *gstate, uint32_t input_idx, void **lstate,
                         sqe_error *err) {
    nl_local *l = mem_calloc(op->qctx->tracker, sizeof *l, err);
    if (!l) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
    *lstate = l;
    return SQE_OK;
}

static void nl_local_destroy(exec_op *op, void *gstate, void *lstate) { nl_local_free(op, lstate); }

static int nl_sink(exec_op *op, void *gstate, void *lstate, const vec_chunk *in, sqe_error *err) {
    nl_local *l = lstate;
    if (in->count > VEC_CHUNK_SIZE)
        return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "join build chunk too large");
    return exec_chunk_list_append_copy(&l->rows, in, op->qctx->tracker, err);
}

/* Moves the thread's rows into the store; the local state ends here (the driver does not
 * destroy a combined local state). */
static int nl_combine(exec_op *op, void *gstate, void *lstate, sqe_error *err) {
    nl_global *g = gstate;
    nl_local *l = lstate;
    int rc = exec_chunk_store_add(&g->build, &l->rows, op->qctx->tracker, err);
    nl_local_free(op, l);
    return rc;
}

static int nl_sink_init(exec_op *op, void **gstate, sqe_error *err) {
    nl_global *g = mem_calloc(op->qctx->tracker, sizeof *g, err);
    if (!g) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
    exec_chunk_store_init(&g->build);
    *gstate = g;
    return SQE_OK;
}

static void nl_sink_destroy(exec_op *op, void *gstate) {
    nl_global *g = gstate;
    if (!g) return;
    mem_tracker *t = op->qctx->tracker;
    exec_chunk_store_destroy(&g->build, t);
    mem_free(t, g->found);
    mem_free(t, g);
}

static int nl_finalize(exec_op *op, void *gstate, sqe_error *err) {
    nl_impl *im = op->impl;
    nl_global *g = gstate;
    mem_tracker *t = op->qctx->tracker;
    SQE_TRY(exec_chunk_store_seal(&g->build, t, err));
    if (im->outer_build) {
        uint64_t rows = exec_chunk_store_rows(&g->build);
        g->found = mem_calloc(t, rows ? rows : 1, err);
        if (!g->found) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
    }
    return SQE_OK;
}

/* --------------------------------------------------------------------------------------------
 * Probe
 * ------------------------------------------------------------------------------------------ */

static void nl_probe_destroy(exec_op *op, void *lstate) {
    nl_probe *l = lstate;
    if (!l) return;
    exec_expr_state_destroy(l->res_st);
    if (l->pairs_ok) vec_chunk_destroy(&l->pairs);
    if (l->resv_ok) vec_destroy(&l->resv);
    mem_free(op->qctx->tracker, l);
}

static int nl_probe_init(exec_op *op, void **lstate, sqe_error *err) {
    nl_impl *im = op->impl;
    mem_tracker *t = op->qctx->tracker;
    nl_probe *l = mem_calloc(t, sizeof *l, err);
    if (!l) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
    int rc = vec_chunk_init(&l->pairs, im->n_left + im->n_right, im->pair_types, VEC_CHUNK_SIZE, t,
                            err);
    l->pairs_ok = true;
    if (rc == SQE_OK && im->residual) rc = exec_expr_state_create(im->residual, op->qctx, &l->res_st, err);
    if (rc == SQE_OK && im->residual && im->type == JOIN_MARK) {
        rc = vec_init(&l->resv, type_make(TYPE_BOOLEAN), VEC_CHUNK_SIZE, t, err);
        l->resv_ok = true;
    }
    if (rc != SQE_OK) {
        nl_probe_destroy(op, l);
        return rc;
    }
    *lstate = l;
    return SQE_OK;
}

/* Next batch of pairs within one build chunk: returns the count (0 = no build rows left). */
static uint32_t nl_next_pairs(nl_probe *l, const nl_global *g, uint32_t *chunk_idx) {
    while (l->bc < exec_chunk_store_count(&g->build) &&
           l->br >= exec_chunk_store_chunk(&g->build, l->bc)->count) {
        l->bc++;
        l->br = 0;
    }
    if (l->bc >= exec_chunk_store_count(&g->build) || l->n_active == 0) return 0;
    const vec_chunk *b = exec_chunk_store_chunk(&g->build, l->bc);
    uint32_t per = VEC_CHUNK_SIZE / l->n_active;
    if (per == 0) per = 1;
    uint32_t end = l->br + per < b->count ? l->br + per : b->count;
    uint32_t k = 0;
    for (uint32_t j = l->br; j < end; j++)
        for (uint32_t a = 0; a < l->n_active; a++) {
            l->pair_probe[k] = l->active[a];
            l->pair_build[k++] = j;
        }
    *chunk_idx = l->bc;
    l->br = end;
    return k;
}

static int nl_emit(exec_op *op, const vec_chunk *in, const vec_chunk *build, vec_chunk *out,
                   const uint32_t *psel, const uint32_t *bsel, const int8_t *marks, uint32_t cnt,
                   sqe_error *err) {
    nl_impl *im = op->impl;
    for (uint32_t c = 0; c < im->n_out; c++) {
        vec *v = &out->cols[c];
        switch (im->out_side[c]) {
        case SIDE_LEFT:
            if (!in)
                vec_set_const_null(v);
            else
                SQE_TRY(exec_vec_slice(v, &in->cols[im->out_idx[c]], psel, cnt, err));
            break;
        case SIDE_RIGHT:
            if (!build)
                vec_set_const_null(v);
            else
                SQE_TRY(exec_vec_slice(v, &build->cols[im->out_idx[c]], bsel, cnt, err));
            break;
        default:
            for (uint32_t i = 0; i < cnt; i++) {
                VEC_DATA(v, uint8_t)[i] = marks[i] > 0;
                if (marks[i] < 0 && vec_set_null(v, i) != SQE_OK)
                    return exec_alloc_error(v->tracker, 0, err, "validity");
            }
            break;
        }
    }
    out->count = cnt;
    return SQE_OK;
}

static int nl_execute(exec_op *op, void *lstate, const vec_chunk *in, vec_chunk *out,
                      exec_op_result *res, sqe_error *err) {
    nl_impl *im = op->impl;
    nl_global *g = op->sink_gstate;
    nl_probe *l = lstate;
    uint32_t n = in->count;
    *res = EXEC_NEED_INPUT;
    out->count = 0;
    if (n == 0) return SQE_OK;
    if (n > VEC_CHUNK_SIZE)
        return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "join probe chunk too large");
    uint8_t type = im->type;
    if (l->phase == 0) {
        l->bc = l->br = 0;
        memset(l->matched, 0, n);
        memset(l->maybe, 0, n);
        for (uint32_t r = 0; r < n; r++) l->active[r] = r;
        l->n_active = n;
        l->phase = 1;
    }
    while (l->phase == 1) {
        uint32_t bci = 0;
        uint32_t k = nl_next_pairs(l, g, &bci);
        if (k == 0) {
            l->phase = 2;
            break;
        }
        const vec_chunk *b = exec_chunk_store_chunk(&g->build, bci);
        uint32_t np = k;
        const uint32_t *pass = NULL; /* NULL: every pair passes */
        if (im->residual) {
            vec_chunk *pc = &l->pairs;
            for (uint32_t c = 0; c < im->n_left; c++)
                SQE_TRY(exec_vec_slice(&pc->cols[c], &in->cols[c], l->pair_probe, k, err));
            for (uint32_t c = 0; c < im->n_right; c++)
                SQE_TRY(exec_vec_slice(&pc->cols[im->n_left + c], &b->cols[c], l->pair_build, k, err));
            pc->count = k;
            if (type == JOIN_MARK) {
                vec_reset(&l->resv);
                SQE_TRY(exec_expr_eval(l->res_st, pc, NULL, k, &l->resv, err));
                np = 0;
                for (uint32_t j = 0; j < k; j++) {
                    if (!vec_is_valid_flat(&l->resv, j))
                        l->maybe[l->pair_probe[j]] = 1;
                    else if (VEC_DATA(&l->resv, uint8_t)[j])
                        l->res_sel[np++] = j;
                }
            } else {
                SQE_TRY(exec_expr_select(l->res_st, pc, NULL, k, l->res_sel, &np, err));
            }
            pass = l->res_sel;
        }
        for (uint32_t j = 0; j < np; j++) {
            uint32_t pj = pass ? pass[j] : j;
            uint32_t r = l->pair_probe[pj];
            if (type == JOIN_SINGLE && l->matched[r])
                return err_set(err, SQE_ERR_SUBQUERY_MULTIPLE_ROWS,
                               "Scalar sub-query has returned multiple rows");
            l->matched[r] = 1;
            if (im->outer_build)
                __atomic_store_n(&g->found[exec_chunk_store_base(&g->build, bci) + l->pair_build[pj]], 1, __ATOMIC_RELAXED);
        }
        if (im->semi_like) {
            /* pair only rows not matched yet from now on */
            uint32_t m = 0;
            for (uint32_t a = 0; a < l->n_active; a++)
                if (!l->matched[l->active[a]]) l->active[m++] = l->active[a];
            l->n_active = m;
            continue;
        }
        if (np == 0) continue;
        for (uint32_t j = 0; j < np; j++) {
            uint32_t pj = pass ? pass[j] : j;
            l->out_probe[j] = l->pair_probe[pj];
            l->out_build[j] = l->pair_build[pj];
        }
        SQE_TRY(nl_emit(op, in, b, out, l->out_probe, l->out_build, NULL, np, err));
        *res = EXEC_HAVE_MORE; /* more pairs or the tail may follow */
        return SQE_OK;
    }
    /* tail */
    l->phase = 0;
    uint32_t k = 0;
    if (type == JOIN_MARK) {
        for (uint32_t r = 0; r < n; r++)
            l->marks[r] = l->matched[r] ? 1
                          : (im->mark_null_aware && l->maybe[r]) ? -1
                                                                  : 0;
        return nl_emit(op, in, NULL, out, NULL, NULL, l->marks, n, err);
    }
    if (type == JOIN_SEMI || type == JOIN_ANTI) {
        uint8_t want = type == JOIN_SEMI;
        for (uint32_t r = 0; r < n; r++)
            if (l->matched[r] == want) l->out_probe[k++] = r;
        return k ? nl_emit(op, in, NULL, out, k == n ? NULL : l->out_probe, NULL, NULL, k, err)
                 : SQE_OK;
    }
    if (im->outer_probe) {
        for (uint32_t r = 0; r < n; r++)
            if (!l->matched[r]) l->out_probe[k++] = r;
        if (k) return nl_emit(op, in, NULL, out, l->out_probe, NULL, NULL, k, err);
    }
    return SQE_OK;
}

/* --------------------------------------------------------------------------------------------
 * Unmatched build rows (RIGHT / FULL)
 * ------------------------------------------------------------------------------------------ */

static int nlt_source_init(exec_op *op, void **gstate, sqe_error *err) {
    nlt_src *s = mem_calloc(op->qctx->tracker, sizeof *s, err);
    if (!s) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
    atomic_init(&s->next, 0);
    *gstate = s;
    return SQE_OK;
}

static void nlt_source_destroy(exec_op *op, void *gstate) { mem_free(op->qctx->tracker, gstate); }

static int nlt_local_init(exec_op *op, void *gstate, void **lstate, sqe_error *err) {
    uint32_t *sel = mem_alloc(op->qctx->tracker, sizeof(uint32_t) * VEC_CHUNK_SIZE, err);
    if (!sel) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
    *lstate = sel;
    return SQE_OK;
}

static void nlt_local_destroy(exec_op *op, void *lstate) { mem_free(op->qctx->tracker, lstate); }

static int nlt_next(exec_op *op, void *gstate, void *lstate, vec_chunk *out, sqe_error *err) {
    nl_global *g = op->sink_gstate;
    nlt_src *s = gstate;
    uint32_t *sel = lstate;
    out->count = 0;
    for (;;) {
        uint32_t c = atomic_fetch_add(&s->next, 1);
        if (!g || c >= exec_chunk_store_count(&g->build)) return SQE_OK;
        const vec_chunk *b = exec_chunk_store_chunk(&g->build, c);
        uint32_t k = 0;
        for (uint32_t r = 0; r < b->count; r++)
            if (!g->found[exec_chunk_store_base(&g->build, c) + r]) sel[k++] = r;
        if (k) return nl_emit(op, NULL, b, out, NULL, sel, NULL, k, err);
    }
}

static uint32_t nlt_max_threads(exec_op *op, void *gstate) {
    nl_global *g = op->sink_gstate;
    return g && exec_chunk_store_count(&g->build) ? exec_chunk_store_count(&g->build) : 1;
}

/* --------------------------------------------------------------------------------------------
 * Construction
 * ------------------------------------------------------------------------------------------ */

#define NL_VT_COMMON                                                                               \
    .op_local_init = nl_probe_init, .op_execute = nl_execute, .op_local_destroy = nl_probe_destroy, \
    .sink_init = nl_sink_init, .sink_local_init = nl_local_init, .sink = nl_sink,                  \
    .sink_combine = nl_combine, .sink_finalize = nl_finalize, .sink_destroy = nl_sink_destroy,     \
    .sink_local_destroy = nl_local_destroy

static const exec_op_vtable nl_vt = {
    .name = "NestedLoopJoin",
    NL_VT_COMMON,
};

static const exec_op_vtable nl_outer_vt = {
    .name = "NestedLoopJoin",
    NL_VT_COMMON,
    .source_init = nlt_source_init,
    .source_local_init = nlt_local_init,
    .source_next = nlt_next,
    .source_local_destroy = nlt_local_destroy,
    .source_destroy = nlt_source_destroy,
    .source_max_threads = nlt_max_threads,
};

int exec_op_nl_join_create(exec_query_ctx *qctx, const plan *p, exec_op *probe, exec_op *build,
                           exec_op **out, sqe_error *err) {
    uint8_t type = p->u.join.type;
    if (type < JOIN_INNER || type > JOIN_CROSS)
        return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "join of type %u", type);
    bool outer_build = type == JOIN_RIGHT || type == JOIN_FULL;
    exec_op *op = exec_op_alloc(qctx, outer_build ? &nl_outer_vt : &nl_vt, p, 2);
    nl_impl *im = ARENA_NEW(qctx->arena, nl_impl);
    if (!op || !im) return err_nomem(err, "operator");
    op->children[0] = probe;
    op->children[1] = build;
    op->impl = im;
    arena *A = qctx->arena;
    const plan *left = p->children[0], *right = p->children[1];
    im->type = type;
    im->outer_build = outer_build;
    im->outer_probe = type == JOIN_LEFT || type == JOIN_FULL || type == JOIN_SINGLE;
    im->semi_like = type == JOIN_SEMI || type == JOIN_ANTI || type == JOIN_MARK;
    im->mark_null_aware = p->u.join.mark_null_aware;
    im->n_left = left->n_out;
    im->n_right = right->n_out;
    im->n_out = p->n_out;
    im->pair_types = ARENA_ARRAY(A, sqe_type, im->n_left + im->n_right + 1);
    im->out_side = ARENA_ARRAY(A, uint8_t, p->n_out + 1);
    im->out_idx = ARENA_ARRAY(A, uint32_t, p->n_out + 1);
    plan_col *cols = ARENA_ARRAY(A, plan_col, im->n_left + im->n_right + 1);
    if (!im->pair_types || !im->out_side || !im->out_idx || !cols) return err_nomem(err, "operator");
    memcpy(cols, left->out, sizeof(plan_col) * im->n_left);
    memcpy(cols + im->n_left, right->out, sizeof(plan_col) * im->n_right);
    for (uint32_t c = 0; c < im->n_left + im->n_right; c++) im->pair_types[c] = cols[c].type;
    bexpr *cond = p->u.join.residual;
    if (p->u.join.n_keys > 0)
        return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "nested-loop join with equi keys");
    if (cond) {
        exec_layout pl = {cols, im->n_left + im->n_right};
        SQE_TRY(exec_expr_compile(qctx, cond, &pl, &im->residual, err));
    }
    bool right_out = !im->semi_like;
    for (uint32_t c = 0; c < p->n_out; c++) {
        int li = plan_find_col(left, p->out[c].id);
        if (li >= 0) {
            im->out_side[c] = SIDE_LEFT;
            im->out_idx[c] = (uint32_t)li;
            continue;
        }
        int ri = right_out ? plan_find_col(right, p->out[c].id) : -1;
        if (ri >= 0) {
            im->out_side[c] = SIDE_RIGHT;
            im->out_idx[c] = (uint32_t)ri;
            continue;
        }
        if (type == JOIN_MARK && p->out[c].id == p->u.join.mark) {
            im->out_side[c] = SIDE_MARK;
            continue;
        }
        return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "join output column %u has no source", c);
    }
    static const char *names[] = {"?", "INNER", "LEFT", "RIGHT", "FULL", "SEMI", "ANTI", "MARK", "SINGLE", "CROSS"};
    exec_op_set_detail(op, "%s", names[type]);
    if (cond) exec_op_detail_expr(op, " on: ", cond, p);
    *out = op;
    return SQE_OK;
}
