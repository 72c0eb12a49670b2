/*
 * utf8.c: UTF-8 validation, encoding and decoding (see utf8.h).
 *
 * INTERFACE: utf8_valid_prefix, utf8_next, utf8_char_start (utf8_encode, utf8_decode and
 *   utf8_count are inline in utf8.h: string kernels call them per character).
 * NOTES: validation skips ASCII runs eight bytes at a time; everything else is checked per
 * sequence with the same rules as utf8_decode (RFC 3629 section 4's table of well-formed byte
 * sequences).
 */
#include "common/utf8.h"

#include <stdint.h>
#include <string.h>

size_t utf8_valid_prefix(const char *str, size_t len) {
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0;
    while (i < len) {
        /* ASCII fast path, 8 bytes at a time */
        while (i + 8 <= len) {
            uint64_t w;
            memcpy(&w, s + i, 8);
            if (w & 0x8080808080808080ULL) break;
            i += 8;
        }
        if (i >= len) break;
        unsigned char c = s[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t n;
        uint32_t cp;
        if (c >= 0xc2 && c <= 0xdf) n = 2, cp = c & 0x1f;
        else if (c >= 0xe0 && c <= 0xef) n = 3, cp = c & 0x0f;
        else if (c >= 0xf0 && c <= 0xf4) n = 4, cp = c & 0x07;
        else return i;
        if (i + n > len) return i;
        for (size_t k = 1; k < n; k++) {
            if ((s[i + k] & 0xc0) != 0x80) return i;
            cp = cp << 6 | (s[i + k] & 0x3f);
        }
        if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
            (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
            return i;
        i += n;
    }
    return len;
}

size_t utf8_next(const char *str, size_t len) {
    const unsigned char *s = (const unsigned char *)str;
    size_t n = s[0] < 0x80 ? 1 : s[0] >= 0xF0 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC0 ? 2 : 1;
    if (n > len) n = len;
    for (size_t i = 1; i < n; i++)
        if (!utf8_is_continuation(s[i])) return i;
    return n;
}

size_t utf8_char_start(const char *str, size_t i) {
    const unsigned char *s = (const unsigned char *)str;
    size_t start = i;
    while (start > 0 && i - start < 3 && utf8_is_continuation(s[start])) start--;
    return start;
}

