/*
 * ice_procedures.c: CALL system.<procedure>(...) on Iceberg tables: rollback_to_snapshot,
 * set_current_snapshot, expire_snapshots, remove_orphan_files, rewrite_data_files (bin-pack).
 *
 * INTERFACE: engine_ice_call, engine_ice_const (ice_procedures.h).
 * NOTES
 *   Arguments follow Iceberg's Spark procedures (named `table => 'ns.t'` or positional in the
 *   declared order; the table string is 'ns.t' or 't' in the session schema, namespaces may be
 *   dotted: the last dot splits). rollback_to_snapshot also takes Trino's positional
 *   (schema, table, snapshot_id) and named schema_name / table_name. Results have Spark's
 *   column names (counts as bigint).
 *   - Snapshot changes are metadata-only commits: main and current-snapshot-id move, a
 *     snapshot-log entry is added.
 *   - expire_snapshots keeps tags' snapshots, the first retain_last ancestors of main (refs'
 *     min-snapshots-to-keep for other branches) and every branch ancestor newer than
 *     older_than; drops refs past their max-ref-age. After the commit it deletes the manifest
 *     lists of the expired snapshots, their manifests that no kept snapshot lists, and the data
 *     and delete files of those manifests that no kept snapshot has live (Iceberg Java's
 *     reachable-file cleanup), and the statistics files of expired snapshots.
 *   - remove_orphan_files lists the table location (a local directory tree, or the objects
 *     under an s3:// location as the table's user), skipping names that start with '.' or '_'
 *     (Iceberg's hidden-path filter), and deletes the files the table does not reference
 *     (reachable.h) whose mtime is before older_than. S3 listings carry no age yet (io_entry):
 *     such objects are removed only when older_than is after the listing.
 *   - rewrite_data_files groups the live data files by spec and partition tuple, takes the
 *     files outside [min-file-size-bytes, max-file-size-bytes] (default 0.75x and 1.8x the
 *     target), and rewrites a group when it has at least min-input-files of them (default 5),
 *     or more than one whose total exceeds the target, or any when rewrite-all. The rows are read
 *     with their deletes applied (a query on "$path") and written through the INSERT writer
 *     (current spec, target file size), then a `replace` snapshot removes the old files and the
 *     delete files that referenced only them.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include "catalog/catalog_iceberg.h"
#include "engine/engine.h"
#include "engine/ice_procedures.h"
#include "engine/iceberg/ice_write_int.h"
#include "iceberg/metadata_update.h"
#include "iceberg/reachable.h"
#include "iceberg/snapshot_produce.h"
#include "io/io.h"
#include "vec/vec_format.h"

#define MAX_PARAMS 8
#define DAY_MS (24LL * 3600 * 1000)

static int64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int engine_ice_const(sqe_conn *conn, plan_ctx *pctx, const sql_expr *e, const vec *const *params,
                     uint32_t n_params, const sqe_type *want, bool explicit_cast,
                     const vec **out, sqe_error *err) {
    bind_env env;
    engine_bind_env(conn, &env);
    env.params = params;
    env.n_params = n_params;
    bexpr *b;
    int rc = bind_scalar_expr(pctx, &env, e, &b, err);
    if (!rc && want) {
        rc = bind_cast_to(pctx, b, *want, explicit_cast, &b, err);
        if (rc) {
            char t[64];
            type_format(*want, t, sizeof t);
            rc = err_set(err, SQE_ERR_TYPE_MISMATCH, "Expected a value of type %s", t);
        }
    }
    if (!rc && b->kind != BEXPR_CONST) {
        int64_t now = now_ms() * 1000;
        bexpr *folded;
        rc = exec_fold_const(pctx, b, conn->time_zone, now, &folded, err);
        if (!rc) b = folded;
    }
    if (!rc && b->kind != BEXPR_CONST)
        rc = err_set(err, SQE_ERR_INVALID_ARGUMENTS, "Expected a constant value");
    if (rc) {
        if (err && !err->line) {
            err->line = e->line;
            err->column = e->col;
        }
        return rc;
    }
    *out = b->u.constant;
    return SQE_OK;
}

/* ---- procedures and their arguments -------------------------------------------------------- */

typedef enum arg_kind { ARG_STRING, ARG_BIGINT, ARG_TIMESTAMP, ARG_BOOLEAN, ARG_MAP } arg_kind;

typedef struct proc_param {
    const char *name;
    arg_kind kind;
    bool required;
} proc_param;

typedef struct proc_call proc_call;

typedef struct procedure {
    const char *name;
    proc_param params[MAX_PARAMS];
    uint32_t n_params;
    int (*run)(proc_call *c, sqe_result **out, sqe_error *err);
} procedure;

struct proc_call {
    sqe_conn *conn;
    const sql_stmt *st;
    const procedure *proc;
    catalog *cat;
    cat_table *t;
    arena a;
    plan_ctx pctx;
    const vec *values[MAX_PARAMS];    /* per parameter; NULL when not given */
    const sql_expr *exprs[MAX_PARAMS];
    const vec *const *params;
    uint32_t n_params;
};

static int param_index(const procedure *p, const char *name) {
    for (uint32_t i = 0; i < p->n_params; i++)
        if (!strcasecmp(p->params[i].name, name)) return (int)i;
    return -1;
}

static const vec *value_of(const proc_call *c, const char *name) {
    int k = param_index(c->proc, name);
    if (k < 0 || !c->values[k] || vec_is_null(c->values[k], 0)) return NULL;
    return c->values[k];
}

static bool has_value(const proc_call *c, const char *name) { return value_of(c, name) != NULL; }

static int64_t bigint_of(const proc_call *c, const char *name, int64_t def) {
    const vec *v = value_of(c, name);
    if (!v) return def;
    uint32_t p;
    const vec *f = vec_resolve(v, 0, &p);
    return VEC_DATA(f, int64_t)[p];
}

static bool bool_of(const proc_call *c, const char *name, bool def) {
    const vec *v = value_of(c, name);
    if (!v) return def;
    uint32_t p;
    const vec *f = vec_resolve(v, 0, &p);
    return VEC_DATA(f, uint8_t)[p] != 0;
}

/* Milliseconds since the epoch of a timestamp argument. */
static int64_t time_of(const proc_call *c, const char *name, int64_t def) {
    const vec *v = value_of(c, name);
    if (!v) return def;
    uint32_t p;
    const vec *f = vec_resolve(v, 0, &p);
    int64_t us = VEC_DATA(f, sqe_timestamp_tz)[p].micros;
    return us >= 0 ? us / 1000 : -((-us + 999) / 1000);
}

static char *vec_text(arena *a, const vec *v, uint32_t row) {
    uint32_t p;
    const vec *f = vec_resolve(v, row, &p);
    sqe_str s = VEC_DATA(f, sqe_str)[p];
    return arena_strndup(a, sqe_str_data(&s), s.len);
}

