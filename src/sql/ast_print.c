/*
 * ast_print.c: S-expression dump of the AST, for unit tests and debugging.
 *
 * INTERFACE
 *   sql_ast_print, sql_expr_print, sql_query_print   append a dump to a strbuf
 *   sql_op_name, sql_interval_field_name              names of enum values
 *
 * NOTES
 *   - Format: (kind child child ...). Names print folded (a.b), quoted ones in double quotes
 *     ("Mixed"); strings in single quotes with '' escapes; types in angle brackets
 *     (<decimal(12,2)>); parameters as ?1, ?2. Optional parts print only when present.
 *     Example: SELECT a, count(*) FROM t WHERE a > 1 GROUP BY a
 *       (query (select (items a (call count *)) (from (table t)) (where (> a 1))
 *        (group-by a)))
 *   - The tree depth is bounded by the parser (SQL_MAX_DEPTH), so plain recursion is safe.
 */
#include <stdio.h>
#include <string.h>

#include "sql/sql.h"

static void print_expr(strbuf *sb, const sql_expr *e);
static void print_query(strbuf *sb, const sql_query *q);
static void print_relation(strbuf *sb, const sql_relation *r);
static void print_stmt(strbuf *sb, const sql_stmt *s);

const char *sql_op_name(int op) {
    switch ((sql_op)op) {
    case SQL_OP_NONE: return "";
    case SQL_OP_ADD: return "+";
    case SQL_OP_SUB: return "-";
    case SQL_OP_MUL: return "*";
    case SQL_OP_DIV: return "/";
    case SQL_OP_MOD: return "%";
    case SQL_OP_CONCAT: return "||";
    case SQL_OP_EQ: return "=";
    case SQL_OP_NE: return "<>";
    case SQL_OP_LT: return "<";
    case SQL_OP_LE: return "<=";
    case SQL_OP_GT: return ">";
    case SQL_OP_GE: return ">=";
    case SQL_OP_IS_DISTINCT: return "is-distinct-from";
    case SQL_OP_IS_NOT_DISTINCT: return "is-not-distinct-from";
    case SQL_OP_NEG: return "-";
    case SQL_OP_PLUS: return "+";
    case SQL_OP_NOT: return "not";
    }
    return "?";
}

const char *sql_interval_field_name(int field) {
    switch ((sql_interval_field)field) {
    case SQL_IFIELD_NONE: return "";
    case SQL_IFIELD_YEAR: return "year";
    case SQL_IFIELD_MONTH: return "month";
    case SQL_IFIELD_DAY: return "day";
    case SQL_IFIELD_HOUR: return "hour";
    case SQL_IFIELD_MINUTE: return "minute";
    case SQL_IFIELD_SECOND: return "second";
    }
    return "?";
}

static void print_ident(strbuf *sb, const sql_ident *id) {
    if (!id->quoted) {
        strbuf_puts(sb, id->name);
        return;
    }
    strbuf_putc(sb, '"');
    for (const char *c = id->name; *c; c++) {
        if (*c == '"') strbuf_putc(sb, '"');
        strbuf_putc(sb, *c);
    }
    strbuf_putc(sb, '"');
}

static void print_qname(strbuf *sb, const sql_qname *q) {
    for (int i = 0; i < q->n_parts; i++) {
        if (i) strbuf_putc(sb, '.');
        print_ident(sb, &q->parts[i]);
    }
}

static void print_idents(strbuf *sb, const sql_ident_list *l) {
    strbuf_putc(sb, '(');
    for (int i = 0; i < l->n; i++) {
        if (i) strbuf_putc(sb, ' ');
        print_ident(sb, &l->items[i]);
    }
    strbuf_putc(sb, ')');
}

static void print_string(strbuf *sb, const char *s, size_t len) {
    strbuf_putc(sb, '\'');
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\'') {
            strbuf_puts(sb, "''");
        } else if (c < 0x20 || c == 0x7F) {
            strbuf_printf(sb, "\\x%02x", c);
        } else {
            strbuf_putc(sb, (char)c);
        }
    }
    strbuf_putc(sb, '\'');
}

static void print_type(strbuf *sb, const sql_type_name *t) {
    strbuf_putc(sb, '<');
    strbuf_puts(sb, t->text ? t->text : "");
    strbuf_putc(sb, '>');
}

static void print_exprs(strbuf *sb, const sql_expr_list *l) {
    for (int i = 0; i < l->n; i++) {
        strbuf_putc(sb, ' ');
        print_expr(sb, l->items[i]);
    }
}

static void print_order(strbuf *sb, const char *head, const sql_order_list *l) {
    if (l->n == 0) return;
    strbuf_printf(sb, " (%s", head);
    for (int i = 0; i < l->n; i++) {
        const sql_order_item *it = &l->items[i];
        strbuf_putc(sb, ' ');
        if (!it->desc && it->nulls == SQL_NULLS_ORDER_DEFAULT) {
            print_expr(sb, it->expr);
            continue;
        }
        strbuf_puts(sb, it->desc ? "(desc " : "(asc ");
        print_expr(sb, it->expr);
        if (it->nulls == SQL_NULLS_FIRST) strbuf_puts(sb, " nulls-first");
        if (it->nulls == SQL_NULLS_LAST) strbuf_puts(sb, " nulls-last");
        strbuf_putc(sb, ')');
    }
    strbuf_putc(sb, ')');
}

