/*
 * flight_sql.c: Flight SQL queries: GetFlightInfo, GetSchema and DoGet for statements, prepared
 * statements, metadata commands and SqlInfo; result streaming as Arrow IPC FlightData.
 *
 * INTERFACE: flight_get_flight_info, flight_get_schema, flight_do_get, flight_stream_result,
 *            flight_result_schema, flight_open_conn (flight_int.h); flight_run_statement,
 *            flight_prepared_copy, flight_statement_returns_rows (flight_int.h, used by actions
 *            and DoPut).
 * NOTES: each statement runs on a new sqe_conn given the session's state (flight_session.c).
 * GetFlightInfo runs the statement (so DDL sent as a query runs exactly once) and parks
 * the open result as a ticket (Any(TicketStatementQuery{handle})); DoGet streams it chunk by
 * chunk, each FlightData sent only after the previous one was taken by gRPC, and frees it.
 * Metadata tickets are the command itself: DoGet recomputes them. Record batches are split so a
 * FlightData stays under opts.max_message_bytes.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "engine/engine_api.h"
#include "server/flight/flight_int.h"
#include "sqe/sqe_values.h"

/* ---- connections and statements ---------------------------------------------------------- */

int flight_open_conn(flight_call *fc, sqe_conn **out, volatile int *cancel, sqe_error *err) {
    *out = NULL;
    char *cat = NULL, *sch = NULL;
    SQE_TRY(flight_session_touch(fc->srv, fc->session_key, fc->principal->user, &cat, &sch, err));
    free(cat);
    free(sch);
    sqe_conn *conn;
    SQE_TRY(sqe_connect(fc->srv->db, &conn, err));
    int rc = flight_session_restore(fc, conn, err);
    if (!rc) sqe_conn_set_principal(conn, fc->principal);
    if (rc) {
        sqe_disconnect(conn);
        return rc;
    }
    sqe_conn_set_cancel_flag(conn, cancel);
    sqe_conn_set_deadline(conn, fc->deadline_ns, fc->time_limit_ms);
    *out = conn;
    return SQE_OK;
}

bool flight_statement_returns_rows(sqe_conn *conn, const char *sql) {
    int rows = 0;
    return sqe_statement_classify(conn, sql, NULL, &rows, NULL) == SQE_OK && rows;
}

/* Binds row `row` of p's parameters to stmt. */
static int bind_params(sqe_stmt *stmt, const flight_prepared *p, uint32_t row, sqe_error *err) {
    int n = sqe_stmt_param_count(stmt);
    if (p->n_rows == 0) {
        if (n > 0)
            return err_set(err, SQE_ERR_INVALID_PARAMETER_USAGE,
                           "the statement has %d parameters but none were bound", n);
        return SQE_OK;
    }
    if (n != p->n_params)
        return err_set(err, SQE_ERR_INVALID_PARAMETER_USAGE,
                       "the statement has %d parameters but %d were bound", n, p->n_params);
    for (int i = 0; i < n; i++) {
        const flight_param *v = &p->params[(size_t)row * (size_t)n + (size_t)i];
        int rc;
        switch (v->kind) {
        case 1: rc = sqe_stmt_bind_int64(stmt, i + 1, v->i, err); break;
        case 2: rc = sqe_stmt_bind_double(stmt, i + 1, v->d, err); break;
        case 3: rc = sqe_stmt_bind_text(stmt, i + 1, v->text, err); break;
        default: rc = sqe_stmt_bind_null(stmt, i + 1, err); break;
        }
        SQE_TRY(rc);
    }
    return SQE_OK;
}

/* Looks up a prepared statement of this session and copies what running it needs. */
int flight_prepared_copy(flight_call *fc, const uint8_t *handle, size_t len,
                         flight_prepared **out, sqe_error *err) {
    *out = NULL;
    flight_server *srv = fc->srv;
    pthread_mutex_lock(&srv->lock);
    flight_prepared *p = srv->prepared;
    while (p && !(strlen(p->handle) == len && memcmp(p->handle, handle, len) == 0 &&
                  strcmp(p->session_key, fc->session_key) == 0))
        p = p->next;
    int rc = SQE_OK;
    if (!p) {
        rc = err_set(err, SQE_ERR_NOT_FOUND, "unknown prepared statement handle");
    } else {
        flight_prepared *c = calloc(1, sizeof *c);
        size_t nv = (size_t)p->n_rows * (size_t)p->n_params;
        if (c) {
            memcpy(c->handle, p->handle, sizeof c->handle);
            c->sql = strdup(p->sql);
            c->session_key = strdup(p->session_key);
            c->n_params = p->n_params;
            c->is_query = p->is_query;
            c->params = calloc(nv + 1, sizeof *c->params);
            if (c->params) c->n_rows = p->n_rows;
        }
        bool ok = c && c->sql && c->session_key && c->params;
        for (size_t i = 0; ok && i < nv; i++) {
            c->params[i] = p->params[i];
            c->params[i].text = NULL;
            if (p->params[i].text && !(c->params[i].text = strdup(p->params[i].text))) ok = false;
        }
        if (!ok) {
            flight_prepared_free(c);
            rc = err_nomem(err, "prepared statement");
        } else {
            *out = c;
        }
    }
    pthread_mutex_unlock(&srv->lock);
    return rc;
}

