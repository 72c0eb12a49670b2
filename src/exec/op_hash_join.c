/*
 * op_hash_join.c: equi-joins (PLAN_JOIN with keys) of every type: INNER, LEFT, RIGHT, FULL,
 * SEMI, ANTI, MARK and SINGLE, with NULL-safe keys and a residual predicate.
 *
 * INTERFACE: exec_op_hash_join_create (ops.h).
 * NOTES (ENGINE.md "Hash tables", "Joins"):
 * - Build (sink, child 1 = the logical right input): each thread evaluates the build keys,
 *   hashes them, and copies keys plus the right columns the join needs (output and residual)
 *   into row-format stores split into radix partitions by hash, keeping a HyperLogLog sketch of
 *   the hashes. Finalize sizes one directory region per partition from the distinct-key
 *   estimate; the probe threads then fill the regions in parallel before they probe (jb_build,
 *   from op_local_init). Rows with equal keys are chained behind the first (EXEC_ROW_NEXT), so
 *   a probe finds each key once. Rows with a NULL in a key that is not NULL-safe are never
 *   inserted (they only come out of RIGHT/FULL as unmatched, or serve the exact MARK check).
 * - Probe (op, child 0 = left): the chunk's keys are hashed and probed all at once
 *   (exec_join_ht_probe: salt check, then keys compared column by column for all candidates);
 *   then (probe row, build row) pairs are produced up to VEC_CHUNK_SIZE per call, returning
 *   EXEC_HAVE_MORE while matches remain. Left output columns are zero-copy views of the probe
 *   chunk through the pair selection; right columns are gathered from the build rows.
 * - Residual: evaluated on each batch of candidate pairs (a chunk of left views + gathered right
 *   columns in the layout left ++ right); a pair counts only when it is TRUE. LEFT/FULL/SINGLE
 *   then emit the probe rows without a passing pair (right columns NULL) after the pairs of a
 *   chunk; SEMI/ANTI/MARK decide per probe row and skip rows already matched.
 * - MARK appends a boolean: TRUE with a (passing) match; otherwise NULL when mark_null_aware and
 *   the build side is not empty and (the probe key is NULL or the build side has a NULL key);
 *   otherwise FALSE.
 * - RIGHT_SEMI/RIGHT_ANTI (the optimizer's build-side choice for SEMI/ANTI): the probe emits
 *   nothing and only marks the build rows it matches; the tail source below emits the build
 *   rows found (RIGHT_SEMI) or never found (RIGHT_ANTI, NULL keys included).
 * - RIGHT/FULL: a "found" byte per build row is set (relaxed atomic store) by matching pairs.
 *   The operator is then also a source (exec_int.h "sink + op + source"): after the probe
 *   pipeline finished on every thread, the driver runs a tail pipeline from this source through
 *   the probe pipeline's downstream operators; it scans the build blocks in parallel (one block
 *   per morsel) and emits the rows never found, with NULL left columns.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exec/hashtable.h"
#include "exec/ops.h"

enum { SIDE_LEFT = 0, SIDE_RIGHT, SIDE_MARK };

/* Equal keys share one directory entry, so the directory is sized by the number of distinct
 * build keys, estimated with a HyperLogLog sketch of the key hashes (Flajolet et al. 2007). */
#define HLL_BITS 12
#define HLL_REGS (1u << HLL_BITS)

static inline void hll_add(uint8_t *regs, uint64_t h) {
    uint32_t idx = (uint32_t)(h & (HLL_REGS - 1));
    uint64_t w = (h >> HLL_BITS) | (1ULL << (64 - HLL_BITS));
    uint8_t rank = (uint8_t)(__builtin_ctzll(w) + 1);
    if (rank > regs[idx]) regs[idx] = rank;
}

static double hll_estimate(const uint8_t *regs) {
    double m = HLL_REGS, sum = 0;
    uint32_t zeros = 0;
    for (uint32_t i = 0; i < HLL_REGS; i++) {
        sum += ldexp(1.0, -(int)regs[i]);
        if (!regs[i]) zeros++;
    }
    double e = 0.7213 / (1 + 1.079 / m) * m * m / sum;
    if (e < 2.5 * m && zeros) e = m * log(m / zeros);
    return e;
}

typedef struct join_impl {
    uint8_t type;
    uint32_t n_keys;
    exec_expr **probe_keys;
    exec_expr **build_keys;
    bool *null_safe;
    exec_expr *residual;
    bool mark_null_aware;
    uint32_t n_strict_keys;     /* MARK: keys [0, n_strict_keys) are the correlation (a NULL
                                   there is no match); the rest are the comparison's (a NULL
                                   there is unknown). Otherwise n_keys. */
    uint32_t n_left, n_right;
    exec_row_layout layout;     /* fields: build keys, then right columns; payload: found */
    uint32_t found_off;
    uint32_t n_payload;
    uint32_t *payload_col;      /* field n_keys + i holds right column payload_col[i] */
    int32_t *right_field;       /* right column -> field, or -1 */
    bool *res_right;            /* right columns the residual reads */
    sqe_type *pair_types;       /* left ++ right */
    uint32_t n_out;
    uint8_t *out_side;
    uint32_t *out_idx;          /* left column, or right field */
    uint32_t radix_bits, n_parts;
    bool outer_build;           /* RIGHT/FULL: unmatched build rows are emitted */
    bool keep_null_rows;        /* store build rows with NULL keys (outer build, exact MARK) */
    bool exact_mark;            /* null-aware MARK with several keys or a residual: a row
                                   without a match checks the build rows for an unknown */
    bool outer_probe;           /* LEFT/FULL/SINGLE: unmatched probe rows are emitted */
} join_impl;

/* --- build state ------------------------------------------------------------------------- */

typedef struct jb_local {
    struct jb_local *next;
    exec_expr_state **key_st;
    const vec **keyv;
    exec_row_store *parts;
    uint64_t *hashes;
    uint8_t **rows;
    uint32_t *sel;           /* rows grouped by partition */
    uint32_t *part_of;
    bool has_null_key;
    uint64_t n_input;        /* rows seen, NULL keys included */
    uint8_t hll[HLL_REGS];   /* HyperLogLog of the build keys (sizes the directory) */
} jb_local;

typedef struct jb_global {
    pthread_mutex_t lock;
    jb_local *locals;
    exec_ht dir;
    uint64_t n_rows;         /* rows stored */
    uint64_t n_input;        /* rows of the build input (MARK: is it empty?) */
    uint64_t n_inserted;
    bool has_null_key;
    exec_row_block **blocks; /* every block (unmatched-build scan, exact MARK) */
    uint32_t n_blocks;
    uint8_t **null_rows;     /* exact MARK: rows with a NULL key */
    uint64_t n_null_rows;
    /* the directory is filled by the probe threads (jb_build), one partition region each */
    uint64_t region_limit;   /* entries a region may take before it counts as overflowing */
    uint64_t max_part_rows;  /* rows of the largest partition (the safe region size) */
    _Atomic uint32_t next_part, parts_done;
    _Atomic int overflow;
    _Atomic int built;
    pthread_mutex_t build_lock;
    pthread_cond_t build_cv;
    int build_rc;
    sqe_error build_err;
} jb_global;

