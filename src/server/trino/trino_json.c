/*
 * trino_json.c: the JSON pieces of Trino's client protocol: column type signatures, row values
 * and query errors.
 *
 * INTERFACE: trino_json_string, trino_json_type_signature, trino_json_columns, trino_json_row,
 *   trino_json_error.
 * NOTES: type signatures follow io.trino.client.ClientTypeSignature: {"rawType", "arguments"},
 * each argument {"kind": "LONG" | "TYPE" | "NAMED_TYPE", "value"}. Unbounded varchar carries
 * LONG 2147483647 as Trino's VarcharType.UNBOUNDED_LENGTH does; time and timestamp types carry
 * their precision; row fields are NAMED_TYPE {"fieldName": {"name"}, "typeSignature"} with the
 * fieldName left out for anonymous fields. Values are encoded by vec_format_json, which already
 * follows Trino's JsonEncodingUtils (numbers, "NaN"/"Infinity" strings, decimal as a string,
 * varbinary in base64, map as an object keyed by the key's text, row as an array).
 */
#include <string.h>

#include "server/trino/trino_int.h"
#include "types/types.h"
#include "vec/vec_format.h"

void trino_json_string(const char *s, strbuf *out) { vec_format_json_string(s, strlen(s), out); }

/* Trino's raw type name of t. */
static const char *raw_type(const sqe_type *t) {
    switch ((type_id)t->id) {
    case TYPE_BOOLEAN: return "boolean";
    case TYPE_TINYINT: return "tinyint";
    case TYPE_SMALLINT: return "smallint";
    case TYPE_INTEGER: return "integer";
    case TYPE_BIGINT: return "bigint";
    case TYPE_REAL: return "real";
    case TYPE_DOUBLE: return "double";
    case TYPE_DECIMAL: return "decimal";
    case TYPE_VARCHAR: return "varchar";
    case TYPE_CHAR: return "char";
    case TYPE_VARBINARY: return "varbinary";
    case TYPE_JSON: return "json";
    case TYPE_DATE: return "date";
    case TYPE_TIME: return "time";
    case TYPE_TIMESTAMP: return "timestamp";
    case TYPE_TIMESTAMP_TZ: return "timestamp with time zone";
    case TYPE_INTERVAL_DS: return "interval day to second";
    case TYPE_INTERVAL_YM: return "interval year to month";
    case TYPE_UUID: return "uuid";
    case TYPE_ARRAY: return "array";
    case TYPE_MAP: return "map";
    case TYPE_ROW: return "row";
    case TYPE_UNKNOWN:
    case TYPE_COUNT_: break;
    }
    return "unknown";
}

static void long_arg(strbuf *out, bool *first, long long value) {
    if (!*first) strbuf_putc(out, ',');
    *first = false;
    strbuf_printf(out, "{\"kind\":\"LONG\",\"value\":%lld}", value);
}

static void signature(const sqe_type *t, uint32_t depth, strbuf *out) {
    strbuf_puts(out, "{\"rawType\":");
    trino_json_string(raw_type(t), out);
    strbuf_puts(out, ",\"arguments\":[");
    bool first = true;
    const type_nested *n = t->nested;
    switch ((type_id)t->id) {
    case TYPE_DECIMAL:
        long_arg(out, &first, t->precision);
        long_arg(out, &first, t->scale);
        break;
    case TYPE_VARCHAR:
        long_arg(out, &first, t->length ? (long long)t->length : 2147483647LL);
        break;
    case TYPE_CHAR:
        long_arg(out, &first, t->length ? (long long)t->length : 1);
        break;
    case TYPE_TIME:
    case TYPE_TIMESTAMP:
    case TYPE_TIMESTAMP_TZ:
        long_arg(out, &first, t->precision);
        break;
    case TYPE_ARRAY:
    case TYPE_MAP:
        /* Nested types are interned and finite; the depth bound only guards a corrupt type. */
        for (uint32_t i = 0; n && depth < 64 && i < n->n_children; i++) {
            if (i) strbuf_putc(out, ',');
            strbuf_puts(out, "{\"kind\":\"TYPE\",\"value\":");
            signature(&n->children[i], depth + 1, out);
            strbuf_putc(out, '}');
        }
        break;
    case TYPE_ROW:
        for (uint32_t i = 0; n && depth < 64 && i < n->n_children; i++) {
            if (i) strbuf_putc(out, ',');
            strbuf_puts(out, "{\"kind\":\"NAMED_TYPE\",\"value\":{");
            const char *name = n->names ? n->names[i] : NULL;
            if (name) {
                strbuf_puts(out, "\"fieldName\":{\"name\":");
                trino_json_string(name, out);
                strbuf_puts(out, "},");
            }
            strbuf_puts(out, "\"typeSignature\":");
            signature(&n->children[i], depth + 1, out);
            strbuf_puts(out, "}}");
        }
        break;
    default:
        break;
    }
    strbuf_puts(out, "]}");
}

