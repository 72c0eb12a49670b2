/*
 * test_iceberg_manifest.c: unit tests of Iceberg manifest lists and manifests
 * (src/iceberg/manifest_list.c, manifest.c) and Appendix D single-value serialization
 * (src/iceberg/bounds.c): every primitive type both ways, wrong sizes, type promotion,
 * v1/v2/v3 round trips, inheritance, summaries, writer argument checks, and truncation and
 * bit-flip sweeps of written files (no crash, only clean errors).
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
#include "iceberg/manifest.h"
#include "iceberg/metadata.h"

static const char *METADATA_V2 =
    "{\"format-version\":2,\"table-uuid\":\"9c12d441-03fe-4693-9a96-a0705ddf69c1\","
    "\"location\":\"file:///tmp/t\",\"last-sequence-number\":3,\"last-updated-ms\":1,"
    "\"last-column-id\":6,\"current-schema-id\":0,\"schemas\":[{\"type\":\"struct\","
    "\"schema-id\":0,\"fields\":["
    "{\"id\":1,\"name\":\"id\",\"required\":false,\"type\":\"long\"},"
    "{\"id\":2,\"name\":\"s\",\"required\":false,\"type\":\"string\"},"
    "{\"id\":3,\"name\":\"ts\",\"required\":false,\"type\":\"timestamp\"},"
    "{\"id\":4,\"name\":\"dec\",\"required\":false,\"type\":\"decimal(9, 2)\"},"
    "{\"id\":5,\"name\":\"dbl\",\"required\":false,\"type\":\"double\"},"
    "{\"id\":6,\"name\":\"u\",\"required\":false,\"type\":\"uuid\"}]}],"
    "\"default-spec-id\":0,\"partition-specs\":[{\"spec-id\":0,\"fields\":["
    "{\"name\":\"s\",\"transform\":\"identity\",\"source-id\":2,\"field-id\":1000},"
    "{\"name\":\"ts_day\",\"transform\":\"day\",\"source-id\":3,\"field-id\":1001},"
    "{\"name\":\"id_bucket\",\"transform\":\"bucket[16]\",\"source-id\":1,\"field-id\":1002},"
    "{\"name\":\"dec_trunc\",\"transform\":\"truncate[10]\",\"source-id\":4,\"field-id\":1003},"
    "{\"name\":\"dbl\",\"transform\":\"identity\",\"source-id\":5,\"field-id\":1004}]}],"
    "\"last-partition-id\":1004,\"properties\":{},\"current-snapshot-id\":-1,"
    "\"snapshots\":[],\"snapshot-log\":[],\"metadata-log\":[],"
    "\"sort-orders\":[{\"order-id\":0,\"fields\":[]}],\"default-sort-order-id\":0}";

typedef struct fixture {
    arena a;
    ice_metadata *m;
} fixture;

static int setup(void **state) {
    fixture *f = calloc(1, sizeof *f);
    arena_init(&f->a, NULL);
    sqe_error err;
    if (ice_metadata_parse(&f->a, METADATA_V2, strlen(METADATA_V2), &f->m, &err) != SQE_OK) {
        fprintf(stderr, "metadata: %s\n", err.message);
        return -1;
    }
    *state = f;
    return 0;
}

static int teardown(void **state) {
    fixture *f = *state;
    arena_destroy(&f->a);
    free(f);
    return 0;
}

static ice_type prim(ice_type_kind k) {
    ice_type t;
    memset(&t, 0, sizeof t);
    t.kind = k;
    return t;
}

/* ---- Appendix D ---------------------------------------------------------------------------- */

static void roundtrip_bytes(arena *a, ice_type t, const uint8_t *bytes, size_t len) {
    sqe_type st;
    assert_int_equal(ice_schema_to_sqe_type(&t, &st, NULL), SQE_OK);
    vec v;
    assert_int_equal(ice_arena_vec_init(a, &v, st, 1, NULL), SQE_OK);
    sqe_error err;
    assert_int_equal(ice_single_value_decode(&t, bytes, len, &v, 0, "x", &err), SQE_OK);
    ice_bytes out;
    assert_int_equal(ice_single_value_encode(a, &t, &v, 0, &out, &err), SQE_OK);
    assert_int_equal(out.len, len);
    if (len) assert_memory_equal(out.data, bytes, len);
}

