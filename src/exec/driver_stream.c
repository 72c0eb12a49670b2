/*
 * driver_stream.c: runs the pipelines into the result collector while the reader reads them, so
 * a large result is never held whole: work stops when the reader stops reading.
 *
 * INTERFACE: exec_driver_next (driver.h); driver_stream_destroy (driver_int.h).
 * NOTES:
 * - Pipelines that feed other sinks (hash join builds, aggregations, sorts) run to completion
 *   first, as in exec_driver_run. A pipeline into the result collector gets one "slot" per
 *   thread it may use: a slot is one thread's local states (trun), kept between runs, so any
 *   thread can run it a source chunk at a time. Slots run as pool tasks, so producing overlaps
 *   with the reader's own work; the reader runs the oldest slot itself when the pool does not
 *   get to it (busy with other queries) or the buffer is too full to hand it over.
 * - Backpressure: a pool task parks its slot (returns the pool thread) once the collector holds
 *   a full buffer (STREAM_BUFFER_BYTES) and the reader has something to read, or its slot is
 *   not the one that holds the oldest rows back. The reader resubmits parked slots when the
 *   buffer fell below half. No pool thread ever waits for a reader, so a client that stops
 *   reading costs memory up to the buffer and no threads.
 * - Order: every slot publishes its "frontier", the seq of the source chunk it works on (seqs
 *   grow in the order sources hand out morsels). Everything a slot will still produce has a
 *   seq >= its frontier, so buffered chunks below the smallest frontier of the unfinished slots
 *   are final and move to the reader in seq order (op_result.c). The slot with the smallest
 *   frontier never parks for lack of room while nothing is ready, so the stream cannot stall.
 * - Locks: the run's lock guards the slots; the collector's own lock nests inside it.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "exec/driver_int.h"
#include "exec/ops.h"

/* Finished rows the collector may hold before producers park: 8 MiB, or a quarter of the
 * smallest memory limit above the query (at least 256 KiB). */
#define STREAM_BUFFER_BYTES ((int64_t)8 << 20)
#define STREAM_BUFFER_MIN ((int64_t)256 << 10)

typedef struct stream_slot {
    driver_stream *s;
    trun t;
    sqe_error err;
    exec_task task;
    uint64_t frontier; /* seq of the source chunk in work; 0 before the first */
    uint64_t queued_at; /* exec_now_ns() when its pool task was queued */
    bool set_up, running, queued, done;
    bool by_reader;    /* run by the reader's thread now */
} stream_slot;

struct driver_stream {
    exec_driver *d;
    uint32_t pi;
    prun run;                /* stop/failed flags, first error; run.lock guards what follows */
    pthread_cond_t progress; /* a slot stepped, parked or finished */
    uint32_t n, n_done;
    uint32_t outstanding;    /* pool tasks queued or running */
    int64_t buffer_bytes;    /* see STREAM_BUFFER_BYTES */
    stream_slot slots[];
};

static int64_t buffered(const driver_stream *s) {
    const mem_tracker *t = s->d->root->qctx->tracker;
    return t ? atomic_load(&t->used) : 0;
}

/* The unfinished slot with the smallest frontier (the first of equals), or NULL. Under lock. */
static stream_slot *oldest_slot(driver_stream *s) {
    stream_slot *best = NULL;
    for (uint32_t i = 0; i < s->n; i++) {
        stream_slot *sl = &s->slots[i];
        if (!sl->done && (!best || sl->frontier < best->frontier)) best = sl;
    }
    return best;
}

/* Moves every buffered chunk that no slot can precede any more to the reader: those below the
 * oldest frontier, and those of the oldest frontier itself (only its slot produces that seq,
 * in order). Under lock. */
static int release(driver_stream *s, sqe_error *err) {
    stream_slot *o = oldest_slot(s);
    return exec_op_result_release(s->d->root, o ? o->frontier + 1 : UINT64_MAX, err);
}

static bool should_park(driver_stream *s, stream_slot *sl);

/* After every sink call of a slot: moves its rows to the collector, releases what became final
 * and decides whether the slot should stop here (yield): the reader's thread as soon as there
 * is something to read, a pool thread when it should park. */
