/*
 * slt_sqlite.c: the SQLite corpus mode (--sqlite-corpus): SQLite's DDL mapped to Trino's, and
 * result values rendered as SQLite's sqllogictest prints them.
 *
 * SQLite's corpus (select1-5, evidence/) was written for SQLite's dialect and its runner's value
 * printing. This file holds what the runner maps so the corpus can test Trino semantics; every
 * rule is listed, with its reason, in tests/sqlite/README.md. The mode is only on with the flag,
 * never for the project's own tests.
 *
 *   - Statements: CREATE [UNIQUE] INDEX, DROP INDEX and REINDEX are skipped (Trino has no
 *     indexes); in CREATE TABLE the type TEXT becomes VARCHAR and the constraints PRIMARY KEY and
 *     UNIQUE (column and table constraints) are dropped (Trino has no keys). Everything else runs
 *     as written.
 *   - Values: the type letter of the record decides the text, as SQLite's runner prints with
 *     sqlite3_column_int64 (I), "%.3f" of sqlite3_column_double (R) and sqlite3_column_text (T):
 *     NULL is "NULL"; booleans are 1 and 0 (SQLite has no boolean type, its comparisons return
 *     integers); a non-integer number in an I column is truncated toward zero and text there
 *     reads its leading integer (0 when none); T shows reals (double, real, decimal) in SQLite's
 *     "%!.15g", '' as "(empty)" and unprintable characters as '@'.
 *
 * INTERFACE: slt_sqlite_init, slt_sqlite_map, slt_sqlite_render.
 * NOTES: the CREATE TABLE rewrite works on the column list split at top-level commas and on the
 * white-space separated words of each column; the corpus's DDL is that simple (no quoted
 * identifiers or string defaults).
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "slt.h"

#define GROUP_INDEX "mapping: index statements (CREATE/DROP INDEX, REINDEX; Trino has no indexes)"

static int index_group = -1;

void slt_sqlite_init(void) { index_group = slt_skip_group(GROUP_INDEX); }

/* ---- small helpers --------------------------------------------------------------------------- */

static void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "slt_runner: out of memory\n");
        exit(2);
    }
    return p;
}

static char *xstrdup(const char *s) {
    char *copy = strdup(s);
    if (!copy) {
        fprintf(stderr, "slt_runner: out of memory\n");
        exit(2);
    }
    return copy;
}

typedef struct buf {
    char *data;
    size_t len;
    size_t cap;
} buf;

static void buf_add(buf *b, const char *s, size_t len) {
    if (b->len + len + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 128;
        while (cap < b->len + len + 1) cap *= 2;
        char *grown = realloc(b->data, cap);
        if (!grown) {
            fprintf(stderr, "slt_runner: out of memory\n");
            exit(2);
        }
        b->data = grown;
        b->cap = cap;
    }
    memcpy(b->data + b->len, s, len);
    b->len += len;
    b->data[b->len] = '\0';
}

static void buf_adds(buf *b, const char *s) { buf_add(b, s, strlen(s)); }

/* Whether the words of s (case-insensitive, any white space between) start with the words of
 * prefix (single spaces); *after then points past them. */
static int starts_with_words(const char *s, const char *prefix, const char **after) {
    while (isspace((unsigned char)*s)) s++;
    while (*prefix) {
        if (*prefix == ' ') {
            if (!isspace((unsigned char)*s)) return 0;
            while (isspace((unsigned char)*s)) s++;
            prefix++;
            continue;
        }
        if (toupper((unsigned char)*s) != toupper((unsigned char)*prefix)) return 0;
        s++, prefix++;
    }
    if (isalnum((unsigned char)*s) || *s == '_') return 0;
    if (after) *after = s;
    return 1;
}

/* ---- CREATE TABLE ---------------------------------------------------------------------------- */

/* Appends one column definition (len bytes at def) with TEXT -> VARCHAR and without PRIMARY KEY
 * or UNIQUE; a table constraint (UNIQUE (...), PRIMARY KEY (...)) appends nothing. Returns 1 when
 * something was appended. */
static int map_column(buf *out, const char *def, size_t len) {
    char *copy = xmalloc(len + 1);
    memcpy(copy, def, len);
    copy[len] = '\0';
    if (starts_with_words(copy, "UNIQUE", NULL) || starts_with_words(copy, "PRIMARY KEY", NULL)) {
        free(copy);
        return 0;
    }
    char *words[64];
    int n = 0;
    char *save = NULL;
    for (char *w = strtok_r(copy, " \t\r\n", &save); w && n < 64;
         w = strtok_r(NULL, " \t\r\n", &save))
        words[n++] = w;
    int appended = 0;
    for (int i = 0; i < n; i++) {
        const char *w = words[i];
        if (strcasecmp(w, "UNIQUE") == 0) continue;
        if (strcasecmp(w, "PRIMARY") == 0 && i + 1 < n && strcasecmp(words[i + 1], "KEY") == 0) {
            i++;
            continue;
        }
        if (i == 1 && strcasecmp(w, "TEXT") == 0) w = "VARCHAR";
        if (appended++) buf_add(out, " ", 1);
        buf_adds(out, w);
    }
    free(copy);
    return appended > 0;
}

/* Rewrites "CREATE TABLE name (defs) rest"; rest is what follows "CREATE TABLE". Returns NULL
 * when the statement has no column list (CREATE TABLE ... AS, which runs as written). */
