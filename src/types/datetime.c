/*
 * datetime.c: proleptic Gregorian calendar math and the text forms of DATE, TIME, TIMESTAMP,
 * TIMESTAMP WITH TIME ZONE and the INTERVAL types, as Trino reads and prints them (see
 * datetime.h).
 *
 * INTERFACE: dt_days_from_civil, dt_civil_from_days, dt_is_leap_year, dt_days_in_month,
 *   dt_day_of_week, dt_day_of_year, dt_iso_week, dt_fields_from_micros, dt_micros_from_fields,
 *   dt_date_add_months, dt_timestamp_add_months, dt_parse_date, dt_parse_time,
 *   dt_parse_timestamp, dt_parse_timestamp_tz, dt_format_date, dt_format_time,
 *   dt_format_timestamp, dt_format_timestamp_tz, dt_format_interval_ds, dt_format_interval_ym,
 *   dt_parse_interval.
 * NOTES: days <-> civil uses Howard Hinnant's era algorithm ("chrono-Compatible Low-Level Date
 * Algorithms") in 64-bit arithmetic. Text follows Trino: timestamps are
 * "YYYY-MM-DD[ HH:MM[:SS[.fraction]]]" (Trino's DateTimeParsing pattern; 'T' is also accepted),
 * years outside 0..9999 print as Java's LocalDate does ("+10000", "-0001"), intervals print
 * with millisecond precision ("2 03:04:05.000", "-1-2"). Fractions longer than microseconds
 * are rounded half up.
 */
#include "types/datetime.h"

#include <stdio.h>
#include <string.h>

#include "types/tz.h"

#define DT_MIN_YEAR (-5877641)
#define DT_MAX_YEAR 5881580

/* --- Calendar ---------------------------------------------------------------------------- */

static int64_t days_from_civil64(int64_t y, int64_t m, int64_t d) {
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;                                   /* [0, 399] */
    int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1; /* [0, 365] */
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;           /* [0, 146096] */
    return era * 146097 + doe - 719468;
}

int32_t dt_days_from_civil(int32_t year, int32_t month, int32_t day) {
    return (int32_t)days_from_civil64(year, month, day);
}

static void civil_from_days64(int64_t z, int64_t *year, int32_t *month, int32_t *day) {
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;                                     /* [0, 146096] */
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365; /* [0, 399] */
    int64_t y = yoe + era * 400;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100); /* [0, 365] */
    int64_t mp = (5 * doy + 2) / 153;                      /* [0, 11] */
    *day = (int32_t)(doy - (153 * mp + 2) / 5 + 1);
    *month = (int32_t)(mp < 10 ? mp + 3 : mp - 9);
    *year = y + (*month <= 2);
}

void dt_civil_from_days(int32_t days, int32_t *year, int32_t *month, int32_t *day) {
    int64_t y;
    civil_from_days64(days, &y, month, day);
    *year = (int32_t)y;
}

bool dt_is_leap_year(int32_t year) {
    return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
}

int32_t dt_days_in_month(int32_t year, int32_t month) {
    static const int8_t days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (month < 1 || month > 12) return 0;
    return month == 2 && dt_is_leap_year(year) ? 29 : days[month - 1];
}

int32_t dt_day_of_week(int32_t days) { return (int32_t)dt_floor_mod((int64_t)days + 3, 7) + 1; }

int32_t dt_day_of_year(int32_t days) {
    int32_t y, m, d;
    dt_civil_from_days(days, &y, &m, &d);
    return days - dt_days_from_civil(y, 1, 1) + 1;
}

void dt_iso_week(int32_t days, int32_t *week, int32_t *week_year) {
    int64_t thursday = (int64_t)days - (dt_day_of_week(days) - 1) + 3;
    int32_t y, m, d;
    dt_civil_from_days((int32_t)thursday, &y, &m, &d);
    *week_year = y;
    *week = (int32_t)((thursday - dt_days_from_civil(y, 1, 1)) / 7 + 1);
}

void dt_fields_from_micros(int64_t micros, dt_fields *f) {
    int64_t days = dt_floor_div(micros, DT_MICROS_PER_DAY);
    int64_t rem = micros - days * DT_MICROS_PER_DAY;
    dt_civil_from_days((int32_t)days, &f->year, &f->month, &f->day);
    f->hour = (int32_t)(rem / (3600 * DT_MICROS_PER_SECOND));
    rem %= 3600 * DT_MICROS_PER_SECOND;
    f->minute = (int32_t)(rem / (60 * DT_MICROS_PER_SECOND));
    rem %= 60 * DT_MICROS_PER_SECOND;
    f->second = (int32_t)(rem / DT_MICROS_PER_SECOND);
    f->micros = (int32_t)(rem % DT_MICROS_PER_SECOND);
}

