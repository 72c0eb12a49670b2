/*
 * catalog_iceberg.c: Iceberg catalogs behind the generic catalog interface (see
 * catalog_iceberg.h).
 *
 * INTERFACE: catalog_open_iceberg, catalog_iceberg_* (catalog_iceberg.h).
 * NOTES: every lookup loads the table's current metadata from the backend (one catalog row and
 * one metadata file read); the loaded version is immutable and owned by the cat_table, so a
 * running query never sees a concurrent commit. DROP TABLE of a table inside the warehouse
 * deletes its files after the catalog row is gone (what the table references: metadata files,
 * manifest lists, manifests, data and delete files); a table registered from elsewhere keeps
 * them. DROP SCHEMA ... CASCADE drops (and purges) the tables first. Identity: every call gets
 * the statement's principal and hands it to the backend; a loaded version keeps a reference to
 * it (ice_table_ref.principal), and its commit goes out as that principal even when another
 * thread runs it. Storage credentials of a loaded version: vended by the catalog, else from STS
 * with the caller's own token, else static. Table columns are the current schema's top-level
 * fields; nested fields keep their Iceberg ids only in the metadata (readers match files by id).
 */
#include "catalog/catalog_iceberg.h"

#include <stdlib.h>
#include <string.h>

#include "catalog/rest/rest_backend.h"
#include "iceberg/reachable.h"
#include "io/io.h"
#include "io/sts.h"

static void icat_table_free(cat_table *t);
static int64_t icat_table_snapshot_id(const cat_table *t) {
    return t->ice ? t->ice->meta->current_snapshot_id : -1;
}
static const table_ops icat_table_ops = {
    .kind = CAT_KIND_ICEBERG,
    .free = icat_table_free,
    .snapshot_id = icat_table_snapshot_id,
};
static const catalog_ops icat_catalog_ops;

/* An Iceberg catalog's state beyond its backend (catalog.impl): where the table files are when
 * loadTable does not say, and the credentials used when it vends none
 * (catalog_iceberg_set_storage). */
typedef struct icat_storage {
    char *s3_endpoint, *s3_region;
    bool s3_path_style;
    io_identity *static_io; /* a reference, or NULL */
    bool vended_only;       /* never use static_io */
    io_sts *sts;            /* STS with the user's own token, or NULL */
} icat_storage;
#define ST(c) ((icat_storage *)(c)->impl)
static int icat_drop_table_purge(catalog *c, const sqe_principal *who, const char *schema,
                                 const char *name, bool if_exists, bool purge, sqe_error *err);

/* The backend operations of an Iceberg catalog. */
#define BK(c) ((c)->iceberg->ops)

static char *dupstr(const char *s) { return s ? strdup(s) : NULL; }

int catalog_open_iceberg_backend(const char *name, ice_backend *backend, mem_tracker *tracker,
                                 catalog **out, sqe_error *err) {
    icat_storage *st = calloc(1, sizeof *st);
    if (!st) {
        ice_backend_close(backend);
        return err_nomem(err, "catalog");
    }
    catalog *c;
    int rc = catalog_open_ops(name, &icat_catalog_ops, st, tracker, &c, err);
    if (rc) { /* st went with the catalog */
        ice_backend_close(backend);
        return rc;
    }
    c->iceberg = backend;
    *out = c;
    return SQE_OK;
}

int catalog_open_iceberg(const char *name, const char *db_path, const char *warehouse,
                         mem_tracker *tracker, catalog **out, sqe_error *err) {
    ice_sqlite *db = NULL;
    ice_backend *backend = NULL;
    catalog *c = NULL;
    int rc = ice_sqlite_open(db_path, warehouse, name, &db, err);
    if (!rc) rc = ice_backend_sqlite(db, &backend, err);
    if (!rc) rc = catalog_open_iceberg_backend(name, backend, tracker, &c, err);
    bool exists = false;
    /* the embedded catalog has no users: opening it is nobody's act */
    if (!rc) rc = BK(c)->namespace_exists(c->iceberg->impl, NULL, "default", &exists, err);
    if (!rc && !exists) {
        rc = BK(c)->create_namespace(c->iceberg->impl, NULL, "default", NULL, err);
        if (rc == SQE_ERR_ALREADY_EXISTS) rc = SQE_OK; /* another process was first */
    }
    if (rc) {
        catalog_destroy(c);
        return rc;
    }
    *out = c;
    return SQE_OK;
}

