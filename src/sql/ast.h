/*
 * ast.h: the abstract syntax tree produced by the Trino-dialect parser (sql.h).
 *
 * Every node lives in the arena passed to sql_parse and is never freed on its own; the tree is
 * valid until that arena is reset or destroyed. Nodes are tagged structs (a kind plus a union)
 * and every node records the 1-based line and column of its first token, so later stages
 * (binder, planner) can report errors at the right place with err_set_at.
 *
 * Conventions:
 *   - Lists are (pointer, count) pairs; a NULL pointer with count 0 is the empty list.
 *   - Optional children are NULL when absent.
 *   - Identifiers keep the folded name (unquoted names are lower-cased as Trino does; quoted
 *     names keep their case) and the text as written (for messages).
 *   - Types (CAST targets, column definitions) are kept as normalized text (lower-case keywords,
 *     single spaces, Trino's spelling such as "decimal(12,2)", "map(varchar, array(integer))",
 *     "timestamp(3) with time zone", "row(a bigint, \"b c\" varchar)"); the binder resolves them
 *     with type_parse (types/types.h).
 *   - Positional parameters `?` are numbered left to right from 1 (sql_expr.u.param_index);
 *     sql_stmt.n_params is how many the statement text holds, sql_stmt.param_pos where.
 *   - Sugar is expanded by the parser: POSITION(a IN b) becomes strpos(b, a);
 *     SUBSTRING(a FROM b FOR c) becomes substring(a, b, c); TRIM([BOTH|LEADING|TRAILING] [c]
 *     FROM s) becomes trim/ltrim/rtrim(s [, c]); a unary minus applied to a numeric literal is
 *     folded into the literal. Everything else is kept as written (IF, COALESCE, NULLIF, TRY are
 *     ordinary calls).
 *
 * Compatibility: the binder is written against this header. Extend it by adding kinds at the
 * end of an enum and fields at the end of a struct; never renumber or reuse.
 */
#ifndef SQE_SQL_AST_H
#define SQE_SQL_AST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct sql_expr sql_expr;
typedef struct sql_query sql_query;
typedef struct sql_relation sql_relation;
typedef struct sql_stmt sql_stmt;
typedef struct sql_window_spec sql_window_spec;

/* ---------------------------------------------------------------------------------------------
 * Names
 * ------------------------------------------------------------------------------------------- */

/* An identifier. `name` is what resolution uses (unquoted: lower-cased; quoted: as written with
 * "" unescaped); `text` is the identifier as written, without quotes (for error messages). */
typedef struct sql_ident {
    const char *name; /* folded, NUL-terminated */
    const char *text; /* as written (without the quotes), NUL-terminated */
    int line, col;
    bool quoted;
} sql_ident;

typedef struct sql_ident_list {
    sql_ident *items;
    int n;
} sql_ident_list;

/* A dotted name: catalog.schema.table, schema.table, table, or a.b.c in expressions. */
typedef struct sql_qname {
    sql_ident *parts; /* n_parts >= 1 */
    int n_parts;
} sql_qname;

/* A type as written (see the file comment for the normalization). */
typedef struct sql_type_name {
    const char *text; /* normalized, NUL-terminated */
    int line, col;
} sql_type_name;

/* ---------------------------------------------------------------------------------------------
 * Expressions
 * ------------------------------------------------------------------------------------------- */

typedef struct sql_expr_list {
    sql_expr **items;
    int n;
} sql_expr_list;

