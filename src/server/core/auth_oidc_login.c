/*
 * auth_oidc_login.c: logins SQE makes at the identity provider for clients that only know a
 * password: the oidc_password provider (Basic user:password -> resource-owner password grant)
 * and the client_credentials provider (Basic client_id:secret -> client-credentials grant), and
 * the cache of the tokens they got, refreshed before they expire.
 *
 * INTERFACE: oidc_logins_create, oidc_logins_destroy, oidc_logins_key, oidc_logins_current,
 *   oidc_logins_known, auth_oidc_password_provider, auth_oidc_client_credentials_provider
 *   (auth_oidc.h).
 * NOTES:
 * - Entries are keyed by HMAC-SHA-256 under a random per-process key of (grant, user, password):
 *   the password is never kept, and the key proves the same credentials without it. An entry
 *   holds the principal built from the access token (verified like any bearer, by
 *   oidc_idp_verify: issuer, audience, signature), the refresh token and their expiries.
 * - A request whose credentials have an entry gets its principal while the access token has
 *   more than refresh_before left; otherwise the refresh token is used, and when that fails
 *   (expired, revoked) the grant runs again with the request's password. A session (Flight)
 *   holds only the key: its principal is refreshed the same way, and when the refresh fails the
 *   session ends (the password is not there to log in again).
 * - IdP calls run outside the cache lock; two requests with the same new credentials at once
 *   both log in and the later result is kept.
 * - At most LOGIN_SLOTS entries; a full cache evicts the entry used least recently (a session
 *   on it then ends at its next call and the client logs in again).
 * - client_credentials: the IdP's answer "invalid_client" / "unauthorized_client" means the user
 *   name is no client of the IdP: the request is passed on (to oidc_password, put after it),
 *   any other refusal rejects it.
 */
#include "server/core/auth_oidc.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/core_names.h>
#include <openssl/params.h>
#include <openssl/rand.h>

#include "auth/oidc_grant.h"
#include "common/mem.h"

#define LOGIN_SLOTS 1024

typedef enum login_grant { GRANT_PASSWORD, GRANT_CLIENT_CREDENTIALS } login_grant;

typedef struct login {
    unsigned char key[32]; /* all zero: free */
    sqe_principal *principal;
    char *refresh_token;   /* NULL when the IdP gave none */
    int64_t refresh_expires_ms;
    int64_t used_ms;
} login;

struct oidc_logins {
    oidc_idp *idp;
    char *client_id, *client_secret, *scope;
    int64_t refresh_before_ms, timeout_ms;
    unsigned char hmac_key[32];
    pthread_mutex_t mu;
    oidc_grant_client *grants; /* created on first use (needs discovery's token endpoint) */
    login slots[LOGIN_SLOTS];
};

static int64_t wall_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void login_clear(login *l) {
    sqe_principal_unref(l->principal);
    mem_free_secret(l->refresh_token);
    memset(l, 0, sizeof *l);
}

static bool key_zero(const unsigned char k[32]) {
    unsigned char z = 0;
    for (int i = 0; i < 32; i++) z |= k[i];
    return z == 0;
}

int oidc_logins_create(oidc_idp *idp, const oidc_logins_config *cfg, oidc_logins **out,
                       sqe_error *err) {
    *out = NULL;
    if (!cfg->client_id || !*cfg->client_id)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "[auth.oidc] client_id is required");
    oidc_logins *ls = calloc(1, sizeof *ls);
    if (!ls) return err_nomem(err, "OIDC logins");
    ls->idp = idp;
    ls->client_id = strdup(cfg->client_id);
    ls->client_secret = cfg->client_secret && *cfg->client_secret ? strdup(cfg->client_secret)
                                                                  : NULL;
    ls->scope = cfg->scope && *cfg->scope ? strdup(cfg->scope) : NULL;
    ls->refresh_before_ms = cfg->refresh_before_ms;
    ls->timeout_ms = cfg->timeout_ms;
    pthread_mutex_init(&ls->mu, NULL);
    if (!ls->client_id || (cfg->client_secret && *cfg->client_secret && !ls->client_secret) ||
        (cfg->scope && *cfg->scope && !ls->scope)) {
        oidc_logins_destroy(ls);
        return err_nomem(err, "OIDC logins");
    }
    if (RAND_bytes(ls->hmac_key, sizeof ls->hmac_key) != 1) {
        oidc_logins_destroy(ls);
        return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "no random bytes for OIDC logins");
    }
    *out = ls;
    return SQE_OK;
}

