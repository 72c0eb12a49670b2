/*
 * types.h: SQE's logical types (DESIGN.md §5) and their physical layout in vectors.
 *
 * A sqe_type is a small value (pass it by value). Nested types (array, map, row) point to an
 * interned, immutable description that lives for the whole process, so types can be copied and
 * compared freely. Semantics follow Trino: see types/README.md for the coercion rules.
 *
 * Physical layout of one value in a flat vector (vec.h):
 *   BOOLEAN      uint8 (0/1)          TINYINT int8   SMALLINT int16   INTEGER int32   BIGINT int64
 *   REAL         float                DOUBLE double
 *   DECIMAL      int64 if precision <= 18, else int128 (two's complement); the unscaled value
 *   VARCHAR, CHAR, VARBINARY, JSON    sqe_str (16-byte string view)
 *   DATE         int32 days since 1970-01-01
 *   TIME         int64 microseconds since midnight
 *   TIMESTAMP    int64 microseconds since 1970-01-01 00:00:00 (no zone)
 *   TIMESTAMP_TZ sqe_timestamp_tz: int64 UTC microseconds + the zone key of the value
 *   INTERVAL_DS  int64 microseconds      INTERVAL_YM int32 months
 *   UUID         16 bytes, big-endian as written in text
 *   ARRAY, MAP   sqe_list_entry {offset, length} into the child vector(s)
 *   ROW          no data of its own; one child vector per field
 */
#ifndef SQE_TYPES_TYPES_H
#define SQE_TYPES_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef __int128 int128;

typedef enum type_id {
    TYPE_UNKNOWN = 0, /* the type of a bare NULL literal; coerces to anything */
    TYPE_BOOLEAN,
    TYPE_TINYINT,
    TYPE_SMALLINT,
    TYPE_INTEGER,
    TYPE_BIGINT,
    TYPE_REAL,
    TYPE_DOUBLE,
    TYPE_DECIMAL,
    TYPE_VARCHAR,
    TYPE_CHAR,
    TYPE_VARBINARY,
    TYPE_JSON,
    TYPE_DATE,
    TYPE_TIME,
    TYPE_TIMESTAMP,
    TYPE_TIMESTAMP_TZ,
    TYPE_INTERVAL_DS,
    TYPE_INTERVAL_YM,
    TYPE_UUID,
    TYPE_ARRAY,
    TYPE_MAP,
    TYPE_ROW,
    TYPE_COUNT_
} type_id;

typedef struct type_nested type_nested;

typedef struct sqe_type {
    uint8_t id;        /* type_id */
    uint8_t precision; /* DECIMAL: 1..38; TIME/TIMESTAMP(_TZ): fractional digits 0..6 */
    uint8_t scale;     /* DECIMAL: 0..precision */
    uint32_t length;   /* VARCHAR(n)/CHAR(n): n; 0 = unbounded varchar */
    const type_nested *nested; /* ARRAY/MAP/ROW only; interned, never freed */
} sqe_type;

/* Children of a nested type. ARRAY: 1 child (element). MAP: 2 (key, value). ROW: n fields, each
 * with an optional name (NULL for anonymous fields). */
struct type_nested {
    uint32_t n_children;
    const sqe_type *children;
    const char *const *names;
};

/* 16-byte string view (Arrow Utf8View-like, with a pointer instead of buffer index/offset).
 * Strings of at most 12 bytes are stored inline; longer ones keep a 4-byte prefix and a pointer
 * to all their bytes, which belong to whoever produced the vector (see vec.h lifetimes). */
typedef struct sqe_str {
    uint32_t len;
    char prefix[4];
    union {
        char inlined[8];
        const char *ptr;
    } u;
} sqe_str;

#define SQE_STR_INLINE 12

/* Pointer to the bytes of s (inside s itself when inline). */
static inline const char *sqe_str_data(const sqe_str *s) {
    return s->len <= SQE_STR_INLINE ? s->prefix : s->u.ptr;
}

/* Makes a view of len bytes at p; for len > 12 the view points at p, which must outlive it. */
static inline sqe_str sqe_str_make(const char *p, uint32_t len) {
    sqe_str s;
    memset(&s, 0, sizeof s);
    s.len = len;
    if (len <= SQE_STR_INLINE) {
        if (len) memcpy(s.prefix, p, len);
    } else {
        memcpy(s.prefix, p, 4);
        s.u.ptr = p;
    }
    return s;
}

static inline bool sqe_str_equal(const sqe_str *a, const sqe_str *b) {
    if (a->len != b->len) return false;
    if (memcmp(a->prefix, b->prefix, 4) != 0) return false;
    if (a->len <= SQE_STR_INLINE) return memcmp(a->u.inlined, b->u.inlined, 8) == 0;
    return memcmp(a->u.ptr, b->u.ptr, a->len) == 0;
}

