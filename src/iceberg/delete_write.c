/*
 * delete_write.c: position delete files (Parquet) and deletion-vector Puffin files, with the
 * ice_data_file records that describe them in a delete manifest.
 *
 * INTERFACE: ice_position_delete_file_write, ice_dv_file_write,
 *            ice_position_delete_file_write_as, ice_dv_file_write_as
 * NOTES:
 *   - Spec: format/spec.md "Position Delete Files" (field ids 2147483546 / 2147483545, sorted
 *     by file_path then pos), "Deletion Vectors"; format/puffin-spec.md "deletion-vector-v1".
 *   - Metrics follow Iceberg Java for position deletes: counts and bounds of both columns, the
 *     file_path bounds in full (readers use them to skip files), column sizes from the Parquet
 *     footer. referenced_data_file is set when the file holds one data file's deletes.
 *   - The Parquet columns are OPTIONAL (pq_writer writes every column so); the spec declares
 *     them required, which readers (pyiceberg, Java) accept since no value is NULL.
 *   - The Puffin file is built in memory (DVs are small: bitmaps of positions) and written
 *     atomically; blobs follow Java: fields [2147483545], snapshot-id and sequence-number -1,
 *     properties referenced-data-file and cardinality, no compression.
 *   - Object stores (*_as): the file is written to a staging file (stage.h) by the local
 *     writer, uploaded, and the records' file_path set to the location.
 */
#include "iceberg/delete_write.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/parquet/pq_reader.h"
#include "iceberg/puffin.h"
#include "iceberg/stage.h"

typedef struct path_ref {
    const char *path;
    uint32_t index;
} path_ref;

static int cmp_path_ref(const void *x, const void *y) {
    return strcmp(((const path_ref *)x)->path, ((const path_ref *)y)->path);
}

/* order[0..n) = target indices sorted by data file path; duplicates are an error. */
static int sort_targets(const ice_delete_target *t, uint32_t n, uint32_t **order,
                        sqe_error *err) {
    uint32_t *o = malloc(n * sizeof *o);
    path_ref *refs = malloc(n * sizeof *refs);
    if (!o || !refs) {
        free(o);
        free(refs);
        return err_nomem(err, "Iceberg delete writer");
    }
    for (uint32_t i = 0; i < n; i++) refs[i] = (path_ref){t[i].data_file_path, i};
    qsort(refs, n, sizeof *refs, cmp_path_ref);
    int rc = SQE_OK;
    for (uint32_t i = 0; i < n; i++) {
        o[i] = refs[i].index;
        if (i && !rc && strcmp(refs[i - 1].path, refs[i].path) == 0)
            rc = err_set(err, SQE_ERR_INVALID_ARGUMENTS, "data file %s listed twice",
                         refs[i].path);
    }
    free(refs);
    if (rc) {
        free(o);
        return rc;
    }
    *order = o;
    return SQE_OK;
}

static int check_targets(const ice_delete_target *t, uint32_t n, sqe_error *err) {
    if (n == 0) return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "no data files to delete from");
    for (uint32_t i = 0; i < n; i++) {
        if (!t[i].data_file_path || !t[i].positions || !ice_roaring_cardinality(t[i].positions))
            return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "no deleted positions for %s",
                           t[i].data_file_path ? t[i].data_file_path : "a data file");
        if (ice_roaring_max(t[i].positions) >> 63)
            return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "position beyond 2^63 - 1 for %s",
                           t[i].data_file_path);
    }
    return SQE_OK;
}

static void set_partition(ice_data_file *out, const ice_delete_target *t) {
    out->spec_id = t->spec_id;
    out->n_partition = t->n_partition;
    out->partition = t->partition;
    out->partition_row = t->partition_row;
}

static int file_size(const char *path, int64_t *size, sqe_error *err) {
    struct stat st;
    if (stat(path, &st) != 0)
        return err_set(err, SQE_ERR_IO_ERROR, "cannot stat %s: %s", path, strerror(errno));
    *size = (int64_t)st.st_size;
    return SQE_OK;
}

