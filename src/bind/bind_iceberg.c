/*
 * bind_iceberg.c: an Iceberg table in FROM: picks the snapshot (current, FOR VERSION AS OF
 * snapshot id / branch / tag, FOR TIMESTAMP AS OF) and the schema to read it with, and binds
 * the scan source over that snapshot (scan/scan_iceberg.c) as a PLAN_TABLE_FUNC.
 *
 * INTERFACE: bind_iceberg_table (bind_int.h).
 * NOTES
 *   Time travel binds the schema of the snapshot (Iceberg/Trino semantics for snapshot ids and
 *   timestamps); a branch or tag reads with the table's current schema. Everything about
 *   reading the snapshot (pruning, row groups, deletes, identities) is the source's.
 */
#include "bind/bind_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "catalog/catalog_iceberg.h"
#include "scan/scan_iceberg.h"
#include "types/tz.h"

/* ---- snapshot selection ------------------------------------------------------------------ */

static int version_error(binder *b, const sql_relation *r, const char *fmt, const char *what) {
    return bind_error(b, SQE_ERR_INVALID_ARGUMENTS, r->line, r->col, fmt, what);
}

/* Evaluates the AS OF expression to a constant vector. */
static int as_of_value(binder *b, const sql_relation *r, const vec **out) {
    *out = NULL;
    bexpr *e;
    SQE_TRY(bind_expr(b, NULL, r->u.table.as_of, &e));
    if (e->kind != BEXPR_CONST) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        int64_t now = (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
        bexpr *folded;
        if (!b->pctx->fold_const)
            return bind_error(b, SQE_ERR_INVALID_ARGUMENTS, r->line, r->col,
                              "The version or timestamp of a time travel query must be a constant");
        int rc = b->pctx->fold_const(b->pctx, e, b->env->session_zone, now, &folded, b->err);
        if (rc) {
            if (b->err) {
                b->err->line = r->line;
                b->err->column = r->col;
            }
            return rc;
        }
        e = folded;
    }
    *out = e->kind == BEXPR_CONST ? e->u.constant : NULL;
    if (!*out || vec_is_null(*out, 0))
        return bind_error(b, SQE_ERR_INVALID_ARGUMENTS, r->line, r->col,
                          "The version or timestamp of a time travel query must be a constant "
                          "that is not NULL");
    return SQE_OK;
}

static int pick_snapshot(binder *b, const sql_relation *r, const cat_table *t,
                         const ice_snapshot **snap, const ice_schema **schema) {
    const ice_metadata *m = t->ice->meta;
    *snap = ice_metadata_current_snapshot(m);
    *schema = ice_metadata_current_schema(m);
    if (r->u.table.version == SQL_VERSION_NONE) return SQE_OK;
    const vec *v;
    SQE_TRY(as_of_value(b, r, &v));
    uint32_t p;
    const vec *flat = vec_resolve(v, 0, &p);
    if (r->u.table.version == SQL_VERSION_VERSION) {
        if (type_is_integer(v->type)) {
            int64_t id;
            switch (type_physical_size(v->type)) {
            case 1: id = VEC_DATA(flat, int8_t)[p]; break;
            case 2: id = VEC_DATA(flat, int16_t)[p]; break;
            case 4: id = VEC_DATA(flat, int32_t)[p]; break;
            default: id = VEC_DATA(flat, int64_t)[p]; break;
            }
            *snap = ice_metadata_snapshot(m, id);
            if (!*snap) {
                char buf[32];
                snprintf(buf, sizeof buf, "%lld", (long long)id);
                return version_error(b, r, "Iceberg snapshot ID does not exists: %s", buf);
            }
        } else if (type_is_string(v->type)) {
            sqe_str s = VEC_DATA(flat, sqe_str)[p];
            char name[256];
            uint32_t len = s.len < sizeof name - 1 ? s.len : (uint32_t)sizeof name - 1;
            memcpy(name, sqe_str_data(&s), len);
            name[len] = '\0';
            const ice_ref *ref = ice_metadata_ref(m, name);
            if (!ref) return version_error(b, r, "Cannot find snapshot with reference name: %s", name);
            *snap = ice_metadata_snapshot(m, ref->snapshot_id);
            if (!*snap) return version_error(b, r, "Reference %s points to a missing snapshot", name);
            return SQE_OK; /* branches and tags read with the current schema */
        } else {
            return bind_error(b, SQE_ERR_TYPE_MISMATCH, r->line, r->col,
                              "Unsupported type for table version: %s", "not a number or a name");
        }
    } else {
        int64_t micros;
        if (v->type.id == TYPE_TIMESTAMP_TZ) {
            micros = VEC_DATA(flat, sqe_timestamp_tz)[p].micros;
        } else if (v->type.id == TYPE_TIMESTAMP) {
            micros = tz_local_to_utc(b->env->session_zone, VEC_DATA(flat, int64_t)[p]);
        } else if (v->type.id == TYPE_DATE) {
            micros = tz_local_to_utc(b->env->session_zone,
                                     (int64_t)VEC_DATA(flat, int32_t)[p] * 86400000000LL);
        } else {
            return bind_error(b, SQE_ERR_TYPE_MISMATCH, r->line, r->col,
                              "Pointer type for time travel must be a timestamp with time zone "
                              "or a timestamp%s", "");
        }
        int64_t ms = micros / 1000 - (micros % 1000 < 0 ? 1 : 0);
        /* The last snapshot of the main branch's history at or before ms. */
        const ice_snapshot *best = NULL;
        for (uint32_t i = 0; i < m->n_snapshot_log; i++)
            if (m->snapshot_log[i].timestamp_ms <= ms) {
                const ice_snapshot *s = ice_metadata_snapshot(m, m->snapshot_log[i].snapshot_id);
                if (s) best = s;
            }
        if (!best)
            return bind_error(b, SQE_ERR_INVALID_ARGUMENTS, r->line, r->col,
                              "No version history table %s.%s.%s at or before %lld ms after "
                              "1970-01-01 UTC (the table's first snapshot is later)",
                              t->catalog, t->schema, t->name, (long long)ms);
        *snap = best;
    }
    if ((*snap)->has_schema_id) {
        const ice_schema *s = ice_metadata_schema(m, (*snap)->schema_id);
        if (s) *schema = s;
    }
    return SQE_OK;
}

int bind_iceberg_table(binder *b, cat_table *t, const sql_relation *r, plan **out,
                       const char ***names, int64_t *snapshot_id) {
    const ice_snapshot *snap;
    const ice_schema *schema;
    SQE_TRY(pick_snapshot(b, r, t, &snap, &schema));
    *snapshot_id = snap ? snap->snapshot_id : -1;
    plan_source *src;
    SQE_TRY(scan_iceberg_source(b->pctx, t, snap, schema, &src, b->err));
    const char *label = arena_sprintf(b->pctx->arena, "%s.%s.%s", t->catalog, t->schema, t->name);
    BIND_CHECK(b, label);
    return bind_tfunc_plan(b, label, src, out, names);
}
