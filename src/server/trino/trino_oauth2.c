/*
 * trino_oauth2.c: Trino's OAuth2 external authentication (the flow of trino_oauth2.h): the
 * table of pending logins, the 401 challenge, and the routes initiate, callback and token poll.
 *
 * INTERFACE: trino_oauth2_options_init, trino_oauth2_create, trino_oauth2_add_routes,
 *   trino_oauth2_challenge, trino_oauth2_destroy (trino_oauth2.h).
 * Routes (all public: the caller has no credentials yet):
 *   GET    /oauth2/token/initiate/LOGIN_ID   303 to the identity provider's login page
 *   GET    /oauth2/callback?code&state       code exchange; a small HTML page
 *   GET    /oauth2/token/POLL_ID             {"nextUri"} | {"token"} | {"error"}
 *   DELETE /oauth2/token/POLL_ID             204 (the login is forgotten)
 * NOTES:
 * - A login is one slot of a fixed table (max_pending), found by comparing its random ids with
 *   CRYPTO_memcmp; a slot's generation changes when it is reused, so a handler that let go of
 *   the lock (to reach the identity provider) finds out whether its login is still there.
 * - The lock is never held across a network call. Pollers wait on one condition variable
 *   (CLOCK_MONOTONIC), woken when a login finishes; at most MAX_WAITING_POLLS wait at a time
 *   (they hold HTTP pool threads), the others get {"nextUri"} at once.
 * - Expired logins are dropped by whoever takes the lock next (no thread of their own).
 * - The grant client (oidc_grant.h) is made on the first callback, from discovery's
 *   token_endpoint (SQE starts while the identity provider is down).
 */
#include "server/trino/trino_oauth2.h"

#include <openssl/crypto.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "auth/oidc_grant.h"
#include "common/clock.h"
#include "common/strbuf.h"
#include "server/trino/trino_int.h"

#define ID_LEN 43 /* oidc_random_state(buf, ID_LEN + 1): 258 random bits */
#define MAX_CODE_BYTES 4096
#define MAX_WAITING_POLLS 4
#define INITIATE_PATH "/oauth2/token/initiate/"
#define TOKEN_PATH "/oauth2/token/"
#define CALLBACK_PATH "/oauth2/callback"
#define HTML "text/html; charset=utf-8"

typedef enum login_phase {
    LOGIN_FREE = 0,
    LOGIN_NEW,        /* challenged; the browser has not come yet */
    LOGIN_REDIRECTED, /* sent to the identity provider with state */
    LOGIN_EXCHANGING, /* the callback is exchanging the code */
    LOGIN_DONE,       /* token ready for one poll */
    LOGIN_FAILED,     /* error ready for one poll */
} login_phase;

typedef struct login {
    login_phase phase;
    uint64_t gen;
    char poll_id[ID_LEN + 1];
    char login_id[ID_LEN + 1];
    char state[ID_LEN + 1]; /* "" until initiated, and again once used */
    char verifier[64];
    char redirect_uri[512];
    char addr[96];          /* the challenged client's address, without port */
    int64_t expires_ms;
    char *token;
    char error[sizeof(((sqe_error *)0)->message)];
} login;

struct trino_oauth2 {
    trino_oauth2_options o; /* strings point at the copies below */
    char *client_id, *client_secret, *scope, *redirect_url, *ca_file;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    login *logins; /* o.max_pending slots */
    uint64_t next_gen;
    uint32_t waiting; /* pollers waiting on cv */
    pthread_mutex_t grant_mu;
    oidc_grant_client *grant;
};

/* --- logins --------------------------------------------------------------------------------- */

static void login_wipe(login *l) {
    if (l->token) {
        OPENSSL_cleanse(l->token, strlen(l->token));
        free(l->token);
    }
    uint64_t gen = l->gen;
    OPENSSL_cleanse(l, sizeof *l);
    l->gen = gen;
}

