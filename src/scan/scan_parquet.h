/*
 * scan_parquet.h: the scan source over Parquet files (read_parquet and a Parquet path used as
 * a table), with row-group pruning on statistics and bloom filters and page pruning on the
 * page index.
 *
 * INTERFACE: scan_parquet_source.
 */
#ifndef SQE_SCAN_SCAN_PARQUET_H
#define SQE_SCAN_SCAN_PARQUET_H

#include "scan/scan_source.h"

/* A source (registered with pctx) over files (at least one; the paths are taken over, the
 * identity stays with files, which the caller frees): every footer is opened now, the first
 * file's top-level columns are the schema, and every other file must have them by name with
 * the same types (INVALID_FILE otherwise). Errors carry no position. */
int scan_parquet_source(plan_ctx *pctx, scan_file_list *files, plan_source **out,
                        sqe_error *err);

#endif
