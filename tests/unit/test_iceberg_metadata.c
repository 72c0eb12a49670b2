/*
 * test_iceberg_metadata.c: unit tests of the Iceberg table metadata model (src/iceberg/
 * metadata_parse.c, metadata_write.c, schema.c, partition_spec.c).
 *
 * Covers: parsing v1 (legacy "schema"/"partition-spec", no field ids), v2 and v3 documents;
 * every primitive type string, nested struct/list/map types and defaults; lookups (schema, spec,
 * snapshot, ref, field by id and by dotted name with and without case); the implicit main
 * branch; writing (Java key order, presence flags, byte-stable re-serialization); Iceberg <->
 * SQE type mapping and fresh field-id assignment; partition field types per transform; error
 * messages with JSON paths for missing, mistyped and out-of-range fields, NOT_SUPPORTED for
 * format version 4. Interop with pyiceberg lives in tests/iceberg/test_metadata_interop.py.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/arena.h"
#include "common/err.h"
#include "common/strbuf.h"
#include "iceberg/metadata.h"
#include "types/types.h"

/* ---- helpers ----------------------------------------------------------------------------- */

static arena test_arena;

static int setup(void **state) {
    (void)state;
    arena_init(&test_arena, NULL);
    return 0;
}

static int teardown(void **state) {
    (void)state;
    arena_destroy(&test_arena);
    return 0;
}

static ice_metadata *parse_ok(const char *json) {
    ice_metadata *m = NULL;
    sqe_error err;
    int rc = ice_metadata_parse(&test_arena, json, strlen(json), &m, &err);
    if (rc != SQE_OK) fail_msg("parse failed: %s", err.message);
    assert_non_null(m);
    return m;
}

/* Parses json expecting code; checks the message contains want. */
static void parse_fails(const char *json, int code, const char *want) {
    ice_metadata *m = NULL;
    sqe_error err;
    int rc = ice_metadata_parse(&test_arena, json, strlen(json), &m, &err);
    if (rc != code) fail_msg("expected code %d, got %d (%s)", code, rc, rc ? err.message : "ok");
    if (!strstr(err.message, want)) fail_msg("message \"%s\" lacks \"%s\"", err.message, want);
    assert_null(m);
}

static char *write_ok(const ice_metadata *m) {
    strbuf sb;
    strbuf_init(&sb);
    sqe_error err;
    int rc = ice_metadata_write(m, &sb, &err);
    if (rc != SQE_OK) fail_msg("write failed: %s", err.message);
    return strbuf_move(&sb);
}

#define V2_HEAD                                                                                    \
    "{\"format-version\":2,\"table-uuid\":\"fb072c92-a02b-11e9-ae9c-1bb7bc9eca94\","               \
    "\"location\":\"s3://b/wh/t\",\"last-sequence-number\":2,\"last-updated-ms\":1515100955770," \
    "\"last-column-id\":9,"

static const char *v2_doc =
    V2_HEAD
    "\"current-schema-id\":1,"
    "\"schemas\":[{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
    "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"}]},"
    "{\"type\":\"struct\",\"schema-id\":1,\"identifier-field-ids\":[1],\"fields\":["
    "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\",\"doc\":\"key\"},"
    "{\"id\":2,\"name\":\"Price\",\"required\":false,\"type\":\"decimal(9,2)\"},"
    "{\"id\":3,\"name\":\"loc\",\"required\":false,\"type\":{\"type\":\"struct\",\"fields\":["
    "{\"id\":4,\"name\":\"lat\",\"required\":true,\"type\":\"double\"},"
    "{\"id\":5,\"name\":\"a.b\",\"required\":false,\"type\":\"fixed[16]\"}]}},"
    "{\"id\":6,\"name\":\"tags\",\"required\":false,\"type\":{\"type\":\"list\",\"element-id\":7,"
    "\"element\":\"string\",\"element-required\":true}},"
    "{\"id\":8,\"name\":\"m\",\"required\":false,\"type\":{\"type\":\"map\",\"key-id\":9,"
    "\"key\":\"string\",\"value-id\":10,\"value\":\"timestamptz\",\"value-required\":false}}]}],"
    "\"default-spec-id\":1,\"last-partition-id\":1001,"
    "\"partition-specs\":[{\"spec-id\":0,\"fields\":[]},{\"spec-id\":1,\"fields\":["
    "{\"name\":\"id_bucket\",\"transform\":\"bucket[16]\",\"source-id\":1,\"field-id\":1000},"
    "{\"name\":\"p\",\"transform\":\"truncate[10]\",\"source-id\":2,\"field-id\":1001}]}],"
    "\"default-sort-order-id\":1,\"sort-orders\":[{\"order-id\":0,\"fields\":[]},"
    "{\"order-id\":1,\"fields\":[{\"transform\":\"identity\",\"source-id\":1,"
    "\"direction\":\"desc\",\"null-order\":\"nulls-last\"}]}],"
    "\"properties\":{\"owner\":\"me\"},"
    "\"current-snapshot-id\":20,"
    "\"refs\":{\"main\":{\"snapshot-id\":20,\"type\":\"branch\"},"
    "\"t1\":{\"snapshot-id\":10,\"type\":\"tag\",\"max-ref-age-ms\":5}},"
    "\"snapshots\":[{\"snapshot-id\":10,\"sequence-number\":1,\"timestamp-ms\":1,"
    "\"summary\":{\"added-records\":\"3\",\"operation\":\"append\"},"
    "\"manifest-list\":\"s3://b/wh/t/m1.avro\",\"schema-id\":0},"
    "{\"snapshot-id\":20,\"parent-snapshot-id\":10,\"sequence-number\":2,\"timestamp-ms\":2,"
    "\"summary\":{\"operation\":\"overwrite\"},\"manifest-list\":\"s3://b/wh/t/m2.avro\"}],"
    "\"snapshot-log\":[{\"timestamp-ms\":1,\"snapshot-id\":10}],"
    "\"metadata-log\":[{\"timestamp-ms\":1,\"metadata-file\":\"s3://b/wh/t/v1.json\"}],"
    "\"statistics\":[],\"partition-statistics\":[],"
    "\"x-unknown\":{\"k\":[1,2]}}";

