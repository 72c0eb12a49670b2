/*
 * slt_exceptions.c: the list of justified differences from an oracle (--exceptions FILE).
 *
 * When the runner checks the corpus against another engine (the real Trino, --trino-url), some
 * files cannot run there at all (Iceberg tables, files on disk, SQE's own EXPLAIN text) and some
 * records differ for a reason written down. The list names them, one entry a line:
 *
 *   # comment
 *   tests/sql/iceberg/                   Iceberg tables: the memory connector has none
 *   tests/sql/system/tables.test         SQE's system tables
 *   tests/sql/types/decimal.test:120     pending SQE fix: ...
 *
 * An entry is a folder (ending in '/'), a file, or a file and the line of a record's command,
 * then white space and the reason (required). Paths match the end of the runner's paths at a
 * '/' boundary, so "tests/sql/x.test" also matches "./tests/sql/x.test". Folders and files are
 * left out of the run; a listed record runs and its difference counts as excepted, except one
 * whose reason starts with "unstable:" (the oracle's answer varies between runs), which is
 * skipped (slt_exec.c).
 *
 * INTERFACE: slt_exceptions_load, slt_exceptions_free, slt_exceptions_file, slt_exceptions_record.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "slt.h"

/* path ends with tail, and tail starts the path or follows a '/'. */
static int tail_matches(const char *path, const char *tail) {
    size_t n = strlen(path), m = strlen(tail);
    if (m == 0 || m > n || strcmp(path + n - m, tail) != 0) return 0;
    return m == n || path[n - m - 1] == '/';
}

/* path lies under folder (which ends in '/'): "x/" matches "a/x/b.test" and "x/b.test". */
static int under_folder(const char *path, const char *folder) {
    for (const char *p = path; (p = strstr(p, folder)) != NULL; p++)
        if (p == path || p[-1] == '/') return 1;
    return 0;
}

int slt_exceptions_load(const char *path, slt_exceptions *out, char *msg, size_t msg_len) {
    memset(out, 0, sizeof *out);
    FILE *fp = fopen(path, "r");
    if (!fp) {
        snprintf(msg, msg_len, "%s: %s", path, strerror(errno));
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    int line_no = 0, rc = 0;
    while (getline(&line, &cap, fp) >= 0) {
        line_no++;
        char *p = line + strspn(line, " \t");
        p[strcspn(p, "\r\n")] = '\0';
        if (*p == '\0' || *p == '#') continue;
        size_t path_len = strcspn(p, " \t");
        char *reason = p + path_len;
        reason += strspn(reason, " \t");
        if (*reason == '\0') {
            snprintf(msg, msg_len, "%s:%d: an entry needs a reason after the path", path,
                     line_no);
            rc = -1;
            break;
        }
        slt_exception e = {0};
        e.path = strndup(p, path_len);
        e.reason = strdup(reason);
        e.list_line = line_no;
        char *colon = e.path ? strrchr(e.path, ':') : NULL;
        if (colon && isdigit((unsigned char)colon[1])) {
            char *end;
            e.line = (int)strtol(colon + 1, &end, 10);
            if (*end || e.line <= 0) {
                snprintf(msg, msg_len, "%s:%d: bad line number in '%s'", path, line_no, e.path);
                rc = -1;
            }
            *colon = '\0';
        }
        slt_exception *grown = realloc(out->items, (size_t)(out->n + 1) * sizeof *grown);
        if (!e.path || !e.reason || !grown) {
            if (grown) out->items = grown;
            snprintf(msg, msg_len, "out of memory reading %s", path);
            rc = -1;
        }
        if (rc != 0) {
            free(e.path);
            free(e.reason);
            break;
        }
        out->items = grown;
        out->items[out->n++] = e;
    }
    free(line);
    fclose(fp);
    if (rc != 0) slt_exceptions_free(out);
    return rc;
}

void slt_exceptions_free(slt_exceptions *ex) {
    for (int i = 0; i < ex->n; i++) {
        free(ex->items[i].path);
        free(ex->items[i].reason);
    }
    free(ex->items);
    memset(ex, 0, sizeof *ex);
}

const slt_exception *slt_exceptions_file(const slt_exceptions *ex, const char *path) {
    for (int i = 0; ex && i < ex->n; i++) {
        const slt_exception *e = &ex->items[i];
        if (e->line) continue;
        size_t m = strlen(e->path);
        if (m && e->path[m - 1] == '/' ? under_folder(path, e->path) : tail_matches(path, e->path))
            return e;
    }
    return NULL;
}

const slt_exception *slt_exceptions_record(const slt_exceptions *ex, const char *file, int line) {
    for (int i = 0; ex && i < ex->n; i++) {
        const slt_exception *e = &ex->items[i];
        if (e->line == line && tail_matches(file, e->path)) return e;
    }
    return NULL;
}
