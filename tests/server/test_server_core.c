/*
 * test_server_core.c: unit tests of the server core (src/server/core): base64, password hashes
 * and the users file, the authentication chain (anonymous on loopback, Basic, rate limiting,
 * reload), the session store (tokens, timeouts, max_sessions, file persistence) and the limits.
 *
 * Built by tests/server/run_server_tests.sh with ASan/UBSan from src/server/core, src/server
 * and src/common only; cmocka.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/base64.h"
#include "server/core/auth.h"
#include "server/core/limits.h"
#include "server/core/session_store.h"

static char tmpdir[256];

static void write_file(const char *path, const char *text) {
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
}

static char *basic(const char *user, const char *password) {
    char raw[512], *out = malloc(1024);
    snprintf(raw, sizeof raw, "%s:%s", user, password);
    strcpy(out, "Basic ");
    base64_encode((const unsigned char *)raw, strlen(raw), false, true, out + 6);
    return out;
}

/* --- base64 ---------------------------------------------------------------------------------- */

static void test_b64(void **state) {
    (void)state;
    /* RFC 4648 §10 vectors */
    const char *in[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
    const char *std[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
    const char *url[] = {"", "Zg", "Zm8", "Zm9v", "Zm9vYg", "Zm9vYmE", "Zm9vYmFy"};
    for (int i = 0; i < 7; i++) {
        char buf[32];
        unsigned char dec[32];
        base64_encode((const unsigned char *)in[i], strlen(in[i]), false, true, buf);
        assert_string_equal(buf, std[i]);
        base64_encode((const unsigned char *)in[i], strlen(in[i]), true, false, buf);
        assert_string_equal(buf, url[i]);
        assert_int_equal(base64_encoded_len(strlen(in[i]), false), strlen(url[i]));
        long n = base64_decode(std[i], strlen(std[i]), false, dec, sizeof dec);
        assert_int_equal(n, (long)strlen(in[i]));
        assert_memory_equal(dec, in[i], (size_t)n);
        n = base64_decode(url[i], strlen(url[i]), true, dec, sizeof dec);
        assert_int_equal(n, (long)strlen(in[i]));
    }
    unsigned char dec[8];
    assert_int_equal(base64_decode("Zg=", 3, false, dec, 8), -1);   /* bad padding */
    assert_int_equal(base64_decode("Zh==", 4, false, dec, 8), -1);  /* non-canonical bits */
    assert_int_equal(base64_decode("Z", 1, false, dec, 8), -1);     /* dangling group */
    assert_int_equal(base64_decode("Zm9v", 4, false, dec, 2), -1);  /* too long for cap */
    assert_int_equal(base64_decode("Zm-v", 4, false, dec, 8), -1);  /* url char in std */
    assert_int_equal(base64_decode("Zm+v", 4, true, dec, 8), -1);  /* std char in url */
    assert_int_equal(base64_decode("Zm 9", 4, false, dec, 8), -1);
}

/* --- password hashes and the users file --------------------------------------------------------- */

static void test_hash_verify(void **state) {
    (void)state;
    char *h1 = NULL, *h2 = NULL;
    assert_int_equal(auth_password_hash("s3cret", 1000, &h1, NULL), SQE_OK);
    assert_int_equal(auth_password_hash("s3cret", 1000, &h2, NULL), SQE_OK);
    assert_true(strncmp(h1, "$pbkdf2-sha256$1000$", 20) == 0);
    assert_string_not_equal(h1, h2); /* random salt */
    bool ok = false;
    assert_int_equal(auth_password_verify(h1, "s3cret", &ok, NULL), SQE_OK);
    assert_true(ok);
    assert_int_equal(auth_password_verify(h1, "s3creT", &ok, NULL), SQE_OK);
    assert_false(ok);
    assert_int_equal(auth_password_verify(h2, "", &ok, NULL), SQE_OK);
    assert_false(ok);
    sqe_error e;
    assert_int_not_equal(auth_password_verify("$md5$abc", "x", &ok, &e), SQE_OK);
    assert_int_not_equal(auth_password_verify("$pbkdf2-sha256$10$AAAAAAAAAAA=$AAAA", "x", &ok, &e),
                         SQE_OK); /* too few iterations */
    assert_int_not_equal(auth_password_hash("x", 5, &h1 /* untouched */, &e), SQE_OK);
    free(h1);
    free(h2);
}

static void test_basic_decode(void **state) {
    (void)state;
    char *u = NULL, *p = NULL;
    char *h = basic("alice", "pa:ss word");
    assert_int_equal(auth_basic_decode(h, &u, &p, NULL), SQE_OK);
    assert_string_equal(u, "alice");
    assert_string_equal(p, "pa:ss word"); /* only the first ':' separates */
    free(u);
    free(p);
    free(h);
    assert_int_not_equal(auth_basic_decode("Bearer abc", &u, &p, NULL), SQE_OK);
    assert_int_not_equal(auth_basic_decode("Basic !!!", &u, &p, NULL), SQE_OK);
    assert_int_not_equal(auth_basic_decode("Basic Zm9v", &u, &p, NULL), SQE_OK); /* no ':' */
    assert_int_not_equal(auth_basic_decode("Basic ", &u, &p, NULL), SQE_OK);
}

static void test_loopback(void **state) {
    (void)state;
    assert_true(auth_peer_is_loopback("127.0.0.1:5000"));
    assert_true(auth_peer_is_loopback("127.9.8.7:1"));
    assert_true(auth_peer_is_loopback("[::1]:80"));
    assert_true(auth_peer_is_loopback("::1"));
    assert_true(auth_peer_is_loopback("[::ffff:127.0.0.1]:9"));
    assert_false(auth_peer_is_loopback("10.0.0.1:5000"));
    assert_false(auth_peer_is_loopback("[::ffff:10.0.0.1]:9"));
    assert_false(auth_peer_is_loopback("[fe80::1]:9"));
    assert_false(auth_peer_is_loopback("garbage"));
    assert_false(auth_peer_is_loopback(NULL));
}

static void users_file(const char *path, const char *user, const char *password) {
    char *h = NULL;
    assert_int_equal(auth_password_hash(password, 1000, &h, NULL), SQE_OK);
    FILE *fp = fopen(path, "a");
    fprintf(fp, "%s:%s\n", user, h);
    fclose(fp);
    free(h);
}

static void test_users_file_errors(void **state) {
    (void)state;
    char path[300];
    snprintf(path, sizeof path, "%s/bad-users", tmpdir);
    auth_provider p;
    sqe_error e;
    write_file(path, "# comment\n\nalice\n");
    assert_int_not_equal(auth_password_provider(path, &p, &e), SQE_OK);
    assert_non_null(strstr(e.message, ":3:"));
    write_file(path, "alice:$pbkdf2-sha256$1000$AAAAAAAAAAAAAAAAAAAAAA==$notbase64!\n");
    assert_int_not_equal(auth_password_provider(path, &p, &e), SQE_OK);
    assert_non_null(strstr(e.message, ":1: user 'alice'"));
    unlink(path);
    users_file(path, "bob", "x");
    users_file(path, "bob", "y");
    assert_int_not_equal(auth_password_provider(path, &p, &e), SQE_OK);
    assert_non_null(strstr(e.message, "listed twice"));
    assert_int_not_equal(auth_password_provider("/nonexistent/users", &p, &e), SQE_OK);
    assert_int_equal(e.code, SQE_ERR_IO_ERROR);
    unlink(path);
}

static int authn(auth_chain *c, const char *authz, const char *user, const char *peer,
                 char **principal, sqe_error *e) {
    auth_request r = {.authorization = authz, .user = user, .peer = peer};
    return auth_chain_authenticate(c, &r, principal, e);
}

static void test_chain_password(void **state) {
    (void)state;
    char path[300];
    snprintf(path, sizeof path, "%s/users", tmpdir);
    unlink(path);
    users_file(path, "alice", "wonderland");
    auth_chain *c = NULL;
    auth_provider p;
    assert_int_equal(auth_chain_create(&c, NULL), SQE_OK);
    assert_int_equal(auth_password_provider(path, &p, NULL), SQE_OK);
    assert_int_equal(auth_chain_add(c, &p, NULL), SQE_OK);
    char *who = NULL;
    sqe_error e;
    char *good = basic("alice", "wonderland"), *bad = basic("alice", "nope");
    char *ghost = basic("ghost", "wonderland");
    assert_int_equal(authn(c, good, "alice", "10.1.1.1:1", &who, &e), SQE_OK);
    assert_string_equal(who, "alice");
    free(who);
    who = NULL;
    /* cached verification gives the same answer */
    assert_int_equal(authn(c, good, NULL, "10.1.1.1:2", &who, &e), SQE_OK);
    free(who);
    who = NULL;
    assert_int_equal(authn(c, bad, "alice", "10.1.1.2:1", &who, &e), AUTH_ERR_UNAUTHENTICATED);
    assert_null(who);
    assert_null(strstr(e.message, "nope"));
    assert_int_equal(authn(c, ghost, NULL, "10.1.1.3:1", &who, &e), AUTH_ERR_UNAUTHENTICATED);
    /* no credentials: nobody accepts */
    assert_int_equal(authn(c, NULL, "alice", "127.0.0.1:1", &who, &e), AUTH_ERR_UNAUTHENTICATED);
    assert_non_null(strstr(e.message, "required"));
    /* impersonation: the claimed user must be the authenticated one */
    assert_int_equal(authn(c, good, "bob", "10.1.1.1:1", &who, &e), AUTH_ERR_UNAUTHENTICATED);

    /* rate limiting: after 3 failures from one peer, even the right password is refused for a
     * while; another peer is not affected */
    for (int i = 0; i < 3; i++)
        assert_int_equal(authn(c, bad, NULL, "10.9.9.9:1", &who, &e), AUTH_ERR_UNAUTHENTICATED);
    assert_int_equal(authn(c, good, NULL, "10.9.9.9:7", &who, &e), AUTH_ERR_UNAUTHENTICATED);
    assert_non_null(strstr(e.message, "Too many failed"));
    assert_int_equal(authn(c, good, NULL, "10.9.9.8:1", &who, &e), SQE_OK);
    free(who);
    who = NULL;
    usleep(400 * 1000); /* the first backoff is 250 ms */
    assert_int_equal(authn(c, good, NULL, "10.9.9.9:1", &who, &e), SQE_OK);
    free(who);
    who = NULL;

    /* per address, whatever the user name: 20 failures with 20 different names from one
     * address, then even a right password from it is refused; other addresses are not */
    for (int i = 0; i < 20; i++) {
        char name[32];
        snprintf(name, sizeof name, "spray%d", i);
        char *spray = basic(name, "guess");
        assert_int_equal(authn(c, spray, NULL, "10.7.7.7:1", &who, &e), AUTH_ERR_UNAUTHENTICATED);
        assert_null(strstr(e.message, "Too many"));
        free(spray);
    }
    assert_int_equal(authn(c, good, NULL, "10.7.7.7:2", &who, &e), AUTH_ERR_UNAUTHENTICATED);
    assert_non_null(strstr(e.message, "from this address"));
    assert_int_equal(authn(c, good, NULL, "10.7.7.8:2", &who, &e), SQE_OK);
    free(who);
    who = NULL;

    /* reload: a user appended to the file works without a restart */
    sleep(1); /* a new mtime second on coarse file systems */
    users_file(path, "bob", "builder");
    char *b = basic("bob", "builder");
    assert_int_equal(authn(c, b, NULL, "10.1.1.5:1", &who, &e), SQE_OK);
    assert_string_equal(who, "bob");
    free(who);
    who = NULL;
    /* a broken file keeps the last good users */
    write_file(path, "this is not a users file\n");
    assert_int_equal(authn(c, b, NULL, "10.1.1.5:1", &who, &e), SQE_OK);
    free(who);
    free(b);
    free(good);
    free(bad);
    free(ghost);
    auth_chain_destroy(c);
    unlink(path);
}

/* The hash gate: with one place and no wait, a second check while one runs is refused as busy
 * (QUERY_QUEUE_FULL, not counted as a failure); afterwards checks run again. */
typedef struct slow_login {
    auth_chain *chain;
    const char *authz;
    int rc;
} slow_login;

static void *slow_login_run(void *arg) {
    slow_login *sl = arg;
    char *who = NULL;
    sqe_error e;
    auth_request r = {.authorization = sl->authz, .peer = "10.3.3.3:1"};
    sl->rc = auth_chain_authenticate(sl->chain, &r, &who, &e);
    free(who);
    return NULL;
}

static bool always_gone(void *ctx) {
    (void)ctx;
    return true;
}

static void test_hash_gate(void **state) {
    (void)state;
    char path[300];
    snprintf(path, sizeof path, "%s/gate-users", tmpdir);
    unlink(path);
    char *h = NULL;
    assert_int_equal(auth_password_hash("slow", 3000000, &h, NULL), SQE_OK); /* ~1 s */
    FILE *fp = fopen(path, "w");
    fprintf(fp, "slow:%s\n", h);
    fclose(fp);
    free(h);
    auth_chain *c = NULL;
    auth_provider p;
    auth_password_options o;
    auth_password_options_init(&o);
    o.max_concurrent = 1;
    o.wait_ms = 0;
    assert_int_equal(auth_chain_create(&c, NULL), SQE_OK);
    assert_int_equal(auth_password_provider_opts(path, &o, &p, NULL), SQE_OK);
    assert_int_equal(auth_chain_add(c, &p, NULL), SQE_OK);
    char *wrong = basic("slow", "wrong");
    slow_login sl = {c, wrong, -1};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, slow_login_run, &sl), 0);
    usleep(200 * 1000); /* the first check is running */
    char *who = NULL;
    sqe_error e;
    char *other = basic("slow", "other");
    assert_int_equal(authn(c, other, NULL, "10.4.4.4:1", &who, &e), SQE_ERR_QUERY_QUEUE_FULL);
    assert_non_null(strstr(e.message, "busy"));
    pthread_join(t, NULL);
    assert_int_equal(sl.rc, AUTH_ERR_UNAUTHENTICATED);
    /* the gate is free again, and the busy answer counted nothing against the user */
    assert_int_equal(authn(c, other, NULL, "10.4.4.4:1", &who, &e), AUTH_ERR_UNAUTHENTICATED);
    assert_non_null(strstr(e.message, "Invalid user name or password"));
    /* a client that went away is not checked (no wait, no hash), and its failure counts
     * against its address only */
    sl.rc = -1;
    assert_int_equal(pthread_create(&t, NULL, slow_login_run, &sl), 0);
    usleep(200 * 1000);
    auth_request gone_req = {other, NULL, "10.5.5.5:1", always_gone, NULL};
    assert_int_equal(auth_chain_authenticate(c, &gone_req, &who, &e), SQE_ERR_USER_CANCELED);
    pthread_join(t, NULL);
    free(wrong);
    free(other);
    auth_chain_destroy(c);
    unlink(path);
}

