/*
 * ice_dml.c: DELETE, UPDATE and TRUNCATE on Iceberg tables, and what they share with MERGE:
 * collecting the positions of affected rows and applying them as copy-on-write or merge-on-read
 * (table properties write.delete.mode / write.update.mode / write.merge.mode; Iceberg's default
 * is copy-on-write).
 *
 * INTERFACE: engine_ice_delete, engine_ice_update, engine_ice_truncate (engine.h);
 *   ice_positions_init / _reset / _add, ice_dml_apply, ice_dml_merge_on_read
 *   (merge_int.h).
 * NOTES
 *   Every statement finds the affected rows with one query over the table's hidden columns
 *   "$path" and "$pos" (the data file and the row's position in it; rows already deleted never
 *   show up); UPDATE (and MERGE) write the new row values to the data-file writer in the same
 *   pass. ice_dml_apply then removes the collected positions:
 *   - Copy-on-write: the data files holding them are read again and rewritten without the rows
 *     at those positions (the condition is not evaluated twice, so non-deterministic conditions
 *     stay consistent); the commit replaces the old files (and deletes that referenced only
 *     them) with the new ones.
 *   - Merge-on-read: the positions become delete files, one per data file: Parquet position
 *     delete files in format v2, deletion vectors (Puffin) in v3, where a data file's existing
 *     vector is merged into the new one and replaced.
 *   The commit retries on concurrent appends; if a concurrent commit removed a file this one
 *   replaces, it fails with COMMIT_CONFLICT and the table is unchanged.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/catalog_iceberg.h"
#include "common/random.h"
#include "engine/engine.h"
#include "engine/iceberg/ice_write_int.h"
#include "engine/merge_int.h"
#include "iceberg/delete_write.h"
#include "iceberg/puffin.h"
#include "iceberg/roaring.h"
#include "iceberg/snapshot_produce.h"
#include "io/io.h"

/* ---- the positions a query found, per data file -------------------------------------------- */

void ice_positions_init(ice_positions *p, arena *a) {
    memset(p, 0, sizeof *p);
    p->a = a;
}

void ice_positions_reset(ice_positions *p) {
    for (uint32_t i = 0; i < p->n_files; i++) ice_roaring_reset(&p->files[i].pos);
    free(p->files);
    p->files = NULL;
    p->n_files = p->cap_files = p->last = 0;
}

static int positions_of(ice_positions *p, const char *path, uint32_t len,
                        ice_file_positions **out, sqe_error *err) {
    if (p->n_files && strlen(p->files[p->last].path) == len &&
        memcmp(p->files[p->last].path, path, len) == 0) {
        *out = &p->files[p->last];
        return SQE_OK;
    }
    for (uint32_t i = 0; i < p->n_files; i++)
        if (strlen(p->files[i].path) == len && memcmp(p->files[i].path, path, len) == 0) {
            p->last = i;
            *out = &p->files[i];
            return SQE_OK;
        }
    if (p->n_files == p->cap_files) {
        uint32_t cap = p->cap_files ? p->cap_files * 2 : 16;
        ice_file_positions *g = realloc(p->files, cap * sizeof *g);
        if (!g) return err_nomem(err, "row positions");
        p->files = g;
        p->cap_files = cap;
    }
    ice_file_positions *f = &p->files[p->n_files];
    f->path = arena_strndup(p->a, path, len);
    if (!f->path) return err_nomem(err, "row positions");
    ice_roaring_init(&f->pos);
    p->last = p->n_files++;
    *out = f;
    return SQE_OK;
}

/* The file's positions, or NULL when none were collected for it. */
static ice_file_positions *positions_find(ice_positions *p, const char *path, uint32_t len) {
    if (p->n_files && strlen(p->files[p->last].path) == len &&
        memcmp(p->files[p->last].path, path, len) == 0)
        return &p->files[p->last];
    for (uint32_t i = 0; i < p->n_files; i++)
        if (strlen(p->files[i].path) == len && memcmp(p->files[i].path, path, len) == 0) {
            p->last = i;
            return &p->files[i];
        }
    return NULL;
}

