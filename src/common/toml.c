/*
 * toml.c: TOML 1.0.0 reader (https://toml.io/en/v1.0.0): text -> toml_doc tree.
 *
 * A single forward pass of a recursive-descent parser over the bytes. The whole input is first
 * checked to be valid UTF-8 (no overlongs, no surrogates, nothing above U+10FFFF), so the
 * rest of the parser works on bytes and copies multi-byte characters through unchanged.
 *
 * INTERFACE: toml_parse, toml_doc_destroy, toml_table_get, toml_table_at, toml_table_count,
 *            toml_array_at, toml_array_count, toml_type_name, toml_datetime_format,
 *            toml_quote_append, toml_key_append.
 *
 * NOTES:
 * - Redefinition rules (spec §Table, §Array of Tables) are kept on the nodes: a table made by a
 *   [header] or an [[array]] element is header_defined and cannot be headed again; a table made
 *   (or first extended) by dotted keys remembers the section it happened in (dotted_section) and
 *   can be extended by dotted keys only within that section and never named by a [header] (its
 *   sub-tables can); inline tables and static arrays are frozen; a table created only as the
 *   parent of a header ("implicit") may be headed once later. These are the rules of the spec's
 *   examples, of toml-test and of Python's tomllib.
 * - During the parse a hash index (parent table, key) -> value makes key lookups O(1), so a
 *   table with many keys is linear to parse; it is freed when toml_parse returns.
 * - Choices where the spec leaves room: CRLF inside multi-line strings becomes LF; seconds must
 *   be 00..59 (no leap second, as tomllib); fractional seconds beyond nanoseconds are truncated;
 *   floats too large for a double become +-inf (as strtod and tomllib); a byte-order mark is not
 *   skipped (it is an error, as in tomllib).
 */
#include "common/toml.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/hash.h"
#include "common/utf8.h"
#include "common/hex.h"

/* --- parser state ----------------------------------------------------------------------------- */

typedef struct key_part {
    const char *ptr; /* arena copy, NUL-terminated */
    size_t len;
    size_t pos; /* source offset of the part */
    int line, col;
} key_part;

typedef struct index_slot {
    const toml_value *table; /* NULL = empty */
    const char *key;
    size_t key_len;
    toml_value *value;
} index_slot;

typedef struct parser {
    const char *src;
    size_t len;
    size_t pos;
    toml_doc *doc;
    sqe_error *err;
    toml_value *cur; /* table that key/value pairs go into */
    int section;     /* id of the current [header] section or inline table */
    int next_section;
    int depth;
    strbuf scratch; /* string value being built */
    key_part *keys; /* the key being parsed */
    size_t n_keys, cap_keys;
    index_slot *slots; /* open addressing, power-of-two size */
    size_t n_slots, n_used;
    size_t lc_pos; /* line/column cache for positions */
    int lc_line, lc_col;
} parser;

static void locate(parser *p, size_t pos, int *line, int *col) {
    if (pos > p->len) pos = p->len;
    if (pos < p->lc_pos) {
        p->lc_pos = 0;
        p->lc_line = 1;
        p->lc_col = 1;
    }
    for (size_t i = p->lc_pos; i < pos; i++) {
        unsigned char b = (unsigned char)p->src[i];
        if (b == '\n') {
            p->lc_line++;
            p->lc_col = 1;
        } else if ((b & 0xC0) != 0x80) {
            p->lc_col++;
        }
    }
    p->lc_pos = pos;
    *line = p->lc_line;
    *col = p->lc_col;
}

