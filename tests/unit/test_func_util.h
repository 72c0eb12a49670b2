/*
 * test_func_util.h: helpers shared by the scalar function unit tests (test_func_*.c).
 *
 * Builds argument vectors from text (each value is cast from varchar, or from JSON for nested
 * types, with the engine's own casts), resolves and calls a function the way the expression
 * evaluator does (implicit casts to the resolved argument types, bind step on constant
 * arguments, NULL propagation, TRY mode), and compares results by their text form
 * (vec_format_value). Lambdas are C callbacks (tf_lambda).
 *
 * Typical use:
 *   tf_expect("$add", "3", "bigint:1", "bigint:2");          one row, every argument flat
 *   tf_expect_error("$divide", "Division by zero", "bigint:1", "bigint:0");
 *   vec *a = tf_col("integer", 3, S("1", NULL, "3"));        a column (NULL = SQL NULL)
 */
#ifndef SQE_TESTS_UNIT_TEST_FUNC_UTIL_H
#define SQE_TESTS_UNIT_TEST_FUNC_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/strbuf.h"
#include "func/func.h"
#include "types/datetime.h"
#include "types/tz.h"
#include "vec/vec_format.h"

/* Helpers may go unused in a given test file. */
#define TF_FN static __attribute__((unused))

#define S(...) ((const char *[]){__VA_ARGS__})
#define N_OF(...) ((uint32_t)(sizeof(S(__VA_ARGS__)) / sizeof(const char *)))

static mem_tracker tf_tracker;

TF_FN int tf_setup(void **state) {
    (void)state;
    mem_tracker_init(&tf_tracker, "test", 0, NULL);
    sqe_error err;
    int rc = func_registry_init(&err);
    if (rc) fprintf(stderr, "registry: %s\n", err.message);
    return rc;
}

TF_FN vec *tf_new(sqe_type t, uint32_t cap) {
    vec *v = calloc(1, sizeof *v);
    assert_non_null(v);
    assert_int_equal(vec_init(v, t, cap ? cap : 1, &tf_tracker, NULL), SQE_OK);
    return v;
}

TF_FN void tf_free(vec *v) {
    if (!v) return;
    vec_destroy(v);
    free(v);
}

TF_FN sqe_type tf_type(const char *name) {
    sqe_type t;
    if (type_parse(name, strlen(name), &t) != 0) fail_msg("bad type %s", name);
    return t;
}

TF_FN func_ctx tf_ctx_make(sqe_error *err, bool try_mode) {
    func_ctx c;
    memset(&c, 0, sizeof c);
    c.tracker = &tf_tracker;
    c.err = err;
    c.try_mode = try_mode;
    c.session_zone = TZ_UTC;
    c.query_start_micros = INT64_C(1700000000123456); /* 2023-11-14 22:13:20.123456 UTC */
    c.random_seed = 42;
    return c;
}

/* Casts n text values to `type` (via varchar, or json for nested types). */
TF_FN vec *tf_col(const char *type, uint32_t n, const char *const *vals) {
    sqe_type t = tf_type(type);
    if (t.id == TYPE_INTERVAL_DS || t.id == TYPE_INTERVAL_YM) {
        /* no cast from varchar: parse the literal text */
        vec *v = tf_new(t, n);
        bool ym = t.id == TYPE_INTERVAL_YM;
        for (uint32_t i = 0; i < n; i++) {
            if (!vals[i]) {
                vec_set_null(v, i);
                continue;
            }
            bool is_ym;
            int64_t micros = 0;
            int32_t months = 0;
            if (dt_parse_interval(vals[i], strlen(vals[i]), ym ? "YEAR" : "DAY",
                                  ym ? "MONTH" : "SECOND", &is_ym, &micros, &months) != 0)
                fail_msg("bad interval %s", vals[i]);
            if (ym) VEC_DATA(v, int32_t)[i] = months;
            else VEC_DATA(v, int64_t)[i] = micros;
        }
        return v;
    }
    bool nested = type_is_nested(t);
    /* json values are taken as already-valid JSON text (CAST(varchar AS json) would quote) */
    sqe_type src_t = nested || t.id == TYPE_JSON ? type_make(TYPE_JSON) : type_varchar(0);
    vec *src = tf_new(src_t, n);
    for (uint32_t i = 0; i < n; i++) {
        if (!vals[i]) {
            vec_set_null(src, i);
            continue;
        }
        bool ok = true;
        VEC_DATA(src, sqe_str)[i] = vec_str_copy(src, vals[i], (uint32_t)strlen(vals[i]), &ok);
    }
    if (type_equal(t, src_t)) return src;
    vec *out = tf_new(t, n);
    func_scalar_fn cast = func_cast_lookup(src_t, t);
    if (!cast) fail_msg("no cast to %s", type);
    sqe_error err;
    func_ctx c = tf_ctx_make(&err, false);
    const vec *args[1] = {src};
    if (cast(&c, args, 1, NULL, n, out) != SQE_OK) fail_msg("cast to %s: %s", type, err.message);
    /* values must not point into src: copy every row */
    vec *copy = tf_new(t, n);
    for (uint32_t i = 0; i < n; i++) assert_int_equal(vec_copy_row(copy, i, out, i, NULL), SQE_OK);
    tf_free(out);
    tf_free(src);
    return copy;
}

