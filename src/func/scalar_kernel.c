/*
 * scalar_kernel.c: helpers shared by the scalar kernels of every family: result writing,
 * nested result building, casting a column to varchar, and generic comparison, equality and
 * hashing of values of any type (nested ones included) with a small hash set on top.
 *
 * INTERFACE: func_nomem, func_out_null, func_out_str, func_out_sb, func_list_reserve,
 *   func_copy_value, func_temp_vec, func_cast_to_varchar, func_value_text, func_defs_join,
 *   func_find, func_date_add_months, func_timestamp_add_months,
 *   func_random_u64,
 *   func_random_double, func_random_below, func_value_compare,
 *   func_value_same, func_value_hash, func_value_equal3, func_value_order,
 *   func_value_set_{init,destroy,clear,add,find} (see scalar_kernel.h).
 *
 * NOTES: the generic value functions resolve every value through vec_resolve, so they accept
 * vectors of any shape (including children of nested vectors) at the price of speed; hot
 * operators on primitive types have their own specialized loops (scalar_operators_*.c).
 * CHAR values compare as if padded with spaces to a common length, as Trino does.
 */
#define _GNU_SOURCE
#include "func/scalar_kernel.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/hash.h"
#include "types/datetime.h"
#include "vec/vec_format.h"

/* --- Results ----------------------------------------------------------------------------- */

int func_nomem(func_ctx *ctx) { return err_nomem(ctx->err, "function result"); }

int func_out_null(func_ctx *ctx, vec *out, uint32_t row) {
    if (vec_set_null(out, row) != SQE_OK) return func_nomem(ctx);
    return SQE_OK;
}

int func_out_str(func_ctx *ctx, vec *out, uint32_t row, const char *p, size_t len) {
    if (len > FUNC_MAX_STRING)
        return func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                              "result string too large (%zu bytes)", len);
    bool ok = true;
    VEC_DATA(out, sqe_str)[row] = vec_str_copy(out, p, (uint32_t)len, &ok);
    if (!ok) return func_nomem(ctx);
    return SQE_OK;
}

int func_out_sb(func_ctx *ctx, vec *out, uint32_t row, const strbuf *sb) {
    if (sb->failed == STRBUF_TOO_LONG)
        return func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                              "result string too large (over %u bytes)", FUNC_MAX_STRING);
    if (sb->failed) return func_nomem(ctx);
    return func_out_str(ctx, out, row, sb->data ? sb->data : "", sb->len);
}

int func_list_reserve(func_ctx *ctx, vec *out, uint32_t extra, uint32_t *start) {
    *start = out->child_len;
    if (extra > FUNC_MAX_ELEMENTS || out->child_len > FUNC_MAX_ELEMENTS - extra)
        return err_set(ctx->err, SQE_ERR_EXCEEDED_MEMORY_LIMIT,
                       "too many array or map elements in one batch");
    uint32_t need = out->child_len + extra;
    for (uint32_t c = 0; c < out->n_children; c++)
        SQE_TRY(vec_reserve(&out->children[c], need ? need : 1, ctx->err));
    return SQE_OK;
}

int func_copy_value(func_ctx *ctx, vec *dst, uint32_t dst_row, const vec *src, uint32_t src_row) {
    return vec_copy_row(dst, dst_row, src, src_row, ctx->err);
}

int func_temp_vec(func_ctx *ctx, vec *v, sqe_type type, uint32_t capacity) {
    return vec_init(v, type, capacity ? capacity : 1, ctx->tracker, ctx->err);
}

