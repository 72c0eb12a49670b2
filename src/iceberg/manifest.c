/*
 * manifest.c: Iceberg manifests (spec "Manifests": key-value metadata, manifest_entry and
 * data_file, format v1, v2 and v3) read from and written to Avro container files, with
 * sequence number and first row id inheritance, partition tuples and bounds decoded into SQE
 * values, and the manifest list summary of a written manifest.
 *
 * INTERFACE: ice_manifest_read, ice_manifest_write, ice_manifest_summarize
 * NOTES:
 *   - Reading is two passes: all records are decoded first (the Avro values live in the
 *     caller's arena), then the partition vectors are sized to the entry count and filled.
 *   - The partition tuple's types come from the table's partition spec (by the header's
 *     partition-spec-id, else the manifest list's), computed on the manifest's schema (header
 *     schema-id) or the current one. When the spec is unknown or a transform is not, the type
 *     is derived from the partition record's Avro type instead (logical types included), so
 *     such manifests still read; the planner then sees has_type false.
 *   - Bounds are decoded with the column's type in the current schema (so bounds written
 *     before an int -> long promotion read as long), else in the manifest's schema; columns in
 *     neither, and types without a binary form, keep only their bytes.
 *   - Metrics maps are Avro arrays of key/value records (logicalType "map", Appendix A); Avro
 *     maps with decimal string keys are accepted too.
 *   - The writer's schemas are Iceberg Java's V1Metadata / V2Metadata / V3Metadata entry
 *     schemas: "manifest_entry", data file "r2", partition "r102", map records "k<key>_v<value>",
 *     partition field names made Avro-compatible as Java's AvroSchemaUtil does ("1x" ->
 *     "_1x", "a-b" -> "a_x2Db"); v1 keeps block_size_in_bytes and a required snapshot_id (the
 *     spec's v1 column); header keys schema, schema-id, partition-spec, partition-spec-id,
 *     format-version and (v2+) content.
 */
#include "iceberg/manifest_int.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

/* ---- Avro types <-> Iceberg types of partition values ------------------------------------- */

/* The Iceberg type an Avro schema node stores (Appendix A), for partition fields whose spec is
 * unknown. False for nested and unmappable types. */
static bool iceberg_type_of_avro(const avro_schema *s, ice_type *out) {
    memset(out, 0, sizeof *out);
    if (s->type == AVRO_UNION) {
        const avro_schema *inner = NULL;
        for (uint32_t i = 0; i < s->n_branches; i++)
            if (s->branches[i]->type != AVRO_NULL) inner = s->branches[i];
        if (!inner) {
            out->kind = ICE_TYPE_UNKNOWN;
            return true;
        }
        s = inner;
    }
    const char *lg = s->logical ? s->logical : "";
    switch (s->type) {
    case AVRO_BOOLEAN: out->kind = ICE_TYPE_BOOLEAN; return true;
    case AVRO_INT: out->kind = strcmp(lg, "date") == 0 ? ICE_TYPE_DATE : ICE_TYPE_INT; return true;
    case AVRO_LONG:
        if (strcmp(lg, "time-micros") == 0) out->kind = ICE_TYPE_TIME;
        else if (strcmp(lg, "timestamp-micros") == 0)
            out->kind = s->adjust_to_utc ? ICE_TYPE_TIMESTAMPTZ : ICE_TYPE_TIMESTAMP;
        else if (strcmp(lg, "timestamp-nanos") == 0)
            out->kind = s->adjust_to_utc ? ICE_TYPE_TIMESTAMPTZ_NS : ICE_TYPE_TIMESTAMP_NS;
        else out->kind = ICE_TYPE_LONG;
        return true;
    case AVRO_FLOAT: out->kind = ICE_TYPE_FLOAT; return true;
    case AVRO_DOUBLE: out->kind = ICE_TYPE_DOUBLE; return true;
    case AVRO_STRING: out->kind = ICE_TYPE_STRING; return true;
    case AVRO_BYTES:
        if (strcmp(lg, "decimal") == 0 && s->precision >= 1 && s->precision <= 38) {
            out->kind = ICE_TYPE_DECIMAL;
            out->precision = s->precision;
            out->scale = s->scale;
        } else {
            out->kind = ICE_TYPE_BINARY;
        }
        return true;
    case AVRO_FIXED:
        if (strcmp(lg, "uuid") == 0 && s->size == 16) out->kind = ICE_TYPE_UUID;
        else if (strcmp(lg, "decimal") == 0 && s->precision >= 1 && s->precision <= 38) {
            out->kind = ICE_TYPE_DECIMAL;
            out->precision = s->precision;
            out->scale = s->scale;
        } else if (s->size >= 1 && s->size <= INT32_MAX) {
            out->kind = ICE_TYPE_FIXED;
            out->length = (int32_t)s->size;
        } else {
            return false;
        }
        return true;
    default: return false;
    }
}

/* Decodes a partition value (an unwrapped, non-null Avro value) of Iceberg type t into row. */
static int decode_partition_value(ice_mf_ctx *c, const ice_type *t, const avro_value *v,
                                  vec *out, uint32_t row, const char *name) {
    char what[160];
    snprintf(what, sizeof what, "partition field \"%.100s\"", name);
    avro_type at = v->schema->type;
    void *d = out->data;
    switch (t->kind) {
    case ICE_TYPE_BOOLEAN:
        if (at != AVRO_BOOLEAN) break;
        ((uint8_t *)d)[row] = v->b ? 1 : 0;
        return SQE_OK;
    case ICE_TYPE_INT:
    case ICE_TYPE_DATE:
        if (at != AVRO_INT) break;
        ((int32_t *)d)[row] = v->i;
        return SQE_OK;
    case ICE_TYPE_LONG:
    case ICE_TYPE_TIME:
    case ICE_TYPE_TIMESTAMP:
    case ICE_TYPE_TIMESTAMPTZ:
    case ICE_TYPE_TIMESTAMP_NS:
    case ICE_TYPE_TIMESTAMPTZ_NS: {
        int64_t x;
        if (at == AVRO_LONG) x = v->l;
        else if (at == AVRO_INT && t->kind == ICE_TYPE_LONG) x = v->i;
        else break;
        if (t->kind == ICE_TYPE_TIMESTAMP_NS || t->kind == ICE_TYPE_TIMESTAMPTZ_NS)
            x = x / 1000 - (x % 1000 < 0 ? 1 : 0);
        if (t->kind == ICE_TYPE_TIMESTAMPTZ || t->kind == ICE_TYPE_TIMESTAMPTZ_NS)
            ((sqe_timestamp_tz *)d)[row].micros = x;
        else
            ((int64_t *)d)[row] = x;
        return SQE_OK;
    }
    case ICE_TYPE_FLOAT:
        if (at != AVRO_FLOAT) break;
        ((float *)d)[row] = v->f;
        return SQE_OK;
    case ICE_TYPE_DOUBLE:
        if (at == AVRO_DOUBLE) ((double *)d)[row] = v->d;
        else if (at == AVRO_FLOAT) ((double *)d)[row] = v->f;
        else break;
        return SQE_OK;
    case ICE_TYPE_STRING:
        if (at != AVRO_STRING) break;
        return ice_single_value_decode(t, v->bytes.data, v->bytes.len, out, row, what, c->err);
    case ICE_TYPE_DECIMAL:
    case ICE_TYPE_UUID:
    case ICE_TYPE_FIXED:
    case ICE_TYPE_BINARY:
        if (at != AVRO_FIXED && at != AVRO_BYTES) break;
        if (t->kind == ICE_TYPE_DECIMAL && v->bytes.len > 16) {
            /* A wide fixed: only sign-extension bytes may precede the last 16. */
            size_t extra = v->bytes.len - 16;
            uint8_t fill = (v->bytes.data[extra] & 0x80) ? 0xff : 0;
            for (size_t i = 0; i < extra; i++)
                if (v->bytes.data[i] != fill)
                    return ice_mf_bad(c, "%s: decimal does not fit 16 bytes", what);
            return ice_single_value_decode(t, v->bytes.data + extra, 16, out, row, what, c->err);
        }
        return ice_single_value_decode(t, v->bytes.data, v->bytes.len, out, row, what, c->err);
    default:
        return ice_mf_bad(c, "%s: type %s cannot be a partition value", what,
                          ice_type_kind_name(t->kind));
    }
    return ice_mf_bad(c, "%s: Avro %s does not hold a %s value", what, avro_type_name(at),
                      ice_type_kind_name(t->kind));
}

/* ---- reading ------------------------------------------------------------------------------- */

typedef struct read_state {
    ice_mf_ctx c;
    const ice_metadata *m;
    const ice_schema *current;   /* table's current schema (may be NULL) */
    const ice_schema *written;   /* schema named by the header's schema-id (may be NULL) */
    int version;
} read_state;

