/*
 * metadata_roundtrip.c: test driver for the Iceberg metadata model (src/iceberg/): parses table
 * metadata JSON files and writes them back, for tests/iceberg/test_metadata_interop.py.
 *
 * Usage:
 *   metadata_roundtrip IN OUT [IN OUT ...]   parse each IN, write the re-serialized JSON to OUT
 *   metadata_roundtrip --types IN            print "<id> <name>\t<SQE type>" per column of the
 *                                            current schema (nested fields as a.b), or the error
 * Exit status 0 when every file parsed and was written; otherwise 1, with
 * "<IN>: <ERROR_NAME>: <message>" on stderr for each failure (the other files are still done).
 * Compiled by run_iceberg_tests.sh with gcc directly; not part of the library.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/arena.h"
#include "common/err.h"
#include "common/strbuf.h"
#include "iceberg/metadata.h"
#include "types/types.h"

static char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (n < cap) break;
        char *nb = realloc(buf, cap * 2);
        if (!nb) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    fclose(f);
    *len = n;
    return buf;
}

static int roundtrip(const char *in, const char *out) {
    size_t len;
    char *json = read_file(in, &len);
    if (!json) {
        fprintf(stderr, "%s: cannot read\n", in);
        return 1;
    }
    arena a;
    arena_init(&a, NULL);
    sqe_error err;
    ice_metadata *m = NULL;
    strbuf sb;
    strbuf_init(&sb);
    int rc = ice_metadata_parse(&a, json, len, &m, &err);
    if (rc == SQE_OK) rc = ice_metadata_write(m, &sb, &err);
    if (rc != SQE_OK) {
        fprintf(stderr, "%s: %s: %s\n", in, err_code_lookup(rc)->name, err.message);
    } else {
        FILE *f = fopen(out, "wb");
        if (!f || fwrite(sb.data, 1, sb.len, f) != sb.len) rc = 1;
        if (f && fclose(f) != 0) rc = 1;
        if (rc) fprintf(stderr, "%s: cannot write\n", out);
    }
    strbuf_reset(&sb);
    arena_destroy(&a);
    free(json);
    return rc ? 1 : 0;
}

static void print_fields(const ice_type *t, const char *prefix) {
    for (uint32_t i = 0; i < t->n_fields; i++) {
        const ice_field *f = &t->fields[i];
        char name[512];
        snprintf(name, sizeof name, "%s%s", prefix, f->name);
        sqe_type st;
        sqe_error err;
        char buf[1024];
        if (ice_schema_to_sqe_type(&f->type, &st, &err) == SQE_OK) {
            type_format(st, buf, sizeof buf);
        } else {
            snprintf(buf, sizeof buf, "ERROR %s", err.message);
        }
        printf("%d %s\t%s\n", f->id, name, buf);
        if (f->type.kind == ICE_TYPE_STRUCT || f->type.kind == ICE_TYPE_LIST ||
            f->type.kind == ICE_TYPE_MAP) {
            char sub[520];
            snprintf(sub, sizeof sub, "%s.", name);
            print_fields(&f->type, sub);
        }
    }
}

static int print_types(const char *in) {
    size_t len;
    char *json = read_file(in, &len);
    if (!json) return 1;
    arena a;
    arena_init(&a, NULL);
    sqe_error err;
    ice_metadata *m = NULL;
    int rc = ice_metadata_parse(&a, json, len, &m, &err);
    if (rc == SQE_OK) {
        print_fields(&ice_metadata_current_schema(m)->type, "");
    } else {
        fprintf(stderr, "%s: %s: %s\n", in, err_code_lookup(rc)->name, err.message);
    }
    arena_destroy(&a);
    free(json);
    return rc ? 1 : 0;
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "--types") == 0) return print_types(argv[2]);
    if (argc < 3 || (argc - 1) % 2 != 0) {
        fprintf(stderr, "usage: %s IN OUT [IN OUT ...] | --types IN\n", argv[0]);
        return 2;
    }
    int status = 0;
    for (int i = 1; i + 1 < argc; i += 2) status |= roundtrip(argv[i], argv[i + 1]);
    return status;
}
