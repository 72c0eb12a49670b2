/*
 * strbuf.c: growable byte string (see strbuf.h).
 */
#include "common/strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void strbuf_init(strbuf *sb) { strbuf_init_limit(sb, 0); }

void strbuf_init_limit(strbuf *sb, size_t limit) {
    sb->data = NULL;
    sb->len = 0;
    sb->cap = 0;
    sb->failed = 0;
    sb->limit = limit;
}

void strbuf_reset(strbuf *sb) {
    free(sb->data);
    strbuf_init_limit(sb, sb->limit);
}

static int reserve(strbuf *sb, size_t extra) {
    if (sb->failed) return 0;
    if (sb->limit && (extra > sb->limit || sb->len > sb->limit - extra)) {
        sb->failed = STRBUF_TOO_LONG;
        return 0;
    }
    if (sb->len + extra + 1 <= sb->cap) return 1;
    size_t cap = sb->cap ? sb->cap : 64;
    while (cap < sb->len + extra + 1) cap *= 2;
    char *p = realloc(sb->data, cap);
    if (!p) {
        sb->failed = STRBUF_NOMEM;
        return 0;
    }
    sb->data = p;
    sb->cap = cap;
    return 1;
}

void strbuf_clear(strbuf *sb) {
    sb->len = 0;
    sb->failed = 0;
    if (sb->data) sb->data[0] = 0;
}

int strbuf_reserve(strbuf *sb, size_t extra) { return reserve(sb, extra); }

void strbuf_append(strbuf *sb, const char *s, size_t len) {
    if (!reserve(sb, len)) return;
    if (len) memcpy(sb->data + sb->len, s, len);
    sb->len += len;
    sb->data[sb->len] = 0;
}

void strbuf_puts(strbuf *sb, const char *s) { strbuf_append(sb, s, strlen(s)); }

void strbuf_putc(strbuf *sb, char c) { strbuf_append(sb, &c, 1); }

void strbuf_printf(strbuf *sb, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !reserve(sb, (size_t)n)) return;
    va_start(ap, fmt);
    vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    sb->len += (size_t)n;
}

char *strbuf_move(strbuf *sb) {
    if (sb->failed) {
        strbuf_reset(sb);
        return NULL;
    }
    char *p = sb->data;
    if (!p) p = calloc(1, 1);
    strbuf_init(sb);
    return p;
}

const char *strbuf_cstr(const strbuf *sb) { return sb->data ? sb->data : ""; }
