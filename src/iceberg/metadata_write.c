/*
 * metadata_write.c: writes the metadata model of metadata.h as Iceberg table metadata JSON
 * (Iceberg spec: Appendix C "JSON serialization"), compact, with keys in the order Iceberg Java's
 * TableMetadataParser, SchemaParser, PartitionSpecParser, SortOrderParser, SnapshotParser and
 * SnapshotRefParser write them; unknown keys kept by the parser follow each object's own keys.
 *
 * INTERFACE: ice_metadata_write, ice_schema_write
 * NOTES:
 *   - The JSON is built as a jansson tree (which keeps insertion order and escapes strings) and
 *     dumped once. Extra keys hold raw JSON text and are re-parsed here; text that is not JSON is
 *     an INVALID_ARGUMENTS error, as is a string that is not UTF-8.
 *   - Which keys appear: those required by the format version always; optional ones per the
 *     model's presence flags (ice_metadata.present, has_* fields), so a parsed file is written
 *     back with the same keys. current-snapshot-id without a snapshot is -1 (v1/v2 Java) or null
 *     (ICE_MD_CURRENT_SNAPSHOT_NULL, v3 Java). An implicit "main" ref is never written.
 *   - Types are spelled as Java does: "decimal(9, 2)", "fixed[16]".
 */
#include "iceberg/metadata.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

typedef struct wctx {
    sqe_error *err;
    int rc;
    int version;
} wctx;

static json_t *bad(wctx *w, const char *what) {
    if (w->rc == SQE_OK)
        w->rc = err_set(w->err, SQE_ERR_INVALID_ARGUMENTS, "cannot write Iceberg metadata: %s",
                        what);
    return NULL;
}

/* Adds key: v to obj (v is consumed). A NULL v means an error was recorded or memory ran out. */
static void put(wctx *w, json_t *obj, const char *key, json_t *v) {
    if (w->rc != SQE_OK || !obj || !v) {
        json_decref(v);
        if (w->rc == SQE_OK) w->rc = err_nomem(w->err, "Iceberg metadata JSON");
        return;
    }
    if (json_object_set_new(obj, key, v) != 0) w->rc = err_nomem(w->err, "Iceberg metadata JSON");
}

static void append(wctx *w, json_t *arr, json_t *v) {
    if (w->rc != SQE_OK || !arr || !v) {
        json_decref(v);
        if (w->rc == SQE_OK) w->rc = err_nomem(w->err, "Iceberg metadata JSON");
        return;
    }
    if (json_array_append_new(arr, v) != 0) w->rc = err_nomem(w->err, "Iceberg metadata JSON");
}

static json_t *str(wctx *w, const char *s) {
    if (!s) return bad(w, "missing string value");
    json_t *v = json_string(s);
    return v ? v : bad(w, "string is not valid UTF-8");
}

static json_t *raw(wctx *w, const char *text) {
    if (!text) return bad(w, "missing raw JSON value");
    json_t *v = json_loads(text, JSON_DECODE_ANY, NULL);
    return v ? v : bad(w, "raw value is not JSON");
}

static void put_extra(wctx *w, json_t *obj, const ice_kv_list *extra) {
    for (uint32_t i = 0; i < extra->n && w->rc == SQE_OK; i++)
        put(w, obj, extra->items[i].key, raw(w, extra->items[i].value));
}

static json_t *int_list(wctx *w, uint32_t n, const int32_t *ids) {
    json_t *arr = json_array();
    for (uint32_t i = 0; i < n; i++) append(w, arr, json_integer(ids[i]));
    return arr;
}

/* ---- schemas --------------------------------------------------------------------------------- */

static json_t *type_json(wctx *w, const ice_type *t, int depth);

static json_t *field_json(wctx *w, const ice_field *f, int depth) {
    json_t *o = json_object();
    put(w, o, "id", json_integer(f->id));
    put(w, o, "name", str(w, f->name));
    put(w, o, "required", json_boolean(f->required));
    put(w, o, "type", type_json(w, &f->type, depth + 1));
    if (f->doc) put(w, o, "doc", str(w, f->doc));
    if (f->initial_default) put(w, o, "initial-default", raw(w, f->initial_default));
    if (f->write_default) put(w, o, "write-default", raw(w, f->write_default));
    put_extra(w, o, &f->extra);
    return o;
}

