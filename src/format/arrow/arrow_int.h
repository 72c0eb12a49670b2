/*
 * arrow_int.h: private to src/format/arrow: Arrow FlatBuffers constants (union ids, enum values
 * and vtable slots of Schema.fbs / Message.fbs) and the decoder's per-field layout record.
 */
#ifndef SQE_FORMAT_ARROW_ARROW_INT_H
#define SQE_FORMAT_ARROW_ARROW_INT_H

#include <stdint.h>

#include "format/arrow/arrow_ipc.h"

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

/* Enum values. */
enum { ARROW_V5 = 4 };                                          /* MetadataVersion */
enum { ARROW_PREC_HALF = 0, ARROW_PREC_SINGLE = 1, ARROW_PREC_DOUBLE = 2 };
enum { ARROW_DATE_DAY = 0, ARROW_DATE_MILLI = 1 };
enum { ARROW_UNIT_SECOND = 0, ARROW_UNIT_MILLI = 1, ARROW_UNIT_MICRO = 2, ARROW_UNIT_NANO = 3 };
enum { ARROW_IVL_YEAR_MONTH = 0, ARROW_IVL_DAY_TIME = 1, ARROW_IVL_MONTH_DAY_NANO = 2 };

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

#define ARROW_EXT_NAME "ARROW:extension:name"
#define ARROW_EXT_META "ARROW:extension:metadata"
/* Field metadata naming the SQE type of a time/timestamp column whose precision the Arrow unit
 * alone does not say (1, 2, 4, 5): "timestamp(2)". Written and consumed by format/arrow only. */
#define ARROW_SQE_TYPE "sqe:type"

/* The Arrow unit SQE writes for time/timestamp precision p: seconds for 0, milliseconds for
 * 1..3, microseconds for 4..6. */
static inline int arrow_unit_for_precision(int p) {
    return p <= 0 ? ARROW_UNIT_SECOND : p <= 3 ? ARROW_UNIT_MILLI : ARROW_UNIT_MICRO;
}
/* Microseconds per tick of unit (second, milli, micro); 1 for anything else. */
static inline int64_t arrow_unit_micros(int unit) {
    return unit == ARROW_UNIT_SECOND ? 1000000 : unit == ARROW_UNIT_MILLI ? 1000 : 1;
}

/* How a decoded field is laid out in Arrow (what arrow_batch_decode needs beyond sqe_type). */
struct arrow_src_field {
    uint8_t arrow_type;   /* ARROW_T_* */
    bool is_signed;       /* Int */
    int32_t bit_width;    /* Int, Decimal, Time */
    int32_t unit;         /* Date/Time/Timestamp/Duration/Interval unit; FloatingPoint precision */
    int32_t byte_width;   /* FixedSizeBinary byteWidth, FixedSizeList listSize, Timestamp zone key */
    sqe_type type;        /* the SQE type it decodes to */
    uint32_t n_children;
    const arrow_src_field *children;
};

#endif
