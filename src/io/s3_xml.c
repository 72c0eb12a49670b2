/*
 * s3_xml.c: bounded element lookup and entity decoding for S3 response bodies (see s3_xml.h).
 *
 * INTERFACE: s3_xml_text, s3_error_info_parse, s3_error_info_reset, s3_list_page_parse,
 *            s3_list_page_reset, s3_xml_escape.
 * NOTES: ListObjectsV2 response layout from the S3 API reference (ListBucketResult with
 * Contents{Key, Size, ETag, ...}, IsTruncated, NextContinuationToken). Lookups scan forward
 * only, so the cost is linear in the body for each field; a page holds at most 1000 objects.
 */
#include "io/s3_xml.h"
#include "common/utf8.h"
#include "common/hex.h"

#include <stdlib.h>
#include <string.h>

/* First occurrence of needle[0..n) in [p, end), or NULL. */
static const char *find(const char *p, const char *end, const char *needle, size_t n) {
    if (n == 0 || end - p < (ptrdiff_t)n) return NULL;
    for (const char *last = end - n; p <= last; p++) {
        p = memchr(p, needle[0], (size_t)(last - p) + 1);
        if (!p) return NULL;
        if (memcmp(p, needle, n) == 0) return p;
    }
    return NULL;
}

/* Finds element tag in [p, end): sets [*in, *in_end) to its content and *after past its end
 * tag. Returns false when there is none (or it is not closed). */
static bool element(const char *p, const char *end, const char *tag, const char **in,
                    const char **in_end, const char **after) {
    size_t tl = strlen(tag);
    while (p < end) {
        const char *lt = find(p, end, "<", 1);
        if (!lt) return false;
        p = lt + 1;
        if ((size_t)(end - p) < tl || memcmp(p, tag, tl) != 0) continue;
        const char *q = p + tl;
        if (q >= end) return false;
        if (*q != '>' && *q != ' ' && *q != '\t' && *q != '\r' && *q != '\n' && *q != '/') continue;
        const char *gt = find(q, end, ">", 1);
        if (!gt) return false;
        if (gt > q && gt[-1] == '/') { /* <Tag/> */
            *in = *in_end = gt;
            *after = gt + 1;
            return true;
        }
        const char *body = gt + 1;
        for (const char *s = body; s < end;) {
            const char *close = find(s, end, "</", 2);
            if (!close) return false;
            const char *name = close + 2;
            if ((size_t)(end - name) > tl && memcmp(name, tag, tl) == 0 && name[tl] == '>') {
                *in = body;
                *in_end = close;
                *after = name + tl + 1;
                return true;
            }
            s = close + 2;
        }
        return false;
    }
    return false;
}

static void put_utf8(strbuf *sb, unsigned long cp) {
    char enc[4];
    if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        strbuf_puts(sb, "\xef\xbf\xbd"); /* U+FFFD */
    else
        strbuf_append(sb, enc, utf8_encode((uint32_t)cp, enc));
}

/* Decodes entities of [p, end) into a malloc'ed string (NULL on out of memory). */
static char *decode(const char *p, const char *end) {
    static const struct {
        const char *name;
        char c;
    } named[] = {{"lt;", '<'}, {"gt;", '>'}, {"amp;", '&'}, {"quot;", '"'}, {"apos;", '\''}};
    strbuf sb;
    strbuf_init(&sb);
    while (p < end) {
        if (*p != '&') {
            const char *amp = memchr(p, '&', (size_t)(end - p));
            const char *stop = amp ? amp : end;
            strbuf_append(&sb, p, (size_t)(stop - p));
            p = stop;
            continue;
        }
        const char *s = p + 1;
        bool done = false;
        for (size_t i = 0; i < sizeof named / sizeof named[0] && !done; i++) {
            size_t n = strlen(named[i].name);
            if ((size_t)(end - s) >= n && memcmp(s, named[i].name, n) == 0) {
                strbuf_putc(&sb, named[i].c);
                p = s + n;
                done = true;
            }
        }
        if (!done && s < end && *s == '#') {
            const char *d = s + 1;
            int base = 10;
            if (d < end && (*d == 'x' || *d == 'X')) {
                base = 16;
                d++;
            }
            unsigned long cp = 0;
            const char *q = d;
            for (; q < end && q - d < 8; q++) {
                int v = hex_digit(*q);
                if (v < 0 || v >= base) break;
                cp = cp * (unsigned long)base + (unsigned long)v;
            }
            if (q > d && q < end && *q == ';') {
                put_utf8(&sb, cp);
                p = q + 1;
                done = true;
            }
        }
        if (!done) { /* a lone '&': keep it as text */
            strbuf_putc(&sb, '&');
            p++;
        }
    }
    if (sb.failed) {
        strbuf_reset(&sb);
        return NULL;
    }
    return sb.data ? strbuf_move(&sb) : strdup("");
}