static void test_chain_anonymous(void **state) {
    (void)state;
    auth_chain *c = NULL;
    auth_provider p;
    assert_int_equal(auth_chain_create(&c, NULL), SQE_OK);
    assert_int_equal(auth_anonymous_provider(true, &p, NULL), SQE_OK);
    assert_int_equal(auth_chain_add(c, &p, NULL), SQE_OK);
    char *who = NULL;
    sqe_error e;
    assert_int_equal(authn(c, NULL, "carol", "127.0.0.1:4", &who, &e), SQE_OK);
    assert_string_equal(who, "carol");
    free(who);
    who = NULL;
    assert_int_equal(authn(c, NULL, NULL, "[::1]:4", &who, &e), SQE_OK);
    assert_string_equal(who, "anonymous");
    free(who);
    who = NULL;
    assert_int_equal(authn(c, NULL, "carol", "192.168.1.2:4", &who, &e),
                     AUTH_ERR_UNAUTHENTICATED);
    assert_non_null(strstr(e.message, "loopback"));
    assert_int_equal(authn(c, NULL, "bad\nname", "127.0.0.1:4", &who, &e),
                     AUTH_ERR_UNAUTHENTICATED);
    auth_chain_destroy(c);
}

/* --- sessions ----------------------------------------------------------------------------------- */

