/*
 * pq_writer.c: the Parquet file writer: chunks -> row groups -> column chunks -> pages, with
 * dictionary encoding and PLAIN fallback, compression, statistics, the page index, bloom
 * filters and the footer (see pq_writer.h).
 *
 * INTERFACE
 *   pq_writer_options_init, pq_writer_options_set   options (defaults, COPY ... WITH text)
 *   pq_writer_open, pq_writer_write, pq_writer_close, pq_writer_abort   the stream
 *   pq_writer_flush, pq_writer_estimated_size, pq_writer_buffered_bytes, pq_writer_rows,
 *   pq_writer_close_meta        for writers that roll files (Iceberg data files)
 * NOTES
 *   - Schema (LogicalTypes.md): every top-level column and every nested field is OPTIONAL;
 *     arrays are 3-level LISTs (optional group (LIST) { repeated group list { optional element }
 *     }), maps are MAPs (optional group (MAP) { repeated group key_value { required key;
 *     optional value } }), rows are optional groups of optional fields. Each schema node knows
 *     the definition level at which its value is present and, for LIST/MAP, the repetition level
 *     of its entries; the leaves under a node are a contiguous range. options.fields (Iceberg)
 *     gives each node, nested ones included, a field id and may make it REQUIRED: a REQUIRED
 *     node adds no definition level, and a NULL written to it is an error.
 *   - Shredding (Dremel): pq_writer_write appends each column's rows to per-leaf staging buffers
 *     (levels as bytes, values in their Parquet physical form, byte arrays as lengths plus
 *     bytes back to back). Flat top-level columns take a bulk path (memcpy when nothing is NULL
 *     and the layouts agree); nested columns recurse row by row. String bytes are copied into
 *     the staging buffers, so input chunks are not referenced after the call.
 *   - A row group is flushed when it holds row_group_rows rows or its staged bytes reach
 *     row_group_bytes. Flushing encodes every leaf independently (on options.threads threads,
 *     largest leaves first) into an in-memory column chunk, then writes the chunks in schema
 *     order. Only one row group is ever buffered.
 *   - Column chunk encoding: when dictionaries are on, all values of the chunk go through the
 *     dictionary builder first; the chunk is dictionary-encoded (a PLAIN dictionary page, then
 *     RLE_DICTIONARY data pages) only if the dictionary stays under dictionary_page_bytes and
 *     dictionary + indices are smaller than PLAIN; otherwise every page is PLAIN (the fallback
 *     is per column chunk; the next row group tries the dictionary again). Building stops early
 *     for (nearly) unique columns: a batch of 8192 values that is over 90% new while the
 *     dictionary is already no smaller than PLAIN. Sorted INT32/INT64 columns with short runs
 *     (keys) skip the dictionary: PLAIN compresses them far better. Pages are data page v1
 *     ([rep levels][def levels][values], levels RLE with a 4-byte length) cut at row
 *     boundaries after page_rows rows or page_bytes of values.
 *   - Statistics (parquet.thrift Statistics, ColumnOrder TYPE_ORDER): per page min/max/null
 *     count, folded into chunk statistics; byte-array bounds are cut to statistics_truncate bytes
 *     (UTF-8 aware for strings, upper bounds rounded up, is_*_value_exact says when a bound is not
 *     a value). A chunk where some page holds only NaNs gets no ColumnIndex (as the spec says).
 *   - Page index (PageIndex.md): the ColumnIndex of every chunk, then the OffsetIndex of every
 *     chunk, are written after the last row group and before the footer; they are kept encoded in
 *     memory until then (a few dozen bytes per page).
 *   - Bloom filters (BloomFilter.md): split-block filters for dictionary-encoded chunks only,
 *     built from the dictionary (its size is the exact distinct count, so the filter is sized
 *     right and costs one hash per distinct value); unique columns get none, as their filter
 *     would be as large as the data. They follow the column chunks of their row group.
 *   - Files: "<path>.tmp-<pid>-<random>" (O_EXCL), renamed over path after fsync at close
 *     (no_replace: hard-linked to path, which fails when path exists, then unlinked); any
 *     failure or abort unlinks it.
 */
#include "format/parquet/pq_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "common/arena.h"
#include "format/parquet/pq_codec.h"
#include "format/parquet/pq_encode.h"
#include "format/parquet/pq_meta.h"
#include "format/parquet/pq_meta_write.h"
#include "format/parquet/thrift_write.h"

#ifndef SQE_VERSION
#define SQE_VERSION "dev"
#endif

#define MAX_NESTING 64        /* type nesting depth accepted */
#define MAX_LEVEL 250         /* definition/repetition levels are staged as bytes */
#define MAX_THREADS 64
#define DICT_BATCH 8192       /* values per dictionary batch (see encode_leaf) */

/* ---- options -------------------------------------------------------------------------------- */

void pq_writer_options_init(pq_writer_options *o) {
    memset(o, 0, sizeof(*o));
    o->codec = PQ_CODEC_ZSTD;
    o->compression_level = 0;
    o->row_group_rows = 122880;
    o->row_group_bytes = (uint64_t)128 << 20;
    o->page_bytes = 1u << 20;
    o->page_rows = 20000;
    o->dictionary = true;
    o->dictionary_page_bytes = 1u << 20;
    o->write_page_index = true;
    o->write_statistics = true;
    o->write_crc = false;
    o->bloom_filter = true;
    o->bloom_filter_fpp = 0.01;
    o->statistics_truncate = 64;
    o->threads = 1;
    o->field_ids = NULL;
}

static int parse_bool(const char *v, bool *out) {
    if (!strcasecmp(v, "true") || !strcasecmp(v, "1") || !strcasecmp(v, "on") ||
        !strcasecmp(v, "yes")) {
        *out = true;
        return 0;
    }
    if (!strcasecmp(v, "false") || !strcasecmp(v, "0") || !strcasecmp(v, "off") ||
        !strcasecmp(v, "no")) {
        *out = false;
        return 0;
    }
    return -1;
}

/* An unsigned integer with an optional size suffix (KB, MB, GB, KiB, MiB, GiB; decimal and
 * binary multiples as DuckDB reads them). */
static int parse_size(const char *v, bool allow_suffix, uint64_t *out) {
    while (*v == ' ') v++;
    if (*v < '0' || *v > '9') return -1;
    errno = 0;
    char *end;
    unsigned long long n = strtoull(v, &end, 10);
    if (errno) return -1;
    while (*end == ' ') end++;
    uint64_t mult = 1;
    if (*end) {
        if (!allow_suffix) return -1;
        static const struct { const char *s; uint64_t m; } suffixes[] = {
            {"b", 1}, {"kb", 1000}, {"mb", 1000000}, {"gb", 1000000000},
            {"kib", 1024}, {"mib", 1048576}, {"gib", 1073741824},
            {"k", 1024}, {"m", 1048576}, {"g", 1073741824},
        };
        size_t i = 0;
        for (; i < sizeof suffixes / sizeof suffixes[0]; i++)
            if (!strcasecmp(end, suffixes[i].s)) break;
        if (i == sizeof suffixes / sizeof suffixes[0]) return -1;
        mult = suffixes[i].m;
    }
    if (n > UINT64_MAX / mult) return -1;
    *out = (uint64_t)n * mult;
    return 0;
}

static int parse_codec(const char *v, int *out) {
    static const struct { const char *name; int codec; } codecs[] = {
        {"zstd", PQ_CODEC_ZSTD}, {"snappy", PQ_CODEC_SNAPPY}, {"gzip", PQ_CODEC_GZIP},
        {"lz4", PQ_CODEC_LZ4_RAW}, {"lz4_raw", PQ_CODEC_LZ4_RAW}, {"brotli", PQ_CODEC_BROTLI},
        {"none", PQ_CODEC_UNCOMPRESSED}, {"uncompressed", PQ_CODEC_UNCOMPRESSED},
    };
    for (size_t i = 0; i < sizeof codecs / sizeof codecs[0]; i++)
        if (!strcasecmp(v, codecs[i].name)) {
            *out = codecs[i].codec;
            return 0;
        }
    return -1;
}

