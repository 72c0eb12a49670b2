/*
 * csv_scan.c: the CSV tokenizer: one file, one read buffer, and a state machine that splits the
 * buffer into rows and fields without copying.
 *
 * INTERFACE: csv_scanner_open, csv_scanner_close, csv_scanner_seek, csv_scanner_fill,
 *   csv_scanner_ensure, csv_scanner_skip_line, csv_scan_rows, csv_field_unescape,
 *   csv_scanner_locate, csv_scan_error, csv_quote_text.
 * NOTES:
 *   - Reads are plain POSIX read() of up to 4 MiB into one buffer; the buffer grows only when a
 *     single row does not fit, and never beyond max_line plus one block, so hostile input cannot
 *     make it grow without bound.
 *   - Unquoted fields end at the delimiter, \n or \r. The search keeps a 64-bit mask of those
 *     bytes for a 64-byte window (SSE2, the x86-64 baseline) and consumes it field by field; the
 *     CSV_PAD zero bytes after the data make the over-read safe. A quote character only opens a
 *     quoted field at the start of a field; elsewhere it is data.
 *   - A row is returned only when it is complete, which for the last row of the buffer means a
 *     line break was seen (or the file ended). An incomplete row is rescanned from its start
 *     after csv_scanner_fill, so the tokenizer keeps no state between rows and never writes
 *     into the buffer (escapes are removed later by csv_field_unescape).
 *   - Line numbers are not tracked while reading: an error counts the line breaks before its
 *     offset by reading the file again (csv_scanner_locate), which keeps the hot path lean and
 *     also gives exact line numbers to readers that start in the middle of the file.
 */
#include "format/csv/csv_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* --- file and buffer ---------------------------------------------------------------------- */

int csv_scanner_open(csv_scanner *sc, const char *path, const csv_dialect *d, mem_tracker *tracker,
                     sqe_error *err) {
    memset(sc, 0, sizeof *sc);
    sc->fd = -1;
    sc->d = *d;
    sc->tracker = tracker;
    sc->end = CSV_RANGE_END;
    sc->path = strdup(path);
    if (!sc->path) return err_nomem(err, "CSV reader");
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            return err_set(err, SQE_ERR_NOT_FOUND, "File not found: %s", path);
        return err_set(err, SQE_ERR_IO_ERROR, "Cannot open %s: %s", path, strerror(errno));
    }
    sc->fd = fd;
    struct stat st;
    if (fstat(fd, &st) != 0)
        return err_set(err, SQE_ERR_IO_ERROR, "Cannot stat %s: %s", path, strerror(errno));
    if (S_ISDIR(st.st_mode))
        return err_set(err, SQE_ERR_INVALID_FILE, "%s is a directory, not a CSV file", path);
    if (!S_ISREG(st.st_mode))
        return err_set(err, SQE_ERR_INVALID_FILE, "%s is not a regular file", path);
    sc->size = (uint64_t)st.st_size;
    /* Small files get a buffer of their size; the buffer grows if a row needs it. */
    size_t cap = CSV_BLOCK_SIZE;
    if (sc->size + 1 < cap) cap = (size_t)sc->size + 1;
    if (cap < 4096) cap = 4096;
    sc->buf = mem_alloc(tracker, cap + CSV_PAD, err);
    if (!sc->buf) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
    sc->cap = cap;
    memset(sc->buf, 0, CSV_PAD);
    return SQE_OK;
}

void csv_scanner_close(csv_scanner *sc) {
    if (sc->fd >= 0) close(sc->fd);
    mem_free(sc->tracker, sc->buf);
    free(sc->path);
    sc->fd = -1;
    sc->buf = NULL;
    sc->path = NULL;
}

int csv_scanner_seek(csv_scanner *sc, uint64_t offset, sqe_error *err) {
    if (offset > (uint64_t)INT64_MAX) offset = (uint64_t)INT64_MAX;
    if (lseek(sc->fd, (off_t)offset, SEEK_SET) < 0)
        return err_set(err, SQE_ERR_IO_ERROR, "Cannot seek in %s: %s", sc->path, strerror(errno));
    sc->base = offset;
    sc->len = sc->pos = 0;
    sc->eof = offset >= sc->size;
    memset(sc->buf, 0, CSV_PAD);
    return SQE_OK;
}

