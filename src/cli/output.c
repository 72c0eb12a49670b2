/*
 * output.c: the shell's result formatters: table, csv, tsv and json (see output.h).
 *
 * A formatter receives column names, Trino type names and rows of cell texts, and writes them to
 * a FILE. csv, tsv and json stream every row as it comes. The table format buffers up to
 * CLI_TABLE_BUFFER_ROWS rows (or TABLE_BUFFER_BYTES of text) to compute the column widths, prints
 * them, and prints later rows with the same widths, shortening cells that do not fit with "…".
 *
 * INTERFACE: cli_format_parse, cli_format_name, cli_output_create, cli_output_row,
 *   cli_output_finish, cli_output_abort, cli_output_destroy, cli_output_row_count,
 *   cli_output_update_count, cli_output_ok, cli_output_error, cli_error_print,
 *   cli_json_write_string, cli_json_is_number.
 * NOTES:
 *   - Numbers (integer types, real, double, decimal) are right-aligned in the table format.
 *   - JSON: integer, real and double cells whose text is a JSON number are written bare (NaN and
 *     Infinity become strings), booleans bare, everything else (decimal, varchar, date, nested
 *     types) as strings; NULL as null. Column names are the object keys, in column order.
 *   - Widths count display columns of UTF-8 text (wide East Asian characters count two).
 */
#include "cli/output.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define TABLE_BUFFER_BYTES ((size_t)64 << 20)

typedef enum value_kind {
    KIND_TEXT,    /* varchar, date, nested types, ...: strings */
    KIND_INTEGER, /* tinyint, smallint, integer, bigint */
    KIND_FLOAT,   /* real, double */
    KIND_DECIMAL, /* decimal(p,s): right-aligned, a string in JSON */
    KIND_BOOLEAN
} value_kind;

struct cli_output {
    FILE *fp;
    cli_format fmt;
    int n_cols;
    char **names;        /* owned copies */
    char **types;        /* owned copies */
    value_kind *kinds;   /* per column */
    int64_t n_rows;      /* rows received */
    /* table */
    char ***buffered;    /* rows waiting for the widths; each one malloc block, NULL cell = NULL */
    size_t n_buffered;
    size_t cap_buffered;
    size_t buffered_bytes;
    size_t *widths;      /* display width of each column (without the padding) */
    int header_printed;  /* 1 once the widths are fixed and the header is out */
    /* json */
    char *json_keys;     /* all keys pre-rendered: "\"a\":\0\"b\":\0" */
    char **json_key;     /* per column, into json_keys */
};

/* ---- formats ------------------------------------------------------------------------------- */

static const char *const format_names[] = {"table", "csv", "tsv", "json"};

int cli_format_parse(const char *name, cli_format *out) {
    for (size_t i = 0; i < sizeof format_names / sizeof format_names[0]; i++) {
        if (strcasecmp(name, format_names[i]) == 0) {
            *out = (cli_format)i;
            return 0;
        }
    }
    return -1;
}

const char *cli_format_name(cli_format fmt) {
    if ((size_t)fmt < sizeof format_names / sizeof format_names[0]) return format_names[fmt];
    return "table";
}

static value_kind kind_of(const char *type) {
    static const char *const integers[] = {"tinyint", "smallint", "integer", "int", "bigint"};
    if (!type) return KIND_TEXT;
    for (size_t i = 0; i < sizeof integers / sizeof integers[0]; i++)
        if (strcasecmp(type, integers[i]) == 0) return KIND_INTEGER;
    if (strcasecmp(type, "real") == 0 || strcasecmp(type, "double") == 0) return KIND_FLOAT;
    if (strncasecmp(type, "decimal", 7) == 0) return KIND_DECIMAL;
    if (strcasecmp(type, "boolean") == 0) return KIND_BOOLEAN;
    return KIND_TEXT;
}

/* ---- UTF-8 display width ------------------------------------------------------------------- */

/* Decodes one UTF-8 sequence at s (s[0] != 0). Sets *cp (U+FFFD for a bad byte) and returns the
 * number of bytes consumed (1 for a bad byte). */
static size_t utf8_decode(const unsigned char *s, unsigned *cp) {
    unsigned c = s[0];
    size_t n;
    unsigned min;
    if (c < 0x80) {
        *cp = c;
        return 1;
    } else if ((c & 0xE0) == 0xC0) {
        n = 2, c &= 0x1F, min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
        n = 3, c &= 0x0F, min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
        n = 4, c &= 0x07, min = 0x10000;
    } else {
        *cp = 0xFFFD;
        return 1;
    }
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80) {
            *cp = 0xFFFD;
            return 1;
        }
        c = (c << 6) | (s[i] & 0x3F);
    }
    if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) {
        *cp = 0xFFFD;
        return 1;
    }
    *cp = c;
    return n;
}

