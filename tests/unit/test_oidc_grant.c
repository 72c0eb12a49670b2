/*
 * test_oidc_grant.c: the offline parts of the OAuth grants (src/auth/oidc_grant.c): PKCE S256
 * against RFC 7636 Appendix B, random verifiers and states, RFC 3986 form encoding, the
 * client_secret_basic header (RFC 6749 2.3.1), token response parsing (expiry arithmetic,
 * missing and wrongly typed members, bounded size), client configuration refusals, an
 * unreachable endpoint, and the offline refusals of the REST catalog's token exchanger
 * (catalog/rest/rest_exchange.h). The grants against a real identity provider: tests/auth/test_oidc_grant.py.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "auth/oidc_grant.h"
#include "catalog/rest/rest_exchange.h"
#include "common/base64.h"

#define NOW 1700000000000LL

static void test_pkce_rfc7636_example(void **state) {
    (void)state;
    sqe_error err = {0};
    char ch[64];
    assert_int_equal(oidc_pkce_challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk", ch, &err),
                     SQE_OK);
    /* RFC 7636 Appendix B (also Python's hashlib + urlsafe_b64encode) */
    assert_string_equal(ch, "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
    /* too short, too long, a character outside the unreserved set */
    assert_int_equal(oidc_pkce_challenge("short", ch, &err), SQE_ERR_INVALID_ARGUMENTS);
    char long_v[130];
    memset(long_v, 'a', 129);
    long_v[129] = '\0';
    assert_int_equal(oidc_pkce_challenge(long_v, ch, &err), SQE_ERR_INVALID_ARGUMENTS);
    long_v[128] = '\0';
    assert_int_equal(oidc_pkce_challenge(long_v, ch, &err), SQE_OK);
    assert_int_equal(oidc_pkce_challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjX+", ch, &err),
                     SQE_ERR_INVALID_ARGUMENTS);
}

static void test_pkce_new_and_state(void **state) {
    (void)state;
    sqe_error err = {0};
    oidc_pkce a, b;
    assert_int_equal(oidc_pkce_new(&a, &err), SQE_OK);
    assert_int_equal(oidc_pkce_new(&b, &err), SQE_OK);
    assert_int_equal(strlen(a.verifier), 43);
    assert_int_equal(strlen(a.challenge), 43);
    assert_string_not_equal(a.verifier, b.verifier);
    for (const char *p = a.verifier; *p; p++) assert_true(base64_digit(*p, true) >= 0);
    char ch[64];
    assert_int_equal(oidc_pkce_challenge(a.verifier, ch, &err), SQE_OK);
    assert_string_equal(ch, a.challenge);

    char s1[33], s2[33];
    assert_int_equal(oidc_random_state(s1, sizeof s1, &err), SQE_OK);
    assert_int_equal(oidc_random_state(s2, sizeof s2, &err), SQE_OK);
    assert_int_equal(strlen(s1), 32);
    assert_string_not_equal(s1, s2);
    for (const char *p = s1; *p; p++) assert_true(base64_digit(*p, true) >= 0);
    char tiny[16];
    assert_int_equal(oidc_random_state(tiny, sizeof tiny, &err), SQE_ERR_INVALID_ARGUMENTS);
}

static void test_form_encoding(void **state) {
    (void)state;
    strbuf sb;
    strbuf_init(&sb);
    oidc_form_add(&sb, "grant_type", "password");
    oidc_form_add(&sb, "username", "al ice+x@example.com");
    oidc_form_add(&sb, "password", "p&ss=w/rd%?#~._-\xc3\xa9");
    oidc_form_add(&sb, "scope", "openid profile");
    oidc_form_add(&sb, "empty", "");
    assert_false(sb.failed);
    assert_string_equal(strbuf_cstr(&sb),
                        "grant_type=password&username=al%20ice%2Bx%40example.com"
                        "&password=p%26ss%3Dw%2Frd%25%3F%23~._-%C3%A9"
                        "&scope=openid%20profile&empty=");
    strbuf_reset(&sb);
}

static void test_basic_credentials(void **state) {
    (void)state;
    strbuf sb;
    strbuf_init(&sb);
    oidc_basic_credentials(&sb, "sqe", "sqe-test-secret");
    assert_false(sb.failed);
    assert_string_equal(strbuf_cstr(&sb), "Basic c3FlOnNxZS10ZXN0LXNlY3JldA=="); /* sqe:sqe-test-secret */
    strbuf_reset(&sb);
    /* id and secret form-urlencoded first: "a:b" "p w" -> "a%3Ab:p%20w" */
    oidc_basic_credentials(&sb, "a:b", "p w");
    assert_false(sb.failed);
    const char *b64 = strbuf_cstr(&sb) + 6;
    unsigned char raw[64];
    long n = base64_decode(b64, strlen(b64), false, raw, sizeof raw);
    assert_true(n > 0);
    raw[n] = '\0';
    assert_string_equal((char *)raw, "a%3Ab:p%20w");
    strbuf_reset(&sb);
}