static void print_frame_bound(strbuf *sb, const sql_frame_bound *b) {
    switch ((sql_bound_kind)b->kind) {
    case SQL_BOUND_UNBOUNDED_PRECEDING: strbuf_puts(sb, "unbounded-preceding"); return;
    case SQL_BOUND_UNBOUNDED_FOLLOWING: strbuf_puts(sb, "unbounded-following"); return;
    case SQL_BOUND_CURRENT_ROW: strbuf_puts(sb, "current-row"); return;
    case SQL_BOUND_PRECEDING: strbuf_puts(sb, "(preceding "); break;
    case SQL_BOUND_FOLLOWING: strbuf_puts(sb, "(following "); break;
    }
    print_expr(sb, b->offset);
    strbuf_putc(sb, ')');
}

static void print_window(strbuf *sb, const sql_window_spec *w) {
    strbuf_puts(sb, "(window");
    if (w->base) {
        strbuf_putc(sb, ' ');
        print_ident(sb, w->base);
    }
    if (w->partition_by.n) {
        strbuf_puts(sb, " (partition-by");
        print_exprs(sb, &w->partition_by);
        strbuf_putc(sb, ')');
    }
    print_order(sb, "order-by", &w->order_by);
    if (w->frame) {
        const sql_window_frame *f = w->frame;
        strbuf_printf(sb, " (%s ", f->unit == SQL_FRAME_ROWS    ? "rows"
                                   : f->unit == SQL_FRAME_RANGE ? "range"
                                                                : "groups");
        print_frame_bound(sb, &f->start);
        if (f->has_end) {
            strbuf_putc(sb, ' ');
            print_frame_bound(sb, &f->end);
        }
        strbuf_putc(sb, ')');
    }
    strbuf_putc(sb, ')');
}

static const char *current_name(int which) {
    switch ((sql_current_kind)which) {
    case SQL_CURRENT_DATE: return "current_date";
    case SQL_CURRENT_TIME: return "current_time";
    case SQL_CURRENT_TIMESTAMP: return "current_timestamp";
    case SQL_LOCALTIME: return "localtime";
    case SQL_LOCALTIMESTAMP: return "localtimestamp";
    case SQL_CURRENT_USER: return "current_user";
    case SQL_CURRENT_CATALOG: return "current_catalog";
    case SQL_CURRENT_SCHEMA: return "current_schema";
    case SQL_CURRENT_PATH: return "current_path";
    case SQL_CURRENT_ROLE: return "current_role";
    }
    return "?";
}

