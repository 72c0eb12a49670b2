/*
 * op_result.c: the result collector, the sink of the result pipelines. It copies every chunk it
 * receives into chunks it owns (the pipeline reuses its chunks) and hands them out, in source
 * order, through exec_driver_next.
 *
 * INTERFACE: exec_op_result_create (ops.h); exec_op_result_flush, _release, _has_ready, _next
 *   (driver.h), used by the streaming driver.
 * NOTES: each thread fills its own list of chunks, and the driver flushes that list into the
 * shared buffer after every source chunk. Chunks that carry a source order (seq != 0: scans of
 * tables and files, through streaming operators) wait in `pending`, sorted by seq, until the
 * driver knows no thread can still produce an earlier seq (release with a bound); then they move
 * to `ready`, the queue the reader takes from. Unordered chunks (seq 0, e.g. after an
 * aggregation) and the chunks of a serial pipeline go to `ready` directly. So a plain SELECT
 * returns rows in table / file order whatever the number of threads, without holding the whole
 * result. With a streaming consumer (exec_options.result_sink, COPY TO) nothing is collected:
 * each chunk is handed to it under the lock as it arrives. Values are copied deep (string bytes
 * into the chunk's heap), so results outlive the operators that produced them. A chunk handed
 * out is freed at the next call. Every chunk is charged to the collector's memory tracker, which
 * is how the driver measures what is buffered.
 */
#include <stdlib.h>
#include <string.h>

#include "exec/driver.h"
#include "exec/ops.h"

typedef struct result_list {
    vec_chunk **chunks;
    uint32_t n, cap;
} result_list;

/* A FIFO / sorted array of chunks: live entries are chunks[head..n). */
typedef struct result_g {
    pthread_mutex_t lock;
    result_list pending;  /* seq-ordered chunks waiting for their turn */
    uint32_t pending_head;
    result_list ready;    /* chunks the reader may take, in order */
    uint32_t ready_head;
    vec_chunk *handed;    /* the chunk handed out last (freed at the next call) */
} result_g;

typedef struct result_l {
    result_list list;
} result_l;

static void list_free(result_list *l) {
    for (uint32_t i = 0; i < l->n; i++) {
        if (!l->chunks[i]) continue;
        vec_chunk_destroy(l->chunks[i]);
        free(l->chunks[i]);
    }
    free(l->chunks);
    memset(l, 0, sizeof *l);
}

static int list_push(result_list *l, vec_chunk *c, sqe_error *err) {
    if (l->n == l->cap) {
        uint32_t cap = l->cap ? l->cap * 2 : 16;
        vec_chunk **p = realloc(l->chunks, cap * sizeof *p);
        if (!p) return err_nomem(err, "result chunks");
        l->chunks = p;
        l->cap = cap;
    }
    l->chunks[l->n++] = c;
    return SQE_OK;
}

static int result_sink_init(exec_op *op, void **gstate, sqe_error *err) {
    result_g *g = calloc(1, sizeof *g);
    if (!g) return err_nomem(err, "result");
    pthread_mutex_init(&g->lock, NULL);
    *gstate = g;
    return SQE_OK;
}

static int result_local_init(exec_op *op, void *gstate, uint32_t input_idx, void **lstate,
                             sqe_error *err) {
    result_l *l = calloc(1, sizeof *l);
    if (!l) return err_nomem(err, "result");
    *lstate = l;
    return SQE_OK;
}

/* A new result chunk with room for capacity rows (VEC_CHUNK_SIZE at most), tagged seq. */
static int new_chunk(exec_op *op, result_l *l, uint32_t capacity, uint64_t seq, sqe_error *err) {
    vec_chunk *c = calloc(1, sizeof *c);
    if (!c) return err_nomem(err, "result chunk");
    int rc = vec_chunk_init(c, op->n_types, op->types, capacity ? capacity : 1, op->qctx->tracker, err);
    c->seq = seq;
    if (rc == SQE_OK) rc = list_push(&l->list, c, err);
    if (rc != SQE_OK) {
        vec_chunk_destroy(c);
        free(c);
    }
    return rc;
}

static int result_sink(exec_op *op, void *gstate, void *lstate, const vec_chunk *in,
                       sqe_error *err) {
    result_l *l = lstate;
    if (op->qctx->result_sink) {
        result_g *g = gstate;
        pthread_mutex_lock(&g->lock);
        int rc = op->qctx->result_sink(op->qctx->result_sink_ud, in, err);
        pthread_mutex_unlock(&g->lock);
        return rc;
    }
    uint32_t done = 0;
    while (done < in->count) {
        vec_chunk *cur = l->list.n ? l->list.chunks[l->list.n - 1] : NULL;
        if (!cur || cur->count == cur->capacity || cur->seq != in->seq) {
            /* Ordered input gets chunks of its own size: small filtered chunks stay small. */
            uint32_t cap = in->seq ? in->count - done : VEC_CHUNK_SIZE;
            SQE_TRY(new_chunk(op, l, cap, in->seq, err));
            cur = l->list.chunks[l->list.n - 1];
        }
        uint32_t take = in->count - done;
        if (take > cur->capacity - cur->count) take = cur->capacity - cur->count;
        if (in->n_cols == 0) {
            /* count only */
        } else if (done == 0 && take == in->count) {
            for (uint32_t c = 0; c < in->n_cols; c++)
                SQE_TRY(exec_vec_copy(&cur->cols[c], NULL, cur->count, &in->cols[c], NULL, take,
                                      true, err));
        } else {
            uint32_t rows[VEC_CHUNK_SIZE];
            for (uint32_t i = 0; i < take; i++) rows[i] = done + i;
            for (uint32_t c = 0; c < in->n_cols; c++)
                SQE_TRY(exec_vec_copy(&cur->cols[c], NULL, cur->count, &in->cols[c], rows, take,
                                      true, err));
        }
        cur->count += take;
        done += take;
    }
    return SQE_OK;
}

