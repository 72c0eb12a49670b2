/*
 * parse_stmt.c: statements: queries, EXPLAIN, DDL (schemas, tables, views), DML (INSERT,
 * DELETE, UPDATE, MERGE, TRUNCATE), SHOW/DESCRIBE, USE, session properties, prepared
 * statements, transactions and CALL.
 *
 * INTERFACE
 *   sql_parse_statement   one statement (the caller checks what follows it)
 *
 * NOTES
 *   - The grammar follows Trino's SqlBase.g4 `statement` rule; a few Trino statements that SQE
 *     does not implement (GRANT, ANALYZE, materialized views, ...) are syntax errors.
 *   - BEGIN [WORK | TRANSACTION] is accepted as START TRANSACTION (clients send it).
 *   - PREPARE and CREATE VIEW keep the text of the inner statement/query, so sessions can store
 *     and re-parse it.
 */
#include <string.h>
#include <strings.h>

#include "sql/sql.h"
#include "sql/sql_int.h"

static sql_stmt *new_stmt(sql_parser *p, sql_stmt_kind kind, const sql_token *at) {
    sql_stmt *s = sql_alloc(p, sizeof *s);
    if (!s) return NULL;
    s->kind = (uint8_t)kind;
    s->line = at->line;
    s->col = at->col;
    return s;
}

/* IF NOT EXISTS */
static bool parse_if_not_exists(sql_parser *p, bool *out) {
    *out = false;
    if (sql_is_kw(p, KW_IF) && sql_peek_kw(p, 1, KW_NOT)) {
        sql_advance(p);
        sql_advance(p);
        if (!sql_expect_kw(p, KW_EXISTS)) return false;
        *out = true;
    }
    return true;
}

/* IF EXISTS */
static bool parse_if_exists(sql_parser *p, bool *out) {
    *out = false;
    if (sql_is_kw(p, KW_IF) && sql_peek_kw(p, 1, KW_EXISTS)) {
        sql_advance(p);
        sql_advance(p);
        *out = true;
    }
    return true;
}

/* ( name = value | DEFAULT, ... ) */
static bool parse_properties(sql_parser *p, sql_property_list *out) {
    if (!sql_expect_tok(p, TK_LPAREN)) return false;
    sql_vec v = {0};
    do {
        sql_property *prop = sql_vec_push(p, &v, sizeof *prop);
        if (!prop || !sql_parse_ident(p, &prop->name) || !sql_expect_tok(p, TK_EQ)) return false;
        if (sql_is_kw(p, KW_DEFAULT) &&
            (sql_peek_tok(p, 1, TK_COMMA) || sql_peek_tok(p, 1, TK_RPAREN))) {
            sql_advance(p);
            prop->value = NULL;
        } else {
            prop->value = sql_parse_expr(p);
            if (!prop->value) return false;
        }
    } while (sql_accept_tok(p, TK_COMMA));
    if (!sql_expect_tok(p, TK_RPAREN)) return false;
    out->items = v.data;
    out->n = v.n;
    return true;
}

/* A string literal for COMMENT, LIKE, ... */
static bool parse_string_value(sql_parser *p, const char **out) {
    size_t len;
    return sql_parse_string(p, out, &len);
}

/* column type [NOT NULL] [COMMENT '..'] [WITH (props)] */
static bool parse_column_def(sql_parser *p, sql_column_def *c) {
    const sql_token *t = sql_cur(p);
    c->line = t->line;
    c->col = t->col;
    if (!sql_parse_ident(p, &c->name) || !sql_parse_type(p, &c->type)) return false;
    if (sql_accept_kw(p, KW_NOT)) {
        if (!sql_expect_kw(p, KW_NULL)) return false;
        c->not_null = true;
    }
    if (sql_accept_kw(p, KW_COMMENT) && !parse_string_value(p, &c->comment)) return false;
    if (sql_accept_kw(p, KW_WITH) && !parse_properties(p, &c->props)) return false;
    return true;
}

/* The text of the rest of the statement from token `from` (without a trailing ';'). */
static const char *rest_text(sql_parser *p, const sql_token *from) {
    const sql_token *end = sql_cur(p); /* first token after the parsed part */
    size_t len = end->off > from->off ? end->off - from->off : 0;
    while (len > 0) {
        char c = p->text[from->off + len - 1];
        if (c != ' ' && c != '\n' && c != '\t' && c != '\r') break;
        len--;
    }
    return sql_strndup(p, p->text + from->off, len);
}

/* ---------------------------------------------------------------------------------------------
 * CREATE / DROP / ALTER
 * ------------------------------------------------------------------------------------------- */

