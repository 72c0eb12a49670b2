/*
 * test_path_policy.c: the path policy of `sqe serve` (src/io/path_policy.c) and principals
 * (src/common/principal.c) on a scratch directory tree: a root with files, a sibling outside it,
 * symlinks from inside the root to inside and to outside, '..' and glob escapes, writes with
 * and without overwrite, object-store prefixes with {user} and admin roles, and that a refused
 * path reads the same whether it exists or not.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/principal.h"
#include "io/path_policy.h"

static char base[256];       /* scratch: base/root (allowed), base/outside */
static char root[300], outside[300];

static void touch(const char *dir, const char *name, const char *text) {
    char p[600];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void link_to(const char *target, const char *dir, const char *name) {
    char p[600];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    assert_int_equal(symlink(target, p), 0);
}

static int setup(void **state) {
    (void)state;
    snprintf(base, sizeof base, "/tmp/sqe-path-policy-XXXXXX");
    if (!mkdtemp(base)) return -1;
    snprintf(root, sizeof root, "%s/root", base);
    snprintf(outside, sizeof outside, "%s/outside", base);
    char sub[400];
    snprintf(sub, sizeof sub, "%s/sub", root);
    if (mkdir(root, 0700) || mkdir(outside, 0700) || mkdir(sub, 0700)) return -1;
    touch(root, "a.csv", "x\n1\n");
    touch(root, "b.csv", "x\n2\n");
    touch(sub, "c.csv", "x\n3\n");
    touch(outside, "secret.csv", "x\n42\n");
    char target[600];
    snprintf(target, sizeof target, "%s/secret.csv", outside);
    link_to(target, root, "escape.csv");                   /* inside -> outside file */
    link_to(outside, root, "escape_dir");                  /* inside -> outside directory */
    link_to("sub/c.csv", root, "inside.csv");              /* inside -> inside */
    snprintf(target, sizeof target, "%s/missing.csv", outside);
    link_to(target, root, "dangling.csv");                 /* inside -> missing outside */
    return 0;
}

static int teardown(void **state) {
    (void)state;
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
    return system(cmd) == 0 ? 0 : -1;
}

static path_policy *policy(bool allow_local, const char *const *prefixes, size_t n_prefixes) {
    const char *roots[] = {root};
    const char *admins[] = {"lake_admin"};
    path_policy_config c = {
        .allow_local_paths = allow_local,
        .local_roots = roots,
        .n_local_roots = 1,
        .object_store_prefixes = prefixes,
        .n_object_store_prefixes = n_prefixes,
        .object_store_admin_roles = admins,
        .n_object_store_admin_roles = 1,
    };
    path_policy *p = NULL;
    sqe_error err;
    assert_int_equal(path_policy_create(&c, &p, &err), SQE_OK);
    return p;
}

static sqe_principal *user(const char *name, const char *role) {
    const char *roles[] = {role};
    sqe_principal_info info = {.user = name, .roles = roles, .n_roles = role ? 1 : 0,
                               .method = SQE_AUTH_PASSWORD};
    sqe_principal *p = NULL;
    assert_int_equal(sqe_principal_create(&info, &p, NULL), SQE_OK);
    return p;
}

/* Reads pattern; returns the code, *n the number of files, msg the error message. */
static int read_n(path_policy *p, const sqe_principal *who, const char *pattern, uint32_t *n,
                  char *msg, size_t msg_len) {
    char **paths = NULL;
    io_identity *id = NULL;
    sqe_error err;
    memset(&err, 0, sizeof err);
    *n = 0;
    int rc = path_policy_read(p, who, pattern, &paths, n, &id, &err);
    if (rc == SQE_OK) {
        for (uint32_t i = 0; i < *n; i++) assert_non_null(strstr(paths[i], root));
        io_paths_free(paths, *n);
    }
    io_identity_unref(id);
    if (msg) snprintf(msg, msg_len, "%s", rc ? err.message : "");
    return rc;
}

static void test_principal(void **state) {
    (void)state;
    const char *groups[] = {"eng"}, *roles[] = {"analyst", "lake_admin"};
    sqe_principal_info info = {.user = "alice", .groups = groups, .n_groups = 1, .roles = roles,
                               .n_roles = 2, .token = "tok-123", .token_expires_ms = 99,
                               .method = SQE_AUTH_BEARER};
    sqe_principal *p = NULL;
    assert_int_equal(sqe_principal_create(&info, &p, NULL), SQE_OK);
    assert_string_equal(p->user, "alice");
    assert_string_equal(p->token, "tok-123");
    assert_string_equal(p->groups[0], "eng");
    assert_true(sqe_principal_has_role(p, "lake_admin"));
    assert_false(sqe_principal_has_role(p, "lake"));
    assert_string_equal(sqe_auth_method_name(p->method), "bearer");
    sqe_principal *q = sqe_principal_ref(p);
    sqe_principal_unref(p);
    assert_string_equal(q->user, "alice"); /* still alive: q holds it */
    sqe_principal_unref(q);
    sqe_principal_info none = {.user = ""};
    sqe_error err;
    assert_int_equal(sqe_principal_create(&none, &p, &err), SQE_ERR_INVALID_ARGUMENTS);
    assert_null(p);
}

static void test_local_off(void **state) {
    (void)state;
    path_policy *p = policy(false, NULL, 0);
    sqe_principal *alice = user("alice", NULL);
    char path[600], m1[600], m2[600];
    uint32_t n;
    snprintf(path, sizeof path, "%s/a.csv", root);
    assert_int_equal(read_n(p, alice, path, &n, m1, sizeof m1), SQE_ERR_PERMISSION_DENIED);
    assert_non_null(strstr(m1, "allow_local_paths"));
    /* the embedded shell (no policy) reads it */
    assert_int_equal(read_n(NULL, alice, path, &n, NULL, 0), SQE_OK);
    assert_int_equal(n, 1);
    /* an existing and a missing file outside read the same */
    assert_int_equal(read_n(p, alice, "/etc/passwd", &n, m1, sizeof m1), SQE_ERR_PERMISSION_DENIED);
    assert_int_equal(read_n(p, alice, "/etc/no-such-file", &n, m2, sizeof m2),
                     SQE_ERR_PERMISSION_DENIED);
    assert_non_null(strstr(m1, "/etc/passwd"));
    sqe_principal_unref(alice);
    path_policy_destroy(p);
}

static void test_local_roots(void **state) {
    (void)state;
    path_policy *p = policy(true, NULL, 0);
    sqe_principal *alice = user("alice", NULL);
    char path[700], m1[700], m2[700];
    uint32_t n;
    snprintf(path, sizeof path, "%s/a.csv", root);
    assert_int_equal(read_n(p, alice, path, &n, NULL, 0), SQE_OK);
    snprintf(path, sizeof path, "file://%s/sub/c.csv", root);
    assert_int_equal(read_n(p, alice, path, &n, NULL, 0), SQE_OK);
    /* a symlink from inside to inside is fine; to outside, or dangling, is not */
    snprintf(path, sizeof path, "%s/inside.csv", root);
    assert_int_equal(read_n(p, alice, path, &n, NULL, 0), SQE_OK);
    snprintf(path, sizeof path, "%s/escape.csv", root);
    assert_int_equal(read_n(p, alice, path, &n, m1, sizeof m1), SQE_ERR_PERMISSION_DENIED);
    snprintf(path, sizeof path, "%s/escape_dir/secret.csv", root);
    assert_int_equal(read_n(p, alice, path, &n, NULL, 0), SQE_ERR_PERMISSION_DENIED);
    snprintf(path, sizeof path, "%s/escape_dir/missing.csv", root);
    assert_int_equal(read_n(p, alice, path, &n, NULL, 0), SQE_ERR_PERMISSION_DENIED);
    snprintf(path, sizeof path, "%s/dangling.csv", root);
    assert_int_equal(read_n(p, alice, path, &n, NULL, 0), SQE_ERR_PERMISSION_DENIED);
    /* '..' out of the root, existing or not: the same refusal */
    snprintf(path, sizeof path, "%s/../outside/secret.csv", root);
    assert_int_equal(read_n(p, alice, path, &n, m1, sizeof m1), SQE_ERR_PERMISSION_DENIED);
    snprintf(path, sizeof path, "%s/../outside/none.csv", root);
    assert_int_equal(read_n(p, alice, path, &n, m2, sizeof m2), SQE_ERR_PERMISSION_DENIED);
    assert_non_null(strstr(m1, "is not in a directory this server lets SQL read"));
    assert_non_null(strstr(m2, "is not in a directory this server lets SQL read"));
    /* inside a root a missing file may say so */
    snprintf(path, sizeof path, "%s/none.csv", root);
    assert_int_equal(read_n(p, alice, path, &n, NULL, 0), SQE_ERR_NOT_FOUND);
    /* '..' that stays inside is fine */
    snprintf(path, sizeof path, "%s/sub/../a.csv", root);
    assert_int_equal(read_n(p, alice, path, &n, NULL, 0), SQE_OK);
    sqe_principal_unref(alice);
    path_policy_destroy(p);
}

static void test_globs(void **state) {
    (void)state;
    path_policy *p = policy(true, NULL, 0);
    char path[700];
    uint32_t n;
    snprintf(path, sizeof path, "%s/[ab].csv", root);
    assert_int_equal(read_n(p, NULL, path, &n, NULL, 0), SQE_OK);
    assert_int_equal(n, 2);
    /* a glob whose matches include a link to outside is refused as a whole */
    snprintf(path, sizeof path, "%s/*.csv", root);
    assert_int_equal(read_n(p, NULL, path, &n, NULL, 0), SQE_ERR_PERMISSION_DENIED);
    /* the fixed prefix outside a root: refused before anything is listed */
    assert_int_equal(read_n(p, NULL, "/etc/*", &n, NULL, 0), SQE_ERR_PERMISSION_DENIED);
    snprintf(path, sizeof path, "%s/../outside/*.csv", root);
    assert_int_equal(read_n(p, NULL, path, &n, NULL, 0), SQE_ERR_PERMISSION_DENIED);
    /* wildcards in a directory segment that walk out ('..*' matches '..') */
    snprintf(path, sizeof path, "%s/..*/outside/secret.csv", root);
    assert_int_equal(read_n(p, NULL, path, &n, NULL, 0), SQE_ERR_PERMISSION_DENIED);
    snprintf(path, sizeof path, "%s/escape_dir/*.csv", root);
    assert_int_equal(read_n(p, NULL, path, &n, NULL, 0), SQE_ERR_PERMISSION_DENIED);
    snprintf(path, sizeof path, "%s/sub/*.zzz", root);
    assert_int_equal(read_n(p, NULL, path, &n, NULL, 0), SQE_ERR_NOT_FOUND);
    path_policy_destroy(p);
}

static int write_rc(path_policy *p, const char *location, bool overwrite, char *target,
                    size_t target_len) {
    char *t = NULL;
    io_identity *id = NULL;
    sqe_error err;
    int rc = path_policy_write(p, NULL, location, overwrite, &t, &id, &err);
    if (target) snprintf(target, target_len, "%s", t ? t : "");
    free(t);
    io_identity_unref(id);
    return rc;
}

static void test_writes(void **state) {
    (void)state;
    path_policy *p = policy(true, NULL, 0);
    char path[700], target[700];
    snprintf(path, sizeof path, "%s/new.parquet", root);
    assert_int_equal(write_rc(p, path, false, target, sizeof target), SQE_OK);
    assert_string_equal(target, path);
    snprintf(path, sizeof path, "%s/a.csv", root);
    assert_int_equal(write_rc(p, path, false, NULL, 0), SQE_ERR_ALREADY_EXISTS);
    assert_int_equal(write_rc(p, path, true, NULL, 0), SQE_OK);
    /* never through a directory symlink that leads outside, never outside at all */
    snprintf(path, sizeof path, "%s/escape_dir/x.parquet", root);
    assert_int_equal(write_rc(p, path, true, NULL, 0), SQE_ERR_PERMISSION_DENIED);
    snprintf(path, sizeof path, "%s/../outside/x.parquet", root);
    assert_int_equal(write_rc(p, path, true, NULL, 0), SQE_ERR_PERMISSION_DENIED);
    snprintf(path, sizeof path, "%s/secret.csv", outside);
    assert_int_equal(write_rc(p, path, true, NULL, 0), SQE_ERR_PERMISSION_DENIED);
    /* a symlink as the target itself is replaced, not followed: the target is the link's own
     * place inside the root */
    snprintf(path, sizeof path, "%s/escape.csv", root);
    assert_int_equal(write_rc(p, path, false, NULL, 0), SQE_ERR_ALREADY_EXISTS);
    assert_int_equal(write_rc(p, path, true, target, sizeof target), SQE_OK);
    assert_string_equal(target, path);
    path_policy_destroy(p);
    /* writes off: refused */
    p = policy(false, NULL, 0);
    snprintf(path, sizeof path, "%s/new.parquet", root);
    assert_int_equal(write_rc(p, path, true, NULL, 0), SQE_ERR_PERMISSION_DENIED);
    sqe_error err;
    assert_int_equal(path_policy_check_dir(p, NULL, root, &err), SQE_ERR_PERMISSION_DENIED);
    path_policy_destroy(p);
    /* embedded: anywhere, but still no silent overwrite */
    snprintf(path, sizeof path, "%s/secret.csv", outside);
    assert_int_equal(write_rc(NULL, path, false, NULL, 0), SQE_ERR_ALREADY_EXISTS);
    assert_int_equal(write_rc(NULL, path, true, NULL, 0), SQE_OK);
}

static void test_object_store(void **state) {
    (void)state;
    const char *prefixes[] = {"s3://lake/users/{user}", "s3a://shared/public/"};
    path_policy *p = policy(false, prefixes, 2);
    sqe_principal *alice = user("alice", NULL), *admin = user("root2", "lake_admin");
    sqe_principal *sneaky = user("alice/../bob", NULL);
    sqe_error err;
    assert_int_equal(path_policy_check_dir(p, alice, "s3://lake/users/alice/t", &err), SQE_OK);
    assert_int_equal(path_policy_check_dir(p, alice, "s3n://lake/users/alice/x/y", &err), SQE_OK);
    assert_int_equal(path_policy_check_dir(p, alice, "s3://lake/users/bob/t", &err),
                     SQE_ERR_PERMISSION_DENIED);
    assert_int_equal(path_policy_check_dir(p, alice, "s3://lake/users/alice2/t", &err),
                     SQE_ERR_PERMISSION_DENIED);
    assert_int_equal(path_policy_check_dir(p, alice, "s3://lake/users/alice/../bob/t", &err),
                     SQE_ERR_PERMISSION_DENIED);
    assert_int_equal(path_policy_check_dir(p, sneaky, "s3://lake/users/alice/../bob/t", &err),
                     SQE_ERR_PERMISSION_DENIED);
    assert_int_equal(path_policy_check_dir(p, alice, "s3://shared/public/x", &err), SQE_OK);
    assert_int_equal(path_policy_check_dir(p, admin, "s3://anything/at/all", &err), SQE_OK);
    assert_int_equal(path_policy_check_dir(p, alice, "http://example.com/x", &err),
                     SQE_ERR_NOT_SUPPORTED);
    /* a read outside the prefixes is refused before anything is listed */
    uint32_t n;
    assert_int_equal(read_n(p, alice, "s3://lake/users/*/x.parquet", &n, NULL, 0),
                     SQE_ERR_PERMISSION_DENIED);
    sqe_principal_unref(alice);
    sqe_principal_unref(admin);
    sqe_principal_unref(sneaky);
    path_policy_destroy(p);
}

static void test_bad_config(void **state) {
    (void)state;
    const char *roots[] = {"/no/such/dir"};
    path_policy_config c = {.allow_local_paths = true, .local_roots = roots, .n_local_roots = 1};
    path_policy *p = NULL;
    sqe_error err;
    assert_int_equal(path_policy_create(&c, &p, &err), SQE_ERR_INVALID_ARGUMENTS);
    assert_non_null(strstr(err.message, "allowed_local_roots"));
    const char *prefixes[] = {"/local/dir"};
    path_policy_config c2 = {.object_store_prefixes = prefixes, .n_object_store_prefixes = 1};
    assert_int_equal(path_policy_create(&c2, &p, &err), SQE_ERR_INVALID_ARGUMENTS);
    assert_null(p);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_principal),
        cmocka_unit_test(test_local_off),
        cmocka_unit_test(test_local_roots),
        cmocka_unit_test(test_globs),
        cmocka_unit_test(test_writes),
        cmocka_unit_test(test_object_store),
        cmocka_unit_test(test_bad_config),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
