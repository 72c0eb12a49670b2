/*
 * delete_index.h: the delete files of one Iceberg scan, and which of them apply to each data
 * file: position deletes (Parquet), deletion vectors (Puffin) and equality deletes (Parquet).
 *
 * Spec: apache/iceberg format/spec.md "Row-level Deletes" (position delete files: file_path
 * field id 2147483546, pos 2147483545, optional row; equality delete files: columns by
 * equality_ids, NULL equals NULL; "Deletion Vectors"), "Scan Planning" (which deletes apply).
 *
 * Use (one index per scan):
 *   ice_delete_index_create(metadata, &idx, err);
 *   for each live entry of the snapshot's delete manifests: ice_delete_index_add(idx, e, err);
 *   -- then, from any number of scan threads at once --
 *   if (ice_delete_index_may_apply(idx, data_entry)) {           (cheap, no I/O)
 *       ice_file_deletes d;
 *       ice_delete_index_for_file(idx, data_entry, &d, err);     (loads delete files lazily)
 *       for each chunk read from the data file, rows at positions first_pos..:
 *           ice_file_deletes_filter(&d, chunk, first_pos, eq_cols, sel, &n_sel, err);
 *       ice_file_deletes_release(&d);
 *   }
 *   ice_delete_index_destroy(idx);
 *
 * Which deletes apply to a data file D (data sequence number s, spec id and partition tuple):
 *   - a deletion vector when its referenced_data_file is D's path and s <= its sequence number;
 *   - a position delete file when s <= its sequence number, its referenced_data_file (if set)
 *     is D's path, its file_path bounds (if any) include D's path, and it is in D's spec and
 *     partition or in an unpartitioned spec (global); not at all when a DV applies (a DV holds
 *     every earlier position delete of its file);
 *   - an equality delete file when s < its sequence number and it is in D's spec and partition
 *     or in an unpartitioned spec (global).
 * Entries with status DELETED are ignored.
 *
 * Equality semantics: a data row is deleted when its values of the set's field ids equal those
 * of a delete row, NULL equal to NULL; integers compare by value across widths (int promoted
 * to long), float and double by double value (NaN equal to NaN, -0.0 distinct from 0.0, as
 * Java's Float.equals), decimals by unscaled value, timestamps with time zone by instant.
 *
 * Thread safety: create/add/destroy from one thread; may_apply, for_file, filter and the set
 * accessors from any number of threads. Each delete file is loaded once (per-file lock); a load
 * error is remembered and returned to every later asker.
 *
 * Errors: INVALID_FILE naming the delete file for malformed content (missing or mistyped
 * columns, NULL or negative positions, bad DVs), NOT_SUPPORTED for delete files in ORC or Avro
 * and for equality ids of nested or unsupported types, the Parquet/Puffin/io errors (prefixed
 * with "Iceberg delete file <path>: "), INVALID_ARGUMENTS for bad calls, OUT_OF_MEMORY.
 */
#ifndef SQE_ICEBERG_DELETE_INDEX_H
#define SQE_ICEBERG_DELETE_INDEX_H

#include <stdbool.h>
#include <stdint.h>

#include "common/err.h"
#include "iceberg/manifest.h"
#include "iceberg/metadata.h"
#include "iceberg/roaring.h"
#include "vec/vec.h"

typedef struct ice_delete_index ice_delete_index;
/* The rows of one equality delete file: its equality field ids and a hash set of value tuples. */
typedef struct ice_eq_delete_set ice_eq_delete_set;

/* What applies to one data file (see ice_delete_index_for_file). */
typedef struct ice_file_deletes {
    const ice_roaring *positions;          /* deleted row positions, NULL when none apply */
    uint32_t n_eq;                         /* applicable equality delete sets */
    const ice_eq_delete_set *const *eq;    /* n_eq sets, in delete-file order */
    /* private */
    ice_roaring merged_;
    const ice_eq_delete_set **eq_buf_;
} ice_file_deletes;

