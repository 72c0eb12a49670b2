/*
 * delete_index.c: the delete files of one scan, matched to data files and loaded on demand.
 *
 * INTERFACE: ice_delete_index_create / _add / _destroy / _count / _may_apply / _for_file,
 *            ice_file_deletes_release / _empty / _filter, ice_eq_delete_set_n_fields /
 *            _field_ids / _size / _contains
 * NOTES:
 *   - Spec: format/spec.md "Row-level Deletes", "Scan Planning" (rules in delete_index.h).
 *   - Lookup: every delete file sits in exactly one list of a hash map: by referenced data
 *     file path (DVs, position deletes with referenced_data_file), by (spec id, partition
 *     tuple) (the rest of a partitioned spec), or the global list (unpartitioned specs). A data
 *     file looks at its path's list, its partition's list and the global list.
 *   - Values (partition tuples, equality tuples) are compared through a canonical byte key:
 *     per value a null tag, then integers as int64, floats as double bits (NaN canonical),
 *     decimals as int128, strings and binaries as length + bytes, uuids as 16 bytes.
 *   - Loaded contents (bitmaps, equality hash sets) are malloc'ed per delete file under that
 *     file's mutex; the build-time records live in the index's arena (add is single-threaded).
 *   - Position delete files hold a path -> bitmap table of every data file they mention, so a
 *     file read for one data file serves all the others.
 */
#include "iceberg/delete_index.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/hash.h"
#include "format/parquet/pq_reader.h"
#include "iceberg/puffin.h"
#include "io/io.h"

/* ---- canonical value keys -------------------------------------------------------------------- */

typedef struct keybuf {
    uint8_t *p;
    size_t len, cap;
} keybuf;

static int kb_put(keybuf *k, const void *p, size_t n, sqe_error *err) {
    if (k->cap - k->len < n) {
        size_t c = k->cap ? k->cap : 64;
        while (c - k->len < n) c *= 2;
        uint8_t *q = realloc(k->p, c);
        if (!q) return err_nomem(err, "Iceberg delete keys");
        k->p = q;
        k->cap = c;
    }
    memcpy(k->p + k->len, p, n);
    k->len += n;
    return SQE_OK;
}

/* Appends the canonical key of row `row` of v (any shape). */
static int key_put(keybuf *k, const vec *v, uint32_t row, sqe_error *err) {
    uint32_t phys;
    const vec *f = vec_resolve(v, row, &phys);
    uint8_t tag = 0;
    if (!vec_is_valid_flat(f, phys) || f->type.id == TYPE_UNKNOWN) return kb_put(k, &tag, 1, err);
    tag = 1;
    SQE_TRY(kb_put(k, &tag, 1, err));
    int64_t i64;
    switch ((type_id)f->type.id) {
    case TYPE_BOOLEAN: return kb_put(k, &VEC_DATA(f, uint8_t)[phys], 1, err);
    case TYPE_TINYINT: i64 = VEC_DATA(f, int8_t)[phys]; break;
    case TYPE_SMALLINT: i64 = VEC_DATA(f, int16_t)[phys]; break;
    case TYPE_INTEGER:
    case TYPE_DATE:
    case TYPE_INTERVAL_YM: i64 = VEC_DATA(f, int32_t)[phys]; break;
    case TYPE_BIGINT:
    case TYPE_TIME:
    case TYPE_TIMESTAMP:
    case TYPE_INTERVAL_DS: i64 = VEC_DATA(f, int64_t)[phys]; break;
    case TYPE_TIMESTAMP_TZ: i64 = VEC_DATA(f, sqe_timestamp_tz)[phys].micros; break;
    case TYPE_REAL:
    case TYPE_DOUBLE: {
        double d = f->type.id == TYPE_REAL ? (double)VEC_DATA(f, float)[phys]
                                           : VEC_DATA(f, double)[phys];
        if (d != d) d = __builtin_nan("");
        return kb_put(k, &d, sizeof d, err);
    }
    case TYPE_DECIMAL: {
        int128 x = type_decimal_is_long(f->type) ? VEC_DATA(f, int128)[phys]
                                                 : (int128)VEC_DATA(f, int64_t)[phys];
        return kb_put(k, &x, sizeof x, err);
    }
    case TYPE_VARCHAR:
    case TYPE_CHAR:
    case TYPE_VARBINARY:
    case TYPE_JSON: {
        const sqe_str *s = &VEC_DATA(f, sqe_str)[phys];
        SQE_TRY(kb_put(k, &s->len, 4, err));
        return kb_put(k, sqe_str_data(s), s->len, err);
    }
    case TYPE_UUID: return kb_put(k, (const uint8_t *)f->data + 16 * (size_t)phys, 16, err);
    default: {
        char name[64];
        type_format(f->type, name, sizeof name);
        return err_set(err, SQE_ERR_NOT_SUPPORTED,
                       "unsupported: Iceberg equality deletes or partitions on type %s", name);
    }
    }
    return kb_put(k, &i64, sizeof i64, err);
}

