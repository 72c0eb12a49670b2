/*
 * flight_session.c: the SQL session a Flight client keeps across statements. Every statement
 * runs on a fresh sqe_conn (a result may outlive the call that made it, and one session may have
 * several results open), so the session's state lives in the server (flight_session.state) and
 * is given to each new connection; what a statement changes is read back after it ran.
 *
 * INTERFACE: flight_session_restore, flight_session_note, flight_session_save,
 *            flight_sql_literal, flight_property_name_ok, flight_statement_returns_rows
 *            (flight_int.h).
 * NOTES: the engine does not report statement kinds, so a small keyword scan (as the Trino
 *   front end does) recognises USE, SET SESSION, RESET SESSION, PREPARE and DEALLOCATE
 *   [PREPARE]; the new values come from the connection after the statement (catalog, schema,
 *   prepared text) or, for SET SESSION, the value's SQL text as written, which restoring runs
 *   again as `SET SESSION name = <text>`. The state is saved with hooks.session_save, so
 *   `[session] persistence = "file"` keeps it across restarts.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/err.h"
#include "common/strbuf.h"
#include "server/flight/flight_int.h"
#include "sqe/sqe_values.h"

/* ---- keyword scan ------------------------------------------------------------------------ */

typedef enum stmt_kind { SK_OTHER, SK_USE, SK_SET, SK_RESET, SK_PREPARE, SK_DEALLOCATE } stmt_kind;

typedef struct stmt_info {
    stmt_kind kind;
    char name[256];   /* property or prepared statement name (unquoted parts lower-cased) */
    const char *rest; /* SET SESSION: the value text after '=' */
} stmt_info;

static void skip_space(const char **p) {
    for (;;) {
        while (isspace((unsigned char)**p)) (*p)++;
        if ((*p)[0] == '-' && (*p)[1] == '-') {
            while (**p && **p != '\n') (*p)++;
        } else if ((*p)[0] == '/' && (*p)[1] == '*') {
            const char *e = strstr(*p + 2, "*/");
            *p = e ? e + 2 : *p + strlen(*p);
        } else {
            return;
        }
    }
}

/* Reads a keyword (letters) at *p, upper-cased into w. */
static bool keyword(const char **p, char *w, size_t len) {
    skip_space(p);
    size_t n = 0;
    while (isalpha((unsigned char)**p) || **p == '_') {
        if (n + 1 >= len) return false;
        w[n++] = (char)toupper((unsigned char)**p);
        (*p)++;
    }
    w[n] = 0;
    return n > 0;
}

/* Reads a (possibly dotted) name at *p: quoted parts as written, unquoted ones lower-cased. */
static bool qualified_name(const char **p, char *out, size_t len) {
    skip_space(p);
    size_t n = 0;
    for (;;) {
        const char *s = *p;
        if (*s == '"') {
            for (s++;; s++) {
                if (!*s) return false;
                if (*s == '"') {
                    if (s[1] != '"') {
                        s++;
                        break;
                    }
                    s++;
                }
                if (n + 1 >= len) return false;
                out[n++] = *s;
            }
        } else {
            size_t start = n;
            while (isalnum((unsigned char)*s) || *s == '_' || (unsigned char)*s >= 0x80) {
                if (n + 1 >= len) return false;
                out[n++] = (char)tolower((unsigned char)*s);
                s++;
            }
            if (n == start) return false;
        }
        *p = s;
        if (**p != '.') break;
        if (n + 1 >= len) return false;
        out[n++] = '.';
        (*p)++;
    }
    out[n] = 0;
    return n > 0;
}

static void classify(const char *sql, stmt_info *info) {
    memset(info, 0, sizeof *info);
    const char *p = sql;
    char w[32], w2[32];
    if (!keyword(&p, w, sizeof w)) return;
    if (!strcmp(w, "USE")) {
        info->kind = SK_USE;
    } else if (!strcmp(w, "SET") || !strcmp(w, "RESET")) {
        if (!keyword(&p, w2, sizeof w2) || strcmp(w2, "SESSION") != 0) return;
        if (!qualified_name(&p, info->name, sizeof info->name)) return;
        if (w[0] == 'R') {
            info->kind = SK_RESET;
            return;
        }
        skip_space(&p);
        if (*p != '=') return;
        p++;
        skip_space(&p);
        info->kind = SK_SET;
        info->rest = p;
    } else if (!strcmp(w, "PREPARE")) {
        if (qualified_name(&p, info->name, sizeof info->name)) info->kind = SK_PREPARE;
    } else if (!strcmp(w, "DEALLOCATE")) {
        const char *q = p;
        if (keyword(&q, w2, sizeof w2) && !strcmp(w2, "PREPARE")) p = q;
        if (qualified_name(&p, info->name, sizeof info->name)) info->kind = SK_DEALLOCATE;
    }
}

/* The SET SESSION value text: rest without trailing blanks and ';'. malloc'ed. */
static char *value_text(const char *rest) {
    size_t len = strlen(rest);
    while (len && (rest[len - 1] == ';' || isspace((unsigned char)rest[len - 1]))) len--;
    return strndup(rest, len);
}

