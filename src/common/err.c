/*
 * err.c: the error record and the code table behind errcodes.def.
 *
 * INTERFACE: err_code_lookup, err_set, err_setv, err_set_at, err_nomem, err_clear, err_prefix,
 *   err_recode.
 * NOTES: messages are truncated to the record's fixed buffer; setting an error never allocates,
 * so it is safe on out-of-memory paths.
 */
#include "common/err.h"

#include <stdio.h>
#include <string.h>

static const err_code_info code_table[] = {
    {"OK", "00000", "NONE", 0, 0},
#define X(name, sqlstate, type, trino_code, grpc) {#name, sqlstate, #type, trino_code, grpc},
#include "common/errcodes.def"
#undef X
};

const err_code_info *err_code_lookup(int code) {
    if (code <= 0 || code >= SQE_ERR_COUNT_) return &code_table[SQE_ERR_GENERIC_INTERNAL_ERROR];
    return &code_table[code];
}

int err_setv(sqe_error *err, int code, const char *fmt, va_list ap) {
    if (!err) return code;
    err->code = code;
    memcpy(err->sqlstate, err_code_lookup(code)->sqlstate, 6);
    err->line = 0;
    err->column = 0;
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    return code;
}

int err_set(sqe_error *err, int code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    err_setv(err, code, fmt, ap);
    va_end(ap);
    return code;
}

int err_set_at(sqe_error *err, int code, int line, int col, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    err_setv(err, code, fmt, ap);
    va_end(ap);
    if (err) {
        err->line = line;
        err->column = col;
    }
    return code;
}

int err_nomem(sqe_error *err, const char *what) {
    return err_set(err, SQE_ERR_OUT_OF_MEMORY, "out of memory: %s", what);
}

int err_recode(sqe_error *err, int code) {
    if (!err) return code;
    err->code = code;
    memcpy(err->sqlstate, err_code_lookup(code)->sqlstate, 6);
    return code;
}

void err_clear(sqe_error *err) {
    if (!err) return;
    memset(err, 0, sizeof *err);
    memcpy(err->sqlstate, "00000", 6);
}

void err_prefix(sqe_error *err, const char *fmt, ...) {
    if (!err) return;
    char prefix[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    char old[sizeof err->message];
    memcpy(old, err->message, sizeof old);
    size_t n = strlen(prefix);
    if (n > sizeof err->message - 3) n = sizeof err->message - 3;
    memcpy(err->message, prefix, n);
    memcpy(err->message + n, ": ", 2);
    size_t rest = sizeof err->message - n - 3;
    size_t old_len = strnlen(old, sizeof old);
    if (old_len > rest) old_len = rest;
    memcpy(err->message + n + 2, old, old_len);
    err->message[n + 2 + old_len] = 0;
}
