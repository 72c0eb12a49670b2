/*
 * explain.c: EXPLAIN text of logical plans: one node per line, children indented, with the
 * node's expressions, columns and row estimate.
 *
 * INTERFACE: plan_explain, bexpr_to_string.
 */
#include <stdio.h>
#include <string.h>

#include "plan/plan.h"
#include "vec/vec_format.h"

static const char *col_name(const plan *input, plan_col_id id, char *buf, size_t len) {
    for (const plan *p = input; p; p = p->n_children ? p->children[0] : NULL) {
        for (uint32_t i = 0; i < p->n_out; i++)
            if (p->out[i].id == id && p->out[i].name) return p->out[i].name;
        if (p->kind == PLAN_JOIN || p->kind == PLAN_SETOP) {
            for (uint32_t c = 1; c < p->n_children; c++) {
                const char *n = col_name(p->children[c], id, buf, len);
                if (n != buf) return n;
            }
        }
    }
    snprintf(buf, len, "#%u", id);
    return buf;
}

static const char *op_symbol(const char *fn) {
    static const struct {
        const char *fn, *sym;
    } ops[] = {{"$add", "+"}, {"$subtract", "-"}, {"$multiply", "*"}, {"$divide", "/"},
               {"$modulus", "%"}, {"$eq", "="}, {"$ne", "<>"}, {"$lt", "<"}, {"$le", "<="},
               {"$gt", ">"}, {"$ge", ">="}};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strcmp(ops[i].fn, fn) == 0) return ops[i].sym;
    return NULL;
}

void bexpr_to_string(const bexpr *e, const plan *input, strbuf *out) {
    char buf[32];
    if (!e) {
        strbuf_puts(out, "true");
        return;
    }
    switch (e->kind) {
    case BEXPR_COLUMN:
        strbuf_puts(out, col_name(input, e->u.col, buf, sizeof buf));
        return;
    case BEXPR_CONST: {
        bool str = type_is_string_view(e->type) || e->type.id == TYPE_DATE || e->type.id == TYPE_TIMESTAMP;
        if (e->type.id == TYPE_DATE) strbuf_puts(out, "DATE ");
        if (str && !vec_is_null(e->u.constant, 0)) strbuf_putc(out, '\'');
        vec_format_value(e->u.constant, 0, out);
        if (str && !vec_is_null(e->u.constant, 0)) strbuf_putc(out, '\'');
        return;
    }
    case BEXPR_PARAM:
        strbuf_printf(out, "?%u", e->u.param);
        return;
    case BEXPR_CALL: {
        const char *sym = e->u.call.name ? op_symbol(e->u.call.name) : NULL;
        if (sym && e->n_args == 2) {
            strbuf_putc(out, '(');
            bexpr_to_string(e->args[0], input, out);
            strbuf_printf(out, " %s ", sym);
            bexpr_to_string(e->args[1], input, out);
            strbuf_putc(out, ')');
            return;
        }
        strbuf_printf(out, "%s(", e->u.call.name ? e->u.call.name : "?");
        break;
    }
    case BEXPR_CAST: {
        char t[128];
        type_format(e->type, t, sizeof t);
        strbuf_puts(out, e->u.cast.try_cast ? "TRY_CAST(" : "CAST(");
        bexpr_to_string(e->args[0], input, out);
        strbuf_printf(out, " AS %s)", t);
        return;
    }
    case BEXPR_AND:
    case BEXPR_OR:
        strbuf_putc(out, '(');
        for (uint32_t i = 0; i < e->n_args; i++) {
            if (i) strbuf_puts(out, e->kind == BEXPR_AND ? " AND " : " OR ");
            bexpr_to_string(e->args[i], input, out);
        }
        strbuf_putc(out, ')');
        return;
    case BEXPR_NOT:
        strbuf_puts(out, "(NOT ");
        bexpr_to_string(e->args[0], input, out);
        strbuf_putc(out, ')');
        return;
    case BEXPR_IS_NULL:
    case BEXPR_IS_NOT_NULL:
        strbuf_putc(out, '(');
        bexpr_to_string(e->args[0], input, out);
        strbuf_puts(out, e->kind == BEXPR_IS_NULL ? " IS NULL)" : " IS NOT NULL)");
        return;
    case BEXPR_IN_LIST:
        strbuf_putc(out, '(');
        bexpr_to_string(e->args[0], input, out);
        strbuf_puts(out, " IN (");
        for (uint32_t i = 1; i < e->n_args; i++) {
            if (i > 1) strbuf_puts(out, ", ");
            bexpr_to_string(e->args[i], input, out);
        }
        strbuf_puts(out, "))");
        return;
    case BEXPR_CASE:
        strbuf_puts(out, "CASE");
        for (uint32_t i = 0; i + 1 < e->n_args; i += 2) {
            strbuf_puts(out, " WHEN ");
            bexpr_to_string(e->args[i], input, out);
            strbuf_puts(out, " THEN ");
            bexpr_to_string(e->args[i + 1], input, out);
        }
        if (e->u.case_has_else) {
            strbuf_puts(out, " ELSE ");
            bexpr_to_string(e->args[e->n_args - 1], input, out);
        }
        strbuf_puts(out, " END");
        return;
    case BEXPR_COALESCE: strbuf_puts(out, "coalesce("); break;
    case BEXPR_TRY: strbuf_puts(out, "try("); break;
    case BEXPR_ARRAY: strbuf_puts(out, "ARRAY["); break;
    case BEXPR_ROW: strbuf_puts(out, "ROW("); break;
    case BEXPR_FIELD:
        bexpr_to_string(e->args[0], input, out);
        strbuf_printf(out, ".field%u", e->u.field);
        return;
    case BEXPR_LAMBDA:
        strbuf_puts(out, "(lambda) -> ");
        bexpr_to_string(e->args[0], input, out);
        return;
    case BEXPR_SUBQUERY:
        strbuf_puts(out, "(subquery)");
        return;
    default:
        strbuf_puts(out, "?(");
        break;
    }
    for (uint32_t i = 0; i < e->n_args; i++) {
        if (i) strbuf_puts(out, ", ");
        bexpr_to_string(e->args[i], input, out);
    }
    strbuf_puts(out, e->kind == BEXPR_ARRAY ? "]" : ")");
}

