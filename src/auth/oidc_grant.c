/*
 * oidc_grant.c: OAuth 2.0 grants at an identity provider's token endpoint (see oidc_grant.h).
 *
 * INTERFACE: see oidc_grant.h.
 * NOTES: every grant builds its form in a buffer sized up front (so no reallocation leaves a
 * copy of a password behind), sends it once through io/http_client.h (HTTP_RETRY_NO,
 * body_secret), wipes the form and the answer, and maps the answer: 2xx -> oidc_tokens_parse;
 * 400/401/403 with a JSON "error" of RFC 6749's characters -> UNAUTHENTICATED naming the grant and
 * the code only (never error_description, which may echo input); anything else -> IO_ERROR
 * naming the endpoint (its URL redacted). The Basic header of the configured client is built
 * once at create and wiped at destroy.
 */
#include "auth/oidc_grant.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include "common/base64.h"
#include "common/mem.h"
#include "io/http_client.h"

#define MAX_EXPIRES_S (10LL * 366 * 24 * 3600)
#define TOKEN_TYPE_ACCESS "urn:ietf:params:oauth:token-type:access_token"

struct oidc_grant_client {
    char *endpoint;
    char *endpoint_shown; /* redacted, for messages */
    char *client_id;
    char *client_secret;  /* NULL: a public client */
    char *scope;          /* NULL: none */
    char *basic;          /* "Basic ..." of the configured client, or NULL */
    http_client *http;
};

/* ---- small pieces ------------------------------------------------------------------------- */

static int64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sb_wipe(strbuf *sb) {
    if (sb->data) OPENSSL_cleanse(sb->data, sb->cap);
    strbuf_reset(sb);
}

static char *dup_or_null(const char *s) {
    return s && *s ? strdup(s) : NULL;
}

static bool unreserved(unsigned char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           c == '-' || c == '.' || c == '_' || c == '~';
}

static void pct_encode(strbuf *sb, const char *s) {
    static const char hex[] = "0123456789ABCDEF";
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (unreserved(*p)) {
            strbuf_putc(sb, (char)*p);
        } else {
            char e[3] = {'%', hex[*p >> 4], hex[*p & 15]};
            strbuf_append(sb, e, 3);
        }
    }
}

void oidc_form_add(strbuf *sb, const char *name, const char *value) {
    if (sb->len) strbuf_putc(sb, '&');
    pct_encode(sb, name);
    strbuf_putc(sb, '=');
    pct_encode(sb, value ? value : "");
}

void oidc_basic_credentials(strbuf *out, const char *client_id, const char *client_secret) {
    size_t raw_cap = 3 * (strlen(client_id) + strlen(client_secret ? client_secret : "")) + 2;
    strbuf raw;
    strbuf_init(&raw);
    if (!strbuf_reserve(&raw, raw_cap)) {
        out->failed = STRBUF_NOMEM;
        return;
    }
    pct_encode(&raw, client_id);
    strbuf_putc(&raw, ':');
    pct_encode(&raw, client_secret ? client_secret : "");
    size_t n = base64_encoded_len(raw.len, true);
    if (raw.failed || !strbuf_reserve(out, n + 8)) {
        if (!out->failed) out->failed = STRBUF_NOMEM;
        sb_wipe(&raw);
        return;
    }
    strbuf_puts(out, "Basic ");
    base64_encode((const unsigned char *)raw.data, raw.len, false, true, out->data + out->len);
    out->len += n;
    sb_wipe(&raw);
}

/* ---- PKCE and state ----------------------------------------------------------------------- */

int oidc_pkce_challenge(const char *verifier, char out[64], sqe_error *err) {
    size_t n = verifier ? strlen(verifier) : 0;
    bool ok = n >= 43 && n <= 128;
    for (size_t i = 0; ok && i < n; i++) ok = unreserved((unsigned char)verifier[i]);
    if (!ok)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                       "a PKCE code verifier is 43 to 128 characters of A-Z a-z 0-9 - . _ ~");
    unsigned char md[32];
    unsigned int md_len = 0;
    if (!EVP_Digest(verifier, n, md, &md_len, EVP_sha256(), NULL) || md_len != 32)
        return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "SHA-256 failed");
    base64_encode(md, 32, true, false, out);
    return SQE_OK;
}

