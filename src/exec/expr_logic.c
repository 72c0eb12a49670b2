/*
 * expr_logic.c: the special forms of the expression evaluator: AND, OR, NOT, IS [NOT] NULL,
 * CASE, COALESCE, IN lists, NULLIF and TRY, with SQL three-valued logic.
 *
 * INTERFACE (expr_int.h): xeval_and_or, xselect_and, xselect_or, xeval_not, xeval_is_null,
 *   xeval_case, xeval_coalesce, xeval_in_set, xeval_in_list, xeval_nullif, xeval_try,
 *   xsel_difference.
 * NOTES: every form narrows the selection instead of evaluating everything: AND evaluates the
 * next conjunct only on rows still TRUE or NULL (in a filter: only on rows still TRUE), OR only
 * on rows not yet TRUE, CASE each WHEN on the rows no earlier WHEN matched and each THEN on the
 * rows its WHEN matched, COALESCE each argument on the rows still NULL, an IN chain each element
 * on the rows not yet matched. CASE and COALESCE let their branches write straight into the
 * result vector at their rows (the target protocol of expr_int.h). TRY evaluates its argument
 * with kernels in try mode; if a kernel still fails with a user error (one without row-wise try
 * support), the argument is evaluated again row by row and the failing rows become NULL.
 */
#include <string.h>

#include "exec/expr_int.h"
#include "exec/ops.h"

static int out_vec(exec_expr_state *st, const xnode *n, vec *target, vec **out) {
    if (target) {
        *out = target;
        return SQE_OK;
    }
    return xslot_vec(st, n, out);
}

static inline void set_valid(vec *v, uint32_t row) {
    if (v->validity) v->validity[row >> 6] |= (uint64_t)1 << (row & 63);
}

static inline int set_null(exec_expr_state *st, vec *v, uint32_t row) {
    if (vec_set_null(v, row) != SQE_OK) return err_nomem(st->err, "validity");
    return SQE_OK;
}

int xsel_difference(exec_expr_state *st, const uint32_t *sel, uint32_t count,
                    const uint32_t *tsel, uint32_t nt, uint32_t *fsel, uint32_t *nf) {
    uint32_t m = 0;
    if (nt == 0) {
        for (uint32_t i = 0; i < count; i++) fsel[i] = sel ? sel[i] : i;
        *nf = count;
        return SQE_OK;
    }
    if (nt == count) {
        *nf = 0;
        return SQE_OK;
    }
    uint8_t *marks;
    SQE_TRY(xstate_marks(st, &marks));
    for (uint32_t i = 0; i < nt; i++) marks[tsel[i]] = 1;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t row = sel ? sel[i] : i;
        fsel[m] = row;
        m += marks[row] ^ 1;
    }
    for (uint32_t i = 0; i < nt; i++) marks[tsel[i]] = 0;
    *nf = m;
    return SQE_OK;
}

/* --- AND / OR ------------------------------------------------------------------------------- */

int xselect_and(exec_expr_state *st, const xnode *n, const vec_chunk *in, const uint32_t *sel,
                uint32_t count, uint32_t *tsel, uint32_t *nt, uint32_t *fsel, uint32_t *nf) {
    uint32_t *a, *b;
    SQE_TRY(xslot_sel(st, n, 0, &a));
    SQE_TRY(xslot_sel(st, n, 1, &b));
    const uint32_t *cur = sel;
    uint32_t ncur = count;
    for (uint32_t k = 0; k < n->n_args && ncur > 0; k++) {
        if ((k & 255) == 255) SQE_TRY(exec_check_cancel(st->qctx, st->err)); /* long chains */
        uint32_t *dst = cur == a ? b : a;
        uint32_t nd;
        SQE_TRY(xselect(st, n->args[k], in, cur, ncur, dst, &nd, NULL, NULL));
        cur = dst;
        ncur = nd;
    }
    if (fsel) SQE_TRY(xsel_difference(st, sel, count, cur, ncur, fsel, nf));
    if (cur != tsel) {
        if (cur)
            memmove(tsel, cur, ncur * sizeof(uint32_t));
        else
            for (uint32_t i = 0; i < ncur; i++) tsel[i] = i;
    }
    *nt = ncur;
    return SQE_OK;
}

