/*
 * scan_iceberg.c: the scan source over an Iceberg table at one snapshot: plans the data files
 * (manifest and file pruning), lists the row groups to read and reads them by field id with the
 * snapshot's row-level deletes applied.
 *
 * INTERFACE: scan_iceberg_source (scan_iceberg.h).
 * NOTES
 *   The source plans lazily, in plan_morsels: the pushed-down filter (set_filter) becomes
 *   ice_scan_preds for manifest and file pruning (iceberg/scan_plan.h) and Parquet predicates
 *   for row-group pruning; every surviving row group of every data file is a morsel. Columns are
 *   read by field id (iceberg/scan_read.h), so renamed, added and dropped columns read right.
 *   The snapshot and the schema to read with are the binder's choice (bind/bind_iceberg.c).
 *   Files are read as the user who loaded the table (ice_metadata.io, io.h): manifests through
 *   ice_scan_plan, data and delete files through pq_file_open_as: the Parquet file keeps the
 *   identity, so the pool threads that read row groups use it, never a thread-local.
 */
#include "scan/scan_iceberg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "catalog/catalog_iceberg.h"
#include "format/parquet/pq_reader.h"
#include "iceberg/delete_index.h"
#include "iceberg/scan_plan.h"
#include "iceberg/scan_read.h"
#include "io/io.h"
#include "plan/scan_preds.h"
#include "scan/scan_source.h"

typedef struct ice_src_pred {
    uint32_t column;
    ice_pred_op op;
    vec values;               /* owned */
    uint32_t n_values;
    bool usable;
} ice_src_pred;

typedef struct ice_morsel {
    uint32_t file;
    uint32_t group;
    int64_t first_pos;
} ice_morsel;

typedef struct ice_source {
    cat_table *table;                /* a reference */
    const ice_metadata *meta;
    const ice_snapshot *snap;        /* NULL: the table has no snapshot (no rows) */
    const ice_schema *schema;
    ice_read_column *cols;           /* source columns: the schema's top-level fields */
    const char **names;
    sqe_type *types;
    uint32_t n_cols;
    mem_tracker *tracker;
    ice_src_pred *preds;
    uint32_t n_preds;
    /* planned */
    bool planned;
    arena plan_arena;
    ice_scan_files files;
    pq_file **pq;                    /* per data file */
    uint32_t **file_cols;            /* per data file: source column -> file column */
    ice_morsel *morsels;
    uint32_t n_morsels;
    uint64_t groups_total, groups_pruned;
    double planning_ms;              /* manifests, delete index and footers, in plan_morsels */
    ice_delete_index *deletes;       /* NULL when the snapshot has no delete files */
    /* NDV estimates for join ordering (column_ndv), from an unfiltered listing of the files */
    double *ndv;                     /* per source column; 0 = not computed */
    arena stats_arena;
    bool stats_planned;
    ice_scan_files stats;
} ice_source;

static void source_destroy(void *state) {
    ice_source *st = state;
    if (!st) return;
    for (uint32_t f = 0; st->pq && f < st->files.n_data; f++) pq_file_release(st->pq[f]);
    for (uint32_t f = 0; st->file_cols && f < st->files.n_data; f++) free(st->file_cols[f]);
    free(st->pq);
    free(st->file_cols);
    free(st->morsels);
    ice_delete_index_destroy(st->deletes);
    for (uint32_t i = 0; i < st->n_preds; i++) vec_destroy(&st->preds[i].values);
    free(st->preds);
    free(st->cols);
    free(st->names);
    free(st->types);
    arena_destroy(&st->plan_arena);
    arena_destroy(&st->stats_arena);
    free(st->ndv);
    cat_table_unref(st->table);
    free(st);
}

