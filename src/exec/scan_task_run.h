/*
 * scan_task_run.h: running one scan task (scan/scan_task.h) with no binder and no catalog, as a
 * worker does after scan_task_decode: read its rows (scan/scan_task_read.h: file, range,
 * columns by field id, deletes), keep those its residual makes TRUE (the executor's compiled
 * expressions), stop at its limit, and either hand out the output columns or fold them into a
 * partial aggregation (group keys + aggregate functions producing partial states).
 *
 * Output chunks (valid during the emit call only):
 *   - without aggregation: the task's output columns (task->output) in order;
 *   - with aggregation: the group keys, then one VARBINARY column per aggregate holding its
 *     partial state (state_size bytes of the function's state, valid within one build of SQE:
 *     coordinator and workers run the same binary). One row per group; a task without group
 *     keys gives exactly one row, also over no input rows.
 * scan_task_final_* is the coordinator's side: it merges partial-state rows of any number of
 * tasks (combine) and finalizes them into [keys..., aggregate results].
 *
 * Aggregates whose state owns heap memory (func_agg_def.destroy, e.g. array_agg, min/max over
 * strings) cannot cross: NOT_SUPPORTED naming the function. Group keys of nested types are
 * NOT_SUPPORTED. Grouping follows GROUP BY: NULL equals NULL, 0.0 equals -0.0, NaN equals NaN,
 * timestamps with time zone compare by instant.
 */
#ifndef SQE_EXEC_SCAN_TASK_RUN_H
#define SQE_EXEC_SCAN_TASK_RUN_H

#include <stdint.h>

#include "common/err.h"
#include "common/mem.h"
#include "scan/scan_task.h"
#include "vec/vec.h"

typedef struct scan_task_run_options {
    mem_tracker *tracker;        /* may be NULL */
    int32_t session_zone;        /* tz.h key for the residual's session functions */
    int64_t query_start_micros;
    volatile int *cancel;        /* may be NULL */
} scan_task_run_options;

/* Receives one output chunk; a non-OK return stops the run with that error. */
typedef int (*scan_task_emit_fn)(void *ud, const vec_chunk *chunk, sqe_error *err);

/* The output column types of t into types (room for n_output, or n_keys + n_aggs with an
 * aggregation); returns their number. */
uint32_t scan_task_output_types(const scan_task *t, sqe_type *types);

/* Runs t, calling emit per output chunk. o may be NULL (defaults). Errors: those of
 * scan_task_reader_open/next, of the residual's evaluation, NOT_SUPPORTED (see above),
 * USER_CANCELED, OUT_OF_MEMORY, or emit's. */
int scan_task_run(const scan_task *t, const scan_task_run_options *o, scan_task_emit_fn emit,
                  void *ud, sqe_error *err);

/* The coordinator's merge of partial aggregation results of tasks like t (same keys and
 * aggregates). */
typedef struct scan_task_final scan_task_final;
int scan_task_final_create(const scan_task *t, const scan_task_run_options *o,
                           scan_task_final **out, sqe_error *err);
/* Merges a chunk emitted by scan_task_run for an aggregating task. Errors: INVALID_ARGUMENTS
 * for a chunk of another shape or a state of the wrong size. */
int scan_task_final_add(scan_task_final *f, const vec_chunk *partial, sqe_error *err);
/* Emits [keys..., results] (types: the keys', then each aggregate's ret), one row per group. */
int scan_task_final_finish(scan_task_final *f, scan_task_emit_fn emit, void *ud, sqe_error *err);
void scan_task_final_destroy(scan_task_final *f);

#endif
