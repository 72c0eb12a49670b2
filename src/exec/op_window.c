/*
 * op_window.c: window functions (PLAN_WINDOW): ranking (row_number, rank, dense_rank,
 * percent_rank, cume_dist, ntile), offsets (lag, lead), frame values (first_value, last_value,
 * nth_value, with IGNORE NULLS) and aggregates over ROWS / RANGE / GROUPS frames.
 *
 * INTERFACE: exec_op_window_create (ops.h), exec_segtree_* (op_window_int.h).
 * NOTES (ENGINE.md "Sort, top-N, window"):
 * - Sink: each thread copies its input chunks together with the evaluated expressions the
 *   functions need (partition and order keys, arguments, FILTER, frame offsets; plain column
 *   references are not duplicated).
 * - Finalize: functions with the same PARTITION BY / ORDER BY form a group. Per group, the rows
 *   are sorted on normalized keys (partition keys, then order keys; radix sort + tie-break on
 *   the stored values), partition and peer boundaries are read off the sorted keys, and every
 *   column is re-materialized in sorted order, so partitions are contiguous ranges of row
 *   positions. The group's functions then run partition by partition and write their results
 *   into result columns of the sorted storage (later groups sort that storage again).
 * - Aggregates: a frame covering the whole partition is computed once; frames starting at
 *   UNBOUNDED PRECEDING whose end only moves forward (CURRENT ROW, constant offsets) are
 *   computed incrementally with one running state; every other frame uses a segment tree over
 *   combine (O(log n) combines per row).
 * - RANGE frames with offsets search the single order key's values (numbers, dates, timestamps
 *   with day-second intervals) by binary search; NULL keys form their own peer group.
 * - Source: the sorted storage chunks, handed out in parallel as zero-copy views.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exec/chunk_store.h"
#include "exec/hashtable.h"
#include "exec/op_window_int.h"
#include "exec/sort_keys.h"

/* --------------------------------------------------------------------------------------------
 * Segment tree
 * ------------------------------------------------------------------------------------------ */

int exec_segtree_init(exec_segtree *t, const func_agg_def *def, const void *bind_data, uint64_t n,
                      mem_tracker *tracker, sqe_error *err) {
    memset(t, 0, sizeof *t);
    t->def = def;
    t->bind_data = bind_data;
    t->state_size = (def->state_size + 15) & ~15u;
    if (t->state_size == 0) t->state_size = 16;
    t->n = n;
    t->tracker = tracker;
    t->nodes = mem_alloc(tracker, (size_t)(2 * n + 1) * t->state_size, err);
    if (!t->nodes) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
    memset(t->nodes, 0, (size_t)(2 * n + 1) * t->state_size);
    for (uint64_t i = 1; i < 2 * n; i++) def->init(bind_data, t->nodes + i * t->state_size);
    return SQE_OK;
}

int exec_segtree_build(exec_segtree *t, func_ctx *ctx) {
    ctx->bind_data = t->bind_data;
    for (uint64_t i = t->n - 1; i >= 1 && t->n > 1; i--) {
        uint8_t *node = t->nodes + i * t->state_size;
        SQE_TRY(t->def->combine(ctx, t->nodes + 2 * i * t->state_size, node));
        SQE_TRY(t->def->combine(ctx, t->nodes + (2 * i + 1) * t->state_size, node));
        if (i == 1) break;
    }
    return SQE_OK;
}

int exec_segtree_query(const exec_segtree *t, func_ctx *ctx, uint64_t lo, uint64_t hi,
                       uint8_t *dst) {
    uint64_t right[128];
    uint32_t n_right = 0;
    ctx->bind_data = t->bind_data;
    for (lo += t->n, hi += t->n; lo < hi; lo >>= 1, hi >>= 1) {
        if (lo & 1) SQE_TRY(t->def->combine(ctx, t->nodes + (lo++) * t->state_size, dst));
        if (hi & 1) right[n_right++] = --hi;
    }
    while (n_right) SQE_TRY(t->def->combine(ctx, t->nodes + right[--n_right] * t->state_size, dst));
    return SQE_OK;
}

void exec_segtree_destroy(exec_segtree *t) {
    if (!t->nodes) return;
    if (t->def->destroy)
        for (uint64_t i = 1; i < 2 * t->n; i++) t->def->destroy(t->nodes + i * t->state_size);
    mem_free(t->tracker, t->nodes);
    t->nodes = NULL;
}

/* --------------------------------------------------------------------------------------------
 * Operator structures
 * ------------------------------------------------------------------------------------------ */

typedef struct win_func {
    const plan_window_func *pf;
    uint8_t kind;             /* func_window_kind, 0 = aggregate */
    const func_agg_def *agg;
    uint32_t n_args;
    uint32_t *arg_col;        /* storage columns of the arguments */
    int32_t filter_col;
    int32_t start_col, end_col; /* frame offsets */
    bool start_const, end_const;
    uint8_t unit, start_bound, end_bound;
    uint32_t result_col;
    uint32_t group;
} win_func;

typedef struct win_group {
    uint32_t n_part, n_keys;  /* keys: partition keys, then order keys */
    uint32_t *key_col;
    bool *desc, *nulls_first;
    exec_sort_spec spec;
    uint32_t part_width;      /* key bytes of the partition keys */
} win_group;

typedef struct win_impl {
    uint32_t n_child;
    uint32_t n_exprs;
    exec_expr **exprs;        /* stored as columns n_child + i */
    const bexpr **expr_src;
    uint32_t n_in;            /* n_child + n_exprs: columns of the sink's copies */
    uint32_t n_cols;          /* n_in + one result column per function */
    sqe_type *col_types;
    uint32_t n_funcs;
    win_func *funcs;
    uint32_t n_groups;
    win_group *groups;
    uint32_t *out_col;
} win_impl;

typedef struct win_local {
    exec_expr_state **st;
    exec_chunk_list rows;     /* this thread's input rows with the computed expressions */
} win_local;

typedef struct win_global {
    exec_chunk_store input;   /* every thread's rows (finalize sorts them into store) */
    vec_chunk **store;        /* after finalize: sorted storage, full chunks but the last */
    uint32_t n_store;
    uint64_t n_rows;
} win_global;

typedef struct win_src {
    _Atomic uint32_t next;
} win_src;

#define ROW_OF(g) ((uint32_t)((g) & (VEC_CHUNK_SIZE - 1)))
#define CHUNK_OF(g) ((uint32_t)((g) >> 11))

/* --------------------------------------------------------------------------------------------
 * Sink
 * ------------------------------------------------------------------------------------------ */

static void win_local_free(exec_op *op, win_local *l) {
    if (!l) return;
    win_impl *im = op->impl;
    mem_tracker *t = op->qctx->tracker;
    if (l->st)
        for (uint32_t i = 0; i < im->n_exprs; i++) exec_expr_state_destroy(l->st[i]);
    mem_free(t, l->st);
    exec_chunk_list_destroy(&l->rows, t);
    mem_free(t, l);
}

