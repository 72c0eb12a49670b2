/*
 * driver.c: cuts the physical operator tree into pipelines and runs them morsel-driven on the
 * thread pool, in dependency order.
 *
 * INTERFACE (driver.h): exec_driver_create, exec_driver_run, exec_driver_destroy,
 *   exec_driver_pipeline_count, exec_driver_describe.
 * NOTES:
 * - Building walks from the root sink towards the sources (exec_int.h "roles"): streaming
 *   operators join the current pipeline, a breaker ends it (as its source) and starts one
 *   pipeline per child (sinking into it with input_idx = the child's position), a join streams
 *   its probe side and starts a pipeline for its build side. A join that is also a source (right
 *   and full outer joins) gets a "tail" pipeline after its probe pipeline, running through the
 *   probe pipeline's downstream operators into the same sink. Pipelines are recorded when their
 *   walk completes, so children come before parents: that list is a valid execution order, and
 *   the pipelines feeding one sink appear in input_idx order.
 * - Running: pipelines run one after another, each on min(threads, source_max_threads) threads
 *   (one when the source or sink is serial): n-1 tasks go to the pool and the calling thread
 *   runs the first itself, so a query makes progress even when the pool is busy. Every thread
 *   creates its local states and one output chunk per operator, then loops source_next -> push
 *   through the operators (calling again on EXEC_HAVE_MORE; EXEC_FINISHED stops the whole
 *   pipeline) -> sink, and finally combines its sink state. After all threads, the source state
 *   is destroyed, the sink finalized once its last feeding pipeline has finished, and the global
 *   states of operators whose last pipeline this was are destroyed early (memory).
 * - Errors: the first failing thread records its error and raises a flag that every thread
 *   checks between chunks (as it checks the query's cancel flag); threads then free their local
 *   states (sink states through sink_local_destroy, or sink_combine when there is none) and the
 *   run returns the first error.
 * - Profile: rows in/out per operator are counted always (thread-local, added at the end);
 *   with profiling, each source_next / op_execute / sink call is timed with CLOCK_MONOTONIC.
 */
#include <stdlib.h>
#include <string.h>

#include "exec/driver_int.h"
#include "exec/ops.h"

/* --- Building ------------------------------------------------------------------------------- */

typedef struct ptail {
    exec_op *join;
    exec_op **ops; /* downstream operators of the join, downstream first */
    uint32_t n;
} ptail;

typedef struct pbuild {
    exec_op **ops; /* downstream first */
    uint32_t n, cap;
    exec_op *source;
    exec_op *sink;
    uint32_t input;
    ptail *tails;
    uint32_t n_tails, cap_tails;
} pbuild;

static int grow(mem_tracker *t, void **arr, uint32_t *cap, uint32_t need, size_t elem,
                sqe_error *err) {
    if (need <= *cap) return SQE_OK;
    uint32_t n = *cap ? *cap * 2 : 8;
    while (n < need) n *= 2;
    void *p = mem_realloc(t, *arr, (size_t)n * elem, err);
    if (!p) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
    *arr = p;
    *cap = n;
    return SQE_OK;
}

static void pbuild_free(mem_tracker *t, pbuild *b) {
    mem_free(t, b->ops);
    for (uint32_t i = 0; i < b->n_tails; i++) mem_free(t, b->tails[i].ops);
    mem_free(t, b->tails);
}

static int walk(exec_driver *d, pbuild *b, exec_op *op, uint32_t depth, sqe_error *err);

/* Appends a pipeline: ops given downstream first are stored upstream first. */
static int add_pipeline(exec_driver *d, exec_op *source, exec_op *const *ops_down, uint32_t n,
                        exec_op *sink, uint32_t input, sqe_error *err) {
    mem_tracker *t = d->qctx->tracker;
    SQE_TRY(grow(t, (void **)&d->pipes, &d->cap_pipes, d->n_pipes + 1, sizeof(pipeline), err));
    pipeline *p = &d->pipes[d->n_pipes];
    memset(p, 0, sizeof *p);
    if (n) {
        p->ops = ARENA_ARRAY(d->qctx->arena, exec_op *, n);
        if (!p->ops) return err_nomem(err, "pipeline");
        for (uint32_t i = 0; i < n; i++) p->ops[i] = ops_down[n - 1 - i];
    }
    p->n_ops = n;
    p->source = source;
    p->sink = sink;
    p->sink_input = input;
    d->n_pipes++;
    return SQE_OK;
}

