/*
 * plan.h: bound expressions and the logical plan.
 *
 * The binder (bind/) turns the AST into this plan; the optimizer (plan/optimize*.c) rewrites it
 * in place; the physical planner (exec/) turns it into pipelines.
 *
 * Columns are identified by query-unique ids (plan_col_id), not positions: every plan node lists
 * the columns it produces (`out`), and expressions refer to columns by id. Rewrites can move
 * filters and projections around without renumbering; only the physical planner maps ids to
 * positions in each operator's input chunk.
 *
 * Lifetime: everything lives in the query arena (plan_ctx.arena). Constant values are 1-row
 * constant vectors registered with plan_ctx so they are destroyed with the query.
 */
#ifndef SQE_PLAN_PLAN_H
#define SQE_PLAN_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "catalog/catalog.h"
#include "common/arena.h"
#include "common/strbuf.h"
#include "func/func.h"
#include "vec/vec.h"

typedef uint32_t plan_col_id;

/* --------------------------------------------------------------------------------------------
 * Bound expressions
 * ------------------------------------------------------------------------------------------ */

typedef enum bexpr_kind {
    BEXPR_COLUMN = 1,  /* u.col */
    BEXPR_CONST,       /* u.constant: 1-row constant vector of `type` */
    BEXPR_PARAM,       /* u.param: prepared statement parameter (1-based) */
    BEXPR_CALL,        /* u.call: scalar function over args */
    BEXPR_CAST,        /* u.cast: args[0] cast to type */
    BEXPR_AND,         /* n-ary, three-valued */
    BEXPR_OR,          /* n-ary, three-valued */
    BEXPR_NOT,
    BEXPR_IS_NULL,     /* args[0] IS NULL */
    BEXPR_IS_NOT_NULL,
    BEXPR_CASE,        /* args: cond1, val1, cond2, val2, ..., [else]; u.case_has_else */
    BEXPR_COALESCE,
    BEXPR_IN_LIST,     /* args[0] IN (args[1..]) with SQL NULL semantics */
    BEXPR_TRY,         /* args[0] evaluated with errors turned into NULL */
    BEXPR_IF,          /* IF(cond, a[, b]) as CASE: kept as BEXPR_CASE by the binder */
    BEXPR_NULLIF,      /* args[0], args[1] (compared with u.call eq kernel) */
    BEXPR_ARRAY,       /* ARRAY[args...] */
    BEXPR_ROW,         /* ROW(args...) */
    BEXPR_FIELD,       /* args[0].field u.field */
    BEXPR_LAMBDA,      /* u.lambda: parameters (column ids) and args[0] = body */
    BEXPR_SUBQUERY,    /* u.subquery: only between binding and decorrelation */
    BEXPR_GROUPING,    /* GROUPING(a, ...): u.grouping, resolved by the aggregate planner */
} bexpr_kind;

typedef enum subquery_kind {
    SUBQ_SCALAR = 1, /* (SELECT x ...) */
    SUBQ_EXISTS,     /* EXISTS (...) */
    SUBQ_IN,         /* args[0] IN (SELECT x ...) */
    SUBQ_ANY,        /* args[0] op ANY (SELECT x ...) */
    SUBQ_ALL,        /* args[0] op ALL (SELECT x ...) */
} subquery_kind;

typedef struct plan plan;
typedef struct bexpr bexpr;

/* A data source a table function (read_csv, read_parquet, Iceberg scans) hands to the
 * executor: it splits its data into morsels that threads read in parallel. All callbacks are
 * thread-safe for distinct readers. The source object lives in the query arena; `state` is the
 * function's own data, released by destroy (may be NULL) with the query. */
