/*
 * slt_parse.c: reads a sqllogictest (.test) file into an array of records.
 *
 * The dialect is SQLite's sqllogictest with DuckDB's extensions (see README.md): records are
 * separated by blank lines; a record is `statement ok|error` or `query <types> [sort] [label]`
 * followed by SQL lines and optionally `----` and expected lines; single-line control commands
 * (require, loop/foreach/endloop, halt, mode, load, include, hash-threshold) need no blank line
 * after them. Lines starting with '#' between records are comments, and so is the rest of a
 * command line from a word starting with '#' (`onlyif sqlite # why`). Commands are looked up in
 * one table.
 *
 * INTERFACE: slt_script_parse, slt_script_free.
 * NOTES:
 *   - Errors in a record do not stop the parse: the record becomes SLT_BAD with a message and the
 *     parser resumes at the next blank line, so the report points at file:line and the rest of
 *     the file still runs.
 *   - `include` splices the records of another file in place (depth at most 8); loop matching is
 *     checked per file.
 *   - Lines are kept as written; ${var} substitution happens at run time (slt_exec.c).
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "slt.h"

#define MAX_INCLUDE_DEPTH 8
#define MAX_WORDS 64

typedef struct parser {
    slt_script *script;
    const char *file;     /* name of the file being parsed (owned by script->files) */
    char **lines;
    int n_lines;
    int pos;              /* index of the next line */
    slt_condition *conds; /* pending skipif/onlyif */
    int n_conds;
    int depth;
    int oom;
} parser;

/* ---- small helpers --------------------------------------------------------------------------- */

static void *xrealloc(parser *p, void *ptr, size_t size) {
    void *grown = realloc(ptr, size ? size : 1);
    if (!grown) p->oom = 1;
    return grown;
}

static char *xstrdup(parser *p, const char *s) {
    char *copy = strdup(s);
    if (!copy) p->oom = 1;
    return copy;
}

static int is_blank(const char *line) {
    for (; *line; line++)
        if (!isspace((unsigned char)*line)) return 0;
    return 1;
}

/* Splits a copy of line into words separated by white space. */
static int split_words(char *copy, char **words) {
    int n = 0;
    char *save = NULL;
    for (char *w = strtok_r(copy, " \t", &save); w && n < MAX_WORDS;
         w = strtok_r(NULL, " \t", &save))
        words[n++] = w;
    return n;
}

