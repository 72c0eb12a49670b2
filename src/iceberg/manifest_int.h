/*
 * manifest_int.h: helpers shared by manifest_list.c and manifest.c (not for other files):
 * typed access to fields of decoded Avro records by Iceberg field id, with the
 * "Invalid Iceberg manifest[ list]: ..." errors, and small builders of writer values.
 */
#ifndef SQE_ICEBERG_MANIFEST_INT_H
#define SQE_ICEBERG_MANIFEST_INT_H

#include "iceberg/manifest.h"

/* Error context of one read: the file kind for messages ("manifest", "manifest list"). */
typedef struct ice_mf_ctx {
    arena *a;
    sqe_error *err;
    const char *kind;
} ice_mf_ctx;

/* Sets INVALID_FILE "Invalid Iceberg <kind>: <message>" and returns the code. */
int ice_mf_bad(ice_mf_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The field of record value rec with Iceberg field id `id` (or, when no field of the record
 * carries that id, the field called name that has no field id), unwrapped from its union;
 * NULL when absent or null. *present (may be NULL) tells whether the field exists at all. */
const avro_value *ice_mf_field(const avro_value *rec, int32_t id, const char *name,
                               bool *present);

/* Typed getters: *has is false for an absent or null field; a field of another Avro type is
 * an error naming `path`; required fields that are missing are errors. int fields must be Avro
 * int; long fields accept int and long. */
int ice_mf_get_int(ice_mf_ctx *c, const avro_value *rec, int32_t id, const char *path,
                   bool required, bool *has, int32_t *out);
int ice_mf_get_long(ice_mf_ctx *c, const avro_value *rec, int32_t id, const char *path,
                    bool required, bool *has, int64_t *out);
int ice_mf_get_bool(ice_mf_ctx *c, const avro_value *rec, int32_t id, const char *path,
                    bool required, bool *has, bool *out);
/* Strings: *out NULL when absent/null. Bytes accept Avro bytes and fixed. */
int ice_mf_get_string(ice_mf_ctx *c, const avro_value *rec, int32_t id, const char *path,
                      bool required, const char **out);
int ice_mf_get_bytes(ice_mf_ctx *c, const avro_value *rec, int32_t id, const char *path,
                     bool required, bool *has, ice_bytes *out);
/* Parses a decimal integer header value (the whole text) into *out; false if malformed. */
bool ice_mf_parse_long(const uint8_t *text, size_t len, int64_t *out);

/* Writer values: the field called name of record value rec built for the writer with schema
 * s (allocating the record's field array on first use); NULL when s has no such field. */
avro_value *ice_mf_wfield(arena *a, avro_value *rec, const avro_schema *s, const char *name);
/* Sets v (a union ["null", T]) to null, or to the non-null branch and returns that branch's
 * value (NULL on out-of-memory). */
void ice_mf_wnull(avro_value *v);
avro_value *ice_mf_wsome(arena *a, avro_value *v);
/* Appends an optional or required field declaration to a schema JSON text. */
void ice_mf_schema_field(strbuf *sb, bool *first, const char *name, const char *type_json,
                         bool optional, int32_t field_id);

#endif