int ice_positions_add(ice_positions *p, const char *path, uint32_t len, uint64_t pos,
                      bool *added, sqe_error *err) {
    ice_file_positions *f = NULL;
    SQE_TRY(positions_of(p, path, len, &f, err));
    bool fresh = !ice_roaring_contains(&f->pos, pos);
    if (added) *added = fresh;
    return fresh ? ice_roaring_add(&f->pos, pos, err) : SQE_OK;
}

/* Row `row` of a "$path" / "$pos" column pair. */
static void path_pos_at(const vec_chunk *c, uint32_t path_col, uint32_t row, sqe_str *path,
                        uint64_t *pos) {
    uint32_t pp, qp;
    const vec *pv = vec_resolve(&c->cols[path_col], row, &pp);
    const vec *qv = vec_resolve(&c->cols[path_col + 1], row, &qp);
    *path = VEC_DATA(pv, sqe_str)[pp];
    *pos = (uint64_t)VEC_DATA(qv, int64_t)[qp];
}

/* Sink state of SELECT "$path", "$pos"[, new values...]. */
typedef struct dml_state {
    ice_positions *p;
    int64_t rows;                  /* rows matched */
    ice_insert *writer;            /* UPDATE: new row values */
} dml_state;

static int positions_sink(void *ud, const vec_chunk *c, sqe_error *err) {
    dml_state *d = ud;
    for (uint32_t row = 0; row < c->count; row++) {
        sqe_str s;
        uint64_t pos;
        path_pos_at(c, 0, row, &s, &pos);
        SQE_TRY(ice_positions_add(d->p, sqe_str_data(&s), s.len, pos, NULL, err));
    }
    d->rows += c->count;
    if (d->writer && c->count) {
        vec_chunk values = *c;
        values.cols = c->cols + 2;
        values.n_cols = c->n_cols - 2;
        SQE_TRY(ice_insert_sink(d->writer, &values, err));
    }
    return SQE_OK;
}

static int count_sink(void *ud, const vec_chunk *c, sqe_error *err) {
    (void)err;
    if (c->count) {
        uint32_t p;
        const vec *v = vec_resolve(&c->cols[0], 0, &p);
        *(int64_t *)ud = VEC_DATA(v, int64_t)[p];
    }
    return SQE_OK;
}

/* SELECT count(*) FROM table. */
static int count_rows(sqe_conn *conn, const sql_qname *table, const vec *const *params,
                      uint32_t n_params, int64_t *rows, sqe_error *err) {
    arena a;
    arena_init(&a, NULL);
    sql_select_item *item = ARENA_NEW(&a, sql_select_item);
    sql_query *q = NULL;
    if (item) {
        item->kind = SQL_SELECT_EXPR;
        item->expr = dml_ast_count_star(&a);
        q = item->expr ? dml_ast_select(&a, table, item, 1, NULL) : NULL;
    }
    int rc = q ? engine_dml_run(conn, q, params, n_params, NULL, NULL, count_sink, rows, err)
               : err_nomem(err, "delete");
    arena_destroy(&a);
    return rc;
}

/* ---- helpers on the table's live files ----------------------------------------------------- */

typedef struct live_files {
    const ice_manifest_entry **e;
    uint32_t n;
} live_files;

static int load_live(arena *a, const cat_table *t, live_files *out, sqe_error *err) {
    const ice_metadata *m = t->ice->meta;
    return ice_snapshot_live_files(a, m, ice_metadata_current_snapshot(m), &out->e, &out->n, err);
}

static const ice_manifest_entry *find_data(const live_files *lf, const char *path) {
    for (uint32_t i = 0; i < lf->n; i++)
        if (lf->e[i]->file.content == ICE_CONTENT_DATA && !strcmp(lf->e[i]->file.file_path, path))
            return lf->e[i];
    return NULL;
}

static bool is_dv(const ice_data_file *f) {
    return f->content == ICE_CONTENT_POSITION_DELETES && f->file_format &&
           !strcmp(f->file_format, "PUFFIN");
}

/* A removal list under construction. */
typedef struct removals {
    const char **paths;
    const char **refs;
    uint32_t n, cap;
} removals;

