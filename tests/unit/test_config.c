/*
 * test_config.c: unit tests of the SQE configuration (src/common/config.c).
 *
 * Covers: the registry's own consistency, the embedded defaults, loading every kind of value
 * from sqe.toml (aliases of the original SQE names, nested sections, [catalogs.NAME]), every
 * kind of error message ("file:line: [section] key: why"), environment overrides, cross-key
 * validation including production_mode, units, and `config show` rendering (secrets redacted,
 * and the rendered text loads back to the same configuration).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/config.h"
#include "common/err.h"
#include "common/strbuf.h"

/* --- helpers ----------------------------------------------------------------------------- */

static char *const no_env[] = {NULL};

/* Defaults + text + envp (NULL = none) + validation; fails the test on any error. */
static void load_ok_env(config *cfg, const char *text, char *const *envp) {
    sqe_error err;
    assert_int_equal(config_init(cfg, &err), SQE_OK);
    if (config_load_string(cfg, text, strlen(text), "sqe.toml", &err) != SQE_OK)
        fail_msg("load failed: %s\n--\n%s", err.message, text);
    if (config_apply_env(cfg, envp ? envp : no_env, &err) != SQE_OK)
        fail_msg("env failed: %s", err.message);
    if (config_validate(cfg, &err) != SQE_OK)
        fail_msg("validate failed: %s\n--\n%s", err.message, text);
}

static void load_ok(config *cfg, const char *text) { load_ok_env(cfg, text, NULL); }

/* The same steps, expecting an error: the message must equal want, or contain want + 1 when
 * want starts with '~'. */
static void load_bad(const char *text, char *const *envp, const char *want) {
    config cfg;
    sqe_error err;
    assert_int_equal(config_init(&cfg, &err), SQE_OK);
    int rc = config_load_string(&cfg, text, strlen(text), "sqe.toml", &err);
    if (rc == SQE_OK) rc = config_apply_env(&cfg, envp ? envp : no_env, &err);
    if (rc == SQE_OK) rc = config_validate(&cfg, &err);
    config_reset(&cfg);
    if (rc == SQE_OK) fail_msg("accepted:\n%s\n(want %s)", text, want);
    assert_int_equal(rc, SQE_ERR_INVALID_ARGUMENTS);
    int match =
        want[0] == '~' ? strstr(err.message, want + 1) != NULL : strcmp(err.message, want) == 0;
    if (!match) fail_msg("for:\n%s\n got: %s\nwant: %s", text, err.message, want);
}

/* --- tests ------------------------------------------------------------------------------- */

