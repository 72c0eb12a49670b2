/*
 * data_metrics.c: Iceberg column metrics of a written Parquet data file, from its footer, as
 * Iceberg Java's ParquetUtil.footerMetrics computes them.
 *
 * INTERFACE
 *   ice_schema_leaves        primitive leaves of a schema in Parquet leaf order (internal)
 *   ice_truncate_bound       truncate(N) of string/binary bounds (lower: prefix; upper: rounded up)
 *   ice_data_file_metrics    footer -> record count, column sizes, value/null/NaN counts,
 *                            Appendix D bounds, split offsets
 * NOTES
 *   - Per leaf field id, summed over row groups: column_sizes += total_compressed_size (every
 *     mode), value_counts += num_values (levels, so list elements count one each), null counts
 *     from the chunk statistics; a chunk without statistics drops that leaf's null count and
 *     bounds (as Java does). Mode none keeps only the size; counts adds the counts.
 *   - Bounds only for leaves reached through structs alone (Java's shouldStoreBounds: none inside
 *     lists or maps), from the chunks' min_value/max_value in the column order, converted to
 *     Appendix D: decimals as minimal big-endian two's complement, strings cut to N code points
 *     and binaries to N bytes (upper bounds rounded up; omitted when no rounded-up bound exists).
 *     Floats: Parquet statistics already skip NaN, the same as Java's float field metrics.
 *   - NaN counts are not in the footer: the writer counts them while writing and passes them in.
 *   - split_offsets: each row group's first byte (dictionary page of its first column when it
 *     comes first, else its first data page), ascending.
 */
#include <stdlib.h>
#include <string.h>

#include "format/parquet/pq_encode.h"
#include "format/parquet/pq_meta.h"
#include "iceberg/data_writer.h"
#include "iceberg/data_writer_int.h"
#include "common/utf8.h"

/* ---- leaves ----------------------------------------------------------------------------------- */

typedef struct leaf_list {
    arena *a;
    ice_leaf *items;
    uint32_t n, cap;
} leaf_list;

static int leaves_walk(leaf_list *l, const ice_type *t, int32_t id, const char *name,
                       bool repeated, int depth, sqe_error *err) {
    if (depth > ICE_MAX_TYPE_DEPTH)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "Iceberg schema nested too deeply");
    if (t->kind == ICE_TYPE_STRUCT || t->kind == ICE_TYPE_LIST || t->kind == ICE_TYPE_MAP) {
        bool rep = repeated || t->kind != ICE_TYPE_STRUCT;
        for (uint32_t i = 0; i < t->n_fields; i++) {
            const ice_field *f = &t->fields[i];
            const char *child = name ? arena_sprintf(l->a, "%s.%s", name, f->name ? f->name : "")
                                     : arena_strdup(l->a, f->name ? f->name : "");
            if (!child) return err_nomem(err, "Iceberg schema leaves");
            SQE_TRY(leaves_walk(l, &f->type, f->id, child, rep, depth + 1, err));
        }
        return SQE_OK;
    }
    if (l->n == l->cap) {
        uint32_t cap = l->cap ? l->cap * 2 : 16;
        ice_leaf *p = ARENA_ARRAY(l->a, ice_leaf, cap);
        if (!p) return err_nomem(err, "Iceberg schema leaves");
        if (l->n) memcpy(p, l->items, l->n * sizeof(*p));
        l->items = p;
        l->cap = cap;
    }
    l->items[l->n++] = (ice_leaf){id, t, name, repeated};
    return SQE_OK;
}

int ice_schema_leaves(arena *a, const ice_schema *schema, ice_leaf **out, uint32_t *n,
                      sqe_error *err) {
    leaf_list l = {a, NULL, 0, 0};
    SQE_TRY(leaves_walk(&l, &schema->type, 0, NULL, false, 0, err));
    *out = l.items;
    *n = l.n;
    return SQE_OK;
}

/* ---- truncation ------------------------------------------------------------------------------ */

