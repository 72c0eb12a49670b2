/*
 * test_csv.c: unit tests of the CSV reader (src/format/csv): options, inference, header
 * detection, quoting, line ends, NULLs, ragged rows, every column type, conversion errors,
 * byte ranges (a generated 20 MB file read in 4 ranges equals one range), buffer boundaries,
 * glob expansion, and hostile inputs (random bytes, unterminated quotes, overlong lines) that
 * must give errors, never crashes.
 *
 * Fixtures: tests/data/csv/ (found relative to this source file); bigger inputs are generated
 * in a temporary directory that is removed at the end.
 * Benchmark: SQE_CSV_BENCH=1 unit_csv also generates a ~100 MB TPC-H-like lineitem file and
 * prints the single-thread throughput (inferred types and declared decimal columns).
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ftw.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/hash.h"
#include "common/strbuf.h"
#include "format/csv/csv.h"
#include "io/io.h"
#include "types/datetime.h"
#include "types/decimal.h"
#include "types/tz.h"

/* --- helpers ------------------------------------------------------------------------------- */

static char g_tmp[256];
static char g_data[1024];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static int group_setup(void **state) {
    (void)state;
    snprintf(g_tmp, sizeof g_tmp, "/tmp/sqe_csv_XXXXXX");
    if (!mkdtemp(g_tmp)) return -1;
    snprintf(g_data, sizeof g_data, "%s/tests/data/csv/", SQE_SOURCE_DIR);
    return 0;
}

