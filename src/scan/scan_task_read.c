/*
 * scan_task_read.c: the rows of one scan task, deletes applied (see scan_task_read.h).
 *
 * INTERFACE: scan_task_reader_open, scan_task_reader_types, scan_task_reader_next,
 *   scan_task_reader_row_groups, scan_task_reader_close.
 * NOTES
 *   A row group belongs to a byte range when its first byte (the first column chunk's
 *   dictionary or data page) is inside it, so ranges cut on row-group boundaries (the data
 *   file's split offsets) give each row group to exactly one task.
 *   The delete files are registered in a delete index of their own, with the task's sequence
 *   numbers and without partitions: the planner already chose the files that apply, and the
 *   index then applies the same sequence-number rules and loads each file once.
 *   Equality delete columns the task does not read are read in addition (scan_read.h extra
 *   columns); the filter sees [present task columns..., extra columns...].
 */
#include "scan/scan_task_read.h"

#include <stdlib.h>
#include <string.h>

#include "format/parquet/pq_reader.h"
#include "iceberg/delete_index.h"
#include "iceberg/scan_read.h"
#include "io/io.h"

struct scan_task_reader {
    const scan_task *t;
    mem_tracker *tracker;
    io_identity *id;
    pq_file *f;
    ice_field *fields;
    ice_read_column *cols;
    sqe_type *types;
    uint32_t *file_cols;
    uint32_t *groups;             /* row groups to read */
    int64_t *first_pos;           /* per row group of the file: its first row's position */
    uint32_t n_groups, next_group;
    ice_rg_reader *rg;
    /* deletes */
    ice_delete_index *idx;
    ice_manifest_entry data_entry;
    bool has_deletes;
    ice_file_deletes deletes;
    uint32_t **eq_cols;
    uint32_t *extra;
    uint32_t n_extra;
    uint32_t *sel;
};

static int64_t rg_start(const pq_row_group *rg) {
    if (rg->n_columns && rg->columns[0].has_meta_data) {
        const pq_column_meta *m = &rg->columns[0].meta_data;
        if (m->has_dictionary_page_offset && m->dictionary_page_offset > 0 &&
            m->dictionary_page_offset < m->data_page_offset)
            return m->dictionary_page_offset;
        return m->data_page_offset;
    }
    return rg->has_file_offset ? rg->file_offset : 0;
}

static int pick_groups(scan_task_reader *r, sqe_error *err) {
    const pq_file_meta *m = r->f->meta;
    const scan_task *t = r->t;
    r->groups = malloc((m->n_row_groups ? m->n_row_groups : 1) * sizeof *r->groups);
    r->first_pos = malloc((m->n_row_groups ? m->n_row_groups : 1) * sizeof *r->first_pos);
    if (!r->groups || !r->first_pos) return err_nomem(err, "scan task");
    int64_t pos = 0;
    for (uint32_t g = 0; g < m->n_row_groups; g++) {
        r->first_pos[g] = pos;
        pos += m->row_groups[g].num_rows > 0 ? m->row_groups[g].num_rows : 0;
    }
    if (t->range_kind == SCAN_RANGE_ROW_GROUPS) {
        for (uint32_t i = 0; i < t->n_row_groups; i++) {
            if (t->row_groups[i] >= m->n_row_groups)
                return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                               "scan task: row group %u of %s, which has %u", t->row_groups[i],
                               t->path, m->n_row_groups);
            r->groups[r->n_groups++] = t->row_groups[i];
        }
        return SQE_OK;
    }
    for (uint32_t g = 0; g < m->n_row_groups; g++) {
        if (t->range_kind == SCAN_RANGE_BYTES) {
            int64_t s = rg_start(&m->row_groups[g]);
            if (s < t->offset || s - t->offset >= t->length) continue;
        }
        r->groups[r->n_groups++] = g;
    }
    return SQE_OK;
}