bool ice_truncate_bound(const uint8_t *v, size_t len, int32_t length, bool utf8, bool upper,
                        uint8_t *out, size_t *out_len) {
    size_t limit = length > 0 ? (size_t)length : 1;
    if (!utf8) {
        if (len <= limit || !upper) {
            size_t n = len < limit ? len : limit;
            if (n) memcpy(out, v, n);
            *out_len = n;
            return true;
        }
        memcpy(out, v, limit);
        for (size_t i = limit; i-- > 0;) {
            if (out[i] != 0xFF) {
                out[i]++;
                *out_len = i + 1;
                return true;
            }
        }
        return false;
    }
    /* code point starts of the first `limit` code points */
    size_t pos = 0, cps = 0;
    while (pos < len && cps < limit) {
        pos += utf8_next((const char *)v + pos, len - pos);
        cps++;
    }
    if (pos) memcpy(out, v, pos);
    *out_len = pos;
    if (pos >= len || !upper) return true;
    /* round up: increment the last code point that can be, dropping the ones after it */
    while (pos > 0) {
        size_t start = pos - 1;
        while (start > 0 && (out[start] & 0xC0) == 0x80 && pos - start < 4) start--;
        uint32_t cp;
        if (utf8_decode((const char *)out + start, pos - start, &cp) != pos - start) {
            start = pos - 1; /* not one well-formed character: bump the last byte */
            cp = out[start];
        }
        cp++;
        if (cp >= 0xD800 && cp <= 0xDFFF) cp = 0xE000;
        if (cp <= 0x10FFFF) {
            *out_len = start + utf8_encode(cp, (char *)out + start);
            return true;
        }
        pos = start;
    }
    return false;
}

/* ---- metrics --------------------------------------------------------------------------------- */

typedef struct acc {
    int64_t size, values, nulls;
    bool stats_missing;
    bool has_min, has_max;
    const uint8_t *min, *max;
    size_t min_len, max_len;
} acc;

static int64_t le_int(const uint8_t *p, size_t n) {
    if (n == 4) {
        int32_t x;
        memcpy(&x, p, 4);
        return x;
    }
    int64_t x = 0;
    if (n == 8) memcpy(&x, p, 8);
    return x;
}

/* Order of two PLAIN statistics values of a leaf. */
static int stat_cmp(int32_t phys, const ice_type *t, const uint8_t *a, size_t al, const uint8_t *b,
                    size_t bl) {
    switch (phys) {
    case PQ_TYPE_BOOLEAN:
        return (int)(al ? a[0] : 0) - (int)(bl ? b[0] : 0);
    case PQ_TYPE_INT32:
    case PQ_TYPE_INT64: {
        int64_t x = le_int(a, al), y = le_int(b, bl);
        return (x > y) - (x < y);
    }
    case PQ_TYPE_FLOAT: {
        float x = 0, y = 0;
        if (al == 4) memcpy(&x, a, 4);
        if (bl == 4) memcpy(&y, b, 4);
        return (x > y) - (x < y);
    }
    case PQ_TYPE_DOUBLE: {
        double x = 0, y = 0;
        if (al == 8) memcpy(&x, a, 8);
        if (bl == 8) memcpy(&y, b, 8);
        return (x > y) - (x < y);
    }
    case PQ_TYPE_FIXED_LEN_BYTE_ARRAY:
        if (t->kind == ICE_TYPE_DECIMAL && al == bl) return pq_compare_be_signed(a, b, (uint32_t)al);
        return pq_compare_bytes(a, al, b, bl);
    default:
        return pq_compare_bytes(a, al, b, bl);
    }
}

/* Whether a PLAIN statistics value has the size its physical type needs. */
static bool stat_size_ok(int32_t phys, size_t len) {
    switch (phys) {
    case PQ_TYPE_BOOLEAN: return len == 1;
    case PQ_TYPE_INT32:
    case PQ_TYPE_FLOAT: return len == 4;
    case PQ_TYPE_INT64:
    case PQ_TYPE_DOUBLE: return len == 8;
    case PQ_TYPE_FIXED_LEN_BYTE_ARRAY: return len >= 1 && len <= 16;
    case PQ_TYPE_BYTE_ARRAY: return true;
    default: return false;
    }
}

/* The Appendix D bytes of a PLAIN statistics value for leaf type t (NULL when there is none,
 * e.g. an upper bound that cannot be rounded up). */