static int read_counts(read_state *st, const avro_value *rec, int32_t id, int32_t key_id,
                       int32_t value_id, const char *path, ice_counts *out) {
    ice_mf_ctx *c = &st->c;
    memset(out, 0, sizeof *out);
    const avro_value *v = ice_mf_field(rec, id, NULL, NULL);
    if (!v) return SQE_OK;
    out->present = true;
    if (v->schema->type == AVRO_MAP) {
        out->n = v->map.n;
        if (v->map.n) {
            out->items = ARENA_ARRAY(c->a, ice_id_count, v->map.n);
            if (!out->items) return err_nomem(c->err, "manifest");
        }
        for (uint32_t i = 0; i < v->map.n; i++) {
            int64_t key;
            const avro_value *val = avro_value_unwrap(&v->map.values[i]);
            if (!ice_mf_parse_long(v->map.keys[i].data, v->map.keys[i].len, &key) ||
                key < INT32_MIN || key > INT32_MAX)
                return ice_mf_bad(c, "%s: map key is not a field id", path);
            if (!val || (val->schema->type != AVRO_LONG && val->schema->type != AVRO_INT))
                return ice_mf_bad(c, "%s: map value is not a long", path);
            out->items[i].field_id = (int32_t)key;
            out->items[i].value = val->schema->type == AVRO_LONG ? val->l : val->i;
        }
        return SQE_OK;
    }
    if (v->schema->type != AVRO_ARRAY)
        return ice_mf_bad(c, "%s: expected a map, found Avro %s", path,
                          avro_type_name(v->schema->type));
    out->n = v->arr.n;
    if (v->arr.n) {
        out->items = ARENA_ARRAY(c->a, ice_id_count, v->arr.n);
        if (!out->items) return err_nomem(c->err, "manifest");
    }
    char kp[96], vp[96];
    snprintf(kp, sizeof kp, "%s.key", path);
    snprintf(vp, sizeof vp, "%s.value", path);
    for (uint32_t i = 0; i < v->arr.n; i++) {
        const avro_value *kv = avro_value_unwrap(&v->arr.items[i]);
        if (!kv || kv->schema->type != AVRO_RECORD)
            return ice_mf_bad(c, "%s: map entry is not a key/value record", path);
        const avro_value *k = ice_mf_field(kv, key_id, "key", NULL);
        const avro_value *val = ice_mf_field(kv, value_id, "value", NULL);
        if (!k || k->schema->type != AVRO_INT) return ice_mf_bad(c, "%s: missing or not an int", kp);
        if (!val || (val->schema->type != AVRO_LONG && val->schema->type != AVRO_INT))
            return ice_mf_bad(c, "%s: missing or not a long", vp);
        out->items[i].field_id = k->i;
        out->items[i].value = val->schema->type == AVRO_LONG ? val->l : val->i;
    }
    return SQE_OK;
}

/* The type to decode a bound of column id with (NULL when unknown). */
static const ice_type *bound_type(read_state *st, int32_t id) {
    const ice_field *f = st->current ? ice_schema_find_field(st->current, id) : NULL;
    if (!f && st->written) f = ice_schema_find_field(st->written, id);
    if (!f) return NULL;
    return &f->type;
}

static int read_bounds(read_state *st, const avro_value *rec, int32_t id, int32_t key_id,
                       int32_t value_id, const char *path, ice_bounds *out) {
    ice_mf_ctx *c = &st->c;
    memset(out, 0, sizeof *out);
    const avro_value *v = ice_mf_field(rec, id, NULL, NULL);
    if (!v) return SQE_OK;
    out->present = true;
    bool is_map = v->schema->type == AVRO_MAP;
    if (!is_map && v->schema->type != AVRO_ARRAY)
        return ice_mf_bad(c, "%s: expected a map, found Avro %s", path,
                          avro_type_name(v->schema->type));
    uint32_t n = is_map ? v->map.n : v->arr.n;
    out->n = n;
    if (n) {
        out->items = ARENA_ARRAY(c->a, ice_bound, n);
        if (!out->items) return err_nomem(c->err, "manifest");
    }
    for (uint32_t i = 0; i < n; i++) {
        ice_bound *b = &out->items[i];
        const avro_value *val;
        if (is_map) {
            int64_t key;
            if (!ice_mf_parse_long(v->map.keys[i].data, v->map.keys[i].len, &key) ||
                key < INT32_MIN || key > INT32_MAX)
                return ice_mf_bad(c, "%s: map key is not a field id", path);
            b->field_id = (int32_t)key;
            val = avro_value_unwrap(&v->map.values[i]);
        } else {
            const avro_value *kv = avro_value_unwrap(&v->arr.items[i]);
            if (!kv || kv->schema->type != AVRO_RECORD)
                return ice_mf_bad(c, "%s: map entry is not a key/value record", path);
            const avro_value *k = ice_mf_field(kv, key_id, "key", NULL);
            if (!k || k->schema->type != AVRO_INT)
                return ice_mf_bad(c, "%s.key: missing or not an int", path);
            b->field_id = k->i;
            val = ice_mf_field(kv, value_id, "value", NULL);
        }
        if (!val || (val->schema->type != AVRO_BYTES && val->schema->type != AVRO_FIXED))
            return ice_mf_bad(c, "%s.value: missing or not bytes", path);
        b->raw.data = val->bytes.data;
        b->raw.len = val->bytes.len;
        const ice_type *t = bound_type(st, b->field_id);
        sqe_type st_type = type_make(TYPE_UNKNOWN);
        bool decodable = t && ice_schema_to_sqe_type(t, &st_type, NULL) == SQE_OK &&
                         !type_is_nested(st_type) && st_type.id != TYPE_UNKNOWN;
        if (!decodable) {
            SQE_TRY(ice_arena_vec_init(c->a, &b->value, type_make(TYPE_UNKNOWN), 1, c->err));
            SQE_TRY(ice_arena_vec_set_null(c->a, &b->value, 0, c->err));
            continue;
        }
        SQE_TRY(ice_arena_vec_init(c->a, &b->value, st_type, 1, c->err));
        char what[128];
        snprintf(what, sizeof what, "%s of field %d", path, b->field_id);
        SQE_TRY(ice_single_value_decode(t, b->raw.data, b->raw.len, &b->value, 0, what, c->err));
    }
    return SQE_OK;
}

static int read_list(read_state *st, const avro_value *rec, int32_t id, const char *path,
                     bool is_int, bool *has, uint32_t *n, void **items) {
    ice_mf_ctx *c = &st->c;
    *has = false;
    *n = 0;
    *items = NULL;
    const avro_value *v = ice_mf_field(rec, id, NULL, NULL);
    if (!v) return SQE_OK;
    if (v->schema->type != AVRO_ARRAY)
        return ice_mf_bad(c, "%s: expected an array, found Avro %s", path,
                          avro_type_name(v->schema->type));
    *has = true;
    *n = v->arr.n;
    if (!v->arr.n) return SQE_OK;
    void *arr = is_int ? (void *)ARENA_ARRAY(c->a, int32_t, v->arr.n)
                       : (void *)ARENA_ARRAY(c->a, int64_t, v->arr.n);
    if (!arr) return err_nomem(c->err, "manifest");
    for (uint32_t i = 0; i < v->arr.n; i++) {
        const avro_value *e = avro_value_unwrap(&v->arr.items[i]);
        /* pyiceberg writes equality_ids as longs: accept them when they fit an int. */
        if (!e || (e->schema->type != AVRO_INT && e->schema->type != AVRO_LONG) ||
            (is_int && e->schema->type == AVRO_LONG && (e->l < INT32_MIN || e->l > INT32_MAX)))
            return ice_mf_bad(c, "%s[%u]: not an %s", path, i, is_int ? "int" : "long");
        int64_t x = e->schema->type == AVRO_LONG ? e->l : e->i;
        if (is_int) ((int32_t *)arr)[i] = (int32_t)x;
        else ((int64_t *)arr)[i] = x;
    }
    *items = arr;
    return SQE_OK;
}

