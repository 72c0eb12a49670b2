/*
 * pq_meta.c: decodes Parquet FileMetaData (the footer) and PageHeader structures from the Thrift
 * compact protocol into the arena-allocated C structs of pq_meta.h.
 *
 * INTERFACE
 *   pq_meta_decode_file_metadata   FileMetaData from a byte range
 *   pq_meta_decode_page_header     one PageHeader, and its encoded length
 *   pq_meta_read_footer            magic + footer length checks, then FileMetaData
 * NOTES
 *   Field ids and enum values follow parquet.thrift (apache/parquet-format); each decoder names
 *   the struct it implements. Unknown fields, and known fields with an unexpected wire type, are
 *   skipped with pq_thrift_skip, so newer writers' additions are ignored. Lists are allocated up
 *   front from their (already bounded) count, but all allocation is charged to a budget that is a
 *   fixed multiple of the input size, so a hostile footer cannot make us allocate far more than
 *   its own size. Strings and binaries are copied into the arena.
 */
#include "format/parquet/pq_meta.h"

#include <stdio.h>
#include <string.h>

#include "format/parquet/thrift.h"

/* Allocation budget: bytes of decoded structs allowed per input byte, plus a constant. The
 * largest legitimate ratio (a ColumnChunk of ~40 bytes on the wire becomes a ~300 byte struct)
 * stays well below it. */
#define META_BUDGET_PER_BYTE 32
#define META_BUDGET_BASE ((size_t)1 << 20)

typedef struct meta_ctx {
    pq_thrift_reader r;
    arena *a;
    size_t budget; /* bytes left to allocate */
} meta_ctx;

static void ctx_init(meta_ctx *c, arena *a, const uint8_t *buf, size_t len, sqe_error *err) {
    pq_thrift_init(&c->r, buf, len, err);
    c->a = a;
    c->budget = META_BUDGET_BASE + (len < SIZE_MAX / 64 ? len * META_BUDGET_PER_BYTE : len);
}

static int ctx_alloc(meta_ctx *c, size_t n, void **out) {
    *out = NULL;
    if (c->r.failed) return SQE_ERR_INVALID_FILE;
    if (n > c->budget) return pq_thrift_fail(&c->r, "metadata too large for its size");
    c->budget -= n;
    *out = arena_zalloc(c->a, n ? n : 1);
    if (!*out) {
        c->r.failed = 1;
        return err_nomem(c->r.err, "Parquet metadata");
    }
    return SQE_OK;
}

/* A string field, copied and NUL-terminated. */
static int read_string(meta_ctx *c, char **out) {
    const uint8_t *data;
    size_t len;
    void *p;
    *out = NULL;
    SQE_TRY(pq_thrift_read_binary(&c->r, &data, &len));
    SQE_TRY(ctx_alloc(c, len + 1, &p));
    memcpy(p, data, len);
    *out = p;
    return SQE_OK;
}

/* A binary field, copied (one extra zero byte keeps the pointer valid for len 0). */
static int read_bytes(meta_ctx *c, const uint8_t **out, size_t *out_len) {
    const uint8_t *data;
    size_t len;
    void *p;
    *out = NULL;
    *out_len = 0;
    SQE_TRY(pq_thrift_read_binary(&c->r, &data, &len));
    SQE_TRY(ctx_alloc(c, len + 1, &p));
    memcpy(p, data, len);
    *out = p;
    *out_len = len;
    return SQE_OK;
}

/* Reads a list header whose elements must be of wire type `want` and allocates n elements of
 * elem_size bytes. */
static int read_list(meta_ctx *c, int want, size_t elem_size, void **items, uint32_t *n) {
    int et;
    *items = NULL;
    *n = 0;
    SQE_TRY(pq_thrift_list_header(&c->r, &et, n));
    if (et != want && !(want == PQ_THRIFT_BOOL_TRUE && et == PQ_THRIFT_BOOL_FALSE)) {
        *n = 0;
        return pq_thrift_fail(&c->r, "unexpected list element type");
    }
    return ctx_alloc(c, (size_t)*n * elem_size, items);
}