/* Drops expired logins (lock held) but for one being exchanged: its callback drops it. */
static void reap(trino_oauth2 *f, int64_t now) {
    bool woke = false;
    for (uint32_t i = 0; i < f->o.max_pending; i++) {
        login *l = &f->logins[i];
        if (l->phase == LOGIN_FREE || l->phase == LOGIN_EXCHANGING || now < l->expires_ms)
            continue;
        login_wipe(l);
        woke = true;
    }
    if (woke) pthread_cond_broadcast(&f->cv);
}

static bool id_valid(const char *s) {
    return strlen(s) == ID_LEN &&
           strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") ==
               ID_LEN;
}

enum { BY_POLL, BY_LOGIN, BY_STATE };

/* The live login whose id of kind `by` is id (valid, ID_LEN characters), or NULL. */
static login *find(trino_oauth2 *f, int by, const char *id) {
    for (uint32_t i = 0; i < f->o.max_pending; i++) {
        login *l = &f->logins[i];
        if (l->phase == LOGIN_FREE) continue;
        const char *mine = by == BY_POLL ? l->poll_id : by == BY_LOGIN ? l->login_id : l->state;
        if (mine[0] && CRYPTO_memcmp(mine, id, ID_LEN) == 0) return l;
    }
    return NULL;
}

/* The login in slot idx if it is still generation gen. */
static login *still(trino_oauth2 *f, uint32_t idx, uint64_t gen) {
    login *l = &f->logins[idx];
    return l->phase != LOGIN_FREE && l->gen == gen ? l : NULL;
}

/* "ip" of "ip:port" or "[ip]:port". */
static void addr_of(const struct http_request *req, char *out, size_t n) {
    char peer[96];
    http_request_peer(req, peer, sizeof peer);
    char *end = peer[0] == '[' ? strchr(peer, ']') : strrchr(peer, ':');
    if (end && peer[0] == '[') end++;
    if (end) *end = 0;
    snprintf(out, n, "%s", peer);
}

/* The base browsers use: redirect_url, else the request's scheme://host[:port]. */
static void browser_base(const trino_oauth2 *f, const struct http_request *req, char *buf,
                         size_t n) {
    if (f->redirect_url[0])
        snprintf(buf, n, "%s", f->redirect_url);
    else
        http_request_base_uri(req, buf, n);
}

/* Wipes and frees what sb holds (ids, a state, a token may be in it). */
static void sb_wipe(strbuf *sb) {
    if (sb->data) OPENSSL_cleanse(sb->data, sb->len);
    strbuf_reset(sb);
}

/* --- replies -------------------------------------------------------------------------------- */

static void html_escape(const char *s, strbuf *out) {
    for (; *s; s++) {
        switch (*s) {
        case '<': strbuf_puts(out, "&lt;"); break;
        case '>': strbuf_puts(out, "&gt;"); break;
        case '&': strbuf_puts(out, "&amp;"); break;
        case '"': strbuf_puts(out, "&quot;"); break;
        case '\'': strbuf_puts(out, "&#39;"); break;
        default: strbuf_putc(out, *s);
        }
    }
}

/* Headers every answer of the flow carries: never cached, never a Referer with the code. */
static void private_headers(http_reply *r) {
    http_reply_header(r, "Cache-Control", "no-store");
    http_reply_header(r, "Referrer-Policy", "no-referrer");
    http_reply_header(r, "X-Content-Type-Options", "nosniff");
}

