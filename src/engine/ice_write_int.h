/*
 * ice_write_int.h: the data-file writer state shared by INSERT (ice_write.c) and the row-level
 * statements (ice_dml.c). Private to src/engine/.
 */
#ifndef SQE_ENGINE_ICE_WRITE_INT_H
#define SQE_ENGINE_ICE_WRITE_INT_H

#include "engine/engine.h"
#include "iceberg/data_writer.h"

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

#endif
