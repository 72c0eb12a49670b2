/*
 * scalar_datetime.c: the date/time family, core part: current_date/time/timestamp, localtime,
 * localtimestamp, now, current_timezone; date_trunc, date_add, date_diff; the field functions
 * (year ... millisecond, timezone_hour/minute, also on intervals) that EXTRACT maps to;
 * last_day_of_month; unix time conversions; ISO 8601 parsing and printing; at_timezone,
 * with_timezone; date(); to_milliseconds, parse_duration, human_readable_seconds. The family
 * getter joins this table with the formatting part (scalar_datetime_format.c).
 *
 * INTERFACE: func_scalar_family_datetime.
 *
 * NOTES: fields of a timestamp with time zone are those of its local time in its own zone.
 * Arithmetic on timestamp with time zone adds units up to an hour to the UTC instant and day
 * or longer units to the local time (then back to UTC), like Joda's zoned chronology that Trino
 * uses. date_diff counts whole units with Joda's rules: month and year differences compare the
 * remainders within the month/year (with the end-of-month and Feb-29 adjustments).
 * current_timestamp and friends come from ctx->query_start_micros and ctx->session_zone, so they
 * are constant within a query (FUNC_SESSION).
 */
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "func/scalar_kernel.h"
#include "types/datetime.h"
#include "types/tz.h"

#define KERNEL(name)                                                                               \
    static int name(func_ctx *ctx, const vec *const *args, uint32_t n_args, const uint32_t *sel,   \
                    uint32_t count, vec *out)
#define SDATA(s) sqe_str_data(s)
#define DAY DT_MICROS_PER_DAY
#define HOUR_US INT64_C(3600000000)
#define MINUTE_US INT64_C(60000000)
#define SECOND_US INT64_C(1000000)
#define MILLI_US INT64_C(1000)

static int ret_arg1(const sqe_type *args, uint32_t n, sqe_type *ret, sqe_error *err) {
    *ret = args[1];
    return SQE_OK;
}
static int ret_arg2(const sqe_type *args, uint32_t n, sqe_type *ret, sqe_error *err) {
    *ret = args[2];
    return SQE_OK;
}
static int ret_tstz_of_arg0(const sqe_type *args, uint32_t n, sqe_type *ret, sqe_error *err) {
    *ret = type_with_precision(TYPE_TIMESTAMP_TZ, args[0].precision);
    return SQE_OK;
}

/* Truncates micros to a precision of p fraction digits (floor). */
static int64_t trunc_precision(int64_t micros, int p) {
    if (p >= 6) return micros;
    static const int64_t f[] = {1000000, 100000, 10000, 1000, 100, 10};
    return dt_floor_div(micros, f[p < 0 ? 0 : p]) * f[p < 0 ? 0 : p];
}

/* --- Current time ----------------------------------------------------------------------------- */

KERNEL(current_date_fn) {
    int64_t local = tz_utc_to_local(ctx->session_zone, ctx->query_start_micros);
    int32_t d = (int32_t)dt_floor_div(local, DAY);
    FUNC_FOR_ROWS(sel, count, row) VEC_DATA(out, int32_t)[row] = d;
    return SQE_OK;
}

KERNEL(current_timestamp_fn) {
    sqe_timestamp_tz t = {trunc_precision(ctx->query_start_micros, out->type.precision),
                          ctx->session_zone, 0};
    FUNC_FOR_ROWS(sel, count, row) VEC_DATA(out, sqe_timestamp_tz)[row] = t;
    return SQE_OK;
}

KERNEL(localtimestamp_fn) {
    int64_t local = tz_utc_to_local(ctx->session_zone, ctx->query_start_micros);
    local = trunc_precision(local, out->type.precision);
    FUNC_FOR_ROWS(sel, count, row) VEC_DATA(out, int64_t)[row] = local;
    return SQE_OK;
}

KERNEL(localtime_fn) {
    int64_t local = tz_utc_to_local(ctx->session_zone, ctx->query_start_micros);
    local = trunc_precision(dt_floor_mod(local, DAY), out->type.precision);
    FUNC_FOR_ROWS(sel, count, row) VEC_DATA(out, int64_t)[row] = local;
    return SQE_OK;
}

KERNEL(current_timezone_fn) {
    const char *name = tz_name(ctx->session_zone);
    FUNC_FOR_ROWS(sel, count, row) SQE_TRY(func_out_str(ctx, out, row, name, strlen(name)));
    return SQE_OK;
}

/* --- Units ------------------------------------------------------------------------------------ */

typedef enum dt_unit {
    U_MILLISECOND,
    U_SECOND,
    U_MINUTE,
    U_HOUR,
    U_DAY,
    U_WEEK,
    U_MONTH,
    U_QUARTER,
    U_YEAR,
} dt_unit;

static int parse_unit(const sqe_str *s) {
    static const char *const names[] = {"millisecond", "second", "minute", "hour", "day",
                                        "week", "month", "quarter", "year"};
    char buf[16];
    if (s->len == 0 || s->len >= sizeof buf) return -1;
    const char *p = SDATA(s);
    for (uint32_t i = 0; i < s->len; i++) buf[i] = (char)tolower((unsigned char)p[i]);
    buf[s->len] = '\0';
    for (int i = 0; i < (int)(sizeof names / sizeof names[0]); i++)
        if (strcmp(buf, names[i]) == 0) return i;
    return -1;
}

static const int64_t unit_micros[] = {MILLI_US, SECOND_US, MINUTE_US, HOUR_US, DAY, 7 * DAY};

