/*
 * bind_tfunc_parquet.c: the Parquet table functions: read_parquet('path or glob') (also a
 * '.parquet' path used as a table), parquet_metadata('file') and parquet_schema('file').
 *
 * INTERFACE: bind_parquet_source (bind_int.h).
 * NOTES
 *   read_parquet binds the Parquet scan source (scan/scan_parquet.c: footers, schema,
 *   pruning, readers) over the resolved files; its errors get the relation's position here.
 *   parquet_metadata / parquet_schema build their rows at bind time and hand them out from
 *   vectors (they are small: one row per column chunk / schema element).
 */
#include "bind/bind_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/parquet/pq_codec.h"
#include "format/parquet/pq_reader.h"
#include "scan/scan_parquet.h"

/* ---- read_parquet: the scan source ---------------------------------------------------------- */

static int bind_read_parquet(binder *b, const sql_relation *rel, scan_file_list *files,
                             plan **out, const char ***names) {
    plan_source *src;
    (void)rel;
    SQE_TRY(scan_parquet_source(b->pctx, files, &src, b->err));
    return bind_tfunc_plan(b, "read_parquet", src, out, names);
}

/* ---- parquet_metadata / parquet_schema: rows built at bind time --------------------------- */

static const char *physical_name(int t) {
    static const char *names[] = {"BOOLEAN", "INT32", "INT64", "INT96", "FLOAT", "DOUBLE",
                                  "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"};
    return t >= 0 && t < 8 ? names[t] : "UNKNOWN";
}

static const char *encoding_name(int e) {
    switch (e) {
    case PQ_ENC_PLAIN: return "PLAIN";
    case PQ_ENC_PLAIN_DICTIONARY: return "PLAIN_DICTIONARY";
    case PQ_ENC_RLE: return "RLE";
    case PQ_ENC_BIT_PACKED: return "BIT_PACKED";
    case PQ_ENC_DELTA_BINARY_PACKED: return "DELTA_BINARY_PACKED";
    case PQ_ENC_DELTA_LENGTH_BYTE_ARRAY: return "DELTA_LENGTH_BYTE_ARRAY";
    case PQ_ENC_DELTA_BYTE_ARRAY: return "DELTA_BYTE_ARRAY";
    case PQ_ENC_RLE_DICTIONARY: return "RLE_DICTIONARY";
    case PQ_ENC_BYTE_STREAM_SPLIT: return "BYTE_STREAM_SPLIT";
    default: return "UNKNOWN";
    }
}

static void stat_text(const pq_node *leaf, const uint8_t *p, size_t len, char *buf, size_t cap) {
    buf[0] = 0;
    if (!p) return;
    int t = leaf->physical;
    if ((t == PQ_TYPE_INT32 || t == PQ_TYPE_FLOAT) && len == 4) {
        int32_t v;
        float f;
        memcpy(&v, p, 4);
        memcpy(&f, p, 4);
        if (t == PQ_TYPE_INT32)
            snprintf(buf, cap, "%d", v);
        else
            snprintf(buf, cap, "%.9g", (double)f);
    } else if ((t == PQ_TYPE_INT64 || t == PQ_TYPE_DOUBLE) && len == 8) {
        int64_t v;
        double d;
        memcpy(&v, p, 8);
        memcpy(&d, p, 8);
        if (t == PQ_TYPE_INT64)
            snprintf(buf, cap, "%lld", (long long)v);
        else
            snprintf(buf, cap, "%.17g", d);
    } else if (t == PQ_TYPE_BOOLEAN && len >= 1) {
        snprintf(buf, cap, "%s", p[0] ? "true" : "false");
    } else if (leaf->type.id == TYPE_VARCHAR) {
        size_t n = len < cap - 1 ? len : cap - 1;
        memcpy(buf, p, n);
        buf[n] = 0;
    } else {
        size_t o = 0;
        for (size_t i = 0; i < len && o + 3 < cap; i++) o += (size_t)snprintf(buf + o, cap - o, "%02x", p[i]);
    }
}

