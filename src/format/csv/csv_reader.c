/*
 * csv_reader.c: reads the rows of one byte range of a CSV file into vector chunks.
 *
 * INTERFACE: csv_reader_open, csv_reader_project, csv_reader_next, csv_reader_close.
 * NOTES:
 *   - Two phases per chunk: the scanner tokenizes a round of rows into column-major field
 *     slices (csv_scan.c), then each output column is converted in one tight loop for its type
 *     (no per-value dispatch). Wide files tokenize fewer rows per round so the field table
 *     stays small (FIELD_BUDGET).
 *   - Strings are not copied: varchar views of more than 12 bytes point into the read buffer,
 *     which is only refilled at the start of a csv_reader_next call, so the views stay valid
 *     until the next call (vec.h lifetime (b)). A chunk therefore ends early when the buffer
 *     ends in the middle of a row (about once per 4 MiB).
 *   - NULL: a missing field (null_padding) is NULL; for string columns an unquoted field equal
 *     to null_string (default: empty) is NULL, a quoted one is text; for other columns an empty
 *     or blank field is NULL as well.
 *   - Bad values fail with INVALID_CAST_ARGUMENT "<file>:<line>:<col>: Cannot cast '<text>' to
 *     <type> (column <n> "<name>")"; with ignore_errors the row is dropped instead.
 *   - Ranges: a reader for [start, end) with start past the data start begins at the first
 *     line start at or after start and returns the rows that begin before end (see csv.h for
 *     why that needs a file without line breaks inside quoted fields).
 */
#include <stdlib.h>
#include <string.h>

#include "format/csv/csv_int.h"
#include "types/datetime.h"
#include "types/decimal.h"
#include "types/float_text.h"

#define FIELD_BUDGET (1u << 14) /* fields tokenized per round (128 KiB) */
#define MAX_ROUND_ROWS 4096

struct csv_reader {
    csv_scanner sc;
    mem_tracker *tracker;
    uint32_t n_cols;        /* schema columns */
    sqe_type *types;        /* n_cols, owned */
    char **names;           /* n_cols, owned (for messages) */
    uint32_t *proj;         /* output column -> schema column, owned */
    uint32_t n_proj;
    char *null_string;      /* owned; NULL = default (empty) */
    uint32_t null_len;
    bool ignore_errors;
    bool done;
    csv_batch batch;        /* one round of fields */
    uint8_t *reject;        /* per round row: dropped by ignore_errors */
};

/* --- open / close -------------------------------------------------------------------------- */

static bool type_supported(sqe_type t) {
    switch ((type_id)t.id) {
    case TYPE_BOOLEAN: case TYPE_TINYINT: case TYPE_SMALLINT: case TYPE_INTEGER:
    case TYPE_BIGINT: case TYPE_REAL: case TYPE_DOUBLE: case TYPE_DECIMAL: case TYPE_VARCHAR:
    case TYPE_CHAR: case TYPE_VARBINARY: case TYPE_JSON: case TYPE_DATE: case TYPE_TIME:
    case TYPE_TIMESTAMP: case TYPE_TIMESTAMP_TZ: case TYPE_UUID:
        return true;
    default:
        return false;
    }
}

void csv_reader_close(csv_reader *r) {
    if (!r) return;
    csv_scanner_close(&r->sc);
    if (r->names)
        for (uint32_t i = 0; i < r->n_cols; i++) free(r->names[i]);
    free(r->names);
    free(r->types);
    free(r->proj);
    free(r->null_string);
    mem_free(r->tracker, r->batch.fields);
    mem_free(r->tracker, r->batch.row_pos);
    mem_free(r->tracker, r->reject);
    free(r);
}

/* Positions the scanner at the first row of the range. */
static int reader_seek_start(csv_reader *r, const csv_schema *schema, uint64_t start,
                             sqe_error *err) {
    if (start <= schema->data_offset) return csv_scanner_seek(&r->sc, schema->data_offset, err);
    /* The row containing byte start-1 belongs to the previous range: skip to its end. */
    SQE_TRY(csv_scanner_seek(&r->sc, start - 1, err));
    SQE_TRY(csv_scanner_fill(&r->sc, err));
    return csv_scanner_skip_line(&r->sc, err);
}