static void test_single_value_roundtrips(void **state) {
    fixture *f = *state;
    arena *a = &f->a;
    roundtrip_bytes(a, prim(ICE_TYPE_BOOLEAN), (const uint8_t *)"\x01", 1);
    roundtrip_bytes(a, prim(ICE_TYPE_BOOLEAN), (const uint8_t *)"\x00", 1);
    roundtrip_bytes(a, prim(ICE_TYPE_INT), (const uint8_t *)"\xfe\xff\xff\xff", 4);
    roundtrip_bytes(a, prim(ICE_TYPE_LONG), (const uint8_t *)"\x01\x02\x03\x04\x05\x06\x07\x88", 8);
    roundtrip_bytes(a, prim(ICE_TYPE_DATE), (const uint8_t *)"\xff\xff\xff\xff", 4);
    roundtrip_bytes(a, prim(ICE_TYPE_TIME), (const uint8_t *)"\x10\x00\x00\x00\x00\x00\x00\x00", 8);
    roundtrip_bytes(a, prim(ICE_TYPE_TIMESTAMP), (const uint8_t *)"\x00\x74\xdc\xf2\x0c\x9b\x05\x00", 8);
    roundtrip_bytes(a, prim(ICE_TYPE_TIMESTAMPTZ), (const uint8_t *)"\xff\xff\xff\xff\xff\xff\xff\xff", 8);
    roundtrip_bytes(a, prim(ICE_TYPE_FLOAT), (const uint8_t *)"\x00\x00\x00\x80", 4); /* -0.0 */
    roundtrip_bytes(a, prim(ICE_TYPE_DOUBLE), (const uint8_t *)"\x00\x00\x00\x00\x00\x00\xf8\x3f", 8);
    roundtrip_bytes(a, prim(ICE_TYPE_STRING), (const uint8_t *)"h\xc3\xa9llo world, long", 18);
    roundtrip_bytes(a, prim(ICE_TYPE_STRING), (const uint8_t *)"", 0);
    roundtrip_bytes(a, prim(ICE_TYPE_BINARY), (const uint8_t *)"\x00\xff\x00", 3);
    roundtrip_bytes(a, prim(ICE_TYPE_UUID),
                    (const uint8_t *)"\xf7\x9c\x3e\x09\x67\x7c\x4b\xbd\xa4\x79\x3f\x34\x9c\xb7\x85\xe7", 16);
    ice_type fx = prim(ICE_TYPE_FIXED);
    fx.length = 4;
    roundtrip_bytes(a, fx, (const uint8_t *)"abcd", 4);
    ice_type dec = prim(ICE_TYPE_DECIMAL);
    dec.precision = 9;
    dec.scale = 2;
    roundtrip_bytes(a, dec, (const uint8_t *)"\x00", 1);
    roundtrip_bytes(a, dec, (const uint8_t *)"\xff", 1);
    roundtrip_bytes(a, dec, (const uint8_t *)"\x00\x80", 2);
    roundtrip_bytes(a, dec, (const uint8_t *)"\x80", 1);
    roundtrip_bytes(a, dec, (const uint8_t *)"\xfb\x2e", 2); /* -1234 */
    ice_type big = prim(ICE_TYPE_DECIMAL);
    big.precision = 38;
    big.scale = 4;
    roundtrip_bytes(a, big, (const uint8_t *)"\x4b\x3b\x4c\xa8\x5a\x86\xc4\x7a\x09\x8a\x22\x3f\xff\xff\xff\xff", 16);
    roundtrip_bytes(a, big, (const uint8_t *)"\x80\x00\x00\x00\x00\x00\x00\x00\x01", 9);
}

