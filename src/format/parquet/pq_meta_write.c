/*
 * pq_meta_write.c: encodes Parquet FileMetaData, PageHeader, Statistics, ColumnIndex and
 * OffsetIndex with the Thrift compact protocol (see pq_meta_write.h).
 *
 * INTERFACE
 *   pq_meta_encode_file_metadata   the footer
 *   pq_meta_encode_page_header     a page header (data v1/v2, dictionary)
 *   pq_meta_encode_statistics      Statistics
 *   pq_meta_encode_offset_index, pq_meta_encode_column_index   the page index (PageIndex.md)
 *   pq_meta_encode_bloom_header    BloomFilterHeader (BloomFilter.md)
 * NOTES
 *   Field ids follow parquet.thrift (apache/parquet-format) and the decoders of pq_meta.c, which
 *   the unit tests use to read every encoded struct back. Fields are written in increasing id
 *   order so every header takes the one-byte short form. Optional fields go out only when their
 *   has_* flag is set; required fields always do. Lists of bools use the BOOL_TRUE element type
 *   and one byte per element (1 true, 2 false), as the reference implementations write them.
 */
#include "format/parquet/pq_meta_write.h"

#include <string.h>

/* ---- small structs ------------------------------------------------------------------------- */

static void encode_statistics(pq_thrift_writer *w, const pq_statistics *s) {
    pq_thrift_struct_open(w);
    if (s->has_max) pq_thrift_write_binary_field(w, 1, s->max, s->max_len);
    if (s->has_min) pq_thrift_write_binary_field(w, 2, s->min, s->min_len);
    if (s->has_null_count) pq_thrift_write_i64_field(w, 3, s->null_count);
    if (s->has_distinct_count) pq_thrift_write_i64_field(w, 4, s->distinct_count);
    if (s->has_max_value) pq_thrift_write_binary_field(w, 5, s->max_value, s->max_value_len);
    if (s->has_min_value) pq_thrift_write_binary_field(w, 6, s->min_value, s->min_value_len);
    if (s->has_is_max_value_exact) pq_thrift_write_bool_field(w, 7, s->is_max_value_exact);
    if (s->has_is_min_value_exact) pq_thrift_write_bool_field(w, 8, s->is_min_value_exact);
    pq_thrift_struct_close(w);
}

static void encode_key_values(pq_thrift_writer *w, int16_t id, const pq_key_value *kv, uint32_t n) {
    pq_thrift_list_field(w, id, PQ_THRIFT_STRUCT, n);
    for (uint32_t i = 0; i < n; i++) {
        pq_thrift_struct_open(w);
        pq_thrift_write_string_field(w, 1, kv[i].key ? kv[i].key : "");
        if (kv[i].value) pq_thrift_write_string_field(w, 2, kv[i].value);
        pq_thrift_struct_close(w);
    }
}

/* parquet.thrift: union TimeUnit. */
static void encode_time_unit(pq_thrift_writer *w, int16_t id, pq_time_unit unit) {
    pq_thrift_field(w, PQ_THRIFT_STRUCT, id);
    pq_thrift_struct_open(w);
    int16_t member = unit == PQ_UNIT_MILLIS ? 1 : unit == PQ_UNIT_NANOS ? 3 : 2;
    pq_thrift_write_empty_struct_field(w, member);
    pq_thrift_struct_close(w);
}

/* parquet.thrift: union LogicalType (a field of SchemaElement). Unknown kinds are not written. */
static void encode_logical_type(pq_thrift_writer *w, int16_t id, const pq_logical_type *lt) {
    switch (lt->kind) {
    case PQ_LT_STRING: case PQ_LT_MAP: case PQ_LT_LIST: case PQ_LT_ENUM: case PQ_LT_DATE:
    case PQ_LT_UNKNOWN: case PQ_LT_JSON: case PQ_LT_BSON: case PQ_LT_UUID: case PQ_LT_FLOAT16:
        pq_thrift_field(w, PQ_THRIFT_STRUCT, id);
        pq_thrift_struct_open(w);
        pq_thrift_write_empty_struct_field(w, (int16_t)lt->kind);
        pq_thrift_struct_close(w);
        return;
    case PQ_LT_DECIMAL:
        pq_thrift_field(w, PQ_THRIFT_STRUCT, id);
        pq_thrift_struct_open(w);
        pq_thrift_field(w, PQ_THRIFT_STRUCT, PQ_LT_DECIMAL);
        pq_thrift_struct_open(w);
        pq_thrift_write_i32_field(w, 1, lt->scale);
        pq_thrift_write_i32_field(w, 2, lt->precision);
        pq_thrift_struct_close(w);
        pq_thrift_struct_close(w);
        return;
    case PQ_LT_TIME:
    case PQ_LT_TIMESTAMP:
        pq_thrift_field(w, PQ_THRIFT_STRUCT, id);
        pq_thrift_struct_open(w);
        pq_thrift_field(w, PQ_THRIFT_STRUCT, (int16_t)lt->kind);
        pq_thrift_struct_open(w);
        pq_thrift_write_bool_field(w, 1, lt->is_adjusted_to_utc);
        encode_time_unit(w, 2, lt->unit);
        pq_thrift_struct_close(w);
        pq_thrift_struct_close(w);
        return;
    case PQ_LT_INTEGER:
        pq_thrift_field(w, PQ_THRIFT_STRUCT, id);
        pq_thrift_struct_open(w);
        pq_thrift_field(w, PQ_THRIFT_STRUCT, PQ_LT_INTEGER);
        pq_thrift_struct_open(w);
        pq_thrift_write_i8_field(w, 1, lt->bit_width);
        pq_thrift_write_bool_field(w, 2, lt->is_signed);
        pq_thrift_struct_close(w);
        pq_thrift_struct_close(w);
        return;
    default:
        return;
    }
}

