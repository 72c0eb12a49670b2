/*
 * fuzz_trino_request.c: libFuzzer target for the untrusted request data of the Trino HTTP server:
 * X-Trino-* header decoding (trino_request_header: X-Trino-Session and -Prepared-Statement
 * name=value lists with %-escapes, single-valued headers), URL decoding, Basic credentials
 * (auth_basic_decode), base64 (base64_decode) and peer addresses (auth_peer_is_loopback).
 *
 * Input: lines "Header-Name: value"; a line without ':' is fed to the decoders directly. Every
 * call must return cleanly (an error is fine) without leaks or undefined behaviour, and decoded
 * session entries must have a non-empty name without NUL bytes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "server/core/auth.h"
#include "common/base64.h"
#include "server/trino/trino_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > 1 << 16) return 0;
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = 0;
    trino_request req;
    memset(&req, 0, sizeof req);
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *colon = strchr(line, ':');
        sqe_error err;
        if (colon) {
            *colon = 0;
            const char *value = colon + 1;
            while (*value == ' ') value++;
            trino_request_header(&req, line, value, &err);
            continue;
        }
        char *dec = trino_url_decode(line, strlen(line));
        free(dec);
        char *u = NULL, *p = NULL;
        if (auth_basic_decode(line, &u, &p, &err) == SQE_OK) {
            if (!u || !p) abort();
            free(u);
            free(p);
        }
        unsigned char buf[256];
        long n = base64_decode(line, strlen(line), line[0] & 1, buf, sizeof buf);
        if (n > (long)sizeof buf) abort();
        (void)auth_peer_is_loopback(line);
        (void)auth_user_name_valid(line);
    }
    for (uint32_t i = 0; i < req.n_session; i++)
        if (!req.session[i].name || !req.session[i].name[0]) abort();
    trino_request_reset(&req);
    free(text);
    return 0;
}