typedef enum sql_expr_kind {
    /* literals */
    SQL_EXPR_NULL = 1,     /* NULL */
    SQL_EXPR_BOOL,         /* TRUE / FALSE: u.bool_value */
    SQL_EXPR_INTEGER,      /* fits in int64: u.num.ival (text: u.num.text) */
    SQL_EXPR_DECIMAL,      /* 1.5, .5, 1., or an integer beyond int64: u.num.text ("123.45") */
    SQL_EXPR_DOUBLE,       /* with exponent (1e10): u.num.dval, u.num.text */
    SQL_EXPR_STRING,       /* '...' and U&'...': u.str (decoded, UTF-8) */
    SQL_EXPR_VARBINARY,    /* X'0A0B': u.str holds the bytes */
    SQL_EXPR_TYPED,        /* DATE '...', TIMESTAMP '...', DECIMAL '...', ...: u.typed */
    SQL_EXPR_INTERVAL,     /* INTERVAL [+|-] '...' field [TO field]: u.interval */
    SQL_EXPR_PARAM,        /* ?: u.param_index (1-based) */
    /* names */
    SQL_EXPR_NAME,         /* a, t.a, s.t.a: u.name (resolution decides what the parts are) */
    SQL_EXPR_FIELD,        /* (expr).field, f(x).field, a[1].field: u.field */
    /* operators */
    SQL_EXPR_UNARY,        /* u.unary: -x, +x, NOT x */
    SQL_EXPR_BINARY,       /* u.binary: arithmetic, ||, comparisons, IS [NOT] DISTINCT FROM */
    SQL_EXPR_AND,          /* u.list: n >= 2 conjuncts, flattened */
    SQL_EXPR_OR,           /* u.list: n >= 2 disjuncts, flattened */
    SQL_EXPR_IS_NULL,      /* u.is_null: x IS [NOT] NULL */
    SQL_EXPR_BETWEEN,      /* u.between: x [NOT] BETWEEN lo AND hi */
    SQL_EXPR_IN_LIST,      /* u.in_list: x [NOT] IN (a, b, ...) */
    SQL_EXPR_IN_SUBQUERY,  /* u.in_query: x [NOT] IN (query) */
    SQL_EXPR_LIKE,         /* u.like: x [NOT] LIKE pattern [ESCAPE e] */
    SQL_EXPR_QUANTIFIED,   /* u.quantified: x op ANY|SOME|ALL (query) */
    SQL_EXPR_EXISTS,       /* u.query: EXISTS (query) */
    SQL_EXPR_SUBQUERY,     /* u.query: (query) used as a scalar */
    SQL_EXPR_AT_TIME_ZONE, /* u.binary with op SQL_OP_NONE: left AT TIME ZONE right */
    /* constructors and special forms */
    SQL_EXPR_CALL,         /* u.call: f(args) with DISTINCT/ORDER BY/FILTER/OVER/NULLS */
    SQL_EXPR_CAST,         /* u.cast: CAST / TRY_CAST (x AS type) */
    SQL_EXPR_CASE,         /* u.case_: CASE [operand] WHEN .. THEN .. [ELSE ..] END */
    SQL_EXPR_EXTRACT,      /* u.extract: EXTRACT(field FROM x) */
    SQL_EXPR_CURRENT,      /* u.current: CURRENT_DATE, LOCALTIMESTAMP(3), CURRENT_USER, ... */
    SQL_EXPR_SUBSCRIPT,    /* u.binary with op SQL_OP_NONE: left[right] */
    SQL_EXPR_ARRAY,        /* u.list: ARRAY[a, b] */
    SQL_EXPR_ROW,          /* u.row: ROW(a, b) or the shorthand (a, b) */
    SQL_EXPR_LAMBDA,       /* u.lambda: x -> body, (x, y) -> body */
    SQL_EXPR_GROUPING,     /* u.list: GROUPING(a, b) */
} sql_expr_kind;

typedef enum sql_op {
    SQL_OP_NONE = 0,
    /* arithmetic */
    SQL_OP_ADD,
    SQL_OP_SUB,
    SQL_OP_MUL,
    SQL_OP_DIV,
    SQL_OP_MOD,
    SQL_OP_CONCAT, /* || */
    /* comparison */
    SQL_OP_EQ,
    SQL_OP_NE, /* <> and != */
    SQL_OP_LT,
    SQL_OP_LE,
    SQL_OP_GT,
    SQL_OP_GE,
    SQL_OP_IS_DISTINCT,     /* IS DISTINCT FROM */
    SQL_OP_IS_NOT_DISTINCT, /* IS NOT DISTINCT FROM */
    /* unary */
    SQL_OP_NEG,
    SQL_OP_PLUS,
    SQL_OP_NOT,
} sql_op;

typedef enum sql_quantifier {
    SQL_QUANT_ANY = 1, /* ANY and SOME */
    SQL_QUANT_ALL,
} sql_quantifier;

