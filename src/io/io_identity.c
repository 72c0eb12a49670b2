/*
 * io_identity.c: per-user object-store identities (see io.h, "identities").
 *
 * INTERFACE: io_identity_create, io_identity_ref, io_identity_unref, io_identity_key_id (io.h);
 *            io_identity_s3 (io_identity_int.h).
 * NOTES
 *   - An identity is an S3 client for its endpoint plus copied credentials. Clients hold no
 *     credentials (s3_client.h), so clients are shared by endpoint settings in a small
 *     process-wide table that lives until exit (it keeps the pooled connections); past
 *     MAX_CLIENTS distinct endpoints an identity gets a client of its own.
 *   - The handle is HMAC-SHA256 under a random per-process key over every field of the config,
 *     cut to 128 bits: equal configs give equal handles, so equal configs are one identity object
 *     (one user's repeated statements share Parquet footer cache entries, which the reader
 *     keys by identity pointer), and the registry never holds a secret in the clear as a key.
 *     Live identities sit in the registry by handle (weak entries: the last unref removes the
 *     entry under the registry lock, so a lookup never revives a dying identity).
 *   - The tunables SQE_S3_MAX_ATTEMPTS, SQE_S3_PART_SIZE and SQE_S3_MAX_PARALLEL of the
 *     environment context (io_s3.h) apply to identities' clients as well.
 */
#include "io/io_identity_int.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HANDLE_HEX 32
#define MAX_CLIENTS 32

struct io_identity {
    atomic_int refs;
    char handle[HANDLE_HEX + 1];
    s3_client *own_client;        /* NULL when the client is a shared one */
    io_s3_context ctx;            /* cred strings below; client shared or own_client */
    char *key_id, *secret, *token;
    struct io_identity *next;     /* registry list */
};

typedef struct shared_client {
    char *endpoint, *region;
    bool path_style;
    s3_client *client;
} shared_client;

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static io_identity *registry;                 /* live identities */
static shared_client clients[MAX_CLIENTS];
static uint32_t n_clients;
static unsigned char hmac_key[32];
static bool have_key;

static bool empty(const char *s) { return !s || !*s; }
static const char *or_empty(const char *s) { return s ? s : ""; }

/* Caller holds reg_lock. */
static int ensure_key(sqe_error *err) {
    if (have_key) return SQE_OK;
    if (RAND_bytes(hmac_key, sizeof hmac_key) != 1)
        return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "cannot draw random bytes for identity handles");
    have_key = true;
    return SQE_OK;
}

/* The handle of cfg (hex) into out. Caller holds reg_lock (the key). */
static int make_handle(const io_identity_config *cfg, char out[HANDLE_HEX + 1], sqe_error *err) {
    SQE_TRY(ensure_key(err));
    const char *parts[] = {or_empty(cfg->access_key_id), or_empty(cfg->secret_access_key),
                           or_empty(cfg->session_token),  or_empty(cfg->endpoint),
                           or_empty(cfg->region),         cfg->path_style ? "1" : "0"};
    size_t total = 0;
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++) total += strlen(parts[i]) + 1;
    unsigned char *msg = malloc(total ? total : 1);
    if (!msg) return err_nomem(err, "identity");
    size_t o = 0;
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++) {
        size_t n = strlen(parts[i]) + 1; /* with the NUL: an unambiguous join */
        memcpy(msg + o, parts[i], n);
        o += n;
    }
    unsigned char mac[EVP_MAX_MD_SIZE];
    unsigned int mac_len = 0;
    unsigned char *ok = HMAC(EVP_sha256(), hmac_key, (int)sizeof hmac_key, msg, total, mac,
                             &mac_len);
    OPENSSL_cleanse(msg, total);
    free(msg);
    if (!ok || mac_len < HANDLE_HEX / 2) return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "HMAC failed");
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < HANDLE_HEX / 2; i++) {
        out[2 * i] = hex[mac[i] >> 4];
        out[2 * i + 1] = hex[mac[i] & 15];
    }
    out[HANDLE_HEX] = '\0';
    return SQE_OK;
}

static void fill_tuning(s3_config *c) {
    const char *v = getenv("SQE_S3_MAX_ATTEMPTS");
    if (v) c->max_attempts = atoi(v);
    v = getenv("SQE_S3_PART_SIZE");
    if (v) c->part_size = (size_t)strtoull(v, NULL, 10);
    v = getenv("SQE_S3_MAX_PARALLEL");
    if (v) c->max_parallel = atoi(v);
}

