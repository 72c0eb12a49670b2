/*
 * data_writer.c: the Iceberg data-file writer (see data_writer.h): write options from table
 * properties, partition routing, one Parquet writer per open partition file, rolling at the
 * target size, the open-file cap and memory budget, and the data file records.
 *
 * INTERFACE
 *   ice_metrics_mode_parse, ice_write_options_from_properties, ice_write_data_dir
 *   ice_data_writer_open, ice_data_writer_write, ice_data_writer_rows,
 *   ice_data_writer_finish, ice_data_writer_abort
 * NOTES
 *   - Schema: the Parquet schema is the Iceberg schema: every node (columns, struct fields,
 *     list elements, map keys and values) carries its field id and is REQUIRED when the field
 *     is (pq_field_info, pre-order), lists and maps in the standard 3-level layout.
 *   - Routing: per chunk, each partition field's source column (top level, or a struct field
 *     reached through structs, gathered into a flat vector) goes through ice_transform_apply;
 *     each row's tuple is serialized into a key (NULL flag + value bytes) and looked up in an
 *     open-addressing table of partitions. Each partition's rows of the chunk are handed to its
 *     Parquet writer as a dictionary view of the chunk (no copy). A partition remembers its
 *     tuple (1-row arena vectors in the caller's arena, shared by its files) and directory.
 *   - Rolling: after each write, a file whose estimated size (pq_writer_estimated_size) reaches
 *     the target is closed; the next rows of its partition open a new file.
 *   - NaN counts of float/double leaves are counted on the routed rows (the footer has none).
 *   - File names: "%05u-<uuid>.parquet", the counter running over the writer's files, the
 *     uuid (version 4) drawn once per writer.
 *   - Object stores: a file of an "s3://" data_dir is written to a staging file (stage.h) and
 *     uploaded as o.io when it closes, before it is recorded; abort deletes recorded files
 *     there with the same identity.
 */
#include "iceberg/data_writer.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "format/parquet/pq_codec.h"
#include "format/parquet/pq_meta.h"
#include "iceberg/data_writer_int.h"
#include "iceberg/stage.h"

/* ---- options --------------------------------------------------------------------------------- */

int ice_metrics_mode_parse(const char *text, ice_metrics_mode *out, sqe_error *err) {
    char buf[64];
    size_t n = 0;
    for (const char *p = text ? text : ""; *p && n < sizeof buf - 1; p++)
        if (*p != ' ' && *p != '\t') buf[n++] = (char)((*p >= 'A' && *p <= 'Z') ? *p + 32 : *p);
    buf[n] = 0;
    if (!strcmp(buf, "none")) *out = (ice_metrics_mode){ICE_METRICS_NONE, 0};
    else if (!strcmp(buf, "counts")) *out = (ice_metrics_mode){ICE_METRICS_COUNTS, 0};
    else if (!strcmp(buf, "full")) *out = (ice_metrics_mode){ICE_METRICS_FULL, 0};
    else {
        char *end = NULL;
        long len = 0;
        if (!strncmp(buf, "truncate(", 9)) {
            errno = 0;
            len = strtol(buf + 9, &end, 10);
        }
        if (!end || end == buf + 9 || strcmp(end, ")") || errno || len < 1 || len > INT32_MAX)
            return err_set(err, SQE_ERR_INVALID_TABLE_PROPERTY, "Invalid Iceberg metrics mode '%s'",
                           text ? text : "");
        *out = (ice_metrics_mode){ICE_METRICS_TRUNCATE, (int32_t)len};
    }
    return SQE_OK;
}

static int prop_u64(const char *key, const char *v, uint64_t min, uint64_t max, uint64_t *out,
                    sqe_error *err) {
    char *end;
    errno = 0;
    while (*v == ' ') v++;
    unsigned long long x = (*v >= '0' && *v <= '9') ? strtoull(v, &end, 10) : 0;
    if (*v < '0' || *v > '9' || errno || *end || x < min || x > max)
        return err_set(err, SQE_ERR_INVALID_TABLE_PROPERTY,
                       "Invalid value for table property '%s': '%s' (expected an integer from %llu "
                       "to %llu)", key, v, (unsigned long long)min, (unsigned long long)max);
    *out = x;
    return SQE_OK;
}