static int icat_rename_table(catalog *c, const sqe_principal *who, const char *schema,
                             const char *name, const char *to_schema, const char *to_name,
                             sqe_error *err) {
    return BK(c)->rename_table(c->iceberg->impl, who, schema, name, to_schema, to_name, err);
}

static int icat_create_schema(catalog *c, const sqe_principal *who, const char *schema,
                              bool if_not_exists, sqe_error *err) {
    int rc = BK(c)->create_namespace(c->iceberg->impl, who, schema, NULL, err);
    if (rc == SQE_ERR_ALREADY_EXISTS) {
        if (if_not_exists) return SQE_OK;
        return err_set(err, SQE_ERR_ALREADY_EXISTS, "Schema '%s.%s' already exists", c->name,
                       schema);
    }
    return rc;
}

static bool icat_has_schema(catalog *c, const sqe_principal *who, const char *schema) {
    bool exists = false;
    if (BK(c)->namespace_exists(c->iceberg->impl, who, schema, &exists, NULL)) return false;
    return exists;
}

static int icat_drop_schema(catalog *c, const sqe_principal *who, const char *schema,
                            bool if_exists, bool cascade, sqe_error *err) {
    if (!icat_has_schema(c, who, schema)) {
        if (if_exists) return SQE_OK;
        return err_set(err, SQE_ERR_SCHEMA_NOT_FOUND, "Schema '%s.%s' does not exist", c->name,
                       schema);
    }
    if (cascade) {
        arena a;
        arena_init(&a, NULL);
        char **names;
        uint32_t n;
        int rc = BK(c)->list_tables(c->iceberg->impl, who, schema, &a, &names, &n, err);
        for (uint32_t i = 0; !rc && i < n; i++)
            rc = icat_drop_table_purge(c, who, schema, names[i], true, true, err);
        arena_destroy(&a);
        SQE_TRY(rc);
    }
    int rc = BK(c)->drop_namespace(c->iceberg->impl, who, schema, err);
    if (rc == SQE_ERR_SCHEMA_NOT_EMPTY)
        return err_set(err, SQE_ERR_SCHEMA_NOT_EMPTY, "Cannot drop non-empty schema '%s'", schema);
    return rc;
}

static int icat_list_schemas(catalog *c, const sqe_principal *who, arena *a, char ***names,
                             uint32_t *n, sqe_error *err) {
    return BK(c)->list_namespaces(c->iceberg->impl, who, NULL, a, names, n, err);
}

static int icat_list_tables(catalog *c, const sqe_principal *who, const char *schema, arena *a,
                            char ***names, uint32_t *n, sqe_error *err) {
    int rc = BK(c)->list_tables(c->iceberg->impl, who, schema, a, names, n, err);
    if (rc == SQE_ERR_SCHEMA_NOT_FOUND)
        return err_set(err, SQE_ERR_SCHEMA_NOT_FOUND, "Schema '%s' does not exist", schema);
    return rc;
}

static void icat_table_free(cat_table *t) {
    if (!t->ice) return; /* a table whose load failed half-way */
    io_identity_unref(t->ice->io);
    sqe_principal_unref(t->ice->principal);
    arena a = t->ice->a; /* the ref lives in its own arena */
    t->ice = NULL;
    arena_destroy(&a);
}