static int win_local_init(exec_op *op, void *gstate, uint32_t input_idx, void **lstate,
                          sqe_error *err) {
    win_impl *im = op->impl;
    mem_tracker *t = op->qctx->tracker;
    win_local *l = mem_calloc(t, sizeof *l, err);
    if (!l) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
    int rc = SQE_OK;
    l->st = mem_calloc(t, sizeof(exec_expr_state *) * (im->n_exprs + 1), err);
    if (!l->st) rc = err ? err->code : SQE_ERR_OUT_OF_MEMORY;
    for (uint32_t i = 0; i < im->n_exprs && rc == SQE_OK; i++)
        rc = exec_expr_state_create(im->exprs[i], op->qctx, &l->st[i], err);
    if (rc != SQE_OK) {
        win_local_free(op, l);
        return rc;
    }
    *lstate = l;
    return SQE_OK;
}

static void win_local_destroy(exec_op *op, void *gstate, void *lstate) {
    win_local_free(op, lstate);
}

static int win_sink(exec_op *op, void *gstate, void *lstate, const vec_chunk *in,
                    sqe_error *err) {
    win_impl *im = op->impl;
    win_local *l = lstate;
    mem_tracker *t = op->qctx->tracker;
    uint32_t n = in->count;
    if (n == 0) return SQE_OK;
    if (n > VEC_CHUNK_SIZE)
        return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "window input chunk too large");
    vec_chunk *c = mem_calloc(t, sizeof *c, err);
    if (!c) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
    int rc = vec_chunk_init(c, im->n_in, im->col_types, n, t, err);
    for (uint32_t i = 0; i < im->n_child && rc == SQE_OK; i++)
        rc = exec_vec_copy(&c->cols[i], NULL, 0, &in->cols[i], NULL, n, true, err);
    for (uint32_t i = 0; i < im->n_exprs && rc == SQE_OK; i++) {
        const vec *v;
        rc = exec_expr_eval_view(l->st[i], in, NULL, n, &v, err);
        if (rc == SQE_OK) rc = exec_vec_copy(&c->cols[im->n_child + i], NULL, 0, v, NULL, n, true, err);
    }
    if (rc != SQE_OK) {
        exec_chunk_free(c, t);
        if (rc == SQE_ERR_OUT_OF_MEMORY) rc = exec_alloc_error(t, 0, err, "window input");
        return rc;
    }
    c->count = n;
    return exec_chunk_list_push(&l->rows, c, t, err);
}

static int win_combine(exec_op *op, void *gstate, void *lstate, sqe_error *err) {
    win_global *g = gstate;
    win_local *l = lstate;
    int rc = exec_chunk_store_add(&g->input, &l->rows, op->qctx->tracker, err);
    win_local_free(op, l); /* the driver does not destroy a combined local state */
    return rc;
}

static int win_sink_init(exec_op *op, void **gstate, sqe_error *err) {
    win_global *g = mem_calloc(op->qctx->tracker, sizeof *g, err);
    if (!g) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
    exec_chunk_store_init(&g->input);
    *gstate = g;
    return SQE_OK;
}

static void free_store(mem_tracker *t, vec_chunk **s, uint32_t n) {
    if (!s) return;
    for (uint32_t i = 0; i < n; i++) exec_chunk_free(s[i], t);
    mem_free(t, s);
}

static void win_sink_destroy(exec_op *op, void *gstate) {
    win_global *g = gstate;
    if (!g) return;
    exec_chunk_store_destroy(&g->input, op->qctx->tracker);
    free_store(op->qctx->tracker, g->store, g->n_store);
    mem_free(op->qctx->tracker, g);
}

/* --------------------------------------------------------------------------------------------
 * Finalize: sorting and re-materializing
 * ------------------------------------------------------------------------------------------ */

typedef struct sort_ctx {
    vec_chunk **store;
    const win_group *grp;
} sort_ctx;

static int win_tiebreak(void *ud, const uint8_t *a, const uint8_t *b) {
    const sort_ctx *c = ud;
    const exec_sort_spec *s = &c->grp->spec;
    uint64_t ra = exec_sort_payload(s, a), rb = exec_sort_payload(s, b);
    for (uint32_t k = 0; k < s->n_keys; k++) {
        uint32_t col = c->grp->key_col[k];
        int r = exec_sort_compare_values(&s->keys[k], &c->store[CHUNK_OF(ra)]->cols[col], ROW_OF(ra),
                                         &c->store[CHUNK_OF(rb)]->cols[col], ROW_OF(rb));
        if (r) return r;
    }
    return 0;
}

static const sqe_str *win_str(void *ud, const uint8_t *e, uint32_t k) {
    const sort_ctx *c = ud;
    uint64_t ref = exec_sort_payload(&c->grp->spec, e);
    const vec *v = &c->store[CHUNK_OF(ref)]->cols[c->grp->key_col[k]];
    return &((const sqe_str *)v->data)[ROW_OF(ref)];
}

/* Are keys [k0, k1) of two sorted entries equal? */
static bool keys_equal(const sort_ctx *c, const uint8_t *a, const uint8_t *b, uint32_t k0,
                       uint32_t k1) {
    const exec_sort_spec *s = &c->grp->spec;
    if (k0 >= k1) return true;
    uint32_t from = s->keys[k0].offset;
    uint32_t to = s->keys[k1 - 1].offset + s->keys[k1 - 1].width;
    if (memcmp(a + from, b + from, to - from) != 0) return false;
    if (!s->needs_tiebreak) return true;
    uint64_t ra = exec_sort_payload(s, a), rb = exec_sort_payload(s, b);
    for (uint32_t k = k0; k < k1; k++) {
        if (!s->keys[k].truncated) continue;
        uint32_t col = c->grp->key_col[k];
        if (exec_sort_compare_values(&s->keys[k], &c->store[CHUNK_OF(ra)]->cols[col], ROW_OF(ra),
                                     &c->store[CHUNK_OF(rb)]->cols[col], ROW_OF(rb)) != 0)
            return false;
    }
    return true;
}

/* dst[i] = column col of the stored row refs[i] (deep copy), i < n. */
static int gather_col(vec *dst, vec_chunk **store, uint32_t col, const uint64_t *refs, uint32_t n,
                      sqe_error *err) {
    sqe_type t = dst->type;
    if (type_is_nested(t) || t.id == TYPE_UNKNOWN) {
        for (uint32_t i = 0; i < n; i++)
            SQE_TRY(vec_copy_row(dst, i, &store[CHUNK_OF(refs[i])]->cols[col], ROW_OF(refs[i]), err));
        return SQE_OK;
    }
    size_t w = type_physical_size(t);
    bool str = type_is_string_view(t);
    for (uint32_t i = 0; i < n; i++) {
        const vec *src = &store[CHUNK_OF(refs[i])]->cols[col];
        uint32_t r = ROW_OF(refs[i]);
        if (!vec_is_valid_flat(src, r)) {
            if (vec_set_null(dst, i) != SQE_OK) return exec_alloc_error(dst->tracker, 0, err, "validity");
            memset((uint8_t *)dst->data + w * i, 0, w);
            continue;
        }
        vec_set_valid(dst, i);
        if (str) {
            const sqe_str *s = &((const sqe_str *)src->data)[r];
            bool ok = true;
            ((sqe_str *)dst->data)[i] = vec_str_copy(dst, sqe_str_data(s), s->len, &ok);
            if (!ok) return exec_alloc_error(dst->tracker, s->len, err, "string");
        } else {
            memcpy((uint8_t *)dst->data + w * i, (const uint8_t *)src->data + w * r, w);
        }
    }
    return SQE_OK;
}