static sql_stmt *parse_create_table(sql_parser *p, const sql_token *t, bool or_replace) {
    bool if_not_exists;
    sql_qname name;
    if (!parse_if_not_exists(p, &if_not_exists) || !sql_parse_qname(p, &name)) return NULL;
    /* CTAS column aliases: ( ident , ... ) followed by AS/COMMENT/WITH rather than a type */
    bool ctas_aliases = sql_cur(p)->kind == TK_LPAREN && sql_tok_is_ident(sql_peek(p, 1)) &&
                        (sql_peek_tok(p, 2, TK_COMMA) || sql_peek_tok(p, 2, TK_RPAREN));
    if (sql_is_tok(p, TK_LPAREN) && !ctas_aliases) {
        sql_stmt *s = new_stmt(p, SQL_STMT_CREATE_TABLE, t);
        if (!s) return NULL;
        s->u.create_table.name = name;
        s->u.create_table.or_replace = or_replace;
        s->u.create_table.if_not_exists = if_not_exists;
        sql_advance(p);
        sql_vec cols = {0};
        do {
            sql_column_def *c = sql_vec_push(p, &cols, sizeof *c);
            if (!c || !parse_column_def(p, c)) return NULL;
        } while (sql_accept_tok(p, TK_COMMA));
        if (!sql_expect_tok(p, TK_RPAREN)) return NULL;
        s->u.create_table.columns = cols.data;
        s->u.create_table.n_columns = cols.n;
        if (sql_accept_kw(p, KW_COMMENT) && !parse_string_value(p, &s->u.create_table.comment))
            return NULL;
        if (sql_accept_kw(p, KW_WITH) && !parse_properties(p, &s->u.create_table.props))
            return NULL;
        return s;
    }
    sql_stmt *s = new_stmt(p, SQL_STMT_CREATE_TABLE_AS, t);
    if (!s) return NULL;
    s->u.create_table_as.name = name;
    s->u.create_table_as.or_replace = or_replace;
    s->u.create_table_as.if_not_exists = if_not_exists;
    s->u.create_table_as.with_data = true;
    if (ctas_aliases && !sql_parse_ident_list(p, &s->u.create_table_as.columns)) return NULL;
    if (sql_accept_kw(p, KW_COMMENT) && !parse_string_value(p, &s->u.create_table_as.comment))
        return NULL;
    if (sql_accept_kw(p, KW_WITH) && !parse_properties(p, &s->u.create_table_as.props)) return NULL;
    if (!sql_expect_kw(p, KW_AS)) return NULL;
    s->u.create_table_as.query = sql_parse_query(p);
    if (!s->u.create_table_as.query) return NULL;
    if (sql_is_kw(p, KW_WITH)) {
        sql_advance(p);
        if (sql_accept_kw(p, KW_NO)) s->u.create_table_as.with_data = false;
        if (!sql_expect_kw(p, KW_DATA)) return NULL;
    }
    return s;
}

/* CREATE VIEW v (a, b) AS q becomes the view `SELECT * FROM (q) v (a, b)`, as AST and as stored
 * text, so the aliases need no place of their own in a view definition. The newline before ')'
 * ends a trailing `--` comment of q. */
static bool wrap_view_aliases(sql_parser *p, sql_stmt *s, const sql_token *name_tok,
                              const sql_token *open, const sql_token *close,
                              const sql_ident_list *aliases) {
    const char *parts[] = {"SELECT * FROM (\n", s->u.create_view.text, "\n) ",
                           p->text + name_tok->off, " ", p->text + open->off};
    size_t lens[] = {strlen(parts[0]), strlen(parts[1]), strlen(parts[2]), name_tok->len, 1,
                     close->off + close->len - open->off};
    size_t total = 0;
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) total += lens[i];
    char *text = sql_alloc(p, total + 1);
    sql_ident *alias = sql_alloc(p, sizeof *alias);
    sql_select_item *star = sql_alloc(p, sizeof *star);
    sql_relation *rel = sql_alloc(p, sizeof *rel);
    sql_relation **from = sql_alloc(p, sizeof *from);
    sql_query *q = sql_alloc(p, sizeof *q);
    if (!text || !alias || !star || !rel || !from || !q) return false;
    char *at = text;
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        memcpy(at, parts[i], lens[i]);
        at += lens[i];
    }
    *alias = s->u.create_view.name.parts[s->u.create_view.name.n_parts - 1];
    star->kind = SQL_SELECT_STAR;
    star->line = rel->line = q->line = open->line;
    star->col = rel->col = q->col = open->col;
    rel->kind = SQL_REL_SUBQUERY;
    rel->alias = alias;
    rel->columns = *aliases;
    rel->u.subquery.query = s->u.create_view.query;
    from[0] = rel;
    q->kind = SQL_QUERY_SELECT;
    q->u.select.items = star;
    q->u.select.n_items = 1;
    q->u.select.from = from;
    q->u.select.n_from = 1;
    s->u.create_view.query = q;
    s->u.create_view.text = text;
    return true;
}

static sql_stmt *parse_create(sql_parser *p) {
    const sql_token *t = sql_cur(p);
    sql_advance(p); /* CREATE */
    bool or_replace = false;
    if (sql_accept_kw(p, KW_OR)) {
        if (!sql_expect_kw(p, KW_REPLACE)) return NULL;
        or_replace = true;
    }
    if (sql_accept_kw(p, KW_TABLE)) return parse_create_table(p, t, or_replace);
    if (sql_accept_kw(p, KW_VIEW)) {
        sql_stmt *s = new_stmt(p, SQL_STMT_CREATE_VIEW, t);
        if (!s || !sql_parse_qname(p, &s->u.create_view.name)) return NULL;
        s->u.create_view.or_replace = or_replace;
        /* SQE extension: CREATE VIEW v (a, b) AS ... (column aliases) */
        const sql_token *name_tok = &p->toks[p->pos - 1], *open = sql_cur(p), *close = NULL;
        sql_ident_list aliases = {0};
        if (open->kind == TK_LPAREN) {
            if (!sql_parse_ident_list(p, &aliases)) return NULL;
            close = &p->toks[p->pos - 1];
        }
        if (sql_accept_kw(p, KW_COMMENT) && !parse_string_value(p, &s->u.create_view.comment))
            return NULL;
        if (sql_accept_kw(p, KW_SECURITY)) {
            if (!sql_accept_kw(p, KW_DEFINER) && !sql_expect_kw(p, KW_INVOKER)) return NULL;
        }
        if (!sql_expect_kw(p, KW_AS)) return NULL;
        const sql_token *qt = sql_cur(p);
        s->u.create_view.query = sql_parse_query(p);
        if (!s->u.create_view.query) return NULL;
        s->u.create_view.text = rest_text(p, qt);
        if (!s->u.create_view.text) return NULL;
        if (close && !wrap_view_aliases(p, s, name_tok, open, close, &aliases)) return NULL;
        return s;
    }
    if (!or_replace && sql_accept_kw(p, KW_SCHEMA)) {
        sql_stmt *s = new_stmt(p, SQL_STMT_CREATE_SCHEMA, t);
        if (!s || !parse_if_not_exists(p, &s->u.create_schema.if_not_exists) ||
            !sql_parse_qname(p, &s->u.create_schema.name))
            return NULL;
        if (sql_accept_kw(p, KW_AUTHORIZATION)) {
            sql_ident principal;
            if (!sql_parse_ident(p, &principal)) return NULL;
        }
        if (sql_accept_kw(p, KW_WITH) && !parse_properties(p, &s->u.create_schema.props))
            return NULL;
        return s;
    }
    sql_error_unexpected(p);
    return NULL;
}

