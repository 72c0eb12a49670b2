/*
 * op_hash_agg.c: hash aggregation (PLAN_AGGREGATE) and the grouped-aggregation engine that
 * DISTINCT and the distinct set operations reuse (op_hash_agg_int.h).
 *
 * INTERFACE: exec_op_hash_agg_create (ops.h), exec_agg_op_create (op_hash_agg_int.h).
 * NOTES (ENGINE.md "Aggregation"):
 * - Phase 1 (sink, per thread): group keys are hashed for the whole chunk and looked up in a
 *   thread-local salted table (exec_agg_ht_find_or_create); group rows hold the keys and, in
 *   their payload, every aggregate state and counter. States are updated by the aggregate's
 *   vectorized update kernel with a per-row state pointer array. New group rows go to one of
 *   2^radix_bits partition stores by hash bits; when the local table outgrows its cap the
 *   directory is cleared (the rows stay in their partitions), so high-cardinality input does
 *   not thrash.
 * - Phase 2 (source): the unit of work is one (grouping set, partition); a thread claims the
 *   next one, merges that partition's rows of every thread into one table (rows are not copied:
 *   the first row of each group becomes the group, later ones are combined into it with the
 *   aggregate's combine), then streams its groups out. Partitions merge in parallel.
 * - Ungrouped aggregation (no keys, or the empty grouping set) keeps one row per thread and no
 *   table; the merge folds them into one extra initialized row, so empty input gives one row.
 * - DISTINCT and ORDER BY aggregates are not updated in phase 1: the sink stores tuples (group
 *   keys, arguments, order values) in the same radix partitions as their groups; the merge
 *   dedupes them (DISTINCT: a table over keys + arguments), sorts them (ORDER BY: normalized
 *   keys prefixed by the group row), and feeds the update kernel in that order.
 * - Grouping sets run the same machinery once per set with the absent keys as constant NULL
 *   vectors, each set with its own tables and partitions; the grouping id column is the mask
 *   of absent groups.
 * - Set operations keep one counter per input instead of aggregate states and emit each group
 *   0, 1 or n times according to the operation (INTERSECT/EXCEPT [ALL]).
 */
#include <stdlib.h>
#include <string.h>

#include "exec/hashtable.h"
#include "exec/op_hash_agg_int.h"
#include "exec/sort_keys.h"

#define AGG_LOCAL_MAX_CAPACITY (1u << 18) /* local directory entries before it is cleared */

typedef struct agg_item {
    const func_agg_def *def;
    const void *bind_data;
    uint32_t n_args;
    exec_expr **args;
    exec_expr *filter;
    uint32_t state_off;       /* offset of the state in the group row */
    bool special;             /* DISTINCT or ORDER BY: fed during the merge from tuples */
    bool distinct;
    uint32_t n_order;
    exec_expr **order;
    exec_row_layout tuple;    /* special: fields groups, args, order values; payload: u64 group
                                 hash (the header holds the hash over groups + args) */
    exec_sort_spec order_spec; /* ordered: [group row as bigint] + order keys */
} agg_item;

enum { OUT_GROUP = 0, OUT_AGG, OUT_GID };

typedef struct agg_impl {
    uint32_t n_groups;
    exec_expr **groups;       /* NULL: group g is input column g */
    sqe_type *group_types;
    uint32_t n_sets;
    uint64_t *present;        /* per set: bit g set when group g is part of the set */
    bool *ungrouped;          /* per set: no group present */
    uint32_t n_aggs, n_special, max_args;
    agg_item *aggs;
    uint32_t n_inputs;
    bool counters;
    uint32_t counters_off;
    uint8_t setop;
    bool setop_all;
    exec_row_layout layout;   /* fields: groups; payload: states then counters */
    uint32_t radix_bits, n_parts;
    uint32_t n_out;
    uint8_t *out_kind;
    uint32_t *out_idx;
} agg_impl;

typedef struct agg_set_local {
    exec_ht ht;
    exec_row_store *parts;    /* n_parts */
    exec_row_store **tuples;  /* per aggregate (special ones only): n_parts stores */
    uint8_t *single;          /* ungrouped set: the thread's one row (in parts[0]) */
} agg_set_local;

typedef struct agg_local {
    struct agg_local *next;
    uint32_t input_idx;
    exec_expr_state **group_st;
    exec_expr_state **arg_st;     /* per aggregate: n_args states from arg_base[a] */
    exec_expr_state **filter_st;
    exec_expr_state **order_st;   /* per aggregate: n_order states from order_base[a] */
    uint32_t *arg_base, *order_base;
    agg_set_local *sets;
    vec *null_keys;               /* per group: a constant NULL of its type */
    const vec **keys_all;         /* per group: this chunk's key vector */
    const vec **keys;             /* per group: keys of the current set */
    const vec **argv;             /* per aggregate: n_args vectors from arg_base[a] */
    const vec **ordv;
    uint32_t **fsel;              /* per aggregate: filter selection (VEC_CHUNK_SIZE) */
    uint32_t *fn;
    vec_view *views;
    uint32_t *idx_extra;          /* index buffers for views beyond 8 keys */
    uint64_t *hashes, *thash;
    uint8_t **rows, **states, **trows;
    uint32_t *new_idx;
    exec_ht_scratch *sc;
    func_ctx fctx;
    arena scratch;
} agg_local;

typedef struct agg_global {
    pthread_mutex_t lock;
    agg_local *locals;            /* combined local states (owned) */
    exec_row_store extra;         /* one initialized row per ungrouped set */
    uint8_t **extra_rows;         /* per set */
    uint32_t n_tasks;
    uint32_t *task_set, *task_part;
} agg_global;

typedef struct agg_src_g {
    _Atomic uint32_t next;
} agg_src_g;

typedef struct agg_src_l {
    bool active;
    uint32_t set;
    exec_ht dir;
    uint8_t **uniq;
    uint64_t n_uniq, cap_uniq, pos;
    uint64_t rep_left;            /* set operations: copies of uniq[pos] still to emit */
    uint8_t **batch, **dups_dst, **dups_src, **rows;
    uint8_t **states;
    vec *argvec;                  /* max_args vectors for feeding special aggregates */
    vec ptrvec;                   /* bigint group pointers (ordered aggregates) */
    vec *ordvec;                  /* order values (max order keys) */
    uint32_t n_ordvec;
    exec_ht_scratch *sc;
    func_ctx fctx;
    arena scratch;
} agg_src_l;

/* --------------------------------------------------------------------------------------------
 * Helpers
 * ------------------------------------------------------------------------------------------ */

static void init_fctx(func_ctx *f, arena *scratch, exec_query_ctx *q) {
    memset(f, 0, sizeof *f);
    arena_init(scratch, q->tracker);
    f->tracker = q->tracker;
    f->scratch = scratch;
    f->session_zone = q->session_zone;
    f->query_start_micros = q->query_start_micros;
    f->random_seed = q->random_seed;
}

