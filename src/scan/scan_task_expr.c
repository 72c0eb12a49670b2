/*
 * scan_task_expr.c: residual expressions of scan tasks to bytes and back (see
 * scan_task_expr.h).
 *
 * INTERFACE: scan_expr_encode, scan_expr_decode.
 * NOTES
 *   Constants are written in their physical form (fixed-width values as their bytes, strings
 *   and binaries as length + bytes); decoding checks booleans are 0/1 and zone keys of
 *   timestamps with time zone are known, so no later kernel sees a value it could not have
 *   produced. Calls are resolved with func_resolve_scalar over the encoded argument types and
 *   must come back with exactly those argument types (no implicit cast) and the encoded
 *   result type. Recursion is bounded by SCAN_TASK_MAX_EXPR_DEPTH.
 */
#include "scan/scan_task_expr.h"

#include <string.h>

#include "iceberg/manifest.h"
#include "scan/scan_task.h"
#include "scan/scan_wire.h"
#include "types/tz.h"

static const char *kind_name(uint8_t k) {
    switch (k) {
    case BEXPR_PARAM: return "a prepared statement parameter";
    case BEXPR_LAMBDA: return "a lambda expression";
    case BEXPR_SUBQUERY: return "a subquery";
    case BEXPR_GROUPING: return "GROUPING()";
    default: return "this expression";
    }
}

static int encode_const(const bexpr *e, strbuf *w, sqe_error *err) {
    const vec *v = e->u.constant;
    bool null = !v || vec_is_null(v, 0);
    if (!null && type_is_nested(e->type))
        return err_set(err, SQE_ERR_NOT_SUPPORTED,
                       "unsupported: a constant of a nested type in a scan task's residual");
    scan_w_u8(w, null ? 1 : 0);
    if (null) return SQE_OK;
    uint32_t phys;
    const vec *flat = vec_resolve(v, 0, &phys);
    if (type_is_string_view(e->type)) {
        const sqe_str *s = &VEC_DATA(flat, sqe_str)[phys];
        scan_w_strn(w, sqe_str_data(s), s->len);
    } else {
        size_t size = type_physical_size(e->type);
        scan_w_bytes(w, (const uint8_t *)flat->data + (size_t)phys * size, size);
    }
    return SQE_OK;
}

int scan_expr_encode(const bexpr *e, uint32_t n_cols, strbuf *w, sqe_error *err) {
    switch (e->kind) {
    case BEXPR_COLUMN: case BEXPR_CONST: case BEXPR_CALL: case BEXPR_CAST: case BEXPR_AND:
    case BEXPR_OR: case BEXPR_NOT: case BEXPR_IS_NULL: case BEXPR_IS_NOT_NULL: case BEXPR_CASE:
    case BEXPR_COALESCE: case BEXPR_IN_LIST: case BEXPR_TRY: case BEXPR_NULLIF:
    case BEXPR_ARRAY: case BEXPR_ROW: case BEXPR_FIELD:
        break;
    default:
        return err_set(err, SQE_ERR_NOT_SUPPORTED, "unsupported: %s in a scan task's residual",
                       kind_name(e->kind));
    }
    if (e->kind == BEXPR_CALL && (!e->u.call.def || (e->u.call.def->flags & FUNC_LAMBDA)))
        return err_set(err, SQE_ERR_NOT_SUPPORTED,
                       "unsupported: function %s in a scan task's residual",
                       e->u.call.name ? e->u.call.name : "?");
    scan_w_u8(w, e->kind);
    scan_w_type(w, e->type);
    scan_w_u32(w, e->n_args);
    switch (e->kind) {
    case BEXPR_COLUMN:
        if (e->u.col < 1 || e->u.col > n_cols)
            return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                           "scan task residual: column id %u is not a task column (1..%u)",
                           e->u.col, n_cols);
        scan_w_u32(w, e->u.col - 1);
        break;
    case BEXPR_CONST: SQE_TRY(encode_const(e, w, err)); break;
    case BEXPR_CALL: scan_w_str(w, e->u.call.def->name); break;
    case BEXPR_CAST: scan_w_u8(w, e->u.cast.try_cast ? 1 : 0); break;
    case BEXPR_CASE: scan_w_u8(w, e->u.case_has_else ? 1 : 0); break;
    case BEXPR_FIELD: scan_w_u32(w, e->u.field); break;
    default: break;
    }
    for (uint32_t i = 0; i < e->n_args; i++) SQE_TRY(scan_expr_encode(e->args[i], n_cols, w, err));
    if (w->failed) return err_nomem(err, "scan task");
    return SQE_OK;
}

