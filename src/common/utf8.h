/*
 * utf8.h: UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF): validation
 * of every text that comes from outside (SQL statements, CSV and TOML files, Arrow batches),
 * and the one encoder and decoder the other layers use.
 */
#ifndef SQE_COMMON_UTF8_H
#define SQE_COMMON_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The length of the longest valid UTF-8 prefix of s[0..len): len when all of it is valid,
 * otherwise the offset of the first byte of the first invalid or truncated sequence. */
size_t utf8_valid_prefix(const char *s, size_t len);

static inline bool utf8_valid(const char *s, size_t len) { return utf8_valid_prefix(s, len) == len; }

/* Is b a continuation byte (10xxxxxx)? */
static inline bool utf8_is_continuation(unsigned char b) { return (b & 0xC0) == 0x80; }

/* Encodes code point cp (below 0x110000, not a surrogate) at out[0..4); returns its 1 to 4
 * bytes. */
static inline size_t utf8_encode(uint32_t cp, char *out) {
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* Decodes the sequence at s[0..len) (len >= 1): returns its length and sets *cp, or returns 0
 * when the bytes there are not one well-formed sequence (a byte that cannot lead, truncated,
 * bad continuation, overlong, surrogate, above U+10FFFF; *cp is then U+FFFD). */
static inline size_t utf8_decode(const char *str, size_t len, uint32_t *cp) {
    const unsigned char *s = (const unsigned char *)str;
    *cp = 0xFFFD;
    if (len == 0) return 0;
    unsigned char c = s[0];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    size_t n;
    uint32_t v;
    if (c >= 0xc2 && c <= 0xdf) n = 2, v = c & 0x1f;
    else if (c >= 0xe0 && c <= 0xef) n = 3, v = c & 0x0f;
    else if (c >= 0xf0 && c <= 0xf4) n = 4, v = c & 0x07;
    else return 0;
    if (n > len) return 0;
    for (size_t k = 1; k < n; k++) {
        if (!utf8_is_continuation(s[k])) return 0;
        v = v << 6 | (s[k] & 0x3f);
    }
    if ((n == 3 && (v < 0x800 || (v >= 0xd800 && v <= 0xdfff))) || (n == 4 && (v < 0x10000 || v > 0x10ffff)))
        return 0;
    *cp = v;
    return n;
}

/* Bytes of the sequence lead byte c announces (1 for ASCII and for a byte that cannot lead). */
static inline size_t utf8_seq_len(unsigned char c) { return c < 0xC0 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4; }

/* Bytes from s[0] to the next character start, for text that may be malformed: the sequence
 * its lead byte announces (at most len), cut at the first byte that does not continue it;
 * 1 for a byte that cannot lead. */
size_t utf8_next(const char *s, size_t len);

/* The start of the character that holds byte i: back over at most three continuation bytes. */
size_t utf8_char_start(const char *s, size_t i);

/* Code points in s[0..len): the bytes that are not continuation bytes (as Trino counts). */
static inline size_t utf8_count(const char *s, size_t len) {
    size_t n = 0;
    for (size_t i = 0; i < len; i++) n += !utf8_is_continuation((unsigned char)s[i]);
    return n;
}

/* Byte offset of code point index cp_idx (0-based) in s[0..len), or len when past the end
 * (characters stepped over by their lead byte). */
static inline size_t utf8_offset(const char *s, size_t len, int64_t cp_idx) {
    size_t i = 0;
    while (i < len && cp_idx > 0) {
        i += utf8_seq_len((unsigned char)s[i]);
        cp_idx--;
    }
    return i < len ? i : len;
}

#endif
