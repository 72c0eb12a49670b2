/*
 * scan_csv.h: the scan source over CSV files (read_csv and a CSV path used as a table), made in
 * three steps so the binder can position each error: the source, its options, then the sniff.
 *
 * INTERFACE: scan_csv_source, scan_csv_option, scan_csv_finish.
 */
#ifndef SQE_SCAN_SCAN_CSV_H
#define SQE_SCAN_SCAN_CSV_H

#include "scan/scan_source.h"

typedef struct scan_csv scan_csv;

/* A source (registered with pctx, destroyed with the query) over files (at least one; taken
 * over and freed, also on error). *csv is the source's state for the two calls below; *out
 * has no schema and no readers until scan_csv_finish. */
int scan_csv_source(plan_ctx *pctx, scan_file_list *files, scan_csv **csv, plan_source **out,
                    sqe_error *err);
/* Sets option name to value (its text: "true", "|", "1"); errors as csv_options_set's. */
int scan_csv_option(scan_csv *csv, const char *name, const char *value, sqe_error *err);
/* Sniffs the first file for the schema and completes src (the source made with csv). Errors
 * carry no position. */
int scan_csv_finish(scan_csv *csv, plan_source *src, sqe_error *err);

#endif