static int read_data_file(read_state *st, ice_manifest *mf, const avro_value *df, uint32_t row,
                          ice_data_file *f) {
    ice_mf_ctx *c = &st->c;
    bool has;
    int32_t content = 0;
    SQE_TRY(ice_mf_get_int(c, df, 134, "data_file.content", st->version >= 2, &has, &content));
    if (content < 0 || content > 2)
        return ice_mf_bad(c, "data_file.content: %d is not 0, 1 or 2", content);
    f->content = (ice_file_content)content;
    SQE_TRY(ice_mf_get_string(c, df, 100, "data_file.file_path", true, &f->file_path));
    SQE_TRY(ice_mf_get_string(c, df, 101, "data_file.file_format", true, &f->file_format));
    f->spec_id = mf->spec_id;
    const avro_value *part = ice_mf_field(df, 102, "partition", NULL);
    if (!part) return ice_mf_bad(c, "data_file.partition: missing required field");
    if (part->schema->type != AVRO_RECORD)
        return ice_mf_bad(c, "data_file.partition: expected a record");
    f->n_partition = mf->n_partition_fields;
    f->partition = mf->partition;
    f->partition_row = row;
    for (uint32_t k = 0; k < mf->n_partition_fields; k++) {
        ice_manifest_partition_field *pf = &mf->partition_fields[k];
        /* Same schema for every record: the k-th partition field is field k. */
        const avro_value *pv = avro_value_unwrap(&part->rec.fields[k]);
        if (avro_value_is_null(pv) || pf->type.kind == ICE_TYPE_UNKNOWN) {
            SQE_TRY(ice_arena_vec_set_null(c->a, &mf->partition[k], row, c->err));
            continue;
        }
        SQE_TRY(decode_partition_value(c, &pf->type, pv, &mf->partition[k], row, pf->name));
    }
    SQE_TRY(ice_mf_get_long(c, df, 103, "data_file.record_count", true, NULL, &f->record_count));
    SQE_TRY(ice_mf_get_long(c, df, 104, "data_file.file_size_in_bytes", true, NULL,
                            &f->file_size_in_bytes));
    if (f->record_count < 0) return ice_mf_bad(c, "data_file.record_count: negative");
    if (f->file_size_in_bytes < 0) return ice_mf_bad(c, "data_file.file_size_in_bytes: negative");
    SQE_TRY(ice_mf_get_long(c, df, 105, "data_file.block_size_in_bytes", false,
                            &f->has_block_size_in_bytes, &f->block_size_in_bytes));
    SQE_TRY(read_counts(st, df, 108, 117, 118, "data_file.column_sizes", &f->column_sizes));
    SQE_TRY(read_counts(st, df, 109, 119, 120, "data_file.value_counts", &f->value_counts));
    SQE_TRY(read_counts(st, df, 110, 121, 122, "data_file.null_value_counts",
                        &f->null_value_counts));
    SQE_TRY(read_counts(st, df, 137, 138, 139, "data_file.nan_value_counts",
                        &f->nan_value_counts));
    SQE_TRY(read_counts(st, df, 111, 123, 124, "data_file.distinct_counts",
                        &f->distinct_counts));
    SQE_TRY(read_bounds(st, df, 125, 126, 127, "data_file.lower_bounds", &f->lower_bounds));
    SQE_TRY(read_bounds(st, df, 128, 129, 130, "data_file.upper_bounds", &f->upper_bounds));
    SQE_TRY(ice_mf_get_bytes(c, df, 131, "data_file.key_metadata", false, &f->has_key_metadata,
                             &f->key_metadata));
    void *items;
    SQE_TRY(read_list(st, df, 132, "data_file.split_offsets", false, &f->has_split_offsets,
                      &f->n_split_offsets, &items));
    f->split_offsets = items;
    SQE_TRY(read_list(st, df, 135, "data_file.equality_ids", true, &f->has_equality_ids,
                      &f->n_equality_ids, &items));
    f->equality_ids = items;
    SQE_TRY(ice_mf_get_int(c, df, 140, "data_file.sort_order_id", false, &f->has_sort_order_id,
                           &f->sort_order_id));
    SQE_TRY(ice_mf_get_long(c, df, 142, "data_file.first_row_id", false, &f->has_first_row_id,
                            &f->first_row_id));
    SQE_TRY(ice_mf_get_string(c, df, 143, "data_file.referenced_data_file", false,
                              &f->referenced_data_file));
    SQE_TRY(ice_mf_get_long(c, df, 144, "data_file.content_offset", false,
                            &f->has_content_offset, &f->content_offset));
    SQE_TRY(ice_mf_get_long(c, df, 145, "data_file.content_size_in_bytes", false,
                            &f->has_content_size_in_bytes, &f->content_size_in_bytes));
    return SQE_OK;
}

static int read_entry(read_state *st, ice_manifest *mf, const avro_value *rec, uint32_t row,
                      ice_manifest_entry *e) {
    ice_mf_ctx *c = &st->c;
    memset(e, 0, sizeof *e);
    int32_t status;
    SQE_TRY(ice_mf_get_int(c, rec, 0, "status", true, NULL, &status));
    if (status < 0 || status > 2)
        return ice_mf_bad(c, "status: %d is not 0 (existing), 1 (added) or 2 (deleted)", status);
    e->status = (ice_entry_status)status;
    SQE_TRY(ice_mf_get_long(c, rec, 1, "snapshot_id", false, &e->has_snapshot_id,
                            &e->snapshot_id));
    SQE_TRY(ice_mf_get_long(c, rec, 3, "sequence_number", false, &e->has_sequence_number,
                            &e->sequence_number));
    SQE_TRY(ice_mf_get_long(c, rec, 4, "file_sequence_number", false,
                            &e->has_file_sequence_number, &e->file_sequence_number));
    const avro_value *df = ice_mf_field(rec, 2, "data_file", NULL);
    if (!df) return ice_mf_bad(c, "data_file: missing required field");
    if (df->schema->type != AVRO_RECORD) return ice_mf_bad(c, "data_file: expected a record");
    return read_data_file(st, mf, df, row, &e->file);
}

/* Finds the partition record's schema: manifest_entry.data_file.partition. */
static int partition_schema(read_state *st, const avro_schema *root, const avro_schema **out) {
    ice_mf_ctx *c = &st->c;
    if (root->type != AVRO_RECORD) return ice_mf_bad(c, "the file's schema is not a record");
    const avro_schema *df = NULL;
    for (uint32_t i = 0; i < root->n_fields; i++)
        if ((root->fields[i].has_field_id && root->fields[i].field_id == 2) ||
            (!root->fields[i].has_field_id && strcmp(root->fields[i].name, "data_file") == 0))
            df = root->fields[i].type;
    if (!df || df->type != AVRO_RECORD) return ice_mf_bad(c, "data_file: missing or not a record");
    const avro_schema *p = NULL;
    for (uint32_t i = 0; i < df->n_fields; i++)
        if ((df->fields[i].has_field_id && df->fields[i].field_id == 102) ||
            (!df->fields[i].has_field_id && strcmp(df->fields[i].name, "partition") == 0))
            p = df->fields[i].type;
    if (!p || p->type != AVRO_RECORD)
        return ice_mf_bad(c, "data_file.partition: missing or not a record");
    *out = p;
    return SQE_OK;
}

static int setup_partition_fields(read_state *st, ice_manifest *mf, const avro_schema *ps) {
    ice_mf_ctx *c = &st->c;
    mf->n_partition_fields = ps->n_fields;
    if (!ps->n_fields) return SQE_OK;
    mf->partition_fields = ARENA_ARRAY(c->a, ice_manifest_partition_field, ps->n_fields);
    if (!mf->partition_fields) return err_nomem(c->err, "manifest");
    for (uint32_t k = 0; k < ps->n_fields; k++) {
        ice_manifest_partition_field *pf = &mf->partition_fields[k];
        const avro_field *af = &ps->fields[k];
        pf->field_id = af->has_field_id ? af->field_id : -1;
        pf->name = af->name;
        const ice_partition_field *sf = NULL;
        if (mf->spec) {
            for (uint32_t j = 0; j < mf->spec->n_fields && !sf; j++) {
                const ice_partition_field *cand = &mf->spec->fields[j];
                if (af->has_field_id ? cand->field_id == af->field_id
                                     : strcmp(cand->name, af->name) == 0)
                    sf = cand;
            }
        }
        pf->spec_field = sf;
        if (sf) {
            if (pf->field_id < 0) pf->field_id = sf->field_id;
            ice_type t;
            bool ok = (st->written && ice_partition_field_type(st->written, sf, &t, NULL) == SQE_OK) ||
                      (st->current && ice_partition_field_type(st->current, sf, &t, NULL) == SQE_OK);
            if (ok) {
                pf->type = t;
                pf->has_type = true;
            }
        }
        if (!pf->has_type && !iceberg_type_of_avro(af->type, &pf->type))
            return ice_mf_bad(c, "partition field \"%.100s\": Avro %s is not a partition type",
                              af->name, avro_type_name(af->type->type));
        if (pf->type.kind == ICE_TYPE_UNKNOWN || pf->type.kind == ICE_TYPE_VARIANT ||
            pf->type.kind == ICE_TYPE_GEOMETRY || pf->type.kind == ICE_TYPE_GEOGRAPHY) {
            pf->sqe = type_make(TYPE_UNKNOWN);
            pf->type.kind = ICE_TYPE_UNKNOWN;
        } else if (ice_schema_to_sqe_type(&pf->type, &pf->sqe, NULL) != SQE_OK) {
            return ice_mf_bad(c, "partition field \"%.100s\": type %s is not a partition type",
                              af->name, ice_type_kind_name(pf->type.kind));
        }
    }
    return SQE_OK;
}

static int meta_long(read_state *st, avro_reader *r, const char *key, bool *has, int64_t *out) {
    size_t len;
    const uint8_t *v = avro_reader_meta(r, key, &len);
    *has = false;
    if (!v) return SQE_OK;
    if (!ice_mf_parse_long(v, len, out))
        return ice_mf_bad(&st->c, "header \"%s\" is not an integer", key);
    *has = true;
    return SQE_OK;
}