/* A new storage chunk of n rows with every column; result columns start all NULL. */
static int new_store_chunk(win_impl *im, mem_tracker *t, uint32_t n, vec_chunk **out,
                           sqe_error *err) {
    vec_chunk *c = mem_calloc(t, sizeof *c, err);
    if (!c) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
    int rc = vec_chunk_init(c, im->n_cols, im->col_types, VEC_CHUNK_SIZE, t, err);
    for (uint32_t i = im->n_in; i < im->n_cols && rc == SQE_OK; i++) {
        vec *v = &c->cols[i];
        uint64_t *bits = vec_validity_make(v);
        if (!bits) {
            rc = exec_alloc_error(t, 0, err, "validity");
            break;
        }
        memset(bits, 0, (VEC_CHUNK_SIZE + 63) / 64 * 8);
        size_t w = type_physical_size(v->type);
        if (w) memset(v->data, 0, w * VEC_CHUNK_SIZE);
    }
    if (rc != SQE_OK) {
        exec_chunk_free(c, t);
        return rc;
    }
    c->count = n;
    *out = c;
    return SQE_OK;
}

/* --------------------------------------------------------------------------------------------
 * Evaluation helpers
 * ------------------------------------------------------------------------------------------ */

typedef struct win_eval {
    exec_op *op;
    win_impl *im;
    vec_chunk **S;            /* sorted storage */
    uint64_t n_rows;
    uint8_t *flags;           /* per position: 1 partition start, 2 peer start */
    uint64_t *peer_begin, *peer_end, *peer_idx; /* per position (current partition) */
    uint64_t *group_start;    /* per peer group index of the partition: first position */
    uint64_t n_peer_groups;
    func_ctx fctx;
    arena scratch;
    uint8_t **states;         /* VEC_CHUNK_SIZE */
    uint32_t *sel;
    sqe_error *err;
} win_eval;

static inline const vec *colv(const win_eval *e, uint32_t col, uint64_t g) {
    return &e->S[CHUNK_OF(g)]->cols[col];
}
static inline vec *resv(const win_eval *e, const win_func *f, uint64_t g) {
    return &e->S[CHUNK_OF(g)]->cols[f->result_col];
}
static inline bool is_null_at(const win_eval *e, uint32_t col, uint64_t g) {
    return !vec_is_valid_flat(colv(e, col, g), ROW_OF(g));
}

static void put_i64(win_eval *e, const win_func *f, uint64_t g, int64_t v) {
    vec *r = resv(e, f, g);
    VEC_DATA(r, int64_t)[ROW_OF(g)] = v;
    vec_set_valid(r, ROW_OF(g));
}
static void put_f64(win_eval *e, const win_func *f, uint64_t g, double v) {
    vec *r = resv(e, f, g);
    VEC_DATA(r, double)[ROW_OF(g)] = v;
    vec_set_valid(r, ROW_OF(g));
}
static int put_null(win_eval *e, const win_func *f, uint64_t g) {
    if (vec_set_null(resv(e, f, g), ROW_OF(g)) != SQE_OK)
        return exec_alloc_error(e->op->qctx->tracker, 0, e->err, "validity");
    return SQE_OK;
}
static int put_copy(win_eval *e, const win_func *f, uint64_t g, uint32_t col, uint64_t src) {
    return vec_copy_row(resv(e, f, g), ROW_OF(g), colv(e, col, src), ROW_OF(src), e->err);
}

/* Reads an integer-valued argument (offsets, bucket counts) as int64; false when NULL. */
static bool read_int(const win_eval *e, uint32_t col, uint64_t g, int64_t *out) {
    uint32_t phys;
    const vec *v = vec_resolve(colv(e, col, g), ROW_OF(g), &phys);
    if (!vec_is_valid_flat(v, phys)) return false;
    const uint8_t *d = v->data;
    switch (v->type.id) {
    case TYPE_TINYINT: *out = ((const int8_t *)d)[phys]; return true;
    case TYPE_SMALLINT: *out = ((const int16_t *)d)[phys]; return true;
    case TYPE_INTEGER: *out = ((const int32_t *)d)[phys]; return true;
    case TYPE_BIGINT: *out = ((const int64_t *)d)[phys]; return true;
    case TYPE_DECIMAL: {
        int128 x = type_decimal_is_long(v->type) ? ((const int128 *)d)[phys] : ((const int64_t *)d)[phys];
        for (int i = 0; i < v->type.scale; i++) x /= 10;
        *out = x > INT64_MAX ? INT64_MAX : x < INT64_MIN ? INT64_MIN : (int64_t)x;
        return true;
    }
    case TYPE_REAL: *out = (int64_t)((const float *)d)[phys]; return true;
    case TYPE_DOUBLE: *out = (int64_t)((const double *)d)[phys]; return true;
    default: *out = 0; return true;
    }
}

/* A value of an order key or a RANGE offset in natural units (numbers, days, micros). */
static bool read_num(const vec *col, uint32_t row, long double *out) {
    uint32_t phys;
    const vec *v = vec_resolve(col, row, &phys);
    if (!vec_is_valid_flat(v, phys)) return false;
    const uint8_t *d = v->data;
    switch (v->type.id) {
    case TYPE_TINYINT: *out = ((const int8_t *)d)[phys]; break;
    case TYPE_SMALLINT: *out = ((const int16_t *)d)[phys]; break;
    case TYPE_INTEGER:
    case TYPE_DATE:
    case TYPE_INTERVAL_YM: *out = ((const int32_t *)d)[phys]; break;
    case TYPE_BIGINT:
    case TYPE_TIME:
    case TYPE_TIMESTAMP:
    case TYPE_INTERVAL_DS: *out = (long double)((const int64_t *)d)[phys]; break;
    case TYPE_TIMESTAMP_TZ: *out = (long double)((const sqe_timestamp_tz *)d)[phys].micros; break;
    case TYPE_REAL: *out = ((const float *)d)[phys]; break;
    case TYPE_DOUBLE: *out = ((const double *)d)[phys]; break;
    case TYPE_DECIMAL: {
        long double x = type_decimal_is_long(v->type) ? (long double)((const int128 *)d)[phys]
                                                      : (long double)((const int64_t *)d)[phys];
        for (int i = 0; i < v->type.scale; i++) x /= 10;
        *out = x;
        break;
    }
    default: *out = 0; break;
    }
    return true;
}

/* Converts a RANGE offset to the units of the order key (intervals on dates are days). */
static long double offset_units(sqe_type key, sqe_type off, long double v) {
    if (key.id == TYPE_DATE && off.id == TYPE_INTERVAL_DS) return v / 86400000000.0L;
    return v;
}