int csv_reader_open(const char *path, const csv_options *o, const csv_schema *schema,
                    uint64_t start_offset, uint64_t end_offset, mem_tracker *tracker,
                    csv_reader **out, sqe_error *err) {
    *out = NULL;
    if (schema->n_cols == 0 || !schema->types)
        return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "CSV reader opened without a schema");
    for (uint32_t c = 0; c < schema->n_cols; c++) {
        if (!type_supported(schema->types[c])) {
            char tname[128];
            type_format(schema->types[c], tname, sizeof tname);
            return err_set(err, SQE_ERR_NOT_SUPPORTED, "read_csv cannot read columns of type %s",
                           tname);
        }
    }
    csv_reader *r = calloc(1, sizeof *r);
    if (!r) return err_nomem(err, "CSV reader");
    r->sc.fd = -1;
    r->tracker = tracker;
    r->n_cols = schema->n_cols;
    r->ignore_errors = o->ignore_errors;
    int rc;
    r->types = malloc(sizeof(sqe_type) * r->n_cols);
    r->names = calloc(r->n_cols, sizeof(char *));
    r->proj = malloc(sizeof(uint32_t) * r->n_cols);
    if (!r->types || !r->names || !r->proj) goto out_nomem;
    for (uint32_t c = 0; c < r->n_cols; c++) {
        r->types[c] = schema->types[c];
        r->names[c] = strdup(schema->names && schema->names[c] ? schema->names[c] : "?");
        if (!r->names[c]) goto out_nomem;
        r->proj[c] = c;
    }
    r->n_proj = r->n_cols;
    if (o->null_string) {
        r->null_string = strdup(o->null_string);
        if (!r->null_string) goto out_nomem;
        r->null_len = (uint32_t)strlen(o->null_string);
    }

    csv_dialect d = csv_dialect_from_options(o);
    d.delim = schema->delimiter ? schema->delimiter : (o->delimiter ? o->delimiter : ',');
    d.skip_empty = r->n_cols > 1;
    rc = csv_scanner_open(&r->sc, path, &d, tracker, err);
    if (rc) goto out_close;
    r->sc.end = end_offset; /* before the first read, which it bounds */
    rc = reader_seek_start(r, schema, start_offset, err);
    if (rc) goto out_close;

    uint32_t per_round = FIELD_BUDGET / r->n_cols;
    if (per_round > MAX_ROUND_ROWS) per_round = MAX_ROUND_ROWS;
    if (per_round < 1) per_round = 1;
    r->batch.stride = per_round;
    r->batch.n_cols = r->n_cols;
    r->batch.fields = mem_alloc(tracker, sizeof(csv_field) * (size_t)per_round * r->n_cols, err);
    r->batch.row_pos = mem_alloc(tracker, sizeof(uint32_t) * per_round, err);
    r->reject = mem_alloc(tracker, per_round, err);
    if (!r->batch.fields || !r->batch.row_pos || !r->reject) {
        rc = err ? err->code : SQE_ERR_OUT_OF_MEMORY;
        goto out_close;
    }
    *out = r;
    return SQE_OK;

out_nomem:
    rc = err_nomem(err, "CSV reader");
out_close:
    csv_reader_close(r);
    return rc;
}

int csv_reader_project(csv_reader *r, const uint32_t *cols, uint32_t n_cols, sqe_error *err) {
    for (uint32_t i = 0; i < n_cols; i++)
        if (cols[i] >= r->n_cols)
            return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                           "CSV projection names column %u of a file with %u columns", cols[i],
                           r->n_cols);
    uint32_t *p = malloc(sizeof(uint32_t) * (n_cols ? n_cols : 1));
    if (!p) return err_nomem(err, "CSV reader");
    memcpy(p, cols, sizeof(uint32_t) * n_cols);
    free(r->proj);
    r->proj = p;
    r->n_proj = n_cols;
    return SQE_OK;
}

/* --- conversion ---------------------------------------------------------------------------- */