static void test_single_value_decode_details(void **state) {
    fixture *f = *state;
    arena *a = &f->a;
    sqe_error err;
    vec v;
    /* int -> long promotion: a 4-byte bound widens with its sign. */
    ice_type lt = prim(ICE_TYPE_LONG);
    ice_arena_vec_init(a, &v, type_make(TYPE_BIGINT), 1, NULL);
    assert_int_equal(ice_single_value_decode(&lt, (const uint8_t *)"\xfb\xff\xff\xff", 4, &v, 0, "b", &err), SQE_OK);
    assert_int_equal(VEC_DATA(&v, int64_t)[0], -5);
    /* float -> double. */
    ice_type dt = prim(ICE_TYPE_DOUBLE);
    ice_arena_vec_init(a, &v, type_make(TYPE_DOUBLE), 1, NULL);
    assert_int_equal(ice_single_value_decode(&dt, (const uint8_t *)"\x00\x00\xc0\x3f", 4, &v, 0, "b", &err), SQE_OK);
    assert_true(VEC_DATA(&v, double)[0] == 1.5);
    /* date -> timestamp: days become microseconds. */
    ice_type tt = prim(ICE_TYPE_TIMESTAMP);
    ice_arena_vec_init(a, &v, type_make(TYPE_TIMESTAMP), 1, NULL);
    assert_int_equal(ice_single_value_decode(&tt, (const uint8_t *)"\xff\xff\xff\xff", 4, &v, 0, "b", &err), SQE_OK);
    assert_int_equal(VEC_DATA(&v, int64_t)[0], -INT64_C(86400000000));
    /* nanoseconds floor to microseconds. */
    ice_type ns = prim(ICE_TYPE_TIMESTAMP_NS);
    assert_int_equal(ice_single_value_decode(&ns, (const uint8_t *)"\xff\xff\xff\xff\xff\xff\xff\xff", 8, &v, 0, "b", &err), SQE_OK);
    assert_int_equal(VEC_DATA(&v, int64_t)[0], -1);
    /* timestamptz keeps UTC micros, zone 0. */
    ice_type tz = prim(ICE_TYPE_TIMESTAMPTZ);
    ice_arena_vec_init(a, &v, type_make(TYPE_TIMESTAMP_TZ), 1, NULL);
    assert_int_equal(ice_single_value_decode(&tz, (const uint8_t *)"\x02\x00\x00\x00\x00\x00\x00\x00", 8, &v, 0, "b", &err), SQE_OK);
    assert_int_equal(VEC_DATA(&v, sqe_timestamp_tz)[0].micros, 2);
    /* Wrong sizes. */
    struct {
        ice_type_kind k;
        size_t len;
    } bad[] = {{ICE_TYPE_BOOLEAN, 2}, {ICE_TYPE_INT, 8},   {ICE_TYPE_INT, 3},     {ICE_TYPE_LONG, 3},
               {ICE_TYPE_LONG, 16},   {ICE_TYPE_DATE, 8},  {ICE_TYPE_TIME, 4},    {ICE_TYPE_FLOAT, 8},
               {ICE_TYPE_DOUBLE, 2},  {ICE_TYPE_UUID, 15}, {ICE_TYPE_TIMESTAMP, 7}, {ICE_TYPE_BOOLEAN, 0}};
    uint8_t zeros[32] = {0};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ice_type t = prim(bad[i].k);
        sqe_type st;
        assert_int_equal(ice_schema_to_sqe_type(&t, &st, NULL), SQE_OK);
        ice_arena_vec_init(a, &v, st, 1, NULL);
        assert_int_equal(ice_single_value_decode(&t, zeros, bad[i].len, &v, 0, "lower bound of field 3", &err),
                         SQE_ERR_INVALID_FILE);
        assert_non_null(strstr(err.message, "Invalid Iceberg manifest: lower bound of field 3"));
    }
    ice_type dec = prim(ICE_TYPE_DECIMAL);
    dec.precision = 3;
    dec.scale = 0;
    ice_arena_vec_init(a, &v, type_decimal(3, 0), 1, NULL);
    assert_int_equal(ice_single_value_decode(&dec, (const uint8_t *)"\x03\xe8", 2, &v, 0, "x", &err),
                     SQE_ERR_INVALID_FILE); /* 1000 does not fit decimal(3, 0) */
    assert_int_equal(ice_single_value_decode(&dec, (const uint8_t *)"\x03\xe7", 2, &v, 0, "x", &err), SQE_OK);
    assert_int_equal(ice_single_value_decode(&dec, zeros, 0, &v, 0, "x", &err), SQE_ERR_INVALID_FILE);
    assert_int_equal(ice_single_value_decode(&dec, zeros, 17, &v, 0, "x", &err), SQE_ERR_INVALID_FILE);
    ice_type fx = prim(ICE_TYPE_FIXED);
    fx.length = 2;
    ice_arena_vec_init(a, &v, type_make(TYPE_VARBINARY), 1, NULL);
    assert_int_equal(ice_single_value_decode(&fx, zeros, 3, &v, 0, "x", &err), SQE_ERR_INVALID_FILE);
    ice_type var = prim(ICE_TYPE_VARIANT);
    assert_int_equal(ice_single_value_decode(&var, zeros, 3, &v, 0, "x", &err), SQE_ERR_NOT_SUPPORTED);
    /* Encode errors: NULL row, wrong type, fixed of the wrong length. */
    vec n;
    ice_arena_vec_init(a, &n, type_make(TYPE_BIGINT), 1, NULL);
    ice_arena_vec_set_null(a, &n, 0, NULL);
    ice_bytes out;
    assert_int_equal(ice_single_value_encode(a, &lt, &n, 0, &out, &err), SQE_ERR_INVALID_ARGUMENTS);
    ice_type it = prim(ICE_TYPE_INT);
    ice_arena_vec_init(a, &n, type_make(TYPE_BIGINT), 1, NULL);
    assert_int_equal(ice_single_value_encode(a, &it, &n, 0, &out, &err), SQE_ERR_INVALID_ARGUMENTS);
    ice_arena_vec_init(a, &n, type_make(TYPE_INTEGER), 1, NULL);
    VEC_DATA(&n, int32_t)[0] = -2;
    assert_int_equal(ice_single_value_encode(a, &lt, &n, 0, &out, &err), SQE_OK); /* int widens */
    assert_int_equal(out.len, 8);
    assert_memory_equal(out.data, "\xfe\xff\xff\xff\xff\xff\xff\xff", 8);
    ice_arena_vec_init(a, &n, type_make(TYPE_VARBINARY), 1, NULL);
    VEC_DATA(&n, sqe_str)[0] = sqe_str_make("abc", 3);
    assert_int_equal(ice_single_value_encode(a, &fx, &n, 0, &out, &err), SQE_ERR_INVALID_ARGUMENTS);
}