static int remove_file(arena *a, removals *r, const char *path, const char *ref, sqe_error *err) {
    if (r->n == r->cap) {
        uint32_t cap = r->cap ? r->cap * 2 : 16;
        const char **p = ARENA_ARRAY(a, const char *, cap);
        const char **q = ARENA_ARRAY(a, const char *, cap);
        if (!p || !q) return err_nomem(err, "commit");
        if (r->n) {
            memcpy(p, r->paths, r->n * sizeof *p);
            memcpy(q, r->refs, r->n * sizeof *q);
        }
        r->paths = p;
        r->refs = q;
        r->cap = cap;
    }
    r->paths[r->n] = path;
    r->refs[r->n] = ref;
    r->n++;
    return SQE_OK;
}

static const char *new_file_location(arena *a, const ice_insert *w, const char *suffix,
                                     sqe_error *err) {
    char uuid[37];
    if (sqe_uuid_v4(uuid, err)) return NULL;
    char *loc = arena_sprintf(a, "%s/%s%s", w->o.data_dir, uuid, suffix);
    if (!loc) err_nomem(err, "delete file");
    return loc;
}

/* Deletes files this statement wrote, as the user who writes the table. */
static void remove_written(const ice_insert *w, const ice_data_file *files, uint32_t n) {
    const io_identity *io = w->table->ice->meta->io;
    for (uint32_t i = 0; i < n; i++) io_remove_as(files[i].file_path, io, NULL);
}

/* ---- merge-on-read: delete files for the collected positions ------------------------------- */

static int write_delete_files(ice_positions *p, ice_insert *w, const live_files *lf,
                              ice_data_file **out, uint32_t *n_out, removals *rm,
                              sqe_error *err) {
    const ice_metadata *m = w->table->ice->meta;
    ice_delete_target *targets = ARENA_ARRAY(p->a, ice_delete_target, p->n_files + 1);
    ice_data_file *files = ARENA_ARRAY(p->a, ice_data_file, p->n_files + 1);
    if (!targets || !files) return err_nomem(err, "delete files");
    for (uint32_t i = 0; i < p->n_files; i++) {
        const ice_manifest_entry *de = find_data(lf, p->files[i].path);
        if (!de)
            return err_set(err, SQE_ERR_COMMIT_CONFLICT,
                           "Commit failed: data file %s is no longer in the table",
                           p->files[i].path);
        targets[i] = (ice_delete_target){p->files[i].path, &p->files[i].pos, de->file.spec_id,
                                         de->file.n_partition, de->file.partition,
                                         de->file.partition_row};
    }
    if (m->format_version >= 3) {
        /* deletion vectors: merge each data file's existing vector and replace it */
        for (uint32_t i = 0; i < p->n_files; i++)
            for (uint32_t k = 0; k < lf->n; k++) {
                const ice_data_file *f = &lf->e[k]->file;
                if (!is_dv(f) || !f->referenced_data_file ||
                    strcmp(f->referenced_data_file, p->files[i].path) != 0)
                    continue;
                io_file *io;
                SQE_TRY(io_open_as(f->file_path, w->table->ice->meta->io, &io, err));
                ice_roaring old;
                ice_roaring_init(&old);
                int rc = ice_dv_read(io, f->content_offset, f->content_size_in_bytes, &old, err);
                io_close(io);
                if (!rc) rc = ice_roaring_add_all(&p->files[i].pos, &old, err);
                ice_roaring_reset(&old);
                SQE_TRY(rc);
                SQE_TRY(remove_file(p->a, rm, f->file_path, f->referenced_data_file, err));
            }
        const char *loc = new_file_location(p->a, w, "-dv.puffin", err);
        if (!loc) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
        SQE_TRY(ice_dv_file_write_as(p->a, loc, m->io, targets, p->n_files, files, err));
        *out = files;
        *n_out = p->n_files;
        return SQE_OK;
    }
    for (uint32_t i = 0; i < p->n_files; i++) {
        const char *loc = new_file_location(p->a, w, "-deletes.parquet", err);
        int rc = loc ? ice_position_delete_file_write_as(p->a, loc, m->io, &targets[i], 1,
                                                         &w->o.parquet, &files[i], err)
                     : (err ? err->code : SQE_ERR_OUT_OF_MEMORY);
        if (rc) {
            remove_written(w, files, i);
            return rc;
        }
    }
    *out = files;
    *n_out = p->n_files;
    return SQE_OK;
}

