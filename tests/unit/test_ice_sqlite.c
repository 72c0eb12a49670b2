/*
 * test_ice_sqlite.c: unit tests of the SQLite Iceberg catalog (src/catalog/ice_sqlite.c), each in
 * a fresh temporary directory holding the database file and the warehouse.
 *
 * Covers: opening (the JDBC layout's tables and columns, WAL mode, reopening, defaults),
 * namespaces (create with properties, exists through children, list children, properties load
 * and update, drop refusals), tables (create writes 00000-<uuid>.metadata.json at the default
 * location, list, load and parse, register, rename, drop, purge NOT_SUPPORTED), commits
 * (version numbering, previous_metadata_location, compare-and-swap conflicts between two
 * handles on one file with the losing file removed, a dropped table, threads committing
 * through their own handles with retries: no commit lost, history linear), bad input (names,
 * corrupt and missing metadata files, remote locations), "v0" files without iceberg_type, view
 * rows, and two catalogs in one file. Interop with pyiceberg lives in
 * tests/iceberg/test_sqlite_catalog_interop.py.
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
#include <dirent.h>
#include <ftw.h>
#include <pthread.h>
#include <sqlite3.h>
#include <unistd.h>

#include "catalog/ice_sqlite.h"
#include "common/arena.h"
#include "common/err.h"
#include "common/strbuf.h"
#include "iceberg/metadata.h"

/* ---- fixture --------------------------------------------------------------------------------- */

typedef struct fixture {
    char dir[64];
    char db[128];
    char wh[128];
    ice_sqlite *c;
    arena a;
} fixture;

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
    (void)sb, (void)flag, (void)ftw;
    return remove(path);
}

static int setup(void **state) {
    fixture *f = calloc(1, sizeof *f);
    strcpy(f->dir, "/tmp/test_ice_sqlite_XXXXXX");
    if (!mkdtemp(f->dir)) return -1;
    snprintf(f->db, sizeof f->db, "%s/catalog.db", f->dir);
    snprintf(f->wh, sizeof f->wh, "%s/warehouse", f->dir);
    arena_init(&f->a, NULL);
    sqe_error err;
    if (ice_sqlite_open(f->db, f->wh, "test", &f->c, &err) != SQE_OK) {
        fprintf(stderr, "open: %s\n", err.message);
        return -1;
    }
    *state = f;
    return 0;
}