/* Interval qualifier fields (INTERVAL '3' DAY TO SECOND). */
typedef enum sql_interval_field {
    SQL_IFIELD_NONE = 0,
    SQL_IFIELD_YEAR,
    SQL_IFIELD_MONTH,
    SQL_IFIELD_DAY,
    SQL_IFIELD_HOUR,
    SQL_IFIELD_MINUTE,
    SQL_IFIELD_SECOND,
} sql_interval_field;

/* Niladic special values (no parentheses, except the optional precision). */
typedef enum sql_current_kind {
    SQL_CURRENT_DATE = 1,
    SQL_CURRENT_TIME,      /* precision may be set */
    SQL_CURRENT_TIMESTAMP, /* precision may be set */
    SQL_LOCALTIME,         /* precision may be set */
    SQL_LOCALTIMESTAMP,    /* precision may be set */
    SQL_CURRENT_USER,
    SQL_CURRENT_CATALOG,
    SQL_CURRENT_SCHEMA,
    SQL_CURRENT_PATH,
    SQL_CURRENT_ROLE,
} sql_current_kind;

/* NULL treatment of window value functions (lag(x) IGNORE NULLS OVER ...). */
typedef enum sql_nulls_treatment {
    SQL_NULLS_DEFAULT = 0,
    SQL_NULLS_IGNORE,
    SQL_NULLS_RESPECT,
} sql_nulls_treatment;

/* ORDER BY item. */
typedef enum sql_nulls_order {
    SQL_NULLS_ORDER_DEFAULT = 0, /* Trino: NULLS LAST for both directions */
    SQL_NULLS_FIRST,
    SQL_NULLS_LAST,
} sql_nulls_order;

typedef struct sql_order_item {
    sql_expr *expr;
    bool desc;
    uint8_t nulls; /* sql_nulls_order */
    int line, col;
} sql_order_item;

typedef struct sql_order_list {
    sql_order_item *items;
    int n;
} sql_order_list;

typedef struct sql_when {
    sql_expr *cond; /* searched CASE: a condition; simple CASE: the value compared to operand */
    sql_expr *result;
} sql_when;

struct sql_expr {
    uint8_t kind; /* sql_expr_kind */
    int line, col;
    union {
        bool bool_value;
        int param_index; /* 1-based */
        struct {
            const char *text; /* normalized digits: no underscores; hex/octal/binary as decimal */
            int64_t ival;     /* SQL_EXPR_INTEGER */
            double dval;      /* SQL_EXPR_DOUBLE */
        } num;
        struct {
            const char *data; /* NUL-terminated for convenience; may contain NUL bytes */
            size_t len;
        } str;
        struct {
            sql_type_name type; /* "date", "timestamp", "decimal", "real", "json", ... */
            const char *value;  /* the string, decoded */
            size_t len;
        } typed;
        struct {
            const char *value; /* the string, e.g. "3" or "1-2" or "1 02:03:04" */
            int sign;          /* +1 or -1 (from INTERVAL -'3' DAY) */
            uint8_t from;      /* sql_interval_field */
            uint8_t to;        /* sql_interval_field; SQL_IFIELD_NONE when there is no TO */
        } interval;
        sql_qname name;
        struct {
            sql_expr *base;
            sql_ident field;
        } field;
        struct {
            uint8_t op; /* sql_op */
            sql_expr *arg;
        } unary;
        struct {
            uint8_t op; /* sql_op; SQL_OP_NONE for AT TIME ZONE and subscript */
            sql_expr *left, *right;
        } binary;
        sql_expr_list list;
        struct {
            sql_expr *arg;
            bool negated;
        } is_null;
        struct {
            sql_expr *arg, *low, *high;
            bool negated;
        } between;
        struct {
            sql_expr *arg;
            sql_expr_list values;
            bool negated;
        } in_list;
        struct {
            sql_expr *arg;
            sql_query *query;
            bool negated;
        } in_query;
        struct {
            sql_expr *arg, *pattern, *escape; /* escape may be NULL */
            bool negated;
        } like;
        struct {
            uint8_t op;         /* comparison sql_op */
            uint8_t quantifier; /* sql_quantifier */
            sql_expr *arg;
            sql_query *query;
        } quantified;
        sql_query *query; /* EXISTS, scalar subquery */
        struct {
            sql_qname name;
            sql_expr_list args;
            bool distinct;           /* f(DISTINCT x) */
            bool star;               /* count(*) (args empty) */
            uint8_t nulls;           /* sql_nulls_treatment */
            sql_order_list order_by; /* array_agg(x ORDER BY y), listagg WITHIN GROUP */
            sql_expr *filter;        /* FILTER (WHERE ...) or NULL */
            sql_window_spec *over;   /* OVER (...) or NULL */
            sql_ident *over_name;    /* OVER w (a named window) or NULL */
        } call;
        struct {
            sql_expr *arg;
            sql_type_name type;
            bool try_cast;
        } cast;
        struct {
            sql_expr *operand; /* NULL for a searched CASE */
            sql_when *whens;
            int n_whens;
            sql_expr *else_result; /* NULL when absent */
        } case_;
        struct {
            sql_ident field; /* folded: year, quarter, month, week, day, day_of_month, day_of_week,
                                dow, day_of_year, doy, year_of_week, yow, hour, minute, second,
                                timezone_minute, timezone_hour */
            sql_expr *arg;
        } extract;
        struct {
            uint8_t which; /* sql_current_kind */
            int precision; /* -1 when not given */
        } current;
        struct {
            sql_expr_list items;
            bool implicit; /* written as (a, b) rather than ROW(a, b) */
        } row;
        struct {
            sql_ident_list params;
            sql_expr *body;
        } lambda;
    } u;
};

