/*
 * schema.c: Iceberg types and schemas (Iceberg spec: "Schemas and Data Types", Appendix C
 * "Schemas"): primitive type strings, the mapping between Iceberg types and SQE types, fresh
 * field-id assignment, and field lookups by id and by dotted name.
 *
 * INTERFACE: ice_type_kind_name, ice_type_format, ice_type_parse_primitive,
 *   ice_schema_to_sqe_type, ice_type_from_sqe, ice_schema_from_sqe, ice_schema_find_field,
 *   ice_schema_find_by_name, ice_schema_max_field_id
 * NOTES:
 *   - Type names are matched without ASCII case (as Iceberg Java's Types.fromPrimitiveString
 *     does) and written lowercase; decimals are written "decimal(P, S)" like Java and pyiceberg,
 *     fixed as "fixed[L]". geometry/geography keep their exact spelling in ice_type.text.
 *   - timestamp_ns/timestamptz_ns map to SQE timestamps of precision 6: SQE has no nanosecond
 *     type, so values lose their last three digits when read. variant, geometry and geography
 *     have no SQE type (NOT_SUPPORTED).
 *   - Fresh ids follow Iceberg's assignFreshIds order: a struct numbers all its own fields
 *     first, then descends into each; a list numbers its element, a map its key then value,
 *     before descending.
 *   - Recursion is bounded by ICE_MAX_TYPE_DEPTH (the parser enforces it; the SQE side is
 *     bounded by type_parse's own limit, and checked again here).
 */
#include "iceberg/metadata.h"

#include <ctype.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const kind_names[ICE_TYPE_COUNT_] = {
    [ICE_TYPE_UNKNOWN] = "unknown",
    [ICE_TYPE_BOOLEAN] = "boolean",
    [ICE_TYPE_INT] = "int",
    [ICE_TYPE_LONG] = "long",
    [ICE_TYPE_FLOAT] = "float",
    [ICE_TYPE_DOUBLE] = "double",
    [ICE_TYPE_DECIMAL] = "decimal",
    [ICE_TYPE_DATE] = "date",
    [ICE_TYPE_TIME] = "time",
    [ICE_TYPE_TIMESTAMP] = "timestamp",
    [ICE_TYPE_TIMESTAMPTZ] = "timestamptz",
    [ICE_TYPE_TIMESTAMP_NS] = "timestamp_ns",
    [ICE_TYPE_TIMESTAMPTZ_NS] = "timestamptz_ns",
    [ICE_TYPE_STRING] = "string",
    [ICE_TYPE_UUID] = "uuid",
    [ICE_TYPE_FIXED] = "fixed",
    [ICE_TYPE_BINARY] = "binary",
    [ICE_TYPE_VARIANT] = "variant",
    [ICE_TYPE_GEOMETRY] = "geometry",
    [ICE_TYPE_GEOGRAPHY] = "geography",
    [ICE_TYPE_STRUCT] = "struct",
    [ICE_TYPE_LIST] = "list",
    [ICE_TYPE_MAP] = "map",
};

const char *ice_type_kind_name(ice_type_kind kind) {
    if ((unsigned)kind >= ICE_TYPE_COUNT_) return "invalid";
    return kind_names[kind];
}

size_t ice_type_format(const ice_type *t, char *buf, size_t buf_len) {
    int n;
    switch (t->kind) {
    case ICE_TYPE_DECIMAL: n = snprintf(buf, buf_len, "decimal(%d, %d)", t->precision, t->scale); break;
    case ICE_TYPE_FIXED: n = snprintf(buf, buf_len, "fixed[%d]", t->length); break;
    case ICE_TYPE_GEOMETRY:
    case ICE_TYPE_GEOGRAPHY:
        n = snprintf(buf, buf_len, "%s", t->text ? t->text : ice_type_kind_name(t->kind));
        break;
    default: n = snprintf(buf, buf_len, "%s", ice_type_kind_name(t->kind)); break;
    }
    return n < 0 ? 0 : (size_t)n;
}

/* ---- primitive type strings ------------------------------------------------------------------ */

static const char *skip_ws(const char *p) {
    while (*p == ' ' || *p == '\t') p++;
    return p;
}

