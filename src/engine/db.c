/*
 * db.c: databases and sessions of the public API.
 *
 * INTERFACE: sqe_db_open, sqe_db_close, sqe_connect, sqe_disconnect, sqe_version,
 *   engine_bind_env.
 * NOTES: the embedded database has an in-memory catalog "memory" with a schema "default" and,
 * with opts->warehouse, an Iceberg catalog ("iceberg" unless named) over that warehouse, listed
 * first; sessions start in the first catalog's schema "default". The thread pool is sized to the
 * cores (or opts->threads).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "catalog/catalog_iceberg.h"
#include "engine/engine.h"
#include "func/func.h"
#include "types/tz.h"

const char *sqe_version(void) { return SQE_VERSION; }

/* Opens the Iceberg catalog of opts->warehouse as db->catalogs[db->n_catalogs]. */
static int open_warehouse(sqe_db *db, const sqe_db_options *opts, sqe_error *err) {
    const char *name = opts->catalog_name && *opts->catalog_name ? opts->catalog_name : "iceberg";
    char *db_path = NULL;
    if (!opts->catalog_db || !*opts->catalog_db) {
        size_t n = strlen(opts->warehouse) + sizeof "/catalog.db";
        if (!(db_path = malloc(n))) return err_nomem(err, "database");
        snprintf(db_path, n, "%s/catalog.db", opts->warehouse);
    }
    int rc = catalog_open_iceberg(name, db_path ? db_path : opts->catalog_db, opts->warehouse,
                                  &db->tracker, &db->catalogs[db->n_catalogs], err);
    free(db_path);
    if (!rc) db->n_catalogs++;
    return rc;
}

int sqe_db_open(const sqe_db_options *opts, sqe_db **out, sqe_error *err) {
    *out = NULL;
    SQE_TRY(func_registry_init(err));
    sqe_db *db = calloc(1, sizeof *db);
    if (!db) return err_nomem(err, "database");
    pthread_mutex_init(&db->lock, NULL);
    mem_tracker_init(&db->tracker, "database", 0, NULL);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    db->threads = opts && opts->threads > 0 ? (uint32_t)opts->threads : (uint32_t)(cores > 0 ? cores : 1);
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    int64_t ram = pages > 0 && page > 0 ? (int64_t)pages * page : (int64_t)8 << 30;
    db->query_memory_limit = opts && opts->memory_limit ? (int64_t)opts->memory_limit : ram / 10 * 8;
    int rc = exec_pool_create(db->threads, &db->pool, err);
    if (rc) {
        sqe_db_close(db);
        return rc;
    }
    db->catalogs = calloc(2, sizeof(catalog *));
    if (!db->catalogs) {
        sqe_db_close(db);
        return err_nomem(err, "database");
    }
    if (opts && opts->warehouse) {
        rc = open_warehouse(db, opts, err);
        if (rc) {
            sqe_db_close(db);
            return rc;
        }
    }
    rc = catalog_create("memory", &db->tracker, &db->catalogs[db->n_catalogs], err);
    if (rc) {
        sqe_db_close(db);
        return rc;
    }
    db->n_catalogs++;
    *out = db;
    return SQE_OK;
}

void sqe_db_close(sqe_db *db) {
    if (!db) return;
    for (uint32_t i = 0; i < db->n_catalogs; i++) catalog_destroy(db->catalogs[i]);
    free(db->catalogs);
    if (db->pool) exec_pool_destroy(db->pool);
    pthread_mutex_destroy(&db->lock);
    free(db);
}

int sqe_connect(sqe_db *db, sqe_conn **out, sqe_error *err) {
    sqe_conn *c = calloc(1, sizeof *c);
    if (!c) return err_nomem(err, "session");
    c->db = db;
    c->catalog = strdup(db->catalogs[0]->name);
    c->schema = strdup("default");
    const char *user = getenv("USER");
    c->user = strdup(user && *user ? user : "sqe");
    c->time_zone = tz_system_default();
    c->join_reorder = true;
    if (!c->catalog || !c->schema || !c->user) {
        sqe_disconnect(c);
        return err_nomem(err, "session");
    }
    *out = c;
    return SQE_OK;
}

void sqe_disconnect(sqe_conn *conn) {
    if (!conn) return;
    prepared *p = conn->prepared;
    while (p) {
        prepared *next = p->next;
        free(p->name);
        free(p->text);
        free(p);
        p = next;
    }
    free(conn->catalog);
    free(conn->schema);
    free(conn->user);
    free(conn);
}

void engine_bind_env(sqe_conn *conn, bind_env *env) {
    memset(env, 0, sizeof *env);
    env->catalogs = conn->db->catalogs;
    env->n_catalogs = conn->db->n_catalogs;
    env->catalog = conn->catalog;
    env->schema = conn->schema;
    env->session_zone = conn->time_zone;
    env->user = conn->user;
    env->allow_local_files = true;
}
