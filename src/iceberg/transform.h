/*
 * transform.h: Iceberg partition transforms (identity, bucket[N], truncate[W], year, month,
 * day, hour, void), their 32-bit Murmur3 hashing, and the inclusive projection of column
 * predicates onto partition values that scan planning uses to skip manifests and data files.
 *
 * Values are SQE values (types.h layouts). The Iceberg primitive types map onto SQE types as
 * the table layer stores them:
 *   boolean BOOLEAN; int INTEGER (TINYINT and SMALLINT are accepted and behave as int);
 *   long BIGINT; float REAL; double DOUBLE; decimal(P,S) DECIMAL(P,S); string VARCHAR (CHAR
 *   accepted); binary and fixed(L) VARBINARY; date DATE; time TIME; timestamp TIMESTAMP;
 *   timestamptz TIMESTAMP_TZ (the UTC micros; the zone key is ignored); uuid UUID.
 * SQE has no nanosecond timestamps, so timestamp_ns / timestamptz_ns do not occur here.
 *
 * Partition value types (ice_transform_result_type): bucket, year, month and hour give
 * INTEGER; day gives DATE (int32 days, which is how Iceberg Java and pyiceberg type it and how
 * manifests store it; the spec's table says int, the physical value is the same); identity,
 * truncate and void keep the source type (void values are always NULL).
 *
 * Predicates: a scan predicate `column <op> constants` is projected onto a partition field
 * with ice_project_predicate ("inclusive projection", Iceberg spec "Scan Planning"): whenever
 * a row satisfies the column predicate, its partition value satisfies the projected one. The
 * projected predicate is then tested against a data file's partition value
 * (ice_partition_pred_eval) or against a manifest's partition field summary or a data file's
 * column metrics (ice_partition_pred_eval_range). Every test is conservative: it answers false
 * only when the metadata proves that no row matches. Column metrics use the identity
 * transform: the "partition value" is then the column value itself.
 *
 * Spec: apache/iceberg format/spec.md, "Partition Transforms", "Bucket Transform Details",
 * "Truncate Transform Details", "Scan Planning", "Appendix B: 32-bit Hash Requirements".
 *
 * All functions are thread-safe (no global state).
 */
#ifndef SQE_ICEBERG_TRANSFORM_H
#define SQE_ICEBERG_TRANSFORM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "types/types.h"
#include "vec/vec.h"

/* ---- transforms -------------------------------------------------------------------------- */

typedef enum ice_transform_kind {
    ICE_T_IDENTITY = 0,
    ICE_T_BUCKET,   /* param: number of buckets N, 1..INT32_MAX */
    ICE_T_TRUNCATE, /* param: width W, 1..INT32_MAX */
    ICE_T_YEAR,
    ICE_T_MONTH,
    ICE_T_DAY,
    ICE_T_HOUR,
    ICE_T_VOID,
    ICE_T_UNKNOWN,  /* a transform this version does not know: ignored when reading, never
                       written (spec: "Partition fields that use an unknown transform can be
                       read by ignoring the partition field") */
} ice_transform_kind;

typedef struct ice_transform {
    ice_transform_kind kind;
    int32_t param; /* BUCKET: N; TRUNCATE: W; 0 otherwise */
} ice_transform;

/* Parses the JSON spelling of a transform (Appendix C): "identity", "bucket[16]",
 * "truncate[10]", "year", "month", "day", "hour", "void", case-insensitive as in Iceberg Java.
 * A name that is not one of these (including a bucket/truncate spelling that is not
 * "<name>[<digits>]") yields ICE_T_UNKNOWN with SQE_OK, so that tables using newer transforms
 * stay readable; the caller keeps the original text if it must write it back.
 * Errors: INVALID_ARGUMENTS for a NULL text or a bucket/truncate parameter outside
 * 1..INT32_MAX ("bucket[0]"). On error *out is set to ICE_T_UNKNOWN. */
int ice_transform_parse(const char *text, ice_transform *out, sqe_error *err);

/* Writes the JSON spelling of t ("bucket[16]"; "unknown" for ICE_T_UNKNOWN) into buf
 * (NUL-terminated, truncated to buf_len); returns the length needed, like snprintf. */
size_t ice_transform_format(ice_transform t, char *buf, size_t buf_len);