static int bind_parquet_metadata(binder *b, const sql_relation *rel, scan_file_list *files,
                                 plan **out, const char ***names) {
    static const bind_rows_col defs[] = {
        {"file_name", TYPE_VARCHAR}, {"row_group_id", TYPE_BIGINT}, {"row_group_num_rows", TYPE_BIGINT},
        {"row_group_num_columns", TYPE_BIGINT}, {"row_group_bytes", TYPE_BIGINT}, {"column_id", TYPE_BIGINT},
        {"file_offset", TYPE_BIGINT}, {"num_values", TYPE_BIGINT}, {"path_in_schema", TYPE_VARCHAR},
        {"type", TYPE_VARCHAR}, {"stats_min", TYPE_VARCHAR}, {"stats_max", TYPE_VARCHAR},
        {"stats_null_count", TYPE_BIGINT}, {"stats_distinct_count", TYPE_BIGINT},
        {"stats_min_value", TYPE_VARCHAR}, {"stats_max_value", TYPE_VARCHAR}, {"compression", TYPE_VARCHAR},
        {"encodings", TYPE_VARCHAR}, {"index_page_offset", TYPE_BIGINT},
        {"dictionary_page_offset", TYPE_BIGINT}, {"data_page_offset", TYPE_BIGINT},
        {"total_compressed_size", TYPE_BIGINT}, {"total_uncompressed_size", TYPE_BIGINT},
        {"bloom_filter_offset", TYPE_BIGINT}, {"bloom_filter_length", TYPE_BIGINT},
        {"has_column_index", TYPE_BOOLEAN}, {"has_offset_index", TYPE_BOOLEAN},
    };
    uint32_t nd = sizeof defs / sizeof defs[0];
    bind_rows *rs;
    plan_source *src;
    SQE_TRY(bind_rows_init(b, &rs, defs, nd, &src));
    char **paths = files->paths;
    uint32_t n_paths = files->n;
    bind_rows_builder rb = {b, rs, 0};
    int rc = SQE_OK;
    char buf[256];
    for (uint32_t f = 0; f < n_paths && !rc; f++) {
        pq_file *pf;
        rc = pq_file_open_as(paths[f], files->id, &pf, b->err);
        if (rc) break;
        const pq_file_meta *m = pf->meta;
        for (uint32_t g = 0; g < m->n_row_groups && !rc; g++) {
            const pq_row_group *rg = &m->row_groups[g];
            for (uint32_t c = 0; c < rg->n_columns && !rc; c++) {
                const pq_column_chunk *cc = &rg->columns[c];
                const pq_column_meta *cm = &cc->meta_data;
                const pq_node *leaf = pf->schema->leaves[c];
                if ((rc = bind_rb_reserve(&rb))) break;
                rc = bind_rb_str(&rb, 0, paths[f]);
                bind_rb_int(&rb, 1, g);
                bind_rb_int(&rb, 2, rg->num_rows);
                bind_rb_int(&rb, 3, rg->n_columns);
                bind_rb_int(&rb, 4, rg->total_byte_size);
                bind_rb_int(&rb, 5, c);
                bind_rb_int(&rb, 6, cc->file_offset);
                bind_rb_int(&rb, 7, cm->num_values);
                size_t o = 0;
                buf[0] = 0;
                for (uint32_t k = 0; k < cm->n_path_in_schema && o + 1 < sizeof buf; k++) {
                    int w = snprintf(buf + o, sizeof buf - o, "%s%s", k ? "." : "", cm->path_in_schema[k]);
                    if (w > 0) o += (size_t)w;
                }
                if (!cc->has_meta_data) pq_node_path(leaf, buf, sizeof buf);
                if (!rc) rc = bind_rb_str(&rb, 8, buf);
                if (!rc) rc = bind_rb_str(&rb, 9, physical_name(cm->type));
                const pq_statistics *s = &cm->statistics;
                bool hs = cc->has_meta_data && cm->has_statistics;
                stat_text(leaf, hs && s->has_min ? s->min : NULL, s->min_len, buf, sizeof buf);
                if (!rc) rc = hs && s->has_min ? bind_rb_str(&rb, 10, buf) : bind_rb_null(&rb, 10);
                stat_text(leaf, hs && s->has_max ? s->max : NULL, s->max_len, buf, sizeof buf);
                if (!rc) rc = hs && s->has_max ? bind_rb_str(&rb, 11, buf) : bind_rb_null(&rb, 11);
                if (hs && s->has_null_count) bind_rb_int(&rb, 12, s->null_count);
                else if (!rc) rc = bind_rb_null(&rb, 12);
                if (hs && s->has_distinct_count) bind_rb_int(&rb, 13, s->distinct_count);
                else if (!rc) rc = bind_rb_null(&rb, 13);
                stat_text(leaf, hs && s->has_min_value ? s->min_value : NULL, s->min_value_len, buf, sizeof buf);
                if (!rc) rc = hs && s->has_min_value ? bind_rb_str(&rb, 14, buf) : bind_rb_null(&rb, 14);
                stat_text(leaf, hs && s->has_max_value ? s->max_value : NULL, s->max_value_len, buf, sizeof buf);
                if (!rc) rc = hs && s->has_max_value ? bind_rb_str(&rb, 15, buf) : bind_rb_null(&rb, 15);
                if (!rc) rc = bind_rb_str(&rb, 16, pq_codec_name(cm->codec));
                o = 0;
                buf[0] = 0;
                for (uint32_t e = 0; e < cm->n_encodings && o < sizeof buf - 32; e++)
                    o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%s", e ? ", " : "",
                                          encoding_name(cm->encodings[e]));
                if (!rc) rc = bind_rb_str(&rb, 17, buf);
                if (cm->has_index_page_offset) bind_rb_int(&rb, 18, cm->index_page_offset);
                else if (!rc) rc = bind_rb_null(&rb, 18);
                if (cm->has_dictionary_page_offset) bind_rb_int(&rb, 19, cm->dictionary_page_offset);
                else if (!rc) rc = bind_rb_null(&rb, 19);
                bind_rb_int(&rb, 20, cm->data_page_offset);
                bind_rb_int(&rb, 21, cm->total_compressed_size);
                bind_rb_int(&rb, 22, cm->total_uncompressed_size);
                if (cm->has_bloom_filter_offset) bind_rb_int(&rb, 23, cm->bloom_filter_offset);
                else if (!rc) rc = bind_rb_null(&rb, 23);
                if (cm->has_bloom_filter_length) bind_rb_int(&rb, 24, cm->bloom_filter_length);
                else if (!rc) rc = bind_rb_null(&rb, 24);
                VEC_DATA(&rs->cols[25], uint8_t)[rb.row] = cc->has_column_index;
                VEC_DATA(&rs->cols[26], uint8_t)[rb.row] = cc->has_offset_index;
                rb.row++;
            }
        }
        pq_file_release(pf);
    }
    if (rc) return rc;
    rs->n_rows = rb.row;
    src->est_rows = rb.row;
    (void)rel;
    return bind_tfunc_plan(b, "parquet_metadata", src, out, names);
}

