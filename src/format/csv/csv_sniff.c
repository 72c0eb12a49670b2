/*
 * csv_sniff.c: schema inference for read_csv: delimiter, header, column names and types, and
 * where the data begins.
 *
 * INTERFACE: csv_schema_init, csv_schema_reset, csv_sniff, csv_dialect_from_options.
 * NOTES:
 *   - The sample is the first o->sample_size rows after the first row, tokenized with the
 *     reader's own scanner (so the sniffer reports the same structural errors as the reader).
 *     Values are summarized per column as a set of candidate types (csv_value_candidates) that
 *     shrinks with every value; the column gets the most specific survivor of
 *     boolean < bigint < double < date < timestamp < varchar. A date and a timestamp widen to
 *     timestamp, an integer and a double to double, anything else mixed to varchar; columns
 *     with no non-NULL value in the sample are varchar.
 *   - Header (when AUTO): the first row is a header when all its non-NULL values are text (not
 *     numbers, dates or timestamps) and some typed column has a first value that is not of
 *     its type. When every column is text, the first row is taken as a header (as DuckDB does)
 *     unless one of its values reappears in its column in the sample, which marks it as data.
 *   - Delimiter (when not given): each of , | ; TAB tokenizes the first 20 rows; the one whose
 *     rows most often have the first row's field count (> 1) wins, ',' when none splits.
 *   - Files whose first block holds NUL bytes or invalid UTF-8 are rejected as not text.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "format/csv/csv_int.h"

#define SNIFF_DELIM_ROWS 20
#define FIELD_BUDGET (1u << 18) /* fields tokenized per round: bounds memory for wide files */

void csv_schema_init(csv_schema *s) { memset(s, 0, sizeof *s); }

void csv_schema_reset(csv_schema *s) {
    if (s->names)
        for (uint32_t i = 0; i < s->n_cols; i++) free(s->names[i]);
    free(s->names);
    free(s->types);
    csv_schema_init(s);
}

/* The dialect the options describe (delimiter 0 stays 0 = detect). */
csv_dialect csv_dialect_from_options(const csv_options *o) {
    csv_dialect d;
    memset(&d, 0, sizeof d);
    d.delim = o->delimiter;
    d.quote = o->quote;
    d.escape = o->escape ? o->escape : o->quote;
    if (!d.quote) d.escape = 0;
    d.comment = o->comment;
    d.skip_empty = true;
    d.null_padding = o->null_padding;
    d.ignore_errors = o->ignore_errors;
    d.max_line = o->max_line_size ? o->max_line_size : CSV_DEFAULT_MAX_LINE_SIZE;
    if (d.max_line > CSV_MAX_LINE_LIMIT) d.max_line = CSV_MAX_LINE_LIMIT;
    return d;
}

/* Rejects data that is not UTF-8 text in the buffered bytes [from, len). */
static int check_text(const csv_scanner *sc, size_t from, sqe_error *err) {
    const char *p = sc->buf + from;
    size_t n = sc->len - from;
    const char *nul = memchr(p, 0, n);
    if (nul)
        return err_set(err, SQE_ERR_INVALID_FILE,
                       "%s is not a CSV text file (NUL byte at offset %llu)", sc->path,
                       (unsigned long long)(sc->base + (uint64_t)(nul - sc->buf)));
    size_t ok = csv_utf8_prefix(p, n);
    /* a sequence cut by the end of the block is not an error */
    if (ok < n && (sc->eof || n - ok >= 4))
        return csv_scan_error(sc, err, SQE_ERR_INVALID_FILE, sc->base + from + ok,
                              "invalid UTF-8 (CSV files must be UTF-8 text)");
    return SQE_OK;
}

/* Tokenizes one row in variable-width mode into b, refilling as needed. *got is false when
 * there are no more rows. */
static int scan_one(csv_scanner *sc, csv_batch *b, bool *got, sqe_error *err) {
    for (;;) {
        csv_scan_state st;
        b->n_rows = 0;
        SQE_TRY(csv_scan_rows(sc, b, 1, &st, err));
        if (b->n_rows == 1) {
            *got = true;
            return SQE_OK;
        }
        if (st == CSV_SCAN_DONE) {
            *got = false;
            return SQE_OK;
        }
        SQE_TRY(csv_scanner_fill(sc, err));
    }
}