/* Validates the unit for a type: date takes day..year, time millisecond..hour. */
static int unit_for(func_ctx *ctx, vec *out, uint32_t row, const sqe_str *s, type_id t,
                    int *unit) {
    *unit = parse_unit(s);
    bool ok = *unit >= 0;
    if (ok && t == TYPE_DATE) ok = *unit >= U_DAY;
    if (ok && t == TYPE_TIME) ok = *unit <= U_HOUR;
    if (ok) return SQE_OK;
    *unit = -1;
    const char *tn = t == TYPE_DATE ? "DATE" : t == TYPE_TIME ? "TIME" : "TIMESTAMP";
    return func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                          "'%.*s' is not a valid %s field", (int)(s->len > 40 ? 40 : s->len),
                          SDATA(s), tn);
}

/* Truncates local micros to a unit. */
static int64_t trunc_micros(int64_t m, int unit) {
    if (unit <= U_DAY) return dt_floor_div(m, unit_micros[unit]) * unit_micros[unit];
    int32_t days = (int32_t)dt_floor_div(m, DAY);
    if (unit == U_WEEK) return ((int64_t)days - (dt_day_of_week(days) - 1)) * DAY;
    int32_t y, mo, d;
    dt_civil_from_days(days, &y, &mo, &d);
    if (unit == U_QUARTER) mo = (mo - 1) / 3 * 3 + 1;
    if (unit == U_YEAR) mo = 1;
    return (int64_t)dt_days_from_civil(y, mo, 1) * DAY;
}

/* Truncates a date (days) to a unit of a day or longer. */
static int32_t trunc_days(int32_t days, int unit) {
    if (unit <= U_DAY) return days;
    if (unit == U_WEEK) return days - (dt_day_of_week(days) - 1);
    int32_t y, mo, d;
    dt_civil_from_days(days, &y, &mo, &d);
    if (unit == U_QUARTER) mo = (mo - 1) / 3 * 3 + 1;
    if (unit == U_YEAR) mo = 1;
    return dt_days_from_civil(y, mo, 1);
}

KERNEL(date_trunc_fn) {
    vec_view uu, ux;
    vec_view_init(&uu, args[0]);
    vec_view_init(&ux, args[1]);
    type_id t = (type_id)args[1]->type.id;
    FUNC_FOR_ROWS(sel, count, row) {
        int unit;
        SQE_TRY(unit_for(ctx, out, row, ustr(&uu, row), t, &unit));
        if (unit < 0) continue;
        switch (t) {
        case TYPE_DATE: VEC_DATA(out, int32_t)[row] = trunc_days(UVAL(&ux, int32_t, row), unit); break;
        case TYPE_TIMESTAMP:
        case TYPE_TIME:
            VEC_DATA(out, int64_t)[row] = trunc_micros(UVAL(&ux, int64_t, row), unit);
            break;
        default: {
            sqe_timestamp_tz v = UVAL(&ux, sqe_timestamp_tz, row);
            int64_t local = trunc_micros(tz_utc_to_local(v.zone, v.micros), unit);
            v.micros = unit <= U_MINUTE ? trunc_micros(v.micros, unit)
                                        : tz_local_to_utc(v.zone, local);
            VEC_DATA(out, sqe_timestamp_tz)[row] = v;
            break;
        }
        }
    }
    return SQE_OK;
}

/* Adds n units to local micros m; false on overflow. */
static bool add_units(int64_t m, int unit, int64_t n, int64_t *out) {
    if (unit <= U_WEEK) {
        int64_t d;
        return !__builtin_mul_overflow(n, unit_micros[unit], &d) &&
               !__builtin_add_overflow(m, d, out);
    }
    int64_t months;
    if (__builtin_mul_overflow(n, unit == U_MONTH ? 1 : unit == U_QUARTER ? 3 : 12, &months))
        return false;
    return func_timestamp_add_months(m, months, out);
}

/* Adds n units (day or longer) to a date; false on overflow. */
static bool add_date_units(int32_t days, int unit, int64_t n, int32_t *out) {
    if (unit == U_DAY || unit == U_WEEK) {
        int64_t r;
        if (__builtin_mul_overflow(n, unit == U_WEEK ? 7 : 1, &r) ||
            __builtin_add_overflow(r, (int64_t)days, &r) || r < INT32_MIN || r > INT32_MAX)
            return false;
        *out = (int32_t)r;
        return true;
    }
    int64_t months;
    if (__builtin_mul_overflow(n, unit == U_MONTH ? 1 : unit == U_QUARTER ? 3 : 12, &months))
        return false;
    return func_date_add_months(days, months, out);
}

KERNEL(date_add_fn) {
    vec_view uu, un, ux;
    vec_view_init(&uu, args[0]);
    vec_view_init(&un, args[1]);
    vec_view_init(&ux, args[2]);
    type_id t = (type_id)args[2]->type.id;
    FUNC_FOR_ROWS(sel, count, row) {
        int unit;
        SQE_TRY(unit_for(ctx, out, row, ustr(&uu, row), t, &unit));
        if (unit < 0) continue;
        int64_t n = UVAL(&un, int64_t, row), r;
        bool ok = true;
        switch (t) {
        case TYPE_DATE: {
            int32_t d;
            ok = add_date_units(UVAL(&ux, int32_t, row), unit, n, &d);
            if (ok) VEC_DATA(out, int32_t)[row] = d;
            break;
        }
        case TYPE_TIME: {
            int64_t dm = (int64_t)((__int128)n * unit_micros[unit] % DAY);
            VEC_DATA(out, int64_t)[row] = dt_floor_mod(UVAL(&ux, int64_t, row) + dm, DAY);
            break;
        }
        case TYPE_TIMESTAMP:
            ok = add_units(UVAL(&ux, int64_t, row), unit, n, &r);
            if (ok) VEC_DATA(out, int64_t)[row] = r;
            break;
        default: {
            sqe_timestamp_tz v = UVAL(&ux, sqe_timestamp_tz, row);
            if (unit <= U_HOUR) {
                ok = add_units(v.micros, unit, n, &r);
            } else {
                ok = add_units(tz_utc_to_local(v.zone, v.micros), unit, n, &r);
                if (ok) r = tz_local_to_utc(v.zone, r);
            }
            v.micros = r;
            if (ok) VEC_DATA(out, sqe_timestamp_tz)[row] = v;
            break;
        }
        }
        if (!ok)
            SQE_TRY(func_row_error(ctx, out, row, SQE_ERR_NUMERIC_VALUE_OUT_OF_RANGE,
                                   "date_add result is out of range"));
    }
    return SQE_OK;
}