static void inherit(ice_manifest *mf, const ice_manifest_file *from) {
    int64_t next_row_id = from->has_first_row_id ? from->first_row_id : 0;
    for (uint32_t i = 0; i < mf->n_entries; i++) {
        ice_manifest_entry *e = &mf->entries[i];
        if (!e->has_snapshot_id) {
            e->has_snapshot_id = true;
            e->snapshot_id = from->added_snapshot_id;
        }
        bool may_inherit = e->status == ICE_STATUS_ADDED || from->sequence_number == 0;
        if (!e->has_sequence_number && may_inherit) {
            e->has_sequence_number = true;
            e->sequence_number = from->sequence_number;
        }
        if (!e->has_file_sequence_number && may_inherit) {
            e->has_file_sequence_number = true;
            e->file_sequence_number = from->sequence_number;
        }
        if (from->has_first_row_id && mf->content == ICE_MANIFEST_DATA &&
            e->file.content == ICE_CONTENT_DATA && !e->file.has_first_row_id) {
            e->file.has_first_row_id = true;
            e->file.first_row_id = next_row_id;
            next_row_id += e->file.record_count;
        }
    }
}

int ice_manifest_read(arena *a, const uint8_t *buf, size_t len, const ice_metadata *m,
                      const ice_manifest_file *from, ice_manifest **out, sqe_error *err) {
    read_state st;
    memset(&st, 0, sizeof st);
    st.c = (ice_mf_ctx){a, err, "manifest"};
    if (!m) return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "ice_manifest_read needs metadata");
    ice_manifest *mf = ARENA_NEW(a, ice_manifest);
    if (!mf) return err_nomem(err, "manifest");
    avro_reader *r = NULL;
    SQE_TRY(avro_reader_open(buf, len, a, &r, err));
    int rc = SQE_OK;
    bool has;
    int64_t v;
    uint32_t cap = 0;
    avro_value **recs = NULL;
    const avro_schema *ps = NULL;
    /* Header metadata (spec "Manifests"). */
    mf->format_version = 1;
    if ((rc = meta_long(&st, r, "format-version", &has, &v)) != SQE_OK) goto out_close;
    if (has) {
        if (v > ICE_FORMAT_VERSION_MAX) {
            rc = err_set(err, SQE_ERR_NOT_SUPPORTED,
                         "unsupported: Iceberg manifest format version %" PRId64, v);
            goto out_close;
        }
        if (v < 1) {
            rc = ice_mf_bad(&st.c, "format-version %" PRId64 " is not valid", v);
            goto out_close;
        }
        mf->format_version = (int)v;
    }
    st.version = mf->format_version;
    size_t clen;
    const uint8_t *content = avro_reader_meta(r, "content", &clen);
    if (content) {
        if (clen == 4 && memcmp(content, "data", 4) == 0) mf->content = ICE_MANIFEST_DATA;
        else if (clen == 7 && memcmp(content, "deletes", 7) == 0)
            mf->content = ICE_MANIFEST_DELETES;
        else {
            rc = ice_mf_bad(&st.c, "header \"content\" is not \"data\" or \"deletes\"");
            goto out_close;
        }
    } else if (from) {
        mf->content = from->content;
    }
    if ((rc = meta_long(&st, r, "schema-id", &mf->has_schema_id, &v)) != SQE_OK) goto out_close;
    if (mf->has_schema_id) {
        if (v < INT32_MIN || v > INT32_MAX) {
            rc = ice_mf_bad(&st.c, "header \"schema-id\" out of range");
            goto out_close;
        }
        mf->schema_id = (int32_t)v;
    }
    if ((rc = meta_long(&st, r, "partition-spec-id", &has, &v)) != SQE_OK) goto out_close;
    if (has && (v < INT32_MIN || v > INT32_MAX)) {
        rc = ice_mf_bad(&st.c, "header \"partition-spec-id\" out of range");
        goto out_close;
    }
    mf->spec_id = has ? (int32_t)v : from ? from->partition_spec_id : m->default_spec_id;
    mf->schema_json = (const char *)avro_reader_meta(r, "schema", NULL);
    mf->partition_spec_json = (const char *)avro_reader_meta(r, "partition-spec", NULL);
    mf->spec = ice_metadata_spec(m, mf->spec_id);
    st.m = m;
    st.current = ice_metadata_current_schema(m);
    st.written = mf->has_schema_id ? ice_metadata_schema(m, mf->schema_id) : NULL;
    if (!st.written) st.written = st.current;
    if ((rc = partition_schema(&st, avro_reader_schema(r), &ps)) != SQE_OK) goto out_close;
    if ((rc = setup_partition_fields(&st, mf, ps)) != SQE_OK) goto out_close;
    /* Pass 1: decode every record. */
    for (;;) {
        avro_value *rec = NULL;
        if ((rc = avro_reader_next(r, &rec, err)) != SQE_OK) goto out_close;
        if (!rec) break;
        if (mf->n_entries == cap) {
            uint32_t ncap = cap ? cap * 2 : 16;
            avro_value **nr = ARENA_ARRAY(a, avro_value *, ncap);
            if (!nr) {
                rc = err_nomem(err, "manifest");
                goto out_close;
            }
            if (mf->n_entries) memcpy(nr, recs, sizeof *recs * mf->n_entries);
            recs = nr;
            cap = ncap;
        }
        recs[mf->n_entries++] = rec;
    }
    /* Pass 2: entries and partition vectors. */
    if (mf->n_partition_fields) {
        mf->partition = ARENA_ARRAY(a, vec, mf->n_partition_fields);
        if (!mf->partition) {
            rc = err_nomem(err, "manifest");
            goto out_close;
        }
        for (uint32_t k = 0; k < mf->n_partition_fields; k++)
            if ((rc = ice_arena_vec_init(a, &mf->partition[k], mf->partition_fields[k].sqe,
                                         mf->n_entries, err)) != SQE_OK)
                goto out_close;
    }
    if (mf->n_entries) {
        mf->entries = ARENA_ARRAY(a, ice_manifest_entry, mf->n_entries);
        if (!mf->entries) {
            rc = err_nomem(err, "manifest");
            goto out_close;
        }
    }
    for (uint32_t i = 0; i < mf->n_entries; i++) {
        rc = read_entry(&st, mf, recs[i], i, &mf->entries[i]);
        if (rc != SQE_OK) {
            if (err && rc == SQE_ERR_INVALID_FILE) {
                const char *tail = strstr(err->message, "manifest: ");
                if (tail) {
                    char msg[sizeof err->message];
                    snprintf(msg, sizeof msg, "%s", tail + strlen("manifest: "));
                    err_set(err, rc, "Invalid Iceberg manifest: entry %u: %s", i, msg);
                }
            }
            goto out_close;
        }
        if (mf->format_version < 2 && mf->entries[i].file.content != ICE_CONTENT_DATA) {
            rc = ice_mf_bad(&st.c, "entry %u: a v1 manifest can only list data files", i);
            goto out_close;
        }
    }
    if (from) inherit(mf, from);
    if (mf->format_version < 2) {
        /* Appendix E: v1 entries have sequence numbers 0. */
        for (uint32_t i = 0; i < mf->n_entries; i++) {
            ice_manifest_entry *e = &mf->entries[i];
            if (!e->has_sequence_number) e->has_sequence_number = true, e->sequence_number = 0;
            if (!e->has_file_sequence_number)
                e->has_file_sequence_number = true, e->file_sequence_number = 0;
        }
    }
    *out = mf;
out_close:
    avro_reader_close(r);
    return rc;
}

/* ---- writing ------------------------------------------------------------------------------- */

/* Appends name made Avro-compatible as Java's AvroSchemaUtil.makeCompatibleName does: a leading
 * digit gets "_" before it, other invalid characters become "_x" + uppercase hex code point. */
