/*
 * agg_collect.c: aggregates that collect values (array_agg, listagg, map_agg, multimap_agg,
 * histogram), and the value storage every aggregate family shares (agg_value.h).
 *
 * A collecting state keeps the values it has seen in an agg_list: a flat vector of the input
 * type owned by the state, into which rows are copied with vec_copy_row (string bytes and
 * nested values included), so any element type works, nested ones too. Keyed aggregates add
 * an agg_keyset: the distinct keys in insertion order plus an open-addressing index over their
 * hashes. finalize appends the collected values to the children of the output vector and sets
 * the sqe_list_entry of the output row.
 *
 * INTERFACE: func_agg_family_collect; agg_cell_*, agg_list_*, agg_write_array, agg_keyset_*,
 *   agg_value_hash, agg_value_equal (declared in agg_value.h).
 * NOTES:
 *  - Order: array_agg, listagg and multimap_agg keep encounter order; combine appends the
 *    source state after the destination, so an ordered result needs the executor to feed rows
 *    in order and combine partial states in order.
 *  - map_agg keeps the first value seen for a key (as Trino); NULL keys are skipped by
 *    map_agg, multimap_agg and histogram; array_agg keeps NULL elements; listagg skips NULLs.
 *  - Every state owns heap memory charged to the query's tracker and has a destroy function.
 */
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/hash.h"
#include "func/agg_value.h"
#include "func/func.h"
#include "types/types.h"
#include "vec/vec.h"

/* The code to return after an allocator returned NULL (it set err when err is non-NULL). */
static int alloc_failed(sqe_error *err) {
    return err && err->code ? err->code : SQE_ERR_OUT_OF_MEMORY;
}

/* Allocates an empty flat vector of `type` on the heap. */
static int boxed_vec_create(sqe_type type, uint32_t capacity, mem_tracker *tracker, vec **out,
                            sqe_error *err) {
    vec *v = mem_alloc(tracker, sizeof *v, err);
    if (!v) return alloc_failed(err);
    int rc = vec_init(v, type, capacity, tracker, err);
    if (rc != SQE_OK) {
        vec_destroy(v);
        mem_free(tracker, v);
        return rc;
    }
    *out = v;
    return SQE_OK;
}

static void boxed_vec_free(vec *v) {
    if (!v) return;
    mem_tracker *tracker = v->tracker;
    vec_destroy(v);
    mem_free(tracker, v);
}

/* ---- Cells ------------------------------------------------------------------------------- */

int agg_cell_set_str(agg_cell *c, const sqe_str *s, mem_tracker *tracker, sqe_error *err) {
    if (s->len <= SQE_STR_INLINE) {
        c->v.str = *s;
        c->kind = AGG_CELL_STR;
        return SQE_OK;
    }
    if (s->len > c->cap) {
        if (!c->tracker) c->tracker = tracker;
        uint32_t cap = c->cap ? c->cap : 32;
        while (cap < s->len) cap = cap > UINT32_MAX / 2 ? s->len : cap * 2;
        char *p = mem_realloc(c->tracker, c->buf, cap, err);
        if (!p) return alloc_failed(err);
        c->buf = p;
        c->cap = cap;
    }
    memcpy(c->buf, sqe_str_data(s), s->len);
    c->v.str = sqe_str_make(c->buf, s->len);
    c->kind = AGG_CELL_STR;
    return SQE_OK;
}

/* Stores row `phys` of the flat vector f into the boxed vector of c. */
static int cell_set_boxed(agg_cell *c, const vec *f, uint32_t phys, mem_tracker *tracker,
                          sqe_error *err) {
    if (!c->boxed) {
        if (!c->tracker) c->tracker = tracker;
        SQE_TRY(boxed_vec_create(f->type, 1, c->tracker, &c->boxed, err));
    }
    vec_reset(c->boxed);
    SQE_TRY(vec_copy_row(c->boxed, 0, f, phys, err));
    c->kind = AGG_CELL_BOXED;
    return SQE_OK;
}

int agg_cell_set(agg_cell *c, const vec *src, uint32_t row, mem_tracker *tracker, sqe_error *err) {
    uint32_t phys;
    const vec *f = vec_resolve(src, row, &phys);
    if (!vec_is_valid_flat(f, phys)) {
        c->kind = AGG_CELL_NULL;
        return SQE_OK;
    }
    switch (agg_phys_of(f->type)) {
    case AGG_P_STR: return agg_cell_set_str(c, &VEC_DATA(f, const sqe_str)[phys], tracker, err);
    case AGG_P_NESTED: return cell_set_boxed(c, f, phys, tracker, err);
    case AGG_P_NONE: c->kind = AGG_CELL_NULL; return SQE_OK;
    default: {
        size_t width = type_physical_size(f->type);
        if (width > sizeof c->v.raw) return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "value too wide");
        agg_cell_set_fixed(c, (const char *)f->data + width * phys, (uint32_t)width);
        return SQE_OK;
    }
    }
}

