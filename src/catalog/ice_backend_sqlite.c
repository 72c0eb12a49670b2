/*
 * ice_backend_sqlite.c: the embedded SQLite catalog (ice_sqlite.h) as an Iceberg catalog
 * backend (ice_backend.h).
 *
 * INTERFACE: ice_backend_sqlite, ice_backend_close.
 * NOTES: the SQLite catalog has no users of its own: `who` is ignored (whoever may reach the
 * server's catalog through SQL may use every table in it).
 */
#include "catalog/ice_backend.h"

#include <stdlib.h>

#include "catalog/ice_sqlite.h"

static const char *sq_warehouse(void *impl) { return ice_sqlite_warehouse(impl); }

/* Every operation ignores who (see NOTES). */
#define WHO const sqe_principal *who

static int sq_namespace_exists(void *impl, WHO, const char *ns, bool *exists, sqe_error *err) {
    (void)who;
    return ice_sqlite_namespace_exists(impl, ns, exists, err);
}

static int sq_create_namespace(void *impl, WHO, const char *ns, const ice_kv_list *props,
                               sqe_error *err) {
    (void)who;
    return ice_sqlite_create_namespace(impl, ns, props, err);
}

static int sq_list_namespaces(void *impl, WHO, const char *parent, arena *a, char ***names,
                              uint32_t *n, sqe_error *err) {
    (void)who;
    return ice_sqlite_list_namespaces(impl, parent, a, names, n, err);
}

static int sq_drop_namespace(void *impl, WHO, const char *ns, sqe_error *err) {
    (void)who;
    return ice_sqlite_drop_namespace(impl, ns, err);
}

static int sq_list_tables(void *impl, WHO, const char *ns, arena *a, char ***names, uint32_t *n,
                          sqe_error *err) {
    (void)who;
    return ice_sqlite_list_tables(impl, ns, a, names, n, err);
}

static int sq_default_location(void *impl, WHO, const char *ns, const char *name, arena *a,
                               char **out, sqe_error *err) {
    (void)who;
    return ice_sqlite_default_table_location(impl, ns, name, a, out, err);
}

static int sq_load_table(void *impl, WHO, const char *ns, const char *name, arena *a, char **loc,
                         ice_metadata **meta, sqe_error *err) {
    (void)who;
    return ice_sqlite_load_table(impl, ns, name, a, loc, meta, err);
}

static int sq_create_table(void *impl, WHO, const char *ns, const char *name,
                           const ice_metadata *m, arena *a, char **loc, sqe_error *err) {
    (void)who;
    return ice_sqlite_create_table(impl, ns, name, m, a, loc, err);
}

static int sq_commit(void *impl, WHO, const char *ns, const char *name, const char *expected,
                     const ice_metadata *m, arena *a, char **loc, sqe_error *err) {
    (void)who;
    return ice_sqlite_commit(impl, ns, name, expected, m, a, loc, err);
}

static int sq_drop_table(void *impl, WHO, const char *ns, const char *name, sqe_error *err) {
    (void)who;
    return ice_sqlite_drop_table(impl, ns, name, false, err);
}

static int sq_rename_table(void *impl, WHO, const char *ns, const char *name, const char *to_ns,
                           const char *to_name, sqe_error *err) {
    (void)who;
    return ice_sqlite_rename_table(impl, ns, name, to_ns, to_name, err);
}

#undef WHO

static void sq_close(void *impl) { ice_sqlite_close(impl); }

static const ice_backend_ops sqlite_ops = {
    "sqlite",          sq_warehouse,    sq_namespace_exists, sq_create_namespace,
    sq_list_namespaces, sq_drop_namespace, sq_list_tables,   sq_default_location,
    sq_load_table,     sq_create_table, sq_commit,           sq_drop_table,
    sq_rename_table,   sq_close,
};

int ice_backend_sqlite(ice_sqlite *db, ice_backend **out, sqe_error *err) {
    ice_backend *b = calloc(1, sizeof *b);
    if (!b) {
        ice_sqlite_close(db);
        return err_nomem(err, "catalog backend");
    }
    b->ops = &sqlite_ops;
    b->impl = db;
    *out = b;
    return SQE_OK;
}

void ice_backend_close(ice_backend *b) {
    if (!b) return;
    b->ops->close(b->impl);
    free(b);
}
