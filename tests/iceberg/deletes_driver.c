/*
 * deletes_driver.c: command-line driver of the Iceberg delete code for the interop tests
 * (tests/iceberg/test_deletes_interop.py), so Python oracles (pyroaring, pyiceberg, pyarrow)
 * can check what SQE writes and feed SQE what they write.
 *
 * Commands (positions are decimal, one per line; errors go to stderr with exit status 1):
 *   roaring-write OUT < positions      64-bit portable Roaring serialization of the positions
 *   roaring-read IN                    prints the positions of a portable serialization
 *   dv-write OUT PATH=POSFILE...       one Puffin file with a DV per data file; prints one line
 *                                      per DV: path offset size cardinality file_size
 *   dv-read IN                         per footer blob: "referenced-data-file<TAB>cardinality"
 *                                      then the positions (read by offset/length as a scan does)
 *   posdel-write OUT PATH=POSFILE...   a Parquet position delete file; prints record_count and
 *                                      referenced_data_file (or "-")
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/arena.h"
#include "common/err.h"
#include "iceberg/delete_write.h"
#include "iceberg/puffin.h"
#include "iceberg/roaring.h"
#include "io/io.h"

static int load_positions(FILE *in, ice_roaring *r) {
    unsigned long long v;
    while (fscanf(in, "%llu", &v) == 1)
        if (ice_roaring_add(r, v, NULL)) return 1;
    return 0;
}

static void print_all(const ice_roaring *r) {
    ice_roaring_iter it;
    ice_roaring_iter_init(&it, r);
    uint64_t buf[512];
    uint32_t n;
    while ((n = ice_roaring_iter_next(&it, buf, 512)) > 0)
        for (uint32_t i = 0; i < n; i++) printf("%llu\n", (unsigned long long)buf[i]);
}

static int fail(const sqe_error *err) {
    fprintf(stderr, "error: %s\n", err->message);
    return 1;
}

/* Parses PATH=POSFILE arguments into targets (bitmaps in rs). */
static int targets_from(int argc, char **argv, ice_delete_target *t, ice_roaring *rs) {
    for (int i = 0; i < argc; i++) {
        char *eq = strrchr(argv[i], '=');
        if (!eq) return 1;
        *eq = 0;
        ice_roaring_init(&rs[i]);
        FILE *f = fopen(eq + 1, "r");
        if (!f || load_positions(f, &rs[i])) return 1;
        fclose(f);
        t[i] = (ice_delete_target){.data_file_path = argv[i], .positions = &rs[i]};
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: deletes_driver COMMAND FILE [ARGS]\n");
        return 2;
    }
    const char *cmd = argv[1], *file = argv[2];
    sqe_error err;
    int rc = 0;
    if (!strcmp(cmd, "roaring-write")) {
        ice_roaring r;
        ice_roaring_init(&r);
        if (load_positions(stdin, &r)) return 1;
        size_t len = ice_roaring_portable_size(&r);
        uint8_t *buf = malloc(len);
        ice_roaring_portable_write(&r, buf);
        FILE *f = fopen(file, "wb");
        if (!f || fwrite(buf, 1, len, f) != len) rc = 1;
        if (f) fclose(f);
        free(buf);
        ice_roaring_reset(&r);
        return rc;
    }
    if (!strcmp(cmd, "roaring-read")) {
        FILE *f = fopen(file, "rb");
        if (!f) return 1;
        uint8_t *buf = malloc(1 << 26);
        size_t len = fread(buf, 1, 1 << 26, f);
        fclose(f);
        ice_roaring r;
        ice_roaring_init(&r);
        size_t used;
        rc = ice_roaring_portable_read(&r, buf, len, &used, &err);
        if (!rc && used != len) {
            fprintf(stderr, "error: %zu trailing bytes\n", len - used);
            rc = 1;
        }
        free(buf);
        if (rc) return rc == 1 ? 1 : fail(&err);
        print_all(&r);
        ice_roaring_reset(&r);
        return 0;
    }
    if (!strcmp(cmd, "dv-write") || !strcmp(cmd, "posdel-write")) {
        int n = argc - 3;
        ice_delete_target *t = calloc((size_t)n + 1, sizeof *t);
        ice_roaring *rs = calloc((size_t)n + 1, sizeof *rs);
        ice_data_file *out = calloc((size_t)n + 1, sizeof *out);
        if (targets_from(n, argv + 3, t, rs)) return 2;
        arena a;
        arena_init(&a, NULL);
        if (!strcmp(cmd, "dv-write")) {
            rc = ice_dv_file_write(&a, file, t, (uint32_t)n, out, &err);
            for (int i = 0; !rc && i < n; i++)
                printf("%s %lld %lld %lld %lld\n", out[i].referenced_data_file,
                       (long long)out[i].content_offset, (long long)out[i].content_size_in_bytes,
                       (long long)out[i].record_count, (long long)out[i].file_size_in_bytes);
        } else {
            rc = ice_position_delete_file_write(&a, file, t, (uint32_t)n, NULL, out, &err);
            if (!rc)
                printf("%lld %s\n", (long long)out[0].record_count,
                       out[0].referenced_data_file ? out[0].referenced_data_file : "-");
        }
        for (int i = 0; i < n; i++) ice_roaring_reset(&rs[i]);
        free(t);
        free(rs);
        free(out);
        arena_destroy(&a);
        return rc ? fail(&err) : 0;
    }
    if (!strcmp(cmd, "dv-read")) {
        io_file *f;
        if (io_open(file, &f, &err)) return fail(&err);
        arena a;
        arena_init(&a, NULL);
        ice_puffin_footer *ft;
        rc = ice_puffin_footer_read(&a, f, &ft, &err);
        for (uint32_t b = 0; !rc && b < ft->n_blobs; b++) {
            const ice_puffin_blob *bl = &ft->blobs[b];
            if (strcmp(bl->type, ICE_PUFFIN_DV_TYPE) != 0) continue;
            ice_roaring r;
            ice_roaring_init(&r);
            rc = ice_dv_read(f, bl->offset, bl->length, &r, &err);
            if (rc) break;
            const char *ref = ice_kv_get(&bl->properties, "referenced-data-file");
            const char *card = ice_kv_get(&bl->properties, "cardinality");
            printf("%s\t%s\t%llu\n", ref ? ref : "-", card ? card : "-",
                   (unsigned long long)ice_roaring_cardinality(&r));
            print_all(&r);
            ice_roaring_reset(&r);
        }
        io_close(f);
        arena_destroy(&a);
        return rc ? fail(&err) : 0;
    }
    fprintf(stderr, "unknown command %s\n", cmd);
    return 2;
}