static session_store_options store_opts(const char *dir) {
    session_store_options o = {
        .idle_timeout_ms = 60000,
        .absolute_timeout_ms = 3600000,
        .max_sessions = 100,
        .dir = dir,
        .snapshot_interval_ms = 100000,
        .sweep_interval_ms = 100000,
    };
    return o;
}

static void test_sessions(void **state) {
    (void)state;
    session_store_options o = store_opts(NULL);
    session_store *st = NULL;
    assert_int_equal(session_store_create(&o, &st, NULL), SQE_OK);
    char *t1 = NULL, *t2 = NULL, *who = NULL;
    assert_int_equal(session_store_open(st, "alice", &t1, NULL), SQE_OK);
    assert_int_equal(session_store_open(st, "alice", &t2, NULL), SQE_OK);
    assert_int_equal(strlen(t1), 43);
    assert_string_not_equal(t1, t2);
    assert_int_equal(session_store_count(st), 2);
    srv_session_state s;
    memset(&s, 0, sizeof s);
    assert_int_equal(session_store_resolve(st, t1, &who, &s, NULL), SQE_OK);
    assert_string_equal(who, "alice");
    assert_null(s.catalog);
    free(who);
    srv_session_state_clear(&s);
    char *names[] = {"query_max_run_time"}, *values[] = {"5m"};
    char *pn[] = {"p1"}, *ps[] = {"SELECT ?"};
    srv_session_state in = {.catalog = "memory", .schema = "default", .time_zone = "UTC",
                            .n_properties = 1, .property_names = names,
                            .property_values = values, .n_prepared = 1,
                            .prepared_names = pn, .prepared_sql = ps};
    assert_int_equal(session_store_save(st, t1, &in, NULL), SQE_OK);
    assert_int_equal(session_store_resolve(st, t1, &who, &s, NULL), SQE_OK);
    assert_string_equal(s.catalog, "memory");
    assert_string_equal(s.principal, "alice");
    assert_int_equal(s.n_prepared, 1);
    assert_string_equal(s.prepared_sql[0], "SELECT ?");
    assert_string_equal(s.property_values[0], "5m");
    free(who);
    srv_session_state_clear(&s);
    /* unknown and closed tokens */
    sqe_error e;
    assert_int_equal(session_store_resolve(st, "nope", &who, NULL, &e), AUTH_ERR_UNAUTHENTICATED);
    assert_int_equal(session_store_resolve(st, "", &who, NULL, &e), AUTH_ERR_UNAUTHENTICATED);
    session_store_close(st, t2);
    assert_int_equal(session_store_resolve(st, t2, &who, NULL, &e), AUTH_ERR_UNAUTHENTICATED);
    assert_int_equal(session_store_save(st, t2, &in, &e), AUTH_ERR_UNAUTHENTICATED);
    assert_int_equal(session_store_count(st), 1);
    free(t1);
    free(t2);
    session_store_destroy(st);
}

