/*
 * auth_password.c: the users-file authenticator (Basic credentials) and the password hashes it
 * checks: PBKDF2-HMAC-SHA256 (OpenSSL PKCS5_PBKDF2_HMAC) with a random salt per user.
 *
 * INTERFACE: auth_password_provider, auth_password_hash, auth_password_verify (auth.h).
 *   The provider's fingerprint of a user is SHA-256("sqe-session-credential" NUL user NUL hash
 *   entry): it changes when the password does and is useless for guessing it (the salt is not
 *   derivable from it).
 * File format: one "user:$pbkdf2-sha256$<iterations>$<salt b64>$<hash b64>" per line; blank
 *   lines and lines starting with '#' are ignored; a duplicate user is an error.
 * NOTES:
 * - The file is stat'ed on every check and reloaded when its device, inode, size or mtime
 *   changed, so `sqe passwd >> users` and atomic replacements both take effect at once. A reload
 *   that fails keeps the users of the last good load.
 * - Every request of the Trino protocol carries the Basic credentials again, and a PBKDF2 check
 *   costs tens of milliseconds on purpose. A verified (user, password, hash) triple is therefore
 *   remembered for CACHE_TTL_MS as HMAC-SHA256 under a random per-process key (never the
 *   password itself); a changed users-file hash no longer matches the remembered one.
 *   The cache holds CACHE_SLOTS entries (the oldest is replaced) and is emptied whenever the
 *   users file is reloaded, so a removed user or a changed password stops working at once.
 * - An unknown user still costs one PBKDF2 run (against a dummy hash) so response times do not
 *   tell which users exist. Comparisons of derived keys are constant-time (CRYPTO_memcmp).
 * - The hash gate: at most max_concurrent PBKDF2 runs at a time (default half the cores, at
 *   least 1); at most 2 x max_concurrent more wait, each for at most wait_ms; anything beyond is
 *   refused at once with QUERY_QUEUE_FULL ("busy", HTTP 503), so a login flood costs bounded CPU,
 *   never queues without bound, and ties up at most 3 x max_concurrent HTTP threads. A request
 *   whose client went away (auth_request.gone: closed connection, reset HTTP/2 stream) is not
 *   checked: gone is asked before waiting and again before hashing.
 * - Requests with the same credentials at the same time share one check (verify_once): the
 *   first runs it, the others (at most MAX_FOLLOWERS, beyond: busy) wait for its answer
 *   without taking a gate place.
 */
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "server/core/auth.h"
#include "common/base64.h"

#define SALT_BYTES 16
#define HASH_BYTES 32
#define CACHE_SLOTS 256
#define CACHE_TTL_MS (5 * 60 * 1000)
#define MAX_FILE_BYTES (16 << 20)
#define VERIFY_SLOTS 32
#define FOLLOW_WAIT_MS 10000
#define MAX_FOLLOWERS 8 /* requests waiting for one check (each holds an HTTP thread) */

typedef struct pw_user {
    char *name;
    char *hash; /* "$pbkdf2-sha256$..." as in the file */
} pw_user;

/* A check running now, that requests with the same credentials wait for (verify_once). */
typedef struct verifying {
    unsigned char mac[32];
    bool used, done, unchecked, ok;
    uint32_t waiters;
} verifying;

typedef struct cache_entry {
    unsigned char mac[32];
    int64_t expires_ms; /* 0 = free */
} cache_entry;

typedef struct pw_state {
    char *path;
    pthread_mutex_t lock; /* users, file identity, cache */
    pw_user *users;
    size_t n_users;
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime;
    unsigned char key[32]; /* HMAC key of the cache */
    cache_entry cache[CACHE_SLOTS];
    /* the hash gate (under lock) */
    pthread_cond_t gate_cond; /* CLOCK_MONOTONIC */
    uint32_t gate_max, gate_max_waiting, gate_wait_ms;
    uint32_t gate_active, gate_waiting;
    uint64_t gate_refused, hashes;
    verifying verifying[VERIFY_SLOTS];
    pthread_cond_t verify_cond; /* CLOCK_MONOTONIC; a verifying entry is done */
} pw_state;

static int64_t mono_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* --- hashes ---------------------------------------------------------------------------------- */

