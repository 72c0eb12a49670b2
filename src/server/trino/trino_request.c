/*
 * trino_request.c: the Trino protocol's request and reply values: the session headers of a
 * request (X-Trino-*), their name=value lists and url coding, and the replies the query layer
 * builds. No HTTP here: trino_server.c hands the headers in and sends the replies.
 *
 * INTERFACE: trino_request_reset, trino_request_header, trino_kv_parse, trino_url_decode,
 *   trino_url_encode, trino_reply_reset, trino_reply_set (trino_int.h).
 * NOTES: moved unchanged out of trino_server.c when the HTTP side went onto the shared
 * server/core/http_server.c; trino_request_header is fuzz_trino_request's entry point.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/hex.h"
#include "server/trino/trino_int.h"

void trino_request_reset(trino_request *req) {
    sqe_principal_unref(req->principal);
    free(req->sql);
    free(req->user);
    free(req->catalog);
    free(req->schema);
    free(req->time_zone);
    free(req->source);
    free(req->client_address);
    free(req->client_tags);
    for (uint32_t i = 0; i < req->n_session; i++) {
        free(req->session[i].name);
        free(req->session[i].value);
    }
    free(req->session);
    for (uint32_t i = 0; i < req->n_prepared; i++) {
        free(req->prepared[i].name);
        free(req->prepared[i].value);
    }
    free(req->prepared);
    free(req->header_error);
    memset(req, 0, sizeof *req);
}

char *trino_url_decode(const char *s, size_t len) {
    char *out = malloc(len + 1);
    if (!out) return NULL;
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (c == '+') {
            c = ' ';
        } else if (c == '%') {
            int hi = i + 2 < len ? hex_digit(s[i + 1]) : -1;
            int lo = i + 2 < len ? hex_digit(s[i + 2]) : -1;
            if (hi < 0 || lo < 0) {
                free(out);
                return NULL;
            }
            c = (char)(hi * 16 + lo);
            i += 2;
        }
        if (c == 0) {
            free(out);
            return NULL;
        }
        out[n++] = c;
    }
    out[n] = 0;
    return out;
}

void trino_url_encode(const char *s, strbuf *out) {
    static const char hex[] = "0123456789ABCDEF";
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        unsigned char c = *p;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
            c == '-' || c == '_' || c == '.' || c == '~') {
            strbuf_putc(out, (char)c);
        } else {
            char esc[3] = {'%', hex[c >> 4], hex[c & 15]};
            strbuf_append(out, esc, 3);
        }
    }
}

static void trim(const char **s, const char **e) {
    while (*s < *e && (**s == ' ' || **s == '\t')) (*s)++;
    while (*e > *s && ((*e)[-1] == ' ' || (*e)[-1] == '\t')) (*e)--;
}

int trino_kv_parse(const char *header, const char *text, trino_kv **items, uint32_t *n_items,
                   sqe_error *err) {
    const char *p = text;
    while (*p) {
        const char *end = strchr(p, ',');
        if (!end) end = p + strlen(p);
        const char *s = p, *e = end;
        trim(&s, &e);
        p = *end ? end + 1 : end;
        if (s == e) continue; /* empty element (",," or a trailing comma) */
        const char *eq = memchr(s, '=', (size_t)(e - s));
        if (!eq || eq == s)
            return err_set(err, SQE_ERR_GENERIC_USER_ERROR,
                           "Invalid %s header: expected name=value", header);
        if (*n_items >= 10000)
            return err_set(err, SQE_ERR_GENERIC_USER_ERROR, "Too many entries in %s", header);
        const char *ns = s, *ne = eq;
        trim(&ns, &ne);
        char *name = trino_url_decode(ns, (size_t)(ne - ns));
        char *value = trino_url_decode(eq + 1, (size_t)(e - eq - 1));
        trino_kv *grown = name && value ? realloc(*items, (*n_items + 1) * sizeof **items) : NULL;
        if (!grown) {
            free(name);
            free(value);
            if (!name || !value)
                return err_set(err, SQE_ERR_GENERIC_USER_ERROR,
                               "Invalid %s header: bad %%-escape", header);
            return err_nomem(err, "request headers");
        }
        *items = grown;
        grown[*n_items].name = name;
        grown[*n_items].value = value;
        (*n_items)++;
    }
    return SQE_OK;
}

void trino_reply_reset(trino_reply *r) {
    free(r->body);
    for (uint32_t i = 0; i < r->n_headers; i++) free(r->headers[i].value);
    free(r->headers);
    memset(r, 0, sizeof *r);
}

int trino_reply_set(trino_reply *r, unsigned status, const char *content_type, const char *body) {
    trino_reply_reset(r);
    r->status = status;
    r->content_type = content_type;
    r->body = strdup(body ? body : "");
    if (!r->body) {
        r->status = 500;
        return SQE_ERR_OUT_OF_MEMORY;
    }
    r->body_len = strlen(r->body);
    return SQE_OK;
}


/* Replaces *slot with a copy of value (the last of repeated single-valued headers wins). */
static bool set_string(char **slot, const char *value) {
    char *copy = strdup(value);
    if (!copy) return false;
    free(*slot);
    *slot = copy;
    return true;
}

int trino_request_header(trino_request *req, const char *key, const char *value,
                         sqe_error *err) {
    if (!key || !value || strncasecmp(key, "X-Trino-", 8) != 0) return SQE_OK;
    bool ok = true;
    if (!strcasecmp(key, "X-Trino-User")) {
        if (!req->principal) ok = set_string(&req->user, value);
    } else if (!strcasecmp(key, "X-Trino-Catalog")) {
        ok = set_string(&req->catalog, value);
    } else if (!strcasecmp(key, "X-Trino-Schema")) {
        ok = set_string(&req->schema, value);
    } else if (!strcasecmp(key, "X-Trino-Time-Zone")) {
        ok = set_string(&req->time_zone, value);
    } else if (!strcasecmp(key, "X-Trino-Source")) {
        ok = set_string(&req->source, value);
    } else if (!strcasecmp(key, "X-Trino-Client-Tags")) {
        ok = set_string(&req->client_tags, value);
    } else if (!strcasecmp(key, "X-Trino-Session")) {
        return trino_kv_parse("X-Trino-Session", value, &req->session, &req->n_session, err);
    } else if (!strcasecmp(key, "X-Trino-Prepared-Statement")) {
        return trino_kv_parse("X-Trino-Prepared-Statement", value, &req->prepared,
                              &req->n_prepared, err);
    }
    return ok ? SQE_OK : err_nomem(err, "request headers");
}

