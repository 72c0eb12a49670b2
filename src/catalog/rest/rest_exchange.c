/*
 * rest_exchange.c: per-user catalog tokens by token exchange (see rest_exchange.h).
 *
 * INTERFACE: see rest_exchange.h.
 * NOTES: the grant itself is auth/oidc_grant.h (oidc_grant_exchange) and discovery is
 * auth/oidc_idp.h's (issuer and URLs checked as for the server's own bearer tokens); this file
 * adds the per-user cache. The grant client is made
 * once, after the first successful discovery, and then never changes (read without the lock
 * once set: it is published under the lock and only freed by destroy).
 */
#include "catalog/rest/rest_exchange.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "auth/oidc_grant.h"
#include "auth/oidc_idp.h"
#include "common/mem.h"
#define RENEW_BEFORE_MS 30000
#define NO_LIFETIME_MS 60000

typedef struct xentry {
    unsigned char key[32]; /* SHA-256 of the subject token */
    char *token;           /* NULL: a free slot */
    int64_t use_until_ms;
    uint64_t used;
} xentry;

struct rest_exchange {
    char *client_id, *client_secret, *audience, *ca_file;
    int64_t timeout_ms;
    oidc_idp *idp;                  /* discovery of the token endpoint */
    pthread_mutex_t lock;           /* grant (publication) and the cache */
    oidc_grant_client *grant;       /* NULL until discovery succeeded */
    xentry cache[REST_EXCHANGE_CACHE];
    uint64_t tick;
};

static int64_t wall_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static char *dup_or_null(const char *s) { return s && *s ? strdup(s) : NULL; }

const char *rest_exchange_audience(const rest_exchange *x) { return x->audience; }

int rest_exchange_create(const rest_exchange_config *cfg, rest_exchange **out, sqe_error *err) {
    *out = NULL;
    if (!cfg || !cfg->issuer || !*cfg->issuer || !cfg->client_id || !*cfg->client_id ||
        !cfg->audience || !*cfg->audience)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                       "token exchange needs [auth.oidc] issuer and client_id and the catalog's "
                       "audience");
    rest_exchange *x = calloc(1, sizeof *x);
    if (!x) return err_nomem(err, "token exchange");
    pthread_mutex_init(&x->lock, NULL);
    x->client_id = strdup(cfg->client_id);
    x->audience = strdup(cfg->audience);
    x->client_secret = dup_or_null(cfg->client_secret);
    x->ca_file = dup_or_null(cfg->ca_file);
    x->timeout_ms = cfg->timeout_ms > 0 ? cfg->timeout_ms : 10000;
    if (!x->client_id || !x->audience ||
        (cfg->client_secret && *cfg->client_secret && !x->client_secret) ||
        (cfg->ca_file && *cfg->ca_file && !x->ca_file)) {
        rest_exchange_destroy(x);
        return err_nomem(err, "token exchange");
    }
    oidc_idp_config ic = {.issuer = cfg->issuer,
                          .discovery_url = cfg->discovery_url,
                          .audience = cfg->audience,
                          .http_timeout_ms = x->timeout_ms,
                          .allow_insecure_http = cfg->allow_insecure_http,
                          .ca_file = x->ca_file};
    int rc = oidc_idp_create(&ic, &x->idp, err);
    if (rc) {
        rest_exchange_destroy(x);
        return rc;
    }
    *out = x;
    return SQE_OK;
}

void rest_exchange_destroy(rest_exchange *x) {
    if (!x) return;
    for (int i = 0; i < REST_EXCHANGE_CACHE; i++) mem_free_secret(x->cache[i].token);
    oidc_grant_client_destroy(x->grant);
    oidc_idp_destroy(x->idp);
    free(x->client_id);
    mem_free_secret(x->client_secret);
    free(x->audience);
    free(x->ca_file);
    pthread_mutex_destroy(&x->lock);
    free(x);
}

/* ---- discovery ---------------------------------------------------------------------------- */

