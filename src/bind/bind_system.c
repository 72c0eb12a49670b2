/*
 * bind_system.c: the metadata tables in FROM: <catalog>.information_schema.* and the system
 * catalog's jdbc.* and metadata.* tables (catalog/system_tables.h), bound as a table-function
 * scan whose rows are listed from the catalogs when the scan opens.
 *
 * INTERFACE: bind_system_table (called from bind_table in bind_from.c).
 * NOTES
 *   A name is a metadata table when its catalog (written or the session's) is "system" (and no
 *   session catalog has that name) or its schema is information_schema in a known catalog; any
 *   other name is left to the ordinary lookup.
 *   The filter pushed into the scan (set_filter) is searched for `name column = 'constant'`
 *   conjuncts on the table's catalog / schema / table name columns, so that
 *   `WHERE table_schema = 'x'` lists one schema instead of every catalog; the executor still
 *   applies the whole filter. The listing happens in open (one morsel), after set_filter, with
 *   the projected columns known: listings that do not read a table's comment do not load it.
 *   Hidden columns (Trino's information_schema.columns.comment, extra_info, ...) are left out
 *   of SELECT * but can be named.
 */
#include "bind/bind_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/system_tables.h"

int bind_system_table(binder *b, const sql_relation *r, plan **out, bind_scope *s, bool *handled);

typedef struct sys_source_state {
    const sys_table *table;
    char *info_catalog;          /* information_schema tables: their catalog */
    catalog **catalogs;          /* the session's catalogs (they live as long as the database) */
    uint32_t n_catalogs;
    sqe_principal *who;          /* the catalogs are listed as this user (a reference) */
    char *filter[3];             /* equality filters on catalog, schema, table names (or NULL) */
    sqe_session_lister sessions; /* runtime.sessions (bind_env.sessions) */
    void *sessions_ud;
    bool sessions_all;
    mem_tracker *tracker;
} sys_source_state;

typedef struct sys_reader {
    vec *cols;                   /* every column of the table */
    uint32_t n_cols;
    uint32_t *columns;           /* projected columns */
    uint32_t n_rows, pos;
} sys_reader;

static void sys_state_destroy(void *state) {
    sys_source_state *st = state;
    if (!st) return;
    free(st->info_catalog);
    free(st->catalogs);
    sqe_principal_unref(st->who);
    for (int i = 0; i < 3; i++) free(st->filter[i]);
    free(st);
}

static sys_source_state *sys_state_new(const sys_table *t, const char *info_catalog,
                                       const bind_env *env, mem_tracker *tracker) {
    sys_source_state *st = calloc(1, sizeof *st);
    if (!st) return NULL;
    st->table = t;
    st->tracker = tracker;
    st->n_catalogs = env->n_catalogs;
    st->who = sqe_principal_ref(env->principal);
    st->sessions = env->sessions;
    st->sessions_ud = env->sessions_ud;
    st->sessions_all = env->sessions_all;
    st->catalogs = calloc(env->n_catalogs + 1, sizeof *st->catalogs);
    st->info_catalog = info_catalog ? strdup(info_catalog) : NULL;
    if (!st->catalogs || (info_catalog && !st->info_catalog)) {
        sys_state_destroy(st);
        return NULL;
    }
    if (env->n_catalogs) memcpy(st->catalogs, env->catalogs, env->n_catalogs * sizeof *st->catalogs);
    return st;
}

/* The string constant of e (a constant or a cast of one), or NULL. */
static const vec *string_const(const bexpr *e) {
    if (e->kind == BEXPR_CAST && e->n_args == 1 && type_is_string(e->type)) e = e->args[0];
    if (e->kind != BEXPR_CONST || !type_is_string(e->type) || vec_is_null(e->u.constant, 0))
        return NULL;
    return e->u.constant;
}

/* Which name filter (0 catalog, 1 schema, 2 table) a column reference feeds, or -1. */
static int name_slot(const sys_table *t, const bexpr *e, const plan_col_id *col_ids,
                     const uint32_t *columns, uint32_t n) {
    if (e->kind != BEXPR_COLUMN) return -1;
    for (uint32_t i = 0; i < n; i++) {
        if (col_ids[i] != e->u.col) continue;
        int c = (int)columns[i];
        if (c == t->catalog_col) return 0;
        if (c == t->schema_col) return 1;
        if (c == t->table_col) return 2;
        return -1;
    }
    return -1;
}

