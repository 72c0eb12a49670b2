/*
 * db.c: databases and sessions of the public API.
 *
 * INTERFACE: sqe_db_open, sqe_db_close, sqe_db_set_path_policy, sqe_db_set_limits,
 *   sqe_db_set_session_lister, sqe_db_set_admin_roles,
 *   sqe_connect, sqe_disconnect, sqe_version, engine_bind_env, db_user_memory_acquire,
 *   db_user_memory_release.
 * NOTES: the embedded database has an in-memory catalog "memory" with a schema "default" and,
 * with opts->warehouse, an Iceberg catalog ("iceberg" unless named) over that warehouse, listed
 * first; sessions start in the first catalog's schema "default". The thread pool is sized to the
 * cores (or opts->threads). Memory: a query's tracker has the per-query limit and is charged
 * to its user's tracker (when the server set a per-user limit) and then to the database's
 * (the server's total). A session runs as the OS user ($USER, method "none") until a front
 * end gives it the authenticated caller (sqe_conn_set_principal).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "catalog/catalog_iceberg.h"
#include "engine/engine.h"
#include "func/func.h"
#include "io/path_policy.h"
#include "sqe/sqe_values.h"
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

void sqe_db_set_limits(sqe_db *db, const sqe_db_limits *limits) {
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    int64_t ram = pages > 0 && page > 0 ? (int64_t)pages * page : (int64_t)8 << 30;
    db->tracker.limit = limits->memory_total > 0 ? limits->memory_total : ram / 10 * 8;
    db->tracker.label = "server ([coordinator] memory_limit)";
    if (limits->memory_per_query > 0) db->query_memory_limit = limits->memory_per_query;
    db->user_memory_limit = limits->memory_per_user > 0 ? limits->memory_per_user : 0;
    db->max_result_rows = limits->max_result_rows > 0 ? limits->max_result_rows : 0;
}

user_memory *db_user_memory_acquire(sqe_db *db, const char *user) {
    if (db->user_memory_limit <= 0 || !user) return NULL;
    pthread_mutex_lock(&db->lock);
    user_memory *um = db->users;
    while (um && strcmp(um->user, user) != 0) um = um->next;
    if (!um && (um = calloc(1, sizeof *um)) != NULL) {
        if (!(um->user = strdup(user))) {
            free(um);
            um = NULL;
        } else {
            mem_tracker_init(&um->tracker, "per-user ([query] per_user_memory)",
                             db->user_memory_limit, &db->tracker);
            um->next = db->users;
            db->users = um;
        }
    }
    if (um) um->refs++;
    pthread_mutex_unlock(&db->lock);
    return um;
}

void db_user_memory_release(sqe_db *db, user_memory *um) {
    if (!um) return;
    pthread_mutex_lock(&db->lock);
    if (--um->refs == 0) {
        user_memory **pp = &db->users;
        while (*pp && *pp != um) pp = &(*pp)->next;
        if (*pp) *pp = um->next;
        free(um->user);
        free(um);
    }
    pthread_mutex_unlock(&db->lock);
}

void sqe_db_set_path_policy(sqe_db *db, struct path_policy *policy) {
    path_policy_destroy(db->paths);
    db->paths = policy;
}

void sqe_db_set_session_lister(sqe_db *db, sqe_session_lister fn, void *ud) {
    db->sessions = fn;
    db->sessions_ud = fn ? ud : NULL;
}

static void free_roles(char **roles, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) free(roles[i]);
    free(roles);
}

int sqe_db_set_admin_roles(sqe_db *db, const char *const *roles, uint32_t n, sqe_error *err) {
    char **copy = n ? calloc(n, sizeof *copy) : NULL;
    if (n && !copy) return err_nomem(err, "admin roles");
    for (uint32_t i = 0; i < n; i++) {
        if (!(copy[i] = strdup(roles[i]))) {
            free_roles(copy, n);
            return err_nomem(err, "admin roles");
        }
    }
    free_roles(db->admin_roles, db->n_admin_roles);
    db->admin_roles = copy;
    db->n_admin_roles = n;
    return SQE_OK;
}

void sqe_db_close(sqe_db *db) {
    if (!db) return;
    free_roles(db->admin_roles, db->n_admin_roles);
    path_policy_destroy(db->paths);
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
    c->time_zone = tz_system_default();
    c->join_reorder = true;
    int rc = c->catalog && c->schema ? sqe_principal_for_user(user && *user ? user : "sqe",
                                                              SQE_AUTH_NONE, &c->principal, err)
                                     : err_nomem(err, "session");
    if (rc) {
        sqe_disconnect(c);
        return rc;
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
    sqe_principal_unref(conn->principal);
    free(conn);
}

void engine_bind_env(sqe_conn *conn, bind_env *env) {
    memset(env, 0, sizeof *env);
    env->catalogs = conn->db->catalogs;
    env->n_catalogs = conn->db->n_catalogs;
    env->catalog = conn->catalog;
    env->schema = conn->schema;
    env->session_zone = conn->time_zone;
    env->user = conn->principal->user;
    env->principal = conn->principal;
    env->paths = conn->db->paths;
    env->sessions = conn->db->sessions;
    env->sessions_ud = conn->db->sessions_ud;
    env->sessions_all = sqe_principal_has_any_role(
        conn->principal, (const char *const *)conn->db->admin_roles, conn->db->n_admin_roles);
    env->access = conn->effects ? &conn->effects->sink : NULL;
}
