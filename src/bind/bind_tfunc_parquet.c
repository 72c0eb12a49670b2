/*
 * bind_tfunc_parquet.c: the Parquet table functions: read_parquet('path or glob') (also a
 * '.parquet' path used as a table), parquet_metadata('file') and parquet_schema('file').
 *
 * INTERFACE: bind_parquet_source (bind_int.h).
 * NOTES
 *   read_parquet opens every file's footer at bind time (through the footer cache): the first
 *   file gives the schema, the others must have the same top-level columns by name with the
 *   same types, and the row counts give the optimizer an exact estimate. Morsels are row groups
 *   (file, group); each reader maps the projected columns to the file's own column indices.
 *   A pushed-down filter (set_filter) is reduced to its conjuncts `column <cmp> constant`,
 *   `column IN (constants)` and `column IS [NOT] NULL`; row groups are skipped on statistics
 *   and bloom filters at morsel planning, pages inside a row group on the page index
 *   (pq_rg_open). The executor applies the whole filter to whatever is read.
 *   parquet_metadata / parquet_schema build their rows at bind time and hand them out from
 *   vectors (they are small: one row per column chunk / schema element).
 */
#include "bind/bind_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "format/parquet/pq_codec.h"
#include "format/parquet/pq_prune.h"
#include "format/parquet/pq_reader.h"
#include "io/io.h"
#include "plan/scan_preds.h"

/* ---- read_parquet ----------------------------------------------------------------------------- */

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
static int map_columns(binder *b, const sql_relation *rel, pq_source_state *st, uint32_t f) {
    const pq_schema *s0 = st->files[0]->schema, *sf = st->files[f]->schema;
    st->col_map[f] = malloc((s0->n_columns ? s0->n_columns : 1) * sizeof(uint32_t));
    BIND_CHECK(b, st->col_map[f]);
    for (uint32_t c = 0; c < s0->n_columns; c++) {
        const pq_node *want = s0->columns[c];
        uint32_t found = UINT32_MAX;
        if (f == 0) {
            found = c;
        } else {
            for (uint32_t k = 0; k < sf->n_columns && found == UINT32_MAX; k++)
                if (strcasecmp(sf->columns[k]->name, want->name) == 0) found = k;
            if (found == UINT32_MAX)
                return bind_error(b, SQE_ERR_INVALID_FILE, rel->line, rel->col,
                                  "Parquet file %s has no column '%s' (found in %s)", st->paths[f],
                                  want->name, st->paths[0]);
            if (!type_equal(sf->columns[found]->type, want->type)) {
                char t1[128], t2[128];
                type_format(sf->columns[found]->type, t1, sizeof t1);
                type_format(want->type, t2, sizeof t2);
                return bind_error(b, SQE_ERR_INVALID_FILE, rel->line, rel->col,
                                  "Parquet file %s has column '%s' of type %s, but %s has %s",
                                  st->paths[f], want->name, t1, st->paths[0], t2);
            }
        }
        st->col_map[f][c] = found;
    }
    return SQE_OK;
}

/* Opens the resolved files (taken over; the caller positions errors). */
static int open_files(binder *b, const sql_relation *rel, bind_file_list *files,
                      pq_source_state *st) {
    st->paths = files->paths;
    st->n_paths = files->n;
    files->paths = NULL;
    files->n = 0;
    st->files = calloc(st->n_paths, sizeof *st->files);
    st->col_map = calloc(st->n_paths, sizeof *st->col_map);
    BIND_CHECK(b, st->files && st->col_map);
    for (uint32_t f = 0; f < st->n_paths; f++) {
        SQE_TRY(pq_file_open_as(st->paths[f], files->id, &st->files[f], b->err));
        SQE_TRY(map_columns(b, rel, st, f));
    }
    return SQE_OK;
}

