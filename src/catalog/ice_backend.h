/*
 * ice_backend.h: what an Iceberg catalog backend does for catalog_iceberg.c: namespaces, table
 * rows pointing at metadata files, and the atomic commit (compare and swap on the current
 * metadata location). The embedded SQLite catalog (ice_sqlite.h) is one backend; the Iceberg
 * REST catalog (catalog/rest/) is the other.
 *
 * Every operation has the contract of the ice_sqlite function of the same name (see
 * ice_sqlite.h: arguments, outputs in the caller's arena, error codes, COMMIT_CONFLICT on a lost
 * compare and swap). impl is the backend's own state. A backend is used by many threads at once.
 *
 * Identity: every operation that reaches the catalog takes `who`, the principal the statement
 * runs as (common/principal.h; borrowed for the call, never NULL from the engine). A backend
 * that authenticates per user (the REST catalog with auth = "session_bearer") sends who->token;
 * the embedded SQLite catalog ignores it. A backend never keeps who past the call.
 */
#ifndef SQE_CATALOG_ICE_BACKEND_H
#define SQE_CATALOG_ICE_BACKEND_H

#include <stdbool.h>
#include <stdint.h>

#include "common/arena.h"
#include "common/err.h"
#include "common/principal.h"
#include "iceberg/metadata.h"

typedef struct ice_backend_ops {
    const char *name;   /* "sqlite", "rest" */
    /* The warehouse root new tables go under (no trailing slash). */
    const char *(*warehouse)(void *impl);
    int (*namespace_exists)(void *impl, const sqe_principal *who, const char *ns, bool *exists,
                            sqe_error *err);
    int (*create_namespace)(void *impl, const sqe_principal *who, const char *ns,
                            const ice_kv_list *props, sqe_error *err);
    int (*list_namespaces)(void *impl, const sqe_principal *who, const char *parent, arena *a,
                           char ***names, uint32_t *n_names, sqe_error *err);
    int (*drop_namespace)(void *impl, const sqe_principal *who, const char *ns, sqe_error *err);
    int (*list_tables)(void *impl, const sqe_principal *who, const char *ns, arena *a,
                       char ***names, uint32_t *n_names, sqe_error *err);
    int (*default_table_location)(void *impl, const sqe_principal *who, const char *ns,
                                  const char *name, arena *a, char **out, sqe_error *err);
    int (*load_table)(void *impl, const sqe_principal *who, const char *ns, const char *name,
                      arena *a, char **metadata_location, ice_metadata **meta, sqe_error *err);
    int (*create_table)(void *impl, const sqe_principal *who, const char *ns, const char *name,
                        const ice_metadata *m, arena *a, char **metadata_location_out,
                        sqe_error *err);
    int (*commit)(void *impl, const sqe_principal *who, const char *ns, const char *name,
                  const char *expected_location, const ice_metadata *new_meta, arena *a,
                  char **new_location_out, sqe_error *err);
    int (*drop_table)(void *impl, const sqe_principal *who, const char *ns, const char *name,
                      sqe_error *err);
    int (*rename_table)(void *impl, const sqe_principal *who, const char *ns, const char *name,
                        const char *to_ns, const char *to_name, sqe_error *err);
    void (*close)(void *impl);
} ice_backend_ops;

typedef struct ice_backend {
    const ice_backend_ops *ops;
    void *impl;
} ice_backend;

/* The SQLite backend over an open ice_sqlite (taken over: closed with the backend). On success
 * the caller owns *out (ice_backend_close). */
struct ice_sqlite;
int ice_backend_sqlite(struct ice_sqlite *db, ice_backend **out, sqe_error *err);

/* Closes the backend's implementation and frees b. NULL is ignored. */
void ice_backend_close(ice_backend *b);

#endif