static sql_stmt *parse_drop(sql_parser *p) {
    const sql_token *t = sql_cur(p);
    sql_advance(p); /* DROP */
    sql_stmt_kind kind;
    if (sql_accept_kw(p, KW_TABLE))
        kind = SQL_STMT_DROP_TABLE;
    else if (sql_accept_kw(p, KW_VIEW))
        kind = SQL_STMT_DROP_VIEW;
    else if (sql_accept_kw(p, KW_SCHEMA))
        kind = SQL_STMT_DROP_SCHEMA;
    else
        return sql_error_unexpected(p), NULL;
    sql_stmt *s = new_stmt(p, kind, t);
    if (!s || !parse_if_exists(p, &s->u.drop.if_exists) || !sql_parse_qname(p, &s->u.drop.name))
        return NULL;
    if (kind == SQL_STMT_DROP_SCHEMA) {
        if (sql_accept_kw(p, KW_CASCADE))
            s->u.drop.cascade = true;
        else
            sql_accept_kw(p, KW_RESTRICT);
    }
    return s;
}

/* CALL arguments: `( [name =>] expr, ... )`. Unlike table-function arguments, a name may be a
 * reserved word: Iceberg's Spark procedures take `table => 'ns.t'`. */
static bool parse_call_args(sql_parser *p, sql_named_arg **args, int *n_args) {
    if (!sql_expect_tok(p, TK_LPAREN)) return false;
    sql_vec v = {0};
    if (!sql_is_tok(p, TK_RPAREN)) {
        do {
            sql_named_arg *a = sql_vec_push(p, &v, sizeof *a);
            if (!a) return false;
            const sql_token *t = sql_cur(p);
            if ((t->kind == TK_WORD || sql_tok_is_ident(t)) && sql_peek_tok(p, 1, TK_NAMED)) {
                a->name = sql_alloc(p, sizeof *a->name);
                if (!a->name || !sql_ident_from_token(p, t, a->name)) return false;
                sql_advance(p); /* the name */
                sql_advance(p); /* => */
            }
            a->value = sql_parse_expr(p);
            if (!a->value) return false;
        } while (sql_accept_tok(p, TK_COMMA));
    }
    if (!sql_expect_tok(p, TK_RPAREN)) return false;
    *args = v.data;
    *n_args = v.n;
    return true;
}

/* After ALTER TABLE t: CREATE [OR REPLACE] BRANCH|TAG [IF NOT EXISTS] name [AS OF VERSION v]
 * [RETAIN n DAYS|HOURS|MINUTES], or DROP BRANCH|TAG [IF EXISTS] name (Spark's Iceberg SQL
 * extensions). */
static bool parse_alter_ref(sql_parser *p, sql_stmt *s) {
    typeof(s->u.alter) *a = &s->u.alter;
    if (sql_accept_kw(p, KW_DROP)) {
        a->action = sql_accept_kw(p, KW_BRANCH) ? SQL_ALTER_DROP_BRANCH : SQL_ALTER_DROP_TAG;
        if (a->action == SQL_ALTER_DROP_TAG && !sql_expect_kw(p, KW_TAG)) return false;
        return parse_if_exists(p, &a->sub_if_exists) && sql_parse_ident(p, &a->name);
    }
    if (!sql_expect_kw(p, KW_CREATE)) return false;
    if (sql_accept_kw(p, KW_OR)) {
        if (!sql_expect_kw(p, KW_REPLACE)) return false;
        a->ref_or_replace = true;
    }
    if (sql_accept_kw(p, KW_BRANCH)) {
        a->action = SQL_ALTER_CREATE_BRANCH;
    } else {
        if (!sql_expect_kw(p, KW_TAG)) return false;
        a->action = SQL_ALTER_CREATE_TAG;
    }
    if (!parse_if_not_exists(p, &a->sub_if_not_exists) || !sql_parse_ident(p, &a->name))
        return false;
    if (a->ref_or_replace && a->sub_if_not_exists)
        return sql_error_at(p, sql_cur(p), "OR REPLACE and IF NOT EXISTS cannot both be specified");
    if (sql_accept_kw(p, KW_AS)) {
        if (!sql_expect_kw(p, KW_OF) || !sql_expect_kw(p, KW_VERSION)) return false;
        a->ref_as_of = sql_parse_expr(p);
        if (!a->ref_as_of) return false;
    }
    if (sql_accept_kw(p, KW_RETAIN)) {
        a->ref_retain = sql_parse_expr(p);
        if (!a->ref_retain) return false;
        const sql_token *u = sql_cur(p);
        static const char *const units[] = {"DAYS", "HOURS", "MINUTES"};
        for (uint8_t i = 0; i < 3; i++)
            if (u->kind == TK_WORD && u->len == strlen(units[i]) &&
                !strncasecmp(p->text + u->off, units[i], u->len)) {
                a->ref_retain_unit = i;
                sql_advance(p);
                return true;
            }
        sql_expect_note(p, "'DAYS'");
        sql_expect_note(p, "'HOURS'");
        sql_expect_note(p, "'MINUTES'");
        return sql_error_unexpected(p);
    }
    return true;
}

