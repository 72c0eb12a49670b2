/*
 * snapshot_produce.c: the next table version from added and removed files (see
 * snapshot_produce.h).
 *
 * INTERFACE: ice_snapshot_produce, ice_produced_discard, ice_snapshot_live_files.
 * NOTES
 *   Added files go into new manifests (one for data, one for deletes) whose entries carry the
 *   new snapshot id and no sequence numbers, so they inherit the commit's sequence number from
 *   the manifest list (spec "Sequence Number Inheritance"): a retried commit only rewrites the
 *   manifest list and metadata. Manifests holding removed files are rewritten: the removed
 *   entries become DELETED (with the new snapshot id), the others EXISTING with their sequence
 *   numbers spelled out; entries already DELETED are dropped. Untouched manifests carry over.
 *   Summary totals come from the parent's summary plus this change's deltas, as Iceberg Java's
 *   SnapshotSummary does; when the parent lacks a total it is left out.
 */
#include "iceberg/snapshot_produce.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/random.h"
#include "iceberg/metadata_update.h"
#include "iceberg/scan_plan.h"
#include "io/io.h"

typedef struct producer {
    arena *a;
    const ice_metadata *base;
    const ice_snapshot_change *ch;
    ice_produced *out;
    uint32_t cap_written;
    const char *meta_dir;
    int64_t snapshot_id;
    int format_version;
    bool *removed_found;
    /* deltas for the summary */
    int64_t added_data_files, added_delete_files, added_records, added_size;
    int64_t added_pos_deletes, added_eq_deletes, added_dvs;
    int64_t removed_data_files, removed_delete_files, removed_records, removed_size;
    int64_t removed_pos_deletes, removed_eq_deletes;
} producer;

static int note_written(producer *p, const char *location, sqe_error *err) {
    if (p->out->n_written == p->cap_written) {
        uint32_t cap = p->cap_written ? p->cap_written * 2 : 8;
        const char **g = ARENA_ARRAY(p->a, const char *, cap);
        if (!g) return err_nomem(err, "snapshot");
        if (p->out->n_written) memcpy(g, p->out->written, p->out->n_written * sizeof *g);
        p->out->written = g;
        p->cap_written = cap;
    }
    p->out->written[p->out->n_written++] = location;
    return SQE_OK;
}

static int write_file(producer *p, const char *location, const uint8_t *bytes, size_t len,
                      sqe_error *err) {
    SQE_TRY(io_write_new_as(location, p->base->io, bytes, len, err));
    return note_written(p, location, err);
}

static int metadata_dir(producer *p, sqe_error *err) {
    const char *base = ice_kv_get(&p->base->properties, "write.metadata.path");
    const char *suffix = "";
    if (!base || !*base) {
        base = p->base->location;
        suffix = "/metadata";
    }
    if (!base || !*base) return err_set(err, SQE_ERR_INVALID_FILE, "table metadata has no location");
    size_t len = strlen(base);
    while (len > 1 && base[len - 1] == '/') len--;
    p->meta_dir = arena_sprintf(p->a, "%.*s%s", (int)len, base, suffix);
    return p->meta_dir ? SQE_OK : err_nomem(err, "snapshot");
}

static void count_file(producer *p, const ice_data_file *f, bool added) {
    int64_t rows = f->record_count > 0 ? f->record_count : 0;
    int64_t size = f->file_size_in_bytes > 0 ? f->file_size_in_bytes : 0;
    if (f->content == ICE_CONTENT_DATA) {
        if (added) {
            p->added_data_files++;
            p->added_records += rows;
            p->added_size += size;
        } else {
            p->removed_data_files++;
            p->removed_records += rows;
            p->removed_size += size;
        }
        return;
    }
    bool eq = f->content == ICE_CONTENT_EQUALITY_DELETES;
    if (added) {
        p->added_delete_files++;
        p->added_size += size;
        if (eq) p->added_eq_deletes += rows;
        else p->added_pos_deletes += rows;
        if (f->file_format && !strcmp(f->file_format, "PUFFIN")) p->added_dvs++;
    } else {
        p->removed_delete_files++;
        p->removed_size += size;
        if (eq) p->removed_eq_deletes += rows;
        else p->removed_pos_deletes += rows;
    }
}

