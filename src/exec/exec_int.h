/*
 * exec_int.h: the executor's internal contracts: compiled expressions, physical operators and
 * pipelines. Private to src/exec/.
 *
 * Model (ENGINE.md "Pipelines and parallelism"): the physical plan is a tree of exec_op. It is
 * cut into pipelines at pipeline breakers; a pipeline is a source, a chain of streaming
 * operators, and a sink. Every thread of the query runs the same pipeline on different morsels
 * with its own local states; the sink's local states are combined once at the end (combine),
 * then finalized (finalize). A sink (hash aggregate, sort, hash-join build) is also the source
 * of the next pipeline; a hash join is the sink of its build pipeline and a streaming operator
 * of its probe pipeline. Pipelines run in dependency order.
 *
 * Threads: global states are shared (protect with atomics/mutexes); local states belong to one
 * thread. Chunks: an operator writes into the output chunk the driver gives it (sized
 * VEC_CHUNK_SIZE, with the operator's output types); its vectors may reference the input chunk's
 * data (VEC_DICT) because the driver keeps the input alive until the output has been consumed.
 */
#ifndef SQE_EXEC_EXEC_INT_H
#define SQE_EXEC_EXEC_INT_H

#include <pthread.h>
#include <stdatomic.h>

#include "exec/exec.h"
#include "func/func.h"

/* --------------------------------------------------------------------------------------------
 * Compiled expressions
 * ------------------------------------------------------------------------------------------ */

/* Maps plan column ids to positions in an operator's input chunk. */
typedef struct exec_layout {
    const plan_col *cols; /* the input's columns (a plan node's `out`) */
    uint32_t n_cols;
} exec_layout;

typedef struct exec_expr exec_expr;           /* compiled, immutable, shared by threads */
typedef struct exec_expr_state exec_expr_state; /* per-thread scratch vectors */

typedef struct exec_query_ctx {
    mem_tracker *tracker;
    int32_t session_zone;
    int64_t query_start_micros;
    uint64_t random_seed;
    const vec *const *params;
    uint32_t n_params;
    arena *arena;             /* query-lifetime memory for compiled plans */
    volatile int *cancel;
    uint64_t deadline_ns;     /* exec_options */
    uint32_t time_limit_ms;
    uint32_t threads;         /* worker threads the query's pipelines may use (>= 1) */
    int (*result_sink)(void *ud, const vec_chunk *chunk, sqe_error *err); /* exec_options */
    void *result_sink_ud;
} exec_query_ctx;

/* Compiles e against the input layout. Memory from qctx->arena. */
int exec_expr_compile(exec_query_ctx *qctx, const bexpr *e, const exec_layout *layout,
                      exec_expr **out, sqe_error *err);
int exec_expr_state_create(const exec_expr *x, exec_query_ctx *qctx, exec_expr_state **out,
                           sqe_error *err);
void exec_expr_state_destroy(exec_expr_state *st);
/* Evaluates over the input chunk's rows (sel as in func.h: NULL = all rows 0..count-1) into
 * `out` (flat vector of the expression's type, capacity >= chunk size; reset first). Rows not
 * selected are left undefined. String views in out may point into the input chunk or into the
 * state's scratch vectors: valid until the next evaluation with st (copy them to keep them).
 * Returns an error code with err set on a failing row. */
int exec_expr_eval(exec_expr_state *st, const vec_chunk *in, const uint32_t *sel,
                   uint32_t count, vec *out, sqe_error *err);
/* Evaluates a boolean expression as a filter: writes the selected rows (TRUE, not NULL/FALSE)
 * among the input selection into sel_out and returns their number in *n_out. The selected rows
 * keep the order of `sel`; sel_out may be the same array as sel. */
int exec_expr_select(exec_expr_state *st, const vec_chunk *in, const uint32_t *sel,
                     uint32_t count, uint32_t *sel_out, uint32_t *n_out, sqe_error *err);
/* Like exec_expr_eval, without copying: *out is the result as a vector of any shape (the input
 * column itself for a column reference, a VEC_CONST for constants, else a vector of the state),
 * read at the logical rows of the selection. Valid until the next evaluation with st and while
 * `in` is unchanged. */
int exec_expr_eval_view(exec_expr_state *st, const vec_chunk *in, const uint32_t *sel,
                        uint32_t count, const vec **out, sqe_error *err);
/* Like exec_expr_eval_view, but the result may be written straight into `target` (a flat
 * vector of the expression's type, reset by the caller, e.g. a column of the output chunk) at
 * the selected rows: then *out == target; otherwise *out is another vector as for
 * exec_expr_eval_view (a column reference, a constant). */
int exec_expr_eval_to(exec_expr_state *st, const vec_chunk *in, const uint32_t *sel,
                      uint32_t count, vec *target, const vec **out, sqe_error *err);
/* The type of a compiled expression. */
sqe_type exec_expr_type(const exec_expr *x);
/* Is the expression a plain column reference? Then *pos (may be NULL) is its input position. */
bool exec_expr_is_column(const exec_expr *x, uint32_t *pos);
/* Is the expression constant (no column reference, nothing volatile)? */
bool exec_expr_is_const(const exec_expr *x);

/* --------------------------------------------------------------------------------------------
 * Physical operators
 * ------------------------------------------------------------------------------------------ */

