/*
 * scalar_json.c: the JSON family on jansson: json_parse, json_format, json_extract,
 * json_extract_scalar, json_array_length, json_array_get, json_array_contains, json_size,
 * is_json_scalar.
 *
 * INTERFACE: func_scalar_family_json, func_json_text_valid.
 *
 * NOTES: JSON values are text in canonical form, as Trino keeps them: object keys sorted,
 * no insignificant white space, strings escaped like vec_format_json_string, integers as
 * written and other numbers as Java's Double.toString ("1.0E10"). json_parse fails on invalid
 * text; the extraction functions return NULL for invalid JSON, missing members and type
 * mismatches (Trino's behaviour). Paths are Trino's simple JSONPath subset: $ followed by .key,
 * ["key"] / ['key'] and [index] steps; a constant path is parsed once at bind time, an invalid
 * one is INVALID_FUNCTION_ARGUMENT. jansson rejects integers beyond 64 bits (a limitation).
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "func/scalar_kernel.h"
#include "types/float_text.h"
#include "vec/vec_format.h"

#define KERNEL(name)                                                                               \
    static int name(func_ctx *ctx, const vec *const *args, uint32_t n_args, const uint32_t *sel,   \
                    uint32_t count, vec *out)
#define SDATA(s) sqe_str_data(s)

/* --- Text <-> tree ------------------------------------------------------------------------------ */

static json_t *json_parse_text(const sqe_str *s, json_error_t *jerr) {
    return json_loadb(SDATA(s), s->len, JSON_DECODE_ANY | JSON_ALLOW_NUL, jerr);
}

