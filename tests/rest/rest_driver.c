/*
 * rest_driver.c: runs SQL against an Iceberg REST catalog for tests/rest/test_rest.py.
 *
 * Opens an embedded SQE database, adds the catalog NAME (default "rest") made by
 * catalog_open_iceberg_backend over the REST backend (test-only wiring until sqe serve has
 * [catalogs.NAME] type = "rest"), and reads statements from stdin, one per line. Lines starting
 * with "\token " make the session run as a principal carrying that token (the caller's own
 * bearer token, sqe_conn_set_principal; "\token" alone: no token, the catalog's default).
 * Output per statement: the rows, one per line, cells joined by '|', then "OK <rows>" (or
 * "OK <update count>" for DML/DDL); or "ERROR <ERRNAME>: <message>".
 *
 * Usage: rest_driver --uri URI [--warehouse LOCAL_ROOT] [--token T] [--client ID:SECRET]
 *        [--prefix P] [--catalog NAME] [--vended]
 *
 * INTERFACE: main. NOTES: reaches into engine.h to add the catalog (test code only).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/catalog_iceberg.h"
#include "catalog/rest/rest_backend.h"
#include "engine/engine_api.h"
#include "sqe/sqe_values.h"

static void print_error(const sqe_error *e) {
    printf("ERROR %s: %s\n", err_code_lookup(e->code)->name, e->message);
}

static void run(sqe_conn *conn, const char *sql) {
    sqe_error err = {0};
    sqe_result *res = NULL;
    if (sqe_query(conn, sql, &res, &err)) {
        print_error(&err);
        return;
    }
    int ncol = sqe_result_column_count(res);
    int64_t rows = 0;
    const sqe_chunk *ch;
    char buf[4096];
    for (;;) {
        int rc = sqe_result_next(res, &ch, &err);
        if (rc) {
            print_error(&err);
            sqe_result_destroy(res);
            return;
        }
        if (!ch) break;
        int n = sqe_chunk_row_count(ch);
        for (int r = 0; r < n; r++, rows++) {
            for (int c = 0; c < ncol; c++) {
                sqe_chunk_format(ch, c, r, buf, sizeof buf);
                printf("%s%s", c ? "|" : "", buf);
            }
            printf("\n");
        }
    }
    int64_t uc = sqe_result_update_count(res);
    printf("OK %lld\n", (long long)(uc >= 0 && ncol == 0 ? uc : rows));
    sqe_result_destroy(res);
}

int main(int argc, char **argv) {
    rest_backend_config cfg = {0};
    const char *name = "rest";
    char *client = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--vended")) {
            cfg.vended_credentials = true;
            continue;
        }
        if (!v) {
            fprintf(stderr, "missing value for %s\n", a);
            return 2;
        }
        i++;
        if (!strcmp(a, "--uri")) cfg.uri = v;
        else if (!strcmp(a, "--warehouse")) cfg.location_root = v;
        else if (!strcmp(a, "--token")) cfg.token = v;
        else if (!strcmp(a, "--prefix")) cfg.prefix = v;
        else if (!strcmp(a, "--catalog")) name = v;
        else if (!strcmp(a, "--client")) client = strdup(v);
        else {
            fprintf(stderr, "unknown option %s\n", a);
            return 2;
        }
    }
    if (client) {
        char *colon = strchr(client, ':');
        if (colon) *colon = '\0';
        cfg.oauth2_client_id = client;
        cfg.oauth2_client_secret = colon ? colon + 1 : "";
    }
    cfg.http.max_retries = 2;
    cfg.http.backoff_ms = 20;
    cfg.http.timeout_ms = 20000;
    cfg.http.connect_timeout_ms = 2000;
    sqe_error err = {0};
    sqe_db *db = NULL;
    sqe_db_options opts = {.threads = 2};
    if (sqe_db_open(&opts, &db, &err)) {
        print_error(&err);
        return 1;
    }
    ice_backend *b = NULL;
    catalog *cat = NULL;
    int rc = ice_backend_rest(&cfg, &b, &err);
    if (!rc) rc = catalog_open_iceberg_backend(name, b, &db->tracker, &cat, &err);
    if (!rc) {
        /* the REST catalog goes first: sessions start in it */
        catalog **cats = realloc(db->catalogs, sizeof *cats * (db->n_catalogs + 1));
        if (!cats) {
            catalog_destroy(cat);
            rc = err_nomem(&err, "catalogs");
        } else {
            memmove(cats + 1, cats, sizeof *cats * db->n_catalogs);
            cats[0] = cat;
            db->catalogs = cats;
            db->n_catalogs++;
        }
    }
    if (rc) {
        print_error(&err);
        sqe_db_close(db);
        free(client);
        return 1;
    }
    sqe_conn *conn = NULL;
    if (sqe_connect(db, &conn, &err)) {
        print_error(&err);
        sqe_db_close(db);
        free(client);
        return 1;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, stdin)) >= 0) {
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r')) line[--n] = '\0';
        if (n == 0 || line[0] == '#') continue;
        if (!strncmp(line, "\\token", 6)) {
            /* the session runs as a principal carrying the token (or none) from now on */
            const char *t = line[6] == ' ' ? line + 7 : NULL;
            sqe_principal_info info = {.user = sqe_conn_principal(conn)->user,
                                                                  .token = t && *t ? t : NULL,
                                       .method = SQE_AUTH_BEARER};
            sqe_principal *p = NULL;
            if (sqe_principal_create(&info, &p, &err)) {
                print_error(&err);
            } else {
                sqe_conn_set_principal(conn, p);
                sqe_principal_unref(p);
                printf("OK token\n");
            }
        } else {
            run(conn, line);
        }
        fflush(stdout);
    }
    free(line);
    sqe_disconnect(conn);
    sqe_db_close(db);
    free(client);
    return 0;
}