static int codepoint_width(unsigned cp) {
    if ((cp >= 0x0300 && cp <= 0x036F) || (cp >= 0x200B && cp <= 0x200F)) return 0;
    if ((cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0xA4CF) ||
        (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) ||
        (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF60) ||
        (cp >= 0xFFE0 && cp <= 0xFFE6) || (cp >= 0x1F300 && cp <= 0x1F64F) ||
        (cp >= 0x1F900 && cp <= 0x1F9FF) || (cp >= 0x20000 && cp <= 0x3FFFD))
        return 2;
    return 1;
}

static size_t display_width(const char *s) {
    size_t width = 0;
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        unsigned cp;
        p += utf8_decode(p, &cp);
        width += (size_t)codepoint_width(cp);
    }
    return width;
}

/* The number of bytes of s that fit in max_width display columns. */
static size_t prefix_fitting(const char *s, size_t max_width, size_t *width_out) {
    size_t width = 0;
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        unsigned cp;
        size_t n = utf8_decode(p, &cp);
        size_t w = (size_t)codepoint_width(cp);
        if (width + w > max_width) break;
        width += w;
        p += n;
    }
    *width_out = width;
    return (size_t)(p - (const unsigned char *)s);
}

/* ---- creation ------------------------------------------------------------------------------ */

static char *dup_or_empty(const char *s) { return strdup(s ? s : ""); }

int cli_output_create(FILE *fp, cli_format fmt, int n_cols, const char *const *names,
                      const char *const *types, cli_output **out) {
    *out = NULL;
    cli_output *o = calloc(1, sizeof *o);
    if (!o) return -1;
    o->fp = fp;
    o->fmt = fmt;
    o->n_cols = n_cols < 0 ? 0 : n_cols;
    size_t n = (size_t)o->n_cols;
    o->names = calloc(n + 1, sizeof *o->names);
    o->types = calloc(n + 1, sizeof *o->types);
    o->kinds = calloc(n + 1, sizeof *o->kinds);
    o->widths = calloc(n + 1, sizeof *o->widths);
    o->json_key = calloc(n + 1, sizeof *o->json_key);
    if (!o->names || !o->types || !o->kinds || !o->widths || !o->json_key) goto out_fail;
    for (size_t i = 0; i < n; i++) {
        o->names[i] = dup_or_empty(names ? names[i] : NULL);
        o->types[i] = dup_or_empty(types ? types[i] : NULL);
        if (!o->names[i] || !o->types[i]) goto out_fail;
        o->kinds[i] = kind_of(o->types[i]);
    }
    if (fmt == CLI_FORMAT_JSON) {
        /* Pre-render the object keys once: "name": for each column, NUL-separated. */
        size_t keys_len = 0;
        FILE *ms = open_memstream(&o->json_keys, &keys_len);
        if (!ms) goto out_fail;
        long *offsets = calloc(n + 1, sizeof *offsets);
        if (!offsets) {
            fclose(ms);
            goto out_fail;
        }
        for (size_t i = 0; i < n; i++) {
            offsets[i] = ftell(ms);
            cli_json_write_string(ms, o->names[i]);
            fputc(':', ms);
            fputc('\0', ms);
        }
        int bad = ferror(ms);
        if (fclose(ms) != 0 || bad || !o->json_keys) {
            free(offsets);
            goto out_fail;
        }
        for (size_t i = 0; i < n; i++) o->json_key[i] = o->json_keys + offsets[i];
        free(offsets);
    }
    *out = o;
    return 0;

out_fail:
    cli_output_destroy(o);
    return -1;
}

void cli_output_destroy(cli_output *out) {
    if (!out) return;
    for (size_t i = 0; i < out->n_buffered; i++) free(out->buffered[i]);
    free(out->buffered);
    for (int i = 0; i < out->n_cols; i++) {
        if (out->names) free(out->names[i]);
        if (out->types) free(out->types[i]);
    }
    free(out->names);
    free(out->types);
    free(out->kinds);
    free(out->widths);
    free(out->json_keys);
    free(out->json_key);
    free(out);
}

int64_t cli_output_row_count(const cli_output *out) { return out->n_rows; }

/* ---- table --------------------------------------------------------------------------------- */

/* Length of s rendered for a table cell: control characters become \n, \r, \t or \xNN. */
static size_t table_text_len(const char *s) {
    size_t len = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '\n' || *p == '\r' || *p == '\t') len += 2;
        else if (*p < 0x20 || *p == 0x7F) len += 4;
        else len++;
    }
    return len;
}