static void destroy_store_states(const agg_impl *im, exec_row_store *s) {
    bool any = false;
    for (uint32_t a = 0; a < im->n_aggs; a++)
        if (im->aggs[a].def->destroy) any = true;
    if (any)
        for (exec_row_block *b = s->head; b; b = b->next)
            for (uint32_t r = 0; r < b->n_rows; r++) {
                uint8_t *row = b->rows + (size_t)r * im->layout.row_width;
                for (uint32_t a = 0; a < im->n_aggs; a++)
                    if (im->aggs[a].def->destroy) im->aggs[a].def->destroy(row + im->aggs[a].state_off);
            }
    exec_row_store_destroy(s);
}

/* The one row of an ungrouped set: every group key is NULL. */
static void set_keys_null(const agg_impl *im, uint8_t *row) {
    for (uint32_t g = 0; g < im->n_groups; g++)
        row[im->layout.null_offset + (g >> 3)] |= (uint8_t)(1u << (g & 7));
}

static void init_states(const agg_impl *im, uint8_t *row) {
    for (uint32_t a = 0; a < im->n_aggs; a++)
        im->aggs[a].def->init(im->aggs[a].bind_data, row + im->aggs[a].state_off);
}

/* --------------------------------------------------------------------------------------------
 * Sink
 * ------------------------------------------------------------------------------------------ */

static void local_free(exec_op *op, agg_local *l) {
    if (!l) return;
    agg_impl *im = op->impl;
    mem_tracker *t = op->qctx->tracker;
    if (l->sets)
        for (uint32_t s = 0; s < im->n_sets; s++) {
            agg_set_local *sl = &l->sets[s];
            exec_ht_destroy(&sl->ht);
            if (sl->parts)
                for (uint32_t p = 0; p < im->n_parts; p++) destroy_store_states(im, &sl->parts[p]);
            mem_free(t, sl->parts);
            if (sl->tuples) {
                for (uint32_t a = 0; a < im->n_aggs; a++) {
                    if (!sl->tuples[a]) continue;
                    for (uint32_t p = 0; p < im->n_parts; p++) exec_row_store_destroy(&sl->tuples[a][p]);
                    mem_free(t, sl->tuples[a]);
                }
                mem_free(t, sl->tuples);
            }
        }
    mem_free(t, l->sets);
    uint32_t n_arg_st = 0, n_ord_st = 0;
    for (uint32_t a = 0; a < im->n_aggs; a++) {
        n_arg_st += im->aggs[a].n_args;
        n_ord_st += im->aggs[a].n_order;
    }
    if (l->group_st)
        for (uint32_t g = 0; g < im->n_groups; g++) exec_expr_state_destroy(l->group_st[g]);
    if (l->arg_st)
        for (uint32_t i = 0; i < n_arg_st; i++) exec_expr_state_destroy(l->arg_st[i]);
    if (l->order_st)
        for (uint32_t i = 0; i < n_ord_st; i++) exec_expr_state_destroy(l->order_st[i]);
    if (l->filter_st)
        for (uint32_t a = 0; a < im->n_aggs; a++) exec_expr_state_destroy(l->filter_st[a]);
    if (l->null_keys)
        for (uint32_t g = 0; g < im->n_groups; g++) vec_destroy(&l->null_keys[g]);
    if (l->fsel)
        for (uint32_t a = 0; a < im->n_aggs; a++) mem_free(t, l->fsel[a]);
    void *bufs[] = {l->group_st, l->arg_st, l->order_st, l->filter_st, l->arg_base, l->order_base,
                    l->null_keys, l->keys_all, l->keys, l->argv, l->ordv, l->fsel, l->fn,
                    l->views, l->idx_extra, l->hashes, l->thash, l->rows, l->states, l->trows,
                    l->new_idx, l->sc};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) mem_free(t, bufs[i]);
    arena_destroy(&l->scratch);
    mem_free(t, l);
}

#define ALLOC(ptr, n)                                                                              \
    do {                                                                                           \
        size_t alloc_n_ = (size_t)(n);                                                             \
        (ptr) = mem_calloc(t, sizeof(*(ptr)) * (alloc_n_ ? alloc_n_ : 1), err);                    \
        if (!(ptr)) goto out_fail;                                                                 \
    } while (0)

static int agg_local_init(exec_op *op, void *gstate, uint32_t input_idx, void **lstate,
                          sqe_error *err) {
    agg_impl *im = op->impl;
    mem_tracker *t = op->qctx->tracker;
    agg_local *l = mem_calloc(t, sizeof *l, err);
    if (!l) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
    init_fctx(&l->fctx, &l->scratch, op->qctx);
    l->input_idx = input_idx;
    int rc;
    uint32_t n_arg_st = 0, n_ord_st = 0;
    for (uint32_t a = 0; a < im->n_aggs; a++) {
        n_arg_st += im->aggs[a].n_args;
        n_ord_st += im->aggs[a].n_order;
    }
    ALLOC(l->group_st, im->n_groups);
    ALLOC(l->arg_st, n_arg_st);
    ALLOC(l->order_st, n_ord_st);
    ALLOC(l->filter_st, im->n_aggs);
    ALLOC(l->arg_base, im->n_aggs);
    ALLOC(l->order_base, im->n_aggs);
    ALLOC(l->null_keys, im->n_groups);
    ALLOC(l->keys_all, im->n_groups);
    ALLOC(l->keys, im->n_groups);
    ALLOC(l->argv, n_arg_st);
    ALLOC(l->ordv, n_ord_st);
    ALLOC(l->fsel, im->n_aggs);
    ALLOC(l->fn, im->n_aggs);
    ALLOC(l->views, im->n_groups);
    if (im->n_groups > 8) ALLOC(l->idx_extra, (size_t)(im->n_groups - 8) * VEC_CHUNK_SIZE);
    ALLOC(l->hashes, VEC_CHUNK_SIZE);
    ALLOC(l->thash, VEC_CHUNK_SIZE);
    ALLOC(l->rows, VEC_CHUNK_SIZE);
    ALLOC(l->states, VEC_CHUNK_SIZE);
    ALLOC(l->trows, VEC_CHUNK_SIZE);
    ALLOC(l->new_idx, VEC_CHUNK_SIZE);
    ALLOC(l->sc, 1);
    for (uint32_t g = 0; g < im->n_groups; g++) {
        if (im->groups) {
            rc = exec_expr_state_create(im->groups[g], op->qctx, &l->group_st[g], err);
            if (rc) goto out_rc;
        }
        rc = vec_init(&l->null_keys[g], im->group_types[g], 1, t, err);
        if (rc) goto out_rc;
        vec_set_const_null(&l->null_keys[g]);
    }
    uint32_t ab = 0, ob = 0;
    for (uint32_t a = 0; a < im->n_aggs; a++) {
        agg_item *it = &im->aggs[a];
        l->arg_base[a] = ab;
        l->order_base[a] = ob;
        for (uint32_t j = 0; j < it->n_args; j++) {
            rc = exec_expr_state_create(it->args[j], op->qctx, &l->arg_st[ab + j], err);
            if (rc) goto out_rc;
        }
        for (uint32_t j = 0; j < it->n_order; j++) {
            rc = exec_expr_state_create(it->order[j], op->qctx, &l->order_st[ob + j], err);
            if (rc) goto out_rc;
        }
        ab += it->n_args;
        ob += it->n_order;
        if (it->filter) {
            rc = exec_expr_state_create(it->filter, op->qctx, &l->filter_st[a], err);
            if (rc) goto out_rc;
            ALLOC(l->fsel[a], VEC_CHUNK_SIZE);
        }
    }
    ALLOC(l->sets, im->n_sets);
    for (uint32_t s = 0; s < im->n_sets; s++) {
        agg_set_local *sl = &l->sets[s];
        ALLOC(sl->parts, im->n_parts);
        for (uint32_t p = 0; p < im->n_parts; p++) exec_row_store_init(&sl->parts[p], &im->layout, t);
        if (im->ungrouped[s]) {
            uint8_t *row;
            rc = exec_row_store_append(&sl->parts[0], 1, &row, err);
            if (rc) goto out_rc;
            set_keys_null(im, row);
            init_states(im, row);
            sl->single = row;
        } else {
            rc = exec_ht_init(&sl->ht, 1024, t, err);
            if (rc) goto out_rc;
        }
        if (im->n_special) {
            ALLOC(sl->tuples, im->n_aggs);
            for (uint32_t a = 0; a < im->n_aggs; a++) {
                if (!im->aggs[a].special) continue;
                ALLOC(sl->tuples[a], im->n_parts);
                for (uint32_t p = 0; p < im->n_parts; p++)
                    exec_row_store_init(&sl->tuples[a][p], &im->aggs[a].tuple, t);
            }
        }
    }
    *lstate = l;
    return SQE_OK;
out_fail:
    rc = err ? err->code : SQE_ERR_OUT_OF_MEMORY;
out_rc:
    local_free(op, l);
    return rc;
}

