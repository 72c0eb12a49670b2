/*
 * srv_core.c: builds the server core from the configuration and implements srv_hooks on it.
 *
 * INTERFACE: srv_core_create, srv_core_hooks, srv_core_health, srv_core_auth,
 *   srv_core_sessions, srv_core_limits, srv_core_oidc_idp, srv_core_destroy (srv_core.h).
 * NOTES:
 * - Authentication: "Bearer <token>" resolves through the session store first (a token handed
 *   out by a Flight handshake); everything else goes through the chain of [auth] providers
 *   (auth_oidc.h for the OIDC ones), or mode's chain when providers is empty: "password" = the
 *   users file only; "anonymous" (the embedded default) = the users file first when one is
 *   configured (so Basic credentials are still checked), then anonymous access, from loopback
 *   peers only unless anonymous_loopback_only = false.
 * - A bearer that is no SQE session goes to the chain when it has oidc_bearer; else, when a REST
 *   catalog uses auth = "session_bearer", it is accepted if that catalog accepts it
 *   (auth_catalog.h): the principal (the claimed user, method "bearer") carries the token,
 *   which the catalogs forward.
 * - The identity provider ([auth.oidc]) and the login cache of oidc_password and
 *   client_credentials belong to the core, not the chain; the chain's providers borrow them.
 * - Principals: the chain's providers build them (OIDC ones with groups, roles and token); a
 *   session token gives method "session" (the session store keeps only the user name), except
 *   a session opened by an identity-provider login (oidc_password, client_credentials): its
 *   credential is the login's key, and each use gets the login's current principal, refreshed
 *   when its token is about to expire; the session ends when that fails.
 * - Sessions are tied to the credential that opened them (session_store_open_cred): the
 *   validator re-checks it against the chain on every use, so a user removed from the users
 *   file, or whose password changed, loses their sessions at the next call (also sessions
 *   restored after a restart).
 * - Directories: [session] dir "" means <data_dir>/sessions; data_dir is created when needed.
 */
#include "server/core/srv_core.h"
#include "server/core/auth_catalog.h"
#include "server/core/auth_oidc.h"

#include <errno.h>
#include <openssl/crypto.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

struct srv_core {
    auth_chain *auth;
    oidc_idp *idp;      /* [auth.oidc], when an oidc provider or token exchange uses it */
    oidc_logins *logins; /* the logins of oidc_password and client_credentials, or NULL */
    bool chain_bearer;  /* a provider of the chain takes bearer tokens (oidc_bearer) */
    auth_catalog *catalog_bearer; /* REST catalog that checks users' own bearer tokens, or NULL */
    session_store *sessions;
    limits *limits;
    health_state health;
    srv_hooks hooks;
};

/* --- hooks ---------------------------------------------------------------------------------- */

static bool oidc_login_method(const char *method) {
    return !strcmp(method, "oidc_password") || !strcmp(method, "client_credentials");
}

/* The principal of a session of user opened with cred: an identity-provider login's current
 * (refreshed) principal, else the user alone (method "session"). */
static int session_principal(srv_core *core, const char *user, const session_cred *cred,
                             sqe_principal **out, sqe_error *err) {
    if (core->logins && oidc_login_method(cred->method))
        return oidc_logins_current(core->logins, cred->fingerprint, out, err);
    return sqe_principal_for_user(user, SQE_AUTH_SESSION, out, err);
}

static int hook_authenticate_cancellable(void *ud, const char *authorization, const char *user,
                                         const char *peer, bool (*gone)(void *gone_ctx),
                                         void *gone_ctx, sqe_principal **principal,
                                         sqe_error *err) {
    srv_core *core = ud;
    if (authorization && strncasecmp(authorization, "Bearer ", 7) == 0) {
        const char *tok = authorization + 7;
        while (*tok == ' ') tok++;
        char *p = NULL;
        session_cred cred;
        int rc = session_store_resolve_cred(core->sessions, tok, &p, NULL, &cred, err);
        if (rc && core->chain_bearer) {
            /* not an SQE session: an identity provider's token for the chain */
            auth_request req = {authorization, user, peer, gone, gone_ctx};
            return auth_chain_authenticate_principal(core->auth, &req, principal, err);
        }
        if (rc && core->catalog_bearer) {
            /* not an SQE session: the user's own token, if the REST catalog accepts it; the
             * principal carries it so the catalogs can forward it */
            const char *name = user && *user ? user : "bearer";
            if (!auth_user_name_valid(name))
                return err_set(err, AUTH_ERR_UNAUTHENTICATED, "Invalid user name");
            SQE_TRY(auth_catalog_check(core->catalog_bearer, tok, err));
            sqe_principal_info info = {.user = name, .token = tok, .method = SQE_AUTH_BEARER};
            return sqe_principal_create(&info, principal, err);
        }
        if (rc) return rc;
        if (user && *user && strcmp(user, p) != 0) {
            free(p);
            return err_set(err, AUTH_ERR_UNAUTHENTICATED,
                           "The claimed user does not match the session's user");
        }
        rc = session_principal(core, p, &cred, principal, err);
        free(p);
        return rc;
    }
    auth_request req = {authorization, user, peer, gone, gone_ctx};
    return auth_chain_authenticate_principal(core->auth, &req, principal, err);
}

