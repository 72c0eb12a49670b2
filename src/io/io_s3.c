/*
 * io_s3.c: io.h semantics on S3 objects (see io_s3.h).
 *
 * INTERFACE: io_s3_is_uri, io_s3_parse_uri, io_s3_env_context, io_s3_object_open,
 *            io_s3_object_open_known, io_s3_object_read, io_s3_object_read_many,
 *            io_s3_object_close, io_s3_glob,
 *            io_s3_write_new, io_s3_remove, io_s3_upload_file;
 *            io_forbid_ambient_credentials (io.h).
 * NOTES: the environment context is built under pthread_once and lives until exit (its client
 * keeps the pooled connections); after io_forbid_ambient_credentials, io_s3_env_context hands
 * out its twin with the same client and no credentials. An object's version is FNV-1a of its
 * ETag, so a rewritten object invalidates footer caches as an mtime change does locally. Glob
 * matching uses fnmatch(3) with FNM_PATHNAME on the key, mirroring glob(3) on local paths.
 * Reads: ranges closer than SQE_S3_COALESCE_BYTES (256 KiB) are merged into one GET (the gap
 * is read and dropped: on S3 a request costs far more than a few hundred KiB of transfer);
 * reads larger than SQE_S3_SPLIT_BYTES (8 MiB) are cut into parts of that size; all GETs of a
 * call go out in parallel (s3_get_ranges), so one big column-chunk read uses several
 * connections.
 */
#define _GNU_SOURCE /* qsort_r */
#include "io/io_s3.h"

#include <fnmatch.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "io/io.h"

struct io_s3_object {
    s3_client *client;      /* borrowed from the context it was opened with */
    char *bucket;
    char *key;
    char *access_key_id;
    char *secret_access_key;
    char *session_token;
};

bool io_s3_is_uri(const char *l) {
    return l && (strncmp(l, "s3://", 5) == 0 || strncmp(l, "s3a://", 6) == 0 ||
                 strncmp(l, "s3n://", 6) == 0);
}

int io_s3_parse_uri(const char *uri, char **bucket, char **key, sqe_error *err) {
    *bucket = *key = NULL;
    const char *p = strstr(uri, "://");
    if (!io_s3_is_uri(uri) || !p) return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "Not an S3 location: %s", uri);
    p += 3;
    size_t bl = strcspn(p, "/");
    if (bl == 0) return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "S3 location without a bucket: %s", uri);
    *bucket = strndup(p, bl);
    *key = strdup(p[bl] == '/' ? p + bl + 1 : "");
    if (!*bucket || !*key) {
        free(*bucket);
        free(*key);
        *bucket = *key = NULL;
        return err_nomem(err, "S3 location");
    }
    return SQE_OK;
}

/* ---- environment context -------------------------------------------------------------------- */

static pthread_once_t env_once = PTHREAD_ONCE_INIT;
static io_s3_context env_ctx;
static io_s3_context env_anonymous;      /* env_ctx's client, no credentials */
static atomic_bool ambient_forbidden;    /* io_forbid_ambient_credentials was called */
static int env_rc;
static sqe_error env_err;

static bool env_true(const char *v) {
    return v && (strcmp(v, "1") == 0 || strcasecmp(v, "true") == 0 || strcasecmp(v, "yes") == 0);
}

static void env_init(void) {
    s3_config cfg = {0};
    cfg.endpoint = getenv("SQE_S3_ENDPOINT");
    cfg.region = getenv("SQE_S3_REGION");
    cfg.path_style = env_true(getenv("SQE_S3_PATH_STYLE"));
    const char *v = getenv("SQE_S3_MAX_ATTEMPTS");
    if (v) cfg.max_attempts = atoi(v);
    v = getenv("SQE_S3_PART_SIZE");
    if (v) cfg.part_size = (size_t)strtoull(v, NULL, 10);
    v = getenv("SQE_S3_MAX_PARALLEL");
    if (v) cfg.max_parallel = atoi(v);
    env_rc = s3_client_create(&cfg, &env_ctx.client, &env_err);
    env_ctx.cred.access_key_id = getenv("SQE_S3_ACCESS_KEY_ID");
    env_ctx.cred.secret_access_key = getenv("SQE_S3_SECRET_ACCESS_KEY");
    env_ctx.cred.session_token = getenv("SQE_S3_SESSION_TOKEN");
    env_anonymous.client = env_ctx.client;
}

void io_forbid_ambient_credentials(void) { atomic_store(&ambient_forbidden, true); }

