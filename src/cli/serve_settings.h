/*
 * serve_settings.h: what `sqe serve` puts on its database from the configuration besides the
 * catalogs: which files and object-store locations SQL may reach ([storage.tvf] and [storage]:
 * the path policy, io/path_policy.h) and the resource limits ([coordinator] memory_limit,
 * [query] memory_limit, per_user_memory, max_result_rows).
 */
#ifndef SQE_CLI_SERVE_SETTINGS_H
#define SQE_CLI_SERVE_SETTINGS_H

#include "common/config.h"
#include "sqe/sqe.h"

/* Applies both to db (before any session). On error (INVALID_ARGUMENTS naming the key, e.g. a
 * root that is not a directory) db is unchanged. */
int serve_settings_apply(const config *cfg, sqe_db *db, sqe_error *err);

#endif
