/*
 * scalar_kernel.h (private to func/): what the scalar kernels of every family share: typed
 * argument access through vec_view, writing string / NULL / nested results, UTF-8 helpers,
 * generic comparison and hashing of values of any type (for nested types and the array and map
 * functions), and the kernels that one family file exports to another family's def table.
 */
#ifndef SQE_FUNC_SCALAR_KERNEL_H
#define SQE_FUNC_SCALAR_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/strbuf.h"
#include "func/func.h"
#include "types/decimal.h"
#include "common/utf8.h"

/* Longest string (bytes) or array (elements) a kernel builds. */
#define FUNC_MAX_STRING (1u << 30)
#define FUNC_MAX_ELEMENTS (1u << 28)

#define FUNC_N(table) ((uint32_t)(sizeof(table) / sizeof((table)[0])))

/* --- Arguments ------------------------------------------------------------------------------ */

/* Value of logical row `row` of a viewed argument (vec_view), typed. */
#define UVAL(u, ctype, row) (((const ctype *)(u)->data)[vec_view_index((u), (row))])

static inline const sqe_str *ustr(const vec_view *u, uint32_t row) {
    return &((const sqe_str *)u->data)[vec_view_index(u, row)];
}
static inline int128 udec(const vec_view *u, sqe_type t, uint32_t row) {
    return decimal_get(u->data, t, vec_view_index(u, row));
}
static inline sqe_list_entry ulist(const vec_view *u, uint32_t row) {
    return ((const sqe_list_entry *)u->data)[vec_view_index(u, row)];
}
/* Integer argument of any integer type, widened. */
static inline int64_t uint_any(const vec_view *u, uint32_t row) {
    uint32_t i = vec_view_index(u, row);
    switch (u->flat->type.id) {
    case TYPE_TINYINT: return ((const int8_t *)u->data)[i];
    case TYPE_SMALLINT: return ((const int16_t *)u->data)[i];
    case TYPE_INTEGER: return ((const int32_t *)u->data)[i];
    default: return ((const int64_t *)u->data)[i];
    }
}

/* Element vector of an array argument (children[0] of the flat vector behind u). */
static inline const vec *ulist_elems(const vec_view *u) { return &u->flat->children[0]; }

/* Are all arguments flat and no selection given (the vectorizable fast path)? */
static inline bool func_all_flat(const vec *const *args, uint32_t n, const uint32_t *sel) {
    if (sel) return false;
    for (uint32_t i = 0; i < n; i++)
        if (args[i]->shape != VEC_FLAT) return false;
    return true;
}

/* --- Results -------------------------------------------------------------------------------- */

/* Sets ctx->err to OUT_OF_MEMORY and returns the code (not subject to try_mode). */
int func_nomem(func_ctx *ctx);
/* Marks out[row] NULL; returns SQE_OK or OUT_OF_MEMORY. */
int func_out_null(func_ctx *ctx, vec *out, uint32_t row);
/* Stores a copy of len bytes as out[row] (string view types). */
int func_out_str(func_ctx *ctx, vec *out, uint32_t row, const char *p, size_t len);
/* Stores the contents of sb as out[row] (sb keeps its buffer; a failed sb is OUT_OF_MEMORY). */
int func_out_sb(func_ctx *ctx, vec *out, uint32_t row, const strbuf *sb);

/* Makes room for `extra` more elements in the children of ARRAY/MAP vector out; returns the
 * current child_len (first free element) in *start. */
int func_list_reserve(func_ctx *ctx, vec *out, uint32_t extra, uint32_t *start);
/* Copies element src_row of src (any shape) to element dst of the flat vector dst. */
int func_copy_value(func_ctx *ctx, vec *dst, uint32_t dst_row, const vec *src, uint32_t src_row);

/* Initializes a temporary flat vector on the query's tracker. */
int func_temp_vec(func_ctx *ctx, vec *v, sqe_type type, uint32_t capacity);

/* Casts the selected rows of `in` to varchar into out (initialized by the caller, capacity for
 * every selected row); string inputs are copied as views. NULL inputs give NULL. */
int func_cast_to_varchar(func_ctx *ctx, const vec *in, const uint32_t *sel, uint32_t count,
                         vec *out);

/* Text of value row of v for error messages (truncated to cap). */
void func_value_text(const vec *v, uint32_t row, char *buf, size_t cap);

/* Random numbers for rand(), shuffle(), ...: a per-thread generator seeded from
 * ctx->random_seed (0 = unseeded). */
uint64_t func_random_u64(func_ctx *ctx);
double func_random_double(func_ctx *ctx);          /* [0, 1) */
uint64_t func_random_below(func_ctx *ctx, uint64_t n); /* [0, n), unbiased; 0 when n <= 1 */

/* --- Generic values ------------------------------------------------------------------------- */

