/*
 * scan_read.c: one row group of an Iceberg data file as the table's columns (see scan_read.h).
 *
 * INTERFACE: ice_map_file_columns, ice_rg_reader_open/next/close.
 * NOTES
 *   The Parquet row-group reader fills a private chunk of the file's column types; columns of
 *   the bound type are then swapped into the caller's chunk (no copy: both vectors have the same
 *   type, and the caller is done with its chunk when it asks for the next one); promoted columns
 *   are widened value by value; missing columns become constant NULLs (or the initial default).
 *   When the row filter drops rows, the surviving rows are copied into the caller's vectors
 *   (deletes are rare enough that a copy is cheaper than carrying selections through).
 */
#include "iceberg/scan_read.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "iceberg/delete_index.h"

struct ice_rg_reader {
    pq_rg_reader *rg;
    const ice_read_column *cols;
    uint32_t n_cols;
    uint32_t *in_index;        /* per output column: its column in `in`, or UINT32_MAX */
    vec_chunk in;              /* the file's columns: present projected ones, then extras */
    vec_chunk hold;            /* output-typed vectors used while compacting */
    bool *keep;
    int64_t pos;               /* file position of the next row */
    vec path;                  /* "$path": one varchar row */
    ice_row_filter_fn filter;
    void *filter_ud;
};

/* Can a file value of type from be read as type to? */
static bool promotable(sqe_type from, sqe_type to) {
    if (type_equal(from, to)) return true;
    if (type_is_integer(from) && type_is_integer(to)) return from.id <= to.id;
    if (from.id == TYPE_REAL && to.id == TYPE_DOUBLE) return true;
    if (from.id == TYPE_DECIMAL && to.id == TYPE_DECIMAL)
        return from.scale == to.scale && from.precision <= to.precision;
    if (type_is_string(from) && type_is_string(to)) return true;
    /* nested values keep their layout; field names may differ after renames */
    if (type_is_nested(from) && from.id == to.id) return true;
    return false;
}

int ice_map_file_columns(const pq_file *f, const ice_read_column *cols, uint32_t n,
                         uint32_t *file_cols, sqe_error *err) {
    const pq_schema *s = f->schema;
    bool has_ids = false;
    for (uint32_t k = 0; k < s->n_columns; k++)
        if (s->columns[k]->has_field_id) has_ids = true;
    for (uint32_t i = 0; i < n; i++) {
        file_cols[i] = UINT32_MAX;
        if (cols[i].kind != ICE_COL_FIELD) continue;
        for (uint32_t k = 0; k < s->n_columns && file_cols[i] == UINT32_MAX; k++) {
            const pq_node *c = s->columns[k];
            if (has_ids ? (c->has_field_id && c->field_id == cols[i].field->id)
                        : strcasecmp(c->name, cols[i].field->name) == 0)
                file_cols[i] = k;
        }
        if (file_cols[i] == UINT32_MAX) continue;
        sqe_type ft = s->columns[file_cols[i]]->type;
        if (!promotable(ft, cols[i].type)) {
            char a[128], b[128];
            type_format(ft, a, sizeof a);
            type_format(cols[i].type, b, sizeof b);
            return err_set(err, SQE_ERR_NOT_SUPPORTED,
                           "unsupported: data file %s has column '%s' (field id %d) of type %s, "
                           "which cannot be read as the table's %s",
                           f->path, cols[i].field->name, cols[i].field->id, a, b);
        }
    }
    return SQE_OK;
}

int ice_rg_reader_open(pq_file *f, uint32_t g, const char *path, int64_t first_pos,
                       const ice_read_column *cols,
                       const uint32_t *file_cols, uint32_t n_cols, const uint32_t *extra_cols,
                       uint32_t n_extra, const pq_predicate *preds, uint32_t n_preds,
                       ice_row_filter_fn filter, void *filter_ud, mem_tracker *tracker,
                       ice_rg_reader **out, uint32_t *filter_cols, sqe_error *err) {
    *out = NULL;
    ice_rg_reader *r = calloc(1, sizeof *r);
    uint32_t n_in_max = n_cols + n_extra;
    uint32_t *read = malloc((n_in_max ? n_in_max : 1) * sizeof *read);
    sqe_type *in_types = malloc((n_in_max ? n_in_max : 1) * sizeof *in_types);
    sqe_type *out_types = malloc((n_cols ? n_cols : 1) * sizeof *out_types);
    if (r) r->in_index = malloc((n_cols ? n_cols : 1) * sizeof *r->in_index);
    if (r) r->keep = malloc(VEC_CHUNK_SIZE * sizeof *r->keep);
    int rc = r && read && in_types && out_types && r->in_index && r->keep
                 ? SQE_OK
                 : err_nomem(err, "Iceberg reader");
    uint32_t n_in = 0;
    for (uint32_t i = 0; !rc && i < n_cols; i++) {
        out_types[i] = cols[i].type;
        r->in_index[i] = UINT32_MAX;
        if (file_cols[i] == UINT32_MAX) continue;
        r->in_index[i] = n_in;
        in_types[n_in] = f->schema->columns[file_cols[i]]->type;
        read[n_in++] = file_cols[i];
    }
    for (uint32_t i = 0; !rc && i < n_extra; i++) {
        if (filter_cols) filter_cols[i] = n_in;
        in_types[n_in] = f->schema->columns[extra_cols[i]]->type;
        read[n_in++] = extra_cols[i];
    }
    if (!rc) {
        r->cols = cols;
        r->n_cols = n_cols;
        r->pos = first_pos;
        r->filter = filter;
        r->filter_ud = filter_ud;
        rc = vec_chunk_init(&r->in, n_in, in_types, VEC_CHUNK_SIZE, tracker, err);
    }
    if (!rc && filter) rc = vec_chunk_init(&r->hold, n_cols, out_types, VEC_CHUNK_SIZE, tracker, err);
    if (!rc) rc = vec_init(&r->path, type_make(TYPE_VARCHAR), 1, tracker, err);
    if (!rc) {
        bool ok = true;
        VEC_DATA(&r->path, sqe_str)[0] = vec_str_copy(&r->path, path, (uint32_t)strlen(path), &ok);
        if (!ok) rc = err_nomem(err, "Iceberg reader");
    }
    if (!rc)
        rc = pq_rg_open(f, g, read, n_in, filter ? NULL : preds, filter ? 0 : n_preds, tracker,
                        &r->rg, err);
    free(read);
    free(in_types);
    free(out_types);
    if (rc) {
        ice_rg_reader_close(r);
        return rc;
    }
    *out = r;
    return SQE_OK;
}