typedef struct parsed_hash {
    uint32_t iterations;
    unsigned char salt[64];
    size_t salt_len;
    unsigned char hash[64];
    size_t hash_len;
} parsed_hash;

static int parse_hash(const char *text, parsed_hash *ph, sqe_error *err) {
    static const char prefix[] = "$pbkdf2-sha256$";
    if (strncmp(text, prefix, sizeof prefix - 1) != 0)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                       "the hash must start with $pbkdf2-sha256$ (make one with `sqe passwd`)");
    const char *p = text + sizeof prefix - 1;
    char *end;
    unsigned long long it = strtoull(p, &end, 10);
    if (end == p || *end != '$' || *p < '0' || *p > '9' || it < AUTH_PBKDF2_MIN_ITERATIONS ||
        it > AUTH_PBKDF2_MAX_ITERATIONS)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "iterations must be an integer in %u..%u",
                       AUTH_PBKDF2_MIN_ITERATIONS, AUTH_PBKDF2_MAX_ITERATIONS);
    ph->iterations = (uint32_t)it;
    const char *salt = end + 1;
    const char *dollar = strchr(salt, '$');
    if (!dollar) return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "missing the hash after the salt");
    long n = base64_decode(salt, (size_t)(dollar - salt), false, ph->salt, sizeof ph->salt);
    if (n < 8) return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "the salt must be 8..64 bytes of base64");
    ph->salt_len = (size_t)n;
    const char *h = dollar + 1;
    n = base64_decode(h, strlen(h), false, ph->hash, sizeof ph->hash);
    if (n < 16) return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "the hash must be 16..64 bytes of base64");
    ph->hash_len = (size_t)n;
    return SQE_OK;
}

static int derive(const char *password, const parsed_hash *ph, unsigned char *out,
                  sqe_error *err) {
    if (PKCS5_PBKDF2_HMAC(password, (int)strlen(password), ph->salt, (int)ph->salt_len,
                          (int)ph->iterations, EVP_sha256(), (int)ph->hash_len, out) != 1)
        return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "PBKDF2 failed");
    return SQE_OK;
}

int auth_password_hash(const char *password, uint32_t iterations, char **out, sqe_error *err) {
    if (iterations < AUTH_PBKDF2_MIN_ITERATIONS || iterations > AUTH_PBKDF2_MAX_ITERATIONS)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "iterations must be in %u..%u",
                       AUTH_PBKDF2_MIN_ITERATIONS, AUTH_PBKDF2_MAX_ITERATIONS);
    parsed_hash ph;
    memset(&ph, 0, sizeof ph);
    ph.iterations = iterations;
    ph.salt_len = SALT_BYTES;
    ph.hash_len = HASH_BYTES;
    if (RAND_bytes(ph.salt, SALT_BYTES) != 1)
        return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "no random bytes for the salt");
    SQE_TRY(derive(password, &ph, ph.hash, err));
    char salt[32], hash[64];
    base64_encode(ph.salt, SALT_BYTES, false, true, salt);
    base64_encode(ph.hash, HASH_BYTES, false, true, hash);
    char *s = malloc(128);
    if (!s) return err_nomem(err, "password hash");
    snprintf(s, 128, "$pbkdf2-sha256$%u$%s$%s", iterations, salt, hash);
    *out = s;
    return SQE_OK;
}

int auth_password_verify(const char *hash, const char *password, bool *ok, sqe_error *err) {
    parsed_hash ph;
    SQE_TRY(parse_hash(hash, &ph, err));
    unsigned char derived[64];
    SQE_TRY(derive(password, &ph, derived, err));
    *ok = CRYPTO_memcmp(derived, ph.hash, ph.hash_len) == 0;
    OPENSSL_cleanse(derived, sizeof derived);
    return SQE_OK;
}

/* --- the users file -------------------------------------------------------------------------- */

static void users_free(pw_user *users, size_t n) {
    for (size_t i = 0; i < n; i++) {
        free(users[i].name);
        free(users[i].hash);
    }
    free(users);
}