/* Three-valued logic results. */
enum { FUNC_FALSE = 0, FUNC_TRUE = 1, FUNC_NULL = 2 };

/* Total order of two values of the same type (any shape): NULLs last, NaN greatest and equal to
 * itself, -0 = 0; arrays and rows lexicographic, maps by size then entries. For sorting and
 * min/max. */
int func_value_compare(const vec *a, uint32_t ra, const vec *b, uint32_t rb);
/* "Not distinct": NULL equals NULL, NaN equals NaN, maps equal regardless of entry order. */
bool func_value_same(const vec *a, uint32_t ra, const vec *b, uint32_t rb);
/* Hash consistent with func_value_same. */
uint64_t func_value_hash(const vec *v, uint32_t row);
/* SQL equality: FUNC_TRUE / FUNC_FALSE / FUNC_NULL (NULL operand or, inside arrays, maps and
 * rows, an undecided NULL element). */
int func_value_equal3(const vec *a, uint32_t ra, const vec *b, uint32_t rb);
/* SQL ordering of non-NULL values: *cmp < 0, 0, > 0. Returns 0, or FUNC_ORDER_NULL_ELEMENT /
 * FUNC_ORDER_NULL_FIELD when an array element or row field that decides is NULL (Trino
 * refuses those comparisons). */
enum { FUNC_ORDER_NULL_ELEMENT = 1, FUNC_ORDER_NULL_FIELD = 2 };
int func_value_order(const vec *a, uint32_t ra, const vec *b, uint32_t rb, int *cmp);

/* A small hash set of element positions of one vector (array_distinct, map keys, ...). */
typedef struct func_value_set {
    const vec *v;     /* the values the positions refer to */
    uint32_t *slots;  /* position + 1, 0 = empty */
    uint64_t *hashes;
    uint32_t mask;
    uint32_t count;
    uint32_t cap;     /* slots allocated */
} func_value_set;

void func_value_set_init(func_value_set *s, const vec *v);
void func_value_set_destroy(func_value_set *s);
/* Empties the set (keeps memory) and sets the vector its positions refer to. */
void func_value_set_clear(func_value_set *s, const vec *v);
/* Adds position pos unless an equal value is present; *found (may be NULL) tells whether it
 * was. Returns SQE_OK or OUT_OF_MEMORY. */
int func_value_set_add(func_value_set *s, uint32_t pos, bool *found);
/* Is there a value equal to row r of vector w (same type)? Returns the position or -1. */
int64_t func_value_set_find(const func_value_set *s, const vec *w, uint32_t r);

/* --- UTF-8 (common/utf8.h) ------------------------------------------------------------------ */

/* Decodes one code point at p (n > 0 bytes left); *adv receives the bytes consumed (>= 1).
 * Invalid sequences decode as -1 with *adv = 1. */
static inline int32_t utf8_decode_cp(const unsigned char *p, size_t n, size_t *adv) {
    uint32_t cp;
    size_t k = utf8_decode((const char *)p, n, &cp);
    *adv = k ? k : 1;
    return k ? (int32_t)cp : -1;
}

/* --- Calendar arithmetic within range ----------------------------------------------------- */

/* Years SQE accepts as results of date/timestamp arithmetic: dates are int32 days, timestamps
 * int64 microseconds (about +-292000 years around 1970). */
#define FUNC_DATE_MAX_YEAR 5000000
#define FUNC_TIMESTAMP_MAX_YEAR 290000

/* days + months (day clamped to the month's length); false when the result is out of range. */
bool func_date_add_months(int32_t days, int64_t months, int32_t *out);
/* micros + months on a timestamp; false when the result is out of range. */
bool func_timestamp_add_months(int64_t micros, int64_t months, int64_t *out);
/* Is a date (days) within the range of timestamp micros? */
static inline bool func_date_fits_timestamp(int64_t days) {
    return days > -106000000 && days < 106000000; /* ~ +-290000 years */
}

/* --- Substring search ---------------------------------------------------------------------- */

/* memmem, faster on short haystacks (memchr on the first byte, then memcmp); long ones use
 * glibc's linear-time memmem so hostile inputs cannot go quadratic. */
const char *func_find(const char *hay, size_t n, const char *needle, size_t m);

/* --- Cross-family kernels --------------------------------------------------------------------- */