static const char *repetition_name(const pq_schema_element *e) {
    if (!e->has_repetition) return NULL;
    switch (e->repetition_type) {
    case PQ_REP_REQUIRED: return "REQUIRED";
    case PQ_REP_OPTIONAL: return "OPTIONAL";
    case PQ_REP_REPEATED: return "REPEATED";
    default: return "UNKNOWN";
    }
}

static const char *converted_name(int c) {
    static const char *names[] = {"UTF8", "MAP", "MAP_KEY_VALUE", "LIST", "ENUM", "DECIMAL",
                                  "DATE", "TIME_MILLIS", "TIME_MICROS", "TIMESTAMP_MILLIS",
                                  "TIMESTAMP_MICROS", "UINT_8", "UINT_16", "UINT_32", "UINT_64",
                                  "INT_8", "INT_16", "INT_32", "INT_64", "JSON", "BSON", "INTERVAL"};
    return c >= 0 && c < 22 ? names[c] : "UNKNOWN";
}

static void logical_text(const pq_logical_type *l, char *buf, size_t cap) {
    static const char *units[] = {"?", "MILLIS", "MICROS", "NANOS"};
    const char *unit = l->unit >= 0 && l->unit <= 3 ? units[l->unit] : "?";
    switch (l->kind) {
    case PQ_LT_NONE: buf[0] = 0; break;
    case PQ_LT_STRING: snprintf(buf, cap, "STRING"); break;
    case PQ_LT_MAP: snprintf(buf, cap, "MAP"); break;
    case PQ_LT_LIST: snprintf(buf, cap, "LIST"); break;
    case PQ_LT_ENUM: snprintf(buf, cap, "ENUM"); break;
    case PQ_LT_DECIMAL: snprintf(buf, cap, "DECIMAL(%d,%d)", l->precision, l->scale); break;
    case PQ_LT_DATE: snprintf(buf, cap, "DATE"); break;
    case PQ_LT_TIME: snprintf(buf, cap, "TIME(%s,%s)", unit, l->is_adjusted_to_utc ? "UTC" : "local"); break;
    case PQ_LT_TIMESTAMP:
        snprintf(buf, cap, "TIMESTAMP(%s,%s)", unit, l->is_adjusted_to_utc ? "UTC" : "local");
        break;
    case PQ_LT_INTEGER: snprintf(buf, cap, "INTEGER(%d,%s)", l->bit_width, l->is_signed ? "signed" : "unsigned"); break;
    case PQ_LT_UNKNOWN: snprintf(buf, cap, "UNKNOWN"); break;
    case PQ_LT_JSON: snprintf(buf, cap, "JSON"); break;
    case PQ_LT_BSON: snprintf(buf, cap, "BSON"); break;
    case PQ_LT_UUID: snprintf(buf, cap, "UUID"); break;
    case PQ_LT_FLOAT16: snprintf(buf, cap, "FLOAT16"); break;
    default: snprintf(buf, cap, "OTHER(%d)", l->raw_id); break;
    }
}