/* ---------------------------------------------------------------------------------------------
 * Windows
 * ------------------------------------------------------------------------------------------- */

typedef enum sql_frame_unit {
    SQL_FRAME_ROWS = 1,
    SQL_FRAME_RANGE,
    SQL_FRAME_GROUPS,
} sql_frame_unit;

typedef enum sql_bound_kind {
    SQL_BOUND_UNBOUNDED_PRECEDING = 1,
    SQL_BOUND_PRECEDING, /* offset PRECEDING */
    SQL_BOUND_CURRENT_ROW,
    SQL_BOUND_FOLLOWING, /* offset FOLLOWING */
    SQL_BOUND_UNBOUNDED_FOLLOWING,
} sql_bound_kind;

typedef struct sql_frame_bound {
    uint8_t kind;     /* sql_bound_kind */
    sql_expr *offset; /* PRECEDING / FOLLOWING only */
    int line, col;
} sql_frame_bound;

typedef struct sql_window_frame {
    uint8_t unit; /* sql_frame_unit */
    bool has_end; /* BETWEEN start AND end; otherwise end is CURRENT ROW implicitly */
    sql_frame_bound start, end;
    int line, col;
} sql_window_frame;

struct sql_window_spec {
    sql_ident *base; /* OVER (w ORDER BY ...): existing window name, or NULL */
    sql_expr_list partition_by;
    sql_order_list order_by;
    sql_window_frame *frame; /* NULL: the default frame */
    int line, col;
};

/* WINDOW w AS (spec) */
typedef struct sql_window_def {
    sql_ident name;
    sql_window_spec *spec;
} sql_window_def;

/* ---------------------------------------------------------------------------------------------
 * Queries
 * ------------------------------------------------------------------------------------------- */

typedef enum sql_select_item_kind {
    SQL_SELECT_EXPR = 1, /* expr [[AS] alias] */
    SQL_SELECT_STAR,     /* *, t.*, expr.* [AS (a, b)] */
} sql_select_item_kind;

typedef struct sql_select_item {
    uint8_t kind;
    sql_expr *expr;          /* EXPR: the value; STAR: the qualifier (a NAME or any row-valued
                                expression) or NULL for a plain `*` */
    sql_ident *alias;        /* EXPR: the alias or NULL */
    sql_ident_list aliases;  /* STAR: expr.* AS (a, b) column aliases (usually empty) */
    int line, col;
} sql_select_item;

