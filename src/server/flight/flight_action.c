/*
 * flight_action.c: Flight DoAction and ListActions: prepared statements (create, close), query
 * cancel (CancelFlightInfo) and session options (SetSessionOptions, GetSessionOptions,
 * CloseSession; keys "catalog", "schema" and any session property SET SESSION takes, such as
 * "time_zone" or "query_max_memory").
 *
 * INTERFACE: flight_do_action, flight_list_actions (flight_int.h).
 * NOTES: Flight SQL actions carry Any-wrapped requests and results; the Flight session actions
 * and CancelFlightInfo carry raw messages (as the Flight specification defines them).
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

static int send_result(flight_call *fc, const uint8_t *body, size_t len, sqe_error *err) {
    Arrow__Flight__Protocol__Result r;
    arrow__flight__protocol__result__init(&r);
    r.body.data = (uint8_t *)body;
    r.body.len = len;
    return flight_call_send_msg(fc, &r.base, err);
}

static int send_raw_result(flight_call *fc, const ProtobufCMessage *m, sqe_error *err) {
    size_t n = protobuf_c_message_get_packed_size(m);
    uint8_t *b = malloc(n ? n : 1);
    if (!b) return err_nomem(err, "result");
    protobuf_c_message_pack(m, b);
    int rc = send_result(fc, b, n, err);
    free(b);
    return rc;
}

static int create_prepared(flight_call *fc, const flight_cmd *cmd, sqe_error *err) {
    const Arrow__Flight__Protocol__Sql__ActionCreatePreparedStatementRequest *q = (const void *)cmd->msg;
    const char *sql = q->query ? q->query : "";
    volatile int cancel = 0;
    sqe_conn *conn;
    SQE_TRY(flight_open_conn(fc, &conn, &cancel, err));
    sqe_stmt *stmt = NULL;
    int rc = sqe_prepare(conn, sql, &stmt, err);
    int n_params = rc ? 0 : sqe_stmt_param_count(stmt);
    bool is_query = flight_statement_returns_rows(conn, sql);
    /* Parameter types from where each `?` stands; unknown ones stay Arrow null (any value binds). */
    sqe_type *ptypes = rc ? NULL : calloc((size_t)n_params + 1, sizeof *ptypes);
    if (!rc && !ptypes) rc = err_nomem(err, "parameter schema");
    for (int i = 0; !rc && i < n_params; i++) {
        const char *tn = sqe_stmt_param_type(stmt, i + 1);
        if (type_parse(tn, strlen(tn), &ptypes[i]) != 0) ptypes[i] = type_make(TYPE_UNKNOWN);
    }
    if (stmt) sqe_stmt_destroy(stmt);
    sqe_disconnect(conn);
    if (rc) {
        free(ptypes);
        return rc;
    }
    flight_prepared *p = calloc(1, sizeof *p);
    if (!p) {
        free(ptypes);
        return err_nomem(err, "prepared statement");
    }
    flight_random_handle(p->handle);
    p->sql = strdup(sql);
    p->session_key = strdup(fc->session_key);
    p->n_params = n_params;
    p->is_query = is_query;
    if (!p->sql || !p->session_key) {
        free(ptypes);
        flight_prepared_free(p);
        return err_nomem(err, "prepared statement");
    }
    arrow_buf dataset, params, hdr;
    arrow_buf_init(&dataset);
    arrow_buf_init(&params);
    arrow_buf_init(&hdr);
    /* The result schema is known without parameters; with parameters the client takes it from
     * the FlightInfo after binding. */
    if (p->is_query && n_params == 0) rc = flight_statement_schema(fc, NULL, p, &dataset, err);
    if (!rc) {
        arrow_column *cols = calloc((size_t)n_params + 1, sizeof *cols);
        char (*names)[24] = calloc((size_t)n_params + 1, sizeof *names);
        if (!cols || !names) {
            rc = err_nomem(err, "parameter schema");
        } else {
            for (int i = 0; i < n_params; i++) {
                snprintf(names[i], sizeof names[i], "parameter_%d", i + 1);
                cols[i].name = names[i];
                cols[i].type = ptypes[i];
                cols[i].nullable = true;
            }
            arrow_schema s;
            memset(&s, 0, sizeof s);
            s.n_cols = (uint32_t)n_params;
            s.cols = cols;
            rc = arrow_schema_encode(&s, &hdr, err);
            if (!rc) rc = arrow_message_frame(hdr.data, hdr.len, NULL, 0, &params, err);
        }
        free(cols);
        free(names);
    }
    if (!rc) {
        Arrow__Flight__Protocol__Sql__ActionCreatePreparedStatementResult r;
        arrow__flight__protocol__sql__action_create_prepared_statement_result__init(&r);
        r.prepared_statement_handle.data = (uint8_t *)p->handle;
        r.prepared_statement_handle.len = strlen(p->handle);
        r.dataset_schema.data = dataset.data;
        r.dataset_schema.len = dataset.len;
        r.parameter_schema.data = params.data;
        r.parameter_schema.len = params.len;
        r._is_update_case = ARROW__FLIGHT__PROTOCOL__SQL__ACTION_CREATE_PREPARED_STATEMENT_RESULT___IS_UPDATE_IS_UPDATE;
        r.is_update = !p->is_query;
        size_t n;
        uint8_t *any = flight_any_pack(&r.base, &n);
        if (!any) rc = err_nomem(err, "result");
        if (!rc) {
            flight_server *srv = fc->srv;
            pthread_mutex_lock(&srv->lock);
            p->next = srv->prepared;
            srv->prepared = p;
            pthread_mutex_unlock(&srv->lock);
            p = NULL;
            rc = send_result(fc, any, n, err);
        }
        free(any);
    }
    free(ptypes);
    flight_prepared_free(p);
    arrow_buf_reset(&dataset);
    arrow_buf_reset(&params);
    arrow_buf_reset(&hdr);
    return rc;
}

