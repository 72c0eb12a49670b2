/*
 * scan_task_plan.c: scan tasks from an Iceberg scan plan (see scan_task_plan.h).
 *
 * INTERFACE: scan_task_plan.
 * NOTES
 *   Which deletes apply follows the rules delete_index.h states (the index decides the same
 *   way when it loads them; here nothing is loaded). Partition tuples are compared value by
 *   value (NULL equal to NULL, fixed-width values by bytes, strings by bytes); position
 *   delete files' file_path bounds are not used (a file that does not name this data file
 *   only costs its read).
 *   A byte range holds consecutive row groups from one split offset up to the next offset at
 *   least split_bytes later (the last one to the end of the file).
 */
#include "scan/scan_task_plan.h"

#include <string.h>
#include <strings.h>

static int64_t seq_of(const ice_manifest_entry *e) {
    return e->has_sequence_number ? e->sequence_number : 0;
}

static bool value_equal(const vec *a, uint32_t ra, const vec *b, uint32_t rb) {
    bool na = vec_is_null(a, ra), nb = vec_is_null(b, rb);
    if (na || nb) return na && nb;
    if (!type_equal(a->type, b->type)) return false;
    uint32_t pa, pb;
    const vec *fa = vec_resolve(a, ra, &pa), *fb = vec_resolve(b, rb, &pb);
    if (type_is_string_view(a->type)) {
        const sqe_str *x = &VEC_DATA(fa, sqe_str)[pa], *y = &VEC_DATA(fb, sqe_str)[pb];
        return x->len == y->len && memcmp(sqe_str_data(x), sqe_str_data(y), x->len) == 0;
    }
    size_t size = type_physical_size(a->type);
    if (!size) return false;
    return memcmp((const uint8_t *)fa->data + (size_t)pa * size,
                  (const uint8_t *)fb->data + (size_t)pb * size, size) == 0;
}

/* Is delete file d in data file df's spec and partition, or global (unpartitioned)? */
static bool same_partition(const ice_data_file *d, const ice_data_file *df) {
    if (d->n_partition == 0) return true;
    if (d->spec_id != df->spec_id || d->n_partition != df->n_partition) return false;
    for (uint32_t k = 0; k < d->n_partition; k++)
        if (!value_equal(&d->partition[k], d->partition_row, &df->partition[k], df->partition_row))
            return false;
    return true;
}

static bool is_dv(const ice_data_file *d) {
    return d->content == ICE_CONTENT_POSITION_DELETES && d->file_format &&
           strcasecmp(d->file_format, "PUFFIN") == 0;
}

static bool applies(const ice_manifest_entry *del, const ice_manifest_entry *data, bool dv_seen) {
    const ice_data_file *d = &del->file, *df = &data->file;
    if (del->status == ICE_STATUS_DELETED) return false;
    int64_t ds = seq_of(data), s = seq_of(del);
    if (is_dv(d))
        return d->referenced_data_file && strcmp(d->referenced_data_file, df->file_path) == 0 &&
               ds <= s;
    if (d->content == ICE_CONTENT_POSITION_DELETES) {
        if (dv_seen || ds > s) return false;
        if (d->referenced_data_file) return strcmp(d->referenced_data_file, df->file_path) == 0;
        return same_partition(d, df);
    }
    if (d->content == ICE_CONTENT_EQUALITY_DELETES) return ds < s && same_partition(d, df);
    return false;
}

