/*
 * mem.h: accounting allocator. Every column buffer, hash table and sort run of a query is
 * allocated through a mem_tracker, so each query has a known footprint and a hard limit.
 *
 * A tracker counts bytes and may have a parent (operator -> query -> database); a charge is
 * applied to the whole chain and fails, leaving all counters unchanged, when any limit would be
 * exceeded. Trackers are thread-safe (atomic counters).
 *
 * A tracker may have a pressure callback (mem_tracker_set_pressure): before a charge fails at
 * its limit, the callback is asked to release memory (an operator spilling its state); when it
 * released some, the charge is tried again. This is how spill plugs in without every allocation
 * site knowing about it.
 */
#ifndef SQE_COMMON_MEM_H
#define SQE_COMMON_MEM_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "sqe/sqe.h"

typedef struct mem_tracker mem_tracker;

/* Asked when a charge of `needed` more bytes than t's limit allows would fail: release memory
 * charged to t (or below it) and return how many bytes were released, 0 if nothing could go.
 * Runs on the charging thread with no lock held; charges made from inside it that reach t do
 * not call it again (they fail at the limit as usual). */
typedef int64_t (*mem_pressure_fn)(void *ud, mem_tracker *t, int64_t needed);

struct mem_tracker {
    _Atomic int64_t used;        /* bytes charged now */
    _Atomic int64_t peak;        /* high-water mark of used */
    int64_t limit;               /* 0 = unlimited */
    struct mem_tracker *parent;  /* charged too; may be NULL */
    const char *label;           /* for error messages, e.g. "query" */
    mem_pressure_fn pressure;    /* may be NULL (mem_tracker_set_pressure) */
    void *pressure_ud;
    _Atomic int relieving;       /* the pressure callback is running */
};

/* Initializes caller-owned storage (no pressure callback). */
void mem_tracker_init(mem_tracker *t, const char *label, int64_t limit, mem_tracker *parent);
/* Sets (or with NULL removes) t's pressure callback; call before the tracker is shared. */
void mem_tracker_set_pressure(mem_tracker *t, mem_pressure_fn fn, void *ud);

/* Charges n bytes to t and its ancestors. Returns SQE_OK or EXCEEDED_MEMORY_LIMIT (with a message
 * naming the limit), in which case nothing is charged. t may be NULL (no accounting). */
int mem_charge(mem_tracker *t, int64_t n, sqe_error *err);
/* Returns n bytes previously charged. */
void mem_release(mem_tracker *t, int64_t n);

/* malloc/calloc/realloc/free with accounting. The block remembers its size, so mem_free needs
 * no size. On failure they return NULL and set err (limit exceeded or out of memory). The caller
 * owns the block and frees it with mem_free on the same tracker. */
void *mem_alloc(mem_tracker *t, size_t n, sqe_error *err);
void *mem_calloc(mem_tracker *t, size_t n, sqe_error *err);
void *mem_realloc(mem_tracker *t, void *p, size_t n, sqe_error *err);
void mem_free(mem_tracker *t, void *p);

/* Frees a NUL-terminated secret (token, password, key) after overwriting its bytes, so freed
 * memory never holds it. NULL is ignored. */
void mem_free_secret(char *s);

#endif