/* ---- decoding ---- */

typedef struct dctx {
    scan_r r;
    const sqe_type *col_types;
    uint32_t n_cols;
} dctx;

static vec *decode_const(dctx *d, sqe_type t) {
    scan_r *r = &d->r;
    vec *v = ARENA_ARRAY(r->a, vec, 1);
    if (!v || ice_arena_vec_init(r->a, v, t, 1, NULL)) {
        scan_r_fail_code(r, SQE_ERR_OUT_OF_MEMORY, "out of memory decoding a scan task");
        return NULL;
    }
    bool null = scan_r_bool(r, "constant NULL flag");
    if (!scan_r_ok(r)) return NULL;
    if (null) {
        if (ice_arena_vec_set_null(r->a, v, 0, NULL))
            scan_r_fail_code(r, SQE_ERR_OUT_OF_MEMORY, "out of memory decoding a scan task");
        return v;
    }
    if (t.id == TYPE_UNKNOWN || type_is_nested(t)) {
        scan_r_fail(r, "a constant of this type must be NULL");
        return NULL;
    }
    if (type_is_string_view(t)) {
        uint32_t n;
        const char *s = scan_r_str(r, false, &n, "string constant");
        if (!s) return NULL;
        VEC_DATA(v, sqe_str)[0] = sqe_str_make(s, n);
        return v;
    }
    size_t size = type_physical_size(t);
    size_t at = r->pos;
    const uint8_t *p = scan_r_bytes(r, size, "constant");
    if (!p) return NULL;
    memcpy(v->data, p, size);
    if (t.id == TYPE_BOOLEAN && p[0] > 1) {
        r->pos = at;
        scan_r_fail(r, "boolean constant %u", p[0]);
        return NULL;
    }
    if (t.id == TYPE_TIMESTAMP_TZ) {
        sqe_timestamp_tz *ts = (sqe_timestamp_tz *)v->data;
        ts->pad_ = 0;
        if (!tz_name(ts->zone)) {
            r->pos = at;
            scan_r_fail(r, "unknown time zone key %d in a constant", ts->zone);
            return NULL;
        }
    }
    return v;
}

static bool is_bool(const bexpr *e) { return e->type.id == TYPE_BOOLEAN || e->type.id == TYPE_UNKNOWN; }