/* Key of a data file's partition: "S" + spec id + values. */
static int partition_key(keybuf *k, const ice_data_file *df, sqe_error *err) {
    k->len = 0;
    uint8_t c = 'S';
    SQE_TRY(kb_put(k, &c, 1, err));
    SQE_TRY(kb_put(k, &df->spec_id, 4, err));
    for (uint32_t i = 0; i < df->n_partition; i++)
        SQE_TRY(key_put(k, &df->partition[i], df->partition_row, err));
    return SQE_OK;
}

static int path_key(keybuf *k, const char *path, sqe_error *err) {
    k->len = 0;
    uint8_t c = 'P';
    SQE_TRY(kb_put(k, &c, 1, err));
    return kb_put(k, path, strlen(path), err);
}

/* ---- byte-key hash set (equality sets) and map (index lists, path -> bitmap) ------------------ */

typedef struct bytes_table {
    uint64_t *hashes;
    size_t *offs;    /* slot -> offset + 1 of [u32 len][bytes] in data; 0 = empty */
    uint32_t *vals;  /* slot -> value (map use) */
    size_t cap, n;   /* cap: power of two */
    uint8_t *data;
    size_t data_len, data_cap;
} bytes_table;

static void bt_free(bytes_table *t) {
    free(t->hashes);
    free(t->offs);
    free(t->vals);
    free(t->data);
    memset(t, 0, sizeof *t);
}

static const uint8_t *bt_key(const bytes_table *t, size_t slot, uint32_t *len) {
    const uint8_t *p = t->data + t->offs[slot] - 1;
    memcpy(len, p, 4);
    return p + 4;
}

/* Slot of key (found) or of the empty slot where it would go. */
static size_t bt_find(const bytes_table *t, const uint8_t *key, uint32_t len, uint64_t h,
                      bool *found) {
    size_t mask = t->cap - 1, i = h & mask;
    for (;; i = (i + 1) & mask) {
        if (!t->offs[i]) {
            *found = false;
            return i;
        }
        uint32_t l;
        const uint8_t *p = bt_key(t, i, &l);
        if (t->hashes[i] == h && l == len && memcmp(p, key, len) == 0) {
            *found = true;
            return i;
        }
    }
}

static int bt_grow(bytes_table *t, sqe_error *err) {
    size_t cap = t->cap ? t->cap * 2 : 64;
    uint64_t *h = calloc(cap, sizeof *h);
    size_t *o = calloc(cap, sizeof *o);
    uint32_t *v = calloc(cap, sizeof *v);
    if (!h || !o || !v) {
        free(h);
        free(o);
        free(v);
        return err_nomem(err, "Iceberg delete index");
    }
    for (size_t i = 0; i < t->cap; i++) {
        if (!t->offs[i]) continue;
        size_t j = t->hashes[i] & (cap - 1);
        while (o[j]) j = (j + 1) & (cap - 1);
        h[j] = t->hashes[i];
        o[j] = t->offs[i];
        v[j] = t->vals[i];
    }
    free(t->hashes);
    free(t->offs);
    free(t->vals);
    t->hashes = h;
    t->offs = o;
    t->vals = v;
    t->cap = cap;
    return SQE_OK;
}

/* Inserts key (if new: with value val). *slot receives its slot, *added whether it was new. */
static int bt_insert(bytes_table *t, const uint8_t *key, uint32_t len, uint32_t val, size_t *slot,
                     bool *added, sqe_error *err) {
    if ((t->n + 1) * 4 > t->cap * 3) SQE_TRY(bt_grow(t, err));
    uint64_t h = hash_bytes(key, len);
    bool found;
    size_t i = bt_find(t, key, len, h, &found);
    *slot = i;
    *added = !found;
    if (found) return SQE_OK;
    size_t need = 4 + (size_t)len;
    if (t->data_cap - t->data_len < need) {
        size_t c = t->data_cap ? t->data_cap : 1024;
        while (c - t->data_len < need) c *= 2;
        uint8_t *q = realloc(t->data, c);
        if (!q) return err_nomem(err, "Iceberg delete index");
        t->data = q;
        t->data_cap = c;
    }
    memcpy(t->data + t->data_len, &len, 4);
    memcpy(t->data + t->data_len + 4, key, len);
    t->hashes[i] = h;
    t->offs[i] = t->data_len + 1;
    t->vals[i] = val;
    t->data_len += need;
    t->n++;
    return SQE_OK;
}