int agg_cell_copy(agg_cell *dst, const agg_cell *src, mem_tracker *tracker, sqe_error *err) {
    switch ((agg_cell_kind)src->kind) {
    case AGG_CELL_EMPTY:
    case AGG_CELL_NULL: dst->kind = src->kind; return SQE_OK;
    case AGG_CELL_FIXED: agg_cell_set_fixed(dst, src->v.raw, src->width); return SQE_OK;
    case AGG_CELL_STR: return agg_cell_set_str(dst, &src->v.str, tracker, err);
    case AGG_CELL_BOXED: return cell_set_boxed(dst, src->boxed, 0, tracker, err);
    }
    return SQE_OK;
}

int agg_cell_write(const agg_cell *c, vec *out, uint32_t row, sqe_error *err) {
    switch ((agg_cell_kind)c->kind) {
    case AGG_CELL_EMPTY:
    case AGG_CELL_NULL:
        if (vec_set_null(out, row) != SQE_OK) return err_nomem(err, "validity bitmap");
        return SQE_OK;
    case AGG_CELL_FIXED: {
        size_t width = type_physical_size(out->type);
        if (width != c->width) return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "aggregate result width mismatch");
        memcpy((char *)out->data + width * row, c->v.raw, width);
        vec_set_valid(out, row);
        return SQE_OK;
    }
    case AGG_CELL_STR: {
        bool ok = true;
        VEC_DATA(out, sqe_str)[row] = vec_str_copy(out, sqe_str_data(&c->v.str), c->v.str.len, &ok);
        if (!ok) return err_nomem(err, "string");
        vec_set_valid(out, row);
        return SQE_OK;
    }
    case AGG_CELL_BOXED: return vec_copy_row(out, row, c->boxed, 0, err);
    }
    return SQE_OK;
}

void agg_cell_free(agg_cell *c) {
    if (c->buf) mem_free(c->tracker, c->buf);
    boxed_vec_free(c->boxed);
    memset(c, 0, sizeof *c);
}

/* ---- Lists ------------------------------------------------------------------------------- */

int agg_list_append(agg_list *l, const vec *src, uint32_t row, mem_tracker *tracker,
                    sqe_error *err) {
    if (!l->v) SQE_TRY(boxed_vec_create(src->type, 8, tracker, &l->v, err));
    if (l->n == UINT32_MAX) return err_set(err, SQE_ERR_EXCEEDED_MEMORY_LIMIT, "too many values in one group");
    if (l->n >= l->v->capacity) SQE_TRY(vec_reserve(l->v, l->n + 1, err));
    SQE_TRY(vec_copy_row(l->v, l->n, src, row, err));
    l->n++;
    return SQE_OK;
}

int agg_list_append_all(agg_list *dst, const agg_list *src, mem_tracker *tracker, sqe_error *err) {
    for (uint32_t i = 0; i < src->n; i++) SQE_TRY(agg_list_append(dst, src->v, i, tracker, err));
    return SQE_OK;
}

int agg_list_copy_out(const agg_list *l, const uint32_t *idx, uint32_t from, uint32_t n,
                      vec *child, uint32_t at, sqe_error *err) {
    if (n == 0) return SQE_OK;
    if (at > UINT32_MAX - n) return err_set(err, SQE_ERR_EXCEEDED_MEMORY_LIMIT, "result too large");
    SQE_TRY(vec_reserve(child, at + n, err));
    for (uint32_t i = 0; i < n; i++)
        SQE_TRY(vec_copy_row(child, at + i, l->v, idx ? idx[i] : from + i, err));
    return SQE_OK;
}

void agg_list_free(agg_list *l) {
    boxed_vec_free(l->v);
    l->v = NULL;
    l->n = 0;
}

int agg_write_array(vec *out, uint32_t row, const agg_list *l, const uint32_t *idx,
                    uint32_t from, uint32_t n, sqe_error *err) {
    if (out->type.id != TYPE_ARRAY || out->n_children < 1)
        return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "aggregate result is not an array");
    uint32_t at = out->child_len;
    SQE_TRY(agg_list_copy_out(l, idx, from, n, &out->children[0], at, err));
    out->child_len = at + n;
    VEC_DATA(out, sqe_list_entry)[row] = (sqe_list_entry){at, n};
    vec_set_valid(out, row);
    return SQE_OK;
}

