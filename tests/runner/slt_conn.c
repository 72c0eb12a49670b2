/*
 * slt_conn.c: the runner's connectors: how a statement reaches an engine and comes back as text.
 *
 * A connector opens a fresh database and session, runs one statement at a time and returns the
 * outcome as an slt_result (column types and cell texts), so the comparison code does not care how
 * the rows travelled. "embedded" calls the public API in sqe.h in-process; "trino"
 * (slt_conn_trino.c) and "flight" (slt_conn_flight.c) start the Trino HTTP or Flight SQL server
 * in-process on the same kind of database and talk to it over loopback, so one corpus checks that
 * all front ends agree.
 *
 * INTERFACE: slt_connector_find, slt_result_free, slt_db_open, slt_result_fail,
 *            slt_result_set_columns, slt_result_push.
 * NOTES: cell texts come from sqe_chunk_format (Trino's text rendering); a result is capped at
 * MAX_VALUES cells so a runaway query fails instead of exhausting memory.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/catalog_iceberg.h"
#include "catalog/rest/rest_backend.h"
#include "engine/engine_api.h"
#include "slt.h"

#define MAX_VALUES ((size_t)50 * 1000 * 1000)

void slt_result_free(slt_result *r) {
    for (int i = 0; i < r->n_cols; i++)
        if (r->col_types) free(r->col_types[i]);
    free(r->col_types);
    size_t n_cells = r->n_rows * (size_t)r->n_cols + r->partial;
    for (size_t i = 0; i < n_cells; i++) free(r->values[i]);
    free(r->values);
    memset(r, 0, sizeof *r);
}

void slt_result_fail(slt_result *r, const char *sqlstate, const char *fmt, ...) {
    memset(&r->err, 0, sizeof r->err);
    r->err.code = -1;
    snprintf(r->err.sqlstate, sizeof r->err.sqlstate, "%s", sqlstate);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err.message, sizeof r->err.message, fmt, ap);
    va_end(ap);
    r->failed = 1;
}

static void result_fail(slt_result *r, const char *sqlstate, const char *message) {
    slt_result_fail(r, sqlstate, "%s", message);
}

int slt_result_set_columns(slt_result *r, int n, const char *const *types) {
    r->col_types = calloc((size_t)n + 1, sizeof *r->col_types);
    if (!r->col_types) goto out_nomem;
    r->n_cols = n;
    for (int i = 0; i < n; i++) {
        r->col_types[i] = strdup(types[i] ? types[i] : "");
        if (!r->col_types[i]) goto out_nomem;
    }
    return 0;
out_nomem:
    result_fail(r, "53200", "out of memory in the test runner");
    return -1;
}

int slt_result_push(slt_result *r, char *value, size_t *cap) {
    size_t n_cols = (size_t)r->n_cols;
    size_t used = r->n_rows * n_cols;
    size_t at = used + r->partial;
    if (n_cols == 0 || at + 1 > MAX_VALUES) {
        free(value);
        result_fail(r, "54000", n_cols ? "result too large for the test runner"
                                       : "a row for a result without columns");
        return -1;
    }
    if (at + 1 > *cap) {
        size_t new_cap = *cap ? *cap * 2 : 256;
        char **grown = realloc(r->values, new_cap * sizeof *grown);
        if (!grown) {
            free(value);
            result_fail(r, "53200", "out of memory in the test runner");
            return -1;
        }
        r->values = grown;
        *cap = new_cap;
    }
    r->values[at] = value;
    if (++r->partial == n_cols) {
        r->partial = 0;
        r->n_rows++;
    }
    return 0;
}

/* Puts the REST catalog of opt in front of db's catalogs (the sessions' default) as "iceberg"
 * and makes its namespace "default". */
static int attach_rest(const slt_options *opt, sqe_db *db, sqe_error *err) {
    rest_backend_config rc;
    memset(&rc, 0, sizeof rc);
    rc.uri = opt->rest_uri;
    rc.token = opt->rest_token;
    rc.service_identity = true;
    rc.vended_credentials = true;
    ice_backend *b = NULL;
    catalog *c = NULL;
    if (ice_backend_rest(&rc, &b, err) != SQE_OK ||
        catalog_open_iceberg_backend("iceberg", b, &db->tracker, &c, err) != SQE_OK)
        return -1;
    catalog_storage_config sc = {.s3_endpoint = opt->s3_endpoint, .s3_path_style = true};
    catalog **arr = realloc(db->catalogs, (db->n_catalogs + 2) * sizeof *arr);
    if (catalog_iceberg_set_storage(c, &sc, err) != SQE_OK || !arr) {
        if (arr) db->catalogs = arr;
        else err_nomem(err, "catalog list");
        catalog_destroy(c);
        return -1;
    }
    memmove(arr + 1, arr, db->n_catalogs * sizeof *arr);
    arr[0] = c;
    db->catalogs = arr;
    db->n_catalogs++;
    arr[db->n_catalogs] = NULL;
    sqe_conn *conn = NULL;
    sqe_result *res = NULL;
    int rc2 = sqe_connect(db, &conn, err);
    if (!rc2) rc2 = sqe_query(conn, "CREATE SCHEMA IF NOT EXISTS iceberg.\"default\"", &res, err);
    sqe_result_destroy(res);
    sqe_disconnect(conn);
    return rc2 ? -1 : 0;
}