static bool bt_lookup(const bytes_table *t, const uint8_t *key, uint32_t len, size_t *slot) {
    if (!t->n) return false;
    bool found;
    *slot = bt_find(t, key, len, hash_bytes(key, len), &found);
    return found;
}

/* ---- the index ------------------------------------------------------------------------------- */

struct ice_eq_delete_set {
    uint32_t n_fields;
    int32_t *field_ids;
    bytes_table rows;
};

enum { LOAD_NONE = 0, LOAD_OK, LOAD_FAILED };

typedef struct del_file {
    ice_file_content content;
    bool is_dv;
    bool is_parquet;
    const char *path;
    const char *format;
    int64_t seq;
    const char *ref;              /* referenced_data_file or NULL */
    bool has_lower, has_upper;    /* file_path bounds of a position delete file */
    ice_bytes lower, upper;
    int64_t content_offset, content_size;
    uint32_t n_eq;
    int32_t *eq_ids;
    pthread_mutex_t mu;
    int state;
    sqe_error error;
    /* loaded */
    bytes_table paths;            /* position deletes: path -> index into bitmaps */
    ice_roaring *bitmaps;         /* position deletes: one per path; DV: [0] */
    uint32_t n_bitmaps;
    ice_eq_delete_set *eq;
} del_file;

typedef struct id_list {
    uint32_t n, cap;
    uint32_t *ids;
} id_list;

struct ice_delete_index {
    const ice_metadata *m;
    arena a;
    del_file **files;
    uint32_t n_files, cap_files;
    bytes_table groups;   /* key -> index into lists */
    id_list *lists;
    uint32_t n_lists, cap_lists;
    id_list global;
};

int ice_delete_index_create(const ice_metadata *m, ice_delete_index **out, sqe_error *err) {
    *out = NULL;
    ice_delete_index *idx = calloc(1, sizeof *idx);
    if (!idx) return err_nomem(err, "Iceberg delete index");
    idx->m = m;
    arena_init(&idx->a, NULL);
    *out = idx;
    return SQE_OK;
}

uint32_t ice_delete_index_count(const ice_delete_index *idx) { return idx->n_files; }

static void file_unload(del_file *f) {
    bt_free(&f->paths);
    for (uint32_t i = 0; i < f->n_bitmaps; i++) ice_roaring_reset(&f->bitmaps[i]);
    free(f->bitmaps);
    f->bitmaps = NULL;
    f->n_bitmaps = 0;
    if (f->eq) {
        bt_free(&f->eq->rows);
        free(f->eq->field_ids);
        free(f->eq);
        f->eq = NULL;
    }
}

void ice_delete_index_destroy(ice_delete_index *idx) {
    if (!idx) return;
    for (uint32_t i = 0; i < idx->n_files; i++) {
        file_unload(idx->files[i]);
        pthread_mutex_destroy(&idx->files[i]->mu);
    }
    for (uint32_t i = 0; i < idx->n_lists; i++) free(idx->lists[i].ids);
    free(idx->lists);
    free(idx->global.ids);
    free(idx->files);
    bt_free(&idx->groups);
    arena_destroy(&idx->a);
    free(idx);
}

static int list_push(id_list *l, uint32_t id, sqe_error *err) {
    if (l->n == l->cap) {
        uint32_t c = l->cap ? l->cap * 2 : 4;
        uint32_t *q = realloc(l->ids, c * sizeof *q);
        if (!q) return err_nomem(err, "Iceberg delete index");
        l->ids = q;
        l->cap = c;
    }
    l->ids[l->n++] = id;
    return SQE_OK;
}

static const ice_bound *find_bound(const ice_bounds *b, int32_t id) {
    if (!b->present) return NULL;
    for (uint32_t i = 0; i < b->n; i++)
        if (b->items[i].field_id == id) return &b->items[i];
    return NULL;
}

static int64_t entry_seq(const ice_manifest_entry *e) {
    return e->has_sequence_number ? e->sequence_number : 0;
}

static int copy_bytes(arena *a, const ice_bytes *src, ice_bytes *dst) {
    dst->len = src->len;
    dst->data = src->len ? arena_memdup(a, src->data, src->len) : NULL;
    return (src->len && !dst->data) ? -1 : 0;
}