static sql_stmt *parse_alter(sql_parser *p) {
    const sql_token *t = sql_cur(p);
    sql_advance(p); /* ALTER */
    if (!sql_expect_kw(p, KW_TABLE)) return NULL;
    sql_stmt *s = new_stmt(p, SQL_STMT_ALTER_TABLE, t);
    if (!s) return NULL;
    typeof(s->u.alter) *a = &s->u.alter;
    if (!parse_if_exists(p, &a->if_exists) || !sql_parse_qname(p, &a->table)) return NULL;
    if (sql_is_kw(p, KW_CREATE) ||
        (sql_is_kw(p, KW_DROP) && (sql_peek_kw(p, 1, KW_BRANCH) || sql_peek_kw(p, 1, KW_TAG))))
        return parse_alter_ref(p, s) ? s : NULL;
    if (sql_accept_kw(p, KW_ADD)) {
        if (!sql_expect_kw(p, KW_COLUMN)) return NULL;
        a->action = SQL_ALTER_ADD_COLUMN;
        if (!parse_if_not_exists(p, &a->sub_if_not_exists) || !parse_column_def(p, &a->column))
            return NULL;
        return s;
    }
    if (sql_accept_kw(p, KW_DROP)) {
        if (!sql_expect_kw(p, KW_COLUMN)) return NULL;
        a->action = SQL_ALTER_DROP_COLUMN;
        if (!parse_if_exists(p, &a->sub_if_exists) || !sql_parse_ident(p, &a->name)) return NULL;
        return s;
    }
    if (sql_accept_kw(p, KW_RENAME)) {
        if (sql_accept_kw(p, KW_TO)) {
            a->action = SQL_ALTER_RENAME_TABLE;
            return sql_parse_qname(p, &a->new_table) ? s : NULL;
        }
        if (!sql_expect_kw(p, KW_COLUMN)) return NULL;
        a->action = SQL_ALTER_RENAME_COLUMN;
        if (!parse_if_exists(p, &a->sub_if_exists) || !sql_parse_ident(p, &a->name) ||
            !sql_expect_kw(p, KW_TO) || !sql_parse_ident(p, &a->new_name))
            return NULL;
        return s;
    }
    if (sql_accept_kw(p, KW_SET)) {
        if (!sql_expect_kw(p, KW_PROPERTIES)) return NULL;
        a->action = SQL_ALTER_SET_PROPERTIES;
        /* Trino writes SET PROPERTIES a = 1, b = 2 without parentheses */
        sql_vec v = {0};
        do {
            sql_property *prop = sql_vec_push(p, &v, sizeof *prop);
            if (!prop || !sql_parse_ident(p, &prop->name) || !sql_expect_tok(p, TK_EQ)) return NULL;
            if (sql_is_kw(p, KW_DEFAULT) &&
                (sql_peek_tok(p, 1, TK_COMMA) || sql_peek_tok(p, 1, TK_EOF) ||
                 sql_peek_tok(p, 1, TK_SEMI))) {
                sql_advance(p);
            } else {
                prop->value = sql_parse_expr(p);
                if (!prop->value) return NULL;
            }
        } while (sql_accept_tok(p, TK_COMMA));
        a->props.items = v.data;
        a->props.n = v.n;
        return s;
    }
    if (sql_accept_kw(p, KW_ALTER)) {
        if (!sql_expect_kw(p, KW_COLUMN) || !sql_parse_ident(p, &a->name)) return NULL;
        if (sql_accept_kw(p, KW_SET)) {
            a->action = SQL_ALTER_SET_COLUMN_TYPE;
            if (!sql_expect_kw(p, KW_DATA) || !sql_expect_kw(p, KW_TYPE) ||
                !sql_parse_type(p, &a->type))
                return NULL;
            return s;
        }
        if (!sql_expect_kw(p, KW_DROP) || !sql_expect_kw(p, KW_NOT) || !sql_expect_kw(p, KW_NULL))
            return NULL;
        a->action = SQL_ALTER_DROP_NOT_NULL;
        return s;
    }
    sql_error_unexpected(p);
    return NULL;
}

/* ---------------------------------------------------------------------------------------------
 * DML
 * ------------------------------------------------------------------------------------------- */

static sql_stmt *parse_insert(sql_parser *p) {
    const sql_token *t = sql_cur(p);
    sql_advance(p); /* INSERT */
    if (!sql_expect_kw(p, KW_INTO)) return NULL;
    sql_stmt *s = new_stmt(p, SQL_STMT_INSERT, t);
    if (!s || !sql_parse_qname(p, &s->u.insert.table)) return NULL;
    if (sql_cur(p)->kind == TK_LPAREN && sql_tok_is_ident(sql_peek(p, 1)) &&
        !sql_tok_starts_query(sql_peek(p, 1))) {
        if (!sql_parse_ident_list(p, &s->u.insert.columns)) return NULL;
    }
    s->u.insert.query = sql_parse_query(p);
    return s->u.insert.query ? s : NULL;
}

