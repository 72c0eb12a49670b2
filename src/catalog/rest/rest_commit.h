/*
 * rest_commit.h: turns a commit of the engine (base metadata -> new metadata) into the body of
 * the Iceberg REST commit (CommitTableRequest: "requirements" and "updates"), the way Iceberg
 * Java's UpdateRequirements / MetadataUpdate describe a change, so the catalog can re-check the
 * base it was computed from and apply the same change to its own current metadata.
 *
 * Requirements: assert-table-uuid always; assert-ref-snapshot-id for every ref that changes
 * (snapshot-id null for a new ref); assert-current-schema-id and assert-last-assigned-field-id
 * when schemas change; assert-default-spec-id and assert-last-assigned-partition-id when specs
 * change; assert-default-sort-order-id when sort orders change.
 * Updates, in this order: upgrade-format-version, add-schema, set-current-schema, add-spec,
 * set-default-spec, add-sort-order, set-default-sort-order, set-location, add-snapshot,
 * remove-snapshots, set-snapshot-ref / remove-snapshot-ref, set-properties, remove-properties,
 * set-statistics / remove-statistics, set-partition-statistics / remove-partition-statistics.
 * A schema, spec or sort order made current in the same commit is referred to as -1 ("the last
 * one added"), since the catalog assigns the ids.
 *
 * Both sides are metadata JSON objects as written by ice_metadata_write / returned by the
 * catalog. v1 metadata without "refs" has an implicit "main" branch at current-snapshot-id.
 */
#ifndef SQE_CATALOG_REST_REST_COMMIT_H
#define SQE_CATALOG_REST_REST_COMMIT_H

#include <jansson.h>

#include "common/err.h"
#include "iceberg/metadata.h"

/* *out = {"requirements": [...], "updates": [...]} (new reference, caller decrefs).
 * INVALID_ARGUMENTS when base or next is not a metadata object (missing or mistyped fields,
 * e.g. from a hostile catalog); OUT_OF_MEMORY. *out is untouched on error. */
int rest_commit_build(json_t *base, json_t *next, json_t **out, sqe_error *err);

/* The metadata model as a JSON object (ice_metadata_write, then parsed). New reference.
 * Errors of ice_metadata_write; OUT_OF_MEMORY. */
int rest_metadata_to_json(const ice_metadata *m, json_t **out, sqe_error *err);

#endif