/* One column of one round: fields[i] goes to row base + i of v. */
typedef struct conv {
    csv_reader *r;
    uint32_t col;        /* schema column */
    csv_field *fields;
    vec *v;
    uint32_t base;
    uint32_t n;
    sqe_error *err;
} conv;

static inline int set_null(conv *c, uint32_t i) {
    if (vec_set_null(c->v, c->base + i) != SQE_OK) return err_nomem(c->err, "CSV NULL bitmap");
    return SQE_OK;
}

static bool all_blank(const char *s, uint32_t len) {
    for (uint32_t i = 0; i < len; i++)
        if (s[i] != ' ' && s[i] != '\t') return false;
    return true;
}

/* Text of a field of a non-string column; false when the value is NULL. */
static inline bool typed_text(const csv_reader *r, csv_field *f, const char **s, uint32_t *len) {
    uint32_t l = f->len;
    if (l & (CSV_F_ESCAPED | CSV_F_MISSING)) {
        if (l & CSV_F_MISSING) return false;
        csv_field_unescape(&r->sc, f);
        l = f->len;
    }
    *s = r->sc.buf + f->off;
    *len = l & CSV_F_LEN;
    if (*len == 0) return false;
    if (r->null_string && !(l & CSV_F_QUOTED) && *len == r->null_len &&
        memcmp(*s, r->null_string, r->null_len) == 0)
        return false;
    return true;
}

/* Text of a field of a string column; false when the value is NULL. */
static inline bool string_text(const csv_reader *r, csv_field *f, const char **s, uint32_t *len) {
    uint32_t l = f->len;
    if (l & (CSV_F_ESCAPED | CSV_F_MISSING)) {
        if (l & CSV_F_MISSING) return false;
        csv_field_unescape(&r->sc, f);
        l = f->len;
    }
    *s = r->sc.buf + f->off;
    *len = l & CSV_F_LEN;
    if (l & CSV_F_QUOTED) return true;
    return !(*len == r->null_len &&
             (r->null_len == 0 || memcmp(*s, r->null_string, r->null_len) == 0));
}

/* A value that does not convert: NULL when blank, dropped row with ignore_errors, else the
 * error. `why` may add a reason (": value too large"). */
static int bad_value(conv *c, uint32_t i, const char *s, uint32_t len, const char *why) {
    csv_reader *r = c->r;
    if (all_blank(s, len)) return set_null(c, i);
    if (r->ignore_errors) {
        r->reject[i] = 1;
        return set_null(c, i);
    }
    char shown[128], tname[128];
    csv_quote_text(s, len, shown);
    type_format(r->types[c->col], tname, sizeof tname);
    return csv_scan_error(&r->sc, c->err, SQE_ERR_INVALID_CAST_ARGUMENT,
                          r->sc.base + c->fields[i].off,
                          "Cannot cast '%s' to %s%s (column %u \"%s\")", shown, tname, why,
                          c->col + 1, r->names[c->col]);
}

static int conv_bool(conv *c) {
    uint8_t *out = c->v->data;
    for (uint32_t i = 0; i < c->n; i++) {
        const char *s;
        uint32_t len;
        if (!typed_text(c->r, &c->fields[i], &s, &len)) {
            SQE_TRY(set_null(c, i));
            continue;
        }
        if (!csv_parse_bool(s, len, &out[c->base + i])) SQE_TRY(bad_value(c, i, s, len, ""));
    }
    return SQE_OK;
}

