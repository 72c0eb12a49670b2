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
 *     Infinity become strings), booleans bare, every other scalar (decimal, varchar, date, ...)
 *     as a string; NULL as null. Column names are the object keys, in column order.
 *   - JSON of nested values: ARRAY is a JSON array, ROW an object keyed by field name (fieldN
 *     when anonymous), MAP an object when its key type is varchar/char and otherwise an array of
 *     [key, value] pairs; elements are written like top-level scalars, NULL as null. The
 *     formatter only sees the engine's text ("[1, 2]", "{a=1}", "{x=1, y=abc}"), so it parses
 *     that text guided by the column's type name: a varchar element ends at the first separator
 *     its position allows (", " or "]" in an array; "=" after a map key; ", " or "}" after a map
 *     value; ", <next field>=" or "}" after a row field), and an element whose text is "NULL"
 *     is null; json elements are skipped as JSON text (brackets and strings balanced). Strings
 *     holding those separators, equal to "NULL" or empty (ARRAY[''] prints "[]") are ambiguous
 *     in the text and may be split wrongly; a cell whose text does not parse against its type is
 *     written as a JSON string, as before. An exact encoding needs the values, not their text
 *     (a sqe_chunk accessor for nested values in the public API).
 *   - Widths count display columns of UTF-8 text (wide East Asian characters count two).
 */
#include "cli/output.h"
#include "common/utf8.h"

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

/* The shape of a nested column type, parsed from its Trino name (see "json: nested values"). */
typedef struct json_type json_type;
struct json_type {
    char nest;            /* 0 scalar, 'a' array, 'm' map, 'r' row */
    value_kind kind;      /* scalar: how its values are written */
    int is_string;        /* scalar: varchar or char */
    int is_json;          /* scalar: json (its text delimits itself) */
    int string_keys;      /* map: the key is varchar/char, so the map is a JSON object */
    uint32_t n_children;
    json_type **children; /* array: [element]; map: [key, value]; row: the fields */
    char **names;         /* row: field names, "fieldN" for anonymous fields */
    char **seps;          /* row: what ends field i in the text: ", <name i+1>=", last "}" */
};

static void json_type_destroy(json_type *t);
static json_type *json_type_parse(const char *type_name);

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
    json_type **json_types; /* per column: the nested type's shape, NULL for scalar columns */
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

/* Decodes one UTF-8 sequence at s (at most len bytes, len >= 1): sets *cp (U+FFFD for a bad
 * byte) and returns the number of bytes consumed (1 for a bad byte). */
static size_t decode_or_replacement(const unsigned char *s, size_t len, unsigned *cp) {
    uint32_t c;
    size_t n = utf8_decode((const char *)s, len, &c);
    *cp = n ? c : 0xFFFD;
    return n ? n : 1;
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
        p += decode_or_replacement(p, strnlen((const char *)p, 4), &cp);
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
        size_t n = decode_or_replacement(p, strnlen((const char *)p, 4), &cp);
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
    o->json_types = calloc(n + 1, sizeof *o->json_types);
    if (!o->names || !o->types || !o->kinds || !o->widths || !o->json_key || !o->json_types)
        goto out_fail;
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
        /* A nested type whose name does not parse (or no memory to hold it) keeps its cells
         * written as strings. */
        for (size_t i = 0; i < n; i++) o->json_types[i] = json_type_parse(o->types[i]);
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
        if (out->json_types) json_type_destroy(out->json_types[i]);
    }
    free(out->json_types);
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

/* Writes s[0..len) as a JSON string literal (see cli_json_write_string). */
static void json_string_n(FILE *fp, const char *s, size_t len) {
    static const char hex[] = "0123456789abcdef";
    fputc('"', fp);
    const unsigned char *p = (const unsigned char *)s;
    const unsigned char *end = p + len;
    while (p < end) {
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
            size_t n = decode_or_replacement(p, (size_t)(end - p), &cp);
            if (cp == 0xFFFD && n == 1) fputs("\\ufffd", fp);
            else fwrite(p, 1, n, fp);
            p += n;
        }
    }
    fputc('"', fp);
}

void cli_json_write_string(FILE *fp, const char *s) { json_string_n(fp, s, strlen(s)); }

