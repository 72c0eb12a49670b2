/*
 * chunk_store.h: the rows an operator materializes, as owned chunks: a nested-loop join's build
 * side, UNION ALL's inputs, a window's input. Each thread fills its own exec_chunk_list without
 * locking; its sink combine moves the list into the operator's exec_chunk_store (chunks move,
 * never copy), which finalize seals; from then on the store is read-only and any thread may read
 * chunk i, its first row number and the total.
 *
 * INTERFACE: exec_chunk_list_{append_copy,push,destroy}, exec_chunk_store_{init,add,seal,take,
 *   destroy,count,rows,chunk,chunks,base}.
 * NOTES: every chunk and array is charged to the tracker the caller passes (the query's); the
 * store is the one place a spilling version (issue: spill) would swap chunks out. The order of
 * the store is the order lists were added, each list in its own order.
 */
#ifndef SQE_EXEC_CHUNK_STORE_H
#define SQE_EXEC_CHUNK_STORE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/mem.h"
#include "vec/vec.h"

/* One thread's chunks (zero-initialize it). */
typedef struct exec_chunk_list {
    vec_chunk **chunks;
    uint32_t n, cap;
    uint64_t rows;
} exec_chunk_list;

/* Appends an owned copy of in's rows (no-op for an empty chunk). On error the list is
 * unchanged. */
int exec_chunk_list_append_copy(exec_chunk_list *l, const vec_chunk *in, mem_tracker *t,
                                sqe_error *err);
/* Appends c, which the list takes (allocated with exec_chunk_copy or mem_calloc +
 * vec_chunk_init on t). On error c is freed and the list is unchanged. */
int exec_chunk_list_push(exec_chunk_list *l, vec_chunk *c, mem_tracker *t, sqe_error *err);
/* Frees every chunk and the array; the list is empty (and reusable) afterwards. */
void exec_chunk_list_destroy(exec_chunk_list *l, mem_tracker *t);

/* Every thread's chunks together. */
typedef struct exec_chunk_store {
    pthread_mutex_t lock;
    exec_chunk_list all;
    uint64_t *base; /* after seal: first row number of each chunk */
    bool sealed;
} exec_chunk_store;

void exec_chunk_store_init(exec_chunk_store *s);
/* Moves l's chunks to the end of s (thread-safe; before seal); l is empty afterwards, also on
 * error (its chunks are then freed). */
int exec_chunk_store_add(exec_chunk_store *s, exec_chunk_list *l, mem_tracker *t,
                         sqe_error *err);
/* Computes the row numbers; no add after it. */
int exec_chunk_store_seal(exec_chunk_store *s, mem_tracker *t, sqe_error *err);
/* Hands every chunk to the caller (who frees them, e.g. exec_chunk_list_destroy): a store that
 * is re-materialized in another order (a window sorts its input). s is left empty. */
exec_chunk_list exec_chunk_store_take(exec_chunk_store *s);
/* Frees every chunk (sealed or not). */
void exec_chunk_store_destroy(exec_chunk_store *s, mem_tracker *t);

static inline uint32_t exec_chunk_store_count(const exec_chunk_store *s) { return s->all.n; }
static inline uint64_t exec_chunk_store_rows(const exec_chunk_store *s) { return s->all.rows; }
static inline const vec_chunk *exec_chunk_store_chunk(const exec_chunk_store *s, uint32_t i) {
    return s->all.chunks[i];
}
/* The store's chunk array (read-only after seal), e.g. to sort rows across chunks. */
static inline vec_chunk *const *exec_chunk_store_chunks(const exec_chunk_store *s) {
    return s->all.chunks;
}
/* First row number of chunk i (after seal). */
static inline uint64_t exec_chunk_store_base(const exec_chunk_store *s, uint32_t i) {
    return s->base[i];
}

#endif
