/*
 * bind_iceberg_meta.c: the metadata tables of an Iceberg table, named "t$snapshots",
 * "t$history", "t$manifests", "t$files", "t$partitions", "t$refs" and "t$properties" as in
 * Trino's Iceberg connector, built at bind time from the loaded table version.
 *
 * INTERFACE: bind_iceberg_meta_table (bind_int.h).
 * NOTES
 *   Columns follow Trino's definitions where SQE has the types; where Trino uses a row type per
 *   partition spec ($files.partition, $partitions.partition) SQE gives the partition as text
 *   ("{ts_day=2024-01-01, id_bucket=3}"), and $files leaves out the per-column metric maps
 *   (readable_metrics). $manifests and $files read the current snapshot's manifests.
 */
#include "bind/bind_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/catalog_iceberg.h"
#include "iceberg/scan_plan.h"
#include "common/strbuf.h"
#include "vec/vec_format.h"

typedef struct meta_ctx {
    binder *b;
    const ice_metadata *m;
    bind_rows *rows;
    bind_rows_builder rb;
} meta_ctx;

static sqe_type ts_ms_tz(void) {
    sqe_type t = type_make(TYPE_TIMESTAMP_TZ);
    t.precision = 3;
    return t;
}

static int next_row(meta_ctx *c) {
    c->rb.row = c->rows->n_rows;
    SQE_TRY(bind_rb_reserve(&c->rb));
    c->rows->n_rows++;
    return SQE_OK;
}

static int snapshots(meta_ctx *c) {
    for (uint32_t i = 0; i < c->m->n_snapshots; i++) {
        const ice_snapshot *s = &c->m->snapshots[i];
        SQE_TRY(next_row(c));
        bind_rb_timestamp_tz(&c->rb, 0, s->timestamp_ms * 1000);
        bind_rb_int(&c->rb, 1, s->snapshot_id);
        if (s->has_parent) bind_rb_int(&c->rb, 2, s->parent_snapshot_id);
        else SQE_TRY(bind_rb_null(&c->rb, 2));
        SQE_TRY(bind_rb_str(&c->rb, 3, s->has_summary ? ice_kv_get(&s->summary, "operation") : NULL));
        SQE_TRY(bind_rb_str(&c->rb, 4, s->manifest_list));
        uint32_t n = s->has_summary ? s->summary.n : 0;
        const char **k = ARENA_ARRAY(c->b->pctx->arena, const char *, n + 1);
        const char **v = ARENA_ARRAY(c->b->pctx->arena, const char *, n + 1);
        BIND_CHECK(c->b, k && v);
        for (uint32_t j = 0; j < n; j++) {
            k[j] = s->summary.items[j].key;
            v[j] = s->summary.items[j].value;
        }
        SQE_TRY(bind_rb_str_map(&c->rb, 5, k, v, n));
    }
    return SQE_OK;
}

/* Is snapshot id an ancestor of (or) the current snapshot? */
static bool current_ancestor(const ice_metadata *m, int64_t id) {
    const ice_snapshot *s = ice_metadata_current_snapshot(m);
    for (uint32_t guard = 0; s && guard <= m->n_snapshots; guard++) {
        if (s->snapshot_id == id) return true;
        s = s->has_parent ? ice_metadata_snapshot(m, s->parent_snapshot_id) : NULL;
    }
    return false;
}

static int history(meta_ctx *c) {
    for (uint32_t i = 0; i < c->m->n_snapshot_log; i++) {
        const ice_snapshot_log_entry *e = &c->m->snapshot_log[i];
        const ice_snapshot *s = ice_metadata_snapshot(c->m, e->snapshot_id);
        SQE_TRY(next_row(c));
        bind_rb_timestamp_tz(&c->rb, 0, e->timestamp_ms * 1000);
        bind_rb_int(&c->rb, 1, e->snapshot_id);
        if (s && s->has_parent) bind_rb_int(&c->rb, 2, s->parent_snapshot_id);
        else SQE_TRY(bind_rb_null(&c->rb, 2));
        bind_rb_bool(&c->rb, 3, current_ancestor(c->m, e->snapshot_id));
    }
    return SQE_OK;
}