static int fail_at(parser *p, size_t pos, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail_at(parser *p, size_t pos, const char *fmt, ...) {
    int line, col;
    locate(p, pos, &line, &col);
    if (p->err) {
        va_list ap;
        va_start(ap, fmt);
        err_setv(p->err, SQE_ERR_SYNTAX_ERROR, fmt, ap);
        va_end(ap);
        p->err->line = line;
        p->err->column = col;
    }
    return SQE_ERR_SYNTAX_ERROR;
}

static int nomem(parser *p) { return err_nomem(p->err, "TOML document"); }

static inline int at_end(const parser *p) { return p->pos >= p->len; }
static inline int peek(const parser *p) {
    return p->pos < p->len ? (unsigned char)p->src[p->pos] : -1;
}
static inline int peek_at(const parser *p, size_t off) {
    return p->pos + off < p->len ? (unsigned char)p->src[p->pos + off] : -1;
}
static inline int starts(const parser *p, const char *s) {
    size_t n = strlen(s);
    return p->len - p->pos >= n && memcmp(p->src + p->pos, s, n) == 0;
}

/* Describes the character at pos for messages. */
static const char *describe(parser *p, size_t pos, char *buf, size_t n) {
    if (pos >= p->len) return "end of input";
    unsigned char c = (unsigned char)p->src[pos];
    if (c == '\n') return "end of line";
    if (c == '\r')
        return p->pos + 1 < p->len && p->src[pos + 1] == '\n' ? "end of line"
                                                              : "a bare carriage return";
    if (c < 0x20 || c == 0x7f) {
        snprintf(buf, n, "control character U+%04X", c);
        return buf;
    }
    if (c >= 0x80) return "a non-ASCII character";
    snprintf(buf, n, "'%c'", c);
    return buf;
}

/* --- UTF-8 ------------------------------------------------------------------------------------ */

/* --- tree building ---------------------------------------------------------------------------- */

static toml_value *new_value_at(parser *p, toml_type type, int line, int col) {
    toml_value *v = ARENA_NEW(&p->doc->arena, toml_value);
    if (!v) return NULL;
    v->type = type;
    v->line = line;
    v->column = col;
    return v;
}

/* Positions are located in increasing order (keys, then their values), so the line/column
 * cache only moves forward except when an error is reported. */
static toml_value *new_value(parser *p, toml_type type, size_t pos) {
    int line, col;
    locate(p, pos, &line, &col);
    return new_value_at(p, type, line, col);
}

static uint64_t slot_hash(const toml_value *table, const char *key, size_t len) {
    return hash_combine(hash_u64((uint64_t)(uintptr_t)table), hash_bytes(key, len));
}

static toml_value *index_find(const parser *p, const toml_value *table, const char *key,
                              size_t len) {
    if (!p->slots) return NULL;
    size_t mask = p->n_slots - 1;
    for (size_t i = slot_hash(table, key, len) & mask;; i = (i + 1) & mask) {
        const index_slot *s = &p->slots[i];
        if (!s->table) return NULL;
        if (s->table == table && s->key_len == len && memcmp(s->key, key, len) == 0)
            return s->value;
    }
}

static int index_grow(parser *p) {
    size_t n = p->n_slots ? p->n_slots * 2 : 64;
    index_slot *slots = calloc(n, sizeof *slots);
    if (!slots) return -1;
    for (size_t i = 0; i < p->n_slots; i++) {
        const index_slot *s = &p->slots[i];
        if (!s->table) continue;
        size_t j = slot_hash(s->table, s->key, s->key_len) & (n - 1);
        while (slots[j].table) j = (j + 1) & (n - 1);
        slots[j] = *s;
    }
    free(p->slots);
    p->slots = slots;
    p->n_slots = n;
    return 0;
}

/* Appends key -> value to table (the caller checked the key is new). */
static int table_add(parser *p, toml_value *table, const char *key, size_t len, toml_value *value) {
    if ((p->n_used + 1) * 2 > p->n_slots && index_grow(p) != 0) return nomem(p);
    if (table->u.table.n == table->u.table.cap) {
        size_t cap = table->u.table.cap ? table->u.table.cap * 2 : 4;
        toml_kv *items = ARENA_ARRAY(&p->doc->arena, toml_kv, cap);
        if (!items) return nomem(p);
        if (table->u.table.n) memcpy(items, table->u.table.items, table->u.table.n * sizeof *items);
        table->u.table.items = items;
        table->u.table.cap = cap;
    }
    table->u.table.items[table->u.table.n++] = (toml_kv){key, len, value};
    size_t mask = p->n_slots - 1;
    size_t i = slot_hash(table, key, len) & mask;
    while (p->slots[i].table) i = (i + 1) & mask;
    p->slots[i] = (index_slot){table, key, len, value};
    p->n_used++;
    return SQE_OK;
}

static int array_add(parser *p, toml_value *array, toml_value *value) {
    if (array->u.array.n == array->u.array.cap) {
        size_t cap = array->u.array.cap ? array->u.array.cap * 2 : 4;
        toml_value **items = ARENA_ARRAY(&p->doc->arena, toml_value *, cap);
        if (!items) return nomem(p);
        if (array->u.array.n) memcpy(items, array->u.array.items, array->u.array.n * sizeof *items);
        array->u.array.items = items;
        array->u.array.cap = cap;
    }
    array->u.array.items[array->u.array.n++] = value;
    return SQE_OK;
}

/* --- whitespace, comments, newlines ----------------------------------------------------------- */

static void skip_ws(parser *p) {
    while (p->pos < p->len && (p->src[p->pos] == ' ' || p->src[p->pos] == '\t')) p->pos++;
}

/* At '#': skips the comment up to (not including) the newline; rejects control characters. */
static int skip_comment(parser *p) {
    p->pos++;
    while (p->pos < p->len) {
        unsigned char c = (unsigned char)p->src[p->pos];
        if (c == '\n') break;
        if (c == '\r' && peek_at(p, 1) == '\n') break;
        if ((c < 0x20 && c != '\t') || c == 0x7f) {
            char b[40];
            return fail_at(p, p->pos, "%s is not allowed in a comment",
                           describe(p, p->pos, b, sizeof b));
        }
        p->pos++;
    }
    return SQE_OK;
}

/* Consumes one newline (LF or CRLF) if present; returns 1 when it did. */
static int eat_newline(parser *p) {
    if (peek(p) == '\n') {
        p->pos++;
        return 1;
    }
    if (peek(p) == '\r' && peek_at(p, 1) == '\n') {
        p->pos += 2;
        return 1;
    }
    return 0;
}

/* Skips whitespace, newlines and comments (inside arrays). */
static int skip_ws_nl_comments(parser *p) {
    for (;;) {
        skip_ws(p);
        if (eat_newline(p)) continue;
        if (peek(p) == '#') {
            SQE_TRY(skip_comment(p));
            continue;
        }
        return SQE_OK;
    }
}

/* After a key/value pair or a header: whitespace, an optional comment, then newline or end. */
static int expect_line_end(parser *p, const char *after) {
    skip_ws(p);
    if (peek(p) == '#') SQE_TRY(skip_comment(p));
    if (at_end(p) || eat_newline(p)) return SQE_OK;
    char b[40];
    return fail_at(p, p->pos, "expected end of line after %s, found %s", after,
                   describe(p, p->pos, b, sizeof b));
}

/* --- strings ---------------------------------------------------------------------------------- */

/* At the character after a backslash in a basic string. */
static int parse_escape(parser *p, int multiline) {
    size_t start = p->pos - 1;
    int c = peek(p);
    switch (c) {
    case 'b':
        strbuf_putc(&p->scratch, '\b');
        p->pos++;
        return SQE_OK;
    case 't':
        strbuf_putc(&p->scratch, '\t');
        p->pos++;
        return SQE_OK;
    case 'n':
        strbuf_putc(&p->scratch, '\n');
        p->pos++;
        return SQE_OK;
    case 'f':
        strbuf_putc(&p->scratch, '\f');
        p->pos++;
        return SQE_OK;
    case 'r':
        strbuf_putc(&p->scratch, '\r');
        p->pos++;
        return SQE_OK;
    case '"':
        strbuf_putc(&p->scratch, '"');
        p->pos++;
        return SQE_OK;
    case '\\':
        strbuf_putc(&p->scratch, '\\');
        p->pos++;
        return SQE_OK;
    case 'u':
    case 'U': {
        int n = c == 'u' ? 4 : 8;
        uint32_t cp = 0;
        for (int k = 1; k <= n; k++) {
            int h = hex_digit(peek_at(p, (size_t)k));
            if (h < 0)
                return fail_at(p, start, "\\%c escape needs exactly %d hexadecimal digits", c, n);
            cp = (cp << 4) | (uint32_t)h;
        }
        if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return fail_at(p, start, "escape \\%c%.*s is not a Unicode scalar value", c, n,
                           p->src + p->pos + 1);
        char enc[4];
        strbuf_append(&p->scratch, enc, utf8_encode(cp, enc));
        p->pos += (size_t)n + 1;
        return SQE_OK;
    }
    default: break;
    }
    if (multiline && (c == ' ' || c == '\t' || c == '\n' || c == '\r')) {
        /* Line-ending backslash: trims whitespace and newlines up to the next character. */
        skip_ws(p);
        if (!eat_newline(p))
            return fail_at(p, start, "a line-ending backslash must be followed only by whitespace");
        for (;;) {
            skip_ws(p);
            if (!eat_newline(p)) break;
        }
        return SQE_OK;
    }
    char b[40];
    return fail_at(p, start, "invalid escape sequence: backslash followed by %s",
                   describe(p, p->pos, b, sizeof b));
}

/* Parses a string of any of the four kinds at the opening quote; the text is left in scratch. */
static int parse_string(parser *p, int allow_multiline) {
    size_t start = p->pos;
    char q = p->src[p->pos];
    int literal = q == '\'';
    int multiline = allow_multiline && (literal ? starts(p, "'''") : starts(p, "\"\"\""));
    p->scratch.len = 0;
    if (p->scratch.data) p->scratch.data[0] = 0;
    if (multiline) {
        p->pos += 3;
        eat_newline(p); /* a newline right after the delimiter is trimmed */
    } else {
        p->pos++;
    }
    for (;;) {
        if (at_end(p))
            return fail_at(p, start, "unterminated %s string", literal ? "literal" : "basic");
        unsigned char c = (unsigned char)p->src[p->pos];
        if (c == (unsigned char)q) {
            if (!multiline) {
                p->pos++;
                break;
            }
            size_t run = 0;
            while (p->pos + run < p->len && p->src[p->pos + run] == q) run++;
            if (run >= 3) {
                size_t extra = run - 3 > 2 ? 2 : run - 3;
                for (size_t k = 0; k < extra; k++) strbuf_putc(&p->scratch, q);
                p->pos += 3 + extra;
                break;
            }
            for (size_t k = 0; k < run; k++) strbuf_putc(&p->scratch, q);
            p->pos += run;
            continue;
        }
        if (c == '\\' && !literal) {
            p->pos++;
            SQE_TRY(parse_escape(p, multiline));
            continue;
        }
        if (c == '\n' || (c == '\r' && peek_at(p, 1) == '\n')) {
            if (!multiline) return fail_at(p, p->pos, "newline in a single-line string");
            eat_newline(p);
            strbuf_putc(&p->scratch, '\n');
            continue;
        }
        if ((c < 0x20 && c != '\t') || c == 0x7f) {
            char b[40];
            return fail_at(p, p->pos, "%s must be escaped in a string",
                           describe(p, p->pos, b, sizeof b));
        }
        /* Copy a run of ordinary bytes at once. */
        size_t run_start = p->pos++;
        while (p->pos < p->len) {
            unsigned char d = (unsigned char)p->src[p->pos];
            if (d == (unsigned char)q || (d == '\\' && !literal) || (d < 0x20 && d != '\t') ||
                d == 0x7f)
                break;
            p->pos++;
        }
        strbuf_append(&p->scratch, p->src + run_start, p->pos - run_start);
    }
    if (p->scratch.failed) return nomem(p);
    return SQE_OK;
}

/* --- keys ------------------------------------------------------------------------------------- */

static int is_bare(int c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
}

static int push_key(parser *p, const char *s, size_t len, size_t pos) {
    if (p->n_keys == p->cap_keys) {
        size_t cap = p->cap_keys ? p->cap_keys * 2 : 8;
        key_part *k = realloc(p->keys, cap * sizeof *k);
        if (!k) return nomem(p);
        p->keys = k;
        p->cap_keys = cap;
    }
    char *copy = arena_strndup(&p->doc->arena, s, len);
    if (!copy) return nomem(p);
    key_part *k = &p->keys[p->n_keys++];
    *k = (key_part){copy, len, pos, 0, 0};
    locate(p, pos, &k->line, &k->col);
    return SQE_OK;
}

/* Parses a (possibly dotted) key, appending its parts to p->keys (a stack: a value parsed
 * after the key may push its own keys, so callers use the parts from *base on and pop them
 * afterwards); stops after trailing whitespace. */
static int parse_key(parser *p, size_t *base) {
    *base = p->n_keys;
    for (;;) {
        skip_ws(p);
        size_t start = p->pos;
        int c = peek(p);
        if (c == '"' || c == '\'') {
            if ((c == '"' && starts(p, "\"\"\"")) || (c == '\'' && starts(p, "'''")))
                return fail_at(p, start, "a key cannot be a multi-line string");
            SQE_TRY(parse_string(p, 0));
            SQE_TRY(push_key(p, strbuf_cstr(&p->scratch), p->scratch.len, start));
        } else if (c >= 0 && is_bare(c)) {
            while (p->pos < p->len && is_bare((unsigned char)p->src[p->pos])) p->pos++;
            SQE_TRY(push_key(p, p->src + start, p->pos - start, start));
        } else {
            char b[40];
            return fail_at(p, start, "expected a key, found %s", describe(p, start, b, sizeof b));
        }
        skip_ws(p);
        if (peek(p) != '.') return SQE_OK;
        p->pos++;
    }
}

/* --- numbers and dates ------------------------------------------------------------------------ */

static int is_digit(int c) { return c >= '0' && c <= '9'; }

/* Reads digits with single underscores between them (spec §Integer) into buf without the
 * underscores; base-digit predicate by radix. Returns number of digits, -1 on underscore misuse. */
static int read_digits(parser *p, int radix, strbuf *buf) {
    int n = 0;
    int prev_digit = 0;
    for (;;) {
        int c = peek(p);
        int ok = radix == 16  ? hex_digit(c) >= 0
                 : radix == 8 ? (c >= '0' && c <= '7')
                 : radix == 2 ? (c == '0' || c == '1')
                              : is_digit(c);
        if (ok) {
            strbuf_putc(buf, (char)c);
            p->pos++;
            n++;
            prev_digit = 1;
        } else if (c == '_') {
            int next = peek_at(p, 1);
            int next_ok = radix == 16  ? hex_digit(next) >= 0
                          : radix == 8 ? (next >= '0' && next <= '7')
                          : radix == 2 ? (next == '0' || next == '1')
                                       : is_digit(next);
            if (!prev_digit || !next_ok) return -1;
            p->pos++;
            prev_digit = 0;
        } else {
            return n;
        }
    }
}

static int days_in_month(int y, int m) {
    static const int d[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0)) return 29;
    return d[m - 1];
}

