/*
 * session_store.c: bearer-token sessions in memory: a hash table keyed by SHA-256(token), idle
 * and absolute expiry on wall-clock time, a background thread that sweeps expired sessions and
 * snapshots the store to disk when persistence is on.
 *
 * INTERFACE: session_store_create, session_store_load, session_store_open,
 *   session_store_resolve, session_store_save, session_store_close, session_store_count,
 *   session_store_sweep, session_store_flush, session_store_destroy, session_store_open_cred,
 *   session_store_resolve_cred,
 *   session_store_set_validator (session_store.h);
 *   session_state_copy, sess_free (session_store_int.h).
 * NOTES:
 * - Times are CLOCK_REALTIME milliseconds so a restored session keeps its age across a restart.
 * - Looking a token up hashes it first; the table is then searched by digest, so no comparison
 *   ever touches the token and no timing reveals a prefix of a valid one.
 * - Revocation: each session records the credential it was opened with (session_cred); resolve
 *   and save ask the validator (srv_core: the auth chain, which rereads a changed users file)
 *   whether it still holds, so removing a user or changing a password ends their sessions, also
 *   sessions restored after a restart. A refused session is removed and the file rewritten;
 *   sweeps drop the sessions the validator refuses as well as expired ones.
 * - CloseSession and revocations write the file synchronously (a closed session must not come
 *   back after a crash); other changes wait for the snapshot interval.
 * - One mutex guards the table. Snapshots copy nothing: the file is written under the lock
 *   (sessions are small, and writes happen at most every snapshot_interval).
 */
#include <errno.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "server/core/auth.h"
#include "common/base64.h"
#include "server/core/session_store_int.h"

#define TOKEN_BYTES 32
#define FILE_NAME "sessions.json"

struct session_store {
    session_store_options opts;
    char *dir;
    char *path;
    pthread_mutex_t lock;
    pthread_cond_t cond; /* wakes the background thread at shutdown */
    sess **buckets;
    size_t n_buckets; /* power of two */
    uint32_t count;
    bool dirty;
    bool stopping;
    pthread_t thread;
    bool thread_started;
    session_validator validator;
    void *validator_ud;
};

static int64_t wall_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void token_digest(const char *token, unsigned char out[32]) {
    unsigned int len = 32;
    EVP_Digest(token, strlen(token), out, &len, EVP_sha256(), NULL);
}

static size_t bucket_of(const session_store *st, const unsigned char digest[32]) {
    uint64_t h;
    memcpy(&h, digest, sizeof h);
    return (size_t)(h & (st->n_buckets - 1));
}

/* --- state copies ------------------------------------------------------------------------------ */

static int dup_str(char **dst, const char *src) {
    *dst = NULL;
    if (!src) return SQE_OK;
    *dst = strdup(src);
    return *dst ? SQE_OK : SQE_ERR_OUT_OF_MEMORY;
}

static int dup_list(char ***dst, char *const *src, uint32_t n) {
    *dst = NULL;
    if (!n) return SQE_OK;
    char **v = calloc(n, sizeof *v);
    if (!v) return SQE_ERR_OUT_OF_MEMORY;
    *dst = v;
    for (uint32_t i = 0; i < n; i++)
        if (dup_str(&v[i], src ? src[i] : NULL)) return SQE_ERR_OUT_OF_MEMORY;
    return SQE_OK;
}

int session_state_copy(srv_session_state *dst, const srv_session_state *src) {
    memset(dst, 0, sizeof *dst);
    if (!src) return SQE_OK;
    dst->n_properties = src->n_properties;
    dst->n_prepared = src->n_prepared;
    int rc = dup_str(&dst->principal, src->principal);
    if (!rc) rc = dup_str(&dst->catalog, src->catalog);
    if (!rc) rc = dup_str(&dst->schema, src->schema);
    if (!rc) rc = dup_str(&dst->time_zone, src->time_zone);
    if (!rc) rc = dup_list(&dst->property_names, src->property_names, src->n_properties);
    if (!rc) rc = dup_list(&dst->property_values, src->property_values, src->n_properties);
    if (!rc) rc = dup_list(&dst->prepared_names, src->prepared_names, src->n_prepared);
    if (!rc) rc = dup_list(&dst->prepared_sql, src->prepared_sql, src->n_prepared);
    if (rc) srv_session_state_clear(dst);
    return rc;
}

