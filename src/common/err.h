/*
 * err.h: status codes and the error record every fallible SQE function reports through.
 *
 * Convention: a fallible function returns int, SQE_OK (0) on success or a positive code from
 * errcodes.def, and takes an optional trailing `sqe_error *err` that may be NULL. The contents of
 * *err are defined only after a non-zero return. Errors raised while parsing carry line:column.
 */
#ifndef SQE_COMMON_ERR_H
#define SQE_COMMON_ERR_H

#include <stdarg.h>

#include "sqe/sqe.h"

enum {
    SQE_ERR_NONE_ = 0,
#define X(name, sqlstate, type, trino_code, grpc) SQE_ERR_##name,
#include "common/errcodes.def"
#undef X
    SQE_ERR_COUNT_
};

/* Static facts about a code: SQLSTATE, Trino name/type/code, gRPC status. */
typedef struct err_code_info {
    const char *name;       /* e.g. "SYNTAX_ERROR" */
    const char *sqlstate;   /* five characters */
    const char *trino_type; /* USER_ERROR | INTERNAL_ERROR | INSUFFICIENT_RESOURCES | EXTERNAL */
    int trino_code;
    int grpc_status;
} err_code_info;

/* Info for code; unknown codes map to GENERIC_INTERNAL_ERROR. Never returns NULL. */
const err_code_info *err_code_lookup(int code);

/* Fills *err (if non-NULL) with code, its SQLSTATE and a formatted message; returns code. */
int err_set(sqe_error *err, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int err_setv(sqe_error *err, int code, const char *fmt, va_list ap);
/* Same, with a 1-based source position (line, column) of the offending SQL text. */
int err_set_at(sqe_error *err, int code, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* Out-of-memory helper: sets OUT_OF_MEMORY ("out of memory: <what>"). */
int err_nomem(sqe_error *err, const char *what);
/* Gives *err (if non-NULL) code and its SQLSTATE, keeping message and position; returns code. */
int err_recode(sqe_error *err, int code);
/* Clears *err to "no error". */
void err_clear(sqe_error *err);
/* Prefixes the message of *err with "prefix: " (keeps code and position). */
void err_prefix(sqe_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define SQE_TRY(expr)                                                                              \
    do {                                                                                           \
        int sqe_try_rc_ = (expr);                                                                  \
        if (sqe_try_rc_ != SQE_OK) return sqe_try_rc_;                                             \
    } while (0)

#endif