/* Parses the file's text into a new user array. */
static int users_parse(const char *path, char *text, pw_user **out, size_t *n_out,
                       sqe_error *err) {
    pw_user *users = NULL;
    size_t n = 0;
    int line = 0;
    int rc = SQE_OK;
    char *p = text;
    while (*p && rc == SQE_OK) {
        line++;
        char *nl = strchr(p, '\n');
        char *next = nl ? nl + 1 : p + strlen(p);
        if (nl) *nl = 0;
        size_t len = strlen(p);
        while (len && (p[len - 1] == '\r' || p[len - 1] == ' ' || p[len - 1] == '\t')) p[--len] = 0;
        char *s = p;
        while (*s == ' ' || *s == '\t') s++;
        p = next;
        if (!*s || *s == '#') continue;
        char *colon = strchr(s, ':');
        if (!colon) {
            rc = err_set(err, SQE_ERR_INVALID_ARGUMENTS, "%s:%d: expected user:hash", path, line);
            break;
        }
        *colon = 0;
        if (!auth_user_name_valid(s)) {
            rc = err_set(err, SQE_ERR_INVALID_ARGUMENTS, "%s:%d: invalid user name", path, line);
            break;
        }
        parsed_hash ph;
        sqe_error e2;
        if (parse_hash(colon + 1, &ph, &e2) != SQE_OK) {
            rc = err_set(err, SQE_ERR_INVALID_ARGUMENTS, "%s:%d: user '%s': %s", path, line, s,
                         e2.message);
            break;
        }
        for (size_t i = 0; i < n; i++)
            if (!strcmp(users[i].name, s))
                rc = err_set(err, SQE_ERR_INVALID_ARGUMENTS, "%s:%d: user '%s' is listed twice",
                             path, line, s);
        if (rc) break;
        pw_user *grown = realloc(users, (n + 1) * sizeof *users);
        if (!grown) {
            rc = err_nomem(err, "users file");
            break;
        }
        users = grown;
        users[n].name = strdup(s);
        users[n].hash = strdup(colon + 1);
        n++;
        if (!users[n - 1].name || !users[n - 1].hash) rc = err_nomem(err, "users file");
    }
    if (rc) {
        users_free(users, n);
        return rc;
    }
    *out = users;
    *n_out = n;
    return SQE_OK;
}

/* Loads the file when it changed since the last load (or always when force). Lock held. */
static int users_refresh(pw_state *st, bool force, sqe_error *err) {
    struct stat sb;
    if (stat(st->path, &sb) != 0)
        return err_set(err, SQE_ERR_IO_ERROR, "cannot read the users file %s", st->path);
    if (!force && sb.st_dev == st->dev && sb.st_ino == st->ino && sb.st_size == st->size &&
        sb.st_mtim.tv_sec == st->mtime.tv_sec && sb.st_mtim.tv_nsec == st->mtime.tv_nsec)
        return SQE_OK;
    if (!S_ISREG(sb.st_mode) || sb.st_size > MAX_FILE_BYTES)
        return err_set(err, SQE_ERR_IO_ERROR, "the users file %s is not a regular file of at "
                                              "most 16 MiB", st->path);
    FILE *fp = fopen(st->path, "rb");
    if (!fp) return err_set(err, SQE_ERR_IO_ERROR, "cannot read the users file %s", st->path);
    char *text = malloc((size_t)sb.st_size + 1);
    size_t got = text ? fread(text, 1, (size_t)sb.st_size, fp) : 0;
    fclose(fp);
    if (!text) return err_nomem(err, "users file");
    text[got] = 0;
    if (memchr(text, 0, got)) {
        free(text);
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "%s: contains a NUL byte", st->path);
    }
    pw_user *users = NULL;
    size_t n = 0;
    int rc = users_parse(st->path, text, &users, &n, err);
    OPENSSL_cleanse(text, got);
    free(text);
    if (rc) {
        /* do not retry the same broken file on every request */
        st->dev = sb.st_dev;
        st->ino = sb.st_ino;
        st->size = sb.st_size;
        st->mtime = sb.st_mtim;
        return rc;
    }
    users_free(st->users, st->n_users);
    st->users = users;
    st->n_users = n;
    memset(st->cache, 0, sizeof st->cache); /* verifications of the old file no longer count */
    st->dev = sb.st_dev;
    st->ino = sb.st_ino;
    st->size = sb.st_size;
    st->mtime = sb.st_mtim;
    return SQE_OK;
}