int oidc_pkce_new(oidc_pkce *out, sqe_error *err) {
    memset(out, 0, sizeof *out);
    unsigned char rnd[32];
    if (RAND_bytes(rnd, sizeof rnd) != 1)
        return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "no random bytes for a PKCE verifier");
    base64_encode(rnd, sizeof rnd, true, false, out->verifier);
    OPENSSL_cleanse(rnd, sizeof rnd);
    int rc = oidc_pkce_challenge(out->verifier, out->challenge, err);
    if (rc) OPENSSL_cleanse(out, sizeof *out);
    return rc;
}

int oidc_random_state(char *buf, size_t n, sqe_error *err) {
    if (!buf || n < 17)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "a random state needs at least 17 bytes");
    static const char url[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    unsigned char rnd[64];
    size_t done = 0;
    while (done < n - 1) {
        if (RAND_bytes(rnd, sizeof rnd) != 1) {
            buf[0] = '\0';
            return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "no random bytes for a state");
        }
        for (size_t i = 0; i < sizeof rnd && done < n - 1; i++) buf[done++] = url[rnd[i] & 63];
    }
    buf[n - 1] = '\0';
    OPENSSL_cleanse(rnd, sizeof rnd);
    return SQE_OK;
}

/* ---- token responses ---------------------------------------------------------------------- */

void oidc_tokens_clear(oidc_tokens *t) {
    if (!t) return;
    mem_free_secret(t->access_token);
    mem_free_secret(t->refresh_token);
    mem_free_secret(t->id_token);
    free(t->token_type);
    free(t->scope);
    free(t->issued_token_type);
    memset(t, 0, sizeof *t);
}

static int bad_response(sqe_error *err, const char *what, const char *why) {
    return err_set(err, SQE_ERR_IO_ERROR, "%s answered with an invalid token response: %s", what,
                   why);
}

/* member name of obj into *dst: absent or null -> NULL; a string -> copy; else refused.
 * Returns 0, -1 (wrong type) or -2 (out of memory). */
static int take_string(json_t *obj, const char *name, char **dst) {
    json_t *v = json_object_get(obj, name);
    if (!v || json_is_null(v)) return 0;
    if (!json_is_string(v)) return -1;
    if (strlen(json_string_value(v)) != json_string_length(v)) return -1; /* NUL inside */
    *dst = strdup(json_string_value(v));
    return *dst ? 0 : -2;
}

/* An expiry member: absent/null -> 0; an integer 0..MAX_EXPIRES_S -> now + it; else -1. */
static int take_expiry(json_t *obj, const char *name, int64_t now, int64_t *dst) {
    json_t *v = json_object_get(obj, name);
    if (!v || json_is_null(v)) return 0;
    if (!json_is_integer(v)) return -1;
    json_int_t s = json_integer_value(v);
    if (s < 0 || s > MAX_EXPIRES_S) return -1;
    *dst = now + (int64_t)s * 1000;
    return 0;
}

int oidc_tokens_parse(const char *body, size_t len, int64_t now, const char *what,
                      oidc_tokens *out, sqe_error *err) {
    memset(out, 0, sizeof *out);
    if (len > OIDC_GRANT_MAX_RESPONSE) return bad_response(err, what, "larger than 64 KiB");
    json_error_t je;
    json_t *doc = json_loadb(body, len, JSON_REJECT_DUPLICATES, &je);
    if (!doc) return bad_response(err, what, "not JSON");
    int rc = SQE_OK;
    if (!json_is_object(doc)) {
        rc = bad_response(err, what, "not a JSON object");
        goto done;
    }
    static const struct {
        const char *name;
        size_t off;
    } strs[] = {
        {"access_token", offsetof(oidc_tokens, access_token)},
        {"refresh_token", offsetof(oidc_tokens, refresh_token)},
        {"id_token", offsetof(oidc_tokens, id_token)},
        {"token_type", offsetof(oidc_tokens, token_type)},
        {"scope", offsetof(oidc_tokens, scope)},
        {"issued_token_type", offsetof(oidc_tokens, issued_token_type)},
    };
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++) {
        int r = take_string(doc, strs[i].name, (char **)((char *)out + strs[i].off));
        if (r == -2) {
            rc = err_nomem(err, "token response");
            goto done;
        }
        if (r) {
            char why[64];
            snprintf(why, sizeof why, "%s is not a string", strs[i].name);
            rc = bad_response(err, what, why);
            goto done;
        }
    }
    if (!out->access_token || !*out->access_token) {
        rc = bad_response(err, what, "no access_token");
        goto done;
    }
    if (take_expiry(doc, "expires_in", now, &out->expires_at_ms)) {
        rc = bad_response(err, what, "expires_in is not a number of seconds");
        goto done;
    }
    if (take_expiry(doc, "refresh_expires_in", now, &out->refresh_expires_at_ms)) {
        rc = bad_response(err, what, "refresh_expires_in is not a number of seconds");
        goto done;
    }
