/*
 * catalog_memory.c: the in-memory catalog ("memory"), one filling of catalog_ops (see catalog.h,
 * catalog_ops.h).
 *
 * INTERFACE: catalog_create (the memory catalog), cat_append_*, cat_table_truncate,
 *   cat_table_snapshot, cat_snapshot_destroy, cat_table_column_ndv.
 * NOTES: committed chunks are immutable, so readers copy the chunk pointer list under the
 * table lock and then read without locks. TRUNCATE moves chunks to a retired list that is freed
 * with the table, so a concurrent reader's snapshot stays valid. Lists are small arrays: the
 * number of schemas and tables in an embedded catalog is small. Views live in their own list of
 * the schema but share the tables' namespace: every create checks both lists under the catalog
 * lock. A view is immutable, so CREATE OR REPLACE builds a new object and swaps it in. The
 * memory catalog has no users: `who` is ignored. Its table data lives in cat_table.data (freed
 * by catalog.c with the table), so its table_ops.free has nothing more to do.
 */
#include "catalog/catalog.h"

#include <stdlib.h>
#include <string.h>

static char *dupstr(const char *s) { return s ? strdup(s) : NULL; }

static int grow(void **arr, uint32_t *cap, uint32_t need, size_t elem) {
    if (need <= *cap) return 0;
    uint32_t n = *cap ? *cap * 2 : 8;
    while (n < need) n *= 2;
    void *p = realloc(*arr, (size_t)n * elem);
    if (!p) return -1;
    *arr = p;
    *cap = n;
    return 0;
}

static void mem_table_free(cat_table *t) { (void)t; }
static int64_t mem_table_snapshot_id(const cat_table *t) { (void)t; return -1; }

static const table_ops mem_table_ops = {
    .kind = CAT_KIND_MEMORY,
    .free = mem_table_free,
    .snapshot_id = mem_table_snapshot_id,
};

static void schema_free(cat_schema *s) {
    for (uint32_t i = 0; i < s->n_tables; i++) cat_table_unref(s->tables[i]);
    free(s->tables);
    for (uint32_t i = 0; i < s->n_views; i++) cat_view_unref(s->views[i]);
    free(s->views);
    free(s->name);
    free(s);
}

static cat_schema *find_schema(catalog *c, const char *name) {
    for (uint32_t i = 0; i < c->n_schemas; i++)
        if (strcmp(c->schemas[i]->name, name) == 0) return c->schemas[i];
    return NULL;
}

static int find_table_idx(cat_schema *s, const char *name) {
    for (uint32_t i = 0; i < s->n_tables; i++)
        if (strcmp(s->tables[i]->name, name) == 0) return (int)i;
    return -1;
}

static int find_view_idx(cat_schema *s, const char *name) {
    for (uint32_t i = 0; i < s->n_views; i++)
        if (strcmp(s->views[i]->name, name) == 0) return (int)i;
    return -1;
}

static int add_schema(catalog *c, const char *name, sqe_error *err) {
    cat_schema *s = calloc(1, sizeof *s);
    if (!s || !(s->name = strdup(name)) ||
        grow((void **)&c->schemas, &c->cap_schemas, c->n_schemas + 1, sizeof(cat_schema *))) {
        if (s) free(s->name);
        free(s);
        return err_nomem(err, "schema");
    }
    c->schemas[c->n_schemas++] = s;
    return SQE_OK;
}

/* Frees the schemas (their tables and views go with their last references). */
static void mem_destroy(catalog *c) {
    for (uint32_t i = 0; i < c->n_schemas; i++) schema_free(c->schemas[i]);
    free(c->schemas);
    c->schemas = NULL;
    c->n_schemas = 0;
}

static int mem_create_schema(catalog *c, const sqe_principal *who, const char *schema,
                             bool if_not_exists, sqe_error *err) {
    pthread_mutex_lock(&c->lock);
    int rc = SQE_OK;
    if (find_schema(c, schema)) {
        if (!if_not_exists)
            rc = err_set(err, SQE_ERR_SCHEMA_ALREADY_EXISTS, "Schema '%s.%s' already exists",
                         c->name, schema);
    } else {
        rc = add_schema(c, schema, err);
    }
    pthread_mutex_unlock(&c->lock);
    return rc;
}

static bool mem_has_schema(catalog *c, const sqe_principal *who, const char *schema) {
    pthread_mutex_lock(&c->lock);
    bool found = find_schema(c, schema) != NULL;
    pthread_mutex_unlock(&c->lock);
    return found;
}