static int to_single_value(arena *a, int32_t phys, const ice_type *t, const ice_metrics_mode *mode,
                           bool upper, const uint8_t *p, size_t len, ice_bytes *out, bool *ok,
                           sqe_error *err) {
    *ok = true;
    if (t->kind == ICE_TYPE_DECIMAL) {
        int128 u;
        if (phys == PQ_TYPE_FIXED_LEN_BYTE_ARRAY) {
            u = (p[0] & 0x80) ? -1 : 0;
            for (size_t i = 0; i < len; i++) u = (int128)(((unsigned __int128)u << 8) | p[i]);
        } else {
            u = le_int(p, len);
        }
        uint8_t be[16];
        for (int i = 0; i < 16; i++) be[15 - i] = (uint8_t)((unsigned __int128)u >> (8 * i));
        int s = 0;
        while (s < 15 && ((be[s] == 0x00 && !(be[s + 1] & 0x80)) ||
                          (be[s] == 0xFF && (be[s + 1] & 0x80))))
            s++;
        uint8_t *d = arena_memdup(a, be + s, (size_t)(16 - s));
        if (!d) return err_nomem(err, "Iceberg metrics");
        *out = (ice_bytes){d, (size_t)(16 - s)};
        return SQE_OK;
    }
    if (phys == PQ_TYPE_BYTE_ARRAY && mode->kind == ICE_METRICS_TRUNCATE) {
        uint8_t *d = arena_alloc(a, len + 4);
        if (!d) return err_nomem(err, "Iceberg metrics");
        size_t n;
        if (!ice_truncate_bound(p, len, mode->length, t->kind == ICE_TYPE_STRING, upper, d, &n)) {
            *ok = false;
            return SQE_OK;
        }
        *out = (ice_bytes){d, n};
        return SQE_OK;
    }
    uint8_t *d = arena_memdup(a, len ? p : (const uint8_t *)"", len ? len : 1);
    if (!d) return err_nomem(err, "Iceberg metrics");
    *out = (ice_bytes){d, len};
    return SQE_OK;
}

static bool bounds_kind_ok(const ice_type *t) {
    switch (t->kind) {
    case ICE_TYPE_UNKNOWN:
    case ICE_TYPE_VARIANT:
    case ICE_TYPE_GEOMETRY:
    case ICE_TYPE_GEOGRAPHY:
        return false;
    default:
        return true;
    }
}