static int close_prepared(flight_call *fc, const flight_cmd *cmd, sqe_error *err) {
    const Arrow__Flight__Protocol__Sql__ActionClosePreparedStatementRequest *q = (const void *)cmd->msg;
    flight_server *srv = fc->srv;
    flight_prepared *found = NULL;
    pthread_mutex_lock(&srv->lock);
    for (flight_prepared **pp = &srv->prepared; *pp; pp = &(*pp)->next) {
        flight_prepared *p = *pp;
        if (strlen(p->handle) == q->prepared_statement_handle.len &&
            memcmp(p->handle, q->prepared_statement_handle.data, q->prepared_statement_handle.len) == 0 &&
            strcmp(p->session_key, fc->session_key) == 0) {
            *pp = p->next;
            found = p;
            break;
        }
    }
    pthread_mutex_unlock(&srv->lock);
    if (!found) return err_set(err, SQE_ERR_NOT_FOUND, "unknown prepared statement handle");
    flight_prepared_free(found);
    return SQE_OK;
}

static int cancel_flight_info(flight_call *fc, const ProtobufCBinaryData *body, sqe_error *err) {
    Arrow__Flight__Protocol__CancelFlightInfoRequest *rq =
        arrow__flight__protocol__cancel_flight_info_request__unpack(NULL, body->len, body->data);
    if (!rq) return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "malformed CancelFlightInfoRequest");
    int status = ARROW__FLIGHT__PROTOCOL__CANCEL_STATUS__CANCEL_STATUS_NOT_CANCELLABLE;
    flight_server *srv = fc->srv;
    for (size_t i = 0; rq->info && i < rq->info->n_endpoint; i++) {
        const Arrow__Flight__Protocol__FlightEndpoint *ep = rq->info->endpoint[i];
        if (!ep->ticket) continue;
        flight_cmd cmd;
        sqe_error e2;
        if (flight_cmd_decode(ep->ticket->ticket.data, ep->ticket->ticket.len, &cmd, &e2)) continue;
        if (cmd.kind == FCMD_TICKET_STATEMENT) {
            const Arrow__Flight__Protocol__Sql__TicketStatementQuery *q = (const void *)cmd.msg;
            pthread_mutex_lock(&srv->lock);
            for (flight_ticket **pp = &srv->tickets; *pp; pp = &(*pp)->next) {
                flight_ticket *t = *pp;
                if (strlen(t->handle) == q->statement_handle.len &&
                    memcmp(t->handle, q->statement_handle.data, q->statement_handle.len) == 0 &&
                    strcmp(t->session_key, fc->session_key) == 0) {
                    t->cancel = 1;
                    if (!t->in_use) {
                        *pp = t->next;
                        flight_ticket_free(srv, t);
                        status = ARROW__FLIGHT__PROTOCOL__CANCEL_STATUS__CANCEL_STATUS_CANCELLED;
                    } else {
                        status = ARROW__FLIGHT__PROTOCOL__CANCEL_STATUS__CANCEL_STATUS_CANCELLING;
                    }
                    break;
                }
            }
            pthread_mutex_unlock(&srv->lock);
        }
        flight_cmd_free(&cmd);
    }
    arrow__flight__protocol__cancel_flight_info_request__free_unpacked(rq, NULL);
    Arrow__Flight__Protocol__CancelFlightInfoResult r;
    arrow__flight__protocol__cancel_flight_info_result__init(&r);
    r.status = (Arrow__Flight__Protocol__CancelStatus)status;
    return send_raw_result(fc, &r.base, err);
}

