/*
 * ice_write_int.h: the Iceberg table implementation's private header: its entry points (filled
 * into engine_ice_table_impl by ice_table.c; nothing else in the engine calls them) and the
 * data-file writer state shared by INSERT (ice_write.c) and the row-level statements
 * (ice_dml.c), and the positions a query found per data file with their application as
 * copy-on-write or merge-on-read (ice_dml.c). Private to src/engine/iceberg/.
 */
#ifndef SQE_ENGINE_ICE_WRITE_INT_H
#define SQE_ENGINE_ICE_WRITE_INT_H

#include "engine/engine.h"
#include "engine/merge_int.h"
#include "engine/table_impl.h"
#include "iceberg/roaring.h"
#include "iceberg/data_writer.h"

/* ---- the Iceberg entry points (ice_ddl.c, ice_write.c, ice_dml.c, ice_alter.c); reached from
 * outside these files only through engine_ice_table_impl (table_impl.h) ---------------- */

/* CREATE TABLE in an Iceberg catalog: columns (names, SQE types, not_null, comments) and the
 * WITH properties (Trino's Iceberg connector: partitioning, format_version, location, format,
 * sorted_by (refused), extra_properties; any name with a dot is an Iceberg table property as
 * is). *created tells whether the table was made (false when it existed and if_not_exists). */
int engine_ice_create_table(sqe_conn *conn, catalog *cat, const char *schema, const char *name,
                            const cat_column *cols, uint32_t n, const sql_property_list *props,
                            const vec *const *params, uint32_t n_params, bool if_not_exists,
                            bool *created, sqe_error *err);

/* Runs the planned query in r (its rows are t's columns, in order, via the result sink set up
 * by engine_ice_insert_sink) and commits the written files as a new snapshot of t. */
typedef struct ice_insert ice_insert;
/* The sink state for an INSERT into Iceberg table t: pass ice_insert_sink and *out to
 * engine_plan_query_hook_sink, then run the query and call engine_ice_insert_finish. */
int engine_ice_insert_begin(sqe_conn *conn, cat_table *t, ice_insert **out, sqe_error *err);
int ice_insert_sink(void *ud, const vec_chunk *chunk, sqe_error *err);
/* Finishes the files and commits them (retrying on conflicts) when ok; otherwise (or on error)
 * deletes every file written. Frees ins. *rows gets the rows inserted. */
int engine_ice_insert_finish(ice_insert *ins, bool ok, int64_t *rows, sqe_error *err);

/* Row-level statements on Iceberg table t (ice_dml.c): copy-on-write or merge-on-read by the
 * table's write.delete.mode / write.update.mode. table is the statement's name for t (the
 * rewritten queries read it again); *rows gets the rows deleted or updated. */
int engine_ice_delete(sqe_conn *conn, cat_table *t, const sql_qname *table, sql_expr *where,
                      const vec *const *params, uint32_t n_params, int64_t *rows, sqe_error *err);
int engine_ice_update(sqe_conn *conn, cat_table *t, const sql_qname *table,
                      const sql_assignment *sets, int n_sets, sql_expr *where,
                      const vec *const *params, uint32_t n_params, int64_t *rows,
                      sqe_error *err);
/* Removes every file of the table in one snapshot; *rows gets the rows it held. */
int engine_ice_truncate(sqe_conn *conn, cat_table *t, int64_t *rows, sqe_error *err);

/* Commits change ch to table *t (a reference, replaced by a fresh one when a concurrent commit
 * forces a retry: the change is re-applied on the new version). Files the attempts wrote that
 * did not become part of the table are deleted. *snapshot_id (may be NULL) gets the new
 * snapshot. */
struct ice_snapshot_change;
/* Metadata-only commits (schema, spec, properties, refs): edit turns next (a copy of base with
 * the metadata log updated) into the new version; it is called again on the reloaded table when
 * a concurrent commit forces a retry. */
struct ice_metadata;
typedef int (*engine_ice_edit)(void *ud, arena *a, const struct ice_metadata *base,
                               struct ice_metadata *next, sqe_error *err);
int engine_ice_commit_meta(catalog *cat, cat_table **t, engine_ice_edit edit, void *ud,
                           sqe_error *err);
/* ALTER TABLE on an Iceberg table (ice_alter.c). */
int engine_ice_alter(sqe_conn *conn, catalog *cat, cat_table *t, const sql_stmt *st,
                     const vec *const *params, uint32_t n_params, sqe_error *err);