static void print_expr(strbuf *sb, const sql_expr *e) {
    if (!e) {
        strbuf_puts(sb, "<null>");
        return;
    }
    switch ((sql_expr_kind)e->kind) {
    case SQL_EXPR_NULL: strbuf_puts(sb, "null"); return;
    case SQL_EXPR_BOOL: strbuf_puts(sb, e->u.bool_value ? "true" : "false"); return;
    case SQL_EXPR_INTEGER: strbuf_puts(sb, e->u.num.text); return;
    case SQL_EXPR_DECIMAL: strbuf_printf(sb, "(decimal %s)", e->u.num.text); return;
    case SQL_EXPR_DOUBLE: strbuf_printf(sb, "(double %s)", e->u.num.text); return;
    case SQL_EXPR_STRING: print_string(sb, e->u.str.data, e->u.str.len); return;
    case SQL_EXPR_VARBINARY:
        strbuf_puts(sb, "X'");
        for (size_t i = 0; i < e->u.str.len; i++)
            strbuf_printf(sb, "%02x", (unsigned char)e->u.str.data[i]);
        strbuf_putc(sb, '\'');
        return;
    case SQL_EXPR_TYPED:
        strbuf_printf(sb, "(%s ", e->u.typed.type.text);
        print_string(sb, e->u.typed.value, e->u.typed.len);
        strbuf_putc(sb, ')');
        return;
    case SQL_EXPR_INTERVAL:
        strbuf_puts(sb, e->u.interval.sign < 0 ? "(interval - " : "(interval ");
        print_string(sb, e->u.interval.value, strlen(e->u.interval.value));
        strbuf_printf(sb, " %s", sql_interval_field_name(e->u.interval.from));
        if (e->u.interval.to)
            strbuf_printf(sb, " to %s", sql_interval_field_name(e->u.interval.to));
        strbuf_putc(sb, ')');
        return;
    case SQL_EXPR_PARAM: strbuf_printf(sb, "?%d", e->u.param_index); return;
    case SQL_EXPR_NAME: print_qname(sb, &e->u.name); return;
    case SQL_EXPR_FIELD:
        strbuf_puts(sb, "(. ");
        print_expr(sb, e->u.field.base);
        strbuf_putc(sb, ' ');
        print_ident(sb, &e->u.field.field);
        strbuf_putc(sb, ')');
        return;
    case SQL_EXPR_UNARY:
        strbuf_printf(sb, "(%s ", sql_op_name(e->u.unary.op));
        print_expr(sb, e->u.unary.arg);
        strbuf_putc(sb, ')');
        return;
    case SQL_EXPR_BINARY:
        strbuf_printf(sb, "(%s ", sql_op_name(e->u.binary.op));
        print_expr(sb, e->u.binary.left);
        strbuf_putc(sb, ' ');
        print_expr(sb, e->u.binary.right);
        strbuf_putc(sb, ')');
        return;
    case SQL_EXPR_AND:
    case SQL_EXPR_OR:
        strbuf_puts(sb, e->kind == SQL_EXPR_AND ? "(and" : "(or");
        print_exprs(sb, &e->u.list);
        strbuf_putc(sb, ')');
        return;
    case SQL_EXPR_IS_NULL:
        strbuf_puts(sb, e->u.is_null.negated ? "(is-not-null " : "(is-null ");
        print_expr(sb, e->u.is_null.arg);
        strbuf_putc(sb, ')');
        return;
    case SQL_EXPR_BETWEEN:
        strbuf_puts(sb, e->u.between.negated ? "(not-between " : "(between ");
        print_expr(sb, e->u.between.arg);
        strbuf_putc(sb, ' ');
        print_expr(sb, e->u.between.low);
        strbuf_putc(sb, ' ');
        print_expr(sb, e->u.between.high);
        strbuf_putc(sb, ')');
        return;
    case SQL_EXPR_IN_LIST:
        strbuf_puts(sb, e->u.in_list.negated ? "(not-in " : "(in ");
        print_expr(sb, e->u.in_list.arg);
        print_exprs(sb, &e->u.in_list.values);
        strbuf_putc(sb, ')');
        return;
    case SQL_EXPR_IN_SUBQUERY:
        strbuf_puts(sb, e->u.in_query.negated ? "(not-in " : "(in ");
        print_expr(sb, e->u.in_query.arg);
        strbuf_putc(sb, ' ');
        print_query(sb, e->u.in_query.query);
        strbuf_putc(sb, ')');
        return;
    case SQL_EXPR_LIKE:
        strbuf_puts(sb, e->u.like.negated ? "(not-like " : "(like ");
        print_expr(sb, e->u.like.arg);
        strbuf_putc(sb, ' ');
        print_expr(sb, e->u.like.pattern);
        if (e->u.like.escape) {
            strbuf_puts(sb, " (escape ");
            print_expr(sb, e->u.like.escape);
            strbuf_putc(sb, ')');
        }
        strbuf_putc(sb, ')');
        return;
    case SQL_EXPR_QUANTIFIED:
        strbuf_printf(sb, "(%s %s ", sql_op_name(e->u.quantified.op),
                      e->u.quantified.quantifier == SQL_QUANT_ALL ? "all" : "any");
        print_expr(sb, e->u.quantified.arg);
        strbuf_putc(sb, ' ');
        print_query(sb, e->u.quantified.query);
        strbuf_putc(sb, ')');
        return;
    case SQL_EXPR_EXISTS:
    case SQL_EXPR_SUBQUERY:
        strbuf_puts(sb, e->kind == SQL_EXPR_EXISTS ? "(exists " : "(subquery ");
        print_query(sb, e->u.query);
        strbuf_putc(sb, ')');
        return;
    case SQL_EXPR_AT_TIME_ZONE:
    case SQL_EXPR_SUBSCRIPT:
        strbuf_puts(sb, e->kind == SQL_EXPR_AT_TIME_ZONE ? "(at-time-zone " : "(subscript ");
        print_expr(sb, e->u.binary.left);
        strbuf_putc(sb, ' ');
        print_expr(sb, e->u.binary.right);
        strbuf_putc(sb, ')');
        return;
    case SQL_EXPR_CALL:
        strbuf_puts(sb, "(call ");
        print_qname(sb, &e->u.call.name);
        if (e->u.call.distinct) strbuf_puts(sb, " distinct");
        if (e->u.call.star) strbuf_puts(sb, " *");
        print_exprs(sb, &e->u.call.args);
        print_order(sb, "order-by", &e->u.call.order_by);
        if (e->u.call.filter) {
            strbuf_puts(sb, " (filter ");
            print_expr(sb, e->u.call.filter);
            strbuf_putc(sb, ')');
        }
        if (e->u.call.nulls == SQL_NULLS_IGNORE) strbuf_puts(sb, " ignore-nulls");
        if (e->u.call.nulls == SQL_NULLS_RESPECT) strbuf_puts(sb, " respect-nulls");
        if (e->u.call.over) {
            strbuf_puts(sb, " (over ");
            print_window(sb, e->u.call.over);
            strbuf_putc(sb, ')');
        }
        if (e->u.call.over_name) {
            strbuf_puts(sb, " (over ");
            print_ident(sb, e->u.call.over_name);
            strbuf_putc(sb, ')');
        }
        strbuf_putc(sb, ')');
        return;
    case SQL_EXPR_CAST:
        strbuf_puts(sb, e->u.cast.try_cast ? "(try-cast " : "(cast ");
        print_expr(sb, e->u.cast.arg);
        strbuf_putc(sb, ' ');
        print_type(sb, &e->u.cast.type);
        strbuf_putc(sb, ')');
        return;
    case SQL_EXPR_CASE:
        strbuf_puts(sb, "(case");
        if (e->u.case_.operand) {
            strbuf_putc(sb, ' ');
            print_expr(sb, e->u.case_.operand);
        }
        for (int i = 0; i < e->u.case_.n_whens; i++) {
            strbuf_puts(sb, " (when ");
            print_expr(sb, e->u.case_.whens[i].cond);
            strbuf_putc(sb, ' ');
            print_expr(sb, e->u.case_.whens[i].result);
            strbuf_putc(sb, ')');
        }
        if (e->u.case_.else_result) {
            strbuf_puts(sb, " (else ");
            print_expr(sb, e->u.case_.else_result);
            strbuf_putc(sb, ')');
        }
        strbuf_putc(sb, ')');
        return;
    case SQL_EXPR_EXTRACT:
        strbuf_printf(sb, "(extract %s ", e->u.extract.field.name);
        print_expr(sb, e->u.extract.arg);
        strbuf_putc(sb, ')');
        return;
    case SQL_EXPR_CURRENT:
        if (e->u.current.precision >= 0)
            strbuf_printf(sb, "(%s %d)", current_name(e->u.current.which), e->u.current.precision);
        else
            strbuf_puts(sb, current_name(e->u.current.which));
        return;
    case SQL_EXPR_ARRAY:
        strbuf_puts(sb, "(array");
        print_exprs(sb, &e->u.list);
        strbuf_putc(sb, ')');
        return;
    case SQL_EXPR_ROW:
        strbuf_puts(sb, "(row");
        print_exprs(sb, &e->u.row.items);
        strbuf_putc(sb, ')');
        return;
    case SQL_EXPR_LAMBDA:
        strbuf_puts(sb, "(lambda ");
        print_idents(sb, &e->u.lambda.params);
        strbuf_putc(sb, ' ');
        print_expr(sb, e->u.lambda.body);
        strbuf_putc(sb, ')');
        return;
    case SQL_EXPR_GROUPING:
        strbuf_puts(sb, "(grouping");
        print_exprs(sb, &e->u.list);
        strbuf_putc(sb, ')');
        return;
    }
    strbuf_printf(sb, "<expr %d>", e->kind);
}