static int finish(exec_driver *d, pbuild *b, sqe_error *err) {
    if (!b->source)
        return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "pipeline into %s has no source",
                       b->sink->vt->name);
    SQE_TRY(add_pipeline(d, b->source, b->ops, b->n, b->sink, b->input, err));
    for (uint32_t i = b->n_tails; i-- > 0;)
        SQE_TRY(add_pipeline(d, b->tails[i].join, b->tails[i].ops, b->tails[i].n, b->sink,
                             b->input, err));
    return SQE_OK;
}

static int child_pipeline(exec_driver *d, exec_op *sink, uint32_t input, exec_op *child,
                          uint32_t depth, sqe_error *err) {
    pbuild b;
    memset(&b, 0, sizeof b);
    b.sink = sink;
    b.input = input;
    int rc = walk(d, &b, child, depth + 1, err);
    if (rc == SQE_OK) rc = finish(d, &b, err);
    pbuild_free(d->qctx->tracker, &b);
    return rc;
}

static int push_op(exec_driver *d, pbuild *b, exec_op *op, sqe_error *err) {
    SQE_TRY(grow(d->qctx->tracker, (void **)&b->ops, &b->cap, b->n + 1, sizeof(exec_op *), err));
    b->ops[b->n++] = op;
    return SQE_OK;
}

static int walk(exec_driver *d, pbuild *b, exec_op *op, uint32_t depth, sqe_error *err) {
    if (!op) return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "missing operator");
    if (depth > 10000) return err_set(err, SQE_ERR_NOT_SUPPORTED, "plan too deep");
    const exec_op_vtable *vt = op->vt;
    bool is_source = vt->source_next != NULL, is_op = vt->op_execute != NULL;
    bool is_sink = vt->sink != NULL;
    if (is_sink && is_op) {
        if (op->n_children != 2)
            return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "%s needs two inputs", vt->name);
        if (is_source) {
            mem_tracker *t = d->qctx->tracker;
            SQE_TRY(grow(t, (void **)&b->tails, &b->cap_tails, b->n_tails + 1, sizeof(ptail),
                         err));
            ptail *tl = &b->tails[b->n_tails];
            memset(tl, 0, sizeof *tl);
            if (b->n) {
                tl->ops = mem_alloc(t, b->n * sizeof(exec_op *), err);
                if (!tl->ops) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
                memcpy(tl->ops, b->ops, b->n * sizeof(exec_op *));
            }
            tl->n = b->n;
            tl->join = op;
            b->n_tails++;
        }
        SQE_TRY(push_op(d, b, op, err));
        SQE_TRY(child_pipeline(d, op, 1, op->children[1], depth, err));
        return walk(d, b, op->children[0], depth + 1, err);
    }
    if (is_op) {
        if (op->n_children != 1)
            return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "%s needs one input", vt->name);
        SQE_TRY(push_op(d, b, op, err));
        return walk(d, b, op->children[0], depth + 1, err);
    }
    if (is_source) {
        b->source = op;
        if (is_sink)
            for (uint32_t i = 0; i < op->n_children; i++)
                SQE_TRY(child_pipeline(d, op, i, op->children[i], depth, err));
        return SQE_OK;
    }
    return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "operator %s has no usable role",
                   vt->name);
}

static op_info *info_of(exec_driver *d, exec_op *op) {
    for (uint32_t i = 0; i < d->n_infos; i++)
        if (d->infos[i].op == op) return &d->infos[i];
    return NULL;
}

static int note_use(exec_driver *d, exec_op *op, uint32_t pipe, sqe_error *err) {
    op_info *in = info_of(d, op);
    if (!in) {
        SQE_TRY(grow(d->qctx->tracker, (void **)&d->infos, &d->cap_infos, d->n_infos + 1,
                     sizeof(op_info), err));
        in = &d->infos[d->n_infos++];
        memset(in, 0, sizeof *in);
        in->op = op;
    }
    in->last_use = pipe;
    return SQE_OK;
}

