/*
 * slt_conn_flight.c: the "flight" connector: statements over Arrow Flight SQL (gRPC).
 *
 * Per test file the connector opens a fresh database (slt_db_open, as "embedded" does), starts
 * the Flight SQL server in-process on it (any free loopback port, no authentication) and talks to
 * it as a Flight SQL client does, on the gRPC C core client API with protobuf-c messages:
 *   - statements that may return rows (SELECT, WITH, VALUES, SHOW, DESCRIBE, EXPLAIN, TABLE,
 *     CALL, EXECUTE, "(")
 *     go as CommandStatementQuery through GetFlightInfo, then DoGet of every endpoint's ticket;
 *     the FlightData stream (Schema message, then RecordBatches) is decoded by our Arrow IPC
 *     decoder (arrow_ipc.h) into vec_chunks and rendered with vec_format_value, the text form
 *     "embedded" uses, so differences come only from the protocol's type mapping;
 *   - everything else goes as CommandStatementUpdate through DoPut (DoPutUpdateResult).
 * The server keeps the session (USE, SET SESSION, PREPARE ...) between statements, so the
 * client sends nothing but the statements.
 * Errors keep their SQLSTATE: the x-sqe-sqlstate trailer (else the "(SQLSTATE xxxxx)" suffix of
 * the status message, which is removed from the message), and their position: the
 * x-sqe-error-position trailer ("line:column").
 *
 * INTERFACE: slt_conn_flight (slt.h).
 * NOTES: Column types come from the Arrow schema mapped
 * back to SQE types (varchar lengths, char and timestamp-with-zone names are not carried).
 * Calls have a 15 minute deadline; a transport failure fails the statement with SQLSTATE 08006.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/support/time.h>
#include <protobuf-c/protobuf-c.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/err.h"
#include "common/strbuf.h"
#include "flight.pb-c.h"
#include "flight_sql.pb-c.h"
#include "format/arrow/arrow_ipc.h"
#include "google/protobuf/any.pb-c.h"
#include "server/flight/flight_server.h"
#include "slt.h"
#include "vec/vec_format.h"

#define METHOD(m) "/arrow.flight.protocol.FlightService/" m
#define ANY_PREFIX "type.googleapis.com/arrow.flight.protocol.sql."
#define CALL_DEADLINE_S 900

typedef struct flight_conn {
    sqe_db *db;
    flight_server *srv;
    grpc_channel *channel;
    grpc_completion_queue *cq;
    int grpc_up;
} flight_conn;

/* ---- gRPC calls ------------------------------------------------------------------------------ */

/* Called with each response message (serialized bytes); returns 0 to go on, -1 to stop (r set). */
typedef int (*on_message_fn)(void *ud, const uint8_t *data, size_t len, slt_result *r);

static grpc_byte_buffer *bytes_to_bb(const uint8_t *data, size_t len) {
    grpc_slice s = grpc_slice_from_copied_buffer((const char *)data, len);
    grpc_byte_buffer *bb = grpc_raw_byte_buffer_create(&s, 1);
    grpc_slice_unref(s);
    return bb;
}

static grpc_byte_buffer *pack_bb(const ProtobufCMessage *m) {
    size_t n = protobuf_c_message_get_packed_size(m);
    uint8_t *buf = malloc(n ? n : 1);
    if (!buf) return NULL;
    protobuf_c_message_pack(m, buf);
    grpc_byte_buffer *bb = bytes_to_bb(buf, n);
    free(buf);
    return bb;
}

/* Runs one batch of ops and waits for it; returns its success flag. */
static int batch(flight_conn *fc, grpc_call *call, grpc_op *ops, size_t n, void *tag) {
    if (grpc_call_start_batch(call, ops, n, tag, NULL) != GRPC_CALL_OK) return 0;
    gpr_timespec deadline = gpr_time_add(gpr_now(GPR_CLOCK_REALTIME),
                                         gpr_time_from_seconds(CALL_DEADLINE_S + 60, GPR_TIMESPAN));
    grpc_event ev = grpc_completion_queue_pluck(fc->cq, tag, deadline, NULL);
    return ev.type == GRPC_OP_COMPLETE && ev.success;
}