/* Writes a manifest of entries and appends its list entry to files. */
static int write_manifest(producer *p, ice_manifest_content content, const ice_partition_spec *spec,
                          const ice_manifest_entry *entries, uint32_t n, ice_manifest_file *mf,
                          sqe_error *err) {
    ice_manifest_write_opts o;
    memset(&o, 0, sizeof o);
    o.format_version = p->format_version;
    o.content = content;
    o.schema = ice_metadata_current_schema(p->base);
    o.spec = spec;
    o.snapshot_id = p->snapshot_id;
    o.codec = AVRO_CODEC_DEFLATE;
    uint8_t *bytes = NULL;
    size_t len = 0;
    SQE_TRY(ice_manifest_write(&o, entries, n, &bytes, &len, err));
    char uuid[37];
    int rc = sqe_uuid_v4(uuid, err);
    char *loc = rc ? NULL : arena_sprintf(p->a, "%s/%s-m%u.avro", p->meta_dir, uuid, p->out->n_written);
    if (!rc && !loc) rc = err_nomem(err, "manifest");
    if (!rc) rc = write_file(p, loc, bytes, len, err);
    free(bytes);
    SQE_TRY(rc);
    SQE_TRY(ice_manifest_summarize(p->a, &o, entries, n, loc, (int64_t)len, mf, err));
    return SQE_OK;
}

/* Manifests for the added files (data first, then deletes). */
static int add_new_manifests(producer *p, ice_manifest_file *files, uint32_t *n_files,
                             sqe_error *err) {
    const ice_snapshot_change *ch = p->ch;
    if (!ch->n_added) return SQE_OK;
    int32_t spec_id = ch->added[0].spec_id;
    const ice_partition_spec *spec = ice_metadata_spec(p->base, spec_id);
    if (!spec)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "added files name partition spec %d, "
                       "which the table does not have", spec_id);
    ice_manifest_entry *data = ARENA_ARRAY(p->a, ice_manifest_entry, ch->n_added);
    ice_manifest_entry *dels = ARENA_ARRAY(p->a, ice_manifest_entry, ch->n_added);
    if (!data || !dels) return err_nomem(err, "snapshot");
    uint32_t nd = 0, nx = 0;
    for (uint32_t i = 0; i < ch->n_added; i++) {
        const ice_data_file *f = &ch->added[i];
        if (f->spec_id != spec_id)
            return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                           "added files of partition specs %d and %d in one commit", spec_id,
                           f->spec_id);
        if (f->content != ICE_CONTENT_DATA && p->format_version < 2)
            return err_set(err, SQE_ERR_NOT_SUPPORTED,
                           "unsupported: delete files in a format version 1 table (upgrade it "
                           "with ALTER TABLE ... SET PROPERTIES format_version = 2)");
        ice_manifest_entry *e = f->content == ICE_CONTENT_DATA ? &data[nd++] : &dels[nx++];
        memset(e, 0, sizeof *e);
        e->status = ICE_STATUS_ADDED;
        e->has_snapshot_id = true;
        e->snapshot_id = p->snapshot_id;
        e->file = *f;
        count_file(p, f, true);
    }
    if (nd) SQE_TRY(write_manifest(p, ICE_MANIFEST_DATA, spec, data, nd, &files[(*n_files)++], err));
    if (nx)
        SQE_TRY(write_manifest(p, ICE_MANIFEST_DELETES, spec, dels, nx, &files[(*n_files)++], err));
    return SQE_OK;
}

