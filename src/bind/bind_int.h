/*
 * bind_int.h: the binder's private state: scopes (what names mean), the aggregation and window
 * contexts of a SELECT, and the helpers shared by the bind_*.c files.
 */
#ifndef SQE_BIND_BIND_INT_H
#define SQE_BIND_BIND_INT_H

#include "bind/bind.h"
#include "io/io.h"
#include "common/strbuf.h"
#include "scan/scan_iceberg.h"
#include "scan/scan_source.h"
#include "sql/sql.h"

/* One relation visible in a FROM clause: its alias and columns. */
typedef struct bind_rel_col {
    const char *name;
    plan_col_id id;
    sqe_type type;
    bool hidden; /* not expanded by * (e.g. the right copy of a USING column) */
    bool star_hidden; /* not expanded by *, but reachable by name ("$path" of a table) */
} bind_rel_col;

typedef struct bind_rel {
    const char *alias;   /* table alias or table name; NULL for anonymous subqueries */
    const char *schema;  /* for schema.table.column references (NULL if not a table) */
    const char *catalog;
    bind_rel_col *cols;
    uint32_t n_cols;
} bind_rel;

typedef struct bind_scope bind_scope;
struct bind_scope {
    bind_scope *parent;   /* the enclosing query (correlated references) */
    bind_rel *rels;
    uint32_t n_rels, cap_rels;
    bool used_outer;      /* a name resolved in a parent scope */
};

/* Aggregation context of one SELECT: aggregates found while binding its expressions. */
typedef struct bind_agg_ctx {
    plan_agg *aggs;
    uint32_t n_aggs, cap_aggs;
    bexpr **groups;       /* bound grouping expressions (over the FROM scope) */
    uint32_t n_groups;
    plan_col_id *group_cols;
    plan_col_id grouping_id; /* when grouping sets are used */
    bool has_sets;
    bind_scope *from_scope;
} bind_agg_ctx;

typedef struct bind_win_ctx {
    plan_window_func *funcs;
    uint32_t n_funcs, cap_funcs;
    const sql_window_def *defs; /* WINDOW clause */
    int n_defs;
} bind_win_ctx;

/* Lambda parameters in scope while binding a lambda body. */
typedef struct bind_lambda_scope {
    struct bind_lambda_scope *parent;
    const sql_ident *names;
    plan_col_id *ids;
    sqe_type *types;
    uint32_t n;
} bind_lambda_scope;

/* A common table expression in scope. */
typedef struct bind_cte {
    const sql_with_item *item;
    struct bind_cte *next;
    struct bind_cte *visible_from; /* CTEs visible inside this one's body */
    int depth;                     /* recursion guard */
} bind_cte;

/* A view being expanded (or defined), innermost first: a view met again inside its own
 * expansion is recursive. */
typedef struct bind_view_frame {
    const char *catalog;
    const char *schema;
    const char *name;
    const struct bind_view_frame *parent;
    bool defining; /* the view of CREATE [OR REPLACE] VIEW, not a stored one */
} bind_view_frame;

typedef struct binder {
    plan_ctx *pctx;
    const bind_env *env;
    sqe_error *err;
    bind_cte *ctes;
    bind_agg_ctx *agg;           /* non-NULL while aggregates may appear */
    bind_win_ctx *win;           /* non-NULL while window functions may appear */
    bind_lambda_scope *lambdas;
    const char *clause;          /* "WHERE", "GROUP BY", ... for messages */
    /* While win is NULL inside an aggregate or window call: what a window function would nest
     * in ("aggregation 'sum'", "window specification", ...; NESTED_WINDOW), else NULL. */
    const char *win_nest;
    int depth;
    const bind_view_frame *views; /* views whose text is being bound (recursion guard) */
    /* Subqueries already planned as joins and the expressions that replaced them: one
     * subquery node can stand in several places (BETWEEN, NULLIF and a simple CASE reuse their
     * operand), and it is joined once (bind_subquery.c). */
    const bexpr **subq_from;
    bexpr **subq_to;
    uint32_t n_subq, cap_subq;
} binder;