static int discover(rest_exchange *x, sqe_error *err) {
    oidc_endpoints ep;
    int rc = oidc_idp_endpoints(x->idp, &ep, err);
    if (!rc && !ep.token_endpoint)
        rc = err_set(err, SQE_ERR_IO_ERROR, "the identity provider's discovery names no "
                                            "token_endpoint");
    if (rc) {
        err_prefix(err, "token exchange discovery: ");
        return rc;
    }
    const char *endpoint = ep.token_endpoint;
    oidc_grant_client *g = NULL;
    if (!rc) {
        oidc_grant_config gc = {.token_endpoint = endpoint, .client_id = x->client_id,
                                .client_secret = x->client_secret, .timeout_ms = x->timeout_ms,
                                .ca_file = x->ca_file};
        rc = oidc_grant_client_create(&gc, &g, err);
    }
    if (rc) return rc;
    pthread_mutex_lock(&x->lock);
    if (!x->grant) {
        x->grant = g;
        g = NULL;
    }
    pthread_mutex_unlock(&x->lock);
    oidc_grant_client_destroy(g); /* another thread was first */
    return SQE_OK;
}

/* ---- the cache ---------------------------------------------------------------------------- */

static xentry *find(rest_exchange *x, const unsigned char key[32]) {
    for (int i = 0; i < REST_EXCHANGE_CACHE; i++)
        if (x->cache[i].token && !memcmp(x->cache[i].key, key, 32)) return &x->cache[i];
    return NULL;
}

static void drop(xentry *e) {
    mem_free_secret(e->token);
    memset(e, 0, sizeof *e);
}

/* Keeps tok (taken) for key until use_until. Caller holds the lock. */
static void put(rest_exchange *x, const unsigned char key[32], char *tok, int64_t use_until) {
    xentry *e = find(x, key);
    if (!e) { /* a free or expired slot, else the least recently used */
        int64_t now = wall_ms();
        xentry *lru = &x->cache[0];
        for (int i = 0; i < REST_EXCHANGE_CACHE && !e; i++) {
            if (!x->cache[i].token || x->cache[i].use_until_ms <= now) e = &x->cache[i];
            else if (x->cache[i].used < lru->used) lru = &x->cache[i];
        }
        if (!e) e = lru;
    }
    drop(e);
    memcpy(e->key, key, 32);
    e->token = tok;
    e->use_until_ms = use_until;
    e->used = ++x->tick;
}

int rest_exchange_token(rest_exchange *x, const char *subject_token, int64_t subject_expires_ms,
                        bool renew, char **tok, sqe_error *err) {
    *tok = NULL;
    if (!subject_token || !*subject_token)
        return err_set(err, SQE_ERR_UNAUTHENTICATED,
                       "the catalog uses token exchange (audience %s) and the session has no "
                       "token of the user to exchange",
                       x->audience);
    unsigned char key[32];
    unsigned int key_len = 0;
    if (!EVP_Digest(subject_token, strlen(subject_token), key, &key_len, EVP_sha256(), NULL))
        return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "SHA-256 failed");
    int64_t now = wall_ms();
    pthread_mutex_lock(&x->lock);
    xentry *e = find(x, key);
    if (e && (renew || e->use_until_ms <= now)) {
        drop(e);
        e = NULL;
    }
    if (e) {
        e->used = ++x->tick;
        *tok = strdup(e->token);
    }
    oidc_grant_client *g = x->grant;
    pthread_mutex_unlock(&x->lock);
    if (e) return *tok ? SQE_OK : err_nomem(err, "token exchange");

    if (!g) {
        SQE_TRY(discover(x, err));
        pthread_mutex_lock(&x->lock);
        g = x->grant;
        pthread_mutex_unlock(&x->lock);
    }
    oidc_tokens t;
    int rc = oidc_grant_exchange(g, subject_token, x->audience, &t, err);
    if (rc) {
        err_prefix(err, "token exchange for catalog audience %s: ", x->audience);
        return rc;
    }
    int64_t got = wall_ms();
    int64_t until;
    if (t.expires_at_ms > got) {
        int64_t life = t.expires_at_ms - got;
        until = t.expires_at_ms - (life / 4 < RENEW_BEFORE_MS ? life / 4 : RENEW_BEFORE_MS);
    } else {
        until = got + NO_LIFETIME_MS;
    }
    if (subject_expires_ms > 0 && until > subject_expires_ms) until = subject_expires_ms;
    char *mine = strdup(t.access_token);
    char *keep = strdup(t.access_token);
    oidc_tokens_clear(&t);
    if (!mine || !keep) {
        mem_free_secret(mine);
        mem_free_secret(keep);
        return err_nomem(err, "token exchange");
    }
    pthread_mutex_lock(&x->lock);
    put(x, key, keep, until);
    pthread_mutex_unlock(&x->lock);
    *tok = mine;
    return SQE_OK;
}
