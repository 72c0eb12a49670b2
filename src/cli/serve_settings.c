/*
 * serve_settings.c: the path policy and the limits of `sqe serve` from the configuration (see
 * serve_settings.h).
 *
 * INTERFACE: serve_settings_apply.
 * NOTES
 *   - Path policy: allow_local_paths and allowed_local_roots for local files (the embedded
 *     shell has no policy at all); allowed_object_store_prefixes and object_store_admin_roles
 *     for s3:// locations, read and written with the [storage] keys when both the key id and
 *     the secret are set (endpoint, region and path style from [storage] too), else with no
 *     credentials: `sqe serve` never lends SQL the process's own (io_forbid_ambient_credentials).
 *   - Memory: one query gets [query] memory_limit (0: [coordinator] memory_limit, 0: 80% of
 *     RAM), all of one user's running queries per_user_memory (0: no limit), all queries of the
 *     server [coordinator] memory_limit (0: 80% of RAM). Results hand out at most
 *     max_result_rows rows (0: no limit).
 *   - Admin roles: [auth] admin_roles (holders see every user's system.runtime.sessions).
 */
#include "cli/serve_settings.h"

#include "io/path_policy.h"
#include "sqe/sqe_values.h"

static int make_policy(const config *cfg, path_policy **out, sqe_error *err) {
    const config_storage *st = &cfg->storage;
    io_identity_config keys = {
        .access_key_id = st->s3_access_key_id,
        .secret_access_key = st->s3_secret_access_key,
        .session_token = st->s3_session_token,
        .endpoint = st->s3_endpoint,
        .region = st->s3_region,
        .path_style = st->s3_path_style != 0,
    };
    path_policy_config pc = {
        .allow_local_paths = st->tvf.allow_local_paths != 0,
        .local_roots = st->tvf.allowed_local_roots.items,
        .n_local_roots = st->tvf.allowed_local_roots.n,
        .object_store_prefixes = st->tvf.allowed_object_store_prefixes.items,
        .n_object_store_prefixes = st->tvf.allowed_object_store_prefixes.n,
        .object_store_admin_roles = st->tvf.object_store_admin_roles.items,
        .n_object_store_admin_roles = st->tvf.object_store_admin_roles.n,
        .object_store_keys = *st->s3_access_key_id && *st->s3_secret_access_key ? &keys : NULL,
    };
    return path_policy_create(&pc, out, err);
}

int serve_settings_apply(const config *cfg, sqe_db *db, sqe_error *err) {
    path_policy *paths;
    SQE_TRY(make_policy(cfg, &paths, err));
    sqe_db_set_path_policy(db, paths);
    const config_query *q = &cfg->query;
    sqe_db_limits lim = {
        .memory_total = cfg->coordinator.memory_limit,
        .memory_per_query = q->memory_limit ? q->memory_limit : cfg->coordinator.memory_limit,
        .memory_per_user = q->per_user_memory,
        .max_result_rows = q->max_result_rows,
    };
    sqe_db_set_limits(db, &lim);
    /* [auth] admin_roles: their holders see every user's system.runtime.sessions rows */
    return sqe_db_set_admin_roles(db, cfg->auth.admin_roles.items,
                                  (uint32_t)cfg->auth.admin_roles.n, err);
}
