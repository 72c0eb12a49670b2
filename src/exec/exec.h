/*
 * exec.h: the executor's public face: turn an optimized logical plan (plan/plan.h) into
 * pipelines of physical operators, run them morsel-driven on the database's thread pool, and
 * stream the result chunks out.
 *
 * Lifetimes: an exec_query borrows the plan (which must outlive it) and owns every operator,
 * state and result buffer; exec_query_destroy frees everything even after an error or in the
 * middle of a result stream.
 */
#ifndef SQE_EXEC_EXEC_H
#define SQE_EXEC_EXEC_H

#include <stdbool.h>
#include <stdint.h>

#include "common/err.h"
#include "common/mem.h"
#include "common/strbuf.h"
#include "plan/plan.h"
#include "vec/vec.h"

/* A fixed-size pool of worker threads shared by every query of a database. */
typedef struct exec_pool exec_pool;

/* Starts n threads (n >= 1). Caller owns *out (exec_pool_destroy). */
int exec_pool_create(uint32_t n_threads, exec_pool **out, sqe_error *err);
void exec_pool_destroy(exec_pool *pool);
uint32_t exec_pool_size(const exec_pool *pool);

typedef struct exec_options {
    exec_pool *pool;
    uint32_t threads;           /* threads this query may use (<= pool size); 0 = all */
    mem_tracker *tracker;       /* the query's memory (limit enforced there) */
    int32_t session_zone;       /* tz.h key */
    int64_t query_start_micros; /* for current_timestamp */
    uint64_t random_seed;
    bool profile;               /* collect per-operator rows and time (EXPLAIN ANALYZE) */
    const vec *const *params;   /* prepared statement parameters: 1-row vectors, [0] = ?1 */
    uint32_t n_params;
    volatile int *cancel;       /* set non-zero to cancel (checked between chunks); may be NULL */
    uint64_t deadline_ns;       /* exec_now_ns() past which the query fails EXCEEDED_TIME_LIMIT
                                   (checked where cancel is); 0 = none */
    uint32_t time_limit_ms;     /* the limit deadline_ns came from, for the message */
    /* Optional streaming consumer of the result (COPY TO): every result chunk goes to it
     * instead of being collected, and exec_query_next then returns no chunks. Called from the
     * worker threads one call at a time, in arrival order (no order across threads unless the
     * plan's last pipeline is serial, as after ORDER BY); the chunk is valid during the call
     * only. A non-OK return fails the query with that error. */
    int (*result_sink)(void *ud, const vec_chunk *chunk, sqe_error *err);
    void *result_sink_ud;
} exec_options;

typedef struct exec_query exec_query;

/* Builds the physical plan for `root`. Output columns are root->out in order. On success the
 * caller owns *out (exec_query_destroy). */
int exec_query_create(const plan *root, const exec_options *opts, exec_query **out,
                      sqe_error *err);
/* Returns the next result chunk (owned by the query, valid until the next call), or *out = NULL
 * at the end. The work runs while the caller reads: the first call runs the pipelines the
 * result depends on, later calls stream the rest with bounded buffering (a caller that stops
 * calling stops the query's work, without holding threads). An error may come after chunks
 * were returned; it is then returned by every later call. */
int exec_query_next(exec_query *q, const vec_chunk **out, sqe_error *err);
/* After the query finished: per-operator profile (rows in/out, time, peak memory) as text,
 * the physical plan tree one operator per line. Without profiling, the plan only. */
void exec_query_explain(const exec_query *q, strbuf *out);
void exec_query_destroy(exec_query *q);

/* Evaluates a constant expression (bexpr_is_const) once and returns it as a BEXPR_CONST in
 * pctx (for constant folding). Errors (e.g. division by zero in 1/0) are returned as-is; the
 * optimizer then leaves the expression unfolded so the error surfaces only if a row reaches it. */
int exec_fold_const(plan_ctx *pctx, const bexpr *e, int32_t session_zone,
                    int64_t query_start_micros, bexpr **out, sqe_error *err);

#endif
