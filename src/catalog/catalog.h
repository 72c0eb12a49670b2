/*
 * catalog.h: the catalog interface the binder resolves names through, and the in-memory
 * catalog ("memory") that holds schemas, tables and views for the embedded engine and temporary
 * data.
 *
 * Names are case-folded by the parser (unquoted identifiers are lower case); the catalog
 * compares them exactly. A cat_table is reference-counted: the binder takes a reference for the
 * duration of a query, so DROP TABLE while a query runs is safe. Tables and views share one
 * namespace per schema; a cat_view is immutable and reference-counted too (CREATE OR REPLACE
 * swaps in a new object).
 *
 * Identity: the functions that may reach an Iceberg catalog's backend take `who`, the principal
 * the statement runs as (borrowed; common/principal.h): a REST catalog is asked as that user.
 * The memory catalog ignores it.
 *
 * Every catalog function below is one call through the catalog's `catalog_ops` table
 * (catalog_ops.h), and every table carries a `table_ops` table: the memory catalog
 * (catalog_memory.c) and Iceberg catalogs (catalog_iceberg.h) are two fillings of them, and a
 * catalog can wrap another (catalog_open_ops).
 *
 * Thread-safety: all functions take the catalog's lock; table data appends (INSERT) happen under
 * the table's own lock and become visible atomically at commit (cat_table_append_commit).
 */
#ifndef SQE_CATALOG_CATALOG_H
#define SQE_CATALOG_CATALOG_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "catalog/catalog_ops.h"
#include "catalog/col_stats.h"
#include "common/err.h"
#include "common/principal.h"
#include "vec/vec.h"

typedef struct cat_column {
    char *name;
    sqe_type type;
    bool not_null;
    char *comment;
} cat_column;

/* Column data of an in-memory table: a list of chunks of up to VEC_CHUNK_SIZE rows each. */
typedef struct mem_table_data {
    vec_chunk **chunks;
    uint32_t n_chunks;
    uint32_t cap_chunks;
    uint64_t n_rows;
    mem_tracker tracker; /* the table's memory, charged to the database */
} mem_table_data;

typedef struct cat_table {
    _Atomic int refs;
    const table_ops *ops;  /* the implementation (catalog_ops.h); never NULL */
    char *catalog;
    char *schema;
    char *name;
    cat_column *columns;
    uint32_t n_columns;
    char *comment;
    mem_table_data data;   /* memory catalog storage; the current committed version */
    mem_table_data retired; /* chunks removed by TRUNCATE, freed with the table */
    col_stats *stats;      /* per column, for the optimizer (guarded by lock) */
    pthread_mutex_t lock;  /* serializes writers */
    struct ice_table_ref *ice; /* Iceberg tables: the version loaded (catalog_iceberg.h); NULL
                                  for memory tables, whose rows are in data */
} cat_table;

/* A view: the text of its query, the session context the text is bound in, and the names and
 * types of the query's columns when it was created (Trino's view definition). Immutable. */
typedef struct cat_view {
    _Atomic int refs;
    char *catalog;
    char *schema;
    char *name;
    char *sql;             /* the query text as written after AS */
    char *ctx_catalog;     /* session catalog and schema at creation: unqualified names in sql */
    char *ctx_schema;      /* resolve against these (NULL when the session had none) */
    cat_column *columns;   /* name and type of each output column (not_null unused) */
    uint32_t n_columns;
    char *comment;         /* COMMENT '...' or NULL */
} cat_view;

typedef struct cat_schema {
    char *name;
    cat_table **tables;
    uint32_t n_tables;
    uint32_t cap_tables;
    cat_view **views;      /* in creation order; a name is a table or a view, never both */
    uint32_t n_views;
    uint32_t cap_views;
} cat_schema;

