/*
 * ice_refs.c: branches and tags of Iceberg tables: ALTER TABLE t CREATE [OR REPLACE] BRANCH|TAG
 * [IF NOT EXISTS] x [AS OF VERSION n] [RETAIN n DAYS|HOURS|MINUTES] and DROP BRANCH|TAG
 * [IF EXISTS] x (Spark's Iceberg SQL extensions).
 *
 * INTERFACE: engine_ice_alter_ref (ice_procedures.h).
 * NOTES
 *   A new ref points at AS OF VERSION's snapshot, else at the current snapshot (a table without
 *   snapshots has nothing to point at: error). RETAIN sets the ref's max-ref-age-ms, which
 *   expire_snapshots honours. "main" can be neither dropped nor made a tag. Each change is a
 *   metadata-only commit (engine_ice_commit_meta), re-checked on the reloaded table when a
 *   concurrent commit wins. Reading a ref: FOR VERSION AS OF 'x' (bind_iceberg.c).
 */
#include <string.h>

#include "catalog/catalog_iceberg.h"
#include "engine/engine.h"
#include "engine/ice_procedures.h"
#include "engine/iceberg/ice_write_int.h"
#include "iceberg/metadata_update.h"

typedef struct ref_ctx {
    const sql_stmt *st;
    int64_t as_of;           /* -1: the current snapshot */
    bool has_retain;
    int64_t retain_ms;
    bool unchanged;          /* IF [NOT] EXISTS made it a no-op */
} ref_ctx;

static int ref_edit(void *ud, arena *a, const ice_metadata *base, ice_metadata *next,
                    sqe_error *err) {
    ref_ctx *c = ud;
    const sql_stmt *st = c->st;
    const sql_ident *id = &st->u.alter.name;
    const char *name = id->name;
    uint8_t action = st->u.alter.action;
    bool branch = action == SQL_ALTER_CREATE_BRANCH || action == SQL_ALTER_DROP_BRANCH;
    const char *what = branch ? "Branch" : "Tag";
    const ice_ref *old = ice_metadata_ref(base, name);
    c->unchanged = false;
    if (action == SQL_ALTER_DROP_BRANCH || action == SQL_ALTER_DROP_TAG) {
        if (!old) {
            if (st->u.alter.sub_if_exists) {
                c->unchanged = true;
                return SQE_OK;
            }
            return err_set_at(err, SQE_ERR_NOT_FOUND, id->line, id->col, "%s does not exist: %s",
                              what, id->text);
        }
        if ((old->type == ICE_REF_BRANCH) != branch)
            return err_set_at(err, SQE_ERR_INVALID_ARGUMENTS, id->line, id->col,
                              "Ref %s is a %s, not a %s", id->text,
                              old->type == ICE_REF_TAG ? "tag" : "branch", branch ? "branch" : "tag");
        if (!strcmp(name, "main"))
            return err_set_at(err, SQE_ERR_INVALID_ARGUMENTS, id->line, id->col,
                              "Cannot remove main branch");
        return ice_metadata_set_ref(a, next, name, old->type, old->snapshot_id, true, err);
    }
    if (old) {
        if (st->u.alter.sub_if_not_exists) {
            c->unchanged = true;
            return SQE_OK;
        }
        if (!st->u.alter.ref_or_replace)
            return err_set_at(err, SQE_ERR_ALREADY_EXISTS, id->line, id->col,
                              "Ref %s already exists", id->text);
        if ((old->type == ICE_REF_BRANCH) != branch)
            return err_set_at(err, SQE_ERR_INVALID_ARGUMENTS, id->line, id->col,
                              "Ref %s is a %s, not a %s", id->text,
                              old->type == ICE_REF_TAG ? "tag" : "branch", branch ? "branch" : "tag");
    }
    if (!branch && !strcmp(name, "main"))
        return err_set_at(err, SQE_ERR_INVALID_ARGUMENTS, id->line, id->col,
                          "Cannot create a tag named main: it is the main branch");
    int64_t snap = c->as_of >= 0 ? c->as_of : base->current_snapshot_id;
    if (snap < 0)
        return err_set_at(err, SQE_ERR_INVALID_ARGUMENTS, id->line, id->col,
                          "Cannot create %s %s: the table has no snapshot", branch ? "branch" : "tag",
                          id->text);
    if (!ice_metadata_snapshot(base, snap)) {
        const sql_expr *e = st->u.alter.ref_as_of;
        return err_set_at(err, SQE_ERR_NOT_FOUND, e ? e->line : id->line, e ? e->col : id->col,
                          "Cannot set %s to unknown snapshot: %lld", id->text, (long long)snap);
    }
    SQE_TRY(ice_metadata_set_ref(a, next, name, branch ? ICE_REF_BRANCH : ICE_REF_TAG, snap, false,
                                 err));
    for (uint32_t i = 0; i < next->n_refs; i++) {
        ice_ref *r = &next->refs[i];
        if (strcmp(r->name, name) != 0) continue;
        r->has_max_ref_age_ms = c->has_retain || (old && old->has_max_ref_age_ms);
        r->max_ref_age_ms = c->has_retain ? c->retain_ms : old ? old->max_ref_age_ms : 0;
        if (!branch) { /* snapshot retention settings are branch-only */
            r->has_max_snapshot_age_ms = false;
            r->has_min_snapshots_to_keep = false;
        }
    }
    if (!strcmp(name, "main") && snap != base->current_snapshot_id) {
        next->current_snapshot_id = snap;
        ice_snapshot_log_entry *log =
            ARENA_ARRAY(a, ice_snapshot_log_entry, base->n_snapshot_log + 1);
        if (!log) return err_nomem(err, "snapshot log");
        if (base->n_snapshot_log)
            memcpy(log, base->snapshot_log, base->n_snapshot_log * sizeof *log);
        log[base->n_snapshot_log].timestamp_ms = next->last_updated_ms;
        log[base->n_snapshot_log].snapshot_id = snap;
        next->snapshot_log = log;
        next->n_snapshot_log = base->n_snapshot_log + 1;
        next->present |= ICE_MD_SNAPSHOT_LOG;
    }
    return SQE_OK;
}