static int slot_after_sink(trun *t) {
    stream_slot *sl = t->owner;
    driver_stream *s = sl->s;
    SQE_TRY(exec_op_result_flush(s->d->root, t->sink_l, false, t->err));
    pthread_mutex_lock(&s->run.lock);
    int rc = release(s, t->err);
    bool ready = exec_op_result_has_ready(s->d->root);
    t->yield = sl->by_reader ? ready : should_park(s, sl);
    if (ready) pthread_cond_broadcast(&s->progress);
    pthread_mutex_unlock(&s->run.lock);
    return rc;
}

/* Runs one source chunk of sl through the pipeline into the collector. The caller owns sl
 * (running). *exhausted when the slot has no more work (source empty, or the run stopped). */
static int slot_step(driver_stream *s, stream_slot *sl, bool *exhausted) {
    trun *t = &sl->t;
    *exhausted = false;
    if (!sl->set_up) {
        sl->set_up = true;
        t->run = &s->run;
        t->p = &s->d->pipes[s->pi];
        t->profile = s->d->profile;
        t->err = &sl->err;
        t->after_sink = slot_after_sink;
        t->owner = sl;
        SQE_TRY(driver_thread_setup(t, &sl->err));
    }
    if (atomic_load(&s->run.stop)) {
        *exhausted = true;
        return SQE_OK;
    }
    SQE_TRY(exec_check_cancel(s->d->qctx, &sl->err));
    bool finished = false;
    if (driver_has_more(t)) {
        /* operators a yield interrupted continue with their input */
        SQE_TRY(driver_resume(t, &finished));
        if (finished) atomic_store(&s->run.stop, 1);
        return SQE_OK;
    }
    t->yield = false;
    exec_op *src = t->p->source;
    vec_chunk_reset(&t->src_chunk);
    uint64_t t0 = t->profile ? exec_now_ns() : 0;
    SQE_TRY(src->vt->source_next(src, src->source_gstate, t->src_l, &t->src_chunk, &sl->err));
    if (t->profile) t->nanos[0] += exec_now_ns() - t0;
    if (t->src_chunk.count == 0) {
        *exhausted = true;
        return SQE_OK;
    }
    t->rows_out[0] += t->src_chunk.count;
    if (t->src_chunk.seq) {
        pthread_mutex_lock(&s->run.lock);
        sl->frontier = t->src_chunk.seq;
        pthread_mutex_unlock(&s->run.lock);
    }
    SQE_TRY(driver_push(t, 0, &t->src_chunk, &finished));
    if (finished) atomic_store(&s->run.stop, 1); /* e.g. LIMIT reached: every slot ends */
    return SQE_OK;
}

/* Releases a slot's local states; with ok its collected rows go to the collector first. */
static int slot_finish(driver_stream *s, stream_slot *sl, bool ok) {
    if (!sl->set_up) return SQE_OK;
    int rc = SQE_OK;
    bool combined = false;
    trun *t = &sl->t;
    if (ok && t->sink_l_ok) {
        exec_op *sink = t->p->sink;
        combined = true;
        rc = sink->vt->sink_combine(sink, sink->sink_gstate, t->sink_l, &sl->err);
    }
    driver_thread_teardown(t, combined);
    sl->set_up = false;
    return rc;
}

/* After a step of sl by its owner: records an error, finishes an exhausted slot, releases what
 * became final and wakes the reader. Returns with the lock held. */
static void slot_after(driver_stream *s, stream_slot *sl, int rc, bool exhausted) {
    if (rc != SQE_OK) driver_record_error(&s->run, rc, &sl->err);
    if (rc != SQE_OK || exhausted) {
        int frc = slot_finish(s, sl, rc == SQE_OK && !atomic_load(&s->run.failed));
        if (frc != SQE_OK) driver_record_error(&s->run, frc, &sl->err);
    }
    pthread_mutex_lock(&s->run.lock);
    if ((rc != SQE_OK || exhausted) && !sl->done) {
        sl->done = true;
        s->n_done++;
    }
    sqe_error rerr;
    int rrc = release(s, &rerr);
    pthread_cond_broadcast(&s->progress);
    if (rrc != SQE_OK) {
        pthread_mutex_unlock(&s->run.lock);
        driver_record_error(&s->run, rrc, &rerr);
        pthread_mutex_lock(&s->run.lock);
    }
}

