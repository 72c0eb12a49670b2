/*
 * csv_options.c: read_csv options: defaults, copying, and setting one option from the text of
 * its SQL value (the binder hands every named argument of read_csv to csv_options_set).
 *
 * INTERFACE: csv_options_init, csv_options_reset, csv_options_copy, csv_options_set.
 * NOTES: csv_options_set validates completely before it changes anything, so a failed call
 * leaves the options as they were. The `columns` value is parsed here (names and types through
 * type_parse), so a bad declaration is reported against the option, not later at read time.
 * Unquoted column names are lower-cased as Trino does with identifiers; "quoted" names keep
 * their spelling.
 */
#include "format/csv/csv.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "format/csv/csv_int.h"

void csv_options_init(csv_options *o) {
    memset(o, 0, sizeof *o);
    o->delimiter = 0;
    o->quote = '"';
    o->escape = 0;
    o->comment = 0;
    o->header = CSV_HEADER_AUTO;
    o->null_string = NULL;
    o->sample_size = CSV_DEFAULT_SAMPLE_ROWS;
    o->max_line_size = CSV_DEFAULT_MAX_LINE_SIZE;
}

static void columns_free(csv_column_def *cols, uint32_t n) {
    if (!cols) return;
    for (uint32_t i = 0; i < n; i++) free(cols[i].name);
    free(cols);
}

void csv_options_reset(csv_options *o) {
    free(o->null_string);
    columns_free(o->columns, o->n_columns);
    csv_options_init(o);
}

int csv_options_copy(csv_options *dst, const csv_options *src, sqe_error *err) {
    csv_options tmp = *src;
    tmp.null_string = NULL;
    tmp.columns = NULL;
    tmp.n_columns = 0;
    if (src->null_string) {
        tmp.null_string = strdup(src->null_string);
        if (!tmp.null_string) goto out_nomem;
    }
    if (src->n_columns) {
        tmp.columns = calloc(src->n_columns, sizeof *tmp.columns);
        if (!tmp.columns) goto out_nomem;
        tmp.n_columns = src->n_columns;
        for (uint32_t i = 0; i < src->n_columns; i++) {
            tmp.columns[i].type = src->columns[i].type;
            tmp.columns[i].name = strdup(src->columns[i].name);
            if (!tmp.columns[i].name) goto out_nomem;
        }
    }
    *dst = tmp;
    return SQE_OK;

out_nomem:
    csv_options_reset(&tmp);
    csv_options_init(dst);
    return err_nomem(err, "read_csv options");
}

/* --- value parsing ------------------------------------------------------------------------ */

static int bad_value(sqe_error *err, const char *option, const char *value, const char *why) {
    char shown[128];
    csv_quote_text(value, strlen(value), shown);
    return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                   "Invalid value '%s' for read_csv option '%s': %s", shown, option, why);
}

static bool parse_bool_text(const char *v, bool *out) {
    if (!strcasecmp(v, "true") || !strcmp(v, "1")) {
        *out = true;
        return true;
    }
    if (!strcasecmp(v, "false") || !strcmp(v, "0")) {
        *out = false;
        return true;
    }
    return false;
}

/* One character, "" (none) when allow_none, or the two-character escapes \t and \\. */
static bool parse_char_text(const char *v, bool allow_none, char *out) {
    size_t n = strlen(v);
    if (n == 0) {
        *out = 0;
        return allow_none;
    }
    if (n == 1) {
        *out = v[0];
        return true;
    }
    if (n == 2 && v[0] == '\\') {
        if (v[1] == 't') *out = '\t';
        else if (v[1] == '\\') *out = '\\';
        else return false;
        return true;
    }
    return false;
}

static bool parse_u64_text(const char *v, uint64_t *out) {
    while (isspace((unsigned char)*v)) v++;
    if (!isdigit((unsigned char)*v)) return false;
    errno = 0;
    char *end;
    unsigned long long x = strtoull(v, &end, 10);
    while (isspace((unsigned char)*end)) end++;
    if (errno || *end) return false;
    *out = x;
    return true;
}

/* --- the columns option ------------------------------------------------------------------- */

/* Parses "a bigint, \"B c\" decimal(15,2), ..." into *cols. Returns SQE_OK or an
 * INVALID_ARGUMENTS error naming the option. */