/* --- probe state --------------------------------------------------------------------------- */

typedef struct jp_local {
    exec_expr_state **key_st;
    const vec **keyv;
    vec_view *views;
    uint32_t *idx_extra;
    exec_ht_scratch *sc;
    exec_expr_state *res_st;
    vec_chunk pairs;         /* residual input: left views ++ right gathered columns */
    bool pairs_ok;
    vec resv;                /* MARK: residual values (TRUE / FALSE / NULL) */
    bool resv_ok;
    uint8_t maybe[VEC_CHUNK_SIZE]; /* MARK: a pair with equal keys had a NULL residual */
    uint64_t hashes[VEC_CHUNK_SIZE];
    uint8_t *heads_c[VEC_CHUNK_SIZE];
    uint8_t *heads[VEC_CHUNK_SIZE];
    uint32_t probe_sel[VEC_CHUNK_SIZE];
    uint8_t key_null[VEC_CHUNK_SIZE];
    uint8_t matched[VEC_CHUNK_SIZE];
    uint32_t pair_probe[VEC_CHUNK_SIZE];
    uint8_t *pair_build[VEC_CHUNK_SIZE];
    uint32_t res_sel[VEC_CHUNK_SIZE];
    uint32_t out_sel[VEC_CHUNK_SIZE];
    uint8_t *out_rows[VEC_CHUNK_SIZE];
    int phase;               /* 0: new input; 1: pairs; 2: tail */
    uint32_t cur_i;
    uint8_t *cur_row;
} jp_local;

/* --- unmatched build rows (source) --------------------------------------------------------- */

typedef struct jt_src {
    _Atomic uint32_t next;
} jt_src;

typedef struct jt_local {
    exec_row_block *block;
    uint32_t pos;
    uint8_t *rows[VEC_CHUNK_SIZE];
} jt_local;

/* --------------------------------------------------------------------------------------------
 * Build
 * ------------------------------------------------------------------------------------------ */

static void jb_local_free(exec_op *op, jb_local *l) {
    if (!l) return;
    join_impl *im = op->impl;
    mem_tracker *t = op->qctx->tracker;
    if (l->key_st)
        for (uint32_t k = 0; k < im->n_keys; k++) exec_expr_state_destroy(l->key_st[k]);
    if (l->parts)
        for (uint32_t p = 0; p < im->n_parts; p++) exec_row_store_destroy(&l->parts[p]);
    void *bufs[] = {l->key_st, l->keyv, l->parts, l->hashes, l->rows, l->sel, l->part_of};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) mem_free(t, bufs[i]);
    mem_free(t, l);
}

static int jb_local_init(exec_op *op, void *gstate, uint32_t input_idx, void **lstate,
                         sqe_error *err) {
    join_impl *im = op->impl;
    mem_tracker *t = op->qctx->tracker;
    jb_local *l = mem_calloc(t, sizeof *l, err);
    if (!l) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
    int rc = SQE_OK;
    l->key_st = mem_calloc(t, sizeof(exec_expr_state *) * im->n_keys, err);
    l->keyv = mem_calloc(t, sizeof(vec *) * im->n_keys, err);
    l->parts = mem_calloc(t, sizeof(exec_row_store) * im->n_parts, err);
    l->hashes = mem_alloc(t, sizeof(uint64_t) * VEC_CHUNK_SIZE, err);
    l->rows = mem_alloc(t, sizeof(uint8_t *) * VEC_CHUNK_SIZE, err);
    l->sel = mem_alloc(t, sizeof(uint32_t) * VEC_CHUNK_SIZE, err);
    l->part_of = mem_alloc(t, sizeof(uint32_t) * VEC_CHUNK_SIZE, err);
    if (!l->key_st || !l->keyv || !l->parts || !l->hashes || !l->rows || !l->sel || !l->part_of)
        rc = err ? err->code : SQE_ERR_OUT_OF_MEMORY;
    if (l->parts)
        for (uint32_t p = 0; p < im->n_parts; p++) exec_row_store_init(&l->parts[p], &im->layout, t);
    for (uint32_t k = 0; k < im->n_keys && rc == SQE_OK; k++)
        rc = exec_expr_state_create(im->build_keys[k], op->qctx, &l->key_st[k], err);
    if (rc != SQE_OK) {
        jb_local_free(op, l);
        return rc;
    }
    *lstate = l;
    return SQE_OK;
}

static void jb_local_destroy(exec_op *op, void *gstate, void *lstate) { jb_local_free(op, lstate); }

static int jb_sink(exec_op *op, void *gstate, void *lstate, const vec_chunk *in, sqe_error *err) {
    join_impl *im = op->impl;
    jb_local *l = lstate;
    uint32_t n = in->count;
    if (n == 0) return SQE_OK;
    if (n > VEC_CHUNK_SIZE)
        return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "join build chunk too large");
    l->n_input += n;
    for (uint32_t k = 0; k < im->n_keys; k++) {
        SQE_TRY(exec_expr_eval_view(l->key_st[k], in, NULL, n, &l->keyv[k], err));
        exec_hash_vec(l->keyv[k], NULL, n, l->hashes, k > 0);
    }
    /* rows with a NULL key that is not NULL-safe never match: keep them only for RIGHT/FULL */
    uint32_t *keep = l->sel;
    uint32_t n_keep = n;
    bool filtered = false;
    for (uint32_t k = 0; k < im->n_keys; k++) {
        if (im->null_safe[k] || !exec_vec_may_have_nulls(l->keyv[k])) continue;
        if (!filtered) {
            for (uint32_t i = 0; i < n; i++) keep[i] = i;
            filtered = true;
        }
        /* RIGHT/FULL keep every row (emitted unmatched later); an exact MARK keeps the rows
         * whose comparison key is NULL (they make marks unknown), never those whose
         * correlation key is (they never count) */
        bool comparison_key = k >= im->n_strict_keys;
        bool keep_nulls = im->keep_null_rows && (im->outer_build || comparison_key);
        uint32_t m = 0;
        for (uint32_t i = 0; i < n_keep; i++) {
            uint32_t r = keep[i];
            bool nul = vec_is_null(l->keyv[k], r);
            if (nul && comparison_key) l->has_null_key = true;
            if (!nul || keep_nulls) keep[m++] = r;
        }
        n_keep = m;
    }
    /* group the kept rows by partition (counting sort) */
    uint32_t counts[256];
    uint32_t np = im->n_parts;
    memset(counts, 0, sizeof(uint32_t) * np);
    for (uint32_t i = 0; i < n_keep; i++) {
        uint32_t r = filtered ? keep[i] : i;
        uint32_t p = exec_radix_of(l->hashes[r], im->radix_bits);
        l->part_of[i] = p;
        counts[p]++;
    }
    uint32_t starts[256], sum = 0;
    for (uint32_t p = 0; p < np; p++) {
        starts[p] = sum;
        sum += counts[p];
    }
    uint32_t order[VEC_CHUNK_SIZE];
    for (uint32_t i = 0; i < n_keep; i++) order[starts[l->part_of[i]]++] = filtered ? keep[i] : i;
    uint32_t begin = 0;
    for (uint32_t p = 0; p < np; p++) {
        uint32_t c = counts[p];
        if (!c) continue;
        const uint32_t *sel = order + begin;
        exec_row_store *st = &l->parts[p];
        SQE_TRY(exec_row_store_append(st, c, l->rows, err));
        for (uint32_t i = 0; i < c; i++) {
            memcpy(l->rows[i] + EXEC_ROW_HASH, &l->hashes[sel[i]], 8);
            hll_add(l->hll, l->hashes[sel[i]]);
        }
        for (uint32_t k = 0; k < im->n_keys; k++)
            SQE_TRY(exec_row_scatter(st, k, l->keyv[k], sel, c, l->rows, err));
        for (uint32_t j = 0; j < im->n_payload; j++)
            SQE_TRY(exec_row_scatter(st, im->n_keys + j, &in->cols[im->payload_col[j]], sel, c,
                                     l->rows, err));
        begin += c;
    }
    return SQE_OK;
}

