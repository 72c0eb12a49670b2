/*
 * test_session_principal.c: unit tests of what SQL sees of the session's principal, through the
 * server-facing API (sqe_values.h) on an embedded database: current_groups() and
 * current_roles() give the groups and roles of the principal set with sqe_conn_set_principal,
 * in its order, as array(varchar) constants of the statement (a later principal changes the
 * next statement's answer); system.runtime.sessions lists the rows of the host's lister
 * (sqe_db_set_session_lister) whose user is the caller's, every row for a holder of an admin
 * role (sqe_db_set_admin_roles), none without a lister, and a lister's error fails the query.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/err.h"
#include "common/principal.h"
#include "sqe/sqe.h"
#include "sqe/sqe_values.h"

/* Runs sql and returns its cells as text, rows separated by '\n' and cells by '|' (malloc'ed),
 * or NULL with err set when the statement fails. */
static char *query_text(sqe_conn *conn, const char *sql, sqe_error *err) {
    sqe_result *res = NULL;
    if (sqe_query(conn, sql, &res, err) != SQE_OK) return NULL;
    size_t cap = 4096, len = 0;
    char *out = calloc(1, cap);
    assert_non_null(out);
    const sqe_chunk *c;
    int rc;
    while ((rc = sqe_result_next(res, &c, err)) == SQE_OK && c) {
        for (int r = 0; r < sqe_chunk_row_count(c); r++) {
            for (int col = 0; col < sqe_result_column_count(res); col++) {
                char cell[512];
                sqe_chunk_format(c, col, r, cell, sizeof cell);
                size_t need = strlen(cell) + 2;
                if (len + need + 1 > cap) {
                    cap = 2 * (len + need + 1);
                    out = realloc(out, cap);
                    assert_non_null(out);
                }
                len += (size_t)snprintf(out + len, cap - len, "%s%s", col ? "|" : "", cell);
            }
            out[len++] = '\n';
            out[len] = 0;
        }
    }
    sqe_result_destroy(res);
    if (rc != SQE_OK) {
        free(out);
        return NULL;
    }
    return out;
}

static void expect(sqe_conn *conn, const char *sql, const char *want) {
    sqe_error err;
    memset(&err, 0, sizeof err);
    char *got = query_text(conn, sql, &err);
    if (!got) fail_msg("%s: %s", sql, err.message);
    if (strcmp(got, want) != 0) fail_msg("%s:\n got  '%s'\n want '%s'", sql, got, want);
    free(got);
}

static sqe_principal *principal(const char *user, const char *const *groups, uint32_t n_groups,
                                const char *const *roles, uint32_t n_roles) {
    sqe_principal_info info = {.user = user, .groups = groups, .n_groups = n_groups,
                               .roles = roles, .n_roles = n_roles, .token = "secret-token",
                               .method = SQE_AUTH_OIDC_BEARER};
    sqe_principal *p = NULL;
    assert_int_equal(sqe_principal_create(&info, &p, NULL), SQE_OK);
    return p;
}

static void test_groups_and_roles(void **state) {
    (void)state;
    sqe_db *db;
    sqe_conn *conn;
    sqe_error err;
    assert_int_equal(sqe_db_open(NULL, &db, &err), SQE_OK);
    assert_int_equal(sqe_connect(db, &conn, &err), SQE_OK);
    /* the embedded session's OS user has neither */
    expect(conn, "SELECT current_groups(), current_roles()", "[]|[]\n");

    const char *groups[] = {"engineering", "analysts", "b-team"};
    const char *roles[] = {"reader", "service_admin"};
    sqe_principal *p = principal("alice", groups, 3, roles, 2);
    sqe_conn_set_principal(conn, p);
    sqe_principal_unref(p); /* the session keeps its own reference */
    expect(conn, "SELECT current_user, current_groups(), current_roles()",
           "alice|[engineering, analysts, b-team]|[reader, service_admin]\n");
    expect(conn, "SELECT typeof(current_groups()), current_groups()[2], "
                 "contains(current_roles(), 'reader'), cardinality(current_roles())",
           "array(varchar)|analysts|true|2\n");
    /* in a filter over many rows: one constant, the same in every row */
    expect(conn, "SELECT count(*) FROM UNNEST(sequence(1, 5000)) t(x) "
                 "WHERE contains(current_groups(), 'analysts')",
           "5000\n");
    expect(conn, "SELECT g FROM UNNEST(current_groups()) u(g) ORDER BY g",
           "analysts\nb-team\nengineering\n");

    /* a principal with groups only, then one with none: the next statement sees it */
    p = principal("bob", groups + 2, 1, NULL, 0);
    sqe_conn_set_principal(conn, p);
    sqe_principal_unref(p);
    expect(conn, "SELECT current_user, current_groups(), current_roles()", "bob|[b-team]|[]\n");
    p = principal("carol", NULL, 0, NULL, 0);
    sqe_conn_set_principal(conn, p);
    sqe_principal_unref(p);
    expect(conn, "SELECT current_groups() = ARRAY[], current_roles() = ARRAY[]", "true|true\n");

    sqe_disconnect(conn);
    sqe_db_close(db);
}