typedef struct plan_source {
    void *state;
    uint32_t n_columns;        /* the source's schema */
    const char *const *names;
    const sqe_type *types;
    double est_rows;           /* estimate for the optimizer, or -1 */
    /* Optional: the filter pushed into this scan (u.tfunc.filter), called once before
     * plan_morsels. col_ids[i] is the column id the plan gives source column columns[i]. The
     * source may use the filter to skip data that cannot match; the executor still applies
     * it to every row read, so a source may ignore any part of it. */
    int (*set_filter)(void *state, const struct bexpr *filter, const plan_col_id *col_ids,
                      const uint32_t *columns, uint32_t n, sqe_error *err);
    /* Optional: estimated distinct values of a source column over the whole source (for join
     * ordering), or <= 0 when unknown. May be called many times: cache. */
    double (*column_ndv)(void *state, uint32_t column);
    /* Optional: a fresh state over the same data, independent of this one (its own filter and
     * morsels), for plans that read the source twice (semijoin.c). The new state is destroyed
     * with `destroy`. */
    int (*clone)(void *state, void **out, sqe_error *err);
    /* Optional: after plan_morsels, a short note for EXPLAIN ANALYZE on what was planned
     * ("row groups: 6 of 10"), written into buf. */
    void (*describe)(void *state, char *buf, size_t len);
    /* Prepares the list of morsels (called once before execution). */
    int (*plan_morsels)(void *state, uint32_t n_threads, uint32_t *n_morsels, sqe_error *err);
    /* Opens a reader for morsel idx producing the given source columns, in that order. */
    int (*open)(void *state, uint32_t morsel, const uint32_t *columns, uint32_t n_columns,
                void **reader, sqe_error *err);
    /* Fills out (created with the projected column types) with up to out->capacity rows;
     * out->count == 0 at the end. */
    int (*next)(void *reader, vec_chunk *out, sqe_error *err);
    void (*close)(void *reader);
    void (*destroy)(void *state);
} plan_source;

struct bexpr {
    uint8_t kind;      /* bexpr_kind */
    sqe_type type;
    uint32_t n_args;
    bexpr **args;
    int line, col;     /* source position for errors */
    union {
        plan_col_id col;
        vec *constant;
        uint32_t param;
        struct {
            const func_scalar_def *def;
            const void *bind_data;
            const char *name; /* for EXPLAIN */
        } call;
        struct {
            func_scalar_fn fn;
            bool try_cast;
        } cast;
        bool case_has_else;
        uint32_t field;
        struct {
            plan_col_id *params;
            uint32_t n_params;
        } lambda;
        struct {
            uint8_t kind;        /* subquery_kind */
            uint8_t cmp;         /* ANY/ALL: the comparison (sql_op) */
            plan *query;         /* produces 1 column (EXISTS: any) */
            bool correlated;     /* refers to columns of an enclosing query */
        } subquery;
        struct {
            uint32_t n;          /* arguments are the grouping expressions (args) */
        } grouping;
    } u;
};

/* --------------------------------------------------------------------------------------------
 * Plan nodes
 * ------------------------------------------------------------------------------------------ */

typedef enum plan_kind {
    PLAN_SCAN = 1,   /* u.scan: a catalog table */
    PLAN_VALUES,     /* u.values: literal rows (may contain non-constant expressions) */
    PLAN_FILTER,     /* u.filter */
    PLAN_PROJECT,    /* u.project: out[i] = exprs[i] */
    PLAN_AGGREGATE,  /* u.agg */
    PLAN_JOIN,       /* u.join */
    PLAN_SORT,       /* u.sort */
    PLAN_LIMIT,      /* u.limit */
    PLAN_TOPN,       /* u.sort + u.limit */
    PLAN_WINDOW,     /* u.window */
    PLAN_SETOP,      /* u.setop */
    PLAN_UNNEST,     /* u.unnest */
    PLAN_TABLE_FUNC, /* u.tfunc: read_csv and friends */
    PLAN_EMPTY,      /* no rows, given columns */
    PLAN_DISTINCT,   /* all output columns distinct (out = child's out) */
    PLAN_ENFORCE_SINGLE, /* scalar subquery: at most one row, error otherwise; 0 rows -> NULLs */
} plan_kind;

typedef struct plan_col {
    plan_col_id id;
    sqe_type type;
    const char *name; /* display name (may be NULL) */
} plan_col;

typedef struct plan_sort_key {
    bexpr *expr;
    bool desc;
    bool nulls_first;
} plan_sort_key;

typedef struct plan_agg {
    const func_agg_def *def;
    const void *bind_data;
    bexpr **args;
    uint32_t n_args;
    bool distinct;
    bexpr *filter;           /* FILTER (WHERE ...) or NULL */
    plan_sort_key *order;    /* array_agg(x ORDER BY ...) */
    uint32_t n_order;
    plan_col_id out;         /* the column this aggregate produces */
    sqe_type type;
    const char *name;
} plan_agg;

