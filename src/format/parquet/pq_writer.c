/*
 * pq_writer.c: the Parquet file writer's public interface (see pq_writer.h): options, opening
 * the file and building the schema, the chunk stream, the footer and closing. The writer goes
 * chunks -> row groups -> column chunks -> pages, with dictionary encoding and PLAIN fallback,
 * compression, statistics, the page index, bloom filters and the footer; its pieces share
 * pq_writer_int.h: pq_writer_schema.c (schema), pq_writer_stage.c (shredding into staging
 * buffers), pq_writer_chunk.c (statistics helpers, column chunk encoding), pq_writer_rowgroup.c
 * (row groups: threads, chunk metadata, file output).
 *
 * INTERFACE
 *   pq_writer_options_init, pq_writer_options_set   options (defaults, COPY ... WITH text)
 *   pq_writer_open, pq_writer_write, pq_writer_close, pq_writer_abort   the stream
 *   pq_writer_flush, pq_writer_estimated_size, pq_writer_buffered_bytes, pq_writer_rows,
 *   pq_writer_close_meta        for writers that roll files (Iceberg data files)
 * NOTES
 *   - pq_writer_write stages each column's rows (pq_writer_stage.c: flat top-level columns in
 *     bulk, nested ones row by row) and flushes a row group when it holds row_group_rows rows
 *     or its staged bytes reach row_group_bytes.
 *   - Page index (PageIndex.md): the ColumnIndex of every chunk, then the OffsetIndex of every
 *     chunk, are written after the last row group and before the footer; they are kept encoded in
 *     memory until then (a few dozen bytes per page). Their offsets are rebased at close.
 *   - Files: "<path>.tmp-<pid>-<random>" (O_EXCL), renamed over path after fsync at close
 *     (no_replace: hard-linked to path, which fails when path exists, then unlinked); any
 *     failure or abort unlinks it.
 */
#include "format/parquet/pq_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "format/parquet/pq_writer_int.h"

#ifndef SQE_VERSION
#define SQE_VERSION "dev"
#endif

/* ---- options -------------------------------------------------------------------------------- */

void pq_writer_options_init(pq_writer_options *o) {
    memset(o, 0, sizeof(*o));
    o->codec = PQ_CODEC_ZSTD;
    o->compression_level = 0;
    o->row_group_rows = 122880;
    o->row_group_bytes = (uint64_t)128 << 20;
    o->page_bytes = 1u << 20;
    o->page_rows = 20000;
    o->dictionary = true;
    o->dictionary_page_bytes = 1u << 20;
    o->write_page_index = true;
    o->write_statistics = true;
    o->write_crc = false;
    o->bloom_filter = true;
    o->bloom_filter_fpp = 0.01;
    o->statistics_truncate = 64;
    o->threads = 1;
    o->field_ids = NULL;
}

static int parse_bool(const char *v, bool *out) {
    if (!strcasecmp(v, "true") || !strcasecmp(v, "1") || !strcasecmp(v, "on") ||
        !strcasecmp(v, "yes")) {
        *out = true;
        return 0;
    }
    if (!strcasecmp(v, "false") || !strcasecmp(v, "0") || !strcasecmp(v, "off") ||
        !strcasecmp(v, "no")) {
        *out = false;
        return 0;
    }
    return -1;
}

/* An unsigned integer with an optional size suffix (KB, MB, GB, KiB, MiB, GiB; decimal and
 * binary multiples as DuckDB reads them). */
static int parse_size(const char *v, bool allow_suffix, uint64_t *out) {
    while (*v == ' ') v++;
    if (*v < '0' || *v > '9') return -1;
    errno = 0;
    char *end;
    unsigned long long n = strtoull(v, &end, 10);
    if (errno) return -1;
    while (*end == ' ') end++;
    uint64_t mult = 1;
    if (*end) {
        if (!allow_suffix) return -1;
        static const struct { const char *s; uint64_t m; } suffixes[] = {
            {"b", 1}, {"kb", 1000}, {"mb", 1000000}, {"gb", 1000000000},
            {"kib", 1024}, {"mib", 1048576}, {"gib", 1073741824},
            {"k", 1024}, {"m", 1048576}, {"g", 1073741824},
        };
        size_t i = 0;
        for (; i < sizeof suffixes / sizeof suffixes[0]; i++)
            if (!strcasecmp(end, suffixes[i].s)) break;
        if (i == sizeof suffixes / sizeof suffixes[0]) return -1;
        mult = suffixes[i].m;
    }
    if (n > UINT64_MAX / mult) return -1;
    *out = (uint64_t)n * mult;
    return 0;
}

