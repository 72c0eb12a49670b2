/*
 * scan_task_plan.h: from an Iceberg scan plan (iceberg/scan_plan.h: the data files and delete
 * files of a snapshot, pruned) to scan tasks (scan_task.h): one task per data file, or one per
 * byte range when the file is larger than the split size and records its row-group start
 * offsets (Iceberg split_offsets), cut on those boundaries so each row group is read once.
 * Each task carries the delete files that apply to its data file, chosen by the Iceberg rules
 * (iceberg/delete_index.h: sequence numbers, referenced data file, spec and partition; a
 * deletion vector replaces the position delete files of its data file).
 */
#ifndef SQE_SCAN_SCAN_TASK_PLAN_H
#define SQE_SCAN_SCAN_TASK_PLAN_H

#include <stdint.h>

#include "common/arena.h"
#include "common/err.h"
#include "iceberg/scan_plan.h"
#include "scan/scan_task.h"

/* Builds the tasks for files: each is a copy of proto (columns, output, residual,
 * aggregation, limit, credentials: shared, not copied) with its own file, range and deletes.
 * split_bytes 0 never splits. Everything in a (files and proto must outlive the tasks).
 * Errors: NOT_SUPPORTED for a data file that is not Parquet or a delete file in another
 * format, OUT_OF_MEMORY. */
int scan_task_plan(arena *a, const ice_scan_files *files, const scan_task *proto,
                   uint64_t split_bytes, scan_task **tasks, uint32_t *n_tasks, sqe_error *err);

#endif