/* Reads a decimal number 0..INT32_MAX at *pp (after blanks); advances *pp. */
static bool read_int32(const char **pp, int32_t *out) {
    const char *p = skip_ws(*pp);
    if (!isdigit((unsigned char)*p)) return false;
    int64_t v = 0;
    while (isdigit((unsigned char)*p)) {
        v = v * 10 + (*p - '0');
        if (v > INT32_MAX) return false;
        p++;
    }
    *pp = skip_ws(p);
    *out = (int32_t)v;
    return true;
}

static bool has_prefix_nocase(const char *s, const char *prefix) {
    return strncasecmp(s, prefix, strlen(prefix)) == 0;
}

int ice_type_parse_primitive(arena *a, const char *text, ice_type *out, sqe_error *err) {
    ice_type t;
    memset(&t, 0, sizeof t);
    static const ice_type_kind simple[] = {
        ICE_TYPE_UNKNOWN,     ICE_TYPE_BOOLEAN,      ICE_TYPE_INT,            ICE_TYPE_LONG,
        ICE_TYPE_FLOAT,       ICE_TYPE_DOUBLE,       ICE_TYPE_DATE,           ICE_TYPE_TIME,
        ICE_TYPE_TIMESTAMP,   ICE_TYPE_TIMESTAMPTZ,  ICE_TYPE_TIMESTAMP_NS,   ICE_TYPE_TIMESTAMPTZ_NS,
        ICE_TYPE_STRING,      ICE_TYPE_UUID,         ICE_TYPE_BINARY,         ICE_TYPE_VARIANT,
    };
    for (size_t i = 0; i < sizeof simple / sizeof simple[0]; i++) {
        if (strcasecmp(text, kind_names[simple[i]]) == 0) {
            t.kind = simple[i];
            *out = t;
            return SQE_OK;
        }
    }
    const char *p;
    if (has_prefix_nocase(text, "decimal")) {
        p = skip_ws(text + 7);
        if (*p++ != '(') goto out_bad;
        if (!read_int32(&p, &t.precision) || *p++ != ',') goto out_bad;
        if (!read_int32(&p, &t.scale) || *p++ != ')' || *skip_ws(p) != '\0') goto out_bad;
        if (t.precision < 1 || t.precision > 38 || t.scale > t.precision) goto out_bad;
        t.kind = ICE_TYPE_DECIMAL;
        *out = t;
        return SQE_OK;
    }
    if (has_prefix_nocase(text, "fixed")) {
        p = skip_ws(text + 5);
        if (*p++ != '[') goto out_bad;
        if (!read_int32(&p, &t.length) || *p++ != ']' || *skip_ws(p) != '\0') goto out_bad;
        if (t.length < 1) goto out_bad;
        t.kind = ICE_TYPE_FIXED;
        *out = t;
        return SQE_OK;
    }
    if (has_prefix_nocase(text, "geometry") || has_prefix_nocase(text, "geography")) {
        bool geo = has_prefix_nocase(text, "geometry");
        p = text + (geo ? 8 : 9);
        /* "geometry", or "geometry(" <parameters> ")" with the parameters kept as text. */
        if (*p != '\0') {
            size_t len = strlen(p);
            if (*p != '(' || p[len - 1] != ')' || len < 3) goto out_bad;
        }
        t.kind = geo ? ICE_TYPE_GEOMETRY : ICE_TYPE_GEOGRAPHY;
        t.text = arena_strdup(a, text);
        if (!t.text) return err_nomem(err, "iceberg type");
        *out = t;
        return SQE_OK;
    }
out_bad:
    return err_set(err, SQE_ERR_INVALID_FILE, "unknown or malformed Iceberg type \"%.100s\"",
                   text);
}

/* ---- Iceberg -> SQE -------------------------------------------------------------------------- */

