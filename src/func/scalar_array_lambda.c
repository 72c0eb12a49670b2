/*
 * scalar_array_lambda.c: the array family, lambda part: transform, filter, reduce, any_match,
 * all_match, none_match, zip_with, and array_sort with a comparator.
 *
 * INTERFACE: func_array_lambda_defs (joined into the array family).
 *
 * NOTES: a kernel gathers the elements of all selected rows into flat parameter vectors and
 * evaluates the lambda once over all of them through ctx->lambda_eval (outer_rows tells the
 * evaluator which batch row each element belongs to, for captured columns). reduce runs one
 * lambda call per element position (all rows with at least k+1 elements at step k).
 * array_sort with a comparator calls the lambda per comparison (a merge sort), which is slow
 * but exact. Lambda result types are exactly the declared ones (signature.c checks), so result
 * vectors are created with the types the output implies.
 */
#include <stdlib.h>
#include <string.h>

#include "func/scalar_kernel.h"

#define KERNEL(name)                                                                               \
    static int name(func_ctx *ctx, const vec *const *args, uint32_t n_args, const uint32_t *sel,   \
                    uint32_t count, vec *out)

static int no_lambda(func_ctx *ctx) {
    return err_set(ctx->err, SQE_ERR_GENERIC_INTERNAL_ERROR,
                   "lambda evaluation is not available for this call");
}

/* The elements of the selected rows, gathered. */
typedef struct gathered {
    vec elems;            /* flat copy, `total` rows */
    uint32_t *outer_rows; /* batch row of each element */
    uint32_t *src;        /* element index in the source child */
    uint32_t total;
    bool elems_init;
} gathered;

static void gathered_destroy(gathered *g) {
    if (g->elems_init) vec_destroy(&g->elems);
    free(g->outer_rows);
    free(g->src);
    memset(g, 0, sizeof *g);
}

static int gather(func_ctx *ctx, const vec_view *ua, const uint32_t *sel, uint32_t count,
                  gathered *g) {
    memset(g, 0, sizeof *g);
    const vec *child = ulist_elems(ua);
    uint64_t total = 0;
    FUNC_FOR_ROWS(sel, count, row) total += ulist(ua, row).length;
    if (total > FUNC_MAX_ELEMENTS)
        return err_set(ctx->err, SQE_ERR_EXCEEDED_MEMORY_LIMIT, "too many array elements");
    g->total = (uint32_t)total;
    g->outer_rows = malloc(sizeof(uint32_t) * (total ? total : 1));
    g->src = malloc(sizeof(uint32_t) * (total ? total : 1));
    if (!g->outer_rows || !g->src) return func_nomem(ctx);
    SQE_TRY(func_temp_vec(ctx, &g->elems, child->type, g->total));
    g->elems_init = true;
    uint32_t k = 0;
    FUNC_FOR_ROWS(sel, count, row) {
        sqe_list_entry e = ulist(ua, row);
        for (uint32_t i = 0; i < e.length; i++, k++) {
            g->outer_rows[k] = row;
            g->src[k] = e.offset + i;
            SQE_TRY(func_copy_value(ctx, &g->elems, k, child, e.offset + i));
        }
    }
    return SQE_OK;
}

static int call_lambda(func_ctx *ctx, uint32_t arg_idx, vec *const *params, uint32_t n_params,
                       const uint32_t *outer_rows, uint32_t n, vec *res) {
    if (!ctx->lambda_eval) return no_lambda(ctx);
    if (n == 0) return SQE_OK;
    return ctx->lambda_eval(ctx->lambda_state, arg_idx, params, n_params, outer_rows, n, res);
}

/* transform(array(T), function(T,U)) */
KERNEL(transform_fn) {
    vec_view ua;
    vec_view_init(&ua, args[0]);
    gathered g;
    int rc = gather(ctx, &ua, sel, count, &g);
    uint32_t start = 0;
    if (rc == SQE_OK) rc = func_list_reserve(ctx, out, g.total, &start);
    vec res;
    bool direct = start == 0; /* the lambda can write straight into out's elements */
    bool res_init = false;
    if (rc == SQE_OK && !direct) {
        rc = func_temp_vec(ctx, &res, out->children[0].type, g.total);
        res_init = rc == SQE_OK;
    }
    vec *target = direct ? &out->children[0] : &res;
    vec *params[1] = {&g.elems};
    if (rc == SQE_OK) rc = call_lambda(ctx, 1, params, 1, g.outer_rows, g.total, target);
    for (uint32_t k = 0; rc == SQE_OK && !direct && k < g.total; k++)
        rc = func_copy_value(ctx, &out->children[0], start + k, &res, k);
    if (rc == SQE_OK) {
        out->child_len = start + g.total;
        uint32_t k = start;
        FUNC_FOR_ROWS(sel, count, row) {
            uint32_t len = ulist(&ua, row).length;
            VEC_DATA(out, sqe_list_entry)[row] = (sqe_list_entry){k, len};
            k += len;
        }
    }
    if (res_init) vec_destroy(&res);
    gathered_destroy(&g);
    return rc;
}

