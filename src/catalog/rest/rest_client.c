/*
 * rest_client.c: HTTP + JSON transport of the Iceberg REST catalog backend (see rest_client.h).
 *
 * INTERFACE: rest_client_open, rest_client_close, rest_client_uri, rest_client_request,
 *   rest_response_free, rest_client_http_error, rest_client_oauth2, rest_url_encode, rest_now_ms.
 * NOTES: the HTTP exchange is io/http_client's (one client per catalog: pooled keep-alive
 * connections, TLS verification, timeouts, retries of idempotent requests on connection errors
 * and 429/5xx with backoff, jitter and Retry-After, redacted logs); this file adds the JSON
 * bodies, the headers of the Iceberg REST protocol and the breaker. The circuit breaker opens
 * after breaker_threshold consecutive failed attempts (transport errors or 5xx) and fails
 * requests fast until breaker_cooldown_ms passed (checked before each attempt); then one request
 * probes it (half open) and a success closes it. Response bodies are capped at
 * REST_MAX_RESPONSE_BYTES. OAuth2 form bodies (client secrets) are never logged.
 */
#include "catalog/rest/rest_client.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/strbuf.h"
#include "io/http_client.h"

struct rest_client {
    char *uri;
    rest_client_config cfg;
    pthread_mutex_t lock;
    int failures;          /* consecutive */
    int64_t open_until_ms; /* circuit open until then (0 = closed) */
    http_client *http;     /* connections, retries, timeouts, logs */
};

int64_t rest_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int rest_client_open(const rest_client_config *cfg, rest_client **out, sqe_error *err) {
    if (!cfg || !cfg->uri || !*cfg->uri)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "REST catalog: no uri configured");
    if (strncmp(cfg->uri, "http://", 7) != 0 && strncmp(cfg->uri, "https://", 8) != 0)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                       "REST catalog: uri '%s' must start with http:// or https://", cfg->uri);
    rest_client *c = calloc(1, sizeof *c);
    if (!c || !(c->uri = strdup(cfg->uri))) {
        free(c);
        return err_nomem(err, "REST catalog client");
    }
    size_t n = strlen(c->uri);
    while (n > 0 && c->uri[n - 1] == '/') c->uri[--n] = '\0';
    c->cfg = *cfg;
    c->cfg.uri = c->uri;
    if (c->cfg.timeout_ms <= 0) c->cfg.timeout_ms = 30000;
    if (c->cfg.connect_timeout_ms <= 0) c->cfg.connect_timeout_ms = 5000;
    if (c->cfg.max_retries == 0) c->cfg.max_retries = 3;
    if (c->cfg.max_retries < 0) c->cfg.max_retries = 0;
    if (c->cfg.backoff_ms <= 0) c->cfg.backoff_ms = 50;
    if (c->cfg.breaker_threshold <= 0) c->cfg.breaker_threshold = 5;
    if (c->cfg.breaker_cooldown_ms <= 0) c->cfg.breaker_cooldown_ms = 10000;
    http_client_config hc = {.name = "REST catalog",
                             .timeout_ms = c->cfg.timeout_ms,
                             .connect_timeout_ms = c->cfg.connect_timeout_ms,
                             .max_attempts = 1 + c->cfg.max_retries,
                             .backoff_ms = c->cfg.backoff_ms,
                             .max_backoff_ms = 2000,
                             .max_body = REST_MAX_RESPONSE_BYTES};
    int rc = http_client_create(&hc, &c->http, err);
    if (rc) {
        free(c->uri);
        free(c);
        return rc;
    }
    pthread_mutex_init(&c->lock, NULL);
    *out = c;
    return SQE_OK;
}

void rest_client_close(rest_client *c) {
    if (!c) return;
    pthread_mutex_destroy(&c->lock);
    http_client_destroy(c->http);
    free(c->uri);
    free(c);
}

const char *rest_client_uri(const rest_client *c) { return c->uri; }

void rest_response_free(rest_response *resp) {
    if (!resp) return;
    json_decref(resp->body);
    free(resp->etag);
    memset(resp, 0, sizeof *resp);
}

bool rest_url_encode(strbuf *out, const char *s) {
    static const char hex[] = "0123456789ABCDEF";
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        unsigned char ch = *p;
        bool keep = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') ||
                    (ch >= '0' && ch <= '9') || ch == '-' || ch == '.' || ch == '_' || ch == '~';
        if (keep) {
            strbuf_putc(out, (char)ch);
        } else {
            char e[3] = {'%', hex[ch >> 4], hex[ch & 15]};
            strbuf_append(out, e, 3);
        }
    }
    return !out->failed;
}

/* ---- breaker ------------------------------------------------------------------------------- */