/* Picks the delimiter from the buffered rows at sc->pos (does not move sc->pos). */
static char detect_delimiter(csv_scanner *sc, csv_batch *b) {
    static const char candidates[] = {',', '|', ';', '\t'};
    char best = ',';
    uint32_t best_score = 0;
    const size_t start = sc->pos;
    for (size_t k = 0; k < sizeof candidates; k++) {
        if (candidates[k] == sc->d.quote) continue;
        sc->d.delim = candidates[k];
        sc->pos = start;
        uint32_t first = 0, score = 0;
        for (int row = 0; row < SNIFF_DELIM_ROWS; row++) {
            csv_scan_state st;
            b->n_rows = 0;
            sqe_error ignored;
            if (csv_scan_rows(sc, b, 1, &st, &ignored) != SQE_OK || b->n_rows == 0) break;
            if (row == 0) first = b->last_n_fields;
            if (b->last_n_fields == first) score++;
        }
        if (first > 1 && score > best_score) {
            best = candidates[k];
            best_score = score;
        }
    }
    sc->pos = start;
    return best;
}

/* NULL for inference: missing, empty (quoted or not: empty reads as NULL in typed columns),
 * or the null string unquoted. */
static bool is_null_value(const csv_options *o, const char *s, uint32_t len, uint32_t flags) {
    if ((flags & CSV_F_MISSING) || len == 0) return true;
    if ((flags & CSV_F_QUOTED) || !o->null_string) return false;
    return strlen(o->null_string) == len && memcmp(o->null_string, s, len) == 0;
}

/* Per-column summary of the sample. */
typedef struct sniff_col {
    char *first;          /* first row's text (unescaped), owned */
    uint32_t first_len;
    bool first_null;
    uint32_t first_mask;  /* candidates of the first value */
    uint32_t mask;        /* candidates of the other rows */
    bool seen;            /* a non-NULL value among the other rows */
    bool first_repeats;   /* the first value occurs again in the sample */
} sniff_col;

static void sniff_cols_free(sniff_col *cols, uint32_t n) {
    if (!cols) return;
    for (uint32_t i = 0; i < n; i++) free(cols[i].first);
    free(cols);
}

static bool quoted_newline(const char *s, uint32_t len, uint32_t flags) {
    return (flags & CSV_F_QUOTED) && (memchr(s, '\n', len) || memchr(s, '\r', len));
}

/* Reads the sample rows after the first one into cols. */
static int sniff_sample(csv_scanner *sc, const csv_options *o, sniff_col *cols, uint32_t n_cols,
                        csv_schema *out, sqe_error *err) {
    uint64_t limit = o->sample_size < 0 ? UINT64_MAX : (uint64_t)o->sample_size;
    uint32_t per_round = FIELD_BUDGET / n_cols;
    if (per_round < 1) per_round = 1;
    if (per_round > 2048) per_round = 2048;
    csv_batch b;
    memset(&b, 0, sizeof b);
    b.fields = malloc(sizeof(csv_field) * (size_t)per_round * n_cols);
    b.row_pos = malloc(sizeof(uint32_t) * per_round);
    int rc = SQE_OK;
    if (!b.fields || !b.row_pos) {
        rc = err_nomem(err, "CSV sniffer");
        goto out_free;
    }
    b.stride = per_round;
    b.n_cols = n_cols;
    uint64_t sampled = 0;
    while (sampled < limit) {
        uint32_t want = limit - sampled < per_round ? (uint32_t)(limit - sampled) : per_round;
        csv_scan_state st;
        b.n_rows = 0;
        rc = csv_scan_rows(sc, &b, want, &st, err);
        if (rc) goto out_free;
        for (uint32_t c = 0; c < n_cols; c++) {
            sniff_col *col = &cols[c];
            for (uint32_t r = 0; r < b.n_rows; r++) {
                csv_field *f = &b.fields[(size_t)c * b.stride + r];
                uint32_t len = csv_field_unescape(sc, f);
                const char *s = sc->buf + f->off;
                if (is_null_value(o, s, len, f->len)) continue;
                col->seen = true;
                if (col->mask != CSV_CAND_VARCHAR) col->mask &= csv_value_candidates(s, len);
                if (!col->first_null && !col->first_repeats && len == col->first_len &&
                    memcmp(s, col->first, len) == 0)
                    col->first_repeats = true;
                if (!out->quoted_newlines && quoted_newline(s, len, f->len))
                    out->quoted_newlines = true;
            }
        }
        sampled += b.n_rows;
        if (st == CSV_SCAN_DONE) break;
        if (st == CSV_SCAN_MORE) {
            rc = csv_scanner_fill(sc, err);
            if (rc) goto out_free;
        }
    }
out_free:
    free(b.fields);
    free(b.row_pos);
    return rc;
}