/* Creates an empty index. m (borrowed; must outlive the index) supplies column names for
 * equality delete files written without field ids. Errors: OUT_OF_MEMORY (*out NULL). */
int ice_delete_index_create(const ice_metadata *m, ice_delete_index **out, sqe_error *err);

/* Registers one delete manifest entry (content POSITION_DELETES or EQUALITY_DELETES; status
 * DELETED entries are skipped). Everything needed is copied: e may be freed afterwards.
 * Errors: INVALID_ARGUMENTS for a data file entry; INVALID_FILE "Invalid Iceberg manifest:
 * ..." for a DV without referenced_data_file / content offset and size, or an equality delete
 * without equality ids; NOT_SUPPORTED for partition values of unsupported types;
 * OUT_OF_MEMORY. On error the index is unchanged. */
int ice_delete_index_add(ice_delete_index *idx, const ice_manifest_entry *e, sqe_error *err);

/* Frees the index and everything loaded. NULL is allowed. Results of for_file must have been
 * released before. */
void ice_delete_index_destroy(ice_delete_index *idx);

/* Number of delete files registered. */
uint32_t ice_delete_index_count(const ice_delete_index *idx);

/* Whether any delete file applies to the data file of entry data (no I/O; a position delete
 * file with no row for this path still counts). */
bool ice_delete_index_may_apply(const ice_delete_index *idx, const ice_manifest_entry *data);

/*
 * Fills *out with what applies to the data file of entry data, loading the delete files it
 * needs (once per index). out->positions is the union of the DV / position delete rows for
 * this path (borrowed from the index, or merged into out when several files apply), out->eq
 * the applicable equality sets (borrowed from the index). Call ice_file_deletes_release when
 * done; *out stays valid as long as the index. On error *out is empty (release is still
 * allowed) and the error names the delete file.
 */
int ice_delete_index_for_file(ice_delete_index *idx, const ice_manifest_entry *data,
                              ice_file_deletes *out, sqe_error *err);

/* Frees what *d owns; d is empty afterwards. */
void ice_file_deletes_release(ice_file_deletes *d);

/* True when nothing applies (no positions, no equality sets). */
bool ice_file_deletes_empty(const ice_file_deletes *d);

/*
 * Computes the surviving rows of chunk, whose row i is at position first_pos + i of the data
 * file: sel (room for chunk->count entries) receives the indices of the rows that are neither
 * at a deleted position nor equal to a row of an applicable equality set, ascending; *n_sel
 * their number. eq_cols[k] (k < d->n_eq) gives, for equality set d->eq[k], the chunk column
 * index of each of its field ids in ice_eq_delete_set_field_ids order (eq_cols may be NULL when
 * n_eq is 0). Errors: INVALID_ARGUMENTS for a column index outside the chunk, NOT_SUPPORTED
 * for a column type that equality deletes cannot compare (nested types), OUT_OF_MEMORY;
 * *n_sel is 0 then.
 */
int ice_file_deletes_filter(const ice_file_deletes *d, const vec_chunk *chunk, int64_t first_pos,
                            const uint32_t *const *eq_cols, uint32_t *sel, uint32_t *n_sel,
                            sqe_error *err);

/* Accessors of an equality set (valid while the index lives). */
uint32_t ice_eq_delete_set_n_fields(const ice_eq_delete_set *s);
const int32_t *ice_eq_delete_set_field_ids(const ice_eq_delete_set *s);
/* Distinct value tuples in the set. */
uint64_t ice_eq_delete_set_size(const ice_eq_delete_set *s);
/* Whether row `row` of cols[0..n_fields) (one vector per field id, any shape) is in the set.
 * Errors: NOT_SUPPORTED for nested column types, OUT_OF_MEMORY. */
int ice_eq_delete_set_contains(const ice_eq_delete_set *s, const vec *const *cols, uint32_t row,
                               bool *found, sqe_error *err);

#endif
