/*
 * oidc_idp.c: discovery, the JWKS cache and bearer-token checks of one identity provider.
 *
 * INTERFACE: oidc_idp_create, oidc_idp_destroy, oidc_idp_prefetch, oidc_idp_verify,
 *   oidc_idp_endpoints, oidc_idp_issuer, oidc_idp_stats_get (oidc_idp.h).
 * NOTES:
 * - State under one mutex: the discovery result (kept once fetched), the current key set (a
 *   reference-counted keyset, swapped whole by a fetch), when it was fetched, and when the last
 *   fetch was attempted and whether it failed. One thread fetches at a time (`fetching`); the
 *   others wait on the condition variable and then use what it got.
 * - When keys are fetched: none yet or older than the TTL (unless the last attempt failed less
 *   than refetch_interval ago: the IdP is not hammered while down), or a token names a kid the
 *   set lacks and the last attempt is at least refetch_interval old.
 * - Times are CLOCK_MONOTONIC milliseconds (the TTL does not jump with the wall clock); token
 *   times are checked by jwt_verify against the wall clock.
 * - URLs from the discovery document must be https, or http to a loopback host when
 *   allow_insecure_http: a document cannot send SQE's requests somewhere else in plain text.
 */
#include "auth/oidc_idp.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "auth/jwks.h"
#include "io/http_client.h"

#define DISCOVERY_MAX_BYTES (64u * 1024u)
#define DEFAULT_TTL_MS (10 * 60 * 1000)
#define DEFAULT_HTTP_TIMEOUT_MS 10000

typedef struct keyset {
    _Atomic int refs;
    jwks *set;
} keyset;

struct oidc_idp {
    char *issuer, *discovery_url, *audience;
    char *user_claim, *groups_claim, *roles_claim;
    jwt_policy policy;
    jwt_principal_config claims;
    int64_t ttl_ms, refetch_ms;
    bool allow_http;
    http_client *http;

    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool fetching;
    bool discovered;
    oidc_endpoints ep; /* strings malloc'd */
    keyset *keys;
    int64_t keys_at_ms;      /* when keys was fetched */
    int64_t attempt_at_ms;   /* when the last fetch started; 0 = never */
    bool last_failed;
    char last_error[sizeof(((sqe_error *)0)->message)];

    _Atomic uint64_t n_fetches, n_fetch_failures, n_verified, n_refused;
};

static int64_t mono_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static char *dup_or_null(const char *s) { return s && *s ? strdup(s) : NULL; }

static void keyset_unref(keyset *k) {
    if (k && atomic_fetch_sub(&k->refs, 1) == 1) {
        jwks_free(k->set);
        free(k);
    }
}

static void endpoints_free(oidc_endpoints *ep) {
    free((char *)ep->issuer);
    free((char *)ep->jwks_uri);
    free((char *)ep->token_endpoint);
    free((char *)ep->authorization_endpoint);
    free((char *)ep->end_session_endpoint);
    memset(ep, 0, sizeof *ep);
}

int oidc_idp_create(const oidc_idp_config *cfg, oidc_idp **out, sqe_error *err) {
    *out = NULL;
    if (!cfg->issuer || !*cfg->issuer)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "OIDC: an issuer is required");
    if (!cfg->audience || !*cfg->audience)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "OIDC: an audience is required");
    if (cfg->leeway_s < 0 || cfg->leeway_s > JWT_MAX_LEEWAY_S)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "OIDC: leeway must be 0..%d s",
                       JWT_MAX_LEEWAY_S);
    oidc_idp *idp = calloc(1, sizeof *idp);
    if (!idp) return err_nomem(err, "OIDC provider");
    idp->issuer = strdup(cfg->issuer);
    idp->audience = strdup(cfg->audience);
    if (cfg->discovery_url && *cfg->discovery_url) {
        idp->discovery_url = strdup(cfg->discovery_url);
    } else if (idp->issuer) {
        size_t n = strlen(idp->issuer);
        bool slash = n && idp->issuer[n - 1] == '/';
        size_t cap = n + 40;
        idp->discovery_url = malloc(cap);
        if (idp->discovery_url)
            snprintf(idp->discovery_url, cap, "%s%s.well-known/openid-configuration",
                     idp->issuer, slash ? "" : "/");
    }
    idp->user_claim = dup_or_null(cfg->claims.user_claim);
    idp->groups_claim = dup_or_null(cfg->claims.groups_claim);
    idp->roles_claim = dup_or_null(cfg->claims.roles_claim);
    bool oom = !idp->issuer || !idp->audience || !idp->discovery_url ||
               (cfg->claims.user_claim && *cfg->claims.user_claim && !idp->user_claim) ||
               (cfg->claims.groups_claim && *cfg->claims.groups_claim && !idp->groups_claim) ||
               (cfg->claims.roles_claim && *cfg->claims.roles_claim && !idp->roles_claim);
    idp->policy = (jwt_policy){.issuer = idp->issuer,
                               .audience = idp->audience,
                               .allowed_algs = cfg->allowed_algs,
                               .leeway_s = cfg->leeway_s,
                               .require_at_jwt = cfg->require_at_jwt};
    idp->claims = (jwt_principal_config){idp->user_claim, idp->groups_claim, idp->roles_claim};
    idp->ttl_ms = cfg->jwks_ttl_ms > 0 ? cfg->jwks_ttl_ms : DEFAULT_TTL_MS;
    idp->refetch_ms = cfg->refetch_interval_ms > 0 ? cfg->refetch_interval_ms : 0;
    idp->allow_http = cfg->allow_insecure_http;
    pthread_mutex_init(&idp->mu, NULL);
    pthread_cond_init(&idp->cv, NULL);
    if (oom) {
        oidc_idp_destroy(idp);
        return err_nomem(err, "OIDC provider");
    }
    int timeout = cfg->http_timeout_ms > 0 ? (int)cfg->http_timeout_ms : DEFAULT_HTTP_TIMEOUT_MS;
    http_client_config hc = {.name = "identity provider",
                             .timeout_ms = timeout,
                             .connect_timeout_ms = timeout,
                             .total_timeout_ms = timeout,
                             .max_attempts = 2,
                             .max_body = JWKS_MAX_BYTES,
                             .pool_max = 4,
                             .ca_file = cfg->ca_file};
    int rc = http_client_create(&hc, &idp->http, err);
    if (rc) {
        oidc_idp_destroy(idp);
        return rc;
    }
    *out = idp;
    return SQE_OK;
}