void oidc_logins_destroy(oidc_logins *ls) {
    if (!ls) return;
    for (int i = 0; i < LOGIN_SLOTS; i++) login_clear(&ls->slots[i]);
    oidc_grant_client_destroy(ls->grants);
    free(ls->client_id);
    mem_free_secret(ls->client_secret);
    free(ls->scope);
    OPENSSL_cleanse(ls->hmac_key, sizeof ls->hmac_key);
    pthread_mutex_destroy(&ls->mu);
    free(ls);
}

/* The grant client, created once discovery gave the token endpoint. */
static int grants_of(oidc_logins *ls, oidc_grant_client **out, sqe_error *err) {
    pthread_mutex_lock(&ls->mu);
    *out = ls->grants;
    pthread_mutex_unlock(&ls->mu);
    if (*out) return SQE_OK;
    oidc_endpoints ep;
    SQE_TRY(oidc_idp_endpoints(ls->idp, &ep, err));
    if (!ep.token_endpoint)
        return err_set(err, SQE_ERR_IO_ERROR,
                       "OIDC discovery of %s names no token_endpoint", oidc_idp_issuer(ls->idp));
    oidc_grant_config gc = {.token_endpoint = ep.token_endpoint,
                            .client_id = ls->client_id,
                            .client_secret = ls->client_secret,
                            .scope = ls->scope,
                            .timeout_ms = ls->timeout_ms};
    oidc_grant_client *g = NULL;
    SQE_TRY(oidc_grant_client_create(&gc, &g, err));
    pthread_mutex_lock(&ls->mu);
    if (ls->grants) {
        oidc_grant_client_destroy(g); /* another thread was first */
    } else {
        ls->grants = g;
    }
    *out = ls->grants;
    pthread_mutex_unlock(&ls->mu);
    return SQE_OK;
}

static void cred_key(const oidc_logins *ls, login_grant g, const char *user, const char *password,
                     unsigned char out[32]) {
    unsigned char tag = (unsigned char)g;
    EVP_MAC *mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
    EVP_MAC_CTX *ctx = mac ? EVP_MAC_CTX_new(mac) : NULL;
    OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string("digest", "SHA256", 0),
                           OSSL_PARAM_construct_end()};
    size_t n = 0;
    memset(out, 0, 32);
    if (ctx && EVP_MAC_init(ctx, ls->hmac_key, sizeof ls->hmac_key, params) == 1) {
        EVP_MAC_update(ctx, &tag, 1);
        EVP_MAC_update(ctx, (const unsigned char *)user, strlen(user) + 1);
        EVP_MAC_update(ctx, (const unsigned char *)password, strlen(password));
        EVP_MAC_final(ctx, out, &n, 32);
    }
    EVP_MAC_CTX_free(ctx);
    EVP_MAC_free(mac);
    if (key_zero(out)) out[0] = 1; /* zero marks a free slot */
}

static login *find_locked(oidc_logins *ls, const unsigned char key[32]) {
    for (int i = 0; i < LOGIN_SLOTS; i++)
        if (!key_zero(ls->slots[i].key) && CRYPTO_memcmp(ls->slots[i].key, key, 32) == 0)
            return &ls->slots[i];
    return NULL;
}

/* Stores a login under key (replacing one there, else a free or the least recent slot). Takes
 * over principal's reference and refresh_token. */
static void store(oidc_logins *ls, const unsigned char key[32], sqe_principal *principal,
                  char *refresh_token, int64_t refresh_expires_ms) {
    pthread_mutex_lock(&ls->mu);
    login *l = find_locked(ls, key);
    for (int i = 0; i < LOGIN_SLOTS && !l; i++)
        if (key_zero(ls->slots[i].key)) l = &ls->slots[i];
    if (!l) {
        l = &ls->slots[0];
        for (int i = 1; i < LOGIN_SLOTS; i++)
            if (ls->slots[i].used_ms < l->used_ms) l = &ls->slots[i];
    }
    login_clear(l);
    memcpy(l->key, key, 32);
    l->principal = principal;
    l->refresh_token = refresh_token;
    l->refresh_expires_ms = refresh_expires_ms;
    l->used_ms = wall_ms();
    pthread_mutex_unlock(&ls->mu);
}

static void forget(oidc_logins *ls, const unsigned char key[32]) {
    pthread_mutex_lock(&ls->mu);
    login *l = find_locked(ls, key);
    if (l) login_clear(l);
    pthread_mutex_unlock(&ls->mu);
}