static vec_view *key_views(agg_local *l, const agg_impl *im, uint32_t n) {
    for (uint32_t g = 0; g < im->n_groups; g++) {
        uint32_t *buf = g < 8 ? l->sc->idxbuf[g] : l->idx_extra + (size_t)(g - 8) * VEC_CHUNK_SIZE;
        vec_view_init_buf(&l->views[g], l->keys[g], n, buf);
    }
    return l->views;
}

/* Stores DISTINCT / ORDER BY tuples of aggregate a for rows sel[0..n) into the partitions. */
static int store_tuples(const agg_impl *im, agg_local *l, agg_set_local *sl, uint32_t a,
                        const uint32_t *sel, uint32_t n, bool ungrouped, sqe_error *err) {
    agg_item *it = &im->aggs[a];
    exec_row_store *parts = sl->tuples[a];
    const vec **argv = l->argv + l->arg_base[a];
    const vec **ordv = l->ordv + l->order_base[a];
    /* tuple hash: group hash combined with the arguments */
    for (uint32_t i = 0; i < n; i++) {
        uint32_t r = sel ? sel[i] : i;
        l->thash[i] = ungrouped ? 0 : l->hashes[r];
    }
    for (uint32_t j = 0; j < it->n_args; j++) exec_hash_vec(argv[j], sel, n, l->thash, true);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t r = sel ? sel[i] : i;
        uint64_t gh = ungrouped ? 0 : l->hashes[r];
        uint8_t *row;
        SQE_TRY(exec_row_store_append(&parts[exec_radix_of(gh, im->radix_bits)], 1, &row, err));
        memcpy(row + EXEC_ROW_HASH, &l->thash[i], 8);
        memcpy(row + it->tuple.payload_offset, &gh, 8);
        l->trows[i] = row;
    }
    uint32_t f = 0;
    for (uint32_t g = 0; g < im->n_groups; g++, f++)
        SQE_TRY(exec_row_scatter(&parts[0], f, l->keys[g], sel, n, l->trows, err));
    for (uint32_t j = 0; j < it->n_args; j++, f++)
        SQE_TRY(exec_row_scatter(&parts[0], f, argv[j], sel, n, l->trows, err));
    for (uint32_t j = 0; j < it->n_order; j++, f++)
        SQE_TRY(exec_row_scatter(&parts[0], f, ordv[j], sel, n, l->trows, err));
    return SQE_OK;
}

static int agg_sink(exec_op *op, void *gstate, void *lstate, const vec_chunk *in,
                    sqe_error *err) {
    agg_impl *im = op->impl;
    agg_local *l = lstate;
    uint32_t n = in->count;
    if (n == 0) return SQE_OK;
    if (n > VEC_CHUNK_SIZE)
        return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "aggregate input chunk too large");
    l->fctx.err = err;
    /* keys, filters, arguments */
    for (uint32_t g = 0; g < im->n_groups; g++) {
        if (im->groups)
            SQE_TRY(exec_expr_eval_view(l->group_st[g], in, NULL, n, &l->keys_all[g], err));
        else
            l->keys_all[g] = &in->cols[g];
    }
    for (uint32_t a = 0; a < im->n_aggs; a++) {
        agg_item *it = &im->aggs[a];
        const uint32_t *sel = NULL;
        uint32_t cnt = n;
        if (it->filter) {
            SQE_TRY(exec_expr_select(l->filter_st[a], in, NULL, n, l->fsel[a], &cnt, err));
            sel = l->fsel[a];
        }
        l->fn[a] = cnt;
        for (uint32_t j = 0; j < it->n_args; j++)
            SQE_TRY(exec_expr_eval_view(l->arg_st[l->arg_base[a] + j], in, sel, cnt,
                                        &l->argv[l->arg_base[a] + j], err));
        for (uint32_t j = 0; j < it->n_order; j++)
            SQE_TRY(exec_expr_eval_view(l->order_st[l->order_base[a] + j], in, sel, cnt,
                                        &l->ordv[l->order_base[a] + j], err));
    }
    for (uint32_t s = 0; s < im->n_sets; s++) {
        agg_set_local *sl = &l->sets[s];
        bool ungrouped = im->ungrouped[s];
        for (uint32_t g = 0; g < im->n_groups; g++)
            l->keys[g] = (im->present[s] >> g) & 1 ? l->keys_all[g] : &l->null_keys[g];
        if (ungrouped) {
            for (uint32_t r = 0; r < n; r++) l->rows[r] = sl->single;
        } else {
            for (uint32_t g = 0; g < im->n_groups; g++) exec_hash_vec(l->keys[g], NULL, n, l->hashes, g > 0);
            uint64_t cap = sl->ht.mask + 1;
            if (sl->ht.count + n > cap / 2) {
                if (cap < AGG_LOCAL_MAX_CAPACITY)
                    SQE_TRY(exec_ht_resize(&sl->ht, exec_ht_capacity_for(sl->ht.count + n), err));
                else
                    exec_ht_clear(&sl->ht);
            }
            uint32_t n_new = 0;
            vec_view *views = key_views(l, im, n);
            SQE_TRY(exec_agg_ht_find_or_create(&sl->ht, &im->layout, im->n_groups, views, l->keys,
                                               NULL, l->hashes, n, sl->parts, im->radix_bits,
                                               l->rows, l->new_idx, &n_new, l->sc, err));
            if (im->n_aggs)
                for (uint32_t i = 0; i < n_new; i++) init_states(im, l->rows[l->new_idx[i]]);
        }
        for (uint32_t a = 0; a < im->n_aggs; a++) {
            agg_item *it = &im->aggs[a];
            const uint32_t *sel = it->filter ? l->fsel[a] : NULL;
            if (it->special) {
                SQE_TRY(store_tuples(im, l, sl, a, sel, l->fn[a], ungrouped, err));
                continue;
            }
            if (l->fn[a] == 0) continue;
            uint32_t off = it->state_off;
            for (uint32_t r = 0; r < n; r++) l->states[r] = l->rows[r] + off;
            l->fctx.bind_data = it->bind_data;
            int rc = it->def->update(&l->fctx, l->argv + l->arg_base[a], it->n_args, sel, l->fn[a],
                                     l->states);
            arena_reset(&l->scratch);
            if (rc != SQE_OK) return rc;
        }
        if (im->counters) {
            uint32_t off = im->counters_off + 8 * l->input_idx;
            for (uint32_t r = 0; r < n; r++) {
                uint64_t c;
                memcpy(&c, l->rows[r] + off, 8);
                c++;
                memcpy(l->rows[r] + off, &c, 8);
            }
        }
    }
    return SQE_OK;
}