/* ---- copy-on-write: the affected files without the collected positions ---------------------- */

typedef struct rewrite_state {
    ice_positions *p;
    ice_insert *w;
    uint32_t n_cols;               /* table columns; "$path", "$pos" follow */
    vec *views;                    /* n_cols dictionary views */
    uint32_t sel[VEC_CHUNK_SIZE];
} rewrite_state;

static int rewrite_sink(void *ud, const vec_chunk *c, sqe_error *err) {
    rewrite_state *rs = ud;
    if (c->count > VEC_CHUNK_SIZE)
        return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "rewrite: chunk of %u rows", c->count);
    uint32_t n = 0;
    for (uint32_t row = 0; row < c->count; row++) {
        sqe_str s;
        uint64_t pos;
        path_pos_at(c, rs->n_cols, row, &s, &pos);
        ice_file_positions *f = positions_find(rs->p, sqe_str_data(&s), s.len);
        if (!f || !ice_roaring_contains(&f->pos, pos)) rs->sel[n++] = row;
    }
    if (!n) return SQE_OK;
    for (uint32_t col = 0; col < rs->n_cols; col++) {
        vec_set_dict(&rs->views[col], &c->cols[col], n == c->count ? NULL : rs->sel);
        rs->views[col].type = c->cols[col].type;
        rs->views[col].capacity = n;
    }
    vec_chunk kept = {.n_cols = rs->n_cols, .count = n, .capacity = n, .cols = rs->views};
    return ice_insert_sink(rs->w, &kept, err);
}

/* SELECT *, "$path", "$pos" FROM table WHERE "$path" IN (the files of p), minus p's rows, into
 * w. */
static int rewrite_rows(ice_insert *w, ice_positions *p, const sql_qname *table, sqe_error *err) {
    arena *a = p->a;
    const char **paths = ARENA_ARRAY(a, const char *, p->n_files + 1);
    sql_select_item *items = ARENA_ARRAY(a, sql_select_item, 3);
    if (!paths || !items) return err_nomem(err, "rewrite");
    for (uint32_t i = 0; i < p->n_files; i++) paths[i] = p->files[i].path;
    items[0].kind = SQL_SELECT_STAR;
    items[1].kind = items[2].kind = SQL_SELECT_EXPR;
    items[1].expr = dml_ast_name(a, "$path");
    items[2].expr = dml_ast_name(a, "$pos");
    sql_expr *where = dml_ast_in_strings(a, dml_ast_name(a, "$path"), paths, p->n_files);
    sql_query *q = items[1].expr && items[2].expr && where
                       ? dml_ast_select(a, table, items, 3, where)
                       : NULL;
    if (!q) return err_nomem(err, "rewrite");
    rewrite_state *rs = calloc(1, sizeof *rs);
    uint32_t n_cols = w->table->n_columns;
    vec *views = calloc(n_cols + 1, sizeof *views);
    int rc = rs && views ? SQE_OK : err_nomem(err, "rewrite");
    if (!rc) {
        *rs = (rewrite_state){.p = p, .w = w, .n_cols = n_cols, .views = views};
        rc = engine_dml_run(w->conn, q, NULL, 0, NULL, NULL, rewrite_sink, rs, err);
    }
    free(views); /* views only borrow: nothing of their own to free */
    free(rs);
    return rc;
}

/* ---- applying and committing ----------------------------------------------------------------- */

bool ice_dml_merge_on_read(const cat_table *t, const char *property) {
    const char *v = ice_kv_get(&t->ice->meta->properties, property);
    return v && !strcmp(v, "merge-on-read") && t->ice->meta->format_version >= 2;
}