/* Turns a failed status into r's error: message without the "(SQLSTATE xxxxx)" suffix, the
 * SQLSTATE from the trailer or that suffix. */
static void status_to_error(grpc_status_code status, grpc_slice details,
                            const grpc_metadata_array *trailers, slt_result *r) {
    size_t len = GRPC_SLICE_LENGTH(details);
    char *msg = strndup((const char *)GRPC_SLICE_START_PTR(details), len);
    char state[6] = "", pos[32] = "";
    for (size_t i = 0; i < trailers->count; i++) {
        const grpc_metadata *m = &trailers->metadata[i];
        size_t vl = GRPC_SLICE_LENGTH(m->value);
        if (grpc_slice_str_cmp(m->key, "x-sqe-sqlstate") == 0 && vl == 5)
            memcpy(state, GRPC_SLICE_START_PTR(m->value), 5);
        else if (grpc_slice_str_cmp(m->key, "x-sqe-error-position") == 0 && vl < sizeof pos)
            memcpy(pos, GRPC_SLICE_START_PTR(m->value), vl);
    }
    if (msg) {
        char *suffix = strstr(msg, " (SQLSTATE ");
        if (suffix && strlen(suffix) == 17 && suffix[16] == ')') {
            if (!state[0]) memcpy(state, suffix + 11, 5);
            *suffix = '\0';
        }
    }
    if (!state[0]) snprintf(state, sizeof state, "%s", status == GRPC_STATUS_UNAVAILABLE ? "08006" : "XX000");
    slt_result_fail(r, state, "%s", msg && msg[0] ? msg : "gRPC call failed");
    if (!msg || !msg[0]) snprintf(r->err.message, sizeof r->err.message, "gRPC status %d", (int)status);
    int line = 0, column = 0;
    if (pos[0] && sscanf(pos, "%d:%d", &line, &column) == 2 && line > 0 && column > 0) {
        r->err.line = line;
        r->err.column = column;
    }
    free(msg);
}

/* Calls method with the request messages reqs[0..n_req) and hands every response message to
 * on_message. Returns 0, or -1 with r failed (the call's status, a transport failure, or what
 * on_message reported). reqs are consumed. */