/* Fills t's columns from the current schema's top-level fields. */
static int table_columns(cat_table *t, const ice_schema *s, sqe_error *err) {
    uint32_t n = s->type.n_fields;
    t->columns = calloc(n ? n : 1, sizeof *t->columns);
    if (!t->columns) return err_nomem(err, "table columns");
    for (uint32_t i = 0; i < n; i++) {
        const ice_field *f = &s->type.fields[i];
        cat_column *col = &t->columns[i];
        t->n_columns = i + 1;
        if (!(col->name = strdup(f->name))) return err_nomem(err, "table columns");
        if (f->doc && !(col->comment = strdup(f->doc))) return err_nomem(err, "table columns");
        col->not_null = f->required;
        int rc = ice_schema_to_sqe_type(&f->type, &col->type, err);
        if (rc) return err_prefix(err, "Table '%s.%s' column '%s'", t->schema, t->name, f->name), rc;
    }
    return SQE_OK;
}

static bool empty(const char *s) { return !s || !*s; }
static const char *or_null(const char *s) { return empty(s) ? NULL : s; }

int catalog_iceberg_set_storage(catalog *c, const catalog_storage_config *cfg, sqe_error *err) {
    if (c->ops != &icat_catalog_ops)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "catalog '%s' is not an Iceberg catalog",
                       c->name);
    io_identity *io = NULL;
    if (!empty(cfg->s3_access_key_id) || !empty(cfg->s3_secret_access_key)) {
        io_identity_config ic = {cfg->s3_access_key_id, cfg->s3_secret_access_key,
                                 cfg->s3_session_token, cfg->s3_endpoint, cfg->s3_region,
                                 cfg->s3_path_style};
        int rc = io_identity_create(&ic, &io, err);
        if (rc) return err_prefix(err, "catalog '%s': static S3 keys", c->name), rc;
    }
    io_sts *sts = NULL;
    if (!empty(cfg->s3_sts_endpoint) || !empty(cfg->s3_role_arn)) {
        io_sts_config sc = {
            .endpoint = cfg->s3_sts_endpoint,
            .role_arn = cfg->s3_role_arn,
            .session_name = cfg->s3_role_session_name,
            .duration_s = cfg->s3_sts_duration_s,
            .s3_endpoint = cfg->s3_endpoint,
            .s3_region = cfg->s3_region,
            .s3_path_style = cfg->s3_path_style,
        };
        int rc = io_sts_create(&sc, &sts, err);
        if (rc) {
            io_identity_unref(io);
            return err_prefix(err, "catalog '%s': s3_sts_endpoint / s3_role_arn", c->name), rc;
        }
    }
    char *ep = empty(cfg->s3_endpoint) ? NULL : strdup(cfg->s3_endpoint);
    char *rg = empty(cfg->s3_region) ? NULL : strdup(cfg->s3_region);
    if ((!empty(cfg->s3_endpoint) && !ep) || (!empty(cfg->s3_region) && !rg)) {
        free(ep);
        free(rg);
        io_identity_unref(io);
        io_sts_destroy(sts);
        return err_nomem(err, "catalog storage");
    }
    free(ST(c)->s3_endpoint);
    free(ST(c)->s3_region);
    io_identity_unref(ST(c)->static_io);
    io_sts_destroy(ST(c)->sts);
    ST(c)->s3_endpoint = ep;
    ST(c)->s3_region = rg;
    ST(c)->s3_path_style = cfg->s3_path_style;
    ST(c)->static_io = io;
    ST(c)->sts = sts;
    ST(c)->vended_only = cfg->vended_only;
    return SQE_OK;
}

static bool kv_true(const char *v) {
    return v && (!strcmp(v, "true") || !strcmp(v, "TRUE") || !strcmp(v, "1"));
}

/* The identity who reads and writes table ns.name with, right after loading it: the S3 keys the
 * REST catalog vended with this user's load (loadTable "config": s3.access-key-id,
 * s3.secret-access-key, s3.session-token, s3.endpoint, s3.region, s3.path-style-access), else
 * (STS configured and who has a token of their own) the temporary keys STS gives for that
 * token, else the catalog's static keys, else NULL (the process default: none in `sqe serve`,
 * io.h). *out is a new reference. */