int ice_delete_index_add(ice_delete_index *idx, const ice_manifest_entry *e, sqe_error *err) {
    const ice_data_file *df = &e->file;
    if (e->status == ICE_STATUS_DELETED) return SQE_OK;
    if (df->content == ICE_CONTENT_DATA)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                       "ice_delete_index_add: %s is a data file, not a delete file",
                       df->file_path ? df->file_path : "?");
    bool is_dv = df->file_format && strcasecmp(df->file_format, "PUFFIN") == 0;
    if (is_dv && df->content != ICE_CONTENT_POSITION_DELETES)
        return err_set(err, SQE_ERR_INVALID_FILE,
                       "Invalid Iceberg manifest: Puffin delete file %s is not a position delete",
                       df->file_path);
    if (is_dv && (!df->referenced_data_file || !df->has_content_offset ||
                  !df->has_content_size_in_bytes))
        return err_set(err, SQE_ERR_INVALID_FILE,
                       "Invalid Iceberg manifest: deletion vector %s lacks referenced_data_file, "
                       "content_offset or content_size_in_bytes",
                       df->file_path);
    if (df->content == ICE_CONTENT_EQUALITY_DELETES && (!df->has_equality_ids || !df->n_equality_ids))
        return err_set(err, SQE_ERR_INVALID_FILE,
                       "Invalid Iceberg manifest: equality delete file %s has no equality_ids",
                       df->file_path);
    keybuf k = {0};
    int rc = SQE_OK;
    bool global = false;
    if (is_dv || (df->content == ICE_CONTENT_POSITION_DELETES && df->referenced_data_file))
        rc = path_key(&k, df->referenced_data_file, err);
    else if (df->n_partition == 0)
        global = true;
    else
        rc = partition_key(&k, df, err);
    if (rc) {
        free(k.p);
        return rc;
    }
    arena *a = &idx->a;
    del_file *f = ARENA_NEW(a, del_file);
    bool ok = f != NULL;
    if (ok) {
        f->content = df->content;
        f->is_dv = is_dv;
        f->path = arena_strdup(a, df->file_path ? df->file_path : "");
        f->format = arena_strdup(a, df->file_format ? df->file_format : "");
        f->is_parquet = df->file_format && strcasecmp(df->file_format, "PARQUET") == 0;
        f->seq = entry_seq(e);
        f->ref = df->referenced_data_file ? arena_strdup(a, df->referenced_data_file) : NULL;
        f->content_offset = df->content_offset;
        f->content_size = df->content_size_in_bytes;
        ok = f->path && f->format && (!df->referenced_data_file || f->ref);
    }
    if (ok && df->content == ICE_CONTENT_POSITION_DELETES && !is_dv) {
        const ice_bound *lo = find_bound(&df->lower_bounds, ICE_FIELD_ID_FILE_PATH);
        const ice_bound *hi = find_bound(&df->upper_bounds, ICE_FIELD_ID_FILE_PATH);
        if (lo) ok = copy_bytes(a, &lo->raw, &f->lower) == 0, f->has_lower = true;
        if (ok && hi) ok = copy_bytes(a, &hi->raw, &f->upper) == 0, f->has_upper = true;
    }
    if (ok && df->content == ICE_CONTENT_EQUALITY_DELETES) {
        f->n_eq = df->n_equality_ids;
        f->eq_ids = arena_memdup(a, df->equality_ids, sizeof(int32_t) * f->n_eq);
        ok = f->eq_ids != NULL;
    }
    if (ok && idx->n_files == idx->cap_files) {
        uint32_t c = idx->cap_files ? idx->cap_files * 2 : 16;
        del_file **q = realloc(idx->files, c * sizeof *q);
        ok = q != NULL;
        if (ok) {
            idx->files = q;
            idx->cap_files = c;
        }
    }
    if (!ok) {
        free(k.p);
        return err_nomem(err, "Iceberg delete index");
    }
    uint32_t id = idx->n_files;
    if (global) {
        rc = list_push(&idx->global, id, err);
    } else {
        size_t slot;
        bool added;
        if (idx->n_lists == idx->cap_lists) {
            uint32_t c = idx->cap_lists ? idx->cap_lists * 2 : 16;
            id_list *q = realloc(idx->lists, c * sizeof *q);
            if (!q) rc = err_nomem(err, "Iceberg delete index");
            else {
                idx->lists = q;
                idx->cap_lists = c;
            }
        }
        if (!rc) rc = bt_insert(&idx->groups, k.p, (uint32_t)k.len, idx->n_lists, &slot, &added, err);
        if (!rc && added) idx->lists[idx->n_lists++] = (id_list){0};
        if (!rc) rc = list_push(&idx->lists[idx->groups.vals[slot]], id, err);
    }
    free(k.p);
    if (rc) return rc;
    pthread_mutex_init(&f->mu, NULL);
    idx->files[idx->n_files++] = f;
    return SQE_OK;
}

/* ---- applicability ----------------------------------------------------------------------------- */