/* ---- Hashing and equality ---------------------------------------------------------------- */

#define AGG_NULL_HASH 0x2545f4914f6cdd1dULL

uint64_t agg_value_hash(const vec *v, uint32_t row) {
    uint32_t p;
    const vec *f = vec_resolve(v, row, &p);
    if (!vec_is_valid_flat(f, p)) return AGG_NULL_HASH;
    switch (agg_phys_of(f->type)) {
    case AGG_P_NONE: return AGG_NULL_HASH;
    case AGG_P_BOOL: return agg_hash_i64(VEC_DATA(f, const uint8_t)[p]);
    case AGG_P_I8: return agg_hash_i64(VEC_DATA(f, const int8_t)[p]);
    case AGG_P_I16: return agg_hash_i64(VEC_DATA(f, const int16_t)[p]);
    case AGG_P_I32: return agg_hash_i64(VEC_DATA(f, const int32_t)[p]);
    case AGG_P_I64: return agg_hash_i64(VEC_DATA(f, const int64_t)[p]);
    case AGG_P_I128: return agg_hash_i128(VEC_DATA(f, const int128)[p]);
    case AGG_P_F32: return agg_hash_f64(VEC_DATA(f, const float)[p]);
    case AGG_P_F64: return agg_hash_f64(VEC_DATA(f, const double)[p]);
    case AGG_P_UUID: return hash_bytes(VEC_DATA(f, const agg_uuid)[p].bytes, 16);
    case AGG_P_TSTZ: return agg_hash_i64(VEC_DATA(f, const sqe_timestamp_tz)[p].micros);
    case AGG_P_STR: return agg_hash_str(&VEC_DATA(f, const sqe_str)[p]);
    case AGG_P_NESTED: break;
    }
    if (f->type.id == TYPE_ROW) {
        uint64_t h = 0x9e3779b97f4a7c15ULL;
        for (uint32_t c = 0; c < f->n_children; c++) h = hash_combine(h, agg_value_hash(&f->children[c], p));
        return h;
    }
    sqe_list_entry e = VEC_DATA(f, const sqe_list_entry)[p];
    uint64_t h = hash_u64(e.length);
    if (f->type.id == TYPE_ARRAY) {
        for (uint32_t i = 0; i < e.length; i++)
            h = hash_combine(h, agg_value_hash(&f->children[0], e.offset + i));
        return h;
    }
    /* MAP: equal maps may list their entries in any order, so add the entry hashes up. */
    uint64_t sum = 0;
    for (uint32_t i = 0; i < e.length; i++)
        sum += hash_combine(agg_value_hash(&f->children[0], e.offset + i),
                            agg_value_hash(&f->children[1], e.offset + i));
    return hash_combine(h, sum);
}

static bool map_equal(const vec *a, sqe_list_entry ea, const vec *b, sqe_list_entry eb) {
    if (ea.length != eb.length) return false;
    for (uint32_t i = 0; i < ea.length; i++) {
        bool found = false;
        for (uint32_t j = 0; j < eb.length && !found; j++) {
            if (!agg_value_equal(&a->children[0], ea.offset + i, &b->children[0], eb.offset + j)) continue;
            if (!agg_value_equal(&a->children[1], ea.offset + i, &b->children[1], eb.offset + j)) return false;
            found = true;
        }
        if (!found) return false;
    }
    return true;
}

