/*
 * scan_source.c: the shared part of every scan source: registering a source with the query and
 * the setup the executor runs before reading (filter, morsels, EXPLAIN note).
 *
 * INTERFACE: scan_source_new, scan_source_prepare, scan_file_list_free (scan_source.h).
 */
#include "scan/scan_source.h"

#include <string.h>

int scan_source_new(plan_ctx *pctx, void *state, void (*destroy)(void *), plan_source **out,
                    sqe_error *err) {
    *out = NULL;
    plan_source *src = ARENA_NEW(pctx->arena, plan_source);
    if (!src) {
        destroy(state);
        return err_nomem(err, "binding the statement");
    }
    src->state = state;
    src->destroy = destroy;
    SQE_TRY(plan_ctx_add_source(pctx, src, err)); /* destroys state on failure */
    *out = src;
    return SQE_OK;
}

int scan_source_prepare(const plan_source *src, const bexpr *filter, const plan_col_id *col_ids,
                        const uint32_t *columns, uint32_t n_columns, uint32_t n_threads,
                        uint32_t *n_morsels, char *note, size_t note_len, sqe_error *err) {
    if (note_len) note[0] = 0;
    if (filter && src->set_filter)
        SQE_TRY(src->set_filter(src->state, filter, col_ids, columns, n_columns, err));
    if (src->plan_morsels)
        SQE_TRY(src->plan_morsels(src->state, n_threads, n_morsels, err));
    else
        *n_morsels = 1;
    if (src->describe && note_len) src->describe(src->state, note, note_len);
    return SQE_OK;
}

void scan_file_list_free(scan_file_list *l) {
    io_paths_free(l->paths, l->n);
    io_identity_unref(l->id);
    memset(l, 0, sizeof *l);
}