int func_cast_to_varchar(func_ctx *ctx, const vec *in, const uint32_t *sel, uint32_t count,
                         vec *out) {
    vec_view u;
    vec_view_init(&u, in);
    if (type_is_string_view(in->type)) {
        FUNC_FOR_ROWS(sel, count, row) {
            if (!vec_view_valid(&u, row)) {
                SQE_TRY(func_out_null(ctx, out, row));
                continue;
            }
            VEC_DATA(out, sqe_str)[row] = *ustr(&u, row);
        }
        return SQE_OK;
    }
    func_scalar_fn fn = func_cast_lookup(in->type, type_varchar(0));
    if (!fn) {
        char name[128];
        type_format(in->type, name, sizeof name);
        return err_set(ctx->err, SQE_ERR_NOT_SUPPORTED, "cannot cast %s to varchar", name);
    }
    uint32_t *valid = mem_alloc(ctx->tracker, sizeof(uint32_t) * (count ? count : 1), ctx->err);
    if (!valid) return ctx->err ? ctx->err->code : SQE_ERR_OUT_OF_MEMORY;
    uint32_t n_valid = 0;
    int rc = SQE_OK;
    FUNC_FOR_ROWS(sel, count, row) {
        if (vec_view_valid(&u, row)) {
            valid[n_valid++] = row;
        } else if ((rc = func_out_null(ctx, out, row)) != SQE_OK) {
            break;
        }
    }
    if (rc == SQE_OK && n_valid) {
        func_ctx c2 = *ctx;
        c2.bind_data = NULL;
        const vec *args[1] = {in};
        rc = fn(&c2, args, 1, valid, n_valid, out);
    }
    mem_free(ctx->tracker, valid);
    return rc;
}

void func_value_text(const vec *v, uint32_t row, char *buf, size_t cap) {
    if (cap == 0) return;
    strbuf sb;
    strbuf_init(&sb);
    vec_format_value(v, row, &sb);
    const char *t = strbuf_cstr(&sb);
    size_t n = strlen(t);
    if (n >= cap) n = cap - 1;
    memcpy(buf, t, n);
    buf[n] = '\0';
    strbuf_reset(&sb);
}

func_scalar_def *func_defs_join(const func_def_part *parts, uint32_t n_parts, uint32_t *count) {
    uint32_t total = 0;
    for (uint32_t i = 0; i < n_parts; i++) total += parts[i].count;
    func_scalar_def *all = malloc(sizeof(func_scalar_def) * (total ? total : 1));
    if (!all) {
        *count = 0;
        return NULL;
    }
    uint32_t n = 0;
    for (uint32_t i = 0; i < n_parts; i++)
        for (uint32_t k = 0; k < parts[i].count; k++) all[n++] = parts[i].defs[k];
    *count = n;
    return all;
}

const char *func_find(const char *hay, size_t n, const char *needle, size_t m) {
    if (m == 0) return hay;
    if (m > n) return NULL;
    if (n > 256 || m > 16) return memmem(hay, n, needle, m);
    const char *end = hay + (n - m);
    for (const char *p = hay; p <= end; p++) {
        p = memchr(p, needle[0], (size_t)(end - p) + 1);
        if (!p) return NULL;
        if (memcmp(p + 1, needle + 1, m - 1) == 0) return p;
    }
    return NULL;
}

/* --- Calendar arithmetic ---------------------------------------------------------------------- */

/* Year of (year, month) + months, floor division. */
static int64_t year_after(int32_t year, int32_t month, int64_t months) {
    int64_t total = (int64_t)year * 12 + (month - 1);
    if (months > INT64_MAX / 4 || months < -(INT64_MAX / 4)) return INT64_MAX;
    total += months;
    return dt_floor_div(total, 12);
}

bool func_date_add_months(int32_t days, int64_t months, int32_t *out) {
    int32_t y, m, d;
    dt_civil_from_days(days, &y, &m, &d);
    int64_t ry = year_after(y, m, months);
    if (ry < -FUNC_DATE_MAX_YEAR || ry > FUNC_DATE_MAX_YEAR) return false;
    *out = dt_date_add_months(days, months);
    return true;
}

bool func_timestamp_add_months(int64_t micros, int64_t months, int64_t *out) {
    dt_fields f;
    dt_fields_from_micros(micros, &f);
    int64_t ry = year_after(f.year, f.month, months);
    if (ry < -FUNC_TIMESTAMP_MAX_YEAR || ry > FUNC_TIMESTAMP_MAX_YEAR) return false;
    *out = dt_timestamp_add_months(micros, months);
    return true;
}