bool agg_value_equal(const vec *a, uint32_t row_a, const vec *b, uint32_t row_b) {
    uint32_t pa, pb;
    const vec *fa = vec_resolve(a, row_a, &pa);
    const vec *fb = vec_resolve(b, row_b, &pb);
    bool va = vec_is_valid_flat(fa, pa), vb = vec_is_valid_flat(fb, pb);
    if (!va || !vb) return va == vb;
#define SAME(ctype) (VEC_DATA(fa, const ctype)[pa] == VEC_DATA(fb, const ctype)[pb])
    switch (agg_phys_of(fa->type)) {
    case AGG_P_NONE: return true;
    case AGG_P_BOOL: return SAME(uint8_t);
    case AGG_P_I8: return SAME(int8_t);
    case AGG_P_I16: return SAME(int16_t);
    case AGG_P_I32: return SAME(int32_t);
    case AGG_P_I64: return SAME(int64_t);
    case AGG_P_I128: return SAME(int128);
    case AGG_P_F32: {
        float x = VEC_DATA(fa, const float)[pa], y = VEC_DATA(fb, const float)[pb];
        return x == y || (isnan(x) && isnan(y));
    }
    case AGG_P_F64: {
        double x = VEC_DATA(fa, const double)[pa], y = VEC_DATA(fb, const double)[pb];
        return x == y || (isnan(x) && isnan(y));
    }
    case AGG_P_UUID: return memcmp(VEC_DATA(fa, const agg_uuid)[pa].bytes, VEC_DATA(fb, const agg_uuid)[pb].bytes, 16) == 0;
    case AGG_P_TSTZ:
        return VEC_DATA(fa, const sqe_timestamp_tz)[pa].micros == VEC_DATA(fb, const sqe_timestamp_tz)[pb].micros;
    case AGG_P_STR: return sqe_str_equal(&VEC_DATA(fa, const sqe_str)[pa], &VEC_DATA(fb, const sqe_str)[pb]);
    case AGG_P_NESTED: break;
    }
#undef SAME
    if (fa->type.id == TYPE_ROW) {
        for (uint32_t c = 0; c < fa->n_children && c < fb->n_children; c++)
            if (!agg_value_equal(&fa->children[c], pa, &fb->children[c], pb)) return false;
        return true;
    }
    sqe_list_entry ea = VEC_DATA(fa, const sqe_list_entry)[pa];
    sqe_list_entry eb = VEC_DATA(fb, const sqe_list_entry)[pb];
    if (fa->type.id == TYPE_MAP) return map_equal(fa, ea, fb, eb);
    if (ea.length != eb.length) return false;
    for (uint32_t i = 0; i < ea.length; i++)
        if (!agg_value_equal(&fa->children[0], ea.offset + i, &fb->children[0], eb.offset + i)) return false;
    return true;
}

/* ---- Key sets ---------------------------------------------------------------------------- */

/* Doubles the index (at least 16 slots) and re-inserts every key. */
static int keyset_grow_slots(agg_keyset *ks, sqe_error *err) {
    uint32_t n_slots = ks->n_slots ? ks->n_slots * 2 : 16;
    if (n_slots == 0) return err_set(err, SQE_ERR_EXCEEDED_MEMORY_LIMIT, "too many distinct values");
    uint32_t *slots = mem_calloc(ks->tracker, (size_t)n_slots * sizeof *slots, err);
    if (!slots) return alloc_failed(err);
    uint32_t mask = n_slots - 1;
    for (uint32_t k = 0; k < ks->keys.n; k++) {
        uint32_t pos = (uint32_t)ks->hashes[k] & mask;
        while (slots[pos]) pos = (pos + 1) & mask;
        slots[pos] = k + 1;
    }
    mem_free(ks->tracker, ks->slots);
    ks->slots = slots;
    ks->n_slots = n_slots;
    return SQE_OK;
}

int agg_keyset_add(agg_keyset *ks, const vec *src, uint32_t row, uint32_t *idx, bool *added,
                   mem_tracker *tracker, sqe_error *err) {
    if (!ks->tracker) ks->tracker = tracker;
    if ((uint64_t)(ks->keys.n + 1) * 2 > ks->n_slots) SQE_TRY(keyset_grow_slots(ks, err));
    uint64_t h = agg_value_hash(src, row);
    uint32_t mask = ks->n_slots - 1;
    uint32_t pos = (uint32_t)h & mask;
    for (uint32_t s; (s = ks->slots[pos]) != 0; pos = (pos + 1) & mask) {
        if (ks->hashes[s - 1] == h && agg_value_equal(src, row, ks->keys.v, s - 1)) {
            *idx = s - 1;
            *added = false;
            return SQE_OK;
        }
    }
    if (ks->keys.n == ks->hash_cap) {
        uint32_t cap = ks->hash_cap ? ks->hash_cap * 2 : 8;
        uint64_t *hashes = mem_realloc(ks->tracker, ks->hashes, (size_t)cap * sizeof *hashes, err);
        if (!hashes) return alloc_failed(err);
        ks->hashes = hashes;
        ks->hash_cap = cap;
    }
    SQE_TRY(agg_list_append(&ks->keys, src, row, tracker, err));
    uint32_t k = ks->keys.n - 1;
    ks->hashes[k] = h;
    ks->slots[pos] = k + 1;
    *idx = k;
    *added = true;
    return SQE_OK;
}

void agg_keyset_free(agg_keyset *ks) {
    agg_list_free(&ks->keys);
    mem_free(ks->tracker, ks->hashes);
    mem_free(ks->tracker, ks->slots);
    memset(ks, 0, sizeof *ks);
}

