/*
 * avro_value.c: helpers over avro_value trees: field lookup by name, union unwrapping, and the
 * conversion to and from the Avro JSON encoding (Avro 1.11 spec "JSON Encoding"), used by the
 * test tools and for debugging output.
 *
 * INTERFACE: avro_value_field, avro_value_unwrap, avro_value_is_null, avro_value_to_json,
 *            avro_value_from_json
 * NOTES:
 *   - JSON encoding: bytes and fixed are strings whose code points U+0000..U+00FF are the byte
 *     values; a union is null or {"<branch name>": value} where the name is the full name of a
 *     named type or the type's name. For input, a named branch may also be given by its short
 *     name. NaN and infinities, which JSON lacks, are the strings "NaN", "Infinity" and
 *     "-Infinity" (as Avro Java's JSON encoder writes them).
 *   - Record fields missing from the input take their schema default; a default for a union
 *     is a value of the union's first branch, untagged (spec "Complex Types: Records").
 *   - Walks are depth-capped at AVRO_MAX_DEPTH, so a cyclic hand-built value cannot hang.
 */
#include "format/avro/avro_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

const avro_value *avro_value_field(const avro_value *v, const char *name) {
    if (!v || !v->schema || v->schema->type != AVRO_RECORD) return NULL;
    uint32_t idx;
    if (!avro_schema_field(v->schema, name, &idx)) return NULL;
    return &v->rec.fields[idx];
}

const avro_value *avro_value_unwrap(const avro_value *v) {
    if (v && v->schema && v->schema->type == AVRO_UNION) return v->u.value;
    return v;
}

bool avro_value_is_null(const avro_value *v) {
    v = avro_value_unwrap(v);
    return !v || !v->schema || v->schema->type == AVRO_NULL;
}

static int bad_value(sqe_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad_value(sqe_error *err, const char *fmt, ...) {
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "Invalid Avro value: %s", msg);
}

/* ---- to JSON ------------------------------------------------------------------------------ */

static json_t *latin1_string(const avro_bytes *b) {
    char *tmp = malloc(b->len * 2 + 1);
    if (!tmp) return NULL;
    size_t n = 0;
    for (size_t i = 0; i < b->len; i++) {
        uint8_t c = b->data[i];
        if (c < 0x80) {
            tmp[n++] = (char)c;
        } else {
            tmp[n++] = (char)(0xc0 | (c >> 6));
            tmp[n++] = (char)(0x80 | (c & 0x3f));
        }
    }
    json_t *j = json_stringn(tmp, n);
    free(tmp);
    return j;
}

static json_t *real_json(double d) {
    if (isnan(d)) return json_string("NaN");
    if (isinf(d)) return json_string(d > 0 ? "Infinity" : "-Infinity");
    return json_real(d);
}

