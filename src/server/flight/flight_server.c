/*
 * flight_server.c: the gRPC transport of the Flight SQL server: startup and shutdown, the worker
 * pool, per-call message I/O, authentication, and routing of FlightService methods.
 *
 * INTERFACE: flight_server_options_init, flight_server_create, flight_server_port,
 *            flight_server_drain, flight_server_destroy (flight_server.h); flight_call_* and
 *            flight_stmt_begin/end (flight_int.h).
 * NOTES: every worker owns one completion queue registered with the server and asks for one
 * call at a time (grpc_server_request_call with unregistered methods), then serves it to the end
 * with blocking waits on that queue. A RECV_CLOSE_ON_SERVER op is outstanding for the whole call,
 * so a client cancel or disconnect is noticed while waiting for any other op (and by
 * flight_call_poll_cancel between engine chunks) and sets the call's cancel target, which is the
 * engine's cancel flag of the running query. Shutdown: grpc_server_shutdown_and_notify plus
 * cancel_all_calls make every pending request fail, so the workers fall out of their loops.
 * A send gRPC has not taken within opts.stream_idle_ms (the client stopped reading) cancels the
 * call, and DoGet streams take a per-user and a total slot, so stalled readers never hold every
 * worker. A gRPC resource quota (opts.transport_memory_bytes) bounds what the transport buffers,
 * which is what holds against header blocks continued forever (gRPC 1.51 checks its metadata
 * limit per frame).
 * Authentication follows Flight's Handshake: Basic credentials in the Handshake's
 * `authorization` header give a bearer token in the response headers, and every later call must
 * carry `authorization: Bearer <token>` (resolved through srv_hooks). A bearer token that is no
 * SQE session is the user's own: an OIDC access token the oidc_bearer provider verified, or a
 * token a REST catalog accepts (auth = "session_bearer"); the client sends it on every call and
 * the call's principal carries it to every catalog and storage request (sessions and tickets
 * keep the principal for DoGet). With no hooks, anything is accepted and tokens are
 * random handles.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "common/clock.h"
#include "common/err.h"
#include "server/flight/flight_int.h"

#define METHOD_PREFIX "/arrow.flight.protocol.FlightService/"

static char tag_request, tag_close, tag_op, tag_shutdown;
static pthread_once_t grpc_once = PTHREAD_ONCE_INIT;

static void grpc_init_once(void) { grpc_init(); }

void flight_server_options_init(flight_server_options *opts) {
    memset(opts, 0, sizeof *opts);
    opts->bind_address = "127.0.0.1";
    opts->port = 32010;
    opts->threads = 32;
    opts->max_message_bytes = 4u << 20;
    opts->max_receive_bytes = 64u << 20;
    opts->ticket_timeout_ms = 300000;
    opts->request_timeout_ms = 30000;
    opts->max_idle_ms = 3600000;
    opts->stream_idle_ms = 300000;
    opts->max_header_bytes = 16u << 10;
    opts->transport_memory_bytes = (size_t)64 << 20;
}

uint16_t flight_server_port(const flight_server *srv) { return srv->port; }

/* ---- call I/O ------------------------------------------------------------------------------- */

/* Waits for the completion of tag on the call's queue, noting the close event on the way.
 * Returns the op's success flag. With idle_ms (not UINT32_MAX), an op still pending after
 * idle_ms (a send the client's flow control holds back: it stopped reading) cancels the call
 * with DEADLINE_EXCEEDED and the query through the cancel target; the op then completes as
 * failed, and the worker is free again. */
static bool call_wait_idle(flight_call *fc, void *tag, uint32_t idle_ms) {
    gpr_timespec deadline = idle_ms == UINT32_MAX
                                ? gpr_inf_future(GPR_CLOCK_MONOTONIC)
                                : gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC),
                                               gpr_time_from_millis(idle_ms, GPR_TIMESPAN));
    for (;;) {
        grpc_event ev = grpc_completion_queue_next(fc->cq, deadline, NULL);
        if (ev.type == GRPC_QUEUE_TIMEOUT && !fc->idle_expired) {
            char msg[160];
            snprintf(msg, sizeof msg, "the client read nothing for %u ms: the stream is "
                     "cancelled (stream idle timeout)", idle_ms);
            fc->idle_expired = true;
            if (fc->cancel_target) *fc->cancel_target = 1;
            grpc_call_cancel_with_status(fc->call, GRPC_STATUS_DEADLINE_EXCEEDED, msg, NULL);
            deadline = gpr_inf_future(GPR_CLOCK_MONOTONIC);
            continue;
        }
        if (ev.type != GRPC_OP_COMPLETE) return false;
        if (ev.tag == &tag_close) {
            fc->closed = true;
            if (fc->cancelled && fc->cancel_target) *fc->cancel_target = 1;
            if (tag == &tag_close) return true;
            continue;
        }
        if (ev.tag == tag) return ev.success != 0;
    }
}

static bool call_wait(flight_call *fc, void *tag) { return call_wait_idle(fc, tag, UINT32_MAX); }

bool flight_call_poll_cancel(flight_call *fc) {
    if (!fc->closed) {
        grpc_event ev = grpc_completion_queue_next(fc->cq, gpr_time_0(GPR_CLOCK_MONOTONIC), NULL);
        if (ev.type == GRPC_OP_COMPLETE && ev.tag == &tag_close) {
            fc->closed = true;
            if (fc->cancelled && fc->cancel_target) *fc->cancel_target = 1;
        }
    }
    return fc->cancelled != 0;
}

