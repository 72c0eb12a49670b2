/*
 * fuzz_arrow_ipc.c: libFuzzer target for the Arrow IPC decoder (src/format/arrow), the input
 * side of Flight DoPut. The input is read two ways: (1) as a whole IPC stream (schema message,
 * then batches until end of stream), and (2) as a RecordBatch message against a fixed schema
 * covering every decodable layout (first two bytes = header length, rest = header then body),
 * so mutations reach the batch decoder without first having to form a valid schema. Every
 * chunk that decodes is encoded again, which must succeed.
 * Build: cmake -DSQE_FUZZ=ON (clang), or by hand:
 *   clang -std=gnu17 -g -O1 -fsanitize=fuzzer,address,undefined -Iinclude -Isrc \
 *     tests/fuzz/fuzz_arrow_ipc.c src/format/arrow/\*.c src/common/\*.c src/types/\*.c src/vec/vec.c
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/arena.h"
#include "format/arrow/arrow_ipc.h"

static void reencode(const vec_chunk *c) {
    arrow_buf h, b;
    arrow_buf_init(&h);
    arrow_buf_init(&b);
    sqe_error err;
    if (arrow_batch_encode(c, 0, c->count, &h, &b, &err) != SQE_OK) abort();
    arrow_buf_reset(&h);
    arrow_buf_reset(&b);
}

static const char *const FIXED_TYPES[] = {
    "boolean", "tinyint", "bigint", "double", "decimal(10,2)", "decimal(30,5)", "varchar",
    "varbinary", "date", "time(6)", "timestamp(6)", "timestamp(6) with time zone",
    "interval day to second", "interval year to month", "uuid", "unknown", "array(varchar)",
    "map(varchar, array(integer))", "row(a integer, b array(row(c varchar)))",
};
#define N_FIXED (sizeof FIXED_TYPES / sizeof FIXED_TYPES[0])

static arena fixed_arena;
static arrow_schema fixed_schema;
static int fixed_ready;

static void fixed_init(void) {
    arrow_column cols[N_FIXED];
    for (size_t i = 0; i < N_FIXED; i++) {
        sqe_type t;
        if (type_parse(FIXED_TYPES[i], strlen(FIXED_TYPES[i]), &t) != 0) abort();
        cols[i] = (arrow_column){.name = FIXED_TYPES[i], .type = t, .nullable = true};
    }
    arrow_schema s = {.n_cols = N_FIXED, .cols = cols};
    arrow_buf h;
    arrow_buf_init(&h);
    arena_init(&fixed_arena, NULL);
    if (arrow_schema_encode(&s, &h, NULL) != SQE_OK ||
        arrow_schema_decode(h.data, h.len, &fixed_arena, &fixed_schema, NULL) != SQE_OK)
        abort();
    arrow_buf_reset(&h);
    fixed_ready = 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!fixed_ready) fixed_init();
    sqe_error err;
    /* (1) a stream */
    arrow_stream_reader r;
    if (arrow_stream_reader_open(&r, data, size, NULL, &err) == SQE_OK) {
        for (int i = 0; i < 64; i++) {
            vec_chunk c;
            bool eos;
            if (arrow_stream_reader_next(&r, &c, &eos, &err) != SQE_OK || eos) break;
            reencode(&c);
            vec_chunk_destroy(&c);
        }
        arrow_stream_reader_close(&r);
    }
    /* (2) one record batch message against the fixed schema */
    if (size >= 2) {
        size_t hlen = ((size_t)data[0] | (size_t)data[1] << 8);
        if (hlen > size - 2) hlen = size - 2;
        /* copy so the body gets its own allocation (ASan catches reads past it) */
        uint8_t *h = malloc(hlen ? hlen : 1), *b = malloc(size - 2 - hlen ? size - 2 - hlen : 1);
        if (h && b) {
            memcpy(h, data + 2, hlen);
            memcpy(b, data + 2 + hlen, size - 2 - hlen);
            vec_chunk c;
            if (arrow_batch_decode(&fixed_schema, h, hlen, b, size - 2 - hlen, NULL, &c, &err) == SQE_OK) {
                reencode(&c);
                vec_chunk_destroy(&c);
            }
        }
        free(h);
        free(b);
    }
    return 0;
}