/* Evaluates a boolean lambda over all gathered elements into *res (boolean vector). */
static int predicate(func_ctx *ctx, const vec_view *ua, const uint32_t *sel, uint32_t count,
                     gathered *g, vec *res, bool *res_init) {
    *res_init = false;
    SQE_TRY(gather(ctx, ua, sel, count, g));
    SQE_TRY(func_temp_vec(ctx, res, type_make(TYPE_BOOLEAN), g->total));
    *res_init = true;
    vec *params[1] = {&g->elems};
    return call_lambda(ctx, 1, params, 1, g->outer_rows, g->total, res);
}

static int truth(const vec *res, uint32_t k) {
    if (!vec_is_valid_flat(res, k)) return FUNC_NULL;
    return VEC_DATA(res, uint8_t)[k] ? FUNC_TRUE : FUNC_FALSE;
}

KERNEL(filter_fn) {
    vec_view ua;
    vec_view_init(&ua, args[0]);
    gathered g;
    vec res;
    bool res_init;
    int rc = predicate(ctx, &ua, sel, count, &g, &res, &res_init);
    const vec *child = ulist_elems(&ua);
    uint32_t k = 0;
    if (rc == SQE_OK) {
        FUNC_FOR_ROWS(sel, count, row) {
            uint32_t len = ulist(&ua, row).length, first = out->child_len;
            for (uint32_t i = 0; i < len && rc == SQE_OK; i++, k++) {
                if (truth(&res, k) != FUNC_TRUE) continue;
                uint32_t at;
                rc = func_list_reserve(ctx, out, 1, &at);
                if (rc == SQE_OK) rc = func_copy_value(ctx, &out->children[0], at, child, g.src[k]);
                if (rc == SQE_OK) out->child_len = at + 1;
            }
            if (rc) break;
            VEC_DATA(out, sqe_list_entry)[row] = (sqe_list_entry){first, out->child_len - first};
        }
    }
    if (res_init) vec_destroy(&res);
    gathered_destroy(&g);
    return rc;
}

enum match_kind { MATCH_ANY, MATCH_ALL, MATCH_NONE };

static int match_common(func_ctx *ctx, const vec *const *args, const uint32_t *sel,
                        uint32_t count, vec *out, int kind) {
    vec_view ua;
    vec_view_init(&ua, args[0]);
    gathered g;
    vec res;
    bool res_init;
    int rc = predicate(ctx, &ua, sel, count, &g, &res, &res_init);
    uint32_t k = 0;
    if (rc == SQE_OK) {
        FUNC_FOR_ROWS(sel, count, row) {
            uint32_t len = ulist(&ua, row).length;
            bool any_true = false, any_false = false, any_null = false;
            for (uint32_t i = 0; i < len; i++, k++) {
                int t = truth(&res, k);
                any_true |= t == FUNC_TRUE;
                any_false |= t == FUNC_FALSE;
                any_null |= t == FUNC_NULL;
            }
            int r;
            switch (kind) {
            case MATCH_ANY: r = any_true ? FUNC_TRUE : any_null ? FUNC_NULL : FUNC_FALSE; break;
            case MATCH_ALL: r = any_false ? FUNC_FALSE : any_null ? FUNC_NULL : FUNC_TRUE; break;
            default: r = any_true ? FUNC_FALSE : any_null ? FUNC_NULL : FUNC_TRUE; break;
            }
            if (r == FUNC_NULL) {
                if ((rc = func_out_null(ctx, out, row))) break;
            } else {
                VEC_DATA(out, uint8_t)[row] = r == FUNC_TRUE;
            }
        }
    }
    if (res_init) vec_destroy(&res);
    gathered_destroy(&g);
    return rc;
}
KERNEL(any_match_fn) { return match_common(ctx, args, sel, count, out, MATCH_ANY); }
KERNEL(all_match_fn) { return match_common(ctx, args, sel, count, out, MATCH_ALL); }
KERNEL(none_match_fn) { return match_common(ctx, args, sel, count, out, MATCH_NONE); }