const char *flight_call_header(const flight_call *fc, const char *key, size_t *len) {
    for (size_t i = 0; i < fc->md.count; i++) {
        const grpc_metadata *m = &fc->md.metadata[i];
        size_t kl = GRPC_SLICE_LENGTH(m->key);
        if (kl == strlen(key) && strncasecmp((const char *)GRPC_SLICE_START_PTR(m->key), key, kl) == 0) {
            *len = GRPC_SLICE_LENGTH(m->value);
            return (const char *)GRPC_SLICE_START_PTR(m->value);
        }
    }
    *len = 0;
    return NULL;
}

/* Fills the initial-metadata op (with the Handshake's authorization reply, if any). */
static size_t initial_md_op(flight_call *fc, grpc_op *op, grpc_metadata *md) {
    memset(op, 0, sizeof *op);
    memset(md, 0, sizeof *md);
    op->op = GRPC_OP_SEND_INITIAL_METADATA;
    if (fc->reply_authorization) {
        md->key = grpc_slice_from_static_string("authorization");
        md->value = grpc_slice_from_copied_string(fc->reply_authorization);
        op->data.send_initial_metadata.count = 1;
        op->data.send_initial_metadata.metadata = md;
    }
    fc->md_sent = true;
    return 1;
}

int flight_call_recv(flight_call *fc, uint8_t **out, size_t *len, sqe_error *err) {
    *out = NULL;
    *len = 0;
    grpc_byte_buffer *bb = NULL;
    grpc_op op;
    memset(&op, 0, sizeof op);
    op.op = GRPC_OP_RECV_MESSAGE;
    op.data.recv_message.recv_message = &bb;
    if (grpc_call_start_batch(fc->call, &op, 1, &tag_op, NULL) != GRPC_CALL_OK || !call_wait(fc, &tag_op)) {
        if (bb) grpc_byte_buffer_destroy(bb);
        return err_set(err, SQE_ERR_IO_ERROR, "the client's stream broke");
    }
    if (!bb) return SQE_OK;
    grpc_byte_buffer_reader rd;
    if (!grpc_byte_buffer_reader_init(&rd, bb)) {
        grpc_byte_buffer_destroy(bb);
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "unreadable message (compressed?)");
    }
    grpc_slice s = grpc_byte_buffer_reader_readall(&rd);
    grpc_byte_buffer_reader_destroy(&rd);
    grpc_byte_buffer_destroy(bb);
    size_t n = GRPC_SLICE_LENGTH(s);
    uint8_t *buf = malloc(n ? n : 1);
    if (!buf) {
        grpc_slice_unref(s);
        return err_nomem(err, "message");
    }
    memcpy(buf, GRPC_SLICE_START_PTR(s), n);
    grpc_slice_unref(s);
    *out = buf;
    *len = n;
    return SQE_OK;
}

int flight_call_send_slice(flight_call *fc, grpc_slice slice, sqe_error *err) {
    grpc_byte_buffer *bb = grpc_raw_byte_buffer_create(&slice, 1);
    grpc_slice_unref(slice);
    grpc_op ops[2];
    grpc_metadata md;
    size_t n = 0;
    if (!fc->md_sent) n += initial_md_op(fc, &ops[0], &md);
    memset(&ops[n], 0, sizeof ops[n]);
    ops[n].op = GRPC_OP_SEND_MESSAGE;
    ops[n].data.send_message.send_message = bb;
    n++;
    bool ok = grpc_call_start_batch(fc->call, ops, n, &tag_op, NULL) == GRPC_CALL_OK &&
              call_wait_idle(fc, &tag_op, fc->srv->opts.stream_idle_ms);
    grpc_byte_buffer_destroy(bb);
    if (n == 2) grpc_slice_unref(md.value); /* gRPC borrows metadata slices */
    if (!ok && fc->idle_expired)
        return err_set(err, SQE_ERR_USER_CANCELED, "the client read nothing for %u ms: stream "
                       "cancelled (stream idle timeout)", fc->srv->opts.stream_idle_ms);
    if (!ok) return err_set(err, SQE_ERR_USER_CANCELED, "the client went away");
    return SQE_OK;
}

int flight_call_send_msg(flight_call *fc, const ProtobufCMessage *msg, sqe_error *err) {
    size_t n = protobuf_c_message_get_packed_size(msg);
    grpc_slice s = grpc_slice_malloc(n);
    protobuf_c_message_pack(msg, GRPC_SLICE_START_PTR(s));
    return flight_call_send_slice(fc, s, err);
}

/* Sends the final status (and the initial metadata when nothing was sent), with the trailers
 * x-sqe-sqlstate and x-sqe-error-position ("line:column") when given. */
static void call_finish(flight_call *fc, int status, const char *message, const char *sqlstate,
                        const char *position) {
    grpc_op ops[2];
    grpc_metadata md, tmd[2];
    memset(&md, 0, sizeof md);
    memset(tmd, 0, sizeof tmd);
    size_t n = 0, n_tmd = 0;
    if (!fc->md_sent) n += initial_md_op(fc, &ops[0], &md);
    memset(&ops[n], 0, sizeof ops[n]);
    ops[n].op = GRPC_OP_SEND_STATUS_FROM_SERVER;
    ops[n].data.send_status_from_server.status = (grpc_status_code)status;
    grpc_slice details = grpc_slice_from_copied_string(message ? message : "");
    ops[n].data.send_status_from_server.status_details = message ? &details : NULL;
    if (sqlstate) {
        tmd[n_tmd].key = grpc_slice_from_static_string("x-sqe-sqlstate");
        tmd[n_tmd++].value = grpc_slice_from_copied_string(sqlstate);
    }
    if (position) {
        tmd[n_tmd].key = grpc_slice_from_static_string("x-sqe-error-position");
        tmd[n_tmd++].value = grpc_slice_from_copied_string(position);
    }
    ops[n].data.send_status_from_server.trailing_metadata_count = n_tmd;
    ops[n].data.send_status_from_server.trailing_metadata = n_tmd ? tmd : NULL;
    n++;
    if (grpc_call_start_batch(fc->call, ops, n, &tag_op, NULL) == GRPC_CALL_OK)
        call_wait(fc, &tag_op);
    grpc_slice_unref(details);
    grpc_slice_unref(md.value);
    for (size_t i = 0; i < n_tmd; i++) grpc_slice_unref(tmd[i].value);
    fc->finished = true;
}