static int add_pred(void *ud, const plan_scan_pred *sp, sqe_error *err) {
    ice_source *st = ud;
    ice_src_pred *grown = realloc(st->preds, (st->n_preds + 1) * sizeof *grown);
    if (!grown) return err_nomem(err, "Iceberg filter");
    st->preds = grown;
    ice_src_pred *p = &st->preds[st->n_preds++];
    memset(p, 0, sizeof *p);
    p->column = sp->column;
    static const ice_pred_op map[] = {ICE_PRED_EQ, ICE_PRED_LT, ICE_PRED_LE,      ICE_PRED_GT,
                                      ICE_PRED_GE, ICE_PRED_IN, ICE_PRED_IS_NULL, ICE_PRED_NOT_NULL};
    p->op = map[sp->op];
    sqe_type t = st->types[sp->column];
    SQE_TRY(vec_init(&p->values, t, sp->n_consts ? sp->n_consts : 1, st->tracker, err));
    for (uint32_t i = 0; i < sp->n_consts; i++)
        if (!type_equal(sp->consts[i]->type, t)) return SQE_OK; /* not comparable: unusable */
    for (uint32_t i = 0; i < sp->n_consts; i++)
        SQE_TRY(vec_copy_row(&p->values, i, sp->consts[i]->u.constant, 0, err));
    p->n_values = sp->n_consts;
    p->usable = true;
    return SQE_OK;
}

static int source_set_filter(void *state, const bexpr *filter, const plan_col_id *col_ids,
                             const uint32_t *columns, uint32_t n, sqe_error *err) {
    return plan_scan_preds_collect(filter, col_ids, columns, n, add_pred, state, err);
}

/* The usable predicates as Parquet predicates over data file f's top-level leaves. */
static uint32_t file_predicates(const ice_source *st, uint32_t f, pq_predicate *out) {
    uint32_t n = 0;
    static const pq_pred_op map[] = {
        [ICE_PRED_EQ] = PQ_PRED_EQ, [ICE_PRED_LT] = PQ_PRED_LT, [ICE_PRED_LE] = PQ_PRED_LE,
        [ICE_PRED_GT] = PQ_PRED_GT, [ICE_PRED_GE] = PQ_PRED_GE, [ICE_PRED_IN] = PQ_PRED_IN,
        [ICE_PRED_IS_NULL] = PQ_PRED_IS_NULL, [ICE_PRED_NOT_NULL] = PQ_PRED_IS_NOT_NULL};
    for (uint32_t i = 0; i < st->n_preds; i++) {
        const ice_src_pred *sp = &st->preds[i];
        uint32_t fc = st->file_cols[f][sp->column];
        if (!sp->usable || fc == UINT32_MAX) continue;
        const pq_node *leaf = st->pq[f]->schema->columns[fc];
        if (leaf->kind != PQ_NODE_LEAF || leaf->max_rep != 0 || leaf->unsupported) continue;
        bool null_test = sp->op == ICE_PRED_IS_NULL || sp->op == ICE_PRED_NOT_NULL;
        if (!null_test && (sp->n_values == 0 || !type_equal(sp->values.type, leaf->type))) continue;
        out[n++] = (pq_predicate){leaf, map[sp->op], &sp->values, sp->n_values};
    }
    return n;
}

static int plan_files(ice_source *st, sqe_error *err) {
    ice_scan_pred *preds = calloc(st->n_preds ? st->n_preds : 1, sizeof *preds);
    if (!preds) return err_nomem(err, "Iceberg scan");
    uint32_t n = 0;
    for (uint32_t i = 0; i < st->n_preds; i++) {
        if (!st->preds[i].usable || !st->cols[st->preds[i].column].field) continue;
        preds[n++] = (ice_scan_pred){st->cols[st->preds[i].column].field->id, st->preds[i].op,
                                     &st->preds[i].values, st->preds[i].n_values};
    }
    int rc = ice_scan_plan(&st->plan_arena, st->meta, st->snap, st->schema, preds, n, &st->files,
                           err);
    free(preds);
    SQE_TRY(rc);
    if (st->files.n_deletes == 0) return SQE_OK;
    SQE_TRY(ice_delete_index_create(st->meta, &st->deletes, err));
    for (uint32_t i = 0; i < st->files.n_deletes; i++)
        SQE_TRY(ice_delete_index_add(st->deletes, st->files.deletes[i], err));
    return SQE_OK;
}

