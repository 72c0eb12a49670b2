/*
 * expr_nested.c: nested values in the expression evaluator: the ARRAY[...] and ROW(...)
 * constructors, row field access, and lambda evaluation for functions such as transform,
 * filter and reduce (func_ctx.lambda_eval).
 *
 * INTERFACE (expr_int.h): xeval_array, xeval_row, xeval_field, xlambda_eval.
 * NOTES: a lambda body is evaluated on a chunk of its own (kept in the lambda node's slot):
 * the lambda's parameters are identity views of the vectors the kernel passes, and each outer
 * column the body captures is a view of the current input chunk through outer_rows (the batch
 * row each element belongs to), so nothing is copied before evaluation. Calls with more than
 * VEC_CHUNK_SIZE elements are evaluated in pieces of VEC_CHUNK_SIZE. Results are copied into
 * the kernel's vector with their string bytes (a reduce step feeds its output back as input).
 */
#include <string.h>

#include "exec/expr_int.h"

static int out_vec(exec_expr_state *st, const xnode *n, vec *target, vec **out) {
    if (target) {
        *out = target;
        return SQE_OK;
    }
    return xslot_vec(st, n, out);
}

int xeval_array(exec_expr_state *st, const xnode *n, const vec_chunk *in, const uint32_t *sel,
                uint32_t count, vec *target, const vec **res) {
    vec *out;
    SQE_TRY(out_vec(st, n, target, &out));
    uint32_t k = n->n_args;
    if (!out->n_children)
        return err_set(st->err, SQE_ERR_GENERIC_INTERNAL_ERROR, "array vector without elements");
    vec *elems = &out->children[0];
    uint32_t base = out->child_len;
    uint64_t need = (uint64_t)base + (uint64_t)count * k;
    if (need > UINT32_MAX)
        return err_set(st->err, SQE_ERR_EXCEEDED_MEMORY_LIMIT, "array constructor too large");
    if (k) SQE_TRY(vec_reserve(elems, (uint32_t)need, st->err));
    sqe_list_entry *e = out->data;
    for (uint32_t i = 0; i < count; i++)
        e[sel ? sel[i] : i] = (sqe_list_entry){base + i * k, k};
    uint32_t *idx = NULL;
    if (k) SQE_TRY(xslot_sel(st, n, 0, &idx));
    for (uint32_t j = 0; j < k; j++) {
        const vec *v;
        SQE_TRY(xeval(st, n->args[j], in, sel, count, NULL, &v));
        for (uint32_t i = 0; i < count; i++) idx[i] = base + i * k + j;
        SQE_TRY(exec_vec_copy(elems, idx, 0, v, sel, count, true, st->err));
    }
    out->child_len = (uint32_t)need;
    *res = out;
    return SQE_OK;
}

int xeval_row(exec_expr_state *st, const xnode *n, const vec_chunk *in, const uint32_t *sel,
              uint32_t count, vec *target, const vec **res) {
    vec *out;
    SQE_TRY(out_vec(st, n, target, &out));
    if (out->n_children != n->n_args)
        return err_set(st->err, SQE_ERR_GENERIC_INTERNAL_ERROR, "row vector with %u fields",
                       out->n_children);
    for (uint32_t j = 0; j < n->n_args; j++) {
        vec *child = &out->children[j];
        const vec *r;
        SQE_TRY(xeval(st, n->args[j], in, sel, count, child, &r));
        if (r != child) SQE_TRY(xcopy_rows(st, child, r, sel, count));
    }
    *res = out;
    return SQE_OK;
}

int xeval_field(exec_expr_state *st, const xnode *n, const vec_chunk *in, const uint32_t *sel,
                uint32_t count, vec *target, const vec **res) {
    const vec *r;
    SQE_TRY(xeval(st, n->args[0], in, sel, count, NULL, &r));
    const vec *u = exec_vec_unwrap(r);
    if (u->shape == VEC_FLAT && !u->validity && n->u.field < u->n_children) {
        *res = &u->children[n->u.field];
        return SQE_OK;
    }
    vec *out;
    SQE_TRY(out_vec(st, n, target, &out));
    for (uint32_t i = 0; i < count; i++) {
        uint32_t row = sel ? sel[i] : i;
        uint32_t phys;
        const vec *f = vec_resolve(r, row, &phys);
        if (!vec_is_valid_flat(f, phys) || n->u.field >= f->n_children) {
            if (vec_set_null(out, row) != SQE_OK) return err_nomem(st->err, "validity");
            continue;
        }
        SQE_TRY(vec_copy_row(out, row, &f->children[n->u.field], phys, st->err));
    }
    *res = out;
    return SQE_OK;
}