int ice_write_options_from_properties(const ice_kv_list *props, ice_write_options *o,
                                      sqe_error *err) {
    memset(o, 0, sizeof(*o));
    o->target_file_size = ICE_DEFAULT_TARGET_FILE_SIZE;
    pq_writer_options_init(&o->parquet);
    o->parquet.bloom_filter = false;          /* Iceberg Java writes none unless asked */
    o->parquet.statistics_truncate = 72;      /* room for 16 code points of 4 bytes */
    o->parquet.dictionary_page_bytes = 2u << 20; /* write.parquet.dict-size-bytes default */
    o->metrics_default = (ice_metrics_mode){ICE_METRICS_TRUNCATE, 16};
    o->properties = props;
    if (!props) return SQE_OK;
    for (uint32_t i = 0; i < props->n; i++) {
        const char *k = props->items[i].key, *v = props->items[i].value;
        if (!k || !v) continue;
        uint64_t x;
        if (!strcmp(k, "write.target-file-size-bytes")) {
            SQE_TRY(prop_u64(k, v, 1, UINT64_MAX, &x, err));
            o->target_file_size = x;
        } else if (!strcmp(k, "write.parquet.compression-codec")) {
            if (pq_writer_options_set(&o->parquet, "compression", v, NULL))
                return err_set(err, SQE_ERR_INVALID_TABLE_PROPERTY,
                               "Invalid value for table property '%s': '%s' (expected zstd, snappy, "
                               "gzip, lz4, brotli or uncompressed)", k, v);
        } else if (!strcmp(k, "write.parquet.compression-level")) {
            if (pq_writer_options_set(&o->parquet, "compression_level", v, NULL))
                return err_set(err, SQE_ERR_INVALID_TABLE_PROPERTY,
                               "Invalid value for table property '%s': '%s'", k, v);
        } else if (!strcmp(k, "write.parquet.row-group-size-bytes")) {
            SQE_TRY(prop_u64(k, v, 1, UINT64_MAX, &x, err));
            o->parquet.row_group_bytes = x;
        } else if (!strcmp(k, "write.parquet.row-group-limit")) {
            SQE_TRY(prop_u64(k, v, 1, INT32_MAX, &x, err));
            o->parquet.row_group_rows = x;
        } else if (!strcmp(k, "write.parquet.page-size-bytes")) {
            SQE_TRY(prop_u64(k, v, 1, (uint64_t)1 << 30, &x, err));
            o->parquet.page_bytes = (uint32_t)x;
        } else if (!strcmp(k, "write.parquet.page-row-limit")) {
            SQE_TRY(prop_u64(k, v, 1, INT32_MAX, &x, err));
            o->parquet.page_rows = (uint32_t)x;
        } else if (!strcmp(k, "write.parquet.dict-size-bytes")) {
            SQE_TRY(prop_u64(k, v, 1, (uint64_t)1 << 30, &x, err));
            o->parquet.dictionary_page_bytes = (uint32_t)x;
        } else if (!strncmp(k, "write.parquet.bloom-filter-enabled.column.", 42)) {
            if (!strcasecmp(v, "true")) o->parquet.bloom_filter = true;
        } else if (!strcmp(k, "write.metadata.metrics.default")) {
            SQE_TRY(ice_metrics_mode_parse(v, &o->metrics_default, err));
        }
    }
    return SQE_OK;
}

const char *ice_write_data_dir(arena *a, const char *location, const ice_kv_list *props) {
    const char *p = props ? ice_kv_get(props, "write.data.path") : NULL;
    if (p && *p) return arena_strdup(a, p);
    size_t n = location ? strlen(location) : 0;
    while (n > 1 && location[n - 1] == '/') n--;
    return arena_sprintf(a, "%.*s/data", (int)n, location ? location : "");
}

/* ---- writer state ---------------------------------------------------------------------------- */

typedef struct pfield {
    ice_transform t;
    uint32_t col;            /* top-level column of the source */
    uint32_t *path;          /* struct child indices below it */
    uint32_t depth;
    sqe_type src_type;
    ice_type res_ice;        /* result type (Iceberg) */
    sqe_type res_type;
    vec src;                 /* gathered nested source values (depth > 0) */
    vec out;                 /* partition values of the chunk */
} pfield;

typedef struct part {
    uint8_t *key;
    size_t key_len;
    uint64_t hash;
    vec *values;             /* n_pf 1-row vectors in the caller's arena */
    const char *dir;
    bool dir_made;
    pq_writer *pw;           /* open file or NULL */
    const char *path;        /* its location */
    ice_stage stage;         /* where pw writes (the location, or a staging file) */
    int64_t *nan;            /* per leaf */
    uint32_t *sel;
    uint32_t n_sel, cap_sel;
} part;

struct ice_data_writer {
    const ice_schema *schema;
    const ice_partition_spec *spec;
    ice_write_options o;
    const char *data_dir;
    arena *out;
    arena tables;            /* the writer's own schema tables */
    arena scratch;           /* footers while a file is closed */
    mem_tracker *tracker;
    uint32_t n_cols;
    sqe_type *col_types;
    const char **col_names;
    pq_field_info *finfo;
    uint32_t n_finfo;
    ice_leaf *leaves;
    uint32_t n_leaves;
    ice_metrics_mode *modes;
    uint32_t *col_first_leaf;
    bool *col_has_float;
    uint32_t n_pf;
    pfield *pf;
    bool fixed;              /* no routing: one partition */
    part *parts;
    uint32_t n_parts, cap_parts;
    uint32_t *table;         /* part index + 1, 0 = empty */
    uint32_t table_mask;
    uint32_t n_open;
    ice_data_file *files;
    uint32_t n_files, cap_files;
    uint32_t counter;
    char uuid[40];
    uint64_t rows;
    uint8_t *key;
    size_t key_len, key_cap;
    uint32_t *row_part;
    uint32_t row_part_cap;
    uint32_t *touched;
    uint32_t n_touched;
    vec *sub;                /* n_cols dictionary views */
};

/* ---- schema helpers -------------------------------------------------------------------------- */

static uint32_t leaf_count(const ice_type *t) {
    if (t->kind != ICE_TYPE_STRUCT && t->kind != ICE_TYPE_LIST && t->kind != ICE_TYPE_MAP) return 1;
    uint32_t n = 0;
    for (uint32_t i = 0; i < t->n_fields; i++) n += leaf_count(&t->fields[i].type);
    return n;
}

static bool has_float(const ice_type *t) {
    if (t->kind == ICE_TYPE_FLOAT || t->kind == ICE_TYPE_DOUBLE) return true;
    for (uint32_t i = 0; i < t->n_fields; i++)
        if (has_float(&t->fields[i].type)) return true;
    return false;
}

