/*
 * data_writer_driver.c: drives ice_data_writer for tests/iceberg/test_data_writer_interop.py.
 *
 * Usage: data_writer_driver METADATA_JSON DATA_DIR ROWS OUT_JSON [TARGET_BYTES [MAX_OPEN [CHUNK]]]
 * Reads table metadata (current schema, default spec, properties), generates ROWS rows of the
 * test table (columns by name; the formulas are mirrored in the Python test), writes them in
 * chunks of CHUNK rows (default 1000) and prints every data file record as JSON to OUT_JSON:
 * path, spec id, partition values (Appendix D hex, null), counts, metrics maps, bounds (hex),
 * split offsets, sort order id. Exit status 0 on success; on error prints it and exits 1.
 *
 * Columns: id long, name string, price double, ts timestamp, d date, amount decimal(10,2),
 * flag boolean, bin binary, point struct<x double, y int>, tags list<string>, f float,
 * props map<string, int>.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iceberg/data_writer.h"

static char *read_all(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    if (b) b[n] = 0;
    *len = (size_t)n;
    return b;
}

static void set_str(vec *v, uint32_t r, const char *s) {
    bool ok = true;
    VEC_DATA(v, sqe_str)[r] = vec_str_copy(v, s, (uint32_t)strlen(s), &ok);
}

static void set_bytes(vec *v, uint32_t r, const uint8_t *p, uint32_t n) {
    bool ok = true;
    VEC_DATA(v, sqe_str)[r] = vec_str_copy(v, (const char *)p, n, &ok);
}

/* Row i of column `name` into row r of v. */
static int gen(const char *name, vec *v, uint32_t r, int64_t i, sqe_error *err) {
    char buf[256];
    if (!strcmp(name, "id")) {
        VEC_DATA(v, int64_t)[r] = i;
    } else if (!strcmp(name, "name")) {
        if (i % 11 == 5) return vec_set_null(v, r);
        if (i % 17 == 0) {
            int k = 0;
            for (int j = 0; j < 20; j++) k += snprintf(buf + k, sizeof buf - (size_t)k, "\xc3\xbc");
            snprintf(buf + k, sizeof buf - (size_t)k, "long-%lld", (long long)i);
        } else {
            snprintf(buf, sizeof buf, "name-%lld", (long long)(i % 37));
        }
        set_str(v, r, buf);
    } else if (!strcmp(name, "price")) {
        if (i % 11 == 3) return vec_set_null(v, r);
        VEC_DATA(v, double)[r] = i % 13 == 0 ? NAN : (double)(i % 101) * 1.5 - 20;
    } else if (!strcmp(name, "ts")) {
        if (i % 19 == 7) return vec_set_null(v, r);
        VEC_DATA(v, int64_t)[r] = 1700000000000000LL + i * 3600000000LL * 7 - (i % 23 == 0 ? 1800000000000000LL : 0);
    } else if (!strcmp(name, "d")) {
        VEC_DATA(v, int32_t)[r] = (int32_t)(i % 23 == 0 ? -400 : 19000 + (i * 3) % 400);
    } else if (!strcmp(name, "amount")) {
        if (i % 29 == 1) return vec_set_null(v, r);
        VEC_DATA(v, int64_t)[r] = (i * 12345) % 1000000 - 500000;
    } else if (!strcmp(name, "flag")) {
        VEC_DATA(v, uint8_t)[r] = i % 3 == 0;
    } else if (!strcmp(name, "bin")) {
        if (i % 31 == 2) return vec_set_null(v, r);
        uint8_t b[32];
        uint32_t n = (uint32_t)(i % 20);
        memset(b, (int)(i % 256), n);
        set_bytes(v, r, b, n);
    } else if (!strcmp(name, "point")) {
        if (i % 7 == 6) return vec_set_null(v, r);
        VEC_DATA(&v->children[0], double)[r] = (double)i * 0.25;
        VEC_DATA(&v->children[1], int32_t)[r] = (int32_t)(i % 5);
    } else if (!strcmp(name, "tags")) {
        if (i % 9 == 8) return vec_set_null(v, r);
        uint32_t n = (uint32_t)(i % 3);
        SQE_TRY(vec_reserve(&v->children[0], v->child_len + n, err));
        VEC_DATA(v, sqe_list_entry)[r] = (sqe_list_entry){v->child_len, n};
        for (uint32_t j = 0; j < n; j++) {
            snprintf(buf, sizeof buf, "t%lld", (long long)(i % 4 + j));
            set_str(&v->children[0], v->child_len + j, buf);
        }
        v->child_len += n;
    } else if (!strcmp(name, "f")) {
        VEC_DATA(v, float)[r] = i % 5 == 0 ? NAN : (float)i * 0.5f;
    } else if (!strcmp(name, "props")) {
        if (i % 10 == 9) return vec_set_null(v, r);
        uint32_t n = (uint32_t)(i % 3);
        SQE_TRY(vec_reserve(&v->children[0], v->child_len + n, err));
        SQE_TRY(vec_reserve(&v->children[1], v->child_len + n, err));
        VEC_DATA(v, sqe_list_entry)[r] = (sqe_list_entry){v->child_len, n};
        for (uint32_t j = 0; j < n; j++) {
            snprintf(buf, sizeof buf, "k%u", j);
            set_str(&v->children[0], v->child_len + j, buf);
            if ((i + j) % 4 == 0) SQE_TRY(vec_set_null(&v->children[1], v->child_len + j));
            else VEC_DATA(&v->children[1], int32_t)[v->child_len + j] = (int32_t)(i * 10 + j);
        }
        v->child_len += n;
    } else {
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "driver: no generator for column %s", name);
    }
    return SQE_OK;
}