/* zip_with(array(T), array(U), function(T,U,R)): the shorter array is padded with NULLs. */
KERNEL(zip_with_fn) {
    vec_view ua, ub;
    vec_view_init(&ua, args[0]);
    vec_view_init(&ub, args[1]);
    const vec *ca = ulist_elems(&ua), *cb = ulist_elems(&ub);
    uint64_t total = 0;
    FUNC_FOR_ROWS(sel, count, row) {
        uint32_t la = ulist(&ua, row).length, lb = ulist(&ub, row).length;
        total += la > lb ? la : lb;
    }
    if (total > FUNC_MAX_ELEMENTS)
        return err_set(ctx->err, SQE_ERR_EXCEEDED_MEMORY_LIMIT, "too many array elements");
    uint32_t n = (uint32_t)total;
    vec pa, pb, res;
    uint32_t *rows = malloc(sizeof(uint32_t) * (n ? n : 1));
    int rc = rows ? SQE_OK : func_nomem(ctx);
    int inited = 0;
    if (rc == SQE_OK && (rc = func_temp_vec(ctx, &pa, ca->type, n)) == SQE_OK) inited++;
    if (rc == SQE_OK && (rc = func_temp_vec(ctx, &pb, cb->type, n)) == SQE_OK) inited++;
    if (rc == SQE_OK && (rc = func_temp_vec(ctx, &res, out->children[0].type, n)) == SQE_OK)
        inited++;
    uint32_t k = 0;
    if (rc == SQE_OK) {
        FUNC_FOR_ROWS(sel, count, row) {
            sqe_list_entry ea = ulist(&ua, row), eb = ulist(&ub, row);
            uint32_t len = ea.length > eb.length ? ea.length : eb.length;
            for (uint32_t i = 0; i < len && rc == SQE_OK; i++, k++) {
                rows[k] = row;
                rc = i < ea.length ? func_copy_value(ctx, &pa, k, ca, ea.offset + i)
                                   : func_out_null(ctx, &pa, k);
                if (rc == SQE_OK)
                    rc = i < eb.length ? func_copy_value(ctx, &pb, k, cb, eb.offset + i)
                                       : func_out_null(ctx, &pb, k);
            }
            if (rc) break;
        }
    }
    vec *params[2] = {&pa, &pb};
    if (rc == SQE_OK) rc = call_lambda(ctx, 2, params, 2, rows, n, &res);
    uint32_t start = 0;
    if (rc == SQE_OK) rc = func_list_reserve(ctx, out, n, &start);
    for (uint32_t i = 0; rc == SQE_OK && i < n; i++)
        rc = func_copy_value(ctx, &out->children[0], start + i, &res, i);
    if (rc == SQE_OK) {
        out->child_len = start + n;
        k = start;
        FUNC_FOR_ROWS(sel, count, row) {
            uint32_t la = ulist(&ua, row).length, lb = ulist(&ub, row).length;
            uint32_t len = la > lb ? la : lb;
            VEC_DATA(out, sqe_list_entry)[row] = (sqe_list_entry){k, len};
            k += len;
        }
    }
    if (inited > 0) vec_destroy(&pa);
    if (inited > 1) vec_destroy(&pb);
    if (inited > 2) vec_destroy(&res);
    free(rows);
    return rc;
}

/* reduce(array(T), S, function(S,T,S), function(S,R)). Not NULL-propagating: a NULL array
 * gives NULL, a NULL initial state is passed to the lambda. */
