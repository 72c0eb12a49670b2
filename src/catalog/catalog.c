/*
 * catalog.c: the generic catalog (see catalog.h, catalog_ops.h): every catalog_* function is one
 * call through c->ops; tables and views are reference-counted here, whatever their catalog.
 *
 * INTERFACE: catalog_open_ops, catalog_destroy, catalog_{create,drop,has,list}_schema(s),
 *   catalog_{create,drop,get,list,rename}_table(s), catalog_drop_table_purge,
 *   catalog_{create,drop,get}_view, catalog_default_location, catalog_create_table_meta,
 *   catalog_commit, cat_table_ref/unref, cat_table_snapshot_id, cat_view_ref/unref,
 *   cat_view_copy.
 * NOTES: implementations: catalog_memory.c (memory), catalog_iceberg.c (Iceberg). An operation
 * an implementation leaves NULL answers NOT_SUPPORTED naming the catalog, except the view
 * lookups, which answer as a catalog without views does (no view of that name). A table is
 * freed in two steps: its implementation's part (t->ops->free), then the generic part (names,
 * columns, the memory data lists, which are empty for other kinds).
 */
#include "catalog/catalog.h"

#include <stdlib.h>
#include <string.h>


static char *dupstr(const char *s) { return s ? strdup(s) : NULL; }

static void table_data_free(mem_table_data *d) {
    for (uint32_t i = 0; i < d->n_chunks; i++) {
        vec_chunk_destroy(d->chunks[i]);
        free(d->chunks[i]);
    }
    free(d->chunks);
    d->chunks = NULL;
    d->n_chunks = d->cap_chunks = 0;
    d->n_rows = 0;
}

static void table_free(cat_table *t) {
    if (t->ops && t->ops->free) t->ops->free(t);
    free(t->stats);
    table_data_free(&t->data);
    table_data_free(&t->retired);
    for (uint32_t i = 0; i < t->n_columns; i++) {
        free(t->columns[i].name);
        free(t->columns[i].comment);
    }
    free(t->columns);
    free(t->catalog);
    free(t->schema);
    free(t->name);
    free(t->comment);
    pthread_mutex_destroy(&t->lock);
    free(t);
}

void cat_table_ref(cat_table *t) { atomic_fetch_add(&t->refs, 1); }

void cat_table_unref(cat_table *t) {
    if (t && atomic_fetch_sub(&t->refs, 1) == 1) table_free(t);
}

static void view_free(cat_view *v) {
    for (uint32_t i = 0; i < v->n_columns; i++) {
        free(v->columns[i].name);
        free(v->columns[i].comment);
    }
    free(v->columns);
    free(v->catalog);
    free(v->schema);
    free(v->name);
    free(v->sql);
    free(v->ctx_catalog);
    free(v->ctx_schema);
    free(v->comment);
    free(v);
}

void cat_view_ref(cat_view *v) { atomic_fetch_add(&v->refs, 1); }

void cat_view_unref(cat_view *v) {
    if (v && atomic_fetch_sub(&v->refs, 1) == 1) view_free(v);
}

cat_view *cat_view_copy(const char *catalog_name, const cat_view *def) {
    cat_view *v = calloc(1, sizeof *v);
    if (!v) return NULL;
    atomic_store(&v->refs, 1);
    v->columns = calloc(def->n_columns ? def->n_columns : 1, sizeof(cat_column));
    bool ok = v->columns != NULL;
    for (uint32_t i = 0; ok && i < def->n_columns; i++) {
        v->columns[i].type = def->columns[i].type;
        v->columns[i].name = dupstr(def->columns[i].name);
        v->columns[i].comment = dupstr(def->columns[i].comment);
        v->n_columns = i + 1;
        ok = v->columns[i].name && (v->columns[i].comment || !def->columns[i].comment);
    }
    v->catalog = dupstr(catalog_name);
    v->schema = dupstr(def->schema);
    v->name = dupstr(def->name);
    v->sql = dupstr(def->sql);
    v->ctx_catalog = dupstr(def->ctx_catalog);
    v->ctx_schema = dupstr(def->ctx_schema);
    v->comment = dupstr(def->comment);
    ok = ok && v->catalog && v->schema && v->name && v->sql &&
         (v->ctx_catalog || !def->ctx_catalog) && (v->ctx_schema || !def->ctx_schema) &&
         (v->comment || !def->comment);
    if (!ok) {
        view_free(v);
        return NULL;
    }
    return v;
}

int catalog_open_ops(const char *name, const catalog_ops *ops, void *impl, mem_tracker *tracker,
                     catalog **out, sqe_error *err) {
    catalog *c = calloc(1, sizeof *c);
    if (!c) {
        catalog tmp = {.ops = ops, .impl = impl}; /* impl is ours: freed as c would free it */
        if (ops->destroy) ops->destroy(&tmp);
        return err_nomem(err, "catalog");
    }
    pthread_mutex_init(&c->lock, NULL);
    c->ops = ops;
    c->impl = impl;
    c->tracker = tracker;
    if (!(c->name = strdup(name))) {
        catalog_destroy(c);
        return err_nomem(err, "catalog");
    }
    *out = c;
    return SQE_OK;
}