/* parquet.thrift: SchemaElement. */
static void encode_schema_element(pq_thrift_writer *w, const pq_schema_element *e) {
    pq_thrift_struct_open(w);
    if (e->has_type) pq_thrift_write_i32_field(w, 1, e->type);
    if (e->has_type_length) pq_thrift_write_i32_field(w, 2, e->type_length);
    if (e->has_repetition) pq_thrift_write_i32_field(w, 3, e->repetition_type);
    pq_thrift_write_string_field(w, 4, e->name ? e->name : "");
    if (e->has_num_children) pq_thrift_write_i32_field(w, 5, e->num_children);
    if (e->has_converted_type) pq_thrift_write_i32_field(w, 6, e->converted_type);
    if (e->has_scale) pq_thrift_write_i32_field(w, 7, e->scale);
    if (e->has_precision) pq_thrift_write_i32_field(w, 8, e->precision);
    if (e->has_field_id) pq_thrift_write_i32_field(w, 9, e->field_id);
    if (e->logical.kind != PQ_LT_NONE) encode_logical_type(w, 10, &e->logical);
    pq_thrift_struct_close(w);
}

/* parquet.thrift: ColumnMetaData. */
static void encode_column_meta(pq_thrift_writer *w, const pq_column_meta *m) {
    pq_thrift_struct_open(w);
    pq_thrift_write_i32_field(w, 1, m->type);
    pq_thrift_list_field(w, 2, PQ_THRIFT_I32, m->n_encodings);
    for (uint32_t i = 0; i < m->n_encodings; i++) pq_thrift_write_i32(w, m->encodings[i]);
    pq_thrift_list_field(w, 3, PQ_THRIFT_BINARY, m->n_path_in_schema);
    for (uint32_t i = 0; i < m->n_path_in_schema; i++) pq_thrift_write_string(w, m->path_in_schema[i]);
    pq_thrift_write_i32_field(w, 4, m->codec);
    pq_thrift_write_i64_field(w, 5, m->num_values);
    pq_thrift_write_i64_field(w, 6, m->total_uncompressed_size);
    pq_thrift_write_i64_field(w, 7, m->total_compressed_size);
    if (m->n_key_value_metadata)
        encode_key_values(w, 8, m->key_value_metadata, m->n_key_value_metadata);
    pq_thrift_write_i64_field(w, 9, m->data_page_offset);
    if (m->has_index_page_offset) pq_thrift_write_i64_field(w, 10, m->index_page_offset);
    if (m->has_dictionary_page_offset) pq_thrift_write_i64_field(w, 11, m->dictionary_page_offset);
    if (m->has_statistics) {
        pq_thrift_field(w, PQ_THRIFT_STRUCT, 12);
        encode_statistics(w, &m->statistics);
    }
    if (m->has_bloom_filter_offset) pq_thrift_write_i64_field(w, 14, m->bloom_filter_offset);
    if (m->has_bloom_filter_length) pq_thrift_write_i32_field(w, 15, m->bloom_filter_length);
    pq_thrift_struct_close(w);
}

/* parquet.thrift: ColumnChunk. */
static void encode_column_chunk(pq_thrift_writer *w, const pq_column_chunk *c) {
    pq_thrift_struct_open(w);
    if (c->file_path) pq_thrift_write_string_field(w, 1, c->file_path);
    pq_thrift_write_i64_field(w, 2, c->file_offset);
    if (c->has_meta_data) {
        pq_thrift_field(w, PQ_THRIFT_STRUCT, 3);
        encode_column_meta(w, &c->meta_data);
    }
    if (c->has_offset_index) {
        pq_thrift_write_i64_field(w, 4, c->offset_index_offset);
        pq_thrift_write_i32_field(w, 5, c->offset_index_length);
    }
    if (c->has_column_index) {
        pq_thrift_write_i64_field(w, 6, c->column_index_offset);
        pq_thrift_write_i32_field(w, 7, c->column_index_length);
    }
    pq_thrift_struct_close(w);
}

