/*
 * io_local.c: io_file over local files (pread), and glob expansion.
 *
 * INTERFACE: io_local_path, io_location_is_remote, io_open, io_open_as, io_open_known,
 *            io_close, io_size, io_version, io_path, io_read, io_read_many, io_glob, io_glob_as,
 *            io_list_as, io_entries_free, io_paths_free.
 * NOTES: glob(3) without GLOB_NOCHECK, sorted, GLOB_MARK to drop directories; "**" has no
 * special meaning. Reads retry on EINTR and short reads. "s3://" locations are handed to
 * io_s3.c (environment credentials, or the identity of io_open_as); an io_file then holds an
 * io_s3_object instead of an fd and keeps a reference to the identity it was opened as (the
 * object borrows its client).
 */
#include "io/io.h"
#include "io/io_identity_int.h"
#include "io/io_s3.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct io_file {
    int fd;                 /* -1 for an S3 object */
    io_s3_object *s3;       /* NULL for a local file */
    io_identity *id;        /* a reference to the identity it was opened as, or NULL */
    uint64_t size;
    int64_t version;
    char *path;
};

static int open_error(const char *path, int e, sqe_error *err) {
    if (e == ENOENT || e == ENOTDIR) return err_set(err, SQE_ERR_NOT_FOUND, "File not found: %s", path);
    if (e == EACCES || e == EPERM)
        return err_set(err, SQE_ERR_PERMISSION_DENIED, "Permission denied: %s", path);
    return err_set(err, SQE_ERR_IO_ERROR, "Cannot open %s: %s", path, strerror(e));
}

bool io_location_is_remote(const char *location) {
    return location && io_s3_is_uri(location);
}

const char *io_local_path(const char *uri) {
    if (strncmp(uri, "file:", 5) != 0) return uri;
    const char *p = uri + 5;
    if (strncmp(p, "//localhost/", 12) == 0) return p + 11;
    if (p[0] == '/' && p[1] == '/' && p[2] == '/') return p + 2;
    if (p[0] == '/' && p[1] != '/') return p;
    return uri;
}

typedef struct known_file {
    uint64_t size;
    int64_t version;
} known_file;

/* Opens S3 object path as id (NULL: the environment); takes over the reference held (may be
 * NULL), also on error. With known, no HEAD: size and version are taken from it. */
static int open_s3(const char *path, io_identity *held, const io_identity *id,
                   const known_file *known, io_file **out, sqe_error *err) {
    io_file *f = calloc(1, sizeof *f);
    char *p = strdup(path);
    if (!f || !p) {
        free(f);
        free(p);
        io_identity_unref(held);
        return err_nomem(err, "file handle");
    }
    int rc = known ? io_s3_object_open_known(path, io_identity_s3(id), &f->s3, err)
                   : io_s3_object_open(path, io_identity_s3(id), &f->s3, &f->size, &f->version,
                                       err);
    if (rc) {
        free(f);
        free(p);
        io_identity_unref(held);
        return rc;
    }
    if (known) {
        f->size = known->size;
        f->version = known->version;
    }
    f->id = held;
    f->fd = -1;
    f->path = p;
    *out = f;
    return SQE_OK;
}

int io_open(const char *path, io_file **out, sqe_error *err) {
    return io_open_as(path, NULL, out, err);
}

int io_open_as(const char *path, const io_identity *id, io_file **out, sqe_error *err) {
    *out = NULL;
    if (io_s3_is_uri(path)) return open_s3(path, io_identity_ref(id), id, NULL, out, err);
    int fd = open(io_local_path(path), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return open_error(path, errno, err);
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return open_error(path, e, err);
    }
    if (S_ISDIR(st.st_mode)) {
        close(fd);
        return err_set(err, SQE_ERR_IO_ERROR, "%s is a directory", path);
    }
    io_file *f = calloc(1, sizeof *f);
    char *p = strdup(path);
    if (!f || !p) {
        free(f);
        free(p);
        close(fd);
        return err_nomem(err, "file handle");
    }
    f->fd = fd;
    f->size = (uint64_t)st.st_size;
    f->version = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
    f->path = p;
    *out = f;
    return SQE_OK;
}

void io_close(io_file *f) {
    if (!f) return;
    if (f->s3) io_s3_object_close(f->s3);
    else close(f->fd);
    io_identity_unref(f->id);
    free(f->path);
    free(f);
}

uint64_t io_size(const io_file *f) { return f->size; }
int64_t io_version(const io_file *f) { return f->version; }
const char *io_path(const io_file *f) { return f->path; }

int io_open_known(const char *path, const io_identity *id, uint64_t size, int64_t version,
                  io_file **out, sqe_error *err) {
    *out = NULL;
    if (io_s3_is_uri(path)) {
        known_file k = {size, version};
        return open_s3(path, io_identity_ref(id), id, &k, out, err);
    }
    SQE_TRY(io_open_as(path, id, out, err));
    if ((*out)->size != size || (*out)->version != version) {
        io_close(*out);
        *out = NULL;
        return err_set(err, SQE_ERR_IO_ERROR, "File %s changed while it was being read", path);
    }
    return SQE_OK;
}

_Static_assert(sizeof(io_range) == sizeof(s3_range) &&
                   offsetof(io_range, len) == offsetof(s3_range, len) &&
                   offsetof(io_range, buf) == offsetof(s3_range, buf),
               "io_range and s3_range share a layout");

int io_read_many(io_file *f, const io_range *ranges, uint32_t n, sqe_error *err) {
    if (f->s3) return io_s3_object_read_many(f->s3, (const s3_range *)ranges, n, err);
    for (uint32_t i = 0; i < n; i++)
        if (ranges[i].len) SQE_TRY(io_read(f, ranges[i].off, ranges[i].len, ranges[i].buf, err));
    return SQE_OK;
}

