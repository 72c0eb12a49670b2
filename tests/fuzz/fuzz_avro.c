/*
 * fuzz_avro.c: libFuzzer target for the Avro reader (src/format/avro): the input is a whole
 * object container file; every record is decoded (and converted to JSON, exercising the value
 * walkers); the first record is re-encoded through a writer with the file's own schema. Also
 * parses the input as schema JSON text. Seeds: any .avro files (e.g. Iceberg manifests).
 * Build: CMake with -DSQE_FUZZ=ON builds fuzz_avro (target glob in CMakeLists.txt).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/arena.h"
#include "format/avro/avro.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    arena a, values;
    arena_init(&a, NULL);
    arena_init(&values, NULL);
    sqe_error err;
    avro_reader *r;
    if (avro_reader_open(data, size, &a, &r, &err) == SQE_OK) {
        avro_reader_set_value_arena(r, &values);
        size_t schema_len;
        const uint8_t *schema = avro_reader_meta(r, "avro.schema", &schema_len);
        avro_writer *w = NULL;
        (void)avro_writer_open((const char *)schema, schema_len, NULL, 0, NULL, &w, &err);
        for (int n = 0; n < 100000; n++) {
            avro_value *v;
            if (avro_reader_next(r, &v, &err) != SQE_OK || !v) break;
            char *json;
            if (avro_value_to_json(v, &json, &err) == SQE_OK) free(json);
            /* the writer's schema is an equal but distinct tree: values carry pointers into the
             * reader's schema, which the encoder ignores */
            if (w && n == 0) (void)avro_writer_append(w, v, &err);
            arena_reset(&values);
        }
        if (w) {
            uint8_t *bytes;
            size_t len;
            if (avro_writer_finish(w, &bytes, &len, &err) == SQE_OK) free(bytes);
            avro_writer_destroy(w);
        }
        avro_reader_close(r);
    }
    avro_schema *s;
    (void)avro_schema_parse(&a, (const char *)data, size, &s, &err);
    arena_destroy(&values);
    arena_destroy(&a);
    return 0;
}
