/*
 * pq_writer_chunk.c: encodes one leaf's staged values into a column chunk in memory: the
 * dictionary decision, data pages, page and chunk statistics, the ColumnIndex and the bloom
 * filter.
 *
 * INTERFACE (pq_writer_int.h)
 *   pqw_encode_leaf    staged values of a leaf -> leaf->chunk and its page list
 * NOTES
 *   - When dictionaries are on, all values of the chunk go through the dictionary builder
 *     first; the chunk is dictionary-encoded (a PLAIN dictionary page, then RLE_DICTIONARY data
 *     pages) only if the dictionary stays under dictionary_page_bytes and dictionary + indices
 *     are smaller than PLAIN; otherwise every page is PLAIN (the fallback is per column chunk;
 *     the next row group tries the dictionary again). Building stops early for (nearly) unique
 *     columns: a batch of 8192 values that is over 90% new while the dictionary is already no
 *     smaller than PLAIN. Sorted INT32/INT64 columns with short runs (keys) skip the dictionary:
 *     PLAIN compresses them far better. Pages are data page v1 ([rep levels][def levels]
 *     [values], levels RLE with a 4-byte length) cut at row boundaries after page_rows rows or
 *     page_bytes of values.
 *   - Statistics (parquet.thrift Statistics, ColumnOrder TYPE_ORDER): per page min/max/null
 *     count, folded into chunk bounds (exact, pointing into staging; pq_writer_rowgroup.c
 *     truncates them for the footer); page bounds of byte arrays are cut to statistics_truncate
 *     bytes (UTF-8 aware for strings, upper bounds rounded up). A chunk where some page holds
 *     only NaNs gets no ColumnIndex (as the spec says).
 *   - Bloom filters (BloomFilter.md): split-block filters for dictionary-encoded chunks only,
 *     built from the dictionary (its size is the exact distinct count, so the filter is sized
 *     right and costs one hash per distinct value); unique columns get none, as their filter
 *     would be as large as the data.
 *   - Runs on the encoding threads: it touches only its leaf and its worker's scratch.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "format/parquet/pq_writer_int.h"

#define DICT_BATCH 8192       /* values per dictionary batch (see pqw_encode_leaf) */

/* ---- statistics helpers ---------------------------------------------------------------------- */

/* Compares two PLAIN-encoded bounds of leaf l in its column order. */
static int stat_cmp(const leaf *l, const uint8_t *a, size_t a_len, const uint8_t *b, size_t b_len) {
    switch (l->phys) {
    case PQ_TYPE_BOOLEAN:
        return (int)a[0] - (int)b[0];
    case PQ_TYPE_INT32: {
        int32_t x, y;
        memcpy(&x, a, 4);
        memcpy(&y, b, 4);
        return (x > y) - (x < y);
    }
    case PQ_TYPE_INT64: {
        int64_t x, y;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        return (x > y) - (x < y);
    }
    case PQ_TYPE_FLOAT: {
        float x, y;
        memcpy(&x, a, 4);
        memcpy(&y, b, 4);
        return (x > y) - (x < y);
    }
    case PQ_TYPE_DOUBLE: {
        double x, y;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        return (x > y) - (x < y);
    }
    case PQ_TYPE_FIXED_LEN_BYTE_ARRAY:
        return l->flba_signed ? pq_compare_be_signed(a, b, l->width) : memcmp(a, b, l->width);
    default:
        return pq_compare_bytes(a, a_len, b, b_len);
    }
}

static int bound_cmp(const leaf *l, const bound *a, const bound *b) {
    return stat_cmp(l, bound_data(a), a->len, bound_data(b), b->len);
}

/* Exact min/max of the nv staged values starting at value vp (bytes_at: the first one's bytes
 * for byte arrays). Returns false when there is no bound (every value NaN). */