typedef enum sql_grouping_kind {
    SQL_GROUPING_SIMPLE = 1, /* a, (a, b), (): one set in sets[0] */
    SQL_GROUPING_ROLLUP,     /* ROLLUP(a, (b, c)): each argument is one set */
    SQL_GROUPING_CUBE,       /* CUBE(...) */
    SQL_GROUPING_SETS,       /* GROUPING SETS ((a, b), a, ()) */
} sql_grouping_kind;

typedef struct sql_grouping_element {
    uint8_t kind; /* sql_grouping_kind */
    sql_expr_list *sets;
    int n_sets;
    int line, col;
} sql_grouping_element;

typedef struct sql_group_by {
    uint8_t quantifier; /* 0 (none), SQL_SET_ALL (GROUP BY ALL ...) or SQL_SET_DISTINCT */
    sql_grouping_element *elements;
    int n_elements;
    int line, col;
} sql_group_by;

typedef struct sql_select {
    bool distinct;
    sql_select_item *items;
    int n_items;
    sql_relation **from; /* comma-separated FROM list (an implicit cross join); may be empty */
    int n_from;
    sql_expr *where;
    sql_group_by *group_by; /* NULL when absent */
    sql_expr *having;
    sql_window_def *windows; /* WINDOW clause */
    int n_windows;
} sql_select;

typedef enum sql_query_kind {
    SQL_QUERY_SELECT = 1, /* u.select */
    SQL_QUERY_SET_OP,     /* u.set_op */
    SQL_QUERY_VALUES,     /* u.values */
    SQL_QUERY_TABLE,      /* u.table: TABLE name */
    SQL_QUERY_NESTED,     /* u.nested: (query) carrying its own ORDER BY/LIMIT inside another */
} sql_query_kind;

typedef enum sql_set_op_kind {
    SQL_SET_UNION = 1,
    SQL_SET_INTERSECT,
    SQL_SET_EXCEPT,
} sql_set_op_kind;

/* Set quantifier. */
enum {
    SQL_SET_DISTINCT = 1, /* the default for set operations */
    SQL_SET_ALL = 2,
};

typedef struct sql_with_item {
    sql_ident name;
    sql_ident_list columns; /* optional column aliases */
    sql_query *query;
    int line, col;
} sql_with_item;

typedef struct sql_with {
    bool recursive;
    sql_with_item *items;
    int n_items;
    int line, col;
} sql_with;

struct sql_query {
    uint8_t kind; /* sql_query_kind */
    int line, col;
    sql_with *with; /* NULL when absent */
    union {
        sql_select select;
        struct {
            uint8_t op;         /* sql_set_op_kind */
            uint8_t quantifier; /* SQL_SET_DISTINCT or SQL_SET_ALL */
            sql_query **inputs; /* n >= 2; a chain of the same op and quantifier is flattened */
            int n_inputs;
        } set_op;
        struct {
            sql_expr **rows; /* each row: a SQL_EXPR_ROW for (a, b), otherwise one value */
            int n_rows;
        } values;
        sql_qname table;
        sql_query *nested;
    } u;
    sql_order_list order_by;
    sql_expr *offset;    /* NULL when absent */
    sql_expr *limit;     /* LIMIT n or FETCH FIRST n; NULL when absent or LIMIT ALL */
    bool fetch_first;    /* the limit came from FETCH FIRST/NEXT */
    bool with_ties;      /* FETCH ... WITH TIES */
};

/* ---------------------------------------------------------------------------------------------
 * Relations (FROM)
 * ------------------------------------------------------------------------------------------- */

typedef enum sql_relation_kind {
    SQL_REL_TABLE = 1,   /* u.table */
    SQL_REL_SUBQUERY,    /* u.subquery: (query) or LATERAL (query) */
    SQL_REL_UNNEST,      /* u.unnest */
    SQL_REL_FUNCTION,    /* u.function: read_csv('f.csv', header => true) */
    SQL_REL_FILE,        /* u.file: 'path/to/file.csv' */
    SQL_REL_JOIN,        /* u.join */
} sql_relation_kind;

typedef enum sql_join_kind {
    SQL_JOIN_INNER = 1,
    SQL_JOIN_LEFT,
    SQL_JOIN_RIGHT,
    SQL_JOIN_FULL,
    SQL_JOIN_CROSS,
} sql_join_kind;

