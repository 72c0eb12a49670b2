/*
 * expr_int.h (private to exec/expr_*.c): compiled expression nodes and the per-thread
 * evaluation state of the vectorized expression evaluator.
 *
 * A bound expression (plan.h bexpr) is compiled once per query into a tree of xnode: column
 * references become input positions, casts and calls carry their kernels, IN lists get a hash
 * set or the $eq kernels, lambdas know their parameter positions and which outer columns they
 * capture. The tree is immutable and shared by all threads; each thread evaluates it with an
 * exec_expr_state holding one slot per node (scratch vector, selection buffers, cached constant).
 *
 * Evaluation contract (xeval): a node evaluates the selected rows of an input chunk and returns
 * the vector holding its result (*res), read at the same logical rows. When the caller passes a
 * target vector, the node may write its result straight into target at the selected rows,
 * leaving the other rows of target untouched (CASE and COALESCE build their result this way);
 * otherwise *res is an input column, a constant, or the node's own scratch vector.
 */
#ifndef SQE_EXEC_EXPR_INT_H
#define SQE_EXEC_EXPR_INT_H

#include "common/hash.h"
#include "exec/exec_int.h"
#include "exec/ops.h"

typedef enum xkind {
    XK_COLUMN = 1,
    XK_CONST,
    XK_PARAM,
    XK_CALL,
    XK_CAST,
    XK_AND,
    XK_OR,
    XK_NOT,
    XK_IS_NULL,
    XK_IS_NOT_NULL,
    XK_CASE,
    XK_COALESCE,
    XK_IN_SET,
    XK_IN_LIST,
    XK_TRY,
    XK_NULLIF,
    XK_ARRAY,
    XK_ROW,
    XK_FIELD,
    XK_LAMBDA,
} xkind;

/* Hash set of the constant values of a long IN list. */
typedef struct xset {
    bool strings;          /* keys are sqe_str (else int64 of the physical integer value) */
    bool has_null;         /* a NULL in the list: no match gives NULL */
    uint32_t mask;         /* capacity - 1 */
    uint8_t *used;
    int64_t *ints;
    sqe_str *strs;
} xset;

static inline uint64_t xset_hash_str(const sqe_str *s) {
    return hash_bytes(sqe_str_data(s), s->len);
}
static inline uint64_t xset_hash_int(int64_t v) { return hash_u64((uint64_t)v); }

typedef struct xnode xnode;
struct xnode {
    uint8_t kind;          /* xkind */
    bool is_const;         /* same value on every row: evaluated once per state, then cached */
    bool null_prop;        /* CALL/CAST: FUNC_NULL_PROPAGATES */
    sqe_type type;
    uint32_t id;           /* slot index in the state */
    uint32_t n_args;
    xnode **args;
    const bexpr *src;
    union {
        uint32_t col;                  /* COLUMN: input position */
        const vec *constant;           /* CONST: the value; NULL = a NULL of `type` */
        uint32_t param;                /* PARAM: 0-based index into qctx->params */
        struct {
            func_scalar_fn fn;
            const void *bind_data;
            const char *name;
            bool volatile_;
            bool has_lambda;
            bool try_cast;             /* CAST: TRY_CAST */
            bool dense_ok;             /* a comparison that never fails, of columns and
                                          constants of fixed width: may run on every row of
                                          the input when the selection is dense */
        } call;                        /* CALL, CAST, NULLIF (fn = the $eq kernel) */
        bool has_else;                 /* CASE */
        xset *set;                     /* IN_SET */
        func_scalar_fn *eqs;           /* IN_LIST: $eq kernel per list element (args[1..]) */
        uint32_t field;                /* FIELD */
        struct {
            uint32_t parent_n;         /* columns of the enclosing input layout */
            uint32_t n_params;         /* parameters: positions parent_n .. parent_n+n_params */
            uint32_t *captured;        /* enclosing positions the body reads */
            uint32_t n_captured;
        } lambda;
    } u;
};