static int parse_columns(const char *text, csv_column_def **cols_out, uint32_t *n_out,
                         sqe_error *err) {
    csv_column_def *cols = NULL;
    uint32_t n = 0, cap = 0;
    const char *p = text;
    int rc = SQE_OK;
    for (;;) {
        while (isspace((unsigned char)*p)) p++;
        if (!*p) break;
        /* name */
        char *name = NULL;
        if (*p == '"') {
            const char *q = ++p;
            size_t len = 0;
            char *buf = malloc(strlen(q) + 1);
            if (!buf) {
                rc = err_nomem(err, "read_csv columns");
                goto out_free;
            }
            while (*q) {
                if (*q == '"') {
                    if (q[1] == '"') {
                        buf[len++] = '"';
                        q += 2;
                        continue;
                    }
                    break;
                }
                buf[len++] = *q++;
            }
            if (*q != '"' || len == 0) {
                free(buf);
                rc = bad_value(err, "columns", text, "unterminated or empty quoted column name");
                goto out_free;
            }
            buf[len] = 0;
            name = buf;
            p = q + 1;
        } else {
            const char *q = p;
            while (*q && (isalnum((unsigned char)*q) || *q == '_' || (unsigned char)*q >= 0x80))
                q++;
            if (q == p) {
                rc = bad_value(err, "columns", text, "expected a column name");
                goto out_free;
            }
            name = strndup(p, (size_t)(q - p));
            if (!name) {
                rc = err_nomem(err, "read_csv columns");
                goto out_free;
            }
            for (char *c = name; *c; c++) *c = (char)tolower((unsigned char)*c);
            p = q;
        }
        /* type: up to the next comma outside parentheses */
        while (isspace((unsigned char)*p)) p++;
        const char *t = p;
        int depth = 0;
        while (*p && (depth > 0 || *p != ',')) {
            if (*p == '(') depth++;
            else if (*p == ')') depth--;
            p++;
        }
        size_t tlen = (size_t)(p - t);
        while (tlen && isspace((unsigned char)t[tlen - 1])) tlen--;
        sqe_type type;
        if (tlen == 0 || type_parse(t, tlen, &type) != 0) {
            char why[160];
            snprintf(why, sizeof why, "column '%.60s' has no valid type", name);
            free(name);
            rc = bad_value(err, "columns", text, why);
            goto out_free;
        }
        if (type_is_nested(type) || type.id == TYPE_INTERVAL_DS || type.id == TYPE_INTERVAL_YM ||
            type.id == TYPE_UNKNOWN) {
            char tname[128], why[256];
            type_format(type, tname, sizeof tname);
            snprintf(why, sizeof why, "type %s of column '%.60s' is not supported", tname, name);
            free(name);
            rc = bad_value(err, "columns", text, why);
            goto out_free;
        }
        for (uint32_t i = 0; i < n; i++) {
            if (strcasecmp(cols[i].name, name) == 0) {
                char why[160];
                snprintf(why, sizeof why, "column '%.60s' is declared twice", name);
                free(name);
                rc = bad_value(err, "columns", text, why);
                goto out_free;
            }
        }
        if (n == CSV_MAX_COLUMNS) {
            free(name);
            rc = bad_value(err, "columns", text, "too many columns");
            goto out_free;
        }
        if (n == cap) {
            uint32_t ncap = cap ? cap * 2 : 8;
            csv_column_def *nc = realloc(cols, ncap * sizeof *nc);
            if (!nc) {
                free(name);
                rc = err_nomem(err, "read_csv columns");
                goto out_free;
            }
            cols = nc;
            cap = ncap;
        }
        cols[n].name = name;
        cols[n].type = type;
        n++;
        if (*p == ',') p++;
    }
    if (n == 0) {
        rc = bad_value(err, "columns", text, "no columns declared");
        goto out_free;
    }
    *cols_out = cols;
    *n_out = n;
    return SQE_OK;

out_free:
    columns_free(cols, n);
    return rc;
}

/* --- csv_options_set ---------------------------------------------------------------------- */

