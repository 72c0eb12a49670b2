/*
 * test_datetime.c: unit tests for src/types/datetime.c and src/types/tz.c.
 *
 * Covers: civil <-> day numbers for every day of years 1..9999 and for negative days, leap
 * years, weekdays and ISO weeks, month arithmetic, the text forms of DATE/TIME/TIMESTAMP/
 * TIMESTAMP WITH TIME ZONE/INTERVAL (parse and format), zone lookup (IANA names, fixed
 * offsets, UTC aliases, hostile names), offsets across DST transitions (New York, Amsterdam,
 * Kolkata, Lord Howe's 30-minute DST), far-future instants served by the POSIX footer rule,
 * gaps and overlaps in local -> UTC, hostile TZif bytes, and a cross-check against glibc.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "types/datetime.h"
#include "types/tz.h"

#define MICROS(s) ((int64_t)(s) * INT64_C(1000000))

static int64_t utc_micros(int y, int mo, int d, int h, int mi, int s) {
    return ((int64_t)dt_days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s) * 1000000;
}

static int32_t zone(const char *name) {
    int32_t key = -1;
    if (tz_lookup(name, strlen(name), &key) != 0) fail_msg("unknown zone %s", name);
    return key;
}

/* --- calendar ---------------------------------------------------------------------------- */

static void test_civil_roundtrip(void **state) {
    (void)state;
    assert_int_equal(dt_days_from_civil(1970, 1, 1), 0);
    assert_int_equal(dt_days_from_civil(1969, 12, 31), -1);
    assert_int_equal(dt_days_from_civil(2000, 3, 1), 11017);
    assert_int_equal(dt_days_from_civil(1, 1, 1), -719162);
    assert_int_equal(dt_days_from_civil(9999, 12, 31), 2932896);
    /* every day of years 1..9999, in order */
    int32_t expected = dt_days_from_civil(1, 1, 1);
    for (int32_t y = 1; y <= 9999; y++) {
        for (int32_t m = 1; m <= 12; m++) {
            int32_t dim = dt_days_in_month(y, m);
            for (int32_t d = 1; d <= dim; d++) {
                int32_t days = dt_days_from_civil(y, m, d);
                if (days != expected) fail_msg("%d-%d-%d -> %d, want %d", y, m, d, days, expected);
                int32_t yy, mm, dd;
                dt_civil_from_days(days, &yy, &mm, &dd);
                if (yy != y || mm != m || dd != d) fail_msg("%d back to %d-%d-%d", days, yy, mm, dd);
                expected++;
            }
        }
    }
    /* negative days far before the epoch, and year 0 / negative years */
    for (int32_t days = -3000000; days < 0; days += 997) {
        int32_t y, m, d;
        dt_civil_from_days(days, &y, &m, &d);
        assert_int_equal(dt_days_from_civil(y, m, d), days);
    }
    int32_t y, m, d;
    dt_civil_from_days(dt_days_from_civil(0, 2, 29), &y, &m, &d); /* year 0 is a leap year */
    assert_int_equal(y, 0);
    assert_int_equal(m, 2);
    assert_int_equal(d, 29);
    dt_civil_from_days(dt_days_from_civil(-1, 12, 31) + 1, &y, &m, &d);
    assert_int_equal(y, 0);
    assert_int_equal(m, 1);
    assert_int_equal(d, 1);
    dt_civil_from_days(INT32_MAX, &y, &m, &d);
    assert_int_equal(dt_days_from_civil(y, m, d), INT32_MAX);
    dt_civil_from_days(INT32_MIN, &y, &m, &d);
    assert_int_equal(dt_days_from_civil(y, m, d), INT32_MIN);
}

static void test_leap_years(void **state) {
    (void)state;
    assert_true(dt_is_leap_year(2000));
    assert_true(dt_is_leap_year(2024));
    assert_true(dt_is_leap_year(0));
    assert_true(dt_is_leap_year(-4));
    assert_false(dt_is_leap_year(1900));
    assert_false(dt_is_leap_year(2100));
    assert_false(dt_is_leap_year(2023));
    assert_int_equal(dt_days_in_month(2024, 2), 29);
    assert_int_equal(dt_days_in_month(2023, 2), 28);
    assert_int_equal(dt_days_in_month(1900, 2), 28);
    assert_int_equal(dt_days_in_month(2000, 2), 29);
    assert_int_equal(dt_days_in_month(2024, 4), 30);
    assert_int_equal(dt_days_in_month(2024, 13), 0);
}