done:
    json_decref(doc);
    if (rc) oidc_tokens_clear(out);
    return rc;
}

/* ---- the client --------------------------------------------------------------------------- */

int oidc_grant_client_create(const oidc_grant_config *cfg, oidc_grant_client **out,
                             sqe_error *err) {
    *out = NULL;
    if (!cfg || !cfg->token_endpoint || !*cfg->token_endpoint)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                       "the OIDC grant client needs a token endpoint");
    if (strncmp(cfg->token_endpoint, "http://", 7) && strncmp(cfg->token_endpoint, "https://", 8))
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                       "the token endpoint must be an http:// or https:// URL");
    if (!cfg->client_id || !*cfg->client_id)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "the OIDC grant client needs a client_id");
    oidc_grant_client *c = calloc(1, sizeof *c);
    if (!c) return err_nomem(err, "OIDC grant client");
    strbuf shown;
    strbuf_init(&shown);
    http_redact_url(&shown, cfg->token_endpoint);
    c->endpoint = strdup(cfg->token_endpoint);
    c->endpoint_shown = shown.failed ? NULL : strbuf_move(&shown);
    c->client_id = strdup(cfg->client_id);
    c->client_secret = dup_or_null(cfg->client_secret);
    c->scope = dup_or_null(cfg->scope);
    bool nomem = !c->endpoint || !c->endpoint_shown || !c->client_id ||
                 (cfg->client_secret && *cfg->client_secret && !c->client_secret) ||
                 (cfg->scope && *cfg->scope && !c->scope);
    if (!nomem && c->client_secret) {
        strbuf b;
        strbuf_init(&b);
        oidc_basic_credentials(&b, c->client_id, c->client_secret);
        if (b.failed) {
            sb_wipe(&b);
            nomem = true;
        } else {
            c->basic = strbuf_move(&b);
        }
    }
    if (nomem) {
        oidc_grant_client_destroy(c);
        return err_nomem(err, "OIDC grant client");
    }
    int64_t t = cfg->timeout_ms > 0 ? cfg->timeout_ms : 10000;
    if (t > 600000) t = 600000;
    http_client_config hc = {
        .name = "identity provider",
        .connect_timeout_ms = (int)(t < 10000 ? t : 10000),
        .timeout_ms = (int)t,
        .total_timeout_ms = (int)t,
        .max_attempts = 1,
        .max_body = OIDC_GRANT_MAX_RESPONSE,
        .pool_max = 4,
        .ca_file = cfg->ca_file,
    };
    int rc = http_client_create(&hc, &c->http, err);
    if (rc) {
        oidc_grant_client_destroy(c);
        return rc;
    }
    *out = c;
    return SQE_OK;
}

void oidc_grant_client_destroy(oidc_grant_client *c) {
    if (!c) return;
    http_client_destroy(c->http);
    free(c->endpoint);
    free(c->endpoint_shown);
    free(c->client_id);
    mem_free_secret(c->client_secret);
    free(c->scope);
    mem_free_secret(c->basic);
    free(c);
}

/* A well-formed OAuth error code (RFC 6749 5.2: %x20-21 / %x23-5B / %x5D-7E; here the
 * printable subset without space, quote and backslash), at most 47 characters. */