static int breaker_check(rest_client *c, sqe_error *err) {
    pthread_mutex_lock(&c->lock);
    int64_t now = rest_now_ms();
    int rc = SQE_OK;
    if (c->open_until_ms && now < c->open_until_ms)
        rc = err_set(err, SQE_ERR_IO_ERROR,
                     "REST catalog %s unavailable: circuit open after %d consecutive failures "
                     "(retrying in %lld ms)",
                     c->uri, c->failures, (long long)(c->open_until_ms - now));
    pthread_mutex_unlock(&c->lock);
    return rc;
}

/* Counts failed_attempts consecutive failures (transport errors or 5xx), then a success when
 * succeeded. */
static void breaker_note(rest_client *c, int failed_attempts, bool succeeded) {
    pthread_mutex_lock(&c->lock);
    c->failures += failed_attempts;
    if (succeeded) {
        c->failures = 0;
        c->open_until_ms = 0;
    } else if (c->failures >= c->cfg.breaker_threshold) {
        c->open_until_ms = rest_now_ms() + c->cfg.breaker_cooldown_ms;
    }
    pthread_mutex_unlock(&c->lock);
}

/* The circuit is checked again before each retry (prepare hook of the HTTP request). */
static int prepare_attempt(void *ud, http_attempt *a, sqe_error *err) {
    (void)a;
    return breaker_check(ud, err);
}

static const char *const method_names[] = {"GET", "HEAD", "POST", "DELETE"};

int rest_client_request(rest_client *c, const rest_request *req, rest_response *resp,
                        sqe_error *err) {
    memset(resp, 0, sizeof *resp);
    if (req->not_sent) *req->not_sent = true;
    SQE_TRY(breaker_check(c, err));
    char *body_text = NULL;
    if (req->body && !(body_text = json_dumps(req->body, JSON_COMPACT)))
        return err_nomem(err, "REST request body");
    const char *text = req->form ? req->form : body_text;
    strbuf url, auth;
    strbuf_init(&url);
    strbuf_init(&auth);
    if (strncmp(req->path, "http://", 7) != 0 && strncmp(req->path, "https://", 8) != 0)
        strbuf_puts(&url, c->uri);
    strbuf_puts(&url, req->path);
    http_header h[7];
    size_t nh = 0;
    if (req->token && *req->token) {
        strbuf_printf(&auth, "Bearer %s", req->token);
        h[nh++] = (http_header){"Authorization", strbuf_cstr(&auth)};
    }
    if (req->if_none_match) h[nh++] = (http_header){"If-None-Match", req->if_none_match};
    if (req->delegation) h[nh++] = (http_header){"X-Iceberg-Access-Delegation", req->delegation};
    h[nh++] = (http_header){"Content-Type", req->form ? "application/x-www-form-urlencoded"
                                                      : "application/json"};
    h[nh++] = (http_header){"Accept", "application/json"};
    h[nh++] = (http_header){"X-Client-Version", "sqe"};
    http_request hr = {.method = method_names[req->method],
                       .url = strbuf_cstr(&url),
                       .headers = h,
                       .n_headers = nh,
                       .body = text,
                       .body_len = text ? strlen(text) : 0,
                       .body_secret = req->form != NULL, /* OAuth2 client secrets */
                       .retry = req->idempotent ? HTTP_RETRY_YES : HTTP_RETRY_NO,
                       .max_body = REST_MAX_RESPONSE_BYTES,
                       .prepare = prepare_attempt,
                       .ud = c};
    if (req->method == REST_POST && !text) hr.body = "", hr.body_len = 0;
    http_response hres;
    memset(&hres, 0, sizeof hres);
    int rc = url.failed || auth.failed ? err_nomem(err, "REST request")
                                       : http_client_send(c->http, &hr, &hres, err);
    if (req->not_sent) *req->not_sent = hres.not_sent;
    if (rc != SQE_ERR_OUT_OF_MEMORY) {
        /* every attempt that failed (transport or 5xx) counts; a last answer below 500 closes */
        bool ok = !rc && hres.status < 500;
        int failed = hres.attempts - (ok ? 1 : 0);
        if (hres.attempts > 0) breaker_note(c, failed < 0 ? 0 : failed, ok);
    }
    if (rc == SQE_ERR_IO_ERROR && hres.reason[0])
        rc = err_set(err, SQE_ERR_IO_ERROR, "REST catalog %s unreachable: %s", c->uri,
                     hres.reason);
    if (!rc) {
        resp->status = hres.status;
        const char *etag = http_response_header(&hres, "ETag");
        if (etag && !(resp->etag = strdup(etag))) rc = err_nomem(err, "REST response");
    }
    if (!rc && hres.body.len > 0) {
        json_error_t je;
        resp->body = json_loadb(hres.body.data, hres.body.len, JSON_REJECT_DUPLICATES, &je);
        if (!resp->body && resp->status >= 200 && resp->status < 300)
            rc = err_set(err, SQE_ERR_IO_ERROR,
                         "REST catalog %s: invalid JSON in the response to %s: %s", c->uri,
                         req->path, je.text);
    }
    http_response_free(&hres);
    strbuf_reset(&url);
    if (auth.data) memset(auth.data, 0, auth.len);
    strbuf_reset(&auth);
    free(body_text);
    if (rc) rest_response_free(resp);
    return rc;
}

