/*
 * pq_page_index.c: the Parquet page index (PageIndex.md): decoding a chunk's ColumnIndex and
 * OffsetIndex, choosing the rows of the pages that may satisfy a predicate, and set operations
 * on the resulting row ranges.
 *
 * INTERFACE
 *   pq_page_index_decode       OffsetIndex (+ optional ColumnIndex) -> pq_page_index
 *   pq_page_index_page_rows    row span of one page
 *   pq_page_index_select       rows of the pages that may match a predicate
 *   pq_row_ranges_all, pq_row_ranges_intersect, pq_row_ranges_union
 *   pq_row_ranges_count, pq_row_ranges_overlaps
 * NOTES
 *   Both structures are hostile input: list lengths come from the Thrift reader (bounded by the
 *   bytes left), every list must have one entry per page, first rows must start at 0 and
 *   increase strictly, offsets must not decrease. The decoded arrays take at most ~60 bytes
 *   per page, and every page costs at least 3 encoded bytes, so allocation stays a small
 *   multiple of the input. Bounds are not copied: they point into the ColumnIndex bytes.
 *   Page selection is a linear scan: boundary_order is decoded but not used for binary search
 *   (a reader "cannot assume that max_values[i] <= min_values[i+1]", and a scan per page is
 *   cheap next to reading the page). A page is dropped only when its null_pages flag, null
 *   count or bounds prove it; min/max are used under the same trust rules as chunk statistics
 *   (ColumnOrder TYPE_ORDER required, see pq_stats.c) and a page whose bounds do not decode
 *   (absent, NaN, wrong size) is kept. Adjacent kept pages merge into one range.
 */
#include "format/parquet/pq_prune.h"

#include <string.h>

#include "format/parquet/thrift.h"

/* ---- decoding ------------------------------------------------------------------------------ */

static int pi_fail(pq_thrift_reader *r, sqe_error *err, const char *what) {
    /* The Thrift reader reports "Invalid Parquet metadata: ..."; page index errors say where. */
    if (!r->failed) {
        r->failed = 1;
        return err_set(err, SQE_ERR_INVALID_FILE, "Invalid Parquet page index: %s", what);
    }
    return SQE_ERR_INVALID_FILE;
}

static void *pi_alloc(arena *a, size_t n, sqe_error *err) {
    void *p = arena_zalloc(a, n ? n : 1);
    if (!p) err_nomem(err, "Parquet page index");
    return p;
}

/* Reads a list header of the given element type (bool lists accept either bool wire type). */
static int read_list_header(pq_thrift_reader *r, int want, uint32_t *n, sqe_error *err) {
    int et;
    SQE_TRY(pq_thrift_list_header(r, &et, n));
    bool ok = et == want || (want == PQ_THRIFT_BOOL_TRUE && et == PQ_THRIFT_BOOL_FALSE);
    if (!ok && *n > 0) return pi_fail(r, err, "unexpected list element type");
    return SQE_OK;
}

/* parquet.thrift: PageLocation. */
static int decode_page_location(pq_thrift_reader *r, int64_t *offset, int32_t *size,
                                int64_t *first_row, sqe_error *err) {
    bool has_offset = false, has_size = false, has_first = false;
    SQE_TRY(pq_thrift_struct_begin(r));
    for (;;) {
        int t;
        int16_t fid;
        SQE_TRY(pq_thrift_field_header(r, &t, &fid));
        if (t == PQ_THRIFT_STOP) break;
        if (fid == 1 && t == PQ_THRIFT_I64) {
            SQE_TRY(pq_thrift_read_i64(r, offset));
            has_offset = true;
        } else if (fid == 2 && t == PQ_THRIFT_I32) {
            SQE_TRY(pq_thrift_read_i32(r, size));
            has_size = true;
        } else if (fid == 3 && t == PQ_THRIFT_I64) {
            SQE_TRY(pq_thrift_read_i64(r, first_row));
            has_first = true;
        } else {
            SQE_TRY(pq_thrift_skip(r, t));
        }
    }
    pq_thrift_struct_end(r);
    if (!has_offset || !has_size || !has_first)
        return pi_fail(r, err, "PageLocation without offset, size or first row");
    return SQE_OK;
}

