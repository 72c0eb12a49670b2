/*
 * scan_task_expr.h: bound expressions (plan/plan.h bexpr) that cross to a worker inside a scan
 * task (the residual predicate), serialized by function name and types, never by pointer, and
 * resolved again through the function registry when decoded.
 *
 * What crosses: column references (as task column indexes: BEXPR_COLUMN u.col =
 * scan_task_col_id(i)), constants of every non-nested type (NULL or a value), calls of scalar
 * functions without lambdas (name, argument types, result type; bind data is rebuilt with the
 * function's bind step over the constant arguments), CAST / TRY_CAST (from and to types; the
 * kernel is looked up again), AND, OR, NOT, IS [NOT] NULL, CASE, COALESCE, IN lists, TRY,
 * NULLIF, ARRAY[...], ROW(...) and field access. Parameters, lambdas, subqueries and
 * GROUPING() do not (NOT_SUPPORTED at encode).
 *
 * Node encoding: u8 kind, type (scan_wire.h), u32 n_args, then the kind's payload, then the
 * arguments. Decoding checks the shape (argument counts, boolean operands, column types) so
 * the executor's compiler never sees a malformed tree, and fails on a function the registry
 * does not resolve to exactly the encoded argument and result types.
 */
#ifndef SQE_SCAN_SCAN_TASK_EXPR_H
#define SQE_SCAN_SCAN_TASK_EXPR_H

#include <stddef.h>
#include <stdint.h>

#include "common/arena.h"
#include "common/err.h"
#include "common/strbuf.h"
#include "plan/plan.h"

/* Appends the encoding of e (column references: ids 1..n_cols) to w. Errors: NOT_SUPPORTED
 * naming the expression kind that cannot cross, INVALID_ARGUMENTS for a column id outside
 * 1..n_cols, OUT_OF_MEMORY (w->failed). */
int scan_expr_encode(const bexpr *e, uint32_t n_cols, strbuf *w, sqe_error *err);

/* Decodes one expression that must fill p[0..len) exactly, over task columns of types
 * col_types[0..n_cols); base is p's offset in the whole task (for messages). The tree and its
 * constants (arena-backed vectors) live in a. Errors: INVALID_ARGUMENTS "Invalid scan task:
 * ... at offset N", NOT_SUPPORTED / FUNCTION_NOT_FOUND / TYPE_MISMATCH for calls and casts
 * the registry does not have, OUT_OF_MEMORY. */
int scan_expr_decode(arena *a, const uint8_t *p, size_t len, size_t base,
                     const sqe_type *col_types, uint32_t n_cols, bexpr **out, sqe_error *err);

#endif