typedef struct catalog {
    char *name;
    const catalog_ops *ops;  /* the implementation (catalog_ops.h); never NULL */
    void *impl;              /* its state beyond the fields below (a wrapping catalog: the
                                inner catalog), or NULL */
    cat_schema **schemas;    /* the memory catalog's schemas */
    uint32_t n_schemas;
    uint32_t cap_schemas;
    pthread_mutex_t lock;
    mem_tracker *tracker;
    struct ice_backend *iceberg; /* Iceberg catalogs: the backend (ice_backend.h), NULL for
                                    others. Only catalog_iceberg.c reads it (cli_catalogs.c
                                    still tests it to know a catalog takes storage settings) */
} catalog;

/* Creates the memory catalog `name` with an empty schema "default" (catalog_memory.c). Caller
 * owns *out (catalog_destroy). */
int catalog_create(const char *name, mem_tracker *tracker, catalog **out, sqe_error *err);
/* A catalog `name` over any implementation: ops (static, borrowed) and impl (taken over: freed
 * by ops->destroy with the catalog, also on error). A wrapping catalog passes its own ops and
 * the inner catalog as impl, and its destroy closes the inner one. Caller owns *out. */
int catalog_open_ops(const char *name, const catalog_ops *ops, void *impl, mem_tracker *tracker,
                     catalog **out, sqe_error *err);
/* Frees c: its implementation's state (ops->destroy), then the generic part. NULL allowed. */
void catalog_destroy(catalog *c);

int catalog_create_schema(catalog *c, const sqe_principal *who, const char *schema,
                          bool if_not_exists, sqe_error *err);
/* Fails with SCHEMA_NOT_EMPTY unless cascade or the schema is empty. */
int catalog_drop_schema(catalog *c, const sqe_principal *who, const char *schema, bool if_exists,
                        bool cascade, sqe_error *err);
bool catalog_has_schema(catalog *c, const sqe_principal *who, const char *schema);

/* Creates an empty table. Columns are copied. On success *out (optional) is a new reference, or
 * NULL when if_not_exists found a view of that name (as Trino, nothing is created then); without
 * if_not_exists an existing table or view fails with ALREADY_EXISTS. A missing schema is
 * NOT_FOUND ("Schema s not found", Trino's memory connector). */
int catalog_create_table(catalog *c, const char *schema, const char *name,
                         const cat_column *columns, uint32_t n_columns, bool if_not_exists,
                         cat_table **out, sqe_error *err);
/* Fails with GENERIC_USER_ERROR ("... but a view with that name exists") when name is a view,
 * even with if_exists (Trino). */
int catalog_drop_table(catalog *c, const sqe_principal *who, const char *schema, const char *name,
                       bool if_exists, sqe_error *err);
/* Drops a table; purge also deletes its files where the implementation keeps files it manages
 * (Iceberg tables inside the warehouse). catalog_drop_table purges. */
int catalog_drop_table_purge(catalog *c, const sqe_principal *who, const char *schema,
                             const char *name, bool if_exists, bool purge, sqe_error *err);
/* Renames table schema.name to to_schema.to_name (the catalog entry; files stay).
 * TABLE_NOT_FOUND, SCHEMA_NOT_FOUND, ALREADY_EXISTS; NOT_SUPPORTED when the catalog cannot. */
int catalog_rename_table(catalog *c, const sqe_principal *who, const char *schema,
                         const char *name, const char *to_schema, const char *to_name,
                         sqe_error *err);
/* Versioned (Iceberg) tables, through c->ops like everything else (NOT_SUPPORTED where the
 * catalog has none; contracts in catalog_iceberg.h): the default location of a new table in a;
 * creating a table from metadata m (m->location empty: the default one); committing new_meta as
 * the next version after base (compare and swap; COMMIT_CONFLICT when the table moved on). */
int catalog_default_location(catalog *c, const sqe_principal *who, const char *schema,
                             const char *name, arena *a, char **out, sqe_error *err);
int catalog_create_table_meta(catalog *c, const sqe_principal *who, const char *schema,
                              const char *name, struct ice_metadata *m, bool if_not_exists,
                              bool *created, sqe_error *err);
int catalog_commit(catalog *c, const struct ice_table_ref *base,
                   const struct ice_metadata *new_meta, sqe_error *err);
