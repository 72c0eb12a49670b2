/*
 * catalog_ops.h: the two seams of the catalog layer, the `catalog_ops` and `table_ops` vtables.
 *
 * A catalog (catalog.h) is a name, a `catalog_ops` table and the implementation's state; every
 * generic catalog_* function of catalog.h is one call through c->ops, so an implementation is
 * a filled table (the memory catalog, catalog_memory.c; Iceberg catalogs, catalog_iceberg.c),
 * and a catalog can wrap another: a policy-enforcing or auditing catalog fills its table with
 * functions that check, count or refuse and then call the inner catalog's
 * (catalog_open_ops; tests/unit/test_catalog_ops.c wraps both kinds).
 *
 * A table (cat_table) carries a `table_ops` table: what its implementation frees, and its kind,
 * which names the engine's statement entry points for that kind of table
 * (engine/table_impl.h: INSERT, DELETE, UPDATE, MERGE, TRUNCATE, ALTER, CREATE TABLE), so the
 * engine never asks which kind a table is. A wrapping catalog hands out the inner catalog's
 * tables as they are (same kind), and sees their writes where they reach a catalog: the
 * commit of a new version (commit) or the creation of a table.
 *
 * Every operation has the contract of the catalog.h function of the same name (outputs in the
 * caller's arena, errors with the messages Trino gives, `who` borrowed for the call). An
 * operation an implementation does not have is NULL in its table: catalog.c answers
 * NOT_SUPPORTED with the catalog's name then.
 */
#ifndef SQE_CATALOG_CATALOG_OPS_H
#define SQE_CATALOG_CATALOG_OPS_H

#include <stdbool.h>
#include <stdint.h>

#include "common/arena.h"
#include "common/err.h"
#include "common/principal.h"

struct catalog;
struct cat_table;
struct cat_view;
struct cat_column;
struct ice_metadata;
struct ice_table_ref;

/* The kinds of table storage; the engine keeps one set of statement entry points per kind
 * (engine/table_impl.h). A new storage kind adds a value here and an entry there. */
typedef enum cat_kind {
    CAT_KIND_MEMORY,   /* rows as immutable chunks in the process (catalog_memory.c) */
    CAT_KIND_ICEBERG,  /* Iceberg tables: versions loaded from a backend (catalog_iceberg.c) */
    CAT_KIND_COUNT
} cat_kind;

typedef struct catalog_ops {
    cat_kind kind;        /* the kind of the tables this catalog hands out and creates */
    const char *type;     /* "memory", "iceberg": for messages */
    /* Frees the implementation's state (c->impl and what it owns), not c itself. May be NULL. */
    void (*destroy)(struct catalog *c);

    /* ---- schemas ---- */
    int (*list_schemas)(struct catalog *c, const sqe_principal *who, arena *a, char ***names,
                        uint32_t *n, sqe_error *err);
    bool (*has_schema)(struct catalog *c, const sqe_principal *who, const char *schema);
    int (*create_schema)(struct catalog *c, const sqe_principal *who, const char *schema,
                         bool if_not_exists, sqe_error *err);
    int (*drop_schema)(struct catalog *c, const sqe_principal *who, const char *schema,
                       bool if_exists, bool cascade, sqe_error *err);

    /* ---- tables: resolve a name to its current version, create, drop, rename ---- */
    int (*list_tables)(struct catalog *c, const sqe_principal *who, const char *schema, arena *a,
                       char ***names, uint32_t *n, sqe_error *err);
    int (*get_table)(struct catalog *c, const sqe_principal *who, const char *schema,
                     const char *name, struct cat_table **out, sqe_error *err);
    /* A table from columns (catalog_create_table). */
    int (*create_table)(struct catalog *c, const sqe_principal *who, const char *schema,
                        const char *name, const struct cat_column *columns, uint32_t n_columns,
                        bool if_not_exists, struct cat_table **out, sqe_error *err);
    int (*drop_table)(struct catalog *c, const sqe_principal *who, const char *schema,
                      const char *name, bool if_exists, bool purge, sqe_error *err);
    int (*rename_table)(struct catalog *c, const sqe_principal *who, const char *schema,
                        const char *name, const char *to_schema, const char *to_name,
                        sqe_error *err);

    /* ---- versioned (Iceberg) tables: create from metadata, commit a new version ---- */
    int (*default_location)(struct catalog *c, const sqe_principal *who, const char *schema,
                            const char *name, arena *a, char **out, sqe_error *err);
    int (*create_table_meta)(struct catalog *c, const sqe_principal *who, const char *schema,
                             const char *name, struct ice_metadata *m, bool if_not_exists,
                             bool *created, sqe_error *err);
    int (*commit)(struct catalog *c, const struct ice_table_ref *base,
                  const struct ice_metadata *new_meta, sqe_error *err);

    /* ---- views ---- */
    int (*create_view)(struct catalog *c, const struct cat_view *def, bool or_replace,
                       sqe_error *err);
    int (*drop_view)(struct catalog *c, const char *schema, const char *name, bool if_exists,
                     sqe_error *err);
    int (*get_view)(struct catalog *c, const char *schema, const char *name,
                    struct cat_view **out, sqe_error *err);
} catalog_ops;

typedef struct table_ops {
    cat_kind kind;        /* selects the engine's entry points (engine/table_impl.h) */
    /* Frees the implementation's part of t (called once, when the last reference goes). */
    void (*free)(struct cat_table *t);
    /* The version this reference reads: the Iceberg snapshot id (-1 for a table without
     * snapshots); -1 for tables without versions (memory). What statement effects and audit
     * report as the snapshot read or written. */
    int64_t (*snapshot_id)(const struct cat_table *t);
} table_ops;

#endif