typedef enum sql_version_kind {
    SQL_VERSION_NONE = 0,
    SQL_VERSION_VERSION,   /* FOR VERSION AS OF expr */
    SQL_VERSION_TIMESTAMP, /* FOR TIMESTAMP AS OF expr */
} sql_version_kind;

/* A function argument that may be named: `name => value` (table functions, CALL). */
typedef struct sql_named_arg {
    sql_ident *name; /* NULL for positional arguments */
    sql_expr *value;
} sql_named_arg;

struct sql_relation {
    uint8_t kind; /* sql_relation_kind */
    int line, col;
    sql_ident *alias;       /* [AS] alias, or NULL */
    sql_ident_list columns; /* alias (c1, c2) column aliases */
    union {
        struct {
            sql_qname name;
            uint8_t version;  /* sql_version_kind */
            sql_expr *as_of;  /* the version or timestamp expression */
        } table;
        struct {
            sql_query *query;
            bool lateral;
        } subquery;
        struct {
            sql_expr_list args;
            bool with_ordinality;
        } unnest;
        struct {
            sql_qname name;
            sql_named_arg *args;
            int n_args;
        } function;
        struct {
            const char *path;
            size_t len;
        } file;
        struct {
            uint8_t type; /* sql_join_kind */
            bool natural;
            sql_relation *left, *right;
            sql_expr *on;         /* ON condition or NULL */
            sql_ident_list using; /* USING (a, b); empty when absent */
        } join;
    } u;
};

/* ---------------------------------------------------------------------------------------------
 * Statements
 * ------------------------------------------------------------------------------------------- */

/* A property in WITH (name = value, ...). value NULL means DEFAULT. */
typedef struct sql_property {
    sql_ident name;
    sql_expr *value;
} sql_property;

typedef struct sql_property_list {
    sql_property *items;
    int n;
} sql_property_list;

typedef struct sql_column_def {
    sql_ident name;
    sql_type_name type;
    bool not_null;
    const char *comment; /* NULL when absent */
    sql_property_list props;
    int line, col;
} sql_column_def;

/* SET col = value in UPDATE and MERGE. */
typedef struct sql_assignment {
    sql_ident column;
    sql_expr *value;
} sql_assignment;

typedef enum sql_merge_action {
    SQL_MERGE_UPDATE = 1,
    SQL_MERGE_DELETE,
    SQL_MERGE_INSERT,
} sql_merge_action;

typedef struct sql_merge_case {
    bool matched;    /* WHEN MATCHED / WHEN NOT MATCHED */
    uint8_t action;  /* sql_merge_action */
    sql_expr *cond;  /* AND cond, or NULL */
    sql_assignment *sets; /* UPDATE SET */
    int n_sets;
    sql_ident_list columns; /* INSERT (cols); empty when absent */
    sql_expr_list values;   /* INSERT VALUES (...) */
    int line, col;
} sql_merge_case;

typedef enum sql_stmt_kind {
    SQL_STMT_QUERY = 1,        /* u.query (SELECT, VALUES, TABLE, WITH ...) */
    SQL_STMT_EXPLAIN,          /* u.explain */
    SQL_STMT_CREATE_SCHEMA,    /* u.create_schema */
    SQL_STMT_DROP_SCHEMA,      /* u.drop (cascade valid) */
    SQL_STMT_CREATE_TABLE,     /* u.create_table */
    SQL_STMT_CREATE_TABLE_AS,  /* u.create_table_as */
    SQL_STMT_DROP_TABLE,       /* u.drop */
    SQL_STMT_INSERT,           /* u.insert */
    SQL_STMT_DELETE,           /* u.delete_ */
    SQL_STMT_UPDATE,           /* u.update */
    SQL_STMT_MERGE,            /* u.merge */
    SQL_STMT_TRUNCATE,         /* u.drop (only name) */
    SQL_STMT_ALTER_TABLE,      /* u.alter */
    SQL_STMT_SHOW,             /* u.show (also DESCRIBE t) */
    SQL_STMT_USE,              /* u.use */
    SQL_STMT_SET_SESSION,      /* u.set_session */
    SQL_STMT_RESET_SESSION,    /* u.set_session (value NULL) */
    SQL_STMT_PREPARE,          /* u.prepare */
    SQL_STMT_EXECUTE,          /* u.execute */
    SQL_STMT_DEALLOCATE,       /* u.prepared (name) */
    SQL_STMT_DESCRIBE_INPUT,   /* u.prepared */
    SQL_STMT_DESCRIBE_OUTPUT,  /* u.prepared */
    SQL_STMT_START_TRANSACTION,/* no payload (isolation level and access mode are ignored) */
    SQL_STMT_COMMIT,
    SQL_STMT_ROLLBACK,
    SQL_STMT_CALL,             /* u.call */
    SQL_STMT_CREATE_VIEW,      /* u.create_view */
    SQL_STMT_DROP_VIEW,        /* u.drop */
    SQL_STMT_COPY,             /* u.copy: COPY (query) TO 'file' [WITH (...)], COPY table TO */
} sql_stmt_kind;

