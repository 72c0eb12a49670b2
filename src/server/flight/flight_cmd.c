/*
 * flight_cmd.c: decoding the Flight SQL commands carried in google.protobuf.Any
 * (FlightDescriptor.cmd, Ticket.ticket, Action.body) and packing messages into Any.
 *
 * INTERFACE: flight_cmd_decode, flight_cmd_free, flight_cmd_name, flight_any_pack
 *            (flight_int.h).
 * NOTES: the type URL is matched on the part after its last '/' (the full message name, as
 * protobuf's Any.Is does), so "type.googleapis.com/arrow.flight.protocol.sql.X" and any other
 * host prefix work. protobuf-c unpacking is bounds-checked; a message that fails to unpack is
 * INVALID_ARGUMENTS. Also the fuzz target's entry point (tests/fuzz/fuzz_flight_command.c).
 */
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "server/flight/flight_int.h"

static const ProtobufCMessageDescriptor *cmd_desc(flight_cmd_kind k) {
    switch (k) {
    case FCMD_STATEMENT_QUERY: return &arrow__flight__protocol__sql__command_statement_query__descriptor;
    case FCMD_PREPARED_QUERY: return &arrow__flight__protocol__sql__command_prepared_statement_query__descriptor;
    case FCMD_TICKET_STATEMENT: return &arrow__flight__protocol__sql__ticket_statement_query__descriptor;
    case FCMD_SQL_INFO: return &arrow__flight__protocol__sql__command_get_sql_info__descriptor;
    case FCMD_CATALOGS: return &arrow__flight__protocol__sql__command_get_catalogs__descriptor;
    case FCMD_DB_SCHEMAS: return &arrow__flight__protocol__sql__command_get_db_schemas__descriptor;
    case FCMD_TABLES: return &arrow__flight__protocol__sql__command_get_tables__descriptor;
    case FCMD_TABLE_TYPES: return &arrow__flight__protocol__sql__command_get_table_types__descriptor;
    case FCMD_XDBC_TYPE_INFO: return &arrow__flight__protocol__sql__command_get_xdbc_type_info__descriptor;
    case FCMD_PRIMARY_KEYS: return &arrow__flight__protocol__sql__command_get_primary_keys__descriptor;
    case FCMD_EXPORTED_KEYS: return &arrow__flight__protocol__sql__command_get_exported_keys__descriptor;
    case FCMD_IMPORTED_KEYS: return &arrow__flight__protocol__sql__command_get_imported_keys__descriptor;
    case FCMD_CROSS_REFERENCE: return &arrow__flight__protocol__sql__command_get_cross_reference__descriptor;
    case FCMD_STATEMENT_UPDATE: return &arrow__flight__protocol__sql__command_statement_update__descriptor;
    case FCMD_PREPARED_UPDATE: return &arrow__flight__protocol__sql__command_prepared_statement_update__descriptor;
    case FCMD_STATEMENT_INGEST: return &arrow__flight__protocol__sql__command_statement_ingest__descriptor;
    case FCMD_CREATE_PREPARED: return &arrow__flight__protocol__sql__action_create_prepared_statement_request__descriptor;
    case FCMD_CLOSE_PREPARED: return &arrow__flight__protocol__sql__action_close_prepared_statement_request__descriptor;
    default: return NULL;
    }
}

const char *flight_cmd_name(flight_cmd_kind kind) {
    const ProtobufCMessageDescriptor *d = cmd_desc(kind);
    return d ? d->short_name : "?";
}

int flight_cmd_decode(const uint8_t *buf, size_t len, flight_cmd *out, sqe_error *err) {
    memset(out, 0, sizeof *out);
    Google__Protobuf__Any *any = google__protobuf__any__unpack(NULL, len, buf);
    if (!any)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                       "malformed Flight SQL command: not a google.protobuf.Any message");
    const char *url = any->type_url ? any->type_url : "";
    const char *name = strrchr(url, '/');
    name = name ? name + 1 : url;
    int rc = SQE_OK;
    int kind = -1;
    for (int k = 0; k < FCMD_COUNT_; k++) {
        if (strcmp(cmd_desc((flight_cmd_kind)k)->name, name) == 0) {
            kind = k;
            break;
        }
    }
    if (kind < 0) {
        rc = err_set(err, SQE_ERR_NOT_SUPPORTED, "unsupported Flight SQL command type '%.200s'",
                     url);
    } else {
        const ProtobufCMessageDescriptor *d = cmd_desc((flight_cmd_kind)kind);
        ProtobufCMessage *m = protobuf_c_message_unpack(d, NULL, any->value.len, any->value.data);
        if (!m) {
            rc = err_set(err, SQE_ERR_INVALID_ARGUMENTS, "malformed %s message", d->short_name);
        } else {
            out->kind = (flight_cmd_kind)kind;
            out->msg = m;
        }
    }
    google__protobuf__any__free_unpacked(any, NULL);
    return rc;
}

void flight_cmd_free(flight_cmd *c) {
    if (c && c->msg) protobuf_c_message_free_unpacked(c->msg, NULL);
    if (c) memset(c, 0, sizeof *c);
}

uint8_t *flight_any_pack(const ProtobufCMessage *msg, size_t *len) {
    size_t n = protobuf_c_message_get_packed_size(msg);
    uint8_t *inner = malloc(n ? n : 1);
    if (!inner) return NULL;
    protobuf_c_message_pack(msg, inner);
    static const char prefix[] = "type.googleapis.com/";
    size_t ulen = strlen(prefix) + strlen(msg->descriptor->name);
    char *url = malloc(ulen + 1);
    if (!url) {
        free(inner);
        return NULL;
    }
    memcpy(url, prefix, sizeof prefix - 1);
    strcpy(url + sizeof prefix - 1, msg->descriptor->name);
    Google__Protobuf__Any any;
    google__protobuf__any__init(&any);
    any.type_url = url;
    any.value.data = inner;
    any.value.len = n;
    size_t total = google__protobuf__any__get_packed_size(&any);
    uint8_t *out = malloc(total ? total : 1);
    if (out) {
        google__protobuf__any__pack(&any, out);
        *len = total;
    }
    free(url);
    free(inner);
    return out;
}