static char *string_of(proc_call *c, const char *name) {
    const vec *v = value_of(c, name);
    return v ? vec_text(&c->a, v, 0) : NULL;
}

static int arg_error(proc_call *c, const sql_expr *e, int code, const char *fmt, const char *a1,
                     sqe_error *err) {
    int line = e ? e->line : c->st->line, col = e ? e->col : c->st->col;
    char msg[512];
    snprintf(msg, sizeof msg, fmt, a1);
    return err_set_at(err, code, line, col, "%s", msg);
}

static sqe_type kind_type(arg_kind k) {
    switch (k) {
    case ARG_BIGINT: return type_make(TYPE_BIGINT);
    case ARG_TIMESTAMP: return type_make(TYPE_TIMESTAMP_TZ);
    case ARG_BOOLEAN: return type_make(TYPE_BOOLEAN);
    default: return type_varchar(0);
    }
}

/* Binds argument expression e to parameter k. */
static int bind_arg(proc_call *c, int k, const sql_expr *e, sqe_error *err) {
    const proc_param *pp = &c->proc->params[k];
    if (c->values[k])
        return arg_error(c, e, SQE_ERR_INVALID_ARGUMENTS, "Duplicate procedure argument: %s",
                         pp->name, err);
    const vec *v;
    if (pp->kind == ARG_MAP) {
        SQE_TRY(engine_ice_const(c->conn, &c->pctx, e, c->params, c->n_params, NULL, false, &v,
                                 err));
        if (v->type.id != TYPE_MAP && v->type.id != TYPE_UNKNOWN)
            return arg_error(c, e, SQE_ERR_TYPE_MISMATCH,
                             "Procedure argument '%s' must be a map(varchar, varchar)",
                             pp->name, err);
        if (v->type.id == TYPE_MAP) {
            sqe_type want = type_map(type_varchar(0), type_varchar(0));
            SQE_TRY(engine_ice_const(c->conn, &c->pctx, e, c->params, c->n_params, &want, true, &v,
                                     err));
        }
    } else {
        sqe_type want = kind_type(pp->kind);
        const vec *raw;
        SQE_TRY(engine_ice_const(c->conn, &c->pctx, e, c->params, c->n_params, NULL, false, &raw,
                                 err));
        /* strings cast explicitly to timestamps; anything else must cast implicitly */
        bool explicit_cast = pp->kind == ARG_TIMESTAMP &&
                             (raw->type.id == TYPE_VARCHAR || raw->type.id == TYPE_TIMESTAMP ||
                              raw->type.id == TYPE_DATE);
        int rc = engine_ice_const(c->conn, &c->pctx, e, c->params, c->n_params, &want,
                                  explicit_cast, &v, err);
        if (rc == SQE_ERR_TYPE_MISMATCH) {
            char t[64], g[64], msg[300];
            type_format(want, t, sizeof t);
            type_format(raw->type, g, sizeof g);
            snprintf(msg, sizeof msg, "Procedure argument '%%s' must be %s, not %s", t, g);
            return arg_error(c, e, SQE_ERR_TYPE_MISMATCH, msg, pp->name, err);
        }
        SQE_TRY(rc);
    }
    c->values[k] = v;
    c->exprs[k] = e;
    return SQE_OK;
}

/* Is argument expression e a string (Trino's positional schema, table)? */
static bool is_string_arg(proc_call *c, const sql_expr *e) {
    const vec *v;
    sqe_error scratch = {0};
    return !engine_ice_const(c->conn, &c->pctx, e, c->params, c->n_params, NULL, false, &v,
                             &scratch) &&
           v->type.id == TYPE_VARCHAR;
}

/* Fills c->values from the call's arguments; table holds the table string (Trino's schema and
 * table joined). */
static int bind_args(proc_call *c, const char **schema, const char **table,
                     const sql_expr **table_expr, sqe_error *err) {
    const sql_named_arg *args = c->st->u.call.args;
    int n = c->st->u.call.n_args;
    const sql_expr *schema_expr = NULL;
    bool trino = false;
    *schema = *table = NULL;
    *table_expr = NULL;
    /* Trino: rollback_to_snapshot('schema', 'table', id) */
    if (n >= 2 && !args[0].name && !args[1].name && !strcmp(c->proc->name, "rollback_to_snapshot") &&
        is_string_arg(c, args[1].value))
        trino = true;
    int next_pos = 0;
    bool seen_named = false;
    for (int i = 0; i < n; i++) {
        const sql_expr *e = args[i].value;
        if (args[i].name) {
            seen_named = true;
            const char *nm = args[i].name->name;
            if (!strcasecmp(nm, "schema_name") || !strcasecmp(nm, "table_name")) {
                const vec *v;
                sqe_type vt = type_varchar(0);
                SQE_TRY(engine_ice_const(c->conn, &c->pctx, e, c->params, c->n_params, &vt, false,
                                         &v, err));
                if (vec_is_null(v, 0))
                    return arg_error(c, e, SQE_ERR_INVALID_ARGUMENTS,
                                     "Procedure argument '%s' must not be NULL", nm, err);
                if (!strcasecmp(nm, "schema_name")) {
                    *schema = vec_text(&c->a, v, 0);
                    schema_expr = e;
                } else {
                    *table = vec_text(&c->a, v, 0);
                    *table_expr = e;
                }
                continue;
            }
            int k = param_index(c->proc, nm);
            if (k < 0) {
                char msg[300];
                snprintf(msg, sizeof msg, "Unknown argument name '%s' for procedure system.%s",
                         args[i].name->text, c->proc->name);
                return err_set_at(err, SQE_ERR_INVALID_ARGUMENTS, args[i].name->line,
                                  args[i].name->col, "%s", msg);
            }
            SQE_TRY(bind_arg(c, k, e, err));
            continue;
        }
        if (seen_named)
            return arg_error(c, e, SQE_ERR_INVALID_ARGUMENTS,
                             "Positional argument %s follows named arguments", "", err);
        if (trino && i < 2) {
            const vec *v;
            sqe_type vt = type_varchar(0);
            SQE_TRY(engine_ice_const(c->conn, &c->pctx, e, c->params, c->n_params, &vt, false, &v,
                                     err));
            if (vec_is_null(v, 0))
                return arg_error(c, e, SQE_ERR_INVALID_ARGUMENTS, "%s must not be NULL",
                                 i ? "Table name" : "Schema name", err);
            if (i == 0) {
                *schema = vec_text(&c->a, v, 0);
                schema_expr = e;
            } else {
                *table = vec_text(&c->a, v, 0);
                *table_expr = e;
                next_pos = 1; /* snapshot_id comes next */
            }
            continue;
        }
        if (next_pos >= (int)c->proc->n_params) {
            char msg[300];
            snprintf(msg, sizeof msg, "Too many arguments for procedure system.%s (at most %u)%%s",
                     c->proc->name, c->proc->n_params);
            return arg_error(c, e, SQE_ERR_INVALID_ARGUMENTS, msg, "", err);
        }
        SQE_TRY(bind_arg(c, next_pos++, e, err));
    }
    if (*schema || *table) {
        if (!*schema || !*table)
            return arg_error(c, schema_expr ? schema_expr : *table_expr,
                             SQE_ERR_INVALID_ARGUMENTS,
                             "Both schema_name and table_name are required%s", "", err);
        if (c->values[0])
            return arg_error(c, c->exprs[0], SQE_ERR_INVALID_ARGUMENTS,
                             "Give either table or schema_name and table_name%s", "", err);
    } else if (c->values[0] && !vec_is_null(c->values[0], 0)) {
        /* 'ns.t' or 't' */
        char *text = vec_text(&c->a, c->values[0], 0);
        if (!text) return err_nomem(err, "call");
        *table_expr = c->exprs[0];
        char *dot = strrchr(text, '.');
        if (dot) {
            *dot = 0;
            *schema = text;
            *table = dot + 1;
        } else {
            *schema = c->conn->schema;
            *table = text;
        }
    }
    for (uint32_t k = 0; k < c->proc->n_params; k++)
        if (c->proc->params[k].required && k > 0 &&
            (!c->values[k] || vec_is_null(c->values[k], 0)))
            return arg_error(c, NULL, SQE_ERR_INVALID_ARGUMENTS,
                             "Required procedure argument '%s' is missing",
                             c->proc->params[k].name, err);
    if (!*table)
        return arg_error(c, NULL, SQE_ERR_INVALID_ARGUMENTS,
                         "Required procedure argument '%s' is missing", "table", err);
    if (!*schema || !**schema || !**table)
        return arg_error(c, *table_expr, SQE_ERR_INVALID_ARGUMENTS,
                         "Invalid table name '%s'", *table ? *table : "", err);
    return SQE_OK;
}

