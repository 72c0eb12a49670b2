/*
 * rest_client.c: HTTP + JSON transport of the Iceberg REST catalog backend (see rest_client.h).
 *
 * INTERFACE: rest_client_open, rest_client_close, rest_client_uri, rest_client_request,
 *   rest_response_free, rest_client_http_error, rest_client_oauth2, rest_url_encode, rest_now_ms.
 * NOTES: one curl easy handle per attempt (no connection reuse yet). Idempotent requests are
 * retried on transport errors and on 429/502/503/504 with exponential backoff plus jitter. The
 * circuit breaker opens after breaker_threshold consecutive failures (transport errors or 5xx)
 * and fails requests fast until breaker_cooldown_ms passed; then one request probes it (half
 * open) and a success closes it. Response bodies are capped at REST_MAX_RESPONSE_BYTES.
 */
#include "catalog/rest/rest_client.h"

#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/strbuf.h"

struct rest_client {
    char *uri;
    rest_client_config cfg;
    pthread_mutex_t lock;
    int failures;          /* consecutive */
    int64_t open_until_ms; /* circuit open until then (0 = closed) */
};

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static void curl_init_once(void) { curl_global_init(CURL_GLOBAL_DEFAULT); }

int64_t rest_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(int64_t ms) {
    if (ms <= 0) return;
    struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

int rest_client_open(const rest_client_config *cfg, rest_client **out, sqe_error *err) {
    if (!cfg || !cfg->uri || !*cfg->uri)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "REST catalog: no uri configured");
    if (strncmp(cfg->uri, "http://", 7) != 0 && strncmp(cfg->uri, "https://", 8) != 0)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                       "REST catalog: uri '%s' must start with http:// or https://", cfg->uri);
    pthread_once(&curl_once, curl_init_once);
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
    pthread_mutex_init(&c->lock, NULL);
    *out = c;
    return SQE_OK;
}

void rest_client_close(rest_client *c) {
    if (!c) return;
    pthread_mutex_destroy(&c->lock);
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

/* ---- one attempt ----------------------------------------------------------------------------- */

typedef struct sink {
    strbuf body;
    char *etag;
    bool too_big;
} sink;

static size_t on_body(char *ptr, size_t size, size_t nmemb, void *ud) {
    sink *s = ud;
    size_t n = size * nmemb;
    if (s->body.len + n > REST_MAX_RESPONSE_BYTES) {
        s->too_big = true;
        return 0; /* aborts the transfer */
    }
    strbuf_append(&s->body, ptr, n);
    return s->body.failed ? 0 : n;
}

static size_t on_header(char *buf, size_t size, size_t nitems, void *ud) {
    sink *s = ud;
    size_t n = size * nitems;
    if (n > 5 && strncasecmp(buf, "etag:", 5) == 0) {
        size_t i = 5, j = n;
        while (i < j && (buf[i] == ' ' || buf[i] == '\t')) i++;
        while (j > i && (buf[j - 1] == '\r' || buf[j - 1] == '\n' || buf[j - 1] == ' ')) j--;
        free(s->etag);
        s->etag = strndup(buf + i, j - i);
    }
    return n;
}

/* Performs one HTTP exchange. Returns SQE_OK with *status set, or IO_ERROR (transport). */
static int attempt(rest_client *c, const rest_request *req, const char *body_text, sink *s,
                   long *status, sqe_error *err) {
    CURL *h = curl_easy_init();
    if (!h) return err_set(err, SQE_ERR_IO_ERROR, "REST catalog %s: cannot create a curl handle", c->uri);
    strbuf url;
    strbuf_init(&url);
    if (strncmp(req->path, "http://", 7) == 0 || strncmp(req->path, "https://", 8) == 0) {
        strbuf_puts(&url, req->path);
    } else {
        strbuf_puts(&url, c->uri);
        strbuf_puts(&url, req->path);
    }
    struct curl_slist *hdrs = NULL;
    strbuf line;
    strbuf_init(&line);
    if (req->token && *req->token) {
        strbuf_printf(&line, "Authorization: Bearer %s", req->token);
        hdrs = curl_slist_append(hdrs, strbuf_cstr(&line));
        strbuf_reset(&line);
    }
    if (req->if_none_match) {
        strbuf_printf(&line, "If-None-Match: %s", req->if_none_match);
        hdrs = curl_slist_append(hdrs, strbuf_cstr(&line));
        strbuf_reset(&line);
    }
    if (req->delegation) {
        strbuf_printf(&line, "X-Iceberg-Access-Delegation: %s", req->delegation);
        hdrs = curl_slist_append(hdrs, strbuf_cstr(&line));
        strbuf_reset(&line);
    }
    hdrs = curl_slist_append(hdrs, req->form ? "Content-Type: application/x-www-form-urlencoded"
                                             : "Content-Type: application/json");
    hdrs = curl_slist_append(hdrs, "Accept: application/json");
    hdrs = curl_slist_append(hdrs, "X-Client-Version: sqe");
    hdrs = curl_slist_append(hdrs, "Expect:");
    char errbuf[CURL_ERROR_SIZE] = "";
    curl_easy_setopt(h, CURLOPT_URL, strbuf_cstr(&url));
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)c->cfg.timeout_ms);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, (long)c->cfg.connect_timeout_ms);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, s);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, s);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    switch (req->method) {
    case REST_GET: break;
    case REST_HEAD: curl_easy_setopt(h, CURLOPT_NOBODY, 1L); break;
    case REST_DELETE: curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, "DELETE"); break;
    case REST_POST:
        curl_easy_setopt(h, CURLOPT_POST, 1L);
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, body_text ? body_text : "");
        curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE, (long)(body_text ? strlen(body_text) : 0));
        break;
    }
    int rc = SQE_OK;
    if (url.failed || line.failed) {
        rc = err_nomem(err, "REST request");
    } else {
        CURLcode cc = curl_easy_perform(h);
        if (req->not_sent)
            *req->not_sent = cc == CURLE_COULDNT_CONNECT || cc == CURLE_COULDNT_RESOLVE_HOST ||
                             cc == CURLE_COULDNT_RESOLVE_PROXY;
        if (cc != CURLE_OK) {
            if (s->too_big)
                rc = err_set(err, SQE_ERR_IO_ERROR, "REST catalog %s: response larger than %zu bytes",
                             c->uri, REST_MAX_RESPONSE_BYTES);
            else
                rc = err_set(err, SQE_ERR_IO_ERROR, "REST catalog %s unreachable: %s", c->uri,
                             *errbuf ? errbuf : curl_easy_strerror(cc));
        } else {
            curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, status);
        }
    }
    curl_slist_free_all(hdrs);
    curl_easy_cleanup(h);
    strbuf_reset(&url);
    strbuf_reset(&line);
    return rc;
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