typedef enum plan_join_type {
    JOIN_INNER = 1,
    JOIN_LEFT,
    JOIN_RIGHT,
    JOIN_FULL,
    JOIN_SEMI,   /* left rows with a match; out = left columns */
    JOIN_ANTI,   /* left rows without a match; out = left columns */
    JOIN_MARK,   /* left rows + a boolean mark column (IN/EXISTS in expressions, NULL-aware) */
    JOIN_SINGLE, /* left join that fails if a left row matches more than one right row */
    JOIN_CROSS,
    /* Produced only by the optimizer's last step (build_side.c) from SEMI/ANTI with keys, to
     * build the hash table on the smaller input: right rows with / without a match in the left
     * input; out = right columns. */
    JOIN_RIGHT_SEMI,
    JOIN_RIGHT_ANTI,
} plan_join_type;

typedef enum plan_window_frame_unit { FRAME_ROWS = 1, FRAME_RANGE, FRAME_GROUPS } plan_window_frame_unit;
typedef enum plan_window_bound {
    BOUND_UNBOUNDED_PRECEDING = 1,
    BOUND_PRECEDING,
    BOUND_CURRENT_ROW,
    BOUND_FOLLOWING,
    BOUND_UNBOUNDED_FOLLOWING,
} plan_window_bound;

typedef struct plan_window_func {
    const func_window_def *win;  /* ranking/value function, or NULL for an aggregate */
    const func_agg_def *agg;     /* aggregate over the frame, or NULL */
    const void *bind_data;
    bexpr **args;
    uint32_t n_args;
    bool distinct;
    bool ignore_nulls;
    bexpr *filter;
    /* the window */
    bexpr **partition;
    uint32_t n_partition;
    plan_sort_key *order;
    uint32_t n_order;
    uint8_t frame_unit;          /* plan_window_frame_unit */
    uint8_t start_bound, end_bound; /* plan_window_bound */
    bexpr *start_offset, *end_offset;
    plan_col_id out;
    sqe_type type;
    const char *name;
} plan_window_func;

typedef enum plan_setop_kind { SETOP_UNION = 1, SETOP_INTERSECT, SETOP_EXCEPT } plan_setop_kind;

struct plan {
    uint8_t kind;            /* plan_kind */
    plan **children;
    uint32_t n_children;
    plan_col *out;           /* output columns */
    uint32_t n_out;
    double est_rows;         /* cardinality estimate (optimizer) */
    uint32_t est_epoch;      /* est_rows is current when this equals the estimate epoch */
    union {
        struct {
            cat_table *table;     /* referenced for the query's lifetime */
            uint32_t *columns;    /* table column index of each out column */
            bexpr *filter;        /* pushed-down filter (may be NULL) */
        } scan;
        struct {
            bexpr **cells;        /* n_rows * n_out, row-major */
            uint32_t n_rows;
        } values;
        struct {
            bexpr *cond;
        } filter;
        struct {
            bexpr **exprs;        /* n_out */
        } project;
        struct {
            bexpr **groups;       /* grouping expressions; out[0..n_groups) are their columns */
            uint32_t n_groups;
            uint64_t *sets;       /* grouping sets as bitmasks over groups; NULL = one set (all) */
            uint32_t n_sets;
            plan_agg *aggs;       /* out[n_groups + i] is aggs[i] */
            uint32_t n_aggs;
            plan_col_id grouping_id; /* when n_sets > 0: a bigint column with the set's mask of
                                        absent groups (0 = not produced) */
        } agg;
        struct {
            uint8_t type;         /* plan_join_type */
            bexpr **left_keys;    /* equi-join keys: left_keys[i] = right_keys[i] */
            bexpr **right_keys;
            uint32_t n_keys;
            bool *null_safe;      /* per key: IS NOT DISTINCT FROM (NULLs match) */
            bexpr *residual;      /* other conditions, evaluated on matching pairs (may be NULL) */
            plan_col_id mark;     /* JOIN_MARK: the boolean column appended to the left columns */
            /* JOIN_MARK for IN / ANY / ALL (three-valued): the mark is TRUE when a right row
             * passes the correlation (keys and residual TRUE) and the comparison is TRUE; else
             * NULL when for some such row the comparison is NULL; else FALSE. The binder puts
             * the comparison in mark_cond, never pushed down; key extraction turns its
             * equalities into the LAST n_mark_keys keys (NULL there means unknown, in the other
             * keys no match) and folds the rest into the residual, which is then evaluated as
             * a value: COALESCE(correlation, FALSE) AND comparison. */
            bool mark_null_aware;
            bexpr *mark_cond;     /* before key extraction: the comparison (may be NULL) */
            uint32_t n_mark_keys;
        } join;
        struct {
            plan_sort_key *keys;
            uint32_t n_keys;
            int64_t limit;        /* TOPN */
            int64_t offset;       /* TOPN */
        } sort;
        struct {
            int64_t limit;        /* -1 = none */
            int64_t offset;
        } limit;
        struct {
            plan_window_func *funcs; /* out = child's columns + one per function */
            uint32_t n_funcs;
        } window;
        struct {
            uint8_t op;           /* plan_setop_kind */
            bool all;
        } setop;
        struct {
            bexpr **arrays;       /* arrays/maps to unnest, evaluated on the child's rows */
            uint32_t n_arrays;
            bool ordinality;
            bool outer;           /* keep rows whose arrays are empty (LEFT JOIN UNNEST ... ON true) */
            uint32_t n_child_out; /* out = child's columns (first n_child_out) + unnested */
        } unnest;
        struct {
            const char *name;          /* "read_csv", for EXPLAIN */
            const plan_source *source; /* the data source (see plan_source) */
            uint32_t *columns;         /* source column index of each out column */
            bexpr *filter;             /* pushed-down filter the source may use to skip data;
                                          the executor still applies it (may be NULL) */
        } tfunc;
    } u;
};