static bool parse_assignments(sql_parser *p, sql_assignment **out, int *n) {
    sql_vec v = {0};
    do {
        sql_assignment *a = sql_vec_push(p, &v, sizeof *a);
        if (!a || !sql_parse_ident(p, &a->column) || !sql_expect_tok(p, TK_EQ)) return false;
        a->value = sql_parse_expr(p);
        if (!a->value) return false;
    } while (sql_accept_tok(p, TK_COMMA));
    *out = v.data;
    *n = v.n;
    return true;
}

static sql_stmt *parse_merge(sql_parser *p) {
    const sql_token *t = sql_cur(p);
    sql_advance(p); /* MERGE */
    if (!sql_expect_kw(p, KW_INTO)) return NULL;
    sql_stmt *s = new_stmt(p, SQL_STMT_MERGE, t);
    if (!s || !sql_parse_qname(p, &s->u.merge.target)) return NULL;
    bool as = sql_accept_kw(p, KW_AS);
    if (as || (sql_is_ident(p) && !sql_is_kw(p, KW_USING))) {
        s->u.merge.alias = sql_alloc(p, sizeof(sql_ident));
        if (!s->u.merge.alias || !sql_parse_ident(p, s->u.merge.alias)) return NULL;
    }
    if (!sql_expect_kw(p, KW_USING)) return NULL;
    s->u.merge.source = sql_parse_relation(p);
    if (!s->u.merge.source || !sql_expect_kw(p, KW_ON)) return NULL;
    s->u.merge.on = sql_parse_expr(p);
    if (!s->u.merge.on) return NULL;
    sql_vec cases = {0};
    if (!sql_is_kw(p, KW_WHEN)) return sql_error_unexpected(p), NULL;
    while (sql_is_kw(p, KW_WHEN)) {
        const sql_token *wt = sql_cur(p);
        sql_advance(p);
        sql_merge_case *c = sql_vec_push(p, &cases, sizeof *c);
        if (!c) return NULL;
        c->line = wt->line;
        c->col = wt->col;
        c->matched = !sql_accept_kw(p, KW_NOT);
        if (!sql_expect_kw(p, KW_MATCHED)) return NULL;
        if (sql_accept_kw(p, KW_AND)) {
            c->cond = sql_parse_expr(p);
            if (!c->cond) return NULL;
        }
        if (!sql_expect_kw(p, KW_THEN)) return NULL;
        if (c->matched) {
            if (sql_accept_kw(p, KW_DELETE)) {
                c->action = SQL_MERGE_DELETE;
            } else if (sql_expect_kw(p, KW_UPDATE)) {
                c->action = SQL_MERGE_UPDATE;
                if (!sql_expect_kw(p, KW_SET) || !parse_assignments(p, &c->sets, &c->n_sets))
                    return NULL;
            } else {
                return NULL;
            }
        } else {
            if (!sql_expect_kw(p, KW_INSERT)) return NULL;
            c->action = SQL_MERGE_INSERT;
            if (sql_is_tok(p, TK_LPAREN) && !sql_parse_ident_list(p, &c->columns)) return NULL;
            if (!sql_expect_kw(p, KW_VALUES) || !sql_expect_tok(p, TK_LPAREN) ||
                !sql_parse_expr_list(p, &c->values) || !sql_expect_tok(p, TK_RPAREN))
                return NULL;
        }
    }
    s->u.merge.cases = cases.data;
    s->u.merge.n_cases = cases.n;
    return s;
}

/* ---------------------------------------------------------------------------------------------
 * SHOW / DESCRIBE
 * ------------------------------------------------------------------------------------------- */

static bool parse_show_like(sql_parser *p, sql_stmt *s) {
    if (sql_accept_kw(p, KW_LIKE)) {
        if (!parse_string_value(p, &s->u.show.like)) return false;
        if (sql_accept_kw(p, KW_ESCAPE) && !parse_string_value(p, &s->u.show.escape)) return false;
    }
    return true;
}

static bool parse_show_target(sql_parser *p, sql_stmt *s, bool required) {
    if (!required && !sql_is_kw(p, KW_FROM) && !sql_is_kw(p, KW_IN)) return true;
    if (!sql_accept_kw(p, KW_FROM) && !sql_expect_kw(p, KW_IN)) return false;
    s->u.show.target = sql_alloc(p, sizeof(sql_qname));
    return s->u.show.target && sql_parse_qname(p, s->u.show.target);
}