void catalog_destroy(catalog *c) {
    if (!c) return;
    if (c->ops->destroy) c->ops->destroy(c);
    free(c->name);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

int64_t cat_table_snapshot_id(const cat_table *t) {
    return t->ops->snapshot_id ? t->ops->snapshot_id(t) : -1;
}

static int unsupported(catalog *c, const char *what, sqe_error *err) {
    return err_set(err, SQE_ERR_NOT_SUPPORTED, "Catalog '%s' does not support %s", c->name, what);
}

int catalog_list_schemas(catalog *c, const sqe_principal *who, arena *a, char ***names,
                         uint32_t *n, sqe_error *err) {
    return c->ops->list_schemas(c, who, a, names, n, err);
}

bool catalog_has_schema(catalog *c, const sqe_principal *who, const char *schema) {
    return c->ops->has_schema(c, who, schema);
}

int catalog_create_schema(catalog *c, const sqe_principal *who, const char *schema,
                          bool if_not_exists, sqe_error *err) {
    if (!c->ops->create_schema) return unsupported(c, "creating schemas", err);
    return c->ops->create_schema(c, who, schema, if_not_exists, err);
}

int catalog_drop_schema(catalog *c, const sqe_principal *who, const char *schema, bool if_exists,
                        bool cascade, sqe_error *err) {
    if (!c->ops->drop_schema) return unsupported(c, "dropping schemas", err);
    return c->ops->drop_schema(c, who, schema, if_exists, cascade, err);
}

int catalog_list_tables(catalog *c, const sqe_principal *who, const char *schema, arena *a,
                        char ***names, uint32_t *n, sqe_error *err) {
    return c->ops->list_tables(c, who, schema, a, names, n, err);
}

int catalog_get_table(catalog *c, const sqe_principal *who, const char *schema, const char *name,
                      cat_table **out, sqe_error *err) {
    return c->ops->get_table(c, who, schema, name, out, err);
}

int catalog_create_table(catalog *c, const char *schema, const char *name,
                         const cat_column *columns, uint32_t n_columns, bool if_not_exists,
                         cat_table **out, sqe_error *err) {
    if (out) *out = NULL;
    if (!c->ops->create_table)
        return err_set(err, SQE_ERR_NOT_SUPPORTED,
                       "Catalog '%s' creates tables from metadata (catalog_create_table_meta)",
                       c->name);
    return c->ops->create_table(c, NULL, schema, name, columns, n_columns, if_not_exists, out,
                                err);
}

int catalog_drop_table_purge(catalog *c, const sqe_principal *who, const char *schema,
                             const char *name, bool if_exists, bool purge, sqe_error *err) {
    if (!c->ops->drop_table) return unsupported(c, "dropping tables", err);
    return c->ops->drop_table(c, who, schema, name, if_exists, purge, err);
}

int catalog_drop_table(catalog *c, const sqe_principal *who, const char *schema, const char *name,
                       bool if_exists, sqe_error *err) {
    return catalog_drop_table_purge(c, who, schema, name, if_exists, true, err);
}

int catalog_rename_table(catalog *c, const sqe_principal *who, const char *schema,
                         const char *name, const char *to_schema, const char *to_name,
                         sqe_error *err) {
    if (!c->ops->rename_table) return unsupported(c, "renaming tables", err);
    return c->ops->rename_table(c, who, schema, name, to_schema, to_name, err);
}

int catalog_default_location(catalog *c, const sqe_principal *who, const char *schema,
                             const char *name, arena *a, char **out, sqe_error *err) {
    if (!c->ops->default_location) return unsupported(c, "table locations", err);
    return c->ops->default_location(c, who, schema, name, a, out, err);
}

int catalog_create_table_meta(catalog *c, const sqe_principal *who, const char *schema,
                              const char *name, struct ice_metadata *m, bool if_not_exists,
                              bool *created, sqe_error *err) {
    if (created) *created = false;
    if (!c->ops->create_table_meta) return unsupported(c, "Iceberg tables", err);
    return c->ops->create_table_meta(c, who, schema, name, m, if_not_exists, created, err);
}

int catalog_commit(catalog *c, const struct ice_table_ref *base,
                   const struct ice_metadata *new_meta, sqe_error *err) {
    if (!c->ops->commit) return unsupported(c, "Iceberg commits", err);
    return c->ops->commit(c, base, new_meta, err);
}

int catalog_create_view(catalog *c, const cat_view *def, bool or_replace, sqe_error *err) {
    if (!c->ops->create_view) return unsupported(c, "views", err);
    return c->ops->create_view(c, def, or_replace, err);
}

int catalog_drop_view(catalog *c, const char *schema, const char *name, bool if_exists,
                      sqe_error *err) {
    if (c->ops->drop_view) return c->ops->drop_view(c, schema, name, if_exists, err);
    if (if_exists) return SQE_OK;
    return err_set(err, SQE_ERR_TABLE_NOT_FOUND, "View '%s.%s.%s' does not exist", c->name, schema,
                   name);
}

int catalog_get_view(catalog *c, const char *schema, const char *name, cat_view **out,
                     sqe_error *err) {
    (void)out;
    if (c->ops->get_view) return c->ops->get_view(c, schema, name, out, err);
    return err_set(err, SQE_ERR_TABLE_NOT_FOUND, "View '%s.%s.%s' does not exist", c->name, schema,
                   name);
}