#define SSO_ERR(name) ARROW__FLIGHT__PROTOCOL__SET_SESSION_OPTIONS_RESULT__ERROR_VALUE__##name
#define SOV(name) ARROW__FLIGHT__PROTOCOL__SESSION_OPTION_VALUE__OPTION_VALUE_##name

/* A session option value as the text a session property keeps (malloc'ed), or NULL with *bad
 * set: INVALID_VALUE for string lists, ERROR for out of memory. NULL with *bad = 0: unset. */
static char *option_text(const Arrow__Flight__Protocol__SessionOptionValue *v, int *bad) {
    *bad = 0;
    char num[64];
    char *out = NULL;
    switch (v ? (int)v->option_value_case : (int)SOV(_NOT_SET)) {
    case SOV(_NOT_SET): return NULL;
    case SOV(STRING_VALUE):
        /* as Trino's X-Trino-Session values: digits an integer, true/false a boolean */
        out = strdup(v->string_value ? v->string_value : "");
        break;
    case SOV(BOOL_VALUE): out = strdup(v->bool_value ? "true" : "false"); break;
    case SOV(INT64_VALUE):
        snprintf(num, sizeof num, "%lld", (long long)v->int64_value);
        out = strdup(num);
        break;
    case SOV(DOUBLE_VALUE):
        snprintf(num, sizeof num, "%.17g", v->double_value);
        out = strdup(num);
        break;
    default: *bad = SSO_ERR(INVALID_VALUE); return NULL;
    }
    if (!out) *bad = SSO_ERR(ERROR);
    return out;
}

/* Sets (value != NULL) or resets session property name: checked on a connection with the
 * session's state (sqe_conn_set_session_property), then recorded. Returns 0 or an ErrorValue. */
static int set_property(flight_call *fc, const char *name, const char *sql) {
    if (!srv_session_property_name_ok(name)) return SSO_ERR(INVALID_NAME);
    volatile int cancel = 0;
    sqe_conn *conn;
    sqe_error e;
    memset(&e, 0, sizeof e);
    if (flight_open_conn(fc, &conn, &cancel, &e) != SQE_OK) return SSO_ERR(ERROR);
    int bad = 0;
    if (sqe_conn_set_session_property(conn, name, sql, &e) != SQE_OK)
        bad = strstr(e.message, "does not exist") ? SSO_ERR(INVALID_NAME) : SSO_ERR(INVALID_VALUE);
    sqe_disconnect(conn);
    if (!bad && flight_session_put(fc->srv, fc->session_key, FLIGHT_SESSION_PROPERTIES, name, sql,
                                   &e) != SQE_OK)
        bad = SSO_ERR(ERROR);
    return bad;
}

