/*
 * arrow_fbs.h: the ids of Arrow IPC's FlatBuffers schema (Schema.fbs / Message.fbs) that code
 * building or reading an Arrow message by hand with flatbuf.h needs: the `union Type` ids, the
 * metadata version and the vtable slots of Message, Schema, Field, KeyValue and RecordBatch.
 * format/arrow uses them throughout (through arrow_int.h); outside it, the Flight SQL server
 * encodes GetSqlInfo's dense-union schema with them (server/flight/flight_sqlinfo.c).
 *
 * NOTES: values are fixed by the Arrow format (columnar format 1.x, metadata V5); slots are
 * numbered in declaration order of the .fbs table, a union taking two (flatbuf.h).
 */
#ifndef SQE_FORMAT_ARROW_ARROW_FBS_H
#define SQE_FORMAT_ARROW_ARROW_FBS_H

/* Schema.fbs `union Type` ids. */
enum {
    ARROW_T_NONE = 0,
    ARROW_T_NULL = 1,
    ARROW_T_INT = 2,
    ARROW_T_FLOAT = 3,
    ARROW_T_BINARY = 4,
    ARROW_T_UTF8 = 5,
    ARROW_T_BOOL = 6,
    ARROW_T_DECIMAL = 7,
    ARROW_T_DATE = 8,
    ARROW_T_TIME = 9,
    ARROW_T_TIMESTAMP = 10,
    ARROW_T_INTERVAL = 11,
    ARROW_T_LIST = 12,
    ARROW_T_STRUCT = 13,
    ARROW_T_UNION = 14,
    ARROW_T_FIXED_SIZE_BINARY = 15,
    ARROW_T_FIXED_SIZE_LIST = 16,
    ARROW_T_MAP = 17,
    ARROW_T_DURATION = 18,
    ARROW_T_LARGE_BINARY = 19,
    ARROW_T_LARGE_UTF8 = 20,
    ARROW_T_LARGE_LIST = 21,
    ARROW_T_RUN_END_ENCODED = 22,
    ARROW_T_BINARY_VIEW = 23,
    ARROW_T_UTF8_VIEW = 24,
    ARROW_T_LIST_VIEW = 25,
    ARROW_T_LARGE_LIST_VIEW = 26,
};

/* MetadataVersion. */
enum { ARROW_V5 = 4 };

/* Vtable slots (declaration order; a union takes two). */
enum { MSG_VERSION = 0, MSG_HEADER_TYPE = 1, MSG_HEADER = 2, MSG_BODY_LENGTH = 3, MSG_META = 4 };
enum { SCHEMA_ENDIANNESS = 0, SCHEMA_FIELDS = 1, SCHEMA_META = 2, SCHEMA_FEATURES = 3 };
enum {
    FIELD_NAME = 0, FIELD_NULLABLE = 1, FIELD_TYPE_TYPE = 2, FIELD_TYPE = 3, FIELD_DICTIONARY = 4,
    FIELD_CHILDREN = 5, FIELD_META = 6
};
enum { KV_KEY = 0, KV_VALUE = 1 };
enum { RB_LENGTH = 0, RB_NODES = 1, RB_BUFFERS = 2, RB_COMPRESSION = 3, RB_VARIADIC = 4 };
/* Slot 0/1/2 of the type tables (Int: bitWidth, is_signed; Decimal: precision, scale, bitWidth;
 * Time: unit, bitWidth; Timestamp: unit, timezone; FixedSizeBinary: byteWidth; ...). */

#endif
