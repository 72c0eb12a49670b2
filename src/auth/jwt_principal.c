/*
 * jwt_principal.c: principals from verified JWT claims (see jwt_principal.h).
 *
 * INTERFACE: jwt_principal_build, jwt_claim_path.
 * NOTES: the strings are borrowed from the token's JSON while sqe_principal_create copies them,
 * so nothing here outlives the call but the principal.
 */
#include "auth/jwt_principal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PATH 256

json_t *jwt_claim_path(json_t *claims, const char *path, bool *through_non_object) {
    *through_non_object = false;
    json_t *v = json_object_get(claims, path);
    if (v || !strchr(path, '.')) return v;
    size_t n = strlen(path);
    if (n >= MAX_PATH) return NULL;
    char buf[MAX_PATH];
    memcpy(buf, path, n + 1);
    json_t *cur = claims;
    for (char *name = buf;;) {
        char *dot = strchr(name, '.');
        if (dot) *dot = 0;
        if (!json_is_object(cur)) {
            *through_non_object = true;
            return NULL;
        }
        cur = json_object_get(cur, name);
        if (!cur || !dot) return cur;
        name = dot + 1;
    }
}


/* The strings at path (none when path is NULL or absent) into a new array *out of *n. */
static int string_list(json_t *claims, const char *path, const char ***out, uint32_t *n,
                       jwt_reason *reason, sqe_error *err) {
    *out = NULL;
    *n = 0;
    if (!path) return SQE_OK;
    bool bad_path;
    json_t *v = jwt_claim_path(claims, path, &bad_path);
    if (bad_path)
        return jwt_refuse(reason, err, JWT_INVALID_CLAIM, "claim path \"%.64s\" runs through a "
                         "value that is not an object", path);
    if (!v) return SQE_OK;
    size_t count = json_is_string(v) ? 1 : json_is_array(v) ? json_array_size(v) : 0;
    if (!json_is_string(v) && !json_is_array(v))
        return jwt_refuse(reason, err, JWT_INVALID_CLAIM,
                         "claim \"%.64s\" is not a string or an array of strings", path);
    if (count > JWT_PRINCIPAL_MAX_ENTRIES)
        return jwt_refuse(reason, err, JWT_INVALID_CLAIM, "claim \"%.64s\" has %zu entries (at "
                         "most %u)", path, count, JWT_PRINCIPAL_MAX_ENTRIES);
    if (!count) return SQE_OK;
    const char **list = calloc(count, sizeof *list);
    if (!list) return err_nomem(err, "principal claims");
    for (size_t i = 0; i < count; i++) {
        json_t *e = json_is_string(v) ? v : json_array_get(v, i);
        if (!json_is_string(e) || json_string_length(e) == 0 ||
            json_string_length(e) > JWT_PRINCIPAL_MAX_NAME) {
            free(list);
            return jwt_refuse(reason, err, JWT_INVALID_CLAIM, "claim \"%.64s\" holds an entry "
                             "that is not a string of 1 to %u bytes", path,
                             JWT_PRINCIPAL_MAX_NAME);
        }
        list[i] = json_string_value(e);
    }
    *out = list;
    *n = (uint32_t)count;
    return SQE_OK;
}

int jwt_principal_build(const jwt_token *t, const char *raw, size_t raw_len,
                        const jwt_principal_config *cfg, sqe_principal **out, jwt_reason *reason,
                        sqe_error *err) {
    *out = NULL;
    *reason = JWT_OK;
    const char *user_claim = cfg && cfg->user_claim ? cfg->user_claim
                                                    : JWT_PRINCIPAL_DEFAULT_USER_CLAIM;
    bool bad_path;
    const char *used = user_claim;
    json_t *user = jwt_claim_path(t->claims, user_claim, &bad_path);
    if (bad_path)
        return jwt_refuse(reason, err, JWT_INVALID_CLAIM, "claim path \"%.64s\" runs through a "
                         "value that is not an object", user_claim);
    if (!user) {
        used = "sub";
        user = json_object_get(t->claims, "sub");
    }
    if (!user)
        return jwt_refuse(reason, err, JWT_MISSING_CLAIM, "neither \"%.64s\" nor \"sub\" is there",
                         user_claim);
    if (!json_is_string(user) || json_string_length(user) == 0 ||
        json_string_length(user) > JWT_PRINCIPAL_MAX_NAME)
        return jwt_refuse(reason, err, JWT_INVALID_CLAIM,
                         "claim \"%.64s\" is not a string of 1 to %u bytes", used,
                         JWT_PRINCIPAL_MAX_NAME);
    const char **groups = NULL, **roles = NULL;
    uint32_t n_groups = 0, n_roles = 0;
    int rc = string_list(t->claims, cfg ? cfg->groups_claim : NULL, &groups, &n_groups, reason, err);
    if (rc == SQE_OK)
        rc = string_list(t->claims, cfg ? cfg->roles_claim : NULL, &roles, &n_roles, reason, err);
    char *token = NULL;
    if (rc == SQE_OK && raw) {
        token = malloc(raw_len + 1);
        if (!token)
            rc = err_nomem(err, "principal token");
        else {
            memcpy(token, raw, raw_len);
            token[raw_len] = 0;
        }
    }
    if (rc == SQE_OK) {
        sqe_principal_info info = {
            .user = json_string_value(user),
            .groups = groups,
            .n_groups = n_groups,
            .roles = roles,
            .n_roles = n_roles,
            .token = token,
            .token_expires_ms = t->exp * 1000,
            .method = SQE_AUTH_OIDC_BEARER,
        };
        rc = sqe_principal_create(&info, out, err);
    }
    if (token) {
        volatile char *w = token;
        for (size_t i = 0; i < raw_len; i++) w[i] = 0;
        free(token);
    }
    free(groups);
    free(roles);
    return rc;
}