static int agg_combine(exec_op *op, void *gstate, void *lstate, sqe_error *err) {
    agg_global *g = gstate;
    agg_local *l = lstate;
    if (!l) return SQE_OK;
    /* release what only phase 1 needs; keep the stores */
    agg_impl *im = op->impl;
    for (uint32_t s = 0; s < im->n_sets; s++) exec_ht_destroy(&l->sets[s].ht);
    pthread_mutex_lock(&g->lock);
    l->next = g->locals;
    g->locals = l;
    pthread_mutex_unlock(&g->lock);
    return SQE_OK;
}

static void agg_local_destroy(exec_op *op, void *gstate, void *lstate) { local_free(op, lstate); }

static void agg_sink_destroy(exec_op *op, void *gstate) {
    agg_global *g = gstate;
    if (!g) return;
    agg_impl *im = op->impl;
    mem_tracker *t = op->qctx->tracker;
    while (g->locals) {
        agg_local *l = g->locals;
        g->locals = l->next;
        local_free(op, l);
    }
    destroy_store_states(im, &g->extra);
    mem_free(t, g->extra_rows);
    mem_free(t, g->task_set);
    mem_free(t, g->task_part);
    pthread_mutex_destroy(&g->lock);
    mem_free(t, g);
}

static int agg_sink_init(exec_op *op, void **gstate, sqe_error *err) {
    agg_impl *im = op->impl;
    mem_tracker *t = op->qctx->tracker;
    agg_global *g = mem_calloc(t, sizeof *g, err);
    if (!g) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
    pthread_mutex_init(&g->lock, NULL);
    exec_row_store_init(&g->extra, &im->layout, t);
    *gstate = g;
    return SQE_OK;
}

static int agg_finalize(exec_op *op, void *gstate, sqe_error *err) {
    agg_global *g = gstate;
    agg_impl *im = op->impl;
    mem_tracker *t = op->qctx->tracker;
    g->extra_rows = mem_calloc(t, sizeof(uint8_t *) * im->n_sets, err);
    uint32_t n_tasks = 0;
    for (uint32_t s = 0; s < im->n_sets; s++) n_tasks += im->ungrouped[s] ? 1 : im->n_parts;
    g->task_set = mem_alloc(t, sizeof(uint32_t) * n_tasks, err);
    g->task_part = mem_alloc(t, sizeof(uint32_t) * n_tasks, err);
    if (!g->extra_rows || !g->task_set || !g->task_part) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
    uint32_t k = 0;
    for (uint32_t s = 0; s < im->n_sets; s++) {
        if (im->ungrouped[s]) {
            SQE_TRY(exec_row_store_append(&g->extra, 1, &g->extra_rows[s], err));
            set_keys_null(im, g->extra_rows[s]);
            init_states(im, g->extra_rows[s]);
            g->task_set[k] = s;
            g->task_part[k++] = 0;
            continue;
        }
        for (uint32_t p = 0; p < im->n_parts; p++) {
            g->task_set[k] = s;
            g->task_part[k++] = p;
        }
    }
    g->n_tasks = n_tasks;
    return SQE_OK;
}

/* --------------------------------------------------------------------------------------------
 * Source: per-partition merge and output
 * ------------------------------------------------------------------------------------------ */

static void src_local_free(exec_op *op, agg_src_l *sl) {
    if (!sl) return;
    agg_impl *im = op->impl;
    mem_tracker *t = op->qctx->tracker;
    exec_ht_destroy(&sl->dir);
    mem_free(t, sl->uniq);
    if (sl->argvec)
        for (uint32_t j = 0; j < im->max_args; j++) vec_destroy(&sl->argvec[j]);
    if (sl->ordvec)
        for (uint32_t j = 0; j < sl->n_ordvec; j++) vec_destroy(&sl->ordvec[j]);
    vec_destroy(&sl->ptrvec);
    void *bufs[] = {sl->batch, sl->dups_dst, sl->dups_src, sl->rows, sl->states, sl->argvec,
                    sl->ordvec, sl->sc};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) mem_free(t, bufs[i]);
    arena_destroy(&sl->scratch);
    mem_free(t, sl);
}

static int agg_source_init(exec_op *op, void **gstate, sqe_error *err) {
    agg_src_g *s = mem_calloc(op->qctx->tracker, sizeof *s, err);
    if (!s) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
    atomic_init(&s->next, 0);
    *gstate = s;
    return SQE_OK;
}

static void agg_source_destroy(exec_op *op, void *gstate) { mem_free(op->qctx->tracker, gstate); }

static uint32_t agg_source_max_threads(exec_op *op, void *gstate) {
    agg_global *g = op->sink_gstate;
    return g && g->n_tasks ? g->n_tasks : 1;
}