/* Whether t applies to a source column of type `source` (spec table "Partition Transforms"),
 * and if so the partition value's type in *out (see the top of this file). False for
 * ICE_T_UNKNOWN, nested and non-Iceberg types (JSON, intervals), bucket/truncate on floating
 * point or boolean, truncate on dates/times/UUID, year/month/day on TIME, hour on DATE. */
bool ice_transform_result_type(ice_transform t, sqe_type source, sqe_type *out);

/* Applies t to rows [0, count) of `in` (any shape; its type is the source type) and writes the
 * partition values to rows [0, count) of `out`. `out` is a caller-owned vector initialized
 * (vec_init) with the result type of ice_transform_result_type; it is reset, grown to count
 * rows if needed, and left flat. NULL in gives NULL out; void gives NULL for every row.
 * Truncated strings that do not fit inline are copied into out's heap, so out does not borrow
 * from in. Semantics follow the spec exactly: truncate of int/long/decimal floors towards
 * negative infinity (v - (((v % W) + W) % W) on the unscaled value for decimals), strings keep
 * at most W code points (in malformed UTF-8, continuation bytes stay with the byte before
 * them, at most 4 bytes per code point, so the cut never splits a sequence), binaries
 * at most W bytes; year/month/day/hour of pre-1970 values floor (1969-12-31 23:59 is hour -1).
 * Errors: NOT_SUPPORTED when t does not apply to in's type (or is ICE_T_UNKNOWN);
 * TYPE_MISMATCH when out's type is not the result type; NUMERIC_VALUE_OUT_OF_RANGE when a
 * partition value does not fit its type (a truncated int below INT32_MIN, a truncated decimal
 * beyond its precision, an hour beyond int32); OUT_OF_MEMORY. On error out's contents are
 * unspecified (still safe to vec_destroy). */
int ice_transform_apply(ice_transform t, const vec *in, uint32_t count, vec *out,
                        sqe_error *err);

/* ---- hashing (murmur3.c) ----------------------------------------------------------------- */

/* MurmurHash3 x86 32-bit with seed 0 of len bytes (Appendix B "hashBytes"), as a signed int
 * like Iceberg Java's. data may be NULL when len is 0. */
int32_t ice_murmur3_32(const void *data, size_t len);
/* hashLong: the 8 little-endian bytes of v. int, date, time, timestamp and timestamptz values
 * hash through this (int and date widened to long, spec Appendix B note 1). */
int32_t ice_hash_long(int64_t v);
/* Decimal: the minimal big-endian two's-complement bytes of the unscaled value (0 -> one 0x00
 * byte, -128 -> 0x80, 128 -> 0x00 0x80); independent of the scale. */
int32_t ice_hash_decimal(int128 unscaled);
/* Appendix B for types not valid for bucketing (booleans as hashInt(0/1), floats widened to
 * double, NaN canonicalized to 0x7ff8000000000000, -0.0 to 0.0). Not used by bucket[N]. */
int32_t ice_hash_double(double v);
/* The hash of row `row` of v (any shape) per its SQE type (see the mapping at the top).
 * Returns false when the row is NULL or the type has no bucket hash (then *out is untouched). */
bool ice_hash_value(const vec *v, uint32_t row, int32_t *out);
/* bucket_N(hash) = (hash & INT32_MAX) % n, for n >= 1. */
static inline int32_t ice_bucket_from_hash(int32_t hash, int32_t n) {
    return (int32_t)(((uint32_t)hash & 0x7fffffffu) % (uint32_t)n);
}

/* ---- predicate projection and evaluation ------------------------------------------------- */

typedef enum ice_pred_op {
    ICE_PRED_TRUE = 0, /* no projection: every partition may match */
    ICE_PRED_FALSE,    /* no partition can match (e.g. IN with no constants) */
    ICE_PRED_EQ,
    ICE_PRED_LT,
    ICE_PRED_LE,
    ICE_PRED_GT,
    ICE_PRED_GE,
    ICE_PRED_IN,
    ICE_PRED_IS_NULL,
    ICE_PRED_NOT_NULL,
} ice_pred_op;

/* A predicate on one partition field (or, with the identity transform, on a column):
 * `value <op> values`. Comparisons use row 0 of values, IN rows [0, n_values). */