static int mem_drop_schema(catalog *c, const sqe_principal *who, const char *schema, bool if_exists,
                           bool cascade, sqe_error *err) {
    pthread_mutex_lock(&c->lock);
    int rc = SQE_OK;
    uint32_t idx = 0;
    while (idx < c->n_schemas && strcmp(c->schemas[idx]->name, schema) != 0) idx++;
    if (idx == c->n_schemas) {
        if (!if_exists)
            rc = err_set(err, SQE_ERR_SCHEMA_NOT_FOUND, "Schema '%s.%s' does not exist", c->name,
                         schema);
    } else if ((c->schemas[idx]->n_tables > 0 || c->schemas[idx]->n_views > 0) && !cascade) {
        rc = err_set(err, SQE_ERR_SCHEMA_NOT_EMPTY, "Cannot drop non-empty schema '%s'", schema);
    } else {
        schema_free(c->schemas[idx]);
        memmove(&c->schemas[idx], &c->schemas[idx + 1],
                (c->n_schemas - idx - 1) * sizeof(cat_schema *));
        c->n_schemas--;
    }
    pthread_mutex_unlock(&c->lock);
    return rc;
}

static int mem_create_table(catalog *c, const sqe_principal *who, const char *schema,
                            const char *name, const cat_column *columns, uint32_t n_columns,
                            bool if_not_exists, cat_table **out, sqe_error *err) {
    if (out) *out = NULL;
    pthread_mutex_lock(&c->lock);
    int rc = SQE_OK;
    cat_schema *s = find_schema(c, schema);
    cat_table *t = NULL;
    if (!s) { /* NOT_FOUND as Trino's memory connector */
        rc = err_set(err, SQE_ERR_NOT_FOUND, "Schema %s not found", schema);
        goto out_unlock;
    }
    if (find_view_idx(s, name) >= 0) {
        /* As Trino: IF NOT EXISTS is satisfied by a view of that name too (nothing is created). */
        if (!if_not_exists)
            rc = err_set(err, SQE_ERR_TABLE_ALREADY_EXISTS, "Table '%s.%s.%s' already exists",
                         c->name, schema, name);
        goto out_unlock;
    }
    int existing = find_table_idx(s, name);
    if (existing >= 0) {
        if (if_not_exists) {
            if (out) {
                *out = s->tables[existing];
                cat_table_ref(*out);
            }
        } else {
            rc = err_set(err, SQE_ERR_TABLE_ALREADY_EXISTS, "Table '%s.%s.%s' already exists",
                         c->name, schema, name);
        }
        goto out_unlock;
    }
    t = calloc(1, sizeof *t);
    if (!t) goto out_nomem;
    t->ops = &mem_table_ops;
    atomic_store(&t->refs, 1);
    pthread_mutex_init(&t->lock, NULL);
    t->catalog = dupstr(c->name);
    t->schema = dupstr(schema);
    t->name = dupstr(name);
    t->columns = calloc(n_columns ? n_columns : 1, sizeof(cat_column));
    if (!t->catalog || !t->schema || !t->name || !t->columns) goto out_nomem;
    t->n_columns = n_columns;
    for (uint32_t i = 0; i < n_columns; i++) {
        t->columns[i] = columns[i];
        t->columns[i].name = dupstr(columns[i].name);
        t->columns[i].comment = dupstr(columns[i].comment);
        if (!t->columns[i].name) goto out_nomem;
    }
    t->stats = calloc(n_columns ? n_columns : 1, sizeof(col_stats));
    if (!t->stats) goto out_nomem;
    mem_tracker_init(&t->data.tracker, "table", 0, c->tracker);
    mem_tracker_init(&t->retired.tracker, "table", 0, c->tracker);
    if (grow((void **)&s->tables, &s->cap_tables, s->n_tables + 1, sizeof(cat_table *)))
        goto out_nomem;
    s->tables[s->n_tables++] = t;
    if (out) {
        cat_table_ref(t);
        *out = t;
    }
    goto out_unlock;
out_nomem:
    cat_table_unref(t);
    rc = err_nomem(err, "table");
out_unlock:
    pthread_mutex_unlock(&c->lock);
    return rc;
}

