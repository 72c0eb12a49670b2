/*
 * pq_rowgroup.c: the row-group reader (pq_rg_open / pq_rg_next / pq_rg_close, pq_reader.h).
 *
 * INTERFACE: pq_rg_open, pq_rg_next, pq_rg_close.
 * NOTES
 *   IO: the byte ranges of the projected leaves' column chunks are sorted and coalesced (gaps up
 *   to COALESCE_GAP are read through) into a few large reads, one buffer each; column readers
 *   borrow their chunk from those buffers for the life of the row-group reader.
 *   Top-level leaves without repetition are read by pq_column_read_flat; nested columns
 *   (structs, lists, maps) go through the record assembler (pq_assemble.h).
 *   Page pruning: the page indexes (ColumnIndex + OffsetIndex) of predicate columns give row
 *   ranges that may match (pq_prune.h); pq_rg_next then reads only those ranges and skips the
 *   gaps in every column (whole pages without decompressing them).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/parquet/pq_assemble.h"
#include "format/parquet/pq_column.h"
#include "format/parquet/pq_prune.h"
#include "format/parquet/pq_reader.h"

#define COALESCE_GAP ((uint64_t)1 << 20)

typedef struct byte_range {
    uint64_t start, len;
    uint32_t leaf;
} byte_range;

struct pq_rg_reader {
    pq_file *f;
    uint32_t g;
    mem_tracker *tracker;
    uint32_t n_cols;
    const pq_node **cols;
    pq_column_reader **readers;  /* per leaf of the file; NULL when not projected */
    pq_assembler **assemblers;   /* per projected column; NULL for flat leaves */
    uint8_t **bufs;
    uint32_t n_bufs;
    int64_t rows_left;
    /* page pruning */
    arena a;
    bool has_ranges;
    pq_row_ranges ranges;
    uint32_t range_idx;
    int64_t row;                 /* next row of the row group the column readers are at */
    int64_t skipped;
};

void pq_rg_close(pq_rg_reader *r) {
    if (!r) return;
    if (r->assemblers)
        for (uint32_t i = 0; i < r->n_cols; i++) pq_assemble_close(r->assemblers[i]);
    if (r->readers)
        for (uint32_t i = 0; i < r->f->schema->n_leaves; i++) pq_column_close(r->readers[i]);
    for (uint32_t i = 0; i < r->n_bufs; i++) mem_free(r->tracker, r->bufs[i]);
    free(r->bufs);
    free(r->readers);
    free(r->assemblers);
    free(r->cols);
    arena_destroy(&r->a);
    free(r);
}

int64_t pq_rg_rows_skipped(const pq_rg_reader *r) { return r->skipped; }

/* Checks [off, off + len) against the file size and adds it, with a buffer from the reader's
 * arena, to ranges. */
static int add_index_range(pq_rg_reader *r, int64_t off, int64_t len, io_range *ranges,
                           uint32_t *n, sqe_error *err) {
    if (off < 0 || len <= 0 || (uint64_t)off > r->f->size || (uint64_t)len > r->f->size - (uint64_t)off)
        return err_set(err, SQE_ERR_INVALID_FILE, "Invalid Parquet file %s: page index outside the file",
                       r->f->path);
    void *buf = arena_alloc(&r->a, (size_t)len);
    if (!buf) return err_nomem(err, "Parquet page index");
    ranges[(*n)++] = (io_range){(uint64_t)off, (size_t)len, buf};
    return SQE_OK;
}

static bool has_page_index(const pq_row_group *rg, const pq_predicate *p) {
    if (!p->leaf || p->leaf->kind != PQ_NODE_LEAF || p->leaf->max_rep || p->leaf->parent)
        return false;
    const pq_column_chunk *cc = &rg->columns[p->leaf->leaf];
    return cc->has_offset_index && cc->has_column_index;
}

/* Row ranges the page indexes of the predicate columns allow; no ranges (has_ranges false)
 * when no predicate column has a page index. Every index is fetched in one io_read_many (one
 * round of requests on an object store). A malformed page index is ignored (the pages are
 * then all read), since the data itself may still be fine. */
