/*
 * csv_files.c: which files and which byte ranges a read_csv scan reads: glob expansion and the
 * split of one file into ranges for parallel readers.
 *
 * INTERFACE: csv_expand_glob, csv_paths_free, csv_split_ranges.
 * NOTES:
 *   - glob(3) without GLOB_NOCHECK, sorted (the default), GLOB_MARK to tell directories (which
 *     are dropped) from files. "**" has no special meaning.
 *   - Range boundaries are plain byte offsets; each reader finds its first row start itself
 *     (csv_reader_open), so splitting needs no read of the file.
 */
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "format/csv/csv_int.h"

#define SPLIT_MIN_FILE ((uint64_t)8 << 20)
#define SPLIT_MIN_RANGE ((uint64_t)2 << 20)

void csv_paths_free(char **paths, uint32_t n_paths) {
    if (!paths) return;
    for (uint32_t i = 0; i < n_paths; i++) free(paths[i]);
    free(paths);
}

static bool has_wildcards(const char *s) {
    for (; *s; s++)
        if (*s == '*' || *s == '?' || *s == '[') return true;
    return false;
}

int csv_expand_glob(const char *pattern, char ***paths, uint32_t *n_paths, sqe_error *err) {
    *paths = NULL;
    *n_paths = 0;
    if (!has_wildcards(pattern)) {
        char **one = malloc(sizeof(char *));
        if (!one) return err_nomem(err, "file list");
        one[0] = strdup(pattern);
        if (!one[0]) {
            free(one);
            return err_nomem(err, "file list");
        }
        *paths = one;
        *n_paths = 1;
        return SQE_OK;
    }
    glob_t g;
    memset(&g, 0, sizeof g);
    int grc = glob(pattern, GLOB_MARK, NULL, &g);
    if (grc == GLOB_NOSPACE) {
        globfree(&g);
        return err_nomem(err, "glob");
    }
    if (grc != 0 && grc != GLOB_NOMATCH) {
        globfree(&g);
        return err_set(err, SQE_ERR_IO_ERROR, "Cannot list the files that match '%s'", pattern);
    }
    uint32_t n = 0;
    char **list = grc == 0 ? calloc(g.gl_pathc ? g.gl_pathc : 1, sizeof(char *)) : NULL;
    if (grc == 0 && !list) {
        globfree(&g);
        return err_nomem(err, "file list");
    }
    for (size_t i = 0; grc == 0 && i < g.gl_pathc; i++) {
        const char *p = g.gl_pathv[i];
        size_t len = strlen(p);
        if (len && p[len - 1] == '/') continue; /* a directory */
        list[n] = strdup(p);
        if (!list[n]) {
            csv_paths_free(list, n);
            globfree(&g);
            return err_nomem(err, "file list");
        }
        n++;
    }
    globfree(&g);
    if (n == 0) {
        free(list);
        return err_set(err, SQE_ERR_NOT_FOUND, "No files found that match the pattern '%s'",
                       pattern);
    }
    *paths = list;
    *n_paths = n;
    return SQE_OK;
}

int csv_split_ranges(const char *path, const csv_options *o, const csv_schema *schema, uint32_t n,
                     csv_range **out, uint32_t *n_out, sqe_error *err) {
    (void)o;
    *out = NULL;
    *n_out = 0;
    struct stat st;
    if (stat(path, &st) != 0)
        return err_set(err, SQE_ERR_NOT_FOUND, "File not found: %s", path);
    uint64_t size = (uint64_t)st.st_size;
    uint64_t data = schema->data_offset < size ? schema->data_offset : size;
    uint64_t n_ranges = n ? n : 1;
    if (size < SPLIT_MIN_FILE || schema->quoted_newlines) n_ranges = 1;
    if (n_ranges > (size - data) / SPLIT_MIN_RANGE) n_ranges = (size - data) / SPLIT_MIN_RANGE;
    if (n_ranges < 1) n_ranges = 1;
    csv_range *ranges = malloc(sizeof *ranges * n_ranges);
    if (!ranges) return err_nomem(err, "CSV ranges");
    uint64_t span = size - data;
    for (uint64_t i = 0; i < n_ranges; i++) {
        ranges[i].start = i == 0 ? 0 : data + span / n_ranges * i;
        ranges[i].end = i + 1 == n_ranges ? CSV_RANGE_END : data + span / n_ranges * (i + 1);
    }
    *out = ranges;
    *n_out = (uint32_t)n_ranges;
    return SQE_OK;
}
