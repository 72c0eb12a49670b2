/*
 * scalar_string_url.c: the string family, URL part: url_extract_protocol, _host, _port, _path,
 * _query, _fragment, _parameter, url_encode and url_decode.
 *
 * INTERFACE: func_string_url_defs (joined into the string family).
 *
 * NOTES: Trino parses with java.net.URI and returns the raw (still %-encoded) path, query and
 * fragment; a string that is not a valid URI gives NULL. The parser here follows RFC 2396 as
 * java.net.URI does: scheme ":" ["//" authority] path ["?" query] ["#" fragment]; characters
 * outside the allowed set (space, quotes, '<', '>', '\\', '^', '`', '{', '|', '}', controls) and
 * '%' not followed by two hex digits make the URI invalid. url_encode/url_decode follow Java's
 * URLEncoder/URLDecoder (form encoding: space is '+').
 */
#include <stdlib.h>
#include <string.h>

#include "func/scalar_kernel.h"
#include "common/hex.h"

#define KERNEL(name)                                                                               \
    static int name(func_ctx *ctx, const vec *const *args, uint32_t n_args, const uint32_t *sel,   \
                    uint32_t count, vec *out)
#define SDATA(s) sqe_str_data(s)

typedef struct url_part {
    int32_t start; /* -1 when absent */
    int32_t len;
} url_part;

typedef struct url_parts {
    url_part scheme, host, path, query, fragment;
    int64_t port; /* -1 when absent */
} url_parts;

static bool is_hex(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static bool url_char_ok(unsigned char c) {
    if (c >= 0x80) return true; /* "other" characters */
    if (c <= 0x20 || c == 0x7F) return false;
    return !strchr("\"<>\\^`{|}", c);
}

/* Parses s into *u; returns false when s is not a valid URI. */
static bool url_parse(const char *s, uint32_t n, url_parts *u) {
    url_part none = {-1, 0};
    u->scheme = u->host = u->path = u->query = u->fragment = none;
    u->port = -1;
    for (uint32_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '%') {
            if (i + 2 >= n || !is_hex(s[i + 1]) || !is_hex(s[i + 2])) return false;
        } else if (c == '#') {
            /* only one '#'; the fragment may contain '#'? java.net.URI rejects a second one */
            for (uint32_t k = i + 1; k < n; k++)
                if (s[k] == '#') return false;
        } else if (!url_char_ok(c)) {
            return false;
        }
    }
    uint32_t i = 0;
    /* scheme */
    uint32_t k = 0;
    while (k < n && s[k] != ':' && s[k] != '/' && s[k] != '?' && s[k] != '#') k++;
    if (k < n && s[k] == ':') {
        if (k == 0) return false;
        if (!((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z'))) return false;
        for (uint32_t j = 1; j < k; j++) {
            char c = s[j];
            if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '+' || c == '-' || c == '.'))
                return false;
        }
        u->scheme = (url_part){0, (int32_t)k};
        i = k + 1;
        if (i == n) return false; /* "http:" has an empty scheme-specific part */
        if (s[i] != '/') {
            /* opaque URI: no host or path; only a fragment */
            uint32_t h = i;
            while (h < n && s[h] != '#') h++;
            if (h < n) u->fragment = (url_part){(int32_t)h + 1, (int32_t)(n - h - 1)};
            return true;
        }
    }
    /* authority */
    if (i + 1 < n && s[i] == '/' && s[i + 1] == '/') {
        uint32_t a = i + 2, e = a;
        while (e < n && s[e] != '/' && s[e] != '?' && s[e] != '#') e++;
        uint32_t h = a;
        for (uint32_t j = a; j < e; j++)
            if (s[j] == '@') h = j + 1;
        uint32_t he = e;
        if (h < e && s[h] == '[') {
            uint32_t j = h;
            while (j < e && s[j] != ']') j++;
            if (j == e) return false;
            he = j + 1;
        } else {
            for (uint32_t j = h; j < e; j++)
                if (s[j] == ':') {
                    he = j;
                    break;
                }
        }
        bool host_ok = he > h;
        if (host_ok && s[h] != '[')
            for (uint32_t j = h; j < he; j++) {
                char c = s[j];
                if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '-' || c == '.'))
                    host_ok = false;
            }
        if (host_ok && he < e) {
            if (s[he] != ':') {
                host_ok = false;
            } else if (he + 1 < e) {
                int64_t port = 0;
                for (uint32_t j = he + 1; j < e; j++) {
                    if (s[j] < '0' || s[j] > '9' || port > 1000000) {
                        host_ok = false;
                        break;
                    }
                    port = port * 10 + (s[j] - '0');
                }
                if (host_ok) u->port = port;
            }
        }
        if (host_ok) u->host = (url_part){(int32_t)h, (int32_t)(he - h)};
        else u->port = -1;
        i = e;
    }
    uint32_t p = i;
    while (i < n && s[i] != '?' && s[i] != '#') i++;
    u->path = (url_part){(int32_t)p, (int32_t)(i - p)};
    if (i < n && s[i] == '?') {
        uint32_t q = ++i;
        while (i < n && s[i] != '#') i++;
        u->query = (url_part){(int32_t)q, (int32_t)(i - q)};
    }
    if (i < n && s[i] == '#') u->fragment = (url_part){(int32_t)i + 1, (int32_t)(n - i - 1)};
    return true;
}