/* Runs sql (or prepared statement p, with its parameter row `row`) on a new connection of the
 * call's session, and records in the session what it changed (USE, SET SESSION, PREPARE...).
 * On success *conn, *stmt (may be NULL) and *res are the caller's. */
int flight_run_statement(flight_call *fc, const char *sql, const flight_prepared *p,
                         uint32_t row, volatile int *cancel, sqe_conn **conn, sqe_stmt **stmt,
                         sqe_result **res, sqe_error *err) {
    *conn = NULL;
    *stmt = NULL;
    *res = NULL;
    SQE_TRY(flight_open_conn(fc, conn, cancel, err));
    int rc;
    if (p && p->n_rows == 0) {
        /* nothing bound: run the text as it is (a parameter it needs fails as in SQL; the '?'
         * of PREPARE x FROM ... ? belong to x, not to this statement) */
        rc = sqe_query(*conn, p->sql, res, err);
    } else if (p) {
        rc = sqe_prepare(*conn, p->sql, stmt, err);
        if (!rc) rc = bind_params(*stmt, p, row, err);
        if (!rc) rc = sqe_stmt_execute(*stmt, res, err);
    } else {
        rc = sqe_query(*conn, sql, res, err);
    }
    if (!rc) rc = flight_session_note(fc, *res, err);
    if (rc) {
        if (*res) sqe_result_destroy(*res);
        if (*stmt) sqe_stmt_destroy(*stmt);
        sqe_disconnect(*conn);
        *conn = NULL;
        *stmt = NULL;
        *res = NULL;
    }
    return rc;
}

/* ---- Arrow encoding ------------------------------------------------------------------------ */

int flight_result_schema(const sqe_result *res, const bool *not_null, bool framed,
                         arrow_buf *out, sqe_error *err) {
    int n = sqe_result_column_count(res);
    arrow_column *cols = calloc((size_t)n + 1, sizeof *cols);
    if (!cols) return err_nomem(err, "schema");
    for (int i = 0; i < n; i++) {
        cols[i].name = sqe_result_column_name(res, i);
        cols[i].type = *sqe_result_column_sqe_type(res, i);
        cols[i].nullable = !(not_null && not_null[i]);
    }
    arrow_schema s;
    memset(&s, 0, sizeof s);
    s.n_cols = (uint32_t)n;
    s.cols = cols;
    arrow_buf hdr;
    arrow_buf_init(&hdr);
    int rc = arrow_schema_encode(&s, &hdr, err);
    if (!rc) {
        if (framed) rc = arrow_message_frame(hdr.data, hdr.len, NULL, 0, out, err);
        else rc = arrow_buf_append(out, hdr.data, hdr.len, err);
    }
    arrow_buf_reset(&hdr);
    free(cols);
    return rc;
}