/* Checks the node's shape once its arguments are decoded; resolves calls and casts. */
static int finish_node(dctx *d, bexpr *e, const char *fname, size_t at) {
    scan_r *r = &d->r;
    uint32_t n = e->n_args;
    sqe_type bt = type_make(TYPE_BOOLEAN);
#define BAD(...) (r->pos = at, scan_r_fail(r, __VA_ARGS__))
    switch (e->kind) {
    case BEXPR_AND:
    case BEXPR_OR:
    case BEXPR_NOT:
        if (n < 1 || (e->kind == BEXPR_NOT && n != 1) || !type_equal(e->type, bt))
            return BAD("malformed AND/OR/NOT");
        for (uint32_t i = 0; i < n; i++)
            if (!is_bool(e->args[i])) return BAD("non-boolean operand of AND/OR/NOT");
        break;
    case BEXPR_IS_NULL:
    case BEXPR_IS_NOT_NULL:
        if (n != 1 || !type_equal(e->type, bt)) return BAD("malformed IS NULL");
        break;
    case BEXPR_TRY:
        if (n != 1 || !type_equal(e->type, e->args[0]->type)) return BAD("malformed TRY");
        break;
    case BEXPR_CASE: {
        if (n < 2 || (e->u.case_has_else ? n % 2 == 0 : n % 2 == 1)) return BAD("malformed CASE");
        for (uint32_t i = 0; i + 1 < n; i += 2) {
            if (!is_bool(e->args[i])) return BAD("non-boolean CASE condition");
            if (!type_equal(e->args[i + 1]->type, e->type)) return BAD("CASE value of another type");
        }
        if (e->u.case_has_else && !type_equal(e->args[n - 1]->type, e->type))
            return BAD("CASE value of another type");
        break;
    }
    case BEXPR_COALESCE:
        if (n < 1) return BAD("COALESCE without arguments");
        for (uint32_t i = 0; i < n; i++)
            if (!type_equal(e->args[i]->type, e->type)) return BAD("COALESCE argument of another type");
        break;
    case BEXPR_IN_LIST:
        if (n < 2 || !type_equal(e->type, bt)) return BAD("malformed IN list");
        for (uint32_t i = 1; i < n; i++)
            if (!type_equal(e->args[i]->type, e->args[0]->type) && e->args[i]->type.id != TYPE_UNKNOWN)
                return BAD("IN list value of another type");
        break;
    case BEXPR_NULLIF:
        if (n != 2 || !type_equal(e->type, e->args[0]->type)) return BAD("malformed NULLIF");
        break;
    case BEXPR_ARRAY:
        if (e->type.id != TYPE_ARRAY) return BAD("ARRAY of a non-array type");
        for (uint32_t i = 0; i < n; i++)
            if (!type_equal(e->args[i]->type, e->type.nested->children[0]))
                return BAD("ARRAY element of another type");
        break;
    case BEXPR_ROW:
        if (e->type.id != TYPE_ROW || e->type.nested->n_children != n) return BAD("ROW type mismatch");
        for (uint32_t i = 0; i < n; i++)
            if (!type_equal(e->args[i]->type, e->type.nested->children[i]))
                return BAD("ROW field of another type");
        break;
    case BEXPR_FIELD:
        if (n != 1 || e->args[0]->type.id != TYPE_ROW ||
            e->u.field >= e->args[0]->type.nested->n_children ||
            !type_equal(e->type, e->args[0]->type.nested->children[e->u.field]))
            return BAD("malformed field access");
        break;
    case BEXPR_CAST: {
        if (n != 1) return BAD("malformed CAST");
        sqe_type from = e->args[0]->type;
        if (!type_equal(from, e->type) && from.id != TYPE_UNKNOWN) {
            e->u.cast.fn = func_cast_lookup(from, e->type);
            if (!e->u.cast.fn) {
                char a[128], b[128];
                type_format(from, a, sizeof a);
                type_format(e->type, b, sizeof b);
                return scan_r_fail_code(r, SQE_ERR_NOT_SUPPORTED,
                                        "scan task: no cast from %s to %s", a, b);
            }
        }
        break;
    }
    case BEXPR_CALL: {
        sqe_type types[n ? n : 1];
        for (uint32_t i = 0; i < n; i++) types[i] = e->args[i]->type;
        func_resolved res;
        sqe_error ferr;
        int rc = func_resolve_scalar(r->a, fname, types, n, NULL, &res, &ferr);
        if (rc)
            return scan_r_fail_code(r, rc, "scan task: function %s: %s", fname, ferr.message);
        bool same = res.scalar && !(res.scalar->flags & FUNC_LAMBDA) && res.n_args == n &&
                    type_equal(res.ret, e->type);
        for (uint32_t i = 0; same && i < n; i++) same = type_equal(res.arg_types[i], types[i]);
        if (!same)
            return scan_r_fail_code(r, SQE_ERR_TYPE_MISMATCH,
                                    "scan task: function %s does not resolve to the encoded "
                                    "argument and result types", fname);
        e->u.call.def = res.scalar;
        e->u.call.name = res.scalar->name;
        if (res.scalar->bind_fn) {
            const vec *consts[n ? n : 1];
            for (uint32_t i = 0; i < n; i++)
                consts[i] = e->args[i]->kind == BEXPR_CONST ? e->args[i]->u.constant : NULL;
            rc = res.scalar->bind_fn(r->a, types, consts, n, res.ret, &e->u.call.bind_data, &ferr);
            if (rc)
                return scan_r_fail_code(r, rc, "scan task: function %s: %s", fname, ferr.message);
        }
        break;
    }
    default: break;
    }
#undef BAD
    return SQE_OK;
}