static char *lower(arena *a, const char *s) {
    char *r = arena_strdup(a, s);
    for (char *p = r; p && *p; p++)
        if (*p >= 'A' && *p <= 'Z') *p = (char)(*p - 'A' + 'a');
    return r;
}

/* ---- results ------------------------------------------------------------------------------- */

static int bigint_result(const char *const *names, const int64_t *values, uint32_t n,
                         sqe_result **out, sqe_error *err) {
    sqe_type types[8];
    char cells[8][24];
    const char *ptr[8];
    for (uint32_t i = 0; i < n; i++) {
        types[i] = type_make(TYPE_BIGINT);
        snprintf(cells[i], sizeof cells[i], "%lld", (long long)values[i]);
        ptr[i] = cells[i];
    }
    SQE_TRY(engine_result_create(n, names, types, out, err));
    int rc = engine_result_add_text_row(*out, ptr, err);
    if (rc) {
        sqe_result_destroy(*out);
        *out = NULL;
    }
    return rc;
}

/* ---- rollback_to_snapshot, set_current_snapshot -------------------------------------------- */

typedef struct set_current {
    int64_t target;
    bool ancestor_only;
    const char *ref;          /* set_current_snapshot(ref => ...) */
    int64_t previous;
    const sql_expr *at;
} set_current;

static bool is_ancestor(const ice_metadata *m, int64_t id) {
    const ice_snapshot *s = ice_metadata_current_snapshot(m);
    for (uint32_t guard = 0; s && guard <= m->n_snapshots; guard++) {
        if (s->snapshot_id == id) return true;
        s = s->has_parent ? ice_metadata_snapshot(m, s->parent_snapshot_id) : NULL;
    }
    return false;
}

static int set_current_edit(void *ud, arena *a, const ice_metadata *base, ice_metadata *next,
                            sqe_error *err) {
    set_current *sc = ud;
    sc->previous = base->current_snapshot_id;
    int64_t id = sc->target;
    if (sc->ref) {
        const ice_ref *r = ice_metadata_ref(base, sc->ref);
        if (!r)
            return err_set_at(err, SQE_ERR_NOT_FOUND, sc->at->line, sc->at->col,
                              "Cannot find matching snapshot ID for ref %s", sc->ref);
        id = r->snapshot_id;
    }
    if (!ice_metadata_snapshot(base, id))
        return err_set_at(err, SQE_ERR_NOT_FOUND, sc->at->line, sc->at->col,
                          "Cannot roll back to unknown snapshot id: %lld", (long long)id);
    if (sc->ancestor_only && !is_ancestor(base, id))
        return err_set_at(err, SQE_ERR_INVALID_ARGUMENTS, sc->at->line, sc->at->col,
                          "Cannot roll back to snapshot, not an ancestor of the current state: %lld",
                          (long long)id);
    sc->target = id;
    next->current_snapshot_id = id;
    next->present |= ICE_MD_CURRENT_SNAPSHOT_ID;
    SQE_TRY(ice_metadata_set_ref(a, next, "main", ICE_REF_BRANCH, id, false, err));
    ice_snapshot_log_entry *log = ARENA_ARRAY(a, ice_snapshot_log_entry, base->n_snapshot_log + 1);
    if (!log) return err_nomem(err, "snapshot log");
    if (base->n_snapshot_log) memcpy(log, base->snapshot_log, base->n_snapshot_log * sizeof *log);
    log[base->n_snapshot_log].timestamp_ms = next->last_updated_ms;
    log[base->n_snapshot_log].snapshot_id = id;
    next->snapshot_log = log;
    next->n_snapshot_log = base->n_snapshot_log + 1;
    next->present |= ICE_MD_SNAPSHOT_LOG;
    return SQE_OK;
}

static int run_set_current(proc_call *c, bool rollback, sqe_result **out, sqe_error *err) {
    set_current sc = {0};
    sc.ancestor_only = rollback;
    sc.target = bigint_of(c, "snapshot_id", -1);
    sc.ref = rollback ? NULL : string_of(c, "ref");
    int k = param_index(c->proc, sc.ref ? "ref" : "snapshot_id");
    sc.at = c->exprs[k] ? c->exprs[k] : NULL;
    if (!rollback && has_value(c, "snapshot_id") == has_value(c, "ref"))
        return arg_error(c, NULL, SQE_ERR_INVALID_ARGUMENTS,
                         "Either snapshot_id or ref must be provided, not both%s", "", err);
    if (!sc.at) sc.at = c->st->u.call.args ? c->st->u.call.args[0].value : NULL;
    sql_expr fallback = {0};
    fallback.line = c->st->line;
    fallback.col = c->st->col;
    if (!sc.at) sc.at = &fallback;
    const ice_metadata *m = c->t->ice->meta;
    int64_t target = sc.target;
    if (sc.ref) {
        const ice_ref *r = ice_metadata_ref(m, sc.ref);
        target = r ? r->snapshot_id : -1;
    }
    if (target >= 0 && target == m->current_snapshot_id) {
        sc.previous = target;
    } else {
        SQE_TRY(engine_ice_commit_meta(c->cat, &c->t, set_current_edit, &sc, err));
        target = sc.target;
    }
    static const char *const names[] = {"previous_snapshot_id", "current_snapshot_id"};
    int64_t values[] = {sc.previous, target};
    return bigint_result(names, values, 2, out, err);
}

