/*
 * expr_eval.c: the vectorized expression evaluator: evaluation of compiled nodes over whole
 * chunks under a selection, NULL propagation around kernels, boolean selection (filters), and
 * the public entry points.
 *
 * INTERFACE: exec_expr_eval, exec_expr_eval_view, exec_expr_eval_to, exec_expr_select; internal (expr_int.h):
 *   xeval, xselect, xcall_kernel, xslot_vec, xslot_aux, xslot_sel, xstate_marks, xcopy_rows,
 *   xset_null_rows, xset_valid_rows, xbool_init.
 * NOTES: column references return the input vector itself (identity views unwrapped, so
 * kernels see the flat vector and take their fast paths); constants are VEC_CONST vectors; a
 * constant subtree (is_const) is evaluated once per state and cached. For null-propagating
 * functions the kernel runs only on the rows where every argument is valid: with no argument
 * that may hold NULLs the selection passes through unchanged (the kernels' flat fast path);
 * otherwise the valid rows are found word by word from the validity bitmaps (flat arguments,
 * no selection) or row by row, and the others are marked NULL. Calls whose arguments are all
 * constant are computed once per chunk as a VEC_CONST. Filters turn a boolean result into a
 * selection with one branch-free loop.
 */
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "exec/expr_int.h"

/* --- Slots and buffers ---------------------------------------------------------------------- */

static uint32_t row_cap(const exec_expr_state *st) {
    return st->rows > VEC_CHUNK_SIZE ? st->rows : VEC_CHUNK_SIZE;
}

static int slot_vec_prepare(exec_expr_state *st, vec *v, bool *inited, sqe_type type) {
    uint32_t cap = row_cap(st);
    if (!*inited) {
        *inited = true;
        return vec_init(v, type, cap, st->qctx->tracker, st->err);
    }
    vec_reset(v);
    if (v->capacity < st->rows) return vec_reserve(v, st->rows, st->err);
    return SQE_OK;
}

int xslot_vec(exec_expr_state *st, const xnode *n, vec **out) {
    xslot *s = &st->slots[n->id];
    SQE_TRY(slot_vec_prepare(st, &s->v, &s->v_init, n->type));
    *out = &s->v;
    return SQE_OK;
}

int xslot_aux(exec_expr_state *st, const xnode *n, sqe_type type, vec **out) {
    xslot *s = &st->slots[n->id];
    if (s->aux_init && !type_equal(s->aux.type, type)) {
        vec_destroy(&s->aux);
        s->aux_init = false;
    }
    SQE_TRY(slot_vec_prepare(st, &s->aux, &s->aux_init, type));
    *out = &s->aux;
    return SQE_OK;
}

int xslot_sel(exec_expr_state *st, const xnode *n, uint32_t k, uint32_t **out) {
    xslot *s = &st->slots[n->id];
    uint32_t cap = row_cap(st);
    if (s->sel_cap < cap) {
        mem_free(st->qctx->tracker, s->sels);
        s->sel_cap = 0;
        s->sels = mem_alloc(st->qctx->tracker, (size_t)cap * XSEL_BUFS * sizeof(uint32_t), st->err);
        if (!s->sels) return st->err ? st->err->code : SQE_ERR_OUT_OF_MEMORY;
        s->sel_cap = cap;
    }
    *out = s->sels + (size_t)k * s->sel_cap;
    return SQE_OK;
}

int xstate_marks(exec_expr_state *st, uint8_t **out) {
    uint32_t cap = row_cap(st);
    if (st->marks_cap < cap) {
        mem_free(st->qctx->tracker, st->marks);
        st->marks_cap = 0;
        st->marks = mem_calloc(st->qctx->tracker, cap, st->err);
        if (!st->marks) return st->err ? st->err->code : SQE_ERR_OUT_OF_MEMORY;
        st->marks_cap = cap;
    }
    *out = st->marks;
    return SQE_OK;
}

int xcopy_rows(exec_expr_state *st, vec *target, const vec *res, const uint32_t *sel,
               uint32_t count) {
    return exec_vec_copy(target, sel, 0, res, sel, count, false, st->err);
}

