/*
 * sts.c: per-user object-store credentials from STS AssumeRoleWithWebIdentity (see sts.h).
 *
 * INTERFACE: io_sts_create, io_sts_destroy, io_sts_identity, io_sts_role (sts.h).
 * NOTES:
 * - HTTP: io/http_client, one client per source (pooled connections, TLS verification,
 *   timeouts, redacted logs; the form body, which holds the token, is never logged). Calls are
 *   rare (once per user and credential lifetime); connection errors, 5xx and Throttling
 *   answers are retried twice with backoff. The request is not signed:
 *   AssumeRoleWithWebIdentity takes the token as its credential.
 * - The answer is read with a small tag scanner (the first <Tag>...</Tag> of each field, XML
 *   entities decoded): AssumeRoleWithWebIdentityResponse carries each credential field once;
 *   error answers carry <Error><Code> and <Message>.
 * - Cache: an array of STS_CACHE_ENTRIES {token copy, identity reference, refresh time on the
 *   wall clock (Expiration is wall-clock time)} under one mutex; the STS call itself is made
 *   without the lock, so two first calls of one user at once may both ask STS (the later answer
 *   stays). Tokens, secrets and the response body are wiped before they are freed.
 */
#define _GNU_SOURCE
#include "io/sts.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/mem.h"
#include "common/strbuf.h"
#include "io/http_client.h"

typedef struct sts_entry {
    char *token;
    io_identity *id;
    int64_t refresh_ms; /* wall clock */
} sts_entry;

struct io_sts {
    char *endpoint, *role_arn, *session_name, *s3_endpoint, *s3_region;
    bool s3_path_style;
    int64_t duration_s, timeout_ms;
    http_client *http;
    pthread_mutex_t lock;
    sts_entry cache[STS_CACHE_ENTRIES];
};

static int64_t wall_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static bool empty(const char *s) { return !s || !*s; }

static bool session_name_ok(const char *s) {
    size_t n = strlen(s);
    if (n < 2 || n > 64) return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && !strchr("+=,.@_-", *s)) return false;
    return true;
}

const char *io_sts_role(const io_sts *s) { return s ? s->role_arn : ""; }

void io_sts_destroy(io_sts *s) {
    if (!s) return;
    for (int i = 0; i < STS_CACHE_ENTRIES; i++) {
        mem_free_secret(s->cache[i].token);
        io_identity_unref(s->cache[i].id);
    }
    free(s->endpoint);
    free(s->role_arn);
    free(s->session_name);
    free(s->s3_endpoint);
    free(s->s3_region);
    http_client_destroy(s->http);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

int io_sts_create(const io_sts_config *cfg, io_sts **out, sqe_error *err) {
    *out = NULL;
    if (empty(cfg->endpoint) || empty(cfg->role_arn))
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                       "STS needs both an endpoint and a role ARN");
    if (strncmp(cfg->endpoint, "http://", 7) != 0 && strncmp(cfg->endpoint, "https://", 8) != 0)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                       "STS endpoint \"%s\" is not an http:// or https:// URL", cfg->endpoint);
    const char *name = empty(cfg->session_name) ? "sqe" : cfg->session_name;
    if (!session_name_ok(name))
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                       "STS role session name \"%s\" must be 2 to 64 of A-Z a-z 0-9 +=,.@_-",
                       name);
    io_sts *s = calloc(1, sizeof *s);
    if (!s) return err_nomem(err, "STS credentials");
    pthread_mutex_init(&s->lock, NULL);
    s->endpoint = strdup(cfg->endpoint);
    s->role_arn = strdup(cfg->role_arn);
    s->session_name = strdup(name);
    s->s3_endpoint = empty(cfg->s3_endpoint) ? NULL : strdup(cfg->s3_endpoint);
    s->s3_region = empty(cfg->s3_region) ? NULL : strdup(cfg->s3_region);
    s->s3_path_style = cfg->s3_path_style;
    s->duration_s = cfg->duration_s > 0 ? cfg->duration_s : 3600;
    s->timeout_ms = cfg->timeout_ms > 0 ? cfg->timeout_ms : 10000;
    http_client_config hc = {.name = "STS",
                             .timeout_ms = (int)s->timeout_ms,
                             .connect_timeout_ms = (int)s->timeout_ms,
                             .max_attempts = 3,
                             .backoff_ms = 100};
    int rc = http_client_create(&hc, &s->http, err);
    if (rc) {
        io_sts_destroy(s);
        return rc;
    }
    if (!s->endpoint || !s->role_arn || !s->session_name ||
        (!empty(cfg->s3_endpoint) && !s->s3_endpoint) ||
        (!empty(cfg->s3_region) && !s->s3_region)) {
        io_sts_destroy(s);
        return err_nomem(err, "STS credentials");
    }
    *out = s;
    return SQE_OK;
}

/* ---- the response ---------------------------------------------------------------------------- */