static int bind_parquet_schema(binder *b, const sql_relation *rel, scan_file_list *files,
                               plan **out, const char ***names) {
    static const bind_rows_col defs[] = {
        {"file_name", TYPE_VARCHAR}, {"name", TYPE_VARCHAR}, {"type", TYPE_VARCHAR},
        {"type_length", TYPE_BIGINT}, {"repetition_type", TYPE_VARCHAR}, {"num_children", TYPE_BIGINT},
        {"converted_type", TYPE_VARCHAR}, {"scale", TYPE_BIGINT}, {"precision", TYPE_BIGINT},
        {"field_id", TYPE_BIGINT}, {"logical_type", TYPE_VARCHAR}, {"sqe_type", TYPE_VARCHAR},
    };
    uint32_t nd = sizeof defs / sizeof defs[0];
    bind_rows *rs;
    plan_source *src;
    SQE_TRY(bind_rows_init(b, &rs, defs, nd, &src));
    char **paths = files->paths;
    uint32_t n_paths = files->n;
    bind_rows_builder rb = {b, rs, 0};
    int rc = SQE_OK;
    char buf[256];
    for (uint32_t f = 0; f < n_paths && !rc; f++) {
        pq_file *pf;
        rc = pq_file_open_as(paths[f], files->id, &pf, b->err);
        if (rc) break;
        const pq_file_meta *m = pf->meta;
        uint32_t leaf = 0;
        for (uint32_t i = 0; i < m->n_schema && !rc; i++) {
            const pq_schema_element *e = &m->schema[i];
            if ((rc = bind_rb_reserve(&rb))) break;
            rc = bind_rb_str(&rb, 0, paths[f]);
            if (!rc) rc = bind_rb_str(&rb, 1, e->name);
            if (!rc) rc = e->has_type && i > 0 ? bind_rb_str(&rb, 2, physical_name(e->type)) : bind_rb_null(&rb, 2);
            if (e->has_type_length) bind_rb_int(&rb, 3, e->type_length);
            else if (!rc) rc = bind_rb_null(&rb, 3);
            if (!rc) rc = bind_rb_str(&rb, 4, repetition_name(e));
            if (e->has_num_children) bind_rb_int(&rb, 5, e->num_children);
            else if (!rc) rc = bind_rb_null(&rb, 5);
            if (!rc) rc = e->has_converted_type ? bind_rb_str(&rb, 6, converted_name(e->converted_type)) : bind_rb_null(&rb, 6);
            if (e->has_scale) bind_rb_int(&rb, 7, e->scale);
            else if (!rc) rc = bind_rb_null(&rb, 7);
            if (e->has_precision) bind_rb_int(&rb, 8, e->precision);
            else if (!rc) rc = bind_rb_null(&rb, 8);
            if (e->has_field_id) bind_rb_int(&rb, 9, e->field_id);
            else if (!rc) rc = bind_rb_null(&rb, 9);
            logical_text(&e->logical, buf, sizeof buf);
            if (!rc) rc = buf[0] ? bind_rb_str(&rb, 10, buf) : bind_rb_null(&rb, 10);
            bool is_leaf = i > 0 && e->has_type && !(e->has_num_children && e->num_children > 0);
            if (is_leaf && leaf < pf->schema->n_leaves) {
                const pq_node *ln = pf->schema->leaves[leaf++];
                if (ln->unsupported)
                    snprintf(buf, sizeof buf, "unsupported: %s", ln->unsupported);
                else
                    type_format(ln->type, buf, sizeof buf);
                if (!rc) rc = bind_rb_str(&rb, 11, buf);
            } else if (!rc) {
                rc = bind_rb_null(&rb, 11);
            }
            rb.row++;
        }
        pq_file_release(pf);
    }
    if (rc) return rc;
    rs->n_rows = rb.row;
    src->est_rows = rb.row;
    (void)rel;
    return bind_tfunc_plan(b, "parquet_schema", src, out, names);
}

int bind_parquet_source(binder *b, const sql_relation *rel, const char *function,
                        scan_file_list *files, plan **out, const char ***names) {
    int rc;
    if (strcmp(function, "parquet_metadata") == 0)
        rc = bind_parquet_metadata(b, rel, files, out, names);
    else if (strcmp(function, "parquet_schema") == 0)
        rc = bind_parquet_schema(b, rel, files, out, names);
    else
        rc = bind_read_parquet(b, rel, files, out, names);
    scan_file_list_free(files);
    if (rc && b->err && b->err->line == 0) {
        b->err->line = rel->line;
        b->err->column = rel->col;
    }
    return rc;
}