/* ---- parsing ------------------------------------------------------------------------------ */

static void test_parse_v2(void **state) {
    (void)state;
    ice_metadata *m = parse_ok(v2_doc);
    assert_int_equal(m->format_version, 2);
    assert_string_equal(m->location, "s3://b/wh/t");
    assert_int_equal(m->last_sequence_number, 2);
    assert_int_equal(m->n_schemas, 2);
    const ice_schema *s = ice_metadata_current_schema(m);
    assert_non_null(s);
    assert_int_equal(s->schema_id, 1);
    assert_int_equal(s->n_identifier_field_ids, 1);
    assert_int_equal(s->type.n_fields, 5);
    assert_string_equal(s->type.fields[0].doc, "key");
    const ice_field *price = ice_schema_find_field(s, 2);
    assert_int_equal(price->type.kind, ICE_TYPE_DECIMAL);
    assert_int_equal(price->type.precision, 9);
    assert_int_equal(price->type.scale, 2);
    assert_int_equal(ice_schema_find_field(s, 7)->type.kind, ICE_TYPE_STRING);
    assert_string_equal(ice_schema_find_field(s, 7)->name, "element");
    assert_true(ice_schema_find_field(s, 7)->required);
    assert_true(ice_schema_find_field(s, 9)->required); /* map keys */
    assert_false(ice_schema_find_field(s, 10)->required);
    assert_int_equal(ice_schema_find_field(s, 5)->type.length, 16);
    assert_null(ice_schema_find_field(s, 99));
    assert_int_equal(ice_schema_max_field_id(s), 10);
    /* names */
    assert_int_equal(ice_schema_find_by_name(s, "loc.lat", false)->id, 4);
    assert_int_equal(ice_schema_find_by_name(s, "loc.a.b", false)->id, 5);
    assert_null(ice_schema_find_by_name(s, "price", false));
    assert_int_equal(ice_schema_find_by_name(s, "price", true)->id, 2);
    assert_int_equal(ice_schema_find_by_name(s, "LOC.LAT", true)->id, 4);
    assert_int_equal(ice_schema_find_by_name(s, "m.value", false)->id, 10);
    assert_int_equal(ice_schema_find_by_name(s, "tags.element", false)->id, 7);
    assert_null(ice_schema_find_by_name(s, "loc.nope", false));
    /* specs and orders */
    const ice_partition_spec *spec = ice_metadata_default_spec(m);
    assert_int_equal(spec->spec_id, 1);
    assert_int_equal(spec->fields[0].transform.kind, ICE_T_BUCKET);
    assert_int_equal(spec->fields[0].transform.param, 16);
    assert_int_equal(spec->fields[1].transform.kind, ICE_T_TRUNCATE);
    assert_non_null(ice_metadata_spec(m, 0));
    assert_null(ice_metadata_spec(m, 7));
    assert_true(ice_metadata_sort_order(m, 1)->fields[0].descending);
    assert_false(ice_metadata_sort_order(m, 1)->fields[0].nulls_first);
    /* snapshots and refs */
    const ice_snapshot *cur = ice_metadata_current_snapshot(m);
    assert_int_equal(cur->snapshot_id, 20);
    assert_true(cur->has_parent);
    assert_int_equal(cur->parent_snapshot_id, 10);
    assert_false(cur->has_schema_id);
    const ice_snapshot *first = ice_metadata_snapshot(m, 10);
    assert_string_equal(first->summary.items[0].key, "operation"); /* operation first */
    assert_string_equal(ice_kv_get(&first->summary, "added-records"), "3");
    const ice_ref *tag = ice_metadata_ref(m, "t1");
    assert_int_equal(tag->type, ICE_REF_TAG);
    assert_true(tag->has_max_ref_age_ms);
    assert_int_equal(tag->max_ref_age_ms, 5);
    assert_false(ice_metadata_ref(m, "main")->implicit);
    assert_null(ice_metadata_ref(m, "nope"));
    assert_string_equal(ice_kv_get(&m->properties, "owner"), "me");
    assert_int_equal(m->extra.n, 1);
    assert_string_equal(m->extra.items[0].key, "x-unknown");
    assert_string_equal(m->extra.items[0].value, "{\"k\":[1,2]}");
}