/* A point in local time split into whole days and the time of day (dates have tod 0), so
 * that dates far outside the range of timestamps still compute. */
typedef struct day_time {
    int64_t days;
    int64_t tod;
} day_time;

static day_time split_micros(int64_t m) {
    return (day_time){dt_floor_div(m, DAY), dt_floor_mod(m, DAY)};
}

static bool dt_less(day_time a, day_time b) {
    return a.days < b.days || (a.days == b.days && a.tod < b.tod);
}

/* Joda's month difference of minuend b and subtrahend a. */
static int64_t month_diff(day_time b, day_time a) {
    if (dt_less(b, a)) return -month_diff(a, b);
    int32_t yb, mb, db, ya, ma, da;
    dt_civil_from_days((int32_t)b.days, &yb, &mb, &db);
    dt_civil_from_days((int32_t)a.days, &ya, &ma, &da);
    int64_t diff = ((int64_t)yb - ya) * 12 + (mb - ma);
    /* the end-of-month rule: Jan 31 -> Feb 29 is a whole month */
    if (db == dt_days_in_month(yb, mb) && da > db) da = db;
    if (db < da || (db == da && b.tod < a.tod)) diff--;
    return diff;
}

/* Joda's year difference (with the Feb 29 balancing of remainders). */
static int64_t year_diff(day_time b, day_time a) {
    if (dt_less(b, a)) return -year_diff(a, b);
    int32_t yb, mb, db, ya, ma, da;
    dt_civil_from_days((int32_t)b.days, &yb, &mb, &db);
    dt_civil_from_days((int32_t)a.days, &ya, &ma, &da);
    int64_t rem_b = b.days - dt_days_from_civil(yb, 1, 1), rem_a = a.days - dt_days_from_civil(ya, 1, 1);
    if (rem_a >= 59 && dt_is_leap_year(ya)) {
        if (!dt_is_leap_year(yb)) rem_a -= 1;
    } else if (rem_b >= 59 && dt_is_leap_year(yb)) {
        if (!dt_is_leap_year(ya)) rem_b -= 1;
    }
    int64_t diff = (int64_t)yb - ya;
    if (rem_b < rem_a || (rem_b == rem_a && b.tod < a.tod)) diff--;
    return diff;
}

static int64_t diff_units(int unit, day_time a, day_time b) {
    switch (unit) {
    case U_MONTH: return month_diff(b, a);
    case U_QUARTER: return month_diff(b, a) / 3;
    case U_YEAR: return year_diff(b, a);
    default: {
        __int128 d = ((__int128)b.days - a.days) * DAY + (b.tod - a.tod);
        return (int64_t)(d / unit_micros[unit]);
    }
    }
}

KERNEL(date_diff_fn) {
    vec_view uu, ua, ub;
    vec_view_init(&uu, args[0]);
    vec_view_init(&ua, args[1]);
    vec_view_init(&ub, args[2]);
    type_id t = (type_id)args[1]->type.id;
    int64_t *r = out->data;
    FUNC_FOR_ROWS(sel, count, row) {
        int unit;
        SQE_TRY(unit_for(ctx, out, row, ustr(&uu, row), t, &unit));
        if (unit < 0) continue;
        day_time a, b;
        switch (t) {
        case TYPE_DATE:
            a = (day_time){UVAL(&ua, int32_t, row), 0};
            b = (day_time){UVAL(&ub, int32_t, row), 0};
            break;
        case TYPE_TIMESTAMP:
        case TYPE_TIME:
            a = split_micros(UVAL(&ua, int64_t, row));
            b = split_micros(UVAL(&ub, int64_t, row));
            break;
        default: {
            sqe_timestamp_tz x = UVAL(&ua, sqe_timestamp_tz, row), y = UVAL(&ub, sqe_timestamp_tz, row);
            if (unit <= U_HOUR) {
                a = split_micros(x.micros);
                b = split_micros(y.micros);
            } else {
                a = split_micros(tz_utc_to_local(x.zone, x.micros));
                b = split_micros(tz_utc_to_local(x.zone, y.micros));
            }
            break;
        }
        }
        r[row] = diff_units(unit, a, b);
    }
    return SQE_OK;
}

/* --- Fields ----------------------------------------------------------------------------------- */

typedef enum dt_field {
    F_YEAR,
    F_QUARTER,
    F_MONTH,
    F_WEEK,
    F_DAY,
    F_DOW,
    F_DOY,
    F_YOW,
    F_HOUR,
    F_MINUTE,
    F_SECOND,
    F_MILLISECOND,
    F_TZ_HOUR,
    F_TZ_MINUTE,
} dt_field;

static int64_t field_of(int32_t days, int64_t tod, int field) {
    switch (field) {
    case F_HOUR: return tod / HOUR_US;
    case F_MINUTE: return tod / MINUTE_US % 60;
    case F_SECOND: return tod / SECOND_US % 60;
    case F_MILLISECOND: return tod / MILLI_US % 1000;
    case F_DOW: return dt_day_of_week(days);
    case F_DOY: return dt_day_of_year(days);
    case F_WEEK:
    case F_YOW: {
        int32_t w, wy;
        dt_iso_week(days, &w, &wy);
        return field == F_WEEK ? w : wy;
    }
    default: {
        int32_t y, mo, d;
        dt_civil_from_days(days, &y, &mo, &d);
        return field == F_YEAR ? y : field == F_MONTH ? mo : field == F_QUARTER ? (mo + 2) / 3 : d;
    }
    }
}