static int group_teardown(void **state) {
    (void)state;
    nftw(g_tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    return 0;
}

static const char *data_path(const char *name) {
    static char buf[4][1200];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s%s", g_data, name);
    return buf[k];
}

static const char *tmp_path(const char *name) {
    static char buf[4][600];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", g_tmp, name);
    return buf[k];
}

static const char *write_tmp(const char *name, const char *content, size_t len) {
    const char *path = tmp_path(name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    if (len) assert_int_equal(fwrite(content, 1, len, f), len);
    fclose(f);
    return path;
}

static const char *write_str(const char *name, const char *content) {
    return write_tmp(name, content, strlen(content));
}

static void format_value(const vec *v, uint32_t row, strbuf *sb) {
    if (!vec_is_valid_flat(v, row)) {
        strbuf_puts(sb, "NULL");
        return;
    }
    char buf[128];
    switch ((type_id)v->type.id) {
    case TYPE_BOOLEAN: strbuf_puts(sb, VEC_DATA(v, uint8_t)[row] ? "true" : "false"); break;
    case TYPE_TINYINT: strbuf_printf(sb, "%d", VEC_DATA(v, int8_t)[row]); break;
    case TYPE_SMALLINT: strbuf_printf(sb, "%d", VEC_DATA(v, int16_t)[row]); break;
    case TYPE_INTEGER: strbuf_printf(sb, "%d", VEC_DATA(v, int32_t)[row]); break;
    case TYPE_BIGINT: strbuf_printf(sb, "%lld", (long long)VEC_DATA(v, int64_t)[row]); break;
    case TYPE_REAL: strbuf_printf(sb, "%.9g", VEC_DATA(v, float)[row]); break;
    case TYPE_DOUBLE: strbuf_printf(sb, "%.17g", VEC_DATA(v, double)[row]); break;
    case TYPE_DECIMAL:
        decimal_format(decimal_get(v->data, v->type, row), v->type.scale, buf);
        strbuf_puts(sb, buf);
        break;
    case TYPE_DATE: dt_format_date(VEC_DATA(v, int32_t)[row], buf); strbuf_puts(sb, buf); break;
    case TYPE_TIME:
        dt_format_time(VEC_DATA(v, int64_t)[row], v->type.precision, buf);
        strbuf_puts(sb, buf);
        break;
    case TYPE_TIMESTAMP:
        dt_format_timestamp(VEC_DATA(v, int64_t)[row], v->type.precision, buf);
        strbuf_puts(sb, buf);
        break;
    case TYPE_TIMESTAMP_TZ: {
        sqe_timestamp_tz t = VEC_DATA(v, sqe_timestamp_tz)[row];
        strbuf_printf(sb, "%lld@%d", (long long)t.micros, (int)t.zone);
        break;
    }
    case TYPE_UUID:
        for (int i = 0; i < 16; i++) strbuf_printf(sb, "%02x", VEC_DATA(v, uint8_t)[row * 16 + i]);
        break;
    default: {
        const sqe_str *s = &VEC_DATA(v, sqe_str)[row];
        strbuf_append(sb, sqe_str_data(s), s->len);
        break;
    }
    }
}

/* Reads [start, end) of path into text: one line per row, values separated by '|'. Returns the
 * status; *rows gets the row count. */
static int read_range(const char *path, const csv_options *o, const csv_schema *s, uint64_t start,
                      uint64_t end, uint32_t capacity, strbuf *out, uint64_t *rows,
                      sqe_error *err) {
    csv_reader *rd;
    int rc = csv_reader_open(path, o, s, start, end, NULL, &rd, err);
    if (rc) return rc;
    vec_chunk chunk;
    assert_int_equal(vec_chunk_init(&chunk, s->n_cols, s->types, capacity, NULL, err), 0);
    uint64_t n = 0;
    for (;;) {
        rc = csv_reader_next(rd, &chunk, err);
        if (rc || chunk.count == 0) break;
        assert_true(chunk.count <= capacity);
        for (uint32_t r = 0; r < chunk.count; r++) {
            for (uint32_t c = 0; c < chunk.n_cols; c++) {
                if (c) strbuf_putc(out, '|');
                format_value(&chunk.cols[c], r, out);
            }
            strbuf_putc(out, '\n');
        }
        n += chunk.count;
    }
    vec_chunk_destroy(&chunk);
    csv_reader_close(rd);
    if (rows) *rows = n;
    return rc;
}

/* Like read_range, but folds every value into a running hash (*digest, order-dependent)
 * instead of formatting it: fast enough for big files under the sanitizers. */
static int digest_range(const char *path, const csv_options *o, const csv_schema *s,
                        uint64_t start, uint64_t end, uint64_t *digest, uint64_t *rows,
                        sqe_error *err) {
    csv_reader *rd;
    int rc = csv_reader_open(path, o, s, start, end, NULL, &rd, err);
    if (rc) return rc;
    vec_chunk chunk;
    assert_int_equal(vec_chunk_init(&chunk, s->n_cols, s->types, VEC_CHUNK_SIZE, NULL, err), 0);
    uint64_t h = *digest, n = 0;
    for (;;) {
        rc = csv_reader_next(rd, &chunk, err);
        if (rc || chunk.count == 0) break;
        for (uint32_t r = 0; r < chunk.count; r++) {
            for (uint32_t c = 0; c < chunk.n_cols; c++) {
                const vec *v = &chunk.cols[c];
                uint64_t vh;
                if (!vec_is_valid_flat(v, r)) {
                    vh = 0x9e3779b97f4a7c15ULL;
                } else if (type_is_string_view(v->type)) {
                    const sqe_str *str = &VEC_DATA(v, sqe_str)[r];
                    vh = hash_bytes(sqe_str_data(str), str->len);
                } else {
                    size_t w = type_physical_size(v->type);
                    vh = hash_bytes((const char *)v->data + w * r, w);
                }
                h = hash_combine(h, vh);
            }
        }
        n += chunk.count;
    }
    vec_chunk_destroy(&chunk);
    csv_reader_close(rd);
    *digest = h;
    *rows += n;
    return rc;
}

/* Sniffs and reads the whole file into text. */
static int sniff_and_read(const char *path, const csv_options *o, csv_schema *s, strbuf *out,
                          sqe_error *err) {
    int rc = csv_sniff(path, o, s, err);
    if (rc) return rc;
    return read_range(path, o, s, 0, CSV_RANGE_END, VEC_CHUNK_SIZE, out, NULL, err);
}

static void assert_type(sqe_type t, const char *expected) {
    char buf[128];
    type_format(t, buf, sizeof buf);
    assert_string_equal(buf, expected);
}

static void set_opt(csv_options *o, const char *name, const char *value) {
    sqe_error err;
    int rc = csv_options_set(o, name, value, &err);
    if (rc) fail_msg("csv_options_set(%s, %s): %s", name, value, err.message);
}

/* Text of a whole file read with default options (plus name=value pairs). */
static char *read_text(const char *path, csv_schema *s, int expect_rc, sqe_error *err, ...) {
    csv_options o;
    csv_options_init(&o);
    va_list ap;
    va_start(ap, err);
    for (;;) {
        const char *name = va_arg(ap, const char *);
        if (!name) break;
        set_opt(&o, name, va_arg(ap, const char *));
    }
    va_end(ap);
    strbuf sb;
    strbuf_init(&sb);
    int rc = sniff_and_read(path, &o, s, &sb, err);
    if (rc != expect_rc)
        fail_msg("expected status %d, got %d: %s", expect_rc, rc, rc ? err->message : "");
    csv_options_reset(&o);
    char *text = strbuf_move(&sb);
    return text ? text : strdup("");
}

/* --- options ------------------------------------------------------------------------------- */

static void test_options(void **state) {
    (void)state;
    csv_options o;
    sqe_error err;
    csv_options_init(&o);
    assert_int_equal(o.delimiter, 0);
    assert_int_equal(o.quote, '"');
    assert_int_equal(o.sample_size, CSV_DEFAULT_SAMPLE_ROWS);
    assert_int_equal(o.max_line_size, CSV_DEFAULT_MAX_LINE_SIZE);

    set_opt(&o, "delim", "|");
    assert_int_equal(o.delimiter, '|');
    set_opt(&o, "SEP", "\\t");
    assert_int_equal(o.delimiter, '\t');
    set_opt(&o, "header", "TRUE");
    assert_int_equal(o.header, CSV_HEADER_TRUE);
    set_opt(&o, "header", "false");
    assert_int_equal(o.header, CSV_HEADER_FALSE);
    set_opt(&o, "quote", "'");
    assert_int_equal(o.quote, '\'');
    set_opt(&o, "escape", "\\\\");
    assert_int_equal(o.escape, '\\');
    set_opt(&o, "nullstr", "NA");
    assert_string_equal(o.null_string, "NA");
    set_opt(&o, "skip", "2");
    assert_int_equal(o.skip, 2);
    set_opt(&o, "sample_size", "-1");
    assert_int_equal(o.sample_size, -1);
    set_opt(&o, "all_varchar", "true");
    assert_true(o.all_varchar);
    set_opt(&o, "comment", "#");
    assert_int_equal(o.comment, '#');
    set_opt(&o, "ignore_errors", "1");
    assert_true(o.ignore_errors);
    set_opt(&o, "null_padding", "true");
    assert_true(o.null_padding);
    set_opt(&o, "columns", "A BIGINT, \"Mixed \"\"Case\"\"\" decimal(15, 2), c varchar(10)");
    assert_int_equal(o.n_columns, 3);
    assert_string_equal(o.columns[0].name, "a");
    assert_string_equal(o.columns[1].name, "Mixed \"Case\"");
    assert_string_equal(o.columns[2].name, "c");
    assert_type(o.columns[0].type, "bigint");
    assert_type(o.columns[1].type, "decimal(15,2)");
    assert_type(o.columns[2].type, "varchar(10)");

    /* unknown names and bad values leave the options unchanged */
    assert_int_equal(csv_options_set(&o, "bogus", "1", &err), SQE_ERR_INVALID_ARGUMENTS);
    assert_string_equal(err.message, "Unknown read_csv option 'bogus'");
    assert_int_equal(csv_options_set(&o, "delim", "ab", &err), SQE_ERR_INVALID_ARGUMENTS);
    assert_non_null(strstr(err.message, "'delim'"));
    assert_int_equal(o.delimiter, '\t');
    assert_int_equal(csv_options_set(&o, "header", "maybe", &err), SQE_ERR_INVALID_ARGUMENTS);
    assert_non_null(strstr(err.message, "'header'"));
    assert_int_equal(csv_options_set(&o, "skip", "-1", &err), SQE_ERR_INVALID_ARGUMENTS);
    assert_int_equal(csv_options_set(&o, "sample_size", "0", &err), SQE_ERR_INVALID_ARGUMENTS);
    assert_int_equal(csv_options_set(&o, "max_line_size", "x", &err), SQE_ERR_INVALID_ARGUMENTS);
    assert_int_equal(csv_options_set(&o, "all_varchar", "yes", &err), SQE_ERR_INVALID_ARGUMENTS);
    assert_int_equal(csv_options_set(&o, "delimiter", "\n", &err), SQE_ERR_INVALID_ARGUMENTS);
    assert_int_equal(csv_options_set(&o, "columns", "a", &err), SQE_ERR_INVALID_ARGUMENTS);
    assert_non_null(strstr(err.message, "'columns'"));
    assert_int_equal(csv_options_set(&o, "columns", "a bigint, A int", &err),
                     SQE_ERR_INVALID_ARGUMENTS);
    assert_non_null(strstr(err.message, "declared twice"));
    assert_int_equal(csv_options_set(&o, "columns", "a array(bigint)", &err),
                     SQE_ERR_INVALID_ARGUMENTS);
    assert_non_null(strstr(err.message, "not supported"));
    assert_int_equal(csv_options_set(&o, "columns", "a frobnitz", &err), SQE_ERR_INVALID_ARGUMENTS);
    assert_int_equal(csv_options_set(&o, "columns", "", &err), SQE_ERR_INVALID_ARGUMENTS);
    assert_int_equal(o.n_columns, 3);
    assert_int_equal(csv_options_set(&o, "null", NULL, &err), SQE_ERR_INVALID_ARGUMENTS);

    csv_options copy;
    assert_int_equal(csv_options_copy(&copy, &o, &err), 0);
    assert_ptr_not_equal(copy.columns, o.columns);
    assert_string_equal(copy.columns[1].name, "Mixed \"Case\"");
    assert_string_equal(copy.null_string, "NA");
    csv_options_reset(&o);
    assert_string_equal(copy.columns[2].name, "c");
    csv_options_reset(&copy);
}

/* --- inference and header ------------------------------------------------------------------ */

static void test_infer_types(void **state) {
    (void)state;
    csv_schema s;
    sqe_error err;
    char *text = read_text(data_path("types.csv"), &s, 0, &err, NULL);
    assert_int_equal(s.n_cols, 7);
    assert_true(s.has_header);
    assert_int_equal(s.delimiter, ',');
    const char *names[] = {"id", "name", "price", "active", "day", "ts", "note"};
    const char *types[] = {"bigint", "varchar", "double", "boolean", "date", "timestamp(6)",
                           "varchar"};
    for (int i = 0; i < 7; i++) {
        assert_string_equal(s.names[i], names[i]);
        assert_type(s.types[i], types[i]);
    }
    assert_string_equal(text,
                        "1|apple|1.5|true|2024-01-15|2024-01-15 10:30:00.000000|fresh\n"
                        "2|banana|0.25|false|2024-02-29|2024-02-29 23:59:59.123456|NULL\n"
                        "3|cherry|10|true|1999-12-31|1999-12-31 00:00:00.000000|sweet, red\n"
                        "-4|date|-350|false|2000-01-01|2000-01-01 00:00:00.000000|x\n");
    free(text);
    csv_schema_reset(&s);
}

static void test_infer_widening(void **state) {
    (void)state;
    csv_schema s;
    sqe_error err;
    /* int+double -> double; date+timestamp -> timestamp; int+text -> varchar; leading zero ->
       varchar; huge integer -> double; all NULL -> varchar; bool+int -> varchar */
    const char *path = write_str("widen.csv",
                                 "a,b,c,d,e,f,g\n"
                                 "1,2024-01-01,1,007,1,,true\n"
                                 "2.5,2024-01-01 12:00:00,x,012,99999999999999999999,,1\n");
    char *text = read_text(path, &s, 0, &err, NULL);
    const char *types[] = {"double", "timestamp(6)", "varchar", "varchar", "double", "varchar",
                           "varchar"};
    for (int i = 0; i < 7; i++) assert_type(s.types[i], types[i]);
    assert_string_equal(text, "1|2024-01-01 00:00:00.000000|1|007|1|NULL|true\n"
                              "2.5|2024-01-01 12:00:00.000000|x|012|1e+20|NULL|1\n");
    free(text);
    csv_schema_reset(&s);

    /* all_varchar */
    text = read_text(data_path("types.csv"), &s, 0, &err, "all_varchar", "true", NULL);
    for (uint32_t i = 0; i < s.n_cols; i++) assert_type(s.types[i], "varchar");
    assert_true(s.has_header);
    assert_non_null(strstr(text, "-4|date|-3.5e2|false|"));
    free(text);
    csv_schema_reset(&s);

    /* sample_size limits the rows looked at: a late text value breaks the read */
    strbuf sb;
    strbuf_init(&sb);
    strbuf_puts(&sb, "n\n");
    for (int i = 0; i < 50; i++) strbuf_printf(&sb, "%d\n", i);
    strbuf_puts(&sb, "oops\n");
    path = write_str("late.csv", strbuf_cstr(&sb));
    strbuf_reset(&sb);
    text = read_text(path, &s, SQE_ERR_INVALID_CAST_ARGUMENT, &err, "sample_size", "10", NULL);
    assert_non_null(strstr(err.message, "late.csv:52:1: Cannot cast 'oops' to bigint"));
    free(text);
    csv_schema_reset(&s);
    text = read_text(path, &s, 0, &err, "sample_size", "-1", NULL);
    assert_type(s.types[0], "varchar");
    free(text);
    csv_schema_reset(&s);
}

static void test_header_detection(void **state) {
    (void)state;
    csv_schema s;
    sqe_error err;
    char *text;

    text = read_text(write_str("h1.csv", "1,2\n3,4\n"), &s, 0, &err, NULL);
    assert_false(s.has_header);
    assert_string_equal(s.names[0], "column0");
    assert_string_equal(s.names[1], "column1");
    assert_type(s.types[0], "bigint");
    assert_string_equal(text, "1|2\n3|4\n");
    free(text);
    csv_schema_reset(&s);

    /* all text: the first row is the header (as DuckDB assumes) */
    text = read_text(write_str("h2.csv", "name,city\nalice,paris\nbob,rome\n"), &s, 0, &err, NULL);
    assert_true(s.has_header);
    assert_string_equal(s.names[1], "city");
    assert_string_equal(text, "alice|paris\nbob|rome\n");
    free(text);
    csv_schema_reset(&s);

    /* ... unless the first value comes back in its column */
    text = read_text(write_str("h3.csv", "alice\nbob\nalice\n"), &s, 0, &err, NULL);
    assert_false(s.has_header);
    assert_string_equal(text, "alice\nbob\nalice\n");
    free(text);
    csv_schema_reset(&s);

    /* a numeric first row is data */
    text = read_text(write_str("h4.csv", "id,x\n1,a\n2,b\n"), &s, 0, &err, NULL);
    assert_true(s.has_header);
    free(text);
    csv_schema_reset(&s);

    /* a header and nothing else */
    text = read_text(write_str("h5.csv", "a,b\n"), &s, 0, &err, NULL);
    assert_true(s.has_header);
    assert_int_equal(s.n_cols, 2);
    assert_type(s.types[0], "varchar");
    assert_string_equal(text, "");
    free(text);
    csv_schema_reset(&s);

    /* header=false: the header row is data, so every column is text */
    text = read_text(data_path("types.csv"), &s, 0, &err, "header", "false", NULL);
    assert_false(s.has_header);
    assert_type(s.types[0], "varchar");
    assert_string_equal(s.names[0], "column0");
    assert_true(strncmp(text, "id|name|price|", 14) == 0);
    free(text);
    csv_schema_reset(&s);

    /* header=true on typed data */
    text = read_text(write_str("h6.csv", "1,2\n3,4\n"), &s, 0, &err, "header", "true", NULL);
    assert_string_equal(s.names[0], "1");
    assert_string_equal(text, "3|4\n");
    free(text);
    csv_schema_reset(&s);

    /* duplicate and empty names */
    text = read_text(write_str("h7.csv", "a,a,A,,a_1\n1,2,3,4,5\n"), &s, 0, &err, NULL);
    assert_true(s.has_header);
    assert_string_equal(s.names[0], "a");
    assert_string_equal(s.names[1], "a_1");
    assert_string_equal(s.names[2], "A_2");
    assert_string_equal(s.names[3], "column3");
    assert_string_equal(s.names[4], "a_1_1");
    free(text);
    csv_schema_reset(&s);

    /* explicit columns with a header row to skip */
    text = read_text(write_str("h8.csv", "x,y\n1,a\n2,b\n"), &s, 0, &err, "columns",
                     "k integer, v varchar", NULL);
    assert_true(s.has_header);
    assert_string_equal(s.names[0], "k");
    assert_type(s.types[0], "integer");
    assert_string_equal(text, "1|a\n2|b\n");
    free(text);
    csv_schema_reset(&s);

    /* explicit columns that do not match the file */
    text = read_text(write_str("h9.csv", "1,2,3\n"), &s, SQE_ERR_INVALID_FILE, &err, "columns",
                     "a bigint, b bigint", NULL);
    assert_non_null(strstr(err.message, "has 3 columns but read_csv option 'columns' declares 2"));
    free(text);
    csv_schema_reset(&s);
}

static void test_delimiter_detection(void **state) {
    (void)state;
    csv_schema s;
    sqe_error err;
    struct {
        const char *content;
        char delim;
        const char *text;
    } cases[] = {
        {"a|b|c\n1|2|3\n", '|', "1|2|3\n"},
        {"a;b\n1;2,5\n3;4,5\n", ';', "1|2,5\n3|4,5\n"},
        {"a\tb\n1\t2\n", '\t', "1|2\n"},
        {"x\n1\n2\n", ',', "1\n2\n"},
        {"a,b\n\"x|y\",2\n", ',', "x|y|2\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *text = read_text(write_str("delim.csv", cases[i].content), &s, 0, &err, NULL);
        assert_int_equal(s.delimiter, cases[i].delim);
        assert_string_equal(text, cases[i].text);
        free(text);
        csv_schema_reset(&s);
    }
    /* an explicit delimiter wins */
    char *text = read_text(write_str("delim2.csv", "a|b,c\n1|2,3\n"), &s, 0, &err, "delim", ",",
                           NULL);
    assert_int_equal(s.n_cols, 2);
    assert_string_equal(s.names[0], "a|b");
    free(text);
    csv_schema_reset(&s);
}

/* --- text structure ------------------------------------------------------------------------ */

static void test_quotes(void **state) {
    (void)state;
    csv_schema s;
    sqe_error err;
    char *text = read_text(data_path("quotes.csv"), &s, 0, &err, NULL);
    assert_true(s.has_header);
    assert_true(s.quoted_newlines);
    assert_type(s.types[0], "bigint");
    assert_type(s.types[1], "varchar");
    assert_string_equal(text, "1|hello, world|x\n"
                              "2|say \"hi\"|y\n"
                              "3|line one\nline two|z\n"
                              "4||w\n"
                              "5|NULL|v\n");
    free(text);
    csv_schema_reset(&s);

    /* escape character, custom quote, spaces after a closing quote, quote inside a field */
    text = read_text(write_str("esc.csv", "a,b\n'it\\'s',1\n'back\\\\slash' ,2\nab'c,3\n"), &s, 0,
                     &err, "quote", "'", "escape", "\\\\", NULL);
    assert_string_equal(text, "it's|1\nback\\slash|2\nab'c|3\n");
    free(text);
    csv_schema_reset(&s);

    /* no quoting at all */
    text = read_text(write_str("noq.csv", "a,b\n\"x,y\n"), &s, 0, &err, "quote", "", NULL);
    assert_string_equal(text, "\"x|y\n");
    free(text);
    csv_schema_reset(&s);

    /* a long quoted field with many doubled quotes (escapes removed in place) */
    strbuf sb;
    strbuf_init(&sb);
    strbuf_puts(&sb, "id,v\n1,\"");
    for (int i = 0; i < 1000; i++) strbuf_puts(&sb, "ab\"\"");
    strbuf_puts(&sb, "\"\n");
    text = read_text(write_str("manyq.csv", strbuf_cstr(&sb)), &s, 0, &err, NULL);
    strbuf_reset(&sb);
    assert_int_equal(strlen(text), 2 + 3000 + 1);
    assert_memory_equal(text + 2, "ab\"ab\"", 6);
    free(text);
    csv_schema_reset(&s);
}

static void test_line_ends(void **state) {
    (void)state;
    csv_schema s;
    sqe_error err;
    char *text = read_text(data_path("crlf.csv"), &s, 0, &err, NULL);
    assert_true(s.has_header);
    assert_string_equal(s.names[0], "k"); /* BOM skipped */
    assert_string_equal(text, "1|one\n2|two\n3|three\n");
    free(text);
    csv_schema_reset(&s);

    /* old Mac line ends, empty lines in the middle and at the end, comments, skip */
    text = read_text(write_str("cr.csv", "a,b\r1,x\r\r2,y\r\n\n\n"), &s, 0, &err, NULL);
    assert_string_equal(text, "1|x\n2|y\n");
    free(text);
    csv_schema_reset(&s);

    text = read_text(write_str("skip.csv", "garbage line, with, commas\n# note\na,b\n1,2\n#c\n3,4"),
                     &s, 0, &err, "skip", "1", "comment", "#", NULL);
    assert_true(s.has_header);
    assert_string_equal(s.names[1], "b");
    assert_string_equal(text, "1|2\n3|4\n");
    free(text);
    csv_schema_reset(&s);

    /* a single column: an empty line is a NULL value (as in DuckDB) */
    text = read_text(write_str("one.csv", "x\n1\n\n2\n"), &s, 0, &err, NULL);
    assert_type(s.types[0], "bigint");
    assert_string_equal(text, "1\nNULL\n2\n");
    free(text);
    csv_schema_reset(&s);

    /* empty files */
    text = read_text(write_str("empty.csv", ""), &s, SQE_ERR_INVALID_FILE, &err, NULL);
    assert_non_null(strstr(err.message, "CSV file is empty"));
    free(text);
    text = read_text(write_str("blank.csv", "\n\r\n\n"), &s, SQE_ERR_INVALID_FILE, &err, NULL);
    assert_non_null(strstr(err.message, "CSV file is empty"));
    free(text);
    text = read_text(write_str("bom.csv", "\xEF\xBB\xBF"), &s, SQE_ERR_INVALID_FILE, &err, NULL);
    assert_non_null(strstr(err.message, "CSV file is empty"));
    free(text);
}

static void test_nulls(void **state) {
    (void)state;
    csv_schema s;
    sqe_error err;
    char *text = read_text(data_path("nulls.csv"), &s, 0, &err, "null", "NA", NULL);
    assert_type(s.types[0], "bigint");
    assert_type(s.types[1], "bigint");
    assert_type(s.types[2], "varchar");
    assert_string_equal(text, "1|NULL|NULL\nNULL|2|NA\nNULL|3|\n");
    free(text);
    csv_schema_reset(&s);

    /* default: unquoted empty is NULL, quoted empty is '', blank typed values are NULL */
    text = read_text(write_str("n2.csv", "a,b\n1,\"\"\n ,\n"), &s, 0, &err, "columns",
                     "a bigint, b varchar", NULL);
    assert_string_equal(text, "1|\nNULL|NULL\n");
    free(text);
    csv_schema_reset(&s);
}

static void test_ragged(void **state) {
    (void)state;
    csv_schema s;
    sqe_error err;
    char *text = read_text(data_path("ragged.csv"), &s, SQE_ERR_INVALID_FILE, &err, NULL);
    assert_non_null(strstr(err.message, "ragged.csv:3:1: expected 3 columns but found 2"));
    free(text);

    text = read_text(data_path("ragged.csv"), &s, 0, &err, "null_padding", "true", NULL);
    assert_string_equal(text, "1|2|3\n4|5|NULL\n6|7|8\n");
    free(text);
    csv_schema_reset(&s);

    text = read_text(data_path("ragged.csv"), &s, 0, &err, "ignore_errors", "true", NULL);
    assert_string_equal(text, "1|2|3\n6|7|8\n");
    free(text);
    csv_schema_reset(&s);

    /* the reader reports the line too (the sample did not reach it) */
    strbuf sb;
    strbuf_init(&sb);
    strbuf_puts(&sb, "a,b\n");
    for (int i = 0; i < 3000; i++) strbuf_printf(&sb, "%d,%d\n", i, i);
    strbuf_puts(&sb, "1,2,3\n");
    const char *path = write_str("ragged2.csv", strbuf_cstr(&sb));
    strbuf_reset(&sb);
    text = read_text(path, &s, SQE_ERR_INVALID_FILE, &err, "sample_size", "100", NULL);
    assert_non_null(strstr(err.message, "ragged2.csv:3002:1: expected 2 columns but found 3"));
    free(text);
    csv_schema_reset(&s);
}

/* --- types --------------------------------------------------------------------------------- */

static void test_every_type(void **state) {
    (void)state;
    csv_schema s;
    sqe_error err;
    const char *columns =
        "b boolean, ti tinyint, si smallint, i integer, bi bigint, r real, d double, "
        "dec decimal(5,2), ldec decimal(25,3), v varchar, ch char(3), vb varbinary, j json, "
        "dt date, t time(3), ts timestamp(3), tz timestamp(3) with time zone, u uuid";
    const char *content =
        "true,-128,32767,-2147483648,9223372036854775807,1.5,-0.1,123.45,"
        "1234567890123456789012.3456,h\xc3\xa9llo,abc,raw,\"{\"\"a\"\": 1}\",2024-02-29,"
        "13:45:10.5,2024-02-29 13:45:10.1235,2024-02-29 13:45:10 +02:00,"
        "123e4567-e89b-12d3-a456-426614174000\n"
        "F, 127 ,-32768,2147483647,-9223372036854775808,-1e3,1e-300,-0.5,-.001,"
        "\"\",\"\",\"\",\"\",1970-01-01,00:00:00,1970-01-01 00:00:00,2024-01-01 00:00:00 UTC,"
        "00000000-0000-0000-0000-000000000000\n"
        ",,,,,,,,,,,,,,,,,\n";
    char *text = read_text(write_str("types_all.csv", content), &s, 0, &err, "columns", columns,
                           "header", "false", NULL);
    assert_int_equal(s.n_cols, 18);
    int32_t tz2;
    assert_int_equal(tz_lookup("+02:00", 6, &tz2), 0);
    /* 2024-02-29 13:45:10 +02:00 = 11:45:10 UTC */
    int64_t utc = (int64_t)dt_days_from_civil(2024, 2, 29) * DT_MICROS_PER_DAY +
                  (11 * 3600 + 45 * 60 + 10) * DT_MICROS_PER_SECOND;
    int64_t utc2 = (int64_t)dt_days_from_civil(2024, 1, 1) * DT_MICROS_PER_DAY;
    char expected[2048];
    snprintf(expected, sizeof expected,
             "true|-128|32767|-2147483648|9223372036854775807|1.5|-0.10000000000000001|123.45|"
             "1234567890123456789012.346|h\xc3\xa9llo|abc|raw|{\"a\": 1}|2024-02-29|13:45:10.500|"
             "2024-02-29 13:45:10.124|%lld@%d|123e4567e89b12d3a456426614174000\n"
             "false|127|-32768|2147483647|-9223372036854775808|-1000|1e-300|"
             "-0.50|-0.001|||||1970-01-01|00:00:00.000|1970-01-01 00:00:00.000|%lld@0|"
             "00000000000000000000000000000000\n"
             "NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|"
             "NULL\n",
             (long long)utc, (int)tz2, (long long)utc2);
    assert_string_equal(text, expected);
    free(text);
    csv_schema_reset(&s);
}

static void test_doubles(void **state) {
    (void)state;
    /* fast path and strtod fallback agree with strtod */
    const char *values[] = {"0",       "-0",      "1.5",       "3.14159", "1e22",  "1e23",
                            "123456789012345678901234", "0.1", "2.2250738585072014e-308",
                            "9007199254740993", "1.7976931348623157e308", "4.9e-324",
                            "  42  ",  "+7",      ".5",        "5.",      "1E+2",  "-1e-5"};
    csv_schema s;
    sqe_error err;
    strbuf sb;
    strbuf_init(&sb);
    strbuf_puts(&sb, "x\n");
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++)
        strbuf_printf(&sb, "\"%s\"\n", values[i]);
    char *text = read_text(write_str("dbl.csv", strbuf_cstr(&sb)), &s, 0, &err, "columns",
                           "x double", NULL);
    strbuf_reset(&sb);
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++)
        strbuf_printf(&sb, "%.17g\n", strtod(values[i], NULL));
    assert_string_equal(text, strbuf_cstr(&sb));
    strbuf_reset(&sb);
    free(text);
    csv_schema_reset(&s);

    text = read_text(write_str("dbl2.csv", "x\nNaN\n-Infinity\ninf\n"), &s, 0, &err, "columns",
                     "x double", NULL);
    assert_string_equal(text, "nan\n-inf\ninf\n");
    free(text);
    csv_schema_reset(&s);

    const char *bad[] = {"0x10", "1e", "--1", "1.2.3", "e5", "1,5"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char content[64];
        snprintf(content, sizeof content, "x\n\"%s\"\n", bad[i]);
        text = read_text(write_str("dbl3.csv", content), &s, SQE_ERR_INVALID_CAST_ARGUMENT, &err,
                         "columns", "x double", NULL);
        free(text);
        csv_schema_reset(&s);
    }
}

static void test_dates(void **state) {
    (void)state;
    /* the fast YYYY-MM-DD path agrees with dt_days_from_civil and rejects impossible days */
    strbuf sb, expect;
    strbuf_init(&sb);
    strbuf_init(&expect);
    strbuf_puts(&sb, "d\n");
    const int32_t years[] = {0, 1, 4, 100, 400, 1582, 1899, 1900, 1969, 1970, 1999, 2000, 2024,
                             2100, 9999};
    for (size_t k = 0; k < sizeof years / sizeof years[0]; k++) {
        for (int32_t m = 1; m <= 12; m++) {
            for (int32_t d = 1; d <= dt_days_in_month(years[k], m); d += 3) {
                strbuf_printf(&sb, "%04d-%02d-%02d\n", years[k], m, d);
                strbuf_printf(&expect, "%d\n", dt_days_from_civil(years[k], m, d));
            }
        }
    }
    const char *path = write_str("dates.csv", strbuf_cstr(&sb));
    strbuf_reset(&sb);
    csv_options o;
    csv_options_init(&o);
    set_opt(&o, "columns", "d date");
    csv_schema s;
    sqe_error err;
    assert_int_equal(csv_sniff(path, &o, &s, &err), 0);
    csv_reader *rd;
    assert_int_equal(csv_reader_open(path, &o, &s, 0, CSV_RANGE_END, NULL, &rd, &err), 0);
    vec_chunk chunk;
    assert_int_equal(vec_chunk_init(&chunk, 1, s.types, VEC_CHUNK_SIZE, NULL, &err), 0);
    for (;;) {
        assert_int_equal(csv_reader_next(rd, &chunk, &err), 0);
        if (!chunk.count) break;
        for (uint32_t r = 0; r < chunk.count; r++)
            strbuf_printf(&sb, "%d\n", VEC_DATA(&chunk.cols[0], int32_t)[r]);
    }
    assert_string_equal(strbuf_cstr(&sb), strbuf_cstr(&expect));
    strbuf_reset(&sb);
    strbuf_reset(&expect);
    vec_chunk_destroy(&chunk);
    csv_reader_close(rd);
    csv_schema_reset(&s);

    const char *bad[] = {"1900-02-29", "2023-02-29", "2024-04-31", "2024-13-01", "2024-00-10",
                         "2024-01-00", "2024/01/01", "2024-01-01x"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        char content[64];
        snprintf(content, sizeof content, "d\n%s\n", bad[k]);
        char *text = read_text(write_str("bad_date.csv", content), &s,
                               SQE_ERR_INVALID_CAST_ARGUMENT, &err, "columns", "d date", NULL);
        free(text);
        csv_schema_reset(&s);
    }
    /* the general syntax still works through the slow path */
    char *text = read_text(write_str("date2.csv", "d\n 2000-02-29 \n+12345-01-01\n"), &s, 0, &err,
                           "columns", "d date", NULL);
    assert_string_equal(text, "2000-02-29\n+12345-01-01\n");
    free(text);
    csv_schema_reset(&s);
    csv_options_reset(&o);
}

static void test_conversion_errors(void **state) {
    (void)state;
    csv_schema s;
    sqe_error err;
    char *text = read_text(write_str("bad1.csv", "a,b\n1,x\nabc,y\n"), &s,
                           SQE_ERR_INVALID_CAST_ARGUMENT, &err, "columns", "a bigint, b varchar",
                           NULL);
    assert_non_null(
        strstr(err.message, "bad1.csv:3:1: Cannot cast 'abc' to bigint (column 1 \"a\")"));
    assert_string_equal(err.sqlstate, "22018");
    free(text);
    csv_schema_reset(&s);

    text = read_text(write_str("bad2.csv", "a,b\n1,300\n"), &s, SQE_ERR_INVALID_CAST_ARGUMENT, &err,
                     "columns", "a bigint, b tinyint", NULL);
    assert_non_null(
        strstr(err.message, "bad2.csv:2:3: Cannot cast '300' to tinyint (column 2 \"b\")"));
    free(text);
    csv_schema_reset(&s);

    text = read_text(write_str("bad3.csv", "a\n123.4\n"), &s, SQE_ERR_INVALID_CAST_ARGUMENT, &err,
                     "columns", "a decimal(3,1)", NULL);
    assert_non_null(strstr(err.message, "to decimal(3,1): value too large"));
    free(text);
    csv_schema_reset(&s);

    text = read_text(write_str("bad4.csv", "a\n2024-02-30\n"), &s, SQE_ERR_INVALID_CAST_ARGUMENT,
                     &err, "columns", "a date", NULL);
    assert_non_null(strstr(err.message, "Cannot cast '2024-02-30' to date"));
    free(text);
    csv_schema_reset(&s);

    /* long values are cut to 100 bytes in the message */
    strbuf sb;
    strbuf_init(&sb);
    strbuf_puts(&sb, "a\n");
    for (int i = 0; i < 300; i++) strbuf_putc(&sb, 'z');
    strbuf_puts(&sb, "\n");
    text = read_text(write_str("bad5.csv", strbuf_cstr(&sb)), &s, SQE_ERR_INVALID_CAST_ARGUMENT,
                     &err, "columns", "a bigint", NULL);
    strbuf_reset(&sb);
    char zs[102];
    memset(zs, 'z', 101);
    zs[101] = 0;
    assert_null(strstr(err.message, zs));
    assert_non_null(strstr(err.message, "zzz...'"));
    free(text);
    csv_schema_reset(&s);

    /* ignore_errors drops the rows that do not convert */
    text = read_text(write_str("bad6.csv", "a,b\n1,x\nabc,y\n3,z\n"), &s, 0, &err, "columns",
                     "a bigint, b varchar", "ignore_errors", "true", NULL);
    assert_string_equal(text, "1|x\n3|z\n");
    free(text);
    csv_schema_reset(&s);
}

static void test_projection_and_small_chunks(void **state) {
    (void)state;
    csv_options o;
    csv_options_init(&o);
    csv_schema s;
    sqe_error err;
    const char *path = data_path("quotes.csv");
    assert_int_equal(csv_sniff(path, &o, &s, &err), 0);

    csv_reader *rd;
    assert_int_equal(csv_reader_open(path, &o, &s, 0, CSV_RANGE_END, NULL, &rd, &err), 0);
    uint32_t cols[] = {2, 0};
    assert_int_equal(csv_reader_project(rd, (uint32_t[]){5}, 1, &err), SQE_ERR_INVALID_ARGUMENTS);
    assert_int_equal(csv_reader_project(rd, cols, 2, &err), 0);
    sqe_type types[] = {s.types[2], s.types[0]};
    vec_chunk chunk;
    assert_int_equal(vec_chunk_init(&chunk, 2, types, 2, NULL, &err), 0);
    strbuf sb;
    strbuf_init(&sb);
    int chunks = 0;
    for (;;) {
        assert_int_equal(csv_reader_next(rd, &chunk, &err), 0);
        if (!chunk.count) break;
        chunks++;
        for (uint32_t r = 0; r < chunk.count; r++) {
            format_value(&chunk.cols[0], r, &sb);
            strbuf_putc(&sb, ':');
            format_value(&chunk.cols[1], r, &sb);
            strbuf_putc(&sb, ' ');
        }
    }
    assert_int_equal(chunks, 3);
    assert_string_equal(strbuf_cstr(&sb), "x:1 y:2 z:3 w:4 v:5 ");
    /* after the end, next keeps returning empty chunks */
    assert_int_equal(csv_reader_next(rd, &chunk, &err), 0);
    assert_int_equal(chunk.count, 0);
    strbuf_reset(&sb);
    vec_chunk_destroy(&chunk);

    /* a chunk that does not match the schema is refused */
    assert_int_equal(vec_chunk_init(&chunk, 1, types, 2, NULL, &err), 0);
    assert_int_equal(csv_reader_next(rd, &chunk, &err), SQE_ERR_GENERIC_INTERNAL_ERROR);
    vec_chunk_destroy(&chunk);
    csv_reader_close(rd);
    csv_schema_reset(&s);
    csv_options_reset(&o);
}

/* --- ranges and buffers -------------------------------------------------------------------- */

static uint64_t rng_state = 88172645463325252ULL;
static uint64_t rng(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* A file of about `bytes` bytes with mixed \n and \r\n line ends, quoted fields with
 * delimiters and doubled quotes, NULLs and a multi-byte character. */
static const char *make_big_file(const char *name, size_t bytes) {
    const char *path = tmp_path(name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs("id,name,amount,day,note\n", f);
    size_t written = 24;
    for (uint64_t i = 0; written < bytes; i++) {
        char line[256];
        uint64_t x = rng();
        int n = snprintf(line, sizeof line,
                         "%llu,name_%llu,%llu.%02llu,20%02llu-%02llu-%02llu,%s%s",
                         (unsigned long long)i, (unsigned long long)(x % 100000),
                         (unsigned long long)(x >> 20) % 100000,
                         (unsigned long long)(x >> 40) % 100,
                         (unsigned long long)(x >> 8) % 30, (unsigned long long)(x >> 16) % 12 + 1,
                         (unsigned long long)(x >> 24) % 28 + 1,
                         x % 7 == 0   ? ""
                         : x % 7 == 1 ? "\"a, \"\"quoted\"\" note\""
                         : x % 7 == 2 ? "caf\xc3\xa9"
                                      : "plain note text",
                         (x >> 3) % 2 ? "\r\n" : "\n");
        fwrite(line, 1, (size_t)n, f);
        written += (size_t)n;
    }
    fclose(f);
    return path;
}

static void test_ranges(void **state) {
    (void)state;
    csv_options o;
    csv_options_init(&o);
    csv_schema s;
    sqe_error err;
    const char *path = make_big_file("big.csv", 20u << 20);
    assert_int_equal(csv_sniff(path, &o, &s, &err), 0);
    assert_false(s.quoted_newlines);
    assert_type(s.types[0], "bigint");
    assert_type(s.types[2], "double");
    assert_type(s.types[3], "date");

    uint64_t d_one = 1, n_one = 0;
    assert_int_equal(digest_range(path, &o, &s, 0, CSV_RANGE_END, &d_one, &n_one, &err), 0);
    assert_true(n_one > 300000);

    csv_range *ranges;
    uint32_t n_ranges;
    assert_int_equal(csv_split_ranges(path, &o, &s, 4, &ranges, &n_ranges, &err), 0);
    assert_int_equal(n_ranges, 4);
    assert_int_equal(ranges[0].start, 0);
    assert_int_equal(ranges[3].end, CSV_RANGE_END);
    uint64_t d_parts = 1, n_parts = 0;
    for (uint32_t i = 0; i < n_ranges; i++) {
        if (i) assert_int_equal(ranges[i].start, ranges[i - 1].end);
        uint64_t before = n_parts;
        assert_int_equal(digest_range(path, &o, &s, ranges[i].start, ranges[i].end, &d_parts,
                                      &n_parts, &err), 0);
        assert_true(n_parts > before);
    }
    free(ranges);
    assert_int_equal(n_parts, n_one);
    assert_int_equal(d_parts, d_one);

    /* arbitrary cut points: right at a line start, on the \n, on the \r, inside a field */
    FILE *f = fopen(path, "rb");
    char probe[4096];
    assert_int_equal(fseek(f, 9000000, SEEK_SET), 0);
    assert_int_equal(fread(probe, 1, sizeof probe, f), sizeof probe);
    fclose(f);
    const char *cr = memchr(probe, '\r', sizeof probe);
    const char *lf = memchr(probe, '\n', sizeof probe);
    assert_non_null(cr);
    assert_non_null(lf);
    uint64_t cuts[] = {9000000 + (uint64_t)(cr - probe), 9000000 + (uint64_t)(cr - probe) + 1,
                       9000000 + (uint64_t)(cr - probe) + 2, 9000000 + (uint64_t)(lf - probe),
                       9000000 + (uint64_t)(lf - probe) + 1, 9000000 + (uint64_t)(lf - probe) + 3,
                       1, 23, 24, 25};
    for (size_t k = 0; k < sizeof cuts / sizeof cuts[0]; k++) {
        /* [a, c) read at once equals [a, cut) then [cut, c) */
        uint64_t a = cuts[k] > 100000 ? cuts[k] - 100000 : 0, c = cuts[k] + 100000;
        uint64_t d_whole = 1, n_whole = 0, d_two = 1, n_two = 0;
        assert_int_equal(digest_range(path, &o, &s, a, c, &d_whole, &n_whole, &err), 0);
        assert_int_equal(digest_range(path, &o, &s, a, cuts[k], &d_two, &n_two, &err), 0);
        assert_int_equal(digest_range(path, &o, &s, cuts[k], c, &d_two, &n_two, &err), 0);
        assert_true(n_whole > 0);
        assert_int_equal(n_two, n_whole);
        assert_int_equal(d_two, d_whole);
    }

    /* small files and quoted newlines give one range */
    csv_schema q;
    assert_int_equal(csv_sniff(data_path("quotes.csv"), &o, &q, &err), 0);
    assert_int_equal(
        csv_split_ranges(data_path("quotes.csv"), &o, &q, 8, &ranges, &n_ranges, &err), 0);
    assert_int_equal(n_ranges, 1);
    free(ranges);
    csv_schema_reset(&q);
    csv_schema_reset(&s);
    csv_options_reset(&o);
}

/* Rows around the 4 MiB read-buffer boundary: the boundary falls on every byte of the row
 * pattern in turn (quotes, doubled quotes, delimiters, \r, \n). */
static void test_buffer_boundaries(void **state) {
    (void)state;
    const size_t row_len = 22, target = (4u << 20) + 2048;
    /* rows 1..n once; each variant prepends row 0 with `pad` extra bytes */
    strbuf rows;
    strbuf_init(&rows);
    uint32_t n = 1;
    while (rows.len + 64 < target) strbuf_printf(&rows, "%07u,\"a\"\"b\",xyz\r\n", n++);
    assert_false(rows.failed);
    csv_options o;
    csv_options_init(&o);
    csv_schema s;
    csv_schema_init(&s);
    sqe_type types[3] = {type_make(TYPE_INTEGER), type_varchar(0), type_varchar(0)};
    char *names[3] = {"id", "b", "c"};
    s.n_cols = 3;
    s.types = types;
    s.names = names;
    s.delimiter = ',';
    for (size_t pad = 0; pad < row_len; pad++) {
        const char *path = tmp_path("boundary.csv");
        FILE *f = fopen(path, "wb");
        assert_non_null(f);
        fprintf(f, "0000000,\"a\"\"b\",xyz%.*s\r\n", (int)pad, "pppppppppppppppppppppppppp");
        fwrite(rows.data, 1, rows.len, f);
        fclose(f);
        sqe_error err;
        csv_reader *rd;
        assert_int_equal(csv_reader_open(path, &o, &s, 0, CSV_RANGE_END, NULL, &rd, &err), 0);
        vec_chunk chunk;
        assert_int_equal(vec_chunk_init(&chunk, s.n_cols, s.types, VEC_CHUNK_SIZE, NULL, &err), 0);
        uint32_t row = 0;
        for (;;) {
            int rc = csv_reader_next(rd, &chunk, &err);
            if (rc) fail_msg("pad %zu: %s", pad, err.message);
            if (!chunk.count) break;
            for (uint32_t r = 0; r < chunk.count; r++, row++) {
                const sqe_str *b = &VEC_DATA(&chunk.cols[1], sqe_str)[r];
                const sqe_str *c = &VEC_DATA(&chunk.cols[2], sqe_str)[r];
                size_t c_len = 3 + (row == 0 ? pad : 0);
                if (VEC_DATA(&chunk.cols[0], int32_t)[r] != (int32_t)row || b->len != 3 ||
                    memcmp(sqe_str_data(b), "a\"b", 3) != 0 || c->len != c_len ||
                    memcmp(sqe_str_data(c), "xyz", 3) != 0)
                    fail_msg("pad %zu: row %u is wrong", pad, row);
            }
        }
        assert_int_equal(row, n);
        vec_chunk_destroy(&chunk);
        csv_reader_close(rd);
    }
    strbuf_reset(&rows);
    csv_options_reset(&o);
}

static void test_long_field(void **state) {
    (void)state;
    /* a 6 MiB quoted field grows the buffer past one block */
    size_t big = 6u << 20;
    char *content = malloc(big + 64);
    assert_non_null(content);
    size_t n = (size_t)sprintf(content, "a,b\n1,\"");
    memset(content + n, 'q', big);
    n += big;
    n += (size_t)sprintf(content + n, "\"\n2,x\n");
    const char *path = write_tmp("long.csv", content, n);
    free(content);
    csv_schema s;
    sqe_error err;
    char *text = read_text(path, &s, 0, &err, NULL);
    assert_int_equal(strlen(text), 2 + big + 1 + 4);
    assert_string_equal(text + 2 + big, "\n2|x\n");
    free(text);
    csv_schema_reset(&s);

    /* ... but not past max_line_size */
    text = read_text(path, &s, SQE_ERR_INVALID_FILE, &err, "max_line_size", "1000000", NULL);
    assert_non_null(strstr(err.message, "long.csv:2:1: row is longer than max_line_size"));
    free(text);
}

/* --- hostile input ------------------------------------------------------------------------- */

static void test_hostile_errors(void **state) {
    (void)state;
    csv_schema s;
    sqe_error err;
    char *text;

    text = read_text(write_str("unterm.csv", "a,b\n1,x\n2,\"abc\n3,y\n"), &s, SQE_ERR_INVALID_FILE,
                     &err, NULL);
    assert_non_null(strstr(err.message, "unterm.csv:3:3: unterminated quoted field"));
    free(text);

    text = read_text(write_str("junk.csv", "a,b\n1,\"x\"y\n"), &s, SQE_ERR_INVALID_FILE, &err,
                     NULL);
    assert_non_null(
        strstr(err.message, "junk.csv:2:6: unexpected character after a closing quote"));
    free(text);

    text = read_text(write_tmp("nul.csv", "a,b\n1,x\0y\n", 10), &s, SQE_ERR_INVALID_FILE, &err,
                     NULL);
    assert_non_null(strstr(err.message, "not a CSV text file (NUL byte at offset 7)"));
    free(text);

    text = read_text(write_str("latin1.csv", "a,b\n1,caf\xe9\n"), &s, SQE_ERR_INVALID_FILE, &err,
                     NULL);
    assert_non_null(strstr(err.message, "latin1.csv:2:6: invalid UTF-8"));
    free(text);

    text = read_text(tmp_path("does_not_exist.csv"), &s, SQE_ERR_NOT_FOUND, &err, NULL);
    assert_non_null(strstr(err.message, "File not found"));
    free(text);

    text = read_text(g_tmp, &s, SQE_ERR_INVALID_FILE, &err, NULL);
    assert_non_null(strstr(err.message, "is a directory"));
    free(text);

    /* the reader checks UTF-8 of text columns beyond the sniffed block */
    csv_options o;
    csv_options_init(&o);
    const char *path = write_str("latin2.csv", "a,b\n1,ok\n2,caf\xe9\n");
    csv_schema hand;
    csv_schema_init(&hand);
    sqe_type types[2] = {type_make(TYPE_BIGINT), type_varchar(0)};
    char *names[2] = {"a", "b"};
    hand.n_cols = 2;
    hand.types = types;
    hand.names = names;
    hand.delimiter = ',';
    hand.data_offset = 4;
    strbuf sb;
    strbuf_init(&sb);
    assert_int_equal(read_range(path, &o, &hand, 0, CSV_RANGE_END, 16, &sb, NULL, &err),
                     SQE_ERR_INVALID_FILE);
    assert_non_null(strstr(err.message, "latin2.csv:3:6: invalid UTF-8 in column 2 \"b\""));
    strbuf_reset(&sb);

    /* unsupported column types are refused at open */
    sqe_type arr[1] = {type_array(type_make(TYPE_BIGINT))};
    hand.n_cols = 1;
    hand.types = arr;
    csv_reader *rd;
    assert_int_equal(csv_reader_open(path, &o, &hand, 0, CSV_RANGE_END, NULL, &rd, &err),
                     SQE_ERR_NOT_SUPPORTED);
    assert_null(rd);
    csv_options_reset(&o);
}

/* Random and CSV-like bytes through the sniffer and the reader: any status is fine, crashes,
 * leaks and hangs are not (run under ASan/UBSan). */
static void test_hostile_fuzz(void **state) {
    (void)state;
    static const char alphabet[] = {',', '"', '\n', '\r', 'a', '1', '\0', (char)0xff, ' ',
                                    '\\', '.', '-', '#', (char)0xc3, (char)0xa9, '|'};
    char buf[512];
    sqe_type types[3] = {type_make(TYPE_BIGINT), type_varchar(0), type_make(TYPE_DOUBLE)};
    char *names[3] = {"a", "b", "c"};
    int ok = 0, failed = 0;
    for (int iter = 0; iter < 2000; iter++) {
        size_t len = rng() % sizeof buf;
        bool random_bytes = iter % 5 == 0;
        for (size_t i = 0; i < len; i++)
            buf[i] = random_bytes ? (char)rng() : alphabet[rng() % sizeof alphabet];
        const char *path = write_tmp("fuzz.csv", buf, len);
        csv_options o;
        csv_options_init(&o);
        if (iter % 3 == 1) set_opt(&o, "null_padding", "true");
        if (iter % 4 == 2) set_opt(&o, "ignore_errors", "true");
        if (iter % 7 == 3) set_opt(&o, "escape", "\\\\");
        if (iter % 6 == 5) set_opt(&o, "comment", "#");
        if (iter % 8 == 0) set_opt(&o, "max_line_size", "64");
        csv_schema s;
        sqe_error err;
        strbuf sb;
        strbuf_init(&sb);
        int rc = sniff_and_read(path, &o, &s, &sb, &err);
        rc ? failed++ : ok++;
        if (rc == 0) csv_schema_reset(&s);
        strbuf_reset(&sb);
        /* the reader alone, with a fixed schema, from several start offsets */
        csv_schema hand;
        csv_schema_init(&hand);
        hand.n_cols = 3;
        hand.types = types;
        hand.names = names;
        hand.delimiter = ',';
        uint64_t starts[] = {0, len / 3, len / 2};
        for (int k = 0; k < 3; k++) {
            read_range(path, &o, &hand, starts[k], k == 1 ? len / 2 : CSV_RANGE_END, 5, &sb,
                       NULL, &err);
            strbuf_reset(&sb);
        }
        csv_options_reset(&o);
    }
    assert_true(ok > 0);
    assert_true(failed > 0);
}

static void test_huge_line_default_limit(void **state) {
    (void)state;
    /* 17 MiB without a line break: more than the default 16 MiB limit */
    size_t n = 17u << 20;
    char *content = malloc(n);
    assert_non_null(content);
    memcpy(content, "a,b\n", 4);
    memset(content + 4, 'x', n - 4);
    const char *path = write_tmp("huge.csv", content, n);
    free(content);
    csv_schema s;
    sqe_error err;
    char *text = read_text(path, &s, SQE_ERR_INVALID_FILE, &err, "header", "true", NULL);
    assert_non_null(
        strstr(err.message, "huge.csv:2:1: row is longer than max_line_size (16777216"));
    free(text);
}

/* --- glob ---------------------------------------------------------------------------------- */

static void test_glob(void **state) {
    (void)state;
    char dir[600];
    snprintf(dir, sizeof dir, "%s/g", g_tmp);
    assert_int_equal(mkdir(dir, 0700), 0);
    write_str("g/a2.csv", "x\n");
    write_str("g/a1.csv", "x\n");
    write_str("g/b.csv", "x\n");
    snprintf(dir, sizeof dir, "%s/g/a3.csv", g_tmp);
    assert_int_equal(mkdir(dir, 0700), 0);

    char pattern[700];
    char **paths;
    uint32_t n;
    sqe_error err;
    snprintf(pattern, sizeof pattern, "%s/g/a*.csv", g_tmp);
    assert_int_equal(io_glob(pattern, &paths, &n, &err), 0);
    assert_int_equal(n, 2);
    assert_string_equal(paths[0], tmp_path("g/a1.csv"));
    assert_string_equal(paths[1], tmp_path("g/a2.csv"));
    io_paths_free(paths, n);

    snprintf(pattern, sizeof pattern, "%s/g/*.tsv", g_tmp);
    assert_int_equal(io_glob(pattern, &paths, &n, &err), SQE_ERR_NOT_FOUND);
    assert_null(paths);
    assert_non_null(strstr(err.message, "No files found that match the pattern"));

    assert_int_equal(io_glob("plain/name.csv", &paths, &n, &err), 0);
    assert_int_equal(n, 1);
    assert_string_equal(paths[0], "plain/name.csv");
    io_paths_free(paths, n);
}

/* --- benchmark ----------------------------------------------------------------------------- */

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char *make_lineitem(size_t bytes) {
    static const char *instr[] = {"DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"};
    static const char *mode[] = {"TRUCK", "MAIL", "REG AIR", "AIR", "FOB", "RAIL", "SHIP"};
    static const char *words[] = {"furiously", "carefully", "regular", "ironic", "final",
                                  "deposits", "packages", "accounts", "requests", "bold",
                                  "express", "pending", "slyly", "quickly", "blithely"};
    const char *path = tmp_path("lineitem.csv");
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs("l_orderkey,l_partkey,l_suppkey,l_linenumber,l_quantity,l_extendedprice,l_discount,"
          "l_tax,l_returnflag,l_linestatus,l_shipdate,l_commitdate,l_receiptdate,l_shipinstruct,"
          "l_shipmode,l_comment\n",
          f);
    size_t written = 0;
    char comment[64];
    for (uint64_t i = 1; written < bytes; i++) {
        uint64_t x = rng(), y = rng();
        int cl = 0;
        for (int w = 0; w < 3 + (int)(x % 3); w++)
            cl += snprintf(comment + cl, sizeof comment - (size_t)cl, "%s%s", w ? " " : "",
                           words[(y >> (w * 4)) % 15]);
        int day = (int)(x % 2500);
        int32_t base = dt_days_from_civil(1992, 1, 1) + day;
        char d1[16], d2[16], d3[16];
        dt_format_date(base, d1);
        dt_format_date(base + (int)(y % 60), d2);
        dt_format_date(base + (int)(y % 30) + 1, d3);
        int n = fprintf(f,
                        "%llu,%llu,%llu,%d,%d.00,%llu.%02llu,0.%02d,0.%02d,%c,%c,%s,%s,%s,%s,%s,"
                        "%s\n",
                        (unsigned long long)(i / 4 + 1), (unsigned long long)(x % 200000 + 1),
                        (unsigned long long)(y % 10000 + 1), (int)(i % 7 + 1), (int)(x % 50 + 1),
                        (unsigned long long)(x >> 30) % 100000, (unsigned long long)(y >> 20) % 100,
                        (int)(y % 11), (int)(x % 9), "RAN"[y % 3], "OF"[x % 2], d1, d2, d3,
                        instr[x % 4], mode[y % 7], comment);
        written += (size_t)n;
    }
    fclose(f);
    return path;
}

static void bench_one(const char *label, const char *path, csv_options *o) {
    struct stat st;
    stat(path, &st);
    csv_schema s;
    sqe_error err;
    double t0 = now_seconds();
    assert_int_equal(csv_sniff(path, o, &s, &err), 0);
    double t1 = now_seconds();
    csv_reader *rd;
    assert_int_equal(csv_reader_open(path, o, &s, 0, CSV_RANGE_END, NULL, &rd, &err), 0);
    vec_chunk chunk;
    assert_int_equal(vec_chunk_init(&chunk, s.n_cols, s.types, VEC_CHUNK_SIZE, NULL, &err), 0);
    uint64_t rows = 0;
    for (;;) {
        int rc = csv_reader_next(rd, &chunk, &err);
        if (rc) fail_msg("%s", err.message);
        if (!chunk.count) break;
        rows += chunk.count;
    }
    double t2 = now_seconds();
    double mb = (double)st.st_size / 1e6;
    print_message("[bench] %s: %.1f MB, %llu rows: sniff %.3f s, read %.3f s = %.0f MB/s\n", label,
                  mb, (unsigned long long)rows, t1 - t0, t2 - t1, mb / (t2 - t1));
    char t[64];
    type_format(s.types[4], t, sizeof t);
    print_message("[bench]   l_quantity inferred/declared as %s\n", t);
    vec_chunk_destroy(&chunk);
    csv_reader_close(rd);
    csv_schema_reset(&s);
}

static void test_bench_lineitem(void **state) {
    (void)state;
    const char *env = getenv("SQE_CSV_BENCH");
    if (!env || !*env) {
        skip();
        return;
    }
    size_t mb = (size_t)atoi(env) > 1 ? (size_t)atoi(env) : 100;
    const char *path = make_lineitem(mb << 20);
    csv_options o;
    csv_options_init(&o);
    bench_one("lineitem, inferred types", path, &o);
    bench_one("lineitem, inferred types (2nd run)", path, &o);
    set_opt(&o, "columns",
            "l_orderkey bigint, l_partkey bigint, l_suppkey bigint, l_linenumber integer, "
            "l_quantity decimal(15,2), l_extendedprice decimal(15,2), l_discount decimal(15,2), "
            "l_tax decimal(15,2), l_returnflag varchar(1), l_linestatus varchar(1), "
            "l_shipdate date, l_commitdate date, l_receiptdate date, l_shipinstruct varchar(25), "
            "l_shipmode varchar(10), l_comment varchar(44)");
    bench_one("lineitem, declared decimal columns", path, &o);
    csv_options_reset(&o);
    csv_options_init(&o);
    set_opt(&o, "all_varchar", "true");
    bench_one("lineitem, all_varchar", path, &o);
    csv_options_reset(&o);
    if (getenv("SQE_CSV_BENCH_KEEP")) print_message("[bench] kept %s\n", path);
    else remove(path);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_options),
        cmocka_unit_test(test_infer_types),
        cmocka_unit_test(test_infer_widening),
        cmocka_unit_test(test_header_detection),
        cmocka_unit_test(test_delimiter_detection),
        cmocka_unit_test(test_quotes),
        cmocka_unit_test(test_line_ends),
        cmocka_unit_test(test_nulls),
        cmocka_unit_test(test_ragged),
        cmocka_unit_test(test_every_type),
        cmocka_unit_test(test_doubles),
        cmocka_unit_test(test_dates),
        cmocka_unit_test(test_conversion_errors),
        cmocka_unit_test(test_projection_and_small_chunks),
        cmocka_unit_test(test_ranges),
        cmocka_unit_test(test_buffer_boundaries),
        cmocka_unit_test(test_long_field),
        cmocka_unit_test(test_hostile_errors),
        cmocka_unit_test(test_hostile_fuzz),
        cmocka_unit_test(test_huge_line_default_limit),
        cmocka_unit_test(test_glob),
        cmocka_unit_test(test_bench_lineitem),
    };
    const char *filter = getenv("SQE_TEST_FILTER"); /* e.g. SQE_TEST_FILTER='test_ranges' */
    if (filter) cmocka_set_test_filter(filter);
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
