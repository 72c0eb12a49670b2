/*
 * http_strict.c: strict HTTP/1.1 request framing on libmicrohttpd (see http_strict.h).
 *
 * INTERFACE: http_strict_check, http_strict_refuse, http_strict_options (http_strict.h).
 * NOTES: libmicrohttpd 0.9.75 parses the header block in place: each line end (CR LF) becomes
 * two NULs, the colon becomes a NUL, names and values point into that buffer in wire order. A
 * line that ended in a bare LF or CR leaves one NUL (or none), a folded line moves the value
 * out of the buffer or glues it to the name. So for every header: the two bytes before its name
 * are NUL (the previous line ended in CR LF), the name is followed by NUL, optional blanks and
 * the value, the value by two NULs; after the last one the empty line is two more NULs. The
 * bytes looked at are all inside the received header block. This layout check is compiled in
 * only for the parser it was verified against (MHD_VERSION 0x00097500..0x000975ff).
 */
#include "server/core/http_strict.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#if MHD_VERSION >= 0x00097500 && MHD_VERSION <= 0x000975ff
#define LAYOUT_CHECK 1
#else
#define LAYOUT_CHECK 0
#endif

typedef struct scan {
    const char *why;
    const char *content_length;
    size_t content_length_len;
    const char *last_value;
    size_t last_value_len;
} scan;

static bool is_tchar(unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c && strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

static enum MHD_Result check_header(void *cls, enum MHD_ValueKind kind, const char *key,
                                    size_t key_size, const char *value, size_t value_size) {
    (void)kind;
    scan *s = cls;
    if (!key || !value || !key_size) {
        s->why = "empty header name";
        return MHD_NO;
    }
    for (size_t i = 0; i < key_size; i++)
        if (!is_tchar((unsigned char)key[i])) {
            s->why = "invalid character in a header name (no space before the colon)";
            return MHD_NO;
        }
    for (size_t i = 0; i < value_size; i++) {
        unsigned char c = (unsigned char)value[i];
        if ((c < 0x20 && c != '\t') || c == 0x7f) {
            s->why = "control character in a header value (bare CR or LF line end?)";
            return MHD_NO;
        }
    }
#if LAYOUT_CHECK
    const char *gap = key + key_size + 1;
    bool layout = key[-2] == 0 && key[-1] == 0 && key[key_size] == 0 && value >= gap &&
                  value - gap <= 256 && value[value_size] == 0 && value[value_size + 1] == 0;
    for (const char *p = gap; layout && p < value; p++) layout = *p == ' ' || *p == '\t';
    if (!layout) {
        s->why = "header lines must end in CRLF and must not be folded";
        return MHD_NO;
    }
#endif
    if (!strcasecmp(key, "Transfer-Encoding")) {
        s->why = "Transfer-Encoding is not accepted; send the body with a Content-Length";
        return MHD_NO;
    }
    if (!strcasecmp(key, "Content-Length")) {
        if (value_size == 0 || value_size > 18 || strspn(value, "0123456789") != value_size) {
            s->why = "Content-Length must be a decimal number";
            return MHD_NO;
        }
        if (s->content_length && (s->content_length_len != value_size ||
                                  memcmp(s->content_length, value, value_size) != 0)) {
            s->why = "conflicting Content-Length headers";
            return MHD_NO;
        }
        s->content_length = value;
        s->content_length_len = value_size;
    }
    s->last_value = value;
    s->last_value_len = value_size;
    return MHD_YES;
}

bool http_strict_check(struct MHD_Connection *c, const char **why) {
    scan s;
    memset(&s, 0, sizeof s);
    MHD_get_connection_values_n(c, MHD_HEADER_KIND, check_header, &s);
#if LAYOUT_CHECK
    /* the empty line that ends the header block was CR LF too */
    if (!s.why && s.last_value &&
        (s.last_value[s.last_value_len + 2] != 0 || s.last_value[s.last_value_len + 3] != 0))
        s.why = "the header block must end with CRLF CRLF";
#endif
    if (s.why) {
        *why = s.why;
        return false;
    }
    return true;
}

enum MHD_Result http_strict_refuse(struct MHD_Connection *c, const char *why) {
    char msg[300];
    snprintf(msg, sizeof msg, "Bad request: %s", why);
    struct MHD_Response *r =
        MHD_create_response_from_buffer(strlen(msg), msg, MHD_RESPMEM_MUST_COPY);
    if (!r) return MHD_NO;
    MHD_add_response_header(r, "Content-Type", "text/plain; charset=utf-8");
    MHD_add_response_header(r, "Connection", "close");
    enum MHD_Result ret = MHD_queue_response(c, 400, r);
    MHD_destroy_response(r);
    return ret;
}

const struct MHD_OptionItem *http_strict_options(void) {
    static const struct MHD_OptionItem opts[] = {
#if MHD_VERSION >= 0x00097701
        /* the 0.9.77+ scale: 1 = strict about framing, without refusing common clients */
        {MHD_OPTION_CLIENT_DISCIPLINE_LVL, 1, NULL},
#else
        {MHD_OPTION_STRICT_FOR_CLIENT, 1, NULL},
#endif
        {MHD_OPTION_END, 0, NULL},
    };
    return opts;
}
