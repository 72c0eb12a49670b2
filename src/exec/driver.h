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
/* Takes a queued task that has not started off the queue: true when it was removed (it will
 * never run and the caller owns it again), false when it already started or ran. */
bool exec_pool_cancel(exec_pool *pool, exec_task *task);

typedef struct exec_driver exec_driver;

/* Builds the pipelines of the operator tree whose root is `root_sink` (the result collector).
 * pool may be NULL (everything runs on the calling thread). On success the caller owns *out
 * (exec_driver_destroy); operators stay owned by the caller. */
int exec_driver_create(exec_query_ctx *qctx, exec_op *root_sink, exec_pool *pool,
                       uint32_t threads, bool profile, exec_driver **out, sqe_error *err);
/* Runs every pipeline in dependency order to completion. On error every thread has stopped,
 * local states are freed, and the error of the first failing thread is returned; global states
 * are freed by exec_driver_destroy. For a root sink that consumes everything itself (a
 * streaming result_sink such as COPY TO). */
int exec_driver_run(exec_driver *d, sqe_error *err);
/* Streams the result (driver_stream.c): returns the next result chunk in *out (owned by the
 * result collector, valid until the next call), or NULL at the end. Pipelines before the last
 * run to completion at the first call; the pipelines into the result collector run on the pool
 * while the caller reads, holding at most about result_buffer_bytes of finished results (work
 * stops when the reader does not read). On error the work has stopped and every later call
 * returns the same error. */
int exec_driver_next(exec_driver *d, const vec_chunk **out, sqe_error *err);
/* Stops streaming work still running (waits for its current chunks), then frees every global
 * state still alive (the root sink's included) and the driver. */
void exec_driver_destroy(exec_driver *d);
/* Number of pipelines, and a one-line description of pipeline i (for tests and debugging). */
uint32_t exec_driver_pipeline_count(const exec_driver *d);
void exec_driver_describe(const exec_driver *d, uint32_t i, strbuf *out);

/* Result collector (op_result.c), driven by driver_stream.c. All take the collector's lock and
 * may be called from any thread.
 * flush: moves the chunks a thread collected (its sink local state) into the shared buffer;
 *   with !all an unordered chunk that is not full stays to collect more rows. OUT_OF_MEMORY
 *   drops the chunks not moved.
 * release: makes every buffered chunk of a seq below bound ready (UINT64_MAX: all).
 * has_ready: whether next would return a chunk now.
 * next: frees the chunk handed out before and returns the next ready one (valid until the next
 *   call or the sink state is destroyed), or NULL when none is ready. */
int exec_op_result_flush(exec_op *op, void *lstate, bool all, sqe_error *err);
int exec_op_result_release(exec_op *op, uint64_t bound, sqe_error *err);
bool exec_op_result_has_ready(exec_op *op);
const vec_chunk *exec_op_result_next(exec_op *op);

/* Monotonic clock in nanoseconds (profiling). */
uint64_t exec_now_ns(void);

#endif
