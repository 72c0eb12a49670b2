/*
 * signature.h (private to func/): parsed function signatures and the binder that matches them
 * against concrete argument types (see the signature language in func.h).
 *
 * A signature string is parsed once (at registry init) into a tree of sig_type nodes; binding
 * a call walks that tree against the actual argument types, binds the type variables to the
 * common super type of everything they meet, binds lambdas through the caller's
 * func_lambda_binder, and reports the types each argument must be cast to plus a coercion cost
 * that the registry uses to pick the best overload.
 */
#ifndef SQE_FUNC_SIGNATURE_H
#define SQE_FUNC_SIGNATURE_H

#include <stdbool.h>
#include <stdint.h>

#include "common/arena.h"
#include "common/err.h"
#include "func/func.h"
#include "types/types.h"

typedef enum sig_kind {
    SIG_CONCRETE = 0, /* one concrete type ("bigint", "decimal(38,0)") */
    SIG_FAMILY,       /* a parametric type with any parameters: family = type id */
    SIG_VAR,          /* a type variable (T, K, V, ...) */
    SIG_ANY,          /* anything, not bound */
    SIG_ARRAY,        /* array(child 0) */
    SIG_MAP,          /* map(child 0, child 1) */
    SIG_ROW,          /* row(children...) with field types given (field names ignored) */
    SIG_FUNCTION,     /* lambda: children 0..n-2 parameters, child n-1 the body type */
} sig_kind;

typedef struct sig_type sig_type;
struct sig_type {
    uint8_t kind;       /* sig_kind */
    uint8_t var;        /* SIG_VAR: index into func_sig.var_names */
    uint8_t n_children;
    sqe_type type;      /* SIG_CONCRETE: the type; SIG_FAMILY: type.id is the family */
    sig_type *children;
};

#define SIG_MAX_VARS 8
#define SIG_MAX_ARGS 64 /* declared (not actual) arguments of one signature */

typedef struct func_sig {
    uint32_t n_args;     /* declared arguments, the variadic one included */
    bool variadic;       /* the last declared argument repeats zero or more times */
    bool ret_dynamic;    /* ret is "?": the def's ret_fn computes it */
    bool has_lambda;     /* some argument is a function(...) */
    uint8_t n_vars;
    sig_type *args;      /* n_args */
    sig_type ret;
    char var_names[SIG_MAX_VARS][8];
} func_sig;

/* Parses the args/ret strings of a def into *out; memory comes from a (process lifetime in the
 * registry). Returns SQE_OK or GENERIC_INTERNAL_ERROR naming the bad text (a def bug). */
int sig_parse(arena *a, const char *args, const char *ret, func_sig *out, sqe_error *err);

/* Outcome of sig_bind. */
typedef enum sig_bind_result {
    SIG_MATCH = 0,   /* bound: params, ret and cost are set */
    SIG_NO_MATCH,    /* the signature does not apply to these argument types */
    SIG_ERROR,       /* a hard error (a lambda body failed to bind): *err is set */
} sig_bind_result;

/* Binds sig to the actual argument types. params (n_args entries) receives the type each
 * argument must be cast to (for a lambda: its body type); *ret the result type (left
 * TYPE_UNKNOWN when the signature says "?": the caller runs the def's ret_fn on params);
 * *cost the coercion cost (0 = exact match).
 * `lambdas` may be NULL: then signatures with lambdas do not match, unless `loose_lambdas` is
 * set (used when comparing two signatures for specificity), where function arguments match
 * anything. `args` entries at lambda positions are ignored. */
sig_bind_result sig_bind(const func_sig *sig, const sqe_type *args, uint32_t n_args,
                         const func_lambda_binder *lambdas, bool loose_lambdas,
                         sqe_type *params, sqe_type *ret, uint32_t *cost, sqe_error *err);

/* A measure of how generic a signature is (type variables, families, any): lower is more
 * concrete. Used as a late tie-breaker between equally good overloads. */
uint32_t sig_genericity(const func_sig *sig);

#endif