/* Reads exactly n digits; -1 if not digits. */
static int fixed_digits(parser *p, int n) {
    int v = 0;
    for (int k = 0; k < n; k++) {
        int c = peek_at(p, (size_t)k);
        if (!is_digit(c)) return -1;
        v = v * 10 + (c - '0');
    }
    p->pos += (size_t)n;
    return v;
}

/* Parses HH:MM:SS[.frac] into dt. */
static int parse_time(parser *p, toml_datetime *dt) {
    size_t start = p->pos;
    int h = fixed_digits(p, 2);
    if (h < 0 || peek(p) != ':') return fail_at(p, start, "invalid time: expected HH:MM:SS");
    p->pos++;
    int m = fixed_digits(p, 2);
    if (m < 0 || peek(p) != ':')
        return fail_at(p, start, "invalid time: expected HH:MM:SS (seconds are required)");
    p->pos++;
    int s = fixed_digits(p, 2);
    if (s < 0) return fail_at(p, start, "invalid time: expected HH:MM:SS");
    if (h > 23 || m > 59 || s > 59)
        return fail_at(p, start, "invalid time %02d:%02d:%02d: out of range", h, m, s);
    dt->hour = h;
    dt->minute = m;
    dt->second = s;
    if (peek(p) == '.') {
        p->pos++;
        if (!is_digit(peek(p)))
            return fail_at(p, p->pos, "invalid time: expected digits after '.'");
        int ns = 0, n = 0;
        while (is_digit(peek(p))) {
            if (n < 9) {
                ns = ns * 10 + (peek(p) - '0');
                n++;
            }
            p->pos++;
        }
        while (n < 9) {
            ns *= 10;
            n++;
        }
        dt->nanosecond = ns;
    }
    return SQE_OK;
}