static void test_session_timeouts(void **state) {
    (void)state;
    session_store_options o = store_opts(NULL);
    o.idle_timeout_ms = 300;
    o.absolute_timeout_ms = 900;
    o.max_sessions = 2;
    session_store *st = NULL;
    assert_int_equal(session_store_create(&o, &st, NULL), SQE_OK);
    char *t1 = NULL, *t2 = NULL, *t3 = NULL, *who = NULL;
    sqe_error e;
    assert_int_equal(session_store_open(st, "a", &t1, NULL), SQE_OK);
    assert_int_equal(session_store_open(st, "b", &t2, NULL), SQE_OK);
    assert_int_not_equal(session_store_open(st, "c", &t3, &e), SQE_OK);
    assert_non_null(strstr(e.message, "max_sessions"));
    /* t1 kept alive by use, t2 idles out */
    for (int i = 0; i < 3; i++) {
        usleep(200 * 1000);
        assert_int_equal(session_store_resolve(st, t1, &who, NULL, NULL), SQE_OK);
        free(who);
    }
    assert_int_equal(session_store_resolve(st, t2, &who, NULL, &e), AUTH_ERR_UNAUTHENTICATED);
    /* absolute timeout: t1 dies even though used */
    usleep(400 * 1000);
    assert_int_equal(session_store_resolve(st, t1, &who, NULL, &e), AUTH_ERR_UNAUTHENTICATED);
    session_store_sweep(st);
    assert_int_equal(session_store_count(st), 0);
    assert_int_equal(session_store_open(st, "c", &t3, NULL), SQE_OK);
    free(t1);
    free(t2);
    free(t3);
    session_store_destroy(st);
}