bool func_json_text_valid(const char *text, size_t len) {
    json_t *j = json_loadb(text, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
    if (!j) return false;
    json_decref(j);
    return true;
}

static int key_cmp(const void *a, const void *b) {
    const char *const *x = a, *const *y = b;
    return strcmp(*x, *y);
}

/* Appends the canonical text of j. */
static void json_dump_canonical(strbuf *sb, const json_t *j) {
    switch (json_typeof(j)) {
    case JSON_OBJECT: {
        size_t n = json_object_size(j);
        const char **keys = malloc(sizeof(char *) * (n ? n : 1));
        if (!keys) {
            sb->failed = 1;
            return;
        }
        size_t k = 0;
        const char *key;
        json_t *v;
        json_object_foreach((json_t *)j, key, v) keys[k++] = key;
        qsort(keys, k, sizeof *keys, key_cmp);
        strbuf_putc(sb, '{');
        for (size_t i = 0; i < k; i++) {
            if (i) strbuf_putc(sb, ',');
            vec_format_json_string(keys[i], strlen(keys[i]), sb);
            strbuf_putc(sb, ':');
            json_dump_canonical(sb, json_object_get(j, keys[i]));
        }
        strbuf_putc(sb, '}');
        free(keys);
        return;
    }
    case JSON_ARRAY:
        strbuf_putc(sb, '[');
        for (size_t i = 0; i < json_array_size(j); i++) {
            if (i) strbuf_putc(sb, ',');
            json_dump_canonical(sb, json_array_get(j, i));
        }
        strbuf_putc(sb, ']');
        return;
    case JSON_STRING: vec_format_json_string(json_string_value(j), json_string_length(j), sb); return;
    case JSON_INTEGER: strbuf_printf(sb, "%" JSON_INTEGER_FORMAT, json_integer_value(j)); return;
    case JSON_REAL: {
        char buf[FLOAT_TEXT_MAX];
        float_text_double(json_real_value(j), buf);
        strbuf_puts(sb, buf);
        return;
    }
    case JSON_TRUE: strbuf_puts(sb, "true"); return;
    case JSON_FALSE: strbuf_puts(sb, "false"); return;
    default: strbuf_puts(sb, "null"); return;
    }
}

/* Scalar text for json_extract_scalar: strings unquoted, numbers and booleans as text; NULL for
 * null, arrays and objects (returns false). */
static bool json_scalar_text(strbuf *sb, const json_t *j) {
    switch (json_typeof(j)) {
    case JSON_STRING: strbuf_append(sb, json_string_value(j), json_string_length(j)); return true;
    case JSON_INTEGER:
    case JSON_REAL:
    case JSON_TRUE:
    case JSON_FALSE: json_dump_canonical(sb, j); return true;
    default: return false;
    }
}

/* --- Paths -------------------------------------------------------------------------------------- */

typedef struct json_step {
    bool is_index;
    int64_t index;
    char *key; /* NUL-terminated (may contain NUL: key_len) */
    size_t key_len;
} json_step;

typedef struct json_path {
    json_step *steps;
    uint32_t n;
} json_path;

/* Parses a path into memory from a; returns 0 or -1. */
static int path_parse(arena *a, const char *p, size_t n, json_path *out) {
    while (n && (p[n - 1] == ' ' || p[n - 1] == '\t')) n--;
    while (n && (*p == ' ' || *p == '\t')) p++, n--;
    out->n = 0;
    out->steps = NULL;
    if (n == 0 || p[0] != '$') return -1;
    uint32_t cap = 0;
    for (size_t i = 1; i < n; i++) cap += p[i] == '.' || p[i] == '[';
    out->steps = ARENA_ARRAY(a, json_step, cap ? cap : 1);
    if (!out->steps) return -1;
    size_t i = 1;
    while (i < n) {
        json_step *st = &out->steps[out->n];
        memset(st, 0, sizeof *st);
        if (p[i] == '.') {
            size_t j = ++i;
            while (j < n && p[j] != '.' && p[j] != '[') {
                char c = p[j];
                if (c == ' ' || c == '\t' || c == '"' || c == '\'' || c == ']' || c == '*')
                    return -1;
                j++;
            }
            if (j == i) return -1;
            st->key = arena_strndup(a, p + i, j - i);
            if (!st->key) return -1;
            st->key_len = j - i;
            i = j;
        } else if (p[i] == '[') {
            i++;
            if (i < n && (p[i] == '"' || p[i] == '\'')) {
                char q = p[i++];
                char *key = arena_alloc(a, n - i + 1);
                if (!key) return -1;
                size_t k = 0;
                while (i < n && p[i] != q) {
                    if (p[i] == '\\' && i + 1 < n) i++;
                    key[k++] = p[i++];
                }
                if (i >= n) return -1;
                key[k] = '\0';
                i++; /* closing quote */
                if (i >= n || p[i] != ']') return -1;
                i++;
                st->key = key;
                st->key_len = k;
            } else {
                size_t j = i;
                int64_t v = 0;
                while (j < n && p[j] >= '0' && p[j] <= '9' && v < INT32_MAX) v = v * 10 + (p[j++] - '0');
                if (j == i || j >= n || p[j] != ']') return -1;
                st->is_index = true;
                st->index = v;
                i = j + 1;
            }
        } else {
            return -1;
        }
        out->n++;
    }
    return 0;
}

static const json_t *path_eval(const json_t *j, const json_path *path) {
    for (uint32_t i = 0; j && i < path->n; i++) {
        const json_step *st = &path->steps[i];
        if (st->is_index) {
            j = json_is_array(j) && (size_t)st->index < json_array_size(j)
                    ? json_array_get(j, (size_t)st->index)
                    : NULL;
        } else {
            j = json_is_object(j) ? json_object_getn(j, st->key, st->key_len) : NULL;
        }
    }
    return j;
}

static int path_error(sqe_error *err, const sqe_str *p) {
    return err_set(err, SQE_ERR_INVALID_FUNCTION_ARGUMENT, "Invalid JSON path: '%.*s'",
                   (int)(p->len > 200 ? 200 : p->len), SDATA(p));
}

/* bind: a constant path (argument 1) is parsed once. */
static int json_path_bind(arena *a, const sqe_type *args, const vec *const *const_args,
                          uint32_t n_args, sqe_type ret, const void **bind_data, sqe_error *err) {
    *bind_data = NULL;
    if (!const_args || n_args < 2 || !const_args[1] || vec_is_null(const_args[1], 0))
        return SQE_OK;
    uint32_t phys;
    const vec *f = vec_resolve(const_args[1], 0, &phys);
    const sqe_str *p = &VEC_DATA(f, sqe_str)[phys];
    json_path *path = ARENA_NEW(a, json_path);
    if (!path) return err_nomem(err, "JSON path");
    if (path_parse(a, SDATA(p), p->len, path) != 0) return path_error(err, p);
    *bind_data = path;
    return SQE_OK;
}

/* The path of a row: the bound one or one parsed into `mem` (reset per row). Reports an
 * invalid path through func_row_error; *path NULL then. */
static int row_path(func_ctx *ctx, vec *out, uint32_t row, const vec_view *up, arena *mem,
                    json_path *storage, const json_path **path) {
    *path = ctx->bind_data;
    if (*path) return SQE_OK;
    const sqe_str *p = ustr(up, row);
    arena_reset(mem);
    if (path_parse(mem, SDATA(p), p->len, storage) == 0) {
        *path = storage;
        return SQE_OK;
    }
    if (mem->failed) return func_nomem(ctx);
    sqe_error perr;
    path_error(&perr, p);
    return func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT, "%s", perr.message);
}

/* --- Kernels ------------------------------------------------------------------------------------ */

