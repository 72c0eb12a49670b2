/*
 * float_text.h: text forms of DOUBLE and REAL values as Trino (Java) prints them.
 *
 * Java has two spellings that matter to SQE:
 *   - Double.toString / Float.toString: what the Trino CLI, JDBC and the JSON of CAST(x AS JSON)
 *     show ("0.1", "100.0", "1.0E7", "1.0E-5", "NaN", "-Infinity");
 *   - CAST(x AS VARCHAR): DecimalFormat "0.0###################E0" for DOUBLE and "0.0#####E0"
 *     for REAL, i.e. always scientific ("1.5E0", "1.0E-1"), zero as "0E0".
 * Both start from the shortest decimal digits that read back to the same binary value (the
 * JDK 19+ rule; when the shortest has one digit, the closest two-digit decimal is used).
 *
 * All functions are pure and thread-safe. Buffers must hold FLOAT_TEXT_MAX bytes; the return
 * value is the length written (the text is NUL-terminated).
 */
#ifndef SQE_TYPES_FLOAT_TEXT_H
#define SQE_TYPES_FLOAT_TEXT_H

#include <stdbool.h>
#include <stddef.h>

#define FLOAT_TEXT_MAX 40

/* Shortest round-trip digits of the finite, non-zero magnitude |v| (as a float when `single`).
 * Writes the significant digits (no leading or trailing zeros, NUL-terminated) into digits[20]
 * and sets *exp10 so that |v| = d0.d1d2... x 10^exp10. Returns the number of digits. */
int float_text_digits(double v, bool single, char *digits, int *exp10);

/* Java Double.toString(v) / Float.toString(v). */
int float_text_double(double v, char *buf);
int float_text_real(float v, char *buf);

/* Trino's CAST(DOUBLE AS VARCHAR) / CAST(REAL AS VARCHAR) text. */
int float_text_double_sci(double v, char *buf);
int float_text_real_sci(float v, char *buf);

/* Parses a number as Java's Double.parseDouble does after Trino trims the text: optional sign,
 * "NaN", "Infinity", or digits with an optional fraction and exponent and an optional type
 * suffix (d, D, f, F). Leading/trailing bytes <= ' ' are ignored. Returns 0 or -1 (then *out is
 * untouched). The REAL variant rounds the decimal text directly to float (Float.parseFloat). */
int float_text_parse(const char *s, size_t len, double *out);
int float_text_parse_real(const char *s, size_t len, float *out);

#endif