static int jb_combine(exec_op *op, void *gstate, void *lstate, sqe_error *err) {
    jb_global *g = gstate;
    jb_local *l = lstate;
    pthread_mutex_lock(&g->lock);
    l->next = g->locals;
    g->locals = l;
    pthread_mutex_unlock(&g->lock);
    return SQE_OK;
}

static int jb_sink_init(exec_op *op, void **gstate, sqe_error *err) {
    jb_global *g = mem_calloc(op->qctx->tracker, sizeof *g, err);
    if (!g) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
    pthread_mutex_init(&g->lock, NULL);
    pthread_mutex_init(&g->build_lock, NULL);
    pthread_cond_init(&g->build_cv, NULL);
    *gstate = g;
    return SQE_OK;
}

static void jb_sink_destroy(exec_op *op, void *gstate) {
    jb_global *g = gstate;
    if (!g) return;
    while (g->locals) {
        jb_local *l = g->locals;
        g->locals = l->next;
        jb_local_free(op, l);
    }
    exec_ht_destroy(&g->dir);
    mem_free(op->qctx->tracker, g->blocks);
    mem_free(op->qctx->tracker, g->null_rows);
    pthread_mutex_destroy(&g->lock);
    pthread_mutex_destroy(&g->build_lock);
    pthread_cond_destroy(&g->build_cv);
    mem_free(op->qctx->tracker, g);
}

static bool row_has_unsafe_null(const join_impl *im, const uint8_t *row) {
    for (uint32_t k = 0; k < im->n_keys; k++)
        if (!im->null_safe[k] && exec_row_is_null(&im->layout, row, k)) return true;
    return false;
}

static int jb_finalize(exec_op *op, void *gstate, sqe_error *err) {
    join_impl *im = op->impl;
    jb_global *g = gstate;
    mem_tracker *t = op->qctx->tracker;
    uint64_t n = 0, max_part = 0;
    uint32_t nb = 0;
    for (jb_local *l = g->locals; l; l = l->next) {
        if (l->has_null_key) g->has_null_key = true;
        g->n_input += l->n_input;
        for (uint32_t p = 0; p < im->n_parts; p++) {
            n += l->parts[p].n_rows;
            for (exec_row_block *b = l->parts[p].head; b; b = b->next) nb++;
        }
    }
    for (uint32_t p = 0; p < im->n_parts; p++) {
        uint64_t rows = 0;
        for (jb_local *l = g->locals; l; l = l->next) rows += l->parts[p].n_rows;
        if (rows > max_part) max_part = rows;
    }
    g->n_rows = n;
    g->max_part_rows = max_part;
    /* size the regions by the distinct keys (HyperLogLog over every thread's sketch), spread
     * evenly over the partitions, with a margin for the estimate's error */
    uint8_t regs[HLL_REGS];
    memset(regs, 0, sizeof regs);
    for (jb_local *l = g->locals; l; l = l->next)
        for (uint32_t i = 0; i < HLL_REGS; i++)
            if (l->hll[i] > regs[i]) regs[i] = l->hll[i];
    double per_part = hll_estimate(regs) / im->n_parts * 1.3 + 64;
    uint64_t region = per_part < (double)max_part ? (uint64_t)per_part : max_part;
    uint64_t region_cap = exec_ht_capacity_for(region);
    g->region_limit = region_cap / 8 * 7;
    SQE_TRY(exec_ht_init_regions(&g->dir, region_cap, im->radix_bits, t, err));
    if (im->outer_build || im->exact_mark) {
        g->blocks = mem_alloc(t, sizeof(exec_row_block *) * (nb ? nb : 1), err);
        if (!g->blocks) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
    }
    if (im->exact_mark) {
        g->null_rows = mem_alloc(t, sizeof(uint8_t *) * (n ? n : 1), err);
        if (!g->null_rows) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
    }
    uint64_t null_keyed = 0;
    uint32_t w = im->layout.row_width;
    for (jb_local *l = g->locals; l; l = l->next)
        for (uint32_t p = 0; p < im->n_parts; p++)
            for (exec_row_block *b = l->parts[p].head; b; b = b->next) {
                if (g->blocks) g->blocks[g->n_blocks++] = b;
                if (!im->keep_null_rows) continue;
                for (uint32_t r = 0; r < b->n_rows; r++) {
                    uint8_t *row = b->rows + (size_t)r * w;
                    if (!row_has_unsafe_null(im, row)) continue;
                    null_keyed++;
                    if (g->null_rows) g->null_rows[g->n_null_rows++] = row;
                }
            }
    g->n_inserted = n - null_keyed;
    atomic_store(&g->next_part, 0);
    atomic_store(&g->parts_done, 0);
    atomic_store(&g->overflow, 0);
    atomic_store(&g->built, n == 0);
    return SQE_OK;
}

/* Inserts the rows of partition p (every thread's) into its region. Returns false when the
 * region overflowed (then the last builder rebuilds with safe sizes). */
