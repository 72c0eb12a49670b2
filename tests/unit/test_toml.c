/*
 * test_toml.c: unit tests of the TOML reader (src/common/toml.c).
 *
 * Covers: the tree API (lookups, order, counts, types), every scalar kind with its edge values,
 * strings with NULs, line/column of values and of errors (columns count UTF-8 characters),
 * redefinition rules, the depth limit, big documents, the writer helpers (quoting, keys,
 * date-time text) and hostile bytes. The differential test against Python's tomllib is
 * tests/config/test_toml_oracle.py; this file checks what the oracle cannot see (positions, API).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/err.h"
#include "common/strbuf.h"
#include "common/toml.h"

/* --- helpers ----------------------------------------------------------------------------- */

static toml_doc *parse_ok(const char *text) {
    toml_doc *doc = NULL;
    sqe_error err;
    int rc = toml_parse(text, strlen(text), &doc, &err);
    if (rc != SQE_OK)
        fail_msg("parse failed: %d:%d: %s\n--\n%s", err.line, err.column, err.message, text);
    assert_non_null(doc);
    return doc;
}

/* Parses text expecting an error at line:col whose message contains needle. */
static void parse_bad(const char *text, int line, int col, const char *needle) {
    toml_doc *doc = (toml_doc *)1;
    sqe_error err;
    int rc = toml_parse(text, strlen(text), &doc, &err);
    if (rc == SQE_OK) fail_msg("accepted: %s", text);
    assert_int_equal(rc, SQE_ERR_SYNTAX_ERROR);
    assert_null(doc);
    if (err.line != line || err.column != col || (needle && !strstr(err.message, needle)))
        fail_msg("for %s\n got %d:%d: %s\n want %d:%d: ...%s...", text, err.line, err.column,
                 err.message, line, col, needle ? needle : "");
}

static const toml_value *path(const toml_doc *doc, const char *dotted) {
    char buf[256];
    snprintf(buf, sizeof buf, "%s", dotted);
    const toml_value *v = doc->root;
    for (char *save = NULL, *part = strtok_r(buf, ".", &save); part;
         part = strtok_r(NULL, ".", &save)) {
        v = toml_table_get(v, part);
        if (!v) return NULL;
    }
    return v;
}

/* --- tests ------------------------------------------------------------------------------- */

static void test_api_basics(void **state) {
    (void)state;
    toml_doc *doc = parse_ok("b = 1\na = \"x\"\n[t]\nz = true\n[[arr]]\nn = 1\n[[arr]]\nn = 2\n");
    assert_int_equal(doc->root->type, TOML_TABLE);
    assert_int_equal(toml_table_count(doc->root), 4);
    /* Document order is kept. */
    assert_string_equal(toml_table_at(doc->root, 0)->key, "b");
    assert_string_equal(toml_table_at(doc->root, 1)->key, "a");
    assert_string_equal(toml_table_at(doc->root, 2)->key, "t");
    assert_null(toml_table_at(doc->root, 4));
    assert_int_equal(path(doc, "b")->u.integer, 1);
    assert_string_equal(path(doc, "a")->u.str.ptr, "x");
    assert_int_equal(path(doc, "t.z")->u.boolean, 1);
    const toml_value *arr = path(doc, "arr");
    assert_int_equal(arr->type, TOML_ARRAY);
    assert_int_equal(toml_array_count(arr), 2);
    assert_int_equal(toml_table_get(toml_array_at(arr, 1), "n")->u.integer, 2);
    assert_null(toml_array_at(arr, 2));
    /* Wrong-type lookups are NULL / 0, never a crash. */
    assert_null(toml_table_get(arr, "n"));
    assert_null(toml_array_at(doc->root, 0));
    assert_int_equal(toml_array_count(doc->root), 0);
    assert_int_equal(toml_table_count(arr), 0);
    assert_null(toml_table_get(NULL, "x"));
    assert_null(toml_table_get(doc->root, "missing"));
    toml_doc_destroy(doc);
    toml_doc_destroy(NULL);
}

static void test_empty_documents(void **state) {
    (void)state;
    const char *docs[] = {"", "\n", "# c", "  \t\n\r\n# c\n"};
    for (size_t i = 0; i < 4; i++) {
        toml_doc *doc = parse_ok(docs[i]);
        assert_int_equal(toml_table_count(doc->root), 0);
        toml_doc_destroy(doc);
    }
    toml_doc *doc = NULL;
    assert_int_equal(toml_parse(NULL, 0, &doc, NULL), SQE_OK);
    toml_doc_destroy(doc);
}