static int refs(meta_ctx *c) {
    for (uint32_t i = 0; i < c->m->n_refs; i++) {
        const ice_ref *r = &c->m->refs[i];
        SQE_TRY(next_row(c));
        SQE_TRY(bind_rb_str(&c->rb, 0, r->name));
        SQE_TRY(bind_rb_str(&c->rb, 1, r->type == ICE_REF_TAG ? "TAG" : "BRANCH"));
        bind_rb_int(&c->rb, 2, r->snapshot_id);
        if (r->has_max_ref_age_ms) bind_rb_int(&c->rb, 3, r->max_ref_age_ms);
        else SQE_TRY(bind_rb_null(&c->rb, 3));
        if (r->has_min_snapshots_to_keep) bind_rb_int(&c->rb, 4, r->min_snapshots_to_keep);
        else SQE_TRY(bind_rb_null(&c->rb, 4));
        if (r->has_max_snapshot_age_ms) bind_rb_int(&c->rb, 5, r->max_snapshot_age_ms);
        else SQE_TRY(bind_rb_null(&c->rb, 5));
    }
    return SQE_OK;
}

static int properties(meta_ctx *c) {
    for (uint32_t i = 0; i < c->m->properties.n; i++) {
        SQE_TRY(next_row(c));
        SQE_TRY(bind_rb_str(&c->rb, 0, c->m->properties.items[i].key));
        SQE_TRY(bind_rb_str(&c->rb, 1, c->m->properties.items[i].value));
    }
    return SQE_OK;
}

static int manifests(meta_ctx *c) {
    const ice_snapshot *snap = ice_metadata_current_snapshot(c->m);
    if (!snap || !snap->manifest_list) return SQE_OK;
    uint8_t *buf;
    size_t len;
    ice_manifest_file *files;
    uint32_t n;
    SQE_TRY(ice_read_file(c->b->pctx->arena, snap->manifest_list, c->m->io, &buf, &len, c->b->err));
    int rc = ice_manifest_list_read(c->b->pctx->arena, buf, len, &files, &n, NULL, c->b->err);
    if (rc) {
        err_prefix(c->b->err, "%s", snap->manifest_list);
        return rc;
    }
    for (uint32_t i = 0; i < n; i++) {
        const ice_manifest_file *f = &files[i];
        SQE_TRY(next_row(c));
        SQE_TRY(bind_rb_str(&c->rb, 0, f->manifest_path));
        bind_rb_int(&c->rb, 1, f->manifest_length);
        bind_rb_int(&c->rb, 2, f->partition_spec_id);
        bind_rb_int(&c->rb, 3, f->added_snapshot_id);
        bind_rb_int(&c->rb, 4, f->added_files_count);
        bind_rb_int(&c->rb, 5, f->added_rows_count);
        bind_rb_int(&c->rb, 6, f->existing_files_count);
        bind_rb_int(&c->rb, 7, f->existing_rows_count);
        bind_rb_int(&c->rb, 8, f->deleted_files_count);
        bind_rb_int(&c->rb, 9, f->deleted_rows_count);
        bind_rb_int(&c->rb, 10, f->content);
    }
    return SQE_OK;
}

/* "{name=value, ...}" of a data file's partition tuple, in a. */
static const char *partition_text(arena *a, const ice_manifest *man, const ice_data_file *df) {
    strbuf sb;
    strbuf_init(&sb);
    strbuf_putc(&sb, '{');
    for (uint32_t k = 0; k < df->n_partition; k++) {
        if (k) strbuf_puts(&sb, ", ");
        strbuf_puts(&sb, k < man->n_partition_fields ? man->partition_fields[k].name : "?");
        strbuf_putc(&sb, '=');
        if (vec_is_null(&df->partition[k], df->partition_row))
            strbuf_puts(&sb, "NULL");
        else
            vec_format_value(&df->partition[k], df->partition_row, &sb);
    }
    strbuf_putc(&sb, '}');
    const char *r = sb.failed ? NULL : arena_strdup(a, strbuf_cstr(&sb));
    strbuf_reset(&sb);
    return r;
}