static int mem_drop_table(catalog *c, const sqe_principal *who, const char *schema,
                          const char *name, bool if_exists, bool purge, sqe_error *err) {
    (void)who, (void)purge; /* no users; the rows go with the last reference */
    pthread_mutex_lock(&c->lock);
    int rc = SQE_OK;
    cat_schema *s = find_schema(c, schema);
    int idx = s ? find_table_idx(s, name) : -1;
    if (idx < 0 && s && find_view_idx(s, name) >= 0) {
        rc = err_set(err, SQE_ERR_GENERIC_USER_ERROR,
                     "Table '%s.%s.%s' does not exist, but a view with that name exists. Did you "
                     "mean DROP VIEW %s.%s.%s?",
                     c->name, schema, name, c->name, schema, name);
    } else if (idx < 0) {
        if (!if_exists)
            rc = err_set(err, SQE_ERR_TABLE_NOT_FOUND, "Table '%s.%s.%s' does not exist", c->name,
                         schema, name);
    } else {
        cat_table_unref(s->tables[idx]);
        memmove(&s->tables[idx], &s->tables[idx + 1],
                (s->n_tables - (uint32_t)idx - 1) * sizeof(cat_table *));
        s->n_tables--;
    }
    pthread_mutex_unlock(&c->lock);
    return rc;
}

static int mem_get_table(catalog *c, const sqe_principal *who, const char *schema, const char *name,
                         cat_table **out, sqe_error *err) {
    pthread_mutex_lock(&c->lock);
    int rc = SQE_OK;
    cat_schema *s = find_schema(c, schema);
    int idx = s ? find_table_idx(s, name) : -1;
    if (!s) {
        rc = err_set(err, SQE_ERR_SCHEMA_NOT_FOUND, "Schema '%s' does not exist", schema);
    } else if (idx < 0) {
        rc = err_set(err, SQE_ERR_TABLE_NOT_FOUND, "Table '%s.%s.%s' does not exist", c->name,
                     schema, name);
    } else {
        *out = s->tables[idx];
        cat_table_ref(*out);
    }
    pthread_mutex_unlock(&c->lock);
    return rc;
}

static int cmp_names(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int mem_list_schemas(catalog *c, const sqe_principal *who, arena *a, char ***names,
                            uint32_t *n, sqe_error *err) {
    pthread_mutex_lock(&c->lock);
    char **out = ARENA_ARRAY(a, char *, c->n_schemas + 1);
    uint32_t count = 0;
    for (uint32_t i = 0; out && i < c->n_schemas; i++)
        if (!(out[count++] = arena_strdup(a, c->schemas[i]->name))) out = NULL;
    pthread_mutex_unlock(&c->lock);
    if (!out) return err_nomem(err, "schema list");
    qsort(out, count, sizeof(char *), cmp_names);
    *names = out;
    *n = count;
    return SQE_OK;
}

static int mem_list_tables(catalog *c, const sqe_principal *who, const char *schema, arena *a,
                           char ***names, uint32_t *n, sqe_error *err) {
    pthread_mutex_lock(&c->lock);
    int rc = SQE_OK;
    cat_schema *s = find_schema(c, schema);
    char **out = NULL;
    uint32_t count = 0;
    if (!s) {
        rc = err_set(err, SQE_ERR_SCHEMA_NOT_FOUND, "Schema '%s' does not exist", schema);
    } else {
        out = ARENA_ARRAY(a, char *, s->n_tables + s->n_views + 1);
        for (uint32_t i = 0; out && i < s->n_tables; i++)
            if (!(out[count++] = arena_strdup(a, s->tables[i]->name))) out = NULL;
        for (uint32_t i = 0; out && i < s->n_views; i++)
            if (!(out[count++] = arena_strdup(a, s->views[i]->name))) out = NULL;
        if (!out) rc = err_nomem(err, "table list");
    }
    pthread_mutex_unlock(&c->lock);
    if (rc) return rc;
    qsort(out, count, sizeof(char *), cmp_names);
    *names = out;
    *n = count;
    return SQE_OK;
}

static int mem_create_view(catalog *c, const cat_view *def, bool or_replace, sqe_error *err) {
    if (!def->schema || !def->name || !def->sql)
        return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "incomplete view definition");
    cat_view *v = cat_view_copy(c->name, def);
    if (!v) return err_nomem(err, "view");
    pthread_mutex_lock(&c->lock);
    int rc = SQE_OK;
    cat_schema *s = find_schema(c, def->schema);
    int existing = s ? find_view_idx(s, def->name) : -1;
    if (!s) {
        rc = err_set(err, SQE_ERR_NOT_FOUND, "Schema %s not found", def->schema);
    } else if (find_table_idx(s, def->name) >= 0) {
        rc = err_set(err, SQE_ERR_TABLE_ALREADY_EXISTS, "Table already exists: '%s.%s.%s'",
                     c->name, def->schema, def->name);
    } else if (existing >= 0 && !or_replace) {
        rc = err_set(err, SQE_ERR_TABLE_ALREADY_EXISTS, "View already exists: '%s.%s.%s'",
                     c->name, def->schema, def->name);
    } else if (existing >= 0) {
        cat_view *old = s->views[existing];
        s->views[existing] = v;
        v = old; /* released below, or later by the queries that still hold it */
    } else if (grow((void **)&s->views, &s->cap_views, s->n_views + 1, sizeof(cat_view *))) {
        rc = err_nomem(err, "view");
    } else {
        s->views[s->n_views++] = v;
        v = NULL;
    }
    pthread_mutex_unlock(&c->lock);
    cat_view_unref(v);
    return rc;
}