static uint32_t node_count(const ice_type *t) {
    uint32_t n = 1;
    for (uint32_t i = 0; i < t->n_fields; i++) n += node_count(&t->fields[i].type);
    return n;
}

/* pq_field_info of a field's nodes in pre-order; checks that the types can be written. */
static int fill_finfo(const ice_field *f, pq_field_info *out, uint32_t *k, sqe_error *err) {
    const ice_type *t = &f->type;
    if (t->kind == ICE_TYPE_FIXED || t->kind == ICE_TYPE_TIMESTAMP_NS ||
        t->kind == ICE_TYPE_TIMESTAMPTZ_NS)
        return err_set(err, SQE_ERR_NOT_SUPPORTED,
                       "unsupported: writing Iceberg %s column '%s'", ice_type_kind_name(t->kind),
                       f->name ? f->name : "");
    out[(*k)++] = (pq_field_info){f->id, f->required};
    for (uint32_t i = 0; i < t->n_fields; i++) SQE_TRY(fill_finfo(&t->fields[i], out, k, err));
    return SQE_OK;
}

/* Finds the field with id below type t through struct fields only; path gets the child indices. */
static bool find_struct_path(const ice_type *t, int32_t id, uint32_t *path, uint32_t *depth,
                             uint32_t max, const ice_field **found) {
    if (t->kind != ICE_TYPE_STRUCT || *depth >= max) return false;
    for (uint32_t i = 0; i < t->n_fields; i++) {
        path[*depth] = i;
        if (t->fields[i].id == id) {
            (*depth)++;
            *found = &t->fields[i];
            return true;
        }
        (*depth)++;
        if (find_struct_path(&t->fields[i].type, id, path, depth, max, found)) return true;
        (*depth)--;
    }
    return false;
}

/* ---- partitions ------------------------------------------------------------------------------ */

static uint64_t hash_bytes(const uint8_t *p, size_t n) {
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ULL;
    return h ^ (h >> 29);
}

static int key_append(ice_data_writer *w, const void *p, size_t n, sqe_error *err) {
    if (w->key_len + n > w->key_cap) {
        size_t cap = w->key_cap ? w->key_cap : 64;
        while (cap < w->key_len + n) cap *= 2;
        uint8_t *k = realloc(w->key, cap);
        if (!k) return err_nomem(err, "Iceberg partition key");
        w->key = k;
        w->key_cap = cap;
    }
    memcpy(w->key + w->key_len, p, n);
    w->key_len += n;
    return SQE_OK;
}

/* Appends row r of flat partition-value vector v to the key. */
static int key_value(ice_data_writer *w, const vec *v, uint32_t r, sqe_error *err) {
    uint8_t flag = vec_is_valid_flat(v, r) ? 1 : 0;
    SQE_TRY(key_append(w, &flag, 1, err));
    if (!flag) return SQE_OK;
    switch ((type_id)v->type.id) {
    case TYPE_VARCHAR:
    case TYPE_CHAR:
    case TYPE_VARBINARY: {
        const sqe_str *s = &VEC_DATA(v, sqe_str)[r];
        SQE_TRY(key_append(w, &s->len, 4, err));
        return key_append(w, sqe_str_data(s), s->len, err);
    }
    case TYPE_BOOLEAN: {
        uint8_t b = VEC_DATA(v, uint8_t)[r] ? 1 : 0;
        return key_append(w, &b, 1, err);
    }
    case TYPE_TINYINT: return key_append(w, &VEC_DATA(v, int8_t)[r], 1, err);
    case TYPE_SMALLINT: return key_append(w, &VEC_DATA(v, int16_t)[r], 2, err);
    case TYPE_INTEGER:
    case TYPE_DATE: return key_append(w, &VEC_DATA(v, int32_t)[r], 4, err);
    case TYPE_REAL: {
        float f = VEC_DATA(v, float)[r];
        if (isnan(f)) f = NAN;
        return key_append(w, &f, 4, err);
    }
    case TYPE_DOUBLE: {
        double d = VEC_DATA(v, double)[r];
        if (isnan(d)) d = NAN;
        return key_append(w, &d, 8, err);
    }
    case TYPE_TIMESTAMP_TZ: return key_append(w, &VEC_DATA(v, sqe_timestamp_tz)[r].micros, 8, err);
    case TYPE_DECIMAL:
        if (type_decimal_is_long(v->type)) return key_append(w, &VEC_DATA(v, int128)[r], 16, err);
        return key_append(w, &VEC_DATA(v, int64_t)[r], 8, err);
    case TYPE_UUID: return key_append(w, (const uint8_t *)v->data + (size_t)r * 16, 16, err);
    case TYPE_UNKNOWN: return SQE_OK;
    default: return key_append(w, &VEC_DATA(v, int64_t)[r], 8, err); /* BIGINT, TIME, TIMESTAMP */
    }
}

static int mkdirs(const char *dir, sqe_error *err) {
    size_t n = strlen(dir);
    char *p = malloc(n + 1);
    if (!p) return err_nomem(err, "Iceberg data directory");
    memcpy(p, dir, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (p[i] != '/' && p[i] != 0) continue;
        char c = p[i];
        p[i] = 0;
        if (mkdir(p, 0777) != 0 && errno != EEXIST) {
            int e = errno;
            int rc = err_set(err, SQE_ERR_IO_ERROR, "Cannot create directory '%s': %s", p, strerror(e));
            free(p);
            return rc;
        }
        p[i] = c;
    }
    free(p);
    return SQE_OK;
}

