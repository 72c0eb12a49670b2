/*
 * stack.h: a guard against running out of stack in recursive code (parser, binder, optimizer,
 * expression compiler) on hostile input, whatever the thread's stack size and however large
 * the frames of the build (sanitizers make them several times larger).
 *
 * stack_exhausted() compares the current frame's address with the low end of the calling
 * thread's stack (found once per thread with pthread_getattr_np).
 */
#ifndef SQE_COMMON_STACK_H
#define SQE_COMMON_STACK_H

#include <stdbool.h>
#include <stddef.h>

/* Bytes of stack every check keeps free for the work between checks and error reporting. */
#define STACK_RESERVE ((size_t)512 * 1024)

/* True when fewer than STACK_RESERVE bytes of the thread's stack remain. Thread-safe. */
bool stack_exhausted(void);

#endif