static int to_sqe(const ice_type *t, sqe_type *out, int depth, sqe_error *err) {
    if (depth > ICE_MAX_TYPE_DEPTH)
        return err_set(err, SQE_ERR_NOT_SUPPORTED, "unsupported: Iceberg type nested deeper than %d",
                       ICE_MAX_TYPE_DEPTH);
    switch (t->kind) {
    case ICE_TYPE_UNKNOWN: *out = type_make(TYPE_UNKNOWN); return SQE_OK;
    case ICE_TYPE_BOOLEAN: *out = type_make(TYPE_BOOLEAN); return SQE_OK;
    case ICE_TYPE_INT: *out = type_make(TYPE_INTEGER); return SQE_OK;
    case ICE_TYPE_LONG: *out = type_make(TYPE_BIGINT); return SQE_OK;
    case ICE_TYPE_FLOAT: *out = type_make(TYPE_REAL); return SQE_OK;
    case ICE_TYPE_DOUBLE: *out = type_make(TYPE_DOUBLE); return SQE_OK;
    case ICE_TYPE_DECIMAL:
        if (t->precision < 1 || t->precision > 38 || t->scale < 0 || t->scale > t->precision)
            return err_set(err, SQE_ERR_NOT_SUPPORTED, "unsupported: decimal(%d, %d)",
                           t->precision, t->scale);
        *out = type_decimal(t->precision, t->scale);
        return SQE_OK;
    case ICE_TYPE_DATE: *out = type_make(TYPE_DATE); return SQE_OK;
    case ICE_TYPE_TIME: *out = type_make(TYPE_TIME); return SQE_OK;
    case ICE_TYPE_TIMESTAMP:
    case ICE_TYPE_TIMESTAMP_NS: *out = type_make(TYPE_TIMESTAMP); return SQE_OK;
    case ICE_TYPE_TIMESTAMPTZ:
    case ICE_TYPE_TIMESTAMPTZ_NS: *out = type_make(TYPE_TIMESTAMP_TZ); return SQE_OK;
    case ICE_TYPE_STRING: *out = type_varchar(0); return SQE_OK;
    case ICE_TYPE_UUID: *out = type_make(TYPE_UUID); return SQE_OK;
    case ICE_TYPE_FIXED:
    case ICE_TYPE_BINARY: *out = type_make(TYPE_VARBINARY); return SQE_OK;
    case ICE_TYPE_VARIANT:
    case ICE_TYPE_GEOMETRY:
    case ICE_TYPE_GEOGRAPHY:
        return err_set(err, SQE_ERR_NOT_SUPPORTED, "unsupported: Iceberg type %s",
                       ice_type_kind_name(t->kind));
    case ICE_TYPE_LIST: {
        if (t->n_fields != 1 || !t->fields)
            return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "Iceberg list type without element");
        sqe_type elem;
        SQE_TRY(to_sqe(&t->fields[0].type, &elem, depth + 1, err));
        *out = type_array(elem);
        if (out->id != TYPE_ARRAY) return err_nomem(err, "array type");
        return SQE_OK;
    }
    case ICE_TYPE_MAP: {
        if (t->n_fields != 2 || !t->fields)
            return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "Iceberg map type without key/value");
        sqe_type k, v;
        SQE_TRY(to_sqe(&t->fields[0].type, &k, depth + 1, err));
        SQE_TRY(to_sqe(&t->fields[1].type, &v, depth + 1, err));
        *out = type_map(k, v);
        if (out->id != TYPE_MAP) return err_nomem(err, "map type");
        return SQE_OK;
    }
    case ICE_TYPE_STRUCT: {
        uint32_t n = t->n_fields;
        sqe_type *kids = calloc(n ? n : 1, sizeof *kids);
        const char **names = calloc(n ? n : 1, sizeof *names);
        int rc = SQE_OK;
        if (!kids || !names) {
            rc = err_nomem(err, "row type");
            goto out_free;
        }
        for (uint32_t i = 0; i < n; i++) {
            rc = to_sqe(&t->fields[i].type, &kids[i], depth + 1, err);
            if (rc != SQE_OK) goto out_free;
            names[i] = t->fields[i].name;
        }
        *out = type_row(n, kids, names);
        if (out->id != TYPE_ROW) rc = err_nomem(err, "row type");
    out_free:
        free(kids);
        free(names);
        return rc;
    }
    default: break;
    }
    return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "invalid Iceberg type kind %d", (int)t->kind);
}

int ice_schema_to_sqe_type(const ice_type *t, sqe_type *out, sqe_error *err) {
    sqe_type r;
    SQE_TRY(to_sqe(t, &r, 0, err));
    *out = r;
    return SQE_OK;
}

/* ---- SQE -> Iceberg -------------------------------------------------------------------------- */

