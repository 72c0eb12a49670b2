/*
 * op_sort.c: ORDER BY (PLAN_SORT) and ORDER BY ... LIMIT (PLAN_TOPN).
 *
 * INTERFACE: exec_op_sort_create (ops.h).
 * NOTES (ENGINE.md "Sort, top-N, window"):
 * - Rows are copied into a thread-local row store (the output columns, plus the values of
 *   string/nested sort keys that are not output columns, for tie-breaks); each row gets a
 *   fixed-width entry [normalized key][row pointer].
 * - SORT: each thread radix-sorts its entries when it combines (in parallel), finalize merges
 *   the runs, and the serial source gathers the rows in order. When a string key may be
 *   truncated, finalize sorts all entries at once instead of merging (a merge would fetch the
 *   strings of both run heads from their rows at every tie).
 * - TOPN: each thread keeps a bounded max-heap of limit + offset entries; rows are copied only
 *   when their key beats the current worst entry, and the store is compacted when evicted rows
 *   pile up. Finalize sorts the union of the heaps and keeps [offset, offset + limit). Never a
 *   full sort (a limit too large for a heap falls back to the sort path).
 * - Equal normalized keys holding truncated values (strings longer than the key prefix,
 *   nested values) are ordered by comparing the stored values (tie-break).
 */
#include <stdlib.h>
#include <string.h>

#include "exec/hashtable.h"
#include "exec/ops.h"
#include "exec/sort_keys.h"

#define TOPN_MAX_HEAP 200000

typedef struct sort_impl {
    uint32_t n_keys;
    exec_expr **keys;
    int32_t *key_col;         /* input column of a plain-column key, or -1 */
    int32_t *key_field;       /* payload field holding the key's value (truncated keys), -1 */
    exec_sort_spec spec;
    exec_sort_ctx cmp;        /* tie-breaks through the stored key values */
    exec_row_layout layout;   /* payload: input columns in_cols, then extra key fields */
    uint32_t n_in_fields;
    uint32_t *in_cols;        /* field f < n_in_fields holds input column in_cols[f] */
    uint32_t *out_field;      /* output column c = field out_field[c] */
    bool topn;
    uint64_t limit, offset;
    uint64_t heap_cap;        /* limit + offset, or 0 for a full sort */
} sort_impl;

typedef struct sort_local {
    struct sort_local *next;
    exec_expr_state **key_st;
    const vec **keyv;
    exec_row_store store;
    uint8_t *entries;         /* sort: growing array; topn: scratch for one chunk */
    uint64_t n_entries, cap_entries;
    exec_topn_heap heap;
    bool heap_ok;
    uint8_t **rows;
    uint32_t *cand;
    uint64_t wasted;          /* topn: rows stored but evicted or rejected */
} sort_local;

typedef struct sort_global {
    pthread_mutex_t lock;
    sort_local *locals;
    uint8_t *final;           /* sorted entries (owned unless it is a local's array) */
    bool final_owned;
    uint64_t n_final;
    uint64_t first;           /* topn: the offset into final */
} sort_global;

typedef struct sort_src {
    uint64_t pos;
} sort_src;

static int sort_tiebreak(void *ud, const uint8_t *a, const uint8_t *b) {
    const sort_impl *im = ud;
    const exec_sort_spec *s = &im->spec;
    const uint8_t *ra = (const uint8_t *)(uintptr_t)exec_sort_payload(s, a);
    const uint8_t *rb = (const uint8_t *)(uintptr_t)exec_sort_payload(s, b);
    for (uint32_t k = 0; k < s->n_keys; k++) {
        const exec_sort_key *key = &s->keys[k];
        int c;
        if (key->truncated && im->key_field[k] >= 0) {
            c = exec_sort_compare_fields(key, &im->layout, ra, rb, (uint32_t)im->key_field[k]);
        } else {
            c = memcmp(a + key->offset, b + key->offset, key->width);
        }
        if (c) return c;
    }
    return 0;
}

