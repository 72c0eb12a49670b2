/*
 * test_catalog_ops.c: a catalog can wrap any catalog (catalog_ops.h). A pass-through wrapper
 * that counts every call, and refuses the operations it is told to, replaces the memory and the
 * Iceberg (SQLite warehouse) catalogs of an embedded database; SQL then runs against them.
 *
 * Covers: every catalog_ops slot is reached through the wrapper by the statements that use it
 * (schemas, tables, views, renames, Iceberg creates and commits of INSERT / UPDATE / DELETE /
 * MERGE / TRUNCATE / ALTER, SHOW, USE, the metadata tables) or by the generic catalog_* call
 * (catalog_default_location); a refused operation fails the statement with PERMISSION_DENIED
 * and changes nothing (a refused commit leaves the Iceberg table's rows as they were, a
 * refused drop leaves the table); the wrapper keeps its inner catalog's kind, so the engine
 * writes the wrapped tables with the same code (engine/table_impl.h); a looked-up table's
 * version (cat_table_snapshot_id) is the snapshot its $snapshots table shows as current.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <ftw.h>
#include <unistd.h>

#include "catalog/catalog.h"
#include "engine/engine.h"
#include "sqe/sqe.h"

/* ---- the wrapper --------------------------------------------------------------------------- */

enum {
    OP_DESTROY, OP_LIST_SCHEMAS, OP_HAS_SCHEMA, OP_CREATE_SCHEMA, OP_DROP_SCHEMA,
    OP_LIST_TABLES, OP_GET_TABLE, OP_CREATE_TABLE, OP_DROP_TABLE, OP_RENAME_TABLE,
    OP_DEFAULT_LOCATION, OP_CREATE_TABLE_META, OP_COMMIT, OP_CREATE_VIEW, OP_DROP_VIEW,
    OP_GET_VIEW, N_OPS
};
static const char *const op_names[N_OPS] = {
    "destroy", "list_schemas", "has_schema", "create_schema", "drop_schema", "list_tables",
    "get_table", "create_table", "drop_table", "rename_table", "default_location",
    "create_table_meta", "commit", "create_view", "drop_view", "get_view"};
/* every slot of catalog_ops after kind and type is one of the above, in order */
_Static_assert(sizeof(catalog_ops) ==
                   offsetof(catalog_ops, destroy) + N_OPS * sizeof(void (*)(void)),
               "a new catalog_ops slot needs a pass-through here");

typedef struct wrap {
    catalog_ops ops;     /* the template below, with the inner catalog's kind */
    catalog *inner;
    int calls[N_OPS];
    bool refuse[N_OPS];
} wrap;

/* totals over every wrapper, also after they are destroyed */
static int g_calls[N_OPS];

#define W(c) ((wrap *)(c)->impl)
/* Counts op; returns PERMISSION_DENIED when it is refused. */
static int enter(catalog *c, int op, sqe_error *err) {
    W(c)->calls[op]++;
    g_calls[op]++;
    if (!W(c)->refuse[op]) return SQE_OK;
    return err_set(err, SQE_ERR_PERMISSION_DENIED, "Access Denied: %s on catalog %s",
                   op_names[op], c->name);
}
#define ENTER(op) SQE_TRY(enter(c, op, err))

