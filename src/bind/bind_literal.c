/*
 * bind_literal.c: literals and typed literals (DATE '...', TIMESTAMP '...', DECIMAL '...',
 * INTERVAL '...' DAY, X'..', parameters) as constants, with Trino's literal types: integers are
 * integer or bigint by value, 1.5 is decimal(2,1), 1e0 is double, 'abc' is varchar(3).
 *
 * INTERFACE: bind_literal.
 * NOTES: a malformed typed literal is an INVALID_LITERAL error at bind time, at the literal's
 * position, as in Trino; typed literals of other types are bound as casts of a varchar constant,
 * which the optimizer folds.
 */
#include "bind/bind_int.h"

#include <string.h>

#include "types/datetime.h"
#include "types/decimal.h"
#include "types/tz.h"
#include "common/utf8.h"

static int typed_literal(binder *b, const sql_expr *e, bexpr **out) {
    const char *tname = e->u.typed.type.text;
    const char *v = e->u.typed.value;
    size_t len = e->u.typed.len;
    sqe_type t;
    if (type_parse(tname, strlen(tname), &t) != 0)
        return bind_error(b, SQE_ERR_TYPE_NOT_FOUND, e->line, e->col, "Unknown type: %s", tname);
    plan_ctx *pc = b->pctx;
    switch (t.id) {
    case TYPE_DATE: {
        int32_t days;
        if (dt_parse_date(v, len, &days) != 0)
            return bind_error(b, SQE_ERR_INVALID_LITERAL, e->line, e->col,
                              "'%.*s' is not a valid DATE literal", (int)len, v);
        *out = bexpr_const_int64(pc, t, days);
        break;
    }
    case TYPE_TIME: {
        int64_t micros;
        int prec;
        if (dt_parse_time(v, len, &micros, &prec) != 0)
            return bind_error(b, SQE_ERR_INVALID_LITERAL, e->line, e->col,
                              "'%.*s' is not a valid TIME literal", (int)len, v);
        *out = bexpr_const_int64(pc, type_with_precision(TYPE_TIME, prec > 6 ? 6 : prec), micros);
        break;
    }
    case TYPE_TIMESTAMP:
    case TYPE_TIMESTAMP_TZ: {
        int64_t micros;
        int32_t zone;
        bool has_zone;
        int prec;
        if (dt_parse_timestamp_tz(v, len, &micros, &zone, &has_zone, &prec) != 0)
            return bind_error(b, SQE_ERR_INVALID_LITERAL, e->line, e->col,
                              "'%.*s' is not a valid TIMESTAMP literal", (int)len, v);
        if (prec > 6) prec = 6;
        if (has_zone || t.id == TYPE_TIMESTAMP_TZ) {
            if (!has_zone) {
                zone = b->env ? b->env->session_zone : 0;
                micros = tz_local_to_utc(zone, micros);
            }
            vec *cv = plan_const_vec(pc, type_with_precision(TYPE_TIMESTAMP_TZ, prec));
            BIND_CHECK(b, cv);
            VEC_DATA(cv, sqe_timestamp_tz)[0] = (sqe_timestamp_tz){micros, zone, 0};
            *out = bexpr_new(pc, BEXPR_CONST, cv->type, 0);
            if (*out) (*out)->u.constant = cv;
        } else {
            *out = bexpr_const_int64(pc, type_with_precision(TYPE_TIMESTAMP, prec), micros);
        }
        break;
    }
    case TYPE_DECIMAL: {
        sqe_type nat;
        int rc = decimal_literal_type(v, len, &nat);
        if (rc != 0)
            return bind_error(b, SQE_ERR_INVALID_LITERAL, e->line, e->col,
                              "'%.*s' is not a valid DECIMAL literal", (int)len, v);
        int128 val;
        if (decimal_parse(v, len, nat.precision, nat.scale, &val) != 0)
            return bind_error(b, SQE_ERR_INVALID_LITERAL, e->line, e->col,
                              "'%.*s' is not a valid DECIMAL literal", (int)len, v);
        vec *cv = plan_const_vec(pc, nat);
        BIND_CHECK(b, cv);
        decimal_put(cv->data, nat, 0, val);
        *out = bexpr_new(pc, BEXPR_CONST, nat, 0);
        if (*out) (*out)->u.constant = cv;
        break;
    }
    case TYPE_JSON: {
        /* JSON '...' parses its text (as json_parse), unlike CAST('...' AS JSON), which makes a
         * JSON string of it. Invalid text is refused here, as Trino's analyzer does. */
        if (!func_json_text_valid(v, len))
            return bind_error(b, SQE_ERR_INVALID_LITERAL, e->line, e->col,
                              "'%.*s' is not a valid JSON literal", (int)(len > 100 ? 100 : len), v);
        bexpr *str = bexpr_const_str(pc, type_varchar(0), v, len);
        BIND_CHECK(b, str);
        return bind_call_scalar(b, "json_parse", &str, 1, e->line, e->col, out);
    }
    default: {
        /* Everything else is CAST('text' AS type), folded by the optimizer. */
        bexpr *str = bexpr_const_str(pc, type_varchar(0), v, len);
        BIND_CHECK(b, str);
        return bind_cast(b, str, t, true, e->line, e->col, out);
    }
    }
    BIND_CHECK(b, *out);
    return SQE_OK;
}

