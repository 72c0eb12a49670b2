/*
 * scalar_array.c: the array family, core part: cardinality, element_at, the subscript
 * operator, contains, array_position, array_max/min, array_join, flatten, reverse, slice,
 * trim_array, sequence, repeat, shuffle, zip and concat of arrays. The family getter joins
 * this table with the set functions (scalar_array_set.c) and the lambda functions
 * (scalar_array_lambda.c).
 *
 * INTERFACE: func_scalar_family_array.
 *
 * NOTES: an array argument is read through a vec_view (entries {offset, length} into the flat
 * vector's element child); elements are compared and hashed with the generic value functions
 * (scalar_kernel.h) and copied with vec_copy_row, so every element type works, nested ones
 * included. Results append to out's element child (func_list_reserve). Limits follow Trino:
 * sequence and repeat produce at most 10000 elements. element_at returns NULL out of bounds,
 * the subscript operator fails (INVALID_FUNCTION_ARGUMENT, as in Trino), and index 0 is always
 * an error.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "func/scalar_kernel.h"
#include "types/datetime.h"

#define KERNEL(name)                                                                               \
    static int name(func_ctx *ctx, const vec *const *args, uint32_t n_args, const uint32_t *sel,   \
                    uint32_t count, vec *out)

#define MAX_GENERATED 10000

static sqe_type elem_type(sqe_type array) { return array.nested->children[0]; }

static int ret_array_orderable(const sqe_type *args, uint32_t n, sqe_type *ret, sqe_error *err) {
    sqe_type e = args[0].nested ? elem_type(args[0]) : type_make(TYPE_UNKNOWN), b;
    SQE_TRY(func_ret_orderable(&e, 1, &b, err));
    *ret = args[0].id == TYPE_ARRAY ? e : args[0];
    return SQE_OK;
}

/* Appends elements [off, off+len) of child `src` to out's element child. */
static int append_range(func_ctx *ctx, vec *out, const vec *src, uint32_t off, uint32_t len) {
    uint32_t start;
    SQE_TRY(func_list_reserve(ctx, out, len, &start));
    vec *dst = &out->children[0];
    for (uint32_t i = 0; i < len; i++) SQE_TRY(func_copy_value(ctx, dst, start + i, src, off + i));
    out->child_len = start + len;
    return SQE_OK;
}

/* --- cardinality, element access -------------------------------------------------------------- */

KERNEL(cardinality_fn) {
    vec_view u;
    vec_view_init(&u, args[0]);
    FUNC_FOR_ROWS(sel, count, row) VEC_DATA(out, int64_t)[row] = ulist(&u, row).length;
    return SQE_OK;
}

/* Resolves a 1-based (negative: from the end) index to an element offset; -1 out of bounds. */
static int64_t element_offset(sqe_list_entry e, int64_t idx) {
    if (idx > 0) return idx <= (int64_t)e.length ? (int64_t)e.offset + idx - 1 : -1;
    if (-idx <= (int64_t)e.length) return (int64_t)e.offset + (int64_t)e.length + idx;
    return -1;
}

KERNEL(element_at_fn) {
    vec_view ua, ui;
    vec_view_init(&ua, args[0]);
    vec_view_init(&ui, args[1]);
    const vec *elems = ulist_elems(&ua);
    FUNC_FOR_ROWS(sel, count, row) {
        int64_t idx = UVAL(&ui, int64_t, row);
        if (idx == 0) {
            SQE_TRY(func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                                   "SQL array indices start at 1"));
            continue;
        }
        int64_t at = element_offset(ulist(&ua, row), idx);
        if (at < 0) SQE_TRY(func_out_null(ctx, out, row));
        else SQE_TRY(func_copy_value(ctx, out, row, elems, (uint32_t)at));
    }
    return SQE_OK;
}

KERNEL(subscript_fn) {
    vec_view ua, ui;
    vec_view_init(&ua, args[0]);
    vec_view_init(&ui, args[1]);
    const vec *elems = ulist_elems(&ua);
    FUNC_FOR_ROWS(sel, count, row) {
        int64_t idx = UVAL(&ui, int64_t, row);
        sqe_list_entry e = ulist(&ua, row);
        if (idx <= 0) {
            SQE_TRY(func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                                   idx == 0 ? "SQL array indices start at 1"
                                            : "Array subscript is negative: %" PRId64,
                                   idx));
            continue;
        }
        if (idx > (int64_t)e.length) {
            SQE_TRY(func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                                   "Array subscript must be less than or equal to array length: "
                                   "%" PRId64 " > %u",
                                   idx, e.length));
            continue;
        }
        SQE_TRY(func_copy_value(ctx, out, row, elems, e.offset + (uint32_t)idx - 1));
    }
    return SQE_OK;
}