int xset_null_rows(exec_expr_state *st, vec *v, const uint32_t *sel, uint32_t count) {
    if (count == 0) return SQE_OK;
    uint64_t *bits = vec_validity_make(v);
    if (!bits) return err_nomem(st->err, "validity");
    for (uint32_t i = 0; i < count; i++) {
        uint32_t r = sel ? sel[i] : i;
        bits[r >> 6] &= ~((uint64_t)1 << (r & 63));
    }
    return SQE_OK;
}

void xset_valid_rows(vec *v, const uint32_t *sel, uint32_t count) {
    if (!v->validity) return;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t r = sel ? sel[i] : i;
        v->validity[r >> 6] |= (uint64_t)1 << (r & 63);
    }
}

void xbool_init(xbool *b, const vec *v) {
    const vec *u = exec_vec_unwrap(v);
    b->v = v;
    b->sel = NULL;
    if (u->shape == VEC_FLAT || u->shape == VEC_CONST) {
        b->data = u->data;
        b->valid = u->validity;
        b->mode = u->shape == VEC_FLAT ? 0 : 1;
        return;
    }
    const vec *base = exec_vec_unwrap(u->dict);
    b->data = base->data;
    b->valid = base->validity;
    if (base->shape == VEC_FLAT) {
        b->mode = 2;
        b->sel = u->sel;
    } else if (base->shape == VEC_CONST) {
        b->mode = 1;
    } else {
        b->mode = 3;
    }
}

/* --- Kernel calls with NULL propagation ----------------------------------------------------- */

int xcall_kernel(exec_expr_state *st, const xnode *n, func_scalar_fn fn, const void *bind_data,
                 bool null_prop, bool try_mode, const vec *const *args, uint32_t n_args,
                 const uint32_t *sel, uint32_t count, vec *out, void *lambda_state) {
    if (count == 0) return SQE_OK;
    func_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.tracker = st->qctx->tracker;
    ctx.scratch = &st->scratch;
    ctx.bind_data = bind_data;
    ctx.session_zone = st->qctx->session_zone;
    ctx.query_start_micros = st->qctx->query_start_micros;
    ctx.random_seed = st->qctx->random_seed;
    ctx.try_mode = try_mode;
    ctx.err = st->err;
    ctx.cancel = st->qctx->cancel;
    ctx.deadline_ns = st->qctx->deadline_ns;
    ctx.time_limit_ms = st->qctx->time_limit_ms;
    if (lambda_state) {
        ctx.lambda_eval = xlambda_eval;
        ctx.lambda_state = lambda_state;
    }
    if (!null_prop) return fn(&ctx, args, n_args, sel, count, out);

    enum { MAX_NULLABLE = 16 };
    xbool nb[MAX_NULLABLE];
    uint32_t nn = 0;
    bool generic = false, all_flat = true;
    for (uint32_t i = 0; i < n_args; i++) {
        if (!args[i] || !exec_vec_may_have_nulls(args[i])) continue;
        const vec *a = exec_vec_unwrap(args[i]);
        if (a->shape == VEC_CONST) return xset_null_rows(st, out, sel, count);
        if (nn == MAX_NULLABLE) {
            generic = true;
            continue;
        }
        xbool_init(&nb[nn], args[i]);
        if (nb[nn].mode != 0) all_flat = false;
        nn++;
    }
    if (nn == 0 && !generic) return fn(&ctx, args, n_args, sel, count, out);

    uint32_t *vsel;
    SQE_TRY(xslot_sel(st, n, 2, &vsel));
    uint64_t *ov = vec_validity_make(out);
    if (!ov) return err_nomem(st->err, "validity");
    uint32_t nv = 0;
    if (!sel && all_flat && !generic) {
        uint32_t n_words = (count + 63) / 64;
        for (uint32_t w = 0; w < n_words; w++) {
            uint64_t m = ~(uint64_t)0;
            for (uint32_t k = 0; k < nn; k++) m &= nb[k].valid[w];
            uint64_t span = ~(uint64_t)0;
            if (w == n_words - 1 && (count & 63)) span = ((uint64_t)1 << (count & 63)) - 1;
            m &= span;
            ov[w] = (ov[w] & ~span) | m;
            uint32_t base = w * 64;
            if (m == ~(uint64_t)0) {
                for (uint32_t b = 0; b < 64; b++) vsel[nv + b] = base + b;
                nv += 64;
            } else {
                while (m) {
                    vsel[nv++] = base + (uint32_t)__builtin_ctzll(m);
                    m &= m - 1;
                }
            }
        }
    } else {
        for (uint32_t i = 0; i < count; i++) {
            uint32_t row = sel ? sel[i] : i;
            uint32_t ok = 1;
            for (uint32_t k = 0; k < nn; k++) ok &= xbool_get(&nb[k], row) != 2 ? 1u : 0u;
            if (generic)
                for (uint32_t a = 0; a < n_args; a++)
                    if (args[a] && vec_is_null(args[a], row)) ok = 0;
            vsel[nv] = row;
            nv += ok;
            ov[row >> 6] &= ~((uint64_t)(ok ^ 1) << (row & 63));
        }
    }
    if (nv == 0) return SQE_OK;
    if (nv == count) return fn(&ctx, args, n_args, sel, count, out);
    return fn(&ctx, args, n_args, vsel, nv, out);
}

