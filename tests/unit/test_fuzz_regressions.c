/*
 * test_fuzz_regressions.c: replays every input the SQL fuzzer ever crashed on
 * (tests/fuzz/regressions/) and the fuzzer's seeds through the same parse+bind+optimize path,
 * under the unit tests' sanitizers, so each fixed crash stays fixed.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#define LLVMFuzzerTestOneInput fuzz_sql_bind_one
#include "../fuzz/fuzz_sql_bind.c"

static int replay_dir(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return -1;
    int n = 0;
    struct dirent *ent;
    while ((ent = readdir(d))) {
        if (ent->d_name[0] == '.') continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, ent->d_name);
        FILE *f = fopen(path, "rb");
        if (!f) continue;
        static char buf[1 << 16];
        size_t len = fread(buf, 1, sizeof buf, f);
        fclose(f);
        fuzz_sql_bind_one((const uint8_t *)buf, len);
        n++;
    }
    closedir(d);
    return n;
}

static void test_regressions(void **state) {
    (void)state;
    int n = replay_dir(SQE_SOURCE_DIR "/tests/fuzz/regressions");
    assert_true(n >= 2); /* the directory exists and holds the known crashers */
}

static void test_seeds(void **state) {
    (void)state;
    int n = replay_dir(SQE_SOURCE_DIR "/tests/fuzz/sql_seeds");
    assert_true(n >= 10);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_regressions),
        cmocka_unit_test(test_seeds),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    if (conn) sqe_disconnect(conn);
    if (db) sqe_db_close(db);
    return rc;
}
