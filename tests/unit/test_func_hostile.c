/*
 * test_func_hostile.c: hostile-input tests for the scalar functions that parse text: random
 * bytes (invalid UTF-8, format and pattern metacharacters, quotes, escapes) as strings,
 * patterns, paths, formats and URLs. Under TRY every call must succeed (row errors become
 * NULL), without a crash or a sanitizer report; without TRY it must succeed or fail with a user
 * error code.
 */
#include "test_func_util.h"

#define ROWS 300

static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static uint32_t next_rand(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)rng;
}

/* A string of random length from a biased alphabet. */
static void random_text(char *buf, size_t cap, size_t *len) {
    static const char alphabet[] = "%_\\$%{}[]().*+?^|\"'abcAZ09:/-#&=,;@ \t\n"
                                   "\xc3\xa9\xe2\x82\xac\xff\xfe\x80\xc3";
    size_t n = next_rand() % 24;
    if (n >= cap) n = cap - 1;
    for (size_t i = 0; i < n; i++) {
        uint32_t r = next_rand();
        buf[i] = r % 5 == 0 ? (char)(r >> 8) : alphabet[(r >> 8) % (sizeof alphabet - 1)];
    }
    *len = n;
}

static vec *random_col(sqe_type t) {
    vec *v = tf_new(t, ROWS);
    for (uint32_t i = 0; i < ROWS; i++) {
        char buf[64];
        size_t n;
        random_text(buf, sizeof buf, &n);
        if (next_rand() % 17 == 0) {
            vec_set_null(v, i);
            continue;
        }
        bool ok = true;
        VEC_DATA(v, sqe_str)[i] = vec_str_copy(v, buf, (uint32_t)n, &ok);
    }
    return v;
}

static vec *int_col(int64_t lo, int64_t hi) {
    vec *v = tf_new(type_make(TYPE_BIGINT), ROWS);
    for (uint32_t i = 0; i < ROWS; i++)
        VEC_DATA(v, int64_t)[i] = lo + (int64_t)(next_rand() % (uint64_t)(hi - lo + 1));
    return v;
}

typedef struct case_ {
    const char *name;
    const char *arg_kinds; /* one letter per argument: s varchar, b varbinary, j json, i int */
} case_;