static int conv_int(conv *c) {
    const type_id id = (type_id)c->v->type.id;
    int64_t lo = INT64_MIN, hi = INT64_MAX;
    if (id == TYPE_TINYINT) lo = INT8_MIN, hi = INT8_MAX;
    else if (id == TYPE_SMALLINT) lo = INT16_MIN, hi = INT16_MAX;
    else if (id == TYPE_INTEGER) lo = INT32_MIN, hi = INT32_MAX;
    for (uint32_t i = 0; i < c->n; i++) {
        const char *s;
        uint32_t len;
        if (!typed_text(c->r, &c->fields[i], &s, &len)) {
            SQE_TRY(set_null(c, i));
            continue;
        }
        int64_t x;
        if (!csv_parse_int64(s, len, &x) || x < lo || x > hi) {
            SQE_TRY(bad_value(c, i, s, len, ""));
            continue;
        }
        uint32_t row = c->base + i;
        switch (id) {
        case TYPE_TINYINT: ((int8_t *)c->v->data)[row] = (int8_t)x; break;
        case TYPE_SMALLINT: ((int16_t *)c->v->data)[row] = (int16_t)x; break;
        case TYPE_INTEGER: ((int32_t *)c->v->data)[row] = (int32_t)x; break;
        default: ((int64_t *)c->v->data)[row] = x; break;
        }
    }
    return SQE_OK;
}

static int conv_float(conv *c) {
    const bool real = c->v->type.id == TYPE_REAL;
    for (uint32_t i = 0; i < c->n; i++) {
        const char *s;
        uint32_t len;
        if (!typed_text(c->r, &c->fields[i], &s, &len)) {
            SQE_TRY(set_null(c, i));
            continue;
        }
        bool ok;
        if (real) /* rounded once, decimal to float (a double in between could round twice) */
            ok = float_text_parse_real(s, len, &((float *)c->v->data)[c->base + i]) == 0;
        else
            ok = csv_parse_double(s, len, &((double *)c->v->data)[c->base + i]);
        if (!ok) SQE_TRY(bad_value(c, i, s, len, ""));
    }
    return SQE_OK;
}

static int conv_decimal(conv *c) {
    const sqe_type t = c->v->type;
    for (uint32_t i = 0; i < c->n; i++) {
        const char *s;
        uint32_t len;
        if (!typed_text(c->r, &c->fields[i], &s, &len)) {
            SQE_TRY(set_null(c, i));
            continue;
        }
        int128 x;
        int prc = csv_parse_decimal(s, len, t.precision, t.scale, &x);
        if (prc != 0) {
            SQE_TRY(bad_value(c, i, s, len, prc == -2 ? ": value too large" : ""));
            continue;
        }
        decimal_put(c->v->data, t, c->base + i, x);
    }
    return SQE_OK;
}

static int conv_date(conv *c) {
    int32_t *out = c->v->data;
    for (uint32_t i = 0; i < c->n; i++) {
        const char *s;
        uint32_t len;
        if (!typed_text(c->r, &c->fields[i], &s, &len)) {
            SQE_TRY(set_null(c, i));
            continue;
        }
        if (!csv_parse_date(s, len, &out[c->base + i])) SQE_TRY(bad_value(c, i, s, len, ""));
    }
    return SQE_OK;
}

/* Rounds micros (half up, away from zero for negatives) to `precision` fraction digits. */
static int64_t round_micros(int64_t micros, int precision) {
    if (precision >= 6) return micros;
    static const int64_t unit[6] = {1000000, 100000, 10000, 1000, 100, 10};
    int64_t u = unit[precision < 0 ? 0 : precision];
    int64_t q = dt_floor_div(micros, u), rem = micros - q * u;
    if (rem * 2 >= u) q++;
    return q * u;
}

static int conv_time_like(conv *c) {
    const sqe_type t = c->v->type;
    for (uint32_t i = 0; i < c->n; i++) {
        const char *s;
        uint32_t len;
        if (!typed_text(c->r, &c->fields[i], &s, &len)) {
            SQE_TRY(set_null(c, i));
            continue;
        }
        int64_t micros;
        int prec;
        uint32_t row = c->base + i;
        if (t.id == TYPE_TIME) {
            if (dt_parse_time(s, len, &micros, &prec) != 0) {
                SQE_TRY(bad_value(c, i, s, len, ""));
                continue;
            }
            micros = round_micros(micros, t.precision);
            if (micros >= DT_MICROS_PER_DAY) micros -= DT_MICROS_PER_DAY;
            ((int64_t *)c->v->data)[row] = micros;
        } else if (t.id == TYPE_TIMESTAMP) {
            if (dt_parse_timestamp(s, len, &micros, &prec) != 0) {
                SQE_TRY(bad_value(c, i, s, len, ""));
                continue;
            }
            ((int64_t *)c->v->data)[row] = round_micros(micros, t.precision);
        } else {
            int32_t zone;
            bool has_zone;
            if (dt_parse_timestamp_tz(s, len, &micros, &zone, &has_zone, &prec) != 0) {
                SQE_TRY(bad_value(c, i, s, len, ""));
                continue;
            }
            sqe_timestamp_tz *out = &((sqe_timestamp_tz *)c->v->data)[row];
            out->micros = round_micros(micros, t.precision);
            out->zone = has_zone ? zone : 0; /* no zone written: UTC */
            out->pad_ = 0;
        }
    }
    return SQE_OK;
}