static void test_parse_v1_legacy(void **state) {
    (void)state;
    ice_metadata *m = parse_ok(
        "{\"format-version\":1,\"location\":\"/t\",\"last-updated-ms\":5,\"last-column-id\":2,"
        "\"schema\":{\"type\":\"struct\",\"fields\":["
        "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"int\"},"
        "{\"id\":2,\"name\":\"ts\",\"required\":false,\"type\":\"timestamp\"}]},"
        "\"partition-spec\":[{\"name\":\"ts_day\",\"transform\":\"day\",\"source-id\":2},"
        "{\"name\":\"b\",\"transform\":\"bucket[4]\",\"source-id\":1}],"
        "\"snapshots\":[{\"snapshot-id\":3,\"timestamp-ms\":4,"
        "\"manifests\":[\"/t/m1.avro\",\"/t/m2.avro\"]}],\"current-snapshot-id\":3}");
    assert_int_equal(m->format_version, 1);
    assert_null(m->table_uuid);
    assert_int_equal(m->n_schemas, 1);
    assert_int_equal(m->current_schema_id, 0);
    assert_false(m->schemas[0].has_schema_id);
    assert_int_equal(m->n_specs, 1);
    assert_int_equal(m->default_spec_id, 0);
    assert_int_equal(m->specs[0].fields[0].field_id, 1000);
    assert_int_equal(m->specs[0].fields[1].field_id, 1001);
    assert_false(m->specs[0].fields[0].has_field_id);
    assert_int_equal(m->last_partition_id, 1001);
    assert_int_equal(m->n_sort_orders, 1); /* unsorted, implied */
    assert_int_equal(m->sort_orders[0].order_id, 0);
    const ice_snapshot *s = ice_metadata_current_snapshot(m);
    assert_null(s->manifest_list);
    assert_int_equal(s->n_manifests, 2);
    assert_false(s->has_summary);
    assert_false(s->has_sequence_number);
    const ice_ref *main_ref = ice_metadata_ref(m, "main");
    assert_non_null(main_ref);
    assert_true(main_ref->implicit);
    assert_int_equal(main_ref->snapshot_id, 3);
    /* written back with the same keys, and no refs / sort-orders / schemas added */
    char *out = write_ok(m);
    assert_non_null(strstr(out, "\"schema\":{\"type\":\"struct\",\"fields\""));
    assert_non_null(strstr(out, "\"partition-spec\":[{\"name\":\"ts_day\",\"transform\":\"day\","
                                "\"source-id\":2}"));
    assert_null(strstr(out, "\"refs\""));
    assert_null(strstr(out, "\"schemas\""));
    assert_null(strstr(out, "\"sort-orders\""));
    assert_null(strstr(out, "field-id"));
    assert_non_null(strstr(out, "\"manifests\":[\"/t/m1.avro\",\"/t/m2.avro\"]"));
    free(out);
}

