/*
 * toml.h: a TOML 1.0.0 reader (https://toml.io/en/v1.0.0) that parses a whole document into a
 * read-only tree.
 *
 * The tree lives in one arena owned by the toml_doc; every node, key and string is freed by
 * toml_doc_destroy. Tables keep their keys in document order. Strings are UTF-8 with an
 * explicit length (a quoted key or a string may contain "\u0000"), and are also NUL-terminated.
 * Newlines inside multi-line strings are normalized to "\n". Fractional seconds are kept to the
 * nanosecond (extra digits are truncated). Integers are range-checked int64; out-of-range values
 * are errors.
 *
 * Errors: toml_parse returns SQE_ERR_SYNTAX_ERROR (or OUT_OF_MEMORY) with err->line and
 * err->column set (1-based; the column counts UTF-8 characters) and a message that does not
 * repeat the position, so callers can prefix it with a file name ("sqe.toml:3:7: ...").
 */
#ifndef SQE_COMMON_TOML_H
#define SQE_COMMON_TOML_H

#include <stddef.h>
#include <stdint.h>

#include "common/arena.h"
#include "common/strbuf.h"
#include "sqe/sqe.h"

typedef enum toml_type {
    TOML_TABLE = 1, /* [table], [[array]] element, inline table, dotted-key table */
    TOML_ARRAY,     /* [ ... ] or an array of tables */
    TOML_STRING,
    TOML_INTEGER,
    TOML_FLOAT,
    TOML_BOOL,
    TOML_DATETIME,       /* offset date-time: 1979-05-27T07:32:00Z */
    TOML_DATETIME_LOCAL, /* 1979-05-27T07:32:00 */
    TOML_DATE_LOCAL,     /* 1979-05-27 */
    TOML_TIME_LOCAL,     /* 07:32:00 */
} toml_type;

/* Date and time parts; fields that the type does not have are zero. */
typedef struct toml_datetime {
    int year, month, day;
    int hour, minute, second;
    int nanosecond;     /* 0..999999999 */
    int offset_minutes; /* TOML_DATETIME only: UTC offset, "Z" and "-00:00" are 0 */
} toml_datetime;

typedef struct toml_value toml_value;

/* One key of a table, in document order. */
typedef struct toml_kv {
    const char *key; /* NUL-terminated; may contain NULs, use key_len */
    size_t key_len;
    toml_value *value;
} toml_kv;

struct toml_value {
    toml_type type;
    int line, column; /* where the value (or table header) starts */
    union {
        struct {
            const char *ptr; /* NUL-terminated UTF-8 */
            size_t len;
        } str;
        int64_t integer;
        double flt;
        int boolean;
        toml_datetime dt;
        struct {
            toml_kv *items;
            size_t n, cap;
        } table;
        struct {
            toml_value **items;
            size_t n, cap;
        } array;
    } u;
    /* Parser bookkeeping (redefinition rules of TOML 1.0 §Table); not meaningful to readers. */
    unsigned char header_defined; /* defined by [header] or an [[array]] element */
    unsigned char frozen;         /* inline table or static array: immutable */
    unsigned char aot;            /* array created by [[...]] */
    int dotted_section;           /* section in which dotted keys created it; 0 = none */
};

typedef struct toml_doc {
    arena arena;
    toml_value *root; /* TOML_TABLE */
} toml_doc;

/* Parses text[0..len) (UTF-8; need not be NUL-terminated). On success *out is a new document
 * the caller frees with toml_doc_destroy. On error *out is NULL and err (if non-NULL) holds the
 * code, line, column and message. Never reads outside text; depth of nested arrays and inline
 * tables is limited (TOML_MAX_DEPTH) so hostile input cannot exhaust the stack. */
#define TOML_MAX_DEPTH 128
int toml_parse(const char *text, size_t len, toml_doc **out, sqe_error *err);

/* Frees the document and all its nodes; NULL is ignored. */
void toml_doc_destroy(toml_doc *doc);

/* Lookups (NULL when t is not a table, the key is missing or i is out of range). Linear in the
 * table size. The returned pointers live as long as the document. */
const toml_value *toml_table_get(const toml_value *t, const char *key);
const toml_kv *toml_table_at(const toml_value *t, size_t i);
size_t toml_table_count(const toml_value *t); /* 0 when t is not a table */
const toml_value *toml_array_at(const toml_value *a, size_t i);
size_t toml_array_count(const toml_value *a); /* 0 when a is not an array */

/* "table", "array", "string", "integer", "float", "bool", "datetime", "datetime-local",
 * "date-local", "time-local" (toml-test names). */
const char *toml_type_name(toml_type type);

/* Writes dt in RFC 3339 form for its type into buf (at least 40 bytes): fractional seconds are
 * printed only when non-zero, with trailing zeros removed; offsets as "Z" when zero, else
 * "+HH:MM". Returns buf. */
char *toml_datetime_format(toml_type type, const toml_datetime *dt, char *buf, size_t buf_len);

/* Appends s[0..len) to sb as a TOML basic string ("...", control characters, quotes and
 * backslashes escaped); used by writers of TOML (config show). */
void toml_quote_append(strbuf *sb, const char *s, size_t len);
/* Appends a key: bare when it is non-empty and only A-Za-z0-9_-, else quoted. */
void toml_key_append(strbuf *sb, const char *key, size_t len);

#endif