static void chunk_free(vec_chunk *c) {
    if (!c) return;
    vec_chunk_destroy(c);
    free(c);
}

/* Drops the consumed front of a FIFO array once it is more than half of it. */
static void list_compact(result_list *l, uint32_t *head) {
    if (*head == 0 || *head < l->n / 2) return;
    memmove(l->chunks, l->chunks + *head, (l->n - *head) * sizeof *l->chunks);
    l->n -= *head;
    *head = 0;
}

/* Inserts c into pending after every chunk of a seq <= c's (chunks arrive nearly in order, so
 * the search runs from the back). */
static int pending_insert(result_g *g, vec_chunk *c, sqe_error *err) {
    result_list *l = &g->pending;
    list_compact(l, &g->pending_head);
    SQE_TRY(list_push(l, c, err));
    uint32_t i = l->n - 1;
    while (i > g->pending_head && l->chunks[i - 1]->seq > c->seq) {
        l->chunks[i] = l->chunks[i - 1];
        i--;
    }
    l->chunks[i] = c;
    return SQE_OK;
}

int exec_op_result_flush(exec_op *op, void *lstate, bool all, sqe_error *err) {
    result_g *g = op->sink_gstate;
    result_l *l = lstate;
    if (!g || !l || l->list.n == 0) return SQE_OK;
    uint32_t n = l->list.n;
    vec_chunk *last = l->list.chunks[n - 1];
    /* an unordered chunk not yet full keeps collecting rows */
    if (!all && last->seq == 0 && last->count < last->capacity) n--;
    int rc = SQE_OK;
    pthread_mutex_lock(&g->lock);
    list_compact(&g->ready, &g->ready_head);
    uint32_t i = 0;
    for (; i < n && rc == SQE_OK; i++) {
        vec_chunk *c = l->list.chunks[i];
        if (c->count == 0) {
            chunk_free(c);
            continue;
        }
        rc = c->seq ? pending_insert(g, c, err) : list_push(&g->ready, c, err);
        if (rc != SQE_OK) chunk_free(c);
    }
    pthread_mutex_unlock(&g->lock);
    for (; i < n; i++) chunk_free(l->list.chunks[i]);
    memmove(l->list.chunks, l->list.chunks + n, (l->list.n - n) * sizeof *l->list.chunks);
    l->list.n -= n;
    return rc;
}

int exec_op_result_release(exec_op *op, uint64_t bound, sqe_error *err) {
    result_g *g = op->sink_gstate;
    if (!g) return SQE_OK;
    int rc = SQE_OK;
    pthread_mutex_lock(&g->lock);
    while (rc == SQE_OK && g->pending_head < g->pending.n &&
           g->pending.chunks[g->pending_head]->seq < bound) {
        rc = list_push(&g->ready, g->pending.chunks[g->pending_head], err);
        if (rc == SQE_OK) g->pending.chunks[g->pending_head++] = NULL;
    }
    if (g->pending_head == g->pending.n) g->pending.n = g->pending_head = 0;
    pthread_mutex_unlock(&g->lock);
    return rc;
}

bool exec_op_result_has_ready(exec_op *op) {
    result_g *g = op->sink_gstate;
    if (!g) return false;
    pthread_mutex_lock(&g->lock);
    bool any = g->ready_head < g->ready.n;
    pthread_mutex_unlock(&g->lock);
    return any;
}

const vec_chunk *exec_op_result_next(exec_op *op) {
    result_g *g = op->sink_gstate;
    if (!g) return NULL;
    pthread_mutex_lock(&g->lock);
    chunk_free(g->handed);
    g->handed = NULL;
    if (g->ready_head < g->ready.n) {
        g->handed = g->ready.chunks[g->ready_head];
        g->ready.chunks[g->ready_head++] = NULL;
    }
    if (g->ready_head == g->ready.n) g->ready.n = g->ready_head = 0;
    pthread_mutex_unlock(&g->lock);
    return g->handed;
}

static int result_combine(exec_op *op, void *gstate, void *lstate, sqe_error *err) {
    result_l *l = lstate;
    int rc = exec_op_result_flush(op, l, true, err);
    list_free(&l->list);
    free(l);
    return rc;
}

static void result_local_destroy(exec_op *op, void *gstate, void *lstate) {
    result_l *l = lstate;
    list_free(&l->list);
    free(l);
}

static void result_sink_destroy(exec_op *op, void *gstate) {
    result_g *g = gstate;
    if (!g) return;
    list_free(&g->pending);
    list_free(&g->ready);
    chunk_free(g->handed);
    pthread_mutex_destroy(&g->lock);
    free(g);
}

static const exec_op_vtable result_vt = {
    .name = "Output",
    .sink_init = result_sink_init,
    .sink_local_init = result_local_init,
    .sink = result_sink,
    .sink_combine = result_combine,
    .sink_local_destroy = result_local_destroy,
    .sink_destroy = result_sink_destroy,
};

int exec_op_result_create(exec_query_ctx *qctx, const plan *root, exec_op *child, exec_op **out,
                          sqe_error *err) {
    exec_op *op = exec_op_alloc(qctx, &result_vt, root, 1);
    if (!op) return err_nomem(err, "operator");
    op->children[0] = child;
    *out = op;
    return SQE_OK;
}
