/*
 * rest_backend.c: the Iceberg REST catalog as an ice_backend (see rest_backend.h).
 *
 * INTERFACE: ice_backend_rest, rest_backend_is_rest, rest_backend_register_table,
 *   rest_backend_load_namespace_properties, rest_backend_update_namespace_properties,
 *   rest_backend_table_config.
 * NOTES: the load cache holds, per (token, namespace, table), the metadata location, the ETag,
 * the metadata JSON text and the load's config; a load sends If-None-Match with the cached ETag
 * and a 304 reuses the text. A commit diffs against the cached version when its location is the
 * expected one, else reloads (and fails with COMMIT_CONFLICT right away when the table moved on).
 * Everything read from the server is type-checked (hostile responses give IO_ERROR).
 * Identity: every operation gets the statement's principal (`who`) and passes it down to the one
 * place that picks a request's token (current_token); nothing is kept per thread.
 */
#include "catalog/rest/rest_backend.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/rest/rest_commit.h"
#include "common/strbuf.h"

typedef struct cache_entry {
    char *token, *ns, *name;
    char *location, *etag, *meta_text, *config_text;
    uint64_t used;
} cache_entry;

typedef struct rest_impl {
    rest_client *client;
    char *warehouse_param, *client_prefix, *location_root;
    char *static_token, *client_id, *client_secret, *scope, *token_uri;
    bool vended;
    bool service_identity;         /* never send the session token */
    rest_exchange *exchange;       /* auth = "token_exchange", or NULL */
    pthread_mutex_t lock;          /* everything below */
    bool configured;
    char *base;                    /* "/v1/<prefix>" or "/v1" */
    char *oauth_token;
    int64_t oauth_expires_ms;
    cache_entry cache[REST_CACHE_ENTRIES];
    uint64_t tick;
} rest_impl;

static char *dupn(const char *s) { return s ? strdup(s) : NULL; }

/* ---- tokens ---------------------------------------------------------------------------------- */

/* *tok = the token a request made for who carries (malloc'ed copy or NULL): with token
 * exchange, the one issued for who and the catalog's audience; else the caller's own
 * (who->token, unless the catalog uses a service identity), else the configured one; *from_oauth
 * tells whether it came from the client-credentials flow or an exchange (refreshable). */
static int current_token(rest_impl *r, const sqe_principal *who, bool force_refresh, char **tok,
                         bool *from_oauth, sqe_error *err) {
    *tok = NULL;
    *from_oauth = false;
    if (r->exchange) {
        *from_oauth = true;
        return rest_exchange_token(r->exchange, who ? who->token : NULL,
                                   who ? who->token_expires_ms : 0, force_refresh, tok, err);
    }
    if (who && who->token && !r->service_identity)
        return (*tok = strdup(who->token)) ? SQE_OK : err_nomem(err, "token");
    if (r->static_token) return (*tok = strdup(r->static_token)) ? SQE_OK : err_nomem(err, "token");
    if (!r->client_id) return SQE_OK;
    *from_oauth = true;
    pthread_mutex_lock(&r->lock);
    bool fresh = r->oauth_token && !force_refresh &&
                 (r->oauth_expires_ms == 0 || rest_now_ms() < r->oauth_expires_ms);
    if (fresh) {
        *tok = strdup(r->oauth_token);
        pthread_mutex_unlock(&r->lock);
        return *tok ? SQE_OK : err_nomem(err, "token");
    }
    pthread_mutex_unlock(&r->lock);
    char *t = NULL;
    int64_t exp = 0;
    SQE_TRY(rest_client_oauth2(r->client, r->token_uri, r->client_id, r->client_secret,
                               r->scope ? r->scope : "catalog", &t, &exp, err));
    pthread_mutex_lock(&r->lock);
    free(r->oauth_token);
    r->oauth_token = t;
    /* renew a minute early */
    r->oauth_expires_ms = exp > 0 ? rest_now_ms() + (exp > 120 ? exp - 60 : exp) * 1000 : 0;
    *tok = strdup(t);
    pthread_mutex_unlock(&r->lock);
    return *tok ? SQE_OK : err_nomem(err, "token");
}

/* One request with the current token; an OAuth2 token refused with 401 is renewed once. */
static int call_as(rest_impl *r, const sqe_principal *who, rest_request *req, rest_response *resp,
                   char **token_out,
                   sqe_error *err) {
    char *tok;
    bool oauth;
    SQE_TRY(current_token(r, who, false, &tok, &oauth, err));
    req->token = tok;
    int rc = rest_client_request(r->client, req, resp, err);
    if (!rc && resp->status == 401 && oauth) {
        rest_response_free(resp);
        free(tok);
        SQE_TRY(current_token(r, who, true, &tok, &oauth, err));
        req->token = tok;
        rc = rest_client_request(r->client, req, resp, err);
    }
    req->token = NULL;
    if (token_out && !rc) *token_out = tok;
    else free(tok);
    return rc;
}

/* ---- config ------------------------------------------------------------------------------------ */

static const char *obj_str(json_t *o, const char *key) {
    json_t *v = json_is_object(o) ? json_object_get(o, key) : NULL;
    return json_is_string(v) ? json_string_value(v) : NULL;
}