typedef int (*entry_fn)(meta_ctx *c, const ice_manifest *man, const ice_manifest_entry *e);

/* Calls fn for every live entry of the current snapshot's manifests. */
static int each_live_entry(meta_ctx *c, entry_fn fn) {
    const ice_snapshot *snap = ice_metadata_current_snapshot(c->m);
    if (!snap || !snap->manifest_list) return SQE_OK;
    arena *a = c->b->pctx->arena;
    uint8_t *buf;
    size_t len;
    ice_manifest_file *files;
    uint32_t n;
    SQE_TRY(ice_read_file(a, snap->manifest_list, c->m->io, &buf, &len, c->b->err));
    int rc = ice_manifest_list_read(a, buf, len, &files, &n, NULL, c->b->err);
    if (rc) {
        err_prefix(c->b->err, "%s", snap->manifest_list);
        return rc;
    }
    for (uint32_t i = 0; i < n; i++) {
        ice_manifest *man;
        SQE_TRY(ice_read_file(a, files[i].manifest_path, c->m->io, &buf, &len, c->b->err));
        rc = ice_manifest_read(a, buf, len, c->m, &files[i], &man, c->b->err);
        if (rc) {
            err_prefix(c->b->err, "%s", files[i].manifest_path);
            return rc;
        }
        for (uint32_t e = 0; e < man->n_entries; e++)
            if (man->entries[e].status != ICE_STATUS_DELETED)
                SQE_TRY(fn(c, man, &man->entries[e]));
    }
    return SQE_OK;
}

static int file_row(meta_ctx *c, const ice_manifest *man, const ice_manifest_entry *e) {
    const ice_data_file *f = &e->file;
    SQE_TRY(next_row(c));
    bind_rb_int(&c->rb, 0, f->content);
    SQE_TRY(bind_rb_str(&c->rb, 1, f->file_path));
    SQE_TRY(bind_rb_str(&c->rb, 2, f->file_format));
    bind_rb_int(&c->rb, 3, f->spec_id);
    SQE_TRY(bind_rb_str(&c->rb, 4, partition_text(c->b->pctx->arena, man, f)));
    bind_rb_int(&c->rb, 5, f->record_count);
    bind_rb_int(&c->rb, 6, f->file_size_in_bytes);
    if (f->has_sort_order_id) bind_rb_int(&c->rb, 7, f->sort_order_id);
    else SQE_TRY(bind_rb_null(&c->rb, 7));
    SQE_TRY(bind_rb_str(&c->rb, 8, f->referenced_data_file));
    return SQE_OK;
}

/* $partitions: one row per distinct partition text (live data files only). */
static int partition_row(meta_ctx *c, const ice_manifest *man, const ice_manifest_entry *e) {
    const ice_data_file *f = &e->file;
    if (f->content != ICE_CONTENT_DATA) return SQE_OK;
    const char *p = partition_text(c->b->pctx->arena, man, f);
    BIND_CHECK(c->b, p);
    vec *pv = &c->rows->cols[0];
    for (uint32_t r = 0; r < c->rows->n_rows; r++) {
        sqe_str s = VEC_DATA(pv, sqe_str)[r];
        if (s.len == strlen(p) && !memcmp(sqe_str_data(&s), p, s.len)) {
            VEC_DATA(&c->rows->cols[1], int64_t)[r] += f->record_count;
            VEC_DATA(&c->rows->cols[2], int64_t)[r] += 1;
            VEC_DATA(&c->rows->cols[3], int64_t)[r] += f->file_size_in_bytes;
            return SQE_OK;
        }
    }
    SQE_TRY(next_row(c));
    SQE_TRY(bind_rb_str(&c->rb, 0, p));
    bind_rb_int(&c->rb, 1, f->record_count);
    bind_rb_int(&c->rb, 2, 1);
    bind_rb_int(&c->rb, 3, f->file_size_in_bytes);
    return SQE_OK;
}

static int files(meta_ctx *c) { return each_live_entry(c, file_row); }
static int partitions(meta_ctx *c) { return each_live_entry(c, partition_row); }

