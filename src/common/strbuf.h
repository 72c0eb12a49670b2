/*
 * strbuf.h: a growable byte string (heap, not accounted): for messages, EXPLAIN text, output
 * formatting. Appends never fail silently: on out-of-memory the buffer sets `failed` and keeps
 * what it had, so callers check once at the end. A buffer may carry a length limit
 * (strbuf_init_limit): an append past it sets `failed` to STRBUF_TOO_LONG instead of growing, so
 * a string built from user input cannot take unbounded memory before its size is checked.
 */
#ifndef SQE_COMMON_STRBUF_H
#define SQE_COMMON_STRBUF_H

#include <stddef.h>

typedef struct strbuf {
    char *data;   /* NUL-terminated when non-NULL */
    size_t len;
    size_t cap;
    int failed;   /* 0, STRBUF_NOMEM or STRBUF_TOO_LONG; appends do nothing once set */
    size_t limit; /* maximum len; 0 = none */
} strbuf;

enum { STRBUF_NOMEM = 1, STRBUF_TOO_LONG = 2 };

void strbuf_init(strbuf *sb);
/* As strbuf_init, with a maximum length (see STRBUF_TOO_LONG). */
void strbuf_init_limit(strbuf *sb, size_t limit);
/* Makes room for extra more bytes (so sb->data + sb->len may be written directly, then len
 * advanced); returns 0 when failed (out of memory or past the limit). */
int strbuf_reserve(strbuf *sb, size_t extra);
/* Frees the buffer and clears failed; the limit stays, so sb may be reused. */
void strbuf_reset(strbuf *sb);
/* Empties the buffer for reuse (keeps its memory and limit, clears failed). */
void strbuf_clear(strbuf *sb);
void strbuf_append(strbuf *sb, const char *s, size_t len);
void strbuf_puts(strbuf *sb, const char *s);
void strbuf_putc(strbuf *sb, char c);
void strbuf_printf(strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Transfers the buffer to the caller (free() it); sb is left empty. Never NULL unless failed. */
char *strbuf_move(strbuf *sb);
/* The current text, "" when empty. */
const char *strbuf_cstr(const strbuf *sb);

#endif