/* Decides whether the first row is a header (o->header == AUTO). */
static bool detect_header(const csv_options *o, const sniff_col *cols, uint32_t n_cols,
                          bool have_rows) {
    const uint32_t typed_bits =
        CSV_CAND_BIGINT | CSV_CAND_DOUBLE | CSV_CAND_DATE | CSV_CAND_TIMESTAMP;
    bool any_value = false;
    for (uint32_t c = 0; c < n_cols; c++) {
        if (cols[c].first_null) continue;
        any_value = true;
        if (cols[c].first_mask & typed_bits) return false; /* a number or date: data */
    }
    if (!any_value) return false;
    if (!have_rows) return true;
    bool all_text = true;
    for (uint32_t c = 0; c < n_cols; c++) {
        bool typed, fits;
        if (o->columns) {
            sqe_type t = o->columns[c].type;
            typed = !type_is_string_view(t);
            fits = cols[c].first_mask != CSV_CAND_VARCHAR;
        } else {
            typed = cols[c].seen && cols[c].mask != CSV_CAND_VARCHAR;
            fits = (cols[c].first_mask & cols[c].mask & ~(uint32_t)CSV_CAND_VARCHAR) != 0;
        }
        if (!typed) continue;
        all_text = false;
        if (!cols[c].first_null && !fits) return true;
    }
    if (!all_text) return false;
    for (uint32_t c = 0; c < n_cols; c++)
        if (cols[c].first_repeats) return false;
    return true;
}

/* Column names: header values (empty ones become column<i>), made unique case-insensitively by
 * appending _1, _2, ... */
static int make_names(csv_schema *out, const sniff_col *cols, bool header, sqe_error *err) {
    for (uint32_t c = 0; c < out->n_cols; c++) {
        char *name;
        if (header && !cols[c].first_null && cols[c].first_len > 0)
            name = strndup(cols[c].first, cols[c].first_len);
        else {
            name = malloc(24);
            if (name) snprintf(name, 24, "column%u", c);
        }
        if (!name) return err_nomem(err, "CSV column names");
        for (uint32_t k = 1;; k++) {
            bool dup = false;
            for (uint32_t i = 0; i < c && !dup; i++) dup = strcasecmp(out->names[i], name) == 0;
            if (!dup) break;
            size_t base_len = strlen(name);
            char *renamed = malloc(base_len + 16);
            if (!renamed) {
                free(name);
                return err_nomem(err, "CSV column names");
            }
            /* strip a suffix added in the previous attempt */
            if (k > 1) base_len = (size_t)(strrchr(name, '_') - name);
            snprintf(renamed, base_len + 16, "%.*s_%u", (int)base_len, name, k);
            free(name);
            name = renamed;
        }
        out->names[c] = name;
    }
    return SQE_OK;
}

