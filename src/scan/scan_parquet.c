/*
 * scan_parquet.c: the scan source behind read_parquet('path or glob') (also a '.parquet' path
 * used as a table): Parquet files read row group by row group.
 *
 * INTERFACE: scan_parquet_source (scan_parquet.h).
 * NOTES
 *   Every file's footer is opened when the source is made (through the footer cache): the first
 *   file gives the schema, the others must have the same top-level columns by name with the
 *   same types, and the row counts give the optimizer an exact estimate. Morsels are row groups
 *   (file, group); each reader maps the projected columns to the file's own column indices.
 *   A pushed-down filter (set_filter) is reduced to its conjuncts `column <cmp> constant`,
 *   `column IN (constants)` and `column IS [NOT] NULL`; row groups are skipped on statistics
 *   and bloom filters at morsel planning, pages inside a row group on the page index
 *   (pq_rg_open). The executor applies the whole filter to whatever is read.
 */
#include "scan/scan_parquet.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "format/parquet/pq_codec.h"
#include "format/parquet/pq_prune.h"
#include "format/parquet/pq_reader.h"
#include "io/io.h"
#include "plan/scan_preds.h"

typedef struct pq_morsel {
    uint32_t file;
    uint32_t group;
} pq_morsel;

/* A pushed-down conjunct `source column <op> constants` used for row-group pruning. */
typedef struct pq_source_pred {
    uint32_t column;             /* source column */
    pq_pred_op op;
    vec values;                  /* owned; n_values rows (none for IS [NOT] NULL) */
    uint32_t n_values;
} pq_source_pred;

typedef struct pq_source_state {
    char **paths;
    uint32_t n_paths;
    pq_file **files;
    uint32_t **col_map;          /* per file: source column -> file column */
    pq_morsel *morsels;
    uint32_t n_morsels;
    mem_tracker *tracker;
    pq_source_pred *preds;
    uint32_t n_preds;
    double *ndv;                 /* per source column: cached estimate, 0 = not computed */
    uint64_t groups_total, groups_pruned;
} pq_source_state;

typedef struct pq_source_reader {
    pq_rg_reader *rg;
} pq_source_reader;

static void pq_state_destroy(void *state) {
    pq_source_state *st = state;
    if (!st) return;
    for (uint32_t f = 0; f < st->n_paths; f++) {
        if (st->files) pq_file_release(st->files[f]);
        if (st->col_map) free(st->col_map[f]);
    }
    free(st->files);
    free(st->col_map);
    for (uint32_t i = 0; i < st->n_preds; i++) vec_destroy(&st->preds[i].values);
    free(st->preds);
    free(st->ndv);
    io_paths_free(st->paths, st->n_paths);
    free(st->morsels);
    free(st);
}

_Static_assert((int)PLAN_PRED_EQ == (int)PQ_PRED_EQ && (int)PLAN_PRED_IN == (int)PQ_PRED_IN &&
                   (int)PLAN_PRED_IS_NOT_NULL == (int)PQ_PRED_IS_NOT_NULL,
               "plan_pred_op and pq_pred_op must list the same operators in the same order");

static int add_pred(void *ud, const plan_scan_pred *sp, sqe_error *err) {
    pq_source_state *st = ud;
    pq_source_pred *grown = realloc(st->preds, (st->n_preds + 1) * sizeof *grown);
    if (!grown) return err_nomem(err, "Parquet filter");
    st->preds = grown;
    pq_source_pred *p = &st->preds[st->n_preds];
    memset(p, 0, sizeof *p);
    p->column = sp->column;
    p->op = (pq_pred_op)sp->op; /* the two enums list the same operators in the same order */
    sqe_type t = sp->n_consts ? sp->consts[0]->type : type_make(TYPE_BOOLEAN);
    SQE_TRY(vec_init(&p->values, t, sp->n_consts ? sp->n_consts : 1, st->tracker, err));
    st->n_preds++;
    for (uint32_t i = 0; i < sp->n_consts; i++) {
        if (!type_equal(sp->consts[i]->type, t)) return SQE_OK; /* mixed types: keep it unusable */
        SQE_TRY(vec_copy_row(&p->values, i, sp->consts[i]->u.constant, 0, err));
    }
    p->n_values = sp->n_consts;
    return SQE_OK;
}

