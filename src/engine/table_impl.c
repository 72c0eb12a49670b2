/*
 * table_impl.c: the engine's statement entry points per kind of table (see table_impl.h).
 *
 * INTERFACE: engine_table_impl_of, engine_catalog_impl.
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
