/*
 * ice_sqlite_driver.c: a small command-line front end of the SQLite Iceberg catalog
 * (src/catalog/ice_sqlite.c) for tests/iceberg/test_sqlite_catalog_interop.py, which runs it
 * against the same database file and warehouse as pyiceberg's SqlCatalog.
 *
 * Usage: ice_sqlite_driver DB WAREHOUSE CATALOG COMMAND [ARGS...]
 *   create-ns NS [KEY=VALUE...]        create a namespace
 *   list-ns [PARENT]                   child namespaces, one per line
 *   ns-props NS                        properties, "KEY=VALUE" per line
 *   set-ns-props NS [-KEY | KEY=VALUE ...]   remove / update namespace properties
 *   drop-ns NS
 *   exists-ns NS                       prints "true" or "false"
 *   list-tables NS                     table names, one per line
 *   create-table NS NAME SCHEMA_JSON [FORMAT_VERSION]
 *                                      new unpartitioned table at the default location with
 *                                      this Iceberg schema (JSON object); prints the location
 *   load NS NAME                       "location\t...", "format-version\t...", "uuid\t...",
 *                                      "current-snapshot-id\t...", "schema\t<schema JSON>"
 *   commit NS NAME EXPECTED_LOCATION METADATA_FILE
 *                                      commit the metadata in METADATA_FILE (a local JSON file)
 *                                      with EXPECTED_LOCATION as the old location; prints the
 *                                      new location
 *   set-prop NS NAME KEY VALUE [EXPECTED_LOCATION]
 *                                      load, set a table property (adds a metadata-log entry),
 *                                      commit against the loaded (or the given) location
 *   drop-table NS NAME [purge]
 *   rename-table NS NAME TO_NS TO_NAME
 * Exit status: 0 on success; 3 for a commit conflict; 1 for any other error, with
 * "error <CODE_NAME>: <message>" on stderr; 2 for bad usage.
 * Compiled by run_sqlite_catalog_tests.sh with gcc directly; not part of the library.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "catalog/ice_sqlite.h"
#include "common/arena.h"
#include "common/err.h"
#include "common/strbuf.h"
#include "iceberg/metadata.h"

static int64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static char *read_text(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    strbuf sb;
    strbuf_init(&sb);
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) strbuf_append(&sb, buf, n);
    fclose(f);
    *len = sb.len;
    if (sb.failed) {
        strbuf_reset(&sb);
        return NULL;
    }
    return sb.data ? strbuf_move(&sb) : calloc(1, 1);
}

static ice_kv_list parse_kvs(arena *a, int n, char **args) {
    ice_kv_list l = {0, ARENA_ARRAY(a, ice_kv, n ? n : 1)};
    for (int i = 0; i < n; i++) {
        char *eq = strchr(args[i], '=');
        if (!eq) continue;
        l.items[l.n].key = arena_strndup(a, args[i], (size_t)(eq - args[i]));
        l.items[l.n].value = eq + 1;
        l.n++;
    }
    return l;
}

/* A fresh table's metadata (format v1/v2, unpartitioned, unsorted, no snapshots) around the
 * given schema JSON, built as JSON text and parsed: the driver needs no builder API. */
static int new_metadata(arena *a, const char *location, const char *schema_json, int version,
                        ice_metadata **out, sqe_error *err) {
    uint8_t u[16] = {0};
    if (getrandom(u, sizeof u, 0) != (ssize_t)sizeof u)
        return err_set(err, SQE_ERR_IO_ERROR, "getrandom failed");
    char uuid[37];
    snprintf(uuid, sizeof uuid,
             "%02x%02x%02x%02x-%02x%02x-4%x%02x-%x%x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
             u[2], u[3], u[4], u[5], u[6] & 15, u[7], 8 | (u[8] & 3), u[8] >> 4, u[9], u[10],
             u[11], u[12], u[13], u[14], u[15]);
    strbuf sb;
    strbuf_init(&sb);
    strbuf_printf(&sb,
                  "{\"format-version\":%d,\"table-uuid\":\"%s\","
                  "\"location\":\"%s\",\"last-sequence-number\":0,\"last-updated-ms\":%lld,"
                  "\"last-column-id\":0,\"schemas\":[%s],\"current-schema-id\":0,"
                  "\"partition-specs\":[{\"spec-id\":0,\"fields\":[]}],\"default-spec-id\":0,"
                  "\"last-partition-id\":999,\"properties\":{},\"current-snapshot-id\":-1,"
                  "\"snapshots\":[],\"snapshot-log\":[],\"metadata-log\":[],"
                  "\"sort-orders\":[{\"order-id\":0,\"fields\":[]}],\"default-sort-order-id\":0}",
                  version, uuid, location,
                  (long long)now_ms(), schema_json);
    if (sb.failed) return err_nomem(err, "json");
    ice_metadata *m = NULL;
    int rc = ice_metadata_parse(a, sb.data, sb.len, &m, err);
    strbuf_reset(&sb);
    if (rc != SQE_OK) return rc;
    if (version == 1) m->last_sequence_number = 0;
    const ice_schema *s = ice_metadata_current_schema(m);
    m->last_column_id = s ? ice_schema_max_field_id(s) : 0;
    m->present = ice_metadata_default_present(version);
    /* a fresh table has an empty metadata log and no refs; v1 writes the legacy keys */
    m->legacy_schema_json = NULL;
    m->legacy_partition_spec_json = NULL;
    *out = m;
    return SQE_OK;
}