void sess_free(sess *s) {
    if (!s) return;
    free(s->principal);
    srv_session_state_clear(&s->state);
    OPENSSL_cleanse(s->digest, sizeof s->digest);
    free(s);
}

/* --- table ---------------------------------------------------------------------------------- */

static bool expired(const session_store *st, const sess *s, int64_t now) {
    return now - s->last_used_ms >= st->opts.idle_timeout_ms ||
           now - s->created_ms >= st->opts.absolute_timeout_ms;
}

/* Finds the live session of digest; removes it when expired. Lock held. */
static sess *find_locked(session_store *st, const unsigned char digest[32], int64_t now) {
    sess **pp = &st->buckets[bucket_of(st, digest)];
    for (; *pp; pp = &(*pp)->next) {
        sess *s = *pp;
        if (memcmp(s->digest, digest, 32) != 0) continue;
        if (!expired(st, s, now)) return s;
        *pp = s->next;
        st->count--;
        st->dirty = true;
        sess_free(s);
        return NULL;
    }
    return NULL;
}

static int flush_locked(session_store *st, sqe_error *err);

/* Removes the session of digest (if any) and, with persistence, writes the file now. Lock held. */
static void remove_persist_locked(session_store *st, const unsigned char digest[32]) {
    for (sess **pp = &st->buckets[bucket_of(st, digest)]; *pp; pp = &(*pp)->next) {
        sess *s = *pp;
        if (memcmp(s->digest, digest, 32) != 0) continue;
        *pp = s->next;
        st->count--;
        st->dirty = true;
        sess_free(s);
        break;
    }
    sqe_error e;
    if (st->path && flush_locked(st, &e) != SQE_OK)
        fprintf(stderr, "sqe serve: cannot save sessions: %s\n", e.message);
}

/* find_locked, then the validator: a session whose credential no longer holds is removed (and
 * the removal persisted) and not returned; *revoked tells the two misses apart. Lock held. */
static sess *find_valid_locked(session_store *st, const unsigned char digest[32], int64_t now,
                               bool *revoked) {
    *revoked = false;
    sess *s = find_locked(st, digest, now);
    if (!s || !st->validator || st->validator(st->validator_ud, s->principal, &s->cred)) return s;
    *revoked = true;
    remove_persist_locked(st, digest);
    return NULL;
}

static void insert_locked(session_store *st, sess *s) {
    size_t b = bucket_of(st, s->digest);
    s->next = st->buckets[b];
    st->buckets[b] = s;
    st->count++;
    st->dirty = true;
}

static void sweep_locked(session_store *st, int64_t now) {
    for (size_t b = 0; b < st->n_buckets; b++) {
        sess **pp = &st->buckets[b];
        while (*pp) {
            sess *s = *pp;
            if (expired(st, s, now) ||
                (st->validator && !st->validator(st->validator_ud, s->principal, &s->cred))) {
                *pp = s->next;
                st->count--;
                st->dirty = true;
                sess_free(s);
            } else {
                pp = &s->next;
            }
        }
    }
}

static int flush_locked(session_store *st, sqe_error *err) {
    if (!st->path || !st->dirty) return SQE_OK;
    sess **all = malloc((st->count ? st->count : 1) * sizeof *all);
    if (!all) return err_nomem(err, "session snapshot");
    size_t n = 0;
    for (size_t b = 0; b < st->n_buckets; b++)
        for (sess *s = st->buckets[b]; s; s = s->next) all[n++] = s;
    int rc = session_file_write(st->path, all, n, err);
    free(all);
    if (!rc) st->dirty = false;
    return rc;
}