/* Grows a uint32/int64 side array of a keyed state to hold at least n entries. */
static int side_array_reserve(void **arr, uint32_t *cap, uint32_t n, size_t elem,
                              mem_tracker *tracker, sqe_error *err) {
    if (n <= *cap) return SQE_OK;
    uint32_t c = *cap ? *cap : 8;
    while (c < n) c = c > UINT32_MAX / 2 ? n : c * 2;
    void *p = mem_realloc(tracker, *arr, (size_t)c * elem, err);
    if (!p) return alloc_failed(err);
    *arr = p;
    *cap = c;
    return SQE_OK;
}

/* ---- array_agg(T) -> array(T) ------------------------------------------------------------- */

typedef struct array_agg_state {
    agg_list list;
} array_agg_state;

AGG_ZERO_INIT(array_agg_init, array_agg_state)

static int array_agg_update(func_ctx *ctx, const vec *const *args, uint32_t n_args,
                            const uint32_t *sel, uint32_t count, uint8_t **states) {
    FUNC_FOR_ROWS(sel, count, row) {
        array_agg_state *s = (array_agg_state *)states[row];
        SQE_TRY(agg_list_append(&s->list, args[0], row, ctx->tracker, ctx->err));
    }
    return SQE_OK;
}

static int array_agg_combine(func_ctx *ctx, const uint8_t *src, uint8_t *dst) {
    const array_agg_state *a = (const array_agg_state *)src;
    return agg_list_append_all(&((array_agg_state *)dst)->list, &a->list, ctx->tracker, ctx->err);
}

static int array_agg_finalize(func_ctx *ctx, const uint8_t *state, vec *out, uint32_t row) {
    const array_agg_state *s = (const array_agg_state *)state;
    if (s->list.n == 0) return agg_set_null(ctx, out, row);
    return agg_write_array(out, row, &s->list, NULL, 0, s->list.n, ctx->err);
}

static void array_agg_destroy(uint8_t *state) { agg_list_free(&((array_agg_state *)state)->list); }

/* ---- listagg(varchar[, varchar]) -> varchar ---------------------------------------------- */

typedef struct listagg_state {
    agg_cell sep;          /* the separator, captured from the first non-NULL row */
    char *buf;             /* the result so far */
    uint32_t len, cap;
    int64_t n;             /* values appended */
    mem_tracker *tracker;  /* what buf is charged to */
} listagg_state;

AGG_ZERO_INIT(listagg_init, listagg_state)

/* Appends [sep] + bytes to s->buf. */
static int listagg_append(listagg_state *s, const char *sep, uint32_t sep_len, const char *p,
                          uint32_t len, mem_tracker *tracker, sqe_error *err) {
    uint64_t need = (uint64_t)s->len + sep_len + len;
    if (need > INT32_MAX) return err_set(err, SQE_ERR_EXCEEDED_MEMORY_LIMIT, "listagg result exceeds 2 GB");
    if (need > s->cap) {
        if (!s->tracker) s->tracker = tracker;
        uint64_t cap = s->cap ? s->cap : 64;
        while (cap < need) cap *= 2;
        char *b = mem_realloc(s->tracker, s->buf, (size_t)cap, err);
        if (!b) return alloc_failed(err);
        s->buf = b;
        s->cap = (uint32_t)cap;
    }
    if (sep_len) memcpy(s->buf + s->len, sep, sep_len);
    if (len) memcpy(s->buf + s->len + sep_len, p, len);
    s->len = (uint32_t)need;
    return SQE_OK;
}

static int listagg_update(func_ctx *ctx, const vec *const *args, uint32_t n_args,
                          const uint32_t *sel, uint32_t count, uint8_t **states) {
    vec_view u, us = {0};
    vec_view_init(&u, args[0]);
    if (n_args > 1) vec_view_init(&us, args[1]);
    FUNC_FOR_ROWS(sel, count, row) {
        uint32_t i = vec_view_index(&u, row);
        if (!agg_valid_at(&u, i)) continue;
        listagg_state *s = (listagg_state *)states[row];
        if (s->sep.kind == AGG_CELL_EMPTY) {
            sqe_str empty;
            memset(&empty, 0, sizeof empty);
            const sqe_str *sep = &empty;
            if (n_args > 1) {
                uint32_t j = vec_view_index(&us, row);
                if (agg_valid_at(&us, j)) sep = &((const sqe_str *)us.data)[j];
            }
            SQE_TRY(agg_cell_set_str(&s->sep, sep, ctx->tracker, ctx->err));
        }
        const sqe_str *x = &((const sqe_str *)u.data)[i];
        uint32_t sep_len = s->n ? s->sep.v.str.len : 0;
        SQE_TRY(listagg_append(s, sqe_str_data(&s->sep.v.str), sep_len, sqe_str_data(x), x->len,
                               ctx->tracker, ctx->err));
        s->n++;
    }
    return SQE_OK;
}