/* Two-entry counts / bounds maps for (file_path, pos). */
static int metrics(arena *a, ice_data_file *out, const int64_t sizes[2], int64_t rows,
                   const char *lo_path, const char *hi_path, int64_t lo_pos, int64_t hi_pos,
                   sqe_error *err) {
    const int32_t ids[2] = {ICE_FIELD_ID_FILE_PATH, ICE_FIELD_ID_POS};
    ice_counts *maps[3] = {&out->column_sizes, &out->value_counts, &out->null_value_counts};
    for (int m = 0; m < 3; m++) {
        maps[m]->present = true;
        maps[m]->n = 2;
        maps[m]->items = ARENA_ARRAY(a, ice_id_count, 2);
        if (!maps[m]->items) return err_nomem(err, "Iceberg delete writer");
        for (int i = 0; i < 2; i++) {
            maps[m]->items[i].field_id = ids[i];
            maps[m]->items[i].value = m == 0 ? sizes[i] : m == 1 ? rows : 0;
        }
    }
    ice_bounds *bs[2] = {&out->lower_bounds, &out->upper_bounds};
    for (int b = 0; b < 2; b++) {
        bs[b]->present = true;
        bs[b]->n = 2;
        bs[b]->items = ARENA_ARRAY(a, ice_bound, 2);
        if (!bs[b]->items) return err_nomem(err, "Iceberg delete writer");
        const char *p = b ? hi_path : lo_path;
        int64_t pos = b ? hi_pos : lo_pos;
        uint8_t *pb = arena_memdup(a, p, strlen(p) + 1);
        uint8_t *vb = arena_alloc(a, 8);
        if (!pb || !vb) return err_nomem(err, "Iceberg delete writer");
        for (int i = 0; i < 8; i++) vb[i] = (uint8_t)((uint64_t)pos >> (8 * i));
        ice_bound *it = bs[b]->items;
        it[0].field_id = ICE_FIELD_ID_FILE_PATH;
        it[0].raw = (ice_bytes){pb, strlen(p)};
        it[1].field_id = ICE_FIELD_ID_POS;
        it[1].raw = (ice_bytes){vb, 8};
        /* Decoded values: NULL-typed (the manifest writer uses only the raw bytes). */
        for (int i = 0; i < 2; i++) memset(&it[i].value, 0, sizeof it[i].value);
    }
    return SQE_OK;
}

