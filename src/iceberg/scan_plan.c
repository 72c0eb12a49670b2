/*
 * scan_plan.c: Iceberg scan planning with partition and metrics pruning (see scan_plan.h).
 *
 * INTERFACE: ice_scan_plan, ice_read_file.
 * NOTES
 *   Each scan predicate is projected once per (partition spec, partition field) whose source is
 *   the predicate's column (ice_project_predicate); the projections judge the manifest list's
 *   partition summaries and each data file's partition tuple. Column metrics are judged with
 *   the identity projection of the predicate over the file's lower/upper bounds and null/NaN
 *   counts. Predicates on columns whose type in the file's bounds differs (a bound written
 *   before a type promotion decodes widened) still compare correctly; anything the rules do not
 *   understand means "may match".
 */
#include "iceberg/scan_plan.h"

#include <stdlib.h>
#include <string.h>

#include "io/io.h"

int ice_read_file(arena *a, const char *location, const io_identity *io, uint8_t **buf,
                  size_t *len, sqe_error *err) {
    io_file *f;
    SQE_TRY(io_open_as(location, io, &f, err));
    uint64_t size = io_size(f);
    int rc = SQE_OK;
    uint8_t *p = NULL;
    if (size > ((uint64_t)1 << 31)) {
        rc = err_set(err, SQE_ERR_INVALID_FILE, "%s: file too large (%llu bytes)", location,
                     (unsigned long long)size);
    } else if (!(p = arena_alloc(a, size ? (size_t)size : 1))) {
        rc = err_nomem(err, "Iceberg file");
    } else {
        rc = io_read(f, 0, (size_t)size, p, err);
    }
    io_close(f);
    if (rc) return rc;
    *buf = p;
    *len = (size_t)size;
    return SQE_OK;
}

/* A scan predicate projected onto one partition field of one spec. */
typedef struct projected {
    int32_t spec_id;
    uint32_t field;            /* index in the spec */
    ice_partition_pred pred;
} projected;

typedef struct planner {
    arena *a;
    const ice_metadata *m;
    const ice_schema *schema;
    const ice_scan_pred *preds;
    uint32_t n_preds;
    projected *proj;           /* malloc'ed; destroyed at the end */
    uint32_t n_proj, cap_proj;
    int32_t *specs_done;       /* spec ids already projected */
    uint32_t n_specs_done;
    ice_partition_pred *identity; /* per scan predicate: its identity projection (metrics) */
    bool *identity_ok;
} planner;

static void planner_free(planner *p) {
    for (uint32_t i = 0; i < p->n_proj; i++) ice_partition_pred_destroy(&p->proj[i].pred);
    free(p->proj);
    free(p->specs_done);
    for (uint32_t i = 0; p->identity && i < p->n_preds; i++)
        if (p->identity_ok[i]) ice_partition_pred_destroy(&p->identity[i]);
    free(p->identity);
    free(p->identity_ok);
}

/* The SQE type of a top-level column by field id; false when not a usable primitive. */
static bool column_type(const ice_schema *s, int32_t id, sqe_type *out) {
    const ice_field *f = ice_schema_find_field(s, id);
    if (!f || f->type.kind == ICE_TYPE_STRUCT || f->type.kind == ICE_TYPE_LIST ||
        f->type.kind == ICE_TYPE_MAP)
        return false;
    return ice_schema_to_sqe_type(&f->type, out, NULL) == SQE_OK;
}

/* Projects every predicate onto the fields of spec (once per spec). */
static int project_spec(planner *p, const ice_partition_spec *spec, sqe_error *err) {
    for (uint32_t i = 0; i < p->n_specs_done; i++)
        if (p->specs_done[i] == spec->spec_id) return SQE_OK;
    int32_t *grown = realloc(p->specs_done, (p->n_specs_done + 1) * sizeof *grown);
    if (!grown) return err_nomem(err, "scan planning");
    p->specs_done = grown;
    p->specs_done[p->n_specs_done++] = spec->spec_id;
    for (uint32_t f = 0; f < spec->n_fields; f++) {
        const ice_partition_field *pf = &spec->fields[f];
        if (pf->n_source_ids > 1 || pf->transform.kind == ICE_T_UNKNOWN ||
            pf->transform.kind == ICE_T_VOID)
            continue;
        for (uint32_t k = 0; k < p->n_preds; k++) {
            const ice_scan_pred *sp = &p->preds[k];
            if (sp->field_id != pf->source_id) continue;
            sqe_type source;
            if (!column_type(p->schema, sp->field_id, &source)) continue;
            if (p->n_proj == p->cap_proj) {
                uint32_t cap = p->cap_proj ? p->cap_proj * 2 : 8;
                projected *g = realloc(p->proj, cap * sizeof *g);
                if (!g) return err_nomem(err, "scan planning");
                p->proj = g;
                p->cap_proj = cap;
            }
            projected *pr = &p->proj[p->n_proj];
            memset(pr, 0, sizeof *pr);
            pr->spec_id = spec->spec_id;
            pr->field = f;
            sqe_error ignored;
            /* A predicate the projection cannot handle simply does not prune. */
            if (ice_project_predicate(pf->transform, source, sp->op, sp->values, sp->n_values,
                                      &pr->pred, &ignored) != SQE_OK)
                continue;
            if (pr->pred.op == ICE_PRED_TRUE) {
                ice_partition_pred_destroy(&pr->pred);
                continue;
            }
            p->n_proj++;
        }
    }
    return SQE_OK;
}

