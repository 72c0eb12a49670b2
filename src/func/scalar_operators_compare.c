/*
 * scalar_operators_compare.c: the comparison operators $eq $ne $lt $le $gt $ge and
 * $is_distinct_from for every comparable type.
 *
 * INTERFACE: func_op_eq, func_op_ne, func_op_lt, func_op_le, func_op_gt, func_op_ge,
 *   func_op_distinct, func_ret_orderable, func_ret_comparable (see scalar_kernel.h).
 *
 * NOTES: the defs are "T,T": the binder casts both sides to their common super type, so one
 * kernel per operator dispatches once per batch on the physical type and runs a
 * macro-generated, branch-free loop (with flat/constant fast paths) that writes 0/1 bytes.
 * Real and double follow IEEE (NaN is unequal to everything); varchar and varbinary compare
 * bytes; char compares space-padded; timestamp with time zone compares the UTC instant.
 * Arrays, maps and rows go through the generic value functions: equality is three-valued
 * (an undecided NULL element gives NULL) and ordering refuses NULL elements as Trino does.
 */
#if defined(__GNUC__) && !defined(__clang__)
/* -O2 in GCC 12 only vectorizes loops that need no epilogue; these loops pay off anyway. */
#pragma GCC optimize("tree-vectorize", "vect-cost-model=cheap")
#endif

#include <math.h>
#include <string.h>

#include "func/scalar_kernel.h"

enum cmp_op { OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE };

typedef struct uuid16 {
    uint8_t b[16];
} uuid16;

#define PRIM_EQ(x, y) ((x) == (y))
#define PRIM_NE(x, y) ((x) != (y))
#define PRIM_LT(x, y) ((x) < (y))
#define PRIM_LE(x, y) ((x) <= (y))
#define PRIM_GT(x, y) ((x) > (y))
#define PRIM_GE(x, y) ((x) >= (y))
#define TZ_EQ(x, y) ((x).micros == (y).micros)
#define TZ_NE(x, y) ((x).micros != (y).micros)
#define TZ_LT(x, y) ((x).micros < (y).micros)
#define TZ_LE(x, y) ((x).micros <= (y).micros)
#define TZ_GT(x, y) ((x).micros > (y).micros)
#define TZ_GE(x, y) ((x).micros >= (y).micros)
#define STR_EQ(x, y) sqe_str_equal(&(x), &(y))
#define STR_NE(x, y) (!sqe_str_equal(&(x), &(y)))
#define STR_LT(x, y) (sqe_str_compare(&(x), &(y)) < 0)
#define STR_LE(x, y) (sqe_str_compare(&(x), &(y)) <= 0)
#define STR_GT(x, y) (sqe_str_compare(&(x), &(y)) > 0)
#define STR_GE(x, y) (sqe_str_compare(&(x), &(y)) >= 0)
#define UUID_EQ(x, y) (memcmp((x).b, (y).b, 16) == 0)
#define UUID_NE(x, y) (memcmp((x).b, (y).b, 16) != 0)
#define UUID_LT(x, y) (memcmp((x).b, (y).b, 16) < 0)
#define UUID_LE(x, y) (memcmp((x).b, (y).b, 16) <= 0)
#define UUID_GT(x, y) (memcmp((x).b, (y).b, 16) > 0)
#define UUID_GE(x, y) (memcmp((x).b, (y).b, 16) >= 0)

/* The four loops of one (type, operator) pair; returns from the enclosing function. */
#define CMP_LOOPS(CT, EXPR)                                                                        \
    do {                                                                                           \
        uint8_t *restrict r = out->data;                                                           \
        if (!sel && va->shape == VEC_FLAT && vb->shape == VEC_FLAT) {                              \
            const CT *restrict a = va->data, *restrict b = vb->data;                               \
            for (uint32_t i = 0; i < count; i++) r[i] = (uint8_t)EXPR(a[i], b[i]);                 \
        } else if (!sel && va->shape == VEC_FLAT && vb->shape == VEC_CONST) {                      \
            const CT *restrict a = va->data;                                                       \
            const CT y = ((const CT *)vb->data)[0];                                                \
            for (uint32_t i = 0; i < count; i++) r[i] = (uint8_t)EXPR(a[i], y);                    \
        } else if (!sel && va->shape == VEC_CONST && vb->shape == VEC_FLAT) {                      \
            const CT x = ((const CT *)va->data)[0];                                                \
            const CT *restrict b = vb->data;                                                       \
            for (uint32_t i = 0; i < count; i++) r[i] = (uint8_t)EXPR(x, b[i]);                    \
        } else {                                                                                   \
            vec_view ua, ub;                                                                       \
            vec_view_init(&ua, va);                                                                \
            vec_view_init(&ub, vb);                                                                \
            FUNC_FOR_ROWS(sel, count, row) {                                                       \
                const CT *x = &UVAL(&ua, CT, row), *y = &UVAL(&ub, CT, row);                       \
                r[row] = (uint8_t)EXPR(*x, *y);                                                    \
            }                                                                                      \
        }                                                                                          \
        return SQE_OK;                                                                             \
    } while (0)