/* Makes the partition for the tuple at row r of values (n_pf vectors, any shape); the key is
 * w->key. */
static int part_new(ice_data_writer *w, const vec *values, uint32_t r, uint64_t hash,
                    uint32_t *out, sqe_error *err) {
    if (w->n_parts == w->cap_parts) {
        uint32_t cap = w->cap_parts ? w->cap_parts * 2 : 16;
        part *p = realloc(w->parts, cap * sizeof(part));
        if (!p) return err_nomem(err, "Iceberg partitions");
        w->parts = p;
        w->cap_parts = cap;
    }
    part *p = &w->parts[w->n_parts];
    memset(p, 0, sizeof(*p));
    p->hash = hash;
    p->key_len = w->key_len;
    p->key = malloc(w->key_len ? w->key_len : 1);
    p->nan = calloc(w->n_leaves ? w->n_leaves : 1, sizeof(int64_t));
    if (!p->key || !p->nan) {
        free(p->key);
        free(p->nan);
        return err_nomem(err, "Iceberg partitions");
    }
    if (w->key_len) memcpy(p->key, w->key, w->key_len);
    w->n_parts++; /* owned from here (freed with the writer) */
    p->values = ARENA_ARRAY(w->out, vec, w->n_pf ? w->n_pf : 1);
    if (!p->values) return err_nomem(err, "Iceberg partitions");
    for (uint32_t k = 0; k < w->n_pf; k++) {
        pfield *f = &w->pf[k];
        SQE_TRY(ice_arena_vec_init(w->out, &p->values[k], f->res_type, 1, err));
        if (vec_is_null(&values[k], r) || f->t.kind == ICE_T_VOID) {
            SQE_TRY(ice_arena_vec_set_null(w->out, &p->values[k], 0, err));
            continue;
        }
        ice_bytes b;
        SQE_TRY(ice_single_value_encode(w->out, &f->res_ice, &values[k], r, &b, err));
        SQE_TRY(ice_single_value_decode(&f->res_ice, b.data, b.len, &p->values[k], 0,
                                        "partition value", err));
    }
    const char *pp;
    SQE_TRY(ice_partition_path(w->out, w->schema, w->spec, p->values, 0, &pp, err));
    p->dir = *pp ? arena_sprintf(w->out, "%s/%s", w->data_dir, pp) : w->data_dir;
    if (!p->dir) return err_nomem(err, "Iceberg partitions");
    *out = w->n_parts - 1;
    /* the table stays at most half full */
    if ((uint64_t)w->n_parts * 2 > (uint64_t)w->table_mask + 1) {
        uint32_t size = (w->table_mask + 1) * 2;
        uint32_t *t = calloc(size, sizeof(uint32_t));
        if (!t) return err_nomem(err, "Iceberg partitions");
        for (uint32_t i = 0; i < w->n_parts; i++) {
            uint32_t s = (uint32_t)w->parts[i].hash & (size - 1);
            while (t[s]) s = (s + 1) & (size - 1);
            t[s] = i + 1;
        }
        free(w->table);
        w->table = t;
        w->table_mask = size - 1;
    } else {
        uint32_t s = (uint32_t)hash & w->table_mask;
        while (w->table[s]) s = (s + 1) & w->table_mask;
        w->table[s] = w->n_parts;
    }
    return SQE_OK;
}

/* ---- files ----------------------------------------------------------------------------------- */

static int file_close(ice_data_writer *w, part *p, sqe_error *err) {
    pq_writer *pw = p->pw;
    p->pw = NULL;
    w->n_open--;
    if (pq_writer_rows(pw) == 0) {
        pq_writer_abort(pw);
        ice_stage_end(&p->stage);
        return SQE_OK;
    }
    if (w->n_files == w->cap_files) {
        uint32_t cap = w->cap_files ? w->cap_files * 2 : 16;
        ice_data_file *f = realloc(w->files, cap * sizeof(*f));
        if (!f) {
            pq_writer_abort(pw);
            ice_stage_end(&p->stage);
            return err_nomem(err, "Iceberg data files");
        }
        w->files = f;
        w->cap_files = cap;
    }
    pq_file_meta *meta;
    uint64_t size;
    arena_reset(&w->scratch);
    int rc = pq_writer_close_meta(pw, &w->scratch, &meta, &size, err);
    if (!rc) rc = ice_stage_publish(&p->stage, err);
    ice_stage_end(&p->stage);
    if (rc) {
        /* a local file pq_writer finished is deleted; an upload that failed left nothing */
        if (!io_location_is_remote(p->path)) unlink(p->path);
        return rc;
    }
    ice_data_file *f = &w->files[w->n_files++]; /* recorded first: abort deletes it */
    memset(f, 0, sizeof(*f));
    f->content = ICE_CONTENT_DATA;
    f->file_path = p->path;
    f->file_format = "PARQUET";
    f->spec_id = w->spec->spec_id;
    f->n_partition = w->n_pf;
    f->partition = p->values;
    f->partition_row = 0;
    f->file_size_in_bytes = (int64_t)size;
    f->has_sort_order_id = true;
    f->sort_order_id = w->o.sort_order_id;
    return ice_data_file_metrics(w->out, w->schema, meta, w->modes, p->nan, f, err);
}

