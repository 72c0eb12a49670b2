/*
 * ice_sqlite.h: the embedded Iceberg catalog, kept in an SQLite database file with the table
 * layout of Iceberg's JDBC catalog, so pyiceberg's SqlCatalog and Iceberg Java's JdbcCatalog can
 * open the same file (and the same warehouse) as SQE.
 *
 * Layout (created when missing, with the DDL pyiceberg 0.12 / SQLAlchemy emit for SQLite):
 *   iceberg_tables(catalog_name, table_namespace, table_name, metadata_location,
 *                  previous_metadata_location, iceberg_type)   -- key: first three
 *   iceberg_namespace_properties(catalog_name, namespace, property_key, property_value)
 * One database may hold several catalogs; every row carries catalog_name and this module only
 * sees the rows of the name it was opened with. Namespaces are dotted strings ("a.b"); a
 * namespace exists when it, or a namespace under it, has a properties row or a table row
 * (created namespaces always get the property "exists" = "true", as Iceberg Java writes).
 * iceberg_type is "TABLE" for tables (Java also writes "VIEW" rows; they are never listed or
 * loaded as tables); a database created before that column existed ("v0") is used as is.
 *
 * Table state lives in metadata JSON files (iceberg/metadata.h); the row only points at the
 * current one. A commit writes a new metadata file, then swaps the row's metadata_location
 * from the expected old location to the new one in one UPDATE (compare-and-swap), so exactly
 * one of several concurrent committers wins, across processes and across tools.
 *
 * Errors (all functions): INVALID_ARGUMENTS for bad names (empty, empty namespace level, longer
 * than 255 bytes); SCHEMA_NOT_FOUND / TABLE_NOT_FOUND / ALREADY_EXISTS / SCHEMA_NOT_EMPTY as
 * named; IO_ERROR for SQLite failures (message "sqlite catalog <db path>: ...") and file IO;
 * NOT_FOUND for a missing metadata file; INVALID_FILE for a corrupt one (message prefixed with
 * its location); NOT_SUPPORTED for non-local locations (only local paths and file: URIs for
 * now); OUT_OF_MEMORY. ICE_SQLITE_ERR_COMMIT_CONFLICT for a lost compare-and-swap.
 *
 * Outputs (strings, lists, metadata) are allocated in the caller's arena. Thread-safety: an
 * ice_sqlite holds one SQLite connection guarded by a mutex; any thread may call any function
 * concurrently (each call is serialized on the connection; metadata file reads and writes
 * happen outside the lock). The arena passed in must not be shared by concurrent calls.
 * Several processes (or several ice_sqlite handles) may use the same file: the database runs
 * in WAL mode with a busy timeout and every write is an IMMEDIATE transaction.
 */
#ifndef SQE_CATALOG_ICE_SQLITE_H
#define SQE_CATALOG_ICE_SQLITE_H

#include <stdbool.h>
#include <stdint.h>

#include "common/arena.h"
#include "common/err.h"
#include "iceberg/metadata.h"

typedef struct ice_sqlite ice_sqlite;

/* The code a lost compare-and-swap returns ("Commit failed: table ns.t was changed
 * concurrently ..."): COMMIT_CONFLICT (SQLSTATE 40001), so a retry loop can test for it. */
#define ICE_SQLITE_ERR_COMMIT_CONFLICT SQE_ERR_COMMIT_CONFLICT

/* How long a call waits for another connection's write lock before failing (IO_ERROR). */
#define ICE_SQLITE_BUSY_TIMEOUT_MS 10000

/* Longest namespace or table name accepted (the JDBC layout's VARCHAR(255) key columns). */
#define ICE_SQLITE_MAX_NAME_LEN 255

/* ---- open / close ------------------------------------------------------------------------- */