static int64_t field_of_local(int64_t m, int field) {
    return field_of((int32_t)dt_floor_div(m, DAY), dt_floor_mod(m, DAY), field);
}

static int64_t field_of_interval(const vec_view *u, type_id t, uint32_t row, int field) {
    if (t == TYPE_INTERVAL_YM) {
        int32_t months = UVAL(u, int32_t, row);
        return field == F_YEAR ? months / 12 : months % 12;
    }
    int64_t m = UVAL(u, int64_t, row);
    switch (field) {
    case F_DAY: return m / DAY;
    case F_HOUR: return m / HOUR_US % 24;
    case F_MINUTE: return m / MINUTE_US % 60;
    case F_SECOND: return m / SECOND_US % 60;
    default: return m / MILLI_US % 1000;
    }
}

static int extract(func_ctx *ctx, const vec *const *args, const uint32_t *sel, uint32_t count,
                   vec *out, int field) {
    vec_view u;
    vec_view_init(&u, args[0]);
    type_id t = (type_id)args[0]->type.id;
    int64_t *r = out->data;
    FUNC_FOR_ROWS(sel, count, row) {
        switch (t) {
        case TYPE_DATE: r[row] = field_of(UVAL(&u, int32_t, row), 0, field); break;
        case TYPE_TIMESTAMP:
        case TYPE_TIME: r[row] = field_of_local(UVAL(&u, int64_t, row), field); break;
        case TYPE_TIMESTAMP_TZ: {
            sqe_timestamp_tz v = UVAL(&u, sqe_timestamp_tz, row);
            if (field == F_TZ_HOUR || field == F_TZ_MINUTE) {
                int32_t off = tz_offset_at_utc(v.zone, v.micros);
                r[row] = field == F_TZ_HOUR ? off / 3600 : off / 60 % 60;
            } else {
                r[row] = field_of_local(tz_utc_to_local(v.zone, v.micros), field);
            }
            break;
        }
        default: r[row] = field_of_interval(&u, t, row, field); break;
        }
    }
    return SQE_OK;
}

#define FIELD_KERNEL(name, field)                                                                  \
    KERNEL(name) { return extract(ctx, args, sel, count, out, field); }
FIELD_KERNEL(year_fn, F_YEAR)
FIELD_KERNEL(quarter_fn, F_QUARTER)
FIELD_KERNEL(month_fn, F_MONTH)
FIELD_KERNEL(week_fn, F_WEEK)
FIELD_KERNEL(day_fn, F_DAY)
FIELD_KERNEL(dow_fn, F_DOW)
FIELD_KERNEL(doy_fn, F_DOY)
FIELD_KERNEL(yow_fn, F_YOW)
FIELD_KERNEL(hour_fn, F_HOUR)
FIELD_KERNEL(minute_fn, F_MINUTE)
FIELD_KERNEL(second_fn, F_SECOND)
FIELD_KERNEL(millisecond_fn, F_MILLISECOND)
FIELD_KERNEL(tz_hour_fn, F_TZ_HOUR)
FIELD_KERNEL(tz_minute_fn, F_TZ_MINUTE)

KERNEL(last_day_of_month_fn) {
    vec_view u;
    vec_view_init(&u, args[0]);
    type_id t = (type_id)args[0]->type.id;
    FUNC_FOR_ROWS(sel, count, row) {
        int32_t days;
        if (t == TYPE_DATE) {
            days = UVAL(&u, int32_t, row);
        } else if (t == TYPE_TIMESTAMP) {
            days = (int32_t)dt_floor_div(UVAL(&u, int64_t, row), DAY);
        } else {
            sqe_timestamp_tz v = UVAL(&u, sqe_timestamp_tz, row);
            days = (int32_t)dt_floor_div(tz_utc_to_local(v.zone, v.micros), DAY);
        }
        int32_t y, mo, d;
        dt_civil_from_days(days, &y, &mo, &d);
        VEC_DATA(out, int32_t)[row] = dt_days_from_civil(y, mo, dt_days_in_month(y, mo));
    }
    return SQE_OK;
}

/* --- Unix time -------------------------------------------------------------------------------- */

static bool seconds_to_micros(double s, int64_t *out) {
    double ms = round(s * 1000.0);
    if (!(ms > -9.2e15 && ms < 9.2e15)) return false;
    *out = (int64_t)ms * 1000;
    return true;
}

static int zone_arg(func_ctx *ctx, vec *out, uint32_t row, const sqe_str *z, int32_t *key) {
    if (tz_lookup(SDATA(z), z->len, key) == 0) return SQE_OK;
    *key = -1;
    return func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                          "'%.*s' is not a valid time zone", (int)(z->len > 64 ? 64 : z->len),
                          SDATA(z));
}

KERNEL(from_unixtime_fn) {
    vec_view ux, uz = {0}, um = {0};
    vec_view_init(&ux, args[0]);
    if (n_args > 1) vec_view_init(&uz, args[1]);
    if (n_args > 2) vec_view_init(&um, args[2]);
    FUNC_FOR_ROWS(sel, count, row) {
        int32_t zone = ctx->session_zone;
        if (n_args == 2) {
            SQE_TRY(zone_arg(ctx, out, row, ustr(&uz, row), &zone));
            if (zone < 0) continue;
        } else if (n_args == 3) {
            int64_t h = UVAL(&uz, int64_t, row), m = UVAL(&um, int64_t, row);
            int64_t total = h * 60 + (h < 0 ? -llabs(m) : m);
            if (h < -14 || h > 14 || m < -59 || m > 59 || total < -14 * 60 || total > 14 * 60) {
                SQE_TRY(func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                                       "Invalid offset minutes %" PRId64, total));
                continue;
            }
            zone = tz_key_for_offset((int)total);
        }
        int64_t micros;
        if (!seconds_to_micros(UVAL(&ux, double, row), &micros)) {
            SQE_TRY(func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                                   "unixtime is out of range"));
            continue;
        }
        VEC_DATA(out, sqe_timestamp_tz)[row] = (sqe_timestamp_tz){micros, zone, 0};
    }
    return SQE_OK;
}

