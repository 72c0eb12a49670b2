/*
 * mem.c: the accounting allocator (see mem.h).
 *
 * NOTES: each block has a 16-byte header holding its size, which keeps 16-byte alignment for
 * int128 decimals. Charging walks the parent chain with compare-and-swap-free add/undo: add, and
 * if any level went over its limit, undo every level already added.
 */
#include "common/mem.h"

#include <stdlib.h>
#include <string.h>

#include "common/err.h"

#define MEM_HEADER 16

void mem_tracker_init(mem_tracker *t, const char *label, int64_t limit, mem_tracker *parent) {
    atomic_store(&t->used, 0);
    atomic_store(&t->peak, 0);
    t->limit = limit;
    t->parent = parent;
    t->label = label;
    t->pressure = NULL;
    t->pressure_ud = NULL;
    atomic_store(&t->relieving, 0);
}

void mem_tracker_set_pressure(mem_tracker *t, mem_pressure_fn fn, void *ud) {
    t->pressure = fn;
    t->pressure_ud = ud;
}

static void update_peak(mem_tracker *t, int64_t now) {
    int64_t peak = atomic_load(&t->peak);
    while (now > peak && !atomic_compare_exchange_weak(&t->peak, &peak, now)) {
    }
}

/* Adds n to t and its ancestors; on a limit, undoes the levels already added and returns the
 * tracker whose limit it was (*over = by how much), else NULL. */
static mem_tracker *try_charge(mem_tracker *t, int64_t n, int64_t *over) {
    for (mem_tracker *cur = t; cur; cur = cur->parent) {
        int64_t now = atomic_fetch_add(&cur->used, n) + n;
        if (cur->limit > 0 && n > 0 && now > cur->limit) {
            for (mem_tracker *undo = t; undo != cur->parent; undo = undo->parent)
                atomic_fetch_sub(&undo->used, n);
            *over = now - cur->limit;
            return cur;
        }
        update_peak(cur, now);
    }
    return NULL;
}

/* Up to this many rounds of "release, then try again" per charge. */
#define PRESSURE_ROUNDS 4

int mem_charge(mem_tracker *t, int64_t n, sqe_error *err) {
    int64_t over = 0;
    mem_tracker *full = try_charge(t, n, &over);
    for (int round = 0; full && full->pressure && round < PRESSURE_ROUNDS; round++) {
        int expected = 0;
        if (!atomic_compare_exchange_strong(&full->relieving, &expected, 1)) break;
        int64_t released = full->pressure(full->pressure_ud, full, over);
        atomic_store(&full->relieving, 0);
        if (released <= 0) break;
        full = try_charge(t, n, &over);
    }
    if (full)
        return err_set(err, SQE_ERR_EXCEEDED_MEMORY_LIMIT,
                       "query exceeded %s memory limit of %lld bytes (needed %lld more)",
                       full->label ? full->label : "the", (long long)full->limit,
                       (long long)over);
    return SQE_OK;
}

void mem_release(mem_tracker *t, int64_t n) {
    for (mem_tracker *cur = t; cur; cur = cur->parent) atomic_fetch_sub(&cur->used, n);
}

void *mem_alloc(mem_tracker *t, size_t n, sqe_error *err) {
    if (n > (size_t)INT64_MAX - MEM_HEADER) {
        err_nomem(err, "allocation size overflow");
        return NULL;
    }
    if (mem_charge(t, (int64_t)n, err) != SQE_OK) return NULL;
    unsigned char *p = malloc(n + MEM_HEADER);
    if (!p) {
        mem_release(t, (int64_t)n);
        err_nomem(err, "malloc");
        return NULL;
    }
    memcpy(p, &n, sizeof n);
    return p + MEM_HEADER;
}

void *mem_calloc(mem_tracker *t, size_t n, sqe_error *err) {
    void *p = mem_alloc(t, n, err);
    if (p) memset(p, 0, n);
    return p;
}

void *mem_realloc(mem_tracker *t, void *p, size_t n, sqe_error *err) {
    if (!p) return mem_alloc(t, n, err);
    unsigned char *base = (unsigned char *)p - MEM_HEADER;
    size_t old;
    memcpy(&old, base, sizeof old);
    if (n > (size_t)INT64_MAX - MEM_HEADER) {
        err_nomem(err, "allocation size overflow");
        return NULL;
    }
    if (n > old && mem_charge(t, (int64_t)(n - old), err) != SQE_OK) return NULL;
    unsigned char *grown = realloc(base, n + MEM_HEADER);
    if (!grown) {
        if (n > old) mem_release(t, (int64_t)(n - old));
        err_nomem(err, "realloc");
        return NULL;
    }
    if (n < old) mem_release(t, (int64_t)(old - n));
    memcpy(grown, &n, sizeof n);
    return grown + MEM_HEADER;
}

void mem_free(mem_tracker *t, void *p) {
    if (!p) return;
    unsigned char *base = (unsigned char *)p - MEM_HEADER;
    size_t n;
    memcpy(&n, base, sizeof n);
    mem_release(t, (int64_t)n);
    free(base);
}

void mem_free_secret(char *s) {
    if (!s) return;
    explicit_bzero(s, strlen(s));
    free(s);
}