int ice_data_file_metrics(arena *a, const ice_schema *schema, const pq_file_meta *meta,
                          const ice_metrics_mode *modes, const int64_t *nan_counts,
                          ice_data_file *f, sqe_error *err) {
    ice_leaf *leaves;
    uint32_t n;
    SQE_TRY(ice_schema_leaves(a, schema, &leaves, &n, err));
    /* the Parquet leaves (elements without children, pre-order) must be the schema's leaves */
    uint32_t k = 0;
    for (uint32_t i = 1; i < meta->n_schema; i++) {
        const pq_schema_element *e = &meta->schema[i];
        if (e->has_num_children && e->num_children > 0) continue;
        if (k >= n || !e->has_field_id || e->field_id != leaves[k].field_id)
            return err_set(err, SQE_ERR_INVALID_FILE,
                           "Parquet file does not match the Iceberg schema at leaf %u", k);
        k++;
    }
    if (k != n)
        return err_set(err, SQE_ERR_INVALID_FILE,
                       "Parquet file has %u leaf columns, the Iceberg schema %u", k, n);
    acc *accs = ARENA_ARRAY(a, acc, n ? n : 1);
    int64_t *splits = ARENA_ARRAY(a, int64_t, meta->n_row_groups ? meta->n_row_groups : 1);
    if (!accs || !splits) return err_nomem(err, "Iceberg metrics");
    static const ice_metrics_mode dflt = {ICE_METRICS_TRUNCATE, 16};
    int64_t records = 0;
    for (uint32_t g = 0; g < meta->n_row_groups; g++) {
        const pq_row_group *rg = &meta->row_groups[g];
        if (rg->n_columns != n)
            return err_set(err, SQE_ERR_INVALID_FILE, "Parquet row group %u has %u columns, expected %u",
                           g, rg->n_columns, n);
        records += rg->num_rows;
        const pq_column_meta *c0 = &rg->columns[0].meta_data;
        splits[g] = c0->has_dictionary_page_offset && c0->dictionary_page_offset < c0->data_page_offset
                        ? c0->dictionary_page_offset
                        : c0->data_page_offset;
        for (uint32_t i = 0; i < n; i++) {
            const pq_column_meta *cm = &rg->columns[i].meta_data;
            const ice_metrics_mode *mode = modes ? &modes[i] : &dflt;
            acc *ac = &accs[i];
            ac->size += cm->total_compressed_size;
            if (mode->kind == ICE_METRICS_NONE) continue;
            ac->values += cm->num_values;
            const pq_statistics *st = &cm->statistics;
            if (!cm->has_statistics || !st->has_null_count) {
                ac->stats_missing = true;
                continue;
            }
            ac->nulls += st->null_count;
            if (mode->kind == ICE_METRICS_COUNTS || leaves[i].in_repeated ||
                !bounds_kind_ok(leaves[i].type) || cm->type == PQ_TYPE_INT96)
                continue;
            if (st->has_min_value && stat_size_ok(cm->type, st->min_value_len) &&
                (!ac->has_min || stat_cmp(cm->type, leaves[i].type, st->min_value, st->min_value_len,
                                          ac->min, ac->min_len) < 0)) {
                ac->has_min = true;
                ac->min = st->min_value;
                ac->min_len = st->min_value_len;
            }
            if (st->has_max_value && stat_size_ok(cm->type, st->max_value_len) &&
                (!ac->has_max || stat_cmp(cm->type, leaves[i].type, st->max_value, st->max_value_len,
                                          ac->max, ac->max_len) > 0)) {
                ac->has_max = true;
                ac->max = st->max_value;
                ac->max_len = st->max_value_len;
            }
        }
    }
    /* ascending split offsets (row groups are written in order; sort for safety) */
    for (uint32_t i = 1; i < meta->n_row_groups; i++)
        for (uint32_t j = i; j > 0 && splits[j - 1] > splits[j]; j--) {
            int64_t t = splits[j];
            splits[j] = splits[j - 1];
            splits[j - 1] = t;
        }
    f->record_count = records;
    f->has_split_offsets = true;
    f->n_split_offsets = meta->n_row_groups;
    f->split_offsets = splits;

    ice_id_count *sizes = ARENA_ARRAY(a, ice_id_count, n ? n : 1);
    ice_id_count *values = ARENA_ARRAY(a, ice_id_count, n ? n : 1);
    ice_id_count *nulls = ARENA_ARRAY(a, ice_id_count, n ? n : 1);
    ice_id_count *nans = ARENA_ARRAY(a, ice_id_count, n ? n : 1);
    ice_bound *lower = ARENA_ARRAY(a, ice_bound, n ? n : 1);
    ice_bound *upper = ARENA_ARRAY(a, ice_bound, n ? n : 1);
    if (!sizes || !values || !nulls || !nans || !lower || !upper)
        return err_nomem(err, "Iceberg metrics");
    f->column_sizes = (ice_counts){true, 0, sizes};
    f->value_counts = (ice_counts){true, 0, values};
    f->null_value_counts = (ice_counts){true, 0, nulls};
    f->nan_value_counts = (ice_counts){true, 0, nans};
    f->lower_bounds = (ice_bounds){true, 0, lower};
    f->upper_bounds = (ice_bounds){true, 0, upper};
    for (uint32_t i = 0; i < n; i++) {
        const ice_leaf *lf = &leaves[i];
        const ice_metrics_mode *mode = modes ? &modes[i] : &dflt;
        const acc *ac = &accs[i];
        if (meta->n_row_groups == 0) continue;
        sizes[f->column_sizes.n++] = (ice_id_count){lf->field_id, ac->size};
        if (mode->kind == ICE_METRICS_NONE) continue;
        values[f->value_counts.n++] = (ice_id_count){lf->field_id, ac->values};
        if (nan_counts && (lf->type->kind == ICE_TYPE_FLOAT || lf->type->kind == ICE_TYPE_DOUBLE))
            nans[f->nan_value_counts.n++] = (ice_id_count){lf->field_id, nan_counts[i]};
        if (ac->stats_missing) continue;
        nulls[f->null_value_counts.n++] = (ice_id_count){lf->field_id, ac->nulls};
        sqe_type st;
        if (ice_schema_to_sqe_type(lf->type, &st, NULL)) continue;
        int32_t phys = meta->row_groups[0].columns[i].meta_data.type;
        for (int side = 0; side < 2; side++) {
            bool has = side ? ac->has_max : ac->has_min;
            if (!has) continue;
            ice_bytes raw;
            bool ok;
            SQE_TRY(to_single_value(a, phys, lf->type, mode, side == 1, side ? ac->max : ac->min,
                                    side ? ac->max_len : ac->min_len, &raw, &ok, err));
            if (!ok) continue;
            ice_bound *b = side ? &upper[f->upper_bounds.n] : &lower[f->lower_bounds.n];
            b->field_id = lf->field_id;
            b->raw = raw;
            SQE_TRY(ice_arena_vec_init(a, &b->value, st, 1, err));
            sqe_error ignored = {0};
            if (ice_single_value_decode(lf->type, raw.data, raw.len, &b->value, 0, "bound", &ignored))
                SQE_TRY(ice_arena_vec_set_null(a, &b->value, 0, err));
            if (side) f->upper_bounds.n++;
            else f->lower_bounds.n++;
        }
    }
    return SQE_OK;
}
