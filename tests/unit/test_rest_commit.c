/*
 * test_rest_commit.c: unit tests of the REST commit body (src/catalog/rest/rest_commit.c) and
 * of the REST error model (rest_client_http_error).
 *
 * Covers: each kind of metadata change (append, first snapshot, v1 implicit main, schema, spec,
 * sort order, properties, format upgrade, location, expired snapshots and dropped refs,
 * statistics) gives the requirements and updates Iceberg's UpdateRequirements / MetadataUpdate
 * describe; no change gives only assert-table-uuid; hostile metadata (wrong JSON types, missing
 * fields) gives INVALID_ARGUMENTS, never a crash; rest_metadata_to_json round-trips a parsed
 * model; error responses map to the right SQE codes with the server's type and message.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "catalog/rest/rest_client.h"
#include "catalog/rest/rest_commit.h"

#define UUID "\"table-uuid\":\"9c12d441-03fe-4693-9a96-a0705ddf69c1\""
#define SNAP1 "{\"snapshot-id\":1,\"sequence-number\":1,\"timestamp-ms\":1,\"manifest-list\":\"m1\",\"summary\":{\"operation\":\"append\"}}"
#define SNAP2 "{\"snapshot-id\":2,\"parent-snapshot-id\":1,\"sequence-number\":2,\"timestamp-ms\":2,\"manifest-list\":\"m2\",\"summary\":{\"operation\":\"append\"}}"
#define SCHEMA0 "{\"type\":\"struct\",\"schema-id\":0,\"fields\":[{\"id\":1,\"name\":\"a\",\"required\":false,\"type\":\"long\"}]}"
#define SCHEMA1 "{\"type\":\"struct\",\"schema-id\":1,\"fields\":[{\"id\":1,\"name\":\"a\",\"required\":false,\"type\":\"long\"},{\"id\":2,\"name\":\"b\",\"required\":false,\"type\":\"string\"}]}"
#define SPEC0 "{\"spec-id\":0,\"fields\":[]}"
#define SPEC1 "{\"spec-id\":1,\"fields\":[{\"source-id\":1,\"field-id\":1000,\"name\":\"a_bucket\",\"transform\":\"bucket[4]\"}]}"

/* A v2 metadata object with the given pieces. */
static json_t *md(int fv, const char *schemas, int cur_schema, int last_col, const char *specs,
                  int def_spec, int last_part, const char *snapshots, long long cur_snap,
                  const char *refs, const char *props) {
    char buf[8192];
    snprintf(buf, sizeof buf,
             "{\"format-version\":%d," UUID ",\"location\":\"/w/t\",\"last-sequence-number\":2,"
             "\"last-updated-ms\":5,\"last-column-id\":%d,\"schemas\":[%s],\"current-schema-id\":%d,"
             "\"partition-specs\":[%s],\"default-spec-id\":%d,\"last-partition-id\":%d,"
             "\"properties\":{%s},\"current-snapshot-id\":%lld,\"snapshots\":[%s],"
             "\"sort-orders\":[{\"order-id\":0,\"fields\":[]}],\"default-sort-order-id\":0%s%s%s}",
             fv, last_col, schemas, cur_schema, specs, def_spec, last_part, props, cur_snap,
             snapshots, refs ? ",\"refs\":{" : "", refs ? refs : "", refs ? "}" : "");
    json_error_t je;
    json_t *j = json_loads(buf, 0, &je);
    if (!j) fail_msg("bad test JSON: %s\n%s", je.text, buf);
    return j;
}

static json_t *build_ok(json_t *base, json_t *next) {
    json_t *out = NULL;
    sqe_error err;
    if (rest_commit_build(base, next, &out, &err)) fail_msg("build failed: %s", err.message);
    json_decref(base);
    json_decref(next);
    return out;
}

/* The i-th element of body[key] as compact JSON (caller frees). */
static char *nth(json_t *body, const char *key, size_t i) {
    json_t *arr = json_object_get(body, key);
    assert_true(json_is_array(arr));
    if (i >= json_array_size(arr)) fail_msg("%s has %zu entries, wanted #%zu", key, json_array_size(arr), i);
    return json_dumps(json_array_get(arr, i), JSON_COMPACT | JSON_SORT_KEYS);
}

