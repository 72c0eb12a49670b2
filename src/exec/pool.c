/*
 * pool.c: the process-wide thread pool: a fixed set of pthreads serving one FIFO task queue.
 *
 * INTERFACE: exec_pool_create, exec_pool_destroy, exec_pool_size, exec_pool_submit and
 *   exec_pool_cancel (driver.h).
 * NOTES: queries share the pool; each submits the per-thread tasks of its current pipeline and
 * waits for them on its own condition variable (the driver), so the pool itself knows nothing
 * about queries. Tasks are caller-owned structs linked into the queue, so submitting never
 * allocates and never fails. FIFO order is the only fairness for now (a big query's tasks are
 * few, one per thread and pipeline, and morsels are handed out inside them, so a small query
 * waits at most for the tasks queued before it, not for the big query's whole scan).
 */
#include <stdlib.h>
#include <time.h>

#include "common/clock.h"
#include "exec/driver.h"

struct exec_pool {
    pthread_t *threads;
    uint32_t n_threads;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    exec_task *head, *tail;
    bool shutdown;
};

static void *pool_worker(void *arg) {
    exec_pool *pool = arg;
    pthread_mutex_lock(&pool->lock);
    for (;;) {
        while (!pool->head && !pool->shutdown) pthread_cond_wait(&pool->wake, &pool->lock);
        exec_task *t = pool->head;
        if (!t) break; /* shutdown and nothing left */
        pool->head = t->next;
        if (!pool->head) pool->tail = NULL;
        pthread_mutex_unlock(&pool->lock);
        t->fn(t->arg);
        pthread_mutex_lock(&pool->lock);
    }
    pthread_mutex_unlock(&pool->lock);
    return NULL;
}

int exec_pool_create(uint32_t n_threads, exec_pool **out, sqe_error *err) {
    if (n_threads == 0)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "thread pool needs at least one thread");
    exec_pool *pool = calloc(1, sizeof *pool);
    if (!pool) return err_nomem(err, "thread pool");
    pool->threads = calloc(n_threads, sizeof(pthread_t));
    if (!pool->threads) {
        free(pool);
        return err_nomem(err, "thread pool");
    }
    pthread_mutex_init(&pool->lock, NULL);
    pthread_cond_init(&pool->wake, NULL);
    for (uint32_t i = 0; i < n_threads; i++) {
        if (pthread_create(&pool->threads[i], NULL, pool_worker, pool) != 0) {
            pool->n_threads = i;
            exec_pool_destroy(pool);
            return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR,
                           "cannot start worker thread %u", i);
        }
        pool->n_threads = i + 1;
    }
    *out = pool;
    return SQE_OK;
}

void exec_pool_destroy(exec_pool *pool) {
    if (!pool) return;
    pthread_mutex_lock(&pool->lock);
    pool->shutdown = true;
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->lock);
    for (uint32_t i = 0; i < pool->n_threads; i++) pthread_join(pool->threads[i], NULL);
    pthread_cond_destroy(&pool->wake);
    pthread_mutex_destroy(&pool->lock);
    free(pool->threads);
    free(pool);
}

uint32_t exec_pool_size(const exec_pool *pool) { return pool ? pool->n_threads : 0; }

void exec_pool_submit(exec_pool *pool, exec_task *tasks, uint32_t n) {
    if (n == 0) return;
    for (uint32_t i = 0; i + 1 < n; i++) tasks[i].next = &tasks[i + 1];
    tasks[n - 1].next = NULL;
    pthread_mutex_lock(&pool->lock);
    if (pool->tail)
        pool->tail->next = &tasks[0];
    else
        pool->head = &tasks[0];
    pool->tail = &tasks[n - 1];
    if (n == 1)
        pthread_cond_signal(&pool->wake);
    else
        pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->lock);
}

bool exec_pool_cancel(exec_pool *pool, exec_task *task) {
    if (!pool) return false;
    bool removed = false;
    pthread_mutex_lock(&pool->lock);
    for (exec_task **link = &pool->head, *prev = NULL; *link; prev = *link, link = &(*link)->next) {
        if (*link != task) continue;
        *link = task->next;
        if (pool->tail == task) pool->tail = prev;
        removed = true;
        break;
    }
    pthread_mutex_unlock(&pool->lock);
    return removed;
}

uint64_t exec_now_ns(void) { return clock_mono_ns(); }