static void compatible_name(strbuf *sb, const char *name) {
    const unsigned char *p = (const unsigned char *)name;
    bool first = true;
    while (*p) {
        uint32_t cp = *p;
        size_t n = 1;
        if (cp >= 0xf0 && p[1] && p[2] && p[3]) {
            cp = ((cp & 7u) << 18) | ((p[1] & 63u) << 12) | ((p[2] & 63u) << 6) | (p[3] & 63u);
            n = 4;
        } else if (cp >= 0xe0 && p[1] && p[2]) {
            cp = ((cp & 15u) << 12) | ((p[1] & 63u) << 6) | (p[2] & 63u);
            n = 3;
        } else if (cp >= 0xc0 && p[1]) {
            cp = ((cp & 31u) << 6) | (p[1] & 63u);
            n = 2;
        }
        bool letter = (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || cp == '_';
        bool digit = cp >= '0' && cp <= '9';
        if (letter || (digit && !first)) strbuf_putc(sb, (char)cp);
        else if (digit) {
            strbuf_putc(sb, '_');
            strbuf_putc(sb, (char)cp);
        } else
            strbuf_printf(sb, "_x%X", cp);
        p += n;
        first = false;
    }
}

static int decimal_bytes(int precision) {
    /* Fewest bytes whose two's complement range holds 10^precision - 1. */
    for (int n = 1; n <= 16; n++) {
        double max = ldexp(1.0, 8 * n - 1) - 1;
        if (floor(log10(max)) >= precision) return n;
    }
    return 16;
}

/* Avro type JSON of an Iceberg primitive (Appendix A); named types already emitted are
 * referenced by name. */
static int avro_type_json(strbuf *sb, const ice_type *t, strbuf *names, sqe_error *err) {
    char name[64];
    switch (t->kind) {
    case ICE_TYPE_BOOLEAN: strbuf_puts(sb, "\"boolean\""); return SQE_OK;
    case ICE_TYPE_INT: strbuf_puts(sb, "\"int\""); return SQE_OK;
    case ICE_TYPE_LONG: strbuf_puts(sb, "\"long\""); return SQE_OK;
    case ICE_TYPE_FLOAT: strbuf_puts(sb, "\"float\""); return SQE_OK;
    case ICE_TYPE_DOUBLE: strbuf_puts(sb, "\"double\""); return SQE_OK;
    case ICE_TYPE_DATE: strbuf_puts(sb, "{\"type\":\"int\",\"logicalType\":\"date\"}"); return SQE_OK;
    case ICE_TYPE_TIME:
        strbuf_puts(sb, "{\"type\":\"long\",\"logicalType\":\"time-micros\"}");
        return SQE_OK;
    case ICE_TYPE_TIMESTAMP:
    case ICE_TYPE_TIMESTAMPTZ:
        strbuf_printf(sb, "{\"type\":\"long\",\"logicalType\":\"timestamp-micros\",\"adjust-to-utc\":%s}",
                      t->kind == ICE_TYPE_TIMESTAMPTZ ? "true" : "false");
        return SQE_OK;
    case ICE_TYPE_TIMESTAMP_NS:
    case ICE_TYPE_TIMESTAMPTZ_NS:
        strbuf_printf(sb, "{\"type\":\"long\",\"logicalType\":\"timestamp-nanos\",\"adjust-to-utc\":%s}",
                      t->kind == ICE_TYPE_TIMESTAMPTZ_NS ? "true" : "false");
        return SQE_OK;
    case ICE_TYPE_STRING: strbuf_puts(sb, "\"string\""); return SQE_OK;
    case ICE_TYPE_BINARY: strbuf_puts(sb, "\"bytes\""); return SQE_OK;
    case ICE_TYPE_UUID:
    case ICE_TYPE_FIXED:
    case ICE_TYPE_DECIMAL: {
        if (t->kind == ICE_TYPE_UUID) snprintf(name, sizeof name, "uuid_fixed");
        else if (t->kind == ICE_TYPE_FIXED) snprintf(name, sizeof name, "fixed_%d", t->length);
        else snprintf(name, sizeof name, "decimal_%d_%d", t->precision, t->scale);
        char key[80];
        snprintf(key, sizeof key, "|%s|", name);
        if (names->data && strstr(names->data, key)) {
            strbuf_printf(sb, "\"%s\"", name);
            return SQE_OK;
        }
        if (!names->len) strbuf_putc(names, '|');
        strbuf_printf(names, "%s|", name);
        if (t->kind == ICE_TYPE_UUID)
            strbuf_puts(sb, "{\"type\":\"fixed\",\"name\":\"uuid_fixed\",\"size\":16,\"logicalType\":\"uuid\"}");
        else if (t->kind == ICE_TYPE_FIXED)
            strbuf_printf(sb, "{\"type\":\"fixed\",\"name\":\"%s\",\"size\":%d}", name, t->length);
        else
            strbuf_printf(sb, "{\"type\":\"fixed\",\"name\":\"%s\",\"size\":%d,\"logicalType\":\"decimal\",\"precision\":%d,\"scale\":%d}",
                          name, decimal_bytes(t->precision), t->precision, t->scale);
        return SQE_OK;
    }
    default:
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                       "cannot write Iceberg manifest: %s is not a partition type",
                       ice_type_kind_name(t->kind));
    }
}

static void map_type(strbuf *out, int32_t key_id, int32_t value_id, const char *value_type) {
    strbuf_printf(out,
                  "{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"k%d_v%d\",\"fields\":["
                  "{\"name\":\"key\",\"type\":\"int\",\"field-id\":%d},"
                  "{\"name\":\"value\",\"type\":\"%s\",\"field-id\":%d}]},\"logicalType\":\"map\"}",
                  key_id, value_id, key_id, value_type, value_id);
}

static void field_with(strbuf *sb, bool *first, const char *name, bool optional, int32_t id,
                       void (*fn)(strbuf *, int32_t, int32_t, const char *), int32_t k, int32_t v,
                       const char *vt) {
    strbuf t;
    strbuf_init(&t);
    fn(&t, k, v, vt);
    ice_mf_schema_field(sb, first, name, t.data ? t.data : "null", optional, id);
    if (t.failed) sb->failed = 1;
    strbuf_reset(&t);
}

/* The manifest_entry schema for a version and partition tuple type. */
static int entry_schema(strbuf *sb, int version, const ice_type *ptype, sqe_error *err) {
    bool v2 = version >= 2, v3 = version >= 3;
    strbuf part, names;
    strbuf_init(&part);
    strbuf_init(&names);
    strbuf_puts(&part, "{\"type\":\"record\",\"name\":\"r102\",\"fields\":[");
    for (uint32_t k = 0; k < ptype->n_fields; k++) {
        const ice_field *f = &ptype->fields[k];
        if (k) strbuf_putc(&part, ',');
        strbuf_puts(&part, "{\"name\":\"");
        compatible_name(&part, f->name);
        strbuf_puts(&part, "\",\"type\":[\"null\",");
        int rc = avro_type_json(&part, &f->type, &names, err);
        if (rc != SQE_OK) {
            strbuf_reset(&part);
            strbuf_reset(&names);
            return rc;
        }
        strbuf_printf(&part, "],\"default\":null,\"field-id\":%d}", f->id);
    }
    strbuf_puts(&part, "]}");
    strbuf_reset(&names);
    bool first = true;
    strbuf_puts(sb, "{\"type\":\"record\",\"name\":\"manifest_entry\",\"fields\":[");
    ice_mf_schema_field(sb, &first, "status", "\"int\"", false, 0);
    ice_mf_schema_field(sb, &first, "snapshot_id", "\"long\"", v2, 1);
    if (v2) {
        ice_mf_schema_field(sb, &first, "sequence_number", "\"long\"", true, 3);
        ice_mf_schema_field(sb, &first, "file_sequence_number", "\"long\"", true, 4);
    }
    strbuf df;
    strbuf_init(&df);
    bool dfirst = true;
    strbuf_puts(&df, "{\"type\":\"record\",\"name\":\"r2\",\"fields\":[");
    if (v2) ice_mf_schema_field(&df, &dfirst, "content", "\"int\"", false, 134);
    ice_mf_schema_field(&df, &dfirst, "file_path", "\"string\"", false, 100);
    ice_mf_schema_field(&df, &dfirst, "file_format", "\"string\"", false, 101);
    ice_mf_schema_field(&df, &dfirst, "partition", part.data ? part.data : "null", false, 102);
    ice_mf_schema_field(&df, &dfirst, "record_count", "\"long\"", false, 103);
    ice_mf_schema_field(&df, &dfirst, "file_size_in_bytes", "\"long\"", false, 104);
    if (!v2) ice_mf_schema_field(&df, &dfirst, "block_size_in_bytes", "\"long\"", false, 105);
    field_with(&df, &dfirst, "column_sizes", true, 108, map_type, 117, 118, "long");
    field_with(&df, &dfirst, "value_counts", true, 109, map_type, 119, 120, "long");
    field_with(&df, &dfirst, "null_value_counts", true, 110, map_type, 121, 122, "long");
    field_with(&df, &dfirst, "nan_value_counts", true, 137, map_type, 138, 139, "long");
    field_with(&df, &dfirst, "lower_bounds", true, 125, map_type, 126, 127, "bytes");
    field_with(&df, &dfirst, "upper_bounds", true, 128, map_type, 129, 130, "bytes");
    ice_mf_schema_field(&df, &dfirst, "key_metadata", "\"bytes\"", true, 131);
    ice_mf_schema_field(&df, &dfirst, "split_offsets",
                        "{\"type\":\"array\",\"items\":\"long\",\"element-id\":133}", true, 132);
    if (v2)
        ice_mf_schema_field(&df, &dfirst, "equality_ids",
                            "{\"type\":\"array\",\"items\":\"int\",\"element-id\":136}", true, 135);
    ice_mf_schema_field(&df, &dfirst, "sort_order_id", "\"int\"", true, 140);
    if (v3) ice_mf_schema_field(&df, &dfirst, "first_row_id", "\"long\"", true, 142);
    if (v2) ice_mf_schema_field(&df, &dfirst, "referenced_data_file", "\"string\"", true, 143);
    if (v3) {
        ice_mf_schema_field(&df, &dfirst, "content_offset", "\"long\"", true, 144);
        ice_mf_schema_field(&df, &dfirst, "content_size_in_bytes", "\"long\"", true, 145);
    }
    strbuf_puts(&df, "]}");
    ice_mf_schema_field(sb, &first, "data_file", df.data ? df.data : "null", false, 2);
    strbuf_puts(sb, "]}");
    int failed = part.failed || df.failed || sb->failed;
    strbuf_reset(&part);
    strbuf_reset(&df);
    return failed ? err_nomem(err, "manifest schema") : SQE_OK;
}