/* Whether a pool thread should give sl back: the buffer is full and either the reader has
 * something to read or sl does not hold the oldest rows back. Under lock. */
static bool should_park(driver_stream *s, stream_slot *sl) {
    if (atomic_load(&s->run.stop)) return false; /* let it finish */
    if (buffered(s) < s->buffer_bytes) return false;
    return exec_op_result_has_ready(s->d->root) || oldest_slot(s) != sl;
}

static void slot_task(void *arg) {
    stream_slot *sl = arg;
    driver_stream *s = sl->s;
    pthread_mutex_lock(&s->run.lock);
    sl->queued = false;
    bool go = !sl->running && !sl->done;
    if (go) sl->running = true;
    while (go) {
        pthread_mutex_unlock(&s->run.lock);
        bool exhausted = false;
        int rc = slot_step(s, sl, &exhausted);
        slot_after(s, sl, rc, exhausted);
        if (sl->done || should_park(s, sl)) break;
    }
    if (go) sl->running = false;
    s->outstanding--;
    pthread_cond_broadcast(&s->progress);
    pthread_mutex_unlock(&s->run.lock);
}

/* Waits for progress at most ms milliseconds. Under lock. */
static void wait_progress(driver_stream *s, long ms) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += ms * 1000000L;
    ts.tv_sec += ts.tv_nsec / 1000000000L;
    ts.tv_nsec %= 1000000000L;
    pthread_cond_timedwait(&s->progress, &s->run.lock, &ts);
}

/* Makes progress for the reader. Slots go to the pool while the buffer has room, so producing
 * overlaps with the reader's own work (encoding, sending); the reader waits for them. It runs
 * the oldest slot itself, a chunk at a time, when that slot is not running and the pool has not
 * started it within POOL_GRACE_NS (the pool is busy with other queries), or when the buffer is
 * too full to hand it to the pool: the oldest rows always make progress. */
#define POOL_GRACE_NS 2000000ull
static void stream_pump(driver_stream *s) {
    exec_pool *pool = s->d->pool;
    pthread_mutex_lock(&s->run.lock);
    if (s->run.rc != SQE_OK || s->n_done == s->n || exec_op_result_has_ready(s->d->root)) {
        pthread_mutex_unlock(&s->run.lock);
        return;
    }
    uint64_t now = exec_now_ns();
    if (pool && buffered(s) < s->buffer_bytes / 2) {
        for (uint32_t i = 0; i < s->n; i++) {
            stream_slot *sl = &s->slots[i];
            if (sl->done || sl->running || sl->queued) continue;
            sl->queued = true;
            sl->queued_at = now;
            s->outstanding++;
            exec_pool_submit(pool, &sl->task, 1);
        }
    }
    stream_slot *mine = oldest_slot(s);
    if (mine && (mine->running || (mine->queued && now - mine->queued_at < POOL_GRACE_NS)))
        mine = NULL;
    if (mine && mine->queued) {
        if (exec_pool_cancel(pool, &mine->task)) {
            mine->queued = false;
            s->outstanding--;
        } else {
            mine = NULL; /* its task is starting */
        }
    }
    if (!mine) {
        wait_progress(s, 1);
        pthread_mutex_unlock(&s->run.lock);
        return;
    }
    mine->running = true;
    mine->by_reader = true;
    pthread_mutex_unlock(&s->run.lock);
    bool exhausted = false;
    int rc = slot_step(s, mine, &exhausted);
    slot_after(s, mine, rc, exhausted);
    mine->running = false;
    mine->by_reader = false;
    pthread_cond_broadcast(&s->progress);
    pthread_mutex_unlock(&s->run.lock);
}

/* Waits until no pool task of s is queued or running (queued ones are taken back). */
static void stream_quiesce(driver_stream *s) {
    pthread_mutex_lock(&s->run.lock);
    for (uint32_t i = 0; i < s->n; i++) {
        stream_slot *sl = &s->slots[i];
        if (sl->queued && exec_pool_cancel(s->d->pool, &sl->task)) {
            sl->queued = false;
            s->outstanding--;
        }
    }
    while (s->outstanding > 0) pthread_cond_wait(&s->progress, &s->run.lock);
    pthread_mutex_unlock(&s->run.lock);
}

