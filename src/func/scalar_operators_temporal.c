/*
 * scalar_operators_temporal.c: arithmetic on dates, times, timestamps and intervals:
 * date/time/timestamp +- interval, interval +- interval, differences of two points in time,
 * interval * number, interval / number and interval negation.
 *
 * INTERFACE: func_op_<name> for each name in FUNC_TEMPORAL_KERNELS (scalar_kernel.h).
 *
 * NOTES: follows Trino: a date plus a day-to-second interval must be whole days ("Cannot add
 * hour, minutes or seconds to a date"); adding months clamps the day to the month's length;
 * timestamp with time zone adds day-to-second intervals to the UTC instant and year-to-month
 * intervals to the local wall time in the value's zone; time wraps around midnight. Overflow of
 * the int64/int32 representation is NUMERIC_VALUE_OUT_OF_RANGE.
 */
#include <math.h>

#include "func/scalar_kernel.h"
#include "types/datetime.h"
#include "types/tz.h"

#define ROW_ERROR(code, ...)                                                                       \
    {                                                                                              \
        SQE_TRY(func_row_error(ctx, out, row, code, __VA_ARGS__));                                 \
        continue;                                                                                  \
    }
#define OVERFLOW(what) ROW_ERROR(SQE_ERR_NUMERIC_VALUE_OUT_OF_RANGE, "%s overflow", what)

/* Defines func_op_<name>(a: TA, b: TB) -> TR; the body computes `res` from a and b. */
#define BINARY(name, TA, TB, TR, ...)                                                              \
    int func_op_##name(func_ctx *ctx, const vec *const *args, uint32_t n_args,                     \
                       const uint32_t *sel, uint32_t count, vec *out) {                            \
        vec_view ua, ub;                                                                           \
        vec_view_init(&ua, args[0]);                                                               \
        vec_view_init(&ub, args[1]);                                                               \
        TR *r = out->data;                                                                         \
        FUNC_FOR_ROWS(sel, count, row) {                                                           \
            TA a = UVAL(&ua, TA, row);                                                             \
            TB b = UVAL(&ub, TB, row);                                                             \
            TR res;                                                                                \
            __VA_ARGS__;                                                                           \
            r[row] = res;                                                                          \
        }                                                                                          \
        return SQE_OK;                                                                             \
    }

#define UNARY(name, TA, TR, ...)                                                                   \
    int func_op_##name(func_ctx *ctx, const vec *const *args, uint32_t n_args,                     \
                       const uint32_t *sel, uint32_t count, vec *out) {                            \
        vec_view ua;                                                                               \
        vec_view_init(&ua, args[0]);                                                               \
        TR *r = out->data;                                                                         \
        FUNC_FOR_ROWS(sel, count, row) {                                                           \
            TA a = UVAL(&ua, TA, row);                                                             \
            TR res;                                                                                \
            __VA_ARGS__;                                                                           \
            r[row] = res;                                                                          \
        }                                                                                          \
        return SQE_OK;                                                                             \
    }

#define DAY DT_MICROS_PER_DAY
#define NO_TIME_ADD "Cannot add hour, minutes or seconds to a date"
#define NO_TIME_SUB "Cannot subtract hour, minutes or seconds from a date"

static bool days_fit(int64_t d) { return d >= INT32_MIN && d <= INT32_MAX; }

/* date +- interval */
BINARY(date_plus_ids, int32_t, int64_t, int32_t,
       if (b % DAY != 0) ROW_ERROR(SQE_ERR_INVALID_FUNCTION_ARGUMENT, NO_TIME_ADD);
       int64_t d = (int64_t)a + b / DAY; if (!days_fit(d)) OVERFLOW("date addition");
       res = (int32_t)d)
BINARY(ids_plus_date, int64_t, int32_t, int32_t,
       if (a % DAY != 0) ROW_ERROR(SQE_ERR_INVALID_FUNCTION_ARGUMENT, NO_TIME_ADD);
       int64_t d = (int64_t)b + a / DAY; if (!days_fit(d)) OVERFLOW("date addition");
       res = (int32_t)d)
BINARY(date_minus_ids, int32_t, int64_t, int32_t,
       if (b % DAY != 0) ROW_ERROR(SQE_ERR_INVALID_FUNCTION_ARGUMENT, NO_TIME_SUB);
       int64_t d = (int64_t)a - b / DAY; if (!days_fit(d)) OVERFLOW("date subtraction");
       res = (int32_t)d)