static int pq_set_filter(void *state, const bexpr *filter, const plan_col_id *col_ids,
                         const uint32_t *columns, uint32_t n, sqe_error *err) {
    return plan_scan_preds_collect(filter, col_ids, columns, n, add_pred, state, err);
}

/* The collected predicates as pq_predicate over file f's leaves (the usable ones). Returns the
 * count; out has room for st->n_preds. */
static uint32_t file_predicates(const pq_source_state *st, uint32_t f, pq_predicate *out) {
    const pq_file *file = st->files[f];
    uint32_t n = 0;
    for (uint32_t i = 0; i < st->n_preds; i++) {
        const pq_source_pred *sp = &st->preds[i];
        const pq_node *leaf = file->schema->columns[st->col_map[f][sp->column]];
        if (leaf->kind != PQ_NODE_LEAF || leaf->max_rep != 0 || leaf->parent || leaf->unsupported) continue;
        bool null_test = sp->op == PQ_PRED_IS_NULL || sp->op == PQ_PRED_IS_NOT_NULL;
        if (!null_test && (sp->n_values == 0 || !type_equal(sp->values.type, leaf->type))) continue;
        out[n++] = (pq_predicate){leaf, sp->op, &sp->values, sp->n_values};
    }
    return n;
}

/* The bloom filter of a column chunk rules out an EQ / IN predicate? Any problem reading the
 * filter means "may match". *io is opened on first use and closed by the caller. */
static bool bloom_may_match(const pq_file *file, const pq_column_chunk *cc, const pq_predicate *p,
                            io_file **io) {
    if (p->op != PQ_PRED_EQ && p->op != PQ_PRED_IN) return true;
    const pq_column_meta *cm = &cc->meta_data;
    if (!cc->has_meta_data || !cm->has_bloom_filter_offset || cm->bloom_filter_offset < 4) return true;
    uint64_t off = (uint64_t)cm->bloom_filter_offset;
    if (off >= file->size) return true;
    sqe_error err;
    if (!*io && io_open_as(file->path, file->id, io, &err) != SQE_OK) return true;
    uint64_t len;
    if (cm->has_bloom_filter_length && cm->bloom_filter_length > 0) {
        len = (uint64_t)cm->bloom_filter_length;
    } else {
        uint8_t head[64];
        size_t hl = file->size - off < sizeof head ? (size_t)(file->size - off) : sizeof head;
        uint32_t header_len, n_bytes;
        if (io_read(*io, off, hl, head, &err) ||
            pq_bloom_header_decode(head, hl, &header_len, &n_bytes, &err))
            return true;
        len = (uint64_t)header_len + n_bytes;
    }
    if (len > file->size - off || len > (uint64_t)PQ_BLOOM_MAX_BYTES + 64) return true;
    uint8_t *buf = malloc(len);
    if (!buf) return true;
    pq_bloom b;
    bool may = true;
    if (!io_read(*io, off, len, buf, &err) && !pq_bloom_decode(buf, len, &b, &err))
        may = pq_bloom_may_contain(&b, p->leaf, p);
    free(buf);
    return may;
}

/* May row group g of file f hold rows that pass every collected predicate? */
static bool group_may_match(const pq_source_state *st, uint32_t f, uint32_t g, pq_predicate *preds,
                            uint32_t n_preds, io_file **io) {
    const pq_file *file = st->files[f];
    const pq_row_group *rg = &file->meta->row_groups[g];
    for (uint32_t i = 0; i < n_preds; i++) {
        const pq_column_chunk *cc = &rg->columns[preds[i].leaf->leaf];
        if (!pq_stats_may_match(file->meta, cc, &preds[i])) return false;
        if (!bloom_may_match(file, cc, &preds[i], io)) return false;
    }
    return true;
}