/* May a manifest with these partition summaries hold matching rows? */
static bool summary_may_match(planner *p, const ice_manifest_file *mf,
                              const ice_partition_spec *spec) {
    if (!mf->has_partitions || mf->n_partitions != spec->n_fields) return true;
    for (uint32_t i = 0; i < p->n_proj; i++) {
        const projected *pr = &p->proj[i];
        if (pr->spec_id != spec->spec_id) continue;
        const ice_field_summary *fs = &mf->partitions[pr->field];
        ice_type t;
        if (ice_partition_field_type(p->schema, &spec->fields[pr->field], &t, NULL)) continue;
        vec lower, upper;
        bool has_lo = false, has_hi = false;
        if (fs->has_lower && !ice_arena_vec_init(p->a, &lower, pr->pred.type, 1, NULL) &&
            !ice_single_value_decode(&t, fs->lower.data, fs->lower.len, &lower, 0, "summary",
                                     NULL))
            has_lo = true;
        if (fs->has_upper && !ice_arena_vec_init(p->a, &upper, pr->pred.type, 1, NULL) &&
            !ice_single_value_decode(&t, fs->upper.data, fs->upper.len, &upper, 0, "summary",
                                     NULL))
            has_hi = true;
        if ((fs->has_lower && !has_lo) || (fs->has_upper && !has_hi)) continue; /* undecodable */
        ice_value_range r = {has_lo ? &lower : NULL, has_hi ? &upper : NULL, 0,
                             (int8_t)(fs->contains_null ? 1 : 0), fs->contains_nan, -1};
        if (!ice_partition_pred_eval_range(&pr->pred, &r)) return false;
    }
    return true;
}

/* The count of field id in a metrics map, or -1. */
static int64_t count_of(const ice_counts *c, int32_t id) {
    if (!c->present) return -1;
    for (uint32_t i = 0; i < c->n; i++)
        if (c->items[i].field_id == id) return c->items[i].value;
    return -1;
}

static const vec *bound_of(const ice_bounds *b, int32_t id) {
    if (!b->present) return NULL;
    for (uint32_t i = 0; i < b->n; i++)
        if (b->items[i].field_id == id && b->items[i].value.type.id != TYPE_UNKNOWN &&
            !vec_is_null(&b->items[i].value, 0))
            return &b->items[i].value;
    return NULL;
}

/* May data file df hold matching rows, by its partition tuple and column metrics? */
static bool file_may_match(planner *p, const ice_manifest *man, const ice_data_file *df) {
    for (uint32_t i = 0; i < p->n_proj; i++) {
        const projected *pr = &p->proj[i];
        if (pr->spec_id != man->spec_id || pr->field >= df->n_partition) continue;
        if (man->n_partition_fields != df->n_partition) continue;
        const ice_manifest_partition_field *mpf = &man->partition_fields[pr->field];
        if (!mpf->has_type || !type_equal(mpf->sqe, pr->pred.type)) continue;
        if (!ice_partition_pred_eval(&pr->pred, &df->partition[pr->field], df->partition_row))
            return false;
    }
    for (uint32_t k = 0; k < p->n_preds; k++) {
        if (!p->identity_ok[k]) continue;
        int32_t id = p->preds[k].field_id;
        int64_t values = count_of(&df->value_counts, id);
        int64_t nulls = count_of(&df->null_value_counts, id);
        int64_t nans = count_of(&df->nan_value_counts, id);
        const vec *lo = bound_of(&df->lower_bounds, id), *hi = bound_of(&df->upper_bounds, id);
        if (lo && !type_equal(lo->type, p->identity[k].type)) lo = NULL;
        if (hi && !type_equal(hi->type, p->identity[k].type)) hi = NULL;
        ice_value_range r = {lo, hi, 0, (int8_t)(nulls < 0 ? -1 : nulls > 0),
                             (int8_t)(nans < 0 ? -1 : nans > 0),
                             (int8_t)(nulls < 0 || values < 0 ? -1 : nulls == values)};
        if (!ice_partition_pred_eval_range(&p->identity[k], &r)) return false;
    }
    return true;
}

