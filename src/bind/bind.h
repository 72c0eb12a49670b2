/*
 * bind.h: the binder: resolves the names and types of a parsed query (sql/ast.h) against the
 * session's catalogs and produces a logical plan (plan/plan.h) with Trino's semantics: implicit
 * coercions, function resolution, aggregation and grouping checks, window functions, and
 * subqueries turned into joins (decorrelation) so nothing runs as a per-row loop.
 *
 * Errors carry the SQL position of the offending name or expression (err->line/column).
 */
#ifndef SQE_BIND_BIND_H
#define SQE_BIND_BIND_H

#include "catalog/catalog.h"
#include "plan/plan.h"
#include "sql/ast.h"
#include "sqe/sqe_values.h"

/* What the binder needs to know about the session. */
/* Told about every table the binder resolves (optional, bind_env.access): t (borrowed for the
 * call), the plan node reading it (a PLAN_SCAN for memory tables, the PLAN_TABLE_FUNC of an
 * Iceberg scan; the node's pruned columns are final once the plan is optimized) and the
 * snapshot it reads (-1: none or not known). */
typedef struct bind_access_sink {
    void *ud;
    void (*table_read)(void *ud, const cat_table *t, const plan *node, int64_t snapshot_id);
} bind_access_sink;

typedef struct bind_env {
    catalog **catalogs;        /* the session's catalogs, by name */
    uint32_t n_catalogs;
    const char *catalog;       /* current catalog (may be NULL) */
    const char *schema;        /* current schema (may be NULL) */
    int32_t session_zone;      /* tz key, for literals like TIMESTAMP '... ' with zones */
    const char *user;          /* current_user (principal->user) */
    const sqe_principal *principal; /* who the statement runs as (borrowed, never NULL in a
                                       session): catalogs are asked as this user, file and
                                       object-store paths are checked for them */
    /* Prepared statement parameters as 1-row vectors ([0] = ?1); n_params may be smaller than
     * the statement's count only for DESCRIBE INPUT. */
    const vec *const *params;
    uint32_t n_params;
    const struct path_policy *paths; /* which files and object-store locations table functions
                                        may read (io/path_policy.h); NULL: all (embedded) */
    const bind_access_sink *access; /* told each table read (NULL: nobody asks) */
    sqe_session_lister sessions;    /* the host's live sessions for system.runtime.sessions
                                       (sqe/sqe_values.h); NULL: none */
    void *sessions_ud;
    bool sessions_all;              /* the caller holds an admin role: every user's sessions */
} bind_env;

/* A bound query: the plan and its output column names. */
typedef struct bound_query {
    plan *root;
    const char **names;        /* n = root->n_out */
} bound_query;

/* Binds a query. Memory and constants in pctx. */
int bind_query(plan_ctx *pctx, const bind_env *env, const sql_query *q, bound_query *out,
               sqe_error *err);

/* Binds the query of CREATE [OR REPLACE] VIEW catalog.schema.name. Like bind_query, except
 * that out->names[i] is NULL for a column the query leaves unnamed (a view needs every column
 * named), and that a reference back to the view itself, directly or through other views, fails
 * as recursive. Memory in pctx. */
int bind_view_definition(plan_ctx *pctx, const bind_env *env, const char *cat_name,
                         const char *schema, const char *name, const sql_query *q,
                         bound_query *out, sqe_error *err);

/* Resolves a possibly partial table name against the session defaults. On success the parts are
 * set (strings borrowed from the AST or env) and *cat the catalog. */
int bind_resolve_table_name(const bind_env *env, const sql_qname *name, catalog **cat,
                            const char **schema, const char **table, sqe_error *err);
/* Resolves a schema name (1 or 2 parts), or the current schema when name is NULL. */
int bind_resolve_schema_name(const bind_env *env, const sql_qname *name, catalog **cat,
                             const char **schema, sqe_error *err);
catalog *bind_find_catalog(const bind_env *env, const char *name);

/* Binds a standalone expression with no input columns (SET SESSION values, CALL args, table
 * function arguments, LIMIT counts). */
int bind_scalar_expr(plan_ctx *pctx, const bind_env *env, const sql_expr *e, bexpr **out,
                     sqe_error *err);
/* Inserts a cast of e to type (no-op when equal); explicit casts allowed when explicit. */
int bind_cast_to(plan_ctx *pctx, bexpr *e, sqe_type to, bool explicit_cast, bexpr **out,
                 sqe_error *err);

#endif