static bool insert_partition(const join_impl *im, jb_global *g, uint32_t p, uint8_t **batch,
                             uint64_t limit) {
    uint32_t w = im->layout.row_width;
    uint64_t added = 0;
    uint32_t k = 0;
    for (jb_local *l = g->locals; l; l = l->next)
        for (exec_row_block *b = l->parts[p].head; b; b = b->next)
            for (uint32_t r = 0; r < b->n_rows; r++) {
                uint8_t *row = b->rows + (size_t)r * w;
                if (im->keep_null_rows && row_has_unsafe_null(im, row)) continue;
                batch[k++] = row;
                if (k == VEC_CHUNK_SIZE) {
                    if (!exec_join_ht_insert(&g->dir, &im->layout, im->n_keys, batch, k,
                                             limit - added, &added))
                        return false;
                    k = 0;
                }
            }
    return exec_join_ht_insert(&g->dir, &im->layout, im->n_keys, batch, k, limit - added, &added);
}

/* Fills the directory, called by every probe thread before it probes: threads claim partitions
 * and insert them into their own regions in parallel; the thread finishing the last partition
 * wakes the others (and first rebuilds serially with regions as large as the largest partition
 * if a distinct-key estimate was too low). */
static int jb_build(exec_op *op, jb_global *g, sqe_error *err) {
    join_impl *im = op->impl;
    if (!atomic_load(&g->built)) {
        uint8_t **batch = mem_alloc(op->qctx->tracker, sizeof(uint8_t *) * VEC_CHUNK_SIZE, err);
        if (!batch) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
        for (;;) {
            uint32_t p = atomic_fetch_add(&g->next_part, 1);
            if (p >= im->n_parts) break;
            if (!atomic_load(&g->overflow) && !insert_partition(im, g, p, batch, g->region_limit))
                atomic_store(&g->overflow, 1);
            if (atomic_fetch_add(&g->parts_done, 1) + 1 < im->n_parts) continue;
            /* this thread finished the last partition: complete the build */
            int rc = SQE_OK;
            if (atomic_load(&g->overflow)) {
                exec_ht_destroy(&g->dir);
                rc = exec_ht_init_regions(&g->dir, exec_ht_capacity_for(g->max_part_rows),
                                          im->radix_bits, op->qctx->tracker, &g->build_err);
                for (uint32_t q = 0; q < im->n_parts && rc == SQE_OK; q++)
                    insert_partition(im, g, q, batch, UINT64_MAX);
            }
            pthread_mutex_lock(&g->build_lock);
            g->build_rc = rc;
            atomic_store(&g->built, 1);
            pthread_cond_broadcast(&g->build_cv);
            pthread_mutex_unlock(&g->build_lock);
        }
        mem_free(op->qctx->tracker, batch);
        pthread_mutex_lock(&g->build_lock);
        while (!atomic_load(&g->built)) pthread_cond_wait(&g->build_cv, &g->build_lock);
        pthread_mutex_unlock(&g->build_lock);
    }
    if (g->build_rc != SQE_OK && err) *err = g->build_err;
    return g->build_rc;
}

/* --------------------------------------------------------------------------------------------
 * Probe
 * ------------------------------------------------------------------------------------------ */

static void jp_local_destroy(exec_op *op, void *lstate) {
    jp_local *l = lstate;
    if (!l) return;
    join_impl *im = op->impl;
    mem_tracker *t = op->qctx->tracker;
    if (l->key_st)
        for (uint32_t k = 0; k < im->n_keys; k++) exec_expr_state_destroy(l->key_st[k]);
    exec_expr_state_destroy(l->res_st);
    if (l->pairs_ok) vec_chunk_destroy(&l->pairs);
    if (l->resv_ok) vec_destroy(&l->resv);
    void *bufs[] = {l->key_st, l->keyv, l->views, l->idx_extra, l->sc};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) mem_free(t, bufs[i]);
    mem_free(t, l);
}

static int jp_local_init(exec_op *op, void **lstate, sqe_error *err) {
    join_impl *im = op->impl;
    mem_tracker *t = op->qctx->tracker;
    SQE_TRY(jb_build(op, op->sink_gstate, err));
    jp_local *l = mem_calloc(t, sizeof *l, err);
    if (!l) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
    int rc = SQE_OK;
    l->key_st = mem_calloc(t, sizeof(exec_expr_state *) * im->n_keys, err);
    l->keyv = mem_calloc(t, sizeof(vec *) * im->n_keys, err);
    l->views = mem_calloc(t, sizeof(vec_view) * im->n_keys, err);
    l->sc = mem_alloc(t, sizeof(exec_ht_scratch), err);
    if (im->n_keys > 8)
        l->idx_extra = mem_alloc(t, sizeof(uint32_t) * VEC_CHUNK_SIZE * (im->n_keys - 8), err);
    if (!l->key_st || !l->keyv || !l->views || !l->sc || (im->n_keys > 8 && !l->idx_extra))
        rc = err ? err->code : SQE_ERR_OUT_OF_MEMORY;
    for (uint32_t k = 0; k < im->n_keys && rc == SQE_OK; k++)
        rc = exec_expr_state_create(im->probe_keys[k], op->qctx, &l->key_st[k], err);
    if (rc == SQE_OK && im->residual) {
        rc = exec_expr_state_create(im->residual, op->qctx, &l->res_st, err);
        if (rc == SQE_OK) {
            rc = vec_chunk_init(&l->pairs, im->n_left + im->n_right, im->pair_types,
                                VEC_CHUNK_SIZE, t, err);
            l->pairs_ok = true;
        }
        if (rc == SQE_OK && im->type == JOIN_MARK) {
            rc = vec_init(&l->resv, type_make(TYPE_BOOLEAN), VEC_CHUNK_SIZE, t, err);
            l->resv_ok = true;
        }
    }
    if (rc != SQE_OK) {
        jp_local_destroy(op, l);
        return rc;
    }
    *lstate = l;
    return SQE_OK;
}