int xselect_or(exec_expr_state *st, const xnode *n, const vec_chunk *in, const uint32_t *sel,
               uint32_t count, uint32_t *tsel, uint32_t *nt, uint32_t *fsel, uint32_t *nf) {
    uint32_t *acc, *b, *c;
    SQE_TRY(xslot_sel(st, n, 0, &acc));
    SQE_TRY(xslot_sel(st, n, 1, &b));
    SQE_TRY(xslot_sel(st, n, 2, &c));
    const uint32_t *rem = sel;
    uint32_t nrem = count, nacc = 0;
    for (uint32_t k = 0; k < n->n_args && nrem > 0; k++) {
        if ((k & 255) == 255) SQE_TRY(exec_check_cancel(st->qctx, st->err)); /* long chains */
        uint32_t *f = rem == b ? c : b;
        uint32_t t, nfk;
        SQE_TRY(xselect(st, n->args[k], in, rem, nrem, acc + nacc, &t, f, &nfk));
        nacc += t;
        rem = f;
        nrem = nfk;
    }
    if (fsel) {
        memcpy(fsel, rem, nrem * sizeof(uint32_t));
        *nf = nrem;
    }
    uint32_t k = 0;
    if (nacc == count) {
        for (uint32_t i = 0; i < count; i++) tsel[i] = sel ? sel[i] : i;
        k = count;
    } else if (nacc > 0) {
        uint8_t *marks;
        SQE_TRY(xstate_marks(st, &marks));
        for (uint32_t i = 0; i < nacc; i++) marks[acc[i]] = 1;
        for (uint32_t i = 0; i < count; i++) {
            uint32_t row = sel ? sel[i] : i;
            tsel[k] = row;
            k += marks[row];
        }
        for (uint32_t i = 0; i < nacc; i++) marks[acc[i]] = 0;
    }
    *nt = k;
    return SQE_OK;
}

int xeval_and_or(exec_expr_state *st, const xnode *n, const vec_chunk *in, const uint32_t *sel,
                 uint32_t count, vec *target, const vec **res) {
    bool is_and = n->kind == XK_AND;
    vec *out;
    SQE_TRY(out_vec(st, n, target, &out));
    uint8_t *d = out->data;
    uint8_t init = is_and ? 1 : 0;
    for (uint32_t i = 0; i < count; i++) d[sel ? sel[i] : i] = init;
    uint32_t *a, *b;
    SQE_TRY(xslot_sel(st, n, 0, &a));
    SQE_TRY(xslot_sel(st, n, 1, &b));
    const uint32_t *active = sel;
    uint32_t nact = count;
    int decisive = is_and ? 0 : 1;
    for (uint32_t k = 0; k < n->n_args && nact > 0; k++) {
        if ((k & 255) == 255) SQE_TRY(exec_check_cancel(st->qctx, st->err)); /* long chains */
        const vec *r;
        SQE_TRY(xeval(st, n->args[k], in, active, nact, NULL, &r));
        xbool xb;
        xbool_init(&xb, r);
        uint32_t *dst = active == a ? b : a;
        uint32_t nd = 0;
        for (uint32_t i = 0; i < nact; i++) {
            uint32_t row = active ? active[i] : i;
            int v = xbool_get(&xb, row);
            if (v == decisive) {
                d[row] = (uint8_t)decisive;
                set_valid(out, row);
            } else {
                if (v == 2) SQE_TRY(set_null(st, out, row));
                dst[nd++] = row;
            }
        }
        active = dst;
        nact = nd;
    }
    *res = out;
    return SQE_OK;
}

/* --- NOT, IS NULL --------------------------------------------------------------------------- */