/* --- Lambdas -------------------------------------------------------------------------------- */

static int lambda_chunk(exec_expr_state *st, const xnode *lam, const vec_chunk *in,
                        vec *const *largs, xslot **out) {
    xslot *s = &st->slots[lam->id];
    if (!s->lchunk_init) {
        uint32_t parent_n = lam->u.lambda.parent_n, np = lam->u.lambda.n_params;
        uint32_t ncols = parent_n + np;
        sqe_type types[ncols ? ncols : 1];
        for (uint32_t p = 0; p < parent_n; p++)
            types[p] = p < in->n_cols ? in->cols[p].type : type_make(TYPE_UNKNOWN);
        for (uint32_t k = 0; k < np; k++)
            types[parent_n + k] = largs[k] ? largs[k]->type : type_make(TYPE_UNKNOWN);
        s->lchunk_init = true;
        SQE_TRY(vec_chunk_init(&s->lchunk, ncols, types, VEC_CHUNK_SIZE, st->qctx->tracker,
                               st->err));
        s->lrows = mem_alloc(st->qctx->tracker, VEC_CHUNK_SIZE * sizeof(uint32_t), st->err);
        if (!s->lrows) return st->err ? st->err->code : SQE_ERR_OUT_OF_MEMORY;
    }
    *out = s;
    return SQE_OK;
}

int xlambda_eval(void *lambda_state, uint32_t arg_idx, vec *const *lambda_args,
                 uint32_t n_lambda_args, const uint32_t *outer_rows, uint32_t count, vec *out) {
    xlambda_call *lc = lambda_state;
    exec_expr_state *st = lc->st;
    const xnode *call = lc->call;
    if (arg_idx >= call->n_args || call->args[arg_idx]->kind != XK_LAMBDA)
        return err_set(st->err, SQE_ERR_GENERIC_INTERNAL_ERROR,
                       "argument %u of %s is not a lambda", arg_idx, call->u.call.name);
    const xnode *lam = call->args[arg_idx];
    uint32_t parent_n = lam->u.lambda.parent_n, np = lam->u.lambda.n_params;
    if (n_lambda_args != np)
        return err_set(st->err, SQE_ERR_GENERIC_INTERNAL_ERROR,
                       "lambda of %s takes %u arguments, given %u", call->u.call.name, np,
                       n_lambda_args);
    for (uint32_t i = 0; i < lam->u.lambda.n_captured; i++)
        if (lam->u.lambda.captured[i] >= lc->in->n_cols)
            return err_set(st->err, SQE_ERR_GENERIC_INTERNAL_ERROR,
                           "lambda captures a column outside its input");
    if (count == 0) return SQE_OK;
    xslot *s = NULL;
    SQE_TRY(lambda_chunk(st, lam, lc->in, lambda_args, &s));
    vec_chunk *ch = &s->lchunk;
    uint32_t saved_rows = st->rows;
    int rc = SQE_OK;
    for (uint32_t off = 0; off < count && rc == SQE_OK; off += VEC_CHUNK_SIZE) {
        uint32_t len = count - off < VEC_CHUNK_SIZE ? count - off : VEC_CHUNK_SIZE;
        bool whole = off == 0 && len == count;
        if (!whole || !outer_rows)
            for (uint32_t i = 0; i < len; i++) s->lrows[i] = off + i;
        for (uint32_t i = 0; i < lam->u.lambda.n_captured && rc == SQE_OK; i++) {
            uint32_t p = lam->u.lambda.captured[i];
            const uint32_t *rows = outer_rows ? outer_rows + off : s->lrows;
            rc = exec_vec_slice(&ch->cols[p], &lc->in->cols[p], rows, len, st->err);
        }
        for (uint32_t k = 0; k < np && rc == SQE_OK; k++) {
            vec *dst = &ch->cols[parent_n + k];
            if (!lambda_args[k]) {
                vec_set_const_null(dst);
            } else if (whole) {
                vec_set_dict(dst, lambda_args[k], NULL);
            } else {
                rc = exec_vec_slice(dst, lambda_args[k], s->lrows, len, st->err);
            }
        }
        if (rc != SQE_OK) break;
        ch->count = len;
        st->rows = len;
        const vec *r;
        rc = xeval(st, lam->args[0], ch, NULL, len, NULL, &r);
        st->rows = saved_rows;
        if (rc == SQE_OK) rc = exec_vec_copy(out, NULL, off, r, NULL, len, true, st->err);
    }
    st->rows = saved_rows;
    return rc;
}
