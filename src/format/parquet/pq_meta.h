/*
 * pq_meta.h: Parquet file metadata (the footer's FileMetaData) and page headers (PageHeader),
 * decoded from the Thrift compact protocol into plain C structs allocated in an arena.
 *
 * Field names and enum values follow parquet.thrift (apache/parquet-format). Optional fields
 * carry a has_* flag; unknown fields are skipped so files from newer writers stay readable.
 * All strings and binaries are copied into the arena (strings are NUL-terminated), so decoded
 * metadata does not point into the input buffer.
 */
#ifndef SQE_FORMAT_PARQUET_PQ_META_H
#define SQE_FORMAT_PARQUET_PQ_META_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/arena.h"
#include "common/err.h"

/* parquet.thrift: enum Type (physical type). */
typedef enum pq_physical_type {
    PQ_TYPE_BOOLEAN = 0,
    PQ_TYPE_INT32 = 1,
    PQ_TYPE_INT64 = 2,
    PQ_TYPE_INT96 = 3,
    PQ_TYPE_FLOAT = 4,
    PQ_TYPE_DOUBLE = 5,
    PQ_TYPE_BYTE_ARRAY = 6,
    PQ_TYPE_FIXED_LEN_BYTE_ARRAY = 7,
} pq_physical_type;

/* parquet.thrift: enum ConvertedType (legacy annotations). */
typedef enum pq_converted_type {
    PQ_CT_UTF8 = 0,
    PQ_CT_MAP = 1,
    PQ_CT_MAP_KEY_VALUE = 2,
    PQ_CT_LIST = 3,
    PQ_CT_ENUM = 4,
    PQ_CT_DECIMAL = 5,
    PQ_CT_DATE = 6,
    PQ_CT_TIME_MILLIS = 7,
    PQ_CT_TIME_MICROS = 8,
    PQ_CT_TIMESTAMP_MILLIS = 9,
    PQ_CT_TIMESTAMP_MICROS = 10,
    PQ_CT_UINT_8 = 11,
    PQ_CT_UINT_16 = 12,
    PQ_CT_UINT_32 = 13,
    PQ_CT_UINT_64 = 14,
    PQ_CT_INT_8 = 15,
    PQ_CT_INT_16 = 16,
    PQ_CT_INT_32 = 17,
    PQ_CT_INT_64 = 18,
    PQ_CT_JSON = 19,
    PQ_CT_BSON = 20,
    PQ_CT_INTERVAL = 21,
} pq_converted_type;

/* parquet.thrift: enum FieldRepetitionType. */
typedef enum pq_repetition {
    PQ_REP_REQUIRED = 0,
    PQ_REP_OPTIONAL = 1,
    PQ_REP_REPEATED = 2,
} pq_repetition;

/* parquet.thrift: enum Encoding. */
typedef enum pq_encoding {
    PQ_ENC_PLAIN = 0,
    PQ_ENC_PLAIN_DICTIONARY = 2,
    PQ_ENC_RLE = 3,
    PQ_ENC_BIT_PACKED = 4,
    PQ_ENC_DELTA_BINARY_PACKED = 5,
    PQ_ENC_DELTA_LENGTH_BYTE_ARRAY = 6,
    PQ_ENC_DELTA_BYTE_ARRAY = 7,
    PQ_ENC_RLE_DICTIONARY = 8,
    PQ_ENC_BYTE_STREAM_SPLIT = 9,
} pq_encoding;

/* parquet.thrift: enum CompressionCodec. */
typedef enum pq_codec {
    PQ_CODEC_UNCOMPRESSED = 0,
    PQ_CODEC_SNAPPY = 1,
    PQ_CODEC_GZIP = 2,
    PQ_CODEC_LZO = 3,
    PQ_CODEC_BROTLI = 4,
    PQ_CODEC_LZ4 = 5,
    PQ_CODEC_ZSTD = 6,
    PQ_CODEC_LZ4_RAW = 7,
} pq_codec;

/* parquet.thrift: enum PageType. */
typedef enum pq_page_type {
    PQ_PAGE_DATA = 0,
    PQ_PAGE_INDEX = 1,
    PQ_PAGE_DICTIONARY = 2,
    PQ_PAGE_DATA_V2 = 3,
} pq_page_type;

/* parquet.thrift: union LogicalType; the member is identified by its field id. */
typedef enum pq_logical_kind {
    PQ_LT_NONE = 0,      /* no logicalType field */
    PQ_LT_STRING = 1,
    PQ_LT_MAP = 2,
    PQ_LT_LIST = 3,
    PQ_LT_ENUM = 4,
    PQ_LT_DECIMAL = 5,
    PQ_LT_DATE = 6,
    PQ_LT_TIME = 7,
    PQ_LT_TIMESTAMP = 8,
    PQ_LT_INTEGER = 10,
    PQ_LT_UNKNOWN = 11,  /* NullType: always-null column */
    PQ_LT_JSON = 12,
    PQ_LT_BSON = 13,
    PQ_LT_UUID = 14,
    PQ_LT_FLOAT16 = 15,
    PQ_LT_OTHER = 1000,  /* a member this reader does not know (see raw_id) */
} pq_logical_kind;