/* Errors. */
int bind_error(binder *b, int code, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
int bind_nomem(binder *b);
#define BIND_CHECK(b, ptr)                                                                         \
    do {                                                                                           \
        if (!(ptr)) return bind_nomem(b);                                                          \
    } while (0)

/* Scopes (bind_scope.c). */
int bind_scope_add(binder *b, bind_scope *s, const bind_rel *rel);
bind_rel *bind_rel_from_plan(binder *b, const plan *p, const char *alias, const char **names);
/* Gives rel (of table reference r, without an alias) the schema and catalog its name was written
 * with: FROM v matches v.col only, FROM s.v also s.v.col (Trino matches the name as written).
 * The strings must outlive the binding. */
void bind_rel_qualify(bind_rel *rel, const sql_relation *r, const char *cat_name,
                      const char *schema);
/* Resolves a (possibly qualified) column name. On success *out is a column reference; names
 * that resolve to a ROW field path produce BEXPR_FIELD nodes. */
int bind_resolve_name(binder *b, bind_scope *s, const sql_qname *name, int line, int col,
                      bexpr **out);

/* Table-function plumbing (bind_tfunc.c): registers state as a new source of the query
 * (scan_source_new with the binder's plan_ctx and error; state is destroyed with the query, and
 * at once on failure); the PLAN_TABLE_FUNC node reading every column of src, named and typed by
 * it. */
int bind_tfunc_source_new(binder *b, void *state, void (*destroy)(void *), plan_source **out);
int bind_tfunc_plan(binder *b, const char *name, plan_source *src, plan **out, const char ***names);

/* Rows built at bind time (bind_rows.c): a source over n columns the binder fills. */
typedef struct bind_rows {
    vec *cols;
    uint32_t n_cols;
    uint32_t n_rows;             /* set by the builder when done */
} bind_rows;
typedef struct bind_rows_col {
    const char *name;
    type_id type;                /* VARCHAR is unbounded */
} bind_rows_col;
int bind_rows_init(binder *b, bind_rows **out, const bind_rows_col *defs, uint32_t n,
                   plan_source **src_out);
/* The same with full types (nested, precisions); names and types are copied. */
int bind_rows_init_types(binder *b, bind_rows **out, const char *const *names,
                         const sqe_type *types, uint32_t n, plan_source **src_out);
/* Filling row `row`: reserve first, then set every column. */
typedef struct bind_rows_builder {
    binder *b;
    bind_rows *st;
    uint32_t row;
} bind_rows_builder;
int bind_rb_reserve(bind_rows_builder *rb);
void bind_rb_int(bind_rows_builder *rb, uint32_t c, int64_t v);   /* integer or bigint column */
void bind_rb_bool(bind_rows_builder *rb, uint32_t c, bool v);
void bind_rb_timestamp_tz(bind_rows_builder *rb, uint32_t c, int64_t utc_micros);
int bind_rb_null(bind_rows_builder *rb, uint32_t c);
int bind_rb_str(bind_rows_builder *rb, uint32_t c, const char *s); /* NULL s: NULL */
/* A map(varchar, varchar) value (NULL values allowed). */
int bind_rb_str_map(bind_rows_builder *rb, uint32_t c, const char *const *keys,
                    const char *const *values, uint32_t n);

/* Parquet table functions (bind_tfunc_parquet.c): function is "read_parquet" (the source is
 * scan/scan_parquet.c), "parquet_metadata" or "parquet_schema"; files the path or glob the
 * session's path policy resolved (taken over, also on error). */
int bind_parquet_source(binder *b, const sql_relation *rel, const char *function,
                        scan_file_list *files, plan **out, const char ***names);

/* An Iceberg table in FROM (bind_iceberg.c): the scan of t (t->ice set) at the snapshot r's
 * FOR VERSION / TIMESTAMP AS OF clause names (current when none), as a PLAN_TABLE_FUNC over
 * scan_iceberg_source (its last ICE_SCAN_HIDDEN_COLUMNS columns are "$path" and "$pos"). The
 * source holds its own reference to t. *snapshot_id: the snapshot read (-1: the table has none). */
int bind_iceberg_table(binder *b, cat_table *t, const sql_relation *r, plan **out,
                       const char ***names, int64_t *snapshot_id);
/* A metadata table of Iceberg table t ("t$snapshots": suffix "snapshots"), rows built at bind
 * time (bind_iceberg_meta.c). TABLE_NOT_FOUND for an unknown suffix. */
int bind_iceberg_meta_table(binder *b, cat_table *t, const char *suffix, const sql_relation *r,
                            plan **out, const char ***names);

/* Expressions (bind_expr.c). */
int bind_expr(binder *b, bind_scope *s, const sql_expr *e, bexpr **out);
int bind_bool_expr(binder *b, bind_scope *s, const sql_expr *e, const char *clause, bexpr **out);
int bind_cast(binder *b, bexpr *e, sqe_type to, bool explicit_cast, int line, int col,
              bexpr **out);
int bind_call_scalar(binder *b, const char *name, bexpr **args, uint32_t n_args, int line,
                     int col, bexpr **out);
int bind_comparison(binder *b, int op, bexpr *l, bexpr *r, int line, int col, bexpr **out);
int bind_common_type(binder *b, bexpr **items, uint32_t n, int line, int col, const char *what,
                     sqe_type *out);
bool bind_contains_aggregate(const sql_expr *e);
int bind_type_name(binder *b, const sql_type_name *t, sqe_type *out);

/* Literals (bind_literal.c). */
int bind_literal(binder *b, const sql_expr *e, bexpr **out);

/* Queries (bind_query.c, bind_from.c, bind_select.c). */
int bind_query_node(binder *b, bind_scope *outer, const sql_query *q, plan **out,
                    const char ***names);
int bind_from(binder *b, bind_scope *outer, const sql_relation *r, plan **out, bind_scope *s);
int bind_select(binder *b, bind_scope *outer, const sql_query *q, plan **out,
                const char ***names);

/* Subqueries (bind_subquery.c): rewrites *input so that e no longer contains BEXPR_SUBQUERY
 * nodes (they become joins plus column references). top_filter: e is a WHERE/HAVING conjunct,
 * so EXISTS/IN may become SEMI/ANTI joins and *e may become NULL (fully absorbed). */
int bind_plan_subqueries(binder *b, plan **input, bexpr **e, bool top_filter);
bool bexpr_has_subquery(const bexpr *e);
/* *out = every column e reads, its subqueries' outer references included, is an output of side
 * (a JOIN ON conjunct with a subquery that only one side's rows decide). */
int bind_expr_refs_within(binder *b, const bexpr *e, const plan *side, bool *out);
/* Joins left with a LATERAL subquery `right` (which may refer to left's columns): correlated
 * conjuncts become the join condition, a correlated projection on top is evaluated above the
 * join. join_type is JOIN_INNER, JOIN_LEFT or JOIN_CROSS; on is the ON condition or NULL. */
int bind_lateral_join(binder *b, plan *left, plan *right, uint8_t join_type, bexpr *on,
                      plan **out);

/* Plan helpers. */
plan *bind_make_filter(binder *b, plan *input, bexpr *cond);
plan *bind_make_project(binder *b, plan *input, bexpr **exprs, const char **names, uint32_t n);

#endif
