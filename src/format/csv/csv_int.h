/*
 * csv_int.h: internals shared by the CSV sniffer and reader (not for other layers).
 *
 * The scanner owns one open file and one read buffer. It tokenizes rows from the buffer into
 * csv_field slices (buffer offset + length + flags) without copying: quoted fields with doubled
 * quotes or escapes are only marked (CSV_F_ESCAPED) and unescaped in place later, when the row is
 * known to be complete, so a row that has to be rescanned after a refill is never corrupted.
 *
 * Buffer life cycle: csv_scan_rows tokenizes complete rows from sc->pos and stops when the next
 * row is incomplete (CSV_SCAN_MORE); csv_scanner_fill then moves the unread tail to the front and
 * reads more, which invalidates every field handed out before. Callers therefore fill only when
 * they hold no fields (between chunks).
 */
#ifndef SQE_FORMAT_CSV_CSV_INT_H
#define SQE_FORMAT_CSV_CSV_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/err.h"
#include "common/mem.h"
#include "format/csv/csv.h"

#define CSV_BLOCK_SIZE ((size_t)4 << 20)   /* read size */
#define CSV_PAD 64                         /* zeroed bytes after the data (SIMD over-read) */
#define CSV_MAX_LINE_LIMIT ((uint64_t)256 << 20)
#define CSV_MAX_COLUMNS 16384

/* A field: buffer offset and length; flags in the high bits of len. */
typedef struct csv_field {
    uint32_t off;
    uint32_t len;
} csv_field;

#define CSV_F_QUOTED 0x80000000u  /* the field was quoted (a quoted empty string is not NULL) */
#define CSV_F_ESCAPED 0x40000000u /* holds doubled quotes or escapes still to be removed */
#define CSV_F_MISSING 0x20000000u /* absent from a short row (null_padding): NULL */
#define CSV_F_LEN 0x1fffffffu

/* Dialect and limits the scanner tokenizes with. */
typedef struct csv_dialect {
    char delim;
    char quote;        /* 0 = none */
    char escape;       /* == quote for doubling */
    char comment;      /* 0 = none */
    bool skip_empty;   /* skip empty lines (files with more than one column) */
    bool null_padding;
    bool ignore_errors;
    uint64_t max_line;
} csv_dialect;

typedef struct csv_scanner {
    int fd;
    char *path;            /* owned copy for messages */
    mem_tracker *tracker;
    csv_dialect d;
    char *buf;             /* cap + CSV_PAD bytes */
    size_t cap;
    size_t len;            /* valid bytes: file bytes [base, base + len) */
    size_t pos;            /* next unread byte (a row start) */
    uint64_t base;         /* file offset of buf[0] */
    uint64_t size;         /* file size at open */
    uint64_t end;          /* rows starting at or after this file offset are not returned */
    bool eof;              /* nothing follows buf[len) */
} csv_scanner;

/* Output of csv_scan_rows: column-major fields (fields[col * stride + row]) and row starts. */
typedef struct csv_batch {
    csv_field *fields;
    uint32_t stride;       /* rows per column in fields */
    uint32_t n_cols;       /* fields expected per row; 0 = any (store up to max_store) */
    uint32_t max_store;    /* n_cols == 0: fields stored per row */
    uint32_t *row_pos;     /* buffer offset of each row's first byte */
    uint32_t n_rows;
    uint32_t last_n_fields;/* n_cols == 0: fields of the last row (may exceed max_store) */
} csv_batch;

typedef enum csv_scan_state {
    CSV_SCAN_FULL = 0,     /* max_rows rows were produced */
    CSV_SCAN_MORE,         /* the next row is incomplete: fill and call again */
    CSV_SCAN_DONE          /* no more rows in the range */
} csv_scan_state;

/* The dialect the options describe (delimiter 0 stays 0 = detect; escape 0 becomes quote). */
csv_dialect csv_dialect_from_options(const csv_options *o);

/* Opens path for reading (regular files only): NOT_FOUND, IO_ERROR or INVALID_FILE on error,
 * in which case sc is safe to close. */
int csv_scanner_open(csv_scanner *sc, const char *path, const csv_dialect *d, mem_tracker *tracker,
                     sqe_error *err);
