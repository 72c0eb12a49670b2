/*
 * health.h: liveness and readiness of `sqe serve`: the process phase (starting, ready, draining)
 * that GET /healthz and /readyz report, as a route table for any http_server port (the Trino
 * port has it) and on an optional dedicated health port ([metrics] health_port).
 *
 *   /healthz  200 "ok" while the process serves (any phase)
 *   /readyz   200 "ready" when ready; 503 "starting" / "draining" otherwise
 * Both answer GET and HEAD without authentication; other methods get 405.
 */
#ifndef SQE_SERVER_CORE_HEALTH_H
#define SQE_SERVER_CORE_HEALTH_H

#include <stdint.h>

#include "common/err.h"
#include "server/core/http_server.h"

typedef enum health_phase { HEALTH_STARTING = 0, HEALTH_READY, HEALTH_DRAINING } health_phase;

/* The shared phase; zero-initialized storage is HEALTH_STARTING. Thread-safe accessors. */
typedef struct health_state {
    int phase;
} health_state;

void health_set(health_state *hs, health_phase phase);
health_phase health_get(const health_state *hs);

/* Adds the health routes to srv, answering from hs (NULL counts as ready; else hs must outlive
 * srv). Returns SQE_OK or out of memory. */
int health_add_routes(http_server *srv, const health_state *hs);

/* A port of its own with only the health routes, on bind_address:port (port 0 = any free port)
 * over plain HTTP, with small limits (2 threads, 256 connections, 32 KiB headers, 10 s to send
 * a request); more route tables may be added to it. hs must outlive the server. The caller owns
 * *out (http_server_destroy); on error (bad address, port in use) *out is NULL. */
int health_server_create(const char *bind_address, uint16_t port, const health_state *hs,
                         http_server **out, sqe_error *err);

#endif