static bool value_bounds(const leaf *l, size_t vp, size_t nv, const uint8_t *bytes_at, bound *mn,
                         bound *mx) {
    memset(mn, 0, sizeof(*mn));
    memset(mx, 0, sizeof(*mx));
    const uint8_t *v = l->vals.data;
    switch (l->phys) {
    case PQ_TYPE_BOOLEAN:
        pq_minmax_bool(v + vp, nv, &mn->num[0], &mx->num[0]);
        mn->len = mx->len = 1;
        return true;
    case PQ_TYPE_INT32: {
        int32_t a, b;
        pq_minmax_i32((const int32_t *)(const void *)v + vp, nv, &a, &b);
        memcpy(mn->num, &a, 4);
        memcpy(mx->num, &b, 4);
        mn->len = mx->len = 4;
        return true;
    }
    case PQ_TYPE_INT64: {
        int64_t a, b;
        pq_minmax_i64((const int64_t *)(const void *)v + vp, nv, &a, &b);
        memcpy(mn->num, &a, 8);
        memcpy(mx->num, &b, 8);
        mn->len = mx->len = 8;
        return true;
    }
    case PQ_TYPE_FLOAT: {
        float a, b;
        if (!pq_minmax_f32((const float *)(const void *)v + vp, nv, &a, &b)) return false;
        memcpy(mn->num, &a, 4);
        memcpy(mx->num, &b, 4);
        mn->len = mx->len = 4;
        return true;
    }
    case PQ_TYPE_DOUBLE: {
        double a, b;
        if (!pq_minmax_f64((const double *)(const void *)v + vp, nv, &a, &b)) return false;
        memcpy(mn->num, &a, 8);
        memcpy(mx->num, &b, 8);
        mn->len = mx->len = 8;
        return true;
    }
    case PQ_TYPE_FIXED_LEN_BYTE_ARRAY:
        pq_minmax_flba(v + vp * l->width, nv, l->width, l->flba_signed, &mn->ptr, &mx->ptr);
        mn->len = mx->len = l->width;
        return true;
    default: {
        pq_bytes a, b;
        pq_minmax_bytes((const uint32_t *)(const void *)l->lens.data + vp, bytes_at, nv, &a, &b);
        /* a zero-length value still needs a non-NULL pointer to mark "not in num" */
        mn->ptr = a.len ? a.ptr : (const uint8_t *)"";
        mx->ptr = b.len ? b.ptr : (const uint8_t *)"";
        mn->len = a.len;
        mx->len = b.len;
        return true;
    }
    }
}

/* ---- column chunk encoding -------------------------------------------------------------------- */

/* Compresses a page body and appends header + body to l->chunk. */
static int write_page(const pq_writer *w, worker *wk, leaf *l, int page_type, const uint8_t *body,
                      size_t body_len, size_t num_values, int encoding, uint64_t *page_off,
                      uint32_t *page_size, sqe_error *err) {
    const uint8_t *stored = body;
    size_t stored_len = body_len;
    if (w->o.codec != PQ_CODEC_UNCOMPRESSED) {
        pq_buf_clear(&wk->comp);
        SQE_TRY(pq_compressor_run(&wk->codec, body, body_len, &wk->comp, err));
        stored = wk->comp.data;
        stored_len = wk->comp.len;
    }
    if (body_len > INT32_MAX - 1024 || stored_len > INT32_MAX - 1024 || num_values > INT32_MAX)
        return err_set(err, SQE_ERR_NOT_SUPPORTED, "unsupported: Parquet page larger than 2 GiB");
    pq_page_header h;
    memset(&h, 0, sizeof(h));
    h.type = page_type;
    h.uncompressed_page_size = (int32_t)body_len;
    h.compressed_page_size = (int32_t)stored_len;
    if (w->o.write_crc) {
        h.has_crc = true;
        h.crc = (int32_t)pq_crc32(stored, stored_len);
    }
    if (page_type == PQ_PAGE_DICTIONARY) {
        h.has_dictionary_page_header = true;
        h.dictionary_page_header.num_values = (int32_t)num_values;
        h.dictionary_page_header.encoding = PQ_ENC_PLAIN;
    } else {
        h.has_data_page_header = true;
        h.data_page_header.num_values = (int32_t)num_values;
        h.data_page_header.encoding = encoding;
        h.data_page_header.definition_level_encoding = PQ_ENC_RLE;
        h.data_page_header.repetition_level_encoding = PQ_ENC_RLE;
    }
    pq_thrift_writer_clear(&wk->hdr);
    SQE_TRY(pq_meta_encode_page_header(&wk->hdr, &h, err));
    *page_off = l->chunk.len;
    SQE_TRY(pq_buf_reserve(&l->chunk, wk->hdr.len + stored_len, err));
    memcpy(l->chunk.data + l->chunk.len, wk->hdr.buf, wk->hdr.len);
    if (stored_len) memcpy(l->chunk.data + l->chunk.len + wk->hdr.len, stored, stored_len);
    l->chunk.len += wk->hdr.len + stored_len;
    *page_size = (uint32_t)(wk->hdr.len + stored_len);
    l->uncompressed += (int64_t)(wk->hdr.len + body_len);
    return SQE_OK;
}