static void breaker_note(rest_client *c, bool failed) {
    pthread_mutex_lock(&c->lock);
    if (!failed) {
        c->failures = 0;
        c->open_until_ms = 0;
    } else if (++c->failures >= c->cfg.breaker_threshold) {
        c->open_until_ms = rest_now_ms() + c->cfg.breaker_cooldown_ms;
    }
    pthread_mutex_unlock(&c->lock);
}

static bool retryable_status(long st) { return st == 429 || st == 502 || st == 503 || st == 504; }

int rest_client_request(rest_client *c, const rest_request *req, rest_response *resp,
                        sqe_error *err) {
    memset(resp, 0, sizeof *resp);
    char *body_text = NULL;
    if (req->body && !(body_text = json_dumps(req->body, JSON_COMPACT)))
        return err_nomem(err, "REST request body");
    const char *text = req->form ? req->form : body_text;
    int tries = req->idempotent ? 1 + c->cfg.max_retries : 1;
    int64_t backoff = c->cfg.backoff_ms;
    int rc = SQE_OK;
    for (int i = 0; i < tries; i++) {
        if (i > 0) {
            int64_t jitter = (int64_t)(rand() % (int)(backoff / 2 + 1));
            sleep_ms(backoff + jitter);
            backoff = backoff * 2 > 2000 ? 2000 : backoff * 2;
        }
        if (req->not_sent) *req->not_sent = true;
        if ((rc = breaker_check(c, err))) break;
        sink s = {.etag = NULL};
        strbuf_init(&s.body);
        long status = 0;
        rc = attempt(c, req, text, &s, &status, err);
        bool failed = rc != SQE_OK || status >= 500;
        if (rc != SQE_ERR_OUT_OF_MEMORY) breaker_note(c, failed);
        bool again = i + 1 < tries && (rc == SQE_ERR_IO_ERROR || (!rc && retryable_status(status)));
        if (rc || again) {
            strbuf_reset(&s.body);
            free(s.etag);
            if (again) continue;
            break;
        }
        resp->status = status;
        resp->etag = s.etag;
        if (s.body.failed) {
            rc = err_nomem(err, "REST response");
        } else if (s.body.len > 0) {
            json_error_t je;
            resp->body = json_loadb(s.body.data, s.body.len, JSON_REJECT_DUPLICATES, &je);
            if (!resp->body && status >= 200 && status < 300)
                rc = err_set(err, SQE_ERR_IO_ERROR,
                             "REST catalog %s: invalid JSON in the response to %s: %s", c->uri,
                             req->path, je.text);
        }
        strbuf_reset(&s.body);
        break;
    }
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
