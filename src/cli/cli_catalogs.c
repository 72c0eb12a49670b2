/*
 * cli_catalogs.c: opens the catalogs of the configuration and adds them to the database.
 *
 * INTERFACE: cli_database_open, cli_catalogs_attach (cli_catalogs.h).
 * NOTES:
 * - REST catalogs ([catalog] / [catalogs.NAME] type = "rest"): uri, warehouse, prefix and the
 *   auth keys map onto rest_backend_config. auth = "session_bearer" (the default) sends the
 *   calling session's own token (the principal the statement runs as carries the user's
 *   bearer token, common/principal.h) and no token of SQE's; "static" sends token; and
 *   "client_credentials" a token from the OAuth2 endpoint; "anonymous" none;
 *   "token_exchange" a token exchanged for the user's own at the identity provider of
 *   [auth.oidc] (issuer, discovery_url, client_id, client_secret or client_secret_file,
 *   http_timeout) for the catalog's audience (catalog/rest/rest_exchange.h). Only
 *   session_bearer ever forwards a user's own token. A warehouse that is a location ("/...",
 *   "file:...", "s3://...") also roots the default locations of new tables in namespaces
 *   without a "location" property.
 * - The database keeps its catalogs in a plain array that sessions read without a lock, so the
 *   catalogs are added before any session exists (the array is grown here).
 * - Object storage of an Iceberg catalog's files (catalog_iceberg_set_storage): s3_endpoint,
 *   s3_region and s3_path_style are the defaults for what loadTable's config does not name;
 *   s3_access_key_id / s3_secret_access_key / s3_session_token are static keys used when the
 *   catalog vends none, unless require_vended_credentials. s3_sts_endpoint + s3_role_arn (REST
 *   catalogs with auth = "session_bearer"): STS AssumeRoleWithWebIdentity with the user's token
 *   comes between the two (io/sts.h).
 * - Secrets (token, credential, S3 secrets) are passed on and never printed.
 */
#include "cli/cli_catalogs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "catalog/catalog_iceberg.h"
#include "catalog/rest/rest_backend.h"
#include "engine/engine_api.h"

/* Adds c to db (at the front when first); c is destroyed on error. */
static int add_catalog(sqe_db *db, catalog *c, bool first, sqe_error *err) {
    for (uint32_t i = 0; i < db->n_catalogs; i++)
        if (!strcmp(db->catalogs[i]->name, c->name)) {
            int rc = err_set(err, SQE_ERR_ALREADY_EXISTS, "catalog '%s' is defined twice",
                             c->name);
            catalog_destroy(c);
            return rc;
        }
    catalog **arr = realloc(db->catalogs, (db->n_catalogs + 2) * sizeof *arr);
    if (!arr) {
        catalog_destroy(c);
        return err_nomem(err, "catalog list");
    }
    db->catalogs = arr;
    if (first) {
        memmove(arr + 1, arr, db->n_catalogs * sizeof *arr);
        arr[0] = c;
    } else {
        arr[db->n_catalogs] = c;
    }
    db->n_catalogs++;
    arr[db->n_catalogs] = NULL;
    return SQE_OK;
}

static bool is_location(const char *s) {
    return s[0] == '/' || !strncmp(s, "file:", 5) || strstr(s, "://") != NULL;
}

static int open_rest(const config *cfg, const config_catalog *cc, sqe_db *db, catalog **out,
                     sqe_error *err) {
    rest_backend_config rc;
    memset(&rc, 0, sizeof rc);
    rc.uri = cc->uri;
    rc.warehouse = *cc->warehouse ? cc->warehouse : NULL;
    rc.prefix = *cc->prefix ? cc->prefix : NULL;
    rc.location_root = *cc->warehouse && is_location(cc->warehouse) ? cc->warehouse : NULL;
    rc.vended_credentials = cc->vended_credentials != 0;
    char *id = NULL;
    if (!strcmp(cc->auth, "static")) {
        rc.token = cc->token;
        rc.service_identity = true;
    } else if (!strcmp(cc->auth, "client_credentials")) {
        const char *colon = strchr(cc->credential, ':');
        if (!colon)
            return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                           "credential must be \"client_id:client_secret\"");
        if (!(id = strndup(cc->credential, (size_t)(colon - cc->credential))))
            return err_nomem(err, "catalog");
        rc.oauth2_client_id = id;
        rc.oauth2_client_secret = colon + 1;
        rc.oauth2_scope = *cc->scope ? cc->scope : NULL;
        rc.oauth2_token_uri = *cc->oauth2_server_uri ? cc->oauth2_server_uri : NULL;
        rc.service_identity = true;
    } else if (!strcmp(cc->auth, "anonymous")) {
        rc.service_identity = true;
    }
    rest_exchange_config xc;
    char *secret = NULL;
    if (!strcmp(cc->auth, "token_exchange")) {
        const config_oidc *o = &cfg->auth.oidc;
        SQE_TRY(config_oidc_client_secret(o, &secret, err));
        xc = (rest_exchange_config){
            .issuer = o->issuer,
            .discovery_url = o->discovery_url,
            .client_id = o->client_id,
            .client_secret = secret,
            .audience = cc->audience,
            .timeout_ms = o->http_timeout_ms,
            .allow_insecure_http = o->allow_insecure_http != 0,
        };
        rc.token_exchange = &xc;
    }
    ice_backend *b = NULL;
    int rcode = ice_backend_rest(&rc, &b, err);
    free(id);
    if (secret) {
        OPENSSL_cleanse(secret, strlen(secret));
        free(secret);
    }
    SQE_TRY(rcode);
    return catalog_open_iceberg_backend(cc->name, b, &db->tracker, out, err);
}