static void test_registry(void **state) {
    (void)state;
    size_t n;
    const config_key *keys = config_keys(&n);
    assert_true(n > 100 && n <= CONFIG_MAX_KEYS);
    size_t first = n, n_catalog = 0;
    for (size_t i = 0; i < n; i++) {
        const config_key *k = &keys[i];
        assert_non_null(k->help);
        assert_true(strlen(k->help) > 10);
        assert_non_null(k->def);
        if (k->kind == CONFIG_ENUM) assert_non_null(k->choices);
        if (strcmp(k->section, "catalog") == 0) {
            if (first == n) first = i;
            assert_int_equal(i, first + n_catalog); /* contiguous */
            n_catalog++;
        }
        for (size_t j = 0; j < i; j++) {
            if (strcmp(keys[j].section, k->section) != 0) continue;
            assert_true(strcmp(keys[j].name, k->name) != 0);
            if (k->alias) assert_true(strcmp(keys[j].name, k->alias) != 0);
            if (keys[j].alias) assert_true(strcmp(keys[j].alias, k->name) != 0);
        }
        /* Names are lower_snake (environment variables are their upper case). */
        for (const char *c = k->name; *c; c++)
            assert_true((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_');
    }
    assert_true(n_catalog > 5 && n_catalog <= CONFIG_MAX_CATALOG_KEYS);
}

static void test_defaults(void **state) {
    (void)state;
    config cfg;
    sqe_error err;
    assert_int_equal(config_init(&cfg, &err), SQE_OK);
    assert_int_equal(config_validate(&cfg, &err), SQE_OK);
    assert_string_equal(cfg.coordinator.bind_address, "127.0.0.1");
    assert_int_equal(cfg.coordinator.flight_sql_port, 50051);
    assert_int_equal(cfg.coordinator.trino_http_port, 8080);
    assert_int_equal(cfg.worker.flight_port, 50052);
    assert_int_equal(cfg.metrics.prometheus_port, 0);
    assert_int_equal(cfg.metrics.health_port, 9091);
    assert_string_equal(cfg.coordinator.mode, "hybrid");
    assert_true(cfg.coordinator.memory_limit == 8LL << 30);
    assert_int_equal(cfg.coordinator.shutdown_drain_ms, 25000);
    assert_string_equal(cfg.auth.mode, "anonymous");
    assert_int_equal(cfg.auth.anonymous_loopback_only, 1);
    assert_int_equal(cfg.auth.admin_roles.n, 2);
    assert_string_equal(cfg.auth.admin_roles.items[1], "catalog_admin");
    assert_string_equal(cfg.catalog.name, "iceberg");
    assert_string_equal(cfg.catalog.type, "sqlite");
    assert_int_equal(cfg.catalog.default_format_version, 2);
    assert_int_equal(cfg.n_catalogs, 0);
    assert_string_equal(cfg.session.persistence, "memory");
    assert_int_equal(cfg.session.idle_timeout_ms, 900000);
    assert_int_equal(cfg.session.absolute_timeout_ms, 8 * 3600 * 1000);
    assert_int_equal(cfg.query.timeout_ms, 300000);
    assert_int_equal(cfg.query.max_sql_bytes, 1 << 20);
    assert_int_equal(cfg.query.max_concurrent, 100);
    assert_int_equal(cfg.query.max_concurrent_per_user, 20);
    assert_int_equal(cfg.query.memory_limit, 256 << 20);
    assert_true(cfg.metrics.trace_sample_rate == 0.01);
    assert_int_equal(cfg.spill.enabled, 0);
    assert_true(cfg.spill.max_bytes == 1LL << 40);
    assert_int_equal(cfg.storage.tvf.allow_local_paths, 0);
    assert_int_equal(cfg.coordinator.production_mode, 0);
    assert_int_equal(cfg.origin[0].source, CONFIG_DEFAULT);
    config_reset(&cfg);
    /* config_load with no file and no environment gives the same. */
    assert_int_equal(config_load(&cfg, NULL, no_env, &err), SQE_OK);
    assert_int_equal(cfg.coordinator.flight_sql_port, 50051);
    config_reset(&cfg);
}

static void test_load_everything(void **state) {
    (void)state;
    config cfg;
    load_ok(&cfg, "# a full file\n"
                  "[coordinator]\n"
                  "bind_address = \"0.0.0.0\"\n"
                  "flight_sql_port = 32010\n"
                  "trino_http_port = 0\n"
                  "mode = \"distributed\"\n"
                  "worker_urls = [\"http://w1:50052\", \"https://w2:50052\"]\n"
                  "worker_secret = \"s3cret\"\n"
                  "memory_limit = \"16GiB\"\n"
                  "shutdown_drain_secs = 40\n"
                  "[coordinator.tls]\n"
                  "cert_file = \"/etc/sqe/cert.pem\"\n"
                  "key_file = \"/etc/sqe/key.pem\"\n"
                  "[query]\n"
                  "timeout = \"1h30m\"\n"
                  "max_sql_bytes = 65536\n"
                  "max_concurrent_queries = 8\n"
                  "max_concurrent_per_user = 2\n"
                  "max_query_memory = \"1.5GiB\"\n"
                  "profile = \"slow\"\n"
                  "[session]\n"
                  "persistence = \"file\"\n"
                  "persistence_path = \"/var/lib/sqe/sessions\"\n"
                  "idle_timeout = 60\n"
                  "[metrics]\n"
                  "trace_sample_rate = 1\n"
                  "audit_export.enabled = true\n"
                  "audit_export.otlp_endpoint = \"http://otel:4317\"\n"
                  "[catalog]\n"
                  "name = \"lake\"\n"
                  "type = \"rest\"\n"
                  "catalog_url = \"https://polaris:8181/api/catalog\"\n"
                  "warehouse = \"prod\"\n"
                  "metadata_cache_ttl = \"0s\"\n"
                  "[catalogs.scratch]\n"
                  "type = \"memory\"\n"
                  "[catalogs.local]\n"
                  "backend = \"sqlite\"\n"
                  "uri = \"/data/cat.db\"\n"
                  "[storage.tvf]\n"
                  "allowed_object_store_prefixes = [\"s3://bucket/{user}/\"]\n");
    assert_string_equal(cfg.coordinator.bind_address, "0.0.0.0");
    assert_int_equal(cfg.coordinator.flight_sql_port, 32010);
    assert_int_equal(cfg.coordinator.trino_http_port, 0);
    assert_int_equal(cfg.coordinator.worker_urls.n, 2);
    assert_string_equal(cfg.coordinator.worker_urls.items[1], "https://w2:50052");
    assert_true(cfg.coordinator.memory_limit == 16LL << 30);
    assert_int_equal(cfg.coordinator.shutdown_drain_ms, 40000);
    assert_string_equal(cfg.coordinator.tls.key_file, "/etc/sqe/key.pem");
    assert_int_equal(cfg.query.timeout_ms, 5400000);
    assert_int_equal(cfg.query.max_sql_bytes, 65536);
    assert_int_equal(cfg.query.max_concurrent, 8);
    assert_true(cfg.query.memory_limit == 3LL << 29);
    assert_string_equal(cfg.query.profile, "slow");
    assert_string_equal(cfg.session.dir, "/var/lib/sqe/sessions");
    assert_int_equal(cfg.session.idle_timeout_ms, 60000);
    assert_true(cfg.metrics.trace_sample_rate == 1.0);
    assert_int_equal(cfg.metrics.audit_export.enabled, 1);
    assert_string_equal(cfg.catalog.name, "lake");
    assert_string_equal(cfg.catalog.uri, "https://polaris:8181/api/catalog");
    assert_int_equal(cfg.catalog.metadata_cache_ttl_ms, 0);
    assert_int_equal(cfg.n_catalogs, 2);
    assert_string_equal(cfg.catalogs[0].name, "scratch");
    assert_string_equal(cfg.catalogs[0].type, "memory");
    assert_string_equal(cfg.catalogs[1].type, "sqlite");
    assert_string_equal(config_catalog_find(&cfg, "local")->uri, "/data/cat.db");
    assert_ptr_equal(config_catalog_find(&cfg, "lake"), &cfg.catalog);
    assert_null(config_catalog_find(&cfg, "nope"));
    assert_int_equal(cfg.storage.tvf.allowed_object_store_prefixes.n, 1);
    /* Origins point at the lines. */
    size_t n;
    const config_key *keys = config_keys(&n);
    for (size_t i = 0; i < n; i++) {
        if (strcmp(keys[i].section, "query") == 0 && strcmp(keys[i].name, "timeout") == 0) {
            assert_int_equal(cfg.origin[i].source, CONFIG_FILE);
            assert_int_equal(cfg.origin[i].line, 15);
        }
    }
    config_reset(&cfg);
}

static void test_file_errors(void **state) {
    (void)state;
    load_bad("[query]\ntimout = \"30s\"\n", NULL,
             "sqe.toml:2: [query] timout: unknown key (did you mean 'timeout'?)");
    load_bad("[query]\nfrobnicate = 1\n", NULL, "sqe.toml:2: [query] frobnicate: unknown key");
    load_bad("[query]\ntimeout = true\n", NULL,
             "sqe.toml:2: [query] timeout: expected a duration such as \"30s\" or \"5m\" (or "
             "seconds as an integer), got a boolean");
    load_bad("[query]\n\ntimeout = \"30 parsecs\"\n", NULL,
             "~sqe.toml:3: [query] timeout: invalid duration \"30 parsecs\"");
    load_bad("[session]\npersistence = \"disk\"\n", NULL,
             "sqe.toml:2: [session] persistence: \"disk\" is not one of \"memory\", \"file\"");
    load_bad("[coordinator]\nflight_sql_port = 70000\n", NULL,
             "sqe.toml:2: [coordinator] flight_sql_port: must be between 0 and 65535");
    load_bad("[query]\nmax_concurrent = 0\n", NULL,
             "sqe.toml:2: [query] max_concurrent: must be between 1 and 1000000");
    load_bad("[query]\nmax_sql_bytes = \"2GiB\"\n", NULL,
             "sqe.toml:2: [query] max_sql_bytes: must be between 0B and 1GiB");
    load_bad("[query]\nmemory_limit = \"4 furlongs\"\n", NULL,
             "~[query] memory_limit: invalid size \"4 furlongs\"");
    load_bad("[metrics]\ntrace_sample_rate = 1.5\n", NULL,
             "sqe.toml:2: [metrics] trace_sample_rate: must be between 0 and 1");
    load_bad("[auth]\nadmin_roles = [\"a\", 1]\n", NULL,
             "sqe.toml:2: [auth] admin_roles: item 2 is an integer, expected a string");
    load_bad(
        "[coordinator]\nworker_urls = [\"w1:50052\"]\n", NULL,
        "sqe.toml:2: [coordinator] worker_urls: \"w1:50052\" is not an http:// or https:// URL");
    load_bad(
        "[coordinator]\nbind_address = \"local host\"\n", NULL,
        "sqe.toml:2: [coordinator] bind_address: \"local host\" is not a host name or IP address");
    load_bad("[querry]\ntimeout = 1\n", NULL, "sqe.toml:1: [querry]: unknown section");
    load_bad("[coordinator.tlz]\ncert_file = \"x\"\n", NULL,
             "sqe.toml:1: [coordinator.tlz]: unknown section");
    load_bad("timeout = 1\n", NULL,
             "sqe.toml:1: timeout: key outside of any section (put it under [coordinator], "
             "[query], ...)");
    load_bad("[query]\ntimeout = \"30s\"\ntimeout = \"40s\"\n", NULL,
             "sqe.toml:3:1: duplicate key 'timeout'");
    load_bad("[query\n", NULL, "~sqe.toml:1:7: expected ']'");
    load_bad("[catalogs.x]\nname = \"y\"\n", NULL,
             "sqe.toml:2: [catalogs.x] name: only allowed in [catalog]; a [catalogs.NAME] table is "
             "named by NAME");
    load_bad("[catalogs.x]\ntyp = \"rest\"\n", NULL,
             "sqe.toml:2: [catalogs.x] typ: unknown key (did you mean 'type'?)");
    load_bad("catalogs.x = 1\n", NULL,
             "~[catalogs] x: expected a table [catalogs.x], got an integer");
    load_bad("[catalogs.\"a b\"]\n", NULL,
             "~[catalogs.a b]: catalog name \"a b\" may only contain");
    load_bad("[catalog]\ntype = \"hive\"\n", NULL,
             "sqe.toml:2: [catalog] type: \"hive\" is not one of \"sqlite\", \"rest\", \"memory\"");
    load_bad("[storage]\ns3_region = \"a\\u0000b\"\n", NULL,
             "sqe.toml:2: [storage] s3_region: the string contains a NUL character");
}

static void test_env_overrides(void **state) {
    (void)state;
    char *env[] = {"PATH=/bin",
                   "SQE_BIN=/x/sqe", /* not a configuration variable */
                   "SQE_QUERY__TIMEOUT=30s",
                   "SQE_QUERY__MAX_CONCURRENT_QUERIES=7", /* alias, any case */
                   "SQE_COORDINATOR_TLS__CERT_FILE=/c.pem",
                   "SQE_COORDINATOR_TLS__KEY_FILE=/k.pem",
                   "SQE_METRICS_AUDIT_EXPORT__BATCH_MAX=9",
                   "SQE_AUTH__ADMIN_ROLES= ops , dba ,",
                   "SQE_SPILL__ENABLED=off",
                   "SQE_CATALOG__WAREHOUSE=/wh",
                   "SQE_CATALOGS_LAKE__TYPE=rest",
                   "SQE_CATALOGS_LAKE__URI=http://polaris:8181",
                   "SQE_CATALOGS_SCRATCH__TYPE=memory",
                   NULL};
    config cfg;
    load_ok_env(&cfg,
                "[query]\ntimeout = \"5m\"\nmax_concurrent_per_user = 3\n[catalogs.scratch]\ntype "
                "= \"sqlite\"\n",
                env);
    assert_int_equal(cfg.query.timeout_ms, 30000); /* env beats the file */
    assert_int_equal(cfg.query.max_concurrent, 7);
    assert_string_equal(cfg.coordinator.tls.cert_file, "/c.pem");
    assert_int_equal(cfg.metrics.audit_export.batch_max, 9);
    assert_int_equal(cfg.auth.admin_roles.n, 2);
    assert_string_equal(cfg.auth.admin_roles.items[0], "ops");
    assert_string_equal(cfg.auth.admin_roles.items[1], "dba");
    assert_int_equal(cfg.spill.enabled, 0);
    assert_string_equal(cfg.catalog.warehouse, "/wh");
    assert_int_equal(cfg.n_catalogs, 2);
    assert_string_equal(cfg.catalogs[0].name, "scratch");
    assert_string_equal(cfg.catalogs[0].type,
                        "memory"); /* existing catalog, matched case-insensitively */
    assert_string_equal(cfg.catalogs[1].name, "lake");
    assert_string_equal(cfg.catalogs[1].uri, "http://polaris:8181");
    config_reset(&cfg);

    char *bad1[] = {"SQE_QUERY__TIMEOUT=soon", NULL};
    load_bad("", bad1,
             "~environment SQE_QUERY__TIMEOUT: [query] timeout: invalid duration \"soon\"");
    char *bad2[] = {"SQE_QUERY__TIMOUT=1", NULL};
    load_bad(
        "", bad2,
        "environment SQE_QUERY__TIMOUT: [query] timout: unknown key (did you mean 'timeout'?)");
    char *bad3[] = {"SQE_QUERRY__TIMEOUT=1", NULL};
    load_bad("", bad3, "environment SQE_QUERRY__TIMEOUT: unknown section in SQE_<SECTION>__<KEY>");
    char *bad4[] = {"SQE_COORDINATOR__FLIGHT_SQL_PORT=http", NULL};
    load_bad("", bad4,
             "~environment SQE_COORDINATOR__FLIGHT_SQL_PORT: [coordinator] flight_sql_port: "
             "\"http\" is not");
    char *bad5[] = {"SQE_CATALOGS_X__NAME=y", NULL};
    load_bad("", bad5,
             "environment SQE_CATALOGS_X__NAME: [catalogs.x] name: only allowed for [catalog]");
    char *bad6[] = {"SQE_SPILL__ENABLED=maybe", NULL};
    load_bad("", bad6, "~[spill] enabled: \"maybe\" is not a boolean");
    char *bad7[] = {"SQE___X=1", NULL};
    load_bad("", bad7, "environment SQE___X: expected SQE_<SECTION>__<KEY>");

    /* SQE_PRODUCTION_MODE is the original's switch. */
    char *prod[] = {"SQE_PRODUCTION_MODE=true", NULL};
    load_bad("", prod, "sqe.toml: [auth] mode: anonymous access is refused in production mode");
}

static void test_validation(void **state) {
    (void)state;
    load_bad("[coordinator.tls]\ncert_file = \"c.pem\"\n", NULL,
             "sqe.toml: [coordinator.tls] key_file: cert_file and key_file must be set together");
    load_bad(
        "[coordinator.tls]\nca_file = \"ca.pem\"\n", NULL,
        "sqe.toml:2: [coordinator.tls] ca_file: client certificates need cert_file and key_file");
    load_bad("[metrics]\nhealth_port = 8080\n", NULL,
             "sqe.toml:2: [metrics] health_port: port 8080 is also [coordinator] trino_http_port");
    load_bad("[coordinator]\nflight_sql_port = 0\ntrino_http_port = 0\n", NULL,
             "~[coordinator] trino_http_port: flight_sql_port and trino_http_port are both 0");
    load_bad("[auth]\nmode = \"password\"\n", NULL,
             "sqe.toml: [auth] users_file: required when mode = \"password\"");
    load_bad("[query]\nmax_concurrent = 10\nmax_concurrent_per_user = 11\n", NULL,
             "sqe.toml:3: [query] max_concurrent_per_user: 11 is more than max_concurrent (10)");
    load_bad("[session]\nidle_timeout = \"9h\"\n", NULL,
             "sqe.toml:2: [session] idle_timeout: is longer than absolute_timeout");
    load_bad("[catalog]\ntype = \"rest\"\n", NULL,
             "sqe.toml: [catalog] uri: required when type = \"rest\"");
    load_bad("[catalogs.x]\ntype = \"rest\"\nuri = \"polaris:8181\"\n", NULL,
             "sqe.toml:3: [catalogs.x] uri: \"polaris:8181\" is not an http:// or https:// URL");
    load_bad("[catalogs.x]\ntype = \"rest\"\nuri = \"http://p\"\nauth = \"static\"\n", NULL,
             "sqe.toml: [catalogs.x] token: required when auth = \"static\"");
    load_bad("[catalogs.iceberg]\ntype = \"memory\"\n", NULL,
             "sqe.toml: [catalogs.iceberg] name: a catalog named \"iceberg\" is already defined by "
             "[catalog]");
    load_bad("[policy]\nengine = \"ranger\"\n", NULL,
             "sqe.toml: [policy.ranger] url: required when [policy] engine = \"ranger\"");
    load_bad("[access_control]\nbackend = \"polaris\"\n", NULL,
             "sqe.toml: [access_control] url: required when backend = \"polaris\"");
    load_bad("[metrics.audit_export]\nenabled = true\n", NULL,
             "~[metrics.audit_export] otlp_endpoint: required when enabled");
    load_bad("[query]\nmemory_limit = \"16GiB\"\n", NULL,
             "sqe.toml:2: [query] memory_limit: is more than [coordinator] memory_limit");
}

static void test_production_mode(void **state) {
    (void)state;
    const char *good =
        "[coordinator]\nproduction_mode = true\nbind_address = \"0.0.0.0\"\nworker_secret = \"w\"\n"
        "worker_urls = [\"https://w1:50052\"]\n"
        "[coordinator.tls]\ncert_file = \"c\"\nkey_file = \"k\"\n"
        "[auth]\nmode = \"password\"\nusers_file = \"/etc/sqe/users\"\n"
        "[catalog]\ntype = \"rest\"\nuri = \"https://polaris\"\nrequire_vended_credentials = "
        "true\n";
    config cfg;
    load_ok(&cfg, good);
    assert_int_equal(cfg.coordinator.production_mode, 1);
    config_reset(&cfg);

    load_bad("[coordinator]\nproduction_mode = true\n", NULL,
             "sqe.toml: [auth] mode: anonymous access is refused in production mode");
    char *no_tls[] = {"SQE_COORDINATOR_TLS__CERT_FILE=", "SQE_COORDINATOR_TLS__KEY_FILE=", NULL};
    load_bad(good, no_tls,
             "sqe.toml:3: [coordinator] bind_address: 0.0.0.0 is not loopback and TLS is off "
             "([coordinator.tls] "
             "cert_file): plaintext is refused in production mode");
    char *no_secret[] = {"SQE_COORDINATOR__WORKER_SECRET=", NULL};
    load_bad(good, no_secret,
             "environment SQE_COORDINATOR__WORKER_SECRET: [coordinator] worker_secret: workers "
             "need a secret in production mode");
    char *no_vended[] = {"SQE_CATALOG__REQUIRE_VENDED_CREDENTIALS=false", NULL};
    load_bad(good, no_vended,
             "environment SQE_CATALOG__REQUIRE_VENDED_CREDENTIALS: [catalog] "
             "require_vended_credentials: must be true "
             "for a REST catalog in production mode");
    char *no_limit[] = {"SQE_QUERY__MAX_SQL_BYTES=0", NULL};
    load_bad(good, no_limit, "~[query] max_sql_bytes: 0 (no limit) is refused in production mode");
    char *unauth[] = {"SQE_WORKER__ALLOW_UNAUTHENTICATED=1", NULL};
    load_bad(good, unauth, "~[worker] allow_unauthenticated: refused in production mode");
    char *ranger[] = {"SQE_POLICY__ENGINE=ranger", "SQE_POLICY_RANGER__URL=https://ranger", NULL};
    load_bad(good, ranger, "sqe.toml: [policy] mask_key: required with ranger in production mode");
    /* Loopback without TLS is fine. */
    char *loop[] = {"SQE_COORDINATOR_TLS__CERT_FILE=", "SQE_COORDINATOR_TLS__KEY_FILE=",
                    "SQE_COORDINATOR__BIND_ADDRESS=127.0.0.1", NULL};
    load_ok_env(&cfg, good, loop);
    config_reset(&cfg);
}

static void test_units(void **state) {
    (void)state;
    struct {
        const char *text;
        int64_t ms;
    } durations[] = {{"0", 0},       {"30", 30000},        {"250ms", 250},   {"30s", 30000},
                     {"5m", 300000}, {"2h", 7200000},      {"1d", 86400000}, {"1h30m", 5400000},
                     {"1.5s", 1500}, {" 10m 5s ", 605000}, {"0s", 0},        {"1m1ms", 60001}};
    for (size_t i = 0; i < sizeof durations / sizeof durations[0]; i++) {
        int64_t ms = -1;
        sqe_error err;
        if (config_parse_duration(durations[i].text, &ms, &err) != SQE_OK)
            fail_msg("%s: %s", durations[i].text, err.message);
        assert_int_equal(ms, durations[i].ms);
    }
    const char *bad_durations[] = {
        "",    "s",     "-5s",  "5",   "5x",  "5 s x", "1e400s", "99999999999999999999",
        "5sm", "0x10s", "1e3s", ".5s", "5.s", "1..5s", "infs",   "nans"};
    for (size_t i = 0; i < sizeof bad_durations / sizeof bad_durations[0]; i++) {
        int64_t ms;
        if (strcmp(bad_durations[i], "5") == 0) continue; /* bare integer: seconds, fine */
        if (config_parse_duration(bad_durations[i], &ms, NULL) == SQE_OK)
            fail_msg("accepted duration %s", bad_durations[i]);
    }
    struct {
        const char *text;
        int64_t bytes;
    } sizes[] = {{"0", 0},
                 {"1024", 1024},
                 {"1KiB", 1024},
                 {"1kb", 1000},
                 {"4GiB", 4LL << 30},
                 {"4 GiB", 4LL << 30},
                 {"1.5MiB", 1572864},
                 {"2TB", 2000000000000LL},
                 {"512MB", 512000000},
                 {"7B", 7},
                 {"1TiB", 1LL << 40}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        int64_t b = -1;
        sqe_error err;
        if (config_parse_size(sizes[i].text, &b, &err) != SQE_OK)
            fail_msg("%s: %s", sizes[i].text, err.message);
        assert_true(b == sizes[i].bytes);
    }
    const char *bad_sizes[] = {"",      "GiB",     "-1", "1.5",     "4 GiBs",
                               "10PiB", "1e30GiB", "4G", "0x10MiB", "99999999999TiB",
                               "1e3"};
    for (size_t i = 0; i < sizeof bad_sizes / sizeof bad_sizes[0]; i++) {
        int64_t b;
        if (config_parse_size(bad_sizes[i], &b, NULL) == SQE_OK)
            fail_msg("accepted size %s", bad_sizes[i]);
    }
    char buf[64];
    config_format_duration(5400000, buf, sizeof buf);
    assert_string_equal(buf, "1h30m");
    config_format_duration(0, buf, sizeof buf);
    assert_string_equal(buf, "0s");
    config_format_duration(630000, buf, sizeof buf);
    assert_string_equal(buf, "10m30s");
    config_format_duration(86400000 + 1, buf, sizeof buf);
    assert_string_equal(buf, "1d1ms");
    config_format_size(8LL << 30, buf, sizeof buf);
    assert_string_equal(buf, "8GiB");
    config_format_size(1000, buf, sizeof buf);
    assert_string_equal(buf, "1000B");
    config_format_size(0, buf, sizeof buf);
    assert_string_equal(buf, "0B");
    config_format_size(1536, buf, sizeof buf);
    assert_string_equal(buf, "1536B");
}

/* Removes "  # ..." comments and the first (header) line. */
static char *strip_comments(const char *text) {
    strbuf sb;
    strbuf_init(&sb);
    const char *p = strchr(text, '\n') + 1;
    while (*p) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        const char *hash = NULL;
        for (size_t i = 0; i + 3 < len; i++)
            if (memcmp(p + i, "  # ", 4) == 0) hash = p + i;
        strbuf_append(&sb, p, hash ? (size_t)(hash - p) : len);
        strbuf_putc(&sb, '\n');
        if (!eol) break;
        p = eol + 1;
    }
    return strbuf_move(&sb);
}

static void test_render(void **state) {
    (void)state;
    char *env[] = {"SQE_QUERY__TIMEOUT=90s", "SQE_STORAGE__S3_ACCESS_KEY_ID=AKIAkeyid",
                   "SQE_STORAGE__S3_SECRET_ACCESS_KEY=AKIAsecret", NULL};
    config cfg;
    load_ok_env(&cfg,
                "[coordinator]\nworker_secret = \"hunter2\"\n[catalog]\ntoken = \"tok\"\n"
                "[catalogs.\"my-lake\"]\ntype = \"memory\"\n[auth]\nadmin_roles = [\"a "
                "\\\"quoted\\\" role\"]\n",
                env);
    strbuf out;
    strbuf_init(&out);
    config_render(&cfg, &out);
    const char *text = strbuf_cstr(&out);
    assert_null(strstr(text, "hunter2"));
    assert_null(strstr(text, "AKIAsecret"));
    assert_null(strstr(text, "\"tok\""));
    assert_non_null(strstr(text, "worker_secret = \"<redacted>\"  # sqe.toml:2\n"));
    assert_non_null(strstr(text, "timeout = \"1m30s\"  # SQE_QUERY__TIMEOUT\n"));
    assert_non_null(strstr(
        text, "s3_secret_access_key = \"<redacted>\"  # SQE_STORAGE__S3_SECRET_ACCESS_KEY\n"));
    assert_non_null(strstr(text, "\n[coordinator]\nbind_address = \"127.0.0.1\"\n"));
    assert_non_null(strstr(text, "\n[coordinator.tls]\n"));
    assert_non_null(strstr(text, "\n[catalogs.my-lake]\ntype = \"memory\"  # sqe.toml:6\n"));
    assert_non_null(strstr(text, "memory_limit = \"8GiB\"\n"));
    assert_non_null(strstr(text, "trace_sample_rate = 0.01\n"));
    assert_non_null(strstr(text, "admin_roles = [\"a \\\"quoted\\\" role\"]"));
    assert_non_null(strstr(text, "token = \"<redacted>\""));
    assert_non_null(
        strstr(text, "token_secret = \"\"\n")); /* empty secrets stay visible as empty */

    /* The rendered text is a valid configuration that renders the same again. */
    config again;
    load_ok(&again, text);
    strbuf out2;
    strbuf_init(&out2);
    config_render(&again, &out2);
    char *a = strip_comments(text), *b = strip_comments(strbuf_cstr(&out2));
    assert_string_equal(a, b);
    free(a);
    free(b);
    /* A default configuration renders to something that loads to the defaults. */
    config def;
    sqe_error err;
    assert_int_equal(config_init(&def, &err), SQE_OK);
    strbuf out3;
    strbuf_init(&out3);
    config_render(&def, &out3);
    config from_render;
    load_ok(&from_render, strbuf_cstr(&out3));
    assert_int_equal(from_render.query.timeout_ms, def.query.timeout_ms);
    assert_true(from_render.metrics.trace_sample_rate == def.metrics.trace_sample_rate);
    assert_int_equal(from_render.auth.admin_roles.n, 2);
    strbuf_reset(&out);
    strbuf_reset(&out2);
    strbuf_reset(&out3);
    config_reset(&cfg);
    config_reset(&again);
    config_reset(&def);
    config_reset(&from_render);
}

static void test_load_file(void **state) {
    (void)state;
    char path[] = "/tmp/sqe_test_config_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char *text = "[query]\ntimeout = \"10s\"\n[session]\npersistence = \"file\"\n";
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    config cfg;
    sqe_error err;
    char *env[] = {"SQE_SESSION__DIR=/tmp/s", NULL};
    assert_int_equal(config_load(&cfg, path, env, &err), SQE_OK);
    assert_int_equal(cfg.query.timeout_ms, 10000);
    assert_string_equal(cfg.session.persistence, "file");
    assert_string_equal(cfg.session.dir, "/tmp/s");
    assert_string_equal(cfg.path, path);
    config_reset(&cfg);
    /* Errors name the file. */
    FILE *f = fopen(path, "w");
    fputs("[query]\n\n\ntimeout = []\n", f);
    fclose(f);
    assert_int_equal(config_load(&cfg, path, no_env, &err), SQE_ERR_INVALID_ARGUMENTS);
    char want[256];
    snprintf(want, sizeof want, "%s:4: [query] timeout: expected", path);
    assert_non_null(strstr(err.message, want));
    assert_int_equal(err.line, 4);
    unlink(path);
    assert_int_equal(config_load(&cfg, path, no_env, &err), SQE_ERR_IO_ERROR);
    assert_non_null(strstr(err.message, "cannot open"));
}

static void test_many_catalogs(void **state) {
    (void)state;
    strbuf sb;
    strbuf_init(&sb);
    for (int i = 0; i < CONFIG_MAX_CATALOGS; i++)
        strbuf_printf(&sb, "[catalogs.c%d]\ntype = \"memory\"\n", i);
    config cfg;
    load_ok(&cfg, sb.data);
    assert_int_equal(cfg.n_catalogs, CONFIG_MAX_CATALOGS);
    assert_string_equal(cfg.catalogs[CONFIG_MAX_CATALOGS - 1].name, "c63");
    assert_string_equal(cfg.catalogs[10].type, "memory");
    config_reset(&cfg);
    strbuf_puts(&sb, "[catalogs.one_more]\n");
    load_bad(sb.data, NULL, "too many catalogs (at most 64)");
    strbuf_reset(&sb);
}

/* Random damage to a real configuration: an error or success, never a crash or leak. */
static void test_hostile_config(void **state) {
    (void)state;
    const char *base =
        "[coordinator]\nbind_address = \"0.0.0.0\"\nworker_urls = [\"http://w:1\"]\n"
        "[coordinator.tls]\ncert_file = \"c\"\nkey_file = \"k\"\n[query]\ntimeout = \"1h30m\"\n"
        "memory_limit = \"1GiB\"\n[catalogs.a]\ntype = \"rest\"\nuri = \"http://x\"\n"
        "[metrics]\ntrace_sample_rate = 0.5\n[auth]\nadmin_roles = [\"x\"]\n";
    const char alphabet[] = "[]=\".,#\n 0123456789sSmMhGiBxyz_-\\{}";
    size_t len = strlen(base);
    unsigned seed = 42;
    for (int iter = 0; iter < 5000; iter++) {
        char buf[512];
        memcpy(buf, base, len);
        size_t n = len;
        for (int m = 0; m < 1 + rand_r(&seed) % 3; m++) {
            size_t at = (size_t)rand_r(&seed) % n;
            int op = rand_r(&seed) % 3;
            if (op == 0 && n > 1) {
                memmove(buf + at, buf + at + 1, n - at - 1);
                n--;
            } else if (op == 1 && n + 1 < sizeof buf) {
                memmove(buf + at + 1, buf + at, n - at);
                buf[at] = alphabet[rand_r(&seed) % (sizeof alphabet - 1)];
                n++;
            } else {
                buf[at] = alphabet[rand_r(&seed) % (sizeof alphabet - 1)];
            }
        }
        config cfg;
        sqe_error err;
        assert_int_equal(config_init(&cfg, &err), SQE_OK);
        int rc = config_load_string(&cfg, buf, n, "fuzz.toml", &err);
        if (rc == SQE_OK) rc = config_validate(&cfg, &err);
        if (rc != SQE_OK) {
            assert_int_equal(rc, SQE_ERR_INVALID_ARGUMENTS);
            assert_true(strncmp(err.message, "fuzz.toml", 9) == 0);
        } else {
            strbuf sb;
            strbuf_init(&sb);
            config_render(&cfg, &sb);
            assert_false(sb.failed);
            strbuf_reset(&sb);
        }
        config_reset(&cfg);
    }
}


/* [auth] providers and [auth.oidc]: the chain's names, the keys each provider needs, plain http
 * only to loopback, production mode's refusals; mode stays the shorthand. */
static void test_auth_providers(void **state) {
    (void)state;
#define OIDC "[auth.oidc]\nissuer = \"https://idp.example.com/realms/sqe\"\naudience = \"sqe\"\n"
    config cfg;
    load_ok(&cfg, "[auth]\nproviders = [\"oidc_bearer\"]\n" OIDC);
    assert_true(config_auth_uses(&cfg, "oidc_bearer"));
    assert_false(config_auth_uses(&cfg, "anonymous"));
    config_reset(&cfg);
    load_ok(&cfg, ""); /* the embedded default: mode = anonymous without a users file */
    assert_true(config_auth_uses(&cfg, "anonymous"));
    assert_false(config_auth_uses(&cfg, "password"));
    config_reset(&cfg);
    load_bad("[auth]\nproviders = [\"oidc_bearer\", \"kerberos\"]\n", NULL,
             "~sqe.toml:2: [auth] providers: unknown provider \"kerberos\"");
    load_bad("[auth]\nproviders = [\"oidc_bearer\", \"oidc_bearer\"]\n" OIDC, NULL,
             "~listed twice");
    load_bad("[auth]\nproviders = [\"oidc_bearer\"]\n", NULL, "~[auth.oidc] issuer: required");
    load_bad("[auth]\nproviders = [\"password\"]\n", NULL,
             "~[auth] users_file: required by the password provider");
    load_bad("[auth]\nproviders = [\"oidc_password\"]\n" OIDC, NULL,
             "~[auth.oidc] client_id: required");
    load_bad("[auth]\nproviders = [\"oidc_bearer\"]\n[auth.oidc]\nissuer = "
             "\"http://127.0.0.1:8080/realms/sqe\"\naudience = \"sqe\"\n",
             NULL, "~plain http is refused");
    load_bad("[auth]\nproviders = [\"oidc_bearer\"]\n[auth.oidc]\nissuer = "
             "\"http://idp.example.com/r\"\naudience = \"sqe\"\nallow_insecure_http = true\n",
             NULL, "~only to a loopback host");
    load_bad("[auth]\nproviders = [\"oidc_bearer\"]\n" OIDC "allowed_algorithms = [\"HS256\"]\n",
             NULL, "~none and HMAC are never accepted");
    load_bad("[auth]\nproviders = [\"password\"]\nusers_file = \"/u\"\n" OIDC
             "client_id = \"sqe\"\nexternal_authentication = true\n",
             NULL, "~needs the oidc_bearer provider");
    load_bad("[coordinator]\nproduction_mode = true\n[auth]\nproviders = [\"oidc_bearer\", "
             "\"anonymous\"]\n" OIDC,
             NULL, "~anonymous access is refused in production mode");
    load_bad("[coordinator]\nproduction_mode = true\n[auth]\nproviders = [\"oidc_bearer\"]\n"
             "[auth.oidc]\nissuer = \"http://127.0.0.1:1/r\"\naudience = \"sqe\"\n"
             "allow_insecure_http = true\n",
             NULL, "~refused in production mode");
#undef OIDC
}

/* docs/configuration.md documents every key (its environment variable is unique per key). */
static void test_docs_cover_every_key(void **state) {
    (void)state;
    FILE *f = fopen(SQE_SOURCE_DIR "/docs/configuration.md", "rb");
    assert_non_null(f);
    strbuf doc;
    strbuf_init(&doc);
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) strbuf_append(&doc, chunk, n);
    fclose(f);
    const config_key *keys = config_keys(&n);
    for (size_t i = 0; i < n; i++) {
        char env[200] = "`SQE_", *e = env + 5;
        for (const char *c = keys[i].section; *c; c++)
            *e++ = *c == '.' ? '_' : (char)(*c >= 'a' && *c <= 'z' ? *c - 32 : *c);
        *e++ = '_';
        *e++ = '_';
        for (const char *c = keys[i].name; *c; c++)
            *e++ = (char)(*c >= 'a' && *c <= 'z' ? *c - 32 : *c);
        *e++ = '`';
        *e = 0;
        if (!strstr(strbuf_cstr(&doc), env))
            fail_msg("docs/configuration.md does not mention %s", env);
    }
    strbuf_reset(&doc);
}