/* parquet.thrift: OffsetIndex (unencoded_byte_array_data_bytes is skipped). */
static int decode_offset_index(arena *a, const uint8_t *buf, size_t len, pq_page_index *out,
                               sqe_error *err) {
    pq_thrift_reader r;
    bool has_locations = false;
    pq_thrift_init(&r, buf, len, err);
    SQE_TRY(pq_thrift_struct_begin(&r));
    for (;;) {
        int t;
        int16_t fid;
        SQE_TRY(pq_thrift_field_header(&r, &t, &fid));
        if (t == PQ_THRIFT_STOP) break;
        if (fid == 1 && t == PQ_THRIFT_LIST && !has_locations) {
            uint32_t n;
            SQE_TRY(read_list_header(&r, PQ_THRIFT_STRUCT, &n, err));
            out->offset = pi_alloc(a, (size_t)n * sizeof(int64_t), err);
            out->compressed_size = pi_alloc(a, (size_t)n * sizeof(int32_t), err);
            out->first_row = pi_alloc(a, (size_t)n * sizeof(int64_t), err);
            if (!out->offset || !out->compressed_size || !out->first_row)
                return SQE_ERR_OUT_OF_MEMORY;
            out->n_pages = n;
            for (uint32_t i = 0; i < n; i++)
                SQE_TRY(decode_page_location(&r, &out->offset[i], &out->compressed_size[i],
                                             &out->first_row[i], err));
            has_locations = true;
        } else {
            SQE_TRY(pq_thrift_skip(&r, t));
        }
    }
    pq_thrift_struct_end(&r);
    if (!has_locations) return pi_fail(&r, err, "OffsetIndex without page_locations");
    for (uint32_t i = 0; i < out->n_pages; i++) {
        if (out->offset[i] < 0 || out->compressed_size[i] <= 0 ||
            out->offset[i] > INT64_MAX - out->compressed_size[i])
            return pi_fail(&r, err, "page location out of range");
        if (i == 0 ? out->first_row[0] != 0 : out->first_row[i] <= out->first_row[i - 1])
            return pi_fail(&r, err, "page first rows do not start at 0 and increase");
        if (i > 0 && out->offset[i] < out->offset[i - 1])
            return pi_fail(&r, err, "page offsets decrease");
    }
    return SQE_OK;
}

/* parquet.thrift: ColumnIndex (histograms and nan_counts are skipped). n_pages comes from the
 * OffsetIndex, and every list must match it. */
static int decode_column_index(arena *a, const uint8_t *buf, size_t len, pq_page_index *out,
                               sqe_error *err) {
    pq_thrift_reader r;
    uint32_t n_pages = out->n_pages;
    bool has_nulls = false, has_min = false, has_max = false, has_order = false, has_counts = false;
    pq_thrift_init(&r, buf, len, err);
    out->null_page = pi_alloc(a, (size_t)n_pages * sizeof(bool), err);
    out->min = pi_alloc(a, (size_t)n_pages * sizeof(pq_bytes), err);
    out->max = pi_alloc(a, (size_t)n_pages * sizeof(pq_bytes), err);
    out->null_count = pi_alloc(a, (size_t)n_pages * sizeof(int64_t), err);
    if (!out->null_page || !out->min || !out->max || !out->null_count)
        return SQE_ERR_OUT_OF_MEMORY;
    SQE_TRY(pq_thrift_struct_begin(&r));
    for (;;) {
        int t;
        int16_t fid;
        uint32_t n;
        SQE_TRY(pq_thrift_field_header(&r, &t, &fid));
        if (t == PQ_THRIFT_STOP) break;
        if (fid == 1 && t == PQ_THRIFT_LIST && !has_nulls) {
            SQE_TRY(read_list_header(&r, PQ_THRIFT_BOOL_TRUE, &n, err));
            if (n != n_pages) return pi_fail(&r, err, "null_pages length differs from pages");
            for (uint32_t i = 0; i < n; i++)
                SQE_TRY(pq_thrift_read_bool_elem(&r, &out->null_page[i]));
            has_nulls = true;
        } else if ((fid == 2 || fid == 3) && t == PQ_THRIFT_LIST &&
                   !(fid == 2 ? has_min : has_max)) {
            pq_bytes *dst = fid == 2 ? out->min : out->max;
            SQE_TRY(read_list_header(&r, PQ_THRIFT_BINARY, &n, err));
            if (n != n_pages) return pi_fail(&r, err, "min/max list length differs from pages");
            for (uint32_t i = 0; i < n; i++) {
                const uint8_t *data;
                size_t data_len;
                SQE_TRY(pq_thrift_read_binary(&r, &data, &data_len));
                if (data_len > UINT32_MAX) return pi_fail(&r, err, "bound too long");
                dst[i].ptr = data;
                dst[i].len = (uint32_t)data_len;
            }
            if (fid == 2) has_min = true; else has_max = true;
        } else if (fid == 4 && t == PQ_THRIFT_I32 && !has_order) {
            SQE_TRY(pq_thrift_read_i32(&r, &out->boundary_order));
            has_order = true;
        } else if (fid == 5 && t == PQ_THRIFT_LIST && !has_counts) {
            SQE_TRY(read_list_header(&r, PQ_THRIFT_I64, &n, err));
            if (n != n_pages) return pi_fail(&r, err, "null_counts length differs from pages");
            for (uint32_t i = 0; i < n; i++) {
                SQE_TRY(pq_thrift_read_i64(&r, &out->null_count[i]));
                if (out->null_count[i] < 0) return pi_fail(&r, err, "negative null count");
            }
            has_counts = true;
        } else {
            SQE_TRY(pq_thrift_skip(&r, t));
        }
    }
    pq_thrift_struct_end(&r);
    if (!has_nulls || !has_min || !has_max || !has_order)
        return pi_fail(&r, err, "ColumnIndex without null_pages, min/max values or boundary order");
    if (!has_counts)
        for (uint32_t i = 0; i < n_pages; i++) out->null_count[i] = -1;
    out->has_column_index = true;
    return SQE_OK;
}

