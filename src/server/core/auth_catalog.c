/*
 * auth_catalog.c: bearer tokens checked by the REST catalog (see auth_catalog.h).
 *
 * INTERFACE: auth_catalog_create, auth_catalog_destroy, auth_catalog_check, auth_catalog_known.
 * NOTES: the cache is a small array with LRU-by-expiry replacement under one mutex; entries hold
 * a copy of the token (compared in full, never printed) and their expiry on a monotonic clock.
 */
#include "server/core/auth_catalog.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/rest/rest_client.h"
#include "common/strbuf.h"

typedef struct ac_entry {
    char *token;
    int64_t expires_ms;
} ac_entry;

struct auth_catalog {
    rest_client *client;
    char *path;                 /* "/v1/config[?warehouse=...]" */
    pthread_mutex_t lock;
    ac_entry cache[AUTH_CATALOG_ENTRIES];
};

static const config_catalog *bearer_catalog(const config *cfg) {
    if (!strcmp(cfg->catalog.type, "rest") && !strcmp(cfg->catalog.auth, "session_bearer"))
        return &cfg->catalog;
    for (size_t i = 0; i < cfg->n_catalogs; i++)
        if (!strcmp(cfg->catalogs[i].type, "rest") &&
            !strcmp(cfg->catalogs[i].auth, "session_bearer"))
            return &cfg->catalogs[i];
    return NULL;
}

int auth_catalog_create(const config *cfg, auth_catalog **out, sqe_error *err) {
    *out = NULL;
    const config_catalog *cc = bearer_catalog(cfg);
    if (!cc) return SQE_OK;
    auth_catalog *ac = calloc(1, sizeof *ac);
    if (!ac) return err_nomem(err, "catalog token checker");
    pthread_mutex_init(&ac->lock, NULL);
    rest_client_config rc;
    memset(&rc, 0, sizeof rc);
    rc.uri = cc->uri;
    int code = rest_client_open(&rc, &ac->client, err);
    strbuf sb;
    strbuf_init(&sb);
    strbuf_puts(&sb, "/v1/config");
    if (*cc->warehouse) {
        strbuf_puts(&sb, "?warehouse=");
        rest_url_encode(&sb, cc->warehouse);
    }
    if (!code && sb.failed) code = err_nomem(err, "catalog token checker");
    if (!code) ac->path = strbuf_move(&sb);
    strbuf_reset(&sb);
    if (code) {
        auth_catalog_destroy(ac);
        return code;
    }
    *out = ac;
    return SQE_OK;
}

void auth_catalog_destroy(auth_catalog *ac) {
    if (!ac) return;
    for (int i = 0; i < AUTH_CATALOG_ENTRIES; i++) free(ac->cache[i].token);
    rest_client_close(ac->client);
    free(ac->path);
    pthread_mutex_destroy(&ac->lock);
    free(ac);
}

bool auth_catalog_known(auth_catalog *ac, const char *token) {
    if (!ac || !token) return false;
    int64_t now = rest_now_ms();
    bool known = false;
    pthread_mutex_lock(&ac->lock);
    for (int i = 0; i < AUTH_CATALOG_ENTRIES && !known; i++)
        known = ac->cache[i].token && ac->cache[i].expires_ms > now &&
                !strcmp(ac->cache[i].token, token);
    pthread_mutex_unlock(&ac->lock);
    return known;
}

static void remember(auth_catalog *ac, const char *token) {
    int64_t now = rest_now_ms();
    pthread_mutex_lock(&ac->lock);
    int slot = 0;
    for (int i = 0; i < AUTH_CATALOG_ENTRIES; i++) {
        if (ac->cache[i].token && !strcmp(ac->cache[i].token, token)) {
            slot = i;
            break;
        }
        if (ac->cache[i].expires_ms < ac->cache[slot].expires_ms) slot = i;
    }
    char *copy = strdup(token);
    if (copy) {
        free(ac->cache[slot].token);
        ac->cache[slot].token = copy;
        ac->cache[slot].expires_ms = now + AUTH_CATALOG_TTL_MS;
    }
    pthread_mutex_unlock(&ac->lock);
}

int auth_catalog_check(auth_catalog *ac, const char *token, sqe_error *err) {
    if (!ac) return err_set(err, SQE_ERR_UNAUTHENTICATED, "No catalog checks bearer tokens");
    if (auth_catalog_known(ac, token)) return SQE_OK;
    rest_request req;
    memset(&req, 0, sizeof req);
    req.method = REST_GET;
    req.path = ac->path;
    req.token = token;
    req.idempotent = true;
    rest_response resp;
    memset(&resp, 0, sizeof resp);
    int rc = rest_client_request(ac->client, &req, &resp, err);
    /* 403: the catalog knows the user but forbids this catalog; statements then fail with
     * PERMISSION_DENIED naming what was refused, which tells the user more than a 401 here */
    if (!rc && resp.status == 401)
        rc = err_set(err, SQE_ERR_UNAUTHENTICATED,
                     "The catalog %s refused the bearer token (HTTP %ld)",
                     rest_client_uri(ac->client), resp.status);
    else if (!rc && resp.status != 403 && (resp.status < 200 || resp.status > 299))
        rc = rest_client_http_error(&resp, "checking the bearer token", err);
    rest_response_free(&resp);
    if (!rc) remember(ac, token);
    return rc;
}
