/*
 * arrow_schema.c: SQE column types -> Arrow Schema message (Schema.fbs Field/Schema tables
 * inside a Message.fbs Message), the metadata that precedes every Arrow stream and that Flight
 * returns in FlightInfo.schema / GetSchema / prepared-statement results.
 *
 * INTERFACE: arrow_schema_encode.
 * NOTES: the type mapping is the table in README.md. Every FlatBuffers field with a non-zero
 *   default in the .fbs (Date.unit, Time.unit/bitWidth, Decimal.bitWidth, Duration.unit) and
 *   Field.nullable are written explicitly. Extension types (arrow.json, arrow.uuid) are the
 *   canonical extension names in the field's custom_metadata with an empty
 *   ARROW:extension:metadata; clients without the extension see the storage type.
 *   time(p)/timestamp(p) are written in the unit of p (s for 0, ms for 1..3, µs for 4..6); when
 *   the unit does not say p (1, 2, 4, 5) the field also carries "sqe:type" = "timestamp(2)".
 */
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "format/arrow/arrow_int.h"
#include "format/arrow/flatbuf.h"

#define MAX_DEPTH 64

/* The custom_metadata vector: the caller's pairs (minus any sqe:type), then the extension name
 * pair and the sqe:type pair when given. 0 when empty. */
static fb_ref kv_vector(fb_builder *b, const arrow_kv *meta, uint32_t n_meta, const char *ext,
                        const char *type_text) {
    uint32_t n = n_meta + (ext ? 2 : 0) + (type_text ? 1 : 0);
    if (n == 0) return 0;
    fb_ref *refs = calloc(n, sizeof *refs);
    if (!refs) {
        b->failed = 1;
        return 0;
    }
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        const char *key, *value;
        if (i < n_meta) {
            key = meta[i].key ? meta[i].key : "";
            value = meta[i].value ? meta[i].value : "";
            if (strcmp(key, ARROW_SQE_TYPE) == 0) continue; /* ours to write */
        } else if (ext && i == n_meta) {
            key = ARROW_EXT_NAME;
            value = ext;
        } else if (ext && i == n_meta + 1) {
            key = ARROW_EXT_META;
            value = "";
        } else {
            key = ARROW_SQE_TYPE;
            value = type_text;
        }
        fb_ref kr = fb_create_string(b, key, strlen(key));
        fb_ref vr = fb_create_string(b, value, strlen(value));
        fb_table_start(b);
        fb_table_add_ref(b, KV_KEY, kr);
        fb_table_add_ref(b, KV_VALUE, vr);
        refs[k++] = fb_table_end(b);
    }
    fb_ref v = k ? fb_create_vector_refs(b, refs, k) : 0;
    free(refs);
    return v;
}