/* A small page for the browser: title and one sentence. */
static void page(http_reply *r, unsigned status, const char *title, const char *text) {
    strbuf sb;
    strbuf_init(&sb);
    strbuf_puts(&sb, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>");
    html_escape(title, &sb);
    strbuf_puts(&sb, "</title></head><body><h1>");
    html_escape(title, &sb);
    strbuf_puts(&sb, "</h1><p>");
    html_escape(text, &sb);
    strbuf_puts(&sb, "</p></body></html>\n");
    if (sb.failed) {
        strbuf_reset(&sb);
        http_reply_text(r, 500, NULL, "out of memory");
        return;
    }
    size_t len = sb.len;
    if (http_reply_take(r, status, HTML, strbuf_move(&sb), len) != SQE_OK) return;
    private_headers(r);
    http_reply_header(r, "Content-Security-Policy", "default-src 'none'");
}

/* {"name": value} with status 200 (the clients read errors from the body). */
static void poll_json(http_reply *r, const char *name, const char *value) {
    strbuf sb;
    strbuf_init(&sb);
    strbuf_puts(&sb, "{");
    trino_json_string(name, &sb);
    strbuf_puts(&sb, ":");
    trino_json_string(value, &sb);
    strbuf_puts(&sb, "}");
    if (sb.failed) {
        sb_wipe(&sb);
        http_reply_text(r, 500, NULL, "out of memory");
        return;
    }
    size_t len = sb.len;
    if (http_reply_take(r, 200, "application/json", strbuf_move(&sb), len) == SQE_OK)
        private_headers(r);
}

/* --- the challenge -------------------------------------------------------------------------- */

void trino_oauth2_challenge(void *ud, const struct http_request *req, struct http_reply *reply) {
    trino_oauth2 *f = ud;
    const char *authz = http_request_header(req, "Authorization");
    if (reply->status != 401 || (authz && strncasecmp(authz, "Bearer ", 7) != 0)) return;
    char poll_id[ID_LEN + 1], login_id[ID_LEN + 1], addr[96];
    sqe_error e;
    if (oidc_random_state(poll_id, sizeof poll_id, &e) != SQE_OK ||
        oidc_random_state(login_id, sizeof login_id, &e) != SQE_OK)
        return; /* no randomness: only the Basic challenge */
    addr_of(req, addr, sizeof addr);
    int64_t now = clock_mono_ms();
    pthread_mutex_lock(&f->mu);
    reap(f, now);
    uint32_t mine = 0; /* max_pending: no free slot */
    login *slot = NULL;
    for (uint32_t i = 0; i < f->o.max_pending; i++) {
        login *l = &f->logins[i];
        if (l->phase == LOGIN_FREE) {
            if (!slot) slot = l;
            continue;
        }
        if (!strcmp(l->addr, addr)) mine++;
    }
    if (!slot || mine >= f->o.max_pending_per_address) {
        pthread_mutex_unlock(&f->mu);
        OPENSSL_cleanse(poll_id, sizeof poll_id);
        OPENSSL_cleanse(login_id, sizeof login_id);
        char msg[200];
        snprintf(msg, sizeof msg,
                 "Service unavailable: too many external authentication logins pending%s; "
                 "retry later",
                 slot ? " from this address" : "");
        if (http_reply_text(reply, 503, NULL, msg) == SQE_OK)
            http_reply_header(reply, "Retry-After", "5");
        return;
    }
    slot->phase = LOGIN_NEW;
    slot->gen = ++f->next_gen;
    memcpy(slot->poll_id, poll_id, sizeof poll_id);
    memcpy(slot->login_id, login_id, sizeof login_id);
    snprintf(slot->addr, sizeof slot->addr, "%s", addr);
    slot->expires_ms = now + f->o.login_ttl_ms;
    pthread_mutex_unlock(&f->mu);

    char base[320], bbase[320];
    http_request_base_uri(req, base, sizeof base);
    browser_base(f, req, bbase, sizeof bbase);
    strbuf sb;
    strbuf_init(&sb);
    strbuf_printf(&sb,
                  "Bearer x_redirect_server=\"%s" INITIATE_PATH "%s\", "
                  "x_token_server=\"%s" TOKEN_PATH "%s\"",
                  bbase, login_id, base, poll_id);
    if (!sb.failed) http_reply_header(reply, "WWW-Authenticate", strbuf_cstr(&sb));
    sb_wipe(&sb);
    OPENSSL_cleanse(poll_id, sizeof poll_id);
    OPENSSL_cleanse(login_id, sizeof login_id);
}

/* --- GET /oauth2/token/initiate/LOGIN_ID ---------------------------------------------------- */

static void initiate(void *ud, const http_request *req, http_reply *reply) {
    trino_oauth2 *f = ud;
    const char *id = req->path + strlen(INITIATE_PATH);
    static const char *gone = "This login link is unknown, has expired or was already used. "
                              "Run the client again for a new one.";
    if (!id_valid(id)) {
        page(reply, 404, "Login not found", gone);
        return;
    }
    pthread_mutex_lock(&f->mu);
    reap(f, clock_mono_ms());
    login *l = find(f, BY_LOGIN, id);
    if (!l || (l->phase != LOGIN_NEW && l->phase != LOGIN_REDIRECTED)) {
        pthread_mutex_unlock(&f->mu);
        page(reply, 404, "Login not found", gone);
        return;
    }
    uint32_t idx = (uint32_t)(l - f->logins);
    uint64_t gen = l->gen;
    pthread_mutex_unlock(&f->mu);

    sqe_error e;
    oidc_endpoints ep;
    memset(&ep, 0, sizeof ep);
    if (oidc_idp_endpoints(f->o.idp, &ep, &e) != SQE_OK || !ep.authorization_endpoint) {
        page(reply, 502, "Identity provider unavailable",
             ep.authorization_endpoint || !e.message[0]
                 ? "The identity provider has no authorization endpoint."
                 : e.message);
        return;
    }
    oidc_pkce pkce;
    char state[ID_LEN + 1];
    if (oidc_pkce_new(&pkce, &e) != SQE_OK || oidc_random_state(state, sizeof state, &e)) {
        page(reply, 500, "Login failed", e.message);
        return;
    }
    char base[320];
    browser_base(f, req, base, sizeof base);
    char redirect_uri[sizeof l->redirect_uri];
    snprintf(redirect_uri, sizeof redirect_uri, "%s" CALLBACK_PATH, base);

    pthread_mutex_lock(&f->mu);
    l = still(f, idx, gen);
    if (l && (l->phase == LOGIN_NEW || l->phase == LOGIN_REDIRECTED)) {
        l->phase = LOGIN_REDIRECTED; /* a second visit replaces the state of the first */
        memcpy(l->state, state, sizeof state);
        memcpy(l->verifier, pkce.verifier, sizeof l->verifier);
        memcpy(l->redirect_uri, redirect_uri, sizeof redirect_uri);
    }
    pthread_mutex_unlock(&f->mu);
    if (!l) {
        page(reply, 404, "Login not found", gone);
    } else {
        strbuf loc;
        strbuf_init(&loc);
        strbuf_puts(&loc, ep.authorization_endpoint);
        strbuf_puts(&loc, strchr(ep.authorization_endpoint, '?') ? "&" : "?");
        strbuf_puts(&loc, "response_type=code&client_id=");
        trino_url_encode(f->client_id, &loc);
        strbuf_puts(&loc, "&redirect_uri=");
        trino_url_encode(redirect_uri, &loc);
        strbuf_puts(&loc, "&scope=");
        trino_url_encode(f->scope, &loc);
        strbuf_printf(&loc, "&state=%s&code_challenge=%s&code_challenge_method=S256", state,
                      pkce.challenge);
        if (loc.failed) {
            http_reply_text(reply, 500, NULL, "out of memory");
        } else {
            page(reply, 303, "Redirecting", "Continue at the identity provider's login page.");
            http_reply_header(reply, "Location", strbuf_cstr(&loc));
        }
        sb_wipe(&loc);
    }
    OPENSSL_cleanse(&pkce, sizeof pkce);
    OPENSSL_cleanse(state, sizeof state);
}

/* --- GET /oauth2/callback ------------------------------------------------------------------- */

/* The grant client, made from discovery's token endpoint on first use. */
static int grant_of(trino_oauth2 *f, oidc_grant_client **out, sqe_error *err) {
    pthread_mutex_lock(&f->grant_mu);
    int rc = SQE_OK;
    if (!f->grant) {
        oidc_endpoints ep;
        memset(&ep, 0, sizeof ep);
        rc = oidc_idp_endpoints(f->o.idp, &ep, err);
        if (!rc && !ep.token_endpoint)
            rc = err_set(err, SQE_ERR_IO_ERROR, "the identity provider has no token endpoint");
        if (!rc) {
            oidc_grant_config gc = {
                .token_endpoint = ep.token_endpoint,
                .client_id = f->client_id,
                .client_secret = f->client_secret,
                .scope = f->scope,
                .timeout_ms = f->o.http_timeout_ms,
                .ca_file = f->ca_file,
            };
            rc = oidc_grant_client_create(&gc, &f->grant, err);
        }
    }
    *out = f->grant;
    pthread_mutex_unlock(&f->grant_mu);
    return rc;
}

/* An OAuth error code as the identity provider sent it, if it looks like one (RFC 6749
 * characters), else "invalid". */
static const char *oauth_code(const char *s) {
    size_t n = strlen(s);
    if (n == 0 || n > 47 ||
        strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") != n)
        return "invalid";
    return s;
}

static void callback(void *ud, const http_request *req, http_reply *reply) {
    trino_oauth2 *f = ud;
    const char *state = http_request_query(req, "state");
    const char *code = http_request_query(req, "code");
    const char *idp_error = http_request_query(req, "error");
    static const char *gone = "This login is unknown, has expired or was already completed. "
                              "Run the client again to log in.";
    if (!state || !id_valid(state)) {
        page(reply, 400, "Login failed", gone);
        return;
    }
    pthread_mutex_lock(&f->mu);
    reap(f, clock_mono_ms());
    login *l = find(f, BY_STATE, state);
    if (!l || l->phase != LOGIN_REDIRECTED) {
        pthread_mutex_unlock(&f->mu);
        page(reply, 400, "Login failed", gone);
        return;
    }
    OPENSSL_cleanse(l->state, sizeof l->state); /* single use */
    if (idp_error || !code || !code[0] || strlen(code) > MAX_CODE_BYTES) {
        char why[160];
        if (idp_error)
            snprintf(why, sizeof why, "the identity provider refused the login: %s",
                     oauth_code(idp_error));
        else
            snprintf(why, sizeof why, "the identity provider sent no authorization code");
        l->phase = LOGIN_FAILED;
        snprintf(l->error, sizeof l->error, "%s", why);
        OPENSSL_cleanse(l->verifier, sizeof l->verifier);
        pthread_cond_broadcast(&f->cv);
        pthread_mutex_unlock(&f->mu);
        page(reply, 400, "Login failed", why);
        return;
    }
    l->phase = LOGIN_EXCHANGING;
    uint32_t idx = (uint32_t)(l - f->logins);
    uint64_t gen = l->gen;
    char verifier[sizeof l->verifier], redirect_uri[sizeof l->redirect_uri];
    memcpy(verifier, l->verifier, sizeof verifier);
    memcpy(redirect_uri, l->redirect_uri, sizeof redirect_uri);
    OPENSSL_cleanse(l->verifier, sizeof l->verifier);
    pthread_mutex_unlock(&f->mu);

    sqe_error e;
    err_clear(&e);
    oidc_tokens t;
    memset(&t, 0, sizeof t);
    oidc_grant_client *g = NULL;
    int rc = grant_of(f, &g, &e);
    if (!rc) rc = oidc_grant_authorization_code(g, code, redirect_uri, verifier, &t, &e);
    OPENSSL_cleanse(verifier, sizeof verifier);
    char *token = !rc ? strdup(t.access_token) : NULL;
    oidc_tokens_clear(&t);
    if (!rc && !token) rc = err_nomem(&e, "token");

    pthread_mutex_lock(&f->mu);
    l = still(f, idx, gen);
    bool kept = false;
    if (l && l->phase == LOGIN_EXCHANGING) {
        if (clock_mono_ms() >= l->expires_ms) {
            login_wipe(l);
            rc = rc ? rc : err_set(&e, SQE_ERR_UNAUTHENTICATED, "the login expired");
        } else if (rc) {
            l->phase = LOGIN_FAILED;
            snprintf(l->error, sizeof l->error, "%s", e.message);
        } else {
            l->phase = LOGIN_DONE;
            l->token = token;
            kept = true;
        }
        pthread_cond_broadcast(&f->cv);
    }
    pthread_mutex_unlock(&f->mu);
    if (token && !kept) {
        OPENSSL_cleanse(token, strlen(token));
        free(token);
        if (!rc) rc = err_set(&e, SQE_ERR_UNAUTHENTICATED, "the login was canceled");
    }
    if (rc)
        page(reply, rc == SQE_ERR_UNAUTHENTICATED ? 400 : 502, "Login failed", e.message);
    else
        page(reply, 200, "Login complete",
             "You are logged in to SQE. You may close this window and return to the client.");
}

/* --- GET / DELETE /oauth2/token/POLL_ID ----------------------------------------------------- */

static const char *unknown_poll = "unknown or expired authentication; run the client again";

static void token_poll(void *ud, const http_request *req, http_reply *reply) {
    trino_oauth2 *f = ud;
    const char *id = req->path + strlen(TOKEN_PATH);
    if (!id_valid(id)) {
        poll_json(reply, "error", unknown_poll);
        return;
    }
    int64_t deadline = clock_mono_ms() + f->o.poll_wait_ms;
    pthread_mutex_lock(&f->mu);
    for (;;) {
        int64_t now = clock_mono_ms();
        reap(f, now);
        login *l = find(f, BY_POLL, id);
        if (!l) {
            pthread_mutex_unlock(&f->mu);
            poll_json(reply, "error", unknown_poll);
            return;
        }
        if (l->phase == LOGIN_DONE || l->phase == LOGIN_FAILED) {
            char *token = l->token;
            char error[sizeof l->error + 32];
            snprintf(error, sizeof error, "authentication failed: %s", l->error);
            l->token = NULL;
            bool done = l->phase == LOGIN_DONE;
            login_wipe(l); /* answered once, then forgotten */
            pthread_mutex_unlock(&f->mu);
            poll_json(reply, done ? "token" : "error", done ? token : error);
            if (token) {
                OPENSSL_cleanse(token, strlen(token));
                free(token);
            }
            return;
        }
        if (now >= deadline || f->waiting >= MAX_WAITING_POLLS) break;
        int64_t until = deadline < l->expires_ms ? deadline : l->expires_ms;
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        int64_t wait_ms = until - now;
        ts.tv_sec += wait_ms / 1000;
        ts.tv_nsec += (long)(wait_ms % 1000) * 1000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        f->waiting++;
        pthread_cond_timedwait(&f->cv, &f->mu, &ts);
        f->waiting--;
    }
    pthread_mutex_unlock(&f->mu);
    char base[320];
    http_request_base_uri(req, base, sizeof base);
    char next[400];
    snprintf(next, sizeof next, "%s" TOKEN_PATH "%s", base, id);
    poll_json(reply, "nextUri", next);
}

static void token_delete(void *ud, const http_request *req, http_reply *reply) {
    trino_oauth2 *f = ud;
    const char *id = req->path + strlen(TOKEN_PATH);
    if (id_valid(id)) {
        pthread_mutex_lock(&f->mu);
        login *l = find(f, BY_POLL, id);
        if (l && l->phase != LOGIN_EXCHANGING) login_wipe(l);
        else if (l) l->expires_ms = 0; /* the callback drops it when its exchange returns */
        pthread_cond_broadcast(&f->cv);
        pthread_mutex_unlock(&f->mu);
    }
    http_reply_text(reply, 204, NULL, ""); /* the same for a login that never was */
}

/* --- lifecycle ------------------------------------------------------------------------------ */

void trino_oauth2_options_init(trino_oauth2_options *o) {
    memset(o, 0, sizeof *o);
    o->max_pending = 256;
    o->max_pending_per_address = 32;
    o->login_ttl_ms = 5 * 60 * 1000;
    o->poll_wait_ms = 10 * 1000;
}

static char *dup_or_empty(const char *s, bool *failed) {
    char *c = strdup(s ? s : "");
    if (!c) *failed = true;
    return c;
}

int trino_oauth2_create(const trino_oauth2_options *o, trino_oauth2 **out, sqe_error *err) {
    *out = NULL;
    if (!o->idp || !o->client_id || !o->client_id[0])
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                       "Trino external authentication needs [auth.oidc] issuer and client_id");
    const char *ru = o->redirect_url ? o->redirect_url : "";
    if (*ru && strncmp(ru, "http://", 7) != 0 && strncmp(ru, "https://", 8) != 0)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                       "[auth.oidc] redirect_url must be an http(s) URL");
    trino_oauth2 *f = calloc(1, sizeof *f);
    if (!f) return err_nomem(err, "external authentication");
    f->o = *o;
    if (!f->o.max_pending) f->o.max_pending = 256;
    if (!f->o.max_pending_per_address) f->o.max_pending_per_address = f->o.max_pending;
    if (!f->o.login_ttl_ms) f->o.login_ttl_ms = 5 * 60 * 1000;
    if (!f->o.poll_wait_ms) f->o.poll_wait_ms = 10 * 1000;
    bool failed = false;
    f->client_id = dup_or_empty(o->client_id, &failed);
    f->client_secret = dup_or_empty(o->client_secret, &failed);
    f->scope = dup_or_empty(o->scope && o->scope[0] ? o->scope : "openid", &failed);
    f->redirect_url = dup_or_empty(ru, &failed);
    f->ca_file = o->ca_file && o->ca_file[0] ? dup_or_empty(o->ca_file, &failed) : NULL;
    f->logins = calloc(f->o.max_pending, sizeof *f->logins);
    if (failed || !f->logins) {
        pthread_mutex_init(&f->mu, NULL);
        pthread_mutex_init(&f->grant_mu, NULL);
        pthread_cond_init(&f->cv, NULL);
        trino_oauth2_destroy(f);
        return err_nomem(err, "external authentication");
    }
    size_t rl = strlen(f->redirect_url);
    while (rl && f->redirect_url[rl - 1] == '/') f->redirect_url[--rl] = 0;
    f->o.client_id = f->client_id;
    f->o.client_secret = f->client_secret;
    f->o.scope = f->scope;
    f->o.redirect_url = f->redirect_url;
    f->o.ca_file = f->ca_file;
    pthread_mutex_init(&f->mu, NULL);
    pthread_mutex_init(&f->grant_mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&f->cv, &ca);
    pthread_condattr_destroy(&ca);
    *out = f;
    return SQE_OK;
}

