/*
 * slt_conn_trino.c: the "trino" connector: statements over the Trino client REST protocol.
 *
 * Per test file the connector opens a fresh database (slt_db_open, as "embedded" does), starts
 * the Trino HTTP server in-process on it (any free loopback port, no authentication) and sends
 * every statement as a real client would, with libcurl: POST /v1/statement, then GET nextUri
 * until the answer has none. The session lives in the client, as the protocol wants: the
 * X-Trino-Set-Catalog / -Set-Schema / -Set-Session / -Clear-Session / -Added-Prepare /
 * -Deallocated-Prepare response headers update it and it goes back with every request as
 * X-Trino-Catalog / -Schema / -Session / -Prepared-Statement, so USE, SET SESSION and PREPARE
 * work across statements. JSON values become the cell texts "embedded" produces (Trino's text
 * form, vec_format.h) by the column's typeSignature; errors keep their SQLSTATE (sqlState, else
 * errorName through errcodes.def) and errorLocation.
 *
 * With --trino-url (opt->trino_url) the connector is a client of that server instead (the real
 * Trino, as SQE's semantics oracle): no database and no in-process server. Each file starts on
 * a fresh catalog, as it would on a fresh SQE database: DROP CATALOG IF EXISTS and CREATE CATALOG
 * trino_catalog USING memory (the server needs catalog.management=dynamic), with the session in
 * its schema "default". Files must then run one at a time (the runner enforces --jobs 1).
 * Errors also keep Trino's errorName (slt_result.error_name); a name errcodes.def does not know
 * gives SQLSTATE "?????".
 * Every request declares the PARAMETRIC_DATETIME client capability, without which Trino reports
 * every timestamp and time as precision 3.
 *
 * INTERFACE: slt_conn_trino (slt.h).
 * NOTES: a failed HTTP exchange or malformed JSON fails the statement with SQLSTATE 08xxx /
 * XX000 and a message saying what was wrong; a result that never finishes is left to the
 * runner's per-file timeout. JSON numbers of real/double columns are re-rendered with
 * float_text.h, which gives back the server's text because both are the shortest round trip.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <curl/curl.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "common/err.h"
#include "common/strbuf.h"
#include "server/trino/trino_server.h"
#include "slt.h"
#include "types/float_text.h"

#define TRINO_USER "slt"
#define MAX_PAGES 1000000 /* GETs per statement before giving up (a server that never ends) */

/* A list of "name=value" entries of the client session (values kept url-encoded, as sent). */
typedef struct kv_list {
    char **items;
    int n;
} kv_list;

typedef struct trino_conn {
    sqe_db *db;
    trino_server *srv;
    CURL *curl;
    int curl_init;         /* curl_global_init succeeded (balanced in close) */
    char url[512];         /* http://127.0.0.1:PORT/v1/statement */
    int external;          /* an external server (--trino-url) */
    char *catalog;
    char *schema;
    kv_list session;       /* X-Trino-Session entries */
    kv_list prepared;      /* X-Trino-Prepared-Statement entries */
} trino_conn;

/* ---- client session ------------------------------------------------------------------------ */

/* Length of the name part of "name=value". */
static size_t kv_name_len(const char *item) {
    const char *eq = strchr(item, '=');
    return eq ? (size_t)(eq - item) : strlen(item);
}

static void kv_remove(kv_list *l, const char *name, size_t name_len) {
    for (int i = 0; i < l->n; i++) {
        if (kv_name_len(l->items[i]) == name_len && strncmp(l->items[i], name, name_len) == 0) {
            free(l->items[i]);
            l->items[i] = l->items[--l->n];
            return;
        }
    }
}

/* Replaces or adds "name=value" (item, len bytes). Returns 0 or -1 (out of memory). */
static int kv_put(kv_list *l, const char *item, size_t len) {
    char *copy = strndup(item, len);
    if (!copy) return -1;
    kv_remove(l, copy, kv_name_len(copy));
    char **grown = realloc(l->items, (size_t)(l->n + 1) * sizeof *grown);
    if (!grown) {
        free(copy);
        return -1;
    }
    l->items = grown;
    l->items[l->n++] = copy;
    return 0;
}

