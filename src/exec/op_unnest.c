/*
 * op_unnest.c: UNNEST (PLAN_UNNEST), a streaming operator that turns each input row into one
 * row per element of its arrays (and maps).
 *
 * INTERFACE: exec_op_unnest_create (ops.h).
 * NOTES: Trino semantics: several arrays are zipped, the row count of an input row is the
 * longest array's length and shorter arrays are padded with NULLs; a NULL array counts as
 * empty; a map gives two columns (key, value); an array of rows gives one column per field;
 * WITH ORDINALITY appends a 1-based bigint; with `outer` (LEFT JOIN UNNEST ... ON true) an
 * input row whose arrays are all empty gives one row of NULLs. The input columns become views
 * of the input through the row each output row came from; an unnested column is a view of the
 * array's element vector unless it needs NULL padding, then its values are gathered. An input
 * chunk may produce more than one output chunk (EXEC_HAVE_MORE).
 */
#include <stdlib.h>
#include <string.h>

#include "exec/ops.h"

#define NONE UINT32_MAX

typedef enum unnest_kind { UN_ELEM = 0, UN_FIELDS, UN_MAP } unnest_kind;

typedef struct unnest_impl {
    exec_expr **arrays;
    uint8_t *kinds;      /* per array */
    uint32_t *first_col; /* per array: its first output column */
    uint32_t n_arrays;
    uint32_t n_child;    /* passed-through input columns */
    bool ordinality, outer;
    uint32_t ord_col;
} unnest_impl;

typedef struct unnest_l {
    exec_expr_state **st;
    const vec **res;     /* evaluated arrays of the current input */
    bool active;
    uint32_t row, elem;  /* resume position */
    uint32_t *parent;    /* VEC_CHUNK_SIZE: input row of each output row */
    uint32_t *idx;       /* n_arrays * VEC_CHUNK_SIZE: element index or NONE */
    int64_t *ord;        /* VEC_CHUNK_SIZE */
    uint32_t *tmp_d, *tmp_s;
} unnest_l;

static void unnest_local_destroy(exec_op *op, void *lstate) {
    unnest_impl *u = op->impl;
    unnest_l *l = lstate;
    if (!l) return;
    if (l->st)
        for (uint32_t i = 0; i < u->n_arrays; i++) exec_expr_state_destroy(l->st[i]);
    free(l->st);
    free(l->res);
    mem_tracker *t = op->qctx->tracker;
    mem_free(t, l->parent);
    mem_free(t, l->idx);
    mem_free(t, l->ord);
    mem_free(t, l->tmp_d);
    mem_free(t, l->tmp_s);
    free(l);
}

static int unnest_local_init(exec_op *op, void **lstate, sqe_error *err) {
    unnest_impl *u = op->impl;
    unnest_l *l = calloc(1, sizeof *l);
    if (!l) return err_nomem(err, "unnest");
    mem_tracker *t = op->qctx->tracker;
    int rc = SQE_OK;
    l->st = calloc(u->n_arrays + 1, sizeof *l->st);
    l->res = calloc(u->n_arrays + 1, sizeof *l->res);
    if (!l->st || !l->res) rc = err_nomem(err, "unnest");
    for (uint32_t i = 0; rc == SQE_OK && i < u->n_arrays; i++)
        rc = exec_expr_state_create(u->arrays[i], op->qctx, &l->st[i], err);
    if (rc == SQE_OK) {
        l->parent = mem_alloc(t, VEC_CHUNK_SIZE * sizeof(uint32_t), err);
        l->idx = mem_alloc(t, (size_t)(u->n_arrays + 1) * VEC_CHUNK_SIZE * sizeof(uint32_t), err);
        l->ord = mem_alloc(t, VEC_CHUNK_SIZE * sizeof(int64_t), err);
        l->tmp_d = mem_alloc(t, VEC_CHUNK_SIZE * sizeof(uint32_t), err);
        l->tmp_s = mem_alloc(t, VEC_CHUNK_SIZE * sizeof(uint32_t), err);
        if (!l->parent || !l->idx || !l->ord || !l->tmp_d || !l->tmp_s)
            rc = err ? err->code : SQE_ERR_OUT_OF_MEMORY;
    }
    if (rc != SQE_OK) {
        unnest_local_destroy(op, l);
        return rc;
    }
    *lstate = l;
    return SQE_OK;
}

/* The list entry of row `row` of an array/map vector of any shape; false when NULL. */
static bool list_at(const vec *v, uint32_t row, sqe_list_entry *e, const vec **flat) {
    uint32_t phys;
    const vec *f = vec_resolve(v, row, &phys);
    *flat = f;
    if (!vec_is_valid_flat(f, phys)) return false;
    *e = ((const sqe_list_entry *)f->data)[phys];
    return true;
}

