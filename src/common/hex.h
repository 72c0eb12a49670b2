/*
 * hex.h: hexadecimal digits, for every decoder of hex text (X'..' literals, from_hex, URL and
 * JSON escapes, UUIDs, session files).
 */
#ifndef SQE_COMMON_HEX_H
#define SQE_COMMON_HEX_H

/* The value 0..15 of hex digit c (either case), or -1 when c is not one. */
static inline int hex_digit(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

#endif