void oidc_idp_destroy(oidc_idp *idp) {
    if (!idp) return;
    http_client_destroy(idp->http);
    keyset_unref(idp->keys);
    endpoints_free(&idp->ep);
    free(idp->issuer);
    free(idp->discovery_url);
    free(idp->audience);
    free(idp->user_claim);
    free(idp->groups_claim);
    free(idp->roles_claim);
    pthread_mutex_destroy(&idp->mu);
    pthread_cond_destroy(&idp->cv);
    free(idp);
}

const char *oidc_idp_issuer(const oidc_idp *idp) { return idp->issuer; }

void oidc_idp_stats_get(const oidc_idp *idp, oidc_idp_stats *out) {
    out->key_fetches = atomic_load(&idp->n_fetches);
    out->fetch_failures = atomic_load(&idp->n_fetch_failures);
    out->verified = atomic_load(&idp->n_verified);
    out->refused = atomic_load(&idp->n_refused);
}

/* --- fetching ------------------------------------------------------------------------------ */

static bool host_is_loopback(const char *url) {
    const char *h = strstr(url, "://");
    h = h ? h + 3 : url;
    size_t len = strcspn(h, "/?#");
    const char *at = memchr(h, '@', len);
    if (at) return false; /* no credentials in IdP URLs */
    if (len >= 5 && !strncmp(h, "[::1]", 5)) return len == 5 || h[5] == ':';
    size_t host_len = strcspn(h, ":/?#");
    if (host_len == 9 && !strncmp(h, "localhost", 9)) return true;
    if (host_len < 4 || strncmp(h, "127.", 4)) return false;
    for (size_t i = 4; i < host_len; i++)
        if (!strchr("0123456789.", h[i])) return false;
    return true;
}

/* Is url one SQE may call: https, or http to loopback with allow_http? */
static bool url_allowed(const oidc_idp *idp, const char *url) {
    if (!strncmp(url, "https://", 8) && url[8]) return true;
    return idp->allow_http && !strncmp(url, "http://", 7) && host_is_loopback(url);
}

/* GET url into a parsed JSON object (*out, caller decrefs). */
static int get_json(oidc_idp *idp, const char *what, const char *url, size_t max,
                    json_t **out, sqe_error *err) {
    *out = NULL;
    if (!url_allowed(idp, url))
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                       "OIDC %s URL is not https (plain http only to a loopback host with "
                       "allow_insecure_http)",
                       what);
    http_header accept = {"Accept", "application/json"};
    http_request req = {.method = "GET", .url = url, .headers = &accept, .n_headers = 1,
                        .max_body = max};
    http_response resp;
    memset(&resp, 0, sizeof resp);
    int rc = http_client_send(idp->http, &req, &resp, err);
    if (!rc && (resp.status < 200 || resp.status > 299))
        rc = err_set(err, SQE_ERR_IO_ERROR, "OIDC %s: the identity provider answered HTTP %ld",
                     what, resp.status);
    if (!rc) {
        json_error_t je;
        json_t *doc = json_loadb(resp.body.data ? resp.body.data : "", resp.body.len,
                                 JSON_REJECT_DUPLICATES, &je);
        if (!json_is_object(doc)) {
            json_decref(doc);
            rc = err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                         "OIDC %s: the identity provider's answer is not a JSON object", what);
        } else {
            *out = doc;
        }
    }
    http_response_free(&resp);
    return rc;
}