/* The text of the first <tag>...</tag> in xml, entities decoded, malloc'ed; NULL when absent
 * (or out of memory). */
static char *xml_text(const char *xml, const char *tag) {
    char open[64], close[64];
    snprintf(open, sizeof open, "<%s>", tag);
    snprintf(close, sizeof close, "</%s>", tag);
    const char *a = strstr(xml, open);
    if (!a) return NULL;
    a += strlen(open);
    const char *b = strstr(a, close);
    if (!b) return NULL;
    char *out = malloc((size_t)(b - a) + 1);
    if (!out) return NULL;
    size_t n = 0;
    static const struct { const char *ent; char c; } ents[] = {
        {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
    for (const char *p = a; p < b;) {
        bool done = false;
        for (size_t i = 0; *p == '&' && i < sizeof ents / sizeof ents[0]; i++) {
            size_t el = strlen(ents[i].ent);
            if ((size_t)(b - p) >= el && !strncmp(p, ents[i].ent, el)) {
                out[n++] = ents[i].c;
                p += el;
                done = true;
                break;
            }
        }
        if (!done) out[n++] = *p++;
    }
    out[n] = 0;
    /* trim blanks (pretty-printed answers) */
    size_t start = 0;
    while (isspace((unsigned char)out[start])) start++;
    while (n > start && isspace((unsigned char)out[n - 1])) out[--n] = 0;
    if (start) memmove(out, out + start, n - start + 1);
    return out;
}

/* Seconds since the epoch of an ISO 8601 UTC time ("2026-01-02T03:04:05Z", fractions and a
 * +hh:mm offset allowed); -1 when it is not one. */
static int64_t iso8601_seconds(const char *s) {
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    int used = 0;
    if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
               &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &used) != 6)
        return -1;
    const char *p = s + used;
    if (*p == '.')
        for (p++; isdigit((unsigned char)*p); p++) {
        }
    int64_t offset = 0;
    if (*p == '+' || *p == '-') {
        int hh = 0, mm = 0;
        if (sscanf(p + 1, "%2d:%2d", &hh, &mm) != 2) return -1;
        offset = (*p == '+' ? 1 : -1) * (hh * 3600 + mm * 60);
    } else if (*p != 'Z' && *p != 0) {
        return -1;
    }
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    time_t t = timegm(&tm);
    return t == (time_t)-1 ? -1 : (int64_t)t - offset;
}

/* ---- the call -------------------------------------------------------------------------------- */

static void sb_wipe(strbuf *sb) {
    if (sb->data) memset(sb->data, 0, sb->len);
    strbuf_reset(sb);
}

/* STS answers throttling with a 400 whose body names it: worth another attempt. */
static bool throttled(void *ud, const http_response *resp) {
    (void)ud;
    return resp->status == 400 && strstr(strbuf_cstr(&resp->body), "<Code>Throttling<");
}

static void form_add(strbuf *sb, const char *name, const char *value) {
    if (sb->len) strbuf_putc(sb, '&');
    strbuf_puts(sb, name);
    strbuf_putc(sb, '=');
    for (const unsigned char *p = (const unsigned char *)value; *p; p++) {
        if (isalnum(*p) || *p == '-' || *p == '_' || *p == '.' || *p == '~')
            strbuf_putc(sb, (char)*p);
        else
            strbuf_printf(sb, "%%%02X", *p);
    }
}

/* The error of a non-2xx answer: STS's Code and Message (the token never appears: a message
 * that quotes it has it cut out). */
static int answer_error(io_sts *s, long status, const char *xml, const char *token,
                        sqe_error *err) {
    char *code = xml_text(xml, "Code");
    char *msg = xml_text(xml, "Message");
    if (msg && *token) {
        char *hit;
        while ((hit = strstr(msg, token)) != NULL) memmove(hit, hit + strlen(token), strlen(hit + strlen(token)) + 1);
    }
    bool denied = status == 400 || status == 403;
    int rc = err_set(err, denied ? SQE_ERR_PERMISSION_DENIED : SQE_ERR_IO_ERROR,
                     "STS refused AssumeRoleWithWebIdentity for role %s: %s%s%.300s (HTTP %ld)",
                     s->role_arn, code ? code : "no error code", msg ? ": " : "", msg ? msg : "",
                     status);
    free(code);
    free(msg);
    return rc;
}