/* Grows the buffer for a row that does not fit (keeps the bytes). */
static int scanner_grow(csv_scanner *sc, sqe_error *err) {
    size_t limit = (size_t)sc->d.max_line + CSV_BLOCK_SIZE;
    if (sc->cap >= limit || sc->cap - sc->pos > sc->d.max_line) {
        return csv_scan_error(sc, err, SQE_ERR_INVALID_FILE, sc->base + sc->pos,
                              "row is longer than max_line_size (%llu bytes)",
                              (unsigned long long)sc->d.max_line);
    }
    size_t cap = sc->cap * 2;
    if (cap > limit) cap = limit;
    char *nb = mem_realloc(sc->tracker, sc->buf, cap + CSV_PAD, err);
    if (!nb) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
    sc->buf = nb;
    sc->cap = cap;
    return SQE_OK;
}

int csv_scanner_fill(csv_scanner *sc, sqe_error *err) {
    if (sc->eof) return SQE_OK;
    if (sc->pos > 0) {
        size_t keep = sc->len - sc->pos;
        memmove(sc->buf, sc->buf + sc->pos, keep);
        sc->base += sc->pos;
        sc->len = keep;
        sc->pos = 0;
    }
    if (sc->len == sc->cap) SQE_TRY(scanner_grow(sc, err));
    /* Read what the range still needs plus at least as much again as the partial row, so a
     * long last row costs a geometric number of rescans, not one per block. */
    size_t want = sc->cap - sc->len;
    if (sc->end != CSV_RANGE_END) {
        uint64_t have_end = sc->base + sc->len;
        uint64_t to_end = sc->end > have_end ? sc->end - have_end : 0;
        uint64_t extra = sc->len > 65536 ? sc->len : 65536;
        if (to_end + extra < want) want = (size_t)(to_end + extra);
    }
    size_t got = 0;
    while (got < want) {
        ssize_t r = read(sc->fd, sc->buf + sc->len + got, want - got);
        if (r < 0) {
            if (errno == EINTR) continue;
            return err_set(err, SQE_ERR_IO_ERROR, "Cannot read %s: %s", sc->path, strerror(errno));
        }
        if (r == 0) {
            sc->eof = true;
            break;
        }
        got += (size_t)r;
    }
    sc->len += got;
    if (sc->base + sc->len >= sc->size) sc->eof = true; /* the size is fixed at open */
    memset(sc->buf + sc->len, 0, CSV_PAD);
    return SQE_OK;
}

int csv_scanner_ensure(csv_scanner *sc, size_t want, sqe_error *err) {
    while (!sc->eof && sc->len - sc->pos < want && !(sc->pos == 0 && sc->len == sc->cap))
        SQE_TRY(csv_scanner_fill(sc, err));
    return SQE_OK;
}

int csv_scanner_skip_line(csv_scanner *sc, sqe_error *err) {
    for (;;) {
        const char *p = sc->buf + sc->pos, *lim = sc->buf + sc->len;
        while (p < lim && *p != '\n' && *p != '\r') p++;
        if (p < lim) {
            if (*p == '\r') {
                if (p + 1 == lim && !sc->eof) {
                    sc->pos = (size_t)(p - sc->buf);
                    SQE_TRY(csv_scanner_fill(sc, err));
                    continue;
                }
                if (p + 1 < lim && p[1] == '\n') p++;
            }
            sc->pos = (size_t)(p + 1 - sc->buf);
            return SQE_OK;
        }
        sc->pos = sc->len;
        if (sc->eof) return SQE_OK;
        SQE_TRY(csv_scanner_fill(sc, err));
    }
}

/* --- byte search ------------------------------------------------------------------------- */

/* Finds field ends: a bit mask of the delimiter, \n and \r positions of a 64-byte window,
 * computed once and consumed field by field, so short fields cost a few instructions each
 * instead of a fresh scan. The window may start anywhere; reading up to 63 bytes past the data
 * is safe (CSV_PAD). */
typedef struct end_cursor {
    const char *win;  /* window start */
    uint64_t bits;    /* specials in [win, win + 64) */
#ifdef __SSE2__
    __m128i vd, vn, vr;
#endif
    char delim;
} end_cursor;

static inline uint64_t window_bits(const end_cursor *c, const char *w) {
#ifdef __SSE2__
    uint64_t bits = 0;
    for (int k = 0; k < 4; k++) {
        __m128i x = _mm_loadu_si128((const __m128i *)(w + 16 * k));
        __m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, c->vd), _mm_cmpeq_epi8(x, c->vn)),
                                 _mm_cmpeq_epi8(x, c->vr));
        bits |= (uint64_t)(uint32_t)_mm_movemask_epi8(m) << (16 * k);
    }
    return bits;
#else
    uint64_t bits = 0;
    for (int k = 0; k < 64; k++)
        if (w[k] == c->delim || w[k] == '\n' || w[k] == '\r') bits |= (uint64_t)1 << k;
    return bits;