int exec_driver_create(exec_query_ctx *qctx, exec_op *root_sink, exec_pool *pool,
                       uint32_t threads, bool profile, exec_driver **out, sqe_error *err) {
    exec_driver *d = mem_calloc(qctx->tracker, sizeof *d, err);
    if (!d) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
    d->qctx = qctx;
    d->pool = pool;
    d->threads = pool ? (threads ? threads : 1) : 1;
    d->profile = profile;
    d->root = root_sink;
    int rc = SQE_OK;
    if (!root_sink->vt->sink || root_sink->n_children != 1)
        rc = err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "root operator is not a sink");
    if (rc == SQE_OK) rc = child_pipeline(d, root_sink, 0, root_sink->children[0], 0, err);
    for (uint32_t i = 0; rc == SQE_OK && i < d->n_pipes; i++) {
        pipeline *p = &d->pipes[i];
        rc = note_use(d, p->source, i, err);
        for (uint32_t k = 0; rc == SQE_OK && k < p->n_ops; k++) rc = note_use(d, p->ops[k], i, err);
        if (rc == SQE_OK) rc = note_use(d, p->sink, i, err);
        if (rc == SQE_OK) info_of(d, p->sink)->sink_feeds++;
    }
    if (rc != SQE_OK) {
        exec_driver_destroy(d);
        return rc;
    }
    *out = d;
    return SQE_OK;
}

uint32_t exec_driver_pipeline_count(const exec_driver *d) { return d->n_pipes; }

void exec_driver_describe(const exec_driver *d, uint32_t i, strbuf *out) {
    if (i >= d->n_pipes) return;
    const pipeline *p = &d->pipes[i];
    strbuf_puts(out, p->source->vt->name);
    for (uint32_t k = 0; k < p->n_ops; k++) {
        strbuf_puts(out, " -> ");
        strbuf_puts(out, p->ops[k]->vt->name);
    }
    strbuf_printf(out, " -> %s[%u]", p->sink->vt->name, p->sink_input);
}

static void destroy_states(exec_driver *d, op_info *in) {
    exec_op *op = in->op;
    if (in->source_live) {
        if (op->vt->source_destroy) op->vt->source_destroy(op, op->source_gstate);
        op->source_gstate = NULL;
        in->source_live = false;
    }
    if (in->sink_live) {
        if (op->vt->sink_destroy) op->vt->sink_destroy(op, op->sink_gstate);
        op->sink_gstate = NULL;
        in->sink_live = false;
    }
}

void exec_driver_destroy(exec_driver *d) {
    if (!d) return;
    driver_stream_destroy(d);
    mem_tracker *t = d->qctx->tracker;
    /* sources first: a breaker's source state may refer to its sink state */
    for (uint32_t i = 0; i < d->n_infos; i++) {
        op_info *in = &d->infos[i];
        if (in->source_live) {
            if (in->op->vt->source_destroy) in->op->vt->source_destroy(in->op, in->op->source_gstate);
            in->op->source_gstate = NULL;
            in->source_live = false;
        }
    }
    for (uint32_t i = 0; i < d->n_infos; i++) destroy_states(d, &d->infos[i]);
    mem_free(t, d->infos);
    mem_free(t, d->pipes);
    mem_free(t, d);
}

/* --- Running -------------------------------------------------------------------------------- */

typedef struct targ {
    prun *run;
    uint32_t idx;
} targ;

void driver_record_error(prun *run, int rc, const sqe_error *err) {
    pthread_mutex_lock(&run->lock);
    if (run->rc == SQE_OK) {
        run->rc = rc;
        if (err) run->err = *err;
        else err_set(&run->err, rc, "query failed");
    }
    pthread_mutex_unlock(&run->lock);
    atomic_store(&run->failed, 1);
    atomic_store(&run->stop, 1);
}

static int run_op(trun *t, uint32_t i, const vec_chunk *in, bool *finished);

int driver_push(trun *t, uint32_t i, const vec_chunk *in, bool *finished) {
    const pipeline *p = t->p;
    uint64_t t0 = 0;
    if (i == p->n_ops) {
        exec_op *sink = p->sink;
        t->rows_in[p->n_ops + 1] += in->count;
        if (t->profile) t0 = exec_now_ns();
        int rc = sink->vt->sink(sink, sink->sink_gstate, t->sink_l, in, t->err);
        if (t->profile) t->nanos[p->n_ops + 1] += exec_now_ns() - t0;
        if (rc == SQE_OK && t->after_sink) rc = t->after_sink(t);
        return rc;
    }
    t->rows_in[i + 1] += in->count;
    return run_op(t, i, in, finished);
}

/* Runs operator i on its input until it needs new input, pushing every output down. A yield
 * (t->yield, raised after a sink call) unwinds the pushes; operators that still had output for
 * their input are marked in t->more, and driver_resume continues them. */