static int parse(const char *body, oidc_tokens *t, sqe_error *err) {
    return oidc_tokens_parse(body, strlen(body), NOW, "test endpoint", t, err);
}

static void test_tokens_parse(void **state) {
    (void)state;
    sqe_error err = {0};
    oidc_tokens t;
    assert_int_equal(parse("{\"access_token\":\"at\",\"token_type\":\"Bearer\",\"expires_in\":300,"
                           "\"refresh_token\":\"rt\",\"refresh_expires_in\":1800,\"id_token\":\"it\","
                           "\"scope\":\"openid email\",\"not-before-policy\":0,"
                           "\"issued_token_type\":\"urn:ietf:params:oauth:token-type:access_token\"}",
                           &t, &err),
                     SQE_OK);
    assert_string_equal(t.access_token, "at");
    assert_string_equal(t.token_type, "Bearer");
    assert_string_equal(t.refresh_token, "rt");
    assert_string_equal(t.id_token, "it");
    assert_string_equal(t.scope, "openid email");
    assert_string_equal(t.issued_token_type, "urn:ietf:params:oauth:token-type:access_token");
    assert_int_equal(t.expires_at_ms, NOW + 300000);
    assert_int_equal(t.refresh_expires_at_ms, NOW + 1800000);
    oidc_tokens_clear(&t);
    assert_null(t.access_token);

    /* minimal: no expiry given is 0; null members are absent */
    assert_int_equal(parse("{\"access_token\":\"x\",\"refresh_token\":null,\"expires_in\":null}", &t,
                           &err),
                     SQE_OK);
    assert_int_equal(t.expires_at_ms, 0);
    assert_null(t.refresh_token);
    assert_null(t.token_type);
    oidc_tokens_clear(&t);
    oidc_tokens_clear(NULL);
}

static void expect_refused(const char *body, const char *why) {
    sqe_error err = {0};
    oidc_tokens t;
    memset(&t, 0x5a, sizeof t);
    assert_int_equal(parse(body, &t, &err), SQE_ERR_IO_ERROR);
    assert_non_null(strstr(err.message, "test endpoint answered with an invalid token response"));
    if (!strstr(err.message, why)) fail_msg("\"%s\" does not say \"%s\"", err.message, why);
    assert_null(t.access_token);
    assert_null(t.refresh_token);
    assert_int_equal(t.expires_at_ms, 0);
}

static void test_tokens_refused(void **state) {
    (void)state;
    expect_refused("{\"token_type\":\"Bearer\",\"expires_in\":300}", "no access_token");
    expect_refused("{\"access_token\":\"\"}", "no access_token");
    expect_refused("{\"access_token\":null}", "no access_token");
    expect_refused("{\"access_token\":42}", "access_token is not a string");
    expect_refused("{\"access_token\":\"a\",\"refresh_token\":[]}", "refresh_token is not a string");
    expect_refused("{\"access_token\":\"a\",\"token_type\":true}", "token_type is not a string");
    expect_refused("{\"access_token\":\"a\",\"expires_in\":\"300\"}", "expires_in");
    expect_refused("{\"access_token\":\"a\",\"expires_in\":300.5}", "expires_in");
    expect_refused("{\"access_token\":\"a\",\"expires_in\":-1}", "expires_in");
    expect_refused("{\"access_token\":\"a\",\"expires_in\":99999999999}", "expires_in");
    expect_refused("{\"access_token\":\"a\",\"refresh_expires_in\":{}}", "refresh_expires_in");
    expect_refused("{\"access_token\":\"a\",\"access_token\":\"b\"}", "not JSON");
    expect_refused("{\"access_token\":\"a\\u0000b\"}", "not JSON");
    expect_refused("[\"access_token\"]", "not a JSON object");
    expect_refused("access_token=a", "not JSON");
    expect_refused("", "not JSON");

    /* a body over the bound is refused before parsing, even when it is a valid response */
    size_t n = OIDC_GRANT_MAX_RESPONSE + 64;
    char *big = malloc(n + 1);
    int k = snprintf(big, n + 1, "{\"access_token\":\"");
    memset(big + k, 'a', n - (size_t)k - 2);
    memcpy(big + n - 2, "\"}", 3);
    expect_refused(big, "larger than 64 KiB");
    free(big);
}