KERNEL(from_unixtime_nanos_fn) {
    vec_view ux;
    vec_view_init(&ux, args[0]);
    FUNC_FOR_ROWS(sel, count, row) {
        int64_t ns = UVAL(&ux, int64_t, row);
        VEC_DATA(out, sqe_timestamp_tz)[row] =
            (sqe_timestamp_tz){dt_floor_div(ns, 1000), ctx->session_zone, 0};
    }
    return SQE_OK;
}

KERNEL(to_unixtime_fn) {
    vec_view ux;
    vec_view_init(&ux, args[0]);
    FUNC_FOR_ROWS(sel, count, row)
    VEC_DATA(out, double)[row] = (double)UVAL(&ux, sqe_timestamp_tz, row).micros / 1e6;
    return SQE_OK;
}

KERNEL(to_milliseconds_fn) {
    vec_view ux;
    vec_view_init(&ux, args[0]);
    FUNC_FOR_ROWS(sel, count, row) VEC_DATA(out, int64_t)[row] = UVAL(&ux, int64_t, row) / 1000;
    return SQE_OK;
}

/* --- Zones ------------------------------------------------------------------------------------- */

KERNEL(at_timezone_fn) {
    vec_view ux, uz;
    vec_view_init(&ux, args[0]);
    vec_view_init(&uz, args[1]);
    FUNC_FOR_ROWS(sel, count, row) {
        int32_t zone;
        SQE_TRY(zone_arg(ctx, out, row, ustr(&uz, row), &zone));
        if (zone < 0) continue;
        sqe_timestamp_tz v = UVAL(&ux, sqe_timestamp_tz, row);
        v.zone = zone;
        VEC_DATA(out, sqe_timestamp_tz)[row] = v;
    }
    return SQE_OK;
}

KERNEL(with_timezone_fn) {
    vec_view ux, uz;
    vec_view_init(&ux, args[0]);
    vec_view_init(&uz, args[1]);
    FUNC_FOR_ROWS(sel, count, row) {
        int32_t zone;
        SQE_TRY(zone_arg(ctx, out, row, ustr(&uz, row), &zone));
        if (zone < 0) continue;
        int64_t local = UVAL(&ux, int64_t, row);
        VEC_DATA(out, sqe_timestamp_tz)[row] =
            (sqe_timestamp_tz){tz_local_to_utc(zone, local), zone, 0};
    }
    return SQE_OK;
}

/* --- date() ------------------------------------------------------------------------------------ */

KERNEL(date_fn) {
    vec_view u;
    vec_view_init(&u, args[0]);
    type_id t = (type_id)args[0]->type.id;
    FUNC_FOR_ROWS(sel, count, row) {
        int32_t d;
        switch (t) {
        case TYPE_DATE: d = UVAL(&u, int32_t, row); break;
        case TYPE_TIMESTAMP: d = (int32_t)dt_floor_div(UVAL(&u, int64_t, row), DAY); break;
        case TYPE_TIMESTAMP_TZ: {
            sqe_timestamp_tz v = UVAL(&u, sqe_timestamp_tz, row);
            d = (int32_t)dt_floor_div(tz_utc_to_local(v.zone, v.micros), DAY);
            break;
        }
        default: {
            const sqe_str *s = ustr(&u, row);
            if (dt_parse_date(SDATA(s), s->len, &d) != 0) {
                SQE_TRY(func_row_error(ctx, out, row, SQE_ERR_INVALID_CAST_ARGUMENT,
                                       "Value cannot be cast to date: %.*s",
                                       (int)(s->len > 64 ? 64 : s->len), SDATA(s)));
                continue;
            }
            break;
        }
        }
        VEC_DATA(out, int32_t)[row] = d;
    }
    return SQE_OK;
}

/* --- ISO 8601 --------------------------------------------------------------------------------- */

/* Parses ISO 8601 date forms: YYYY-MM-DD, YYYY-DDD (ordinal), YYYY-Www[-D] (week date),
 * YYYY-MM, YYYY. */
static bool parse_iso_date(const char *s, size_t n, int32_t *days) {
    while (n && s[n - 1] == ' ') n--;
    while (n && *s == ' ') s++, n--;
    if (dt_parse_date(s, n, days) == 0) return true;
    if (n < 4) return false;
    for (int i = 0; i < 4; i++)
        if (!isdigit((unsigned char)s[i])) return false;
    int32_t y = atoi((char[]){s[0], s[1], s[2], s[3], 0});
    if (n == 4) {
        *days = dt_days_from_civil(y, 1, 1);
        return true;
    }
    if (s[4] != '-') return false;
    const char *r = s + 5;
    size_t rn = n - 5;
    bool digits = true;
    for (size_t i = 0; i < rn; i++) digits &= isdigit((unsigned char)r[i]) != 0;
    if (digits && rn == 3) {
        int doy = atoi((char[]){r[0], r[1], r[2], 0});
        if (doy < 1 || doy > (dt_is_leap_year(y) ? 366 : 365)) return false;
        *days = dt_days_from_civil(y, 1, 1) + doy - 1;
        return true;
    }
    if (digits && rn == 2) {
        int m = atoi((char[]){r[0], r[1], 0});
        if (m < 1 || m > 12) return false;
        *days = dt_days_from_civil(y, m, 1);
        return true;
    }
    if (rn >= 3 && r[0] == 'W' && isdigit((unsigned char)r[1]) && isdigit((unsigned char)r[2])) {
        int w = (r[1] - '0') * 10 + (r[2] - '0'), dow = 1;
        if (rn == 5 && r[3] == '-' && r[4] >= '1' && r[4] <= '7') dow = r[4] - '0';
        else if (rn != 3) return false;
        /* ISO week 1 contains January 4th */
        int32_t jan4 = dt_days_from_civil(y, 1, 4);
        int32_t week1 = jan4 - (dt_day_of_week(jan4) - 1);
        int32_t ww, wy;
        *days = week1 + (w - 1) * 7 + (dow - 1);
        dt_iso_week(*days, &ww, &wy);
        return w >= 1 && ww == w && wy == y;
    }
    return false;
}