void ice_rg_reader_close(ice_rg_reader *r) {
    if (!r) return;
    pq_rg_close(r->rg);
    vec_chunk_destroy(&r->in);
    vec_chunk_destroy(&r->hold);
    vec_destroy(&r->path);
    free(r->in_index);
    free(r->keep);
    free(r);
}

static void vec_swap(vec *a, vec *b) {
    vec t = *a;
    *a = *b;
    *b = t;
}

/* Widens in (count rows, any shape) into the flat vector out of a wider type. */
static int promote(const vec *in, uint32_t count, vec *out, sqe_error *err) {
    vec_reset(out);
    SQE_TRY(vec_reserve(out, count, err));
    sqe_type from = in->type, to = out->type;
    for (uint32_t row = 0; row < count; row++) {
        uint32_t p;
        const vec *src = vec_resolve(in, row, &p);
        if (vec_is_null(in, row)) {
            if (vec_set_null(out, row)) return err_nomem(err, "Iceberg reader");
            continue;
        }
        if (type_is_integer(from) || (from.id == TYPE_DECIMAL && !type_decimal_is_long(from))) {
            int64_t v;
            switch (type_physical_size(from)) {
            case 1: v = VEC_DATA(src, int8_t)[p]; break;
            case 2: v = VEC_DATA(src, int16_t)[p]; break;
            case 4: v = VEC_DATA(src, int32_t)[p]; break;
            default: v = VEC_DATA(src, int64_t)[p]; break;
            }
            if (to.id == TYPE_DECIMAL && type_decimal_is_long(to)) {
                VEC_DATA(out, int128)[row] = v;
            } else {
                switch (type_physical_size(to)) {
                case 2: VEC_DATA(out, int16_t)[row] = (int16_t)v; break;
                case 4: VEC_DATA(out, int32_t)[row] = (int32_t)v; break;
                default: VEC_DATA(out, int64_t)[row] = v; break;
                }
            }
        } else if (from.id == TYPE_DECIMAL) {
            VEC_DATA(out, int128)[row] = VEC_DATA(src, int128)[p];
        } else if (from.id == TYPE_REAL) {
            VEC_DATA(out, double)[row] = VEC_DATA(src, float)[p];
        } else {
            return err_set(err, SQE_ERR_NOT_SUPPORTED, "unsupported: type promotion");
        }
    }
    return SQE_OK;
}

/* Moves or converts the rows of r->in into out's columns; first_pos is the file position of
 * the first row. */
static int project(ice_rg_reader *r, vec_chunk *out, int64_t first_pos, sqe_error *err) {
    uint32_t count = r->in.count;
    for (uint32_t i = 0; i < r->n_cols; i++) {
        vec *o = &out->cols[i];
        uint32_t j = r->in_index[i];
        if (r->cols[i].kind == ICE_COL_PATH) {
            SQE_TRY(vec_set_const_from(o, &r->path, 0, err));
            continue;
        }
        if (r->cols[i].kind == ICE_COL_POS) {
            vec_reset(o);
            SQE_TRY(vec_reserve(o, count, err));
            for (uint32_t k = 0; k < count; k++) VEC_DATA(o, int64_t)[k] = first_pos + k;
            continue;
        }
        if (j == UINT32_MAX) {
            vec_set_const_null(o);
            continue;
        }
        vec *in = &r->in.cols[j];
        if (type_equal(in->type, o->type)) {
            vec_swap(in, o);
        } else if (type_is_string(in->type) || type_is_nested(in->type)) {
            /* same layout, another spelling of the type (varchar(n), renamed fields) */
            vec_swap(in, o);
            sqe_type t = in->type;
            in->type = o->type;
            o->type = t;
        } else {
            SQE_TRY(promote(in, count, o, err));
        }
    }
    out->count = count;
    return SQE_OK;
}