static int file_open(ice_data_writer *w, part *p, sqe_error *err) {
    if (w->n_open >= w->o.max_open_files) {
        part *big = NULL;
        uint64_t big_size = 0;
        for (uint32_t i = 0; i < w->n_parts; i++) {
            part *q = &w->parts[i];
            if (!q->pw || q == p) continue;
            uint64_t s = pq_writer_estimated_size(q->pw);
            if (!big || s > big_size) big = q, big_size = s;
        }
        if (big) SQE_TRY(file_close(w, big, err));
    }
    if (!p->dir_made) {
        if (!io_location_is_remote(p->dir)) SQE_TRY(mkdirs(p->dir, err));
        p->dir_made = true;
    }
    if (w->counter >= 99999 && w->counter >= UINT32_MAX - 1)
        return err_set(err, SQE_ERR_NOT_SUPPORTED, "unsupported: too many Iceberg data files");
    p->path = arena_sprintf(w->out, "%s/%05u-%s.parquet", p->dir, ++w->counter, w->uuid);
    if (!p->path) return err_nomem(err, "Iceberg data files");
    pq_writer_options po = w->o.parquet;
    po.field_ids = NULL;
    po.fields = w->finfo;
    po.n_fields = w->n_finfo;
    SQE_TRY(ice_stage_begin(&p->stage, p->path, w->o.io, err));
    int rc = pq_writer_open(p->stage.local, w->n_cols, w->col_names, w->col_types, &po, w->tracker,
                            &p->pw, err);
    if (rc) {
        ice_stage_end(&p->stage);
        return rc;
    }
    memset(p->nan, 0, (w->n_leaves ? w->n_leaves : 1) * sizeof(int64_t));
    w->n_open++;
    return SQE_OK;
}

/* ---- NaN counts ------------------------------------------------------------------------------ */

static void count_nan(const ice_type *t, const vec *v, uint32_t row, int64_t *nan, uint32_t base) {
    uint32_t ph;
    const vec *f = vec_resolve(v, row, &ph);
    if (!vec_is_valid_flat(f, ph)) return;
    switch (t->kind) {
    case ICE_TYPE_FLOAT:
        if (isnan(VEC_DATA(f, float)[ph])) nan[base]++;
        return;
    case ICE_TYPE_DOUBLE:
        if (isnan(VEC_DATA(f, double)[ph])) nan[base]++;
        return;
    case ICE_TYPE_STRUCT: {
        uint32_t off = base;
        for (uint32_t i = 0; i < t->n_fields && i < f->n_children; i++) {
            if (has_float(&t->fields[i].type)) count_nan(&t->fields[i].type, &f->children[i], ph, nan, off);
            off += leaf_count(&t->fields[i].type);
        }
        return;
    }
    case ICE_TYPE_LIST:
    case ICE_TYPE_MAP: {
        sqe_list_entry e = VEC_DATA(f, sqe_list_entry)[ph];
        uint32_t off = base;
        for (uint32_t c = 0; c < t->n_fields && c < f->n_children; c++) {
            const ice_type *ct = &t->fields[c].type;
            if (has_float(ct))
                for (uint32_t j = 0; j < e.length; j++) count_nan(ct, &f->children[c], e.offset + j, nan, off);
            off += leaf_count(ct);
        }
        return;
    }
    default:
        return;
    }
}

/* ---- open ------------------------------------------------------------------------------------ */

static void writer_free(ice_data_writer *w) {
    for (uint32_t i = 0; i < w->n_parts; i++) {
        free(w->parts[i].key);
        free(w->parts[i].nan);
        free(w->parts[i].sel);
    }
    free(w->parts);
    free(w->table);
    for (uint32_t k = 0; k < w->n_pf; k++) {
        vec_destroy(&w->pf[k].src);
        vec_destroy(&w->pf[k].out);
    }
    if (w->sub)
        for (uint32_t c = 0; c < w->n_cols; c++) vec_destroy(&w->sub[c]);
    free(w->sub);
    free(w->files);
    free(w->key);
    free(w->row_part);
    free(w->touched);
    arena_destroy(&w->scratch);
    arena_destroy(&w->tables);
    free(w);
}

void ice_data_writer_abort(ice_data_writer *w) {
    if (!w) return;
    for (uint32_t i = 0; i < w->n_parts; i++) {
        if (w->parts[i].pw) pq_writer_abort(w->parts[i].pw);
        ice_stage_end(&w->parts[i].stage);
    }
    for (uint32_t i = 0; i < w->n_files; i++) {
        if (io_location_is_remote(w->files[i].file_path))
            ice_stage_remove(w->files[i].file_path, w->o.io);
        else
            unlink(w->files[i].file_path);
    }
    writer_free(w);
}

static void make_uuid(char *out) {
    uint8_t u[16];
    if (getrandom(u, sizeof u, GRND_NONBLOCK) != (ssize_t)sizeof u) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t x = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^ ((uint64_t)getpid() << 48);
        for (int i = 0; i < 16; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            u[i] = (uint8_t)x;
        }
    }
    u[6] = (uint8_t)((u[6] & 0x0F) | 0x40);
    u[8] = (uint8_t)((u[8] & 0x3F) | 0x80);
    int k = 0;
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10) out[k++] = '-';
        k += snprintf(out + k, 3, "%02x", u[i]);
    }
}