/* ---- helpers ----------------------------------------------------------------------------- */

bool flight_statement_returns_rows(sqe_conn *conn, const char *sql) {
    if (flight_sql_is_query(sql)) return true;
    const char *p = sql;
    char w[32], name[256];
    if (!keyword(&p, w, sizeof w) || strcmp(w, "EXECUTE") != 0) return false;
    if (!qualified_name(&p, name, sizeof name)) return false;
    const char *text = sqe_conn_prepared_text(conn, name);
    return text && flight_sql_is_query(text);
}

bool flight_property_name_ok(const char *s) {
    if (!s || !*s) return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_' && *s != '.') return false;
    return true;
}

char *flight_sql_literal(const char *value) {
    const char *p = value;
    if (*p == '-') p++;
    bool digits = *p != 0 && strlen(value) < 19;
    for (const char *d = p; *d; d++)
        if (*d < '0' || *d > '9') digits = false;
    if (digits || !strcasecmp(value, "true") || !strcasecmp(value, "false")) return strdup(value);
    strbuf sb;
    strbuf_init(&sb);
    strbuf_putc(&sb, '\'');
    for (const char *v = value; *v; v++) {
        if (*v == '\'') strbuf_putc(&sb, '\'');
        strbuf_putc(&sb, *v);
    }
    strbuf_putc(&sb, '\'');
    if (sb.failed) {
        strbuf_reset(&sb);
        return NULL;
    }
    return strbuf_move(&sb);
}

/* ---- restore, note, save ----------------------------------------------------------------- */

int flight_session_restore(flight_call *fc, sqe_conn *conn, sqe_error *err) {
    srv_session_state st;
    SQE_TRY(flight_session_snapshot(fc->srv, fc->session_key, &st, err));
    int rc = SQE_OK;
    if (st.catalog || st.schema) rc = sqe_conn_set_catalog_schema(conn, st.catalog, st.schema, err);
    if (!rc && st.time_zone) rc = sqe_conn_set_time_zone(conn, st.time_zone, err);
    for (uint32_t i = 0; !rc && i < st.n_properties; i++) {
        if (!flight_property_name_ok(st.property_names[i])) {
            rc = err_set(err, SQE_ERR_INVALID_SESSION_PROPERTY,
                         "invalid session property name '%s'", st.property_names[i]);
            break;
        }
        strbuf sb;
        strbuf_init(&sb);
        strbuf_printf(&sb, "SET SESSION %s = %s", st.property_names[i], st.property_values[i]);
        if (sb.failed) {
            strbuf_reset(&sb);
            rc = err_nomem(err, "session");
            break;
        }
        sqe_result *res = NULL;
        rc = sqe_query(conn, strbuf_cstr(&sb), &res, err);
        strbuf_reset(&sb);
        sqe_result_destroy(res);
    }
    for (uint32_t i = 0; !rc && i < st.n_prepared; i++)
        rc = sqe_conn_prepared_put(conn, st.prepared_names[i], st.prepared_sql[i], err);
    if (rc && err) err->line = err->column = 0; /* a position in our SQL means nothing to the client */
    srv_session_state_clear(&st);
    return rc;
}

void flight_session_save(flight_call *fc) {
    const srv_hooks *h = &fc->srv->opts.hooks;
    if (!h->session_save || strncmp(fc->session_key, "principal:", 10) == 0) return;
    srv_session_state st;
    sqe_error e;
    memset(&e, 0, sizeof e);
    if (flight_session_snapshot(fc->srv, fc->session_key, &st, &e) != SQE_OK) return;
    h->session_save(h->ud, fc->session_key, &st, &e);
    srv_session_state_clear(&st);
}

int flight_session_note(flight_call *fc, sqe_conn *conn, const char *sql, sqe_error *err) {
    stmt_info info;
    classify(sql, &info);
    flight_server *srv = fc->srv;
    const char *key = fc->session_key;
    int rc = SQE_OK;
    switch (info.kind) {
    case SK_USE:
        rc = flight_session_set(srv, key, sqe_conn_catalog(conn), sqe_conn_schema(conn), err);
        break;
    case SK_SET: {
        char *v = value_text(info.rest);
        rc = v ? flight_session_put(srv, key, FLIGHT_SESSION_PROPERTIES, info.name, v, err)
               : err_nomem(err, "session");
        free(v);
        break;
    }
    case SK_RESET:
        rc = flight_session_put(srv, key, FLIGHT_SESSION_PROPERTIES, info.name, NULL, err);
        break;
    case SK_PREPARE: {
        const char *text = sqe_conn_prepared_text(conn, info.name);
        if (text) rc = flight_session_put(srv, key, FLIGHT_SESSION_PREPARED, info.name, text, err);
        break;
    }
    case SK_DEALLOCATE:
        rc = flight_session_put(srv, key, FLIGHT_SESSION_PREPARED, info.name, NULL, err);
        break;
    case SK_OTHER: return SQE_OK;
    }
    if (!rc) flight_session_save(fc);
    return rc;
}