static int bind_read_parquet(binder *b, const sql_relation *rel, bind_file_list *files,
                             plan **out, const char ***names) {
    pq_source_state *st = calloc(1, sizeof *st);
    if (!st) return bind_nomem(b);
    st->tracker = b->pctx->tracker;
    plan_source *src;
    SQE_TRY(bind_tfunc_source_new(b, st, pq_state_destroy, &src));
    SQE_TRY(open_files(b, rel, files, st));
    const pq_schema *s = st->files[0]->schema;
    uint32_t n = s->n_columns;
    const char **nm = ARENA_ARRAY(b->pctx->arena, const char *, n + 1);
    sqe_type *types = ARENA_ARRAY(b->pctx->arena, sqe_type, n + 1);
    BIND_CHECK(b, nm && types);
    double rows = 0;
    for (uint32_t f = 0; f < st->n_paths; f++) rows += (double)st->files[f]->total_rows;
    for (uint32_t i = 0; i < n; i++) {
        nm[i] = arena_strdup(b->pctx->arena, s->columns[i]->name);
        BIND_CHECK(b, nm[i]);
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
    return bind_tfunc_plan(b, "read_parquet", src, out, names);
}

/* ---- parquet_metadata / parquet_schema: rows built at bind time --------------------------- */

static const char *physical_name(int t) {
    static const char *names[] = {"BOOLEAN", "INT32", "INT64", "INT96", "FLOAT", "DOUBLE",
                                  "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"};
    return t >= 0 && t < 8 ? names[t] : "UNKNOWN";
}

static const char *encoding_name(int e) {
    switch (e) {
    case PQ_ENC_PLAIN: return "PLAIN";
    case PQ_ENC_PLAIN_DICTIONARY: return "PLAIN_DICTIONARY";
    case PQ_ENC_RLE: return "RLE";
    case PQ_ENC_BIT_PACKED: return "BIT_PACKED";
    case PQ_ENC_DELTA_BINARY_PACKED: return "DELTA_BINARY_PACKED";
    case PQ_ENC_DELTA_LENGTH_BYTE_ARRAY: return "DELTA_LENGTH_BYTE_ARRAY";
    case PQ_ENC_DELTA_BYTE_ARRAY: return "DELTA_BYTE_ARRAY";
    case PQ_ENC_RLE_DICTIONARY: return "RLE_DICTIONARY";
    case PQ_ENC_BYTE_STREAM_SPLIT: return "BYTE_STREAM_SPLIT";
    default: return "UNKNOWN";
    }
}

static void stat_text(const pq_node *leaf, const uint8_t *p, size_t len, char *buf, size_t cap) {
    buf[0] = 0;
    if (!p) return;
    int t = leaf->physical;
    if ((t == PQ_TYPE_INT32 || t == PQ_TYPE_FLOAT) && len == 4) {
        int32_t v;
        float f;
        memcpy(&v, p, 4);
        memcpy(&f, p, 4);
        if (t == PQ_TYPE_INT32)
            snprintf(buf, cap, "%d", v);
        else
            snprintf(buf, cap, "%.9g", (double)f);
    } else if ((t == PQ_TYPE_INT64 || t == PQ_TYPE_DOUBLE) && len == 8) {
        int64_t v;
        double d;
        memcpy(&v, p, 8);
        memcpy(&d, p, 8);
        if (t == PQ_TYPE_INT64)
            snprintf(buf, cap, "%lld", (long long)v);
        else
            snprintf(buf, cap, "%.17g", d);
    } else if (t == PQ_TYPE_BOOLEAN && len >= 1) {
        snprintf(buf, cap, "%s", p[0] ? "true" : "false");
    } else if (leaf->type.id == TYPE_VARCHAR) {
        size_t n = len < cap - 1 ? len : cap - 1;
        memcpy(buf, p, n);
        buf[n] = 0;
    } else {
        size_t o = 0;
        for (size_t i = 0; i < len && o + 3 < cap; i++) o += (size_t)snprintf(buf + o, cap - o, "%02x", p[i]);
    }
}

static int bind_parquet_metadata(binder *b, const sql_relation *rel, bind_file_list *files,
                                 plan **out, const char ***names) {
    static const bind_rows_col defs[] = {
        {"file_name", TYPE_VARCHAR}, {"row_group_id", TYPE_BIGINT}, {"row_group_num_rows", TYPE_BIGINT},
        {"row_group_num_columns", TYPE_BIGINT}, {"row_group_bytes", TYPE_BIGINT}, {"column_id", TYPE_BIGINT},
        {"file_offset", TYPE_BIGINT}, {"num_values", TYPE_BIGINT}, {"path_in_schema", TYPE_VARCHAR},
        {"type", TYPE_VARCHAR}, {"stats_min", TYPE_VARCHAR}, {"stats_max", TYPE_VARCHAR},
        {"stats_null_count", TYPE_BIGINT}, {"stats_distinct_count", TYPE_BIGINT},
        {"stats_min_value", TYPE_VARCHAR}, {"stats_max_value", TYPE_VARCHAR}, {"compression", TYPE_VARCHAR},
        {"encodings", TYPE_VARCHAR}, {"index_page_offset", TYPE_BIGINT},
        {"dictionary_page_offset", TYPE_BIGINT}, {"data_page_offset", TYPE_BIGINT},
        {"total_compressed_size", TYPE_BIGINT}, {"total_uncompressed_size", TYPE_BIGINT},
        {"bloom_filter_offset", TYPE_BIGINT}, {"bloom_filter_length", TYPE_BIGINT},
        {"has_column_index", TYPE_BOOLEAN}, {"has_offset_index", TYPE_BOOLEAN},
    };
    uint32_t nd = sizeof defs / sizeof defs[0];
    bind_rows *rs;
    plan_source *src;
    SQE_TRY(bind_rows_init(b, &rs, defs, nd, &src));
    char **paths = files->paths;
    uint32_t n_paths = files->n;
    bind_rows_builder rb = {b, rs, 0};
    int rc = SQE_OK;
    char buf[256];
    for (uint32_t f = 0; f < n_paths && !rc; f++) {
        pq_file *pf;
        rc = pq_file_open_as(paths[f], files->id, &pf, b->err);
        if (rc) break;
        const pq_file_meta *m = pf->meta;
        for (uint32_t g = 0; g < m->n_row_groups && !rc; g++) {
            const pq_row_group *rg = &m->row_groups[g];
            for (uint32_t c = 0; c < rg->n_columns && !rc; c++) {
                const pq_column_chunk *cc = &rg->columns[c];
                const pq_column_meta *cm = &cc->meta_data;
                const pq_node *leaf = pf->schema->leaves[c];
                if ((rc = bind_rb_reserve(&rb))) break;
                rc = bind_rb_str(&rb, 0, paths[f]);
                bind_rb_int(&rb, 1, g);
                bind_rb_int(&rb, 2, rg->num_rows);
                bind_rb_int(&rb, 3, rg->n_columns);
                bind_rb_int(&rb, 4, rg->total_byte_size);
                bind_rb_int(&rb, 5, c);
                bind_rb_int(&rb, 6, cc->file_offset);
                bind_rb_int(&rb, 7, cm->num_values);
                size_t o = 0;
                buf[0] = 0;
                for (uint32_t k = 0; k < cm->n_path_in_schema && o + 1 < sizeof buf; k++) {
                    int w = snprintf(buf + o, sizeof buf - o, "%s%s", k ? "." : "", cm->path_in_schema[k]);
                    if (w > 0) o += (size_t)w;
                }
                if (!cc->has_meta_data) pq_node_path(leaf, buf, sizeof buf);
                if (!rc) rc = bind_rb_str(&rb, 8, buf);
                if (!rc) rc = bind_rb_str(&rb, 9, physical_name(cm->type));
                const pq_statistics *s = &cm->statistics;
                bool hs = cc->has_meta_data && cm->has_statistics;
                stat_text(leaf, hs && s->has_min ? s->min : NULL, s->min_len, buf, sizeof buf);
                if (!rc) rc = hs && s->has_min ? bind_rb_str(&rb, 10, buf) : bind_rb_null(&rb, 10);
                stat_text(leaf, hs && s->has_max ? s->max : NULL, s->max_len, buf, sizeof buf);
                if (!rc) rc = hs && s->has_max ? bind_rb_str(&rb, 11, buf) : bind_rb_null(&rb, 11);
                if (hs && s->has_null_count) bind_rb_int(&rb, 12, s->null_count);
                else if (!rc) rc = bind_rb_null(&rb, 12);
                if (hs && s->has_distinct_count) bind_rb_int(&rb, 13, s->distinct_count);
                else if (!rc) rc = bind_rb_null(&rb, 13);
                stat_text(leaf, hs && s->has_min_value ? s->min_value : NULL, s->min_value_len, buf, sizeof buf);
                if (!rc) rc = hs && s->has_min_value ? bind_rb_str(&rb, 14, buf) : bind_rb_null(&rb, 14);
                stat_text(leaf, hs && s->has_max_value ? s->max_value : NULL, s->max_value_len, buf, sizeof buf);
                if (!rc) rc = hs && s->has_max_value ? bind_rb_str(&rb, 15, buf) : bind_rb_null(&rb, 15);
                if (!rc) rc = bind_rb_str(&rb, 16, pq_codec_name(cm->codec));
                o = 0;
                buf[0] = 0;
                for (uint32_t e = 0; e < cm->n_encodings && o < sizeof buf - 32; e++)
                    o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%s", e ? ", " : "",
                                          encoding_name(cm->encodings[e]));
                if (!rc) rc = bind_rb_str(&rb, 17, buf);
                if (cm->has_index_page_offset) bind_rb_int(&rb, 18, cm->index_page_offset);
                else if (!rc) rc = bind_rb_null(&rb, 18);
                if (cm->has_dictionary_page_offset) bind_rb_int(&rb, 19, cm->dictionary_page_offset);
                else if (!rc) rc = bind_rb_null(&rb, 19);
                bind_rb_int(&rb, 20, cm->data_page_offset);
                bind_rb_int(&rb, 21, cm->total_compressed_size);
                bind_rb_int(&rb, 22, cm->total_uncompressed_size);
                if (cm->has_bloom_filter_offset) bind_rb_int(&rb, 23, cm->bloom_filter_offset);
                else if (!rc) rc = bind_rb_null(&rb, 23);
                if (cm->has_bloom_filter_length) bind_rb_int(&rb, 24, cm->bloom_filter_length);
                else if (!rc) rc = bind_rb_null(&rb, 24);
                VEC_DATA(&rs->cols[25], uint8_t)[rb.row] = cc->has_column_index;
                VEC_DATA(&rs->cols[26], uint8_t)[rb.row] = cc->has_offset_index;
                rb.row++;
            }
        }
        pq_file_release(pf);
    }
    if (rc) return rc;
    rs->n_rows = rb.row;
    src->est_rows = rb.row;
    (void)rel;
    return bind_tfunc_plan(b, "parquet_metadata", src, out, names);
}