int xeval_not(exec_expr_state *st, const xnode *n, const vec_chunk *in, const uint32_t *sel,
              uint32_t count, vec *target, const vec **res) {
    const vec *r;
    SQE_TRY(xeval(st, n->args[0], in, sel, count, NULL, &r));
    vec *out;
    SQE_TRY(out_vec(st, n, target, &out));
    uint8_t *d = out->data;
    xbool xb;
    xbool_init(&xb, r);
    if (xb.mode == 0 && !xb.valid) {
        const uint8_t *s = xb.data;
        if (!sel)
            for (uint32_t row = 0; row < count; row++) d[row] = s[row] == 0;
        else
            for (uint32_t i = 0; i < count; i++) d[sel[i]] = s[sel[i]] == 0;
    } else {
        for (uint32_t i = 0; i < count; i++) {
            uint32_t row = sel ? sel[i] : i;
            int v = xbool_get(&xb, row);
            if (v == 2)
                SQE_TRY(set_null(st, out, row));
            else
                d[row] = (uint8_t)(v == 0);
        }
    }
    *res = out;
    return SQE_OK;
}

int xeval_is_null(exec_expr_state *st, const xnode *n, const vec_chunk *in, const uint32_t *sel,
                  uint32_t count, vec *target, const vec **res) {
    const vec *r;
    SQE_TRY(xeval(st, n->args[0], in, sel, count, NULL, &r));
    vec *out;
    SQE_TRY(out_vec(st, n, target, &out));
    uint8_t *d = out->data;
    uint8_t want_null = n->kind == XK_IS_NULL;
    bool any = exec_vec_may_have_nulls(r);
    for (uint32_t i = 0; i < count; i++) {
        uint32_t row = sel ? sel[i] : i;
        uint8_t is_null = any && vec_is_null(r, row);
        d[row] = (uint8_t)(is_null == want_null);
    }
    *res = out;
    return SQE_OK;
}

/* --- CASE, COALESCE ------------------------------------------------------------------------- */

int xeval_case(exec_expr_state *st, const xnode *n, const vec_chunk *in, const uint32_t *sel,
               uint32_t count, vec *target, const vec **res) {
    vec *out;
    SQE_TRY(out_vec(st, n, target, &out));
    uint32_t *a, *matched, *c;
    SQE_TRY(xslot_sel(st, n, 0, &a));
    SQE_TRY(xslot_sel(st, n, 1, &matched));
    SQE_TRY(xslot_sel(st, n, 2, &c));
    uint32_t n_when = n->u.has_else ? (n->n_args - 1) / 2 : n->n_args / 2;
    const uint32_t *rem = sel;
    uint32_t nrem = count;
    for (uint32_t w = 0; w < n_when && nrem > 0; w++) {
        uint32_t *f = rem == a ? c : a;
        uint32_t nm, nf;
        SQE_TRY(xselect(st, n->args[2 * w], in, rem, nrem, matched, &nm, f, &nf));
        if (nm) {
            const vec *r;
            SQE_TRY(xeval(st, n->args[2 * w + 1], in, matched, nm, out, &r));
            if (r != out) SQE_TRY(xcopy_rows(st, out, r, matched, nm));
        }
        rem = f;
        nrem = nf;
    }
    if (nrem) {
        if (n->u.has_else) {
            const vec *r;
            SQE_TRY(xeval(st, n->args[n->n_args - 1], in, rem, nrem, out, &r));
            if (r != out) SQE_TRY(xcopy_rows(st, out, r, rem, nrem));
        } else {
            SQE_TRY(xset_null_rows(st, out, rem, nrem));
        }
    }
    *res = out;
    return SQE_OK;
}