/* Reads the file into lines (without '\n' and a trailing '\r'). */
static int read_lines(const char *path, char ***lines_out, int *n_out, char *msg, size_t msg_len) {
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        snprintf(msg, msg_len, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    char **lines = NULL;
    int n = 0, cap = 0;
    char *line = NULL;
    size_t line_cap = 0;
    ssize_t len;
    while ((len = getline(&line, &line_cap, fp)) >= 0) {
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = '\0';
        if (n == cap) {
            cap = cap ? cap * 2 : 256;
            char **grown = realloc(lines, (size_t)cap * sizeof *lines);
            if (!grown) goto out_nomem;
            lines = grown;
        }
        lines[n] = strdup(line);
        if (!lines[n]) goto out_nomem;
        n++;
    }
    free(line);
    fclose(fp);
    *lines_out = lines;
    *n_out = n;
    return 0;

out_nomem:
    for (int i = 0; i < n; i++) free(lines[i]);
    free(lines);
    free(line);
    fclose(fp);
    snprintf(msg, msg_len, "out of memory reading %s", path);
    return -1;
}

/* ---- records --------------------------------------------------------------------------------- */

static slt_record *new_record(parser *p, slt_kind kind, int line) {
    slt_script *s = p->script;
    slt_record *recs = xrealloc(p, s->recs, (size_t)(s->n_recs + 1) * sizeof *recs);
    if (!recs) return NULL;
    s->recs = recs;
    slt_record *r = &recs[s->n_recs++];
    memset(r, 0, sizeof *r);
    r->kind = kind;
    r->file = p->file;
    r->line = line;
    r->match = -1;
    r->conds = p->conds;
    r->n_conds = p->n_conds;
    p->conds = NULL;
    p->n_conds = 0;
    return r;
}

/* Turns r into a bad record with a message. */
static void make_bad(parser *p, slt_record *r, const char *fmt, const char *detail) {
    char msg[512];
    snprintf(msg, sizeof msg, fmt, detail ? detail : "");
    r->kind = SLT_BAD;
    free(r->arg);
    r->arg = xstrdup(p, msg);
}

/* Adds a bad record at line and skips to the next blank line. */
static void bad_record(parser *p, int line, const char *fmt, const char *detail) {
    slt_record *r = new_record(p, SLT_BAD, line);
    if (r) make_bad(p, r, fmt, detail);
    while (p->pos < p->n_lines && !is_blank(p->lines[p->pos])) p->pos++;
}

/* Collects lines up to a blank line (or "----" when stop_at_sep) into *out, joined by '\n'. */
static char *collect_sql(parser *p, int stop_at_sep, int *last_line) {
    size_t len = 0;
    char *text = NULL;
    while (p->pos < p->n_lines) {
        const char *line = p->lines[p->pos];
        if (is_blank(line) || (stop_at_sep && strcmp(line, "----") == 0)) break;
        size_t add = strlen(line);
        char *grown = xrealloc(p, text, len + add + 2);
        if (!grown) break;
        text = grown;
        if (len) text[len++] = '\n';
        memcpy(text + len, line, add);
        len += add;
        text[len] = '\0';
        *last_line = ++p->pos;
    }
    return text;
}

/* After the SQL: an optional "----" and the lines up to the next blank line. */
static void collect_expected(parser *p, slt_record *r) {
    r->results_last_line = r->sql_last_line;
    if (p->pos >= p->n_lines || strcmp(p->lines[p->pos], "----") != 0) return;
    r->has_results = 1;
    r->results_last_line = ++p->pos;
    while (p->pos < p->n_lines && !is_blank(p->lines[p->pos])) {
        char **grown = xrealloc(p, r->expected, (size_t)(r->n_expected + 1) * sizeof *grown);
        if (!grown) return;
        r->expected = grown;
        r->expected[r->n_expected] = xstrdup(p, p->lines[p->pos]);
        if (!r->expected[r->n_expected]) return;
        r->n_expected++;
        r->results_last_line = ++p->pos;
    }
}

/* ---- commands -------------------------------------------------------------------------------- */

typedef void (*command_fn)(parser *p, int line, int n_words, char **words);

static void cmd_condition(parser *p, int line, int n, char **w) {
    if (n != 2) {
        bad_record(p, line, "usage: %s <connector>", w[0]);
        return;
    }
    slt_condition *grown = xrealloc(p, p->conds, (size_t)(p->n_conds + 1) * sizeof *grown);
    if (!grown) return;
    p->conds = grown;
    p->conds[p->n_conds].only = strcmp(w[0], "onlyif") == 0;
    p->conds[p->n_conds].connector = xstrdup(p, w[1]);
    p->n_conds++;
}

static void cmd_statement(parser *p, int line, int n, char **w) {
    slt_kind kind;
    if (n >= 2 && strcmp(w[1], "ok") == 0) kind = SLT_STATEMENT_OK;
    else if (n >= 2 && strcmp(w[1], "error") == 0) kind = SLT_STATEMENT_ERROR;
    else {
        bad_record(p, line, "usage: statement ok|error%s", NULL);
        return;
    }
    slt_record *r = new_record(p, kind, line);
    if (!r) return;
    r->sql_last_line = line;
    r->sql = collect_sql(p, 1, &r->sql_last_line);
    collect_expected(p, r);
    if (!r->sql) make_bad(p, r, "statement without SQL%s", NULL);
    else if (kind == SLT_STATEMENT_OK && r->has_results)
        make_bad(p, r, "'statement ok' takes no '----' section%s", NULL);
}

static void cmd_query(parser *p, int line, int n, char **w) {
    if (n < 2) {
        bad_record(p, line, "usage: query <types> [nosort|rowsort|valuesort] [label]%s", NULL);
        return;
    }
    slt_record *r = new_record(p, SLT_QUERY, line);
    if (!r) return;
    r->types = xstrdup(p, w[1]);
    int next = 2;
    if (n > next) {
        if (strcmp(w[next], "nosort") == 0) r->sort = SLT_SORT_NONE, next++;
        else if (strcmp(w[next], "rowsort") == 0) r->sort = SLT_SORT_ROW, next++;
        else if (strcmp(w[next], "valuesort") == 0) r->sort = SLT_SORT_VALUE, next++;
    }
    if (n > next) r->label = xstrdup(p, w[next++]);
    r->sql_last_line = line;
    r->sql = collect_sql(p, 1, &r->sql_last_line);
    collect_expected(p, r);
    if (n > next) make_bad(p, r, "unexpected word '%s' after the query label", w[next]);
    else if (!r->sql) make_bad(p, r, "query without SQL%s", NULL);
    else if (r->types && !*r->types) make_bad(p, r, "empty type string%s", NULL);
}

static void cmd_require(parser *p, int line, int n, char **w) {
    if (n < 2) {
        bad_record(p, line, "usage: require <feature>%s", NULL);
        return;
    }
    slt_record *r = new_record(p, SLT_REQUIRE, line);
    if (r) r->arg = xstrdup(p, w[1]);
}

static int parse_long(const char *s, long *out) {
    char *end;
    errno = 0;
    *out = strtol(s, &end, 10);
    return errno == 0 && end != s && *end == '\0';
}

static void cmd_loop(parser *p, int line, int n, char **w) {
    long start, end;
    if (n != 4 || !parse_long(w[2], &start) || !parse_long(w[3], &end)) {
        bad_record(p, line, "usage: loop <var> <start> <end>%s", NULL);
        return;
    }
    slt_record *r = new_record(p, SLT_LOOP, line);
    if (!r) return;
    r->arg = xstrdup(p, w[1]);
    r->start = start;
    r->end = end;
}

static void cmd_foreach(parser *p, int line, int n, char **w) {
    if (n < 3) {
        bad_record(p, line, "usage: foreach <var> <value>...%s", NULL);
        return;
    }
    slt_record *r = new_record(p, SLT_FOREACH, line);
    if (!r) return;
    r->arg = xstrdup(p, w[1]);
    r->values = calloc((size_t)(n - 2), sizeof *r->values);
    if (!r->values) {
        p->oom = 1;
        return;
    }
    for (int i = 2; i < n; i++) r->values[r->n_values++] = xstrdup(p, w[i]);
}

static void cmd_simple(parser *p, int line, int n, char **w) {
    slt_kind kind = strcmp(w[0], "endloop") == 0 ? SLT_ENDLOOP : SLT_HALT;
    if (n != 1) {
        bad_record(p, line, "'%s' takes no arguments", w[0]);
        return;
    }
    new_record(p, kind, line);
}

static void cmd_mode(parser *p, int line, int n, char **w) {
    if (n == 2 && strcmp(w[1], "skip") == 0) new_record(p, SLT_MODE_SKIP, line);
    else if (n == 2 && strcmp(w[1], "unskip") == 0) new_record(p, SLT_MODE_UNSKIP, line);
    else bad_record(p, line, "usage: mode skip|unskip%s", NULL);
}

static void cmd_hash_threshold(parser *p, int line, int n, char **w) {
    long threshold;
    if (n != 2 || !parse_long(w[1], &threshold) || threshold < 0) {
        bad_record(p, line, "usage: hash-threshold <n>%s", NULL);
        return;
    }
    slt_record *r = new_record(p, SLT_HASH_THRESHOLD, line);
    if (r) r->start = threshold;
}

static void cmd_load(parser *p, int line, int n, char **w) {
    if (n != 2) {
        bad_record(p, line, "usage: load <path>%s", NULL);
        return;
    }
    slt_record *r = new_record(p, SLT_LOAD, line);
    if (r) r->arg = xstrdup(p, w[1]);
}

static int parse_file(parser *p, const char *path, char *msg, size_t msg_len);

static void cmd_include(parser *p, int line, int n, char **w) {
    if (n != 2) {
        bad_record(p, line, "usage: include <path>%s", NULL);
        return;
    }
    if (p->depth >= MAX_INCLUDE_DEPTH) {
        bad_record(p, line, "include nested too deeply: %s", w[1]);
        return;
    }
    parser sub = *p;
    sub.depth = p->depth + 1;
    sub.conds = NULL;
    sub.n_conds = 0;
    char msg[512];
    if (parse_file(&sub, w[1], msg, sizeof msg) != 0) {
        p->oom |= sub.oom;
        bad_record(p, line, "%s", msg);
        return;
    }
    p->oom |= sub.oom;
}

static const struct {
    const char *name;
    command_fn fn;
} commands[] = {
    {"statement", cmd_statement}, {"query", cmd_query},     {"skipif", cmd_condition},
    {"onlyif", cmd_condition},    {"require", cmd_require}, {"loop", cmd_loop},
    {"foreach", cmd_foreach},     {"endloop", cmd_simple},  {"halt", cmd_simple},
    {"mode", cmd_mode},           {"load", cmd_load},       {"include", cmd_include},
    {"hash-threshold", cmd_hash_threshold},
};

/* ---- files ----------------------------------------------------------------------------------- */

/* Matches loop/foreach with endloop among records [first, script->n_recs). */
static void match_loops(parser *p, int first) {
    slt_script *s = p->script;
    int *stack = malloc((size_t)(s->n_recs - first + 1) * sizeof *stack);
    int depth = 0;
    if (!stack) {
        p->oom = 1;
        return;
    }
    for (int i = first; i < s->n_recs; i++) {
        slt_record *r = &s->recs[i];
        if (r->kind == SLT_LOOP || r->kind == SLT_FOREACH) {
            stack[depth++] = i;
        } else if (r->kind == SLT_ENDLOOP) {
            if (depth == 0) {
                make_bad(p, r, "endloop without loop%s", NULL);
                continue;
            }
            int open = stack[--depth];
            s->recs[open].match = i;
            r->match = open;
        }
    }
    while (depth > 0) make_bad(p, &s->recs[stack[--depth]], "loop without endloop%s", NULL);
    free(stack);
}

static int parse_file(parser *p, const char *path, char *msg, size_t msg_len) {
    slt_script *s = p->script;
    char **files = xrealloc(p, s->files, (size_t)(s->n_files + 1) * sizeof *files);
    if (!files) {
        snprintf(msg, msg_len, "out of memory");
        return -1;
    }
    s->files = files;
    s->files[s->n_files] = xstrdup(p, path);
    if (!s->files[s->n_files]) {
        snprintf(msg, msg_len, "out of memory");
        return -1;
    }
    p->file = s->files[s->n_files++];
    if (read_lines(path, &p->lines, &p->n_lines, msg, msg_len) != 0) return -1;
    p->pos = 0;
    int first = s->n_recs;
    while (p->pos < p->n_lines && !p->oom) {
        const char *line = p->lines[p->pos];
        if (is_blank(line) || line[0] == '#') {
            p->pos++;
            continue;
        }
        int line_no = ++p->pos;
        char *copy = xstrdup(p, line);
        if (!copy) break;
        char *words[MAX_WORDS];
        int n = split_words(copy, words);
        for (int w = 1; w < n; w++)
            if (words[w][0] == '#') n = w; /* a comment to the end of the line */
        size_t i = 0;
        while (i < sizeof commands / sizeof commands[0] && strcmp(commands[i].name, words[0]) != 0)
            i++;
        if (i < sizeof commands / sizeof commands[0]) commands[i].fn(p, line_no, n, words);
        else bad_record(p, line_no, "unknown command '%s'", words[0]);
        free(copy);
    }
    for (int i = 0; i < p->n_lines; i++) free(p->lines[i]);
    free(p->lines);
    p->lines = NULL;
    if (p->n_conds > 0) { /* skipif/onlyif at the end of the file: nothing to apply them to */
        slt_record *r = new_record(p, SLT_BAD, p->n_lines);
        if (r) make_bad(p, r, "skipif/onlyif without a record after it%s", NULL);
    }
    match_loops(p, first);
    if (p->oom) {
        snprintf(msg, msg_len, "out of memory parsing %s", path);
        return -1;
    }
    return 0;
}

int slt_script_parse(const char *path, slt_script *out, char *msg, size_t msg_len) {
    memset(out, 0, sizeof *out);
    out->path = strdup(path);
    parser p;
    memset(&p, 0, sizeof p);
    p.script = out;
    if (!out->path || parse_file(&p, path, msg, msg_len) != 0) {
        if (!out->path) snprintf(msg, msg_len, "out of memory");
        slt_script_free(out);
        return -1;
    }
    return 0;
}

void slt_script_free(slt_script *script) {
    for (int i = 0; i < script->n_recs; i++) {
        slt_record *r = &script->recs[i];
        for (int c = 0; c < r->n_conds; c++) free(r->conds[c].connector);
        free(r->conds);
        free(r->sql);
        free(r->types);
        free(r->label);
        for (int e = 0; e < r->n_expected; e++) free(r->expected[e]);
        free(r->expected);
        free(r->arg);
        for (int v = 0; v < r->n_values; v++) free(r->values[v]);
        free(r->values);
    }
    free(script->recs);
    for (int i = 0; i < script->n_files; i++) free(script->files[i]);
    free(script->files);
    free(script->path);
    memset(script, 0, sizeof *script);
}