static int run_rollback(proc_call *c, sqe_result **out, sqe_error *err) {
    return run_set_current(c, true, out, err);
}

static int run_set_current_snapshot(proc_call *c, sqe_result **out, sqe_error *err) {
    return run_set_current(c, false, out, err);
}

/* ---- expire_snapshots ---------------------------------------------------------------------- */

typedef struct expire {
    int64_t older_than;
    int64_t retain_last;
    int64_t *removed;         /* snapshot ids expired by the last attempt (malloc) */
    uint32_t n_removed;
} expire;

static bool in_ids(const int64_t *ids, uint32_t n, int64_t id) {
    for (uint32_t i = 0; i < n; i++)
        if (ids[i] == id) return true;
    return false;
}

static int expire_edit(void *ud, arena *a, const ice_metadata *base, ice_metadata *next,
                       sqe_error *err) {
    expire *x = ud;
    int64_t now = now_ms();
    bool *keep = ARENA_ARRAY(a, bool, base->n_snapshots + 1);
    ice_ref *refs = ARENA_ARRAY(a, ice_ref, base->n_refs + 1);
    if (!keep || !refs) return err_nomem(err, "expire snapshots");
    uint32_t n_refs = 0;
    for (uint32_t r = 0; r < base->n_refs; r++) {
        const ice_ref *ref = &base->refs[r];
        const ice_snapshot *s = ice_metadata_snapshot(base, ref->snapshot_id);
        bool is_main = !strcmp(ref->name, "main");
        if (!is_main && ref->has_max_ref_age_ms && s && now - s->timestamp_ms > ref->max_ref_age_ms)
            continue; /* the ref itself expired */
        refs[n_refs++] = *ref;
        int64_t min_keep = ref->type == ICE_REF_TAG ? 1
                           : !is_main && ref->has_min_snapshots_to_keep
                               ? ref->min_snapshots_to_keep
                               : x->retain_last;
        if (min_keep < 1) min_keep = 1;
        int64_t older = x->older_than;
        if (ref->type == ICE_REF_BRANCH && !is_main && ref->has_max_snapshot_age_ms)
            older = now - ref->max_snapshot_age_ms;
        int64_t count = 0;
        for (uint32_t guard = 0; s && guard <= base->n_snapshots; guard++) {
            if (count >= min_keep && (ref->type == ICE_REF_TAG || s->timestamp_ms < older)) break;
            keep[s - base->snapshots] = true;
            count++;
            if (ref->type == ICE_REF_TAG) break;
            s = s->has_parent ? ice_metadata_snapshot(base, s->parent_snapshot_id) : NULL;
        }
    }
    const ice_snapshot *cur = ice_metadata_current_snapshot(base);
    if (cur) keep[cur - base->snapshots] = true;
    /* snapshots on no branch: by age alone */
    for (uint32_t i = 0; i < base->n_snapshots; i++) {
        bool on_ref = false;
        for (uint32_t r = 0; r < base->n_refs && !on_ref; r++) {
            const ice_snapshot *s = ice_metadata_snapshot(base, base->refs[r].snapshot_id);
            for (uint32_t guard = 0; s && guard <= base->n_snapshots && !on_ref; guard++) {
                on_ref = s == &base->snapshots[i];
                s = s->has_parent ? ice_metadata_snapshot(base, s->parent_snapshot_id) : NULL;
            }
        }
        if (!on_ref && base->snapshots[i].timestamp_ms >= x->older_than) keep[i] = true;
    }
    free(x->removed);
    x->removed = malloc((base->n_snapshots + 1) * sizeof *x->removed);
    x->n_removed = 0;
    ice_snapshot *snaps = ARENA_ARRAY(a, ice_snapshot, base->n_snapshots + 1);
    if (!x->removed || !snaps) return err_nomem(err, "expire snapshots");
    uint32_t n = 0;
    for (uint32_t i = 0; i < base->n_snapshots; i++) {
        if (keep[i]) snaps[n++] = base->snapshots[i];
        else x->removed[x->n_removed++] = base->snapshots[i].snapshot_id;
    }
    next->snapshots = snaps;
    next->n_snapshots = n;
    next->refs = refs;
    next->n_refs = n_refs;
    ice_snapshot_log_entry *log = ARENA_ARRAY(a, ice_snapshot_log_entry, base->n_snapshot_log + 1);
    ice_statistics_file *st = ARENA_ARRAY(a, ice_statistics_file, base->n_statistics + 1);
    ice_statistics_file *pst =
        ARENA_ARRAY(a, ice_statistics_file, base->n_partition_statistics + 1);
    if (!log || !st || !pst) return err_nomem(err, "expire snapshots");
    next->n_snapshot_log = 0;
    for (uint32_t i = 0; i < base->n_snapshot_log; i++)
        if (!in_ids(x->removed, x->n_removed, base->snapshot_log[i].snapshot_id))
            log[next->n_snapshot_log++] = base->snapshot_log[i];
    next->snapshot_log = log;
    next->n_statistics = 0;
    for (uint32_t i = 0; i < base->n_statistics; i++)
        if (!in_ids(x->removed, x->n_removed, base->statistics[i].snapshot_id))
            st[next->n_statistics++] = base->statistics[i];
    next->statistics = st;
    next->n_partition_statistics = 0;
    for (uint32_t i = 0; i < base->n_partition_statistics; i++)
        if (!in_ids(x->removed, x->n_removed, base->partition_statistics[i].snapshot_id))
            pst[next->n_partition_statistics++] = base->partition_statistics[i];
    next->partition_statistics = pst;
    return SQE_OK;
}