static const sqe_str *sort_str(void *ud, const uint8_t *e, uint32_t k) {
    const sort_impl *im = ud;
    const uint8_t *row = (const uint8_t *)(uintptr_t)exec_sort_payload(&im->spec, e);
    return (const sqe_str *)(const void *)(row + im->layout.offsets[im->key_field[k]]);
}

static int unknown_tiebreak(void *ud, const uint8_t *a, const uint8_t *b) { return 0; }
static const exec_sort_ctx unknown_ctx = {unknown_tiebreak, NULL, NULL};

/* --------------------------------------------------------------------------------------------
 * Sink
 * ------------------------------------------------------------------------------------------ */

static void sort_local_free(exec_op *op, sort_local *l) {
    if (!l) return;
    sort_impl *im = op->impl;
    mem_tracker *t = op->qctx->tracker;
    if (l->key_st)
        for (uint32_t k = 0; k < im->n_keys; k++) exec_expr_state_destroy(l->key_st[k]);
    mem_free(t, l->key_st);
    mem_free(t, l->keyv);
    exec_row_store_destroy(&l->store);
    mem_free(t, l->entries);
    if (l->heap_ok) exec_topn_heap_destroy(&l->heap);
    mem_free(t, l->rows);
    mem_free(t, l->cand);
    mem_free(t, l);
}

static int sort_local_init(exec_op *op, void *gstate, uint32_t input_idx, void **lstate,
                           sqe_error *err) {
    sort_impl *im = op->impl;
    mem_tracker *t = op->qctx->tracker;
    sort_local *l = mem_calloc(t, sizeof *l, err);
    if (!l) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
    exec_row_store_init(&l->store, &im->layout, t);
    int rc = SQE_OK;
    l->key_st = mem_calloc(t, sizeof(exec_expr_state *) * (im->n_keys + 1), err);
    l->keyv = mem_calloc(t, sizeof(vec *) * (im->n_keys + 1), err);
    l->rows = mem_alloc(t, sizeof(uint8_t *) * VEC_CHUNK_SIZE, err);
    l->cand = mem_alloc(t, sizeof(uint32_t) * VEC_CHUNK_SIZE, err);
    if (!l->key_st || !l->keyv || !l->rows || !l->cand) rc = err ? err->code : SQE_ERR_OUT_OF_MEMORY;
    for (uint32_t k = 0; k < im->n_keys && rc == SQE_OK; k++)
        rc = exec_expr_state_create(im->keys[k], op->qctx, &l->key_st[k], err);
    if (rc == SQE_OK && im->heap_cap) {
        rc = exec_topn_heap_init(&l->heap, &im->spec, im->heap_cap, &im->cmp, t, err);
        l->heap_ok = rc == SQE_OK;
        if (rc == SQE_OK) {
            l->entries = mem_alloc(t, (size_t)VEC_CHUNK_SIZE * im->spec.entry_width, err);
            if (!l->entries) rc = err ? err->code : SQE_ERR_OUT_OF_MEMORY;
        }
    }
    if (rc != SQE_OK) {
        sort_local_free(op, l);
        return rc;
    }
    *lstate = l;
    return SQE_OK;
}

static void sort_local_destroy(exec_op *op, void *gstate, void *lstate) {
    sort_local_free(op, lstate);
}

/* Copies rows sel[0..n) of the chunk into the store (rows into l->rows). */
static int store_rows(sort_impl *im, sort_local *l, const vec_chunk *in, const uint32_t *sel,
                      uint32_t n, sqe_error *err) {
    SQE_TRY(exec_row_store_append(&l->store, n, l->rows, err));
    for (uint32_t f = 0; f < im->n_in_fields; f++)
        SQE_TRY(exec_row_scatter(&l->store, f, &in->cols[im->in_cols[f]], sel, n, l->rows, err));
    for (uint32_t k = 0; k < im->n_keys; k++)
        if (im->key_field[k] >= (int32_t)im->n_in_fields)
            SQE_TRY(exec_row_scatter(&l->store, (uint32_t)im->key_field[k], l->keyv[k], sel, n,
                                     l->rows, err));
    return SQE_OK;
}