/* The type table for t (children are separate Fields); sets *type_id to its union id. */
static fb_ref type_table(fb_builder *b, sqe_type t, uint8_t *arrow_id) {
    fb_ref tz = 0;
    if (t.id == TYPE_TIMESTAMP_TZ) tz = fb_create_string(b, "UTC", 3);
    fb_table_start(b);
    switch ((type_id)t.id) {
    case TYPE_UNKNOWN: *arrow_id = ARROW_T_NULL; break;
    case TYPE_BOOLEAN: *arrow_id = ARROW_T_BOOL; break;
    case TYPE_TINYINT:
    case TYPE_SMALLINT:
    case TYPE_INTEGER:
    case TYPE_BIGINT:
        *arrow_id = ARROW_T_INT;
        fb_table_add_i32(b, 0, (int32_t)(8 * type_physical_size(t)));
        fb_table_add_u8(b, 1, 1);
        break;
    case TYPE_REAL:
    case TYPE_DOUBLE:
        *arrow_id = ARROW_T_FLOAT;
        fb_table_add_i16(b, 0, t.id == TYPE_REAL ? ARROW_PREC_SINGLE : ARROW_PREC_DOUBLE);
        break;
    case TYPE_DECIMAL:
        *arrow_id = ARROW_T_DECIMAL;
        fb_table_add_i32(b, 0, t.precision);
        fb_table_add_i32(b, 1, t.scale);
        fb_table_add_i32(b, 2, 128);
        break;
    case TYPE_VARCHAR:
    case TYPE_CHAR:
    case TYPE_JSON: *arrow_id = ARROW_T_UTF8; break;
    case TYPE_VARBINARY: *arrow_id = ARROW_T_BINARY; break;
    case TYPE_DATE:
        *arrow_id = ARROW_T_DATE;
        fb_table_add_i16(b, 0, ARROW_DATE_DAY);
        break;
    case TYPE_TIME: {
        int unit = arrow_unit_for_precision(t.precision);
        *arrow_id = ARROW_T_TIME;
        fb_table_add_i16(b, 0, (int16_t)unit);
        fb_table_add_i32(b, 1, unit == ARROW_UNIT_MICRO ? 64 : 32);
        break;
    }
    case TYPE_TIMESTAMP:
    case TYPE_TIMESTAMP_TZ:
        *arrow_id = ARROW_T_TIMESTAMP;
        fb_table_add_i16(b, 0, (int16_t)arrow_unit_for_precision(t.precision));
        fb_table_add_ref(b, 1, tz);
        break;
    case TYPE_INTERVAL_DS:
        *arrow_id = ARROW_T_DURATION;
        fb_table_add_i16(b, 0, ARROW_UNIT_MICRO);
        break;
    case TYPE_INTERVAL_YM:
        *arrow_id = ARROW_T_INTERVAL;
        fb_table_add_i16(b, 0, ARROW_IVL_YEAR_MONTH);
        break;
    case TYPE_UUID:
        *arrow_id = ARROW_T_FIXED_SIZE_BINARY;
        fb_table_add_i32(b, 0, 16);
        break;
    case TYPE_ARRAY: *arrow_id = ARROW_T_LIST; break;
    case TYPE_MAP:
        *arrow_id = ARROW_T_MAP;
        fb_table_add_u8(b, 0, 0); /* keysSorted = false */
        break;
    case TYPE_ROW: *arrow_id = ARROW_T_STRUCT; break;
    case TYPE_COUNT_:
    default: *arrow_id = ARROW_T_NONE; break;
    }
    return fb_table_end(b);
}

static fb_ref field_encode(fb_builder *b, const char *name, sqe_type t, bool nullable,
                           const arrow_kv *meta, uint32_t n_meta, int depth, sqe_error *err,
                           int *rc);

/* Builds the children vector of a nested type (0 for none). */
static fb_ref children_encode(fb_builder *b, sqe_type t, int depth, sqe_error *err, int *rc) {
    if (!type_is_nested(t)) return fb_create_vector_refs(b, NULL, 0);
    uint32_t n = t.nested ? t.nested->n_children : 0;
    fb_ref refs[2];
    if (t.id == TYPE_ARRAY && n == 1) {
        refs[0] = field_encode(b, "item", t.nested->children[0], true, NULL, 0, depth + 1, err, rc);
        return fb_create_vector_refs(b, refs, 1);
    }
    if (t.id == TYPE_MAP && n == 2) {
        /* entries: struct<key not null, value> (not null) */
        fb_ref kv[2];
        kv[0] = field_encode(b, "key", t.nested->children[0], false, NULL, 0, depth + 2, err, rc);
        kv[1] = field_encode(b, "value", t.nested->children[1], true, NULL, 0, depth + 2, err, rc);
        fb_ref kids = fb_create_vector_refs(b, kv, 2);
        fb_ref name = fb_create_string(b, "entries", 7);
        fb_table_start(b);
        fb_ref type = fb_table_end(b);
        fb_table_start(b);
        fb_table_add_ref(b, FIELD_NAME, name);
        fb_table_add_u8(b, FIELD_NULLABLE, 0);
        fb_table_add_u8(b, FIELD_TYPE_TYPE, ARROW_T_STRUCT);
        fb_table_add_ref(b, FIELD_TYPE, type);
        fb_table_add_ref(b, FIELD_CHILDREN, kids);
        refs[0] = fb_table_end(b);
        return fb_create_vector_refs(b, refs, 1);
    }
    if (t.id == TYPE_ROW) {
        fb_ref *kids = calloc(n ? n : 1, sizeof *kids);
        if (!kids) {
            b->failed = 1;
            return 0;
        }
        for (uint32_t i = 0; i < n; i++) {
            const char *fname = t.nested->names && t.nested->names[i] ? t.nested->names[i] : "";
            kids[i] = field_encode(b, fname, t.nested->children[i], true, NULL, 0, depth + 1, err, rc);
        }
        fb_ref v = fb_create_vector_refs(b, kids, n);
        free(kids);
        return v;
    }
    *rc = err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "arrow: malformed nested type");
    return 0;
}