static int pq_plan_morsels(void *state, uint32_t n_threads, uint32_t *n_morsels, sqe_error *err) {
    pq_source_state *st = state;
    (void)n_threads;
    if (!st->morsels) {
        uint64_t total = 0;
        for (uint32_t f = 0; f < st->n_paths; f++) total += st->files[f]->meta->n_row_groups;
        st->morsels = calloc(total ? total : 1, sizeof *st->morsels);
        if (!st->morsels) return err_nomem(err, "Parquet morsels");
        st->groups_total = total;
        pq_predicate *preds = malloc((st->n_preds ? st->n_preds : 1) * sizeof *preds);
        if (!preds) return err_nomem(err, "Parquet morsels");
        for (uint32_t f = 0; f < st->n_paths; f++) {
            uint32_t n_preds = file_predicates(st, f, preds);
            io_file *io = NULL;
            for (uint32_t g = 0; g < st->files[f]->meta->n_row_groups; g++) {
                if (st->files[f]->meta->row_groups[g].num_rows <= 0) continue;
                if (!group_may_match(st, f, g, preds, n_preds, &io)) {
                    st->groups_pruned++;
                    continue;
                }
                st->morsels[st->n_morsels++] = (pq_morsel){f, g};
            }
            io_close(io);
        }
        free(preds);
    }
    *n_morsels = st->n_morsels;
    return SQE_OK;
}

/* Distinct values of a source column, estimated from metadata: the value range of integer-like
 * columns (from the row groups' statistics), the dictionary size of low-cardinality dictionary
 * columns (from the first row group's dictionary page header). Unknown otherwise. */
static double estimate_ndv(const pq_source_state *st, uint32_t column) {
    double total_rows = 0;
    for (uint32_t f = 0; f < st->n_paths; f++) total_rows += (double)st->files[f]->total_rows;
    const pq_file *f0 = st->files[0];
    const pq_node *leaf = f0->schema->columns[st->col_map[0][column]];
    if (leaf->kind != PQ_NODE_LEAF || leaf->max_rep || leaf->parent || leaf->unsupported) return -1;
    size_t w = type_physical_size(leaf->type);
    bool integer_like = (type_is_integer(leaf->type) || leaf->type.id == TYPE_DATE ||
                         (leaf->type.id == TYPE_DECIMAL && !type_decimal_is_long(leaf->type))) &&
                        (w == 1 || w == 2 || w == 4 || w == 8);
    if (integer_like) {
        double lo = 0, hi = 0;
        bool any = false;
        for (uint32_t f = 0; f < st->n_paths; f++) {
            const pq_file *file = st->files[f];
            const pq_node *l = file->schema->columns[st->col_map[f][column]];
            for (uint32_t g = 0; g < file->meta->n_row_groups; g++) {
                int64_t mn = 0, mx = 0;
                uint8_t bmin[16], bmax[16];
                if (!pq_stats_min_max(file->meta, &file->meta->row_groups[g].columns[l->leaf], l, bmin, bmax))
                    return -1;
                switch (w) {
                case 1: mn = (int8_t)bmin[0]; mx = (int8_t)bmax[0]; break;
                case 2: { int16_t a, b; memcpy(&a, bmin, 2); memcpy(&b, bmax, 2); mn = a; mx = b; break; }
                case 4: { int32_t a, b; memcpy(&a, bmin, 4); memcpy(&b, bmax, 4); mn = a; mx = b; break; }
                default: memcpy(&mn, bmin, 8); memcpy(&mx, bmax, 8); break;
                }
                if (!any || (double)mn < lo) lo = (double)mn;
                if (!any || (double)mx > hi) hi = (double)mx;
                any = true;
            }
        }
        if (!any) return -1;
        double range = hi - lo + 1;
        return range < total_rows ? range : total_rows;
    }
    if (type_is_string(leaf->type) && f0->meta->n_row_groups > 0) {
        int64_t dict = pq_file_dictionary_size(f0, 0, leaf->leaf);
        double rg_rows = (double)f0->meta->row_groups[0].num_rows;
        if (dict > 0 && (double)dict * 4 < rg_rows) return (double)dict;
    }
    return -1;
}