/* At a digit that begins a date (YYYY-) or a time (HH:). */
static int parse_datetime(parser *p, toml_value **out, size_t start) {
    toml_datetime dt = {0};
    toml_type type;
    if (peek_at(p, 2) == ':') {
        SQE_TRY(parse_time(p, &dt));
        type = TOML_TIME_LOCAL;
    } else {
        int y = fixed_digits(p, 4);
        if (y < 0 || peek(p) != '-') return fail_at(p, start, "invalid date: expected YYYY-MM-DD");
        p->pos++;
        int mo = fixed_digits(p, 2);
        if (mo < 0 || peek(p) != '-') return fail_at(p, start, "invalid date: expected YYYY-MM-DD");
        p->pos++;
        int d = fixed_digits(p, 2);
        if (d < 0) return fail_at(p, start, "invalid date: expected YYYY-MM-DD");
        if (mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo))
            return fail_at(p, start, "invalid date %04d-%02d-%02d: no such day", y, mo, d);
        dt.year = y;
        dt.month = mo;
        dt.day = d;
        type = TOML_DATE_LOCAL;
        int c = peek(p);
        int time_follows =
            (c == 'T' || c == 't') || (c == ' ' && is_digit(peek_at(p, 1)) &&
                                       is_digit(peek_at(p, 2)) && peek_at(p, 3) == ':');
        if (time_follows) {
            p->pos++;
            SQE_TRY(parse_time(p, &dt));
            type = TOML_DATETIME_LOCAL;
            c = peek(p);
            if (c == 'Z' || c == 'z') {
                p->pos++;
                type = TOML_DATETIME;
            } else if (c == '+' || c == '-') {
                size_t off_pos = p->pos;
                p->pos++;
                int oh = fixed_digits(p, 2);
                if (oh < 0 || peek(p) != ':')
                    return fail_at(p, off_pos, "invalid UTC offset: expected +HH:MM");
                p->pos++;
                int om = fixed_digits(p, 2);
                if (om < 0) return fail_at(p, off_pos, "invalid UTC offset: expected +HH:MM");
                if (oh > 23 || om > 59)
                    return fail_at(p, off_pos, "invalid UTC offset: out of range");
                dt.offset_minutes = (oh * 60 + om) * (c == '-' ? -1 : 1);
                type = TOML_DATETIME;
            }
        }
    }
    toml_value *v = new_value(p, type, start);
    if (!v) return nomem(p);
    v->u.dt = dt;
    *out = v;
    return SQE_OK;
}

