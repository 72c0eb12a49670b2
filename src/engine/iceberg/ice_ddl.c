/*
 * ice_ddl.c: CREATE TABLE in an Iceberg catalog: the Iceberg schema (fresh field ids), the
 * partition spec from Trino's `partitioning = ARRAY['day(ts)', 'bucket(id, 16)', ...]`, the
 * format version and table properties, and the first metadata file.
 *
 * INTERFACE: engine_ice_create_table (engine.h), engine_ice_read_properties,
 *   engine_ice_partition_spec (ice_write_int.h).
 * NOTES
 *   Properties follow Trino's Iceberg connector: format ('PARQUET' only), format_version (1-3,
 *   default 2), partitioning, location, sorted_by (refused for now), extra_properties (a map of
 *   Iceberg table properties); a property whose name contains a dot ("write.delete.mode") is an
 *   Iceberg table property as written. Partition field names follow Iceberg Java: identity keeps
 *   the column name, others append _bucket, _trunc, _year, _month, _day, _hour, _null.
 *   A location the statement names (location, write.data.path, write.metadata.path, ...) must
 *   pass the database's path policy for writing (io/path_policy.h): in the server, SQL cannot
 *   make the engine write table files where [storage.tvf] does not allow it.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "catalog/catalog_iceberg.h"
#include "common/random.h"
#include "engine/engine.h"
#include "engine/iceberg/ice_write_int.h"
#include "io/path_policy.h"
#include "vec/vec_format.h"

/* Evaluates a property value to a constant vector (row 0). */
static int prop_value(sqe_conn *conn, plan_ctx *pctx, const sql_property *prop,
                      const vec *const *params, uint32_t n_params, const vec **out,
                      sqe_error *err) {
    if (!prop->value)
        return err_set_at(err, SQE_ERR_INVALID_TABLE_PROPERTY, prop->name.line, prop->name.col,
                          "Table property '%s' needs a value", prop->name.text);
    bind_env env;
    engine_bind_env(conn, &env);
    env.params = params;
    env.n_params = n_params;
    bexpr *b;
    SQE_TRY(bind_scalar_expr(pctx, &env, prop->value, &b, err));
    if (b->kind != BEXPR_CONST) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        int64_t now = (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
        bexpr *folded;
        int rc = exec_fold_const(pctx, b, conn->time_zone, now, &folded, err);
        if (rc) {
            if (err && !err->line) {
                err->line = prop->name.line;
                err->column = prop->name.col;
            }
            return rc;
        }
        b = folded;
    }
    if (b->kind != BEXPR_CONST || vec_is_null(b->u.constant, 0))
        return err_set_at(err, SQE_ERR_INVALID_TABLE_PROPERTY, prop->name.line, prop->name.col,
                          "Table property '%s' must be a constant, not NULL", prop->name.text);
    *out = b->u.constant;
    return SQE_OK;
}

/* Row `row` of a string vector as a C string in a. */
static char *string_at(arena *a, const vec *v, uint32_t row) {
    uint32_t p;
    const vec *f = vec_resolve(v, row, &p);
    sqe_str s = VEC_DATA(f, sqe_str)[p];
    return arena_strndup(a, sqe_str_data(&s), s.len);
}

/* The text of a property value (strings as is, other types in their SQL text form). */
static int prop_text(arena *a, const sql_property *prop, const vec *v, const char **out,
                     sqe_error *err) {
    if (type_is_string(v->type)) {
        *out = string_at(a, v, 0);
    } else {
        strbuf sb;
        strbuf_init(&sb);
        vec_format_value(v, 0, &sb);
        *out = sb.failed ? NULL : arena_strdup(a, strbuf_cstr(&sb));
        strbuf_reset(&sb);
    }
    (void)prop;
    return *out ? SQE_OK : err_nomem(err, "table properties");
}