/* The principal of a token response: the access token verified like a bearer, method set. */
static int principal_of(oidc_logins *ls, const oidc_tokens *t, sqe_auth_method method,
                        sqe_principal **out, sqe_error *err) {
    sqe_principal *p = NULL;
    jwt_reason reason;
    int rc = oidc_idp_verify(ls->idp, t->access_token, strlen(t->access_token), &p, &reason, err);
    if (rc) {
        err_prefix(err, "the identity provider's access token");
        return rc;
    }
    sqe_principal_info info = {.user = p->user,
                               .groups = p->groups,
                               .n_groups = p->n_groups,
                               .roles = p->roles,
                               .n_roles = p->n_roles,
                               .token = p->token,
                               .token_expires_ms = p->token_expires_ms,
                               .method = method};
    rc = sqe_principal_create(&info, out, err);
    sqe_principal_unref(p);
    return rc;
}

/* The principal from a fresh token response, stored under key. */
static int keep(oidc_logins *ls, const unsigned char key[32], oidc_tokens *t,
                sqe_auth_method method, sqe_principal **out, sqe_error *err) {
    sqe_principal *p = NULL;
    int rc = principal_of(ls, t, method, &p, err);
    if (!rc) {
        char *refresh = t->refresh_token;
        t->refresh_token = NULL;
        store(ls, key, sqe_principal_ref(p), refresh, t->refresh_expires_at_ms);
        *out = p;
    }
    oidc_tokens_clear(t);
    return rc;
}

typedef enum cached_state { CACHED_NONE, CACHED_FRESH, CACHED_STALE } cached_state;

/* The cached login of key: FRESH with *out (a reference), STALE with *refresh (a copy, or NULL
 * when it cannot be refreshed), or NONE. */
static cached_state lookup(oidc_logins *ls, const unsigned char key[32], sqe_principal **out,
                           char **refresh, sqe_auth_method *method) {
    *out = NULL;
    *refresh = NULL;
    int64_t now = wall_ms();
    pthread_mutex_lock(&ls->mu);
    login *l = find_locked(ls, key);
    cached_state st = CACHED_NONE;
    if (l) {
        l->used_ms = now;
        *method = l->principal->method;
        int64_t exp = l->principal->token_expires_ms;
        if (exp - now > ls->refresh_before_ms) {
            *out = sqe_principal_ref(l->principal);
            st = CACHED_FRESH;
        } else {
            st = CACHED_STALE;
            if (l->refresh_token && (!l->refresh_expires_ms || l->refresh_expires_ms > now))
                *refresh = strdup(l->refresh_token);
        }
    }
    pthread_mutex_unlock(&ls->mu);
    return st;
}

/* Refreshes key's login with refresh (wiped and freed here). */
static int refresh_login(oidc_logins *ls, const unsigned char key[32], char *refresh,
                         sqe_auth_method method, sqe_principal **out, sqe_error *err) {
    oidc_grant_client *g = NULL;
    int rc = grants_of(ls, &g, err);
    oidc_tokens t;
    memset(&t, 0, sizeof t);
    if (!rc) rc = oidc_grant_refresh(g, refresh, &t, err);
    mem_free_secret(refresh);
    if (rc) return rc;
    return keep(ls, key, &t, method, out, err);
}

bool oidc_logins_key(oidc_logins *ls, const sqe_principal *p, unsigned char key[32]) {
    bool found = false;
    pthread_mutex_lock(&ls->mu);
    for (int i = 0; i < LOGIN_SLOTS && !found; i++) {
        login *l = &ls->slots[i];
        if (key_zero(l->key) || !l->principal || !l->principal->token || !p->token) continue;
        if (l->principal == p || !strcmp(l->principal->token, p->token)) {
            memcpy(key, l->key, 32);
            found = true;
        }
    }
    pthread_mutex_unlock(&ls->mu);
    return found;
}

bool oidc_logins_known(oidc_logins *ls, const unsigned char key[32]) {
    pthread_mutex_lock(&ls->mu);
    bool known = find_locked(ls, key) != NULL;
    pthread_mutex_unlock(&ls->mu);
    return known;
}