char *s3_xml_text(const char *xml, size_t len, const char *tag, bool *oom) {
    if (oom) *oom = false;
    if (!xml) return NULL;
    const char *in, *in_end, *after;
    if (!element(xml, xml + len, tag, &in, &in_end, &after)) return NULL;
    char *s = decode(in, in_end);
    if (!s && oom) *oom = true;
    return s;
}

void s3_error_info_parse(const char *xml, size_t len, s3_error_info *out) {
    out->code = s3_xml_text(xml, len, "Code", NULL);
    out->message = s3_xml_text(xml, len, "Message", NULL);
}

void s3_error_info_reset(s3_error_info *e) {
    free(e->code);
    free(e->message);
    e->code = e->message = NULL;
}

void s3_list_page_reset(s3_list_page *p) {
    for (uint32_t i = 0; i < p->n_items; i++) {
        free(p->items[i].key);
        free(p->items[i].etag);
    }
    free(p->items);
    free(p->next_token);
    memset(p, 0, sizeof *p);
}

static bool parse_u64(const char *s, uint64_t *out) {
    uint64_t v = 0;
    if (!*s) return false;
    for (; *s; s++) {
        if (*s < '0' || *s > '9') return false;
        if (v > (UINT64_MAX - (uint64_t)(*s - '0')) / 10) return false;
        v = v * 10 + (uint64_t)(*s - '0');
    }
    *out = v;
    return true;
}

static int malformed(s3_list_page *out, sqe_error *err, const char *why) {
    s3_list_page_reset(out);
    return err_set(err, SQE_ERR_IO_ERROR, "malformed ListObjectsV2 response from S3: %s", why);
}

int s3_list_page_parse(const char *xml, size_t len, s3_list_page *out, sqe_error *err) {
    memset(out, 0, sizeof *out);
    const char *in, *end, *after;
    if (!xml || !element(xml, xml + len, "ListBucketResult", &in, &end, &after))
        return malformed(out, err, "no ListBucketResult");
    uint32_t cap = 0;
    const char *p = in;
    const char *c_in, *c_end;
    while (element(p, end, "Contents", &c_in, &c_end, &after)) {
        p = after;
        if (out->n_items == cap) {
            uint32_t ncap = cap ? cap * 2 : 16;
            if (ncap > 1u << 24) return malformed(out, err, "too many objects in one page");
            s3_object_entry *n = realloc(out->items, ncap * sizeof *n);
            if (!n) {
                s3_list_page_reset(out);
                return err_nomem(err, "S3 listing");
            }
            out->items = n;
            cap = ncap;
        }
        s3_object_entry *e = &out->items[out->n_items];
        memset(e, 0, sizeof *e);
        bool oom = false, oom2 = false;
        e->key = s3_xml_text(c_in, (size_t)(c_end - c_in), "Key", &oom);
        char *size = e->key ? s3_xml_text(c_in, (size_t)(c_end - c_in), "Size", &oom2) : NULL;
        out->n_items++;
        if (oom || oom2) {
            free(size);
            s3_list_page_reset(out);
            return err_nomem(err, "S3 listing");
        }
        if (!e->key || !*e->key) {
            free(size);
            return malformed(out, err, "an object without a Key");
        }
        bool ok = size && parse_u64(size, &e->size);
        free(size);
        if (!ok) return malformed(out, err, "an object Size that is not a number");
        e->etag = s3_xml_text(c_in, (size_t)(c_end - c_in), "ETag", NULL);
    }
    char *trunc = s3_xml_text(in, (size_t)(end - in), "IsTruncated", NULL);
    out->truncated = trunc && strcmp(trunc, "true") == 0;
    free(trunc);
    if (out->truncated) {
        out->next_token = s3_xml_text(in, (size_t)(end - in), "NextContinuationToken", NULL);
        if (!out->next_token || !*out->next_token)
            return malformed(out, err, "truncated without a NextContinuationToken");
    }
    return SQE_OK;
}

void s3_xml_escape(strbuf *sb, const char *s) {
    for (; *s; s++) {
        switch (*s) {
        case '&': strbuf_puts(sb, "&amp;"); break;
        case '<': strbuf_puts(sb, "&lt;"); break;
        case '>': strbuf_puts(sb, "&gt;"); break;
        case '"': strbuf_puts(sb, "&quot;"); break;
        case '\'': strbuf_puts(sb, "&apos;"); break;
        default: strbuf_putc(sb, *s);
        }
    }
}
