/*
 * http_guard.h: a deadline for receiving each HTTP request on a libmicrohttpd daemon, against
 * slowloris-style clients.
 *
 * libmicrohttpd's connection timeout is an inactivity timeout: a client that sends one header
 * byte per second never hits it and holds a connection (and a slot of the connection limit)
 * forever. The guard gives every request a deadline from the moment its connection opens (or its
 * request line arrived, on a kept-alive connection) to the moment its headers and body are
 * complete; a watchdog thread shuts down the socket of a request that misses it, and the daemon
 * then closes the connection.
 *
 * Use: create the guard, pass http_guard_notify with MHD_OPTION_NOTIFY_CONNECTION and
 * http_guard_uri_log with MHD_OPTION_URI_LOG_CALLBACK (both with the guard as cls), call
 * http_guard_request_done from the access handler when a request is complete, stop the daemon,
 * then destroy the guard.
 */
#ifndef SQE_SERVER_CORE_HTTP_GUARD_H
#define SQE_SERVER_CORE_HTTP_GUARD_H

#include <microhttpd.h>
#include <stdint.h>

#include "common/err.h"

typedef struct http_guard http_guard;

/* Starts the watchdog; request_timeout_ms 0 means 30 s. The caller owns *out. */
int http_guard_create(uint32_t request_timeout_ms, http_guard **out, sqe_error *err);

/* MHD_OPTION_NOTIFY_CONNECTION callback (cls = the guard). */
void http_guard_notify(void *cls, struct MHD_Connection *c, void **socket_context,
                       enum MHD_ConnectionNotificationCode code);

/* MHD_OPTION_URI_LOG_CALLBACK callback (cls = the guard); returns NULL (the request context). */
void *http_guard_uri_log(void *cls, const char *uri, struct MHD_Connection *c);

/* Marks the connection's current request as fully received. */
void http_guard_request_done(struct MHD_Connection *c);

/* Number of connections the watchdog has shut down so far. */
uint64_t http_guard_kills(http_guard *g);

/* Stops the watchdog and frees the guard; call after MHD_stop_daemon. NULL is ignored. */
void http_guard_destroy(http_guard *g);

#endif