/* A constant vector holding one value (NULL text = NULL constant). */
TF_FN vec *tf_const(const char *type, const char *val) {
    vec *one = tf_col(type, 1, (const char *[]){val});
    vec *c = tf_new(one->type, 1);
    assert_int_equal(vec_set_const_from(c, one, 0, NULL), SQE_OK);
    tf_free(one);
    return c;
}

/* Lambdas: C callbacks. `body` computes the body type from the parameter types; `eval` fills
 * out[i] from row i of the parameter vectors. */
typedef struct tf_lambda {
    uint32_t arg_idx;
    sqe_type (*body)(const sqe_type *params, uint32_t n);
    void (*eval)(vec *const *params, uint32_t n_params, uint32_t i, vec *out);
} tf_lambda;

typedef struct tf_lambdas {
    const tf_lambda *items;
    uint32_t n;
} tf_lambdas;

TF_FN const tf_lambda *tf_find_lambda(const tf_lambdas *ls, uint32_t arg_idx) {
    for (uint32_t i = 0; ls && i < ls->n; i++)
        if (ls->items[i].arg_idx == arg_idx) return &ls->items[i];
    return NULL;
}

TF_FN int tf_lambda_bind(void *ud, uint32_t arg_idx, const sqe_type *params, uint32_t n,
                          sqe_type *body, sqe_error *err) {
    const tf_lambda *l = tf_find_lambda(ud, arg_idx);
    if (!l) return err_set(err, SQE_ERR_TYPE_MISMATCH, "no lambda at %u", arg_idx);
    *body = l->body(params, n);
    return SQE_OK;
}

TF_FN int tf_lambda_eval(void *state, uint32_t arg_idx, vec *const *largs, uint32_t n_largs,
                          const uint32_t *outer_rows, uint32_t count, vec *out) {
    const tf_lambda *l = tf_find_lambda(state, arg_idx);
    if (!l) return SQE_ERR_GENERIC_INTERNAL_ERROR;
    (void)outer_rows;
    for (uint32_t i = 0; i < count; i++) l->eval(largs, n_largs, i, out);
    return SQE_OK;
}

/* Resolves and runs name(args) on rows 0..count-1 (or sel) like the evaluator. On success
 * *out is the result (caller frees). Returns the kernel's or the resolver's code. */