/* Deletes the files only the expired snapshots of m referenced; counts by kind. */
static int expire_files(const ice_metadata *m, const expire *x, int64_t counts[6],
                        sqe_error *err) {
    arena a;
    arena_init(&a, NULL);
    ice_path_set kept, gone;
    ice_path_set_init(&kept, &a);
    ice_path_set_init(&gone, &a);
    int rc = SQE_OK;
    for (uint32_t i = 0; !rc && i < m->n_snapshots; i++)
        if (!in_ids(x->removed, x->n_removed, m->snapshots[i].snapshot_id))
            rc = ice_reachable_add_snapshot(&kept, m, &m->snapshots[i], NULL, false, err);
    for (uint32_t i = 0; !rc && i < m->n_statistics; i++)
        if (!in_ids(x->removed, x->n_removed, m->statistics[i].snapshot_id))
            rc = ice_path_set_add(&kept, m->statistics[i].path, ICE_FILE_STATISTICS, NULL, err);
    for (uint32_t i = 0; !rc && i < m->n_partition_statistics; i++)
        if (!in_ids(x->removed, x->n_removed, m->partition_statistics[i].snapshot_id))
            rc = ice_path_set_add(&kept, m->partition_statistics[i].path, ICE_FILE_STATISTICS,
                                  NULL, err);
    for (uint32_t i = 0; !rc && i < m->n_snapshots; i++)
        if (in_ids(x->removed, x->n_removed, m->snapshots[i].snapshot_id))
            rc = ice_reachable_add_snapshot(&gone, m, &m->snapshots[i], &kept, true, err);
    for (uint32_t i = 0; !rc && i < m->n_statistics; i++)
        if (in_ids(x->removed, x->n_removed, m->statistics[i].snapshot_id) &&
            !ice_path_set_has(&kept, m->statistics[i].path))
            rc = ice_path_set_add(&gone, m->statistics[i].path, ICE_FILE_STATISTICS, NULL, err);
    for (uint32_t i = 0; !rc && i < m->n_partition_statistics; i++)
        if (in_ids(x->removed, x->n_removed, m->partition_statistics[i].snapshot_id) &&
            !ice_path_set_has(&kept, m->partition_statistics[i].path))
            rc = ice_path_set_add(&gone, m->partition_statistics[i].path, ICE_FILE_STATISTICS,
                                  NULL, err);
    for (uint32_t i = 0; !rc && i < gone.cap; i++) {
        if (!gone.slots[i]) continue;
        int r = io_remove_as(gone.slots[i], m->io, NULL);
        if (r && r != SQE_ERR_NOT_FOUND) continue; /* left behind: remove_orphan_files gets it */
        switch ((ice_file_kind)gone.kinds[i]) {
        case ICE_FILE_DATA: counts[0]++; break;
        case ICE_FILE_POSITION_DELETES: counts[1]++; break;
        case ICE_FILE_EQUALITY_DELETES: counts[2]++; break;
        case ICE_FILE_MANIFEST: counts[3]++; break;
        case ICE_FILE_MANIFEST_LIST: counts[4]++; break;
        case ICE_FILE_STATISTICS: counts[5]++; break;
        case ICE_FILE_METADATA: break;
        }
    }
    arena_destroy(&a);
    return rc;
}

static int run_expire(proc_call *c, sqe_result **out, sqe_error *err) {
    const ice_metadata *m = c->t->ice->meta;
    const char *age = ice_kv_get(&m->properties, "history.expire.max-snapshot-age-ms");
    const char *min = ice_kv_get(&m->properties, "history.expire.min-snapshots-to-keep");
    expire x = {0};
    x.older_than = time_of(c, "older_than", now_ms() - (age ? strtoll(age, NULL, 10) : 5 * DAY_MS));
    x.retain_last = bigint_of(c, "retain_last", min ? strtoll(min, NULL, 10) : 1);
    if (x.retain_last < 1) {
        int k = param_index(c->proc, "retain_last");
        return arg_error(c, c->exprs[k], SQE_ERR_INVALID_ARGUMENTS,
                         "retain_last must be at least 1%s", "", err);
    }
    int64_t counts[6] = {0};
    int rc = engine_ice_commit_meta(c->cat, &c->t, expire_edit, &x, err);
    if (!rc && x.n_removed) rc = expire_files(c->t->ice->meta, &x, counts, err);
    free(x.removed);
    SQE_TRY(rc);
    static const char *const names[] = {
        "deleted_data_files_count",     "deleted_position_delete_files_count",
        "deleted_equality_delete_files_count", "deleted_manifest_files_count",
        "deleted_manifest_lists_count", "deleted_statistics_files_count"};
    return bigint_result(names, counts, 6, out, err);
}

/* ---- remove_orphan_files ------------------------------------------------------------------- */

typedef struct orphan_walk {
    const ice_path_set *reachable;
    int64_t older_than_ms;
    bool dry_run;
    sqe_result *r;
    int64_t n;
} orphan_walk;