int io_s3_env_context(const io_s3_context **out, sqe_error *err) {
    pthread_once(&env_once, env_init);
    *out = NULL;
    if (env_rc) {
        if (err) *err = env_err;
        return env_rc;
    }
    *out = atomic_load(&ambient_forbidden) ? &env_anonymous : &env_ctx;
    return SQE_OK;
}

static int context(const io_s3_context **ctx, sqe_error *err) {
    if (*ctx) return SQE_OK;
    return io_s3_env_context(ctx, err);
}

/* ---- reading -------------------------------------------------------------------------------- */

static char *dup_or_null(const char *s) { return s ? strdup(s) : NULL; }

void io_s3_object_close(io_s3_object *o) {
    if (!o) return;
    free(o->bucket);
    free(o->key);
    free(o->access_key_id);
    if (o->secret_access_key) memset(o->secret_access_key, 0, strlen(o->secret_access_key));
    free(o->secret_access_key);
    free(o->session_token);
    free(o);
}

/* The object handle for uri with a copy of ctx's credentials; no request. */
static int object_create(const char *uri, const io_s3_context *ctx, io_s3_object **out,
                         sqe_error *err) {
    *out = NULL;
    SQE_TRY(context(&ctx, err));
    io_s3_object *o = calloc(1, sizeof *o);
    if (!o) return err_nomem(err, "S3 object");
    int rc = io_s3_parse_uri(uri, &o->bucket, &o->key, err);
    if (rc) {
        free(o);
        return rc;
    }
    o->client = ctx->client;
    o->access_key_id = dup_or_null(ctx->cred.access_key_id);
    o->secret_access_key = dup_or_null(ctx->cred.secret_access_key);
    o->session_token = dup_or_null(ctx->cred.session_token);
    if ((ctx->cred.access_key_id && !o->access_key_id) ||
        (ctx->cred.secret_access_key && !o->secret_access_key) ||
        (ctx->cred.session_token && !o->session_token)) {
        io_s3_object_close(o);
        return err_nomem(err, "S3 object");
    }
    *out = o;
    return SQE_OK;
}

int io_s3_object_open_known(const char *uri, const io_s3_context *ctx, io_s3_object **out,
                            sqe_error *err) {
    return object_create(uri, ctx, out, err);
}