int csv_sniff(const char *path, const csv_options *o, csv_schema *out, sqe_error *err) {
    csv_schema_init(out);
    csv_dialect d = csv_dialect_from_options(o);
    csv_scanner sc;
    sniff_col *cols = NULL;
    csv_batch first;
    memset(&first, 0, sizeof first);
    uint32_t n_cols = 0;
    int rc = csv_scanner_open(&sc, path, &d, NULL, err);
    if (rc) goto out_close;
    out->file_size = sc.size;
    rc = csv_scanner_fill(&sc, err);
    if (rc) goto out_close;
    rc = check_text(&sc, 0, err);
    if (rc) goto out_close;
    if (sc.len >= 3 && memcmp(sc.buf, "\xEF\xBB\xBF", 3) == 0) sc.pos = 3;
    for (uint64_t k = 0; k < o->skip && !(sc.eof && sc.pos >= sc.len); k++) {
        rc = csv_scanner_skip_line(&sc, err);
        if (rc) goto out_close;
    }

    /* the first row: delimiter, column count, header candidate */
    first.fields = malloc(sizeof(csv_field) * CSV_MAX_COLUMNS);
    first.row_pos = malloc(sizeof(uint32_t));
    if (!first.fields || !first.row_pos) {
        rc = err_nomem(err, "CSV sniffer");
        goto out_close;
    }
    first.stride = 1;
    first.max_store = CSV_MAX_COLUMNS;
    if (!d.delim) {
        rc = csv_scanner_ensure(&sc, 1 << 16, err);
        if (rc) goto out_close;
        d.delim = detect_delimiter(&sc, &first);
        sc.d.delim = d.delim;
    }
    out->delimiter = d.delim;
    bool got;
    rc = scan_one(&sc, &first, &got, err);
    if (rc) goto out_close;
    if (!got) {
        rc = err_set(err, SQE_ERR_INVALID_FILE, "CSV file is empty: %s", path);
        goto out_close;
    }
    uint64_t first_offset = sc.base + first.row_pos[0];
    n_cols = first.last_n_fields;
    if (n_cols > CSV_MAX_COLUMNS) {
        rc = csv_scan_error(&sc, err, SQE_ERR_INVALID_FILE, first_offset,
                            "too many columns (%u; at most %u are supported)", n_cols,
                            CSV_MAX_COLUMNS);
        goto out_close;
    }
    if (o->columns && o->n_columns != n_cols) {
        rc = csv_scan_error(&sc, err, SQE_ERR_INVALID_FILE, first_offset,
                            "the file has %u columns but read_csv option 'columns' declares %u",
                            n_cols, o->n_columns);
        goto out_close;
    }
    cols = calloc(n_cols, sizeof *cols);
    if (!cols) {
        rc = err_nomem(err, "CSV sniffer");
        goto out_close;
    }
    for (uint32_t c = 0; c < n_cols; c++) {
        csv_field *f = &first.fields[c];
        uint32_t len = csv_field_unescape(&sc, f);
        const char *s = sc.buf + f->off;
        cols[c].first = malloc(len + 1);
        if (!cols[c].first) {
            rc = err_nomem(err, "CSV sniffer");
            goto out_close;
        }
        memcpy(cols[c].first, s, len);
        cols[c].first[len] = 0;
        cols[c].first_len = len;
        cols[c].first_null = is_null_value(o, s, len, f->len);
        cols[c].first_mask = cols[c].first_null ? CSV_CAND_ALL : csv_value_candidates(s, len);
        cols[c].mask = CSV_CAND_ALL;
        if (quoted_newline(s, len, f->len)) out->quoted_newlines = true;
    }
    uint64_t after_first = sc.base + sc.pos;

    /* the sample */
    sc.d.skip_empty = n_cols > 1;
    rc = sniff_sample(&sc, o, cols, n_cols, out, err);
    if (rc) goto out_close;
    bool have_rows = false;
    for (uint32_t c = 0; c < n_cols; c++) have_rows |= cols[c].seen;
    have_rows |= sc.base + sc.pos > after_first; /* rows of NULLs count too */

    bool header = o->header == CSV_HEADER_TRUE ||
                  (o->header == CSV_HEADER_AUTO && detect_header(o, cols, n_cols, have_rows));
    out->has_header = header;
    out->data_offset = header ? after_first : first_offset;

    out->n_cols = n_cols;
    out->names = calloc(n_cols, sizeof *out->names);
    out->types = calloc(n_cols, sizeof *out->types);
    if (!out->names || !out->types) {
        rc = err_nomem(err, "CSV schema");
        goto out_close;
    }
    if (o->columns) {
        for (uint32_t c = 0; c < n_cols; c++) {
            out->names[c] = strdup(o->columns[c].name);
            if (!out->names[c]) {
                rc = err_nomem(err, "CSV schema");
                goto out_close;
            }
            out->types[c] = o->columns[c].type;
        }
    } else {
        rc = make_names(out, cols, header, err);
        if (rc) goto out_close;
        for (uint32_t c = 0; c < n_cols; c++) {
            uint32_t mask = cols[c].mask;
            bool seen = cols[c].seen;
            if (!header && !cols[c].first_null) {
                mask &= cols[c].first_mask;
                seen = true;
            }
            out->types[c] = (o->all_varchar || !seen) ? type_varchar(0) : csv_candidates_type(mask);
        }
    }

out_close:
    sniff_cols_free(cols, n_cols);
    free(first.fields);
    free(first.row_pos);
    csv_scanner_close(&sc);
    if (rc) csv_schema_reset(out);
    return rc;
}
