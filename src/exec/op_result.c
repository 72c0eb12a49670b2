/*
 * op_result.c: the result collector, the sink of the root pipeline. It copies every chunk it
 * receives into chunks it owns (the pipeline reuses its chunks), packing small chunks together,
 * and hands them out through exec_query_next.
 *
 * INTERFACE: exec_op_result_create (ops.h), exec_op_result_next (driver.h).
 * NOTES: each thread fills its own list of chunks; combine appends a thread's list to the
 * global one under a lock. A serial pipeline (ordered results, e.g. after a sort) runs on one
 * thread, so its chunks keep their order. Input chunks that carry a source order (seq != 0:
 * scans of tables and files, through streaming operators) are kept in result chunks of their
 * own seq, and the list is stably sorted by seq before the first chunk is handed out, so a
 * plain SELECT returns rows in table / file order whatever the number of threads. With a
 * streaming consumer (exec_options.result_sink, COPY TO) nothing is collected: each chunk is
 * handed to it under the lock as it arrives. Values are copied deep (string bytes into the
 * chunk's heap), so results outlive the operators that produced them. A chunk handed out is
 * freed at the next call, so reading a large result does not hold all of it twice.
 */
#include <stdlib.h>
#include <string.h>

#include "exec/driver.h"
#include "exec/ops.h"

typedef struct result_list {
    vec_chunk **chunks;
    uint32_t n, cap;
} result_list;

typedef struct result_g {
    pthread_mutex_t lock;
    result_list list;
    uint32_t next;      /* next chunk to hand out */
    bool sorted;        /* the list is in seq order */
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

static int result_combine(exec_op *op, void *gstate, void *lstate, sqe_error *err) {
    result_g *g = gstate;
    result_l *l = lstate;
    int rc = SQE_OK;
    pthread_mutex_lock(&g->lock);
    for (uint32_t i = 0; i < l->list.n; i++) {
        if (rc == SQE_OK) rc = list_push(&g->list, l->list.chunks[i], err);
        if (rc == SQE_OK) {
            l->list.chunks[i] = NULL;
        }
    }
    pthread_mutex_unlock(&g->lock);
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
    list_free(&g->list);
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

static int cmp_seq(const void *a, const void *b) {
    const vec_chunk *x = *(vec_chunk *const *)a, *y = *(vec_chunk *const *)b;
    if (x->seq != y->seq) return x->seq < y->seq ? -1 : 1;
    return 0;
}

/* Stable sort of the chunks by seq: chunks of equal seq come from one thread in order, so
 * ties keep their list order (merge sort through an index tie-break). */
static void sort_by_seq(result_list *l) {
    bool ordered = true, any = false;
    for (uint32_t i = 0; i < l->n; i++) {
        any = any || l->chunks[i]->seq;
        if (i && cmp_seq(&l->chunks[i - 1], &l->chunks[i]) > 0) ordered = false;
    }
    if (!any || ordered) return;
    /* Insertion sort by runs would be O(n^2) in the worst case; use a merge sort. */
    vec_chunk **tmp = malloc(l->n * sizeof *tmp);
    if (!tmp) return; /* out of memory: rows stay complete, only their order suffers */
    for (uint32_t width = 1; width < l->n; width *= 2) {
        for (uint32_t lo = 0; lo < l->n; lo += 2 * width) {
            uint32_t mid = lo + width < l->n ? lo + width : l->n;
            uint32_t hi = lo + 2 * width < l->n ? lo + 2 * width : l->n;
            uint32_t a = lo, b = mid, k = lo;
            while (a < mid && b < hi) tmp[k++] = cmp_seq(&l->chunks[b], &l->chunks[a]) < 0 ? l->chunks[b++] : l->chunks[a++];
            while (a < mid) tmp[k++] = l->chunks[a++];
            while (b < hi) tmp[k++] = l->chunks[b++];
        }
        memcpy(l->chunks, tmp, l->n * sizeof *tmp);
    }
    free(tmp);
}

const vec_chunk *exec_op_result_next(exec_op *op) {
    result_g *g = op->sink_gstate;
    if (!g) return NULL;
    if (!g->sorted) {
        sort_by_seq(&g->list);
        g->sorted = true;
    }
    if (g->next > 0 && g->list.chunks[g->next - 1]) {
        vec_chunk_destroy(g->list.chunks[g->next - 1]);
        free(g->list.chunks[g->next - 1]);
        g->list.chunks[g->next - 1] = NULL;
    }
    while (g->next < g->list.n) {
        vec_chunk *c = g->list.chunks[g->next++];
        if (c && c->count) return c;
    }
    return NULL;
}
