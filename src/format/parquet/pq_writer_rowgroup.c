/*
 * pq_writer_rowgroup.c: the Parquet writer's row groups: encoding every leaf (on
 * options.threads threads), writing the column chunks and bloom filters, and the ColumnChunk
 * metadata, chunk statistics and page index entries kept for the footer.
 *
 * INTERFACE (pq_writer_int.h)
 *   pqw_write_all        bytes to the file
 *   pqw_flush_row_group  the staged row group -> the file
 * NOTES
 *   - Flushing encodes every leaf independently (largest leaves first) into an in-memory column
 *     chunk, then writes the chunks in schema order. Only one row group is ever buffered.
 *   - Bloom filters follow the column chunks of their row group, which stay contiguous.
 *   - Chunk statistics: byte-array bounds are cut to statistics_truncate bytes (UTF-8 aware for
 *     strings, upper bounds rounded up, is_*_value_exact says when a bound is not a value).
 *   - ColumnIndex and OffsetIndex structs accumulate in w->ci_all / w->oi_all with offsets
 *     relative to those buffers; pq_writer.c writes them and rebases the offsets at close.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/parquet/pq_writer_int.h"

/* ---- row groups ----------------------------------------------------------------------------- */

int pqw_write_all(pq_writer *w, const void *data, size_t len, sqe_error *err) {
    const uint8_t *p = data;
    while (len > 0) {
        ssize_t n = write(w->fd, p, len > ((size_t)1 << 30) ? ((size_t)1 << 30) : len);
        if (n < 0) {
            if (errno == EINTR) continue;
            return err_set(err, SQE_ERR_IO_ERROR, "Cannot write Parquet file '%s': %s", w->path,
                           strerror(errno));
        }
        p += n;
        len -= (size_t)n;
        w->pos += (uint64_t)n;
    }
    return SQE_OK;
}

typedef struct encode_arg {
    pq_writer *w;
    worker *wk;
    _Atomic int *failed;
} encode_arg;

/* Encodes leaves (in w->order) until none is left or one failed. */
static void *encode_loop(void *p) {
    encode_arg *a = p;
    pq_writer *w = a->w;
    for (;;) {
        if (atomic_load(a->failed)) break;
        uint32_t i = atomic_fetch_add(&w->next_leaf, 1);
        if (i >= w->n_leaves) break;
        leaf *l = &w->leaves[w->order[i]];
        l->rc = pqw_encode_leaf(w, a->wk, l, &l->err);
        if (l->rc) atomic_store(a->failed, 1);
    }
    return NULL;
}

typedef struct size_idx {
    uint64_t size;
    uint32_t idx;
} size_idx;

