/*
 * reachable.c: the files a table references (see reachable.h).
 *
 * INTERFACE: ice_path_set_init, ice_path_set_add, ice_path_set_has, ice_reachable_add_snapshot,
 *   ice_reachable_add_table.
 * NOTES
 *   The set is open addressing with linear probing over FNV-1a hashes, grown at half full.
 *   Each manifest list and manifest is read into a scratch arena that is dropped right after;
 *   only the paths are copied into the set's arena.
 */
#include "iceberg/reachable.h"

#include <string.h>

#include "iceberg/manifest.h"
#include "iceberg/scan_plan.h"
#include "io/io.h"

static uint64_t hash_path(const char *s) {
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) h = (h ^ (uint8_t)*s) * 1099511628211ull;
    return h;
}

void ice_path_set_init(ice_path_set *s, arena *a) {
    memset(s, 0, sizeof *s);
    s->a = a;
}

static uint32_t find_slot(const char **slots, uint32_t cap, const char *path) {
    uint32_t i = (uint32_t)(hash_path(path) & (cap - 1));
    while (slots[i] && strcmp(slots[i], path) != 0) i = (i + 1) & (cap - 1);
    return i;
}

static int grow(ice_path_set *s, sqe_error *err) {
    uint32_t cap = s->cap ? s->cap * 2 : 64;
    const char **slots = ARENA_ARRAY(s->a, const char *, cap);
    uint8_t *kinds = ARENA_ARRAY(s->a, uint8_t, cap);
    if (!slots || !kinds) return err_nomem(err, "file set");
    for (uint32_t i = 0; i < s->cap; i++)
        if (s->slots[i]) {
            uint32_t k = find_slot(slots, cap, s->slots[i]);
            slots[k] = s->slots[i];
            kinds[k] = s->kinds[i];
        }
    s->slots = slots;
    s->kinds = kinds;
    s->cap = cap;
    return SQE_OK;
}

int ice_path_set_add(ice_path_set *s, const char *path, ice_file_kind kind, bool *added,
                     sqe_error *err) {
    if (added) *added = false;
    if (!path) return SQE_OK;
    const char *p = io_local_path(path);
    if (s->cap == 0 || (s->n + 1) * 2 > s->cap) SQE_TRY(grow(s, err));
    uint32_t i = find_slot(s->slots, s->cap, p);
    if (s->slots[i]) return SQE_OK;
    char *copy = arena_strdup(s->a, p);
    if (!copy) return err_nomem(err, "file set");
    s->slots[i] = copy;
    s->kinds[i] = (uint8_t)kind;
    s->n++;
    if (added) *added = true;
    return SQE_OK;
}

bool ice_path_set_has(const ice_path_set *s, const char *path) {
    if (!s || !s->cap || !path) return false;
    const char *p = io_local_path(path);
    return s->slots[find_slot(s->slots, s->cap, p)] != NULL;
}

/* Reads one manifest (list entry mf, or a v1 legacy path when mf is NULL) and adds its files. */
static int add_manifest(ice_path_set *s, const ice_metadata *m, const char *path,
                        const ice_manifest_file *mf, const ice_path_set *exclude,
                        bool all_entries, sqe_error *err) {
    if (ice_path_set_has(exclude, path)) return SQE_OK;
    bool added;
    SQE_TRY(ice_path_set_add(s, path, ICE_FILE_MANIFEST, &added, err));
    if (!added) return SQE_OK;
    arena scratch;
    arena_init(&scratch, NULL);
    uint8_t *buf;
    size_t len;
    ice_manifest *man;
    int rc = ice_read_file(&scratch, path, m->io, &buf, &len, err);
    if (!rc) rc = ice_manifest_read(&scratch, buf, len, m, mf, &man, err);
    for (uint32_t i = 0; !rc && i < man->n_entries; i++) {
        const ice_manifest_entry *e = &man->entries[i];
        if (!all_entries && e->status == ICE_STATUS_DELETED) continue;
        if (ice_path_set_has(exclude, e->file.file_path)) continue;
        ice_file_kind kind = e->file.content == ICE_CONTENT_DATA ? ICE_FILE_DATA
                             : e->file.content == ICE_CONTENT_EQUALITY_DELETES
                                 ? ICE_FILE_EQUALITY_DELETES
                                 : ICE_FILE_POSITION_DELETES;
        rc = ice_path_set_add(s, e->file.file_path, kind, NULL, err);
    }
    arena_destroy(&scratch);
    return rc;
}

int ice_reachable_add_snapshot(ice_path_set *s, const ice_metadata *m, const ice_snapshot *snap,
                               const ice_path_set *exclude, bool all_entries, sqe_error *err) {
    for (uint32_t i = 0; i < snap->n_manifests; i++)
        SQE_TRY(add_manifest(s, m, snap->manifests[i], NULL, exclude, all_entries, err));
    if (!snap->manifest_list || ice_path_set_has(exclude, snap->manifest_list)) return SQE_OK;
    bool added;
    SQE_TRY(ice_path_set_add(s, snap->manifest_list, ICE_FILE_MANIFEST_LIST, &added, err));
    if (!added) return SQE_OK;
    arena scratch;
    arena_init(&scratch, NULL);
    uint8_t *buf;
    size_t len;
    ice_manifest_file *list = NULL;
    uint32_t n = 0;
    int rc = ice_read_file(&scratch, snap->manifest_list, m->io, &buf, &len, err);
    if (!rc) rc = ice_manifest_list_read(&scratch, buf, len, &list, &n, NULL, err);
    for (uint32_t i = 0; !rc && i < n; i++)
        rc = add_manifest(s, m, list[i].manifest_path, &list[i], exclude, all_entries, err);
    arena_destroy(&scratch);
    return rc;
}

int ice_reachable_add_table(ice_path_set *s, const ice_metadata *m, const char *metadata_location,
                            sqe_error *err) {
    SQE_TRY(ice_path_set_add(s, metadata_location, ICE_FILE_METADATA, NULL, err));
    for (uint32_t i = 0; i < m->n_metadata_log; i++)
        SQE_TRY(ice_path_set_add(s, m->metadata_log[i].metadata_file, ICE_FILE_METADATA, NULL,
                                 err));
    for (uint32_t i = 0; i < m->n_statistics; i++)
        SQE_TRY(ice_path_set_add(s, m->statistics[i].path, ICE_FILE_STATISTICS, NULL, err));
    for (uint32_t i = 0; i < m->n_partition_statistics; i++)
        SQE_TRY(ice_path_set_add(s, m->partition_statistics[i].path, ICE_FILE_STATISTICS, NULL,
                                 err));
    for (uint32_t i = 0; i < m->n_snapshots; i++)
        SQE_TRY(ice_reachable_add_snapshot(s, m, &m->snapshots[i], NULL, true, err));
    return SQE_OK;
}