static int listagg_combine(func_ctx *ctx, const uint8_t *src, uint8_t *dst) {
    const listagg_state *a = (const listagg_state *)src;
    listagg_state *d = (listagg_state *)dst;
    if (a->n == 0) return SQE_OK;
    if (d->sep.kind == AGG_CELL_EMPTY) SQE_TRY(agg_cell_copy(&d->sep, &a->sep, ctx->tracker, ctx->err));
    uint32_t sep_len = d->n ? d->sep.v.str.len : 0;
    SQE_TRY(listagg_append(d, sqe_str_data(&d->sep.v.str), sep_len, a->buf, a->len, ctx->tracker,
                           ctx->err));
    d->n += a->n;
    return SQE_OK;
}

static int listagg_finalize(func_ctx *ctx, const uint8_t *state, vec *out, uint32_t row) {
    const listagg_state *s = (const listagg_state *)state;
    if (s->n == 0) return agg_set_null(ctx, out, row);
    bool ok = true;
    VEC_DATA(out, sqe_str)[row] = vec_str_copy(out, s->buf ? s->buf : "", s->len, &ok);
    if (!ok) return agg_nomem(ctx, "listagg result");
    vec_set_valid(out, row);
    return SQE_OK;
}

static void listagg_destroy(uint8_t *state) {
    listagg_state *s = (listagg_state *)state;
    agg_cell_free(&s->sep);
    if (s->buf) mem_free(s->tracker, s->buf);
    memset(s, 0, sizeof *s);
}

/* ---- map_agg(K, V) -> map(K, V) ---------------------------------------------------------- */

typedef struct map_agg_state {
    agg_keyset keys;
    agg_list values; /* values[i] belongs to key i */
} map_agg_state;

AGG_ZERO_INIT(map_agg_init, map_agg_state)

static int map_agg_add(func_ctx *ctx, map_agg_state *s, const vec *keys, uint32_t key_row,
                       const vec *values, uint32_t value_row) {
    uint32_t idx;
    bool added;
    SQE_TRY(agg_keyset_add(&s->keys, keys, key_row, &idx, &added, ctx->tracker, ctx->err));
    if (added) SQE_TRY(agg_list_append(&s->values, values, value_row, ctx->tracker, ctx->err));
    return SQE_OK;
}

static int map_agg_update(func_ctx *ctx, const vec *const *args, uint32_t n_args,
                          const uint32_t *sel, uint32_t count, uint8_t **states) {
    vec_view uk;
    vec_view_init(&uk, args[0]);
    FUNC_FOR_ROWS(sel, count, row) {
        if (!agg_valid_at(&uk, vec_view_index(&uk, row))) continue;
        SQE_TRY(map_agg_add(ctx, (map_agg_state *)states[row], args[0], row, args[1], row));
    }
    return SQE_OK;
}

static int map_agg_combine(func_ctx *ctx, const uint8_t *src, uint8_t *dst) {
    const map_agg_state *a = (const map_agg_state *)src;
    for (uint32_t i = 0; i < a->keys.keys.n; i++)
        SQE_TRY(map_agg_add(ctx, (map_agg_state *)dst, a->keys.keys.v, i, a->values.v, i));
    return SQE_OK;
}

/* Starts a map value at out[row] with n entries; returns the child index of its first entry. */
static int map_begin(func_ctx *ctx, vec *out, uint32_t row, uint32_t n, uint32_t *at) {
    if (out->type.id != TYPE_MAP || out->n_children < 2)
        return err_set(ctx->err, SQE_ERR_GENERIC_INTERNAL_ERROR, "aggregate result is not a map");
    *at = out->child_len;
    if (*at > UINT32_MAX - n) return err_set(ctx->err, SQE_ERR_EXCEEDED_MEMORY_LIMIT, "result too large");
    VEC_DATA(out, sqe_list_entry)[row] = (sqe_list_entry){*at, n};
    vec_set_valid(out, row);
    return SQE_OK;
}

static int map_agg_finalize(func_ctx *ctx, const uint8_t *state, vec *out, uint32_t row) {
    const map_agg_state *s = (const map_agg_state *)state;
    uint32_t n = s->keys.keys.n, at = 0;
    if (n == 0) return agg_set_null(ctx, out, row);
    SQE_TRY(map_begin(ctx, out, row, n, &at));
    SQE_TRY(agg_list_copy_out(&s->keys.keys, NULL, 0, n, &out->children[0], at, ctx->err));
    SQE_TRY(agg_list_copy_out(&s->values, NULL, 0, n, &out->children[1], at, ctx->err));
    out->child_len = at + n;
    return SQE_OK;
}