/* --- Random numbers ------------------------------------------------------------------------ */

/* One generator per thread (splitmix64), reseeded whenever the query's seed changes, so a
 * single-threaded query with a given seed is reproducible. */
static _Thread_local uint64_t rng_state;
static _Thread_local uint64_t rng_seed;
static _Thread_local bool rng_ready;
static _Atomic uint64_t rng_threads;

uint64_t func_random_u64(func_ctx *ctx) {
    if (!rng_ready || rng_seed != ctx->random_seed) {
        rng_seed = ctx->random_seed;
        uint64_t thread_no = atomic_fetch_add(&rng_threads, 1);
        uint64_t base = rng_seed ? rng_seed : (uint64_t)time(NULL) ^ (uint64_t)(uintptr_t)&rng_state;
        rng_state = hash_u64(base) ^ hash_u64(thread_no + 0x9e3779b97f4a7c15ULL);
        rng_ready = true;
    }
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

double func_random_double(func_ctx *ctx) {
    return (double)(func_random_u64(ctx) >> 11) * 0x1.0p-53;
}

uint64_t func_random_below(func_ctx *ctx, uint64_t n) {
    if (n <= 1) return 0;
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x;
    do x = func_random_u64(ctx);
    while (x >= limit);
    return x % n;
}

/* --- Generic comparison ------------------------------------------------------------------ */

static int cmp_double(double x, double y) {
    if (x < y) return -1;
    if (x > y) return 1;
    if (x == y) return 0;
    bool nx = isnan(x), ny = isnan(y);
    return nx == ny ? 0 : nx ? 1 : -1;
}

#define CMP3(x, y) ((x) < (y) ? -1 : (x) > (y))

/* Compares as if the shorter string were padded with spaces (CHAR semantics). */
static int cmp_char(const sqe_str *a, const sqe_str *b) {
    const unsigned char *pa = (const unsigned char *)sqe_str_data(a);
    const unsigned char *pb = (const unsigned char *)sqe_str_data(b);
    uint32_t n = a->len < b->len ? a->len : b->len;
    int c = memcmp(pa, pb, n);
    if (c) return c < 0 ? -1 : 1;
    for (uint32_t i = n; i < a->len; i++)
        if (pa[i] != ' ') return pa[i] < ' ' ? -1 : 1;
    for (uint32_t i = n; i < b->len; i++)
        if (pb[i] != ' ') return pb[i] < ' ' ? 1 : -1;
    return 0;
}

static bool resolve_valid(const vec *v, uint32_t row, const vec **f, uint32_t *p) {
    *f = vec_resolve(v, row, p);
    return vec_is_valid_flat(*f, *p);
}

/* Compares primitive (non-nested) values of flat vectors. */
static int cmp_primitive(const vec *fa, uint32_t pa, const vec *fb, uint32_t pb) {
    switch (fa->type.id) {
    case TYPE_BOOLEAN: return CMP3(VEC_DATA(fa, uint8_t)[pa], VEC_DATA(fb, uint8_t)[pb]);
    case TYPE_TINYINT: return CMP3(VEC_DATA(fa, int8_t)[pa], VEC_DATA(fb, int8_t)[pb]);
    case TYPE_SMALLINT: return CMP3(VEC_DATA(fa, int16_t)[pa], VEC_DATA(fb, int16_t)[pb]);
    case TYPE_INTEGER:
    case TYPE_DATE:
    case TYPE_INTERVAL_YM: return CMP3(VEC_DATA(fa, int32_t)[pa], VEC_DATA(fb, int32_t)[pb]);
    case TYPE_BIGINT:
    case TYPE_TIME:
    case TYPE_TIMESTAMP:
    case TYPE_INTERVAL_DS: return CMP3(VEC_DATA(fa, int64_t)[pa], VEC_DATA(fb, int64_t)[pb]);
    case TYPE_REAL: return cmp_double(VEC_DATA(fa, float)[pa], VEC_DATA(fb, float)[pb]);
    case TYPE_DOUBLE: return cmp_double(VEC_DATA(fa, double)[pa], VEC_DATA(fb, double)[pb]);
    case TYPE_DECIMAL: {
        int128 x = decimal_get(fa->data, fa->type, pa), y = decimal_get(fb->data, fb->type, pb);
        if (fa->type.scale != fb->type.scale) {
            int s = fa->type.scale > fb->type.scale ? fa->type.scale : fb->type.scale;
            if (!decimal_rescale(x, fa->type.scale, s, &x) ||
                !decimal_rescale(y, fb->type.scale, s, &y))
                return 0;
        }
        return CMP3(x, y);
    }
    case TYPE_CHAR: return cmp_char(&VEC_DATA(fa, sqe_str)[pa], &VEC_DATA(fb, sqe_str)[pb]);
    case TYPE_VARCHAR:
    case TYPE_VARBINARY:
    case TYPE_JSON:
        return sqe_str_compare(&VEC_DATA(fa, sqe_str)[pa], &VEC_DATA(fb, sqe_str)[pb]);
    case TYPE_TIMESTAMP_TZ:
        return CMP3(VEC_DATA(fa, sqe_timestamp_tz)[pa].micros,
                    VEC_DATA(fb, sqe_timestamp_tz)[pb].micros);
    case TYPE_UUID: {
        int c = memcmp((const uint8_t *)fa->data + 16 * (size_t)pa,
                       (const uint8_t *)fb->data + 16 * (size_t)pb, 16);
        return c < 0 ? -1 : c > 0;
    }
    default: return 0;
    }
}

/* Looks key row kr of vector kv up among the keys [off, off+len) of map vector flat fm. */
static int64_t map_find(const vec *fm, sqe_list_entry e, const vec *kv, uint32_t kr) {
    for (uint32_t i = 0; i < e.length; i++)
        if (func_value_same(&fm->children[0], e.offset + i, kv, kr)) return e.offset + i;
    return -1;
}

int func_value_compare(const vec *a, uint32_t ra, const vec *b, uint32_t rb) {
    const vec *fa, *fb;
    uint32_t pa, pb;
    bool va = resolve_valid(a, ra, &fa, &pa), vb = resolve_valid(b, rb, &fb, &pb);
    if (!va || !vb) return va == vb ? 0 : va ? -1 : 1;
    switch (fa->type.id) {
    case TYPE_ARRAY: {
        sqe_list_entry ea = VEC_DATA(fa, sqe_list_entry)[pa], eb = VEC_DATA(fb, sqe_list_entry)[pb];
        uint32_t n = ea.length < eb.length ? ea.length : eb.length;
        for (uint32_t i = 0; i < n; i++) {
            int c = func_value_compare(&fa->children[0], ea.offset + i, &fb->children[0],
                                       eb.offset + i);
            if (c) return c;
        }
        return CMP3(ea.length, eb.length);
    }
    case TYPE_MAP: {
        sqe_list_entry ea = VEC_DATA(fa, sqe_list_entry)[pa], eb = VEC_DATA(fb, sqe_list_entry)[pb];
        if (ea.length != eb.length) return CMP3(ea.length, eb.length);
        for (uint32_t i = 0; i < ea.length; i++) {
            int c = func_value_compare(&fa->children[0], ea.offset + i, &fb->children[0],
                                       eb.offset + i);
            if (!c)
                c = func_value_compare(&fa->children[1], ea.offset + i, &fb->children[1],
                                       eb.offset + i);
            if (c) return c;
        }
        return 0;
    }
    case TYPE_ROW:
        for (uint32_t i = 0; i < fa->n_children && i < fb->n_children; i++) {
            int c = func_value_compare(&fa->children[i], pa, &fb->children[i], pb);
            if (c) return c;
        }
        return 0;
    default:
        return cmp_primitive(fa, pa, fb, pb);
    }
}

bool func_value_same(const vec *a, uint32_t ra, const vec *b, uint32_t rb) {
    const vec *fa, *fb;
    uint32_t pa, pb;
    bool va = resolve_valid(a, ra, &fa, &pa), vb = resolve_valid(b, rb, &fb, &pb);
    if (!va || !vb) return va == vb;
    switch (fa->type.id) {
    case TYPE_ARRAY: {
        sqe_list_entry ea = VEC_DATA(fa, sqe_list_entry)[pa], eb = VEC_DATA(fb, sqe_list_entry)[pb];
        if (ea.length != eb.length) return false;
        for (uint32_t i = 0; i < ea.length; i++)
            if (!func_value_same(&fa->children[0], ea.offset + i, &fb->children[0], eb.offset + i))
                return false;
        return true;
    }
    case TYPE_MAP: {
        sqe_list_entry ea = VEC_DATA(fa, sqe_list_entry)[pa], eb = VEC_DATA(fb, sqe_list_entry)[pb];
        if (ea.length != eb.length) return false;
        for (uint32_t i = 0; i < ea.length; i++) {
            int64_t j = map_find(fb, eb, &fa->children[0], ea.offset + i);
            if (j < 0 ||
                !func_value_same(&fa->children[1], ea.offset + i, &fb->children[1], (uint32_t)j))
                return false;
        }
        return true;
    }
    case TYPE_ROW:
        for (uint32_t i = 0; i < fa->n_children && i < fb->n_children; i++)
            if (!func_value_same(&fa->children[i], pa, &fb->children[i], pb)) return false;
        return true;
    default:
        return cmp_primitive(fa, pa, fb, pb) == 0;
    }
}

static uint64_t hash_double(double d) {
    if (d == 0) d = 0;  /* -0 */
    if (isnan(d)) return 0x7ff8000000000000ULL;
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    return hash_u64(bits);
}

uint64_t func_value_hash(const vec *v, uint32_t row) {
    const vec *f;
    uint32_t p;
    if (!resolve_valid(v, row, &f, &p)) return 0x5bd1e9955bd1e995ULL;
    switch (f->type.id) {
    case TYPE_BOOLEAN: return hash_u64(VEC_DATA(f, uint8_t)[p]);
    case TYPE_TINYINT: return hash_u64((uint64_t)(int64_t)VEC_DATA(f, int8_t)[p]);
    case TYPE_SMALLINT: return hash_u64((uint64_t)(int64_t)VEC_DATA(f, int16_t)[p]);
    case TYPE_INTEGER:
    case TYPE_DATE:
    case TYPE_INTERVAL_YM: return hash_u64((uint64_t)(int64_t)VEC_DATA(f, int32_t)[p]);
    case TYPE_BIGINT:
    case TYPE_TIME:
    case TYPE_TIMESTAMP:
    case TYPE_INTERVAL_DS: return hash_u64((uint64_t)VEC_DATA(f, int64_t)[p]);
    case TYPE_REAL: return hash_double(VEC_DATA(f, float)[p]);
    case TYPE_DOUBLE: return hash_double(VEC_DATA(f, double)[p]);
    case TYPE_DECIMAL: {
        int128 x = decimal_get(f->data, f->type, p);
        return hash_combine(hash_u64((uint64_t)x), (uint64_t)(x >> 64));
    }
    case TYPE_CHAR: {
        const sqe_str *s = &VEC_DATA(f, sqe_str)[p];
        const char *d = sqe_str_data(s);
        uint32_t n = s->len;
        while (n && d[n - 1] == ' ') n--;
        return hash_bytes(d, n);
    }
    case TYPE_VARCHAR:
    case TYPE_VARBINARY:
    case TYPE_JSON: {
        const sqe_str *s = &VEC_DATA(f, sqe_str)[p];
        return hash_bytes(sqe_str_data(s), s->len);
    }
    case TYPE_TIMESTAMP_TZ: return hash_u64((uint64_t)VEC_DATA(f, sqe_timestamp_tz)[p].micros);
    case TYPE_UUID: return hash_bytes((const uint8_t *)f->data + 16 * (size_t)p, 16);
    case TYPE_ARRAY: {
        sqe_list_entry e = VEC_DATA(f, sqe_list_entry)[p];
        uint64_t h = hash_u64(e.length + 0x1234567ULL);
        for (uint32_t i = 0; i < e.length; i++)
            h = hash_combine(h, func_value_hash(&f->children[0], e.offset + i));
        return h;
    }
    case TYPE_MAP: {
        sqe_list_entry e = VEC_DATA(f, sqe_list_entry)[p];
        uint64_t h = hash_u64(e.length + 0x7654321ULL);
        for (uint32_t i = 0; i < e.length; i++) /* order-independent */
            h += hash_combine(func_value_hash(&f->children[0], e.offset + i),
                              func_value_hash(&f->children[1], e.offset + i));
        return h;
    }
    case TYPE_ROW: {
        uint64_t h = 0x9e3779b97f4a7c15ULL;
        for (uint32_t i = 0; i < f->n_children; i++)
            h = hash_combine(h, func_value_hash(&f->children[i], p));
        return h;
    }
    default: return 0;
    }
}

int func_value_equal3(const vec *a, uint32_t ra, const vec *b, uint32_t rb) {
    const vec *fa, *fb;
    uint32_t pa, pb;
    if (!resolve_valid(a, ra, &fa, &pa) || !resolve_valid(b, rb, &fb, &pb)) return FUNC_NULL;
    switch (fa->type.id) {
    case TYPE_ARRAY: {
        sqe_list_entry ea = VEC_DATA(fa, sqe_list_entry)[pa], eb = VEC_DATA(fb, sqe_list_entry)[pb];
        if (ea.length != eb.length) return FUNC_FALSE;
        bool unknown = false;
        for (uint32_t i = 0; i < ea.length; i++) {
            int r = func_value_equal3(&fa->children[0], ea.offset + i, &fb->children[0],
                                      eb.offset + i);
            if (r == FUNC_FALSE) return FUNC_FALSE;
            unknown |= r == FUNC_NULL;
        }
        return unknown ? FUNC_NULL : FUNC_TRUE;
    }
    case TYPE_MAP: {
        sqe_list_entry ea = VEC_DATA(fa, sqe_list_entry)[pa], eb = VEC_DATA(fb, sqe_list_entry)[pb];
        if (ea.length != eb.length) return FUNC_FALSE;
        bool unknown = false;
        for (uint32_t i = 0; i < ea.length; i++) {
            int64_t j = map_find(fb, eb, &fa->children[0], ea.offset + i);
            if (j < 0) return FUNC_FALSE;
            int r = func_value_equal3(&fa->children[1], ea.offset + i, &fb->children[1],
                                      (uint32_t)j);
            if (r == FUNC_FALSE) return FUNC_FALSE;
            unknown |= r == FUNC_NULL;
        }
        return unknown ? FUNC_NULL : FUNC_TRUE;
    }
    case TYPE_ROW: {
        bool unknown = false;
        for (uint32_t i = 0; i < fa->n_children && i < fb->n_children; i++) {
            int r = func_value_equal3(&fa->children[i], pa, &fb->children[i], pb);
            if (r == FUNC_FALSE) return FUNC_FALSE;
            unknown |= r == FUNC_NULL;
        }
        return unknown ? FUNC_NULL : FUNC_TRUE;
    }
    case TYPE_REAL:
        return VEC_DATA(fa, float)[pa] == VEC_DATA(fb, float)[pb] ? FUNC_TRUE : FUNC_FALSE;
    case TYPE_DOUBLE:
        return VEC_DATA(fa, double)[pa] == VEC_DATA(fb, double)[pb] ? FUNC_TRUE : FUNC_FALSE;
    default:
        return cmp_primitive(fa, pa, fb, pb) == 0 ? FUNC_TRUE : FUNC_FALSE;
    }
}

int func_value_order(const vec *a, uint32_t ra, const vec *b, uint32_t rb, int *cmp) {
    const vec *fa, *fb;
    uint32_t pa, pb;
    bool va = resolve_valid(a, ra, &fa, &pa), vb = resolve_valid(b, rb, &fb, &pb);
    *cmp = 0;
    if (!va || !vb) return FUNC_ORDER_NULL_ELEMENT;
    switch (fa->type.id) {
    case TYPE_ARRAY: {
        sqe_list_entry ea = VEC_DATA(fa, sqe_list_entry)[pa], eb = VEC_DATA(fb, sqe_list_entry)[pb];
        uint32_t n = ea.length < eb.length ? ea.length : eb.length;
        for (uint32_t i = 0; i < n; i++) {
            const vec *ca = &fa->children[0], *cb = &fb->children[0];
            if (vec_is_null(ca, ea.offset + i) || vec_is_null(cb, eb.offset + i))
                return FUNC_ORDER_NULL_ELEMENT;
            int rc = func_value_order(ca, ea.offset + i, cb, eb.offset + i, cmp);
            if (rc || *cmp) return rc;
        }
        *cmp = CMP3(ea.length, eb.length);
        return 0;
    }
    case TYPE_ROW:
        for (uint32_t i = 0; i < fa->n_children && i < fb->n_children; i++) {
            if (vec_is_null(&fa->children[i], pa) || vec_is_null(&fb->children[i], pb))
                return FUNC_ORDER_NULL_FIELD;
            int rc = func_value_order(&fa->children[i], pa, &fb->children[i], pb, cmp);
            if (rc || *cmp) return rc;
        }
        return 0;
    default:
        *cmp = func_value_compare(a, ra, b, rb);
        return 0;
    }
}

/* --- Value set ----------------------------------------------------------------------------- */

void func_value_set_init(func_value_set *s, const vec *v) {
    memset(s, 0, sizeof *s);
    s->v = v;
}

void func_value_set_destroy(func_value_set *s) {
    free(s->slots);
    free(s->hashes);
    memset(s, 0, sizeof *s);
}

void func_value_set_clear(func_value_set *s, const vec *v) {
    if (s->slots && s->count) memset(s->slots, 0, sizeof(uint32_t) * s->cap);
    s->count = 0;
    s->v = v;
}

static int set_grow(func_value_set *s) {
    uint32_t cap = s->cap ? s->cap * 2 : 16;
    uint32_t *slots = calloc(cap, sizeof *slots);
    uint64_t *hashes = malloc(cap * sizeof *hashes);
    if (!slots || !hashes) {
        free(slots);
        free(hashes);
        return SQE_ERR_OUT_OF_MEMORY;
    }
    uint32_t mask = cap - 1;
    for (uint32_t i = 0; i < s->cap; i++) {
        if (!s->slots[i]) continue;
        uint32_t j = (uint32_t)s->hashes[i] & mask;
        while (slots[j]) j = (j + 1) & mask;
        slots[j] = s->slots[i];
        hashes[j] = s->hashes[i];
    }
    free(s->slots);
    free(s->hashes);
    s->slots = slots;
    s->hashes = hashes;
    s->cap = cap;
    s->mask = mask;
    return SQE_OK;
}

int func_value_set_add(func_value_set *s, uint32_t pos, bool *found) {
    if ((s->count + 1) * 2 > s->cap) SQE_TRY(set_grow(s));
    uint64_t h = func_value_hash(s->v, pos);
    uint32_t j = (uint32_t)h & s->mask;
    while (s->slots[j]) {
        if (s->hashes[j] == h && func_value_same(s->v, s->slots[j] - 1, s->v, pos)) {
            if (found) *found = true;
            return SQE_OK;
        }
        j = (j + 1) & s->mask;
    }
    s->slots[j] = pos + 1;
    s->hashes[j] = h;
    s->count++;
    if (found) *found = false;
    return SQE_OK;
}

int64_t func_value_set_find(const func_value_set *s, const vec *w, uint32_t r) {
    if (!s->count) return -1;
    uint64_t h = func_value_hash(w, r);
    uint32_t j = (uint32_t)h & s->mask;
    while (s->slots[j]) {
        if (s->hashes[j] == h && func_value_same(s->v, s->slots[j] - 1, w, r))
            return s->slots[j] - 1;
        j = (j + 1) & s->mask;
    }
    return -1;
}