/* At '+', '-', a digit, 'i' or 'n': an integer, a float or (unsigned) a date/time. */
static int parse_number(parser *p, toml_value **out) {
    size_t start = p->pos;
    int c = peek(p);
    if (is_digit(c) && ((is_digit(peek_at(p, 1)) && is_digit(peek_at(p, 2)) &&
                         is_digit(peek_at(p, 3)) && peek_at(p, 4) == '-') ||
                        (is_digit(peek_at(p, 1)) && peek_at(p, 2) == ':')))
        return parse_datetime(p, out, start);

    int neg = 0;
    if (c == '+' || c == '-') {
        neg = c == '-';
        p->pos++;
        c = peek(p);
    }
    if (starts(p, "inf") || starts(p, "nan")) {
        int is_nan = p->src[p->pos] == 'n';
        p->pos += 3;
        toml_value *v = new_value(p, TOML_FLOAT, start);
        if (!v) return nomem(p);
        v->u.flt = is_nan ? (neg ? -NAN : NAN) : (neg ? -INFINITY : INFINITY);
        *out = v;
        return SQE_OK;
    }
    if (!is_digit(c)) {
        char b[40];
        return fail_at(p, start, "expected a value, found %s", describe(p, start, b, sizeof b));
    }
    strbuf num;
    strbuf_init(&num);
    int rc = SQE_OK;
    if (c == '0' && (peek_at(p, 1) == 'x' || peek_at(p, 1) == 'o' || peek_at(p, 1) == 'b')) {
        int radix = peek_at(p, 1) == 'x' ? 16 : peek_at(p, 1) == 'o' ? 8 : 2;
        if (p->pos != start) {
            rc = fail_at(p, start, "a hexadecimal, octal or binary integer cannot have a sign");
            goto out_free_num;
        }
        p->pos += 2;
        int n = read_digits(p, radix, &num);
        if (n <= 0) {
            rc = fail_at(p, start, "invalid base-%d integer: %s", radix,
                         n < 0 ? "misplaced underscore" : "no digits");
            goto out_free_num;
        }
        uint64_t val = 0;
        const char *d = strbuf_cstr(&num);
        for (; *d; d++) {
            uint64_t digit = (uint64_t)hex_digit(*d);
            if (val > ((uint64_t)INT64_MAX - digit) / (uint64_t)radix) {
                rc = fail_at(p, start, "integer out of range (64-bit signed)");
                goto out_free_num;
            }
            val = val * (uint64_t)radix + digit;
        }
        toml_value *v = new_value(p, TOML_INTEGER, start);
        if (!v) {
            rc = nomem(p);
            goto out_free_num;
        }
        v->u.integer = (int64_t)val;
        *out = v;
        goto out_free_num;
    }

    size_t int_pos = p->pos;
    if (neg) strbuf_putc(&num, '-');
    int n_int = read_digits(p, 10, &num);
    if (n_int < 0) {
        rc = fail_at(p, start, "invalid number: misplaced underscore");
        goto out_free_num;
    }
    if (p->src[int_pos] == '0' && n_int > 1) {
        rc = fail_at(p, start, "invalid number: leading zeros are not allowed");
        goto out_free_num;
    }
    int is_float = 0;
    if (peek(p) == '.') {
        is_float = 1;
        p->pos++;
        strbuf_putc(&num, '.');
        int n = read_digits(p, 10, &num);
        if (n <= 0) {
            rc = fail_at(p, start, "invalid float: %s",
                         n < 0 ? "misplaced underscore" : "expected digits after '.'");
            goto out_free_num;
        }
    }
    if (peek(p) == 'e' || peek(p) == 'E') {
        is_float = 1;
        p->pos++;
        strbuf_putc(&num, 'e');
        if (peek(p) == '+' || peek(p) == '-') {
            strbuf_putc(&num, (char)peek(p));
            p->pos++;
        }
        int n = read_digits(p, 10, &num);
        if (n <= 0) {
            rc = fail_at(p, start, "invalid float: %s",
                         n < 0 ? "misplaced underscore" : "expected exponent digits");
            goto out_free_num;
        }
    }
    if (num.failed) {
        rc = nomem(p);
        goto out_free_num;
    }
    toml_value *v = new_value(p, is_float ? TOML_FLOAT : TOML_INTEGER, start);
    if (!v) {
        rc = nomem(p);
        goto out_free_num;
    }
    if (is_float) {
        v->u.flt = strtod(strbuf_cstr(&num), NULL);
    } else {
        errno = 0;
        long long ll = strtoll(strbuf_cstr(&num), NULL, 10);
        if (errno == ERANGE) {
            rc = fail_at(p, start, "integer out of range (64-bit signed)");
            goto out_free_num;
        }
        v->u.integer = (int64_t)ll;
    }
    *out = v;
out_free_num:
    strbuf_reset(&num);
    return rc;
}

