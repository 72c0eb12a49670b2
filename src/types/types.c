/*
 * types.c: SQE's logical types: constructors, interning of nested types, layout, Trino names,
 * the type parser and Trino's coercion and cast rules (see types.h and types/README.md).
 *
 * INTERFACE: type_decimal, type_varchar, type_char, type_with_precision, type_array, type_map,
 *   type_row, type_physical_size, type_equal, type_is_orderable, type_is_comparable,
 *   type_format, type_parse, type_can_coerce, type_common_super, type_can_cast.
 * NOTES: nested descriptions are interned in a process-wide hash table under a mutex, keyed by
 * structure (kind, children, field names). Children are themselves interned, so structural
 * equality of a new description is a shallow comparison and type_equal on nested types is a
 * pointer comparison. Entries are never freed (they stay reachable from the table, so leak
 * checkers are quiet). The coercion code follows io.trino.type.TypeCoercion: compatibility()
 * computes the common super type and whether it equals the target (coercible).
 */
#include "types/types.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"

#define CHAR_MAX_LENGTH 65536u
#define VARCHAR_MAX_LENGTH 2147483646u
#define TYPE_PARSE_MAX_DEPTH 64
#define ROW_MAX_FIELDS 10000u

/* --- Constructors ------------------------------------------------------------------------ */

sqe_type type_decimal(int precision, int scale) {
    if (precision < 1) precision = 1;
    if (precision > 38) precision = 38;
    if (scale < 0) scale = 0;
    if (scale > precision) scale = precision;
    sqe_type t = type_make(TYPE_DECIMAL);
    t.precision = (uint8_t)precision;
    t.scale = (uint8_t)scale;
    return t;
}

sqe_type type_varchar(uint32_t length) {
    sqe_type t = type_make(TYPE_VARCHAR);
    t.length = length;
    return t;
}

sqe_type type_char(uint32_t length) {
    sqe_type t = type_make(TYPE_CHAR);
    t.length = length ? length : 1;
    return t;
}

sqe_type type_with_precision(type_id id, int precision) {
    sqe_type t = type_make(id);
    if (id != TYPE_TIME && id != TYPE_TIMESTAMP && id != TYPE_TIMESTAMP_TZ) return t;
    if (precision < 0) precision = 0;
    if (precision > 6) precision = 6;
    t.precision = (uint8_t)precision;
    return t;
}

/* --- Interning --------------------------------------------------------------------------- */

typedef struct intern_entry {
    type_nested nested; /* first member: &entry->nested is the public pointer */
    uint8_t id;
    uint64_t hash;
    struct intern_entry *next;
} intern_entry;

#define INTERN_BUCKETS 1024
static intern_entry *intern_table[INTERN_BUCKETS];
static pthread_mutex_t intern_lock = PTHREAD_MUTEX_INITIALIZER;

/* Hash of a complete type; nested children hash by their (interned) description pointer. */
static uint64_t type_hash(sqe_type t) {
    uint64_t h = hash_u64(t.id);
    switch (t.id) {
    case TYPE_DECIMAL: h = hash_combine(h, (uint64_t)t.precision << 8 | t.scale); break;
    case TYPE_VARCHAR:
    case TYPE_CHAR: h = hash_combine(h, t.length); break;
    case TYPE_TIME:
    case TYPE_TIMESTAMP:
    case TYPE_TIMESTAMP_TZ: h = hash_combine(h, t.precision); break;
    case TYPE_ARRAY:
    case TYPE_MAP:
    case TYPE_ROW: h = hash_combine(h, (uint64_t)(uintptr_t)t.nested); break;
    default: break;
    }
    return h;
}

static bool name_equal(const char *a, const char *b) {
    if (!a || !b) return a == b;
    return strcmp(a, b) == 0;
}