static void test_integers(void **state) {
    (void)state;
    toml_doc *doc =
        parse_ok("a = 9223372036854775807\nb = -9223372036854775808\nc = 0x7FFF_FFFF_FFFF_FFFF\n"
                 "d = 0o17\ne = 0b1010\nf = 1_000\ng = -0\nh = +42\n");
    assert_true(path(doc, "a")->u.integer == INT64_MAX);
    assert_true(path(doc, "b")->u.integer == INT64_MIN);
    assert_true(path(doc, "c")->u.integer == INT64_MAX);
    assert_int_equal(path(doc, "d")->u.integer, 15);
    assert_int_equal(path(doc, "e")->u.integer, 10);
    assert_int_equal(path(doc, "f")->u.integer, 1000);
    assert_int_equal(path(doc, "g")->u.integer, 0);
    assert_int_equal(path(doc, "h")->u.integer, 42);
    assert_int_equal(path(doc, "h")->type, TOML_INTEGER);
    toml_doc_destroy(doc);
    parse_bad("a = 9223372036854775808", 1, 5, "out of range");
    parse_bad("a = -9223372036854775809", 1, 5, "out of range");
    parse_bad("a = 0x8000000000000000", 1, 5, "out of range");
    parse_bad("a = 0b"
              "1111111111111111111111111111111111111111111111111111111111111111",
              1, 5, "out of range");
    parse_bad("a = 012", 1, 5, "leading zeros");
    parse_bad("a = 1__2", 1, 5, "underscore");
    parse_bad("a = -0x1", 1, 5, "sign");
}

static void test_floats(void **state) {
    (void)state;
    toml_doc *doc =
        parse_ok("a = 3.1415\nb = -0.0\nc = 5e+22\nd = inf\ne = -inf\nf = nan\ng = 6.626e-34\n"
                 "h = 1e400\ni = 224_617.445_991\n");
    assert_true(path(doc, "a")->u.flt == 3.1415);
    assert_true(path(doc, "b")->u.flt == 0.0 && signbit(path(doc, "b")->u.flt));
    assert_true(path(doc, "c")->u.flt == 5e22);
    assert_true(isinf(path(doc, "d")->u.flt) && path(doc, "d")->u.flt > 0);
    assert_true(isinf(path(doc, "e")->u.flt) && path(doc, "e")->u.flt < 0);
    assert_true(isnan(path(doc, "f")->u.flt));
    assert_true(path(doc, "g")->u.flt == 6.626e-34);
    assert_true(isinf(path(doc, "h")->u.flt));
    assert_true(path(doc, "i")->u.flt == 224617.445991);
    assert_int_equal(path(doc, "a")->type, TOML_FLOAT);
    toml_doc_destroy(doc);
    parse_bad("a = .5", 1, 5, NULL);
    parse_bad("a = 5.", 1, 5, "digits after '.'");
    parse_bad("a = 1e", 1, 5, "exponent");
    parse_bad("a = 1.5.", 1, 8, "end of line");
}

static void test_strings(void **state) {
    (void)state;
    toml_doc *doc = parse_ok("a = \"x\\u0000y\\U0001F600\\t\"\n"
                             "b = 'C:\\path'\n"
                             "c = \"\"\"\nline1\r\nline2 \\\n   joined\"\"\"\n"
                             "d = '''\nraw\\n'''\n"
                             "e = \"\"\"\"q\"\"\"\"\n"
                             "\"k\\u0000ey\" = 1\n");
    const toml_value *a = path(doc, "a");
    assert_int_equal(a->u.str.len, 8);
    assert_memory_equal(a->u.str.ptr, "x\0y\xF0\x9F\x98\x80\t", 8);
    assert_int_equal(a->u.str.ptr[a->u.str.len], 0);
    assert_string_equal(path(doc, "b")->u.str.ptr, "C:\\path");
    assert_string_equal(path(doc, "c")->u.str.ptr, "line1\nline2 joined");
    assert_string_equal(path(doc, "d")->u.str.ptr, "raw\\n");
    assert_string_equal(path(doc, "e")->u.str.ptr, "\"q\"");
    const toml_kv *kv = toml_table_at(doc->root, 5);
    assert_int_equal(kv->key_len, 4);
    assert_memory_equal(kv->key, "k\0ey", 5);
    toml_doc_destroy(doc);
    parse_bad("a = \"\\uD800\"", 1, 6, "scalar");
    parse_bad("a = \"\\q\"", 1, 6, "escape");
    parse_bad("a = \"abc", 1, 5, "unterminated");
    parse_bad("a = \"a\x01\"", 1, 7, "U+0001");
    parse_bad("a = \"\"\"x\\ y\"\"\"", 1, 9, "line-ending backslash");
}