static int parse_codec(const char *v, int *out) {
    static const struct { const char *name; int codec; } codecs[] = {
        {"zstd", PQ_CODEC_ZSTD}, {"snappy", PQ_CODEC_SNAPPY}, {"gzip", PQ_CODEC_GZIP},
        {"lz4", PQ_CODEC_LZ4_RAW}, {"lz4_raw", PQ_CODEC_LZ4_RAW}, {"brotli", PQ_CODEC_BROTLI},
        {"none", PQ_CODEC_UNCOMPRESSED}, {"uncompressed", PQ_CODEC_UNCOMPRESSED},
    };
    for (size_t i = 0; i < sizeof codecs / sizeof codecs[0]; i++)
        if (!strcasecmp(v, codecs[i].name)) {
            *out = codecs[i].codec;
            return 0;
        }
    return -1;
}

int pq_writer_options_set(pq_writer_options *o, const char *key, const char *value,
                          sqe_error *err) {
    if (!key || !value)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "Parquet option without a value");
    uint64_t n;
    bool b;
    if (!strcasecmp(key, "compression") || !strcasecmp(key, "codec")) {
        int codec;
        if (parse_codec(value, &codec))
            return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                           "Invalid value for Parquet option '%s': '%s' (expected zstd, snappy, gzip, "
                           "lz4, lz4_raw, brotli or none)", key, value);
        o->codec = codec;
        return SQE_OK;
    }
    if (!strcasecmp(key, "compression_level")) {
        errno = 0;
        char *end;
        long lv = strtol(value, &end, 10);
        if (errno || end == value || *end || lv < -1000000 || lv > 1000000)
            return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                           "Invalid value for Parquet option '%s': '%s' (expected an integer)",
                           key, value);
        o->compression_level = (int)lv;
        return SQE_OK;
    }
    struct {
        const char *name;
        bool suffix;
        uint64_t max;
    } sizes[] = {
        {"row_group_size", false, (uint64_t)INT32_MAX},
        {"row_group_size_bytes", true, UINT64_MAX},
        {"page_size", true, (uint64_t)1 << 30},
        {"page_row_limit", false, (uint64_t)INT32_MAX},
        {"dictionary_page_size", true, (uint64_t)1 << 30},
        {"threads", false, MAX_THREADS},
    };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        if (strcasecmp(key, sizes[i].name)) continue;
        if (parse_size(value, sizes[i].suffix, &n) || n == 0 || n > sizes[i].max)
            return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                           "Invalid value for Parquet option '%s': '%s' (expected an integer from 1 "
                           "to %llu)", key, value, (unsigned long long)sizes[i].max);
        switch (i) {
        case 0: o->row_group_rows = n; break;
        case 1: o->row_group_bytes = n; break;
        case 2: o->page_bytes = (uint32_t)n; break;
        case 3: o->page_rows = (uint32_t)n; break;
        case 4: o->dictionary_page_bytes = (uint32_t)n; break;
        default: o->threads = (uint32_t)n; break;
        }
        return SQE_OK;
    }
    bool *flag = !strcasecmp(key, "dictionary")       ? &o->dictionary
                 : !strcasecmp(key, "page_index")     ? &o->write_page_index
                 : !strcasecmp(key, "statistics")     ? &o->write_statistics
                 : !strcasecmp(key, "page_checksum")  ? &o->write_crc
                 : !strcasecmp(key, "bloom_filter")   ? &o->bloom_filter
                                                      : NULL;
    if (flag) {
        if (parse_bool(value, &b))
            return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                           "Invalid value for Parquet option '%s': '%s' (expected true or false)", key,
                           value);
        *flag = b;
        return SQE_OK;
    }
    return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "Unknown Parquet option '%s'", key);
}

/* ---- lifecycle ------------------------------------------------------------------------------- */

