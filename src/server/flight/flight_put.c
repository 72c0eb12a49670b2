/*
 * flight_put.c: Flight DoPut: statement updates, prepared statement updates, parameter binding
 * for prepared queries, and bulk ingest (CommandStatementIngest).
 *
 * INTERFACE: flight_do_put (flight_int.h).
 * NOTES: the client's Arrow stream arrives as FlightData messages (data_header = IPC Message,
 * data_body = its body), decoded with format/arrow; a malformed message ends the call with
 * INVALID_ARGUMENT and nothing is written. Ingest creates the table (CREATE TABLE from the Arrow
 * schema's SQE types) and appends rows with INSERT ... VALUES of typed literals, about 1 MiB of
 * SQL per statement, so it works on every catalog that supports INSERT. An ingest lands whole or
 * not at all: the stream is read to its end before the target changes, more than one statement
 * of rows is staged in a scratch table and copied by one INSERT ... SELECT, and a table the
 * ingest created is dropped when loading it fails. Nested values (arrays,
 * maps, rows) cannot be ingested this way yet (the statement fails with the engine's error).
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "engine/engine_api.h"
#include "server/flight/flight_int.h"

/* The decoded Arrow stream of a DoPut. */
typedef struct put_stream {
    arena arena;
    arrow_schema schema;
    bool has_schema;
} put_stream;

/* Reads the next record batch of the call (*eos at the end). first is the first FlightData
 * (already received), consumed on the first call. */
static int put_next(flight_call *fc, put_stream *ps, Arrow__Flight__Protocol__FlightData **first,
                    vec_chunk *out, bool *eos, sqe_error *err) {
    memset(out, 0, sizeof *out);
    *eos = false;
    for (;;) {
        Arrow__Flight__Protocol__FlightData *fd = *first;
        *first = NULL;
        if (!fd) {
            uint8_t *m;
            size_t len;
            SQE_TRY(flight_call_recv(fc, &m, &len, err));
            if (!m) {
                *eos = true;
                return SQE_OK;
            }
            fd = arrow__flight__protocol__flight_data__unpack(NULL, len, m);
            free(m);
            if (!fd) return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "malformed FlightData");
        }
        int rc = SQE_OK;
        bool got = false;
        if (fd->data_header.len) {
            int type;
            int64_t body_len;
            rc = arrow_message_peek(fd->data_header.data, fd->data_header.len, &type, &body_len, err);
            if (!rc && type == ARROW_MSG_SCHEMA) {
                if (ps->has_schema) arena_destroy(&ps->arena);
                arena_init(&ps->arena, NULL);
                ps->has_schema = true;
                rc = arrow_schema_decode(fd->data_header.data, fd->data_header.len, &ps->arena,
                                         &ps->schema, err);
                if (rc) {
                    arena_destroy(&ps->arena);
                    ps->has_schema = false;
                }
            } else if (!rc && type == ARROW_MSG_RECORD_BATCH) {
                if (!ps->has_schema)
                    rc = err_set(err, SQE_ERR_INVALID_FILE, "record batch before the schema");
                else
                    rc = arrow_batch_decode(&ps->schema, fd->data_header.data, fd->data_header.len,
                                            fd->data_body.data, fd->data_body.len, NULL, out, err);
                got = !rc;
            } else if (!rc) {
                rc = err_set(err, SQE_ERR_NOT_SUPPORTED, "Arrow message type %d is not supported", type);
            }
        }
        arrow__flight__protocol__flight_data__free_unpacked(fd, NULL);
        if (rc) {
            fc->grpc_status = 3;
            return rc;
        }
        if (got) return SQE_OK;
    }
}

static void put_stream_close(put_stream *ps) {
    if (ps->has_schema) arena_destroy(&ps->arena);
    ps->has_schema = false;
}

/* Drains the rest of the client's stream. */
static int drain(flight_call *fc, sqe_error *err) {
    for (;;) {
        uint8_t *m;
        size_t len;
        SQE_TRY(flight_call_recv(fc, &m, &len, err));
        if (!m) return SQE_OK;
        free(m);
    }
}

