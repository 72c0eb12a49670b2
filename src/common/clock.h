/*
 * clock.h: the monotonic clock, for deadlines and durations (never wall time): query time
 * limits (plan, exec, func check them against the same clock) and server timeouts.
 *
 * INTERFACE: clock_mono_ns, clock_mono_ms, clock_deadline_passed.
 */
#ifndef SQE_COMMON_CLOCK_H
#define SQE_COMMON_CLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

/* CLOCK_MONOTONIC in nanoseconds. */
static inline uint64_t clock_mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* CLOCK_MONOTONIC in milliseconds. */
static inline int64_t clock_mono_ms(void) { return (int64_t)(clock_mono_ns() / 1000000ull); }

/* Has deadline_ns (clock_mono_ns time; 0 = none) passed? */
static inline bool clock_deadline_passed(uint64_t deadline_ns) {
    return deadline_ns && clock_mono_ns() >= deadline_ns;
}

#endif