static void call_fail(flight_call *fc, int rc, const sqe_error *e) {
    const err_code_info *info = err_code_lookup(rc);
    int status = fc->grpc_status ? fc->grpc_status : info->grpc_status;
    char msg[700], pos[32];
    snprintf(msg, sizeof msg, "%s (SQLSTATE %s)", e->message[0] ? e->message : info->name,
             e->sqlstate[0] ? e->sqlstate : info->sqlstate);
    if (e->line > 0 && e->column > 0) snprintf(pos, sizeof pos, "%d:%d", e->line, e->column);
    call_finish(fc, status, msg, e->sqlstate[0] ? e->sqlstate : info->sqlstate,
                e->line > 0 && e->column > 0 ? pos : NULL);
}

/* ---- authentication ------------------------------------------------------------------------- */

static int b64val(int c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+' || c == '-') return 62;
    if (c == '/' || c == '_') return 63;
    return -1;
}

/* The user name of a Basic authorization value (malloc'ed), or NULL. Padded and unpadded. */
static char *basic_user(const char *authz) {
    if (!authz || strncasecmp(authz, "Basic ", 6) != 0) return NULL;
    const char *p = authz + 6;
    size_t n = strlen(p);
    char *out = malloc(n + 1);
    if (!out) return NULL;
    size_t o = 0;
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < n && p[i] != '='; i++) {
        int v = b64val((unsigned char)p[i]);
        if (v < 0) {
            free(out);
            return NULL;
        }
        acc = (acc << 6) | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[o++] = (char)((acc >> bits) & 0xff);
        }
    }
    out[o] = 0;
    char *colon = strchr(out, ':');
    if (colon) *colon = 0;
    return out;
}

static char *header_dup(const flight_call *fc, const char *key) {
    size_t len;
    const char *v = flight_call_header(fc, key, &len);
    if (!v || len > 16384) return NULL;
    return strndup(v, len);
}

/* The login's "client gone" test: only the call's close op is outstanding while it
 * authenticates, so polling the queue for it is safe here (flight_call_poll_cancel). */
static bool call_gone(void *ctx) {
    flight_call *fc = ctx;
    return flight_call_poll_cancel(fc); /* the client canceled (reset) the stream */
}

static int auth_fail(flight_call *fc, sqe_error *err, const char *why) {
    /* too busy to check the password now (the check cap): retry later, not a wrong password */
    fc->grpc_status = err && err->code == SQE_ERR_QUERY_QUEUE_FULL ? 14 /* UNAVAILABLE */
                                                                    : FLIGHT_UNAUTHENTICATED;
    if (err && err->code) return err->code;
    return err_set(err, SQE_ERR_PERMISSION_DENIED, "%s", why);
}

/* A bearer token that is no SQE session: the user's own token for a REST catalog, accepted when
 * that catalog accepts it (hooks.authenticate asks it and gives a principal of method "bearer"
 * that carries the token, which the catalogs forward). The claimed user is the optional
 * `x-sqe-user` header ("bearer" without one). The session is keyed by user and token
 * ("principal:<user>@bearer:<token>": the "principal:" prefix keeps it out of the session store,
 * which does not know the token). */
static int catalog_bearer(flight_call *fc, const char *authz, sqe_principal **principal,
                          sqe_error *err) {
    const srv_hooks *h = &fc->srv->opts.hooks;
    if (err) err_clear(err);
    char *user = header_dup(fc, "x-sqe-user");
    sqe_principal *p = NULL;
    int rc = h->authenticate(h->ud, authz, user, fc->peer, &p, err);
    free(user);
    if (rc) return auth_fail(fc, err, "invalid bearer token");
    if ((p->method != SQE_AUTH_BEARER && p->method != SQE_AUTH_OIDC_BEARER) || !p->token) {
        sqe_principal_unref(p);
        return auth_fail(fc, err, "the bearer token is neither an SQE session nor accepted by "
                                  "a REST catalog");
    }
    size_t n = strlen(p->user) + strlen(p->token) + 20;
    char *key = malloc(n);
    if (key) snprintf(key, n, "principal:%s@bearer:%s", p->user, p->token);
    char *cat = NULL, *sch = NULL;
    rc = key ? flight_session_touch(fc->srv, key, p->user, &cat, &sch, err)
             : err_nomem(err, "session");
    free(cat);
    free(sch);
    if (rc) {
        free(key);
        sqe_principal_unref(p);
        return rc;
    }
    fc->session_key = key;
    *principal = p;
    return SQE_OK;
}

/* A principal for name without credentials (servers without hooks). */
static sqe_principal *plain_principal(const char *name) {
    sqe_principal *p = NULL;
    sqe_principal_for_user(name && *name ? name : "anonymous", SQE_AUTH_NONE, &p, NULL);
    return p;
}

/* The caller's own bearer token (an OIDC access token, or one a REST catalog accepted): it is
 * sent on every call, so no SQE session is opened for it. */
static bool carries_own_token(const sqe_principal *p) {
    return p && (p->method == SQE_AUTH_BEARER || p->method == SQE_AUTH_OIDC_BEARER) && p->token;
}