static int send_update_result(flight_call *fc, int64_t count, sqe_error *err) {
    Arrow__Flight__Protocol__Sql__DoPutUpdateResult u;
    arrow__flight__protocol__sql__do_put_update_result__init(&u);
    u.record_count = count;
    uint8_t buf[16];
    size_t n = protobuf_c_message_pack(&u.base, buf);
    Arrow__Flight__Protocol__PutResult pr;
    arrow__flight__protocol__put_result__init(&pr);
    pr.app_metadata.data = buf;
    pr.app_metadata.len = n;
    return flight_call_send_msg(fc, &pr.base, err);
}

/* Runs sql or p (row) to completion; *count gets its update count (0 for queries). */
static int run_update(flight_call *fc, const char *sql, const flight_prepared *p, uint32_t row,
                      int64_t *count, sqe_error *err) {
    volatile int cancel = 0;
    sqe_conn *conn;
    sqe_stmt *stmt;
    sqe_result *res;
    fc->cancel_target = &cancel;
    int rc = flight_run_statement(fc, sql, p, row, &cancel, &conn, &stmt, &res, err);
    if (!rc) {
        const sqe_chunk *ch;
        while (!(rc = sqe_result_next(res, &ch, err)) && ch) {
        }
        int64_t n = sqe_result_update_count(res);
        *count += n > 0 ? n : 0;
        sqe_result_destroy(res);
        if (stmt) sqe_stmt_destroy(stmt);
        sqe_disconnect(conn);
    }
    fc->cancel_target = NULL;
    return rc;
}

/* Text of a cell as a SQL literal of its type, appended to *sql. */
static int append_literal(arrow_buf *sql, const vec_chunk *vc, int col, uint32_t row,
                          sqe_error *err) {
    const vec *v = &vc->cols[col];
    if (vec_is_null(v, row)) return arrow_buf_append(sql, "NULL", 4, err);
    struct sqe_chunk ch = {vc};
    char small[256];
    size_t n = sqe_chunk_format(&ch, col, (int)row, small, sizeof small);
    char *text = small;
    if (n >= sizeof small) {
        text = malloc(n + 1);
        if (!text) return err_nomem(err, "literal");
        sqe_chunk_format(&ch, col, (int)row, text, n + 1);
    }
    sqe_type t = v->type;
    char tname[256];
    type_format(t, tname, sizeof tname);
    int rc = SQE_OK;
    if (t.id >= TYPE_TINYINT && t.id <= TYPE_DOUBLE && t.id != TYPE_REAL && t.id != TYPE_DOUBLE) {
        rc = arrow_buf_append(sql, text, n, err);
    } else if (t.id == TYPE_VARBINARY) {
        rc = arrow_buf_append(sql, "X'", 2, err);
        for (size_t i = 0; !rc && i < n; i++)
            if (text[i] != ' ') rc = arrow_buf_append(sql, &text[i], 1, err);
        if (!rc) rc = arrow_buf_append(sql, "'", 1, err);
    } else {
        bool cast = t.id != TYPE_VARCHAR;
        if (cast) rc = arrow_buf_append(sql, "CAST(", 5, err);
        if (!rc) rc = arrow_buf_append(sql, "'", 1, err);
        for (size_t i = 0; !rc && i < n; i++) {
            rc = arrow_buf_append(sql, &text[i], 1, err);
            if (!rc && text[i] == '\'') rc = arrow_buf_append(sql, "'", 1, err);
        }
        if (!rc) rc = arrow_buf_append(sql, "'", 1, err);
        if (!rc && cast) {
            rc = arrow_buf_append(sql, " AS ", 4, err);
            if (!rc) rc = arrow_buf_append(sql, tname, strlen(tname), err);
            if (!rc) rc = arrow_buf_append(sql, ")", 1, err);
        }
    }
    if (text != small) free(text);
    return rc;
}

static int append_ident(arrow_buf *b, const char *name, sqe_error *err) {
    SQE_TRY(arrow_buf_append(b, "\"", 1, err));
    for (const char *p = name; *p; p++) {
        SQE_TRY(arrow_buf_append(b, p, 1, err));
        if (*p == '"') SQE_TRY(arrow_buf_append(b, "\"", 1, err));
    }
    return arrow_buf_append(b, "\"", 1, err);
}

