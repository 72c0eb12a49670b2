/*
 * slt_hash.c: hash results, SQLite's `N values hashing to <md5>`.
 *
 * SQLite's sqllogictest replaces a result of more values than the hash threshold by its value
 * count and the MD5 of the values (after the record's sorting), each value's text followed by a
 * newline. The runner compares such a record by hashing the actual values the same way.
 *
 * INTERFACE: slt_hash_values, slt_hash_line_parse.
 * NOTES: MD5 through OpenSSL's EVP interface (libcrypto; the low-level MD5_* calls are deprecated).
 */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "slt.h"

void slt_hash_values(const char *const *values, size_t n, char hex[33]) {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int digest_len = 0;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    if (!ctx || EVP_DigestInit_ex(ctx, EVP_md5(), NULL) != 1) {
        fprintf(stderr, "slt_runner: cannot start an MD5 digest\n");
        exit(2);
    }
    for (size_t i = 0; i < n; i++) {
        EVP_DigestUpdate(ctx, values[i], strlen(values[i]));
        EVP_DigestUpdate(ctx, "\n", 1);
    }
    EVP_DigestFinal_ex(ctx, digest, &digest_len);
    EVP_MD_CTX_free(ctx);
    for (unsigned int i = 0; i < digest_len && i < 16; i++)
        snprintf(hex + 2 * i, 3, "%02x", digest[i]);
    hex[32] = '\0';
}

int slt_hash_line_parse(const char *line, size_t *n, char hex[33]) {
    static const char middle[] = " values hashing to ";
    const char *p = line;
    if (!isdigit((unsigned char)*p)) return 0;
    size_t count = 0;
    for (; isdigit((unsigned char)*p); p++) {
        if (count > (SIZE_MAX - 9) / 10) return 0;
        count = count * 10 + (size_t)(*p - '0');
    }
    if (strncmp(p, middle, sizeof middle - 1) != 0) return 0;
    p += sizeof middle - 1;
    for (int i = 0; i < 32; i++, p++) {
        if (!isxdigit((unsigned char)*p)) return 0;
        hex[i] = (char)tolower((unsigned char)*p);
    }
    hex[32] = '\0';
    if (*p) return 0;
    *n = count;
    return 1;
}