/* --- values ----------------------------------------------------------------------------------- */

static int parse_value(parser *p, toml_value **out);
static int insert_keyval(parser *p, toml_value *table, toml_value *value, size_t base,
                         size_t key_pos);

static int parse_array(parser *p, toml_value **out) {
    size_t start = p->pos;
    if (++p->depth > TOML_MAX_DEPTH)
        return fail_at(p, start, "arrays and inline tables nested too deeply");
    p->pos++;
    toml_value *arr = new_value(p, TOML_ARRAY, start);
    if (!arr) return nomem(p);
    arr->frozen = 1;
    for (;;) {
        SQE_TRY(skip_ws_nl_comments(p));
        if (peek(p) == ']') {
            p->pos++;
            break;
        }
        toml_value *item = NULL;
        SQE_TRY(parse_value(p, &item));
        SQE_TRY(array_add(p, arr, item));
        SQE_TRY(skip_ws_nl_comments(p));
        if (peek(p) == ',') {
            p->pos++;
            continue;
        }
        if (peek(p) == ']') {
            p->pos++;
            break;
        }
        if (at_end(p)) return fail_at(p, start, "unterminated array");
        char b[40];
        return fail_at(p, p->pos, "expected ',' or ']' in an array, found %s",
                       describe(p, p->pos, b, sizeof b));
    }
    p->depth--;
    *out = arr;
    return SQE_OK;
}

static int parse_inline_table(parser *p, toml_value **out) {
    size_t start = p->pos;
    if (++p->depth > TOML_MAX_DEPTH)
        return fail_at(p, start, "arrays and inline tables nested too deeply");
    p->pos++;
    toml_value *t = new_value(p, TOML_TABLE, start);
    if (!t) return nomem(p);
    int saved_section = p->section;
    p->section = ++p->next_section;
    skip_ws(p);
    if (peek(p) == '}') {
        p->pos++;
    } else {
        for (;;) {
            size_t key_pos = p->pos, base;
            SQE_TRY(parse_key(p, &base));
            if (peek(p) != '=') {
                char b[40];
                return fail_at(p, p->pos, "expected '=' after a key, found %s",
                               describe(p, p->pos, b, sizeof b));
            }
            p->pos++;
            skip_ws(p);
            toml_value *v = NULL;
            SQE_TRY(parse_value(p, &v));
            SQE_TRY(insert_keyval(p, t, v, base, key_pos));
            skip_ws(p);
            if (peek(p) == ',') {
                p->pos++;
                skip_ws(p);
                if (peek(p) == '}') return fail_at(p, p->pos, "trailing comma in an inline table");
                continue;
            }
            if (peek(p) == '}') {
                p->pos++;
                break;
            }
            char b[40];
            return fail_at(p, p->pos, "expected ',' or '}' in an inline table, found %s",
                           describe(p, p->pos, b, sizeof b));
        }
    }
    p->section = saved_section;
    t->frozen = 1;
    p->depth--;
    *out = t;
    return SQE_OK;
}

static int parse_value(parser *p, toml_value **out) {
    size_t start = p->pos;
    int c = peek(p);
    switch (c) {
    case '"':
    case '\'': {
        SQE_TRY(parse_string(p, 1));
        toml_value *v = new_value(p, TOML_STRING, start);
        char *s = arena_strndup(&p->doc->arena, strbuf_cstr(&p->scratch), p->scratch.len);
        if (!v || !s) return nomem(p);
        v->u.str.ptr = s;
        v->u.str.len = p->scratch.len;
        *out = v;
        return SQE_OK;
    }
    case '[': return parse_array(p, out);
    case '{': return parse_inline_table(p, out);
    case 't':
    case 'f': {
        int is_true = starts(p, "true");
        if (!is_true && !starts(p, "false")) break;
        p->pos += is_true ? 4 : 5;
        if (p->pos < p->len && is_bare((unsigned char)p->src[p->pos])) break;
        toml_value *v = new_value(p, TOML_BOOL, start);
        if (!v) return nomem(p);
        v->u.boolean = is_true;
        *out = v;
        return SQE_OK;
    }
    default:
        if (c == '+' || c == '-' || is_digit(c) || c == 'i' || c == 'n') {
            if ((c == 'i' && !starts(p, "inf")) || (c == 'n' && !starts(p, "nan"))) break;
            return parse_number(p, out);
        }
        break;
    }
    char b[40];
    if (c == '\n' || c == '\r' || c < 0 || c == '#' || (c > 0 && strchr(",]}=", c)))
        return fail_at(p, start, "expected a value, found %s",
                       c == '#' ? "a comment" : describe(p, start, b, sizeof b));
    return fail_at(p, start, "invalid value (strings must be quoted; booleans are true and false)");
}

/* --- key/value pairs and headers -------------------------------------------------------------- */

static int defined_elsewhere(const parser *p, const toml_value *t) {
    return t->header_defined || (t->dotted_section != 0 && t->dotted_section != p->section);
}

