/*
 * test_mem.c: unit tests of the accounting allocator (common/mem.c): limits along the parent
 * chain leave every counter unchanged when a charge fails, and the pressure callback (the hook
 * spill uses) is asked before a charge fails, the charge succeeds when it released enough, fails
 * with the usual error when it did not, and a charge from inside the callback does not call it
 * again.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/err.h"
#include "common/mem.h"

static void test_limit_chain_undoes_every_level(void **state) {
    (void)state;
    mem_tracker db, query;
    mem_tracker_init(&db, "database", 1000, NULL);
    mem_tracker_init(&query, "query", 0, &db);
    sqe_error err;
    assert_int_equal(mem_charge(&query, 600, &err), SQE_OK);
    assert_int_equal(mem_charge(&query, 600, &err), SQE_ERR_EXCEEDED_MEMORY_LIMIT);
    assert_non_null(strstr(err.message, "database memory limit of 1000 bytes"));
    assert_int_equal(atomic_load(&query.used), 600);
    assert_int_equal(atomic_load(&db.used), 600);
    mem_release(&query, 600);
    assert_int_equal(atomic_load(&db.used), 0);
}

typedef struct spill_state {
    int64_t spillable; /* bytes the "operator" could write out */
    int calls;
    int64_t last_needed;
    bool charge_inside; /* charge the tracker again from inside the callback */
    int inner_rc;
} spill_state;

static int64_t spill(void *ud, mem_tracker *t, int64_t needed) {
    spill_state *s = ud;
    s->calls++;
    s->last_needed = needed;
    if (s->charge_inside) {
        sqe_error e;
        s->inner_rc = mem_charge(t, 1 << 20, &e); /* must fail without recursing */
    }
    int64_t n = s->spillable < needed ? s->spillable : needed;
    if (n > 0) mem_release(t, n);
    s->spillable -= n;
    return n;
}

static void test_pressure_releases_then_charge_succeeds(void **state) {
    (void)state;
    mem_tracker q;
    mem_tracker_init(&q, "query", 1000, NULL);
    spill_state s = {.spillable = 800};
    mem_tracker_set_pressure(&q, spill, &s);
    sqe_error err;
    assert_int_equal(mem_charge(&q, 900, &err), SQE_OK);
    assert_int_equal(s.calls, 0); /* under the limit: not asked */
    assert_int_equal(mem_charge(&q, 300, &err), SQE_OK);
    assert_int_equal(s.calls, 1);
    assert_int_equal(s.last_needed, 200);
    assert_int_equal(atomic_load(&q.used), 1000);
    mem_release(&q, 1000);
}

static void test_pressure_that_cannot_help_fails_as_before(void **state) {
    (void)state;
    mem_tracker db, q;
    mem_tracker_init(&db, "database", 1000, NULL);
    mem_tracker_init(&q, "query", 0, &db);
    spill_state s = {.spillable = 0, .charge_inside = true};
    mem_tracker_set_pressure(&db, spill, &s);
    sqe_error err;
    assert_int_equal(mem_charge(&q, 700, &err), SQE_OK);
    assert_int_equal(mem_charge(&q, 700, &err), SQE_ERR_EXCEEDED_MEMORY_LIMIT);
    assert_non_null(strstr(err.message, "needed 400 more"));
    assert_int_equal(s.calls, 1); /* the inner charge did not call it again */
    assert_int_equal(s.inner_rc, SQE_ERR_EXCEEDED_MEMORY_LIMIT);
    assert_int_equal(atomic_load(&q.used), 700);
    assert_int_equal(atomic_load(&db.used), 700);
    mem_release(&q, 700);
}

static void test_removed_pressure_is_not_asked(void **state) {
    (void)state;
    mem_tracker q;
    mem_tracker_init(&q, "query", 100, NULL);
    sqe_error err;
    assert_int_equal(mem_charge(&q, 100, &err), SQE_OK);
    spill_state s = {.spillable = 100};
    mem_tracker_set_pressure(&q, spill, &s);
    assert_int_equal(mem_charge(&q, 30, &err), SQE_OK);
    assert_int_equal(s.calls, 1);
    mem_tracker_set_pressure(&q, NULL, NULL);
    assert_int_equal(mem_charge(&q, 500, &err), SQE_ERR_EXCEEDED_MEMORY_LIMIT);
    assert_int_equal(s.calls, 1); /* removed: not asked */
    mem_release(&q, atomic_load(&q.used));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_limit_chain_undoes_every_level),
        cmocka_unit_test(test_pressure_releases_then_charge_succeeds),
        cmocka_unit_test(test_pressure_that_cannot_help_fails_as_before),
        cmocka_unit_test(test_removed_pressure_is_not_asked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
