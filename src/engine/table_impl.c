/*
 * table_impl.c: the engine's statement entry points per kind of table (see table_impl.h).
 *
 * INTERFACE: engine_table_impl_of, engine_catalog_impl, engine_dml_run.
 * NOTES: one entry per cat_kind; a kind without an entry is a build error (the static assert).
 */
#include "engine/table_impl.h"

static const engine_table_impl *const impls[] = {
    [CAT_KIND_MEMORY] = &engine_mem_table_impl,
    [CAT_KIND_ICEBERG] = &engine_ice_table_impl,
};
_Static_assert(sizeof impls / sizeof *impls == CAT_KIND_COUNT, "an engine_table_impl per kind");

const engine_table_impl *engine_table_impl_of(const cat_table *t) { return impls[t->ops->kind]; }

const engine_table_impl *engine_catalog_impl(const catalog *c) { return impls[c->ops->kind]; }

int engine_dml_run(sqe_conn *conn, const sql_query *q, const vec *const *params,
                   uint32_t n_params, engine_plan_hook hook, void *hook_ud,
                   int (*sink)(void *, const vec_chunk *, sqe_error *), void *ud,
                   sqe_error *err) {
    sqe_result *r;
    SQE_TRY(engine_result_create(0, NULL, NULL, &r, err));
    bound_query bq;
    int rc = engine_plan_query_hook_sink(conn, q, params, n_params, hook, hook_ud, sink, ud, r,
                                         &bq, err);
    while (!rc) {
        const vec_chunk *c;
        rc = exec_query_next(r->query, &c, err);
        if (rc || !c) break;
        if (c->count) rc = sink(ud, c, err);
    }
    sqe_result_destroy(r);
    return rc;
}