static bool error_code_ok(const char *s) {
    size_t n = strlen(s);
    if (n == 0 || n > 47) return false;
    for (size_t i = 0; i < n; i++)
        if (s[i] <= 0x20 || s[i] >= 0x7f || s[i] == '"' || s[i] == '\\') return false;
    return true;
}

/* Maps a non-2xx answer. */
static int refused(oidc_grant_client *c, const char *grant, long status, const strbuf *body,
                   oidc_tokens *out, sqe_error *err) {
    if (status == 400 || status == 401 || status == 403) {
        json_error_t je;
        json_t *doc = json_loadb(body->data ? body->data : "", body->len, 0, &je);
        json_t *e = doc ? json_object_get(doc, "error") : NULL;
        if (json_is_string(e) && error_code_ok(json_string_value(e))) {
            snprintf(out->error, sizeof out->error, "%s", json_string_value(e));
            json_decref(doc);
            return err_set(err, SQE_ERR_UNAUTHENTICATED,
                           "identity provider refused the %s grant: %s", grant, out->error);
        }
        json_decref(doc);
    }
    return err_set(err, SQE_ERR_IO_ERROR,
                   "identity provider token endpoint %s answered the %s grant with HTTP %ld",
                   c->endpoint_shown, grant, status);
}

/* One grant: form (already built, wiped here) sent with basic (or NULL) as Authorization. */
static int send_grant(oidc_grant_client *c, const char *grant, strbuf *form, const char *basic,
                      oidc_tokens *out, sqe_error *err) {
    memset(out, 0, sizeof *out);
    if (form->failed) {
        sb_wipe(form);
        return err_nomem(err, "token request");
    }
    http_header hdrs[3] = {{"Content-Type", "application/x-www-form-urlencoded"},
                           {"Accept", "application/json"},
                           {"Authorization", basic}};
    http_request req = {.method = "POST", .url = c->endpoint, .headers = hdrs,
                        .n_headers = basic ? 3 : 2, .body = form->data, .body_len = form->len,
                        .body_secret = true, .retry = HTTP_RETRY_NO,
                        .max_body = OIDC_GRANT_MAX_RESPONSE};
    http_response resp;
    memset(&resp, 0, sizeof resp);
    int rc = http_client_send(c->http, &req, &resp, err);
    int64_t arrived = now_ms();
    sb_wipe(form);
    if (rc == SQE_ERR_IO_ERROR) {
        if (resp.reason[0])
            rc = err_set(err, SQE_ERR_IO_ERROR,
                         "identity provider token endpoint %s unreachable (%s grant): %s",
                         c->endpoint_shown, grant, resp.reason);
        else
            err_prefix(err, "identity provider token endpoint (%s grant): ", grant);
    }
    if (!rc) {
        if (resp.status >= 200 && resp.status <= 299) {
            char what[1200];
            snprintf(what, sizeof what, "identity provider token endpoint %s (%s grant)",
                     c->endpoint_shown, grant);
            rc = oidc_tokens_parse(resp.body.data ? resp.body.data : "", resp.body.len, arrived,
                                   what, out, err);
        } else {
            rc = refused(c, grant, resp.status, &resp.body, out, err);
        }
    }
    if (resp.body.data) OPENSSL_cleanse(resp.body.data, resp.body.cap);
    http_response_free(&resp);
    return rc;
}

/* A form buffer with room for the given values (percent-encoding triples at most), so it
 * never reallocates and leaves a copy of a secret behind. */
static void form_init(strbuf *form, const char *const *values, size_t n) {
    size_t cap = 512;
    for (size_t i = 0; i < n; i++) cap += values[i] ? 3 * strlen(values[i]) : 0;
    strbuf_init(form);
    if (!strbuf_reserve(form, cap)) form->failed = STRBUF_NOMEM;
}

/* The configured client's credentials: Basic, or client_id in the form of a public client. */
static const char *client_auth(oidc_grant_client *c, strbuf *form) {
    if (c->basic) return c->basic;
    oidc_form_add(form, "client_id", c->client_id);
    return NULL;
}