typedef struct exec_op exec_op;

typedef enum exec_op_result {
    EXEC_NEED_INPUT = 0, /* the operator consumed its input; give it the next chunk */
    EXEC_HAVE_MORE,      /* output produced; call again with the same input for more */
    EXEC_FINISHED,       /* no more output will ever come (e.g. LIMIT reached) */
} exec_op_result;

typedef struct exec_op_vtable {
    const char *name; /* for EXPLAIN: "HashJoin", "Filter", ... */
    /* Source role (NULL when the operator is not a source). */
    int (*source_init)(exec_op *op, void **gstate, sqe_error *err);
    int (*source_local_init)(exec_op *op, void *gstate, void **lstate, sqe_error *err);
    /* Produces the next chunk for this thread; out->count == 0 when the source is exhausted
     * for this thread. */
    int (*source_next)(exec_op *op, void *gstate, void *lstate, vec_chunk *out, sqe_error *err);
    void (*source_local_destroy)(exec_op *op, void *lstate);
    void (*source_destroy)(exec_op *op, void *gstate);
    /* Source must run on one thread only (e.g. ordered output of a sort). */
    bool source_serial;

    /* Streaming role. */
    int (*op_local_init)(exec_op *op, void **lstate, sqe_error *err);
    int (*op_execute)(exec_op *op, void *lstate, const vec_chunk *in, vec_chunk *out,
                      exec_op_result *res, sqe_error *err);
    void (*op_local_destroy)(exec_op *op, void *lstate);

    /* Sink role. */
    int (*sink_init)(exec_op *op, void **gstate, sqe_error *err);
    /* input_idx: which child feeds this local state (joins: 1 = build side; set operations:
     * the input's position). */
    int (*sink_local_init)(exec_op *op, void *gstate, uint32_t input_idx, void **lstate,
                           sqe_error *err);
    int (*sink)(exec_op *op, void *gstate, void *lstate, const vec_chunk *in, sqe_error *err);
    int (*sink_combine)(exec_op *op, void *gstate, void *lstate, sqe_error *err);
    int (*sink_finalize)(exec_op *op, void *gstate, sqe_error *err);
    void (*sink_destroy)(exec_op *op, void *gstate);
    /* Sink must see its input in order on one thread (e.g. LIMIT without ORDER BY is fine
     * parallel; window/ordered inputs are not). */
    bool sink_serial;

    /* Frees the operator's own (non-state) resources. */
    void (*destroy)(exec_op *op);

    /* Optional: at most how many threads can usefully run the pipeline this operator is the
     * source of (e.g. its number of morsels), called after source_init; NULL = no limit. */
    uint32_t (*source_max_threads)(exec_op *op, void *gstate);
    /* Optional: frees a sink local state without combining it (when the pipeline failed).
     * NULL: the driver calls sink_combine anyway and ignores its result, so sink_combine must
     * always release the local state. */
    void (*sink_local_destroy)(exec_op *op, void *gstate, void *lstate);
} exec_op_vtable;

typedef struct exec_op_profile {
    _Atomic uint64_t rows_in;
    _Atomic uint64_t rows_out;
    _Atomic uint64_t nanos;
    _Atomic int64_t peak_bytes;
} exec_op_profile;

/* How the pipeline builder reads an operator's roles:
 *   source only (scan, values, table function): starts a pipeline;
 *   op only (filter, project, limit, unnest): streams inside a pipeline;
 *   sink + source (aggregate, sort, top-N, window, distinct, set operations, enforce-single):
 *     every child i ends a pipeline with sink input_idx i; the operator then starts the next
 *     pipeline as a source;
 *   sink + op (hash join, nested-loop join): child 1 (build) ends a pipeline into the sink;
 *     child 0 (probe) streams through op_execute in a pipeline that runs after the build's
 *     finalize;
 *   sink + op + source (right/full outer joins): as sink + op, and after the probe pipeline has
 *     finished on every thread, the operator is the source of one more pipeline that continues
 *     through the probe pipeline's downstream operators into the same sink (e.g. to emit the
 *     build rows that found no match). Its source_init sees the sink state in op->sink_gstate.
 * Order guarantees: pipelines run one after another in dependency order; the pipelines feeding
 * one sink run in input_idx order, each to completion (every thread's sink_combine done) before
 * the next starts, and sink_finalize runs once after the last of them. Global states live until
 * the last pipeline that uses the operator has finished (or the query is destroyed).
 * EXEC_FINISHED from op_execute means the operator will produce no more output on any thread:
 * the driver stops the whole pipeline (the sink is still combined and finalized).
 */
struct exec_op {
    const exec_op_vtable *vt;
    exec_op **children;       /* input operators (probe side first for joins) */
    uint32_t n_children;
    sqe_type *types;          /* output column types */
    uint32_t n_types;
    const plan *plan;         /* the logical node this implements (for EXPLAIN), may be NULL */
    exec_query_ctx *qctx;
    void *source_gstate;      /* set by the driver */
    void *sink_gstate;
    exec_op_profile profile;
    char detail[320];         /* EXPLAIN detail ("keys: l_orderkey = o_orderkey") */
    void *impl;               /* operator-specific immutable data */
};

#endif