/* --- Node evaluation ------------------------------------------------------------------------ */

static int xeval_node(exec_expr_state *st, const xnode *n, const vec_chunk *in,
                      const uint32_t *sel, uint32_t count, vec *target, const vec **res);

/* Points a kernel's error at the failing expression's position in the statement. */
static int error_at_node(exec_expr_state *st, const xnode *n, int rc) {
    if (st->err && !st->err->line && n->src && n->src->line) {
        st->err->line = n->src->line;
        st->err->column = n->src->col;
    }
    return rc;
}

/* Constant subtree: evaluated once per state (on one row) and cached as a VEC_CONST. */
static int xeval_cached(exec_expr_state *st, const xnode *n, const vec_chunk *in,
                        const vec **res) {
    xslot *s = &st->slots[n->id];
    if (s->const_ready) {
        *res = &s->v;
        return SQE_OK;
    }
    const vec *r;
    SQE_TRY(xeval_node(st, n, in, NULL, 1, NULL, &r));
    if (r != &s->v) {
        if (!s->v_init) {
            s->v_init = true;
            SQE_TRY(vec_init(&s->v, n->type, VEC_CHUNK_SIZE, st->qctx->tracker, st->err));
        }
        SQE_TRY(vec_set_const_from(&s->v, r, 0, st->err));
    } else {
        s->v.shape = VEC_CONST;
    }
    s->const_ready = true;
    *res = &s->v;
    return SQE_OK;
}

/* A constant given by a vector (plan constant, parameter) as this node's cached VEC_CONST. */
static int const_from(exec_expr_state *st, const xnode *n, const vec *value, const vec **res) {
    xslot *s = &st->slots[n->id];
    if (!s->const_ready) {
        if (!s->v_init) {
            s->v_init = true;
            SQE_TRY(vec_init(&s->v, n->type, 1, st->qctx->tracker, st->err));
        }
        if (value)
            SQE_TRY(vec_set_const_from(&s->v, value, 0, st->err));
        else
            vec_set_const_null(&s->v);
        s->const_ready = true;
    }
    *res = &s->v;
    return SQE_OK;
}

