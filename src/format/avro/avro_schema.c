/*
 * avro_schema.c: parses Avro schema JSON (Avro 1.11 spec "Schema Declaration") into a tree of
 * avro_schema nodes in an arena, with named types, namespaces and the Iceberg id attributes.
 *
 * INTERFACE: avro_schema_parse, avro_schema_parse_as (avro_int.h), avro_type_name,
 *            avro_schema_field, avro_branch_name
 * NOTES:
 *   - Names (spec "Names"): a name with a dot is a full name; otherwise the "namespace"
 *     attribute, or else the enclosing namespace, qualifies it. A reference without a dot is
 *     looked up in the enclosing namespace first and then without a namespace (as Avro Java
 *     does). A named type is registered before its fields are parsed, so records may refer to
 *     themselves; the shared node makes the tree a graph.
 *   - Logical types (spec "Logical Types") are annotations only. A known logical type on the
 *     wrong underlying type, or a decimal with bad precision/scale, is ignored as the spec
 *     says; unknown logical types are kept by name.
 *   - Unions (spec "Unions"): no directly nested unions, no two branches of the same unnamed
 *     type or the same name.
 *   - "aliases", "doc" and "order" are accepted and ignored (no schema resolution here).
 *   - min_size is a lower bound of a value's encoded size, used by the reader to bound counts;
 *     a record still being parsed counts as 0 for its own recursive references.
 */
#include "format/avro/avro_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

typedef struct named_type {
    const char *full_name;
    avro_schema *schema;
    struct named_type *next;
} named_type;

typedef struct parse_ctx {
    arena *a;
    named_type *names;
    int code;            /* error code to report */
    const char *prefix;  /* message prefix */
    sqe_error *err;
} parse_ctx;