static int read_i32_list(meta_ctx *c, int32_t **out, uint32_t *n) {
    void *items;
    SQE_TRY(read_list(c, PQ_THRIFT_I32, sizeof(int32_t), &items, n));
    *out = items;
    for (uint32_t i = 0; i < *n; i++) SQE_TRY(pq_thrift_read_i32(&c->r, &(*out)[i]));
    return SQE_OK;
}

static int read_string_list(meta_ctx *c, char ***out, uint32_t *n) {
    void *items;
    SQE_TRY(read_list(c, PQ_THRIFT_BINARY, sizeof(char *), &items, n));
    *out = items;
    for (uint32_t i = 0; i < *n; i++) SQE_TRY(read_string(c, &(*out)[i]));
    return SQE_OK;
}

/* Struct traversal: `FIELDS(c) { switch (fid) { ... } }` with `t` the wire type and `fid` the
 * field id. A case that handles its field ends in `continue`; falling out of the switch skips
 * the value. */
#define FIELDS_BEGIN(c)                                                                            \
    SQE_TRY(pq_thrift_struct_begin(&(c)->r));                                                      \
    for (;;) {                                                                                     \
        int t;                                                                                     \
        int16_t fid;                                                                               \
        SQE_TRY(pq_thrift_field_header(&(c)->r, &t, &fid));                                        \
        if (t == PQ_THRIFT_STOP) break;                                                            \
        switch (fid) {
#define FIELDS_END(c)                                                                              \
    default:                                                                                       \
        break;                                                                                     \
        }                                                                                          \
        SQE_TRY(pq_thrift_skip(&(c)->r, t));                                                       \
    }                                                                                              \
    pq_thrift_struct_end(&(c)->r)

#define F_I32(id, dst, flag)                                                                       \
    case id:                                                                                       \
        if (t == PQ_THRIFT_I32) {                                                                  \
            SQE_TRY(pq_thrift_read_i32(&c->r, &(dst)));                                            \
            flag;                                                                                  \
            continue;                                                                              \
        }                                                                                          \
        break;
#define F_I64(id, dst, flag)                                                                       \
    case id:                                                                                       \
        if (t == PQ_THRIFT_I64) {                                                                  \
            SQE_TRY(pq_thrift_read_i64(&c->r, &(dst)));                                            \
            flag;                                                                                  \
            continue;                                                                              \
        }                                                                                          \
        break;
#define F_BOOL(id, dst, flag)                                                                      \
    case id:                                                                                       \
        if (t == PQ_THRIFT_BOOL_TRUE || t == PQ_THRIFT_BOOL_FALSE) {                               \
            (dst) = pq_thrift_field_bool(t);                                                       \
            flag;                                                                                  \
            continue;                                                                              \
        }                                                                                          \
        break;
#define F_BYTES(id, dst, dst_len, flag)                                                            \
    case id:                                                                                       \
        if (t == PQ_THRIFT_BINARY) {                                                               \
            SQE_TRY(read_bytes(c, &(dst), &(dst_len)));                                            \
            flag;                                                                                  \
            continue;                                                                              \
        }                                                                                          \
        break;
#define F_STRING(id, dst)                                                                          \
    case id:                                                                                       \
        if (t == PQ_THRIFT_BINARY) {                                                               \
            SQE_TRY(read_string(c, &(dst)));                                                       \
            continue;                                                                              \
        }                                                                                          \
        break;
#define F_STRUCT(id, call, flag)                                                                   \
    case id:                                                                                       \
        if (t == PQ_THRIFT_STRUCT) {                                                               \
            SQE_TRY(call);                                                                         \
            flag;                                                                                  \
            continue;                                                                              \
        }                                                                                          \
        break;
#define F_LIST(id, call)                                                                           \
    case id:                                                                                       \
        if (t == PQ_THRIFT_LIST) {                                                                 \
            SQE_TRY(call);                                                                         \
            continue;                                                                              \
        }                                                                                          \
        break;