int pq_writer_options_set(pq_writer_options *o, const char *key, const char *value,
                          sqe_error *err) {
    if (!key || !value)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "Parquet option without a value");
    uint64_t n;
    bool b;
    if (!strcasecmp(key, "compression") || !strcasecmp(key, "codec")) {
        int codec;
        if (parse_codec(value, &codec))
            return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                           "Invalid value for Parquet option '%s': '%s' (expected zstd, snappy, gzip, "
                           "lz4, lz4_raw, brotli or none)", key, value);
        o->codec = codec;
        return SQE_OK;
    }
    if (!strcasecmp(key, "compression_level")) {
        errno = 0;
        char *end;
        long lv = strtol(value, &end, 10);
        if (errno || end == value || *end || lv < -1000000 || lv > 1000000)
            return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                           "Invalid value for Parquet option '%s': '%s' (expected an integer)",
                           key, value);
        o->compression_level = (int)lv;
        return SQE_OK;
    }
    struct {
        const char *name;
        bool suffix;
        uint64_t max;
    } sizes[] = {
        {"row_group_size", false, (uint64_t)INT32_MAX},
        {"row_group_size_bytes", true, UINT64_MAX},
        {"page_size", true, (uint64_t)1 << 30},
        {"page_row_limit", false, (uint64_t)INT32_MAX},
        {"dictionary_page_size", true, (uint64_t)1 << 30},
        {"threads", false, MAX_THREADS},
    };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        if (strcasecmp(key, sizes[i].name)) continue;
        if (parse_size(value, sizes[i].suffix, &n) || n == 0 || n > sizes[i].max)
            return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                           "Invalid value for Parquet option '%s': '%s' (expected an integer from 1 "
                           "to %llu)", key, value, (unsigned long long)sizes[i].max);
        switch (i) {
        case 0: o->row_group_rows = n; break;
        case 1: o->row_group_bytes = n; break;
        case 2: o->page_bytes = (uint32_t)n; break;
        case 3: o->page_rows = (uint32_t)n; break;
        case 4: o->dictionary_page_bytes = (uint32_t)n; break;
        default: o->threads = (uint32_t)n; break;
        }
        return SQE_OK;
    }
    bool *flag = !strcasecmp(key, "dictionary")       ? &o->dictionary
                 : !strcasecmp(key, "page_index")     ? &o->write_page_index
                 : !strcasecmp(key, "statistics")     ? &o->write_statistics
                 : !strcasecmp(key, "page_checksum")  ? &o->write_crc
                 : !strcasecmp(key, "bloom_filter")   ? &o->bloom_filter
                                                      : NULL;
    if (flag) {
        if (parse_bool(value, &b))
            return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                           "Invalid value for Parquet option '%s': '%s' (expected true or false)", key,
                           value);
        *flag = b;
        return SQE_OK;
    }
    return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "Unknown Parquet option '%s'", key);
}

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

/* ---- schema --------------------------------------------------------------------------------- */

static int grow_array(void **p, uint32_t *cap, uint32_t need, size_t elem, sqe_error *err) {
    if (need <= *cap) return SQE_OK;
    uint32_t ncap = *cap ? *cap * 2 : 16;
    while (ncap < need) ncap *= 2;
    void *q = realloc(*p, (size_t)ncap * elem);
    if (!q) return err_nomem(err, "Parquet schema");
    memset((char *)q + (size_t)*cap * elem, 0, (size_t)(ncap - *cap) * elem);
    *p = q;
    *cap = ncap;
    return SQE_OK;
}

static int add_element(pq_writer *w, const char *name, int repetition, uint32_t *idx, sqe_error *err) {
    SQE_TRY(grow_array((void **)&w->schema, &w->cap_schema, w->n_schema + 1,
                       sizeof(pq_schema_element), err));
    pq_schema_element *e = &w->schema[w->n_schema];
    memset(e, 0, sizeof(*e));
    e->name = arena_strdup(&w->meta, name ? name : "");
    if (!e->name) return err_nomem(err, "Parquet schema");
    e->has_repetition = true;
    e->repetition_type = repetition;
    *idx = w->n_schema++;
    return SQE_OK;
}

static int add_node(pq_writer *w, uint8_t kind, uint32_t *idx, sqe_error *err) {
    SQE_TRY(grow_array((void **)&w->nodes, &w->cap_nodes, w->n_nodes + 1, sizeof(wnode), err));
    wnode *n = &w->nodes[w->n_nodes];
    memset(n, 0, sizeof(*n));
    n->kind = kind;
    *idx = w->n_nodes++;
    return SQE_OK;
}

/* Minimal FIXED_LEN_BYTE_ARRAY width for a decimal of precision p (signed two's complement). */
static int32_t decimal_flba_width(int precision) {
    int128 max = 1;
    for (int i = 0; i < precision; i++) max *= 10;
    max -= 1; /* largest unscaled magnitude */
    for (int32_t n = 1; n < 16; n++) {
        int128 lim = ((int128)1 << (8 * n - 1)) - 1;
        if (max <= lim) return n;
    }
    return 16;
}

