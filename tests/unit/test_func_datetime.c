/*
 * test_func_datetime.c: unit tests of the date/time family (session zone UTC, query start
 * 2023-11-14 22:13:20.123456 UTC; see test_func_util.h).
 */
#include "test_func_util.h"

#define TS3 "timestamp(3):"
#define TZ3 "timestamp(3) with time zone:"
#define IDS "interval day to second:"

static void test_current(void **state) {
    (void)state;
    tf_expect0("current_date", "2023-11-14");
    tf_expect0("current_timestamp", "2023-11-14 22:13:20.123 UTC");
    tf_expect0("now", "2023-11-14 22:13:20.123 UTC");
    tf_expect0("localtimestamp", "2023-11-14 22:13:20.123");
    tf_expect0("localtime", "22:13:20.123");
    tf_expect0("current_time", "22:13:20.123");
    tf_expect0("current_timezone", "UTC");
}

static void test_date_trunc(void **state) {
    (void)state;
    tf_expect("date_trunc", "2024-02-01", "varchar:month", "date:2024-02-29");
    tf_expect("date_trunc", "2024-02-26", "varchar:week", "date:2024-02-29");
    tf_expect("date_trunc", "2024-01-01", "varchar:QUARTER", "date:2024-02-29");
    tf_expect("date_trunc", "2024-01-01", "varchar:year", "date:2024-02-29");
    tf_expect("date_trunc", "2024-02-29 13:00:00.000", "varchar:hour", TS3 "2024-02-29 13:45:10.123");
    tf_expect("date_trunc", "2024-02-29 13:45:10.000", "varchar:second",
              TS3 "2024-02-29 13:45:10.123");
    tf_expect("date_trunc", "1969-12-31 23:00:00.000", "varchar:hour", TS3 "1969-12-31 23:59:59.999");
    tf_expect("date_trunc", "2024-03-10 00:00:00.000 America/New_York", "varchar:day",
              TZ3 "2024-03-10 12:00:00.000 America/New_York");
    tf_expect("date_trunc", "13:00:00.000", "varchar:hour", "time(3):13:45:10.123");
    tf_expect_error("date_trunc", "'hour' is not a valid DATE field", "varchar:hour",
                    "date:2024-02-29");
    tf_expect_error("date_trunc", "'fortnight' is not a valid TIMESTAMP field", "varchar:fortnight",
                    TS3 "2024-02-29 13:45:10.123");
}

static void test_date_add_diff(void **state) {
    (void)state;
    tf_expect("date_add", "2024-02-29", "varchar:day", "bigint:1", "date:2024-02-28");
    tf_expect("date_add", "2024-02-29", "varchar:month", "bigint:1", "date:2024-01-31");
    tf_expect("date_add", "2023-02-28", "varchar:year", "bigint:-1", "date:2024-02-29");
    tf_expect("date_add", "2024-01-02 01:00:00.000", "varchar:hour", "bigint:25",
              TS3 "2024-01-01 00:00:00.000");
    tf_expect("date_add", "00:00:00.000", "varchar:hour", "bigint:25", "time(3):23:00:00.000");
    tf_expect("date_add", "2024-03-11 12:00:00.000 America/New_York", "varchar:day", "bigint:1",
              TZ3 "2024-03-10 12:00:00.000 America/New_York");
    tf_expect("date_add", "2024-03-10 03:30:00.000 America/New_York", "varchar:hour", "bigint:1",
              TZ3 "2024-03-10 01:30:00.000 America/New_York");
    tf_expect_error("date_add", "'hour' is not a valid DATE field", "varchar:hour", "bigint:1",
                    "date:2024-02-28");

    tf_expect("date_diff", "60", "varchar:day", "date:2024-01-01", "date:2024-03-01");
    tf_expect("date_diff", "1", "varchar:month", "date:2024-01-31", "date:2024-02-29");
    tf_expect("date_diff", "0", "varchar:month", "date:2024-01-31", "date:2024-02-28");
    tf_expect("date_diff", "-1", "varchar:month", "date:2024-02-29", "date:2024-01-29");
    tf_expect("date_diff", "1", "varchar:year", "date:2020-02-29", "date:2021-02-28");
    tf_expect("date_diff", "0", "varchar:quarter", "date:2024-01-15", "date:2024-04-14");
    tf_expect("date_diff", "8", "varchar:week", "date:2024-01-01", "date:2024-03-01");
    tf_expect("date_diff", "5", "varchar:hour", TS3 "2024-01-01 00:00:00.000",
              TS3 "2024-01-01 05:59:59.999");
    tf_expect("date_diff", "-5", "varchar:hour", TS3 "2024-01-01 05:59:59.999",
              TS3 "2024-01-01 00:00:00.000");
    tf_expect("date_diff", "3723004", "varchar:millisecond", TS3 "2024-01-01 00:00:00.000",
              TS3 "2024-01-01 01:02:03.004");
    tf_expect("date_diff", "1", "varchar:day", TZ3 "2024-03-09 12:00:00.000 America/New_York",
              TZ3 "2024-03-10 12:00:00.000 America/New_York");
}

