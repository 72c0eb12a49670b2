/*
 * pq_meta_write.h: encodes Parquet metadata with the Thrift compact protocol: FileMetaData (the
 * footer) and PageHeader from the structs of pq_meta.h, and the page index structures
 * ColumnIndex and OffsetIndex (parquet.thrift, PageIndex.md) from the small writer-side structs
 * below, and the BloomFilterHeader (BloomFilter.md). The counterpart of pq_meta.c.
 *
 * Every encoder appends one complete struct to a pq_thrift_writer (thrift_write.h) and returns
 * its status: SQE_OK, or OUT_OF_MEMORY / GENERIC_INTERNAL_ERROR (bad input struct, e.g. a
 * negative count). After an error the writer holds a partial message; clear it before reuse.
 * Optional fields are written when their has_* flag is set; `has_meta_data` of a ColumnChunk
 * must be true (writers MUST populate it).
 */
#ifndef SQE_FORMAT_PARQUET_PQ_META_WRITE_H
#define SQE_FORMAT_PARQUET_PQ_META_WRITE_H

#include <stdbool.h>
#include <stdint.h>

#include "common/err.h"
#include "format/parquet/pq_encoding.h" /* pq_bytes */
#include "format/parquet/pq_meta.h"
#include "format/parquet/thrift_write.h"

/* parquet.thrift: enum BoundaryOrder. */
typedef enum pq_boundary_order {
    PQ_BOUNDARY_UNORDERED = 0,
    PQ_BOUNDARY_ASCENDING = 1,
    PQ_BOUNDARY_DESCENDING = 2,
} pq_boundary_order;

/* parquet.thrift: PageLocation. */
typedef struct pq_page_location {
    int64_t offset;               /* file offset of the page header */
    int32_t compressed_page_size; /* header + compressed body */
    int64_t first_row_index;      /* within the row group */
} pq_page_location;

/* parquet.thrift: OffsetIndex (unencoded_byte_array_data_bytes omitted). */
typedef struct pq_offset_index {
    const pq_page_location *pages;
    uint32_t n_pages;
} pq_offset_index;

/* parquet.thrift: ColumnIndex. Bounds are PLAIN-encoded values (byte arrays without the length
 * prefix); entries of null pages are empty. null_counts may be NULL (field omitted). */
typedef struct pq_column_index {
    uint32_t n_pages;
    const bool *null_pages;
    const pq_bytes *min_values;
    const pq_bytes *max_values;
    int32_t boundary_order;       /* pq_boundary_order */
    const int64_t *null_counts;
} pq_column_index;

/* Encodes FileMetaData (all fields of pq_file_meta that are set: schema with logical types and
 * field ids, row groups with ColumnChunk/ColumnMetaData/Statistics, key-value metadata,
 * created_by, column orders). column_orders values are pq_column_order (TYPE_DEFINED only;
 * other values are written as TYPE_ORDER too). */
int pq_meta_encode_file_metadata(pq_thrift_writer *w, const pq_file_meta *m, sqe_error *err);

/* Encodes a PageHeader: DataPageHeader, DictionaryPageHeader or DataPageHeaderV2 as flagged. */
int pq_meta_encode_page_header(pq_thrift_writer *w, const pq_page_header *h, sqe_error *err);

/* Encodes a Statistics struct (exposed for page headers and tests). */
int pq_meta_encode_statistics(pq_thrift_writer *w, const pq_statistics *s, sqe_error *err);

/* Encodes a BloomFilterHeader (BloomFilter.md) of a split-block filter of num_bytes bytes,
 * XXHASH, uncompressed; the bitset follows it in the file. */
int pq_meta_encode_bloom_header(pq_thrift_writer *w, int32_t num_bytes, sqe_error *err);

/* Encodes an OffsetIndex / a ColumnIndex. */
int pq_meta_encode_offset_index(pq_thrift_writer *w, const pq_offset_index *oi, sqe_error *err);
int pq_meta_encode_column_index(pq_thrift_writer *w, const pq_column_index *ci, sqe_error *err);

#endif