static void test_session_persistence(void **state) {
    (void)state;
    char dir[300], file[400];
    snprintf(dir, sizeof dir, "%s/sessions", tmpdir);
    snprintf(file, sizeof file, "%s/sessions.json", dir);
    session_store_options o = store_opts(dir);
    session_store *st = NULL;
    assert_int_equal(session_store_create(&o, &st, NULL), SQE_OK);
    assert_int_equal(session_store_load(st, NULL), SQE_OK); /* no file yet */
    char *tok = NULL, *gone = NULL, *who = NULL;
    assert_int_equal(session_store_open(st, "dave", &tok, NULL), SQE_OK);
    assert_int_equal(session_store_open(st, "erin", &gone, NULL), SQE_OK);
    char *pn[] = {"q"}, *ps[] = {"SELECT 1 + ?"};
    srv_session_state in = {.catalog = "memory", .schema = "s1", .n_prepared = 1,
                            .prepared_names = pn, .prepared_sql = ps};
    assert_int_equal(session_store_save(st, tok, &in, NULL), SQE_OK);
    session_store_close(st, gone);
    session_store_destroy(st); /* writes the file */

    struct stat sb;
    assert_int_equal(stat(file, &sb), 0);
    assert_int_equal(sb.st_mode & 0777, 0600);
    FILE *fp = fopen(file, "r");
    char text[8192];
    size_t n = fread(text, 1, sizeof text - 1, fp);
    fclose(fp);
    text[n] = 0;
    assert_null(strstr(text, tok)); /* never the token in clear */
    assert_non_null(strstr(text, "dave"));
    assert_null(strstr(text, "erin"));

    st = NULL;
    assert_int_equal(session_store_create(&o, &st, NULL), SQE_OK);
    assert_int_equal(session_store_load(st, NULL), SQE_OK);
    srv_session_state s;
    memset(&s, 0, sizeof s);
    assert_int_equal(session_store_resolve(st, tok, &who, &s, NULL), SQE_OK);
    assert_string_equal(who, "dave");
    assert_string_equal(s.schema, "s1");
    assert_string_equal(s.prepared_sql[0], "SELECT 1 + ?");
    free(who);
    srv_session_state_clear(&s);
    assert_int_not_equal(session_store_resolve(st, gone, &who, NULL, NULL), SQE_OK);
    session_store_destroy(st);
    free(gone);

    /* a corrupt file: load fails with the path, the store stays usable and empty */
    write_file(file, "{\"format\": \"sqe-sessions\", \"version\": 1, \"sessions\": [{\"sha256\": 5}]}");
    st = NULL;
    sqe_error e;
    assert_int_equal(session_store_create(&o, &st, NULL), SQE_OK);
    assert_int_not_equal(session_store_load(st, &e), SQE_OK);
    assert_non_null(strstr(e.message, "sessions.json"));
    assert_int_equal(session_store_count(st), 0);
    write_file(file, "not json");
    assert_int_not_equal(session_store_load(st, &e), SQE_OK);
    assert_int_equal(session_store_open(st, "x", &gone, NULL), SQE_OK);
    free(gone);
    session_store_destroy(st);
    free(tok);
    unlink(file);
    rmdir(dir);
}