static int agg_source_local_init(exec_op *op, void *gstate, void **lstate, sqe_error *err) {
    agg_impl *im = op->impl;
    mem_tracker *t = op->qctx->tracker;
    agg_src_l *sl = mem_calloc(t, sizeof *sl, err);
    if (!sl) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
    init_fctx(&sl->fctx, &sl->scratch, op->qctx);
    int rc;
    ALLOC(sl->batch, VEC_CHUNK_SIZE);
    ALLOC(sl->dups_dst, VEC_CHUNK_SIZE);
    ALLOC(sl->dups_src, VEC_CHUNK_SIZE);
    ALLOC(sl->rows, VEC_CHUNK_SIZE);
    ALLOC(sl->states, VEC_CHUNK_SIZE);
    ALLOC(sl->sc, 1);
    if (im->n_special) {
        ALLOC(sl->argvec, im->max_args);
        uint32_t max_order = 0;
        for (uint32_t a = 0; a < im->n_aggs; a++)
            if (im->aggs[a].n_order > max_order) max_order = im->aggs[a].n_order;
        ALLOC(sl->ordvec, max_order);
        sl->n_ordvec = max_order;
        rc = vec_init(&sl->ptrvec, type_make(TYPE_BIGINT), VEC_CHUNK_SIZE, t, err);
        if (rc) goto out_rc;
    }
    *lstate = sl;
    return SQE_OK;
out_fail:
    rc = err ? err->code : SQE_ERR_OUT_OF_MEMORY;
out_rc:
    src_local_free(op, sl);
    return rc;
}

static void agg_source_local_destroy(exec_op *op, void *lstate) { src_local_free(op, lstate); }

/* Combines src rows into dst rows (aggregate states that phase 1 updated, counters). */
static int combine_rows(const agg_impl *im, agg_src_l *sl, uint8_t **dst, uint8_t **src,
                        uint32_t n, sqe_error *err) {
    for (uint32_t a = 0; a < im->n_aggs; a++) {
        agg_item *it = &im->aggs[a];
        if (it->special) continue;
        sl->fctx.bind_data = it->bind_data;
        uint32_t off = it->state_off;
        for (uint32_t i = 0; i < n; i++) {
            int rc = it->def->combine(&sl->fctx, src[i] + off, dst[i] + off);
            if (rc != SQE_OK) {
                arena_reset(&sl->scratch);
                return rc;
            }
        }
        arena_reset(&sl->scratch);
    }
    if (im->counters)
        for (uint32_t i = 0; i < n; i++)
            for (uint32_t c = 0; c < im->n_inputs; c++) {
                uint64_t x, y;
                memcpy(&x, dst[i] + im->counters_off + 8 * c, 8);
                memcpy(&y, src[i] + im->counters_off + 8 * c, 8);
                x += y;
                memcpy(dst[i] + im->counters_off + 8 * c, &x, 8);
            }
    return SQE_OK;
}

static int merge_batch(const agg_impl *im, agg_src_l *sl, uint8_t **rows, uint32_t n,
                       sqe_error *err) {
    uint32_t nu = 0, nd = 0;
    exec_ht_merge_rows(&sl->dir, &im->layout, im->n_groups, rows, n, sl->uniq + sl->n_uniq, &nu,
                       sl->dups_dst, sl->dups_src, &nd, sl->sc);
    sl->n_uniq += nu;
    return combine_rows(im, sl, sl->dups_dst, sl->dups_src, nd, err);
}

typedef struct order_tb_ctx {
    const agg_item *it;
    uint32_t first_order_field;
} order_tb_ctx;

static int order_tiebreak(void *ud, const uint8_t *a, const uint8_t *b) {
    const order_tb_ctx *c = ud;
    const exec_sort_spec *s = &c->it->order_spec;
    const uint8_t *ra = (const uint8_t *)(uintptr_t)exec_sort_payload(s, a);
    const uint8_t *rb = (const uint8_t *)(uintptr_t)exec_sort_payload(s, b);
    int x = memcmp(a, b, s->keys[0].width); /* the group pointer */
    if (x) return x;
    for (uint32_t k = 0; k < c->it->n_order; k++) {
        int r = exec_sort_compare_fields(&s->keys[k + 1], &c->it->tuple, ra, rb,
                                         c->first_order_field + k);
        if (r) return r;
    }
    return 0;
}

static const sqe_str *order_str(void *ud, const uint8_t *e, uint32_t k) {
    const order_tb_ctx *c = ud;
    const uint8_t *row = (const uint8_t *)(uintptr_t)exec_sort_payload(&c->it->order_spec, e);
    return (const sqe_str *)(const void *)(row + c->it->tuple.offsets[c->first_order_field + k - 1]);
}

static inline uint8_t *decode_group_ptr(const uint8_t *entry) {
    uint64_t v;
    memcpy(&v, entry + 1, 8);
    v = __builtin_bswap64(v) ^ 0x8000000000000000ULL;
    return (uint8_t *)(uintptr_t)v;
}