struct exec_expr {
    xnode *root;
    uint32_t n_nodes;
    exec_query_ctx *qctx;
};

/* Per node scratch of one thread. */
typedef struct xslot {
    vec v;                 /* result scratch (type of the node) */
    vec aux;               /* second scratch (IN_LIST / NULLIF comparisons) */
    bool v_init, aux_init;
    bool const_ready;      /* is_const: v holds the cached VEC_CONST value */
    uint32_t *sels;        /* XSEL_BUFS selection buffers of sel_cap entries each */
    uint32_t sel_cap;
    vec_chunk lchunk;      /* LAMBDA: the chunk the body is evaluated on */
    bool lchunk_init;
    uint32_t *lrows;       /* LAMBDA: index buffer (VEC_CHUNK_SIZE) */
} xslot;

#define XSEL_BUFS 3

struct exec_expr_state {
    const exec_expr *x;
    exec_query_ctx *qctx;
    xslot *slots;
    arena scratch;         /* func_ctx.scratch, reset per top-level evaluation */
    uint32_t try_depth;    /* > 0 inside TRY(...) */
    uint32_t rows;         /* row space of the current input (scratch capacity needed) */
    uint8_t *marks;        /* row marks (OR merges, set differences) */
    uint32_t marks_cap;
    sqe_error *err;        /* where the current evaluation reports */
};

/* expr_eval.c */
int xeval(exec_expr_state *st, const xnode *n, const vec_chunk *in, const uint32_t *sel,
          uint32_t count, vec *target, const vec **res);
/* Splits the selected rows into those where boolean node n is TRUE (tsel, *nt) and the others
 * (FALSE or NULL: fsel, *nf; fsel may be NULL). Order of sel is kept; tsel may equal sel. */
int xselect(exec_expr_state *st, const xnode *n, const vec_chunk *in, const uint32_t *sel,
            uint32_t count, uint32_t *tsel, uint32_t *nt, uint32_t *fsel, uint32_t *nf);
/* Calls a kernel with NULL propagation (when null_prop) into out. */
int xcall_kernel(exec_expr_state *st, const xnode *n, func_scalar_fn fn, const void *bind_data,
                 bool null_prop, bool try_mode, const vec *const *args, uint32_t n_args,
                 const uint32_t *sel, uint32_t count, vec *out, void *lambda_state);
/* The node's scratch vector, reset and with capacity for the row space. */
int xslot_vec(exec_expr_state *st, const xnode *n, vec **out);
int xslot_aux(exec_expr_state *st, const xnode *n, sqe_type type, vec **out);
/* Selection buffer k (< XSEL_BUFS) of the node, >= the row space. */
int xslot_sel(exec_expr_state *st, const xnode *n, uint32_t k, uint32_t **out);
/* Row mark bytes (all zero; the user clears what it set). */
int xstate_marks(exec_expr_state *st, uint8_t **out);
/* Copies result rows into target at the same rows (shallow strings). */
int xcopy_rows(exec_expr_state *st, vec *target, const vec *res, const uint32_t *sel,
               uint32_t count);
/* Marks the selected rows of flat vector v NULL. */
int xset_null_rows(exec_expr_state *st, vec *v, const uint32_t *sel, uint32_t count);
/* Marks the selected rows of flat vector v valid. */
void xset_valid_rows(vec *v, const uint32_t *sel, uint32_t count);