/* A validator that accepts only the credential fingerprint starting with byte 7 for "ok". */
static bool only_ok(void *ud, const char *principal, const session_cred *cred) {
    ++*(int *)ud;
    return !strcmp(principal, "ok") && !strcmp(cred->method, "password") &&
           cred->fingerprint[0] == 7;
}

static char *read_text(const char *path) {
    FILE *fp = fopen(path, "r");
    assert_non_null(fp);
    static char text[8192];
    size_t n = fread(text, 1, sizeof text - 1, fp);
    fclose(fp);
    text[n] = 0;
    return text;
}

/* Sessions end when their credential no longer holds (item 8) and a close is on disk before
 * session_store_close returns (item 9), without waiting for the snapshot interval. */
static void test_session_revocation_and_close_persisted(void **state) {
    (void)state;
    char dir[300], file[400];
    snprintf(dir, sizeof dir, "%s/sessions-rev", tmpdir);
    snprintf(file, sizeof file, "%s/sessions.json", dir);
    session_store_options o = store_opts(dir);
    o.snapshot_interval_ms = 3600 * 1000; /* no snapshot during the test */
    session_store *st = NULL;
    assert_int_equal(session_store_create(&o, &st, NULL), SQE_OK);
    int calls = 0;
    session_store_set_validator(st, only_ok, &calls);
    session_cred good = {.method = "password", .fingerprint = {7}};
    session_cred stale = {.method = "password", .fingerprint = {8}};
    char *t_ok = NULL, *t_stale = NULL, *t_none = NULL, *t_close = NULL, *who = NULL;
    assert_int_equal(session_store_open_cred(st, "ok", &good, &t_ok, NULL), SQE_OK);
    assert_int_equal(session_store_open_cred(st, "ok", &stale, &t_stale, NULL), SQE_OK);
    assert_int_equal(session_store_open(st, "ok", &t_none, NULL), SQE_OK); /* no credential */
    assert_int_equal(session_store_open_cred(st, "ok", &good, &t_close, NULL), SQE_OK);
    assert_int_equal(session_store_flush(st, NULL), SQE_OK);
    assert_non_null(strstr(read_text(file), "\"credential\""));
    assert_int_equal(session_store_resolve(st, t_ok, &who, NULL, NULL), SQE_OK);
    free(who);
    sqe_error e;
    assert_int_equal(session_store_resolve(st, t_stale, &who, NULL, &e), AUTH_ERR_UNAUTHENTICATED);
    assert_non_null(strstr(e.message, "no longer valid"));
    srv_session_state in = {.catalog = "memory"};
    assert_int_equal(session_store_save(st, t_none, &in, &e), AUTH_ERR_UNAUTHENTICATED);
    assert_true(calls >= 3);
    /* the refused sessions are gone, and so on disk already */
    assert_int_equal(session_store_count(st), 2);
    session_store_close(st, t_close);
    assert_int_equal(session_store_count(st), 1);
    const char *text = read_text(file);
    size_t n_sessions = 0;
    for (const char *p = text; (p = strstr(p, "\"sha256\"")) != NULL; p++) n_sessions++;
    assert_int_equal(n_sessions, 1);
    session_store_destroy(st);

    /* restored: the credential comes back with the session and is checked again */
    st = NULL;
    assert_int_equal(session_store_create(&o, &st, NULL), SQE_OK);
    assert_int_equal(session_store_load(st, NULL), SQE_OK);
    session_store_set_validator(st, only_ok, &calls);
    assert_int_equal(session_store_resolve(st, t_ok, &who, NULL, NULL), SQE_OK);
    free(who);
    assert_int_not_equal(session_store_resolve(st, t_close, &who, NULL, NULL), SQE_OK);
    /* a sweep drops sessions whose credential no longer holds, unused ones too */
    char *t_unused = NULL;
    assert_int_equal(session_store_open_cred(st, "ok", &stale, &t_unused, NULL), SQE_OK);
    assert_int_equal(session_store_count(st), 2);
    session_store_sweep(st);
    assert_int_equal(session_store_count(st), 1);
    free(t_unused);
    session_store_destroy(st);
    free(t_ok);
    free(t_stale);
    free(t_none);
    free(t_close);
    unlink(file);
    rmdir(dir);
}

