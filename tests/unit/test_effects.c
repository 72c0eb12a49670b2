/*
 * test_effects.c: unit tests of what a result reports its statement did (sqe_effects.h), run
 * through the public API on an embedded database with a memory and an Iceberg catalog: kinds,
 * update types and counts, session changes (USE, SET/RESET SESSION, PREPARE, DEALLOCATE,
 * EXECUTE [IMMEDIATE]), tables and columns read and written with their snapshots, the
 * SQL-free session property setter, sqe_statement_classify, and the parameter positions the
 * parser records (sqe_stmt_param_type reads them).
 */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "sqe/sqe.h"
#include "sqe/sqe_effects.h"
#include "sqe/sqe_values.h"
#include "common/err.h"

typedef struct fixture {
    char dir[64];
    sqe_db *db;
    sqe_conn *conn;
} fixture;

static int setup(void **state) {
    fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    snprintf(f->dir, sizeof f->dir, "/tmp/sqe_effects_XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    sqe_db_options o = {0};
    o.threads = 2;
    o.warehouse = f->dir;
    sqe_error err;
    assert_int_equal(sqe_db_open(&o, &f->db, &err), SQE_OK);
    assert_int_equal(sqe_connect(f->db, &f->conn, &err), SQE_OK);
    *state = f;
    return 0;
}

static int teardown(void **state) {
    fixture *f = *state;
    sqe_disconnect(f->conn);
    sqe_db_close(f->db);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", f->dir);
    free(f);
    return 0;
}

/* Runs sql, drains its rows and returns the result (the caller destroys it). */
static sqe_result *run(fixture *f, const char *sql) {
    sqe_result *res = NULL;
    sqe_error err;
    memset(&err, 0, sizeof err);
    int rc = sqe_query(f->conn, sql, &res, &err);
    if (rc) fail_msg("%s: %s", sql, err.message);
    const sqe_chunk *c;
    do {
        assert_int_equal(sqe_result_next(res, &c, &err), SQE_OK);
    } while (c);
    return res;
}

static void run_drop(fixture *f, const char *sql) { sqe_result_destroy(run(f, sql)); }

/* The entry for table name (written or read), or NULL. */
static const sqe_table_access *table(const sqe_result *res, const char *name, int written) {
    for (int i = 0; i < sqe_result_table_count(res); i++) {
        const sqe_table_access *a = sqe_result_table(res, i);
        if (!strcmp(a->table, name) && a->written == written) return a;
    }
    return NULL;
}

static bool has_column(const sqe_table_access *a, const char *col) {
    for (int i = 0; i < a->n_columns; i++)
        if (!strcmp(a->columns[i], col)) return true;
    return false;
}

static void test_kinds_and_update_types(void **state) {
    fixture *f = *state;
    static const struct {
        const char *sql;
        sqe_statement_kind kind;
        const char *update_type;
        int rows;
    } cases[] = {
        {"SELECT 1", SQE_STATEMENT_QUERY, "", 1},
        {"CREATE SCHEMA memory.s1", SQE_STATEMENT_CREATE_SCHEMA, "CREATE SCHEMA", 0},
        {"CREATE TABLE memory.s1.t (a bigint, b varchar)", SQE_STATEMENT_CREATE_TABLE,
         "CREATE TABLE", 0},
        {"INSERT INTO memory.s1.t VALUES (1, 'x'), (2, 'y')", SQE_STATEMENT_INSERT, "INSERT", 0},
        {"UPDATE memory.s1.t SET b = 'z' WHERE a = 1", SQE_STATEMENT_UPDATE, "UPDATE", 0},
        {"DELETE FROM memory.s1.t WHERE a = 2", SQE_STATEMENT_DELETE, "DELETE", 0},
        {"CREATE TABLE memory.s1.u AS SELECT * FROM memory.s1.t", SQE_STATEMENT_CREATE_TABLE_AS,
         "CREATE TABLE", 0},
        {"CREATE VIEW memory.s1.v AS SELECT a FROM memory.s1.t", SQE_STATEMENT_CREATE_VIEW,
         "CREATE VIEW", 0},
        {"DROP VIEW memory.s1.v", SQE_STATEMENT_DROP_VIEW, "DROP VIEW", 0},
        {"SHOW TABLES FROM memory.s1", SQE_STATEMENT_SHOW, "", 1},
        {"EXPLAIN SELECT 1", SQE_STATEMENT_EXPLAIN, "", 1},
        {"START TRANSACTION", SQE_STATEMENT_START_TRANSACTION, "START TRANSACTION", 0},
        {"COMMIT", SQE_STATEMENT_COMMIT, "COMMIT", 0},
        {"TRUNCATE TABLE memory.s1.u", SQE_STATEMENT_TRUNCATE, "TRUNCATE TABLE", 0},
        {"DROP TABLE memory.s1.u", SQE_STATEMENT_DROP_TABLE, "DROP TABLE", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sqe_result *res = run(f, cases[i].sql);
        assert_int_equal(sqe_result_statement_kind(res), cases[i].kind);
        assert_string_equal(sqe_result_update_type(res), cases[i].update_type);
        assert_int_equal(sqe_result_returns_rows(res), cases[i].rows);
        sqe_result_destroy(res);
    }
    sqe_result *res = run(f, "INSERT INTO memory.s1.t VALUES (3, 'w'), (4, 'v'), (5, 'u')");
    assert_int_equal(sqe_result_update_count(res), 3);
    assert_string_equal(sqe_statement_kind_name(sqe_result_statement_kind(res)), "INSERT");
    sqe_result_destroy(res);
}

static void test_session_changes(void **state) {
    fixture *f = *state;
    run_drop(f, "CREATE SCHEMA memory.s2");
    sqe_result *res = run(f, "USE memory.s2");
    assert_int_equal(sqe_result_session_change_count(res), 1);
    const sqe_session_change *c = sqe_result_session_change(res, 0);
    assert_int_equal(c->kind, SQE_CHANGE_CATALOG_SCHEMA);
    assert_string_equal(c->name, "memory");
    assert_string_equal(c->value, "s2");
    assert_null(sqe_result_session_change(res, 1));
    sqe_result_destroy(res);

    res = run(f, "SET SESSION query_max_memory = '64MB'");
    assert_int_equal(sqe_result_statement_kind(res), SQE_STATEMENT_SET_SESSION);
    c = sqe_result_session_change(res, 0);
    assert_int_equal(c->kind, SQE_CHANGE_PROPERTY_SET);
    assert_string_equal(c->name, "query_max_memory");
    assert_string_equal(c->value, "64MB");
    sqe_result_destroy(res);
    res = run(f, "SET SESSION threads = 1");
    assert_string_equal(sqe_result_session_change(res, 0)->value, "1");
    sqe_result_destroy(res);
    res = run(f, "RESET SESSION threads");
    c = sqe_result_session_change(res, 0);
    assert_int_equal(c->kind, SQE_CHANGE_PROPERTY_RESET);
    assert_string_equal(c->name, "threads");
    assert_null(c->value);
    sqe_result_destroy(res);

    res = run(f, "PREPARE p1 FROM SELECT ? + 1");
    c = sqe_result_session_change(res, 0);
    assert_int_equal(c->kind, SQE_CHANGE_PREPARED_ADDED);
    assert_string_equal(c->name, "p1");
    assert_string_equal(c->value, "SELECT ? + 1");
    sqe_result_destroy(res);
    res = run(f, "EXECUTE p1 USING 41");
    assert_int_equal(sqe_result_statement_kind(res), SQE_STATEMENT_EXECUTE);
    assert_int_equal(sqe_result_returns_rows(res), 1);
    assert_int_equal(sqe_result_session_change_count(res), 0);
    sqe_result_destroy(res);
    res = run(f, "DEALLOCATE PREPARE p1");
    c = sqe_result_session_change(res, 0);
    assert_int_equal(c->kind, SQE_CHANGE_PREPARED_REMOVED);
    assert_string_equal(c->name, "p1");
    sqe_result_destroy(res);
    assert_null(sqe_conn_prepared_text(f->conn, "p1"));

    /* EXECUTE IMMEDIATE: the executed statement's update type, no prepared statement left */
    run_drop(f, "CREATE TABLE memory.s2.e (a bigint)");
    res = run(f, "EXECUTE IMMEDIATE 'INSERT INTO memory.s2.e VALUES (?), (?)' USING 1, 2");
    assert_int_equal(sqe_result_statement_kind(res), SQE_STATEMENT_EXECUTE);
    assert_string_equal(sqe_result_update_type(res), "INSERT");
    assert_int_equal(sqe_result_update_count(res), 2);
    assert_non_null(table(res, "e", 1));
    sqe_result_destroy(res);
}

static void test_tables_memory(void **state) {
    fixture *f = *state;
    run_drop(f, "CREATE TABLE memory.default.m (a bigint, b varchar, c double)");
    sqe_result *res = run(f, "INSERT INTO memory.default.m (a, b) VALUES (1, 'x')");
    const sqe_table_access *w = table(res, "m", 1);
    assert_non_null(w);
    assert_string_equal(w->catalog, "memory");
    assert_string_equal(w->schema, "default");
    assert_int_equal(w->snapshot_id, -1);
    assert_int_equal(w->n_columns, 2);
    assert_true(has_column(w, "a") && has_column(w, "b"));
    sqe_result_destroy(res);

    res = run(f, "SELECT b FROM memory.default.m WHERE a > 0");
    assert_int_equal(sqe_result_table_count(res), 1);
    const sqe_table_access *r = table(res, "m", 0);
    assert_non_null(r);
    assert_int_equal(r->snapshot_id, -1);
    assert_true(has_column(r, "a") && has_column(r, "b"));
    assert_false(has_column(r, "c"));
    sqe_result_destroy(res);

    res = run(f, "SELECT 1");
    assert_int_equal(sqe_result_table_count(res), 0);
    assert_null(sqe_result_table(res, 0));
    sqe_result_destroy(res);
}

static void test_tables_iceberg_snapshots(void **state) {
    fixture *f = *state;
    run_drop(f, "CREATE TABLE iceberg.default.it (a bigint, b varchar)");
    sqe_result *res = run(f, "INSERT INTO iceberg.default.it VALUES (1, 'x'), (2, 'y')");
    const sqe_table_access *w = table(res, "it", 1);
    assert_non_null(w);
    assert_string_equal(w->catalog, "iceberg");
    int64_t snap1 = w->snapshot_id;
    assert_true(snap1 > 0);
    sqe_result_destroy(res);

    res = run(f, "SELECT b FROM iceberg.default.it");
    const sqe_table_access *r = table(res, "it", 0);
    assert_non_null(r);
    assert_true(r->snapshot_id == snap1);
    assert_true(has_column(r, "b"));
    assert_false(has_column(r, "a"));
    sqe_result_destroy(res);

    res = run(f, "INSERT INTO iceberg.default.it SELECT a + 10, b FROM iceberg.default.it");
    w = table(res, "it", 1);
    r = table(res, "it", 0);
    assert_non_null(w);
    assert_non_null(r);
    assert_true(r->snapshot_id == snap1);
    assert_true(w->snapshot_id > 0 && w->snapshot_id != snap1);

    /* a DELETE reports the snapshot its commit made; a statement that commits nothing, none */
    int64_t snap2 = w->snapshot_id;
    sqe_result_destroy(res);
    res = run(f, "DELETE FROM iceberg.default.it WHERE a = 1");
    w = table(res, "it", 1);
    assert_non_null(w);
    assert_true(w->snapshot_id > 0 && w->snapshot_id != snap2);
    sqe_result_destroy(res);
    res = run(f, "INSERT INTO iceberg.default.it SELECT a, b FROM iceberg.default.it WHERE false");
    w = table(res, "it", 1);
    assert_non_null(w);
    assert_int_equal(w->snapshot_id, -1);
    sqe_result_destroy(res);

    /* time travel reports the snapshot it read, not the current one */
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT a FROM iceberg.default.it FOR VERSION AS OF %lld",
             (long long)snap1);
    res = run(f, sql);
    r = table(res, "it", 0);
    assert_non_null(r);
    assert_true(r->snapshot_id == snap1);
    sqe_result_destroy(res);
}

static void test_setter_and_classify(void **state) {
    fixture *f = *state;
    sqe_error err;
    assert_int_equal(sqe_conn_set_session_property(f->conn, "time_zone", "Asia/Kolkata", &err),
                     SQE_OK);
    sqe_result *res = run(f, "SELECT current_timezone()");
    sqe_result_destroy(res);
    assert_int_equal(sqe_conn_set_session_property(f->conn, "nosuch", "1", &err),
                     SQE_ERR_INVALID_SESSION_PROPERTY);
    assert_non_null(strstr(err.message, "does not exist"));
    assert_int_equal(sqe_conn_set_session_property(f->conn, "threads", "0", &err),
                     SQE_ERR_INVALID_SESSION_PROPERTY);
    assert_int_equal(sqe_conn_set_session_property(f->conn, "time_zone", NULL, &err), SQE_OK);

    sqe_statement_kind k;
    int rows;
    assert_int_equal(sqe_statement_classify(f->conn, "  -- c\n SELECT 1", &k, &rows, &err),
                     SQE_OK);
    assert_int_equal(k, SQE_STATEMENT_QUERY);
    assert_int_equal(rows, 1);
    assert_int_equal(sqe_statement_classify(f->conn, "DROP TABLE memory.default.x", &k, &rows,
                                            &err),
                     SQE_OK);
    assert_int_equal(k, SQE_STATEMENT_DROP_TABLE);
    assert_int_equal(rows, 0);
    assert_int_equal(sqe_conn_prepared_put(f->conn, "q", "SELECT 2", &err), SQE_OK);
    assert_int_equal(sqe_statement_classify(f->conn, "EXECUTE q", &k, &rows, &err), SQE_OK);
    assert_int_equal(k, SQE_STATEMENT_EXECUTE);
    assert_int_equal(rows, 1);
    assert_int_not_equal(sqe_statement_classify(f->conn, "EXECUTE nope", &k, &rows, &err),
                         SQE_OK);
    assert_int_not_equal(sqe_statement_classify(f->conn, "SELEC 1", &k, &rows, &err), SQE_OK);
}

static void test_param_positions(void **state) {
    fixture *f = *state;
    run_drop(f, "CREATE TABLE memory.default.pt (id bigint, name varchar, d date)");
    sqe_stmt *st;
    sqe_error err;
    /* '?' inside a string or comment is no parameter; positions come from the parser */
    assert_int_equal(sqe_prepare(f->conn,
                                 "SELECT '?' /* ? */ FROM memory.default.pt WHERE id = ? AND\n"
                                 "  d >= ? AND name = ?",
                                 &st, &err),
                     SQE_OK);
    assert_int_equal(sqe_stmt_param_count(st), 3);
    assert_string_equal(sqe_stmt_param_type(st, 1), "bigint");
    assert_string_equal(sqe_stmt_param_type(st, 2), "date");
    assert_string_equal(sqe_stmt_param_type(st, 3), "varchar");
    sqe_stmt_destroy(st);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_kinds_and_update_types, setup, teardown),
        cmocka_unit_test_setup_teardown(test_session_changes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tables_memory, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tables_iceberg_snapshots, setup, teardown),
        cmocka_unit_test_setup_teardown(test_setter_and_classify, setup, teardown),
        cmocka_unit_test_setup_teardown(test_param_positions, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
