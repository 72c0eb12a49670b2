/*
 * slt_skip.c: why records were skipped (skip groups) and the skip list file.
 *
 * Every skipped record is counted under a group, so the closing summary can say how many records
 * each reason skipped: skipif/onlyif (a conditional halt: the rest of the file), mode
 * skip/require/halt, the SQLite mapping's statements without a
 * Trino equivalent (slt_sqlite.c), and one group per "## heading" of the skip list. The groups are
 * registered in the runner's process before any file runs, so the forked children and the parent
 * agree on the numbering (the children's counts come back through shared memory by index).
 *
 * The skip list (--skip-list FILE) is data, not code: which records of an outside corpus the runner
 * does not run, and why. Format (one entry per line):
 *
 *   # a comment
 *   ## a heading: the group of the entries below it
 *   select4.test:1234   the reason, free text
 *   evidence/slt_lang_createtrigger.test   a whole file
 *
 * INTERFACE: slt_skip_group, slt_skip_group_name, slt_skip_group_count, slt_skip_list_load,
 *            slt_skip_list_free, slt_skip_list_find.
 * NOTES: an entry's path matches a record's file when it equals it or is a suffix of it that
 * starts after a '/', so the list does not depend on where the corpus lives. Every entry needs a
 * reason and a heading above it.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "slt.h"

static char *group_names[SLT_MAX_SKIP_GROUPS] = {
    [SLT_SKIP_CONDITION] = "skipif/onlyif (records for other engines or connectors)",
    [SLT_SKIP_MODE] = "mode skip / require / halt",
    [SLT_SKIP_UNSTABLE] = "unstable on the oracle (exceptions list): its answer varies by run",
};
static int n_groups = SLT_SKIP_FIRST_FREE;

int slt_skip_group(const char *name) {
    for (int i = 0; i < n_groups; i++)
        if (strcmp(group_names[i], name) == 0) return i;
    if (n_groups == SLT_MAX_SKIP_GROUPS) return -1;
    group_names[n_groups] = strdup(name);
    if (!group_names[n_groups]) return -1;
    return n_groups++;
}

const char *slt_skip_group_name(int idx) {
    return idx >= 0 && idx < n_groups ? group_names[idx] : "";
}

int slt_skip_group_count(void) { return n_groups; }

/* ---- the list -------------------------------------------------------------------------------- */

static char *trim(char *s) {
    while (isspace((unsigned char)*s)) s++;
    size_t len = strlen(s);
    while (len > 0 && isspace((unsigned char)s[len - 1])) s[--len] = '\0';
    return s;
}

/* Parses one entry line ("path[:line] reason") into e; returns 0 or -1 with msg set. */
static int parse_entry(char *text, int group, int source_line, slt_skip_entry *e, char *msg,
                       size_t msg_len) {
    size_t path_len = strcspn(text, " \t");
    char *reason = trim(text + path_len);
    text[path_len] = '\0';
    if (!*reason) {
        snprintf(msg, msg_len, "line %d: an entry needs a reason after the path", source_line);
        return -1;
    }
    if (group < 0) {
        snprintf(msg, msg_len, "line %d: an entry before the first '## heading'", source_line);
        return -1;
    }
    int line = 0;
    char *colon = strrchr(text, ':');
    if (colon) {
        char *end;
        errno = 0;
        long v = strtol(colon + 1, &end, 10);
        if (errno || end == colon + 1 || *end || v <= 0 || v > 100000000) {
            snprintf(msg, msg_len, "line %d: bad line number in '%s'", source_line, text);
            return -1;
        }
        line = (int)v;
        *colon = '\0';
    }
    e->path = strdup(text);
    e->reason = strdup(reason);
    e->line = line;
    e->group = group;
    e->source_line = source_line;
    if (!e->path || !e->reason) {
        free(e->path);
        free(e->reason);
        snprintf(msg, msg_len, "out of memory");
        return -1;
    }
    return 0;
}

int slt_skip_list_load(const char *path, slt_skip_list *out, char *msg, size_t msg_len) {
    memset(out, 0, sizeof *out);
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        snprintf(msg, msg_len, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    char *line = NULL;
    size_t cap = 0, entries_cap = 0;
    int source_line = 0, group = -1, rc = 0;
    while (rc == 0 && getline(&line, &cap, fp) >= 0) {
        source_line++;
        char *text = trim(line);
        if (strncmp(text, "##", 2) == 0) {
            char *heading = trim(text + 2);
            group = *heading ? slt_skip_group(heading) : -1;
            if (group < 0) {
                snprintf(msg, msg_len, "line %d: %s", source_line,
                         *heading ? "too many headings" : "empty heading");
                rc = -1;
            }
            continue;
        }
        if (!*text || text[0] == '#') continue;
        if ((size_t)out->n_entries == entries_cap) {
            entries_cap = entries_cap ? entries_cap * 2 : 256;
            slt_skip_entry *grown = realloc(out->entries, entries_cap * sizeof *grown);
            if (!grown) {
                snprintf(msg, msg_len, "out of memory");
                rc = -1;
                break;
            }
            out->entries = grown;
        }
        rc = parse_entry(text, group, source_line, &out->entries[out->n_entries], msg, msg_len);
        if (rc == 0) out->n_entries++;
    }
    free(line);
    fclose(fp);
    if (rc != 0) {
        char detail[512];
        snprintf(detail, sizeof detail, "%s", msg);
        snprintf(msg, msg_len, "%s: %s", path, detail);
        slt_skip_list_free(out);
    }
    return rc;
}

void slt_skip_list_free(slt_skip_list *list) {
    for (int i = 0; i < list->n_entries; i++) {
        free(list->entries[i].path);
        free(list->entries[i].reason);
    }
    free(list->entries);
    memset(list, 0, sizeof *list);
}

/* Whether entry path names file: equal, or a suffix starting after a '/'. */
static int path_matches(const char *entry, const char *file) {
    size_t n = strlen(file), m = strlen(entry);
    if (m > n || strcmp(file + n - m, entry) != 0) return 0;
    return m == n || file[n - m - 1] == '/';
}

const slt_skip_entry *slt_skip_list_find(const slt_skip_list *list, const char *file, int line) {
    if (!list) return NULL;
    for (int i = 0; i < list->n_entries; i++) {
        const slt_skip_entry *e = &list->entries[i];
        if ((e->line == 0 || e->line == line) && path_matches(e->path, file)) return e;
    }
    return NULL;
}
