/*
 * limits.h: admission limits of `sqe serve` ([query] max_concurrent, max_concurrent_per_user,
 * timeout, max_sql_bytes), shared by every protocol front end through srv_hooks admit/release.
 */
#ifndef SQE_SERVER_CORE_LIMITS_H
#define SQE_SERVER_CORE_LIMITS_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

/* The code of a refused admission. errcodes.def has no QUERY_QUEUE_FULL (Trino's name for it)
 * yet; the message always names the limit. */
#define LIMITS_ERR_REJECTED SQE_ERR_QUERY_QUEUE_FULL

typedef struct limits_options {
    uint32_t max_concurrent;          /* statements running at once, all users; 0 = no limit */
    uint32_t max_concurrent_per_user; /* per principal; 0 = no limit */
    uint32_t timeout_ms;              /* statement deadline handed to the front end; 0 = none */
    size_t max_sql_bytes;             /* largest statement text; 0 = no limit */
} limits_options;

typedef struct limits limits;

/* Creates the limits (opts copied). The caller owns *out (limits_destroy). */
int limits_create(const limits_options *opts, limits **out, sqe_error *err);

/* Admits one statement of principal with sql_bytes of text. On success the caller must call
 * limits_release(l, principal) exactly once when the statement ends, and *timeout_ms (may be
 * NULL) gets the deadline to enforce. Over a limit: QUERY_TEXT_TOO_LARGE for the size, else
 * LIMITS_ERR_REJECTED, with a message naming the [query] key and its value; nothing is counted.
 * Thread-safe. */
int limits_admit(limits *l, const char *principal, size_t sql_bytes, uint32_t *timeout_ms,
                 sqe_error *err);

/* Ends a statement admitted for principal. Thread-safe. */
void limits_release(limits *l, const char *principal);

/* Statements running now, in total and for principal. */
uint32_t limits_running(limits *l, const char *principal);

/* Frees l. NULL is ignored. */
void limits_destroy(limits *l);

#endif
