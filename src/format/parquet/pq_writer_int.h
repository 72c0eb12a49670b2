/*
 * pq_writer_int.h: private to the Parquet writer (pq_writer*.c): the writer's state (schema
 * nodes, leaves with their staging buffers and encoded chunk, per-thread scratch) and the
 * functions its pieces call across files.
 *
 * INTERFACE
 *   pqw_add_element, pqw_build_field    schema elements and writer nodes (pq_writer_schema.c)
 *   pqw_stage_flat, pqw_shred, pqw_staged_bytes   staging of a chunk's rows (pq_writer_stage.c)
 *   pqw_encode_leaf                     one leaf's staged values -> a column chunk in memory
 *                                       (pq_writer_chunk.c)
 *   pqw_write_all, pqw_flush_row_group  file output, encoding and writing a row group
 *                                       (pq_writer_rowgroup.c)
 * NOTES
 *   - Nothing outside src/format/parquet/pq_writer*.c includes this header; the public
 *     interface is pq_writer.h. The pieces: pq_writer.c (options, open/write/close, the
 *     public accessors), pq_writer_schema.c, pq_writer_stage.c, pq_writer_chunk.c (statistics
 *     helpers and column chunk encoding), pq_writer_rowgroup.c.
 *   - Every function returns SQE_OK or an error code with err set; after an error the writer
 *     must only be aborted (pq_writer_abort), as pq_writer.h says.
 */
#ifndef SQE_FORMAT_PARQUET_PQ_WRITER_INT_H
#define SQE_FORMAT_PARQUET_PQ_WRITER_INT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/arena.h"
#include "format/parquet/pq_codec.h"
#include "format/parquet/pq_encode.h"
#include "format/parquet/pq_meta.h"
#include "format/parquet/pq_meta_write.h"
#include "format/parquet/pq_writer.h"
#include "format/parquet/thrift_write.h"

#define MAX_NESTING 64        /* type nesting depth accepted */
#define MAX_LEVEL 250         /* definition/repetition levels are staged as bytes */
#define MAX_THREADS 64

/* ---- writer state --------------------------------------------------------------------------- */

/* How a leaf's values are staged: the SQE layout they come from and the Parquet physical form
 * they are kept in. */
typedef enum leaf_kind {
    LK_BOOL,      /* uint8 -> BOOLEAN (staged as 0/1 bytes) */
    LK_I8,        /* int8 -> INT32 */
    LK_I16,       /* int16 -> INT32 */
    LK_I32,       /* int32 (INTEGER, DATE) -> INT32 */
    LK_I64,       /* int64 (BIGINT, TIME, TIMESTAMP, DECIMAL p 10..18) -> INT64 */
    LK_F32,       /* float -> FLOAT */
    LK_F64,       /* double -> DOUBLE */
    LK_DEC_I32,   /* DECIMAL p <= 9: int64 -> INT32 */
    LK_DEC_FLBA,  /* DECIMAL p > 18: int128 -> FIXED_LEN_BYTE_ARRAY big-endian */
    LK_STR,       /* sqe_str -> BYTE_ARRAY */
    LK_TSTZ,      /* sqe_timestamp_tz -> INT64 UTC micros */
    LK_UUID,      /* 16 bytes -> FIXED_LEN_BYTE_ARRAY(16) */
    LK_NULL,      /* TYPE_UNKNOWN: every value NULL (INT32, logical UNKNOWN) */
} leaf_kind;

enum { NODE_LEAF, NODE_ROW, NODE_LIST, NODE_MAP };

typedef struct wnode {
    uint8_t kind;           /* NODE_* */
    bool required;
    bool map_key;           /* the key of a MAP (for the NULL key message) */
    uint32_t schema_idx;    /* its schema element (for messages) */
    uint8_t def;            /* definition level when this node holds a value */
    uint8_t rep;            /* LIST/MAP: repetition level of the entries */
    uint32_t leaf;          /* NODE_LEAF: leaf index */
    uint32_t first_leaf;    /* leaves under this node: [first_leaf, end_leaf) */
    uint32_t end_leaf;
    uint32_t *children;     /* ROW: fields; LIST: element; MAP: key, value */
    uint32_t n_children;
} wnode;

/* A bound for statistics: numbers in num (PLAIN bytes), byte arrays by pointer. */
typedef struct bound {
    const uint8_t *ptr;     /* NULL: the value is num[0, len) */
    uint32_t len;
    uint8_t num[8];
} bound;

static inline const uint8_t *bound_data(const bound *b) { return b->ptr ? b->ptr : b->num; }

typedef struct page_meta {
    uint64_t offset;        /* of the page header within the chunk buffer */
    uint32_t size;          /* header + stored body */
    uint64_t first_row;     /* within the row group */
    int64_t null_count;
    bool null_page;         /* holds no values */
    bool has_bounds;        /* false: every value NaN */
    uint32_t min_off, min_len, max_off, max_len; /* bounds in leaf->page_bounds */
} page_meta;