typedef enum sql_explain_type {
    SQL_EXPLAIN_DEFAULT = 0, /* LOGICAL for EXPLAIN, DISTRIBUTED for EXPLAIN ANALYZE */
    SQL_EXPLAIN_LOGICAL,
    SQL_EXPLAIN_DISTRIBUTED,
    SQL_EXPLAIN_IO,
    SQL_EXPLAIN_VALIDATE,
} sql_explain_type;

typedef enum sql_explain_format {
    SQL_EXPLAIN_FORMAT_DEFAULT = 0, /* TEXT */
    SQL_EXPLAIN_FORMAT_TEXT,
    SQL_EXPLAIN_FORMAT_JSON,
    SQL_EXPLAIN_FORMAT_GRAPHVIZ,
} sql_explain_format;

typedef enum sql_alter_kind {
    SQL_ALTER_ADD_COLUMN = 1,     /* column, if_not_exists */
    SQL_ALTER_DROP_COLUMN,        /* name, if_exists (column) */
    SQL_ALTER_RENAME_COLUMN,      /* name -> new_name, if_exists (column) */
    SQL_ALTER_RENAME_TABLE,       /* new_table */
    SQL_ALTER_SET_PROPERTIES,     /* props */
    SQL_ALTER_SET_COLUMN_TYPE,    /* name, type */
    SQL_ALTER_DROP_NOT_NULL,      /* name */
    /* Iceberg refs (Spark's Iceberg SQL extensions); name is the branch or tag */
    SQL_ALTER_CREATE_BRANCH,      /* name, ref_or_replace, sub_if_not_exists, ref_as_of,
                                     ref_retain */
    SQL_ALTER_CREATE_TAG,         /* same */
    SQL_ALTER_DROP_BRANCH,        /* name, sub_if_exists */
    SQL_ALTER_DROP_TAG,           /* name, sub_if_exists */
} sql_alter_kind;

/* Units of RETAIN n DAYS | HOURS | MINUTES. */
typedef enum sql_retain_unit { SQL_RETAIN_DAYS = 0, SQL_RETAIN_HOURS, SQL_RETAIN_MINUTES } sql_retain_unit;

typedef enum sql_show_kind {
    SQL_SHOW_CATALOGS = 1,
    SQL_SHOW_SCHEMAS,       /* target: catalog or NULL */
    SQL_SHOW_TABLES,        /* target: schema (1 or 2 parts) or NULL */
    SQL_SHOW_COLUMNS,       /* target: table (also DESCRIBE t) */
    SQL_SHOW_FUNCTIONS,     /* target: schema or NULL */
    SQL_SHOW_SESSION,
    SQL_SHOW_CREATE_TABLE,  /* target */
    SQL_SHOW_CREATE_VIEW,   /* target */
    SQL_SHOW_CREATE_SCHEMA, /* target */
    SQL_SHOW_STATS,         /* SHOW STATS FOR t: target */
} sql_show_kind;

/* Where one `?` parameter marker stands in the statement text (1-based line and column). */
typedef struct sql_param_pos {
    int line, col;
} sql_param_pos;