/* parquet.thrift: union TimeUnit. */
typedef enum pq_time_unit {
    PQ_UNIT_UNSET = 0,
    PQ_UNIT_MILLIS = 1,
    PQ_UNIT_MICROS = 2,
    PQ_UNIT_NANOS = 3,
} pq_time_unit;

/* parquet.thrift: LogicalType with the parameters of DecimalType, TimeType, TimestampType and
 * IntType. */
typedef struct pq_logical_type {
    pq_logical_kind kind;
    int16_t raw_id;          /* union field id as found (also for PQ_LT_OTHER) */
    int32_t scale;           /* DECIMAL */
    int32_t precision;       /* DECIMAL */
    bool is_adjusted_to_utc; /* TIME, TIMESTAMP */
    pq_time_unit unit;       /* TIME, TIMESTAMP */
    int8_t bit_width;        /* INTEGER: 8, 16, 32 or 64 (not validated here) */
    bool is_signed;          /* INTEGER */
} pq_logical_type;

/* parquet.thrift: SchemaElement (a depth-first flattened schema tree). */
typedef struct pq_schema_element {
    char *name;              /* required; "" when missing */
    bool has_type, has_type_length, has_repetition, has_num_children;
    bool has_converted_type, has_scale, has_precision, has_field_id;
    int32_t type;            /* pq_physical_type; leaves only */
    int32_t type_length;     /* FIXED_LEN_BYTE_ARRAY width */
    int32_t repetition_type; /* pq_repetition */
    int32_t num_children;    /* groups only */
    int32_t converted_type;  /* pq_converted_type */
    int32_t scale;
    int32_t precision;
    int32_t field_id;
    pq_logical_type logical; /* kind PQ_LT_NONE when absent */
} pq_schema_element;

/* parquet.thrift: Statistics (min/max are the deprecated signed-order fields). */
typedef struct pq_statistics {
    bool has_max, has_min, has_null_count, has_distinct_count;
    bool has_max_value, has_min_value, has_is_max_value_exact, has_is_min_value_exact;
    const uint8_t *max;
    size_t max_len;
    const uint8_t *min;
    size_t min_len;
    int64_t null_count;
    int64_t distinct_count;
    const uint8_t *max_value;
    size_t max_value_len;
    const uint8_t *min_value;
    size_t min_value_len;
    bool is_max_value_exact;
    bool is_min_value_exact;
} pq_statistics;

/* parquet.thrift: KeyValue. value is NULL when absent. */
typedef struct pq_key_value {
    char *key;
    char *value;
} pq_key_value;

/* parquet.thrift: ColumnMetaData (encoding_stats, size/geospatial statistics are skipped). */
typedef struct pq_column_meta {
    int32_t type;                    /* pq_physical_type */
    int32_t *encodings;              /* pq_encoding values */
    uint32_t n_encodings;
    char **path_in_schema;
    uint32_t n_path_in_schema;
    int32_t codec;                   /* pq_codec */
    int64_t num_values;
    int64_t total_uncompressed_size;
    int64_t total_compressed_size;
    pq_key_value *key_value_metadata;
    uint32_t n_key_value_metadata;
    int64_t data_page_offset;
    bool has_index_page_offset, has_dictionary_page_offset, has_statistics;
    bool has_bloom_filter_offset, has_bloom_filter_length;
    int64_t index_page_offset;
    int64_t dictionary_page_offset;
    pq_statistics statistics;
    int64_t bloom_filter_offset;
    int32_t bloom_filter_length;
} pq_column_meta;

/* parquet.thrift: ColumnChunk. */
typedef struct pq_column_chunk {
    char *file_path;                 /* NULL when the data is in this file */
    int64_t file_offset;
    bool has_meta_data;
    pq_column_meta meta_data;
    bool has_offset_index, has_column_index;
    int64_t offset_index_offset;
    int32_t offset_index_length;
    int64_t column_index_offset;
    int32_t column_index_length;
    bool has_crypto_metadata;        /* crypto_metadata or encrypted_column_metadata present */
} pq_column_chunk;

/* parquet.thrift: RowGroup (sorting_columns skipped). */
typedef struct pq_row_group {
    pq_column_chunk *columns;
    uint32_t n_columns;
    int64_t total_byte_size;
    int64_t num_rows;
    bool has_file_offset, has_total_compressed_size, has_ordinal;
    int64_t file_offset;
    int64_t total_compressed_size;
    int16_t ordinal;
} pq_row_group;