typedef struct meta_table {
    const char *suffix;
    uint32_t n_cols;
    const char *names[12];
    uint8_t types[12];          /* type ids; 255 = timestamp(3) with time zone, 254 = map */
    int (*fill)(meta_ctx *c);
} meta_table;

#define TS3 255
#define SMAP 254
static const meta_table tables[] = {
    {"snapshots", 6,
     {"committed_at", "snapshot_id", "parent_id", "operation", "manifest_list", "summary"},
     {TS3, TYPE_BIGINT, TYPE_BIGINT, TYPE_VARCHAR, TYPE_VARCHAR, SMAP}, snapshots},
    {"history", 4, {"made_current_at", "snapshot_id", "parent_id", "is_current_ancestor"},
     {TS3, TYPE_BIGINT, TYPE_BIGINT, TYPE_BOOLEAN}, history},
    {"refs", 6,
     {"name", "type", "snapshot_id", "max_reference_age_in_ms", "min_snapshots_to_keep",
      "max_snapshot_age_in_ms"},
     {TYPE_VARCHAR, TYPE_VARCHAR, TYPE_BIGINT, TYPE_BIGINT, TYPE_INTEGER, TYPE_BIGINT}, refs},
    {"properties", 2, {"key", "value"}, {TYPE_VARCHAR, TYPE_VARCHAR}, properties},
    {"manifests", 11,
     {"path", "length", "partition_spec_id", "added_snapshot_id", "added_data_files_count",
      "added_rows_count", "existing_data_files_count", "existing_rows_count",
      "deleted_data_files_count", "deleted_rows_count", "content"},
     {TYPE_VARCHAR, TYPE_BIGINT, TYPE_INTEGER, TYPE_BIGINT, TYPE_INTEGER, TYPE_BIGINT,
      TYPE_INTEGER, TYPE_BIGINT, TYPE_INTEGER, TYPE_BIGINT, TYPE_INTEGER},
     manifests},
    {"files", 9,
     {"content", "file_path", "file_format", "spec_id", "partition", "record_count",
      "file_size_in_bytes", "sort_order_id", "referenced_data_file"},
     {TYPE_INTEGER, TYPE_VARCHAR, TYPE_VARCHAR, TYPE_INTEGER, TYPE_VARCHAR, TYPE_BIGINT,
      TYPE_BIGINT, TYPE_INTEGER, TYPE_VARCHAR},
     files},
    {"partitions", 4, {"partition", "record_count", "file_count", "total_size"},
     {TYPE_VARCHAR, TYPE_BIGINT, TYPE_BIGINT, TYPE_BIGINT}, partitions},
};

int bind_iceberg_meta_table(binder *b, cat_table *t, const char *suffix, const sql_relation *r,
                            plan **out, const char ***names) {
    const meta_table *mt = NULL;
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++)
        if (!strcmp(tables[i].suffix, suffix)) mt = &tables[i];
    if (!mt)
        return bind_error(b, SQE_ERR_TABLE_NOT_FOUND, r->line, r->col,
                          "Table '%s.%s.%s$%s' does not exist", t->catalog, t->schema, t->name,
                          suffix);
    sqe_type types[12];
    for (uint32_t i = 0; i < mt->n_cols; i++) {
        uint8_t id = mt->types[i];
        types[i] = id == TS3    ? ts_ms_tz()
                   : id == SMAP ? type_map(type_varchar(0), type_varchar(0))
                   : id == TYPE_VARCHAR ? type_varchar(0)
                                        : type_make((type_id)id);
    }
    meta_ctx c = {b, t->ice->meta, NULL, {b, NULL, 0}};
    plan_source *src;
    SQE_TRY(bind_rows_init_types(b, &c.rows, mt->names, types, mt->n_cols, &src));
    c.rb.st = c.rows;
    SQE_TRY(mt->fill(&c));
    src->est_rows = c.rows->n_rows;
    const char *name = arena_sprintf(b->pctx->arena, "%s$%s", t->name, suffix);
    BIND_CHECK(b, name);
    return bind_tfunc_plan(b, name, src, out, names);
}