int64_t dt_micros_from_fields(const dt_fields *f) {
    int64_t days = days_from_civil64(f->year, f->month, f->day);
    return days * DT_MICROS_PER_DAY +
           ((int64_t)f->hour * 3600 + (int64_t)f->minute * 60 + f->second) * DT_MICROS_PER_SECOND +
           f->micros;
}

int32_t dt_date_add_months(int32_t days, int64_t months) {
    int32_t y, m, d;
    dt_civil_from_days(days, &y, &m, &d);
    /* Saturate absurd month counts instead of overflowing; callers range-check results. */
    if (months > INT64_C(100000000000)) months = INT64_C(100000000000);
    if (months < -INT64_C(100000000000)) months = -INT64_C(100000000000);
    int64_t total = (int64_t)y * 12 + (m - 1) + months;
    int64_t ny = dt_floor_div(total, 12);
    int32_t nm = (int32_t)(total - ny * 12) + 1;
    if (ny < DT_MIN_YEAR) ny = DT_MIN_YEAR;
    if (ny > DT_MAX_YEAR) ny = DT_MAX_YEAR;
    int32_t dim = dt_days_in_month((int32_t)ny, nm);
    return (int32_t)days_from_civil64(ny, nm, d < dim ? d : dim);
}

int64_t dt_timestamp_add_months(int64_t micros, int64_t months) {
    int64_t days = dt_floor_div(micros, DT_MICROS_PER_DAY);
    int64_t time = micros - days * DT_MICROS_PER_DAY;
    return (int64_t)dt_date_add_months((int32_t)days, months) * DT_MICROS_PER_DAY + time;
}

/* --- Parsing ----------------------------------------------------------------------------- */

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

static void trim(const char **s, size_t *len) {
    while (*len && is_space(**s)) (*s)++, (*len)--;
    while (*len && is_space((*s)[*len - 1])) (*len)--;
}

/* Reads 1..max_digits decimal digits at s[*i]; returns false when there are none. */
static bool read_digits(const char *s, size_t len, size_t *i, int max_digits, int64_t *out) {
    int64_t v = 0;
    int n = 0;
    while (*i < len && s[*i] >= '0' && s[*i] <= '9') {
        if (n == max_digits) return false;
        v = v * 10 + (s[*i] - '0');
        (*i)++;
        n++;
    }
    if (n == 0) return false;
    *out = v;
    return true;
}

/* [+-]Y-M-D at s[*i]: validates the civil date and returns its day number. */
static bool read_date(const char *s, size_t len, size_t *i, int64_t *days) {
    bool negative = false;
    if (*i < len && (s[*i] == '+' || s[*i] == '-')) negative = s[(*i)++] == '-';
    int64_t y, m, d;
    if (!read_digits(s, len, i, 7, &y)) return false;
    if (*i >= len || s[*i] != '-') return false;
    (*i)++;
    if (!read_digits(s, len, i, 2, &m)) return false;
    if (*i >= len || s[*i] != '-') return false;
    (*i)++;
    if (!read_digits(s, len, i, 2, &d)) return false;
    if (negative) y = -y;
    if (y < DT_MIN_YEAR || y > DT_MAX_YEAR || m < 1 || m > 12 || d < 1 ||
        d > dt_days_in_month((int32_t)y, (int32_t)m))
        return false;
    *days = days_from_civil64(y, m, d);
    return true;
}

/* H:M[:S[.F]] at s[*i]; micros of the day (fractions past 6 digits rounded half up, which may
 * give 86400000000) and the number of fraction digits. */
static bool read_time(const char *s, size_t len, size_t *i, int64_t *micros, int *precision) {
    int64_t h, m, sec = 0, frac = 0;
    int digits = 0;
    if (!read_digits(s, len, i, 2, &h)) return false;
    if (*i >= len || s[*i] != ':') return false;
    (*i)++;
    if (!read_digits(s, len, i, 2, &m)) return false;
    if (*i < len && s[*i] == ':') {
        (*i)++;
        if (!read_digits(s, len, i, 2, &sec)) return false;
        if (*i < len && s[*i] == '.') {
            (*i)++;
            bool round_up = false;
            while (*i < len && s[*i] >= '0' && s[*i] <= '9') {
                if (digits < 6)
                    frac = frac * 10 + (s[*i] - '0');
                else if (digits == 6)
                    round_up = s[*i] >= '5';
                digits++;
                (*i)++;
            }
            if (digits == 0 || digits > 12) return false;
            for (int k = digits; k < 6; k++) frac *= 10;
            if (round_up) frac++;
        }
    }
    if (h > 23 || m > 59 || sec > 59) return false;
    *micros = ((h * 60 + m) * 60 + sec) * DT_MICROS_PER_SECOND + frac;
    *precision = digits;
    return true;
}