static int run_op(trun *t, uint32_t i, const vec_chunk *in, bool *finished) {
    exec_op *op = t->p->ops[i];
    vec_chunk *out = &t->chunks[i];
    uint64_t t0 = 0;
    for (;;) {
        vec_chunk_reset(out);
        out->seq = in->seq;
        exec_op_result res = EXEC_NEED_INPUT;
        if (t->profile) t0 = exec_now_ns();
        int rc = op->vt->op_execute(op, t->op_l[i], in, out, &res, t->err);
        if (t->profile) t->nanos[i + 1] += exec_now_ns() - t0;
        if (rc != SQE_OK) return rc;
        if (out->count) {
            t->rows_out[i + 1] += out->count;
            SQE_TRY(driver_push(t, i + 1, out, finished));
            if (*finished) return SQE_OK;
        }
        if (res == EXEC_HAVE_MORE) {
            if (t->yield) {
                t->more[i] = true;
                return SQE_OK;
            }
            if (atomic_load_explicit(&t->run->stop, memory_order_relaxed)) return SQE_OK;
            /* an operator with much output per input (a cross join) must not outlive a
             * cancel or the time limit: check per output chunk, not only per source chunk */
            SQE_TRY(exec_check_cancel(t->run->d->qctx, t->err));
            continue;
        }
        if (res == EXEC_FINISHED) *finished = true;
        return SQE_OK;
    }
}

bool driver_has_more(const trun *t) {
    for (uint32_t i = 0; i < t->p->n_ops; i++)
        if (t->more[i]) return true;
    return false;
}

int driver_resume(trun *t, bool *finished) {
    t->yield = false;
    for (uint32_t i = t->p->n_ops; i-- > 0;) {
        if (!t->more[i]) continue;
        t->more[i] = false;
        const vec_chunk *in = i == 0 ? &t->src_chunk : &t->chunks[i - 1];
        SQE_TRY(run_op(t, i, in, finished));
        if (*finished || t->yield) return SQE_OK;
    }
    return SQE_OK;
}

int driver_thread_setup(trun *t, sqe_error *err) {
    const pipeline *p = t->p;
    mem_tracker *tr = t->run->d->qctx->tracker;
    uint32_t n = p->n_ops;
    t->op_l = mem_calloc(tr, (n + 1) * sizeof(void *), err);
    t->op_l_ok = mem_calloc(tr, (n + 1) * sizeof(bool), err);
    t->more = mem_calloc(tr, (n + 1) * sizeof(bool), err);
    t->chunks = mem_calloc(tr, (n + 1) * sizeof(vec_chunk), err);
    t->rows_in = mem_calloc(tr, (n + 2) * sizeof(uint64_t) * 3, err);
    if (!t->op_l || !t->op_l_ok || !t->more || !t->chunks || !t->rows_in)
        return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
    t->rows_out = t->rows_in + (n + 2);
    t->nanos = t->rows_out + (n + 2);
    exec_op *src = p->source;
    if (src->vt->source_local_init) {
        SQE_TRY(src->vt->source_local_init(src, src->source_gstate, &t->src_l, err));
    }
    t->src_l_ok = true;
    for (uint32_t i = 0; i < n; i++) {
        exec_op *op = p->ops[i];
        /* compiling a thread's expression states can take long (a 50k-term filter) */
        SQE_TRY(exec_check_cancel(t->run->d->qctx, err));
        if (op->vt->op_local_init) SQE_TRY(op->vt->op_local_init(op, &t->op_l[i], err));
        t->op_l_ok[i] = true;
    }
    if (p->sink->vt->sink_local_init)
        SQE_TRY(p->sink->vt->sink_local_init(p->sink, p->sink->sink_gstate, p->sink_input,
                                             &t->sink_l, err));
    t->sink_l_ok = true;
    SQE_TRY(exec_chunk_create_for(src, &t->src_chunk, err));
    for (uint32_t i = 0; i < n; i++) SQE_TRY(exec_chunk_create_for(p->ops[i], &t->chunks[i], err));
    return SQE_OK;
}