static void test_client_config(void **state) {
    (void)state;
    sqe_error err = {0};
    oidc_grant_client *c = (oidc_grant_client *)1;
    oidc_grant_config cfg = {.client_id = "sqe"};
    assert_int_equal(oidc_grant_client_create(&cfg, &c, &err), SQE_ERR_INVALID_ARGUMENTS);
    assert_null(c);
    cfg.token_endpoint = "ftp://idp/token";
    assert_int_equal(oidc_grant_client_create(&cfg, &c, &err), SQE_ERR_INVALID_ARGUMENTS);
    cfg.token_endpoint = "http://127.0.0.1:1/token";
    cfg.client_id = "";
    assert_int_equal(oidc_grant_client_create(&cfg, &c, &err), SQE_ERR_INVALID_ARGUMENTS);
    cfg.client_id = "sqe";
    cfg.client_secret = "s3cret";
    cfg.timeout_ms = 2000;
    assert_int_equal(oidc_grant_client_create(&cfg, &c, &err), SQE_OK);
    oidc_tokens t;
    /* argument checks happen before any request */
    assert_int_equal(oidc_grant_password(c, "", "pw", &t, &err), SQE_ERR_INVALID_ARGUMENTS);
    assert_int_equal(oidc_grant_refresh(c, NULL, &t, &err), SQE_ERR_INVALID_ARGUMENTS);
    assert_int_equal(oidc_grant_exchange(c, "", "aud", &t, &err), SQE_ERR_INVALID_ARGUMENTS);
    assert_int_equal(oidc_grant_client_credentials(c, "id", "", &t, &err),
                     SQE_ERR_INVALID_ARGUMENTS);
    /* port 1 on loopback: nothing listens; IO_ERROR naming the endpoint, never the password */
    assert_int_equal(oidc_grant_password(c, "alice", "hunter2", &t, &err), SQE_ERR_IO_ERROR);
    assert_non_null(strstr(err.message, "http://127.0.0.1:1/token"));
    assert_null(strstr(err.message, "hunter2"));
    assert_null(t.access_token);
    assert_string_equal(t.error, "");
    oidc_grant_client_destroy(c);
    oidc_grant_client_destroy(NULL);
}

static void test_rest_exchange_refusals(void **state) {
    (void)state;
    sqe_error err = {0};
    rest_exchange *x = NULL;
    rest_exchange_config xc = {.issuer = "http://127.0.0.1:1/realms/sqe", .client_id = "sqe"};
    assert_int_equal(rest_exchange_create(&xc, &x, &err), SQE_ERR_INVALID_ARGUMENTS);
    assert_null(x);
    xc.audience = "catalog";
    xc.timeout_ms = 2000;
    assert_int_equal(rest_exchange_create(&xc, &x, &err), SQE_OK);
    assert_string_equal(rest_exchange_audience(x), "catalog");
    char *tok = (char *)1;
    /* no subject token: refused before any request */
    assert_int_equal(rest_exchange_token(x, NULL, 0, false, &tok, &err), SQE_ERR_UNAUTHENTICATED);
    assert_null(tok);
    assert_non_null(strstr(err.message, "audience catalog"));
    /* a plain-http identity provider without allow_insecure_http: refused before any request */
    assert_int_equal(rest_exchange_token(x, "subject-token-value", 0, false, &tok, &err),
                     SQE_ERR_IO_ERROR);
    assert_non_null(strstr(err.message, "not https"));
    rest_exchange_destroy(x);
    x = NULL;
    xc.allow_insecure_http = true;
    assert_int_equal(rest_exchange_create(&xc, &x, &err), SQE_OK);
    /* nobody on port 1: discovery fails with IO_ERROR naming the discovery URL, not the token */
    assert_int_equal(rest_exchange_token(x, "subject-token-value", 0, false, &tok, &err),
                     SQE_ERR_IO_ERROR);
    assert_null(tok);
    assert_non_null(strstr(err.message, "/realms/sqe/.well-known/openid-configuration"));
    assert_null(strstr(err.message, "subject-token-value"));
    rest_exchange_destroy(x);
    rest_exchange_destroy(NULL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pkce_rfc7636_example), cmocka_unit_test(test_pkce_new_and_state),
        cmocka_unit_test(test_form_encoding),        cmocka_unit_test(test_basic_credentials),
        cmocka_unit_test(test_tokens_parse),         cmocka_unit_test(test_tokens_refused),
        cmocka_unit_test(test_client_config),        cmocka_unit_test(test_rest_exchange_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
