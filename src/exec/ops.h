/*
 * ops.h: constructors of the physical operators, called by the physical planner (query.c).
 *
 * Each constructor builds the operator for one logical node `p` (plan/plan.h), compiling its
 * expressions against the layouts of p's children (p->children[i]->out) and producing p->out in
 * order. `children` are the already-built operators for p->children (same order), except for
 * joins, where children are (probe, build) = (left, right) of the logical join unless noted.
 * On success *out is owned by the query (freed through vt->destroy by the driver).
 */
#ifndef SQE_EXEC_OPS_H
#define SQE_EXEC_OPS_H

#include "exec/exec_int.h"

/* Sources. */
int exec_op_scan_create(exec_query_ctx *qctx, const plan *p, exec_op **out, sqe_error *err);
int exec_op_table_func_create(exec_query_ctx *qctx, const plan *p, exec_op **out, sqe_error *err);
int exec_op_values_create(exec_query_ctx *qctx, const plan *p, exec_op **out, sqe_error *err);
int exec_op_empty_create(exec_query_ctx *qctx, const plan *p, exec_op **out, sqe_error *err);

/* Streaming operators. */
int exec_op_filter_create(exec_query_ctx *qctx, const plan *p, exec_op *child, exec_op **out,
                          sqe_error *err);
int exec_op_project_create(exec_query_ctx *qctx, const plan *p, exec_op *child, exec_op **out,
                           sqe_error *err);
int exec_op_limit_create(exec_query_ctx *qctx, const plan *p, exec_op *child, exec_op **out,
                         sqe_error *err);
int exec_op_unnest_create(exec_query_ctx *qctx, const plan *p, exec_op *child, exec_op **out,
                          sqe_error *err);

/* Joins: PLAN_JOIN with equi keys -> hash join (all join types); without keys -> nested loop. */
int exec_op_hash_join_create(exec_query_ctx *qctx, const plan *p, exec_op *probe, exec_op *build,
                             exec_op **out, sqe_error *err);
int exec_op_nl_join_create(exec_query_ctx *qctx, const plan *p, exec_op *probe, exec_op *build,
                           exec_op **out, sqe_error *err);

/* Pipeline breakers. */
int exec_op_hash_agg_create(exec_query_ctx *qctx, const plan *p, exec_op *child, exec_op **out,
                            sqe_error *err);
int exec_op_distinct_create(exec_query_ctx *qctx, const plan *p, exec_op *child, exec_op **out,
                            sqe_error *err);
/* PLAN_SORT and PLAN_TOPN. */
int exec_op_sort_create(exec_query_ctx *qctx, const plan *p, exec_op *child, exec_op **out,
                        sqe_error *err);
int exec_op_window_create(exec_query_ctx *qctx, const plan *p, exec_op *child, exec_op **out,
                          sqe_error *err);
int exec_op_setop_create(exec_query_ctx *qctx, const plan *p, exec_op **children,
                         uint32_t n_children, exec_op **out, sqe_error *err);
int exec_op_enforce_single_create(exec_query_ctx *qctx, const plan *p, exec_op *child,
                                  exec_op **out, sqe_error *err);

/* The result collector: the root pipeline's sink; chunks are read back by exec_query_next. */
int exec_op_result_create(exec_query_ctx *qctx, const plan *root, exec_op *child, exec_op **out,
                          sqe_error *err);

/* Helpers shared by operators (exec/op_common.c). */
/* Allocates an exec_op with n_children and output types from p->out. */
exec_op *exec_op_alloc(exec_query_ctx *qctx, const exec_op_vtable *vt, const plan *p,
                       uint32_t n_children);
/* Layout of a plan node's output (for compiling expressions against it). */
exec_layout exec_layout_of(const plan *p);
/* Creates a chunk of the operator's output types, VEC_CHUNK_SIZE rows. */
int exec_chunk_create_for(const exec_op *op, vec_chunk *c, sqe_error *err);
/* Checks the query's cancel flag: returns USER_CANCELED when set. */
int exec_check_cancel(exec_query_ctx *qctx, sqe_error *err);

/* Follows identity views (VEC_DICT with sel == NULL) down to the vector that holds the rows. */
const vec *exec_vec_unwrap(const vec *v);
/* Makes `out` a zero-copy view of rows sel[0..count) of src (sel NULL = rows 0..count-1): a
 * VEC_DICT over the flat vector behind src (nested dictionaries are composed into out's own
 * selection buffer, so a view is never a dictionary of a dictionary); a constant stays a
 * constant (its value is copied). src and sel must outlive out's contents. out needs capacity
 * >= count when a composition is needed. */
int exec_vec_slice(vec *out, const vec *src, const uint32_t *sel, uint32_t count,
                   sqe_error *err);
/* Slices every column of `in` into `out` (same column types) and sets out->count = count.
 * Columns that are views through the same selection share one composed selection. */
int exec_chunk_slice(vec_chunk *out, const vec_chunk *in, const uint32_t *sel, uint32_t count,
                     sqe_error *err);
/* Copies count values into the flat vector dst: for i < count, row (dst_rows ? dst_rows[i] :
 * dst_off + i) of dst receives logical row (src_rows ? src_rows[i] : i) of src (any shape),
 * NULLs included. dst must have the capacity. deep: string bytes that are not inline are copied
 * into dst's heap (else the views are copied and point where src's do). Nested values are always
 * copied into dst's children. On error (out of memory) dst is partially written. */
int exec_vec_copy(vec *dst, const uint32_t *dst_rows, uint32_t dst_off, const vec *src,
                  const uint32_t *src_rows, uint32_t count, bool deep, sqe_error *err);
/* Does the vector (any shape) possibly hold a NULL? False means surely none. */
bool exec_vec_may_have_nulls(const vec *v);
/* Can a value of type a sit in a vector of type b (same physical layout and meaning: varchar
 * lengths may differ, decimal precision/scale and nested types may not)? */
bool exec_types_compatible(sqe_type a, sqe_type b);
/* Sets op->detail (EXPLAIN), truncated to fit. */
void exec_op_set_detail(exec_op *op, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends " <label><expression text>" to op->detail (exprs over the columns of `input`). */
void exec_op_detail_expr(exec_op *op, const char *label, const bexpr *e, const plan *input);

#endif