static int deletes_filter(void *ud, const vec_chunk *rows, int64_t first_pos, bool *keep,
                          sqe_error *err) {
    scan_task_reader *r = ud;
    uint32_t n_sel = 0;
    SQE_TRY(ice_file_deletes_filter(&r->deletes, rows, first_pos,
                                    (const uint32_t *const *)r->eq_cols, r->sel, &n_sel, err));
    for (uint32_t i = 0; i < rows->count; i++) keep[i] = false;
    for (uint32_t i = 0; i < n_sel; i++) keep[r->sel[i]] = true;
    return SQE_OK;
}

static int open_deletes(scan_task_reader *r, sqe_error *err) {
    const scan_task *t = r->t;
    if (!t->n_deletes) return SQE_OK;
    SQE_TRY(ice_delete_index_create(NULL, &r->idx, err));
    for (uint32_t i = 0; i < t->n_deletes; i++) {
        const scan_task_delete *d = &t->deletes[i];
        ice_manifest_entry e;
        memset(&e, 0, sizeof e);
        e.status = ICE_STATUS_ADDED;
        e.has_sequence_number = true;
        e.sequence_number = d->sequence_number;
        e.file.content = d->kind == SCAN_DELETE_EQUALITY ? ICE_CONTENT_EQUALITY_DELETES
                                                         : ICE_CONTENT_POSITION_DELETES;
        e.file.file_path = d->path;
        e.file.file_format = d->kind == SCAN_DELETE_DV ? "PUFFIN" : "PARQUET";
        e.file.record_count = d->record_count;
        e.file.file_size_in_bytes = d->file_size;
        e.file.referenced_data_file = d->referenced_data_file;
        if (d->kind == SCAN_DELETE_DV) {
            if (!e.file.referenced_data_file) e.file.referenced_data_file = t->path;
            e.file.has_content_offset = e.file.has_content_size_in_bytes = true;
            e.file.content_offset = d->content_offset;
            e.file.content_size_in_bytes = d->content_size;
        }
        if (d->kind == SCAN_DELETE_EQUALITY) {
            e.file.has_equality_ids = true;
            e.file.n_equality_ids = d->n_equality_ids;
            e.file.equality_ids = (int32_t *)d->equality_ids;
        }
        SQE_TRY(ice_delete_index_add(r->idx, &e, err));
    }
    memset(&r->data_entry, 0, sizeof r->data_entry);
    r->data_entry.status = ICE_STATUS_ADDED;
    r->data_entry.has_sequence_number = true;
    r->data_entry.sequence_number = t->data_sequence_number;
    r->data_entry.file.content = ICE_CONTENT_DATA;
    r->data_entry.file.file_path = t->path;
    r->data_entry.file.file_format = "PARQUET";
    if (!ice_delete_index_may_apply(r->idx, &r->data_entry)) return SQE_OK;
    SQE_TRY(ice_delete_index_for_file(r->idx, &r->data_entry, &r->deletes, err));
    r->has_deletes = true;
    if (ice_file_deletes_empty(&r->deletes)) return SQE_OK;
    r->sel = malloc(VEC_CHUNK_SIZE * sizeof *r->sel);
    if (!r->sel) return err_nomem(err, "scan task deletes");
    return ice_eq_delete_columns(&r->deletes, r->f, t->path, r->file_cols, t->n_columns,
                                 &r->eq_cols, &r->extra, &r->n_extra, err);
}