/* Physical and logical type of a leaf for SQE type t (LogicalTypes.md). */
static int leaf_type(sqe_type t, pq_schema_element *e, leaf *l, sqe_error *err) {
    e->has_type = true;
    pq_logical_type *lt = &e->logical;
    char buf[64];
    switch ((type_id)t.id) {
    case TYPE_BOOLEAN:
        e->type = PQ_TYPE_BOOLEAN, l->kind = LK_BOOL, l->width = 1;
        break;
    case TYPE_TINYINT:
    case TYPE_SMALLINT:
        e->type = PQ_TYPE_INT32, l->width = 4;
        l->kind = t.id == TYPE_TINYINT ? LK_I8 : LK_I16;
        e->has_converted_type = true;
        e->converted_type = t.id == TYPE_TINYINT ? PQ_CT_INT_8 : PQ_CT_INT_16;
        lt->kind = PQ_LT_INTEGER;
        lt->bit_width = t.id == TYPE_TINYINT ? 8 : 16;
        lt->is_signed = true;
        break;
    case TYPE_INTEGER:
        e->type = PQ_TYPE_INT32, l->kind = LK_I32, l->width = 4;
        break;
    case TYPE_BIGINT:
        e->type = PQ_TYPE_INT64, l->kind = LK_I64, l->width = 8;
        break;
    case TYPE_REAL:
        e->type = PQ_TYPE_FLOAT, l->kind = LK_F32, l->width = 4;
        break;
    case TYPE_DOUBLE:
        e->type = PQ_TYPE_DOUBLE, l->kind = LK_F64, l->width = 8;
        break;
    case TYPE_DECIMAL:
        if (t.precision <= 9) {
            e->type = PQ_TYPE_INT32, l->kind = LK_DEC_I32, l->width = 4;
        } else if (t.precision <= 18) {
            e->type = PQ_TYPE_INT64, l->kind = LK_I64, l->width = 8;
        } else {
            e->type = PQ_TYPE_FIXED_LEN_BYTE_ARRAY, l->kind = LK_DEC_FLBA;
            e->has_type_length = true;
            e->type_length = decimal_flba_width(t.precision);
            l->width = (uint32_t)e->type_length;
            l->flba_signed = true;
        }
        e->has_converted_type = e->has_scale = e->has_precision = true;
        e->converted_type = PQ_CT_DECIMAL;
        e->scale = t.scale;
        e->precision = t.precision;
        lt->kind = PQ_LT_DECIMAL;
        lt->scale = t.scale;
        lt->precision = t.precision;
        break;
    case TYPE_VARCHAR:
    case TYPE_CHAR:
        e->type = PQ_TYPE_BYTE_ARRAY, l->kind = LK_STR, l->utf8 = true;
        e->has_converted_type = true;
        e->converted_type = PQ_CT_UTF8;
        lt->kind = PQ_LT_STRING;
        break;
    case TYPE_JSON:
        e->type = PQ_TYPE_BYTE_ARRAY, l->kind = LK_STR, l->utf8 = true;
        e->has_converted_type = true;
        e->converted_type = PQ_CT_JSON;
        lt->kind = PQ_LT_JSON;
        break;
    case TYPE_VARBINARY:
        e->type = PQ_TYPE_BYTE_ARRAY, l->kind = LK_STR;
        break;
    case TYPE_DATE:
        e->type = PQ_TYPE_INT32, l->kind = LK_I32, l->width = 4;
        e->has_converted_type = true;
        e->converted_type = PQ_CT_DATE;
        lt->kind = PQ_LT_DATE;
        break;
    case TYPE_TIME:
    case TYPE_TIMESTAMP:
        /* local (not UTC-adjusted) times: no ConvertedType, which would imply UTC */
        e->type = PQ_TYPE_INT64, l->kind = LK_I64, l->width = 8;
        lt->kind = t.id == TYPE_TIME ? PQ_LT_TIME : PQ_LT_TIMESTAMP;
        lt->is_adjusted_to_utc = false;
        lt->unit = PQ_UNIT_MICROS;
        break;
    case TYPE_TIMESTAMP_TZ:
        e->type = PQ_TYPE_INT64, l->kind = LK_TSTZ, l->width = 8;
        e->has_converted_type = true;
        e->converted_type = PQ_CT_TIMESTAMP_MICROS;
        lt->kind = PQ_LT_TIMESTAMP;
        lt->is_adjusted_to_utc = true;
        lt->unit = PQ_UNIT_MICROS;
        break;
    case TYPE_UUID:
        e->type = PQ_TYPE_FIXED_LEN_BYTE_ARRAY, l->kind = LK_UUID, l->width = 16;
        e->has_type_length = true;
        e->type_length = 16;
        lt->kind = PQ_LT_UUID;
        break;
    case TYPE_UNKNOWN:
        e->type = PQ_TYPE_INT32, l->kind = LK_NULL, l->width = 4;
        lt->kind = PQ_LT_UNKNOWN;
        break;
    default:
        type_format(t, buf, sizeof buf);
        return err_set(err, SQE_ERR_NOT_SUPPORTED, "unsupported: writing type %s to Parquet", buf);
    }
    l->phys = e->type;
    return SQE_OK;
}

/* Adds the schema elements and writer nodes of a field of type t (pre-order), with the
 * definition/repetition levels of its parent. path holds the names from the top-level column
 * down to this field (depth entries, this field's included). */
static int build_field(pq_writer *w, const char *name, sqe_type t, bool required, uint8_t parent_def,
                       uint8_t parent_rep, int32_t field_id, const char **path, uint32_t depth,
                       uint32_t *out, sqe_error *err) {
    if (depth > MAX_NESTING)
        return err_set(err, SQE_ERR_NOT_SUPPORTED, "unsupported: Parquet nesting deeper than %d",
                       MAX_NESTING);
    bool map_key = required; /* only map keys are required without field info */
    if (w->finfo) {
        /* pre-order: this node's entry; past the end is reported by pq_writer_open */
        if (w->finfo_next < w->n_finfo) {
            field_id = w->finfo[w->finfo_next].field_id;
            required = required || w->finfo[w->finfo_next].required;
        }
        w->finfo_next++;
    }
    uint8_t def = (uint8_t)(required ? parent_def : parent_def + 1);
    if (def > MAX_LEVEL - 3 || parent_rep > MAX_LEVEL - 3)
        return err_set(err, SQE_ERR_NOT_SUPPORTED, "unsupported: Parquet nesting too deep");
    uint32_t el, ni;
    SQE_TRY(add_element(w, name, required ? PQ_REP_REQUIRED : PQ_REP_OPTIONAL, &el, err));
    if (field_id >= 0) {
        w->schema[el].has_field_id = true;
        w->schema[el].field_id = field_id;
    }
    path[depth - 1] = w->schema[el].name;
    if (!type_is_nested(t)) {
        SQE_TRY(add_node(w, NODE_LEAF, &ni, err));
        SQE_TRY(grow_array((void **)&w->leaves, &w->cap_leaves, w->n_leaves + 1, sizeof(leaf), err));
        leaf *l = &w->leaves[w->n_leaves];
        memset(l, 0, sizeof(*l));
        SQE_TRY(leaf_type(t, &w->schema[el], l, err));
        l->schema_idx = el;
        l->max_def = def;
        l->max_rep = parent_rep;
        l->n_path = depth;
        l->path = ARENA_ARRAY(&w->meta, char *, depth);
        if (!l->path) return err_nomem(err, "Parquet schema");
        for (uint32_t i = 0; i < depth; i++) l->path[i] = (char *)path[i];
        pq_buf_init(&l->def, w->tracker);
        pq_buf_init(&l->rep, w->tracker);
        pq_buf_init(&l->vals, w->tracker);
        pq_buf_init(&l->lens, w->tracker);
        pq_buf_init(&l->chunk, w->tracker);
        pq_buf_init(&l->page_bounds, w->tracker);
        pq_buf_init(&l->column_index, w->tracker);
        pq_buf_init(&l->bloom, w->tracker);
        wnode *n = &w->nodes[ni];
        n->def = def;
        n->required = required;
        n->map_key = map_key;
        n->schema_idx = el;
        n->leaf = w->n_leaves;
        n->first_leaf = w->n_leaves;
        n->end_leaf = ++w->n_leaves;
        *out = ni;
        return SQE_OK;
    }
    const type_nested *tn = t.nested;
    uint32_t n_kids = t.id == TYPE_ROW ? (tn ? tn->n_children : 0) : t.id == TYPE_MAP ? 2 : 1;
    if (!tn || tn->n_children < (t.id == TYPE_MAP ? 2u : t.id == TYPE_ARRAY ? 1u : 0u))
        return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "malformed nested type");
    if (t.id == TYPE_ROW && n_kids == 0)
        return err_set(err, SQE_ERR_NOT_SUPPORTED,
                       "unsupported: writing a row type without fields to Parquet");
    uint8_t kind = t.id == TYPE_ROW ? NODE_ROW : t.id == TYPE_MAP ? NODE_MAP : NODE_LIST;
    SQE_TRY(add_node(w, kind, &ni, err));
    w->nodes[ni].def = def;
    w->nodes[ni].required = required;
    w->nodes[ni].map_key = map_key;
    w->nodes[ni].schema_idx = el;
    w->nodes[ni].first_leaf = w->n_leaves;
    uint32_t *kids = ARENA_ARRAY(&w->meta, uint32_t, n_kids);
    if (!kids) return err_nomem(err, "Parquet schema");
    w->schema[el].has_num_children = true;
    if (t.id == TYPE_ROW) {
        w->schema[el].num_children = (int32_t)n_kids;
        for (uint32_t i = 0; i < n_kids; i++) {
            char fallback[32];
            const char *fname = tn->names && tn->names[i] ? tn->names[i] : NULL;
            if (!fname) {
                snprintf(fallback, sizeof fallback, "field%u", i + 1);
                fname = fallback;
            }
            SQE_TRY(build_field(w, fname, tn->children[i], false, def, parent_rep, -1, path, depth + 1,
                                &kids[i], err));
        }
    } else {
        /* LIST: optional group (LIST) { repeated group list { optional element } };
         * MAP: optional group (MAP) { repeated group key_value { required key; optional value } } */
        bool is_map = t.id == TYPE_MAP;
        w->schema[el].num_children = 1;
        w->schema[el].has_converted_type = true;
        w->schema[el].converted_type = is_map ? PQ_CT_MAP : PQ_CT_LIST;
        w->schema[el].logical.kind = is_map ? PQ_LT_MAP : PQ_LT_LIST;
        uint32_t rg;
        SQE_TRY(add_element(w, is_map ? "key_value" : "list", PQ_REP_REPEATED, &rg, err));
        w->schema[rg].has_num_children = true;
        w->schema[rg].num_children = is_map ? 2 : 1;
        path[depth] = w->schema[rg].name;
        uint8_t rep = (uint8_t)(parent_rep + 1);
        w->nodes[ni].rep = rep;
        if (is_map) {
            SQE_TRY(build_field(w, "key", tn->children[0], true, (uint8_t)(def + 1), rep, -1, path,
                                depth + 2, &kids[0], err));
            SQE_TRY(build_field(w, "value", tn->children[1], false, (uint8_t)(def + 1), rep, -1, path,
                                depth + 2, &kids[1], err));
        } else {
            SQE_TRY(build_field(w, "element", tn->children[0], false, (uint8_t)(def + 1), rep, -1,
                                path, depth + 2, &kids[0], err));
        }
    }
    w->nodes[ni].children = kids;
    w->nodes[ni].n_children = n_kids;
    w->nodes[ni].end_leaf = w->n_leaves;
    *out = ni;
    return SQE_OK;
}

