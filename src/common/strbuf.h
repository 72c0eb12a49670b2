/*
 * strbuf.h: a growable byte string (heap, not accounted): for messages, EXPLAIN text, output
 * formatting. Appends never fail silently: on out-of-memory the buffer sets `failed` and keeps
 * what it had, so callers check once at the end.
 */
#ifndef SQE_COMMON_STRBUF_H
#define SQE_COMMON_STRBUF_H

#include <stddef.h>

typedef struct strbuf {
    char *data;   /* NUL-terminated when non-NULL */
    size_t len;
    size_t cap;
    int failed;
} strbuf;

void strbuf_init(strbuf *sb);
/* Frees the buffer; sb may be reused after strbuf_init. */
void strbuf_reset(strbuf *sb);
void strbuf_append(strbuf *sb, const char *s, size_t len);
void strbuf_puts(strbuf *sb, const char *s);
void strbuf_putc(strbuf *sb, char c);
void strbuf_printf(strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Transfers the buffer to the caller (free() it); sb is left empty. Never NULL unless failed. */
char *strbuf_move(strbuf *sb);
/* The current text, "" when empty. */
const char *strbuf_cstr(const strbuf *sb);

#endif
