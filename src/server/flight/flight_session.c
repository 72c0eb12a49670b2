/*
 * flight_session.c: the SQL session a Flight client keeps across statements. Every statement
 * runs on a fresh sqe_conn (a result may outlive the call that made it, and one session may have
 * several results open), so the session's state lives in the server (flight_session.state) and
 * is given to each new connection; what a statement changes is read back after it ran.
 *
 * INTERFACE: flight_session_restore, flight_session_note, flight_session_save (flight_int.h).
 * NOTES: the state is given to a connection through its setters (server/core/session.c; no
 *   SET SESSION text is run), and what a statement changed (USE, SET/RESET SESSION, PREPARE,
 *   DEALLOCATE) is what the engine reports on its result (sqe_effects.h), never read off the
 *   text. Property values are kept as text (Trino's header form). The state is saved with
 *   hooks.session_save, so `[session] persistence = "file"` keeps it across restarts.
 */
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "server/flight/flight_int.h"

/* ---- restore, note, save ----------------------------------------------------------------- */

int flight_session_restore(flight_call *fc, sqe_conn *conn, sqe_error *err) {
    srv_session_state st;
    SQE_TRY(flight_session_snapshot(fc->srv, fc->session_key, &st, err));
    int rc = srv_session_apply(&st, conn, err);
    srv_session_state_clear(&st);
    return rc;
}

void flight_session_save(flight_call *fc) {
    const srv_hooks *h = &fc->srv->opts.hooks;
    if (!h->session_save || strncmp(fc->session_key, "principal:", 10) == 0) return;
    srv_session_state st;
    sqe_error e;
    memset(&e, 0, sizeof e);
    if (flight_session_snapshot(fc->srv, fc->session_key, &st, &e) != SQE_OK) return;
    h->session_save(h->ud, fc->session_key, &st, &e);
    srv_session_state_clear(&st);
}

int flight_session_note(flight_call *fc, const sqe_result *res, sqe_error *err) {
    if (!sqe_result_session_change_count(res)) return SQE_OK;
    bool changed = false;
    int rc = flight_session_note_result(fc->srv, fc->session_key, res, &changed, err);
    if (!rc && changed) flight_session_save(fc);
    return rc;
}
