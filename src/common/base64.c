/*
 * base64.c: base64 and base64url encoding and strict decoding (see base64.h).
 *
 * INTERFACE: base64_encoded_len, base64_encode, base64_digit, base64_decode.
 * NOTES: the decoder is strict (no whitespace, no characters of the other alphabet, unused low
 * bits of the last group must be zero) because its inputs are secrets from clients or files an
 * operator edits, and a lenient decoder would accept two spellings of one secret.
 */
#include "common/base64.h"

static const char std_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
static const char url_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

size_t base64_encoded_len(size_t n, bool pad) {
    return pad ? (n + 2) / 3 * 4 : (n / 3) * 4 + (n % 3 ? n % 3 + 1 : 0);
}

size_t base64_encode(const unsigned char *in, size_t n, bool url, bool pad, char *out) {
    const char *a = url ? url_alphabet : std_alphabet;
    size_t o = 0, i = 0;
    for (; i + 3 <= n; i += 3) {
        unsigned v = (unsigned)in[i] << 16 | (unsigned)in[i + 1] << 8 | in[i + 2];
        out[o++] = a[v >> 18];
        out[o++] = a[(v >> 12) & 63];
        out[o++] = a[(v >> 6) & 63];
        out[o++] = a[v & 63];
    }
    if (n - i == 1) {
        unsigned v = (unsigned)in[i] << 16;
        out[o++] = a[v >> 18];
        out[o++] = a[(v >> 12) & 63];
        if (pad) {
            out[o++] = '=';
            out[o++] = '=';
        }
    } else if (n - i == 2) {
        unsigned v = (unsigned)in[i] << 16 | (unsigned)in[i + 1] << 8;
        out[o++] = a[v >> 18];
        out[o++] = a[(v >> 12) & 63];
        out[o++] = a[(v >> 6) & 63];
        if (pad) out[o++] = '=';
    }
    out[o] = 0;
    return o;
}

int base64_digit(char c, bool url) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == (url ? '-' : '+')) return 62;
    if (c == (url ? '_' : '/')) return 63;
    return -1;
}

long base64_decode(const char *text, size_t len, bool url, unsigned char *out, size_t cap) {
    if (!url) {
        /* padding: only at the end, making the length a multiple of 4 */
        size_t pad = 0;
        while (pad < 2 && len > pad && text[len - 1 - pad] == '=') pad++;
        if (pad && len % 4) return -1;
        len -= pad;
    }
    if (len % 4 == 1) return -1;
    size_t o = 0;
    unsigned acc = 0;
    int bits = 0;
    for (size_t i = 0; i < len; i++) {
        int d = base64_digit(text[i], url);
        if (d < 0) return -1;
        acc = (acc << 6 | (unsigned)d) & 0xffffff;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            if (o >= cap) return -1;
            out[o++] = (unsigned char)(acc >> bits);
        }
    }
    if (bits && (acc & ((1u << bits) - 1))) return -1; /* non-canonical trailing bits */
    return (long)o;
}