/* ------------------------------------------------------------------------------------------- */

static void print_named_args(strbuf *sb, const sql_named_arg *args, int n) {
    for (int i = 0; i < n; i++) {
        strbuf_putc(sb, ' ');
        if (args[i].name) {
            strbuf_puts(sb, "(=> ");
            print_ident(sb, args[i].name);
            strbuf_putc(sb, ' ');
            print_expr(sb, args[i].value);
            strbuf_putc(sb, ')');
        } else {
            print_expr(sb, args[i].value);
        }
    }
}

static void print_relation_body(strbuf *sb, const sql_relation *r) {
    switch ((sql_relation_kind)r->kind) {
    case SQL_REL_TABLE:
        strbuf_puts(sb, "(table ");
        print_qname(sb, &r->u.table.name);
        if (r->u.table.version) {
            strbuf_puts(sb, r->u.table.version == SQL_VERSION_VERSION ? " (for-version "
                                                                      : " (for-timestamp ");
            print_expr(sb, r->u.table.as_of);
            strbuf_putc(sb, ')');
        }
        strbuf_putc(sb, ')');
        return;
    case SQL_REL_SUBQUERY:
        strbuf_puts(sb, r->u.subquery.lateral ? "(lateral " : "(subquery ");
        print_query(sb, r->u.subquery.query);
        strbuf_putc(sb, ')');
        return;
    case SQL_REL_UNNEST:
        strbuf_puts(sb, "(unnest");
        print_exprs(sb, &r->u.unnest.args);
        if (r->u.unnest.with_ordinality) strbuf_puts(sb, " with-ordinality");
        strbuf_putc(sb, ')');
        return;
    case SQL_REL_FUNCTION:
        strbuf_puts(sb, "(table-function ");
        print_qname(sb, &r->u.function.name);
        print_named_args(sb, r->u.function.args, r->u.function.n_args);
        strbuf_putc(sb, ')');
        return;
    case SQL_REL_FILE:
        strbuf_puts(sb, "(file ");
        print_string(sb, r->u.file.path, r->u.file.len);
        strbuf_putc(sb, ')');
        return;
    case SQL_REL_JOIN: {
        static const char *const names[] = {"?", "inner", "left", "right", "full", "cross"};
        strbuf_printf(sb, "(%sjoin %s ", r->u.join.natural ? "natural-" : "",
                      r->u.join.type <= SQL_JOIN_CROSS ? names[r->u.join.type] : "?");
        print_relation(sb, r->u.join.left);
        strbuf_putc(sb, ' ');
        print_relation(sb, r->u.join.right);
        if (r->u.join.on) {
            strbuf_puts(sb, " (on ");
            print_expr(sb, r->u.join.on);
            strbuf_putc(sb, ')');
        }
        if (r->u.join.using.n) {
            strbuf_puts(sb, " (using ");
            print_idents(sb, &r->u.join.using);
            strbuf_putc(sb, ')');
        }
        strbuf_putc(sb, ')');
        return;
    }
    }
    strbuf_printf(sb, "<relation %d>", r->kind);
}

static void print_relation(strbuf *sb, const sql_relation *r) {
    if (!r->alias) {
        print_relation_body(sb, r);
        return;
    }
    strbuf_puts(sb, "(as ");
    print_relation_body(sb, r);
    strbuf_putc(sb, ' ');
    print_ident(sb, r->alias);
    if (r->columns.n) {
        strbuf_putc(sb, ' ');
        print_idents(sb, &r->columns);
    }
    strbuf_putc(sb, ')');
}

static void print_grouping_set(strbuf *sb, const sql_expr_list *set) {
    strbuf_putc(sb, '(');
    for (int i = 0; i < set->n; i++) {
        if (i) strbuf_putc(sb, ' ');
        print_expr(sb, set->items[i]);
    }
    strbuf_putc(sb, ')');
}

