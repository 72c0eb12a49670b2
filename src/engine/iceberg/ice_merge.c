/*
 * ice_merge.c: MERGE into an Iceberg table: the rows merge_run routes become positions to
 * remove ("$path", "$pos" of updated and deleted target rows) and rows to write (updated and
 * inserted), applied in one commit by ice_dml_apply.
 *
 * INTERFACE: engine_ice_merge (merge_int.h).
 * NOTES
 *   write.merge.mode chooses: copy-on-write rewrites the data files holding removed rows
 *   (their other rows plus the new rows, all through one writer); merge-on-read writes position
 *   delete files (v2) or deletion vectors (v3) for them and the new rows as new data files.
 *   The commit ("overwrite"; "append" when the MERGE only inserted) retries on concurrent
 *   appends and fails with COMMIT_CONFLICT when a file it replaces was removed meanwhile. The
 *   positions double as the duplicate check: a position added twice is a target row matched
 *   by two source rows.
 */
#include <string.h>

#include "engine/engine.h"
#include "engine/iceberg/ice_write_int.h"
#include "engine/merge_int.h"

typedef struct ice_merge_state {
    ice_positions pos;
    ice_insert *w;
} ice_merge_state;

static int mark_position(void *ud, const vec_chunk *c, uint32_t row, bool *added,
                         sqe_error *err) {
    ice_merge_state *s = ud;
    uint32_t pp, qp;
    const vec *pv = vec_resolve(&c->cols[0], row, &pp);
    const vec *qv = vec_resolve(&c->cols[1], row, &qp);
    sqe_str path = VEC_DATA(pv, sqe_str)[pp];
    return ice_positions_add(&s->pos, sqe_str_data(&path), path.len,
                             (uint64_t)VEC_DATA(qv, int64_t)[qp], added, err);
}

static int write_rows(void *ud, const vec_chunk *rows, sqe_error *err) {
    ice_merge_state *s = ud;
    return ice_insert_sink(s->w, rows, err);
}

int engine_ice_merge(sqe_conn *conn, cat_table *t, const merge_plan *p, const vec *const *params,
                     uint32_t n_params, int64_t *rows, sqe_error *err) {
    *rows = 0;
    arena a;
    arena_init(&a, NULL);
    ice_merge_state s;
    ice_positions_init(&s.pos, &a);
    s.w = NULL;
    int64_t changed = 0;
    int rc = engine_ice_insert_begin(conn, t, &s.w, err);
    merge_target_ops ops = {mark_position, NULL, write_rows, &s};
    if (!rc) rc = merge_run(conn, p, params, n_params, &ops, &changed, err);
    if (!rc && changed)
        rc = ice_dml_apply(s.w, &s.pos, ice_dml_merge_on_read(t, "write.merge.mode"),
                           &p->st->u.merge.target, err);
    if (!rc) *rows = changed;
    engine_ice_writer_end(s.w);
    ice_positions_reset(&s.pos);
    arena_destroy(&a);
    return rc;
}