int io_s3_object_open(const char *uri, const io_s3_context *ctx, io_s3_object **out,
                      uint64_t *size, int64_t *version, sqe_error *err) {
    *out = NULL;
    io_s3_object *o;
    SQE_TRY(object_create(uri, ctx, &o, err));
    char *etag = NULL;
    sigv4_credentials cred = {o->access_key_id, o->secret_access_key, o->session_token};
    int rc = s3_head(o->client, &cred, o->bucket, o->key, size, &etag, err);
    if (rc) {
        io_s3_object_close(o);
        return rc;
    }
    uint64_t h = 1469598103934665603ULL;
    for (const char *p = etag ? etag : ""; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ULL;
    free(etag);
    *version = (int64_t)(h >> 1);
    *out = o;
    return SQE_OK;
}

/* ---- parallel and coalesced reads ------------------------------------------------------------ */

static pthread_once_t tuning_once = PTHREAD_ONCE_INIT;
static uint64_t coalesce_gap = (uint64_t)256 << 10; /* SQE_S3_COALESCE_BYTES */
static uint64_t split_bytes = (uint64_t)8 << 20;    /* SQE_S3_SPLIT_BYTES */

static void tuning_init(void) {
    const char *v = getenv("SQE_S3_COALESCE_BYTES");
    if (v && *v) coalesce_gap = strtoull(v, NULL, 10);
    v = getenv("SQE_S3_SPLIT_BYTES");
    if (v && *v) split_bytes = strtoull(v, NULL, 10);
    if (split_bytes < ((uint64_t)64 << 10)) split_bytes = (uint64_t)64 << 10;
}

typedef struct read_group {
    uint64_t start, end;  /* the bytes one merged read covers */
    uint32_t first, n;    /* members: order[first .. first + n) */
    uint8_t *tmp;         /* merged buffer (NULL: the single member's own buffer) */
} read_group;

typedef struct read_plan {
    const s3_range *ranges;
    uint32_t *order;      /* range indexes sorted by offset */
    read_group *groups;
    uint32_t n_groups;
    s3_range *parts;      /* the GETs, split to at most split_bytes each */
    uint32_t n_parts, cap_parts;
} read_plan;

/* qsort_r order of range indexes: by offset, then by index. */
static int cmp_order(const void *a, const void *b, void *arg) {
    const s3_range *ranges = arg;
    uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
    if (ranges[i].off != ranges[j].off) return ranges[i].off < ranges[j].off ? -1 : 1;
    return (i > j) - (i < j);
}

static void plan_free(read_plan *p) {
    for (uint32_t g = 0; p->groups && g < p->n_groups; g++) free(p->groups[g].tmp);
    free(p->groups);
    free(p->order);
    free(p->parts);
}

/* Appends the GETs of [start, end) into dst, cut to split_bytes each. */
static bool plan_parts(read_plan *p, uint64_t start, uint64_t end, uint8_t *dst) {
    for (uint64_t at = start; at < end;) {
        uint64_t len = end - at < split_bytes ? end - at : split_bytes;
        if (p->n_parts == p->cap_parts) {
            uint32_t cap = p->cap_parts ? p->cap_parts * 2 : 16;
            s3_range *m = realloc(p->parts, cap * sizeof *m);
            if (!m) return false;
            p->parts = m;
            p->cap_parts = cap;
        }
        p->parts[p->n_parts++] = (s3_range){at, (size_t)len, dst + (at - start)};
        at += len;
    }
    return true;
}

/* Sorts the ranges, merges neighbours closer than coalesce_gap (a merged read stays within
 * 4 * split_bytes, so one huge read never swallows many small ones), and splits big reads. */
static int plan_build(read_plan *p, const s3_range *ranges, uint32_t n, sqe_error *err) {
    memset(p, 0, sizeof *p);
    p->ranges = ranges;
    p->order = malloc(n * sizeof *p->order);
    p->groups = calloc(n, sizeof *p->groups);
    if (!p->order || !p->groups) return err_nomem(err, "S3 read plan");
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++)
        if (ranges[i].len) p->order[m++] = i;
    qsort_r(p->order, m, sizeof *p->order, cmp_order, (void *)ranges);
    uint64_t merge_cap = 4 * split_bytes;
    for (uint32_t k = 0; k < m;) {
        const s3_range *r = &ranges[p->order[k]];
        read_group *g = &p->groups[p->n_groups++];
        g->start = r->off;
        g->end = r->off + r->len;
        g->first = k;
        g->n = 1;
        for (k++; k < m; k++) {
            const s3_range *q = &ranges[p->order[k]];
            uint64_t e = q->off + q->len > g->end ? q->off + q->len : g->end;
            if (q->off > g->end + coalesce_gap || e - g->start > merge_cap) break;
            g->end = e;
            g->n++;
        }
        uint8_t *dst = r->buf;
        if (g->n > 1) {
            g->tmp = malloc((size_t)(g->end - g->start));
            if (!g->tmp) return err_nomem(err, "S3 read buffer");
            dst = g->tmp;
        }
        if (!plan_parts(p, g->start, g->end, dst)) return err_nomem(err, "S3 read plan");
    }
    return SQE_OK;
}

int io_s3_object_read_many(io_s3_object *o, const s3_range *ranges, uint32_t n, sqe_error *err) {
    pthread_once(&tuning_once, tuning_init);
    for (uint32_t i = 0; i < n; i++)
        if (ranges[i].len && ranges[i].off + ranges[i].len < ranges[i].off)
            return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "Bad read range of s3://%s/%s",
                           o->bucket, o->key);
    read_plan p;
    int rc = plan_build(&p, ranges, n, err);
    if (!rc) {
        sigv4_credentials cred = {o->access_key_id, o->secret_access_key, o->session_token};
        rc = s3_get_ranges(o->client, &cred, o->bucket, o->key, p.parts, p.n_parts, err);
    }
    for (uint32_t g = 0; !rc && g < p.n_groups; g++) {
        const read_group *grp = &p.groups[g];
        if (!grp->tmp) continue;
        for (uint32_t k = grp->first; k < grp->first + grp->n; k++) {
            const s3_range *r = &ranges[p.order[k]];
            memcpy(r->buf, grp->tmp + (r->off - grp->start), r->len);
        }
    }
    plan_free(&p);
    return rc;
}

int io_s3_object_read(io_s3_object *o, uint64_t off, size_t len, void *buf, sqe_error *err) {
    pthread_once(&tuning_once, tuning_init);
    if (len > split_bytes) {
        s3_range r = {off, len, buf};
        return io_s3_object_read_many(o, &r, 1, err);
    }
    sigv4_credentials cred = {o->access_key_id, o->secret_access_key, o->session_token};
    return s3_get_range(o->client, &cred, o->bucket, o->key, off, len, buf, err);
}

