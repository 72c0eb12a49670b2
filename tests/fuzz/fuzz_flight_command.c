/*
 * fuzz_flight_command.c: libFuzzer target for the Flight SQL command decoder: the input is a
 * serialized google.protobuf.Any as it arrives in FlightDescriptor.cmd / Ticket.ticket /
 * Action.body; it is also tried as a FlightDescriptor, FlightData and Action (the outer messages
 * the server unpacks) and re-packed. Must never crash, hang or leak.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "server/flight/flight_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    sqe_error err;
    flight_cmd cmd;
    if (flight_cmd_decode(data, size, &cmd, &err) == 0) {
        size_t n;
        uint8_t *re = flight_any_pack(cmd.msg, &n);
        if (re) {
            flight_cmd again;
            if (flight_cmd_decode(re, n, &again, &err) == 0) flight_cmd_free(&again);
            else abort(); /* what we pack must decode */
            free(re);
        }
        flight_cmd_free(&cmd);
    }
    Arrow__Flight__Protocol__FlightDescriptor *d =
        arrow__flight__protocol__flight_descriptor__unpack(NULL, size, data);
    if (d) {
        if (flight_cmd_decode(d->cmd.data, d->cmd.len, &cmd, &err) == 0) flight_cmd_free(&cmd);
        arrow__flight__protocol__flight_descriptor__free_unpacked(d, NULL);
    }
    Arrow__Flight__Protocol__FlightData *fd = arrow__flight__protocol__flight_data__unpack(NULL, size, data);
    if (fd) {
        int type;
        int64_t blen;
        if (fd->data_header.len) arrow_message_peek(fd->data_header.data, fd->data_header.len, &type, &blen, &err);
        arrow__flight__protocol__flight_data__free_unpacked(fd, NULL);
    }
    Arrow__Flight__Protocol__Action *a = arrow__flight__protocol__action__unpack(NULL, size, data);
    if (a) {
        if (flight_cmd_decode(a->body.data, a->body.len, &cmd, &err) == 0) flight_cmd_free(&cmd);
        arrow__flight__protocol__action__free_unpacked(a, NULL);
    }
    return 0;
}
