/*
 * arrow_ipc_driver.c: test driver for Arrow IPC interoperability (tests/arrow/test_arrow_interop.py).
 *
 *   arrow_ipc_driver write SPEC.json OUT.arrows   builds SQE vectors from SPEC and writes an IPC stream
 *   arrow_ipc_driver read IN.arrows               decodes an IPC stream and prints it as JSON
 *
 * SPEC: {"columns": [{"name", "type" (SQL spelling), "nullable", "shape": flat|const|dict,
 *        "meta": {k: v}}], "metadata": {k: v}, "batches": [[values of col 0], [values of col 1], ...]}
 * Value conventions (both directions): null; boolean; integers; real/double as numbers or
 * "NaN"/"Infinity"/"-Infinity"; decimal as a string; varchar/char/json as strings; varbinary and
 * uuid as lowercase hex; date as days; time, timestamp, timestamp with time zone and interval day
 * to second as microseconds; interval year to month as months; array as a list; map as a list of
 * [key, value]; row as a list of field values.
 * Shapes: "const" makes each batch's column a constant vector from its first value; "dict" stores
 * the values reversed in a flat vector and selects them back in order through a DICT vector.
 * A NULL row value leaves its children unset (the encoder must not read them).
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "format/arrow/arrow_ipc.h"
#include "types/decimal.h"

__attribute__((noreturn)) static void die(const char *msg, const sqe_error *err) {
    fprintf(stderr, "arrow_ipc_driver: %s%s%s\n", msg, err ? ": " : "", err ? err->message : "");
    exit(1);
}

static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static size_t unhex(const char *s, uint8_t *out, size_t cap) {
    size_t n = strlen(s) / 2;
    if (n > cap) die("hex value too long", NULL);
    for (size_t i = 0; i < n; i++) {
        int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);
        if (hi < 0 || lo < 0) die("bad hex", NULL);
        out[i] = (uint8_t)(hi * 16 + lo);
    }
    return n;
}

static double num(json_t *j) {
    if (json_is_string(j)) {
        const char *s = json_string_value(j);
        if (!strcmp(s, "NaN")) return NAN;
        if (!strcmp(s, "Infinity")) return INFINITY;
        if (!strcmp(s, "-Infinity")) return -INFINITY;
        die("bad float", NULL);
    }
    return json_number_value(j);
}

static void set_value(vec *v, uint32_t row, json_t *j) {
    sqe_error err;
    if (json_is_null(j)) {
        if (vec_set_null(v, row)) die("oom", NULL);
        return;
    }
    vec_set_valid(v, row);
    sqe_type t = v->type;
    switch ((type_id)t.id) {
    case TYPE_BOOLEAN: VEC_DATA(v, uint8_t)[row] = json_is_true(j); break;
    case TYPE_TINYINT: VEC_DATA(v, int8_t)[row] = (int8_t)json_integer_value(j); break;
    case TYPE_SMALLINT: VEC_DATA(v, int16_t)[row] = (int16_t)json_integer_value(j); break;
    case TYPE_INTEGER:
    case TYPE_DATE:
    case TYPE_INTERVAL_YM: VEC_DATA(v, int32_t)[row] = (int32_t)json_integer_value(j); break;
    case TYPE_BIGINT:
    case TYPE_TIME:
    case TYPE_TIMESTAMP:
    case TYPE_INTERVAL_DS: VEC_DATA(v, int64_t)[row] = json_integer_value(j); break;
    case TYPE_TIMESTAMP_TZ:
        VEC_DATA(v, sqe_timestamp_tz)[row] = (sqe_timestamp_tz){json_integer_value(j), 0, 0};
        break;
    case TYPE_REAL: VEC_DATA(v, float)[row] = (float)num(j); break;
    case TYPE_DOUBLE: VEC_DATA(v, double)[row] = num(j); break;
    case TYPE_DECIMAL: {
        const char *s = json_string_value(j);
        int128 x = 0;
        if (!s || decimal_parse(s, strlen(s), t.precision, t.scale, &x) != 0) die("bad decimal", NULL);
        decimal_put(v->data, t, row, x);
        break;
    }
    case TYPE_VARCHAR:
    case TYPE_CHAR:
    case TYPE_JSON: {
        bool ok = true;
        const char *s = json_string_value(j);
        if (!s) die("expected a string", NULL);
        VEC_DATA(v, sqe_str)[row] = vec_str_copy(v, s, (uint32_t)json_string_length(j), &ok);
        if (!ok) die("oom", NULL);
        break;
    }
    case TYPE_VARBINARY: {
        const char *s = json_string_value(j);
        if (!s) die("expected hex", NULL);
        size_t cap = strlen(s) / 2 + 1;
        uint8_t *tmp = malloc(cap);
        size_t n = unhex(s, tmp, cap);
        bool ok = true;
        VEC_DATA(v, sqe_str)[row] = vec_str_copy(v, (const char *)tmp, (uint32_t)n, &ok);
        free(tmp);
        if (!ok) die("oom", NULL);
        break;
    }
    case TYPE_UUID: {
        const char *s = json_string_value(j);
        if (!s || unhex(s, (uint8_t *)v->data + 16 * (size_t)row, 16) != 16) die("bad uuid", NULL);
        break;
    }
    case TYPE_ARRAY:
    case TYPE_MAP: {
        uint32_t n = (uint32_t)json_array_size(j);
        uint32_t start = v->child_len;
        for (uint32_t c = 0; c < v->n_children; c++)
            if (vec_reserve(&v->children[c], start + n + 1, &err)) die("reserve", &err);
        for (uint32_t i = 0; i < n; i++) {
            json_t *e = json_array_get(j, i);
            if (t.id == TYPE_ARRAY) {
                set_value(&v->children[0], start + i, e);
            } else {
                set_value(&v->children[0], start + i, json_array_get(e, 0));
                set_value(&v->children[1], start + i, json_array_get(e, 1));
            }
        }
        v->child_len = start + n;
        VEC_DATA(v, sqe_list_entry)[row] = (sqe_list_entry){start, n};
        break;
    }
    case TYPE_ROW:
        for (uint32_t c = 0; c < v->n_children; c++) set_value(&v->children[c], row, json_array_get(j, c));
        break;
    default: die("unsupported type in spec", NULL);
    }
}

static sqe_type parse_type(const char *s) {
    sqe_type t;
    if (type_parse(s, strlen(s), &t) != 0) {
        fprintf(stderr, "bad type %s\n", s);
        exit(1);
    }
    return t;
}

static int cmd_write(const char *spec_path, const char *out_path) {
    json_error_t jerr;
    json_t *spec = json_load_file(spec_path, JSON_ALLOW_NUL, &jerr);
    if (!spec) die(jerr.text, NULL);
    json_t *cols = json_object_get(spec, "columns");
    uint32_t n_cols = (uint32_t)json_array_size(cols);
    arrow_column *acols = calloc(n_cols + 1, sizeof *acols);
    sqe_type *types = calloc(n_cols + 1, sizeof *types);
    for (uint32_t c = 0; c < n_cols; c++) {
        json_t *col = json_array_get(cols, c);
        acols[c].name = json_string_value(json_object_get(col, "name"));
        types[c] = acols[c].type = parse_type(json_string_value(json_object_get(col, "type")));
        json_t *nb = json_object_get(col, "nullable");
        acols[c].nullable = nb ? json_is_true(nb) : true;
        json_t *meta = json_object_get(col, "meta");
        if (meta) {
            arrow_kv *kv = calloc(json_object_size(meta) + 1, sizeof *kv);
            const char *k;
            json_t *val;
            uint32_t i = 0;
            json_object_foreach(meta, k, val) kv[i++] = (arrow_kv){k, json_string_value(val)};
            acols[c].meta = kv;
            acols[c].n_meta = i;
        }
    }
    arrow_schema schema = {.n_cols = n_cols, .cols = acols};
    json_t *smeta = json_object_get(spec, "metadata");
    arrow_kv *skv = NULL;
    if (smeta) {
        skv = calloc(json_object_size(smeta) + 1, sizeof *skv);
        const char *k;
        json_t *val;
        uint32_t i = 0;
        json_object_foreach(smeta, k, val) skv[i++] = (arrow_kv){k, json_string_value(val)};
        schema.meta = skv;
        schema.n_meta = i;
    }
    sqe_error err;
    arrow_buf out;
    arrow_buf_init(&out);
    if (arrow_stream_write_schema(&out, &schema, &err)) die("schema", &err);
    json_t *batches = json_object_get(spec, "batches");
    for (size_t b = 0; b < json_array_size(batches); b++) {
        json_t *batch = json_array_get(batches, b);
        uint32_t n_rows = n_cols ? (uint32_t)json_array_size(json_array_get(batch, 0)) : 0;
        vec_chunk chunk, store;
        if (vec_chunk_init(&chunk, n_cols, types, n_rows ? n_rows : 1, NULL, &err)) die("chunk", &err);
        if (vec_chunk_init(&store, n_cols, types, n_rows ? n_rows : 1, NULL, &err)) die("chunk", &err);
        uint32_t *sels = calloc((size_t)(n_rows ? n_rows : 1) * (n_cols ? n_cols : 1), sizeof(uint32_t));
        for (uint32_t c = 0; c < n_cols; c++) {
            json_t *vals = json_array_get(batch, c);
            const char *shape = json_string_value(json_object_get(json_array_get(cols, c), "shape"));
            if (shape && !strcmp(shape, "const")) {
                if (n_rows) set_value(&store.cols[c], 0, json_array_get(vals, 0));
                if (vec_set_const_from(&chunk.cols[c], &store.cols[c], 0, &err)) die("const", &err);
            } else if (shape && !strcmp(shape, "dict")) {
                uint32_t *sel = sels + (size_t)c * n_rows;
                for (uint32_t r = 0; r < n_rows; r++) {
                    set_value(&store.cols[c], n_rows - 1 - r, json_array_get(vals, r));
                    sel[r] = n_rows - 1 - r;
                }
                vec_set_dict(&chunk.cols[c], &store.cols[c], sel);
            } else {
                for (uint32_t r = 0; r < n_rows; r++) set_value(&chunk.cols[c], r, json_array_get(vals, r));
            }
        }
        chunk.count = n_rows;
        if (arrow_stream_write_batch(&out, &chunk, 0, n_rows, &err)) die("batch", &err);
        vec_chunk_destroy(&chunk);
        vec_chunk_destroy(&store);
        free(sels);
    }
    if (arrow_stream_write_eos(&out, &err)) die("eos", &err);
    FILE *f = fopen(out_path, "wb");
    if (!f || fwrite(out.data, 1, out.len, f) != out.len || fclose(f)) die("cannot write output", NULL);
    arrow_buf_reset(&out);
    for (uint32_t c = 0; c < n_cols; c++) free((void *)acols[c].meta);
    free(skv);
    free(acols);
    free(types);
    json_decref(spec);
    return 0;
}

static json_t *hex_json(const uint8_t *p, size_t n) {
    char *s = malloc(2 * n + 1);
    for (size_t i = 0; i < n; i++) sprintf(s + 2 * i, "%02x", p[i]);
    s[2 * n] = 0;
    json_t *j = json_string(s);
    free(s);
    return j;
}

static json_t *float_json(double d) {
    if (isnan(d)) return json_string("NaN");
    if (isinf(d)) return json_string(d > 0 ? "Infinity" : "-Infinity");
    return json_real(d);
}

static json_t *value_json(const vec *v, uint32_t row) {
    uint32_t r;
    const vec *f = vec_resolve(v, row, &r);
    if (!vec_is_valid_flat(f, r)) return json_null();
    sqe_type t = f->type;
    switch ((type_id)t.id) {
    case TYPE_BOOLEAN: return json_boolean(VEC_DATA(f, uint8_t)[r]);
    case TYPE_TINYINT: return json_integer(VEC_DATA(f, int8_t)[r]);
    case TYPE_SMALLINT: return json_integer(VEC_DATA(f, int16_t)[r]);
    case TYPE_INTEGER:
    case TYPE_DATE:
    case TYPE_INTERVAL_YM: return json_integer(VEC_DATA(f, int32_t)[r]);
    case TYPE_BIGINT:
    case TYPE_TIME:
    case TYPE_TIMESTAMP:
    case TYPE_INTERVAL_DS: return json_integer(VEC_DATA(f, int64_t)[r]);
    case TYPE_TIMESTAMP_TZ: return json_integer(VEC_DATA(f, sqe_timestamp_tz)[r].micros);
    case TYPE_REAL: return float_json(VEC_DATA(f, float)[r]);
    case TYPE_DOUBLE: return float_json(VEC_DATA(f, double)[r]);
    case TYPE_DECIMAL: {
        char buf[64];
        int n = decimal_format(decimal_get(f->data, t, r), t.scale, buf);
        return json_stringn(buf, (size_t)n);
    }
    case TYPE_VARCHAR:
    case TYPE_CHAR:
    case TYPE_JSON: {
        const sqe_str *s = &VEC_DATA(f, sqe_str)[r];
        return json_stringn(sqe_str_data(s), s->len);
    }
    case TYPE_VARBINARY: {
        const sqe_str *s = &VEC_DATA(f, sqe_str)[r];
        return hex_json((const uint8_t *)sqe_str_data(s), s->len);
    }
    case TYPE_UUID: return hex_json((const uint8_t *)f->data + 16 * (size_t)r, 16);
    case TYPE_ARRAY:
    case TYPE_MAP: {
        sqe_list_entry e = VEC_DATA(f, sqe_list_entry)[r];
        json_t *a = json_array();
        for (uint32_t i = 0; i < e.length; i++) {
            if (t.id == TYPE_ARRAY) {
                json_array_append_new(a, value_json(&f->children[0], e.offset + i));
            } else {
                json_t *pair = json_array();
                json_array_append_new(pair, value_json(&f->children[0], e.offset + i));
                json_array_append_new(pair, value_json(&f->children[1], e.offset + i));
                json_array_append_new(a, pair);
            }
        }
        return a;
    }
    case TYPE_ROW: {
        json_t *a = json_array();
        for (uint32_t c = 0; c < f->n_children; c++) json_array_append_new(a, value_json(&f->children[c], r));
        return a;
    }
    case TYPE_UNKNOWN: return json_null();
    default: return json_string("?");
    }
}

static int cmd_read(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) die("cannot open input", NULL);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc(size > 0 ? (size_t)size : 1);
    if (size > 0 && fread(buf, 1, (size_t)size, f) != (size_t)size) die("short read", NULL);
    fclose(f);
    sqe_error err;
    arrow_stream_reader rd;
    if (arrow_stream_reader_open(&rd, buf, (size_t)size, NULL, &err)) {
        json_t *e = json_pack("{ss}", "error", err.message);
        char *text = json_dumps(e, JSON_COMPACT);
        puts(text);
        free(text);
        json_decref(e);
        free(buf);
        return 2;
    }
    json_t *out = json_object();
    json_t *cols = json_array();
    for (uint32_t c = 0; c < rd.schema.n_cols; c++) {
        const arrow_column *col = &rd.schema.cols[c];
        char tbuf[512];
        type_format(col->type, tbuf, sizeof tbuf);
        json_t *jc = json_object();
        json_object_set_new(jc, "name", json_string(col->name));
        json_object_set_new(jc, "type", json_string(tbuf));
        json_object_set_new(jc, "nullable", json_boolean(col->nullable));
        json_t *meta = json_object();
        for (uint32_t i = 0; i < col->n_meta; i++)
            json_object_set_new(meta, col->meta[i].key, json_string(col->meta[i].value));
        json_object_set_new(jc, "meta", meta);
        json_array_append_new(cols, jc);
    }
    json_object_set_new(out, "columns", cols);
    json_t *smeta = json_object();
    for (uint32_t i = 0; i < rd.schema.n_meta; i++)
        json_object_set_new(smeta, rd.schema.meta[i].key, json_string(rd.schema.meta[i].value));
    json_object_set_new(out, "metadata", smeta);
    json_t *batches = json_array();
    int rc = 0;
    for (;;) {
        vec_chunk chunk;
        bool eos;
        if (arrow_stream_reader_next(&rd, &chunk, &eos, &err)) {
            json_object_set_new(out, "error", json_string(err.message));
            rc = 2;
            break;
        }
        if (eos) break;
        json_t *jb = json_array();
        for (uint32_t c = 0; c < chunk.n_cols; c++) {
            json_t *vals = json_array();
            for (uint32_t r = 0; r < chunk.count; r++) json_array_append_new(vals, value_json(&chunk.cols[c], r));
            json_array_append_new(jb, vals);
        }
        json_array_append_new(batches, jb);
        vec_chunk_destroy(&chunk);
    }
    json_object_set_new(out, "batches", batches);
    char *text = json_dumps(out, JSON_COMPACT);
    puts(text);
    free(text);
    json_decref(out);
    arrow_stream_reader_close(&rd);
    free(buf);
    return rc;
}

int main(int argc, char **argv) {
    if (argc == 4 && !strcmp(argv[1], "write")) return cmd_write(argv[2], argv[3]);
    if (argc == 3 && !strcmp(argv[1], "read")) return cmd_read(argv[2]);
    fprintf(stderr, "usage: arrow_ipc_driver write SPEC.json OUT.arrows | read IN.arrows\n");
    return 64;
}
