/*
 * scan_source.h: the scan-source interface, seen from the sources (scan_*.c) and from the
 * executor (exec/op_table_func.c) that drives them.
 *
 * A scan source is a plan_source (plan/plan.h): the plan node PLAN_TABLE_FUNC holds one, and the
 * optimizer reads what it offers (the struct lives in plan/ because plan/ is below this layer).
 * What a source offers:
 *   - its schema: n_columns, names, types (arena memory of the query, or the state's own);
 *   - estimates: est_rows, column_ndv (distinct values, for join ordering);
 *   - pushdown: the projection (the columns every reader is opened with) and set_filter (a
 *     filter it may use to skip data; the executor still applies it to every row);
 *   - readers: plan_morsels splits the data into morsels, open/next/close read one morsel into
 *     vec_chunks, one reader per pool thread at a time;
 *   - EXPLAIN: describe, a note on what was planned ("row groups: 6 of 10");
 *   - clone: an independent copy for plans that read the source twice.
 *
 * INTERFACE
 *   scan_source_new      registers a source state with the query (every constructor uses it)
 *   scan_source_prepare  one execution's setup: filter, morsels, EXPLAIN note (the executor)
 *   scan_source_open/next/close  the per-thread readers (the executor)
 *   scan_file_list       the files a file source reads, as the path policy resolved them
 * The sources: scan_iceberg.h (Iceberg tables at a snapshot), scan_parquet.h (read_parquet),
 * scan_csv.h (read_csv), scan_memory.h (memory-catalog tables, for exec/op_scan.c).
 * NOTES: callbacks are thread-safe for distinct readers; a reader fills its output chunk with up
 * to out->capacity rows and count == 0 at the end. The binder picks the source and the table
 * version; nothing here resolves names or checks paths.
 */
#ifndef SQE_SCAN_SCAN_SOURCE_H
#define SQE_SCAN_SCAN_SOURCE_H

#include <stddef.h>

#include "io/io.h"
#include "plan/plan.h"

/* Registers state as a new source of the query in pctx: the returned plan_source (in the query
 * arena) has state and destroy set and everything else zero, for the caller to fill. state is
 * destroyed with the query, and at once (with destroy) when this fails. */
int scan_source_new(plan_ctx *pctx, void *state, void (*destroy)(void *), plan_source **out,
                    sqe_error *err);

/* Prepares src for one execution: hands it filter (when not NULL and the source takes one;
 * col_ids[i] is the plan column of source column columns[i], n_columns entries), plans its
 * morsels for n_threads (1 morsel when the source has no plan_morsels) and writes its EXPLAIN
 * ANALYZE note into note (empty when it has none). On error *n_morsels is undefined. */
int scan_source_prepare(const plan_source *src, const bexpr *filter, const plan_col_id *col_ids,
                        const uint32_t *columns, uint32_t n_columns, uint32_t n_threads,
                        uint32_t *n_morsels, char *note, size_t note_len, sqe_error *err);

/* A reader of morsel producing source columns columns[0..n_columns) in that order; closed by
 * scan_source_close (also after an error of scan_source_next). */
static inline int scan_source_open(const plan_source *src, uint32_t morsel,
                                   const uint32_t *columns, uint32_t n_columns, void **reader,
                                   sqe_error *err) {
    return src->open(src->state, morsel, columns, n_columns, reader, err);
}
/* Fills out (made with the projected types) with up to out->capacity rows; 0 at the end. */
static inline int scan_source_next(const plan_source *src, void *reader, vec_chunk *out,
                                   sqe_error *err) {
    return src->next(reader, out, err);
}
static inline void scan_source_close(const plan_source *src, void *reader) {
    if (reader && src->close) src->close(reader);
}

/* The files a file source reads: the session's path policy resolved the path or glob
 * (io/path_policy.h), so only these may be opened, with identity id. */
typedef struct scan_file_list {
    char **paths;                /* io_paths_free */
    uint32_t n;
    io_identity *id;             /* object-store identity to open them with (reference), or NULL */
} scan_file_list;
/* Frees the paths and drops the identity; l is zeroed. */
void scan_file_list_free(scan_file_list *l);

#endif
