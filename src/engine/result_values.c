/*
 * result_values.c: typed result access and direct session state access for SQE's front ends
 * (include/sqe/sqe_values.h).
 *
 * INTERFACE: sqe_result_column_sqe_type, sqe_chunk_column, sqe_conn_catalog, sqe_conn_schema,
 *   sqe_conn_set_catalog_schema, sqe_conn_set_user, sqe_conn_set_principal, sqe_conn_principal,
 *   sqe_conn_set_time_zone,
 *   sqe_conn_prepared_put, sqe_conn_prepared_text.
 * NOTES: the setters mirror what USE, SET SESSION time_zone and PREPARE do in ddl.c and
 * statement.c, minus the SQL: a protocol server restores a client's session from its request
 * headers before every statement, and must not fail a request because a header names a schema
 * that was dropped meanwhile (the statement that uses it fails instead, as in Trino).
 */
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "sqe/sqe_values.h"
#include "types/tz.h"

const struct sqe_type *sqe_result_column_sqe_type(const sqe_result *res, int col) {
    if (!res || col < 0 || (uint32_t)col >= res->n_cols) return NULL;
    return &res->col_types[col];
}

const struct vec *sqe_chunk_column(const sqe_chunk *chunk, int col) {
    if (!chunk || !chunk->chunk || col < 0 || (uint32_t)col >= chunk->chunk->n_cols) return NULL;
    return &chunk->chunk->cols[col];
}

const char *sqe_conn_catalog(const sqe_conn *conn) { return conn->catalog ? conn->catalog : ""; }

const char *sqe_conn_schema(const sqe_conn *conn) { return conn->schema ? conn->schema : ""; }

int sqe_conn_set_catalog_schema(sqe_conn *conn, const char *catalog_name,
                                const char *schema_name, sqe_error *err) {
    char *c = catalog_name ? strdup(catalog_name) : NULL;
    char *s = schema_name ? strdup(schema_name) : NULL;
    if ((catalog_name && !c) || (schema_name && !s)) {
        free(c);
        free(s);
        return err_nomem(err, "session");
    }
    if (c) {
        free(conn->catalog);
        conn->catalog = c;
    }
    if (s) {
        free(conn->schema);
        conn->schema = s;
    }
    return SQE_OK;
}

int sqe_conn_set_user(sqe_conn *conn, const char *user, sqe_error *err) {
    sqe_principal *p;
    SQE_TRY(sqe_principal_for_user(user, SQE_AUTH_NONE, &p, err));
    sqe_principal_unref(conn->principal);
    conn->principal = p;
    return SQE_OK;
}

void sqe_conn_set_principal(sqe_conn *conn, const struct sqe_principal *principal) {
    if (!principal) return;
    sqe_principal *p = sqe_principal_ref(principal);
    sqe_principal_unref(conn->principal);
    conn->principal = p;
}

const struct sqe_principal *sqe_conn_principal(const sqe_conn *conn) { return conn->principal; }

int sqe_conn_set_time_zone(sqe_conn *conn, const char *zone, sqe_error *err) {
    int32_t key;
    if (!zone || tz_lookup(zone, strlen(zone), &key) != 0)
        return err_set(err, SQE_ERR_INVALID_SESSION_PROPERTY, "Time zone not supported: %s",
                       zone ? zone : "");
    conn->time_zone = key;
    return SQE_OK;
}

int sqe_conn_prepared_put(sqe_conn *conn, const char *name, const char *sql, sqe_error *err) {
    char *text = strdup(sql);
    if (!text) return err_nomem(err, "prepared statement");
    for (prepared *p = conn->prepared; p; p = p->next) {
        if (strcmp(p->name, name) != 0) continue;
        free(p->text);
        p->text = text;
        return SQE_OK;
    }
    prepared *p = calloc(1, sizeof *p);
    if (!p || !(p->name = strdup(name))) {
        free(p);
        free(text);
        return err_nomem(err, "prepared statement");
    }
    p->text = text;
    p->next = conn->prepared;
    conn->prepared = p;
    return SQE_OK;
}

const char *sqe_conn_prepared_text(const sqe_conn *conn, const char *name) {
    for (const prepared *p = conn->prepared; p; p = p->next)
        if (strcmp(p->name, name) == 0) return p->text;
    return NULL;
}

void sqe_conn_set_cancel_flag(sqe_conn *conn, volatile int *flag) { conn->cancel = flag; }

void sqe_conn_set_deadline(sqe_conn *conn, uint64_t deadline_ns, uint32_t limit_ms) {
    conn->deadline_ns = deadline_ns;
    conn->time_limit_ms = deadline_ns ? limit_ms : 0;
}