/* Hashes and probes the input chunk: heads[r] for every row, key_null[r]. */
static int probe_chunk(exec_op *op, jp_local *l, const vec_chunk *in, sqe_error *err) {
    join_impl *im = op->impl;
    jb_global *g = op->sink_gstate;
    uint32_t n = in->count;
    memset(l->heads, 0, sizeof(uint8_t *) * n);
    memset(l->key_null, 0, n);
    for (uint32_t k = 0; k < im->n_keys; k++)
        SQE_TRY(exec_expr_eval_view(l->key_st[k], in, NULL, n, &l->keyv[k], err));
    uint32_t np = 0;
    bool any_null = false;
    for (uint32_t k = 0; k < im->n_keys; k++)
        if (!im->null_safe[k] && exec_vec_may_have_nulls(l->keyv[k])) any_null = true;
    if (any_null) {
        /* key_null: 1 = a NULL comparison key (MARK: unknown), 2 = a NULL correlation key */
        for (uint32_t r = 0; r < n; r++) {
            uint8_t nul = 0;
            for (uint32_t k = 0; k < im->n_keys && nul < 2; k++)
                if (!im->null_safe[k] && vec_is_null(l->keyv[k], r)) nul = k < im->n_strict_keys ? 2 : 1;
            if (nul)
                l->key_null[r] = nul;
            else
                l->probe_sel[np++] = r;
        }
    } else {
        np = n;
    }
    if (np == 0 || g->n_inserted == 0) return SQE_OK;
    const uint32_t *sel = any_null ? l->probe_sel : NULL;
    for (uint32_t k = 0; k < im->n_keys; k++) {
        exec_hash_vec(l->keyv[k], sel, np, l->hashes, k > 0);
        uint32_t *buf = k < 8 ? l->sc->idxbuf[k] : l->idx_extra + (size_t)(k - 8) * VEC_CHUNK_SIZE;
        vec_view_init_buf(&l->views[k], l->keyv[k], n, buf);
    }
    if (sel) {
        exec_join_ht_probe(&g->dir, &im->layout, im->n_keys, l->views, sel, l->hashes, np,
                           l->heads_c, l->sc);
        for (uint32_t j = 0; j < np; j++) l->heads[sel[j]] = l->heads_c[j];
    } else {
        exec_join_ht_probe(&g->dir, &im->layout, im->n_keys, l->views, NULL, l->hashes, np,
                           l->heads, l->sc);
    }
    return SQE_OK;
}

static inline void mark_found(const join_impl *im, uint8_t *row) {
    uint8_t *f = row + im->found_off;
    if (!__atomic_load_n(f, __ATOMIC_RELAXED)) __atomic_store_n(f, 1, __ATOMIC_RELAXED);
}

/* Produces up to VEC_CHUNK_SIZE pairs from (cur_i, cur_row) on. null_ext: a probe row without
 * any match gives a pair with a NULL build row. skip_matched: rows already matched are skipped.
 * single: a probe row with more than one match is an error. Returns the number of pairs. */
static int next_pairs(jp_local *l, uint32_t n, bool null_ext, bool skip_matched, bool single,
                      uint32_t *n_pairs, sqe_error *err) {
    uint32_t k = 0;
    uint32_t i = l->cur_i;
    uint8_t *cur = l->cur_row;
    while (k < VEC_CHUNK_SIZE && i < n) {
        uint8_t *row = cur;
        if (!row) {
            row = l->heads[i];
            if (!row) {
                if (null_ext) {
                    l->pair_probe[k] = i;
                    l->pair_build[k++] = NULL;
                }
                i++;
                continue;
            }
            if (skip_matched && l->matched[i]) {
                i++;
                continue;
            }
            if (single && exec_row_next(row)) {
                l->cur_i = i;
                l->cur_row = NULL;
                return err_set(err, SQE_ERR_SUBQUERY_MULTIPLE_ROWS,
                               "Scalar sub-query has returned multiple rows");
            }
        }
        l->pair_probe[k] = i;
        l->pair_build[k++] = row;
        cur = exec_row_next(row);
        if (!cur) i++;
    }
    l->cur_i = i;
    l->cur_row = cur;
    *n_pairs = k;
    return SQE_OK;
}

/* Fills the residual's input chunk with pairs [0, k). */
static int pair_chunk(exec_op *op, jp_local *l, const vec_chunk *in, uint32_t k, sqe_error *err) {
    join_impl *im = op->impl;
    vec_chunk *pc = &l->pairs;
    for (uint32_t c = 0; c < im->n_left; c++)
        SQE_TRY(exec_vec_slice(&pc->cols[c], &in->cols[c], l->pair_probe, k, err));
    for (uint32_t c = 0; c < im->n_right; c++) {
        if (!im->res_right[c]) continue;
        vec *v = &pc->cols[im->n_left + c];
        vec_reset(v);
        SQE_TRY(exec_row_gather(&im->layout, (uint32_t)im->right_field[c], l->pair_build, k, v, 0,
                                err));
    }
    pc->count = k;
    return SQE_OK;
}

/* Evaluates the residual on pairs [0, k): res_sel gets the passing pair positions. MARK joins
 * evaluate it as a value so that a NULL result marks the probe row in `maybe`. */
static int eval_residual(exec_op *op, jp_local *l, const vec_chunk *in, uint32_t k,
                         uint32_t *n_pass, sqe_error *err) {
    join_impl *im = op->impl;
    SQE_TRY(pair_chunk(op, l, in, k, err));
    if (im->type != JOIN_MARK) return exec_expr_select(l->res_st, &l->pairs, NULL, k, l->res_sel, n_pass, err);
    vec_reset(&l->resv);
    SQE_TRY(exec_expr_eval(l->res_st, &l->pairs, NULL, k, &l->resv, err));
    uint32_t np = 0;
    for (uint32_t j = 0; j < k; j++) {
        if (!vec_is_valid_flat(&l->resv, j))
            l->maybe[l->pair_probe[j]] = 1;
        else if (VEC_DATA(&l->resv, uint8_t)[j])
            l->res_sel[np++] = j;
    }
    *n_pass = np;
    return SQE_OK;
}

/* Exact null-aware MARK for a probe row without a match (several keys or a residual): is there
 * a build row whose keys compare TRUE or UNKNOWN (and whose residual is not FALSE)? Candidates
 * are every build row when the probe row has a NULL key, else the rows with a NULL key. */
static int mark_unknown(exec_op *op, jp_local *l, const vec_chunk *in, uint32_t r, bool *unknown,
                        sqe_error *err) {
    join_impl *im = op->impl;
    jb_global *g = op->sink_gstate;
    *unknown = false;
    uint32_t k = 0;
    uint64_t bi = 0, ri = 0;
    uint32_t w = im->layout.row_width;
    for (;;) {
        uint8_t *row = NULL;
        if (l->key_null[r]) {
            while (bi < g->n_blocks && ri >= g->blocks[bi]->n_rows) {
                bi++;
                ri = 0;
            }
            if (bi < g->n_blocks) row = g->blocks[bi]->rows + (size_t)ri++ * w;
        } else if (ri < g->n_null_rows) {
            row = g->null_rows[ri++];
        }
        if (row) {
            bool ok = true;
            for (uint32_t kk = 0; kk < im->n_keys && ok; kk++) {
                uint32_t phys;
                const vec *flat = vec_resolve(l->keyv[kk], r, &phys);
                bool pn = !vec_is_valid_flat(flat, phys);
                bool bn = exec_row_is_null(&im->layout, row, kk);
                if (pn || bn)
                    ok = im->null_safe[kk] ? pn && bn : kk >= im->n_strict_keys;
                else
                    ok = exec_row_field_equal_value(&im->layout, row, kk, flat, phys);
            }
            if (!ok) continue;
            if (!im->residual) {
                *unknown = true;
                return SQE_OK;
            }
            l->pair_probe[k] = r;
            l->pair_build[k++] = row;
        }
        if (k == VEC_CHUNK_SIZE || (!row && k)) {
            SQE_TRY(pair_chunk(op, l, in, k, err));
            vec_reset(&l->resv);
            SQE_TRY(exec_expr_eval(l->res_st, &l->pairs, NULL, k, &l->resv, err));
            for (uint32_t j = 0; j < k; j++)
                if (!vec_is_valid_flat(&l->resv, j) || VEC_DATA(&l->resv, uint8_t)[j]) {
                    *unknown = true;
                    return SQE_OK;
                }
            k = 0;
        }
        if (!row) return SQE_OK;
    }
}

