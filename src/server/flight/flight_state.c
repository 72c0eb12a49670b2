/*
 * flight_state.c: the Flight server's in-memory state: sessions (per bearer token: catalog,
 * schema, session properties and SQL prepared statements), Flight prepared statements and
 * pending results (tickets), with random handles.
 *
 * INTERFACE: flight_now_ms, flight_random_handle, flight_session_touch, flight_session_set,
 *            flight_session_put, flight_session_snapshot, flight_session_adopt,
 *            flight_session_drop, flight_state_free_all, flight_prepared_free,
 *            flight_ticket_free, flight_tickets_expire_locked, flight_session_describe,
 *            flight_session_running_locked (flight_int.h); flight_server_list_sessions
 *            (flight_server.h).
 * NOTES: handles are 128 random bits (getrandom) in hex, so one client cannot guess another's
 * prepared statement or result. Sessions idle for an hour are dropped when new ones are made.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "common/err.h"
#include "server/flight/flight_int.h"

#define SESSION_IDLE_MS (3600 * 1000)

int64_t flight_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void flight_random_handle(char *out) {
    uint8_t b[16];
    size_t got = 0;
    while (got < sizeof b) {
        ssize_t n = getrandom(b + got, sizeof b - got, 0);
        if (n <= 0) {
            /* fall back on the clock; not expected on Linux */
            uint64_t t = (uint64_t)flight_now_ms() ^ (uint64_t)(uintptr_t)out;
            for (size_t i = got; i < sizeof b; i++) b[i] = (uint8_t)(t >> (8 * (i % 8)));
            break;
        }
        got += (size_t)n;
    }
    for (size_t i = 0; i < sizeof b; i++) snprintf(out + 2 * i, 3, "%02x", b[i]);
}

static void session_free(flight_session *s) {
    free(s->key);
    free(s->principal);
    srv_session_state_clear(&s->state);
    free(s);
}

/* The session of key; caller holds srv->lock. */
static flight_session *session_find(flight_server *srv, const char *key) {
    flight_session *s = srv->sessions;
    while (s && strcmp(s->key, key) != 0) s = s->next;
    return s;
}

int flight_session_touch(flight_server *srv, const char *key, const char *principal,
                         char **catalog, char **schema, sqe_error *err) {
    *catalog = *schema = NULL;
    int64_t now = flight_now_ms();
    pthread_mutex_lock(&srv->lock);
    flight_session *s = srv->sessions;
    while (s && strcmp(s->key, key) != 0) s = s->next;
    if (!s) {
        /* drop idle sessions first */
        for (flight_session **pp = &srv->sessions; *pp;) {
            if (now - (*pp)->last_used_ms > SESSION_IDLE_MS) {
                flight_session *d = *pp;
                *pp = d->next;
                session_free(d);
            } else {
                pp = &(*pp)->next;
            }
        }
        s = calloc(1, sizeof *s);
        if (s) {
            s->id = ++srv->next_session_id;
            s->created_ms = now;
            s->key = strdup(key);
            s->principal = strdup(principal ? principal : "anonymous");
        }
        if (!s || !s->key || !s->principal) {
            if (s) session_free(s);
            pthread_mutex_unlock(&srv->lock);
            return err_nomem(err, "session");
        }
        s->next = srv->sessions;
        srv->sessions = s;
    }
    s->last_used_ms = now;
    if (s->state.catalog) *catalog = strdup(s->state.catalog);
    if (s->state.schema) *schema = strdup(s->state.schema);
    pthread_mutex_unlock(&srv->lock);
    return SQE_OK;
}

int flight_session_set(flight_server *srv, const char *key, const char *catalog,
                       const char *schema, sqe_error *err) {
    pthread_mutex_lock(&srv->lock);
    flight_session *s = srv->sessions;
    while (s && strcmp(s->key, key) != 0) s = s->next;
    int rc = s ? srv_session_set_catalog_schema(&s->state, catalog, schema, err)
               : err_set(err, SQE_ERR_NOT_FOUND, "no such session");
    pthread_mutex_unlock(&srv->lock);
    return rc;
}

int flight_session_put(flight_server *srv, const char *key, flight_session_list list,
                       const char *name, const char *value, sqe_error *err) {
    pthread_mutex_lock(&srv->lock);
    flight_session *s = session_find(srv, key);
    int rc;
    if (!s)
        rc = err_set(err, SQE_ERR_NOT_FOUND, "no such session");
    else
        rc = srv_session_put(&s->state,
                             list == FLIGHT_SESSION_PROPERTIES ? SRV_SESSION_PROPERTIES
                                                               : SRV_SESSION_PREPARED,
                             name, value, err);
    pthread_mutex_unlock(&srv->lock);
    return rc;
}

int flight_session_note_result(flight_server *srv, const char *key, const sqe_result *res,
                               bool *changed, sqe_error *err) {
    pthread_mutex_lock(&srv->lock);
    flight_session *s = session_find(srv, key);
    int rc = s ? srv_session_note(&s->state, res, changed, err)
               : err_set(err, SQE_ERR_NOT_FOUND, "no such session");
    pthread_mutex_unlock(&srv->lock);
    return rc;
}

int flight_session_snapshot(flight_server *srv, const char *key, srv_session_state *out,
                            sqe_error *err) {
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&srv->lock);
    flight_session *s = session_find(srv, key);
    int rc = SQE_OK;
    if (!s) {
        rc = err_set(err, SQE_ERR_NOT_FOUND, "no such session");
    } else {
        rc = srv_session_copy(out, &s->state, err);
        if (!rc && s->principal) {
            free(out->principal);
            out->principal = strdup(s->principal);
            if (!out->principal) rc = err_nomem(err, "session");
        }
    }
    pthread_mutex_unlock(&srv->lock);
    if (rc) srv_session_state_clear(out);
    return rc;
}