#define NOTHING ((void)0)

/* parquet.thrift: Statistics. */
static int decode_statistics(meta_ctx *c, pq_statistics *s) {
    FIELDS_BEGIN(c)
    F_BYTES(1, s->max, s->max_len, s->has_max = true)
    F_BYTES(2, s->min, s->min_len, s->has_min = true)
    F_I64(3, s->null_count, s->has_null_count = true)
    F_I64(4, s->distinct_count, s->has_distinct_count = true)
    F_BYTES(5, s->max_value, s->max_value_len, s->has_max_value = true)
    F_BYTES(6, s->min_value, s->min_value_len, s->has_min_value = true)
    F_BOOL(7, s->is_max_value_exact, s->has_is_max_value_exact = true)
    F_BOOL(8, s->is_min_value_exact, s->has_is_min_value_exact = true)
    FIELDS_END(c);
    return SQE_OK;
}

/* parquet.thrift: union TimeUnit (MILLIS=1, MICROS=2, NANOS=3, each an empty struct). */
static int decode_time_unit(meta_ctx *c, pq_time_unit *unit) {
    FIELDS_BEGIN(c)
    case 1:
    case 2:
    case 3:
        if (t == PQ_THRIFT_STRUCT) *unit = (pq_time_unit)fid;
        break; /* skip the empty struct */
    FIELDS_END(c);
    return SQE_OK;
}

/* parquet.thrift: TimeType and TimestampType (isAdjustedToUTC=1, unit=2). */
static int decode_time_type(meta_ctx *c, pq_logical_type *lt) {
    FIELDS_BEGIN(c)
    F_BOOL(1, lt->is_adjusted_to_utc, NOTHING)
    F_STRUCT(2, decode_time_unit(c, &lt->unit), NOTHING)
    FIELDS_END(c);
    return SQE_OK;
}

/* parquet.thrift: DecimalType (scale=1, precision=2). */
static int decode_decimal_type(meta_ctx *c, pq_logical_type *lt) {
    FIELDS_BEGIN(c)
    F_I32(1, lt->scale, NOTHING)
    F_I32(2, lt->precision, NOTHING)
    FIELDS_END(c);
    return SQE_OK;
}

/* parquet.thrift: IntType (bitWidth=1 i8, isSigned=2). */
static int decode_int_type(meta_ctx *c, pq_logical_type *lt) {
    FIELDS_BEGIN(c)
    case 1:
        if (t == PQ_THRIFT_I8) {
            SQE_TRY(pq_thrift_read_i8(&c->r, &lt->bit_width));
            continue;
        }
        break;
    F_BOOL(2, lt->is_signed, NOTHING)
    FIELDS_END(c);
    return SQE_OK;
}

/* parquet.thrift: union LogicalType. The last member present wins; unknown members are kept as
 * PQ_LT_OTHER with their id so the schema layer can reject or ignore them. */
static int decode_logical_member(meta_ctx *c, int16_t fid, pq_logical_type *lt) {
    memset(lt, 0, sizeof(*lt));
    lt->raw_id = fid;
    switch (fid) {
    case PQ_LT_STRING: case PQ_LT_MAP: case PQ_LT_LIST: case PQ_LT_ENUM: case PQ_LT_DATE:
    case PQ_LT_UNKNOWN: case PQ_LT_JSON: case PQ_LT_BSON: case PQ_LT_UUID: case PQ_LT_FLOAT16:
        lt->kind = (pq_logical_kind)fid; /* parameterless: an empty struct */
        return pq_thrift_skip(&c->r, PQ_THRIFT_STRUCT);
    case PQ_LT_DECIMAL:
        lt->kind = PQ_LT_DECIMAL;
        return decode_decimal_type(c, lt);
    case PQ_LT_TIME:
    case PQ_LT_TIMESTAMP:
        lt->kind = (pq_logical_kind)fid;
        return decode_time_type(c, lt);
    case PQ_LT_INTEGER:
        lt->kind = PQ_LT_INTEGER;
        return decode_int_type(c, lt);
    default:
        lt->kind = PQ_LT_OTHER;
        return pq_thrift_skip(&c->r, PQ_THRIFT_STRUCT);
    }
}