/* Writes an output chunk of cnt rows: left columns through probe rows psel, right columns from
 * build rows brows (NULL entries / brows NULL: NULL values), mark values from marks. */
static int emit(exec_op *op, const vec_chunk *in, vec_chunk *out, const uint32_t *psel,
                uint8_t *const *brows, const int8_t *marks, uint32_t cnt, sqe_error *err) {
    join_impl *im = op->impl;
    for (uint32_t c = 0; c < im->n_out; c++) {
        vec *v = &out->cols[c];
        switch (im->out_side[c]) {
        case SIDE_LEFT:
            SQE_TRY(exec_vec_slice(v, &in->cols[im->out_idx[c]], psel, cnt, err));
            break;
        case SIDE_RIGHT:
            if (!brows)
                vec_set_const_null(v);
            else
                SQE_TRY(exec_row_gather(&im->layout, im->out_idx[c], brows, cnt, v, 0, err));
            break;
        default:
            for (uint32_t i = 0; i < cnt; i++) {
                if (marks[i] < 0) {
                    if (vec_set_null(v, i) != SQE_OK) return exec_alloc_error(v->tracker, 0, err, "validity");
                    VEC_DATA(v, uint8_t)[i] = 0;
                } else {
                    VEC_DATA(v, uint8_t)[i] = (uint8_t)marks[i];
                }
            }
            break;
        }
    }
    out->count = cnt;
    return SQE_OK;
}

/* Mark value of a probe row without a (passing) match: -1 = NULL, 0 = FALSE. */
static inline int8_t no_match_mark(const join_impl *im, const jb_global *g, const jp_local *l,
                                   uint32_t r) {
    if (im->mark_null_aware && g->n_input > 0 && l->key_null[r] < 2 &&
        (l->key_null[r] || g->has_null_key))
        return -1;
    return 0;
}

static int jp_execute(exec_op *op, void *lstate, const vec_chunk *in, vec_chunk *out,
                      exec_op_result *res, sqe_error *err) {
    join_impl *im = op->impl;
    jb_global *g = op->sink_gstate;
    jp_local *l = lstate;
    uint32_t n = in->count;
    *res = EXEC_NEED_INPUT;
    out->count = 0;
    if (n == 0) return SQE_OK;
    if (n > VEC_CHUNK_SIZE)
        return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "join probe chunk too large");
    if (l->phase == 0) {
        SQE_TRY(probe_chunk(op, l, in, err));
        l->cur_i = 0;
        l->cur_row = NULL;
        memset(l->matched, 0, n);
        memset(l->maybe, 0, n);
        l->phase = 1;
    }
    uint8_t type = im->type;
    bool semi_like = type == JOIN_SEMI || type == JOIN_ANTI || type == JOIN_MARK;
    bool build_only = type == JOIN_RIGHT_SEMI || type == JOIN_RIGHT_ANTI;

    if (semi_like && !im->residual) {
        /* one output per input: decided by heads alone */
        uint32_t k = 0;
        if (type == JOIN_MARK) {
            int8_t *marks = (int8_t *)l->matched;
            for (uint32_t r = 0; r < n; r++) {
                marks[r] = l->heads[r] ? 1 : no_match_mark(im, g, l, r);
                if (marks[r] < 0 && im->exact_mark) {
                    bool unknown;
                    SQE_TRY(mark_unknown(op, l, in, r, &unknown, err));
                    marks[r] = unknown ? -1 : 0;
                }
            }
            SQE_TRY(emit(op, in, out, NULL, NULL, marks, n, err));
        } else {
            bool want = type == JOIN_SEMI;
            for (uint32_t r = 0; r < n; r++)
                if ((l->heads[r] != NULL) == want) l->out_sel[k++] = r;
            if (k) SQE_TRY(emit(op, in, out, k == n ? NULL : l->out_sel, NULL, NULL, k, err));
        }
        l->phase = 0;
        return SQE_OK;
    }

    if (l->phase == 1) {
        bool null_ext = im->outer_probe && !im->residual;
        bool single = type == JOIN_SINGLE && !im->residual;
        for (;;) {
            uint32_t k = 0;
            SQE_TRY(next_pairs(l, n, null_ext, semi_like, single, &k, err));
            bool more = l->cur_i < n;
            if (k == 0) break;
            if (!im->residual) {
                if (im->outer_build)
                    for (uint32_t j = 0; j < k; j++)
                        if (l->pair_build[j]) mark_found(im, l->pair_build[j]);
                if (build_only) {
                    if (!more) break;
                    continue;
                }
                SQE_TRY(emit(op, in, out, l->pair_probe, l->pair_build, NULL, k, err));
                if (more) *res = EXEC_HAVE_MORE;
                else l->phase = 0;
                return SQE_OK;
            }
            uint32_t np = 0;
            SQE_TRY(eval_residual(op, l, in, k, &np, err));
            for (uint32_t j = 0; j < np; j++) {
                uint32_t pj = l->res_sel[j];
                uint32_t r = l->pair_probe[pj];
                if (type == JOIN_SINGLE && l->matched[r])
                    return err_set(err, SQE_ERR_SUBQUERY_MULTIPLE_ROWS,
                                   "Scalar sub-query has returned multiple rows");
                l->matched[r] = 1;
                if (im->outer_build) mark_found(im, l->pair_build[pj]);
            }
            if (!semi_like && !build_only && np > 0) {
                for (uint32_t j = 0; j < np; j++) {
                    l->out_sel[j] = l->pair_probe[l->res_sel[j]];
                    l->out_rows[j] = l->pair_build[l->res_sel[j]];
                }
                SQE_TRY(emit(op, in, out, l->out_sel, l->out_rows, NULL, np, err));
                if (more || im->outer_probe) *res = EXEC_HAVE_MORE;
                if (!more) l->phase = im->outer_probe ? 2 : 0;
                return SQE_OK;
            }
            if (!more) break;
        }
        l->phase = 2;
    }

    /* tail: per-row decisions after all pairs of the chunk */
    l->phase = 0;
    uint32_t k = 0;
    if (type == JOIN_MARK) {
        int8_t *marks = (int8_t *)l->out_rows; /* free now; pair arrays serve mark_unknown */
        for (uint32_t r = 0; r < n; r++) {
            if (l->matched[r]) {
                marks[r] = 1;
            } else if (im->mark_null_aware && g->n_input > 0 && l->maybe[r]) {
                marks[r] = -1;
            } else {
                marks[r] = no_match_mark(im, g, l, r);
                if (marks[r] < 0 && im->exact_mark) {
                    bool unknown;
                    SQE_TRY(mark_unknown(op, l, in, r, &unknown, err));
                    marks[r] = unknown ? -1 : 0;
                }
            }
        }
        return emit(op, in, out, NULL, NULL, marks, n, err);
    }
    if (type == JOIN_SEMI || type == JOIN_ANTI) {
        uint8_t want = type == JOIN_SEMI;
        for (uint32_t r = 0; r < n; r++)
            if (l->matched[r] == want) l->out_sel[k++] = r;
        return k ? emit(op, in, out, k == n ? NULL : l->out_sel, NULL, NULL, k, err) : SQE_OK;
    }
    if (im->outer_probe && im->residual) {
        for (uint32_t r = 0; r < n; r++)
            if (!l->matched[r]) l->out_sel[k++] = r;
        if (k) return emit(op, in, out, l->out_sel, NULL, NULL, k, err);
    }
    return SQE_OK;
}