static void pw_destroy(void *state) {
    pw_state *st = state;
    if (!st) return;
    users_free(st->users, st->n_users);
    free(st->path);
    OPENSSL_cleanse(st->key, sizeof st->key);
    pthread_cond_destroy(&st->gate_cond);
    pthread_cond_destroy(&st->verify_cond);
    pthread_mutex_destroy(&st->lock);
    free(st);
}

static void cache_mac(const pw_state *st, const char *user, const char *password,
                      const char *hash, unsigned char mac[32]) {
    unsigned int len = 32;
    size_t ul = strlen(user), pl = strlen(password), hl = strlen(hash);
    size_t total = ul + pl + hl + 2;
    unsigned char *buf = malloc(total);
    if (!buf) {
        memset(mac, 0, 32);
        return;
    }
    memcpy(buf, user, ul + 1);
    memcpy(buf + ul + 1, password, pl + 1);
    memcpy(buf + ul + pl + 2, hash, hl);
    HMAC(EVP_sha256(), st->key, sizeof st->key, buf, total, mac, &len);
    OPENSSL_cleanse(buf, total);
    free(buf);
}

static void gate_leave(pw_state *st);

/* Takes a place in the hash gate: SQE_OK (call gate_leave afterwards), QUERY_QUEUE_FULL when
 * max_concurrent checks run and the waiting room is full or the wait ran out, USER_CANCELED
 * when the client went away (checked before waiting and again once a place is free). */
static int gate_enter(pw_state *st, const auth_request *req, sqe_error *err) {
    if (req->gone && req->gone(req->gone_ctx))
        return err_set(err, SQE_ERR_USER_CANCELED, "The client went away before the check");
    pthread_mutex_lock(&st->lock);
    bool ok = st->gate_active < st->gate_max;
    if (!ok && st->gate_waiting < st->gate_max_waiting) {
        st->gate_waiting++;
        struct timespec dl;
        clock_gettime(CLOCK_MONOTONIC, &dl);
        dl.tv_sec += st->gate_wait_ms / 1000;
        dl.tv_nsec += (long)(st->gate_wait_ms % 1000) * 1000000L;
        if (dl.tv_nsec >= 1000000000L) {
            dl.tv_sec++;
            dl.tv_nsec -= 1000000000L;
        }
        int wrc = 0;
        while (st->gate_active >= st->gate_max && wrc == 0)
            wrc = pthread_cond_timedwait(&st->gate_cond, &st->lock, &dl);
        ok = st->gate_active < st->gate_max;
        st->gate_waiting--;
    }
    if (ok) {
        st->gate_active++;
        st->hashes++;
    } else {
        st->gate_refused++;
    }
    pthread_mutex_unlock(&st->lock);
    if (!ok)
        return err_set(err, SQE_ERR_QUERY_QUEUE_FULL,
                       "The server is busy checking passwords; retry in a moment");
    if (req->gone && req->gone(req->gone_ctx)) {
        gate_leave(st);
        return err_set(err, SQE_ERR_USER_CANCELED, "The client went away before the check");
    }
    return SQE_OK;
}

static void gate_leave(pw_state *st) {
    pthread_mutex_lock(&st->lock);
    st->gate_active--;
    pthread_cond_signal(&st->gate_cond);
    pthread_mutex_unlock(&st->lock);
}

/* Checks password against hash once for all requests carrying the same credentials (mac) at
 * the same time: the first runs the check (through the gate), the others wait for its answer
 * without a gate place, so a connection pool logging in costs one PBKDF2 and is not turned
 * away as busy. A waiter gives up after FOLLOW_WAIT_MS (busy). */