int pq_page_index_decode(arena *a, const uint8_t *column_index, size_t ci_len,
                         const uint8_t *offset_index, size_t oi_len, pq_page_index *out,
                         sqe_error *err) {
    memset(out, 0, sizeof(*out));
    if (!offset_index || oi_len == 0)
        return err_set(err, SQE_ERR_INVALID_FILE, "Invalid Parquet page index: no OffsetIndex");
    int rc = decode_offset_index(a, offset_index, oi_len, out, err);
    if (rc == SQE_OK && column_index && ci_len > 0)
        rc = decode_column_index(a, column_index, ci_len, out, err);
    if (rc != SQE_OK) memset(out, 0, sizeof(*out));
    return rc;
}

/* ---- page selection ------------------------------------------------------------------------ */

void pq_page_index_page_rows(const pq_page_index *pi, uint32_t page_idx, int64_t rg_rows,
                             int64_t *begin, int64_t *end) {
    *begin = pi->first_row[page_idx];
    *end = page_idx + 1 < pi->n_pages ? pi->first_row[page_idx + 1] : rg_rows;
}

static bool column_order_defined(const pq_file_meta *meta, const pq_node *leaf) {
    return meta && meta->column_orders && leaf->leaf < meta->n_column_orders &&
           meta->column_orders[leaf->leaf] == PQ_ORDER_TYPE_DEFINED;
}

/* May page i (rows rows, bounds usable when use_bounds) hold a row satisfying p? */
static bool page_may_match(const pq_page_index *pi, uint32_t i, int64_t rows, bool use_bounds,
                           const pq_predicate *p) {
    const pq_node *leaf = p->leaf;
    if (leaf->conv == PQ_CONV_NULL) return p->op == PQ_PRED_IS_NULL;
    if (p->op == PQ_PRED_IS_NULL && leaf->max_def == 0) return false;
    if (!pi->has_column_index) return true;
    bool null_page = pi->null_page[i];
    int64_t nulls = pi->null_count[i];
    bool all_null = null_page || (nulls >= 0 && nulls == rows);
    switch (p->op) {
    case PQ_PRED_IS_NULL: return null_page || nulls != 0;
    case PQ_PRED_IS_NOT_NULL: return !all_null;
    default: break;
    }
    if (all_null) return false;
    if (!use_bounds) return true;
    pq_bound lo, hi;
    if (!pq_bound_from_plain(leaf, pi->min[i].ptr, pi->min[i].len, &lo)) return true;
    if (!pq_bound_from_plain(leaf, pi->max[i].ptr, pi->max[i].len, &hi)) return true;
    return pq_bounds_may_match(&lo, &hi, p);
}

