/*
 * health.c: the process phase and its route table (/healthz, /readyz), on the Trino port and on
 * the health-only listener ([metrics] health_port).
 *
 * INTERFACE: health_set, health_get, health_add_routes, health_server_create (health.h).
 * NOTES: the routes take no body and need no authentication; the listener is an http_server
 * (so it has the same framing checks, 404 / 405 and slow-client guard as every port).
 */
#include "server/core/health.h"

#include <string.h>

void health_set(health_state *hs, health_phase phase) {
    __atomic_store_n(&hs->phase, (int)phase, __ATOMIC_SEQ_CST);
}

health_phase health_get(const health_state *hs) {
    return (health_phase)__atomic_load_n(&hs->phase, __ATOMIC_SEQ_CST);
}

static void healthz(void *ud, const http_request *req, http_reply *reply) {
    (void)ud;
    (void)req;
    http_reply_text(reply, 200, NULL, "ok\n");
}

static void readyz(void *ud, const http_request *req, http_reply *reply) {
    (void)req;
    const health_state *hs = ud;
    health_phase p = hs ? health_get(hs) : HEALTH_READY;
    http_reply_text(reply, p == HEALTH_READY ? 200 : 503, NULL,
                    p == HEALTH_READY ? "ready\n" : p == HEALTH_DRAINING ? "draining\n" : "starting\n");
}

static const http_route routes[] = {
    {.method = "GET", .path = "/healthz", .handler = healthz},
    {.method = "HEAD", .path = "/healthz", .handler = healthz},
    {.method = "GET", .path = "/readyz", .handler = readyz},
    {.method = "HEAD", .path = "/readyz", .handler = readyz},
};

int health_add_routes(http_server *srv, const health_state *hs) {
    return http_server_add_routes(srv, routes, sizeof routes / sizeof routes[0], (void *)hs);
}

int health_server_create(const char *bind_address, uint16_t port, const health_state *hs,
                         http_server **out, sqe_error *err) {
    http_server_options o;
    http_server_options_init(&o);
    o.bind_address = bind_address;
    o.port = port;
    o.threads = 2;
    o.connection_limit = 256;
    o.connection_memory = 32 * 1024;
    o.connection_timeout_s = 10;
    o.request_timeout_ms = 10000;
    o.routes = routes;
    o.n_routes = sizeof routes / sizeof routes[0];
    o.routes_ud = (void *)hs;
    return http_server_create(&o, out, err);
}
