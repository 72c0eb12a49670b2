/*
 * system_tables.h: the read-only metadata tables clients query to discover objects, with
 * Trino's names, column names, types and value conventions:
 *   <any catalog>.information_schema.{schemata, tables, columns, views, table_privileges, roles,
 *                                     applicable_roles, enabled_roles}
 *   system.jdbc.{catalogs, schemas, tables, table_types, columns, types, procedures,
 *                procedure_columns, super_tables, super_types, udts, attributes,
 *                pseudo_columns, primary_keys}
 *   system.metadata.{catalogs, schema_properties, table_properties, column_properties,
 *                    materialized_view_properties, analyze_properties, table_comments,
 *                    materialized_views}
 *   system.runtime.sessions (SQE's: the server's live sessions, the caller's own only)
 *
 * The "system" catalog is virtual (it is not in the session's catalog list); so is the
 * "information_schema" schema of every catalog. Rows are built from the catalog interface only
 * (catalog_list_schemas / catalog_list_tables / catalog_get_table / catalog_get_view), so every
 * kind of catalog behind that interface is listed.
 */
#ifndef SQE_CATALOG_SYSTEM_TABLES_H
#define SQE_CATALOG_SYSTEM_TABLES_H

#include <stdbool.h>
#include <stdint.h>

#include "catalog/catalog.h"
#include "common/err.h"
#include "sqe/sqe_values.h"
#include "vec/vec.h"

#define SYS_CATALOG "system"
#define SYS_INFO_SCHEMA "information_schema"

typedef struct sys_column {
    const char *name;
    type_id type;      /* TYPE_VARCHAR (unbounded), TYPE_BIGINT, TYPE_BOOLEAN or TYPE_TIMESTAMP_TZ */
    bool hidden;       /* not expanded by SELECT * (Trino's hidden columns) */
} sys_column;

typedef struct sys_table {
    const char *schema;         /* "information_schema", "jdbc", "metadata" or "runtime" */
    const char *name;
    const sys_column *columns;
    uint32_t n_columns;
    int8_t catalog_col;         /* the columns holding catalog / schema / table names that */
    int8_t schema_col;          /* equality filters narrow the listing by; -1 when none */
    int8_t table_col;
    uint8_t id;                 /* internal: which row builder */
} sys_table;

/* The SQL type of a column of a metadata table. */
sqe_type sys_column_type(const sys_column *c);

/* Is `schema` a metadata schema of catalog `cat_name` (information_schema in every catalog;
 * jdbc and metadata in the system catalog)? */
bool sys_is_schema(const char *cat_name, const char *schema);

/* The metadata table catalog.schema.name, or NULL when there is none (the caller decides
 * whether the name belongs to an ordinary table). */
const sys_table *sys_table_find(const char *cat_name, const char *schema, const char *name);

/* All metadata tables, sorted by schema and then name: i in [0, sys_table_count()). */
uint32_t sys_table_count(void);
const sys_table *sys_table_at(uint32_t i);

/* The names of the metadata schemas of catalog cat_name, sorted (static strings). */
uint32_t sys_schema_names(const char *cat_name, const char *const **names);

/* What a listing covers: the session's catalogs (the system catalog is added), the catalog an
 * information_schema table belongs to, and optional equality filters on names. */
typedef struct sys_scope {
    catalog *const *catalogs;
    uint32_t n_catalogs;
    const sqe_principal *who;   /* the catalogs are asked as this user (borrowed) */
    const char *info_catalog;   /* information_schema tables: their catalog; else NULL */
    const char *catalog;        /* only this catalog (NULL = all) */
    const char *schema;         /* only this schema (NULL = all) */
    const char *table;          /* only this table (NULL = all) */
    const bool *wanted;         /* per column of the table: false when the caller does not read
                                   it (it may stay NULL; saves loading tables); NULL = all */
    sqe_session_lister sessions; /* runtime.sessions: the host's sessions; NULL = none */
    void *sessions_ud;
    bool sessions_all;           /* every user's sessions (an admin), else the caller's own */
} sys_scope;

/* Appends the rows of metadata table t within scope to cols (t->n_columns vectors, created by
 * the caller with sys_column_type types; *n_rows is the row count so far and is updated).
 * Returns SQE_OK or an error (out of memory, or a catalog failing to list); after an error the
 * vectors hold a partial listing the caller discards. Tables or views dropped while listing are
 * skipped. */
int sys_table_rows(const sys_table *t, const sys_scope *scope, vec *cols, uint32_t *n_rows,
                   sqe_error *err);

#endif