BINARY(date_plus_iym, int32_t, int32_t, int32_t,
       if (!func_date_add_months(a, b, &res)) OVERFLOW("date addition"))
BINARY(iym_plus_date, int32_t, int32_t, int32_t,
       if (!func_date_add_months(b, a, &res)) OVERFLOW("date addition"))
BINARY(date_minus_iym, int32_t, int32_t, int32_t,
       if (!func_date_add_months(a, -(int64_t)b, &res)) OVERFLOW("date subtraction"))

/* timestamp +- interval */
BINARY(ts_plus_ids, int64_t, int64_t, int64_t,
       if (__builtin_add_overflow(a, b, &res)) OVERFLOW("timestamp addition"))
BINARY(ids_plus_ts, int64_t, int64_t, int64_t,
       if (__builtin_add_overflow(a, b, &res)) OVERFLOW("timestamp addition"))
BINARY(ts_minus_ids, int64_t, int64_t, int64_t,
       if (__builtin_sub_overflow(a, b, &res)) OVERFLOW("timestamp subtraction"))
BINARY(ts_plus_iym, int64_t, int32_t, int64_t,
       if (!func_timestamp_add_months(a, b, &res)) OVERFLOW("timestamp addition"))
BINARY(iym_plus_ts, int32_t, int64_t, int64_t,
       if (!func_timestamp_add_months(b, a, &res)) OVERFLOW("timestamp addition"))
BINARY(ts_minus_iym, int64_t, int32_t, int64_t,
       if (!func_timestamp_add_months(a, -(int64_t)b, &res)) OVERFLOW("timestamp subtraction"))

/* timestamp with time zone +- interval */
static bool tstz_add_months(sqe_timestamp_tz t, int64_t months, sqe_timestamp_tz *out) {
    int64_t local;
    if (!func_timestamp_add_months(tz_utc_to_local(t.zone, t.micros), months, &local)) return false;
    t.micros = tz_local_to_utc(t.zone, local);
    *out = t;
    return true;
}
BINARY(tstz_plus_ids, sqe_timestamp_tz, int64_t, sqe_timestamp_tz, res = a;
       if (__builtin_add_overflow(a.micros, b, &res.micros)) OVERFLOW("timestamp addition"))
BINARY(ids_plus_tstz, int64_t, sqe_timestamp_tz, sqe_timestamp_tz, res = b;
       if (__builtin_add_overflow(b.micros, a, &res.micros)) OVERFLOW("timestamp addition"))
BINARY(tstz_minus_ids, sqe_timestamp_tz, int64_t, sqe_timestamp_tz, res = a;
       if (__builtin_sub_overflow(a.micros, b, &res.micros)) OVERFLOW("timestamp subtraction"))
BINARY(tstz_plus_iym, sqe_timestamp_tz, int32_t, sqe_timestamp_tz,
       if (!tstz_add_months(a, b, &res)) OVERFLOW("timestamp addition"))
BINARY(iym_plus_tstz, int32_t, sqe_timestamp_tz, sqe_timestamp_tz,
       if (!tstz_add_months(b, a, &res)) OVERFLOW("timestamp addition"))
BINARY(tstz_minus_iym, sqe_timestamp_tz, int32_t, sqe_timestamp_tz,
       if (!tstz_add_months(a, -(int64_t)b, &res)) OVERFLOW("timestamp subtraction"))

/* time +- interval day to second: wraps around midnight */
BINARY(time_plus_ids, int64_t, int64_t, int64_t, res = dt_floor_mod(a + b % DAY, DAY))
BINARY(ids_plus_time, int64_t, int64_t, int64_t, res = dt_floor_mod(b + a % DAY, DAY))
BINARY(time_minus_ids, int64_t, int64_t, int64_t, res = dt_floor_mod(a - b % DAY, DAY))

/* interval +- interval, differences */
BINARY(ids_plus_ids, int64_t, int64_t, int64_t,
       if (__builtin_add_overflow(a, b, &res)) OVERFLOW("interval addition"))
BINARY(ids_minus_ids, int64_t, int64_t, int64_t,
       if (__builtin_sub_overflow(a, b, &res)) OVERFLOW("interval subtraction"))