static int setup(ice_data_writer *w, sqe_error *err) {
    arena *a = &w->tables;
    const ice_type *st = &w->schema->type;
    if (st->kind != ICE_TYPE_STRUCT || st->n_fields == 0)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "Iceberg schema without columns");
    w->n_cols = st->n_fields;
    w->col_types = ARENA_ARRAY(a, sqe_type, w->n_cols);
    w->col_names = ARENA_ARRAY(a, const char *, w->n_cols);
    w->col_first_leaf = ARENA_ARRAY(a, uint32_t, w->n_cols);
    w->col_has_float = ARENA_ARRAY(a, bool, w->n_cols);
    w->sub = calloc(w->n_cols, sizeof(vec));
    if (!w->col_types || !w->col_names || !w->col_first_leaf || !w->col_has_float || !w->sub)
        return err_nomem(err, "Iceberg data writer");
    uint32_t nodes = 0, leaf = 0;
    for (uint32_t c = 0; c < w->n_cols; c++) {
        const ice_field *f = &st->fields[c];
        SQE_TRY(ice_schema_to_sqe_type(&f->type, &w->col_types[c], err));
        w->col_names[c] = f->name ? f->name : "";
        w->col_first_leaf[c] = leaf;
        w->col_has_float[c] = has_float(&f->type);
        leaf += leaf_count(&f->type);
        nodes += node_count(&f->type);
        SQE_TRY(vec_init(&w->sub[c], w->col_types[c], 1, w->tracker, err));
    }
    w->finfo = ARENA_ARRAY(a, pq_field_info, nodes);
    if (!w->finfo) return err_nomem(err, "Iceberg data writer");
    for (uint32_t c = 0; c < w->n_cols; c++) SQE_TRY(fill_finfo(&st->fields[c], w->finfo, &w->n_finfo, err));
    SQE_TRY(ice_schema_leaves(a, w->schema, &w->leaves, &w->n_leaves, err));
    /* metrics modes: the default, a per-column property overrides */
    w->modes = ARENA_ARRAY(a, ice_metrics_mode, w->n_leaves ? w->n_leaves : 1);
    if (!w->modes) return err_nomem(err, "Iceberg data writer");
    for (uint32_t i = 0; i < w->n_leaves; i++) {
        w->modes[i] = w->o.metrics_default;
        const char *key = arena_sprintf(a, "write.metadata.metrics.column.%s", w->leaves[i].name);
        if (!key) return err_nomem(err, "Iceberg data writer");
        const char *v = w->o.properties ? ice_kv_get(w->o.properties, key) : NULL;
        if (v) SQE_TRY(ice_metrics_mode_parse(v, &w->modes[i], err));
        if (w->modes[i].kind == ICE_METRICS_TRUNCATE && w->leaves[i].type->kind != ICE_TYPE_STRING &&
            w->leaves[i].type->kind != ICE_TYPE_BINARY)
            w->modes[i] = (ice_metrics_mode){ICE_METRICS_FULL, 0};
    }
    /* partition fields */
    w->n_pf = w->spec->n_fields;
    w->pf = ARENA_ARRAY(a, pfield, w->n_pf ? w->n_pf : 1);
    if (!w->pf) return err_nomem(err, "Iceberg data writer");
    for (uint32_t k = 0; k < w->n_pf; k++) {
        const ice_partition_field *spf = &w->spec->fields[k];
        pfield *f = &w->pf[k];
        const char *pname = spf->name ? spf->name : "";
        f->t = spf->transform;
        if (f->t.kind == ICE_T_UNKNOWN || spf->n_source_ids > 1)
            return err_set(err, SQE_ERR_NOT_SUPPORTED,
                           "unsupported: writing Iceberg partition field '%s' (transform %s)", pname,
                           spf->transform_text ? spf->transform_text : "with several sources");
        SQE_TRY(ice_partition_field_type(w->schema, spf, &f->res_ice, err));
        SQE_TRY(ice_schema_to_sqe_type(&f->res_ice, &f->res_type, err));
        uint32_t path[ICE_MAX_TYPE_DEPTH + 1], depth = 0;
        const ice_field *src = NULL;
        if (!find_struct_path(st, spf->source_id, path, &depth, ICE_MAX_TYPE_DEPTH, &src) ||
            src->type.n_fields)
            return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                           "Iceberg partition field '%s': source field %d is not a primitive column "
                           "reached through structs", pname, spf->source_id);
        f->col = path[0];
        f->depth = depth - 1;
        f->path = ARENA_ARRAY(a, uint32_t, depth);
        if (!f->path) return err_nomem(err, "Iceberg data writer");
        memcpy(f->path, path + 1, f->depth * sizeof(uint32_t));
        SQE_TRY(ice_schema_to_sqe_type(&src->type, &f->src_type, err));
        sqe_type rt;
        if (!ice_transform_result_type(f->t, f->src_type, &rt) || rt.id != f->res_type.id)
            return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                           "Iceberg partition field '%s': its transform does not apply to its source",
                           pname);
        SQE_TRY(vec_init(&f->src, f->src_type, VEC_CHUNK_SIZE, w->tracker, err));
        SQE_TRY(vec_init(&f->out, f->res_type, VEC_CHUNK_SIZE, w->tracker, err));
    }
    w->table_mask = 15;
    w->table = calloc(16, sizeof(uint32_t));
    if (!w->table) return err_nomem(err, "Iceberg data writer");
    if (w->o.fixed_partition || w->n_pf == 0) {
        w->fixed = true;
        uint32_t idx;
        w->key_len = 0;
        SQE_TRY(part_new(w, w->o.fixed_partition, w->o.fixed_partition_row, 0, &idx, err));
    }
    make_uuid(w->uuid);
    return SQE_OK;
}

