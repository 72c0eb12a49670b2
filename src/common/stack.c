/*
 * stack.c: the stack guard (see stack.h).
 *
 * INTERFACE: stack_exhausted.
 * NOTES: the low end of the stack is cached per thread. When it cannot be determined the guard
 * never fires and the recursion depth limits of each layer remain the only protection.
 */
#define _GNU_SOURCE
#include "common/stack.h"

#include <pthread.h>
#include <stdint.h>

static _Thread_local uintptr_t stack_low;   /* lowest usable address + reserve */
static _Thread_local int stack_known;       /* 1 known, -1 unknown, 0 not yet looked up */

static void find_stack(void) {
    pthread_attr_t attr;
    void *addr = NULL;
    size_t size = 0;
    stack_known = -1;
    if (pthread_getattr_np(pthread_self(), &attr) != 0) return;
    if (pthread_attr_getstack(&attr, &addr, &size) == 0 && addr && size > 2 * STACK_RESERVE) {
        stack_low = (uintptr_t)addr + STACK_RESERVE;
        stack_known = 1;
    }
    pthread_attr_destroy(&attr);
}

bool stack_exhausted(void) {
    if (stack_known == 0) find_stack();
    if (stack_known < 0) return false;
    char here;
    return (uintptr_t)&here < stack_low;
}