/* ---- manifests ------------------------------------------------------------------------------ */

#define N_ENTRIES 5

typedef struct built {
    vec cols[5];
    ice_manifest_entry entries[N_ENTRIES];
    ice_bound lower[N_ENTRIES][2];
    ice_id_count counts[N_ENTRIES][2];
    int64_t splits[2];
    int32_t eq_ids[2];
} built;

/* Five entries over METADATA_V2's spec: partition (s, ts_day, id_bucket, dec_trunc, dbl). */
static void build_entries(arena *a, built *b, int version) {
    memset(b, 0, sizeof *b);
    ice_arena_vec_init(a, &b->cols[0], type_make(TYPE_VARCHAR), N_ENTRIES, NULL);
    ice_arena_vec_init(a, &b->cols[1], type_make(TYPE_DATE), N_ENTRIES, NULL);
    ice_arena_vec_init(a, &b->cols[2], type_make(TYPE_INTEGER), N_ENTRIES, NULL);
    ice_arena_vec_init(a, &b->cols[3], type_decimal(9, 2), N_ENTRIES, NULL);
    ice_arena_vec_init(a, &b->cols[4], type_make(TYPE_DOUBLE), N_ENTRIES, NULL);
    static const char *strs[N_ENTRIES] = {"b", "a longer string value", "", "zz", "b"};
    const double dbls[N_ENTRIES] = {1.5, -0.0, 0.0, __builtin_nan(""), -7.25};
    for (uint32_t i = 0; i < N_ENTRIES; i++) {
        VEC_DATA(&b->cols[0], sqe_str)[i] = sqe_str_make(strs[i], (uint32_t)strlen(strs[i]));
        VEC_DATA(&b->cols[1], int32_t)[i] = (int32_t)i * 1000 - 2000;
        VEC_DATA(&b->cols[2], int32_t)[i] = (int32_t)i % 16;
        VEC_DATA(&b->cols[3], int64_t)[i] = (int64_t)i * 1000 - 1500;
        VEC_DATA(&b->cols[4], double)[i] = dbls[i];
    }
    ice_arena_vec_set_null(a, &b->cols[0], 2, NULL);
    ice_arena_vec_set_null(a, &b->cols[1], 4, NULL);
    b->splits[0] = 4;
    b->splits[1] = 1000;
    b->eq_ids[0] = 1;
    b->eq_ids[1] = 2;
    for (uint32_t i = 0; i < N_ENTRIES; i++) {
        ice_manifest_entry *e = &b->entries[i];
        e->status = (ice_entry_status)(version >= 2 ? (i % 3 == 0 ? 1 : i % 3 == 1 ? 0 : 2) : (i % 2));
        e->has_snapshot_id = i % 2 == 1;
        e->snapshot_id = 77 + i;
        e->has_sequence_number = e->has_file_sequence_number = e->status != ICE_STATUS_ADDED;
        e->sequence_number = 2;
        e->file_sequence_number = 3;
        ice_data_file *df = &e->file;
        df->content = version >= 2 && i == 4 ? ICE_CONTENT_DATA : ICE_CONTENT_DATA;
        df->file_path = i == 3 ? "s3://bucket/path/with \xc3\xbc/file.parquet" : "file:///tmp/t/data/x.parquet";
        df->file_format = "PARQUET";
        df->n_partition = 5;
        df->partition = b->cols;
        df->partition_row = i;
        df->record_count = 10 + i;
        df->file_size_in_bytes = 1000 + i;
        df->column_sizes.present = true;
        df->column_sizes.n = 2;
        df->column_sizes.items = b->counts[i];
        b->counts[i][0] = (ice_id_count){1, 100 + i};
        b->counts[i][1] = (ice_id_count){2, 200};
        df->value_counts.present = i != 2;
        df->lower_bounds.present = true;
        df->lower_bounds.n = 2;
        df->lower_bounds.items = b->lower[i];
        b->lower[i][0].field_id = 1;
        b->lower[i][0].raw = (ice_bytes){(const uint8_t *)"\x05\x00\x00\x00\x00\x00\x00\x00", 8};
        b->lower[i][1].field_id = 2;
        b->lower[i][1].raw = (ice_bytes){(const uint8_t *)"abc", 3};
        df->has_split_offsets = i != 1;
        df->n_split_offsets = i == 0 ? 2 : 0;
        df->split_offsets = b->splits;
        df->has_sort_order_id = i == 0;
        df->sort_order_id = 0;
        if (version >= 2 && i == 1) {
            df->has_equality_ids = true;
            df->n_equality_ids = 2;
            df->equality_ids = b->eq_ids;
        }
        df->has_key_metadata = i == 3;
        df->key_metadata = (ice_bytes){(const uint8_t *)"\x00\x01", 2};
    }
}