static int select_pages(pq_rg_reader *r, const pq_predicate *preds, uint32_t n_preds, sqe_error *err) {
    const pq_row_group *rg = &r->f->meta->row_groups[r->g];
    io_range *ranges = arena_alloc(&r->a, (2 * (size_t)n_preds + 1) * sizeof *ranges);
    int32_t *first = arena_alloc(&r->a, ((size_t)n_preds + 1) * sizeof *first);
    if (!ranges || !first) return err_nomem(err, "Parquet page index");
    uint32_t n = 0;
    sqe_error ignored;
    for (uint32_t i = 0; i < n_preds; i++) {
        first[i] = -1;
        if (!has_page_index(rg, &preds[i])) continue;
        const pq_column_chunk *cc = &rg->columns[preds[i].leaf->leaf];
        uint32_t before = n;
        if (add_index_range(r, cc->column_index_offset, cc->column_index_length, ranges, &n,
                            &ignored) ||
            add_index_range(r, cc->offset_index_offset, cc->offset_index_length, ranges, &n,
                            &ignored)) {
            n = before; /* a malformed index is skipped */
            continue;
        }
        first[i] = (int32_t)before;
    }
    if (n == 0) return SQE_OK;
    io_file *io = NULL;
    int rc = io_open_known(r->f->path, r->f->id, r->f->size, r->f->version, &io, err);
    if (rc == SQE_OK) rc = io_read_many(io, ranges, n, err);
    io_close(io);
    for (uint32_t i = 0; i < n_preds && rc == SQE_OK; i++) {
        if (first[i] < 0) continue;
        const pq_predicate *p = &preds[i];
        const io_range *ci = &ranges[first[i]], *oi = &ranges[first[i] + 1];
        pq_page_index pi;
        pq_row_ranges sel;
        if (pq_page_index_decode(&r->a, ci->buf, ci->len, oi->buf, oi->len, &pi, &ignored) ||
            pq_page_index_select(&r->a, &pi, p->leaf, r->f->meta, rg->num_rows, p, &sel, &ignored))
            continue;
        if (!r->has_ranges) {
            r->ranges = sel;
            r->has_ranges = true;
        } else {
            rc = pq_row_ranges_intersect(&r->a, &r->ranges, &sel, &r->ranges, err);
        }
    }
    if (rc == SQE_OK && r->has_ranges)
        r->skipped = rg->num_rows - pq_row_ranges_count(&r->ranges);
    return rc;
}