static int next_id(int32_t *last_id, int32_t *out, sqe_error *err) {
    if (*last_id >= INT32_MAX - 200)  /* spec: ids above Integer.MAX_VALUE - 200 are reserved */
        return err_set(err, SQE_ERR_NOT_SUPPORTED, "unsupported: Iceberg field ids exhausted");
    *out = ++*last_id;
    return SQE_OK;
}

static int from_sqe(arena *a, sqe_type t, int32_t *last_id, ice_type *out, int depth,
                    sqe_error *err);

/* Numbers then fills the children of a nested type (ids first, then types: assignFreshIds). */
static int fill_children(arena *a, const type_nested *nest, ice_type *out, int32_t *last_id,
                         int depth, sqe_error *err) {
    for (uint32_t i = 0; i < out->n_fields; i++)
        SQE_TRY(next_id(last_id, &out->fields[i].id, err));
    for (uint32_t i = 0; i < out->n_fields; i++)
        SQE_TRY(from_sqe(a, nest->children[i], last_id, &out->fields[i].type, depth + 1, err));
    return SQE_OK;
}

static int from_sqe(arena *a, sqe_type t, int32_t *last_id, ice_type *out, int depth,
                    sqe_error *err) {
    memset(out, 0, sizeof *out);
    if (depth > ICE_MAX_TYPE_DEPTH)
        return err_set(err, SQE_ERR_NOT_SUPPORTED, "unsupported: type nested deeper than %d",
                       ICE_MAX_TYPE_DEPTH);
    switch ((type_id)t.id) {
    case TYPE_UNKNOWN: out->kind = ICE_TYPE_UNKNOWN; return SQE_OK;
    case TYPE_BOOLEAN: out->kind = ICE_TYPE_BOOLEAN; return SQE_OK;
    case TYPE_TINYINT:
    case TYPE_SMALLINT:
    case TYPE_INTEGER: out->kind = ICE_TYPE_INT; return SQE_OK;
    case TYPE_BIGINT: out->kind = ICE_TYPE_LONG; return SQE_OK;
    case TYPE_REAL: out->kind = ICE_TYPE_FLOAT; return SQE_OK;
    case TYPE_DOUBLE: out->kind = ICE_TYPE_DOUBLE; return SQE_OK;
    case TYPE_DECIMAL:
        out->kind = ICE_TYPE_DECIMAL;
        out->precision = t.precision;
        out->scale = t.scale;
        return SQE_OK;
    case TYPE_VARCHAR:
    case TYPE_CHAR: out->kind = ICE_TYPE_STRING; return SQE_OK;
    case TYPE_VARBINARY: out->kind = ICE_TYPE_BINARY; return SQE_OK;
    case TYPE_DATE: out->kind = ICE_TYPE_DATE; return SQE_OK;
    case TYPE_TIME: out->kind = ICE_TYPE_TIME; return SQE_OK;
    case TYPE_TIMESTAMP: out->kind = ICE_TYPE_TIMESTAMP; return SQE_OK;
    case TYPE_TIMESTAMP_TZ: out->kind = ICE_TYPE_TIMESTAMPTZ; return SQE_OK;
    case TYPE_UUID: out->kind = ICE_TYPE_UUID; return SQE_OK;
    case TYPE_ARRAY:
    case TYPE_MAP:
    case TYPE_ROW: {
        const type_nested *nest = t.nested;
        if (!nest) return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "nested type without children");
        uint32_t n = nest->n_children;
        if (t.id == TYPE_ARRAY && n != 1)
            return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "array type without element");
        if (t.id == TYPE_MAP && n != 2)
            return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "map type without key/value");
        out->kind = t.id == TYPE_ARRAY ? ICE_TYPE_LIST : t.id == TYPE_MAP ? ICE_TYPE_MAP
                                                                          : ICE_TYPE_STRUCT;
        out->n_fields = n;
        out->fields = n ? ARENA_ARRAY(a, ice_field, n) : NULL;
        if (n && !out->fields) return err_nomem(err, "iceberg type");
        for (uint32_t i = 0; i < n; i++) {
            ice_field *f = &out->fields[i];
            if (t.id == TYPE_ARRAY) {
                f->name = "element";
            } else if (t.id == TYPE_MAP) {
                f->name = i == 0 ? "key" : "value";
                f->required = i == 0; /* map keys are always required */
            } else {
                const char *name = nest->names ? nest->names[i] : NULL;
                if (!name || !*name)
                    return err_set(err, SQE_ERR_NOT_SUPPORTED,
                                   "unsupported: row field %u without a name in an Iceberg table",
                                   i + 1);
                f->name = arena_strdup(a, name);
                if (!f->name) return err_nomem(err, "iceberg type");
            }
        }
        return fill_children(a, nest, out, last_id, depth, err);
    }
    case TYPE_JSON:
    case TYPE_INTERVAL_DS:
    case TYPE_INTERVAL_YM:
    default: break;
    }
    char name[128];
    type_format(t, name, sizeof name);
    return err_set(err, SQE_ERR_NOT_SUPPORTED, "unsupported: type %s in an Iceberg table", name);
}