int xeval_coalesce(exec_expr_state *st, const xnode *n, const vec_chunk *in,
                   const uint32_t *sel, uint32_t count, vec *target, const vec **res) {
    vec *out;
    SQE_TRY(out_vec(st, n, target, &out));
    uint32_t *a, *b;
    SQE_TRY(xslot_sel(st, n, 0, &a));
    SQE_TRY(xslot_sel(st, n, 1, &b));
    const uint32_t *rem = sel;
    uint32_t nrem = count;
    for (uint32_t k = 0; k < n->n_args; k++) {
        const vec *r;
        SQE_TRY(xeval(st, n->args[k], in, rem, nrem, out, &r));
        if (r != out) SQE_TRY(xcopy_rows(st, out, r, rem, nrem));
        if (k + 1 == n->n_args || !out->validity) break;
        uint32_t *dst = rem == a ? b : a;
        uint32_t nd = 0;
        const uint64_t *v = out->validity;
        for (uint32_t i = 0; i < nrem; i++) {
            uint32_t row = rem ? rem[i] : i;
            dst[nd] = row;
            nd += (uint32_t)((v[row >> 6] >> (row & 63)) & 1) ^ 1;
        }
        rem = dst;
        nrem = nd;
        if (!nrem) break;
        xset_valid_rows(out, rem, nrem);
    }
    *res = out;
    return SQE_OK;
}

/* --- IN ------------------------------------------------------------------------------------- */

static inline bool set_has_int(const xset *s, int64_t v) {
    uint32_t h = (uint32_t)xset_hash_int(v) & s->mask;
    while (s->used[h]) {
        if (s->ints[h] == v) return true;
        h = (h + 1) & s->mask;
    }
    return false;
}

static inline bool set_has_str(const xset *s, const sqe_str *v) {
    uint32_t h = (uint32_t)xset_hash_str(v) & s->mask;
    while (s->used[h]) {
        if (sqe_str_equal(&s->strs[h], v)) return true;
        h = (h + 1) & s->mask;
    }
    return false;
}

int xeval_in_set(exec_expr_state *st, const xnode *n, const vec_chunk *in, const uint32_t *sel,
                 uint32_t count, vec *target, const vec **res) {
    const vec *x;
    SQE_TRY(xeval(st, n->args[0], in, sel, count, NULL, &x));
    vec *out;
    SQE_TRY(out_vec(st, n, target, &out));
    uint8_t *d = out->data;
    const xset *s = n->u.set;
    xbool xb;
    xbool_init(&xb, x);
    size_t width = type_physical_size(x->type);
    for (uint32_t i = 0; i < count; i++) {
        uint32_t row = sel ? sel[i] : i;
        const uint8_t *data;
        uint32_t idx;
        bool valid;
        if (xb.mode == 3) {
            const vec *f = vec_resolve(x, row, &idx);
            data = f->data;
            valid = vec_is_valid_flat(f, idx);
        } else {
            idx = xbool_idx(&xb, row);
            data = xb.data;
            valid = !xb.valid || ((xb.valid[idx >> 6] >> (idx & 63)) & 1);
        }
        if (!valid) {
            SQE_TRY(set_null(st, out, row));
            continue;
        }
        bool found;
        if (s->strings) {
            found = set_has_str(s, &((const sqe_str *)data)[idx]);
        } else {
            int64_t v;
            switch (width) {
            case 1: v = ((const int8_t *)data)[idx]; break;
            case 2: v = ((const int16_t *)data)[idx]; break;
            case 4: v = ((const int32_t *)data)[idx]; break;
            default: v = ((const int64_t *)data)[idx]; break;
            }
            found = set_has_int(s, v);
        }
        d[row] = found;
        if (!found && s->has_null) SQE_TRY(set_null(st, out, row));
    }
    *res = out;
    return SQE_OK;
}