static struct timespec deadline_in(int64_t ms) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += ms / 1000;
    ts.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    return ts;
}

static void *store_thread(void *arg) {
    session_store *st = arg;
    int64_t period = st->opts.sweep_interval_ms;
    if (st->path && st->opts.snapshot_interval_ms < period) period = st->opts.snapshot_interval_ms;
    int64_t next_sweep = wall_ms() + st->opts.sweep_interval_ms;
    int64_t next_snap = wall_ms() + st->opts.snapshot_interval_ms;
    pthread_mutex_lock(&st->lock);
    while (!st->stopping) {
        struct timespec ts = deadline_in(period);
        pthread_cond_timedwait(&st->cond, &st->lock, &ts);
        if (st->stopping) break;
        int64_t now = wall_ms();
        if (now >= next_sweep) {
            sweep_locked(st, now);
            next_sweep = now + st->opts.sweep_interval_ms;
        }
        if (st->path && now >= next_snap) {
            sqe_error e;
            if (flush_locked(st, &e) != SQE_OK)
                fprintf(stderr, "sqe serve: cannot save sessions: %s\n", e.message);
            next_snap = now + st->opts.snapshot_interval_ms;
        }
    }
    pthread_mutex_unlock(&st->lock);
    return NULL;
}

/* --- interface ---------------------------------------------------------------------------------- */