/* ---- staging (shredding) -------------------------------------------------------------------- */

static inline int push_level(leaf *l, uint8_t rep, uint8_t def, sqe_error *err) {
    if (l->max_def) SQE_TRY(pq_buf_append(&l->def, &def, 1, err));
    if (l->max_rep) SQE_TRY(pq_buf_append(&l->rep, &rep, 1, err));
    l->n_levels++;
    return SQE_OK;
}

/* Big-endian two's complement of v in width bytes (v fits: width comes from the precision). */
static inline void decimal_to_be(int128 v, uint8_t *out, uint32_t width) {
    for (uint32_t i = 0; i < width; i++) out[width - 1 - i] = (uint8_t)(v >> (8 * i));
}

/* Stages one non-NULL value at row `row` of flat vector v. */
static int stage_value(leaf *l, const vec *v, uint32_t row, sqe_error *err) {
    uint8_t tmp[16];
    switch (l->kind) {
    case LK_BOOL:
        tmp[0] = VEC_DATA(v, uint8_t)[row] ? 1 : 0;
        break;
    case LK_I8: {
        int32_t x = VEC_DATA(v, int8_t)[row];
        memcpy(tmp, &x, 4);
        break;
    }
    case LK_I16: {
        int32_t x = VEC_DATA(v, int16_t)[row];
        memcpy(tmp, &x, 4);
        break;
    }
    case LK_I32:
    case LK_F32:
        memcpy(tmp, (const uint8_t *)v->data + (size_t)row * 4, 4);
        break;
    case LK_I64:
    case LK_F64:
        memcpy(tmp, (const uint8_t *)v->data + (size_t)row * 8, 8);
        break;
    case LK_DEC_I32: {
        int32_t x = (int32_t)VEC_DATA(v, int64_t)[row];
        memcpy(tmp, &x, 4);
        break;
    }
    case LK_DEC_FLBA:
        decimal_to_be(VEC_DATA(v, int128)[row], tmp, l->width);
        break;
    case LK_TSTZ:
        memcpy(tmp, &VEC_DATA(v, sqe_timestamp_tz)[row].micros, 8);
        break;
    case LK_UUID:
        memcpy(tmp, (const uint8_t *)v->data + (size_t)row * 16, 16);
        break;
    case LK_STR: {
        const sqe_str *s = &VEC_DATA(v, sqe_str)[row];
        uint32_t len = s->len;
        SQE_TRY(pq_buf_append(&l->lens, &len, 4, err));
        SQE_TRY(pq_buf_append(&l->vals, sqe_str_data(s), len, err));
        l->n_vals++;
        return SQE_OK;
    }
    case LK_NULL:
        return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "value for a NULL-typed Parquet column");
    }
    SQE_TRY(pq_buf_append(&l->vals, tmp, l->width, err));
    l->n_vals++;
    return SQE_OK;
}

/* Every leaf under node gets a level (rep, def) without a value. */
static int emit_absent(pq_writer *w, const wnode *n, uint8_t rep, uint8_t def, sqe_error *err) {
    for (uint32_t i = n->first_leaf; i < n->end_leaf; i++)
        SQE_TRY(push_level(&w->leaves[i], rep, def, err));
    return SQE_OK;
}

/* Shreds row `row` of v (any shape) into the leaves under node ni: rep is the repetition level
 * of this occurrence, parent_def the definition level of the enclosing value. */
static int shred(pq_writer *w, uint32_t ni, const vec *v, uint32_t row, uint8_t rep,
                 uint8_t parent_def, sqe_error *err) {
    const wnode *n = &w->nodes[ni];
    uint32_t phys;
    const vec *f = vec_resolve(v, row, &phys);
    bool is_null = !vec_is_valid_flat(f, phys);
    if (n->kind == NODE_LEAF && w->leaves[n->leaf].kind == LK_NULL) is_null = true;
    if (is_null) {
        if (n->required) {
            if (n->map_key)
                return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "Cannot write a NULL map key to Parquet");
            return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                           "Cannot write a NULL value to the required Parquet field '%s'",
                           w->schema[n->schema_idx].name);
        }
        return emit_absent(w, n, rep, parent_def, err);
    }
    switch (n->kind) {
    case NODE_LEAF: {
        leaf *l = &w->leaves[n->leaf];
        SQE_TRY(push_level(l, rep, n->def, err));
        return stage_value(l, f, phys, err);
    }
    case NODE_ROW:
        if (f->n_children < n->n_children)
            return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "row vector without its fields");
        for (uint32_t i = 0; i < n->n_children; i++)
            SQE_TRY(shred(w, n->children[i], &f->children[i], phys, rep, n->def, err));
        return SQE_OK;
    default: {
        const sqe_list_entry e = VEC_DATA(f, sqe_list_entry)[phys];
        if (e.length == 0) return emit_absent(w, n, rep, n->def, err);
        if (f->n_children < n->n_children)
            return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "nested vector without its children");
        for (uint32_t j = 0; j < e.length; j++) {
            uint8_t r = j ? n->rep : rep;
            for (uint32_t c = 0; c < n->n_children; c++)
                SQE_TRY(shred(w, n->children[c], &f->children[c], e.offset + j, r,
                              (uint8_t)(n->def + 1), err));
        }
        return SQE_OK;
    }
    }
}