/* Update aggregate f's state with positions [a, b] (FILTER applied). */
static int agg_update_range(win_eval *e, const win_func *f, uint8_t *state, uint64_t a,
                            uint64_t b, bool per_leaf, const exec_segtree *tree, uint64_t ps) {
    if (a > b) return SQE_OK;
    const vec *args[16];
    uint64_t g = a;
    while (g <= b) {
        uint32_t c = CHUNK_OF(g);
        uint32_t r0 = ROW_OF(g);
        uint64_t chunk_end = ((uint64_t)c << 11) + e->S[c]->count - 1;
        uint64_t last = b < chunk_end ? b : chunk_end;
        uint32_t r1 = ROW_OF(last);
        uint32_t cnt = 0;
        const vec_chunk *ch = e->S[c];
        for (uint32_t r = r0; r <= r1; r++) {
            if (f->filter_col >= 0) {
                const vec *fv = &ch->cols[f->filter_col];
                if (!vec_is_valid_flat(fv, r) || !VEC_DATA(fv, uint8_t)[r]) continue;
            }
            e->sel[cnt++] = r;
            e->states[r] = per_leaf ? exec_segtree_leaf(tree, ((uint64_t)c << 11) + r - ps) : state;
        }
        if (cnt) {
            for (uint32_t j = 0; j < f->n_args && j < 16; j++) args[j] = &ch->cols[f->arg_col[j]];
            e->fctx.bind_data = f->pf->bind_data;
            int rc = f->agg->update(&e->fctx, args, f->n_args, e->sel, cnt, e->states);
            arena_reset(&e->scratch);
            if (rc) return rc;
        }
        g = last + 1;
    }
    return SQE_OK;
}

static int agg_finalize_into(win_eval *e, const win_func *f, const uint8_t *state, uint64_t g) {
    e->fctx.bind_data = f->pf->bind_data;
    int rc = f->agg->finalize(&e->fctx, state, resv(e, f, g), ROW_OF(g));
    arena_reset(&e->scratch);
    return rc;
}

/* --------------------------------------------------------------------------------------------
 * Frames
 * ------------------------------------------------------------------------------------------ */

typedef struct part_info {
    uint64_t ps, pe;          /* partition [ps, pe) */
    uint64_t null_s, null_e;  /* rows with a NULL (first) order key */
    uint64_t nn_s, nn_e;      /* rows with a non-NULL order key */
} part_info;

static int frame_offset(win_eval *e, const win_func *f, bool start, uint64_t i, int64_t *out) {
    int32_t col = start ? f->start_col : f->end_col;
    if (col < 0) {
        *out = 0;
        return SQE_OK;
    }
    if (!read_int(e, (uint32_t)col, i, out) || *out < 0)
        return err_set(e->err, SQE_ERR_INVALID_WINDOW_FRAME,
                       "Window frame offset value must not be negative or null");
    return SQE_OK;
}

/* Binary search over the non-NULL keys of the partition for the first position whose key is
 * >= x (upper: > x), in the key's sort direction (desc flips the comparison). */
