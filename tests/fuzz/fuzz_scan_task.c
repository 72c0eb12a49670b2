/*
 * fuzz_scan_task.c: libFuzzer target for the scan task decoder (src/scan/scan_task.c,
 * scan_task_expr.c, scan_wire.c): the input is one encoded task, as a worker receives it.
 *
 * A decode error must carry a message. A task that decodes must validate, describe itself
 * without its credentials' secrets, and re-encode; the re-encoding must decode again and
 * encode to the same bytes (the encoding is canonical), or the target aborts.
 * Seeds: tests/fuzz/scan_task_seeds (every kind of task, written by unit_scan_task with
 * SCAN_TASK_SEED_DIR set). Build: CMake with -DSQE_FUZZ=ON builds fuzz_scan_task (target glob
 * in CMakeLists.txt); run: make fuzz-scan-task (FUZZ_SECONDS, default 600).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/arena.h"
#include "common/strbuf.h"
#include "func/func.h"
#include "scan/scan_task.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static int ready;
    if (!ready) {
        if (func_registry_init(NULL)) abort();
        ready = 1;
    }
    arena a;
    arena_init(&a, NULL);
    sqe_error err;
    memset(&err, 0, sizeof err);
    scan_task t;
    if (scan_task_decode(&a, data, size, &t, &err) != SQE_OK) {
        if (!err.message[0]) abort();
        arena_destroy(&a);
        return 0;
    }
    if (scan_task_validate(&t, &err) != SQE_OK) abort();
    strbuf sb;
    strbuf_init(&sb);
    scan_task_describe(&t, &sb);
    if (t.credentials.present && t.credentials.secret_access_key &&
        strlen(t.credentials.secret_access_key) >= 8 && sb.data &&
        strstr(sb.data, t.credentials.secret_access_key))
        abort();
    strbuf_reset(&sb);
    uint8_t *enc = NULL, *enc2 = NULL;
    size_t len = 0, len2 = 0;
    if (scan_task_encode(&t, &enc, &len, &err) != SQE_OK) {
        /* everything decode accepts can be encoded again */
        fprintf(stderr, "re-encode failed: %s\n", err.message);
        abort();
    }
    arena b;
    arena_init(&b, NULL);
    scan_task t2;
    if (scan_task_decode(&b, enc, len, &t2, &err) != SQE_OK) {
        fprintf(stderr, "decode of the re-encoding failed: %s\n", err.message);
        abort();
    }
    if (scan_task_encode(&t2, &enc2, &len2, &err) != SQE_OK) abort();
    if (len != len2 || memcmp(enc, enc2, len) != 0) abort();
    free(enc);
    free(enc2);
    arena_destroy(&b);
    arena_destroy(&a);
    return 0;
}