static void test_datetimes(void **state) {
    (void)state;
    toml_doc *doc =
        parse_ok("a = 1979-05-27T07:32:00.123456789123-07:30\nb = 1979-05-27 00:32:00z\n"
                 "c = 1979-05-27T07:32:00\nd = 2000-02-29\ne = 23:59:59.5\n");
    const toml_value *a = path(doc, "a");
    assert_int_equal(a->type, TOML_DATETIME);
    assert_int_equal(a->u.dt.year, 1979);
    assert_int_equal(a->u.dt.month, 5);
    assert_int_equal(a->u.dt.day, 27);
    assert_int_equal(a->u.dt.hour, 7);
    assert_int_equal(a->u.dt.nanosecond, 123456789);
    assert_int_equal(a->u.dt.offset_minutes, -450);
    assert_int_equal(path(doc, "b")->type, TOML_DATETIME);
    assert_int_equal(path(doc, "b")->u.dt.offset_minutes, 0);
    assert_int_equal(path(doc, "c")->type, TOML_DATETIME_LOCAL);
    assert_int_equal(path(doc, "d")->type, TOML_DATE_LOCAL);
    assert_int_equal(path(doc, "e")->type, TOML_TIME_LOCAL);
    assert_int_equal(path(doc, "e")->u.dt.nanosecond, 500000000);
    char buf[64];
    assert_string_equal(toml_datetime_format(TOML_DATETIME, &a->u.dt, buf, sizeof buf),
                        "1979-05-27T07:32:00.123456789-07:30");
    assert_string_equal(toml_datetime_format(TOML_DATETIME, &path(doc, "b")->u.dt, buf, sizeof buf),
                        "1979-05-27T00:32:00Z");
    assert_string_equal(
        toml_datetime_format(TOML_DATE_LOCAL, &path(doc, "d")->u.dt, buf, sizeof buf),
        "2000-02-29");
    assert_string_equal(
        toml_datetime_format(TOML_TIME_LOCAL, &path(doc, "e")->u.dt, buf, sizeof buf),
        "23:59:59.5");
    toml_doc_destroy(doc);
    parse_bad("a = 2001-02-29", 1, 5, "no such day");
    parse_bad("a = 24:00:00", 1, 5, "out of range");
    parse_bad("a = 1979-05-27T07:32", 1, 16, "seconds");
    parse_bad("a = 1979-05-27T07:32:00+25:00", 1, 24, "offset");
}

static void test_positions(void **state) {
    (void)state;
    toml_doc *doc = parse_ok("# head\n\n[server]\n  port = 8080\n  \"é\" = 'ü'\n[[x]]\ny.z = 1\n");
    const toml_value *server = path(doc, "server");
    assert_int_equal(server->line, 3);
    assert_int_equal(server->column, 1);
    const toml_value *port = path(doc, "server.port");
    assert_int_equal(port->line, 4);
    assert_int_equal(port->column, 10);
    const toml_value *u = toml_table_at(server, 1)->value;
    assert_int_equal(u->line, 5);
    assert_int_equal(u->column, 9); /* "é" counts as one column */
    const toml_value *y = toml_table_get(toml_array_at(path(doc, "x"), 0), "y");
    assert_int_equal(y->line, 7);
    assert_int_equal(y->column, 1);
    toml_doc_destroy(doc);
    /* Errors: the column counts characters, not bytes. */
    parse_bad("k = \"ééé\\q\"", 1, 9, "escape");
    parse_bad("a = 1\nb = 2\nc = \n", 3, 5, "expected a value");
    parse_bad("a = [\n  1,\n  2,,\n]", 3, 5, "expected a value");
    parse_bad("a = 1\r\nb = 2\r\nb = 3\r\n", 3, 1, "duplicate key 'b'");
    parse_bad("x = '''\n\n\nabc", 1, 5, "unterminated");
    parse_bad("a = \"\xff\"", 1, 6, "UTF-8");
    parse_bad("\xef\xbb\xbf"
              "a = 1",
              1, 1, "expected a key");
}

