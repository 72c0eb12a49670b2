/*
 * metadata_update.c: the next version of table metadata (see metadata_update.h).
 *
 * INTERFACE: ice_metadata_next, ice_metadata_set_current_schema, ice_metadata_set_default_spec,
 *   ice_metadata_set_property, ice_metadata_set_ref.
 */
#include "iceberg/metadata_update.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PREVIOUS_VERSIONS_MAX 100

int ice_metadata_next(arena *a, const ice_metadata *base, const char *base_location,
                      ice_metadata **out, sqe_error *err) {
    ice_metadata *m = ARENA_NEW(a, ice_metadata);
    if (!m) return err_nomem(err, "metadata");
    *m = *base;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    int64_t now = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
    m->last_updated_ms = now > base->last_updated_ms ? now : base->last_updated_ms + 1;
    if (base_location) {
        const char *max_text = ice_kv_get(&base->properties, "write.metadata.previous-versions-max");
        long max = max_text ? strtol(max_text, NULL, 10) : PREVIOUS_VERSIONS_MAX;
        if (max < 1) max = 1;
        uint32_t keep = base->n_metadata_log + 1 > (uint32_t)max ? (uint32_t)max - 1 : base->n_metadata_log;
        ice_metadata_log_entry *ml = ARENA_ARRAY(a, ice_metadata_log_entry, keep + 1);
        if (!ml) return err_nomem(err, "metadata");
        if (keep) memcpy(ml, base->metadata_log + (base->n_metadata_log - keep), keep * sizeof *ml);
        memset(&ml[keep], 0, sizeof *ml);
        ml[keep].timestamp_ms = base->last_updated_ms;
        ml[keep].metadata_file = base_location;
        m->metadata_log = ml;
        m->n_metadata_log = keep + 1;
        m->present |= ICE_MD_METADATA_LOG;
    }
    *out = m;
    return SQE_OK;
}

/* Same fields (ids, names, types, requiredness), recursively. */
static bool same_type(const ice_type *x, const ice_type *y) {
    if (x->kind != y->kind || x->precision != y->precision || x->scale != y->scale ||
        x->length != y->length || x->n_fields != y->n_fields)
        return false;
    for (uint32_t i = 0; i < x->n_fields; i++) {
        const ice_field *a = &x->fields[i], *b = &y->fields[i];
        if (a->id != b->id || a->required != b->required || strcmp(a->name, b->name) != 0 ||
            !same_type(&a->type, &b->type))
            return false;
    }
    return true;
}

int ice_metadata_set_current_schema(arena *a, ice_metadata *m, ice_schema *s, sqe_error *err) {
    for (uint32_t i = 0; i < m->n_schemas; i++)
        if (same_type(&m->schemas[i].type, &s->type)) {
            m->current_schema_id = m->schemas[i].schema_id;
            return SQE_OK;
        }
    int32_t id = 0;
    for (uint32_t i = 0; i < m->n_schemas; i++)
        if (m->schemas[i].schema_id >= id) id = m->schemas[i].schema_id + 1;
    ice_schema *arr = ARENA_ARRAY(a, ice_schema, m->n_schemas + 1);
    if (!arr) return err_nomem(err, "metadata");
    if (m->n_schemas) memcpy(arr, m->schemas, m->n_schemas * sizeof *arr);
    s->schema_id = id;
    s->has_schema_id = true;
    arr[m->n_schemas] = *s;
    m->schemas = arr;
    m->n_schemas++;
    m->current_schema_id = id;
    int32_t max_id = ice_schema_max_field_id(s);
    if (max_id > m->last_column_id) m->last_column_id = max_id;
    m->legacy_schema_json = NULL;
    return SQE_OK;
}

int ice_metadata_set_default_spec(arena *a, ice_metadata *m, ice_partition_spec *spec,
                                  sqe_error *err) {
    int32_t id = 0;
    for (uint32_t i = 0; i < m->n_specs; i++)
        if (m->specs[i].spec_id >= id) id = m->specs[i].spec_id + 1;
    ice_partition_spec *arr = ARENA_ARRAY(a, ice_partition_spec, m->n_specs + 1);
    if (!arr) return err_nomem(err, "metadata");
    if (m->n_specs) memcpy(arr, m->specs, m->n_specs * sizeof *arr);
    spec->spec_id = id;
    arr[m->n_specs] = *spec;
    m->specs = arr;
    m->n_specs++;
    m->default_spec_id = id;
    for (uint32_t i = 0; i < spec->n_fields; i++)
        if (spec->fields[i].field_id > m->last_partition_id)
            m->last_partition_id = spec->fields[i].field_id;
    m->legacy_partition_spec_json = NULL;
    return SQE_OK;
}

int ice_metadata_set_property(arena *a, ice_metadata *m, const char *key, const char *value,
                              sqe_error *err) {
    ice_kv *items = ARENA_ARRAY(a, ice_kv, m->properties.n + 1);
    if (!items) return err_nomem(err, "metadata");
    uint32_t n = 0;
    bool set = false;
    for (uint32_t i = 0; i < m->properties.n; i++) {
        if (!strcmp(m->properties.items[i].key, key)) {
            if (value) items[n++] = (ice_kv){key, value};
            set = true;
        } else {
            items[n++] = m->properties.items[i];
        }
    }
    if (!set && value) items[n++] = (ice_kv){key, value};
    m->properties.items = items;
    m->properties.n = n;
    m->present |= ICE_MD_PROPERTIES;
    return SQE_OK;
}

int ice_metadata_set_ref(arena *a, ice_metadata *m, const char *name, ice_ref_type type,
                         int64_t snapshot_id, bool remove, sqe_error *err) {
    ice_ref *refs = ARENA_ARRAY(a, ice_ref, m->n_refs + 1);
    if (!refs) return err_nomem(err, "metadata");
    uint32_t n = 0;
    bool found = false;
    for (uint32_t i = 0; i < m->n_refs; i++) {
        if (!strcmp(m->refs[i].name, name)) {
            found = true;
            if (remove) continue;
            refs[n] = m->refs[i];
            refs[n].type = type;
            refs[n].snapshot_id = snapshot_id;
            refs[n].implicit = false;
            n++;
        } else {
            refs[n++] = m->refs[i];
        }
    }
    if (!found && !remove) {
        memset(&refs[n], 0, sizeof refs[n]);
        refs[n].name = arena_strdup(a, name);
        refs[n].type = type;
        refs[n].snapshot_id = snapshot_id;
        if (!refs[n].name) return err_nomem(err, "metadata");
        n++;
    }
    m->refs = refs;
    m->n_refs = n;
    m->present |= ICE_MD_REFS;
    return SQE_OK;
}