KERNEL(reduce_fn) {
    vec_view ua;
    vec_view_init(&ua, args[0]);
    const vec *child = ulist_elems(&ua);
    sqe_type st = args[1]->type;
    /* rows with a non-NULL array */
    uint32_t *rows = malloc(sizeof(uint32_t) * (count ? count : 1));
    if (!rows) return func_nomem(ctx);
    uint32_t n = 0, max_len = 0;
    int rc = SQE_OK;
    FUNC_FOR_ROWS(sel, count, row) {
        if (!vec_view_valid(&ua, row)) {
            if ((rc = func_out_null(ctx, out, row))) break;
            continue;
        }
        rows[n++] = row;
        uint32_t len = ulist(&ua, row).length;
        if (len > max_len) max_len = len;
    }
    vec state, ps, pe, res, fin;
    int inited = 0;
    uint32_t *act = malloc(sizeof(uint32_t) * (n ? n : 1));
    uint32_t *act_rows = malloc(sizeof(uint32_t) * (n ? n : 1));
    if (rc == SQE_OK && (!act || !act_rows)) rc = func_nomem(ctx);
    if (rc == SQE_OK && (rc = func_temp_vec(ctx, &state, st, n)) == SQE_OK) inited++;
    if (rc == SQE_OK && (rc = func_temp_vec(ctx, &ps, st, n)) == SQE_OK) inited++;
    if (rc == SQE_OK && (rc = func_temp_vec(ctx, &pe, child->type, n)) == SQE_OK) inited++;
    if (rc == SQE_OK && (rc = func_temp_vec(ctx, &res, st, n)) == SQE_OK) inited++;
    if (rc == SQE_OK && (rc = func_temp_vec(ctx, &fin, out->type, n)) == SQE_OK) inited++;
    for (uint32_t i = 0; rc == SQE_OK && i < n; i++)
        rc = func_copy_value(ctx, &state, i, args[1], rows[i]);
    for (uint32_t step = 0; rc == SQE_OK && step < max_len; step++) {
        vec_reset(&ps);
        vec_reset(&pe);
        vec_reset(&res);
        uint32_t m = 0;
        for (uint32_t i = 0; rc == SQE_OK && i < n; i++) {
            sqe_list_entry e = ulist(&ua, rows[i]);
            if (e.length <= step) continue;
            act[m] = i;
            act_rows[m] = rows[i];
            rc = func_copy_value(ctx, &ps, m, &state, i);
            if (rc == SQE_OK) rc = func_copy_value(ctx, &pe, m, child, e.offset + step);
            m++;
        }
        vec *params[2] = {&ps, &pe};
        if (rc == SQE_OK) rc = call_lambda(ctx, 2, params, 2, act_rows, m, &res);
        if (rc == SQE_OK) {
            /* rebuild the state vector so that replaced strings do not accumulate */
            vec next;
            rc = func_temp_vec(ctx, &next, st, n);
            uint32_t j = 0;
            for (uint32_t i = 0; rc == SQE_OK && i < n; i++) {
                if (j < m && act[j] == i) rc = func_copy_value(ctx, &next, i, &res, j++);
                else rc = func_copy_value(ctx, &next, i, &state, i);
            }
            vec_destroy(&state);
            state = next;
        }
    }
    vec *params[1] = {&state};
    if (rc == SQE_OK) rc = call_lambda(ctx, 3, params, 1, rows, n, &fin);
    for (uint32_t i = 0; rc == SQE_OK && i < n; i++)
        rc = func_copy_value(ctx, out, rows[i], &fin, i);
    if (inited > 0) vec_destroy(&state);
    if (inited > 1) vec_destroy(&ps);
    if (inited > 2) vec_destroy(&pe);
    if (inited > 3) vec_destroy(&res);
    if (inited > 4) vec_destroy(&fin);
    free(rows);
    free(act);
    free(act_rows);
    return rc;
}

/* --- array_sort with a comparator --------------------------------------------------------------- */

typedef struct cmp_state {
    func_ctx *ctx;
    const vec *elems;
    vec a, b, res;
    uint32_t row;
    int rc;
} cmp_state;

static int lambda_compare(cmp_state *cs, uint32_t x, uint32_t y) {
    if (cs->rc) return 0;
    vec_reset(&cs->a);
    vec_reset(&cs->b);
    vec_reset(&cs->res);
    cs->rc = func_copy_value(cs->ctx, &cs->a, 0, cs->elems, x);
    if (!cs->rc) cs->rc = func_copy_value(cs->ctx, &cs->b, 0, cs->elems, y);
    vec *params[2] = {&cs->a, &cs->b};
    if (!cs->rc) cs->rc = call_lambda(cs->ctx, 1, params, 2, &cs->row, 1, &cs->res);
    if (cs->rc) return 0;
    if (!vec_is_valid_flat(&cs->res, 0)) {
        cs->rc = SQE_ERR_INVALID_FUNCTION_ARGUMENT;
        return 0;
    }
    int32_t v = VEC_DATA(&cs->res, int32_t)[0];
    if (v < -1 || v > 1) {
        cs->rc = SQE_ERR_INVALID_FUNCTION_ARGUMENT;
        return 0;
    }
    return v;
}