static uint64_t range_search(win_eval *e, uint32_t key_col, bool desc, const part_info *pi,
                             long double x, bool upper) {
    uint64_t lo = pi->nn_s, hi = pi->nn_e;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        long double v = 0;
        read_num(colv(e, key_col, mid), ROW_OF(mid), &v);
        bool before = desc ? (upper ? v >= x : v > x) : (upper ? v <= x : v < x);
        if (before)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Frame [*fs, *fe] (inclusive) of position i; *fs > *fe means empty. */
static int frame_of(win_eval *e, const win_func *f, const win_group *grp, const part_info *pi,
                    uint64_t i, int64_t *fs, int64_t *fe, bool need_start) {
    int64_t ps = (int64_t)pi->ps, pe = (int64_t)pi->pe;
    int64_t s = ps, t = pe - 1;
    for (int side = need_start ? 0 : 1; side < 2; side++) {
        uint8_t bound = side == 0 ? f->start_bound : f->end_bound;
        int64_t *dst = side == 0 ? &s : &t;
        int64_t off = 0;
        if (bound == BOUND_UNBOUNDED_PRECEDING) {
            *dst = ps;
            continue;
        }
        if (bound == BOUND_UNBOUNDED_FOLLOWING) {
            *dst = pe - 1;
            continue;
        }
        if (bound == BOUND_PRECEDING || bound == BOUND_FOLLOWING) {
            SQE_TRY(frame_offset(e, f, side == 0, i, &off));
            if (f->unit != FRAME_RANGE && off > pe - ps + 1) off = pe - ps + 1;
        }
        int64_t sign = bound == BOUND_PRECEDING ? -1 : bound == BOUND_FOLLOWING ? 1 : 0;
        switch (f->unit) {
        case FRAME_ROWS: {
            int64_t x = (int64_t)i + sign * off;
            if (sign < 0 && off > (int64_t)i) x = ps - 1;
            *dst = x;
            break;
        }
        case FRAME_GROUPS: {
            int64_t gi = (int64_t)e->peer_idx[i] + sign * off;
            if (gi < 0) {
                *dst = side == 0 ? ps : ps - 1;
            } else if ((uint64_t)gi >= e->n_peer_groups) {
                *dst = side == 0 ? pe : pe - 1;
            } else {
                uint64_t gs = e->group_start[gi];
                *dst = side == 0 ? (int64_t)gs : (int64_t)e->peer_end[gs] - 1;
            }
            break;
        }
        default: { /* RANGE */
            if (sign == 0 || grp->n_keys == grp->n_part) {
                *dst = side == 0 ? (int64_t)e->peer_begin[i] : (int64_t)e->peer_end[i] - 1;
                break;
            }
            uint32_t key_col = grp->key_col[grp->n_part];
            bool desc = grp->desc[grp->n_part];
            long double v;
            if (!read_num(colv(e, key_col, i), ROW_OF(i), &v)) {
                *dst = side == 0 ? (int64_t)pi->null_s : (int64_t)pi->null_e - 1;
                break;
            }
            long double o = offset_units(e->im->col_types[key_col],
                                         e->im->col_types[side == 0 ? f->start_col : f->end_col],
                                         (long double)off);
            if (f->start_col >= 0 || f->end_col >= 0) {
                /* read the offset with its fraction for decimal / double offsets */
                long double exact;
                int32_t oc = side == 0 ? f->start_col : f->end_col;
                if (read_num(colv(e, (uint32_t)oc, i), ROW_OF(i), &exact))
                    o = offset_units(e->im->col_types[key_col], e->im->col_types[oc], exact);
            }
            /* PRECEDING moves against the sort direction */
            long double x = desc ? v - sign * o : v + sign * o;
            if (side == 0)
                *dst = (int64_t)range_search(e, key_col, desc, pi, x, false);
            else
                *dst = (int64_t)range_search(e, key_col, desc, pi, x, true) - 1;
            break;
        }
        }
    }
    if (s < ps) s = ps;
    if (t > pe - 1) t = pe - 1;
    *fs = s;
    *fe = t;
    return SQE_OK;
}

/* --------------------------------------------------------------------------------------------
 * Function evaluation over one partition
 * ------------------------------------------------------------------------------------------ */

static int eval_ranking(win_eval *e, const win_func *f, const part_info *pi) {
    uint64_t ps = pi->ps, pe = pi->pe, n = pe - ps;
    for (uint64_t i = ps; i < pe; i++) {
        switch (f->kind) {
        case FUNC_WIN_ROW_NUMBER: put_i64(e, f, i, (int64_t)(i - ps + 1)); break;
        case FUNC_WIN_RANK: put_i64(e, f, i, (int64_t)(e->peer_begin[i] - ps + 1)); break;
        case FUNC_WIN_DENSE_RANK: put_i64(e, f, i, (int64_t)e->peer_idx[i] + 1); break;
        case FUNC_WIN_PERCENT_RANK:
            put_f64(e, f, i, n <= 1 ? 0.0 : (double)(e->peer_begin[i] - ps) / (double)(n - 1));
            break;
        case FUNC_WIN_CUME_DIST: put_f64(e, f, i, (double)(e->peer_end[i] - ps) / (double)n); break;
        case FUNC_WIN_NTILE: {
            int64_t k;
            if (!read_int(e, f->arg_col[0], i, &k)) {
                SQE_TRY(put_null(e, f, i));
                break;
            }
            if (k <= 0)
                return err_set(e->err, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                               "Buckets must be greater than 0");
            uint64_t r = i - ps, b = (uint64_t)k;
            int64_t bucket;
            if (b >= n) {
                bucket = (int64_t)r + 1;
            } else {
                uint64_t q = n / b, rem = n % b;
                bucket = r < rem * (q + 1) ? (int64_t)(r / (q + 1)) + 1
                                           : (int64_t)((r - rem * (q + 1)) / q + rem) + 1;
            }
            put_i64(e, f, i, bucket);
            break;
        }
        default: break;
        }
    }
    return SQE_OK;
}

static int eval_offset(win_eval *e, const win_func *f, const part_info *pi) {
    bool lag = f->kind == FUNC_WIN_LAG;
    uint32_t x = f->arg_col[0];
    for (uint64_t i = pi->ps; i < pi->pe; i++) {
        int64_t off = 1;
        if (f->n_args > 1) {
            if (!read_int(e, f->arg_col[1], i, &off))
                return err_set(e->err, SQE_ERR_INVALID_FUNCTION_ARGUMENT, "Offset must not be null");
            if (off < 0)
                return err_set(e->err, SQE_ERR_INVALID_FUNCTION_ARGUMENT, "Offset must be at least 0");
        }
        int64_t j = -1;
        if (!f->pf->ignore_nulls) {
            int64_t cand = lag ? (int64_t)i - off : (int64_t)i + off;
            if (cand >= (int64_t)pi->ps && cand < (int64_t)pi->pe) j = cand;
        } else if (off == 0) {
            j = (int64_t)i;
        } else {
            int64_t left = off;
            for (int64_t p = lag ? (int64_t)i - 1 : (int64_t)i + 1; p >= (int64_t)pi->ps && p < (int64_t)pi->pe;
                 p += lag ? -1 : 1)
                if (!is_null_at(e, x, (uint64_t)p) && --left == 0) {
                    j = p;
                    break;
                }
        }
        if (j >= 0)
            SQE_TRY(put_copy(e, f, i, x, (uint64_t)j));
        else if (f->n_args > 2)
            SQE_TRY(put_copy(e, f, i, f->arg_col[2], i));
        else
            SQE_TRY(put_null(e, f, i));
    }
    return SQE_OK;
}

static int eval_value(win_eval *e, const win_func *f, const win_group *grp, const part_info *pi) {
    uint32_t x = f->arg_col[0];
    bool ign = f->pf->ignore_nulls;
    for (uint64_t i = pi->ps; i < pi->pe; i++) {
        int64_t fs, fe;
        SQE_TRY(frame_of(e, f, grp, pi, i, &fs, &fe, true));
        int64_t j = -1;
        if (fs <= fe) {
            if (f->kind == FUNC_WIN_FIRST_VALUE) {
                for (int64_t p = fs; p <= fe; p++)
                    if (!ign || !is_null_at(e, x, (uint64_t)p)) {
                        j = p;
                        break;
                    }
            } else if (f->kind == FUNC_WIN_LAST_VALUE) {
                for (int64_t p = fe; p >= fs; p--)
                    if (!ign || !is_null_at(e, x, (uint64_t)p)) {
                        j = p;
                        break;
                    }
            } else {
                int64_t nth;
                if (!read_int(e, f->arg_col[1], i, &nth)) {
                    SQE_TRY(put_null(e, f, i));
                    continue;
                }
                if (nth <= 0)
                    return err_set(e->err, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                                   "Offset must be at least 1");
                if (!ign) {
                    if (nth - 1 <= fe - fs) j = fs + nth - 1;
                } else {
                    int64_t left = nth;
                    for (int64_t p = fs; p <= fe; p++)
                        if (!is_null_at(e, x, (uint64_t)p) && --left == 0) {
                            j = p;
                            break;
                        }
                }
            }
        }
        if (j >= 0)
            SQE_TRY(put_copy(e, f, i, x, (uint64_t)j));
        else
            SQE_TRY(put_null(e, f, i));
    }
    return SQE_OK;
}

static bool end_is_monotonic(const win_func *f) {
    if (f->end_bound == BOUND_CURRENT_ROW) return true;
    if (f->end_bound == BOUND_PRECEDING || f->end_bound == BOUND_FOLLOWING) return f->end_const;
    return false;
}

static int eval_aggregate(win_eval *e, const win_func *f, const win_group *grp,
                          const part_info *pi) {
    mem_tracker *t = e->op->qctx->tracker;
    uint32_t ss = (f->agg->state_size + 15) & ~15u;
    uint8_t *state = mem_alloc(t, ss ? ss : 16, e->err);
    if (!state) return e->err ? e->err->code : SQE_ERR_OUT_OF_MEMORY;
    int rc = SQE_OK;
    bool whole = f->start_bound == BOUND_UNBOUNDED_PRECEDING && f->end_bound == BOUND_UNBOUNDED_FOLLOWING;
    if (whole) {
        f->agg->init(f->pf->bind_data, state);
        rc = agg_update_range(e, f, state, pi->ps, pi->pe - 1, false, NULL, 0);
        for (uint64_t i = pi->ps; i < pi->pe && rc == SQE_OK; i++) rc = agg_finalize_into(e, f, state, i);
        if (f->agg->destroy) f->agg->destroy(state);
    } else if (f->start_bound == BOUND_UNBOUNDED_PRECEDING && end_is_monotonic(f)) {
        f->agg->init(f->pf->bind_data, state);
        int64_t upto = (int64_t)pi->ps;
        for (uint64_t i = pi->ps; i < pi->pe && rc == SQE_OK; i++) {
            int64_t fs, fe;
            rc = frame_of(e, f, grp, pi, i, &fs, &fe, false);
            if (rc) break;
            if (fe >= upto) {
                rc = agg_update_range(e, f, state, (uint64_t)upto, (uint64_t)fe, false, NULL, 0);
                upto = fe + 1;
            }
            if (rc == SQE_OK) rc = agg_finalize_into(e, f, state, i);
        }
        if (f->agg->destroy) f->agg->destroy(state);
    } else {
        exec_segtree tree;
        uint64_t n = pi->pe - pi->ps;
        rc = exec_segtree_init(&tree, f->agg, f->pf->bind_data, n, t, e->err);
        if (rc == SQE_OK) {
            rc = agg_update_range(e, f, NULL, pi->ps, pi->pe - 1, true, &tree, pi->ps);
            if (rc == SQE_OK) rc = exec_segtree_build(&tree, &e->fctx);
            arena_reset(&e->scratch);
            for (uint64_t i = pi->ps; i < pi->pe && rc == SQE_OK; i++) {
                int64_t fs, fe;
                rc = frame_of(e, f, grp, pi, i, &fs, &fe, true);
                if (rc) break;
                f->agg->init(f->pf->bind_data, state);
                if (fs <= fe)
                    rc = exec_segtree_query(&tree, &e->fctx, (uint64_t)fs - pi->ps,
                                            (uint64_t)fe - pi->ps + 1, state);
                if (rc == SQE_OK) rc = agg_finalize_into(e, f, state, i);
                if (f->agg->destroy) f->agg->destroy(state);
                arena_reset(&e->scratch);
            }
            exec_segtree_destroy(&tree);
        }
    }
    mem_free(t, state);
    return rc;
}

/* Evaluates the functions of group gi over the sorted storage. */
static int eval_group(win_eval *e, uint32_t gi) {
    win_impl *im = e->im;
    const win_group *grp = &im->groups[gi];
    uint64_t N = e->n_rows;
    uint64_t ps = 0;
    while (ps < N) {
        uint64_t pe = ps + 1;
        while (pe < N && !(e->flags[pe] & 1)) pe++;
        /* peers */
        e->n_peer_groups = 0;
        for (uint64_t i = ps; i < pe;) {
            uint64_t j = i + 1;
            while (j < pe && !(e->flags[j] & 2)) j++;
            e->group_start[e->n_peer_groups] = i;
            for (uint64_t k = i; k < j; k++) {
                e->peer_begin[k] = i;
                e->peer_end[k] = j;
                e->peer_idx[k] = e->n_peer_groups;
            }
            e->n_peer_groups++;
            i = j;
        }
        part_info pi = {ps, pe, ps, ps, ps, pe};
        if (grp->n_keys > grp->n_part) {
            uint32_t kc = grp->key_col[grp->n_part];
            bool nf = grp->nulls_first[grp->n_part];
            if (nf) {
                uint64_t k = ps;
                while (k < pe && is_null_at(e, kc, k)) k++;
                pi.null_s = ps;
                pi.null_e = k;
                pi.nn_s = k;
                pi.nn_e = pe;
            } else {
                uint64_t k = pe;
                while (k > ps && is_null_at(e, kc, k - 1)) k--;
                pi.nn_s = ps;
                pi.nn_e = k;
                pi.null_s = k;
                pi.null_e = pe;
            }
        }
        for (uint32_t fi = 0; fi < im->n_funcs; fi++) {
            const win_func *f = &im->funcs[fi];
            if (f->group != gi) continue;
            switch (f->kind) {
            case 0: SQE_TRY(eval_aggregate(e, f, grp, &pi)); break;
            case FUNC_WIN_LAG:
            case FUNC_WIN_LEAD: SQE_TRY(eval_offset(e, f, &pi)); break;
            case FUNC_WIN_FIRST_VALUE:
            case FUNC_WIN_LAST_VALUE:
            case FUNC_WIN_NTH_VALUE: SQE_TRY(eval_value(e, f, grp, &pi)); break;
            default: SQE_TRY(eval_ranking(e, f, &pi)); break;
            }
        }
        SQE_TRY(exec_check_cancel(e->op->qctx, e->err));
        ps = pe;
    }
    return SQE_OK;
}

static int win_finalize(exec_op *op, void *gstate, sqe_error *err) {
    win_impl *im = op->impl;
    win_global *g = gstate;
    mem_tracker *t = op->qctx->tracker;
    /* the unsorted storage: every thread's chunks, owned by S from here on */
    exec_chunk_list in = exec_chunk_store_take(&g->input);
    uint64_t N = in.rows;
    if (!in.chunks) {
        in.chunks = mem_alloc(t, sizeof(vec_chunk *), err);
        if (!in.chunks) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
    }
    vec_chunk **S = in.chunks;
    uint32_t n_S = in.n;
    g->n_rows = N;
    if (N == 0) {
        g->store = S;
        g->n_store = 0;
        return SQE_OK;
    }
    win_eval e;
    memset(&e, 0, sizeof e);
    e.op = op;
    e.im = im;
    e.n_rows = N;
    e.err = err;
    arena_init(&e.scratch, t);
    e.fctx.tracker = t;
    e.fctx.scratch = &e.scratch;
    e.fctx.session_zone = op->qctx->session_zone;
    e.fctx.query_start_micros = op->qctx->query_start_micros;
    e.fctx.random_seed = op->qctx->random_seed;
    e.fctx.err = err;
    int rc = SQE_OK;
    uint8_t *entries = NULL;
    uint64_t *refs = NULL;
    e.flags = mem_alloc(t, N, err);
    e.peer_begin = mem_alloc(t, sizeof(uint64_t) * N, err);
    e.peer_end = mem_alloc(t, sizeof(uint64_t) * N, err);
    e.peer_idx = mem_alloc(t, sizeof(uint64_t) * N, err);
    e.group_start = mem_alloc(t, sizeof(uint64_t) * N, err);
    e.states = mem_alloc(t, sizeof(uint8_t *) * VEC_CHUNK_SIZE, err);
    e.sel = mem_alloc(t, sizeof(uint32_t) * VEC_CHUNK_SIZE, err);
    refs = mem_alloc(t, sizeof(uint64_t) * VEC_CHUNK_SIZE, err);
    if (!e.flags || !e.peer_begin || !e.peer_end || !e.peer_idx || !e.group_start || !e.states ||
        !e.sel || !refs) {
        rc = err ? err->code : SQE_ERR_OUT_OF_MEMORY;
        goto out;
    }
    for (uint32_t gi = 0; gi < im->n_groups && rc == SQE_OK; gi++) {
        win_group *grp = &im->groups[gi];
        uint32_t W = grp->spec.entry_width;
        entries = mem_alloc(t, (size_t)N * W, err);
        if (!entries) {
            rc = err ? err->code : SQE_ERR_OUT_OF_MEMORY;
            break;
        }
        uint64_t pos = 0;
        for (uint32_t c = 0; c < n_S; c++) {
            uint32_t cnt = S[c]->count;
            uint8_t *ep = entries + pos * W;
            memset(ep, 0, (size_t)cnt * W);
            for (uint32_t kk = 0; kk < grp->n_keys; kk++)
                exec_sort_encode(&grp->spec, kk, &S[c]->cols[grp->key_col[kk]], NULL, cnt, ep, W);
            for (uint32_t r = 0; r < cnt; r++)
                exec_sort_set_payload(&grp->spec, ep + (size_t)r * W, ((uint64_t)c << 11) | r);
            pos += cnt;
        }
        sort_ctx sc = {S, grp};
        exec_sort_ctx cmp = {win_tiebreak, win_str, &sc};
        rc = exec_sort_entries(&grp->spec, entries, N, &cmp, t, err);
        if (rc) break;
        /* boundaries */
        e.flags[0] = 3;
        for (uint64_t i = 1; i < N; i++) {
            const uint8_t *a = entries + (i - 1) * W, *b = entries + i * W;
            if (!keys_equal(&sc, a, b, 0, grp->n_part))
                e.flags[i] = 3;
            else
                e.flags[i] = keys_equal(&sc, a, b, grp->n_part, grp->n_keys) ? 0 : 2;
        }
        /* re-materialize in sorted order */
        uint32_t n_new = (uint32_t)((N + VEC_CHUNK_SIZE - 1) / VEC_CHUNK_SIZE);
        vec_chunk **NS = mem_calloc(t, sizeof(vec_chunk *) * n_new, err);
        if (!NS) {
            rc = err ? err->code : SQE_ERR_OUT_OF_MEMORY;
            break;
        }
        for (uint32_t c = 0; c < n_new && rc == SQE_OK; c++) {
            uint64_t first = (uint64_t)c << 11;
            uint32_t cnt = (uint32_t)(N - first < VEC_CHUNK_SIZE ? N - first : VEC_CHUNK_SIZE);
            rc = new_store_chunk(im, t, cnt, &NS[c], err);
            for (uint32_t r = 0; r < cnt && rc == SQE_OK; r++)
                refs[r] = exec_sort_payload(&grp->spec, entries + (first + r) * W);
            uint32_t n_src_cols = S[0]->n_cols;
            for (uint32_t col = 0; col < n_src_cols && rc == SQE_OK; col++)
                rc = gather_col(&NS[c]->cols[col], S, col, refs, cnt, err);
        }
        mem_free(t, entries);
        entries = NULL;
        if (rc != SQE_OK) {
            free_store(t, NS, n_new);
            break;
        }
        free_store(t, S, n_S);
        S = NS;
        n_S = n_new;
        e.S = S;
        rc = eval_group(&e, gi);
    }
out:
    g->store = S;
    g->n_store = n_S;
    mem_free(t, entries);
    mem_free(t, refs);
    void *bufs[] = {e.flags, e.peer_begin, e.peer_end, e.peer_idx, e.group_start, e.states, e.sel};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) mem_free(t, bufs[i]);
    arena_destroy(&e.scratch);
    return rc;
}