void trino_json_type_signature(const struct sqe_type *t, strbuf *out) { signature(t, 0, out); }

void trino_json_columns(const sqe_result *res, strbuf *out) {
    int n = sqe_result_column_count(res);
    strbuf_putc(out, '[');
    for (int i = 0; i < n; i++) {
        if (i) strbuf_putc(out, ',');
        strbuf_puts(out, "{\"name\":");
        trino_json_string(sqe_result_column_name(res, i), out);
        strbuf_puts(out, ",\"type\":");
        trino_json_string(sqe_result_column_type(res, i), out);
        strbuf_puts(out, ",\"typeSignature\":");
        const sqe_type *t = sqe_result_column_sqe_type(res, i);
        sqe_type unknown = type_make(TYPE_UNKNOWN);
        signature(t ? t : &unknown, 0, out);
        strbuf_putc(out, '}');
    }
    strbuf_putc(out, ']');
}

void trino_json_row(const sqe_chunk *chunk, int n_cols, int row, strbuf *out) {
    strbuf_putc(out, '[');
    for (int i = 0; i < n_cols; i++) {
        if (i) strbuf_putc(out, ',');
        const vec *v = sqe_chunk_column(chunk, i);
        if (v)
            vec_format_json(v, (uint32_t)row, out);
        else
            strbuf_puts(out, "null");
    }
    strbuf_putc(out, ']');
}

void trino_json_error(const sqe_error *e, strbuf *out) {
    const err_code_info *info = err_code_lookup(e->code);
    const char *message = e->message[0] ? e->message : info->name;
    strbuf_puts(out, "{\"message\":");
    trino_json_string(message, out);
    strbuf_printf(out, ",\"errorCode\":%d,\"errorName\":", info->trino_code);
    trino_json_string(info->name, out);
    strbuf_puts(out, ",\"errorType\":");
    trino_json_string(info->trino_type, out);
    strbuf_puts(out, ",\"sqlState\":");
    trino_json_string(e->sqlstate[0] ? e->sqlstate : info->sqlstate, out);
    if (e->line > 0 && e->column > 0)
        strbuf_printf(out, ",\"errorLocation\":{\"lineNumber\":%d,\"columnNumber\":%d}", e->line,
                      e->column);
    /* failureInfo.type is the Java exception class in Trino; clients show it, some match on
     * ParsingException for syntax errors. */
    strbuf_puts(out, ",\"failureInfo\":{\"type\":");
    trino_json_string(e->code == SQE_ERR_SYNTAX_ERROR ? "io.trino.sql.parser.ParsingException"
                                                      : "io.trino.spi.TrinoException",
                      out);
    strbuf_puts(out, ",\"message\":");
    trino_json_string(message, out);
    strbuf_puts(out, ",\"suppressed\":[],\"stack\":[]");
    if (e->line > 0 && e->column > 0)
        strbuf_printf(out, ",\"errorLocation\":{\"lineNumber\":%d,\"columnNumber\":%d}", e->line,
                      e->column);
    strbuf_puts(out, "}}");
}