typedef struct leaf {
    /* schema */
    uint32_t schema_idx;
    leaf_kind kind;
    int32_t phys;           /* pq_physical_type */
    uint32_t width;         /* staged bytes per value; 0 for byte arrays */
    uint8_t max_def, max_rep;
    bool utf8;              /* strings: UTF-8 aware truncation of bounds */
    bool flba_signed;       /* decimals in FLBA: signed comparison */
    char **path;
    uint32_t n_path;
    /* staging: the current row group */
    pq_buf def, rep;        /* one byte per level */
    pq_buf vals;            /* fixed: width bytes per value; byte arrays: the bytes */
    pq_buf lens;            /* byte arrays: uint32 length per value */
    uint64_t n_levels, n_vals;
    /* encoded chunk of the current row group */
    pq_buf chunk;
    pq_buf page_bounds;
    pq_buf column_index;    /* encoded ColumnIndex (empty when none) */
    pq_buf bloom;           /* BloomFilterHeader + bitset (empty when none) */
    page_meta *pages;
    uint32_t n_pages, cap_pages;
    bool has_dict;
    uint64_t dict_size;     /* dictionary page header + body in chunk */
    int64_t uncompressed;   /* headers + uncompressed bodies */
    bool has_bounds;        /* chunk bounds (exact, into staging) */
    bound cmin, cmax;
    int64_t null_count;
    int rc;
    sqe_error err;
} leaf;

/* Scratch of one encoding thread. */
typedef struct worker {
    pq_buf body;            /* uncompressed page body */
    pq_buf comp;            /* compressed page body */
    pq_thrift_writer hdr;   /* page header / column index encoder */
    pq_compressor codec;
    pq_dict dict;
    uint32_t *idx;          /* dictionary indices of the chunk */
    size_t idx_cap;
} worker;

struct pq_writer {
    pq_writer_options o;
    mem_tracker *tracker;
    char *path;
    char *tmp_path;
    int fd;
    uint64_t pos;           /* bytes written */
    /* schema */
    pq_schema_element *schema;
    uint32_t n_schema, cap_schema;
    const pq_field_info *finfo; /* options.fields while the schema is built (open only) */
    uint32_t n_finfo, finfo_next;
    wnode *nodes;
    uint32_t n_nodes, cap_nodes;
    leaf *leaves;
    uint32_t n_leaves, cap_leaves;
    uint32_t n_cols;
    uint32_t *col_node;     /* top-level column -> node */
    sqe_type *col_types;
    arena meta;             /* names, paths, footer structs */
    /* row groups */
    uint64_t rg_rows;       /* rows staged in the current row group */
    uint64_t total_rows;
    uint64_t flushed_staged;  /* staged bytes of the row groups written so far */
    uint64_t flushed_written; /* file bytes those row groups took */
    pq_row_group *row_groups;
    uint32_t n_row_groups, cap_row_groups;
    pq_buf ci_all;          /* ColumnIndex structs of all chunks so far */
    pq_buf oi_all;          /* OffsetIndex structs of all chunks so far */
    /* encoding */
    worker *workers;
    uint32_t n_workers;
    uint32_t *order;        /* leaves by staged size, largest first */
    _Atomic uint32_t next_leaf;
    pq_thrift_writer tw;    /* offset index / footer */
};

/* ---- shared across the writer's files ------------------------------------------------------- */

/* pq_writer_schema.c */

/* Appends a schema element named name (copied into w->meta) with the given repetition; *idx is
 * its index in w->schema. */
int pqw_add_element(pq_writer *w, const char *name, int repetition, uint32_t *idx, sqe_error *err);

/* Adds the schema elements and writer nodes of a field of type t (pre-order), with the
 * definition/repetition levels of its parent; path (room for MAX_NESTING + 4 names) holds the
 * names from the top-level column down to this field (depth entries). *out is its node. While
 * w->finfo is set, each node consumes the next options.fields entry. */
int pqw_build_field(pq_writer *w, const char *name, sqe_type t, bool required, uint8_t parent_def,
                    uint8_t parent_rep, int32_t field_id, const char **path, uint32_t depth,
                    uint32_t *out, sqe_error *err);

/* pq_writer_stage.c */

/* Bulk staging of rows [start, start + n) of v into the leaf of a top-level flat-typed column;
 * a REQUIRED one (max_def 0) must hold no NULL (INVALID_ARGUMENTS). Bytes are copied. */
int pqw_stage_flat(leaf *l, const vec *v, uint32_t start, uint32_t n, sqe_error *err);

/* Shreds row `row` of v (any shape) into the leaves under node ni: rep is the repetition level
 * of this occurrence, parent_def the definition level of the enclosing value. */
int pqw_shred(pq_writer *w, uint32_t ni, const vec *v, uint32_t row, uint8_t rep,
              uint8_t parent_def, sqe_error *err);

/* Bytes staged in the current row group (levels, values, lengths of every leaf). */
uint64_t pqw_staged_bytes(const pq_writer *w);

/* pq_writer_chunk.c */

/* Encodes the staged values of l into a column chunk in l->chunk (pages, page bounds, chunk
 * bounds, ColumnIndex, bloom filter) with wk's scratch; the staging is left as it was. Safe to
 * run for different leaves on different threads, each with its own worker. */
int pqw_encode_leaf(const pq_writer *w, worker *wk, leaf *l, sqe_error *err);

/* pq_writer_rowgroup.c */

/* Writes len bytes at the end of the file (w->pos advances); IO_ERROR on failure. */
int pqw_write_all(pq_writer *w, const void *data, size_t len, sqe_error *err);

/* Encodes and writes the staged row group and records it for the footer (nothing when it is
 * empty); the staging is cleared. */
int pqw_flush_row_group(pq_writer *w, sqe_error *err);

#endif