/* Output column `col` from vector `src` through idx (NONE = NULL) for n rows. */
static int emit_col(unnest_l *l, vec *dst, const vec *src, const uint32_t *idx, uint32_t n,
                    bool any_none, sqe_error *err) {
    if (!any_none)
        return exec_vec_slice(dst, src, idx, n, err);
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (idx[i] == NONE) {
            if (vec_set_null(dst, i) != SQE_OK) return err_nomem(err, "validity");
        } else {
            l->tmp_d[k] = i;
            l->tmp_s[k++] = idx[i];
        }
    }
    return exec_vec_copy(dst, l->tmp_d, 0, src, l->tmp_s, k, false, err);
}

/* Fields of a row element vector: a field of a NULL row element is NULL. */
static int emit_fields(unnest_l *l, vec_chunk *out, uint32_t first, const vec *elems,
                       const uint32_t *idx, uint32_t n, bool any_none, sqe_error *err) {
    const vec *f = exec_vec_unwrap(elems);
    bool fast = f->shape == VEC_FLAT && !f->validity;
    uint32_t n_fields = elems->type.nested ? elems->type.nested->n_children : 0;
    for (uint32_t j = 0; j < n_fields; j++) {
        vec *dst = &out->cols[first + j];
        if (fast) {
            SQE_TRY(emit_col(l, dst, &f->children[j], idx, n, any_none, err));
            continue;
        }
        for (uint32_t i = 0; i < n; i++) {
            uint32_t phys;
            const vec *ff = idx[i] == NONE ? NULL : vec_resolve(elems, idx[i], &phys);
            if (!ff || !vec_is_valid_flat(ff, phys) || j >= ff->n_children) {
                if (vec_set_null(dst, i) != SQE_OK) return err_nomem(err, "validity");
                continue;
            }
            SQE_TRY(vec_copy_row(dst, i, &ff->children[j], phys, err));
        }
    }
    return SQE_OK;
}

static int unnest_execute(exec_op *op, void *lstate, const vec_chunk *in, vec_chunk *out,
                          exec_op_result *res, sqe_error *err) {
    unnest_impl *u = op->impl;
    unnest_l *l = lstate;
    uint32_t na = u->n_arrays;
    if (!l->active) {
        for (uint32_t i = 0; i < na; i++)
            SQE_TRY(exec_expr_eval_view(l->st[i], in, NULL, in->count, &l->res[i], err));
        l->active = true;
        l->row = 0;
        l->elem = 0;
    }
    uint32_t n = 0, cap = out->capacity < VEC_CHUNK_SIZE ? out->capacity : VEC_CHUNK_SIZE;
    bool none_in[na + 1];
    memset(none_in, 0, sizeof none_in);
    const vec *elems[2 * na + 1];
    memset(elems, 0, sizeof elems);
    bool any_ord_null = false;
    while (l->row < in->count && n < cap) {
        uint32_t r = l->row;
        sqe_list_entry ent[na + 1];
        uint32_t len = 0;
        for (uint32_t i = 0; i < na; i++) {
            const vec *flat;
            if (!list_at(l->res[i], r, &ent[i], &flat)) ent[i] = (sqe_list_entry){0, 0};
            if (flat->n_children) {
                elems[2 * i] = &flat->children[0];
                if (flat->n_children > 1) elems[2 * i + 1] = &flat->children[1];
            }
            if (ent[i].length > len) len = ent[i].length;
        }
        uint32_t rows_here = len ? len : (u->outer ? 1 : 0);
        while (l->elem < rows_here && n < cap) {
            uint32_t e = l->elem;
            l->parent[n] = r;
            for (uint32_t i = 0; i < na; i++) {
                uint32_t ix = e < ent[i].length ? ent[i].offset + e : NONE;
                l->idx[(size_t)i * VEC_CHUNK_SIZE + n] = ix;
                if (ix == NONE) none_in[i] = true;
            }
            l->ord[n] = len ? (int64_t)e + 1 : -1;
            if (!len) any_ord_null = true;
            n++;
            l->elem++;
        }
        if (l->elem >= rows_here) {
            l->row++;
            l->elem = 0;
        }
    }
    bool done = l->row >= in->count;
    if (done) l->active = false;
    *res = done ? EXEC_NEED_INPUT : EXEC_HAVE_MORE;
    out->count = n;
    if (n == 0) return SQE_OK;
    for (uint32_t c = 0; c < u->n_child; c++)
        SQE_TRY(exec_vec_slice(&out->cols[c], &in->cols[c], l->parent, n, err));
    for (uint32_t i = 0; i < na; i++) {
        const uint32_t *idx = l->idx + (size_t)i * VEC_CHUNK_SIZE;
        uint32_t first = u->first_col[i];
        if (!elems[2 * i]) {
            /* every row of this array was NULL/empty: all NULL */
            uint32_t last = i + 1 < na ? u->first_col[i + 1] : u->ordinality ? u->ord_col : out->n_cols;
            for (uint32_t c = first; c < last; c++) vec_set_const_null(&out->cols[c]);
            continue;
        }
        switch (u->kinds[i]) {
        case UN_ELEM:
            SQE_TRY(emit_col(l, &out->cols[first], elems[2 * i], idx, n, none_in[i], err));
            break;
        case UN_MAP:
            SQE_TRY(emit_col(l, &out->cols[first], elems[2 * i], idx, n, none_in[i], err));
            SQE_TRY(emit_col(l, &out->cols[first + 1], elems[2 * i + 1], idx, n, none_in[i], err));
            break;
        default:
            SQE_TRY(emit_fields(l, out, first, elems[2 * i], idx, n, none_in[i], err));
            break;
        }
    }
    if (u->ordinality) {
        vec *o = &out->cols[u->ord_col];
        int64_t *d = o->data;
        for (uint32_t i = 0; i < n; i++) {
            d[i] = l->ord[i];
            if (any_ord_null && l->ord[i] < 0 && vec_set_null(o, i) != SQE_OK)
                return err_nomem(err, "validity");
        }
    }
    return SQE_OK;
}