static char *table_text_write(char *dst, const char *s) {
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '\n') *dst++ = '\\', *dst++ = 'n';
        else if (*p == '\r') *dst++ = '\\', *dst++ = 'r';
        else if (*p == '\t') *dst++ = '\\', *dst++ = 't';
        else if (*p < 0x20 || *p == 0x7F) {
            static const char hex[] = "0123456789abcdef";
            *dst++ = '\\', *dst++ = 'x', *dst++ = hex[*p >> 4], *dst++ = hex[*p & 15];
        } else
            *dst++ = (char)*p;
    }
    *dst++ = '\0';
    return dst;
}

/* Copies a row into one malloc block: n_cols pointers, then the rendered texts. */
static char **table_row_copy(int n_cols, const char *const *cells, size_t *bytes_out) {
    size_t bytes = (size_t)n_cols * sizeof(char *);
    for (int i = 0; i < n_cols; i++)
        if (cells[i]) bytes += table_text_len(cells[i]) + 1;
    char **row = malloc(bytes ? bytes : 1);
    if (!row) return NULL;
    char *text = (char *)(row + n_cols);
    for (int i = 0; i < n_cols; i++) {
        if (!cells[i]) {
            row[i] = NULL;
            continue;
        }
        row[i] = text;
        text = table_text_write(text, cells[i]);
    }
    *bytes_out = bytes;
    return row;
}

static void put_repeat(FILE *fp, const char *s, size_t n) {
    for (size_t i = 0; i < n; i++) fputs(s, fp);
}

static void table_rule(const cli_output *o, const char *left, const char *mid, const char *right) {
    fputs(left, o->fp);
    for (int i = 0; i < o->n_cols; i++) {
        if (i) fputs(mid, o->fp);
        put_repeat(o->fp, "─", o->widths[i] + 2);
    }
    fputs(right, o->fp);
    fputc('\n', o->fp);
}

typedef enum align { ALIGN_LEFT, ALIGN_RIGHT, ALIGN_CENTER } align;

/* Writes text padded to width (shortened with "…" when it is wider). */
static void table_cell(FILE *fp, const char *text, size_t width, align how) {
    size_t w = display_width(text);
    size_t len = strlen(text);
    int cut = 0;
    if (w > width) {
        len = prefix_fitting(text, width ? width - 1 : 0, &w);
        cut = 1;
    }
    size_t pad = width - w - (size_t)cut;
    size_t before = how == ALIGN_RIGHT ? pad : how == ALIGN_CENTER ? pad / 2 : 0;
    fputc(' ', fp);
    put_repeat(fp, " ", before);
    fwrite(text, 1, len, fp);
    if (cut && width) fputs("…", fp);
    put_repeat(fp, " ", pad - before);
    fputc(' ', fp);
}

static void table_print_row(const cli_output *o, char *const *row) {
    fputs("│", o->fp);
    for (int i = 0; i < o->n_cols; i++) {
        const char *text = row[i] ? row[i] : "NULL";
        align how = o->kinds[i] == KIND_TEXT || o->kinds[i] == KIND_BOOLEAN ? ALIGN_LEFT
                                                                            : ALIGN_RIGHT;
        table_cell(o->fp, text, o->widths[i], how);
        fputs("│", o->fp);
    }
    fputc('\n', o->fp);
}

/* Fixes the widths from the header and the buffered rows, prints the header and those rows. */
static void table_flush(cli_output *o) {
    if (!o->header_printed) {
        for (int i = 0; i < o->n_cols; i++) {
            size_t w = display_width(o->names[i]);
            size_t tw = display_width(o->types[i]);
            if (tw > w) w = tw;
            for (size_t r = 0; r < o->n_buffered; r++) {
                size_t cw = o->buffered[r][i] ? display_width(o->buffered[r][i]) : 4;
                if (cw > w) w = cw;
            }
            o->widths[i] = w ? w : 1;
        }
        if (o->n_cols > 0) {
            table_rule(o, "┌", "┬", "┐");
            fputs("│", o->fp);
            for (int i = 0; i < o->n_cols; i++) {
                char *name = malloc(table_text_len(o->names[i]) + 1);
                if (name) table_text_write(name, o->names[i]);
                table_cell(o->fp, name ? name : "?", o->widths[i], ALIGN_CENTER);
                free(name);
                fputs("│", o->fp);
            }
            fputs("\n│", o->fp);
            for (int i = 0; i < o->n_cols; i++) {
                table_cell(o->fp, o->types[i], o->widths[i], ALIGN_CENTER);
                fputs("│", o->fp);
            }
            fputc('\n', o->fp);
            table_rule(o, "├", "┼", "┤");
        }
        o->header_printed = 1;
    }
    for (size_t r = 0; r < o->n_buffered; r++) {
        if (o->n_cols > 0) table_print_row(o, o->buffered[r]);
        free(o->buffered[r]);
    }
    o->n_buffered = 0;
    o->buffered_bytes = 0;
}