static void map_agg_destroy(uint8_t *state) {
    map_agg_state *s = (map_agg_state *)state;
    agg_keyset_free(&s->keys);
    agg_list_free(&s->values);
}

/* ---- multimap_agg(K, V) -> map(K, array(V)) --------------------------------------------- */

typedef struct multimap_state {
    agg_keyset keys;
    agg_list values;       /* every value, in encounter order */
    uint32_t *key_of;      /* key number of each value */
    uint32_t key_of_cap;
    mem_tracker *tracker;  /* what key_of is charged to */
} multimap_state;

AGG_ZERO_INIT(multimap_init, multimap_state)

static int multimap_add(func_ctx *ctx, multimap_state *s, const vec *keys, uint32_t key_row,
                        const vec *values, uint32_t value_row) {
    uint32_t idx;
    bool added;
    SQE_TRY(agg_keyset_add(&s->keys, keys, key_row, &idx, &added, ctx->tracker, ctx->err));
    if (!s->tracker) s->tracker = ctx->tracker;
    SQE_TRY(side_array_reserve((void **)&s->key_of, &s->key_of_cap, s->values.n + 1,
                               sizeof *s->key_of, s->tracker, ctx->err));
    SQE_TRY(agg_list_append(&s->values, values, value_row, ctx->tracker, ctx->err));
    s->key_of[s->values.n - 1] = idx;
    return SQE_OK;
}

static int multimap_update(func_ctx *ctx, const vec *const *args, uint32_t n_args,
                           const uint32_t *sel, uint32_t count, uint8_t **states) {
    vec_view uk;
    vec_view_init(&uk, args[0]);
    FUNC_FOR_ROWS(sel, count, row) {
        if (!agg_valid_at(&uk, vec_view_index(&uk, row))) continue;
        SQE_TRY(multimap_add(ctx, (multimap_state *)states[row], args[0], row, args[1], row));
    }
    return SQE_OK;
}

static int multimap_combine(func_ctx *ctx, const uint8_t *src, uint8_t *dst) {
    const multimap_state *a = (const multimap_state *)src;
    for (uint32_t i = 0; i < a->values.n; i++)
        SQE_TRY(multimap_add(ctx, (multimap_state *)dst, a->keys.keys.v, a->key_of[i], a->values.v, i));
    return SQE_OK;
}

static int multimap_finalize(func_ctx *ctx, const uint8_t *state, vec *out, uint32_t row) {
    const multimap_state *s = (const multimap_state *)state;
    uint32_t nk = s->keys.keys.n, nv = s->values.n, at = 0;
    if (nk == 0) return agg_set_null(ctx, out, row);
    /* Counting sort of the values by key, keeping encounter order within a key. */
    uint32_t *start = mem_calloc(ctx->tracker, ((size_t)nk + 1) * sizeof *start, ctx->err);
    uint32_t *order = start ? mem_alloc(ctx->tracker, (size_t)nv * sizeof *order, ctx->err) : NULL;
    int rc = order ? SQE_OK : alloc_failed(ctx->err);
    if (rc == SQE_OK) {
        for (uint32_t i = 0; i < nv; i++) start[s->key_of[i] + 1]++;
        for (uint32_t k = 0; k < nk; k++) start[k + 1] += start[k];
        uint32_t *fill = start; /* reuse: fill[k] advances from start[k] to start[k + 1] */
        for (uint32_t i = 0; i < nv; i++) order[fill[s->key_of[i]]++] = i;
        /* fill[k] is now the old start[k + 1]; the run of key k is [fill[k-1], fill[k]). */
        rc = map_begin(ctx, out, row, nk, &at);
        if (rc == SQE_OK) rc = agg_list_copy_out(&s->keys.keys, NULL, 0, nk, &out->children[0], at, ctx->err);
        vec *arrays = &out->children[1];
        if (rc == SQE_OK && arrays->type.id != TYPE_ARRAY)
            rc = err_set(ctx->err, SQE_ERR_GENERIC_INTERNAL_ERROR, "multimap_agg result values are not arrays");
        if (rc == SQE_OK) rc = vec_reserve(arrays, at + nk, ctx->err);
        for (uint32_t k = 0; k < nk && rc == SQE_OK; k++) {
            uint32_t from = k ? fill[k - 1] : 0;
            rc = agg_write_array(arrays, at + k, &s->values, order + from, 0, fill[k] - from, ctx->err);
        }
        if (rc == SQE_OK) out->child_len = at + nk;
    }
    mem_free(ctx->tracker, order);
    mem_free(ctx->tracker, start);
    return rc;
}