/* --------------------------------------------------------------------------------------------
 * Construction helpers (all memory from ctx->arena)
 * ------------------------------------------------------------------------------------------ */

/* Evaluates a constant expression (bexpr_is_const) once into a BEXPR_CONST in pctx, or returns
 * its error (1/0). The engine passes the executor's (exec_fold_const), so folding can never
 * disagree with execution while plan/ and bind/ need not include the executor. */
typedef struct plan_ctx plan_ctx;
typedef int (*plan_fold_const_fn)(plan_ctx *pctx, const bexpr *e, int32_t session_zone,
                                  int64_t query_start_micros, bexpr **out, sqe_error *err);

struct plan_ctx {
    arena *arena;
    plan_fold_const_fn fold_const; /* NULL: constants are not folded */
    mem_tracker *tracker;
    plan_col_id next_col;     /* next free column id */
    vec **constants;          /* constant vectors to destroy with the query */
    uint32_t n_constants, cap_constants;
    cat_table **tables;       /* table references to release with the query */
    uint32_t n_tables, cap_tables;
    plan_source **sources;    /* table-function sources to destroy with the query */
    uint32_t n_sources, cap_sources;
    int failed;               /* sticky out-of-memory */
    volatile int *cancel;     /* non-zero cancels planning (the query's flag); may be NULL */
    uint64_t deadline_ns;     /* CLOCK_MONOTONIC ns past which planning fails EXCEEDED_TIME_LIMIT
                                 (the query's time limit); 0 = none */
    uint32_t time_limit_ms;   /* for the message */
};

/* fold_const may be NULL (see plan_fold_const_fn). */
void plan_ctx_init(plan_ctx *ctx, arena *a, mem_tracker *tracker, plan_fold_const_fn fold_const);
/* USER_CANCELED when ctx->cancel is set, EXCEEDED_TIME_LIMIT past ctx->deadline_ns, else SQE_OK: the optimizer's passes call it between
 * passes and per node or join step, so a cancel or timeout stops planning of any size. */
int plan_check_cancel(const plan_ctx *ctx, sqe_error *err);
/* Releases constants and table references (the arena is the caller's). */
void plan_ctx_destroy(plan_ctx *ctx);
int plan_ctx_add_table(plan_ctx *ctx, cat_table *t, sqe_error *err);
/* Registers a source whose destroy callback runs with plan_ctx_destroy. */
int plan_ctx_add_source(plan_ctx *ctx, plan_source *src, sqe_error *err);