static int open_file(scan_task_reader *r, sqe_error *err) {
    const scan_task *t = r->t;
    const scan_task_credentials *c = &t->credentials;
    if (c->present && c->access_key_id && *c->access_key_id) { /* object-store keys */
        io_identity_config cfg = {c->access_key_id, c->secret_access_key, c->session_token,
                                  c->endpoint, c->region, c->path_style};
        SQE_TRY(io_identity_create(&cfg, &r->id, err));
    }
    SQE_TRY(pq_file_open_as(t->path, r->id, &r->f, err));
    uint32_t n = t->n_columns;
    r->fields = calloc(n ? n : 1, sizeof *r->fields);
    r->cols = calloc(n ? n : 1, sizeof *r->cols);
    r->types = calloc(n ? n : 1, sizeof *r->types);
    r->file_cols = calloc(n ? n : 1, sizeof *r->file_cols);
    if (!r->fields || !r->cols || !r->types || !r->file_cols) return err_nomem(err, "scan task");
    for (uint32_t i = 0; i < n; i++) {
        const scan_task_column *tc = &t->columns[i];
        r->types[i] = tc->type;
        r->fields[i].id = tc->field_id;
        r->fields[i].name = tc->name ? tc->name : "";
        r->cols[i].type = tc->type;
        r->cols[i].kind = tc->kind == SCAN_COL_PATH ? ICE_COL_PATH
                          : tc->kind == SCAN_COL_POS ? ICE_COL_POS
                                                     : ICE_COL_FIELD;
        r->cols[i].field = tc->kind == SCAN_COL_FIELD ? &r->fields[i] : NULL;
    }
    SQE_TRY(ice_map_file_columns(r->f, r->cols, n, r->file_cols, err));
    SQE_TRY(pick_groups(r, err));
    return open_deletes(r, err);
}

int scan_task_reader_open(const scan_task *t, mem_tracker *tracker, scan_task_reader **out,
                          sqe_error *err) {
    *out = NULL;
    SQE_TRY(scan_task_validate(t, err));
    scan_task_reader *r = calloc(1, sizeof *r);
    if (!r) return err_nomem(err, "scan task");
    r->t = t;
    r->tracker = tracker;
    int rc = open_file(r, err);
    if (rc) {
        err_prefix(err, "%s", t->path);
        scan_task_reader_close(r);
        return rc;
    }
    *out = r;
    return SQE_OK;
}

const sqe_type *scan_task_reader_types(const scan_task_reader *r) { return r->types; }
uint32_t scan_task_reader_row_groups(const scan_task_reader *r) { return r->n_groups; }

int scan_task_reader_next(scan_task_reader *r, vec_chunk *out, sqe_error *err) {
    for (;;) {
        if (!r->rg) {
            if (r->next_group >= r->n_groups) {
                out->count = 0;
                return SQE_OK;
            }
            uint32_t g = r->groups[r->next_group++];
            bool filter = r->has_deletes && !ice_file_deletes_empty(&r->deletes);
            int rc = ice_rg_reader_open(r->f, g, r->t->path, r->first_pos[g], r->cols,
                                        r->file_cols, r->t->n_columns, r->extra, r->n_extra, NULL,
                                        0, filter ? deletes_filter : NULL, r, r->tracker, &r->rg,
                                        NULL, err);
            if (rc) {
                err_prefix(err, "%s", r->t->path);
                return rc;
            }
        }
        int rc = ice_rg_reader_next(r->rg, out, err);
        if (rc) {
            err_prefix(err, "%s", r->t->path);
            return rc;
        }
        if (out->count) return SQE_OK;
        ice_rg_reader_close(r->rg);
        r->rg = NULL;
    }
}

void scan_task_reader_close(scan_task_reader *r) {
    if (!r) return;
    ice_rg_reader_close(r->rg);
    if (r->has_deletes) {
        ice_eq_delete_columns_free(r->eq_cols, r->deletes.n_eq, r->extra);
        ice_file_deletes_release(&r->deletes);
    } else {
        free(r->extra);
    }
    ice_delete_index_destroy(r->idx);
    free(r->sel);
    if (r->f) pq_file_release(r->f);
    io_identity_unref(r->id);
    free(r->fields);
    free(r->cols);
    free(r->types);
    free(r->file_cols);
    free(r->groups);
    free(r->first_pos);
    free(r);
}
