/*
 * func.h: the one function registry (scalar, aggregate, window) and the kernel contracts.
 *
 * Functions are declared in tables of func_scalar_def / func_agg_def (one table per family file,
 * e.g. func/scalar_math.c) collected by func/registry.c. The binder resolves a call by name and
 * argument types (func_resolve_*), inserting implicit casts, and gets back the kernel and its
 * concrete return type once per query; kernels then run over whole vectors.
 *
 * Signature language (args and ret strings):
 *   concrete types in SQL spelling: "bigint", "double", "varchar", "date", "boolean", ...
 *   families: "decimal" (any precision/scale), "varchar" (any length), "char", "timestamp" (any
 *     precision), "timestamp with time zone", "time", "array(T)", "map(K,V)", "row"
 *   type variables: "T", "K", "V", "E" (bound by the first argument that matches; later uses
 *     must be coercible to the bound type), "any" (matches anything, not bound)
 *   variadic: a trailing "..." repeats the last argument type zero or more times, e.g.
 *     "varchar,varchar..." for concat.
 *   lambdas: "function(T,U)" is a lambda taking T and returning U (the last type is the
 *     result), e.g. transform is "array(T),function(T,U)" -> "array(U)". The resolver binds type
 *     variables from the other arguments left to right, then asks the binder (func_lambda_binder)
 *     for the body type of each lambda given its parameter types, and binds the result variable.
 *   ret: a type, a type variable, or "?" when ret_fn computes it from the argument types.
 */
#ifndef SQE_FUNC_FUNC_H
#define SQE_FUNC_FUNC_H

#include <stdbool.h>
#include <stdint.h>

#include "common/arena.h"
#include "common/clock.h"
#include "common/err.h"
#include "vec/vec.h"

/* Per-call context handed to every kernel. */
typedef struct func_ctx {
    mem_tracker *tracker;       /* query memory */
    arena *scratch;             /* scratch memory, reset after each batch */
    const void *bind_data;      /* what the def's bind_fn produced, or NULL */
    int32_t session_zone;       /* tz.h zone key of the session time zone */
    int64_t query_start_micros; /* UTC micros when the query started (current_timestamp) */
    uint64_t random_seed;       /* per-query seed for rand() */
    bool try_mode;              /* inside TRY()/TRY_CAST: errors become NULL instead */
    sqe_error *err;             /* where kernels report errors */
    volatile int *cancel;       /* the query's cancel flag, or NULL (func_check_cancel) */
    uint64_t deadline_ns;       /* CLOCK_MONOTONIC deadline of the query, 0 = none */
    uint32_t time_limit_ms;     /* the limit it came from, for the message */
    /* Lambda support (FUNC_LAMBDA functions such as transform, filter, reduce): evaluates the
     * lambda that is argument `arg_idx` of the call on `count` rows. lambda_args[i] holds the
     * values of the lambda's i-th parameter (flat vectors of `count` rows, e.g. the array
     * elements); outer_rows[k] is the row of the current batch that element k belongs to (so
     * captured columns can be gathered). `out` (flat, of the lambda body's type, capacity >=
     * count) receives the results. The kernel receives a NULL vector pointer at lambda argument
     * positions. Set by the expression evaluator; NULL when the call has no lambdas. */
    int (*lambda_eval)(void *lambda_state, uint32_t arg_idx, vec *const *lambda_args,
                       uint32_t n_lambda_args, const uint32_t *outer_rows, uint32_t count,
                       vec *out);
    void *lambda_state;
} func_ctx;

/* A scalar kernel computes out[row] for each selected row: rows sel[0..count-1] when sel is
 * non-NULL, else rows 0..count-1. Arguments may be of any shape (read them through vec_view,
 * vec/vec.h). `out` is flat, of the resolved return type, with capacity for every selected row
 * index. For
 * FUNC_NULL_PROPAGATES functions the evaluator calls the kernel only on rows where every argument
 * is non-NULL and marks the others NULL itself. On error: return the code after setting ctx->err
 * (mention the offending value); in ctx->try_mode set the row NULL and go on instead (use
 * func_row_error, which does the right thing). */
typedef int (*func_scalar_fn)(func_ctx *ctx, const vec *const *args, uint32_t n_args,
                              const uint32_t *sel, uint32_t count, vec *out);

/* Computes the return type from concrete argument types when a def's ret is "?".
 * Returns SQE_OK or an error (e.g. decimal precision overflow). */
