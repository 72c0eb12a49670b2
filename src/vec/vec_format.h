/*
 * vec_format.h: text of single vector values for result output: the Trino CLI/JDBC text form
 * (table and CSV output of the shell) and JSON tokens (the shell's JSON output).
 *
 * Text forms (vec_format_value):
 *   NULL "NULL"; booleans "true"/"false"; integers in decimal; DOUBLE/REAL as Java's
 *   Double.toString/Float.toString ("0.1", "100.0", "1.0E7", "NaN"); DECIMAL with exactly
 *   `scale` fraction digits ("12.50"); VARCHAR/CHAR/JSON as is; VARBINARY as lower-case hex bytes
 *   separated by spaces ("0a 0b"); DATE/TIME/TIMESTAMP/TIMESTAMP WITH TIME ZONE/INTERVAL per
 *   datetime.h; UUID "12151fd2-7586-11e9-8f9e-2a86e4085a59"; ARRAY "[1, 2, 3]"; MAP
 *   "{a=1, b=2}"; ROW "{x=1, y=abc}" (anonymous fields are named field0, field1, ...).
 * JSON tokens (vec_format_json), as Trino's client protocol encodes values: NULL null; booleans
 *   and integers, REAL and DOUBLE as JSON numbers (NaN and infinities as strings); DECIMAL as a
 *   string; every other scalar as a JSON string of its text form (VARBINARY in base64, JSON as
 *   its text in a string); ARRAY as an array; MAP as an object keyed by the key's text; ROW as an
 *   array of its fields.
 */
#ifndef SQE_VEC_VEC_FORMAT_H
#define SQE_VEC_VEC_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "common/strbuf.h"
#include "vec/vec.h"

/* Appends the text of logical row `row` of v (any shape) to out. Returns SQE_OK, or
 * SQE_ERR_OUT_OF_MEMORY when out could not grow (out->failed is then set; what was appended
 * before stays). */
int vec_format_value(const vec *v, uint32_t row, strbuf *out);

/* Appends logical row `row` of v as one JSON value. Same return codes as vec_format_value. */
int vec_format_json(const vec *v, uint32_t row, strbuf *out);

/* Appends s (len bytes of UTF-8) as a quoted JSON string: '"' and '\\' escaped, control
 * characters as \b \f \n \r \t or \u00XX; everything else as is. */
void vec_format_json_string(const char *s, size_t len, strbuf *out);

/* Writes the 36-character text of a 16-byte UUID into buf (>= 37 bytes); returns 36. */
int vec_format_uuid(const uint8_t *bytes, char *buf);

#endif