int oidc_logins_current(oidc_logins *ls, const unsigned char key[32], sqe_principal **out,
                        sqe_error *err) {
    char *refresh = NULL;
    sqe_auth_method method = SQE_AUTH_OIDC_PASSWORD;
    cached_state st = lookup(ls, key, out, &refresh, &method);
    if (st == CACHED_FRESH) return SQE_OK;
    if (st == CACHED_NONE || !refresh)
        return err_set(err, SQE_ERR_UNAUTHENTICATED,
                       "Session ended: its identity-provider login expired; log in again");
    sqe_error re;
    int rc = refresh_login(ls, key, refresh, method, out, &re);
    if (rc) {
        forget(ls, key);
        return err_set(err, SQE_ERR_UNAUTHENTICATED,
                       "Session ended: the identity provider did not refresh its login (%s); "
                       "log in again",
                       re.message);
    }
    return SQE_OK;
}

/* --- the providers ------------------------------------------------------------------------- */

typedef struct login_provider {
    oidc_logins *ls;
    login_grant grant;
} login_provider;

static int login_check(void *state, const auth_request *req, sqe_principal **principal,
                       sqe_error *err) {
    login_provider *lp = state;
    oidc_logins *ls = lp->ls;
    if (!req->authorization || strncasecmp(req->authorization, "Basic", 5) != 0)
        return SQE_OK; /* not ours */
    char *user = NULL, *password = NULL;
    if (auth_basic_decode(req->authorization, &user, &password, NULL) != SQE_OK)
        return err_set(err, AUTH_ERR_UNAUTHENTICATED, "Malformed Basic credentials");
    int rc = SQE_OK;
    sqe_auth_method method =
        lp->grant == GRANT_PASSWORD ? SQE_AUTH_OIDC_PASSWORD : SQE_AUTH_CLIENT_CREDENTIALS;
    unsigned char key[32];
    cred_key(ls, lp->grant, user, password, key);
    char *refresh = NULL;
    sqe_auth_method cached_method = method;
    cached_state st = lookup(ls, key, principal, &refresh, &cached_method);
    if (st == CACHED_FRESH) goto out;
    if (refresh) {
        sqe_error re;
        if (refresh_login(ls, key, refresh, method, principal, &re) == SQE_OK) goto out;
    }
    /* log in (again) with the request's credentials */
    oidc_grant_client *g = NULL;
    rc = grants_of(ls, &g, err);
    if (rc) goto out;
    oidc_tokens t;
    memset(&t, 0, sizeof t);
    if (lp->grant == GRANT_PASSWORD)
        rc = oidc_grant_password(g, user, password, &t, err);
    else
        rc = oidc_grant_client_credentials(g, user, password, &t, err);
    if (rc == SQE_ERR_UNAUTHENTICATED && lp->grant == GRANT_CLIENT_CREDENTIALS &&
        (!strcmp(t.error, "invalid_client") || !strcmp(t.error, "unauthorized_client"))) {
        rc = SQE_OK; /* not a client of the IdP: someone else's credentials */
        goto out;
    }
    if (rc == SQE_ERR_UNAUTHENTICATED)
        err_set(err, AUTH_ERR_UNAUTHENTICATED, "Invalid user name or password (%s)",
                *t.error ? t.error : "refused by the identity provider");
    if (!rc) rc = keep(ls, key, &t, method, principal, err);
    oidc_tokens_clear(&t);
out:
    OPENSSL_cleanse(password, strlen(password));
    free(password);
    free(user);
    OPENSSL_cleanse(key, sizeof key);
    return rc;
}

static void login_provider_destroy(void *state) { free(state); }

static int make_provider(oidc_logins *ls, login_grant g, auth_provider *out, sqe_error *err) {
    memset(out, 0, sizeof *out);
    login_provider *lp = calloc(1, sizeof *lp);
    if (!lp) return err_nomem(err, "OIDC login provider");
    lp->ls = ls;
    lp->grant = g;
    out->name = g == GRANT_PASSWORD ? "oidc_password" : "client_credentials";
    out->method = g == GRANT_PASSWORD ? SQE_AUTH_OIDC_PASSWORD : SQE_AUTH_CLIENT_CREDENTIALS;
    out->state = lp;
    out->check = login_check;
    out->destroy = login_provider_destroy;
    return SQE_OK;
}

int auth_oidc_password_provider(oidc_logins *ls, auth_provider *out, sqe_error *err) {
    return make_provider(ls, GRANT_PASSWORD, out, err);
}

int auth_oidc_client_credentials_provider(oidc_logins *ls, auth_provider *out, sqe_error *err) {
    return make_provider(ls, GRANT_CLIENT_CREDENTIALS, out, err);
}