static void write_and_read(fixture *f, int version, ice_manifest **out, ice_manifest_file *from,
                           uint8_t **bytes_out, size_t *len_out, built *b) {
    arena *a = &f->a;
    build_entries(a, b, version);
    ice_manifest_write_opts wo;
    memset(&wo, 0, sizeof wo);
    wo.format_version = version;
    wo.content = ICE_MANIFEST_DATA;
    wo.schema = ice_metadata_current_schema(f->m);
    wo.spec = ice_metadata_default_spec(f->m);
    wo.snapshot_id = 999;
    wo.codec = version == 2 ? AVRO_CODEC_SNAPPY : AVRO_CODEC_DEFLATE;
    sqe_error err;
    uint8_t *bytes = NULL;
    size_t len = 0;
    int rc = ice_manifest_write(&wo, b->entries, N_ENTRIES, &bytes, &len, &err);
    if (rc) fprintf(stderr, "write: %s\n", err.message);
    assert_int_equal(rc, SQE_OK);
    assert_int_equal(ice_manifest_summarize(a, &wo, b->entries, N_ENTRIES, "file:///m.avro",
                                            (int64_t)len, from, &err), SQE_OK);
    from->sequence_number = version == 1 ? 0 : 9; /* v1 lists carry no sequence numbers */
    from->first_row_id = 1000;
    from->has_first_row_id = version >= 3;
    rc = ice_manifest_read(a, bytes, len, f->m, from, out, &err);
    if (rc) fprintf(stderr, "read: %s\n", err.message);
    assert_int_equal(rc, SQE_OK);
    *bytes_out = bytes;
    *len_out = len;
}