/* Runs the statement printf(fmt, ...) to completion (count may be NULL). */
static int run_fmt(flight_call *fc, int64_t *count, sqe_error *err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int run_fmt(flight_call *fc, int64_t *count, sqe_error *err, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *sql = NULL;
    int n = vasprintf(&sql, fmt, ap);
    va_end(ap);
    if (n < 0) return err_nomem(err, "ingest");
    int64_t dummy = 0;
    int rc = run_update(fc, sql, NULL, 0, count ? count : &dummy, err);
    free(sql);
    return rc;
}

/* CREATE TABLE table (columns of the Arrow schema). */
static int create_from_schema(flight_call *fc, const char *table, const arrow_schema *schema,
                              sqe_error *err) {
    arrow_buf cols;
    arrow_buf_init(&cols);
    int rc = SQE_OK;
    for (uint32_t i = 0; !rc && i < schema->n_cols; i++) {
        char tn[256];
        type_format(schema->cols[i].type, tn, sizeof tn);
        if (i) rc = arrow_buf_append(&cols, ", ", 2, err);
        if (!rc) rc = append_ident(&cols, schema->cols[i].name, err);
        if (!rc) rc = arrow_buf_append(&cols, " ", 1, err);
        if (!rc) rc = arrow_buf_append(&cols, tn, strlen(tn), err);
    }
    if (!rc) rc = arrow_buf_append(&cols, "", 1, err);
    if (!rc) rc = run_fmt(fc, NULL, err, "CREATE TABLE %s (%s)", table, (const char *)cols.data);
    arrow_buf_reset(&cols);
    return rc;
}

/* INSERT INTO table VALUES <rows> (rows: the row list, rows->len bytes, not terminated). */
static int insert_rows(flight_call *fc, const char *table, arrow_buf *rows, int64_t *count,
                       sqe_error *err) {
    SQE_TRY(arrow_buf_append(rows, "", 1, err));
    int rc = run_fmt(fc, count, err, "INSERT INTO %s VALUES %s", table, (const char *)rows->data);
    rows->len = 0;
    return rc;
}

#define INGEST_STMT_BYTES (1u << 20)

/* Creates the staging table of an ingest into name: "<prefix>__sqe_ingest_<random>" (its name
 * into *staging, NUL-terminated), with name's column types when appending to it (INSERT ...
 * SELECT does not narrow types as VALUES literals do), else those of the Arrow schema. */
static int create_staging(flight_call *fc, const arrow_buf *prefix, const arrow_buf *name,
                          bool append, const arrow_schema *schema, arrow_buf *staging,
                          sqe_error *err) {
    char h[40];
    flight_random_handle(h);
    staging->len = 0;
    int rc = prefix->len ? arrow_buf_append(staging, prefix->data, prefix->len, err) : SQE_OK;
    if (!rc) rc = arrow_buf_append(staging, "\"__sqe_ingest_", 14, err);
    if (!rc) rc = arrow_buf_append(staging, h, strlen(h), err);
    if (!rc) rc = arrow_buf_append(staging, "\"", 2, err); /* with NUL */
    if (rc) return rc;
    if (append)
        return run_fmt(fc, NULL, err, "CREATE TABLE %s AS SELECT * FROM %s WHERE false",
                       (const char *)staging->data, (const char *)name->data);
    return create_from_schema(fc, (const char *)staging->data, schema, err);
}

/* Bulk ingest, all or nothing. The stream is read to its end before the target changes: rows
 * that fit one INSERT (about 1 MiB of SQL) are kept in memory; more (or any, when replacing a
 * table) go to a staging table ("<schema>.__sqe_ingest_<random>") that is copied into the target
 * by one INSERT ... SELECT at the end and always dropped. A table this ingest created is dropped
 * again when loading it fails, so a failed ingest leaves neither a table nor some of its rows,
 * and a replace that cannot load its rows keeps the old table. */
static int ingest(flight_call *fc, const Arrow__Flight__Protocol__Sql__CommandStatementIngest *q,
                  Arrow__Flight__Protocol__FlightData **first, int64_t *count, sqe_error *err) {
    if (!q->table || !q->table[0])
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "ingest needs a table name");
    if (q->temporary) return err_set(err, SQE_ERR_NOT_SUPPORTED, "temporary tables are not supported");
    if (q->_transaction_id_case) return err_set(err, SQE_ERR_NOT_SUPPORTED, "transactions are not supported");
    arrow_buf prefix, name, staging, rows;
    arrow_buf_init(&prefix);
    arrow_buf_init(&name);
    arrow_buf_init(&staging);
    arrow_buf_init(&rows);
    int rc = SQE_OK;
    if (q->_catalog_case && q->catalog && q->catalog[0]) {
        rc = append_ident(&prefix, q->catalog, err);
        if (!rc) rc = arrow_buf_append(&prefix, ".", 1, err);
    }
    if (!rc && q->_schema_case && q->schema && q->schema[0]) {
        rc = append_ident(&prefix, q->schema, err);
        if (!rc) rc = arrow_buf_append(&prefix, ".", 1, err);
    }
    if (!rc && prefix.len) rc = arrow_buf_append(&name, prefix.data, prefix.len, err);
    if (!rc) rc = append_ident(&name, q->table, err);
    if (!rc) rc = arrow_buf_append(&name, "", 1, err); /* NUL */
    int not_exist = q->table_definition_options ? q->table_definition_options->if_not_exist : 0;
    int exists_opt = q->table_definition_options ? q->table_definition_options->if_exists : 0;
    put_stream ps;
    memset(&ps, 0, sizeof ps);
    vec_chunk vc;
    memset(&vc, 0, sizeof vc);
    bool eos = false;
    /* First batch (or end) so the schema is known. */
    if (!rc) rc = put_next(fc, &ps, first, &vc, &eos, err);
    if (!rc && !ps.has_schema) rc = err_set(err, SQE_ERR_INVALID_ARGUMENTS, "ingest without an Arrow schema");
    bool exists = false;
    if (!rc) {
        sqe_error e2;
        exists = run_fmt(fc, NULL, &e2, "SELECT * FROM %s WHERE false", (const char *)name.data) == SQE_OK;
        if (exists && (exists_opt == 0 || exists_opt == 1))
            rc = err_set(err, SQE_ERR_ALREADY_EXISTS, "table %s already exists", (const char *)name.data);
        else if (!exists && not_exist == 2)
            rc = err_set(err, SQE_ERR_TABLE_NOT_FOUND, "table %s does not exist", (const char *)name.data);
    }
    /* The whole stream, into memory or the staging table. */
    bool staged = false;
    bool replace = exists && exists_opt == 3, append = exists && !replace;
    while (!rc && !eos) {
        for (uint32_t r = 0; !rc && r < vc.count; r++) {
            if (rows.len) rc = arrow_buf_append(&rows, ", ", 2, err);
            if (!rc) rc = arrow_buf_append(&rows, "(", 1, err);
            for (uint32_t c = 0; !rc && c < vc.n_cols; c++) {
                if (c) rc = arrow_buf_append(&rows, ", ", 2, err);
                if (!rc) rc = append_literal(&rows, &vc, (int)c, r, err);
            }
            if (!rc) rc = arrow_buf_append(&rows, ")", 1, err);
            if (!rc && rows.len > INGEST_STMT_BYTES) {
                if (!staged) rc = create_staging(fc, &prefix, &name, append, &ps.schema, &staging, err);
                staged = !rc;
                if (!rc) rc = insert_rows(fc, (const char *)staging.data, &rows, NULL, err);
            }
        }
        vec_chunk_destroy(&vc);
        if (!rc) rc = put_next(fc, &ps, first, &vc, &eos, err);
    }
    /* replacing: the rows must be known to load before the old table goes */
    if (!rc && !staged && replace && rows.len) {
        rc = create_staging(fc, &prefix, &name, append, &ps.schema, &staging, err);
        staged = !rc;
    }
    if (!rc && staged && rows.len) rc = insert_rows(fc, (const char *)staging.data, &rows, NULL, err);
    /* The stream is complete: now the target. */
    bool created = false;
    if (!rc && replace) {
        rc = run_fmt(fc, NULL, err, "DROP TABLE %s", (const char *)name.data);
        exists = false;
    }
    if (!rc && !exists) {
        rc = create_from_schema(fc, (const char *)name.data, &ps.schema, err);
        created = !rc;
    }
    if (!rc && staged)
        rc = run_fmt(fc, count, err, "INSERT INTO %s SELECT * FROM %s", (const char *)name.data,
                     (const char *)staging.data);
    else if (!rc && rows.len)
        rc = insert_rows(fc, (const char *)name.data, &rows, count, err);
    sqe_error e3;
    if (rc && created) run_fmt(fc, NULL, &e3, "DROP TABLE %s", (const char *)name.data);
    if (staged) run_fmt(fc, NULL, &e3, "DROP TABLE %s", (const char *)staging.data);
    if (!eos) vec_chunk_destroy(&vc);
    put_stream_close(&ps);
    arrow_buf_reset(&prefix);
    arrow_buf_reset(&name);
    arrow_buf_reset(&staging);
    arrow_buf_reset(&rows);
    return rc;
}

