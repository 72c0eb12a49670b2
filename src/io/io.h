/*
 * io.h: files as byte ranges, the one way the format readers reach data, so the same readers
 * work on local files and on object stores (S3).
 *
 * An io_file is opened by path (a local path, or "s3://..." for the S3 backend),
 * knows its size and a version token (mtime for local files, the ETag for objects) for caches,
 * and reads exact byte ranges from any thread at once (pread semantics, no shared cursor).
 *
 * Errors: NOT_FOUND (no such file), PERMISSION_DENIED, IO_ERROR (anything else, with the OS
 * reason); reads past the end are IO_ERROR ("file changed while reading?").
 *
 * Whose credentials: the plain functions reach object stores with the process-wide environment
 * context (io_s3.h); the *_as variants take an io_identity (one user's object-store
 * credentials and endpoint, io_identity.c) and use it for "s3://" locations (local paths are
 * unaffected). A NULL identity means the environment context, so `f(x)` == `f_as(x, NULL)`;
 * in `sqe serve` that context has no credentials (io_forbid_ambient_credentials).
 */
#ifndef SQE_IO_IO_H
#define SQE_IO_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

typedef struct io_file io_file;

/* The local file system path of a location: "file:///a/b", "file:/a/b" and
 * "file://localhost/a/b" give "/a/b" (a pointer into uri); anything else is returned as is.
 * Iceberg writers spell local locations all three ways. */
const char *io_local_path(const char *uri);
/* True when location names an object store ("s3://", "s3a://", "s3n://"): writers then build
 * files locally and upload them (io_upload_as); there are no directories to make. */
bool io_location_is_remote(const char *location);

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

/* From now on an object-store call without an identity (NULL) has no credentials at all: the
 * request is refused before it is sent ("No S3 credentials"), never signed with the process's
 * environment (SQE_S3_ACCESS_KEY_ID, ...). Endpoint and tuning settings still apply. Cannot be
 * undone. `sqe serve` calls it at startup (io_s3.c), so a session that has no identity of its
 * own gets nothing; the embedded shell does not (the user's own process, own credentials). */
void io_forbid_ambient_credentials(void);

/* ---- identities (io_identity.c) ------------------------------------------------------------- */

/* One user's credentials for an object store plus where that store is: reference counted,
 * immutable, shareable between threads. Credentials are copied in and never printed. */
typedef struct io_identity io_identity;

typedef struct io_identity_config {
    const char *access_key_id;      /* required */
    const char *secret_access_key;  /* required */
    const char *session_token;      /* NULL or "" when the keys are long-lived */
    const char *endpoint;           /* "http://127.0.0.1:9000"; NULL or "": AWS */
    const char *region;             /* NULL or "": "us-east-1" */
    bool path_style;                /* http://host/bucket/key */
} io_identity_config;

/* An identity for cfg (strings copied). Identities with equal configs are one object (the
 * existing one gets another reference). On success the caller owns one reference to *out
 * (io_identity_unref). INVALID_ARGUMENTS without key id or secret or for a bad endpoint; on
 * error *out is NULL. */
int io_identity_create(const io_identity_config *cfg, io_identity **out, sqe_error *err);
/* Another reference to id (NULL gives NULL). */
io_identity *io_identity_ref(const io_identity *id);
/* Drops a reference; the last one frees the identity (its secret is wiped). NULL is ignored. */
void io_identity_unref(io_identity *id);
/* The access key id (for diagnostics and tests; never the secret). "" for NULL. */
const char *io_identity_key_id(const io_identity *id);

/* io_open, io_glob as identity id (NULL: the environment context). */
int io_open_as(const char *path, const io_identity *id, io_file **out, sqe_error *err);
/* io_open_as for a caller that already knows the file's size and version (e.g. from a cached
 * footer): an object store gets no HEAD, so a missing or changed object shows up at the first
 * read (NOT_FOUND naming it, or a short read); a local file is opened and checked as usual,
 * and a size or version other than the given one is IO_ERROR ("changed while reading"). */
int io_open_known(const char *path, const io_identity *id, uint64_t size, int64_t version,
                  io_file **out, sqe_error *err);

/* One byte range of a file and where its bytes go (io_read_many). */
typedef struct io_range {
    uint64_t off;
    size_t len;
    void *buf;
} io_range;
/* Reads every range (any order, may overlap; len 0 allowed). An object store fetches them
 * merged and in parallel (io_s3_object_read_many); a local file preads each. On error the
 * buffers' contents are unspecified. */
int io_read_many(io_file *f, const io_range *ranges, uint32_t n, sqe_error *err);
int io_glob_as(const char *pattern, const io_identity *id, char ***paths, uint32_t *n_paths,
               sqe_error *err);

/* One object of a listing (io_list_as). */
typedef struct io_entry {
    char *location;       /* "s3://bucket/key", malloc'ed */
    uint64_t size;
    int64_t mtime_ms;     /* last modification in ms since the epoch; -1 when the store's
                             listing does not say (today's S3 client keeps no LastModified) */
} io_entry;

/* Every object under the object-store directory dir ("s3://bucket/a/b": keys starting with
 * "a/b/"), recursively, in key order, as id (NULL: the environment context). On success
 * *entries (*n of them, possibly 0) is freed with io_entries_free. INVALID_ARGUMENTS for a
 * location that is not an object-store URI (local directories are walked by the caller);
 * PERMISSION_DENIED, IO_ERROR as the store answers; on error *entries is NULL. */
int io_list_as(const char *dir, const io_identity *id, io_entry **entries, uint32_t *n,
               sqe_error *err);
void io_entries_free(io_entry *entries, uint32_t n);

/* ---- writing (io_write.c) ------------------------------------------------------------------- */

/* Creates the file at location (local path or file: URI; parent directories are made) with
 * data[0..len), fsynced. Fails with ALREADY_EXISTS when the file exists; on any error no file
 * is left. */
int io_write_new(const char *location, const void *data, size_t len, sqe_error *err);
/* Deletes the file at location. NOT_FOUND when it does not exist. */
int io_remove(const char *location, sqe_error *err);
/* Creates directory dir and its parents (existing ones are fine). */
int io_make_dirs(const char *dir, sqe_error *err);

/* io_write_new, io_remove as identity id (NULL: the environment context). */
int io_write_new_as(const char *location, const io_identity *id, const void *data, size_t len,
                    sqe_error *err);
int io_remove_as(const char *location, const io_identity *id, sqe_error *err);
/* Copies the local file local_path to location as id: an object-store location is uploaded
 * (multipart when large); a local location is written as io_write_new does (ALREADY_EXISTS
 * when it exists). local_path itself is left alone. On error nothing is left at location. */
int io_upload_as(const char *local_path, const char *location, const io_identity *id,
                 sqe_error *err);

#endif