/* A URL member of the discovery document into *dst (malloc'd; NULL when absent). */
static int take_url(oidc_idp *idp, json_t *doc, const char *name, bool required,
                    const char **dst, sqe_error *err) {
    json_t *v = json_object_get(doc, name);
    if (!v) {
        if (required)
            return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                           "OIDC discovery: the document has no %s", name);
        return SQE_OK;
    }
    if (!json_is_string(v) || !url_allowed(idp, json_string_value(v)))
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                       "OIDC discovery: %s is not an allowed URL (https, or http to loopback "
                       "with allow_insecure_http)",
                       name);
    *dst = strdup(json_string_value(v));
    return *dst ? SQE_OK : err_nomem(err, "OIDC discovery");
}

static int discover(oidc_idp *idp, oidc_endpoints *ep, sqe_error *err) {
    json_t *doc = NULL;
    SQE_TRY(get_json(idp, "discovery", idp->discovery_url, DISCOVERY_MAX_BYTES, &doc, err));
    int rc = SQE_OK;
    json_t *iss = json_object_get(doc, "issuer");
    if (!json_is_string(iss) || strcmp(json_string_value(iss), idp->issuer) != 0)
        rc = err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                     "OIDC discovery: the document's issuer is not the configured issuer %s",
                     idp->issuer);
    if (!rc) {
        ep->issuer = strdup(idp->issuer);
        if (!ep->issuer) rc = err_nomem(err, "OIDC discovery");
    }
    if (!rc) rc = take_url(idp, doc, "jwks_uri", true, &ep->jwks_uri, err);
    if (!rc) rc = take_url(idp, doc, "token_endpoint", false, &ep->token_endpoint, err);
    if (!rc)
        rc = take_url(idp, doc, "authorization_endpoint", false, &ep->authorization_endpoint,
                      err);
    if (!rc)
        rc = take_url(idp, doc, "end_session_endpoint", false, &ep->end_session_endpoint, err);
    json_decref(doc);
    if (rc) endpoints_free(ep);
    return rc;
}

static int fetch_keys(oidc_idp *idp, const char *jwks_uri, keyset **out, sqe_error *err) {
    *out = NULL;
    if (!url_allowed(idp, jwks_uri))
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "OIDC jwks_uri is not an allowed URL");
    http_header accept = {"Accept", "application/json, application/jwk-set+json"};
    http_request req = {.method = "GET", .url = jwks_uri, .headers = &accept, .n_headers = 1,
                        .max_body = JWKS_MAX_BYTES};
    http_response resp;
    memset(&resp, 0, sizeof resp);
    int rc = http_client_send(idp->http, &req, &resp, err);
    if (!rc && (resp.status < 200 || resp.status > 299))
        rc = err_set(err, SQE_ERR_IO_ERROR, "OIDC keys: the identity provider answered HTTP %ld",
                     resp.status);
    jwks *set = NULL;
    if (!rc) rc = jwks_parse(resp.body.data ? resp.body.data : "", resp.body.len, &set, err);
    http_response_free(&resp);
    if (rc) return rc;
    if (*jwks_note(set))
        fprintf(stderr, "sqe serve: OIDC keys of %s: %s\n", idp->issuer, jwks_note(set));
    keyset *k = calloc(1, sizeof *k);
    if (!k) {
        jwks_free(set);
        return err_nomem(err, "OIDC keys");
    }
    atomic_init(&k->refs, 1);
    k->set = set;
    *out = k;
    return SQE_OK;
}

/* One fetch (discovery when not done yet, then the keys), the lock not held. */
static int fetch_all(oidc_idp *idp, bool need_discovery, const char *jwks_uri,
                     oidc_endpoints *ep, keyset **keys, sqe_error *err) {
    if (need_discovery) {
        SQE_TRY(discover(idp, ep, err));
        jwks_uri = ep->jwks_uri;
    }
    return fetch_keys(idp, jwks_uri, keys, err);
}

/* The key set to verify with (*out one reference, or NULL with err set when there is none).
 * force: the caller saw an unknown kid. */
