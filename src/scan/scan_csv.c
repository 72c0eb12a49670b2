/*
 * scan_csv.c: the scan source behind read_csv('path or glob', name => value, ...) and a CSV
 * path used as a table: the files are split into byte ranges (morsels) read in parallel.
 *
 * INTERFACE: scan_csv_source, scan_csv_option, scan_csv_finish (scan_csv.h).
 * NOTES: option values arrive as text, which csv_options_set parses (header => true,
 * delim => '|', skip => 1). The first file is sniffed when the source is finished (the schema
 * is needed to type the query); every other file of a glob is sniffed when its first morsel
 * is opened and must have the first file's column count; it is read with the first file's
 * types.
 */
#include "scan/scan_csv.h"

#include <stdlib.h>
#include <string.h>

#include "format/csv/csv.h"
#include "io/io.h"

typedef struct csv_morsel {
    uint32_t file;
    csv_range range;
} csv_morsel;

struct scan_csv {
    csv_options opts;
    csv_schema schema;
    char **paths;
    uint32_t n_paths;
    csv_morsel *morsels;
    uint32_t n_morsels;
    mem_tracker *tracker;
};
typedef struct scan_csv csv_source_state;

static void csv_state_destroy(void *state) {
    csv_source_state *st = state;
    if (!st) return;
    csv_options_reset(&st->opts);
    csv_schema_reset(&st->schema);
    io_paths_free(st->paths, st->n_paths);
    free(st->morsels);
    free(st);
}

static int csv_plan_morsels(void *state, uint32_t n_threads, uint32_t *n_morsels, sqe_error *err) {
    csv_source_state *st = state;
    free(st->morsels);
    st->morsels = NULL;
    st->n_morsels = 0;
    uint32_t cap = 0;
    for (uint32_t f = 0; f < st->n_paths; f++) {
        csv_range *ranges;
        uint32_t n;
        SQE_TRY(csv_split_ranges(st->paths[f], &st->opts, &st->schema, n_threads * 4, &ranges, &n, err));
        if (st->n_morsels + n > cap) {
            cap = (st->n_morsels + n) * 2;
            csv_morsel *grown = realloc(st->morsels, cap * sizeof(csv_morsel));
            if (!grown) {
                free(ranges);
                return err_nomem(err, "csv morsels");
            }
            st->morsels = grown;
        }
        for (uint32_t i = 0; i < n; i++) st->morsels[st->n_morsels++] = (csv_morsel){f, ranges[i]};
        free(ranges);
    }
    *n_morsels = st->n_morsels;
    return SQE_OK;
}

static int csv_open(void *state, uint32_t morsel, const uint32_t *columns, uint32_t n_columns,
                    void **reader, sqe_error *err) {
    csv_source_state *st = state;
    const csv_morsel *m = &st->morsels[morsel];
    csv_schema file_schema;
    csv_schema_init(&file_schema);
    const csv_schema *schema = &st->schema;
    if (m->file > 0) {
        /* other files of a glob: their own header/offsets, the first file's types */
        SQE_TRY(csv_sniff(st->paths[m->file], &st->opts, &file_schema, err));
        if (file_schema.n_cols != st->schema.n_cols) {
            csv_schema_reset(&file_schema);
            return err_set(err, SQE_ERR_INVALID_FILE,
                           "File %s has %u columns but %s has %u", st->paths[m->file],
                           file_schema.n_cols, st->paths[0], st->schema.n_cols);
        }
        memcpy(file_schema.types, st->schema.types, st->schema.n_cols * sizeof(sqe_type));
        schema = &file_schema;
    }
    csv_reader *r;
    int rc = csv_reader_open(st->paths[m->file], &st->opts, schema, m->range.start, m->range.end,
                             st->tracker, &r, err);
    csv_schema_reset(&file_schema);
    SQE_TRY(rc);
    rc = csv_reader_project(r, columns, n_columns, err);
    if (rc) {
        csv_reader_close(r);
        return rc;
    }
    *reader = r;
    return SQE_OK;
}

static int csv_next(void *reader, vec_chunk *out, sqe_error *err) { return csv_reader_next(reader, out, err); }
static void csv_close(void *reader) { csv_reader_close(reader); }


int scan_csv_source(plan_ctx *pctx, scan_file_list *files, scan_csv **csv, plan_source **out,
                    sqe_error *err) {
    *csv = NULL;
    *out = NULL;
    csv_source_state *st = calloc(1, sizeof *st);
    if (!st) {
        scan_file_list_free(files);
        return err_nomem(err, "binding the statement");
    }
    st->paths = files->paths; /* the CSV reader opens local files only (no identity) */
    st->n_paths = files->n;
    files->paths = NULL;
    files->n = 0;
    scan_file_list_free(files);
    csv_options_init(&st->opts);
    csv_schema_init(&st->schema);
    st->tracker = pctx->tracker;
    SQE_TRY(scan_source_new(pctx, st, csv_state_destroy, out, err));
    *csv = st;
    return SQE_OK;
}

int scan_csv_option(scan_csv *csv, const char *name, const char *value, sqe_error *err) {
    return csv_options_set(&csv->opts, name, value, err);
}

int scan_csv_finish(scan_csv *csv, plan_source *src, sqe_error *err) {
    csv_source_state *st = csv;
    SQE_TRY(csv_sniff(st->paths[0], &st->opts, &st->schema, err));
    uint32_t n = st->schema.n_cols;
    src->n_columns = n;
    src->names = (const char *const *)st->schema.names;
    src->types = st->schema.types;
    /* Only the first file was sniffed: assume the others are as large, ~100 bytes a row. */
    src->est_rows = (double)st->schema.file_size * st->n_paths / 100.0;
    src->plan_morsels = csv_plan_morsels;
    src->open = csv_open;
    src->next = csv_next;
    src->close = csv_close;
    return SQE_OK;
}
