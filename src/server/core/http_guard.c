/*
 * http_guard.c: per-request receive deadlines for libmicrohttpd connections (see http_guard.h).
 *
 * INTERFACE: http_guard_create, http_guard_notify, http_guard_uri_log, http_guard_request_done,
 *   http_guard_kills, http_guard_destroy (http_guard.h).
 * NOTES: each connection gets an entry (its socket context) in a doubly linked list under one
 * mutex. The watchdog wakes every TICK_MS and calls shutdown(2), never close(2), on the socket
 * of an overdue request: the descriptor stays valid for libmicrohttpd, which sees end of file
 * and closes the connection itself (notify CLOSED then frees the entry). Entries are freed only
 * by the CLOSED notification, under the mutex, so the watchdog never touches a freed entry.
 */
#include "server/core/http_guard.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

#define TICK_MS 250

typedef struct guard_conn {
    struct guard_conn *prev, *next;
    int fd;
    bool waiting;        /* a request is being received */
    bool killed;
    uint32_t requests;   /* requests started on this connection */
    int64_t deadline_ms; /* valid while waiting */
} guard_conn;

struct http_guard {
    uint32_t timeout_ms;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    guard_conn *head;
    bool stopping;
    uint64_t kills;
    pthread_t thread;
    bool started;
};


static int64_t mono_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void *watchdog(void *arg) {
    http_guard *g = arg;
    pthread_mutex_lock(&g->lock);
    while (!g->stopping) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += TICK_MS * 1000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&g->cond, &g->lock, &ts);
        int64_t now = mono_ms();
        for (guard_conn *e = g->head; e; e = e->next) {
            if (e->waiting && !e->killed && now >= e->deadline_ms && e->fd >= 0) {
                shutdown(e->fd, SHUT_RDWR);
                e->killed = true;
                g->kills++;
            }
        }
    }
    pthread_mutex_unlock(&g->lock);
    return NULL;
}

int http_guard_create(uint32_t request_timeout_ms, http_guard **out, sqe_error *err) {
    http_guard *g = calloc(1, sizeof *g);
    if (!g) return err_nomem(err, "HTTP guard");
    g->timeout_ms = request_timeout_ms ? request_timeout_ms : 30000;
    pthread_mutex_init(&g->lock, NULL);
    pthread_cond_init(&g->cond, NULL);
    if (pthread_create(&g->thread, NULL, watchdog, g) != 0) {
        http_guard_destroy(g);
        return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "cannot start the HTTP watchdog");
    }
    g->started = true;
    *out = g;
    return SQE_OK;
}

/* The guard is reachable from a connection only through its entry, so entries keep a pointer
 * back; the cls of the URI-log callback is the guard as well. */
typedef struct guard_ctx {
    guard_conn conn;
    http_guard *guard;
} guard_ctx;

static guard_ctx *ctx_of(struct MHD_Connection *c) {
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return ci ? (guard_ctx *)ci->socket_context : NULL;
}

void http_guard_notify(void *cls, struct MHD_Connection *c, void **socket_context,
                       enum MHD_ConnectionNotificationCode code) {
    http_guard *g = cls;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        guard_ctx *x = calloc(1, sizeof *x);
        if (!x) return; /* unguarded; the inactivity timeout still applies */
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        x->guard = g;
        x->conn.fd = ci ? ci->connect_fd : -1;
        x->conn.waiting = true;
        x->conn.deadline_ms = mono_ms() + g->timeout_ms;
        pthread_mutex_lock(&g->lock);
        x->conn.next = g->head;
        if (g->head) g->head->prev = &x->conn;
        g->head = &x->conn;
        pthread_mutex_unlock(&g->lock);
        *socket_context = x;
    } else if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
        guard_ctx *x = *socket_context;
        if (!x) return;
        pthread_mutex_lock(&g->lock);
        if (x->conn.prev)
            x->conn.prev->next = x->conn.next;
        else
            g->head = x->conn.next;
        if (x->conn.next) x->conn.next->prev = x->conn.prev;
        pthread_mutex_unlock(&g->lock);
        free(x);
        *socket_context = NULL;
    }
}

void *http_guard_uri_log(void *cls, const char *uri, struct MHD_Connection *c) {
    (void)uri;
    http_guard *g = cls;
    guard_ctx *x = ctx_of(c);
    if (!x) return NULL;
    pthread_mutex_lock(&g->lock);
    if (x->conn.requests++ > 0) { /* kept alive: the new request's clock starts now */
        x->conn.waiting = true;
        x->conn.deadline_ms = mono_ms() + g->timeout_ms;
    }
    pthread_mutex_unlock(&g->lock);
    return NULL;
}

void http_guard_request_done(struct MHD_Connection *c) {
    guard_ctx *x = ctx_of(c);
    http_guard *g = x ? x->guard : NULL;
    if (!g) return;
    pthread_mutex_lock(&g->lock);
    x->conn.waiting = false;
    pthread_mutex_unlock(&g->lock);
}

uint64_t http_guard_kills(http_guard *g) {
    pthread_mutex_lock(&g->lock);
    uint64_t n = g->kills;
    pthread_mutex_unlock(&g->lock);
    return n;
}

void http_guard_destroy(http_guard *g) {
    if (!g) return;
    pthread_mutex_lock(&g->lock);
    g->stopping = true;
    pthread_cond_broadcast(&g->cond);
    pthread_mutex_unlock(&g->lock);
    if (g->started) pthread_join(g->thread, NULL);
    /* entries left (daemon not stopped) belong to MHD's sockets: free them here */
    while (g->head) {
        guard_conn *e = g->head;
        g->head = e->next;
        free((guard_ctx *)e);
    }
    pthread_mutex_destroy(&g->lock);
    pthread_cond_destroy(&g->cond);
    free(g);
}