static void hex(FILE *o, const uint8_t *p, size_t n) {
    fputc('"', o);
    for (size_t i = 0; i < n; i++) fprintf(o, "%02x", p[i]);
    fputc('"', o);
}

static void counts(FILE *o, const char *name, const ice_counts *c) {
    fprintf(o, ", \"%s\": {", name);
    for (uint32_t i = 0; i < c->n; i++)
        fprintf(o, "%s\"%d\": %lld", i ? ", " : "", c->items[i].field_id, (long long)c->items[i].value);
    fputc('}', o);
}

static void bounds(FILE *o, const char *name, const ice_bounds *b) {
    fprintf(o, ", \"%s\": {", name);
    for (uint32_t i = 0; i < b->n; i++) {
        fprintf(o, "%s\"%d\": ", i ? ", " : "", b->items[i].field_id);
        hex(o, b->items[i].raw.data, b->items[i].raw.len);
    }
    fputc('}', o);
}

int main(int argc, char **argv) {
    if (argc < 5) {
        fprintf(stderr, "usage: %s METADATA DATA_DIR ROWS OUT [TARGET [MAX_OPEN [CHUNK]]]\n", argv[0]);
        return 2;
    }
    sqe_error err = {0};
    arena a;
    arena_init(&a, NULL);
    size_t len;
    char *json = read_all(argv[1], &len);
    ice_metadata *md = NULL;
    ice_data_writer *w = NULL;
    vec_chunk chunk = {0};
    int rc = json ? ice_metadata_parse(&a, json, len, &md, &err) : err_set(&err, SQE_ERR_IO_ERROR, "cannot read metadata");
    int64_t rows = atoll(argv[3]);
    uint32_t chunk_rows = argc > 7 ? (uint32_t)atoi(argv[7]) : 1000;
    const ice_schema *schema = md ? ice_metadata_current_schema(md) : NULL;
    ice_write_options o;
    if (!rc) rc = ice_write_options_from_properties(&md->properties, &o, &err);
    if (!rc) {
        o.data_dir = argv[2];
        o.format_version = md->format_version;
        if (argc > 5) o.target_file_size = strtoull(argv[5], NULL, 10);
        if (argc > 6) o.max_open_files = (uint32_t)atoi(argv[6]);
        rc = ice_data_writer_open(schema, ice_metadata_default_spec(md), &o, &a, NULL, &w, &err);
    }
    uint32_t n_cols = schema ? schema->type.n_fields : 0;
    sqe_type *types = calloc(n_cols ? n_cols : 1, sizeof(sqe_type));
    for (uint32_t c = 0; !rc && c < n_cols; c++)
        rc = ice_schema_to_sqe_type(&schema->type.fields[c].type, &types[c], &err);
    if (!rc) rc = vec_chunk_init(&chunk, n_cols, types, chunk_rows, NULL, &err);
    for (int64_t i = 0; !rc && i < rows;) {
        vec_chunk_reset(&chunk);
        uint32_t n = 0;
        for (; n < chunk_rows && i < rows && !rc; n++, i++)
            for (uint32_t c = 0; c < n_cols && !rc; c++)
                rc = gen(schema->type.fields[c].name, &chunk.cols[c], n, i, &err);
        chunk.count = n;
        if (!rc) rc = ice_data_writer_write(w, &chunk, &err);
    }
    ice_data_file *files = NULL;
    uint32_t n_files = 0;
    if (!rc) {
        rc = ice_data_writer_finish(w, &files, &n_files, &err);
        w = NULL;
    }
    if (w) ice_data_writer_abort(w);
    vec_chunk_destroy(&chunk);
    free(types);
    free(json);
    if (rc) {
        fprintf(stderr, "error %d: %s\n", rc, err.message);
        arena_destroy(&a);
        return 1;
    }
    FILE *out = fopen(argv[4], "w");
    if (!out) return 1;
    const ice_partition_spec *spec = ice_metadata_default_spec(md);
    fputs("[\n", out);
    for (uint32_t i = 0; i < n_files; i++) {
        const ice_data_file *f = &files[i];
        fprintf(out, "%s{\"path\": \"%s\", \"format\": \"%s\", \"spec_id\": %d, \"record_count\": %lld, "
                "\"file_size\": %lld, \"sort_order_id\": %d, \"partition\": [",
                i ? ",\n" : "", f->file_path, f->file_format, f->spec_id, (long long)f->record_count,
                (long long)f->file_size_in_bytes, f->sort_order_id);
        for (uint32_t k = 0; k < f->n_partition; k++) {
            if (k) fputs(", ", out);
            if (vec_is_null(&f->partition[k], f->partition_row)) {
                fputs("null", out);
                continue;
            }
            ice_type t;
            ice_bytes b;
            if (ice_partition_field_type(schema, &spec->fields[k], &t, &err) ||
                ice_single_value_encode(&a, &t, &f->partition[k], f->partition_row, &b, &err)) {
                fprintf(stderr, "partition encode: %s\n", err.message);
                return 1;
            }
            hex(out, b.data, b.len);
        }
        fputc(']', out);
        counts(out, "column_sizes", &f->column_sizes);
        counts(out, "value_counts", &f->value_counts);
        counts(out, "null_value_counts", &f->null_value_counts);
        counts(out, "nan_value_counts", &f->nan_value_counts);
        bounds(out, "lower_bounds", &f->lower_bounds);
        bounds(out, "upper_bounds", &f->upper_bounds);
        fputs(", \"split_offsets\": [", out);
        for (uint32_t k = 0; k < f->n_split_offsets; k++)
            fprintf(out, "%s%lld", k ? ", " : "", (long long)f->split_offsets[k]);
        fputs("]}", out);
    }
    fputs("\n]\n", out);
    fclose(out);
    arena_destroy(&a);
    return 0;
}