/* config_check_supported: what SQE does not do yet is refused unless left at the default. */
static int supported(const char *text, sqe_error *err) {
    config cfg;
    load_ok(&cfg, text);
    int rc = config_check_supported(&cfg, err);
    config_reset(&cfg);
    return rc;
}

static void test_unsupported_keys(void **state) {
    (void)state;
    sqe_error err;
    assert_int_equal(supported("", &err), SQE_OK);
    /* the keys that do work, at other values */
    assert_int_equal(supported("[query]\nmemory_limit = \"64MiB\"\nmax_result_rows = 10\n"
                               "per_user_memory = \"1GiB\"\n[coordinator]\nmode = \"local\"\n"
                               "[storage.tvf]\nallow_local_paths = true\n"
                               "allowed_local_roots = [\"/srv/data\"]\n",
                               &err),
                     SQE_OK);
    /* a default written out is accepted */
    assert_int_equal(supported("[spill]\nenabled = false\n", &err), SQE_OK);
    static const struct {
        const char *text, *want;
    } bad[] = {
        {"[spill]\nenabled = true\n", "sqe.toml:2: [spill] enabled: not yet supported (spilling"},
        {"[spill]\nmax_bytes = \"1GiB\"\n", "[spill] max_bytes: not yet supported"},
        {"[metrics]\nprometheus_port = 9100\n", "[metrics] prometheus_port: not yet supported"},
        {"[audit]\npath = \"/var/log/sqe\"\n", "[audit] path: not yet supported"},
        {"[query]\nprofile = \"all\"\n", "[query] profile: not yet supported"},
        {"[coordinator]\nmode = \"distributed\"\n", "[coordinator] mode: \"distributed\" is not"},
        {"[coordinator]\nmemory_pool = \"fair\"\n", "[coordinator] memory_pool: \"fair\""},
        {"[coordinator.tls]\ncert_file = \"/c\"\nkey_file = \"/k\"\nca_file = \"/ca\"\n",
         "[coordinator.tls] ca_file: not yet supported"},
        {"[catalogs.x]\ntype = \"memory\"\nmanifest_concurrency = 8\n",
         "[catalogs.x] manifest_concurrency: not yet supported"},
        {"[storage.tvf]\nallow_http = true\n", "[storage.tvf] allow_http: not yet supported"},
        {"[worker]\nthreads = 4\n", "[worker] threads: not yet supported"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        memset(&err, 0, sizeof err);
        assert_int_equal(supported(bad[i].text, &err), SQE_ERR_INVALID_ARGUMENTS);
        if (!strstr(err.message, bad[i].want))
            fail_msg("for:\n%s\n got: %s\nwant: %s", bad[i].text, err.message, bad[i].want);
    }
    /* settings that go together */
    load_bad("[storage.tvf]\nallow_local_paths = true\n", NULL,
             "~[storage.tvf] allowed_local_roots: required when allow_local_paths = true");
    load_bad("[storage]\ns3_access_key_id = \"AKIA\"\n", NULL,
             "~[storage] s3_secret_access_key: s3_access_key_id and s3_secret_access_key");
    load_bad("[storage]\ns3_endpoint = \"http://minio:9000\"\n", NULL,
             "~[storage] s3_endpoint: a plain-http endpoint needs s3_allow_http = true");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registry),        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_load_everything), cmocka_unit_test(test_file_errors),
        cmocka_unit_test(test_env_overrides),   cmocka_unit_test(test_validation),
        cmocka_unit_test(test_production_mode), cmocka_unit_test(test_units),
        cmocka_unit_test(test_render),          cmocka_unit_test(test_load_file),
        cmocka_unit_test(test_many_catalogs),   cmocka_unit_test(test_docs_cover_every_key),
        cmocka_unit_test(test_auth_providers),
        cmocka_unit_test(test_hostile_config),  cmocka_unit_test(test_unsupported_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
