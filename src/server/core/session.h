/*
 * session.h: the SQL session state a protocol front end keeps for its clients (srv_session_state,
 * ../srv_hooks.h: catalog, schema, time zone, session properties, SQL prepared statements),
 * shared by Trino (rebuilt from each request's headers) and Flight (kept per session in the
 * server, saved through hooks.session_save).
 *
 * Every statement runs on a fresh sqe_conn: srv_session_apply gives it the state through the
 * connection setters (no SQL is run for that), and srv_session_note folds what the statement
 * reported it changed (sqe_effects.h) back into the state.
 *
 * Property values are kept as text, as Trino's X-Trino-Session header carries them (digits: an
 * integer, true/false: a boolean, anything else a string).
 * Threads: a state is used by one thread at a time (the caller locks).
 */
#ifndef SQE_SERVER_CORE_SESSION_H
#define SQE_SERVER_CORE_SESSION_H

#include <stdbool.h>

#include "server/srv_hooks.h"
#include "sqe/sqe.h"

/* Sets catalog and/or schema of st: NULL leaves one unchanged, "" resets it to the database's
 * default. On error (out of memory) nothing changes. */
int srv_session_set_catalog_schema(srv_session_state *st, const char *catalog,
                                   const char *schema, sqe_error *err);
/* Sets the time zone name (NULL or "": none). On error nothing changes. */
int srv_session_set_time_zone(srv_session_state *st, const char *zone, sqe_error *err);

typedef enum srv_session_list { SRV_SESSION_PROPERTIES, SRV_SESSION_PREPARED } srv_session_list;
/* Sets (value != NULL) or removes (value NULL) one session property or prepared statement
 * (name -> statement text). New names are appended, so the list keeps the order they were
 * first set in. Strings are copied. On error nothing changes. */
int srv_session_put(srv_session_state *st, srv_session_list list, const char *name,
                    const char *value, sqe_error *err);

/* A deep copy of src (principal included) into *dst; on error *dst is empty. The caller clears
 * it with srv_session_state_clear. */
int srv_session_copy(srv_session_state *dst, const srv_session_state *src, sqe_error *err);

/* Is s a session property name (letters, digits, '_', '.')? */
bool srv_session_property_name_ok(const char *s);

/* Gives conn the state: catalog and schema, time zone, each property
 * (sqe_conn_set_session_property) and each prepared statement. Stops at the first error (an
 * invalid name, an unknown property or a bad value), which carries no position. st->principal
 * is not used (the caller sets the connection's principal). */
int srv_session_apply(const srv_session_state *st, sqe_conn *conn, sqe_error *err);

/* Applies to st what res reports its statement changed (USE, SET/RESET SESSION, PREPARE,
 * DEALLOCATE PREPARE). *changed (may be NULL) is set when anything changed. On error (out of
 * memory) st may hold part of the changes. */
int srv_session_note(srv_session_state *st, const sqe_result *res, bool *changed,
                     sqe_error *err);

#endif