static int get_keys(oidc_idp *idp, bool force, keyset **out, sqe_error *err) {
    *out = NULL;
    pthread_mutex_lock(&idp->mu);
    while (idp->fetching) pthread_cond_wait(&idp->cv, &idp->mu);
    int64_t now = mono_ms();
    bool fresh = idp->keys && now - idp->keys_at_ms < idp->ttl_ms;
    bool attempt_recent = idp->attempt_at_ms && now - idp->attempt_at_ms < idp->refetch_ms;
    bool fetch;
    if (force)
        fetch = !attempt_recent;
    else
        fetch = !fresh && !(idp->last_failed && attempt_recent);
    if (fetch) {
        idp->fetching = true;
        idp->attempt_at_ms = now;
        bool need_discovery = !idp->discovered;
        char *uri = need_discovery ? NULL : strdup(idp->ep.jwks_uri);
        pthread_mutex_unlock(&idp->mu);

        oidc_endpoints ep;
        memset(&ep, 0, sizeof ep);
        keyset *k = NULL;
        sqe_error fe;
        err_clear(&fe);
        int rc = (!need_discovery && !uri) ? err_nomem(&fe, "OIDC keys")
                                           : fetch_all(idp, need_discovery, uri, &ep, &k, &fe);
        free(uri);

        pthread_mutex_lock(&idp->mu);
        idp->fetching = false;
        pthread_cond_broadcast(&idp->cv);
        if (need_discovery && ep.issuer) {
            endpoints_free(&idp->ep);
            idp->ep = ep;
            idp->discovered = true;
        } else {
            endpoints_free(&ep);
        }
        if (!rc) {
            keyset_unref(idp->keys);
            idp->keys = k;
            idp->keys_at_ms = mono_ms();
            idp->last_failed = false;
            atomic_fetch_add(&idp->n_fetches, 1);
        } else {
            idp->last_failed = true;
            snprintf(idp->last_error, sizeof idp->last_error, "%s", fe.message);
            atomic_fetch_add(&idp->n_fetch_failures, 1);
            fprintf(stderr, "sqe serve: OIDC keys of %s not fetched: %s\n", idp->issuer,
                    fe.message);
        }
        now = mono_ms();
        fresh = idp->keys && now - idp->keys_at_ms < idp->ttl_ms;
    }
    int rc = SQE_OK;
    if (fresh) {
        atomic_fetch_add(&idp->keys->refs, 1);
        *out = idp->keys;
    } else {
        rc = err_set(err, SQE_ERR_UNAUTHENTICATED,
                     "token refused (unknown_key): the identity provider's signing keys are "
                     "not available%s%s",
                     idp->last_failed ? ": " : "", idp->last_failed ? idp->last_error : "");
    }
    pthread_mutex_unlock(&idp->mu);
    return rc;
}

int oidc_idp_prefetch(oidc_idp *idp, sqe_error *err) {
    keyset *k = NULL;
    int rc = get_keys(idp, false, &k, err);
    keyset_unref(k);
    return rc;
}

int oidc_idp_endpoints(oidc_idp *idp, oidc_endpoints *out, sqe_error *err) {
    pthread_mutex_lock(&idp->mu);
    bool discovered = idp->discovered;
    pthread_mutex_unlock(&idp->mu);
    if (!discovered) {
        keyset *k = NULL;
        sqe_error ke;
        (void)get_keys(idp, false, &k, &ke);
        keyset_unref(k);
    }
    /* discovery is kept for the idp's life once it succeeded: the strings stay valid */
    pthread_mutex_lock(&idp->mu);
    int rc = SQE_OK;
    if (idp->discovered)
        *out = idp->ep;
    else
        rc = err_set(err, SQE_ERR_IO_ERROR, "OIDC discovery of %s failed%s%s", idp->issuer,
                     idp->last_failed ? ": " : "", idp->last_failed ? idp->last_error : "");
    pthread_mutex_unlock(&idp->mu);
    return rc;
}

/* --- verifying ------------------------------------------------------------------------------ */

int oidc_idp_verify(oidc_idp *idp, const char *token, size_t len, sqe_principal **out,
                    jwt_reason *reason, sqe_error *err) {
    *out = NULL;
    *reason = JWT_OK;
    keyset *k = NULL;
    int rc = get_keys(idp, false, &k, err);
    if (rc) {
        *reason = JWT_UNKNOWN_KEY;
        atomic_fetch_add(&idp->n_refused, 1);
        return rc;
    }
    jwt_token *t = NULL;
    rc = jwt_verify(token, len, k->set, &idp->policy, &t, reason, err);
    if (rc && *reason == JWT_UNKNOWN_KEY) {
        /* perhaps a rotated key: fetch again (rate limited) and retry once */
        keyset *k2 = NULL;
        sqe_error e2;
        if (get_keys(idp, true, &k2, &e2) == SQE_OK && k2 != k)
            rc = jwt_verify(token, len, k2->set, &idp->policy, &t, reason, err);
        if (k2) {
            keyset_unref(k);
            k = k2;
        }
    }
    if (!rc) rc = jwt_principal_build(t, token, len, &idp->claims, out, reason, err);
    jwt_token_free(t);
    keyset_unref(k);
    atomic_fetch_add(rc ? &idp->n_refused : &idp->n_verified, 1);
    return rc;
}