/* Appends levels v[0, n) as a 4-byte length and their RLE encoding (data page v1). */
static int put_levels(pq_buf *body, const uint8_t *v, size_t n, int bit_width, sqe_error *err) {
    size_t at = body->len;
    SQE_TRY(pq_buf_append_u32(body, 0, err));
    SQE_TRY(pq_rle_encode_u8(v, n, bit_width, body, err));
    uint32_t len = (uint32_t)(body->len - at - 4);
    memcpy(body->data + at, &len, 4);
    return SQE_OK;
}

/* Stores a page's bounds (byte arrays truncated) in l->page_bounds. */
static int store_page_bounds(const pq_writer *w, leaf *l, page_meta *pm, const bound *mn,
                             const bound *mx, sqe_error *err) {
    const uint8_t *a = bound_data(mn), *b = bound_data(mx);
    size_t a_len = mn->len, b_len = mx->len;
    uint8_t up[1024];
    size_t limit = w->o.statistics_truncate < sizeof up ? w->o.statistics_truncate : sizeof up;
    if (l->phys == PQ_TYPE_BYTE_ARRAY && limit >= 4) {
        a_len = pq_truncate_lower(a, a_len, limit, l->utf8);
        size_t up_len;
        if (pq_truncate_upper(b, b_len, limit, l->utf8, up, &up_len)) {
            b = up;
            b_len = up_len;
        } /* else keep the whole value: an exact upper bound */
    }
    pm->min_off = (uint32_t)l->page_bounds.len;
    pm->min_len = (uint32_t)a_len;
    SQE_TRY(pq_buf_append(&l->page_bounds, a, a_len, err));
    pm->max_off = (uint32_t)l->page_bounds.len;
    pm->max_len = (uint32_t)b_len;
    return pq_buf_append(&l->page_bounds, b, b_len, err);
}

static int new_page(leaf *l, page_meta **out, sqe_error *err) {
    if (l->n_pages == l->cap_pages) {
        uint32_t cap = l->cap_pages ? l->cap_pages * 2 : 16;
        page_meta *p = realloc(l->pages, (size_t)cap * sizeof(*p));
        if (!p) return err_nomem(err, "Parquet page list");
        l->pages = p;
        l->cap_pages = cap;
    }
    *out = &l->pages[l->n_pages++];
    memset(*out, 0, sizeof(**out));
    return SQE_OK;
}

/* Encodes the ColumnIndex of l's pages into l->column_index (left empty when a page has values
 * but no bounds, i.e. only NaNs). */