static void test_fields(void **state) {
    (void)state;
    tf_expect("year", "2024", "date:2024-02-29");
    tf_expect("quarter", "1", "date:2024-02-29");
    tf_expect("month", "2", "date:2024-02-29");
    tf_expect("week", "1", "date:2024-12-30");
    tf_expect("week_of_year", "9", "date:2024-02-29");
    tf_expect("year_of_week", "2025", "date:2024-12-30");
    tf_expect("yow", "2025", "date:2024-12-30");
    tf_expect("day", "29", "date:2024-02-29");
    tf_expect("day_of_month", "29", "date:2024-02-29");
    tf_expect("day_of_week", "4", "date:2024-02-29");
    tf_expect("dow", "7", "date:2024-03-03");
    tf_expect("day_of_year", "60", "date:2024-02-29");
    tf_expect("doy", "366", "date:2024-12-31");
    tf_expect("hour", "13", TS3 "2024-02-29 13:45:10.123");
    tf_expect("minute", "45", TS3 "2024-02-29 13:45:10.123");
    tf_expect("second", "10", TS3 "2024-02-29 13:45:10.123");
    tf_expect("millisecond", "123", TS3 "2024-02-29 13:45:10.123");
    tf_expect("hour", "8", TZ3 "2024-02-29 08:45:10.123 America/New_York");
    tf_expect("day", "28", TZ3 "2024-02-28 23:45:10.123 America/New_York");
    tf_expect("timezone_hour", "5", TZ3 "2024-02-29 13:45:10.123 +05:30");
    tf_expect("timezone_minute", "30", TZ3 "2024-02-29 13:45:10.123 +05:30");
    tf_expect("timezone_hour", "-5", TZ3 "2024-02-29 13:45:10.123 America/New_York");
    tf_expect("hour", "13", "time(3):13:45:10.123");
    tf_expect("day", "2", IDS "2 03:04:05.006");
    tf_expect("hour", "3", IDS "2 03:04:05.006");
    tf_expect("minute", "4", IDS "2 03:04:05.006");
    tf_expect("second", "5", IDS "2 03:04:05.006");
    tf_expect("millisecond", "6", IDS "2 03:04:05.006");
    tf_expect("year", "1", "interval year to month:1-2");
    tf_expect("month", "2", "interval year to month:1-2");
    tf_expect("last_day_of_month", "2024-02-29", "date:2024-02-10");
    tf_expect("last_day_of_month", "2023-02-28", TS3 "2023-02-10 10:00:00.000");
}