static sql_stmt *parse_show(sql_parser *p) {
    const sql_token *t = sql_cur(p);
    sql_advance(p); /* SHOW */
    sql_stmt *s = new_stmt(p, SQL_STMT_SHOW, t);
    if (!s) return NULL;
    if (sql_accept_kw(p, KW_CATALOGS)) {
        s->u.show.what = SQL_SHOW_CATALOGS;
        return parse_show_like(p, s) ? s : NULL;
    }
    if (sql_accept_kw(p, KW_SCHEMAS)) {
        s->u.show.what = SQL_SHOW_SCHEMAS;
        return parse_show_target(p, s, false) && parse_show_like(p, s) ? s : NULL;
    }
    if (sql_accept_kw(p, KW_TABLES)) {
        s->u.show.what = SQL_SHOW_TABLES;
        return parse_show_target(p, s, false) && parse_show_like(p, s) ? s : NULL;
    }
    if (sql_accept_kw(p, KW_COLUMNS)) {
        s->u.show.what = SQL_SHOW_COLUMNS;
        return parse_show_target(p, s, true) && parse_show_like(p, s) ? s : NULL;
    }
    if (sql_accept_kw(p, KW_FUNCTIONS)) {
        s->u.show.what = SQL_SHOW_FUNCTIONS;
        return parse_show_target(p, s, false) && parse_show_like(p, s) ? s : NULL;
    }
    if (sql_accept_kw(p, KW_SESSION)) {
        s->u.show.what = SQL_SHOW_SESSION;
        return parse_show_like(p, s) ? s : NULL;
    }
    if (sql_accept_kw(p, KW_STATS)) {
        if (!sql_expect_kw(p, KW_FOR)) return NULL;
        s->u.show.what = SQL_SHOW_STATS;
    } else if (sql_accept_kw(p, KW_CREATE)) {
        if (sql_accept_kw(p, KW_TABLE))
            s->u.show.what = SQL_SHOW_CREATE_TABLE;
        else if (sql_accept_kw(p, KW_VIEW))
            s->u.show.what = SQL_SHOW_CREATE_VIEW;
        else if (sql_expect_kw(p, KW_SCHEMA))
            s->u.show.what = SQL_SHOW_CREATE_SCHEMA;
        else
            return NULL;
    } else {
        sql_error_unexpected(p);
        return NULL;
    }
    s->u.show.target = sql_alloc(p, sizeof(sql_qname));
    return s->u.show.target && sql_parse_qname(p, s->u.show.target) ? s : NULL;
}

static sql_stmt *parse_describe(sql_parser *p) {
    const sql_token *t = sql_cur(p);
    sql_advance(p); /* DESCRIBE / DESC */
    if ((sql_is_kw(p, KW_INPUT) || sql_is_kw(p, KW_OUTPUT)) && sql_tok_is_ident(sql_peek(p, 1))) {
        sql_stmt *s = new_stmt(p, sql_cur(p)->kw == KW_INPUT ? SQL_STMT_DESCRIBE_INPUT
                                                             : SQL_STMT_DESCRIBE_OUTPUT, t);
        sql_advance(p);
        return s && sql_parse_ident(p, &s->u.prepared) ? s : NULL;
    }
    sql_stmt *s = new_stmt(p, SQL_STMT_SHOW, t);
    if (!s) return NULL;
    s->u.show.what = SQL_SHOW_COLUMNS;
    s->u.show.target = sql_alloc(p, sizeof(sql_qname));
    return s->u.show.target && sql_parse_qname(p, s->u.show.target) ? s : NULL;
}

/* ---------------------------------------------------------------------------------------------
 * Sessions, prepared statements, transactions
 * ------------------------------------------------------------------------------------------- */

static bool parse_transaction_modes(sql_parser *p) {
    if (sql_is_tok(p, TK_EOF) || sql_is_tok(p, TK_SEMI)) return true;
    do {
        if (sql_accept_kw(p, KW_ISOLATION)) {
            if (!sql_expect_kw(p, KW_LEVEL)) return false;
            if (sql_accept_kw(p, KW_SERIALIZABLE)) continue;
            if (sql_accept_kw(p, KW_REPEATABLE)) {
                if (!sql_expect_kw(p, KW_READ)) return false;
                continue;
            }
            if (!sql_expect_kw(p, KW_READ)) return false;
            if (!sql_accept_kw(p, KW_COMMITTED) && !sql_expect_kw(p, KW_UNCOMMITTED)) return false;
        } else if (sql_accept_kw(p, KW_READ)) {
            if (!sql_accept_kw(p, KW_ONLY) && !sql_expect_kw(p, KW_WRITE)) return false;
        } else {
            return sql_error_unexpected(p);
        }
    } while (sql_accept_tok(p, TK_COMMA));
    return true;
}

static sql_stmt *parse_prepare(sql_parser *p) {
    const sql_token *t = sql_cur(p);
    sql_advance(p); /* PREPARE */
    sql_stmt *s = new_stmt(p, SQL_STMT_PREPARE, t);
    if (!s || !sql_parse_ident(p, &s->u.prepare.name) || !sql_expect_kw(p, KW_FROM)) return NULL;
    const sql_token *st = sql_cur(p);
    int params_before = p->n_params;
    s->u.prepare.stmt = sql_parse_statement(p);
    if (!s->u.prepare.stmt) return NULL;
    s->u.prepare.stmt->n_params = p->n_params - params_before;
    s->u.prepare.text = rest_text(p, st);
    return s->u.prepare.text ? s : NULL;
}

/* ---------------------------------------------------------------------------------------------
 * COPY (SQE extension, DuckDB's syntax)
 * ------------------------------------------------------------------------------------------- */

/* ( name [=] value, ... ): the '=' is optional so DuckDB's (FORMAT parquet) reads too; a bare
 * word value parses as a column reference, which the engine reads as the word. */
static bool parse_copy_options(sql_parser *p, sql_property_list *out) {
    if (!sql_expect_tok(p, TK_LPAREN)) return false;
    sql_vec v = {0};
    do {
        sql_property *prop = sql_vec_push(p, &v, sizeof *prop);
        if (!prop || !sql_parse_ident(p, &prop->name)) return false;
        sql_accept_tok(p, TK_EQ);
        prop->value = sql_parse_expr(p);
        if (!prop->value) return false;
    } while (sql_accept_tok(p, TK_COMMA));
    if (!sql_expect_tok(p, TK_RPAREN)) return false;
    out->items = v.data;
    out->n = v.n;
    return true;
}