static void kv_free(kv_list *l) {
    for (int i = 0; i < l->n; i++) free(l->items[i]);
    free(l->items);
    l->items = NULL;
    l->n = 0;
}

static void set_string(char **slot, const char *value, size_t len) {
    char *copy = strndup(value, len);
    if (!copy) return; /* keeps the old value; the next statement shows the difference */
    free(*slot);
    *slot = copy;
}

/* ---- HTTP ---------------------------------------------------------------------------------- */

typedef struct exchange {
    trino_conn *tc;
    strbuf body;
    int session_oom;
} exchange;

static size_t on_body(char *data, size_t size, size_t n, void *ud) {
    exchange *x = ud;
    strbuf_append(&x->body, data, size * n);
    return x->body.failed ? 0 : size * n;
}

/* Applies one response header to the client session (the protocol's Set-/Clear-/Added-/
 * Deallocated- headers; everything else is ignored). */
static size_t on_header(char *data, size_t size, size_t n, void *ud) {
    exchange *x = ud;
    trino_conn *tc = x->tc;
    size_t len = size * n;
    const char *colon = memchr(data, ':', len);
    if (!colon) return len;
    size_t name_len = (size_t)(colon - data);
    const char *v = colon + 1;
    const char *end = data + len;
    while (v < end && (*v == ' ' || *v == '\t')) v++;
    while (end > v && (end[-1] == '\r' || end[-1] == '\n' || end[-1] == ' ')) end--;
    size_t vlen = (size_t)(end - v);
#define IS(h) (name_len == sizeof(h) - 1 && strncasecmp(data, h, name_len) == 0)
    if (IS("X-Trino-Set-Catalog")) {
        set_string(&tc->catalog, v, vlen);
    } else if (IS("X-Trino-Set-Schema")) {
        set_string(&tc->schema, v, vlen);
    } else if (IS("X-Trino-Set-Session")) {
        if (kv_put(&tc->session, v, vlen) != 0) x->session_oom = 1;
    } else if (IS("X-Trino-Clear-Session")) {
        kv_remove(&tc->session, v, vlen);
    } else if (IS("X-Trino-Added-Prepare")) {
        if (kv_put(&tc->prepared, v, vlen) != 0) x->session_oom = 1;
    } else if (IS("X-Trino-Deallocated-Prepare")) {
        kv_remove(&tc->prepared, v, vlen);
    }
#undef IS
    return len;
}

/* Adds "Name: a,b,c" for a non-empty list. Returns the grown list (NULL on out of memory, the
 * old list then freed). */
static struct curl_slist *add_list_header(struct curl_slist *h, const char *name,
                                          const kv_list *l) {
    if (!h || l->n == 0) return h;
    strbuf sb;
    strbuf_init(&sb);
    strbuf_printf(&sb, "%s: ", name);
    for (int i = 0; i < l->n; i++) {
        if (i) strbuf_putc(&sb, ',');
        strbuf_puts(&sb, l->items[i]);
    }
    struct curl_slist *grown = sb.failed ? NULL : curl_slist_append(h, strbuf_cstr(&sb));
    strbuf_reset(&sb);
    if (!grown) curl_slist_free_all(h);
    return grown;
}

static struct curl_slist *add_header(struct curl_slist *h, const char *name, const char *value) {
    if (!h || !value) return h;
    char line[1024];
    snprintf(line, sizeof line, "%s: %s", name, value);
    struct curl_slist *grown = curl_slist_append(h, line);
    if (!grown) curl_slist_free_all(h);
    return grown;
}

/* The request headers carrying the client session. NULL on out of memory. */
static struct curl_slist *session_headers(const trino_conn *tc) {
    struct curl_slist *h = curl_slist_append(NULL, "X-Trino-User: " TRINO_USER);
    h = add_header(h, "X-Trino-Source", "slt_runner");
    h = add_header(h, "X-Trino-Client-Capabilities", "PARAMETRIC_DATETIME");
    h = add_header(h, "X-Trino-Catalog", tc->catalog);
    h = add_header(h, "X-Trino-Schema", tc->schema);
    h = add_list_header(h, "X-Trino-Session", &tc->session);
    h = add_list_header(h, "X-Trino-Prepared-Statement", &tc->prepared);
    h = add_header(h, "Content-Type", "text/plain; charset=utf-8");
    return h;
}

