/*
 * path_policy.c: the one decision on which files and object-store locations SQL may reach (see
 * path_policy.h).
 *
 * INTERFACE: path_policy_create, path_policy_destroy, path_policy_read, path_policy_write,
 *            path_policy_check_dir.
 * NOTES
 *   - Order of checks for a local path: allow_local_paths, then the lexical form (no file
 *     system access: a path outside every root is refused before anything is looked at), then
 *     realpath(3) of the path (or, when it does not exist, of its deepest existing ancestor,
 *     which must not be a symlink: a dangling link is refused like a link that leads outside).
 *     Only then may an answer depend on the file system, and only for places inside a root.
 *   - Each root is kept twice: as configured (normalized lexically) for the first check, and
 *     resolved (realpath at creation) for the second, so a root that is itself a symlink works.
 *   - What is checked is what is opened: callers get resolved paths. A rename of a directory
 *     inside a root into a symlink between the check and the open is the remaining window; only
 *     someone who can already write inside the root (never SQL: COPY writes regular files) can
 *     use it.
 *   - Object-store keys: S3 keys are literal, but HTTP clients squash "/../" in URLs, so a key
 *     with a "." or ".." segment is refused rather than trusted to stay literal.
 */
#include "io/path_policy.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/strbuf.h"
#include "io/io_s3.h"

typedef struct policy_root {
    char *lexical;   /* as configured, normalized */
    char *real;      /* realpath */
} policy_root;

struct path_policy {
    bool allow_local;
    policy_root *roots;
    size_t n_roots;
    char **prefixes;        /* "s3://bucket/a/{user}/" (scheme normalized, ends with '/') */
    size_t n_prefixes;
    char **admin_roles;
    size_t n_admin_roles;
    io_identity *keys;      /* a reference, or NULL */
};

typedef enum access_kind { ACCESS_READ, ACCESS_WRITE } access_kind;

/* ---- messages ------------------------------------------------------------------------------ */

/* The one refusal of a local path: the same words whether or not it exists. */
static int deny_local(const path_policy *p, access_kind k, const char *given, sqe_error *err) {
    if (!p->allow_local)
        return err_set(err, SQE_ERR_PERMISSION_DENIED,
                       "Access denied: this server does not let SQL %s local files ('%s'); see "
                       "[storage.tvf] allow_local_paths",
                       k == ACCESS_READ ? "read" : "write", given);
    return err_set(err, SQE_ERR_PERMISSION_DENIED,
                   "Access denied: '%s' is not in a directory this server lets SQL %s "
                   "([storage.tvf] allowed_local_roots)",
                   given, k == ACCESS_READ ? "read" : "write");
}

static int deny_remote(access_kind k, const char *given, sqe_error *err) {
    return err_set(err, SQE_ERR_PERMISSION_DENIED,
                   "Access denied: '%s' is not under an object-store prefix this server lets you "
                   "%s ([storage.tvf] allowed_object_store_prefixes)",
                   given, k == ACCESS_READ ? "read" : "write");
}

/* ---- local paths ------------------------------------------------------------------------- */

static bool has_wildcards(const char *s) { return strpbrk(s, "*?[") != NULL; }

/* "scheme://..." other than file: and the object stores? */
static bool other_scheme(const char *s) {
    const char *colon = strstr(s, "://");
    if (!colon || io_s3_is_uri(s) || !strncmp(s, "file:", 5)) return false;
    for (const char *c = s; c < colon; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              *c == '+' || *c == '-' || *c == '.'))
            return false;
    return colon > s;
}

/* path made absolute (against the working directory) with "", "." and ".." segments removed,
 * malloc'd; NULL on out of memory. Never touches the file system beyond getcwd. */
static char *normalize(const char *path) {
    strbuf in;
    strbuf_init(&in);
    if (path[0] != '/') {
        char cwd[PATH_MAX];
        if (!getcwd(cwd, sizeof cwd)) strcpy(cwd, "/");
        strbuf_puts(&in, cwd);
        strbuf_putc(&in, '/');
    }
    strbuf_puts(&in, path);
    if (in.failed) {
        strbuf_reset(&in);
        return NULL;
    }
    char *src = strbuf_move(&in);
    size_t n = strlen(src);
    char *out = malloc(n + 2);
    if (!src || !out) {
        free(src);
        free(out);
        return NULL;
    }
    size_t o = 0;
    for (char *seg = src; *seg;) {
        char *end = strchr(seg, '/');
        size_t len = end ? (size_t)(end - seg) : strlen(seg);
        if (len == 0 || (len == 1 && seg[0] == '.')) {
            /* nothing */
        } else if (len == 2 && seg[0] == '.' && seg[1] == '.') {
            while (o > 0 && out[o - 1] != '/') o--;
            if (o > 0) o--; /* the slash before the dropped segment */
        } else {
            out[o++] = '/';
            memcpy(out + o, seg, len);
            o += len;
        }
        seg += len;
        if (*seg == '/') seg++;
    }
    if (o == 0) out[o++] = '/';
    out[o] = '\0';
    free(src);
    return out;
}