int ice_type_from_sqe(arena *a, sqe_type t, int32_t *last_id, ice_type *out, sqe_error *err) {
    return from_sqe(a, t, last_id, out, 0, err);
}

int ice_schema_from_sqe(arena *a, sqe_type row, int32_t schema_id, int32_t *last_id,
                        ice_schema **out, sqe_error *err) {
    if (row.id != TYPE_ROW)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "an Iceberg schema needs a row type");
    ice_schema *s = ARENA_NEW(a, ice_schema);
    if (!s) return err_nomem(err, "iceberg schema");
    SQE_TRY(from_sqe(a, row, last_id, &s->type, 0, err));
    s->schema_id = schema_id;
    s->has_schema_id = true;
    s->has_identifier_field_ids = true;
    *out = s;
    return SQE_OK;
}

/* ---- lookups --------------------------------------------------------------------------------- */

static const ice_field *find_in_type(const ice_type *t, int32_t id, int depth) {
    if (depth > ICE_MAX_TYPE_DEPTH) return NULL;
    for (uint32_t i = 0; i < t->n_fields; i++) {
        const ice_field *f = &t->fields[i];
        if (f->id == id) return f;
        const ice_field *hit = find_in_type(&f->type, id, depth + 1);
        if (hit) return hit;
    }
    return NULL;
}

const ice_field *ice_schema_find_field(const ice_schema *schema, int32_t id) {
    return schema ? find_in_type(&schema->type, id, 0) : NULL;
}

static bool name_eq(const char *a, const char *b, size_t b_len, bool nocase) {
    if (strlen(a) != b_len) return false;
    return nocase ? strncasecmp(a, b, b_len) == 0 : memcmp(a, b, b_len) == 0;
}

/* Resolves path (path_len bytes) under t: a whole-name match first, then the longest dotted
 * prefix that names a child, recursing into the rest. */
static const ice_field *find_by_name(const ice_type *t, const char *path, size_t path_len,
                                     bool nocase, int depth) {
    if (depth > ICE_MAX_TYPE_DEPTH) return NULL;
    for (uint32_t i = 0; i < t->n_fields; i++)
        if (t->fields[i].name && name_eq(t->fields[i].name, path, path_len, nocase))
            return &t->fields[i];
    for (size_t cut = path_len; cut-- > 0;) {
        if (path[cut] != '.') continue;
        for (uint32_t i = 0; i < t->n_fields; i++) {
            const ice_field *f = &t->fields[i];
            if (!f->name || !name_eq(f->name, path, cut, nocase)) continue;
            const ice_field *hit =
                find_by_name(&f->type, path + cut + 1, path_len - cut - 1, nocase, depth + 1);
            if (hit) return hit;
        }
    }
    return NULL;
}

const ice_field *ice_schema_find_by_name(const ice_schema *schema, const char *path,
                                         bool case_insensitive) {
    if (!schema || !path) return NULL;
    return find_by_name(&schema->type, path, strlen(path), case_insensitive, 0);
}

static int32_t max_id(const ice_type *t, int depth) {
    int32_t m = 0;
    if (depth > ICE_MAX_TYPE_DEPTH) return 0;
    for (uint32_t i = 0; i < t->n_fields; i++) {
        if (t->fields[i].id > m) m = t->fields[i].id;
        int32_t c = max_id(&t->fields[i].type, depth + 1);
        if (c > m) m = c;
    }
    return m;
}

int32_t ice_schema_max_field_id(const ice_schema *schema) {
    return schema ? max_id(&schema->type, 0) : 0;
}
