/*
 * catalog_iceberg.h: a catalog (catalog.h) whose schemas are Iceberg namespaces and whose tables
 * are Iceberg tables, kept by an Iceberg catalog backend (ice_backend.h: the embedded SQLite
 * catalog or the Iceberg REST catalog, catalog/rest/).
 *
 * An Iceberg catalog is one filling of catalog_ops (catalog_ops.h), whose tables have kind
 * CAT_KIND_ICEBERG; the generic catalog functions of catalog.h reach it through c->ops. A table
 * looked up through catalog_get_table is loaded fresh from the backend: the cat_table carries
 * the columns of the table's current schema and an ice_table_ref (the metadata location and the parsed
 * metadata, immutable), so a query sees one version of the table from bind to end. Writers
 * build new metadata from that version and commit it with catalog_commit, which fails
 * with COMMIT_CONFLICT when someone else committed first.
 *
 * Names: a schema name is the namespace as a dotted string ("sales" or "a.b").
 */
#ifndef SQE_CATALOG_CATALOG_ICEBERG_H
#define SQE_CATALOG_CATALOG_ICEBERG_H

#include "catalog/catalog.h"
#include "catalog/ice_backend.h"
#include "catalog/ice_sqlite.h"
#include "iceberg/metadata.h"

/* One version of an Iceberg table, owned by a cat_table (freed with it). Immutable. */
typedef struct ice_table_ref {
    arena a;                       /* holds everything below */
    const char *ns;                /* namespace (the SQL schema name) */
    const char *name;
    const char *metadata_location;
    ice_metadata *meta;
    struct io_identity *io;        /* whose object-store credentials read and write its files
                                      (a reference; also meta->io), or NULL: the process
                                      default. For REST catalogs the keys the catalog vended
                                      to this user with this load, else the catalog's static
                                      keys (catalog_iceberg_set_storage) */
    sqe_principal *principal;      /* who loaded it (a reference; NULL only for tools that
                                      load without one): the commit of a new version goes out
                                      as the same user, with the same token, on whatever
                                      thread runs it */
} ice_table_ref;

/* Opens the Iceberg catalog `name` over the SQLite catalog file db_path and the warehouse root
 * (see ice_sqlite_open; catalog_name in the database is `name`), creating namespace "default"
 * when missing. On success the caller owns *out (catalog_destroy). */
int catalog_open_iceberg(const char *name, const char *db_path, const char *warehouse,
                         mem_tracker *tracker, catalog **out, sqe_error *err);
/* An Iceberg catalog named name over any backend (taken over: closed with the catalog, also on
 * error). On success the caller owns *out (catalog_destroy). */
int catalog_open_iceberg_backend(const char *name, ice_backend *backend, mem_tracker *tracker,
                                 catalog **out, sqe_error *err);

/* Object-store settings of an Iceberg catalog's table files (strings copied; "" and NULL are
 * "not set"). */
typedef struct catalog_storage_config {
    const char *s3_endpoint, *s3_region;  /* when loadTable's config names none */
    bool s3_path_style;                   /* when loadTable's config does not say */
    const char *s3_access_key_id;         /* static keys: the fallback when loadTable vends */
    const char *s3_secret_access_key;     /*   none (development); both or neither */
    const char *s3_session_token;
    bool vended_only;                     /* ignore static keys: vended or nothing */
    /* STS AssumeRoleWithWebIdentity (io/sts.h) with the caller's own token (REST catalogs,
     * sqe_principal.token) when loadTable vends nothing: endpoint and role
     * both or neither; the temporary keys are used with s3_endpoint / s3_region /
     * s3_path_style. Without a session token the static keys apply. */
    const char *s3_sts_endpoint;
    const char *s3_role_arn;
    const char *s3_role_session_name;     /* "" = "sqe" */
    int64_t s3_sts_duration_s;            /* 0 = 3600 */
} catalog_storage_config;

/* Sets c's object-store settings (before c is shared). INVALID_ARGUMENTS for a key id without
 * a secret, a bad endpoint, an STS endpoint without a role (or the reverse) or a bad role
 * session name; c is unchanged then. */
int catalog_iceberg_set_storage(catalog *c, const catalog_storage_config *cfg, sqe_error *err);

/* The versioned-table operations of catalog.h, as an Iceberg catalog implements them (reached
 * through c->ops, so a wrapping catalog sees them):
 * - catalog_create_table_meta: creates table schema.name from metadata m (m->location empty or
 *   NULL: the default location is filled in). ALREADY_EXISTS unless if_not_exists (then
 *   *created = false, SQE_OK). *created (may be NULL) tells whether the table was made.
 * - catalog_default_location: the default location for a new table schema.name, in a.
 * - catalog_commit: commits new_meta as the next version of the table whose current version
 *   is base (compare and swap on base->metadata_location), as the user who loaded base
 *   (base->principal). COMMIT_CONFLICT when the table changed since base was loaded; on any
 *   error the table is unchanged.
 * - catalog_rename_table: the catalog entry only (files stay); TABLE_NOT_FOUND,
 *   SCHEMA_NOT_FOUND, ALREADY_EXISTS as the backend reports them.
 * - catalog_get_table: loads the current version as who; the table's ice_table_ref keeps a
 *   reference to who.
 * - catalog_drop_table_purge: purge also deletes the table's files when it lives inside the
 *   warehouse (after the catalog row is gone; deletion errors are ignored: leftovers are
 *   orphans). DROP SCHEMA ... CASCADE drops and purges the tables first.
 * Views: none yet (CREATE VIEW is NOT_SUPPORTED, a view lookup finds nothing). */

#endif