static int ensure_config(rest_impl *r, const sqe_principal *who, sqe_error *err) {
    pthread_mutex_lock(&r->lock);
    bool done = r->configured;
    pthread_mutex_unlock(&r->lock);
    if (done) return SQE_OK;
    strbuf path;
    strbuf_init(&path);
    strbuf_puts(&path, "/v1/config");
    if (r->warehouse_param) {
        strbuf_puts(&path, "?warehouse=");
        rest_url_encode(&path, r->warehouse_param);
    }
    if (path.failed) {
        strbuf_reset(&path);
        return err_nomem(err, "REST config");
    }
    rest_request req = {.method = REST_GET, .path = path.data, .idempotent = true};
    rest_response resp;
    int rc = call_as(r, who, &req, &resp, NULL, err);
    strbuf_reset(&path);
    if (rc) return rc;
    if (resp.status != 200) {
        rc = rest_client_http_error(&resp, "GET /v1/config", err);
        rest_response_free(&resp);
        return rc;
    }
    json_t *defaults = json_object_get(resp.body, "defaults");
    json_t *overrides = json_object_get(resp.body, "overrides");
    if (!json_is_object(resp.body) || (defaults && !json_is_object(defaults)) ||
        (overrides && !json_is_object(overrides))) {
        rest_response_free(&resp);
        return err_set(err, SQE_ERR_IO_ERROR, "REST catalog %s: invalid /v1/config response",
                       rest_client_uri(r->client));
    }
    const char *prefix = obj_str(overrides, "prefix");
    if (!prefix) prefix = r->client_prefix;
    if (!prefix) prefix = obj_str(defaults, "prefix");
    strbuf base;
    strbuf_init(&base);
    strbuf_puts(&base, "/v1");
    if (prefix && *prefix) {
        /* the prefix is a path (it may hold '/'): encode each segment; a "%XX" escape in it
         * is kept as it is (Nessie answers "main%7Cwarehouse", to be used verbatim in the path
         * as Iceberg's own clients do; encoding it again names another reference) */
        const char *p = prefix;
        while (*p) {
            const char *slash = strchr(p, '/');
            size_t n = slash ? (size_t)(slash - p) : strlen(p);
            if (n) strbuf_putc(&base, '/');
            for (size_t i = 0; i < n; i++) {
                char ch[2] = {p[i], '\0'};
                if (p[i] == '%' && i + 2 < n && isxdigit((unsigned char)p[i + 1]) &&
                    isxdigit((unsigned char)p[i + 2])) {
                    strbuf_append(&base, p + i, 3);
                    i += 2;
                } else {
                    rest_url_encode(&base, ch);
                }
            }
            p += slash ? (size_t)(slash - p) + 1 : strlen(p);
        }
    }
    rest_response_free(&resp);
    if (base.failed) {
        strbuf_reset(&base);
        return err_nomem(err, "REST config");
    }
    pthread_mutex_lock(&r->lock);
    if (!r->configured) {
        r->base = strbuf_move(&base);
        r->configured = true;
    }
    pthread_mutex_unlock(&r->lock);
    strbuf_reset(&base);
    return SQE_OK;
}

/* ---- names ------------------------------------------------------------------------------------- */

static int check_name(const char *what, const char *s, sqe_error *err) {
    if (!s || !*s || strlen(s) > 1024)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "REST catalog: invalid %s name", what);
    return SQE_OK;
}

/* Appends the namespace ns ("a.b") as a path segment: levels joined with %1F. */
static void put_ns(strbuf *sb, const char *ns) {
    const char *p = ns;
    for (;;) {
        const char *dot = strchr(p, '.');
        size_t n = dot ? (size_t)(dot - p) : strlen(p);
        char *lvl = strndup(p, n);
        if (!lvl) {
            sb->failed = 1;
            return;
        }
        rest_url_encode(sb, lvl);
        free(lvl);
        if (!dot) break;
        strbuf_puts(sb, "%1F");
        p = dot + 1;
    }
}

/* The namespace as a JSON array of levels. */
static json_t *ns_json(const char *ns) {
    json_t *arr = json_array();
    const char *p = ns;
    while (arr) {
        const char *dot = strchr(p, '.');
        size_t n = dot ? (size_t)(dot - p) : strlen(p);
        if (json_array_append_new(arr, json_stringn(p, n))) {
            json_decref(arr);
            return NULL;
        }
        if (!dot) break;
        p = dot + 1;
    }
    return arr;
}

/* "a.b" from a JSON array of strings, in a; NULL when malformed. */
static char *ns_from_json(arena *a, json_t *levels) {
    if (!json_is_array(levels) || json_array_size(levels) == 0) return NULL;
    strbuf sb;
    strbuf_init(&sb);
    size_t i;
    json_t *l;
    bool ok = true;
    json_array_foreach(levels, i, l) {
        if (!json_is_string(l)) ok = false;
        else {
            if (i) strbuf_putc(&sb, '.');
            strbuf_puts(&sb, json_string_value(l));
        }
    }
    char *out = ok && !sb.failed ? arena_strdup(a, strbuf_cstr(&sb)) : NULL;
    strbuf_reset(&sb);
    return out;
}

/* <base>/namespaces/<ns>[/tables[/<name>]] + suffix into sb. */
static int ns_path(rest_impl *r, strbuf *sb, const char *ns, const char *table, bool tables,
                   const char *suffix, sqe_error *err) {
    strbuf_init(sb);
    strbuf_puts(sb, r->base);
    strbuf_puts(sb, "/namespaces");
    if (ns) {
        strbuf_putc(sb, '/');
        put_ns(sb, ns);
    }
    if (tables) strbuf_puts(sb, "/tables");
    if (table) {
        strbuf_putc(sb, '/');
        rest_url_encode(sb, table);
    }
    if (suffix) strbuf_puts(sb, suffix);
    if (sb->failed) {
        strbuf_reset(sb);
        return err_nomem(err, "REST path");
    }
    return SQE_OK;
}

static int bad_response(rest_impl *r, const char *what, sqe_error *err) {
    return err_set(err, SQE_ERR_IO_ERROR, "REST catalog %s: invalid response to %s",
                   rest_client_uri(r->client), what);
}

/* A request to path; *resp holds a 2xx answer on SQE_OK, an HTTP error is mapped (what names
 * the call in the message). */
static int call(rest_impl *r, const sqe_principal *who, rest_method m, const char *path,
                json_t *body, bool idempotent,
                const char *what, rest_response *resp, sqe_error *err) {
    rest_request req = {.method = m, .path = path, .body = body, .idempotent = idempotent};
    SQE_TRY(call_as(r, who, &req, resp, NULL, err));
    if (resp->status < 200 || resp->status >= 300) {
        int rc = rest_client_http_error(resp, what, err);
        rest_response_free(resp);
        return rc;
    }
    return SQE_OK;
}

static int cmp_str(const void *x, const void *y) {
    return strcmp(*(char *const *)x, *(char *const *)y);
}

/* ---- namespaces -------------------------------------------------------------------------------- */

static const char *rb_warehouse(void *impl) {
    rest_impl *r = impl;
    return r->location_root ? r->location_root : "";
}