static json_t *type_json(wctx *w, const ice_type *t, int depth) {
    if (depth > ICE_MAX_TYPE_DEPTH) return bad(w, "type nested too deeply");
    switch (t->kind) {
    case ICE_TYPE_STRUCT: {
        json_t *o = json_object();
        put(w, o, "type", json_string("struct"));
        json_t *fields = json_array();
        for (uint32_t i = 0; i < t->n_fields; i++)
            append(w, fields, field_json(w, &t->fields[i], depth));
        put(w, o, "fields", fields);
        return o;
    }
    case ICE_TYPE_LIST: {
        if (t->n_fields != 1 || !t->fields) return bad(w, "list type without element");
        json_t *o = json_object();
        put(w, o, "type", json_string("list"));
        put(w, o, "element-id", json_integer(t->fields[0].id));
        put(w, o, "element", type_json(w, &t->fields[0].type, depth + 1));
        put(w, o, "element-required", json_boolean(t->fields[0].required));
        return o;
    }
    case ICE_TYPE_MAP: {
        if (t->n_fields != 2 || !t->fields) return bad(w, "map type without key and value");
        json_t *o = json_object();
        put(w, o, "type", json_string("map"));
        put(w, o, "key-id", json_integer(t->fields[0].id));
        put(w, o, "key", type_json(w, &t->fields[0].type, depth + 1));
        put(w, o, "value-id", json_integer(t->fields[1].id));
        put(w, o, "value", type_json(w, &t->fields[1].type, depth + 1));
        put(w, o, "value-required", json_boolean(t->fields[1].required));
        return o;
    }
    default: break;
    }
    if ((unsigned)t->kind >= ICE_TYPE_COUNT_) return bad(w, "invalid type kind");
    size_t need = ice_type_format(t, NULL, 0) + 1;
    char *buf = malloc(need);
    if (!buf) return NULL;
    ice_type_format(t, buf, need);
    json_t *v = str(w, buf);
    free(buf);
    return v;
}

static json_t *schema_json(wctx *w, const ice_schema *s) {
    json_t *o = json_object();
    if (s->type.kind != ICE_TYPE_STRUCT) return json_decref(o), bad(w, "schema is not a struct");
    put(w, o, "type", json_string("struct"));
    if (s->has_schema_id || w->version >= 2) put(w, o, "schema-id", json_integer(s->schema_id));
    if (s->has_identifier_field_ids || s->n_identifier_field_ids)
        put(w, o, "identifier-field-ids",
            int_list(w, s->n_identifier_field_ids, s->identifier_field_ids));
    json_t *fields = json_array();
    for (uint32_t i = 0; i < s->type.n_fields; i++)
        append(w, fields, field_json(w, &s->type.fields[i], 0));
    put(w, o, "fields", fields);
    put_extra(w, o, &s->extra);
    return o;
}

/* ---- specs and sort orders ------------------------------------------------------------------- */

static json_t *transform_json(wctx *w, ice_transform t, const char *text) {
    if (t.kind == ICE_T_UNKNOWN) return str(w, text);
    char buf[64];
    ice_transform_format(t, buf, sizeof buf);
    return str(w, buf);
}

static void put_sources(wctx *w, json_t *o, bool has_source_id, int32_t source_id, uint32_t n_ids,
                        const int32_t *ids) {
    if (has_source_id || n_ids == 0) put(w, o, "source-id", json_integer(source_id));
    if (n_ids) put(w, o, "source-ids", int_list(w, n_ids, ids));
}