static int to_json(const avro_value *v, const avro_schema *s, int depth, json_t **out,
                   sqe_error *err) {
    *out = NULL;
    if (depth > AVRO_MAX_DEPTH) return bad_value(err, "nested too deeply");
    json_t *j = NULL;
    switch (s->type) {
    case AVRO_NULL: j = json_null(); break;
    case AVRO_BOOLEAN: j = json_boolean(v->b); break;
    case AVRO_INT: j = json_integer(v->i); break;
    case AVRO_LONG: j = json_integer(v->l); break;
    case AVRO_FLOAT: j = real_json(v->f); break;
    case AVRO_DOUBLE: j = real_json(v->d); break;
    case AVRO_BYTES:
    case AVRO_FIXED: j = latin1_string(&v->bytes); break;
    case AVRO_STRING:
        j = json_stringn((const char *)v->bytes.data, v->bytes.len);
        if (!j) return bad_value(err, "string is not valid UTF-8");
        break;
    case AVRO_ENUM:
        if (v->i < 0 || (uint32_t)v->i >= s->n_symbols)
            return bad_value(err, "enum index %d out of range", v->i);
        j = json_string(s->symbols[v->i]);
        break;
    case AVRO_RECORD:
        if (!(j = json_object())) break;
        for (uint32_t i = 0; i < s->n_fields; i++) {
            json_t *f;
            int rc = to_json(&v->rec.fields[i], s->fields[i].type, depth + 1, &f, err);
            if (rc != SQE_OK) {
                json_decref(j);
                return rc;
            }
            if (json_object_set_new(j, s->fields[i].name, f) != 0) {
                json_decref(j);
                return err_nomem(err, "JSON");
            }
        }
        break;
    case AVRO_ARRAY:
        if (!(j = json_array())) break;
        for (uint32_t i = 0; i < v->arr.n; i++) {
            json_t *item;
            int rc = to_json(&v->arr.items[i], s->items, depth + 1, &item, err);
            if (rc != SQE_OK) {
                json_decref(j);
                return rc;
            }
            if (json_array_append_new(j, item) != 0) {
                json_decref(j);
                return err_nomem(err, "JSON");
            }
        }
        break;
    case AVRO_MAP:
        if (!(j = json_object())) break;
        for (uint32_t i = 0; i < v->map.n; i++) {
            json_t *item;
            int rc = to_json(&v->map.values[i], s->values, depth + 1, &item, err);
            if (rc != SQE_OK) {
                json_decref(j);
                return rc;
            }
            if (json_object_setn_new(j, (const char *)v->map.keys[i].data, v->map.keys[i].len,
                                     item) != 0) {
                json_decref(j);
                return bad_value(err, "map key is not valid UTF-8");
            }
        }
        break;
    case AVRO_UNION: {
        if (v->u.branch >= s->n_branches || !v->u.value)
            return bad_value(err, "union branch %u out of range", v->u.branch);
        const avro_schema *b = s->branches[v->u.branch];
        json_t *inner;
        SQE_TRY(to_json(v->u.value, b, depth + 1, &inner, err));
        if (b->type == AVRO_NULL) {
            j = inner;
            break;
        }
        if (!(j = json_object()) || json_object_set_new(j, avro_branch_name(b), inner) != 0) {
            json_decref(inner);
            json_decref(j);
            return err_nomem(err, "JSON");
        }
        break;
    }
    }
    if (!j) return err_nomem(err, "JSON");
    *out = j;
    return SQE_OK;
}

int avro_value_to_json(const avro_value *v, char **out, sqe_error *err) {
    *out = NULL;
    if (!v || !v->schema) return bad_value(err, "value without a schema");
    json_t *j;
    SQE_TRY(to_json(v, v->schema, 0, &j, err));
    *out = json_dumps(j, JSON_ENCODE_ANY | JSON_COMPACT | JSON_REAL_PRECISION(17));
    json_decref(j);
    if (!*out) return err_nomem(err, "JSON");
    return SQE_OK;
}

/* ---- from JSON ---------------------------------------------------------------------------- */

typedef struct build_ctx {
    arena *a;
    sqe_error *err;
} build_ctx;

static int from_json(build_ctx *c, json_t *j, const avro_schema *s, bool is_default, int depth,
                     avro_value *v);

/* Decodes a JSON string of code points <= U+00FF into bytes. */
static int latin1_bytes(build_ctx *c, json_t *j, avro_bytes *out) {
    const uint8_t *p = (const uint8_t *)json_string_value(j);
    size_t n = json_string_length(j);
    uint8_t *d = arena_alloc(c->a, n + 1);
    if (!d) return err_nomem(c->err, "Avro value");
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] < 0x80) {
            d[len++] = p[i];
        } else if ((p[i] == 0xc2 || p[i] == 0xc3) && i + 1 < n) {
            d[len++] = (uint8_t)(((p[i] & 0x03) << 6) | (p[i + 1] & 0x3f));
            i++;
        } else {
            return bad_value(c->err, "bytes string has a code point above U+00FF");
        }
    }
    d[len] = 0;
    out->data = d;
    out->len = len;
    return SQE_OK;
}