static void test_weekdays(void **state) {
    (void)state;
    assert_int_equal(dt_day_of_week(0), 4); /* 1970-01-01 was a Thursday */
    assert_int_equal(dt_day_of_week(-1), 3);
    assert_int_equal(dt_day_of_week(dt_days_from_civil(2024, 3, 10)), 7);
    assert_int_equal(dt_day_of_week(dt_days_from_civil(2024, 3, 11)), 1);
    assert_int_equal(dt_day_of_year(dt_days_from_civil(2024, 12, 31)), 366);
    assert_int_equal(dt_day_of_year(dt_days_from_civil(2023, 12, 31)), 365);
    assert_int_equal(dt_day_of_year(dt_days_from_civil(2024, 1, 1)), 1);
    int32_t week, week_year;
    dt_iso_week(dt_days_from_civil(2021, 1, 3), &week, &week_year);
    assert_int_equal(week, 53);
    assert_int_equal(week_year, 2020);
    dt_iso_week(dt_days_from_civil(2024, 12, 30), &week, &week_year);
    assert_int_equal(week, 1);
    assert_int_equal(week_year, 2025);
    dt_iso_week(dt_days_from_civil(2024, 6, 15), &week, &week_year);
    assert_int_equal(week, 24);
    assert_int_equal(week_year, 2024);
}

static void test_fields(void **state) {
    (void)state;
    dt_fields f;
    dt_fields_from_micros(-1, &f);
    assert_int_equal(f.year, 1969);
    assert_int_equal(f.month, 12);
    assert_int_equal(f.day, 31);
    assert_int_equal(f.hour, 23);
    assert_int_equal(f.minute, 59);
    assert_int_equal(f.second, 59);
    assert_int_equal(f.micros, 999999);
    assert_int_equal(dt_micros_from_fields(&f), -1);
    dt_fields g = {2024, 2, 29, 13, 45, 10, 500000};
    int64_t m = dt_micros_from_fields(&g);
    assert_true(m == utc_micros(2024, 2, 29, 13, 45, 10) + 500000);
    assert_true(dt_floor_div(-7, 2) == -4);
    assert_true(dt_floor_mod(-7, 2) == 1);
    assert_true(dt_floor_div(7, 2) == 3);
}

static void test_add_months(void **state) {
    (void)state;
    int32_t y, m, d;
    dt_civil_from_days(dt_date_add_months(dt_days_from_civil(2024, 1, 31), 1), &y, &m, &d);
    assert_true(y == 2024 && m == 2 && d == 29);
    dt_civil_from_days(dt_date_add_months(dt_days_from_civil(2023, 1, 31), 1), &y, &m, &d);
    assert_true(y == 2023 && m == 2 && d == 28);
    dt_civil_from_days(dt_date_add_months(dt_days_from_civil(2024, 3, 31), -1), &y, &m, &d);
    assert_true(y == 2024 && m == 2 && d == 29);
    dt_civil_from_days(dt_date_add_months(dt_days_from_civil(2024, 1, 15), -13), &y, &m, &d);
    assert_true(y == 2022 && m == 12 && d == 15);
    int64_t ts = utc_micros(2024, 1, 31, 10, 30, 0) + 123;
    assert_true(dt_timestamp_add_months(ts, 1) == utc_micros(2024, 2, 29, 10, 30, 0) + 123);
    assert_true(dt_timestamp_add_months(-1, 1) == utc_micros(1970, 1, 31, 23, 59, 59) + 999999);
}

/* --- text -------------------------------------------------------------------------------- */

static void assert_date_text(const char *text, const char *canonical) {
    int32_t days;
    if (dt_parse_date(text, strlen(text), &days) != 0) fail_msg("rejected date '%s'", text);
    char buf[64];
    assert_int_equal(dt_format_date(days, buf), strlen(canonical));
    assert_string_equal(buf, canonical);
}

