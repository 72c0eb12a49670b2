/*
 * decimal.h: fixed-point decimals as Trino defines them: decimal(p, s) with p <= 38, stored as
 * an unscaled integer (int64 when p <= 18, int128 otherwise). Overflow past the declared
 * precision is an error (NUMERIC_VALUE_OUT_OF_RANGE), never a silent wrap.
 *
 * Result types of arithmetic follow Trino:
 *   a(p1,s1) + - b(p2,s2): s = max(s1,s2), p = min(38, max(p1-s1, p2-s2) + s + 1)
 *   a * b:                 s = s1 + s2,   p = min(38, p1 + p2)
 *   a / b:                 s = max(s1, s2), p = min(38, p1 + s2 + max(0, s2 - s1))
 *   a % b:                 s = max(s1, s2), p = min(38, min(p1-s1, p2-s2) + s)
 * Rounding of division and rescaling is half away from zero (HALF_UP), as in Trino.
 */
#ifndef SQE_TYPES_DECIMAL_H
#define SQE_TYPES_DECIMAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "types/types.h"

/* 10^n for n in 0..38. */
int128 decimal_pow10(int n);
/* Largest unscaled magnitude for precision p: 10^p - 1. */
static inline int128 decimal_max_unscaled(int p) { return decimal_pow10(p) - 1; }
static inline bool decimal_fits(int128 v, int p) {
    int128 m = decimal_max_unscaled(p);
    return v <= m && v >= -m;
}

/* Result types (see above). Return false if an operand type is not decimal. */
sqe_type decimal_add_type(sqe_type a, sqe_type b);
sqe_type decimal_mul_type(sqe_type a, sqe_type b);
sqe_type decimal_div_type(sqe_type a, sqe_type b);
sqe_type decimal_mod_type(sqe_type a, sqe_type b);
/* The decimal type an integer type converts to: tinyint(3,0) smallint(5,0) integer(10,0)
 * bigint(19,0). */
sqe_type decimal_for_integer(sqe_type t);

/* Rescales v from scale `from` to scale `to` (HALF_UP when reducing). Returns false on
 * overflow of int128. */
bool decimal_rescale(int128 v, int from, int to, int128 *out);
/* Division with HALF_UP rounding of the quotient a / b (b != 0) computed at a result scale:
 * out = round(a * 10^shift / b). Returns false on overflow. */
bool decimal_div_round(int128 a, int128 b, int shift, int128 *out);

/* Text. Formats unscaled v at scale s ("-12.50"); returns the length (buf needs 42 bytes). */
int decimal_format(int128 v, int scale, char *buf);
/* Parses a decimal literal ("12.5", "-.5", "1e3" not allowed) into unscaled at scale `scale`
 * with HALF_UP rounding; returns 0, or -1 when not a number, -2 when it does not fit precision p. */
int decimal_parse(const char *s, size_t len, int precision, int scale, int128 *out);
/* CAST(varchar AS decimal(p,s)) syntax (Java BigDecimal): like decimal_parse, but an exponent
 * ("1.5e3", "2E-2") and surrounding whitespace are accepted. Same return codes. */
int decimal_parse_text(const char *s, size_t len, int precision, int scale, int128 *out);
/* The natural type of a literal: "12.50" is decimal(4,2). Returns -1 if not a decimal literal,
 * -2 if it needs more than 38 digits. */
int decimal_literal_type(const char *s, size_t len, sqe_type *out);

/* Conversion to/from double (HALF_UP), false on overflow of precision p. */
double decimal_to_double(int128 v, int scale);
bool decimal_from_double(double d, int precision, int scale, int128 *out);

/* Reads/writes an element of a decimal vector regardless of short/long layout. */
static inline int128 decimal_get(const void *data, sqe_type t, uint32_t idx) {
    if (type_decimal_is_long(t)) return ((const int128 *)data)[idx];
    return ((const int64_t *)data)[idx];
}
static inline void decimal_put(void *data, sqe_type t, uint32_t idx, int128 v) {
    if (type_decimal_is_long(t))
        ((int128 *)data)[idx] = v;
    else
        ((int64_t *)data)[idx] = (int64_t)v;
}

#endif