/* Bulk staging of rows [start, start + n) of a top-level flat-typed OPTIONAL column. */
static int stage_flat_optional(leaf *l, const vec *v, uint32_t start, uint32_t n, sqe_error *err) {
    if (v->shape != VEC_FLAT || l->kind == LK_NULL) {
        SQE_TRY(pq_buf_reserve(&l->def, n, err));
        for (uint32_t r = 0; r < n; r++) {
            uint32_t phys;
            const vec *f = vec_resolve(v, start + r, &phys);
            bool valid = l->kind != LK_NULL && vec_is_valid_flat(f, phys);
            l->def.data[l->def.len++] = valid ? 1 : 0;
            l->n_levels++;
            if (valid) SQE_TRY(stage_value(l, f, phys, err));
        }
        return SQE_OK;
    }
    /* definition levels: 1 = present, 0 = NULL */
    SQE_TRY(pq_buf_reserve(&l->def, n, err));
    uint8_t *d = l->def.data + l->def.len;
    const uint64_t *valid = v->validity;
    uint32_t nv = n;
    if (!valid) {
        memset(d, 1, n);
    } else {
        nv = 0;
        for (uint32_t r = 0; r < n; r++) {
            uint32_t row = start + r;
            d[r] = (uint8_t)((valid[row >> 6] >> (row & 63)) & 1);
            nv += d[r];
        }
        if (nv == n) valid = NULL;
    }
    l->def.len += n;
    l->n_levels += n;
    if (nv == 0) return SQE_OK;

#define GATHER(SRC_T, DST_T, CONV)                                                                 \
    do {                                                                                           \
        SQE_TRY(pq_buf_reserve(&l->vals, (size_t)nv * sizeof(DST_T), err));                        \
        DST_T *o = (DST_T *)(void *)(l->vals.data + l->vals.len);                                  \
        const SRC_T *s = (const SRC_T *)v->data + start;                                           \
        if (!valid) {                                                                              \
            for (uint32_t r = 0; r < n; r++) o[r] = CONV(s[r]);                                    \
        } else {                                                                                   \
            uint32_t k = 0;                                                                        \
            for (uint32_t r = 0; r < n; r++)                                                       \
                if (d[r]) o[k++] = CONV(s[r]);                                                     \
        }                                                                                          \
        l->vals.len += (size_t)nv * sizeof(DST_T);                                                 \
    } while (0)
#define SAME(x) (x)
#define BOOL01(x) ((uint8_t)((x) ? 1 : 0))
#define MICROS(x) ((x).micros)

    switch (l->kind) {
    case LK_BOOL: GATHER(uint8_t, uint8_t, BOOL01); break;
    case LK_I8: GATHER(int8_t, int32_t, SAME); break;
    case LK_I16: GATHER(int16_t, int32_t, SAME); break;
    case LK_I32: GATHER(int32_t, int32_t, SAME); break;
    case LK_F32: GATHER(float, float, SAME); break;
    case LK_I64: GATHER(int64_t, int64_t, SAME); break;
    case LK_F64: GATHER(double, double, SAME); break;
    case LK_DEC_I32: GATHER(int64_t, int32_t, (int32_t)); break;
    case LK_TSTZ: GATHER(sqe_timestamp_tz, int64_t, MICROS); break;
    case LK_UUID:
    case LK_DEC_FLBA: {
        uint32_t wd = l->width;
        SQE_TRY(pq_buf_reserve(&l->vals, (size_t)nv * wd, err));
        uint8_t *o = l->vals.data + l->vals.len;
        for (uint32_t r = 0; r < n; r++) {
            if (valid && !d[r]) continue;
            if (l->kind == LK_UUID) {
                memcpy(o, (const uint8_t *)v->data + (size_t)(start + r) * 16, 16);
            } else {
                decimal_to_be(VEC_DATA(v, int128)[start + r], o, wd);
            }
            o += wd;
        }
        l->vals.len += (size_t)nv * wd;
        break;
    }
    case LK_STR: {
        const sqe_str *s = (const sqe_str *)v->data + start;
        SQE_TRY(pq_buf_reserve(&l->lens, (size_t)nv * 4, err));
        uint32_t *lens = (uint32_t *)(void *)(l->lens.data + l->lens.len);
        size_t bytes = 0;
        uint32_t k = 0;
        for (uint32_t r = 0; r < n; r++) {
            if (valid && !d[r]) continue;
            lens[k++] = s[r].len;
            bytes += s[r].len;
        }
        l->lens.len += (size_t)nv * 4;
        SQE_TRY(pq_buf_reserve(&l->vals, bytes, err));
        uint8_t *o = l->vals.data + l->vals.len;
        for (uint32_t r = 0; r < n; r++) {
            if (valid && !d[r]) continue;
            uint32_t len = s[r].len;
            memcpy(o, sqe_str_data(&s[r]), len);
            o += len;
        }
        l->vals.len += bytes;
        break;
    }
    case LK_NULL:
        break;
    }
#undef GATHER
#undef SAME
#undef BOOL01
#undef MICROS
    l->n_vals += nv;
    return SQE_OK;
}

/* Bulk staging of a top-level flat-typed column; a REQUIRED one (max_def 0) must hold no NULL
 * and keeps no definition levels. */
static int stage_flat(leaf *l, const vec *v, uint32_t start, uint32_t n, sqe_error *err) {
    if (l->max_def) return stage_flat_optional(l, v, start, n, err);
    for (uint32_t r = 0; r < n; r++)
        if (l->kind == LK_NULL || vec_is_null(v, start + r))
            return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                           "Cannot write a NULL value to the required Parquet column '%s'",
                           l->path[0]);
    size_t keep = l->def.len;
    int rc = stage_flat_optional(l, v, start, n, err);
    l->def.len = keep;
    return rc;
}

