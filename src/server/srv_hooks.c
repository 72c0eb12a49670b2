/*
 * srv_hooks.c: the session state that front ends save and restore through srv_hooks.
 *
 * INTERFACE: srv_session_state_clear (srv_hooks.h).
 */
#include "server/srv_hooks.h"

#include <stdlib.h>
#include <string.h>

static void free_strings(char **v, uint32_t n) {
    for (uint32_t i = 0; v && i < n; i++) free(v[i]);
    free(v);
}

void srv_session_state_clear(srv_session_state *s) {
    if (!s) return;
    free(s->principal);
    free(s->catalog);
    free(s->schema);
    free(s->time_zone);
    free_strings(s->property_names, s->n_properties);
    free_strings(s->property_values, s->n_properties);
    free_strings(s->prepared_names, s->n_prepared);
    free_strings(s->prepared_sql, s->n_prepared);
    memset(s, 0, sizeof *s);
}