static int real_from_json(build_ctx *c, json_t *j, double *out) {
    if (json_is_number(j)) {
        *out = json_number_value(j);
        return SQE_OK;
    }
    if (json_is_string(j)) {
        const char *s = json_string_value(j);
        if (strcmp(s, "NaN") == 0) *out = NAN;
        else if (strcmp(s, "Infinity") == 0) *out = INFINITY;
        else if (strcmp(s, "-Infinity") == 0) *out = -INFINITY;
        else return bad_value(c->err, "\"%.50s\" is not a number", s);
        return SQE_OK;
    }
    return bad_value(c->err, "expected a number");
}

static bool branch_matches(const avro_schema *b, const char *key) {
    const char *name = avro_branch_name(b);
    if (strcmp(name, key) == 0) return true;
    if (b->name) {
        const char *dot = strrchr(b->name, '.');
        return dot && strcmp(dot + 1, key) == 0;
    }
    return false;
}

static int from_union(build_ctx *c, json_t *j, const avro_schema *s, bool is_default, int depth,
                      avro_value *v) {
    uint32_t branch = UINT32_MAX;
    json_t *inner = j;
    if (is_default) {
        branch = 0;
    } else if (json_is_null(j)) {
        for (uint32_t i = 0; i < s->n_branches; i++)
            if (s->branches[i]->type == AVRO_NULL) branch = i;
        if (branch == UINT32_MAX) return bad_value(c->err, "null for a union without null");
    } else {
        const char *key;
        json_t *val;
        if (!json_is_object(j) || json_object_size(j) != 1)
            return bad_value(c->err, "a union value must be null or {\"type\": value}");
        json_object_foreach(j, key, val) {
            for (uint32_t i = 0; i < s->n_branches; i++)
                if (branch_matches(s->branches[i], key)) branch = i;
            inner = val;
        }
        if (branch == UINT32_MAX) return bad_value(c->err, "union has no branch \"%.100s\"", key);
    }
    v->u.branch = branch;
    if (!(v->u.value = ARENA_NEW(c->a, avro_value))) return err_nomem(c->err, "Avro value");
    return from_json(c, inner, s->branches[branch], false, depth + 1, v->u.value);
}