static void run_cases(bool try_mode) {
    static const case_ cases[] = {
        {"lower", "s"},           {"upper", "s"},           {"length", "s"},
        {"reverse", "s"},         {"trim", "s"},            {"trim", "ss"},
        {"ltrim", "ss"},          {"rtrim", "ss"},          {"substr", "si"},
        {"substr", "sii"},        {"strpos", "ss"},         {"strpos", "ssi"},
        {"replace", "sss"},       {"replace", "ss"},        {"lpad", "sis"},
        {"rpad", "sis"},          {"split", "ss"},          {"split", "ssi"},
        {"split_part", "ssi"},    {"translate", "sss"},     {"levenshtein_distance", "ss"},
        {"hamming_distance", "ss"}, {"codepoint", "s"},     {"chr", "i"},
        {"concat", "sss"},        {"concat_ws", "sss"},     {"starts_with", "ss"},
        {"from_utf8", "b"},       {"from_utf8", "bs"},      {"from_hex", "s"},
        {"from_base64", "s"},     {"from_base64url", "s"},  {"to_hex", "b"},
        {"luhn_check", "s"},      {"url_extract_host", "s"}, {"url_extract_path", "s"},
        {"url_extract_port", "s"}, {"url_extract_query", "s"}, {"url_extract_parameter", "ss"},
        {"url_extract_protocol", "s"}, {"url_extract_fragment", "s"}, {"url_decode", "s"},
        {"url_encode", "s"},      {"format", "ss"},         {"format", "sis"},
        {"like", "ss"},           {"like", "sss"},          {"regexp_like", "ss"},
        {"regexp_extract", "ss"}, {"regexp_extract", "ssi"}, {"regexp_extract_all", "ss"},
        {"regexp_replace", "sss"}, {"regexp_count", "ss"},  {"regexp_position", "ssii"},
        {"regexp_split", "ss"},   {"json_parse", "s"},      {"json_extract", "ss"},
        {"json_extract_scalar", "ss"}, {"json_size", "ss"}, {"json_array_length", "s"},
        {"json_array_get", "si"}, {"json_array_contains", "ss"}, {"is_json_scalar", "s"},
        {"date_parse", "ss"},     {"parse_datetime", "ss"}, {"from_iso8601_date", "s"},
        {"from_iso8601_timestamp", "s"}, {"parse_duration", "s"}, {"date", "s"},
        {"from_base", "si"},      {"split_part", "ssi"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const char *kinds = cases[c].arg_kinds;
        uint32_t n = (uint32_t)strlen(kinds);
        vec *args[8];
        for (uint32_t i = 0; i < n; i++) {
            switch (kinds[i]) {
            case 'b': args[i] = random_col(type_make(TYPE_VARBINARY)); break;
            case 'i': args[i] = int_col(-5, 40); break;
            default: args[i] = random_col(type_varchar(0)); break;
            }
        }
        vec *out = NULL;
        sqe_error err;
        int rc = tf_call_ex(cases[c].name, args, n, NULL, ROWS, try_mode, NULL, &out, &err);
        if (try_mode && rc != SQE_OK)
            fail_msg("%s under TRY failed: %s", cases[c].name, err.message);
        if (!try_mode && rc != SQE_OK) {
            const err_code_info *info = err_code_lookup(rc);
            if (strcmp(info->trino_type, "USER_ERROR") != 0)
                fail_msg("%s: non-user error %s: %s", cases[c].name, info->name, err.message);
        }
        if (out) {
            for (uint32_t r = 0; r < ROWS; r++) free(tf_text(out, r));
            tf_free(out);
        }
        for (uint32_t i = 0; i < n; i++) tf_free(args[i]);
    }
}

/* Date/time arithmetic on extreme values: every unit, dates over the whole int32 range,
 * timestamps over the whole int64 range, counts over the whole int64 range. */
static vec *unit_col(void) {
    static const char *const units[] = {"millisecond", "second", "minute", "hour", "day",
                                        "week", "month", "quarter", "year", "fortnight"};
    vec *v = tf_new(type_varchar(0), ROWS);
    for (uint32_t i = 0; i < ROWS; i++) {
        const char *u = units[next_rand() % 10];
        bool ok = true;
        VEC_DATA(v, sqe_str)[i] = vec_str_copy(v, u, (uint32_t)strlen(u), &ok);
    }
    return v;
}

static int64_t extreme_i64(void) {
    uint64_t r = (uint64_t)next_rand() << 32 | next_rand();
    switch (next_rand() % 4) {
    case 0: return (int64_t)r;
    case 1: return (int64_t)(r % 2000001) - 1000000;
    case 2: return next_rand() % 2 ? INT64_MAX - (int64_t)(r % 1000) : INT64_MIN + (int64_t)(r % 1000);
    default: return (int64_t)(r % 100);
    }
}

static void test_hostile_datetime(void **state) {
    (void)state;
    for (int round = 0; round < 4; round++) {
        vec *unit = unit_col();
        vec *n = tf_new(type_make(TYPE_BIGINT), ROWS);
        vec *d1 = tf_new(type_make(TYPE_DATE), ROWS), *d2 = tf_new(type_make(TYPE_DATE), ROWS);
        vec *t1 = tf_new(type_with_precision(TYPE_TIMESTAMP, 3), ROWS);
        vec *t2 = tf_new(type_with_precision(TYPE_TIMESTAMP, 3), ROWS);
        vec *ym = tf_new(type_make(TYPE_INTERVAL_YM), ROWS);
        for (uint32_t i = 0; i < ROWS; i++) {
            VEC_DATA(n, int64_t)[i] = extreme_i64();
            VEC_DATA(d1, int32_t)[i] = (int32_t)extreme_i64();
            VEC_DATA(d2, int32_t)[i] = (int32_t)extreme_i64();
            VEC_DATA(t1, int64_t)[i] = extreme_i64() / 2;
            VEC_DATA(t2, int64_t)[i] = extreme_i64() / 2;
            VEC_DATA(ym, int32_t)[i] = (int32_t)extreme_i64();
        }
        struct {
            const char *name;
            vec *args[3];
            uint32_t n;
        } calls[] = {
            {"date_add", {unit, n, d1}, 3},     {"date_add", {unit, n, t1}, 3},
            {"date_diff", {unit, d1, d2}, 3},   {"date_diff", {unit, t1, t2}, 3},
            {"date_trunc", {unit, d1}, 2},      {"date_trunc", {unit, t1}, 2},
            {"year", {d1}, 1},                  {"week", {d1}, 1},
            {"last_day_of_month", {d1}, 1},     {"$add", {d1, ym}, 2},
            {"$add", {t1, ym}, 2},              {"$subtract", {t1, t2}, 2},
            {"$subtract", {d1, d2}, 2},         {"to_iso8601", {d1}, 1},
            {"to_iso8601", {t1}, 1},            {"day_of_week", {t1}, 1},
        };
        for (size_t c = 0; c < sizeof calls / sizeof calls[0]; c++) {
            vec *out = NULL;
            sqe_error err;
            int rc = tf_call_ex(calls[c].name, calls[c].args, calls[c].n, NULL, ROWS, true, NULL,
                                &out, &err);
            if (rc != SQE_OK) fail_msg("%s under TRY failed: %s", calls[c].name, err.message);
            tf_free(out);
        }
        tf_free(unit), tf_free(n), tf_free(d1), tf_free(d2), tf_free(t1), tf_free(t2), tf_free(ym);
    }
}

static void test_hostile_try(void **state) {
    (void)state;
    for (int round = 0; round < 3; round++) run_cases(true);
}

static void test_hostile_errors(void **state) {
    (void)state;
    for (int round = 0; round < 3; round++) run_cases(false);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hostile_try),
        cmocka_unit_test(test_hostile_errors),
        cmocka_unit_test(test_hostile_datetime),
    };
    return cmocka_run_group_tests(tests, tf_setup, NULL);
}