static int verify_once(pw_state *st, const auth_request *req, const unsigned char mac[32],
                       const char *hash, const char *password, bool *ok, sqe_error *err) {
    pthread_mutex_lock(&st->lock);
    verifying *v = NULL, *free_v = NULL;
    for (int i = 0; i < VERIFY_SLOTS && !v; i++) {
        if (st->verifying[i].used && !memcmp(st->verifying[i].mac, mac, 32))
            v = &st->verifying[i];
        else if (!st->verifying[i].used && !free_v)
            free_v = &st->verifying[i];
    }
    if (v && !v->done && v->waiters >= MAX_FOLLOWERS) {
        pthread_mutex_unlock(&st->lock);
        return err_set(err, SQE_ERR_QUERY_QUEUE_FULL,
                       "The server is busy checking passwords; retry in a moment");
    }
    if (v && !v->done) { /* follow the check already running */
        v->waiters++;
        struct timespec dl;
        clock_gettime(CLOCK_MONOTONIC, &dl);
        dl.tv_sec += FOLLOW_WAIT_MS / 1000;
        int wrc = 0;
        while (!v->done && wrc == 0) wrc = pthread_cond_timedwait(&st->verify_cond, &st->lock, &dl);
        bool done = v->done, unchecked = v->unchecked, good = v->ok;
        if (--v->waiters == 0 && v->done) memset(v, 0, sizeof *v);
        pthread_mutex_unlock(&st->lock);
        if (!done || unchecked)
            return err_set(err, SQE_ERR_QUERY_QUEUE_FULL,
                           "The server is busy checking passwords; retry in a moment");
        *ok = good;
        return SQE_OK;
    }
    if (!v && free_v) { /* lead: others with the same credentials wait for this check */
        v = free_v;
        memset(v, 0, sizeof *v);
        memcpy(v->mac, mac, 32);
        v->used = true;
    } else {
        v = NULL; /* table full (or a finished slot not yet freed): check alone */
    }
    pthread_mutex_unlock(&st->lock);
    int rc = gate_enter(st, req, err);
    if (!rc) {
        sqe_error e3;
        if (auth_password_verify(hash, password, ok, &e3) != SQE_OK) *ok = false;
        gate_leave(st);
    }
    if (v) {
        pthread_mutex_lock(&st->lock);
        v->done = true;
        v->unchecked = rc != SQE_OK;
        v->ok = !rc && *ok;
        if (v->waiters == 0)
            memset(v, 0, sizeof *v);
        else
            pthread_cond_broadcast(&st->verify_cond);
        pthread_mutex_unlock(&st->lock);
    }
    return rc;
}

static int pw_check(void *state, const auth_request *req, sqe_principal **principal,
                    sqe_error *err) {
    pw_state *st = state;
    if (!req->authorization) return SQE_OK;
    char *user = NULL, *password = NULL;
    if (auth_basic_decode(req->authorization, &user, &password, NULL) != SQE_OK) {
        if (strncasecmp(req->authorization, "Basic", 5) == 0)
            return err_set(err, AUTH_ERR_UNAUTHENTICATED, "Malformed Basic credentials");
        return SQE_OK; /* another scheme: not ours */
    }
    int rc = SQE_OK;
    char *hash = NULL;
    uint32_t dummy_iterations = AUTH_PBKDF2_MIN_ITERATIONS;
    pthread_mutex_lock(&st->lock);
    sqe_error e2;
    if (users_refresh(st, false, &e2) != SQE_OK)
        fprintf(stderr, "sqe serve: users file not reloaded (keeping the previous users): %s\n",
                e2.message);
    for (size_t i = 0; i < st->n_users; i++) {
        if (!strcmp(st->users[i].name, user)) hash = strdup(st->users[i].hash);
        if (i == 0) {
            parsed_hash ph;
            if (parse_hash(st->users[i].hash, &ph, NULL) == SQE_OK) dummy_iterations = ph.iterations;
        }
    }
    pthread_mutex_unlock(&st->lock);

    if (!hash) {
        /* unknown user: spend the same time as for a known one */
        rc = gate_enter(st, req, err);
        if (rc) goto out;
        parsed_hash ph;
        memset(&ph, 0, sizeof ph);
        ph.iterations = dummy_iterations;
        ph.salt_len = SALT_BYTES;
        ph.hash_len = HASH_BYTES;
        unsigned char sink[HASH_BYTES];
        derive(password, &ph, sink, NULL);
        gate_leave(st);
        rc = err_set(err, AUTH_ERR_UNAUTHENTICATED, "Invalid user name or password");
        goto out;
    }
    unsigned char mac[32];
    cache_mac(st, user, password, hash, mac);
    int64_t now = mono_ms();
    bool cached = false;
    pthread_mutex_lock(&st->lock);
    for (int i = 0; i < CACHE_SLOTS && !cached; i++)
        cached = st->cache[i].expires_ms > now && CRYPTO_memcmp(st->cache[i].mac, mac, 32) == 0;
    pthread_mutex_unlock(&st->lock);
    bool ok = cached;
    if (!cached) {
        rc = verify_once(st, req, mac, hash, password, &ok, err);
        if (rc) goto out;
        if (ok) {
            pthread_mutex_lock(&st->lock);
            int slot = 0;
            for (int i = 1; i < CACHE_SLOTS; i++)
                if (st->cache[i].expires_ms < st->cache[slot].expires_ms) slot = i;
            memcpy(st->cache[slot].mac, mac, 32);
            st->cache[slot].expires_ms = now + CACHE_TTL_MS;
            pthread_mutex_unlock(&st->lock);
        }
    }
    if (!ok) {
        rc = err_set(err, AUTH_ERR_UNAUTHENTICATED, "Invalid user name or password");
        goto out;
    }
    rc = sqe_principal_for_user(user, SQE_AUTH_PASSWORD, principal, err);
out:
    OPENSSL_cleanse(password, strlen(password));
    free(password);
    free(user);
    free(hash);
    return rc;
}