static int conv_uuid(conv *c) {
    uint8_t *out = c->v->data;
    for (uint32_t i = 0; i < c->n; i++) {
        const char *s;
        uint32_t len;
        if (!typed_text(c->r, &c->fields[i], &s, &len)) {
            SQE_TRY(set_null(c, i));
            continue;
        }
        if (!csv_parse_uuid(s, len, out + (size_t)(c->base + i) * 16))
            SQE_TRY(bad_value(c, i, s, len, ""));
    }
    return SQE_OK;
}

/* sqe_str_make for a field inside the scanner buffer: a short string is copied inline with two
 * 8-byte loads and masks instead of a variable-length memcpy (the CSV_PAD bytes after the data
 * make the over-read safe). */
static inline sqe_str field_view(const char *p, uint32_t len) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    sqe_str s;
    if (len <= SQE_STR_INLINE) {
        uint64_t lo, hi;
        memcpy(&lo, p, 8);
        memcpy(&hi, p + 8, 8);
        if (len < 8) {
            lo &= ((uint64_t)1 << (8 * len)) - 1;
            hi = 0;
        } else {
            hi = len == 8 ? 0 : hi & (~(uint64_t)0 >> (8 * (16 - len)));
        }
        uint64_t w0 = (uint64_t)len | lo << 32, w1 = lo >> 32 | hi << 32;
        memcpy(&s, &w0, 8);
        memcpy((char *)&s + 8, &w1, 8);
    } else {
        s.len = len;
        memcpy(s.prefix, p, 4);
        s.u.ptr = p;
    }
    return s;
#else
    return sqe_str_make(p, len);
#endif
}

static int conv_string(conv *c) {
    sqe_str *out = c->v->data;
    const bool check_utf8 = c->v->type.id != TYPE_VARBINARY;
    for (uint32_t i = 0; i < c->n; i++) {
        const char *s;
        uint32_t len;
        if (!string_text(c->r, &c->fields[i], &s, &len)) {
            memset(&out[c->base + i], 0, sizeof *out); /* no stale view under a NULL */
            SQE_TRY(set_null(c, i));
            continue;
        }
        if (check_utf8 && !csv_is_ascii(s, len)) {
            size_t ok = csv_utf8_prefix(s, len);
            if (ok != len) {
                csv_reader *r = c->r;
                if (r->ignore_errors) {
                    r->reject[i] = 1;
                    memset(&out[c->base + i], 0, sizeof *out);
                    SQE_TRY(set_null(c, i));
                    continue;
                }
                return csv_scan_error(&r->sc, c->err, SQE_ERR_INVALID_FILE,
                                      r->sc.base + c->fields[i].off + ok,
                                      "invalid UTF-8 in column %u \"%s\" (CSV files must be "
                                      "UTF-8 text)",
                                      c->col + 1, r->names[c->col]);
            }
        }
        out[c->base + i] = field_view(s, len);
    }
    return SQE_OK;
}

