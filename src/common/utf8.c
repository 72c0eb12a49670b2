/*
 * utf8.c: UTF-8 validation (see utf8.h).
 *
 * INTERFACE: utf8_valid_prefix.
 * NOTES: ASCII runs are skipped eight bytes at a time; everything else is checked per sequence.
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