/* One request: POST url with body (sql) or GET url. On success x->body holds the response and
 * *status the HTTP status; on a transport error r is failed. */
static int http_call(trino_conn *tc, const char *url, const char *sql, exchange *x, long *status,
                     slt_result *r) {
    struct curl_slist *headers = session_headers(tc);
    if (!headers) {
        slt_result_fail(r, "53200", "out of memory in the test runner");
        return -1;
    }
    CURL *c = tc->curl;
    curl_easy_reset(c);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, x);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, x);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 900L);
    curl_easy_setopt(c, CURLOPT_PROXY, "");
    if (sql) {
        curl_easy_setopt(c, CURLOPT_POST, 1L);
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, sql);
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)strlen(sql));
    }
    CURLcode cc = curl_easy_perform(c);
    curl_slist_free_all(headers);
    if (cc != CURLE_OK) {
        slt_result_fail(r, "08006", "trino: HTTP request to %s failed: %s", url,
                        curl_easy_strerror(cc));
        return -1;
    }
    if (x->body.failed || x->session_oom) {
        slt_result_fail(r, "53200", "out of memory in the test runner");
        return -1;
    }
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
    return 0;
}

/* ---- values -------------------------------------------------------------------------------- */

static const char *sig_raw(const json_t *sig) {
    const char *raw = json_string_value(json_object_get(sig, "rawType"));
    return raw ? raw : "";
}

/* The TYPE signature argument i of sig, or NULL. */
static json_t *sig_type_arg(const json_t *sig, size_t i) {
    json_t *arg = json_array_get(json_object_get(sig, "arguments"), i);
    return json_object_get(arg, "value");
}

static int b64_digit(int c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

/* Base64 text -> bytes as lower-case hex pairs separated by spaces (vec_format's VARBINARY). */
static int render_binary(const char *s, strbuf *out) {
    static const char hex[] = "0123456789abcdef";
    uint32_t acc = 0;
    int bits = 0, n = 0;
    for (; *s && *s != '='; s++) {
        int d = b64_digit((unsigned char)*s);
        if (d < 0) return -1;
        acc = (acc << 6) | (uint32_t)d;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            unsigned byte = (acc >> bits) & 0xff;
            if (n++) strbuf_putc(out, ' ');
            strbuf_putc(out, hex[byte >> 4]);
            strbuf_putc(out, hex[byte & 15]);
        }
    }
    return 0;
}

/* Appends the text form of JSON value v of type sig. Returns 0, or -1 when the value does not
 * fit the type (what is wrong goes to why). */