static fb_ref field_encode(fb_builder *b, const char *name, sqe_type t, bool nullable,
                           const arrow_kv *meta, uint32_t n_meta, int depth, sqe_error *err,
                           int *rc) {
    if (*rc) return 0;
    if (depth > MAX_DEPTH) {
        *rc = err_set(err, SQE_ERR_NOT_SUPPORTED, "arrow: type nesting deeper than %d", MAX_DEPTH);
        return 0;
    }
    if (t.id >= TYPE_COUNT_) {
        *rc = err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "arrow: unknown type id %d", t.id);
        return 0;
    }
    fb_ref kids = children_encode(b, t, depth, err, rc);
    const char *ext = t.id == TYPE_JSON ? "arrow.json" : t.id == TYPE_UUID ? "arrow.uuid" : NULL;
    /* time(p)/timestamp(p) with a p the unit does not say (1, 2, 4, 5) carry their SQE type */
    char type_text[64];
    bool temporal = t.id == TYPE_TIME || t.id == TYPE_TIMESTAMP || t.id == TYPE_TIMESTAMP_TZ;
    bool odd_p = temporal && t.precision != 0 && t.precision != 3 && t.precision != 6;
    if (odd_p && type_format(t, type_text, sizeof type_text) >= sizeof type_text) odd_p = false;
    fb_ref kvs = kv_vector(b, meta, n_meta, ext, odd_p ? type_text : NULL);
    uint8_t arrow_id = 0;
    fb_ref type = type_table(b, t, &arrow_id);
    fb_ref nm = fb_create_string(b, name ? name : "", name ? strlen(name) : 0);
    fb_table_start(b);
    fb_table_add_ref(b, FIELD_NAME, nm);
    fb_table_add_u8(b, FIELD_NULLABLE, nullable ? 1 : 0);
    fb_table_add_u8(b, FIELD_TYPE_TYPE, arrow_id);
    fb_table_add_ref(b, FIELD_TYPE, type);
    fb_table_add_ref(b, FIELD_CHILDREN, kids);
    fb_table_add_ref(b, FIELD_META, kvs);
    return fb_table_end(b);
}

int arrow_schema_encode(const arrow_schema *schema, arrow_buf *header, sqe_error *err) {
    fb_builder b;
    fb_builder_init(&b);
    int rc = SQE_OK;
    fb_ref *cols = calloc(schema->n_cols ? schema->n_cols : 1, sizeof *cols);
    if (!cols) return err_nomem(err, "arrow schema");
    for (uint32_t i = 0; i < schema->n_cols && !rc; i++) {
        const arrow_column *c = &schema->cols[i];
        cols[i] = field_encode(&b, c->name, c->type, c->nullable, c->meta, c->n_meta, 0, err, &rc);
    }
    fb_ref fields = fb_create_vector_refs(&b, cols, schema->n_cols);
    free(cols);
    fb_ref kvs = kv_vector(&b, schema->meta, schema->n_meta, NULL, NULL);
    fb_table_start(&b);
    fb_table_add_i16(&b, SCHEMA_ENDIANNESS, 0); /* Little */
    fb_table_add_ref(&b, SCHEMA_FIELDS, fields);
    fb_table_add_ref(&b, SCHEMA_META, kvs);
    fb_ref sch = fb_table_end(&b);
    fb_table_start(&b);
    fb_table_add_i16(&b, MSG_VERSION, ARROW_V5);
    fb_table_add_u8(&b, MSG_HEADER_TYPE, ARROW_MSG_SCHEMA);
    fb_table_add_ref(&b, MSG_HEADER, sch);
    fb_table_add_i64(&b, MSG_BODY_LENGTH, 0);
    fb_ref msg = fb_table_end(&b);
    const uint8_t *bytes;
    size_t len;
    if (!rc && !fb_builder_finish(&b, msg, &bytes, &len))
        rc = err_nomem(err, "arrow schema message");
    if (!rc) rc = arrow_buf_append(header, bytes, len, err);
    fb_builder_reset(&b);
    return rc;
}