int dt_parse_date(const char *s, size_t len, int32_t *days) {
    trim(&s, &len);
    size_t i = 0;
    int64_t d;
    if (!read_date(s, len, &i, &d) || i != len) return -1;
    *days = (int32_t)d;
    return 0;
}

int dt_parse_time(const char *s, size_t len, int64_t *micros, int *precision) {
    trim(&s, &len);
    size_t i = 0;
    int64_t t;
    int p;
    if (!read_time(s, len, &i, &t, &p) || i != len) return -1;
    *micros = t % DT_MICROS_PER_DAY;
    *precision = p;
    return 0;
}

/* Date, optional time, then whatever follows (index in *rest). */
static bool read_timestamp(const char *s, size_t len, size_t *i, int64_t *micros, int *precision) {
    int64_t days, time = 0;
    int p = 0;
    if (!read_date(s, len, i, &days)) return false;
    if (*i < len && (s[*i] == ' ' || s[*i] == 'T')) {
        size_t save = *i;
        (*i)++;
        if (*i < len && s[*i] >= '0' && s[*i] <= '9') {
            if (!read_time(s, len, i, &time, &p)) return false;
        } else if (s[save] == 'T') {
            return false;
        }
    }
    if (__builtin_mul_overflow(days, DT_MICROS_PER_DAY, micros) ||
        __builtin_add_overflow(*micros, time, micros))
        return false;
    *precision = p;
    return true;
}

int dt_parse_timestamp(const char *s, size_t len, int64_t *micros, int *precision) {
    trim(&s, &len);
    size_t i = 0;
    int64_t v;
    int p;
    if (!read_timestamp(s, len, &i, &v, &p) || i != len) return -1;
    *micros = v;
    *precision = p;
    return 0;
}

int dt_parse_timestamp_tz(const char *s, size_t len, int64_t *utc_micros, int32_t *zone,
                          bool *has_zone, int *precision) {
    trim(&s, &len);
    size_t i = 0;
    int64_t local;
    int p;
    if (!read_timestamp(s, len, &i, &local, &p)) return -1;
    while (i < len && is_space(s[i])) i++;
    if (i == len) {
        *utc_micros = local;
        *zone = TZ_UTC;
        *has_zone = false;
        *precision = p;
        return 0;
    }
    int32_t key;
    if (tz_lookup(s + i, len - i, &key) != 0) return -1;
    *utc_micros = tz_local_to_utc(key, local);
    *zone = key;
    *has_zone = true;
    *precision = p;
    return 0;
}

/* --- Formatting -------------------------------------------------------------------------- */