static const exec_op_vtable unnest_vt = {
    .name = "Unnest",
    .op_local_init = unnest_local_init,
    .op_execute = unnest_execute,
    .op_local_destroy = unnest_local_destroy,
};

static uint32_t cols_of(sqe_type t, bool expand, uint8_t *kind) {
    if (t.id == TYPE_MAP) {
        *kind = UN_MAP;
        return 2;
    }
    const sqe_type *el = t.nested && t.nested->n_children ? &t.nested->children[0] : NULL;
    if (expand && el && el->id == TYPE_ROW && el->nested) {
        *kind = UN_FIELDS;
        return el->nested->n_children;
    }
    *kind = UN_ELEM;
    return 1;
}

int exec_op_unnest_create(exec_query_ctx *qctx, const plan *p, exec_op *child, exec_op **out,
                          sqe_error *err) {
    exec_op *op = exec_op_alloc(qctx, &unnest_vt, p, 1);
    unnest_impl *u = ARENA_NEW(qctx->arena, unnest_impl);
    if (!op || !u) return err_nomem(err, "operator");
    op->children[0] = child;
    op->impl = u;
    uint32_t na = p->u.unnest.n_arrays;
    u->n_arrays = na;
    u->n_child = p->u.unnest.n_child_out;
    u->ordinality = p->u.unnest.ordinality;
    u->outer = p->u.unnest.outer;
    u->arrays = ARENA_ARRAY(qctx->arena, exec_expr *, na + 1);
    u->kinds = ARENA_ARRAY(qctx->arena, uint8_t, na + 1);
    u->first_col = ARENA_ARRAY(qctx->arena, uint32_t, na + 1);
    if (!u->arrays || !u->kinds || !u->first_col) return err_nomem(err, "operator");
    if (u->n_child > p->children[0]->n_out || u->n_child > p->n_out)
        return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "unnest: bad input column count");
    exec_layout lay = exec_layout_of(p->children[0]);
    for (uint32_t i = 0; i < na; i++) {
        SQE_TRY(exec_expr_compile(qctx, p->u.unnest.arrays[i], &lay, &u->arrays[i], err));
        sqe_type t = exec_expr_type(u->arrays[i]);
        if (t.id != TYPE_ARRAY && t.id != TYPE_MAP)
            return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "unnest of a non-array");
    }
    uint32_t expected = p->n_out - u->n_child - (u->ordinality ? 1 : 0);
    bool ok = false;
    for (int expand = 1; expand >= 0 && !ok; expand--) {
        uint32_t col = u->n_child;
        for (uint32_t i = 0; i < na; i++) {
            u->first_col[i] = col;
            col += cols_of(exec_expr_type(u->arrays[i]), expand, &u->kinds[i]);
        }
        ok = col - u->n_child == expected;
    }
    if (!ok)
        return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR,
                       "unnest: output columns do not match the arrays");
    u->ord_col = p->n_out - 1;
    if (u->ordinality && p->out[u->ord_col].type.id != TYPE_BIGINT)
        return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "unnest: ordinality is not bigint");
    exec_op_set_detail(op, "%u array%s%s%s", na, na == 1 ? "" : "s",
                       u->ordinality ? " with ordinality" : "", u->outer ? " outer" : "");
    *out = op;
    return SQE_OK;
}
