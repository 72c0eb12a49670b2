/*
 * base64.h: base64 (RFC 4648 section 4) and base64url (section 5): encoding with or without
 * padding, and a strict decoder for secrets and tokens (server core: password hashes, bearer
 * tokens, Basic credentials). The SQL functions to_base64/from_base64 use the encoder and
 * base64_digit.
 */
#ifndef SQE_COMMON_BASE64_H
#define SQE_COMMON_BASE64_H

#include <stdbool.h>
#include <stddef.h>

/* Length of the encoding of n bytes (without the terminating NUL). */
size_t base64_encoded_len(size_t n, bool pad);

/* Encodes n bytes into out (room for base64_encoded_len(n, pad) + 1 bytes), NUL-terminated.
 * url selects the URL alphabet; pad appends '=' to a multiple of 4. Returns the text length. */
size_t base64_encode(const unsigned char *in, size_t n, bool url, bool pad, char *out);

/* The value 0..63 of character c in the alphabet, or -1. */
int base64_digit(char c, bool url);

/* Strict decoding of text (len bytes; the standard alphabet with optional padding, or the URL
 * alphabet without it when url) into out, which has room for cap bytes. Returns the decoded
 * length, or -1 for a character outside the alphabet, bad padding, a dangling bit group,
 * non-zero unused bits (a second spelling of the same bytes) or more than cap bytes. */
long base64_decode(const char *text, size_t len, bool url, unsigned char *out, size_t cap);

#endif