/* memcmp order (byte-wise, shorter first on ties): Trino's varchar order. The 4-byte prefix
 * stored in the view (zero-padded for shorter strings) decides most comparisons without
 * following the pointer. */
static inline int sqe_str_compare(const sqe_str *a, const sqe_str *b) {
    uint32_t pa, pb;
    memcpy(&pa, a->prefix, 4);
    memcpy(&pb, b->prefix, 4);
    if (pa != pb) {
        pa = __builtin_bswap32(pa);
        pb = __builtin_bswap32(pb);
        uint32_t n = a->len < b->len ? a->len : b->len;
        if (n >= 4) return pa < pb ? -1 : 1;
        /* A short string's padding is not data: compare only the common bytes. */
        uint32_t shift = 8 * (4 - n);
        uint32_t ma = n ? pa >> shift : 0, mb = n ? pb >> shift : 0;
        if (ma != mb) return ma < mb ? -1 : 1;
        return a->len < b->len ? -1 : a->len > b->len;
    }
    uint32_t n = a->len < b->len ? a->len : b->len;
    int c = n > 4 ? memcmp(sqe_str_data(a) + 4, sqe_str_data(b) + 4, n - 4) : 0;
    if (c) return c;
    return a->len < b->len ? -1 : a->len > b->len;
}

typedef struct sqe_timestamp_tz {
    int64_t micros; /* UTC */
    int32_t zone;   /* zone key: see tz.h (0 = UTC; offsets and IANA names are interned keys) */
    int32_t pad_;
} sqe_timestamp_tz;

typedef struct sqe_list_entry {
    uint32_t offset;
    uint32_t length;
} sqe_list_entry;

/* Constructors. */
static inline sqe_type type_make(type_id id) {
    sqe_type t;
    memset(&t, 0, sizeof t);
    t.id = (uint8_t)id;
    if (id == TYPE_TIMESTAMP || id == TYPE_TIMESTAMP_TZ || id == TYPE_TIME) t.precision = 6;
    return t;
}
sqe_type type_decimal(int precision, int scale);
sqe_type type_varchar(uint32_t length);         /* 0 = unbounded */
sqe_type type_char(uint32_t length);
sqe_type type_with_precision(type_id id, int precision); /* time/timestamp(_tz)(p) */
/* Interned nested types (thread-safe). Return TYPE_UNKNOWN only on out-of-memory. */
sqe_type type_array(sqe_type element);
sqe_type type_map(sqe_type key, sqe_type value);
sqe_type type_row(uint32_t n, const sqe_type *fields, const char *const *names);

/* Physical value width in a flat vector (0 for ROW). */
size_t type_physical_size(sqe_type t);
/* Equality of complete types (including parameters and children). */
bool type_equal(sqe_type a, sqe_type b);

static inline bool type_is_integer(sqe_type t) {
    return t.id >= TYPE_TINYINT && t.id <= TYPE_BIGINT;
}
static inline bool type_is_numeric(sqe_type t) {
    return t.id >= TYPE_TINYINT && t.id <= TYPE_DECIMAL;
}
static inline bool type_is_string(sqe_type t) {
    return t.id == TYPE_VARCHAR || t.id == TYPE_CHAR;
}
static inline bool type_is_string_view(sqe_type t) {
    return t.id == TYPE_VARCHAR || t.id == TYPE_CHAR || t.id == TYPE_VARBINARY || t.id == TYPE_JSON;
}
static inline bool type_is_nested(sqe_type t) {
    return t.id == TYPE_ARRAY || t.id == TYPE_MAP || t.id == TYPE_ROW;
}
static inline bool type_decimal_is_long(sqe_type t) { return t.precision > 18; }

/* Orderable / comparable for equality per Trino. */
bool type_is_orderable(sqe_type t);
bool type_is_comparable(sqe_type t);

/* Writes Trino's spelling ("decimal(12,2)", "array(row(a bigint, b varchar))",
 * "timestamp(3) with time zone") into buf; returns the length needed (like snprintf). */
size_t type_format(sqe_type t, char *buf, size_t buf_len);
/* Parses a type name in SQL syntax (as in CAST(x AS <type>)); names are case-insensitive and
 * accept Trino's aliases (int, double precision, ...). Returns 0 on success, -1 if invalid. */
int type_parse(const char *text, size_t len, sqe_type *out);

/* Implicit coercion (Trino rules): can a value of type `from` be used where `to` is expected
 * without an explicit cast? */
bool type_can_coerce(sqe_type from, sqe_type to);
/* The common super type of a and b (for CASE, UNION, IN, comparisons, COALESCE), if any.
 * Returns false when there is none. */
bool type_common_super(sqe_type a, sqe_type b, sqe_type *out);
/* Can `from` be cast to `to` explicitly? */
bool type_can_cast(sqe_type from, sqe_type to);

#endif