int csv_options_set(csv_options *o, const char *name, const char *value_text, sqe_error *err) {
    if (!name) return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "read_csv option without a name");
    if (!value_text)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "read_csv option '%s' needs a value", name);
    const char *v = value_text;

    if (!strcasecmp(name, "header")) {
        bool b;
        if (!strcasecmp(v, "auto")) {
            o->header = CSV_HEADER_AUTO;
            return SQE_OK;
        }
        if (!parse_bool_text(v, &b)) return bad_value(err, name, v, "expected true or false");
        o->header = b ? CSV_HEADER_TRUE : CSV_HEADER_FALSE;
        return SQE_OK;
    }
    if (!strcasecmp(name, "delimiter") || !strcasecmp(name, "delim") || !strcasecmp(name, "sep")) {
        char c;
        if (!parse_char_text(v, false, &c))
            return bad_value(err, name, v, "expected a single character");
        if (c == '\n' || c == '\r' || (o->quote && c == o->quote) || c == 0)
            return bad_value(err, name, v, "the delimiter cannot be a line break or the quote");
        o->delimiter = c;
        return SQE_OK;
    }
    if (!strcasecmp(name, "quote")) {
        char c;
        if (!parse_char_text(v, true, &c))
            return bad_value(err, name, v, "expected a single character or ''");
        if (c == '\n' || c == '\r' || (c && c == o->delimiter))
            return bad_value(err, name, v, "the quote cannot be a line break or the delimiter");
        o->quote = c;
        return SQE_OK;
    }
    if (!strcasecmp(name, "escape")) {
        char c;
        if (!parse_char_text(v, true, &c))
            return bad_value(err, name, v, "expected a single character or ''");
        if (c == '\n' || c == '\r' || (c && c == o->delimiter))
            return bad_value(err, name, v, "the escape cannot be a line break or the delimiter");
        o->escape = c;
        return SQE_OK;
    }
    if (!strcasecmp(name, "comment")) {
        char c;
        if (!parse_char_text(v, true, &c))
            return bad_value(err, name, v, "expected a single character or ''");
        if (c == '\n' || c == '\r') return bad_value(err, name, v, "cannot be a line break");
        o->comment = c;
        return SQE_OK;
    }
    if (!strcasecmp(name, "null") || !strcasecmp(name, "nullstr") ||
        !strcasecmp(name, "null_string")) {
        if (strchr(v, '\n') || strchr(v, '\r'))
            return bad_value(err, name, v, "cannot contain a line break");
        char *copy = strdup(v);
        if (!copy) return err_nomem(err, "read_csv options");
        free(o->null_string);
        o->null_string = copy;
        return SQE_OK;
    }
    if (!strcasecmp(name, "skip")) {
        uint64_t x;
        if (!parse_u64_text(v, &x))
            return bad_value(err, name, v, "expected a non-negative integer");
        o->skip = x;
        return SQE_OK;
    }
    if (!strcasecmp(name, "sample_size")) {
        uint64_t x;
        if (!strcmp(v, "-1")) {
            o->sample_size = -1;
            return SQE_OK;
        }
        if (!parse_u64_text(v, &x) || x == 0 || x > INT64_MAX)
            return bad_value(err, name, v, "expected a positive number of rows or -1");
        o->sample_size = (int64_t)x;
        return SQE_OK;
    }
    if (!strcasecmp(name, "max_line_size")) {
        uint64_t x;
        if (!parse_u64_text(v, &x) || x < 1 || x > CSV_MAX_LINE_LIMIT)
            return bad_value(err, name, v, "expected a number of bytes between 1 and 268435456");
        o->max_line_size = x;
        return SQE_OK;
    }
    bool *flag = NULL;
    if (!strcasecmp(name, "all_varchar")) flag = &o->all_varchar;
    else if (!strcasecmp(name, "null_padding")) flag = &o->null_padding;
    else if (!strcasecmp(name, "ignore_errors")) flag = &o->ignore_errors;
    if (flag) {
        bool b;
        if (!parse_bool_text(v, &b)) return bad_value(err, name, v, "expected true or false");
        *flag = b;
        return SQE_OK;
    }
    if (!strcasecmp(name, "columns")) {
        csv_column_def *cols = NULL;
        uint32_t n = 0;
        SQE_TRY(parse_columns(v, &cols, &n, err));
        columns_free(o->columns, o->n_columns);
        o->columns = cols;
        o->n_columns = n;
        return SQE_OK;
    }
    char shown[128];
    csv_quote_text(name, strlen(name), shown);
    return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "Unknown read_csv option '%s'", shown);
}