static int xeval_call(exec_expr_state *st, const xnode *n, const vec_chunk *in,
                      const uint32_t *sel, uint32_t count, vec *target, const vec **res) {
    uint32_t na = n->n_args;
    /* a dense selection: compute a safe comparison on every row (flat fast path) instead */
    if (sel && !target && n->u.call.dense_ok && count * 4 >= in->count && count <= in->count) {
        sel = NULL;
        count = in->count;
    }
    const vec *argv_small[8];
    const vec **args = argv_small;
    if (na > 8) {
        args = arena_alloc(&st->scratch, na * sizeof(vec *));
        if (!args) return err_nomem(st->err, "arguments");
    }
    bool all_c = !n->u.call.volatile_ && !n->u.call.has_lambda;
    for (uint32_t i = 0; i < na; i++) {
        if (n->args[i]->kind == XK_LAMBDA) {
            args[i] = NULL;
            continue;
        }
        SQE_TRY(xeval(st, n->args[i], in, sel, count, NULL, &args[i]));
        if (exec_vec_unwrap(args[i])->shape != VEC_CONST) all_c = false;
    }
    bool try_mode = st->try_depth > 0 || (n->kind == XK_CAST && n->u.call.try_cast);
    if (all_c && na > 0) {
        vec *v;
        SQE_TRY(xslot_vec(st, n, &v));
        int crc = xcall_kernel(st, n, n->u.call.fn, n->u.call.bind_data, n->null_prop, try_mode,
                               args, na, NULL, 1, v, NULL);
        if (crc) return error_at_node(st, n, crc);
        v->shape = VEC_CONST;
        *res = v;
        return SQE_OK;
    }
    vec *out = target;
    if (!out) SQE_TRY(xslot_vec(st, n, &out));
    xlambda_call lc = {st, n, in};
    int rc = xcall_kernel(st, n, n->u.call.fn, n->u.call.bind_data, n->null_prop, try_mode, args,
                          na, sel, count, out, n->u.call.has_lambda ? &lc : NULL);
    if (rc) return error_at_node(st, n, rc);
    *res = out;
    return SQE_OK;
}

static int xeval_node(exec_expr_state *st, const xnode *n, const vec_chunk *in,
                      const uint32_t *sel, uint32_t count, vec *target, const vec **res) {
    switch (n->kind) {
    case XK_COLUMN: *res = exec_vec_unwrap(&in->cols[n->u.col]); return SQE_OK;
    case XK_CONST:
        if (n->u.constant && n->u.constant->shape == VEC_CONST) {
            *res = n->u.constant;
            return SQE_OK;
        }
        return const_from(st, n, n->u.constant, res);
    case XK_PARAM: return const_from(st, n, st->qctx->params[n->u.param], res);
    default: break;
    }
    if (count == 0) {
        vec *v = target;
        if (!v) SQE_TRY(xslot_vec(st, n, &v));
        *res = v;
        return SQE_OK;
    }
    switch (n->kind) {
    case XK_CALL:
    case XK_CAST: return xeval_call(st, n, in, sel, count, target, res);
    case XK_AND:
    case XK_OR: return xeval_and_or(st, n, in, sel, count, target, res);
    case XK_NOT: return xeval_not(st, n, in, sel, count, target, res);
    case XK_IS_NULL:
    case XK_IS_NOT_NULL: return xeval_is_null(st, n, in, sel, count, target, res);
    case XK_CASE: return xeval_case(st, n, in, sel, count, target, res);
    case XK_COALESCE: return xeval_coalesce(st, n, in, sel, count, target, res);
    case XK_IN_SET: return xeval_in_set(st, n, in, sel, count, target, res);
    case XK_IN_LIST: return xeval_in_list(st, n, in, sel, count, target, res);
    case XK_TRY: return xeval_try(st, n, in, sel, count, target, res);
    case XK_NULLIF: return xeval_nullif(st, n, in, sel, count, target, res);
    case XK_ARRAY: return xeval_array(st, n, in, sel, count, target, res);
    case XK_ROW: return xeval_row(st, n, in, sel, count, target, res);
    case XK_FIELD: return xeval_field(st, n, in, sel, count, target, res);
    case XK_LAMBDA:
        return err_set(st->err, SQE_ERR_GENERIC_INTERNAL_ERROR,
                       "lambda evaluated outside its function");
    default:
        return err_set(st->err, SQE_ERR_GENERIC_INTERNAL_ERROR, "unknown compiled node %u",
                       n->kind);
    }
}

int xeval(exec_expr_state *st, const xnode *n, const vec_chunk *in, const uint32_t *sel,
          uint32_t count, vec *target, const vec **res) {
    if (n->is_const && n->kind != XK_CONST && n->kind != XK_PARAM && count > 0)
        return xeval_cached(st, n, in, res);
    return xeval_node(st, n, in, sel, count, target, res);
}

/* --- Selection ------------------------------------------------------------------------------ */