int xeval_in_list(exec_expr_state *st, const xnode *n, const vec_chunk *in, const uint32_t *sel,
                  uint32_t count, vec *target, const vec **res) {
    const vec *x;
    SQE_TRY(xeval(st, n->args[0], in, sel, count, NULL, &x));
    vec *out;
    SQE_TRY(out_vec(st, n, target, &out));
    uint8_t *d = out->data;
    uint32_t *a, *b;
    SQE_TRY(xslot_sel(st, n, 0, &a));
    SQE_TRY(xslot_sel(st, n, 1, &b));
    const uint32_t *active = sel;
    uint32_t nact = count;
    for (uint32_t i = 0; i < count; i++) d[sel ? sel[i] : i] = 0;
    if (exec_vec_may_have_nulls(x)) {
        nact = 0;
        for (uint32_t i = 0; i < count; i++) {
            uint32_t row = sel ? sel[i] : i;
            if (vec_is_null(x, row))
                SQE_TRY(set_null(st, out, row));
            else
                a[nact++] = row;
        }
        active = a;
    }
    bool try_mode = st->try_depth > 0;
    sqe_type bool_type = type_make(TYPE_BOOLEAN);
    for (uint32_t k = 1; k < n->n_args && nact > 0; k++) {
        const vec *e;
        SQE_TRY(xeval(st, n->args[k], in, active, nact, NULL, &e));
        vec *eqv;
        SQE_TRY(xslot_aux(st, n, bool_type, &eqv));
        const vec *args[2] = {x, e};
        SQE_TRY(xcall_kernel(st, n, n->u.eqs[k], NULL, true, try_mode, args, 2, active, nact, eqv,
                             NULL));
        xbool xb;
        xbool_init(&xb, eqv);
        uint32_t *dst = active == a ? b : a;
        uint32_t nd = 0;
        for (uint32_t i = 0; i < nact; i++) {
            uint32_t row = active ? active[i] : i;
            int v = xbool_get(&xb, row);
            if (v == 1) {
                d[row] = 1;
                set_valid(out, row);
            } else {
                if (v == 2) SQE_TRY(set_null(st, out, row));
                dst[nd++] = row;
            }
        }
        active = dst;
        nact = nd;
    }
    *res = out;
    return SQE_OK;
}

/* --- NULLIF, TRY ---------------------------------------------------------------------------- */

int xeval_nullif(exec_expr_state *st, const xnode *n, const vec_chunk *in, const uint32_t *sel,
                 uint32_t count, vec *target, const vec **res) {
    vec *out;
    SQE_TRY(out_vec(st, n, target, &out));
    const vec *a;
    SQE_TRY(xeval(st, n->args[0], in, sel, count, out, &a));
    if (a != out) SQE_TRY(xcopy_rows(st, out, a, sel, count));
    const vec *b;
    SQE_TRY(xeval(st, n->args[1], in, sel, count, NULL, &b));
    vec *eqv;
    SQE_TRY(xslot_aux(st, n, type_make(TYPE_BOOLEAN), &eqv));
    const vec *args[2] = {out, b};
    SQE_TRY(xcall_kernel(st, n, n->u.call.fn, NULL, true, st->try_depth > 0, args, 2, sel, count,
                         eqv, NULL));
    xbool xb;
    xbool_init(&xb, eqv);
    for (uint32_t i = 0; i < count; i++) {
        uint32_t row = sel ? sel[i] : i;
        if (xbool_get(&xb, row) == 1) SQE_TRY(set_null(st, out, row));
    }
    *res = out;
    return SQE_OK;
}

/* Errors TRY turns into NULL: user errors of a row (not cancellation, limits, internal). */
static bool try_catches(int code) {
    if (code == SQE_ERR_USER_CANCELED || code == SQE_ERR_SUBQUERY_MULTIPLE_ROWS) return false;
    return strcmp(err_code_lookup(code)->trino_type, "USER_ERROR") == 0;
}

int xeval_try(exec_expr_state *st, const xnode *n, const vec_chunk *in, const uint32_t *sel,
              uint32_t count, vec *target, const vec **res) {
    st->try_depth++;
    int rc = xeval(st, n->args[0], in, sel, count, target, res);
    st->try_depth--;
    if (rc == SQE_OK || !try_catches(rc)) return rc;
    /* A kernel without row-wise try support failed: evaluate row by row. */
    vec *out;
    SQE_TRY(xslot_vec(st, n, &out));
    st->try_depth++;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t row = sel ? sel[i] : i;
        const vec *r;
        rc = xeval(st, n->args[0], in, &row, 1, NULL, &r);
        if (rc == SQE_OK) rc = vec_copy_row(out, row, r, row, st->err);
        if (rc != SQE_OK) {
            if (!try_catches(rc)) break;
            rc = set_null(st, out, row);
            if (rc != SQE_OK) break;
        }
    }
    st->try_depth--;
    if (rc != SQE_OK) return rc;
    *res = out;
    return SQE_OK;
}