static void test_unixtime_zones(void **state) {
    (void)state;
    tf_expect("from_unixtime", "1970-01-01 00:00:01.500 UTC", "double:1.5");
    tf_expect("from_unixtime", "1969-12-31 19:00:00.000 America/New_York", "double:0",
              "varchar:America/New_York");
    tf_expect("from_unixtime", "1970-01-01 05:30:00.000 +05:30", "double:0", "bigint:5",
              "bigint:30");
    tf_expect_error("from_unixtime", "'Mars/Olympus' is not a valid time zone", "double:0",
                    "varchar:Mars/Olympus");
    tf_expect("from_unixtime_nanos", "1970-01-01 00:00:01.000001 UTC", "bigint:1000001000");
    tf_expect("to_unixtime", "1.5", TZ3 "1970-01-01 00:00:01.500 UTC");
    tf_expect("to_milliseconds", "86400000", IDS "1 00:00:00.000");
    tf_expect("at_timezone", "2023-12-31 19:00:00.000 America/New_York",
              TZ3 "2024-01-01 00:00:00.000 UTC", "varchar:America/New_York");
    tf_expect("with_timezone", "2024-01-01 00:00:00.000 America/New_York",
              TS3 "2024-01-01 00:00:00.000", "varchar:America/New_York");
    tf_expect("date", "2024-01-02", "varchar:2024-01-02");
    tf_expect("date", "2024-01-02", TS3 "2024-01-02 23:59:59.999");
    tf_expect("date", "2024-01-01", TZ3 "2024-01-01 23:00:00.000 America/New_York");
    tf_expect_error("date", "Value cannot be cast to date", "varchar:tomorrow");
}

static void test_iso8601(void **state) {
    (void)state;
    tf_expect("from_iso8601_date", "2020-05-11", "varchar:2020-05-11");
    tf_expect("from_iso8601_date", "2020-03-02", "varchar:2020-W10");
    tf_expect("from_iso8601_date", "2020-03-04", "varchar:2020-W10-3");
    tf_expect("from_iso8601_date", "2020-05-02", "varchar:2020-123");
    tf_expect_error("from_iso8601_date", "Invalid format", "varchar:2020-13-45");
    tf_expect("from_iso8601_timestamp", "2020-05-11 11:15:05.055 +01:00",
              "varchar:2020-05-11T11:15:05.055+01:00");
    tf_expect("from_iso8601_timestamp", "2020-05-11 11:15:05.000 UTC",
              "varchar:2020-05-11T11:15:05Z");
    tf_expect("from_iso8601_timestamp", "2020-05-11 00:00:00.000 UTC", "varchar:2020-05-11");
    tf_expect("from_iso8601_timestamp_nanos", "2020-05-11 11:15:05.123456 UTC",
              "varchar:2020-05-11T11:15:05.123456Z");
    tf_expect("from_iso8601_timestamp", "2020-05-11 11:00:00.000 UTC", "varchar:2020-05-11T11");
    tf_expect_error("from_iso8601_timestamp", "Invalid format", "varchar:yesterday");
    tf_expect("to_iso8601", "2020-05-11", "date:2020-05-11");
    tf_expect("to_iso8601", "2020-05-11T11:15:05.055", TS3 "2020-05-11 11:15:05.055");
    tf_expect("to_iso8601", "2020-05-11T11:15:05.055Z", TZ3 "2020-05-11 11:15:05.055 UTC");
    tf_expect("to_iso8601", "2020-05-11T11:15:05.055-04:00",
              TZ3 "2020-05-11 11:15:05.055 America/New_York");
}

static void test_durations(void **state) {
    (void)state;
    tf_expect("human_readable_seconds", "1 minute, 36 seconds", "double:96");
    tf_expect("human_readable_seconds", "1 hour, 2 minutes, 42 seconds", "double:3762");
    tf_expect("human_readable_seconds", "93 weeks, 1 day, 8 hours, 31 minutes, 3 seconds",
              "double:56363463");
    tf_expect("human_readable_seconds", "0 seconds", "double:0");
    tf_expect_error("human_readable_seconds", "Invalid argument found: NaN", "double:NaN");
    tf_expect("parse_duration", "0 03:30:00.000", "varchar:3.5 h");
    tf_expect("parse_duration", "1 00:00:00.000", "varchar:1d");
    tf_expect_error("parse_duration", "not a valid data duration", "varchar:3 parsecs");
}