void driver_thread_teardown(trun *t, bool combined) {
    const pipeline *p = t->p;
    mem_tracker *tr = t->run->d->qctx->tracker;
    if (t->sink_l_ok && !combined) {
        exec_op *sink = p->sink;
        if (sink->vt->sink_local_destroy)
            sink->vt->sink_local_destroy(sink, sink->sink_gstate, t->sink_l);
        else if (sink->vt->sink_combine) {
            sqe_error ignored;
            sink->vt->sink_combine(sink, sink->sink_gstate, t->sink_l, &ignored);
        }
    }
    if (t->op_l_ok)
        for (uint32_t i = 0; i < p->n_ops; i++)
            if (t->op_l_ok[i] && p->ops[i]->vt->op_local_destroy)
                p->ops[i]->vt->op_local_destroy(p->ops[i], t->op_l[i]);
    if (t->src_l_ok && p->source->vt->source_local_destroy)
        p->source->vt->source_local_destroy(p->source, t->src_l);
    vec_chunk_destroy(&t->src_chunk);
    if (t->chunks)
        for (uint32_t i = 0; i < p->n_ops; i++) vec_chunk_destroy(&t->chunks[i]);
    if (t->rows_in) {
        uint32_t n = p->n_ops;
        for (uint32_t i = 0; i <= n + 1; i++) {
            exec_op *op = i == 0 ? p->source : i <= n ? p->ops[i - 1] : p->sink;
            if (t->rows_in[i]) atomic_fetch_add(&op->profile.rows_in, t->rows_in[i]);
            if (t->rows_out[i]) atomic_fetch_add(&op->profile.rows_out, t->rows_out[i]);
            if (t->nanos[i]) atomic_fetch_add(&op->profile.nanos, t->nanos[i]);
        }
    }
    mem_free(tr, t->op_l);
    mem_free(tr, t->op_l_ok);
    mem_free(tr, t->more);
    mem_free(tr, t->chunks);
    mem_free(tr, t->rows_in);
}

static int thread_run(prun *run, sqe_error *err) {
    trun t;
    memset(&t, 0, sizeof t);
    t.run = run;
    t.p = run->p;
    t.profile = run->d->profile;
    t.err = err;
    const pipeline *p = run->p;
    exec_op *src = p->source;
    exec_query_ctx *q = run->d->qctx;
    bool combined = false;
    int rc = driver_thread_setup(&t, err);
    while (rc == SQE_OK) {
        if (atomic_load_explicit(&run->stop, memory_order_relaxed)) break;
        if ((rc = exec_check_cancel(q, err))) break;
        vec_chunk_reset(&t.src_chunk);
        uint64_t t0 = t.profile ? exec_now_ns() : 0;
        rc = src->vt->source_next(src, src->source_gstate, t.src_l, &t.src_chunk, err);
        if (t.profile) t.nanos[0] += exec_now_ns() - t0;
        if (rc != SQE_OK || t.src_chunk.count == 0) break;
        t.rows_out[0] += t.src_chunk.count;
        bool finished = false;
        rc = driver_push(&t, 0, &t.src_chunk, &finished);
        if (rc == SQE_OK && finished) {
            atomic_store(&run->stop, 1);
            break;
        }
    }
    if (rc != SQE_OK) driver_record_error(run, rc, err);
    if (rc == SQE_OK && t.sink_l_ok && !atomic_load(&run->failed)) {
        exec_op *sink = p->sink;
        combined = true;
        if (sink->vt->sink_combine) {
            uint64_t t0 = t.profile ? exec_now_ns() : 0;
            rc = sink->vt->sink_combine(sink, sink->sink_gstate, t.sink_l, err);
            if (t.profile) t.nanos[p->n_ops + 1] += exec_now_ns() - t0;
            if (rc != SQE_OK) driver_record_error(run, rc, err);
        }
    }
    driver_thread_teardown(&t, combined);
    return rc;
}

static void thread_task(void *arg) {
    targ *a = arg;
    prun *run = a->run;
    sqe_error err;
    memset(&err, 0, sizeof err);
    thread_run(run, &err);
    pthread_mutex_lock(&run->lock);
    if (--run->pending == 0) pthread_cond_broadcast(&run->done);
    pthread_mutex_unlock(&run->lock);
}

uint32_t driver_pipeline_threads(exec_driver *d, const pipeline *p) {
    uint32_t n = d->threads;
    if (p->source->vt->source_serial || p->sink->vt->sink_serial) n = 1;
    if (n > 1 && p->source->vt->source_max_threads) {
        uint32_t m = p->source->vt->source_max_threads(p->source, p->source->source_gstate);
        if (m < n) n = m;
    }
    return n ? n : 1;
}