int ice_data_writer_open(const ice_schema *schema, const ice_partition_spec *spec,
                         const ice_write_options *o, arena *out, mem_tracker *tracker,
                         ice_data_writer **out_writer, sqe_error *err) {
    *out_writer = NULL;
    if (!schema || !spec || !o || !out)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "Iceberg data writer: missing argument");
    if (!o->data_dir || !*o->data_dir)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "Iceberg data writer: no data directory");
    if (o->format_version < 0 || o->format_version > ICE_FORMAT_VERSION_MAX)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "Iceberg data writer: format version %d",
                       o->format_version);
    ice_data_writer *w = calloc(1, sizeof(*w));
    if (!w) return err_nomem(err, "Iceberg data writer");
    w->schema = schema;
    w->spec = spec;
    w->o = *o;
    if (!w->o.format_version) w->o.format_version = 2;
    if (!w->o.target_file_size) w->o.target_file_size = ICE_DEFAULT_TARGET_FILE_SIZE;
    if (!w->o.max_open_files) w->o.max_open_files = ICE_DEFAULT_MAX_OPEN_FILES;
    if (!w->o.memory_budget) w->o.memory_budget = ICE_DEFAULT_WRITE_MEMORY;
    w->out = out;
    w->tracker = tracker;
    arena_init(&w->scratch, NULL);
    arena_init(&w->tables, NULL);
    int rc = SQE_OK;
    size_t dl = strlen(o->data_dir);
    while (dl > 1 && o->data_dir[dl - 1] == '/') dl--;
    w->data_dir = arena_strndup(out, o->data_dir, dl);
    if (!w->data_dir) rc = err_nomem(err, "Iceberg data writer");
    if (!rc) rc = setup(w, err);
    if (rc) {
        ice_data_writer_abort(w);
        return rc;
    }
    *out_writer = w;
    return SQE_OK;
}

/* ---- write ----------------------------------------------------------------------------------- */

/* Row `row` of a nested source: follows path through struct vectors; false when NULL. */
static bool source_value(const vec *col, const uint32_t *path, uint32_t depth, uint32_t row,
                         const vec **out, uint32_t *out_row) {
    const vec *v = col;
    for (uint32_t d = 0; d < depth; d++) {
        uint32_t ph;
        const vec *f = vec_resolve(v, row, &ph);
        if (!vec_is_valid_flat(f, ph) || path[d] >= f->n_children) return false;
        v = &f->children[path[d]];
        row = ph;
    }
    uint32_t ph;
    const vec *f = vec_resolve(v, row, &ph);
    if (!vec_is_valid_flat(f, ph)) return false;
    *out = f;
    *out_row = ph;
    return true;
}

static int route(ice_data_writer *w, const vec_chunk *chunk, sqe_error *err) {
    uint32_t n = chunk->count;
    for (uint32_t k = 0; k < w->n_pf; k++) {
        pfield *f = &w->pf[k];
        const vec *in = &chunk->cols[f->col];
        if (f->depth) {
            vec_reset(&f->src);
            SQE_TRY(vec_reserve(&f->src, n, err));
            for (uint32_t r = 0; r < n; r++) {
                const vec *sv;
                uint32_t sr;
                if (source_value(in, f->path, f->depth, r, &sv, &sr)) {
                    SQE_TRY(vec_copy_row(&f->src, r, sv, sr, err));
                    vec_set_valid(&f->src, r);
                } else if (vec_set_null(&f->src, r)) {
                    return err_nomem(err, "Iceberg partition values");
                }
            }
            in = &f->src;
        }
        SQE_TRY(ice_transform_apply(f->t, in, n, &f->out, err));
    }
    for (uint32_t r = 0; r < n; r++) {
        w->key_len = 0;
        for (uint32_t k = 0; k < w->n_pf; k++) SQE_TRY(key_value(w, &w->pf[k].out, r, err));
        uint64_t h = hash_bytes(w->key, w->key_len);
        uint32_t s = (uint32_t)h & w->table_mask, idx = UINT32_MAX;
        while (w->table[s]) {
            part *p = &w->parts[w->table[s] - 1];
            if (p->hash == h && p->key_len == w->key_len && !memcmp(p->key, w->key, w->key_len)) {
                idx = w->table[s] - 1;
                break;
            }
            s = (s + 1) & w->table_mask;
        }
        if (idx == UINT32_MAX) {
            /* a vector list of this row's partition values for part_new */
            vec vals[64];
            vec *vp = w->n_pf <= 64 ? vals : malloc(w->n_pf * sizeof(vec));
            if (!vp) return err_nomem(err, "Iceberg partitions");
            for (uint32_t k = 0; k < w->n_pf; k++) vp[k] = w->pf[k].out;
            int rc = part_new(w, vp, r, h, &idx, err);
            if (vp != vals) free(vp);
            SQE_TRY(rc);
        }
        w->row_part[r] = idx;
    }
    return SQE_OK;
}

static int part_add_row(part *p, uint32_t r, sqe_error *err) {
    if (p->n_sel == p->cap_sel) {
        uint32_t cap = p->cap_sel ? p->cap_sel * 2 : 64;
        uint32_t *s = realloc(p->sel, cap * sizeof(uint32_t));
        if (!s) return err_nomem(err, "Iceberg partitions");
        p->sel = s;
        p->cap_sel = cap;
    }
    p->sel[p->n_sel++] = r;
    return SQE_OK;
}