/* Rows 0..count-1 where d[row] != 0 (and the validity bit, if any, is set), in order, into
 * tsel; returns their number. Works 64 rows at a time: the booleans become a bit mask (SSE2
 * compare + movemask), all-true words append 64 consecutive rows, others only their set bits,
 * so a selective filter costs little more than the mask. */
static uint32_t select_flat_bools(const uint8_t *d, const uint64_t *v, uint32_t count,
                                  uint32_t *tsel) {
    uint32_t k = 0, base = 0;
    for (; base + 64 <= count; base += 64) {
        uint64_t m;
#ifdef __SSE2__
        __m128i zero = _mm_setzero_si128();
        uint64_t z0 = (uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(d + base)), zero));
        uint64_t z1 = (uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(d + base + 16)), zero));
        uint64_t z2 = (uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(d + base + 32)), zero));
        uint64_t z3 = (uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(d + base + 48)), zero));
        m = ~(z0 | z1 << 16 | z2 << 32 | z3 << 48);
#else
        m = 0;
        for (uint32_t j = 0; j < 64; j++) m |= (uint64_t)(d[base + j] != 0) << j;
#endif
        if (v) m &= v[base >> 6];
        if (m == ~(uint64_t)0) {
            for (uint32_t j = 0; j < 64; j++) tsel[k + j] = base + j;
            k += 64;
        } else if (__builtin_popcountll(m) > 24) {
            for (uint32_t j = 0; j < 64; j++) {
                tsel[k] = base + j;
                k += (uint32_t)(m >> j) & 1;
            }
        } else {
            while (m) {
                tsel[k++] = base + (uint32_t)__builtin_ctzll(m);
                m &= m - 1;
            }
        }
    }
    for (uint32_t row = base; row < count; row++) {
        tsel[k] = row;
        k += (d[row] != 0) & (v ? (uint32_t)(v[row >> 6] >> (row & 63)) : 1u);
    }
    return k;
}

/* Splits rows by a boolean vector: want = 1 selects TRUE rows, want = 0 selects FALSE rows;
 * want = 2 selects NULL rows, want = 3 non-NULL rows (IS NULL / IS NOT NULL). */
static void bool_split(const vec *res, int want, const uint32_t *sel, uint32_t count,
                       uint32_t *tsel, uint32_t *nt, uint32_t *fsel, uint32_t *nf) {
    xbool b;
    xbool_init(&b, res);
    uint32_t k = 0, m = 0;
    if (b.mode == 1) {
        int v = xbool_get(&b, 0);
        bool t = want == 1 ? v == 1 : want == 0 ? v == 0 : want == 2 ? v == 2 : v != 2;
        for (uint32_t i = 0; i < count; i++) {
            uint32_t row = sel ? sel[i] : i;
            if (t)
                tsel[k++] = row;
            else if (fsel)
                fsel[m++] = row;
        }
        *nt = k;
        if (nf) *nf = m;
        return;
    }
    if (b.mode == 0 && want == 1 && !fsel) {
        const uint8_t *d = b.data;
        const uint64_t *v = b.valid;
        if (!sel) {
            *nt = select_flat_bools(d, v, count, tsel);
            return;
        } else if (!v) {
            for (uint32_t i = 0; i < count; i++) {
                uint32_t row = sel[i];
                tsel[k] = row;
                k += d[row] != 0;
            }
        } else {
            for (uint32_t i = 0; i < count; i++) {
                uint32_t row = sel[i];
                tsel[k] = row;
                k += (d[row] != 0) & (uint32_t)(v[row >> 6] >> (row & 63));
            }
        }
        *nt = k;
        return;
    }
    for (uint32_t i = 0; i < count; i++) {
        uint32_t row = sel ? sel[i] : i;
        int v = xbool_get(&b, row);
        uint32_t t = want == 1 ? v == 1 : want == 0 ? v == 0 : want == 2 ? v == 2 : v != 2;
        tsel[k] = row;
        k += t;
        if (fsel) {
            fsel[m] = row;
            m += t ^ 1;
        }
    }
    *nt = k;
    if (nf) *nf = m;
}