/* Keeps only the rows with keep[row] in out (copying them). */
static int compact(ice_rg_reader *r, vec_chunk *out, uint32_t kept, sqe_error *err) {
    for (uint32_t i = 0; i < r->n_cols; i++) {
        vec *o = &out->cols[i];
        if (o->shape == VEC_CONST) continue;
        vec *h = &r->hold.cols[i];
        vec_swap(o, h);
        vec_reset(o);
        SQE_TRY(vec_reserve(o, kept ? kept : 1, err));
        uint32_t k = 0;
        for (uint32_t row = 0; row < out->count; row++)
            if (r->keep[row]) SQE_TRY(vec_copy_row(o, k++, h, row, err));
    }
    out->count = kept;
    return SQE_OK;
}

int ice_rg_reader_next(ice_rg_reader *r, vec_chunk *out, sqe_error *err) {
    for (;;) {
        SQE_TRY(pq_rg_next(r->rg, &r->in, err));
        uint32_t count = r->in.count;
        if (count == 0) {
            out->count = 0;
            return SQE_OK;
        }
        uint32_t kept = count;
        if (r->filter) {
            for (uint32_t i = 0; i < count; i++) r->keep[i] = true;
            SQE_TRY(r->filter(r->filter_ud, &r->in, r->pos, r->keep, err));
            kept = 0;
            for (uint32_t i = 0; i < count; i++) kept += r->keep[i];
        }
        int64_t first_pos = r->pos;
        r->pos += count;
        if (kept == 0) continue;
        SQE_TRY(project(r, out, first_pos, err));
        if (kept < count) SQE_TRY(compact(r, out, kept, err));
        return SQE_OK;
    }
}

/* ---- equality delete columns ---------------------------------------------------------------- */

void ice_eq_delete_columns_free(uint32_t **eq_cols, uint32_t n_eq, uint32_t *extra) {
    for (uint32_t k = 0; eq_cols && k < n_eq; k++) free(eq_cols[k]);
    free(eq_cols);
    free(extra);
}

int ice_eq_delete_columns(const ice_file_deletes *d, const pq_file *f, const char *path,
                          const uint32_t *file_cols, uint32_t n_cols, uint32_t ***eq_cols,
                          uint32_t **extra, uint32_t *n_extra, sqe_error *err) {
    *eq_cols = NULL;
    *extra = NULL;
    *n_extra = 0;
    uint32_t n_fields = 0, n_present = 0;
    for (uint32_t k = 0; k < d->n_eq; k++) n_fields += ice_eq_delete_set_n_fields(d->eq[k]);
    for (uint32_t i = 0; i < n_cols; i++) n_present += file_cols[i] != UINT32_MAX;
    uint32_t **cols = calloc(d->n_eq ? d->n_eq : 1, sizeof *cols);
    uint32_t *ext = malloc((n_fields ? n_fields : 1) * sizeof *ext);
    uint32_t n_ext = 0;
    int rc = cols && ext ? SQE_OK : err_nomem(err, "Iceberg equality deletes");
    const pq_schema *fs = f->schema;
    for (uint32_t k = 0; !rc && k < d->n_eq; k++) {
        uint32_t nf = ice_eq_delete_set_n_fields(d->eq[k]);
        const int32_t *ids = ice_eq_delete_set_field_ids(d->eq[k]);
        cols[k] = malloc((nf ? nf : 1) * sizeof **cols);
        if (!cols[k]) rc = err_nomem(err, "Iceberg equality deletes");
        for (uint32_t j = 0; !rc && j < nf; j++) {
            uint32_t fc = UINT32_MAX;
            for (uint32_t c = 0; c < fs->n_columns && fc == UINT32_MAX; c++)
                if (fs->columns[c]->has_field_id && fs->columns[c]->field_id == ids[j]) fc = c;
            if (fc == UINT32_MAX) {
                rc = err_set(err, SQE_ERR_NOT_SUPPORTED,
                             "unsupported: equality delete on field %d, which data file %s "
                             "does not have",
                             ids[j], path);
                break;
            }
            uint32_t chunk_col = UINT32_MAX, present = 0;
            for (uint32_t i = 0; i < n_cols && chunk_col == UINT32_MAX; i++) {
                if (file_cols[i] == UINT32_MAX) continue;
                if (file_cols[i] == fc) chunk_col = present;
                present++;
            }
            for (uint32_t e = 0; e < n_ext && chunk_col == UINT32_MAX; e++)
                if (ext[e] == fc) chunk_col = n_present + e;
            if (chunk_col == UINT32_MAX) {
                chunk_col = n_present + n_ext;
                ext[n_ext++] = fc;
            }
            cols[k][j] = chunk_col;
        }
    }
    if (rc) {
        ice_eq_delete_columns_free(cols, d->n_eq, ext);
        return rc;
    }
    *eq_cols = cols;
    *extra = ext;
    *n_extra = n_ext;
    return SQE_OK;
}
