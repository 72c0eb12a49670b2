/*
 * datetime.h: civil calendar math and the text forms of DATE, TIME, TIMESTAMP,
 * TIMESTAMP WITH TIME ZONE and the two INTERVAL types, as Trino reads and prints them.
 *
 * Dates are int32 days since 1970-01-01 in the proleptic Gregorian calendar; times and
 * timestamps are int64 microseconds. All functions are pure and thread-safe.
 */
#ifndef SQE_TYPES_DATETIME_H
#define SQE_TYPES_DATETIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "types/types.h"

#define DT_MICROS_PER_SECOND INT64_C(1000000)
#define DT_MICROS_PER_DAY INT64_C(86400000000)

typedef struct dt_fields {
    int32_t year, month, day;       /* month 1..12, day 1..31 */
    int32_t hour, minute, second;   /* 0..23, 0..59, 0..59 */
    int32_t micros;                 /* 0..999999 */
} dt_fields;

/* Civil date <-> days (valid for years -5877641..5881580). */
int32_t dt_days_from_civil(int32_t year, int32_t month, int32_t day);
void dt_civil_from_days(int32_t days, int32_t *year, int32_t *month, int32_t *day);
bool dt_is_leap_year(int32_t year);
int32_t dt_days_in_month(int32_t year, int32_t month);
/* Day of week 1 (Monday) .. 7 (Sunday), ISO. Day of year 1..366. ISO week and week-year. */
int32_t dt_day_of_week(int32_t days);
int32_t dt_day_of_year(int32_t days);
void dt_iso_week(int32_t days, int32_t *week, int32_t *week_year);

/* Splits/joins timestamp micros (no zone) and fields. Floor semantics for negative values. */
void dt_fields_from_micros(int64_t micros, dt_fields *f);
int64_t dt_micros_from_fields(const dt_fields *f);
/* Floor division helpers. */
static inline int64_t dt_floor_div(int64_t a, int64_t b) {
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
static inline int64_t dt_floor_mod(int64_t a, int64_t b) { return a - dt_floor_div(a, b) * b; }

/* Adds months to a date/timestamp clamping the day to the month's length (Trino plus). */
int32_t dt_date_add_months(int32_t days, int64_t months);
int64_t dt_timestamp_add_months(int64_t micros, int64_t months);

/* Parsing: return 0 on success, -1 on malformed text. Leading/trailing spaces are allowed.
 *  date:          "2024-02-29" (also "+12345-01-01", "-0001-01-01")
 *  time:          "13:45", "13:45:10", "13:45:10.123456"; *precision = fraction digits seen
 *  timestamp:     "2024-02-29 13:45:10.5", "2024-02-29" (midnight), also 'T' separator
 *  timestamp tz:  a timestamp followed by " UTC", " America/New_York", "+02:00", "Z"
 *                 (*zone set to the key; when no zone is written, *has_zone = false) */
int dt_parse_date(const char *s, size_t len, int32_t *days);
int dt_parse_time(const char *s, size_t len, int64_t *micros, int *precision);
int dt_parse_timestamp(const char *s, size_t len, int64_t *micros, int *precision);
int dt_parse_timestamp_tz(const char *s, size_t len, int64_t *utc_micros, int32_t *zone,
                          bool *has_zone, int *precision);

/* Formatting into buf (>= 64 bytes); returns the length written.
 *  date "2024-02-29"; time(p) "13:45:10.123" (p fraction digits); timestamp(p)
 *  "2024-02-29 13:45:10.500"; timestamp(p) with time zone "2024-02-29 13:45:10.500 UTC"
 *  (local time in the value's zone, then the zone name). */
int dt_format_date(int32_t days, char *buf);
int dt_format_time(int64_t micros, int precision, char *buf);
int dt_format_timestamp(int64_t micros, int precision, char *buf);
int dt_format_timestamp_tz(int64_t utc_micros, int32_t zone, int precision, char *buf);

/* Intervals. Text as Trino prints: day-to-second "2 03:04:05.000", year-to-month "1-2".
 * Literal parsing for INTERVAL '<text>' <from> [TO <to>], where from/to are the unit names
 * YEAR, MONTH, DAY, HOUR, MINUTE, SECOND (upper case). Returns 0, -1 malformed, -2 overflow;
 * *is_year_month tells which interval type the qualifier makes. */
int dt_format_interval_ds(int64_t micros, char *buf);
int dt_format_interval_ym(int32_t months, char *buf);
int dt_parse_interval(const char *text, size_t len, const char *from_unit, const char *to_unit,
                      bool *is_year_month, int64_t *micros, int32_t *months);

#endif