/* --- limits ------------------------------------------------------------------------------------- */

static void test_limits(void **state) {
    (void)state;
    limits_options o = {.max_concurrent = 3, .max_concurrent_per_user = 2, .timeout_ms = 1500,
                        .max_sql_bytes = 100};
    limits *l = NULL;
    assert_int_equal(limits_create(&o, &l, NULL), SQE_OK);
    uint32_t to = 0;
    sqe_error e;
    assert_int_equal(limits_admit(l, "a", 10, &to, &e), SQE_OK);
    assert_int_equal(to, 1500);
    assert_int_equal(limits_admit(l, "a", 10, &to, &e), SQE_OK);
    assert_int_equal(limits_admit(l, "a", 10, &to, &e), LIMITS_ERR_REJECTED);
    assert_non_null(strstr(e.message, "max_concurrent_per_user = 2"));
    assert_int_equal(limits_admit(l, "b", 10, &to, &e), SQE_OK); /* another user still runs */
    assert_int_equal(limits_admit(l, "c", 10, &to, &e), LIMITS_ERR_REJECTED);
    assert_non_null(strstr(e.message, "max_concurrent = 3"));
    assert_int_equal(limits_admit(l, "c", 101, &to, &e), SQE_ERR_QUERY_TEXT_TOO_LARGE);
    assert_non_null(strstr(e.message, "max_sql_bytes = 100"));
    assert_int_equal(limits_running(l, NULL), 3);
    assert_int_equal(limits_running(l, "a"), 2);
    limits_release(l, "a");
    limits_release(l, "nobody"); /* ignored */
    assert_int_equal(limits_running(l, NULL), 2);
    assert_int_equal(limits_admit(l, "c", 10, &to, &e), SQE_OK);
    limits_release(l, "a");
    limits_release(l, "b");
    limits_release(l, "c");
    assert_int_equal(limits_running(l, NULL), 0);
    assert_int_equal(limits_running(l, "a"), 0);
    limits_destroy(l);
}

int main(void) {
    snprintf(tmpdir, sizeof tmpdir, "%s/sqe-core-test.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(tmpdir)) return 2;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_b64),
        cmocka_unit_test(test_hash_verify),
        cmocka_unit_test(test_basic_decode),
        cmocka_unit_test(test_loopback),
        cmocka_unit_test(test_users_file_errors),
        cmocka_unit_test(test_chain_password),
        cmocka_unit_test(test_hash_gate),
        cmocka_unit_test(test_chain_anonymous),
        cmocka_unit_test(test_sessions),
        cmocka_unit_test(test_session_timeouts),
        cmocka_unit_test(test_session_persistence),
        cmocka_unit_test(test_session_revocation_and_close_persisted),
        cmocka_unit_test(test_limits),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    rmdir(tmpdir);
    return failed ? 1 : 0;
}