/* --------------------------------------------------------------------------------------------
 * Source
 * ------------------------------------------------------------------------------------------ */

static int win_source_init(exec_op *op, void **gstate, sqe_error *err) {
    win_src *s = mem_calloc(op->qctx->tracker, sizeof *s, err);
    if (!s) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
    atomic_init(&s->next, 0);
    *gstate = s;
    return SQE_OK;
}

static void win_source_destroy(exec_op *op, void *gstate) { mem_free(op->qctx->tracker, gstate); }

static uint32_t win_max_threads(exec_op *op, void *gstate) {
    win_global *g = op->sink_gstate;
    return g && g->n_store ? g->n_store : 1;
}

static int win_next(exec_op *op, void *gstate, void *lstate, vec_chunk *out, sqe_error *err) {
    win_impl *im = op->impl;
    win_global *g = op->sink_gstate;
    win_src *s = gstate;
    out->count = 0;
    uint32_t i = atomic_fetch_add(&s->next, 1);
    if (!g || i >= g->n_store) return SQE_OK;
    vec_chunk *c = g->store[i];
    for (uint32_t k = 0; k < out->n_cols; k++)
        SQE_TRY(exec_vec_slice(&out->cols[k], &c->cols[im->out_col[k]], NULL, c->count, err));
    out->count = c->count;
    return SQE_OK;
}