/* topn: rebuilds the store with only the rows the heap still references. */
static int compact(exec_op *op, sort_impl *im, sort_local *l, sqe_error *err) {
    exec_row_store fresh;
    exec_row_store_init(&fresh, &im->layout, op->qctx->tracker);
    uint32_t W = im->spec.entry_width;
    for (uint64_t i = 0; i < l->heap.size; i++) {
        uint8_t *e = l->heap.entries + i * W;
        const uint8_t *old = (const uint8_t *)(uintptr_t)exec_sort_payload(&im->spec, e);
        uint8_t *row;
        int rc = exec_row_copy(&fresh, old, &row, err);
        if (rc != SQE_OK) {
            exec_row_store_destroy(&fresh);
            return rc;
        }
        exec_sort_set_payload(&im->spec, e, (uint64_t)(uintptr_t)row);
    }
    exec_row_store_destroy(&l->store);
    l->store = fresh;
    l->wasted = 0;
    return SQE_OK;
}

static int sort_sink(exec_op *op, void *gstate, void *lstate, const vec_chunk *in,
                     sqe_error *err) {
    sort_impl *im = op->impl;
    sort_local *l = lstate;
    uint32_t n = in->count;
    if (n == 0 || (im->topn && im->limit == 0)) return SQE_OK;
    if (n > VEC_CHUNK_SIZE)
        return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "sort input chunk too large");
    uint32_t W = im->spec.entry_width;
    for (uint32_t k = 0; k < im->n_keys; k++) {
        if (im->key_col[k] >= 0)
            l->keyv[k] = &in->cols[im->key_col[k]];
        else
            SQE_TRY(exec_expr_eval_view(l->key_st[k], in, NULL, n, &l->keyv[k], err));
    }
    if (!im->heap_cap) {
        if (l->n_entries + n > l->cap_entries) {
            uint64_t cap = l->cap_entries ? l->cap_entries * 2 : 4096;
            while (cap < l->n_entries + n) cap *= 2;
            uint8_t *p = mem_realloc(op->qctx->tracker, l->entries, (size_t)cap * W, err);
            if (!p) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
            l->entries = p;
            l->cap_entries = cap;
        }
        /* every key byte and the payload are written below; the padding is never read */
        uint8_t *e = l->entries + l->n_entries * W;
        for (uint32_t k = 0; k < im->n_keys; k++) exec_sort_encode(&im->spec, k, l->keyv[k], NULL, n, e, W);
        SQE_TRY(store_rows(im, l, in, NULL, n, err));
        for (uint32_t i = 0; i < n; i++)
            exec_sort_set_payload(&im->spec, e + (size_t)i * W, (uint64_t)(uintptr_t)l->rows[i]);
        l->n_entries += n;
        return SQE_OK;
    }
    /* top-N: encode, keep the rows that beat the current worst */
    uint8_t *e = l->entries;
    memset(e, 0, (size_t)n * W);
    for (uint32_t k = 0; k < im->n_keys; k++) exec_sort_encode(&im->spec, k, l->keyv[k], NULL, n, e, W);
    uint32_t nc = 0;
    for (uint32_t i = 0; i < n; i++) {
        /* rows not stored yet cannot be tie-broken: compare key bytes only, up to the first
         * truncated value, and admit ties (decided after storing) */
        uint8_t *ei = e + (size_t)i * W;
        if (l->heap.size < l->heap.capacity ||
            (im->spec.needs_tiebreak
                 ? exec_sort_cmp_from(&im->spec, ei, l->heap.entries, 0, &unknown_ctx) <= 0
                 : memcmp(ei, l->heap.entries, im->spec.key_width) < 0))
            l->cand[nc++] = i;
    }
    if (nc == 0) return SQE_OK;
    SQE_TRY(store_rows(im, l, in, l->cand, nc, err));
    for (uint32_t j = 0; j < nc; j++) {
        uint8_t *ei = e + (size_t)l->cand[j] * W;
        exec_sort_set_payload(&im->spec, ei, (uint64_t)(uintptr_t)l->rows[j]);
        if (exec_topn_heap_admits(&l->heap, ei)) {
            if (exec_topn_heap_push(&l->heap, ei, NULL)) l->wasted++;
        } else {
            l->wasted++;
        }
    }
    if (l->wasted > l->heap.capacity + 4096) SQE_TRY(compact(op, im, l, err));
    return SQE_OK;
}