/* The provider's fingerprint callback: rereads a changed file, then hashes user's entry. */
static bool pw_fingerprint(void *state, const char *user, unsigned char out[32]) {
    pw_state *st = state;
    bool found = false;
    pthread_mutex_lock(&st->lock);
    sqe_error e2;
    if (users_refresh(st, false, &e2) != SQE_OK)
        fprintf(stderr, "sqe serve: users file not reloaded (keeping the previous users): %s\n",
                e2.message);
    for (size_t i = 0; i < st->n_users && !found; i++) {
        if (strcmp(st->users[i].name, user) != 0) continue;
        EVP_MD_CTX *md = EVP_MD_CTX_new();
        unsigned int len = 32;
        static const char tag[] = "sqe-session-credential";
        found = md && EVP_DigestInit_ex(md, EVP_sha256(), NULL) == 1 &&
                EVP_DigestUpdate(md, tag, sizeof tag) == 1 &&
                EVP_DigestUpdate(md, user, strlen(user) + 1) == 1 &&
                EVP_DigestUpdate(md, st->users[i].hash, strlen(st->users[i].hash)) == 1 &&
                EVP_DigestFinal_ex(md, out, &len) == 1;
        EVP_MD_CTX_free(md);
    }
    pthread_mutex_unlock(&st->lock);
    return found;
}

void auth_password_options_init(auth_password_options *o) {
    memset(o, 0, sizeof *o);
    o->wait_ms = AUTH_PASSWORD_DEFAULT_WAIT_MS;
}

int auth_password_provider(const char *users_file, auth_provider *out, sqe_error *err) {
    auth_password_options o;
    auth_password_options_init(&o);
    return auth_password_provider_opts(users_file, &o, out, err);
}

int auth_password_provider_opts(const char *users_file, const auth_password_options *o,
                                auth_provider *out, sqe_error *err) {
    if (!users_file || !*users_file)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "no users file given");
    pw_state *st = calloc(1, sizeof *st);
    if (!st) return err_nomem(err, "users file");
    pthread_mutex_init(&st->lock, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&st->gate_cond, &ca);
    pthread_cond_init(&st->verify_cond, &ca);
    pthread_condattr_destroy(&ca);
    st->gate_max = o->max_concurrent;
    if (!st->gate_max) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        st->gate_max = cores >= 2 ? (uint32_t)(cores / 2) : 1;
    }
    st->gate_max_waiting = 2 * st->gate_max;
    st->gate_wait_ms = o->wait_ms;
    st->path = strdup(users_file);
    if (!st->path) {
        pw_destroy(st);
        return err_nomem(err, "users file");
    }
    if (RAND_bytes(st->key, sizeof st->key) != 1) {
        pw_destroy(st);
        return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "no random bytes");
    }
    int rc = users_refresh(st, true, err);
    if (rc) {
        pw_destroy(st);
        return rc;
    }
    memset(out, 0, sizeof *out);
    out->name = "password";
    out->method = SQE_AUTH_PASSWORD;
    out->state = st;
    out->check = pw_check;
    out->destroy = pw_destroy;
    out->fingerprint = pw_fingerprint;
    return SQE_OK;
}
