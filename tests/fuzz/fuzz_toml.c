/*
 * fuzz_toml.c: libFuzzer target for the TOML reader (src/common/toml.c).
 *
 * Each input is parsed as one document. Errors must be SYNTAX_ERROR (or OUT_OF_MEMORY) with a
 * position inside the text. A document that parses is written back as TOML (every table as an
 * inline table, every string as a basic string, floats with 17 digits, date-times with their
 * nanoseconds), parsed again, and the two trees must be equal; anything else aborts.
 *
 * Build (standalone):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Iinclude -Isrc tests/fuzz/fuzz_toml.c \
 *       src/common/toml.c src/common/arena.c src/common/mem.c src/common/err.c \
 *       src/common/strbuf.c -lm -o /tmp/fuzz_toml
 *   /tmp/fuzz_toml -max_len=4096 corpus/
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/strbuf.h"
#include "common/toml.h"

/* Writes v as a TOML value; returns its nesting depth. */
static int write_value(strbuf *sb, const toml_value *v) {
    char buf[64];
    int depth = 0;
    switch (v->type) {
    case TOML_TABLE:
        strbuf_putc(sb, '{');
        for (size_t i = 0; i < toml_table_count(v); i++) {
            const toml_kv *kv = toml_table_at(v, i);
            if (i) strbuf_puts(sb, ", ");
            toml_key_append(sb, kv->key, kv->key_len);
            strbuf_puts(sb, " = ");
            int d = write_value(sb, kv->value);
            if (d > depth) depth = d;
        }
        strbuf_putc(sb, '}');
        return depth + 1;
    case TOML_ARRAY:
        strbuf_putc(sb, '[');
        for (size_t i = 0; i < toml_array_count(v); i++) {
            if (i) strbuf_puts(sb, ", ");
            int d = write_value(sb, toml_array_at(v, i));
            if (d > depth) depth = d;
        }
        strbuf_putc(sb, ']');
        return depth + 1;
    case TOML_STRING: toml_quote_append(sb, v->u.str.ptr, v->u.str.len); return 0;
    case TOML_INTEGER: strbuf_printf(sb, "%lld", (long long)v->u.integer); return 0;
    case TOML_FLOAT:
        if (isnan(v->u.flt))
            strbuf_puts(sb, "nan");
        else if (isinf(v->u.flt))
            strbuf_puts(sb, v->u.flt < 0 ? "-inf" : "inf");
        else
            strbuf_printf(sb, "%.17e", v->u.flt);
        return 0;
    case TOML_BOOL: strbuf_puts(sb, v->u.boolean ? "true" : "false"); return 0;
    default: strbuf_puts(sb, toml_datetime_format(v->type, &v->u.dt, buf, sizeof buf)); return 0;
    }
}

static int same(const toml_value *a, const toml_value *b) {
    if (a->type != b->type) return 0;
    switch (a->type) {
    case TOML_TABLE:
        if (toml_table_count(a) != toml_table_count(b)) return 0;
        for (size_t i = 0; i < toml_table_count(a); i++) {
            const toml_kv *x = toml_table_at(a, i), *y = toml_table_at(b, i);
            if (x->key_len != y->key_len || memcmp(x->key, y->key, x->key_len) != 0) return 0;
            if (!same(x->value, y->value)) return 0;
        }
        return 1;
    case TOML_ARRAY:
        if (toml_array_count(a) != toml_array_count(b)) return 0;
        for (size_t i = 0; i < toml_array_count(a); i++)
            if (!same(toml_array_at(a, i), toml_array_at(b, i))) return 0;
        return 1;
    case TOML_STRING:
        return a->u.str.len == b->u.str.len &&
               memcmp(a->u.str.ptr, b->u.str.ptr, a->u.str.len) == 0;
    case TOML_INTEGER: return a->u.integer == b->u.integer;
    case TOML_FLOAT:
        if (isnan(a->u.flt)) return isnan(b->u.flt);
        return a->u.flt == b->u.flt && signbit(a->u.flt) == signbit(b->u.flt);
    case TOML_BOOL: return a->u.boolean == b->u.boolean;
    default: return memcmp(&a->u.dt, &b->u.dt, sizeof a->u.dt) == 0;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    toml_doc *doc = NULL;
    sqe_error err;
    int rc = toml_parse((const char *)data, size, &doc, &err);
    if (rc != SQE_OK) {
        if (doc) abort();
        if (rc != SQE_ERR_SYNTAX_ERROR && rc != SQE_ERR_OUT_OF_MEMORY) abort();
        if (rc == SQE_ERR_SYNTAX_ERROR && (err.line < 1 || err.column < 1)) abort();
        return 0;
    }
    /* Round trip: the root table written as key = value lines. */
    strbuf sb;
    strbuf_init(&sb);
    int depth = 0;
    for (size_t i = 0; i < toml_table_count(doc->root); i++) {
        const toml_kv *kv = toml_table_at(doc->root, i);
        toml_key_append(&sb, kv->key, kv->key_len);
        strbuf_puts(&sb, " = ");
        int d = write_value(&sb, kv->value);
        if (d > depth) depth = d;
        strbuf_putc(&sb, '\n');
    }
    if (!sb.failed && depth <= TOML_MAX_DEPTH) {
        toml_doc *again = NULL;
        if (toml_parse(sb.data ? sb.data : "", sb.len, &again, &err) != SQE_OK) {
            fprintf(stderr, "round trip failed: %d:%d: %s\n%s\n", err.line, err.column, err.message,
                    strbuf_cstr(&sb));
            abort();
        }
        if (!same(doc->root, again->root)) {
            fprintf(stderr, "round trip changed the document:\n%s\n", strbuf_cstr(&sb));
            abort();
        }
        toml_doc_destroy(again);
    }
    strbuf_reset(&sb);
    toml_doc_destroy(doc);
    return 0;
}
