/*
 * scan_task_read.h: reading the rows of one scan task (scan_task.h): opens its data file
 * through io/ with the task's credentials, picks the row groups of its range, reads its columns
 * by field id (iceberg/scan_read.h: missing columns NULL, promoted types widened, "$path" and
 * "$pos"), and drops rows its delete files delete (position deletes, deletion vectors,
 * equality deletes; iceberg/delete_index.h). The residual, the limit and the partial
 * aggregation are the executor's (exec/scan_task_run.h).
 *
 * Use:
 *   scan_task_reader *r;  scan_task_reader_open(task, tracker, &r, err);
 *   vec_chunk c (scan_task_reader_types(r), VEC_CHUNK_SIZE);
 *   while (scan_task_reader_next(r, &c, err) == SQE_OK && c.count) ...
 *   scan_task_reader_close(r);
 *
 * Credentials: with task->credentials.present and an access key id the files are read as an
 * io_identity made from them (the principal token alone does not change how files are read);
 * without, as no identity (io.h: the environment's, which `sqe serve` and workers forbid
 * with io_forbid_ambient_credentials). They are never printed.
 */
#ifndef SQE_SCAN_SCAN_TASK_READ_H
#define SQE_SCAN_SCAN_TASK_READ_H

#include <stdint.h>

#include "common/err.h"
#include "common/mem.h"
#include "scan/scan_task.h"
#include "vec/vec.h"

typedef struct scan_task_reader scan_task_reader;

/* Opens task t (which must outlive the reader). Errors: INVALID_ARGUMENTS from
 * scan_task_validate or for credentials io/ refuses, the io/ and Parquet errors naming the
 * file, NOT_SUPPORTED for a column the file holds in a type it cannot be read as, the delete
 * index errors; on error *out is NULL. */
int scan_task_reader_open(const scan_task *t, mem_tracker *tracker, scan_task_reader **out,
                          sqe_error *err);
/* The types of the chunks next fills: the task's columns, in order. */
const sqe_type *scan_task_reader_types(const scan_task_reader *r);
/* Fills out (task column types, capacity >= VEC_CHUNK_SIZE) with the next surviving rows;
 * out->count == 0 at the end. Errors: those of the Parquet reader and the delete filter,
 * prefixed with the data file's path. */
int scan_task_reader_next(scan_task_reader *r, vec_chunk *out, sqe_error *err);
/* Row groups the range selected (after open). */
uint32_t scan_task_reader_row_groups(const scan_task_reader *r);
void scan_task_reader_close(scan_task_reader *r);

#endif