static char *put_digits(char *p, int64_t v, int width) {
    char tmp[24];
    int n = 0;
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do {
        tmp[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    while (n < width) tmp[n++] = '0';
    while (n) *p++ = tmp[--n];
    return p;
}

/* Year as Java's LocalDate prints it: 4 digits, a sign below 0 and a '+' above 9999. */
static char *put_date(char *p, int64_t days) {
    int64_t y;
    int32_t m, d;
    civil_from_days64(days, &y, &m, &d);
    if (y < 0) *p++ = '-';
    if (y > 9999) *p++ = '+';
    p = put_digits(p, y, 4);
    *p++ = '-';
    p = put_digits(p, m, 2);
    *p++ = '-';
    return put_digits(p, d, 2);
}

static char *put_time(char *p, int64_t micros, int precision) {
    int64_t secs = micros / DT_MICROS_PER_SECOND, frac = micros % DT_MICROS_PER_SECOND;
    p = put_digits(p, secs / 3600, 2);
    *p++ = ':';
    p = put_digits(p, secs / 60 % 60, 2);
    *p++ = ':';
    p = put_digits(p, secs % 60, 2);
    if (precision > 0) {
        if (precision > 6) precision = 6;
        char f[8];
        put_digits(f, frac, 6);
        *p++ = '.';
        memcpy(p, f, (size_t)precision);
        p += precision;
    }
    return p;
}

int dt_format_date(int32_t days, char *buf) {
    char *p = put_date(buf, days);
    *p = '\0';
    return (int)(p - buf);
}

int dt_format_time(int64_t micros, int precision, char *buf) {
    char *p = put_time(buf, dt_floor_mod(micros, DT_MICROS_PER_DAY), precision);
    *p = '\0';
    return (int)(p - buf);
}

int dt_format_timestamp(int64_t micros, int precision, char *buf) {
    int64_t days = dt_floor_div(micros, DT_MICROS_PER_DAY);
    char *p = put_date(buf, days);
    *p++ = ' ';
    p = put_time(p, micros - days * DT_MICROS_PER_DAY, precision);
    *p = '\0';
    return (int)(p - buf);
}

int dt_format_timestamp_tz(int64_t utc_micros, int32_t zone, int precision, char *buf) {
    int n = dt_format_timestamp(tz_utc_to_local(zone, utc_micros), precision, buf);
    const char *name = tz_name(zone);
    size_t name_len = strlen(name);
    if (name_len > 200) name_len = 200;
    buf[n++] = ' ';
    memcpy(buf + n, name, name_len);
    n += (int)name_len;
    buf[n] = '\0';
    return n;
}

int dt_format_interval_ds(int64_t micros, char *buf) {
    char *p = buf;
    uint64_t u = micros < 0 ? (uint64_t)0 - (uint64_t)micros : (uint64_t)micros;
    if (micros < 0) *p++ = '-';
    uint64_t millis = u / 1000;
    uint64_t day = millis / 86400000;
    millis %= 86400000;
    p = put_digits(p, (int64_t)day, 1);
    *p++ = ' ';
    p = put_digits(p, (int64_t)(millis / 3600000), 2);
    *p++ = ':';
    p = put_digits(p, (int64_t)(millis / 60000 % 60), 2);
    *p++ = ':';
    p = put_digits(p, (int64_t)(millis / 1000 % 60), 2);
    *p++ = '.';
    p = put_digits(p, (int64_t)(millis % 1000), 3);
    *p = '\0';
    return (int)(p - buf);
}

int dt_format_interval_ym(int32_t months, char *buf) {
    char *p = buf;
    int64_t m = months;
    if (m < 0) {
        *p++ = '-';
        m = -m;
    }
    p = put_digits(p, m / 12, 1);
    *p++ = '-';
    p = put_digits(p, m % 12, 1);
    *p = '\0';
    return (int)(p - buf);
}

/* --- Interval literals ------------------------------------------------------------------- */

enum { U_YEAR, U_MONTH, U_DAY, U_HOUR, U_MINUTE, U_SECOND, U_BAD };

static int unit_of(const char *u) {
    static const char *const names[] = {"YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "SECOND"};
    if (!u) return U_BAD;
    for (int i = 0; i < 6; i++)
        if (strcasecmp(u, names[i]) == 0) return i;
    return U_BAD;
}

int dt_parse_interval(const char *text, size_t len, const char *from_unit, const char *to_unit,
                      bool *is_year_month, int64_t *micros, int32_t *months) {
    int from = unit_of(from_unit);
    int to = (to_unit && *to_unit) ? unit_of(to_unit) : from;
    if (from == U_BAD || to == U_BAD || to < from) return -1;
    bool ym = from <= U_MONTH;
    if (ym != (to <= U_MONTH)) return -1;
    if (ym && from == U_MONTH && to != U_MONTH) return -1;
    trim(&text, &len);
    size_t i = 0;
    bool negative = false;
    if (i < len && text[i] == '-') {
        negative = true;
        i++;
    }
    /* Fields from `from` towards `to`, each optional after the first (Trino's ordered period
     * parser accepts every prefix), separated by '-', ' ' or ':'. */
    int64_t values[6] = {0, 0, 0, 0, 0, 0};
    int64_t millis = 0;
    for (int unit = from; unit <= to; unit++) {
        if (unit > from) {
            char sep = unit == U_MONTH ? '-' : unit == U_HOUR ? ' ' : ':';
            if (i == len) break;
            if (text[i] != sep) return -1;
            i++;
        }
        int64_t v;
        if (!read_digits(text, len, &i, 18, &v)) return -1;
        if (v > INT32_MAX) return -2;
        values[unit] = v;
        if (unit == U_SECOND && i < len && text[i] == '.') {
            i++;
            int digits = 0;
            while (i < len && text[i] >= '0' && text[i] <= '9') {
                if (digits < 3) millis = millis * 10 + (text[i] - '0');
                digits++;
                i++;
            }
            if (digits == 0 || digits > 9) return -1;
            for (int k = digits; k < 3; k++) millis *= 10;
        }
    }
    if (i != len) return -1;
    *is_year_month = ym;
    if (ym) {
        int64_t m = values[U_YEAR] * 12 + values[U_MONTH];
        if (m > INT32_MAX) return -2;
        *months = (int32_t)(negative ? -m : m);
        *micros = 0;
        return 0;
    }
    int64_t total = 0;
    static const int64_t unit_millis[6] = {0, 0, 86400000, 3600000, 60000, 1000};
    for (int unit = U_DAY; unit <= U_SECOND; unit++) {
        int64_t part;
        if (__builtin_mul_overflow(values[unit], unit_millis[unit], &part) ||
            __builtin_add_overflow(total, part, &total))
            return -2;
    }
    if (__builtin_add_overflow(total, millis, &total) ||
        __builtin_mul_overflow(total, (int64_t)1000, &total))
        return -2;
    *micros = negative ? -total : total;
    *months = 0;
    return 0;
}