static void expect(json_t *body, const char *key, size_t i, const char *want) {
    char *got = nth(body, key, i);
    json_t *w = json_loads(want, 0, NULL);
    assert_non_null(w);
    char *wn = json_dumps(w, JSON_COMPACT | JSON_SORT_KEYS);
    if (strcmp(got, wn) != 0) fail_msg("%s[%zu]:\n got  %s\n want %s", key, i, got, wn);
    free(got);
    free(wn);
    json_decref(w);
}

static size_t count(json_t *body, const char *key) {
    return json_array_size(json_object_get(body, key));
}

static const char *REQ_UUID =
    "{\"type\":\"assert-table-uuid\",\"uuid\":\"9c12d441-03fe-4693-9a96-a0705ddf69c1\"}";

static void test_append(void **state) {
    (void)state;
    json_t *b = build_ok(md(2, SCHEMA0, 0, 1, SPEC0, 0, 999, SNAP1, 1,
                            "\"main\":{\"snapshot-id\":1,\"type\":\"branch\"}", ""),
                         md(2, SCHEMA0, 0, 1, SPEC0, 0, 999, SNAP1 "," SNAP2, 2,
                            "\"main\":{\"snapshot-id\":2,\"type\":\"branch\"}", ""));
    assert_int_equal(count(b, "requirements"), 2);
    expect(b, "requirements", 0, REQ_UUID);
    expect(b, "requirements", 1, "{\"type\":\"assert-ref-snapshot-id\",\"ref\":\"main\",\"snapshot-id\":1}");
    assert_int_equal(count(b, "updates"), 2);
    expect(b, "updates", 0, "{\"action\":\"add-snapshot\",\"snapshot\":" SNAP2 "}");
    expect(b, "updates", 1,
           "{\"action\":\"set-snapshot-ref\",\"ref-name\":\"main\",\"snapshot-id\":2,\"type\":\"branch\"}");
    json_decref(b);
}

static void test_first_snapshot_asserts_null_ref(void **state) {
    (void)state;
    json_t *b = build_ok(md(2, SCHEMA0, 0, 1, SPEC0, 0, 999, "", -1, NULL, ""),
                         md(2, SCHEMA0, 0, 1, SPEC0, 0, 999, SNAP1, 1,
                            "\"main\":{\"snapshot-id\":1,\"type\":\"branch\"}", ""));
    expect(b, "requirements", 1, "{\"type\":\"assert-ref-snapshot-id\",\"ref\":\"main\",\"snapshot-id\":null}");
    expect(b, "updates", 0, "{\"action\":\"add-snapshot\",\"snapshot\":" SNAP1 "}");
    json_decref(b);
}

static void test_implicit_main(void **state) {
    (void)state;
    /* no "refs" on either side: main follows current-snapshot-id */
    json_t *b = build_ok(md(2, SCHEMA0, 0, 1, SPEC0, 0, 999, SNAP1, 1, NULL, ""),
                         md(2, SCHEMA0, 0, 1, SPEC0, 0, 999, SNAP1 "," SNAP2, 2, NULL, ""));
    expect(b, "requirements", 1, "{\"type\":\"assert-ref-snapshot-id\",\"ref\":\"main\",\"snapshot-id\":1}");
    expect(b, "updates", 1,
           "{\"action\":\"set-snapshot-ref\",\"ref-name\":\"main\",\"snapshot-id\":2,\"type\":\"branch\"}");
    json_decref(b);
}

static void test_schema_change(void **state) {
    (void)state;
    json_t *b = build_ok(md(2, SCHEMA0, 0, 1, SPEC0, 0, 999, "", -1, NULL, ""),
                         md(2, SCHEMA0 "," SCHEMA1, 1, 2, SPEC0, 0, 999, "", -1, NULL, ""));
    assert_int_equal(count(b, "updates"), 2);
    expect(b, "updates", 0, "{\"action\":\"add-schema\",\"schema\":" SCHEMA1 ",\"last-column-id\":2}");
    expect(b, "updates", 1, "{\"action\":\"set-current-schema\",\"schema-id\":-1}");
    assert_int_equal(count(b, "requirements"), 3);
    expect(b, "requirements", 1, "{\"type\":\"assert-last-assigned-field-id\",\"last-assigned-field-id\":1}");
    expect(b, "requirements", 2, "{\"type\":\"assert-current-schema-id\",\"current-schema-id\":0}");
    json_decref(b);
}