static int table_identity(catalog *c, const sqe_principal *who, const char *ns, const char *name,
                          io_identity **out, sqe_error *err) {
    *out = NULL;
    if (!rest_backend_is_rest(c->iceberg)) {
        *out = ST(c)->vended_only ? NULL : io_identity_ref(ST(c)->static_io);
        return SQE_OK;
    }
    arena a;
    arena_init(&a, NULL);
    ice_kv_list cfg = {0};
    int rc = rest_backend_table_config(c->iceberg, who, ns, name, &a, &cfg, err);
    const char *key = rc ? NULL : ice_kv_get(&cfg, "s3.access-key-id");
    if (!empty(key)) {
        const char *ps = ice_kv_get(&cfg, "s3.path-style-access");
        const char *region = or_null(ice_kv_get(&cfg, "s3.region"));
        if (!region) region = or_null(ice_kv_get(&cfg, "client.region"));
        io_identity_config ic = {
            .access_key_id = key,
            .secret_access_key = ice_kv_get(&cfg, "s3.secret-access-key"),
            .session_token = ice_kv_get(&cfg, "s3.session-token"),
            .endpoint = or_null(ice_kv_get(&cfg, "s3.endpoint")) ? ice_kv_get(&cfg, "s3.endpoint")
                                                                : ST(c)->s3_endpoint,
            .region = region ? region : ST(c)->s3_region,
            .path_style = ps ? kv_true(ps) : ST(c)->s3_path_style,
        };
        rc = io_identity_create(&ic, out, err);
        if (rc)
            err_prefix(err, "Table '%s.%s.%s': the storage credentials the catalog vended", c->name,
                       ns, name);
    } else if (!rc && ST(c)->sts && who && who->token) {
        /* the user's own token is the web identity: a failure is the user's, never a reason
         * to fall back to keys that are not theirs */
        rc = io_sts_identity(ST(c)->sts, who->token, out, err);
        if (rc) err_prefix(err, "Table '%s.%s.%s': storage credentials", c->name, ns, name);
    } else if (!rc && !ST(c)->vended_only) {
        *out = io_identity_ref(ST(c)->static_io);
    }
    arena_destroy(&a);
    return rc;
}

static int icat_get_table(catalog *c, const sqe_principal *who, const char *schema,
                          const char *name, cat_table **out, sqe_error *err) {
    arena a;
    arena_init(&a, NULL);
    ice_table_ref *ref = ARENA_NEW(&a, ice_table_ref);
    char *location = NULL;
    ice_metadata *meta = NULL;
    int rc = ref ? SQE_OK : err_nomem(err, "Iceberg table");
    if (!rc)
        rc = BK(c)->load_table(c->iceberg->impl, who, schema, name, &a, &location, &meta, err);
    if (rc) {
        arena_destroy(&a);
        if (rc == SQE_ERR_TABLE_NOT_FOUND) {
            if (!icat_has_schema(c, who, schema))
                return err_set(err, SQE_ERR_SCHEMA_NOT_FOUND, "Schema '%s' does not exist", schema);
            return err_set(err, SQE_ERR_TABLE_NOT_FOUND, "Table '%s.%s.%s' does not exist",
                           c->name, schema, name);
        }
        return rc;
    }
    io_identity *io = NULL;
    rc = table_identity(c, who, schema, name, &io, err);
    if (rc) {
        arena_destroy(&a);
        return rc;
    }
    ref->ns = arena_strdup(&a, schema);
    ref->name = arena_strdup(&a, name);
    ref->metadata_location = location;
    ref->meta = meta;
    ref->io = io;
    meta->io = io;
    const ice_schema *cur = ice_metadata_current_schema(meta);
    cat_table *t = calloc(1, sizeof *t);
    if (!t || !ref->ns || !ref->name || !cur) {
        free(t);
        io_identity_unref(io);
        arena_destroy(&a);
        if (!cur) return err_set(err, SQE_ERR_INVALID_FILE, "%s: no current schema", location);
        return err_nomem(err, "Iceberg table");
    }
    ref->principal = sqe_principal_ref(who);
    ref->a = a; /* the arena moves into its own allocation */
    t->ops = &icat_table_ops;
    t->ice = ref;
    atomic_init(&t->refs, 1);
    pthread_mutex_init(&t->lock, NULL);
    t->catalog = dupstr(c->name);
    t->schema = dupstr(schema);
    t->name = dupstr(name);
    const char *comment = ice_kv_get(&meta->properties, "comment");
    t->comment = dupstr(comment);
    rc = (t->catalog && t->schema && t->name && (!comment || t->comment))
             ? table_columns(t, cur, err)
             : err_nomem(err, "Iceberg table");
    if (rc) {
        cat_table_unref(t);
        return rc;
    }
    *out = t;
    return SQE_OK;
}