static int convert_column(conv *c) {
    switch ((type_id)c->v->type.id) {
    case TYPE_BOOLEAN: return conv_bool(c);
    case TYPE_TINYINT: case TYPE_SMALLINT: case TYPE_INTEGER: case TYPE_BIGINT: return conv_int(c);
    case TYPE_REAL: case TYPE_DOUBLE: return conv_float(c);
    case TYPE_DECIMAL: return conv_decimal(c);
    case TYPE_DATE: return conv_date(c);
    case TYPE_TIME: case TYPE_TIMESTAMP: case TYPE_TIMESTAMP_TZ: return conv_time_like(c);
    case TYPE_UUID: return conv_uuid(c);
    case TYPE_VARCHAR: case TYPE_CHAR: case TYPE_JSON: case TYPE_VARBINARY: return conv_string(c);
    default:
        return err_set(c->err, SQE_ERR_NOT_SUPPORTED, "read_csv cannot read this column type");
    }
}

/* Removes the rows marked in r->reject from rows [base, base + n) of every output column;
 * returns the number kept. */
static uint32_t drop_rejected(csv_reader *r, vec_chunk *out, uint32_t base, uint32_t n) {
    uint32_t kept = 0;
    for (uint32_t k = 0; k < out->n_cols; k++) {
        vec *v = &out->cols[k];
        size_t width = type_physical_size(v->type);
        char *data = v->data;
        uint32_t w = base;
        for (uint32_t i = 0; i < n; i++) {
            if (r->reject[i]) continue;
            uint32_t row = base + i;
            if (w != row) {
                memcpy(data + (size_t)w * width, data + (size_t)row * width, width);
                if (v->validity) {
                    uint64_t bit = (v->validity[row >> 6] >> (row & 63)) & 1;
                    v->validity[w >> 6] &= ~((uint64_t)1 << (w & 63));
                    v->validity[w >> 6] |= bit << (w & 63);
                }
            }
            w++;
        }
        /* rows past the kept ones are rewritten by the next round: mark them valid again */
        if (v->validity)
            for (uint32_t row = w; row < base + n; row++) vec_set_valid(v, row);
        kept = w - base;
    }
    if (out->n_cols == 0)
        for (uint32_t i = 0; i < n; i++) kept += !r->reject[i];
    return kept;
}

/* Converts the current round (r->batch) into rows [base, ...) of out; returns the rows kept. */
static int convert_round(csv_reader *r, vec_chunk *out, uint32_t base, uint32_t *kept,
                         sqe_error *err) {
    uint32_t n = r->batch.n_rows;
    if (r->ignore_errors) memset(r->reject, 0, n);
    for (uint32_t k = 0; k < r->n_proj; k++) {
        uint32_t col = r->proj[k];
        conv c = {r, col, r->batch.fields + (size_t)col * r->batch.stride, &out->cols[k], base, n,
                  err};
        SQE_TRY(convert_column(&c));
    }
    *kept = n;
    if (r->ignore_errors && memchr(r->reject, 1, n)) *kept = drop_rejected(r, out, base, n);
    return SQE_OK;
}

int csv_reader_next(csv_reader *r, vec_chunk *out, sqe_error *err) {
    if (out->n_cols != r->n_proj)
        return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR,
                       "CSV reader: chunk has %u columns, expected %u", out->n_cols, r->n_proj);
    for (uint32_t k = 0; k < r->n_proj; k++) {
        const vec *v = &out->cols[k];
        if (!type_equal(v->type, r->types[r->proj[k]]) || v->capacity < out->capacity)
            return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR,
                           "CSV reader: chunk column %u does not match the schema", k);
    }
    vec_chunk_reset(out);
    uint32_t rows = 0;
    while (!r->done && rows < out->capacity) {
        uint32_t want = out->capacity - rows;
        if (want > r->batch.stride) want = r->batch.stride;
        csv_scan_state st;
        r->batch.n_rows = 0;
        SQE_TRY(csv_scan_rows(&r->sc, &r->batch, want, &st, err));
        if (r->batch.n_rows) {
            uint32_t kept;
            SQE_TRY(convert_round(r, out, rows, &kept, err));
            rows += kept;
        }
        if (st == CSV_SCAN_DONE) {
            r->done = true;
        } else if (st == CSV_SCAN_MORE) {
            /* refilling moves the buffer: only when this chunk holds no views into it */
            if (rows > 0) break;
            SQE_TRY(csv_scanner_fill(&r->sc, err));
        }
    }
    out->count = rows;
    return SQE_OK;
}