enum { URL_PROTOCOL, URL_HOST, URL_PATH, URL_QUERY, URL_FRAGMENT };

static int extract_part(func_ctx *ctx, const vec *const *args, const uint32_t *sel,
                        uint32_t count, vec *out, int which) {
    vec_view us;
    vec_view_init(&us, args[0]);
    FUNC_FOR_ROWS(sel, count, row) {
        const sqe_str *s = ustr(&us, row);
        const char *p = SDATA(s);
        url_parts u;
        if (!url_parse(p, s->len, &u)) {
            SQE_TRY(func_out_null(ctx, out, row));
            continue;
        }
        url_part part = which == URL_PROTOCOL ? u.scheme
                        : which == URL_HOST   ? u.host
                        : which == URL_PATH   ? u.path
                        : which == URL_QUERY  ? u.query
                                              : u.fragment;
        if (part.start < 0) SQE_TRY(func_out_null(ctx, out, row));
        else SQE_TRY(func_out_str(ctx, out, row, p + part.start, (size_t)part.len));
    }
    return SQE_OK;
}

KERNEL(url_protocol_fn) { return extract_part(ctx, args, sel, count, out, URL_PROTOCOL); }
KERNEL(url_host_fn) { return extract_part(ctx, args, sel, count, out, URL_HOST); }
KERNEL(url_path_fn) { return extract_part(ctx, args, sel, count, out, URL_PATH); }
KERNEL(url_query_fn) { return extract_part(ctx, args, sel, count, out, URL_QUERY); }
KERNEL(url_fragment_fn) { return extract_part(ctx, args, sel, count, out, URL_FRAGMENT); }

KERNEL(url_port_fn) {
    vec_view us;
    vec_view_init(&us, args[0]);
    FUNC_FOR_ROWS(sel, count, row) {
        const sqe_str *s = ustr(&us, row);
        url_parts u;
        if (!url_parse(SDATA(s), s->len, &u) || u.port < 0) {
            SQE_TRY(func_out_null(ctx, out, row));
            continue;
        }
        VEC_DATA(out, int64_t)[row] = u.port;
    }
    return SQE_OK;
}

KERNEL(url_parameter_fn) {
    vec_view us, un;
    vec_view_init(&us, args[0]);
    vec_view_init(&un, args[1]);
    FUNC_FOR_ROWS(sel, count, row) {
        const sqe_str *s = ustr(&us, row), *name = ustr(&un, row);
        const char *p = SDATA(s), *pn = SDATA(name);
        url_parts u;
        if (!url_parse(p, s->len, &u) || u.query.start < 0) {
            SQE_TRY(func_out_null(ctx, out, row));
            continue;
        }
        const char *q = p + u.query.start, *qe = q + u.query.len;
        bool found = false;
        while (q <= qe) {
            const char *amp = memchr(q, '&', (size_t)(qe - q));
            const char *arg_end = amp ? amp : qe;
            const char *eq = memchr(q, '=', (size_t)(arg_end - q));
            const char *key_end = eq ? eq : arg_end;
            if ((size_t)(key_end - q) == name->len && memcmp(q, pn, name->len) == 0) {
                if (eq) SQE_TRY(func_out_str(ctx, out, row, eq + 1, (size_t)(arg_end - eq - 1)));
                else SQE_TRY(func_out_str(ctx, out, row, "", 0));
                found = true;
                break;
            }
            if (!amp) break;
            q = amp + 1;
        }
        if (!found) SQE_TRY(func_out_null(ctx, out, row));
    }
    return SQE_OK;
}