static void check_roundtrip(void **state, int version) {
    fixture *f = *state;
    built b;
    ice_manifest *m = NULL;
    ice_manifest_file mf;
    uint8_t *bytes;
    size_t len;
    write_and_read(f, version, &m, &mf, &bytes, &len, &b);
    assert_int_equal(m->format_version, version);
    assert_int_equal(m->n_entries, N_ENTRIES);
    assert_int_equal(m->n_partition_fields, 5);
    assert_int_equal(m->partition_fields[1].field_id, 1001);
    assert_int_equal(m->partition_fields[1].sqe.id, TYPE_DATE);
    assert_int_equal(m->partition_fields[3].sqe.id, TYPE_DECIMAL);
    assert_true(m->partition_fields[2].has_type);
    int64_t next_row = 1000;
    for (uint32_t i = 0; i < N_ENTRIES; i++) {
        const ice_manifest_entry *want = &b.entries[i], *got = &m->entries[i];
        assert_int_equal(got->status, want->status);
        assert_true(got->has_snapshot_id);
        if (version == 1) assert_int_equal(got->snapshot_id, want->has_snapshot_id ? want->snapshot_id : 999);
        else assert_int_equal(got->snapshot_id, want->has_snapshot_id ? want->snapshot_id : mf.added_snapshot_id);
        if (version == 1) {
            assert_int_equal(got->sequence_number, 0); /* v1 has no column: 0 */
            assert_int_equal(got->file_sequence_number, 0);
        } else if (want->status == ICE_STATUS_ADDED) {
            assert_int_equal(got->sequence_number, 9);
            assert_int_equal(got->file_sequence_number, 9);
        } else {
            assert_int_equal(got->sequence_number, 2);
            assert_int_equal(got->file_sequence_number, 3);
        }
        const ice_data_file *gd = &got->file, *wd = &want->file;
        assert_string_equal(gd->file_path, wd->file_path);
        assert_string_equal(gd->file_format, "PARQUET");
        assert_int_equal(gd->record_count, wd->record_count);
        assert_int_equal(gd->file_size_in_bytes, wd->file_size_in_bytes);
        assert_int_equal(gd->has_block_size_in_bytes, version == 1);
        for (uint32_t k = 0; k < 5; k++) {
            bool wn = vec_is_null(&b.cols[k], i);
            assert_int_equal(vec_is_null(&gd->partition[k], gd->partition_row), wn);
        }
        if (!vec_is_null(&b.cols[0], i))
            assert_true(sqe_str_equal(&VEC_DATA(&gd->partition[0], sqe_str)[gd->partition_row],
                                      &VEC_DATA(&b.cols[0], sqe_str)[i]));
        if (!vec_is_null(&b.cols[1], i))
            assert_int_equal(VEC_DATA(&gd->partition[1], int32_t)[gd->partition_row],
                             VEC_DATA(&b.cols[1], int32_t)[i]);
        assert_int_equal(VEC_DATA(&gd->partition[3], int64_t)[gd->partition_row],
                         VEC_DATA(&b.cols[3], int64_t)[i]);
        double wdbl = VEC_DATA(&b.cols[4], double)[i], gdbl = VEC_DATA(&gd->partition[4], double)[gd->partition_row];
        assert_memory_equal(&wdbl, &gdbl, sizeof wdbl);
        assert_true(gd->column_sizes.present);
        assert_int_equal(gd->column_sizes.n, 2);
        assert_int_equal(gd->column_sizes.items[0].value, 100 + i);
        assert_int_equal(gd->value_counts.present, i != 2);
        assert_int_equal(gd->value_counts.n, 0);
        assert_false(gd->null_value_counts.present);
        assert_int_equal(gd->lower_bounds.n, 2);
        assert_int_equal(VEC_DATA(&gd->lower_bounds.items[0].value, int64_t)[0], 5);
        assert_int_equal(gd->lower_bounds.items[1].value.type.id, TYPE_VARCHAR);
        assert_false(gd->upper_bounds.present);
        assert_int_equal(gd->has_split_offsets, i != 1);
        assert_int_equal(gd->n_split_offsets, i == 0 ? 2 : 0);
        if (i == 0) assert_int_equal(gd->split_offsets[1], 1000);
        assert_int_equal(gd->has_sort_order_id, i == 0);
        assert_int_equal(gd->has_equality_ids, version >= 2 && i == 1);
        assert_int_equal(gd->has_key_metadata, i == 3);
        if (version >= 3) {
            assert_true(gd->has_first_row_id);
            assert_int_equal(gd->first_row_id, next_row);
            next_row += gd->record_count;
        } else {
            assert_false(gd->has_first_row_id);
        }
    }
    /* The summary. */
    int added = 0, existing = 0, deleted = 0;
    for (uint32_t i = 0; i < N_ENTRIES; i++) {
        added += b.entries[i].status == ICE_STATUS_ADDED;
        existing += b.entries[i].status == ICE_STATUS_EXISTING;
        deleted += b.entries[i].status == ICE_STATUS_DELETED;
    }
    assert_int_equal(mf.added_files_count, added);
    assert_int_equal(mf.existing_files_count, existing);
    assert_int_equal(mf.deleted_files_count, deleted);
    assert_int_equal(mf.n_partitions, 5);
    assert_true(mf.partitions[0].contains_null);
    assert_false(mf.partitions[2].contains_null);
    assert_int_equal(mf.partitions[0].lower.len, 21); /* row 2 ("") is NULL */
    assert_memory_equal(mf.partitions[0].lower.data, "a longer string value", 21);
    assert_memory_equal(mf.partitions[0].upper.data, "zz", 2);
    assert_int_equal(mf.partitions[4].contains_nan, 1);
    assert_memory_equal(mf.partitions[4].lower.data, "\x00\x00\x00\x00\x00\x00\x1d\xc0", 8); /* -7.25 */
    assert_memory_equal(mf.partitions[4].upper.data, "\x00\x00\x00\x00\x00\x00\xf8\x3f", 8); /* 1.5 */
    assert_int_equal(mf.partitions[3].lower.len, 2); /* -1500 = fa 24 */
    assert_memory_equal(mf.partitions[3].lower.data, "\xfa\x24", 2);
    free(bytes);
}

static void test_manifest_roundtrip_v1(void **state) { check_roundtrip(state, 1); }
static void test_manifest_roundtrip_v2(void **state) { check_roundtrip(state, 2); }
static void test_manifest_roundtrip_v3(void **state) { check_roundtrip(state, 3); }

