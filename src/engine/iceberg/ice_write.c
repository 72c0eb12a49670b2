/*
 * ice_write.c: writing Iceberg tables: INSERT (and CTAS) stream the query's rows into the
 * data-file writer and commit the files as a new snapshot, retrying on concurrent commits.
 *
 * INTERFACE: engine_ice_insert_begin, ice_insert_sink, engine_ice_insert_finish,
 *   engine_ice_commit, engine_ice_commit_meta (engine.h).
 * NOTES
 *   Files are written before the commit, so a crash or a failed commit leaves only unreferenced
 *   files (remove_orphan_files deletes them) and the table at its previous snapshot. A lost
 *   compare-and-swap reloads the table and re-applies the change on the new version with
 *   exponential backoff and jitter (commit.retry.num-retries, default 20 here: embedded
 *   writers on one machine contend harder than Iceberg Java's default of 4 assumes;
 *   commit.retry.min-wait-ms / max-wait-ms as in Iceberg Java). Added files never conflict;
 *   removing a file someone else already removed fails (COMMIT_CONFLICT).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "catalog/catalog_iceberg.h"
#include "common/random.h"
#include "engine/engine.h"
#include "engine/iceberg/ice_write_int.h"
#include "iceberg/data_writer.h"
#include "iceberg/metadata_update.h"
#include "iceberg/snapshot_produce.h"
#include "io/io.h"

static int64_t prop_int(const ice_metadata *m, const char *key, int64_t def) {
    const char *v = ice_kv_get(&m->properties, key);
    if (!v || !*v) return def;
    char *end;
    long long x = strtoll(v, &end, 10);
    return *end || x < 0 ? def : (int64_t)x;
}

static void sleep_ms(int64_t ms) {
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

/* Waits before retry `attempt` and reloads *t. */
static int retry_wait(catalog *cat, cat_table **t, int64_t *wait, int64_t max_wait,
                      sqe_error *err) {
    uint32_t jitter = 0;
    sqe_random_bytes(&jitter, sizeof jitter, NULL);
    sleep_ms(*wait + (int64_t)(jitter % (uint32_t)(*wait + 1)));
    *wait = *wait * 2 > max_wait ? max_wait : *wait * 2;
    cat_table *fresh;
    SQE_TRY(catalog_get_table(cat, (*t)->ice->principal, (*t)->schema, (*t)->name, &fresh, err));
    cat_table_unref(*t);
    *t = fresh;
    return SQE_OK;
}

int engine_ice_commit_meta(catalog *cat, cat_table **t, engine_ice_edit edit, void *ud,
                           sqe_error *err) {
    const ice_metadata *m0 = (*t)->ice->meta;
    int64_t retries = prop_int(m0, "commit.retry.num-retries", 20);
    int64_t wait = prop_int(m0, "commit.retry.min-wait-ms", 10);
    int64_t max_wait = prop_int(m0, "commit.retry.max-wait-ms", 2000);
    for (int64_t attempt = 0;; attempt++) {
        arena a;
        arena_init(&a, NULL);
        const ice_table_ref *base = (*t)->ice;
        ice_metadata *next;
        int rc = ice_metadata_next(&a, base->meta, base->metadata_location, &next, err);
        if (!rc) rc = edit(ud, &a, base->meta, next, err);
        if (!rc) rc = catalog_commit(cat, base, next, err);
        arena_destroy(&a);
        if (rc != SQE_ERR_COMMIT_CONFLICT || attempt >= retries) return rc;
        SQE_TRY(retry_wait(cat, t, &wait, max_wait, err));
    }
}

int engine_ice_commit(catalog *cat, cat_table **t, ice_snapshot_change *ch, arena *a,
                      int64_t *snapshot_id, sqe_error *err) {
    const ice_metadata *m0 = (*t)->ice->meta;
    int64_t retries = prop_int(m0, "commit.retry.num-retries", 20);
    int64_t wait = prop_int(m0, "commit.retry.min-wait-ms", 10);
    int64_t max_wait = prop_int(m0, "commit.retry.max-wait-ms", 2000);
    for (int64_t attempt = 0;; attempt++) {
        const ice_table_ref *base = (*t)->ice;
        ch->base_location = base->metadata_location;
        ice_produced p;
        SQE_TRY(ice_snapshot_produce(a, base->meta, ch, &p, err));
        int rc = catalog_commit(cat, base, p.meta, err);
        if (rc == SQE_OK) {
            if (snapshot_id) *snapshot_id = p.snapshot_id;
            return SQE_OK;
        }
        /* When the catalog may have taken the commit, the files it would reference stay. */
        if (rc == SQE_ERR_COMMIT_STATE_UNKNOWN) return rc;
        ice_produced_discard(&p);
        if (rc != SQE_ERR_COMMIT_CONFLICT || attempt >= retries) return rc;
        SQE_TRY(retry_wait(cat, t, &wait, max_wait, err));
    }
}