static int collect_filters(sys_source_state *st, const bexpr *e, const plan_col_id *col_ids,
                           const uint32_t *columns, uint32_t n, sqe_error *err) {
    if (e->kind == BEXPR_AND) {
        for (uint32_t i = 0; i < e->n_args; i++)
            SQE_TRY(collect_filters(st, e->args[i], col_ids, columns, n, err));
        return SQE_OK;
    }
    if (e->kind != BEXPR_CALL || e->n_args != 2 || !e->u.call.name ||
        strcmp(e->u.call.name, "$eq") != 0)
        return SQE_OK;
    for (int side = 0; side < 2; side++) {
        int slot = name_slot(st->table, e->args[side], col_ids, columns, n);
        const vec *value = string_const(e->args[1 - side]);
        if (slot < 0 || !value || st->filter[slot]) continue;
        uint32_t phys;
        const vec *flat = vec_resolve(value, 0, &phys);
        const sqe_str *str = &VEC_DATA(flat, sqe_str)[phys];
        st->filter[slot] = strndup(sqe_str_data(str), str->len);
        if (!st->filter[slot]) return err_nomem(err, "metadata table filter");
    }
    return SQE_OK;
}

static int sys_set_filter(void *state, const bexpr *filter, const plan_col_id *col_ids,
                          const uint32_t *columns, uint32_t n, sqe_error *err) {
    return collect_filters(state, filter, col_ids, columns, n, err);
}

static int sys_plan_morsels(void *state, uint32_t n_threads, uint32_t *n_morsels, sqe_error *err) {
    (void)state;
    (void)n_threads;
    (void)err;
    *n_morsels = 1;
    return SQE_OK;
}

static void sys_close(void *reader) {
    sys_reader *r = reader;
    if (!r) return;
    for (uint32_t i = 0; i < r->n_cols; i++) vec_destroy(&r->cols[i]);
    free(r->cols);
    free(r->columns);
    free(r);
}

static int sys_open(void *state, uint32_t morsel, const uint32_t *columns, uint32_t n_columns,
                    void **reader, sqe_error *err) {
    (void)morsel;
    sys_source_state *st = state;
    const sys_table *t = st->table;
    *reader = NULL;
    sys_reader *r = calloc(1, sizeof *r);
    bool *wanted = calloc(t->n_columns, sizeof *wanted);
    if (r) {
        r->cols = calloc(t->n_columns, sizeof *r->cols);
        r->columns = malloc((n_columns ? n_columns : 1) * sizeof *r->columns);
    }
    if (!r || !wanted || !r->cols || !r->columns) {
        free(wanted);
        sys_close(r);
        return err_nomem(err, "metadata table");
    }
    int rc = SQE_OK;
    for (uint32_t i = 0; i < t->n_columns && !rc; i++) {
        rc = vec_init(&r->cols[i], sys_column_type(&t->columns[i]), 64, st->tracker, err);
        r->n_cols = i + 1;
    }
    for (uint32_t i = 0; i < n_columns; i++) {
        r->columns[i] = columns[i];
        if (columns[i] < t->n_columns) wanted[columns[i]] = true;
    }
    sys_scope scope = {st->catalogs, st->n_catalogs, st->who, st->info_catalog, st->filter[0],
                       st->filter[1], st->filter[2], wanted, st->sessions, st->sessions_ud, st->sessions_all};
    if (!rc) rc = sys_table_rows(t, &scope, r->cols, &r->n_rows, err);
    free(wanted);
    if (rc) {
        sys_close(r);
        return rc;
    }
    *reader = r;
    return SQE_OK;
}

static int sys_next(void *reader, vec_chunk *out, sqe_error *err) {
    sys_reader *r = reader;
    uint32_t n = r->n_rows - r->pos;
    if (n > out->capacity) n = out->capacity;
    for (uint32_t i = 0; i < out->n_cols && n; i++)
        SQE_TRY(vec_copy_rows(&out->cols[i], 0, &r->cols[r->columns[i]], r->pos, n, err));
    r->pos += n;
    out->count = n;
    return SQE_OK;
}

static int sys_clone(void *state, void **out, sqe_error *err) {
    const sys_source_state *st = state;
    bind_env env = {0};
    env.catalogs = st->catalogs;
    env.n_catalogs = st->n_catalogs;
    env.principal = st->who;
    env.sessions = st->sessions;
    env.sessions_ud = st->sessions_ud;
    env.sessions_all = st->sessions_all;
    *out = sys_state_new(st->table, st->info_catalog, &env, st->tracker);
    return *out ? SQE_OK : err_nomem(err, "metadata table");
}

static void sys_describe(void *state, char *buf, size_t len) {
    const sys_source_state *st = state;
    snprintf(buf, len, "listing %s.%s.%s", st->filter[0] ? st->filter[0] : "*",
             st->filter[1] ? st->filter[1] : "*", st->filter[2] ? st->filter[2] : "*");
}