/* Asks STS for token's credentials: *id (new reference) and *refresh_ms. */
static int assume(io_sts *s, const char *token, io_identity **id, int64_t *refresh_ms,
                  sqe_error *err) {
    strbuf form;
    strbuf_init(&form);
    char dur[32];
    snprintf(dur, sizeof dur, "%lld", (long long)s->duration_s);
    form_add(&form, "Action", "AssumeRoleWithWebIdentity");
    form_add(&form, "Version", "2011-06-15");
    form_add(&form, "RoleArn", s->role_arn);
    form_add(&form, "RoleSessionName", s->session_name);
    form_add(&form, "DurationSeconds", dur);
    form_add(&form, "WebIdentityToken", token);
    if (form.failed) {
        sb_wipe(&form);
        return err_nomem(err, "STS request");
    }
    http_header hdrs[] = {{"Content-Type", "application/x-www-form-urlencoded"},
                          {"Accept", "application/xml"}};
    http_request req = {.method = "POST", .url = s->endpoint, .headers = hdrs, .n_headers = 2,
                        .body = form.data, .body_len = form.len,
                        .body_secret = true, /* the web identity token */
                        .retry = HTTP_RETRY_YES, /* asking twice yields two valid key sets */
                        .max_body = 1 << 20, .retry_on = throttled};
    http_response resp;
    int rc = http_client_send(s->http, &req, &resp, err);
    if (rc == SQE_ERR_IO_ERROR && resp.reason[0])
        rc = err_set(err, SQE_ERR_IO_ERROR, "STS %s unreachable: %s", s->endpoint, resp.reason);
    long status = resp.status;
    sb_wipe(&form);
    const char *xml = strbuf_cstr(&resp.body);
    if (!rc && (status < 200 || status > 299)) rc = answer_error(s, status, xml, token, err);
    char *key = NULL, *secret = NULL, *session = NULL, *expiration = NULL;
    if (!rc) {
        key = xml_text(xml, "AccessKeyId");
        secret = xml_text(xml, "SecretAccessKey");
        session = xml_text(xml, "SessionToken");
        expiration = xml_text(xml, "Expiration");
        if (empty(key) || empty(secret) || empty(expiration))
            rc = err_set(err, SQE_ERR_IO_ERROR,
                         "STS %s answered AssumeRoleWithWebIdentity for role %s without "
                         "credentials (HTTP %ld)", s->endpoint, s->role_arn, status);
    }
    int64_t expires_s = rc ? 0 : iso8601_seconds(expiration);
    if (!rc && expires_s < 0)
        rc = err_set(err, SQE_ERR_IO_ERROR,
                     "STS %s answered role %s with an unreadable Expiration \"%.40s\"",
                     s->endpoint, s->role_arn, expiration);
    if (!rc) {
        io_identity_config ic = {
            .access_key_id = key,
            .secret_access_key = secret,
            .session_token = session,
            .endpoint = s->s3_endpoint,
            .region = s->s3_region,
            .path_style = s->s3_path_style,
        };
        rc = io_identity_create(&ic, id, err);
        if (rc) err_prefix(err, "the credentials STS gave for role %s", s->role_arn);
        *refresh_ms = expires_s * 1000 - STS_REFRESH_MARGIN_MS;
    }
    mem_free_secret(key);
    mem_free_secret(secret);
    mem_free_secret(session);
    free(expiration);
    sb_wipe(&resp.body);
    http_response_free(&resp);
    return rc;
}

int io_sts_identity(io_sts *s, const char *web_token, io_identity **out, sqe_error *err) {
    *out = NULL;
    if (empty(web_token))
        return err_set(err, SQE_ERR_PERMISSION_DENIED,
                       "role %s is assumed with the user's bearer token, and this session has "
                       "none", s->role_arn);
    int64_t now = wall_ms();
    pthread_mutex_lock(&s->lock);
    for (int i = 0; i < STS_CACHE_ENTRIES; i++) {
        sts_entry *e = &s->cache[i];
        if (e->token && e->refresh_ms > now && !strcmp(e->token, web_token)) {
            *out = io_identity_ref(e->id);
            break;
        }
    }
    pthread_mutex_unlock(&s->lock);
    if (*out) return SQE_OK;

    io_identity *id = NULL;
    int64_t refresh_ms = 0;
    SQE_TRY(assume(s, web_token, &id, &refresh_ms, err));
    char *copy = strdup(web_token);
    if (copy && refresh_ms > wall_ms()) {
        pthread_mutex_lock(&s->lock);
        int slot = -1;
        for (int i = 0; i < STS_CACHE_ENTRIES && slot < 0; i++)
            if (s->cache[i].token && !strcmp(s->cache[i].token, web_token)) slot = i;
        for (int i = 0; i < STS_CACHE_ENTRIES && slot < 0; i++)
            if (!s->cache[i].token) slot = i;
        if (slot < 0) {
            slot = 0;
            for (int i = 1; i < STS_CACHE_ENTRIES; i++)
                if (s->cache[i].refresh_ms < s->cache[slot].refresh_ms) slot = i;
        }
        sts_entry *e = &s->cache[slot];
        mem_free_secret(e->token);
        io_identity_unref(e->id);
        e->token = copy;
        e->id = io_identity_ref(id);
        e->refresh_ms = refresh_ms;
        copy = NULL;
        pthread_mutex_unlock(&s->lock);
    }
    mem_free_secret(copy);
    *out = id;
    return SQE_OK;
}