static bool path_in_bounds(const del_file *f, const char *path) {
    size_t n = strlen(path);
    if (f->has_lower) {
        size_t m = f->lower.len < n ? f->lower.len : n;
        int c = m ? memcmp(path, f->lower.data, m) : 0;
        if (c < 0 || (c == 0 && n < f->lower.len)) return false;
    }
    if (f->has_upper) {
        size_t m = f->upper.len < n ? f->upper.len : n;
        int c = m ? memcmp(path, f->upper.data, m) : 0;
        if (c > 0 || (c == 0 && n > f->upper.len)) return false;
    }
    return true;
}

/* Whether f applies to the data file (path, seq); has_dv: a DV applies (drops position files). */
static bool applies(const del_file *f, const char *path, int64_t seq, bool has_dv) {
    if (f->is_dv) return strcmp(f->ref, path) == 0 && seq <= f->seq;
    if (f->content == ICE_CONTENT_EQUALITY_DELETES) return seq < f->seq;
    if (has_dv || seq > f->seq) return false;
    if (f->ref && strcmp(f->ref, path) != 0) return false;
    return path_in_bounds(f, path);
}

/* The (up to 3) candidate lists of a data file. Returns how many; fails only on OOM/types. */
static int candidates(const ice_delete_index *idx, const ice_data_file *df, const id_list **out,
                      uint32_t *n, sqe_error *err) {
    *n = 0;
    keybuf k = {0};
    size_t slot;
    int rc = path_key(&k, df->file_path, err);
    if (!rc && bt_lookup(&idx->groups, k.p, (uint32_t)k.len, &slot))
        out[(*n)++] = &idx->lists[idx->groups.vals[slot]];
    if (!rc && df->n_partition) {
        rc = partition_key(&k, df, err);
        if (!rc && bt_lookup(&idx->groups, k.p, (uint32_t)k.len, &slot))
            out[(*n)++] = &idx->lists[idx->groups.vals[slot]];
    }
    if (idx->global.n) out[(*n)++] = &idx->global;
    free(k.p);
    return rc;
}

static bool any_dv(const ice_delete_index *idx, const id_list *const *lists, uint32_t n,
                   const char *path, int64_t seq) {
    for (uint32_t l = 0; l < n; l++)
        for (uint32_t i = 0; i < lists[l]->n; i++) {
            const del_file *f = idx->files[lists[l]->ids[i]];
            if (f->is_dv && applies(f, path, seq, false)) return true;
        }
    return false;
}

bool ice_delete_index_may_apply(const ice_delete_index *idx, const ice_manifest_entry *data) {
    if (!idx->n_files) return false;
    const id_list *lists[3];
    uint32_t n;
    /* On an error (out of memory, odd partition types) say "maybe": for_file reports it. */
    if (candidates(idx, &data->file, lists, &n, NULL)) return true;
    const char *path = data->file.file_path;
    int64_t seq = entry_seq(data);
    bool dv = any_dv(idx, lists, n, path, seq);
    for (uint32_t l = 0; l < n; l++)
        for (uint32_t i = 0; i < lists[l]->n; i++)
            if (applies(idx->files[lists[l]->ids[i]], path, seq, dv)) return true;
    return false;
}

/* ---- loading ----------------------------------------------------------------------------------- */

static int load_fail(const del_file *f, int rc, sqe_error *err) {
    if (rc != SQE_ERR_OUT_OF_MEMORY) err_prefix(err, "Iceberg delete file %s", f->path);
    return rc;
}

/* Top-level column of pf with field id id, else named name (may be NULL); -1 if none. */
static int64_t find_column(const pq_file *pf, int32_t id, const char *name) {
    for (uint32_t i = 0; i < pf->schema->n_columns; i++)
        if (pf->schema->columns[i]->has_field_id && pf->schema->columns[i]->field_id == id)
            return i;
    for (uint32_t i = 0; name && i < pf->schema->n_columns; i++)
        if (!pf->schema->columns[i]->has_field_id && strcmp(pf->schema->columns[i]->name, name) == 0)
            return i;
    return -1;
}

typedef int (*row_fn)(del_file *f, const vec_chunk *c, sqe_error *err);

/* Reads columns cols[0..n) of every row group of the Parquet file of f, calling fn per chunk. */
static int read_parquet(del_file *f, pq_file *pf, const uint32_t *cols, uint32_t n, row_fn fn,
                        sqe_error *err) {
    sqe_type types[64];
    for (uint32_t i = 0; i < n; i++) {
        const pq_node *node = pf->schema->columns[cols[i]];
        if (node->unsupported)
            return err_set(err, SQE_ERR_NOT_SUPPORTED, "unsupported: column %s: %s", node->name,
                           node->unsupported);
        types[i] = node->type;
    }
    vec_chunk c;
    int rc = vec_chunk_init(&c, n, types, VEC_CHUNK_SIZE, NULL, err);
    for (uint32_t g = 0; !rc && g < pf->meta->n_row_groups; g++) {
        pq_rg_reader *r = NULL;
        rc = pq_rg_open(pf, g, cols, n, NULL, 0, NULL, &r, err);
        while (!rc) {
            vec_chunk_reset(&c);
            rc = pq_rg_next(r, &c, err);
            if (rc || c.count == 0) break;
            rc = fn(f, &c, err);
        }
        pq_rg_close(r);
    }
    vec_chunk_destroy(&c);
    return rc;
}