/* --- search ---------------------------------------------------------------------------------- */

KERNEL(contains_fn) {
    vec_view ua;
    vec_view_init(&ua, args[0]);
    const vec *elems = ulist_elems(&ua);
    FUNC_FOR_ROWS(sel, count, row) {
        sqe_list_entry e = ulist(&ua, row);
        bool found = false, unknown = false;
        for (uint32_t i = 0; i < e.length && !found; i++) {
            int r = func_value_equal3(elems, e.offset + i, args[1], row);
            found = r == FUNC_TRUE;
            unknown |= r == FUNC_NULL;
        }
        if (!found && unknown) SQE_TRY(func_out_null(ctx, out, row));
        else VEC_DATA(out, uint8_t)[row] = found;
    }
    return SQE_OK;
}

KERNEL(array_position_fn) {
    vec_view ua, un = {0};
    vec_view_init(&ua, args[0]);
    if (n_args > 2) vec_view_init(&un, args[2]);
    const vec *elems = ulist_elems(&ua);
    FUNC_FOR_ROWS(sel, count, row) {
        sqe_list_entry e = ulist(&ua, row);
        int64_t instance = n_args > 2 ? UVAL(&un, int64_t, row) : 1;
        if (instance == 0) {
            SQE_TRY(func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                                   "0 is an invalid instance position for array_position."));
            continue;
        }
        int64_t pos = 0, seen = 0, want = instance > 0 ? instance : -instance;
        for (uint32_t k = 0; k < e.length; k++) {
            uint32_t i = instance > 0 ? k : e.length - 1 - k;
            if (func_value_equal3(elems, e.offset + i, args[1], row) == FUNC_TRUE && ++seen == want) {
                pos = i + 1;
                break;
            }
        }
        VEC_DATA(out, int64_t)[row] = pos;
    }
    return SQE_OK;
}

static int extreme(func_ctx *ctx, const vec *const *args, const uint32_t *sel, uint32_t count,
                   vec *out, bool max) {
    vec_view ua;
    vec_view_init(&ua, args[0]);
    const vec *elems = ulist_elems(&ua);
    FUNC_FOR_ROWS(sel, count, row) {
        sqe_list_entry e = ulist(&ua, row);
        int64_t best = -1;
        bool has_null = false;
        for (uint32_t i = 0; i < e.length && !has_null; i++) {
            uint32_t at = e.offset + i;
            if (vec_is_null(elems, at)) has_null = true;
            else if (best < 0) best = at;
            else {
                int c = func_value_compare(elems, at, elems, (uint32_t)best);
                if (max ? c > 0 : c < 0) best = at;
            }
        }
        if (best < 0 || has_null) SQE_TRY(func_out_null(ctx, out, row));
        else SQE_TRY(func_copy_value(ctx, out, row, elems, (uint32_t)best));
    }
    return SQE_OK;
}
KERNEL(array_max_fn) { return extreme(ctx, args, sel, count, out, true); }
KERNEL(array_min_fn) { return extreme(ctx, args, sel, count, out, false); }