/* ---- glob ----------------------------------------------------------------------------------- */

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int io_s3_glob(const char *pattern, const io_s3_context *ctx, char ***paths, uint32_t *n_paths,
               sqe_error *err) {
    *paths = NULL;
    *n_paths = 0;
    char *bucket, *key;
    SQE_TRY(io_s3_parse_uri(pattern, &bucket, &key, err));
    size_t wild = strcspn(key, "*?[");
    int rc = SQE_OK;
    if (key[wild] == '\0') { /* no wildcard: the location itself */
        char **one = malloc(sizeof(char *));
        if (one) one[0] = strdup(pattern);
        if (!one || !one[0]) {
            free(one);
            rc = err_nomem(err, "file list");
        } else {
            *paths = one;
            *n_paths = 1;
        }
        free(bucket);
        free(key);
        return rc;
    }
    rc = context(&ctx, err);
    char *prefix = rc ? NULL : strndup(key, wild);
    if (!rc && !prefix) rc = err_nomem(err, "file list");
    s3_object_entry *items = NULL;
    uint32_t n = 0;
    if (!rc) rc = s3_list(ctx->client, &ctx->cred, bucket, prefix, &items, &n, err);
    char **list = NULL;
    uint32_t m = 0;
    if (!rc && n) {
        list = calloc(n, sizeof(char *));
        if (!list) rc = err_nomem(err, "file list");
    }
    size_t scheme_len = (size_t)(strstr(pattern, "://") - pattern) + 3;
    for (uint32_t i = 0; !rc && i < n; i++) {
        const char *k = items[i].key;
        size_t kl = strlen(k);
        if (kl == 0 || k[kl - 1] == '/') continue; /* a "directory" marker */
        if (fnmatch(key, k, FNM_PATHNAME) != 0) continue;
        size_t need = scheme_len + strlen(bucket) + 1 + kl + 1;
        list[m] = malloc(need);
        if (!list[m]) {
            rc = err_nomem(err, "file list");
            break;
        }
        snprintf(list[m], need, "%.*s%s/%s", (int)scheme_len, pattern, bucket, k);
        m++;
    }
    s3_entries_free(items, n);
    free(prefix);
    free(bucket);
    free(key);
    if (!rc && m == 0)
        rc = err_set(err, SQE_ERR_NOT_FOUND, "No files found that match the pattern '%s'", pattern);
    if (rc) {
        io_paths_free(list, m);
        return rc;
    }
    qsort(list, m, sizeof *list, cmp_str);
    *paths = list;
    *n_paths = m;
    return SQE_OK;
}

/* ---- writing -------------------------------------------------------------------------------- */

int io_s3_write_new(const char *uri, const io_s3_context *ctx, const void *data, size_t len,
                    sqe_error *err) {
    SQE_TRY(context(&ctx, err));
    char *bucket, *key;
    SQE_TRY(io_s3_parse_uri(uri, &bucket, &key, err));
    uint64_t size;
    sqe_error head_err;
    int rc = s3_head(ctx->client, &ctx->cred, bucket, key, &size, NULL, &head_err);
    if (rc == SQE_OK) rc = err_set(err, SQE_ERR_ALREADY_EXISTS, "File already exists: %s", uri);
    else if (rc != SQE_ERR_NOT_FOUND) {
        if (err) *err = head_err;
    } else {
        rc = s3_put(ctx->client, &ctx->cred, bucket, key, data, len, true, err);
    }
    free(bucket);
    free(key);
    return rc;
}

int io_s3_remove(const char *uri, const io_s3_context *ctx, sqe_error *err) {
    SQE_TRY(context(&ctx, err));
    char *bucket, *key;
    SQE_TRY(io_s3_parse_uri(uri, &bucket, &key, err));
    uint64_t size;
    int rc = s3_head(ctx->client, &ctx->cred, bucket, key, &size, NULL, err);
    if (!rc) rc = s3_delete(ctx->client, &ctx->cred, bucket, key, err);
    free(bucket);
    free(key);
    return rc;
}

int io_s3_upload_file(const char *local_path, const char *uri, const io_s3_context *ctx,
                      sqe_error *err) {
    SQE_TRY(context(&ctx, err));
    char *bucket, *key;
    SQE_TRY(io_s3_parse_uri(uri, &bucket, &key, err));
    int rc = s3_upload_file(ctx->client, &ctx->cred, bucket, key, local_path, err);
    free(bucket);
    free(key);
    return rc;
}