/* --------------------------------------------------------------------------------------------
 * Unmatched build rows (RIGHT / FULL): source of the tail pipeline
 * ------------------------------------------------------------------------------------------ */

static int jt_source_init(exec_op *op, void **gstate, sqe_error *err) {
    jt_src *s = mem_calloc(op->qctx->tracker, sizeof *s, err);
    if (!s) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
    atomic_init(&s->next, 0);
    *gstate = s;
    return SQE_OK;
}

static void jt_source_destroy(exec_op *op, void *gstate) { mem_free(op->qctx->tracker, gstate); }

static int jt_local_init(exec_op *op, void *gstate, void **lstate, sqe_error *err) {
    jt_local *l = mem_calloc(op->qctx->tracker, sizeof *l, err);
    if (!l) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
    *lstate = l;
    return SQE_OK;
}

static void jt_local_destroy(exec_op *op, void *lstate) { mem_free(op->qctx->tracker, lstate); }

static uint32_t jt_max_threads(exec_op *op, void *gstate) {
    jb_global *g = op->sink_gstate;
    return g && g->n_blocks ? g->n_blocks : 1;
}

static int jt_next(exec_op *op, void *gstate, void *lstate, vec_chunk *out, sqe_error *err) {
    join_impl *im = op->impl;
    jb_global *g = op->sink_gstate;
    jt_src *s = gstate;
    jt_local *l = lstate;
    uint32_t k = 0;
    uint32_t w = im->layout.row_width;
    while (k < VEC_CHUNK_SIZE) {
        if (!l->block || l->pos >= l->block->n_rows) {
            uint32_t b = atomic_fetch_add(&s->next, 1);
            if (!g || b >= g->n_blocks) break;
            l->block = g->blocks[b];
            l->pos = 0;
        }
        exec_row_block *b = l->block;
        uint8_t want_found = im->type == JOIN_RIGHT_SEMI;
        while (l->pos < b->n_rows && k < VEC_CHUNK_SIZE) {
            uint8_t *row = b->rows + (size_t)l->pos++ * w;
            if ((row[im->found_off] != 0) == want_found) l->rows[k++] = row;
        }
    }
    out->count = 0;
    if (k == 0) return SQE_OK;
    for (uint32_t c = 0; c < im->n_out; c++) {
        vec *v = &out->cols[c];
        if (im->out_side[c] == SIDE_RIGHT)
            SQE_TRY(exec_row_gather(&im->layout, im->out_idx[c], l->rows, k, v, 0, err));
        else
            vec_set_const_null(v);
    }
    out->count = k;
    return SQE_OK;
}

/* --------------------------------------------------------------------------------------------
 * Construction
 * ------------------------------------------------------------------------------------------ */

#define JOIN_VT_COMMON                                                                             \
    .op_local_init = jp_local_init, .op_execute = jp_execute, .op_local_destroy = jp_local_destroy, \
    .sink_init = jb_sink_init, .sink_local_init = jb_local_init, .sink = jb_sink,                  \
    .sink_combine = jb_combine, .sink_finalize = jb_finalize, .sink_destroy = jb_sink_destroy,     \
    .sink_local_destroy = jb_local_destroy

static const exec_op_vtable join_vt = {
    .name = "HashJoin",
    JOIN_VT_COMMON,
};

static const exec_op_vtable join_outer_vt = {
    .name = "HashJoin",
    JOIN_VT_COMMON,
    .source_init = jt_source_init,
    .source_local_init = jt_local_init,
    .source_next = jt_next,
    .source_local_destroy = jt_local_destroy,
    .source_destroy = jt_source_destroy,
    .source_max_threads = jt_max_threads,
};

typedef struct col_mark_ctx {
    const plan *right;
    bool *used;
} col_mark_ctx;

static void mark_right_col(void *ud, plan_col_id id) {
    col_mark_ctx *c = ud;
    int i = plan_find_col(c->right, id);
    if (i >= 0) c->used[i] = true;
}

static bool same_key_kind(sqe_type a, sqe_type b) {
    if (exec_key_kind_of(a) != exec_key_kind_of(b)) return false;
    if (a.id == TYPE_DECIMAL || b.id == TYPE_DECIMAL) return a.id == b.id && a.scale == b.scale;
    if (exec_key_kind_of(a) == EXEC_KEY_NESTED) return type_equal(a, b);
    return true;
}

static const char *join_type_name(uint8_t t) {
    static const char *names[] = {"?",    "INNER",  "LEFT",  "RIGHT",      "FULL",      "SEMI",
                                  "ANTI", "MARK",   "SINGLE", "CROSS", "RIGHT SEMI", "RIGHT ANTI"};
    return t <= JOIN_RIGHT_ANTI ? names[t] : "?";
}

