/*
 * ice_alter.c: ALTER TABLE on Iceberg tables: ADD / DROP / RENAME COLUMN, SET DATA TYPE (the
 * promotions Iceberg allows), DROP NOT NULL, SET PROPERTIES (partitioning evolution,
 * format_version upgrades, Iceberg table properties) and RENAME TO.
 *
 * INTERFACE: engine_ice_alter (engine.h).
 * NOTES
 *   Schema changes add a new schema with the next schema id (field ids never reused: a new
 *   column gets last-column-id + 1, so data written before the change reads as NULL for it, and
 *   a dropped-then-re-added name is a new column); readers match columns by id, so nothing is
 *   rewritten. Every change is a metadata-only commit, retried on the reloaded table when a
 *   concurrent commit wins.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "catalog/catalog_iceberg.h"
#include "engine/engine.h"
#include "engine/ice_procedures.h"
#include "engine/iceberg/ice_write_int.h"
#include "iceberg/metadata_update.h"

typedef struct alter_ctx {
    sqe_conn *conn;
    const sql_stmt *st;
    const vec *const *params;
    uint32_t n_params;
    const char *table_name;
} alter_ctx;

static int at(const sql_stmt *st, const sql_ident *id, sqe_error *err, int rc) {
    if (err && !err->line) {
        err->line = id && id->line ? id->line : st->line;
        err->column = id && id->line ? id->col : st->col;
    }
    return rc;
}

/* A copy of the current schema's top-level fields with one more slot, in a. */
static ice_schema *copy_schema(arena *a, const ice_schema *cur, uint32_t extra) {
    ice_schema *s = ARENA_NEW(a, ice_schema);
    ice_field *f = ARENA_ARRAY(a, ice_field, cur->type.n_fields + extra + 1);
    if (!s || !f) return NULL;
    *s = *cur;
    if (cur->type.n_fields) memcpy(f, cur->type.fields, cur->type.n_fields * sizeof *f);
    s->type.fields = f;
    return s;
}

static int find_column(const ice_schema *s, const char *name) {
    for (uint32_t i = 0; i < s->type.n_fields; i++)
        if (!strcmp(s->type.fields[i].name, name)) return (int)i;
    return -1;
}

/* Is field id the source of a field of the default partition spec? */
static bool partition_source(const ice_metadata *m, int32_t id) {
    const ice_partition_spec *spec = ice_metadata_default_spec(m);
    for (uint32_t i = 0; spec && i < spec->n_fields; i++)
        if (spec->fields[i].source_id == id && spec->fields[i].transform.kind != ICE_T_VOID)
            return true;
    return false;
}

