/*
 * random.c: kernel randomness, UUIDs and ids (see random.h).
 *
 * INTERFACE: sqe_random_bytes, sqe_uuid_v4, sqe_random_positive_id.
 */
#include "common/random.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

int sqe_random_bytes(void *buf, size_t n, sqe_error *err) {
    uint8_t *p = buf;
    size_t got = 0;
    while (got < n) {
        ssize_t r = getrandom(p + got, n - got, 0);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0)
            return err_set(err, SQE_ERR_IO_ERROR, "getrandom: %s", strerror(r < 0 ? errno : EIO));
        got += (size_t)r;
    }
    return SQE_OK;
}

int sqe_uuid_v4(char out[37], sqe_error *err) {
    uint8_t u[16];
    SQE_TRY(sqe_random_bytes(u, sizeof u, err));
    u[6] = (uint8_t)((u[6] & 0x0f) | 0x40);
    u[8] = (uint8_t)((u[8] & 0x3f) | 0x80);
    snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
             u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12],
             u[13], u[14], u[15]);
    return SQE_OK;
}

int sqe_random_positive_id(int64_t *out, sqe_error *err) {
    uint64_t v = 0;
    while (v == 0) {
        SQE_TRY(sqe_random_bytes(&v, sizeof v, err));
        v &= INT64_MAX;
    }
    *out = (int64_t)v;
    return SQE_OK;
}