KERNEL(from_iso8601_date_fn) {
    vec_view u;
    vec_view_init(&u, args[0]);
    FUNC_FOR_ROWS(sel, count, row) {
        const sqe_str *s = ustr(&u, row);
        int32_t d;
        if (!parse_iso_date(SDATA(s), s->len, &d)) {
            SQE_TRY(func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                                   "Invalid format: \"%.*s\"", (int)(s->len > 64 ? 64 : s->len),
                                   SDATA(s)));
            continue;
        }
        VEC_DATA(out, int32_t)[row] = d;
    }
    return SQE_OK;
}

KERNEL(from_iso8601_timestamp_fn) {
    vec_view u;
    vec_view_init(&u, args[0]);
    FUNC_FOR_ROWS(sel, count, row) {
        const sqe_str *s = ustr(&u, row);
        const char *p = SDATA(s);
        size_t n = s->len;
        int64_t utc;
        int32_t zone;
        bool has_zone;
        int prec;
        int32_t days;
        bool ok = dt_parse_timestamp_tz(p, n, &utc, &zone, &has_zone, &prec) == 0;
        if (!ok && parse_iso_date(p, n, &days) && func_date_fits_timestamp(days)) {
            ok = true;
            has_zone = false;
            utc = (int64_t)days * DAY;
        }
        if (!ok && n > 11 && n < 64 && p[10] == 'T') {
            /* "2020-05-11T11" (hour only): complete the minutes */
            char buf[80];
            size_t h = 13;
            if (n >= h && isdigit((unsigned char)p[11]) && isdigit((unsigned char)p[12])) {
                memcpy(buf, p, h);
                memcpy(buf + h, ":00", 3);
                memcpy(buf + h + 3, p + h, n - h);
                ok = dt_parse_timestamp_tz(buf, n + 3, &utc, &zone, &has_zone, &prec) == 0;
            }
        }
        if (!ok) {
            SQE_TRY(func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                                   "Invalid format: \"%.*s\"", (int)(n > 64 ? 64 : n), p));
            continue;
        }
        if (!has_zone) {
            zone = ctx->session_zone;
            utc = tz_local_to_utc(zone, utc); /* the parsed value was local time */
        }
        VEC_DATA(out, sqe_timestamp_tz)[row] =
            (sqe_timestamp_tz){trunc_precision(utc, out->type.precision), zone, 0};
    }
    return SQE_OK;
}

/* Appends "+hh:mm" / "Z" for an offset in seconds. */
static size_t format_offset(int32_t off, char *buf) {
    if (off == 0) {
        buf[0] = 'Z';
        return 1;
    }
    char sign = off < 0 ? '-' : '+';
    if (off < 0) off = -off;
    return (size_t)sprintf(buf, "%c%02d:%02d", sign, off / 3600, off / 60 % 60);
}

KERNEL(to_iso8601_fn) {
    vec_view u;
    vec_view_init(&u, args[0]);
    type_id t = (type_id)args[0]->type.id;
    int prec = args[0]->type.precision;
    FUNC_FOR_ROWS(sel, count, row) {
        char buf[128];
        size_t n;
        if (t == TYPE_DATE) {
            n = (size_t)dt_format_date(UVAL(&u, int32_t, row), buf);
        } else {
            int64_t local;
            int32_t off = 0;
            if (t == TYPE_TIMESTAMP) {
                local = UVAL(&u, int64_t, row);
            } else {
                sqe_timestamp_tz v = UVAL(&u, sqe_timestamp_tz, row);
                off = tz_offset_at_utc(v.zone, v.micros);
                local = v.micros + (int64_t)off * SECOND_US;
            }
            n = (size_t)dt_format_timestamp(local, prec, buf);
            char *sp = memchr(buf, ' ', n);
            if (sp) *sp = 'T';
            if (t == TYPE_TIMESTAMP_TZ) n += format_offset(off, buf + n);
        }
        SQE_TRY(func_out_str(ctx, out, row, buf, n));
    }
    return SQE_OK;
}

/* --- Durations -------------------------------------------------------------------------------- */

KERNEL(human_readable_seconds_fn) {
    vec_view u;
    vec_view_init(&u, args[0]);
    FUNC_FOR_ROWS(sel, count, row) {
        double x = UVAL(&u, double, row);
        if (isnan(x) || isinf(x)) {
            SQE_TRY(func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                                   "Invalid argument found: %s", isnan(x) ? "NaN" : "Infinity"));
            continue;
        }
        double ax = fabs(x);
        int64_t secs = ax >= 9.2e18 ? INT64_MAX : (int64_t)llround(ax);
        static const struct {
            int64_t len;
            const char *name;
        } units[] = {{604800, "week"}, {86400, "day"}, {3600, "hour"}, {60, "minute"}, {1, "second"}};
        char buf[256];
        size_t n = 0;
        for (int i = 0; i < 5; i++) {
            int64_t v = secs / units[i].len;
            secs %= units[i].len;
            if (v == 0) continue;
            n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%" PRId64 " %s%s", n ? ", " : "", v,
                                  units[i].name, v == 1 ? "" : "s");
        }
        if (n == 0) n = (size_t)snprintf(buf, sizeof buf, "0 seconds");
        SQE_TRY(func_out_str(ctx, out, row, buf, n));
    }
    return SQE_OK;
}