static json_t *partition_fields_json(wctx *w, const ice_partition_spec *spec) {
    json_t *arr = json_array();
    for (uint32_t i = 0; i < spec->n_fields; i++) {
        const ice_partition_field *f = &spec->fields[i];
        json_t *o = json_object();
        put(w, o, "name", str(w, f->name));
        put(w, o, "transform", transform_json(w, f->transform, f->transform_text));
        put_sources(w, o, f->has_source_id, f->source_id, f->n_source_ids, f->source_ids);
        if (f->has_field_id || w->version >= 2) put(w, o, "field-id", json_integer(f->field_id));
        put_extra(w, o, &f->extra);
        append(w, arr, o);
    }
    return arr;
}

static json_t *spec_json(wctx *w, const ice_partition_spec *spec) {
    json_t *o = json_object();
    put(w, o, "spec-id", json_integer(spec->spec_id));
    put(w, o, "fields", partition_fields_json(w, spec));
    put_extra(w, o, &spec->extra);
    return o;
}

static json_t *sort_order_json(wctx *w, const ice_sort_order *so) {
    json_t *o = json_object();
    put(w, o, "order-id", json_integer(so->order_id));
    json_t *arr = json_array();
    for (uint32_t i = 0; i < so->n_fields; i++) {
        const ice_sort_field *f = &so->fields[i];
        json_t *fo = json_object();
        put(w, fo, "transform", transform_json(w, f->transform, f->transform_text));
        put_sources(w, fo, f->has_source_id, f->source_id, f->n_source_ids, f->source_ids);
        put(w, fo, "direction", json_string(f->descending ? "desc" : "asc"));
        put(w, fo, "null-order", json_string(f->nulls_first ? "nulls-first" : "nulls-last"));
        put_extra(w, fo, &f->extra);
        append(w, arr, fo);
    }
    put(w, o, "fields", arr);
    put_extra(w, o, &so->extra);
    return o;
}

/* ---- snapshots, refs, logs ------------------------------------------------------------------- */

static json_t *snapshot_json(wctx *w, const ice_snapshot *s) {
    json_t *o = json_object();
    put(w, o, "snapshot-id", json_integer(s->snapshot_id));
    if (s->has_parent) put(w, o, "parent-snapshot-id", json_integer(s->parent_snapshot_id));
    if (s->has_sequence_number) put(w, o, "sequence-number", json_integer(s->sequence_number));
    put(w, o, "timestamp-ms", json_integer(s->timestamp_ms));
    if (s->has_summary) {
        json_t *sum = json_object();
        const char *op = ice_kv_get(&s->summary, "operation");
        if (op) put(w, sum, "operation", str(w, op));
        for (uint32_t i = 0; i < s->summary.n; i++) {
            if (strcmp(s->summary.items[i].key, "operation") == 0) continue;
            put(w, sum, s->summary.items[i].key, str(w, s->summary.items[i].value));
        }
        put(w, o, "summary", sum);
    }
    if (s->manifest_list) put(w, o, "manifest-list", str(w, s->manifest_list));
    if (s->has_manifests) {
        json_t *arr = json_array();
        for (uint32_t i = 0; i < s->n_manifests; i++) append(w, arr, str(w, s->manifests[i]));
        put(w, o, "manifests", arr);
    }
    if (s->has_schema_id) put(w, o, "schema-id", json_integer(s->schema_id));
    if (s->has_first_row_id) put(w, o, "first-row-id", json_integer(s->first_row_id));
    if (s->has_added_rows) put(w, o, "added-rows", json_integer(s->added_rows));
    if (s->key_id) put(w, o, "key-id", str(w, s->key_id));
    put_extra(w, o, &s->extra);
    return o;
}

static json_t *ref_json(wctx *w, const ice_ref *r) {
    json_t *o = json_object();
    put(w, o, "snapshot-id", json_integer(r->snapshot_id));
    put(w, o, "type", json_string(r->type == ICE_REF_TAG ? "tag" : "branch"));
    if (r->has_min_snapshots_to_keep)
        put(w, o, "min-snapshots-to-keep", json_integer(r->min_snapshots_to_keep));
    if (r->has_max_snapshot_age_ms)
        put(w, o, "max-snapshot-age-ms", json_integer(r->max_snapshot_age_ms));
    if (r->has_max_ref_age_ms) put(w, o, "max-ref-age-ms", json_integer(r->max_ref_age_ms));
    put_extra(w, o, &r->extra);
    return o;
}