static void test_manifest_list_roundtrip(void **state) {
    fixture *f = *state;
    arena *a = &f->a;
    for (int version = 1; version <= 3; version++) {
        ice_field_summary sums[2] = {
            {.contains_null = true, .contains_nan = -1, .has_lower = true, .lower = {(const uint8_t *)"a", 1}},
            {.contains_null = false, .contains_nan = 1, .has_lower = true, .has_upper = true,
             .lower = {(const uint8_t *)"\x01\x00\x00\x00", 4}, .upper = {(const uint8_t *)"\x09\x00\x00\x00", 4}},
        };
        ice_manifest_file files[3];
        memset(files, 0, sizeof files);
        for (int i = 0; i < 3; i++) {
            ice_manifest_file *mf = &files[i];
            mf->manifest_path = i == 1 ? "file:///t/metadata/ü-m1.avro" : "file:///t/metadata/m.avro";
            mf->manifest_length = 4000 + i;
            mf->partition_spec_id = i;
            mf->content = version >= 2 && i == 2 ? ICE_MANIFEST_DELETES : ICE_MANIFEST_DATA;
            mf->has_sequence_number = mf->has_min_sequence_number = true;
            mf->sequence_number = i == 0 ? ICE_SEQ_UNASSIGNED : 4;
            mf->min_sequence_number = i == 0 ? ICE_SEQ_UNASSIGNED : 3;
            mf->added_snapshot_id = 123456789012345LL + i;
            mf->has_added_files_count = mf->has_existing_files_count = mf->has_deleted_files_count = true;
            mf->has_added_rows_count = mf->has_existing_rows_count = mf->has_deleted_rows_count = true;
            mf->added_files_count = 1 + i;
            mf->existing_files_count = 2;
            mf->deleted_files_count = 0;
            mf->added_rows_count = 100;
            mf->existing_rows_count = 50 * i;
            mf->deleted_rows_count = 7;
            mf->has_partitions = i != 1;
            mf->n_partitions = i == 0 ? 2 : 0;
            mf->partitions = sums;
            mf->has_key_metadata = i == 2;
            mf->key_metadata = (ice_bytes){(const uint8_t *)"k", 1};
            mf->has_first_row_id = i == 1 && version >= 3;
            mf->first_row_id = 5;
        }
        ice_manifest_list_write_opts lo = {.format_version = version, .snapshot_id = 42,
                                           .has_parent_snapshot_id = version == 2,
                                           .parent_snapshot_id = 41, .sequence_number = 8,
                                           .first_row_id = 500, .codec = AVRO_CODEC_DEFLATE};
        uint8_t *bytes = NULL;
        size_t len = 0;
        int64_t next = 0;
        sqe_error err;
        assert_int_equal(ice_manifest_list_write(&lo, files, 3, &bytes, &len, &next, &err), SQE_OK);
        ice_manifest_file *got = NULL;
        uint32_t n = 0;
        ice_manifest_list_info info;
        int rc = ice_manifest_list_read(a, bytes, len, &got, &n, &info, &err);
        if (rc) fprintf(stderr, "v%d: %s\n", version, err.message);
        assert_int_equal(rc, SQE_OK);
        assert_int_equal(n, 3);
        assert_int_equal(info.format_version, version);
        assert_int_equal(info.snapshot_id, 42);
        assert_int_equal(info.has_parent_snapshot_id, version == 2);
        assert_int_equal(info.has_sequence_number, version >= 2);
        assert_int_equal(info.has_first_row_id, version >= 3);
        for (int i = 0; i < 3; i++) {
            assert_string_equal(got[i].manifest_path, files[i].manifest_path);
            assert_int_equal(got[i].manifest_length, files[i].manifest_length);
            assert_int_equal(got[i].partition_spec_id, i);
            assert_int_equal(got[i].content, files[i].content);
            assert_int_equal(got[i].added_snapshot_id, files[i].added_snapshot_id);
            if (version == 1) {
                assert_false(got[i].has_sequence_number);
                assert_int_equal(got[i].sequence_number, 0);
                assert_int_equal(got[i].min_sequence_number, 0);
            } else {
                assert_int_equal(got[i].sequence_number, i == 0 ? 8 : 4);
                assert_int_equal(got[i].min_sequence_number, i == 0 ? 8 : 3);
            }
            assert_int_equal(got[i].added_files_count, 1 + i);
            assert_int_equal(got[i].existing_rows_count, 50 * i);
            assert_int_equal(got[i].deleted_rows_count, 7);
            assert_int_equal(got[i].has_partitions, i != 1);
            assert_int_equal(got[i].has_key_metadata, i == 2);
        }
        assert_int_equal(got[0].n_partitions, 2);
        assert_true(got[0].partitions[0].contains_null);
        assert_int_equal(got[0].partitions[0].contains_nan, -1);
        assert_true(got[0].partitions[0].has_lower);
        assert_false(got[0].partitions[0].has_upper);
        assert_int_equal(got[0].partitions[1].contains_nan, 1);
        assert_memory_equal(got[0].partitions[1].upper.data, "\x09\x00\x00\x00", 4);
        if (version >= 3) {
            /* Data manifests without an id get 500, then 500 + added + existing rows. */
            assert_int_equal(got[0].first_row_id, 500);
            assert_int_equal(got[1].first_row_id, 5);
            assert_false(got[2].has_first_row_id); /* delete manifest */
            assert_int_equal(next, 500 + 100 + 0);
        } else {
            assert_false(got[0].has_first_row_id);
        }
        free(bytes);
    }
}