static void test_switch_to_existing_schema(void **state) {
    (void)state;
    json_t *b = build_ok(md(2, SCHEMA0 "," SCHEMA1, 1, 2, SPEC0, 0, 999, "", -1, NULL, ""),
                         md(2, SCHEMA0 "," SCHEMA1, 0, 2, SPEC0, 0, 999, "", -1, NULL, ""));
    assert_int_equal(count(b, "updates"), 1);
    expect(b, "updates", 0, "{\"action\":\"set-current-schema\",\"schema-id\":0}");
    expect(b, "requirements", 1, "{\"type\":\"assert-current-schema-id\",\"current-schema-id\":1}");
    json_decref(b);
}

static void test_spec_change(void **state) {
    (void)state;
    json_t *b = build_ok(md(2, SCHEMA0, 0, 1, SPEC0, 0, 999, "", -1, NULL, ""),
                         md(2, SCHEMA0, 0, 1, SPEC0 "," SPEC1, 1, 1000, "", -1, NULL, ""));
    expect(b, "updates", 0, "{\"action\":\"add-spec\",\"spec\":" SPEC1 "}");
    expect(b, "updates", 1, "{\"action\":\"set-default-spec\",\"spec-id\":-1}");
    expect(b, "requirements", 1,
           "{\"type\":\"assert-last-assigned-partition-id\",\"last-assigned-partition-id\":999}");
    expect(b, "requirements", 2, "{\"type\":\"assert-default-spec-id\",\"default-spec-id\":0}");
    json_decref(b);
}

static void test_properties(void **state) {
    (void)state;
    json_t *b = build_ok(md(2, SCHEMA0, 0, 1, SPEC0, 0, 999, "", -1, NULL,
                            "\"keep\":\"1\",\"change\":\"a\",\"drop\":\"x\""),
                         md(2, SCHEMA0, 0, 1, SPEC0, 0, 999, "", -1, NULL,
                            "\"keep\":\"1\",\"change\":\"b\",\"new\":\"n\""));
    assert_int_equal(count(b, "requirements"), 1);
    expect(b, "requirements", 0, REQ_UUID);
    assert_int_equal(count(b, "updates"), 2);
    expect(b, "updates", 0, "{\"action\":\"set-properties\",\"updates\":{\"change\":\"b\",\"new\":\"n\"}}");
    expect(b, "updates", 1, "{\"action\":\"remove-properties\",\"removals\":[\"drop\"]}");
    json_decref(b);
}

static void test_format_upgrade_and_location(void **state) {
    (void)state;
    json_t *next = md(3, SCHEMA0, 0, 1, SPEC0, 0, 999, "", -1, NULL, "");
    json_object_set_new(next, "location", json_string("/w/t2"));
    json_t *b = build_ok(md(2, SCHEMA0, 0, 1, SPEC0, 0, 999, "", -1, NULL, ""), next);
    assert_int_equal(count(b, "updates"), 2);
    expect(b, "updates", 0, "{\"action\":\"upgrade-format-version\",\"format-version\":3}");
    expect(b, "updates", 1, "{\"action\":\"set-location\",\"location\":\"/w/t2\"}");
    json_decref(b);
}

static void test_expire_and_drop_tag(void **state) {
    (void)state;
    json_t *b = build_ok(md(2, SCHEMA0, 0, 1, SPEC0, 0, 999, SNAP1 "," SNAP2, 2,
                            "\"main\":{\"snapshot-id\":2,\"type\":\"branch\"},"
                            "\"t1\":{\"snapshot-id\":1,\"type\":\"tag\"}", ""),
                         md(2, SCHEMA0, 0, 1, SPEC0, 0, 999, SNAP2, 2,
                            "\"main\":{\"snapshot-id\":2,\"type\":\"branch\"}", ""));
    assert_int_equal(count(b, "requirements"), 1);
    assert_int_equal(count(b, "updates"), 2);
    expect(b, "updates", 0, "{\"action\":\"remove-snapshots\",\"snapshot-ids\":[1]}");
    expect(b, "updates", 1, "{\"action\":\"remove-snapshot-ref\",\"ref-name\":\"t1\"}");
    json_decref(b);
}

static void test_new_tag_with_retention(void **state) {
    (void)state;
    json_t *b = build_ok(md(2, SCHEMA0, 0, 1, SPEC0, 0, 999, SNAP1, 1,
                            "\"main\":{\"snapshot-id\":1,\"type\":\"branch\"}", ""),
                         md(2, SCHEMA0, 0, 1, SPEC0, 0, 999, SNAP1, 1,
                            "\"main\":{\"snapshot-id\":1,\"type\":\"branch\"},"
                            "\"v1\":{\"snapshot-id\":1,\"type\":\"tag\",\"max-ref-age-ms\":1000}", ""));
    expect(b, "updates", 0,
           "{\"action\":\"set-snapshot-ref\",\"ref-name\":\"v1\",\"snapshot-id\":1,\"type\":\"tag\","
           "\"max-ref-age-ms\":1000}");
    expect(b, "requirements", 1, "{\"type\":\"assert-ref-snapshot-id\",\"ref\":\"v1\",\"snapshot-id\":null}");
    json_decref(b);
}