/* array_join(array, delimiter[, null_replacement]) */
KERNEL(array_join_fn) {
    vec_view ua, ud, un = {0};
    vec_view_init(&ua, args[0]);
    vec_view_init(&ud, args[1]);
    if (n_args > 2) vec_view_init(&un, args[2]);
    const vec *elems = ulist_elems(&ua);
    /* cast every referenced element to varchar once */
    uint32_t total = 0, max_idx = 0;
    FUNC_FOR_ROWS(sel, count, row) {
        sqe_list_entry e = ulist(&ua, row);
        total += e.length;
        if (e.length && e.offset + e.length > max_idx) max_idx = e.offset + e.length;
    }
    uint32_t *idx = malloc(sizeof(uint32_t) * (total ? total : 1));
    if (!idx) return func_nomem(ctx);
    uint32_t k = 0;
    FUNC_FOR_ROWS(sel, count, row) {
        sqe_list_entry e = ulist(&ua, row);
        for (uint32_t i = 0; i < e.length; i++) idx[k++] = e.offset + i;
    }
    vec text;
    int rc = func_temp_vec(ctx, &text, type_varchar(0), max_idx ? max_idx : 1);
    if (rc == SQE_OK && total) rc = func_cast_to_varchar(ctx, elems, idx, total, &text);
    strbuf sb;
    strbuf_init_limit(&sb, FUNC_MAX_STRING);
    if (rc == SQE_OK) {
        FUNC_FOR_ROWS(sel, count, row) {
            sqe_list_entry e = ulist(&ua, row);
            const sqe_str *d = ustr(&ud, row);
            const sqe_str *nr = n_args > 2 ? ustr(&un, row) : NULL;
            strbuf_clear(&sb);
            bool first = true;
            for (uint32_t i = 0; i < e.length; i++) {
                uint32_t at = e.offset + i;
                const sqe_str *s;
                if (!vec_is_valid_flat(&text, at)) {
                    if (!nr) continue;
                    s = nr;
                } else {
                    s = &VEC_DATA(&text, sqe_str)[at];
                }
                if (!first) strbuf_append(&sb, sqe_str_data(d), d->len);
                strbuf_append(&sb, sqe_str_data(s), s->len);
                first = false;
            }
            if ((rc = func_out_sb(ctx, out, row, &sb))) break;
        }
    }
    strbuf_reset(&sb);
    vec_destroy(&text);
    free(idx);
    return rc;
}

/* --- reshaping -------------------------------------------------------------------------------- */

KERNEL(flatten_fn) {
    vec_view ua;
    vec_view_init(&ua, args[0]);
    const vec *inner = ulist_elems(&ua);
    FUNC_FOR_ROWS(sel, count, row) {
        sqe_list_entry e = ulist(&ua, row);
        uint32_t first = out->child_len;
        for (uint32_t i = 0; i < e.length; i++) {
            uint32_t phys;
            const vec *f = vec_resolve(inner, e.offset + i, &phys);
            if (!vec_is_valid_flat(f, phys)) continue;
            sqe_list_entry ie = VEC_DATA(f, sqe_list_entry)[phys];
            SQE_TRY(append_range(ctx, out, &f->children[0], ie.offset, ie.length));
        }
        VEC_DATA(out, sqe_list_entry)[row] = (sqe_list_entry){first, out->child_len - first};
    }
    return SQE_OK;
}

KERNEL(reverse_array_fn) {
    vec_view ua;
    vec_view_init(&ua, args[0]);
    const vec *elems = ulist_elems(&ua);
    FUNC_FOR_ROWS(sel, count, row) {
        sqe_list_entry e = ulist(&ua, row);
        uint32_t start;
        SQE_TRY(func_list_reserve(ctx, out, e.length, &start));
        for (uint32_t i = 0; i < e.length; i++)
            SQE_TRY(func_copy_value(ctx, &out->children[0], start + i, elems,
                                    e.offset + e.length - 1 - i));
        out->child_len = start + e.length;
        VEC_DATA(out, sqe_list_entry)[row] = (sqe_list_entry){start, e.length};
    }
    return SQE_OK;
}

KERNEL(slice_fn) {
    vec_view ua, us, ul;
    vec_view_init(&ua, args[0]);
    vec_view_init(&us, args[1]);
    vec_view_init(&ul, args[2]);
    const vec *elems = ulist_elems(&ua);
    FUNC_FOR_ROWS(sel, count, row) {
        sqe_list_entry e = ulist(&ua, row);
        int64_t start = UVAL(&us, int64_t, row), len = UVAL(&ul, int64_t, row);
        if (start == 0) {
            SQE_TRY(func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                                   "SQL array indices start at 1"));
            continue;
        }
        if (len < 0) {
            SQE_TRY(func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                                   "length must be greater than or equal to 0"));
            continue;
        }
        int64_t from = start > 0 ? start - 1 : (int64_t)e.length + start;
        uint32_t first = out->child_len, n = 0;
        if (from >= 0 && from < (int64_t)e.length) {
            int64_t avail = (int64_t)e.length - from;
            n = (uint32_t)(len < avail ? len : avail);
            SQE_TRY(append_range(ctx, out, elems, e.offset + (uint32_t)from, n));
        }
        VEC_DATA(out, sqe_list_entry)[row] = (sqe_list_entry){first, n};
    }
    return SQE_OK;
}