/* Is path root or below it? */
static bool under(const char *path, const char *root) {
    size_t n = strlen(root);
    if (n == 1 && root[0] == '/') return path[0] == '/';
    return strncmp(path, root, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

static bool under_lexical_root(const path_policy *p, const char *path) {
    for (size_t i = 0; i < p->n_roots; i++)
        if (under(path, p->roots[i].lexical) || under(path, p->roots[i].real)) return true;
    return false;
}

static bool under_real_root(const path_policy *p, const char *path) {
    for (size_t i = 0; i < p->n_roots; i++)
        if (under(path, p->roots[i].real)) return true;
    return false;
}

/* The deepest existing ancestor of normalized path L, starting with L itself, resolved: *real
 * (malloc'd) and whether L itself exists. False when that ancestor is a symlink that does not
 * resolve, cannot be resolved, or another error than "missing" stops the walk. */
static bool resolve_existing(const char *L, char **real, bool *exists, size_t *kept_len) {
    char *cur = strdup(L);
    if (!cur) return false;
    *exists = true;
    for (;;) {
        struct stat st;
        if (lstat(cur, &st) == 0) {
            char buf[PATH_MAX];
            if (!realpath(cur, buf)) break; /* a dangling or looping symlink */
            *real = strdup(buf);
            *kept_len = strlen(cur);
            free(cur);
            return *real != NULL;
        }
        if (errno != ENOENT && errno != ENOTDIR) break;
        *exists = false;
        char *slash = strrchr(cur, '/');
        if (!slash || slash == cur) {
            if (strcmp(cur, "/") == 0) break;
            cur[1] = '\0';
        } else {
            *slash = '\0';
        }
    }
    free(cur);
    return false;
}

/* Checks one normalized local path for reading: *out = its resolved path. given names it in
 * messages. */
static int check_local_read(const path_policy *p, const char *given, const char *L, char **out,
                            sqe_error *err) {
    if (!p->allow_local || !under_lexical_root(p, L)) return deny_local(p, ACCESS_READ, given, err);
    char *real = NULL;
    bool exists;
    size_t kept;
    if (!resolve_existing(L, &real, &exists, &kept) || !under_real_root(p, real)) {
        free(real);
        return deny_local(p, ACCESS_READ, given, err);
    }
    if (!exists) {
        free(real);
        return err_set(err, SQE_ERR_NOT_FOUND, "File not found: %s", given);
    }
    *out = real;
    return SQE_OK;
}

/* The resolved matches of a local glob L (normalized). */
static int local_glob(const path_policy *p, const char *given, const char *L, char ***paths,
                      uint32_t *n_paths, sqe_error *err) {
    if (!p->allow_local || !under_lexical_root(p, L)) return deny_local(p, ACCESS_READ, given, err);
    /* the fixed prefix: the directories before the first segment with a wildcard */
    const char *w = strpbrk(L, "*?[");
    size_t fixed = (size_t)(w - L);
    while (fixed > 0 && L[fixed - 1] != '/') fixed--;
    char *dir = strndup(L, fixed > 1 ? fixed - 1 : 1);
    if (!dir) return err_nomem(err, "glob");
    char *real_dir = NULL;
    bool exists;
    size_t kept;
    bool ok = resolve_existing(dir, &real_dir, &exists, &kept) && under_real_root(p, real_dir);
    free(dir);
    if (!ok) {
        free(real_dir);
        return deny_local(p, ACCESS_READ, given, err);
    }
    if (!exists) {
        free(real_dir);
        return err_set(err, SQE_ERR_NOT_FOUND, "No files match '%s'", given);
    }
    strbuf pat;
    strbuf_init(&pat);
    strbuf_puts(&pat, real_dir);
    if (strcmp(real_dir, "/") != 0) strbuf_putc(&pat, '/');
    strbuf_puts(&pat, L + fixed);
    free(real_dir);
    if (pat.failed) {
        strbuf_reset(&pat);
        return err_nomem(err, "glob");
    }
    char **list;
    uint32_t n;
    int rc = io_glob(strbuf_cstr(&pat), &list, &n, err);
    strbuf_reset(&pat);
    if (rc == SQE_ERR_NOT_FOUND)
        return err_set(err, SQE_ERR_NOT_FOUND, "No files match '%s'", given);
    SQE_TRY(rc);
    for (uint32_t i = 0; i < n && !rc; i++) {
        char buf[PATH_MAX];
        if (!realpath(list[i], buf) || !under_real_root(p, buf)) {
            rc = deny_local(p, ACCESS_READ, given, err);
            break;
        }
        char *r = strdup(buf);
        if (!r) {
            rc = err_nomem(err, "glob");
            break;
        }
        free(list[i]);
        list[i] = r;
    }
    if (rc) {
        io_paths_free(list, n);
        return rc;
    }
    *paths = list;
    *n_paths = n;
    return SQE_OK;
}

/* ---- object stores ----------------------------------------------------------------------- */

/* location with its scheme spelled "s3://", malloc'd. */
static char *s3_canonical(const char *location) {
    const char *rest = strstr(location, "://");
    size_t n = strlen(rest + 3);
    char *out = malloc(n + 6);
    if (out) snprintf(out, n + 6, "s3://%s", rest + 3);
    return out;
}

/* A key segment "." or ".."? */
static bool has_dot_segment(const char *loc) {
    const char *key = loc + 5; /* after "s3://" */
    for (const char *seg = key; *seg;) {
        size_t len = strcspn(seg, "/");
        if ((len == 1 && seg[0] == '.') || (len == 2 && seg[0] == '.' && seg[1] == '.'))
            return true;
        seg += len;
        if (*seg == '/') seg++;
    }
    return false;
}

/* Does canonical location loc lie under one of the prefixes for who? */
static bool allowed_remote(const path_policy *p, const sqe_principal *who, const char *loc) {
    if (who && sqe_principal_has_any_role(who, (const char *const *)p->admin_roles,
                                          p->n_admin_roles))
        return true;
    const char *user = who ? who->user : NULL;
    bool user_ok = user && *user && !strchr(user, '/') && strcmp(user, ".") != 0 &&
                   strcmp(user, "..") != 0;
    for (size_t i = 0; i < p->n_prefixes; i++) {
        const char *pre = p->prefixes[i];
        bool templated = strstr(pre, "{user}") != NULL;
        if (templated && !user_ok) continue;
        strbuf sb;
        strbuf_init(&sb);
        for (const char *c = pre; *c;) {
            if (!strncmp(c, "{user}", 6)) {
                strbuf_puts(&sb, user);
                c += 6;
            } else {
                strbuf_putc(&sb, *c++);
            }
        }
        bool ok = false;
        if (!sb.failed) {
            const char *x = strbuf_cstr(&sb);
            size_t n = strlen(x); /* ends with '/' */
            ok = strncmp(loc, x, n) == 0 || (strlen(loc) == n - 1 && strncmp(loc, x, n - 1) == 0);
        }
        strbuf_reset(&sb);
        if (ok) return true;
    }
    return false;
}

/* Checks an object-store location (or pattern) for who; *canon gets it with "s3://". */
static int check_remote(const path_policy *p, const sqe_principal *who, access_kind k,
                        const char *given, char **canon, sqe_error *err) {
    char *loc = s3_canonical(given);
    if (!loc) return err_nomem(err, "location");
    if (has_dot_segment(loc) || !allowed_remote(p, who, loc)) {
        free(loc);
        return deny_remote(k, given, err);
    }
    *canon = loc;
    return SQE_OK;
}

/* ---- construction ---------------------------------------------------------------------------- */

void path_policy_destroy(path_policy *p) {
    if (!p) return;
    for (size_t i = 0; i < p->n_roots; i++) {
        free(p->roots[i].lexical);
        free(p->roots[i].real);
    }
    free(p->roots);
    for (size_t i = 0; i < p->n_prefixes; i++) free(p->prefixes[i]);
    free(p->prefixes);
    for (size_t i = 0; i < p->n_admin_roles; i++) free(p->admin_roles[i]);
    free(p->admin_roles);
    io_identity_unref(p->keys);
    free(p);
}

int path_policy_create(const path_policy_config *cfg, path_policy **out, sqe_error *err) {
    *out = NULL;
    path_policy *p = calloc(1, sizeof *p);
    if (!p) return err_nomem(err, "path policy");
    p->allow_local = cfg->allow_local_paths;
    p->roots = calloc(cfg->n_local_roots + 1, sizeof *p->roots);
    p->prefixes = calloc(cfg->n_object_store_prefixes + 1, sizeof *p->prefixes);
    p->admin_roles = calloc(cfg->n_object_store_admin_roles + 1, sizeof *p->admin_roles);
    int rc = p->roots && p->prefixes && p->admin_roles ? SQE_OK : err_nomem(err, "path policy");
    for (size_t i = 0; !rc && i < cfg->n_local_roots; i++) {
        const char *r = io_local_path(cfg->local_roots[i]);
        char buf[PATH_MAX];
        struct stat st;
        if (!*r || r[0] != '/' || !realpath(r, buf) || stat(buf, &st) != 0 ||
            !S_ISDIR(st.st_mode)) {
            rc = err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                         "[storage.tvf] allowed_local_roots: '%s' is not an existing directory "
                         "given as an absolute path",
                         cfg->local_roots[i]);
            break;
        }
        p->roots[i].lexical = normalize(r);
        p->roots[i].real = strdup(buf);
        p->n_roots = i + 1;
        if (!p->roots[i].lexical || !p->roots[i].real) rc = err_nomem(err, "path policy");
    }
    for (size_t i = 0; !rc && i < cfg->n_object_store_prefixes; i++) {
        const char *pre = cfg->object_store_prefixes[i];
        if (!io_s3_is_uri(pre) || strlen(strstr(pre, "://") + 3) == 0) {
            rc = err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                         "[storage.tvf] allowed_object_store_prefixes: '%s' is not an "
                         "s3://bucket/prefix location",
                         pre);
            break;
        }
        char *c = s3_canonical(pre);
        size_t n = c ? strlen(c) : 0;
        char *d = c ? malloc(n + 2) : NULL;
        if (d) snprintf(d, n + 2, "%s%s", c, n && c[n - 1] == '/' ? "" : "/");
        free(c);
        p->prefixes[i] = d;
        p->n_prefixes = i + 1;
        if (!d) rc = err_nomem(err, "path policy");
        else if (has_dot_segment(d))
            rc = err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                         "[storage.tvf] allowed_object_store_prefixes: '%s' has a '.' or '..' "
                         "segment", pre);
    }
    for (size_t i = 0; !rc && i < cfg->n_object_store_admin_roles; i++) {
        p->admin_roles[i] = strdup(cfg->object_store_admin_roles[i]);
        p->n_admin_roles = i + 1;
        if (!p->admin_roles[i]) rc = err_nomem(err, "path policy");
    }
    if (!rc && cfg->object_store_keys) {
        rc = io_identity_create(cfg->object_store_keys, &p->keys, err);
        if (rc) err_prefix(err, "[storage] s3 keys");
    }
    if (rc) {
        path_policy_destroy(p);
        return rc;
    }
    *out = p;
    return SQE_OK;
}