/* parse_duration('3.81 d'): a number and a unit (ns us ms s m h d). */
KERNEL(parse_duration_fn) {
    vec_view u;
    vec_view_init(&u, args[0]);
    FUNC_FOR_ROWS(sel, count, row) {
        const sqe_str *s = ustr(&u, row);
        char buf[64];
        size_t n = s->len < sizeof buf - 1 ? s->len : sizeof buf - 1;
        memcpy(buf, SDATA(s), n);
        buf[n] = '\0';
        char *end;
        double v = strtod(buf, &end);
        while (*end == ' ') end++;
        static const struct {
            const char *u;
            double micros;
        } units[] = {{"ns", 1e-3}, {"us", 1}, {"ms", 1e3}, {"s", 1e6}, {"m", 6e7}, {"h", 3.6e9},
                     {"d", 8.64e10}};
        double mult = -1;
        for (int i = 0; i < 7; i++)
            if (strcmp(end, units[i].u) == 0) mult = units[i].micros;
        double micros = v * mult;
        if (end == buf || mult < 0 || s->len >= sizeof buf || !(v >= 0) ||
            !(micros < 9.2e18)) {
            SQE_TRY(func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                                   "duration is not a valid data duration string: %.*s",
                                   (int)(s->len > 64 ? 64 : s->len), SDATA(s)));
            continue;
        }
        VEC_DATA(out, int64_t)[row] = (int64_t)llround(micros / 1000.0) * 1000;
    }
    return SQE_OK;
}

/* --- The table ------------------------------------------------------------------------------ */

#define NP FUNC_NULL_PROPAGATES
#define TS "timestamp"
#define TSTZ "timestamp with time zone"
#define IDS "interval day to second"
#define IYM "interval year to month"
#define FIELD(name, kernel, desc)                                                                  \
    {name, "date", "bigint", NULL, NULL, kernel, NP, desc},                                       \
    {name, TS, "bigint", NULL, NULL, kernel, NP, desc},                                           \
    {name, TSTZ, "bigint", NULL, NULL, kernel, NP, desc}
#define TIME_FIELD(name, kernel, desc)                                                             \
    {name, TS, "bigint", NULL, NULL, kernel, NP, desc},                                           \
    {name, TSTZ, "bigint", NULL, NULL, kernel, NP, desc},                                         \
    {name, "time", "bigint", NULL, NULL, kernel, NP, desc},                                       \
    {name, IDS, "bigint", NULL, NULL, kernel, NP, desc}

