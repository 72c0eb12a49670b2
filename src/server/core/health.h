/*
 * health.h: liveness and readiness of `sqe serve`: the process phase (starting, ready, draining)
 * that GET /healthz and /readyz report, on the Trino HTTP port and on an optional dedicated
 * health port ([metrics] health_port).
 *
 *   /healthz  200 "ok" while the process serves (any phase)
 *   /readyz   200 "ready" when ready; 503 "starting" / "draining" otherwise
 */
#ifndef SQE_SERVER_CORE_HEALTH_H
#define SQE_SERVER_CORE_HEALTH_H

#include <stdint.h>

#include "common/err.h"

typedef enum health_phase { HEALTH_STARTING = 0, HEALTH_READY, HEALTH_DRAINING } health_phase;

/* The shared phase; zero-initialized storage is HEALTH_STARTING. Thread-safe accessors. */
typedef struct health_state {
    int phase;
} health_state;

void health_set(health_state *hs, health_phase phase);
health_phase health_get(const health_state *hs);

/* The answer to a health path: returns the HTTP status and sets *body (static text) for
 * "/healthz" and "/readyz", or returns 0 for any other url. hs NULL counts as ready. */
unsigned health_answer(const health_state *hs, const char *url, const char **body);

typedef struct health_server health_server;

/* Serves only the health paths on bind_address:port (port 0 = any free port) over plain HTTP,
 * with the same slow-client guard as the Trino listener. hs must outlive the server. On error
 * (bad address, port in use) *out is NULL. */
int health_server_create(const char *bind_address, uint16_t port, const health_state *hs,
                         health_server **out, sqe_error *err);
uint16_t health_server_port(const health_server *srv);
/* Stops and frees the server. NULL is ignored. */
void health_server_destroy(health_server *srv);

#endif