static int table_row(cli_output *o, const char *const *cells) {
    size_t bytes;
    char **row = table_row_copy(o->n_cols, cells, &bytes);
    if (!row) return -1;
    if (o->header_printed) {
        if (o->n_cols > 0) table_print_row(o, row);
        free(row);
        return 0;
    }
    if (o->n_buffered == o->cap_buffered) {
        size_t cap = o->cap_buffered ? o->cap_buffered * 2 : 64;
        char ***grown = realloc(o->buffered, cap * sizeof *grown);
        if (!grown) {
            free(row);
            return -1;
        }
        o->buffered = grown;
        o->cap_buffered = cap;
    }
    o->buffered[o->n_buffered++] = row;
    o->buffered_bytes += bytes;
    if (o->n_buffered >= CLI_TABLE_BUFFER_ROWS || o->buffered_bytes >= TABLE_BUFFER_BYTES)
        table_flush(o);
    return 0;
}

static void table_finish(cli_output *o) {
    table_flush(o);
    if (o->n_cols > 0) table_rule(o, "└", "┴", "┘");
    fprintf(o->fp, "(%lld row%s)\n", (long long)o->n_rows, o->n_rows == 1 ? "" : "s");
}

/* ---- csv and tsv --------------------------------------------------------------------------- */

/* RFC 4180: a field holding a comma, a quote or a line break is quoted, quotes doubled. An empty
 * string is written as "" so that it differs from NULL (an empty field). */
static void csv_field(FILE *fp, const char *s) {
    if (!s) return;
    if (*s && !strpbrk(s, ",\"\r\n")) {
        fputs(s, fp);
        return;
    }
    fputc('"', fp);
    for (const char *p = s; *p; p++) {
        if (*p == '"') fputc('"', fp);
        fputc(*p, fp);
    }
    fputc('"', fp);
}

/* TSV: no quoting; tab, newline, carriage return and backslash are escaped; NULL is empty. */
static void tsv_field(FILE *fp, const char *s) {
    if (!s) return;
    for (const char *p = s; *p; p++) {
        switch (*p) {
        case '\t': fputs("\\t", fp); break;
        case '\n': fputs("\\n", fp); break;
        case '\r': fputs("\\r", fp); break;
        case '\\': fputs("\\\\", fp); break;
        default: fputc(*p, fp);
        }
    }
}

static void delimited_line(FILE *fp, cli_format fmt, int n_cols, const char *const *cells) {
    for (int i = 0; i < n_cols; i++) {
        if (i) fputc(fmt == CLI_FORMAT_CSV ? ',' : '\t', fp);
        if (fmt == CLI_FORMAT_CSV) csv_field(fp, cells[i]);
        else tsv_field(fp, cells[i]);
    }
    fputc('\n', fp);
}

/* ---- json ---------------------------------------------------------------------------------- */

void cli_json_write_string(FILE *fp, const char *s) {
    static const char hex[] = "0123456789abcdef";
    fputc('"', fp);
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        unsigned char c = *p;
        if (c == '"' || c == '\\') {
            fputc('\\', fp);
            fputc(c, fp);
            p++;
        } else if (c < 0x20) {
            switch (c) {
            case '\n': fputs("\\n", fp); break;
            case '\r': fputs("\\r", fp); break;
            case '\t': fputs("\\t", fp); break;
            case '\b': fputs("\\b", fp); break;
            case '\f': fputs("\\f", fp); break;
            default: fprintf(fp, "\\u00%c%c", hex[c >> 4], hex[c & 15]);
            }
            p++;
        } else if (c < 0x80) {
            fputc(c, fp);
            p++;
        } else {
            unsigned cp;
            size_t n = utf8_decode(p, &cp);
            if (cp == 0xFFFD && n == 1) fputs("\\ufffd", fp);
            else fwrite(p, 1, n, fp);
            p += n;
        }
    }
    fputc('"', fp);
}