static int render(const json_t *v, const json_t *sig, strbuf *out, char *why, size_t why_len) {
    const char *raw = sig_raw(sig);
    if (json_is_null(v)) {
        strbuf_puts(out, "NULL");
        return 0;
    }
    if (strcmp(raw, "array") == 0) {
        if (!json_is_array(v)) goto bad;
        const json_t *elem = sig_type_arg(sig, 0);
        strbuf_putc(out, '[');
        for (size_t i = 0; i < json_array_size(v); i++) {
            if (i) strbuf_puts(out, ", ");
            if (render(json_array_get(v, i), elem, out, why, why_len) != 0) return -1;
        }
        strbuf_putc(out, ']');
        return 0;
    }
    if (strcmp(raw, "map") == 0) {
        if (!json_is_object(v)) goto bad;
        const json_t *val_sig = sig_type_arg(sig, 1);
        strbuf_putc(out, '{');
        const char *key;
        json_t *val;
        int first = 1;
        json_object_foreach((json_t *)v, key, val) {
            if (!first) strbuf_puts(out, ", ");
            first = 0;
            strbuf_puts(out, key);
            strbuf_putc(out, '=');
            if (render(val, val_sig, out, why, why_len) != 0) return -1;
        }
        strbuf_putc(out, '}');
        return 0;
    }
    if (strcmp(raw, "row") == 0) {
        const json_t *args = json_object_get(sig, "arguments");
        if (!json_is_array(v) || json_array_size(v) != json_array_size(args)) goto bad;
        strbuf_putc(out, '{');
        for (size_t i = 0; i < json_array_size(v); i++) {
            const json_t *field = json_object_get(json_array_get(args, i), "value");
            const char *name =
                json_string_value(json_object_get(json_object_get(field, "fieldName"), "name"));
            if (i) strbuf_puts(out, ", ");
            if (name) strbuf_puts(out, name);
            else strbuf_printf(out, "field%zu", i);
            strbuf_putc(out, '=');
            if (render(json_array_get(v, i), json_object_get(field, "typeSignature"), out, why,
                       why_len) != 0)
                return -1;
        }
        strbuf_putc(out, '}');
        return 0;
    }
    if (strcmp(raw, "varbinary") == 0) {
        if (!json_is_string(v) || render_binary(json_string_value(v), out) != 0) goto bad;
        return 0;
    }
    if (strcmp(raw, "double") == 0 || strcmp(raw, "real") == 0) {
        if (json_is_string(v)) { /* NaN, Infinity, -Infinity */
            strbuf_puts(out, json_string_value(v));
            return 0;
        }
        if (!json_is_number(v)) goto bad;
        char buf[64];
        double d = json_number_value(v);
        if (raw[0] == 'r') float_text_real((float)d, buf);
        else float_text_double(d, buf);
        strbuf_puts(out, buf);
        return 0;
    }
    if (json_is_string(v)) {
        strbuf_append(out, json_string_value(v), json_string_length(v));
        return 0;
    }
    if (json_is_integer(v)) {
        strbuf_printf(out, "%lld", (long long)json_integer_value(v));
        return 0;
    }
    if (json_is_boolean(v)) {
        strbuf_puts(out, json_is_true(v) ? "true" : "false");
        return 0;
    }
    if (json_is_real(v)) { /* not expected for other types; keep the number visible */
        char buf[64];
        float_text_double(json_real_value(v), buf);
        strbuf_puts(out, buf);
        return 0;
    }
bad:
    snprintf(why, why_len, "a %s value of an unexpected JSON shape", raw[0] ? raw : "(untyped)");
    return -1;
}

/* ---- results ------------------------------------------------------------------------------- */

typedef struct page_state {
    json_t *sigs;     /* the columns' typeSignatures, once known (borrowed reference kept) */
    size_t cap;
} page_state;

static void take_columns(slt_result *r, page_state *ps, json_t *columns) {
    size_t n = json_array_size(columns);
    const char **types = calloc(n + 1, sizeof *types);
    if (!types) {
        slt_result_fail(r, "53200", "out of memory in the test runner");
        return;
    }
    ps->sigs = json_array();
    for (size_t i = 0; i < n; i++) {
        json_t *col = json_array_get(columns, i);
        types[i] = json_string_value(json_object_get(col, "type"));
        json_array_append(ps->sigs, json_object_get(col, "typeSignature"));
    }
    slt_result_set_columns(r, (int)n, types);
    free(types);
}

static void take_error(slt_result *r, json_t *error) {
    const char *message = json_string_value(json_object_get(error, "message"));
    const char *name = json_string_value(json_object_get(error, "errorName"));
    const char *state = json_string_value(json_object_get(error, "sqlState"));
    int code = SQE_ERR_GENERIC_INTERNAL_ERROR;
    int known = 0;
    for (int c = 1; name && c < SQE_ERR_COUNT_; c++) {
        if (strcmp(err_code_lookup(c)->name, name) == 0) {
            code = c;
            known = 1;
            break;
        }
    }
    if (!state || strlen(state) != 5)
        state = known || !name ? err_code_lookup(code)->sqlstate : "?????";
    slt_result_fail(r, state, "%s", message ? message : (name ? name : "error without message"));
    snprintf(r->error_name, sizeof r->error_name, "%s", name ? name : "");
    r->err.code = code;
    json_t *loc = json_object_get(error, "errorLocation");
    if (loc) {
        r->err.line = (int)json_integer_value(json_object_get(loc, "lineNumber"));
        r->err.column = (int)json_integer_value(json_object_get(loc, "columnNumber"));
    }
}