/* Commits added files and removals; deletes the added files when the commit fails. */
static int commit(ice_insert *w, const char *operation, ice_data_file *added, uint32_t n_added,
                  const removals *rm, sqe_error *err) {
    if (!n_added && !rm->n) return SQE_OK;
    ice_snapshot_change ch;
    memset(&ch, 0, sizeof ch);
    ch.operation = operation;
    ch.added = added;
    ch.n_added = n_added;
    ch.removed = rm->paths;
    ch.removed_refs = rm->refs;
    ch.n_removed = rm->n;
    int64_t snap;
    int rc = engine_ice_commit(w->cat, &w->table, &ch, &w->a, &snap, err);
    if (!rc) engine_effects_committed(w->conn->effects, snap);
    if (rc && rc != SQE_ERR_COMMIT_STATE_UNKNOWN) remove_written(w, added, n_added);
    return rc;
}

/* Concatenates two file arrays in a. */
static ice_data_file *concat(arena *a, const ice_data_file *x, uint32_t nx, const ice_data_file *y,
                             uint32_t ny) {
    ice_data_file *r = ARENA_ARRAY(a, ice_data_file, nx + ny + 1);
    if (!r) return NULL;
    if (nx) memcpy(r, x, nx * sizeof *r);
    if (ny) memcpy(r + nx, y, ny * sizeof *r);
    return r;
}

int ice_dml_apply(ice_insert *w, ice_positions *p, bool mor, const sql_qname *table,
                  sqe_error *err) {
    arena *a = p->a;
    live_files lf = {0};
    removals rm = {0};
    ice_data_file *dels = NULL, *rows_files = NULL;
    uint32_t n_dels = 0, n_rows_files = 0;
    int rc = p->n_files ? load_live(a, w->table, &lf, err) : SQE_OK;
    if (!rc && p->n_files && mor) {
        rc = write_delete_files(p, w, &lf, &dels, &n_dels, &rm, err);
    } else if (!rc && p->n_files) {
        rc = rewrite_rows(w, p, table, err);
        for (uint32_t i = 0; !rc && i < p->n_files; i++) {
            if (!find_data(&lf, p->files[i].path))
                rc = err_set(err, SQE_ERR_COMMIT_CONFLICT,
                             "Commit failed: data file %s is no longer in the table",
                             p->files[i].path);
            if (!rc) rc = remove_file(a, &rm, p->files[i].path, NULL, err);
            /* delete files that only concern a rewritten file go with it */
            for (uint32_t k = 0; !rc && k < lf.n; k++) {
                const ice_data_file *f = &lf.e[k]->file;
                if (f->content != ICE_CONTENT_DATA && f->referenced_data_file &&
                    !strcmp(f->referenced_data_file, p->files[i].path))
                    rc = remove_file(a, &rm, f->file_path, f->referenced_data_file, err);
            }
        }
    }
    if (!rc) rc = engine_ice_writer_files(w, &rows_files, &n_rows_files, err);
    ice_data_file *all = NULL;
    if (!rc) {
        all = concat(a, rows_files, n_rows_files, dels, n_dels);
        if (!all) rc = err_nomem(err, "commit");
    }
    if (rc) {
        remove_written(w, dels, n_dels);
        remove_written(w, rows_files, n_rows_files);
        return rc;
    }
    const char *op = !rm.n && !n_dels ? "append" : n_rows_files ? "overwrite" : "delete";
    return commit(w, op, all, n_rows_files + n_dels, &rm, err);
}

/* ---- the statements ------------------------------------------------------------------------ */

/* SELECT "$path", "$pos" [, values] FROM table WHERE coalesce(cond, false). */
static sql_query *positions_query(arena *a, const sql_qname *table, sql_expr *cond,
                                  sql_select_item *values, uint32_t n_values) {
    sql_select_item *items = ARENA_ARRAY(a, sql_select_item, n_values + 2);
    if (!items) return NULL;
    items[0].kind = items[1].kind = SQL_SELECT_EXPR;
    items[0].expr = dml_ast_name(a, "$path");
    items[1].expr = dml_ast_name(a, "$pos");
    if (n_values) memcpy(items + 2, values, n_values * sizeof *items);
    if (!items[0].expr || !items[1].expr) return NULL;
    sql_expr *where = cond ? dml_ast_is_true(a, cond) : NULL;
    if (cond && !where) return NULL;
    return dml_ast_select(a, table, items, (int)n_values + 2, where);
}

