/*
 * s3_client.h: an S3 REST client over io/http_client: HEAD, ranged GET, PUT, multipart upload,
 * ListObjectsV2, DELETE and DeleteObjects, signed with SigV4 (sigv4.h).
 *
 * A client holds only the endpoint settings and an http_client (one keep-alive connection pool
 * for all threads); it holds no credentials. Every operation takes the caller's credentials,
 * so one client can serve many users without ever mixing their keys. All functions are
 * thread-safe.
 *
 * Errors: 404 is NOT_FOUND naming s3://bucket/key; 403 is PERMISSION_DENIED with S3's error
 * code and message; 412 (If-None-Match) is ALREADY_EXISTS; anything else is IO_ERROR with the
 * HTTP status or the transport error. 500, 502, 503, 504, 429 and connection failures are
 * retried with exponential backoff (max_attempts in all) before they are reported.
 */
#ifndef SQE_IO_S3_CLIENT_H
#define SQE_IO_S3_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "io/s3_xml.h"
#include "io/sigv4.h"

typedef struct s3_config {
    const char *endpoint;  /* "http://127.0.0.1:9000"; NULL: https://s3.<region>.amazonaws.com */
    const char *region;    /* NULL: "us-east-1" */
    bool path_style;       /* http://host/bucket/key instead of http://bucket.host/key */
    int max_attempts;      /* tries per request, retries included; 0: 6 */
    int backoff_ms;        /* first retry delay, doubled each time (max 5 s); 0: 100 */
    size_t part_size;      /* multipart part size and threshold; 0: 8 MiB (min 5 MiB) */
    int max_parallel;      /* connections used at once by s3_get_ranges; 0: 8 */
} s3_config;

/* What a request counts as in s3_stats: ListObjectsV2 is LIST, the requests of a multipart
 * upload are PUT, DeleteObjects and AbortMultipartUpload are DELETE. */
typedef enum s3_kind {
    S3_KIND_GET,
    S3_KIND_HEAD,
    S3_KIND_PUT,
    S3_KIND_LIST,
    S3_KIND_DELETE,
    S3_KIND_COUNT
} s3_kind;

/* Process-wide counters of the requests all clients sent (every attempt, retries included). */
typedef struct s3_stats {
    uint64_t requests[S3_KIND_COUNT]; /* by s3_kind */
    uint64_t total;                   /* sum of requests[] */
    uint64_t retries;                 /* attempts that repeated a failed one */
    uint64_t bytes_in;                /* response body bytes received (errors included) */
    uint64_t bytes_out;               /* request body bytes sent */
    uint64_t connections;             /* new connections opened (the rest reused one) */
} s3_stats;

/* A snapshot of the counters (thread-safe; each counter is read atomically). */
void s3_stats_get(s3_stats *out);
/* Sets every counter to 0 (for tests and benchmarks; racing requests may be lost). */
void s3_stats_reset(void);
/* "requests=N get=N head=N put=N list=N delete=N retries=N bytes_in=N bytes_out=N
 * connections=N" into buf
 * (cut to cap - 1 characters). Setting SQE_S3_STATS=1 in the environment prints this line on
 * stderr at process exit, prefixed "sqe-s3-stats: ". */
void s3_stats_format(const s3_stats *s, char *buf, size_t cap);

/* One range of an object and where its bytes go (buf holds len bytes). */
typedef struct s3_range {
    uint64_t off;
    size_t len;
    void *buf;
} s3_range;

typedef struct s3_client s3_client;

/* Creates a client (strings of cfg are copied). INVALID_ARGUMENTS for an endpoint that is not
 * http(s)://host[:port]; on error *out is NULL. */
int s3_client_create(const s3_config *cfg, s3_client **out, sqe_error *err);
/* Frees the client and its idle connections; c may be NULL. No call may be in flight. */
void s3_client_destroy(s3_client *c);
/* Requests sent so far, retries included (for benchmarks and tests). */
uint64_t s3_client_requests(const s3_client *c);

/* The URL of bucket/key (key decoded; NULL or "" for the bucket itself) into a malloc'ed
 * string, and the Host header value into host (malloc'ed). NULL on out of memory. */
char *s3_client_url(const s3_client *c, const char *bucket, const char *key, char **host);

/* HEAD: *size and (when etag != NULL) the ETag, malloc'ed, quotes kept. */
int s3_head(s3_client *c, const sigv4_credentials *cred, const char *bucket, const char *key,
            uint64_t *size, char **etag, sqe_error *err);
/* GET of bytes [off, off+len) into buf; IO_ERROR when fewer bytes come back. */
int s3_get_range(s3_client *c, const sigv4_credentials *cred, const char *bucket,
                 const char *key, uint64_t off, size_t len, void *buf, sqe_error *err);
/* GETs of several ranges of one object at once (http_client_send_many, at most
 * max_parallel connections); each range is retried on its own (s3_get_range's rules) and must
 * come back complete. Ranges may overlap and come in any order; ranges are not merged here
 * (io_s3_object_read_many coalesces). On error the contents of every buf are unspecified and
 * err names the object (the first failing range by index). */
int s3_get_ranges(s3_client *c, const sigv4_credentials *cred, const char *bucket,
                  const char *key, const s3_range *ranges, uint32_t n, sqe_error *err);
/* Single PUT of data[0..len) (payload hash signed). With if_none_match, fails with
 * ALREADY_EXISTS when the key exists (If-None-Match: *). */
int s3_put(s3_client *c, const sigv4_credentials *cred, const char *bucket, const char *key,
           const void *data, size_t len, bool if_none_match, sqe_error *err);
/* Uploads the local file at path to bucket/key: one PUT up to part_size, else a multipart
 * upload (parts read from the file one at a time). A failed multipart upload is aborted, so no
 * object and no orphan parts are left. */
int s3_upload_file(s3_client *c, const sigv4_credentials *cred, const char *bucket,
                   const char *key, const char *path, sqe_error *err);
/* Every object under prefix (ListObjectsV2, following continuation tokens), in key order.
 * *items (n entries) is freed with s3_entries_free; empty listing is SQE_OK with *n == 0. */
int s3_list(s3_client *c, const sigv4_credentials *cred, const char *bucket, const char *prefix,
            s3_object_entry **items, uint32_t *n, sqe_error *err);
void s3_entries_free(s3_object_entry *items, uint32_t n);
/* DELETE of one key (S3 answers 204 whether or not it existed). */
int s3_delete(s3_client *c, const sigv4_credentials *cred, const char *bucket, const char *key,
              sqe_error *err);
/* DeleteObjects in batches of 1000; IO_ERROR naming the first key S3 could not delete. */
int s3_delete_objects(s3_client *c, const sigv4_credentials *cred, const char *bucket,
                      const char *const *keys, uint32_t n, sqe_error *err);

#endif