static void w_destroy(catalog *c) {
    g_calls[OP_DESTROY]++;
    catalog_destroy(W(c)->inner);
    free(W(c));
}
static int w_list_schemas(catalog *c, const sqe_principal *who, arena *a, char ***names,
                          uint32_t *n, sqe_error *err) {
    ENTER(OP_LIST_SCHEMAS);
    return catalog_list_schemas(W(c)->inner, who, a, names, n, err);
}
static bool w_has_schema(catalog *c, const sqe_principal *who, const char *schema) {
    if (enter(c, OP_HAS_SCHEMA, NULL)) return false;
    return catalog_has_schema(W(c)->inner, who, schema);
}
static int w_create_schema(catalog *c, const sqe_principal *who, const char *schema,
                           bool if_not_exists, sqe_error *err) {
    ENTER(OP_CREATE_SCHEMA);
    return catalog_create_schema(W(c)->inner, who, schema, if_not_exists, err);
}
static int w_drop_schema(catalog *c, const sqe_principal *who, const char *schema,
                         bool if_exists, bool cascade, sqe_error *err) {
    ENTER(OP_DROP_SCHEMA);
    return catalog_drop_schema(W(c)->inner, who, schema, if_exists, cascade, err);
}
static int w_list_tables(catalog *c, const sqe_principal *who, const char *schema, arena *a,
                         char ***names, uint32_t *n, sqe_error *err) {
    ENTER(OP_LIST_TABLES);
    return catalog_list_tables(W(c)->inner, who, schema, a, names, n, err);
}
static int w_get_table(catalog *c, const sqe_principal *who, const char *schema,
                       const char *name, cat_table **out, sqe_error *err) {
    ENTER(OP_GET_TABLE);
    return catalog_get_table(W(c)->inner, who, schema, name, out, err);
}
static int w_create_table(catalog *c, const sqe_principal *who, const char *schema,
                          const char *name, const cat_column *columns, uint32_t n_columns,
                          bool if_not_exists, cat_table **out, sqe_error *err) {
    ENTER(OP_CREATE_TABLE);
    return catalog_create_table(W(c)->inner, schema, name, columns, n_columns, if_not_exists,
                                out, err);
}
static int w_drop_table(catalog *c, const sqe_principal *who, const char *schema,
                        const char *name, bool if_exists, bool purge, sqe_error *err) {
    ENTER(OP_DROP_TABLE);
    return catalog_drop_table_purge(W(c)->inner, who, schema, name, if_exists, purge, err);
}
static int w_rename_table(catalog *c, const sqe_principal *who, const char *schema,
                          const char *name, const char *to_schema, const char *to_name,
                          sqe_error *err) {
    ENTER(OP_RENAME_TABLE);
    return catalog_rename_table(W(c)->inner, who, schema, name, to_schema, to_name, err);
}
static int w_default_location(catalog *c, const sqe_principal *who, const char *schema,
                              const char *name, arena *a, char **out, sqe_error *err) {
    ENTER(OP_DEFAULT_LOCATION);
    return catalog_default_location(W(c)->inner, who, schema, name, a, out, err);
}
static int w_create_table_meta(catalog *c, const sqe_principal *who, const char *schema,
                               const char *name, struct ice_metadata *m, bool if_not_exists,
                               bool *created, sqe_error *err) {
    ENTER(OP_CREATE_TABLE_META);
    return catalog_create_table_meta(W(c)->inner, who, schema, name, m, if_not_exists, created,
                                     err);
}
static int w_commit(catalog *c, const struct ice_table_ref *base,
                    const struct ice_metadata *new_meta, sqe_error *err) {
    ENTER(OP_COMMIT);
    return catalog_commit(W(c)->inner, base, new_meta, err);
}
static int w_create_view(catalog *c, const cat_view *def, bool or_replace, sqe_error *err) {
    ENTER(OP_CREATE_VIEW);
    return catalog_create_view(W(c)->inner, def, or_replace, err);
}
static int w_drop_view(catalog *c, const char *schema, const char *name, bool if_exists,
                       sqe_error *err) {
    ENTER(OP_DROP_VIEW);
    return catalog_drop_view(W(c)->inner, schema, name, if_exists, err);
}
static int w_get_view(catalog *c, const char *schema, const char *name, cat_view **out,
                      sqe_error *err) {
    ENTER(OP_GET_VIEW);
    return catalog_get_view(W(c)->inner, schema, name, out, err);
}

static const catalog_ops wrap_template = {
    .type = "wrapper",
    .destroy = w_destroy,
    .list_schemas = w_list_schemas,
    .has_schema = w_has_schema,
    .create_schema = w_create_schema,
    .drop_schema = w_drop_schema,
    .list_tables = w_list_tables,
    .get_table = w_get_table,
    .create_table = w_create_table,
    .drop_table = w_drop_table,
    .rename_table = w_rename_table,
    .default_location = w_default_location,
    .create_table_meta = w_create_table_meta,
    .commit = w_commit,
    .create_view = w_create_view,
    .drop_view = w_drop_view,
    .get_view = w_get_view,
};

/* Replaces db's catalog named name by a wrapper around it; returns the wrapper's state. */
static wrap *wrap_catalog(sqe_db *db, const char *name) {
    for (uint32_t i = 0; i < db->n_catalogs; i++) {
        catalog *inner = db->catalogs[i];
        if (strcmp(inner->name, name)) continue;
        wrap *w = calloc(1, sizeof *w);
        assert_non_null(w);
        w->ops = wrap_template;
        w->ops.kind = inner->ops->kind;
        w->inner = inner;
        catalog *c;
        sqe_error err = {0};
        assert_int_equal(catalog_open_ops(name, &w->ops, w, inner->tracker, &c, &err), SQE_OK);
        db->catalogs[i] = c;
        return w;
    }
    fail_msg("no catalog %s", name);
    return NULL;
}

/* ---- fixture ------------------------------------------------------------------------------- */

typedef struct fixture {
    char dir[64];
    sqe_db *db;
    sqe_conn *conn;
    wrap *mem, *ice;
} fixture;

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
    (void)sb, (void)flag, (void)ftw;
    return remove(path);
}

