/*
 * fuzz_parquet_meta.c: libFuzzer target for the hostile-input surface of the Parquet reader
 * that exists so far: the footer (Thrift compact FileMetaData), page headers, and the page
 * decompressors. Input = a whole file image; the first byte also picks a codec for a
 * decompression attempt of the rest. Run with `make fuzz-parquet`.
 */
#include <stdint.h>
#include <stdlib.h>

#include "common/arena.h"
#include "format/parquet/pq_codec.h"
#include "format/parquet/pq_meta.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    arena a;
    arena_init(&a, NULL);
    sqe_error err;
    pq_file_meta *meta;
    (void)pq_meta_read_footer(&a, data, size, &meta, &err);
    pq_page_header ph;
    size_t used;
    (void)pq_meta_decode_page_header(&a, data, size, &ph, &used, &err);
    if (size > 1) {
        size_t out_len = (size_t)data[0] * 97 % 65536;
        uint8_t *out = malloc(out_len ? out_len : 1);
        if (out) {
            (void)pq_decompress(data[0] % 8, data + 1, size - 1, out, out_len, &err);
            free(out);
        }
    }
    arena_destroy(&a);
    return 0;
}