static int task_deletes(arena *a, const ice_scan_files *files, const ice_manifest_entry *data,
                        scan_task *t, sqe_error *err) {
    bool dv = false;
    for (uint32_t i = 0; i < files->n_deletes; i++)
        if (is_dv(&files->deletes[i]->file) && applies(files->deletes[i], data, false)) dv = true;
    uint32_t n = 0;
    scan_task_delete *out = NULL;
    for (uint32_t pass = 0; pass < 2; pass++) {
        for (uint32_t i = 0; i < files->n_deletes; i++) {
            const ice_manifest_entry *e = files->deletes[i];
            if (!applies(e, data, dv)) continue;
            const ice_data_file *d = &e->file;
            if (!is_dv(d) && d->file_format && strcasecmp(d->file_format, "PARQUET") != 0)
                return err_set(err, SQE_ERR_NOT_SUPPORTED,
                               "unsupported: delete file %s is %s, not Parquet", d->file_path,
                               d->file_format);
            if (pass == 0) {
                n++;
                continue;
            }
            scan_task_delete *x = &out[n++];
            x->kind = is_dv(d) ? SCAN_DELETE_DV
                      : d->content == ICE_CONTENT_EQUALITY_DELETES ? SCAN_DELETE_EQUALITY
                                                                   : SCAN_DELETE_POSITION;
            x->path = d->file_path;
            x->sequence_number = seq_of(e);
            x->record_count = d->record_count;
            x->file_size = d->file_size_in_bytes;
            x->referenced_data_file = d->referenced_data_file;
            x->content_offset = d->has_content_offset ? d->content_offset : -1;
            x->content_size = d->has_content_size_in_bytes ? d->content_size_in_bytes : -1;
            x->n_equality_ids = d->has_equality_ids ? d->n_equality_ids : 0;
            x->equality_ids = d->equality_ids;
        }
        if (pass == 0) {
            if (!n) return SQE_OK;
            if (!(out = ARENA_ARRAY(a, scan_task_delete, n))) return err_nomem(err, "scan tasks");
            n = 0;
        }
    }
    t->deletes = out;
    t->n_deletes = n;
    return SQE_OK;
}

/* Usable split offsets of df: ascending, non-negative, inside the file. */
static bool usable_splits(const ice_data_file *df) {
    if (!df->has_split_offsets || df->n_split_offsets < 2) return false;
    for (uint32_t i = 0; i < df->n_split_offsets; i++) {
        if (df->split_offsets[i] < 0) return false;
        if (i && df->split_offsets[i] <= df->split_offsets[i - 1]) return false;
        if (df->file_size_in_bytes > 0 && df->split_offsets[i] >= df->file_size_in_bytes) return false;
    }
    return true;
}

int scan_task_plan(arena *a, const ice_scan_files *files, const scan_task *proto,
                   uint64_t split_bytes, scan_task **tasks, uint32_t *n_tasks, sqe_error *err) {
    *tasks = NULL;
    *n_tasks = 0;
    uint32_t cap = 0;
    for (uint32_t f = 0; f < files->n_data; f++) {
        const ice_data_file *df = &files->data[f]->file;
        cap += usable_splits(df) ? df->n_split_offsets : 1;
    }
    scan_task *out = cap ? ARENA_ARRAY(a, scan_task, cap) : NULL;
    if (cap && !out) return err_nomem(err, "scan tasks");
    uint32_t n = 0;
    for (uint32_t f = 0; f < files->n_data; f++) {
        const ice_manifest_entry *e = files->data[f];
        const ice_data_file *df = &e->file;
        if (df->file_format && strcasecmp(df->file_format, "PARQUET") != 0)
            return err_set(err, SQE_ERR_NOT_SUPPORTED,
                           "unsupported: data file %s is %s, not Parquet", df->file_path,
                           df->file_format);
        scan_task base = *proto;
        base.format = SCAN_FORMAT_PARQUET;
        base.path = df->file_path;
        base.file_size = df->file_size_in_bytes;
        base.record_count = df->record_count;
        base.data_sequence_number = seq_of(e);
        base.range_kind = SCAN_RANGE_WHOLE;
        base.n_row_groups = 0;
        base.row_groups = NULL;
        SQE_TRY(task_deletes(a, files, e, &base, err));
        bool split = split_bytes && df->file_size_in_bytes > 0 &&
                     (uint64_t)df->file_size_in_bytes > split_bytes && usable_splits(df);
        if (!split) {
            out[n++] = base;
            continue;
        }
        uint32_t i = 0;
        while (i < df->n_split_offsets) {
            int64_t start = df->split_offsets[i];
            uint32_t j = i + 1;
            while (j < df->n_split_offsets && (uint64_t)(df->split_offsets[j] - start) < split_bytes) j++;
            int64_t end = j < df->n_split_offsets ? df->split_offsets[j] : df->file_size_in_bytes;
            scan_task t = base;
            t.range_kind = SCAN_RANGE_BYTES;
            t.offset = i == 0 ? 0 : start; /* the first range also holds the file's header */
            t.length = end - t.offset;
            out[n++] = t;
            i = j;
        }
    }
    *tasks = out;
    *n_tasks = n;
    return SQE_OK;
}
