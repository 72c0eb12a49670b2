/*
 * scan_read.h: reading one row group of an Iceberg data file (Parquet) as the table's columns:
 * columns are found by Iceberg field id (by name when the file carries no ids), columns the file
 * lacks read as NULL (or the field's initial default), promoted types (int -> long, float ->
 * double, decimal(P,S) -> decimal(P',S), date -> timestamp) are widened, and deleted rows
 * (position deletes, deletion vectors, equality deletes) are dropped through a row filter the
 * caller supplies.
 */
#ifndef SQE_ICEBERG_SCAN_READ_H
#define SQE_ICEBERG_SCAN_READ_H

#include <stdbool.h>
#include <stdint.h>

#include "common/err.h"
#include "common/mem.h"
#include "format/parquet/pq_prune.h"
#include "format/parquet/pq_reader.h"
#include "iceberg/metadata.h"
#include "vec/vec.h"

/* What a scan column holds: a table field, or one of the hidden metadata columns. */
typedef enum ice_column_kind {
    ICE_COL_FIELD = 0,  /* a table field (by field id) */
    ICE_COL_PATH,       /* "$path": the data file's location (varchar) */
    ICE_COL_POS,        /* "$pos": the row's position in the data file (bigint) */
} ice_column_kind;

/* One column the scan produces: the table field (id, name, initial default) and the SQE type
 * the query was bound with (field NULL for the metadata columns). */
typedef struct ice_read_column {
    const ice_field *field;
    sqe_type type;
    uint8_t kind;       /* ice_column_kind */
} ice_read_column;

/* Removes deleted rows: given the rows just read (chunk, before projection: the file's
 * columns in `file_columns` order) and the position of its first row in the data file, sets
 * keep[i] = false for deleted rows. Returns SQE_OK or an error. */
typedef int (*ice_row_filter_fn)(void *ud, const vec_chunk *rows, int64_t first_pos, bool *keep,
                                 sqe_error *err);

/* Maps the columns onto file f: file_cols[i] = the index of column i among f's top-level
 * columns, or UINT32_MAX when the file does not have it. Matching is by field id when the file
 * has ids, else by name (case-insensitive). Errors: NOT_SUPPORTED when a present column has a
 * type that is neither the bound type nor promotable to it (message names file and column). */
int ice_map_file_columns(const pq_file *f, const ice_read_column *cols, uint32_t n,
                         uint32_t *file_cols, sqe_error *err);

struct ice_file_deletes;

/* Which chunk columns the row filter reads for the equality delete sets d applies (d->n_eq sets),
 * for a reader of columns file_cols[0..n_cols) (ice_map_file_columns) of data file f at path:
 * (*eq_cols)[k][f] is the filter chunk's column (the ice_rg_reader_open layout: present columns,
 * then extras) holding field f of set k; file columns the reader does not read are listed once
 * each in *extra (*n_extra of them), to be passed as ice_rg_reader_open's extra_cols. The caller
 * owns *eq_cols and *extra (ice_eq_delete_columns_free); on error both are NULL. Errors:
 * NOT_SUPPORTED when f lacks a field a set deletes on (message names field and file),
 * OUT_OF_MEMORY. */
int ice_eq_delete_columns(const struct ice_file_deletes *d, const pq_file *f, const char *path,
                          const uint32_t *file_cols, uint32_t n_cols, uint32_t ***eq_cols,
                          uint32_t **extra, uint32_t *n_extra, sqe_error *err);
void ice_eq_delete_columns_free(uint32_t **eq_cols, uint32_t n_eq, uint32_t *extra);

typedef struct ice_rg_reader ice_rg_reader;

/* Opens row group g of f for the columns (file_cols from ice_map_file_columns). extra_cols
 * (may be NULL / 0) are more file columns to read for the row filter (equality delete keys);
 * the filter then sees chunk columns [projected present columns..., extra columns...] in that
 * order (*filter_cols gets, per extra column, its chunk index; may be NULL). first_pos is the
 * position in the file of the row group's first row; path is the data file's location as the
 * table names it (for "$path"). preds are page-index predicates (ignored
 * when filter is set: deleted positions need every row). On success the caller owns *out
 * (ice_rg_reader_close); f, cols, filter state must outlive it. */
int ice_rg_reader_open(pq_file *f, uint32_t g, const char *path, int64_t first_pos,
                       const ice_read_column *cols,
                       const uint32_t *file_cols, uint32_t n_cols, const uint32_t *extra_cols,
                       uint32_t n_extra, const pq_predicate *preds, uint32_t n_preds,
                       ice_row_filter_fn filter, void *filter_ud, mem_tracker *tracker,
                       ice_rg_reader **out, uint32_t *filter_cols, sqe_error *err);
/* Fills out (n_cols columns of the bound types, capacity rows) with the next rows; out->count
 * is 0 at the end. */
int ice_rg_reader_next(ice_rg_reader *r, vec_chunk *out, sqe_error *err);
void ice_rg_reader_close(ice_rg_reader *r);

#endif