#endif
}

static inline void cursor_init(end_cursor *c, const char *start, char delim) {
    c->win = start;
    c->delim = delim;
#ifdef __SSE2__
    c->vd = _mm_set1_epi8(delim);
    c->vn = _mm_set1_epi8('\n');
    c->vr = _mm_set1_epi8('\r');
#endif
    c->bits = window_bits(c, start);
}

/* First delimiter, \n or \r in [p, lim), or lim. Positions only move forward between calls
 * except after a quoted field, which restarts the window. */
static inline const char *find_field_end(end_cursor *c, const char *p, const char *lim) {
    size_t rel = (size_t)(p - c->win);
    if (rel >= 64) {
        c->win = p;
        c->bits = window_bits(c, p);
        rel = 0;
    }
    uint64_t m = c->bits & (~(uint64_t)0 << rel);
    while (!m) {
        if (c->win + 64 >= lim) return lim;
        c->win += 64;
        m = c->bits = window_bits(c, c->win);
    }
    const char *q = c->win + __builtin_ctzll(m);
    return q < lim ? q : lim;
}

/* First a or b in [p, lim), or lim. */
static inline const char *find_either(const char *p, const char *lim, char a, char b) {
#ifdef __SSE2__
    const __m128i va = _mm_set1_epi8(a), vb = _mm_set1_epi8(b);
    while (p < lim) {
        __m128i x = _mm_loadu_si128((const __m128i *)p);
        unsigned mask = (unsigned)_mm_movemask_epi8(
            _mm_or_si128(_mm_cmpeq_epi8(x, va), _mm_cmpeq_epi8(x, vb)));
        if (mask) {
            const char *q = p + __builtin_ctz(mask);
            return q < lim ? q : lim;
        }
        p += 16;
    }
    return lim;
#else
    while (p < lim && *p != a && *p != b) p++;
    return p;
#endif
}

/* --- tokenizer ----------------------------------------------------------------------------- */

typedef enum row_status {
    ROW_OK = 0,
    ROW_MORE,          /* incomplete: needs more bytes */
    ROW_UNTERMINATED,  /* quote opened at *bad and never closed before EOF */
    ROW_JUNK           /* character after a closing quote at *bad */
} row_status;

/* Tokenizes the row starting at buf[start]. Stores up to max_store fields at fields[i * stride]
 * and counts all of them in *n_fields; on ROW_OK *row_end is the offset after the line break. */
static row_status scan_row(const csv_scanner *sc, end_cursor *cur, size_t start, csv_field *fields,
                           size_t stride, uint32_t max_store, uint32_t *n_fields, size_t *row_end,
                           size_t *bad) {
    const char *buf = sc->buf;
    const char *p = buf + start, *lim = buf + sc->len;
    const bool eof = sc->eof;
    const char delim = sc->d.delim, escape = sc->d.escape;
    /* an int that no byte equals when there is no quote character */
    const int quote = sc->d.quote ? (unsigned char)sc->d.quote : 256;
    csv_field *slot = fields;
    uint32_t n = 0;
    for (;;) {
        uint32_t off, len;
        /* *lim is a zero pad byte, never a quote or delimiter: no bounds check needed */
        if ((unsigned char)*p == quote) {
            const char *content = p + 1, *q = content;
            uint32_t flags = CSV_F_QUOTED;
            for (;;) {
                q = find_either(q, lim, (char)quote, escape);
                if (q >= lim) {
                    if (!eof) return ROW_MORE;
                    *bad = (size_t)(p - buf);
                    return ROW_UNTERMINATED;
                }
                if (*q == escape && escape != (char)quote) {
                    if (q + 1 >= lim) {
                        if (!eof) return ROW_MORE;
                        *bad = (size_t)(p - buf);
                        return ROW_UNTERMINATED;
                    }
                    flags |= CSV_F_ESCAPED;
                    q += 2;
                    continue;
                }
                /* *q == quote: closing, unless doubled */
                if (escape == (char)quote) {
                    if (q + 1 >= lim && !eof) return ROW_MORE;
                    if (q + 1 < lim && q[1] == (char)quote) {
                        flags |= CSV_F_ESCAPED;
                        q += 2;
                        continue;
                    }
                }
                break;
            }
            off = (uint32_t)(content - buf);
            len = (uint32_t)(q - content) | flags;
            p = q + 1;
            while (p < lim && (*p == ' ' || *p == '\t') && *p != delim) p++;
            if (p == lim && !eof) return ROW_MORE;
            if (p < lim && *p != delim && *p != '\n' && *p != '\r') {
                *bad = (size_t)(p - buf);
                return ROW_JUNK;
            }
        } else {
            const char *q = find_field_end(cur, p, lim);
            if (q == lim && !eof) return ROW_MORE;
            off = (uint32_t)(p - buf);
            len = (uint32_t)(q - p);
            p = q;
        }
        if (n < max_store) {
            slot->off = off;
            slot->len = len;
            slot += stride;
        }
        n++;
        if (*p == delim) { /* *lim is a zero pad byte: no bounds check needed */
            p++;
            continue;
        }
        break;
    }
    if (p < lim) {
        if (*p == '\r') {
            p++;
            if (p == lim) {
                if (!eof) return ROW_MORE; /* a \n may follow in the next block */
            } else if (*p == '\n') {
                p++;
            }
        } else {
            p++; /* '\n' */
        }
    }
    *n_fields = n;
    *row_end = (size_t)(p - buf);
    return ROW_OK;
}