/* Is location inside the warehouse root (a table the catalog manages)? */
static bool under_warehouse(catalog *c, const char *location) {
    const char *root = io_local_path(BK(c)->warehouse(c->iceberg->impl));
    const char *loc = io_local_path(location);
    size_t n = strlen(root);
    return n > 1 && strncmp(loc, root, n) == 0 && loc[n] == '/';
}

/* The files of the table that a purge deletes, in s (errors: the table's files cannot be
 * listed; nothing is dropped then). */
static int purge_list(catalog *c, const sqe_principal *who, const char *schema,
                      const char *name, arena *a, ice_path_set *s, bool *managed,
                      io_identity **io, sqe_error *err) {
    char *location;
    ice_metadata *meta;
    SQE_TRY(BK(c)->load_table(c->iceberg->impl, who, schema, name, a, &location, &meta, err));
    *managed = meta->location && under_warehouse(c, meta->location);
    if (!*managed) return SQE_OK;
    SQE_TRY(table_identity(c, who, schema, name, io, err));
    meta->io = *io;
    return ice_reachable_add_table(s, meta, location, err);
}

static int icat_drop_table_purge(catalog *c, const sqe_principal *who, const char *schema,
                                 const char *name, bool if_exists, bool purge, sqe_error *err) {
    arena a;
    arena_init(&a, NULL);
    ice_path_set files;
    ice_path_set_init(&files, &a);
    bool managed = false;
    io_identity *io = NULL;
    if (purge) {
        int prc = purge_list(c, who, schema, name, &a, &files, &managed, &io, err);
        if (prc && prc != SQE_ERR_TABLE_NOT_FOUND) {
            io_identity_unref(io);
            arena_destroy(&a);
            return prc;
        }
    }
    int rc = BK(c)->drop_table(c->iceberg->impl, who, schema, name, err);
    if (rc == SQE_OK && managed) /* the table is gone from the catalog: now its files */
        for (uint32_t i = 0; i < files.cap; i++)
            if (files.slots[i]) io_remove_as(files.slots[i], io, NULL);
    io_identity_unref(io);
    arena_destroy(&a);
    if (rc == SQE_ERR_TABLE_NOT_FOUND) {
        if (if_exists) return SQE_OK;
        return err_set(err, SQE_ERR_TABLE_NOT_FOUND, "Table '%s.%s.%s' does not exist", c->name,
                       schema, name);
    }
    return rc;
}

static int icat_default_location(catalog *c, const sqe_principal *who, const char *schema,
                                 const char *name, arena *a, char **out, sqe_error *err) {
    int rc = BK(c)->default_table_location(c->iceberg->impl, who, schema, name, a, out, err);
    if (rc == SQE_ERR_SCHEMA_NOT_FOUND)
        return err_set(err, SQE_ERR_SCHEMA_NOT_FOUND, "Schema '%s.%s' does not exist", c->name,
                       schema);
    return rc;
}