/* Splits by validity of any vector (IS NULL: want_null). */
static void null_split(const vec *res, bool want_null, const uint32_t *sel, uint32_t count,
                       uint32_t *tsel, uint32_t *nt, uint32_t *fsel, uint32_t *nf) {
    xbool b;
    xbool_init(&b, res);
    uint32_t k = 0, m = 0;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t row = sel ? sel[i] : i;
        uint32_t is_null;
        if (b.mode == 3) {
            is_null = vec_is_null(res, row);
        } else {
            uint32_t idx = xbool_idx(&b, row);
            is_null = b.valid ? !((b.valid[idx >> 6] >> (idx & 63)) & 1) : 0;
        }
        uint32_t t = is_null == (uint32_t)want_null;
        tsel[k] = row;
        k += t;
        if (fsel) {
            fsel[m] = row;
            m += t ^ 1;
        }
    }
    *nt = k;
    if (nf) *nf = m;
}

int xselect(exec_expr_state *st, const xnode *n, const vec_chunk *in, const uint32_t *sel,
            uint32_t count, uint32_t *tsel, uint32_t *nt, uint32_t *fsel, uint32_t *nf) {
    if (count == 0) {
        *nt = 0;
        if (nf) *nf = 0;
        return SQE_OK;
    }
    const vec *res;
    if (!n->is_const) {
        switch (n->kind) {
        case XK_AND: return xselect_and(st, n, in, sel, count, tsel, nt, fsel, nf);
        case XK_OR: return xselect_or(st, n, in, sel, count, tsel, nt, fsel, nf);
        case XK_NOT:
            SQE_TRY(xeval(st, n->args[0], in, sel, count, NULL, &res));
            bool_split(res, 0, sel, count, tsel, nt, fsel, nf);
            return SQE_OK;
        case XK_IS_NULL:
        case XK_IS_NOT_NULL:
            SQE_TRY(xeval(st, n->args[0], in, sel, count, NULL, &res));
            null_split(res, n->kind == XK_IS_NULL, sel, count, tsel, nt, fsel, nf);
            return SQE_OK;
        default: break;
        }
    }
    SQE_TRY(xeval(st, n, in, sel, count, NULL, &res));
    bool_split(res, 1, sel, count, tsel, nt, fsel, nf);
    return SQE_OK;
}

/* --- Entry points --------------------------------------------------------------------------- */

static void begin(exec_expr_state *st, const vec_chunk *in, uint32_t count, sqe_error *err) {
    st->err = err;
    st->try_depth = 0;
    st->rows = in->count > count ? in->count : count;
    arena_reset(&st->scratch);
}

int exec_expr_eval(exec_expr_state *st, const vec_chunk *in, const uint32_t *sel,
                   uint32_t count, vec *out, sqe_error *err) {
    begin(st, in, count, err);
    vec_reset(out);
    if (out->capacity < st->rows) SQE_TRY(vec_reserve(out, st->rows, err));
    const vec *res;
    SQE_TRY(xeval(st, st->x->root, in, sel, count, out, &res));
    if (res != out) SQE_TRY(exec_vec_copy(out, sel, 0, res, sel, count, false, err));
    return SQE_OK;
}

int exec_expr_eval_view(exec_expr_state *st, const vec_chunk *in, const uint32_t *sel,
                        uint32_t count, const vec **out, sqe_error *err) {
    begin(st, in, count, err);
    return xeval(st, st->x->root, in, sel, count, NULL, out);
}

int exec_expr_eval_to(exec_expr_state *st, const vec_chunk *in, const uint32_t *sel,
                      uint32_t count, vec *target, const vec **out, sqe_error *err) {
    begin(st, in, count, err);
    if (target->capacity < st->rows) SQE_TRY(vec_reserve(target, st->rows, err));
    return xeval(st, st->x->root, in, sel, count, target, out);
}

int exec_expr_select(exec_expr_state *st, const vec_chunk *in, const uint32_t *sel,
                     uint32_t count, uint32_t *sel_out, uint32_t *n_out, sqe_error *err) {
    begin(st, in, count, err);
    return xselect(st, st->x->root, in, sel, count, sel_out, n_out, NULL, NULL);
}