static int stream_start(exec_driver *d, uint32_t pi, sqe_error *err) {
    SQE_TRY(driver_pipeline_begin(d, pi, err));
    uint32_t n = driver_pipeline_threads(d, &d->pipes[pi]);
    driver_stream *s = mem_calloc(d->qctx->tracker, sizeof *s + n * sizeof(stream_slot), err);
    if (!s) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
    s->d = d;
    s->pi = pi;
    s->n = n;
    s->buffer_bytes = STREAM_BUFFER_BYTES;
    for (const mem_tracker *t = d->qctx->tracker; t; t = t->parent)
        if (t->limit > 0 && t->limit / 4 < s->buffer_bytes) s->buffer_bytes = t->limit / 4;
    if (s->buffer_bytes < STREAM_BUFFER_MIN) s->buffer_bytes = STREAM_BUFFER_MIN;
    s->run.d = d;
    s->run.p = &d->pipes[pi];
    atomic_init(&s->run.stop, 0);
    atomic_init(&s->run.failed, 0);
    pthread_mutex_init(&s->run.lock, NULL);
    pthread_cond_init(&s->run.done, NULL);
    pthread_cond_init(&s->progress, NULL);
    for (uint32_t i = 0; i < n; i++) {
        s->slots[i].s = s;
        s->slots[i].task = (exec_task){slot_task, &s->slots[i], NULL};
    }
    d->stream = s;
    return SQE_OK;
}

void driver_stream_destroy(exec_driver *d) {
    driver_stream *s = d->stream;
    if (!s) return;
    atomic_store(&s->run.stop, 1);
    stream_quiesce(s);
    for (uint32_t i = 0; i < s->n; i++)
        if (!s->slots[i].done) slot_finish(s, &s->slots[i], false);
    pthread_cond_destroy(&s->progress);
    pthread_cond_destroy(&s->run.done);
    pthread_mutex_destroy(&s->run.lock);
    d->stream = NULL;
    mem_free(d->qctx->tracker, s);
}

/* After every slot of the running result pipeline finished: the rest of its rows become
 * readable and the pipeline ends. */
static int stream_end(exec_driver *d, sqe_error *err) {
    driver_stream *s = d->stream;
    stream_quiesce(s);
    if (s->run.rc != SQE_OK) {
        if (err) *err = s->run.err;
        return s->run.rc;
    }
    uint32_t pi = s->pi;
    driver_stream_destroy(d);
    SQE_TRY(exec_op_result_release(d->root, UINT64_MAX, err));
    SQE_TRY(driver_pipeline_end(d, pi, err));
    d->next_pipe = pi + 1;
    return SQE_OK;
}

int exec_driver_next(exec_driver *d, const vec_chunk **out, sqe_error *err) {
    *out = NULL;
    while (d->stream_rc == SQE_OK) {
        const vec_chunk *c = exec_op_result_next(d->root);
        if (c) {
            *out = c;
            return SQE_OK;
        }
        sqe_error local;
        memset(&local, 0, sizeof local);
        int rc = SQE_OK;
        driver_stream *s = d->stream;
        if (s) {
            pthread_mutex_lock(&s->run.lock);
            bool over = s->n_done == s->n || s->run.rc != SQE_OK;
            pthread_mutex_unlock(&s->run.lock);
            if (over)
                rc = stream_end(d, &local);
            else
                stream_pump(s);
        } else if (d->next_pipe >= d->n_pipes) {
            return SQE_OK;
        } else if (d->pipes[d->next_pipe].sink != d->root) {
            rc = driver_run_pipeline(d, d->next_pipe, &local);
            if (rc == SQE_OK) d->next_pipe++;
        } else {
            rc = stream_start(d, d->next_pipe, &local);
        }
        if (rc != SQE_OK) {
            d->stream_rc = rc;
            d->stream_err = local;
            driver_stream_destroy(d);
        }
    }
    if (err) *err = d->stream_err;
    return d->stream_rc;
}