/* Returns the interned description of (id, children, names), or NULL on out-of-memory. */
static const type_nested *intern(uint8_t id, uint32_t n, const sqe_type *children,
                                 const char *const *names) {
    uint64_t h = hash_u64(id ^ ((uint64_t)n << 8));
    for (uint32_t i = 0; i < n; i++) {
        h = hash_combine(h, type_hash(children[i]));
        const char *name = names ? names[i] : NULL;
        h = hash_combine(h, name ? hash_bytes(name, strlen(name)) : 0x5bd1e995u);
    }
    pthread_mutex_lock(&intern_lock);
    intern_entry **bucket = &intern_table[h & (INTERN_BUCKETS - 1)];
    for (intern_entry *e = *bucket; e; e = e->next) {
        if (e->hash != h || e->id != id || e->nested.n_children != n) continue;
        bool same = true;
        for (uint32_t i = 0; same && i < n; i++) {
            same = type_equal(e->nested.children[i], children[i]);
            if (same && e->nested.names)
                same = name_equal(e->nested.names[i], names ? names[i] : NULL);
        }
        if (same) {
            pthread_mutex_unlock(&intern_lock);
            return &e->nested;
        }
    }
    /* One block: entry, children, name pointers, name bytes. */
    bool with_names = id == TYPE_ROW;
    size_t bytes = sizeof(intern_entry) + sizeof(sqe_type) * n;
    if (with_names) bytes += sizeof(char *) * n;
    size_t name_bytes = 0;
    for (uint32_t i = 0; with_names && names && i < n; i++)
        if (names[i]) name_bytes += strlen(names[i]) + 1;
    intern_entry *e = calloc(1, bytes + name_bytes);
    if (!e) {
        pthread_mutex_unlock(&intern_lock);
        return NULL;
    }
    sqe_type *kids = (sqe_type *)(e + 1);
    if (n) memcpy(kids, children, sizeof(sqe_type) * n);
    const char **name_ptrs = NULL;
    if (with_names) {
        name_ptrs = (const char **)(kids + n);
        char *text = (char *)(name_ptrs + n);
        for (uint32_t i = 0; i < n; i++) {
            if (!names || !names[i]) continue;
            size_t len = strlen(names[i]);
            memcpy(text, names[i], len + 1);
            name_ptrs[i] = text;
            text += len + 1;
        }
    }
    e->nested.n_children = n;
    e->nested.children = kids;
    e->nested.names = name_ptrs;
    e->id = id;
    e->hash = h;
    e->next = *bucket;
    *bucket = e;
    pthread_mutex_unlock(&intern_lock);
    return &e->nested;
}

static sqe_type make_nested(type_id id, uint32_t n, const sqe_type *children,
                            const char *const *names) {
    const type_nested *nested = intern((uint8_t)id, n, children, names);
    if (!nested) return type_make(TYPE_UNKNOWN);
    sqe_type t = type_make(id);
    t.nested = nested;
    return t;
}

sqe_type type_array(sqe_type element) { return make_nested(TYPE_ARRAY, 1, &element, NULL); }

sqe_type type_map(sqe_type key, sqe_type value) {
    sqe_type kids[2] = {key, value};
    return make_nested(TYPE_MAP, 2, kids, NULL);
}

sqe_type type_row(uint32_t n, const sqe_type *fields, const char *const *names) {
    return make_nested(TYPE_ROW, n, fields, names);
}

/* --- Layout and equality ----------------------------------------------------------------- */

size_t type_physical_size(sqe_type t) {
    switch ((type_id)t.id) {
    case TYPE_UNKNOWN:
    case TYPE_BOOLEAN:
    case TYPE_TINYINT: return 1;
    case TYPE_SMALLINT: return 2;
    case TYPE_INTEGER:
    case TYPE_REAL:
    case TYPE_DATE:
    case TYPE_INTERVAL_YM: return 4;
    case TYPE_BIGINT:
    case TYPE_DOUBLE:
    case TYPE_TIME:
    case TYPE_TIMESTAMP:
    case TYPE_INTERVAL_DS: return 8;
    case TYPE_DECIMAL: return type_decimal_is_long(t) ? 16 : 8;
    case TYPE_VARCHAR:
    case TYPE_CHAR:
    case TYPE_VARBINARY:
    case TYPE_JSON: return sizeof(sqe_str);
    case TYPE_TIMESTAMP_TZ: return sizeof(sqe_timestamp_tz);
    case TYPE_UUID: return 16;
    case TYPE_ARRAY:
    case TYPE_MAP: return sizeof(sqe_list_entry);
    case TYPE_ROW:
    case TYPE_COUNT_: return 0;
    }
    return 0;
}