/* 1 if s[0..len) is a number in JSON's grammar. */
static int json_is_number_n(const char *s, size_t len) {
    const char *p = s;
    const char *end = s + len;
#define AT(ch) (p < end && *p == (ch))
#define DIGIT() (p < end && *p >= '0' && *p <= '9')
    if (AT('-')) p++;
    if (AT('0')) p++;
    else if (p < end && *p >= '1' && *p <= '9')
        while (DIGIT()) p++;
    else
        return 0;
    if (AT('.')) {
        p++;
        if (!DIGIT()) return 0;
        while (DIGIT()) p++;
    }
    if (AT('e') || AT('E')) {
        p++;
        if (AT('+') || AT('-')) p++;
        if (!DIGIT()) return 0;
        while (DIGIT()) p++;
    }
#undef AT
#undef DIGIT
    return p == end;
}

int cli_json_is_number(const char *s) { return json_is_number_n(s, strlen(s)); }

/* Writes the scalar text s[0..len) as the JSON token of its kind. */
static void json_token(FILE *fp, value_kind kind, const char *s, size_t len) {
    switch (kind) {
    case KIND_INTEGER:
    case KIND_FLOAT:
        if (json_is_number_n(s, len)) {
            fwrite(s, 1, len, fp);
            return;
        }
        break;
    case KIND_BOOLEAN:
        if ((len == 4 && memcmp(s, "true", 4) == 0) || (len == 5 && memcmp(s, "false", 5) == 0)) {
            fwrite(s, 1, len, fp);
            return;
        }
        break;
    default: break;
    }
    json_string_n(fp, s, len);
}

/* ---- json: nested values ------------------------------------------------------------------- */

/* Nesting deeper than this in a type name is left to the string form. */
#define JSON_TYPE_MAX_DEPTH 100

static void json_type_destroy(json_type *t) {
    if (!t) return;
    for (uint32_t i = 0; i < t->n_children; i++) {
        json_type_destroy(t->children[i]);
        if (t->names) free(t->names[i]);
        if (t->seps) free(t->seps[i]);
    }
    free(t->children);
    free(t->names);
    free(t->seps);
    free(t);
}

/* Reads the name of a row field at *pp, as type_format writes it: an identifier or a quoted
 * name ("" for a quote) followed by a space; anonymous fields get "field<idx>". Returns a malloc'd
 * name with *pp past it, or NULL when out of memory or malformed. */
static char *row_field_name(const char **pp, uint32_t idx) {
    const char *p = *pp;
    if (*p == '"') {
        char *name = malloc(strlen(p) + 1);
        size_t n = 0;
        if (!name) return NULL;
        for (p++;; p++) {
            if (*p == '\0') {
                free(name);
                return NULL;
            }
            if (*p == '"') {
                if (p[1] != '"') break;
                p++;
            }
            name[n++] = *p;
        }
        name[n] = '\0';
        if (p[1] != ' ') {
            free(name);
            return NULL;
        }
        *pp = p + 2;
        return name;
    }
    const char *q = p;
    while ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9') ||
           *q == '_')
        q++;
    /* "interval day to second" and "interval year to month" are the type names that start with
     * a word and a space (a field may still be named "interval"). */
    int interval_type = strncasecmp(p, "interval day to ", 16) == 0 ||
                        strncasecmp(p, "interval year to ", 17) == 0;
    if (q > p && *q == ' ' && !interval_type) {
        *pp = q + 1;
        return strndup(p, (size_t)(q - p));
    }
    char buf[32];
    snprintf(buf, sizeof buf, "field%u", idx);
    return strdup(buf);
}

/* Adds child (and, for rows, its name) to t; frees both and returns -1 when out of memory. */
static int json_type_add(json_type *t, json_type *child, char *name) {
    size_t n = (size_t)t->n_children + 1;
    json_type **children = realloc(t->children, n * sizeof *children);
    if (children) t->children = children;
    char **names = t->nest == 'r' ? realloc(t->names, n * sizeof *names) : NULL;
    if (names) t->names = names;
    if (!children || (t->nest == 'r' && !names)) {
        json_type_destroy(child);
        free(name);
        return -1;
    }
    t->children[t->n_children] = child;
    if (t->nest == 'r') t->names[t->n_children] = name;
    t->n_children++;
    return 0;
}