/* Resolves the written name to a metadata table: *t NULL when the name is not one (the
 * ordinary lookup applies); an error when it names a missing table of a metadata schema. */
static int resolve(binder *b, const sql_relation *r, const sys_table **t, const char **cat_out) {
    const sql_qname *qn = &r->u.table.name;
    *t = NULL;
    if (qn->n_parts > 3) return SQE_OK;
    const char *cat_name = qn->n_parts == 3 ? qn->parts[0].name : b->env->catalog;
    const char *schema = qn->n_parts >= 2 ? qn->parts[qn->n_parts - 2].name : b->env->schema;
    const char *name = qn->parts[qn->n_parts - 1].name;
    if (!cat_name || !schema) return SQE_OK;
    bool known = bind_find_catalog(b->env, cat_name) != NULL;
    bool system = strcmp(cat_name, SYS_CATALOG) == 0 && !known;
    if (!system && !(known && strcmp(schema, SYS_INFO_SCHEMA) == 0)) return SQE_OK;
    if (!sys_is_schema(cat_name, schema))
        return bind_error(b, SQE_ERR_SCHEMA_NOT_FOUND, r->line, r->col,
                          "Schema '%s' does not exist", schema);
    *t = sys_table_find(cat_name, schema, name);
    if (!*t)
        return bind_error(b, SQE_ERR_TABLE_NOT_FOUND, r->line, r->col,
                          "Table '%s.%s.%s' does not exist", cat_name, schema, name);
    if (r->u.table.version != SQL_VERSION_NONE)
        return bind_error(b, SQE_ERR_NOT_SUPPORTED, r->line, r->col,
                          "This connector does not support versioned tables");
    *cat_out = cat_name;
    return SQE_OK;
}

int bind_system_table(binder *b, const sql_relation *r, plan **out, bind_scope *s, bool *handled) {
    const sys_table *t;
    const char *cat_name = NULL;
    *handled = true;
    SQE_TRY(resolve(b, r, &t, &cat_name));
    if (!t) {
        *handled = false;
        return SQE_OK;
    }
    bool info = strcmp(t->schema, SYS_INFO_SCHEMA) == 0;
    sys_source_state *st = sys_state_new(t, info ? cat_name : NULL, b->env, b->pctx->tracker);
    BIND_CHECK(b, st);
    plan_source *src;
    SQE_TRY(bind_tfunc_source_new(b, st, sys_state_destroy, &src));
    arena *a = b->pctx->arena;
    const char **names = ARENA_ARRAY(a, const char *, t->n_columns);
    sqe_type *types = ARENA_ARRAY(a, sqe_type, t->n_columns);
    const char *label = arena_sprintf(a, "%s.%s.%s", cat_name, t->schema, t->name);
    BIND_CHECK(b, names && types && label);
    for (uint32_t i = 0; i < t->n_columns; i++) {
        names[i] = t->columns[i].name;
        types[i] = sys_column_type(&t->columns[i]);
    }
    src->n_columns = t->n_columns;
    src->names = names;
    src->types = types;
    src->est_rows = 100;
    src->set_filter = sys_set_filter;
    src->clone = sys_clone;
    src->describe = sys_describe;
    src->plan_morsels = sys_plan_morsels;
    src->open = sys_open;
    src->next = sys_next;
    src->close = sys_close;
    plan *p;
    const char **out_names;
    SQE_TRY(bind_tfunc_plan(b, label, src, &p, &out_names));
    bind_rel *rel = bind_rel_from_plan(b, p, r->alias ? r->alias->name : t->name, out_names);
    BIND_CHECK(b, rel);
    uint32_t n_visible = 0;
    for (uint32_t i = 0; i < rel->n_cols && i < t->n_columns; i++) {
        rel->cols[i].hidden = t->columns[i].hidden;
        n_visible += !t->columns[i].hidden;
    }
    if (!r->alias) {
        const char *rel_cat = arena_strdup(a, cat_name);
        BIND_CHECK(b, rel_cat);
        bind_rel_qualify(rel, r, rel_cat, t->schema);
    }
    if (r->columns.n) {
        if ((uint32_t)r->columns.n != n_visible)
            return bind_error(b, SQE_ERR_MISMATCHED_COLUMN_ALIASES, r->line, r->col,
                              "Column alias list has %d entries but '%s' has %u columns available",
                              r->columns.n, r->alias ? r->alias->text : t->name, n_visible);
        uint32_t k = 0;
        for (uint32_t i = 0; i < rel->n_cols; i++)
            if (!rel->cols[i].hidden) rel->cols[i].name = r->columns.items[k++].name;
    }
    SQE_TRY(bind_scope_add(b, s, rel));
    *out = p;
    return SQE_OK;
}