/* Binds the parameter rows the client sends to prepared statement handle (replacing earlier
 * ones); reply: answer with DoPutPreparedStatementResult (a DoPut of CommandPreparedStatement-
 * Query), else keep earlier bindings when the stream has no rows. */
static int bind_prepared(flight_call *fc, const ProtobufCBinaryData *handle,
                         Arrow__Flight__Protocol__FlightData **first, bool reply,
                         sqe_error *err) {
    flight_prepared *p;
    SQE_TRY(flight_prepared_copy(fc, handle->data, handle->len, &p, err));
    put_stream ps;
    memset(&ps, 0, sizeof ps);
    flight_param *vals = NULL;
    uint32_t n_rows = 0;
    int n_cols = -1;
    int rc = SQE_OK;
    bool eos = false;
    while (!rc && !eos) {
        vec_chunk vc;
        rc = put_next(fc, &ps, first, &vc, &eos, err);
        if (rc || eos) break;
        if (n_cols < 0) n_cols = (int)vc.n_cols;
        if ((uint64_t)n_rows + vc.count > 100000) {
            rc = err_set(err, SQE_ERR_INVALID_ARGUMENTS, "too many parameter rows (limit 100000)");
        } else {
            flight_param *g = realloc(vals, ((size_t)n_rows + vc.count) * (size_t)(n_cols ? n_cols : 1) * sizeof *g + 1);
            if (!g) rc = err_nomem(err, "parameters");
            else vals = g;
        }
        struct sqe_chunk ch = {&vc};
        for (uint32_t r = 0; !rc && r < vc.count; r++) {
            for (int c = 0; c < n_cols; c++) {
                flight_param *v = &vals[((size_t)n_rows) * (size_t)n_cols + (size_t)c];
                memset(v, 0, sizeof *v);
                const vec *col = &vc.cols[c];
                if (vec_is_null(col, r)) continue;
                size_t n = sqe_chunk_format(&ch, c, (int)r, NULL, 0);
                char *text = malloc(n + 1);
                if (!text) {
                    rc = err_nomem(err, "parameters");
                    break;
                }
                sqe_chunk_format(&ch, c, (int)r, text, n + 1);
                uint8_t id = col->type.id;
                if (id >= TYPE_TINYINT && id <= TYPE_BIGINT) {
                    v->kind = 1;
                    v->i = strtoll(text, NULL, 10);
                    free(text);
                } else if (id == TYPE_REAL || id == TYPE_DOUBLE) {
                    v->kind = 2;
                    v->d = strtod(text, NULL);
                    free(text);
                } else {
                    v->kind = 3;
                    v->text = text;
                }
            }
            n_rows++;
        }
        vec_chunk_destroy(&vc);
    }
    put_stream_close(&ps);
    if (!rc) {
        flight_server *srv = fc->srv;
        pthread_mutex_lock(&srv->lock);
        flight_prepared *t = srv->prepared;
        while (t && strcmp(t->handle, p->handle) != 0) t = t->next;
        if (t && !reply && n_rows == 0) {
            /* an update without parameter rows keeps what was bound before */
        } else if (t) {
            for (size_t i = 0; i < (size_t)t->n_rows * (size_t)t->n_params; i++) free(t->params[i].text);
            free(t->params);
            t->params = vals;
            t->n_rows = n_rows;
            t->n_params = n_cols < 0 ? 0 : n_cols;
            vals = NULL;
            n_rows = 0;
        } else {
            rc = err_set(err, SQE_ERR_NOT_FOUND, "the prepared statement was closed");
        }
        pthread_mutex_unlock(&srv->lock);
    }
    for (size_t i = 0; vals && i < (size_t)n_rows * (size_t)(n_cols > 0 ? n_cols : 0); i++) free(vals[i].text);
    free(vals);
    if (!rc && reply) {
        Arrow__Flight__Protocol__Sql__DoPutPreparedStatementResult r;
        arrow__flight__protocol__sql__do_put_prepared_statement_result__init(&r);
        r._prepared_statement_handle_case = ARROW__FLIGHT__PROTOCOL__SQL__DO_PUT_PREPARED_STATEMENT_RESULT___PREPARED_STATEMENT_HANDLE_PREPARED_STATEMENT_HANDLE;
        r.prepared_statement_handle.data = (uint8_t *)p->handle;
        r.prepared_statement_handle.len = strlen(p->handle);
        uint8_t buf[128];
        size_t n = protobuf_c_message_pack(&r.base, buf);
        Arrow__Flight__Protocol__PutResult pr;
        arrow__flight__protocol__put_result__init(&pr);
        pr.app_metadata.data = buf;
        pr.app_metadata.len = n;
        rc = flight_call_send_msg(fc, &pr.base, err);
    }
    flight_prepared_free(p);
    return rc;
}