/* Writes the selected rows of chunk to partition p's file. */
static int part_write(ice_data_writer *w, part *p, const vec_chunk *chunk, sqe_error *err) {
    if (!p->pw) SQE_TRY(file_open(w, p, err));
    vec_chunk sub = {0};
    sub.n_cols = w->n_cols;
    sub.count = p->n_sel;
    sub.capacity = p->n_sel;
    sub.cols = w->sub;
    for (uint32_t c = 0; c < w->n_cols; c++) {
        vec_set_dict(&w->sub[c], &chunk->cols[c], p->sel);
        if (!w->col_has_float[c]) continue;
        const ice_type *t = &w->schema->type.fields[c].type;
        for (uint32_t i = 0; i < p->n_sel; i++)
            count_nan(t, &chunk->cols[c], p->sel[i], p->nan, w->col_first_leaf[c]);
    }
    SQE_TRY(pq_writer_write(p->pw, &sub, err));
    if (pq_writer_estimated_size(p->pw) >= w->o.target_file_size) SQE_TRY(file_close(w, p, err));
    return SQE_OK;
}

static int check_types(const ice_data_writer *w, const vec_chunk *chunk, sqe_error *err) {
    if (chunk->n_cols != w->n_cols)
        return err_set(err, SQE_ERR_TYPE_MISMATCH,
                       "Iceberg data writer: %u columns given, the table has %u", chunk->n_cols,
                       w->n_cols);
    for (uint32_t c = 0; c < w->n_cols; c++) {
        sqe_type have = chunk->cols[c].type, want = w->col_types[c];
        bool ok = have.id == want.id;
        if (ok && want.id == TYPE_DECIMAL)
            ok = have.precision == want.precision && have.scale == want.scale;
        if (!ok) {
            char a[64], b[64];
            type_format(have, a, sizeof a);
            type_format(want, b, sizeof b);
            return err_set(err, SQE_ERR_TYPE_MISMATCH,
                           "Iceberg data writer: column '%s' is %s, the table's type is %s",
                           w->col_names[c], a, b);
        }
    }
    return SQE_OK;
}

int ice_data_writer_write(ice_data_writer *w, const vec_chunk *chunk, sqe_error *err) {
    SQE_TRY(check_types(w, chunk, err));
    uint32_t n = chunk->count;
    if (n == 0) return SQE_OK;
    if (w->fixed) {
        part *p = &w->parts[0];
        p->n_sel = 0;
        for (uint32_t r = 0; r < n; r++) SQE_TRY(part_add_row(p, r, err));
        SQE_TRY(part_write(w, p, chunk, err));
    } else {
        if (n > w->row_part_cap) {
            uint32_t *rp = realloc(w->row_part, n * sizeof(uint32_t));
            if (!rp) return err_nomem(err, "Iceberg partitions");
            w->row_part = rp;
            w->row_part_cap = n;
            uint32_t *t = realloc(w->touched, n * sizeof(uint32_t));
            if (!t) return err_nomem(err, "Iceberg partitions");
            w->touched = t;
        }
        SQE_TRY(route(w, chunk, err));
        w->n_touched = 0;
        for (uint32_t r = 0; r < n; r++) {
            part *p = &w->parts[w->row_part[r]];
            if (p->n_sel == 0) w->touched[w->n_touched++] = w->row_part[r];
            SQE_TRY(part_add_row(p, r, err));
        }
        int rc = SQE_OK;
        for (uint32_t i = 0; i < w->n_touched; i++) {
            part *p = &w->parts[w->touched[i]];
            if (!rc) rc = part_write(w, p, chunk, err);
            p->n_sel = 0;
        }
        SQE_TRY(rc);
    }
    w->rows += n;
    /* memory: write out the largest buffered row groups while over the budget */
    for (;;) {
        uint64_t total = 0, big_b = 0;
        part *big = NULL;
        for (uint32_t i = 0; i < w->n_parts; i++) {
            if (!w->parts[i].pw) continue;
            uint64_t b = pq_writer_buffered_bytes(w->parts[i].pw);
            total += b;
            if (b > big_b) big = &w->parts[i], big_b = b;
        }
        if (total <= w->o.memory_budget || !big) break;
        SQE_TRY(pq_writer_flush(big->pw, err));
    }
    return SQE_OK;
}

uint64_t ice_data_writer_rows(const ice_data_writer *w) { return w->rows; }

int ice_data_writer_finish(ice_data_writer *w, ice_data_file **files, uint32_t *n, sqe_error *err) {
    *files = NULL;
    *n = 0;
    int rc = SQE_OK;
    for (uint32_t i = 0; i < w->n_parts && !rc; i++)
        if (w->parts[i].pw) rc = file_close(w, &w->parts[i], err);
    ice_data_file *out = NULL;
    if (!rc && w->n_files) {
        out = ARENA_ARRAY(w->out, ice_data_file, w->n_files);
        if (!out) rc = err_nomem(err, "Iceberg data files");
        else memcpy(out, w->files, w->n_files * sizeof(*out));
    }
    if (rc) {
        ice_data_writer_abort(w);
        return rc;
    }
    *files = out;
    *n = w->n_files;
    writer_free(w);
    return SQE_OK;
}