static int rpc(flight_conn *fc, const char *method, grpc_byte_buffer **reqs, size_t n_req,
               on_message_fn on_message, void *ud, slt_result *r) {
    grpc_slice m = grpc_slice_from_static_string(method);
    gpr_timespec deadline = gpr_time_add(gpr_now(GPR_CLOCK_REALTIME),
                                         gpr_time_from_seconds(CALL_DEADLINE_S, GPR_TIMESPAN));
    grpc_call *call = grpc_channel_create_call(fc->channel, NULL, GRPC_PROPAGATE_DEFAULTS, fc->cq,
                                               m, NULL, deadline, NULL);
    if (!call) {
        for (size_t i = 0; i < n_req; i++) grpc_byte_buffer_destroy(reqs[i]);
        slt_result_fail(r, "08006", "flight: cannot create a call");
        return -1;
    }
    static char tag_start, tag_send, tag_recv, tag_status;
    grpc_metadata_array init_md, trailers;
    grpc_metadata_array_init(&init_md);
    grpc_metadata_array_init(&trailers);
    grpc_status_code status = GRPC_STATUS_UNKNOWN;
    grpc_slice details = grpc_empty_slice();

    grpc_op ops[2];
    memset(ops, 0, sizeof ops);
    ops[0].op = GRPC_OP_RECV_STATUS_ON_CLIENT;
    ops[0].data.recv_status_on_client.trailing_metadata = &trailers;
    ops[0].data.recv_status_on_client.status = &status;
    ops[0].data.recv_status_on_client.status_details = &details;
    int status_started = grpc_call_start_batch(call, ops, 1, &tag_status, NULL) == GRPC_CALL_OK;

    /* The server answers (initial metadata included) only after it read the request, so the
     * initial metadata is received together with the first response message. */
    memset(ops, 0, sizeof ops);
    ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
    int ok = batch(fc, call, ops, 1, &tag_start);
    for (size_t i = 0; i < n_req; i++) {
        if (ok) {
            memset(ops, 0, sizeof ops);
            ops[0].op = GRPC_OP_SEND_MESSAGE;
            ops[0].data.send_message.send_message = reqs[i];
            ok = batch(fc, call, ops, 1, &tag_send);
        }
        grpc_byte_buffer_destroy(reqs[i]);
    }
    if (ok) {
        memset(ops, 0, sizeof ops);
        ops[0].op = GRPC_OP_SEND_CLOSE_FROM_CLIENT;
        ok = batch(fc, call, ops, 1, &tag_send);
    }
    int stopped = 0, first = 1;
    while (ok) {
        grpc_byte_buffer *bb = NULL;
        memset(ops, 0, sizeof ops);
        size_t n_ops = 0;
        if (first) {
            ops[n_ops].op = GRPC_OP_RECV_INITIAL_METADATA;
            ops[n_ops++].data.recv_initial_metadata.recv_initial_metadata = &init_md;
            first = 0;
        }
        ops[n_ops].op = GRPC_OP_RECV_MESSAGE;
        ops[n_ops++].data.recv_message.recv_message = &bb;
        if (!batch(fc, call, ops, n_ops, &tag_recv) || !bb) break;
        grpc_byte_buffer_reader rd;
        int rc = -1;
        if (grpc_byte_buffer_reader_init(&rd, bb)) {
            grpc_slice s = grpc_byte_buffer_reader_readall(&rd);
            grpc_byte_buffer_reader_destroy(&rd);
            rc = stopped ? 0 : on_message(ud, GRPC_SLICE_START_PTR(s), GRPC_SLICE_LENGTH(s), r);
            grpc_slice_unref(s);
        } else if (!stopped) {
            slt_result_fail(r, "08006", "flight: unreadable response message");
        }
        grpc_byte_buffer_destroy(bb);
        if (rc != 0 && !stopped) {
            stopped = 1;
            grpc_call_cancel(call, NULL);
        }
    }
    int result = 0;
    if (!status_started) {
        if (!r->failed) slt_result_fail(r, "08006", "flight: cannot start the call");
        result = -1;
    } else {
        gpr_timespec wait = gpr_time_add(gpr_now(GPR_CLOCK_REALTIME),
                                         gpr_time_from_seconds(CALL_DEADLINE_S + 60, GPR_TIMESPAN));
        grpc_event ev = grpc_completion_queue_pluck(fc->cq, &tag_status, wait, NULL);
        if (ev.type != GRPC_OP_COMPLETE) {
            if (!r->failed) slt_result_fail(r, "08006", "flight: the call did not end");
            result = -1;
        } else if (!r->failed && status != GRPC_STATUS_OK) {
            status_to_error(status, details, &trailers, r);
            result = -1;
        }
    }
    if (r->failed) result = -1;
    grpc_slice_unref(details);
    grpc_metadata_array_destroy(&init_md);
    grpc_metadata_array_destroy(&trailers);
    grpc_call_unref(call);
    return result;
}

/* ---- messages -------------------------------------------------------------------------------- */

