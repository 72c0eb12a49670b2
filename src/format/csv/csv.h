/*
 * csv.h: the CSV reader behind read_csv(): options, schema inference ("sniffing"), a chunked
 * reader over a byte range of one file, range splitting for parallel scans, and glob expansion.
 *
 * Typical use (one file):
 *   csv_options o;  csv_options_init(&o);  csv_options_set(&o, "delim", "|", err) ...
 *   csv_schema s;   csv_sniff(path, &o, &s, err);          -> column names, types, dialect
 *   csv_split_ranges(path, &o, &s, n_threads, &ranges, &n_ranges, err);
 *   per range: csv_reader_open(path, &o, &s, r.start, r.end, tracker, &rd, err);
 *              while (csv_reader_next(rd, &chunk, err) == SQE_OK && chunk.count > 0) { ... }
 *              csv_reader_close(rd);
 *   csv_schema_reset(&s);  csv_options_reset(&o);
 *
 * Text rules (RFC 4180 plus the usual extensions): fields are separated by a one-byte delimiter;
 * a field that starts with the quote character is quoted and may contain delimiters, line breaks
 * and doubled quotes ("" -> ") or escape-prefixed characters; rows end at \n, \r\n or \r; a UTF-8
 * byte order mark at the start of the file is skipped. See src/format/csv/README.md for the
 * options, the inference rules and the range semantics.
 *
 * Errors name the file and the 1-based physical line (and byte column) of the offending row:
 * INVALID_FILE for structure (ragged rows, unterminated quotes, overlong lines, non-text data),
 * INVALID_CAST_ARGUMENT for values that do not convert to the column type, NOT_FOUND / IO_ERROR
 * for files, INVALID_ARGUMENTS for options.
 */
#ifndef SQE_FORMAT_CSV_CSV_H
#define SQE_FORMAT_CSV_CSV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "common/mem.h"
#include "types/types.h"
#include "vec/vec.h"

#define CSV_DEFAULT_SAMPLE_ROWS 20480
#define CSV_DEFAULT_MAX_LINE_SIZE ((uint64_t)16 << 20)
/* end_offset meaning "to the end of the file". */
#define CSV_RANGE_END UINT64_MAX

typedef enum csv_header {
    CSV_HEADER_AUTO = 0, /* detect from the sample */
    CSV_HEADER_TRUE,     /* the first row (after skip) names the columns */
    CSV_HEADER_FALSE     /* every row is data; columns are named column0, column1, ... */
} csv_header;

/* One explicitly declared column (the `columns` option). */
typedef struct csv_column_def {
    char *name;     /* owned, NUL-terminated */
    sqe_type type;  /* a scalar type (no nested or interval types) */
} csv_column_def;

/* Reader options. Caller-owned storage; strings and arrays inside are owned by the struct and
 * freed by csv_options_reset. */
typedef struct csv_options {
    char delimiter;            /* 0 = detect among ',' '|' ';' '\t' (',' when none fits) */
    char quote;                /* 0 = no quoting */
    char escape;               /* 0 = same as quote ("" doubling) */
    char comment;              /* 0 = none; else lines starting with it are skipped */
    csv_header header;
    char *null_string;         /* NULL = the default: an empty unquoted field is NULL */
    uint64_t skip;             /* physical lines skipped at the start (before the header) */
    int64_t sample_size;       /* rows read for inference; -1 = the whole file */
    bool all_varchar;          /* infer every column as varchar */
    bool null_padding;         /* rows with too few fields get NULLs instead of an error */
    bool ignore_errors;        /* skip rows that are malformed or do not convert */
    uint64_t max_line_size;    /* bytes; longer rows are an error */
    csv_column_def *columns;   /* explicit columns (names and types), owned; NULL = infer */
    uint32_t n_columns;
} csv_options;

/* Sets the defaults (delimiter auto, quote '"', escape = quote, header auto, no comment,
 * null_string default, skip 0, sample 20480 rows, max line 16 MiB, everything else off). */
void csv_options_init(csv_options *o);
/* Frees what the options own; o may be reused after csv_options_init. */
void csv_options_reset(csv_options *o);
/* Deep copy of src into caller-owned dst (dst need not be initialized). On error dst is left
 * initialized with defaults. */