static void test_writer_argument_checks(void **state) {
    fixture *f = *state;
    sqe_error err;
    uint8_t *bytes = (uint8_t *)"x";
    size_t len = 1;
    ice_manifest_file mf;
    memset(&mf, 0, sizeof mf);
    mf.manifest_path = "p";
    mf.content = ICE_MANIFEST_DELETES;
    ice_manifest_list_write_opts lo = {.format_version = 1};
    assert_int_equal(ice_manifest_list_write(&lo, &mf, 1, &bytes, &len, NULL, &err), SQE_ERR_INVALID_ARGUMENTS);
    assert_null(bytes);
    lo.format_version = 2;
    mf.content = ICE_MANIFEST_DATA; /* v2 without counts */
    assert_int_equal(ice_manifest_list_write(&lo, &mf, 1, &bytes, &len, NULL, &err), SQE_ERR_INVALID_ARGUMENTS);
    lo.format_version = 4;
    assert_int_equal(ice_manifest_list_write(&lo, &mf, 1, &bytes, &len, NULL, &err), SQE_ERR_INVALID_ARGUMENTS);
    ice_manifest_write_opts wo = {.format_version = 1, .content = ICE_MANIFEST_DELETES,
                                  .schema = ice_metadata_current_schema(f->m),
                                  .spec = ice_metadata_default_spec(f->m)};
    assert_int_equal(ice_manifest_write(&wo, NULL, 0, &bytes, &len, &err), SQE_ERR_INVALID_ARGUMENTS);
    /* A partition value of the wrong type. */
    built b;
    build_entries(&f->a, &b, 2);
    vec wrong[5];
    memcpy(wrong, b.cols, sizeof wrong);
    ice_arena_vec_init(&f->a, &wrong[1], type_make(TYPE_VARCHAR), N_ENTRIES, NULL);
    for (int i = 0; i < N_ENTRIES; i++) b.entries[i].file.partition = wrong;
    wo.format_version = 2;
    wo.content = ICE_MANIFEST_DATA;
    assert_int_equal(ice_manifest_write(&wo, b.entries, N_ENTRIES, &bytes, &len, &err), SQE_ERR_INVALID_ARGUMENTS);
    assert_non_null(strstr(err.message, "ts_day"));
    /* Delete files in a v1 manifest. */
    build_entries(&f->a, &b, 2);
    b.entries[0].file.content = ICE_CONTENT_POSITION_DELETES;
    wo.format_version = 1;
    assert_int_equal(ice_manifest_write(&wo, b.entries, N_ENTRIES, &bytes, &len, &err), SQE_ERR_INVALID_ARGUMENTS);
}

/* Every truncation and many bit flips of a written manifest and list: only clean errors. */
static void test_hostile_sweeps(void **state) {
    fixture *f = *state;
    built b;
    ice_manifest *m = NULL;
    ice_manifest_file mf;
    uint8_t *bytes;
    size_t len;
    write_and_read(f, 2, &m, &mf, &bytes, &len, &b);
    ice_manifest_list_write_opts lo = {.format_version = 2, .snapshot_id = 1, .sequence_number = 1};
    uint8_t *lbytes;
    size_t llen;
    sqe_error err;
    assert_int_equal(ice_manifest_list_write(&lo, &mf, 1, &lbytes, &llen, NULL, &err), SQE_OK);
    arena scratch;
    arena_init(&scratch, NULL);
    uint32_t seed = 12345;
    for (int which = 0; which < 2; which++) {
        const uint8_t *src = which ? lbytes : bytes;
        size_t n = which ? llen : len;
        uint8_t *copy = malloc(n);
        for (size_t cut = 0; cut < n + 2000; cut++) {
            size_t use = cut < n ? cut : n;
            memcpy(copy, src, n);
            if (cut >= n) {
                seed = seed * 1103515245u + 12345u;
                copy[(seed >> 8) % n] ^= (uint8_t)(1u << ((seed >> 4) & 7));
            }
            int rc;
            if (which) {
                ice_manifest_file *files;
                uint32_t nf;
                rc = ice_manifest_list_read(&scratch, copy, use, &files, &nf, NULL, &err);
            } else {
                ice_manifest *mm;
                rc = ice_manifest_read(&scratch, copy, use, f->m, cut & 1 ? &mf : NULL, &mm, &err);
            }
            assert_true(rc == SQE_OK || rc == SQE_ERR_INVALID_FILE || rc == SQE_ERR_NOT_SUPPORTED ||
                        rc == SQE_ERR_OUT_OF_MEMORY);
            if (rc == SQE_ERR_INVALID_FILE)
                assert_true(strstr(err.message, "Invalid Iceberg manifest") ||
                            strstr(err.message, "Invalid Avro file"));
            arena_reset(&scratch);
        }
        free(copy);
    }
    arena_destroy(&scratch);
    free(bytes);
    free(lbytes);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_single_value_roundtrips, setup, teardown),
        cmocka_unit_test_setup_teardown(test_single_value_decode_details, setup, teardown),
        cmocka_unit_test_setup_teardown(test_manifest_roundtrip_v1, setup, teardown),
        cmocka_unit_test_setup_teardown(test_manifest_roundtrip_v2, setup, teardown),
        cmocka_unit_test_setup_teardown(test_manifest_roundtrip_v3, setup, teardown),
        cmocka_unit_test_setup_teardown(test_manifest_list_roundtrip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_writer_argument_checks, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hostile_sweeps, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