static double pq_column_ndv(void *state, uint32_t column) {
    pq_source_state *st = state;
    if (!st->ndv) {
        uint32_t n = st->files[0]->schema->n_columns;
        st->ndv = calloc(n ? n : 1, sizeof *st->ndv);
        if (!st->ndv) return -1;
    }
    if (st->ndv[column] == 0) st->ndv[column] = estimate_ndv(st, column);
    return st->ndv[column];
}

static void pq_describe(void *state, char *buf, size_t len) {
    pq_source_state *st = state;
    snprintf(buf, len, "files: %u  row groups: %llu of %llu", st->n_paths,
             (unsigned long long)(st->groups_total - st->groups_pruned),
             (unsigned long long)st->groups_total);
}

/* A fresh state over the same files (footers shared by reference), without filter or
 * morsels: for plans that scan the source twice. */
static int pq_clone(void *state, void **out, sqe_error *err) {
    const pq_source_state *st = state;
    *out = NULL;
    pq_source_state *c = calloc(1, sizeof *c);
    if (!c) return err_nomem(err, "Parquet source");
    c->tracker = st->tracker;
    c->n_paths = st->n_paths;
    c->paths = calloc(st->n_paths, sizeof *c->paths);
    c->files = calloc(st->n_paths, sizeof *c->files);
    c->col_map = calloc(st->n_paths, sizeof *c->col_map);
    uint32_t n_cols = st->files[0]->schema->n_columns;
    int rc = c->paths && c->files && c->col_map ? SQE_OK : err_nomem(err, "Parquet source");
    for (uint32_t f = 0; f < st->n_paths && !rc; f++) {
        c->paths[f] = strdup(st->paths[f]);
        c->col_map[f] = malloc((n_cols ? n_cols : 1) * sizeof(uint32_t));
        if (!c->paths[f] || !c->col_map[f]) {
            rc = err_nomem(err, "Parquet source");
            break;
        }
        memcpy(c->col_map[f], st->col_map[f], n_cols * sizeof(uint32_t));
        c->files[f] = st->files[f];
        atomic_fetch_add(&c->files[f]->refs, 1);
    }
    if (rc) {
        pq_state_destroy(c);
        return rc;
    }
    *out = c;
    return SQE_OK;
}

static int pq_open(void *state, uint32_t morsel, const uint32_t *columns, uint32_t n_columns,
                   void **reader, sqe_error *err) {
    pq_source_state *st = state;
    const pq_morsel *m = &st->morsels[morsel];
    uint32_t *cols = malloc((n_columns ? n_columns : 1) * sizeof *cols);
    pq_source_reader *r = calloc(1, sizeof *r);
    if (!cols || !r) {
        free(cols);
        free(r);
        return err_nomem(err, "Parquet reader");
    }
    for (uint32_t i = 0; i < n_columns; i++) cols[i] = st->col_map[m->file][columns[i]];
    pq_predicate *preds = malloc((st->n_preds ? st->n_preds : 1) * sizeof *preds);
    int rc = preds ? SQE_OK : err_nomem(err, "Parquet reader");
    if (!rc) {
        uint32_t n_preds = file_predicates(st, m->file, preds);
        rc = pq_rg_open(st->files[m->file], m->group, cols, n_columns, preds, n_preds, st->tracker,
                        &r->rg, err);
    }
    free(preds);
    free(cols);
    if (rc) {
        free(r);
        return rc;
    }
    *reader = r;
    return SQE_OK;
}

static int pq_next(void *reader, vec_chunk *out, sqe_error *err) {
    pq_source_reader *r = reader;
    return pq_rg_next(r->rg, out, err);
}

static void pq_close(void *reader) {
    pq_source_reader *r = reader;
    if (!r) return;
    pq_rg_close(r->rg);
    free(r);
}