static int walk_dir(orphan_walk *w, strbuf *path, int depth, sqe_error *err) {
    if (depth > 64) return SQE_OK;
    DIR *d = opendir(strbuf_cstr(path));
    if (!d) {
        if (errno == ENOENT || errno == ENOTDIR) return SQE_OK;
        return err_set(err, SQE_ERR_IO_ERROR, "Cannot list %s: %s", strbuf_cstr(path),
                       strerror(errno));
    }
    size_t base_len = path->len;
    int rc = SQE_OK;
    struct dirent *de;
    while (!rc && (de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.' || de->d_name[0] == '_') continue;
        path->len = base_len;
        path->data[base_len] = 0;
        strbuf_putc(path, '/');
        strbuf_puts(path, de->d_name);
        if (path->failed) {
            rc = err_nomem(err, "remove orphan files");
            break;
        }
        struct stat sb;
        if (lstat(path->data, &sb) != 0) continue;
        if (S_ISDIR(sb.st_mode)) {
            rc = walk_dir(w, path, depth + 1, err);
            continue;
        }
        if (!S_ISREG(sb.st_mode) || ice_path_set_has(w->reachable, path->data)) continue;
        int64_t mtime = (int64_t)sb.st_mtim.tv_sec * 1000 + sb.st_mtim.tv_nsec / 1000000;
        if (mtime >= w->older_than_ms) continue;
        if (!w->dry_run) {
            rc = io_remove(path->data, err);
            if (rc == SQE_ERR_NOT_FOUND) {
                rc = SQE_OK;
                continue;
            }
            if (rc) break;
        }
        const char *cell = path->data;
        rc = engine_result_add_text_row(w->r, &cell, err);
        w->n++;
    }
    path->len = base_len;
    if (path->data) path->data[base_len] = 0;
    closedir(d);
    return rc;
}

/* Is every '/'-separated part of rel visible (none starts with '.' or '_')? */
static bool visible_path(const char *rel) {
    for (const char *p = rel; p && *p; p = strchr(p, '/') ? strchr(p, '/') + 1 : NULL)
        if (*p == '.' || *p == '_') return false;
    return true;
}

/* remove_orphan_files on an object store: lists root as the table's user and deletes as it.
 * An object whose age the listing does not give counts as older than older_than only when
 * older_than is after the moment of the listing (then it certainly is). */
static int walk_remote(orphan_walk *w, const char *root, const io_identity *io, sqe_error *err) {
    int64_t listed_at = now_ms();
    io_entry *e = NULL;
    uint32_t n = 0;
    SQE_TRY(io_list_as(root, io, &e, &n, err));
    size_t rl = strlen(root);
    while (rl && root[rl - 1] == '/') rl--;
    int rc = SQE_OK;
    for (uint32_t i = 0; i < n && !rc; i++) {
        const char *loc = e[i].location;
        if (strlen(loc) <= rl + 1 || !visible_path(loc + rl + 1) ||
            ice_path_set_has(w->reachable, loc))
            continue;
        int64_t mtime = e[i].mtime_ms;
        if (mtime < 0 ? w->older_than_ms <= listed_at : mtime >= w->older_than_ms) continue;
        if (!w->dry_run) {
            rc = io_remove_as(loc, io, err);
            if (rc == SQE_ERR_NOT_FOUND) {
                rc = SQE_OK;
                continue;
            }
            if (rc) break;
        }
        rc = engine_result_add_text_row(w->r, &loc, err);
        w->n++;
    }
    io_entries_free(e, n);
    return rc;
}

static int run_remove_orphans(proc_call *c, sqe_result **out, sqe_error *err) {
    const ice_table_ref *ref = c->t->ice;
    const char *root = string_of(c, "location");
    if (!root) root = ref->meta->location;
    bool remote = io_location_is_remote(root);
    const char *local = io_local_path(root);
    if (!remote && strstr(local, "://"))
        return err_set_at(err, SQE_ERR_NOT_SUPPORTED, c->st->line, c->st->col,
                          "unsupported: remove_orphan_files on %s (local file systems and S3 only)",
                          root);
    const char *table_root = io_local_path(ref->meta->location);
    size_t tl = strlen(table_root);
    if (strncmp(local, table_root, tl) != 0 || (local[tl] && local[tl] != '/')) {
        int k = param_index(c->proc, "location");
        return arg_error(c, c->exprs[k], SQE_ERR_INVALID_ARGUMENTS,
                         "location %s is not under the table location", root, err);
    }
    orphan_walk w = {0};
    w.older_than_ms = time_of(c, "older_than", now_ms() - 3 * DAY_MS);
    w.dry_run = bool_of(c, "dry_run", false);
    arena a;
    arena_init(&a, NULL);
    ice_path_set reach;
    ice_path_set_init(&reach, &a);
    w.reachable = &reach;
    static const char *const names[] = {"orphan_file_location"};
    int rc = ice_reachable_add_table(&reach, ref->meta, ref->metadata_location, err);
    if (!rc) rc = engine_result_create(1, names, NULL, &w.r, err);
    if (!rc && remote) {
        rc = walk_remote(&w, root, ref->meta->io, err);
    } else if (!rc) {
        strbuf path;
        strbuf_init(&path);
        strbuf_puts(&path, local);
        while (path.len > 1 && path.data[path.len - 1] == '/') path.data[--path.len] = 0;
        rc = path.failed ? err_nomem(err, "remove orphan files") : walk_dir(&w, &path, 0, err);
        strbuf_reset(&path);
    }
    arena_destroy(&a);
    if (rc) {
        if (w.r) sqe_result_destroy(w.r);
        return rc;
    }
    *out = w.r;
    return SQE_OK;
}

/* ---- rewrite_data_files -------------------------------------------------------------------- */

typedef struct rewrite_opts {
    int64_t target, min_size, max_size, min_input;
    bool rewrite_all;
} rewrite_opts;

static int parse_options(proc_call *c, const ice_metadata *m, rewrite_opts *o, sqe_error *err) {
    memset(o, 0, sizeof *o);
    const char *t = ice_kv_get(&m->properties, "write.target-file-size-bytes");
    o->target = t ? strtoll(t, NULL, 10) : 512LL * 1024 * 1024;
    o->min_size = o->max_size = -1;
    o->min_input = 5;
    const vec *v = value_of(c, "options");
    int k = param_index(c->proc, "options");
    if (v && v->type.id == TYPE_MAP) {
        uint32_t p;
        const vec *f = vec_resolve(v, 0, &p);
        sqe_list_entry le = VEC_DATA(f, sqe_list_entry)[p];
        for (uint32_t i = 0; i < le.length; i++) {
            const char *key = vec_text(&c->a, &f->children[0], le.offset + i);
            const char *val = vec_is_null(&f->children[1], le.offset + i)
                                  ? NULL
                                  : vec_text(&c->a, &f->children[1], le.offset + i);
            if (!key) return err_nomem(err, "rewrite_data_files");
            if (!val)
                return arg_error(c, c->exprs[k], SQE_ERR_INVALID_ARGUMENTS,
                                 "Option %s must not be NULL", key, err);
            if (!strcmp(key, "rewrite-all")) {
                if (strcasecmp(val, "true") && strcasecmp(val, "false"))
                    return arg_error(c, c->exprs[k], SQE_ERR_INVALID_ARGUMENTS,
                                     "Option rewrite-all must be true or false, not '%s'", val,
                                     err);
                o->rewrite_all = !strcasecmp(val, "true");
                continue;
            }
            int64_t *dst = !strcmp(key, "target-file-size-bytes") ? &o->target
                           : !strcmp(key, "min-file-size-bytes")  ? &o->min_size
                           : !strcmp(key, "max-file-size-bytes")  ? &o->max_size
                           : !strcmp(key, "min-input-files")      ? &o->min_input
                                                                  : NULL;
            if (!dst)
                return arg_error(c, c->exprs[k], SQE_ERR_INVALID_ARGUMENTS,
                                 "Cannot use option %s: not supported by rewrite_data_files "
                                 "(target-file-size-bytes, min-file-size-bytes, "
                                 "max-file-size-bytes, min-input-files, rewrite-all)",
                                 key, err);
            char *end;
            errno = 0;
            long long x = strtoll(val, &end, 10);
            if (!*val || *end || errno || x < (dst == &o->min_size ? 0 : 1))
                return arg_error(c, c->exprs[k], SQE_ERR_INVALID_ARGUMENTS,
                                 "Option %s must be a positive integer", key, err);
            *dst = x;
        }
    }
    if (o->min_size < 0) o->min_size = (int64_t)((double)o->target * 0.75);
    if (o->max_size < 0) o->max_size = (int64_t)((double)o->target * 1.8);
    return SQE_OK;
}

typedef struct file_group {
    const char *key;
    const char **paths;
    uint32_t n, cap;
    int64_t bytes;
} file_group;

/* "spec/partition values" of a data file, in a. */
static const char *group_key(arena *a, const ice_data_file *f) {
    strbuf sb;
    strbuf_init(&sb);
    strbuf_printf(&sb, "%d", f->spec_id);
    for (uint32_t i = 0; i < f->n_partition; i++) {
        strbuf_putc(&sb, '\x1f');
        if (vec_is_null(&f->partition[i], f->partition_row)) strbuf_puts(&sb, "\x1eNULL");
        else vec_format_value(&f->partition[i], f->partition_row, &sb);
    }
    const char *r = sb.failed ? NULL : arena_strdup(a, strbuf_cstr(&sb));
    strbuf_reset(&sb);
    return r;
}

static int group_add(arena *a, file_group *g, const char *path, int64_t size, sqe_error *err) {
    if (g->n == g->cap) {
        uint32_t cap = g->cap ? g->cap * 2 : 8;
        const char **p = ARENA_ARRAY(a, const char *, cap);
        if (!p) return err_nomem(err, "rewrite_data_files");
        if (g->n) memcpy(p, g->paths, g->n * sizeof *p);
        g->paths = p;
        g->cap = cap;
    }
    g->paths[g->n++] = path;
    g->bytes += size;
    return SQE_OK;
}

/* Picks the data files to rewrite into *paths. */
static int pick_files(arena *a, const ice_manifest_entry *const *e, uint32_t n,
                      const rewrite_opts *o, const char ***paths, uint32_t *n_paths,
                      sqe_error *err) {
    file_group *groups = ARENA_ARRAY(a, file_group, n + 1);
    const char **out = ARENA_ARRAY(a, const char *, n + 1);
    if (!groups || !out) return err_nomem(err, "rewrite_data_files");
    uint32_t n_groups = 0;
    for (uint32_t i = 0; i < n; i++) {
        const ice_data_file *f = &e[i]->file;
        if (f->content != ICE_CONTENT_DATA) continue;
        bool wrong_size = f->file_size_in_bytes < o->min_size || f->file_size_in_bytes > o->max_size;
        if (!o->rewrite_all && !wrong_size) continue;
        const char *key = group_key(a, f);
        if (!key) return err_nomem(err, "rewrite_data_files");
        uint32_t g = 0;
        while (g < n_groups && strcmp(groups[g].key, key) != 0) g++;
        if (g == n_groups) groups[n_groups++].key = key;
        SQE_TRY(group_add(a, &groups[g], f->file_path, f->file_size_in_bytes, err));
    }
    uint32_t k = 0;
    for (uint32_t g = 0; g < n_groups; g++) {
        const file_group *fg = &groups[g];
        bool take = o->rewrite_all || (fg->n > 1 && fg->n >= o->min_input) ||
                    (fg->n > 1 && fg->bytes > o->target);
        for (uint32_t i = 0; take && i < fg->n; i++) out[k++] = fg->paths[i];
    }
    *paths = out;
    *n_paths = k;
    return SQE_OK;
}

static int rewrite_sink(void *ud, const vec_chunk *c, sqe_error *err) {
    return ice_insert_sink(ud, c, err);
}

static int run_rewrite(proc_call *c, sqe_result **out, sqe_error *err) {
    const char *strategy = string_of(c, "strategy");
    if (strategy && strcasecmp(strategy, "binpack") != 0) {
        int k = param_index(c->proc, "strategy");
        return arg_error(c, c->exprs[k], SQE_ERR_NOT_SUPPORTED,
                         "unsupported: rewrite strategy '%s' (only binpack)", strategy, err);
    }
    const ice_metadata *m = c->t->ice->meta;
    rewrite_opts o;
    SQE_TRY(parse_options(c, m, &o, err));
    const ice_snapshot *snap = ice_metadata_current_snapshot(m);
    const ice_manifest_entry **entries = NULL;
    uint32_t n = 0;
    const char **paths = NULL;
    uint32_t n_paths = 0;
    int64_t bytes = 0;
    if (snap) {
        SQE_TRY(ice_snapshot_live_files(&c->a, m, snap, &entries, &n, err));
        SQE_TRY(pick_files(&c->a, entries, n, &o, &paths, &n_paths, err));
    }
    int64_t added = 0;
    if (n_paths) {
        ice_insert *w;
        SQE_TRY(engine_ice_insert_begin(c->conn, c->t, &w, err));
        /* reopen the writer with the requested target size */
        ice_data_writer_abort(w->w);
        w->w = NULL;
        w->o.target_file_size = (uint64_t)o.target;
        int rc = ice_data_writer_open(ice_metadata_current_schema(m), ice_metadata_default_spec(m),
                                      &w->o, &w->a, NULL, &w->w, err);
        /* SELECT * FROM catalog.schema.table WHERE "$path" IN (...) */
        sql_qname qn;
        sql_ident parts[3];
        memset(parts, 0, sizeof parts);
        const char *names[3] = {c->t->catalog, c->t->schema, c->t->name};
        for (int i = 0; i < 3; i++) {
            parts[i].name = parts[i].text = names[i];
            parts[i].quoted = true;
            parts[i].line = c->st->line;
            parts[i].col = c->st->col;
        }
        qn.parts = parts;
        qn.n_parts = 3;
        sql_expr *where = rc ? NULL : dml_ast_in_strings(&c->a, dml_ast_name(&c->a, "$path"), paths,
                                                         n_paths);
        sql_select_item star = {0};
        star.kind = SQL_SELECT_STAR;
        sql_query *q = where ? dml_ast_select(&c->a, &qn, &star, 1, where) : NULL;
        if (!rc && !q) rc = err_nomem(err, "rewrite_data_files");
        if (!rc) {
            sqe_result *r;
            rc = engine_result_create(0, NULL, NULL, &r, err);
            if (!rc) {
                bound_query bq;
                rc = engine_plan_query_hook_sink(c->conn, q, NULL, 0, NULL, NULL, rewrite_sink, w,
                                                 r, &bq, err);
                while (!rc) {
                    const vec_chunk *ch;
                    rc = exec_query_next(r->query, &ch, err);
                    if (rc || !ch) break;
                    if (ch->count) rc = ice_insert_sink(w, ch, err);
                }
                sqe_result_destroy(r);
            }
        }
        ice_data_file *files = NULL;
        uint32_t n_files = 0;
        if (!rc) rc = engine_ice_writer_files(w, &files, &n_files, err);
        /* removals: the rewritten files and the delete files that reference only them */
        const char **removed = NULL, **refs = NULL;
        uint32_t n_removed = 0;
        if (!rc) {
            removed = ARENA_ARRAY(&w->a, const char *, n_paths + n + 1);
            refs = ARENA_ARRAY(&w->a, const char *, n_paths + n + 1);
            if (!removed || !refs) rc = err_nomem(err, "rewrite_data_files");
        }
        for (uint32_t i = 0; !rc && i < n_paths; i++) {
            removed[n_removed] = paths[i];
            refs[n_removed++] = NULL;
            for (uint32_t k = 0; k < n; k++) {
                const ice_data_file *f = &entries[k]->file;
                if (f->content != ICE_CONTENT_DATA && f->referenced_data_file &&
                    !strcmp(f->referenced_data_file, paths[i])) {
                    removed[n_removed] = f->file_path;
                    refs[n_removed++] = f->referenced_data_file;
                }
            }
            int64_t size = 0;
            for (uint32_t k = 0; k < n; k++)
                if (entries[k]->file.content == ICE_CONTENT_DATA &&
                    !strcmp(entries[k]->file.file_path, paths[i]))
                    size = entries[k]->file.file_size_in_bytes;
            bytes += size;
        }
        if (!rc) {
            ice_snapshot_change ch;
            memset(&ch, 0, sizeof ch);
            ch.operation = "replace";
            ch.added = files;
            ch.n_added = n_files;
            ch.removed = removed;
            ch.removed_refs = refs;
            ch.n_removed = n_removed;
            rc = engine_ice_commit(w->cat, &w->table, &ch, &w->a, NULL, err);
            if (rc && rc != SQE_ERR_COMMIT_STATE_UNKNOWN)
                for (uint32_t i = 0; i < n_files; i++)
                    io_remove_as(files[i].file_path, w->table->ice->meta->io, NULL);
        }
        added = n_files;
        engine_ice_writer_end(w);
        SQE_TRY(rc);
    }
    static const char *const names[] = {"rewritten_data_files_count", "added_data_files_count",
                                        "rewritten_bytes_count", "failed_data_files_count"};
    int64_t values[] = {(int64_t)n_paths, added, bytes, 0};
    return bigint_result(names, values, 4, out, err);
}

/* ---- dispatch ------------------------------------------------------------------------------ */

static const procedure procedures[] = {
    {"rollback_to_snapshot", {{"table", ARG_STRING, true}, {"snapshot_id", ARG_BIGINT, true}}, 2,
     run_rollback},
    {"set_current_snapshot",
     {{"table", ARG_STRING, true}, {"snapshot_id", ARG_BIGINT, false}, {"ref", ARG_STRING, false}},
     3,
     run_set_current_snapshot},
    {"expire_snapshots",
     {{"table", ARG_STRING, true},
      {"older_than", ARG_TIMESTAMP, false},
      {"retain_last", ARG_BIGINT, false},
      {"max_concurrent_deletes", ARG_BIGINT, false},
      {"stream_results", ARG_BOOLEAN, false}},
     5,
     run_expire},
    {"remove_orphan_files",
     {{"table", ARG_STRING, true},
      {"older_than", ARG_TIMESTAMP, false},
      {"location", ARG_STRING, false},
      {"dry_run", ARG_BOOLEAN, false},
      {"max_concurrent_deletes", ARG_BIGINT, false}},
     5,
     run_remove_orphans},
    {"rewrite_data_files",
     {{"table", ARG_STRING, true}, {"strategy", ARG_STRING, false}, {"options", ARG_MAP, false}},
     3,
     run_rewrite},
};

int engine_ice_call(sqe_conn *conn, const sql_stmt *st, const vec *const *params,
                    uint32_t n_params, sqe_result **out, sqe_error *err) {
    *out = NULL;
    const sql_qname *qn = &st->u.call.name;
    const sql_ident *pn = &qn->parts[qn->n_parts - 1];
    const char *cat_name = qn->n_parts >= 3 ? qn->parts[qn->n_parts - 3].name : conn->catalog;
    bool system = qn->n_parts == 1 || !strcmp(qn->parts[qn->n_parts - 2].name, "system");
    const procedure *proc = NULL;
    for (size_t i = 0; system && qn->n_parts <= 3 && i < sizeof procedures / sizeof *procedures;
         i++)
        if (!strcmp(procedures[i].name, pn->name)) proc = &procedures[i];
    if (!proc) {
        strbuf sb;
        strbuf_init(&sb);
        for (int i = 0; i < qn->n_parts; i++) {
            if (i) strbuf_putc(&sb, '.');
            strbuf_puts(&sb, qn->parts[i].text);
        }
        int rc = err_set_at(err, SQE_ERR_FUNCTION_NOT_FOUND, pn->line, pn->col,
                            "Procedure not registered: %s (Iceberg procedures: "
                            "system.rollback_to_snapshot, set_current_snapshot, expire_snapshots, "
                            "remove_orphan_files, rewrite_data_files)",
                            strbuf_cstr(&sb));
        strbuf_reset(&sb);
        return rc;
    }
    bind_env env;
    engine_bind_env(conn, &env);
    catalog *cat = cat_name ? bind_find_catalog(&env, cat_name) : NULL;
    if (!cat)
        return err_set_at(err, SQE_ERR_CATALOG_NOT_FOUND, qn->parts[0].line, qn->parts[0].col,
                          "Catalog '%s' does not exist", cat_name ? cat_name : "");
    if (cat->ops->kind != CAT_KIND_ICEBERG)
        return err_set_at(err, SQE_ERR_NOT_SUPPORTED, st->line, st->col,
                          "Procedures are not supported by the memory catalog");
    proc_call c;
    memset(&c, 0, sizeof c);
    c.conn = conn;
    c.st = st;
    c.proc = proc;
    c.cat = cat;
    c.params = params;
    c.n_params = n_params;
    arena_init(&c.a, NULL);
    plan_ctx_init(&c.pctx, &c.a, NULL, exec_fold_const);
    const char *schema, *table;
    const sql_expr *table_expr;
    int rc = bind_args(&c, &schema, &table, &table_expr, err);
    if (!rc) {
        rc = catalog_get_table(cat, conn->principal, schema, table, &c.t, err);
        if (rc == SQE_ERR_TABLE_NOT_FOUND || rc == SQE_ERR_SCHEMA_NOT_FOUND) {
            char *ls = lower(&c.a, schema), *lt = lower(&c.a, table);
            if (ls && lt && (strcmp(ls, schema) || strcmp(lt, table))) {
                sqe_error e2 = {0};
                if (!catalog_get_table(cat, conn->principal, ls, lt, &c.t, &e2)) rc = SQE_OK;
            }
        }
        if (rc && err && !err->line && table_expr) {
            err->line = table_expr->line;
            err->column = table_expr->col;
        }
    }
    if (!rc && c.t->ops->kind != CAT_KIND_ICEBERG)
        rc = err_set_at(err, SQE_ERR_NOT_SUPPORTED, st->line, st->col,
                        "Table %s.%s is not an Iceberg table", schema, table);
    if (!rc) rc = proc->run(&c, out, err);
    if (c.t) cat_table_unref(c.t);
    plan_ctx_destroy(&c.pctx);
    arena_destroy(&c.a);
    return rc;
}