static int pos_rows(del_file *f, const vec_chunk *c, sqe_error *err) {
    const vec *pv = &c->cols[0], *sv = &c->cols[1];
    ice_roaring *cur = NULL;
    const char *cur_p = NULL;
    uint32_t cur_len = 0;
    for (uint32_t r = 0; r < c->count; r++) {
        uint32_t pp, sp;
        const vec *pf = vec_resolve(pv, r, &pp), *sf = vec_resolve(sv, r, &sp);
        if (!vec_is_valid_flat(pf, pp) || !vec_is_valid_flat(sf, sp))
            return err_set(err, SQE_ERR_INVALID_FILE, "NULL file_path or pos");
        const sqe_str *s = &VEC_DATA(pf, sqe_str)[pp];
        int64_t pos = sf->type.id == TYPE_BIGINT ? VEC_DATA(sf, int64_t)[sp]
                                                 : VEC_DATA(sf, int32_t)[sp];
        if (pos < 0) return err_set(err, SQE_ERR_INVALID_FILE, "negative pos %lld", (long long)pos);
        const char *p = sqe_str_data(s);
        if (!cur || s->len != cur_len || memcmp(p, cur_p, cur_len) != 0) {
            size_t slot;
            bool added;
            SQE_TRY(bt_insert(&f->paths, (const uint8_t *)p, s->len, f->n_bitmaps, &slot, &added,
                              err));
            if (added) {
                ice_roaring *q = realloc(f->bitmaps, (f->n_bitmaps + 1) * sizeof *q);
                if (!q) return err_nomem(err, "Iceberg position deletes");
                f->bitmaps = q;
                ice_roaring_init(&f->bitmaps[f->n_bitmaps++]);
            }
            cur = &f->bitmaps[f->paths.vals[slot]];
            uint32_t l;
            cur_p = (const char *)bt_key(&f->paths, slot, &l);
            cur_len = l;
        }
        SQE_TRY(ice_roaring_add(cur, (uint64_t)pos, err));
    }
    return SQE_OK;
}

static int eq_rows(del_file *f, const vec_chunk *c, sqe_error *err) {
    keybuf k = {0};
    int rc = SQE_OK;
    for (uint32_t r = 0; !rc && r < c->count; r++) {
        k.len = 0;
        for (uint32_t i = 0; !rc && i < c->n_cols; i++) rc = key_put(&k, &c->cols[i], r, err);
        size_t slot;
        bool added;
        if (!rc) rc = bt_insert(&f->eq->rows, k.p, (uint32_t)k.len, 0, &slot, &added, err);
    }
    free(k.p);
    return rc;
}

static int load_parquet(const ice_delete_index *idx, del_file *f, sqe_error *err) {
    pq_file *pf;
    SQE_TRY(pq_file_open_as(f->path, idx->m ? idx->m->io : NULL, &pf, err));
    uint32_t cols[64];
    int rc = SQE_OK;
    if (f->content == ICE_CONTENT_POSITION_DELETES) {
        int64_t cp = find_column(pf, ICE_FIELD_ID_FILE_PATH, "file_path");
        int64_t cs = find_column(pf, ICE_FIELD_ID_POS, "pos");
        if (cp < 0 || cs < 0) {
            rc = err_set(err, SQE_ERR_INVALID_FILE, "no %s column (field id %d)",
                         cp < 0 ? "file_path" : "pos",
                         cp < 0 ? ICE_FIELD_ID_FILE_PATH : ICE_FIELD_ID_POS);
        } else {
            sqe_type tp = pf->schema->columns[cp]->type, ts = pf->schema->columns[cs]->type;
            if (!type_is_string_view(tp) || (ts.id != TYPE_BIGINT && ts.id != TYPE_INTEGER))
                rc = err_set(err, SQE_ERR_INVALID_FILE, "file_path or pos has the wrong type");
        }
        if (!rc) {
            cols[0] = (uint32_t)cp;
            cols[1] = (uint32_t)cs;
            rc = read_parquet(f, pf, cols, 2, pos_rows, err);
        }
    } else {
        if (f->n_eq > 64) rc = err_set(err, SQE_ERR_NOT_SUPPORTED, "unsupported: more than 64 equality ids");
        const ice_schema *schema = idx->m ? ice_metadata_current_schema(idx->m) : NULL;
        for (uint32_t i = 0; !rc && i < f->n_eq; i++) {
            const ice_field *fd = schema ? ice_schema_find_field(schema, f->eq_ids[i]) : NULL;
            int64_t ci = find_column(pf, f->eq_ids[i], fd ? fd->name : NULL);
            if (ci < 0) {
                rc = err_set(err, SQE_ERR_INVALID_FILE,
                             "no top-level column with field id %d (nested equality fields are "
                             "not supported)",
                             f->eq_ids[i]);
            } else {
                cols[i] = (uint32_t)ci;
            }
        }
        if (!rc) {
            f->eq = calloc(1, sizeof *f->eq);
            if (f->eq) f->eq->field_ids = malloc(sizeof(int32_t) * f->n_eq);
            if (!f->eq || !f->eq->field_ids) rc = err_nomem(err, "Iceberg equality deletes");
        }
        if (!rc) {
            memcpy(f->eq->field_ids, f->eq_ids, sizeof(int32_t) * f->n_eq);
            f->eq->n_fields = f->n_eq;
            rc = read_parquet(f, pf, cols, f->n_eq, eq_rows, err);
        }
    }
    pq_file_release(pf);
    return rc;
}