static void writer_free(pq_writer *w) {
    if (!w) return;
    for (uint32_t i = 0; i < w->n_leaves; i++) {
        leaf *l = &w->leaves[i];
        pq_buf_reset(&l->def);
        pq_buf_reset(&l->rep);
        pq_buf_reset(&l->vals);
        pq_buf_reset(&l->lens);
        pq_buf_reset(&l->chunk);
        pq_buf_reset(&l->page_bounds);
        pq_buf_reset(&l->column_index);
        pq_buf_reset(&l->bloom);
        free(l->pages);
    }
    for (uint32_t t = 0; t < w->n_workers; t++) {
        worker *wk = &w->workers[t];
        pq_buf_reset(&wk->body);
        pq_buf_reset(&wk->comp);
        pq_thrift_writer_reset(&wk->hdr);
        pq_compressor_reset(&wk->codec);
        pq_dict_reset(&wk->dict);
        free(wk->idx);
    }
    free(w->workers);
    free(w->leaves);
    free(w->nodes);
    free(w->schema);
    free(w->order);
    free(w->col_node);
    free(w->col_types);
    free(w->row_groups);
    pq_buf_reset(&w->ci_all);
    pq_buf_reset(&w->oi_all);
    pq_thrift_writer_reset(&w->tw);
    arena_destroy(&w->meta);
    free(w->path);
    free(w->tmp_path);
    free(w);
}

void pq_writer_abort(pq_writer *w) {
    if (!w) return;
    if (w->fd >= 0) close(w->fd);
    if (w->tmp_path) unlink(w->tmp_path);
    writer_free(w);
}

static int open_temp_file(pq_writer *w, sqe_error *err) {
    size_t len = strlen(w->path) + 64;
    w->tmp_path = malloc(len);
    if (!w->tmp_path) return err_nomem(err, "Parquet writer");
    for (int attempt = 0; attempt < 16; attempt++) {
        uint64_t rnd = 0;
        if (getrandom(&rnd, sizeof rnd, GRND_NONBLOCK) != (ssize_t)sizeof rnd) {
            struct timespec ts;
            clock_gettime(CLOCK_MONOTONIC, &ts);
            rnd = ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec ^ ((uint64_t)attempt << 40);
        }
        snprintf(w->tmp_path, len, "%s.tmp-%ld-%016llx", w->path, (long)getpid(),
                 (unsigned long long)rnd);
        w->fd = open(w->tmp_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (w->fd >= 0) return SQE_OK;
        if (errno != EEXIST) break;
    }
    int e = errno;
    free(w->tmp_path);
    w->tmp_path = NULL;
    return err_set(err, SQE_ERR_IO_ERROR, "Cannot write Parquet file '%s': %s", w->path, strerror(e));
}

int pq_writer_open(const char *path, uint32_t n_cols, const char *const *names,
                   const sqe_type *types, const pq_writer_options *o, mem_tracker *tracker,
                   pq_writer **out, sqe_error *err) {
    *out = NULL;
    pq_writer_options opts;
    if (o) opts = *o;
    else pq_writer_options_init(&opts);
    SQE_TRY(pq_compressor_check(opts.codec, opts.compression_level, err));
    if (opts.row_group_rows == 0 || opts.row_group_rows > INT32_MAX || opts.row_group_bytes == 0 ||
        opts.page_bytes == 0 || opts.page_rows == 0)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "Invalid Parquet writer sizes");
    if (!path || !*path) return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "Parquet file path is empty");
    if (n_cols == 0)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "Cannot write a Parquet file without columns");
    pq_writer *w = calloc(1, sizeof(*w));
    if (!w) return err_nomem(err, "Parquet writer");
    w->fd = -1;
    w->o = opts;
    w->o.field_ids = NULL;
    w->o.fields = NULL;
    w->o.n_fields = 0;
    w->finfo = opts.fields;
    w->n_finfo = opts.fields ? opts.n_fields : 0;
    w->tracker = tracker;
    arena_init(&w->meta, tracker);
    pq_buf_init(&w->ci_all, tracker);
    pq_buf_init(&w->oi_all, tracker);
    pq_thrift_writer_init(&w->tw);
    int rc = SQE_OK;
    w->path = strdup(path);
    w->n_cols = n_cols;
    w->col_node = calloc(n_cols, sizeof(uint32_t));
    w->col_types = calloc(n_cols, sizeof(sqe_type));
    if (!w->path || !w->col_node || !w->col_types) {
        rc = err_nomem(err, "Parquet writer");
        goto out_fail;
    }
    memcpy(w->col_types, types, n_cols * sizeof(sqe_type));
    uint32_t root;
    rc = pqw_add_element(w, "schema", PQ_REP_REQUIRED, &root, err);
    if (rc) goto out_fail;
    w->schema[root].has_num_children = true;
    w->schema[root].num_children = (int32_t)n_cols;
    const char *path_stack[MAX_NESTING + 4];
    for (uint32_t c = 0; c < n_cols; c++) {
        int32_t fid = opts.field_ids ? opts.field_ids[c] : -1;
        const char *name = names && names[c] ? names[c] : "";
        rc = pqw_build_field(w, name, types[c], false, 0, 0, fid, path_stack, 1, &w->col_node[c],
                             err);
        if (rc) goto out_fail;
    }
    if (w->finfo && w->finfo_next != w->n_finfo) {
        rc = err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                     "Parquet writer: %u field entries given for a schema of %u nodes", w->n_finfo,
                     w->finfo_next);
        goto out_fail;
    }
    w->finfo = NULL;
    w->order = calloc(w->n_leaves ? w->n_leaves : 1, sizeof(uint32_t));
    uint32_t n_workers = opts.threads ? opts.threads : 1;
    if (n_workers > MAX_THREADS) n_workers = MAX_THREADS;
    w->workers = calloc(n_workers, sizeof(worker));
    if (!w->order || !w->workers) {
        rc = err_nomem(err, "Parquet writer");
        goto out_fail;
    }
    for (uint32_t t = 0; t < n_workers; t++) {
        worker *wk = &w->workers[t];
        pq_buf_init(&wk->body, tracker);
        pq_buf_init(&wk->comp, tracker);
        pq_thrift_writer_init(&wk->hdr);
        pq_dict_init(&wk->dict, 0, opts.dictionary_page_bytes, tracker);
        w->n_workers++;
        rc = pq_compressor_init(&wk->codec, opts.codec, opts.compression_level, err);
        if (rc) goto out_fail;
    }
    rc = open_temp_file(w, err);
    if (rc) goto out_fail;
    rc = pqw_write_all(w, "PAR1", 4, err);
    if (rc) goto out_fail;
    *out = w;
    return SQE_OK;