/* Feeds the DISTINCT / ORDER BY aggregate a of set s, partition p from all threads' tuples. */
static int feed_special(exec_op *op, agg_global *g, agg_src_l *sl, uint32_t s, uint32_t p,
                        uint32_t a, sqe_error *err) {
    agg_impl *im = op->impl;
    agg_item *it = &im->aggs[a];
    mem_tracker *t = op->qctx->tracker;
    uint64_t n = 0;
    for (agg_local *l = g->locals; l; l = l->next) n += l->sets[s].tuples[a][p].n_rows;
    if (n == 0) return SQE_OK;
    int rc = SQE_OK;
    uint8_t **tup = mem_alloc(t, sizeof(uint8_t *) * n, err);
    uint8_t **grp = mem_alloc(t, sizeof(uint8_t *) * n, err);
    uint64_t *gh = mem_alloc(t, sizeof(uint64_t) * (n < VEC_CHUNK_SIZE ? n : VEC_CHUNK_SIZE), err);
    uint8_t *entries = NULL;
    exec_ht dd;
    memset(&dd, 0, sizeof dd);
    if (!tup || !grp || !gh) {
        rc = err ? err->code : SQE_ERR_OUT_OF_MEMORY;
        goto out;
    }
    uint64_t k = 0;
    for (agg_local *l = g->locals; l; l = l->next)
        for (exec_row_block *b = l->sets[s].tuples[a][p].head; b; b = b->next)
            for (uint32_t r = 0; r < b->n_rows; r++) tup[k++] = b->rows + (size_t)r * it->tuple.row_width;
    if (it->distinct) {
        rc = exec_ht_init(&dd, exec_ht_capacity_for(n), t, err);
        if (rc) goto out;
        uint64_t nu = 0;
        for (uint64_t i = 0; i < n; i += VEC_CHUNK_SIZE) {
            uint32_t cnt = (uint32_t)(n - i < VEC_CHUNK_SIZE ? n - i : VEC_CHUNK_SIZE);
            uint32_t u = 0, d = 0;
            exec_ht_merge_rows(&dd, &it->tuple, im->n_groups + it->n_args, tup + i, cnt, grp + nu,
                               &u, sl->dups_dst, sl->dups_src, &d, sl->sc);
            nu += u;
        }
        memcpy(tup, grp, sizeof(uint8_t *) * nu);
        n = nu;
    }
    /* group rows */
    for (uint64_t i = 0; i < n; i += VEC_CHUNK_SIZE) {
        uint32_t cnt = (uint32_t)(n - i < VEC_CHUNK_SIZE ? n - i : VEC_CHUNK_SIZE);
        if (im->ungrouped[s]) {
            for (uint32_t j = 0; j < cnt; j++) grp[i + j] = g->extra_rows[s];
            continue;
        }
        for (uint32_t j = 0; j < cnt; j++) memcpy(&gh[j], tup[i + j] + it->tuple.payload_offset, 8);
        exec_ht_find_rows(&sl->dir, &im->layout, im->n_groups, &it->tuple, NULL, tup + i, gh, cnt,
                          grp + i);
    }
    if (it->n_order) {
        const exec_sort_spec *os = &it->order_spec;
        uint32_t W = os->entry_width;
        entries = mem_alloc(t, (size_t)n * W, err);
        if (!entries) {
            rc = err ? err->code : SQE_ERR_OUT_OF_MEMORY;
            goto out;
        }
        uint32_t of = im->n_groups + it->n_args;
        for (uint32_t j = 0; j < it->n_order; j++) {
            vec_destroy(&sl->ordvec[j]);
            rc = vec_init(&sl->ordvec[j], it->tuple.types[of + j], VEC_CHUNK_SIZE, t, err);
            if (rc) goto out;
        }
        for (uint64_t i = 0; i < n; i += VEC_CHUNK_SIZE) {
            uint32_t cnt = (uint32_t)(n - i < VEC_CHUNK_SIZE ? n - i : VEC_CHUNK_SIZE);
            uint8_t *e = entries + i * W;
            memset(e, 0, (size_t)cnt * W);
            vec_reset(&sl->ptrvec);
            for (uint32_t j = 0; j < cnt; j++)
                VEC_DATA(&sl->ptrvec, int64_t)[j] = (int64_t)(uintptr_t)grp[i + j];
            exec_sort_encode(os, 0, &sl->ptrvec, NULL, cnt, e, W);
            for (uint32_t j = 0; j < it->n_order; j++) {
                vec_reset(&sl->ordvec[j]);
                rc = exec_row_gather(&it->tuple, of + j, tup + i, cnt, &sl->ordvec[j], 0, err);
                if (rc) goto out;
                exec_sort_encode(os, j + 1, &sl->ordvec[j], NULL, cnt, e, W);
            }
            for (uint32_t j = 0; j < cnt; j++)
                exec_sort_set_payload(os, e + (size_t)j * W, (uint64_t)(uintptr_t)tup[i + j]);
        }
        order_tb_ctx tbc = {it, of};
        exec_sort_ctx cmp = {order_tiebreak, order_str, &tbc};
        rc = exec_sort_entries(os, entries, n, &cmp, t, err);
        if (rc) goto out;
        for (uint64_t i = 0; i < n; i++) {
            const uint8_t *e = entries + i * W;
            tup[i] = (uint8_t *)(uintptr_t)exec_sort_payload(os, e);
            grp[i] = decode_group_ptr(e);
        }
    }
    /* feed the update kernel in batches */
    for (uint32_t j = 0; j < it->n_args; j++) {
        vec_destroy(&sl->argvec[j]);
        rc = vec_init(&sl->argvec[j], it->tuple.types[im->n_groups + j], VEC_CHUNK_SIZE, t, err);
        if (rc) goto out;
    }
    const vec *argp[64];
    for (uint32_t j = 0; j < it->n_args && j < 64; j++) argp[j] = &sl->argvec[j];
    sl->fctx.err = err;
    sl->fctx.bind_data = it->bind_data;
    for (uint64_t i = 0; i < n; i += VEC_CHUNK_SIZE) {
        uint32_t cnt = (uint32_t)(n - i < VEC_CHUNK_SIZE ? n - i : VEC_CHUNK_SIZE);
        for (uint32_t j = 0; j < it->n_args; j++) {
            vec_reset(&sl->argvec[j]);
            rc = exec_row_gather(&it->tuple, im->n_groups + j, tup + i, cnt, &sl->argvec[j], 0, err);
            if (rc) goto out;
        }
        for (uint32_t j = 0; j < cnt; j++) sl->states[j] = grp[i + j] + it->state_off;
        rc = it->def->update(&sl->fctx, argp, it->n_args, NULL, cnt, sl->states);
        arena_reset(&sl->scratch);
        if (rc) goto out;
        rc = exec_check_cancel(op->qctx, err);
        if (rc) goto out;
    }
out:
    exec_ht_destroy(&dd);
    mem_free(t, entries);
    mem_free(t, tup);
    mem_free(t, grp);
    mem_free(t, gh);
    return rc;
}

static int start_task(exec_op *op, agg_global *g, agg_src_l *sl, uint32_t task, sqe_error *err) {
    agg_impl *im = op->impl;
    mem_tracker *t = op->qctx->tracker;
    uint32_t s = g->task_set[task], p = g->task_part[task];
    uint64_t total = im->ungrouped[s] ? 1 : 0;
    for (agg_local *l = g->locals; l; l = l->next) total += l->sets[s].parts[p].n_rows;
    sl->set = s;
    sl->pos = 0;
    sl->n_uniq = 0;
    sl->rep_left = 0;
    if (total == 0) return SQE_OK;
    exec_ht_destroy(&sl->dir);
    SQE_TRY(exec_ht_init(&sl->dir, exec_ht_capacity_for(total), t, err));
    if (total > sl->cap_uniq) {
        mem_free(t, sl->uniq);
        sl->cap_uniq = 0;
        sl->uniq = mem_alloc(t, sizeof(uint8_t *) * total, err);
        if (!sl->uniq) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
        sl->cap_uniq = total;
    }
    if (im->ungrouped[s]) {
        uint8_t *row = g->extra_rows[s];
        SQE_TRY(merge_batch(im, sl, &row, 1, err));
    }
    for (agg_local *l = g->locals; l; l = l->next) {
        uint32_t n = 0;
        for (exec_row_block *b = l->sets[s].parts[p].head; b; b = b->next)
            for (uint32_t r = 0; r < b->n_rows; r++) {
                sl->batch[n++] = b->rows + (size_t)r * im->layout.row_width;
                if (n == VEC_CHUNK_SIZE) {
                    SQE_TRY(merge_batch(im, sl, sl->batch, n, err));
                    n = 0;
                }
            }
        if (n) SQE_TRY(merge_batch(im, sl, sl->batch, n, err));
        SQE_TRY(exec_check_cancel(op->qctx, err));
    }
    for (uint32_t a = 0; a < im->n_aggs; a++)
        if (im->aggs[a].special) SQE_TRY(feed_special(op, g, sl, s, p, a, err));
    return SQE_OK;
}

