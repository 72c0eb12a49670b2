/*
 * arrow_int.h: private to src/format/arrow: the Arrow FlatBuffers constants only this folder
 * needs (unit, precision and interval enum values, extension metadata names; the union ids and
 * vtable slots are public in arrow_fbs.h, included here) and the decoder's per-field layout
 * record.
 */
#ifndef SQE_FORMAT_ARROW_ARROW_INT_H
#define SQE_FORMAT_ARROW_ARROW_INT_H

#include <stdint.h>

#include "format/arrow/arrow_fbs.h"
#include "format/arrow/arrow_ipc.h"

/* Enum values (Schema.fbs) format/arrow alone needs. */
enum { ARROW_PREC_HALF = 0, ARROW_PREC_SINGLE = 1, ARROW_PREC_DOUBLE = 2 };
enum { ARROW_DATE_DAY = 0, ARROW_DATE_MILLI = 1 };
enum { ARROW_UNIT_SECOND = 0, ARROW_UNIT_MILLI = 1, ARROW_UNIT_MICRO = 2, ARROW_UNIT_NANO = 3 };
enum { ARROW_IVL_YEAR_MONTH = 0, ARROW_IVL_DAY_TIME = 1, ARROW_IVL_MONTH_DAY_NANO = 2 };

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