KERNEL(trim_array_fn) {
    vec_view ua, un;
    vec_view_init(&ua, args[0]);
    vec_view_init(&un, args[1]);
    const vec *elems = ulist_elems(&ua);
    FUNC_FOR_ROWS(sel, count, row) {
        sqe_list_entry e = ulist(&ua, row);
        int64_t n = UVAL(&un, int64_t, row);
        if (n < 0 || n > (int64_t)e.length) {
            SQE_TRY(func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                                   "size must be in the interval [0, %u]", e.length));
            continue;
        }
        uint32_t first = out->child_len, keep = e.length - (uint32_t)n;
        SQE_TRY(append_range(ctx, out, elems, e.offset, keep));
        VEC_DATA(out, sqe_list_entry)[row] = (sqe_list_entry){first, keep};
    }
    return SQE_OK;
}

/* concat(array...), concat(element, array), concat(array, element) */
KERNEL(concat_arrays_fn) {
    FUNC_FOR_ROWS(sel, count, row) {
        uint32_t first = out->child_len;
        for (uint32_t a = 0; a < n_args; a++) {
            uint32_t phys;
            const vec *f = vec_resolve(args[a], row, &phys);
            if (args[a]->type.id == TYPE_ARRAY && type_equal(args[a]->type, out->type)) {
                sqe_list_entry e = VEC_DATA(f, sqe_list_entry)[phys];
                SQE_TRY(append_range(ctx, out, &f->children[0], e.offset, e.length));
            } else {
                SQE_TRY(append_range(ctx, out, f, phys, 1));
            }
        }
        VEC_DATA(out, sqe_list_entry)[row] = (sqe_list_entry){first, out->child_len - first};
    }
    return SQE_OK;
}

static int ret_concat_element(const sqe_type *args, uint32_t n, sqe_type *ret, sqe_error *err) {
    *ret = args[0].id == TYPE_ARRAY ? args[0] : args[1];
    return SQE_OK;
}

/* --- generators --------------------------------------------------------------------------------- */

static int too_many(func_ctx *ctx, vec *out, uint32_t row) {
    return func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                          "result of sequence function must not have more than %d entries",
                          MAX_GENERATED);
}

static int bad_direction(func_ctx *ctx, vec *out, uint32_t row) {
    return func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                          "sequence stop value should be greater than or equal to start value if "
                          "step is greater than zero otherwise stop should be less than or equal "
                          "to start");
}

/* sequence over int64 values (bigint, timestamps in micros, days); step given. Writes element
 * values with put(). */
static int sequence_i64(func_ctx *ctx, vec *out, uint32_t row, int64_t start, int64_t stop,
                        int64_t step, bool is_date) {
    if (step == 0) return func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                                         "step must not be zero");
    if ((step > 0 && stop < start) || (step < 0 && stop > start)) return bad_direction(ctx, out, row);
    __int128 n = ((__int128)stop - start) / step + 1;
    if (n > MAX_GENERATED) return too_many(ctx, out, row);
    uint32_t first;
    SQE_TRY(func_list_reserve(ctx, out, (uint32_t)n, &first));
    vec *dst = &out->children[0];
    for (uint32_t i = 0; i < (uint32_t)n; i++) {
        int64_t v = start + (int64_t)i * step;
        vec_set_valid(dst, first + i);
        if (is_date) VEC_DATA(dst, int32_t)[first + i] = (int32_t)v;
        else VEC_DATA(dst, int64_t)[first + i] = v;
    }
    out->child_len = first + (uint32_t)n;
    VEC_DATA(out, sqe_list_entry)[row] = (sqe_list_entry){first, (uint32_t)n};
    return SQE_OK;
}

KERNEL(sequence_bigint_fn) {
    vec_view ua, ub, us = {0};
    vec_view_init(&ua, args[0]);
    vec_view_init(&ub, args[1]);
    if (n_args > 2) vec_view_init(&us, args[2]);
    FUNC_FOR_ROWS(sel, count, row) {
        int64_t a = UVAL(&ua, int64_t, row), b = UVAL(&ub, int64_t, row);
        int64_t step = n_args > 2 ? UVAL(&us, int64_t, row) : (b >= a ? 1 : -1);
        SQE_TRY(sequence_i64(ctx, out, row, a, b, step, false));
    }
    return SQE_OK;
}

