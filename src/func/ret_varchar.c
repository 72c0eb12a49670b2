/*
 * ret_varchar.c: the result types of string functions as Trino derives them from the bounded
 * lengths of their arguments (varchar(x) in, varchar(f(x)) out).
 *
 * Trino keeps varchar lengths through string functions: split_part('a,b', ',', 1) is
 * varchar(3), replace('abcde', 'b', 'xy') varchar(5 + 2 * (5 + 1)) = varchar(17), split gives
 * array(varchar(x)), while concat and || give an unbounded varchar. An unbounded argument
 * (length 0) or a bound past 2^31 - 1 gives an unbounded varchar. Every rule was checked with
 * typeof() on Trino 476 (tests/sql/functions/varchar_bounds.test).
 *
 * INTERFACE: func_ret_varchar_of_arg0, func_ret_array_varchar_of_arg0, func_ret_replace3,
 *            func_ret_regexp_replace3, func_ret_url_encode (scalar_kernel.h).
 */
#include <stdint.h>

#include "func/scalar_kernel.h"

#define UNBOUNDED_MAX 2147483647u

/* varchar(n), unbounded when n is 0 or does not fit Trino's bound. */
static sqe_type varchar_of(uint64_t n) {
    return type_varchar(n > 0 && n < UNBOUNDED_MAX ? (uint32_t)n : 0);
}

/* The bound of a varchar argument; 0 (unbounded) for any other type (json, char, ...). */
static uint64_t bound(sqe_type t) { return t.id == TYPE_VARCHAR ? t.length : 0; }

int func_ret_varchar_of_arg0(const sqe_type *args, uint32_t n_args, sqe_type *ret,
                             sqe_error *err) {
    (void)n_args, (void)err;
    *ret = varchar_of(bound(args[0]));
    return SQE_OK;
}

int func_ret_array_varchar_of_arg0(const sqe_type *args, uint32_t n_args, sqe_type *ret,
                                   sqe_error *err) {
    (void)n_args, (void)err;
    *ret = type_array(varchar_of(bound(args[0])));
    return SQE_OK;
}

/* replace(varchar(x), varchar(y), varchar(z)): varchar(x + z * (x + 1)). */
int func_ret_replace3(const sqe_type *args, uint32_t n_args, sqe_type *ret, sqe_error *err) {
    (void)n_args, (void)err;
    uint64_t x = bound(args[0]), z = bound(args[2]);
    *ret = varchar_of(x && z ? x + z * (x + 1) : 0);
    return SQE_OK;
}

/* regexp_replace(varchar(x), pattern, varchar(y)): varchar(x + max(x * y / 2, y) * (x + 1)). */
int func_ret_regexp_replace3(const sqe_type *args, uint32_t n_args, sqe_type *ret,
                             sqe_error *err) {
    (void)n_args, (void)err;
    uint64_t x = bound(args[0]), y = bound(args[2]);
    uint64_t grow = x * y / 2 > y ? x * y / 2 : y;
    *ret = varchar_of(x && y ? x + grow * (x + 1) : 0);
    return SQE_OK;
}

/* url_encode(varchar(x)): varchar(12 * x) (a code point becomes at most four %XX). */
int func_ret_url_encode(const sqe_type *args, uint32_t n_args, sqe_type *ret, sqe_error *err) {
    (void)n_args, (void)err;
    *ret = varchar_of(bound(args[0]) * 12);
    return SQE_OK;
}