static int run_threads(exec_driver *d, pipeline *p, uint32_t n, sqe_error *err) {
    prun run;
    memset(&run, 0, sizeof run);
    run.d = d;
    run.p = p;
    atomic_init(&run.stop, 0);
    atomic_init(&run.failed, 0);
    pthread_mutex_init(&run.lock, NULL);
    pthread_cond_init(&run.done, NULL);
    run.pending = n;
    targ args_small[8];
    exec_task tasks_small[8];
    targ *args = args_small;
    exec_task *tasks = tasks_small;
    if (n > 8) {
        args = mem_alloc(d->qctx->tracker, n * sizeof(targ), err);
        tasks = mem_alloc(d->qctx->tracker, n * sizeof(exec_task), err);
        if (!args || !tasks) {
            if (args) mem_free(d->qctx->tracker, args);
            if (tasks) mem_free(d->qctx->tracker, tasks);
            pthread_cond_destroy(&run.done);
            pthread_mutex_destroy(&run.lock);
            return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        args[i] = (targ){&run, i};
        tasks[i] = (exec_task){thread_task, &args[i], NULL};
    }
    if (n > 1) exec_pool_submit(d->pool, tasks + 1, n - 1);
    thread_task(&args[0]);
    pthread_mutex_lock(&run.lock);
    while (run.pending > 0) pthread_cond_wait(&run.done, &run.lock);
    pthread_mutex_unlock(&run.lock);
    pthread_cond_destroy(&run.done);
    pthread_mutex_destroy(&run.lock);
    if (args != args_small) {
        mem_free(d->qctx->tracker, args);
        mem_free(d->qctx->tracker, tasks);
    }
    if (run.rc != SQE_OK) {
        if (err) *err = run.err;
        return run.rc;
    }
    return SQE_OK;
}

int driver_pipeline_begin(exec_driver *d, uint32_t pi, sqe_error *err) {
    pipeline *p = &d->pipes[pi];
    SQE_TRY(exec_check_cancel(d->qctx, err));
    op_info *si = info_of(d, p->sink), *so = info_of(d, p->source);
    for (uint32_t k = 0; k < p->n_ops; k++) {
        exec_op *op = p->ops[k];
        if (op->vt->sink && !info_of(d, op)->sink_live)
            return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR,
                           "%s runs before its build side", op->vt->name);
    }
    if (!si->sink_live) {
        void *g = NULL;
        if (p->sink->vt->sink_init) SQE_TRY(p->sink->vt->sink_init(p->sink, &g, err));
        p->sink->sink_gstate = g;
        si->sink_live = true;
    }
    if (!so->source_live) {
        void *g = NULL;
        if (p->source->vt->source_init) SQE_TRY(p->source->vt->source_init(p->source, &g, err));
        p->source->source_gstate = g;
        so->source_live = true;
    }
    return SQE_OK;
}

int driver_pipeline_end(exec_driver *d, uint32_t pi, sqe_error *err) {
    pipeline *p = &d->pipes[pi];
    op_info *si = info_of(d, p->sink), *so = info_of(d, p->source);
    if (p->source->vt->source_destroy) p->source->vt->source_destroy(p->source, p->source->source_gstate);
    p->source->source_gstate = NULL;
    so->source_live = false;
    if (--si->sink_feeds == 0 && p->sink->vt->sink_finalize) {
        uint64_t t0 = d->profile ? exec_now_ns() : 0;
        SQE_TRY(p->sink->vt->sink_finalize(p->sink, p->sink->sink_gstate, err));
        if (d->profile) atomic_fetch_add(&p->sink->profile.nanos, exec_now_ns() - t0);
    }
    for (uint32_t i = 0; i < d->n_infos; i++) {
        op_info *in = &d->infos[i];
        if (in->last_use == (int64_t)pi && in->op != d->root) destroy_states(d, in);
    }
    return SQE_OK;
}

int driver_run_pipeline(exec_driver *d, uint32_t pi, sqe_error *err) {
    SQE_TRY(driver_pipeline_begin(d, pi, err));
    pipeline *p = &d->pipes[pi];
    SQE_TRY(run_threads(d, p, driver_pipeline_threads(d, p), err));
    return driver_pipeline_end(d, pi, err);
}

int exec_driver_run(exec_driver *d, sqe_error *err) {
    for (uint32_t i = 0; i < d->n_pipes; i++) SQE_TRY(driver_run_pipeline(d, i, err));
    d->next_pipe = d->n_pipes;
    return SQE_OK;
}