/* sequence of dates or timestamps with a day-to-second step (or the default one day). */
KERNEL(sequence_temporal_ds_fn) {
    vec_view ua, ub, us = {0};
    vec_view_init(&ua, args[0]);
    vec_view_init(&ub, args[1]);
    if (n_args > 2) vec_view_init(&us, args[2]);
    bool is_date = args[0]->type.id == TYPE_DATE;
    FUNC_FOR_ROWS(sel, count, row) {
        int64_t a = is_date ? UVAL(&ua, int32_t, row) : UVAL(&ua, int64_t, row);
        int64_t b = is_date ? UVAL(&ub, int32_t, row) : UVAL(&ub, int64_t, row);
        int64_t step = n_args > 2 ? UVAL(&us, int64_t, row) : DT_MICROS_PER_DAY;
        if (is_date) {
            if (step % DT_MICROS_PER_DAY != 0) {
                SQE_TRY(func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                                       "sequence step must be a day interval if start and end "
                                       "values are dates"));
                continue;
            }
            step /= DT_MICROS_PER_DAY;
            if (n_args == 2 && b < a) step = -1;
        } else if (n_args == 2 && b < a) {
            step = -step;
        }
        SQE_TRY(sequence_i64(ctx, out, row, a, b, step, is_date));
    }
    return SQE_OK;
}

/* sequence with a year-to-month step: start + k months while within stop. */
KERNEL(sequence_temporal_ym_fn) {
    vec_view ua, ub, us;
    vec_view_init(&ua, args[0]);
    vec_view_init(&ub, args[1]);
    vec_view_init(&us, args[2]);
    bool is_date = args[0]->type.id == TYPE_DATE;
    vec *dst = &out->children[0];
    FUNC_FOR_ROWS(sel, count, row) {
        int64_t a = is_date ? UVAL(&ua, int32_t, row) : UVAL(&ua, int64_t, row);
        int64_t b = is_date ? UVAL(&ub, int32_t, row) : UVAL(&ub, int64_t, row);
        int32_t step = UVAL(&us, int32_t, row);
        if (step == 0) {
            SQE_TRY(func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                                   "step must not be zero"));
            continue;
        }
        if ((step > 0 && b < a) || (step < 0 && b > a)) {
            SQE_TRY(bad_direction(ctx, out, row));
            continue;
        }
        uint32_t first = out->child_len, n = 0;
        bool overflow = false;
        for (int64_t k = 0;; k++) {
            int64_t v;
            int32_t dv;
            if (is_date) {
                if (!func_date_add_months((int32_t)a, k * step, &dv)) break;
                v = dv;
            } else if (!func_timestamp_add_months(a, k * step, &v)) {
                break;
            }
            if (step > 0 ? v > b : v < b) break;
            if (n == MAX_GENERATED) {
                overflow = true;
                break;
            }
            uint32_t at;
            SQE_TRY(func_list_reserve(ctx, out, 1, &at));
            vec_set_valid(dst, at);
            if (is_date) VEC_DATA(dst, int32_t)[at] = (int32_t)v;
            else VEC_DATA(dst, int64_t)[at] = v;
            out->child_len = at + 1;
            n++;
        }
        if (overflow) {
            SQE_TRY(too_many(ctx, out, row));
            continue;
        }
        VEC_DATA(out, sqe_list_entry)[row] = (sqe_list_entry){first, n};
    }
    return SQE_OK;
}

/* repeat(element, count): NULL elements are repeated; a NULL count gives NULL. */
KERNEL(repeat_fn) {
    vec_view un;
    vec_view_init(&un, args[1]);
    FUNC_FOR_ROWS(sel, count, row) {
        if (!vec_view_valid(&un, row)) {
            SQE_TRY(func_out_null(ctx, out, row));
            continue;
        }
        int64_t n = UVAL(&un, int32_t, row);
        if (n < 0 || n > MAX_GENERATED) {
            SQE_TRY(func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                                   n < 0 ? "count argument of repeat function must be greater "
                                           "than or equal to 0"
                                         : "count argument of repeat function must be less than "
                                           "or equal to 10000"));
            continue;
        }
        uint32_t first = out->child_len;
        for (int64_t i = 0; i < n; i++) SQE_TRY(append_range(ctx, out, args[0], row, 1));
        VEC_DATA(out, sqe_list_entry)[row] = (sqe_list_entry){first, (uint32_t)n};
    }
    return SQE_OK;
}

