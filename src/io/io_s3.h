/*
 * io_s3.h: the io.h operations on "s3://bucket/key" locations (also s3a:// and s3n://, as
 * Iceberg writers spell them), over s3_client.h.
 *
 * Whose credentials: every call takes an io_s3_context (a client and one user's credentials);
 * NULL means the process-wide context built from the environment on first use:
 *   SQE_S3_ACCESS_KEY_ID, SQE_S3_SECRET_ACCESS_KEY, SQE_S3_SESSION_TOKEN (optional),
 *   SQE_S3_ENDPOINT (default AWS), SQE_S3_REGION (default us-east-1),
 *   SQE_S3_PATH_STYLE (1/true/yes; default virtual-hosted), SQE_S3_MAX_ATTEMPTS,
 *   SQE_S3_PART_SIZE (bytes, at least 5 MiB), SQE_S3_MAX_PARALLEL (connections per parallel
 *   read, default 8), SQE_S3_COALESCE_BYTES and SQE_S3_SPLIT_BYTES (see io_s3_object_read_many),
 *   SQE_S3_STATS=1 (request counters on stderr at exit, s3_client.h).
 * io.h's io_open/io_glob/io_write_new/io_remove use the environment context; per-user callers
 * (vended credentials) use these functions with their own context. An open object copies the
 * credentials it was opened with, so its reads never use anyone else's.
 */
#ifndef SQE_IO_IO_S3_H
#define SQE_IO_IO_S3_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "io/s3_client.h"

typedef struct io_s3_context {
    s3_client *client;          /* borrowed */
    sigv4_credentials cred;     /* borrowed strings */
} io_s3_context;

/* True when location names an object store ("s3://", "s3a://", "s3n://"). */
bool io_s3_is_uri(const char *location);
/* Splits "s3://bucket/key" into malloc'ed bucket and key (key may be ""). INVALID_ARGUMENTS
 * when there is no bucket; on error both are NULL. */
int io_s3_parse_uri(const char *uri, char **bucket, char **key, sqe_error *err);
/* The environment context (see above), created once; *out stays valid until exit.
 * INVALID_ARGUMENTS for a bad SQE_S3_ENDPOINT. */
int io_s3_env_context(const io_s3_context **out, sqe_error *err);

typedef struct io_s3_object io_s3_object;

/* HEADs uri; on success *out (io_s3_object_close), *size and *version (a hash of the ETag).
 * NOT_FOUND names the object; PERMISSION_DENIED carries S3's code and message. */
int io_s3_object_open(const char *uri, const io_s3_context *ctx, io_s3_object **out,
                      uint64_t *size, int64_t *version, sqe_error *err);
/* Like io_s3_object_open for a caller that already knows the object's size and version (a
 * cached Parquet footer): no HEAD is sent, so a missing or changed object shows up only on
 * the first read. *out is owned by the caller (io_s3_object_close). */
int io_s3_object_open_known(const char *uri, const io_s3_context *ctx, io_s3_object **out,
                            sqe_error *err);
/* Reads exactly len bytes at off into buf; thread-safe. One ranged GET, or for a read larger
 * than SQE_S3_SPLIT_BYTES (default 8 MiB) parts of that size fetched in parallel. */
int io_s3_object_read(io_s3_object *o, uint64_t off, size_t len, void *buf, sqe_error *err);
/* Reads every ranges[i] (len bytes at off into buf) with as few and as parallel requests as
 * sensible: sorted, merged when less than SQE_S3_COALESCE_BYTES (default 256 KiB) apart,
 * split above SQE_S3_SPLIT_BYTES, and sent together over up to SQE_S3_MAX_PARALLEL (8)
 * connections (http_client_send_many). Ranges may overlap; len 0 is allowed. Thread-safe. On error err
 * names the object and the buffers' contents are unspecified. */
int io_s3_object_read_many(io_s3_object *o, const s3_range *ranges, uint32_t n, sqe_error *err);
void io_s3_object_close(io_s3_object *o);

/* io_glob for "s3://bucket/pattern": '*', '?' and '[...]' do not match '/'. Lists the prefix
 * before the first wildcard; returns sorted "s3://bucket/key" strings (io_paths_free). No match
 * is NOT_FOUND naming the pattern; a pattern without wildcards is returned as is. */
int io_s3_glob(const char *pattern, const io_s3_context *ctx, char ***paths, uint32_t *n_paths,
               sqe_error *err);
/* io_write_new: PUT with If-None-Match: * after a HEAD; ALREADY_EXISTS when the key exists. */
int io_s3_write_new(const char *uri, const io_s3_context *ctx, const void *data, size_t len,
                    sqe_error *err);
/* io_remove: NOT_FOUND when the key does not exist, else DELETE. */
int io_s3_remove(const char *uri, const io_s3_context *ctx, sqe_error *err);
/* Uploads the local file local_path to uri (multipart when large); for writers that build a
 * file locally first (Parquet). On error nothing is left at uri. */
int io_s3_upload_file(const char *local_path, const char *uri, const io_s3_context *ctx,
                      sqe_error *err);

#endif