/* Looks a table up; on success *out is a new reference (cat_table_unref). Returns
 * SCHEMA_NOT_FOUND or TABLE_NOT_FOUND (with the qualified name in the message) otherwise. */
int catalog_get_table(catalog *c, const sqe_principal *who, const char *schema, const char *name,
                      cat_table **out, sqe_error *err);

/* Snapshot listings (names copied into a; sorted). Table listings include views (Trino's SHOW
 * TABLES). */
int catalog_list_schemas(catalog *c, const sqe_principal *who, arena *a, char ***names,
                         uint32_t *n, sqe_error *err);
int catalog_list_tables(catalog *c, const sqe_principal *who, const char *schema, arena *a,
                        char ***names, uint32_t *n, sqe_error *err);

void cat_table_ref(cat_table *t);
void cat_table_unref(cat_table *t);
/* The version t reads (table_ops.snapshot_id): an Iceberg snapshot id, -1 when none. */
int64_t cat_table_snapshot_id(const cat_table *t);

/* Creates view def->schema.def->name from def (its sql, ctx_*, columns and comment; the other
 * fields are ignored). Everything is copied. Fails with NOT_FOUND (no schema, as Trino's memory
 * connector), or ALREADY_EXISTS when
 * a table of that name exists or, unless or_replace, a view does. Replacing leaves queries that
 * hold the old view unaffected. On error the catalog is unchanged. */
int catalog_create_view(catalog *c, const cat_view *def, bool or_replace, sqe_error *err);
/* Drops a view. TABLE_NOT_FOUND when there is none (with a hint when a table has that name),
 * unless if_exists. */
int catalog_drop_view(catalog *c, const char *schema, const char *name, bool if_exists,
                      sqe_error *err);
/* Looks a view up; on success *out is a new reference (cat_view_unref). Returns SCHEMA_NOT_FOUND
 * or TABLE_NOT_FOUND ("View '...' does not exist") otherwise; err may be NULL for a probe. */
int catalog_get_view(catalog *c, const char *schema, const char *name, cat_view **out,
                     sqe_error *err);
/* A new view (refs 1) holding copies of def's fields, in catalog catalog_name; NULL when out of
 * memory. For implementations that keep views. Caller owns the reference. */
cat_view *cat_view_copy(const char *catalog_name, const cat_view *def);
void cat_view_ref(cat_view *v);
void cat_view_unref(cat_view *v);

/* Appending rows: build new chunks privately, then commit them in one step. */
typedef struct cat_append {
    cat_table *table;
    vec_chunk **chunks;
    uint32_t n_chunks, cap_chunks;
    uint64_t n_rows;
    col_stats *stats;       /* statistics of the appended rows (NULL until the first chunk) */
} cat_append;
void cat_append_init(cat_append *ap, cat_table *t);
/* Copies `in` (n_columns columns matching the table's types, any shapes) into new chunks. */
int cat_append_chunk(cat_append *ap, const vec_chunk *in, sqe_error *err);
/* Makes the appended rows visible (atomically with respect to readers that start later). */
int cat_append_commit(cat_append *ap, sqe_error *err);
/* Drops uncommitted rows. */
void cat_append_abort(cat_append *ap);
/* Removes all rows (TRUNCATE / failed CTAS cleanup). */
void cat_table_truncate(cat_table *t);

/* Readers take a consistent snapshot of the chunk list: chunks are immutable once committed. */
typedef struct cat_snapshot {
    vec_chunk **chunks; /* copied pointer array (owned by the snapshot); the chunks themselves
                           stay valid while the table reference is held (TRUNCATE retires
                           chunks instead of freeing them; see catalog.c NOTES) */
    uint32_t n_chunks;
    uint64_t n_rows;
} cat_snapshot;
int cat_table_snapshot(cat_table *t, cat_snapshot *out, sqe_error *err);
/* Estimated distinct non-NULL values of column col (0 when unknown or empty). */
double cat_table_column_ndv(cat_table *t, uint32_t col);
void cat_snapshot_destroy(cat_snapshot *s);

#endif