/* array(type of the first argument): repeat, sequence of timestamps */
static int ret_repeat(const sqe_type *args, uint32_t n, sqe_type *ret, sqe_error *err) {
    *ret = type_array(args[0]);
    return ret->id == TYPE_ARRAY ? SQE_OK : err_nomem(err, "type");
}

KERNEL(shuffle_fn) {
    vec_view ua;
    vec_view_init(&ua, args[0]);
    const vec *elems = ulist_elems(&ua);
    uint32_t *perm = NULL, cap = 0;
    FUNC_FOR_ROWS(sel, count, row) {
        sqe_list_entry e = ulist(&ua, row);
        if (e.length > cap) {
            uint32_t *p = realloc(perm, sizeof(uint32_t) * e.length);
            if (!p) {
                free(perm);
                return func_nomem(ctx);
            }
            perm = p;
            cap = e.length;
        }
        for (uint32_t i = 0; i < e.length; i++) perm[i] = i;
        for (uint32_t i = e.length; i > 1; i--) {
            uint32_t j = (uint32_t)func_random_below(ctx, i);
            uint32_t t = perm[i - 1];
            perm[i - 1] = perm[j];
            perm[j] = t;
        }
        uint32_t start;
        int rc = func_list_reserve(ctx, out, e.length, &start);
        for (uint32_t i = 0; rc == SQE_OK && i < e.length; i++)
            rc = func_copy_value(ctx, &out->children[0], start + i, elems, e.offset + perm[i]);
        if (rc) {
            free(perm);
            return rc;
        }
        out->child_len = start + e.length;
        VEC_DATA(out, sqe_list_entry)[row] = (sqe_list_entry){start, e.length};
    }
    free(perm);
    return SQE_OK;
}

/* zip(a1, a2, ...): rows of the i-th elements, NULL-padded to the longest array. */
KERNEL(zip_fn) {
    vec_view u[5];
    for (uint32_t a = 0; a < n_args; a++) vec_view_init(&u[a], args[a]);
    FUNC_FOR_ROWS(sel, count, row) {
        uint32_t len = 0;
        for (uint32_t a = 0; a < n_args; a++) {
            uint32_t l = ulist(&u[a], row).length;
            if (l > len) len = l;
        }
        uint32_t start;
        SQE_TRY(func_list_reserve(ctx, out, len, &start));
        vec *rows = &out->children[0];
        for (uint32_t a = 0; a < n_args; a++) {
            sqe_list_entry e = ulist(&u[a], row);
            vec *field = &rows->children[a];
            for (uint32_t i = 0; i < len; i++) {
                if (i < e.length)
                    SQE_TRY(func_copy_value(ctx, field, start + i, ulist_elems(&u[a]), e.offset + i));
                else
                    SQE_TRY(func_out_null(ctx, field, start + i));
            }
        }
        for (uint32_t i = 0; i < len; i++) vec_set_valid(rows, start + i);
        out->child_len = start + len;
        VEC_DATA(out, sqe_list_entry)[row] = (sqe_list_entry){start, len};
    }
    return SQE_OK;
}

/* --- The table ------------------------------------------------------------------------------ */

#define NP FUNC_NULL_PROPAGATES