static int build_column_index(leaf *l, worker *wk, sqe_error *err) {
    pq_buf_clear(&l->column_index);
    uint32_t n = l->n_pages;
    for (uint32_t i = 0; i < n; i++)
        if (!l->pages[i].null_page && !l->pages[i].has_bounds) return SQE_OK;
    bool *nulls = calloc(n, sizeof(bool));
    pq_bytes *mins = calloc(n, sizeof(pq_bytes));
    pq_bytes *maxs = calloc(n, sizeof(pq_bytes));
    int64_t *counts = calloc(n, sizeof(int64_t));
    int rc = SQE_OK;
    if (!nulls || !mins || !maxs || !counts) {
        rc = err_nomem(err, "Parquet column index");
        goto out_free;
    }
    bool asc = true, desc = true;
    int prev = -1;
    for (uint32_t i = 0; i < n; i++) {
        const page_meta *p = &l->pages[i];
        nulls[i] = p->null_page;
        counts[i] = p->null_count;
        if (p->null_page) {
            mins[i] = maxs[i] = (pq_bytes){(const uint8_t *)"", 0};
            continue;
        }
        mins[i] = (pq_bytes){l->page_bounds.data + p->min_off, p->min_len};
        maxs[i] = (pq_bytes){l->page_bounds.data + p->max_off, p->max_len};
        if (prev >= 0) {
            int cmin = stat_cmp(l, mins[prev].ptr, mins[prev].len, mins[i].ptr, mins[i].len);
            int cmax = stat_cmp(l, maxs[prev].ptr, maxs[prev].len, maxs[i].ptr, maxs[i].len);
            if (cmin > 0 || cmax > 0) asc = false;
            if (cmin < 0 || cmax < 0) desc = false;
        }
        prev = (int)i;
    }
    int32_t order = asc    ? PQ_BOUNDARY_ASCENDING
                    : desc ? PQ_BOUNDARY_DESCENDING
                           : PQ_BOUNDARY_UNORDERED;
    pq_column_index ci = {n, nulls, mins, maxs, order, counts};
    pq_thrift_writer_clear(&wk->hdr);
    rc = pq_meta_encode_column_index(&wk->hdr, &ci, err);
    if (!rc) rc = pq_buf_append(&l->column_index, wk->hdr.buf, wk->hdr.len, err);
out_free:
    free(nulls);
    free(mins);
    free(maxs);
    free(counts);
    return rc;
}

/* For INT32/INT64 values sorted ascending: true, with the number of distinct values. Sorted
 * keys with short runs compress far better as PLAIN (the codec sees the shared high bytes) than
 * as bit-packed dictionary indices. */
static bool sorted_distinct(const leaf *l, size_t n, size_t *distinct) {
    size_t d = n ? 1 : 0;
#define SORTED_LOOP(T)                                                                             \
    do {                                                                                           \
        const T *v = (const T *)(const void *)l->vals.data;                                        \
        for (size_t i = 1; i < n; i++) {                                                           \
            if (v[i] < v[i - 1]) return false;                                                     \
            d += v[i] != v[i - 1];                                                                 \
        }                                                                                          \
    } while (0)
    if (l->phys == PQ_TYPE_INT32)
        SORTED_LOOP(int32_t);
    else if (l->phys == PQ_TYPE_INT64)
        SORTED_LOOP(int64_t);
    else
        return false;
#undef SORTED_LOOP
    *distinct = d;
    return true;
}

/* The bloom filter of a dictionary-encoded chunk: every dictionary entry hashed once, in its
 * PLAIN form (BloomFilter.md), into l->bloom (header, then bitset). */
static int build_bloom(leaf *l, worker *wk, double fpp, sqe_error *err) {
    const pq_dict *d = &wk->dict;
    uint32_t n_bytes = pq_sbbf_bytes(d->n, fpp);
    pq_thrift_writer_clear(&wk->hdr);
    SQE_TRY(pq_meta_encode_bloom_header(&wk->hdr, (int32_t)n_bytes, err));
    SQE_TRY(pq_buf_reserve(&l->bloom, wk->hdr.len + n_bytes, err));
    memcpy(l->bloom.data, wk->hdr.buf, wk->hdr.len);
    uint8_t *bits = l->bloom.data + wk->hdr.len;
    memset(bits, 0, n_bytes);
    for (uint32_t e = 0; e < d->n; e++) {
        uint64_t h;
        if (d->width) {
            h = pq_sbbf_hash(d->plain.data + (size_t)e * d->width, d->width);
        } else {
            uint32_t len;
            memcpy(&len, d->plain.data + d->offsets[e] - 4, 4);
            h = pq_sbbf_hash(d->plain.data + d->offsets[e], len);
        }
        pq_sbbf_insert(bits, n_bytes, h);
    }
    l->bloom.len = wk->hdr.len + n_bytes;
    return SQE_OK;
}