int session_store_create(const session_store_options *opts, session_store **out,
                         sqe_error *err) {
    session_store *st = calloc(1, sizeof *st);
    if (!st) return err_nomem(err, "session store");
    st->opts = *opts;
    if (st->opts.idle_timeout_ms <= 0) st->opts.idle_timeout_ms = 15 * 60 * 1000;
    if (st->opts.absolute_timeout_ms <= 0) st->opts.absolute_timeout_ms = 8 * 3600 * 1000LL;
    if (!st->opts.max_sessions) st->opts.max_sessions = 10000;
    if (st->opts.snapshot_interval_ms <= 0) st->opts.snapshot_interval_ms = 60000;
    if (st->opts.sweep_interval_ms <= 0) st->opts.sweep_interval_ms = 60000;
    pthread_mutex_init(&st->lock, NULL);
    pthread_cond_init(&st->cond, NULL);
    size_t nb = 64;
    while (nb < st->opts.max_sessions / 2 && nb < ((size_t)1 << 20)) nb <<= 1;
    st->n_buckets = nb;
    st->buckets = calloc(nb, sizeof *st->buckets);
    int rc = st->buckets ? SQE_OK : err_nomem(err, "session store");
    if (!rc && opts->dir && *opts->dir) {
        st->dir = strdup(opts->dir);
        size_t len = strlen(opts->dir) + sizeof FILE_NAME + 2;
        st->path = malloc(len);
        if (!st->dir || !st->path) {
            rc = err_nomem(err, "session store");
        } else {
            snprintf(st->path, len, "%s/%s", opts->dir, FILE_NAME);
            st->opts.dir = st->dir;
            struct stat sb;
            if (mkdir(st->dir, 0700) != 0 && errno != EEXIST)
                rc = err_set(err, SQE_ERR_IO_ERROR, "cannot create the session directory %s: %s",
                             st->dir, strerror(errno));
            else if (stat(st->dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
                rc = err_set(err, SQE_ERR_IO_ERROR, "the session directory %s is not a directory",
                             st->dir);
        }
    }
    if (!rc) {
        if (pthread_create(&st->thread, NULL, store_thread, st) != 0)
            rc = err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "cannot start the session thread");
        else
            st->thread_started = true;
    }
    if (rc) {
        st->path = (free(st->path), NULL); /* nothing to write */
        session_store_destroy(st);
        return rc;
    }
    *out = st;
    return SQE_OK;
}

typedef struct load_ctx {
    session_store *st;
    int64_t now;
} load_ctx;

static int load_add(void *ud, sess *s) {
    load_ctx *lc = ud;
    session_store *st = lc->st;
    if (expired(st, s, lc->now) || st->count >= st->opts.max_sessions ||
        find_locked(st, s->digest, lc->now)) {
        sess_free(s);
        return SQE_OK;
    }
    insert_locked(st, s);
    return SQE_OK;
}

int session_store_load(session_store *store, sqe_error *err) {
    if (!store->path) return SQE_OK;
    pthread_mutex_lock(&store->lock);
    load_ctx lc = {store, wall_ms()};
    int rc = session_file_read(store->path, load_add, &lc, err);
    if (rc) {
        for (size_t b = 0; b < store->n_buckets; b++) {
            while (store->buckets[b]) {
                sess *s = store->buckets[b];
                store->buckets[b] = s->next;
                sess_free(s);
            }
        }
        store->count = 0;
    }
    store->dirty = false;
    pthread_mutex_unlock(&store->lock);
    return rc;
}

int session_store_open(session_store *store, const char *principal, char **token,
                       sqe_error *err) {
    return session_store_open_cred(store, principal, NULL, token, err);
}

void session_store_set_validator(session_store *store, session_validator fn, void *ud) {
    pthread_mutex_lock(&store->lock);
    store->validator = fn;
    store->validator_ud = ud;
    pthread_mutex_unlock(&store->lock);
}

int session_store_open_cred(session_store *store, const char *principal, const session_cred *cred,
                            char **token, sqe_error *err) {
    unsigned char raw[TOKEN_BYTES];
    if (RAND_bytes(raw, sizeof raw) != 1)
        return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "no random bytes for a session token");
    char *text = malloc(base64_encoded_len(TOKEN_BYTES, false) + 1);
    sess *s = calloc(1, sizeof *s);
    if (s) s->principal = strdup(principal ? principal : "");
    if (!text || !s || !s->principal) {
        free(text);
        sess_free(s);
        return err_nomem(err, "session");
    }
    base64_encode(raw, sizeof raw, true, false, text);
    OPENSSL_cleanse(raw, sizeof raw);
    token_digest(text, s->digest);
    if (cred) s->cred = *cred;
    s->cred.method[sizeof s->cred.method - 1] = 0;
    int64_t now = wall_ms();
    s->created_ms = s->last_used_ms = now;
    pthread_mutex_lock(&store->lock);
    if (store->count >= store->opts.max_sessions) sweep_locked(store, now);
    if (store->count >= store->opts.max_sessions) {
        pthread_mutex_unlock(&store->lock);
        free(text);
        sess_free(s);
        return err_set(err, SQE_ERR_GENERIC_USER_ERROR,
                       "Too many sessions: [session] max_sessions = %u is reached; retry later",
                       store->opts.max_sessions);
    }
    insert_locked(store, s);
    pthread_mutex_unlock(&store->lock);
    *token = text;
    return SQE_OK;
}

static int unknown_token(sqe_error *err) {
    return err_set(err, AUTH_ERR_UNAUTHENTICATED, "Invalid or expired session token");
}

static int revoked_token(sqe_error *err) {
    return err_set(err, AUTH_ERR_UNAUTHENTICATED,
                   "Session ended: the credential that opened it is no longer valid; "
                   "authenticate again");
}

int session_store_resolve(session_store *store, const char *token, char **principal,
                          srv_session_state *state, sqe_error *err) {
    return session_store_resolve_cred(store, token, principal, state, NULL, err);
}