static char *map_create_table(const char *sql, const char *rest) {
    const char *open = strchr(rest, '(');
    if (!open) return NULL;
    for (const char *p = rest; p < open; p++)
        if (!isalnum((unsigned char)*p) && *p != '_' && *p != '.' && !isspace((unsigned char)*p))
            return NULL;
    buf out = {0};
    buf_add(&out, sql, (size_t)(open - sql) + 1);
    int depth = 0, n_cols = 0;
    const char *start = open + 1, *p = open + 1;
    for (; *p; p++) {
        if (*p == '(') depth++;
        else if (*p == ')' && depth > 0) depth--;
        else if ((*p == ',' || *p == ')') && depth == 0) {
            size_t mark = out.len;
            if (n_cols) buf_add(&out, ", ", 2);
            if (map_column(&out, start, (size_t)(p - start))) n_cols++;
            else out.len = mark, out.data[mark] = '\0';
            start = p + 1;
            if (*p == ')') break;
        }
    }
    if (*p != ')') { /* unbalanced: leave it to the engine */
        free(out.data);
        return NULL;
    }
    buf_adds(&out, p);
    return out.data;
}

char *slt_sqlite_map(const char *sql, int *skip_group) {
    static const char *const index_statements[] = {"CREATE INDEX", "CREATE UNIQUE INDEX",
                                                   "DROP INDEX", "REINDEX"};
    for (size_t i = 0; i < sizeof index_statements / sizeof index_statements[0]; i++) {
        if (starts_with_words(sql, index_statements[i], NULL)) {
            *skip_group = index_group;
            return NULL;
        }
    }
    const char *rest;
    if (starts_with_words(sql, "CREATE TABLE", &rest)) {
        char *mapped = map_create_table(sql, rest);
        if (mapped) return mapped;
    }
    return xstrdup(sql);
}

/* ---- values ---------------------------------------------------------------------------------- */

static int is_boolean(const char *type) { return strcasecmp(type, "boolean") == 0; }

static int is_real(const char *type) {
    return strcasecmp(type, "double") == 0 || strcasecmp(type, "real") == 0 ||
           strncasecmp(type, "decimal", 7) == 0;
}

static int is_integer(const char *type) {
    static const char *const integers[] = {"tinyint", "smallint", "integer", "bigint"};
    for (size_t i = 0; i < sizeof integers / sizeof integers[0]; i++)
        if (strcasecmp(type, integers[i]) == 0) return 1;
    return 0;
}

/* SQLite's text to integer (sqlite3Atoi64 on a prefix): leading white space, a sign, digits;
 * saturates; 0 when there are no digits. */
static long long text_to_integer(const char *s) {
    while (isspace((unsigned char)*s)) s++;
    errno = 0;
    char *end;
    long long v = strtoll(s, &end, 10);
    return end == s ? 0 : v;
}

/* A real truncated toward zero and clamped to 64 bits, as SQLite converts a REAL to an integer. */
static long long real_to_integer(double d) {
    if (isnan(d)) return 0;
    if (d <= (double)LLONG_MIN) return LLONG_MIN;
    if (d >= (double)LLONG_MAX) return LLONG_MAX;
    return (long long)d;
}

static double text_to_real(const char *s) {
    char *end;
    double d = strtod(s, &end);
    return end == s ? 0.0 : d;
}

/* SQLite's "%!.15g": %.15g that always shows a decimal point (".0" before any exponent). */
static char *real_text(double d) {
    char out[64];
    if (isinf(d)) return xstrdup(d > 0 ? "Inf" : "-Inf");
    if (isnan(d)) return xstrdup("NaN");
    char tmp[48];
    snprintf(tmp, sizeof tmp, "%.15g", d);
    if (strchr(tmp, '.')) return xstrdup(tmp);
    char *e = strchr(tmp, 'e');
    size_t mantissa = e ? (size_t)(e - tmp) : strlen(tmp);
    snprintf(out, sizeof out, "%.*s.0%s", (int)mantissa, tmp, e ? e : "");
    return xstrdup(out);
}

char *slt_sqlite_render(const char *value, const char *type, char letter) {
    if (!value) return xstrdup("NULL");
    char out[64];
    int boolean = is_boolean(type);
    int truth = boolean && strcasecmp(value, "true") == 0;
    switch (letter) {
    case 'I':
        if (boolean) return xstrdup(truth ? "1" : "0");
        if (is_integer(type)) return xstrdup(value);
        snprintf(out, sizeof out, "%lld",
                 is_real(type) ? real_to_integer(text_to_real(value)) : text_to_integer(value));
        return xstrdup(out);
    case 'R': {
        double d = boolean ? (double)truth : text_to_real(value);
        if (d == 0) d = 0; /* SQLite prints -0.0 as 0.000 */
        snprintf(out, sizeof out, "%.3f", d);
        return xstrdup(out);
    }
    default:
        break;
    }
    if (boolean) return xstrdup(truth ? "1" : "0");
    if (is_real(type)) return real_text(text_to_real(value));
    if (!*value) return xstrdup("(empty)");
    char *text = xstrdup(value);
    for (char *p = text; *p; p++)
        if ((unsigned char)*p < ' ' || (unsigned char)*p > '~') *p = '@';
    return text;
}