static int edit(void *ud, arena *a, const ice_metadata *base, ice_metadata *next,
                sqe_error *err) {
    alter_ctx *c = ud;
    const sql_stmt *st = c->st;
    const ice_schema *cur = ice_metadata_current_schema(base);
    switch (st->u.alter.action) {
    case SQL_ALTER_ADD_COLUMN: {
        const sql_column_def *d = &st->u.alter.column;
        if (find_column(cur, d->name.name) >= 0) {
            if (st->u.alter.sub_if_not_exists) return SQE_OK;
            return at(st, &d->name, err,
                      err_set(err, SQE_ERR_DUPLICATE_COLUMN_NAME, "Column '%s' already exists",
                              d->name.text));
        }
        if (d->not_null)
            return at(st, &d->name, err,
                      err_set(err, SQE_ERR_NOT_SUPPORTED,
                              "unsupported: adding a NOT NULL column to a table with rows"));
        sqe_type t;
        if (type_parse(d->type.text, strlen(d->type.text), &t) != 0)
            return err_set_at(err, SQE_ERR_TYPE_NOT_FOUND, d->type.line, d->type.col,
                              "Unknown type '%s' for column '%s'", d->type.text, d->name.text);
        ice_schema *s = copy_schema(a, cur, 1);
        if (!s) return err_nomem(err, "alter table");
        ice_field *f = &s->type.fields[s->type.n_fields];
        memset(f, 0, sizeof *f);
        int32_t last = base->last_column_id;
        f->id = ++last;
        f->name = arena_strdup(a, d->name.name);
        f->doc = d->comment ? arena_strdup(a, d->comment) : NULL;
        if (!f->name) return err_nomem(err, "alter table");
        int rc = ice_type_from_sqe(a, t, &last, &f->type, err);
        if (rc) return at(st, &d->name, err, rc);
        s->type.n_fields++;
        return ice_metadata_set_current_schema(a, next, s, err);
    }
    case SQL_ALTER_DROP_COLUMN:
    case SQL_ALTER_RENAME_COLUMN:
    case SQL_ALTER_SET_COLUMN_TYPE:
    case SQL_ALTER_DROP_NOT_NULL: {
        const sql_ident *col = &st->u.alter.name;
        int k = find_column(cur, col->name);
        if (k < 0) {
            if (st->u.alter.sub_if_exists) return SQE_OK;
            return at(st, col, err,
                      err_set(err, SQE_ERR_COLUMN_NOT_FOUND, "Column '%s' does not exist",
                              col->text));
        }
        ice_schema *s = copy_schema(a, cur, 0);
        if (!s) return err_nomem(err, "alter table");
        ice_field *f = &s->type.fields[k];
        if (st->u.alter.action == SQL_ALTER_DROP_COLUMN) {
            if (cur->type.n_fields == 1)
                return at(st, col, err,
                          err_set(err, SQE_ERR_NOT_SUPPORTED, "Cannot drop the only column in a table"));
            if (partition_source(base, f->id))
                return at(st, col, err,
                          err_set(err, SQE_ERR_GENERIC_USER_ERROR,
                                  "Cannot drop partition field: %s", col->text));
            memmove(f, f + 1, (s->type.n_fields - (uint32_t)k - 1) * sizeof *f);
            s->type.n_fields--;
        } else if (st->u.alter.action == SQL_ALTER_RENAME_COLUMN) {
            if (find_column(cur, st->u.alter.new_name.name) >= 0)
                return at(st, &st->u.alter.new_name, err,
                          err_set(err, SQE_ERR_DUPLICATE_COLUMN_NAME, "Column '%s' already exists",
                                  st->u.alter.new_name.text));
            f->name = arena_strdup(a, st->u.alter.new_name.name);
            if (!f->name) return err_nomem(err, "alter table");
        } else if (st->u.alter.action == SQL_ALTER_DROP_NOT_NULL) {
            f->required = false;
        } else {
            sqe_type from, to;
            SQE_TRY(ice_schema_to_sqe_type(&f->type, &from, err));
            const sql_type_name *tn = &st->u.alter.type;
            if (type_parse(tn->text, strlen(tn->text), &to) != 0)
                return err_set_at(err, SQE_ERR_TYPE_NOT_FOUND, tn->line, tn->col,
                                  "Unknown type '%s'", tn->text);
            bool ok = type_equal(from, to) ||
                      (from.id == TYPE_INTEGER && to.id == TYPE_BIGINT) ||
                      (from.id == TYPE_REAL && to.id == TYPE_DOUBLE) ||
                      (from.id == TYPE_DECIMAL && to.id == TYPE_DECIMAL &&
                       from.scale == to.scale && to.precision >= from.precision);
            if (!ok) {
                char a1[64], a2[64];
                type_format(from, a1, sizeof a1);
                type_format(to, a2, sizeof a2);
                return at(st, col, err,
                          err_set(err, SQE_ERR_NOT_SUPPORTED,
                                  "Cannot change type from %s to %s (Iceberg allows int to bigint, "
                                  "real to double and wider decimals)",
                                  a1, a2));
            }
            int32_t unused = base->last_column_id;
            ice_type nt;
            SQE_TRY(ice_type_from_sqe(a, to, &unused, &nt, err));
            f->type = nt;
        }
        return ice_metadata_set_current_schema(a, next, s, err);
    }
    case SQL_ALTER_SET_PROPERTIES: {
        plan_ctx pctx;
        plan_ctx_init(&pctx, a, NULL, exec_fold_const);
        ice_table_def d;
        memset(&d, 0, sizeof d);
        d.a = a;
        int rc = engine_ice_read_properties(c->conn, &pctx, &st->u.alter.props, c->params,
                                            c->n_params, &d, err);
        plan_ctx_destroy(&pctx);
        SQE_TRY(rc);
        if (d.location)
            return err_set_at(err, SQE_ERR_NOT_SUPPORTED, st->line, st->col,
                              "unsupported: changing the location of a table");
        if (d.format_version) {
            if (d.format_version < base->format_version)
                return err_set_at(err, SQE_ERR_INVALID_TABLE_PROPERTY, st->line, st->col,
                                  "Cannot downgrade format_version from %d to %d",
                                  base->format_version, d.format_version);
            if (d.format_version > base->format_version) {
                next->format_version = d.format_version;
                next->present |= ice_metadata_default_present(d.format_version);
                if (d.format_version >= 3) next->present |= ICE_MD_NEXT_ROW_ID;
            }
        }
        if (d.has_partitioning) {
            ice_partition_spec *spec;
            SQE_TRY(engine_ice_partition_spec(a, cur, base, d.partitioning, d.n_partitioning,
                                              &spec, err));
            SQE_TRY(ice_metadata_set_default_spec(a, next, spec, err));
        }
        for (uint32_t i = 0; i < d.n_props; i++)
            SQE_TRY(ice_metadata_set_property(a, next, d.props[i].key, d.props[i].value, err));
        return SQE_OK;
    }
    default:
        return err_set_at(err, SQE_ERR_NOT_SUPPORTED, st->line, st->col,
                          "unsupported: this ALTER TABLE form on Iceberg tables");
    }
}

int engine_ice_alter(sqe_conn *conn, catalog *cat, cat_table *t, const sql_stmt *st,
                     const vec *const *params, uint32_t n_params, sqe_error *err) {
    if (st->u.alter.action == SQL_ALTER_RENAME_TABLE) {
        bind_env env;
        engine_bind_env(conn, &env);
        catalog *to_cat;
        const char *to_schema, *to_name;
        SQE_TRY(bind_resolve_table_name(&env, &st->u.alter.new_table, &to_cat, &to_schema,
                                        &to_name, err));
        if (to_cat != cat)
            return err_set_at(err, SQE_ERR_NOT_SUPPORTED, st->line, st->col,
                              "Table rename across catalogs is not supported");
        int rc = catalog_rename_table(cat, conn->principal, t->schema, t->name, to_schema,
                                      to_name, err);
        if (rc == SQE_ERR_ALREADY_EXISTS)
            rc = err_set(err, SQE_ERR_ALREADY_EXISTS, "Target table '%s.%s.%s' already exists",
                         cat->name, to_schema, to_name);
        return at(st, NULL, err, rc);
    }
    if (st->u.alter.action >= SQL_ALTER_CREATE_BRANCH) /* branches and tags: ice_refs.c */
        return at(st, NULL, err, engine_ice_alter_ref(conn, cat, t, st, params, n_params, err));
    alter_ctx c = {conn, st, params, n_params, t->name};
    cat_table_ref(t);
    int rc = engine_ice_commit_meta(cat, &t, edit, &c, err);
    cat_table_unref(t);
    return rc;
}