/* A FlightDescriptor CMD holding Any(type_name, msg), packed (malloc'd into *out, *out_len). */
static int pack_command(const char *type_name, const ProtobufCMessage *msg, uint8_t **out,
                        size_t *out_len) {
    size_t n = protobuf_c_message_get_packed_size(msg);
    uint8_t *inner = malloc(n ? n : 1);
    char url[160];
    snprintf(url, sizeof url, ANY_PREFIX "%s", type_name);
    if (!inner) return -1;
    protobuf_c_message_pack(msg, inner);
    Google__Protobuf__Any any = GOOGLE__PROTOBUF__ANY__INIT;
    any.type_url = url;
    any.value.data = inner;
    any.value.len = n;
    size_t an = google__protobuf__any__get_packed_size(&any);
    *out = malloc(an ? an : 1);
    if (*out) google__protobuf__any__pack(&any, *out);
    *out_len = an;
    free(inner);
    return *out ? 0 : -1;
}

static void descriptor_init(Arrow__Flight__Protocol__FlightDescriptor *d, uint8_t *cmd,
                            size_t len) {
    arrow__flight__protocol__flight_descriptor__init(d);
    d->type = ARROW__FLIGHT__PROTOCOL__FLIGHT_DESCRIPTOR__DESCRIPTOR_TYPE__CMD;
    d->cmd.data = cmd;
    d->cmd.len = len;
}

/* ---- queries: GetFlightInfo + DoGet ---------------------------------------------------------- */

typedef struct info_state {
    Arrow__Flight__Protocol__FlightInfo *info;
} info_state;

static int on_flight_info(void *ud, const uint8_t *data, size_t len, slt_result *r) {
    info_state *st = ud;
    if (st->info) {
        slt_result_fail(r, "08P01", "flight: more than one FlightInfo");
        return -1;
    }
    st->info = arrow__flight__protocol__flight_info__unpack(NULL, len, data);
    if (!st->info) {
        slt_result_fail(r, "08P01", "flight: malformed FlightInfo");
        return -1;
    }
    return 0;
}

typedef struct stream_state {
    arena arena;
    arrow_schema schema;
    int have_schema;
    int first_stream;     /* columns not set yet */
    size_t cap;
} stream_state;

/* The Trino name of an SQE type (what embedded reports). */
static void type_name(sqe_type t, char *buf, size_t len) {
    if (type_format(t, buf, len) >= len) buf[len - 1] = '\0';
}

static int take_schema(stream_state *st, const uint8_t *header, size_t len, slt_result *r) {
    if (st->have_schema) {
        slt_result_fail(r, "08P01", "flight: a second Schema message in one stream");
        return -1;
    }
    sqe_error e;
    memset(&e, 0, sizeof e);
    if (arrow_schema_decode(header, len, &st->arena, &st->schema, &e) != SQE_OK) {
        slt_result_fail(r, e.sqlstate[0] ? e.sqlstate : "08P01", "flight: schema: %s", e.message);
        return -1;
    }
    st->have_schema = 1;
    if (!st->first_stream) {
        if ((int)st->schema.n_cols != r->n_cols) {
            slt_result_fail(r, "08P01", "flight: endpoints with different column counts");
            return -1;
        }
        return 0;
    }
    st->first_stream = 0;
    uint32_t n = st->schema.n_cols;
    char **names = calloc((size_t)n + 1, sizeof *names);
    int rc = names ? 0 : -1;
    for (uint32_t i = 0; !rc && i < n; i++) {
        char buf[512];
        type_name(st->schema.cols[i].type, buf, sizeof buf);
        names[i] = strdup(buf);
        if (!names[i]) rc = -1;
    }
    if (rc) slt_result_fail(r, "53200", "out of memory in the test runner");
    else rc = slt_result_set_columns(r, (int)n, (const char *const *)names);
    for (uint32_t i = 0; names && i < n; i++) free(names[i]);
    free(names);
    return rc;
}