plan_col_id plan_new_col(plan_ctx *ctx);
plan *plan_new(plan_ctx *ctx, plan_kind kind, uint32_t n_children, uint32_t n_out);
bexpr *bexpr_new(plan_ctx *ctx, bexpr_kind kind, sqe_type type, uint32_t n_args);
bexpr *bexpr_column(plan_ctx *ctx, plan_col_id id, sqe_type type);
/* A constant of `type`: NULL when value is NULL. Copies the value (row 0 of value). */
bexpr *bexpr_const_null(plan_ctx *ctx, sqe_type type);
bexpr *bexpr_const_from(plan_ctx *ctx, const vec *value, uint32_t row);
bexpr *bexpr_const_bool(plan_ctx *ctx, bool v);
bexpr *bexpr_const_int64(plan_ctx *ctx, sqe_type type, int64_t v);
bexpr *bexpr_const_double(plan_ctx *ctx, double v);
bexpr *bexpr_const_str(plan_ctx *ctx, sqe_type type, const char *s, size_t len);
/* A constant array(varchar) of the n strings items (copied; n may be 0: the empty array). */
bexpr *bexpr_const_str_array(plan_ctx *ctx, const char *const *items, uint32_t n);
/* A new 1-row constant vector owned by ctx (destroyed with it). */
vec *plan_const_vec(plan_ctx *ctx, sqe_type type);
/* Deep copy of an expression (constants shared). */
bexpr *bexpr_copy(plan_ctx *ctx, const bexpr *e);

/* Copies with fresh column ids (plan_copy.c). A map records old id -> new id for the ids that
 * existed when it was initialized. */
typedef struct plan_id_map {
    plan_col_id *to;          /* 0 = not mapped */
    uint32_t n;
} plan_id_map;
int plan_id_map_init(plan_ctx *ctx, plan_id_map *m);
/* The copy's id for id (id itself when the copy does not produce it). */
plan_col_id plan_id_map_get(const plan_id_map *m, plan_col_id id);
/* Deep copy of p where every column p produces gets a fresh id (recorded in m). NULL when p has
 * a node that cannot be copied (window, UNNEST, a table function without clone) or on out of
 * memory (ctx->failed set). Memory in ctx. */
plan *plan_copy_fresh(plan_ctx *ctx, plan_id_map *m, const plan *p);
/* Deep copy of e with its column references mapped through m. NULL on out of memory. */
bexpr *plan_copy_expr(plan_ctx *ctx, const plan_id_map *m, const bexpr *e);

/* Does e reference column id? Collects referenced ids into a set. */
bool bexpr_uses_col(const bexpr *e, plan_col_id id);
/* Calls cb for every column id e references. */
void bexpr_visit_cols(const bexpr *e, void (*cb)(void *ud, plan_col_id id), void *ud);
/* True if every column e references is produced by p (in p->out). */
bool bexpr_bound_by(const bexpr *e, const plan *p);
bool bexpr_is_const(const bexpr *e);
/* Structural equality (same columns, constants, functions; volatile calls are never equal). */
bool bexpr_equal(const bexpr *a, const bexpr *c);
/* A hash consistent with bexpr_equal (equal expressions hash alike). */
uint64_t bexpr_hash(const bexpr *e);
bool bexpr_is_volatile(const bexpr *e);
/* Index of column id in p->out, or -1. */
int plan_find_col(const plan *p, plan_col_id id);

/* Splits a conjunction into its conjuncts (AND flattened) into a growable array. */
typedef struct bexpr_list {
    bexpr **items;
    uint32_t n, cap;
} bexpr_list;
int bexpr_list_push(plan_ctx *ctx, bexpr_list *l, bexpr *e);
int bexpr_split_and(plan_ctx *ctx, bexpr *e, bexpr_list *out);
/* Keeps the first of each set of equal expressions in l, in order (linear time, by hash).
 * Scratch memory in ctx; out of memory leaves l as it was. */
int bexpr_list_dedupe(plan_ctx *ctx, bexpr_list *l);
/* Builds the conjunction of n expressions (NULL when n == 0). */
bexpr *bexpr_make_and(plan_ctx *ctx, bexpr **items, uint32_t n);

/* Calls cb with the address of every expression slot of node p itself (not its children), so
 * rewrites can replace expressions in place. */
void plan_for_each_expr(plan *p, void (*cb)(void *ud, bexpr **slot), void *ud);

/* EXPLAIN text of a plan (one node per line, indented). */
void plan_explain(const plan *p, strbuf *out);
void bexpr_to_string(const bexpr *e, const plan *input, strbuf *out);

#endif