int csv_options_copy(csv_options *dst, const csv_options *src, sqe_error *err);
/* Sets one option by name (case-insensitive) from the text of its SQL value: a string literal's
 * contents without quotes, a number's digits, or true/false. Names: header, delimiter (delim,
 * sep), quote, escape, comment, null (nullstr, null_string), skip, sample_size, all_varchar,
 * null_padding, ignore_errors, max_line_size, columns ("a bigint, b varchar, c decimal(15,2)").
 * Single-character options accept "\t" for a tab and "" for none where that makes sense.
 * Returns SQE_OK, or INVALID_ARGUMENTS for an unknown name ("Unknown read_csv option 'x'") or
 * a bad value (the message names the option); on error o is unchanged. */
int csv_options_set(csv_options *o, const char *name, const char *value_text, sqe_error *err);

/* The shape of a file, as csv_sniff determines it. Caller-owned storage; arrays owned. */
typedef struct csv_schema {
    uint32_t n_cols;
    char **names;             /* n_cols unique names, owned */
    sqe_type *types;          /* n_cols types, owned */
    char delimiter;           /* resolved delimiter (detected when the options left it 0) */
    bool has_header;          /* resolved header flag */
    bool quoted_newlines;     /* a quoted field in the sample spans lines: do not split */
    uint64_t data_offset;     /* byte offset of the first data row (after BOM, skip, header) */
    uint64_t file_size;       /* size when sniffed */
} csv_schema;

void csv_schema_init(csv_schema *s);
/* Frees what the schema owns; s may be reused after csv_schema_init. */
void csv_schema_reset(csv_schema *s);

/* Reads the start of the file (o->sample_size rows), detects the delimiter (when not given),
 * the header (when o->header is AUTO), the column names and types (unless o->columns are
 * given; all varchar when o->all_varchar), and where the data begins. On success the caller
 * owns *out (csv_schema_reset); on error *out is left initialized and empty. Errors: NOT_FOUND
 * / IO_ERROR for the file, INVALID_FILE "CSV file is empty: <path>", INVALID_FILE for binary or
 * non-UTF-8 data, and the structural errors of the reader for rows of the sample. */
int csv_sniff(const char *path, const csv_options *o, csv_schema *out, sqe_error *err);

/* A byte range of a file: the rows that START inside [start, end). */
typedef struct csv_range {
    uint64_t start;
    uint64_t end;
} csv_range;

/* Splits the file into at most n ranges for parallel reading. Returns one range [0, END) when
 * n <= 1, the file is smaller than 8 MiB, or the sample had quoted fields spanning lines
 * (schema->quoted_newlines): range readers find row starts by looking for line breaks, which
 * is only correct when no quoted field contains one. Ranges are at least 2 MiB. On success the
 * caller owns *out (free()); on error *out is NULL. */
int csv_split_ranges(const char *path, const csv_options *o, const csv_schema *schema, uint32_t n,
                     csv_range **out, uint32_t *n_out, sqe_error *err);


typedef struct csv_reader csv_reader;

/* Opens a reader for the rows of `path` that start inside [start_offset, end_offset)
 * (CSV_RANGE_END for the rest of the file). schema must come from csv_sniff on the same file
 * with the same options (it supplies the dialect and where the data begins). With
 * start_offset > 0 the reader begins at the first line start at or after start_offset; this is
 * only correct when no quoted field of the file contains a line break (see csv_split_ranges).
 * Buffers are charged to tracker (may be NULL). Unsupported column types (nested, interval)
 * give NOT_SUPPORTED. On success the caller owns *out (csv_reader_close); on error *out is NULL.
 * The reader copies what it needs from o and schema, which may be freed after the call. */
int csv_reader_open(const char *path, const csv_options *o, const csv_schema *schema,
                    uint64_t start_offset, uint64_t end_offset, mem_tracker *tracker,
                    csv_reader **out, sqe_error *err);
/* Restricts the output to the given schema columns, in this order (projection pushdown);
 * other columns are still checked for structure but not converted. Call before the first
 * csv_reader_next. INVALID_ARGUMENTS when an index is out of range. */
int csv_reader_project(csv_reader *r, const uint32_t *cols, uint32_t n_cols, sqe_error *err);
/* Fills `out` with up to out->capacity rows. out must have been made with vec_chunk_init with
 * the schema's types (or the projected ones) in order; it is reset first. Sets out->count to 0
 * at the end of the range. String views point into the reader's buffer and stay valid until
 * the next csv_reader_next or csv_reader_close. On error the chunk content is undefined and the
 * reader must only be closed. */
int csv_reader_next(csv_reader *r, vec_chunk *out, sqe_error *err);
/* Closes the file and frees the reader. NULL is ignored. */
void csv_reader_close(csv_reader *r);

#endif