static const char *repetition_name(const pq_schema_element *e) {
    if (!e->has_repetition) return NULL;
    switch (e->repetition_type) {
    case PQ_REP_REQUIRED: return "REQUIRED";
    case PQ_REP_OPTIONAL: return "OPTIONAL";
    case PQ_REP_REPEATED: return "REPEATED";
    default: return "UNKNOWN";
    }
}

static const char *converted_name(int c) {
    static const char *names[] = {"UTF8", "MAP", "MAP_KEY_VALUE", "LIST", "ENUM", "DECIMAL",
                                  "DATE", "TIME_MILLIS", "TIME_MICROS", "TIMESTAMP_MILLIS",
                                  "TIMESTAMP_MICROS", "UINT_8", "UINT_16", "UINT_32", "UINT_64",
                                  "INT_8", "INT_16", "INT_32", "INT_64", "JSON", "BSON", "INTERVAL"};
    return c >= 0 && c < 22 ? names[c] : "UNKNOWN";
}

static void logical_text(const pq_logical_type *l, char *buf, size_t cap) {
    static const char *units[] = {"?", "MILLIS", "MICROS", "NANOS"};
    const char *unit = l->unit >= 0 && l->unit <= 3 ? units[l->unit] : "?";
    switch (l->kind) {
    case PQ_LT_NONE: buf[0] = 0; break;
    case PQ_LT_STRING: snprintf(buf, cap, "STRING"); break;
    case PQ_LT_MAP: snprintf(buf, cap, "MAP"); break;
    case PQ_LT_LIST: snprintf(buf, cap, "LIST"); break;
    case PQ_LT_ENUM: snprintf(buf, cap, "ENUM"); break;
    case PQ_LT_DECIMAL: snprintf(buf, cap, "DECIMAL(%d,%d)", l->precision, l->scale); break;
    case PQ_LT_DATE: snprintf(buf, cap, "DATE"); break;
    case PQ_LT_TIME: snprintf(buf, cap, "TIME(%s,%s)", unit, l->is_adjusted_to_utc ? "UTC" : "local"); break;
    case PQ_LT_TIMESTAMP:
        snprintf(buf, cap, "TIMESTAMP(%s,%s)", unit, l->is_adjusted_to_utc ? "UTC" : "local");
        break;
    case PQ_LT_INTEGER: snprintf(buf, cap, "INTEGER(%d,%s)", l->bit_width, l->is_signed ? "signed" : "unsigned"); break;
    case PQ_LT_UNKNOWN: snprintf(buf, cap, "UNKNOWN"); break;
    case PQ_LT_JSON: snprintf(buf, cap, "JSON"); break;
    case PQ_LT_BSON: snprintf(buf, cap, "BSON"); break;
    case PQ_LT_UUID: snprintf(buf, cap, "UUID"); break;
    case PQ_LT_FLOAT16: snprintf(buf, cap, "FLOAT16"); break;
    default: snprintf(buf, cap, "OTHER(%d)", l->raw_id); break;
    }
}