void flight_session_adopt(flight_server *srv, const char *key, srv_session_state *saved) {
    pthread_mutex_lock(&srv->lock);
    flight_session *s = session_find(srv, key);
    const srv_session_state *st = s ? &s->state : NULL;
    if (st && !st->catalog && !st->schema && !st->time_zone && !st->n_properties &&
        !st->n_prepared) {
        char *principal = saved->principal;
        saved->principal = NULL;
        srv_session_state_clear(&s->state);
        s->state = *saved;
        memset(saved, 0, sizeof *saved);
        saved->principal = principal;
    }
    pthread_mutex_unlock(&srv->lock);
}

void flight_prepared_free(flight_prepared *p) {
    if (!p) return;
    for (size_t i = 0; i < (size_t)p->n_rows * (size_t)p->n_params; i++) free(p->params[i].text);
    free(p->params);
    free(p->session_key);
    free(p->sql);
    free(p);
}

void flight_session_describe(flight_server *srv, const char *key, const sqe_principal *p,
                             const char *peer) {
    if (!key || !p) return;
    pthread_mutex_lock(&srv->lock);
    flight_session *s = session_find(srv, key);
    if (s && !s->auth_method[0]) {
        snprintf(s->auth_method, sizeof s->auth_method, "%s", sqe_auth_method_name(p->method));
        snprintf(s->peer, sizeof s->peer, "%s", peer ? peer : "");
    }
    pthread_mutex_unlock(&srv->lock);
}

void flight_session_running_locked(flight_server *srv, const char *key, int delta) {
    flight_session *s = key ? session_find(srv, key) : NULL;
    if (!s) return;
    if (delta > 0) s->running++;
    else if (s->running) s->running--;
}

int flight_server_list_sessions(flight_server *srv, sqe_session_emit emit, void *ctx,
                                sqe_error *err) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    int64_t wall = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000, mono = flight_now_ms();
    int rc = SQE_OK;
    pthread_mutex_lock(&srv->lock);
    for (flight_session *s = srv->sessions; s && !rc; s = s->next) {
        char id[32];
        snprintf(id, sizeof id, "flight-%llu", (unsigned long long)s->id);
        sqe_session_row row = {
            .session_id = id,
            .user = s->principal,
            .auth_method = s->auth_method[0] ? s->auth_method : NULL,
            .protocol = "flight",
            .client_address = s->peer[0] ? s->peer : NULL,
            .created_ms = wall - (mono - s->created_ms),
            .last_used_ms = wall - (mono - s->last_used_ms),
            .catalog = s->state.catalog,
            .schema = s->state.schema,
            .state = s->running ? "active" : "idle",
        };
        rc = emit(ctx, &row, err);
    }
    pthread_mutex_unlock(&srv->lock);
    return rc;
}

void flight_ticket_free(flight_server *srv, flight_ticket *t) {
    if (!t) return;
    if (t->res) sqe_result_destroy(t->res);
    if (t->stmt) sqe_stmt_destroy(t->stmt);
    if (t->conn) sqe_disconnect(t->conn);
    if (t->admitted) {
        const srv_hooks *h = &srv->opts.hooks;
        if (h->release) h->release(h->ud, t->principal);
        if (srv->running) srv->running--;
        flight_session_running_locked(srv, t->session_key, -1);
        pthread_cond_broadcast(&srv->cond);
    }
    free(t->principal);
    free(t->session_key);
    free(t);
}

void flight_session_drop(flight_server *srv, const char *key) {
    pthread_mutex_lock(&srv->lock);
    for (flight_session **pp = &srv->sessions; *pp; pp = &(*pp)->next) {
        if (strcmp((*pp)->key, key) == 0) {
            flight_session *d = *pp;
            *pp = d->next;
            session_free(d);
            break;
        }
    }
    flight_prepared *drop = NULL;
    for (flight_prepared **pp = &srv->prepared; *pp;) {
        if (strcmp((*pp)->session_key, key) == 0) {
            flight_prepared *d = *pp;
            *pp = d->next;
            d->next = drop;
            drop = d;
        } else {
            pp = &(*pp)->next;
        }
    }
    pthread_mutex_unlock(&srv->lock);
    while (drop) {
        flight_prepared *n = drop->next;
        flight_prepared_free(drop);
        drop = n;
    }
}

void flight_tickets_expire_locked(flight_server *srv) {
    int64_t now = flight_now_ms();
    for (flight_ticket **pp = &srv->tickets; *pp;) {
        flight_ticket *t = *pp;
        if (!t->in_use && now - t->created_ms > (int64_t)srv->opts.ticket_timeout_ms) {
            *pp = t->next;
            flight_ticket_free(srv, t);
        } else {
            pp = &t->next;
        }
    }
}

void flight_state_free_all(flight_server *srv) {
    while (srv->sessions) {
        flight_session *s = srv->sessions;
        srv->sessions = s->next;
        session_free(s);
    }
    while (srv->prepared) {
        flight_prepared *p = srv->prepared;
        srv->prepared = p->next;
        flight_prepared_free(p);
    }
    while (srv->tickets) {
        flight_ticket *t = srv->tickets;
        srv->tickets = t->next;
        flight_ticket_free(srv, t);
    }
}