static int decode_logical_type(meta_ctx *c, pq_logical_type *lt) {
    SQE_TRY(pq_thrift_struct_begin(&c->r));
    for (;;) {
        int t;
        int16_t fid;
        SQE_TRY(pq_thrift_field_header(&c->r, &t, &fid));
        if (t == PQ_THRIFT_STOP) break;
        if (t == PQ_THRIFT_STRUCT)
            SQE_TRY(decode_logical_member(c, fid, lt));
        else
            SQE_TRY(pq_thrift_skip(&c->r, t));
    }
    pq_thrift_struct_end(&c->r);
    return SQE_OK;
}

/* parquet.thrift: SchemaElement. */
static int decode_schema_element(meta_ctx *c, void *item) {
    pq_schema_element *e = item;
    FIELDS_BEGIN(c)
    F_I32(1, e->type, e->has_type = true)
    F_I32(2, e->type_length, e->has_type_length = true)
    F_I32(3, e->repetition_type, e->has_repetition = true)
    F_STRING(4, e->name)
    F_I32(5, e->num_children, e->has_num_children = true)
    F_I32(6, e->converted_type, e->has_converted_type = true)
    F_I32(7, e->scale, e->has_scale = true)
    F_I32(8, e->precision, e->has_precision = true)
    F_I32(9, e->field_id, e->has_field_id = true)
    F_STRUCT(10, decode_logical_type(c, &e->logical), NOTHING)
    FIELDS_END(c);
    if (e->has_num_children && e->num_children < 0)
        return pq_thrift_fail(&c->r, "negative num_children");
    if (!e->name) {
        void *p;
        SQE_TRY(ctx_alloc(c, 1, &p));
        e->name = p;
    }
    return SQE_OK;
}

/* parquet.thrift: KeyValue. */
static int decode_key_value(meta_ctx *c, void *item) {
    pq_key_value *kv = item;
    FIELDS_BEGIN(c)
    F_STRING(1, kv->key)
    F_STRING(2, kv->value)
    FIELDS_END(c);
    if (!kv->key) return pq_thrift_fail(&c->r, "KeyValue without key");
    return SQE_OK;
}

/* parquet.thrift: union ColumnOrder (TYPE_ORDER=1). */
static int decode_column_order(meta_ctx *c, void *item) {
    int32_t *order = item;
    FIELDS_BEGIN(c)
    case 1:
        if (t == PQ_THRIFT_STRUCT) *order = PQ_ORDER_TYPE_DEFINED;
        break;
    FIELDS_END(c);
    return SQE_OK;
}

typedef int (*elem_decoder)(meta_ctx *c, void *item);

static int read_struct_list(meta_ctx *c, size_t elem_size, elem_decoder fn, void **out,
                            uint32_t *n) {
    SQE_TRY(read_list(c, PQ_THRIFT_STRUCT, elem_size, out, n));
    for (uint32_t i = 0; i < *n; i++) SQE_TRY(fn(c, (char *)*out + (size_t)i * elem_size));
    return SQE_OK;
}

#define STRUCT_LIST(c, arr, n, fn)                                                                 \
    read_struct_list(c, sizeof(*(arr)), fn, (void **)&(arr), &(n))

static int check_nonneg(meta_ctx *c, int64_t v, const char *what) {
    if (v >= 0) return SQE_OK;
    char msg[96];
    snprintf(msg, sizeof(msg), "negative %s", what);
    return pq_thrift_fail(&c->r, msg);
}