static int by_size_desc(const void *a, const void *b) {
    const size_idx *x = a, *y = b;
    if (x->size != y->size) return x->size < y->size ? 1 : -1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Encodes all leaves, on up to n_workers threads. */
static int encode_row_group(pq_writer *w, sqe_error *err) {
    size_idx *si = malloc((size_t)w->n_leaves * sizeof(*si));
    if (!si) return err_nomem(err, "Parquet writer");
    for (uint32_t i = 0; i < w->n_leaves; i++) {
        const leaf *l = &w->leaves[i];
        si[i] = (size_idx){l->vals.len + l->lens.len + l->def.len + l->rep.len, i};
        w->leaves[i].rc = SQE_OK;
    }
    qsort(si, w->n_leaves, sizeof(*si), by_size_desc);
    for (uint32_t i = 0; i < w->n_leaves; i++) w->order[i] = si[i].idx;
    free(si);
    atomic_store(&w->next_leaf, 0);
    _Atomic int failed = 0;
    uint32_t n_threads = w->n_workers < w->n_leaves ? w->n_workers : w->n_leaves;
    encode_arg args[MAX_THREADS];
    pthread_t tids[MAX_THREADS];
    bool started[MAX_THREADS] = {false};
    for (uint32_t t = 0; t < n_threads; t++) args[t] = (encode_arg){w, &w->workers[t], &failed};
    for (uint32_t t = 1; t < n_threads; t++)
        started[t] = pthread_create(&tids[t], NULL, encode_loop, &args[t]) == 0;
    encode_loop(&args[0]);
    for (uint32_t t = 1; t < n_threads; t++)
        if (started[t]) pthread_join(tids[t], NULL);
    for (uint32_t i = 0; i < w->n_leaves; i++) {
        if (w->leaves[i].rc) {
            if (err) *err = w->leaves[i].err;
            return w->leaves[i].rc;
        }
    }
    return SQE_OK;
}

/* Chunk statistics in the footer's arena (parquet.thrift Statistics). */
static int chunk_statistics(pq_writer *w, const leaf *l, pq_statistics *s, sqe_error *err) {
    memset(s, 0, sizeof(*s));
    s->has_null_count = true;
    s->null_count = l->null_count;
    if (!l->has_bounds) return SQE_OK;
    const uint8_t *a = bound_data(&l->cmin), *b = bound_data(&l->cmax);
    size_t a_len = l->cmin.len, b_len = l->cmax.len;
    bool exact_min = true, exact_max = true;
    uint8_t *up = NULL;
    if (l->phys == PQ_TYPE_BYTE_ARRAY) {
        size_t limit = w->o.statistics_truncate >= 4 ? w->o.statistics_truncate : 4;
        size_t cut = pq_truncate_lower(a, a_len, limit, l->utf8);
        exact_min = cut == a_len;
        a_len = cut;
        up = arena_alloc(&w->meta, limit + 4);
        if (!up) return err_nomem(err, "Parquet statistics");
        size_t up_len;
        if (!pq_truncate_upper(b, b_len, limit, l->utf8, up, &up_len)) return SQE_OK; /* no bounds */
        exact_max = up_len == b_len && memcmp(up, b, b_len) == 0;
        b = up;
        b_len = up_len;
        s->has_is_min_value_exact = s->has_is_max_value_exact = true;
        s->is_min_value_exact = exact_min;
        s->is_max_value_exact = exact_max;
    }
    uint8_t *mn = arena_memdup(&w->meta, a, a_len ? a_len : 1);
    uint8_t *mx = b == up ? up : arena_memdup(&w->meta, b, b_len ? b_len : 1);
    if (!mn || !mx) return err_nomem(err, "Parquet statistics");
    s->has_min_value = s->has_max_value = true;
    s->min_value = mn;
    s->min_value_len = a_len;
    s->max_value = mx;
    s->max_value_len = b_len;
    if (l->phys != PQ_TYPE_BYTE_ARRAY && l->phys != PQ_TYPE_FIXED_LEN_BYTE_ARRAY) {
        /* signed order: the deprecated fields carry the same values for older readers */
        s->has_min = s->has_max = true;
        s->min = mn;
        s->min_len = a_len;
        s->max = mx;
        s->max_len = b_len;
    }
    return SQE_OK;
}

static void leaf_clear_stage(leaf *l) {
    pq_buf_clear(&l->def);
    pq_buf_clear(&l->rep);
    pq_buf_clear(&l->vals);
    pq_buf_clear(&l->lens);
    l->n_levels = l->n_vals = 0;
}

/* Encodes and writes the staged row group (nothing when it is empty). */
int pqw_flush_row_group(pq_writer *w, sqe_error *err) {
    if (w->rg_rows == 0) return SQE_OK;
    uint64_t staged = pqw_staged_bytes(w), pos0 = w->pos;
    if (w->n_row_groups == w->cap_row_groups) {
        uint32_t cap = w->cap_row_groups ? w->cap_row_groups * 2 : 16;
        pq_row_group *p = realloc(w->row_groups, (size_t)cap * sizeof(*p));
        if (!p) return err_nomem(err, "Parquet row groups");
        w->row_groups = p;
        w->cap_row_groups = cap;
    }
    SQE_TRY(encode_row_group(w, err));
    pq_row_group *rg = &w->row_groups[w->n_row_groups];
    memset(rg, 0, sizeof(*rg));
    rg->columns = ARENA_ARRAY(&w->meta, pq_column_chunk, w->n_leaves);
    if (!rg->columns) return err_nomem(err, "Parquet row groups");
    rg->n_columns = w->n_leaves;
    rg->num_rows = (int64_t)w->rg_rows;
    rg->has_file_offset = rg->has_total_compressed_size = true;
    rg->file_offset = (int64_t)w->pos;
    if (w->n_row_groups <= INT16_MAX) {
        rg->has_ordinal = true;
        rg->ordinal = (int16_t)w->n_row_groups;
    }
    for (uint32_t i = 0; i < w->n_leaves; i++) {
        leaf *l = &w->leaves[i];
        pq_column_chunk *cc = &rg->columns[i];
        uint64_t start = w->pos;
        SQE_TRY(pqw_write_all(w, l->chunk.data, l->chunk.len, err));
        cc->file_offset = 0; /* deprecated; 0 when no ColumnMetaData is written outside the footer */
        cc->has_meta_data = true;
        pq_column_meta *m = &cc->meta_data;
        m->type = l->phys;
        m->encodings = ARENA_ARRAY(&w->meta, int32_t, 3);
        if (!m->encodings) return err_nomem(err, "Parquet metadata");
        m->encodings[m->n_encodings++] = PQ_ENC_PLAIN;
        m->encodings[m->n_encodings++] = PQ_ENC_RLE;
        if (l->has_dict) m->encodings[m->n_encodings++] = PQ_ENC_RLE_DICTIONARY;
        m->path_in_schema = l->path;
        m->n_path_in_schema = l->n_path;
        m->codec = w->o.codec;
        m->num_values = (int64_t)l->n_levels;
        m->total_uncompressed_size = l->uncompressed;
        m->total_compressed_size = (int64_t)l->chunk.len;
        m->data_page_offset = (int64_t)(start + l->dict_size);
        if (l->has_dict) {
            m->has_dictionary_page_offset = true;
            m->dictionary_page_offset = (int64_t)start;
        }
        if (w->o.write_statistics) {
            m->has_statistics = true;
            SQE_TRY(chunk_statistics(w, l, &m->statistics, err));
        }
        if (w->o.write_page_index) {
            if (l->column_index.len) {
                cc->has_column_index = true;
                cc->column_index_offset = (int64_t)w->ci_all.len; /* rebased at close */
                cc->column_index_length = (int32_t)l->column_index.len;
                SQE_TRY(pq_buf_append(&w->ci_all, l->column_index.data, l->column_index.len, err));
            }
            pq_page_location *locs = malloc((size_t)(l->n_pages ? l->n_pages : 1) * sizeof(*locs));
            if (!locs) return err_nomem(err, "Parquet offset index");
            for (uint32_t p = 0; p < l->n_pages; p++)
                locs[p] = (pq_page_location){(int64_t)(start + l->pages[p].offset),
                                             (int32_t)l->pages[p].size, (int64_t)l->pages[p].first_row};
            pq_offset_index oi = {locs, l->n_pages};
            pq_thrift_writer_clear(&w->tw);
            int rc = pq_meta_encode_offset_index(&w->tw, &oi, err);
            free(locs);
            SQE_TRY(rc);
            cc->has_offset_index = true;
            cc->offset_index_offset = (int64_t)w->oi_all.len; /* rebased at close */
            cc->offset_index_length = (int32_t)w->tw.len;
            SQE_TRY(pq_buf_append(&w->oi_all, w->tw.buf, w->tw.len, err));
        }
        rg->total_byte_size += l->uncompressed;
        rg->total_compressed_size += (int64_t)l->chunk.len;
    }
    /* bloom filters after the row group's column data, which stays contiguous */
    for (uint32_t i = 0; i < w->n_leaves; i++) {
        leaf *l = &w->leaves[i];
        if (!l->bloom.len || l->bloom.len > INT32_MAX) continue;
        pq_column_meta *m = &rg->columns[i].meta_data;
        m->has_bloom_filter_offset = m->has_bloom_filter_length = true;
        m->bloom_filter_offset = (int64_t)w->pos;
        m->bloom_filter_length = (int32_t)l->bloom.len;
        SQE_TRY(pqw_write_all(w, l->bloom.data, l->bloom.len, err));
    }
    w->n_row_groups++;
    for (uint32_t i = 0; i < w->n_leaves; i++) {
        leaf_clear_stage(&w->leaves[i]);
        pq_buf_clear(&w->leaves[i].chunk);
    }
    w->total_rows += w->rg_rows;
    w->rg_rows = 0;
    w->flushed_staged += staged;
    w->flushed_written += w->pos - pos0;
    return SQE_OK;
}