static int rb_namespace_exists(void *impl, const sqe_principal *who, const char *ns, bool *exists,
                               sqe_error *err) {
    rest_impl *r = impl;
    SQE_TRY(check_name("namespace", ns, err));
    SQE_TRY(ensure_config(r, who, err));
    strbuf p;
    SQE_TRY(ns_path(r, &p, ns, NULL, false, NULL, err));
    rest_request req = {.method = REST_HEAD, .path = p.data, .idempotent = true};
    rest_response resp;
    int rc = call_as(r, who, &req, &resp, NULL, err);
    strbuf_reset(&p);
    if (rc) return rc;
    if (resp.status == 404) *exists = false;
    else if (resp.status >= 200 && resp.status < 300) *exists = true;
    else rc = rest_client_http_error(&resp, "namespace exists", err);
    rest_response_free(&resp);
    return rc;
}

static int rb_create_namespace(void *impl, const sqe_principal *who, const char *ns,
                               const ice_kv_list *props,
                               sqe_error *err) {
    rest_impl *r = impl;
    SQE_TRY(check_name("namespace", ns, err));
    SQE_TRY(ensure_config(r, who, err));
    json_t *pj = json_object(), *levels = ns_json(ns);
    json_t *body = json_object();
    bool oom = !pj || !levels || !body;
    for (uint32_t i = 0; !oom && props && i < props->n; i++)
        oom = json_object_set_new(pj, props->items[i].key, json_string(props->items[i].value)) != 0;
    if (!oom) oom = json_object_set(body, "namespace", levels) || json_object_set(body,
        "properties", pj);
    json_decref(pj);
    json_decref(levels);
    strbuf p;
    int rc = oom ? err_nomem(err, "REST request") : ns_path(r, &p, NULL, NULL, false, NULL, err);
    if (!rc) {
        rest_response resp;
        rc = call(r, who, REST_POST, p.data, body, false, "create namespace", &resp, err);
        strbuf_reset(&p);
        if (!rc) rest_response_free(&resp);
    }
    json_decref(body);
    return rc;
}

/* GETs a paged list at path; each page's array under key is passed to each(). */
static int list_paged(rest_impl *r, const sqe_principal *who, const char *path, const char *key,
                      const char *what,
                      int (*each)(json_t *item, void *ud), void *ud, sqe_error *err) {
    char *token = NULL;
    int rc = SQE_OK;
    for (int page = 0; !rc && page < 100000; page++) {
        strbuf p;
        strbuf_init(&p);
        strbuf_puts(&p, path);
        if (token) {
            strbuf_puts(&p, strchr(path, '?') ? "&pageToken=" : "?pageToken=");
            rest_url_encode(&p, token);
        }
        free(token);
        token = NULL;
        if (p.failed) {
            strbuf_reset(&p);
            return err_nomem(err, "REST path");
        }
        rest_response resp;
        rc = call(r, who, REST_GET, p.data, NULL, true, what, &resp, err);
        strbuf_reset(&p);
        if (rc) break;
        json_t *arr = json_object_get(resp.body, key);
        if (!json_is_array(arr)) rc = bad_response(r, what, err);
        size_t i;
        json_t *item;
        if (!rc) json_array_foreach(arr, i, item) {
            if ((rc = each(item, ud))) {
                rc = bad_response(r, what, err);
                break;
            }
        }
        const char *next = obj_str(resp.body, "next-page-token");
        if (!rc && next && *next && !(token = strdup(next))) rc = err_nomem(err, "REST list");
        rest_response_free(&resp);
        if (!token) break;
    }
    free(token);
    return rc;
}

typedef struct name_list {
    arena *a;
    char **items;
    uint32_t n, cap;
    bool tables;
} name_list;

static int name_list_add(json_t *item, void *ud) {
    name_list *l = ud;
    char *s;
    if (l->tables) {
        const char *nm = obj_str(item, "name");
        s = nm ? arena_strdup(l->a, nm) : NULL;
    } else {
        s = ns_from_json(l->a, item);
    }
    if (!s) return 1;
    if (l->n == l->cap) {
        uint32_t cap = l->cap ? l->cap * 2 : 16;
        char **arr = arena_alloc(l->a, sizeof *arr * cap);
        if (!arr) return 1;
        if (l->n) memcpy(arr, l->items, sizeof *arr * l->n);
        l->items = arr;
        l->cap = cap;
    }
    l->items[l->n++] = s;
    return 0;
}

static void name_list_finish(name_list *l, char ***names, uint32_t *n) {
    if (l->n) qsort(l->items, l->n, sizeof *l->items, cmp_str);
    uint32_t k = 0;
    for (uint32_t i = 0; i < l->n; i++)
        if (k == 0 || strcmp(l->items[k - 1], l->items[i]) != 0) l->items[k++] = l->items[i];
    *names = l->items;
    *n = k;
}

static int rb_list_namespaces(void *impl, const sqe_principal *who, const char *parent, arena *a,
                              char ***names,
                              uint32_t *n, sqe_error *err) {
    rest_impl *r = impl;
    SQE_TRY(ensure_config(r, who, err));
    strbuf p;
    SQE_TRY(ns_path(r, &p, NULL, NULL, false, NULL, err));
    if (parent && *parent) {
        strbuf_puts(&p, "?parent=");
        put_ns(&p, parent);
    }
    name_list l = {.a = a};
    int rc = p.failed ? err_nomem(err, "REST path")
                      : list_paged(r, who, p.data, "namespaces", "list namespaces", name_list_add,
                                   &l, err);
    strbuf_reset(&p);
    if (!rc) name_list_finish(&l, names, n);
    return rc;
}

static int rb_drop_namespace(void *impl, const sqe_principal *who, const char *ns, sqe_error *err) {
    rest_impl *r = impl;
    SQE_TRY(check_name("namespace", ns, err));
    SQE_TRY(ensure_config(r, who, err));
    strbuf p;
    SQE_TRY(ns_path(r, &p, ns, NULL, false, NULL, err));
    rest_response resp;
    int rc = call(r, who, REST_DELETE, p.data, NULL, false, "drop namespace", &resp, err);
    strbuf_reset(&p);
    if (!rc) rest_response_free(&resp);
    if (rc == SQE_ERR_NOT_FOUND) rc = SQE_ERR_SCHEMA_NOT_FOUND;
    return rc;
}