static int authenticate(flight_call *fc, bool handshake, sqe_error *err) {
    flight_server *srv = fc->srv;
    const srv_hooks *h = &srv->opts.hooks;
    char *authz = header_dup(fc, "authorization");
    sqe_principal *principal = NULL;
    int rc = SQE_OK;
    if (err) err_clear(err);
    if (!handshake && authz && strncasecmp(authz, "Bearer ", 7) == 0) {
        const char *token = authz + 7;
        char *cat = NULL, *sch = NULL;
        if (h->session_resolve) {
            srv_session_state st;
            memset(&st, 0, sizeof st);
            rc = h->session_resolve(h->ud, token, &principal, &st, err);
            if (rc && h->authenticate) {
                /* a session that ended keeps its reason; any other token may be the user's
                 * own (OIDC, or a REST catalog's) */
                sqe_error first = err ? *err : (sqe_error){0};
                rc = catalog_bearer(fc, authz, &principal, err);
                if (rc && err && !strncmp(first.message, "Session ended", 13)) *err = first;
            } else if (rc) {
                rc = auth_fail(fc, err, "invalid session token");
            } else {
                rc = flight_session_touch(srv, token, principal->user, &cat, &sch, err);
                /* A session the server does not know yet (restart): take the saved state. */
                if (!rc) flight_session_adopt(srv, token, &st);
            }
            srv_session_state_clear(&st);
        } else {
            pthread_mutex_lock(&srv->lock);
            flight_session *s = srv->sessions;
            while (s && strcmp(s->key, token) != 0) s = s->next;
            if (s) principal = plain_principal(s->principal);
            pthread_mutex_unlock(&srv->lock);
            if (!s && h->authenticate) rc = auth_fail(fc, err, "unknown or expired session token");
            else if (!s) principal = plain_principal(NULL);
            if (!rc && !principal) rc = err_nomem(err, "session");
            if (!rc) rc = flight_session_touch(srv, token, principal->user, &cat, &sch, err);
        }
        free(cat);
        free(sch);
        if (!rc && !fc->session_key) fc->session_key = strdup(token);
    } else {
        if (h->authenticate_cancellable) {
            /* a stream the client has reset by now costs no password check */
            rc = h->authenticate_cancellable(h->ud, authz, NULL, fc->peer, call_gone, fc,
                                             &principal, err);
            if (rc) rc = auth_fail(fc, err, "authentication failed");
        } else if (h->authenticate) {
            rc = h->authenticate(h->ud, authz, NULL, fc->peer, &principal, err);
            if (rc) rc = auth_fail(fc, err, "authentication failed");
        } else {
            char *name = basic_user(authz);
            principal = plain_principal(name);
            free(name);
            if (!principal) rc = err_nomem(err, "session");
        }
        if (!rc && handshake && carries_own_token(principal)) {
            /* a Handshake with the user's own catalog token: no SQE session (it would lose
             * the token); the client keeps sending the same token */
            sqe_principal_unref(principal);
            principal = NULL;
            rc = catalog_bearer(fc, authz, &principal, err);
            if (!rc && !(fc->reply_authorization = strdup(authz))) rc = err_nomem(err, "session");
        } else if (!rc && handshake) {
            char *token = NULL;
            if (h->session_open) {
                rc = h->session_open(h->ud, principal, &token, err);
            } else {
                token = malloc(40);
                if (token) flight_random_handle(token);
            }
            if (!rc && token) {
                size_t n = strlen(token) + 8;
                fc->reply_authorization = malloc(n);
                if (fc->reply_authorization) snprintf(fc->reply_authorization, n, "Bearer %s", token);
                fc->session_key = token;
                token = NULL;
            }
            free(token);
        } else if (!rc) {
            /* Without a bearer token a session is one client connection (its peer address):
             * two clients of one user never share prepared statements or session options. */
            const char *peer = fc->peer;
            size_t n = strlen(principal->user) + strlen(peer) + 16;
            fc->session_key = malloc(n);
            if (fc->session_key)
                snprintf(fc->session_key, n, "principal:%s@%s", principal->user, peer);
        }
        if (!rc && fc->session_key && !carries_own_token(principal)) {
            char *cat = NULL, *sch = NULL;
            rc = flight_session_touch(srv, fc->session_key, principal->user, &cat, &sch, err);
            free(cat);
            free(sch);
        }
    }
    free(authz);
    if (!rc && (!principal || !fc->session_key)) rc = err_nomem(err, "session");
    if (rc) {
        sqe_principal_unref(principal);
        return rc;
    }
    fc->principal = principal;
    flight_session_describe(srv, fc->session_key, principal, fc->peer);
    return SQE_OK;
}

/* ---- statements: admission and draining -------------------------------------------------- */

int flight_stmt_begin(flight_call *fc, size_t sql_bytes, sqe_error *err) {
    flight_server *srv = fc->srv;
    pthread_mutex_lock(&srv->lock);
    bool draining = srv->draining || srv->stopping;
    /* Results nobody fetched within ticket_timeout_ms give their admission slots back before
     * this statement asks for one: otherwise a server whose slots all hold abandoned tickets
     * would refuse every statement for good (expiry ran only after a statement was admitted). */
    flight_tickets_expire_locked(srv);
    pthread_mutex_unlock(&srv->lock);
    if (draining) {
        fc->grpc_status = 14; /* UNAVAILABLE */
        return err_set(err, SQE_ERR_IO_ERROR, "server is shutting down");
    }
    const srv_hooks *h = &srv->opts.hooks;
    if (h->admit) {
        uint32_t timeout_ms = 0;
        int rc = h->admit(h->ud, fc->principal->user, sql_bytes, &timeout_ms, err);
        if (rc) return rc;
        fc->time_limit_ms = timeout_ms;
        if (timeout_ms) fc->deadline_ns = clock_mono_ns() + (uint64_t)timeout_ms * 1000000ull;
    }
    pthread_mutex_lock(&srv->lock);
    srv->running++;
    flight_session_running_locked(srv, fc->session_key, +1);
    pthread_mutex_unlock(&srv->lock);
    return SQE_OK;
}