/* ---- errors -------------------------------------------------------------------------------- */

static const char *json_str(json_t *o, const char *key) {
    json_t *v = json_is_object(o) ? json_object_get(o, key) : NULL;
    return json_is_string(v) ? json_string_value(v) : NULL;
}

int rest_client_http_error(const rest_response *resp, const char *what, sqe_error *err) {
    json_t *e = json_is_object(resp->body) ? json_object_get(resp->body, "error") : NULL;
    const char *type = json_str(e, "type");
    const char *msg = json_str(e, "message");
    if (!json_is_object(e)) { /* OAuth2 errors: {"error": "...", "error_description": "..."} */
        type = json_str(resp->body, "error");
        msg = json_str(resp->body, "error_description");
    }
    if (!type) type = "";
    long st = resp->status;
    int code;
    if (st == 400) code = SQE_ERR_INVALID_ARGUMENTS;
    else if (st == 401) code = SQE_ERR_UNAUTHENTICATED;
    else if (st == 403) code = SQE_ERR_PERMISSION_DENIED;
    else if (st == 404)
        code = strstr(type, "NoSuchNamespace") ? SQE_ERR_SCHEMA_NOT_FOUND
               : strstr(type, "NoSuchTable")   ? SQE_ERR_TABLE_NOT_FOUND
                                               : SQE_ERR_NOT_FOUND;
    else if (st == 409)
        code = strstr(type, "AlreadyExists")       ? SQE_ERR_ALREADY_EXISTS
               : strstr(type, "NamespaceNotEmpty") ? SQE_ERR_SCHEMA_NOT_EMPTY
                                                   : SQE_ERR_COMMIT_CONFLICT;
    else code = SQE_ERR_IO_ERROR;
    const char *hint = st == 401   ? " (the catalog refused the credentials)"
                       : st == 403 ? " (permission denied by the catalog)"
                                   : "";
    return err_set(err, code, "REST catalog: %s: %s%s%s (HTTP %ld)%s", what, type,
                   *type ? ": " : "", msg ? msg : "no message", st, hint);
}

/* ---- OAuth2 ----------------------------------------------------------------------------------- */

int rest_client_oauth2(rest_client *c, const char *token_uri, const char *client_id,
                       const char *client_secret, const char *scope, char **token,
                       int64_t *expires_in_s, sqe_error *err) {
    strbuf form;
    strbuf_init(&form);
    strbuf_puts(&form, "grant_type=client_credentials&client_id=");
    rest_url_encode(&form, client_id ? client_id : "");
    strbuf_puts(&form, "&client_secret=");
    rest_url_encode(&form, client_secret ? client_secret : "");
    if (scope && *scope) {
        strbuf_puts(&form, "&scope=");
        rest_url_encode(&form, scope);
    }
    if (form.failed) {
        strbuf_reset(&form);
        return err_nomem(err, "OAuth2 request");
    }
    rest_request req = {.method = REST_POST,
                        .path = token_uri && *token_uri ? token_uri : "/v1/oauth/tokens",
                        .form = strbuf_cstr(&form),
                        .idempotent = true};
    rest_response resp;
    int rc = rest_client_request(c, &req, &resp, err);
    strbuf_reset(&form);
    if (rc) return rc;
    if (resp.status < 200 || resp.status >= 300) {
        rc = rest_client_http_error(&resp, "OAuth2 token request", err);
        if (resp.status == 400 || resp.status == 401 || resp.status == 403) {
            char msg[sizeof err->message];
            snprintf(msg, sizeof msg, "%s", err ? err->message : "");
            rc = err_set(err, SQE_ERR_UNAUTHENTICATED, "OAuth2 client '%s' refused: %s",
                         client_id ? client_id : "", msg);
        }
        rest_response_free(&resp);
        return rc;
    }
    const char *tok = json_str(resp.body, "access_token");
    json_t *exp = json_is_object(resp.body) ? json_object_get(resp.body, "expires_in") : NULL;
    if (!tok || !*tok) {
        rest_response_free(&resp);
        return err_set(err, SQE_ERR_IO_ERROR, "REST catalog %s: OAuth2 response has no access_token",
                       c->uri);
    }
    *expires_in_s = json_is_integer(exp) && json_integer_value(exp) > 0 ? json_integer_value(exp) : 0;
    *token = strdup(tok);
    rest_response_free(&resp);
    return *token ? SQE_OK : err_nomem(err, "OAuth2 token");
}
