/*
 * func_common.c: helpers every kernel uses (see func.h): per-row error reporting that honours
 * TRY. (Kernels read arguments of any shape through vec_view, vec/vec.h.)
 *
 * INTERFACE: func_row_error.
 */
#include <stdarg.h>
#include <string.h>

#include "func/func.h"

int func_row_error(func_ctx *ctx, vec *out, uint32_t row, int code, const char *fmt, ...) {
    if (ctx->try_mode) {
        if (vec_set_null(out, row) != SQE_OK) return err_nomem(ctx->err, "validity bitmap");
        return SQE_OK;
    }
    va_list ap;
    va_start(ap, fmt);
    err_setv(ctx->err, code, fmt, ap);
    va_end(ap);
    return code;
}