static void print_select(strbuf *sb, const sql_select *s) {
    strbuf_puts(sb, s->distinct ? "(select distinct (items" : "(select (items");
    for (int i = 0; i < s->n_items; i++) {
        const sql_select_item *it = &s->items[i];
        strbuf_putc(sb, ' ');
        if (it->kind == SQL_SELECT_STAR) {
            if (!it->expr && it->aliases.n == 0) {
                strbuf_putc(sb, '*');
                continue;
            }
            strbuf_puts(sb, "(*");
            if (it->expr) {
                strbuf_putc(sb, ' ');
                print_expr(sb, it->expr);
            }
            if (it->aliases.n) {
                strbuf_putc(sb, ' ');
                print_idents(sb, &it->aliases);
            }
            strbuf_putc(sb, ')');
        } else if (it->alias) {
            strbuf_puts(sb, "(as ");
            print_expr(sb, it->expr);
            strbuf_putc(sb, ' ');
            print_ident(sb, it->alias);
            strbuf_putc(sb, ')');
        } else {
            print_expr(sb, it->expr);
        }
    }
    strbuf_putc(sb, ')');
    if (s->n_from) {
        strbuf_puts(sb, " (from");
        for (int i = 0; i < s->n_from; i++) {
            strbuf_putc(sb, ' ');
            print_relation(sb, s->from[i]);
        }
        strbuf_putc(sb, ')');
    }
    if (s->where) {
        strbuf_puts(sb, " (where ");
        print_expr(sb, s->where);
        strbuf_putc(sb, ')');
    }
    if (s->group_by) {
        const sql_group_by *g = s->group_by;
        strbuf_puts(sb, " (group-by");
        if (g->quantifier == SQL_SET_ALL) strbuf_puts(sb, " all");
        if (g->quantifier == SQL_SET_DISTINCT) strbuf_puts(sb, " distinct");
        for (int i = 0; i < g->n_elements; i++) {
            const sql_grouping_element *el = &g->elements[i];
            if (el->kind == SQL_GROUPING_SIMPLE) {
                const sql_expr_list *set = &el->sets[0];
                if (set->n == 1) {
                    strbuf_putc(sb, ' ');
                    print_expr(sb, set->items[0]);
                } else {
                    strbuf_putc(sb, ' ');
                    print_grouping_set(sb, set);
                }
                continue;
            }
            strbuf_puts(sb, el->kind == SQL_GROUPING_ROLLUP ? " (rollup"
                            : el->kind == SQL_GROUPING_CUBE ? " (cube"
                                                            : " (grouping-sets");
            for (int k = 0; k < el->n_sets; k++) {
                strbuf_putc(sb, ' ');
                print_grouping_set(sb, &el->sets[k]);
            }
            strbuf_putc(sb, ')');
        }
        strbuf_putc(sb, ')');
    }
    if (s->having) {
        strbuf_puts(sb, " (having ");
        print_expr(sb, s->having);
        strbuf_putc(sb, ')');
    }
    for (int i = 0; i < s->n_windows; i++) {
        strbuf_puts(sb, " (window-def ");
        print_ident(sb, &s->windows[i].name);
        strbuf_putc(sb, ' ');
        print_window(sb, s->windows[i].spec);
        strbuf_putc(sb, ')');
    }
    strbuf_putc(sb, ')');
}

static void print_query_body(strbuf *sb, const sql_query *q) {
    switch ((sql_query_kind)q->kind) {
    case SQL_QUERY_SELECT: print_select(sb, &q->u.select); return;
    case SQL_QUERY_SET_OP: {
        const char *op = q->u.set_op.op == SQL_SET_UNION       ? "union"
                         : q->u.set_op.op == SQL_SET_INTERSECT ? "intersect"
                                                               : "except";
        strbuf_printf(sb, "(%s%s", op, q->u.set_op.quantifier == SQL_SET_ALL ? "-all" : "");
        for (int i = 0; i < q->u.set_op.n_inputs; i++) {
            strbuf_putc(sb, ' ');
            print_query(sb, q->u.set_op.inputs[i]);
        }
        strbuf_putc(sb, ')');
        return;
    }
    case SQL_QUERY_VALUES:
        strbuf_puts(sb, "(values");
        for (int i = 0; i < q->u.values.n_rows; i++) {
            strbuf_putc(sb, ' ');
            print_expr(sb, q->u.values.rows[i]);
        }
        strbuf_putc(sb, ')');
        return;
    case SQL_QUERY_TABLE:
        strbuf_puts(sb, "(table ");
        print_qname(sb, &q->u.table);
        strbuf_putc(sb, ')');
        return;
    case SQL_QUERY_NESTED:
        strbuf_puts(sb, "(nested ");
        print_query(sb, q->u.nested);
        strbuf_putc(sb, ')');
        return;
    }
    strbuf_printf(sb, "<query %d>", q->kind);
}

static void print_query(strbuf *sb, const sql_query *q) {
    bool wrap = q->with || q->order_by.n || q->offset || q->limit;
    if (!wrap) {
        print_query_body(sb, q);
        return;
    }
    strbuf_puts(sb, "(query");
    if (q->with) {
        strbuf_puts(sb, q->with->recursive ? " (with-recursive" : " (with");
        for (int i = 0; i < q->with->n_items; i++) {
            const sql_with_item *it = &q->with->items[i];
            strbuf_puts(sb, " (");
            print_ident(sb, &it->name);
            if (it->columns.n) {
                strbuf_putc(sb, ' ');
                print_idents(sb, &it->columns);
            }
            strbuf_putc(sb, ' ');
            print_query(sb, it->query);
            strbuf_putc(sb, ')');
        }
        strbuf_putc(sb, ')');
    }
    strbuf_putc(sb, ' ');
    print_query_body(sb, q);
    print_order(sb, "order-by", &q->order_by);
    if (q->offset) {
        strbuf_puts(sb, " (offset ");
        print_expr(sb, q->offset);
        strbuf_putc(sb, ')');
    }
    if (q->limit) {
        strbuf_puts(sb, q->fetch_first ? " (fetch-first " : " (limit ");
        print_expr(sb, q->limit);
        if (q->with_ties) strbuf_puts(sb, " with-ties");
        strbuf_putc(sb, ')');
    }
    strbuf_putc(sb, ')');
}