int io_read(io_file *f, uint64_t off, size_t len, void *buf, sqe_error *err) {
    if (f->s3) return io_s3_object_read(f->s3, off, len, buf, err);
    uint8_t *p = buf;
    while (len > 0) {
        ssize_t n = pread(f->fd, p, len, (off_t)off);
        if (n < 0) {
            if (errno == EINTR) continue;
            return err_set(err, SQE_ERR_IO_ERROR, "Cannot read %s: %s", f->path, strerror(errno));
        }
        if (n == 0)
            return err_set(err, SQE_ERR_IO_ERROR,
                           "Cannot read %s: unexpected end of file (did it change while reading?)",
                           f->path);
        p += n;
        off += (uint64_t)n;
        len -= (size_t)n;
    }
    return SQE_OK;
}

void io_paths_free(char **paths, uint32_t n_paths) {
    if (!paths) return;
    for (uint32_t i = 0; i < n_paths; i++) free(paths[i]);
    free(paths);
}

static int has_wildcards(const char *s) {
    for (; *s; s++)
        if (*s == '*' || *s == '?' || *s == '[') return 1;
    return 0;
}

int io_glob(const char *pattern, char ***paths, uint32_t *n_paths, sqe_error *err) {
    return io_glob_as(pattern, NULL, paths, n_paths, err);
}

int io_glob_as(const char *pattern, const io_identity *id, char ***paths, uint32_t *n_paths,
               sqe_error *err) {
    *paths = NULL;
    *n_paths = 0;
    if (io_s3_is_uri(pattern)) return io_s3_glob(pattern, io_identity_s3(id), paths, n_paths, err);
    if (!has_wildcards(pattern)) {
        char **one = malloc(sizeof(char *));
        if (!one) return err_nomem(err, "file list");
        one[0] = strdup(pattern);
        if (!one[0]) {
            free(one);
            return err_nomem(err, "file list");
        }
        *paths = one;
        *n_paths = 1;
        return SQE_OK;
    }
    glob_t g;
    memset(&g, 0, sizeof g);
    int grc = glob(pattern, GLOB_MARK, NULL, &g);
    if (grc == GLOB_NOSPACE) {
        globfree(&g);
        return err_nomem(err, "glob");
    }
    if (grc != 0 && grc != GLOB_NOMATCH) {
        globfree(&g);
        return err_set(err, SQE_ERR_IO_ERROR, "Cannot list the files that match '%s'", pattern);
    }
    uint32_t n = 0;
    char **list = grc == 0 ? calloc(g.gl_pathc ? g.gl_pathc : 1, sizeof(char *)) : NULL;
    if (grc == 0 && !list) {
        globfree(&g);
        return err_nomem(err, "file list");
    }
    for (size_t i = 0; grc == 0 && i < g.gl_pathc; i++) {
        const char *p = g.gl_pathv[i];
        size_t len = strlen(p);
        if (len && p[len - 1] == '/') continue; /* a directory */
        list[n] = strdup(p);
        if (!list[n]) {
            io_paths_free(list, n);
            globfree(&g);
            return err_nomem(err, "file list");
        }
        n++;
    }
    globfree(&g);
    if (n == 0) {
        free(list);
        return err_set(err, SQE_ERR_NOT_FOUND, "No files found that match the pattern '%s'",
                       pattern);
    }
    *paths = list;
    *n_paths = n;
    return SQE_OK;
}

/* ---- listing ------------------------------------------------------------------------------- */

int io_list_as(const char *dir, const io_identity *id, io_entry **entries, uint32_t *n,
               sqe_error *err) {
    *entries = NULL;
    *n = 0;
    if (!io_s3_is_uri(dir))
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "Not an object-store location: %s", dir);
    const io_s3_context *ctx = io_identity_s3(id);
    if (!ctx) SQE_TRY(io_s3_env_context(&ctx, err));
    char *bucket = NULL, *key = NULL;
    SQE_TRY(io_s3_parse_uri(dir, &bucket, &key, err));
    size_t kl = strlen(key);
    char *prefix = malloc(kl + 2);
    if (!prefix) {
        free(bucket);
        free(key);
        return err_nomem(err, "object listing");
    }
    memcpy(prefix, key, kl + 1);
    if (kl && prefix[kl - 1] != '/') prefix[kl] = '/', prefix[kl + 1] = 0;
    s3_object_entry *items = NULL;
    uint32_t count = 0;
    int rc = s3_list(ctx->client, &ctx->cred, bucket, prefix, &items, &count, err);
    io_entry *out = NULL;
    if (!rc && count) {
        out = calloc(count, sizeof *out);
        if (!out) rc = err_nomem(err, "object listing");
        for (uint32_t i = 0; !rc && i < count; i++) {
            size_t len = strlen(bucket) + strlen(items[i].key) + 7;
            out[i].location = malloc(len);
            if (!out[i].location) {
                rc = err_nomem(err, "object listing");
                break;
            }
            snprintf(out[i].location, len, "s3://%s/%s", bucket, items[i].key);
            out[i].size = items[i].size;
            out[i].mtime_ms = -1;
        }
        if (rc) {
            io_entries_free(out, count);
            out = NULL;
        }
    }
    if (items) s3_entries_free(items, count);
    free(bucket);
    free(key);
    free(prefix);
    if (rc) return rc;
    *entries = out;
    *n = out ? count : 0;
    return SQE_OK;
}

void io_entries_free(io_entry *entries, uint32_t n) {
    if (!entries) return;
    for (uint32_t i = 0; i < n; i++) free(entries[i].location);
    free(entries);
}
