/*
 * oidc_grant_driver.c: runs one OAuth grant (src/auth/oidc_grant.h) from argv against a real
 * token endpoint, for tests/auth/test_oidc_grant.py.
 *
 * Usage: oidc_grant_driver TOKEN_ENDPOINT CLIENT_ID CLIENT_SECRET|- GRANT ARGS...
 *   password USER PASSWORD | client_credentials ID SECRET | refresh REFRESH_TOKEN |
 *   exchange SUBJECT_TOKEN AUDIENCE|- | authorization_code CODE REDIRECT_URI VERIFIER |
 *   pkce VERIFIER (prints the S256 challenge; no request)
 * Output: one JSON object on stdout: {"ok": true, "access_token": ..., "refresh_token": ...,
 * "id_token": ..., "token_type": ..., "scope": ..., "issued_token_type": ...,
 * "expires_in_ms": ..., "refresh_expires_in_ms": ...} (tokens included: a test tool) or
 * {"ok": false, "code": "UNAUTHENTICATED", "sqlstate": ..., "message": ..., "error": ...};
 * exit 0 or 1 (2 for a usage error).
 *
 * INTERFACE: main.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "auth/oidc_grant.h"

static int usage(void) {
    fprintf(stderr, "usage: oidc_grant_driver TOKEN_ENDPOINT CLIENT_ID CLIENT_SECRET|- GRANT "
                    "ARGS...\n");
    return 2;
}

static void put_str(json_t *o, const char *k, const char *v) {
    json_object_set_new(o, k, v ? json_string(v) : json_null());
}

static int64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int main(int argc, char **argv) {
    if (argc < 5) return usage();
    const char *grant = argv[4];
    int n = argc - 5;
    char **a = argv + 5;
    sqe_error err = {0};
    json_t *o = json_object();
    int rc;
    if (!strcmp(grant, "pkce")) {
        if (n != 1) return usage();
        char ch[64];
        rc = oidc_pkce_challenge(a[0], ch, &err);
        if (!rc) put_str(o, "challenge", ch);
    } else {
        oidc_grant_config cfg = {.token_endpoint = argv[1], .client_id = argv[2],
                                 .client_secret = strcmp(argv[3], "-") ? argv[3] : NULL,
                                 .scope = "openid", .timeout_ms = 20000};
        oidc_grant_client *c = NULL;
        oidc_tokens t = {0};
        rc = oidc_grant_client_create(&cfg, &c, &err);
        if (!rc) {
            if (!strcmp(grant, "password") && n == 2)
                rc = oidc_grant_password(c, a[0], a[1], &t, &err);
            else if (!strcmp(grant, "client_credentials") && n == 2)
                rc = oidc_grant_client_credentials(c, a[0], a[1], &t, &err);
            else if (!strcmp(grant, "refresh") && n == 1)
                rc = oidc_grant_refresh(c, a[0], &t, &err);
            else if (!strcmp(grant, "exchange") && n == 2)
                rc = oidc_grant_exchange(c, a[0], strcmp(a[1], "-") ? a[1] : NULL, &t, &err);
            else if (!strcmp(grant, "authorization_code") && n == 3)
                rc = oidc_grant_authorization_code(c, a[0], a[1], a[2], &t, &err);
            else {
                oidc_grant_client_destroy(c);
                json_decref(o);
                return usage();
            }
        }
        int64_t now = now_ms();
        if (!rc) {
            put_str(o, "access_token", t.access_token);
            put_str(o, "refresh_token", t.refresh_token);
            put_str(o, "id_token", t.id_token);
            put_str(o, "token_type", t.token_type);
            put_str(o, "scope", t.scope);
            put_str(o, "issued_token_type", t.issued_token_type);
            json_object_set_new(o, "expires_in_ms",
                                json_integer(t.expires_at_ms ? t.expires_at_ms - now : 0));
            json_object_set_new(o, "refresh_expires_in_ms",
                                json_integer(t.refresh_expires_at_ms ? t.refresh_expires_at_ms - now
                                                                     : 0));
        } else {
            put_str(o, "error", t.error[0] ? t.error : NULL);
        }
        oidc_tokens_clear(&t);
        oidc_grant_client_destroy(c);
    }
    json_object_set_new(o, "ok", json_boolean(rc == SQE_OK));
    if (rc) {
        put_str(o, "code", err_code_lookup(err.code)->name);
        put_str(o, "sqlstate", err.sqlstate);
        put_str(o, "message", err.message);
    }
    char *text = json_dumps(o, JSON_SORT_KEYS);
    puts(text);
    free(text);
    json_decref(o);
    return rc ? 1 : 0;
}