static void test_statistics(void **state) {
    (void)state;
    json_t *base = md(2, SCHEMA0, 0, 1, SPEC0, 0, 999, SNAP1, 1, NULL, "");
    json_t *next = md(2, SCHEMA0, 0, 1, SPEC0, 0, 999, SNAP1, 1, NULL, "");
    json_t *st = json_loads("[{\"snapshot-id\":1,\"statistics-path\":\"s.puffin\","
                            "\"file-size-in-bytes\":10,\"file-footer-size-in-bytes\":5,"
                            "\"blob-metadata\":[]}]", 0, NULL);
    json_object_set_new(next, "statistics", st);
    json_t *b = build_ok(base, next);
    assert_int_equal(count(b, "updates"), 1);
    char *u = nth(b, "updates", 0);
    assert_non_null(strstr(u, "\"action\":\"set-statistics\""));
    assert_non_null(strstr(u, "\"statistics-path\":\"s.puffin\""));
    free(u);
    json_decref(b);
}

static void test_no_change(void **state) {
    (void)state;
    json_t *b = build_ok(md(2, SCHEMA0, 0, 1, SPEC0, 0, 999, SNAP1, 1, NULL, "\"a\":\"1\""),
                         md(2, SCHEMA0, 0, 1, SPEC0, 0, 999, SNAP1, 1, NULL, "\"a\":\"1\""));
    assert_int_equal(count(b, "requirements"), 1);
    assert_int_equal(count(b, "updates"), 0);
    json_decref(b);
}

/* hostile metadata: every mistyped piece is an error, never a crash or a leak */
static void test_hostile(void **state) {
    (void)state;
    static const char *const bad[] = {
        "[]",
        "{\"format-version\":\"2\"}",
        "{}",
        "{\"format-version\":2,\"snapshots\":\"x\"}",
        "{\"format-version\":2,\"snapshots\":[{\"snapshot-id\":\"1\"}]}",
        "{\"format-version\":2,\"refs\":[1]}",
        "{\"format-version\":2,\"refs\":{\"main\":{\"snapshot-id\":\"x\",\"type\":\"branch\"}}}",
        "{\"format-version\":2,\"refs\":{\"main\":5}}",
        "{\"format-version\":2,\"properties\":[]}",
        "{\"format-version\":2,\"properties\":{\"a\":1}}",
        "{\"format-version\":2,\"schemas\":[{\"schema-id\":null}]}",
        "{\"format-version\":2,\"current-schema-id\":\"0\"}",
        "{\"format-version\":2,\"statistics\":{}}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        json_t *ok = md(2, SCHEMA0, 0, 1, SPEC0, 0, 999, "", -1, NULL, "");
        json_t *h = json_loads(bad[i], JSON_DECODE_ANY, NULL);
        assert_non_null(h);
        /* as the new version: always rejected */
        json_t *out = NULL;
        sqe_error err;
        assert_int_equal(rest_commit_build(ok, h, &out, &err), SQE_ERR_INVALID_ARGUMENTS);
        assert_null(out);
        /* as the base (only what the diff reads is checked): rejected or a valid body */
        int rc = rest_commit_build(h, ok, &out, &err);
        if (rc == SQE_OK) {
            assert_true(json_is_array(json_object_get(out, "updates")));
            json_decref(out);
        } else {
            assert_int_equal(rc, SQE_ERR_INVALID_ARGUMENTS);
        }
        json_decref(h);
        json_decref(ok);
    }
}