static void test_date_text(void **state) {
    (void)state;
    assert_date_text("2024-02-29", "2024-02-29");
    assert_date_text(" 2024-2-9 ", "2024-02-09");
    assert_date_text("1970-01-01", "1970-01-01");
    assert_date_text("0001-01-01", "0001-01-01");
    assert_date_text("9999-12-31", "9999-12-31");
    assert_date_text("+12345-01-01", "+12345-01-01");
    assert_date_text("-0001-01-01", "-0001-01-01");
    assert_date_text("0000-06-15", "0000-06-15");
    const char *bad[] = {"", "2024-02-30", "2023-02-29", "2024-13-01", "2024-00-10", "2024-01-00",
                         "abc", "2024/01/01", "2024-01-01x", "2024-01", "2024-001-01",
                         "12345678-01-01", "2024-01-01 10:00"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int32_t days;
        if (dt_parse_date(bad[i], strlen(bad[i]), &days) == 0) fail_msg("accepted '%s'", bad[i]);
    }
    char buf[64];
    dt_format_date(-719163, buf); /* the day before 0001-01-01 */
    assert_string_equal(buf, "0000-12-31");
}

static void test_time_text(void **state) {
    (void)state;
    int64_t t;
    int p;
    char buf[64];
    assert_int_equal(dt_parse_time("13:45", 5, &t, &p), 0);
    assert_int_equal(p, 0);
    assert_true(t == MICROS(13 * 3600 + 45 * 60));
    assert_int_equal(dt_parse_time("13:45:10.123456", 15, &t, &p), 0);
    assert_int_equal(p, 6);
    dt_format_time(t, 6, buf);
    assert_string_equal(buf, "13:45:10.123456");
    dt_format_time(t, 3, buf);
    assert_string_equal(buf, "13:45:10.123");
    dt_format_time(t, 0, buf);
    assert_string_equal(buf, "13:45:10");
    assert_int_equal(dt_parse_time("1:2:3.5", 7, &t, &p), 0);
    assert_int_equal(p, 1);
    dt_format_time(t, 1, buf);
    assert_string_equal(buf, "01:02:03.5");
    /* more than microseconds: rounded, and the day wraps */
    assert_int_equal(dt_parse_time("23:59:59.9999995", 16, &t, &p), 0);
    assert_int_equal(p, 7);
    assert_true(t == 0);
    assert_int_equal(dt_parse_time("10:00:00.1234564", 16, &t, &p), 0);
    assert_true(t == MICROS(36000) + 123456);
    const char *bad[] = {"", "24:00", "12:60", "12:00:60", "12", "12:", "12:00:", "12:00:00.",
                         "12:00:00.1234567890123", "ab:cd", "12:00 UTC"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (dt_parse_time(bad[i], strlen(bad[i]), &t, &p) == 0) fail_msg("accepted '%s'", bad[i]);
}

static void test_timestamp_text(void **state) {
    (void)state;
    int64_t t;
    int p;
    char buf[64];
    assert_int_equal(dt_parse_timestamp("2024-02-29 13:45:10.5", 21, &t, &p), 0);
    assert_int_equal(p, 1);
    assert_true(t == utc_micros(2024, 2, 29, 13, 45, 10) + 500000);
    dt_format_timestamp(t, 3, buf);
    assert_string_equal(buf, "2024-02-29 13:45:10.500");
    dt_format_timestamp(t, 0, buf);
    assert_string_equal(buf, "2024-02-29 13:45:10");
    assert_int_equal(dt_parse_timestamp("2024-02-29", 10, &t, &p), 0);
    assert_int_equal(p, 0);
    assert_true(t == utc_micros(2024, 2, 29, 0, 0, 0));
    assert_int_equal(dt_parse_timestamp("2024-02-29T01:02", 16, &t, &p), 0);
    assert_true(t == utc_micros(2024, 2, 29, 1, 2, 0));
    assert_int_equal(dt_parse_timestamp(" 1969-12-31 23:59:59.999999 ", 28, &t, &p), 0);
    assert_true(t == -1);
    dt_format_timestamp(-1, 6, buf);
    assert_string_equal(buf, "1969-12-31 23:59:59.999999");
    dt_format_timestamp(utc_micros(12345, 1, 1, 0, 0, 0), 3, buf);
    assert_string_equal(buf, "+12345-01-01 00:00:00.000");
    const char *bad[] = {"2024-02-29 25:00", "2024-02-29 13:45 UTC", "2024-02-29T", "2024-02-30",
                         "2024-02-29 13", "x", "300000-01-01"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (dt_parse_timestamp(bad[i], strlen(bad[i]), &t, &p) == 0) fail_msg("accepted '%s'", bad[i]);
}

static void test_timestamp_tz_text(void **state) {
    (void)state;
    int64_t t;
    int32_t z;
    bool has;
    int p;
    char buf[128];
    const char *s = "2024-03-10 10:00 America/New_York";
    assert_int_equal(dt_parse_timestamp_tz(s, strlen(s), &t, &z, &has, &p), 0);
    assert_true(has);
    assert_true(t == utc_micros(2024, 3, 10, 14, 0, 0));
    dt_format_timestamp_tz(t, z, 3, buf);
    assert_string_equal(buf, "2024-03-10 10:00:00.000 America/New_York");
    s = "2024-01-01 00:00:00.25 +05:30";
    assert_int_equal(dt_parse_timestamp_tz(s, strlen(s), &t, &z, &has, &p), 0);
    assert_true(t == utc_micros(2023, 12, 31, 18, 30, 0) + 250000);
    assert_int_equal(p, 2);
    dt_format_timestamp_tz(t, z, 2, buf);
    assert_string_equal(buf, "2024-01-01 00:00:00.25 +05:30");
    s = "2024-01-01 00:00Z";
    assert_int_equal(dt_parse_timestamp_tz(s, strlen(s), &t, &z, &has, &p), 0);
    assert_int_equal(z, TZ_UTC);
    dt_format_timestamp_tz(t, z, 3, buf);
    assert_string_equal(buf, "2024-01-01 00:00:00.000 UTC");
    s = "2024-01-01 UTC";
    assert_int_equal(dt_parse_timestamp_tz(s, strlen(s), &t, &z, &has, &p), 0);
    assert_true(has && t == utc_micros(2024, 1, 1, 0, 0, 0));
    s = "2024-07-01 12:00:00";
    assert_int_equal(dt_parse_timestamp_tz(s, strlen(s), &t, &z, &has, &p), 0);
    assert_false(has);
    assert_true(t == utc_micros(2024, 7, 1, 12, 0, 0)); /* local micros */
    s = "2024-07-01 12:00:00 Nowhere/Special";
    assert_int_equal(dt_parse_timestamp_tz(s, strlen(s), &t, &z, &has, &p), -1);
    s = "2024-07-01 12:00:00 +25:00";
    assert_int_equal(dt_parse_timestamp_tz(s, strlen(s), &t, &z, &has, &p), -1);
}

static void test_interval_text(void **state) {
    (void)state;
    char buf[64];
    dt_format_interval_ds(2 * DT_MICROS_PER_DAY, buf);
    assert_string_equal(buf, "2 00:00:00.000");
    dt_format_interval_ds(-(DT_MICROS_PER_DAY + MICROS(2 * 3600 + 3 * 60 + 4) + 500000), buf);
    assert_string_equal(buf, "-1 02:03:04.500");
    dt_format_interval_ds(0, buf);
    assert_string_equal(buf, "0 00:00:00.000");
    dt_format_interval_ds(INT64_MIN, buf);
    assert_string_equal(buf, "-106751991 04:00:54.775");
    dt_format_interval_ym(14, buf);
    assert_string_equal(buf, "1-2");
    dt_format_interval_ym(-14, buf);
    assert_string_equal(buf, "-1-2");
    dt_format_interval_ym(0, buf);
    assert_string_equal(buf, "0-0");
    dt_format_interval_ym(INT32_MIN, buf);
    assert_string_equal(buf, "-178956970-8");

    bool ym;
    int64_t micros;
    int32_t months;
    assert_int_equal(dt_parse_interval("2", 1, "DAY", NULL, &ym, &micros, &months), 0);
    assert_false(ym);
    assert_true(micros == 2 * DT_MICROS_PER_DAY);
    assert_int_equal(dt_parse_interval("1-2", 3, "YEAR", "MONTH", &ym, &micros, &months), 0);
    assert_true(ym);
    assert_int_equal(months, 14);
    assert_int_equal(dt_parse_interval("-1-2", 4, "YEAR", "MONTH", &ym, &micros, &months), 0);
    assert_int_equal(months, -14);
    assert_int_equal(dt_parse_interval("14", 2, "MONTH", NULL, &ym, &micros, &months), 0);
    assert_int_equal(months, 14);
    assert_int_equal(dt_parse_interval("3", 1, "YEAR", "", &ym, &micros, &months), 0);
    assert_int_equal(months, 36);
    const char *t = "-1 02:03:04.5";
    assert_int_equal(dt_parse_interval(t, strlen(t), "DAY", "SECOND", &ym, &micros, &months), 0);
    assert_true(micros == -(DT_MICROS_PER_DAY + MICROS(2 * 3600 + 3 * 60 + 4) + 500000));
    assert_int_equal(dt_parse_interval("1", 1, "DAY", "SECOND", &ym, &micros, &months), 0);
    assert_true(micros == DT_MICROS_PER_DAY); /* prefixes of the qualifier are accepted */
    assert_int_equal(dt_parse_interval("1 5", 3, "DAY", "SECOND", &ym, &micros, &months), 0);
    assert_true(micros == DT_MICROS_PER_DAY + MICROS(5 * 3600));
    assert_int_equal(dt_parse_interval("10:30", 5, "HOUR", "MINUTE", &ym, &micros, &months), 0);
    assert_true(micros == MICROS(10 * 3600 + 30 * 60));
    assert_int_equal(dt_parse_interval("90", 2, "MINUTE", NULL, &ym, &micros, &months), 0);
    assert_true(micros == MICROS(90 * 60));
    assert_int_equal(dt_parse_interval("1.2345", 6, "SECOND", NULL, &ym, &micros, &months), 0);
    assert_true(micros == 1234000); /* milliseconds, as Trino */
    assert_int_equal(dt_parse_interval("5:06", 4, "MINUTE", "SECOND", &ym, &micros, &months), 0);
    assert_true(micros == MICROS(306));
    assert_int_equal(dt_parse_interval("1:2", 3, "DAY", NULL, &ym, &micros, &months), -1);
    assert_int_equal(dt_parse_interval("x", 1, "DAY", NULL, &ym, &micros, &months), -1);
    assert_int_equal(dt_parse_interval("", 0, "DAY", NULL, &ym, &micros, &months), -1);
    assert_int_equal(dt_parse_interval("1", 1, "SECOND", "DAY", &ym, &micros, &months), -1);
    assert_int_equal(dt_parse_interval("1", 1, "YEAR", "DAY", &ym, &micros, &months), -1);
    assert_int_equal(dt_parse_interval("1", 1, "MONTH", "YEAR", &ym, &micros, &months), -1);
    assert_int_equal(dt_parse_interval("1", 1, "WEEK", NULL, &ym, &micros, &months), -1);
    assert_int_equal(dt_parse_interval("99999999999", 11, "DAY", NULL, &ym, &micros, &months), -2);
    assert_int_equal(dt_parse_interval("2000000000", 10, "DAY", NULL, &ym, &micros, &months), -2);
    assert_int_equal(dt_parse_interval("200000000", 9, "YEAR", NULL, &ym, &micros, &months), -2);
}

/* --- zones ------------------------------------------------------------------------------- */

static void test_zone_lookup(void **state) {
    (void)state;
    int32_t k;
    const char *utc_names[] = {"UTC", "utc", "Z", "GMT", "Etc/UTC", "etc/gmt", "UT", "Zulu",
                               "+00:00", "-00:00", "GMT0", "UTC+0"};
    for (size_t i = 0; i < sizeof utc_names / sizeof utc_names[0]; i++) {
        assert_int_equal(tz_lookup(utc_names[i], strlen(utc_names[i]), &k), 0);
        assert_int_equal(k, TZ_UTC);
    }
    assert_string_equal(tz_name(TZ_UTC), "UTC");
    assert_int_equal(tz_lookup("+05:30", 6, &k), 0);
    assert_string_equal(tz_name(k), "+05:30");
    assert_int_equal(tz_offset_at_utc(k, 0), 19800);
    assert_int_equal(k, tz_key_for_offset(330));
    assert_int_equal(tz_lookup("-08", 3, &k), 0);
    assert_string_equal(tz_name(k), "-08:00");
    assert_int_equal(tz_lookup("+0530", 5, &k), 0);
    assert_string_equal(tz_name(k), "+05:30");
    assert_int_equal(tz_lookup("-5:30", 5, &k), 0);
    assert_string_equal(tz_name(k), "-05:30");
    assert_int_equal(tz_lookup("+14:00", 6, &k), 0);
    assert_int_equal(tz_lookup("GMT+3", 5, &k), 0);
    assert_string_equal(tz_name(k), "+03:00");
    assert_int_equal(tz_lookup("Etc/GMT+5", 9, &k), 0); /* POSIX-style inverted sign */
    assert_string_equal(tz_name(k), "-05:00");
    assert_int_equal(tz_key_for_offset(0), TZ_UTC);
    int32_t a, b;
    assert_int_equal(tz_lookup("America/New_York", 16, &a), 0);
    assert_int_equal(tz_lookup("america/new_york", 16, &b), 0);
    assert_int_equal(a, b);
    assert_int_equal(tz_lookup("AMERICA/NEW_YORK", 16, &b), 0);
    assert_int_equal(a, b);
    assert_string_equal(tz_name(a), "America/New_York");
    const char *bad[] = {"", "Mars/Olympus", "../../etc/passwd", "/etc/passwd", "America/../UTC",
                         "America//New_York", "America/", "+14:01", "+15", "+05:60", "+1:2",
                         "America/New_York ", "zone.tab", "America", "UTC+25", "right/UTC"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        k = 12345;
        if (tz_lookup(bad[i], strlen(bad[i]), &k) == 0) fail_msg("accepted zone '%s'", bad[i]);
        assert_int_equal(k, 12345);
    }
    char longname[300];
    memset(longname, 'A', sizeof longname);
    assert_int_equal(tz_lookup(longname, sizeof longname, &k), -1);
    assert_int_equal(tz_lookup(NULL, 0, &k), -1);
    /* unknown keys fall back to UTC and never crash */
    assert_string_equal(tz_name(999999), "UTC");
    assert_int_equal(tz_offset_at_utc(999999, 0), 0);
    assert_true(tz_local_to_utc(-5, 42) == 42);
    int32_t def = tz_system_default();
    assert_non_null(tz_name(def));
}

static void assert_offset(int32_t key, int64_t micros, int32_t expected) {
    int32_t got = tz_offset_at_utc(key, micros);
    if (got != expected) fail_msg("%s at %lld: %d, want %d", tz_name(key), (long long)micros, got, expected);
}

static void test_zone_new_york(void **state) {
    (void)state;
    int32_t ny = zone("America/New_York");
    assert_offset(ny, utc_micros(2024, 3, 10, 6, 59, 59), -5 * 3600);
    assert_offset(ny, utc_micros(2024, 3, 10, 7, 0, 0), -4 * 3600);
    assert_offset(ny, utc_micros(2024, 3, 10, 7, 0, 0) - 1, -5 * 3600);
    assert_offset(ny, utc_micros(2024, 11, 3, 5, 59, 59), -4 * 3600);
    assert_offset(ny, utc_micros(2024, 11, 3, 6, 0, 0), -5 * 3600);
    /* far future: the footer rule "EST5EDT,M3.2.0,M11.1.0" */
    assert_offset(ny, utc_micros(2100, 1, 15, 12, 0, 0), -5 * 3600);
    assert_offset(ny, utc_micros(2100, 7, 1, 12, 0, 0), -4 * 3600);
    assert_offset(ny, utc_micros(2100, 3, 14, 6, 59, 59), -5 * 3600); /* 2nd Sunday of March */
    assert_offset(ny, utc_micros(2100, 3, 14, 7, 0, 0), -4 * 3600);
    assert_offset(ny, utc_micros(2100, 11, 7, 5, 59, 59), -4 * 3600); /* 1st Sunday of November */
    assert_offset(ny, utc_micros(2100, 11, 7, 6, 0, 0), -5 * 3600);
    assert_offset(ny, utc_micros(2500, 8, 1, 0, 0, 0), -4 * 3600);
    /* history: before standard time (LMT -4:56:02) */
    assert_offset(ny, utc_micros(1850, 1, 1, 0, 0, 0), -(4 * 3600 + 56 * 60 + 2));
    /* local -> UTC: gap (02:30 does not exist: shifted forward) and overlap (earlier instant) */
    assert_true(tz_local_to_utc(ny, utc_micros(2024, 3, 10, 2, 30, 0)) == utc_micros(2024, 3, 10, 7, 30, 0));
    assert_true(tz_local_to_utc(ny, utc_micros(2024, 11, 3, 1, 30, 0)) == utc_micros(2024, 11, 3, 5, 30, 0));
    assert_true(tz_local_to_utc(ny, utc_micros(2024, 7, 1, 12, 0, 0) + 7) == utc_micros(2024, 7, 1, 16, 0, 0) + 7);
    assert_true(tz_local_to_utc(ny, utc_micros(2024, 1, 1, 0, 0, 0)) == utc_micros(2024, 1, 1, 5, 0, 0));
    assert_true(tz_local_to_utc(ny, utc_micros(2100, 3, 14, 2, 30, 0)) == utc_micros(2100, 3, 14, 7, 30, 0));
    assert_true(tz_utc_to_local(ny, utc_micros(2024, 7, 1, 16, 0, 0)) == utc_micros(2024, 7, 1, 12, 0, 0));
}

static void test_zone_others(void **state) {
    (void)state;
    int32_t ams = zone("Europe/Amsterdam");
    assert_offset(ams, utc_micros(2024, 3, 31, 0, 59, 59), 3600);
    assert_offset(ams, utc_micros(2024, 3, 31, 1, 0, 0), 7200);
    assert_offset(ams, utc_micros(2024, 10, 27, 0, 59, 59), 7200);
    assert_offset(ams, utc_micros(2024, 10, 27, 1, 0, 0), 3600);
    assert_offset(ams, utc_micros(2150, 7, 1, 0, 0, 0), 7200);
    assert_offset(ams, utc_micros(2150, 12, 1, 0, 0, 0), 3600);

    int32_t kol = zone("Asia/Kolkata");
    assert_offset(kol, utc_micros(2024, 1, 1, 0, 0, 0), 19800);
    assert_offset(kol, utc_micros(2024, 7, 1, 0, 0, 0), 19800);
    assert_offset(kol, utc_micros(2300, 7, 1, 0, 0, 0), 19800);
    char buf[128];
    dt_format_timestamp_tz(utc_micros(2024, 1, 1, 0, 0, 0), kol, 0, buf);
    assert_string_equal(buf, "2024-01-01 05:30:00 Asia/Kolkata");

    int32_t lh = zone("Australia/Lord_Howe"); /* +10:30, and +11:00 in (southern) summer */
    assert_offset(lh, utc_micros(2024, 1, 15, 0, 0, 0), 39600);
    assert_offset(lh, utc_micros(2024, 7, 15, 0, 0, 0), 37800);
    assert_offset(lh, utc_micros(2024, 4, 6, 14, 59, 59), 39600);
    assert_offset(lh, utc_micros(2024, 4, 6, 15, 0, 0), 37800);
    assert_offset(lh, utc_micros(2024, 10, 5, 15, 29, 59), 37800);
    assert_offset(lh, utc_micros(2024, 10, 5, 15, 30, 0), 39600);
    assert_offset(lh, utc_micros(2100, 1, 15, 0, 0, 0), 39600);
    assert_offset(lh, utc_micros(2100, 7, 15, 0, 0, 0), 37800);
    assert_offset(lh, utc_micros(2099, 12, 31, 23, 0, 0), 39600); /* across the year boundary */
    /* overlap of 30 minutes: 01:45 local happens twice on 2024-04-07 */
    assert_true(tz_local_to_utc(lh, utc_micros(2024, 4, 7, 1, 45, 0)) == utc_micros(2024, 4, 6, 14, 45, 0));

    int32_t sao = zone("America/Sao_Paulo"); /* no DST since 2019 */
    assert_offset(sao, utc_micros(2024, 1, 1, 0, 0, 0), -3 * 3600);
    assert_offset(sao, utc_micros(2200, 1, 1, 0, 0, 0), -3 * 3600);
}

/* glibc reads the same tz database: compare offsets for many instants and zones. */
static void test_zone_against_libc(void **state) {
    (void)state;
    const char *zones[] = {"America/New_York", "Europe/Amsterdam", "Asia/Kolkata",
                           "Australia/Lord_Howe", "America/Sao_Paulo", "Europe/London",
                           "Pacific/Auckland", "America/Santiago", "Asia/Tehran", "Africa/Casablanca",
                           "Pacific/Chatham", "America/St_Johns", "Europe/Dublin", "Asia/Gaza"};
    char *saved = getenv("TZ") ? strdup(getenv("TZ")) : NULL;
    srand(11);
    for (size_t z = 0; z < sizeof zones / sizeof zones[0]; z++) {
        int32_t key;
        if (tz_lookup(zones[z], strlen(zones[z]), &key) != 0) continue; /* not installed */
        setenv("TZ", zones[z], 1);
        tzset();
        for (int i = 0; i < 3000; i++) {
            /* 1900 .. 2200 */
            int64_t secs = -2208988800LL + (int64_t)(((uint64_t)rand() << 16 ^ (uint64_t)rand()) %
                                                     (uint64_t)(300LL * 365 * 86400));
            time_t tt = (time_t)secs;
            struct tm tm;
            if (!localtime_r(&tt, &tm)) continue;
            int32_t ours = tz_offset_at_utc(key, secs * 1000000);
            if (ours != tm.tm_gmtoff)
                fail_msg("%s at %lld: ours %d, libc %ld", zones[z], (long long)secs, ours, tm.tm_gmtoff);
        }
    }
    if (saved) {
        setenv("TZ", saved, 1);
        free(saved);
    } else {
        unsetenv("TZ");
    }
    tzset();
}

static unsigned char *read_whole(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    unsigned char *buf = malloc(1 << 20);
    *size = fread(buf, 1, 1 << 20, f);
    fclose(f);
    return buf;
}

static void test_tzif_hostile(void **state) {
    (void)state;
    size_t size = 0;
    unsigned char *data = read_whole("/usr/share/zoneinfo/America/New_York", &size);
    if (!data) skip();
    assert_int_equal(tz_tzif_check(data, size), 0);
    /* every truncation is refused or accepted, never read out of bounds (ASan watches) */
    for (size_t n = 0; n < size; n++) {
        unsigned char *copy = malloc(n ? n : 1);
        memcpy(copy, data, n);
        (void)tz_tzif_check(copy, n);
        free(copy);
    }
    /* random corruption */
    srand(3);
    unsigned char *copy = malloc(size);
    for (int round = 0; round < 3000; round++) {
        memcpy(copy, data, size);
        int flips = 1 + rand() % 8;
        for (int i = 0; i < flips; i++) copy[(size_t)rand() % size] = (unsigned char)rand();
        (void)tz_tzif_check(copy, size);
    }
    /* specific lies in the header: huge counts, zero types */
    memcpy(copy, data, size);
    copy[32] = 0x7f; /* timecnt of the v1 header */
    assert_int_equal(tz_tzif_check(copy, size), -1);
    memcpy(copy, data, size);
    memset(copy + 36, 0, 4); /* typecnt = 0 */
    assert_int_equal(tz_tzif_check(copy, size), -1);
    memcpy(copy, data, size);
    copy[0] = 'X';
    assert_int_equal(tz_tzif_check(copy, size), -1);
    assert_int_equal(tz_tzif_check(NULL, 0), -1);
    /* a bad footer */
    memcpy(copy, data, size);
    if (size > 4 && copy[size - 1] == '\n') {
        copy[size - 2] = '!';
        assert_int_equal(tz_tzif_check(copy, size), -1);
    }
    free(copy);
    free(data);
}

typedef struct lookup_job {
    int32_t keys[4];
} lookup_job;

static void *lookup_thread(void *arg) {
    lookup_job *job = arg;
    const char *names[4] = {"Europe/Paris", "asia/tokyo", "America/Chicago", "Africa/Nairobi"};
    for (int i = 0; i < 4; i++) job->keys[i] = zone(names[i]);
    return NULL;
}

static void test_zone_threads(void **state) {
    (void)state;
    pthread_t threads[8];
    lookup_job jobs[8];
    for (int t = 0; t < 8; t++) pthread_create(&threads[t], NULL, lookup_thread, &jobs[t]);
    for (int t = 0; t < 8; t++) pthread_join(threads[t], NULL);
    for (int t = 1; t < 8; t++)
        for (int i = 0; i < 4; i++) assert_int_equal(jobs[t].keys[i], jobs[0].keys[i]);
    assert_string_equal(tz_name(jobs[0].keys[1]), "Asia/Tokyo");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_civil_roundtrip),
        cmocka_unit_test(test_leap_years),
        cmocka_unit_test(test_weekdays),
        cmocka_unit_test(test_fields),
        cmocka_unit_test(test_add_months),
        cmocka_unit_test(test_date_text),
        cmocka_unit_test(test_time_text),
        cmocka_unit_test(test_timestamp_text),
        cmocka_unit_test(test_timestamp_tz_text),
        cmocka_unit_test(test_interval_text),
        cmocka_unit_test(test_zone_lookup),
        cmocka_unit_test(test_zone_new_york),
        cmocka_unit_test(test_zone_others),
        cmocka_unit_test(test_zone_against_libc),
        cmocka_unit_test(test_tzif_hostile),
        cmocka_unit_test(test_zone_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