/* ---- the three questions ----------------------------------------------------------------- */

int path_policy_read(const path_policy *p, const sqe_principal *who, const char *pattern,
                     char ***paths, uint32_t *n_paths, io_identity **id, sqe_error *err) {
    *paths = NULL;
    *n_paths = 0;
    *id = NULL;
    if (!p) return io_glob(pattern, paths, n_paths, err);
    if (other_scheme(pattern))
        return err_set(err, SQE_ERR_NOT_SUPPORTED, "unsupported: reading '%s' (only local files "
                       "and s3:// locations)", pattern);
    if (io_s3_is_uri(pattern)) {
        char *loc;
        SQE_TRY(check_remote(p, who, ACCESS_READ, pattern, &loc, err));
        char **list;
        uint32_t n;
        int rc = io_glob_as(loc, p->keys, &list, &n, err);
        free(loc);
        SQE_TRY(rc);
        *paths = list;
        *n_paths = n;
        *id = io_identity_ref(p->keys);
        return SQE_OK;
    }
    char *L = normalize(io_local_path(pattern));
    if (!L) return err_nomem(err, "path");
    int rc;
    if (has_wildcards(L)) {
        rc = local_glob(p, pattern, L, paths, n_paths, err);
    } else {
        char *real = NULL;
        rc = check_local_read(p, pattern, L, &real, err);
        char **one = rc ? NULL : malloc(sizeof *one);
        if (!rc && !one) rc = err_nomem(err, "file list");
        if (!rc) {
            one[0] = real;
            *paths = one;
            *n_paths = 1;
        } else {
            free(real);
        }
    }
    free(L);
    return rc;
}