int cli_json_is_number(const char *s) {
    const char *p = s;
    if (*p == '-') p++;
    if (*p == '0') p++;
    else if (*p >= '1' && *p <= '9')
        while (*p >= '0' && *p <= '9') p++;
    else
        return 0;
    if (*p == '.') {
        p++;
        if (!(*p >= '0' && *p <= '9')) return 0;
        while (*p >= '0' && *p <= '9') p++;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-') p++;
        if (!(*p >= '0' && *p <= '9')) return 0;
        while (*p >= '0' && *p <= '9') p++;
    }
    return *p == '\0';
}

static void json_value(FILE *fp, value_kind kind, const char *s) {
    if (!s) {
        fputs("null", fp);
        return;
    }
    switch (kind) {
    case KIND_INTEGER:
    case KIND_FLOAT:
        if (cli_json_is_number(s)) {
            fputs(s, fp);
            return;
        }
        break;
    case KIND_BOOLEAN:
        if (strcmp(s, "true") == 0 || strcmp(s, "false") == 0) {
            fputs(s, fp);
            return;
        }
        break;
    default: break;
    }
    cli_json_write_string(fp, s);
}

static void json_row(cli_output *o, const char *const *cells) {
    fputc(o->n_rows == 0 ? '[' : ',', o->fp);
    fputc('{', o->fp);
    for (int i = 0; i < o->n_cols; i++) {
        if (i) fputc(',', o->fp);
        fputs(o->json_key[i], o->fp);
        json_value(o->fp, o->kinds[i], cells[i]);
    }
    fputc('}', o->fp);
}

/* ---- rows and endings ---------------------------------------------------------------------- */

int cli_output_row(cli_output *out, const char *const *cells) {
    int rc = 0;
    switch (out->fmt) {
    case CLI_FORMAT_TABLE: rc = table_row(out, cells); break;
    case CLI_FORMAT_CSV:
    case CLI_FORMAT_TSV:
        if (out->n_rows == 0) delimited_line(out->fp, out->fmt, out->n_cols,
                                              (const char *const *)out->names);
        delimited_line(out->fp, out->fmt, out->n_cols, cells);
        break;
    case CLI_FORMAT_JSON: json_row(out, cells); break;
    }
    if (rc == 0) out->n_rows++;
    return rc;
}

int cli_output_finish(cli_output *out) {
    switch (out->fmt) {
    case CLI_FORMAT_TABLE: table_finish(out); break;
    case CLI_FORMAT_CSV:
    case CLI_FORMAT_TSV:
        if (out->n_rows == 0) delimited_line(out->fp, out->fmt, out->n_cols,
                                              (const char *const *)out->names);
        break;
    case CLI_FORMAT_JSON: fputs(out->n_rows == 0 ? "[]\n" : "]\n", out->fp); break;
    }
    return 0;
}

int cli_output_abort(cli_output *out) {
    switch (out->fmt) {
    case CLI_FORMAT_TABLE:
        if (out->n_rows > 0 || out->header_printed) {
            table_flush(out);
            if (out->n_cols > 0) table_rule(out, "└", "┴", "┘");
        }
        return 0;
    case CLI_FORMAT_JSON:
        if (out->n_rows == 0) return 0;
        fputc('\n', out->fp);
        return 1;
    default: return 0;
    }
}

void cli_output_update_count(FILE *fp, cli_format fmt, int64_t n_rows) {
    if (fmt == CLI_FORMAT_JSON) fprintf(fp, "{\"rows\": %lld}\n", (long long)n_rows);
    else if (fmt == CLI_FORMAT_TABLE)
        fprintf(fp, "(%lld row%s affected)\n", (long long)n_rows, n_rows == 1 ? "" : "s");
}

void cli_output_ok(FILE *fp, cli_format fmt) {
    if (fmt == CLI_FORMAT_JSON) fputs("{\"ok\": true}\n", fp);
}

void cli_output_error(FILE *fp, cli_format fmt, const char *message, const char *sqlstate,
                      int line, int column) {
    if (fmt != CLI_FORMAT_JSON) return;
    fputs("{\"error\": {\"message\": ", fp);
    cli_json_write_string(fp, message ? message : "");
    fputs(", \"sqlstate\": ", fp);
    cli_json_write_string(fp, sqlstate ? sqlstate : "");
    fprintf(fp, ", \"line\": %d, \"column\": %d}}\n", line, column);
}

void cli_error_print(FILE *fp, const char *message, const char *sqlstate, int line, int column) {
    fprintf(fp, "Error: %s", message && *message ? message : "unknown error");
    if (sqlstate && *sqlstate) fprintf(fp, " (SQLSTATE %s)", sqlstate);
    if (line > 0) fprintf(fp, " at line %d, column %d", line, column);
    fputc('\n', fp);
}