/* Opens (creating when missing) the catalog database db_path and the tables of the JDBC layout,
 * for the catalog named catalog_name (the name other tools must use too, e.g. pyiceberg's
 * SqlCatalog(catalog_name, ...)). warehouse is the root under which new tables are placed: a
 * local path (made absolute) or a file: URI, kept as given in the locations written.
 * Defaults for NULL: warehouse "$HOME/.sqe/warehouse", db_path "$HOME/.sqe/catalog.db",
 * catalog_name "iceberg". Creates the database's directory and a local warehouse directory.
 * Sets journal_mode=WAL and the busy timeout. On success the caller owns *out
 * (ice_sqlite_close); on error *out is untouched and nothing stays open. */
int ice_sqlite_open(const char *db_path, const char *warehouse, const char *catalog_name,
                    ice_sqlite **out, sqe_error *err);
/* Closes the connection and frees the handle. NULL is ignored. No call may be running. */
void ice_sqlite_close(ice_sqlite *c);

/* The warehouse root as used in locations (no trailing slash), the catalog name, the database
 * path. Owned by c. */
const char *ice_sqlite_warehouse(const ice_sqlite *c);
const char *ice_sqlite_catalog_name(const ice_sqlite *c);
const char *ice_sqlite_db_path(const ice_sqlite *c);

/* ---- namespaces ------------------------------------------------------------------------------ */

/* Sets *exists: ns has a properties row or a table, or a namespace under it has one. */
int ice_sqlite_namespace_exists(ice_sqlite *c, const char *ns, bool *exists, sqe_error *err);

/* Creates namespace ns with the given properties (may be NULL) plus "exists" = "true" (unless
 * props sets it). ALREADY_EXISTS when it exists. Nothing is written on error. */
int ice_sqlite_create_namespace(ice_sqlite *c, const char *ns, const ice_kv_list *props,
                                sqe_error *err);

/* The direct children of parent (NULL or "" for the top level) as full dotted names, sorted and
 * distinct, including namespaces that exist only through deeper ones or tables. *names is an
 * array of *n_names strings in a. SCHEMA_NOT_FOUND when parent is given and does not exist.
 * On error the outputs are untouched. */
int ice_sqlite_list_namespaces(ice_sqlite *c, const char *parent, arena *a, char ***names,
                               uint32_t *n_names, sqe_error *err);

/* Drops namespace ns (its properties rows). SCHEMA_NOT_FOUND when it does not exist;
 * SCHEMA_NOT_EMPTY when it holds tables (or views) or child namespaces. */
int ice_sqlite_drop_namespace(ice_sqlite *c, const char *ns, sqe_error *err);

/* The properties of ns (all rows, "exists" included), sorted by key, in a. SCHEMA_NOT_FOUND
 * when ns does not exist; a namespace that exists only through deeper namespaces or tables has
 * no rows (empty list). */
int ice_sqlite_load_namespace_properties(ice_sqlite *c, const char *ns, arena *a,
                                         ice_kv_list *out, sqe_error *err);

/* Removes the keys in removals (missing keys are ignored) and sets the pairs in updates, in one
 * transaction. INVALID_ARGUMENTS when a key is in both; SCHEMA_NOT_FOUND. Removing every
 * property leaves "exists" = "true", so the namespace does not vanish. */
int ice_sqlite_update_namespace_properties(ice_sqlite *c, const char *ns,
                                           const char *const *removals, uint32_t n_removals,
                                           const ice_kv_list *updates, sqe_error *err);

/* ---- tables ---------------------------------------------------------------------------------- */

/* The tables of ns (not views), names only, sorted, in a. SCHEMA_NOT_FOUND when ns does not
 * exist. */
int ice_sqlite_list_tables(ice_sqlite *c, const char *ns, arena *a, char ***names,
                           uint32_t *n_names, sqe_error *err);

/* The location a new table ns.name gets (in a): the namespace's "location" property followed
 * by "/name" when set, else <warehouse>/<level>/<level>/.../name (Iceberg Java's JdbcCatalog
 * convention). SCHEMA_NOT_FOUND when ns does not exist. */
int ice_sqlite_default_table_location(ice_sqlite *c, const char *ns, const char *name, arena *a,
                                      char **out, sqe_error *err);