typedef int (*func_return_fn)(const sqe_type *args, uint32_t n_args, sqe_type *ret,
                              sqe_error *err);

/* Optional bind step: given constant arguments (NULL entries for non-constant ones), prepare
 * bind data (e.g. a compiled regex) in arena a. */
typedef int (*func_bind_fn)(arena *a, const sqe_type *args, const vec *const *const_args,
                            uint32_t n_args, sqe_type ret, const void **bind_data,
                            sqe_error *err);

enum {
    FUNC_NULL_PROPAGATES = 1u << 0, /* NULL in any argument gives NULL (most functions) */
    FUNC_VOLATILE = 1u << 1,        /* not deterministic (rand, uuid): never constant-folded */
    FUNC_SESSION = 1u << 2,         /* depends on session state (current_*): fold per query */
    FUNC_LAMBDA = 1u << 3,          /* takes lambda arguments (transform, filter, reduce, ...) */
};

typedef struct func_scalar_def {
    const char *name;       /* lower case */
    const char *args;       /* signature, see above; "" for no arguments */
    const char *ret;
    func_return_fn ret_fn;  /* when ret is "?" */
    func_bind_fn bind_fn;   /* optional */
    func_scalar_fn fn;
    uint32_t flags;
    const char *description; /* one line for SHOW FUNCTIONS */
} func_scalar_def;

/* Aggregates. State is a fixed-size block per group (state_size bytes, 16-byte aligned) that
 * may point to heap memory it owns (then destroy frees it). */
typedef struct func_agg_def {
    const char *name;
    const char *args;
    const char *ret;
    func_return_fn ret_fn;
    func_bind_fn bind_fn;
    uint32_t state_size;
    /* Sets up n states. */
    void (*init)(const void *bind_data, uint8_t *state);
    /* Folds selected input rows into states: row r (from sel as for scalar kernels) goes into
     * states[r]. Rows with NULL arguments are skipped by the kernel unless the aggregate counts
     * them (count(*)). */
    int (*update)(func_ctx *ctx, const vec *const *args, uint32_t n_args, const uint32_t *sel,
                  uint32_t count, uint8_t **states);
    /* Merges src into dst (partial aggregation, parallel merge). */
    int (*combine)(func_ctx *ctx, const uint8_t *src, uint8_t *dst);
    /* Writes the result of state into out[row]. */
    int (*finalize)(func_ctx *ctx, const uint8_t *state, vec *out, uint32_t row);
    /* Frees heap memory a state owns; NULL when states own none. */
    void (*destroy)(uint8_t *state);
    uint32_t flags;
    const char *description;
} func_agg_def;

/* Window-only functions (row_number, rank, lag, ...) are evaluated by the window operator; the
 * registry lists them so the binder can type-check them. */
typedef enum func_window_kind {
    FUNC_WIN_ROW_NUMBER = 1,
    FUNC_WIN_RANK,
    FUNC_WIN_DENSE_RANK,
    FUNC_WIN_PERCENT_RANK,
    FUNC_WIN_CUME_DIST,
    FUNC_WIN_NTILE,
    FUNC_WIN_LAG,
    FUNC_WIN_LEAD,
    FUNC_WIN_FIRST_VALUE,
    FUNC_WIN_LAST_VALUE,
    FUNC_WIN_NTH_VALUE,
} func_window_kind;

typedef struct func_window_def {
    const char *name;
    const char *args;
    const char *ret;
    func_window_kind kind;
    const char *description;
} func_window_def;

/* Reports an error on one row: in try_mode marks out[row] NULL and returns SQE_OK; otherwise
 * sets ctx->err and returns code. */