static size_t varint_put(uint8_t *p, uint64_t v) {
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

/* Sends FlightData{data_header = header, data_body = body}, encoded by hand (no copy through
 * protobuf-c). */
int flight_send_data(flight_call *fc, const uint8_t *header, size_t hlen, const uint8_t *body,
                     size_t blen, sqe_error *err) {
    size_t cap = hlen + blen + 32;
    grpc_slice s = grpc_slice_malloc(cap);
    uint8_t *p = GRPC_SLICE_START_PTR(s);
    size_t n = 0;
    p[n++] = 0x12;
    n += varint_put(p + n, hlen);
    if (hlen) memcpy(p + n, header, hlen);
    n += hlen;
    if (blen) {
        p[n++] = 0xC2;
        p[n++] = 0x3E;
        n += varint_put(p + n, blen);
        memcpy(p + n, body, blen);
        n += blen;
    }
    grpc_slice part = grpc_slice_sub(s, 0, n);
    grpc_slice_unref(s);
    return flight_call_send_slice(fc, part, err);
}

static int send_chunk(flight_call *fc, const vec_chunk *vc, sqe_error *err) {
    size_t limit = fc->srv->opts.max_message_bytes - 1024;
    arrow_buf hdr, body;
    arrow_buf_init(&hdr);
    arrow_buf_init(&body);
    uint32_t start = 0, total = vc->count;
    uint32_t n = total;
    int rc = SQE_OK;
    while (!rc && start < total) {
        if (n > total - start) n = total - start;
        hdr.len = body.len = 0;
        rc = arrow_batch_encode(vc, start, n, &hdr, &body, err);
        if (rc) break;
        size_t size = hdr.len + body.len;
        if (size > limit && n > 1) {
            double f = (double)limit / (double)size * 0.9;
            uint32_t m = (uint32_t)((double)n * f);
            n = m ? m : 1;
            continue;
        }
        rc = flight_send_data(fc, hdr.data, hdr.len, body.data, body.len, err);
        start += n;
    }
    arrow_buf_reset(&hdr);
    arrow_buf_reset(&body);
    return rc;
}

int flight_stream_result(flight_call *fc, sqe_result *res, const bool *not_null,
                         sqe_error *err) {
    arrow_buf hdr;
    arrow_buf_init(&hdr);
    int rc = flight_result_schema(res, not_null, false, &hdr, err);
    if (!rc) rc = flight_send_data(fc, hdr.data, hdr.len, NULL, 0, err);
    arrow_buf_reset(&hdr);
    while (!rc) {
        if (flight_call_poll_cancel(fc)) {
            rc = err_set(err, SQE_ERR_USER_CANCELED, "the client canceled the query");
            break;
        }
        const sqe_chunk *ch;
        rc = sqe_result_next(res, &ch, err);
        if (rc || !ch) break;
        const vec_chunk *vc = ch->chunk;
        if (vc->count == 0) continue;
        rc = send_chunk(fc, vc, err);
    }
    return rc;
}

/* ---- FlightInfo ---------------------------------------------------------------------------- */

static int send_flight_info(flight_call *fc, const Arrow__Flight__Protocol__FlightDescriptor *desc,
                            const uint8_t *schema, size_t schema_len, const uint8_t *ticket,
                            size_t ticket_len, sqe_error *err) {
    Arrow__Flight__Protocol__FlightInfo info;
    arrow__flight__protocol__flight_info__init(&info);
    Arrow__Flight__Protocol__FlightEndpoint ep;
    arrow__flight__protocol__flight_endpoint__init(&ep);
    Arrow__Flight__Protocol__Ticket t;
    arrow__flight__protocol__ticket__init(&t);
    t.ticket.data = (uint8_t *)ticket;
    t.ticket.len = ticket_len;
    ep.ticket = &t;
    Arrow__Flight__Protocol__FlightEndpoint *eps[1] = {&ep};
    info.schema.data = (uint8_t *)schema;
    info.schema.len = schema_len;
    info.flight_descriptor = (Arrow__Flight__Protocol__FlightDescriptor *)desc;
    info.n_endpoint = 1;
    info.endpoint = eps;
    info.total_records = -1;
    info.total_bytes = -1;
    return flight_call_send_msg(fc, &info.base, err);
}

static bool is_metadata(flight_cmd_kind k) {
    return k == FCMD_CATALOGS || k == FCMD_DB_SCHEMAS || k == FCMD_TABLES ||
           k == FCMD_TABLE_TYPES || k == FCMD_XDBC_TYPE_INFO || k == FCMD_PRIMARY_KEYS ||
           k == FCMD_EXPORTED_KEYS || k == FCMD_IMPORTED_KEYS || k == FCMD_CROSS_REFERENCE;
}

static int decode_descriptor(const uint8_t *req, size_t len,
                             Arrow__Flight__Protocol__FlightDescriptor **desc, flight_cmd *cmd,
                             sqe_error *err) {
    *desc = arrow__flight__protocol__flight_descriptor__unpack(NULL, len, req);
    if (!*desc) return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "malformed FlightDescriptor");
    if ((*desc)->type != ARROW__FLIGHT__PROTOCOL__FLIGHT_DESCRIPTOR__DESCRIPTOR_TYPE__CMD) {
        arrow__flight__protocol__flight_descriptor__free_unpacked(*desc, NULL);
        *desc = NULL;
        return err_set(err, SQE_ERR_NOT_SUPPORTED,
                       "only command descriptors (Flight SQL) are supported");
    }
    int rc = flight_cmd_decode((*desc)->cmd.data, (*desc)->cmd.len, cmd, err);
    if (rc) {
        arrow__flight__protocol__flight_descriptor__free_unpacked(*desc, NULL);
        *desc = NULL;
    }
    return rc;
}

