/*
 * partition_spec.c: partition specs over Iceberg types (Iceberg spec: "Partitioning",
 * "Partition Transforms", Appendix C "Partition Specs"): the type of each partition field's
 * values and the partition tuple struct of a spec, as manifests store it.
 *
 * INTERFACE: ice_partition_field_type, ice_partition_spec_type
 * NOTES:
 *   - Transform strings are parsed by transform.h (ice_transform_parse), which also owns the
 *     SQE-typed result types and the transforms themselves; this file answers the same question
 *     on Iceberg types, which keep what SQE types lose (int vs long ids, fixed lengths,
 *     nanosecond timestamps) and what a manifest's partition struct must declare.
 *   - Result types follow the spec's table: bucket, year, month and hour produce int; identity,
 *     truncate and void produce the source type; day produces date, as in transform.h, Iceberg
 *     Java and pyiceberg (the spec table says int; both are int32 days since 1970-01-01).
 *   - Source types per transform (spec table): identity any primitive except variant and
 *     geometry/geography; bucket int, long, decimal, date, time, timestamp(tz)(_ns), string,
 *     uuid, fixed, binary; truncate int, long, decimal, string, binary; year/month/day date and
 *     timestamps; hour timestamps; void anything.
 */
#include "iceberg/metadata.h"

#include <stdio.h>
#include <string.h>

static bool kind_in(ice_type_kind k, const ice_type_kind *kinds, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (kinds[i] == k) return true;
    return false;
}

#define KIND_IN(k, arr) kind_in((k), (arr), sizeof(arr) / sizeof((arr)[0]))

int ice_partition_field_type(const ice_schema *schema, const ice_partition_field *field,
                             ice_type *out, sqe_error *err) {
    static const ice_type_kind bucket_src[] = {
        ICE_TYPE_INT,          ICE_TYPE_LONG,         ICE_TYPE_DECIMAL,   ICE_TYPE_DATE,
        ICE_TYPE_TIME,         ICE_TYPE_TIMESTAMP,    ICE_TYPE_TIMESTAMPTZ, ICE_TYPE_TIMESTAMP_NS,
        ICE_TYPE_TIMESTAMPTZ_NS, ICE_TYPE_STRING,     ICE_TYPE_UUID,      ICE_TYPE_FIXED,
        ICE_TYPE_BINARY};
    static const ice_type_kind truncate_src[] = {ICE_TYPE_INT, ICE_TYPE_LONG, ICE_TYPE_DECIMAL,
                                                 ICE_TYPE_STRING, ICE_TYPE_BINARY};
    static const ice_type_kind date_src[] = {ICE_TYPE_DATE, ICE_TYPE_TIMESTAMP, ICE_TYPE_TIMESTAMPTZ,
                                             ICE_TYPE_TIMESTAMP_NS, ICE_TYPE_TIMESTAMPTZ_NS};
    static const ice_type_kind hour_src[] = {ICE_TYPE_TIMESTAMP, ICE_TYPE_TIMESTAMPTZ,
                                             ICE_TYPE_TIMESTAMP_NS, ICE_TYPE_TIMESTAMPTZ_NS};
    const ice_field *src = ice_schema_find_field(schema, field->source_id);
    if (!src)
        return err_set(err, SQE_ERR_COLUMN_NOT_FOUND,
                       "partition field \"%.100s\": source column id %d is not in the schema",
                       field->name ? field->name : "?", field->source_id);
    ice_type_kind k = src->type.kind;
    bool nested = k == ICE_TYPE_STRUCT || k == ICE_TYPE_LIST || k == ICE_TYPE_MAP;
    bool ok = false;
    ice_type_kind result = ICE_TYPE_INT;
    bool keep_source = false;
    switch (field->transform.kind) {
    case ICE_T_IDENTITY:
        ok = !nested && k != ICE_TYPE_VARIANT && k != ICE_TYPE_GEOMETRY && k != ICE_TYPE_GEOGRAPHY;
        keep_source = true;
        break;
    case ICE_T_BUCKET: ok = KIND_IN(k, bucket_src); break;
    case ICE_T_TRUNCATE:
        ok = KIND_IN(k, truncate_src);
        keep_source = true;
        break;
    case ICE_T_YEAR:
    case ICE_T_MONTH: ok = KIND_IN(k, date_src); break;
    case ICE_T_DAY:
        ok = KIND_IN(k, date_src);
        result = ICE_TYPE_DATE;
        break;
    case ICE_T_HOUR: ok = KIND_IN(k, hour_src); break;
    case ICE_T_VOID:
        ok = true;
        keep_source = true;
        break;
    case ICE_T_UNKNOWN:
    default:
        return err_set(err, SQE_ERR_NOT_SUPPORTED, "unsupported: partition transform \"%.60s\"",
                       field->transform_text ? field->transform_text : "?");
    }
    if (!ok) {
        char tb[64];
        ice_transform_format(field->transform, tb, sizeof tb);
        return err_set(err, SQE_ERR_TYPE_MISMATCH,
                       "partition field \"%.100s\": transform %s cannot be applied to type %s",
                       field->name ? field->name : "?", tb, ice_type_kind_name(k));
    }
    if (keep_source) {
        *out = src->type;
    } else {
        memset(out, 0, sizeof *out);
        out->kind = result;
    }
    return SQE_OK;
}

int ice_partition_spec_type(arena *a, const ice_schema *schema, const ice_partition_spec *spec,
                            ice_type *out, sqe_error *err) {
    ice_type t;
    memset(&t, 0, sizeof t);
    t.kind = ICE_TYPE_STRUCT;
    t.n_fields = spec->n_fields;
    if (spec->n_fields) {
        t.fields = ARENA_ARRAY(a, ice_field, spec->n_fields);
        if (!t.fields) return err_nomem(err, "partition type");
    }
    for (uint32_t i = 0; i < spec->n_fields; i++) {
        ice_field *f = &t.fields[i];
        f->id = spec->fields[i].field_id;
        f->name = spec->fields[i].name;
        f->required = false;
        SQE_TRY(ice_partition_field_type(schema, &spec->fields[i], &f->type, err));
    }
    *out = t;
    return SQE_OK;
}