/* parquet.thrift: ColumnMetaData. */
static int decode_column_meta(meta_ctx *c, pq_column_meta *m) {
    FIELDS_BEGIN(c)
    F_I32(1, m->type, NOTHING)
    F_LIST(2, read_i32_list(c, &m->encodings, &m->n_encodings))
    F_LIST(3, read_string_list(c, &m->path_in_schema, &m->n_path_in_schema))
    F_I32(4, m->codec, NOTHING)
    F_I64(5, m->num_values, NOTHING)
    F_I64(6, m->total_uncompressed_size, NOTHING)
    F_I64(7, m->total_compressed_size, NOTHING)
    F_LIST(8, STRUCT_LIST(c, m->key_value_metadata, m->n_key_value_metadata, decode_key_value))
    F_I64(9, m->data_page_offset, NOTHING)
    F_I64(10, m->index_page_offset, m->has_index_page_offset = true)
    F_I64(11, m->dictionary_page_offset, m->has_dictionary_page_offset = true)
    F_STRUCT(12, decode_statistics(c, &m->statistics), m->has_statistics = true)
    /* 13 encoding_stats, 16 size_statistics, 17 geospatial_statistics: skipped. */
    F_I64(14, m->bloom_filter_offset, m->has_bloom_filter_offset = true)
    F_I32(15, m->bloom_filter_length, m->has_bloom_filter_length = true)
    FIELDS_END(c);
    SQE_TRY(check_nonneg(c, m->num_values, "num_values"));
    SQE_TRY(check_nonneg(c, m->total_uncompressed_size, "total_uncompressed_size"));
    SQE_TRY(check_nonneg(c, m->total_compressed_size, "total_compressed_size"));
    SQE_TRY(check_nonneg(c, m->data_page_offset, "data_page_offset"));
    return SQE_OK;
}

/* parquet.thrift: ColumnChunk. */
static int decode_column_chunk(meta_ctx *c, void *item) {
    pq_column_chunk *cc = item;
    FIELDS_BEGIN(c)
    F_STRING(1, cc->file_path)
    F_I64(2, cc->file_offset, NOTHING)
    F_STRUCT(3, decode_column_meta(c, &cc->meta_data), cc->has_meta_data = true)
    F_I64(4, cc->offset_index_offset, cc->has_offset_index = true)
    F_I32(5, cc->offset_index_length, NOTHING)
    F_I64(6, cc->column_index_offset, cc->has_column_index = true)
    F_I32(7, cc->column_index_length, NOTHING)
    case 8: /* crypto_metadata: ColumnCryptoMetaData */
    case 9: /* encrypted_column_metadata: binary */
        cc->has_crypto_metadata = true;
        break;
    FIELDS_END(c);
    return SQE_OK;
}

/* parquet.thrift: RowGroup (4 sorting_columns skipped). */
static int decode_row_group(meta_ctx *c, void *item) {
    pq_row_group *rg = item;
    FIELDS_BEGIN(c)
    F_LIST(1, STRUCT_LIST(c, rg->columns, rg->n_columns, decode_column_chunk))
    F_I64(2, rg->total_byte_size, NOTHING)
    F_I64(3, rg->num_rows, NOTHING)
    F_I64(5, rg->file_offset, rg->has_file_offset = true)
    F_I64(6, rg->total_compressed_size, rg->has_total_compressed_size = true)
    case 7:
        if (t == PQ_THRIFT_I16) {
            SQE_TRY(pq_thrift_read_i16(&c->r, &rg->ordinal));
            rg->has_ordinal = true;
            continue;
        }
        break;
    FIELDS_END(c);
    SQE_TRY(check_nonneg(c, rg->num_rows, "row group num_rows"));
    SQE_TRY(check_nonneg(c, rg->total_byte_size, "row group total_byte_size"));
    return SQE_OK;
}