void flight_stmt_end(flight_call *fc) {
    flight_server *srv = fc->srv;
    const srv_hooks *h = &srv->opts.hooks;
    if (h->release) h->release(h->ud, fc->principal->user);
    pthread_mutex_lock(&srv->lock);
    if (srv->running) srv->running--;
    flight_session_running_locked(srv, fc->session_key, -1);
    pthread_cond_broadcast(&srv->cond);
    pthread_mutex_unlock(&srv->lock);
}

/* ---- result streams: per-user and total caps ----------------------------------------------- */

/* Takes a DoGet stream slot for the call's user: at most max_streams_per_user per user and
 * streams_max_total in all (the other workers stay free for calls that do not stream), so
 * stalled readers cannot take every worker. RESOURCE_EXHAUSTED naming the limit when full. */
static int stream_slot_take(flight_call *fc, sqe_error *err) {
    flight_server *srv = fc->srv;
    const char *user = fc->principal->user;
    uint32_t per_user = srv->opts.max_streams_per_user;
    pthread_mutex_lock(&srv->lock);
    flight_stream_count **pp = &srv->streams;
    while (*pp && strcmp((*pp)->user, user) != 0) pp = &(*pp)->next;
    int rc = SQE_OK;
    if (*pp && (*pp)->open >= per_user) {
        rc = err_set(err, SQE_ERR_QUERY_QUEUE_FULL,
                     "Too many open result streams of user '%s': the limit "
                     "[query] max_streams_per_user = %u is reached; read or close one first",
                     user, per_user);
    } else if (srv->streams_open >= srv->streams_max_total) {
        rc = err_set(err, SQE_ERR_QUERY_QUEUE_FULL,
                     "Too many open result streams: %u of the server's %u workers stream "
                     "results already; retry later", srv->streams_open, srv->n_workers);
    } else if (!*pp) {
        flight_stream_count *c = calloc(1, sizeof *c);
        if (c) c->user = strdup(user);
        if (!c || !c->user) {
            free(c);
            rc = err_nomem(err, "streams");
        } else {
            *pp = c;
        }
    }
    if (!rc) {
        (*pp)->open++;
        srv->streams_open++;
    }
    pthread_mutex_unlock(&srv->lock);
    if (rc) fc->grpc_status = 8; /* RESOURCE_EXHAUSTED */
    return rc;
}

static void stream_slot_release(flight_call *fc) {
    flight_server *srv = fc->srv;
    pthread_mutex_lock(&srv->lock);
    for (flight_stream_count **pp = &srv->streams; *pp; pp = &(*pp)->next) {
        flight_stream_count *c = *pp;
        if (strcmp(c->user, fc->principal->user) != 0) continue;
        if (c->open) c->open--;
        if (srv->streams_open) srv->streams_open--;
        if (!c->open) {
            *pp = c->next;
            free(c->user);
            free(c);
        }
        break;
    }
    pthread_mutex_unlock(&srv->lock);
}

/* ---- routing -------------------------------------------------------------------------------- */

static int handshake(flight_call *fc, sqe_error *err) {
    /* Drain the client's HandshakeRequests (usually none), reply with one empty response. */
    for (int i = 0; i < 16; i++) {
        uint8_t *m;
        size_t len;
        SQE_TRY(flight_call_recv(fc, &m, &len, err));
        if (!m) break;
        free(m);
    }
    Arrow__Flight__Protocol__HandshakeResponse resp;
    arrow__flight__protocol__handshake_response__init(&resp);
    return flight_call_send_msg(fc, &resp.base, err);
}

static void serve_call(flight_call *fc) {
    sqe_error e;
    memset(&e, 0, sizeof e);
    char method[128];
    size_t ml = GRPC_SLICE_LENGTH(fc->details.method);
    if (ml >= sizeof method) ml = sizeof method - 1;
    memcpy(method, GRPC_SLICE_START_PTR(fc->details.method), ml);
    method[ml] = 0;
    const char *name = strncmp(method, METHOD_PREFIX, strlen(METHOD_PREFIX)) == 0
                           ? method + strlen(METHOD_PREFIX) : NULL;
    static const char *const known[] = {"Handshake", "GetFlightInfo", "GetSchema", "DoGet",
                                        "DoPut", "DoAction", "ListActions"};
    bool is_known = false;
    for (size_t i = 0; name && i < sizeof known / sizeof known[0]; i++)
        if (strcmp(name, known[i]) == 0) is_known = true;
    if (!is_known) {
        char msg[200];
        snprintf(msg, sizeof msg, "method %.150s is not implemented", method);
        call_finish(fc, 12, msg, NULL, NULL);
        return;
    }
    bool hs = strcmp(name, "Handshake") == 0;
    int rc = authenticate(fc, hs, &e);
    if (rc) {
        call_fail(fc, rc, &e);
        return;
    }
    if (hs) {
        rc = handshake(fc, &e);
    } else if (strcmp(name, "ListActions") == 0) {
        uint8_t *m = NULL;
        size_t len;
        rc = flight_call_recv(fc, &m, &len, &e);
        free(m);
        if (!rc) rc = flight_list_actions(fc, &e);
    } else if (strcmp(name, "DoPut") == 0) {
        uint8_t *m = NULL;
        size_t len;
        rc = flight_call_recv(fc, &m, &len, &e);
        if (!rc && !m) rc = err_set(&e, SQE_ERR_INVALID_ARGUMENTS, "DoPut without a message");
        if (!rc) rc = flight_do_put(fc, m, len, &e);
        free(m);
    } else {
        uint8_t *m = NULL;
        size_t len;
        rc = flight_call_recv(fc, &m, &len, &e);
        if (!rc && !m) rc = err_set(&e, SQE_ERR_INVALID_ARGUMENTS, "%s without a request", name);
        if (!rc) {
            if (strcmp(name, "GetFlightInfo") == 0) rc = flight_get_flight_info(fc, m, len, &e);
            else if (strcmp(name, "GetSchema") == 0) rc = flight_get_schema(fc, m, len, &e);
            else if (strcmp(name, "DoGet") == 0) {
                rc = stream_slot_take(fc, &e);
                if (!rc) {
                    rc = flight_do_get(fc, m, len, &e);
                    stream_slot_release(fc);
                }
            } else {
                rc = flight_do_action(fc, m, len, &e);
            }
        }
        free(m);
    }
    if (rc) call_fail(fc, rc, &e);
    else call_finish(fc, 0, NULL, NULL, NULL);
}

