/*
 * metadata_update.h: building the next version of table metadata: the common bookkeeping of
 * every commit (last-updated-ms, metadata log) and the changes that need no new snapshot:
 * schemas, partition specs, properties, refs.
 *
 * The next version starts as a shallow copy of the base: arrays are shared with the base until
 * a function below replaces them with new arrays in the arena, so the base stays untouched.
 */
#ifndef SQE_ICEBERG_METADATA_UPDATE_H
#define SQE_ICEBERG_METADATA_UPDATE_H

#include "common/arena.h"
#include "common/err.h"
#include "iceberg/metadata.h"

/* *out = a copy of base in a with last-updated-ms moved forward and base_location (may be
 * NULL) appended to the metadata log, which keeps write.metadata.previous-versions-max entries
 * (default 100). */
int ice_metadata_next(arena *a, const ice_metadata *base, const char *base_location,
                      ice_metadata **out, sqe_error *err);

/* Adds schema s (its schema_id is assigned: one above the highest) and makes it current;
 * last-column-id grows to the highest field id. An identical schema already present is
 * reused instead (as Iceberg Java does). */
int ice_metadata_set_current_schema(arena *a, ice_metadata *m, ice_schema *s, sqe_error *err);

/* Adds spec (spec_id assigned) and makes it the default; last-partition-id grows. */
int ice_metadata_set_default_spec(arena *a, ice_metadata *m, ice_partition_spec *spec,
                                  sqe_error *err);

/* Sets property key to value (NULL removes it). */
int ice_metadata_set_property(arena *a, ice_metadata *m, const char *key, const char *value,
                              sqe_error *err);

/* Sets ref name (creating it) to a branch or tag at snapshot_id; remove = true drops it. */
int ice_metadata_set_ref(arena *a, ice_metadata *m, const char *name, ice_ref_type type,
                         int64_t snapshot_id, bool remove, sqe_error *err);

#endif
