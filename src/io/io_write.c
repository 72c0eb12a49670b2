/*
 * io_write.c: creating and deleting whole files (Iceberg manifests, manifest lists, metadata),
 * on local disks or in S3 (see io.h).
 *
 * INTERFACE: io_write_new, io_remove, io_make_dirs, io_write_new_as, io_remove_as, io_upload_as.
 * NOTES: a new file is created with O_EXCL, written, fsynced and closed; any failure unlinks
 * it, so readers never find a partial file under a name someone committed (a crash between
 * create and fsync leaves an unreferenced file, which remove_orphan_files deletes).
 * "s3://" locations go to io_s3.c; object stores have no directories, so io_make_dirs is a
 * no-op there. The *_as variants use the given identity's credentials for "s3://" (io.h).
 */
#include "io/io.h"
#include "io/io_identity_int.h"
#include "io/io_s3.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int os_error(sqe_error *err, int e, const char *what, const char *path) {
    if (e == ENOENT || e == ENOTDIR) return err_set(err, SQE_ERR_NOT_FOUND, "File not found: %s", path);
    if (e == EEXIST) return err_set(err, SQE_ERR_ALREADY_EXISTS, "File already exists: %s", path);
    if (e == EACCES || e == EPERM)
        return err_set(err, SQE_ERR_PERMISSION_DENIED, "Permission denied: %s", path);
    return err_set(err, SQE_ERR_IO_ERROR, "%s %s: %s", what, path, strerror(e));
}

int io_make_dirs(const char *dir, sqe_error *err) {
    if (io_s3_is_uri(dir)) return SQE_OK;
    const char *local = io_local_path(dir);
    size_t n = strlen(local);
    char *p = malloc(n + 1);
    if (!p) return err_nomem(err, "path");
    memcpy(p, local, n + 1);
    int rc = SQE_OK;
    for (size_t i = 1; i <= n && !rc; i++) {
        if (p[i] != '/' && p[i] != '\0') continue;
        char c = p[i];
        p[i] = '\0';
        if (mkdir(p, 0755) != 0 && errno != EEXIST) rc = os_error(err, errno, "Cannot create directory", p);
        p[i] = c;
    }
    free(p);
    return rc;
}

int io_write_new(const char *location, const void *data, size_t len, sqe_error *err) {
    return io_write_new_as(location, NULL, data, len, err);
}

int io_write_new_as(const char *location, const io_identity *id, const void *data, size_t len,
                    sqe_error *err) {
    if (io_s3_is_uri(location)) return io_s3_write_new(location, io_identity_s3(id), data, len, err);
    const char *path = io_local_path(location);
    const char *slash = strrchr(path, '/');
    if (slash && slash != path) {
        char *dir = strndup(path, (size_t)(slash - path));
        if (!dir) return err_nomem(err, "path");
        int rc = io_make_dirs(dir, err);
        free(dir);
        SQE_TRY(rc);
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) return os_error(err, errno, "Cannot create", path);
    const char *p = data;
    size_t done = 0;
    while (done < len) {
        ssize_t n = write(fd, p + done, len - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            int e = n < 0 ? errno : EIO;
            close(fd);
            unlink(path);
            return os_error(err, e, "Cannot write", path);
        }
        done += (size_t)n;
    }
    if (fsync(fd) != 0) {
        int e = errno;
        close(fd);
        unlink(path);
        return os_error(err, e, "Cannot write", path);
    }
    if (close(fd) != 0) {
        int e = errno;
        unlink(path);
        return os_error(err, e, "Cannot write", path);
    }
    return SQE_OK;
}

int io_remove(const char *location, sqe_error *err) {
    return io_remove_as(location, NULL, err);
}

int io_remove_as(const char *location, const io_identity *id, sqe_error *err) {
    if (io_s3_is_uri(location)) return io_s3_remove(location, io_identity_s3(id), err);
    const char *path = io_local_path(location);
    if (unlink(path) != 0) return os_error(err, errno, "Cannot delete", path);
    return SQE_OK;
}

int io_upload_as(const char *local_path, const char *location, const io_identity *id,
                 sqe_error *err) {
    if (io_s3_is_uri(location)) return io_s3_upload_file(local_path, location, io_identity_s3(id), err);
    int fd = open(io_local_path(local_path), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return os_error(err, errno, "Cannot open", local_path);
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return os_error(err, e, "Cannot open", local_path);
    }
    size_t len = (size_t)st.st_size;
    char *buf = malloc(len ? len : 1);
    size_t done = 0;
    while (buf && done < len) {
        ssize_t n = read(fd, buf + done, len - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        done += (size_t)n;
    }
    int e = errno;
    close(fd);
    if (!buf) return err_nomem(err, "file copy");
    int rc = done == len ? io_write_new(location, buf, len, err)
                         : os_error(err, e ? e : EIO, "Cannot read", local_path);
    free(buf);
    return rc;
}