/* How many times a group is emitted (set operations). */
static uint64_t copies_of(const agg_impl *im, const uint8_t *row) {
    if (!im->counters || !im->setop) return 1;
    uint64_t c[64] = {0};
    uint32_t n = im->n_inputs < 64 ? im->n_inputs : 64;
    for (uint32_t i = 0; i < n; i++) memcpy(&c[i], row + im->counters_off + 8 * i, 8);
    switch (im->setop) {
    case SETOP_UNION: return 1;
    case SETOP_INTERSECT: {
        uint64_t m = c[0];
        for (uint32_t i = 1; i < n; i++)
            if (c[i] < m) m = c[i];
        return im->setop_all ? m : (m > 0);
    }
    case SETOP_EXCEPT: {
        if (!im->setop_all) {
            if (c[0] == 0) return 0;
            for (uint32_t i = 1; i < n; i++)
                if (c[i]) return 0;
            return 1;
        }
        uint64_t m = c[0];
        for (uint32_t i = 1; i < n; i++) m = c[i] >= m ? 0 : m - c[i];
        return m;
    }
    default: return 1;
    }
}

static int agg_source_next(exec_op *op, void *gstate, void *lstate, vec_chunk *out,
                           sqe_error *err) {
    agg_impl *im = op->impl;
    agg_global *g = op->sink_gstate;
    agg_src_g *sg = gstate;
    agg_src_l *sl = lstate;
    out->count = 0;
    uint32_t n = 0;
    while (n == 0) {
        if (!sl->active || sl->pos >= sl->n_uniq) {
            uint32_t task = atomic_fetch_add(&sg->next, 1);
            if (task >= g->n_tasks) {
                sl->active = false;
                return SQE_OK;
            }
            sl->active = true;
            SQE_TRY(start_task(op, g, sl, task, err));
            continue;
        }
        /* pick up to VEC_CHUNK_SIZE output rows */
        while (n < VEC_CHUNK_SIZE && sl->pos < sl->n_uniq) {
            uint8_t *row = sl->uniq[sl->pos];
            if (sl->rep_left == 0) sl->rep_left = copies_of(im, row);
            while (sl->rep_left && n < VEC_CHUNK_SIZE) {
                sl->rows[n++] = row;
                sl->rep_left--;
            }
            if (sl->rep_left == 0) sl->pos++;
        }
    }
    uint64_t gid = 0;
    if (im->n_groups) gid = ~im->present[sl->set] & ((im->n_groups >= 64) ? ~0ULL : ((1ULL << im->n_groups) - 1));
    sl->fctx.err = err;
    for (uint32_t c = 0; c < im->n_out; c++) {
        vec *v = &out->cols[c];
        switch (im->out_kind[c]) {
        case OUT_GROUP:
            SQE_TRY(exec_row_gather(&im->layout, im->out_idx[c], sl->rows, n, v, 0, err));
            break;
        case OUT_AGG: {
            agg_item *it = &im->aggs[im->out_idx[c]];
            sl->fctx.bind_data = it->bind_data;
            for (uint32_t i = 0; i < n; i++) {
                int rc = it->def->finalize(&sl->fctx, sl->rows[i] + it->state_off, v, i);
                if (rc != SQE_OK) {
                    arena_reset(&sl->scratch);
                    return rc;
                }
            }
            arena_reset(&sl->scratch);
            break;
        }
        default:
            for (uint32_t i = 0; i < n; i++) VEC_DATA(v, int64_t)[i] = (int64_t)gid;
            break;
        }
    }
    out->count = n;
    return SQE_OK;
}

/* --------------------------------------------------------------------------------------------
 * Construction
 * ------------------------------------------------------------------------------------------ */

static const exec_op_vtable agg_vt = {
    .name = "HashAggregate",
    .source_init = agg_source_init,
    .source_local_init = agg_source_local_init,
    .source_next = agg_source_next,
    .source_local_destroy = agg_source_local_destroy,
    .source_destroy = agg_source_destroy,
    .sink_init = agg_sink_init,
    .sink_local_init = agg_local_init,
    .sink = agg_sink,
    .sink_combine = agg_combine,
    .sink_finalize = agg_finalize,
    .sink_destroy = agg_sink_destroy,
    .source_max_threads = agg_source_max_threads,
    .sink_local_destroy = agg_local_destroy,
};

static const exec_op_vtable distinct_vt = {
    .name = "Distinct",
    .source_init = agg_source_init,
    .source_local_init = agg_source_local_init,
    .source_next = agg_source_next,
    .source_local_destroy = agg_source_local_destroy,
    .source_destroy = agg_source_destroy,
    .sink_init = agg_sink_init,
    .sink_local_init = agg_local_init,
    .sink = agg_sink,
    .sink_combine = agg_combine,
    .sink_finalize = agg_finalize,
    .sink_destroy = agg_sink_destroy,
    .source_max_threads = agg_source_max_threads,
    .sink_local_destroy = agg_local_destroy,
};

static const exec_op_vtable setop_vt = {
    .name = "SetOperation",
    .source_init = agg_source_init,
    .source_local_init = agg_source_local_init,
    .source_next = agg_source_next,
    .source_local_destroy = agg_source_local_destroy,
    .source_destroy = agg_source_destroy,
    .sink_init = agg_sink_init,
    .sink_local_init = agg_local_init,
    .sink = agg_sink,
    .sink_combine = agg_combine,
    .sink_finalize = agg_finalize,
    .sink_destroy = agg_sink_destroy,
    .source_max_threads = agg_source_max_threads,
    .sink_local_destroy = agg_local_destroy,
};

static uint32_t radix_bits_for(const exec_query_ctx *q) {
    uint32_t th = q->threads ? q->threads : 1;
    if (th == 1) return 2;
    uint32_t bits = 4;
    while ((1u << bits) < th * 4 && bits < 8) bits++;
    return bits;
}