/* Offset just after the line break ending the line that contains buf[from], or SIZE_MAX when
 * the buffer ends first (and the file does not). */
static size_t line_end(const csv_scanner *sc, size_t from) {
    const char *p = sc->buf + from, *lim = sc->buf + sc->len;
    while (p < lim && *p != '\n' && *p != '\r') p++;
    if (p == lim) return sc->eof ? sc->len : SIZE_MAX;
    if (*p == '\r') {
        if (p + 1 == lim) return sc->eof ? sc->len : SIZE_MAX;
        if (p[1] == '\n') p++;
    }
    return (size_t)(p + 1 - sc->buf);
}

int csv_scan_rows(csv_scanner *sc, csv_batch *b, uint32_t max_rows, csv_scan_state *state,
                  sqe_error *err) {
    const csv_dialect *d = &sc->d;
    const uint32_t n_cols = b->n_cols;
    const uint32_t store = n_cols ? n_cols : b->max_store;
    size_t pos = sc->pos;
    uint32_t rows = b->n_rows;
    const uint32_t limit = rows + max_rows;
    end_cursor cur;
    cursor_init(&cur, sc->buf + pos, d->delim);
    *state = CSV_SCAN_FULL;
    while (rows < limit) {
        /* skip empty and comment lines */
        while (pos < sc->len) {
            char c = sc->buf[pos];
            if (d->skip_empty && (c == '\n' || c == '\r')) {
                if (c == '\r' && pos + 1 == sc->len && !sc->eof) break;
                pos += (c == '\r' && sc->buf[pos + 1] == '\n') ? 2 : 1;
                continue;
            }
            if (d->comment && c == d->comment) {
                size_t e = line_end(sc, pos);
                if (e == SIZE_MAX) break;
                pos = e;
                continue;
            }
            break;
        }
        if (sc->base + pos >= sc->end) {
            *state = CSV_SCAN_DONE;
            break;
        }
        if (pos >= sc->len) {
            *state = sc->eof ? CSV_SCAN_DONE : CSV_SCAN_MORE;
            break;
        }
        if ((pos < sc->len && sc->buf[pos] == d->comment && d->comment) ||
            (d->skip_empty && sc->buf[pos] == '\r')) {
            *state = CSV_SCAN_MORE; /* a comment line or \r that needs the next block */
            break;
        }
        uint32_t n_fields = 0;
        size_t row_end = 0, bad = 0;
        row_status st = scan_row(sc, &cur, pos, b->fields + rows, b->stride, store, &n_fields,
                                 &row_end, &bad);
        if (st == ROW_MORE) {
            if (sc->len - pos > d->max_line) {
                /* the row already exceeds the limit: no need to read further */
                sc->pos = pos;
                return csv_scan_error(sc, err, SQE_ERR_INVALID_FILE, sc->base + pos,
                                      "row is longer than max_line_size (%llu bytes)",
                                      (unsigned long long)d->max_line);
            }
            *state = CSV_SCAN_MORE;
            break;
        }
        if (st == ROW_UNTERMINATED) {
            if (d->ignore_errors) { /* the rest of the file is one broken field */
                pos = sc->len;
                *state = CSV_SCAN_DONE;
                break;
            }
            sc->pos = pos;
            return csv_scan_error(sc, err, SQE_ERR_INVALID_FILE, sc->base + bad,
                                  "unterminated quoted field (the quote opens here and is never "
                                  "closed)");
        }
        if (st == ROW_JUNK) {
            if (d->ignore_errors) {
                size_t e = line_end(sc, bad);
                if (e == SIZE_MAX) {
                    *state = CSV_SCAN_MORE;
                    break;
                }
                pos = e;
                continue;
            }
            sc->pos = pos;
            return csv_scan_error(sc, err, SQE_ERR_INVALID_FILE, sc->base + bad,
                                  "unexpected character after a closing quote");
        }
        if (row_end - pos > d->max_line) {
            sc->pos = pos;
            return csv_scan_error(sc, err, SQE_ERR_INVALID_FILE, sc->base + pos,
                                  "row is longer than max_line_size (%llu bytes)",
                                  (unsigned long long)d->max_line);
        }
        if (n_cols && n_fields != n_cols) {
            if (n_fields < n_cols && d->null_padding) {
                for (uint32_t c = n_fields; c < n_cols; c++) {
                    b->fields[(size_t)c * b->stride + rows].off = (uint32_t)pos;
                    b->fields[(size_t)c * b->stride + rows].len = CSV_F_MISSING;
                }
            } else if (d->ignore_errors) {
                pos = row_end;
                continue;
            } else {
                sc->pos = pos;
                return csv_scan_error(sc, err, SQE_ERR_INVALID_FILE, sc->base + pos,
                                      "expected %u columns but found %u%s", n_cols, n_fields,
                                      n_fields < n_cols
                                          ? " (set null_padding=true to fill missing columns "
                                            "with NULL, or ignore_errors=true to skip the row)"
                                          : " (set ignore_errors=true to skip such rows)");
            }
        }
        if (!n_cols) b->last_n_fields = n_fields;
        b->row_pos[rows] = (uint32_t)pos;
        rows++;
        pos = row_end;
    }
    sc->pos = pos;
    b->n_rows = rows;
    return SQE_OK;
}