KERNEL(json_parse_fn) {
    vec_view u;
    vec_view_init(&u, args[0]);
    strbuf sb;
    strbuf_init(&sb);
    int rc = SQE_OK;
    FUNC_FOR_ROWS(sel, count, row) {
        const sqe_str *s = ustr(&u, row);
        json_error_t jerr;
        json_t *j = json_parse_text(s, &jerr);
        if (!j) {
            rc = func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                                "Cannot convert value to JSON: '%.*s' (%s)",
                                (int)(s->len > 100 ? 100 : s->len), SDATA(s), jerr.text);
            if (rc) break;
            continue;
        }
        sb.len = 0;
        json_dump_canonical(&sb, j);
        json_decref(j);
        if ((rc = func_out_sb(ctx, out, row, &sb))) break;
    }
    strbuf_reset(&sb);
    return rc;
}

KERNEL(json_format_fn) {
    vec_view u;
    vec_view_init(&u, args[0]);
    FUNC_FOR_ROWS(sel, count, row) {
        const sqe_str *s = ustr(&u, row);
        SQE_TRY(func_out_str(ctx, out, row, SDATA(s), s->len));
    }
    return SQE_OK;
}

/* json_extract (as_scalar false) and json_extract_scalar (true). */
static int extract_common(func_ctx *ctx, const vec *const *args, const uint32_t *sel,
                          uint32_t count, vec *out, bool as_scalar) {
    vec_view uj, up;
    vec_view_init(&uj, args[0]);
    vec_view_init(&up, args[1]);
    arena mem;
    arena_init(&mem, ctx->tracker);
    json_path storage;
    strbuf sb;
    strbuf_init(&sb);
    int rc = SQE_OK;
    FUNC_FOR_ROWS(sel, count, row) {
        const json_path *path;
        if ((rc = row_path(ctx, out, row, &up, &mem, &storage, &path))) break;
        if (!path) continue;
        json_t *j = json_parse_text(ustr(&uj, row), NULL);
        const json_t *hit = j ? path_eval(j, path) : NULL;
        sb.len = 0;
        bool ok = hit != NULL;
        if (ok) {
            if (as_scalar) ok = json_scalar_text(&sb, hit);
            else json_dump_canonical(&sb, hit);
        }
        json_decref(j);
        rc = ok ? func_out_sb(ctx, out, row, &sb) : func_out_null(ctx, out, row);
        if (rc) break;
    }
    strbuf_reset(&sb);
    arena_destroy(&mem);
    return rc;
}
KERNEL(json_extract_fn) { return extract_common(ctx, args, sel, count, out, false); }
KERNEL(json_extract_scalar_fn) { return extract_common(ctx, args, sel, count, out, true); }

KERNEL(json_size_fn) {
    vec_view uj, up;
    vec_view_init(&uj, args[0]);
    vec_view_init(&up, args[1]);
    arena mem;
    arena_init(&mem, ctx->tracker);
    json_path storage;
    int rc = SQE_OK;
    FUNC_FOR_ROWS(sel, count, row) {
        const json_path *path;
        if ((rc = row_path(ctx, out, row, &up, &mem, &storage, &path))) break;
        if (!path) continue;
        json_t *j = json_parse_text(ustr(&uj, row), NULL);
        const json_t *hit = j ? path_eval(j, path) : NULL;
        if (hit) {
            VEC_DATA(out, int64_t)[row] = json_is_object(hit)  ? (int64_t)json_object_size(hit)
                                          : json_is_array(hit) ? (int64_t)json_array_size(hit)
                                                               : 0;
        } else {
            rc = func_out_null(ctx, out, row);
        }
        json_decref(j);
        if (rc) break;
    }
    arena_destroy(&mem);
    return rc;
}

KERNEL(json_array_length_fn) {
    vec_view uj;
    vec_view_init(&uj, args[0]);
    FUNC_FOR_ROWS(sel, count, row) {
        json_t *j = json_parse_text(ustr(&uj, row), NULL);
        bool is_array = json_is_array(j);
        if (is_array) VEC_DATA(out, int64_t)[row] = (int64_t)json_array_size(j);
        json_decref(j);
        if (!is_array) SQE_TRY(func_out_null(ctx, out, row));
    }
    return SQE_OK;
}

KERNEL(json_array_get_fn) {
    vec_view uj, ui;
    vec_view_init(&uj, args[0]);
    vec_view_init(&ui, args[1]);
    strbuf sb;
    strbuf_init(&sb);
    int rc = SQE_OK;
    FUNC_FOR_ROWS(sel, count, row) {
        json_t *j = json_parse_text(ustr(&uj, row), NULL);
        int64_t idx = UVAL(&ui, int64_t, row);
        const json_t *hit = NULL;
        if (json_is_array(j)) {
            int64_t size = (int64_t)json_array_size(j);
            if (idx < 0) idx += size;
            if (idx >= 0 && idx < size) hit = json_array_get(j, (size_t)idx);
        }
        sb.len = 0;
        if (hit) json_dump_canonical(&sb, hit);
        json_decref(j);
        rc = hit ? func_out_sb(ctx, out, row, &sb) : func_out_null(ctx, out, row);
        if (rc) break;
    }
    strbuf_reset(&sb);
    return rc;
}