static int rb_list_tables(void *impl, const sqe_principal *who, const char *ns, arena *a,
                          char ***names, uint32_t *n,
                          sqe_error *err) {
    rest_impl *r = impl;
    SQE_TRY(check_name("namespace", ns, err));
    SQE_TRY(ensure_config(r, who, err));
    strbuf p;
    SQE_TRY(ns_path(r, &p, ns, NULL, true, NULL, err));
    name_list l = {.a = a, .tables = true};
    int rc = list_paged(r, who, p.data, "identifiers", "list tables", name_list_add, &l, err);
    strbuf_reset(&p);
    if (!rc) name_list_finish(&l, names, n);
    return rc;
}

static int load_ns(rest_impl *r, const sqe_principal *who, const char *ns, rest_response *resp,
                   sqe_error *err) {
    SQE_TRY(check_name("namespace", ns, err));
    SQE_TRY(ensure_config(r, who, err));
    strbuf p;
    SQE_TRY(ns_path(r, &p, ns, NULL, false, NULL, err));
    int rc = call(r, who, REST_GET, p.data, NULL, true, "load namespace", resp, err);
    strbuf_reset(&p);
    if (!rc && !json_is_object(json_object_get(resp->body, "properties")) &&
        json_object_get(resp->body, "properties")) {
        rest_response_free(resp);
        rc = bad_response(r, "load namespace", err);
    }
    return rc;
}

static int rb_default_location(void *impl, const sqe_principal *who, const char *ns,
                               const char *name, arena *a,
                               char **out, sqe_error *err) {
    rest_impl *r = impl;
    SQE_TRY(check_name("table", name, err));
    rest_response resp;
    SQE_TRY(load_ns(r, who, ns, &resp, err));
    const char *loc = obj_str(json_object_get(resp.body, "properties"), "location");
    char *s = NULL;
    int rc = SQE_OK;
    if (loc && *loc) {
        size_t n = strlen(loc);
        while (n > 1 && loc[n - 1] == '/') n--;
        s = arena_sprintf(a, "%.*s/%s", (int)n, loc, name);
    } else if (r->location_root) {
        char *levels = arena_strdup(a, ns);
        for (char *q = levels; q && *q; q++)
            if (*q == '.') *q = '/';
        s = levels ? arena_sprintf(a, "%s/%s/%s", r->location_root, levels, name) : NULL;
    } else {
        rc = err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                     "REST catalog: namespace '%s' has no location and no warehouse location is "
                     "configured", ns);
    }
    rest_response_free(&resp);
    if (!rc && !s) rc = err_nomem(err, "table location");
    if (!rc) *out = s;
    return rc;
}

/* ---- cache ------------------------------------------------------------------------------------- */

static void entry_clear(cache_entry *e) {
    free(e->token);
    free(e->ns);
    free(e->name);
    free(e->location);
    free(e->etag);
    free(e->meta_text);
    free(e->config_text);
    memset(e, 0, sizeof *e);
}

static bool streq(const char *x, const char *y) {
    return (!x && !y) || (x && y && strcmp(x, y) == 0);
}

/* The entry for (token, ns, name) or NULL. Caller holds the lock. */
static cache_entry *cache_find(rest_impl *r, const char *token, const char *ns, const char *name) {
    for (int i = 0; i < REST_CACHE_ENTRIES; i++) {
        cache_entry *e = &r->cache[i];
        if (e->ns && streq(e->token, token) && strcmp(e->ns, ns) == 0 && strcmp(e->name, name) == 0)
            return e;
    }
    return NULL;
}

/* Stores a loaded version (takes nothing over; copies). Caller holds no lock. */
static void cache_put(rest_impl *r, const char *token, const char *ns, const char *name,
                      const char *location, const char *etag, const char *meta_text,
                      const char *config_text) {
    pthread_mutex_lock(&r->lock);
    cache_entry *e = cache_find(r, token, ns, name);
    if (!e) {
        e = &r->cache[0];
        for (int i = 0; i < REST_CACHE_ENTRIES; i++) {
            if (!r->cache[i].ns) {
                e = &r->cache[i];
                break;
            }
            if (r->cache[i].used < e->used) e = &r->cache[i];
        }
    }
    entry_clear(e);
    e->token = dupn(token);
    e->ns = strdup(ns);
    e->name = strdup(name);
    e->location = strdup(location);
    e->etag = dupn(etag);
    e->meta_text = strdup(meta_text);
    e->config_text = dupn(config_text);
    e->used = ++r->tick;
    if (!e->ns || !e->name || !e->location || !e->meta_text || (token && !e->token) ||
        (etag && !e->etag) || (config_text && !e->config_text))
        entry_clear(e); /* out of memory: just do not cache */
    pthread_mutex_unlock(&r->lock);
}

/* Forgets ns.name for every user. */
static void cache_evict(rest_impl *r, const char *ns, const char *name) {
    pthread_mutex_lock(&r->lock);
    for (int i = 0; i < REST_CACHE_ENTRIES; i++) {
        cache_entry *e = &r->cache[i];
        if (e->ns && strcmp(e->ns, ns) == 0 && strcmp(e->name, name) == 0) entry_clear(e);
    }
    pthread_mutex_unlock(&r->lock);
}

/* ---- tables ------------------------------------------------------------------------------------ */

/* Stores a LoadTableResult body ({metadata-location, metadata, config}) in the cache and gives
 * its location and metadata text (malloc'ed). */
static int take_load_result(rest_impl *r, const char *token, const char *ns, const char *name,
                            json_t *body, const char *etag, const char *what, char **location,
                            char **meta_text, sqe_error *err) {
    const char *loc = obj_str(body, "metadata-location");
    json_t *md = json_object_get(body, "metadata");
    json_t *cfg = json_object_get(body, "config");
    if (!loc || !*loc || !json_is_object(md) || (cfg && !json_is_object(cfg)))
        return bad_response(r, what, err);
    char *text = json_dumps(md, JSON_COMPACT);
    char *cfg_text = cfg ? json_dumps(cfg, JSON_COMPACT) : NULL;
    char *l = strdup(loc);
    if (!text || !l || (cfg && !cfg_text)) {
        free(text);
        free(cfg_text);
        free(l);
        return err_nomem(err, "REST table");
    }
    cache_put(r, token, ns, name, loc, etag, text, cfg_text);
    free(cfg_text);
    *location = l;
    *meta_text = text;
    return SQE_OK;
}