static const func_scalar_def datetime_defs[] = {
    {"current_date", "", "date", NULL, NULL, current_date_fn, FUNC_SESSION,
     "the date in the session time zone when the query started"},
    {"current_timestamp", "", "timestamp(3) with time zone", NULL, NULL, current_timestamp_fn,
     FUNC_SESSION, "the time the query started"},
    {"now", "", "timestamp(3) with time zone", NULL, NULL, current_timestamp_fn, FUNC_SESSION,
     "the time the query started"},
    {"current_time", "", "time(3)", NULL, NULL, localtime_fn, FUNC_SESSION,
     "the time of day the query started (session time zone)"},
    {"localtime", "", "time(3)", NULL, NULL, localtime_fn, FUNC_SESSION,
     "the time of day the query started (session time zone)"},
    {"localtimestamp", "", "timestamp(3)", NULL, NULL, localtimestamp_fn, FUNC_SESSION,
     "the local time the query started (session time zone)"},
    {"current_timezone", "", "varchar", NULL, NULL, current_timezone_fn, FUNC_SESSION,
     "the session time zone"},

    {"date_trunc", "varchar,date", "date", NULL, NULL, date_trunc_fn, NP,
     "date truncated to a unit"},
    {"date_trunc", "varchar," TS, "?", ret_arg1, NULL, date_trunc_fn, NP,
     "timestamp truncated to a unit"},
    {"date_trunc", "varchar," TSTZ, "?", ret_arg1, NULL, date_trunc_fn, NP,
     "timestamp truncated to a unit in its time zone"},
    {"date_trunc", "varchar,time", "?", ret_arg1, NULL, date_trunc_fn, NP,
     "time truncated to a unit"},
    {"date_add", "varchar,bigint,date", "date", NULL, NULL, date_add_fn, NP,
     "adds a number of units"},
    {"date_add", "varchar,bigint," TS, "?", ret_arg2, NULL, date_add_fn, NP,
     "adds a number of units"},
    {"date_add", "varchar,bigint," TSTZ, "?", ret_arg2, NULL, date_add_fn, NP,
     "adds a number of units"},
    {"date_add", "varchar,bigint,time", "?", ret_arg2, NULL, date_add_fn, NP,
     "adds a number of units"},
    {"date_diff", "varchar,date,date", "bigint", NULL, NULL, date_diff_fn, NP,
     "whole units from the first to the second value"},
    {"date_diff", "varchar," TS "," TS, "bigint", NULL, NULL, date_diff_fn, NP,
     "whole units from the first to the second value"},
    {"date_diff", "varchar," TSTZ "," TSTZ, "bigint", NULL, NULL, date_diff_fn, NP,
     "whole units from the first to the second value"},
    {"date_diff", "varchar,time,time", "bigint", NULL, NULL, date_diff_fn, NP,
     "whole units from the first to the second value"},

    FIELD("year", year_fn, "year"),
    {"year", IYM, "bigint", NULL, NULL, year_fn, NP, "years of an interval"},
    FIELD("quarter", quarter_fn, "quarter of the year (1-4)"),
    FIELD("month", month_fn, "month of the year (1-12)"),
    {"month", IYM, "bigint", NULL, NULL, month_fn, NP, "months of an interval"},
    FIELD("week", week_fn, "ISO week of the year"),
    FIELD("week_of_year", week_fn, "ISO week of the year"),
    FIELD("day", day_fn, "day of the month"),
    {"day", IDS, "bigint", NULL, NULL, day_fn, NP, "days of an interval"},
    FIELD("day_of_month", day_fn, "day of the month"),
    FIELD("day_of_week", dow_fn, "ISO day of the week (Monday = 1)"),
    FIELD("dow", dow_fn, "ISO day of the week (Monday = 1)"),
    FIELD("day_of_year", doy_fn, "day of the year"),
    FIELD("doy", doy_fn, "day of the year"),
    FIELD("year_of_week", yow_fn, "year of the ISO week"),
    FIELD("yow", yow_fn, "year of the ISO week"),
    TIME_FIELD("hour", hour_fn, "hour of the day"),
    TIME_FIELD("minute", minute_fn, "minute of the hour"),
    TIME_FIELD("second", second_fn, "second of the minute"),
    TIME_FIELD("millisecond", millisecond_fn, "millisecond of the second"),
    {"timezone_hour", TSTZ, "bigint", NULL, NULL, tz_hour_fn, NP, "hours of the zone offset"},
    {"timezone_minute", TSTZ, "bigint", NULL, NULL, tz_minute_fn, NP,
     "minutes of the zone offset"},
    {"last_day_of_month", "date", "date", NULL, NULL, last_day_of_month_fn, NP,
     "last day of the month"},
    {"last_day_of_month", TS, "date", NULL, NULL, last_day_of_month_fn, NP,
     "last day of the month"},
    {"last_day_of_month", TSTZ, "date", NULL, NULL, last_day_of_month_fn, NP,
     "last day of the month"},

    {"from_unixtime", "double", "timestamp(3) with time zone", NULL, NULL, from_unixtime_fn, NP | FUNC_SESSION,
     "timestamp of a unix time (seconds) in the session time zone"},
    {"from_unixtime", "double,varchar", "timestamp(3) with time zone", NULL, NULL,
     from_unixtime_fn, NP | FUNC_SESSION, "timestamp of a unix time in a time zone"},
    {"from_unixtime", "double,bigint,bigint", "timestamp(3) with time zone", NULL, NULL,
     from_unixtime_fn, NP | FUNC_SESSION, "timestamp of a unix time at an offset of hours and minutes"},
    {"from_unixtime_nanos", "bigint", "timestamp(6) with time zone", NULL, NULL,
     from_unixtime_nanos_fn, NP | FUNC_SESSION, "timestamp of a unix time in nanoseconds"},
    {"to_unixtime", TSTZ, "double", NULL, NULL, to_unixtime_fn, NP, "unix time in seconds"},
    {"to_milliseconds", IDS, "bigint", NULL, NULL, to_milliseconds_fn, NP,
     "interval in milliseconds"},
    {"at_timezone", TSTZ ",varchar", "?", func_ret_same_as_arg0, NULL, at_timezone_fn, NP,
     "the same instant in another time zone"},
    {"with_timezone", TS ",varchar", "?", ret_tstz_of_arg0, NULL, with_timezone_fn, NP,
     "a local timestamp interpreted in a time zone"},
    {"date", "varchar", "date", NULL, NULL, date_fn, NP, "CAST(x AS date)"},
    {"date", "date", "date", NULL, NULL, date_fn, NP, "CAST(x AS date)"},
    {"date", TS, "date", NULL, NULL, date_fn, NP, "CAST(x AS date)"},
    {"date", TSTZ, "date", NULL, NULL, date_fn, NP, "CAST(x AS date)"},
    {"from_iso8601_date", "varchar", "date", NULL, NULL, from_iso8601_date_fn, NP,
     "parses an ISO 8601 date"},
    {"from_iso8601_timestamp", "varchar", "timestamp(3) with time zone", NULL, NULL,
     from_iso8601_timestamp_fn, NP | FUNC_SESSION, "parses an ISO 8601 timestamp"},
    {"from_iso8601_timestamp_nanos", "varchar", "timestamp(6) with time zone", NULL, NULL,
     from_iso8601_timestamp_fn, NP | FUNC_SESSION, "parses an ISO 8601 timestamp (microsecond precision)"},
    {"to_iso8601", "date", "varchar", NULL, NULL, to_iso8601_fn, NP, "ISO 8601 text"},
    {"to_iso8601", TS, "varchar", NULL, NULL, to_iso8601_fn, NP, "ISO 8601 text"},
    {"to_iso8601", TSTZ, "varchar", NULL, NULL, to_iso8601_fn, NP, "ISO 8601 text"},
    {"human_readable_seconds", "double", "varchar", NULL, NULL, human_readable_seconds_fn, NP,
     "seconds as weeks, days, hours, minutes and seconds"},
    {"parse_duration", "varchar", IDS, NULL, NULL, parse_duration_fn, NP,
     "interval of a duration string such as '3.5 h'"},
};

static func_scalar_def *g_all;
static uint32_t g_n_all;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void join_parts(void) {
    func_def_part parts[2] = {{datetime_defs, FUNC_N(datetime_defs)}, {NULL, 0}};
    parts[1].defs = func_datetime_format_defs(&parts[1].count);
    g_all = func_defs_join(parts, 2, &g_n_all);
}

const func_scalar_def *func_scalar_family_datetime(uint32_t *count) {
    pthread_once(&g_once, join_parts);
    *count = g_n_all;
    return g_all;
}
