/*
 * op_hash_agg_int.h (private to exec/): the grouped-aggregation engine behind GROUP BY
 * (op_hash_agg.c), DISTINCT (op_distinct.c) and the distinct set operations UNION, INTERSECT
 * and EXCEPT [ALL] (op_setop.c).
 *
 * The engine groups the rows of one or more inputs by key columns and keeps, per group, the
 * states of aggregate functions and/or one row counter per input. Its operator is a sink (every
 * input) and a source (the groups, one output row per group, or per set operations as many
 * copies as the counters say).
 */
#ifndef SQE_EXEC_OP_HASH_AGG_INT_H
#define SQE_EXEC_OP_HASH_AGG_INT_H

#include "exec/ops.h"

typedef struct exec_agg_spec {
    uint32_t n_groups;
    bexpr *const *group_exprs; /* n_groups expressions over input 0, or NULL: group g is
                                  column g of every input */
    uint32_t n_sets;           /* grouping sets (bitmasks of present groups); 0 = one set */
    const uint64_t *sets;
    plan_col_id grouping_id;   /* output column with the mask of absent groups, 0 = none */
    const plan_agg *aggs;      /* aggregates over input 0 */
    uint32_t n_aggs;
    uint32_t n_inputs;         /* how many inputs sink into the operator (>= 1) */
    bool counters;             /* keep one row counter per input (set operations) */
    uint8_t setop;             /* plan_setop_kind deciding each group's output copies; 0 = 1 */
    bool setop_all;
    const char *name;          /* EXPLAIN name */
} exec_agg_spec;

/* Builds the operator for plan node p (outputs p->out: the groups in order, then the aggregates
 * in order, the grouping id wherever its column is). children are the input operators. */
int exec_agg_op_create(exec_query_ctx *qctx, const plan *p, const exec_agg_spec *spec,
                       exec_op **children, uint32_t n_children, exec_op **out, sqe_error *err);

#endif