static const exec_op_vtable window_vt = {
    .name = "Window",
    .source_init = win_source_init,
    .source_next = win_next,
    .source_destroy = win_source_destroy,
    .sink_init = win_sink_init,
    .sink_local_init = win_local_init,
    .sink = win_sink,
    .sink_combine = win_combine,
    .sink_finalize = win_finalize,
    .sink_destroy = win_sink_destroy,
    .source_max_threads = win_max_threads,
    .sink_local_destroy = win_local_destroy,
};

/* --------------------------------------------------------------------------------------------
 * Construction
 * ------------------------------------------------------------------------------------------ */

typedef struct build_ctx {
    exec_query_ctx *qctx;
    win_impl *im;
    const plan *child;
    uint32_t cap_exprs;
    sqe_type *types;          /* child types ++ expression types (grown) */
    sqe_error *err;
} build_ctx;

/* Storage column of an expression: the child's column for a plain reference, else a new
 * evaluated column. */
static int add_expr(build_ctx *b, const bexpr *x, uint32_t *col) {
    win_impl *im = b->im;
    if (x->kind == BEXPR_COLUMN) {
        int c = plan_find_col(b->child, x->u.col);
        if (c >= 0) {
            *col = (uint32_t)c;
            return SQE_OK;
        }
    }
    for (uint32_t i = 0; i < im->n_exprs; i++)
        if (im->expr_src[i] == x) {
            *col = im->n_child + i;
            return SQE_OK;
        }
    if (im->n_exprs == b->cap_exprs) {
        uint32_t cap = b->cap_exprs ? b->cap_exprs * 2 : 8;
        exec_expr **ne = ARENA_ARRAY(b->qctx->arena, exec_expr *, cap);
        const bexpr **ns = ARENA_ARRAY(b->qctx->arena, const bexpr *, cap);
        sqe_type *nt = ARENA_ARRAY(b->qctx->arena, sqe_type, im->n_child + cap);
        if (!ne || !ns || !nt) return err_nomem(b->err, "operator");
        if (im->n_exprs) {
            memcpy(ne, im->exprs, sizeof(exec_expr *) * im->n_exprs);
            memcpy(ns, im->expr_src, sizeof(bexpr *) * im->n_exprs);
        }
        memcpy(nt, b->types, sizeof(sqe_type) * (im->n_child + im->n_exprs));
        im->exprs = ne;
        im->expr_src = ns;
        b->types = nt;
        b->cap_exprs = cap;
    }
    exec_layout lay = exec_layout_of(b->child);
    SQE_TRY(exec_expr_compile(b->qctx, x, &lay, &im->exprs[im->n_exprs], b->err));
    im->expr_src[im->n_exprs] = x;
    b->types[im->n_child + im->n_exprs] = x->type;
    *col = im->n_child + im->n_exprs++;
    return SQE_OK;
}

static bool same_window(const win_group *g, const uint32_t *cols, const bool *desc,
                        const bool *nf, uint32_t n_part, uint32_t n_keys) {
    if (g->n_part != n_part || g->n_keys != n_keys) return false;
    for (uint32_t k = 0; k < n_keys; k++)
        if (g->key_col[k] != cols[k] || g->desc[k] != desc[k] || g->nulls_first[k] != nf[k])
            return false;
    return true;
}