int exec_agg_op_create(exec_query_ctx *qctx, const plan *p, const exec_agg_spec *spec,
                       exec_op **children, uint32_t n_children, exec_op **out, sqe_error *err) {
    const exec_op_vtable *vt = spec->counters ? &setop_vt : spec->n_aggs || p->kind == PLAN_AGGREGATE ? &agg_vt : &distinct_vt;
    exec_op *op = exec_op_alloc(qctx, vt, p, n_children);
    agg_impl *im = ARENA_NEW(qctx->arena, agg_impl);
    if (!op || !im) return err_nomem(err, "operator");
    for (uint32_t i = 0; i < n_children; i++) op->children[i] = children[i];
    op->impl = im;
    arena *A = qctx->arena;
    if (spec->n_groups > 64)
        return err_set(err, SQE_ERR_NOT_SUPPORTED, "more than 64 grouping keys are not supported");
    im->n_groups = spec->n_groups;
    im->group_types = ARENA_ARRAY(A, sqe_type, spec->n_groups + 1);
    if (!im->group_types) return err_nomem(err, "operator");
    exec_layout lay = exec_layout_of(p->children[0]);
    if (spec->group_exprs) {
        im->groups = ARENA_ARRAY(A, exec_expr *, spec->n_groups + 1);
        if (!im->groups) return err_nomem(err, "operator");
        for (uint32_t g = 0; g < spec->n_groups; g++) {
            SQE_TRY(exec_expr_compile(qctx, spec->group_exprs[g], &lay, &im->groups[g], err));
            im->group_types[g] = spec->group_exprs[g]->type;
        }
    } else {
        for (uint32_t g = 0; g < spec->n_groups; g++) im->group_types[g] = p->children[0]->out[g].type;
    }
    /* sets */
    im->n_sets = spec->n_sets ? spec->n_sets : 1;
    im->present = ARENA_ARRAY(A, uint64_t, im->n_sets);
    im->ungrouped = ARENA_ARRAY(A, bool, im->n_sets);
    if (!im->present || !im->ungrouped) return err_nomem(err, "operator");
    uint64_t all = spec->n_groups >= 64 ? ~0ULL : ((1ULL << spec->n_groups) - 1);
    for (uint32_t s = 0; s < im->n_sets; s++) {
        im->present[s] = spec->n_sets ? (spec->sets[s] & all) : all;
        im->ungrouped[s] = im->present[s] == 0;
    }
    /* aggregates */
    im->n_aggs = spec->n_aggs;
    im->aggs = ARENA_ARRAY(A, agg_item, spec->n_aggs + 1);
    if (!im->aggs) return err_nomem(err, "operator");
    uint32_t off = 0;
    for (uint32_t a = 0; a < spec->n_aggs; a++) {
        const plan_agg *pa = &spec->aggs[a];
        agg_item *it = &im->aggs[a];
        it->def = pa->def;
        it->bind_data = pa->bind_data;
        it->n_args = pa->n_args;
        it->distinct = pa->distinct;
        it->n_order = pa->n_order;
        it->special = pa->distinct || pa->n_order > 0;
        if (it->n_args > im->max_args) im->max_args = it->n_args;
        if (it->n_args > 64) return err_set(err, SQE_ERR_NOT_SUPPORTED, "too many aggregate arguments");
        it->args = ARENA_ARRAY(A, exec_expr *, pa->n_args + 1);
        it->order = ARENA_ARRAY(A, exec_expr *, pa->n_order + 1);
        if (!it->args || !it->order) return err_nomem(err, "operator");
        for (uint32_t j = 0; j < pa->n_args; j++)
            SQE_TRY(exec_expr_compile(qctx, pa->args[j], &lay, &it->args[j], err));
        for (uint32_t j = 0; j < pa->n_order; j++)
            SQE_TRY(exec_expr_compile(qctx, pa->order[j].expr, &lay, &it->order[j], err));
        if (pa->filter) SQE_TRY(exec_expr_compile(qctx, pa->filter, &lay, &it->filter, err));
        uint32_t size = (pa->def->state_size + 15) & ~15u;
        it->state_off = off;
        off += size;
        if (it->special) {
            im->n_special++;
            uint32_t nf = spec->n_groups + pa->n_args + pa->n_order;
            sqe_type *tt = ARENA_ARRAY(A, sqe_type, nf + 1);
            if (!tt) return err_nomem(err, "operator");
            uint32_t f = 0;
            for (uint32_t g = 0; g < spec->n_groups; g++) tt[f++] = im->group_types[g];
            for (uint32_t j = 0; j < pa->n_args; j++) tt[f++] = pa->args[j]->type;
            for (uint32_t j = 0; j < pa->n_order; j++) tt[f++] = pa->order[j].expr->type;
            SQE_TRY(exec_row_layout_init(&it->tuple, A, tt, nf, false, 8, err));
            if (pa->n_order) {
                sqe_type *kt = ARENA_ARRAY(A, sqe_type, pa->n_order + 1);
                bool *kd = ARENA_ARRAY(A, bool, pa->n_order + 1);
                bool *kn = ARENA_ARRAY(A, bool, pa->n_order + 1);
                if (!kt || !kd || !kn) return err_nomem(err, "operator");
                kt[0] = type_make(TYPE_BIGINT);
                for (uint32_t j = 0; j < pa->n_order; j++) {
                    kt[j + 1] = pa->order[j].expr->type;
                    kd[j + 1] = pa->order[j].desc;
                    kn[j + 1] = pa->order[j].nulls_first;
                }
                SQE_TRY(exec_sort_spec_init(&it->order_spec, A, kt, kd, kn, pa->n_order + 1, err));
            }
        }
    }
    im->n_inputs = spec->n_inputs ? spec->n_inputs : 1;
    im->counters = spec->counters;
    im->counters_off = off;
    if (spec->counters) off += 8 * im->n_inputs;
    im->setop = spec->setop;
    im->setop_all = spec->setop_all;
    SQE_TRY(exec_row_layout_init(&im->layout, A, im->group_types, spec->n_groups, false, off, err));
    for (uint32_t a = 0; a < im->n_aggs; a++) im->aggs[a].state_off += im->layout.payload_offset;
    im->counters_off += im->layout.payload_offset;
    im->radix_bits = radix_bits_for(qctx);
    im->n_parts = 1u << im->radix_bits;
    /* outputs */
    im->n_out = p->n_out;
    im->out_kind = ARENA_ARRAY(A, uint8_t, p->n_out + 1);
    im->out_idx = ARENA_ARRAY(A, uint32_t, p->n_out + 1);
    if (!im->out_kind || !im->out_idx) return err_nomem(err, "operator");
    uint32_t pos = 0;
    for (uint32_t c = 0; c < p->n_out; c++) {
        if (spec->grouping_id && p->out[c].id == spec->grouping_id) {
            im->out_kind[c] = OUT_GID;
            continue;
        }
        if (pos < spec->n_groups) {
            im->out_kind[c] = OUT_GROUP;
            im->out_idx[c] = pos;
        } else if (pos - spec->n_groups < spec->n_aggs) {
            im->out_kind[c] = OUT_AGG;
            im->out_idx[c] = pos - spec->n_groups;
        } else {
            return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR,
                           "aggregate output column %u has no source", c);
        }
        pos++;
    }
    if (spec->group_exprs && spec->n_groups)
        for (uint32_t g = 0; g < spec->n_groups && g < 4; g++)
            exec_op_detail_expr(op, g ? ", " : "keys: ", spec->group_exprs[g], p->children[0]);
    *out = op;
    return SQE_OK;
}

int exec_op_hash_agg_create(exec_query_ctx *qctx, const plan *p, exec_op *child, exec_op **out,
                            sqe_error *err) {
    exec_agg_spec spec;
    memset(&spec, 0, sizeof spec);
    spec.n_groups = p->u.agg.n_groups;
    spec.group_exprs = p->u.agg.groups;
    spec.n_sets = p->u.agg.n_sets;
    spec.sets = p->u.agg.sets;
    spec.grouping_id = p->u.agg.n_sets ? p->u.agg.grouping_id : 0;
    spec.aggs = p->u.agg.aggs;
    spec.n_aggs = p->u.agg.n_aggs;
    spec.n_inputs = 1;
    spec.name = "HashAggregate";
    return exec_agg_op_create(qctx, p, &spec, &child, 1, out, err);
}