int pq_page_index_select(arena *a, const pq_page_index *pi, const pq_node *leaf,
                         const pq_file_meta *meta, int64_t rg_rows, const pq_predicate *p,
                         pq_row_ranges *out, sqe_error *err) {
    memset(out, 0, sizeof(*out));
    if (rg_rows <= 0) return SQE_OK;
    if (pi->n_pages == 0)
        return err_set(err, SQE_ERR_INVALID_FILE, "Invalid Parquet page index: no pages");
    if (pi->first_row[pi->n_pages - 1] >= rg_rows)
        return err_set(err, SQE_ERR_INVALID_FILE,
                       "Invalid Parquet page index: page starts past the row group's rows");
    int64_t *begin = arena_alloc(a, (size_t)pi->n_pages * sizeof(int64_t));
    int64_t *end = arena_alloc(a, (size_t)pi->n_pages * sizeof(int64_t));
    if (!begin || !end) return err_nomem(err, "Parquet page selection");
    bool usable = leaf && leaf->kind == PQ_NODE_LEAF && leaf->max_rep == 0 && !leaf->unsupported &&
                  p && p->leaf == leaf;
    bool use_bounds = usable && column_order_defined(meta, leaf) &&
                      pq_leaf_sort_order(leaf) != PQ_SORT_UNKNOWN;
    uint32_t n = 0;
    for (uint32_t i = 0; i < pi->n_pages; i++) {
        int64_t b, e;
        pq_page_index_page_rows(pi, i, rg_rows, &b, &e);
        if (usable && !page_may_match(pi, i, e - b, use_bounds, p)) continue;
        if (n > 0 && end[n - 1] == b) {
            end[n - 1] = e;
        } else {
            begin[n] = b;
            end[n] = e;
            n++;
        }
    }
    out->n = n;
    out->begin = begin;
    out->end = end;
    return SQE_OK;
}

/* ---- row ranges ---------------------------------------------------------------------------- */

int pq_row_ranges_all(arena *a, int64_t rg_rows, pq_row_ranges *out, sqe_error *err) {
    memset(out, 0, sizeof(*out));
    if (rg_rows <= 0) return SQE_OK;
    out->begin = arena_alloc(a, sizeof(int64_t));
    out->end = arena_alloc(a, sizeof(int64_t));
    if (!out->begin || !out->end) {
        memset(out, 0, sizeof(*out));
        return err_nomem(err, "Parquet row ranges");
    }
    out->begin[0] = 0;
    out->end[0] = rg_rows;
    out->n = 1;
    return SQE_OK;
}

/* Appends [b, e) to the ranges being built, merging with the last one when they touch. */
static void ranges_push(int64_t *begin, int64_t *end, uint32_t *n, int64_t b, int64_t e) {
    if (b >= e) return;
    if (*n > 0 && end[*n - 1] >= b) {
        if (e > end[*n - 1]) end[*n - 1] = e;
        return;
    }
    begin[*n] = b;
    end[*n] = e;
    (*n)++;
}

int pq_row_ranges_intersect(arena *a, const pq_row_ranges *x, const pq_row_ranges *y,
                            pq_row_ranges *out, sqe_error *err) {
    size_t cap = (size_t)x->n + y->n;
    int64_t *begin = arena_alloc(a, (cap ? cap : 1) * sizeof(int64_t));
    int64_t *end = arena_alloc(a, (cap ? cap : 1) * sizeof(int64_t));
    if (!begin || !end) return err_nomem(err, "Parquet row ranges");
    uint32_t n = 0, i = 0, j = 0;
    while (i < x->n && j < y->n) {
        int64_t b = x->begin[i] > y->begin[j] ? x->begin[i] : y->begin[j];
        int64_t e = x->end[i] < y->end[j] ? x->end[i] : y->end[j];
        ranges_push(begin, end, &n, b, e);
        if (x->end[i] < y->end[j])
            i++;
        else
            j++;
    }
    out->n = n;
    out->begin = begin;
    out->end = end;
    return SQE_OK;
}

int pq_row_ranges_union(arena *a, const pq_row_ranges *x, const pq_row_ranges *y,
                        pq_row_ranges *out, sqe_error *err) {
    size_t cap = (size_t)x->n + y->n;
    int64_t *begin = arena_alloc(a, (cap ? cap : 1) * sizeof(int64_t));
    int64_t *end = arena_alloc(a, (cap ? cap : 1) * sizeof(int64_t));
    if (!begin || !end) return err_nomem(err, "Parquet row ranges");
    uint32_t n = 0, i = 0, j = 0;
    while (i < x->n || j < y->n) {
        bool take_x = j >= y->n || (i < x->n && x->begin[i] <= y->begin[j]);
        if (take_x) {
            ranges_push(begin, end, &n, x->begin[i], x->end[i]);
            i++;
        } else {
            ranges_push(begin, end, &n, y->begin[j], y->end[j]);
            j++;
        }
    }
    out->n = n;
    out->begin = begin;
    out->end = end;
    return SQE_OK;
}

int64_t pq_row_ranges_count(const pq_row_ranges *r) {
    int64_t total = 0;
    for (uint32_t i = 0; i < r->n; i++) total += r->end[i] - r->begin[i];
    return total;
}

bool pq_row_ranges_overlaps(const pq_row_ranges *r, int64_t begin, int64_t end) {
    if (begin >= end) return false;
    /* First range whose end is past begin. */
    uint32_t lo = 0, hi = r->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (r->end[mid] <= begin)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < r->n && r->begin[lo] < end;
}