KERNEL(url_encode_fn) {
    static const char hex[] = "0123456789ABCDEF";
    vec_view us;
    vec_view_init(&us, args[0]);
    strbuf sb;
    strbuf_init(&sb);
    int rc = SQE_OK;
    FUNC_FOR_ROWS(sel, count, row) {
        const sqe_str *s = ustr(&us, row);
        const unsigned char *p = (const unsigned char *)SDATA(s);
        sb.len = 0;
        for (uint32_t i = 0; i < s->len; i++) {
            unsigned char c = p[i];
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                c == '.' || c == '-' || c == '*' || c == '_') {
                strbuf_putc(&sb, (char)c);
            } else if (c == ' ') {
                strbuf_putc(&sb, '+');
            } else {
                char e[3] = {'%', hex[c >> 4], hex[c & 15]};
                strbuf_append(&sb, e, 3);
            }
        }
        if ((rc = func_out_sb(ctx, out, row, &sb))) break;
    }
    strbuf_reset(&sb);
    return rc;
}

KERNEL(url_decode_fn) {
    vec_view us;
    vec_view_init(&us, args[0]);
    strbuf sb;
    strbuf_init(&sb);
    int rc = SQE_OK;
    FUNC_FOR_ROWS(sel, count, row) {
        const sqe_str *s = ustr(&us, row);
        const char *p = SDATA(s);
        const char *bad = NULL;
        sb.len = 0;
        for (uint32_t i = 0; i < s->len && !bad; i++) {
            if (p[i] == '+') {
                strbuf_putc(&sb, ' ');
            } else if (p[i] == '%') {
                if (i + 2 >= s->len) bad = "URLDecoder: Incomplete trailing escape (%) pattern";
                else if (!is_hex(p[i + 1]) || !is_hex(p[i + 2]))
                    bad = "URLDecoder: Illegal hex characters in escape (%) pattern";
                else {
                    strbuf_putc(&sb, (char)(hex_digit(p[i + 1]) << 4 | hex_digit(p[i + 2])));
                    i += 2;
                }
            } else {
                strbuf_putc(&sb, p[i]);
            }
        }
        if (bad) {
            if ((rc = func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT, "%s", bad)))
                break;
            continue;
        }
        if ((rc = func_out_sb(ctx, out, row, &sb))) break;
    }
    strbuf_reset(&sb);
    return rc;
}

#define NP FUNC_NULL_PROPAGATES

static const func_scalar_def url_defs[] = {
    {"url_extract_protocol", "varchar", "?", func_ret_varchar_of_arg0, NULL, url_protocol_fn, NP,
     "protocol (scheme) of a URL"},
    {"url_extract_host", "varchar", "?", func_ret_varchar_of_arg0, NULL, url_host_fn, NP, "host of a URL"},
    {"url_extract_port", "varchar", "bigint", NULL, NULL, url_port_fn, NP, "port of a URL"},
    {"url_extract_path", "varchar", "?", func_ret_varchar_of_arg0, NULL, url_path_fn, NP, "path of a URL"},
    {"url_extract_query", "varchar", "?", func_ret_varchar_of_arg0, NULL, url_query_fn, NP,
     "query string of a URL"},
    {"url_extract_fragment", "varchar", "?", func_ret_varchar_of_arg0, NULL, url_fragment_fn, NP,
     "fragment of a URL"},
    {"url_extract_parameter", "varchar,varchar", "?", func_ret_varchar_of_arg0, NULL, url_parameter_fn, NP,
     "value of the first query parameter with a name"},
    {"url_encode", "varchar", "?", func_ret_url_encode, NULL, url_encode_fn, NP,
     "escapes a value for a URL query string"},
    {"url_decode", "varchar", "?", func_ret_varchar_of_arg0, NULL, url_decode_fn, NP,
     "unescapes a URL-encoded value"},
};

const func_scalar_def *func_string_url_defs(uint32_t *count) {
    *count = FUNC_N(url_defs);
    return url_defs;
}