static int set_session_options(flight_call *fc, const ProtobufCBinaryData *body, sqe_error *err) {
    Arrow__Flight__Protocol__SetSessionOptionsRequest *rq =
        arrow__flight__protocol__set_session_options_request__unpack(NULL, body->len, body->data);
    if (!rq) return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "malformed SetSessionOptionsRequest");
    size_t n = rq->n_session_options;
    Arrow__Flight__Protocol__SetSessionOptionsResult__ErrorsEntry *entries = calloc(n + 1, sizeof *entries);
    Arrow__Flight__Protocol__SetSessionOptionsResult__ErrorsEntry **eps = calloc(n + 1, sizeof *eps);
    Arrow__Flight__Protocol__SetSessionOptionsResult__Error *errs = calloc(n + 1, sizeof *errs);
    int rc = (!entries || !eps || !errs) ? err_nomem(err, "session options") : SQE_OK;
    size_t n_err = 0;
    bool changed = false;
    for (size_t i = 0; !rc && i < n; i++) {
        const Arrow__Flight__Protocol__SetSessionOptionsRequest__SessionOptionsEntry *e = rq->session_options[i];
        const char *key = e->key ? e->key : "";
        int bad = 0;
        bool is_cat = strcmp(key, "catalog") == 0, is_sch = strcmp(key, "schema") == 0;
        if (is_cat || is_sch) {
            const char *v = NULL;
            if (e->value && e->value->option_value_case == SOV(STRING_VALUE))
                v = e->value->string_value ? e->value->string_value : "";
            else if (!e->value || e->value->option_value_case == SOV(_NOT_SET))
                v = ""; /* unset: back to the default */
            else
                bad = SSO_ERR(INVALID_VALUE);
            if (!bad) {
                rc = flight_session_set(fc->srv, fc->session_key, is_cat ? v : NULL,
                                        is_sch ? v : NULL, err);
                changed = true;
            }
        } else {
            /* any other key is a session property, as SET SESSION takes it */
            char *sql = option_text(e->value, &bad);
            if (!bad) bad = set_property(fc, key, sql);
            if (!bad) changed = true;
            free(sql);
        }
        if (bad) {
            arrow__flight__protocol__set_session_options_result__error__init(&errs[n_err]);
            errs[n_err].value = (Arrow__Flight__Protocol__SetSessionOptionsResult__ErrorValue)bad;
            arrow__flight__protocol__set_session_options_result__errors_entry__init(&entries[n_err]);
            entries[n_err].key = (char *)key;
            entries[n_err].value = &errs[n_err];
            eps[n_err] = &entries[n_err];
            n_err++;
        }
    }
    if (changed) flight_session_save(fc);
    if (!rc) {
        Arrow__Flight__Protocol__SetSessionOptionsResult r;
        arrow__flight__protocol__set_session_options_result__init(&r);
        r.n_errors = n_err;
        r.errors = eps;
        rc = send_raw_result(fc, &r.base, err);
    }
    free(entries);
    free(eps);
    free(errs);
    arrow__flight__protocol__set_session_options_request__free_unpacked(rq, NULL);
    return rc;
}

/* A stored property value (text) as a session option value: integers and booleans typed, else
 * a string (a SQL string literal an earlier version saved is unquoted into buf when it fits). */
static void option_value(const char *sql, char *buf, size_t len,
                         Arrow__Flight__Protocol__SessionOptionValue *v) {
    arrow__flight__protocol__session_option_value__init(v);
    const char *p = sql[0] == '-' ? sql + 1 : sql;
    bool digits = *p && strlen(sql) < 19;
    for (const char *d = p; *d; d++)
        if (*d < '0' || *d > '9') digits = false;
    if (digits) {
        v->option_value_case = SOV(INT64_VALUE);
        v->int64_value = strtoll(sql, NULL, 10);
        return;
    }
    if (!strcasecmp(sql, "true") || !strcasecmp(sql, "false")) {
        v->option_value_case = SOV(BOOL_VALUE);
        v->bool_value = tolower((unsigned char)sql[0]) == 't';
        return;
    }
    v->option_value_case = SOV(STRING_VALUE);
    v->string_value = (char *)sql;
    size_t n = strlen(sql), k = 0;
    if (n < 2 || sql[0] != '\'' || sql[n - 1] != '\'' || n > len) return;
    for (size_t i = 1; i + 1 < n; i++) {
        if (sql[i] == '\'') {
            if (i + 2 >= n || sql[i + 1] != '\'') return; /* not one literal */
            i++;
        }
        buf[k++] = sql[i];
    }
    buf[k] = 0;
    v->string_value = buf;
}

static int get_session_options(flight_call *fc, sqe_error *err) {
    volatile int cancel = 0;
    sqe_conn *conn;
    SQE_TRY(flight_open_conn(fc, &conn, &cancel, err));
    srv_session_state st;
    int rc = flight_session_snapshot(fc->srv, fc->session_key, &st, err);
    if (rc) {
        sqe_disconnect(conn);
        return rc;
    }
    size_t n = 2 + st.n_properties;
    Arrow__Flight__Protocol__SessionOptionValue *v = calloc(n, sizeof *v);
    Arrow__Flight__Protocol__GetSessionOptionsResult__SessionOptionsEntry *e = calloc(n, sizeof *e);
    Arrow__Flight__Protocol__GetSessionOptionsResult__SessionOptionsEntry **ep = calloc(n, sizeof *ep);
    char (*bufs)[256] = calloc(n, sizeof *bufs);
    if (!v || !e || !ep || !bufs) rc = err_nomem(err, "session options");
    for (size_t i = 0; !rc && i < n; i++) {
        const char *key = i == 0 ? "catalog" : i == 1 ? "schema" : st.property_names[i - 2];
        if (i < 2) {
            arrow__flight__protocol__session_option_value__init(&v[i]);
            v[i].option_value_case = SOV(STRING_VALUE);
            v[i].string_value = (char *)(i == 0 ? sqe_conn_catalog(conn) : sqe_conn_schema(conn));
        } else {
            option_value(st.property_values[i - 2], bufs[i], sizeof bufs[i], &v[i]);
        }
        arrow__flight__protocol__get_session_options_result__session_options_entry__init(&e[i]);
        e[i].key = (char *)key;
        e[i].value = &v[i];
        ep[i] = &e[i];
    }
    if (!rc) {
        Arrow__Flight__Protocol__GetSessionOptionsResult r;
        arrow__flight__protocol__get_session_options_result__init(&r);
        r.n_session_options = n;
        r.session_options = ep;
        rc = send_raw_result(fc, &r.base, err);
    }
    free(v);
    free(e);
    free(ep);
    free(bufs);
    srv_session_state_clear(&st);
    sqe_disconnect(conn);
    return rc;
}