static void merge_sort(cmp_state *cs, uint32_t *a, uint32_t *tmp, uint32_t n) {
    if (n < 2 || cs->rc) return;
    uint32_t h = n / 2;
    merge_sort(cs, a, tmp, h);
    merge_sort(cs, a + h, tmp, n - h);
    uint32_t i = 0, j = h, k = 0;
    while (i < h && j < n) tmp[k++] = lambda_compare(cs, a[j], a[i]) < 0 ? a[j++] : a[i++];
    while (i < h) tmp[k++] = a[i++];
    while (j < n) tmp[k++] = a[j++];
    memcpy(a, tmp, n * sizeof *a);
}

KERNEL(array_sort_lambda_fn) {
    vec_view ua;
    vec_view_init(&ua, args[0]);
    cmp_state cs;
    memset(&cs, 0, sizeof cs);
    cs.ctx = ctx;
    cs.elems = ulist_elems(&ua);
    int rc = func_temp_vec(ctx, &cs.a, cs.elems->type, 1);
    if (rc == SQE_OK) rc = func_temp_vec(ctx, &cs.b, cs.elems->type, 1);
    if (rc == SQE_OK) rc = func_temp_vec(ctx, &cs.res, type_make(TYPE_INTEGER), 1);
    uint32_t *idx = NULL, *tmp = NULL, cap = 0;
    FUNC_FOR_ROWS(sel, count, row) {
        if (rc) break;
        sqe_list_entry e = ulist(&ua, row);
        if (e.length > cap) {
            free(idx);
            free(tmp);
            idx = malloc(sizeof(uint32_t) * e.length);
            tmp = malloc(sizeof(uint32_t) * e.length);
            if (!idx || !tmp) {
                rc = func_nomem(ctx);
                break;
            }
            cap = e.length;
        }
        for (uint32_t i = 0; i < e.length; i++) idx[i] = e.offset + i;
        cs.row = row;
        cs.rc = SQE_OK;
        merge_sort(&cs, idx, tmp, e.length);
        if (cs.rc == SQE_ERR_INVALID_FUNCTION_ARGUMENT) {
            rc = func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                                "Lambda comparator must return either -1, 0, or 1");
            continue;
        }
        if ((rc = cs.rc)) break;
        uint32_t start;
        rc = func_list_reserve(ctx, out, e.length, &start);
        for (uint32_t i = 0; rc == SQE_OK && i < e.length; i++)
            rc = func_copy_value(ctx, &out->children[0], start + i, cs.elems, idx[i]);
        if (rc) break;
        out->child_len = start + e.length;
        VEC_DATA(out, sqe_list_entry)[row] = (sqe_list_entry){start, e.length};
    }
    free(idx);
    free(tmp);
    vec_destroy(&cs.a);
    vec_destroy(&cs.b);
    vec_destroy(&cs.res);
    return rc;
}

#define NP FUNC_NULL_PROPAGATES
#define LNP (FUNC_NULL_PROPAGATES | FUNC_LAMBDA)

static const func_scalar_def array_lambda_defs[] = {
    {"transform", "array(T),function(T,U)", "array(U)", NULL, NULL, transform_fn, LNP,
     "applies a function to every element"},
    {"filter", "array(T),function(T,boolean)", "array(T)", NULL, NULL, filter_fn, LNP,
     "elements for which the predicate is true"},
    {"reduce", "array(T),S,function(S,T,S),function(S,R)", "R", NULL, NULL, reduce_fn,
     FUNC_LAMBDA, "folds the elements into a state, then finishes it"},
    {"any_match", "array(T),function(T,boolean)", "boolean", NULL, NULL, any_match_fn, LNP,
     "does the predicate hold for some element"},
    {"all_match", "array(T),function(T,boolean)", "boolean", NULL, NULL, all_match_fn, LNP,
     "does the predicate hold for every element"},
    {"none_match", "array(T),function(T,boolean)", "boolean", NULL, NULL, none_match_fn, LNP,
     "does the predicate hold for no element"},
    {"zip_with", "array(T),array(U),function(T,U,R)", "array(R)", NULL, NULL, zip_with_fn, LNP,
     "merges two arrays element-wise with a function"},
    {"array_sort", "array(T),function(T,T,integer)", "array(T)", NULL, NULL,
     array_sort_lambda_fn, LNP, "elements sorted by a comparator"},
};

const func_scalar_def *func_array_lambda_defs(uint32_t *count) {
    *count = FUNC_N(array_lambda_defs);
    return array_lambda_defs;
}
