/*
 * sigv4.h: AWS Signature Version 4 for S3 requests (header-based authentication).
 *
 * The signer is pure: it takes a request description and credentials and returns the
 * canonical request, the string to sign, the signature and the Authorization header value.
 * It signs exactly the headers it is given (the S3 client adds host, x-amz-date,
 * x-amz-content-sha256 and, with a session token, x-amz-security-token; see s3_client.c).
 *
 * Canonical forms (AWS "Create a canonical request for Signature Version 4", S3 variant):
 *   - URI: the decoded path, each byte outside RFC 3986 unreserved characters percent-encoded
 *     (upper-case hex), '/' kept; no dot-segment normalisation and a single encoding (S3 rules).
 *   - Query: each name and value encoded the same way ('/' encoded too), sorted by name then
 *     value (byte order), joined "n=v&..." ("n=" for an empty value).
 *   - Headers: names lower-cased, values trimmed with inner runs of spaces collapsed to one,
 *     sorted by name (stable), repeated names joined with ',' in the order given.
 */
#ifndef SQE_IO_SIGV4_H
#define SQE_IO_SIGV4_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "common/err.h"
#include "common/strbuf.h"

/* One user's keys. Borrowed strings; session_token NULL or "" when there is none. */
typedef struct sigv4_credentials {
    const char *access_key_id;
    const char *secret_access_key;
    const char *session_token;
} sigv4_credentials;

/* A name/value pair (query parameter or header); strings are borrowed. */
typedef struct sigv4_pair {
    const char *name;
    const char *value;
} sigv4_pair;

typedef struct sigv4_request {
    const char *method;            /* "GET", "PUT", ... */
    const char *path;              /* decoded, starts with '/' ("/bucket/my key") */
    const sigv4_pair *query;       /* decoded names and values; value NULL means "" */
    uint32_t n_query;
    const sigv4_pair *headers;     /* every header to sign, any case, as sent */
    uint32_t n_headers;
    const char *payload_hash;      /* lower-case hex SHA-256 of the body, or "UNSIGNED-PAYLOAD" */
    const char *region;            /* "us-east-1" */
    const char *service;           /* "s3" */
    const char *amz_date;          /* "YYYYMMDDTHHMMSSZ" (also sent as x-amz-date) */
} sigv4_request;

/* What sigv4_sign produces; every string is malloc'ed and owned by the result. */
typedef struct sigv4_result {
    char *canonical_request;
    char *string_to_sign;
    char *signed_headers;          /* "host;x-amz-date" */
    char signature[65];            /* lower-case hex */
    char *authorization;           /* the Authorization header value */
} sigv4_result;

/* Signs rq with cred. On success *out holds the strings (free with sigv4_result_reset); on
 * error (INVALID_ARGUMENTS for a malformed amz_date or missing field, OUT_OF_MEMORY) *out is
 * left empty (all NULL). */
int sigv4_sign(const sigv4_request *rq, const sigv4_credentials *cred, sigv4_result *out,
               sqe_error *err);
/* Frees the strings of r and zeroes it; r may be already empty. */
void sigv4_result_reset(sigv4_result *r);

/* Appends s[0..len) to sb percent-encoded per RFC 3986 (unreserved A-Z a-z 0-9 - . _ ~ kept,
 * '/' kept when keep_slash); upper-case hex. Failure shows in sb->failed. */
void sigv4_uri_encode(strbuf *sb, const char *s, size_t len, bool keep_slash);
/* Appends the canonical query string of q[0..n) to sb (see header comment). */
void sigv4_canonical_query(strbuf *sb, const sigv4_pair *q, uint32_t n);

/* Lower-case hex SHA-256 of data[0..len) into out (65 bytes, NUL-terminated). */
void sigv4_sha256_hex(const void *data, size_t len, char out[65]);
/* Formats t (UTC) as "YYYYMMDDTHHMMSSZ" into out (17 bytes). */
void sigv4_amz_date(time_t t, char out[17]);

#endif