struct sql_stmt {
    uint8_t kind; /* sql_stmt_kind */
    int line, col;
    int n_params; /* number of `?` in this statement's text */
    const sql_param_pos *param_pos; /* n_params entries, in text order ([0] = ?1); the parser
                                       records them, so nothing lexes the text again */
    union {
        sql_query *query;
        struct {
            sql_stmt *stmt;
            bool analyze;
            bool verbose;
            uint8_t type;   /* sql_explain_type */
            uint8_t format; /* sql_explain_format */
        } explain;
        struct {
            sql_qname name;
            bool if_not_exists;
            sql_property_list props;
        } create_schema;
        struct {
            sql_qname name;
            bool if_exists;
            bool cascade; /* DROP SCHEMA ... CASCADE (RESTRICT is the default) */
        } drop;
        struct {
            sql_qname name;
            bool or_replace;
            bool if_not_exists;
            sql_column_def *columns;
            int n_columns;
            const char *comment; /* NULL when absent */
            sql_property_list props;
        } create_table;
        struct {
            sql_qname name;
            bool or_replace;
            bool if_not_exists;
            bool with_data; /* false for WITH NO DATA */
            sql_ident_list columns; /* optional column aliases */
            const char *comment;
            sql_property_list props;
            sql_query *query;
        } create_table_as;
        struct {
            sql_qname table;
            sql_ident_list columns; /* empty: all columns in table order */
            sql_query *query;
        } insert;
        struct {
            sql_qname table;
            sql_expr *where; /* NULL: all rows */
        } delete_;
        struct {
            sql_qname table;
            sql_assignment *sets;
            int n_sets;
            sql_expr *where;
        } update;
        struct {
            sql_qname target;
            sql_ident *alias;
            sql_relation *source;
            sql_expr *on;
            sql_merge_case *cases;
            int n_cases;
        } merge;
        struct {
            sql_qname table;
            bool if_exists; /* ALTER TABLE IF EXISTS t ... */
            uint8_t action; /* sql_alter_kind */
            bool sub_if_exists;     /* DROP/RENAME COLUMN IF EXISTS */
            bool sub_if_not_exists; /* ADD COLUMN IF NOT EXISTS */
            sql_column_def column;  /* ADD COLUMN */
            sql_ident name;         /* the column dropped, renamed or altered */
            sql_ident new_name;     /* RENAME COLUMN a TO b */
            sql_qname new_table;    /* RENAME TO */
            sql_type_name type;     /* SET DATA TYPE */
            sql_property_list props;/* SET PROPERTIES */
            bool ref_or_replace;    /* CREATE OR REPLACE BRANCH/TAG */
            sql_expr *ref_as_of;    /* AS OF VERSION expr, or NULL */
            sql_expr *ref_retain;   /* RETAIN expr unit, or NULL */
            uint8_t ref_retain_unit;/* sql_retain_unit */
        } alter;
        struct {
            uint8_t what;         /* sql_show_kind */
            sql_qname *target;    /* FROM/IN name or the object shown; NULL when absent */
            const char *like;     /* LIKE pattern or NULL */
            const char *escape;   /* ESCAPE character string or NULL */
        } show;
        sql_qname use; /* USE catalog.schema / USE schema */
        struct {
            sql_qname name;
            sql_expr *value; /* NULL for RESET SESSION */
        } set_session;
        struct {
            sql_ident name;
            sql_stmt *stmt;
            const char *text; /* the statement's text as written (after FROM), NUL-terminated */
        } prepare;
        struct {
            sql_ident name;     /* EXECUTE name (empty for EXECUTE IMMEDIATE) */
            sql_expr_list args; /* USING a, b */
            const char *immediate; /* EXECUTE IMMEDIATE 'text': the statement text, or NULL */
        } execute;
        sql_ident prepared; /* DEALLOCATE PREPARE / DESCRIBE INPUT / DESCRIBE OUTPUT name */
        struct {
            sql_qname name;
            sql_named_arg *args;
            int n_args;
        } call;
        struct {
            sql_qname name;
            bool or_replace;
            const char *comment;
            sql_query *query;
            const char *text; /* the query text as written */
        } create_view;
        struct {
            sql_query *query;      /* COPY (query) TO, or TABLE name for COPY name TO */
            const char *path;      /* the target file, as written in the string literal */
            int path_line, path_col;
            sql_property_list options; /* WITH (name = value, ...); empty when absent */
        } copy;
    } u;
};

#endif