static int sort_combine(exec_op *op, void *gstate, void *lstate, sqe_error *err) {
    sort_impl *im = op->impl;
    sort_global *g = gstate;
    sort_local *l = lstate;
    /* runs are sorted here, in parallel, and merged by finalize, unless truncated string keys
     * may tie: merging those means fetching the strings of the run heads from the rows (cache
     * misses per comparison), so finalize sorts everything at once instead */
    if (!im->heap_cap && !im->spec.needs_tiebreak)
        SQE_TRY(exec_sort_entries(&im->spec, l->entries, l->n_entries, &im->cmp,
                                  op->qctx->tracker, err));
    pthread_mutex_lock(&g->lock);
    l->next = g->locals;
    g->locals = l;
    pthread_mutex_unlock(&g->lock);
    return SQE_OK;
}

static int sort_sink_init(exec_op *op, void **gstate, sqe_error *err) {
    sort_global *g = mem_calloc(op->qctx->tracker, sizeof *g, err);
    if (!g) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
    pthread_mutex_init(&g->lock, NULL);
    *gstate = g;
    return SQE_OK;
}

static void sort_sink_destroy(exec_op *op, void *gstate) {
    sort_global *g = gstate;
    if (!g) return;
    while (g->locals) {
        sort_local *l = g->locals;
        g->locals = l->next;
        sort_local_free(op, l);
    }
    if (g->final_owned) mem_free(op->qctx->tracker, g->final);
    pthread_mutex_destroy(&g->lock);
    mem_free(op->qctx->tracker, g);
}

static int sort_finalize(exec_op *op, void *gstate, sqe_error *err) {
    sort_impl *im = op->impl;
    sort_global *g = gstate;
    mem_tracker *t = op->qctx->tracker;
    uint32_t W = im->spec.entry_width;
    uint32_t n_runs = 0;
    uint64_t total = 0;
    for (sort_local *l = g->locals; l; l = l->next) {
        uint64_t n = im->heap_cap ? l->heap.size : l->n_entries;
        if (n) n_runs++;
        total += n;
    }
    if (total == 0) return SQE_OK;
    if (im->heap_cap) {
        g->final = mem_alloc(t, (size_t)total * W, err);
        if (!g->final) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
        g->final_owned = true;
        uint64_t k = 0;
        for (sort_local *l = g->locals; l; l = l->next) {
            if (l->heap.size) memcpy(g->final + k * W, l->heap.entries, (size_t)l->heap.size * W);
            k += l->heap.size;
        }
        SQE_TRY(exec_sort_entries(&im->spec, g->final, total, &im->cmp, t, err));
        g->first = im->offset < total ? im->offset : total;
        uint64_t end = im->offset + im->limit < total ? im->offset + im->limit : total;
        g->n_final = end;
        return SQE_OK;
    }
    if (n_runs == 1) {
        for (sort_local *l = g->locals; l; l = l->next)
            if (l->n_entries) g->final = l->entries;
        g->n_final = total;
        if (im->spec.needs_tiebreak)
            SQE_TRY(exec_sort_entries(&im->spec, g->final, total, &im->cmp, t, err));
    } else if (im->spec.needs_tiebreak) {
        g->final = mem_alloc(t, (size_t)total * W, err);
        if (!g->final) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
        g->final_owned = true;
        uint64_t k = 0;
        for (sort_local *l = g->locals; l; l = l->next) {
            if (l->n_entries) memcpy(g->final + k * W, l->entries, (size_t)l->n_entries * W);
            k += l->n_entries;
            mem_free(t, l->entries);
            l->entries = NULL;
            l->n_entries = 0;
        }
        g->n_final = total;
        SQE_TRY(exec_sort_entries(&im->spec, g->final, total, &im->cmp, t, err));
    } else {
        uint8_t **runs = mem_alloc(t, sizeof(uint8_t *) * n_runs, err);
        uint64_t *run_n = mem_alloc(t, sizeof(uint64_t) * n_runs, err);
        g->final = mem_alloc(t, (size_t)total * W, err);
        if (!runs || !run_n || !g->final) {
            mem_free(t, runs);
            mem_free(t, run_n);
            return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
        }
        g->final_owned = true;
        uint32_t r = 0;
        for (sort_local *l = g->locals; l; l = l->next)
            if (l->n_entries) {
                runs[r] = l->entries;
                run_n[r++] = l->n_entries;
            }
        exec_sort_merge(&im->spec, runs, run_n, n_runs, g->final, &im->cmp);
        mem_free(t, runs);
        mem_free(t, run_n);
        /* the runs are no longer needed */
        for (sort_local *l = g->locals; l; l = l->next) {
            mem_free(t, l->entries);
            l->entries = NULL;
            l->n_entries = 0;
        }
        g->n_final = total;
    }
    if (im->topn) {
        g->first = im->offset < total ? im->offset : total;
        g->n_final = im->offset + im->limit < total ? im->offset + im->limit : total;
    }
    return SQE_OK;
}