TF_FN int tf_call_ex(const char *name, vec **args, uint32_t n_args, const uint32_t *sel,
                      uint32_t count, bool try_mode, const tf_lambdas *lambdas, vec **out,
                      sqe_error *err) {
    *out = NULL;
    sqe_type types[16];
    assert_true(n_args <= 16);
    for (uint32_t i = 0; i < n_args; i++)
        types[i] = args[i] ? args[i]->type : type_make(TYPE_UNKNOWN);
    arena a;
    arena_init(&a, NULL);
    func_resolved res;
    func_lambda_binder lb = {tf_lambda_bind, (void *)lambdas};
    int rc = func_resolve_scalar(&a, name, types, n_args, lambdas ? &lb : NULL, &res, err);
    if (rc) {
        arena_destroy(&a);
        return rc;
    }
    /* implicit casts */
    const vec *cargs[16];
    vec *owned[16] = {0};
    uint32_t rows = 0;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t r = sel ? sel[i] : i;
        if (r + 1 > rows) rows = r + 1;
    }
    if (rows == 0) rows = 1;
    sqe_error cerr;
    func_ctx c = tf_ctx_make(&cerr, false);
    for (uint32_t i = 0; i < n_args; i++) {
        cargs[i] = args[i];
        if (!args[i] || type_equal(args[i]->type, res.arg_types[i])) continue;
        func_scalar_fn cast = func_cast_lookup(args[i]->type, res.arg_types[i]);
        if (!cast) fail_msg("%s: no cast for argument %u", name, i);
        owned[i] = tf_new(res.arg_types[i], rows);
        const vec *one[1] = {args[i]};
        if (args[i]->type.id == TYPE_UNKNOWN) {
            for (uint32_t r = 0; r < rows; r++) vec_set_null(owned[i], r);
        } else if (cast(&c, one, 1, NULL, rows, owned[i]) != SQE_OK) {
            fail_msg("%s: cast of argument %u: %s", name, i, cerr.message);
        }
        if (args[i]->shape == VEC_CONST) owned[i]->shape = VEC_CONST;
        cargs[i] = owned[i];
    }
    const func_scalar_def *def = res.scalar;
    func_ctx ctx = tf_ctx_make(err, try_mode);
    if (lambdas) {
        ctx.lambda_eval = tf_lambda_eval;
        ctx.lambda_state = (void *)lambdas;
    }
    if (def->bind_fn) {
        const vec *consts[16];
        for (uint32_t i = 0; i < n_args; i++)
            consts[i] = cargs[i] && cargs[i]->shape == VEC_CONST ? cargs[i] : NULL;
        rc = def->bind_fn(&a, res.arg_types, consts, n_args, res.ret, &ctx.bind_data, err);
    }
    vec *o = tf_new(res.ret, rows);
    if (rc == SQE_OK) {
        uint32_t vsel[4096];
        uint32_t nv = 0;
        assert_true(count <= 4096);
        bool any_null = false;
        for (uint32_t i = 0; i < count; i++) {
            uint32_t r = sel ? sel[i] : i;
            bool ok = true;
            if (def->flags & FUNC_NULL_PROPAGATES)
                for (uint32_t k = 0; k < n_args; k++)
                    if (cargs[k] && vec_is_null(cargs[k], r)) ok = false;
            if (ok) vsel[nv++] = r;
            else {
                vec_set_null(o, r);
                any_null = true;
            }
        }
        if (nv) rc = def->fn(&ctx, cargs, n_args, any_null || sel ? vsel : NULL, nv, o);
    }
    for (uint32_t i = 0; i < n_args; i++) tf_free(owned[i]);
    arena_destroy(&a);
    if (rc) {
        tf_free(o);
        return rc;
    }
    *out = o;
    return SQE_OK;
}

/* Text of row r of v ("NULL" for NULL). */
TF_FN char *tf_text(const vec *v, uint32_t r) {
    strbuf sb;
    strbuf_init(&sb);
    vec_format_value(v, r, &sb);
    return strbuf_move(&sb);
}

/* Builds the one-row argument vectors of "type:value" specs ("type:" + NULL is written as
 * "type:NULL" only for non-varchar types; use "varchar:\\N" for a NULL string). */
TF_FN vec *tf_arg(const char *spec) {
    const char *colon = strchr(spec, ':');
    if (!colon) fail_msg("bad argument spec %s", spec);
    char type[128];
    size_t tl = (size_t)(colon - spec);
    assert_true(tl < sizeof type);
    memcpy(type, spec, tl);
    type[tl] = '\0';
    const char *val = colon + 1;
    bool is_null = strcmp(val, "\\N") == 0 ||
                   (strcmp(val, "NULL") == 0 && strncmp(type, "varchar", 7) != 0 &&
                    strncmp(type, "json", 4) != 0);
    if (strcmp(type, "unknown") == 0) {
        vec *v = tf_new(type_make(TYPE_UNKNOWN), 1);
        vec_set_null(v, 0);
        return v;
    }
    return tf_col(type, 1, (const char *[]){is_null ? NULL : val});
}

/* Runs name on one-row arguments built from specs; the argument vectors are returned in args
 * (results may be views into them) and freed by tf_free_args. */
TF_FN int tf_run_specs(const char *name, bool try_mode, const tf_lambdas *lambdas, vec **out,
                       sqe_error *err, uint32_t n, const char *const *specs, vec **args) {
    assert_true(n <= 16);
    for (uint32_t i = 0; i < n; i++) args[i] = specs[i] ? tf_arg(specs[i]) : NULL;
    return tf_call_ex(name, args, n, NULL, 1, try_mode, lambdas, out, err);
}

TF_FN void tf_free_args(vec **args, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) tf_free(args[i]);
}