/* Loads ns.name for the current user: *location and *meta_text (malloc'ed). */
static int load_raw(rest_impl *r, const sqe_principal *who, const char *ns, const char *name,
                    char **location,
                    char **meta_text, sqe_error *err) {
    SQE_TRY(check_name("namespace", ns, err));
    SQE_TRY(check_name("table", name, err));
    SQE_TRY(ensure_config(r, who, err));
    char *tok;
    bool oauth;
    SQE_TRY(current_token(r, who, false, &tok, &oauth, err));
    char *etag = NULL;
    pthread_mutex_lock(&r->lock);
    cache_entry *e = cache_find(r, tok, ns, name);
    if (e && e->etag) etag = strdup(e->etag);
    pthread_mutex_unlock(&r->lock);
    free(tok);
    strbuf p;
    int rc = ns_path(r, &p, ns, name, true, NULL, err);
    if (rc) {
        free(etag);
        return rc;
    }
    rest_request req = {.method = REST_GET, .path = p.data, .idempotent = true,
                        .if_none_match = etag,
                        .delegation = r->vended ? "vended-credentials" : NULL};
    rest_response resp;
    tok = NULL;
    rc = call_as(r, who, &req, &resp, &tok, err);
    strbuf_reset(&p);
    free(etag);
    if (rc) return rc;
    if (resp.status == 304) {
        pthread_mutex_lock(&r->lock);
        e = cache_find(r, tok, ns, name);
        if (e) {
            e->used = ++r->tick;
            *location = strdup(e->location);
            *meta_text = strdup(e->meta_text);
            if (!*location || !*meta_text) {
                free(*location);
                free(*meta_text);
                rc = err_nomem(err, "REST table");
            }
        } else {
            rc = bad_response(r, "load table (304 without a cached version)", err);
        }
        pthread_mutex_unlock(&r->lock);
    } else if (resp.status >= 200 && resp.status < 300) {
        rc = take_load_result(r, tok, ns, name, resp.body, resp.etag, "load table", location,
                              meta_text, err);
    } else {
        rc = rest_client_http_error(&resp, "load table", err);
        if (rc == SQE_ERR_NOT_FOUND) rc = SQE_ERR_TABLE_NOT_FOUND;
        if (rc == SQE_ERR_TABLE_NOT_FOUND || rc == SQE_ERR_SCHEMA_NOT_FOUND) {
            cache_evict(r, ns, name);
            rc = err_set(err, SQE_ERR_TABLE_NOT_FOUND, "Table '%s.%s' does not exist", ns, name);
        }
    }
    rest_response_free(&resp);
    free(tok);
    return rc;
}

static int rb_load_table(void *impl, const sqe_principal *who, const char *ns, const char *name,
                         arena *a, char **loc,
                         ice_metadata **meta, sqe_error *err) {
    rest_impl *r = impl;
    char *location, *text;
    SQE_TRY(load_raw(r, who, ns, name, &location, &text, err));
    int rc = SQE_OK;
    ice_metadata *m = NULL;
    if (meta) {
        rc = ice_metadata_parse(a, text, strlen(text), &m, err);
        if (rc) err_prefix(err, "REST catalog table %s.%s (%s)", ns, name, location);
    }
    char *l = rc || !loc ? NULL : arena_strdup(a, location);
    if (!rc && loc && !l) rc = err_nomem(err, "REST table");
    if (!rc) {
        if (loc) *loc = l;
        if (meta) *meta = m;
    }
    free(location);
    free(text);
    return rc;
}

static json_t *find_id(json_t *arr, const char *key, json_t *id) {
    size_t i;
    json_t *e;
    json_array_foreach(arr, i, e) if (json_equal(json_object_get(e, key), id)) return e;
    return NULL;
}

static int rb_create_table(void *impl, const sqe_principal *who, const char *ns, const char *name,
                           const ice_metadata *m,
                           arena *a, char **loc_out, sqe_error *err) {
    rest_impl *r = impl;
    SQE_TRY(check_name("namespace", ns, err));
    SQE_TRY(check_name("table", name, err));
    SQE_TRY(ensure_config(r, who, err));
    json_t *mj;
    SQE_TRY(rest_metadata_to_json(m, &mj, err));
    json_t *body = json_object();
    json_t *props = json_object();
    bool oom = !body || !props;
    if (!oom) {
        json_t *src = json_object_get(mj, "properties");
        if (json_is_object(src)) oom = json_object_update(props, src) != 0;
        char fv[16];
        snprintf(fv, sizeof fv, "%d", m->format_version);
        oom |= json_object_set_new(props, "format-version", json_string(fv)) != 0;
        oom |= json_object_set_new(body, "name", json_string(name)) != 0;
        if (m->location && *m->location)
            oom |= json_object_set_new(body, "location", json_string(m->location)) != 0;
        json_t *schema = find_id(json_object_get(mj, "schemas"), "schema-id",
                                 json_object_get(mj, "current-schema-id"));
        json_t *spec = find_id(json_object_get(mj, "partition-specs"), "spec-id",
                               json_object_get(mj, "default-spec-id"));
        json_t *order = find_id(json_object_get(mj, "sort-orders"), "order-id",
                                json_object_get(mj, "default-sort-order-id"));
        if (!schema) schema = json_object_get(mj, "schema");
        if (schema) oom |= json_object_set(body, "schema", schema) != 0;
        if (spec) oom |= json_object_set(body, "partition-spec", spec) != 0;
        if (order) oom |= json_object_set(body, "write-order", order) != 0;
        oom |= json_object_set(body, "properties", props) != 0;
        oom |= json_object_set_new(body, "stage-create", json_false()) != 0;
    }
    json_decref(props);
    json_decref(mj);
    if (oom) {
        json_decref(body);
        return err_nomem(err, "REST create table");
    }
    strbuf p;
    int rc = ns_path(r, &p, ns, NULL, true, NULL, err);
    rest_response resp;
    char *tok = NULL;
    if (!rc) {
        rest_request req = {.method = REST_POST, .path = p.data, .body = body,
                            .delegation = r->vended ? "vended-credentials" : NULL};
        rc = call_as(r, who, &req, &resp, &tok, err);
        strbuf_reset(&p);
        if (!rc && (resp.status < 200 || resp.status >= 300)) {
            rc = rest_client_http_error(&resp, "create table", err);
            rest_response_free(&resp);
        }
    }
    json_decref(body);
    if (rc) {
        free(tok);
        return rc;
    }
    char *location, *text;
    rc = take_load_result(r, tok, ns, name, resp.body, resp.etag, "create table", &location,
                          &text, err);
    rest_response_free(&resp);
    free(tok);
    if (rc) return rc;
    if (loc_out && !(*loc_out = arena_strdup(a, location))) rc = err_nomem(err, "REST table");
    free(location);
    free(text);
    return rc;
}