out_fail:
    pq_writer_abort(w);
    return rc;
}

int pq_writer_write(pq_writer *w, const vec_chunk *chunk, sqe_error *err) {
    if (chunk->n_cols != w->n_cols)
        return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR,
                       "Parquet writer: chunk has %u columns, the file %u", chunk->n_cols, w->n_cols);
    for (uint32_t c = 0; c < w->n_cols; c++) {
        sqe_type have = chunk->cols[c].type, want = w->col_types[c];
        if (have.id != want.id && want.id != TYPE_UNKNOWN)
            return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR,
                           "Parquet writer: column %u has type id %d, expected %d", c, have.id,
                           want.id);
        if (want.id == TYPE_DECIMAL && type_decimal_is_long(have) != type_decimal_is_long(want))
            return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR,
                           "Parquet writer: column %u has a different decimal layout", c);
    }
    uint32_t done = 0;
    while (done < chunk->count) {
        uint64_t room = w->o.row_group_rows - w->rg_rows;
        uint32_t take = chunk->count - done;
        if (take > room) take = (uint32_t)room;
        for (uint32_t c = 0; c < w->n_cols; c++) {
            const vec *v = &chunk->cols[c];
            uint32_t ni = w->col_node[c];
            const wnode *n = &w->nodes[ni];
            if (n->kind == NODE_LEAF) {
                SQE_TRY(pqw_stage_flat(&w->leaves[n->leaf], v, done, take, err));
            } else {
                for (uint32_t r = 0; r < take; r++)
                    SQE_TRY(pqw_shred(w, ni, v, done + r, 0, 0, err));
            }
        }
        w->rg_rows += take;
        done += take;
        if (w->rg_rows >= w->o.row_group_rows || pqw_staged_bytes(w) >= w->o.row_group_bytes)
            SQE_TRY(pqw_flush_row_group(w, err));
    }
    return SQE_OK;
}