int slt_db_open(const slt_options *opt, sqe_db **db, sqe_error *err) {
    sqe_db_options db_opts;
    memset(&db_opts, 0, sizeof db_opts);
    db_opts.threads = opt->threads;
    bool rest = opt->rest_uri && opt->warehouse;
    db_opts.warehouse = rest ? NULL : opt->warehouse;
    *db = NULL;
    if (sqe_db_open(&db_opts, db, err) != SQE_OK) {
        *db = NULL;
        return -1;
    }
    if (rest && attach_rest(opt, *db, err) != 0) {
        sqe_db_close(*db);
        *db = NULL;
        return -1;
    }
    return 0;
}

/* ---- embedded: the in-process API ------------------------------------------------------------ */

typedef struct embedded {
    sqe_db *db;
    sqe_conn *conn;
} embedded;

static int embedded_open(const slt_options *opt, void **out, sqe_error *err) {
    embedded *e = calloc(1, sizeof *e);
    if (!e) {
        memset(err, 0, sizeof *err);
        snprintf(err->message, sizeof err->message, "out of memory");
        return -1;
    }
    if (slt_db_open(opt, &e->db, err) != 0) {
        free(e);
        return -1;
    }
    if (sqe_connect(e->db, &e->conn, err) != SQE_OK) {
        sqe_db_close(e->db);
        free(e);
        return -1;
    }
    *out = e;
    return 0;
}

static void embedded_close(void *conn) {
    embedded *e = conn;
    if (!e) return;
    sqe_disconnect(e->conn);
    sqe_db_close(e->db);
    free(e);
}

/* Appends the rows of chunk to r; returns 0, or -1 with r failed. */
static int append_chunk(slt_result *r, const sqe_chunk *chunk, size_t *cap) {
    int n_rows = sqe_chunk_row_count(chunk);
    size_t n_cols = (size_t)r->n_cols;
    size_t need = (r->n_rows + (size_t)n_rows) * n_cols;
    if (need > MAX_VALUES) {
        result_fail(r, "54000", "result too large for the test runner");
        return -1;
    }
    if (need > *cap) {
        size_t new_cap = *cap ? *cap : 256;
        while (new_cap < need) new_cap *= 2;
        char **grown = realloc(r->values, new_cap * sizeof *grown);
        if (!grown) goto out_nomem;
        r->values = grown;
        *cap = new_cap;
    }
    char small[256];
    for (int row = 0; row < n_rows; row++) {
        for (size_t col = 0; col < n_cols; col++) {
            char **slot = &r->values[r->n_rows * n_cols + col];
            *slot = NULL;
            if (sqe_chunk_is_null(chunk, (int)col, row)) continue;
            size_t len = sqe_chunk_format(chunk, (int)col, row, small, sizeof small);
            if (len < sizeof small) {
                *slot = strdup(small);
            } else {
                *slot = malloc(len + 1);
                if (*slot) sqe_chunk_format(chunk, (int)col, row, *slot, len + 1);
            }
            if (!*slot) {
                for (size_t c = 0; c < col; c++) free(r->values[r->n_rows * n_cols + c]);
                goto out_nomem;
            }
        }
        r->n_rows++;
    }
    return 0;

out_nomem:
    result_fail(r, "53200", "out of memory in the test runner");
    return -1;
}

static void embedded_run(void *conn, const char *sql, slt_result *r) {
    embedded *e = conn;
    memset(r, 0, sizeof *r);
    sqe_result *res = NULL;
    if (sqe_query(e->conn, sql, &res, &r->err) != SQE_OK || !res) {
        if (res) sqe_result_destroy(res);
        r->failed = 1;
        return;
    }
    int n_cols = sqe_result_column_count(res);
    if (n_cols < 0) n_cols = 0;
    r->col_types = calloc((size_t)n_cols + 1, sizeof *r->col_types);
    if (!r->col_types) {
        result_fail(r, "53200", "out of memory in the test runner");
        sqe_result_destroy(res);
        return;
    }
    r->n_cols = n_cols;
    for (int i = 0; i < n_cols; i++) {
        const char *type = sqe_result_column_type(res, i);
        r->col_types[i] = strdup(type ? type : "");
        if (!r->col_types[i]) {
            result_fail(r, "53200", "out of memory in the test runner");
            sqe_result_destroy(res);
            return;
        }
    }
    size_t cap = 0;
    for (;;) {
        const sqe_chunk *chunk = NULL;
        if (sqe_result_next(res, &chunk, &r->err) != SQE_OK) {
            r->failed = 1;
            break;
        }
        if (!chunk) break;
        if (n_cols > 0 && append_chunk(r, chunk, &cap) != 0) break;
    }
    sqe_result_destroy(res);
}

/* ---- the table ------------------------------------------------------------------------------- */

static const slt_connector conn_embedded = {"embedded", 1, embedded_open, embedded_run,
                                             embedded_close};

static const slt_connector *const connectors[] = {&conn_embedded, &slt_conn_trino,
                                                  &slt_conn_flight};

const slt_connector *slt_connector_find(const char *name) {
    for (size_t i = 0; i < sizeof connectors / sizeof connectors[0]; i++)
        if (strcmp(connectors[i]->name, name) == 0) return connectors[i];
    return NULL;
}