/* Runs a query into a new ticket (linked into the server) and returns its encapsulated schema
 * and its ticket bytes. */
static int query_to_ticket(flight_call *fc, const char *sql, const flight_prepared *p,
                           arrow_buf *schema, uint8_t **ticket, size_t *ticket_len,
                           sqe_error *err) {
    flight_server *srv = fc->srv;
    flight_ticket *t = calloc(1, sizeof *t);
    if (!t) return err_nomem(err, "ticket");
    flight_random_handle(t->handle);
    t->session_key = strdup(fc->session_key);
    t->principal = strdup(fc->principal->user);
    t->created_ms = flight_now_ms();
    int rc = (!t->session_key || !t->principal) ? err_nomem(err, "ticket") : SQE_OK;
    if (!rc) rc = flight_stmt_begin(fc, strlen(p ? p->sql : sql), err);
    if (!rc) t->admitted = true;
    if (!rc) rc = flight_run_statement(fc, sql, p, 0, &t->cancel, &t->conn, &t->stmt, &t->res, err);
    /* A prepared update with several parameter rows runs the remaining rows now. */
    for (uint32_t r = 1; !rc && p && p->n_rows > 1 && r < p->n_rows; r++) {
        sqe_conn *c2;
        sqe_stmt *s2;
        sqe_result *r2;
        rc = flight_run_statement(fc, sql, p, r, &t->cancel, &c2, &s2, &r2, err);
        if (!rc) {
            const sqe_chunk *ch;
            while (!(rc = sqe_result_next(r2, &ch, err)) && ch) {
            }
            sqe_result_destroy(r2);
            sqe_stmt_destroy(s2);
            sqe_disconnect(c2);
        }
    }
    if (!rc) rc = flight_result_schema(t->res, NULL, true, schema, err);
    if (!rc) {
        Arrow__Flight__Protocol__Sql__TicketStatementQuery tq;
        arrow__flight__protocol__sql__ticket_statement_query__init(&tq);
        tq.statement_handle.data = (uint8_t *)t->handle;
        tq.statement_handle.len = strlen(t->handle);
        *ticket = flight_any_pack(&tq.base, ticket_len);
        if (!*ticket) rc = err_nomem(err, "ticket");
    }
    pthread_mutex_lock(&srv->lock);
    if (rc) {
        flight_ticket_free(srv, t);
    } else {
        flight_tickets_expire_locked(srv);
        t->next = srv->tickets;
        srv->tickets = t;
    }
    pthread_mutex_unlock(&srv->lock);
    return rc;
}

/* The schema of GetSqlInfo and of the metadata commands (GetTables, ...), framed as an IPC
 * message: it does not depend on running the client's SQL. */
static int catalog_command_schema(flight_call *fc, const flight_cmd *cmd, arrow_buf *schema,
                                  sqe_error *err) {
    if (cmd->kind == FCMD_SQL_INFO) {
        arrow_buf h, bh, bb;
        arrow_buf_init(&h);
        arrow_buf_init(&bh);
        arrow_buf_init(&bb);
        int rc = flight_sqlinfo_encode(NULL, 0, &h, &bh, &bb, err);
        if (!rc) rc = arrow_message_frame(h.data, h.len, NULL, 0, schema, err);
        arrow_buf_reset(&h);
        arrow_buf_reset(&bh);
        arrow_buf_reset(&bb);
        return rc;
    }
    sqe_result *res;
    const bool *nn;
    SQE_TRY(flight_meta_result(fc, cmd, &res, &nn, err));
    int rc = flight_result_schema(res, nn, true, schema, err);
    sqe_result_destroy(res);
    return rc;
}

