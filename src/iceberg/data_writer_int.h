/*
 * data_writer_int.h: what data_writer.c and data_metrics.c share: the primitive leaves of an
 * Iceberg schema in pre-order, which is the order of the Parquet leaf columns the data writer
 * writes (and of the column chunks of every row group).
 */
#ifndef SQE_ICEBERG_DATA_WRITER_INT_H
#define SQE_ICEBERG_DATA_WRITER_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "common/arena.h"
#include "common/err.h"
#include "iceberg/metadata.h"

typedef struct ice_leaf {
    int32_t field_id;
    const ice_type *type;     /* primitive */
    const char *name;         /* Iceberg column name: "a.b", "tags.element", "m.key" */
    bool in_repeated;         /* inside a list or map (no bounds) */
} ice_leaf;

/* The primitive leaves of schema in pre-order (struct fields in order, list element, map key
 * then value), allocated in a. Errors: OUT_OF_MEMORY, INVALID_ARGUMENTS for nesting deeper than
 * ICE_MAX_TYPE_DEPTH. */
int ice_schema_leaves(arena *a, const ice_schema *schema, ice_leaf **out, uint32_t *n,
                      sqe_error *err);

#endif