static void test_mysql_format(void **state) {
    (void)state;
    tf_expect("date_format", "2024-02-29 13:05:09 PM Thursday February 060 123000",
              TS3 "2024-02-29 13:05:09.123", "varchar:%Y-%m-%d %H:%i:%s %p %W %M %j %f");
    tf_expect("date_format", "Fri Feb 2 24 01:05:09 PM 01 13", TS3 "2024-02-02 13:05:09.123",
              "varchar:%a %b %e %y %r %h %k");
    tf_expect("date_format", "08:45:10", TZ3 "2024-02-29 08:45:10.123 America/New_York",
              "varchar:%T");
    tf_expect_error("date_format", "%D not supported in date format string",
                    TS3 "2024-02-29 13:05:09.123", "varchar:%D");
    tf_expect("date_parse", "2024-02-29 13:05:00.000", "varchar:2024/02/29 13:05",
              "varchar:%Y/%m/%d %H:%i");
    tf_expect("date_parse", "2024-02-29 13:05:00.000", "varchar:29 Feb 2024 1:05 PM",
              "varchar:%d %b %Y %h:%i %p");
    tf_expect("date_parse", "2024-02-29 00:00:00.123", "varchar:2024-02-29 .123",
              "varchar:%Y-%m-%d .%f");
    tf_expect_error("date_parse", "is malformed at", "varchar:2024-02-29x", "varchar:%Y-%m-%d");
    tf_expect_error("date_parse", "Cannot parse", "varchar:2024-02-30", "varchar:%Y-%m-%d");
}

static void test_joda_format(void **state) {
    (void)state;
    tf_expect("format_datetime", "2024-02-29 13:05:09.123 Thursday Feb",
              TS3 "2024-02-29 13:05:09.123", "varchar:yyyy-MM-dd HH:mm:ss.SSS EEEE MMM");
    tf_expect("format_datetime", "2024-02-29T13:05:09+05:30 +0530",
              TZ3 "2024-02-29 13:05:09.123 +05:30", "varchar:yyyy-MM-dd'T'HH:mm:ssZZ Z");
    tf_expect("format_datetime", "24 1 PM o'clock", TS3 "2024-02-29 13:05:09.123",
              "varchar:yy h a 'o''clock'");
    tf_expect("format_datetime", "America/New_York", TZ3 "2024-02-29 13:05:09.123 America/New_York",
              "varchar:ZZZ");
    tf_expect("parse_datetime", "2024-02-29 13:05:09.000 +05:30",
              "varchar:2024-02-29 13:05:09 +05:30", "varchar:yyyy-MM-dd HH:mm:ss ZZ");
    tf_expect("parse_datetime", "2024-02-29 00:00:00.000 UTC", "varchar:20240229",
              "varchar:yyyyMMdd");
    tf_expect("parse_datetime", "2024-02-29 13:05:00.000 America/New_York",
              "varchar:29/Feb/2024 1:05 PM America/New_York", "varchar:dd/MMM/yyyy h:mm a ZZZ");
    tf_expect_error("parse_datetime", "is malformed at", "varchar:2024-02-29",
                    "varchar:yyyy/MM/dd");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_current),         cmocka_unit_test(test_date_trunc),
        cmocka_unit_test(test_date_add_diff),   cmocka_unit_test(test_fields),
        cmocka_unit_test(test_unixtime_zones),  cmocka_unit_test(test_iso8601),
        cmocka_unit_test(test_durations),       cmocka_unit_test(test_mysql_format),
        cmocka_unit_test(test_joda_format),
    };
    return cmocka_run_group_tests(tests, tf_setup, NULL);
}