static void test_model_round_trip(void **state) {
    (void)state;
    json_t *j = md(2, SCHEMA0 "," SCHEMA1, 1, 2, SPEC0 "," SPEC1, 1, 1000, SNAP1 "," SNAP2, 2,
                   "\"main\":{\"snapshot-id\":2,\"type\":\"branch\"}", "\"k\":\"v\"");
    char *text = json_dumps(j, 0);
    arena a;
    arena_init(&a, NULL);
    ice_metadata *m = NULL;
    sqe_error err;
    if (ice_metadata_parse(&a, text, strlen(text), &m, &err)) fail_msg("parse: %s", err.message);
    json_t *back = NULL;
    assert_int_equal(rest_metadata_to_json(m, &back, &err), SQE_OK);
    /* same model -> no updates at all */
    json_t *out = NULL;
    assert_int_equal(rest_commit_build(j, back, &out, &err), SQE_OK);
    assert_int_equal(count(out, "updates"), 0);
    json_decref(out);
    json_decref(back);
    json_decref(j);
    free(text);
    arena_destroy(&a);
}

static void check_err(long status, const char *body, int want, const char *want_text) {
    rest_response r = {.status = status, .body = body ? json_loads(body, JSON_DECODE_ANY, NULL) : NULL};
    sqe_error err;
    int rc = rest_client_http_error(&r, "load table", &err);
    assert_int_equal(rc, want);
    assert_int_equal(err.code, want);
    if (want_text && !strstr(err.message, want_text))
        fail_msg("message '%s' lacks '%s'", err.message, want_text);
    json_decref(r.body);
}

static void test_error_model(void **state) {
    (void)state;
    check_err(404, "{\"error\":{\"message\":\"Table does not exist: a.t\",\"type\":\"NoSuchTableException\",\"code\":404}}",
              SQE_ERR_TABLE_NOT_FOUND, "NoSuchTableException: Table does not exist: a.t (HTTP 404)");
    check_err(404, "{\"error\":{\"message\":\"m\",\"type\":\"NoSuchNamespaceException\",\"code\":404}}",
              SQE_ERR_SCHEMA_NOT_FOUND, NULL);
    check_err(409, "{\"error\":{\"message\":\"Requirement failed: branch main has changed\",\"type\":\"CommitFailedException\",\"code\":409}}",
              SQE_ERR_COMMIT_CONFLICT, "branch main has changed");
    check_err(409, "{\"error\":{\"message\":\"exists\",\"type\":\"AlreadyExistsException\",\"code\":409}}",
              SQE_ERR_ALREADY_EXISTS, NULL);
    check_err(409, "{\"error\":{\"message\":\"not empty\",\"type\":\"NamespaceNotEmptyException\",\"code\":409}}",
              SQE_ERR_SCHEMA_NOT_EMPTY, NULL);
    check_err(401, "{\"error\":{\"message\":\"bad token\",\"type\":\"NotAuthorizedException\",\"code\":401}}",
              SQE_ERR_UNAUTHENTICATED, "refused the credentials");
    check_err(403, NULL, SQE_ERR_PERMISSION_DENIED, "permission denied");
    check_err(503, "\"just a string\"", SQE_ERR_IO_ERROR, "no message (HTTP 503)");
    check_err(500, "{\"error\":\"x\"}", SQE_ERR_IO_ERROR, "(HTTP 500)");
    check_err(500, "{\"error\":{\"message\":5,\"type\":[]}}", SQE_ERR_IO_ERROR, "(HTTP 500)");
    check_err(400, "[1,2]", SQE_ERR_INVALID_ARGUMENTS, NULL);
    check_err(401, "{\"error\":\"invalid_client\",\"error_description\":\"unknown client\"}",
              SQE_ERR_UNAUTHENTICATED, "invalid_client: unknown client");
}

static void test_url_encode(void **state) {
    (void)state;
    strbuf sb;
    strbuf_init(&sb);
    assert_true(rest_url_encode(&sb, "a b/c\x1f%é"));
    assert_string_equal(strbuf_cstr(&sb), "a%20b%2Fc%1F%25%C3%A9");
    strbuf_reset(&sb);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_append),
        cmocka_unit_test(test_first_snapshot_asserts_null_ref),
        cmocka_unit_test(test_implicit_main),
        cmocka_unit_test(test_schema_change),
        cmocka_unit_test(test_switch_to_existing_schema),
        cmocka_unit_test(test_spec_change),
        cmocka_unit_test(test_properties),
        cmocka_unit_test(test_format_upgrade_and_location),
        cmocka_unit_test(test_expire_and_drop_tag),
        cmocka_unit_test(test_new_tag_with_retention),
        cmocka_unit_test(test_statistics),
        cmocka_unit_test(test_no_change),
        cmocka_unit_test(test_hostile),
        cmocka_unit_test(test_model_round_trip),
        cmocka_unit_test(test_error_model),
        cmocka_unit_test(test_url_encode),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
