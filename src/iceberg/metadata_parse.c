/*
 * metadata_parse.c: reads Iceberg table metadata JSON (Iceberg spec: "Table Metadata Fields",
 * "Snapshots", "Snapshot References", Appendix C "JSON serialization", format v1, v2 and v3) into
 * the arena-allocated model of metadata.h, and the lookups over that model.
 *
 * INTERFACE: ice_metadata_parse, ice_metadata_default_present, ice_kv_get, ice_metadata_schema,
 *   ice_metadata_current_schema, ice_metadata_spec, ice_metadata_default_spec,
 *   ice_metadata_sort_order, ice_metadata_snapshot, ice_metadata_current_snapshot,
 *   ice_metadata_ref
 * NOTES:
 *   - The input is hostile: jansson parses it (duplicate keys rejected, its own depth limit of
 *     2048), then every field is type-checked here. Ints must be JSON integers within int32,
 *     longs within int64 (jansson rejects bigger literals). Type nesting is capped at
 *     ICE_MAX_TYPE_DEPTH. Errors name the JSON path of the bad field, e.g.
 *     "Invalid Iceberg metadata: snapshots[2].summary.operation: missing required field".
 *   - Required fields follow the spec's per-version tables. Where readers are told to be lenient
 *     the parser is too: v1 "schema"/"partition-spec" legacy fields, v1 partition fields without
 *     field-id (1000 + position, the reference implementation's rule), v1 snapshots with
 *     "manifests" instead of "manifest-list", v3 snapshots without first-row-id/added-rows
 *     (created before an upgrade to v3). Optional fields given as JSON null count as absent.
 *   - Cross-checks as Iceberg Java's TableMetadata does: unique schema/spec/order/snapshot ids,
 *     unique field ids within a schema, identifier fields exist, current schema/spec/sort order
 *     exist, current snapshot and every ref's snapshot exist, "main" agrees with
 *     current-snapshot-id. When refs has no "main" but there is a current snapshot, an implicit
 *     main branch is added (ice_ref.implicit; the writer leaves it out).
 *   - Everything not understood is kept: unknown keys as raw JSON text per object (extra), and
 *     flags for which optional keys were present, so the writer can reproduce the input.
 *   - Lookups are linear scans; metadata holds at most thousands of objects.
 */
#include "iceberg/metadata.h"

#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

/* ---- parse context: arena, error, the JSON path of the value being read --------------------- */

typedef struct pctx {
    arena *a;
    sqe_error *err;
    int version;
    char path[384];
    size_t path_len;
} pctx;