/* parquet.thrift: FileMetaData. */
static int decode_file_meta(meta_ctx *c, pq_file_meta *fm) {
    bool has_schema = false, has_num_rows = false, has_row_groups = false;
    FIELDS_BEGIN(c)
    F_I32(1, fm->version, NOTHING)
    F_LIST(2, (has_schema = true, STRUCT_LIST(c, fm->schema, fm->n_schema, decode_schema_element)))
    F_I64(3, fm->num_rows, has_num_rows = true)
    F_LIST(4, (has_row_groups = true,
               STRUCT_LIST(c, fm->row_groups, fm->n_row_groups, decode_row_group)))
    F_LIST(5, STRUCT_LIST(c, fm->key_value_metadata, fm->n_key_value_metadata, decode_key_value))
    F_STRING(6, fm->created_by)
    F_LIST(7, STRUCT_LIST(c, fm->column_orders, fm->n_column_orders, decode_column_order))
    case 8: /* encryption_algorithm: EncryptionAlgorithm */
        fm->has_encryption_algorithm = true;
        break;
    FIELDS_END(c);
    if (!has_schema || fm->n_schema == 0) return pq_thrift_fail(&c->r, "empty schema");
    if (!has_num_rows) return pq_thrift_fail(&c->r, "missing num_rows");
    if (!has_row_groups) return pq_thrift_fail(&c->r, "missing row_groups");
    SQE_TRY(check_nonneg(c, fm->num_rows, "num_rows"));
    return SQE_OK;
}

int pq_meta_decode_file_metadata(arena *a, const uint8_t *buf, size_t len, pq_file_meta **out,
                                 sqe_error *err) {
    meta_ctx c;
    void *p;
    *out = NULL;
    ctx_init(&c, a, buf, len, err);
    SQE_TRY(ctx_alloc(&c, sizeof(pq_file_meta), &p));
    SQE_TRY(decode_file_meta(&c, p));
    *out = p;
    return SQE_OK;
}

/* parquet.thrift: DataPageHeader. */
static int decode_data_page_header(meta_ctx *c, pq_data_page_header *h) {
    FIELDS_BEGIN(c)
    F_I32(1, h->num_values, NOTHING)
    F_I32(2, h->encoding, NOTHING)
    F_I32(3, h->definition_level_encoding, NOTHING)
    F_I32(4, h->repetition_level_encoding, NOTHING)
    F_STRUCT(5, decode_statistics(c, &h->statistics), h->has_statistics = true)
    FIELDS_END(c);
    return check_nonneg(c, h->num_values, "page num_values");
}

/* parquet.thrift: DictionaryPageHeader. */
static int decode_dictionary_page_header(meta_ctx *c, pq_dictionary_page_header *h) {
    FIELDS_BEGIN(c)
    F_I32(1, h->num_values, NOTHING)
    F_I32(2, h->encoding, NOTHING)
    F_BOOL(3, h->is_sorted, h->has_is_sorted = true)
    FIELDS_END(c);
    return check_nonneg(c, h->num_values, "dictionary num_values");
}

/* parquet.thrift: DataPageHeaderV2. */
static int decode_data_page_header_v2(meta_ctx *c, pq_data_page_header_v2 *h) {
    h->is_compressed = true; /* default per parquet.thrift */
    FIELDS_BEGIN(c)
    F_I32(1, h->num_values, NOTHING)
    F_I32(2, h->num_nulls, NOTHING)
    F_I32(3, h->num_rows, NOTHING)
    F_I32(4, h->encoding, NOTHING)
    F_I32(5, h->definition_levels_byte_length, NOTHING)
    F_I32(6, h->repetition_levels_byte_length, NOTHING)
    F_BOOL(7, h->is_compressed, NOTHING)
    F_STRUCT(8, decode_statistics(c, &h->statistics), h->has_statistics = true)
    FIELDS_END(c);
    SQE_TRY(check_nonneg(c, h->num_values, "page num_values"));
    SQE_TRY(check_nonneg(c, h->num_nulls, "page num_nulls"));
    SQE_TRY(check_nonneg(c, h->num_rows, "page num_rows"));
    SQE_TRY(check_nonneg(c, h->definition_levels_byte_length, "definition_levels_byte_length"));
    SQE_TRY(check_nonneg(c, h->repetition_levels_byte_length, "repetition_levels_byte_length"));
    return SQE_OK;
}