static int mem_drop_view(catalog *c, const char *schema, const char *name, bool if_exists,
                         sqe_error *err) {
    pthread_mutex_lock(&c->lock);
    int rc = SQE_OK;
    cat_schema *s = find_schema(c, schema);
    int idx = s ? find_view_idx(s, name) : -1;
    cat_view *dropped = NULL;
    /* As Trino's DROP VIEW: a table of that name fails even with IF EXISTS; both errors are
     * GENERIC_USER_ERROR. */
    if (idx >= 0) {
        dropped = s->views[idx];
        memmove(&s->views[idx], &s->views[idx + 1],
                (s->n_views - (uint32_t)idx - 1) * sizeof(cat_view *));
        s->n_views--;
    } else if (s && find_table_idx(s, name) >= 0) {
        rc = err_set(err, SQE_ERR_GENERIC_USER_ERROR,
                     "View '%s.%s.%s' does not exist, but a table with that name exists. Did you "
                     "mean DROP TABLE %s.%s.%s?",
                     c->name, schema, name, c->name, schema, name);
    } else if (!if_exists) {
        rc = err_set(err, SQE_ERR_GENERIC_USER_ERROR, "View '%s.%s.%s' does not exist", c->name,
                     schema, name);
    }
    pthread_mutex_unlock(&c->lock);
    cat_view_unref(dropped);
    return rc;
}

static int mem_get_view(catalog *c, const char *schema, const char *name, cat_view **out,
                        sqe_error *err) {
    pthread_mutex_lock(&c->lock);
    int rc = SQE_OK;
    cat_schema *s = find_schema(c, schema);
    int idx = s ? find_view_idx(s, name) : -1;
    if (!s) {
        rc = err_set(err, SQE_ERR_SCHEMA_NOT_FOUND, "Schema '%s' does not exist", schema);
    } else if (idx < 0) {
        rc = err_set(err, SQE_ERR_TABLE_NOT_FOUND, "View '%s.%s.%s' does not exist", c->name,
                     schema, name);
    } else {
        *out = s->views[idx];
        cat_view_ref(*out);
    }
    pthread_mutex_unlock(&c->lock);
    return rc;
}


static const catalog_ops mem_catalog_ops = {
    .kind = CAT_KIND_MEMORY,
    .type = "memory",
    .destroy = mem_destroy,
    .list_schemas = mem_list_schemas,
    .has_schema = mem_has_schema,
    .create_schema = mem_create_schema,
    .drop_schema = mem_drop_schema,
    .list_tables = mem_list_tables,
    .get_table = mem_get_table,
    .create_table = mem_create_table,
    .drop_table = mem_drop_table,
    .create_view = mem_create_view,
    .drop_view = mem_drop_view,
    .get_view = mem_get_view,
};

int catalog_create(const char *name, mem_tracker *tracker, catalog **out, sqe_error *err) {
    catalog *c;
    SQE_TRY(catalog_open_ops(name, &mem_catalog_ops, NULL, tracker, &c, err));
    int rc = add_schema(c, "default", err);
    if (rc) {
        catalog_destroy(c);
        return rc;
    }
    *out = c;
    return SQE_OK;
}

void cat_append_init(cat_append *ap, cat_table *t) {
    memset(ap, 0, sizeof *ap);
    ap->table = t;
}