/* Consumes one QueryResults document. Returns the nextUri (malloc'd) or NULL at the end or on
 * failure (r->failed). */
static char *take_page(slt_result *r, page_state *ps, const char *body, size_t len) {
    json_error_t jerr;
    json_t *doc = json_loadb(body, len, JSON_ALLOW_NUL, &jerr);
    if (!json_is_object(doc)) {
        slt_result_fail(r, "XX000", "trino: malformed QueryResults JSON: %s (%.200s)", jerr.text,
                        body);
        json_decref(doc);
        return NULL;
    }
    json_t *error = json_object_get(doc, "error");
    if (error) {
        take_error(r, error);
        json_decref(doc);
        return NULL;
    }
    json_t *columns = json_object_get(doc, "columns");
    if (!ps->sigs && json_is_array(columns)) take_columns(r, ps, columns);
    json_t *data = json_object_get(doc, "data");
    if (!r->failed && data) {
        if (!ps->sigs || !json_is_array(data)) {
            slt_result_fail(r, "XX000", "trino: data without columns");
        }
        for (size_t i = 0; !r->failed && i < json_array_size(data); i++) {
            json_t *row = json_array_get(data, i);
            if (!json_is_array(row) || json_array_size(row) != (size_t)r->n_cols) {
                slt_result_fail(r, "XX000", "trino: row %zu has the wrong shape", r->n_rows + 1);
                break;
            }
            for (size_t c = 0; c < json_array_size(row); c++) {
                json_t *v = json_array_get(row, c);
                if (json_is_null(v)) {
                    if (slt_result_push(r, NULL, &ps->cap) != 0) break;
                    continue;
                }
                strbuf sb;
                strbuf_init(&sb);
                char why[128];
                if (render(v, json_array_get(ps->sigs, c), &sb, why, sizeof why) != 0) {
                    strbuf_reset(&sb);
                    slt_result_fail(r, "XX000", "trino: column %zu: %s", c + 1, why);
                    break;
                }
                char *text = sb.failed ? NULL : strbuf_move(&sb);
                strbuf_reset(&sb);
                if (!text) {
                    slt_result_fail(r, "53200", "out of memory in the test runner");
                    break;
                }
                if (slt_result_push(r, text, &ps->cap) != 0) break;
            }
        }
    }
    const char *next = json_string_value(json_object_get(doc, "nextUri"));
    char *out = (!r->failed && next) ? strdup(next) : NULL;
    json_decref(doc);
    return out;
}

static void trino_run(void *conn, const char *sql, slt_result *r) {
    trino_conn *tc = conn;
    memset(r, 0, sizeof *r);
    page_state ps = {0};
    char *url = NULL;
    for (long page = 0; page < MAX_PAGES; page++) {
        exchange x = {.tc = tc};
        strbuf_init(&x.body);
        long status = 0;
        int rc = http_call(tc, url ? url : tc->url, url ? NULL : sql, &x, &status, r);
        free(url);
        url = NULL;
        if (rc == 0 && status != 200) {
            /* Plain-text HTTP errors (400, 413, 503, ...); 413 also has a QueryResults body. */
            if (x.body.len && strbuf_cstr(&x.body)[0] == '{')
                take_page(r, &ps, strbuf_cstr(&x.body), x.body.len);
            if (!r->failed)
                slt_result_fail(r, "08004", "trino: HTTP %ld: %.300s", status,
                                x.body.len ? strbuf_cstr(&x.body) : "");
        } else if (rc == 0) {
            url = take_page(r, &ps, strbuf_cstr(&x.body), x.body.len);
        }
        strbuf_reset(&x.body);
        if (!url) break;
    }
    if (url && !r->failed) slt_result_fail(r, "57014", "trino: the query did not finish");
    free(url);
    if (!r->failed && r->partial)
        slt_result_fail(r, "XX000", "trino: incomplete row");
    json_decref(ps.sigs);
}