static void *worker_main(void *arg) {
    flight_worker *w = arg;
    flight_server *srv = w->srv;
    for (;;) {
        flight_call fc;
        memset(&fc, 0, sizeof fc);
        fc.srv = srv;
        fc.cq = w->cq;
        grpc_call_details_init(&fc.details);
        grpc_metadata_array_init(&fc.md);
        grpc_call_error ce = grpc_server_request_call(srv->server, &fc.call, &fc.details, &fc.md,
                                                      w->cq, w->cq, &tag_request);
        bool ok = false;
        if (ce == GRPC_CALL_OK) {
            for (;;) {
                grpc_event ev = grpc_completion_queue_next(w->cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
                if (ev.type != GRPC_OP_COMPLETE) break;
                if (ev.tag == &tag_request) {
                    ok = ev.success != 0;
                    break;
                }
            }
        }
        if (!ok) {
            if (fc.call) grpc_call_unref(fc.call);
            grpc_call_details_destroy(&fc.details);
            grpc_metadata_array_destroy(&fc.md);
            break;
        }
        grpc_op op;
        memset(&op, 0, sizeof op);
        op.op = GRPC_OP_RECV_CLOSE_ON_SERVER;
        op.data.recv_close_on_server.cancelled = &fc.cancelled;
        bool close_pending = grpc_call_start_batch(fc.call, &op, 1, &tag_close, NULL) == GRPC_CALL_OK;
        if (!close_pending) fc.closed = true;
        char *peer = grpc_call_get_peer(fc.call);
        if (peer) {
            snprintf(fc.peer, sizeof fc.peer, "%s", strncmp(peer, "ipv4:", 5) == 0 ? peer + 5
                                                  : strncmp(peer, "ipv6:", 5) == 0 ? peer + 5 : peer);
            gpr_free(peer);
        }
        serve_call(&fc);
        if (!fc.closed) call_wait(&fc, &tag_close);
        grpc_call_unref(fc.call);
        grpc_call_details_destroy(&fc.details);
        grpc_metadata_array_destroy(&fc.md);
        sqe_principal_unref(fc.principal);
        free(fc.session_key);
        free(fc.reply_authorization);
    }
    return NULL;
}

/* ---- lifecycle ------------------------------------------------------------------------------ */

static char *read_file(const char *path, sqe_error *err) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        err_set(err, SQE_ERR_IO_ERROR, "cannot read %s: %s", path, strerror(errno));
        return NULL;
    }
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (cap - len < 4096) {
            char *g = realloc(buf, cap + 65536);
            if (!g) break;
            buf = g;
            cap += 65536;
        }
        size_t n = fread(buf + len, 1, cap - len - 1, f);
        len += n;
        if (n == 0) break;
        if (len > (16u << 20)) break;
    }
    fclose(f);
    if (!buf) {
        err_nomem(err, "file");
        return NULL;
    }
    buf[len] = 0;
    return buf;
}