static int writer_close(pq_writer *w, uint64_t *rows_written, arena *a, pq_file_meta **meta,
                        uint64_t *file_size, sqe_error *err) {
    if (meta) *meta = NULL;
    int rc = pqw_flush_row_group(w, err);
    if (!rc && w->o.write_page_index) {
        uint64_t ci_base = w->pos;
        rc = pqw_write_all(w, w->ci_all.data, w->ci_all.len, err);
        uint64_t oi_base = w->pos;
        if (!rc) rc = pqw_write_all(w, w->oi_all.data, w->oi_all.len, err);
        for (uint32_t g = 0; !rc && g < w->n_row_groups; g++) {
            for (uint32_t c = 0; c < w->row_groups[g].n_columns; c++) {
                pq_column_chunk *cc = &w->row_groups[g].columns[c];
                if (cc->has_column_index) cc->column_index_offset += (int64_t)ci_base;
                if (cc->has_offset_index) cc->offset_index_offset += (int64_t)oi_base;
            }
        }
    }
    if (!rc) {
        pq_file_meta m;
        memset(&m, 0, sizeof(m));
        m.version = 2;
        m.schema = w->schema;
        m.n_schema = w->n_schema;
        m.num_rows = (int64_t)w->total_rows;
        m.row_groups = w->row_groups;
        m.n_row_groups = w->n_row_groups;
        m.created_by = "SQE version " SQE_VERSION;
        int32_t *orders = ARENA_ARRAY(&w->meta, int32_t, w->n_leaves ? w->n_leaves : 1);
        if (!orders) rc = err_nomem(err, "Parquet footer");
        for (uint32_t i = 0; !rc && i < w->n_leaves; i++) orders[i] = PQ_ORDER_TYPE_DEFINED;
        m.column_orders = orders;
        m.n_column_orders = w->n_leaves;
        pq_thrift_writer_clear(&w->tw);
        if (!rc) rc = pq_meta_encode_file_metadata(&w->tw, &m, err);
        if (!rc && meta) rc = pq_meta_decode_file_metadata(a, w->tw.buf, w->tw.len, meta, err);
        if (!rc && w->tw.len > UINT32_MAX)
            rc = err_set(err, SQE_ERR_NOT_SUPPORTED, "unsupported: Parquet footer over 4 GiB");
        if (!rc) rc = pqw_write_all(w, w->tw.buf, w->tw.len, err);
        if (!rc) {
            uint32_t flen = (uint32_t)w->tw.len;
            uint8_t tail[8] = {(uint8_t)flen, (uint8_t)(flen >> 8), (uint8_t)(flen >> 16),
                               (uint8_t)(flen >> 24), 'P', 'A', 'R', '1'};
            rc = pqw_write_all(w, tail, sizeof tail, err);
        }
    }
    if (!rc && fsync(w->fd) != 0)
        rc = err_set(err, SQE_ERR_IO_ERROR, "Cannot write Parquet file '%s': %s", w->path,
                     strerror(errno));
    if (!rc) {
        int fd = w->fd;
        w->fd = -1;
        if (close(fd) != 0)
            rc = err_set(err, SQE_ERR_IO_ERROR, "Cannot write Parquet file '%s': %s", w->path,
                         strerror(errno));
    }
    if (!rc && w->o.no_replace) {
        /* link(2) fails with EEXIST instead of replacing: a file that appeared since the
         * caller looked is kept */
        if (link(w->tmp_path, w->path) != 0)
            rc = errno == EEXIST ? err_set(err, SQE_ERR_ALREADY_EXISTS,
                                           "Parquet file '%s' exists; it is not replaced", w->path)
                                 : err_set(err, SQE_ERR_IO_ERROR, "Cannot write Parquet file "
                                           "'%s': %s", w->path, strerror(errno));
        else
            unlink(w->tmp_path);
    } else if (!rc && rename(w->tmp_path, w->path) != 0) {
        rc = err_set(err, SQE_ERR_IO_ERROR, "Cannot write Parquet file '%s': %s", w->path,
                     strerror(errno));
    }
    if (rc) {
        if (meta) *meta = NULL;
        pq_writer_abort(w);
        return rc;
    }
    if (rows_written) *rows_written = w->total_rows;
    if (file_size) *file_size = w->pos;
    free(w->tmp_path);
    w->tmp_path = NULL;
    writer_free(w);
    return SQE_OK;
}

int pq_writer_close(pq_writer *w, uint64_t *rows_written, sqe_error *err) {
    return writer_close(w, rows_written, NULL, NULL, NULL, err);
}

int pq_writer_close_meta(pq_writer *w, arena *a, pq_file_meta **meta, uint64_t *file_size,
                         sqe_error *err) {
    return writer_close(w, NULL, a, meta, file_size, err);
}

/* ---- row group accounting ------------------------------------------------------------------ */

uint64_t pq_writer_buffered_bytes(const pq_writer *w) { return pqw_staged_bytes(w); }

uint64_t pq_writer_rows(const pq_writer *w) { return w->total_rows + w->rg_rows; }

uint64_t pq_writer_estimated_size(const pq_writer *w) {
    uint64_t buffered = pqw_staged_bytes(w);
    if (w->flushed_staged)
        buffered = (uint64_t)((double)buffered * (double)w->flushed_written /
                              (double)w->flushed_staged);
    return w->pos + buffered;
}

int pq_writer_flush(pq_writer *w, sqe_error *err) { return pqw_flush_row_group(w, err); }