/* ---- open and close ------------------------------------------------------------------------ */

/* Runs one statement that must succeed (the external server's schema setup); 0 or -1 with err. */
static int run_setup(trino_conn *tc, const char *sql, sqe_error *err) {
    slt_result r;
    trino_run(tc, sql, &r);
    int rc = r.failed ? -1 : 0;
    if (r.failed) {
        *err = r.err;
        size_t n = strlen(err->message);
        snprintf(err->message + n, sizeof err->message - n, " (%s)", sql);
    }
    slt_result_free(&r);
    return rc;
}

static void trino_close(void *conn) {
    trino_conn *tc = conn;
    if (!tc) return;
    if (tc->curl) curl_easy_cleanup(tc->curl);
    trino_server_destroy(tc->srv);
    if (tc->db) sqe_db_close(tc->db);
    if (tc->curl_init) curl_global_cleanup();
    free(tc->catalog);
    free(tc->schema);
    kv_free(&tc->session);
    kv_free(&tc->prepared);
    free(tc);
}

/* Opens a session on the external server opt->trino_url, on a fresh catalog of its own. */
static int trino_open_external(const slt_options *opt, trino_conn *tc, sqe_error *err) {
    tc->external = 1;
    size_t len = strlen(opt->trino_url);
    while (len && opt->trino_url[len - 1] == '/') len--;
    snprintf(tc->url, sizeof tc->url, "%.*s/v1/statement", (int)len, opt->trino_url);
    const char *catalog = opt->trino_catalog ? opt->trino_catalog : "memory";
    tc->curl_init = curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
    if (!tc->curl_init || !(tc->curl = curl_easy_init()))
        return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "trino: cannot start libcurl");
    char sql[300];
    snprintf(sql, sizeof sql, "DROP CATALOG IF EXISTS \"%s\"", catalog);
    if (run_setup(tc, sql, err) != 0) return -1;
    /* Trino keys a catalog by its name and properties: created again with the properties of the
     * one just dropped, it gets the old connector back, tables and all. A property that differs
     * each time (the memory connector's size limit, 1 GiB plus a nonce in KiB) makes it new. */
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    long nonce = (long)((now.tv_sec * 1000 + now.tv_nsec / 1000000) % 1000000);
    snprintf(sql, sizeof sql,
             "CREATE CATALOG \"%s\" USING memory WITH (\"memory.max-data-per-node\" = '%ldkB')",
             catalog, 1048576 + nonce);
    if (run_setup(tc, sql, err) != 0) return -1;
    tc->catalog = strdup(catalog);
    tc->schema = strdup("default");
    if (!tc->catalog || !tc->schema) return err_nomem(err, "trino connector");
    return 0;
}

static int trino_open(const slt_options *opt, void **out, sqe_error *err) {
    *out = NULL;
    trino_conn *tc = calloc(1, sizeof *tc);
    if (!tc) return err_nomem(err, "trino connector");
    if (opt->trino_url) {
        if (trino_open_external(opt, tc, err) != 0) {
            trino_close(tc);
            return -1;
        }
        *out = tc;
        return 0;
    }
    if (slt_db_open(opt, &tc->db, err) != 0) {
        free(tc);
        return -1;
    }
    trino_server_options so;
    trino_server_options_init(&so);
    so.port = 0;
    so.http_threads = 2;
    if (trino_server_create(tc->db, &so, &tc->srv, err) != SQE_OK) {
        trino_close(tc);
        return -1;
    }
    snprintf(tc->url, sizeof tc->url, "http://127.0.0.1:%u/v1/statement",
             (unsigned)trino_server_port(tc->srv));
    tc->curl_init = curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
    if (!tc->curl_init || !(tc->curl = curl_easy_init())) {
        trino_close(tc);
        return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "trino: cannot start libcurl");
    }
    *out = tc;
    return 0;
}

const slt_connector slt_conn_trino = {"trino", 1, trino_open, trino_run, trino_close};