static json_t *statistics_json(wctx *w, uint32_t n, const ice_statistics_file *files) {
    json_t *arr = json_array();
    for (uint32_t i = 0; i < n; i++) append(w, arr, raw(w, files[i].json));
    return arr;
}

/* ---- table metadata -------------------------------------------------------------------------- */

static json_t *metadata_json(wctx *w, const ice_metadata *m) {
    uint32_t p = m->present;
    bool v2 = m->format_version >= 2, v3 = m->format_version >= 3;
    json_t *o = json_object();
    put(w, o, "format-version", json_integer(m->format_version));
    if (m->table_uuid && (v2 || (p & ICE_MD_TABLE_UUID))) put(w, o, "table-uuid", str(w, m->table_uuid));
    else if (v2) put(w, o, "table-uuid", bad(w, "table-uuid is required from format version 2"));
    put(w, o, "location", str(w, m->location));
    if (v2 || (p & ICE_MD_LAST_SEQUENCE_NUMBER))
        put(w, o, "last-sequence-number", json_integer(m->last_sequence_number));
    put(w, o, "last-updated-ms", json_integer(m->last_updated_ms));
    put(w, o, "last-column-id", json_integer(m->last_column_id));

    const ice_schema *current = ice_metadata_current_schema(m);
    if (!current) return json_decref(o), bad(w, "current-schema-id names no schema");
    if (!v2 && (p & ICE_MD_LEGACY_SCHEMA))
        put(w, o, "schema", m->legacy_schema_json ? raw(w, m->legacy_schema_json)
                                                  : schema_json(w, current));
    if (v2 || (p & ICE_MD_SCHEMAS)) {
        json_t *arr = json_array();
        for (uint32_t i = 0; i < m->n_schemas; i++) append(w, arr, schema_json(w, &m->schemas[i]));
        put(w, o, "schemas", arr);
    }
    if (v2 || (p & ICE_MD_CURRENT_SCHEMA_ID))
        put(w, o, "current-schema-id", json_integer(m->current_schema_id));

    const ice_partition_spec *spec = ice_metadata_default_spec(m);
    if (!spec) return json_decref(o), bad(w, "default-spec-id names no partition spec");
    if (!v2 && (p & ICE_MD_LEGACY_PARTITION_SPEC))
        put(w, o, "partition-spec", m->legacy_partition_spec_json
                                        ? raw(w, m->legacy_partition_spec_json)
                                        : partition_fields_json(w, spec));
    if (v2 || (p & ICE_MD_PARTITION_SPECS)) {
        json_t *arr = json_array();
        for (uint32_t i = 0; i < m->n_specs; i++) append(w, arr, spec_json(w, &m->specs[i]));
        put(w, o, "partition-specs", arr);
    }
    if (v2 || (p & ICE_MD_DEFAULT_SPEC_ID))
        put(w, o, "default-spec-id", json_integer(m->default_spec_id));
    if (v2 || (p & ICE_MD_LAST_PARTITION_ID))
        put(w, o, "last-partition-id", json_integer(m->last_partition_id));
    if (v2 || (p & ICE_MD_DEFAULT_SORT_ORDER_ID))
        put(w, o, "default-sort-order-id", json_integer(m->default_sort_order_id));
    if (v2 || (p & ICE_MD_SORT_ORDERS)) {
        json_t *arr = json_array();
        for (uint32_t i = 0; i < m->n_sort_orders; i++)
            append(w, arr, sort_order_json(w, &m->sort_orders[i]));
        put(w, o, "sort-orders", arr);
    }
    if (p & ICE_MD_PROPERTIES) {
        json_t *props = json_object();
        for (uint32_t i = 0; i < m->properties.n; i++)
            put(w, props, m->properties.items[i].key, str(w, m->properties.items[i].value));
        put(w, o, "properties", props);
    }
    if (m->current_snapshot_id != -1) {
        put(w, o, "current-snapshot-id", json_integer(m->current_snapshot_id));
    } else if (p & ICE_MD_CURRENT_SNAPSHOT_NULL) {
        put(w, o, "current-snapshot-id", json_null());
    } else if (p & ICE_MD_CURRENT_SNAPSHOT_ID) {
        put(w, o, "current-snapshot-id", json_integer(-1));
    }
    if (v3 || (p & ICE_MD_NEXT_ROW_ID)) put(w, o, "next-row-id", json_integer(m->next_row_id));
    if (m->encryption_keys) put(w, o, "encryption-keys", raw(w, m->encryption_keys));
    if (p & ICE_MD_REFS) {
        json_t *refs = json_object();
        for (uint32_t i = 0; i < m->n_refs; i++)
            if (!m->refs[i].implicit) put(w, refs, m->refs[i].name, ref_json(w, &m->refs[i]));
        put(w, o, "refs", refs);
    }
    if ((p & ICE_MD_SNAPSHOTS) || m->n_snapshots) {
        json_t *arr = json_array();
        for (uint32_t i = 0; i < m->n_snapshots; i++)
            append(w, arr, snapshot_json(w, &m->snapshots[i]));
        put(w, o, "snapshots", arr);
    }
    if ((p & ICE_MD_STATISTICS) || m->n_statistics)
        put(w, o, "statistics", statistics_json(w, m->n_statistics, m->statistics));
    if ((p & ICE_MD_PARTITION_STATISTICS) || m->n_partition_statistics)
        put(w, o, "partition-statistics",
            statistics_json(w, m->n_partition_statistics, m->partition_statistics));
    if ((p & ICE_MD_SNAPSHOT_LOG) || m->n_snapshot_log) {
        json_t *arr = json_array();
        for (uint32_t i = 0; i < m->n_snapshot_log; i++) {
            const ice_snapshot_log_entry *e = &m->snapshot_log[i];
            json_t *eo = json_object();
            put(w, eo, "timestamp-ms", json_integer(e->timestamp_ms));
            put(w, eo, "snapshot-id", json_integer(e->snapshot_id));
            put_extra(w, eo, &e->extra);
            append(w, arr, eo);
        }
        put(w, o, "snapshot-log", arr);
    }
    if ((p & ICE_MD_METADATA_LOG) || m->n_metadata_log) {
        json_t *arr = json_array();
        for (uint32_t i = 0; i < m->n_metadata_log; i++) {
            const ice_metadata_log_entry *e = &m->metadata_log[i];
            json_t *eo = json_object();
            put(w, eo, "timestamp-ms", json_integer(e->timestamp_ms));
            put(w, eo, "metadata-file", str(w, e->metadata_file));
            put_extra(w, eo, &e->extra);
            append(w, arr, eo);
        }
        put(w, o, "metadata-log", arr);
    }
    put_extra(w, o, &m->extra);
    return o;
}

static int dump_into(wctx *w, json_t *root, strbuf *out) {
    if (w->rc != SQE_OK || !root) {
        json_decref(root);
        return w->rc != SQE_OK ? w->rc : err_nomem(w->err, "Iceberg metadata JSON");
    }
    char *text = json_dumps(root, JSON_COMPACT);
    json_decref(root);
    if (!text) return err_nomem(w->err, "Iceberg metadata JSON");
    strbuf_puts(out, text);
    free(text);
    if (out->failed) return err_nomem(w->err, "Iceberg metadata JSON");
    return SQE_OK;
}

int ice_metadata_write(const ice_metadata *m, strbuf *out, sqe_error *err) {
    wctx w = {.err = err, .rc = SQE_OK, .version = m->format_version};
    if (m->format_version < 1 || m->format_version > ICE_FORMAT_VERSION_MAX)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                       "cannot write Iceberg metadata: format version %d", m->format_version);
    return dump_into(&w, metadata_json(&w, m), out);
}

int ice_schema_write(const ice_schema *s, strbuf *out, sqe_error *err) {
    wctx w = {.err = err, .rc = SQE_OK, .version = 2};
    return dump_into(&w, schema_json(&w, s), out);
}
