/*
 * scan_iceberg.h: the scan source over an Iceberg table's data at one snapshot (Parquet data
 * files, position and equality deletes), with manifest, file and row-group pruning from the
 * pushed-down filter.
 *
 * INTERFACE: scan_iceberg_source, ICE_SCAN_HIDDEN_COLUMNS.
 */
#ifndef SQE_SCAN_SCAN_ICEBERG_H
#define SQE_SCAN_SCAN_ICEBERG_H

#include "catalog/catalog.h"
#include "iceberg/metadata.h"
#include "plan/plan.h"

/* The scan's last columns are the hidden "$path" and "$pos" (not expanded by *). */
#define ICE_SCAN_HIDDEN_COLUMNS 2

/* A source (registered with pctx, scan_source_new) over Iceberg table t (t->ice set) at
 * snapshot snap (NULL: the table has no snapshot, no rows) read with schema: the schema's
 * top-level fields, then "$path" and "$pos". The source holds its own reference to t; snap and
 * schema belong to t's metadata. est_rows is the snapshot's total-records when known. */
int scan_iceberg_source(plan_ctx *pctx, cat_table *t, const ice_snapshot *snap,
                        const ice_schema *schema, plan_source **out, sqe_error *err);

#endif