static const char *interval_unit(int f) {
    switch (f) {
    case SQL_IFIELD_YEAR: return "YEAR";
    case SQL_IFIELD_MONTH: return "MONTH";
    case SQL_IFIELD_DAY: return "DAY";
    case SQL_IFIELD_HOUR: return "HOUR";
    case SQL_IFIELD_MINUTE: return "MINUTE";
    case SQL_IFIELD_SECOND: return "SECOND";
    default: return NULL;
    }
}

static int interval_literal(binder *b, const sql_expr *e, bexpr **out) {
    bool ym;
    int64_t micros = 0;
    int32_t months = 0;
    const char *v = e->u.interval.value;
    int rc = dt_parse_interval(v, strlen(v), interval_unit(e->u.interval.from),
                               interval_unit(e->u.interval.to), &ym, &micros, &months);
    if (rc != 0)
        return bind_error(b, SQE_ERR_INVALID_LITERAL, e->line, e->col,
                          "'%s' is not a valid INTERVAL literal", v);
    if (ym)
        *out = bexpr_const_int64(b->pctx, type_make(TYPE_INTERVAL_YM), (int64_t)months * e->u.interval.sign);
    else
        *out = bexpr_const_int64(b->pctx, type_make(TYPE_INTERVAL_DS), micros * e->u.interval.sign);
    BIND_CHECK(b, *out);
    return SQE_OK;
}

int bind_literal(binder *b, const sql_expr *e, bexpr **out) {
    plan_ctx *pc = b->pctx;
    switch (e->kind) {
    case SQL_EXPR_NULL:
        *out = bexpr_const_null(pc, type_make(TYPE_UNKNOWN));
        break;
    case SQL_EXPR_BOOL:
        *out = bexpr_const_bool(pc, e->u.bool_value);
        break;
    case SQL_EXPR_INTEGER: {
        int64_t v = e->u.num.ival;
        bool small = v >= INT32_MIN && v <= INT32_MAX;
        *out = bexpr_const_int64(pc, type_make(small ? TYPE_INTEGER : TYPE_BIGINT), v);
        break;
    }
    case SQL_EXPR_DECIMAL: {
        const char *text = e->u.num.text;
        sqe_type t;
        int rc = decimal_literal_type(text, strlen(text), &t);
        if (rc == -2)
            return bind_error(b, SQE_ERR_INVALID_LITERAL, e->line, e->col,
                              "Decimal literal %s has more than 38 digits", text);
        if (rc != 0)
            return bind_error(b, SQE_ERR_INVALID_LITERAL, e->line, e->col,
                              "'%s' is not a valid decimal literal", text);
        int128 val;
        if (decimal_parse(text, strlen(text), t.precision, t.scale, &val) != 0)
            return bind_error(b, SQE_ERR_INVALID_LITERAL, e->line, e->col,
                              "'%s' is not a valid decimal literal", text);
        vec *cv = plan_const_vec(pc, t);
        BIND_CHECK(b, cv);
        decimal_put(cv->data, t, 0, val);
        *out = bexpr_new(pc, BEXPR_CONST, t, 0);
        if (*out) (*out)->u.constant = cv;
        break;
    }
    case SQL_EXPR_DOUBLE:
        *out = bexpr_const_double(pc, e->u.num.dval);
        break;
    case SQL_EXPR_STRING:
        *out = bexpr_const_str(pc, type_varchar((uint32_t)utf8_count(e->u.str.data, e->u.str.len)),
                               e->u.str.data, e->u.str.len);
        break;
    case SQL_EXPR_VARBINARY:
        *out = bexpr_const_str(pc, type_make(TYPE_VARBINARY), e->u.str.data, e->u.str.len);
        break;
    case SQL_EXPR_TYPED:
        return typed_literal(b, e, out);
    case SQL_EXPR_INTERVAL:
        return interval_literal(b, e, out);
    case SQL_EXPR_PARAM: {
        int idx = e->u.param_index;
        if (!b->env || idx < 1 || (uint32_t)idx > b->env->n_params || !b->env->params[idx - 1])
            return bind_error(b, SQE_ERR_INVALID_PARAMETER_USAGE, e->line, e->col,
                              "No value provided for parameter %d", idx);
        *out = bexpr_const_from(pc, b->env->params[idx - 1], 0);
        break;
    }
    default:
        return bind_error(b, SQE_ERR_NOT_SUPPORTED, e->line, e->col, "Unsupported literal");
    }
    BIND_CHECK(b, *out);
    (*out)->line = e->line;
    (*out)->col = e->col;
    return SQE_OK;
}