static int take_batch(stream_state *st, const uint8_t *header, size_t hlen, const uint8_t *body,
                      size_t blen, slt_result *r) {
    if (!st->have_schema) {
        slt_result_fail(r, "08P01", "flight: a RecordBatch before the Schema");
        return -1;
    }
    sqe_error e;
    memset(&e, 0, sizeof e);
    vec_chunk chunk;
    if (arrow_batch_decode(&st->schema, header, hlen, body, blen, NULL, &chunk, &e) != SQE_OK) {
        slt_result_fail(r, e.sqlstate[0] ? e.sqlstate : "08P01", "flight: batch: %s", e.message);
        return -1;
    }
    int rc = 0;
    strbuf sb;
    for (uint32_t row = 0; !rc && row < chunk.count; row++) {
        for (uint32_t c = 0; !rc && c < chunk.n_cols; c++) {
            const vec *v = &chunk.cols[c];
            uint32_t phys;
            const vec *flat = vec_resolve(v, row, &phys);
            char *text = NULL;
            if (vec_is_valid_flat(flat, phys) && flat->type.id != TYPE_UNKNOWN) {
                strbuf_init(&sb);
                if (vec_format_value(v, row, &sb) != SQE_OK || !(text = strbuf_move(&sb))) {
                    slt_result_fail(r, "53200", "out of memory in the test runner");
                    strbuf_reset(&sb);
                    rc = -1;
                    break;
                }
            }
            rc = slt_result_push(r, text, &st->cap);
        }
    }
    vec_chunk_destroy(&chunk);
    return rc;
}

static int on_flight_data(void *ud, const uint8_t *data, size_t len, slt_result *r) {
    stream_state *st = ud;
    Arrow__Flight__Protocol__FlightData *fd =
        arrow__flight__protocol__flight_data__unpack(NULL, len, data);
    if (!fd) {
        slt_result_fail(r, "08P01", "flight: malformed FlightData");
        return -1;
    }
    int rc = 0;
    if (fd->data_header.len) {
        sqe_error e;
        memset(&e, 0, sizeof e);
        int type = 0;
        int64_t body_len = 0;
        if (arrow_message_peek(fd->data_header.data, fd->data_header.len, &type, &body_len, &e)) {
            slt_result_fail(r, "08P01", "flight: message header: %s", e.message);
            rc = -1;
        } else if (type == ARROW_MSG_SCHEMA) {
            rc = take_schema(st, fd->data_header.data, fd->data_header.len, r);
        } else if (type == ARROW_MSG_RECORD_BATCH) {
            rc = take_batch(st, fd->data_header.data, fd->data_header.len, fd->data_body.data,
                            fd->data_body.len, r);
        } else {
            slt_result_fail(r, "0A000", "flight: Arrow message type %d is not handled", type);
            rc = -1;
        }
    }
    arrow__flight__protocol__flight_data__free_unpacked(fd, NULL);
    return rc;
}