/* Loads table ns.name: *metadata_location (may be NULL to skip) gets the current metadata file
 * location and *meta (may be NULL to skip reading the file) the parsed metadata, both in a.
 * TABLE_NOT_FOUND; INVALID_FILE when the row has no location or the file is not valid metadata;
 * NOT_FOUND / IO_ERROR reading the file (messages name the location). On error the outputs are
 * untouched (a may hold partial allocations). */
int ice_sqlite_load_table(ice_sqlite *c, const char *ns, const char *name, arena *a,
                          char **metadata_location, ice_metadata **meta, sqe_error *err);

/* Creates table ns.name from metadata m (built by the caller; m->location must be set, usually
 * from ice_sqlite_default_table_location): writes m as
 * <metadata dir>/00000-<uuid>.metadata.json, where the metadata dir is the table property
 * "write.metadata.path" or <m->location>/metadata, then inserts the row. *metadata_location_out
 * (may be NULL) gets the new location, in a. SCHEMA_NOT_FOUND; ALREADY_EXISTS (also when
 * another process creates the table meanwhile); on any error the file written is removed. */
int ice_sqlite_create_table(ice_sqlite *c, const char *ns, const char *name,
                            const ice_metadata *m, arena *a, char **metadata_location_out,
                            sqe_error *err);

/* Registers an existing metadata file as table ns.name (no file is read or written).
 * SCHEMA_NOT_FOUND; ALREADY_EXISTS. */
int ice_sqlite_register_table(ice_sqlite *c, const char *ns, const char *name,
                              const char *metadata_location, sqe_error *err);

/* Commits new metadata for ns.name: writes new_meta as <version>-<uuid>.metadata.json (version =
 * the one in expected_location's file name + 1, as Iceberg Java and pyiceberg number them; 0 if
 * that name has no version) in the metadata dir (as for create), then swaps the row's
 * metadata_location from expected_location to the new file and sets previous_metadata_location
 * to expected_location, atomically. The caller builds new_meta (including its metadata-log entry
 * for expected_location, last-updated-ms, ...). *new_location_out (may be NULL) gets the new
 * location, in a. When the row no longer holds expected_location: ICE_SQLITE_ERR_COMMIT_CONFLICT
 * "Commit failed: table ns.t was changed concurrently (expected metadata <old>, found <cur>)";
 * TABLE_NOT_FOUND when the table is gone. On any error the new file is removed and the table is
 * unchanged. */
int ice_sqlite_commit(ice_sqlite *c, const char *ns, const char *name,
                      const char *expected_location, const ice_metadata *new_meta, arena *a,
                      char **new_location_out, sqe_error *err);

/* Drops table ns.name from the catalog; its files stay (like Iceberg's dropTable without purge).
 * purge = true gives NOT_SUPPORTED (nothing dropped): deleting a table's data, manifests and
 * metadata files needs the manifest reader (issue 6, DROP TABLE ... purge). TABLE_NOT_FOUND. */
int ice_sqlite_drop_table(ice_sqlite *c, const char *ns, const char *name, bool purge,
                          sqe_error *err);

/* Renames ns.name to to_ns.to_name (the row only; files do not move, as in Iceberg Java and
 * pyiceberg). TABLE_NOT_FOUND; SCHEMA_NOT_FOUND when to_ns does not exist; ALREADY_EXISTS when
 * the target name is taken. */
int ice_sqlite_rename_table(ice_sqlite *c, const char *ns, const char *name, const char *to_ns,
                            const char *to_name, sqe_error *err);

/* ---- metadata file helpers (local files for now; io/ will take over) ----------------------- */

/* The version number in a metadata file location ("<dir>/00012-<uuid>.metadata.json" -> 12),
 * or -1 when the file name does not follow <digits>-<uuid>.metadata.json (.gz.metadata.json
 * accepted). */
int64_t ice_sqlite_metadata_version(const char *location);

/* Reads the metadata file at location (a local path or file: URI) and parses it into a.
 * NOT_FOUND / IO_ERROR / NOT_SUPPORTED / INVALID_FILE, each naming the location. */
int ice_sqlite_read_metadata(const char *location, arena *a, ice_metadata **out,
                             sqe_error *err);

#endif
