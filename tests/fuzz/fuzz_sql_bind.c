/*
 * fuzz_sql_bind.c: libFuzzer target for the SQL front end: parse, bind and optimize arbitrary
 * text against a small catalog (tables with every scalar type), without executing it.
 *
 * Build and run with `make fuzz-sql` (clang, ASan + UBSan). Every input must end in a clean
 * error or a plan: no crash, no leak, no sanitizer report, no hang.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bind/bind.h"
#include "engine/engine.h"
#include "io/path_policy.h"
#include "plan/optimize.h"
#include "sql/sql.h"
#include "sqe/sqe_values.h"

static sqe_db *db;
static sqe_conn *conn;

static void setup(void) {
    sqe_error err;
    if (sqe_db_open(NULL, &db, &err)) abort();
    /* no local files and no object store: table functions in the input never touch disk */
    path_policy_config pc = {0};
    path_policy *paths;
    if (path_policy_create(&pc, &paths, &err)) abort();
    sqe_db_set_path_policy(db, paths);
    if (sqe_connect(db, &conn, &err)) abort();
    const char *ddl[] = {
        "CREATE TABLE t (a integer, b varchar, c double, d date, e decimal(10,2), f bigint, "
        "g boolean, h timestamp(3), i decimal(30,5), j array(integer), k map(varchar, integer), "
        "l row(x integer, y varchar))",
        "CREATE TABLE u (a integer, x varchar)",
        "CREATE SCHEMA s",
        "CREATE TABLE s.v (id bigint, name varchar(10))",
    };
    for (size_t i = 0; i < sizeof ddl / sizeof ddl[0]; i++) {
        sqe_result *r;
        if (sqe_query(conn, ddl[i], &r, &err)) abort();
        sqe_result_destroy(r);
    }
}

static void bind_one(const sql_query *q) {
    arena a;
    arena_init(&a, NULL);
    mem_tracker tracker;
    mem_tracker_init(&tracker, "query", (int64_t)1 << 30, NULL);
    plan_ctx pctx;
    plan_ctx_init(&pctx, &a, &tracker, exec_fold_const);
    bind_env env;
    engine_bind_env(conn, &env);
    bound_query bq;
    sqe_error err;
    if (bind_query(&pctx, &env, q, &bq, &err) == SQE_OK) {
        optimize_options oo = {0, 0, true};
        plan_optimize(&pctx, &bq.root, &oo, &err);
    }
    plan_ctx_destroy(&pctx);
    arena_destroy(&a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!db) setup();
    if (size > 8192) return 0;
    arena a;
    arena_init(&a, NULL);
    sql_stmt *st;
    sqe_error err;
    if (sql_parse(&a, (const char *)data, size, &st, &err) == SQE_OK) {
        if (st->kind == SQL_STMT_QUERY) bind_one(st->u.query);
        if (st->kind == SQL_STMT_EXPLAIN && st->u.explain.stmt->kind == SQL_STMT_QUERY)
            bind_one(st->u.explain.stmt->u.query);
    }
    arena_destroy(&a);
    return 0;
}