static void test_redefinition(void **state) {
    (void)state;
    parse_bad("[a]\n[a]\n", 2, 1, "defined twice");
    parse_bad("a = 1\na = 2\n", 2, 1, "duplicate key");
    parse_bad("[fruit]\napple.color = 'red'\n[fruit.apple]\n", 3, 1, "defined twice");
    parse_bad("[a.b]\n[a]\nb.c = 1\n", 3, 1, "defined elsewhere");
    parse_bad("a = {b = 1}\na.c = 2\n", 2, 1, "inline table");
    parse_bad("a = [1]\n[[a]]\n", 2, 1, "static array");
    parse_bad("[a]\n[[a]]\n", 2, 1, "array of tables");
    parse_bad("[[a]]\n[a]\n", 2, 1, "array of tables");
    parse_bad("a = 1\n[a.b]\n", 2, 2, "already holds a value");
    parse_bad("a = {}\n[a.b]\n", 2, 2, "inline table");
    /* Allowed forms. */
    toml_doc *doc = parse_ok(
        "[x.y.z]\n[x]\n[fruit]\napple.color = 'red'\n[fruit.apple.texture]\nsmooth = true\n"
        "[[p]]\nq.r = 1\n[[p]]\nq.r = 2\n");
    assert_int_equal(path(doc, "fruit.apple.texture.smooth")->u.boolean, 1);
    assert_int_equal(toml_array_count(path(doc, "p")), 2);
    toml_doc_destroy(doc);
}

static void test_depth_limit(void **state) {
    (void)state;
    char buf[1100];
    memcpy(buf, "a = ", 4);
    size_t n = 4;
    for (int i = 0; i < TOML_MAX_DEPTH; i++) buf[n++] = '[';
    for (int i = 0; i < TOML_MAX_DEPTH; i++) buf[n++] = ']';
    buf[n] = 0;
    toml_doc *doc = parse_ok(buf);
    toml_doc_destroy(doc);
    n = 4;
    for (int i = 0; i < 500; i++) buf[n++] = i % 2 ? '[' : '[';
    buf[n] = 0;
    parse_bad(buf, 1, 4 + TOML_MAX_DEPTH + 1, "nested too deeply");
    n = 4;
    for (int i = 0; i < 300; i++) {
        memcpy(buf + n, "{a=", 3);
        n += 3;
    }
    buf[n] = 0;
    toml_doc *d2 = NULL;
    sqe_error err;
    assert_int_equal(toml_parse(buf, n, &d2, &err), SQE_ERR_SYNTAX_ERROR);
    assert_non_null(strstr(err.message, "nested too deeply"));
}

static void test_big_documents(void **state) {
    (void)state;
    strbuf sb;
    strbuf_init(&sb);
    for (int i = 0; i < 100000; i++) strbuf_printf(&sb, "k%d = %d\n", i, i);
    for (int i = 0; i < 20000; i++) strbuf_printf(&sb, "[t.s%d]\nv = 'x'\n", i);
    toml_doc *doc = NULL;
    sqe_error err;
    assert_int_equal(toml_parse(sb.data, sb.len, &doc, &err), SQE_OK);
    assert_int_equal(toml_table_count(doc->root), 100001);
    assert_int_equal(toml_table_get(doc->root, "k99999")->u.integer, 99999);
    assert_int_equal(toml_table_count(toml_table_get(doc->root, "t")), 20000);
    assert_int_equal(toml_table_get(doc->root, "k99999")->line, 100000);
    toml_doc_destroy(doc);
    strbuf_puts(&sb, "v = 2\n"); /* a duplicate in the last table */
    assert_int_equal(toml_parse(sb.data, sb.len, &doc, &err), SQE_ERR_SYNTAX_ERROR);
    assert_int_equal(err.line, 140001);
    strbuf_reset(&sb);
}