/* ------------------------------------------------------------------------------------------- */

static void print_props(strbuf *sb, const sql_property_list *props) {
    if (props->n == 0) return;
    strbuf_puts(sb, " (with");
    for (int i = 0; i < props->n; i++) {
        strbuf_puts(sb, " (= ");
        print_ident(sb, &props->items[i].name);
        strbuf_putc(sb, ' ');
        if (props->items[i].value)
            print_expr(sb, props->items[i].value);
        else
            strbuf_puts(sb, "default");
        strbuf_putc(sb, ')');
    }
    strbuf_putc(sb, ')');
}

static void print_comment(strbuf *sb, const char *comment) {
    if (!comment) return;
    strbuf_puts(sb, " (comment ");
    print_string(sb, comment, strlen(comment));
    strbuf_putc(sb, ')');
}

static void print_column_def(strbuf *sb, const sql_column_def *c) {
    strbuf_puts(sb, "(column ");
    print_ident(sb, &c->name);
    strbuf_putc(sb, ' ');
    print_type(sb, &c->type);
    if (c->not_null) strbuf_puts(sb, " not-null");
    print_comment(sb, c->comment);
    print_props(sb, &c->props);
    strbuf_putc(sb, ')');
}

static void print_assignments(strbuf *sb, const sql_assignment *a, int n) {
    for (int i = 0; i < n; i++) {
        strbuf_puts(sb, " (= ");
        print_ident(sb, &a[i].column);
        strbuf_putc(sb, ' ');
        print_expr(sb, a[i].value);
        strbuf_putc(sb, ')');
    }
}

static void print_flags(strbuf *sb, bool or_replace, bool if_not_exists) {
    if (or_replace) strbuf_puts(sb, " or-replace");
    if (if_not_exists) strbuf_puts(sb, " if-not-exists");
}

static void print_alter(strbuf *sb, const sql_stmt *s) {
    const typeof(s->u.alter) *a = &s->u.alter;
    strbuf_puts(sb, "(alter-table ");
    print_qname(sb, &a->table);
    if (a->if_exists) strbuf_puts(sb, " if-exists");
    switch ((sql_alter_kind)a->action) {
    case SQL_ALTER_ADD_COLUMN:
        strbuf_puts(sb, a->sub_if_not_exists ? " (add-column if-not-exists " : " (add-column ");
        print_column_def(sb, &a->column);
        break;
    case SQL_ALTER_DROP_COLUMN:
        strbuf_puts(sb, a->sub_if_exists ? " (drop-column if-exists " : " (drop-column ");
        print_ident(sb, &a->name);
        break;
    case SQL_ALTER_RENAME_COLUMN:
        strbuf_puts(sb, a->sub_if_exists ? " (rename-column if-exists " : " (rename-column ");
        print_ident(sb, &a->name);
        strbuf_putc(sb, ' ');
        print_ident(sb, &a->new_name);
        break;
    case SQL_ALTER_RENAME_TABLE:
        strbuf_puts(sb, " (rename-to ");
        print_qname(sb, &a->new_table);
        break;
    case SQL_ALTER_SET_PROPERTIES:
        strbuf_puts(sb, " (set-properties");
        print_props(sb, &a->props);
        break;
    case SQL_ALTER_SET_COLUMN_TYPE:
        strbuf_puts(sb, " (set-data-type ");
        print_ident(sb, &a->name);
        strbuf_putc(sb, ' ');
        print_type(sb, &a->type);
        break;
    case SQL_ALTER_DROP_NOT_NULL:
        strbuf_puts(sb, " (drop-not-null ");
        print_ident(sb, &a->name);
        break;
    case SQL_ALTER_CREATE_BRANCH:
    case SQL_ALTER_CREATE_TAG:
        strbuf_puts(sb, a->action == SQL_ALTER_CREATE_BRANCH ? " (create-branch" : " (create-tag");
        print_flags(sb, a->ref_or_replace, a->sub_if_not_exists);
        strbuf_putc(sb, ' ');
        print_ident(sb, &a->name);
        if (a->ref_as_of) {
            strbuf_puts(sb, " (as-of ");
            print_expr(sb, a->ref_as_of);
            strbuf_putc(sb, ')');
        }
        if (a->ref_retain) {
            strbuf_puts(sb, " (retain ");
            print_expr(sb, a->ref_retain);
            strbuf_printf(sb, " unit-%u)", (unsigned)a->ref_retain_unit);
        }
        break;
    case SQL_ALTER_DROP_BRANCH:
    case SQL_ALTER_DROP_TAG:
        strbuf_puts(sb, a->action == SQL_ALTER_DROP_BRANCH ? " (drop-branch" : " (drop-tag");
        if (a->sub_if_exists) strbuf_puts(sb, " if-exists");
        strbuf_putc(sb, ' ');
        print_ident(sb, &a->name);
        break;
    }
    strbuf_puts(sb, "))");
}