bool type_equal(sqe_type a, sqe_type b) {
    if (a.id != b.id) return false;
    switch ((type_id)a.id) {
    case TYPE_DECIMAL: return a.precision == b.precision && a.scale == b.scale;
    case TYPE_VARCHAR:
    case TYPE_CHAR: return a.length == b.length;
    case TYPE_TIME:
    case TYPE_TIMESTAMP:
    case TYPE_TIMESTAMP_TZ: return a.precision == b.precision;
    case TYPE_ARRAY:
    case TYPE_MAP:
    case TYPE_ROW: return a.nested == b.nested;
    default: return true;
    }
}

bool type_is_comparable(sqe_type t) {
    if (!type_is_nested(t)) return true;
    if (!t.nested) return false;
    for (uint32_t i = 0; i < t.nested->n_children; i++)
        if (!type_is_comparable(t.nested->children[i])) return false;
    return true;
}

bool type_is_orderable(sqe_type t) {
    if (t.id == TYPE_JSON || t.id == TYPE_MAP) return false;
    if (!type_is_nested(t)) return true;
    if (!t.nested) return false;
    for (uint32_t i = 0; i < t.nested->n_children; i++)
        if (!type_is_orderable(t.nested->children[i])) return false;
    return true;
}

/* --- Formatting -------------------------------------------------------------------------- */

typedef struct fmt_out {
    char *buf;
    size_t cap;
    size_t len; /* length needed so far (may exceed cap) */
} fmt_out;

static void out_put(fmt_out *o, const char *s, size_t n) {
    if (o->len < o->cap) {
        size_t room = o->cap - o->len;
        memcpy(o->buf + o->len, s, n < room ? n : room);
    }
    o->len += n;
}

static void out_puts(fmt_out *o, const char *s) { out_put(o, s, strlen(s)); }

static void out_printf_u(fmt_out *o, const char *fmt, unsigned a, unsigned b) {
    char tmp[64];
    int n = snprintf(tmp, sizeof tmp, fmt, a, b);
    out_put(o, tmp, (size_t)n);
}

static bool is_plain_identifier(const char *s) {
    if (!s || !*s) return false;
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_')) return false;
    for (const char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '_'))
            return false;
    return true;
}

static void format_into(sqe_type t, fmt_out *o) {
    switch ((type_id)t.id) {
    case TYPE_UNKNOWN: out_puts(o, "unknown"); return;
    case TYPE_BOOLEAN: out_puts(o, "boolean"); return;
    case TYPE_TINYINT: out_puts(o, "tinyint"); return;
    case TYPE_SMALLINT: out_puts(o, "smallint"); return;
    case TYPE_INTEGER: out_puts(o, "integer"); return;
    case TYPE_BIGINT: out_puts(o, "bigint"); return;
    case TYPE_REAL: out_puts(o, "real"); return;
    case TYPE_DOUBLE: out_puts(o, "double"); return;
    case TYPE_DECIMAL: out_printf_u(o, "decimal(%u,%u)", t.precision, t.scale); return;
    case TYPE_VARCHAR:
        if (t.length)
            out_printf_u(o, "varchar(%u)", t.length, 0);
        else
            out_puts(o, "varchar");
        return;
    case TYPE_CHAR: out_printf_u(o, "char(%u)", t.length, 0); return;
    case TYPE_VARBINARY: out_puts(o, "varbinary"); return;
    case TYPE_JSON: out_puts(o, "json"); return;
    case TYPE_DATE: out_puts(o, "date"); return;
    case TYPE_TIME: out_printf_u(o, "time(%u)", t.precision, 0); return;
    case TYPE_TIMESTAMP: out_printf_u(o, "timestamp(%u)", t.precision, 0); return;
    case TYPE_TIMESTAMP_TZ: out_printf_u(o, "timestamp(%u) with time zone", t.precision, 0); return;
    case TYPE_INTERVAL_DS: out_puts(o, "interval day to second"); return;
    case TYPE_INTERVAL_YM: out_puts(o, "interval year to month"); return;
    case TYPE_UUID: out_puts(o, "uuid"); return;
    case TYPE_ARRAY:
    case TYPE_MAP:
    case TYPE_ROW: {
        out_puts(o, t.id == TYPE_ARRAY ? "array(" : t.id == TYPE_MAP ? "map(" : "row(");
        uint32_t n = t.nested ? t.nested->n_children : 0;
        for (uint32_t i = 0; i < n; i++) {
            if (i) out_puts(o, ", ");
            const char *name = t.nested->names ? t.nested->names[i] : NULL;
            if (name) {
                if (is_plain_identifier(name)) {
                    out_puts(o, name);
                } else {
                    out_puts(o, "\"");
                    for (const char *c = name; *c; c++) {
                        out_put(o, c, 1);
                        if (*c == '"') out_put(o, c, 1); /* "" escapes a quote */
                    }
                    out_puts(o, "\"");
                }
                out_puts(o, " ");
            }
            format_into(t.nested->children[i], o);
        }
        out_puts(o, ")");
        return;
    }
    case TYPE_COUNT_: break;
    }
    out_puts(o, "unknown");
}