int ice_position_delete_file_write(arena *a, const char *path, const ice_delete_target *targets,
                                   uint32_t n, const pq_writer_options *opts, ice_data_file *out,
                                   sqe_error *err) {
    memset(out, 0, sizeof *out);
    SQE_TRY(check_targets(targets, n, err));
    for (uint32_t i = 1; i < n; i++)
        if (targets[i].spec_id != targets[0].spec_id)
            return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                           "position delete file %s: data files of different partition specs",
                           path);
    uint32_t *order;
    SQE_TRY(sort_targets(targets, n, &order, err));
    pq_writer_options o;
    if (opts) o = *opts;
    else pq_writer_options_init(&o);
    const int32_t ids[2] = {ICE_FIELD_ID_FILE_PATH, ICE_FIELD_ID_POS};
    o.field_ids = ids;
    const char *names[2] = {"file_path", "pos"};
    sqe_type types[2] = {type_make(TYPE_VARCHAR), type_make(TYPE_BIGINT)};
    pq_writer *w = NULL;
    vec_chunk c;
    memset(&c, 0, sizeof c);
    int rc = pq_writer_open(path, 2, names, types, &o, NULL, &w, err);
    if (!rc) rc = vec_chunk_init(&c, 2, types, VEC_CHUNK_SIZE, NULL, err);
    int64_t rows = 0, lo_pos = INT64_MAX, hi_pos = 0;
    for (uint32_t k = 0; !rc && k < n; k++) {
        const ice_delete_target *t = &targets[order[k]];
        uint32_t plen = (uint32_t)strlen(t->data_file_path);
        sqe_str s = sqe_str_make(t->data_file_path, plen);
        ice_roaring_iter it;
        ice_roaring_iter_init(&it, t->positions);
        uint64_t buf[VEC_CHUNK_SIZE];
        uint32_t got;
        while (!rc && (got = ice_roaring_iter_next(&it, buf, VEC_CHUNK_SIZE - c.count)) > 0) {
            for (uint32_t i = 0; i < got; i++) {
                VEC_DATA(&c.cols[0], sqe_str)[c.count + i] = s;
                VEC_DATA(&c.cols[1], int64_t)[c.count + i] = (int64_t)buf[i];
            }
            if ((int64_t)buf[0] < lo_pos) lo_pos = (int64_t)buf[0];
            if ((int64_t)buf[got - 1] > hi_pos) hi_pos = (int64_t)buf[got - 1];
            c.count += got;
            rows += got;
            if (c.count == VEC_CHUNK_SIZE) {
                rc = pq_writer_write(w, &c, err);
                c.count = 0;
            }
        }
    }
    if (!rc && c.count) rc = pq_writer_write(w, &c, err);
    vec_chunk_destroy(&c);
    if (rc) {
        pq_writer_abort(w);
        free(order);
        return rc;
    }
    uint64_t written = 0;
    rc = pq_writer_close(w, &written, err);
    int64_t sizes[2] = {0, 0};
    if (!rc) rc = file_size(path, &out->file_size_in_bytes, err);
    if (!rc) {
        pq_file *pf;
        rc = pq_file_open(path, &pf, err);
        if (!rc) {
            for (uint32_t g = 0; g < pf->meta->n_row_groups; g++)
                for (uint32_t i = 0; i < 2 && i < pf->meta->row_groups[g].n_columns; i++)
                    sizes[i] += pf->meta->row_groups[g].columns[i].meta_data.total_compressed_size;
            pq_file_release(pf);
        }
    }
    const char *lo_path = targets[order[0]].data_file_path;
    const char *hi_path = targets[order[n - 1]].data_file_path;
    free(order);
    if (!rc) rc = metrics(a, out, sizes, rows, lo_path, hi_path, lo_pos, hi_pos, err);
    if (rc) {
        unlink(path);
        return rc;
    }
    out->content = ICE_CONTENT_POSITION_DELETES;
    out->file_path = arena_strdup(a, path);
    out->file_format = "PARQUET";
    out->record_count = rows;
    if (n == 1) out->referenced_data_file = arena_strdup(a, targets[0].data_file_path);
    set_partition(out, &targets[0]);
    if (!out->file_path || (n == 1 && !out->referenced_data_file)) {
        unlink(path);
        return err_nomem(err, "Iceberg delete writer");
    }
    return SQE_OK;
}

/* Writes bytes to path atomically: temporary file, fsync, rename. */
static int write_file_atomic(const char *path, const uint8_t *bytes, size_t len, sqe_error *err) {
    char tmp[4096];
    int n = snprintf(tmp, sizeof tmp, "%s.tmp-%ld-%lx", path, (long)getpid(),
                     (unsigned long)random());
    if (n < 0 || (size_t)n >= sizeof tmp)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "path too long: %s", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) return err_set(err, SQE_ERR_IO_ERROR, "cannot create %s: %s", tmp, strerror(errno));
    size_t off = 0;
    while (off < len) {
        ssize_t w = write(fd, bytes + off, len - off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) break;
        off += (size_t)w;
    }
    int rc = SQE_OK;
    if (off < len || fsync(fd) != 0)
        rc = err_set(err, SQE_ERR_IO_ERROR, "cannot write %s: %s", tmp, strerror(errno));
    if (close(fd) != 0 && !rc)
        rc = err_set(err, SQE_ERR_IO_ERROR, "cannot write %s: %s", tmp, strerror(errno));
    if (!rc && rename(tmp, path) != 0)
        rc = err_set(err, SQE_ERR_IO_ERROR, "cannot rename %s to %s: %s", tmp, path,
                     strerror(errno));
    if (rc) unlink(tmp);
    return rc;
}