static int close_session(flight_call *fc, sqe_error *err) {
    const srv_hooks *h = &fc->srv->opts.hooks;
    if (h->session_close && strncmp(fc->session_key, "principal:", 10) != 0)
        h->session_close(h->ud, fc->session_key);
    flight_session_drop(fc->srv, fc->session_key);
    Arrow__Flight__Protocol__CloseSessionResult r;
    arrow__flight__protocol__close_session_result__init(&r);
    r.status = ARROW__FLIGHT__PROTOCOL__CLOSE_SESSION_RESULT__STATUS__CLOSED;
    return send_raw_result(fc, &r.base, err);
}

int flight_do_action(flight_call *fc, const uint8_t *req, size_t len, sqe_error *err) {
    Arrow__Flight__Protocol__Action *a = arrow__flight__protocol__action__unpack(NULL, len, req);
    if (!a) return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "malformed Action");
    const char *type = a->type ? a->type : "";
    int rc;
    if (strcmp(type, "CreatePreparedStatement") == 0 || strcmp(type, "ClosePreparedStatement") == 0) {
        flight_cmd cmd;
        rc = flight_cmd_decode(a->body.data, a->body.len, &cmd, err);
        if (!rc) {
            bool create = type[0] == 'C' && type[1] == 'r';
            flight_cmd_kind want = create ? FCMD_CREATE_PREPARED : FCMD_CLOSE_PREPARED;
            if (cmd.kind != want)
                rc = err_set(err, SQE_ERR_INVALID_ARGUMENTS, "action %s got a %s body", type,
                             flight_cmd_name(cmd.kind));
            else if (create)
                rc = create_prepared(fc, &cmd, err);
            else
                rc = close_prepared(fc, &cmd, err);
            flight_cmd_free(&cmd);
        }
    } else if (strcmp(type, "CancelFlightInfo") == 0) {
        rc = cancel_flight_info(fc, &a->body, err);
    } else if (strcmp(type, "SetSessionOptions") == 0) {
        rc = set_session_options(fc, &a->body, err);
    } else if (strcmp(type, "GetSessionOptions") == 0) {
        rc = get_session_options(fc, err);
    } else if (strcmp(type, "CloseSession") == 0) {
        rc = close_session(fc, err);
    } else {
        rc = err_set(err, SQE_ERR_NOT_SUPPORTED, "action '%.100s' is not supported", type);
    }
    arrow__flight__protocol__action__free_unpacked(a, NULL);
    return rc;
}

int flight_list_actions(flight_call *fc, sqe_error *err) {
    static const char *const acts[][2] = {
        {"CreatePreparedStatement", "Creates a reusable prepared statement"},
        {"ClosePreparedStatement", "Closes a prepared statement"},
        {"CancelFlightInfo", "Cancels a query started by GetFlightInfo"},
        {"SetSessionOptions", "Sets session options (catalog, schema, session properties)"},
        {"GetSessionOptions", "Gets the session options"},
        {"CloseSession", "Closes the session"},
    };
    for (size_t i = 0; i < sizeof acts / sizeof acts[0]; i++) {
        Arrow__Flight__Protocol__ActionType t;
        arrow__flight__protocol__action_type__init(&t);
        t.type = (char *)acts[i][0];
        t.description = (char *)acts[i][1];
        SQE_TRY(flight_call_send_msg(fc, &t.base, err));
    }
    return SQE_OK;
}