static bexpr *decode_node(dctx *d, uint32_t depth) {
    scan_r *r = &d->r;
    size_t at = r->pos;
    if (depth == 0) {
        scan_r_fail(r, "expression nested deeper than %d", SCAN_TASK_MAX_EXPR_DEPTH);
        return NULL;
    }
    uint8_t kind = scan_r_u8(r, "expression kind");
    sqe_type t = scan_r_type(r, 8, "expression type");
    /* every argument takes at least 12 bytes (kind, type, count) */
    uint32_t n = scan_r_count(r, 12, 100000, "expression arguments");
    if (!scan_r_ok(r)) return NULL;
    switch (kind) {
    case BEXPR_COLUMN: case BEXPR_CONST: case BEXPR_CALL: case BEXPR_CAST: case BEXPR_AND:
    case BEXPR_OR: case BEXPR_NOT: case BEXPR_IS_NULL: case BEXPR_IS_NOT_NULL: case BEXPR_CASE:
    case BEXPR_COALESCE: case BEXPR_IN_LIST: case BEXPR_TRY: case BEXPR_NULLIF:
    case BEXPR_ARRAY: case BEXPR_ROW: case BEXPR_FIELD:
        break;
    default:
        r->pos = at;
        scan_r_fail(r, "unknown expression kind %u", kind);
        return NULL;
    }
    bexpr *e = ARENA_ARRAY(r->a, bexpr, 1);
    bexpr **args = n ? ARENA_ARRAY(r->a, bexpr *, n) : NULL;
    if (!e || (n && !args)) {
        scan_r_fail_code(r, SQE_ERR_OUT_OF_MEMORY, "out of memory decoding a scan task");
        return NULL;
    }
    e->kind = kind;
    e->type = t;
    e->n_args = n;
    e->args = args;
    const char *fname = NULL;
    switch (kind) {
    case BEXPR_COLUMN: {
        uint32_t c = scan_r_u32(r, "column index");
        if (!scan_r_ok(r)) return NULL;
        if (n || c >= d->n_cols || !type_equal(d->col_types[c], t)) {
            r->pos = at;
            scan_r_fail(r, "column reference %u does not match a task column", c);
            return NULL;
        }
        e->u.col = scan_task_col_id(c);
        break;
    }
    case BEXPR_CONST:
        if (n) {
            scan_r_fail(r, "a constant with arguments");
            return NULL;
        }
        if (!(e->u.constant = decode_const(d, t))) return NULL;
        break;
    case BEXPR_CALL:
        if (n > 1024) {
            r->pos = at;
            scan_r_fail(r, "a call with %u arguments", n);
            return NULL;
        }
        if (!(fname = scan_r_str(r, false, NULL, "function name"))) return NULL;
        break;
    case BEXPR_CAST: e->u.cast.try_cast = scan_r_bool(r, "TRY_CAST flag"); break;
    case BEXPR_CASE: e->u.case_has_else = scan_r_bool(r, "CASE ELSE flag"); break;
    case BEXPR_FIELD: e->u.field = scan_r_u32(r, "field index"); break;
    default: break;
    }
    if (!scan_r_ok(r)) return NULL;
    for (uint32_t i = 0; i < n; i++)
        if (!(args[i] = decode_node(d, depth - 1))) return NULL;
    if (finish_node(d, e, fname, at)) return NULL;
    return e;
}

int scan_expr_decode(arena *a, const uint8_t *p, size_t len, size_t base,
                     const sqe_type *col_types, uint32_t n_cols, bexpr **out, sqe_error *err) {
    dctx d;
    scan_r_init(&d.r, p, len, base, a, err);
    d.col_types = col_types;
    d.n_cols = n_cols;
    bexpr *e = decode_node(&d, SCAN_TASK_MAX_EXPR_DEPTH);
    if (e && scan_r_left(&d.r)) scan_r_fail(&d.r, "%zu bytes after the expression", scan_r_left(&d.r));
    if (!scan_r_ok(&d.r)) return d.r.rc;
    *out = e;
    return SQE_OK;
}
