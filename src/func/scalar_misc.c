/*
 * scalar_misc.c: the misc family: typeof, uuid, and the identity helpers Trino lists among
 * its miscellaneous functions.
 *
 * INTERFACE: func_scalar_family_misc.
 *
 * NOTES: typeof is not NULL-propagating: typeof(NULL) is 'unknown'. uuid() produces version 4
 * UUIDs from getrandom(2) (falling back to the query's generator), and is volatile so the
 * planner never folds it.
 */
#include <string.h>
#include <sys/random.h>

#include "func/scalar_kernel.h"

static int typeof_fn(func_ctx *ctx, const vec *const *args, uint32_t n_args, const uint32_t *sel,
                     uint32_t count, vec *out) {
    char buf[1024];
    size_t n = type_format(args[0]->type, buf, sizeof buf);
    if (n >= sizeof buf) n = sizeof buf - 1;
    FUNC_FOR_ROWS(sel, count, row) SQE_TRY(func_out_str(ctx, out, row, buf, n));
    return SQE_OK;
}

static int uuid_fn(func_ctx *ctx, const vec *const *args, uint32_t n_args, const uint32_t *sel,
                   uint32_t count, vec *out) {
    uint8_t *data = out->data;
    FUNC_FOR_ROWS(sel, count, row) {
        uint8_t *u = data + 16 * (size_t)row;
        if (getrandom(u, 16, GRND_NONBLOCK) != 16) {
            uint64_t a = func_random_u64(ctx), b = func_random_u64(ctx);
            memcpy(u, &a, 8);
            memcpy(u + 8, &b, 8);
        }
        u[6] = (uint8_t)((u[6] & 0x0F) | 0x40); /* version 4 */
        u[8] = (uint8_t)((u[8] & 0x3F) | 0x80); /* IETF variant */
    }
    return SQE_OK;
}

static const func_scalar_def misc_defs[] = {
    {"typeof", "any", "varchar", NULL, NULL, typeof_fn, 0, "the name of the argument's type"},
    {"uuid", "", "uuid", NULL, NULL, uuid_fn, FUNC_VOLATILE, "a random (version 4) UUID"},
};

const func_scalar_def *func_scalar_family_misc(uint32_t *count) {
    *count = FUNC_N(misc_defs);
    return misc_defs;
}