void csv_scanner_close(csv_scanner *sc);
/* Drops the buffer content and continues reading at file offset `offset`. */
int csv_scanner_seek(csv_scanner *sc, uint64_t offset, sqe_error *err);
/* Moves the unread bytes to the front and reads more (growing the buffer when one row fills
 * it, up to max_line). Sets sc->eof when the file is exhausted. INVALID_FILE when a row is
 * longer than max_line. */
int csv_scanner_fill(csv_scanner *sc, sqe_error *err);
/* Makes sure at least `want` unread bytes are buffered (or the file is exhausted). */
int csv_scanner_ensure(csv_scanner *sc, size_t want, sqe_error *err);
/* Skips the rest of the current physical line (to just after its line break). */
int csv_scanner_skip_line(csv_scanner *sc, sqe_error *err);
/* Tokenizes up to max_rows rows into b (appending at b->n_rows). Returns SQE_OK and the state,
 * or an INVALID_FILE error naming file:line:column. */
int csv_scan_rows(csv_scanner *sc, csv_batch *b, uint32_t max_rows, csv_scan_state *state,
                  sqe_error *err);
/* Removes doubled quotes / escapes of an escaped field in place; returns its new length. */
uint32_t csv_field_unescape(const csv_scanner *sc, csv_field *f);

/* 1-based physical line and byte column of file offset `offset` (counted from the start of
 * the file; 0 when the file cannot be read back). */