int cat_append_chunk(cat_append *ap, const vec_chunk *in, sqe_error *err) {
    cat_table *t = ap->table;
    if (!ap->stats) {
        ap->stats = calloc(t->n_columns ? t->n_columns : 1, sizeof(col_stats));
        if (!ap->stats) return err_nomem(err, "table statistics");
    }
    for (uint32_t c = 0; c < t->n_columns; c++) col_stats_add(&ap->stats[c], &in->cols[c], in->count);
    uint32_t done = 0;
    while (done < in->count) {
        vec_chunk *last = ap->n_chunks ? ap->chunks[ap->n_chunks - 1] : NULL;
        if (!last || last->count == last->capacity) {
            if (grow((void **)&ap->chunks, &ap->cap_chunks, ap->n_chunks + 1, sizeof(vec_chunk *)))
                return err_nomem(err, "table chunk list");
            last = calloc(1, sizeof *last);
            if (!last) return err_nomem(err, "table chunk");
            sqe_type types[t->n_columns ? t->n_columns : 1];
            for (uint32_t c = 0; c < t->n_columns; c++) types[c] = t->columns[c].type;
            int rc = vec_chunk_init(last, t->n_columns, types, VEC_CHUNK_SIZE, &t->data.tracker, err);
            if (rc) {
                vec_chunk_destroy(last);
                free(last);
                return rc;
            }
            ap->chunks[ap->n_chunks++] = last;
        }
        uint32_t take = in->count - done;
        if (take > last->capacity - last->count) take = last->capacity - last->count;
        for (uint32_t c = 0; c < t->n_columns; c++) {
            if (t->columns[c].not_null)
                for (uint32_t r = 0; r < take; r++)
                    if (vec_is_null(&in->cols[c], done + r))
                        return err_set(err, SQE_ERR_CONSTRAINT_VIOLATION,
                                       "NULL value not allowed for NOT NULL column: %s",
                                       t->columns[c].name);
            SQE_TRY(vec_copy_rows(&last->cols[c], last->count, &in->cols[c], done, take, err));
        }
        last->count += take;
        done += take;
        ap->n_rows += take;
    }
    return SQE_OK;
}

int cat_append_commit(cat_append *ap, sqe_error *err) {
    cat_table *t = ap->table;
    pthread_mutex_lock(&t->lock);
    if (grow((void **)&t->data.chunks, &t->data.cap_chunks, t->data.n_chunks + ap->n_chunks,
             sizeof(vec_chunk *))) {
        pthread_mutex_unlock(&t->lock);
        cat_append_abort(ap);
        return err_nomem(err, "table chunk list");
    }
    if (ap->n_chunks)
        memcpy(&t->data.chunks[t->data.n_chunks], ap->chunks, ap->n_chunks * sizeof(vec_chunk *));
    t->data.n_chunks += ap->n_chunks;
    t->data.n_rows += ap->n_rows;
    if (ap->stats)
        for (uint32_t c = 0; c < t->n_columns; c++) col_stats_merge(&t->stats[c], &ap->stats[c]);
    pthread_mutex_unlock(&t->lock);
    free(ap->stats);
    free(ap->chunks);
    memset(ap, 0, sizeof *ap);
    return SQE_OK;
}

void cat_append_abort(cat_append *ap) {
    free(ap->stats);
    for (uint32_t i = 0; i < ap->n_chunks; i++) {
        vec_chunk_destroy(ap->chunks[i]);
        free(ap->chunks[i]);
    }
    free(ap->chunks);
    memset(ap, 0, sizeof *ap);
}

void cat_table_truncate(cat_table *t) {
    pthread_mutex_lock(&t->lock);
    mem_table_data *live = &t->data, *old = &t->retired;
    if (grow((void **)&old->chunks, &old->cap_chunks, old->n_chunks + live->n_chunks,
             sizeof(vec_chunk *)) == 0) {
        if (live->n_chunks)
            memcpy(&old->chunks[old->n_chunks], live->chunks, live->n_chunks * sizeof(vec_chunk *));
        old->n_chunks += live->n_chunks;
        live->n_chunks = 0;
        live->n_rows = 0;
        for (uint32_t c = 0; c < t->n_columns; c++) col_stats_init(&t->stats[c]);
    }
    pthread_mutex_unlock(&t->lock);
}

int cat_table_snapshot(cat_table *t, cat_snapshot *out, sqe_error *err) {
    pthread_mutex_lock(&t->lock);
    out->n_chunks = t->data.n_chunks;
    out->n_rows = t->data.n_rows;
    out->chunks = malloc((out->n_chunks ? out->n_chunks : 1) * sizeof(vec_chunk *));
    if (out->chunks && out->n_chunks)
        memcpy(out->chunks, t->data.chunks, out->n_chunks * sizeof(vec_chunk *));
    pthread_mutex_unlock(&t->lock);
    if (!out->chunks) return err_nomem(err, "table snapshot");
    return SQE_OK;
}

void cat_snapshot_destroy(cat_snapshot *s) {
    free(s->chunks);
    s->chunks = NULL;
    s->n_chunks = 0;
}

double cat_table_column_ndv(cat_table *t, uint32_t col) {
    if (col >= t->n_columns) return 0;
    pthread_mutex_lock(&t->lock);
    double ndv = col_stats_ndv(&t->stats[col]);
    pthread_mutex_unlock(&t->lock);
    return ndv;
}