/* scalar_operators_compare.c */
int func_op_eq(func_ctx *, const vec *const *, uint32_t, const uint32_t *, uint32_t, vec *);
int func_op_ne(func_ctx *, const vec *const *, uint32_t, const uint32_t *, uint32_t, vec *);
int func_op_lt(func_ctx *, const vec *const *, uint32_t, const uint32_t *, uint32_t, vec *);
int func_op_le(func_ctx *, const vec *const *, uint32_t, const uint32_t *, uint32_t, vec *);
int func_op_gt(func_ctx *, const vec *const *, uint32_t, const uint32_t *, uint32_t, vec *);
int func_op_ge(func_ctx *, const vec *const *, uint32_t, const uint32_t *, uint32_t, vec *);
int func_op_distinct(func_ctx *, const vec *const *, uint32_t, const uint32_t *, uint32_t, vec *);
int func_ret_orderable(const sqe_type *args, uint32_t n_args, sqe_type *ret, sqe_error *err);
int func_ret_comparable(const sqe_type *args, uint32_t n_args, sqe_type *ret, sqe_error *err);

/* scalar_operators_like.c */
int func_like(func_ctx *, const vec *const *, uint32_t, const uint32_t *, uint32_t, vec *);
int func_like_bind(arena *a, const sqe_type *args, const vec *const *const_args, uint32_t n_args,
                   sqe_type ret, const void **bind_data, sqe_error *err);

/* scalar_operators_temporal.c: date/time/interval arithmetic */
#define FUNC_TEMPORAL_KERNELS(X)                                                                   \
    X(date_plus_ids) X(ids_plus_date) X(date_plus_iym) X(iym_plus_date) X(date_minus_ids)          \
    X(date_minus_iym) X(ts_plus_ids) X(ids_plus_ts) X(ts_plus_iym) X(iym_plus_ts)                  \
    X(ts_minus_ids) X(ts_minus_iym) X(tstz_plus_ids) X(ids_plus_tstz) X(tstz_plus_iym)             \
    X(iym_plus_tstz) X(tstz_minus_ids) X(tstz_minus_iym) X(time_plus_ids) X(ids_plus_time)         \
    X(time_minus_ids) X(ids_plus_ids) X(iym_plus_iym) X(ids_minus_ids) X(iym_minus_iym)            \
    X(ts_minus_ts) X(tstz_minus_tstz) X(date_minus_date) X(time_minus_time) X(ids_times_int)       \
    X(int_times_ids) X(iym_times_int) X(int_times_iym) X(ids_times_double) X(double_times_ids)     \
    X(iym_times_double) X(double_times_iym) X(ids_div_int) X(iym_div_int) X(ids_div_double)        \
    X(iym_div_double) X(ids_negate) X(iym_negate)
#define X(name)                                                                                    \
    int func_op_##name(func_ctx *, const vec *const *, uint32_t, const uint32_t *, uint32_t, vec *);
FUNC_TEMPORAL_KERNELS(X)
#undef X

/* scalar_string.c: ret_fn giving the first argument's type (lower, trim, abs(decimal), ...) */
int func_ret_same_as_arg0(const sqe_type *args, uint32_t n_args, sqe_type *ret, sqe_error *err);

/* ret_varchar.c: Trino's bounded varchar results. varchar_of_arg0: varchar(x) of a varchar(x)
 * first argument, unbounded for any other type; array_varchar_of_arg0: array(varchar(x));
 * replace3 / regexp_replace3: the bounds of the three-argument replace and regexp_replace;
 * url_encode: varchar(12 x). */
int func_ret_varchar_of_arg0(const sqe_type *args, uint32_t n_args, sqe_type *ret,
                             sqe_error *err);
int func_ret_array_varchar_of_arg0(const sqe_type *args, uint32_t n_args, sqe_type *ret,
                                   sqe_error *err);
int func_ret_replace3(const sqe_type *args, uint32_t n_args, sqe_type *ret, sqe_error *err);
int func_ret_regexp_replace3(const sqe_type *args, uint32_t n_args, sqe_type *ret,
                             sqe_error *err);
int func_ret_url_encode(const sqe_type *args, uint32_t n_args, sqe_type *ret, sqe_error *err);

/* --- Families split over several files -------------------------------------------------------- */

/* A family getter joins the def tables of its parts into one table, allocated once for the
 * process (call it under pthread_once). Returns NULL with *count 0 on out-of-memory. */
typedef struct func_def_part {
    const func_scalar_def *defs;
    uint32_t count;
} func_def_part;
func_scalar_def *func_defs_join(const func_def_part *parts, uint32_t n_parts, uint32_t *count);

/* Parts of the string family (scalar_string_*.c). */
const func_scalar_def *func_string_binary_defs(uint32_t *count);
const func_scalar_def *func_string_url_defs(uint32_t *count);
const func_scalar_def *func_string_format_defs(uint32_t *count);
/* Parts of the datetime family (scalar_datetime_*.c). */
const func_scalar_def *func_datetime_format_defs(uint32_t *count);
/* Parts of the array family (scalar_array_*.c). */
const func_scalar_def *func_array_lambda_defs(uint32_t *count);
const func_scalar_def *func_array_set_defs(uint32_t *count);

#endif
