/*
 * scan_filter.c: optimizer pass that hands a filter sitting directly on a table-function scan
 * to the scan itself, when its source can use it to skip data (plan_source.set_filter: Parquet
 * row-group statistics, bloom filters). The scan then evaluates the filter as it reads, and
 * the separate Filter operator disappears.
 *
 * INTERFACE: plan_merge_scan_filters (optimize_int.h).
 * NOTES: runs after filter pushdown, so every filter that can reach a scan is right above it.
 */
#include "plan/optimize_int.h"

int plan_merge_scan_filters(opt_ctx *oc, plan **pp) {
    plan *p = *pp;
    for (uint32_t i = 0; i < p->n_children; i++) SQE_TRY(plan_merge_scan_filters(oc, &p->children[i]));
    if (p->kind != PLAN_FILTER || p->n_children != 1) return SQE_OK;
    plan *c = p->children[0];
    if (c->kind != PLAN_TABLE_FUNC || c->u.tfunc.filter || !c->u.tfunc.source ||
        !c->u.tfunc.source->set_filter)
        return SQE_OK;
    c->u.tfunc.filter = p->u.filter.cond;
    *pp = c;
    return SQE_OK;
}
