/*
 * health.c: the process phase and the health-only HTTP listener ([metrics] health_port).
 *
 * INTERFACE: health_set, health_get, health_answer, health_server_create, health_server_port,
 *   health_server_destroy (health.h).
 * NOTES: the listener is a small libmicrohttpd daemon (internal polling thread, 2 threads) that
 * answers GET/HEAD on the two paths and 404 elsewhere; request bodies are ignored.
 */
#include "server/core/health.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "server/core/http_guard.h"

struct health_server {
    struct MHD_Daemon *daemon;
    http_guard *guard;
    const health_state *hs;
    uint16_t port;
};

void health_set(health_state *hs, health_phase phase) {
    __atomic_store_n(&hs->phase, (int)phase, __ATOMIC_SEQ_CST);
}

health_phase health_get(const health_state *hs) {
    return (health_phase)__atomic_load_n(&hs->phase, __ATOMIC_SEQ_CST);
}

unsigned health_answer(const health_state *hs, const char *url, const char **body) {
    if (!strcmp(url, "/healthz")) {
        *body = "ok\n";
        return 200;
    }
    if (strcmp(url, "/readyz") != 0) return 0;
    health_phase p = hs ? health_get(hs) : HEALTH_READY;
    *body = p == HEALTH_READY ? "ready\n" : p == HEALTH_DRAINING ? "draining\n" : "starting\n";
    return p == HEALTH_READY ? 200 : 503;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
                              const char *method, const char *version, const char *upload_data,
                              size_t *upload_data_size, void **con_cls) {
    health_server *srv = cls;
    if (!*con_cls) {
        *con_cls = srv; /* first call: headers only */
        return MHD_YES;
    }
    if (*upload_data_size) {
        *upload_data_size = 0;
        return MHD_YES;
    }
    http_guard_request_done(c);
    const char *body = "not found\n";
    unsigned status;
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) {
        status = 405;
        body = "method not allowed\n";
    } else {
        status = health_answer(srv->hs, url, &body);
        if (!status) {
            status = 404;
            body = "not found\n";
        }
    }
    struct MHD_Response *r =
        MHD_create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_PERSISTENT);
    if (!r) return MHD_NO;
    MHD_add_response_header(r, "Content-Type", "text/plain; charset=utf-8");
    enum MHD_Result ret = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ret;
}

int health_server_create(const char *bind_address, uint16_t port, const health_state *hs,
                         health_server **out, sqe_error *err) {
    *out = NULL;
    health_server *srv = calloc(1, sizeof *srv);
    if (!srv) return err_nomem(err, "health server");
    srv->hs = hs;
    struct sockaddr_in a4;
    struct sockaddr_in6 a6;
    struct sockaddr *addr;
    unsigned flags = MHD_USE_AUTO | MHD_USE_INTERNAL_POLLING_THREAD;
    memset(&a4, 0, sizeof a4);
    memset(&a6, 0, sizeof a6);
    if (inet_pton(AF_INET, bind_address, &a4.sin_addr) == 1) {
        a4.sin_family = AF_INET;
        a4.sin_port = htons(port);
        addr = (struct sockaddr *)&a4;
    } else if (inet_pton(AF_INET6, bind_address, &a6.sin6_addr) == 1) {
        a6.sin6_family = AF_INET6;
        a6.sin6_port = htons(port);
        addr = (struct sockaddr *)&a6;
        flags |= MHD_USE_IPv6;
    } else {
        free(srv);
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "invalid health address '%s'",
                       bind_address);
    }
    int rc = http_guard_create(10000, &srv->guard, err);
    if (rc) {
        free(srv);
        return rc;
    }
    srv->daemon = MHD_start_daemon(
        flags, port, NULL, NULL, handle, srv, MHD_OPTION_SOCK_ADDR, addr,
        MHD_OPTION_THREAD_POOL_SIZE, 2u, MHD_OPTION_CONNECTION_TIMEOUT, 10u,
        MHD_OPTION_CONNECTION_LIMIT, 256u, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
        (size_t)(32 * 1024), MHD_OPTION_NOTIFY_CONNECTION, http_guard_notify, srv->guard,
        MHD_OPTION_URI_LOG_CALLBACK, http_guard_uri_log, srv->guard, MHD_OPTION_END);
    if (!srv->daemon) {
        http_guard_destroy(srv->guard);
        free(srv);
        return err_set(err, SQE_ERR_IO_ERROR, "cannot listen on %s port %u (address in use?)",
                       bind_address, port);
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(srv->daemon, MHD_DAEMON_INFO_BIND_PORT);
    srv->port = info && info->port ? info->port : port;
    *out = srv;
    return SQE_OK;
}

uint16_t health_server_port(const health_server *srv) { return srv->port; }

void health_server_destroy(health_server *srv) {
    if (!srv) return;
    if (srv->daemon) MHD_stop_daemon(srv->daemon);
    http_guard_destroy(srv->guard);
    free(srv);
}
