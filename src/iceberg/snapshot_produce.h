/*
 * snapshot_produce.h: a new table version from a change: files added (data or delete files) and
 * files removed, as one new snapshot on a branch: new manifests for the added files, affected
 * manifests rewritten with the removed entries marked DELETED, a new manifest list, and the new
 * table metadata (snapshot, summary, refs, logs, sequence number, v3 row ids).
 *
 * Spec: apache/iceberg format/spec.md "Snapshots", "Manifest Lists", "Manifests" (entry status,
 * sequence number inheritance), "Commit Conflict Resolution and Retry", "Snapshot Summary".
 *
 * Nothing here commits: the caller swaps the metadata in the catalog (compare and swap). When
 * the swap loses, the caller deletes the files this attempt wrote (ice_produced.written), reloads
 * the table and produces again from the new version: the change is re-applied on top of what
 * the other writer committed (appends always succeed again; removing a file that the other
 * writer already removed fails with COMMIT_CONFLICT).
 */
#ifndef SQE_ICEBERG_SNAPSHOT_PRODUCE_H
#define SQE_ICEBERG_SNAPSHOT_PRODUCE_H

#include <stdint.h>

#include "common/arena.h"
#include "common/err.h"
#include "iceberg/manifest.h"
#include "iceberg/metadata.h"

typedef struct ice_snapshot_change {
    const char *operation;          /* summary "operation": append, overwrite, delete, replace */
    const ice_data_file *added;     /* new data and delete files (content tells which), all of
                                       one partition spec */
    uint32_t n_added;
    const char *const *removed;     /* paths of live data or delete files to remove */
    const char *const *removed_refs; /* NULL, or per removed path the referenced_data_file the
                                       entry must have (NULL: any), so one deletion vector of
                                       a Puffin file shared by several is removed alone */
    uint32_t n_removed;
    const char *branch;             /* NULL = "main" */
    const char *base_location;      /* the metadata file of base (for the metadata log) */
} ice_snapshot_change;

typedef struct ice_produced {
    ice_metadata *meta;             /* the new metadata (in the caller's arena) */
    int64_t snapshot_id;
    const char **written;           /* locations of the manifests and manifest list written */
    uint32_t n_written;
    const struct io_identity *io;   /* base->io: who wrote them (ice_produced_discard) */
} ice_produced;

/* Produces the next version of base with change ch. Writes manifest and manifest-list files
 * (under write.metadata.path or <location>/metadata); everything returned lives in a.
 * Errors: COMMIT_CONFLICT when a file to remove is no longer live (someone else removed it);
 * INVALID_ARGUMENTS for added files of several specs or delete files in a v1 table; the
 * manifest readers' and writers' errors; IO errors naming the file. On error the files this
 * call wrote are deleted again. */
int ice_snapshot_produce(arena *a, const ice_metadata *base, const ice_snapshot_change *ch,
                         ice_produced *out, sqe_error *err);

/* Deletes the files an unsuccessful attempt wrote (errors ignored). */
void ice_produced_discard(const ice_produced *p);

/* The live files of snapshot snap of m (data and delete), read from its manifests, in a: used
 * by writers that must find the files holding rows to delete or update. */
int ice_snapshot_live_files(arena *a, const ice_metadata *m, const ice_snapshot *snap,
                            const ice_manifest_entry ***entries, uint32_t *n, sqe_error *err);

#endif