int engine_ice_insert_begin(sqe_conn *conn, cat_table *t, ice_insert **out, sqe_error *err) {
    *out = NULL;
    bind_env env;
    engine_bind_env(conn, &env);
    catalog *cat = bind_find_catalog(&env, t->catalog);
    if (!cat || cat->ops->kind != CAT_KIND_ICEBERG)
        return err_set(err, SQE_ERR_CATALOG_NOT_FOUND, "Catalog '%s' does not exist", t->catalog);
    ice_insert *ins = calloc(1, sizeof *ins);
    if (!ins) return err_nomem(err, "insert");
    ins->conn = conn;
    ins->cat = cat;
    cat_table_ref(t);
    ins->table = t;
    arena_init(&ins->a, NULL);
    const ice_metadata *m = t->ice->meta;
    int rc = ice_write_options_from_properties(&m->properties, &ins->o, err);
    if (!rc) {
        ins->o.data_dir = ice_write_data_dir(&ins->a, m->location, &m->properties);
        ins->o.format_version = m->format_version;
        ins->o.parquet.threads = 1;
        ins->o.io = m->io; /* owned by the table reference this insert holds */
        if (!ins->o.data_dir) rc = err_nomem(err, "insert");
    }
    if (!rc)
        rc = ice_data_writer_open(ice_metadata_current_schema(m), ice_metadata_default_spec(m),
                                  &ins->o, &ins->a, NULL, &ins->w, err);
    if (rc) {
        engine_ice_insert_finish(ins, false, NULL, NULL);
        return rc;
    }
    *out = ins;
    return SQE_OK;
}

int ice_insert_sink(void *ud, const vec_chunk *chunk, sqe_error *err) {
    ice_insert *ins = ud;
    if (!ins || !ins->w) return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "Iceberg writer not open");
    return chunk->count ? ice_data_writer_write(ins->w, chunk, err) : SQE_OK;
}

int engine_ice_writer_files(ice_insert *ins, ice_data_file **files, uint32_t *n,
                            sqe_error *err) {
    ice_data_writer *w = ins->w;
    ins->w = NULL;
    ins->rows = ice_data_writer_rows(w);
    return ice_data_writer_finish(w, files, n, err);
}

void engine_ice_writer_end(ice_insert *ins) {
    if (!ins) return;
    ice_data_writer_abort(ins->w);
    cat_table_unref(ins->table);
    arena_destroy(&ins->a);
    free(ins);
}

int engine_ice_insert_finish(ice_insert *ins, bool ok, int64_t *rows, sqe_error *err) {
    if (rows) *rows = 0;
    if (!ins) return SQE_OK;
    int rc = SQE_OK;
    if (ok) {
        ice_data_file *files = NULL;
        uint32_t n = 0;
        rc = engine_ice_writer_files(ins, &files, &n, err);
        uint64_t n_rows = ins->rows;
        if (!rc && n > 0) {
            ice_snapshot_change ch;
            memset(&ch, 0, sizeof ch);
            ch.operation = "append";
            ch.added = files;
            ch.n_added = n;
            int64_t snap;
            rc = engine_ice_commit(ins->cat, &ins->table, &ch, &ins->a, &snap, err);
            if (!rc) engine_effects_committed(ins->conn->effects, snap);
            /* the table does not reference them: remove what we wrote (unless the catalog may
             * have taken the commit after all) */
            if (rc && rc != SQE_ERR_COMMIT_STATE_UNKNOWN)
                for (uint32_t i = 0; i < n; i++)
                    io_remove_as(files[i].file_path, ins->table->ice->meta->io, NULL);
        }
        if (!rc && rows) *rows = (int64_t)n_rows;
    }
    engine_ice_writer_end(ins);
    return rc;
}