/* Unified boolean read of any-shape vectors. */
typedef struct xbool {
    const uint8_t *data;
    const uint64_t *valid;
    const uint32_t *sel;   /* mode 2 */
    uint8_t mode;          /* 0 identity, 1 constant, 2 through sel, 3 generic */
    const vec *v;
} xbool;
void xbool_init(xbool *b, const vec *v);
static inline uint32_t xbool_idx(const xbool *b, uint32_t row) {
    return b->mode == 0 ? row : b->mode == 1 ? 0 : b->sel[row];
}
/* 0 = FALSE, 1 = TRUE, 2 = NULL */
static inline int xbool_get(const xbool *b, uint32_t row) {
    if (b->mode == 3) {
        uint32_t phys;
        const vec *f = vec_resolve(b->v, row, &phys);
        if (!vec_is_valid_flat(f, phys)) return 2;
        return ((const uint8_t *)f->data)[phys] != 0;
    }
    uint32_t i = xbool_idx(b, row);
    if (b->valid && !((b->valid[i >> 6] >> (i & 63)) & 1)) return 2;
    return b->data[i] != 0;
}
/* Validity of logical row of any vector. */
static inline bool xvalid(const vec *v, uint32_t row) { return !vec_is_null(v, row); }

/* expr_logic.c */
int xeval_and_or(exec_expr_state *st, const xnode *n, const vec_chunk *in, const uint32_t *sel,
                 uint32_t count, vec *target, const vec **res);
int xeval_not(exec_expr_state *st, const xnode *n, const vec_chunk *in, const uint32_t *sel,
              uint32_t count, vec *target, const vec **res);
int xeval_is_null(exec_expr_state *st, const xnode *n, const vec_chunk *in, const uint32_t *sel,
                  uint32_t count, vec *target, const vec **res);
int xeval_case(exec_expr_state *st, const xnode *n, const vec_chunk *in, const uint32_t *sel,
               uint32_t count, vec *target, const vec **res);
int xeval_coalesce(exec_expr_state *st, const xnode *n, const vec_chunk *in,
                   const uint32_t *sel, uint32_t count, vec *target, const vec **res);
int xeval_in_set(exec_expr_state *st, const xnode *n, const vec_chunk *in, const uint32_t *sel,
                 uint32_t count, vec *target, const vec **res);
int xeval_in_list(exec_expr_state *st, const xnode *n, const vec_chunk *in, const uint32_t *sel,
                  uint32_t count, vec *target, const vec **res);
int xeval_nullif(exec_expr_state *st, const xnode *n, const vec_chunk *in, const uint32_t *sel,
                 uint32_t count, vec *target, const vec **res);
int xeval_try(exec_expr_state *st, const xnode *n, const vec_chunk *in, const uint32_t *sel,
              uint32_t count, vec *target, const vec **res);
int xselect_and(exec_expr_state *st, const xnode *n, const vec_chunk *in, const uint32_t *sel,
                uint32_t count, uint32_t *tsel, uint32_t *nt, uint32_t *fsel, uint32_t *nf);
int xselect_or(exec_expr_state *st, const xnode *n, const vec_chunk *in, const uint32_t *sel,
               uint32_t count, uint32_t *tsel, uint32_t *nt, uint32_t *fsel, uint32_t *nf);
/* fsel = rows of sel (count) not in tsel (nt rows, a subsequence of sel). */
int xsel_difference(exec_expr_state *st, const uint32_t *sel, uint32_t count,
                    const uint32_t *tsel, uint32_t nt, uint32_t *fsel, uint32_t *nf);

/* expr_nested.c */
int xeval_array(exec_expr_state *st, const xnode *n, const vec_chunk *in, const uint32_t *sel,
                uint32_t count, vec *target, const vec **res);
int xeval_row(exec_expr_state *st, const xnode *n, const vec_chunk *in, const uint32_t *sel,
              uint32_t count, vec *target, const vec **res);
int xeval_field(exec_expr_state *st, const xnode *n, const vec_chunk *in, const uint32_t *sel,
                uint32_t count, vec *target, const vec **res);
/* Lambda support: the func_ctx.lambda_eval callback and its state. */
typedef struct xlambda_call {
    exec_expr_state *st;
    const xnode *call;
    const vec_chunk *in;
} xlambda_call;
int xlambda_eval(void *lambda_state, uint32_t arg_idx, vec *const *lambda_args,
                 uint32_t n_lambda_args, const uint32_t *outer_rows, uint32_t count, vec *out);

#endif