/* Inserts value under the dotted key p->keys[base..], relative to table, and pops the key. */
static int insert_keyval(parser *p, toml_value *table, toml_value *value, size_t base,
                         size_t key_pos) {
    toml_value *t = table;
    for (size_t i = base; i + 1 < p->n_keys; i++) {
        const key_part *k = &p->keys[i];
        toml_value *e = index_find(p, t, k->ptr, k->len);
        if (!e) {
            e = new_value_at(p, TOML_TABLE, k->line, k->col);
            if (!e) return nomem(p);
            e->dotted_section = p->section;
            SQE_TRY(table_add(p, t, k->ptr, k->len, e));
        } else if (e->type != TOML_TABLE) {
            return fail_at(
                p, k->pos, "cannot use key '%s' as a table: it already holds a value (%s)", k->ptr,
                e->type == TOML_ARRAY && e->aot ? "array of tables" : toml_type_name(e->type));
        } else if (e->frozen) {
            return fail_at(p, k->pos, "cannot add keys to inline table '%s'", k->ptr);
        } else if (defined_elsewhere(p, e)) {
            return fail_at(
                p, k->pos,
                "cannot add keys to table '%s' with dotted keys: it is defined elsewhere", k->ptr);
        } else {
            e->dotted_section = p->section;
        }
        t = e;
    }
    const key_part *last = &p->keys[p->n_keys - 1];
    if (index_find(p, t, last->ptr, last->len))
        return fail_at(p, key_pos, "duplicate key '%s'", last->ptr);
    SQE_TRY(table_add(p, t, last->ptr, last->len, value));
    p->n_keys = base;
    return SQE_OK;
}

static int parse_keyval_line(parser *p) {
    size_t key_pos = p->pos, base;
    SQE_TRY(parse_key(p, &base));
    if (peek(p) != '=') {
        char b[40];
        return fail_at(p, p->pos, "expected '=' after a key, found %s",
                       describe(p, p->pos, b, sizeof b));
    }
    p->pos++;
    skip_ws(p);
    toml_value *v = NULL;
    SQE_TRY(parse_value(p, &v));
    SQE_TRY(insert_keyval(p, p->cur, v, base, key_pos));
    return expect_line_end(p, "a value");
}

static int parse_header(parser *p) {
    size_t start = p->pos;
    int line, col;
    locate(p, start, &line, &col);
    int aot = starts(p, "[[");
    p->pos += aot ? 2 : 1;
    size_t base;
    SQE_TRY(parse_key(p, &base));
    if (aot ? !starts(p, "]]") : peek(p) != ']') {
        char b[40];
        return fail_at(p, p->pos, "expected '%s' to close the table header, found %s",
                       aot ? "]]" : "]", describe(p, p->pos, b, sizeof b));
    }
    p->pos += aot ? 2 : 1;
    p->section = ++p->next_section;

    toml_value *t = p->doc->root;
    for (size_t i = base; i + 1 < p->n_keys; i++) {
        const key_part *k = &p->keys[i];
        toml_value *e = index_find(p, t, k->ptr, k->len);
        if (!e) {
            e = new_value_at(p, TOML_TABLE, k->line, k->col);
            if (!e) return nomem(p);
            SQE_TRY(table_add(p, t, k->ptr, k->len, e));
        } else if (e->type == TOML_ARRAY) {
            if (!e->aot || e->u.array.n == 0)
                return fail_at(p, k->pos, "cannot use key '%s' as a table: it holds a static array",
                               k->ptr);
            e = e->u.array.items[e->u.array.n - 1];
        } else if (e->type != TOML_TABLE) {
            return fail_at(p, k->pos,
                           "cannot use key '%s' as a table: it already holds a value (%s)", k->ptr,
                           toml_type_name(e->type));
        } else if (e->frozen) {
            return fail_at(p, k->pos, "cannot extend inline table '%s'", k->ptr);
        }
        t = e;
    }
    const key_part *last = &p->keys[p->n_keys - 1];
    toml_value *e = index_find(p, t, last->ptr, last->len);
    if (aot) {
        if (!e) {
            e = new_value_at(p, TOML_ARRAY, line, col);
            if (!e) return nomem(p);
            e->aot = 1;
            SQE_TRY(table_add(p, t, last->ptr, last->len, e));
        } else if (e->type != TOML_ARRAY || !e->aot) {
            return fail_at(p, start, "cannot define '%s' as an array of tables: it is already %s",
                           last->ptr,
                           e->type == TOML_ARRAY   ? "a static array"
                           : e->type == TOML_TABLE ? "a table"
                                                   : "a value");
        }
        toml_value *elem = new_value_at(p, TOML_TABLE, line, col);
        if (!elem) return nomem(p);
        elem->header_defined = 1;
        SQE_TRY(array_add(p, e, elem));
        p->cur = elem;
    } else {
        if (!e) {
            e = new_value_at(p, TOML_TABLE, line, col);
            if (!e) return nomem(p);
            SQE_TRY(table_add(p, t, last->ptr, last->len, e));
        } else if (e->type != TOML_TABLE) {
            return fail_at(p, start, "cannot define table '%s': it is already %s", last->ptr,
                           e->type == TOML_ARRAY ? (e->aot ? "an array of tables" : "an array")
                                                 : "a value");
        } else if (e->frozen) {
            return fail_at(p, start, "cannot define table '%s': it is an inline table", last->ptr);
        } else if (e->header_defined || e->dotted_section) {
            return fail_at(p, start, "table '%s' is defined twice", last->ptr);
        } else {
            e->line = line;
            e->column = col;
        }
        e->header_defined = 1;
        p->cur = e;
    }
    p->n_keys = base;
    return expect_line_end(p, "a table header");
}

/* --- entry points ----------------------------------------------------------------------------- */