/* Header "partition-spec": the spec's fields array (Appendix C). */
static char *spec_fields_json(const ice_partition_spec *spec) {
    json_t *arr = json_array();
    if (!arr) return NULL;
    for (uint32_t i = 0; i < spec->n_fields; i++) {
        const ice_partition_field *f = &spec->fields[i];
        char tb[64];
        const char *tt = f->transform_text;
        if (!tt) {
            ice_transform_format(f->transform, tb, sizeof tb);
            tt = tb;
        }
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(f->name ? f->name : ""));
        json_object_set_new(o, "transform", json_string(tt));
        if (f->n_source_ids > 1) {
            json_t *ids = json_array();
            for (uint32_t k = 0; k < f->n_source_ids; k++)
                json_array_append_new(ids, json_integer(f->source_ids[k]));
            json_object_set_new(o, "source-ids", ids);
        } else {
            json_object_set_new(o, "source-id", json_integer(f->source_id));
        }
        json_object_set_new(o, "field-id", json_integer(f->field_id));
        json_array_append_new(arr, o);
    }
    char *s = json_dumps(arr, JSON_COMPACT);
    json_decref(arr);
    return s;
}

static int wbad(sqe_error *err, uint32_t idx, const char *fmt, const char *detail) {
    char msg[300];
    snprintf(msg, sizeof msg, fmt, detail);
    return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "cannot write Iceberg manifest: entry %u: %s",
                   idx, msg);
}

/* Encodes partition value (row of v) of Iceberg type t as the Avro value out. */
static int partition_to_avro(arena *a, const ice_type *t, const vec *v, uint32_t row,
                             avro_value *out, sqe_error *err) {
    uint32_t phys;
    const vec *flat = vec_resolve(v, row, &phys);
    const void *d = flat->data;
    type_id id = (type_id)v->type.id;
    switch (t->kind) {
    case ICE_TYPE_INT:
    case ICE_TYPE_DATE:
    case ICE_TYPE_LONG:
    case ICE_TYPE_TIME:
    case ICE_TYPE_TIMESTAMP:
    case ICE_TYPE_TIMESTAMP_NS: {
        int64_t x;
        if (id == TYPE_INTEGER || id == TYPE_DATE) x = ((const int32_t *)d)[phys];
        else if (id == TYPE_SMALLINT) x = ((const int16_t *)d)[phys];
        else if (id == TYPE_TINYINT) x = ((const int8_t *)d)[phys];
        else if (id == TYPE_BIGINT || id == TYPE_TIME || id == TYPE_TIMESTAMP)
            x = ((const int64_t *)d)[phys];
        else break;
        if (t->kind == ICE_TYPE_TIMESTAMP_NS && __builtin_mul_overflow(x, 1000, &x)) break;
        if (t->kind == ICE_TYPE_INT || t->kind == ICE_TYPE_DATE) {
            if (x < INT32_MIN || x > INT32_MAX) break;
            out->i = (int32_t)x;
        } else {
            out->l = x;
        }
        return SQE_OK;
    }
    case ICE_TYPE_TIMESTAMPTZ:
    case ICE_TYPE_TIMESTAMPTZ_NS: {
        if (id != TYPE_TIMESTAMP_TZ) break;
        int64_t x = ((const sqe_timestamp_tz *)d)[phys].micros;
        if (t->kind == ICE_TYPE_TIMESTAMPTZ_NS && __builtin_mul_overflow(x, 1000, &x)) break;
        out->l = x;
        return SQE_OK;
    }
    case ICE_TYPE_BOOLEAN:
        if (id != TYPE_BOOLEAN) break;
        out->b = ((const uint8_t *)d)[phys] != 0;
        return SQE_OK;
    case ICE_TYPE_FLOAT:
        if (id != TYPE_REAL) break;
        out->f = ((const float *)d)[phys];
        return SQE_OK;
    case ICE_TYPE_DOUBLE:
        if (id == TYPE_DOUBLE) out->d = ((const double *)d)[phys];
        else if (id == TYPE_REAL) out->d = ((const float *)d)[phys];
        else break;
        return SQE_OK;
    case ICE_TYPE_DECIMAL: {
        if (id != TYPE_DECIMAL || v->type.scale != t->scale) break;
        int128 x = type_decimal_is_long(v->type) ? ((const int128 *)d)[phys]
                                                 : (int128)((const int64_t *)d)[phys];
        int n = decimal_bytes(t->precision);
        uint8_t *b = arena_alloc(a, (size_t)n);
        if (!b) return err_nomem(err, "manifest");
        for (int i = 0; i < n; i++) b[n - 1 - i] = (uint8_t)((unsigned __int128)x >> (8 * i));
        out->bytes.data = b;
        out->bytes.len = (size_t)n;
        return SQE_OK;
    }
    case ICE_TYPE_STRING:
    case ICE_TYPE_BINARY:
    case ICE_TYPE_FIXED:
    case ICE_TYPE_UUID: {
        ice_bytes bb;
        SQE_TRY(ice_single_value_encode(a, t, v, row, &bb, err));
        out->bytes.data = bb.data;
        out->bytes.len = bb.len;
        return SQE_OK;
    }
    default: break;
    }
    char tb[64];
    type_format(v->type, tb, sizeof tb);
    return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                   "cannot write Iceberg manifest: a %s value is not a partition value of type %s",
                   tb, ice_type_kind_name(t->kind));
}

static int put_counts(arena *a, avro_value *rec, const avro_schema *s, const char *name,
                      const ice_counts *cnt) {
    avro_value *f = ice_mf_wfield(a, rec, s, name);
    if (!f) return SQE_ERR_OUT_OF_MEMORY;
    if (!cnt->present) {
        ice_mf_wnull(f);
        return SQE_OK;
    }
    uint32_t idx;
    const avro_schema *arr_s = avro_schema_field(s, name, &idx)->type->branches[1];
    avro_value *arr = ice_mf_wsome(a, f);
    if (!arr) return SQE_ERR_OUT_OF_MEMORY;
    arr->arr.n = cnt->n;
    if (cnt->n) {
        arr->arr.items = ARENA_ARRAY(a, avro_value, cnt->n);
        if (!arr->arr.items) return SQE_ERR_OUT_OF_MEMORY;
    }
    for (uint32_t i = 0; i < cnt->n; i++) {
        avro_value *k = ice_mf_wfield(a, &arr->arr.items[i], arr_s->items, "key");
        avro_value *v = ice_mf_wfield(a, &arr->arr.items[i], arr_s->items, "value");
        if (!k || !v) return SQE_ERR_OUT_OF_MEMORY;
        k->i = cnt->items[i].field_id;
        v->l = cnt->items[i].value;
    }
    return SQE_OK;
}

static int put_bounds(arena *a, avro_value *rec, const avro_schema *s, const char *name,
                      const ice_bounds *bd) {
    avro_value *f = ice_mf_wfield(a, rec, s, name);
    if (!f) return SQE_ERR_OUT_OF_MEMORY;
    if (!bd->present) {
        ice_mf_wnull(f);
        return SQE_OK;
    }
    uint32_t idx;
    const avro_schema *arr_s = avro_schema_field(s, name, &idx)->type->branches[1];
    avro_value *arr = ice_mf_wsome(a, f);
    if (!arr) return SQE_ERR_OUT_OF_MEMORY;
    arr->arr.n = bd->n;
    if (bd->n) {
        arr->arr.items = ARENA_ARRAY(a, avro_value, bd->n);
        if (!arr->arr.items) return SQE_ERR_OUT_OF_MEMORY;
    }
    for (uint32_t i = 0; i < bd->n; i++) {
        avro_value *k = ice_mf_wfield(a, &arr->arr.items[i], arr_s->items, "key");
        avro_value *v = ice_mf_wfield(a, &arr->arr.items[i], arr_s->items, "value");
        if (!k || !v) return SQE_ERR_OUT_OF_MEMORY;
        k->i = bd->items[i].field_id;
        v->bytes.data = bd->items[i].raw.data;
        v->bytes.len = bd->items[i].raw.len;
    }
    return SQE_OK;
}

static int put_opt_long(arena *a, avro_value *rec, const avro_schema *s, const char *name,
                        bool has, int64_t x, bool is_int) {
    avro_value *f = ice_mf_wfield(a, rec, s, name);
    if (!f) return SQE_ERR_OUT_OF_MEMORY;
    uint32_t idx;
    if (avro_schema_field(s, name, &idx)->type->type == AVRO_UNION) {
        if (!has) {
            ice_mf_wnull(f);
            return SQE_OK;
        }
        f = ice_mf_wsome(a, f);
        if (!f) return SQE_ERR_OUT_OF_MEMORY;
    }
    if (is_int) f->i = (int32_t)x;
    else f->l = x;
    return SQE_OK;
}