/* --------------------------------------------------------------------------------------------
 * Source (serial, in order)
 * ------------------------------------------------------------------------------------------ */

static int sort_source_init(exec_op *op, void **gstate, sqe_error *err) {
    sort_src *s = mem_calloc(op->qctx->tracker, sizeof *s, err);
    if (!s) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
    sort_global *g = op->sink_gstate;
    s->pos = g ? g->first : 0;
    *gstate = s;
    return SQE_OK;
}

static void sort_source_destroy(exec_op *op, void *gstate) { mem_free(op->qctx->tracker, gstate); }

static int sort_next(exec_op *op, void *gstate, void *lstate, vec_chunk *out, sqe_error *err) {
    sort_impl *im = op->impl;
    sort_global *g = op->sink_gstate;
    sort_src *s = gstate;
    out->count = 0;
    if (!g || s->pos >= g->n_final) return SQE_OK;
    uint64_t left = g->n_final - s->pos;
    uint32_t n = left < VEC_CHUNK_SIZE ? (uint32_t)left : VEC_CHUNK_SIZE;
    uint32_t W = im->spec.entry_width;
    uint8_t *rows[VEC_CHUNK_SIZE];
    for (uint32_t i = 0; i < n; i++)
        rows[i] = (uint8_t *)(uintptr_t)exec_sort_payload(&im->spec, g->final + (s->pos + i) * W);
    for (uint32_t c = 0; c < out->n_cols; c++)
        SQE_TRY(exec_row_gather(&im->layout, im->out_field[c], rows, n, &out->cols[c], 0, err));
    s->pos += n;
    out->count = n;
    return SQE_OK;
}

static const exec_op_vtable sort_vt = {
    .name = "Sort",
    .source_init = sort_source_init,
    .source_next = sort_next,
    .source_destroy = sort_source_destroy,
    .source_serial = true,
    .sink_init = sort_sink_init,
    .sink_local_init = sort_local_init,
    .sink = sort_sink,
    .sink_combine = sort_combine,
    .sink_finalize = sort_finalize,
    .sink_destroy = sort_sink_destroy,
    .sink_local_destroy = sort_local_destroy,
};

static const exec_op_vtable topn_vt = {
    .name = "TopN",
    .source_init = sort_source_init,
    .source_next = sort_next,
    .source_destroy = sort_source_destroy,
    .source_serial = true,
    .sink_init = sort_sink_init,
    .sink_local_init = sort_local_init,
    .sink = sort_sink,
    .sink_combine = sort_combine,
    .sink_finalize = sort_finalize,
    .sink_destroy = sort_sink_destroy,
    .sink_local_destroy = sort_local_destroy,
};