TF_FN void tf_expect_impl(const char *file, int line, const char *name, const char *expected,
                           const tf_lambdas *lambdas, uint32_t n, const char *const *specs) {
    vec *out, *args[16];
    sqe_error err;
    int rc = tf_run_specs(name, false, lambdas, &out, &err, n, specs, args);
    if (rc) fail_msg("%s:%d: %s failed: %s", file, line, name, err.message);
    char *got = tf_text(out, 0);
    if (strcmp(got, expected) != 0)
        fail_msg("%s:%d: %s: expected '%s', got '%s'", file, line, name, expected, got);
    free(got);
    tf_free(out);
    tf_free_args(args, n);
}

TF_FN void tf_expect_error_impl(const char *file, int line, const char *name,
                                 const char *message_part, const tf_lambdas *lambdas, uint32_t n,
                                 const char *const *specs) {
    vec *out, *args[16];
    sqe_error err;
    int rc = tf_run_specs(name, false, lambdas, &out, &err, n, specs, args);
    if (rc == SQE_OK) {
        char *got = tf_text(out, 0);
        fail_msg("%s:%d: %s: expected an error containing '%s', got '%s'", file, line, name,
                 message_part, got);
    }
    tf_free_args(args, n);
    if (!strstr(err.message, message_part))
        fail_msg("%s:%d: %s: expected an error containing '%s', got '%s'", file, line, name,
                 message_part, err.message);
    /* TRY mode turns row errors into NULL (resolution errors stay errors) */
    rc = tf_run_specs(name, true, lambdas, &out, &err, n, specs, args);
    if (rc == SQE_OK) {
        char *got = tf_text(out, 0);
        if (strcmp(got, "NULL") != 0)
            fail_msg("%s:%d: %s: TRY gave '%s' instead of NULL", file, line, name, got);
        free(got);
        tf_free(out);
    }
    tf_free_args(args, n);
}

/* Error code of a call (for resolution errors). */
TF_FN int tf_error_code(const char *name, uint32_t n, const char *const *specs, sqe_error *err) {
    vec *out, *args[16];
    int rc = tf_run_specs(name, false, NULL, &out, err, n, specs, args);
    if (rc == SQE_OK) tf_free(out);
    tf_free_args(args, n);
    return rc;
}

#define tf_expect(name, expected, ...)                                                             \
    tf_expect_impl(__FILE__, __LINE__, name, expected, NULL, N_OF(__VA_ARGS__), S(__VA_ARGS__))
#define tf_expect0(name, expected)                                                                 \
    tf_expect_impl(__FILE__, __LINE__, name, expected, NULL, 0, NULL)
#define tf_expect_lambda(name, expected, lambdas, ...)                                             \
    tf_expect_impl(__FILE__, __LINE__, name, expected, lambdas, N_OF(__VA_ARGS__), S(__VA_ARGS__))
#define tf_expect_error(name, message, ...)                                                        \
    tf_expect_error_impl(__FILE__, __LINE__, name, message, NULL, N_OF(__VA_ARGS__),              \
                         S(__VA_ARGS__))
#define tf_expect_error_lambda(name, message, lambdas, ...)                                        \
    tf_expect_error_impl(__FILE__, __LINE__, name, message, lambdas, N_OF(__VA_ARGS__),           \
                         S(__VA_ARGS__))

/* Checks every row of a result column against expected texts. */
TF_FN void tf_assert_col(const vec *v, uint32_t n, const char *const *expected) {
    for (uint32_t i = 0; i < n; i++) {
        char *got = tf_text(v, i);
        if (strcmp(got, expected[i]) != 0)
            fail_msg("row %u: expected '%s', got '%s'", i, expected[i], got);
        free(got);
    }
}

/* The resolved return type of name(types...) as text. */
TF_FN void tf_expect_type(const char *name, const char *expected, uint32_t n,
                           const char *const *types) {
    sqe_type t[16];
    for (uint32_t i = 0; i < n; i++) t[i] = tf_type(types[i]);
    arena a;
    arena_init(&a, NULL);
    func_resolved res;
    sqe_error err;
    int rc = func_resolve_scalar(&a, name, t, n, NULL, &res, &err);
    if (rc) fail_msg("%s: %s", name, err.message);
    char buf[256];
    type_format(res.ret, buf, sizeof buf);
    arena_destroy(&a);
    if (strcmp(buf, expected) != 0) fail_msg("%s: expected type %s, got %s", name, expected, buf);
}
#define tf_expect_ret(name, expected, ...) tf_expect_type(name, expected, N_OF(__VA_ARGS__), S(__VA_ARGS__))

#endif
