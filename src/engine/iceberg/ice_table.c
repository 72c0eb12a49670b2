/*
 * ice_table.c: the statements that write Iceberg tables (engine_ice_table_impl, table_impl.h),
 * over the Iceberg implementation's files: CREATE TABLE (ice_ddl.c), INSERT (ice_write.c),
 * DELETE / UPDATE / TRUNCATE (ice_dml.c), MERGE (ice_merge.c), ALTER TABLE (ice_alter.c,
 * ice_refs.c).
 *
 * INTERFACE: engine_ice_table_impl.
 * NOTES: INSERT streams the query's rows into data files (the result sink) and commits them as
 * one snapshot at the end; a failed query deletes the files written. Every commit reaches the
 * catalog through catalog_commit (c->ops), so a wrapping catalog sees it. CALL system.*
 * procedures are ice_procedures.c's (engine_ice_call).
 */
#include "engine/engine.h"
#include "engine/iceberg/ice_write_int.h"
#include "engine/merge_int.h"
#include "engine/table_impl.h"

static int ice_insert_rows(sqe_conn *conn, const sql_query *q, engine_insert_target *it,
                           const vec *const *params, uint32_t n_params, int64_t *rows,
                           sqe_error *err) {
    ice_insert *ins;
    int rc = engine_ice_insert_begin(conn, it->table, &ins, err);
    if (!rc)
        rc = engine_dml_run(conn, q, params, n_params, engine_insert_projection, it,
                            ice_insert_sink, ins, err);
    if (!rc && !ins) return SQE_OK;
    int frc = engine_ice_insert_finish(ins, rc == SQE_OK, rows, rc ? NULL : err);
    return rc ? rc : frc;
}

const engine_table_impl engine_ice_table_impl = {
    .type = "iceberg",
    .check_properties = NULL, /* read by create_table (engine_ice_read_properties) */
    .create_table = engine_ice_create_table,
    .missing_schema_code = SQE_ERR_SCHEMA_NOT_FOUND,
    .insert = ice_insert_rows,
    .delete_rows = engine_ice_delete,
    .update_rows = engine_ice_update,
    .merge_by_position = true,
    .merge = engine_ice_merge,
    .truncate = engine_ice_truncate,
    .alter = engine_ice_alter,
};