static uint64_t staged_bytes(const pq_writer *w) {
    uint64_t total = 0;
    for (uint32_t i = 0; i < w->n_leaves; i++) {
        const leaf *l = &w->leaves[i];
        total += l->def.len + l->rep.len + l->vals.len + l->lens.len;
    }
    return total;
}

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
static int encode_leaf(const pq_writer *w, worker *wk, leaf *l, sqe_error *err) {
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

/* ---- row groups ----------------------------------------------------------------------------- */

static int write_all(pq_writer *w, const void *data, size_t len, sqe_error *err) {
    const uint8_t *p = data;
    while (len > 0) {
        ssize_t n = write(w->fd, p, len > ((size_t)1 << 30) ? ((size_t)1 << 30) : len);
        if (n < 0) {
            if (errno == EINTR) continue;
            return err_set(err, SQE_ERR_IO_ERROR, "Cannot write Parquet file '%s': %s", w->path,
                           strerror(errno));
        }
        p += n;
        len -= (size_t)n;
        w->pos += (uint64_t)n;
    }
    return SQE_OK;
}

typedef struct encode_arg {
    pq_writer *w;
    worker *wk;
    _Atomic int *failed;
} encode_arg;

/* Encodes leaves (in w->order) until none is left or one failed. */
static void *encode_loop(void *p) {
    encode_arg *a = p;
    pq_writer *w = a->w;
    for (;;) {
        if (atomic_load(a->failed)) break;
        uint32_t i = atomic_fetch_add(&w->next_leaf, 1);
        if (i >= w->n_leaves) break;
        leaf *l = &w->leaves[w->order[i]];
        l->rc = encode_leaf(w, a->wk, l, &l->err);
        if (l->rc) atomic_store(a->failed, 1);
    }
    return NULL;
}

typedef struct size_idx {
    uint64_t size;
    uint32_t idx;
} size_idx;

static int by_size_desc(const void *a, const void *b) {
    const size_idx *x = a, *y = b;
    if (x->size != y->size) return x->size < y->size ? 1 : -1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Encodes all leaves, on up to n_workers threads. */
static int encode_row_group(pq_writer *w, sqe_error *err) {
    size_idx *si = malloc((size_t)w->n_leaves * sizeof(*si));
    if (!si) return err_nomem(err, "Parquet writer");
    for (uint32_t i = 0; i < w->n_leaves; i++) {
        const leaf *l = &w->leaves[i];
        si[i] = (size_idx){l->vals.len + l->lens.len + l->def.len + l->rep.len, i};
        w->leaves[i].rc = SQE_OK;
    }
    qsort(si, w->n_leaves, sizeof(*si), by_size_desc);
    for (uint32_t i = 0; i < w->n_leaves; i++) w->order[i] = si[i].idx;
    free(si);
    atomic_store(&w->next_leaf, 0);
    _Atomic int failed = 0;
    uint32_t n_threads = w->n_workers < w->n_leaves ? w->n_workers : w->n_leaves;
    encode_arg args[MAX_THREADS];
    pthread_t tids[MAX_THREADS];
    bool started[MAX_THREADS] = {false};
    for (uint32_t t = 0; t < n_threads; t++) args[t] = (encode_arg){w, &w->workers[t], &failed};
    for (uint32_t t = 1; t < n_threads; t++)
        started[t] = pthread_create(&tids[t], NULL, encode_loop, &args[t]) == 0;
    encode_loop(&args[0]);
    for (uint32_t t = 1; t < n_threads; t++)
        if (started[t]) pthread_join(tids[t], NULL);
    for (uint32_t i = 0; i < w->n_leaves; i++) {
        if (w->leaves[i].rc) {
            if (err) *err = w->leaves[i].err;
            return w->leaves[i].rc;
        }
    }
    return SQE_OK;
}

/* Chunk statistics in the footer's arena (parquet.thrift Statistics). */
static int chunk_statistics(pq_writer *w, const leaf *l, pq_statistics *s, sqe_error *err) {
    memset(s, 0, sizeof(*s));
    s->has_null_count = true;
    s->null_count = l->null_count;
    if (!l->has_bounds) return SQE_OK;
    const uint8_t *a = bound_data(&l->cmin), *b = bound_data(&l->cmax);
    size_t a_len = l->cmin.len, b_len = l->cmax.len;
    bool exact_min = true, exact_max = true;
    uint8_t *up = NULL;
    if (l->phys == PQ_TYPE_BYTE_ARRAY) {
        size_t limit = w->o.statistics_truncate >= 4 ? w->o.statistics_truncate : 4;
        size_t cut = pq_truncate_lower(a, a_len, limit, l->utf8);
        exact_min = cut == a_len;
        a_len = cut;
        up = arena_alloc(&w->meta, limit + 4);
        if (!up) return err_nomem(err, "Parquet statistics");
        size_t up_len;
        if (!pq_truncate_upper(b, b_len, limit, l->utf8, up, &up_len)) return SQE_OK; /* no bounds */
        exact_max = up_len == b_len && memcmp(up, b, b_len) == 0;
        b = up;
        b_len = up_len;
        s->has_is_min_value_exact = s->has_is_max_value_exact = true;
        s->is_min_value_exact = exact_min;
        s->is_max_value_exact = exact_max;
    }
    uint8_t *mn = arena_memdup(&w->meta, a, a_len ? a_len : 1);
    uint8_t *mx = b == up ? up : arena_memdup(&w->meta, b, b_len ? b_len : 1);
    if (!mn || !mx) return err_nomem(err, "Parquet statistics");
    s->has_min_value = s->has_max_value = true;
    s->min_value = mn;
    s->min_value_len = a_len;
    s->max_value = mx;
    s->max_value_len = b_len;
    if (l->phys != PQ_TYPE_BYTE_ARRAY && l->phys != PQ_TYPE_FIXED_LEN_BYTE_ARRAY) {
        /* signed order: the deprecated fields carry the same values for older readers */
        s->has_min = s->has_max = true;
        s->min = mn;
        s->min_len = a_len;
        s->max = mx;
        s->max_len = b_len;
    }
    return SQE_OK;
}

static void leaf_clear_stage(leaf *l) {
    pq_buf_clear(&l->def);
    pq_buf_clear(&l->rep);
    pq_buf_clear(&l->vals);
    pq_buf_clear(&l->lens);
    l->n_levels = l->n_vals = 0;
}

/* Encodes and writes the staged row group (nothing when it is empty). */
static int flush_row_group(pq_writer *w, sqe_error *err) {
    if (w->rg_rows == 0) return SQE_OK;
    uint64_t staged = staged_bytes(w), pos0 = w->pos;
    if (w->n_row_groups == w->cap_row_groups) {
        uint32_t cap = w->cap_row_groups ? w->cap_row_groups * 2 : 16;
        pq_row_group *p = realloc(w->row_groups, (size_t)cap * sizeof(*p));
        if (!p) return err_nomem(err, "Parquet row groups");
        w->row_groups = p;
        w->cap_row_groups = cap;
    }
    SQE_TRY(encode_row_group(w, err));
    pq_row_group *rg = &w->row_groups[w->n_row_groups];
    memset(rg, 0, sizeof(*rg));
    rg->columns = ARENA_ARRAY(&w->meta, pq_column_chunk, w->n_leaves);
    if (!rg->columns) return err_nomem(err, "Parquet row groups");
    rg->n_columns = w->n_leaves;
    rg->num_rows = (int64_t)w->rg_rows;
    rg->has_file_offset = rg->has_total_compressed_size = true;
    rg->file_offset = (int64_t)w->pos;
    if (w->n_row_groups <= INT16_MAX) {
        rg->has_ordinal = true;
        rg->ordinal = (int16_t)w->n_row_groups;
    }
    for (uint32_t i = 0; i < w->n_leaves; i++) {
        leaf *l = &w->leaves[i];
        pq_column_chunk *cc = &rg->columns[i];
        uint64_t start = w->pos;
        SQE_TRY(write_all(w, l->chunk.data, l->chunk.len, err));
        cc->file_offset = 0; /* deprecated; 0 when no ColumnMetaData is written outside the footer */
        cc->has_meta_data = true;
        pq_column_meta *m = &cc->meta_data;
        m->type = l->phys;
        m->encodings = ARENA_ARRAY(&w->meta, int32_t, 3);
        if (!m->encodings) return err_nomem(err, "Parquet metadata");
        m->encodings[m->n_encodings++] = PQ_ENC_PLAIN;
        m->encodings[m->n_encodings++] = PQ_ENC_RLE;
        if (l->has_dict) m->encodings[m->n_encodings++] = PQ_ENC_RLE_DICTIONARY;
        m->path_in_schema = l->path;
        m->n_path_in_schema = l->n_path;
        m->codec = w->o.codec;
        m->num_values = (int64_t)l->n_levels;
        m->total_uncompressed_size = l->uncompressed;
        m->total_compressed_size = (int64_t)l->chunk.len;
        m->data_page_offset = (int64_t)(start + l->dict_size);
        if (l->has_dict) {
            m->has_dictionary_page_offset = true;
            m->dictionary_page_offset = (int64_t)start;
        }
        if (w->o.write_statistics) {
            m->has_statistics = true;
            SQE_TRY(chunk_statistics(w, l, &m->statistics, err));
        }
        if (w->o.write_page_index) {
            if (l->column_index.len) {
                cc->has_column_index = true;
                cc->column_index_offset = (int64_t)w->ci_all.len; /* rebased at close */
                cc->column_index_length = (int32_t)l->column_index.len;
                SQE_TRY(pq_buf_append(&w->ci_all, l->column_index.data, l->column_index.len, err));
            }
            pq_page_location *locs = malloc((size_t)(l->n_pages ? l->n_pages : 1) * sizeof(*locs));
            if (!locs) return err_nomem(err, "Parquet offset index");
            for (uint32_t p = 0; p < l->n_pages; p++)
                locs[p] = (pq_page_location){(int64_t)(start + l->pages[p].offset),
                                             (int32_t)l->pages[p].size, (int64_t)l->pages[p].first_row};
            pq_offset_index oi = {locs, l->n_pages};
            pq_thrift_writer_clear(&w->tw);
            int rc = pq_meta_encode_offset_index(&w->tw, &oi, err);
            free(locs);
            SQE_TRY(rc);
            cc->has_offset_index = true;
            cc->offset_index_offset = (int64_t)w->oi_all.len; /* rebased at close */
            cc->offset_index_length = (int32_t)w->tw.len;
            SQE_TRY(pq_buf_append(&w->oi_all, w->tw.buf, w->tw.len, err));
        }
        rg->total_byte_size += l->uncompressed;
        rg->total_compressed_size += (int64_t)l->chunk.len;
    }
    /* bloom filters after the row group's column data, which stays contiguous */
    for (uint32_t i = 0; i < w->n_leaves; i++) {
        leaf *l = &w->leaves[i];
        if (!l->bloom.len || l->bloom.len > INT32_MAX) continue;
        pq_column_meta *m = &rg->columns[i].meta_data;
        m->has_bloom_filter_offset = m->has_bloom_filter_length = true;
        m->bloom_filter_offset = (int64_t)w->pos;
        m->bloom_filter_length = (int32_t)l->bloom.len;
        SQE_TRY(write_all(w, l->bloom.data, l->bloom.len, err));
    }
    w->n_row_groups++;
    for (uint32_t i = 0; i < w->n_leaves; i++) {
        leaf_clear_stage(&w->leaves[i]);
        pq_buf_clear(&w->leaves[i].chunk);
    }
    w->total_rows += w->rg_rows;
    w->rg_rows = 0;
    w->flushed_staged += staged;
    w->flushed_written += w->pos - pos0;
    return SQE_OK;
}

uint64_t pq_writer_buffered_bytes(const pq_writer *w) { return staged_bytes(w); }

uint64_t pq_writer_rows(const pq_writer *w) { return w->total_rows + w->rg_rows; }

uint64_t pq_writer_estimated_size(const pq_writer *w) {
    uint64_t buffered = staged_bytes(w);
    if (w->flushed_staged)
        buffered = (uint64_t)((double)buffered * (double)w->flushed_written /
                              (double)w->flushed_staged);
    return w->pos + buffered;
}

int pq_writer_flush(pq_writer *w, sqe_error *err) { return flush_row_group(w, err); }

/* ---- lifecycle ------------------------------------------------------------------------------- */

static void writer_free(pq_writer *w) {
    if (!w) return;
    for (uint32_t i = 0; i < w->n_leaves; i++) {
        leaf *l = &w->leaves[i];
        pq_buf_reset(&l->def);
        pq_buf_reset(&l->rep);
        pq_buf_reset(&l->vals);
        pq_buf_reset(&l->lens);
        pq_buf_reset(&l->chunk);
        pq_buf_reset(&l->page_bounds);
        pq_buf_reset(&l->column_index);
        pq_buf_reset(&l->bloom);
        free(l->pages);
    }
    for (uint32_t t = 0; t < w->n_workers; t++) {
        worker *wk = &w->workers[t];
        pq_buf_reset(&wk->body);
        pq_buf_reset(&wk->comp);
        pq_thrift_writer_reset(&wk->hdr);
        pq_compressor_reset(&wk->codec);
        pq_dict_reset(&wk->dict);
        free(wk->idx);
    }
    free(w->workers);
    free(w->leaves);
    free(w->nodes);
    free(w->schema);
    free(w->order);
    free(w->col_node);
    free(w->col_types);
    free(w->row_groups);
    pq_buf_reset(&w->ci_all);
    pq_buf_reset(&w->oi_all);
    pq_thrift_writer_reset(&w->tw);
    arena_destroy(&w->meta);
    free(w->path);
    free(w->tmp_path);
    free(w);
}

void pq_writer_abort(pq_writer *w) {
    if (!w) return;
    if (w->fd >= 0) close(w->fd);
    if (w->tmp_path) unlink(w->tmp_path);
    writer_free(w);
}

static int open_temp_file(pq_writer *w, sqe_error *err) {
    size_t len = strlen(w->path) + 64;
    w->tmp_path = malloc(len);
    if (!w->tmp_path) return err_nomem(err, "Parquet writer");
    for (int attempt = 0; attempt < 16; attempt++) {
        uint64_t rnd = 0;
        if (getrandom(&rnd, sizeof rnd, GRND_NONBLOCK) != (ssize_t)sizeof rnd) {
            struct timespec ts;
            clock_gettime(CLOCK_MONOTONIC, &ts);
            rnd = ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec ^ ((uint64_t)attempt << 40);
        }
        snprintf(w->tmp_path, len, "%s.tmp-%ld-%016llx", w->path, (long)getpid(),
                 (unsigned long long)rnd);
        w->fd = open(w->tmp_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (w->fd >= 0) return SQE_OK;
        if (errno != EEXIST) break;
    }
    int e = errno;
    free(w->tmp_path);
    w->tmp_path = NULL;
    return err_set(err, SQE_ERR_IO_ERROR, "Cannot write Parquet file '%s': %s", w->path, strerror(e));
}

int pq_writer_open(const char *path, uint32_t n_cols, const char *const *names,
                   const sqe_type *types, const pq_writer_options *o, mem_tracker *tracker,
                   pq_writer **out, sqe_error *err) {
    *out = NULL;
    pq_writer_options opts;
    if (o) opts = *o;
    else pq_writer_options_init(&opts);
    SQE_TRY(pq_compressor_check(opts.codec, opts.compression_level, err));
    if (opts.row_group_rows == 0 || opts.row_group_rows > INT32_MAX || opts.row_group_bytes == 0 ||
        opts.page_bytes == 0 || opts.page_rows == 0)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "Invalid Parquet writer sizes");
    if (!path || !*path) return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "Parquet file path is empty");
    if (n_cols == 0)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "Cannot write a Parquet file without columns");
    pq_writer *w = calloc(1, sizeof(*w));
    if (!w) return err_nomem(err, "Parquet writer");
    w->fd = -1;
    w->o = opts;
    w->o.field_ids = NULL;
    w->o.fields = NULL;
    w->o.n_fields = 0;
    w->finfo = opts.fields;
    w->n_finfo = opts.fields ? opts.n_fields : 0;
    w->tracker = tracker;
    arena_init(&w->meta, tracker);
    pq_buf_init(&w->ci_all, tracker);
    pq_buf_init(&w->oi_all, tracker);
    pq_thrift_writer_init(&w->tw);
    int rc = SQE_OK;
    w->path = strdup(path);
    w->n_cols = n_cols;
    w->col_node = calloc(n_cols, sizeof(uint32_t));
    w->col_types = calloc(n_cols, sizeof(sqe_type));
    if (!w->path || !w->col_node || !w->col_types) {
        rc = err_nomem(err, "Parquet writer");
        goto out_fail;
    }
    memcpy(w->col_types, types, n_cols * sizeof(sqe_type));
    uint32_t root;
    rc = add_element(w, "schema", PQ_REP_REQUIRED, &root, err);
    if (rc) goto out_fail;
    w->schema[root].has_num_children = true;
    w->schema[root].num_children = (int32_t)n_cols;
    const char *path_stack[MAX_NESTING + 4];
    for (uint32_t c = 0; c < n_cols; c++) {
        int32_t fid = opts.field_ids ? opts.field_ids[c] : -1;
        const char *name = names && names[c] ? names[c] : "";
        rc = build_field(w, name, types[c], false, 0, 0, fid, path_stack, 1, &w->col_node[c], err);
        if (rc) goto out_fail;
    }
    if (w->finfo && w->finfo_next != w->n_finfo) {
        rc = err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                     "Parquet writer: %u field entries given for a schema of %u nodes", w->n_finfo,
                     w->finfo_next);
        goto out_fail;
    }
    w->finfo = NULL;
    w->order = calloc(w->n_leaves ? w->n_leaves : 1, sizeof(uint32_t));
    uint32_t n_workers = opts.threads ? opts.threads : 1;
    if (n_workers > MAX_THREADS) n_workers = MAX_THREADS;
    w->workers = calloc(n_workers, sizeof(worker));
    if (!w->order || !w->workers) {
        rc = err_nomem(err, "Parquet writer");
        goto out_fail;
    }
    for (uint32_t t = 0; t < n_workers; t++) {
        worker *wk = &w->workers[t];
        pq_buf_init(&wk->body, tracker);
        pq_buf_init(&wk->comp, tracker);
        pq_thrift_writer_init(&wk->hdr);
        pq_dict_init(&wk->dict, 0, opts.dictionary_page_bytes, tracker);
        w->n_workers++;
        rc = pq_compressor_init(&wk->codec, opts.codec, opts.compression_level, err);
        if (rc) goto out_fail;
    }
    rc = open_temp_file(w, err);
    if (rc) goto out_fail;
    rc = write_all(w, "PAR1", 4, err);
    if (rc) goto out_fail;
    *out = w;
    return SQE_OK;