/* The credential a new session of principal is tied to. A principal of method "session" (a
 * handshake with a live session's token) gets the credential its user logs in with today,
 * which is the one the live session was just validated against. */
static int session_credential(srv_core *core, const sqe_principal *principal, session_cred *cred,
                              sqe_error *err) {
    static const struct {
        sqe_auth_method method;
        const char *name;
    } kinds[] = {{SQE_AUTH_PASSWORD, "password"}, {SQE_AUTH_ANONYMOUS, "anonymous"}};
    memset(cred, 0, sizeof *cred);
    if (core->logins && (principal->method == SQE_AUTH_OIDC_PASSWORD ||
                         principal->method == SQE_AUTH_CLIENT_CREDENTIALS)) {
        /* tied to the login (its tokens are refreshed for the session); never restored */
        if (!oidc_logins_key(core->logins, principal, cred->fingerprint))
            return err_set(err, AUTH_ERR_UNAUTHENTICATED, "The login has expired; log in again");
        snprintf(cred->method, sizeof cred->method, "%s", sqe_auth_method_name(principal->method));
        return SQE_OK;
    }
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        if (principal->method != kinds[i].method && principal->method != SQE_AUTH_SESSION)
            continue;
        if (!auth_chain_fingerprint(core->auth, kinds[i].method, principal->user,
                                    cred->fingerprint))
            continue;
        snprintf(cred->method, sizeof cred->method, "%s", kinds[i].name);
        return SQE_OK;
    }
    return err_set(err, AUTH_ERR_UNAUTHENTICATED, "No credential to open a session with");
}

/* The session store's validator: the session's credential must still be what the chain
 * accepts for its user (the users file is reread when it changed). */
static bool session_still_valid(void *ud, const char *user, const session_cred *cred) {
    srv_core *core = ud;
    sqe_auth_method method;
    if (oidc_login_method(cred->method))
        return core->logins && oidc_logins_known(core->logins, cred->fingerprint);
    if (!strcmp(cred->method, "password"))
        method = SQE_AUTH_PASSWORD;
    else if (!strcmp(cred->method, "anonymous"))
        method = SQE_AUTH_ANONYMOUS;
    else
        return false; /* none recorded (a session saved by an older version) */
    unsigned char now[32];
    return auth_chain_fingerprint(core->auth, method, user, now) &&
           CRYPTO_memcmp(now, cred->fingerprint, sizeof now) == 0;
}

static int hook_authenticate(void *ud, const char *authorization, const char *user,
                             const char *peer, sqe_principal **principal, sqe_error *err) {
    return hook_authenticate_cancellable(ud, authorization, user, peer, NULL, NULL, principal,
                                         err);
}

static int hook_session_open(void *ud, const sqe_principal *principal, char **token,
                             sqe_error *err) {
    srv_core *core = ud;
    session_cred cred;
    SQE_TRY(session_credential(core, principal, &cred, err));
    return session_store_open_cred(core->sessions, principal->user, &cred, token, err);
}

static int hook_session_resolve(void *ud, const char *token, sqe_principal **principal,
                                srv_session_state *state, sqe_error *err) {
    srv_core *core = ud;
    char *user = NULL;
    session_cred cred;
    SQE_TRY(session_store_resolve_cred(core->sessions, token, &user, state, &cred, err));
    int rc = session_principal(core, user, &cred, principal, err);
    free(user);
    if (rc && state) srv_session_state_clear(state);
    return rc;
}