static void stop_server(flight_server *srv) {
    if (srv->server && srv->started) {
        grpc_completion_queue *scq = srv->shutdown_cq;
        grpc_server_shutdown_and_notify(srv->server, scq, &tag_shutdown);
        grpc_server_cancel_all_calls(srv->server);
        for (;;) {
            grpc_event ev = grpc_completion_queue_next(scq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
            if (ev.type != GRPC_OP_COMPLETE || ev.tag == &tag_shutdown) break;
        }
    }
    for (uint32_t i = 0; i < srv->n_workers; i++)
        if (srv->workers[i].started) pthread_join(srv->workers[i].thread, NULL);
    if (srv->server) grpc_server_destroy(srv->server);
    srv->server = NULL;
    if (srv->shutdown_cq) {
        grpc_completion_queue_shutdown(srv->shutdown_cq);
        while (grpc_completion_queue_next(srv->shutdown_cq, gpr_inf_future(GPR_CLOCK_REALTIME),
                                          NULL).type != GRPC_QUEUE_SHUTDOWN) {
        }
        grpc_completion_queue_destroy(srv->shutdown_cq);
        srv->shutdown_cq = NULL;
    }
    for (uint32_t i = 0; i < srv->n_workers; i++) {
        grpc_completion_queue *cq = srv->workers[i].cq;
        if (!cq) continue;
        grpc_completion_queue_shutdown(cq);
        while (grpc_completion_queue_next(cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL).type !=
               GRPC_QUEUE_SHUTDOWN) {
        }
        grpc_completion_queue_destroy(cq);
    }
}

static void free_server(flight_server *srv) {
    flight_state_free_all(srv);
    if (srv->quota) grpc_resource_quota_unref(srv->quota);
    while (srv->streams) {
        flight_stream_count *c = srv->streams;
        srv->streams = c->next;
        free(c->user);
        free(c);
    }
    free(srv->workers);
    free(srv->bind_address);
    free(srv->tls_cert_path);
    free(srv->tls_key_path);
    pthread_mutex_destroy(&srv->lock);
    pthread_cond_destroy(&srv->cond);
    free(srv);
}

int flight_server_create(sqe_db *db, const flight_server_options *opts, flight_server **out,
                         sqe_error *err) {
    *out = NULL;
    if (!db || !opts) return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "no database or options");
    if ((opts->tls_cert_path == NULL) != (opts->tls_key_path == NULL))
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                       "TLS needs both a certificate and a key file");
    pthread_once(&grpc_once, grpc_init_once);
    flight_server *srv = calloc(1, sizeof *srv);
    if (!srv) return err_nomem(err, "flight server");
    pthread_mutex_init(&srv->lock, NULL);
    pthread_cond_init(&srv->cond, NULL);
    srv->db = db;
    srv->opts = *opts;
    if (!srv->opts.threads) srv->opts.threads = 32;
    if (srv->opts.max_message_bytes < (64u << 10)) srv->opts.max_message_bytes = 64u << 10;
    if (!srv->opts.max_receive_bytes) srv->opts.max_receive_bytes = 64u << 20;
    if (srv->opts.max_receive_bytes > 0x7fffffff) srv->opts.max_receive_bytes = 0x7fffffff;
    if (!srv->opts.ticket_timeout_ms) srv->opts.ticket_timeout_ms = 300000;
    if (!srv->opts.request_timeout_ms) srv->opts.request_timeout_ms = 30000;
    if (srv->opts.request_timeout_ms < 1000) srv->opts.request_timeout_ms = 1000;
    if (srv->opts.request_timeout_ms > 0x7fffffff) srv->opts.request_timeout_ms = 0x7fffffff;
    if (!srv->opts.max_idle_ms) srv->opts.max_idle_ms = 3600000;
    if (srv->opts.max_idle_ms < 1000) srv->opts.max_idle_ms = 1000;
    if (srv->opts.max_idle_ms > 0x7fffffff) srv->opts.max_idle_ms = 0x7fffffff;
    srv->bind_address = strdup(opts->bind_address ? opts->bind_address : "127.0.0.1");
    srv->tls_cert_path = opts->tls_cert_path ? strdup(opts->tls_cert_path) : NULL;
    srv->tls_key_path = opts->tls_key_path ? strdup(opts->tls_key_path) : NULL;
    srv->opts.bind_address = srv->bind_address;
    srv->opts.tls_cert_path = srv->tls_cert_path;
    srv->opts.tls_key_path = srv->tls_key_path;
    if (!srv->opts.stream_idle_ms) srv->opts.stream_idle_ms = 300000;
    if (!srv->opts.max_header_bytes) srv->opts.max_header_bytes = 16u << 10;
    if (srv->opts.max_header_bytes < 1024) srv->opts.max_header_bytes = 1024;
    if (srv->opts.max_header_bytes > (16u << 20)) srv->opts.max_header_bytes = 16u << 20;
    if (!srv->opts.transport_memory_bytes) srv->opts.transport_memory_bytes = (size_t)64 << 20;
    if (srv->opts.transport_memory_bytes < (4u << 20)) srv->opts.transport_memory_bytes = 4u << 20;
    srv->n_workers = srv->opts.threads;
    srv->streams_max_total = srv->n_workers - srv->n_workers / 4;
    if (!srv->opts.max_streams_per_user) srv->opts.max_streams_per_user = srv->n_workers / 4;
    if (!srv->opts.max_streams_per_user) srv->opts.max_streams_per_user = 1;
    srv->workers = calloc(srv->n_workers, sizeof *srv->workers);
    if (!srv->bind_address || !srv->workers) {
        free_server(srv);
        return err_nomem(err, "flight server");
    }

    /* Slow clients (slowloris): gRPC core has no per-request header deadline, so a connection
     * is bounded by (1) the server handshake timeout, which covers the TLS handshake, the HTTP/2
     * preface and the client's first SETTINGS frame, and (2) keepalive: the server PINGs every
     * connection (also one without calls) after request_timeout_ms without a ping, and closes
     * it when the ACK does not come within request_timeout_ms. A real client's HTTP/2 stack
     * answers PINGs on its own, so idle connections (anonymous sessions are keyed by the
     * connection) and long DoGet streams live on; no connection age limit is set. Incoming
     * bytes count as liveness too, so a client that trickles a HEADERS frame forever is only
     * ended by (3) the idle limit: no call for max_idle_ms (an hour by default, when its
     * anonymous session would be dropped anyway). */
    int rt = (int)srv->opts.request_timeout_ms;
    struct {
        const char *key;
        int value;
    } const iargs[] = {
        {GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH, (int)srv->opts.max_receive_bytes},
        {GRPC_ARG_MAX_SEND_MESSAGE_LENGTH, -1},
        {GRPC_ARG_ALLOW_REUSEPORT, 0},
        {GRPC_ARG_SERVER_HANDSHAKE_TIMEOUT_MS, rt},
        {GRPC_ARG_KEEPALIVE_TIME_MS, rt},
        {GRPC_ARG_KEEPALIVE_TIMEOUT_MS, rt},
        {GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1},
        {GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0},
        {GRPC_ARG_MAX_CONNECTION_IDLE_MS, (int)srv->opts.max_idle_ms},
        {GRPC_ARG_MAX_METADATA_SIZE, (int)srv->opts.max_header_bytes},
    };
    enum { N_ARGS = sizeof iargs / sizeof iargs[0] };
    grpc_arg args[N_ARGS];
    memset(args, 0, sizeof args);
    for (size_t i = 0; i < N_ARGS; i++) {
        args[i].type = GRPC_ARG_INTEGER;
        args[i].key = (char *)iargs[i].key;
        args[i].value.integer = iargs[i].value;
    }
    /* Request headers (issue 14, the CONTINUATION flood of gRPC 1.51): gRPC checks
     * max_metadata_size per HEADERS / CONTINUATION frame, not per header block, so a block
     * continued without END_HEADERS grows without limit. What holds is a memory quota for the
     * transport: when gRPC's buffers (read buffers, call arenas, the parsed metadata of every
     * connection) pass it, gRPC resets the stream with ENHANCE_YOUR_CALM and closes the
     * connection ("Buffers full"). */
    srv->quota = grpc_resource_quota_create("sqe-flight");
    grpc_resource_quota_resize(srv->quota, srv->opts.transport_memory_bytes);
    grpc_arg all[N_ARGS + 1];
    memcpy(all, args, sizeof args);
    all[N_ARGS].type = GRPC_ARG_POINTER;
    all[N_ARGS].key = (char *)GRPC_ARG_RESOURCE_QUOTA;
    all[N_ARGS].value.pointer.p = srv->quota;
    all[N_ARGS].value.pointer.vtable = grpc_resource_quota_arg_vtable();
    grpc_channel_args cargs = {N_ARGS + 1, all};
    srv->server = grpc_server_create(&cargs, NULL);
    srv->shutdown_cq = grpc_completion_queue_create_for_next(NULL);
    grpc_server_register_completion_queue(srv->server, srv->shutdown_cq, NULL);
    for (uint32_t i = 0; i < srv->n_workers; i++) {
        srv->workers[i].srv = srv;
        srv->workers[i].cq = grpc_completion_queue_create_for_next(NULL);
        grpc_server_register_completion_queue(srv->server, srv->workers[i].cq, NULL);
    }

    grpc_server_credentials *creds = NULL;
    int rc = SQE_OK;
    if (srv->tls_cert_path) {
        char *cert = read_file(srv->tls_cert_path, err);
        char *key = cert ? read_file(srv->tls_key_path, err) : NULL;
        if (cert && key) {
            grpc_ssl_pem_key_cert_pair pair = {key, cert};
            creds = grpc_ssl_server_credentials_create(NULL, &pair, 1, 0, NULL);
            if (!creds) rc = err_set(err, SQE_ERR_INVALID_ARGUMENTS, "invalid TLS certificate or key");
        } else {
            rc = SQE_ERR_IO_ERROR;
        }
        free(cert);
        free(key);
    } else {
        creds = grpc_insecure_server_credentials_create();
    }
    if (!rc) {
        char addr[300];
        if (strchr(srv->bind_address, ':') && srv->bind_address[0] != '[')
            snprintf(addr, sizeof addr, "[%s]:%u", srv->bind_address, (unsigned)srv->opts.port);
        else
            snprintf(addr, sizeof addr, "%s:%u", srv->bind_address, (unsigned)srv->opts.port);
        int port = grpc_server_add_http2_port(srv->server, addr, creds);
        if (port <= 0)
            rc = err_set(err, SQE_ERR_IO_ERROR, "cannot listen on %s (address in use or invalid)", addr);
        else
            srv->port = (uint16_t)port;
    }
    if (creds) grpc_server_credentials_release(creds);
    if (rc) {
        stop_server(srv);
        free_server(srv);
        return rc;
    }
    grpc_server_start(srv->server);
    srv->started = true;
    for (uint32_t i = 0; i < srv->n_workers; i++) {
        if (pthread_create(&srv->workers[i].thread, NULL, worker_main, &srv->workers[i]) != 0) {
            stop_server(srv);
            free_server(srv);
            return err_set(err, SQE_ERR_OUT_OF_MEMORY, "cannot start flight worker threads");
        }
        srv->workers[i].started = true;
    }
    *out = srv;
    return SQE_OK;
}

