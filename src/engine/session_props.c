/*
 * session_props.c: session properties: SET SESSION / RESET SESSION (threads, task_concurrency,
 * query_max_memory, join_reordering_strategy, time_zone) and the same without SQL for the
 * servers (sqe_conn_set_session_property), which give a fresh connection the client's
 * properties that way instead of running SET SESSION text.
 *
 * INTERFACE: engine_set_session (engine.h), sqe_conn_set_session_property (sqe_effects.h).
 * NOTES: a value is an integer, a boolean or a string; SET SESSION evaluates its constant
 *   expression to one of those, the setter reads its text the way Trino's X-Trino-Session header
 *   values read (digits: integer, true/false: boolean, else a string). A session may lower the
 *   server's threads and memory limits, never raise them. On error nothing changes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/config.h"
#include "engine/engine.h"
#include "types/tz.h"
#include "vec/vec_format.h"

/* One property value: ival for integers and booleans, text for strings ("" otherwise). */
typedef struct prop_value {
    int64_t ival;
    char text[128];
} prop_value;

/* Applies name = v (or the reset) to conn. line/col: where the name stands (0 = nowhere). */
static int apply(sqe_conn *conn, const char *name, const char *shown, bool reset,
                 const prop_value *v, int line, int col, sqe_error *err) {
    int64_t ival = v ? v->ival : 0;
    const char *text = v ? v->text : "";
    if (strcmp(name, "threads") == 0 || strcmp(name, "task_concurrency") == 0) {
        /* a session may use fewer of the server's threads, never more */
        if (!reset && ival < 1)
            return err_set(err, SQE_ERR_INVALID_SESSION_PROPERTY, "%s must be at least 1", name);
        if (!reset && ival > (int64_t)conn->db->threads)
            return err_set(err, SQE_ERR_INVALID_SESSION_PROPERTY,
                           "%s = %lld is more than the server's limit of %u threads "
                           "([coordinator] threads); a session can only lower it",
                           name, (long long)ival, conn->db->threads);
        conn->threads = reset ? 0 : (uint32_t)ival;
        return SQE_OK;
    }
    if (strcmp(name, "query_max_memory") == 0) {
        if (reset) {
            conn->query_max_memory = 0;
            return SQE_OK;
        }
        char *end;
        double x = strtod(text, &end);
        double mult = 1;
        while (*end == ' ') end++;
        if (!strcasecmp(end, "kb")) mult = 1024.0;
        else if (!strcasecmp(end, "mb")) mult = 1024.0 * 1024;
        else if (!strcasecmp(end, "gb")) mult = 1024.0 * 1024 * 1024;
        else if (!strcasecmp(end, "b") || !*end) mult = 1;
        else mult = -1;
        if (!text[0] && ival > 0) {
            x = (double)ival;
            mult = 1;
        }
        double bytes = x * mult;
        char lim[64];
        config_format_size(conn->db->query_memory_limit, lim, sizeof lim);
        if (mult < 0 || x <= 0)
            return err_set(err, SQE_ERR_INVALID_SESSION_PROPERTY,
                           "Invalid value for query_max_memory: '%s' (use e.g. '512MB')", text);
        if (bytes > (double)conn->db->query_memory_limit)
            /* a session may ask for less memory than the server allows, never more */
            return err_set(err, SQE_ERR_INVALID_SESSION_PROPERTY,
                           "query_max_memory = '%s' is more than the server's limit of %s "
                           "per query ([query] memory_limit); a session can only lower it",
                           text[0] ? text : "(number)", lim);
        conn->query_max_memory = (int64_t)bytes;
        return SQE_OK;
    }
    if (strcmp(name, "join_reordering_strategy") == 0) {
        conn->join_reorder = reset || strcasecmp(text, "NONE") != 0;
        return SQE_OK;
    }
    if (strcmp(name, "time_zone") == 0) {
        int32_t key;
        if (reset) {
            conn->time_zone = 0;
            return SQE_OK;
        }
        if (tz_lookup(text, strlen(text), &key) != 0)
            return err_set(err, SQE_ERR_INVALID_SESSION_PROPERTY, "Time zone not supported: %s",
                           text);
        conn->time_zone = key;
        return SQE_OK;
    }
    if (line)
        return err_set_at(err, SQE_ERR_INVALID_SESSION_PROPERTY, line, col,
                          "Session property '%s' does not exist", shown);
    return err_set(err, SQE_ERR_INVALID_SESSION_PROPERTY, "Session property '%s' does not exist",
                   shown);
}

