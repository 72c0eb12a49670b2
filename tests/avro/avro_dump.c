/*
 * avro_dump.c: test driver for src/format/avro, used by tests/avro/test_avro_interop.py.
 * Built by tests/avro/run_avro_tests.sh with gcc directly (not part of the CMake build).
 *
 *   avro_dump read FILE      line 1: {"codec": ..., "meta": {key: value}} (values as strings
 *                            of code points 0..255, one per byte); then one line per record in
 *                            the Avro JSON encoding (avro_value_to_json)
 *   avro_dump schema FILE    the parsed writer schema as JSON: every node with its type, name,
 *                            logical type, decimal parameters and Iceberg ids
 *   avro_dump write OUT      reads {"schema": <schema>, "codec": "null|deflate|snappy",
 *                            "block_records": N, "meta": {key: string}, "records": [...]} from
 *                            stdin (records in the Avro JSON encoding) and writes OUT
 * Errors go to stderr as "error: <ERROR_NAME>: <message>" with exit status 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "common/arena.h"
#include "common/err.h"
#include "format/avro/avro.h"

static int die(const sqe_error *err) {
    fprintf(stderr, "error: %s: %s\n", err_code_lookup(err->code)->name, err->message);
    return 1;
}

static uint8_t *slurp(FILE *f, size_t *len) {
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    for (;;) {
        if (!buf) return NULL;
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (n < cap) break;
        cap *= 2;
        buf = realloc(buf, cap);
    }
    *len = n;
    return buf;
}

static json_t *latin1(const uint8_t *p, size_t n) {
    char *tmp = malloc(n * 2 + 1);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] < 0x80) {
            tmp[k++] = (char)p[i];
        } else {
            tmp[k++] = (char)(0xc0 | (p[i] >> 6));
            tmp[k++] = (char)(0x80 | (p[i] & 0x3f));
        }
    }
    json_t *j = json_stringn(tmp, k);
    free(tmp);
    return j;
}

static json_t *schema_json(const avro_schema *s, int depth) {
    json_t *j = json_object();
    json_object_set_new(j, "type", json_string(avro_type_name(s->type)));
    if (depth > 30) return j;
    if (s->name) json_object_set_new(j, "name", json_string(s->name));
    if (s->logical) json_object_set_new(j, "logical", json_string(s->logical));
    if (s->logical && strcmp(s->logical, "decimal") == 0) {
        json_object_set_new(j, "precision", json_integer(s->precision));
        json_object_set_new(j, "scale", json_integer(s->scale));
    }
    if (s->has_adjust_to_utc) json_object_set_new(j, "adjust-to-utc", json_boolean(s->adjust_to_utc));
    if (s->has_element_id) json_object_set_new(j, "element-id", json_integer(s->element_id));
    if (s->has_key_id) json_object_set_new(j, "key-id", json_integer(s->key_id));
    if (s->has_value_id) json_object_set_new(j, "value-id", json_integer(s->value_id));
    switch (s->type) {
    case AVRO_RECORD: {
        json_t *fields = json_array();
        for (uint32_t i = 0; i < s->n_fields; i++) {
            const avro_field *f = &s->fields[i];
            json_t *jf = json_object();
            json_object_set_new(jf, "name", json_string(f->name));
            if (f->has_field_id) json_object_set_new(jf, "field-id", json_integer(f->field_id));
            if (f->default_json) json_object_set_new(jf, "default", json_string(f->default_json));
            json_object_set_new(jf, "type", schema_json(f->type, depth + 1));
            json_array_append_new(fields, jf);
        }
        json_object_set_new(j, "fields", fields);
        break;
    }
    case AVRO_ENUM: {
        json_t *syms = json_array();
        for (uint32_t i = 0; i < s->n_symbols; i++) json_array_append_new(syms, json_string(s->symbols[i]));
        json_object_set_new(j, "symbols", syms);
        break;
    }
    case AVRO_FIXED: json_object_set_new(j, "size", json_integer(s->size)); break;
    case AVRO_ARRAY: json_object_set_new(j, "items", schema_json(s->items, depth + 1)); break;
    case AVRO_MAP: json_object_set_new(j, "values", schema_json(s->values, depth + 1)); break;
    case AVRO_UNION: {
        json_t *b = json_array();
        for (uint32_t i = 0; i < s->n_branches; i++) json_array_append_new(b, schema_json(s->branches[i], depth + 1));
        json_object_set_new(j, "branches", b);
        break;
    }
    default: break;
    }
    return j;
}

static int cmd_read(const char *path, bool schema_only) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return 1;
    }
    size_t len;
    uint8_t *buf = slurp(f, &len);
    fclose(f);
    arena a, values;
    arena_init(&a, NULL);
    arena_init(&values, NULL);
    sqe_error err;
    avro_reader *r;
    int status = 0;
    if (avro_reader_open(buf, len, &a, &r, &err) != SQE_OK) {
        status = die(&err);
        goto out_free;
    }
    if (schema_only) {
        json_t *j = schema_json(avro_reader_schema(r), 0);
        char *text = json_dumps(j, JSON_COMPACT);
        printf("%s\n", text);
        free(text);
        json_decref(j);
        avro_reader_close(r);
        goto out_free;
    }
    json_t *head = json_object();
    json_object_set_new(head, "codec", json_string(avro_reader_codec(r)));
    json_t *meta = json_object();
    for (uint32_t i = 0; i < avro_reader_meta_count(r); i++) {
        const uint8_t *v;
        size_t vlen;
        const char *k = avro_reader_meta_at(r, i, &v, &vlen);
        json_object_set_new(meta, k, latin1(v, vlen));
    }
    json_object_set_new(head, "meta", meta);
    char *text = json_dumps(head, JSON_COMPACT);
    printf("%s\n", text);
    free(text);
    json_decref(head);
    avro_reader_set_value_arena(r, &values);
    for (;;) {
        avro_value *v;
        if (avro_reader_next(r, &v, &err) != SQE_OK) {
            status = die(&err);
            break;
        }
        if (!v) break;
        char *line;
        if (avro_value_to_json(v, &line, &err) != SQE_OK) {
            status = die(&err);
            break;
        }
        printf("%s\n", line);
        free(line);
        arena_reset(&values);
    }
    avro_reader_close(r);
out_free:
    arena_destroy(&values);
    arena_destroy(&a);
    free(buf);
    return status;
}

static int cmd_write(const char *path) {
    size_t len;
    uint8_t *in = slurp(stdin, &len);
    json_error_t jerr;
    json_t *doc = json_loadb((const char *)in, len, JSON_ALLOW_NUL, &jerr);
    free(in);
    if (!doc) {
        fprintf(stderr, "error: bad input JSON: %s\n", jerr.text);
        return 1;
    }
    char *schema = json_dumps(json_object_get(doc, "schema"), JSON_ENCODE_ANY | JSON_COMPACT);
    const char *codec_name = json_string_value(json_object_get(doc, "codec"));
    avro_writer_opts opts = {0};
    if (codec_name && strcmp(codec_name, "deflate") == 0) opts.codec = AVRO_CODEC_DEFLATE;
    if (codec_name && strcmp(codec_name, "snappy") == 0) opts.codec = AVRO_CODEC_SNAPPY;
    opts.block_records = (uint32_t)json_integer_value(json_object_get(doc, "block_records"));
    json_t *jmeta = json_object_get(doc, "meta");
    avro_kv kv[64];
    uint32_t n_meta = 0;
    const char *key;
    json_t *val;
    json_object_foreach(jmeta, key, val) {
        if (n_meta == 64) break;
        kv[n_meta++] = (avro_kv){key, (const uint8_t *)json_string_value(val), json_string_length(val)};
    }
    sqe_error err;
    avro_writer *w;
    int status = 0;
    if (avro_writer_open(schema, strlen(schema), kv, n_meta, &opts, &w, &err) != SQE_OK) {
        status = die(&err);
        goto out_doc;
    }
    json_t *records = json_object_get(doc, "records");
    size_t i;
    json_t *rec;
    arena tmp;
    arena_init(&tmp, NULL);
    json_array_foreach(records, i, rec) {
        char *text = json_dumps(rec, JSON_ENCODE_ANY | JSON_COMPACT);
        avro_value *v;
        int rc = avro_value_from_json(&tmp, avro_writer_schema(w), text, strlen(text), &v, &err);
        free(text);
        if (rc == SQE_OK) rc = avro_writer_append(w, v, &err);
        arena_reset(&tmp);
        if (rc != SQE_OK) {
            status = die(&err);
            break;
        }
    }
    arena_destroy(&tmp);
    uint8_t *bytes;
    size_t n;
    if (status == 0 && avro_writer_finish(w, &bytes, &n, &err) != SQE_OK) status = die(&err);
    if (status == 0) {
        FILE *f = fopen(path, "wb");
        if (!f || fwrite(bytes, 1, n, f) != n) {
            perror(path);
            status = 1;
        }
        if (f) fclose(f);
        free(bytes);
    }
    avro_writer_destroy(w);
out_doc:
    free(schema);
    json_decref(doc);
    return status;
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "read") == 0) return cmd_read(argv[2], false);
    if (argc == 3 && strcmp(argv[1], "schema") == 0) return cmd_read(argv[2], true);
    if (argc == 3 && strcmp(argv[1], "write") == 0) return cmd_write(argv[2]);
    fprintf(stderr, "usage: avro_dump read|schema FILE | avro_dump write OUT < spec.json\n");
    return 2;
}