static void print_show(strbuf *sb, const sql_stmt *s) {
    static const char *const names[] = {
        "?", "catalogs", "schemas", "tables", "columns", "functions", "session",
        "create-table", "create-view", "create-schema", "stats",
    };
    uint8_t what = s->u.show.what;
    strbuf_printf(sb, "(show %s", what <= SQL_SHOW_STATS ? names[what] : "?");
    if (s->u.show.target) {
        strbuf_putc(sb, ' ');
        print_qname(sb, s->u.show.target);
    }
    if (s->u.show.like) {
        strbuf_puts(sb, " (like ");
        print_string(sb, s->u.show.like, strlen(s->u.show.like));
        if (s->u.show.escape) {
            strbuf_putc(sb, ' ');
            print_string(sb, s->u.show.escape, strlen(s->u.show.escape));
        }
        strbuf_putc(sb, ')');
    }
    strbuf_putc(sb, ')');
}

static void print_merge(strbuf *sb, const sql_stmt *s) {
    strbuf_puts(sb, "(merge ");
    print_qname(sb, &s->u.merge.target);
    if (s->u.merge.alias) {
        strbuf_puts(sb, " (as ");
        print_ident(sb, s->u.merge.alias);
        strbuf_putc(sb, ')');
    }
    strbuf_puts(sb, " (using ");
    print_relation(sb, s->u.merge.source);
    strbuf_puts(sb, ") (on ");
    print_expr(sb, s->u.merge.on);
    strbuf_putc(sb, ')');
    for (int i = 0; i < s->u.merge.n_cases; i++) {
        const sql_merge_case *c = &s->u.merge.cases[i];
        strbuf_puts(sb, c->matched ? " (when-matched" : " (when-not-matched");
        if (c->cond) {
            strbuf_puts(sb, " (and ");
            print_expr(sb, c->cond);
            strbuf_putc(sb, ')');
        }
        switch ((sql_merge_action)c->action) {
        case SQL_MERGE_DELETE: strbuf_puts(sb, " delete"); break;
        case SQL_MERGE_UPDATE:
            strbuf_puts(sb, " (update");
            print_assignments(sb, c->sets, c->n_sets);
            strbuf_putc(sb, ')');
            break;
        case SQL_MERGE_INSERT:
            strbuf_puts(sb, " (insert");
            if (c->columns.n) {
                strbuf_putc(sb, ' ');
                print_idents(sb, &c->columns);
            }
            strbuf_puts(sb, " (values");
            print_exprs(sb, &c->values);
            strbuf_puts(sb, "))");
            break;
        }
        strbuf_putc(sb, ')');
    }
    strbuf_putc(sb, ')');
}

