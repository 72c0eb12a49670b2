/*
 * auth.c: the authentication chain (ordered providers, first decision wins), its failure rate
 * limiting, the anonymous provider, and the request helpers (Basic credentials, loopback peers).
 *
 * INTERFACE: auth_chain_create, auth_chain_add, auth_chain_count, auth_chain_name,
 *   auth_chain_authenticate, auth_chain_authenticate_principal, auth_chain_fingerprint,
 *   auth_chain_destroy,
 *   auth_anonymous_provider, auth_basic_decode, auth_peer_is_loopback, auth_user_name_valid
 *   (auth.h).
 * NOTES:
 * - Rate limiting: two fixed tables, (user, peer address) -> consecutive failures and peer
 *   address -> failures of any user name (spraying user names from one address does not reset
 *   anything). The first user_free_failures (address_free_failures) failures cost nothing; each
 *   later one opens a backoff window (250 ms doubling, capped at 30 s) during which attempts are
 *   refused without running the (expensive) password check. An attempt is counted as pending
 *   when it starts and the window is opened from failures + pending, so N parallel wrong
 *   passwords are refused like N sequential ones; requests carrying the same credentials at the
 *   same time (a connection pool logging in) are one pending attempt, tracked by a SHA-256
 *   digest of the Authorization header. When the attempt ends it becomes a failure
 *   (window renewed from its end) or goes away. A success clears its (user, address) entry but
 *   not the address's failures (one valid account must not reset an address's guesses).
 *   Entries idle for ENTRY_TTL_MS are reused; when a table is full the stalest entry without
 *   pending attempts is evicted, so an attacker spraying users cannot grow memory.
 * - Requests without an Authorization header count nowhere: they cost no check, and every
 *   external (OAuth2) login starts with one. Requests naming no user (a bearer token without
 *   X-Trino-User) count against their address only. A login the password provider was too
 *   busy to check (QUERY_QUEUE_FULL) or whose client went away before the check (USER_CANCELED)
 *   counts against its address, not its user.
 * - The peer key leaves out the port (a client reconnecting gets a new one).
 * - Log lines escape control characters of the user name (it comes from the client).
 */
#include "server/core/auth.h"

#include <arpa/inet.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <openssl/evp.h>

#include "common/base64.h"

#define MAX_PROVIDERS 8
#define LIMIT_SLOTS 1024
#define BACKOFF_BASE_MS 250
#define BACKOFF_MAX_MS 30000
#define ENTRY_TTL_MS (10 * 60 * 1000)

#define INFLIGHT_SLOTS 8

typedef struct fail_entry {
    char key[200]; /* "user\npeer-address" or "peer-address"; "" = free */
    uint32_t failures;
    uint32_t pending; /* distinct credentials being checked now */
    int64_t last_ms;
    int64_t blocked_until_ms;
    /* the credentials being checked (digests; 0 = free) and how many requests carry each */
    uint64_t inflight[INFLIGHT_SLOTS];
    uint32_t inflight_refs[INFLIGHT_SLOTS];
} fail_entry;

struct auth_chain {
    auth_provider providers[MAX_PROVIDERS];
    uint32_t n;
    uint32_t user_free, address_free;
    pthread_mutex_t lock; /* the failure tables */
    fail_entry fails[LIMIT_SLOTS];      /* per (user, address) */
    fail_entry addr_fails[LIMIT_SLOTS]; /* per address */
    char **impersonation_roles;
    size_t n_impersonation_roles;
};

static int64_t mono_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int auth_chain_create(auth_chain **out, sqe_error *err) {
    auth_chain *c = calloc(1, sizeof *c);
    if (!c) return err_nomem(err, "authentication chain");
    pthread_mutex_init(&c->lock, NULL);
    c->user_free = AUTH_DEFAULT_USER_FREE_FAILURES;
    c->address_free = AUTH_DEFAULT_ADDRESS_FREE_FAILURES;
    *out = c;
    return SQE_OK;
}

int auth_chain_add(auth_chain *chain, const auth_provider *provider, sqe_error *err) {
    if (chain->n >= MAX_PROVIDERS) {
        if (provider->destroy) provider->destroy(provider->state);
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "too many authenticators (at most %d)",
                       MAX_PROVIDERS);
    }
    chain->providers[chain->n++] = *provider;
    return SQE_OK;
}