static int add_prop(ice_table_def *d, const char *k, const char *v, sqe_error *err) {
    for (uint32_t i = 0; i < d->n_props; i++)
        if (!strcmp(d->props[i].key, k)) {
            d->props[i].value = v;
            return SQE_OK;
        }
    if (d->n_props == d->cap_props) {
        uint32_t cap = d->cap_props ? d->cap_props * 2 : 16;
        ice_kv *g = ARENA_ARRAY(d->a, ice_kv, cap);
        if (!g) return err_nomem(err, "table properties");
        if (d->n_props) memcpy(g, d->props, d->n_props * sizeof *g);
        d->props = g;
        d->cap_props = cap;
    }
    d->props[d->n_props++] = (ice_kv){k, v};
    return SQE_OK;
}

static int bad_prop(const sql_property *p, sqe_error *err, const char *why) {
    return err_set_at(err, SQE_ERR_INVALID_TABLE_PROPERTY, p->name.line, p->name.col,
                      "Invalid value for table property '%s': %s", p->name.text, why);
}

/* Iceberg table properties that say where files are written. */
static bool is_location_property(const char *key) {
    static const char *const keys[] = {"write.data.path", "write.metadata.path",
                                       "write.object-storage.path", "write.folder-storage.path"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (!strcmp(key, keys[i])) return true;
    return false;
}

/* A location the statement names (location, write.data.path, ...) is where files will be
 * written as this session: it must pass the database's path policy like a COPY target (in the
 * server only places [storage.tvf] allows; the catalog's default locations need no check). */
static int check_locations(sqe_conn *conn, const sql_property *p, const ice_table_def *d,
                           sqe_error *err) {
    int rc = SQE_OK;
    if (!strcmp(p->name.name, "location") && d->location)
        rc = path_policy_check_dir(conn->db->paths, conn->principal, d->location, err);
    for (uint32_t i = 0; !rc && i < d->n_props; i++)
        if (is_location_property(d->props[i].key))
            rc = path_policy_check_dir(conn->db->paths, conn->principal, d->props[i].value, err);
    if (rc && err && !err->line) {
        err->line = p->name.line;
        err->column = p->name.col;
    }
    return rc;
}

int engine_ice_read_properties(sqe_conn *conn, plan_ctx *pctx, const sql_property_list *props,
                           const vec *const *params, uint32_t n_params, ice_table_def *d,
                           sqe_error *err) {
    for (int i = 0; i < props->n; i++) {
        const sql_property *p = &props->items[i];
        const char *name = p->name.name;
        const vec *v = NULL;
        SQE_TRY(prop_value(conn, pctx, p, params, n_params, &v, err));
        if (!strcmp(name, "partitioning")) {
            if (v->type.id != TYPE_ARRAY || (!type_is_string(v->type.nested->children[0]) &&
                                          v->type.nested->children[0].id != TYPE_UNKNOWN))
                return bad_prop(p, err, "expected an array of strings");
            uint32_t ph;
            const vec *f = vec_resolve(v, 0, &ph);
            sqe_list_entry le = VEC_DATA(f, sqe_list_entry)[ph];
            d->has_partitioning = true;
            d->partitioning = ARENA_ARRAY(d->a, const char *, le.length + 1);
            if (!d->partitioning) return err_nomem(err, "table properties");
            for (uint32_t k = 0; k < le.length; k++) {
                if (vec_is_null(&f->children[0], le.offset + k))
                    return bad_prop(p, err, "NULL partition field");
                d->partitioning[k] = string_at(d->a, &f->children[0], le.offset + k);
                if (!d->partitioning[k]) return err_nomem(err, "table properties");
            }
            d->n_partitioning = le.length;
        } else if (!strcmp(name, "format_version")) {
            const char *t;
            SQE_TRY(prop_text(d->a, p, v, &t, err));
            char *end;
            long fv = strtol(t, &end, 10);
            if (*end || fv < 1 || fv > ICE_FORMAT_VERSION_MAX)
                return bad_prop(p, err, "format_version must be 1, 2 or 3");
            d->format_version = (int)fv;
        } else if (!strcmp(name, "location")) {
            SQE_TRY(prop_text(d->a, p, v, &d->location, err));
        } else if (!strcmp(name, "format")) {
            const char *t;
            SQE_TRY(prop_text(d->a, p, v, &t, err));
            if (strcasecmp(t, "PARQUET") != 0)
                return err_set_at(err, SQE_ERR_NOT_SUPPORTED, p->name.line, p->name.col,
                                  "unsupported: file format %s (only PARQUET is written)", t);
        } else if (!strcmp(name, "sorted_by")) {
            return err_set_at(err, SQE_ERR_NOT_SUPPORTED, p->name.line, p->name.col,
                              "unsupported: table property 'sorted_by'");
        } else if (!strcmp(name, "extra_properties")) {
            if (v->type.id != TYPE_MAP)
                return bad_prop(p, err, "expected a map(varchar, varchar)");
            uint32_t ph;
            const vec *f = vec_resolve(v, 0, &ph);
            sqe_list_entry le = VEC_DATA(f, sqe_list_entry)[ph];
            for (uint32_t k = 0; k < le.length; k++) {
                const vec *keys = &f->children[0], *vals = &f->children[1];
                if (!type_is_string(keys->type) || !type_is_string(vals->type) ||
                    vec_is_null(vals, le.offset + k))
                    return bad_prop(p, err, "expected a map(varchar, varchar) without NULLs");
                const char *key = string_at(d->a, keys, le.offset + k);
                const char *val = string_at(d->a, vals, le.offset + k);
                if (!key || !val) return err_nomem(err, "table properties");
                SQE_TRY(add_prop(d, key, val, err));
            }
        } else if (strchr(name, '.')) {
            const char *t;
            SQE_TRY(prop_text(d->a, p, v, &t, err));
            SQE_TRY(add_prop(d, name, t, err));
        } else {
            return err_set_at(err, SQE_ERR_INVALID_TABLE_PROPERTY, p->name.line, p->name.col,
                              "Catalog 'iceberg' table property '%s' does not exist",
                              p->name.text);
        }
        SQE_TRY(check_locations(conn, p, d, err));
    }
    return SQE_OK;
}

/* Parses one partitioning entry ("col", "day(col)", "bucket(col, 16)") into field f. */
static int parse_partition_field(arena *a, const ice_schema *s, const char *text, int32_t id,
                                 ice_partition_field *f, sqe_error *err) {
    char fn[32] = "", col[256] = "";
    long param = 0;
    const char *p = text;
    while (isspace((unsigned char)*p)) p++;
    const char *open = strchr(p, '(');
    if (open) {
        size_t fl = (size_t)(open - p);
        while (fl && isspace((unsigned char)p[fl - 1])) fl--;
        if (fl >= sizeof fn) goto bad;
        for (size_t i = 0; i < fl; i++) fn[i] = (char)tolower((unsigned char)p[i]);
        const char *q = open + 1;
        while (isspace((unsigned char)*q)) q++;
        size_t cl = strcspn(q, ",) \t");
        if (!cl || cl >= sizeof col) goto bad;
        memcpy(col, q, cl);
        q += cl;
        while (isspace((unsigned char)*q)) q++;
        if (*q == ',') {
            char *end;
            param = strtol(q + 1, &end, 10);
            q = end;
            while (isspace((unsigned char)*q)) q++;
        }
        if (*q != ')') goto bad;
        q++;
        while (isspace((unsigned char)*q)) q++;
        if (*q) goto bad;
    } else {
        size_t cl = strlen(p);
        while (cl && isspace((unsigned char)p[cl - 1])) cl--;
        if (!cl || cl >= sizeof col) goto bad;
        memcpy(col, p, cl);
    }
    for (char *c = col; *c; c++) *c = (char)tolower((unsigned char)*c);
    const ice_field *src = NULL;
    for (uint32_t i = 0; i < s->type.n_fields && !src; i++)
        if (!strcasecmp(s->type.fields[i].name, col)) src = &s->type.fields[i];
    if (!src) return err_set(err, SQE_ERR_INVALID_TABLE_PROPERTY,
                             "Unable to parse partitioning value: Cannot find source column: %s", col);
    memset(f, 0, sizeof *f);
    f->source_id = src->id;
    f->has_source_id = true;
    f->field_id = id;
    f->has_field_id = true;
    const char *suffix;
    char tr[48];
    if (!open) {
        snprintf(tr, sizeof tr, "identity");
        suffix = "";
    } else if (!strcmp(fn, "bucket") || !strcmp(fn, "truncate")) {
        if (param < 1 || param > INT32_MAX) goto bad;
        snprintf(tr, sizeof tr, "%s[%ld]", fn, param);
        suffix = fn[0] == 'b' ? "_bucket" : "_trunc";
    } else if (!strcmp(fn, "year") || !strcmp(fn, "month") || !strcmp(fn, "day") ||
               !strcmp(fn, "hour") || !strcmp(fn, "void")) {
        snprintf(tr, sizeof tr, "%s", fn);
        suffix = !strcmp(fn, "void") ? "_null" : NULL;
    } else {
        goto bad;
    }
    SQE_TRY(ice_transform_parse(tr, &f->transform, err));
    f->transform_text = arena_strdup(a, tr);
    f->name = suffix ? arena_sprintf(a, "%s%s", src->name, suffix)
                     : arena_sprintf(a, "%s_%s", src->name, fn);
    if (!f->name || !f->transform_text) return err_nomem(err, "partitioning");
    ice_type t;
    SQE_TRY(ice_partition_field_type(s, f, &t, err));
    return SQE_OK;
bad:
    return err_set(err, SQE_ERR_INVALID_TABLE_PROPERTY, "Unable to parse partitioning value: %s",
                   text);
}

int engine_ice_partition_spec(arena *a, const ice_schema *s, const ice_metadata *m,
                              const char *const *texts, uint32_t n, ice_partition_spec **out,
                              sqe_error *err) {
    ice_partition_spec *spec = ARENA_NEW(a, ice_partition_spec);
    ice_partition_field *pf = ARENA_ARRAY(a, ice_partition_field, n + 1);
    if (!spec || !pf) return err_nomem(err, "partitioning");
    int32_t next_id = m ? m->last_partition_id + 1 : ICE_PARTITION_FIELD_ID_START;
    if (next_id < ICE_PARTITION_FIELD_ID_START) next_id = ICE_PARTITION_FIELD_ID_START;
    for (uint32_t i = 0; i < n; i++) {
        SQE_TRY(parse_partition_field(a, s, texts[i], next_id, &pf[i], err));
        /* a field some earlier spec already had keeps its id and name (Iceberg Java) */
        bool reused = false;
        for (uint32_t k = 0; m && k < m->n_specs && !reused; k++)
            for (uint32_t j = 0; j < m->specs[k].n_fields && !reused; j++) {
                const ice_partition_field *old = &m->specs[k].fields[j];
                if (old->source_id == pf[i].source_id &&
                    old->transform.kind == pf[i].transform.kind &&
                    old->transform.param == pf[i].transform.param) {
                    pf[i].field_id = old->field_id;
                    pf[i].name = old->name;
                    reused = true;
                }
            }
        if (!reused) next_id++;
        for (uint32_t j = 0; j < i; j++)
            if (!strcmp(pf[j].name, pf[i].name))
                return err_set(err, SQE_ERR_INVALID_TABLE_PROPERTY,
                               "Unable to parse partitioning value: duplicate partition field %s",
                               pf[i].name);
    }
    spec->spec_id = 0;
    spec->n_fields = n;
    spec->fields = pf;
    *out = spec;
    return SQE_OK;
}

/* The new table's metadata (location filled in by the catalog when not given). */
static int build_metadata(arena *a, const cat_column *cols, uint32_t n, const ice_table_def *d,
                          ice_metadata **out, sqe_error *err) {
    ice_metadata *m = ARENA_NEW(a, ice_metadata);
    ice_schema *s = ARENA_NEW(a, ice_schema);
    ice_field *fields = ARENA_ARRAY(a, ice_field, n + 1);
    if (!m || !s || !fields) return err_nomem(err, "table metadata");
    int32_t last_id = n; /* top-level ids 1..n first, then nested ones (assignFreshIds) */
    for (uint32_t i = 0; i < n; i++) {
        fields[i].id = (int32_t)i + 1;
        fields[i].name = arena_strdup(a, cols[i].name);
        fields[i].required = cols[i].not_null;
        fields[i].doc = cols[i].comment ? arena_strdup(a, cols[i].comment) : NULL;
        if (!fields[i].name) return err_nomem(err, "table metadata");
    }
    for (uint32_t i = 0; i < n; i++) {
        int rc = ice_type_from_sqe(a, cols[i].type, &last_id, &fields[i].type, err);
        if (rc) {
            err_prefix(err, "Column '%s'", cols[i].name);
            return rc;
        }
    }
    s->schema_id = 0;
    s->has_schema_id = true;
    s->type.kind = ICE_TYPE_STRUCT;
    s->type.n_fields = n;
    s->type.fields = fields;
    ice_partition_spec *spec;
    ice_sort_order *so = ARENA_NEW(a, ice_sort_order);
    char uuid[37];
    if (!so) return err_nomem(err, "table metadata");
    SQE_TRY(engine_ice_partition_spec(a, s, NULL, d->partitioning, d->n_partitioning, &spec, err));
    SQE_TRY(sqe_uuid_v4(uuid, err));
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    m->format_version = d->format_version ? d->format_version : 2;
    m->table_uuid = arena_strdup(a, uuid);
    m->location = d->location;
    m->last_updated_ms = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
    m->last_column_id = last_id;
    m->n_schemas = 1;
    m->schemas = s;
    m->current_schema_id = 0;
    m->n_specs = 1;
    m->specs = spec;
    m->default_spec_id = 0;
    m->last_partition_id = ICE_PARTITION_FIELD_ID_START - 1;
    for (uint32_t i = 0; i < spec->n_fields; i++)
        if (spec->fields[i].field_id > m->last_partition_id)
            m->last_partition_id = spec->fields[i].field_id;
    m->properties.n = d->n_props;
    m->properties.items = d->props;
    m->current_snapshot_id = -1;
    m->n_sort_orders = 1;
    m->sort_orders = so;
    m->default_sort_order_id = 0;
    m->present = ice_metadata_default_present(m->format_version);
    if (!m->table_uuid) return err_nomem(err, "table metadata");
    *out = m;
    return SQE_OK;
}

int engine_ice_create_table(sqe_conn *conn, catalog *cat, const char *schema, const char *name,
                            const cat_column *cols, uint32_t n, const sql_property_list *props,
                            const vec *const *params, uint32_t n_params, bool if_not_exists,
                            bool *created, sqe_error *err) {
    *created = false;
    arena a;
    arena_init(&a, NULL);
    plan_ctx pctx;
    plan_ctx_init(&pctx, &a, NULL, exec_fold_const);
    ice_table_def d;
    memset(&d, 0, sizeof d);
    d.a = &a;
    int rc = props ? engine_ice_read_properties(conn, &pctx, props, params, n_params, &d,
                                                err) : SQE_OK;
    if (!rc) rc = add_prop(&d, "write.parquet.compression-codec", "zstd", err);
    ice_metadata *m = NULL;
    if (!rc) rc = build_metadata(&a, cols, n, &d, &m, err);
    if (!rc)
        rc = catalog_create_table_meta(cat, conn->principal, schema, name, m, if_not_exists,
                                       created, err);
    plan_ctx_destroy(&pctx);
    arena_destroy(&a);
    return rc;
}