static const char *join_name(uint8_t t) {
    switch (t) {
    case JOIN_INNER: return "InnerJoin";
    case JOIN_LEFT: return "LeftJoin";
    case JOIN_RIGHT: return "RightJoin";
    case JOIN_FULL: return "FullJoin";
    case JOIN_SEMI: return "SemiJoin";
    case JOIN_ANTI: return "AntiJoin";
    case JOIN_MARK: return "MarkJoin";
    case JOIN_SINGLE: return "SingleJoin";
    case JOIN_RIGHT_SEMI: return "RightSemiJoin";
    case JOIN_RIGHT_ANTI: return "RightAntiJoin";
    default: return "CrossJoin";
    }
}

static void explain_rec(const plan *p, int depth, strbuf *out) {
    for (int i = 0; i < depth; i++) strbuf_puts(out, "    ");
    const plan *in = p->n_children ? p->children[0] : NULL;
    switch (p->kind) {
    case PLAN_SCAN:
        strbuf_printf(out, "TableScan[%s.%s.%s]", p->u.scan.table->catalog, p->u.scan.table->schema,
                      p->u.scan.table->name);
        break;
    case PLAN_TABLE_FUNC:
        strbuf_printf(out, "TableFunction[%s]", p->u.tfunc.name);
        break;
    case PLAN_VALUES:
        strbuf_printf(out, "Values[%u rows]", p->u.values.n_rows);
        break;
    case PLAN_EMPTY:
        strbuf_puts(out, "Empty");
        break;
    case PLAN_FILTER:
        strbuf_puts(out, "Filter[");
        bexpr_to_string(p->u.filter.cond, in, out);
        strbuf_putc(out, ']');
        break;
    case PLAN_PROJECT:
        strbuf_puts(out, "Project[");
        for (uint32_t i = 0; i < p->n_out; i++) {
            if (i) strbuf_puts(out, ", ");
            bexpr_to_string(p->u.project.exprs[i], in, out);
        }
        strbuf_putc(out, ']');
        break;
    case PLAN_AGGREGATE:
        strbuf_puts(out, "Aggregate[");
        for (uint32_t i = 0; i < p->u.agg.n_groups; i++) {
            if (i) strbuf_puts(out, ", ");
            bexpr_to_string(p->u.agg.groups[i], in, out);
        }
        if (p->u.agg.n_groups) strbuf_puts(out, "; ");
        for (uint32_t a = 0; a < p->u.agg.n_aggs; a++) {
            const plan_agg *g = &p->u.agg.aggs[a];
            if (a) strbuf_puts(out, ", ");
            strbuf_printf(out, "%s(%s", g->name, g->distinct ? "DISTINCT " : "");
            for (uint32_t k = 0; k < g->n_args; k++) {
                if (k) strbuf_puts(out, ", ");
                bexpr_to_string(g->args[k], in, out);
            }
            strbuf_putc(out, ')');
        }
        if (p->u.agg.n_sets) strbuf_printf(out, "; %u grouping sets", p->u.agg.n_sets);
        strbuf_putc(out, ']');
        break;
    case PLAN_JOIN:
        strbuf_printf(out, "%s[", join_name(p->u.join.type));
        for (uint32_t i = 0; i < p->u.join.n_keys; i++) {
            if (i) strbuf_puts(out, " AND ");
            bexpr_to_string(p->u.join.left_keys[i], p->children[0], out);
            strbuf_puts(out, " = ");
            bexpr_to_string(p->u.join.right_keys[i], p->children[1], out);
        }
        if (p->u.join.residual) {
            if (p->u.join.n_keys) strbuf_puts(out, "; ");
            bexpr_to_string(p->u.join.residual, p, out);
        }
        strbuf_putc(out, ']');
        break;
    case PLAN_SORT:
    case PLAN_TOPN:
        strbuf_puts(out, p->kind == PLAN_SORT ? "Sort[" : "TopN[");
        if (p->kind == PLAN_TOPN) strbuf_printf(out, "%lld by ", (long long)p->u.sort.limit);
        for (uint32_t i = 0; i < p->u.sort.n_keys; i++) {
            if (i) strbuf_puts(out, ", ");
            bexpr_to_string(p->u.sort.keys[i].expr, in, out);
            strbuf_puts(out, p->u.sort.keys[i].desc ? " DESC" : " ASC");
            if (p->u.sort.keys[i].nulls_first) strbuf_puts(out, " NULLS FIRST");
        }
        strbuf_putc(out, ']');
        break;
    case PLAN_LIMIT:
        strbuf_printf(out, "Limit[%lld", (long long)p->u.limit.limit);
        if (p->u.limit.offset) strbuf_printf(out, " offset %lld", (long long)p->u.limit.offset);
        strbuf_putc(out, ']');
        break;
    case PLAN_WINDOW:
        strbuf_printf(out, "Window[%u functions]", p->u.window.n_funcs);
        break;
    case PLAN_SETOP:
        strbuf_printf(out, "%s%s",
                      p->u.setop.op == SETOP_UNION ? "Union" : p->u.setop.op == SETOP_INTERSECT ? "Intersect" : "Except",
                      p->u.setop.all ? "All" : "");
        break;
    case PLAN_UNNEST:
        strbuf_printf(out, "Unnest[%u]", p->u.unnest.n_arrays);
        break;
    case PLAN_DISTINCT:
        strbuf_puts(out, "Distinct");
        break;
    case PLAN_ENFORCE_SINGLE:
        strbuf_puts(out, "EnforceSingleRow");
        break;
    default:
        strbuf_puts(out, "?");
        break;
    }
    if (p->est_rows >= 0) {
        double shown = p->est_rows > 0 && p->est_rows < 1 ? 1 : p->est_rows;
        strbuf_printf(out, "  (est. %.0f rows)", shown);
    }
    strbuf_putc(out, '\n');
    for (uint32_t i = 0; i < p->n_children; i++) explain_rec(p->children[i], depth + 1, out);
}

void plan_explain(const plan *p, strbuf *out) { explain_rec(p, 0, out); }