out_fail:
    pq_writer_abort(w);
    return rc;
}

int pq_writer_write(pq_writer *w, const vec_chunk *chunk, sqe_error *err) {
    if (chunk->n_cols != w->n_cols)
        return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR,
                       "Parquet writer: chunk has %u columns, the file %u", chunk->n_cols, w->n_cols);
    for (uint32_t c = 0; c < w->n_cols; c++) {
        sqe_type have = chunk->cols[c].type, want = w->col_types[c];
        if (have.id != want.id && want.id != TYPE_UNKNOWN)
            return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR,
                           "Parquet writer: column %u has type id %d, expected %d", c, have.id,
                           want.id);
        if (want.id == TYPE_DECIMAL && type_decimal_is_long(have) != type_decimal_is_long(want))
            return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR,
                           "Parquet writer: column %u has a different decimal layout", c);
    }
    uint32_t done = 0;
    while (done < chunk->count) {
        uint64_t room = w->o.row_group_rows - w->rg_rows;
        uint32_t take = chunk->count - done;
        if (take > room) take = (uint32_t)room;
        for (uint32_t c = 0; c < w->n_cols; c++) {
            const vec *v = &chunk->cols[c];
            uint32_t ni = w->col_node[c];
            const wnode *n = &w->nodes[ni];
            if (n->kind == NODE_LEAF) {
                SQE_TRY(stage_flat(&w->leaves[n->leaf], v, done, take, err));
            } else {
                for (uint32_t r = 0; r < take; r++) SQE_TRY(shred(w, ni, v, done + r, 0, 0, err));
            }
        }
        w->rg_rows += take;
        done += take;
        if (w->rg_rows >= w->o.row_group_rows || staged_bytes(w) >= w->o.row_group_bytes)
            SQE_TRY(flush_row_group(w, err));
    }
    return SQE_OK;
}