/* Finds the rows (writing values for UPDATE) and applies them. */
static int find_and_apply(sqe_conn *conn, cat_table *t, const sql_qname *table, sql_expr *where,
                          sql_select_item *values, uint32_t n_values, const char *mode,
                          const vec *const *params, uint32_t n_params, int64_t *rows,
                          sqe_error *err) {
    arena a;
    arena_init(&a, NULL);
    ice_positions p;
    ice_positions_init(&p, &a);
    dml_state d = {.p = &p};
    ice_insert *w = NULL;
    int rc = engine_ice_insert_begin(conn, t, &w, err);
    sql_query *q = rc ? NULL : positions_query(&a, table, where, values, n_values);
    if (!rc && !q) rc = err_nomem(err, "row-level statement");
    if (!rc && n_values) d.writer = w;
    if (!rc) rc = engine_dml_run(conn, q, params, n_params, NULL, NULL, positions_sink, &d, err);
    if (!rc && p.n_files) rc = ice_dml_apply(w, &p, ice_dml_merge_on_read(t, mode), table, err);
    if (!rc) *rows = d.rows;
    engine_ice_writer_end(w);
    ice_positions_reset(&p);
    arena_destroy(&a);
    return rc;
}

int engine_ice_delete(sqe_conn *conn, cat_table *t, const sql_qname *table, sql_expr *where,
                      const vec *const *params, uint32_t n_params, int64_t *rows, sqe_error *err) {
    *rows = 0;
    if (!where) {
        SQE_TRY(count_rows(conn, table, params, n_params, rows, err));
        int64_t ignored;
        return engine_ice_truncate(conn, t, &ignored, err);
    }
    return find_and_apply(conn, t, table, where, NULL, 0, "write.delete.mode", params, n_params,
                          rows, err);
}

int engine_ice_update(sqe_conn *conn, cat_table *t, const sql_qname *table,
                      const sql_assignment *sets, int n_sets, sql_expr *where,
                      const vec *const *params, uint32_t n_params, int64_t *rows,
                      sqe_error *err) {
    *rows = 0;
    arena a;
    arena_init(&a, NULL);
    /* the new row: SET values cast to the column types, other columns as they are */
    uint32_t n = t->n_columns;
    sql_select_item *items = ARENA_ARRAY(&a, sql_select_item, n + 1);
    int rc = items ? SQE_OK : err_nomem(err, "update");
    for (uint32_t c = 0; !rc && c < n; c++) {
        sql_expr *val = dml_ast_name(&a, t->columns[c].name);
        for (int s = 0; s < n_sets; s++)
            if (!strcmp(t->columns[c].name, sets[s].column.name))
                val = dml_ast_cast(&a, sets[s].value, t->columns[c].type);
        items[c].kind = SQL_SELECT_EXPR;
        items[c].expr = val;
        if (!val) rc = err_nomem(err, "update");
    }
    if (!rc)
        rc = find_and_apply(conn, t, table, where, items, n, "write.update.mode", params,
                            n_params, rows, err);
    arena_destroy(&a);
    return rc;
}

int engine_ice_truncate(sqe_conn *conn, cat_table *t, int64_t *rows, sqe_error *err) {
    *rows = 0;
    arena a;
    arena_init(&a, NULL);
    live_files lf;
    ice_insert *w = NULL;
    removals rm = {0};
    int rc = load_live(&a, t, &lf, err);
    for (uint32_t i = 0; !rc && i < lf.n; i++) {
        const ice_data_file *f = &lf.e[i]->file;
        if (f->content == ICE_CONTENT_DATA) *rows += f->record_count;
        else if (f->content == ICE_CONTENT_POSITION_DELETES) *rows -= f->record_count;
        rc = remove_file(&a, &rm, f->file_path, f->referenced_data_file, err);
    }
    if (*rows < 0) *rows = 0;
    if (!rc) rc = engine_ice_insert_begin(conn, t, &w, err);
    if (!rc) rc = commit(w, "delete", NULL, 0, &rm, err);
    engine_ice_writer_end(w);
    arena_destroy(&a);
    return rc;
}