size_t type_format(sqe_type t, char *buf, size_t buf_len) {
    fmt_out o = {buf, buf_len, 0};
    format_into(t, &o);
    if (buf_len) buf[o.len < buf_len ? o.len : buf_len - 1] = '\0';
    return o.len;
}

/* --- Parsing ----------------------------------------------------------------------------- */

typedef struct type_parser {
    const char *s;
    size_t len;
    size_t pos;
    int depth;
} type_parser;

static bool is_ident_start(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
static bool is_ident_char(char c) { return is_ident_start(c) || (c >= '0' && c <= '9'); }

static void skip_ws(type_parser *p) {
    while (p->pos < p->len && (p->s[p->pos] == ' ' || p->s[p->pos] == '\t' ||
                               p->s[p->pos] == '\n' || p->s[p->pos] == '\r'))
        p->pos++;
}

/* Reads an unquoted identifier; returns its length (0 when none). */
static size_t read_word(type_parser *p, const char **word) {
    skip_ws(p);
    size_t start = p->pos;
    if (start >= p->len || !is_ident_start(p->s[start])) return 0;
    while (p->pos < p->len && is_ident_char(p->s[p->pos])) p->pos++;
    *word = p->s + start;
    return p->pos - start;
}

static bool word_is(const char *w, size_t n, const char *kw) {
    return strlen(kw) == n && strncasecmp(w, kw, n) == 0;
}

static bool accept_kw(type_parser *p, const char *kw) {
    size_t save = p->pos;
    const char *w;
    size_t n = read_word(p, &w);
    if (n && word_is(w, n, kw)) return true;
    p->pos = save;
    return false;
}

static bool accept_char(type_parser *p, char c) {
    skip_ws(p);
    if (p->pos < p->len && p->s[p->pos] == c) {
        p->pos++;
        return true;
    }
    return false;
}

static bool peek_char(type_parser *p, char c) {
    skip_ws(p);
    return p->pos < p->len && p->s[p->pos] == c;
}

static bool read_uint(type_parser *p, uint32_t *out) {
    skip_ws(p);
    uint64_t v = 0;
    size_t start = p->pos;
    while (p->pos < p->len && p->s[p->pos] >= '0' && p->s[p->pos] <= '9') {
        v = v * 10 + (uint64_t)(p->s[p->pos] - '0');
        if (v > UINT32_MAX) return false;
        p->pos++;
    }
    if (p->pos == start) return false;
    *out = (uint32_t)v;
    return true;
}

/* Optional "(n)"; returns false on syntax error, sets *present. */
static bool opt_param(type_parser *p, uint32_t *value, bool *present) {
    *present = false;
    if (!accept_char(p, '(')) return true;
    if (!read_uint(p, value) || !accept_char(p, ')')) return false;
    *present = true;
    return true;
}

/* A field name: identifier or "quoted" identifier (with "" escapes). Returns a malloc'ed
 * string, or NULL when there is none here. */
static char *read_field_name(type_parser *p) {
    skip_ws(p);
    if (p->pos < p->len && p->s[p->pos] == '"') {
        size_t i = p->pos + 1;
        char *name = malloc(p->len - p->pos + 1);
        if (!name) return NULL;
        size_t n = 0;
        for (;;) {
            if (i >= p->len) {
                free(name);
                return NULL;
            }
            if (p->s[i] == '"') {
                if (i + 1 < p->len && p->s[i + 1] == '"') {
                    name[n++] = '"';
                    i += 2;
                    continue;
                }
                i++;
                break;
            }
            name[n++] = p->s[i++];
        }
        name[n] = '\0';
        p->pos = i;
        return name;
    }
    const char *w;
    size_t n = read_word(p, &w);
    if (!n) return NULL;
    char *name = malloc(n + 1);
    if (!name) return NULL;
    memcpy(name, w, n);
    name[n] = '\0';
    return name;
}

static int parse_type(type_parser *p, sqe_type *out);

static int parse_row(type_parser *p, sqe_type *out) {
    if (!accept_char(p, '(')) return -1;
    uint32_t cap = 8, n = 0;
    sqe_type *fields = malloc(sizeof(sqe_type) * cap);
    char **names = malloc(sizeof(char *) * cap);
    int rc = -1;
    if (!fields || !names) goto out_free;
    for (;;) {
        if (n == cap) {
            if (cap >= ROW_MAX_FIELDS) goto out_free;
            cap *= 2;
            sqe_type *nf = realloc(fields, sizeof(sqe_type) * cap);
            if (nf) fields = nf;
            char **nn = realloc(names, sizeof(char *) * cap);
            if (nn) names = nn;
            if (!nf || !nn) goto out_free;
        }
        /* Try "name type", then an anonymous "type". */
        size_t save = p->pos;
        char *name = read_field_name(p);
        sqe_type ft;
        if (name && parse_type(p, &ft) == 0 && (peek_char(p, ',') || peek_char(p, ')'))) {
            names[n] = name;
            fields[n++] = ft;
        } else {
            free(name);
            p->pos = save;
            if (parse_type(p, &ft) != 0) goto out_free;
            names[n] = NULL;
            fields[n++] = ft;
        }
        if (accept_char(p, ',')) continue;
        if (accept_char(p, ')')) break;
        goto out_free;
    }
    *out = type_row(n, fields, (const char *const *)names);
    rc = out->id == TYPE_ROW ? 0 : -1;
out_free:
    for (uint32_t i = 0; names && i < n; i++) free(names[i]);
    free(names);
    free(fields);
    return rc;
}

static int parse_base(type_parser *p, sqe_type *out) {
    const char *w;
    size_t n = read_word(p, &w);
    if (!n) return -1;
    uint32_t a = 0, b = 0;
    bool present;
    if (word_is(w, n, "row")) return parse_row(p, out);
    if (word_is(w, n, "array")) {
        char close = accept_char(p, '<') ? '>' : accept_char(p, '(') ? ')' : 0;
        sqe_type elem;
        if (!close || parse_type(p, &elem) != 0 || !accept_char(p, close)) return -1;
        *out = type_array(elem);
        return out->id == TYPE_ARRAY ? 0 : -1;
    }
    if (word_is(w, n, "map")) {
        char close = accept_char(p, '<') ? '>' : accept_char(p, '(') ? ')' : 0;
        sqe_type k, v;
        if (!close || parse_type(p, &k) != 0 || !accept_char(p, ',') || parse_type(p, &v) != 0 ||
            !accept_char(p, close))
            return -1;
        *out = type_map(k, v);
        return out->id == TYPE_MAP ? 0 : -1;
    }
    if (word_is(w, n, "interval")) {
        if (accept_kw(p, "year") && accept_kw(p, "to") && accept_kw(p, "month")) {
            *out = type_make(TYPE_INTERVAL_YM);
            return 0;
        }
        if (accept_kw(p, "day") && accept_kw(p, "to") && accept_kw(p, "second")) {
            *out = type_make(TYPE_INTERVAL_DS);
            return 0;
        }
        return -1;
    }
    if (word_is(w, n, "timestamp") || word_is(w, n, "time")) {
        bool is_time = n == 4;
        if (!opt_param(p, &a, &present)) return -1;
        if (!present) a = 3;
        if (a > 6) return -1;
        type_id id = is_time ? TYPE_TIME : TYPE_TIMESTAMP;
        size_t save = p->pos;
        if (accept_kw(p, "with")) {
            if (is_time || !accept_kw(p, "time") || !accept_kw(p, "zone")) return -1;
            id = TYPE_TIMESTAMP_TZ;
        } else if (accept_kw(p, "without")) {
            if (!accept_kw(p, "time") || !accept_kw(p, "zone")) return -1;
        } else {
            p->pos = save;
        }
        *out = type_with_precision(id, (int)a);
        return 0;
    }
    if (word_is(w, n, "double")) {
        accept_kw(p, "precision");
        *out = type_make(TYPE_DOUBLE);
        return 0;
    }
    if (word_is(w, n, "decimal")) {
        a = 38;
        if (accept_char(p, '(')) {
            if (!read_uint(p, &a)) return -1;
            if (accept_char(p, ',') && !read_uint(p, &b)) return -1;
            if (!accept_char(p, ')')) return -1;
        }
        if (a < 1 || a > 38 || b > a) return -1;
        *out = type_decimal((int)a, (int)b);
        return 0;
    }
    if (word_is(w, n, "varchar")) {
        if (!opt_param(p, &a, &present)) return -1;
        if (present && (a < 1 || a > VARCHAR_MAX_LENGTH)) return -1;
        *out = type_varchar(present ? a : 0);
        return 0;
    }
    if (word_is(w, n, "char")) {
        if (!opt_param(p, &a, &present)) return -1;
        if (!present) a = 1;
        if (a < 1 || a > CHAR_MAX_LENGTH) return -1;
        *out = type_char(a);
        return 0;
    }
    static const struct {
        const char *name;
        type_id id;
    } simple[] = {
        {"boolean", TYPE_BOOLEAN}, {"tinyint", TYPE_TINYINT},     {"smallint", TYPE_SMALLINT},
        {"integer", TYPE_INTEGER}, {"int", TYPE_INTEGER},         {"bigint", TYPE_BIGINT},
        {"real", TYPE_REAL},       {"float", TYPE_REAL},          {"varbinary", TYPE_VARBINARY},
        {"json", TYPE_JSON},       {"date", TYPE_DATE},           {"uuid", TYPE_UUID},
        {"unknown", TYPE_UNKNOWN},
    };
    for (size_t i = 0; i < sizeof simple / sizeof simple[0]; i++) {
        if (word_is(w, n, simple[i].name)) {
            *out = type_make(simple[i].id);
            return 0;
        }
    }
    return -1;
}

static int parse_type(type_parser *p, sqe_type *out) {
    if (++p->depth > TYPE_PARSE_MAX_DEPTH) return -1;
    int rc = parse_base(p, out);
    /* Postfix "T ARRAY" / "T ARRAY[n]". */
    while (rc == 0 && accept_kw(p, "array")) {
        uint32_t ignored;
        if (accept_char(p, '[') && (!read_uint(p, &ignored) || !accept_char(p, ']'))) rc = -1;
        if (rc == 0) {
            *out = type_array(*out);
            if (out->id != TYPE_ARRAY) rc = -1;
        }
    }
    p->depth--;
    return rc;
}

int type_parse(const char *text, size_t len, sqe_type *out) {
    if (!text) return -1;
    type_parser p = {text, len, 0, 0};
    sqe_type t;
    if (parse_type(&p, &t) != 0) return -1;
    skip_ws(&p);
    if (p.pos != p.len) return -1;
    *out = t;
    return 0;
}

/* --- Coercion (io.trino.type.TypeCoercion) ----------------------------------------------- */

/* Trino's coerceTypeBase: the type `from` becomes when implicitly converted to the type family
 * to_id (a different family). Returns false when there is no such coercion. */
static bool coerce_base(sqe_type from, uint8_t to_id, sqe_type *out) {
    switch ((type_id)from.id) {
    case TYPE_UNKNOWN:
        if (type_is_nested(type_make((type_id)to_id))) return false;
        switch (to_id) {
        case TYPE_VARCHAR: *out = type_varchar(0); return true;
        case TYPE_CHAR: *out = type_char(1); return true;
        case TYPE_DECIMAL: *out = type_decimal(1, 0); return true;
        case TYPE_TIME:
        case TYPE_TIMESTAMP:
        case TYPE_TIMESTAMP_TZ: *out = type_with_precision((type_id)to_id, 3); return true;
        default: *out = type_make((type_id)to_id); return true;
        }
    case TYPE_TINYINT:
    case TYPE_SMALLINT:
    case TYPE_INTEGER:
    case TYPE_BIGINT:
        if (to_id > from.id && to_id <= TYPE_DOUBLE) {
            *out = type_make((type_id)to_id);
            return true;
        }
        if (to_id == TYPE_DECIMAL) {
            static const int digits[] = {3, 5, 10, 19};
            *out = type_decimal(digits[from.id - TYPE_TINYINT], 0);
            return true;
        }
        return false;
    case TYPE_DECIMAL:
        if (to_id == TYPE_REAL || to_id == TYPE_DOUBLE) {
            *out = type_make((type_id)to_id);
            return true;
        }
        return false;
    case TYPE_REAL:
        if (to_id == TYPE_DOUBLE) {
            *out = type_make(TYPE_DOUBLE);
            return true;
        }
        return false;
    case TYPE_DATE:
        if (to_id == TYPE_TIMESTAMP || to_id == TYPE_TIMESTAMP_TZ) {
            *out = type_with_precision((type_id)to_id, 0);
            return true;
        }
        return false;
    case TYPE_TIMESTAMP:
        if (to_id == TYPE_TIMESTAMP_TZ) {
            *out = type_with_precision(TYPE_TIMESTAMP_TZ, from.precision);
            return true;
        }
        return false;
    case TYPE_VARCHAR:
        if (to_id == TYPE_CHAR) {
            *out = type_char(from.length ? from.length : CHAR_MAX_LENGTH);
            return true;
        }
        return false;
    default: return false;
    }
}

/* Trino's compatibility(from, to): the common super type and whether it equals `to`. */
static bool compat(sqe_type from, sqe_type to, sqe_type *super, bool *coercible) {
    if (type_equal(from, to) || from.id == TYPE_UNKNOWN) {
        *super = to;
        *coercible = true;
        return true;
    }
    if (to.id == TYPE_UNKNOWN) {
        *super = from;
        *coercible = false;
        return true;
    }
    if (from.id == to.id) {
        switch ((type_id)from.id) {
        case TYPE_DECIMAL: {
            int scale = from.scale > to.scale ? from.scale : to.scale;
            int ia = from.precision - from.scale, ib = to.precision - to.scale;
            int precision = (ia > ib ? ia : ib) + scale;
            *super = type_decimal(precision > 38 ? 38 : precision, scale);
            break;
        }
        case TYPE_VARCHAR:
            *super = (from.length == 0 || to.length == 0)
                         ? type_varchar(0)
                         : type_varchar(from.length > to.length ? from.length : to.length);
            break;
        case TYPE_CHAR: *super = type_char(from.length > to.length ? from.length : to.length); break;
        case TYPE_TIME:
        case TYPE_TIMESTAMP:
        case TYPE_TIMESTAMP_TZ:
            *super = type_with_precision((type_id)from.id, from.precision > to.precision
                                                                 ? from.precision
                                                                 : to.precision);
            break;
        case TYPE_ARRAY:
        case TYPE_MAP:
        case TYPE_ROW: {
            if (!from.nested || !to.nested) return false;
            uint32_t n = from.nested->n_children;
            if (n != to.nested->n_children) return false;
            sqe_type kids_stack[8];
            const char *names_stack[8];
            sqe_type *kids = n <= 8 ? kids_stack : malloc(sizeof(sqe_type) * n);
            const char **names = n <= 8 ? names_stack : malloc(sizeof(char *) * n);
            bool ok = kids && names, all = true;
            for (uint32_t i = 0; ok && i < n; i++) {
                bool co = false;
                ok = compat(from.nested->children[i], to.nested->children[i], &kids[i], &co);
                all &= co;
                const char *fa = from.nested->names ? from.nested->names[i] : NULL;
                const char *fb = to.nested->names ? to.nested->names[i] : NULL;
                names[i] = name_equal(fa, fb) ? fa : NULL;
            }
            if (ok) *super = make_nested((type_id)from.id, n, kids, names);
            if (kids != kids_stack) free(kids);
            if (names != names_stack) free(names);
            if (!ok || super->id != from.id) return false;
            /* Field names do not matter for coercibility. */
            *coercible = all;
            return true;
        }
        default: return false;
        }
        *coercible = type_equal(*super, to);
        return true;
    }
    sqe_type c;
    if (coerce_base(from, to.id, &c)) return compat(c, to, super, coercible);
    if (coerce_base(to, from.id, &c)) {
        bool ignored;
        if (!compat(from, c, super, &ignored)) return false;
        *coercible = false;
        return true;
    }
    return false;
}

bool type_can_coerce(sqe_type from, sqe_type to) {
    sqe_type super;
    bool coercible;
    return compat(from, to, &super, &coercible) && coercible;
}

bool type_common_super(sqe_type a, sqe_type b, sqe_type *out) {
    sqe_type super;
    bool coercible;
    if (!compat(a, b, &super, &coercible)) return false;
    if (out) *out = super;
    return true;
}

/* --- Explicit casts ---------------------------------------------------------------------- */

static bool is_number_or_bool(uint8_t id) { return id >= TYPE_BOOLEAN && id <= TYPE_DECIMAL; }

/* Types whose values can be written as JSON by CAST(x AS JSON). */
static bool can_cast_to_json(sqe_type t) {
    if (is_number_or_bool(t.id)) return true;
    switch ((type_id)t.id) {
    case TYPE_UNKNOWN:
    case TYPE_VARCHAR:
    case TYPE_JSON:
    case TYPE_DATE:
    case TYPE_TIMESTAMP: return true;
    case TYPE_ARRAY: return t.nested && can_cast_to_json(t.nested->children[0]);
    case TYPE_MAP: {
        if (!t.nested) return false;
        sqe_type k = t.nested->children[0];
        return (is_number_or_bool(k.id) || k.id == TYPE_VARCHAR) &&
               can_cast_to_json(t.nested->children[1]);
    }
    case TYPE_ROW:
        if (!t.nested) return false;
        for (uint32_t i = 0; i < t.nested->n_children; i++)
            if (!can_cast_to_json(t.nested->children[i])) return false;
        return true;
    default: return false;
    }
}

/* Types CAST(json AS T) can produce. */
static bool can_cast_from_json(sqe_type t) {
    if (is_number_or_bool(t.id)) return true;
    switch ((type_id)t.id) {
    case TYPE_VARCHAR:
    case TYPE_JSON: return true;
    case TYPE_ARRAY: return t.nested && can_cast_from_json(t.nested->children[0]);
    case TYPE_MAP: {
        if (!t.nested) return false;
        sqe_type k = t.nested->children[0];
        return (is_number_or_bool(k.id) || k.id == TYPE_VARCHAR) &&
               can_cast_from_json(t.nested->children[1]);
    }
    case TYPE_ROW:
        if (!t.nested) return false;
        for (uint32_t i = 0; i < t.nested->n_children; i++)
            if (!can_cast_from_json(t.nested->children[i])) return false;
        return true;
    default: return false;
    }
}

bool type_can_cast(sqe_type from, sqe_type to) {
    uint8_t f = from.id, t = to.id;
    if (f == TYPE_UNKNOWN) return true;
    if (t == TYPE_UNKNOWN || f >= TYPE_COUNT_ || t >= TYPE_COUNT_) return false;
    if (f == t) {
        if (!type_is_nested(from)) return true;
        if (!from.nested || !to.nested) return false;
        uint32_t n = from.nested->n_children;
        if (n != to.nested->n_children) return false;
        for (uint32_t i = 0; i < n; i++)
            if (!type_can_cast(from.nested->children[i], to.nested->children[i])) return false;
        return true;
    }
    if (is_number_or_bool(f) && is_number_or_bool(t)) return true;
    if (t == TYPE_JSON) return can_cast_to_json(from);
    if (f == TYPE_JSON) return can_cast_from_json(to);
    switch ((type_id)f) {
    case TYPE_VARCHAR:
        /* Every scalar has a text form that can be read back, except the intervals. */
        return !type_is_nested(to) && t != TYPE_INTERVAL_DS && t != TYPE_INTERVAL_YM;
    case TYPE_CHAR:
        return is_number_or_bool(t) || t == TYPE_VARCHAR || t == TYPE_VARBINARY || t == TYPE_DATE;
    default: break;
    }
    if (t == TYPE_VARCHAR) {
        switch ((type_id)f) {
        case TYPE_BOOLEAN:
        case TYPE_DATE:
        case TYPE_TIME:
        case TYPE_TIMESTAMP:
        case TYPE_TIMESTAMP_TZ:
        case TYPE_INTERVAL_DS:
        case TYPE_INTERVAL_YM:
        case TYPE_UUID: return true;
        default: return is_number_or_bool(f);
        }
    }
    switch ((type_id)f) {
    case TYPE_DATE: return t == TYPE_TIMESTAMP || t == TYPE_TIMESTAMP_TZ;
    case TYPE_TIMESTAMP: return t == TYPE_DATE || t == TYPE_TIMESTAMP_TZ || t == TYPE_TIME;
    case TYPE_TIMESTAMP_TZ: return t == TYPE_DATE || t == TYPE_TIMESTAMP || t == TYPE_TIME;
    case TYPE_UUID: return t == TYPE_VARBINARY;
    case TYPE_VARBINARY: return t == TYPE_UUID;
    default: return false;
    }
}