static void multimap_destroy(uint8_t *state) {
    multimap_state *s = (multimap_state *)state;
    agg_keyset_free(&s->keys);
    agg_list_free(&s->values);
    mem_free(s->tracker, s->key_of);
    memset(s, 0, sizeof *s);
}

/* ---- histogram(T) -> map(T, bigint) ------------------------------------------------------ */

typedef struct histogram_state {
    agg_keyset keys;
    int64_t *counts;       /* counts[i] for key i */
    uint32_t counts_cap;
    mem_tracker *tracker;  /* what counts is charged to */
} histogram_state;

AGG_ZERO_INIT(histogram_init, histogram_state)

static int histogram_add(func_ctx *ctx, histogram_state *s, const vec *src, uint32_t row, int64_t n) {
    uint32_t idx;
    bool added;
    SQE_TRY(agg_keyset_add(&s->keys, src, row, &idx, &added, ctx->tracker, ctx->err));
    if (added) {
        if (!s->tracker) s->tracker = ctx->tracker;
        SQE_TRY(side_array_reserve((void **)&s->counts, &s->counts_cap, idx + 1, sizeof *s->counts,
                                   s->tracker, ctx->err));
        s->counts[idx] = 0;
    }
    s->counts[idx] += n;
    return SQE_OK;
}

static int histogram_update(func_ctx *ctx, const vec *const *args, uint32_t n_args,
                            const uint32_t *sel, uint32_t count, uint8_t **states) {
    vec_view u;
    vec_view_init(&u, args[0]);
    FUNC_FOR_ROWS(sel, count, row) {
        if (!agg_valid_at(&u, vec_view_index(&u, row))) continue;
        SQE_TRY(histogram_add(ctx, (histogram_state *)states[row], args[0], row, 1));
    }
    return SQE_OK;
}

static int histogram_combine(func_ctx *ctx, const uint8_t *src, uint8_t *dst) {
    const histogram_state *a = (const histogram_state *)src;
    for (uint32_t i = 0; i < a->keys.keys.n; i++)
        SQE_TRY(histogram_add(ctx, (histogram_state *)dst, a->keys.keys.v, i, a->counts[i]));
    return SQE_OK;
}

static int histogram_finalize(func_ctx *ctx, const uint8_t *state, vec *out, uint32_t row) {
    const histogram_state *s = (const histogram_state *)state;
    uint32_t n = s->keys.keys.n, at = 0;
    if (n == 0) return agg_set_null(ctx, out, row);
    SQE_TRY(map_begin(ctx, out, row, n, &at));
    SQE_TRY(agg_list_copy_out(&s->keys.keys, NULL, 0, n, &out->children[0], at, ctx->err));
    vec *counts = &out->children[1];
    SQE_TRY(vec_reserve(counts, at + n, ctx->err));
    for (uint32_t i = 0; i < n; i++) {
        VEC_DATA(counts, int64_t)[at + i] = s->counts[i];
        vec_set_valid(counts, at + i);
    }
    out->child_len = at + n;
    return SQE_OK;
}

static void histogram_destroy(uint8_t *state) {
    histogram_state *s = (histogram_state *)state;
    agg_keyset_free(&s->keys);
    mem_free(s->tracker, s->counts);
    memset(s, 0, sizeof *s);
}

/* ---- Table ------------------------------------------------------------------------------- */

#define COLLECT(name, args, ret, prefix, state, desc)                                              \
    {name, args, ret, NULL, NULL, AGG_STATE_SIZE(state), prefix##_init, prefix##_update,           \
     prefix##_combine, prefix##_finalize, prefix##_destroy, 0, desc}

static const func_agg_def collect_defs[] = {
    COLLECT("array_agg", "T", "array(T)", array_agg, array_agg_state,
            "Array of the input values in encounter order, NULLs included"),
    COLLECT("listagg", "varchar,varchar", "varchar", listagg, listagg_state,
            "Concatenation of the non-NULL values, separated by the second argument"),
    COLLECT("listagg", "varchar", "varchar", listagg, listagg_state,
            "Concatenation of the non-NULL values"),
    COLLECT("map_agg", "K,V", "map(K,V)", map_agg, map_agg_state,
            "Map from the keys to their first value; NULL keys are skipped"),
    COLLECT("multimap_agg", "K,V", "map(K,array(V))", multimap, multimap_state,
            "Map from each key to the array of its values"),
    COLLECT("histogram", "T", "map(T,bigint)", histogram, histogram_state,
            "Map from each distinct non-NULL value to the number of times it occurs"),
};

const func_agg_def *func_agg_family_collect(uint32_t *count) {
    *count = (uint32_t)(sizeof collect_defs / sizeof collect_defs[0]);
    return collect_defs;
}
