/*
 * scan_plan.h: Iceberg scan planning: from a snapshot to the data files a scan must read and
 * the delete files that may apply to them, pruned with the scan's predicates on partition
 * summaries (manifest list), partition tuples and column metrics (manifests).
 *
 * Spec: apache/iceberg format/spec.md "Scan Planning", "Partition Transforms" (predicate
 * projection), "Manifests" (metrics).
 *
 * Pruning is conservative: a file is dropped only when its manifest's partition summary, its
 * partition tuple or its column bounds and counts prove that no row satisfies a predicate. The
 * caller still applies the whole filter to the rows read. Delete manifests are never pruned
 * (the delete index decides what applies to which data file).
 */
#ifndef SQE_ICEBERG_SCAN_PLAN_H
#define SQE_ICEBERG_SCAN_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "common/arena.h"
#include "common/err.h"
#include "iceberg/manifest.h"
#include "iceberg/metadata.h"
#include "iceberg/transform.h"

/* A conjunct of the scan's filter on a top-level primitive column: `column <op> values`
 * (EQ/LT/LE/GT/GE use values row 0, IN rows [0, n_values)), or IS [NOT] NULL. values are SQE
 * values of the column's SQE type without NULLs; the caller owns them. */
typedef struct ice_scan_pred {
    int32_t field_id;
    ice_pred_op op;
    const vec *values;
    uint32_t n_values;
} ice_scan_pred;

typedef struct ice_scan_files {
    const ice_manifest_entry **data;    /* live data files (ADDED or EXISTING), in manifest order */
    uint32_t n_data;
    const ice_manifest_entry **deletes; /* live delete files (position, DV, equality) */
    uint32_t n_deletes;
    /* what pruning did, for EXPLAIN */
    uint32_t manifests_total, manifests_pruned;
    uint64_t files_total, files_pruned;
    uint64_t rows;                      /* sum of the data files' record counts */
} ice_scan_files;

/* Plans the scan of snapshot snap (NULL: a table without snapshots gives no files) of table
 * metadata m, whose rows are read with schema (the schema the query binds: column types for the
 * predicates). Reads the manifest list and every manifest that survives the partition-summary
 * test (through io/, as m->io). Everything in *out lives in a. Errors: those of io_open/io_read (naming
 * the file), INVALID_FILE from the manifest readers (the message names the file),
 * OUT_OF_MEMORY. On error *out is unspecified. */
int ice_scan_plan(arena *a, const ice_metadata *m, const ice_snapshot *snap,
                  const ice_schema *schema, const ice_scan_pred *preds, uint32_t n_preds,
                  ice_scan_files *out, sqe_error *err);

/* Reads a whole (small) file: a manifest list, a manifest or a metadata file, into a, as
 * identity io (the table's m->io; NULL: the process default, io.h). */
struct io_identity;
int ice_read_file(arena *a, const char *location, const struct io_identity *io, uint8_t **buf,
                  size_t *len, sqe_error *err);

#endif