KERNEL(json_array_contains_fn) {
    vec_view uj, uv;
    vec_view_init(&uj, args[0]);
    vec_view_init(&uv, args[1]);
    type_id t = (type_id)args[1]->type.id;
    FUNC_FOR_ROWS(sel, count, row) {
        json_t *j = json_parse_text(ustr(&uj, row), NULL);
        if (!json_is_array(j)) {
            json_decref(j);
            SQE_TRY(func_out_null(ctx, out, row));
            continue;
        }
        bool found = false;
        for (size_t i = 0; i < json_array_size(j) && !found; i++) {
            const json_t *e = json_array_get(j, i);
            switch (t) {
            case TYPE_BOOLEAN:
                found = json_is_boolean(e) && json_is_true(e) == (UVAL(&uv, uint8_t, row) != 0);
                break;
            case TYPE_BIGINT:
                found = json_is_integer(e) && json_integer_value(e) == UVAL(&uv, int64_t, row);
                break;
            case TYPE_DOUBLE:
                found = json_is_real(e) && json_real_value(e) == UVAL(&uv, double, row);
                break;
            default: {
                const sqe_str *s = ustr(&uv, row);
                found = json_is_string(e) && json_string_length(e) == s->len &&
                        memcmp(json_string_value(e), SDATA(s), s->len) == 0;
                break;
            }
            }
        }
        json_decref(j);
        VEC_DATA(out, uint8_t)[row] = found;
    }
    return SQE_OK;
}

KERNEL(is_json_scalar_fn) {
    vec_view uj;
    vec_view_init(&uj, args[0]);
    FUNC_FOR_ROWS(sel, count, row) {
        const sqe_str *s = ustr(&uj, row);
        json_t *j = json_parse_text(s, NULL);
        if (!j) {
            SQE_TRY(func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                                   "Invalid JSON value: %.*s", (int)(s->len > 100 ? 100 : s->len),
                                   SDATA(s)));
            continue;
        }
        VEC_DATA(out, uint8_t)[row] = !json_is_object(j) && !json_is_array(j);
        json_decref(j);
    }
    return SQE_OK;
}

/* --- The table ------------------------------------------------------------------------------ */

#define NP FUNC_NULL_PROPAGATES
#define ON_BOTH(name, rest, ret, bind, kernel, desc)                                               \
    {name, "json" rest, ret, NULL, bind, kernel, NP, desc},                                        \
    {name, "varchar" rest, ret, NULL, bind, kernel, NP, desc}

static const func_scalar_def json_defs[] = {
    {"json_parse", "varchar", "json", NULL, NULL, json_parse_fn, NP, "parses JSON text"},
    {"json_format", "json", "varchar", NULL, NULL, json_format_fn, NP, "the text of a JSON value"},
    ON_BOTH("json_extract", ",varchar", "json", json_path_bind, json_extract_fn,
            "the JSON value at a path (NULL if absent)"),
    /* varchar(x) text gives varchar(x), as Trino */
    {"json_extract_scalar", "json,varchar", "varchar", NULL, json_path_bind, json_extract_scalar_fn,
     NP, "the scalar at a path as text (NULL if absent or not a scalar)"},
    {"json_extract_scalar", "varchar,varchar", "?", func_ret_varchar_of_arg0, json_path_bind,
     json_extract_scalar_fn, NP, "the scalar at a path as text (NULL if absent or not a scalar)"},
    ON_BOTH("json_size", ",varchar", "bigint", json_path_bind, json_size_fn,
            "size of the object or array at a path (0 for scalars)"),
    ON_BOTH("json_array_length", "", "bigint", NULL, json_array_length_fn,
            "length of a JSON array"),
    ON_BOTH("json_array_get", ",bigint", "json", NULL, json_array_get_fn,
            "element of a JSON array (negative index from the end)"),
    ON_BOTH("json_array_contains", ",boolean", "boolean", NULL, json_array_contains_fn,
            "does a JSON array contain a value"),
    ON_BOTH("json_array_contains", ",bigint", "boolean", NULL, json_array_contains_fn,
            "does a JSON array contain a value"),
    ON_BOTH("json_array_contains", ",double", "boolean", NULL, json_array_contains_fn,
            "does a JSON array contain a value"),
    ON_BOTH("json_array_contains", ",varchar", "boolean", NULL, json_array_contains_fn,
            "does a JSON array contain a value"),
    ON_BOTH("is_json_scalar", "", "boolean", NULL, is_json_scalar_fn,
            "is the JSON value a scalar"),
};

const func_scalar_def *func_scalar_family_json(uint32_t *count) {
    *count = FUNC_N(json_defs);
    return json_defs;
}
