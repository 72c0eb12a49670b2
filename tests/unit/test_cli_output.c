/*
 * test_cli_output.c: unit tests of the shell's result formatters (src/cli/output.c).
 *
 * The formatters take names, types and cell texts, so these tests feed them made-up rows and
 * compare the exact bytes written. src/cli/ is not part of the sqe_core library, so the formatter
 * source is compiled into this test directly.
 *
 * INTERFACE: main (cmocka group).
 * NOTES: output goes to an open_memstream buffer.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cli/output.c"

typedef struct capture {
    FILE *fp;
    char *text;
    size_t len;
} capture;

static void capture_open(capture *c) {
    c->text = NULL;
    c->len = 0;
    c->fp = open_memstream(&c->text, &c->len);
    assert_non_null(c->fp);
}

static const char *capture_close(capture *c) {
    fclose(c->fp);
    return c->text;
}

static const char *const names3[] = {"a", "b", "c"};
static const char *const types3[] = {"bigint", "varchar", "decimal(10,2)"};

/* Prints rows (n_rows x 3 cells, NULL = SQL NULL) in fmt and returns the malloc'd text. */
static char *render(cli_format fmt, const char *const *rows, int n_rows) {
    capture c;
    capture_open(&c);
    cli_output *out;
    assert_int_equal(cli_output_create(c.fp, fmt, 3, names3, types3, &out), 0);
    for (int i = 0; i < n_rows; i++) assert_int_equal(cli_output_row(out, rows + 3 * i), 0);
    assert_int_equal(cli_output_finish(out), 0);
    assert_int_equal(cli_output_row_count(out), n_rows);
    cli_output_destroy(out);
    capture_close(&c);
    return c.text;
}

static const char *const sample[] = {
    "1",  "x",          "2.50",
    "-22", NULL,        "-3.00",
    "333", "a,\"b\"\tc\nd", NULL,
    "4",  "",           "0.00",
};

static void test_format_names(void **state) {
    (void)state;
    cli_format f = CLI_FORMAT_TABLE;
    assert_int_equal(cli_format_parse("json", &f), 0);
    assert_int_equal(f, CLI_FORMAT_JSON);
    assert_int_equal(cli_format_parse("CSV", &f), 0);
    assert_int_equal(f, CLI_FORMAT_CSV);
    assert_int_equal(cli_format_parse("xml", &f), -1);
    assert_int_equal(f, CLI_FORMAT_CSV);
    assert_string_equal(cli_format_name(CLI_FORMAT_TSV), "tsv");
}

static void test_csv(void **state) {
    (void)state;
    char *text = render(CLI_FORMAT_CSV, sample, 4);
    assert_string_equal(text, "a,b,c\n"
                              "1,x,2.50\n"
                              "-22,,-3.00\n"
                              "333,\"a,\"\"b\"\"\tc\nd\",\n"
                              "4,\"\",0.00\n");
    free(text);
    text = render(CLI_FORMAT_CSV, sample, 0);
    assert_string_equal(text, "a,b,c\n");
    free(text);
}

static void test_tsv(void **state) {
    (void)state;
    static const char *const row[] = {"1", "back\\slash", "x\ry"};
    char *text = render(CLI_FORMAT_TSV, sample, 4);
    assert_string_equal(text, "a\tb\tc\n"
                              "1\tx\t2.50\n"
                              "-22\t\t-3.00\n"
                              "333\ta,\"b\"\\tc\\nd\t\n"
                              "4\t\t0.00\n");
    free(text);
    text = render(CLI_FORMAT_TSV, row, 1);
    assert_string_equal(text, "a\tb\tc\n1\tback\\\\slash\tx\\ry\n");
    free(text);
}

static void test_json(void **state) {
    (void)state;
    char *text = render(CLI_FORMAT_JSON, sample, 4);
    assert_string_equal(text, "[{\"a\":1,\"b\":\"x\",\"c\":\"2.50\"},"
                              "{\"a\":-22,\"b\":null,\"c\":\"-3.00\"},"
                              "{\"a\":333,\"b\":\"a,\\\"b\\\"\\tc\\nd\",\"c\":null},"
                              "{\"a\":4,\"b\":\"\",\"c\":\"0.00\"}]\n");
    free(text);
    text = render(CLI_FORMAT_JSON, sample, 0);
    assert_string_equal(text, "[]\n");
    free(text);
}

static void test_json_value_kinds(void **state) {
    (void)state;
    static const char *const names[] = {"d", "r", "t", "f", "ts", "arr", "q\"k"};
    static const char *const types[] = {"double", "real", "boolean", "boolean",
                                        "timestamp(6)", "array(integer)", "integer"};
    static const char *const row1[] = {"1.5E10", "NaN", "true", "maybe",
                                       "2024-01-02 03:04:05.000000", "[1, 2]", "7"};
    static const char *const row2[] = {"-Infinity", "0.25", "false", NULL, NULL, NULL, NULL};
    capture c;
    capture_open(&c);
    cli_output *out;
    assert_int_equal(cli_output_create(c.fp, CLI_FORMAT_JSON, 7, names, types, &out), 0);
    assert_int_equal(cli_output_row(out, row1), 0);
    assert_int_equal(cli_output_row(out, row2), 0);
    assert_int_equal(cli_output_finish(out), 0);
    cli_output_destroy(out);
    assert_string_equal(capture_close(&c),
                        "[{\"d\":1.5E10,\"r\":\"NaN\",\"t\":true,\"f\":\"maybe\","
                        "\"ts\":\"2024-01-02 03:04:05.000000\",\"arr\":[1,2],\"q\\\"k\":7},"
                        "{\"d\":\"-Infinity\",\"r\":0.25,\"t\":false,\"f\":null,\"ts\":null,"
                        "\"arr\":null,\"q\\\"k\":null}]\n");
    free(c.text);
}