/* A host with three sessions of two users (what sqe serve's front ends report). */
typedef struct host {
    int calls;
    int fail;
} host;

static int host_list(void *ud, sqe_session_emit emit, void *ctx, sqe_error *err) {
    host *h = ud;
    h->calls++;
    if (h->fail) return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "host listing failed");
    sqe_session_row rows[] = {
        {"flight-1", "alice", "oidc_bearer", "flight", NULL, "127.0.0.1:4000",
         1767225600000, 1767225660000, "lake", "sales", "idle"},
        {"20260101_000000_00001_abcde", "bob", "password", "trino", "dbt", "127.0.0.1:4001",
         1767225600000, 1767225600500, NULL, NULL, "active"},
        {"flight-2", "alice", "password", "flight", NULL, NULL, 0, 0, NULL, NULL, "active"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) SQE_TRY(emit(ctx, &rows[i], err));
    return SQE_OK;
}

static void test_runtime_sessions(void **state) {
    (void)state;
    sqe_db *db;
    sqe_conn *conn;
    sqe_error err;
    host h = {0};
    assert_int_equal(sqe_db_open(NULL, &db, &err), SQE_OK);
    const char *admins[] = {"ops"};
    assert_int_equal(sqe_db_set_admin_roles(db, admins, 1, &err), SQE_OK);
    assert_int_equal(sqe_connect(db, &conn, &err), SQE_OK);
    /* no lister: no rows */
    expect(conn, "SELECT count(*) FROM system.runtime.sessions", "0\n");
    sqe_db_set_session_lister(db, host_list, &h);

    sqe_principal *p = principal("alice", NULL, 0, NULL, 0);
    sqe_conn_set_principal(conn, p);
    sqe_principal_unref(p);
    expect(conn, "SELECT * FROM system.runtime.sessions ORDER BY session_id",
           "flight-1|alice|oidc_bearer|flight|NULL|127.0.0.1:4000|2026-01-01 00:00:00.000000 UTC|"
           "2026-01-01 00:01:00.000000 UTC|lake|sales|idle\n"
           "flight-2|alice|password|flight|NULL|NULL|NULL|NULL|NULL|NULL|active\n");
    assert_true(h.calls >= 1);

    p = principal("bob", NULL, 0, (const char *[]){"reader"}, 1);
    sqe_conn_set_principal(conn, p);
    sqe_principal_unref(p);
    expect(conn, "SELECT session_id, source, state FROM system.runtime.sessions",
           "20260101_000000_00001_abcde|dbt|active\n");

    /* a holder of an admin role sees everyone's */
    p = principal("root", NULL, 0, (const char *[]){"reader", "ops"}, 2);
    sqe_conn_set_principal(conn, p);
    sqe_principal_unref(p);
    expect(conn, "SELECT user, count(*) FROM system.runtime.sessions GROUP BY user ORDER BY 1",
           "alice|2\nbob|1\n");
    /* no principal token in any column */
    expect(conn, "SELECT count(*) FROM system.runtime.sessions WHERE "
                 "concat_ws('|', session_id, user, auth_method, protocol, source, client_address, "
                 "catalog, schema, state) LIKE '%secret-token%'",
           "0\n");
    /* an empty admin list: nobody is an admin */
    assert_int_equal(sqe_db_set_admin_roles(db, NULL, 0, &err), SQE_OK);
    expect(conn, "SELECT count(*) FROM system.runtime.sessions", "0\n");

    h.fail = 1;
    memset(&err, 0, sizeof err);
    char *got = query_text(conn, "SELECT * FROM system.runtime.sessions", &err);
    assert_null(got);
    assert_non_null(strstr(err.message, "host listing failed"));

    sqe_disconnect(conn);
    sqe_db_close(db);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_groups_and_roles),
        cmocka_unit_test(test_runtime_sessions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
