/*
 * io.h: files as byte ranges, the one way the format readers reach data, so the same readers
 * work on local files now and on object stores (S3) later.
 *
 * An io_file is opened by path (a local path today; "s3://..." will select another backend),
 * knows its size and a version token (mtime for local files, the ETag for objects) for caches,
 * and reads exact byte ranges from any thread at once (pread semantics, no shared cursor).
 *
 * Errors: NOT_FOUND (no such file), PERMISSION_DENIED, IO_ERROR (anything else, with the OS
 * reason); reads past the end are IO_ERROR ("file changed while reading?").
 */
#ifndef SQE_IO_IO_H
#define SQE_IO_IO_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

typedef struct io_file io_file;

/* The local file system path of a location: "file:///a/b", "file:/a/b" and
 * "file://localhost/a/b" give "/a/b" (a pointer into uri); anything else is returned as is.
 * Iceberg writers spell local locations all three ways. */
const char *io_local_path(const char *uri);

/* Opens path (a local path or a file: URI) for reading. On success *out is owned by the caller (io_close). */
int io_open(const char *path, io_file **out, sqe_error *err);
void io_close(io_file *f);

uint64_t io_size(const io_file *f);
/* A value that changes whenever the file's contents may have (mtime in nanoseconds locally). */
int64_t io_version(const io_file *f);
const char *io_path(const io_file *f);

/* Reads exactly len bytes at offset off into buf. Thread-safe. */
int io_read(io_file *f, uint64_t off, size_t len, void *buf, sqe_error *err);

/* Expands a glob pattern ("data/x_?.parquet", "d/[ab]*"; a pattern without wildcards is
 * returned as is) into a sorted list of regular files. *paths is an array of *n_paths
 * malloc'ed strings, freed with io_paths_free. No match is NOT_FOUND naming the pattern. */
int io_glob(const char *pattern, char ***paths, uint32_t *n_paths, sqe_error *err);
void io_paths_free(char **paths, uint32_t n_paths);

/* ---- writing (io_write.c) ------------------------------------------------------------------- */

/* Creates the file at location (local path or file: URI; parent directories are made) with
 * data[0..len), fsynced. Fails with ALREADY_EXISTS when the file exists; on any error no file
 * is left. */
int io_write_new(const char *location, const void *data, size_t len, sqe_error *err);
/* Deletes the file at location. NOT_FOUND when it does not exist. */
int io_remove(const char *location, sqe_error *err);
/* Creates directory dir and its parents (existing ones are fine). */
int io_make_dirs(const char *dir, sqe_error *err);

#endif