static int plan_morsels(ice_source *st, sqe_error *err);

/* Opens data file location as the table's identity (st->meta->io); the file keeps it for its
 * row-group reads, which run on pool threads. */
static int open_data_file(const ice_source *st, const char *location, pq_file **out,
                          sqe_error *err) {
    return pq_file_open_as(location, st->meta->io, out, err);
}

static int source_plan_morsels(void *state, uint32_t n_threads, uint32_t *n_morsels,
                               sqe_error *err) {
    ice_source *st = state;
    (void)n_threads;
    if (st->planned) {
        *n_morsels = st->n_morsels;
        return SQE_OK;
    }
    st->planned = true;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int prc = plan_morsels(st, err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    st->planning_ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
    SQE_TRY(prc);
    *n_morsels = st->n_morsels;
    return SQE_OK;
}

/* Plans the files (pruned), opens their footers and lists the row groups to read. */
static int plan_morsels(ice_source *st, sqe_error *err) {
    SQE_TRY(plan_files(st, err));
    uint32_t nf = st->files.n_data;
    st->pq = calloc(nf ? nf : 1, sizeof *st->pq);
    st->file_cols = calloc(nf ? nf : 1, sizeof *st->file_cols);
    pq_predicate *pp = malloc((st->n_preds ? st->n_preds : 1) * sizeof *pp);
    int rc = st->pq && st->file_cols && pp ? SQE_OK : err_nomem(err, "Iceberg scan");
    uint32_t cap = 0;
    for (uint32_t f = 0; !rc && f < nf; f++) {
        const ice_data_file *df = &st->files.data[f]->file;
        if (df->file_format && strcasecmp(df->file_format, "PARQUET") != 0) {
            rc = err_set(err, SQE_ERR_NOT_SUPPORTED, "unsupported: data file %s is %s, not Parquet",
                         df->file_path, df->file_format);
            break;
        }
        rc = open_data_file(st, df->file_path, &st->pq[f], err);
        if (rc) {
            err_prefix(err, "Iceberg table %s.%s: data file", st->table->schema, st->table->name);
            break;
        }
        st->file_cols[f] = malloc((st->n_cols ? st->n_cols : 1) * sizeof(uint32_t));
        if (!st->file_cols[f]) {
            rc = err_nomem(err, "Iceberg scan");
            break;
        }
        rc = ice_map_file_columns(st->pq[f], st->cols, st->n_cols, st->file_cols[f], err);
        if (rc) break;
        const pq_file_meta *meta = st->pq[f]->meta;
        uint32_t n_pp = file_predicates(st, f, pp);
        int64_t pos = 0;
        for (uint32_t g = 0; g < meta->n_row_groups; g++) {
            int64_t rows = meta->row_groups[g].num_rows;
            st->groups_total++;
            bool may = rows > 0;
            for (uint32_t k = 0; may && k < n_pp; k++)
                may = pq_stats_may_match(meta, &meta->row_groups[g].columns[pp[k].leaf->leaf], &pp[k]);
            if (!may) {
                st->groups_pruned++;
            } else {
                if (st->n_morsels == cap) {
                    cap = cap ? cap * 2 : 64;
                    ice_morsel *m = realloc(st->morsels, cap * sizeof *m);
                    if (!m) {
                        rc = err_nomem(err, "Iceberg scan");
                        break;
                    }
                    st->morsels = m;
                }
                st->morsels[st->n_morsels++] = (ice_morsel){f, g, pos};
            }
            pos += rows > 0 ? rows : 0;
        }
    }
    free(pp);
    return rc;
}

/* The value of an integer-like bound (1-row vector) as int64. */
static bool bound_int(const vec *v, int64_t *out) {
    if (!v || vec_is_null(v, 0)) return false;
    uint32_t p;
    const vec *f = vec_resolve(v, 0, &p);
    switch (type_physical_size(v->type)) {
    case 1: *out = VEC_DATA(f, int8_t)[p]; return true;
    case 2: *out = VEC_DATA(f, int16_t)[p]; return true;
    case 4: *out = VEC_DATA(f, int32_t)[p]; return true;
    case 8: *out = VEC_DATA(f, int64_t)[p]; return true;
    default: return false;
    }
}

static const vec *file_bound(const ice_bounds *b, int32_t id) {
    for (uint32_t i = 0; b->present && i < b->n; i++)
        if (b->items[i].field_id == id) return &b->items[i].value;
    return NULL;
}

/* Distinct values of a column, estimated from the data files' metrics: the value range of
 * integer-like columns over all files' bounds, capped by the row count; for strings the first
 * file's dictionary size when it is small against its rows. Unknown otherwise. */
static double estimate_ndv(ice_source *st, uint32_t column) {
    const ice_read_column *c = &st->cols[column];
    if (!c->field || !st->snap) return -1;
    if (!st->stats_planned) {
        st->stats_planned = true;
        if (ice_scan_plan(&st->stats_arena, st->meta, st->snap, st->schema, NULL, 0, &st->stats,
                          NULL) != SQE_OK)
            memset(&st->stats, 0, sizeof st->stats);
    }
    const ice_scan_files *f = &st->stats;
    if (!f->n_data) return -1;
    double rows = (double)f->rows;
    sqe_type t = c->type;
    bool integer_like = type_is_integer(t) || t.id == TYPE_DATE ||
                        (t.id == TYPE_DECIMAL && !type_decimal_is_long(t));
    if (integer_like) {
        int64_t lo = 0, hi = 0;
        for (uint32_t i = 0; i < f->n_data; i++) {
            int64_t a, b;
            if (!bound_int(file_bound(&f->data[i]->file.lower_bounds, c->field->id), &a) ||
                !bound_int(file_bound(&f->data[i]->file.upper_bounds, c->field->id), &b))
                return -1;
            if (!i || a < lo) lo = a;
            if (!i || b > hi) hi = b;
        }
        double range = (double)hi - (double)lo + 1;
        return range < rows ? range : rows;
    }
    if (type_is_string(t)) {
        pq_file *pf;
        if (open_data_file(st, f->data[0]->file.file_path, &pf, NULL) != SQE_OK) return -1;
        double est = -1;
        uint32_t fc;
        if (ice_map_file_columns(pf, c, 1, &fc, NULL) == SQE_OK && fc != UINT32_MAX &&
            pf->meta->n_row_groups > 0) {
            const pq_node *leaf = pf->schema->columns[fc];
            if (leaf->kind == PQ_NODE_LEAF && !leaf->max_rep) {
                int64_t dict = pq_file_dictionary_size(pf, 0, leaf->leaf);
                double rg_rows = (double)pf->meta->row_groups[0].num_rows;
                if (dict > 0 && (double)dict * 4 < rg_rows) est = (double)dict;
            }
        }
        pq_file_release(pf);
        return est;
    }
    return -1;
}

static double source_column_ndv(void *state, uint32_t column) {
    ice_source *st = state;
    if (!st->ndv && !(st->ndv = calloc(st->n_cols, sizeof *st->ndv))) return -1;
    if (st->ndv[column] == 0) st->ndv[column] = estimate_ndv(st, column);
    return st->ndv[column];
}

static void source_describe(void *state, char *buf, size_t len) {
    ice_source *st = state;
    const ice_scan_files *f = &st->files;
    snprintf(buf, len,
             "snapshot: %lld  manifests: %u of %u  data files: %llu of %llu  row groups: %llu of "
             "%llu  planning: %.2f ms",
             st->snap ? (long long)st->snap->snapshot_id : -1LL,
             f->manifests_total - f->manifests_pruned, f->manifests_total,
             (unsigned long long)(f->files_total - f->files_pruned),
             (unsigned long long)f->files_total,
             (unsigned long long)(st->groups_total - st->groups_pruned),
             (unsigned long long)st->groups_total, st->planning_ms);
}

typedef struct ice_reader {
    ice_rg_reader *rg;
    ice_read_column *cols;
    uint32_t *file_cols;
    /* row-level deletes of this data file */
    bool has_deletes;
    ice_file_deletes deletes;
    uint32_t **eq_cols;              /* per equality set: chunk column of each of its fields */
    uint32_t *sel;
} ice_reader;

static void source_close(void *reader) {
    ice_reader *r = reader;
    if (!r) return;
    ice_rg_reader_close(r->rg);
    if (r->has_deletes) {
        ice_eq_delete_columns_free(r->eq_cols, r->deletes.n_eq, NULL);
        ice_file_deletes_release(&r->deletes);
    }
    free(r->sel);
    free(r->cols);
    free(r->file_cols);
    free(r);
}

/* The row filter: drops rows at deleted positions or equal to an equality delete. */
static int deletes_filter(void *ud, const vec_chunk *rows, int64_t first_pos, bool *keep,
                          sqe_error *err) {
    ice_reader *r = ud;
    uint32_t n_sel = 0;
    SQE_TRY(ice_file_deletes_filter(&r->deletes, rows, first_pos, (const uint32_t *const *)r->eq_cols,
                                    r->sel, &n_sel, err));
    for (uint32_t i = 0; i < rows->count; i++) keep[i] = false;
    for (uint32_t i = 0; i < n_sel; i++) keep[r->sel[i]] = true;
    return SQE_OK;
}

/* Loads the deletes of the morsel's data file into r and works out which file columns the
 * equality sets need (ice_eq_delete_columns: projected ones are reused, the others, *extra, are
 * read in addition). */
static int prepare_deletes(ice_source *st, const ice_morsel *m, ice_reader *r, uint32_t n_columns,
                           uint32_t **extra, uint32_t *n_extra, sqe_error *err) {
    const ice_manifest_entry *data = st->files.data[m->file];
    *extra = NULL;
    *n_extra = 0;
    if (!st->deletes || !ice_delete_index_may_apply(st->deletes, data)) return SQE_OK;
    SQE_TRY(ice_delete_index_for_file(st->deletes, data, &r->deletes, err));
    r->has_deletes = true;
    if (ice_file_deletes_empty(&r->deletes)) return SQE_OK;
    r->sel = malloc(VEC_CHUNK_SIZE * sizeof *r->sel);
    if (!r->sel) return err_nomem(err, "Iceberg deletes");
    return ice_eq_delete_columns(&r->deletes, st->pq[m->file], data->file.file_path, r->file_cols,
                                 n_columns, &r->eq_cols, extra, n_extra, err);
}

static int source_open(void *state, uint32_t morsel, const uint32_t *columns, uint32_t n_columns,
                       void **reader, sqe_error *err) {
    ice_source *st = state;
    const ice_morsel *m = &st->morsels[morsel];
    ice_reader *r = calloc(1, sizeof *r);
    if (r) r->cols = malloc((n_columns ? n_columns : 1) * sizeof *r->cols);
    if (r) r->file_cols = malloc((n_columns ? n_columns : 1) * sizeof *r->file_cols);
    pq_predicate *pp = malloc((st->n_preds ? st->n_preds : 1) * sizeof *pp);
    int rc = r && r->cols && r->file_cols && pp ? SQE_OK : err_nomem(err, "Iceberg reader");
    if (!rc) {
        for (uint32_t i = 0; i < n_columns; i++) {
            r->cols[i] = st->cols[columns[i]];
            r->file_cols[i] = st->file_cols[m->file][columns[i]];
        }
        uint32_t n_pp = file_predicates(st, m->file, pp);
        uint32_t *extra = NULL, n_extra = 0;
        rc = prepare_deletes(st, m, r, n_columns, &extra, &n_extra, err);
        bool filter = r->has_deletes && !ice_file_deletes_empty(&r->deletes);
        if (!rc)
            rc = ice_rg_reader_open(st->pq[m->file], m->group,
                                    st->files.data[m->file]->file.file_path, m->first_pos, r->cols,
                                    r->file_cols, n_columns, extra, n_extra, pp, n_pp,
                                    filter ? deletes_filter : NULL, r, st->tracker, &r->rg,
                                    NULL, err);
        free(extra);
        if (rc) err_prefix(err, "%s", st->files.data[m->file]->file.file_path);
    }
    free(pp);
    if (rc) {
        source_close(r);
        return rc;
    }
    *reader = r;
    return SQE_OK;
}

static int source_next(void *reader, vec_chunk *out, sqe_error *err) {
    ice_reader *r = reader;
    return ice_rg_reader_next(r->rg, out, err);
}

/* A new source over table t at snapshot snap read with schema. */
static int source_new(cat_table *t, const ice_snapshot *snap, const ice_schema *schema,
                      mem_tracker *tracker, ice_source **out, sqe_error *err) {
    ice_source *st = calloc(1, sizeof *st);
    if (!st) return err_nomem(err, "Iceberg scan");
    cat_table_ref(t);
    st->table = t;
    st->meta = t->ice->meta;
    st->snap = snap;
    st->schema = schema;
    st->tracker = tracker;
    arena_init(&st->plan_arena, NULL);
    arena_init(&st->stats_arena, NULL);
    uint32_t nf = schema->type.n_fields, n = nf + ICE_SCAN_HIDDEN_COLUMNS;
    st->n_cols = n;
    st->cols = calloc(n, sizeof *st->cols);
    st->names = calloc(n, sizeof *st->names);
    st->types = calloc(n, sizeof *st->types);
    int rc = st->cols && st->names && st->types ? SQE_OK : err_nomem(err, "Iceberg scan");
    for (uint32_t i = 0; !rc && i < nf; i++) {
        const ice_field *f = &schema->type.fields[i];
        st->cols[i].field = f;
        st->names[i] = f->name;
        rc = ice_schema_to_sqe_type(&f->type, &st->types[i], err);
        st->cols[i].type = st->types[i];
    }
    if (!rc) {
        st->cols[nf] = (ice_read_column){NULL, type_make(TYPE_VARCHAR), ICE_COL_PATH};
        st->cols[nf + 1] = (ice_read_column){NULL, type_make(TYPE_BIGINT), ICE_COL_POS};
        st->names[nf] = "$path";
        st->names[nf + 1] = "$pos";
        st->types[nf] = st->cols[nf].type;
        st->types[nf + 1] = st->cols[nf + 1].type;
    }
    if (rc) {
        source_destroy(st);
        return rc;
    }
    *out = st;
    return SQE_OK;
}

static int source_clone(void *state, void **out, sqe_error *err) {
    ice_source *st = state;
    ice_source *c;
    SQE_TRY(source_new(st->table, st->snap, st->schema, st->tracker, &c, err));
    *out = c;
    return SQE_OK;
}


int scan_iceberg_source(plan_ctx *pctx, cat_table *t, const ice_snapshot *snap,
                        const ice_schema *schema, plan_source **out, sqe_error *err) {
    *out = NULL;
    ice_source *st;
    SQE_TRY(source_new(t, snap, schema, pctx->tracker, &st, err));
    plan_source *src;
    SQE_TRY(scan_source_new(pctx, st, source_destroy, &src, err));
    src->n_columns = st->n_cols;
    src->names = st->names;
    src->types = st->types;
    src->est_rows = -1;
    if (snap && snap->has_summary) {
        const char *total = ice_kv_get(&snap->summary, "total-records");
        if (total) src->est_rows = strtod(total, NULL);
    } else if (!snap) {
        src->est_rows = 0;
    }
    src->set_filter = source_set_filter;
    src->clone = source_clone;
    src->describe = source_describe;
    src->column_ndv = source_column_ndv;
    src->plan_morsels = source_plan_morsels;
    src->open = source_open;
    src->next = source_next;
    src->close = source_close;
    *out = src;
    return SQE_OK;
}