int engine_set_session(sqe_conn *conn, const sql_stmt *st, char **value, sqe_error *err) {
    if (value) *value = NULL;
    const sql_qname *n = &st->u.set_session.name;
    const char *name = n->parts[n->n_parts - 1].name;
    bool reset = st->kind == SQL_STMT_RESET_SESSION;
    bexpr *v = NULL;
    arena a;
    arena_init(&a, NULL);
    plan_ctx pc;
    plan_ctx_init(&pc, &a, NULL, exec_fold_const);
    int rc = SQE_OK;
    if (!reset) {
        bind_env env;
        engine_bind_env(conn, &env);
        rc = bind_scalar_expr(&pc, &env, st->u.set_session.value, &v, err);
        if (!rc && v->kind != BEXPR_CONST)
            rc = err_set_at(err, SQE_ERR_INVALID_SESSION_PROPERTY, st->u.set_session.value->line,
                            st->u.set_session.value->col,
                            "Session property value must be a constant");
    }
    prop_value pv = {0, ""};
    strbuf shown; /* the value as text, as Trino reports it (X-Trino-Set-Session) */
    strbuf_init(&shown);
    if (!rc && v) {
        if (type_is_integer(v->type)) {
            switch (v->type.id) {
            case TYPE_TINYINT: pv.ival = VEC_DATA(v->u.constant, int8_t)[0]; break;
            case TYPE_SMALLINT: pv.ival = VEC_DATA(v->u.constant, int16_t)[0]; break;
            case TYPE_INTEGER: pv.ival = VEC_DATA(v->u.constant, int32_t)[0]; break;
            default: pv.ival = VEC_DATA(v->u.constant, int64_t)[0]; break;
            }
        } else if (type_is_string(v->type)) {
            const sqe_str *s = &VEC_DATA(v->u.constant, sqe_str)[0];
            snprintf(pv.text, sizeof pv.text, "%.*s", (int)s->len, sqe_str_data(s));
        } else if (v->type.id == TYPE_BOOLEAN) {
            pv.ival = VEC_DATA(v->u.constant, uint8_t)[0];
        }
        if (type_is_string(v->type)) {
            const sqe_str *s = &VEC_DATA(v->u.constant, sqe_str)[0];
            strbuf_append(&shown, sqe_str_data(s), s->len);
        } else if (vec_format_value(v->u.constant, 0, &shown) != 0) {
            strbuf_reset(&shown);
        }
    }
    if (!rc) rc = apply(conn, name, n->parts[n->n_parts - 1].text, reset, reset ? NULL : &pv,
                        n->parts[0].line, n->parts[0].col, err);
    if (!rc && value && !reset) {
        *value = shown.failed ? NULL : strbuf_move(&shown);
        if (!*value) *value = strdup("");
        if (!*value) rc = err_nomem(err, "session");
    }
    strbuf_reset(&shown);
    plan_ctx_destroy(&pc);
    arena_destroy(&a);
    return rc;
}

int sqe_conn_set_session_property(sqe_conn *conn, const char *name, const char *value,
                                  sqe_error *err) {
    if (!name || !*name)
        return err_set(err, SQE_ERR_INVALID_SESSION_PROPERTY, "empty session property name");
    /* a dotted name (catalog.property) is looked up by its last part, as SET SESSION does */
    const char *last = strrchr(name, '.');
    last = last ? last + 1 : name;
    char folded[128];
    size_t n = strlen(last);
    if (n >= sizeof folded)
        return err_set(err, SQE_ERR_INVALID_SESSION_PROPERTY,
                       "Session property '%s' does not exist", name);
    for (size_t i = 0; i <= n; i++)
        folded[i] = (char)(last[i] >= 'A' && last[i] <= 'Z' ? last[i] + 32 : last[i]);
    if (!value) return apply(conn, folded, last, true, NULL, 0, 0, err);
    prop_value pv = {0, ""};
    const char *p = value[0] == '-' ? value + 1 : value;
    bool digits = *p != 0 && strlen(value) < 19;
    for (const char *d = p; *d; d++)
        if (*d < '0' || *d > '9') digits = false;
    if (digits) pv.ival = strtoll(value, NULL, 10);
    else if (!strcasecmp(value, "true")) pv.ival = 1;
    else if (!strcasecmp(value, "false")) pv.ival = 0;
    else snprintf(pv.text, sizeof pv.text, "%s", value);
    return apply(conn, folded, last, false, &pv, 0, 0, err);
}