static int icat_create_table(catalog *c, const sqe_principal *who, const char *schema,
                             const char *name, ice_metadata *m, bool if_not_exists, bool *created,
                             sqe_error *err) {
    if (created) *created = false;
    arena a;
    arena_init(&a, NULL);
    int rc = SQE_OK;
    bool filled = !m->location || !*m->location;
    if (filled) {
        char *loc;
        rc = icat_default_location(c, who, schema, name, &a, &loc, err);
        if (!rc) m->location = loc;
    }
    if (!rc) rc = BK(c)->create_table(c->iceberg->impl, who, schema, name, m, &a, NULL, err);
    if (rc == SQE_ERR_ALREADY_EXISTS) {
        rc = if_not_exists ? SQE_OK
                           : err_set(err, SQE_ERR_ALREADY_EXISTS, "Table '%s.%s.%s' already exists",
                                     c->name, schema, name);
    } else if (rc == SQE_ERR_SCHEMA_NOT_FOUND) {
        rc = err_set(err, SQE_ERR_SCHEMA_NOT_FOUND, "Schema '%s.%s' does not exist", c->name,
                     schema);
    } else if (!rc && created) {
        *created = true;
    }
    if (filled) m->location = NULL; /* it pointed into a */
    arena_destroy(&a);
    return rc;
}

static int icat_commit(catalog *c, const ice_table_ref *base, const ice_metadata *new_meta,
                       sqe_error *err) {
    /* the commit goes out as the user who loaded base, whatever thread runs it */
    arena a;
    arena_init(&a, NULL);
    int rc = BK(c)->commit(c->iceberg->impl, base->principal, base->ns, base->name,
                           base->metadata_location, new_meta, &a, NULL, err);
    arena_destroy(&a);
    return rc;
}

/* ---- the parts of catalog_ops an Iceberg catalog does not have yet: views ---------------- */

static int icat_create_view(catalog *c, const cat_view *def, bool or_replace, sqe_error *err) {
    (void)def, (void)or_replace;
    return err_set(err, SQE_ERR_NOT_SUPPORTED,
                   "Views are not supported in Iceberg catalog '%s' yet", c->name);
}

static int icat_drop_view(catalog *c, const char *schema, const char *name, bool if_exists,
                          sqe_error *err) {
    if (if_exists) return SQE_OK;
    return err_set(err, SQE_ERR_TABLE_NOT_FOUND, "View '%s.%s.%s' does not exist", c->name, schema,
                   name);
}

static int icat_get_view(catalog *c, const char *schema, const char *name, cat_view **out,
                         sqe_error *err) {
    (void)out;
    return err_set(err, SQE_ERR_TABLE_NOT_FOUND, "View '%s.%s.%s' does not exist", c->name, schema,
                   name);
}

/* Closes the backend and frees the storage settings. */
static void icat_destroy(catalog *c) {
    ice_backend_close(c->iceberg);
    c->iceberg = NULL;
    icat_storage *st = ST(c);
    if (!st) return;
    io_identity_unref(st->static_io);
    io_sts_destroy(st->sts);
    free(st->s3_endpoint);
    free(st->s3_region);
    free(st);
    c->impl = NULL;
}

static const catalog_ops icat_catalog_ops = {
    .kind = CAT_KIND_ICEBERG,
    .type = "iceberg",
    .destroy = icat_destroy,
    .list_schemas = icat_list_schemas,
    .has_schema = icat_has_schema,
    .create_schema = icat_create_schema,
    .drop_schema = icat_drop_schema,
    .list_tables = icat_list_tables,
    .get_table = icat_get_table,
    .create_table = NULL, /* from metadata only: create_table_meta */
    .drop_table = icat_drop_table_purge,
    .rename_table = icat_rename_table,
    .default_location = icat_default_location,
    .create_table_meta = icat_create_table,
    .commit = icat_commit,
    .create_view = icat_create_view,
    .drop_view = icat_drop_view,
    .get_view = icat_get_view,
};