static void test_json_strings(void **state) {
    (void)state;
    capture c;
    capture_open(&c);
    cli_json_write_string(c.fp, "é\x01\x7f\xff/");
    assert_string_equal(capture_close(&c), "\"é\\u0001\x7f\\ufffd/\"");
    free(c.text);
    assert_true(cli_json_is_number("0"));
    assert_true(cli_json_is_number("-12.5e-3"));
    assert_true(cli_json_is_number("1.0E10"));
    assert_false(cli_json_is_number("01"));
    assert_false(cli_json_is_number("1."));
    assert_false(cli_json_is_number(".5"));
    assert_false(cli_json_is_number("NaN"));
    assert_false(cli_json_is_number("Infinity"));
    assert_false(cli_json_is_number(""));
}

static void test_statement_lines(void **state) {
    (void)state;
    capture c;
    capture_open(&c);
    cli_output_update_count(c.fp, CLI_FORMAT_JSON, 42);
    cli_output_ok(c.fp, CLI_FORMAT_JSON);
    cli_output_error(c.fp, CLI_FORMAT_JSON, "bad \"x\"", "42601", 1, 8);
    cli_output_update_count(c.fp, CLI_FORMAT_TABLE, 1);
    cli_output_update_count(c.fp, CLI_FORMAT_CSV, 5);
    cli_output_ok(c.fp, CLI_FORMAT_TABLE);
    cli_output_error(c.fp, CLI_FORMAT_TABLE, "bad", "42601", 1, 8);
    cli_error_print(c.fp, "line 1:8: mismatched input", "42601", 1, 8);
    cli_error_print(c.fp, "Division by zero", "22012", 0, 0);
    cli_error_print(c.fp, "", "", 0, 0);
    assert_string_equal(capture_close(&c),
                        "{\"rows\": 42}\n"
                        "{\"ok\": true}\n"
                        "{\"error\": {\"message\": \"bad \\\"x\\\"\", \"sqlstate\": \"42601\", "
                        "\"line\": 1, \"column\": 8}}\n"
                        "(1 row affected)\n"
                        "Error: line 1:8: mismatched input (SQLSTATE 42601) at line 1, column 8\n"
                        "Error: Division by zero (SQLSTATE 22012)\n"
                        "Error: unknown error\n");
    free(c.text);
}

static void test_table(void **state) {
    (void)state;
    static const char *const rows[] = {"1", "x", "2.50", "-22", NULL, "-3.00", "7", "héllo", NULL};
    char *text = render(CLI_FORMAT_TABLE, rows, 3);
    assert_string_equal(text, "┌────────┬─────────┬───────────────┐\n"
                              "│   a    │    b    │       c       │\n"
                              "│ bigint │ varchar │ decimal(10,2) │\n"
                              "├────────┼─────────┼───────────────┤\n"
                              "│      1 │ x       │          2.50 │\n"
                              "│    -22 │ NULL    │         -3.00 │\n"
                              "│      7 │ héllo   │          NULL │\n"
                              "└────────┴─────────┴───────────────┘\n"
                              "(3 rows)\n");
    free(text);
    static const char *const one[] = {"1", "tab\there", "0.00"};
    text = render(CLI_FORMAT_TABLE, one, 1);
    assert_non_null(strstr(text, "│ tab\\there │"));
    assert_non_null(strstr(text, "\n(1 row)\n"));
    free(text);
}

/* Rows past the buffer keep the widths computed from the buffered ones and are shortened. */
static void test_table_streaming(void **state) {
    (void)state;
    static const char *const names[] = {"v"};
    static const char *const types[] = {"varchar"};
    capture c;
    capture_open(&c);
    cli_output *out;
    assert_int_equal(cli_output_create(c.fp, CLI_FORMAT_TABLE, 1, names, types, &out), 0);
    const char *cell[1] = {"abcdefg"};
    for (int i = 0; i < CLI_TABLE_BUFFER_ROWS; i++) assert_int_equal(cli_output_row(out, cell), 0);
    cell[0] = "abcdefghijkl";
    assert_int_equal(cli_output_row(out, cell), 0);
    assert_int_equal(cli_output_finish(out), 0);
    cli_output_destroy(out);
    const char *text = capture_close(&c);
    assert_non_null(strstr(text, "│ abcdef… │\n└"));
    assert_non_null(strstr(text, "(10001 rows)\n"));
    free(c.text);
}

static void test_abort(void **state) {
    (void)state;
    capture c;
    capture_open(&c);
    cli_output *out;
    assert_int_equal(cli_output_create(c.fp, CLI_FORMAT_JSON, 3, names3, types3, &out), 0);
    assert_int_equal(cli_output_abort(out), 0); /* nothing written yet */
    cli_output_destroy(out);
    assert_int_equal(cli_output_create(c.fp, CLI_FORMAT_JSON, 3, names3, types3, &out), 0);
    assert_int_equal(cli_output_row(out, sample), 0);
    assert_int_equal(cli_output_abort(out), 1); /* the line was started */
    cli_output_destroy(out);
    assert_string_equal(capture_close(&c), "[{\"a\":1,\"b\":\"x\",\"c\":\"2.50\"}\n");
    free(c.text);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_format_names),   cmocka_unit_test(test_csv),
        cmocka_unit_test(test_tsv),            cmocka_unit_test(test_json),
        cmocka_unit_test(test_json_value_kinds), cmocka_unit_test(test_json_strings),
        cmocka_unit_test(test_statement_lines), cmocka_unit_test(test_table),
        cmocka_unit_test(test_table_streaming), cmocka_unit_test(test_abort),
    };
    return cmocka_run_group_tests_name("cli_output", tests, NULL, NULL);
}