void flight_server_begin_drain(flight_server *srv) {
    if (!srv) return;
    pthread_mutex_lock(&srv->lock);
    srv->draining = 1;
    pthread_mutex_unlock(&srv->lock);
}

uint32_t flight_server_drain(flight_server *srv, uint32_t deadline_ms) {
    if (!srv) return 0;
    pthread_mutex_lock(&srv->lock);
    srv->draining = 1;
    int64_t until = flight_now_ms() + deadline_ms;
    while (srv->running > 0) {
        int64_t now = flight_now_ms();
        if (now >= until) break;
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        int64_t wait = until - now > 100 ? 100 : until - now;
        ts.tv_nsec += (long)(wait * 1000000);
        ts.tv_sec += ts.tv_nsec / 1000000000;
        ts.tv_nsec %= 1000000000;
        pthread_cond_timedwait(&srv->cond, &srv->lock, &ts);
    }
    uint32_t left = srv->running;
    for (flight_ticket *t = srv->tickets; t; t = t->next) t->cancel = 1;
    pthread_mutex_unlock(&srv->lock);
    return left;
}

void flight_server_destroy(flight_server *srv) {
    if (!srv) return;
    pthread_mutex_lock(&srv->lock);
    srv->stopping = 1;
    for (flight_ticket *t = srv->tickets; t; t = t->next) t->cancel = 1;
    pthread_mutex_unlock(&srv->lock);
    stop_server(srv);
    free_server(srv);
}
