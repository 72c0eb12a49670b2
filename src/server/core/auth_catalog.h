/*
 * auth_catalog.h: bearer tokens that belong to the REST catalog's identity provider rather than
 * to SQE (an OIDC access token the user got elsewhere). `sqe serve` accepts such a token when the
 * catalog it will be forwarded to accepts it (GET /v1/config with the token answers 2xx), and
 * forwards the very same token to that catalog on every call of the user's statements
 * (auth = "session_bearer"), so the catalog, not SQE, decides what the user may see. The
 * principal is the user the client claims (the REST protocol names no user).
 *
 * Accepted tokens are remembered for AUTH_CATALOG_TTL_MS (a query's polls do not each cost a
 * catalog round trip); a refused one is never remembered. Tokens are kept only in memory and
 * never logged.
 */
#ifndef SQE_SERVER_CORE_AUTH_CATALOG_H
#define SQE_SERVER_CORE_AUTH_CATALOG_H

#include <stdbool.h>

#include "common/config.h"
#include "common/err.h"

#define AUTH_CATALOG_TTL_MS 30000
#define AUTH_CATALOG_ENTRIES 256

typedef struct auth_catalog auth_catalog;

/* The checker for the first REST catalog of cfg with auth = "session_bearer" ([catalog] first,
 * then [catalogs.NAME] in file order); *out is NULL (SQE_OK) when there is none. On success the
 * caller owns *out (auth_catalog_destroy). */
int auth_catalog_create(const config *cfg, auth_catalog **out, sqe_error *err);
void auth_catalog_destroy(auth_catalog *ac);

/* Checks token against the catalog. SQE_OK when it accepts it, also for 403 (the catalog knows
 * the user; its statements then fail with PERMISSION_DENIED); UNAUTHENTICATED ("the catalog
 * <uri> refused the bearer token (HTTP 401)") for 401; IO_ERROR when the catalog cannot be
 * reached. Thread-safe. */
int auth_catalog_check(auth_catalog *ac, const char *token, sqe_error *err);

/* Was token accepted by auth_catalog_check within the TTL? Thread-safe; NULL ac gives false. */
bool auth_catalog_known(auth_catalog *ac, const char *token);

#endif