/* A client for cfg's endpoint: shared (*own NULL) or new (*own = it). Caller holds reg_lock. */
static int client_for(const io_identity_config *cfg, s3_client **client, s3_client **own,
                      sqe_error *err) {
    const char *ep = or_empty(cfg->endpoint), *rg = or_empty(cfg->region);
    *own = NULL;
    for (uint32_t i = 0; i < n_clients; i++)
        if (!strcmp(clients[i].endpoint, ep) && !strcmp(clients[i].region, rg) &&
            clients[i].path_style == cfg->path_style) {
            *client = clients[i].client;
            return SQE_OK;
        }
    s3_config sc = {0};
    sc.endpoint = empty(cfg->endpoint) ? NULL : cfg->endpoint;
    sc.region = empty(cfg->region) ? NULL : cfg->region;
    sc.path_style = cfg->path_style;
    fill_tuning(&sc);
    s3_client *c = NULL;
    SQE_TRY(s3_client_create(&sc, &c, err));
    if (n_clients < MAX_CLIENTS) {
        char *e = strdup(ep), *r = strdup(rg);
        if (e && r) {
            clients[n_clients++] = (shared_client){e, r, cfg->path_style, c};
            *client = c;
            return SQE_OK;
        }
        free(e);
        free(r);
    }
    *client = *own = c;
    return SQE_OK;
}

static void identity_free(io_identity *id) {
    s3_client_destroy(id->own_client);
    free(id->key_id);
    if (id->secret) OPENSSL_cleanse(id->secret, strlen(id->secret));
    free(id->secret);
    if (id->token) OPENSSL_cleanse(id->token, strlen(id->token));
    free(id->token);
    free(id);
}

int io_identity_create(const io_identity_config *cfg, io_identity **out, sqe_error *err) {
    *out = NULL;
    if (empty(cfg->access_key_id) || empty(cfg->secret_access_key))
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                       "object store credentials need an access key id and a secret access key");
    pthread_mutex_lock(&reg_lock);
    char handle[HANDLE_HEX + 1];
    int rc = make_handle(cfg, handle, err);
    for (io_identity *e = registry; !rc && e; e = e->next)
        if (!strcmp(e->handle, handle)) {
            atomic_fetch_add(&e->refs, 1);
            pthread_mutex_unlock(&reg_lock);
            *out = e;
            return SQE_OK;
        }
    io_identity *id = rc ? NULL : calloc(1, sizeof *id);
    if (!rc && !id) rc = err_nomem(err, "identity");
    if (!rc) {
        memcpy(id->handle, handle, sizeof handle);
        atomic_init(&id->refs, 1);
        id->key_id = strdup(cfg->access_key_id);
        id->secret = strdup(cfg->secret_access_key);
        id->token = empty(cfg->session_token) ? NULL : strdup(cfg->session_token);
        if (!id->key_id || !id->secret || (!empty(cfg->session_token) && !id->token))
            rc = err_nomem(err, "identity");
    }
    if (!rc) rc = client_for(cfg, &id->ctx.client, &id->own_client, err);
    if (rc) {
        pthread_mutex_unlock(&reg_lock);
        if (id) identity_free(id);
        return rc;
    }
    id->ctx.cred = (sigv4_credentials){id->key_id, id->secret, id->token};
    id->next = registry;
    registry = id;
    pthread_mutex_unlock(&reg_lock);
    *out = id;
    return SQE_OK;
}

io_identity *io_identity_ref(const io_identity *id) {
    io_identity *m = (io_identity *)id; /* the count is the one mutable part */
    if (m) atomic_fetch_add(&m->refs, 1);
    return m;
}

void io_identity_unref(io_identity *id) {
    if (!id) return;
    pthread_mutex_lock(&reg_lock);
    bool last = atomic_fetch_sub(&id->refs, 1) == 1;
    if (last)
        for (io_identity **p = &registry; *p; p = &(*p)->next)
            if (*p == id) {
                *p = id->next;
                break;
            }
    pthread_mutex_unlock(&reg_lock);
    if (last) identity_free(id);
}

const char *io_identity_key_id(const io_identity *id) { return id ? id->key_id : ""; }

const io_s3_context *io_identity_s3(const io_identity *id) { return id ? &id->ctx : NULL; }