/* parquet.thrift: union ColumnOrder. */
typedef enum pq_column_order {
    PQ_ORDER_UNKNOWN = 0,    /* a member this reader does not know */
    PQ_ORDER_TYPE_DEFINED = 1,
} pq_column_order;

/* parquet.thrift: FileMetaData. */
typedef struct pq_file_meta {
    int32_t version;
    pq_schema_element *schema;       /* n_schema >= 1; schema[0] is the root */
    uint32_t n_schema;
    int64_t num_rows;
    pq_row_group *row_groups;
    uint32_t n_row_groups;
    pq_key_value *key_value_metadata;
    uint32_t n_key_value_metadata;
    char *created_by;                /* NULL when absent */
    int32_t *column_orders;          /* pq_column_order values; NULL when absent */
    uint32_t n_column_orders;
    bool has_encryption_algorithm;   /* plaintext footer of an encrypted file */
} pq_file_meta;

/* parquet.thrift: DataPageHeader. */
typedef struct pq_data_page_header {
    int32_t num_values;
    int32_t encoding;
    int32_t definition_level_encoding;
    int32_t repetition_level_encoding;
    bool has_statistics;
    pq_statistics statistics;
} pq_data_page_header;

/* parquet.thrift: DictionaryPageHeader. */
typedef struct pq_dictionary_page_header {
    int32_t num_values;
    int32_t encoding;
    bool has_is_sorted;
    bool is_sorted;
} pq_dictionary_page_header;

/* parquet.thrift: DataPageHeaderV2. */
typedef struct pq_data_page_header_v2 {
    int32_t num_values;
    int32_t num_nulls;
    int32_t num_rows;
    int32_t encoding;
    int32_t definition_levels_byte_length;
    int32_t repetition_levels_byte_length;
    bool is_compressed;              /* default true */
    bool has_statistics;
    pq_statistics statistics;
} pq_data_page_header_v2;

/* parquet.thrift: PageHeader (index_page_header is skipped). */
typedef struct pq_page_header {
    int32_t type;                    /* pq_page_type */
    int32_t uncompressed_page_size;  /* >= 0 (checked) */
    int32_t compressed_page_size;    /* >= 0 (checked) */
    bool has_crc;
    int32_t crc;
    bool has_data_page_header, has_dictionary_page_header, has_data_page_header_v2;
    pq_data_page_header data_page_header;
    pq_dictionary_page_header dictionary_page_header;
    pq_data_page_header_v2 data_page_header_v2;
} pq_page_header;

/* Decodes a FileMetaData from buf[0, len) (trailing bytes are ignored, as after a plaintext
 * footer's signature). On success *out is allocated in a and owns no memory outside a. Checks
 * that the required fields are present and that sizes are sane (schema non-empty, counts and
 * sizes non-negative); allocation is bounded by a small multiple of len.
 * Errors: INVALID_FILE ("Invalid Parquet metadata: ..."), OUT_OF_MEMORY. On error *out is NULL
 * and a may hold partial allocations (released with the arena). */
int pq_meta_decode_file_metadata(arena *a, const uint8_t *buf, size_t len, pq_file_meta **out,
                                 sqe_error *err);

/* Decodes one PageHeader starting at buf[0]; len bounds it (pass the bytes up to the end of the
 * column chunk). On success fills *out, sets *header_len to the header's encoded size (the page
 * data follows it) and copies statistics binaries into a. Errors as above; on error *out is
 * zeroed and *header_len is 0. */
int pq_meta_decode_page_header(arena *a, const uint8_t *buf, size_t len, pq_page_header *out,
                               size_t *header_len, sqe_error *err);

/* Reads the footer of a whole Parquet file held in file[0, file_len): checks the "PAR1" magic at
 * both ends and the 4-byte little-endian footer length, then decodes the FileMetaData.
 * Encrypted files (magic "PARE", or a plaintext footer with encryption_algorithm) give
 * NOT_SUPPORTED "unsupported: encrypted Parquet files"; anything malformed gives INVALID_FILE.
 * On error *out is NULL. */
int pq_meta_read_footer(arena *a, const uint8_t *file, size_t file_len, pq_file_meta **out,
                        sqe_error *err);

/* The same in two steps, for readers that fetch byte ranges: checks the first 4 and the last 8
 * bytes of a file of file_len bytes and returns the footer length (errors as above), then
 * decodes the footer bytes (the footer_len bytes before the last 8). */
int pq_meta_check_ends(const uint8_t head[4], const uint8_t tail[8], uint64_t file_len,
                       uint32_t *footer_len, sqe_error *err);
int pq_meta_decode_footer(arena *a, const uint8_t *footer, size_t footer_len, pq_file_meta **out,
                          sqe_error *err);

#endif