/* The warehouse and SQLite file of a catalog of type sqlite into wh and file (PATH_BYTES each):
 * its settings, else the defaults under data_dir. [catalog] (is_default) defaults to
 * <data_dir>/warehouse and <data_dir>/catalog.db: the embedded default that `sqe serve` and
 * `sqe sql` both open. [catalogs.NAME] defaults to <data_dir>/catalogs/NAME/ with its catalog.db
 * inside. */
#define PATH_BYTES 4096
static int sqlite_paths(const config_catalog *cc, bool is_default, const char *data_dir,
                        char *wh, char *file, sqe_error *err) {
    int n = *cc->warehouse  ? snprintf(wh, PATH_BYTES, "%s", cc->warehouse)
            : is_default    ? snprintf(wh, PATH_BYTES, "%s/warehouse", data_dir)
                            : snprintf(wh, PATH_BYTES, "%s/catalogs/%s", data_dir, cc->name);
    if (n < 0 || n >= PATH_BYTES)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "catalog '%s': the warehouse path is too long",
                       cc->name);
    n = *cc->uri     ? snprintf(file, PATH_BYTES, "%s", cc->uri)
        : is_default ? snprintf(file, PATH_BYTES, "%s/catalog.db", data_dir)
                     : snprintf(file, PATH_BYTES, "%s/catalog.db", wh);
    if (n < 0 || n >= PATH_BYTES)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                       "catalog '%s': the catalog database path is too long", cc->name);
    return SQE_OK;
}

static int open_sqlite(const config_catalog *cc, const char *data_dir, sqe_db *db,
                       catalog **out, sqe_error *err) {
    char wh[PATH_BYTES], file[PATH_BYTES];
    SQE_TRY(sqlite_paths(cc, false, data_dir, wh, file, err));
    return catalog_open_iceberg(cc->name, file, wh, &db->tracker, out, err);
}

static int attach_one(const config *cfg, const config_catalog *cc, const char *data_dir,
                      sqe_db *db, bool first, sqe_error *err) {
    catalog *c = NULL;
    int rc;
    if (!strcmp(cc->type, "rest"))
        rc = open_rest(cfg, cc, db, &c, err);
    else if (!strcmp(cc->type, "sqlite"))
        rc = open_sqlite(cc, data_dir, db, &c, err);
    else
        rc = catalog_create(cc->name, &db->tracker, &c, err);
    if (!rc && c->ops->kind == CAT_KIND_ICEBERG) {
        catalog_storage_config sc = {
            .s3_endpoint = cc->s3_endpoint,
            .s3_region = cc->s3_region,
            .s3_path_style = cc->s3_path_style != 0,
            .s3_access_key_id = cc->s3_access_key_id,
            .s3_secret_access_key = cc->s3_secret_access_key,
            .s3_session_token = cc->s3_session_token,
            .vended_only = cc->require_vended_credentials != 0,
            .s3_sts_endpoint = cc->s3_sts_endpoint,
            .s3_role_arn = cc->s3_role_arn,
            .s3_role_session_name = cc->s3_role_session_name,
            .s3_sts_duration_s = cc->s3_sts_duration_ms / 1000,
        };
        bool sts = (cc->s3_sts_endpoint && *cc->s3_sts_endpoint) ||
                   (cc->s3_role_arn && *cc->s3_role_arn);
        if (sts && (strcmp(cc->type, "rest") != 0 || strcmp(cc->auth, "session_bearer") != 0))
            rc = err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                         "s3_sts_endpoint / s3_role_arn need type = \"rest\" and auth = "
                         "\"session_bearer\" (the user's own token is the web identity)");
        else
            rc = catalog_iceberg_set_storage(c, &sc, err);
        if (rc) catalog_destroy(c);
    }
    if (!rc) rc = add_catalog(db, c, first, err);
    if (rc) err_prefix(err, "catalog '%s' (type %s)", cc->name, cc->type);
    return rc;
}

int cli_database_open(const config *cfg, const sqe_db_options *base, sqe_db **out,
                      sqe_error *err) {
    *out = NULL;
    sqe_db_options dbo;
    memset(&dbo, 0, sizeof dbo);
    if (base) dbo = *base;
    char wh[PATH_BYTES], file[PATH_BYTES];
    dbo.warehouse = dbo.catalog_db = dbo.catalog_name = NULL;
    if (!strcmp(cfg->catalog.type, "sqlite")) {
        SQE_TRY(sqlite_paths(&cfg->catalog, true, cfg->coordinator.data_dir, wh, file, err));
        dbo.warehouse = wh;
        dbo.catalog_db = file;
        dbo.catalog_name = cfg->catalog.name;
    }
    sqe_db *db = NULL;
    SQE_TRY(sqe_db_open(&dbo, &db, err));
    int rc = cli_catalogs_attach(cfg, cfg->coordinator.data_dir, db, err);
    if (rc) {
        sqe_db_close(db);
        return rc;
    }
    *out = db;
    return SQE_OK;
}

int cli_catalogs_attach(const config *cfg, const char *data_dir, sqe_db *db, sqe_error *err) {
    if (!strcmp(cfg->catalog.type, "rest"))
        SQE_TRY(attach_one(cfg, &cfg->catalog, data_dir, db, true, err));
    for (size_t i = 0; i < cfg->n_catalogs; i++)
        SQE_TRY(attach_one(cfg, &cfg->catalogs[i], data_dir, db, false, err));
    return SQE_OK;
}