/* The base version's metadata JSON for a commit from expected: the cached text when it is that
 * version, else a fresh load (COMMIT_CONFLICT when the table moved past expected). */
static int commit_base(rest_impl *r, const sqe_principal *who, const char *ns, const char *name,
                       const char *expected,
                       json_t **out, sqe_error *err) {
    char *tok;
    bool oauth;
    SQE_TRY(current_token(r, who, false, &tok, &oauth, err));
    char *text = NULL;
    pthread_mutex_lock(&r->lock);
    cache_entry *e = cache_find(r, tok, ns, name);
    if (e && expected && strcmp(e->location, expected) == 0) text = strdup(e->meta_text);
    pthread_mutex_unlock(&r->lock);
    free(tok);
    if (!text) {
        char *loc;
        SQE_TRY(load_raw(r, who, ns, name, &loc, &text, err));
        bool same = expected && strcmp(loc, expected) == 0;
        if (!same) {
            int rc = err_set(err, SQE_ERR_COMMIT_CONFLICT,
                             "Commit failed: table %s.%s was changed concurrently (expected "
                             "metadata %s, found %s)",
                             ns, name, expected ? expected : "(none)", loc);
            free(loc);
            free(text);
            return rc;
        }
        free(loc);
    }
    json_error_t je;
    *out = json_loads(text, 0, &je);
    free(text);
    return *out ? SQE_OK : bad_response(r, "load table (cached metadata)", err);
}


/* err (the transport or HTTP error of a commit) becomes COMMIT_STATE_UNKNOWN, its SQLSTATE
 * included, with the table and the rule for the caller in front. */
static int commit_state_unknown(sqe_error *err, const char *ns, const char *name) {
    char msg[sizeof err->message];
    snprintf(msg, sizeof msg, "%s", err ? err->message : "");
    return err_set(err, REST_ERR_COMMIT_STATE_UNKNOWN,
                   "Commit state unknown for table %s.%s (the files written are kept): %s", ns,
                   name, msg);
}

static int rb_commit(void *impl, const sqe_principal *who, const char *ns, const char *name,
                     const char *expected,
                     const ice_metadata *new_meta, arena *a, char **loc_out, sqe_error *err) {
    rest_impl *r = impl;
    SQE_TRY(check_name("namespace", ns, err));
    SQE_TRY(check_name("table", name, err));
    SQE_TRY(ensure_config(r, who, err));
    json_t *base, *next = NULL, *body = NULL;
    SQE_TRY(commit_base(r, who, ns, name, expected, &base, err));
    int rc = rest_metadata_to_json(new_meta, &next, err);
    if (!rc) rc = rest_commit_build(base, next, &body, err);
    json_decref(base);
    json_decref(next);
    if (rc) return rc;
    json_t *ident = json_object(), *levels = ns_json(ns);
    bool oom = !ident || !levels || json_object_set(ident, "namespace", levels) ||
               json_object_set_new(ident, "name", json_string(name)) ||
               json_object_set(body, "identifier", ident);
    json_decref(ident);
    json_decref(levels);
    strbuf p;
    rc = oom ? err_nomem(err, "REST commit") : ns_path(r, &p, ns, name, true, NULL, err);
    if (rc) {
        json_decref(body);
        return rc;
    }
    bool not_sent = false;
    rest_request req = {.method = REST_POST, .path = p.data, .body = body, .not_sent = &not_sent};
    rest_response resp;
    char *tok = NULL;
    rc = call_as(r, who, &req, &resp, &tok, err);
    strbuf_reset(&p);
    json_decref(body);
    if (rc) {
        if (rc == SQE_ERR_IO_ERROR && !not_sent) {
            cache_evict(r, ns, name);
            rc = commit_state_unknown(err, ns, name);
        } else if (rc == SQE_ERR_IO_ERROR) {
            err_prefix(err, "Commit to table %s.%s failed (nothing was committed)", ns, name);
        }
        return rc;
    }
    if (resp.status >= 500 || resp.status == 0) {
        rest_client_http_error(&resp, "commit table", err);
        cache_evict(r, ns, name);
        rc = commit_state_unknown(err, ns, name);
    } else if (resp.status < 200 || resp.status >= 300) {
        rc = rest_client_http_error(&resp, "commit table", err);
        if (resp.status == 409) {
            char msg[sizeof err->message];
            snprintf(msg, sizeof msg, "%s", err ? err->message : "");
            rc = err_set(err, SQE_ERR_COMMIT_CONFLICT,
                         "Commit failed: table %s.%s was changed concurrently: %s", ns, name, msg);
        } else if (rc == SQE_ERR_NOT_FOUND) {
            rc = err_set(err, SQE_ERR_TABLE_NOT_FOUND, "Table '%s.%s' does not exist", ns, name);
        }
        cache_evict(r, ns, name);
    } else {
        char *location, *text;
        rc = take_load_result(r, tok, ns, name, resp.body, resp.etag, "commit table", &location,
                              &text, err);
        if (!rc) {
            if (loc_out && !(*loc_out = arena_strdup(a, location))) rc = err_nomem(err,
                "REST commit");
            free(location);
            free(text);
        } else {
            cache_evict(r, ns, name);
        }
    }
    rest_response_free(&resp);
    free(tok);
    return rc;
}