/* parquet.thrift: PageHeader (6 index_page_header skipped). */
static int decode_page_header(meta_ctx *c, pq_page_header *h) {
    bool has_type = false, has_usize = false, has_csize = false;
    FIELDS_BEGIN(c)
    F_I32(1, h->type, has_type = true)
    F_I32(2, h->uncompressed_page_size, has_usize = true)
    F_I32(3, h->compressed_page_size, has_csize = true)
    F_I32(4, h->crc, h->has_crc = true)
    F_STRUCT(5, decode_data_page_header(c, &h->data_page_header), h->has_data_page_header = true)
    F_STRUCT(7, decode_dictionary_page_header(c, &h->dictionary_page_header),
             h->has_dictionary_page_header = true)
    F_STRUCT(8, decode_data_page_header_v2(c, &h->data_page_header_v2),
             h->has_data_page_header_v2 = true)
    FIELDS_END(c);
    if (!has_type || !has_usize || !has_csize)
        return pq_thrift_fail(&c->r, "PageHeader misses a required field");
    SQE_TRY(check_nonneg(c, h->uncompressed_page_size, "uncompressed_page_size"));
    SQE_TRY(check_nonneg(c, h->compressed_page_size, "compressed_page_size"));
    return SQE_OK;
}

int pq_meta_decode_page_header(arena *a, const uint8_t *buf, size_t len, pq_page_header *out,
                               size_t *header_len, sqe_error *err) {
    meta_ctx c;
    memset(out, 0, sizeof(*out));
    *header_len = 0;
    ctx_init(&c, a, buf, len, err);
    int rc = decode_page_header(&c, out);
    if (rc != SQE_OK) {
        memset(out, 0, sizeof(*out));
        return rc;
    }
    *header_len = c.r.pos;
    return SQE_OK;
}

static uint32_t le32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int pq_meta_check_ends(const uint8_t head[4], const uint8_t tail[8], uint64_t file_len,
                       uint32_t *footer_len, sqe_error *err) {
    *footer_len = 0;
    /* File layout (Parquet spec): "PAR1" <data> <FileMetaData> <len:u32 le> "PAR1";
     * encrypted files with an encrypted footer use "PARE" instead. */
    if (file_len < 12)
        return err_set(err, SQE_ERR_INVALID_FILE, "Invalid Parquet file: too short (%llu bytes)",
                       (unsigned long long)file_len);
    if (memcmp(head, "PARE", 4) == 0 || memcmp(tail + 4, "PARE", 4) == 0)
        return err_set(err, SQE_ERR_NOT_SUPPORTED, "unsupported: encrypted Parquet files");
    if (memcmp(head, "PAR1", 4) != 0 || memcmp(tail + 4, "PAR1", 4) != 0)
        return err_set(err, SQE_ERR_INVALID_FILE, "Invalid Parquet file: missing PAR1 magic");
    uint32_t len = le32(tail);
    if (len == 0 || len > file_len - 12)
        return err_set(err, SQE_ERR_INVALID_FILE,
                       "Invalid Parquet file: footer length %u does not fit in %llu bytes", len,
                       (unsigned long long)file_len);
    *footer_len = len;
    return SQE_OK;
}

int pq_meta_decode_footer(arena *a, const uint8_t *footer, size_t footer_len, pq_file_meta **out,
                          sqe_error *err) {
    *out = NULL;
    pq_file_meta *fm;
    SQE_TRY(pq_meta_decode_file_metadata(a, footer, footer_len, &fm, err));
    if (fm->has_encryption_algorithm)
        return err_set(err, SQE_ERR_NOT_SUPPORTED, "unsupported: encrypted Parquet files");
    *out = fm;
    return SQE_OK;
}

int pq_meta_read_footer(arena *a, const uint8_t *file, size_t file_len, pq_file_meta **out,
                        sqe_error *err) {
    *out = NULL;
    if (!file || file_len < 12)
        return err_set(err, SQE_ERR_INVALID_FILE, "Invalid Parquet file: too short (%zu bytes)",
                       file_len);
    uint32_t footer_len;
    SQE_TRY(pq_meta_check_ends(file, file + file_len - 8, file_len, &footer_len, err));
    return pq_meta_decode_footer(a, file + file_len - 8 - footer_len, footer_len, out, err);
}