static int fail(parse_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(parse_ctx *c, const char *fmt, ...) {
    char msg[384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return err_set(c->err, c->code, "%s%s", c->prefix, msg);
}

static int nomem(parse_ctx *c) { return err_nomem(c->err, "Avro schema"); }

const char *avro_type_name(avro_type t) {
    switch (t) {
    case AVRO_NULL: return "null";
    case AVRO_BOOLEAN: return "boolean";
    case AVRO_INT: return "int";
    case AVRO_LONG: return "long";
    case AVRO_FLOAT: return "float";
    case AVRO_DOUBLE: return "double";
    case AVRO_BYTES: return "bytes";
    case AVRO_STRING: return "string";
    case AVRO_RECORD: return "record";
    case AVRO_ENUM: return "enum";
    case AVRO_ARRAY: return "array";
    case AVRO_MAP: return "map";
    case AVRO_UNION: return "union";
    case AVRO_FIXED: return "fixed";
    }
    return "unknown";
}

const char *avro_branch_name(const avro_schema *s) {
    if (s->name) return s->name;
    return avro_type_name(s->type);
}

const avro_field *avro_schema_field(const avro_schema *s, const char *name, uint32_t *idx) {
    if (!s || s->type != AVRO_RECORD || !name) return NULL;
    for (uint32_t i = 0; i < s->n_fields; i++) {
        if (strcmp(s->fields[i].name, name) == 0) {
            if (idx) *idx = i;
            return &s->fields[i];
        }
    }
    return NULL;
}

/* Primitive type names (spec "Primitive Types"); -1 when s is not one. */
static int primitive_type(const char *s) {
    static const struct {
        const char *name;
        avro_type type;
    } prims[] = {
        {"null", AVRO_NULL},   {"boolean", AVRO_BOOLEAN}, {"int", AVRO_INT},
        {"long", AVRO_LONG},   {"float", AVRO_FLOAT},     {"double", AVRO_DOUBLE},
        {"bytes", AVRO_BYTES}, {"string", AVRO_STRING},
    };
    for (size_t i = 0; i < sizeof prims / sizeof prims[0]; i++)
        if (strcmp(s, prims[i].name) == 0) return (int)prims[i].type;
    return -1;
}

static uint32_t primitive_min_size(avro_type t) {
    switch (t) {
    case AVRO_NULL: return 0;
    case AVRO_FLOAT: return 4;
    case AVRO_DOUBLE: return 8;
    default: return 1;  /* boolean byte, varints and length prefixes take at least one byte */
    }
}

static avro_schema *new_node(parse_ctx *c, avro_type t) {
    avro_schema *s = ARENA_NEW(c->a, avro_schema);
    if (s) {
        s->type = t;
        s->min_size = primitive_min_size(t);
    }
    return s;
}

/* Reads an optional int32 attribute into *out, setting *has. */
static int int_attr(parse_ctx *c, json_t *obj, const char *key, int32_t *out, bool *has) {
    json_t *v = json_object_get(obj, key);
    *has = false;
    if (!v) return SQE_OK;
    if (!json_is_integer(v) || json_integer_value(v) < INT32_MIN ||
        json_integer_value(v) > INT32_MAX)
        return fail(c, "attribute \"%s\" must be a 32-bit integer", key);
    *out = (int32_t)json_integer_value(v);
    *has = true;
    return SQE_OK;
}

static const char *lookup_name(parse_ctx *c, const char *full) {
    for (named_type *n = c->names; n; n = n->next)
        if (strcmp(n->full_name, full) == 0) return n->full_name;
    return NULL;
}

static avro_schema *find_named(parse_ctx *c, const char *ref, const char *ns) {
    if (!strchr(ref, '.') && ns && *ns) {
        char *full = arena_sprintf(c->a, "%s.%s", ns, ref);
        if (!full) return NULL;
        for (named_type *n = c->names; n; n = n->next)
            if (strcmp(n->full_name, full) == 0) return n->schema;
    }
    for (named_type *n = c->names; n; n = n->next)
        if (strcmp(n->full_name, ref) == 0) return n->schema;
    return NULL;
}

/* Resolves the full name of a named type definition and registers s under it. *ns_out gets the
 * namespace for the definition's children. */
static int define_name(parse_ctx *c, json_t *obj, const char *ns, avro_schema *s,
                       const char **ns_out) {
    json_t *jname = json_object_get(obj, "name");
    if (!json_is_string(jname) || json_string_length(jname) == 0)
        return fail(c, "%s type without a name", avro_type_name(s->type));
    const char *name = json_string_value(jname);
    const char *full;
    const char *dot = strrchr(name, '.');
    if (dot) {
        full = arena_strdup(c->a, name);
        *ns_out = full ? arena_strndup(c->a, name, (size_t)(dot - name)) : NULL;
    } else {
        json_t *jns = json_object_get(obj, "namespace");
        if (jns && !json_is_string(jns) && !json_is_null(jns))
            return fail(c, "namespace of %s is not a string", name);
        const char *space = json_is_string(jns) ? json_string_value(jns) : ns;
        if (space && *space)
            full = arena_sprintf(c->a, "%s.%s", space, name);
        else
            full = arena_strdup(c->a, name);
        *ns_out = space ? arena_strdup(c->a, space) : NULL;
    }
    if (!full || (dot && !*ns_out)) return nomem(c);
    if (primitive_type(full) >= 0) return fail(c, "type name \"%s\" is a primitive type", full);
    if (lookup_name(c, full)) return fail(c, "type \"%s\" is defined twice", full);
    named_type *n = ARENA_NEW(c->a, named_type);
    if (!n) return nomem(c);
    n->full_name = full;
    n->schema = s;
    n->next = c->names;
    c->names = n;
    s->name = full;
    return SQE_OK;
}

static int parse_node(parse_ctx *c, json_t *j, const char *ns, int depth, avro_schema **out);

static int parse_union(parse_ctx *c, json_t *j, const char *ns, int depth, avro_schema **out) {
    size_t n = json_array_size(j);
    if (n == 0) return fail(c, "union without branches");
    if (n > 10000) return fail(c, "union with too many branches");
    avro_schema *s = new_node(c, AVRO_UNION);
    if (!s || !(s->branches = ARENA_ARRAY(c->a, avro_schema *, n))) return nomem(c);
    s->n_branches = (uint32_t)n;
    for (size_t i = 0; i < n; i++) {
        SQE_TRY(parse_node(c, json_array_get(j, i), ns, depth + 1, &s->branches[i]));
        const avro_schema *b = s->branches[i];
        if (b->type == AVRO_UNION) return fail(c, "union directly inside a union");
        for (size_t k = 0; k < i; k++) {
            const avro_schema *o = s->branches[k];
            bool dup = o->type == b->type && (!b->name || !o->name ? !b->name && !o->name
                                                                   : strcmp(b->name, o->name) == 0);
            if (dup) return fail(c, "union has two branches of type %s", avro_branch_name(b));
        }
    }
    s->min_size = 1;
    *out = s;
    return SQE_OK;
}

static int parse_record(parse_ctx *c, json_t *obj, avro_schema *s, const char *ns, int depth) {
    json_t *fields = json_object_get(obj, "fields");
    if (!json_is_array(fields)) return fail(c, "record %s without a fields array", s->name);
    size_t n = json_array_size(fields);
    if (n > 1000000) return fail(c, "record %s has too many fields", s->name);
    s->fields = ARENA_ARRAY(c->a, avro_field, n ? n : 1);
    if (!s->fields) return nomem(c);
    uint64_t min = 0;
    for (size_t i = 0; i < n; i++) {
        json_t *jf = json_array_get(fields, i);
        if (!json_is_object(jf)) return fail(c, "a field of record %s is not an object", s->name);
        json_t *jname = json_object_get(jf, "name");
        if (!json_is_string(jname)) return fail(c, "a field of record %s has no name", s->name);
        avro_field *f = &s->fields[i];
        f->name = arena_strdup(c->a, json_string_value(jname));
        if (!f->name) return nomem(c);
        for (size_t k = 0; k < i; k++)
            if (strcmp(s->fields[k].name, f->name) == 0)
                return fail(c, "field \"%s\" appears twice", f->name);
        json_t *jtype = json_object_get(jf, "type");
        if (!jtype) return fail(c, "field \"%s\" has no type", f->name);
        SQE_TRY(parse_node(c, jtype, ns, depth + 1, &f->type));
        SQE_TRY(int_attr(c, jf, "field-id", &f->field_id, &f->has_field_id));
        json_t *def = json_object_get(jf, "default");
        if (def) {
            char *text = json_dumps(def, JSON_ENCODE_ANY | JSON_COMPACT);
            if (!text) return nomem(c);
            f->default_json = arena_strdup(c->a, text);
            free(text);
            if (!f->default_json) return nomem(c);
        }
        s->n_fields = (uint32_t)(i + 1);
        min += f->type->min_size;
    }
    s->n_fields = (uint32_t)n;
    s->min_size = min > (1u << 30) ? (1u << 30) : (uint32_t)min;
    return SQE_OK;
}

static int parse_enum(parse_ctx *c, json_t *obj, avro_schema *s) {
    json_t *syms = json_object_get(obj, "symbols");
    if (!json_is_array(syms)) return fail(c, "enum %s without a symbols array", s->name);
    size_t n = json_array_size(syms);
    if (n > 1000000) return fail(c, "enum %s has too many symbols", s->name);
    s->symbols = ARENA_ARRAY(c->a, const char *, n ? n : 1);
    if (!s->symbols) return nomem(c);
    for (size_t i = 0; i < n; i++) {
        json_t *js = json_array_get(syms, i);
        if (!json_is_string(js) || json_string_length(js) == 0)
            return fail(c, "enum %s has a symbol that is not a name", s->name);
        const char *sym = json_string_value(js);
        for (size_t k = 0; k < i; k++)
            if (strcmp(s->symbols[k], sym) == 0)
                return fail(c, "enum symbol \"%s\" appears twice", sym);
        if (!(s->symbols[i] = arena_strdup(c->a, sym))) return nomem(c);
    }
    s->n_symbols = (uint32_t)n;
    return SQE_OK;
}

static int parse_fixed(parse_ctx *c, json_t *obj, avro_schema *s) {
    json_t *size = json_object_get(obj, "size");
    if (!json_is_integer(size) || json_integer_value(size) < 0 ||
        json_integer_value(size) > (1 << 24))
        return fail(c, "fixed %s needs a size between 0 and 16777216", s->name);
    s->size = (uint32_t)json_integer_value(size);
    s->min_size = s->size;
    return SQE_OK;
}

/* Largest decimal precision a fixed of n bytes holds: floor(log10(2^(8n-1) - 1)). */
static int32_t fixed_max_precision(uint32_t n) {
    if (n == 0) return 0;
    if (n > 64) return INT32_MAX;
    return (int32_t)floor(log10(pow(2.0, 8.0 * n - 1) - 1));
}

/* Attaches logicalType (and decimal parameters, adjust-to-utc) to s when valid for s. */
static int apply_logical(parse_ctx *c, json_t *obj, avro_schema *s) {
    json_t *jadj = json_object_get(obj, "adjust-to-utc");
    if (json_is_boolean(jadj)) {
        s->has_adjust_to_utc = true;
        s->adjust_to_utc = json_is_true(jadj);
    }
    json_t *jl = json_object_get(obj, "logicalType");
    if (!json_is_string(jl)) return SQE_OK;
    const char *lt = json_string_value(jl);
    avro_type t = s->type;
    bool ok;
    if (strcmp(lt, "decimal") == 0) {
        int32_t precision = 0, scale = 0;
        json_t *jp = json_object_get(obj, "precision"), *js = json_object_get(obj, "scale");
        ok = (t == AVRO_BYTES || t == AVRO_FIXED) && json_is_integer(jp) &&
             json_integer_value(jp) > 0 && json_integer_value(jp) <= INT32_MAX &&
             (!js || (json_is_integer(js) && json_integer_value(js) >= 0 &&
                      json_integer_value(js) <= json_integer_value(jp)));
        if (ok) {
            precision = (int32_t)json_integer_value(jp);
            scale = js ? (int32_t)json_integer_value(js) : 0;
            if (t == AVRO_FIXED && precision > fixed_max_precision(s->size)) ok = false;
        }
        if (ok) {
            s->precision = precision;
            s->scale = scale;
        }
    } else if (strcmp(lt, "uuid") == 0) {
        ok = t == AVRO_STRING || (t == AVRO_FIXED && s->size == 16);
    } else if (strcmp(lt, "date") == 0 || strcmp(lt, "time-millis") == 0) {
        ok = t == AVRO_INT;
    } else if (strcmp(lt, "time-micros") == 0 || strcmp(lt, "timestamp-millis") == 0 ||
               strcmp(lt, "timestamp-micros") == 0 || strcmp(lt, "timestamp-nanos") == 0 ||
               strcmp(lt, "local-timestamp-millis") == 0 ||
               strcmp(lt, "local-timestamp-micros") == 0 ||
               strcmp(lt, "local-timestamp-nanos") == 0) {
        ok = t == AVRO_LONG;
    } else if (strcmp(lt, "duration") == 0) {
        ok = t == AVRO_FIXED && s->size == 12;
    } else if (strcmp(lt, "map") == 0) {
        /* Iceberg: a map with non-string keys is an array of records with key and value. */
        ok = t == AVRO_ARRAY && s->items->type == AVRO_RECORD && s->items->n_fields == 2;
    } else {
        ok = true;  /* unknown: kept by name, the underlying type rules */
    }
    if (ok && !(s->logical = arena_strdup(c->a, lt))) return nomem(c);
    return SQE_OK;
}

static int parse_object(parse_ctx *c, json_t *obj, const char *ns, int depth,
                        avro_schema **out) {
    json_t *jtype = json_object_get(obj, "type");
    if (!jtype) return fail(c, "object without a \"type\"");
    avro_schema *s;
    if (!json_is_string(jtype)) {
        /* {"type": {...}} or {"type": [...]}: a wrapped schema. */
        SQE_TRY(parse_node(c, jtype, ns, depth + 1, out));
        return SQE_OK;
    }
    const char *tn = json_string_value(jtype);
    int prim = primitive_type(tn);
    if (prim >= 0) {
        if (!(s = new_node(c, (avro_type)prim))) return nomem(c);
    } else if (strcmp(tn, "record") == 0 || strcmp(tn, "error") == 0) {
        if (!(s = new_node(c, AVRO_RECORD))) return nomem(c);
        const char *child_ns;
        SQE_TRY(define_name(c, obj, ns, s, &child_ns));
        SQE_TRY(parse_record(c, obj, s, child_ns, depth));
    } else if (strcmp(tn, "enum") == 0) {
        if (!(s = new_node(c, AVRO_ENUM))) return nomem(c);
        const char *child_ns;
        SQE_TRY(define_name(c, obj, ns, s, &child_ns));
        SQE_TRY(parse_enum(c, obj, s));
    } else if (strcmp(tn, "fixed") == 0) {
        if (!(s = new_node(c, AVRO_FIXED))) return nomem(c);
        const char *child_ns;
        SQE_TRY(define_name(c, obj, ns, s, &child_ns));
        SQE_TRY(parse_fixed(c, obj, s));
    } else if (strcmp(tn, "array") == 0) {
        json_t *items = json_object_get(obj, "items");
        if (!items) return fail(c, "array without \"items\"");
        if (!(s = new_node(c, AVRO_ARRAY))) return nomem(c);
        SQE_TRY(parse_node(c, items, ns, depth + 1, &s->items));
        SQE_TRY(int_attr(c, obj, "element-id", &s->element_id, &s->has_element_id));
    } else if (strcmp(tn, "map") == 0) {
        json_t *values = json_object_get(obj, "values");
        if (!values) return fail(c, "map without \"values\"");
        if (!(s = new_node(c, AVRO_MAP))) return nomem(c);
        SQE_TRY(parse_node(c, values, ns, depth + 1, &s->values));
        SQE_TRY(int_attr(c, obj, "key-id", &s->key_id, &s->has_key_id));
        SQE_TRY(int_attr(c, obj, "value-id", &s->value_id, &s->has_value_id));
    } else {
        /* {"type": "some.Name"}: a reference, annotations ignored. */
        avro_schema *ref = find_named(c, tn, ns);
        if (!ref) return fail(c, "unknown type \"%s\"", tn);
        *out = ref;
        return SQE_OK;
    }
    SQE_TRY(apply_logical(c, obj, s));
    *out = s;
    return SQE_OK;
}

static int parse_node(parse_ctx *c, json_t *j, const char *ns, int depth, avro_schema **out) {
    *out = NULL;
    if (depth > AVRO_MAX_DEPTH) return fail(c, "nested too deeply");
    if (json_is_string(j)) {
        const char *tn = json_string_value(j);
        int prim = primitive_type(tn);
        if (prim >= 0) {
            if (!(*out = new_node(c, (avro_type)prim))) return nomem(c);
            return SQE_OK;
        }
        if (!(*out = find_named(c, tn, ns))) {
            if (c->a->failed) return nomem(c);
            return fail(c, "unknown type \"%s\"", tn);
        }
        return SQE_OK;
    }
    if (json_is_array(j)) return parse_union(c, j, ns, depth, out);
    if (json_is_object(j)) return parse_object(c, j, ns, depth, out);
    return fail(c, "a schema must be a string, an object or an array");
}

int avro_schema_parse_as(arena *a, const char *json, size_t len, int code, const char *prefix,
                         avro_schema **out, sqe_error *err) {
    *out = NULL;
    json_error_t jerr;
    json_t *root = json_loadb(json, len, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &jerr);
    if (!root)
        return err_set(err, code, "%sJSON error at line %d: %s", prefix, jerr.line, jerr.text);
    parse_ctx c = {.a = a, .code = code, .prefix = prefix, .err = err};
    int rc = parse_node(&c, root, NULL, 0, out);
    json_decref(root);
    if (rc != SQE_OK) *out = NULL;
    return rc;
}

int avro_schema_parse(arena *a, const char *json, size_t len, avro_schema **out, sqe_error *err) {
    return avro_schema_parse_as(a, json, len, SQE_ERR_INVALID_ARGUMENTS, "Invalid Avro schema: ",
                                out, err);
}