int engine_ice_commit(catalog *cat, cat_table **t, struct ice_snapshot_change *ch, arena *a,
                      int64_t *snapshot_id, sqe_error *err);

struct ice_insert {
    sqe_conn *conn;
    catalog *cat;
    cat_table *table;          /* a reference; refreshed by commit retries */
    arena a;                   /* data file records and everything a commit builds */
    ice_write_options o;
    ice_data_writer *w;        /* NULL once finished */
    uint64_t rows;             /* rows written (set when finished) */
};

/* Finishes the writer and hands out the files written (in ins->a); the table is unchanged. */
int engine_ice_writer_files(ice_insert *ins, ice_data_file **files, uint32_t *n,
                            sqe_error *err);
/* Deletes the files of an unfinished writer and frees ins (NULL allowed). */
void engine_ice_writer_end(ice_insert *ins);

/* CREATE TABLE / SET PROPERTIES values (ice_ddl.c). */
typedef struct ice_table_def {
    arena *a;
    int format_version;              /* 0 = not given */
    const char *location;
    const char **partitioning;       /* partition field texts */
    uint32_t n_partitioning;
    bool has_partitioning;
    ice_kv *props;                   /* Iceberg table properties given */
    uint32_t n_props, cap_props;
} ice_table_def;

/* Reads Trino-style table properties into d (d->a set by the caller). */
int engine_ice_read_properties(sqe_conn *conn, plan_ctx *pctx, const sql_property_list *props,
                               const vec *const *params, uint32_t n_params, ice_table_def *d,
                               sqe_error *err);
/* A partition spec from texts ("day(ts)", "bucket(id, 16)", "col") over schema s; m (may be
 * NULL) is the table being evolved: fields it had keep their ids, new ones continue after
 * last-partition-id. spec_id is left 0. */
int engine_ice_partition_spec(arena *a, const ice_schema *s, const ice_metadata *m,
                              const char *const *texts, uint32_t n, ice_partition_spec **out,
                              sqe_error *err);

/* ---- Iceberg row positions and their application (ice_dml.c) ------------------------------ */

typedef struct ice_file_positions {
    char *path;                /* in the owning ice_positions' arena */
    ice_roaring pos;           /* row positions in the data file */
} ice_file_positions;

/* Positions per data file. Paths live in arena a; the file array and bitmaps are heap memory
 * freed by ice_positions_reset. */
typedef struct ice_positions {
    arena *a;
    ice_file_positions *files;
    uint32_t n_files, cap_files, last;
} ice_positions;

void ice_positions_init(ice_positions *p, arena *a);
/* Frees the bitmaps and the file array (the paths go with the arena). Safe after init. */
void ice_positions_reset(ice_positions *p);
/* Adds position pos of data file path[0..len). *added (may be NULL) tells whether it was new.
 * On error (out of memory) p keeps what it had. */
int ice_positions_add(ice_positions *p, const char *path, uint32_t len, uint64_t pos,
                      bool *added, sqe_error *err);

/* Applies a row-level change to w->table and commits it as one snapshot: the rows at positions
 * p are removed (merge-on-read when mor: position delete files in v2, deletion vectors in v3;
 * otherwise copy-on-write: the affected data files are rewritten without those rows, through w,
 * reading them with `table`, the statement's name of the table) and the rows already written
 * to w are added. Operation "append" when nothing was removed, "delete" when no data file was
 * added, else "overwrite". The writer is finished here (engine_ice_writer_end still frees w).
 * On error the table is unchanged and every file written is deleted. */
int ice_dml_apply(ice_insert *w, ice_positions *p, bool mor, const sql_qname *table,
                  sqe_error *err);

/* True when the table's `property` (write.delete.mode, write.update.mode, write.merge.mode)
 * is merge-on-read and the format allows it (v2 and later). */
bool ice_dml_merge_on_read(const cat_table *t, const char *property);

/* MERGE into Iceberg table t (ice_merge.c): write.merge.mode picks copy-on-write or
 * merge-on-read; one commit. *rows gets the rows inserted + updated + deleted. */
int engine_ice_merge(sqe_conn *conn, cat_table *t, const merge_plan *p, const vec *const *params,
                     uint32_t n_params, int64_t *rows, sqe_error *err);

#endif