static int rb_drop_table(void *impl, const sqe_principal *who, const char *ns, const char *name,
                         sqe_error *err) {
    rest_impl *r = impl;
    SQE_TRY(check_name("namespace", ns, err));
    SQE_TRY(check_name("table", name, err));
    SQE_TRY(ensure_config(r, who, err));
    strbuf p;
    SQE_TRY(ns_path(r, &p, ns, name, true, "?purgeRequested=false", err));
    rest_response resp;
    int rc = call(r, who, REST_DELETE, p.data, NULL, false, "drop table", &resp, err);
    strbuf_reset(&p);
    if (!rc) rest_response_free(&resp);
    cache_evict(r, ns, name);
    if (rc == SQE_ERR_NOT_FOUND || rc == SQE_ERR_SCHEMA_NOT_FOUND) rc = SQE_ERR_TABLE_NOT_FOUND;
    return rc;
}

static json_t *ident_json(const char *ns, const char *name) {
    json_t *levels = ns_json(ns);
    json_t *o = levels ? json_pack("{s:O,s:s}", "namespace", levels, "name", name) : NULL;
    json_decref(levels);
    return o;
}

static int rb_rename_table(void *impl, const sqe_principal *who, const char *ns, const char *name,
                           const char *to_ns,
                           const char *to_name, sqe_error *err) {
    rest_impl *r = impl;
    SQE_TRY(check_name("namespace", ns, err));
    SQE_TRY(check_name("table", name, err));
    SQE_TRY(check_name("namespace", to_ns, err));
    SQE_TRY(check_name("table", to_name, err));
    SQE_TRY(ensure_config(r, who, err));
    json_t *src = ident_json(ns, name), *dst = ident_json(to_ns, to_name);
    json_t *body = src && dst ? json_pack("{s:O,s:O}", "source", src, "destination", dst) : NULL;
    json_decref(src);
    json_decref(dst);
    if (!body) return err_nomem(err, "REST rename");
    strbuf p;
    strbuf_init(&p);
    strbuf_puts(&p, r->base);
    strbuf_puts(&p, "/tables/rename");
    rest_response resp;
    int rc = p.failed ? err_nomem(err, "REST path")
                      : call(r, who, REST_POST, p.data, body, false, "rename table", &resp, err);
    strbuf_reset(&p);
    json_decref(body);
    if (!rc) rest_response_free(&resp);
    cache_evict(r, ns, name);
    if (rc == SQE_ERR_NOT_FOUND) rc = SQE_ERR_TABLE_NOT_FOUND;
    return rc;
}

static void rb_close(void *impl) {
    rest_impl *r = impl;
    if (!r) return;
    rest_client_close(r->client);
    for (int i = 0; i < REST_CACHE_ENTRIES; i++) entry_clear(&r->cache[i]);
    free(r->warehouse_param);
    free(r->client_prefix);
    free(r->location_root);
    free(r->static_token);
    free(r->client_id);
    free(r->client_secret);
    free(r->scope);
    free(r->token_uri);
    free(r->base);
    free(r->oauth_token);
    rest_exchange_destroy(r->exchange);
    pthread_mutex_destroy(&r->lock);
    free(r);
}

static const ice_backend_ops rest_ops = {
    "rest",          rb_warehouse,    rb_namespace_exists, rb_create_namespace,
    rb_list_namespaces, rb_drop_namespace, rb_list_tables,  rb_default_location,
    rb_load_table,   rb_create_table, rb_commit,           rb_drop_table,
    rb_rename_table, rb_close,
};

bool rest_backend_is_rest(const ice_backend *b) { return b && b->ops == &rest_ops; }

int ice_backend_rest(const rest_backend_config *cfg, ice_backend **out, sqe_error *err) {
    if (!cfg) return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "REST catalog: no configuration");
    rest_client_config http = cfg->http;
    http.uri = cfg->uri;
    rest_client *client;
    SQE_TRY(rest_client_open(&http, &client, err));
    rest_impl *r = calloc(1, sizeof *r);
    ice_backend *b = calloc(1, sizeof *b);
    if (!r || !b) {
        free(r);
        free(b);
        rest_client_close(client);
        return err_nomem(err, "REST catalog");
    }
    pthread_mutex_init(&r->lock, NULL);
    r->client = client;
    r->vended = cfg->vended_credentials;
    r->service_identity = cfg->service_identity;
    r->warehouse_param = dupn(cfg->warehouse);
    r->client_prefix = dupn(cfg->prefix);
    r->static_token = cfg->token && *cfg->token ? strdup(cfg->token) : NULL;
    r->client_id = dupn(cfg->oauth2_client_id);
    r->client_secret = dupn(cfg->oauth2_client_secret);
    r->scope = dupn(cfg->oauth2_scope);
    r->token_uri = dupn(cfg->oauth2_token_uri);
    if (cfg->token_exchange) {
        int xrc = rest_exchange_create(cfg->token_exchange, &r->exchange, err);
        if (xrc) {
            rb_close(r);
            free(b);
            return xrc;
        }
    }
    if (cfg->location_root && *cfg->location_root) {
        r->location_root = strdup(cfg->location_root);
        size_t n = r->location_root ? strlen(r->location_root) : 0;
        while (n > 1 && r->location_root[n - 1] == '/') r->location_root[--n] = '\0';
    }
    if ((cfg->warehouse && !r->warehouse_param) || (cfg->prefix && !r->client_prefix) ||
        (cfg->token && *cfg->token && !r->static_token) ||
        (cfg->oauth2_client_id && !r->client_id) ||
        (cfg->oauth2_client_secret && !r->client_secret) || (cfg->oauth2_scope && !r->scope) ||
        (cfg->oauth2_token_uri && !r->token_uri) ||
        (cfg->location_root && *cfg->location_root && !r->location_root)) {
        rb_close(r);
        free(b);
        return err_nomem(err, "REST catalog");
    }
    b->ops = &rest_ops;
    b->impl = r;
    *out = b;
    return SQE_OK;
}