/* Encodes the staged values of l into a column chunk in l->chunk (see NOTES). */
int pqw_encode_leaf(const pq_writer *w, worker *wk, leaf *l, sqe_error *err) {
    const pq_writer_options *o = &w->o;
    pq_buf_clear(&l->chunk);
    pq_buf_clear(&l->page_bounds);
    pq_buf_clear(&l->column_index);
    pq_buf_clear(&l->bloom);
    l->n_pages = 0;
    l->has_dict = false;
    l->dict_size = 0;
    l->uncompressed = 0;
    l->has_bounds = false;
    l->null_count = (int64_t)(l->n_levels - l->n_vals);
    size_t n_levels = l->n_levels, nv_total = l->n_vals;
    if (n_levels == 0) return SQE_OK;
    bool is_ba = l->phys == PQ_TYPE_BYTE_ARRAY;
    const uint32_t *lens = is_ba ? (const uint32_t *)(const void *)l->lens.data : NULL;
    bool use_dict = o->dictionary && l->phys != PQ_TYPE_BOOLEAN && l->kind != LK_NULL && nv_total > 0;
    size_t distinct;
    if (use_dict && sorted_distinct(l, nv_total, &distinct) && distinct * 16 > nv_total)
        use_dict = false;
    int bw = 0;
    if (use_dict) {
        if (wk->idx_cap < nv_total) {
            uint32_t *p = realloc(wk->idx, nv_total * sizeof(uint32_t));
            if (!p) return err_nomem(err, "Parquet dictionary indices");
            wk->idx = p;
            wk->idx_cap = nv_total;
        }
        pq_dict_clear(&wk->dict, is_ba ? 0 : l->width, o->dictionary_page_bytes);
        /* in batches: a batch of (nearly) all new values while the dictionary is already no
         * smaller than PLAIN means a (nearly) unique column, so stop paying for the hash table */
        size_t pos = 0, done = 0;
        const uint8_t *bytes_at = l->vals.data;
        while (pos < nv_total) {
            size_t n = nv_total - pos < DICT_BATCH ? nv_total - pos : DICT_BATCH;
            uint32_t before = wk->dict.n;
            if (is_ba) {
                SQE_TRY(pq_dict_insert_bytes(&wk->dict, lens + pos, bytes_at, n, wk->idx + pos,
                                             &done, err));
                for (size_t k = 0; k < done; k++) bytes_at += lens[pos + k];
            } else {
                SQE_TRY(pq_dict_insert_fixed(&wk->dict, l->vals.data + pos * l->width, n, wk->idx + pos,
                                             &done, err));
            }
            pos += done;
            if (done < n) break;
            uint64_t fresh = wk->dict.n - before;
            uint64_t plain_so_far = is_ba ? (uint64_t)(bytes_at - l->vals.data) + 4 * (uint64_t)pos
                                          : (uint64_t)pos * l->width;
            uint64_t dict_so_far = wk->dict.plain.len +
                                   (uint64_t)pos * (uint64_t)pq_bit_width(wk->dict.n) / 8;
            if (pos < nv_total && fresh * 10 > (uint64_t)n * 9 && dict_so_far >= plain_so_far) break;
        }
        if (pos < nv_total) {
            use_dict = false;
        } else {
            bw = pq_bit_width(wk->dict.n - 1);
            if (bw == 0) bw = 1;
            uint64_t plain_size = l->vals.len + (is_ba ? 4 * (uint64_t)nv_total : 0);
            uint64_t dict_size = wk->dict.plain.len + ((uint64_t)nv_total * (uint64_t)bw + 7) / 8;
            if (dict_size >= plain_size) use_dict = false;
        }
    }
    uint64_t off;
    uint32_t size;
    if (use_dict) {
        SQE_TRY(write_page(w, wk, l, PQ_PAGE_DICTIONARY, wk->dict.plain.data, wk->dict.plain.len,
                           wk->dict.n, PQ_ENC_PLAIN, &off, &size, err));
        l->has_dict = true;
        l->dict_size = l->chunk.len;
        if (o->bloom_filter) SQE_TRY(build_bloom(l, wk, o->bloom_filter_fpp, err));
    }
    const uint8_t *def = l->max_def ? l->def.data : NULL;
    const uint8_t *rep = l->max_rep ? l->rep.data : NULL;
    const uint8_t max_def = l->max_def;
    const int def_bw = pq_bit_width(l->max_def), rep_bw = pq_bit_width(l->max_rep);
    const bool need_bounds = o->write_statistics || o->write_page_index;
    const size_t page_rows = o->page_rows ? o->page_rows : 20000;
    const size_t page_bytes = o->page_bytes ? o->page_bytes : (1u << 20);
    const uint8_t *bytes_at = l->vals.data;
    size_t lp = 0, vp = 0;
    uint64_t row = 0;
    while (lp < n_levels) {
        /* the page: levels [lp, le) holding nv values and `rows` rows */
        size_t le = lp, nv = 0, rows = 0;
        if (!rep && !(is_ba && !use_dict)) {
            size_t value_bits = use_dict ? (size_t)bw : (size_t)l->width * 8;
            size_t max_vals = page_bytes * 8 / (value_bits ? value_bits : 1);
            if (max_vals == 0) max_vals = 1;
            size_t end = lp + (n_levels - lp < page_rows ? n_levels - lp : page_rows);
            if (!def) {
                nv = end - lp < max_vals ? end - lp : max_vals;
                le = lp + nv;
            } else {
                for (le = lp; le < end && nv < max_vals; le++) nv += def[le] == max_def;
            }
            rows = le - lp;
        } else {
            size_t bytes = 0;
            while (le < n_levels) {
                size_t re = le + 1;
                if (rep)
                    while (re < n_levels && rep[re] != 0) re++;
                for (size_t k = le; k < re; k++) {
                    if (def && def[k] != max_def) continue;
                    bytes += use_dict ? 0 : is_ba ? 4 + (size_t)lens[vp + nv] : l->width;
                    nv++;
                }
                rows++;
                le = re;
                if (use_dict) bytes = nv * (size_t)bw / 8;
                if (rows >= page_rows || bytes >= page_bytes) break;
            }
        }
        size_t n_page_levels = le - lp;
        pq_buf *body = &wk->body;
        pq_buf_clear(body);
        if (rep) SQE_TRY(put_levels(body, rep + lp, n_page_levels, rep_bw, err));
        if (def) SQE_TRY(put_levels(body, def + lp, n_page_levels, def_bw, err));
        size_t page_bytes_len = 0; /* byte-array value bytes in this page */
        if (is_ba)
            for (size_t k = 0; k < nv; k++) page_bytes_len += lens[vp + k];
        if (use_dict) {
            uint8_t b = (uint8_t)bw;
            SQE_TRY(pq_buf_append(body, &b, 1, err));
            SQE_TRY(pq_rle_encode_u32(wk->idx + vp, nv, bw, body, err));
        } else if (l->phys == PQ_TYPE_BOOLEAN) {
            SQE_TRY(pq_plain_encode_bool(l->vals.data + vp, nv, body, err));
        } else if (is_ba) {
            SQE_TRY(pq_plain_encode_bytes(lens + vp, bytes_at, nv, body, err));
        } else {
            SQE_TRY(pq_buf_append(body, l->vals.data + vp * l->width, nv * l->width, err));
        }
        page_meta *pm = NULL;
        SQE_TRY(new_page(l, &pm, err));
        pm->first_row = row;
        pm->null_count = (int64_t)(n_page_levels - nv);
        pm->null_page = nv == 0;
        if (need_bounds && nv > 0) {
            bound mn, mx;
            pm->has_bounds = value_bounds(l, vp, nv, bytes_at, &mn, &mx);
            if (pm->has_bounds) {
                SQE_TRY(store_page_bounds(w, l, pm, &mn, &mx, err));
                if (!l->has_bounds) {
                    l->cmin = mn;
                    l->cmax = mx;
                    l->has_bounds = true;
                } else {
                    if (bound_cmp(l, &mn, &l->cmin) < 0) l->cmin = mn;
                    if (bound_cmp(l, &mx, &l->cmax) > 0) l->cmax = mx;
                }
            }
        }
        SQE_TRY(write_page(w, wk, l, PQ_PAGE_DATA, body->data, body->len, n_page_levels,
                           use_dict ? PQ_ENC_RLE_DICTIONARY : PQ_ENC_PLAIN, &pm->offset,
                           &pm->size, err));
        bytes_at += page_bytes_len;
        lp = le;
        vp += nv;
        row += rows;
    }
    if (o->write_page_index) SQE_TRY(build_column_index(l, wk, err));
    return SQE_OK;
}