/* A non-negative bigint constant. */
static int bigint_arg(sqe_conn *conn, plan_ctx *pctx, const sql_expr *e, const vec *const *params,
                      uint32_t n_params, const char *what, int64_t *out, sqe_error *err) {
    sqe_type bt = type_make(TYPE_BIGINT);
    const vec *v;
    SQE_TRY(engine_ice_const(conn, pctx, e, params, n_params, &bt, false, &v, err));
    uint32_t p;
    const vec *f = vec_resolve(v, 0, &p);
    if (vec_is_null(v, 0) || VEC_DATA(f, int64_t)[p] < 0)
        return err_set_at(err, SQE_ERR_INVALID_ARGUMENTS, e->line, e->col,
                          "%s must be a non-negative number", what);
    *out = VEC_DATA(f, int64_t)[p];
    return SQE_OK;
}

int engine_ice_alter_ref(sqe_conn *conn, catalog *cat, cat_table *t, const sql_stmt *st,
                         const vec *const *params, uint32_t n_params, sqe_error *err) {
    ref_ctx c = {st, -1, false, 0, false};
    arena a;
    arena_init(&a, NULL);
    plan_ctx pctx;
    plan_ctx_init(&pctx, &a, NULL, exec_fold_const);
    int rc = SQE_OK;
    if (st->u.alter.ref_as_of)
        rc = bigint_arg(conn, &pctx, st->u.alter.ref_as_of, params, n_params, "AS OF VERSION",
                        &c.as_of, err);
    if (!rc && st->u.alter.ref_retain) {
        int64_t n = 0;
        rc = bigint_arg(conn, &pctx, st->u.alter.ref_retain, params, n_params, "RETAIN", &n, err);
        static const int64_t unit_ms[] = {24LL * 3600 * 1000, 3600LL * 1000, 60LL * 1000};
        uint8_t u = st->u.alter.ref_retain_unit < 3 ? st->u.alter.ref_retain_unit : 0;
        if (!rc && n > INT64_MAX / unit_ms[u])
            rc = err_set_at(err, SQE_ERR_NUMERIC_VALUE_OUT_OF_RANGE, st->u.alter.ref_retain->line,
                            st->u.alter.ref_retain->col, "RETAIN value is too large");
        c.has_retain = true;
        c.retain_ms = n * unit_ms[u];
    }
    plan_ctx_destroy(&pctx);
    arena_destroy(&a);
    SQE_TRY(rc);
    /* a no-op (IF [NOT] EXISTS) needs no commit: check on the loaded version first */
    {
        arena probe;
        arena_init(&probe, NULL);
        ice_metadata *next;
        rc = ice_metadata_next(&probe, t->ice->meta, NULL, &next, err);
        if (!rc) rc = ref_edit(&c, &probe, t->ice->meta, next, err);
        arena_destroy(&probe);
        SQE_TRY(rc);
        if (c.unchanged) return SQE_OK;
    }
    cat_table_ref(t);
    rc = engine_ice_commit_meta(cat, &t, ref_edit, &c, err);
    cat_table_unref(t);
    return rc;
}
