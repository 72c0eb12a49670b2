/*
 * toml_dump.c: reads a TOML document on stdin, parses it with src/common/toml.c and prints it as
 * toml-test style typed JSON on stdout: tables are objects, arrays are arrays, every scalar is
 * {"type": "<toml-test type>", "value": "<text>"}. Used by test_toml_oracle.py, which compares
 * the output with Python's tomllib on the same text.
 *
 * Canonical value text (so the oracle can produce the same from Python objects): integers in
 * decimal; floats as "%.17g" or inf/-inf/nan; booleans true/false; date-times as
 * YYYY-MM-DDTHH:MM:SS.ffffff with the offset as +HH:MM (microseconds, truncated); local dates
 * YYYY-MM-DD; local times HH:MM:SS.ffffff.
 *
 * Exit status: 0 and JSON on success; 1 with "line:column: message" on stderr when the document
 * is invalid; 2 on usage or I/O errors.
 *
 * Batch mode (`toml_dump --batch`): stdin holds records "<length>\n<length bytes>"; for each one
 * a line "OK <json>" or "ERR <line>:<column>: <message>" (newlines in the message become
 * spaces) is written to stdout, so one process checks thousands of documents.
 *
 * Build: gcc -std=gnu17 -Iinclude -Isrc tests/config/toml_dump.c src/common/toml.c
 *        src/common/arena.c src/common/mem.c src/common/err.c src/common/strbuf.c -lm
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/strbuf.h"
#include "common/toml.h"

static void json_string(strbuf *sb, const char *s, size_t len) {
    strbuf_putc(sb, '"');
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            strbuf_putc(sb, '\\');
            strbuf_putc(sb, (char)c);
        } else if (c < 0x20 || c == 0x7f) {
            strbuf_printf(sb, "\\u%04x", c);
        } else {
            strbuf_putc(sb, (char)c);
        }
    }
    strbuf_putc(sb, '"');
}

static void typed(strbuf *sb, const char *type, const char *value) {
    strbuf_printf(sb, "{\"type\": \"%s\", \"value\": ", type);
    json_string(sb, value, strlen(value));
    strbuf_putc(sb, '}');
}

static void dump(strbuf *sb, const toml_value *v) {
    char buf[96];
    const toml_datetime *dt = &v->u.dt;
    switch (v->type) {
    case TOML_TABLE:
        strbuf_putc(sb, '{');
        for (size_t i = 0; i < toml_table_count(v); i++) {
            const toml_kv *kv = toml_table_at(v, i);
            if (i) strbuf_puts(sb, ", ");
            json_string(sb, kv->key, kv->key_len);
            strbuf_puts(sb, ": ");
            dump(sb, kv->value);
        }
        strbuf_putc(sb, '}');
        return;
    case TOML_ARRAY:
        strbuf_putc(sb, '[');
        for (size_t i = 0; i < toml_array_count(v); i++) {
            if (i) strbuf_puts(sb, ", ");
            dump(sb, toml_array_at(v, i));
        }
        strbuf_putc(sb, ']');
        return;
    case TOML_STRING:
        strbuf_puts(sb, "{\"type\": \"string\", \"value\": ");
        json_string(sb, v->u.str.ptr, v->u.str.len);
        strbuf_putc(sb, '}');
        return;
    case TOML_INTEGER:
        snprintf(buf, sizeof buf, "%lld", (long long)v->u.integer);
        typed(sb, "integer", buf);
        return;
    case TOML_FLOAT:
        if (isnan(v->u.flt))
            snprintf(buf, sizeof buf, "nan");
        else if (isinf(v->u.flt))
            snprintf(buf, sizeof buf, "%sinf", v->u.flt < 0 ? "-" : "");
        else
            snprintf(buf, sizeof buf, "%.17g", v->u.flt);
        typed(sb, "float", buf);
        return;
    case TOML_BOOL: typed(sb, "bool", v->u.boolean ? "true" : "false"); return;
    case TOML_DATETIME: {
        int m = dt->offset_minutes, am = m < 0 ? -m : m;
        snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%06d%c%02d:%02d", dt->year,
                 dt->month, dt->day, dt->hour, dt->minute, dt->second, dt->nanosecond / 1000,
                 m < 0 ? '-' : '+', am / 60, am % 60);
        typed(sb, "datetime", buf);
        return;
    }
    case TOML_DATETIME_LOCAL:
        snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%06d", dt->year, dt->month,
                 dt->day, dt->hour, dt->minute, dt->second, dt->nanosecond / 1000);
        typed(sb, "datetime-local", buf);
        return;
    case TOML_DATE_LOCAL:
        snprintf(buf, sizeof buf, "%04d-%02d-%02d", dt->year, dt->month, dt->day);
        typed(sb, "date-local", buf);
        return;
    case TOML_TIME_LOCAL:
        snprintf(buf, sizeof buf, "%02d:%02d:%02d.%06d", dt->hour, dt->minute, dt->second,
                 dt->nanosecond / 1000);
        typed(sb, "time-local", buf);
        return;
    }
}

static int one(const char *text, size_t len, strbuf *out, int batch) {
    toml_doc *doc = NULL;
    sqe_error err;
    int rc = toml_parse(text, len, &doc, &err);
    if (rc != SQE_OK) {
        if (!batch) {
            fprintf(stderr, "%d:%d: %s\n", err.line, err.column, err.message);
            return 1;
        }
        for (char *c = err.message; *c; c++)
            if (*c == '\n' || *c == '\r') *c = ' ';
        strbuf_printf(out, "ERR %d:%d: %s\n", err.line, err.column, err.message);
        return 1;
    }
    if (batch) strbuf_puts(out, "OK ");
    dump(out, doc->root);
    strbuf_putc(out, '\n');
    toml_doc_destroy(doc);
    return 0;
}

static int run_batch(void) {
    char header[32];
    while (fgets(header, sizeof header, stdin)) {
        char *end;
        unsigned long long n = strtoull(header, &end, 10);
        if (*end != '\n' || n > (1u << 26)) {
            fprintf(stderr, "toml_dump: bad record header\n");
            return 2;
        }
        char *text = malloc(n + 1);
        if (!text || fread(text, 1, n, stdin) != n) {
            fprintf(stderr, "toml_dump: short record\n");
            free(text);
            return 2;
        }
        strbuf out;
        strbuf_init(&out);
        one(text, n, &out, 1);
        free(text);
        fwrite(out.data, 1, out.len, stdout);
        fflush(stdout);
        strbuf_reset(&out);
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 2 && strcmp(argv[1], "--batch") == 0) return run_batch();
    strbuf in;
    strbuf_init(&in);
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, stdin)) > 0) strbuf_append(&in, chunk, n);
    if (in.failed || ferror(stdin)) {
        fprintf(stderr, "toml_dump: cannot read stdin\n");
        return 2;
    }
    strbuf out;
    strbuf_init(&out);
    int rc = one(in.data ? in.data : "", in.len, &out, 0);
    strbuf_reset(&in);
    fwrite(out.data ? out.data : "", 1, out.len, stdout);
    strbuf_reset(&out);
    return rc;
}