int func_row_error(func_ctx *ctx, vec *out, uint32_t row, int code, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* USER_CANCELED (set in ctx->err) when the query was canceled, else SQE_OK. Kernels whose work
 * per row is unbounded by the batch size (padding, replacing into large strings) call it per row
 * so a cancel or timeout stops them between rows, as the driver does between batches. */
static inline int func_check_cancel(func_ctx *ctx) {
    if (ctx->cancel && __atomic_load_n(ctx->cancel, __ATOMIC_RELAXED))
        return err_set(ctx->err, SQE_ERR_USER_CANCELED, "Query was canceled");
    if (clock_deadline_passed(ctx->deadline_ns))
        return err_set(ctx->err, SQE_ERR_EXCEEDED_TIME_LIMIT,
                       "Query exceeded the maximum execution time limit of %u ms",
                       ctx->time_limit_ms);
    return SQE_OK;
}

/* Iterates the selected rows: FUNC_FOR_ROWS(sel, count, row) { ... } */
#define FUNC_FOR_ROWS(sel, count, row)                                                             \
    for (uint32_t row##_i_ = 0, row = 0;                                                           \
         row##_i_ < (count) && ((row = (sel) ? (sel)[row##_i_] : row##_i_), 1); row##_i_++)

/* --- Registry ---------------------------------------------------------------------------- */

/* A parsed signature; the resolver fills these once at startup. */
typedef struct func_resolved {
    const func_scalar_def *scalar; /* exactly one of scalar/agg/window is set */
    const func_agg_def *agg;
    const func_window_def *window;
    sqe_type ret;
    sqe_type *arg_types; /* n_args types the arguments must be cast to (arena) */
    uint32_t n_args;
} func_resolved;

/* How the resolver learns a lambda argument's body type: bind() binds the lambda that is
 * argument arg_idx with the given parameter types and reports its body type. */
typedef struct func_lambda_binder {
    int (*bind)(void *ud, uint32_t arg_idx, const sqe_type *param_types, uint32_t n_params,
                sqe_type *body_type, sqe_error *err);
    void *ud;
} func_lambda_binder;

/* Initializes the registry (idempotent, thread-safe). */
int func_registry_init(sqe_error *err);

/* Resolves name(args) among scalar functions, then aggregates, then window functions (as the
 * binder asks). Returns SQE_OK, FUNCTION_NOT_FOUND (unknown name), or a TYPE_MISMATCH /
 * AMBIGUOUS_FUNCTION_CALL error listing the candidate signatures. Memory from a. */
int func_resolve_scalar(arena *a, const char *name, const sqe_type *args, uint32_t n_args,
                        const func_lambda_binder *lambdas, func_resolved *out, sqe_error *err);
int func_resolve_agg(arena *a, const char *name, const sqe_type *args, uint32_t n_args,
                     func_resolved *out, sqe_error *err);
int func_resolve_window(arena *a, const char *name, const sqe_type *args, uint32_t n_args,
                        func_resolved *out, sqe_error *err);
bool func_is_aggregate(const char *name);
bool func_is_window(const char *name);
bool func_exists(const char *name);
/* Whether text is one JSON value json_parse accepts (the binder checks JSON '...' literals). */
bool func_json_text_valid(const char *text, size_t len);

/* Function families. Each family file (func/scalar_<family>.c, func/agg_<family>.c,
 * func/window_list.c) defines one getter returning its table; registry.c declares them weak
 * and collects those that are linked in. */
#define FUNC_SCALAR_FAMILIES(X)                                                                    \
    X(operators) X(math) X(string) X(regexp) X(datetime) X(json) X(array) X(map)             \
    X(conditional) X(misc)
#define FUNC_AGG_FAMILIES(X) X(basic) X(stats) X(approx) X(collect)
#define X(family) const func_scalar_def *func_scalar_family_##family(uint32_t *count);
FUNC_SCALAR_FAMILIES(X)
#undef X
#define X(family) const func_agg_def *func_agg_family_##family(uint32_t *count);
FUNC_AGG_FAMILIES(X)
#undef X
const func_window_def *func_window_family(uint32_t *count);

/* Operators are functions with reserved names the binder maps syntax to:
 *   $add $subtract $multiply $divide $modulus $negate   (arithmetic, incl. date/time +- interval)
 *   $eq $ne $lt $le $gt $ge $is_distinct_from           (comparisons; $is_distinct_from is not
 *                                                         null-propagating)
 *   like (2 or 3 arguments; pattern compiled at bind when constant), concat for ||.
 * AND, OR, NOT, IS NULL, CASE, COALESCE, NULLIF, IF, IN, BETWEEN, TRY and CAST are special forms
 * of the expression evaluator, not registry functions. */

/* Casts: returns the kernel that casts `from` to `to` (one argument; out has type `to`), or
 * NULL when no such cast exists. */
func_scalar_fn func_cast_lookup(sqe_type from, sqe_type to);

/* Every registered function, for SHOW FUNCTIONS: calls cb for each (name, args, ret, kind
 * "scalar"|"aggregate"|"window", description). */
void func_registry_list(void (*cb)(void *ud, const char *name, const char *args, const char *ret,
                                   const char *kind, const char *description),
                        void *ud);

#endif