int exec_op_hash_join_create(exec_query_ctx *qctx, const plan *p, exec_op *probe, exec_op *build,
                             exec_op **out, sqe_error *err) {
    uint8_t type = p->u.join.type;
    if (type < JOIN_INNER || type == JOIN_CROSS || type > JOIN_RIGHT_ANTI)
        return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "hash join of type %u", type);
    bool outer_build = type == JOIN_RIGHT || type == JOIN_FULL || type == JOIN_RIGHT_SEMI ||
                       type == JOIN_RIGHT_ANTI;
    exec_op *op = exec_op_alloc(qctx, outer_build ? &join_outer_vt : &join_vt, p, 2);
    join_impl *im = ARENA_NEW(qctx->arena, join_impl);
    if (!op || !im) return err_nomem(err, "operator");
    op->children[0] = probe;
    op->children[1] = build;
    op->impl = im;
    arena *A = qctx->arena;
    const plan *left = p->children[0], *right = p->children[1];
    uint32_t nk = p->u.join.n_keys;
    im->type = type;
    im->n_keys = nk;
    im->outer_build = outer_build;
    im->outer_probe = type == JOIN_LEFT || type == JOIN_FULL || type == JOIN_SINGLE;
    im->mark_null_aware = type == JOIN_MARK && p->u.join.mark_null_aware;
    uint32_t n_mark_keys = im->mark_null_aware && p->u.join.n_mark_keys <= nk ? p->u.join.n_mark_keys : 0;
    im->n_strict_keys = im->mark_null_aware ? nk - n_mark_keys : nk;
    im->exact_mark = im->mark_null_aware && (nk > 1 || n_mark_keys != nk || p->u.join.residual);
    im->keep_null_rows = outer_build || im->exact_mark;
    im->n_left = left->n_out;
    im->n_right = right->n_out;
    im->probe_keys = ARENA_ARRAY(A, exec_expr *, nk + 1);
    im->build_keys = ARENA_ARRAY(A, exec_expr *, nk + 1);
    im->null_safe = ARENA_ARRAY(A, bool, nk + 1);
    im->right_field = ARENA_ARRAY(A, int32_t, im->n_right + 1);
    im->res_right = ARENA_ARRAY(A, bool, im->n_right + 1);
    im->payload_col = ARENA_ARRAY(A, uint32_t, im->n_right + 1);
    im->pair_types = ARENA_ARRAY(A, sqe_type, im->n_left + im->n_right + 1);
    im->out_side = ARENA_ARRAY(A, uint8_t, p->n_out + 1);
    im->out_idx = ARENA_ARRAY(A, uint32_t, p->n_out + 1);
    bool *need_right = ARENA_ARRAY(A, bool, im->n_right + 1);
    sqe_type *ft = ARENA_ARRAY(A, sqe_type, nk + im->n_right + 1);
    if (!im->probe_keys || !im->build_keys || !im->null_safe || !im->right_field ||
        !im->res_right || !im->payload_col || !im->pair_types || !im->out_side || !im->out_idx ||
        !need_right || !ft)
        return err_nomem(err, "operator");
    exec_layout ll = exec_layout_of(left), rl = exec_layout_of(right);
    for (uint32_t k = 0; k < nk; k++) {
        SQE_TRY(exec_expr_compile(qctx, p->u.join.left_keys[k], &ll, &im->probe_keys[k], err));
        SQE_TRY(exec_expr_compile(qctx, p->u.join.right_keys[k], &rl, &im->build_keys[k], err));
        im->null_safe[k] = p->u.join.null_safe ? p->u.join.null_safe[k] : false;
        sqe_type lt = p->u.join.left_keys[k]->type, rt = p->u.join.right_keys[k]->type;
        if (!same_key_kind(lt, rt)) {
            char a[64], b[64];
            type_format(lt, a, sizeof a);
            type_format(rt, b, sizeof b);
            return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR,
                           "join key %u compares %s with %s", k, a, b);
        }
        ft[k] = rt;
    }
    /* right columns needed: output and residual */
    for (uint32_t c = 0; c < im->n_right; c++) im->right_field[c] = -1;
    col_mark_ctx mc = {right, im->res_right};
    if (p->u.join.residual) bexpr_visit_cols(p->u.join.residual, mark_right_col, &mc);
    for (uint32_t c = 0; c < im->n_right; c++) need_right[c] = im->res_right[c];
    bool right_out = !(type == JOIN_SEMI || type == JOIN_ANTI || type == JOIN_MARK);
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
            need_right[ri] = true;
            im->out_idx[c] = (uint32_t)ri; /* fixed up to the field below */
            continue;
        }
        if (type == JOIN_MARK && p->out[c].id == p->u.join.mark) {
            im->out_side[c] = SIDE_MARK;
            continue;
        }
        return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "join output column %u has no source", c);
    }
    /* plain-column build keys double as payload fields */
    uint32_t nf = nk;
    for (uint32_t k = 0; k < nk; k++) {
        uint32_t pos;
        if (exec_expr_is_column(im->build_keys[k], &pos) && pos < im->n_right &&
            im->right_field[pos] < 0 && type_equal(right->out[pos].type, ft[k]))
            im->right_field[pos] = (int32_t)k;
    }
    for (uint32_t c = 0; c < im->n_right; c++) {
        if (!need_right[c] || im->right_field[c] >= 0) continue;
        im->right_field[c] = (int32_t)nf;
        im->payload_col[im->n_payload++] = c;
        ft[nf++] = right->out[c].type;
    }
    for (uint32_t c = 0; c < p->n_out; c++)
        if (im->out_side[c] == SIDE_RIGHT) im->out_idx[c] = (uint32_t)im->right_field[im->out_idx[c]];
    SQE_TRY(exec_row_layout_init(&im->layout, A, ft, nf, true, outer_build ? 1 : 0, err));
    im->found_off = im->layout.payload_offset;
    if (p->u.join.residual) {
        plan_col *cols = ARENA_ARRAY(A, plan_col, im->n_left + im->n_right + 1);
        if (!cols) return err_nomem(err, "operator");
        memcpy(cols, left->out, sizeof(plan_col) * im->n_left);
        memcpy(cols + im->n_left, right->out, sizeof(plan_col) * im->n_right);
        for (uint32_t c = 0; c < im->n_left + im->n_right; c++) im->pair_types[c] = cols[c].type;
        exec_layout pl = {cols, im->n_left + im->n_right};
        SQE_TRY(exec_expr_compile(qctx, p->u.join.residual, &pl, &im->residual, err));
    }
    im->n_out = p->n_out;
    uint32_t th = qctx->threads ? qctx->threads : 1;
    im->radix_bits = th == 1 ? 0 : 4;
    im->n_parts = 1u << im->radix_bits;
    exec_op_set_detail(op, "%s", join_type_name(type));
    for (uint32_t k = 0; k < nk && k < 3; k++) {
        exec_op_detail_expr(op, k ? ", " : " keys: ", p->u.join.left_keys[k], left);
        exec_op_detail_expr(op, " =", p->u.join.right_keys[k], right);
    }
    *out = op;
    return SQE_OK;
}