static size_t path_append(pctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static size_t path_append(pctx *c, const char *fmt, ...) {
    size_t old = c->path_len;
    size_t room = sizeof c->path - c->path_len;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(c->path + c->path_len, room, fmt, ap);
    va_end(ap);
    if (n > 0) c->path_len += (size_t)n < room ? (size_t)n : room - 1;
    return old;
}

/* Enters key (or [index]); returns the mark to restore with path_pop. */
static size_t path_key(pctx *c, const char *key) {
    return path_append(c, "%s%.64s", c->path_len ? "." : "", key);
}
static size_t path_index(pctx *c, size_t idx) { return path_append(c, "[%zu]", idx); }
static void path_pop(pctx *c, size_t mark) {
    c->path_len = mark;
    c->path[mark] = '\0';
}

static int fail(pctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(pctx *c, const char *fmt, ...) {
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return err_set(c->err, SQE_ERR_INVALID_FILE, "Invalid Iceberg metadata: %s: %s",
                   c->path_len ? c->path : "(root)", msg);
}

/* Fails at key under the current path. */
static int fail_at(pctx *c, const char *key, const char *what) {
    size_t mark = path_key(c, key);
    int rc = fail(c, "%s", what);
    path_pop(c, mark);
    return rc;
}

static int nomem(pctx *c) { return err_nomem(c->err, "Iceberg metadata"); }

static const char *json_kind(const json_t *j) {
    switch (json_typeof(j)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a real number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    default: return "null";
    }
}

/* The value of key, or NULL when absent or null; a required one missing is an error. */
static int lookup(pctx *c, const json_t *obj, const char *key, bool required, json_t **out) {
    json_t *v = json_object_get(obj, key);
    if (v && json_is_null(v)) v = NULL;
    if (!v && required) return fail_at(c, key, "missing required field");
    *out = v;
    return SQE_OK;
}

static int wrong_type(pctx *c, const char *key, const json_t *v, const char *expected) {
    char what[96];
    snprintf(what, sizeof what, "expected %s, got %s", expected, json_kind(v));
    return fail_at(c, key, what);
}

static int get_i64(pctx *c, const json_t *obj, const char *key, bool required, int64_t *out,
                   bool *present) {
    json_t *v = NULL;
    SQE_TRY(lookup(c, obj, key, required, &v));
    if (present) *present = v != NULL;
    if (!v) return SQE_OK;
    if (!json_is_integer(v)) return wrong_type(c, key, v, "an integer (long)");
    *out = (int64_t)json_integer_value(v);
    return SQE_OK;
}

static int get_i32(pctx *c, const json_t *obj, const char *key, bool required, int32_t *out,
                   bool *present) {
    json_t *v = NULL;
    SQE_TRY(lookup(c, obj, key, required, &v));
    if (present) *present = v != NULL;
    if (!v) return SQE_OK;
    if (!json_is_integer(v)) return wrong_type(c, key, v, "an integer");
    json_int_t x = json_integer_value(v);
    if (x < INT32_MIN || x > INT32_MAX) return fail_at(c, key, "integer out of int range");
    *out = (int32_t)x;
    return SQE_OK;
}

static int get_str(pctx *c, const json_t *obj, const char *key, bool required, const char **out) {
    json_t *v = NULL;
    SQE_TRY(lookup(c, obj, key, required, &v));
    if (!v) {
        *out = NULL;
        return SQE_OK;
    }
    if (!json_is_string(v)) return wrong_type(c, key, v, "a string");
    *out = arena_strndup(c->a, json_string_value(v), json_string_length(v));
    return *out ? SQE_OK : nomem(c);
}

static int get_bool(pctx *c, const json_t *obj, const char *key, bool required, bool *out) {
    json_t *v = NULL;
    SQE_TRY(lookup(c, obj, key, required, &v));
    if (!v) return SQE_OK;
    if (!json_is_boolean(v)) return wrong_type(c, key, v, "a boolean");
    *out = json_is_true(v);
    return SQE_OK;
}

static int get_array(pctx *c, const json_t *obj, const char *key, bool required, json_t **out) {
    SQE_TRY(lookup(c, obj, key, required, out));
    if (*out && !json_is_array(*out)) return wrong_type(c, key, *out, "an array");
    return SQE_OK;
}

static int get_object(pctx *c, const json_t *obj, const char *key, bool required, json_t **out) {
    SQE_TRY(lookup(c, obj, key, required, out));
    if (*out && !json_is_object(*out)) return wrong_type(c, key, *out, "an object");
    return SQE_OK;
}

/* Raw JSON text of v in the arena. */
static int dump_raw(pctx *c, const json_t *v, const char **out) {
    char *text = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
    if (!text) return nomem(c);
    *out = arena_strdup(c->a, text);
    free(text);
    return *out ? SQE_OK : nomem(c);
}

/* Array elements counted and allocated: *out gets n zeroed elements of size `size`. */
static int alloc_items(pctx *c, size_t n, size_t size, void **out) {
    *out = NULL;
    if (n == 0) return SQE_OK;
    if (n > UINT32_MAX / 2) return fail(c, "array too long");
    *out = arena_zalloc(c->a, n * size);
    return *out ? SQE_OK : nomem(c);
}

static bool is_known(const char *key, const char *const *known) {
    for (; *known; known++)
        if (strcmp(key, *known) == 0) return true;
    return false;
}

/* Keeps the keys of obj not in known (NULL-terminated) as raw JSON. */
static int collect_extra(pctx *c, const json_t *obj, const char *const *known, ice_kv_list *out) {
    const char *key;
    json_t *v = NULL;
    size_t n = 0;
    json_object_foreach((json_t *)obj, key, v) if (!is_known(key, known)) n++;
    out->n = 0;
    out->items = NULL;
    if (!n) return SQE_OK;
    SQE_TRY(alloc_items(c, n, sizeof(ice_kv), (void **)&out->items));
    json_object_foreach((json_t *)obj, key, v) {
        if (is_known(key, known)) continue;
        ice_kv *kv = &out->items[out->n++];
        kv->key = arena_strdup(c->a, key);
        if (!kv->key) return nomem(c);
        SQE_TRY(dump_raw(c, v, &kv->value));
    }
    return SQE_OK;
}

/* A JSON object of string values into a kv list; with operation_first, "operation" leads. */
static int parse_string_map(pctx *c, const json_t *obj, bool operation_first, ice_kv_list *out) {
    size_t n = json_object_size(obj);
    out->n = 0;
    SQE_TRY(alloc_items(c, n, sizeof(ice_kv), (void **)&out->items));
    const char *key;
    json_t *v = NULL;
    for (int pass = operation_first ? 0 : 1; pass < 2; pass++) {
        json_object_foreach((json_t *)obj, key, v) {
            bool is_op = operation_first && strcmp(key, "operation") == 0;
            if ((pass == 0) != is_op) continue;
            if (!json_is_string(v)) return wrong_type(c, key, v, "a string");
            ice_kv *kv = &out->items[out->n++];
            kv->key = arena_strdup(c->a, key);
            kv->value = arena_strndup(c->a, json_string_value(v), json_string_length(v));
            if (!kv->key || !kv->value) return nomem(c);
        }
    }
    return SQE_OK;
}

static int parse_int_list(pctx *c, const json_t *obj, const char *key, bool required,
                          uint32_t *n_out, int32_t **out, bool *present) {
    json_t *arr;
    SQE_TRY(get_array(c, obj, key, required, &arr));
    *n_out = 0;
    *out = NULL;
    if (present) *present = arr != NULL;
    if (!arr) return SQE_OK;
    size_t n = json_array_size(arr);
    SQE_TRY(alloc_items(c, n, sizeof(int32_t), (void **)out));
    size_t mark = path_key(c, key);
    for (size_t i = 0; i < n; i++) {
        json_t *v = json_array_get(arr, i);
        size_t m2 = path_index(c, i);
        if (!json_is_integer(v)) return fail(c, "expected an integer, got %s", json_kind(v));
        json_int_t x = json_integer_value(v);
        if (x < INT32_MIN || x > INT32_MAX) return fail(c, "integer out of int range");
        (*out)[i] = (int32_t)x;
        path_pop(c, m2);
    }
    path_pop(c, mark);
    *n_out = (uint32_t)n;
    return SQE_OK;
}

/* ---- schemas --------------------------------------------------------------------------------- */

static int parse_type(pctx *c, const json_t *j, ice_type *out, int depth);

/* Checks that a default value has the JSON shape Appendix D ("JSON single-value
 * serialization") gives its type; the value itself is kept raw and interpreted by its user.
 * unknown, variant, geometry and geography must default to null (spec "Default values"). */
static int check_default(pctx *c, const char *key, const ice_type *t, const json_t *v) {
    if (json_is_null(v)) return SQE_OK;
    bool ok;
    const char *want;
    switch (t->kind) {
    case ICE_TYPE_BOOLEAN: ok = json_is_boolean(v); want = "a boolean"; break;
    case ICE_TYPE_INT:
        ok = json_is_integer(v) && json_integer_value(v) >= INT32_MIN &&
             json_integer_value(v) <= INT32_MAX;
        want = "an int";
        break;
    case ICE_TYPE_LONG: ok = json_is_integer(v); want = "a long"; break;
    case ICE_TYPE_FLOAT:
    case ICE_TYPE_DOUBLE: ok = json_is_number(v); want = "a number"; break;
    case ICE_TYPE_STRUCT: ok = json_is_object(v); want = "an object"; break;
    case ICE_TYPE_LIST: ok = json_is_array(v); want = "an array"; break;
    case ICE_TYPE_MAP:
        ok = json_is_object(v) && json_is_array(json_object_get(v, "keys")) &&
             json_is_array(json_object_get(v, "values")) &&
             json_array_size(json_object_get(v, "keys")) ==
                 json_array_size(json_object_get(v, "values"));
        want = "an object with \"keys\" and \"values\" arrays of one length";
        break;
    case ICE_TYPE_UNKNOWN:
    case ICE_TYPE_VARIANT:
    case ICE_TYPE_GEOMETRY:
    case ICE_TYPE_GEOGRAPHY: ok = false; want = "null for this type"; break;
    default: ok = json_is_string(v); want = "a string"; break;
    }
    if (ok) return SQE_OK;
    char msg[160];
    snprintf(msg, sizeof msg, "default must be %s, got %s", want, json_kind(v));
    return fail_at(c, key, msg);
}

static const char *const field_keys[] = {"id",  "name", "required", "type", "doc",
                                         "initial-default", "write-default", NULL};

static int parse_struct_field(pctx *c, const json_t *obj, ice_field *f, int depth) {
    if (!json_is_object(obj)) return fail(c, "expected a field object, got %s", json_kind(obj));
    SQE_TRY(get_i32(c, obj, "id", true, &f->id, NULL));
    SQE_TRY(get_str(c, obj, "name", true, &f->name));
    SQE_TRY(get_bool(c, obj, "required", true, &f->required));
    SQE_TRY(get_str(c, obj, "doc", false, &f->doc));
    json_t *t = NULL;
    SQE_TRY(lookup(c, obj, "type", true, &t));
    size_t mark = path_key(c, "type");
    SQE_TRY(parse_type(c, t, &f->type, depth + 1));
    path_pop(c, mark);
    /* Defaults (v3) are kept as raw JSON after a shape check; an explicit null is kept too. */
    json_t *d = json_object_get(obj, "initial-default");
    if (d) {
        SQE_TRY(check_default(c, "initial-default", &f->type, d));
        SQE_TRY(dump_raw(c, d, &f->initial_default));
    }
    d = json_object_get(obj, "write-default");
    if (d) {
        SQE_TRY(check_default(c, "write-default", &f->type, d));
        SQE_TRY(dump_raw(c, d, &f->write_default));
    }
    return collect_extra(c, obj, field_keys, &f->extra);
}

static int parse_child(pctx *c, const json_t *obj, const char *id_key, const char *type_key,
                       const char *req_key, const char *name, ice_field *f, int depth) {
    SQE_TRY(get_i32(c, obj, id_key, true, &f->id, NULL));
    f->name = name;
    if (req_key) {
        SQE_TRY(get_bool(c, obj, req_key, true, &f->required));
    } else {
        f->required = true; /* map keys */
    }
    json_t *t = NULL;
    SQE_TRY(lookup(c, obj, type_key, true, &t));
    size_t mark = path_key(c, type_key);
    SQE_TRY(parse_type(c, t, &f->type, depth + 1));
    path_pop(c, mark);
    return SQE_OK;
}

static int parse_type(pctx *c, const json_t *j, ice_type *out, int depth) {
    memset(out, 0, sizeof *out);
    if (depth > ICE_MAX_TYPE_DEPTH) return fail(c, "types nested deeper than %d", ICE_MAX_TYPE_DEPTH);
    if (json_is_string(j)) {
        sqe_error tmp;
        if (ice_type_parse_primitive(c->a, json_string_value(j), out, &tmp) != SQE_OK) {
            if (tmp.code == SQE_ERR_OUT_OF_MEMORY) return nomem(c);
            return fail(c, "%s", tmp.message);
        }
        return SQE_OK;
    }
    if (!json_is_object(j)) return fail(c, "expected a type name or object, got %s", json_kind(j));
    const char *kind;
    SQE_TRY(get_str(c, j, "type", true, &kind));
    if (strcmp(kind, "struct") == 0) {
        json_t *arr;
        SQE_TRY(get_array(c, j, "fields", true, &arr));
        size_t n = json_array_size(arr);
        out->kind = ICE_TYPE_STRUCT;
        SQE_TRY(alloc_items(c, n, sizeof(ice_field), (void **)&out->fields));
        size_t mark = path_key(c, "fields");
        for (size_t i = 0; i < n; i++) {
            size_t m2 = path_index(c, i);
            SQE_TRY(parse_struct_field(c, json_array_get(arr, i), &out->fields[i], depth));
            path_pop(c, m2);
        }
        path_pop(c, mark);
        out->n_fields = (uint32_t)n;
        return SQE_OK;
    }
    if (strcmp(kind, "list") == 0) {
        out->kind = ICE_TYPE_LIST;
        SQE_TRY(alloc_items(c, 1, sizeof(ice_field), (void **)&out->fields));
        out->n_fields = 1;
        return parse_child(c, j, "element-id", "element", "element-required", "element",
                           &out->fields[0], depth);
    }
    if (strcmp(kind, "map") == 0) {
        out->kind = ICE_TYPE_MAP;
        SQE_TRY(alloc_items(c, 2, sizeof(ice_field), (void **)&out->fields));
        out->n_fields = 2;
        SQE_TRY(parse_child(c, j, "key-id", "key", NULL, "key", &out->fields[0], depth));
        return parse_child(c, j, "value-id", "value", "value-required", "value", &out->fields[1],
                           depth);
    }
    return fail_at(c, "type", "expected \"struct\", \"list\" or \"map\"");
}

/* Field ids of a type tree into a growing array. */
typedef struct id_vec {
    int64_t *v;
    size_t n, cap;
    bool failed;
} id_vec;

static void id_vec_push(id_vec *iv, int64_t x) {
    if (iv->failed) return;
    if (iv->n == iv->cap) {
        size_t cap = iv->cap ? iv->cap * 2 : 64;
        int64_t *nv = realloc(iv->v, cap * sizeof *nv);
        if (!nv) {
            iv->failed = true;
            return;
        }
        iv->v = nv;
        iv->cap = cap;
    }
    iv->v[iv->n++] = x;
}

static void collect_field_ids(const ice_type *t, id_vec *iv) {
    for (uint32_t i = 0; i < t->n_fields; i++) {
        id_vec_push(iv, t->fields[i].id);
        collect_field_ids(&t->fields[i].type, iv);
    }
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* Sorts iv and reports a repeated value (returns true and sets *dup). */
static bool find_duplicate(id_vec *iv, int64_t *dup) {
    if (iv->n < 2) return false;
    qsort(iv->v, iv->n, sizeof *iv->v, cmp_i64);
    for (size_t i = 1; i < iv->n; i++) {
        if (iv->v[i] == iv->v[i - 1]) {
            *dup = iv->v[i];
            return true;
        }
    }
    return false;
}

static const char *const schema_keys[] = {"type", "schema-id", "identifier-field-ids", "fields",
                                          NULL};

static int parse_schema(pctx *c, const json_t *obj, bool id_required, ice_schema *s) {
    if (!json_is_object(obj)) return fail(c, "expected a schema object, got %s", json_kind(obj));
    SQE_TRY(get_i32(c, obj, "schema-id", id_required, &s->schema_id, &s->has_schema_id));
    SQE_TRY(parse_int_list(c, obj, "identifier-field-ids", false, &s->n_identifier_field_ids,
                           &s->identifier_field_ids, &s->has_identifier_field_ids));
    const char *kind;
    SQE_TRY(get_str(c, obj, "type", true, &kind));
    if (strcmp(kind, "struct") != 0) return fail_at(c, "type", "a schema must be a \"struct\"");
    SQE_TRY(parse_type(c, obj, &s->type, 0));
    SQE_TRY(collect_extra(c, obj, schema_keys, &s->extra));
    /* Field ids are unique within a schema; identifier fields must exist. */
    id_vec iv = {0};
    collect_field_ids(&s->type, &iv);
    int rc = SQE_OK;
    int64_t dup;
    if (iv.failed) {
        rc = nomem(c);
    } else if (find_duplicate(&iv, &dup)) {
        rc = fail(c, "duplicate field id %" PRId64, dup);
    }
    free(iv.v);
    if (rc != SQE_OK) return rc;
    for (uint32_t i = 0; i < s->n_identifier_field_ids; i++) {
        if (!ice_schema_find_field(s, s->identifier_field_ids[i]))
            return fail_at(c, "identifier-field-ids", "names a field id not in the schema");
    }
    return SQE_OK;
}

/* ---- partition specs and sort orders --------------------------------------------------------- */

static int parse_transform(pctx *c, const json_t *obj, ice_transform *t, const char **text) {
    SQE_TRY(get_str(c, obj, "transform", true, text));
    sqe_error tmp;
    if (ice_transform_parse(*text, t, &tmp) != SQE_OK) return fail_at(c, "transform", tmp.message);
    return SQE_OK;
}

/* source-id / source-ids of a partition or sort field: v1/v2 need source-id; v3 either. */
static int parse_sources(pctx *c, const json_t *obj, int32_t *source_id, bool *has_source_id,
                         uint32_t *n_ids, int32_t **ids) {
    bool has_ids = false;
    SQE_TRY(parse_int_list(c, obj, "source-ids", false, n_ids, ids, &has_ids));
    SQE_TRY(get_i32(c, obj, "source-id", c->version < 3 || !has_ids, source_id, has_source_id));
    if (has_ids && *n_ids == 0) return fail_at(c, "source-ids", "must not be empty");
    if (!*has_source_id) *source_id = (*ids)[0];
    return SQE_OK;
}

static const char *const partition_field_keys[] = {"source-id", "source-ids", "field-id", "name",
                                                   "transform", NULL};

static int parse_partition_fields(pctx *c, const json_t *arr, ice_partition_spec *spec) {
    size_t n = json_array_size(arr);
    SQE_TRY(alloc_items(c, n, sizeof(ice_partition_field), (void **)&spec->fields));
    for (size_t i = 0; i < n; i++) {
        json_t *obj = json_array_get(arr, i);
        ice_partition_field *f = &spec->fields[i];
        size_t mark = path_index(c, i);
        if (!json_is_object(obj)) return fail(c, "expected an object, got %s", json_kind(obj));
        SQE_TRY(parse_sources(c, obj, &f->source_id, &f->has_source_id, &f->n_source_ids,
                              &f->source_ids));
        SQE_TRY(get_i32(c, obj, "field-id", c->version >= 2, &f->field_id, &f->has_field_id));
        if (!f->has_field_id) f->field_id = ICE_PARTITION_FIELD_ID_START + (int32_t)i;
        SQE_TRY(get_str(c, obj, "name", true, &f->name));
        SQE_TRY(parse_transform(c, obj, &f->transform, &f->transform_text));
        SQE_TRY(collect_extra(c, obj, partition_field_keys, &f->extra));
        path_pop(c, mark);
    }
    spec->n_fields = (uint32_t)n;
    return SQE_OK;
}

static const char *const spec_keys[] = {"spec-id", "fields", NULL};

static int parse_spec(pctx *c, const json_t *obj, ice_partition_spec *spec) {
    if (!json_is_object(obj)) return fail(c, "expected a partition spec object, got %s",
                                          json_kind(obj));
    SQE_TRY(get_i32(c, obj, "spec-id", true, &spec->spec_id, NULL));
    json_t *arr;
    SQE_TRY(get_array(c, obj, "fields", true, &arr));
    size_t mark = path_key(c, "fields");
    SQE_TRY(parse_partition_fields(c, arr, spec));
    path_pop(c, mark);
    return collect_extra(c, obj, spec_keys, &spec->extra);
}

static const char *const sort_field_keys[] = {"transform", "source-id", "source-ids", "direction",
                                              "null-order", NULL};
static const char *const sort_order_keys[] = {"order-id", "fields", NULL};

static int parse_sort_order(pctx *c, const json_t *obj, ice_sort_order *so) {
    if (!json_is_object(obj)) return fail(c, "expected a sort order object, got %s", json_kind(obj));
    SQE_TRY(get_i32(c, obj, "order-id", true, &so->order_id, NULL));
    json_t *arr;
    SQE_TRY(get_array(c, obj, "fields", true, &arr));
    size_t n = json_array_size(arr);
    SQE_TRY(alloc_items(c, n, sizeof(ice_sort_field), (void **)&so->fields));
    size_t mark = path_key(c, "fields");
    for (size_t i = 0; i < n; i++) {
        json_t *fo = json_array_get(arr, i);
        ice_sort_field *f = &so->fields[i];
        size_t m2 = path_index(c, i);
        if (!json_is_object(fo)) return fail(c, "expected an object, got %s", json_kind(fo));
        SQE_TRY(parse_transform(c, fo, &f->transform, &f->transform_text));
        SQE_TRY(parse_sources(c, fo, &f->source_id, &f->has_source_id, &f->n_source_ids,
                              &f->source_ids));
        const char *dir, *nulls;
        SQE_TRY(get_str(c, fo, "direction", true, &dir));
        SQE_TRY(get_str(c, fo, "null-order", true, &nulls));
        if (strcmp(dir, "asc") == 0) f->descending = false;
        else if (strcmp(dir, "desc") == 0) f->descending = true;
        else return fail_at(c, "direction", "expected \"asc\" or \"desc\"");
        if (strcmp(nulls, "nulls-first") == 0) f->nulls_first = true;
        else if (strcmp(nulls, "nulls-last") == 0) f->nulls_first = false;
        else return fail_at(c, "null-order", "expected \"nulls-first\" or \"nulls-last\"");
        SQE_TRY(collect_extra(c, fo, sort_field_keys, &f->extra));
        path_pop(c, m2);
    }
    path_pop(c, mark);
    so->n_fields = (uint32_t)n;
    return collect_extra(c, obj, sort_order_keys, &so->extra);
}

/* ---- snapshots, logs, refs, statistics ------------------------------------------------------- */

static const char *const snapshot_keys[] = {
    "snapshot-id", "parent-snapshot-id", "sequence-number", "timestamp-ms", "manifest-list",
    "manifests", "summary", "schema-id", "first-row-id", "added-rows", "key-id", NULL};

static int parse_snapshot(pctx *c, const json_t *obj, ice_snapshot *s) {
    if (!json_is_object(obj)) return fail(c, "expected a snapshot object, got %s", json_kind(obj));
    bool v2 = c->version >= 2;
    SQE_TRY(get_i64(c, obj, "snapshot-id", true, &s->snapshot_id, NULL));
    SQE_TRY(get_i64(c, obj, "parent-snapshot-id", false, &s->parent_snapshot_id, &s->has_parent));
    SQE_TRY(get_i64(c, obj, "sequence-number", v2, &s->sequence_number, &s->has_sequence_number));
    SQE_TRY(get_i64(c, obj, "timestamp-ms", true, &s->timestamp_ms, NULL));
    SQE_TRY(get_str(c, obj, "manifest-list", v2, &s->manifest_list));
    json_t *arr;
    SQE_TRY(get_array(c, obj, "manifests", false, &arr));
    if (arr) {
        size_t n = json_array_size(arr);
        s->has_manifests = true;
        SQE_TRY(alloc_items(c, n, sizeof(char *), (void **)&s->manifests));
        size_t mark = path_key(c, "manifests");
        for (size_t i = 0; i < n; i++) {
            json_t *v = json_array_get(arr, i);
            size_t m2 = path_index(c, i);
            if (!json_is_string(v)) return fail(c, "expected a string, got %s", json_kind(v));
            s->manifests[i] = arena_strndup(c->a, json_string_value(v), json_string_length(v));
            if (!s->manifests[i]) return nomem(c);
            path_pop(c, m2);
        }
        path_pop(c, mark);
        s->n_manifests = (uint32_t)n;
    }
    if (!s->manifest_list && !s->has_manifests)
        return fail_at(c, "manifest-list", "missing required field (or \"manifests\")");
    json_t *summary;
    SQE_TRY(get_object(c, obj, "summary", v2, &summary));
    if (summary) {
        s->has_summary = true;
        size_t mark = path_key(c, "summary");
        SQE_TRY(parse_string_map(c, summary, true, &s->summary));
        if (!ice_kv_get(&s->summary, "operation")) return fail_at(c, "operation", "missing required field");
        path_pop(c, mark);
    }
    SQE_TRY(get_i32(c, obj, "schema-id", false, &s->schema_id, &s->has_schema_id));
    SQE_TRY(get_i64(c, obj, "first-row-id", false, &s->first_row_id, &s->has_first_row_id));
    SQE_TRY(get_i64(c, obj, "added-rows", false, &s->added_rows, &s->has_added_rows));
    if (s->has_first_row_id && s->first_row_id < 0) return fail_at(c, "first-row-id", "must not be negative");
    if (s->has_added_rows && s->added_rows < 0) return fail_at(c, "added-rows", "must not be negative");
    SQE_TRY(get_str(c, obj, "key-id", false, &s->key_id));
    return collect_extra(c, obj, snapshot_keys, &s->extra);
}

static const char *const ref_keys[] = {"snapshot-id", "type", "min-snapshots-to-keep",
                                       "max-snapshot-age-ms", "max-ref-age-ms", NULL};

static int parse_ref(pctx *c, const char *name, const json_t *obj, ice_ref *r) {
    if (!json_is_object(obj)) return fail(c, "expected a reference object, got %s", json_kind(obj));
    r->name = arena_strdup(c->a, name);
    if (!r->name) return nomem(c);
    SQE_TRY(get_i64(c, obj, "snapshot-id", true, &r->snapshot_id, NULL));
    const char *type;
    SQE_TRY(get_str(c, obj, "type", true, &type));
    if (strcasecmp(type, "branch") == 0) r->type = ICE_REF_BRANCH;
    else if (strcasecmp(type, "tag") == 0) r->type = ICE_REF_TAG;
    else return fail_at(c, "type", "expected \"branch\" or \"tag\"");
    SQE_TRY(get_i32(c, obj, "min-snapshots-to-keep", false, &r->min_snapshots_to_keep,
                    &r->has_min_snapshots_to_keep));
    SQE_TRY(get_i64(c, obj, "max-snapshot-age-ms", false, &r->max_snapshot_age_ms,
                    &r->has_max_snapshot_age_ms));
    SQE_TRY(get_i64(c, obj, "max-ref-age-ms", false, &r->max_ref_age_ms, &r->has_max_ref_age_ms));
    return collect_extra(c, obj, ref_keys, &r->extra);
}

static const char *const snapshot_log_keys[] = {"timestamp-ms", "snapshot-id", NULL};
static const char *const metadata_log_keys[] = {"timestamp-ms", "metadata-file", NULL};

static int parse_blob_metadata(pctx *c, const json_t *obj) {
    json_t *arr;
    SQE_TRY(get_array(c, obj, "blob-metadata", true, &arr));
    size_t mark = path_key(c, "blob-metadata");
    for (size_t i = 0; i < json_array_size(arr); i++) {
        json_t *b = json_array_get(arr, i);
        size_t m2 = path_index(c, i);
        if (!json_is_object(b)) return fail(c, "expected an object, got %s", json_kind(b));
        const char *type;
        int64_t x;
        uint32_t n;
        int32_t *ids;
        SQE_TRY(get_str(c, b, "type", true, &type));
        SQE_TRY(get_i64(c, b, "snapshot-id", true, &x, NULL));
        SQE_TRY(get_i64(c, b, "sequence-number", true, &x, NULL));
        SQE_TRY(parse_int_list(c, b, "fields", true, &n, &ids, NULL));
        json_t *props;
        SQE_TRY(get_object(c, b, "properties", false, &props));
        if (props) {
            ice_kv_list kv;
            size_t m3 = path_key(c, "properties");
            SQE_TRY(parse_string_map(c, props, false, &kv));
            path_pop(c, m3);
        }
        path_pop(c, m2);
    }
    path_pop(c, mark);
    return SQE_OK;
}

/* "statistics" (table statistics, Puffin) or, with partition set, "partition-statistics":
 * the fields are checked (spec "Table Statistics", "Partition Statistics"), the objects kept. */
static int parse_statistics(pctx *c, const json_t *arr, bool partition, uint32_t *n_out,
                            ice_statistics_file **out) {
    size_t n = json_array_size(arr);
    SQE_TRY(alloc_items(c, n, sizeof(ice_statistics_file), (void **)out));
    for (size_t i = 0; i < n; i++) {
        json_t *obj = json_array_get(arr, i);
        ice_statistics_file *f = &(*out)[i];
        size_t mark = path_index(c, i);
        if (!json_is_object(obj)) return fail(c, "expected an object, got %s", json_kind(obj));
        int64_t size;
        SQE_TRY(get_i64(c, obj, "snapshot-id", true, &f->snapshot_id, NULL));
        SQE_TRY(get_str(c, obj, "statistics-path", true, &f->path));
        SQE_TRY(get_i64(c, obj, "file-size-in-bytes", true, &size, NULL));
        if (!partition) {
            const char *key_metadata;
            SQE_TRY(get_i64(c, obj, "file-footer-size-in-bytes", true, &size, NULL));
            SQE_TRY(get_str(c, obj, "key-metadata", false, &key_metadata));
            SQE_TRY(parse_blob_metadata(c, obj));
        }
        SQE_TRY(dump_raw(c, obj, &f->json));
        path_pop(c, mark);
    }
    *n_out = (uint32_t)n;
    return SQE_OK;
}

/* "encryption-keys" (v3): objects with a string key-id; the other known members are checked by
 * JSON type, and the list is kept raw. */
static int parse_encryption_keys(pctx *c, const json_t *arr, const char **out) {
    size_t mark = path_key(c, "encryption-keys");
    for (size_t i = 0; i < json_array_size(arr); i++) {
        json_t *k = json_array_get(arr, i);
        size_t m2 = path_index(c, i);
        if (!json_is_object(k)) return fail(c, "expected an object, got %s", json_kind(k));
        const char *s;
        SQE_TRY(get_str(c, k, "key-id", true, &s));
        SQE_TRY(get_str(c, k, "encrypted-key-metadata", false, &s));
        SQE_TRY(get_str(c, k, "encrypted-by-id", false, &s));
        json_t *props;
        SQE_TRY(get_object(c, k, "properties", false, &props));
        if (props) {
            ice_kv_list kv;
            size_t m3 = path_key(c, "properties");
            SQE_TRY(parse_string_map(c, props, false, &kv));
            path_pop(c, m3);
        }
        path_pop(c, m2);
    }
    path_pop(c, mark);
    return dump_raw(c, arr, out);
}

/* ---- table metadata -------------------------------------------------------------------------- */

static const char *const metadata_keys[] = {
    "format-version", "table-uuid", "location", "last-sequence-number", "last-updated-ms",
    "last-column-id", "schema", "schemas", "current-schema-id", "partition-spec",
    "partition-specs", "default-spec-id", "last-partition-id", "properties",
    "current-snapshot-id", "snapshots", "snapshot-log", "metadata-log", "sort-orders",
    "default-sort-order-id", "refs", "statistics", "partition-statistics", "next-row-id",
    "encryption-keys", NULL};

uint32_t ice_metadata_default_present(int format_version) {
    uint32_t p = ICE_MD_TABLE_UUID | ICE_MD_SCHEMAS | ICE_MD_CURRENT_SCHEMA_ID |
                 ICE_MD_PARTITION_SPECS | ICE_MD_DEFAULT_SPEC_ID | ICE_MD_LAST_PARTITION_ID |
                 ICE_MD_PROPERTIES | ICE_MD_SNAPSHOTS | ICE_MD_SNAPSHOT_LOG | ICE_MD_METADATA_LOG |
                 ICE_MD_SORT_ORDERS | ICE_MD_DEFAULT_SORT_ORDER_ID | ICE_MD_REFS |
                 ICE_MD_STATISTICS | ICE_MD_PARTITION_STATISTICS;
    if (format_version == 1) p |= ICE_MD_LEGACY_SCHEMA | ICE_MD_LEGACY_PARTITION_SPEC;
    if (format_version >= 2) p |= ICE_MD_LAST_SEQUENCE_NUMBER;
    if (format_version >= 3) p |= ICE_MD_NEXT_ROW_ID | ICE_MD_CURRENT_SNAPSHOT_NULL;
    else p |= ICE_MD_CURRENT_SNAPSHOT_ID;
    return p;
}

/* Sets bit in m->present when obj has key (even as null). */
static void note_present(ice_metadata *m, const json_t *obj, const char *key, uint32_t bit) {
    if (json_object_get(obj, key)) m->present |= bit;
}

static int parse_schemas(pctx *c, const json_t *root, ice_metadata *m) {
    json_t *arr, *legacy;
    bool v2 = c->version >= 2;
    SQE_TRY(get_array(c, root, "schemas", v2, &arr));
    SQE_TRY(get_object(c, root, "schema", false, &legacy));
    if (arr) {
        size_t n = json_array_size(arr);
        if (n == 0) return fail_at(c, "schemas", "must not be empty");
        SQE_TRY(alloc_items(c, n, sizeof(ice_schema), (void **)&m->schemas));
        size_t mark = path_key(c, "schemas");
        for (size_t i = 0; i < n; i++) {
            size_t m2 = path_index(c, i);
            SQE_TRY(parse_schema(c, json_array_get(arr, i), v2, &m->schemas[i]));
            path_pop(c, m2);
        }
        path_pop(c, mark);
        m->n_schemas = (uint32_t)n;
        SQE_TRY(get_i32(c, root, "current-schema-id", true, &m->current_schema_id, NULL));
        if (legacy) {
            m->present |= ICE_MD_LEGACY_SCHEMA;
            SQE_TRY(dump_raw(c, legacy, &m->legacy_schema_json));
        }
        return SQE_OK;
    }
    /* v1: the single "schema" is schema 0 unless it names its id. */
    if (!legacy) return fail_at(c, "schemas", "missing required field (or \"schema\")");
    SQE_TRY(alloc_items(c, 1, sizeof(ice_schema), (void **)&m->schemas));
    size_t mark = path_key(c, "schema");
    SQE_TRY(parse_schema(c, legacy, false, &m->schemas[0]));
    path_pop(c, mark);
    m->n_schemas = 1;
    m->current_schema_id = m->schemas[0].schema_id;
    m->present |= ICE_MD_LEGACY_SCHEMA;
    m->present &= ~(uint32_t)ICE_MD_SCHEMAS;
    bool has_current = false;
    int32_t cur = 0;
    SQE_TRY(get_i32(c, root, "current-schema-id", false, &cur, &has_current));
    if (has_current && cur != m->current_schema_id)
        return fail_at(c, "current-schema-id", "does not match the id of \"schema\"");
    return SQE_OK;
}

static int parse_specs(pctx *c, const json_t *root, ice_metadata *m) {
    json_t *arr, *legacy;
    bool v2 = c->version >= 2;
    SQE_TRY(get_array(c, root, "partition-specs", v2, &arr));
    SQE_TRY(get_array(c, root, "partition-spec", false, &legacy));
    if (arr) {
        size_t n = json_array_size(arr);
        if (n == 0) return fail_at(c, "partition-specs", "must not be empty");
        SQE_TRY(alloc_items(c, n, sizeof(ice_partition_spec), (void **)&m->specs));
        size_t mark = path_key(c, "partition-specs");
        for (size_t i = 0; i < n; i++) {
            size_t m2 = path_index(c, i);
            SQE_TRY(parse_spec(c, json_array_get(arr, i), &m->specs[i]));
            path_pop(c, m2);
        }
        path_pop(c, mark);
        m->n_specs = (uint32_t)n;
        SQE_TRY(get_i32(c, root, "default-spec-id", true, &m->default_spec_id, NULL));
        if (legacy) {
            m->present |= ICE_MD_LEGACY_PARTITION_SPEC;
            SQE_TRY(dump_raw(c, legacy, &m->legacy_partition_spec_json));
        }
    } else {
        if (!legacy)
            return fail_at(c, "partition-specs", "missing required field (or \"partition-spec\")");
        SQE_TRY(alloc_items(c, 1, sizeof(ice_partition_spec), (void **)&m->specs));
        size_t mark = path_key(c, "partition-spec");
        SQE_TRY(parse_partition_fields(c, legacy, &m->specs[0]));
        path_pop(c, mark);
        m->n_specs = 1;
        m->default_spec_id = 0;
        m->present |= ICE_MD_LEGACY_PARTITION_SPEC;
        m->present &= ~(uint32_t)ICE_MD_PARTITION_SPECS;
        bool has_default = false;
        int32_t def = 0;
        SQE_TRY(get_i32(c, root, "default-spec-id", false, &def, &has_default));
        if (has_default && def != 0)
            return fail_at(c, "default-spec-id", "must be 0 with only \"partition-spec\"");
    }
    bool has_last = false;
    SQE_TRY(get_i32(c, root, "last-partition-id", v2, &m->last_partition_id, &has_last));
    if (!has_last) {
        int32_t max = ICE_PARTITION_FIELD_ID_START - 1;
        for (uint32_t i = 0; i < m->n_specs; i++)
            for (uint32_t j = 0; j < m->specs[i].n_fields; j++)
                if (m->specs[i].fields[j].field_id > max) max = m->specs[i].fields[j].field_id;
        m->last_partition_id = max;
    }
    return SQE_OK;
}

static int parse_sort_orders(pctx *c, const json_t *root, ice_metadata *m) {
    json_t *arr;
    bool v2 = c->version >= 2;
    SQE_TRY(get_array(c, root, "sort-orders", v2, &arr));
    if (!arr) { /* v1 without sort orders: unsorted */
        SQE_TRY(alloc_items(c, 1, sizeof(ice_sort_order), (void **)&m->sort_orders));
        m->n_sort_orders = 1;
        bool has_default = false;
        SQE_TRY(get_i32(c, root, "default-sort-order-id", false, &m->default_sort_order_id,
                        &has_default));
        if (has_default && m->default_sort_order_id != 0)
            return fail_at(c, "default-sort-order-id", "names a sort order that does not exist");
        return SQE_OK;
    }
    size_t n = json_array_size(arr);
    SQE_TRY(alloc_items(c, n, sizeof(ice_sort_order), (void **)&m->sort_orders));
    size_t mark = path_key(c, "sort-orders");
    for (size_t i = 0; i < n; i++) {
        size_t m2 = path_index(c, i);
        SQE_TRY(parse_sort_order(c, json_array_get(arr, i), &m->sort_orders[i]));
        path_pop(c, m2);
    }
    path_pop(c, mark);
    m->n_sort_orders = (uint32_t)n;
    return get_i32(c, root, "default-sort-order-id", true, &m->default_sort_order_id, NULL);
}

static int parse_snapshots_and_logs(pctx *c, const json_t *root, ice_metadata *m) {
    json_t *arr;
    SQE_TRY(get_array(c, root, "snapshots", false, &arr));
    if (arr) {
        size_t n = json_array_size(arr);
        SQE_TRY(alloc_items(c, n, sizeof(ice_snapshot), (void **)&m->snapshots));
        size_t mark = path_key(c, "snapshots");
        for (size_t i = 0; i < n; i++) {
            size_t m2 = path_index(c, i);
            SQE_TRY(parse_snapshot(c, json_array_get(arr, i), &m->snapshots[i]));
            path_pop(c, m2);
        }
        path_pop(c, mark);
        m->n_snapshots = (uint32_t)n;
    }
    SQE_TRY(get_array(c, root, "snapshot-log", false, &arr));
    if (arr) {
        size_t n = json_array_size(arr);
        SQE_TRY(alloc_items(c, n, sizeof(ice_snapshot_log_entry), (void **)&m->snapshot_log));
        size_t mark = path_key(c, "snapshot-log");
        for (size_t i = 0; i < n; i++) {
            json_t *obj = json_array_get(arr, i);
            ice_snapshot_log_entry *e = &m->snapshot_log[i];
            size_t m2 = path_index(c, i);
            if (!json_is_object(obj)) return fail(c, "expected an object, got %s", json_kind(obj));
            SQE_TRY(get_i64(c, obj, "timestamp-ms", true, &e->timestamp_ms, NULL));
            SQE_TRY(get_i64(c, obj, "snapshot-id", true, &e->snapshot_id, NULL));
            SQE_TRY(collect_extra(c, obj, snapshot_log_keys, &e->extra));
            path_pop(c, m2);
        }
        path_pop(c, mark);
        m->n_snapshot_log = (uint32_t)n;
    }
    SQE_TRY(get_array(c, root, "metadata-log", false, &arr));
    if (arr) {
        size_t n = json_array_size(arr);
        SQE_TRY(alloc_items(c, n, sizeof(ice_metadata_log_entry), (void **)&m->metadata_log));
        size_t mark = path_key(c, "metadata-log");
        for (size_t i = 0; i < n; i++) {
            json_t *obj = json_array_get(arr, i);
            ice_metadata_log_entry *e = &m->metadata_log[i];
            size_t m2 = path_index(c, i);
            if (!json_is_object(obj)) return fail(c, "expected an object, got %s", json_kind(obj));
            SQE_TRY(get_i64(c, obj, "timestamp-ms", true, &e->timestamp_ms, NULL));
            SQE_TRY(get_str(c, obj, "metadata-file", true, &e->metadata_file));
            SQE_TRY(collect_extra(c, obj, metadata_log_keys, &e->extra));
            path_pop(c, m2);
        }
        path_pop(c, mark);
        m->n_metadata_log = (uint32_t)n;
    }
    return SQE_OK;
}

static int parse_refs(pctx *c, const json_t *root, ice_metadata *m) {
    json_t *refs;
    SQE_TRY(get_object(c, root, "refs", false, &refs));
    size_t n = refs ? json_object_size(refs) : 0;
    /* One spare slot for an implicit main branch. */
    SQE_TRY(alloc_items(c, n + 1, sizeof(ice_ref), (void **)&m->refs));
    if (refs) {
        size_t mark = path_key(c, "refs");
        const char *name;
        json_t *v;
        json_object_foreach(refs, name, v) {
            size_t m2 = path_key(c, name);
            SQE_TRY(parse_ref(c, name, v, &m->refs[m->n_refs]));
            m->n_refs++;
            path_pop(c, m2);
        }
        path_pop(c, mark);
    }
    return SQE_OK;
}

/* Cross-object checks (Iceberg Java's TableMetadata constructor makes the same ones). */
static int validate(pctx *c, ice_metadata *m) {
    id_vec iv = {0};
    int64_t dup;
    int rc = SQE_OK;
#define CHECK_UNIQUE(count, expr, key, what)                                                       \
    do {                                                                                           \
        iv.n = 0;                                                                                  \
        for (uint32_t i_ = 0; i_ < (count); i_++) id_vec_push(&iv, (expr));                       \
        if (iv.failed) {                                                                           \
            rc = nomem(c);                                                                         \
            goto out_free;                                                                         \
        }                                                                                          \
        if (find_duplicate(&iv, &dup)) {                                                           \
            char msg_[96];                                                                         \
            snprintf(msg_, sizeof msg_, "duplicate %s %" PRId64, what, dup);                      \
            rc = fail_at(c, key, msg_);                                                            \
            goto out_free;                                                                         \
        }                                                                                          \
    } while (0)
    CHECK_UNIQUE(m->n_schemas, m->schemas[i_].schema_id, "schemas", "schema id");
    CHECK_UNIQUE(m->n_specs, m->specs[i_].spec_id, "partition-specs", "spec id");
    CHECK_UNIQUE(m->n_sort_orders, m->sort_orders[i_].order_id, "sort-orders", "order id");
    CHECK_UNIQUE(m->n_snapshots, m->snapshots[i_].snapshot_id, "snapshots", "snapshot id");
#undef CHECK_UNIQUE
    if (!ice_metadata_current_schema(m)) {
        rc = fail_at(c, "current-schema-id", "names a schema that does not exist");
        goto out_free;
    }
    if (!ice_metadata_default_spec(m)) {
        rc = fail_at(c, "default-spec-id", "names a partition spec that does not exist");
        goto out_free;
    }
    if (!ice_metadata_sort_order(m, m->default_sort_order_id)) {
        rc = fail_at(c, "default-sort-order-id", "names a sort order that does not exist");
        goto out_free;
    }
    if (m->current_snapshot_id != -1 && !ice_metadata_snapshot(m, m->current_snapshot_id)) {
        rc = fail_at(c, "current-snapshot-id", "names a snapshot that does not exist");
        goto out_free;
    }
    for (uint32_t i = 0; i < m->n_refs; i++) {
        const ice_ref *r = &m->refs[i];
        if (!ice_metadata_snapshot(m, r->snapshot_id)) {
            size_t mark = path_key(c, "refs");
            rc = fail_at(c, r->name, "names a snapshot that does not exist");
            path_pop(c, mark);
            goto out_free;
        }
    }
    const ice_ref *main_ref = ice_metadata_ref(m, "main");
    if (main_ref && m->current_snapshot_id != -1 && main_ref->snapshot_id != m->current_snapshot_id) {
        rc = fail_at(c, "current-snapshot-id", "does not match the \"main\" branch");
        goto out_free;
    }
    if (main_ref && main_ref->type != ICE_REF_BRANCH) {
        rc = fail_at(c, "refs", "\"main\" must be a branch");
        goto out_free;
    }
    if (!main_ref && m->current_snapshot_id != -1) {
        ice_ref *r = &m->refs[m->n_refs++];
        r->name = "main";
        r->snapshot_id = m->current_snapshot_id;
        r->type = ICE_REF_BRANCH;
        r->implicit = true;
    }
out_free:
    free(iv.v);
    return rc;
}

static int parse_root(pctx *c, const json_t *root, ice_metadata *m) {
    if (!json_is_object(root)) return fail(c, "expected a JSON object, got %s", json_kind(root));
    int32_t version;
    SQE_TRY(get_i32(c, root, "format-version", true, &version, NULL));
    if (version > ICE_FORMAT_VERSION_MAX)
        return err_set(c->err, SQE_ERR_NOT_SUPPORTED,
                       "unsupported: Iceberg format version %d (this build reads 1 to %d)",
                       (int)version, ICE_FORMAT_VERSION_MAX);
    if (version < 1) return fail_at(c, "format-version", "must be 1, 2 or 3");
    c->version = version;
    m->format_version = version;
    bool v2 = version >= 2;

    /* Presence of optional keys, for the writer. */
    static const struct {
        const char *key;
        uint32_t bit;
    } optional_keys[] = {
        {"table-uuid", ICE_MD_TABLE_UUID},
        {"last-sequence-number", ICE_MD_LAST_SEQUENCE_NUMBER},
        {"schemas", ICE_MD_SCHEMAS},
        {"current-schema-id", ICE_MD_CURRENT_SCHEMA_ID},
        {"partition-specs", ICE_MD_PARTITION_SPECS},
        {"default-spec-id", ICE_MD_DEFAULT_SPEC_ID},
        {"last-partition-id", ICE_MD_LAST_PARTITION_ID},
        {"properties", ICE_MD_PROPERTIES},
        {"snapshots", ICE_MD_SNAPSHOTS},
        {"snapshot-log", ICE_MD_SNAPSHOT_LOG},
        {"metadata-log", ICE_MD_METADATA_LOG},
        {"sort-orders", ICE_MD_SORT_ORDERS},
        {"default-sort-order-id", ICE_MD_DEFAULT_SORT_ORDER_ID},
        {"refs", ICE_MD_REFS},
        {"statistics", ICE_MD_STATISTICS},
        {"partition-statistics", ICE_MD_PARTITION_STATISTICS},
        {"next-row-id", ICE_MD_NEXT_ROW_ID},
    };
    for (size_t i = 0; i < sizeof optional_keys / sizeof optional_keys[0]; i++)
        note_present(m, root, optional_keys[i].key, optional_keys[i].bit);

    SQE_TRY(get_str(c, root, "table-uuid", v2, &m->table_uuid));
    SQE_TRY(get_str(c, root, "location", true, &m->location));
    SQE_TRY(get_i64(c, root, "last-sequence-number", v2, &m->last_sequence_number, NULL));
    if (m->last_sequence_number < 0)
        return fail_at(c, "last-sequence-number", "must not be negative");
    SQE_TRY(get_i64(c, root, "last-updated-ms", true, &m->last_updated_ms, NULL));
    SQE_TRY(get_i32(c, root, "last-column-id", true, &m->last_column_id, NULL));
    SQE_TRY(parse_schemas(c, root, m));
    SQE_TRY(parse_specs(c, root, m));

    json_t *props;
    SQE_TRY(get_object(c, root, "properties", false, &props));
    if (props) {
        size_t mark = path_key(c, "properties");
        SQE_TRY(parse_string_map(c, props, false, &m->properties));
        path_pop(c, mark);
    }

    json_t *cur = json_object_get(root, "current-snapshot-id");
    m->current_snapshot_id = -1;
    if (cur && json_is_null(cur)) {
        m->present |= ICE_MD_CURRENT_SNAPSHOT_NULL;
    } else if (cur) {
        m->present |= ICE_MD_CURRENT_SNAPSHOT_ID;
        SQE_TRY(get_i64(c, root, "current-snapshot-id", true, &m->current_snapshot_id, NULL));
        if (m->current_snapshot_id < -1)
            return fail_at(c, "current-snapshot-id", "must be a snapshot id or -1");
    }
    SQE_TRY(parse_snapshots_and_logs(c, root, m));
    SQE_TRY(parse_sort_orders(c, root, m));
    SQE_TRY(parse_refs(c, root, m));

    json_t *arr;
    SQE_TRY(get_array(c, root, "statistics", false, &arr));
    if (arr) {
        size_t mark = path_key(c, "statistics");
        SQE_TRY(parse_statistics(c, arr, false, &m->n_statistics, &m->statistics));
        path_pop(c, mark);
    }
    SQE_TRY(get_array(c, root, "partition-statistics", false, &arr));
    if (arr) {
        size_t mark = path_key(c, "partition-statistics");
        SQE_TRY(parse_statistics(c, arr, true, &m->n_partition_statistics,
                                 &m->partition_statistics));
        path_pop(c, mark);
    }
    SQE_TRY(get_i64(c, root, "next-row-id", version >= 3, &m->next_row_id, NULL));
    if (m->next_row_id < 0) return fail_at(c, "next-row-id", "must not be negative");
    json_t *keys;
    SQE_TRY(get_array(c, root, "encryption-keys", false, &keys));
    if (keys) SQE_TRY(parse_encryption_keys(c, keys, &m->encryption_keys));

    SQE_TRY(collect_extra(c, root, metadata_keys, &m->extra));
    return validate(c, m);
}

int ice_metadata_parse(arena *a, const char *json, size_t len, ice_metadata **out,
                       sqe_error *err) {
    if (len >= 2 && (unsigned char)json[0] == 0x1f && (unsigned char)json[1] == 0x8b)
        return err_set(err, SQE_ERR_NOT_SUPPORTED,
                       "unsupported: gzip-compressed Iceberg metadata (decompress it first)");
    json_error_t jerr;
    json_t *root = json_loadb(json, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!root)
        return err_set(err, SQE_ERR_INVALID_FILE,
                       "Invalid Iceberg metadata: JSON error at line %d column %d: %s", jerr.line,
                       jerr.column, jerr.text);
    pctx c = {.a = a, .err = err};
    c.path[0] = '\0';
    int rc;
    ice_metadata *m = ARENA_NEW(a, ice_metadata);
    if (!m) {
        rc = nomem(&c);
        goto out_free;
    }
    rc = parse_root(&c, root, m);
    if (rc == SQE_OK) *out = m;
out_free:
    json_decref(root);
    return rc;
}

/* ---- lookups --------------------------------------------------------------------------------- */

const char *ice_kv_get(const ice_kv_list *list, const char *key) {
    for (uint32_t i = 0; list && i < list->n; i++)
        if (strcmp(list->items[i].key, key) == 0) return list->items[i].value;
    return NULL;
}

const ice_schema *ice_metadata_schema(const ice_metadata *m, int32_t schema_id) {
    for (uint32_t i = 0; i < m->n_schemas; i++)
        if (m->schemas[i].schema_id == schema_id) return &m->schemas[i];
    return NULL;
}

const ice_schema *ice_metadata_current_schema(const ice_metadata *m) {
    return ice_metadata_schema(m, m->current_schema_id);
}

const ice_partition_spec *ice_metadata_spec(const ice_metadata *m, int32_t spec_id) {
    for (uint32_t i = 0; i < m->n_specs; i++)
        if (m->specs[i].spec_id == spec_id) return &m->specs[i];
    return NULL;
}

const ice_partition_spec *ice_metadata_default_spec(const ice_metadata *m) {
    return ice_metadata_spec(m, m->default_spec_id);
}

const ice_sort_order *ice_metadata_sort_order(const ice_metadata *m, int32_t order_id) {
    for (uint32_t i = 0; i < m->n_sort_orders; i++)
        if (m->sort_orders[i].order_id == order_id) return &m->sort_orders[i];
    return NULL;
}

const ice_snapshot *ice_metadata_snapshot(const ice_metadata *m, int64_t snapshot_id) {
    for (uint32_t i = 0; i < m->n_snapshots; i++)
        if (m->snapshots[i].snapshot_id == snapshot_id) return &m->snapshots[i];
    return NULL;
}

const ice_snapshot *ice_metadata_current_snapshot(const ice_metadata *m) {
    return m->current_snapshot_id == -1 ? NULL : ice_metadata_snapshot(m, m->current_snapshot_id);
}

const ice_ref *ice_metadata_ref(const ice_metadata *m, const char *name) {
    for (uint32_t i = 0; i < m->n_refs; i++)
        if (strcmp(m->refs[i].name, name) == 0) return &m->refs[i];
    return NULL;
}
