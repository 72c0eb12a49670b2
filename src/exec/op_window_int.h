/*
 * op_window_int.h (private to exec/): the segment tree of the window operator (op_window.c),
 * exposed for unit tests.
 *
 * A segment tree over n aggregate states: leaves hold the state of one row each, inner nodes
 * the combination of their children (func_agg_def.combine). A query combines O(log n) nodes,
 * left to right, into a caller-provided state, so order-sensitive aggregates (array_agg) see
 * the rows of a frame in order.
 */
#ifndef SQE_EXEC_OP_WINDOW_INT_H
#define SQE_EXEC_OP_WINDOW_INT_H

#include "exec/ops.h"

typedef struct exec_segtree {
    const func_agg_def *def;
    const void *bind_data;
    uint32_t state_size;  /* def->state_size rounded up to 16 */
    uint64_t n;           /* leaves */
    uint8_t *nodes;       /* 2n states: node i at i * state_size; leaves at n..2n-1 */
    mem_tracker *tracker;
} exec_segtree;

/* Allocates 2n states and initializes every one (def->init). On error nothing is left
 * allocated. */
int exec_segtree_init(exec_segtree *t, const func_agg_def *def, const void *bind_data, uint64_t n,
                      mem_tracker *tracker, sqe_error *err);
/* The state of leaf i (update it with the row's values before exec_segtree_build). */
static inline uint8_t *exec_segtree_leaf(const exec_segtree *t, uint64_t i) {
    return t->nodes + (t->n + i) * t->state_size;
}
/* Combines the inner nodes from the leaves. */
int exec_segtree_build(exec_segtree *t, func_ctx *ctx);
/* Combines leaves [lo, hi) into dst (an initialized state), in order. */
int exec_segtree_query(const exec_segtree *t, func_ctx *ctx, uint64_t lo, uint64_t hi,
                       uint8_t *dst);
/* Destroys every state (def->destroy) and frees the nodes. */
void exec_segtree_destroy(exec_segtree *t);

#endif