/* The index of the removal that entry e matches, or -1. */
static int removed_index(const producer *p, const ice_data_file *f) {
    for (uint32_t i = 0; i < p->ch->n_removed; i++) {
        if (strcmp(p->ch->removed[i], f->file_path) != 0) continue;
        const char *ref = p->ch->removed_refs ? p->ch->removed_refs[i] : NULL;
        if (ref && (!f->referenced_data_file || strcmp(ref, f->referenced_data_file) != 0))
            continue;
        return (int)i;
    }
    return -1;
}

/* Carries manifest mf over, rewriting it when it holds removed files. */
static int carry_manifest(producer *p, const ice_manifest_file *mf, ice_manifest_file *out,
                          sqe_error *err) {
    *out = *mf;
    if (!p->ch->n_removed) return SQE_OK;
    uint8_t *buf;
    size_t len;
    SQE_TRY(ice_read_file(p->a, mf->manifest_path, p->base->io, &buf, &len, err));
    ice_manifest *man;
    int rc = ice_manifest_read(p->a, buf, len, p->base, mf, &man, err);
    if (rc) {
        err_prefix(err, "%s", mf->manifest_path);
        return rc;
    }
    bool touched = false;
    for (uint32_t i = 0; i < man->n_entries && !touched; i++)
        if (man->entries[i].status != ICE_STATUS_DELETED &&
            removed_index(p, &man->entries[i].file) >= 0)
            touched = true;
    if (!touched) return SQE_OK;
    ice_manifest_entry *entries = ARENA_ARRAY(p->a, ice_manifest_entry, man->n_entries + 1);
    if (!entries) return err_nomem(err, "snapshot");
    uint32_t n = 0;
    for (uint32_t i = 0; i < man->n_entries; i++) {
        const ice_manifest_entry *e = &man->entries[i];
        if (e->status == ICE_STATUS_DELETED) continue;
        entries[n] = *e;
        int k = removed_index(p, &e->file);
        if (k >= 0) {
            p->removed_found[k] = true;
            entries[n].status = ICE_STATUS_DELETED;
            entries[n].has_snapshot_id = true;
            entries[n].snapshot_id = p->snapshot_id;
            count_file(p, &e->file, false);
        } else {
            entries[n].status = ICE_STATUS_EXISTING;
        }
        n++;
    }
    const ice_partition_spec *spec = man->spec ? man->spec
                                               : ice_metadata_spec(p->base, man->spec_id);
    if (!spec)
        return err_set(err, SQE_ERR_INVALID_FILE, "%s: partition spec %d is not in the table",
                       mf->manifest_path, man->spec_id);
    return write_manifest(p, man->content, spec, entries, n, out, err);
}

static int read_manifest_list(arena *a, const io_identity *io, const ice_snapshot *snap,
                              ice_manifest_file **files,
                              uint32_t *n, sqe_error *err) {
    *files = NULL;
    *n = 0;
    if (!snap) return SQE_OK;
    if (!snap->manifest_list)
        return err_set(err, SQE_ERR_NOT_SUPPORTED,
                       "unsupported: writing to a v1 table whose snapshot %lld lists manifests "
                       "without a manifest list",
                       (long long)snap->snapshot_id);
    uint8_t *buf;
    size_t len;
    SQE_TRY(ice_read_file(a, snap->manifest_list, io, &buf, &len, err));
    int rc = ice_manifest_list_read(a, buf, len, files, n, NULL, err);
    if (rc) err_prefix(err, "%s", snap->manifest_list);
    return rc;
}

/* Sets summary key k to the decimal v. */
static int put(arena *a, ice_kv *kv, uint32_t *n, const char *k, int64_t v) {
    char *s = arena_sprintf(a, "%lld", (long long)v);
    if (!s) return -1;
    kv[(*n)++] = (ice_kv){k, s};
    return 0;
}

static int64_t parent_total(const ice_snapshot *parent, const char *key, bool *known) {
    if (!parent) return 0; /* the first snapshot: totals start at 0 */
    const char *v = parent->has_summary ? ice_kv_get(&parent->summary, key) : NULL;
    if (!v) {
        *known = false;
        return 0;
    }
    return strtoll(v, NULL, 10);
}