int flight_do_put(flight_call *fc, const uint8_t *req, size_t len, sqe_error *err) {
    Arrow__Flight__Protocol__FlightData *fd = arrow__flight__protocol__flight_data__unpack(NULL, len, req);
    if (!fd) return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "malformed FlightData");
    if (!fd->flight_descriptor ||
        fd->flight_descriptor->type != ARROW__FLIGHT__PROTOCOL__FLIGHT_DESCRIPTOR__DESCRIPTOR_TYPE__CMD) {
        arrow__flight__protocol__flight_data__free_unpacked(fd, NULL);
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                       "the first DoPut message needs a command descriptor");
    }
    flight_cmd cmd;
    int rc = flight_cmd_decode(fd->flight_descriptor->cmd.data, fd->flight_descriptor->cmd.len, &cmd, err);
    if (rc) {
        arrow__flight__protocol__flight_data__free_unpacked(fd, NULL);
        return rc;
    }
    int64_t count = 0;
    switch (cmd.kind) {
    case FCMD_STATEMENT_UPDATE: {
        const Arrow__Flight__Protocol__Sql__CommandStatementUpdate *q = (const void *)cmd.msg;
        const char *sql = q->query ? q->query : "";
        rc = flight_stmt_begin(fc, strlen(sql), err);
        if (!rc) {
            rc = run_update(fc, sql, NULL, 0, &count, err);
            flight_stmt_end(fc);
        }
        if (!rc) rc = drain(fc, err);
        if (!rc) rc = send_update_result(fc, count, err);
        break;
    }
    case FCMD_PREPARED_UPDATE: {
        const Arrow__Flight__Protocol__Sql__CommandPreparedStatementUpdate *q = (const void *)cmd.msg;
        /* Parameter rows may come in this same stream: bind them first. */
        rc = bind_prepared(fc, &q->prepared_statement_handle, &fd, false, err);
        flight_prepared *p = NULL;
        if (!rc)
            rc = flight_prepared_copy(fc, q->prepared_statement_handle.data,
                                      q->prepared_statement_handle.len, &p, err);
        if (!rc) rc = flight_stmt_begin(fc, strlen(p->sql), err);
        if (!rc) {
            uint32_t rows = p->n_rows ? p->n_rows : 1;
            for (uint32_t r = 0; !rc && r < rows; r++) rc = run_update(fc, NULL, p, r, &count, err);
            flight_stmt_end(fc);
        }
        flight_prepared_free(p);
        if (!rc) rc = drain(fc, err);
        if (!rc) rc = send_update_result(fc, count, err);
        break;
    }
    case FCMD_PREPARED_QUERY: {
        const Arrow__Flight__Protocol__Sql__CommandPreparedStatementQuery *q = (const void *)cmd.msg;
        rc = bind_prepared(fc, &q->prepared_statement_handle, &fd, true, err);
        break;
    }
    case FCMD_STATEMENT_INGEST: {
        const Arrow__Flight__Protocol__Sql__CommandStatementIngest *q = (const void *)cmd.msg;
        rc = flight_stmt_begin(fc, 0, err);
        if (!rc) {
            rc = ingest(fc, q, &fd, &count, err);
            if (rc && err) err->line = err->column = 0; /* our generated SQL */
            flight_stmt_end(fc);
        }
        if (!rc) rc = drain(fc, err);
        if (!rc) rc = send_update_result(fc, count, err);
        break;
    }
    default:
        rc = err_set(err, SQE_ERR_NOT_SUPPORTED, "%s is not valid for DoPut", flight_cmd_name(cmd.kind));
        break;
    }
    if (fd) arrow__flight__protocol__flight_data__free_unpacked(fd, NULL);
    flight_cmd_free(&cmd);
    return rc;
}
