/*
 * arena.h: region allocator with a lifespan (server, session, query, operator, batch scratch).
 *
 * Allocations are bump-pointer from blocks that grow geometrically; nothing is freed one by one.
 * arena_reset keeps the first block for reuse; arena_destroy frees everything. Blocks are charged
 * to an optional mem_tracker. Not thread-safe: one arena per thread or per single-threaded phase.
 */
#ifndef SQE_COMMON_ARENA_H
#define SQE_COMMON_ARENA_H

#include <stddef.h>
#include <stdint.h>

#include "common/mem.h"

typedef struct arena_block arena_block;

typedef struct arena {
    arena_block *head;     /* newest block */
    size_t next_size;      /* size of the next block to allocate */
    size_t total;          /* bytes in all blocks */
    mem_tracker *tracker;  /* may be NULL */
    int failed;            /* sticky: an allocation failed */
} arena;

/* Initializes caller-owned storage; no memory is allocated until the first arena_alloc. */
void arena_init(arena *a, mem_tracker *tracker);
/* Frees all blocks; a may be reused after arena_init. */
void arena_destroy(arena *a);
/* Frees everything allocated so far (keeps no blocks). */
void arena_reset(arena *a);

/* Returns n bytes aligned to 16, or NULL on failure (a->failed is then set). Zeroed variant. */
void *arena_alloc(arena *a, size_t n);
void *arena_zalloc(arena *a, size_t n);
/* Copies: returns a NUL-terminated copy of s (len bytes), or NULL on failure. */
char *arena_strndup(arena *a, const char *s, size_t len);
char *arena_strdup(arena *a, const char *s);
void *arena_memdup(arena *a, const void *p, size_t n);
/* printf into the arena. */
char *arena_sprintf(arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Typed helpers. */
#define ARENA_NEW(a, type) ((type *)arena_zalloc((a), sizeof(type)))
#define ARENA_ARRAY(a, type, n) ((type *)arena_zalloc((a), sizeof(type) * (size_t)(n)))

#endif