int exec_op_window_create(exec_query_ctx *qctx, const plan *p, exec_op *child, exec_op **out,
                          sqe_error *err) {
    exec_op *op = exec_op_alloc(qctx, &window_vt, p, 1);
    win_impl *im = ARENA_NEW(qctx->arena, win_impl);
    if (!op || !im) return err_nomem(err, "operator");
    op->children[0] = child;
    op->impl = im;
    arena *A = qctx->arena;
    const plan *in = p->children[0];
    uint32_t nf = p->u.window.n_funcs;
    im->n_child = in->n_out;
    im->n_funcs = nf;
    im->funcs = ARENA_ARRAY(A, win_func, nf + 1);
    im->groups = ARENA_ARRAY(A, win_group, nf + 1);
    build_ctx b = {qctx, im, in, 0, ARENA_ARRAY(A, sqe_type, in->n_out + 1), err};
    if (!im->funcs || !im->groups || !b.types) return err_nomem(err, "operator");
    for (uint32_t c = 0; c < in->n_out; c++) b.types[c] = in->out[c].type;
    for (uint32_t fi = 0; fi < nf; fi++) {
        const plan_window_func *pf = &p->u.window.funcs[fi];
        win_func *f = &im->funcs[fi];
        f->pf = pf;
        f->kind = pf->win ? (uint8_t)pf->win->kind : 0;
        f->agg = pf->agg;
        if (!pf->win && !pf->agg)
            return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "window function without kernel");
        if (pf->distinct)
            return err_set(err, SQE_ERR_NOT_SUPPORTED, "DISTINCT in window functions is not supported");
        if (pf->n_args > 16) return err_set(err, SQE_ERR_NOT_SUPPORTED, "too many window function arguments");
        f->n_args = pf->n_args;
        f->arg_col = ARENA_ARRAY(A, uint32_t, pf->n_args + 1);
        if (!f->arg_col) return err_nomem(err, "operator");
        for (uint32_t j = 0; j < pf->n_args; j++) SQE_TRY(add_expr(&b, pf->args[j], &f->arg_col[j]));
        uint32_t fc;
        f->filter_col = -1;
        if (pf->filter) {
            SQE_TRY(add_expr(&b, pf->filter, &fc));
            f->filter_col = (int32_t)fc;
        }
        f->unit = pf->frame_unit ? pf->frame_unit : FRAME_RANGE;
        f->start_bound = pf->start_bound ? pf->start_bound : BOUND_UNBOUNDED_PRECEDING;
        f->end_bound = pf->end_bound ? pf->end_bound
                                     : (pf->n_order ? BOUND_CURRENT_ROW : BOUND_UNBOUNDED_FOLLOWING);
        f->start_col = f->end_col = -1;
        if (pf->start_offset) {
            SQE_TRY(add_expr(&b, pf->start_offset, &fc));
            f->start_col = (int32_t)fc;
            f->start_const = bexpr_is_const(pf->start_offset);
        }
        if (pf->end_offset) {
            SQE_TRY(add_expr(&b, pf->end_offset, &fc));
            f->end_col = (int32_t)fc;
            f->end_const = bexpr_is_const(pf->end_offset);
        }
        if (f->unit == FRAME_RANGE && pf->n_order != 1 &&
            (f->start_bound == BOUND_PRECEDING || f->start_bound == BOUND_FOLLOWING ||
             f->end_bound == BOUND_PRECEDING || f->end_bound == BOUND_FOLLOWING))
            return err_set(err, SQE_ERR_INVALID_WINDOW_FRAME,
                           "Window frame of type RANGE PRECEDING or FOLLOWING requires single sort item in ORDER BY");
        /* the window: partition keys, then order keys */
        uint32_t nk = pf->n_partition + pf->n_order;
        uint32_t *cols = ARENA_ARRAY(A, uint32_t, nk + 1);
        bool *desc = ARENA_ARRAY(A, bool, nk + 1);
        bool *nfirst = ARENA_ARRAY(A, bool, nk + 1);
        if (!cols || !desc || !nfirst) return err_nomem(err, "operator");
        for (uint32_t k = 0; k < pf->n_partition; k++) {
            SQE_TRY(add_expr(&b, pf->partition[k], &cols[k]));
            desc[k] = false;
            nfirst[k] = true;
        }
        for (uint32_t k = 0; k < pf->n_order; k++) {
            SQE_TRY(add_expr(&b, pf->order[k].expr, &cols[pf->n_partition + k]));
            desc[pf->n_partition + k] = pf->order[k].desc;
            nfirst[pf->n_partition + k] = pf->order[k].nulls_first;
        }
        uint32_t gi;
        for (gi = 0; gi < im->n_groups; gi++)
            if (same_window(&im->groups[gi], cols, desc, nfirst, pf->n_partition, nk)) break;
        if (gi == im->n_groups) {
            win_group *g = &im->groups[im->n_groups++];
            g->n_part = pf->n_partition;
            g->n_keys = nk;
            g->key_col = cols;
            g->desc = desc;
            g->nulls_first = nfirst;
        }
        f->group = gi;
    }
    /* column types: child, expressions, results */
    im->n_in = im->n_child + im->n_exprs;
    im->n_cols = im->n_in + nf;
    im->col_types = ARENA_ARRAY(A, sqe_type, im->n_cols + 1);
    if (!im->col_types) return err_nomem(err, "operator");
    memcpy(im->col_types, b.types, sizeof(sqe_type) * im->n_in);
    for (uint32_t fi = 0; fi < nf; fi++) {
        im->funcs[fi].result_col = im->n_in + fi;
        im->col_types[im->n_in + fi] = p->u.window.funcs[fi].type;
    }
    for (uint32_t gi = 0; gi < im->n_groups; gi++) {
        win_group *g = &im->groups[gi];
        sqe_type *kt = ARENA_ARRAY(A, sqe_type, g->n_keys + 1);
        if (!kt) return err_nomem(err, "operator");
        for (uint32_t k = 0; k < g->n_keys; k++) kt[k] = im->col_types[g->key_col[k]];
        SQE_TRY(exec_sort_spec_init(&g->spec, A, kt, g->desc, g->nulls_first, g->n_keys, err));
        g->part_width = g->n_part ? g->spec.keys[g->n_part - 1].offset + g->spec.keys[g->n_part - 1].width : 0;
    }
    /* outputs */
    im->out_col = ARENA_ARRAY(A, uint32_t, p->n_out + 1);
    if (!im->out_col) return err_nomem(err, "operator");
    for (uint32_t c = 0; c < p->n_out; c++) {
        int ic = plan_find_col(in, p->out[c].id);
        if (ic >= 0) {
            im->out_col[c] = (uint32_t)ic;
            continue;
        }
        uint32_t fi;
        for (fi = 0; fi < nf; fi++)
            if (p->u.window.funcs[fi].out == p->out[c].id) break;
        if (fi == nf)
            return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "window output column %u has no source", c);
        im->out_col[c] = im->n_in + fi;
    }
    exec_op_set_detail(op, "%u functions, %u windows", nf, im->n_groups);
    *out = op;
    return SQE_OK;
}