typedef struct ice_partition_pred {
    ice_pred_op op;
    sqe_type type;     /* the partition value's type (result type of the transform) */
    vec values;        /* owned constants: flat, type `type`, no NULLs; zeroed when unused */
    uint32_t n_values; /* rows used in values */
} ice_partition_pred;

/* Inclusive projection of the column predicate `source <op> constants` (op one of EQ, LT, LE,
 * GT, GE, IN, IS_NULL, NOT_NULL) through transform t on a source column of type source_type.
 * constants: rows [0, n) of a vector of source_type without NULLs (any shape; unused for IS
 * [NOT] NULL); for a comparison only row 0 counts. *out is caller-owned storage, overwritten;
 * on SQE_OK the caller releases it with ice_partition_pred_destroy.
 * Rules (as Iceberg Java / pyiceberg project):
 *   identity: the same predicate;
 *   bucket: EQ and IN on the buckets of the constants, IS [NOT] NULL kept, ranges -> TRUE;
 *   truncate, year/month/day/hour: EQ/IN on the transformed constants, x < c -> p <= f(c - 1),
 *     x <= c -> p <= f(c), x > c -> p >= f(c + 1), x >= c -> p >= f(c) (for strings and
 *     binaries: p <= f(c) and p >= f(c)); IS [NOT] NULL kept. For year/month/day/hour a
 *     negative projected bound is widened by one (p <= f + 1, EQ -> IN {f, f + 1}) because
 *     older Iceberg Java writers rounded pre-1970 values towards zero (Iceberg Java's
 *     ProjectionUtil.fixInclusiveTimeProjection does the same);
 *   void and unknown transforms: TRUE.
 * The result is TRUE (never pruning) when t does not apply to source_type, the constants'
 * type differs from source_type (for decimals: precision and scale), a constant is NaN, or a
 * bound computation overflows. Errors: OUT_OF_MEMORY only; on error *out is left TRUE and
 * needs no destroy (destroying it is harmless). */
int ice_project_predicate(ice_transform t, sqe_type source_type, ice_pred_op op,
                          const vec *constants, uint32_t n, ice_partition_pred *out,
                          sqe_error *err);

/* Frees p's constants and sets it to TRUE. Safe on a zeroed or TRUE predicate. */
void ice_partition_pred_destroy(ice_partition_pred *p);

/* False only when partition value `row` of partition_value (any shape, type p->type) proves
 * that no row of the file matches: comparisons are false on a NULL value (all the file's
 * source values are NULL), IS NULL is false on a non-NULL value, NOT NULL on a NULL one. A
 * NaN value (identity on REAL/DOUBLE) and a value of another type than p->type always may
 * match. */
bool ice_partition_pred_eval(const ice_partition_pred *p, const vec *partition_value,
                             uint32_t row);

/* What a manifest's partition field summary or a data file's column metrics say about a set
 * of values. A bound is absent when its vector is NULL or its row is NULL; bounds are of the
 * predicate's type, and need only be bounds, not values of the set (truncated strings). */
typedef struct ice_value_range {
    const vec *lower;   /* lower bound at row `row`, or NULL */
    const vec *upper;   /* upper bound at row `row`, or NULL */
    uint32_t row;
    int8_t has_null;    /* 1: some value is NULL, 0: none is, -1: unknown */
    int8_t has_nan;     /* 1: some value is NaN, 0: none is, -1: unknown (floating point) */
    int8_t all_null;    /* 1: every value is NULL (null count == value count), 0: some value is
                           not NULL, -1: unknown */
} ice_value_range;

/* False only when the range proves that no value satisfies p. Comparisons and IN are tested
 * against the bounds (a missing bound is unbounded on its side); when both bounds are absent
 * and has_null == 1 and has_nan == 0 (the summary of a partition field whose values are all
 * NULL, as Iceberg Java reads it) or all_null == 1, comparisons cannot match. IS NULL needs
 * has_null != 0; NOT NULL needs all_null != 1. UUID bounds are not trusted (older Iceberg Java
 * writers ordered UUIDs as signed longs), nor are bounds with lower > upper. */
bool ice_partition_pred_eval_range(const ice_partition_pred *p, const ice_value_range *r);

#endif