int toml_parse(const char *text, size_t len, toml_doc **out, sqe_error *err) {
    *out = NULL;
    if (!text && len) return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "toml_parse: no text");
    toml_doc *doc = calloc(1, sizeof *doc);
    if (!doc) return err_nomem(err, "TOML document");
    arena_init(&doc->arena, NULL);
    parser p = {
        .src = text ? text : "", .len = len, .doc = doc, .err = err, .lc_line = 1, .lc_col = 1};
    strbuf_init(&p.scratch);
    int rc = SQE_OK;
    size_t bad = utf8_valid_prefix(p.src, len);
    if (bad < len) {
        rc = fail_at(&p, bad, "invalid UTF-8 (byte 0x%02X)", (unsigned char)p.src[bad]);
        goto out_cleanup;
    }
    doc->root = new_value(&p, TOML_TABLE, 0);
    if (!doc->root) {
        rc = nomem(&p);
        goto out_cleanup;
    }
    doc->root->header_defined = 1;
    p.cur = doc->root;
    p.section = p.next_section = 1;
    while (rc == SQE_OK) {
        skip_ws(&p);
        if (at_end(&p)) break;
        int c = peek(&p);
        if (eat_newline(&p)) continue;
        if (c == '#') {
            rc = skip_comment(&p);
            if (rc == SQE_OK) rc = expect_line_end(&p, "a comment");
        } else if (c == '[') {
            rc = parse_header(&p);
        } else if (c == '\r') {
            rc = fail_at(&p, p.pos, "carriage return not followed by a line feed");
        } else {
            rc = parse_keyval_line(&p);
        }
    }
out_cleanup:
    strbuf_reset(&p.scratch);
    free(p.keys);
    free(p.slots);
    if (rc != SQE_OK) {
        toml_doc_destroy(doc);
        return rc;
    }
    *out = doc;
    return SQE_OK;
}

void toml_doc_destroy(toml_doc *doc) {
    if (!doc) return;
    arena_destroy(&doc->arena);
    free(doc);
}

const toml_value *toml_table_get(const toml_value *t, const char *key) {
    if (!t || t->type != TOML_TABLE || !key) return NULL;
    size_t len = strlen(key);
    for (size_t i = 0; i < t->u.table.n; i++) {
        const toml_kv *kv = &t->u.table.items[i];
        if (kv->key_len == len && memcmp(kv->key, key, len) == 0) return kv->value;
    }
    return NULL;
}

const toml_kv *toml_table_at(const toml_value *t, size_t i) {
    if (!t || t->type != TOML_TABLE || i >= t->u.table.n) return NULL;
    return &t->u.table.items[i];
}

size_t toml_table_count(const toml_value *t) {
    return t && t->type == TOML_TABLE ? t->u.table.n : 0;
}

const toml_value *toml_array_at(const toml_value *a, size_t i) {
    if (!a || a->type != TOML_ARRAY || i >= a->u.array.n) return NULL;
    return a->u.array.items[i];
}

size_t toml_array_count(const toml_value *a) {
    return a && a->type == TOML_ARRAY ? a->u.array.n : 0;
}

const char *toml_type_name(toml_type type) {
    switch (type) {
    case TOML_TABLE: return "table";
    case TOML_ARRAY: return "array";
    case TOML_STRING: return "string";
    case TOML_INTEGER: return "integer";
    case TOML_FLOAT: return "float";
    case TOML_BOOL: return "bool";
    case TOML_DATETIME: return "datetime";
    case TOML_DATETIME_LOCAL: return "datetime-local";
    case TOML_DATE_LOCAL: return "date-local";
    case TOML_TIME_LOCAL: return "time-local";
    }
    return "unknown";
}

char *toml_datetime_format(toml_type type, const toml_datetime *dt, char *buf, size_t buf_len) {
    char date[32] = "", time[48] = "", off[32] = "";
    if (type != TOML_TIME_LOCAL)
        snprintf(date, sizeof date, "%04d-%02d-%02d", dt->year, dt->month, dt->day);
    if (type != TOML_DATE_LOCAL) {
        int n = snprintf(time, sizeof time, "%02d:%02d:%02d", dt->hour, dt->minute, dt->second);
        if (dt->nanosecond > 0 && n > 0) {
            char frac[16];
            snprintf(frac, sizeof frac, ".%09d", dt->nanosecond);
            size_t fl = strlen(frac);
            while (fl > 1 && frac[fl - 1] == '0') frac[--fl] = 0;
            snprintf(time + n, sizeof time - (size_t)n, "%s", frac);
        }
    }
    if (type == TOML_DATETIME) {
        int m = dt->offset_minutes;
        if (m == 0)
            snprintf(off, sizeof off, "Z");
        else
            snprintf(off, sizeof off, "%c%02d:%02d", m < 0 ? '-' : '+', abs(m) / 60, abs(m) % 60);
    }
    snprintf(buf, buf_len, "%s%s%s%s", date,
             (type == TOML_DATETIME || type == TOML_DATETIME_LOCAL) ? "T" : "", time, off);
    return buf;
}

void toml_quote_append(strbuf *sb, const char *s, size_t len) {
    strbuf_putc(sb, '"');
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '"': strbuf_puts(sb, "\\\""); break;
        case '\\': strbuf_puts(sb, "\\\\"); break;
        case '\n': strbuf_puts(sb, "\\n"); break;
        case '\t': strbuf_puts(sb, "\\t"); break;
        case '\r': strbuf_puts(sb, "\\r"); break;
        case '\b': strbuf_puts(sb, "\\b"); break;
        case '\f': strbuf_puts(sb, "\\f"); break;
        default:
            if (c < 0x20 || c == 0x7f)
                strbuf_printf(sb, "\\u%04X", c);
            else
                strbuf_putc(sb, (char)c);
        }
    }
    strbuf_putc(sb, '"');
}

void toml_key_append(strbuf *sb, const char *key, size_t len) {
    int bare = len > 0;
    for (size_t i = 0; i < len && bare; i++) bare = is_bare((unsigned char)key[i]);
    if (bare)
        strbuf_append(sb, key, len);
    else
        toml_quote_append(sb, key, len);
}