/* ---- extras ------------------------------------------------------------------------------------ */

int rest_backend_register_table(ice_backend *b, const sqe_principal *who, const char *ns,
                                const char *name,
                                const char *metadata_location, sqe_error *err) {
    if (!rest_backend_is_rest(b)) return err_set(err, SQE_ERR_NOT_SUPPORTED, "not a REST catalog");
    rest_impl *r = b->impl;
    SQE_TRY(check_name("namespace", ns, err));
    SQE_TRY(check_name("table", name, err));
    if (!metadata_location || !*metadata_location)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "REST catalog: no metadata location");
    SQE_TRY(ensure_config(r, who, err));
    json_t *body = json_pack("{s:s,s:s}", "name", name, "metadata-location", metadata_location);
    if (!body) return err_nomem(err, "REST register");
    strbuf p;
    int rc = ns_path(r, &p, ns, NULL, false, "/register", err);
    rest_response resp;
    if (!rc) {
        rc = call(r, who, REST_POST, p.data, body, false, "register table", &resp, err);
        strbuf_reset(&p);
        if (!rc) rest_response_free(&resp);
    }
    json_decref(body);
    return rc;
}

int rest_backend_load_namespace_properties(ice_backend *b, const sqe_principal *who,
                                           const char *ns, arena *a,
                                           ice_kv_list *out, sqe_error *err) {
    if (!rest_backend_is_rest(b)) return err_set(err, SQE_ERR_NOT_SUPPORTED, "not a REST catalog");
    rest_response resp;
    int rc = load_ns(b->impl, who, ns, &resp, err);
    if (rc == SQE_ERR_NOT_FOUND) rc = SQE_ERR_SCHEMA_NOT_FOUND;
    SQE_TRY(rc);
    json_t *props = json_object_get(resp.body, "properties");
    size_t n = json_object_size(props);
    ice_kv *items = ARENA_ARRAY(a, ice_kv, n ? n : 1);
    uint32_t k = 0;
    const char *key;
    json_t *v;
    if (!items) rc = err_nomem(err, "namespace properties");
    else json_object_foreach(props, key, v) {
        if (!json_is_string(v)) continue;
        items[k].key = arena_strdup(a, key);
        items[k].value = arena_strdup(a, json_string_value(v));
        if (!items[k].key || !items[k].value) {
            rc = err_nomem(err, "namespace properties");
            break;
        }
        k++;
    }
    rest_response_free(&resp);
    if (rc) return rc;
    for (uint32_t i = 1; i < k; i++) /* insertion sort by key */
        for (uint32_t j = i; j > 0 && strcmp(items[j - 1].key, items[j].key) > 0; j--) {
            ice_kv t = items[j];
            items[j] = items[j - 1];
            items[j - 1] = t;
        }
    out->n = k;
    out->items = items;
    return SQE_OK;
}

int rest_backend_update_namespace_properties(ice_backend *b, const sqe_principal *who,
                                             const char *ns,
                                             const char *const *removals, uint32_t n_removals,
                                             const ice_kv_list *updates, sqe_error *err) {
    if (!rest_backend_is_rest(b)) return err_set(err, SQE_ERR_NOT_SUPPORTED, "not a REST catalog");
    rest_impl *r = b->impl;
    SQE_TRY(check_name("namespace", ns, err));
    SQE_TRY(ensure_config(r, who, err));
    json_t *rem = json_array(), *upd = json_object();
    bool oom = !rem || !upd;
    for (uint32_t i = 0; !oom && i < n_removals; i++)
        oom = json_array_append_new(rem, json_string(removals[i])) != 0;
    for (uint32_t i = 0; !oom && updates && i < updates->n; i++)
        oom = json_object_set_new(upd, updates->items[i].key,
                                  json_string(updates->items[i].value)) != 0;
    json_t *body = oom ? NULL : json_pack("{s:O,s:O}", "removals", rem, "updates", upd);
    json_decref(rem);
    json_decref(upd);
    if (!body) return err_nomem(err, "REST namespace properties");
    strbuf p;
    int rc = ns_path(r, &p, ns, NULL, false, "/properties", err);
    rest_response resp;
    if (!rc) {
        rc = call(r, who, REST_POST, p.data, body, false, "update namespace properties", &resp,
                  err);
        strbuf_reset(&p);
        if (!rc) rest_response_free(&resp);
    }
    json_decref(body);
    if (rc == SQE_ERR_NOT_FOUND) rc = SQE_ERR_SCHEMA_NOT_FOUND;
    return rc;
}

int rest_backend_table_config(ice_backend *b, const sqe_principal *who, const char *ns,
                              const char *name, arena *a,
                              ice_kv_list *out, sqe_error *err) {
    if (!rest_backend_is_rest(b)) return err_set(err, SQE_ERR_NOT_SUPPORTED, "not a REST catalog");
    rest_impl *r = b->impl;
    out->n = 0;
    out->items = NULL;
    char *tok;
    bool oauth;
    SQE_TRY(current_token(r, who, false, &tok, &oauth, err));
    char *text = NULL;
    pthread_mutex_lock(&r->lock);
    cache_entry *e = cache_find(r, tok, ns, name);
    if (e && e->config_text) text = strdup(e->config_text);
    pthread_mutex_unlock(&r->lock);
    free(tok);
    if (!text) return SQE_OK;
    json_t *cfg = json_loads(text, 0, NULL);
    free(text);
    size_t n = json_object_size(cfg);
    ice_kv *items = n ? ARENA_ARRAY(a, ice_kv, n) : NULL;
    uint32_t k = 0;
    const char *key;
    json_t *v;
    int rc = n && !items ? err_nomem(err, "table config") : SQE_OK;
    if (!rc) json_object_foreach(cfg, key, v) {
        if (!json_is_string(v)) continue;
        items[k].key = arena_strdup(a, key);
        items[k].value = arena_strdup(a, json_string_value(v));
        if (!items[k].key || !items[k].value) {
            rc = err_nomem(err, "table config");
            break;
        }
        k++;
    }
    json_decref(cfg);
    if (!rc) {
        out->n = k;
        out->items = items;
    }
    return rc;
}
