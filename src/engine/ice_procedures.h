/*
 * ice_procedures.h: Iceberg table maintenance: the CALL procedures (ice_procedures.c) and the
 * branch and tag forms of ALTER TABLE (ice_refs.c). Private to src/engine/.
 */
#ifndef SQE_ENGINE_ICE_PROCEDURES_H
#define SQE_ENGINE_ICE_PROCEDURES_H

#include "engine/engine.h"

/* CALL [catalog.]system.<procedure>(args) (st->kind SQL_STMT_CALL): rollback_to_snapshot,
 * set_current_snapshot, expire_snapshots, remove_orphan_files, rewrite_data_files, with
 * Spark's named arguments (table => 'ns.t', ...) or positional ones (Trino's (schema, table,
 * snapshot_id) for rollback_to_snapshot). On success *out (caller-owned) holds the procedure's
 * result rows. Errors (with the statement or argument position): FUNCTION_NOT_FOUND for an
 * unknown procedure, INVALID_ARGUMENTS / TYPE_MISMATCH for bad arguments, TABLE_NOT_FOUND,
 * NOT_SUPPORTED on a memory catalog, COMMIT_CONFLICT, IO errors naming the file. A procedure
 * that failed before its commit left the table unchanged; one that failed while deleting files
 * after its commit leaves the new table version and the files not yet deleted. */
int engine_ice_call(sqe_conn *conn, const sql_stmt *st, const vec *const *params,
                    uint32_t n_params, sqe_result **out, sqe_error *err);

/* ALTER TABLE t CREATE [OR REPLACE] BRANCH|TAG [IF NOT EXISTS] x [AS OF VERSION n]
 * [RETAIN n DAYS|HOURS|MINUTES] and DROP BRANCH|TAG [IF EXISTS] x on Iceberg table t of catalog
 * cat (st->u.alter.action one of the branch/tag forms of sql_alter_kind). A metadata-only
 * commit; on error the table is unchanged. */
int engine_ice_alter_ref(sqe_conn *conn, catalog *cat, cat_table *t, const sql_stmt *st,
                         const vec *const *params, uint32_t n_params, sqe_error *err);

/* The constant value of expression e (bound in the session, folded; parameters allowed), cast
 * to *want when want is not NULL (explicit_cast allows explicit casts). *out lives in pctx's
 * arena. Errors: the binder's, TYPE_MISMATCH when the value does not cast, INVALID_ARGUMENTS
 * when it is not a constant; positioned at e. */
int engine_ice_const(sqe_conn *conn, plan_ctx *pctx, const sql_expr *e, const vec *const *params,
                     uint32_t n_params, const sqe_type *want, bool explicit_cast,
                     const vec **out, sqe_error *err);

#endif
