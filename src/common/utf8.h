/*
 * utf8.h: UTF-8 validation (RFC 3629: no overlong forms, no surrogates, nothing above
 * U+10FFFF), for every text that comes from outside: SQL statements, CSV and TOML files.
 */
#ifndef SQE_COMMON_UTF8_H
#define SQE_COMMON_UTF8_H

#include <stddef.h>

/* The length of the longest valid UTF-8 prefix of s[0..len): len when all of it is valid,
 * otherwise the offset of the first byte of the first invalid or truncated sequence. */
size_t utf8_valid_prefix(const char *s, size_t len);

#endif
