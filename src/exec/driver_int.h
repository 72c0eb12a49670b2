/*
 * driver_int.h (private to driver.c and driver_stream.c): the driver's pipelines, its run of one
 * pipeline and the per-thread state of a run, shared by the blocking runner (driver.c) and the
 * streaming runner of the result pipelines (driver_stream.c).
 */
#ifndef SQE_EXEC_DRIVER_INT_H
#define SQE_EXEC_DRIVER_INT_H

#include "exec/driver.h"

typedef struct pipeline {
    exec_op *source;
    exec_op **ops;     /* streaming operators, upstream first */
    uint32_t n_ops;
    exec_op *sink;
    uint32_t sink_input;
} pipeline;

typedef struct op_info {
    exec_op *op;
    bool source_live, sink_live;
    uint32_t sink_feeds; /* pipelines feeding its sink not yet finished */
    int64_t last_use;    /* last pipeline using it */
} op_info;

typedef struct driver_stream driver_stream;

struct exec_driver {
    exec_query_ctx *qctx;
    exec_pool *pool;
    uint32_t threads;
    bool profile;
    exec_op *root;
    pipeline *pipes;
    uint32_t n_pipes, cap_pipes;
    op_info *infos;
    uint32_t n_infos, cap_infos;
    /* streaming (driver_stream.c) */
    uint32_t next_pipe;     /* first pipeline not finished */
    driver_stream *stream;  /* the running result pipeline, or NULL */
    int stream_rc;          /* sticky error of exec_driver_next */
    sqe_error stream_err;
};

/* One run of one pipeline: the flags every thread checks between chunks and the first error. */
typedef struct prun {
    exec_driver *d;
    pipeline *p;
    _Atomic int stop;   /* finished, failed or canceled: threads stop pulling */
    _Atomic int failed;
    pthread_mutex_t lock;
    pthread_cond_t done;
    uint32_t pending;
    int rc;
    sqe_error err;
} prun;

/* One thread's share of a run: its local states and one output chunk per operator. */
typedef struct trun {
    prun *run;
    const pipeline *p;
    bool profile;
    void *src_l;
    bool src_l_ok;
    void **op_l;
    bool *op_l_ok;
    void *sink_l;
    bool sink_l_ok;
    vec_chunk src_chunk;
    vec_chunk *chunks;
    uint64_t *rows_in, *rows_out, *nanos; /* [0] source, [1..n_ops] ops, [n_ops+1] sink */
    sqe_error *err;
    /* Yielding (streaming runs): after_sink, when set, runs after every sink call and may raise
     * yield, which unwinds the pushes; more[i] marks operator i as having output left for its
     * current input. */
    int (*after_sink)(struct trun *t);
    void *owner; /* for after_sink */
    bool yield;
    bool *more;
} trun;

/* Records the first error of a run and raises its stop flags. Takes run->lock. */
void driver_record_error(prun *run, int rc, const sqe_error *err);
/* Creates t's local states and chunks (t->run, t->p, t->profile, t->err set by the caller). On
 * error what was created is released by driver_thread_teardown. */
int driver_thread_setup(trun *t, sqe_error *err);
/* Pushes a chunk from operator i (0 = the source's chunk) down to the sink; *finished when an
 * operator reports that no more output will come. */
int driver_push(trun *t, uint32_t i, const vec_chunk *in, bool *finished);
/* Whether a yield left operators with output for their current input. */
bool driver_has_more(const trun *t);
/* Continues the operators a yield interrupted, deepest first (clears t->yield first); may yield
 * again. */
int driver_resume(trun *t, bool *finished);
/* Releases t's states; the sink's local state through sink_local_destroy unless it was combined.
 * Adds t's row and time counters to the operators' profiles. */
void driver_thread_teardown(trun *t, bool combined);
/* Threads pipeline p runs on. */
uint32_t driver_pipeline_threads(exec_driver *d, const pipeline *p);
/* Before pipeline pi runs: creates its sink's and source's global states when not yet alive. */
int driver_pipeline_begin(exec_driver *d, uint32_t pi, sqe_error *err);
/* After every thread of pipeline pi finished: destroys its source state, finalizes the sink
 * after its last feeding pipeline, frees the states of operators used for the last time. */
int driver_pipeline_end(exec_driver *d, uint32_t pi, sqe_error *err);
/* Runs pipeline pi to completion on the pool and the calling thread (begin, threads, end). */
int driver_run_pipeline(exec_driver *d, uint32_t pi, sqe_error *err);
/* Stops and frees the streaming run (driver_stream.c); no-op without one. */
void driver_stream_destroy(exec_driver *d);

#endif