void auth_chain_set_limits(auth_chain *chain, const auth_chain_limits *limits) {
    chain->user_free =
        limits->user_free_failures ? limits->user_free_failures : AUTH_DEFAULT_USER_FREE_FAILURES;
    chain->address_free = limits->address_free_failures ? limits->address_free_failures
                                                        : AUTH_DEFAULT_ADDRESS_FREE_FAILURES;
}

uint32_t auth_chain_count(const auth_chain *chain) { return chain->n; }

const char *auth_chain_name(const auth_chain *chain, uint32_t i) {
    return i < chain->n ? chain->providers[i].name : NULL;
}

void auth_chain_destroy(auth_chain *chain) {
    if (!chain) return;
    for (uint32_t i = 0; i < chain->n; i++)
        if (chain->providers[i].destroy) chain->providers[i].destroy(chain->providers[i].state);
    for (size_t i = 0; i < chain->n_impersonation_roles; i++) free(chain->impersonation_roles[i]);
    free(chain->impersonation_roles);
    pthread_mutex_destroy(&chain->lock);
    free(chain);
}

/* The address part of a peer ("1.2.3.4:5" -> "1.2.3.4", "[::1]:5" -> "::1"). */
static void peer_address(const char *peer, char *buf, size_t n) {
    buf[0] = 0;
    if (!peer || !n) return;
    const char *s = peer, *e;
    if (*s == '[') {
        s++;
        e = strchr(s, ']');
        if (!e) e = s + strlen(s);
    } else {
        e = strrchr(s, ':');
        /* a bare IPv6 address has several colons: keep it whole */
        if (!e || strchr(s, ':') != e) e = s + strlen(s);
    }
    size_t len = (size_t)(e - s);
    if (len >= n) len = n - 1;
    memcpy(buf, s, len);
    buf[len] = 0;
}

bool auth_peer_is_loopback(const char *peer) {
    char addr[64];
    peer_address(peer, addr, sizeof addr);
    struct in_addr a4;
    struct in6_addr a6;
    if (inet_pton(AF_INET, addr, &a4) == 1) return (ntohl(a4.s_addr) >> 24) == 127;
    if (inet_pton(AF_INET6, addr, &a6) == 1) {
        if (IN6_IS_ADDR_LOOPBACK(&a6)) return true;
        if (IN6_IS_ADDR_V4MAPPED(&a6)) return a6.s6_addr[12] == 127;
    }
    return false;
}

bool auth_user_name_valid(const char *user) {
    size_t n = user ? strlen(user) : 0;
    if (n == 0 || n > 128) return false;
    for (const unsigned char *p = (const unsigned char *)user; *p; p++)
        if (*p < 0x20 || *p == 0x7f || *p == ':') return false;
    return true;
}

int auth_basic_decode(const char *authorization, char **user, char **password, sqe_error *err) {
    if (!authorization || strncasecmp(authorization, "Basic ", 6) != 0)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "not Basic credentials");
    const char *b = authorization + 6;
    while (*b == ' ') b++;
    size_t len = strlen(b);
    while (len && b[len - 1] == ' ') len--;
    if (len == 0 || len > 4096)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "malformed Basic credentials");
    unsigned char *raw = malloc(len + 1);
    if (!raw) return err_nomem(err, "credentials");
    long n = base64_decode(b, len, false, raw, len);
    const char *colon = n > 0 ? memchr(raw, ':', (size_t)n) : NULL;
    if (n <= 0 || !colon || memchr(raw, 0, (size_t)n)) {
        free(raw);
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "malformed Basic credentials");
    }
    size_t ulen = (size_t)(colon - (const char *)raw);
    char *u = strndup((const char *)raw, ulen);
    char *p = strndup(colon + 1, (size_t)n - ulen - 1);
    memset(raw, 0, (size_t)n);
    free(raw);
    if (!u || !p) {
        free(u);
        free(p);
        return err_nomem(err, "credentials");
    }
    *user = u;
    *password = p;
    return SQE_OK;
}

/* --- rate limiting ------------------------------------------------------------------------ */

/* The user a request claims, for the failure key and the log: the Basic user, else the
 * protocol user, else "". Written into buf (control characters replaced by '?'). */