static int hook_session_save(void *ud, const char *token, const srv_session_state *state,
                             sqe_error *err) {
    return session_store_save(((srv_core *)ud)->sessions, token, state, err);
}

static void hook_session_close(void *ud, const char *token) {
    session_store_close(((srv_core *)ud)->sessions, token);
}

static int hook_admit(void *ud, const char *principal, size_t sql_bytes, uint32_t *timeout_ms,
                      sqe_error *err) {
    return limits_admit(((srv_core *)ud)->limits, principal, sql_bytes, timeout_ms, err);
}

static void hook_release(void *ud, const char *principal) {
    limits_release(((srv_core *)ud)->limits, principal);
}

/* --- construction ----------------------------------------------------------------------------- */

/* mkdir -p for one or two levels (data_dir/sessions), mode 0700. */
static int make_dir(const char *path, sqe_error *err) {
    char buf[4096];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "path too long: %s", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        if (mkdir(buf, 0700) != 0 && errno != EEXIST)
            return err_set(err, SQE_ERR_IO_ERROR, "cannot create directory %s: %s", buf,
                           strerror(errno));
        *p = '/';
    }
    if (mkdir(buf, 0700) != 0 && errno != EEXIST)
        return err_set(err, SQE_ERR_IO_ERROR, "cannot create directory %s: %s", buf,
                       strerror(errno));
    return SQE_OK;
}