#define DISPATCH_OP(CT, FAM)                                                                       \
    switch (op) {                                                                                  \
    case OP_EQ: CMP_LOOPS(CT, FAM##_EQ);                                                           \
    case OP_NE: CMP_LOOPS(CT, FAM##_NE);                                                           \
    case OP_LT: CMP_LOOPS(CT, FAM##_LT);                                                           \
    case OP_LE: CMP_LOOPS(CT, FAM##_LE);                                                           \
    case OP_GT: CMP_LOOPS(CT, FAM##_GT);                                                           \
    default: CMP_LOOPS(CT, FAM##_GE);                                                              \
    }

static bool op_holds(int op, int c) {
    switch (op) {
    case OP_EQ: return c == 0;
    case OP_NE: return c != 0;
    case OP_LT: return c < 0;
    case OP_LE: return c <= 0;
    case OP_GT: return c > 0;
    default: return c >= 0;
    }
}

/* Row-by-row comparison through the generic value functions (char, nested, mixed layouts). */
static int compare_generic(int op, func_ctx *ctx, const vec *va, const vec *vb,
                           const uint32_t *sel, uint32_t count, vec *out) {
    uint8_t *r = out->data;
    bool nested = type_is_nested(va->type);
    FUNC_FOR_ROWS(sel, count, row) {
        if (vec_is_null(va, row) || vec_is_null(vb, row)) {
            SQE_TRY(func_out_null(ctx, out, row));
            continue;
        }
        if (op == OP_EQ || op == OP_NE) {
            int e = nested ? func_value_equal3(va, row, vb, row)
                           : (func_value_compare(va, row, vb, row) == 0 ? FUNC_TRUE : FUNC_FALSE);
            if (e == FUNC_NULL) {
                SQE_TRY(func_out_null(ctx, out, row));
                continue;
            }
            r[row] = (uint8_t)((e == FUNC_TRUE) == (op == OP_EQ));
            continue;
        }
        int c;
        int rc = func_value_order(va, row, vb, row, &c);
        if (rc) {
            SQE_TRY(func_row_error(ctx, out, row, SQE_ERR_NOT_SUPPORTED,
                                   rc == FUNC_ORDER_NULL_FIELD
                                       ? "ROW comparison not supported for fields with null elements"
                                       : "ARRAY comparison not supported for arrays with null "
                                         "elements"));
            continue;
        }
        r[row] = (uint8_t)op_holds(op, c);
    }
    return SQE_OK;
}

static int compare_kernel(int op, func_ctx *ctx, const vec *const *args, const uint32_t *sel,
                          uint32_t count, vec *out) {
    const vec *va = args[0], *vb = args[1];
    if (va->type.id != vb->type.id) return compare_generic(op, ctx, va, vb, sel, count, out);
    switch (va->type.id) {
    case TYPE_BOOLEAN: DISPATCH_OP(uint8_t, PRIM);
    case TYPE_TINYINT: DISPATCH_OP(int8_t, PRIM);
    case TYPE_SMALLINT: DISPATCH_OP(int16_t, PRIM);
    case TYPE_INTEGER:
    case TYPE_DATE:
    case TYPE_INTERVAL_YM: DISPATCH_OP(int32_t, PRIM);
    case TYPE_BIGINT:
    case TYPE_TIME:
    case TYPE_TIMESTAMP:
    case TYPE_INTERVAL_DS: DISPATCH_OP(int64_t, PRIM);
    case TYPE_REAL: DISPATCH_OP(float, PRIM);
    case TYPE_DOUBLE: DISPATCH_OP(double, PRIM);
    case TYPE_DECIMAL:
        if (va->type.scale != vb->type.scale ||
            type_decimal_is_long(va->type) != type_decimal_is_long(vb->type))
            break;
        if (type_decimal_is_long(va->type)) DISPATCH_OP(int128, PRIM);
        DISPATCH_OP(int64_t, PRIM);
    case TYPE_VARCHAR:
    case TYPE_VARBINARY:
    case TYPE_JSON: DISPATCH_OP(sqe_str, STR);
    case TYPE_TIMESTAMP_TZ: DISPATCH_OP(sqe_timestamp_tz, TZ);
    case TYPE_UUID: DISPATCH_OP(uuid16, UUID);
    default: break;
    }
    return compare_generic(op, ctx, va, vb, sel, count, out);
}

#define DEFINE_CMP(name, op)                                                                       \
    int func_op_##name(func_ctx *ctx, const vec *const *args, uint32_t n_args,                     \
                       const uint32_t *sel, uint32_t count, vec *out) {                            \
        return compare_kernel(op, ctx, args, sel, count, out);                                     \
    }
DEFINE_CMP(eq, OP_EQ)
DEFINE_CMP(ne, OP_NE)
DEFINE_CMP(lt, OP_LT)
DEFINE_CMP(le, OP_LE)
DEFINE_CMP(gt, OP_GT)
DEFINE_CMP(ge, OP_GE)

/* IS DISTINCT FROM: not NULL-propagating; NULL is not distinct from NULL, NaN not from NaN. */
#define DISTINCT_LOOP(CT, SAME)                                                                    \
    FUNC_FOR_ROWS(sel, count, row) {                                                               \
        bool na = !vec_view_valid(&ua, row), nb = !vec_view_valid(&ub, row);                       \
        if (na || nb) {                                                                            \
            r[row] = na != nb;                                                                     \
            continue;                                                                              \
        }                                                                                          \
        CT x = UVAL(&ua, CT, row), y = UVAL(&ub, CT, row);                                         \
        r[row] = !(SAME(x, y));                                                                    \
    }                                                                                              \
    return SQE_OK

#define FLOAT_SAME(x, y) ((x) == (y) || (isnan(x) && isnan(y)))

int func_op_distinct(func_ctx *ctx, const vec *const *args, uint32_t n_args, const uint32_t *sel,
                     uint32_t count, vec *out) {
    const vec *va = args[0], *vb = args[1];
    uint8_t *r = out->data;
    vec_view ua, ub;
    vec_view_init(&ua, va);
    vec_view_init(&ub, vb);
    if (va->type.id == vb->type.id) {
        switch (va->type.id) {
        case TYPE_BOOLEAN: DISTINCT_LOOP(uint8_t, PRIM_EQ);
        case TYPE_TINYINT: DISTINCT_LOOP(int8_t, PRIM_EQ);
        case TYPE_SMALLINT: DISTINCT_LOOP(int16_t, PRIM_EQ);
        case TYPE_INTEGER:
        case TYPE_DATE:
        case TYPE_INTERVAL_YM: DISTINCT_LOOP(int32_t, PRIM_EQ);
        case TYPE_BIGINT:
        case TYPE_TIME:
        case TYPE_TIMESTAMP:
        case TYPE_INTERVAL_DS: DISTINCT_LOOP(int64_t, PRIM_EQ);
        case TYPE_REAL: DISTINCT_LOOP(float, FLOAT_SAME);
        case TYPE_DOUBLE: DISTINCT_LOOP(double, FLOAT_SAME);
        case TYPE_VARCHAR:
        case TYPE_VARBINARY:
        case TYPE_JSON: DISTINCT_LOOP(sqe_str, STR_EQ);
        default: break;
        }
    }
    FUNC_FOR_ROWS(sel, count, row) r[row] = !func_value_same(va, row, vb, row);
    return SQE_OK;
}

static int type_error(const char *what, sqe_type t, sqe_error *err) {
    char name[256];
    type_format(t, name, sizeof name);
    return err_set(err, SQE_ERR_TYPE_MISMATCH, "Type %s is not %s", name, what);
}

int func_ret_orderable(const sqe_type *args, uint32_t n_args, sqe_type *ret, sqe_error *err) {
    if (args[0].id != TYPE_UNKNOWN && !type_is_orderable(args[0]))
        return type_error("orderable", args[0], err);
    *ret = type_make(TYPE_BOOLEAN);
    return SQE_OK;
}

int func_ret_comparable(const sqe_type *args, uint32_t n_args, sqe_type *ret, sqe_error *err) {
    if (args[0].id != TYPE_UNKNOWN && !type_is_comparable(args[0]))
        return type_error("comparable", args[0], err);
    *ret = type_make(TYPE_BOOLEAN);
    return SQE_OK;
}