static int cmp_range(const void *a, const void *b) {
    const byte_range *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* parquet-mr before 1.2.9 left the dictionary page header out of total_compressed_size
 * (PARQUET-816, IMPALA-694); readers compensate with up to 100 bytes. */
static bool needs_dictionary_padding(const char *created_by) {
    if (!created_by || strncmp(created_by, "parquet-mr", 10) != 0) return false;
    const char *v = strstr(created_by, "version ");
    int major = 0, minor = 0, patch = 0;
    if (!v || sscanf(v + 8, "%d.%d.%d", &major, &minor, &patch) < 2) return true;
    if (major != 1) return major < 1;
    if (minor != 2) return minor < 2;
    return patch < 9;
}

/* The byte range of a column chunk, checked against the file. */
static int chunk_range(pq_rg_reader *r, uint32_t leaf, byte_range *out, sqe_error *err) {
    const pq_column_chunk *cc = &r->f->meta->row_groups[r->g].columns[leaf];
    char path[256];
    pq_node_path(r->f->schema->leaves[leaf], path, sizeof path);
    if (cc->has_crypto_metadata)
        return err_set(err, SQE_ERR_NOT_SUPPORTED, "unsupported: encrypted Parquet columns (file %s, column %s)",
                       r->f->path, path);
    if (cc->file_path)
        return err_set(err, SQE_ERR_NOT_SUPPORTED,
                       "unsupported: Parquet column chunks stored in another file (file %s, column %s)",
                       r->f->path, path);
    if (!cc->has_meta_data)
        return err_set(err, SQE_ERR_INVALID_FILE,
                       "Invalid Parquet file %s: column %s has no metadata in row group %u",
                       r->f->path, path, r->g);
    const pq_column_meta *cm = &cc->meta_data;
    int64_t start = cm->data_page_offset;
    if (cm->has_dictionary_page_offset && cm->dictionary_page_offset > 0 &&
        cm->dictionary_page_offset < start)
        start = cm->dictionary_page_offset;
    int64_t len = cm->total_compressed_size;
    if (start < 4 || len < 0 || (uint64_t)start > r->f->size || (uint64_t)len > r->f->size - (uint64_t)start)
        return err_set(err, SQE_ERR_INVALID_FILE,
                       "Invalid Parquet file %s: column %s of row group %u lies outside the file",
                       r->f->path, path, r->g);
    if (needs_dictionary_padding(r->f->meta->created_by)) {
        uint64_t room = r->f->size - (uint64_t)start - (uint64_t)len;
        len += (int64_t)(room < 100 ? room : 100);
    }
    *out = (byte_range){(uint64_t)start, (uint64_t)len, leaf};
    return SQE_OK;
}

static void mark_leaves(const pq_node *n, bool *used) {
    if (n->kind == PQ_NODE_LEAF) {
        used[n->leaf] = true;
        return;
    }
    for (uint32_t i = 0; i < n->n_children; i++) mark_leaves(n->children[i], used);
}

static bool is_flat(const pq_node *n) { return n->kind == PQ_NODE_LEAF && n->max_rep == 0 && !n->parent; }

/* Reads the column chunks of the used leaves: nearby chunks are merged into one buffer (gaps
 * up to COALESCE_GAP), and all buffers are fetched in one io_read_many (in parallel on an
 * object store, without a HEAD: size and version come from the cached footer). */
static int read_chunks(pq_rg_reader *r, const bool *used, sqe_error *err) {
    const pq_schema *s = r->f->schema;
    byte_range *ranges = calloc(s->n_leaves ? s->n_leaves : 1, sizeof *ranges);
    io_range *reads = calloc(s->n_leaves ? s->n_leaves : 1, sizeof *reads);
    uint32_t *group_end = calloc(s->n_leaves ? s->n_leaves : 1, sizeof *group_end);
    if (!ranges || !reads || !group_end) {
        free(ranges);
        free(reads);
        free(group_end);
        return err_nomem(err, "Parquet ranges");
    }
    uint32_t n = 0, n_reads = 0;
    int rc = SQE_OK;
    for (uint32_t l = 0; l < s->n_leaves && !rc; l++)
        if (used[l]) rc = chunk_range(r, l, &ranges[n++], err);
    if (!rc) qsort(ranges, n, sizeof *ranges, cmp_range);
    r->bufs = calloc(n ? n : 1, sizeof *r->bufs);
    if (!rc && !r->bufs) rc = err_nomem(err, "Parquet buffers");
    for (uint32_t i = 0; i < n && !rc;) {
        uint64_t start = ranges[i].start, end = start + ranges[i].len;
        uint32_t j = i + 1;
        while (j < n && ranges[j].start <= end + COALESCE_GAP) {
            uint64_t e = ranges[j].start + ranges[j].len;
            if (e > end) end = e;
            j++;
        }
        uint8_t *buf = mem_alloc(r->tracker, end - start ? end - start : 1, err);
        if (!buf) {
            rc = err ? err->code : SQE_ERR_OUT_OF_MEMORY;
            break;
        }
        r->bufs[r->n_bufs++] = buf;
        reads[n_reads] = (io_range){start, end - start, buf};
        group_end[n_reads++] = j;
        i = j;
    }
    io_file *io = NULL;
    if (!rc && n) rc = io_open_known(r->f->path, r->f->id, r->f->size, r->f->version, &io, err);
    if (!rc && n) rc = io_read_many(io, reads, n_reads, err);
    io_close(io);
    for (uint32_t g = 0, i = 0; g < n_reads && !rc; g++) {
        for (; i < group_end[g] && !rc; i++) {
            const pq_column_chunk *cc = &r->f->meta->row_groups[r->g].columns[ranges[i].leaf];
            rc = pq_column_open(s->leaves[ranges[i].leaf], &cc->meta_data,
                                (uint8_t *)reads[g].buf + (ranges[i].start - reads[g].off),
                                ranges[i].len, r->f->path, r->tracker,
                                &r->readers[ranges[i].leaf], err);
        }
    }
    free(ranges);
    free(reads);
    free(group_end);
    return rc;
}

int pq_rg_open(pq_file *f, uint32_t g, const uint32_t *columns, uint32_t n_columns,
               const pq_predicate *preds, uint32_t n_preds, mem_tracker *tracker,
               pq_rg_reader **out, sqe_error *err) {
    *out = NULL;
    if (g >= f->meta->n_row_groups)
        return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "row group %u out of range", g);
    pq_rg_reader *r = calloc(1, sizeof *r);
    if (!r) return err_nomem(err, "Parquet reader");
    r->f = f;
    r->g = g;
    r->tracker = tracker;
    arena_init(&r->a, tracker);
    r->n_cols = n_columns;
    r->rows_left = f->meta->row_groups[g].num_rows;
    const pq_schema *s = f->schema;
    r->cols = calloc(n_columns ? n_columns : 1, sizeof *r->cols);
    r->readers = calloc(s->n_leaves ? s->n_leaves : 1, sizeof *r->readers);
    r->assemblers = calloc(n_columns ? n_columns : 1, sizeof *r->assemblers);
    bool *used = calloc(s->n_leaves ? s->n_leaves : 1, sizeof *used);
    int rc = r->cols && r->readers && r->assemblers && used ? SQE_OK : err_nomem(err, "Parquet reader");
    for (uint32_t i = 0; i < n_columns && !rc; i++) {
        if (columns[i] >= s->n_columns) {
            rc = err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "Parquet column %u out of range", columns[i]);
            break;
        }
        const pq_node *c = s->columns[columns[i]];
        if (c->unsupported) {
            rc = err_set(err, SQE_ERR_NOT_SUPPORTED, "unsupported: %s (file %s, column %s)",
                         c->unsupported, f->path, c->name);
            break;
        }
        r->cols[i] = c;
        mark_leaves(c, used);
    }
    if (!rc) rc = read_chunks(r, used, err);
    for (uint32_t i = 0; i < n_columns && !rc; i++)
        if (!is_flat(r->cols[i]))
            rc = pq_assemble_open(r->cols[i], r->readers, f->path, tracker, &r->assemblers[i], err);
    free(used);
    bool all_flat = true;
    for (uint32_t i = 0; i < n_columns && !rc; i++) all_flat = all_flat && is_flat(r->cols[i]);
    if (!rc && all_flat && n_preds) rc = select_pages(r, preds, n_preds, err);
    if (rc) {
        pq_rg_close(r);
        return rc;
    }
    *out = r;
    return SQE_OK;
}