static void claimed_user(const auth_request *req, char *buf, size_t n) {
    buf[0] = 0;
    char *u = NULL, *p = NULL;
    const char *name = req->user;
    if (req->authorization && auth_basic_decode(req->authorization, &u, &p, NULL) == SQE_OK)
        name = u;
    if (name) snprintf(buf, n, "%s", name);
    for (char *c = buf; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = '?';
    if (p) {
        memset(p, 0, strlen(p));
        free(p);
    }
    free(u);
}

static fail_entry *fail_find(fail_entry *table, const char *key, bool create, int64_t now) {
    fail_entry *free_slot = NULL, *stalest = NULL;
    for (int i = 0; i < LIMIT_SLOTS; i++) {
        fail_entry *e = &table[i];
        if (e->key[0] && !e->pending && now - e->last_ms > ENTRY_TTL_MS &&
            now >= e->blocked_until_ms)
            e->key[0] = 0; /* expired */
        if (!e->key[0]) {
            if (!free_slot) free_slot = e;
            continue;
        }
        if (!strcmp(e->key, key)) return e;
        if (!e->pending && (!stalest || e->last_ms < stalest->last_ms)) stalest = e;
    }
    if (!create) return NULL;
    fail_entry *e = free_slot ? free_slot : stalest;
    if (!e) return NULL; /* every entry has attempts in flight */
    memset(e, 0, sizeof *e);
    snprintf(e->key, sizeof e->key, "%s", key);
    return e;
}

static int64_t backoff_ms(uint32_t failures, uint32_t free_failures) {
    if (failures < free_failures) return 0;
    uint32_t shift = failures - free_failures;
    if (shift > 10) shift = 10;
    int64_t ms = (int64_t)BACKOFF_BASE_MS << shift;
    return ms > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : ms;
}

static void block_until(fail_entry *e, int64_t until) {
    if (until > e->blocked_until_ms) e->blocked_until_ms = until;
}

/* Starts an attempt with the credentials of digest on e (may be NULL): a credential not
 * already being checked counts as pending, and the window its count calls for opens now.
 * Requests with the same credentials at the same time (a client's connection pool logging in)
 * are one attempt. */
static void attempt_start(fail_entry *e, uint64_t digest, uint32_t free_failures, int64_t now) {
    if (!e) return;
    e->last_ms = now;
    int free_slot = -1;
    for (int i = 0; i < INFLIGHT_SLOTS; i++) {
        if (e->inflight[i] == digest) {
            e->inflight_refs[i]++;
            return;
        }
        if (!e->inflight[i] && free_slot < 0) free_slot = i;
    }
    if (free_slot >= 0) { /* else: counted, not tracked (ends as an untracked attempt) */
        e->inflight[free_slot] = digest;
        e->inflight_refs[free_slot] = 1;
    }
    e->pending++;
    int64_t b = backoff_ms(e->failures + e->pending, free_failures);
    if (b) block_until(e, now + b);
}

/* Ends an attempt on the entry of key in table: failed, succeeded (ok: the failures and the
 * window go), or neither (only the pending count goes). */
static void attempt_end(fail_entry *table, const char *key, uint64_t digest, bool failed,
                        bool ok, uint32_t free_failures, int64_t now) {
    fail_entry *e = fail_find(table, key, failed, now);
    if (!e) return;
    bool last = true;
    for (int i = 0; i < INFLIGHT_SLOTS; i++)
        if (e->inflight[i] == digest) {
            last = --e->inflight_refs[i] == 0;
            if (last) e->inflight[i] = 0;
            break;
        }
    if (last && e->pending) e->pending--;
    if (ok) {
        e->failures = 0;
        e->blocked_until_ms = 0;
        if (!e->pending) e->key[0] = 0;
        return;
    }
    if (!failed) return;
    e->failures++;
    e->last_ms = now;
    int64_t b = backoff_ms(e->failures, free_failures);
    if (b) block_until(e, now + b);
}

/* A digest of the request's credentials (never 0), to recognize the same credentials in
 * flight. */
static uint64_t credentials_digest(const auth_request *req) {
    const char *a = req->authorization ? req->authorization : "";
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    uint64_t d = 0;
    if (EVP_Digest(a, strlen(a), md, &n, EVP_sha256(), NULL) == 1 && n >= 8)
        memcpy(&d, md, sizeof d);
    return d ? d : 1;
}

int auth_chain_set_impersonation(auth_chain *chain, const char *const *roles, size_t n,
                                 sqe_error *err) {
    if (!n) return SQE_OK;
    char **copy = calloc(n, sizeof *copy);
    if (!copy) return err_nomem(err, "impersonation roles");
    for (size_t i = 0; i < n; i++) {
        copy[i] = strdup(roles[i]);
        if (!copy[i]) {
            while (i) free(copy[--i]);
            free(copy);
            return err_nomem(err, "impersonation roles");
        }
    }
    chain->impersonation_roles = copy;
    chain->n_impersonation_roles = n;
    return SQE_OK;
}

/* The request names a user other than the authenticated one: refused, or (the principal holds
 * an impersonation role) *p replaced by a principal for the claimed user. */
static int impersonate(const auth_chain *chain, const auth_request *req, sqe_principal **p,
                       sqe_error *err) {
    if (!req->user || !*req->user || !strcmp(req->user, (*p)->user)) return SQE_OK;
    if (!sqe_principal_has_any_role(*p, (const char *const *)chain->impersonation_roles,
                                    chain->n_impersonation_roles))
        return err_set(err, AUTH_ERR_UNAUTHENTICATED,
                       "The claimed user does not match the authenticated user (impersonation "
                       "is not allowed for this user)");
    if (!auth_user_name_valid(req->user))
        return err_set(err, AUTH_ERR_UNAUTHENTICATED, "Invalid user name");
    sqe_principal_info info = {.user = req->user,
                               .token = (*p)->token,
                               .token_expires_ms = (*p)->token_expires_ms,
                               .method = (*p)->method};
    sqe_principal *as = NULL;
    SQE_TRY(sqe_principal_create(&info, &as, err));
    fprintf(stderr, "sqe serve: user '%s' runs as '%s' (impersonation)\n", (*p)->user, req->user);
    sqe_principal_unref(*p);
    *p = as;
    return SQE_OK;
}

/* The chain's decision: *principal (one reference) built by the provider that accepted. */
static int chain_run(auth_chain *chain, const auth_request *req, sqe_principal **principal,
                     sqe_error *err) {
    char user[130], addr[64], key[200];
    claimed_user(req, user, sizeof user);
    peer_address(req->peer, addr, sizeof addr);
    snprintf(key, sizeof key, "%s\n%s", user, addr);
    bool count_addr = req->authorization != NULL;
    /* a bearer token names no user until it is checked: only its address is counted; a
     * request without credentials guesses nothing (it is how Trino's external authentication
     * starts, with the user's X-Trino-User), so it is not counted at all */
    bool count_user = user[0] != 0 && req->authorization != NULL;
    uint64_t digest = credentials_digest(req);
    int64_t now = mono_ms();

    pthread_mutex_lock(&chain->lock);
    fail_entry *e = count_user ? fail_find(chain->fails, key, false, now) : NULL;
    fail_entry *ae = count_addr ? fail_find(chain->addr_fails, addr, false, now) : NULL;
    int64_t wait = e && e->blocked_until_ms > now ? e->blocked_until_ms - now : 0;
    int64_t await = ae && ae->blocked_until_ms > now ? ae->blocked_until_ms - now : 0;
    if (!wait && !await) {
        if (count_user)
            attempt_start(fail_find(chain->fails, key, true, now), digest, chain->user_free,
                          now);
        if (count_addr)
            attempt_start(fail_find(chain->addr_fails, addr, true, now), digest,
                          chain->address_free, now);
    }
    pthread_mutex_unlock(&chain->lock);
    if (wait > 0 || await > 0) {
        if (await > wait) wait = await;
        fprintf(stderr, "sqe serve: authentication refused for user '%s' from %s: too many "
                        "failed attempts%s (retry in %lld ms)\n",
                user, addr[0] ? addr : "?", await ? " from this address" : "",
                (long long)wait);
        return err_set(err, AUTH_ERR_UNAUTHENTICATED,
                       "Too many failed authentication attempts%s; retry in %lld ms",
                       await ? " from this address" : "", (long long)wait);
    }

    int rc = SQE_OK;
    sqe_principal *who = NULL;
    sqe_error e2;
    err_clear(&e2);
    for (uint32_t i = 0; i < chain->n && !who && !rc; i++) {
        auth_provider *p = &chain->providers[i];
        rc = p->check(p->state, req, &who, &e2);
    }
    if (!rc && who) {
        rc = impersonate(chain, req, &who, &e2);
        if (rc) {
            sqe_principal_unref(who);
            who = NULL;
        }
    }
    if (!rc && !who)
        rc = err_set(&e2, AUTH_ERR_UNAUTHENTICATED,
                     req->authorization ? "Unsupported credentials"
                                        : "Authentication required");
    /* not the client's failure: nothing counted */
    bool uncounted = rc == SQE_ERR_OUT_OF_MEMORY || rc == SQE_ERR_QUERY_QUEUE_FULL ||
                     rc == SQE_ERR_USER_CANCELED;
    now = mono_ms();
    pthread_mutex_lock(&chain->lock);
    if (count_user)
        attempt_end(chain->fails, key, digest, rc && !uncounted, !rc, chain->user_free, now);
    /* a login the gate turned away counts against its address: one address that keeps the
     * gate full is soon refused before it, and leaves the gate to the others. A success does
     * not clear the address's failures. */
    if (count_addr)
        attempt_end(chain->addr_fails, addr, digest, rc && rc != SQE_ERR_OUT_OF_MEMORY, false,
                    chain->address_free, now);
    pthread_mutex_unlock(&chain->lock);

    if (uncounted) {
        if (rc == SQE_ERR_QUERY_QUEUE_FULL || rc == SQE_ERR_USER_CANCELED)
            fprintf(stderr, "sqe serve: authentication of user '%s' from %s not checked: %s\n",
                    user, addr[0] ? addr : "?", e2.message);
        if (err) *err = e2;
        return rc;
    }
    if (rc) {
        fprintf(stderr, "sqe serve: authentication failed for user '%s' from %s: %s\n", user,
                addr[0] ? addr : "?", e2.message);
        if (err) {
            *err = e2;
            err->code = AUTH_ERR_UNAUTHENTICATED;
        }
        return AUTH_ERR_UNAUTHENTICATED;
    }
    *principal = who;
    return SQE_OK;
}

int auth_chain_authenticate(auth_chain *chain, const auth_request *req, char **principal,
                            sqe_error *err) {
    sqe_principal *p = NULL;
    SQE_TRY(chain_run(chain, req, &p, err));
    char *user = strdup(p->user);
    sqe_principal_unref(p);
    if (!user) return err_nomem(err, "principal");
    *principal = user;
    return SQE_OK;
}

int auth_chain_authenticate_principal(auth_chain *chain, const auth_request *req,
                                      sqe_principal **out, sqe_error *err) {
    return chain_run(chain, req, out, err);
}

bool auth_chain_fingerprint(auth_chain *chain, sqe_auth_method method, const char *user,
                            unsigned char out[32]) {
    for (uint32_t i = 0; i < chain->n; i++) {
        auth_provider *p = &chain->providers[i];
        if (p->method != method) continue;
        if (!p->fingerprint) {
            memset(out, 0, 32);
            return true;
        }
        return p->fingerprint(p->state, user, out);
    }
    return false;
}

/* --- anonymous ------------------------------------------------------------------------------ */

static int anonymous_check(void *state, const auth_request *req, sqe_principal **principal,
                           sqe_error *err) {
    bool loopback_only = state != NULL;
    if (req->authorization) return SQE_OK; /* credentials: someone else's */
    if (loopback_only && !auth_peer_is_loopback(req->peer))
        return err_set(err, AUTH_ERR_UNAUTHENTICATED,
                       "Anonymous access is allowed only from loopback; authenticate with a "
                       "user and password");
    const char *name = req->user && *req->user ? req->user : "anonymous";
    if (!auth_user_name_valid(name))
        return err_set(err, AUTH_ERR_UNAUTHENTICATED, "Invalid user name");
    return sqe_principal_for_user(name, SQE_AUTH_ANONYMOUS, principal, err);
}

int auth_anonymous_provider(bool loopback_only, auth_provider *out, sqe_error *err) {
    (void)err;
    static char flag;
    out->name = "anonymous";
    out->method = SQE_AUTH_ANONYMOUS;
    out->state = loopback_only ? &flag : NULL;
    out->check = anonymous_check;
    out->destroy = NULL;
    out->fingerprint = NULL;
    return SQE_OK;
}