static int build_summary(producer *p, const ice_snapshot *parent, ice_kv_list *out,
                         sqe_error *err) {
    ice_kv *kv = ARENA_ARRAY(p->a, ice_kv, 32);
    if (!kv) return err_nomem(err, "snapshot summary");
    uint32_t n = 0;
    kv[n++] = (ice_kv){"operation", p->ch->operation ? p->ch->operation : "append"};
    int bad = 0;
    if (p->added_data_files) bad |= put(p->a, kv, &n, "added-data-files", p->added_data_files);
    if (p->removed_data_files) bad |= put(p->a, kv, &n, "deleted-data-files", p->removed_data_files);
    if (p->added_delete_files) bad |= put(p->a, kv, &n, "added-delete-files", p->added_delete_files);
    if (p->added_dvs) bad |= put(p->a, kv, &n, "added-dvs", p->added_dvs);
    if (p->removed_delete_files)
        bad |= put(p->a, kv, &n, "removed-delete-files", p->removed_delete_files);
    if (p->added_records) bad |= put(p->a, kv, &n, "added-records", p->added_records);
    if (p->removed_records) bad |= put(p->a, kv, &n, "deleted-records", p->removed_records);
    if (p->added_size) bad |= put(p->a, kv, &n, "added-files-size", p->added_size);
    if (p->removed_size) bad |= put(p->a, kv, &n, "removed-files-size", p->removed_size);
    if (p->added_pos_deletes) bad |= put(p->a, kv, &n, "added-position-deletes", p->added_pos_deletes);
    if (p->removed_pos_deletes)
        bad |= put(p->a, kv, &n, "removed-position-deletes", p->removed_pos_deletes);
    if (p->added_eq_deletes) bad |= put(p->a, kv, &n, "added-equality-deletes", p->added_eq_deletes);
    if (p->removed_eq_deletes)
        bad |= put(p->a, kv, &n, "removed-equality-deletes", p->removed_eq_deletes);
    static const char *const keys[] = {"total-records",         "total-files-size",
                                       "total-data-files",      "total-delete-files",
                                       "total-position-deletes", "total-equality-deletes"};
    int64_t deltas[6] = {p->added_records - p->removed_records,
                         p->added_size - p->removed_size,
                         p->added_data_files - p->removed_data_files,
                         p->added_delete_files - p->removed_delete_files,
                         p->added_pos_deletes - p->removed_pos_deletes,
                         p->added_eq_deletes - p->removed_eq_deletes};
    for (int i = 0; i < 6; i++) {
        bool known = true;
        int64_t t = parent_total(parent, keys[i], &known);
        if (known) bad |= put(p->a, kv, &n, keys[i], t + deltas[i]);
    }
    if (bad) return err_nomem(err, "snapshot summary");
    out->n = n;
    out->items = kv;
    return SQE_OK;
}