uint32_t csv_field_unescape(const csv_scanner *sc, csv_field *f) {
    uint32_t len = f->len & CSV_F_LEN;
    if (!(f->len & CSV_F_ESCAPED)) return len;
    char *s = sc->buf + f->off;
    const char quote = sc->d.quote, escape = sc->d.escape;
    uint32_t w = 0;
    for (uint32_t r = 0; r < len; r++) {
        char c = s[r];
        if ((c == escape || (escape == quote && c == quote)) && r + 1 < len) {
            r++;
            c = s[r];
        }
        s[w++] = c;
    }
    f->len = (f->len & ~(CSV_F_LEN | CSV_F_ESCAPED)) | w;
    return w;
}

/* --- error positions ----------------------------------------------------------------------- */

void csv_scanner_locate(const csv_scanner *sc, uint64_t offset, uint64_t *line, uint64_t *col) {
    *line = 0;
    *col = 0;
    enum { CHUNK = 1 << 16 };
    char *tmp = malloc(CHUNK);
    if (!tmp) return;
    uint64_t lines = 1, line_start = 0, at = 0;
    bool prev_cr = false;
    while (at < offset) {
        size_t want = offset - at < CHUNK ? (size_t)(offset - at) : CHUNK;
        ssize_t r = pread(sc->fd, tmp, want, (off_t)at);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) {
            free(tmp);
            return;
        }
        for (ssize_t i = 0; i < r; i++) {
            char c = tmp[i];
            if (c == '\n') {
                if (!prev_cr) lines++;
                line_start = at + (uint64_t)i + 1;
            } else if (c == '\r') {
                lines++;
                line_start = at + (uint64_t)i + 1;
            }
            prev_cr = c == '\r';
        }
        at += (uint64_t)r;
    }
    free(tmp);
    *line = lines;
    *col = offset - line_start + 1;
}

int csv_scan_error(const csv_scanner *sc, sqe_error *err, int code, uint64_t offset,
                   const char *fmt, ...) {
    if (!err) return code;
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    uint64_t line, col;
    csv_scanner_locate(sc, offset, &line, &col);
    if (line)
        return err_set(err, code, "%s:%llu:%llu: %s", sc->path, (unsigned long long)line,
                       (unsigned long long)col, msg);
    return err_set(err, code, "%s: byte %llu: %s", sc->path, (unsigned long long)offset, msg);
}

void csv_quote_text(const char *s, size_t len, char *out) {
    size_t w = 0, i = 0;
    const size_t max = 100;
    while (i < len && w < max) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x80) {
            out[w++] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
            i++;
            continue;
        }
        size_t valid = csv_utf8_prefix(s + i, len - i < 4 ? len - i : 4);
        size_t seq = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
        if (valid >= seq && w + seq <= max) {
            memcpy(out + w, s + i, seq);
            w += seq;
            i += seq;
        } else if (valid >= seq) {
            break;
        } else {
            out[w++] = '?';
            i++;
        }
    }
    if (i < len) {
        memcpy(out + w, "...", 3);
        w += 3;
    }
    out[w] = 0;
}
