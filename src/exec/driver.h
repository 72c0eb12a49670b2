/*
 * driver.h (private to exec/): the pipeline driver, the thread pool's task interface and the
 * result collector's read side.
 *
 * The driver cuts a tree of physical operators into pipelines (exec_int.h "roles"), orders them
 * by their dependencies, and runs each one morsel-driven on the pool: every thread pulls chunks
 * from the source with its own local states and pushes them through the streaming operators
 * into the sink; the first error stops every thread of the query and is returned.
 */
#ifndef SQE_EXEC_DRIVER_H
#define SQE_EXEC_DRIVER_H

#include "exec/exec_int.h"

/* A unit of work for the pool. Caller-owned: the struct must stay valid until fn returned. */
typedef struct exec_task {
    void (*fn)(void *arg);
    void *arg;
    struct exec_task *next; /* queue link (pool-owned while queued) */
} exec_task;

/* Queues n tasks (FIFO); each runs once on some pool thread. Never fails. */
void exec_pool_submit(exec_pool *pool, exec_task *tasks, uint32_t n);

typedef struct exec_driver exec_driver;

/* Builds the pipelines of the operator tree whose root is `root_sink` (the result collector).
 * pool may be NULL (everything runs on the calling thread). On success the caller owns *out
 * (exec_driver_destroy); operators stay owned by the caller. */
int exec_driver_create(exec_query_ctx *qctx, exec_op *root_sink, exec_pool *pool,
                       uint32_t threads, bool profile, exec_driver **out, sqe_error *err);
/* Runs every pipeline in dependency order. On error every thread has stopped, local states are
 * freed, and the error of the first failing thread is returned; global states are freed by
 * exec_driver_destroy. The root sink's state survives (it holds the results). */
int exec_driver_run(exec_driver *d, sqe_error *err);
/* Frees every global state still alive (the root sink's included) and the driver. */
void exec_driver_destroy(exec_driver *d);
/* Number of pipelines, and a one-line description of pipeline i (for tests and debugging). */
uint32_t exec_driver_pipeline_count(const exec_driver *d);
void exec_driver_describe(const exec_driver *d, uint32_t i, strbuf *out);

/* Result collector (op_result.c): the next collected chunk of the finalized root sink, or NULL
 * at the end. The chunk stays valid until the next call or the sink state is destroyed. */
const vec_chunk *exec_op_result_next(exec_op *op);

/* Monotonic clock in nanoseconds (profiling). */
uint64_t exec_now_ns(void);

#endif