static int load_dv(const ice_delete_index *idx, del_file *f, sqe_error *err) {
    io_file *io;
    SQE_TRY(io_open_as(f->path, idx->m ? idx->m->io : NULL, &io, err));
    f->bitmaps = malloc(sizeof *f->bitmaps);
    int rc = f->bitmaps ? SQE_OK : err_nomem(err, "deletion vector");
    if (!rc) {
        ice_roaring_init(&f->bitmaps[0]);
        f->n_bitmaps = 1;
        rc = ice_dv_read(io, f->content_offset, f->content_size, &f->bitmaps[0], err);
    }
    io_close(io);
    return rc;
}

/* Loads f once; later callers get the same result (or the remembered error). */
static int ensure_loaded(const ice_delete_index *idx, del_file *f, sqe_error *err) {
    pthread_mutex_lock(&f->mu);
    int rc = SQE_OK;
    if (f->state == LOAD_NONE) {
        sqe_error e;
        err_clear(&e);
        if (f->is_dv) rc = load_dv(idx, f, &e);
        else if (f->is_parquet) rc = load_parquet(idx, f, &e);
        else
            rc = err_set(&e, SQE_ERR_NOT_SUPPORTED, "unsupported: %s delete files", f->format);
        if (rc) {
            load_fail(f, rc, &e);
            file_unload(f);
            f->error = e;
            f->state = LOAD_FAILED;
        } else {
            f->state = LOAD_OK;
        }
    }
    if (f->state == LOAD_FAILED) {
        rc = f->error.code ? f->error.code : SQE_ERR_GENERIC_INTERNAL_ERROR;
        if (err) *err = f->error;
    }
    pthread_mutex_unlock(&f->mu);
    return rc;
}

/* ---- per data file ----------------------------------------------------------------------------- */

void ice_file_deletes_release(ice_file_deletes *d) {
    ice_roaring_reset(&d->merged_);
    free(d->eq_buf_);
    memset(d, 0, sizeof *d);
}

bool ice_file_deletes_empty(const ice_file_deletes *d) {
    return (!d->positions || ice_roaring_cardinality(d->positions) == 0) && d->n_eq == 0;
}

static int add_positions(ice_file_deletes *out, const ice_roaring *bm, sqe_error *err) {
    if (!bm || !ice_roaring_cardinality(bm)) return SQE_OK;
    if (!out->positions) {
        out->positions = bm;
        return SQE_OK;
    }
    if (out->positions != &out->merged_) {
        SQE_TRY(ice_roaring_add_all(&out->merged_, out->positions, err));
        out->positions = &out->merged_;
    }
    return ice_roaring_add_all(&out->merged_, bm, err);
}