/* The new metadata: base plus the snapshot, refs and logs. */
static int build_metadata(producer *p, const ice_snapshot *parent, const char *list_location,
                          int64_t seq, int64_t next_row_id, sqe_error *err) {
    const ice_metadata *b = p->base;
    ice_metadata *m;
    SQE_TRY(ice_metadata_next(p->a, b, p->ch->base_location, &m, err));
    int64_t ts = m->last_updated_ms;
    /* snapshot */
    ice_snapshot *snaps = ARENA_ARRAY(p->a, ice_snapshot, b->n_snapshots + 1);
    if (!snaps) return err_nomem(err, "metadata");
    if (b->n_snapshots) memcpy(snaps, b->snapshots, b->n_snapshots * sizeof *snaps);
    ice_snapshot *s = &snaps[b->n_snapshots];
    memset(s, 0, sizeof *s);
    s->snapshot_id = p->snapshot_id;
    if (parent) {
        s->has_parent = true;
        s->parent_snapshot_id = parent->snapshot_id;
    }
    s->has_sequence_number = p->format_version >= 2;
    s->sequence_number = seq;
    s->timestamp_ms = ts;
    s->manifest_list = list_location;
    s->has_summary = true;
    SQE_TRY(build_summary(p, parent, &s->summary, err));
    s->has_schema_id = true;
    s->schema_id = b->current_schema_id;
    if (p->format_version >= 3) {
        s->has_first_row_id = true;
        s->first_row_id = b->next_row_id;
        s->has_added_rows = true;
        s->added_rows = next_row_id - b->next_row_id;
        m->next_row_id = next_row_id;
    }
    m->snapshots = snaps;
    m->n_snapshots = b->n_snapshots + 1;
    if (p->format_version >= 2) m->last_sequence_number = seq;
    /* refs: the branch moves to the new snapshot */
    const char *branch = p->ch->branch ? p->ch->branch : "main";
    bool main_branch = strcmp(branch, "main") == 0;
    ice_ref *refs = ARENA_ARRAY(p->a, ice_ref, b->n_refs + 1);
    if (!refs) return err_nomem(err, "metadata");
    uint32_t nr = 0;
    bool found = false;
    for (uint32_t i = 0; i < b->n_refs; i++) {
        refs[nr] = b->refs[i];
        if (strcmp(refs[nr].name, branch) == 0) {
            refs[nr].snapshot_id = p->snapshot_id;
            refs[nr].implicit = false;
            found = true;
        }
        nr++;
    }
    if (!found) {
        memset(&refs[nr], 0, sizeof refs[nr]);
        refs[nr].name = branch;
        refs[nr].type = ICE_REF_BRANCH;
        refs[nr].snapshot_id = p->snapshot_id;
        nr++;
    }
    m->refs = refs;
    m->n_refs = nr;
    if (main_branch) {
        m->current_snapshot_id = p->snapshot_id;
        ice_snapshot_log_entry *log = ARENA_ARRAY(p->a, ice_snapshot_log_entry, b->n_snapshot_log + 1);
        if (!log) return err_nomem(err, "metadata");
        if (b->n_snapshot_log) memcpy(log, b->snapshot_log, b->n_snapshot_log * sizeof *log);
        memset(&log[b->n_snapshot_log], 0, sizeof *log);
        log[b->n_snapshot_log].timestamp_ms = ts;
        log[b->n_snapshot_log].snapshot_id = p->snapshot_id;
        m->snapshot_log = log;
        m->n_snapshot_log = b->n_snapshot_log + 1;
    }
    m->present |= ICE_MD_SNAPSHOTS | ICE_MD_REFS | ICE_MD_SNAPSHOT_LOG | ICE_MD_CURRENT_SNAPSHOT_ID;
    m->present &= ~(uint32_t)ICE_MD_CURRENT_SNAPSHOT_NULL;
    p->out->meta = m;
    return SQE_OK;
}

