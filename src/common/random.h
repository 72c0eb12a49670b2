/*
 * random.h: random bytes from the kernel (getrandom), version-4 UUIDs and random ids.
 */
#ifndef SQE_COMMON_RANDOM_H
#define SQE_COMMON_RANDOM_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

/* Fills buf with n random bytes. IO_ERROR when the kernel refuses. */
int sqe_random_bytes(void *buf, size_t n, sqe_error *err);
/* A random version-4 UUID in canonical lower-case text ("xxxxxxxx-xxxx-4xxx-yxxx-..."). */
int sqe_uuid_v4(char out[37], sqe_error *err);
/* A random positive int64 (for Iceberg snapshot ids). */
int sqe_random_positive_id(int64_t *out, sqe_error *err);

#endif