/* Page pruning: moves every column reader to the next selected row; returns the rows readable
 * from there (0 when no range is left). */
static int next_range(pq_rg_reader *r, int64_t *avail, sqe_error *err) {
    while (r->range_idx < r->ranges.n && r->row >= r->ranges.end[r->range_idx]) r->range_idx++;
    if (r->range_idx >= r->ranges.n) {
        *avail = 0;
        return SQE_OK;
    }
    int64_t begin = r->ranges.begin[r->range_idx];
    if (r->row < begin) {
        for (uint32_t i = 0; i < r->n_cols; i++)
            SQE_TRY(pq_column_skip_flat(r->readers[r->cols[i]->leaf], (uint64_t)(begin - r->row), err));
        r->row = begin;
    }
    *avail = r->ranges.end[r->range_idx] - r->row;
    return SQE_OK;
}

int pq_rg_next(pq_rg_reader *r, vec_chunk *out, sqe_error *err) {
    out->count = 0;
    if (r->rows_left <= 0) return SQE_OK;
    uint32_t n = out->capacity;
    if ((int64_t)n > r->rows_left) n = (uint32_t)r->rows_left;
    for (uint32_t l = 0; l < r->f->schema->n_leaves; l++)
        if (r->readers[l]) pq_column_batch_begin(r->readers[l]);
    if (r->has_ranges) {
        int64_t avail;
        SQE_TRY(next_range(r, &avail, err));
        if (avail == 0) {
            r->rows_left = 0;
            return SQE_OK;
        }
        if ((int64_t)n > avail) n = (uint32_t)avail;
    }
    for (uint32_t i = 0; i < r->n_cols; i++) {
        if (r->assemblers[i])
            SQE_TRY(pq_assemble_next(r->assemblers[i], &out->cols[i], n, err));
        else
            SQE_TRY(pq_column_read_flat(r->readers[r->cols[i]->leaf], &out->cols[i], n, err));
    }
    r->rows_left -= n;
    r->row += n;
    out->count = n;
    return SQE_OK;
}
