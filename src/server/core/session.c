/*
 * session.c: the SQL session state both protocol front ends keep (srv_session_state): editing
 * it, giving it to a fresh connection, and folding a statement's reported changes back in.
 *
 * INTERFACE: srv_session_set_catalog_schema, srv_session_set_time_zone, srv_session_put,
 *   srv_session_copy, srv_session_property_name_ok, srv_session_apply, srv_session_note
 *   (session.h).
 * NOTES: what a statement changed comes from its result (sqe_effects.h), never from its text.
 *   Property values saved by earlier versions as SQL string literals ('512MB') are read as the
 *   string inside, so persisted sessions keep working.
 */
#include "server/core/session.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "sqe/sqe_effects.h"
#include "sqe/sqe_values.h"

/* Replaces *slot by a copy of v (NULL or "": none). */
static int set_string(char **slot, const char *v, sqe_error *err) {
    char *c = v && v[0] ? strdup(v) : NULL;
    if (v && v[0] && !c) return err_nomem(err, "session");
    free(*slot);
    *slot = c;
    return SQE_OK;
}

int srv_session_set_catalog_schema(srv_session_state *st, const char *catalog,
                                   const char *schema, sqe_error *err) {
    char *c = catalog && catalog[0] ? strdup(catalog) : NULL;
    char *s = schema && schema[0] ? strdup(schema) : NULL;
    if ((catalog && catalog[0] && !c) || (schema && schema[0] && !s)) {
        free(c);
        free(s);
        return err_nomem(err, "session");
    }
    if (catalog) {
        free(st->catalog);
        st->catalog = c;
    }
    if (schema) {
        free(st->schema);
        st->schema = s;
    }
    return SQE_OK;
}

int srv_session_set_time_zone(srv_session_state *st, const char *zone, sqe_error *err) {
    return set_string(&st->time_zone, zone, err);
}

/* Sets (value != NULL) or removes name in the list names/values of *n entries. */
static int list_put(char ***names, char ***values, uint32_t *n, const char *name,
                    const char *value, sqe_error *err) {
    uint32_t i = 0;
    while (i < *n && strcmp((*names)[i], name) != 0) i++;
    if (!value) {
        if (i == *n) return SQE_OK;
        free((*names)[i]);
        free((*values)[i]);
        memmove(&(*names)[i], &(*names)[i + 1], (*n - i - 1) * sizeof **names);
        memmove(&(*values)[i], &(*values)[i + 1], (*n - i - 1) * sizeof **values);
        (*n)--;
        return SQE_OK;
    }
    char *v = strdup(value);
    if (!v) return err_nomem(err, "session");
    if (i < *n) {
        free((*values)[i]);
        (*values)[i] = v;
        return SQE_OK;
    }
    char *k = strdup(name);
    char **nn = realloc(*names, (*n + 1) * sizeof *nn);
    if (nn) *names = nn;
    char **nv = nn ? realloc(*values, (*n + 1) * sizeof *nv) : NULL;
    if (nv) *values = nv;
    if (!k || !nn || !nv) {
        free(k);
        free(v);
        return err_nomem(err, "session");
    }
    (*names)[*n] = k;
    (*values)[*n] = v;
    (*n)++;
    return SQE_OK;
}

int srv_session_put(srv_session_state *st, srv_session_list list, const char *name,
                    const char *value, sqe_error *err) {
    if (list == SRV_SESSION_PROPERTIES)
        return list_put(&st->property_names, &st->property_values, &st->n_properties, name,
                        value, err);
    return list_put(&st->prepared_names, &st->prepared_sql, &st->n_prepared, name, value, err);
}

static int dup_opt(char **dst, const char *src) {
    *dst = NULL;
    return src && !(*dst = strdup(src)) ? -1 : 0;
}

static int dup_list(char ***dst, char *const *src, uint32_t n) {
    *dst = NULL;
    if (!n) return 0;
    *dst = calloc(n, sizeof **dst);
    if (!*dst) return -1;
    for (uint32_t i = 0; i < n; i++)
        if (!((*dst)[i] = strdup(src[i]))) return -1;
    return 0;
}