/* COPY ( query ) TO 'path' [WITH] [( options )] | COPY table TO 'path' [WITH] [( options )] */
static sql_stmt *parse_copy(sql_parser *p) {
    const sql_token *t = sql_cur(p);
    sql_advance(p); /* COPY */
    sql_stmt *s = new_stmt(p, SQL_STMT_COPY, t);
    if (!s) return NULL;
    const sql_token *qt = sql_cur(p);
    if (qt->kind == TK_LPAREN) {
        s->u.copy.query = sql_parse_query(p);
        if (!s->u.copy.query) return NULL;
    } else {
        sql_query *q = sql_alloc(p, sizeof *q);
        if (!q) return NULL;
        q->kind = SQL_QUERY_TABLE;
        q->line = qt->line;
        q->col = qt->col;
        if (!sql_parse_qname(p, &q->u.table)) return NULL;
        s->u.copy.query = q;
    }
    if (!sql_expect_kw(p, KW_TO)) return NULL;
    const sql_token *pt = sql_cur(p);
    s->u.copy.path_line = pt->line;
    s->u.copy.path_col = pt->col;
    size_t len;
    if (!sql_parse_string(p, &s->u.copy.path, &len)) return NULL;
    bool with = sql_accept_kw(p, KW_WITH);
    if ((with || sql_is_tok(p, TK_LPAREN)) && !parse_copy_options(p, &s->u.copy.options))
        return NULL;
    return s;
}

static sql_stmt *parse_explain(sql_parser *p) {
    const sql_token *t = sql_cur(p);
    sql_advance(p); /* EXPLAIN */
    sql_stmt *s = new_stmt(p, SQL_STMT_EXPLAIN, t);
    if (!s) return NULL;
    s->u.explain.analyze = sql_accept_kw(p, KW_ANALYZE);
    s->u.explain.verbose = sql_accept_kw(p, KW_VERBOSE);
    /* ( option, ... ) unless the parenthesis starts the explained query */
    if (sql_cur(p)->kind == TK_LPAREN &&
        (sql_peek_kw(p, 1, KW_TYPE) || sql_peek_kw(p, 1, KW_FORMAT))) {
        sql_advance(p);
        do {
            if (sql_accept_kw(p, KW_TYPE)) {
                if (sql_accept_kw(p, KW_LOGICAL))
                    s->u.explain.type = SQL_EXPLAIN_LOGICAL;
                else if (sql_accept_kw(p, KW_DISTRIBUTED))
                    s->u.explain.type = SQL_EXPLAIN_DISTRIBUTED;
                else if (sql_accept_kw(p, KW_IO))
                    s->u.explain.type = SQL_EXPLAIN_IO;
                else if (sql_expect_kw(p, KW_VALIDATE))
                    s->u.explain.type = SQL_EXPLAIN_VALIDATE;
                else
                    return NULL;
            } else if (sql_expect_kw(p, KW_FORMAT)) {
                if (sql_accept_kw(p, KW_TEXT))
                    s->u.explain.format = SQL_EXPLAIN_FORMAT_TEXT;
                else if (sql_accept_kw(p, KW_JSON))
                    s->u.explain.format = SQL_EXPLAIN_FORMAT_JSON;
                else if (sql_expect_kw(p, KW_GRAPHVIZ))
                    s->u.explain.format = SQL_EXPLAIN_FORMAT_GRAPHVIZ;
                else
                    return NULL;
            } else {
                return NULL;
            }
        } while (sql_accept_tok(p, TK_COMMA));
        if (!sql_expect_tok(p, TK_RPAREN)) return NULL;
    }
    int params_before = p->n_params;
    s->u.explain.stmt = sql_parse_statement(p);
    if (!s->u.explain.stmt) return NULL;
    s->u.explain.stmt->n_params = p->n_params - params_before;
    return s;
}

/* ---------------------------------------------------------------------------------------------
 * Dispatch
 * ------------------------------------------------------------------------------------------- */