/* Parses the type name at *pp up to the ',' or ')' that ends it (or the end of the text). */
static json_type *type_node_parse(const char **pp, int depth) {
    const char *p = *pp;
    json_type *t = calloc(1, sizeof *t);
    if (!t || depth > JSON_TYPE_MAX_DEPTH) goto out_fail;
    if (strncasecmp(p, "array(", 6) == 0) t->nest = 'a', p += 6;
    else if (strncasecmp(p, "map(", 4) == 0) t->nest = 'm', p += 4;
    else if (strncasecmp(p, "row(", 4) == 0) t->nest = 'r', p += 4;
    if (!t->nest) {
        /* A scalar: everything up to a ',' or ')' outside its own parentheses, such as
         * "decimal(12,2)" or "timestamp(3) with time zone". */
        const char *start = p;
        int parens = 0;
        for (; *p && !(parens == 0 && (*p == ',' || *p == ')')); p++) {
            if (*p == '(') parens++;
            else if (*p == ')') parens--;
        }
        char *name = strndup(start, (size_t)(p - start));
        if (!name) goto out_fail;
        t->kind = kind_of(name);
        t->is_string = strncasecmp(name, "varchar", 7) == 0 || strncasecmp(name, "char", 4) == 0;
        t->is_json = strcasecmp(name, "json") == 0;
        free(name);
        *pp = p;
        return t;
    }
    for (;;) {
        char *name = NULL;
        if (t->nest == 'r' && !(name = row_field_name(&p, t->n_children))) goto out_fail;
        json_type *child = type_node_parse(&p, depth + 1);
        if (!child) {
            free(name);
            goto out_fail;
        }
        if (json_type_add(t, child, name) != 0) goto out_fail;
        if (*p == ',') {
            p += p[1] == ' ' ? 2 : 1;
            continue;
        }
        if (*p != ')') goto out_fail;
        p++;
        break;
    }
    if ((t->nest == 'a' && t->n_children != 1) || (t->nest == 'm' && t->n_children != 2))
        goto out_fail;
    if (t->nest == 'm')
        t->string_keys = t->children[0]->nest == 0 && t->children[0]->is_string;
    if (t->nest == 'r') {
        t->seps = calloc(t->n_children, sizeof *t->seps);
        if (!t->seps) goto out_fail;
        for (uint32_t i = 0; i < t->n_children; i++) {
            if (i + 1 == t->n_children) {
                t->seps[i] = strdup("}");
            } else {
                size_t len = strlen(t->names[i + 1]) + 4;
                t->seps[i] = malloc(len);
                if (t->seps[i]) snprintf(t->seps[i], len, ", %s=", t->names[i + 1]);
            }
            if (!t->seps[i]) goto out_fail;
        }
    }
    *pp = p;
    return t;

out_fail:
    json_type_destroy(t);
    return NULL;
}

/* The shape of a nested type name ("array(row(x integer, y varchar))"); NULL for scalar types
 * and for names that do not parse. */
static json_type *json_type_parse(const char *type_name) {
    const char *p = type_name;
    json_type *t = type_node_parse(&p, 0);
    if (t && (t->nest == 0 || *p != '\0')) {
        json_type_destroy(t);
        t = NULL;
    }
    return t;
}

/* A cursor over a nested cell's text. With fp NULL nothing is written: json_nested runs once
 * that way to check the text parses, then again to write it. */
typedef struct text_cursor {
    const char *p;   /* next byte to read */
    const char *end; /* end of the cell text */
    FILE *fp;
} text_cursor;

static int starts_with(const text_cursor *c, const char *at, const char *lit) {
    size_t len = strlen(lit);
    return (size_t)(c->end - at) >= len && memcmp(at, lit, len) == 0;
}

/* Consumes lit when the text continues with it; returns 1 if it did. */
static int take(text_cursor *c, const char *lit) {
    if (!starts_with(c, c->p, lit)) return 0;
    c->p += strlen(lit);
    return 1;
}

static void put(text_cursor *c, const char *s) {
    if (c->fp) fputs(s, c->fp);
}

/* 1 if a value ending at `at` is followed by one of its terminators (stop2 may be NULL; a NULL
 * stop1 means the value runs to the end of the text). */
static int at_stop(const text_cursor *c, const char *at, const char *stop1, const char *stop2) {
    if (!stop1) return at == c->end;
    return starts_with(c, at, stop1) || (stop2 && starts_with(c, at, stop2));
}

/* The end of a scalar's text starting at c->p: the first place a terminator follows. */
static const char *scalar_end(const text_cursor *c, const char *stop1, const char *stop2) {
    if (!stop1) return c->end;
    for (const char *q = c->p; q < c->end; q++)
        if (at_stop(c, q, stop1, stop2)) return q;
    return NULL;
}

/* The end of the JSON text starting at c->p (an element of type json): strings and brackets are
 * skipped whole, so separators inside the document do not end it. NULL when it does not end. */
