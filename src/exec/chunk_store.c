/*
 * chunk_store.c: thread-local chunk lists and the store they are combined into (see
 * chunk_store.h).
 */
#include "exec/chunk_store.h"

#include <string.h>

#include "exec/hashtable.h"

static int reserve(exec_chunk_list *l, uint32_t extra, mem_tracker *t, sqe_error *err) {
    if (l->n + extra <= l->cap) return SQE_OK;
    uint32_t cap = l->cap ? l->cap : 16;
    while (cap < l->n + extra) cap *= 2;
    vec_chunk **p = mem_realloc(t, l->chunks, sizeof(vec_chunk *) * cap, err);
    if (!p) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
    l->chunks = p;
    l->cap = cap;
    return SQE_OK;
}

int exec_chunk_list_push(exec_chunk_list *l, vec_chunk *c, mem_tracker *t, sqe_error *err) {
    int rc = reserve(l, 1, t, err);
    if (rc != SQE_OK) {
        exec_chunk_free(c, t);
        return rc;
    }
    l->chunks[l->n++] = c;
    l->rows += c->count;
    return SQE_OK;
}

int exec_chunk_list_append_copy(exec_chunk_list *l, const vec_chunk *in, mem_tracker *t,
                                sqe_error *err) {
    if (in->count == 0) return SQE_OK;
    SQE_TRY(reserve(l, 1, t, err));
    vec_chunk *c;
    SQE_TRY(exec_chunk_copy(in, NULL, 0, NULL, in->count, t, &c, err));
    l->chunks[l->n++] = c;
    l->rows += c->count;
    return SQE_OK;
}

void exec_chunk_list_destroy(exec_chunk_list *l, mem_tracker *t) {
    for (uint32_t i = 0; i < l->n; i++) exec_chunk_free(l->chunks[i], t);
    mem_free(t, l->chunks);
    memset(l, 0, sizeof *l);
}

void exec_chunk_store_init(exec_chunk_store *s) {
    memset(s, 0, sizeof *s);
    pthread_mutex_init(&s->lock, NULL);
}

int exec_chunk_store_add(exec_chunk_store *s, exec_chunk_list *l, mem_tracker *t,
                         sqe_error *err) {
    if (l->n == 0) {
        exec_chunk_list_destroy(l, t);
        return SQE_OK;
    }
    pthread_mutex_lock(&s->lock);
    int rc = s->all.n == 0 ? SQE_OK : reserve(&s->all, l->n, t, err);
    if (rc == SQE_OK && s->all.n == 0) {
        /* the first list becomes the store's array as it is */
        mem_free(t, s->all.chunks);
        s->all = *l;
        memset(l, 0, sizeof *l);
    } else if (rc == SQE_OK) {
        memcpy(s->all.chunks + s->all.n, l->chunks, l->n * sizeof(vec_chunk *));
        s->all.n += l->n;
        s->all.rows += l->rows;
        mem_free(t, l->chunks);
        memset(l, 0, sizeof *l);
    }
    pthread_mutex_unlock(&s->lock);
    if (rc != SQE_OK) exec_chunk_list_destroy(l, t);
    return rc;
}

int exec_chunk_store_seal(exec_chunk_store *s, mem_tracker *t, sqe_error *err) {
    uint32_t n = s->all.n;
    s->base = mem_alloc(t, sizeof(uint64_t) * (n ? n : 1), err);
    if (!s->base) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
    uint64_t row = 0;
    for (uint32_t i = 0; i < n; i++) {
        s->base[i] = row;
        row += s->all.chunks[i]->count;
    }
    s->sealed = true;
    return SQE_OK;
}

exec_chunk_list exec_chunk_store_take(exec_chunk_store *s) {
    exec_chunk_list l = s->all;
    memset(&s->all, 0, sizeof s->all);
    return l;
}

void exec_chunk_store_destroy(exec_chunk_store *s, mem_tracker *t) {
    exec_chunk_list_destroy(&s->all, t);
    mem_free(t, s->base);
    s->base = NULL;
    pthread_mutex_destroy(&s->lock);
}