void csv_scanner_locate(const csv_scanner *sc, uint64_t offset, uint64_t *line, uint64_t *col);
/* Sets err to "<path>:<line>:<col>: <message>" for file offset `offset`; returns code. */
int csv_scan_error(const csv_scanner *sc, sqe_error *err, int code, uint64_t offset,
                   const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Copies field text for a message: at most 100 bytes, cut at a UTF-8 boundary, control
 * bytes and invalid UTF-8 shown as '?'. out needs 128 bytes. */
void csv_quote_text(const char *s, size_t len, char *out);

/* --- values --------------------------------------------------------------------------- */

/* Candidate types of a value for inference (bit set). */
enum {
    CSV_CAND_BOOLEAN = 1u << 0,
    CSV_CAND_BIGINT = 1u << 1,
    CSV_CAND_DOUBLE = 1u << 2,
    CSV_CAND_DATE = 1u << 3,
    CSV_CAND_TIMESTAMP = 1u << 4,
    CSV_CAND_VARCHAR = 1u << 5,
    CSV_CAND_ALL = (1u << 6) - 1,
};
/* The candidates value text s can be read as (always includes VARCHAR). */
uint32_t csv_value_candidates(const char *s, size_t len);
/* The type the most specific remaining candidate stands for. */
sqe_type csv_candidates_type(uint32_t mask);

/* Parsers: return true on success. Surrounding spaces and tabs are ignored (not for text).
 * The hot ones (integers, doubles, dates, the ASCII test) are inline below; their general
 * forms live in csv_value.c. */
bool csv_parse_bool(const char *s, size_t len, uint8_t *out);
/* 0, -1 malformed, -2 out of range for decimal(precision, scale). */
int csv_parse_decimal(const char *s, size_t len, int precision, int scale, int128 *out);
bool csv_parse_uuid(const char *s, size_t len, uint8_t out[16]);
/* Any double syntax (exponents, many digits, NaN, Infinity): the path behind csv_parse_double. */
bool csv_parse_double_slow(const char *s, size_t len, double *out);
/* Any date syntax dt_parse_date accepts: the path behind csv_parse_date. */
bool csv_parse_date_slow(const char *s, size_t len, int32_t *out);

static inline bool csv_is_blank(char c) { return c == ' ' || c == '\t'; }
static inline bool csv_is_digit(char c) { return (unsigned char)(c - '0') < 10; }

static inline void csv_trim(const char **s, size_t *len) {
    const char *p = *s;
    size_t n = *len;
    while (n && csv_is_blank(*p)) p++, n--;
    while (n && csv_is_blank(p[n - 1])) n--;
    *s = p;
    *len = n;
}

static inline bool csv_parse_int64(const char *s, size_t len, int64_t *out) {
    if (len == 0 || csv_is_blank(s[0]) || csv_is_blank(s[len - 1])) csv_trim(&s, &len);
    if (len == 0) return false;
    bool neg = false;
    size_t i = 0;
    if (s[0] == '-' || s[0] == '+') {
        neg = s[0] == '-';
        if (++i == len) return false;
    }
    uint64_t v = 0;
    if (len - i <= 18) { /* cannot overflow */
        for (; i < len; i++) {
            unsigned d = (unsigned char)s[i] - '0';
            if (d > 9) return false;
            v = v * 10 + d;
        }
        *out = neg ? -(int64_t)v : (int64_t)v;
        return true;
    }
    for (; i < len; i++) {
        unsigned d = (unsigned char)s[i] - '0';
        if (d > 9 || v > (UINT64_MAX - d) / 10) return false;
        v = v * 10 + d;
    }
    if (neg) {
        if (v > (uint64_t)INT64_MAX + 1) return false;
        *out = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
    } else {
        if (v > (uint64_t)INT64_MAX) return false;
        *out = (int64_t)v;
    }
    return true;
}

/* Plain [+-]digits[.digits] with at most 15 significant digits: exact as a double, and one
 * correctly rounded division by an exact power of ten gives the nearest double. */
static inline bool csv_parse_double(const char *s, size_t len, double *out) {
    static const double p10[16] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
    size_t i = 0;
    bool neg = false;
    if (len && (s[0] == '-' || s[0] == '+')) neg = s[i++] == '-';
    uint64_t mant = 0;
    size_t start = i;
    for (; i < len && csv_is_digit(s[i]); i++) mant = mant * 10 + (uint64_t)(s[i] - '0');
    size_t digits = i - start, frac = 0;
    if (i < len && s[i] == '.') {
        size_t fstart = ++i;
        for (; i < len && csv_is_digit(s[i]); i++) mant = mant * 10 + (uint64_t)(s[i] - '0');
        frac = i - fstart;
        digits += frac;
    }
    if (i != len || digits == 0 || digits > 15) return csv_parse_double_slow(s, len, out);
    double v = (double)mant / p10[frac];
    *out = neg ? -v : v;
    return true;
}

/* Days since 1970-01-01 of a valid proleptic Gregorian date (H. Hinnant's days_from_civil,
 * the algorithm of dt_days_from_civil), for years 0..9999. */
static inline int32_t csv_days_from_civil(int32_t y, int32_t m, int32_t d) {
    y -= m <= 2;
    int32_t era = (y >= 0 ? y : y - 399) / 400, yoe = y - era * 400;
    int32_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int32_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static inline bool csv_parse_date(const char *s, size_t len, int32_t *out) {
    if (len == 10 && s[4] == '-' && s[7] == '-') {
        unsigned y0 = (unsigned char)(s[0] - '0'), y1 = (unsigned char)(s[1] - '0'),
                 y2 = (unsigned char)(s[2] - '0'), y3 = (unsigned char)(s[3] - '0'),
                 m0 = (unsigned char)(s[5] - '0'), m1 = (unsigned char)(s[6] - '0'),
                 d0 = (unsigned char)(s[8] - '0'), d1 = (unsigned char)(s[9] - '0');
        if (y0 < 10 && y1 < 10 && y2 < 10 && y3 < 10 && m0 < 10 && m1 < 10 && d0 < 10 && d1 < 10) {
            static const uint8_t mdays[13] = {0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
            int32_t y = (int32_t)(y0 * 1000 + y1 * 100 + y2 * 10 + y3);
            int32_t m = (int32_t)(m0 * 10 + m1), d = (int32_t)(d0 * 10 + d1);
            if (m < 1 || m > 12 || d < 1 || d > mdays[m]) return false;
            if (m == 2 && d == 29 && !(y % 4 == 0 && (y % 100 != 0 || y % 400 == 0))) return false;
            *out = csv_days_from_civil(y, m, d);
            return true;
        }
    }
    return csv_parse_date_slow(s, len, out);
}

/* True when s[0..len) is ASCII. Reads up to 7 bytes past the end: only for fields inside the
 * scanner buffer (CSV_PAD). */
static inline bool csv_is_ascii(const char *s, size_t len) {
    uint64_t acc = 0;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        acc |= w;
    }
    if (i < len) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        acc |= w & (~(uint64_t)0 >> (8 * (8 - (len - i))));
    }
    return (acc & 0x8080808080808080ULL) == 0;
}
/* True when s is valid UTF-8. */
bool csv_utf8_valid(const char *s, size_t len);
/* Offset of the first invalid UTF-8 sequence in s, or len when valid. */
size_t csv_utf8_prefix(const char *s, size_t len);

#endif