static int from_record(build_ctx *c, json_t *j, const avro_schema *s, bool is_default, int depth,
                       avro_value *v) {
    if (!json_is_object(j)) return bad_value(c->err, "expected an object for record %s", s->name);
    if (!(v->rec.fields = ARENA_ARRAY(c->a, avro_value, s->n_fields ? s->n_fields : 1)))
        return err_nomem(c->err, "Avro value");
    for (uint32_t i = 0; i < s->n_fields; i++) {
        const avro_field *f = &s->fields[i];
        json_t *fj = json_object_get(j, f->name);
        if (fj) {
            SQE_TRY(from_json(c, fj, f->type, is_default, depth + 1, &v->rec.fields[i]));
            continue;
        }
        if (!f->default_json) return bad_value(c->err, "field \"%s\" is missing", f->name);
        json_t *def = json_loads(f->default_json, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
        if (!def) return bad_value(c->err, "bad default of field \"%s\"", f->name);
        int rc = from_json(c, def, f->type, true, depth + 1, &v->rec.fields[i]);
        json_decref(def);
        SQE_TRY(rc);
    }
    return SQE_OK;
}

static int from_json(build_ctx *c, json_t *j, const avro_schema *s, bool is_default, int depth,
                     avro_value *v) {
    if (depth > AVRO_MAX_DEPTH) return bad_value(c->err, "nested too deeply");
    memset(v, 0, sizeof *v);
    v->schema = s;
    switch (s->type) {
    case AVRO_NULL:
        if (!json_is_null(j)) return bad_value(c->err, "expected null");
        return SQE_OK;
    case AVRO_BOOLEAN:
        if (!json_is_boolean(j)) return bad_value(c->err, "expected true or false");
        v->b = json_is_true(j);
        return SQE_OK;
    case AVRO_INT:
        if (!json_is_integer(j) || json_integer_value(j) < INT32_MIN ||
            json_integer_value(j) > INT32_MAX)
            return bad_value(c->err, "expected a 32-bit integer");
        v->i = (int32_t)json_integer_value(j);
        return SQE_OK;
    case AVRO_LONG:
        if (!json_is_integer(j)) return bad_value(c->err, "expected an integer");
        v->l = json_integer_value(j);
        return SQE_OK;
    case AVRO_FLOAT: {
        double d;
        SQE_TRY(real_from_json(c, j, &d));
        v->f = (float)d;
        return SQE_OK;
    }
    case AVRO_DOUBLE: return real_from_json(c, j, &v->d);
    case AVRO_BYTES:
    case AVRO_FIXED:
        if (!json_is_string(j)) return bad_value(c->err, "expected a string of bytes");
        SQE_TRY(latin1_bytes(c, j, &v->bytes));
        if (s->type == AVRO_FIXED && v->bytes.len != s->size)
            return bad_value(c->err, "fixed %s needs %u bytes, got %zu", s->name, s->size,
                             v->bytes.len);
        return SQE_OK;
    case AVRO_STRING: {
        if (!json_is_string(j)) return bad_value(c->err, "expected a string");
        size_t n = json_string_length(j);
        uint8_t *d = arena_memdup(c->a, json_string_value(j), n + 1);
        if (!d) return err_nomem(c->err, "Avro value");
        v->bytes.data = d;
        v->bytes.len = n;
        return SQE_OK;
    }
    case AVRO_ENUM:
        if (!json_is_string(j)) return bad_value(c->err, "expected an enum symbol");
        for (uint32_t i = 0; i < s->n_symbols; i++) {
            if (strcmp(s->symbols[i], json_string_value(j)) == 0) {
                v->i = (int32_t)i;
                return SQE_OK;
            }
        }
        return bad_value(c->err, "\"%.100s\" is not a symbol of %s", json_string_value(j),
                         s->name);
    case AVRO_RECORD: return from_record(c, j, s, is_default, depth, v);
    case AVRO_ARRAY: {
        if (!json_is_array(j)) return bad_value(c->err, "expected an array");
        size_t n = json_array_size(j);
        if (n > UINT32_MAX) return bad_value(c->err, "array too long");
        if (!(v->arr.items = ARENA_ARRAY(c->a, avro_value, n ? n : 1)))
            return err_nomem(c->err, "Avro value");
        v->arr.n = (uint32_t)n;
        for (size_t i = 0; i < n; i++)
            SQE_TRY(from_json(c, json_array_get(j, i), s->items, is_default, depth + 1,
                              &v->arr.items[i]));
        return SQE_OK;
    }
    case AVRO_MAP: {
        if (!json_is_object(j)) return bad_value(c->err, "expected an object for a map");
        size_t n = json_object_size(j);
        v->map.keys = ARENA_ARRAY(c->a, avro_bytes, n ? n : 1);
        v->map.values = ARENA_ARRAY(c->a, avro_value, n ? n : 1);
        if (!v->map.keys || !v->map.values) return err_nomem(c->err, "Avro value");
        const char *key;
        size_t key_len;
        json_t *val;
        uint32_t i = 0;
        json_object_keylen_foreach(j, key, key_len, val) {
            uint8_t *k = arena_memdup(c->a, key, key_len + 1);
            if (!k) return err_nomem(c->err, "Avro value");
            v->map.keys[i] = (avro_bytes){k, key_len};
            SQE_TRY(from_json(c, val, s->values, is_default, depth + 1, &v->map.values[i]));
            i++;
        }
        v->map.n = i;
        return SQE_OK;
    }
    case AVRO_UNION: return from_union(c, j, s, is_default, depth, v);
    }
    return bad_value(c->err, "bad schema node");
}

int avro_value_from_json(arena *a, const avro_schema *s, const char *json, size_t len,
                         avro_value **out, sqe_error *err) {
    *out = NULL;
    json_error_t jerr;
    json_t *j = json_loadb(json, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
    if (!j) return bad_value(err, "JSON error at line %d: %s", jerr.line, jerr.text);
    build_ctx c = {a, err};
    avro_value *v = ARENA_NEW(a, avro_value);
    int rc = v ? from_json(&c, j, s, false, 0, v) : err_nomem(err, "Avro value");
    json_decref(j);
    if (rc == SQE_OK) *out = v;
    return rc;
}