/* Maps the first file's columns onto file f's by name; types must match. */
static int map_columns(pq_source_state *st, uint32_t f, sqe_error *err) {
    const pq_schema *s0 = st->files[0]->schema, *sf = st->files[f]->schema;
    st->col_map[f] = malloc((s0->n_columns ? s0->n_columns : 1) * sizeof(uint32_t));
    if (!st->col_map[f]) return err_nomem(err, "binding the statement");
    for (uint32_t c = 0; c < s0->n_columns; c++) {
        const pq_node *want = s0->columns[c];
        uint32_t found = UINT32_MAX;
        if (f == 0) {
            found = c;
        } else {
            for (uint32_t k = 0; k < sf->n_columns && found == UINT32_MAX; k++)
                if (strcasecmp(sf->columns[k]->name, want->name) == 0) found = k;
            if (found == UINT32_MAX)
                return err_set(err, SQE_ERR_INVALID_FILE,
                               "Parquet file %s has no column '%s' (found in %s)", st->paths[f],
                               want->name, st->paths[0]);
            if (!type_equal(sf->columns[found]->type, want->type)) {
                char t1[128], t2[128];
                type_format(sf->columns[found]->type, t1, sizeof t1);
                type_format(want->type, t2, sizeof t2);
                return err_set(err, SQE_ERR_INVALID_FILE,
                               "Parquet file %s has column '%s' of type %s, but %s has %s",
                               st->paths[f], want->name, t1, st->paths[0], t2);
            }
        }
        st->col_map[f][c] = found;
    }
    return SQE_OK;
}

/* Opens the files (their paths taken over from files). */
static int open_files(scan_file_list *files, pq_source_state *st, sqe_error *err) {
    st->paths = files->paths;
    st->n_paths = files->n;
    files->paths = NULL;
    files->n = 0;
    st->files = calloc(st->n_paths, sizeof *st->files);
    st->col_map = calloc(st->n_paths, sizeof *st->col_map);
    if (!st->files || !st->col_map) return err_nomem(err, "binding the statement");
    for (uint32_t f = 0; f < st->n_paths; f++) {
        SQE_TRY(pq_file_open_as(st->paths[f], files->id, &st->files[f], err));
        SQE_TRY(map_columns(st, f, err));
    }
    return SQE_OK;
}

int scan_parquet_source(plan_ctx *pctx, scan_file_list *files, plan_source **out,
                        sqe_error *err) {
    *out = NULL;
    pq_source_state *st = calloc(1, sizeof *st);
    if (!st) return err_nomem(err, "binding the statement");
    st->tracker = pctx->tracker;
    plan_source *src;
    SQE_TRY(scan_source_new(pctx, st, pq_state_destroy, &src, err));
    SQE_TRY(open_files(files, st, err));
    const pq_schema *s = st->files[0]->schema;
    uint32_t n = s->n_columns;
    const char **nm = ARENA_ARRAY(pctx->arena, const char *, n + 1);
    sqe_type *types = ARENA_ARRAY(pctx->arena, sqe_type, n + 1);
    if (!nm || !types) return err_nomem(err, "binding the statement");
    double rows = 0;
    for (uint32_t f = 0; f < st->n_paths; f++) rows += (double)st->files[f]->total_rows;
    for (uint32_t i = 0; i < n; i++) {
        nm[i] = arena_strdup(pctx->arena, s->columns[i]->name);
        if (!nm[i]) return err_nomem(err, "binding the statement");
        types[i] = s->columns[i]->type;
    }
    src->n_columns = n;
    src->names = nm;
    src->types = types;
    src->est_rows = rows;
    src->set_filter = pq_set_filter;
    src->describe = pq_describe;
    src->column_ndv = pq_column_ndv;
    src->clone = pq_clone;
    src->plan_morsels = pq_plan_morsels;
    src->open = pq_open;
    src->next = pq_next;
    src->close = pq_close;
    *out = src;
    return SQE_OK;
}