static void print_stmt(strbuf *sb, const sql_stmt *s) {
    switch ((sql_stmt_kind)s->kind) {
    case SQL_STMT_QUERY:
        strbuf_puts(sb, "(query ");
        print_query(sb, s->u.query);
        strbuf_putc(sb, ')');
        return;
    case SQL_STMT_EXPLAIN: {
        static const char *const types[] = {"", " logical", " distributed", " io", " validate"};
        static const char *const formats[] = {"", " text", " json", " graphviz"};
        strbuf_puts(sb, s->u.explain.analyze ? "(explain-analyze" : "(explain");
        if (s->u.explain.verbose) strbuf_puts(sb, " verbose");
        if (s->u.explain.type <= SQL_EXPLAIN_VALIDATE) strbuf_puts(sb, types[s->u.explain.type]);
        if (s->u.explain.format <= SQL_EXPLAIN_FORMAT_GRAPHVIZ)
            strbuf_puts(sb, formats[s->u.explain.format]);
        strbuf_putc(sb, ' ');
        print_stmt(sb, s->u.explain.stmt);
        strbuf_putc(sb, ')');
        return;
    }
    case SQL_STMT_CREATE_SCHEMA:
        strbuf_puts(sb, "(create-schema ");
        print_qname(sb, &s->u.create_schema.name);
        print_flags(sb, false, s->u.create_schema.if_not_exists);
        print_props(sb, &s->u.create_schema.props);
        strbuf_putc(sb, ')');
        return;
    case SQL_STMT_DROP_SCHEMA:
    case SQL_STMT_DROP_TABLE:
    case SQL_STMT_DROP_VIEW:
        strbuf_puts(sb, s->kind == SQL_STMT_DROP_SCHEMA  ? "(drop-schema "
                        : s->kind == SQL_STMT_DROP_TABLE ? "(drop-table "
                                                         : "(drop-view ");
        print_qname(sb, &s->u.drop.name);
        if (s->u.drop.if_exists) strbuf_puts(sb, " if-exists");
        if (s->u.drop.cascade) strbuf_puts(sb, " cascade");
        strbuf_putc(sb, ')');
        return;
    case SQL_STMT_COPY:
        strbuf_puts(sb, "(copy ");
        print_query(sb, s->u.copy.query);
        strbuf_printf(sb, " to '%s'", s->u.copy.path ? s->u.copy.path : "");
        for (uint32_t i = 0; i < (uint32_t)s->u.copy.options.n; i++)
            strbuf_printf(sb, " %s", s->u.copy.options.items[i].name.name);
        strbuf_putc(sb, ')');
        return;
    case SQL_STMT_TRUNCATE:
        strbuf_puts(sb, "(truncate ");
        print_qname(sb, &s->u.drop.name);
        strbuf_putc(sb, ')');
        return;
    case SQL_STMT_CREATE_TABLE:
        strbuf_puts(sb, "(create-table ");
        print_qname(sb, &s->u.create_table.name);
        print_flags(sb, s->u.create_table.or_replace, s->u.create_table.if_not_exists);
        for (int i = 0; i < s->u.create_table.n_columns; i++) {
            strbuf_putc(sb, ' ');
            print_column_def(sb, &s->u.create_table.columns[i]);
        }
        print_comment(sb, s->u.create_table.comment);
        print_props(sb, &s->u.create_table.props);
        strbuf_putc(sb, ')');
        return;
    case SQL_STMT_CREATE_TABLE_AS:
        strbuf_puts(sb, "(create-table-as ");
        print_qname(sb, &s->u.create_table_as.name);
        print_flags(sb, s->u.create_table_as.or_replace, s->u.create_table_as.if_not_exists);
        if (s->u.create_table_as.columns.n) {
            strbuf_putc(sb, ' ');
            print_idents(sb, &s->u.create_table_as.columns);
        }
        print_comment(sb, s->u.create_table_as.comment);
        print_props(sb, &s->u.create_table_as.props);
        strbuf_putc(sb, ' ');
        print_query(sb, s->u.create_table_as.query);
        if (!s->u.create_table_as.with_data) strbuf_puts(sb, " with-no-data");
        strbuf_putc(sb, ')');
        return;
    case SQL_STMT_INSERT:
        strbuf_puts(sb, "(insert ");
        print_qname(sb, &s->u.insert.table);
        if (s->u.insert.columns.n) {
            strbuf_putc(sb, ' ');
            print_idents(sb, &s->u.insert.columns);
        }
        strbuf_putc(sb, ' ');
        print_query(sb, s->u.insert.query);
        strbuf_putc(sb, ')');
        return;
    case SQL_STMT_DELETE:
        strbuf_puts(sb, "(delete ");
        print_qname(sb, &s->u.delete_.table);
        if (s->u.delete_.where) {
            strbuf_puts(sb, " (where ");
            print_expr(sb, s->u.delete_.where);
            strbuf_putc(sb, ')');
        }
        strbuf_putc(sb, ')');
        return;
    case SQL_STMT_UPDATE:
        strbuf_puts(sb, "(update ");
        print_qname(sb, &s->u.update.table);
        print_assignments(sb, s->u.update.sets, s->u.update.n_sets);
        if (s->u.update.where) {
            strbuf_puts(sb, " (where ");
            print_expr(sb, s->u.update.where);
            strbuf_putc(sb, ')');
        }
        strbuf_putc(sb, ')');
        return;
    case SQL_STMT_MERGE: print_merge(sb, s); return;
    case SQL_STMT_ALTER_TABLE: print_alter(sb, s); return;
    case SQL_STMT_SHOW: print_show(sb, s); return;
    case SQL_STMT_USE:
        strbuf_puts(sb, "(use ");
        print_qname(sb, &s->u.use);
        strbuf_putc(sb, ')');
        return;
    case SQL_STMT_SET_SESSION:
        strbuf_puts(sb, "(set-session ");
        print_qname(sb, &s->u.set_session.name);
        strbuf_putc(sb, ' ');
        print_expr(sb, s->u.set_session.value);
        strbuf_putc(sb, ')');
        return;
    case SQL_STMT_RESET_SESSION:
        strbuf_puts(sb, "(reset-session ");
        print_qname(sb, &s->u.set_session.name);
        strbuf_putc(sb, ')');
        return;
    case SQL_STMT_PREPARE:
        strbuf_puts(sb, "(prepare ");
        print_ident(sb, &s->u.prepare.name);
        strbuf_putc(sb, ' ');
        print_stmt(sb, s->u.prepare.stmt);
        strbuf_putc(sb, ')');
        return;
    case SQL_STMT_EXECUTE:
        strbuf_puts(sb, "(execute ");
        print_ident(sb, &s->u.execute.name);
        if (s->u.execute.args.n) {
            strbuf_puts(sb, " (using");
            print_exprs(sb, &s->u.execute.args);
            strbuf_putc(sb, ')');
        }
        strbuf_putc(sb, ')');
        return;
    case SQL_STMT_DEALLOCATE:
    case SQL_STMT_DESCRIBE_INPUT:
    case SQL_STMT_DESCRIBE_OUTPUT:
        strbuf_puts(sb, s->kind == SQL_STMT_DEALLOCATE        ? "(deallocate "
                        : s->kind == SQL_STMT_DESCRIBE_INPUT ? "(describe-input "
                                                              : "(describe-output ");
        print_ident(sb, &s->u.prepared);
        strbuf_putc(sb, ')');
        return;
    case SQL_STMT_START_TRANSACTION: strbuf_puts(sb, "(start-transaction)"); return;
    case SQL_STMT_COMMIT: strbuf_puts(sb, "(commit)"); return;
    case SQL_STMT_ROLLBACK: strbuf_puts(sb, "(rollback)"); return;
    case SQL_STMT_CALL:
        strbuf_puts(sb, "(call ");
        print_qname(sb, &s->u.call.name);
        print_named_args(sb, s->u.call.args, s->u.call.n_args);
        strbuf_putc(sb, ')');
        return;
    case SQL_STMT_CREATE_VIEW:
        strbuf_puts(sb, "(create-view ");
        print_qname(sb, &s->u.create_view.name);
        print_flags(sb, s->u.create_view.or_replace, false);
        print_comment(sb, s->u.create_view.comment);
        strbuf_putc(sb, ' ');
        print_query(sb, s->u.create_view.query);
        strbuf_putc(sb, ')');
        return;
    }
    strbuf_printf(sb, "<stmt %d>", s->kind);
}

void sql_ast_print(const sql_stmt *s, strbuf *out) { print_stmt(out, s); }
void sql_expr_print(const sql_expr *e, strbuf *out) { print_expr(out, e); }
void sql_query_print(const sql_query *q, strbuf *out) { print_query(out, q); }