BINARY(iym_plus_iym, int32_t, int32_t, int32_t,
       if (__builtin_add_overflow(a, b, &res)) OVERFLOW("interval addition"))
BINARY(iym_minus_iym, int32_t, int32_t, int32_t,
       if (__builtin_sub_overflow(a, b, &res)) OVERFLOW("interval subtraction"))
BINARY(ts_minus_ts, int64_t, int64_t, int64_t,
       if (__builtin_sub_overflow(a, b, &res)) OVERFLOW("timestamp subtraction"))
BINARY(tstz_minus_tstz, sqe_timestamp_tz, sqe_timestamp_tz, int64_t,
       if (__builtin_sub_overflow(a.micros, b.micros, &res)) OVERFLOW("timestamp subtraction"))
BINARY(date_minus_date, int32_t, int32_t, int64_t,
       if (__builtin_mul_overflow((int64_t)a - b, DAY, &res)) OVERFLOW("date subtraction"))
BINARY(time_minus_time, int64_t, int64_t, int64_t, res = a - b)

/* interval * number, interval / number */
static bool double_to_i64(double d, int64_t *out) {
    if (!(d > -9223372036854775808.0 && d < 9223372036854775808.0)) return false;
    *out = (int64_t)d;
    return true;
}
static bool double_to_i32(double d, int32_t *out) {
    if (!(d > -2147483649.0 && d < 2147483648.0)) return false;
    *out = (int32_t)d;
    return true;
}

BINARY(ids_times_int, int64_t, int64_t, int64_t,
       if (__builtin_mul_overflow(a, b, &res)) OVERFLOW("interval multiplication"))
BINARY(int_times_ids, int64_t, int64_t, int64_t,
       if (__builtin_mul_overflow(a, b, &res)) OVERFLOW("interval multiplication"))
BINARY(iym_times_int, int32_t, int64_t, int32_t, int64_t m;
       if (__builtin_mul_overflow((int64_t)a, b, &m) || m < INT32_MIN || m > INT32_MAX)
           OVERFLOW("interval multiplication");
       res = (int32_t)m)
BINARY(int_times_iym, int64_t, int32_t, int32_t, int64_t m;
       if (__builtin_mul_overflow(a, (int64_t)b, &m) || m < INT32_MIN || m > INT32_MAX)
           OVERFLOW("interval multiplication");
       res = (int32_t)m)
BINARY(ids_times_double, int64_t, double, int64_t,
       if (!double_to_i64((double)a * b, &res)) OVERFLOW("interval multiplication"))
BINARY(double_times_ids, double, int64_t, int64_t,
       if (!double_to_i64(a * (double)b, &res)) OVERFLOW("interval multiplication"))
BINARY(iym_times_double, int32_t, double, int32_t,
       if (!double_to_i32((double)a * b, &res)) OVERFLOW("interval multiplication"))
BINARY(double_times_iym, double, int32_t, int32_t,
       if (!double_to_i32(a * (double)b, &res)) OVERFLOW("interval multiplication"))
BINARY(ids_div_int, int64_t, int64_t, int64_t,
       if (b == 0) ROW_ERROR(SQE_ERR_DIVISION_BY_ZERO, "Division by zero");
       if (b == -1 && a == INT64_MIN) OVERFLOW("interval division"); res = a / b)
BINARY(iym_div_int, int32_t, int64_t, int32_t,
       if (b == 0) ROW_ERROR(SQE_ERR_DIVISION_BY_ZERO, "Division by zero");
       int64_t q = (int64_t)a / b; if (q > INT32_MAX) OVERFLOW("interval division");
       res = (int32_t)q)
BINARY(ids_div_double, int64_t, double, int64_t,
       if (b == 0) ROW_ERROR(SQE_ERR_DIVISION_BY_ZERO, "Division by zero");
       if (!double_to_i64((double)a / b, &res)) OVERFLOW("interval division"))
BINARY(iym_div_double, int32_t, double, int32_t,
       if (b == 0) ROW_ERROR(SQE_ERR_DIVISION_BY_ZERO, "Division by zero");
       if (!double_to_i32((double)a / b, &res)) OVERFLOW("interval division"))
UNARY(ids_negate, int64_t, int64_t,
      if (a == INT64_MIN) OVERFLOW("interval negation"); res = -a)
UNARY(iym_negate, int32_t, int32_t,
      if (a == INT32_MIN) OVERFLOW("interval negation"); res = -a)