static const func_scalar_def array_defs[] = {
    {"cardinality", "array(E)", "bigint", NULL, NULL, cardinality_fn, NP, "number of elements"},
    {"element_at", "array(E),bigint", "E", NULL, NULL, element_at_fn, NP,
     "element at a 1-based index (negative from the end; NULL out of bounds)"},
    {"$subscript", "array(E),bigint", "E", NULL, NULL, subscript_fn, NP,
     "array[index]: element at a 1-based index"},
    {"contains", "array(T),T", "boolean", NULL, NULL, contains_fn, NP,
     "does the array contain the value"},
    {"array_position", "array(T),T", "bigint", NULL, NULL, array_position_fn, NP,
     "1-based position of the first occurrence (0 if none)"},
    {"array_position", "array(T),T,bigint", "bigint", NULL, NULL, array_position_fn, NP,
     "position of the n-th occurrence (negative: from the end)"},
    {"array_max", "array(T)", "?", ret_array_orderable, NULL, array_max_fn, NP,
     "largest element (NULL if any element is NULL)"},
    {"array_min", "array(T)", "?", ret_array_orderable, NULL, array_min_fn, NP,
     "smallest element (NULL if any element is NULL)"},
    {"array_join", "array(T),varchar", "varchar", NULL, NULL, array_join_fn, NP,
     "elements joined by a delimiter (NULLs skipped)"},
    {"array_join", "array(T),varchar,varchar", "varchar", NULL, NULL, array_join_fn, NP,
     "elements joined by a delimiter, NULLs replaced"},
    {"flatten", "array(array(E))", "array(E)", NULL, NULL, flatten_fn, NP,
     "concatenation of the inner arrays"},
    {"reverse", "array(E)", "array(E)", NULL, NULL, reverse_array_fn, NP,
     "elements in reverse order"},
    {"slice", "array(E),bigint,bigint", "array(E)", NULL, NULL, slice_fn, NP,
     "length elements from a 1-based start (negative from the end)"},
    {"trim_array", "array(E),bigint", "array(E)", NULL, NULL, trim_array_fn, NP,
     "removes n elements from the end"},
    {"concat", "array(E),array(E),array(E)...", "array(E)", NULL, NULL, concat_arrays_fn, NP,
     "concatenation of arrays"},
    {"concat", "E,array(E)", "?", ret_concat_element, NULL, concat_arrays_fn, NP,
     "an element prepended to an array"},
    {"concat", "array(E),E", "?", ret_concat_element, NULL, concat_arrays_fn, NP,
     "an element appended to an array"},
    {"sequence", "bigint,bigint", "array(bigint)", NULL, NULL, sequence_bigint_fn, NP,
     "integers from start to stop"},
    {"sequence", "bigint,bigint,bigint", "array(bigint)", NULL, NULL, sequence_bigint_fn, NP,
     "integers from start to stop by step"},
    {"sequence", "date,date", "array(date)", NULL, NULL, sequence_temporal_ds_fn, NP,
     "dates from start to stop"},
    {"sequence", "date,date,interval day to second", "array(date)", NULL, NULL,
     sequence_temporal_ds_fn, NP, "dates from start to stop by step"},
    {"sequence", "date,date,interval year to month", "array(date)", NULL, NULL,
     sequence_temporal_ym_fn, NP, "dates from start to stop by step"},
    {"sequence", "timestamp,timestamp,interval day to second", "?", ret_repeat, NULL,
     sequence_temporal_ds_fn, NP, "timestamps from start to stop by step"},
    {"sequence", "timestamp,timestamp,interval year to month", "?", ret_repeat, NULL,
     sequence_temporal_ym_fn, NP, "timestamps from start to stop by step"},
    {"repeat", "E,integer", "?", ret_repeat, NULL, repeat_fn, 0,
     "an array of count copies of element"},
    {"shuffle", "array(E)", "array(E)", NULL, NULL, shuffle_fn, NP | FUNC_VOLATILE,
     "elements in random order"},
    {"zip", "array(T1),array(T2)", "array(row(T1,T2))", NULL, NULL, zip_fn, NP,
     "arrays merged element-wise into rows"},
    {"zip", "array(T1),array(T2),array(T3)", "array(row(T1,T2,T3))", NULL, NULL, zip_fn, NP,
     "arrays merged element-wise into rows"},
    {"zip", "array(T1),array(T2),array(T3),array(T4)", "array(row(T1,T2,T3,T4))", NULL, NULL,
     zip_fn, NP, "arrays merged element-wise into rows"},
    {"zip", "array(T1),array(T2),array(T3),array(T4),array(T5)", "array(row(T1,T2,T3,T4,T5))",
     NULL, NULL, zip_fn, NP, "arrays merged element-wise into rows"},
};

static func_scalar_def *g_all;
static uint32_t g_n_all;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void join_parts(void) {
    func_def_part parts[3] = {{array_defs, FUNC_N(array_defs)}, {NULL, 0}, {NULL, 0}};
    parts[1].defs = func_array_set_defs(&parts[1].count);
    parts[2].defs = func_array_lambda_defs(&parts[2].count);
    g_all = func_defs_join(parts, 3, &g_n_all);
}

const func_scalar_def *func_scalar_family_array(uint32_t *count) {
    pthread_once(&g_once, join_parts);
    *count = g_n_all;
    return g_all;
}