static int exists_error(const char *given, sqe_error *err) {
    return err_set(err, SQE_ERR_ALREADY_EXISTS,
                   "'%s' exists; COPY does not replace files unless asked: WITH (overwrite = "
                   "true)",
                   given);
}

/* Does object loc exist (as id)? NOT_FOUND is "no"; other errors are returned. */
static int remote_exists(const char *loc, const io_identity *id, bool *exists, sqe_error *err) {
    io_file *f = NULL;
    sqe_error e2;
    int rc = io_open_as(loc, id, &f, &e2);
    *exists = rc == SQE_OK;
    io_close(f);
    if (rc == SQE_OK || rc == SQE_ERR_NOT_FOUND) return SQE_OK;
    if (err) *err = e2;
    return rc;
}

int path_policy_write(const path_policy *p, const sqe_principal *who, const char *location,
                      bool overwrite, char **target, io_identity **id, sqe_error *err) {
    *target = NULL;
    *id = NULL;
    if (p && other_scheme(location))
        return err_set(err, SQE_ERR_NOT_SUPPORTED, "unsupported: writing '%s' (only local files "
                       "and s3:// locations)", location);
    if (io_s3_is_uri(location)) {
        char *loc = NULL;
        if (p) SQE_TRY(check_remote(p, who, ACCESS_WRITE, location, &loc, err));
        else if (!(loc = strdup(location))) return err_nomem(err, "location");
        const io_identity *use = p ? p->keys : NULL;
        if (!overwrite) {
            bool exists = false;
            int rc = remote_exists(loc, use, &exists, err);
            if (!rc && exists) rc = exists_error(location, err);
            if (rc) {
                free(loc);
                return rc;
            }
        }
        *target = loc;
        *id = io_identity_ref(use);
        return SQE_OK;
    }
    if (!p) { /* embedded: the path as given, existing files kept unless asked */
        struct stat st;
        const char *path = io_local_path(location);
        if (!overwrite && lstat(path, &st) == 0) return exists_error(location, err);
        return (*target = strdup(path)) ? SQE_OK : err_nomem(err, "location");
    }
    char *L = normalize(io_local_path(location));
    if (!L) return err_nomem(err, "path");
    int rc = SQE_OK;
    const char *base = strrchr(L, '/') + 1;
    if (!p->allow_local || !under_lexical_root(p, L) || !*base)
        rc = deny_local(p, ACCESS_WRITE, location, err);
    else if (has_wildcards(L))
        rc = err_set(err, SQE_ERR_INVALID_ARGUMENTS, "COPY TO '%s': no wildcards in a target",
                     location);
    char *dir = rc ? NULL : strndup(L, (size_t)(base - L) > 1 ? (size_t)(base - L) - 1 : 1);
    if (!rc && !dir) rc = err_nomem(err, "path");
    char *real = NULL;
    bool exists = false;
    size_t kept = 0;
    if (!rc && (!resolve_existing(dir, &real, &exists, &kept) || !under_real_root(p, real)))
        rc = deny_local(p, ACCESS_WRITE, location, err);
    if (!rc) {
        /* the resolved existing ancestor, the missing directories below it as written, and
         * the file name: an existing entry with that name is replaced, never followed */
        strbuf sb;
        strbuf_init(&sb);
        strbuf_puts(&sb, real);
        const char *missing = dir + kept;
        if (*missing) strbuf_puts(&sb, missing);
        if (strcmp(strbuf_cstr(&sb), "/") != 0) strbuf_putc(&sb, '/');
        strbuf_puts(&sb, base);
        if (sb.failed) {
            strbuf_reset(&sb);
            rc = err_nomem(err, "path");
        } else {
            *target = strbuf_move(&sb);
        }
    }
    free(real);
    free(dir);
    free(L);
    struct stat st;
    if (!rc && !overwrite && lstat(*target, &st) == 0) {
        free(*target);
        *target = NULL;
        rc = exists_error(location, err);
    }
    return rc;
}

int path_policy_check_dir(const path_policy *p, const sqe_principal *who, const char *location,
                          sqe_error *err) {
    if (!p) return SQE_OK;
    if (other_scheme(location))
        return err_set(err, SQE_ERR_NOT_SUPPORTED, "unsupported: location '%s' (only local "
                       "directories and s3:// locations)", location);
    if (io_s3_is_uri(location)) {
        char *loc;
        SQE_TRY(check_remote(p, who, ACCESS_WRITE, location, &loc, err));
        free(loc);
        return SQE_OK;
    }
    char *L = normalize(io_local_path(location));
    if (!L) return err_nomem(err, "path");
    char *real = NULL;
    bool exists;
    size_t kept;
    int rc = SQE_OK;
    if (!p->allow_local || !under_lexical_root(p, L) ||
        !resolve_existing(L, &real, &exists, &kept) || !under_real_root(p, real))
        rc = deny_local(p, ACCESS_WRITE, location, err);
    free(real);
    free(L);
    return rc;
}