static void test_parse_v3(void **state) {
    (void)state;
    ice_metadata *m = parse_ok(
        "{\"format-version\":3,\"table-uuid\":\"u\",\"location\":\"/t\",\"last-sequence-number\":1,"
        "\"last-updated-ms\":5,\"last-column-id\":8,\"current-schema-id\":0,"
        "\"schemas\":[{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
        "{\"id\":1,\"name\":\"a\",\"required\":false,\"type\":\"timestamp_ns\","
        "\"initial-default\":\"2017-11-16T22:31:08.123456789\",\"write-default\":null},"
        "{\"id\":2,\"name\":\"b\",\"required\":false,\"type\":\"timestamptz_ns\"},"
        "{\"id\":3,\"name\":\"c\",\"required\":false,\"type\":\"unknown\"},"
        "{\"id\":4,\"name\":\"d\",\"required\":false,\"type\":\"variant\"},"
        "{\"id\":5,\"name\":\"e\",\"required\":false,\"type\":\"geometry(srid:4326)\"},"
        "{\"id\":6,\"name\":\"f\",\"required\":false,\"type\":\"geography\"},"
        "{\"id\":7,\"name\":\"g\",\"required\":true,\"type\":\"int\",\"initial-default\":34,"
        "\"write-default\":35},{\"id\":8,\"name\":\"h\",\"required\":false,\"type\":\"uuid\"}]}],"
        "\"default-spec-id\":0,\"last-partition-id\":1001,\"partition-specs\":[{\"spec-id\":0,"
        "\"fields\":[{\"name\":\"z\",\"transform\":\"zorder\",\"source-ids\":[1,7],"
        "\"field-id\":1000},{\"name\":\"d\",\"transform\":\"day\",\"source-id\":1,"
        "\"field-id\":1001}]}],"
        "\"default-sort-order-id\":0,\"sort-orders\":[{\"order-id\":0,\"fields\":[]}],"
        "\"current-snapshot-id\":null,\"next-row-id\":0,\"snapshots\":[],\"refs\":{}}");
    assert_int_equal(m->format_version, 3);
    assert_int_equal(m->current_snapshot_id, -1);
    assert_null(ice_metadata_current_snapshot(m));
    assert_null(ice_metadata_ref(m, "main"));
    const ice_schema *s = ice_metadata_current_schema(m);
    assert_int_equal(s->type.fields[0].type.kind, ICE_TYPE_TIMESTAMP_NS);
    assert_string_equal(s->type.fields[0].initial_default, "\"2017-11-16T22:31:08.123456789\"");
    assert_string_equal(s->type.fields[0].write_default, "null");
    assert_int_equal(s->type.fields[4].type.kind, ICE_TYPE_GEOMETRY);
    assert_string_equal(s->type.fields[4].type.text, "geometry(srid:4326)");
    assert_string_equal(s->type.fields[6].initial_default, "34");
    const ice_partition_field *z = &m->specs[0].fields[0];
    assert_int_equal(z->transform.kind, ICE_T_UNKNOWN);
    assert_string_equal(z->transform_text, "zorder");
    assert_int_equal(z->n_source_ids, 2);
    assert_false(z->has_source_id);
    assert_int_equal(z->source_id, 1);
    /* types */
    sqe_type t;
    sqe_error err;
    char buf[128];
    assert_int_equal(ice_schema_to_sqe_type(&s->type.fields[0].type, &t, &err), SQE_OK);
    assert_int_equal(t.id, TYPE_TIMESTAMP);
    assert_int_equal(t.precision, 6);
    assert_int_equal(ice_schema_to_sqe_type(&s->type.fields[1].type, &t, &err), SQE_OK);
    assert_int_equal(t.id, TYPE_TIMESTAMP_TZ);
    assert_int_equal(ice_schema_to_sqe_type(&s->type.fields[2].type, &t, &err), SQE_OK);
    assert_int_equal(t.id, TYPE_UNKNOWN);
    for (int i = 3; i <= 5; i++) {
        assert_int_equal(ice_schema_to_sqe_type(&s->type.fields[i].type, &t, &err),
                         SQE_ERR_NOT_SUPPORTED);
        assert_non_null(strstr(err.message, "unsupported: "));
    }
    /* partition field types */
    ice_type pt;
    assert_int_equal(ice_partition_field_type(s, &m->specs[0].fields[1], &pt, &err), SQE_OK);
    assert_int_equal(pt.kind, ICE_TYPE_DATE);
    assert_int_equal(ice_partition_field_type(s, z, &pt, &err), SQE_ERR_NOT_SUPPORTED);
    /* byte-stable rewrite */
    char *out = write_ok(m);
    assert_non_null(strstr(out, "\"current-snapshot-id\":null,\"next-row-id\":0"));
    assert_non_null(strstr(out, "\"source-ids\":[1,7]"));
    assert_non_null(strstr(out, "\"transform\":\"zorder\""));
    ice_metadata *m2 = parse_ok(out);
    char *out2 = write_ok(m2);
    assert_string_equal(out, out2);
    free(out);
    free(out2);
    ice_type_format(&s->type.fields[4].type, buf, sizeof buf);
    assert_string_equal(buf, "geometry(srid:4326)");
}