static int produce(producer *p, sqe_error *err) {
    const ice_metadata *b = p->base;
    SQE_TRY(metadata_dir(p, err));
    SQE_TRY(sqe_random_positive_id(&p->snapshot_id, err));
    while (ice_metadata_snapshot(b, p->snapshot_id)) SQE_TRY(sqe_random_positive_id(&p->snapshot_id, err));
    p->out->snapshot_id = p->snapshot_id;
    const char *branch = p->ch->branch ? p->ch->branch : "main";
    const ice_ref *ref = ice_metadata_ref(b, branch);
    const ice_snapshot *parent = ref ? ice_metadata_snapshot(b, ref->snapshot_id)
                                     : (strcmp(branch, "main") == 0 ? ice_metadata_current_snapshot(b)
                                                                    : NULL);
    ice_manifest_file *old;
    uint32_t n_old;
    SQE_TRY(read_manifest_list(p->a, p->base->io, parent, &old, &n_old, err));
    ice_manifest_file *files = ARENA_ARRAY(p->a, ice_manifest_file, n_old + 3);
    p->removed_found = ARENA_ARRAY(p->a, bool, p->ch->n_removed + 1);
    if (!files || !p->removed_found) return err_nomem(err, "snapshot");
    uint32_t n_files = 0;
    SQE_TRY(add_new_manifests(p, files, &n_files, err));
    for (uint32_t i = 0; i < n_old; i++) {
        SQE_TRY(carry_manifest(p, &old[i], &files[n_files], err));
        /* A manifest without live entries is dropped, except one rewritten now: it records
         * the files this snapshot deleted (as Iceberg Java keeps it for one snapshot). */
        const ice_manifest_file *f = &files[n_files];
        bool empty = f->has_added_files_count && f->has_existing_files_count &&
                     f->added_files_count == 0 && f->existing_files_count == 0 &&
                     f->added_snapshot_id != p->snapshot_id;
        if (!empty) n_files++;
    }
    for (uint32_t i = 0; i < p->ch->n_removed; i++)
        if (!p->removed_found[i])
            return err_set(err, SQE_ERR_COMMIT_CONFLICT,
                           "Commit failed: file %s is no longer in the table (a concurrent "
                           "change removed it)",
                           p->ch->removed[i]);
    /* the manifest list */
    int64_t seq = p->format_version >= 2 ? b->last_sequence_number + 1 : 0;
    ice_manifest_list_write_opts lo;
    memset(&lo, 0, sizeof lo);
    lo.format_version = p->format_version;
    lo.snapshot_id = p->snapshot_id;
    lo.has_parent_snapshot_id = parent != NULL;
    lo.parent_snapshot_id = parent ? parent->snapshot_id : 0;
    lo.sequence_number = seq;
    lo.first_row_id = b->next_row_id;
    lo.codec = AVRO_CODEC_DEFLATE;
    uint8_t *bytes = NULL;
    size_t len = 0;
    int64_t next_row_id = b->next_row_id;
    SQE_TRY(ice_manifest_list_write(&lo, files, n_files, &bytes, &len, &next_row_id, err));
    char uuid[37];
    int rc = sqe_uuid_v4(uuid, err);
    char *loc = rc ? NULL
                   : arena_sprintf(p->a, "%s/snap-%lld-1-%s.avro", p->meta_dir,
                                   (long long)p->snapshot_id, uuid);
    if (!rc && !loc) rc = err_nomem(err, "manifest list");
    if (!rc) rc = write_file(p, loc, bytes, len, err);
    free(bytes);
    SQE_TRY(rc);
    return build_metadata(p, parent, loc, seq, next_row_id, err);
}

int ice_snapshot_produce(arena *a, const ice_metadata *base, const ice_snapshot_change *ch,
                         ice_produced *out, sqe_error *err) {
    memset(out, 0, sizeof *out);
    producer p;
    memset(&p, 0, sizeof p);
    p.a = a;
    p.base = base;
    p.ch = ch;
    p.out = out;
    out->io = base->io;
    p.format_version = base->format_version;
    int rc = produce(&p, err);
    if (rc) {
        ice_produced_discard(out);
        out->n_written = 0;
    }
    return rc;
}

void ice_produced_discard(const ice_produced *p) {
    for (uint32_t i = 0; i < p->n_written; i++) io_remove_as(p->written[i], p->io, NULL);
}

int ice_snapshot_live_files(arena *a, const ice_metadata *m, const ice_snapshot *snap,
                            const ice_manifest_entry ***entries, uint32_t *n, sqe_error *err) {
    ice_scan_files files;
    SQE_TRY(ice_scan_plan(a, m, snap, ice_metadata_current_schema(m), NULL, 0, &files, err));
    const ice_manifest_entry **all =
        ARENA_ARRAY(a, const ice_manifest_entry *, files.n_data + files.n_deletes + 1);
    if (!all) return err_nomem(err, "snapshot files");
    if (files.n_data) memcpy(all, files.data, files.n_data * sizeof *all);
    if (files.n_deletes) memcpy(all + files.n_data, files.deletes, files.n_deletes * sizeof *all);
    *entries = all;
    *n = files.n_data + files.n_deletes;
    return SQE_OK;
}
