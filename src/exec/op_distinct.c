/*
 * op_distinct.c: SELECT DISTINCT (PLAN_DISTINCT): every output row once.
 *
 * INTERFACE: exec_op_distinct_create (ops.h).
 * NOTES: a grouped aggregation without aggregates whose keys are all the input's columns
 * (op_hash_agg_int.h): thread-local pre-deduplication into radix partitions, merged per
 * partition in parallel by the source.
 */
#include <string.h>

#include "exec/op_hash_agg_int.h"

int exec_op_distinct_create(exec_query_ctx *qctx, const plan *p, exec_op *child, exec_op **out,
                            sqe_error *err) {
    exec_agg_spec spec;
    memset(&spec, 0, sizeof spec);
    if (p->n_out != p->children[0]->n_out)
        return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "DISTINCT changes its columns");
    spec.n_groups = p->n_out;
    spec.n_inputs = 1;
    spec.name = "Distinct";
    return exec_agg_op_create(qctx, p, &spec, &child, 1, out, err);
}