/* parquet.thrift: RowGroup. */
static void encode_row_group(pq_thrift_writer *w, const pq_row_group *rg) {
    pq_thrift_struct_open(w);
    pq_thrift_list_field(w, 1, PQ_THRIFT_STRUCT, rg->n_columns);
    for (uint32_t i = 0; i < rg->n_columns; i++) encode_column_chunk(w, &rg->columns[i]);
    pq_thrift_write_i64_field(w, 2, rg->total_byte_size);
    pq_thrift_write_i64_field(w, 3, rg->num_rows);
    if (rg->has_file_offset) pq_thrift_write_i64_field(w, 5, rg->file_offset);
    if (rg->has_total_compressed_size) pq_thrift_write_i64_field(w, 6, rg->total_compressed_size);
    if (rg->has_ordinal) {
        pq_thrift_field(w, PQ_THRIFT_I16, 7);
        pq_thrift_write_i16(w, rg->ordinal);
    }
    pq_thrift_struct_close(w);
}

/* ---- exported encoders ------------------------------------------------------------------- */

static int check_meta(const pq_file_meta *m, sqe_error *err) {
    if (m->n_schema == 0 || !m->schema)
        return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "Parquet footer without a schema");
    for (uint32_t g = 0; g < m->n_row_groups; g++)
        for (uint32_t c = 0; c < m->row_groups[g].n_columns; c++)
            if (!m->row_groups[g].columns[c].has_meta_data)
                return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR,
                               "Parquet column chunk without metadata");
    return SQE_OK;
}

int pq_meta_encode_file_metadata(pq_thrift_writer *w, const pq_file_meta *m, sqe_error *err) {
    SQE_TRY(check_meta(m, err));
    pq_thrift_struct_open(w);
    pq_thrift_write_i32_field(w, 1, m->version);
    pq_thrift_list_field(w, 2, PQ_THRIFT_STRUCT, m->n_schema);
    for (uint32_t i = 0; i < m->n_schema; i++) encode_schema_element(w, &m->schema[i]);
    pq_thrift_write_i64_field(w, 3, m->num_rows);
    pq_thrift_list_field(w, 4, PQ_THRIFT_STRUCT, m->n_row_groups);
    for (uint32_t i = 0; i < m->n_row_groups; i++) encode_row_group(w, &m->row_groups[i]);
    if (m->n_key_value_metadata)
        encode_key_values(w, 5, m->key_value_metadata, m->n_key_value_metadata);
    if (m->created_by) pq_thrift_write_string_field(w, 6, m->created_by);
    if (m->column_orders && m->n_column_orders) {
        /* union ColumnOrder { 1: TypeDefinedOrder TYPE_ORDER } */
        pq_thrift_list_field(w, 7, PQ_THRIFT_STRUCT, m->n_column_orders);
        for (uint32_t i = 0; i < m->n_column_orders; i++) {
            pq_thrift_struct_open(w);
            pq_thrift_write_empty_struct_field(w, 1);
            pq_thrift_struct_close(w);
        }
    }
    pq_thrift_struct_close(w);
    return pq_thrift_writer_status(w, err);
}

int pq_meta_encode_statistics(pq_thrift_writer *w, const pq_statistics *s, sqe_error *err) {
    encode_statistics(w, s);
    return pq_thrift_writer_status(w, err);
}