int session_store_resolve_cred(session_store *store, const char *token, char **principal,
                               srv_session_state *state, session_cred *cred, sqe_error *err) {
    if (!token || !*token) return unknown_token(err);
    unsigned char d[32];
    token_digest(token, d);
    int64_t now = wall_ms();
    pthread_mutex_lock(&store->lock);
    bool revoked;
    sess *s = find_valid_locked(store, d, now, &revoked);
    if (!s) {
        pthread_mutex_unlock(&store->lock);
        return revoked ? revoked_token(err) : unknown_token(err);
    }
    s->last_used_ms = now;
    if (cred) *cred = s->cred;
    char *p = strdup(s->principal);
    srv_session_state copy;
    int rc = p ? SQE_OK : SQE_ERR_OUT_OF_MEMORY;
    if (!rc && state) {
        rc = session_state_copy(&copy, &s->state);
        if (!rc) {
            free(copy.principal);
            copy.principal = strdup(s->principal);
            if (!copy.principal) {
                srv_session_state_clear(&copy);
                rc = SQE_ERR_OUT_OF_MEMORY;
            }
        }
    }
    pthread_mutex_unlock(&store->lock);
    if (rc) {
        free(p);
        return err_nomem(err, "session");
    }
    *principal = p;
    if (state) {
        srv_session_state_clear(state);
        *state = copy;
    }
    return SQE_OK;
}

int session_store_save(session_store *store, const char *token, const srv_session_state *state,
                       sqe_error *err) {
    if (!token || !*token) return unknown_token(err);
    srv_session_state copy;
    if (session_state_copy(&copy, state)) return err_nomem(err, "session");
    free(copy.principal);
    copy.principal = NULL;
    unsigned char d[32];
    token_digest(token, d);
    int64_t now = wall_ms();
    pthread_mutex_lock(&store->lock);
    bool revoked;
    sess *s = find_valid_locked(store, d, now, &revoked);
    if (!s) {
        pthread_mutex_unlock(&store->lock);
        srv_session_state_clear(&copy);
        return revoked ? revoked_token(err) : unknown_token(err);
    }
    srv_session_state_clear(&s->state);
    s->state = copy;
    s->last_used_ms = now;
    store->dirty = true;
    pthread_mutex_unlock(&store->lock);
    return SQE_OK;
}

void session_store_close(session_store *store, const char *token) {
    if (!token) return;
    unsigned char d[32];
    token_digest(token, d);
    pthread_mutex_lock(&store->lock);
    remove_persist_locked(store, d);
    pthread_mutex_unlock(&store->lock);
}

uint32_t session_store_count(session_store *store) {
    pthread_mutex_lock(&store->lock);
    uint32_t n = store->count;
    pthread_mutex_unlock(&store->lock);
    return n;
}

void session_store_sweep(session_store *store) {
    pthread_mutex_lock(&store->lock);
    sweep_locked(store, wall_ms());
    pthread_mutex_unlock(&store->lock);
}

int session_store_flush(session_store *store, sqe_error *err) {
    pthread_mutex_lock(&store->lock);
    int rc = flush_locked(store, err);
    pthread_mutex_unlock(&store->lock);
    return rc;
}

void session_store_destroy(session_store *store) {
    if (!store) return;
    pthread_mutex_lock(&store->lock);
    store->stopping = true;
    pthread_cond_broadcast(&store->cond);
    pthread_mutex_unlock(&store->lock);
    if (store->thread_started) pthread_join(store->thread, NULL);
    sqe_error e;
    if (store->buckets && session_store_flush(store, &e) != SQE_OK)
        fprintf(stderr, "sqe serve: cannot save sessions: %s\n", e.message);
    for (size_t b = 0; store->buckets && b < store->n_buckets; b++) {
        while (store->buckets[b]) {
            sess *s = store->buckets[b];
            store->buckets[b] = s->next;
            sess_free(s);
        }
    }
    free(store->buckets);
    free(store->dir);
    free(store->path);
    pthread_mutex_destroy(&store->lock);
    pthread_cond_destroy(&store->cond);
    free(store);
}
