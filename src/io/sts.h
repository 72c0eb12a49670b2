/*
 * sts.h: object-store credentials for one user from AWS STS AssumeRoleWithWebIdentity with that
 * user's own bearer token (an OIDC token the store's STS trusts), the second credential source
 * of a catalog's table files (after keys the REST catalog vends, before static keys).
 *
 * The request is a plain form POST (Action=AssumeRoleWithWebIdentity, Version=2011-06-15,
 * RoleArn, RoleSessionName, WebIdentityToken, DurationSeconds) to the configured STS endpoint;
 * it is not SigV4-signed (the web identity token is the credential). The answer's
 * AccessKeyId / SecretAccessKey / SessionToken become an io_identity (io.h) for the configured
 * S3 endpoint and region.
 *
 * Caching: per web identity token (compared in full), until STS_REFRESH_MARGIN_MS before the
 * answer's Expiration; an identity is never handed out for another token, so the temporary keys
 * of one user are never used for another. At most STS_CACHE_ENTRIES tokens are kept (the one
 * closest to its refresh goes first). Tokens and secrets are kept only in memory, never logged
 * and never put into error messages.
 *
 * Errors: PERMISSION_DENIED when STS refuses the token or the role (its error code, e.g.
 * InvalidIdentityToken, ExpiredTokenException, AccessDenied, in the message), IO_ERROR when STS
 * cannot be reached, answers 5xx (after retries) or answers something that is no
 * AssumeRoleWithWebIdentity response. Messages name the role and STS's code and message.
 */
#ifndef SQE_IO_STS_H
#define SQE_IO_STS_H

#include <stdbool.h>
#include <stdint.h>

#include "common/err.h"
#include "io/io.h"

#define STS_CACHE_ENTRIES 256
#define STS_REFRESH_MARGIN_MS 60000   /* renew this long before Expiration */

typedef struct io_sts io_sts;

typedef struct io_sts_config {
    const char *endpoint;      /* STS URL, "https://sts.amazonaws.com" (required) */
    const char *role_arn;      /* RoleArn to assume (required) */
    const char *session_name;  /* RoleSessionName; NULL or "" = "sqe" */
    int64_t duration_s;        /* DurationSeconds; 0 = 3600 (AWS takes 900..43200) */
    int64_t timeout_ms;        /* per attempt; 0 = 10000 */
    /* where the temporary keys are used (io_identity_config) */
    const char *s3_endpoint;   /* NULL or "": AWS */
    const char *s3_region;     /* NULL or "": us-east-1 */
    bool s3_path_style;
} io_sts_config;

/* A credential source for cfg (strings copied; no request is made yet). INVALID_ARGUMENTS for
 * a missing endpoint or role, an endpoint that is not http(s)://, or a session name outside
 * [A-Za-z0-9+=,.@_-]{2,64}. On success the caller owns *out (io_sts_destroy); on error *out is
 * NULL. */
int io_sts_create(const io_sts_config *cfg, io_sts **out, sqe_error *err);
/* Frees s, its cache and the identities it holds (references handed out stay valid). NULL is
 * ignored. */
void io_sts_destroy(io_sts *s);

/* The identity of the user whose bearer token is web_token: from the cache while fresh, else
 * from a new AssumeRoleWithWebIdentity call. Thread-safe. On success the caller owns one
 * reference to *out (io_identity_unref); on error *out is NULL and the cache is unchanged. */
int io_sts_identity(io_sts *s, const char *web_token, io_identity **out, sqe_error *err);

/* The role a source assumes (for messages). */
const char *io_sts_role(const io_sts *s);

#endif
