/*
 * reachable.h: the files an Iceberg table references: metadata files (the current one and the
 * metadata log), manifest lists, manifests, data and delete files of snapshots, statistics
 * files. Table maintenance uses it: expire_snapshots deletes what only expired snapshots
 * referenced, remove_orphan_files deletes what nothing references.
 *
 * Spec: apache/iceberg format/spec.md "Snapshots", "Manifest Lists", "Manifests",
 * "Table Statistics"; Iceberg Java's ReachableFileUtil / ReachableFileCleanup (behaviour).
 *
 * Paths are kept as local paths (io_local_path), so "file:/x", "file:///x" and "/x" are the same
 * file.
 */
#ifndef SQE_ICEBERG_REACHABLE_H
#define SQE_ICEBERG_REACHABLE_H

#include <stdbool.h>
#include <stdint.h>

#include "common/arena.h"
#include "common/err.h"
#include "iceberg/metadata.h"

typedef enum ice_file_kind {
    ICE_FILE_METADATA = 0,
    ICE_FILE_MANIFEST_LIST,
    ICE_FILE_MANIFEST,
    ICE_FILE_DATA,
    ICE_FILE_POSITION_DELETES,     /* position delete files and deletion vectors */
    ICE_FILE_EQUALITY_DELETES,
    ICE_FILE_STATISTICS,
} ice_file_kind;

/* A set of paths with the kind of file each is (a hash set; everything in arena a). Iterate
 * over slots[0..cap) skipping NULL entries. */
typedef struct ice_path_set {
    arena *a;
    const char **slots;
    uint8_t *kinds;       /* ice_file_kind per slot */
    uint32_t cap, n;
} ice_path_set;

/* An empty set whose storage comes from a (borrowed; must outlive the set). */
void ice_path_set_init(ice_path_set *s, arena *a);
/* Adds path (copied; normalized with io_local_path) with its kind; *added (may be NULL) tells
 * whether it was new (a path already present keeps its first kind). OUT_OF_MEMORY leaves the
 * set as it was. */
int ice_path_set_add(ice_path_set *s, const char *path, ice_file_kind kind, bool *added,
                     sqe_error *err);
/* Is path (normalized the same way) in the set? s may be NULL (then false). */
bool ice_path_set_has(const ice_path_set *s, const char *path);

/* Adds the manifest list of snap (or its v1 "manifests"), each of its manifests that is not in
 * exclude (may be NULL), and the data and delete files of the entries of those manifests that
 * are not in exclude: every entry when all_entries, else only live ones (ADDED, EXISTING).
 * Manifests already in s are not read again. m types the manifests (partition specs).
 * Errors: those of reading the files (NOT_FOUND / IO_ERROR / INVALID_FILE naming the file),
 * OUT_OF_MEMORY; s then holds part of the files. */
int ice_reachable_add_snapshot(ice_path_set *s, const ice_metadata *m, const ice_snapshot *snap,
                               const ice_path_set *exclude, bool all_entries, sqe_error *err);

/* Everything table version m (written at metadata_location, may be NULL) references: that
 * metadata file and those of the metadata log, statistics and partition statistics files, and
 * for every snapshot its manifest list, manifests and all their entries' files (deleted entries
 * included: such a file may still be read by time travel to an older snapshot). Same errors. */
int ice_reachable_add_table(ice_path_set *s, const ice_metadata *m, const char *metadata_location,
                            sqe_error *err);

#endif