static sql_stmt *parse_statement_inner(sql_parser *p) {
    const sql_token *t = sql_cur(p);
    if (sql_tok_starts_query(t) || t->kind == TK_LPAREN) {
        sql_stmt *s = new_stmt(p, SQL_STMT_QUERY, t);
        if (!s) return NULL;
        s->u.query = sql_parse_query(p);
        return s->u.query ? s : NULL;
    }
    /* Record the query starters for the "Expecting: ..." list (they did not match). */
    sql_is_kw(p, KW_SELECT);
    sql_is_kw(p, KW_WITH);
    sql_is_kw(p, KW_VALUES);
    sql_is_kw(p, KW_TABLE);
    sql_is_tok(p, TK_LPAREN);
    if (sql_is_kw(p, KW_EXPLAIN)) return parse_explain(p);
    if (sql_is_kw(p, KW_COPY)) return parse_copy(p);
    if (sql_is_kw(p, KW_CREATE)) return parse_create(p);
    if (sql_is_kw(p, KW_DROP)) return parse_drop(p);
    if (sql_is_kw(p, KW_ALTER)) return parse_alter(p);
    if (sql_is_kw(p, KW_INSERT)) return parse_insert(p);
    if (sql_is_kw(p, KW_MERGE)) return parse_merge(p);
    if (sql_is_kw(p, KW_SHOW)) return parse_show(p);
    if (sql_is_kw(p, KW_PREPARE)) return parse_prepare(p);
    if (sql_is_kw(p, KW_DESCRIBE) || sql_is_kw(p, KW_DESC)) return parse_describe(p);
    if (sql_accept_kw(p, KW_DELETE)) {
        if (!sql_expect_kw(p, KW_FROM)) return NULL;
        sql_stmt *s = new_stmt(p, SQL_STMT_DELETE, t);
        if (!s || !sql_parse_qname(p, &s->u.delete_.table)) return NULL;
        if (sql_accept_kw(p, KW_WHERE)) {
            s->u.delete_.where = sql_parse_expr(p);
            if (!s->u.delete_.where) return NULL;
        }
        return s;
    }
    if (sql_accept_kw(p, KW_UPDATE)) {
        sql_stmt *s = new_stmt(p, SQL_STMT_UPDATE, t);
        if (!s || !sql_parse_qname(p, &s->u.update.table) || !sql_expect_kw(p, KW_SET) ||
            !parse_assignments(p, &s->u.update.sets, &s->u.update.n_sets))
            return NULL;
        if (sql_accept_kw(p, KW_WHERE)) {
            s->u.update.where = sql_parse_expr(p);
            if (!s->u.update.where) return NULL;
        }
        return s;
    }
    if (sql_accept_kw(p, KW_TRUNCATE)) {
        sql_stmt *s = new_stmt(p, SQL_STMT_TRUNCATE, t);
        if (!s || !sql_expect_kw(p, KW_TABLE) || !sql_parse_qname(p, &s->u.drop.name)) return NULL;
        return s;
    }
    if (sql_accept_kw(p, KW_USE)) {
        sql_stmt *s = new_stmt(p, SQL_STMT_USE, t);
        if (!s || !sql_parse_qname(p, &s->u.use)) return NULL;
        if (s->u.use.n_parts > 2) {
            sql_ident *extra = &s->u.use.parts[2];
            sql_error_at(p, &(sql_token){.kind = TK_WORD, .line = extra->line, .col = extra->col},
                         "USE takes a schema or catalog.schema, not '%s'", extra->text);
            return NULL;
        }
        return s;
    }
    if (sql_accept_kw(p, KW_SET)) {
        if (!sql_expect_kw(p, KW_SESSION)) return NULL;
        sql_stmt *s = new_stmt(p, SQL_STMT_SET_SESSION, t);
        if (!s || !sql_parse_qname(p, &s->u.set_session.name) || !sql_expect_tok(p, TK_EQ))
            return NULL;
        s->u.set_session.value = sql_parse_expr(p);
        return s->u.set_session.value ? s : NULL;
    }
    if (sql_accept_kw(p, KW_RESET)) {
        if (!sql_expect_kw(p, KW_SESSION)) return NULL;
        sql_stmt *s = new_stmt(p, SQL_STMT_RESET_SESSION, t);
        return s && sql_parse_qname(p, &s->u.set_session.name) ? s : NULL;
    }
    if (sql_accept_kw(p, KW_EXECUTE)) {
        sql_stmt *s = new_stmt(p, SQL_STMT_EXECUTE, t);
        if (!s) return NULL;
        if (sql_accept_kw(p, KW_IMMEDIATE)) { /* EXECUTE IMMEDIATE 'statement' [USING ...] */
            size_t len;
            if (!sql_parse_string(p, &s->u.execute.immediate, &len)) return NULL;
        } else if (!sql_parse_ident(p, &s->u.execute.name)) {
            return NULL;
        }
        if (sql_accept_kw(p, KW_USING) && !sql_parse_expr_list(p, &s->u.execute.args)) return NULL;
        return s;
    }
    if (sql_accept_kw(p, KW_DEALLOCATE)) {
        sql_stmt *s = new_stmt(p, SQL_STMT_DEALLOCATE, t);
        if (!s || !sql_expect_kw(p, KW_PREPARE) || !sql_parse_ident(p, &s->u.prepared)) return NULL;
        return s;
    }
    if (sql_accept_kw(p, KW_START)) {
        sql_stmt *s = new_stmt(p, SQL_STMT_START_TRANSACTION, t);
        if (!s || !sql_expect_kw(p, KW_TRANSACTION) || !parse_transaction_modes(p)) return NULL;
        return s;
    }
    if (sql_accept_kw(p, KW_BEGIN)) {
        sql_stmt *s = new_stmt(p, SQL_STMT_START_TRANSACTION, t);
        if (!s) return NULL;
        if (!sql_accept_kw(p, KW_WORK)) sql_accept_kw(p, KW_TRANSACTION);
        return parse_transaction_modes(p) ? s : NULL;
    }
    if (sql_accept_kw(p, KW_COMMIT)) {
        sql_accept_kw(p, KW_WORK);
        return new_stmt(p, SQL_STMT_COMMIT, t);
    }
    if (sql_accept_kw(p, KW_ROLLBACK)) {
        sql_accept_kw(p, KW_WORK);
        return new_stmt(p, SQL_STMT_ROLLBACK, t);
    }
    if (sql_accept_kw(p, KW_CALL)) {
        sql_stmt *s = new_stmt(p, SQL_STMT_CALL, t);
        if (!s || !sql_parse_qname(p, &s->u.call.name) ||
            !parse_call_args(p, &s->u.call.args, &s->u.call.n_args))
            return NULL;
        return s;
    }
    sql_error_unexpected(p);
    return NULL;
}

sql_stmt *sql_parse_statement(sql_parser *p) {
    if (!sql_depth_enter(p)) return NULL;
    sql_stmt *s = parse_statement_inner(p);
    if (!s) return NULL;
    sql_depth_leave(p);
    return s;
}