static int push_entry(arena *a, const ice_manifest_entry ***list, uint32_t *n, uint32_t *cap,
                      const ice_manifest_entry *e, sqe_error *err) {
    if (*n == *cap) {
        uint32_t c = *cap ? *cap * 2 : 64;
        const ice_manifest_entry **g = ARENA_ARRAY(a, const ice_manifest_entry *, c);
        if (!g) return err_nomem(err, "scan planning");
        if (*n) memcpy(g, *list, *n * sizeof *g);
        *list = g;
        *cap = c;
    }
    (*list)[(*n)++] = e;
    return SQE_OK;
}

static int read_manifest(planner *p, const ice_manifest_file *mf, ice_manifest **out,
                         sqe_error *err) {
    uint8_t *buf;
    size_t len;
    SQE_TRY(ice_read_file(p->a, mf->manifest_path, p->m->io, &buf, &len, err));
    int rc = ice_manifest_read(p->a, buf, len, p->m, mf, out, err);
    if (rc) err_prefix(err, "%s", mf->manifest_path);
    return rc;
}

static int plan_snapshot(planner *p, const ice_snapshot *snap, ice_scan_files *out,
                         sqe_error *err) {
    ice_manifest_file *files = NULL;
    uint32_t n_files = 0;
    if (snap->manifest_list) {
        uint8_t *buf;
        size_t len;
        SQE_TRY(ice_read_file(p->a, snap->manifest_list, p->m->io, &buf, &len, err));
        int rc = ice_manifest_list_read(p->a, buf, len, &files, &n_files, NULL, err);
        if (rc) {
            err_prefix(err, "%s", snap->manifest_list);
            return rc;
        }
    } else {
        /* v1 snapshots may list manifests directly (no counts, no summaries). */
        files = ARENA_ARRAY(p->a, ice_manifest_file, snap->n_manifests + 1);
        if (!files) return err_nomem(err, "scan planning");
        for (uint32_t i = 0; i < snap->n_manifests; i++) {
            files[i].manifest_path = snap->manifests[i];
            files[i].partition_spec_id = p->m->default_spec_id;
            files[i].added_snapshot_id = snap->snapshot_id;
        }
        n_files = snap->n_manifests;
    }
    uint32_t cap_data = 0, cap_del = 0;
    out->manifests_total = n_files;
    for (uint32_t i = 0; i < n_files; i++) {
        const ice_manifest_file *mf = &files[i];
        bool is_data = mf->content == ICE_MANIFEST_DATA;
        const ice_partition_spec *spec = ice_metadata_spec(p->m, mf->partition_spec_id);
        if (is_data && spec) {
            SQE_TRY(project_spec(p, spec, err));
            if (!summary_may_match(p, mf, spec)) {
                out->manifests_pruned++;
                continue;
            }
        }
        ice_manifest *man;
        SQE_TRY(read_manifest(p, mf, &man, err));
        if (man->spec && !spec) SQE_TRY(project_spec(p, man->spec, err));
        for (uint32_t e = 0; e < man->n_entries; e++) {
            const ice_manifest_entry *en = &man->entries[e];
            if (en->status == ICE_STATUS_DELETED) continue;
            if (en->file.content == ICE_CONTENT_DATA) {
                out->files_total++;
                if (!file_may_match(p, man, &en->file)) {
                    out->files_pruned++;
                    continue;
                }
                out->rows += (uint64_t)(en->file.record_count > 0 ? en->file.record_count : 0);
                SQE_TRY(push_entry(p->a, &out->data, &out->n_data, &cap_data, en, err));
            } else {
                SQE_TRY(push_entry(p->a, &out->deletes, &out->n_deletes, &cap_del, en, err));
            }
        }
    }
    return SQE_OK;
}

int ice_scan_plan(arena *a, const ice_metadata *m, const ice_snapshot *snap,
                  const ice_schema *schema, const ice_scan_pred *preds, uint32_t n_preds,
                  ice_scan_files *out, sqe_error *err) {
    memset(out, 0, sizeof *out);
    if (!snap) return SQE_OK;
    planner p;
    memset(&p, 0, sizeof p);
    p.a = a;
    p.m = m;
    p.schema = schema;
    p.preds = preds;
    p.n_preds = n_preds;
    p.identity = calloc(n_preds ? n_preds : 1, sizeof *p.identity);
    p.identity_ok = calloc(n_preds ? n_preds : 1, sizeof *p.identity_ok);
    int rc = p.identity && p.identity_ok ? SQE_OK : err_nomem(err, "scan planning");
    ice_transform identity = {ICE_T_IDENTITY, 0};
    for (uint32_t k = 0; !rc && k < n_preds; k++) {
        sqe_type t;
        if (!column_type(schema, preds[k].field_id, &t)) continue;
        sqe_error ignored;
        if (ice_project_predicate(identity, t, preds[k].op, preds[k].values, preds[k].n_values,
                                  &p.identity[k], &ignored) == SQE_OK)
            p.identity_ok[k] = true;
    }
    if (!rc) rc = plan_snapshot(&p, snap, out, err);
    planner_free(&p);
    return rc;
}
