/*
 * arena.c: region allocator (see arena.h).
 *
 * NOTES: blocks start at 4 KiB and double up to 1 MiB; a request larger than the next block gets
 * a block of its own. Alignment is 16 bytes so int128 values and string views can live here.
 */
#include "common/arena.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct arena_block {
    arena_block *prev;
    size_t size;  /* usable bytes */
    size_t used;
    _Alignas(16) unsigned char data[];
};

#define ARENA_FIRST 4096
#define ARENA_MAX_STEP (1u << 20)

void arena_init(arena *a, mem_tracker *tracker) {
    a->head = NULL;
    a->next_size = ARENA_FIRST;
    a->total = 0;
    a->tracker = tracker;
    a->failed = 0;
}

void arena_reset(arena *a) {
    arena_block *b = a->head;
    while (b) {
        arena_block *prev = b->prev;
        mem_free(a->tracker, b);
        b = prev;
    }
    a->head = NULL;
    a->next_size = ARENA_FIRST;
    a->total = 0;
}

void arena_destroy(arena *a) { arena_reset(a); }

void *arena_alloc(arena *a, size_t n) {
    n = (n + 15) & ~(size_t)15;
    if (n == 0) n = 16;
    arena_block *b = a->head;
    if (!b || b->size - b->used < n) {
        size_t size = a->next_size;
        if (size < n) size = n;
        b = mem_alloc(a->tracker, sizeof(arena_block) + size, NULL);
        if (!b) {
            a->failed = 1;
            return NULL;
        }
        b->prev = a->head;
        b->size = size;
        b->used = 0;
        a->head = b;
        a->total += size;
        if (a->next_size < ARENA_MAX_STEP) a->next_size *= 2;
    }
    void *p = b->data + b->used;
    b->used += n;
    return p;
}

void *arena_zalloc(arena *a, size_t n) {
    void *p = arena_alloc(a, n);
    if (p) memset(p, 0, n);
    return p;
}

char *arena_strndup(arena *a, const char *s, size_t len) {
    char *p = arena_alloc(a, len + 1);
    if (!p) return NULL;
    if (len) memcpy(p, s, len);
    p[len] = 0;
    return p;
}

char *arena_strdup(arena *a, const char *s) { return arena_strndup(a, s, strlen(s)); }

void *arena_memdup(arena *a, const void *src, size_t n) {
    void *p = arena_alloc(a, n);
    if (p && n) memcpy(p, src, n);
    return p;
}

char *arena_sprintf(arena *a, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (len < 0) return NULL;
    char *p = arena_alloc(a, (size_t)len + 1);
    if (!p) return NULL;
    va_start(ap, fmt);
    vsnprintf(p, (size_t)len + 1, fmt, ap);
    va_end(ap);
    return p;
}