static int teardown(void **state) {
    fixture *f = *state;
    ice_sqlite_close(f->c);
    arena_destroy(&f->a);
    nftw(f->dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    free(f);
    return 0;
}

#define OK(expr)                                                                                   \
    do {                                                                                           \
        sqe_error err_;                                                                            \
        int rc_ = (expr);                                                                          \
        if (rc_ != SQE_OK) fail_msg("%s failed: %d %s", #expr, rc_, err_.message);                 \
    } while (0)

/* Runs expr (which must use `e` as its sqe_error) expecting code and a message with want. */
#define FAILS(code, want, expr)                                                                    \
    do {                                                                                           \
        sqe_error e;                                                                               \
        int rc_ = (expr);                                                                          \
        if (rc_ != (code))                                                                         \
            fail_msg("%s: expected %d, got %d (%s)", #expr, (code), rc_, rc_ ? e.message : "ok"); \
        if (!strstr(e.message, (want)))                                                            \
            fail_msg("%s: message \"%s\" lacks \"%s\"", #expr, e.message, (want));                 \
    } while (0)

static const char *schema_json =
    "{\"type\":\"struct\",\"schema-id\":0,\"fields\":[{\"id\":1,\"name\":\"id\",\"required\":"
    "true,\"type\":\"long\"},{\"id\":2,\"name\":\"s\",\"required\":false,\"type\":\"string\"}]}";

/* A fresh v2 table's metadata at location (built as JSON and parsed). */
static ice_metadata *new_meta(arena *a, const char *location) {
    char *json = arena_sprintf(
        a,
        "{\"format-version\":2,\"table-uuid\":\"9a1c1d2e-1111-4222-8333-444455556666\","
        "\"location\":\"%s\",\"last-sequence-number\":0,\"last-updated-ms\":1700000000000,"
        "\"last-column-id\":2,\"schemas\":[%s],\"current-schema-id\":0,"
        "\"partition-specs\":[{\"spec-id\":0,\"fields\":[]}],\"default-spec-id\":0,"
        "\"last-partition-id\":999,\"properties\":{},\"current-snapshot-id\":-1,"
        "\"snapshots\":[],\"snapshot-log\":[],\"metadata-log\":[],"
        "\"sort-orders\":[{\"order-id\":0,\"fields\":[]}],\"default-sort-order-id\":0}",
        location, schema_json);
    ice_metadata *m = NULL;
    sqe_error err;
    if (ice_metadata_parse(a, json, strlen(json), &m, &err) != SQE_OK)
        fail_msg("metadata: %s", err.message);
    return m;
}

/* Creates ns (if needed) and table ns.name at its default location; returns the location. */
static char *make_table(fixture *f, const char *ns, const char *name) {
    bool exists = false;
    OK(ice_sqlite_namespace_exists(f->c, ns, &exists, &err_));
    if (!exists) OK(ice_sqlite_create_namespace(f->c, ns, NULL, &err_));
    char *loc = NULL, *mloc = NULL;
    OK(ice_sqlite_default_table_location(f->c, ns, name, &f->a, &loc, &err_));
    OK(ice_sqlite_create_table(f->c, ns, name, new_meta(&f->a, loc), &f->a, &mloc, &err_));
    return mloc;
}

static int count_files(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return -1;
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)))
        if (de->d_name[0] != '.') n++;
    closedir(d);
    return n;
}

/* One text value from a query on the database file (through a separate connection). */
static char *sql_text(const char *db, const char *sql) {
    sqlite3 *h;
    assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) != SQLITE_OK) fail_msg("%s", sqlite3_errmsg(h));
    char *out = NULL;
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
        out = strdup((const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    sqlite3_close(h);
    return out;
}

static void sql_exec(const char *db, const char *sql) {
    sqlite3 *h;
    assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
    char *msg = NULL;
    if (sqlite3_exec(h, sql, NULL, NULL, &msg) != SQLITE_OK) fail_msg("%s: %s", sql, msg);
    sqlite3_close(h);
}

/* ---- open ------------------------------------------------------------------------------------ */

static void test_open_layout(void **state) {
    fixture *f = *state;
    char *cols = sql_text(f->db,
                          "SELECT group_concat(name, ',') FROM "
                          "pragma_table_info('iceberg_tables')");
    assert_string_equal(cols, "catalog_name,table_namespace,table_name,metadata_location,"
                              "previous_metadata_location,iceberg_type");
    free(cols);
    cols = sql_text(f->db, "SELECT group_concat(name || ':' || pk, ',') FROM "
                           "pragma_table_info('iceberg_namespace_properties')");
    assert_string_equal(cols, "catalog_name:1,namespace:2,property_key:3,property_value:0");
    free(cols);
    char *mode = sql_text(f->db, "PRAGMA journal_mode");
    assert_string_equal(mode, "wal");
    free(mode);
    assert_string_equal(ice_sqlite_catalog_name(f->c), "test");
    assert_string_equal(ice_sqlite_warehouse(f->c), f->wh);
    assert_string_equal(ice_sqlite_db_path(f->c), f->db);
    /* reopening an existing file works and sees the same rows */
    OK(ice_sqlite_create_namespace(f->c, "ns", NULL, &err_));
    ice_sqlite *c2 = NULL;
    OK(ice_sqlite_open(f->db, f->wh, "test", &c2, &err_));
    bool exists = false;
    OK(ice_sqlite_namespace_exists(c2, "ns", &exists, &err_));
    assert_true(exists);
    ice_sqlite_close(c2);
}

static void test_open_defaults_and_errors(void **state) {
    fixture *f = *state;
    /* trailing slashes of the warehouse are dropped; the catalog name defaults to "iceberg" */
    char wh[200];
    snprintf(wh, sizeof wh, "%s/wh2//", f->dir);
    ice_sqlite *c2 = NULL;
    OK(ice_sqlite_open(f->db, wh, NULL, &c2, &err_));
    assert_string_equal(ice_sqlite_catalog_name(c2), "iceberg");
    char want[200];
    snprintf(want, sizeof want, "%s/wh2", f->dir);
    assert_string_equal(ice_sqlite_warehouse(c2), want);
    ice_sqlite_close(c2);
    /* HOME defaults */
    char *old_home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
    setenv("HOME", f->dir, 1);
    OK(ice_sqlite_open(NULL, NULL, "x", &c2, &err_));
    snprintf(want, sizeof want, "%s/.sqe/warehouse", f->dir);
    assert_string_equal(ice_sqlite_warehouse(c2), want);
    snprintf(want, sizeof want, "%s/.sqe/catalog.db", f->dir);
    assert_string_equal(ice_sqlite_db_path(c2), want);
    assert_int_equal(access(want, F_OK), 0);
    ice_sqlite_close(c2);
    if (old_home) setenv("HOME", old_home, 1);
    free(old_home);
    /* a database path that cannot be created */
    char bad[200];
    snprintf(bad, sizeof bad, "%s/catalog.db/sub/x.db", f->dir);
    FAILS(SQE_ERR_IO_ERROR, "catalog.db", ice_sqlite_open(bad, f->wh, "t", &c2, &e));
    FAILS(SQE_ERR_INVALID_ARGUMENTS, "catalog name", ice_sqlite_open(f->db, f->wh, "", &c2, &e));
    /* a file that is not an SQLite database */
    snprintf(bad, sizeof bad, "%s/junk.db", f->dir);
    FILE *fp = fopen(bad, "w");
    fputs("this is not a database, not at all, really not.........................................."
          "..............................................................................",
          fp);
    fclose(fp);
    FAILS(SQE_ERR_IO_ERROR, "junk.db", ice_sqlite_open(bad, f->wh, "t", &c2, &e));
}

/* ---- namespaces ------------------------------------------------------------------------------ */

static void test_namespaces(void **state) {
    fixture *f = *state;
    ice_kv props[2] = {{"owner", "ann"}, {"comment", "x_y%"}};
    ice_kv_list pl = {2, props};
    OK(ice_sqlite_create_namespace(f->c, "a", &pl, &err_));
    OK(ice_sqlite_create_namespace(f->c, "a.b.c", NULL, &err_));
    OK(ice_sqlite_create_namespace(f->c, "z_1", NULL, &err_));
    FAILS(SQE_ERR_ALREADY_EXISTS, "Namespace a already exists",
          ice_sqlite_create_namespace(f->c, "a", NULL, &e));
    /* a.b exists through a.b.c */
    FAILS(SQE_ERR_ALREADY_EXISTS, "a.b", ice_sqlite_create_namespace(f->c, "a.b", NULL, &e));
    bool exists = false;
    OK(ice_sqlite_namespace_exists(f->c, "a.b", &exists, &err_));
    assert_true(exists);
    OK(ice_sqlite_namespace_exists(f->c, "a.bc", &exists, &err_));
    assert_false(exists);
    OK(ice_sqlite_namespace_exists(f->c, "z%1", &exists, &err_)); /* no LIKE wildcards */
    assert_false(exists);

    char **names = NULL;
    uint32_t n = 0;
    OK(ice_sqlite_list_namespaces(f->c, NULL, &f->a, &names, &n, &err_));
    assert_int_equal(n, 2);
    assert_string_equal(names[0], "a");
    assert_string_equal(names[1], "z_1");
    OK(ice_sqlite_list_namespaces(f->c, "a", &f->a, &names, &n, &err_));
    assert_int_equal(n, 1);
    assert_string_equal(names[0], "a.b");
    OK(ice_sqlite_list_namespaces(f->c, "a.b", &f->a, &names, &n, &err_));
    assert_int_equal(n, 1);
    assert_string_equal(names[0], "a.b.c");
    OK(ice_sqlite_list_namespaces(f->c, "a.b.c", &f->a, &names, &n, &err_));
    assert_int_equal(n, 0);
    FAILS(SQE_ERR_SCHEMA_NOT_FOUND, "Namespace does not exist: q",
          ice_sqlite_list_namespaces(f->c, "q", &f->a, &names, &n, &e));

    ice_kv_list got;
    OK(ice_sqlite_load_namespace_properties(f->c, "a", &f->a, &got, &err_));
    assert_int_equal(got.n, 3);
    assert_string_equal(ice_kv_get(&got, "owner"), "ann");
    assert_string_equal(ice_kv_get(&got, "comment"), "x_y%");
    assert_string_equal(ice_kv_get(&got, "exists"), "true");
    assert_string_equal(got.items[0].key, "comment"); /* sorted */
    OK(ice_sqlite_load_namespace_properties(f->c, "a.b", &f->a, &got, &err_));
    assert_int_equal(got.n, 0); /* implicit namespace */
    FAILS(SQE_ERR_SCHEMA_NOT_FOUND, "q",
          ice_sqlite_load_namespace_properties(f->c, "q", &f->a, &got, &e));

    const char *rm[2] = {"owner", "nope"};
    ice_kv up[1] = {{"location", "/somewhere"}};
    ice_kv_list ul = {1, up};
    OK(ice_sqlite_update_namespace_properties(f->c, "a", rm, 2, &ul, &err_));
    OK(ice_sqlite_load_namespace_properties(f->c, "a", &f->a, &got, &err_));
    assert_null(ice_kv_get(&got, "owner"));
    assert_string_equal(ice_kv_get(&got, "location"), "/somewhere");
    const char *rm_loc[1] = {"location"};
    FAILS(SQE_ERR_INVALID_ARGUMENTS, "both removed and updated",
          ice_sqlite_update_namespace_properties(f->c, "a", rm_loc, 1, &ul, &e));
    /* removing everything keeps the namespace */
    const char *rm_all[3] = {"location", "comment", "exists"};
    OK(ice_sqlite_update_namespace_properties(f->c, "z_1", rm_all, 3, NULL, &err_));
    OK(ice_sqlite_load_namespace_properties(f->c, "z_1", &f->a, &got, &err_));
    assert_int_equal(got.n, 1);
    assert_string_equal(got.items[0].key, "exists");
    FAILS(SQE_ERR_SCHEMA_NOT_FOUND, "q",
          ice_sqlite_update_namespace_properties(f->c, "q", NULL, 0, &ul, &e));

    FAILS(SQE_ERR_SCHEMA_NOT_EMPTY, "child namespaces", ice_sqlite_drop_namespace(f->c, "a", &e));
    OK(ice_sqlite_drop_namespace(f->c, "a.b.c", &err_));
    /* a.b existed only through a.b.c */
    OK(ice_sqlite_namespace_exists(f->c, "a.b", &exists, &err_));
    assert_false(exists);
    FAILS(SQE_ERR_SCHEMA_NOT_FOUND, "a.b", ice_sqlite_drop_namespace(f->c, "a.b", &e));
    OK(ice_sqlite_drop_namespace(f->c, "a", &err_));
    OK(ice_sqlite_list_namespaces(f->c, "", &f->a, &names, &n, &err_));
    assert_int_equal(n, 1);
    assert_string_equal(names[0], "z_1");
}

static void test_bad_names(void **state) {
    fixture *f = *state;
    char **names;
    uint32_t n;
    FAILS(SQE_ERR_INVALID_ARGUMENTS, "empty", ice_sqlite_create_namespace(f->c, "", NULL, &e));
    FAILS(SQE_ERR_INVALID_ARGUMENTS, "empty", ice_sqlite_create_namespace(f->c, NULL, NULL, &e));
    FAILS(SQE_ERR_INVALID_ARGUMENTS, "empty level",
          ice_sqlite_create_namespace(f->c, "a..b", NULL, &e));
    FAILS(SQE_ERR_INVALID_ARGUMENTS, "empty level",
          ice_sqlite_create_namespace(f->c, ".a", NULL, &e));
    FAILS(SQE_ERR_INVALID_ARGUMENTS, "empty level",
          ice_sqlite_list_namespaces(f->c, "a.", &f->a, &names, &n, &e));
    FAILS(SQE_ERR_INVALID_ARGUMENTS, "'/'", ice_sqlite_create_namespace(f->c, "a/b", NULL, &e));
    char longname[300];
    memset(longname, 'x', sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    FAILS(SQE_ERR_INVALID_ARGUMENTS, "longer than 255",
          ice_sqlite_create_namespace(f->c, longname, NULL, &e));
    OK(ice_sqlite_create_namespace(f->c, "ns", NULL, &err_));
    char *loc = NULL;
    FAILS(SQE_ERR_INVALID_ARGUMENTS, "invalid table name",
          ice_sqlite_default_table_location(f->c, "ns", "..", &f->a, &loc, &e));
    FAILS(SQE_ERR_INVALID_ARGUMENTS, "invalid table name",
          ice_sqlite_load_table(f->c, "ns", "a/b", &f->a, &loc, NULL, &e));
    FAILS(SQE_ERR_INVALID_ARGUMENTS, "table name is empty",
          ice_sqlite_drop_table(f->c, "ns", "", false, &e));
    FAILS(SQE_ERR_INVALID_ARGUMENTS, "longer than 255",
          ice_sqlite_rename_table(f->c, "ns", "t", "ns", longname, &e));
    ice_kv bad[1] = {{"", "v"}};
    ice_kv_list bl = {1, bad};
    FAILS(SQE_ERR_INVALID_ARGUMENTS, "empty key", ice_sqlite_create_namespace(f->c, "n2", &bl, &e));
    bool exists = true;
    OK(ice_sqlite_namespace_exists(f->c, "n2", &exists, &err_));
    assert_false(exists); /* nothing written */
}

/* ---- tables ---------------------------------------------------------------------------------- */

static void test_tables(void **state) {
    fixture *f = *state;
    OK(ice_sqlite_create_namespace(f->c, "db.sub", NULL, &err_));
    char *loc = NULL;
    OK(ice_sqlite_default_table_location(f->c, "db.sub", "t1", &f->a, &loc, &err_));
    char want[300];
    snprintf(want, sizeof want, "%s/db/sub/t1", f->wh);
    assert_string_equal(loc, want);
    char *mloc = NULL;
    OK(ice_sqlite_create_table(f->c, "db.sub", "t1", new_meta(&f->a, loc), &f->a, &mloc, &err_));
    snprintf(want, sizeof want, "%s/db/sub/t1/metadata/00000-", f->wh);
    assert_memory_equal(mloc, want, strlen(want));
    assert_int_equal(ice_sqlite_metadata_version(mloc), 0);
    assert_int_equal(access(mloc, R_OK), 0);
    char *type = sql_text(f->db, "SELECT iceberg_type || '|' || ifnull(previous_metadata_location,"
                                 "'null') FROM iceberg_tables WHERE table_name = 't1'");
    assert_string_equal(type, "TABLE|null");
    free(type);

    FAILS(SQE_ERR_ALREADY_EXISTS, "Table db.sub.t1 already exists",
          ice_sqlite_create_table(f->c, "db.sub", "t1", new_meta(&f->a, loc), &f->a, &mloc, &e));
    snprintf(want, sizeof want, "%s/db/sub/t1/metadata", f->wh);
    assert_int_equal(count_files(want), 1);
    FAILS(SQE_ERR_SCHEMA_NOT_FOUND, "Namespace does not exist: nope",
          ice_sqlite_create_table(f->c, "nope", "t1", new_meta(&f->a, loc), &f->a, &mloc, &e));
    ice_metadata *noloc = new_meta(&f->a, loc);
    noloc->location = NULL;
    FAILS(SQE_ERR_INVALID_ARGUMENTS, "without location",
          ice_sqlite_create_table(f->c, "db.sub", "t9", noloc, &f->a, &mloc, &e));

    make_table(f, "db.sub", "t0");
    char **names = NULL;
    uint32_t n = 0;
    OK(ice_sqlite_list_tables(f->c, "db.sub", &f->a, &names, &n, &err_));
    assert_int_equal(n, 2);
    assert_string_equal(names[0], "t0");
    assert_string_equal(names[1], "t1");
    OK(ice_sqlite_list_tables(f->c, "db", &f->a, &names, &n, &err_));
    assert_int_equal(n, 0);
    FAILS(SQE_ERR_SCHEMA_NOT_FOUND, "nope",
          ice_sqlite_list_tables(f->c, "nope", &f->a, &names, &n, &e));

    char *got_loc = NULL;
    ice_metadata *m = NULL;
    OK(ice_sqlite_load_table(f->c, "db.sub", "t1", &f->a, &got_loc, &m, &err_));
    assert_string_equal(got_loc, mloc);
    snprintf(want, sizeof want, "%s/db/sub/t1", f->wh);
    assert_string_equal(m->location, want);
    assert_int_equal(ice_metadata_current_schema(m)->type.n_fields, 2);
    assert_string_equal(ice_metadata_current_schema(m)->type.fields[1].name, "s");
    FAILS(SQE_ERR_TABLE_NOT_FOUND, "Table does not exist: db.sub.zz",
          ice_sqlite_load_table(f->c, "db.sub", "zz", &f->a, &got_loc, &m, &e));

    /* namespace with a location property */
    ice_kv props[1] = {{"location", "file:///elsewhere/dbx/"}};
    ice_kv_list pl = {1, props};
    OK(ice_sqlite_create_namespace(f->c, "dbx", &pl, &err_));
    OK(ice_sqlite_default_table_location(f->c, "dbx", "t", &f->a, &loc, &err_));
    assert_string_equal(loc, "file:///elsewhere/dbx/t");

    /* a namespace with tables cannot be dropped */
    FAILS(SQE_ERR_SCHEMA_NOT_EMPTY, "2 tables", ice_sqlite_drop_namespace(f->c, "db.sub", &e));

    /* rename */
    OK(ice_sqlite_create_namespace(f->c, "other", NULL, &err_));
    FAILS(SQE_ERR_ALREADY_EXISTS, "db.sub.t0 already exists",
          ice_sqlite_rename_table(f->c, "db.sub", "t1", "db.sub", "t0", &e));
    FAILS(SQE_ERR_SCHEMA_NOT_FOUND, "nope",
          ice_sqlite_rename_table(f->c, "db.sub", "t1", "nope", "t1", &e));
    FAILS(SQE_ERR_TABLE_NOT_FOUND, "db.sub.zz",
          ice_sqlite_rename_table(f->c, "db.sub", "zz", "other", "t1", &e));
    OK(ice_sqlite_rename_table(f->c, "db.sub", "t1", "other", "moved", &err_));
    OK(ice_sqlite_load_table(f->c, "other", "moved", &f->a, &got_loc, NULL, &err_));
    assert_string_equal(got_loc, mloc); /* files do not move */
    FAILS(SQE_ERR_TABLE_NOT_FOUND, "db.sub.t1",
          ice_sqlite_load_table(f->c, "db.sub", "t1", &f->a, &got_loc, NULL, &e));

    /* register */
    OK(ice_sqlite_register_table(f->c, "other", "again", mloc, &err_));
    OK(ice_sqlite_load_table(f->c, "other", "again", &f->a, NULL, &m, &err_));
    FAILS(SQE_ERR_ALREADY_EXISTS, "other.again",
          ice_sqlite_register_table(f->c, "other", "again", mloc, &e));

    /* drop */
    FAILS(SQE_ERR_NOT_SUPPORTED, "purge", ice_sqlite_drop_table(f->c, "other", "again", true, &e));
    OK(ice_sqlite_load_table(f->c, "other", "again", &f->a, NULL, NULL, &err_));
    OK(ice_sqlite_drop_table(f->c, "other", "again", false, &err_));
    FAILS(SQE_ERR_TABLE_NOT_FOUND, "other.again",
          ice_sqlite_drop_table(f->c, "other", "again", false, &e));
    assert_int_equal(access(mloc, R_OK), 0); /* files stay */
}

/* ---- commits --------------------------------------------------------------------------------- */

static void test_commit(void **state) {
    fixture *f = *state;
    char *v0 = make_table(f, "ns", "t");
    ice_metadata *m = NULL;
    char *cur = NULL, *v1 = NULL, *v2 = NULL;
    OK(ice_sqlite_load_table(f->c, "ns", "t", &f->a, &cur, &m, &err_));
    m->last_updated_ms++;
    OK(ice_sqlite_commit(f->c, "ns", "t", cur, m, &f->a, &v1, &err_));
    assert_int_equal(ice_sqlite_metadata_version(v1), 1);
    char *prev = sql_text(f->db, "SELECT previous_metadata_location FROM iceberg_tables");
    assert_string_equal(prev, v0);
    free(prev);
    OK(ice_sqlite_commit(f->c, "ns", "t", v1, m, &f->a, &v2, &err_));
    assert_int_equal(ice_sqlite_metadata_version(v2), 2);
    OK(ice_sqlite_load_table(f->c, "ns", "t", &f->a, &cur, NULL, &err_));
    assert_string_equal(cur, v2);

    char dir[300];
    snprintf(dir, sizeof dir, "%s/ns/t/metadata", f->wh);
    assert_int_equal(count_files(dir), 3);
    /* stale expected location: conflict, the file written is removed */
    char *lost = NULL;
    FAILS(ICE_SQLITE_ERR_COMMIT_CONFLICT, "Commit failed: table ns.t was changed concurrently",
          ice_sqlite_commit(f->c, "ns", "t", v1, m, &f->a, &lost, &e));
    assert_null(lost);
    assert_int_equal(count_files(dir), 3);
    OK(ice_sqlite_load_table(f->c, "ns", "t", &f->a, &cur, NULL, &err_));
    assert_string_equal(cur, v2);

    /* the metadata dir follows write.metadata.path */
    ice_kv props[1] = {{"write.metadata.path", "PLACEHOLDER"}};
    char mdir[300];
    snprintf(mdir, sizeof mdir, "%s/custom-meta/", f->dir);
    props[0].value = mdir;
    m->properties = (ice_kv_list){1, props};
    char *v3 = NULL;
    OK(ice_sqlite_commit(f->c, "ns", "t", v2, m, &f->a, &v3, &err_));
    char want[400];
    snprintf(want, sizeof want, "%s/custom-meta/00003-", f->dir);
    assert_memory_equal(v3, want, strlen(want));

    /* the table is gone: TABLE_NOT_FOUND, and no file left */
    OK(ice_sqlite_drop_table(f->c, "ns", "t", false, &err_));
    FAILS(SQE_ERR_TABLE_NOT_FOUND, "ns.t",
          ice_sqlite_commit(f->c, "ns", "t", v3, m, &f->a, &lost, &e));
    snprintf(want, sizeof want, "%s/custom-meta", f->dir);
    assert_int_equal(count_files(want), 1);
    FAILS(SQE_ERR_INVALID_ARGUMENTS, "missing expected location",
          ice_sqlite_commit(f->c, "ns", "t", NULL, m, &f->a, &lost, &e));
}

static void test_commit_conflict_two_handles(void **state) {
    fixture *f = *state;
    make_table(f, "ns", "t");
    ice_sqlite *other = NULL;
    OK(ice_sqlite_open(f->db, f->wh, "test", &other, &err_));
    char *loc_a = NULL, *loc_b = NULL, *new_a = NULL, *new_b = NULL;
    ice_metadata *ma = NULL, *mb = NULL;
    OK(ice_sqlite_load_table(f->c, "ns", "t", &f->a, &loc_a, &ma, &err_));
    OK(ice_sqlite_load_table(other, "ns", "t", &f->a, &loc_b, &mb, &err_));
    assert_string_equal(loc_a, loc_b);
    OK(ice_sqlite_commit(f->c, "ns", "t", loc_a, ma, &f->a, &new_a, &err_));
    FAILS(ICE_SQLITE_ERR_COMMIT_CONFLICT, new_a,
          ice_sqlite_commit(other, "ns", "t", loc_b, mb, &f->a, &new_b, &e));
    /* retry after reloading wins */
    OK(ice_sqlite_load_table(other, "ns", "t", &f->a, &loc_b, &mb, &err_));
    OK(ice_sqlite_commit(other, "ns", "t", loc_b, mb, &f->a, &new_b, &err_));
    assert_int_equal(ice_sqlite_metadata_version(new_b), 2);
    char *prev = sql_text(f->db, "SELECT previous_metadata_location FROM iceberg_tables");
    assert_string_equal(prev, new_a);
    free(prev);
    ice_sqlite_close(other);
}

typedef struct committer {
    fixture *f;
    int commits;
    int conflicts;
    int failed;
    char message[512];
} committer;

static void *commit_thread(void *arg) {
    committer *t = arg;
    ice_sqlite *c = NULL;
    sqe_error err;
    if (ice_sqlite_open(t->f->db, t->f->wh, "test", &c, &err) != SQE_OK) {
        t->failed = 1;
        snprintf(t->message, sizeof t->message, "%s", err.message);
        return NULL;
    }
    arena a;
    arena_init(&a, NULL);
    for (int done = 0; done < t->commits && !t->failed;) {
        char *loc = NULL, *new_loc = NULL;
        ice_metadata *m = NULL;
        int rc = ice_sqlite_load_table(c, "ns", "t", &a, &loc, &m, &err);
        if (rc == SQE_OK) rc = ice_sqlite_commit(c, "ns", "t", loc, m, &a, &new_loc, &err);
        if (rc == SQE_OK) {
            done++;
        } else if (rc == ICE_SQLITE_ERR_COMMIT_CONFLICT) {
            t->conflicts++;
        } else {
            t->failed = 1;
            snprintf(t->message, sizeof t->message, "%s", err.message);
        }
        arena_reset(&a);
    }
    arena_destroy(&a);
    ice_sqlite_close(c);
    return NULL;
}

static void test_commit_threads(void **state) {
    fixture *f = *state;
    make_table(f, "ns", "t");
    enum { N_THREADS = 4, N_COMMITS = 12 };
    pthread_t th[N_THREADS];
    committer cs[N_THREADS];
    for (int i = 0; i < N_THREADS; i++) {
        cs[i] = (committer){.f = f, .commits = N_COMMITS};
        pthread_create(&th[i], NULL, commit_thread, &cs[i]);
    }
    for (int i = 0; i < N_THREADS; i++) pthread_join(th[i], NULL);
    for (int i = 0; i < N_THREADS; i++)
        if (cs[i].failed) fail_msg("thread %d: %s", i, cs[i].message);
    char *loc = NULL;
    OK(ice_sqlite_load_table(f->c, "ns", "t", &f->a, &loc, NULL, &err_));
    /* every commit landed exactly once: versions 1..N*M, one file each */
    assert_int_equal(ice_sqlite_metadata_version(loc), N_THREADS * N_COMMITS);
    char dir[300];
    snprintf(dir, sizeof dir, "%s/ns/t/metadata", f->wh);
    assert_int_equal(count_files(dir), N_THREADS * N_COMMITS + 1);
}

/* A commit through a handle shared by threads (the handle's own lock). */
typedef struct shared_committer {
    ice_sqlite *c;
    const char *wh;
    int ok;
    int conflicts;
} shared_committer;

static void *shared_thread(void *arg) {
    shared_committer *t = arg;
    arena a;
    arena_init(&a, NULL);
    sqe_error err;
    for (int i = 0; i < 10; i++) {
        char *loc = NULL, *new_loc = NULL;
        ice_metadata *m = NULL;
        if (ice_sqlite_load_table(t->c, "ns", "t", &a, &loc, &m, &err) != SQE_OK) break;
        int rc = ice_sqlite_commit(t->c, "ns", "t", loc, m, &a, &new_loc, &err);
        if (rc == SQE_OK) t->ok++;
        else if (rc == ICE_SQLITE_ERR_COMMIT_CONFLICT) t->conflicts++;
        arena_reset(&a);
    }
    arena_destroy(&a);
    return NULL;
}

static void test_commit_shared_handle(void **state) {
    fixture *f = *state;
    make_table(f, "ns", "t");
    pthread_t th[3];
    shared_committer cs[3];
    for (int i = 0; i < 3; i++) {
        cs[i] = (shared_committer){.c = f->c, .wh = f->wh};
        pthread_create(&th[i], NULL, shared_thread, &cs[i]);
    }
    int ok = 0;
    for (int i = 0; i < 3; i++) {
        pthread_join(th[i], NULL);
        ok += cs[i].ok;
        assert_int_equal(cs[i].ok + cs[i].conflicts, 10);
    }
    char *loc = NULL;
    OK(ice_sqlite_load_table(f->c, "ns", "t", &f->a, &loc, NULL, &err_));
    assert_int_equal(ice_sqlite_metadata_version(loc), ok);
    char dir[300];
    snprintf(dir, sizeof dir, "%s/ns/t/metadata", f->wh);
    assert_int_equal(count_files(dir), ok + 1);
}

/* ---- bad files, other layouts ---------------------------------------------------------------- */

static void test_bad_metadata(void **state) {
    fixture *f = *state;
    char *mloc = make_table(f, "ns", "t");
    char *loc = NULL;
    ice_metadata *m = NULL;
    /* corrupt the file */
    FILE *fp = fopen(mloc, "w");
    fputs("{\"format-version\": 2, \"table-uuid\": 7}", fp);
    fclose(fp);
    FAILS(SQE_ERR_INVALID_FILE, mloc, ice_sqlite_load_table(f->c, "ns", "t", &f->a, &loc, &m, &e));
    FAILS(SQE_ERR_INVALID_FILE, "Invalid Iceberg metadata",
          ice_sqlite_load_table(f->c, "ns", "t", &f->a, &loc, &m, &e));
    /* the location alone still loads */
    OK(ice_sqlite_load_table(f->c, "ns", "t", &f->a, &loc, NULL, &err_));
    unlink(mloc);
    FAILS(SQE_ERR_NOT_FOUND, mloc, ice_sqlite_load_table(f->c, "ns", "t", &f->a, &loc, &m, &e));
    sql_exec(f->db, "UPDATE iceberg_tables SET metadata_location = 's3://bucket/x/00001-"
                    "0c1d2e3f-1111-4222-8333-444455556666.metadata.json'");
    FAILS(SQE_ERR_NOT_SUPPORTED, "s3://bucket",
          ice_sqlite_load_table(f->c, "ns", "t", &f->a, &loc, &m, &e));
    sql_exec(f->db, "UPDATE iceberg_tables SET metadata_location = NULL");
    FAILS(SQE_ERR_INVALID_FILE, "has no metadata location",
          ice_sqlite_load_table(f->c, "ns", "t", &f->a, &loc, &m, &e));
    FAILS(SQE_ERR_NOT_SUPPORTED, "file URI with a host",
          ice_sqlite_read_metadata("file://host/x.json", &f->a, &m, &e));
    FAILS(SQE_ERR_INVALID_FILE, "not a regular file",
          ice_sqlite_read_metadata(f->dir, &f->a, &m, &e));
    /* file: URIs of every spelling reach the same file */
    char *v0 = make_table(f, "ns", "u");
    char uri[400];
    snprintf(uri, sizeof uri, "file://%s", v0);
    OK(ice_sqlite_read_metadata(uri, &f->a, &m, &err_));
    snprintf(uri, sizeof uri, "file:%s", v0);
    OK(ice_sqlite_read_metadata(uri, &f->a, &m, &err_));
    snprintf(uri, sizeof uri, "file://localhost%s", v0);
    OK(ice_sqlite_read_metadata(uri, &f->a, &m, &err_));
}

static void test_metadata_version(void **state) {
    (void)state;
#define UUID_ "6c97e413-d51b-4538-ac70-12fe2a85cb83"
    assert_int_equal(ice_sqlite_metadata_version("s3://b/t/metadata/00012-" UUID_ ".metadata.json"),
                     12);
    assert_int_equal(ice_sqlite_metadata_version("/t/00000-6C97E413-D51B-4538-AC70-12FE2A85CB83"
                                                 ".gz.metadata.json"),
                     0);
    assert_int_equal(ice_sqlite_metadata_version("123456-" UUID_ ".metadata.json"), 123456);
    assert_int_equal(ice_sqlite_metadata_version("/t/v3.metadata.json"), -1);
    assert_int_equal(ice_sqlite_metadata_version("/t/00001-xyz.metadata.json"), -1);
    assert_int_equal(ice_sqlite_metadata_version("/t/00001-" UUID_ ".json"), -1);
    assert_int_equal(ice_sqlite_metadata_version("/t/-" UUID_ ".metadata.json"), -1);
    assert_int_equal(ice_sqlite_metadata_version("/t/00001-" UUID_ ".metadata.jsonx"), -1);
    assert_int_equal(ice_sqlite_metadata_version("/t/99999999999999999999-" UUID_ ".metadata.json"),
                     -1);
    assert_int_equal(ice_sqlite_metadata_version(NULL), -1);
    assert_int_equal(ice_sqlite_metadata_version(""), -1);
#undef UUID_
}

static void test_v0_layout_and_views(void **state) {
    fixture *f = *state;
    /* a v0 file: iceberg_tables without iceberg_type */
    char db0[200];
    snprintf(db0, sizeof db0, "%s/v0.db", f->dir);
    sql_exec(db0, "CREATE TABLE iceberg_tables (catalog_name VARCHAR(255) NOT NULL, "
                  "table_namespace VARCHAR(255) NOT NULL, table_name VARCHAR(255) NOT NULL, "
                  "metadata_location VARCHAR(1000), previous_metadata_location VARCHAR(1000), "
                  "PRIMARY KEY (catalog_name, table_namespace, table_name))");
    ice_sqlite *c0 = NULL;
    OK(ice_sqlite_open(db0, f->wh, "test", &c0, &err_));
    OK(ice_sqlite_create_namespace(c0, "old", NULL, &err_));
    char *loc = NULL, *mloc = NULL, *v1 = NULL;
    OK(ice_sqlite_default_table_location(c0, "old", "t", &f->a, &loc, &err_));
    ice_metadata *m = new_meta(&f->a, loc);
    OK(ice_sqlite_create_table(c0, "old", "t", m, &f->a, &mloc, &err_));
    OK(ice_sqlite_commit(c0, "old", "t", mloc, m, &f->a, &v1, &err_));
    char **names;
    uint32_t n;
    OK(ice_sqlite_list_tables(c0, "old", &f->a, &names, &n, &err_));
    assert_int_equal(n, 1);
    OK(ice_sqlite_drop_table(c0, "old", "t", false, &err_));
    ice_sqlite_close(c0);
    char *cols = sql_text(db0, "SELECT count(*) FROM pragma_table_info('iceberg_tables')");
    assert_string_equal(cols, "5");
    free(cols);

    /* view rows (Iceberg Java) are neither listed nor loaded, but block the name */
    make_table(f, "ns", "t");
    sql_exec(f->db, "INSERT INTO iceberg_tables VALUES ('test', 'ns', 'v', '/x/v.metadata.json', "
                    "NULL, 'VIEW')");
    OK(ice_sqlite_list_tables(f->c, "ns", &f->a, &names, &n, &err_));
    assert_int_equal(n, 1);
    assert_string_equal(names[0], "t");
    FAILS(SQE_ERR_TABLE_NOT_FOUND, "ns.v",
          ice_sqlite_load_table(f->c, "ns", "v", &f->a, &loc, NULL, &e));
    FAILS(SQE_ERR_TABLE_NOT_FOUND, "ns.v", ice_sqlite_drop_table(f->c, "ns", "v", false, &e));
    FAILS(SQE_ERR_ALREADY_EXISTS, "ns.v",
          ice_sqlite_create_table(f->c, "ns", "v", new_meta(&f->a, "/x/v"), &f->a, &mloc, &e));
    OK(ice_sqlite_drop_table(f->c, "ns", "t", false, &err_));
    FAILS(SQE_ERR_SCHEMA_NOT_EMPTY, "1 tables", ice_sqlite_drop_namespace(f->c, "ns", &e));
}

static void test_two_catalogs_one_file(void **state) {
    fixture *f = *state;
    make_table(f, "ns", "t");
    ice_sqlite *other = NULL;
    OK(ice_sqlite_open(f->db, f->wh, "other", &other, &err_));
    char **names;
    uint32_t n;
    OK(ice_sqlite_list_namespaces(other, NULL, &f->a, &names, &n, &err_));
    assert_int_equal(n, 0);
    FAILS(SQE_ERR_SCHEMA_NOT_FOUND, "ns",
          ice_sqlite_list_tables(other, "ns", &f->a, &names, &n, &e));
    OK(ice_sqlite_create_namespace(other, "ns", NULL, &err_));
    OK(ice_sqlite_list_tables(other, "ns", &f->a, &names, &n, &err_));
    assert_int_equal(n, 0);
    ice_sqlite_close(other);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_open_layout, setup, teardown),
        cmocka_unit_test_setup_teardown(test_open_defaults_and_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_namespaces, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_names, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tables, setup, teardown),
        cmocka_unit_test_setup_teardown(test_commit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_commit_conflict_two_handles, setup, teardown),
        cmocka_unit_test_setup_teardown(test_commit_threads, setup, teardown),
        cmocka_unit_test_setup_teardown(test_commit_shared_handle, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_metadata, setup, teardown),
        cmocka_unit_test(test_metadata_version),
        cmocka_unit_test_setup_teardown(test_v0_layout_and_views, setup, teardown),
        cmocka_unit_test_setup_teardown(test_two_catalogs_one_file, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