int trino_oauth2_add_routes(trino_oauth2 *f, http_server *srv) {
    const unsigned P = HTTP_ROUTE_PREFIX;
    const http_route routes[] = {
        {"GET", INITIATE_PATH, P, 0, initiate, NULL, NULL},
        {"GET", TOKEN_PATH, P, 0, token_poll, NULL, NULL},
        {"DELETE", TOKEN_PATH, P, 0, token_delete, NULL, NULL},
        {"GET", CALLBACK_PATH, 0, 0, callback, NULL, NULL},
    };
    return http_server_add_routes(srv, routes, sizeof routes / sizeof routes[0], f);
}

void trino_oauth2_destroy(trino_oauth2 *f) {
    if (!f) return;
    if (f->logins)
        for (uint32_t i = 0; i < f->o.max_pending; i++) login_wipe(&f->logins[i]);
    free(f->logins);
    oidc_grant_client_destroy(f->grant);
    if (f->client_secret) OPENSSL_cleanse(f->client_secret, strlen(f->client_secret));
    free(f->client_id);
    free(f->client_secret);
    free(f->scope);
    free(f->redirect_url);
    free(f->ca_file);
    pthread_cond_destroy(&f->cv);
    pthread_mutex_destroy(&f->grant_mu);
    pthread_mutex_destroy(&f->mu);
    free(f);
}