int ice_delete_index_for_file(ice_delete_index *idx, const ice_manifest_entry *data,
                              ice_file_deletes *out, sqe_error *err) {
    memset(out, 0, sizeof *out);
    ice_roaring_init(&out->merged_);
    if (!idx->n_files) return SQE_OK;
    const id_list *lists[3];
    uint32_t n;
    SQE_TRY(candidates(idx, &data->file, lists, &n, err));
    const char *path = data->file.file_path;
    int64_t seq = entry_seq(data);
    bool dv = any_dv(idx, lists, n, path, seq);
    uint32_t n_eq = 0;
    int rc = SQE_OK;
    for (uint32_t l = 0; !rc && l < n; l++)
        for (uint32_t i = 0; !rc && i < lists[l]->n; i++) {
            del_file *f = idx->files[lists[l]->ids[i]];
            if (!applies(f, path, seq, dv)) continue;
            rc = ensure_loaded(idx, f, err);
            if (rc) break;
            if (f->content == ICE_CONTENT_EQUALITY_DELETES) {
                const ice_eq_delete_set **q = realloc(out->eq_buf_, (n_eq + 1) * sizeof *q);
                if (!q) {
                    rc = err_nomem(err, "Iceberg delete index");
                    break;
                }
                q[n_eq++] = f->eq;
                out->eq_buf_ = q;
            } else if (f->is_dv) {
                rc = add_positions(out, &f->bitmaps[0], err);
            } else {
                size_t slot;
                if (bt_lookup(&f->paths, (const uint8_t *)path, (uint32_t)strlen(path), &slot))
                    rc = add_positions(out, &f->bitmaps[f->paths.vals[slot]], err);
            }
        }
    if (rc) {
        ice_file_deletes_release(out);
        return rc;
    }
    out->n_eq = n_eq;
    out->eq = out->eq_buf_;
    return SQE_OK;
}

/* ---- equality sets and filtering ---------------------------------------------------------------- */

uint32_t ice_eq_delete_set_n_fields(const ice_eq_delete_set *s) { return s->n_fields; }
const int32_t *ice_eq_delete_set_field_ids(const ice_eq_delete_set *s) { return s->field_ids; }
uint64_t ice_eq_delete_set_size(const ice_eq_delete_set *s) { return s->rows.n; }

static int eq_probe(const ice_eq_delete_set *s, keybuf *k, const vec *const *cols, uint32_t row,
                    bool *found, sqe_error *err) {
    k->len = 0;
    for (uint32_t i = 0; i < s->n_fields; i++) SQE_TRY(key_put(k, cols[i], row, err));
    size_t slot;
    *found = bt_lookup(&s->rows, k->p, (uint32_t)k->len, &slot);
    return SQE_OK;
}

int ice_eq_delete_set_contains(const ice_eq_delete_set *s, const vec *const *cols, uint32_t row,
                               bool *found, sqe_error *err) {
    keybuf k = {0};
    int rc = eq_probe(s, &k, cols, row, found, err);
    free(k.p);
    return rc;
}

int ice_file_deletes_filter(const ice_file_deletes *d, const vec_chunk *chunk, int64_t first_pos,
                            const uint32_t *const *eq_cols, uint32_t *sel, uint32_t *n_sel,
                            sqe_error *err) {
    *n_sel = 0;
    uint32_t count = chunk->count, n = 0;
    if (first_pos < 0)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "negative first row position");
    /* Deleted positions in [first_pos, first_pos + count): walk the bitmap from first_pos. */
    ice_roaring_iter it;
    uint64_t buf[256];
    uint32_t nb = 0, bi = 0;
    if (d->positions) {
        ice_roaring_iter_init(&it, d->positions);
        ice_roaring_iter_seek(&it, (uint64_t)first_pos);
        nb = ice_roaring_iter_next(&it, buf, 256);
    }
    for (uint32_t r = 0; r < count; r++) {
        uint64_t pos = (uint64_t)first_pos + r;
        while (bi < nb && buf[bi] < pos) {
            if (++bi == nb) {
                nb = ice_roaring_iter_next(&it, buf, 256);
                bi = 0;
            }
        }
        if (bi < nb && buf[bi] == pos) continue;
        sel[n++] = r;
    }
    if (d->n_eq) {
        const vec *cols[64];
        keybuf k = {0};
        int rc = SQE_OK;
        for (uint32_t s = 0; !rc && s < d->n_eq; s++) {
            const ice_eq_delete_set *set = d->eq[s];
            if (set->n_fields > 64) rc = err_set(err, SQE_ERR_NOT_SUPPORTED, "unsupported: more than 64 equality ids");
            for (uint32_t i = 0; !rc && i < set->n_fields; i++) {
                if (!eq_cols || eq_cols[s][i] >= chunk->n_cols)
                    rc = err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                                 "equality delete column for field id %d outside the chunk",
                                 set->field_ids[i]);
                else
                    cols[i] = &chunk->cols[eq_cols[s][i]];
            }
            uint32_t kept = 0;
            for (uint32_t j = 0; !rc && j < n; j++) {
                bool found;
                rc = eq_probe(set, &k, cols, sel[j], &found, err);
                if (!rc && !found) sel[kept++] = sel[j];
            }
            if (!rc) n = kept;
        }
        free(k.p);
        if (rc) return rc;
    }
    *n_sel = n;
    return SQE_OK;
}