static uint32_t clamp_u32(int64_t v) {
    return v <= 0 ? 0 : v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/* The default order of the chain when [auth] providers is empty: what mode stands for. */
static const char *const default_order[] = {"password", "anonymous"};

static int add_provider(srv_core *core, const config *cfg, const char *name, sqe_error *err) {
    auth_provider p;
    int rc;
    if (!strcmp(name, "password")) {
        auth_password_options po;
        auth_password_options_init(&po);
        po.max_concurrent = clamp_u32(cfg->auth.max_concurrent_password_checks);
        po.wait_ms = clamp_u32(cfg->auth.password_check_wait_ms);
        rc = auth_password_provider_opts(cfg->auth.users_file, &po, &p, err);
        if (rc) err_prefix(err, "[auth] users_file");
    } else if (!strcmp(name, "anonymous")) {
        rc = auth_anonymous_provider(cfg->auth.anonymous_loopback_only != 0, &p, err);
    } else if (!strcmp(name, "oidc_bearer")) {
        rc = auth_oidc_bearer_provider(core->idp, &p, err);
        core->chain_bearer = true;
    } else if (!strcmp(name, "oidc_password")) {
        rc = auth_oidc_password_provider(core->logins, &p, err);
    } else {
        rc = auth_oidc_client_credentials_provider(core->logins, &p, err);
    }
    return rc ? rc : auth_chain_add(core->auth, &p, err);
}

/* The chain of [auth] providers (or mode's), the identity provider first when one is used. */
static int build_chain(srv_core *core, const config *cfg, sqe_error *err) {
    const config_auth *a = &cfg->auth;
    bool oidc = config_auth_uses(cfg, "oidc_bearer") || config_auth_uses(cfg, "oidc_password") ||
                config_auth_uses(cfg, "client_credentials");
    if (oidc) SQE_TRY(auth_oidc_idp_from_config(&a->oidc, &core->idp, err));
    if (config_auth_uses(cfg, "oidc_password") || config_auth_uses(cfg, "client_credentials")) {
        char *secret = NULL;
        SQE_TRY(config_oidc_client_secret(&a->oidc, &secret, err));
        oidc_logins_config lc = {.client_id = a->oidc.client_id,
                                 .client_secret = secret,
                                 .scope = a->oidc.scope,
                                 .refresh_before_ms = a->oidc.refresh_before_ms,
                                 .timeout_ms = a->oidc.http_timeout_ms};
        int rc = oidc_logins_create(core->idp, &lc, &core->logins, err);
        if (secret) {
            OPENSSL_cleanse(secret, strlen(secret));
            free(secret);
        }
        SQE_TRY(rc);
    }
    SQE_TRY(auth_chain_set_impersonation(core->auth, a->impersonation_roles.items,
                                         a->impersonation_roles.n, err));
    if (a->providers.n) {
        for (size_t i = 0; i < a->providers.n; i++)
            SQE_TRY(add_provider(core, cfg, a->providers.items[i], err));
    } else {
        for (size_t i = 0; i < sizeof default_order / sizeof default_order[0]; i++)
            if (config_auth_uses(cfg, default_order[i]))
                SQE_TRY(add_provider(core, cfg, default_order[i], err));
    }
    if (core->idp) {
        sqe_error pe;
        if (oidc_idp_prefetch(core->idp, &pe) != SQE_OK)
            fprintf(stderr, "sqe serve: identity provider %s not reachable yet (tokens are "
                            "refused until it is): %s\n",
                    oidc_idp_issuer(core->idp), pe.message);
    }
    return SQE_OK;
}

int srv_core_create(const config *cfg, srv_core **out, sqe_error *err) {
    *out = NULL;
    srv_core *core = calloc(1, sizeof *core);
    if (!core) return err_nomem(err, "server core");
    int rc = auth_chain_create(&core->auth, err);
    if (!rc) {
        auth_chain_limits al = {
            .address_free_failures = clamp_u32(cfg->auth.max_failures_per_address)};
        auth_chain_set_limits(core->auth, &al);
    }
    if (!rc) rc = build_chain(core, cfg, err);

    if (!rc) {
        limits_options lo = {
            .max_concurrent = clamp_u32(cfg->query.max_concurrent),
            .max_concurrent_per_user = clamp_u32(cfg->query.max_concurrent_per_user),
            .timeout_ms = clamp_u32(cfg->query.timeout_ms),
            .max_sql_bytes = (size_t)(cfg->query.max_sql_bytes > 0 ? cfg->query.max_sql_bytes : 0),
        };
        rc = limits_create(&lo, &core->limits, err);
    }

    char dir[4096] = "";
    if (!rc && !strcmp(cfg->session.persistence, "file")) {
        if (*cfg->session.dir)
            snprintf(dir, sizeof dir, "%s", cfg->session.dir);
        else if (snprintf(dir, sizeof dir, "%s/sessions", cfg->coordinator.data_dir) >=
                 (int)sizeof dir)
            rc = err_set(err, SQE_ERR_INVALID_ARGUMENTS, "[coordinator] data_dir is too long");
        if (!rc) rc = make_dir(dir, err);
        if (rc) err_prefix(err, "[session] dir");
    }
    if (!rc) {
        session_store_options so = {
            .idle_timeout_ms = cfg->session.idle_timeout_ms,
            .absolute_timeout_ms = cfg->session.absolute_timeout_ms,
            .max_sessions = clamp_u32(cfg->session.max_sessions),
            .dir = dir,
            .snapshot_interval_ms = cfg->session.snapshot_interval_ms,
            .sweep_interval_ms = cfg->session.sweep_interval_ms,
        };
        rc = session_store_create(&so, &core->sessions, err);
        if (!rc) session_store_set_validator(core->sessions, session_still_valid, core);
        if (!rc) {
            sqe_error e2;
            if (session_store_load(core->sessions, &e2) != SQE_OK)
                fprintf(stderr, "sqe serve: saved sessions not restored: %s\n", e2.message);
        }
    }
    if (!rc) rc = auth_catalog_create(cfg, &core->catalog_bearer, err);
    if (rc) {
        srv_core_destroy(core);
        return rc;
    }
    core->hooks = (srv_hooks){
        .ud = core,
        .authenticate = hook_authenticate,
        .authenticate_cancellable = hook_authenticate_cancellable,
        .session_open = hook_session_open,
        .session_resolve = hook_session_resolve,
        .session_save = hook_session_save,
        .session_close = hook_session_close,
        .admit = hook_admit,
        .release = hook_release,
    };
    *out = core;
    return SQE_OK;
}

const srv_hooks *srv_core_hooks(srv_core *core) { return &core->hooks; }
health_state *srv_core_health(srv_core *core) { return &core->health; }
auth_chain *srv_core_auth(srv_core *core) { return core->auth; }
session_store *srv_core_sessions(srv_core *core) { return core->sessions; }
limits *srv_core_limits(srv_core *core) { return core->limits; }
oidc_idp *srv_core_oidc_idp(srv_core *core) { return core->idp; }

void srv_core_destroy(srv_core *core) {
    if (!core) return;
    session_store_destroy(core->sessions);
    limits_destroy(core->limits);
    auth_chain_destroy(core->auth);
    oidc_logins_destroy(core->logins);
    oidc_idp_destroy(core->idp);
    auth_catalog_destroy(core->catalog_bearer);
    free(core);
}