int pq_meta_encode_page_header(pq_thrift_writer *w, const pq_page_header *h, sqe_error *err) {
    pq_thrift_struct_open(w);
    pq_thrift_write_i32_field(w, 1, h->type);
    pq_thrift_write_i32_field(w, 2, h->uncompressed_page_size);
    pq_thrift_write_i32_field(w, 3, h->compressed_page_size);
    if (h->has_crc) pq_thrift_write_i32_field(w, 4, h->crc);
    if (h->has_data_page_header) {
        const pq_data_page_header *d = &h->data_page_header;
        pq_thrift_field(w, PQ_THRIFT_STRUCT, 5);
        pq_thrift_struct_open(w);
        pq_thrift_write_i32_field(w, 1, d->num_values);
        pq_thrift_write_i32_field(w, 2, d->encoding);
        pq_thrift_write_i32_field(w, 3, d->definition_level_encoding);
        pq_thrift_write_i32_field(w, 4, d->repetition_level_encoding);
        if (d->has_statistics) {
            pq_thrift_field(w, PQ_THRIFT_STRUCT, 5);
            encode_statistics(w, &d->statistics);
        }
        pq_thrift_struct_close(w);
    }
    if (h->has_dictionary_page_header) {
        const pq_dictionary_page_header *d = &h->dictionary_page_header;
        pq_thrift_field(w, PQ_THRIFT_STRUCT, 7);
        pq_thrift_struct_open(w);
        pq_thrift_write_i32_field(w, 1, d->num_values);
        pq_thrift_write_i32_field(w, 2, d->encoding);
        if (d->has_is_sorted) pq_thrift_write_bool_field(w, 3, d->is_sorted);
        pq_thrift_struct_close(w);
    }
    if (h->has_data_page_header_v2) {
        const pq_data_page_header_v2 *d = &h->data_page_header_v2;
        pq_thrift_field(w, PQ_THRIFT_STRUCT, 8);
        pq_thrift_struct_open(w);
        pq_thrift_write_i32_field(w, 1, d->num_values);
        pq_thrift_write_i32_field(w, 2, d->num_nulls);
        pq_thrift_write_i32_field(w, 3, d->num_rows);
        pq_thrift_write_i32_field(w, 4, d->encoding);
        pq_thrift_write_i32_field(w, 5, d->definition_levels_byte_length);
        pq_thrift_write_i32_field(w, 6, d->repetition_levels_byte_length);
        pq_thrift_write_bool_field(w, 7, d->is_compressed);
        if (d->has_statistics) {
            pq_thrift_field(w, PQ_THRIFT_STRUCT, 8);
            encode_statistics(w, &d->statistics);
        }
        pq_thrift_struct_close(w);
    }
    pq_thrift_struct_close(w);
    return pq_thrift_writer_status(w, err);
}

int pq_meta_encode_bloom_header(pq_thrift_writer *w, int32_t num_bytes, sqe_error *err) {
    /* BloomFilterHeader { 1: numBytes; 2: algorithm { 1: BLOCK }; 3: hash { 1: XXHASH };
     * 4: compression { 1: UNCOMPRESSED } } */
    pq_thrift_struct_open(w);
    pq_thrift_write_i32_field(w, 1, num_bytes);
    for (int16_t id = 2; id <= 4; id++) {
        pq_thrift_field(w, PQ_THRIFT_STRUCT, id);
        pq_thrift_struct_open(w);
        pq_thrift_write_empty_struct_field(w, 1);
        pq_thrift_struct_close(w);
    }
    pq_thrift_struct_close(w);
    return pq_thrift_writer_status(w, err);
}

int pq_meta_encode_offset_index(pq_thrift_writer *w, const pq_offset_index *oi, sqe_error *err) {
    pq_thrift_struct_open(w);
    pq_thrift_list_field(w, 1, PQ_THRIFT_STRUCT, oi->n_pages);
    for (uint32_t i = 0; i < oi->n_pages; i++) {
        const pq_page_location *p = &oi->pages[i];
        pq_thrift_struct_open(w);
        pq_thrift_write_i64_field(w, 1, p->offset);
        pq_thrift_write_i32_field(w, 2, p->compressed_page_size);
        pq_thrift_write_i64_field(w, 3, p->first_row_index);
        pq_thrift_struct_close(w);
    }
    pq_thrift_struct_close(w);
    return pq_thrift_writer_status(w, err);
}

int pq_meta_encode_column_index(pq_thrift_writer *w, const pq_column_index *ci, sqe_error *err) {
    uint32_t n = ci->n_pages;
    pq_thrift_struct_open(w);
    pq_thrift_list_field(w, 1, PQ_THRIFT_BOOL_TRUE, n);
    for (uint32_t i = 0; i < n; i++) pq_thrift_write_bool_elem(w, ci->null_pages[i]);
    pq_thrift_list_field(w, 2, PQ_THRIFT_BINARY, n);
    for (uint32_t i = 0; i < n; i++)
        pq_thrift_write_binary(w, ci->min_values[i].ptr, ci->min_values[i].len);
    pq_thrift_list_field(w, 3, PQ_THRIFT_BINARY, n);
    for (uint32_t i = 0; i < n; i++)
        pq_thrift_write_binary(w, ci->max_values[i].ptr, ci->max_values[i].len);
    pq_thrift_write_i32_field(w, 4, ci->boundary_order);
    if (ci->null_counts) {
        pq_thrift_list_field(w, 5, PQ_THRIFT_I64, n);
        for (uint32_t i = 0; i < n; i++) pq_thrift_write_i64(w, ci->null_counts[i]);
    }
    pq_thrift_struct_close(w);
    return pq_thrift_writer_status(w, err);
}
