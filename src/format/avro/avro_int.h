/*
 * avro_int.h: internals shared by the files of src/format/avro/ (not for other layers).
 */
#ifndef SQE_FORMAT_AVRO_AVRO_INT_H
#define SQE_FORMAT_AVRO_AVRO_INT_H

#include "format/avro/avro.h"

/* avro_schema_parse with the error code and message prefix chosen by the caller: the reader
 * reports a bad embedded schema as INVALID_FILE "Invalid Avro file: bad avro.schema: ...". */
int avro_schema_parse_as(arena *a, const char *json, size_t len, int code, const char *prefix,
                         avro_schema **out, sqe_error *err);

/* The JSON-encoding name of a union branch: the full name of a named type, else the type
 * name ("long", "array", ...). */
const char *avro_branch_name(const avro_schema *s);

#endif