static int put_list(arena *a, avro_value *rec, const avro_schema *s, const char *name, bool has,
                    uint32_t n, const int64_t *longs, const int32_t *ints) {
    avro_value *f = ice_mf_wfield(a, rec, s, name);
    if (!f) return SQE_ERR_OUT_OF_MEMORY;
    if (!has) {
        ice_mf_wnull(f);
        return SQE_OK;
    }
    avro_value *arr = ice_mf_wsome(a, f);
    if (!arr) return SQE_ERR_OUT_OF_MEMORY;
    arr->arr.n = n;
    if (n) {
        arr->arr.items = ARENA_ARRAY(a, avro_value, n);
        if (!arr->arr.items) return SQE_ERR_OUT_OF_MEMORY;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (ints) arr->arr.items[i].i = ints[i];
        else arr->arr.items[i].l = longs[i];
    }
    return SQE_OK;
}

static int put_string(arena *a, avro_value *rec, const avro_schema *s, const char *name,
                      const char *str) {
    avro_value *f = ice_mf_wfield(a, rec, s, name);
    if (!f) return SQE_ERR_OUT_OF_MEMORY;
    uint32_t idx;
    if (avro_schema_field(s, name, &idx)->type->type == AVRO_UNION) {
        if (!str) {
            ice_mf_wnull(f);
            return SQE_OK;
        }
        f = ice_mf_wsome(a, f);
        if (!f) return SQE_ERR_OUT_OF_MEMORY;
    }
    f->bytes.data = (const uint8_t *)str;
    f->bytes.len = strlen(str);
    return SQE_OK;
}

static int build_entry(avro_writer *w, const ice_manifest_write_opts *opts, int version,
                       const ice_type *ptype, const ice_manifest_entry *e, uint32_t idx,
                       avro_value *rec, sqe_error *err) {
    arena *a = avro_writer_arena(w);
    const avro_schema *s = avro_writer_schema(w);
    const ice_data_file *f = &e->file;
    bool v2 = version >= 2, v3 = version >= 3;
    if (e->status > ICE_STATUS_DELETED) return wbad(err, idx, "bad status%s", "");
    if (f->content > ICE_CONTENT_EQUALITY_DELETES) return wbad(err, idx, "bad content%s", "");
    if (!v2 && f->content != ICE_CONTENT_DATA)
        return wbad(err, idx, "format v1 has no delete files%s", "");
    if (!f->file_path || !f->file_format) return wbad(err, idx, "no file_path or file_format%s", "");
    if (f->n_partition != ptype->n_fields || (ptype->n_fields && !f->partition))
        return wbad(err, idx, "partition tuple does not match the spec%s", "");
    int oom = put_opt_long(a, rec, s, "status", true, e->status, true) ||
              put_opt_long(a, rec, s, "snapshot_id", v2 ? e->has_snapshot_id : true,
                           e->has_snapshot_id ? e->snapshot_id : opts->snapshot_id, false);
    if (!oom && v2)
        oom = put_opt_long(a, rec, s, "sequence_number", e->has_sequence_number,
                           e->sequence_number, false) ||
              put_opt_long(a, rec, s, "file_sequence_number", e->has_file_sequence_number,
                           e->file_sequence_number, false);
    if (oom) return err_nomem(err, "manifest");
    avro_value *dfv = ice_mf_wfield(a, rec, s, "data_file");
    uint32_t i_df;
    const avro_schema *dfs = avro_schema_field(s, "data_file", &i_df)->type;
    if (!dfv) return err_nomem(err, "manifest");
    avro_value *pv = ice_mf_wfield(a, dfv, dfs, "partition");
    uint32_t i_p;
    const avro_schema *pschema = avro_schema_field(dfs, "partition", &i_p)->type;
    if (!pv) return err_nomem(err, "manifest");
    pv->schema = pschema;
    pv->rec.fields = ARENA_ARRAY(a, avro_value, pschema->n_fields ? pschema->n_fields : 1);
    if (!pv->rec.fields) return err_nomem(err, "manifest");
    for (uint32_t k = 0; k < ptype->n_fields; k++) {
        avro_value *fv = &pv->rec.fields[k];
        if (vec_is_null(&f->partition[k], f->partition_row)) {
            ice_mf_wnull(fv);
            continue;
        }
        avro_value *inner = ice_mf_wsome(a, fv);
        if (!inner) return err_nomem(err, "manifest");
        int rc = partition_to_avro(a, &ptype->fields[k].type, &f->partition[k], f->partition_row,
                                   inner, err);
        if (rc != SQE_OK) {
            err_prefix(err, "entry %u: partition field \"%s\"", idx, ptype->fields[k].name);
            return rc;
        }
    }
    oom = put_string(a, dfv, dfs, "file_path", f->file_path) ||
          put_string(a, dfv, dfs, "file_format", f->file_format) ||
          put_opt_long(a, dfv, dfs, "record_count", true, f->record_count, false) ||
          put_opt_long(a, dfv, dfs, "file_size_in_bytes", true, f->file_size_in_bytes, false) ||
          put_counts(a, dfv, dfs, "column_sizes", &f->column_sizes) ||
          put_counts(a, dfv, dfs, "value_counts", &f->value_counts) ||
          put_counts(a, dfv, dfs, "null_value_counts", &f->null_value_counts) ||
          put_counts(a, dfv, dfs, "nan_value_counts", &f->nan_value_counts) ||
          put_bounds(a, dfv, dfs, "lower_bounds", &f->lower_bounds) ||
          put_bounds(a, dfv, dfs, "upper_bounds", &f->upper_bounds) ||
          put_list(a, dfv, dfs, "split_offsets", f->has_split_offsets, f->n_split_offsets,
                   f->split_offsets, NULL) ||
          put_opt_long(a, dfv, dfs, "sort_order_id", f->has_sort_order_id, f->sort_order_id, true);
    if (!oom) {
        avro_value *km = ice_mf_wfield(a, dfv, dfs, "key_metadata");
        if (!km) oom = 1;
        else if (f->has_key_metadata) {
            km = ice_mf_wsome(a, km);
            if (!km) oom = 1;
            else {
                km->bytes.data = f->key_metadata.data;
                km->bytes.len = f->key_metadata.len;
            }
        }
    }
    if (!oom && !v2)
        oom = put_opt_long(a, dfv, dfs, "block_size_in_bytes", true,
                           f->has_block_size_in_bytes ? f->block_size_in_bytes : 64 * 1024 * 1024,
                           false);
    if (!oom && v2)
        oom = put_opt_long(a, dfv, dfs, "content", true, f->content, true) ||
              put_list(a, dfv, dfs, "equality_ids", f->has_equality_ids, f->n_equality_ids, NULL,
                       f->equality_ids) ||
              put_string(a, dfv, dfs, "referenced_data_file", f->referenced_data_file);
    if (!oom && v3)
        oom = put_opt_long(a, dfv, dfs, "first_row_id", f->has_first_row_id, f->first_row_id,
                           false) ||
              put_opt_long(a, dfv, dfs, "content_offset", f->has_content_offset,
                            f->content_offset, false) ||
              put_opt_long(a, dfv, dfs, "content_size_in_bytes", f->has_content_size_in_bytes,
                           f->content_size_in_bytes, false);
    if (oom) return err_nomem(err, "manifest");
    return SQE_OK;
}

/* The partition tuple type of opts (spec over schema); unknown transforms are refused. */
static int write_partition_type(arena *a, const ice_manifest_write_opts *opts, ice_type *out,
                                sqe_error *err) {
    for (uint32_t i = 0; i < opts->spec->n_fields; i++)
        if (opts->spec->fields[i].transform.kind == ICE_T_UNKNOWN)
            return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                           "cannot write Iceberg manifest: partition field \"%s\" has an unknown "
                           "transform",
                           opts->spec->fields[i].name);
    int rc = ice_partition_spec_type(a, opts->schema, opts->spec, out, err);
    if (rc != SQE_OK) err_prefix(err, "cannot write Iceberg manifest");
    return rc;
}

