/*
 * principal.c: authenticated callers (see principal.h).
 *
 * INTERFACE: sqe_principal_create, sqe_principal_for_user, sqe_principal_ref,
 *            sqe_principal_unref, sqe_principal_has_role, sqe_principal_has_any_role,
 *            sqe_auth_method_name.
 * NOTES: a principal is one malloc block: the struct, the two pointer arrays, then every string
 * back to back, so freeing is one free() after the token's bytes are wiped.
 */
#include "common/principal.h"

#include <stdlib.h>
#include <string.h>

/* Bytes for s with its NUL (0 for NULL). */
static size_t str_size(const char *s) { return s ? strlen(s) + 1 : 0; }

/* Copies s to *cursor and advances it; returns the copy (NULL for NULL). */
static const char *put_str(char **cursor, const char *s) {
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *out = *cursor;
    memcpy(out, s, n);
    *cursor += n;
    return out;
}

int sqe_principal_create(const sqe_principal_info *info, sqe_principal **out, sqe_error *err) {
    *out = NULL;
    if (!info->user || !*info->user)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "a principal needs a user name");
    size_t bytes = sizeof(sqe_principal);
    size_t n_ptrs = (size_t)info->n_groups + info->n_roles;
    bytes += n_ptrs * sizeof(char *);
    bytes += str_size(info->user) + str_size(info->token);
    for (uint32_t i = 0; i < info->n_groups; i++)
        bytes += str_size(info->groups[i] ? info->groups[i] : "");
    for (uint32_t i = 0; i < info->n_roles; i++)
        bytes += str_size(info->roles[i] ? info->roles[i] : "");
    sqe_principal *p = calloc(1, bytes);
    if (!p) return err_nomem(err, "principal");
    const char **groups = (const char **)(p + 1);
    const char **roles = groups + info->n_groups;
    char *cursor = (char *)(roles + info->n_roles);
    p->user = put_str(&cursor, info->user);
    p->token = put_str(&cursor, info->token);
    for (uint32_t i = 0; i < info->n_groups; i++)
        groups[i] = put_str(&cursor, info->groups[i] ? info->groups[i] : "");
    for (uint32_t i = 0; i < info->n_roles; i++)
        roles[i] = put_str(&cursor, info->roles[i] ? info->roles[i] : "");
    p->groups = info->n_groups ? groups : NULL;
    p->n_groups = info->n_groups;
    p->roles = info->n_roles ? roles : NULL;
    p->n_roles = info->n_roles;
    p->token_expires_ms = info->token_expires_ms;
    p->method = info->method;
    atomic_init(&p->refs, 1);
    *out = p;
    return SQE_OK;
}

int sqe_principal_for_user(const char *user, sqe_auth_method method, sqe_principal **out,
                           sqe_error *err) {
    sqe_principal_info info = {.user = user, .method = method};
    return sqe_principal_create(&info, out, err);
}

sqe_principal *sqe_principal_ref(const sqe_principal *p) {
    sqe_principal *m = (sqe_principal *)p; /* the count is the one mutable part */
    if (m) atomic_fetch_add(&m->refs, 1);
    return m;
}

void sqe_principal_unref(sqe_principal *p) {
    if (!p || atomic_fetch_sub(&p->refs, 1) != 1) return;
    if (p->token) {
        volatile char *t = (volatile char *)p->token;
        while (*t) *t++ = 0;
    }
    free(p);
}

bool sqe_principal_has_role(const sqe_principal *p, const char *role) {
    if (!p || !role) return false;
    for (uint32_t i = 0; i < p->n_roles; i++)
        if (!strcmp(p->roles[i], role)) return true;
    return false;
}

bool sqe_principal_has_any_role(const sqe_principal *p, const char *const *roles, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (sqe_principal_has_role(p, roles[i])) return true;
    return false;
}

const char *sqe_auth_method_name(sqe_auth_method m) {
    switch (m) {
    case SQE_AUTH_ANONYMOUS: return "anonymous";
    case SQE_AUTH_PASSWORD: return "password";
    case SQE_AUTH_SESSION: return "session";
    case SQE_AUTH_BEARER: return "bearer";
    case SQE_AUTH_OIDC_BEARER: return "oidc_bearer";
    case SQE_AUTH_OIDC_PASSWORD: return "oidc_password";
    case SQE_AUTH_CLIENT_CREDENTIALS: return "client_credentials";
    case SQE_AUTH_NONE: break;
    }
    return "none";
}
