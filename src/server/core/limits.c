/*
 * limits.c: admission control: global and per-user counters of running statements, the
 * statement size check, and the statement timeout the front end enforces.
 *
 * INTERFACE: limits_create, limits_admit, limits_release, limits_running, limits_destroy
 *   (limits.h).
 * NOTES: per-user counters live in a small chained hash table keyed by principal; an entry is
 * removed when its count drops to zero, so the table holds only users with running statements.
 * A release without an admit (a front-end bug) is ignored rather than underflowing.
 */
#include "server/core/limits.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define BUCKETS 256

typedef struct user_count {
    char *principal;
    uint32_t running;
    struct user_count *next;
} user_count;

struct limits {
    limits_options opts;
    pthread_mutex_t lock;
    uint32_t running;
    user_count *buckets[BUCKETS];
};

static size_t bucket_of(const char *s) {
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return (size_t)(h % BUCKETS);
}

int limits_create(const limits_options *opts, limits **out, sqe_error *err) {
    limits *l = calloc(1, sizeof *l);
    if (!l) return err_nomem(err, "limits");
    l->opts = *opts;
    pthread_mutex_init(&l->lock, NULL);
    *out = l;
    return SQE_OK;
}

static user_count **find(limits *l, const char *principal) {
    user_count **pp = &l->buckets[bucket_of(principal)];
    while (*pp && strcmp((*pp)->principal, principal) != 0) pp = &(*pp)->next;
    return pp;
}

int limits_admit(limits *l, const char *principal, size_t sql_bytes, uint32_t *timeout_ms,
                 sqe_error *err) {
    if (!principal) principal = "";
    if (l->opts.max_sql_bytes && sql_bytes > l->opts.max_sql_bytes)
        return err_set(err, SQE_ERR_QUERY_TEXT_TOO_LARGE,
                       "Query text of %zu bytes exceeds the limit [query] max_sql_bytes = %zu",
                       sql_bytes, l->opts.max_sql_bytes);
    pthread_mutex_lock(&l->lock);
    if (l->opts.max_concurrent && l->running >= l->opts.max_concurrent) {
        pthread_mutex_unlock(&l->lock);
        return err_set(err, LIMITS_ERR_REJECTED,
                       "Too many queries: the limit [query] max_concurrent = %u queries running "
                       "at once is reached; retry later",
                       l->opts.max_concurrent);
    }
    user_count **pp = find(l, principal);
    if (l->opts.max_concurrent_per_user && *pp &&
        (*pp)->running >= l->opts.max_concurrent_per_user) {
        pthread_mutex_unlock(&l->lock);
        return err_set(err, LIMITS_ERR_REJECTED,
                       "Too many queries of user '%s': the limit [query] max_concurrent_per_user "
                       "= %u is reached; retry when one finishes",
                       principal, l->opts.max_concurrent_per_user);
    }
    if (!*pp) {
        user_count *u = calloc(1, sizeof *u);
        if (u) u->principal = strdup(principal);
        if (!u || !u->principal) {
            free(u);
            pthread_mutex_unlock(&l->lock);
            return err_nomem(err, "limits");
        }
        *pp = u;
    }
    (*pp)->running++;
    l->running++;
    pthread_mutex_unlock(&l->lock);
    if (timeout_ms) *timeout_ms = l->opts.timeout_ms;
    return SQE_OK;
}

void limits_release(limits *l, const char *principal) {
    if (!principal) principal = "";
    pthread_mutex_lock(&l->lock);
    user_count **pp = find(l, principal);
    if (*pp) {
        user_count *u = *pp;
        if (l->running) l->running--;
        if (--u->running == 0) {
            *pp = u->next;
            free(u->principal);
            free(u);
        }
    }
    pthread_mutex_unlock(&l->lock);
}

uint32_t limits_running(limits *l, const char *principal) {
    pthread_mutex_lock(&l->lock);
    uint32_t n = l->running;
    if (principal) {
        user_count **pp = find(l, principal);
        n = *pp ? (*pp)->running : 0;
    }
    pthread_mutex_unlock(&l->lock);
    return n;
}

void limits_destroy(limits *l) {
    if (!l) return;
    for (int b = 0; b < BUCKETS; b++) {
        while (l->buckets[b]) {
            user_count *u = l->buckets[b];
            l->buckets[b] = u->next;
            free(u->principal);
            free(u);
        }
    }
    pthread_mutex_destroy(&l->lock);
    free(l);
}