int oidc_grant_password(oidc_grant_client *c, const char *user, const char *password,
                        oidc_tokens *out, sqe_error *err) {
    memset(out, 0, sizeof *out);
    if (!user || !*user || !password)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "the password grant needs a user and a password");
    strbuf form;
    const char *vals[] = {user, password, c->scope, c->client_id};
    form_init(&form, vals, 4);
    oidc_form_add(&form, "grant_type", "password");
    oidc_form_add(&form, "username", user);
    oidc_form_add(&form, "password", password);
    if (c->scope) oidc_form_add(&form, "scope", c->scope);
    const char *basic = client_auth(c, &form);
    return send_grant(c, "password", &form, basic, out, err);
}

int oidc_grant_client_credentials(oidc_grant_client *c, const char *client_id,
                                  const char *client_secret, oidc_tokens *out, sqe_error *err) {
    memset(out, 0, sizeof *out);
    if (!client_id || !*client_id || !client_secret || !*client_secret)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                       "the client-credentials grant needs a client id and a secret");
    strbuf basic;
    strbuf_init(&basic);
    oidc_basic_credentials(&basic, client_id, client_secret);
    if (basic.failed) {
        sb_wipe(&basic);
        return err_nomem(err, "token request");
    }
    strbuf form;
    const char *vals[] = {c->scope};
    form_init(&form, vals, 1);
    oidc_form_add(&form, "grant_type", "client_credentials");
    if (c->scope) oidc_form_add(&form, "scope", c->scope);
    int rc = send_grant(c, "client_credentials", &form, basic.data, out, err);
    sb_wipe(&basic);
    return rc;
}

int oidc_grant_refresh(oidc_grant_client *c, const char *refresh_token, oidc_tokens *out,
                       sqe_error *err) {
    memset(out, 0, sizeof *out);
    if (!refresh_token || !*refresh_token)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "the refresh grant needs a refresh token");
    strbuf form;
    const char *vals[] = {refresh_token, c->client_id};
    form_init(&form, vals, 2);
    oidc_form_add(&form, "grant_type", "refresh_token");
    oidc_form_add(&form, "refresh_token", refresh_token);
    const char *basic = client_auth(c, &form);
    return send_grant(c, "refresh_token", &form, basic, out, err);
}

int oidc_grant_exchange(oidc_grant_client *c, const char *subject_token, const char *audience,
                        oidc_tokens *out, sqe_error *err) {
    memset(out, 0, sizeof *out);
    if (!subject_token || !*subject_token)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "token exchange needs a subject token");
    strbuf form;
    const char *vals[] = {subject_token, audience, c->client_id};
    form_init(&form, vals, 3);
    oidc_form_add(&form, "grant_type", "urn:ietf:params:oauth:grant-type:token-exchange");
    oidc_form_add(&form, "subject_token", subject_token);
    oidc_form_add(&form, "subject_token_type", TOKEN_TYPE_ACCESS);
    oidc_form_add(&form, "requested_token_type", TOKEN_TYPE_ACCESS);
    if (audience && *audience) oidc_form_add(&form, "audience", audience);
    const char *basic = client_auth(c, &form);
    return send_grant(c, "token_exchange", &form, basic, out, err);
}

int oidc_grant_authorization_code(oidc_grant_client *c, const char *code,
                                  const char *redirect_uri, const char *code_verifier,
                                  oidc_tokens *out, sqe_error *err) {
    memset(out, 0, sizeof *out);
    if (!code || !*code || !redirect_uri || !*redirect_uri || !code_verifier || !*code_verifier)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                       "the authorization-code grant needs a code, a redirect_uri and a code "
                       "verifier");
    strbuf form;
    const char *vals[] = {code, redirect_uri, code_verifier, c->client_id};
    form_init(&form, vals, 4);
    oidc_form_add(&form, "grant_type", "authorization_code");
    oidc_form_add(&form, "code", code);
    oidc_form_add(&form, "redirect_uri", redirect_uri);
    oidc_form_add(&form, "code_verifier", code_verifier);
    const char *basic = client_auth(c, &form);
    return send_grant(c, "authorization_code", &form, basic, out, err);
}