int flight_get_flight_info(flight_call *fc, const uint8_t *req, size_t len, sqe_error *err) {
    Arrow__Flight__Protocol__FlightDescriptor *desc;
    flight_cmd cmd;
    SQE_TRY(decode_descriptor(req, len, &desc, &cmd, err));
    arrow_buf schema;
    arrow_buf_init(&schema);
    uint8_t *ticket = NULL;
    size_t ticket_len = 0;
    int rc = SQE_OK;
    if (cmd.kind == FCMD_STATEMENT_QUERY) {
        const Arrow__Flight__Protocol__Sql__CommandStatementQuery *q = (const void *)cmd.msg;
        rc = query_to_ticket(fc, q->query ? q->query : "", NULL, &schema, &ticket, &ticket_len, err);
    } else if (cmd.kind == FCMD_PREPARED_QUERY) {
        const Arrow__Flight__Protocol__Sql__CommandPreparedStatementQuery *q = (const void *)cmd.msg;
        flight_prepared *p;
        rc = flight_prepared_copy(fc, q->prepared_statement_handle.data,
                                  q->prepared_statement_handle.len, &p, err);
        if (!rc) rc = query_to_ticket(fc, NULL, p, &schema, &ticket, &ticket_len, err);
        flight_prepared_free(p);
    } else if (cmd.kind == FCMD_SQL_INFO || is_metadata(cmd.kind)) {
        rc = catalog_command_schema(fc, &cmd, &schema, err);
    } else {
        rc = err_set(err, SQE_ERR_NOT_SUPPORTED, "%s is not valid for GetFlightInfo",
                     flight_cmd_name(cmd.kind));
    }
    if (!rc) {
        if (ticket)
            rc = send_flight_info(fc, desc, schema.data, schema.len, ticket, ticket_len, err);
        else /* metadata: the command is the ticket */
            rc = send_flight_info(fc, desc, schema.data, schema.len, desc->cmd.data,
                                  desc->cmd.len, err);
    }
    free(ticket);
    arrow_buf_reset(&schema);
    flight_cmd_free(&cmd);
    arrow__flight__protocol__flight_descriptor__free_unpacked(desc, NULL);
    return rc;
}

/* Schema of a statement without running anything that writes: queries are planned and the
 * result dropped before its first chunk; other statements have an empty schema. */
static int statement_schema(flight_call *fc, const char *sql, const flight_prepared *p,
                            arrow_buf *schema, sqe_error *err) {
    const char *text = p ? p->sql : sql;
    volatile int cancel = 0;
    sqe_conn *conn;
    SQE_TRY(flight_open_conn(fc, &conn, &cancel, err));
    bool rows = flight_statement_returns_rows(conn, text);
    sqe_disconnect(conn);
    if (!rows) {
        arrow_schema s;
        memset(&s, 0, sizeof s);
        arrow_buf h;
        arrow_buf_init(&h);
        int rc = arrow_schema_encode(&s, &h, err);
        if (!rc) rc = arrow_message_frame(h.data, h.len, NULL, 0, schema, err);
        arrow_buf_reset(&h);
        return rc;
    }
    sqe_stmt *stmt;
    sqe_result *res;
    SQE_TRY(flight_run_statement(fc, sql, p, 0, &cancel, &conn, &stmt, &res, err));
    int rc = flight_result_schema(res, NULL, true, schema, err);
    sqe_result_destroy(res);
    if (stmt) sqe_stmt_destroy(stmt);
    sqe_disconnect(conn);
    return rc;
}

int flight_statement_schema(flight_call *fc, const char *sql, const flight_prepared *p,
                            arrow_buf *schema, sqe_error *err) {
    return statement_schema(fc, sql, p, schema, err);
}

int flight_get_schema(flight_call *fc, const uint8_t *req, size_t len, sqe_error *err) {
    Arrow__Flight__Protocol__FlightDescriptor *desc;
    flight_cmd cmd;
    SQE_TRY(decode_descriptor(req, len, &desc, &cmd, err));
    arrow_buf schema;
    arrow_buf_init(&schema);
    int rc = SQE_OK;
    if (cmd.kind == FCMD_STATEMENT_QUERY) {
        const Arrow__Flight__Protocol__Sql__CommandStatementQuery *q = (const void *)cmd.msg;
        rc = statement_schema(fc, q->query ? q->query : "", NULL, &schema, err);
    } else if (cmd.kind == FCMD_PREPARED_QUERY) {
        const Arrow__Flight__Protocol__Sql__CommandPreparedStatementQuery *q = (const void *)cmd.msg;
        flight_prepared *p;
        rc = flight_prepared_copy(fc, q->prepared_statement_handle.data,
                                  q->prepared_statement_handle.len, &p, err);
        if (!rc) rc = statement_schema(fc, NULL, p, &schema, err);
        flight_prepared_free(p);
    } else if (cmd.kind == FCMD_SQL_INFO || is_metadata(cmd.kind)) {
        rc = catalog_command_schema(fc, &cmd, &schema, err);
    } else {
        rc = err_set(err, SQE_ERR_NOT_SUPPORTED, "%s is not valid for GetSchema",
                     flight_cmd_name(cmd.kind));
    }
    if (!rc) {
        Arrow__Flight__Protocol__SchemaResult sr;
        arrow__flight__protocol__schema_result__init(&sr);
        sr.schema.data = schema.data;
        sr.schema.len = schema.len;
        rc = flight_call_send_msg(fc, &sr.base, err);
    }
    arrow_buf_reset(&schema);
    flight_cmd_free(&cmd);
    arrow__flight__protocol__flight_descriptor__free_unpacked(desc, NULL);
    return rc;
}