static const char *json_text_end(const text_cursor *c) {
    const char *q = c->p;
    if (q < c->end && (*q == '"' || *q == '[' || *q == '{')) {
        int depth = 0;
        do {
            if (*q == '"') {
                for (q++; q < c->end && *q != '"'; q++)
                    if (*q == '\\') q++;
                if (q >= c->end) return NULL;
            } else if (*q == '[' || *q == '{') {
                depth++;
            } else if (*q == ']' || *q == '}') {
                depth--;
            }
            q++;
        } while (depth > 0 && q < c->end);
        return depth == 0 ? q : NULL;
    }
    /* A number, true, false or null. */
    while (q < c->end && *q != ',' && *q != ']' && *q != '}') q++;
    return q == c->p ? NULL : q;
}

/* Parses (and writes, when c->fp is set) one value of type t ended by stop1 or stop2. Returns 0,
 * or -1 when the text does not fit the type. */
static int json_nested(const json_type *t, text_cursor *c, const char *stop1, const char *stop2) {
    if (starts_with(c, c->p, "NULL") && at_stop(c, c->p + 4, stop1, stop2)) {
        c->p += 4;
        put(c, "null");
        return 0;
    }
    switch (t->nest) {
    case 0: {
        const char *q = t->is_json ? json_text_end(c) : scalar_end(c, stop1, stop2);
        if (!q || !at_stop(c, q, stop1, stop2)) return -1;
        if (c->fp) json_token(c->fp, t->kind, c->p, (size_t)(q - c->p));
        c->p = q;
        return 0;
    }
    case 'a':
        if (!take(c, "[")) return -1;
        put(c, "[");
        if (!take(c, "]")) {
            for (int first = 1;; first = 0) {
                if (!first) put(c, ",");
                if (json_nested(t->children[0], c, ", ", "]") != 0) return -1;
                if (take(c, "]")) break;
                if (!take(c, ", ")) return -1;
            }
        }
        put(c, "]");
        return 0;
    case 'm':
        if (!take(c, "{")) return -1;
        put(c, t->string_keys ? "{" : "[");
        if (!take(c, "}")) {
            for (int first = 1;; first = 0) {
                if (!first) put(c, ",");
                if (t->string_keys) {
                    /* Map keys are never NULL: "NULL" here is a string. */
                    const char *q = scalar_end(c, "=", NULL);
                    if (!q) return -1;
                    if (c->fp) json_string_n(c->fp, c->p, (size_t)(q - c->p));
                    c->p = q;
                    put(c, ":");
                } else {
                    put(c, "[");
                    if (json_nested(t->children[0], c, "=", NULL) != 0) return -1;
                    put(c, ",");
                }
                if (!take(c, "=")) return -1;
                if (json_nested(t->children[1], c, ", ", "}") != 0) return -1;
                if (!t->string_keys) put(c, "]");
                if (take(c, "}")) break;
                if (!take(c, ", ")) return -1;
            }
        }
        put(c, t->string_keys ? "}" : "]");
        return 0;
    case 'r':
        if (!take(c, "{")) return -1;
        put(c, "{");
        for (uint32_t i = 0; i < t->n_children; i++) {
            if (i) {
                put(c, ",");
                if (!take(c, ", ")) return -1;
            }
            if (c->fp) {
                cli_json_write_string(c->fp, t->names[i]);
                fputc(':', c->fp);
            }
            if (!take(c, t->names[i]) || !take(c, "=")) return -1;
            if (json_nested(t->children[i], c, t->seps[i], NULL) != 0) return -1;
        }
        if (!take(c, "}")) return -1;
        put(c, "}");
        return 0;
    default: return -1;
    }
}

static void json_value(FILE *fp, value_kind kind, const json_type *nested, const char *s) {
    if (!s) {
        fputs("null", fp);
        return;
    }
    if (nested) {
        size_t len = strlen(s);
        text_cursor check = {s, s + len, NULL};
        if (json_nested(nested, &check, NULL, NULL) == 0 && check.p == check.end) {
            text_cursor write = {s, s + len, fp};
            json_nested(nested, &write, NULL, NULL);
            return;
        }
    }
    json_token(fp, kind, s, strlen(s));
}

static void json_row(cli_output *o, const char *const *cells) {
    fputc(o->n_rows == 0 ? '[' : ',', o->fp);
    fputc('{', o->fp);
    for (int i = 0; i < o->n_cols; i++) {
        if (i) fputc(',', o->fp);
        fputs(o->json_key[i], o->fp);
        json_value(o->fp, o->kinds[i], o->json_types[i], cells[i]);
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