int srv_session_copy(srv_session_state *dst, const srv_session_state *src, sqe_error *err) {
    memset(dst, 0, sizeof *dst);
    /* counts first, so a failed copy is still freed completely */
    dst->n_properties = src->n_properties;
    dst->n_prepared = src->n_prepared;
    if (dup_opt(&dst->principal, src->principal) || dup_opt(&dst->catalog, src->catalog) ||
        dup_opt(&dst->schema, src->schema) || dup_opt(&dst->time_zone, src->time_zone) ||
        dup_list(&dst->property_names, src->property_names, src->n_properties) ||
        dup_list(&dst->property_values, src->property_values, src->n_properties) ||
        dup_list(&dst->prepared_names, src->prepared_names, src->n_prepared) ||
        dup_list(&dst->prepared_sql, src->prepared_sql, src->n_prepared)) {
        srv_session_state_clear(dst);
        return err_nomem(err, "session");
    }
    return SQE_OK;
}

bool srv_session_property_name_ok(const char *s) {
    if (!s || !*s) return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_' && *s != '.') return false;
    return true;
}

/* A value saved as a SQL string literal by an earlier version: the string inside (malloc'ed),
 * else NULL. */
static char *legacy_literal(const char *v) {
    size_t n = strlen(v);
    if (n < 2 || v[0] != '\'' || v[n - 1] != '\'') return NULL;
    char *out = malloc(n);
    if (!out) return NULL;
    size_t k = 0;
    for (size_t i = 1; i + 1 < n; i++) {
        if (v[i] == '\'') {
            if (i + 2 >= n || v[i + 1] != '\'') {
                free(out);
                return NULL; /* not one literal */
            }
            i++;
        }
        out[k++] = v[i];
    }
    out[k] = 0;
    return out;
}

int srv_session_apply(const srv_session_state *st, sqe_conn *conn, sqe_error *err) {
    int rc = SQE_OK;
    if (st->catalog || st->schema)
        rc = sqe_conn_set_catalog_schema(conn, st->catalog, st->schema, err);
    if (!rc && st->time_zone) rc = sqe_conn_set_time_zone(conn, st->time_zone, err);
    for (uint32_t i = 0; !rc && i < st->n_properties; i++) {
        const char *name = st->property_names[i];
        if (!srv_session_property_name_ok(name)) {
            rc = err_set(err, SQE_ERR_INVALID_SESSION_PROPERTY,
                         "Invalid session property name: '%s'", name);
            break;
        }
        char *lit = legacy_literal(st->property_values[i]);
        rc = sqe_conn_set_session_property(conn, name, lit ? lit : st->property_values[i], err);
        free(lit);
    }
    for (uint32_t i = 0; !rc && i < st->n_prepared; i++)
        rc = sqe_conn_prepared_put(conn, st->prepared_names[i], st->prepared_sql[i], err);
    if (rc && err) err->line = err->column = 0;
    return rc;
}

int srv_session_note(srv_session_state *st, const sqe_result *res, bool *changed,
                     sqe_error *err) {
    if (changed) *changed = false;
    int n = sqe_result_session_change_count(res);
    for (int i = 0; i < n; i++) {
        const sqe_session_change *c = sqe_result_session_change(res, i);
        switch (c->kind) {
        case SQE_CHANGE_CATALOG_SCHEMA:
            SQE_TRY(srv_session_set_catalog_schema(st, c->name, c->value ? c->value : "", err));
            break;
        case SQE_CHANGE_PROPERTY_SET:
        case SQE_CHANGE_PROPERTY_RESET:
            SQE_TRY(srv_session_put(st, SRV_SESSION_PROPERTIES, c->name,
                                    c->kind == SQE_CHANGE_PROPERTY_SET
                                        ? (c->value ? c->value : "")
                                        : NULL,
                                    err));
            break;
        case SQE_CHANGE_PREPARED_ADDED:
        case SQE_CHANGE_PREPARED_REMOVED:
            SQE_TRY(srv_session_put(st, SRV_SESSION_PREPARED, c->name,
                                    c->kind == SQE_CHANGE_PREPARED_ADDED
                                        ? (c->value ? c->value : "")
                                        : NULL,
                                    err));
            break;
        case SQE_CHANGE_TIME_ZONE:
            SQE_TRY(srv_session_set_time_zone(st, c->value, err));
            break;
        }
        if (changed) *changed = true;
    }
    return SQE_OK;
}