/* ---- DoGet ------------------------------------------------------------------------------- */

static int do_get_ticket(flight_call *fc, const ProtobufCBinaryData *handle, sqe_error *err) {
    flight_server *srv = fc->srv;
    pthread_mutex_lock(&srv->lock);
    flight_ticket **pp = &srv->tickets;
    while (*pp && !(strlen((*pp)->handle) == handle->len &&
                    memcmp((*pp)->handle, handle->data, handle->len) == 0 &&
                    strcmp((*pp)->session_key, fc->session_key) == 0))
        pp = &(*pp)->next;
    flight_ticket *t = *pp;
    bool busy = t && t->in_use;
    if (t && !busy) t->in_use = true;
    pthread_mutex_unlock(&srv->lock);
    if (!t) return err_set(err, SQE_ERR_NOT_FOUND, "unknown or expired ticket");
    if (busy) return err_set(err, SQE_ERR_GENERIC_USER_ERROR, "the ticket is being fetched already");
    fc->cancel_target = &t->cancel;
    /* the result may reach the catalog while it streams: as the user who made it (t->conn
     * holds that principal, and every table version it loaded keeps it too) */
    int rc = t->cancel ? err_set(err, SQE_ERR_USER_CANCELED, "the query was canceled")
                       : flight_stream_result(fc, t->res, NULL, err);
    fc->cancel_target = NULL;
    pthread_mutex_lock(&srv->lock);
    for (pp = &srv->tickets; *pp; pp = &(*pp)->next) {
        if (*pp == t) {
            *pp = t->next;
            break;
        }
    }
    flight_ticket_free(srv, t);
    pthread_mutex_unlock(&srv->lock);
    return rc;
}

int flight_do_get(flight_call *fc, const uint8_t *req, size_t len, sqe_error *err) {
    Arrow__Flight__Protocol__Ticket *tk = arrow__flight__protocol__ticket__unpack(NULL, len, req);
    if (!tk) return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "malformed Ticket");
    flight_cmd cmd;
    int rc = flight_cmd_decode(tk->ticket.data, tk->ticket.len, &cmd, err);
    arrow__flight__protocol__ticket__free_unpacked(tk, NULL);
    SQE_TRY(rc);
    if (cmd.kind == FCMD_TICKET_STATEMENT) {
        const Arrow__Flight__Protocol__Sql__TicketStatementQuery *q = (const void *)cmd.msg;
        rc = do_get_ticket(fc, &q->statement_handle, err);
    } else if (cmd.kind == FCMD_SQL_INFO) {
        const Arrow__Flight__Protocol__Sql__CommandGetSqlInfo *q = (const void *)cmd.msg;
        arrow_buf h, bh, bb;
        arrow_buf_init(&h);
        arrow_buf_init(&bh);
        arrow_buf_init(&bb);
        rc = flight_sqlinfo_encode(q->info, q->n_info, &h, &bh, &bb, err);
        if (!rc) rc = flight_send_data(fc, h.data, h.len, NULL, 0, err);
        if (!rc) rc = flight_send_data(fc, bh.data, bh.len, bb.data, bb.len, err);
        arrow_buf_reset(&h);
        arrow_buf_reset(&bh);
        arrow_buf_reset(&bb);
    } else if (is_metadata(cmd.kind)) {
        sqe_result *res;
        const bool *nn;
        rc = flight_meta_result(fc, &cmd, &res, &nn, err);
        if (!rc) {
            rc = flight_stream_result(fc, res, nn, err);
            sqe_result_destroy(res);
        }
    } else {
        rc = err_set(err, SQE_ERR_NOT_SUPPORTED, "%s is not a valid ticket",
                     flight_cmd_name(cmd.kind));
    }
    flight_cmd_free(&cmd);
    return rc;
}