int exec_op_sort_create(exec_query_ctx *qctx, const plan *p, exec_op *child, exec_op **out,
                        sqe_error *err) {
    bool topn = p->kind == PLAN_TOPN;
    exec_op *op = exec_op_alloc(qctx, topn ? &topn_vt : &sort_vt, p, 1);
    sort_impl *im = ARENA_NEW(qctx->arena, sort_impl);
    if (!op || !im) return err_nomem(err, "operator");
    op->children[0] = child;
    op->impl = im;
    arena *A = qctx->arena;
    const plan *in = p->children[0];
    exec_layout lay = exec_layout_of(in);
    uint32_t nk = p->u.sort.n_keys;
    im->n_keys = nk;
    im->keys = ARENA_ARRAY(A, exec_expr *, nk + 1);
    im->key_col = ARENA_ARRAY(A, int32_t, nk + 1);
    im->key_field = ARENA_ARRAY(A, int32_t, nk + 1);
    sqe_type *kt = ARENA_ARRAY(A, sqe_type, nk + 1);
    bool *kd = ARENA_ARRAY(A, bool, nk + 1);
    bool *kn = ARENA_ARRAY(A, bool, nk + 1);
    im->in_cols = ARENA_ARRAY(A, uint32_t, p->n_out + 1);
    im->out_field = ARENA_ARRAY(A, uint32_t, p->n_out + 1);
    sqe_type *ft = ARENA_ARRAY(A, sqe_type, p->n_out + nk + 1);
    if (!im->keys || !im->key_col || !im->key_field || !kt || !kd || !kn || !im->in_cols ||
        !im->out_field || !ft)
        return err_nomem(err, "operator");
    /* payload fields: the output columns (found in the input by id) */
    uint32_t nf = 0;
    for (uint32_t c = 0; c < p->n_out; c++) {
        int ic = plan_find_col(in, p->out[c].id);
        if (ic < 0) return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "sort output column not in input");
        uint32_t f;
        for (f = 0; f < nf; f++)
            if (im->in_cols[f] == (uint32_t)ic) break;
        if (f == nf) {
            im->in_cols[nf] = (uint32_t)ic;
            ft[nf++] = in->out[ic].type;
        }
        im->out_field[c] = f;
    }
    im->n_in_fields = nf;
    for (uint32_t k = 0; k < nk; k++) {
        const plan_sort_key *sk = &p->u.sort.keys[k];
        SQE_TRY(exec_expr_compile(qctx, sk->expr, &lay, &im->keys[k], err));
        kt[k] = sk->expr->type;
        kd[k] = sk->desc;
        kn[k] = sk->nulls_first;
        uint32_t pos;
        im->key_col[k] = exec_expr_is_column(im->keys[k], &pos) ? (int32_t)pos : -1;
        im->key_field[k] = -1;
    }
    SQE_TRY(exec_sort_spec_init(&im->spec, A, kt, kd, kn, nk, err));
    for (uint32_t k = 0; k < nk; k++) {
        if (!im->spec.keys[k].truncated) continue;
        if (im->key_col[k] >= 0)
            for (uint32_t f = 0; f < im->n_in_fields; f++)
                if (im->in_cols[f] == (uint32_t)im->key_col[k]) im->key_field[k] = (int32_t)f;
        if (im->key_field[k] < 0) {
            im->key_field[k] = (int32_t)nf;
            ft[nf++] = kt[k];
        }
    }
    SQE_TRY(exec_row_layout_init_plain(&im->layout, A, ft, nf, err));
    im->cmp = (exec_sort_ctx){sort_tiebreak, sort_str, im};
    if (topn) {
        int64_t lim = p->u.sort.limit < 0 ? INT64_MAX / 4 : p->u.sort.limit;
        int64_t offv = p->u.sort.offset < 0 ? 0 : p->u.sort.offset;
        im->topn = true;
        im->limit = (uint64_t)lim;
        im->offset = (uint64_t)offv;
        if (im->limit + im->offset <= TOPN_MAX_HEAP) im->heap_cap = im->limit + im->offset;
        if (im->limit == 0) im->heap_cap = 0;
    }
    for (uint32_t k = 0; k < nk && k < 3; k++)
        exec_op_detail_expr(op, k ? ", " : "keys: ", p->u.sort.keys[k].expr, in);
    *out = op;
    return SQE_OK;
}