static int writer_close(pq_writer *w, uint64_t *rows_written, arena *a, pq_file_meta **meta,
                        uint64_t *file_size, sqe_error *err) {
    if (meta) *meta = NULL;
    int rc = flush_row_group(w, err);
    if (!rc && w->o.write_page_index) {
        uint64_t ci_base = w->pos;
        rc = write_all(w, w->ci_all.data, w->ci_all.len, err);
        uint64_t oi_base = w->pos;
        if (!rc) rc = write_all(w, w->oi_all.data, w->oi_all.len, err);
        for (uint32_t g = 0; !rc && g < w->n_row_groups; g++) {
            for (uint32_t c = 0; c < w->row_groups[g].n_columns; c++) {
                pq_column_chunk *cc = &w->row_groups[g].columns[c];
                if (cc->has_column_index) cc->column_index_offset += (int64_t)ci_base;
                if (cc->has_offset_index) cc->offset_index_offset += (int64_t)oi_base;
            }
        }
    }
    if (!rc) {
        pq_file_meta m;
        memset(&m, 0, sizeof(m));
        m.version = 2;
        m.schema = w->schema;
        m.n_schema = w->n_schema;
        m.num_rows = (int64_t)w->total_rows;
        m.row_groups = w->row_groups;
        m.n_row_groups = w->n_row_groups;
        m.created_by = "SQE version " SQE_VERSION;
        int32_t *orders = ARENA_ARRAY(&w->meta, int32_t, w->n_leaves ? w->n_leaves : 1);
        if (!orders) rc = err_nomem(err, "Parquet footer");
        for (uint32_t i = 0; !rc && i < w->n_leaves; i++) orders[i] = PQ_ORDER_TYPE_DEFINED;
        m.column_orders = orders;
        m.n_column_orders = w->n_leaves;
        pq_thrift_writer_clear(&w->tw);
        if (!rc) rc = pq_meta_encode_file_metadata(&w->tw, &m, err);
        if (!rc && meta) rc = pq_meta_decode_file_metadata(a, w->tw.buf, w->tw.len, meta, err);
        if (!rc && w->tw.len > UINT32_MAX)
            rc = err_set(err, SQE_ERR_NOT_SUPPORTED, "unsupported: Parquet footer over 4 GiB");
        if (!rc) rc = write_all(w, w->tw.buf, w->tw.len, err);
        if (!rc) {
            uint32_t flen = (uint32_t)w->tw.len;
            uint8_t tail[8] = {(uint8_t)flen, (uint8_t)(flen >> 8), (uint8_t)(flen >> 16),
                               (uint8_t)(flen >> 24), 'P', 'A', 'R', '1'};
            rc = write_all(w, tail, sizeof tail, err);
        }
    }
    if (!rc && fsync(w->fd) != 0)
        rc = err_set(err, SQE_ERR_IO_ERROR, "Cannot write Parquet file '%s': %s", w->path,
                     strerror(errno));
    if (!rc) {
        int fd = w->fd;
        w->fd = -1;
        if (close(fd) != 0)
            rc = err_set(err, SQE_ERR_IO_ERROR, "Cannot write Parquet file '%s': %s", w->path,
                         strerror(errno));
    }
    if (!rc && w->o.no_replace) {
        /* link(2) fails with EEXIST instead of replacing: a file that appeared since the
         * caller looked is kept */
        if (link(w->tmp_path, w->path) != 0)
            rc = errno == EEXIST ? err_set(err, SQE_ERR_ALREADY_EXISTS,
                                           "Parquet file '%s' exists; it is not replaced", w->path)
                                 : err_set(err, SQE_ERR_IO_ERROR, "Cannot write Parquet file "
                                           "'%s': %s", w->path, strerror(errno));
        else
            unlink(w->tmp_path);
    } else if (!rc && rename(w->tmp_path, w->path) != 0) {
        rc = err_set(err, SQE_ERR_IO_ERROR, "Cannot write Parquet file '%s': %s", w->path,
                     strerror(errno));
    }
    if (rc) {
        if (meta) *meta = NULL;
        pq_writer_abort(w);
        return rc;
    }
    if (rows_written) *rows_written = w->total_rows;
    if (file_size) *file_size = w->pos;
    free(w->tmp_path);
    w->tmp_path = NULL;
    writer_free(w);
    return SQE_OK;
}

int pq_writer_close(pq_writer *w, uint64_t *rows_written, sqe_error *err) {
    return writer_close(w, rows_written, NULL, NULL, NULL, err);
}

int pq_writer_close_meta(pq_writer *w, arena *a, pq_file_meta **meta, uint64_t *file_size,
                         sqe_error *err) {
    return writer_close(w, NULL, a, meta, file_size, err);
}
