/*
 * session_store_int.h: what session_store.c (sessions in memory) shares with
 * session_store_file.c (their file format).
 */
#ifndef SQE_SERVER_CORE_SESSION_STORE_INT_H
#define SQE_SERVER_CORE_SESSION_STORE_INT_H

#include "server/core/session_store.h"

typedef struct sess {
    unsigned char digest[32]; /* SHA-256 of the token */
    char *principal;
    srv_session_state state;  /* state.principal unused */
    session_cred cred;        /* what it was opened with */
    int64_t created_ms;       /* wall clock (survives restarts) */
    int64_t last_used_ms;
    struct sess *next;        /* bucket chain */
} sess;

/* Deep copy of src into *dst (which must be empty); on failure *dst is left empty. */
int session_state_copy(srv_session_state *dst, const srv_session_state *src);
void sess_free(sess *s);

/* Writes sessions (n of them, the array may be in any order) to path atomically. */
int session_file_write(const char *path, sess *const *sessions, size_t n, sqe_error *err);
/* Reads path: calls add(ud, s) for each session (add takes s). Missing file: SQE_OK, nothing. */
int session_file_read(const char *path, int (*add)(void *ud, sess *s), void *ud, sqe_error *err);

#endif