static int setup(void **state) {
    fixture *f = calloc(1, sizeof *f);
    strcpy(f->dir, "/tmp/test_catalog_ops_XXXXXX");
    if (!mkdtemp(f->dir)) return -1;
    sqe_db_options o = {.threads = 2, .warehouse = f->dir};
    sqe_error err = {0};
    if (sqe_db_open(&o, &f->db, &err)) return -1;
    f->mem = wrap_catalog(f->db, "memory");
    f->ice = wrap_catalog(f->db, "iceberg");
    if (sqe_connect(f->db, &f->conn, &err)) return -1;
    *state = f;
    return 0;
}

static int teardown(void **state) {
    fixture *f = *state;
    sqe_disconnect(f->conn);
    int before = g_calls[OP_DESTROY];
    sqe_db_close(f->db);
    assert_int_equal(g_calls[OP_DESTROY], before + 2); /* each wrapper closed its catalog */
    nftw(f->dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    free(f);
    return 0;
}

/* Runs sql; returns its error code (0 on success) and, when it is a query with one row and
 * column, that value in *value (may be NULL). */
static int run(fixture *f, const char *sql, char *value, size_t len) {
    sqe_result *r = NULL;
    sqe_error err = {0};
    int rc = sqe_query(f->conn, sql, &r, &err);
    if (value) *value = 0;
    while (!rc) {
        const sqe_chunk *ch;
        rc = sqe_result_next(r, &ch, &err);
        if (rc || !ch) break;
        if (value && sqe_chunk_row_count(ch) > 0) sqe_chunk_format(ch, 0, 0, value, len);
    }
    sqe_result_destroy(r);
    return rc;
}

static void ok(fixture *f, const char *sql) {
    sqe_error err = {0};
    sqe_result *r = NULL;
    int rc = sqe_query(f->conn, sql, &r, &err);
    const sqe_chunk *ch = NULL;
    while (!rc && !(rc = sqe_result_next(r, &ch, &err)) && ch) {
    }
    sqe_result_destroy(r);
    if (rc) fail_msg("%s: %s", sql, err.message);
}

static void expect(fixture *f, const char *sql, const char *want) {
    char got[128];
    assert_int_equal(run(f, sql, got, sizeof got), SQE_OK);
    assert_string_equal(got, want);
}

/* ---- tests --------------------------------------------------------------------------------- */

/* Every statement family reaches the catalogs through their ops, whatever the kind. */
static void test_every_operation_goes_through_the_wrapper(void **state) {
    fixture *f = *state;
    memset(g_calls, 0, sizeof g_calls);
    /* Iceberg */
    ok(f, "CREATE SCHEMA iceberg.s");
    ok(f, "CREATE TABLE iceberg.s.t (a integer, b varchar)");
    assert_int_equal(f->ice->calls[OP_CREATE_TABLE_META], 1);
    int commits = f->ice->calls[OP_COMMIT];
    ok(f, "INSERT INTO iceberg.s.t VALUES (1, 'x'), (2, 'y'), (3, 'z')");
    ok(f, "UPDATE iceberg.s.t SET b = 'w' WHERE a = 2");
    ok(f, "DELETE FROM iceberg.s.t WHERE a = 3");
    ok(f, "MERGE INTO iceberg.s.t USING (VALUES 1, 4) AS v(a) ON t.a = v.a "
          "WHEN MATCHED THEN UPDATE SET b = 'm' WHEN NOT MATCHED THEN INSERT VALUES (v.a, 'n')");
    ok(f, "ALTER TABLE iceberg.s.t SET PROPERTIES format_version = 2");
    assert_int_equal(f->ice->calls[OP_COMMIT], commits + 5);
    expect(f, "SELECT count(*) FROM iceberg.s.t", "3");
    /* the version a lookup resolves to is the table's current snapshot */
    char snap[64];
    assert_int_equal(run(f, "SELECT snapshot_id FROM iceberg.s.\"t$snapshots\" WHERE snapshot_id "
                            "NOT IN (SELECT parent_id FROM iceberg.s.\"t$snapshots\" "
                            "WHERE parent_id IS NOT NULL)", snap, sizeof snap), SQE_OK);
    cat_table *t = NULL;
    sqe_error terr = {0};
    catalog *icat = NULL;
    for (uint32_t i = 0; i < f->db->n_catalogs; i++)
        if (!strcmp(f->db->catalogs[i]->name, "iceberg")) icat = f->db->catalogs[i];
    assert_int_equal(catalog_get_table(icat, NULL, "s", "t", &t, &terr), SQE_OK);
    char want[64];
    snprintf(want, sizeof want, "%lld", (long long)cat_table_snapshot_id(t));
    assert_string_equal(snap, want);
    cat_table_unref(t);
    expect(f, "SELECT count(*) FROM iceberg.s.\"t$snapshots\"", "4");
    ok(f, "ALTER TABLE iceberg.s.t RENAME TO iceberg.s.u");
    assert_int_equal(f->ice->calls[OP_RENAME_TABLE], 1);
    ok(f, "SHOW TABLES FROM iceberg.s");
    ok(f, "SHOW SCHEMAS FROM iceberg");
    ok(f, "USE iceberg.s");
    ok(f, "TRUNCATE TABLE u");
    assert_int_equal(f->ice->calls[OP_COMMIT], commits + 6);
    expect(f, "SELECT count(*) FROM u", "0");
    assert_int_not_equal(run(f, "CREATE VIEW iceberg.s.v AS SELECT 1 AS x", NULL, 0), SQE_OK);
    ok(f, "DROP VIEW IF EXISTS iceberg.s.v");
    ok(f, "DROP TABLE u");
    ok(f, "DROP SCHEMA iceberg.s");
    /* memory */
    ok(f, "CREATE SCHEMA memory.m");
    ok(f, "CREATE TABLE memory.m.t AS SELECT 1 AS a");
    ok(f, "CREATE VIEW memory.m.v AS SELECT a FROM memory.m.t");
    expect(f, "SELECT a FROM memory.m.v", "1");
    ok(f, "DROP VIEW memory.m.v");
    ok(f, "DROP TABLE memory.m.t");
    ok(f, "DROP SCHEMA memory.m");
    /* the one slot no statement uses directly */
    arena a;
    arena_init(&a, NULL);
    char *loc = NULL;
    sqe_error err = {0};
    catalog *ice = NULL;
    for (uint32_t i = 0; i < f->db->n_catalogs; i++)
        if (!strcmp(f->db->catalogs[i]->name, "iceberg")) ice = f->db->catalogs[i];
    assert_int_equal(catalog_default_location(ice, NULL, "default", "x", &a, &loc, &err), SQE_OK);
    assert_non_null(strstr(loc, "x"));
    arena_destroy(&a);
    /* every slot but destroy (checked at teardown) was called through a wrapper */
    for (int op = OP_LIST_SCHEMAS; op < N_OPS; op++)
        if (!g_calls[op])
            fail_msg("catalog_ops.%s was never called through the wrapper", op_names[op]);
    assert_true(f->mem->calls[OP_CREATE_TABLE] == 1 && f->mem->calls[OP_CREATE_VIEW] == 1);
}

/* A refusing wrapper stops the statement before anything changes. */
static void test_refused_operations_change_nothing(void **state) {
    fixture *f = *state;
    ok(f, "CREATE TABLE iceberg.default.r (a bigint)");
    ok(f, "INSERT INTO iceberg.default.r VALUES (1)");
    f->ice->refuse[OP_COMMIT] = true;
    assert_int_equal(run(f, "INSERT INTO iceberg.default.r VALUES (2)", NULL, 0),
                     SQE_ERR_PERMISSION_DENIED);
    assert_int_equal(run(f, "DELETE FROM iceberg.default.r", NULL, 0), SQE_ERR_PERMISSION_DENIED);
    f->ice->refuse[OP_COMMIT] = false;
    expect(f, "SELECT count(*) FROM iceberg.default.r", "1");
    f->ice->refuse[OP_DROP_TABLE] = true;
    assert_int_equal(run(f, "DROP TABLE iceberg.default.r", NULL, 0), SQE_ERR_PERMISSION_DENIED);
    f->ice->refuse[OP_DROP_TABLE] = false;
    expect(f, "SELECT count(*) FROM iceberg.default.r", "1");
    f->ice->refuse[OP_GET_TABLE] = true;
    assert_int_equal(run(f, "SELECT * FROM iceberg.default.r", NULL, 0), SQE_ERR_PERMISSION_DENIED);
    f->ice->refuse[OP_GET_TABLE] = false;
    ok(f, "DROP TABLE iceberg.default.r");
    /* memory: refusing table creation refuses CTAS and CREATE TABLE alike */
    f->mem->refuse[OP_CREATE_TABLE] = true;
    assert_int_equal(run(f, "CREATE TABLE memory.default.q AS SELECT 1 AS a", NULL, 0),
                     SQE_ERR_PERMISSION_DENIED);
    assert_int_equal(run(f, "CREATE TABLE memory.default.q (a int)", NULL, 0),
                     SQE_ERR_PERMISSION_DENIED);
    f->mem->refuse[OP_CREATE_TABLE] = false;
    assert_int_equal(run(f, "SELECT * FROM memory.default.q", NULL, 0), SQE_ERR_TABLE_NOT_FOUND);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_every_operation_goes_through_the_wrapper, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_refused_operations_change_nothing, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