int ice_dv_file_write(arena *a, const char *path, const ice_delete_target *targets, uint32_t n,
                      ice_data_file *out, sqe_error *err) {
    SQE_TRY(check_targets(targets, n, err));
    uint32_t *order;
    SQE_TRY(sort_targets(targets, n, &order, err)); /* only to reject duplicates */
    free(order);
    ice_puffin_writer w;
    ice_puffin_writer_init(&w);
    const int32_t fields[1] = {ICE_FIELD_ID_POS};
    int rc = SQE_OK;
    for (uint32_t i = 0; !rc && i < n; i++) {
        const ice_delete_target *t = &targets[i];
        uint8_t *blob = NULL;
        size_t blen = 0;
        rc = ice_dv_encode(t->positions, &blob, &blen, err);
        char card[32];
        snprintf(card, sizeof card, "%llu",
                 (unsigned long long)ice_roaring_cardinality(t->positions));
        ice_kv kv[2] = {{"referenced-data-file", t->data_file_path}, {"cardinality", card}};
        ice_kv_list props = {2, kv};
        ice_data_file *o = &out[i];
        memset(o, 0, sizeof *o);
        if (!rc)
            rc = ice_puffin_writer_add(&w, ICE_PUFFIN_DV_TYPE, fields, 1, -1, -1, NULL, &props,
                                       blob, blen, &o->content_offset, &o->content_size_in_bytes,
                                       err);
        free(blob);
        if (rc) break;
        o->content = ICE_CONTENT_POSITION_DELETES;
        o->file_format = "PUFFIN";
        o->file_path = arena_strdup(a, path);
        o->referenced_data_file = arena_strdup(a, t->data_file_path);
        o->has_content_offset = o->has_content_size_in_bytes = true;
        o->record_count = (int64_t)ice_roaring_cardinality(t->positions);
        set_partition(o, t);
        if (!o->file_path || !o->referenced_data_file) rc = err_nomem(err, "Iceberg DV writer");
    }
    uint8_t *bytes = NULL;
    size_t len = 0;
    if (!rc) rc = ice_puffin_writer_finish(&w, NULL, false, &bytes, &len, err);
    ice_puffin_writer_reset(&w);
    if (!rc) rc = write_file_atomic(path, bytes, len, err);
    free(bytes);
    for (uint32_t i = 0; !rc && i < n; i++) out[i].file_size_in_bytes = (int64_t)len;
    return rc;
}

/* Points the n records at location after a staged write was published. */
static int relocate(arena *a, ice_data_file *out, uint32_t n, const char *location,
                    sqe_error *err) {
    const char *p = arena_strdup(a, location);
    if (!p) return err_nomem(err, "Iceberg delete writer");
    for (uint32_t i = 0; i < n; i++) out[i].file_path = p;
    return SQE_OK;
}

int ice_position_delete_file_write_as(arena *a, const char *path, const io_identity *io,
                                      const ice_delete_target *targets, uint32_t n,
                                      const pq_writer_options *opts, ice_data_file *out,
                                      sqe_error *err) {
    ice_stage s;
    SQE_TRY(ice_stage_begin(&s, path, io, err));
    int rc = ice_position_delete_file_write(a, s.local, targets, n, opts, out, err);
    if (!rc && s.remote) {
        rc = ice_stage_publish(&s, err);
        if (!rc && (rc = relocate(a, out, 1, path, err)) != SQE_OK) ice_stage_remove(path, io);
    }
    ice_stage_end(&s);
    return rc;
}

int ice_dv_file_write_as(arena *a, const char *path, const io_identity *io,
                         const ice_delete_target *targets, uint32_t n, ice_data_file *out,
                         sqe_error *err) {
    ice_stage s;
    SQE_TRY(ice_stage_begin(&s, path, io, err));
    int rc = ice_dv_file_write(a, s.local, targets, n, out, err);
    if (!rc && s.remote) {
        rc = ice_stage_publish(&s, err);
        if (!rc && (rc = relocate(a, out, n, path, err)) != SQE_OK) ice_stage_remove(path, io);
    }
    ice_stage_end(&s);
    return rc;
}
