/*
 * srv_core.h: the server core of `sqe serve`, built from the configuration: the authentication
 * chain ([auth]), the session store ([session]), the admission limits ([query]) and the health
 * phase, offered to the protocol front ends as one srv_hooks table.
 */
#ifndef SQE_SERVER_CORE_SRV_CORE_H
#define SQE_SERVER_CORE_SRV_CORE_H

#include "auth/oidc_idp.h"
#include "common/config.h"
#include "server/core/auth.h"
#include "server/core/health.h"
#include "server/core/limits.h"
#include "server/core/session_store.h"
#include "server/srv_hooks.h"

typedef struct srv_core srv_core;

/* Builds the core from cfg (read only during the call): loads the users file, creates the
 * session directory and restores saved sessions (a session file that cannot be restored is
 * logged and left aside: the server starts without those sessions). Errors name the [section]
 * key and file involved; on error *out is NULL and nothing is left running. */
int srv_core_create(const config *cfg, srv_core **out, sqe_error *err);

/* The hooks for the front ends; valid until srv_core_destroy. */
const srv_hooks *srv_core_hooks(srv_core *core);

/* The shared health phase (starts as HEALTH_STARTING). */
health_state *srv_core_health(srv_core *core);

/* The parts, for tests and the startup log. */
auth_chain *srv_core_auth(srv_core *core);
session_store *srv_core_sessions(srv_core *core);
limits *srv_core_limits(srv_core *core);
/* The identity provider of [auth.oidc] (borrowed, lives until srv_core_destroy), or NULL when
 * no provider of the chain uses it (Trino external authentication takes it). */
oidc_idp *srv_core_oidc_idp(srv_core *core);

/* Saves the sessions (with persistence) and frees everything. NULL is ignored. */
void srv_core_destroy(srv_core *core);

#endif