static void run_query(flight_conn *fc, const char *sql, slt_result *r) {
    Arrow__Flight__Protocol__Sql__CommandStatementQuery q;
    arrow__flight__protocol__sql__command_statement_query__init(&q);
    q.query = (char *)sql;
    uint8_t *cmd;
    size_t cmd_len;
    if (pack_command("CommandStatementQuery", &q.base, &cmd, &cmd_len) != 0) {
        slt_result_fail(r, "53200", "out of memory in the test runner");
        return;
    }
    Arrow__Flight__Protocol__FlightDescriptor d;
    descriptor_init(&d, cmd, cmd_len);
    grpc_byte_buffer *req = pack_bb(&d.base);
    free(cmd);
    info_state is = {0};
    if (!req || rpc(fc, METHOD("GetFlightInfo"), &req, 1, on_flight_info, &is, r) != 0 ||
        !is.info) {
        if (!r->failed) slt_result_fail(r, "08P01", "flight: no FlightInfo");
        if (is.info) arrow__flight__protocol__flight_info__free_unpacked(is.info, NULL);
        return;
    }
    stream_state st;
    memset(&st, 0, sizeof st);
    st.first_stream = 1;
    for (size_t i = 0; !r->failed && i < is.info->n_endpoint; i++) {
        Arrow__Flight__Protocol__FlightEndpoint *ep = is.info->endpoint[i];
        if (!ep->ticket) continue;
        arena_init(&st.arena, NULL);
        st.have_schema = 0;
        grpc_byte_buffer *treq = pack_bb(&ep->ticket->base);
        if (!treq) slt_result_fail(r, "53200", "out of memory in the test runner");
        else rpc(fc, METHOD("DoGet"), &treq, 1, on_flight_data, &st, r);
        if (!r->failed && !st.have_schema)
            slt_result_fail(r, "08P01", "flight: a DoGet stream without a Schema");
        arena_destroy(&st.arena);
    }
    if (!r->failed && st.first_stream) {
        /* No endpoint: the columns come from FlightInfo.schema (an encapsulated message). */
        const uint8_t *h, *b;
        size_t hl, bl, used;
        sqe_error e;
        memset(&e, 0, sizeof e);
        arena_init(&st.arena, NULL);
        if (arrow_message_unframe(is.info->schema.data, is.info->schema.len, &h, &hl, &b, &bl,
                                  &used, &e) != SQE_OK || !h)
            slt_result_fail(r, "08P01", "flight: FlightInfo without a schema");
        else
            take_schema(&st, h, hl, r);
        arena_destroy(&st.arena);
    }
    if (!r->failed && r->partial) slt_result_fail(r, "08P01", "flight: incomplete row");
    arrow__flight__protocol__flight_info__free_unpacked(is.info, NULL);
}

/* ---- updates: DoPut -------------------------------------------------------------------------- */

typedef struct put_state {
    int64_t count;
    int have;
} put_state;

static int on_put_result(void *ud, const uint8_t *data, size_t len, slt_result *r) {
    put_state *st = ud;
    Arrow__Flight__Protocol__PutResult *pr =
        arrow__flight__protocol__put_result__unpack(NULL, len, data);
    if (!pr) {
        slt_result_fail(r, "08P01", "flight: malformed PutResult");
        return -1;
    }
    Arrow__Flight__Protocol__Sql__DoPutUpdateResult *u =
        arrow__flight__protocol__sql__do_put_update_result__unpack(NULL, pr->app_metadata.len,
                                                                  pr->app_metadata.data);
    if (u) {
        st->count = u->record_count;
        st->have = 1;
        arrow__flight__protocol__sql__do_put_update_result__free_unpacked(u, NULL);
    }
    arrow__flight__protocol__put_result__free_unpacked(pr, NULL);
    return 0;
}

static int run_update(flight_conn *fc, const char *sql, slt_result *r) {
    Arrow__Flight__Protocol__Sql__CommandStatementUpdate u;
    arrow__flight__protocol__sql__command_statement_update__init(&u);
    u.query = (char *)sql;
    uint8_t *cmd;
    size_t cmd_len;
    if (pack_command("CommandStatementUpdate", &u.base, &cmd, &cmd_len) != 0) {
        slt_result_fail(r, "53200", "out of memory in the test runner");
        return -1;
    }
    Arrow__Flight__Protocol__FlightDescriptor d;
    descriptor_init(&d, cmd, cmd_len);
    Arrow__Flight__Protocol__FlightData fd;
    arrow__flight__protocol__flight_data__init(&fd);
    fd.flight_descriptor = &d;
    grpc_byte_buffer *req = pack_bb(&fd.base);
    free(cmd);
    put_state st = {0};
    if (!req) {
        slt_result_fail(r, "53200", "out of memory in the test runner");
        return -1;
    }
    if (rpc(fc, METHOD("DoPut"), &req, 1, on_put_result, &st, r) != 0) return -1;
    if (!st.have) {
        slt_result_fail(r, "08P01", "flight: DoPut answered no DoPutUpdateResult");
        return -1;
    }
    /* Statement records ignore rows; the count is kept as one bigint cell like DML answers. */
    const char *types[] = {"bigint"};
    if (slt_result_set_columns(r, 1, types) != 0) return -1;
    char *text = NULL;
    if (asprintf(&text, "%lld", (long long)st.count) < 0) text = NULL;
    if (!text) {
        slt_result_fail(r, "53200", "out of memory in the test runner");
        return -1;
    }
    size_t cap = 0;
    return slt_result_push(r, text, &cap);
}