static int bind_parquet_schema(binder *b, const sql_relation *rel, bind_file_list *files,
                               plan **out, const char ***names) {
    static const bind_rows_col defs[] = {
        {"file_name", TYPE_VARCHAR}, {"name", TYPE_VARCHAR}, {"type", TYPE_VARCHAR},
        {"type_length", TYPE_BIGINT}, {"repetition_type", TYPE_VARCHAR}, {"num_children", TYPE_BIGINT},
        {"converted_type", TYPE_VARCHAR}, {"scale", TYPE_BIGINT}, {"precision", TYPE_BIGINT},
        {"field_id", TYPE_BIGINT}, {"logical_type", TYPE_VARCHAR}, {"sqe_type", TYPE_VARCHAR},
    };
    uint32_t nd = sizeof defs / sizeof defs[0];
    bind_rows *rs;
    plan_source *src;
    SQE_TRY(bind_rows_init(b, &rs, defs, nd, &src));
    char **paths = files->paths;
    uint32_t n_paths = files->n;
    bind_rows_builder rb = {b, rs, 0};
    int rc = SQE_OK;
    char buf[256];
    for (uint32_t f = 0; f < n_paths && !rc; f++) {
        pq_file *pf;
        rc = pq_file_open_as(paths[f], files->id, &pf, b->err);
        if (rc) break;
        const pq_file_meta *m = pf->meta;
        uint32_t leaf = 0;
        for (uint32_t i = 0; i < m->n_schema && !rc; i++) {
            const pq_schema_element *e = &m->schema[i];
            if ((rc = bind_rb_reserve(&rb))) break;
            rc = bind_rb_str(&rb, 0, paths[f]);
            if (!rc) rc = bind_rb_str(&rb, 1, e->name);
            if (!rc) rc = e->has_type && i > 0 ? bind_rb_str(&rb, 2, physical_name(e->type)) : bind_rb_null(&rb, 2);
            if (e->has_type_length) bind_rb_int(&rb, 3, e->type_length);
            else if (!rc) rc = bind_rb_null(&rb, 3);
            if (!rc) rc = bind_rb_str(&rb, 4, repetition_name(e));
            if (e->has_num_children) bind_rb_int(&rb, 5, e->num_children);
            else if (!rc) rc = bind_rb_null(&rb, 5);
            if (!rc) rc = e->has_converted_type ? bind_rb_str(&rb, 6, converted_name(e->converted_type)) : bind_rb_null(&rb, 6);
            if (e->has_scale) bind_rb_int(&rb, 7, e->scale);
            else if (!rc) rc = bind_rb_null(&rb, 7);
            if (e->has_precision) bind_rb_int(&rb, 8, e->precision);
            else if (!rc) rc = bind_rb_null(&rb, 8);
            if (e->has_field_id) bind_rb_int(&rb, 9, e->field_id);
            else if (!rc) rc = bind_rb_null(&rb, 9);
            logical_text(&e->logical, buf, sizeof buf);
            if (!rc) rc = buf[0] ? bind_rb_str(&rb, 10, buf) : bind_rb_null(&rb, 10);
            bool is_leaf = i > 0 && e->has_type && !(e->has_num_children && e->num_children > 0);
            if (is_leaf && leaf < pf->schema->n_leaves) {
                const pq_node *ln = pf->schema->leaves[leaf++];
                if (ln->unsupported)
                    snprintf(buf, sizeof buf, "unsupported: %s", ln->unsupported);
                else
                    type_format(ln->type, buf, sizeof buf);
                if (!rc) rc = bind_rb_str(&rb, 11, buf);
            } else if (!rc) {
                rc = bind_rb_null(&rb, 11);
            }
            rb.row++;
        }
        pq_file_release(pf);
    }
    if (rc) return rc;
    rs->n_rows = rb.row;
    src->est_rows = rb.row;
    (void)rel;
    return bind_tfunc_plan(b, "parquet_schema", src, out, names);
}

int bind_parquet_source(binder *b, const sql_relation *rel, const char *function,
                        bind_file_list *files, plan **out, const char ***names) {
    int rc;
    if (strcmp(function, "parquet_metadata") == 0)
        rc = bind_parquet_metadata(b, rel, files, out, names);
    else if (strcmp(function, "parquet_schema") == 0)
        rc = bind_parquet_schema(b, rel, files, out, names);
    else
        rc = bind_read_parquet(b, rel, files, out, names);
    bind_file_list_free(files);
    if (rc && b->err && b->err->line == 0) {
        b->err->line = rel->line;
        b->err->column = rel->col;
    }
    return rc;
}