static void print_list(char **names, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) printf("%s\n", names[i]);
}

static int run(ice_sqlite *c, arena *a, const char *cmd, int argc, char **argv, sqe_error *err) {
#define NEED(k)                                                                                    \
    do {                                                                                           \
        if (argc < (k)) {                                                                          \
            fprintf(stderr, "usage: %s needs %d arguments\n", cmd, (k));                           \
            return -2;                                                                             \
        }                                                                                          \
    } while (0)
    char **names = NULL;
    uint32_t n = 0;
    if (!strcmp(cmd, "create-ns")) {
        NEED(1);
        ice_kv_list props = parse_kvs(a, argc - 1, argv + 1);
        return ice_sqlite_create_namespace(c, argv[0], &props, err);
    }
    if (!strcmp(cmd, "list-ns")) {
        SQE_TRY(ice_sqlite_list_namespaces(c, argc > 0 ? argv[0] : NULL, a, &names, &n, err));
        print_list(names, n);
        return SQE_OK;
    }
    if (!strcmp(cmd, "ns-props")) {
        NEED(1);
        ice_kv_list props;
        SQE_TRY(ice_sqlite_load_namespace_properties(c, argv[0], a, &props, err));
        for (uint32_t i = 0; i < props.n; i++)
            printf("%s=%s\n", props.items[i].key, props.items[i].value);
        return SQE_OK;
    }
    if (!strcmp(cmd, "set-ns-props")) {
        NEED(1);
        const char **removals = ARENA_ARRAY(a, const char *, argc);
        uint32_t n_removals = 0;
        for (int i = 1; i < argc; i++)
            if (argv[i][0] == '-') removals[n_removals++] = argv[i] + 1;
        ice_kv_list updates = parse_kvs(a, argc - 1, argv + 1);
        return ice_sqlite_update_namespace_properties(c, argv[0], removals, n_removals, &updates,
                                                      err);
    }
    if (!strcmp(cmd, "drop-ns")) {
        NEED(1);
        return ice_sqlite_drop_namespace(c, argv[0], err);
    }
    if (!strcmp(cmd, "exists-ns")) {
        NEED(1);
        bool exists = false;
        SQE_TRY(ice_sqlite_namespace_exists(c, argv[0], &exists, err));
        printf("%s\n", exists ? "true" : "false");
        return SQE_OK;
    }
    if (!strcmp(cmd, "list-tables")) {
        NEED(1);
        SQE_TRY(ice_sqlite_list_tables(c, argv[0], a, &names, &n, err));
        print_list(names, n);
        return SQE_OK;
    }
    if (!strcmp(cmd, "create-table")) {
        NEED(3);
        int version = argc > 3 ? atoi(argv[3]) : 2;
        char *location = NULL, *meta_loc = NULL;
        ice_metadata *m = NULL;
        SQE_TRY(ice_sqlite_default_table_location(c, argv[0], argv[1], a, &location, err));
        SQE_TRY(new_metadata(a, location, argv[2], version, &m, err));
        SQE_TRY(ice_sqlite_create_table(c, argv[0], argv[1], m, a, &meta_loc, err));
        printf("%s\n", meta_loc);
        return SQE_OK;
    }
    if (!strcmp(cmd, "load")) {
        NEED(2);
        char *loc = NULL;
        ice_metadata *m = NULL;
        SQE_TRY(ice_sqlite_load_table(c, argv[0], argv[1], a, &loc, &m, err));
        printf("location\t%s\n", loc);
        printf("format-version\t%d\n", m->format_version);
        printf("uuid\t%s\n", m->table_uuid ? m->table_uuid : "");
        printf("current-snapshot-id\t%lld\n", (long long)m->current_snapshot_id);
        strbuf sb;
        strbuf_init(&sb);
        const ice_schema *s = ice_metadata_current_schema(m);
        int rc = s ? ice_schema_write(s, &sb, err) : SQE_OK;
        if (rc == SQE_OK) printf("schema\t%s\n", strbuf_cstr(&sb));
        strbuf_reset(&sb);
        return rc;
    }
    if (!strcmp(cmd, "commit")) {
        NEED(4);
        size_t len = 0;
        char *json = read_text(argv[3], &len);
        if (!json) return err_set(err, SQE_ERR_NOT_FOUND, "cannot read %s", argv[3]);
        ice_metadata *m = NULL;
        int rc = ice_metadata_parse(a, json, len, &m, err);
        free(json);
        char *loc = NULL;
        if (rc == SQE_OK) rc = ice_sqlite_commit(c, argv[0], argv[1], argv[2], m, a, &loc, err);
        if (rc == SQE_OK) printf("%s\n", loc);
        return rc;
    }
    if (!strcmp(cmd, "set-prop")) {
        NEED(4);
        char *loc = NULL, *new_loc = NULL;
        ice_metadata *m = NULL;
        SQE_TRY(ice_sqlite_load_table(c, argv[0], argv[1], a, &loc, &m, err));
        const char *expected = argc > 4 ? argv[4] : loc;
        /* properties: replace or append the key */
        ice_kv *items = ARENA_ARRAY(a, ice_kv, m->properties.n + 1);
        uint32_t k = 0;
        for (uint32_t i = 0; i < m->properties.n; i++)
            if (strcmp(m->properties.items[i].key, argv[2])) items[k++] = m->properties.items[i];
        items[k].key = argv[2];
        items[k].value = argv[3];
        m->properties.items = items;
        m->properties.n = k + 1;
        m->present |= ICE_MD_PROPERTIES | ICE_MD_METADATA_LOG;
        /* metadata log: the file being replaced, stamped with its last-updated-ms */
        ice_metadata_log_entry *log = ARENA_ARRAY(a, ice_metadata_log_entry, m->n_metadata_log + 1);
        if (m->n_metadata_log) memcpy(log, m->metadata_log, m->n_metadata_log * sizeof *log);
        log[m->n_metadata_log].timestamp_ms = m->last_updated_ms;
        log[m->n_metadata_log].metadata_file = loc;
        m->metadata_log = log;
        m->n_metadata_log++;
        int64_t now = now_ms();
        m->last_updated_ms = now > m->last_updated_ms ? now : m->last_updated_ms + 1;
        SQE_TRY(ice_sqlite_commit(c, argv[0], argv[1], expected, m, a, &new_loc, err));
        printf("%s\n", new_loc);
        return SQE_OK;
    }
    if (!strcmp(cmd, "drop-table")) {
        NEED(2);
        bool purge = argc > 2 && !strcmp(argv[2], "purge");
        return ice_sqlite_drop_table(c, argv[0], argv[1], purge, err);
    }
    if (!strcmp(cmd, "rename-table")) {
        NEED(4);
        return ice_sqlite_rename_table(c, argv[0], argv[1], argv[2], argv[3], err);
    }
    fprintf(stderr, "unknown command %s\n", cmd);
    return -2;
#undef NEED
}

int main(int argc, char **argv) {
    if (argc < 5) {
        fprintf(stderr, "usage: %s DB WAREHOUSE CATALOG COMMAND [ARGS...]\n", argv[0]);
        return 2;
    }
    sqe_error err;
    ice_sqlite *c = NULL;
    if (ice_sqlite_open(argv[1], argv[2], argv[3], &c, &err) != SQE_OK) {
        fprintf(stderr, "error %s: %s\n", err_code_lookup(err.code)->name, err.message);
        return 1;
    }
    arena a;
    arena_init(&a, NULL);
    int rc = run(c, &a, argv[4], argc - 5, argv + 5, &err);
    int status = 0;
    if (rc == -2) {
        status = 2;
    } else if (rc != SQE_OK) {
        fprintf(stderr, "error %s: %s\n", err_code_lookup(rc)->name, err.message);
        status = rc == ICE_SQLITE_ERR_COMMIT_CONFLICT ? 3 : 1;
    }
    arena_destroy(&a);
    ice_sqlite_close(c);
    return status;
}