/* ---- writing ------------------------------------------------------------------------------ */

static void test_write_v2_order_and_stability(void **state) {
    (void)state;
    ice_metadata *m = parse_ok(v2_doc);
    char *out = write_ok(m);
    const char *want_prefix =
        "{\"format-version\":2,\"table-uuid\":\"fb072c92-a02b-11e9-ae9c-1bb7bc9eca94\","
        "\"location\":\"s3://b/wh/t\",\"last-sequence-number\":2,\"last-updated-ms\":1515100955770,"
        "\"last-column-id\":9,\"schemas\":[{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
        "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"}]},";
    assert_memory_equal(out, want_prefix, strlen(want_prefix));
    assert_non_null(strstr(out, "\"type\":\"decimal(9, 2)\"")); /* Java spelling */
    assert_non_null(strstr(out, "{\"type\":\"list\",\"element-id\":7,\"element\":\"string\","
                                "\"element-required\":true}"));
    assert_non_null(strstr(out, "\"summary\":{\"operation\":\"append\",\"added-records\":\"3\"}"));
    assert_non_null(strstr(out, "{\"name\":\"id_bucket\",\"transform\":\"bucket[16]\","
                                "\"source-id\":1,\"field-id\":1000}"));
    assert_non_null(strstr(out, "\"x-unknown\":{\"k\":[1,2]}}"));
    const char *order[] = {"\"current-schema-id\"", "\"partition-specs\"", "\"default-spec-id\"",
                           "\"last-partition-id\"", "\"default-sort-order-id\"",
                           "\"sort-orders\"", "\"properties\"", "\"current-snapshot-id\"",
                           "\"refs\"", "\"snapshots\"", "\"statistics\"",
                           "\"partition-statistics\"", "\"snapshot-log\"", "\"metadata-log\"",
                           "\"x-unknown\""};
    const char *prev = out;
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        const char *at = strstr(out, order[i]);
        if (!at || at < prev) fail_msg("key %s out of order", order[i]);
        prev = at;
    }
    ice_metadata *m2 = parse_ok(out);
    char *out2 = write_ok(m2);
    assert_string_equal(out, out2);
    free(out);
    free(out2);
}

static void test_build_from_sqe_and_write(void **state) {
    (void)state;
    /* row(id bigint, tags array(varchar), m map(varchar, row(x integer)), p row(q date)) */
    sqe_type inner_fields[1] = {type_make(TYPE_INTEGER)};
    const char *inner_names[1] = {"x"};
    sqe_type inner = type_row(1, inner_fields, inner_names);
    sqe_type p_fields[1] = {type_make(TYPE_DATE)};
    const char *p_names[1] = {"q"};
    sqe_type fields[4] = {type_make(TYPE_BIGINT), type_array(type_varchar(0)),
                          type_map(type_varchar(0), inner), type_row(1, p_fields, p_names)};
    const char *names[4] = {"id", "tags", "m", "p"};
    sqe_type row = type_row(4, fields, names);
    int32_t last_id = 0;
    ice_schema *s = NULL;
    sqe_error err;
    assert_int_equal(ice_schema_from_sqe(&test_arena, row, 0, &last_id, &s, &err), SQE_OK);
    assert_int_equal(last_id, 9);
    /* assignFreshIds order: 1..4 top level, then tags.element 5, m.key 6, m.value 7, m.value.x 8,
     * p.q 9 */
    assert_int_equal(ice_schema_find_by_name(s, "tags.element", false)->id, 5);
    assert_int_equal(ice_schema_find_by_name(s, "m.key", false)->id, 6);
    assert_true(ice_schema_find_by_name(s, "m.key", false)->required);
    assert_int_equal(ice_schema_find_by_name(s, "m.value", false)->id, 7);
    assert_int_equal(ice_schema_find_by_name(s, "m.value.x", false)->id, 8);
    assert_int_equal(ice_schema_find_by_name(s, "p.q", false)->id, 9);
    /* back to SQE gives the same type */
    sqe_type back;
    assert_int_equal(ice_schema_to_sqe_type(&s->type, &back, &err), SQE_OK);
    assert_true(type_equal(back, row));
    /* a fresh table written with Java's keys */
    ice_metadata m;
    memset(&m, 0, sizeof m);
    m.format_version = 2;
    m.table_uuid = "0f2b1c4e-0000-4000-8000-000000000001";
    m.location = "file:///w/t";
    m.last_updated_ms = 1;
    m.last_column_id = last_id;
    m.n_schemas = 1;
    m.schemas = s;
    ice_partition_spec spec;
    memset(&spec, 0, sizeof spec);
    m.n_specs = 1;
    m.specs = &spec;
    m.last_partition_id = 999;
    ice_sort_order unsorted;
    memset(&unsorted, 0, sizeof unsorted);
    m.n_sort_orders = 1;
    m.sort_orders = &unsorted;
    m.current_snapshot_id = -1;
    m.present = ice_metadata_default_present(2);
    char *out = write_ok(&m);
    assert_non_null(strstr(out, "\"current-snapshot-id\":-1"));
    assert_non_null(strstr(out, "\"refs\":{}"));
    assert_non_null(strstr(out, "\"identifier-field-ids\":[]"));
    assert_non_null(strstr(out, "{\"type\":\"map\",\"key-id\":6,\"key\":\"string\",\"value-id\":7,"
                                "\"value\":{\"type\":\"struct\",\"fields\":[{\"id\":8,"
                                "\"name\":\"x\",\"required\":false,\"type\":\"int\"}]},"
                                "\"value-required\":false}"));
    ice_metadata *m2 = parse_ok(out);
    assert_int_equal(ice_metadata_current_schema(m2)->type.n_fields, 4);
    free(out);
    /* unsupported SQE types */
    int32_t id2 = 0;
    ice_type it;
    assert_int_equal(ice_type_from_sqe(&test_arena, type_make(TYPE_INTERVAL_DS), &id2, &it, &err),
                     SQE_ERR_NOT_SUPPORTED);
    assert_int_equal(ice_type_from_sqe(&test_arena, type_make(TYPE_JSON), &id2, &it, &err),
                     SQE_ERR_NOT_SUPPORTED);
    sqe_type anon_fields[1] = {type_make(TYPE_INTEGER)};
    assert_int_equal(ice_type_from_sqe(&test_arena, type_row(1, anon_fields, NULL), &id2, &it, &err),
                     SQE_ERR_NOT_SUPPORTED);
}