static void test_not_nul_terminated(void **state) {
    (void)state;
    /* The parser must stop at len even when the buffer continues. */
    const char text[] = "a = 12345";
    toml_doc *doc = NULL;
    assert_int_equal(toml_parse(text, 6, &doc, NULL), SQE_OK);
    assert_int_equal(toml_table_get(doc->root, "a")->u.integer, 12);
    toml_doc_destroy(doc);
    char *heap = malloc(5);
    memcpy(heap, "a = \"", 5);
    sqe_error err;
    assert_int_equal(toml_parse(heap, 5, &doc, &err), SQE_ERR_SYNTAX_ERROR);
    memcpy(heap, "a = 1", 5);
    assert_int_equal(toml_parse(heap, 5, &doc, &err), SQE_OK);
    toml_doc_destroy(doc);
    free(heap);
}

static void test_writer_helpers(void **state) {
    (void)state;
    strbuf sb;
    strbuf_init(&sb);
    strbuf_puts(&sb, "v = ");
    toml_quote_append(&sb, "q\"b\\n\n\t\x01\x7f é\0z", 15);
    strbuf_puts(&sb, "\n");
    toml_key_append(&sb, "bare-key_1", 10);
    strbuf_puts(&sb, " = 1\n");
    toml_key_append(&sb, "needs quotes", 12);
    strbuf_puts(&sb, " = 2\n");
    toml_key_append(&sb, "", 0);
    strbuf_puts(&sb, " = 3\n");
    toml_doc *doc = parse_ok(sb.data);
    const toml_value *v = toml_table_get(doc->root, "v");
    assert_int_equal(v->u.str.len, 15);
    assert_memory_equal(v->u.str.ptr, "q\"b\\n\n\t\x01\x7f é\0z", 15);
    assert_int_equal(toml_table_get(doc->root, "bare-key_1")->u.integer, 1);
    assert_int_equal(toml_table_get(doc->root, "needs quotes")->u.integer, 2);
    assert_int_equal(toml_table_get(doc->root, "")->u.integer, 3);
    toml_doc_destroy(doc);
    strbuf_reset(&sb);
    assert_string_equal(toml_type_name(TOML_DATETIME_LOCAL), "datetime-local");
    assert_string_equal(toml_type_name(TOML_BOOL), "bool");
}

static void test_hostile_bytes(void **state) {
    (void)state;
    /* Every prefix of a tricky document, and random bytes: errors or success, never a crash. */
    const char *text =
        "[a.\"b\"]\nc = [1, {d = '''x''', e = 1979-05-27T07:32:00Z}, \"\"\"\\u00e9\"\"\"]\n";
    size_t len = strlen(text);
    for (size_t n = 0; n <= len; n++) {
        char *copy = malloc(n ? n : 1);
        memcpy(copy, text, n);
        toml_doc *doc = NULL;
        sqe_error err;
        int rc = toml_parse(copy, n, &doc, &err);
        assert_true(rc == SQE_OK ||
                    (rc == SQE_ERR_SYNTAX_ERROR && err.line >= 1 && err.column >= 1));
        toml_doc_destroy(doc);
        free(copy);
    }
    unsigned seed = 7;
    const char alphabet[] = "ab=[]{}.,\"'#\\ \n\r\t-+:_e0x1\xc3\xa9\xff";
    for (int iter = 0; iter < 20000; iter++) {
        char buf[48];
        size_t n = (size_t)(rand_r(&seed) % 48);
        for (size_t i = 0; i < n; i++) buf[i] = alphabet[rand_r(&seed) % (sizeof alphabet - 1)];
        toml_doc *doc = NULL;
        int rc = toml_parse(buf, n, &doc, NULL);
        assert_true(rc == SQE_OK || rc == SQE_ERR_SYNTAX_ERROR);
        assert_true((rc == SQE_OK) == (doc != NULL));
        toml_doc_destroy(doc);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_api_basics),
        cmocka_unit_test(test_empty_documents),
        cmocka_unit_test(test_integers),
        cmocka_unit_test(test_floats),
        cmocka_unit_test(test_strings),
        cmocka_unit_test(test_datetimes),
        cmocka_unit_test(test_positions),
        cmocka_unit_test(test_redefinition),
        cmocka_unit_test(test_depth_limit),
        cmocka_unit_test(test_big_documents),
        cmocka_unit_test(test_not_nul_terminated),
        cmocka_unit_test(test_writer_helpers),
        cmocka_unit_test(test_hostile_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