int ice_manifest_write(const ice_manifest_write_opts *opts, const ice_manifest_entry *entries,
                       uint32_t n, uint8_t **bytes, size_t *len, sqe_error *err) {
    *bytes = NULL;
    *len = 0;
    int version = opts->format_version ? opts->format_version : 2;
    if (version < 1 || version > ICE_FORMAT_VERSION_MAX || !opts->schema || !opts->spec)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                       "cannot write Iceberg manifest: needs format version 1..3, a schema and a "
                       "partition spec");
    if (opts->content != ICE_MANIFEST_DATA && opts->content != ICE_MANIFEST_DELETES)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "cannot write Iceberg manifest: bad content");
    if (version < 2 && opts->content != ICE_MANIFEST_DATA)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                       "cannot write Iceberg manifest: format v1 has no delete manifests");
    arena tmp;
    arena_init(&tmp, NULL);
    ice_type ptype;
    strbuf schema, sjson;
    strbuf_init(&schema);
    strbuf_init(&sjson);
    char *spec_json = NULL;
    avro_writer *w = NULL;
    int rc = write_partition_type(&tmp, opts, &ptype, err);
    if (rc == SQE_OK) rc = entry_schema(&schema, version, &ptype, err);
    if (rc == SQE_OK) rc = ice_schema_write(opts->schema, &sjson, err);
    if (rc == SQE_OK && !(spec_json = spec_fields_json(opts->spec)))
        rc = err_nomem(err, "manifest header");
    if (rc != SQE_OK) goto out_free;
    char schema_id[16], spec_id[16], ver[4];
    snprintf(schema_id, sizeof schema_id, "%d", opts->schema->schema_id);
    snprintf(spec_id, sizeof spec_id, "%d", opts->spec->spec_id);
    snprintf(ver, sizeof ver, "%d", version);
    const char *content = opts->content == ICE_MANIFEST_DATA ? "data" : "deletes";
    avro_kv meta[6];
    uint32_t n_meta = 0;
    meta[n_meta++] = (avro_kv){"schema", (const uint8_t *)sjson.data, sjson.len};
    meta[n_meta++] = (avro_kv){"schema-id", (const uint8_t *)schema_id, strlen(schema_id)};
    meta[n_meta++] = (avro_kv){"partition-spec", (const uint8_t *)spec_json, strlen(spec_json)};
    meta[n_meta++] = (avro_kv){"partition-spec-id", (const uint8_t *)spec_id, strlen(spec_id)};
    meta[n_meta++] = (avro_kv){"format-version", (const uint8_t *)ver, strlen(ver)};
    if (version >= 2) meta[n_meta++] = (avro_kv){"content", (const uint8_t *)content, strlen(content)};
    avro_writer_opts wo;
    memset(&wo, 0, sizeof wo);
    wo.codec = opts->codec;
    wo.sync = opts->sync;
    if ((rc = avro_writer_open(schema.data, schema.len, meta, n_meta, &wo, &w, err)) != SQE_OK)
        goto out_free;
    for (uint32_t i = 0; i < n && rc == SQE_OK; i++) {
        avro_value rec;
        memset(&rec, 0, sizeof rec);
        rc = build_entry(w, opts, version, &ptype, &entries[i], i, &rec, err);
        if (rc == SQE_OK) rc = avro_writer_append(w, &rec, err);
        if (rc == SQE_OK && (i & 255) == 255) arena_reset(avro_writer_arena(w));
    }
    if (rc == SQE_OK) rc = avro_writer_finish(w, bytes, len, err);
out_free:
    avro_writer_destroy(w);
    free(spec_json);
    strbuf_reset(&schema);
    strbuf_reset(&sjson);
    arena_destroy(&tmp);
    return rc;
}

/* ---- manifest list summary ----------------------------------------------------------------- */

/* Orders two non-null, non-NaN values of one SQE type: <0, 0, >0. Floats order -0.0 before
 * +0.0 (IEEE 754 totalOrder, spec note on bounds). */
static int compare_values(const vec *v, uint32_t ra, const vec *w, uint32_t rb) {
    uint32_t pa, pb;
    const vec *fa = vec_resolve(v, ra, &pa);
    const vec *fb = vec_resolve(w, rb, &pb);
    const void *da = fa->data, *db = fb->data;
    switch ((type_id)v->type.id) {
    case TYPE_BOOLEAN: return (int)((const uint8_t *)da)[pa] - (int)((const uint8_t *)db)[pb];
    case TYPE_TINYINT: return ((const int8_t *)da)[pa] - ((const int8_t *)db)[pb];
    case TYPE_SMALLINT: return ((const int16_t *)da)[pa] - ((const int16_t *)db)[pb];
    case TYPE_INTEGER:
    case TYPE_DATE: {
        int32_t x = ((const int32_t *)da)[pa], y = ((const int32_t *)db)[pb];
        return (x > y) - (x < y);
    }
    case TYPE_BIGINT:
    case TYPE_TIME:
    case TYPE_TIMESTAMP: {
        int64_t x = ((const int64_t *)da)[pa], y = ((const int64_t *)db)[pb];
        return (x > y) - (x < y);
    }
    case TYPE_TIMESTAMP_TZ: {
        int64_t x = ((const sqe_timestamp_tz *)da)[pa].micros;
        int64_t y = ((const sqe_timestamp_tz *)db)[pb].micros;
        return (x > y) - (x < y);
    }
    case TYPE_REAL:
    case TYPE_DOUBLE: {
        double x = v->type.id == TYPE_REAL ? ((const float *)da)[pa] : ((const double *)da)[pa];
        double y = v->type.id == TYPE_REAL ? ((const float *)db)[pb] : ((const double *)db)[pb];
        if (x == y) return (int)(signbit(y) != 0) - (int)(signbit(x) != 0);
        return x < y ? -1 : 1;
    }
    case TYPE_DECIMAL: {
        int128 x = type_decimal_is_long(v->type) ? ((const int128 *)da)[pa]
                                                 : ((const int64_t *)da)[pa];
        int128 y = type_decimal_is_long(v->type) ? ((const int128 *)db)[pb]
                                                 : ((const int64_t *)db)[pb];
        return (x > y) - (x < y);
    }
    case TYPE_UUID:
        return memcmp((const uint8_t *)da + (size_t)pa * 16, (const uint8_t *)db + (size_t)pb * 16,
                      16);
    case TYPE_VARCHAR:
    case TYPE_CHAR:
    case TYPE_VARBINARY:
        return sqe_str_compare(&((const sqe_str *)da)[pa], &((const sqe_str *)db)[pb]);
    default: return 0;
    }
}

static bool is_nan_value(const vec *v, uint32_t row) {
    uint32_t p;
    const vec *f = vec_resolve(v, row, &p);
    if (v->type.id == TYPE_REAL) return isnan(((const float *)f->data)[p]);
    if (v->type.id == TYPE_DOUBLE) return isnan(((const double *)f->data)[p]);
    return false;
}

int ice_manifest_summarize(arena *a, const ice_manifest_write_opts *opts,
                           const ice_manifest_entry *entries, uint32_t n, const char *path,
                           int64_t length, ice_manifest_file *out, sqe_error *err) {
    memset(out, 0, sizeof *out);
    if (!opts->spec || !opts->schema)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "manifest summary needs a schema and spec");
    ice_type ptype;
    SQE_TRY(write_partition_type(a, opts, &ptype, err));
    out->manifest_path = path;
    out->manifest_length = length;
    out->partition_spec_id = opts->spec->spec_id;
    out->content = opts->content;
    out->has_sequence_number = out->has_min_sequence_number = true;
    out->sequence_number = ICE_SEQ_UNASSIGNED;
    out->min_sequence_number = ICE_SEQ_UNASSIGNED;
    out->added_snapshot_id = opts->snapshot_id;
    out->has_added_files_count = out->has_existing_files_count = out->has_deleted_files_count = true;
    out->has_added_rows_count = out->has_existing_rows_count = out->has_deleted_rows_count = true;
    out->has_partitions = true;
    out->n_partitions = ptype.n_fields;
    if (ptype.n_fields) {
        out->partitions = ARENA_ARRAY(a, ice_field_summary, ptype.n_fields);
        if (!out->partitions) return err_nomem(err, "manifest summary");
    }
    bool have_min = false;
    for (uint32_t i = 0; i < n; i++) {
        const ice_manifest_entry *e = &entries[i];
        int64_t rows = e->file.record_count;
        if (e->status == ICE_STATUS_ADDED) out->added_files_count++, out->added_rows_count += rows;
        else if (e->status == ICE_STATUS_EXISTING)
            out->existing_files_count++, out->existing_rows_count += rows;
        else out->deleted_files_count++, out->deleted_rows_count += rows;
        if (e->status != ICE_STATUS_DELETED && e->has_sequence_number &&
            (!have_min || e->sequence_number < out->min_sequence_number)) {
            out->min_sequence_number = e->sequence_number;
            have_min = true;
        }
        if (e->file.n_partition != ptype.n_fields || (ptype.n_fields && !e->file.partition))
            return wbad(err, i, "partition tuple does not match the spec%s", "");
    }
    for (uint32_t k = 0; k < ptype.n_fields; k++) {
        ice_field_summary *fs = &out->partitions[k];
        fs->contains_nan = 0;
        const ice_manifest_entry *lo = NULL, *hi = NULL;
        for (uint32_t i = 0; i < n; i++) {
            const ice_data_file *f = &entries[i].file;
            const vec *v = &f->partition[k];
            if (vec_is_null(v, f->partition_row)) {
                fs->contains_null = true;
                continue;
            }
            if (is_nan_value(v, f->partition_row)) {
                fs->contains_nan = 1;
                continue;
            }
            /* Entries may hold their partition values in different vectors. */
            if (!lo || compare_values(v, f->partition_row, &lo->file.partition[k],
                                      lo->file.partition_row) < 0)
                lo = &entries[i];
            if (!hi || compare_values(v, f->partition_row, &hi->file.partition[k],
                                      hi->file.partition_row) > 0)
                hi = &entries[i];
        }
        if (lo) {
            SQE_TRY(ice_single_value_encode(a, &ptype.fields[k].type, &lo->file.partition[k],
                                            lo->file.partition_row, &fs->lower, err));
            SQE_TRY(ice_single_value_encode(a, &ptype.fields[k].type, &hi->file.partition[k],
                                            hi->file.partition_row, &fs->upper, err));
            fs->has_lower = fs->has_upper = true;
        }
    }
    return SQE_OK;
}