/* ---- types -------------------------------------------------------------------------------- */

static void test_primitive_types(void **state) {
    (void)state;
    static const struct {
        const char *text;
        ice_type_kind kind;
        const char *canonical;
        const char *sqe;
    } cases[] = {
        {"boolean", ICE_TYPE_BOOLEAN, "boolean", "boolean"},
        {"int", ICE_TYPE_INT, "int", "integer"},
        {"long", ICE_TYPE_LONG, "long", "bigint"},
        {"float", ICE_TYPE_FLOAT, "float", "real"},
        {"double", ICE_TYPE_DOUBLE, "double", "double"},
        {"decimal(38, 10)", ICE_TYPE_DECIMAL, "decimal(38, 10)", "decimal(38,10)"},
        {"decimal( 9 ,2 )", ICE_TYPE_DECIMAL, "decimal(9, 2)", "decimal(9,2)"},
        {"date", ICE_TYPE_DATE, "date", "date"},
        {"time", ICE_TYPE_TIME, "time", "time(6)"},
        {"timestamp", ICE_TYPE_TIMESTAMP, "timestamp", "timestamp(6)"},
        {"timestamptz", ICE_TYPE_TIMESTAMPTZ, "timestamptz", "timestamp(6) with time zone"},
        {"timestamp_ns", ICE_TYPE_TIMESTAMP_NS, "timestamp_ns", "timestamp(6)"},
        {"timestamptz_ns", ICE_TYPE_TIMESTAMPTZ_NS, "timestamptz_ns",
         "timestamp(6) with time zone"},
        {"string", ICE_TYPE_STRING, "string", "varchar"},
        {"uuid", ICE_TYPE_UUID, "uuid", "uuid"},
        {"fixed[16]", ICE_TYPE_FIXED, "fixed[16]", "varbinary"},
        {"binary", ICE_TYPE_BINARY, "binary", "varbinary"},
        {"unknown", ICE_TYPE_UNKNOWN, "unknown", "unknown"},
        {"LONG", ICE_TYPE_LONG, "long", "bigint"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ice_type t;
        sqe_error err;
        char buf[64];
        if (ice_type_parse_primitive(&test_arena, cases[i].text, &t, &err) != SQE_OK)
            fail_msg("%s: %s", cases[i].text, err.message);
        assert_int_equal(t.kind, cases[i].kind);
        ice_type_format(&t, buf, sizeof buf);
        assert_string_equal(buf, cases[i].canonical);
        sqe_type st;
        assert_int_equal(ice_schema_to_sqe_type(&t, &st, &err), SQE_OK);
        type_format(st, buf, sizeof buf);
        assert_string_equal(buf, cases[i].sqe);
    }
    const char *bad[] = {"decimal(39,1)", "decimal(5,6)", "decimal(0,0)", "decimal(5)",
                         "decimal(5,2", "fixed[0]", "fixed[]", "fixed[99999999999]", "strin",
                         "", "geometry(", "list", "struct", "decimal(-1,0)"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ice_type t;
        sqe_error err;
        if (ice_type_parse_primitive(&test_arena, bad[i], &t, &err) != SQE_ERR_INVALID_FILE)
            fail_msg("\"%s\" should not parse", bad[i]);
    }
}

static void test_partition_field_types(void **state) {
    (void)state;
    ice_metadata *m = parse_ok(v2_doc);
    const ice_schema *s = ice_metadata_current_schema(m);
    sqe_error err;
    ice_type t;
    ice_partition_field f;
    memset(&f, 0, sizeof f);
    f.name = "p";
    static const struct {
        const char *transform;
        int32_t source;
        int rc;
        ice_type_kind result;
    } cases[] = {
        {"identity", 2, SQE_OK, ICE_TYPE_DECIMAL},   {"bucket[4]", 2, SQE_OK, ICE_TYPE_INT},
        {"truncate[3]", 2, SQE_OK, ICE_TYPE_DECIMAL}, {"bucket[4]", 4, SQE_ERR_TYPE_MISMATCH, 0},
        {"year", 10, SQE_OK, ICE_TYPE_INT},          {"day", 10, SQE_OK, ICE_TYPE_DATE},
        {"hour", 10, SQE_OK, ICE_TYPE_INT},          {"month", 1, SQE_ERR_TYPE_MISMATCH, 0},
        {"void", 3, SQE_OK, ICE_TYPE_STRUCT},        {"identity", 3, SQE_ERR_TYPE_MISMATCH, 0},
        {"truncate[2]", 5, SQE_ERR_TYPE_MISMATCH, 0}, {"bucket[2]", 5, SQE_OK, ICE_TYPE_INT},
        {"identity", 42, SQE_ERR_COLUMN_NOT_FOUND, 0}, {"hour", 1, SQE_ERR_TYPE_MISMATCH, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_int_equal(ice_transform_parse(cases[i].transform, &f.transform, &err), SQE_OK);
        f.source_id = cases[i].source;
        int rc = ice_partition_field_type(s, &f, &t, &err);
        if (rc != cases[i].rc) fail_msg("case %zu: rc %d (%s)", i, rc, rc ? err.message : "");
        if (rc == SQE_OK) assert_int_equal(t.kind, cases[i].result);
    }
    ice_type tuple;
    assert_int_equal(ice_partition_spec_type(&test_arena, s, ice_metadata_default_spec(m), &tuple,
                                             &err),
                     SQE_OK);
    assert_int_equal(tuple.kind, ICE_TYPE_STRUCT);
    assert_int_equal(tuple.n_fields, 2);
    assert_int_equal(tuple.fields[0].id, 1000);
    assert_string_equal(tuple.fields[0].name, "id_bucket");
    assert_int_equal(tuple.fields[0].type.kind, ICE_TYPE_INT);
    assert_int_equal(tuple.fields[1].type.kind, ICE_TYPE_DECIMAL);
}

/* ---- errors ------------------------------------------------------------------------------- */

static void test_errors(void **state) {
    (void)state;
    parse_fails("{\"format-version\":4}", SQE_ERR_NOT_SUPPORTED,
                "unsupported: Iceberg format version 4");
    parse_fails("{\"format-version\":\"2\"}", SQE_ERR_INVALID_FILE,
                "Invalid Iceberg metadata: format-version: expected an integer, got a string");
    parse_fails("{}", SQE_ERR_INVALID_FILE, "format-version: missing required field");
    parse_fails("[]", SQE_ERR_INVALID_FILE, "(root): expected a JSON object");
    parse_fails("{\"format-version\":2", SQE_ERR_INVALID_FILE, "JSON error at line 1");
    parse_fails("\x1f\x8b\x08", SQE_ERR_NOT_SUPPORTED, "gzip");
    parse_fails(V2_HEAD "\"x\":0}", SQE_ERR_INVALID_FILE, "schemas: missing required field");
    parse_fails("{\"format-version\":2,\"location\":\"x\"}", SQE_ERR_INVALID_FILE,
                "table-uuid: missing required field");
    parse_fails(V2_HEAD "\"current-schema-id\":0,\"schemas\":[{\"type\":\"struct\",\"schema-id\":0,"
                "\"fields\":[{\"id\":1,\"name\":\"a\",\"required\":true,\"type\":{\"type\":\"map\","
                "\"key-id\":2,\"key\":\"string\",\"value-id\":3,\"value\":\"long\"}}]}]}",
                SQE_ERR_INVALID_FILE, "schemas[0].fields[0].type.value-required: missing required");
    parse_fails(V2_HEAD "\"current-schema-id\":0,\"schemas\":[{\"type\":\"struct\",\"schema-id\":0,"
                "\"fields\":[{\"id\":3000000000,\"name\":\"a\",\"required\":true,\"type\":\"int\"}]}]}",
                SQE_ERR_INVALID_FILE, "schemas[0].fields[0].id: integer out of int range");
    parse_fails(V2_HEAD "\"current-schema-id\":0,\"schemas\":[{\"type\":\"struct\",\"schema-id\":0,"
                "\"fields\":[{\"id\":1,\"name\":\"a\",\"required\":true,\"type\":\"int\","
                "\"initial-default\":\"x\"}]}]}",
                SQE_ERR_INVALID_FILE, "schemas[0].fields[0].initial-default: default must be an int");
    parse_fails(V2_HEAD "\"current-schema-id\":0,\"schemas\":[{\"type\":\"struct\",\"schema-id\":0,"
                "\"fields\":[{\"id\":1,\"name\":\"a\",\"required\":true,\"type\":\"int\"},"
                "{\"id\":1,\"name\":\"b\",\"required\":true,\"type\":\"int\"}]}]}",
                SQE_ERR_INVALID_FILE, "schemas[0]: duplicate field id 1");
    parse_fails(V2_HEAD "\"current-schema-id\":5,\"schemas\":[{\"type\":\"struct\",\"schema-id\":0,"
                "\"fields\":[]}],\"partition-specs\":[{\"spec-id\":0,\"fields\":[]}],"
                "\"default-spec-id\":0,\"last-partition-id\":999,\"sort-orders\":[{\"order-id\":0,"
                "\"fields\":[]}],\"default-sort-order-id\":0}",
                SQE_ERR_INVALID_FILE, "current-schema-id: names a schema that does not exist");
    parse_fails(V2_HEAD "\"current-schema-id\":0,\"schemas\":[{\"type\":\"struct\",\"schema-id\":0,"
                "\"fields\":[]}],\"partition-specs\":[{\"spec-id\":0,\"fields\":[]}],"
                "\"default-spec-id\":0,\"last-partition-id\":999,\"sort-orders\":[{\"order-id\":0,"
                "\"fields\":[{\"transform\":\"identity\",\"source-id\":1,\"direction\":\"up\","
                "\"null-order\":\"nulls-last\"}]}],\"default-sort-order-id\":0}",
                SQE_ERR_INVALID_FILE, "sort-orders[0].fields[0].direction: expected \"asc\"");
    /* Nesting beyond the cap is an error, not a stack overflow. */
    strbuf sb;
    strbuf_init(&sb);
    strbuf_puts(&sb, V2_HEAD "\"current-schema-id\":0,\"schemas\":[{\"type\":\"struct\","
                             "\"schema-id\":0,\"fields\":[{\"id\":1,\"name\":\"a\",\"required\":true,"
                             "\"type\":");
    for (int i = 0; i < 500; i++)
        strbuf_printf(&sb, "{\"type\":\"list\",\"element-id\":%d,\"element-required\":true,"
                           "\"element\":", 10 + i);
    strbuf_puts(&sb, "\"int\"");
    for (int i = 0; i < 500; i++) strbuf_putc(&sb, '}');
    strbuf_puts(&sb, "}]}]}");
    parse_fails(strbuf_cstr(&sb), SQE_ERR_INVALID_FILE, "nested deeper than 64");
    strbuf_reset(&sb);
}

static void test_every_truncation(void **state) {
    (void)state;
    size_t len = strlen(v2_doc);
    for (size_t n = 0; n < len; n++) {
        ice_metadata *m = NULL;
        sqe_error err;
        assert_int_equal(ice_metadata_parse(&test_arena, v2_doc, n, &m, &err),
                         SQE_ERR_INVALID_FILE);
        arena_reset(&test_arena);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_parse_v2, setup, teardown),
        cmocka_unit_test_setup_teardown(test_parse_v1_legacy, setup, teardown),
        cmocka_unit_test_setup_teardown(test_parse_v3, setup, teardown),
        cmocka_unit_test_setup_teardown(test_write_v2_order_and_stability, setup, teardown),
        cmocka_unit_test_setup_teardown(test_build_from_sqe_and_write, setup, teardown),
        cmocka_unit_test_setup_teardown(test_primitive_types, setup, teardown),
        cmocka_unit_test_setup_teardown(test_partition_field_types, setup, teardown),
        cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_every_truncation, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