/* ---- the connector --------------------------------------------------------------------------- */

static int returns_rows(const char *sql) {
    static const char *const words[] = {"SELECT", "WITH", "VALUES", "SHOW",    "DESCRIBE",
                                        "EXPLAIN", "TABLE", "CALL", "EXECUTE", "("};
    const char *p = sql;
    for (;;) {
        while (isspace((unsigned char)*p)) p++;
        if (p[0] == '-' && p[1] == '-') {
            while (*p && *p != '\n') p++;
        } else if (p[0] == '/' && p[1] == '*') {
            const char *e = strstr(p + 2, "*/");
            if (!e) return 0;
            p = e + 2;
        } else {
            break;
        }
    }
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        size_t n = strlen(words[i]);
        if (strncasecmp(p, words[i], n) == 0 && (n == 1 || !isalnum((unsigned char)p[n])))
            return 1;
    }
    return 0;
}

static void flight_run(void *conn, const char *sql, slt_result *r) {
    flight_conn *fc = conn;
    memset(r, 0, sizeof *r);
    if (returns_rows(sql)) {
        run_query(fc, sql, r);
        return;
    }
    run_update(fc, sql, r);
}

static void flight_close(void *conn) {
    flight_conn *fc = conn;
    if (!fc) return;
    if (fc->channel) grpc_channel_destroy(fc->channel);
    if (fc->cq) {
        grpc_completion_queue_shutdown(fc->cq);
        while (grpc_completion_queue_pluck(fc->cq, NULL, gpr_inf_future(GPR_CLOCK_REALTIME), NULL)
                   .type != GRPC_QUEUE_SHUTDOWN) {
        }
        grpc_completion_queue_destroy(fc->cq);
    }
    flight_server_destroy(fc->srv);
    if (fc->db) sqe_db_close(fc->db);
    if (fc->grpc_up) grpc_shutdown();
    free(fc);
}

static int flight_open(const slt_options *opt, void **out, sqe_error *err) {
    *out = NULL;
    flight_conn *fc = calloc(1, sizeof *fc);
    if (!fc) return err_nomem(err, "flight connector");
    grpc_init();
    fc->grpc_up = 1;
    if (slt_db_open(opt, &fc->db, err) != 0) {
        flight_close(fc);
        return -1;
    }
    flight_server_options so;
    flight_server_options_init(&so);
    so.port = 0;
    so.threads = 4;
    if (flight_server_create(fc->db, &so, &fc->srv, err) != SQE_OK) {
        flight_close(fc);
        return -1;
    }
    char target[64];
    snprintf(target, sizeof target, "127.0.0.1:%u", (unsigned)flight_server_port(fc->srv));
    grpc_arg arg;
    memset(&arg, 0, sizeof arg);
    arg.type = GRPC_ARG_INTEGER;
    arg.key = GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH;
    arg.value.integer = -1;
    grpc_channel_args args = {1, &arg};
    grpc_channel_credentials *creds = grpc_insecure_credentials_create();
    fc->channel = grpc_channel_create(target, creds, &args);
    grpc_channel_credentials_release(creds);
    fc->cq = grpc_completion_queue_create_for_pluck(NULL);
    if (!fc->channel || !fc->cq) {
        flight_close(fc);
        return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "flight: cannot create the channel");
    }
    *out = fc;
    return 0;
}

const slt_connector slt_conn_flight = {"flight", 1, flight_open, flight_run, flight_close};
