/*
 * hashtable.c: row-format storage, vector hashing and the salted open-addressing hash tables
 * shared by the hash join, hash aggregation, DISTINCT and set operations (see hashtable.h).
 *
 * INTERFACE: exec_key_kind_of, exec_row_width_of,
 *   exec_hash_vec, exec_row_layout_init, exec_row_store_init/destroy/append,
 *   exec_row_scatter, exec_row_gather, exec_row_copy, exec_row_field_equal, exec_ht_init/
 *   destroy/clear/capacity_for/resize, exec_keys_compare_vec, exec_agg_ht_find_or_create,
 *   exec_ht_find_rows, exec_ht_merge_rows, exec_join_ht_insert, exec_join_ht_probe,
 *   exec_chunk_copy, exec_chunk_free.
 * NOTES: the hot loops (hashing, scatter, gather, key comparison) switch on the key kind once
 *   per column and then run a tight loop over the rows; nothing calls through a function pointer
 *   per row. Floats hash and compare with -0 = 0 and NaN = NaN (GROUP BY semantics); timestamps
 *   with time zone by their instant. Nested values (array/map/row) take a generic recursive path.
 *   Entries keep a 16-bit salt from the top of the hash; the slot comes from the low bits and the
 *   radix partition from bits 40..47, so the three are independent.
 */
#include "exec/hashtable.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"
#include "exec/ops.h"

int exec_alloc_error(mem_tracker *t, size_t n, sqe_error *err, const char *what) {
    n += (size_t)1 << 20; /* arena blocks grow up to 1 MiB beyond the request */
    if (mem_charge(t, (int64_t)n, err) != SQE_OK) return err ? err->code : SQE_ERR_EXCEEDED_MEMORY_LIMIT;
    mem_release(t, (int64_t)n);
    return err_nomem(err, what);
}

/* --------------------------------------------------------------------------------------------
 * Key kinds, hashing of single values
 * ------------------------------------------------------------------------------------------ */

exec_key_kind exec_key_kind_of(sqe_type t) {
    switch (t.id) {
    case TYPE_BOOLEAN:
    case TYPE_TINYINT:
    case TYPE_UNKNOWN:
        return EXEC_KEY_U8;
    case TYPE_SMALLINT:
        return EXEC_KEY_I16;
    case TYPE_INTEGER:
    case TYPE_DATE:
    case TYPE_INTERVAL_YM:
        return EXEC_KEY_I32;
    case TYPE_BIGINT:
    case TYPE_TIME:
    case TYPE_TIMESTAMP:
    case TYPE_INTERVAL_DS:
        return EXEC_KEY_I64;
    case TYPE_DECIMAL:
        return type_decimal_is_long(t) ? EXEC_KEY_I128 : EXEC_KEY_I64;
    case TYPE_UUID:
        return EXEC_KEY_I128;
    case TYPE_REAL:
        return EXEC_KEY_F32;
    case TYPE_DOUBLE:
        return EXEC_KEY_F64;
    case TYPE_TIMESTAMP_TZ:
        return EXEC_KEY_TSTZ;
    case TYPE_VARCHAR:
    case TYPE_CHAR:
    case TYPE_VARBINARY:
    case TYPE_JSON:
        return EXEC_KEY_STR;
    default:
        return EXEC_KEY_NESTED;
    }
}

uint32_t exec_row_width_of(sqe_type t) {
    switch (exec_key_kind_of(t)) {
    case EXEC_KEY_U8: return 1;
    case EXEC_KEY_I16: return 2;
    case EXEC_KEY_I32:
    case EXEC_KEY_F32: return 4;
    case EXEC_KEY_I64:
    case EXEC_KEY_F64: return 8;
    default: return 16;
    }
}

static inline uint64_t canon_f64_bits(double d) {
    if (d == 0) return 0;
    if (d != d) return 0x7ff8000000000000ULL;
    uint64_t b;
    memcpy(&b, &d, 8);
    return b;
}
static inline uint32_t canon_f32_bits(float f) {
    if (f == 0) return 0;
    if (f != f) return 0x7fc00000u;
    uint32_t b;
    memcpy(&b, &f, 4);
    return b;
}
/* Strings of up to 12 bytes are hashed from their 16-byte view (bytes past the length masked
 * off), longer ones from their bytes; the length decides which, so equal strings agree. */
static inline __attribute__((always_inline)) uint64_t hash_str(const sqe_str *s) {
    uint32_t len = s->len;
    if (len > SQE_STR_INLINE) return hash_bytes(s->u.ptr, len);
    uint64_t w0, w1;
    memcpy(&w0, s, 8);
    memcpy(&w1, (const char *)s + 8, 8);
    uint64_t m0 = len >= 4 ? ~0ULL : (((1ULL << (8 * len)) - 1) << 32) | 0xffffffffULL;
    uint64_t m1 = len >= 12 ? ~0ULL : len <= 4 ? 0 : (1ULL << (8 * (len - 4))) - 1;
    return hash_u64(hash_mix128((w0 & m0) ^ 0x8ebc6af09c88c6e3ULL, (w1 & m1) ^ 0x589965cc75374cc3ULL));
}
static inline uint64_t hash_i128(const uint8_t *p) {
    uint64_t lo, hi;
    memcpy(&lo, p, 8);
    memcpy(&hi, p + 8, 8);
    return hash_combine(hash_u64(lo), hi);
}

static uint64_t nested_hash(const vec *v, uint32_t row);

/* Hash of value at logical row `row` of any-shaped vector (slow generic path). */
static uint64_t value_hash_any(const vec *v, uint32_t row) {
    uint32_t phys;
    const vec *flat = vec_resolve(v, row, &phys);
    if (!vec_is_valid_flat(flat, phys) || flat->type.id == TYPE_UNKNOWN) return EXEC_HASH_NULL;
    const uint8_t *d = flat->data;
    switch (exec_key_kind_of(flat->type)) {
    case EXEC_KEY_U8: return hash_u64(d[phys]);
    case EXEC_KEY_I16: return hash_u64((uint64_t)(int64_t)((const int16_t *)d)[phys]);
    case EXEC_KEY_I32: return hash_u64((uint64_t)(int64_t)((const int32_t *)d)[phys]);
    case EXEC_KEY_I64: return hash_u64((uint64_t)((const int64_t *)d)[phys]);
    case EXEC_KEY_I128: return hash_i128(d + 16 * (size_t)phys);
    case EXEC_KEY_F32: return hash_u64(canon_f32_bits(((const float *)d)[phys]));
    case EXEC_KEY_F64: return hash_u64(canon_f64_bits(((const double *)d)[phys]));
    case EXEC_KEY_TSTZ: return hash_u64((uint64_t)((const sqe_timestamp_tz *)d)[phys].micros);
    case EXEC_KEY_STR: return hash_str(&((const sqe_str *)d)[phys]);
    default: return nested_hash(flat, phys);
    }
}

static uint64_t nested_hash(const vec *v, uint32_t phys) {
    uint64_t h = 0x1234567ULL + v->type.id;
    if (v->type.id == TYPE_ROW) {
        for (uint32_t c = 0; c < v->n_children; c++)
            h = hash_combine(h, value_hash_any(&v->children[c], phys));
        return h;
    }
    sqe_list_entry e = ((const sqe_list_entry *)v->data)[phys];
    h = hash_combine(h, e.length);
    for (uint32_t i = 0; i < e.length; i++)
        for (uint32_t c = 0; c < v->n_children; c++)
            h = hash_combine(h, value_hash_any(&v->children[c], e.offset + i));
    return h;
}

static bool nested_equal(const vec *a, uint32_t ra, const vec *b, uint32_t rb);

/* Equality of two values (logical rows of any-shaped vectors of the same type); NULL = NULL. */
static bool value_equal_any(const vec *a, uint32_t ra, const vec *b, uint32_t rb) {
    uint32_t pa, pb;
    const vec *fa = vec_resolve(a, ra, &pa);
    const vec *fb = vec_resolve(b, rb, &pb);
    bool na = !vec_is_valid_flat(fa, pa) || fa->type.id == TYPE_UNKNOWN;
    bool nb = !vec_is_valid_flat(fb, pb) || fb->type.id == TYPE_UNKNOWN;
    if (na || nb) return na && nb;
    const uint8_t *da = fa->data, *db = fb->data;
    switch (exec_key_kind_of(fa->type)) {
    case EXEC_KEY_U8: return da[pa] == db[pb];
    case EXEC_KEY_I16: return ((const int16_t *)da)[pa] == ((const int16_t *)db)[pb];
    case EXEC_KEY_I32: return ((const int32_t *)da)[pa] == ((const int32_t *)db)[pb];
    case EXEC_KEY_I64: return ((const int64_t *)da)[pa] == ((const int64_t *)db)[pb];
    case EXEC_KEY_I128: return memcmp(da + 16 * (size_t)pa, db + 16 * (size_t)pb, 16) == 0;
    case EXEC_KEY_F32:
        return canon_f32_bits(((const float *)da)[pa]) == canon_f32_bits(((const float *)db)[pb]);
    case EXEC_KEY_F64:
        return canon_f64_bits(((const double *)da)[pa]) == canon_f64_bits(((const double *)db)[pb]);
    case EXEC_KEY_TSTZ:
        return ((const sqe_timestamp_tz *)da)[pa].micros == ((const sqe_timestamp_tz *)db)[pb].micros;
    case EXEC_KEY_STR:
        return sqe_str_equal(&((const sqe_str *)da)[pa], &((const sqe_str *)db)[pb]);
    default: return nested_equal(fa, pa, fb, pb);
    }
}

static bool nested_equal(const vec *a, uint32_t pa, const vec *b, uint32_t pb) {
    if (a->type.id == TYPE_ROW) {
        if (a->n_children != b->n_children) return false;
        for (uint32_t c = 0; c < a->n_children; c++)
            if (!value_equal_any(&a->children[c], pa, &b->children[c], pb)) return false;
        return true;
    }
    sqe_list_entry ea = ((const sqe_list_entry *)a->data)[pa];
    sqe_list_entry eb = ((const sqe_list_entry *)b->data)[pb];
    if (ea.length != eb.length || a->n_children != b->n_children) return false;
    for (uint32_t i = 0; i < ea.length; i++)
        for (uint32_t c = 0; c < a->n_children; c++)
            if (!value_equal_any(&a->children[c], ea.offset + i, &b->children[c], eb.offset + i))
                return false;
    return true;
}

/* --------------------------------------------------------------------------------------------
 * Vector hashing
 * ------------------------------------------------------------------------------------------ */

#define HASH_LOOP(EXPR)                                                                            \
    do {                                                                                           \
        for (uint32_t i = 0; i < count; i++) {                                                     \
            uint32_t r = sel ? sel[i] : i;                                                         \
            uint32_t idx = vec_view_index_composed(&w, r);                                         \
            uint64_t h = vec_view_valid_at(&w, idx) ? (EXPR) : EXEC_HASH_NULL;                     \
            hashes[i] = combine ? hash_combine(hashes[i], h) : h;                                  \
        }                                                                                          \
    } while (0)

void exec_hash_vec(const vec *v, const uint32_t *sel, uint32_t count, uint64_t *hashes,
                   bool combine) {
    if (count == 0) return;
    if (v->shape == VEC_CONST) {
        uint64_t h = value_hash_any(v, 0);
        for (uint32_t i = 0; i < count; i++) hashes[i] = combine ? hash_combine(hashes[i], h) : h;
        return;
    }
    /* views of dictionaries over dictionaries need an index buffer as long as the rows the
     * selection reaches; plain flat/dict vectors do not */
    vec_view w;
    uint32_t *buf = NULL;
    if (v->shape == VEC_DICT && v->dict->shape != VEC_FLAT) {
        uint32_t maxr = 0;
        for (uint32_t i = 0; i < count; i++) {
            uint32_t r = sel ? sel[i] : i;
            if (r > maxr) maxr = r;
        }
        buf = malloc(sizeof(uint32_t) * ((size_t)maxr + 1));
        if (!buf) {
            for (uint32_t i = 0; i < count; i++) {
                uint64_t h = value_hash_any(v, sel ? sel[i] : i);
                hashes[i] = combine ? hash_combine(hashes[i], h) : h;
            }
            return;
        }
        vec_view_init_buf(&w, v, maxr + 1, buf);
    } else {
        vec_view_init(&w, v);
    }
    const uint8_t *d = w.data;
    if (v->type.id == TYPE_UNKNOWN) {
        for (uint32_t i = 0; i < count; i++)
            hashes[i] = combine ? hash_combine(hashes[i], EXEC_HASH_NULL) : EXEC_HASH_NULL;
        free(buf);
        return;
    }
    switch (exec_key_kind_of(v->type)) {
    case EXEC_KEY_U8: HASH_LOOP(hash_u64(d[idx])); break;
    case EXEC_KEY_I16: HASH_LOOP(hash_u64((uint64_t)(int64_t)((const int16_t *)d)[idx])); break;
    case EXEC_KEY_I32: HASH_LOOP(hash_u64((uint64_t)(int64_t)((const int32_t *)d)[idx])); break;
    case EXEC_KEY_I64: HASH_LOOP(hash_u64((uint64_t)((const int64_t *)d)[idx])); break;
    case EXEC_KEY_I128: HASH_LOOP(hash_i128(d + 16 * (size_t)idx)); break;
    case EXEC_KEY_F32: HASH_LOOP(hash_u64(canon_f32_bits(((const float *)d)[idx]))); break;
    case EXEC_KEY_F64: HASH_LOOP(hash_u64(canon_f64_bits(((const double *)d)[idx]))); break;
    case EXEC_KEY_TSTZ:
        HASH_LOOP(hash_u64((uint64_t)((const sqe_timestamp_tz *)d)[idx].micros));
        break;
    case EXEC_KEY_STR: HASH_LOOP(hash_str(&((const sqe_str *)d)[idx])); break;
    default: HASH_LOOP(nested_hash(w.flat, idx)); break;
    }
    free(buf);
}

/* --------------------------------------------------------------------------------------------
 * Row layouts and stores
 * ------------------------------------------------------------------------------------------ */

static int layout_init(exec_row_layout *l, arena *a, const sqe_type *types, uint32_t n_fields,
                       uint32_t header, uint32_t payload_size, sqe_error *err) {
    memset(l, 0, sizeof *l);
    l->n_fields = n_fields;
    if (n_fields) {
        l->types = arena_memdup(a, types, sizeof(sqe_type) * n_fields);
        l->kinds = arena_alloc(a, n_fields);
        l->offsets = arena_alloc(a, sizeof(uint32_t) * n_fields);
        if (!l->types || !l->kinds || !l->offsets) return err_nomem(err, "row layout");
    }
    uint32_t off = header;
    for (uint32_t f = 0; f < n_fields; f++) {
        uint32_t w = exec_row_width_of(types[f]);
        uint32_t al = w >= 8 ? 8 : w;
        off = (off + al - 1) / al * al;
        l->offsets[f] = off;
        l->kinds[f] = (uint8_t)exec_key_kind_of(types[f]);
        if (l->kinds[f] == EXEC_KEY_NESTED) l->has_nested = true;
        off += w;
    }
    l->null_offset = off;
    off += (n_fields + 7) / 8;
    uint32_t align = payload_size ? 16 : 8; /* aggregate states need 16 */
    off = (off + align - 1) & ~(align - 1);
    l->payload_offset = off;
    l->payload_size = payload_size;
    off += payload_size;
    l->row_width = (off + align - 1) & ~(align - 1);
    if (l->row_width == 0) l->row_width = 8;
    return SQE_OK;
}

int exec_row_layout_init(exec_row_layout *l, arena *a, const sqe_type *types, uint32_t n_fields,
                         bool with_next, uint32_t payload_size, sqe_error *err) {
    return layout_init(l, a, types, n_fields, with_next ? 16 : 8, payload_size, err);
}

int exec_row_layout_init_plain(exec_row_layout *l, arena *a, const sqe_type *types,
                               uint32_t n_fields, sqe_error *err) {
    return layout_init(l, a, types, n_fields, 0, 0, err);
}

void exec_row_store_init(exec_row_store *s, const exec_row_layout *l, mem_tracker *tracker) {
    memset(s, 0, sizeof *s);
    s->layout = l;
    s->tracker = tracker;
    s->next_cap = 64;
    arena_init(&s->heap, tracker);
}

void exec_row_store_destroy(exec_row_store *s) {
    exec_row_block *b = s->head;
    while (b) {
        exec_row_block *n = b->next;
        mem_free(s->tracker, b);
        b = n;
    }
    arena_destroy(&s->heap);
    s->str_cur = NULL;
    s->str_left = 0;
    for (uint32_t i = 0; i < s->n_side; i++) {
        vec_destroy(s->side[i]);
        mem_free(s->tracker, s->side[i]);
    }
    mem_free(s->tracker, s->side);
    s->side = NULL;
    s->n_side = s->cap_side = 0;
    s->head = s->tail = NULL;
    s->n_rows = 0;
}

static int store_new_block(exec_row_store *s, sqe_error *err) {
    uint32_t w = s->layout->row_width;
    uint32_t cap = s->next_cap;
    uint32_t max_cap = (256u * 1024u) / w;
    if (max_cap < 64) max_cap = 64;
    if (cap > max_cap) cap = max_cap;
    exec_row_block *b = mem_alloc(s->tracker, sizeof(exec_row_block) + (size_t)cap * w, err);
    if (!b) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
    b->next = NULL;
    b->n_rows = 0;
    b->cap_rows = cap;
    if (s->tail)
        s->tail->next = b;
    else
        s->head = b;
    s->tail = b;
    if (s->next_cap < max_cap) s->next_cap *= 2;
    return SQE_OK;
}

int exec_row_store_append(exec_row_store *s, uint32_t n, uint8_t **rows, sqe_error *err) {
    uint32_t w = s->layout->row_width;
    uint32_t done = 0;
    while (done < n) {
        if (!s->tail || s->tail->n_rows == s->tail->cap_rows) SQE_TRY(store_new_block(s, err));
        exec_row_block *b = s->tail;
        uint32_t take = b->cap_rows - b->n_rows;
        if (take > n - done) take = n - done;
        uint8_t *p = b->rows + (size_t)b->n_rows * w;
        /* fields are always written (scatter): narrow rows are cleared in one call, wide ones
         * only in their header, NULL bitmap and payload */
        if (w <= 64) {
            memset(p, 0, (size_t)take * w);
            for (uint32_t i = 0; i < take; i++) rows[done + i] = p + (size_t)i * w;
        } else {
            uint32_t z0 = s->layout->n_fields ? s->layout->offsets[0] : s->layout->null_offset;
            uint32_t z1 = s->layout->null_offset;
            for (uint32_t i = 0; i < take; i++) {
                uint8_t *row = p + (size_t)i * w;
                rows[done + i] = row;
                memset(row, 0, z0);
                memset(row + z1, 0, w - z1);
            }
        }
        b->n_rows += take;
        s->n_rows += take;
        done += take;
    }
    return SQE_OK;
}

/* Appends one zeroed row (fast path for find-or-create). */
static inline uint8_t *store_append_one(exec_row_store *s, sqe_error *err) {
    exec_row_block *b = s->tail;
    uint32_t w = s->layout->row_width;
    if (!b || b->n_rows == b->cap_rows) {
        if (store_new_block(s, err) != SQE_OK) return NULL;
        b = s->tail;
    }
    uint8_t *p = b->rows + (size_t)b->n_rows * w;
    memset(p, 0, w);
    b->n_rows++;
    s->n_rows++;
    return p;
}

static int side_store(exec_row_store *s, const vec *src, uint32_t src_row, exec_row_nested_ref *ref,
                      sqe_type type, sqe_error *err) {
    vec *cur = s->n_side ? s->side[s->n_side - 1] : NULL;
    if (!cur || s->side_used >= VEC_CHUNK_SIZE || !type_equal(cur->type, type)) {
        if (s->n_side == s->cap_side) {
            uint32_t cap = s->cap_side ? s->cap_side * 2 : 8;
            vec **p = mem_realloc(s->tracker, s->side, sizeof(vec *) * cap, err);
            if (!p) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
            s->side = p;
            s->cap_side = cap;
        }
        cur = mem_alloc(s->tracker, sizeof(vec), err);
        if (!cur) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
        int rc = vec_init(cur, type, VEC_CHUNK_SIZE, s->tracker, err);
        if (rc) {
            vec_destroy(cur);
            mem_free(s->tracker, cur);
            return rc;
        }
        s->side[s->n_side++] = cur;
        s->side_used = 0;
    }
    SQE_TRY(vec_copy_row(cur, s->side_used, src, src_row, err));
    ref->store = cur;
    ref->idx = s->side_used++;
    ref->pad_ = 0;
    return SQE_OK;
}

/* len bytes for a string kept by the store: carved without alignment from 32 KiB heap blocks
 * (long strings get a block of their own). */
static char *store_str_alloc(exec_row_store *s, uint32_t len) {
    if (len > 4096) return arena_alloc(&s->heap, len);
    if (len > s->str_left) {
        s->str_cur = arena_alloc(&s->heap, 32768);
        if (!s->str_cur) {
            s->str_left = 0;
            return NULL;
        }
        s->str_left = 32768;
    }
    char *p = s->str_cur;
    s->str_cur += len;
    s->str_left -= len;
    return p;
}

static inline void row_set_null(const exec_row_layout *l, uint8_t *row, uint32_t f) {
    row[l->null_offset + (f >> 3)] |= (uint8_t)(1u << (f & 7));
}
static inline void row_clear_null(const exec_row_layout *l, uint8_t *row, uint32_t f) {
    row[l->null_offset + (f >> 3)] &= (uint8_t)~(1u << (f & 7));
}

#define SCATTER_LOOP(CTYPE)                                                                        \
    do {                                                                                           \
        const CTYPE *src = (const CTYPE *)w.data;                                                  \
        for (uint32_t i = 0; i < count; i++) {                                                     \
            uint32_t r = sel ? sel[i] : i;                                                         \
            uint32_t idx = vec_view_index_composed(&w, r);                                         \
            uint8_t *row = rows[i];                                                                \
            if (vec_view_valid_at(&w, idx)) {                                                      \
                memcpy(row + off, &src[idx], sizeof(CTYPE));                                       \
                row_clear_null(l, row, f);                                                         \
            } else {                                                                               \
                row_set_null(l, row, f);                                                           \
                memset(row + off, 0, sizeof(CTYPE));                                               \
            }                                                                                      \
        }                                                                                          \
    } while (0)

int exec_row_scatter(exec_row_store *s, uint32_t f, const vec *v, const uint32_t *sel,
                     uint32_t count, uint8_t *const *rows, sqe_error *err) {
    const exec_row_layout *l = s->layout;
    uint32_t off = l->offsets[f];
    if (count == 0) return SQE_OK;
    if (v->type.id == TYPE_UNKNOWN) {
        for (uint32_t i = 0; i < count; i++) row_set_null(l, rows[i], f);
        return SQE_OK;
    }
    vec_view w;
    uint32_t *buf = NULL;
    uint32_t maxr = 0;
    if (v->shape != VEC_FLAT && !(v->shape == VEC_DICT && v->dict->shape == VEC_FLAT)) {
        for (uint32_t i = 0; i < count; i++) {
            uint32_t r = sel ? sel[i] : i;
            if (r > maxr) maxr = r;
        }
        buf = mem_alloc(s->tracker, sizeof(uint32_t) * ((size_t)maxr + 1), err);
        if (!buf) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
    }
    vec_view_init_buf(&w, v, buf ? maxr + 1 : 0, buf);
    int rc = SQE_OK;
    switch (l->kinds[f]) {
    case EXEC_KEY_U8: SCATTER_LOOP(uint8_t); break;
    case EXEC_KEY_I16: SCATTER_LOOP(int16_t); break;
    case EXEC_KEY_I32: SCATTER_LOOP(int32_t); break;
    case EXEC_KEY_F32: SCATTER_LOOP(float); break;
    case EXEC_KEY_I64: SCATTER_LOOP(int64_t); break;
    case EXEC_KEY_F64: SCATTER_LOOP(double); break;
    case EXEC_KEY_I128: SCATTER_LOOP(int128); break;
    case EXEC_KEY_TSTZ: SCATTER_LOOP(sqe_timestamp_tz); break;
    case EXEC_KEY_STR: {
        const sqe_str *src = (const sqe_str *)w.data;
        for (uint32_t i = 0; i < count; i++) {
            uint32_t r = sel ? sel[i] : i;
            uint32_t idx = vec_view_index_composed(&w, r);
            uint8_t *row = rows[i];
            if (!vec_view_valid_at(&w, idx)) {
                row_set_null(l, row, f);
                memset(row + off, 0, sizeof(sqe_str));
                continue;
            }
            sqe_str sv = src[idx];
            row_clear_null(l, row, f);
            if (sv.len > SQE_STR_INLINE) {
                char *p = store_str_alloc(s, sv.len);
                if (!p) {
                    rc = exec_alloc_error(s->tracker, sv.len, err, "hash table strings");
                    break;
                }
                memcpy(p, sv.u.ptr, sv.len);
                sv.u.ptr = p;
            } else {
                /* normalize the inline padding so equal strings have equal views */
                sqe_str clean = sqe_str_make(sqe_str_data(&src[idx]), sv.len);
                sv = clean;
            }
            memcpy(row + off, &sv, sizeof sv);
        }
        break;
    }
    default: {
        for (uint32_t i = 0; i < count && rc == SQE_OK; i++) {
            uint32_t r = sel ? sel[i] : i;
            uint32_t idx = vec_view_index_composed(&w, r);
            uint8_t *row = rows[i];
            if (!vec_view_valid_at(&w, idx)) {
                row_set_null(l, row, f);
                memset(row + off, 0, sizeof(exec_row_nested_ref));
                continue;
            }
            exec_row_nested_ref ref;
            row_clear_null(l, row, f);
            rc = side_store(s, w.flat, idx, &ref, l->types[f], err);
            if (rc == SQE_OK) memcpy(row + off, &ref, sizeof ref);
        }
        break;
    }
    }
    mem_free(s->tracker, buf);
    return rc;
}

#define GATHER_LOOP(CTYPE)                                                                         \
    do {                                                                                           \
        CTYPE *dst = (CTYPE *)out->data + out_offset;                                              \
        for (uint32_t i = 0; i < count; i++) {                                                     \
            const uint8_t *row = rows[i];                                                          \
            if (row && !exec_row_is_null(l, row, f)) {                                             \
                memcpy(&dst[i], row + off, sizeof(CTYPE));                                         \
                if (valid) valid[(out_offset + i) >> 6] |= 1ULL << ((out_offset + i) & 63);       \
            } else {                                                                               \
                if (!valid) {                                                                      \
                    valid = vec_validity_make(out);                                                \
                    if (!valid) return exec_alloc_error(out->tracker, 0, err, "validity");                                 \
                }                                                                                  \
                valid[(out_offset + i) >> 6] &= ~(1ULL << ((out_offset + i) & 63));               \
                memset(&dst[i], 0, sizeof(CTYPE));                                                 \
            }                                                                                      \
        }                                                                                          \
    } while (0)

int exec_row_gather(const exec_row_layout *l, uint32_t f, uint8_t *const *rows, uint32_t count,
                    vec *out, uint32_t out_offset, sqe_error *err) {
    uint32_t off = l->offsets[f];
    uint64_t *valid = out->validity;
    if (l->types[f].id == TYPE_UNKNOWN) {
        for (uint32_t i = 0; i < count; i++)
            if (vec_set_null(out, out_offset + i) != SQE_OK) return exec_alloc_error(out->tracker, 0, err, "validity");
        return SQE_OK;
    }
    switch (l->kinds[f]) {
    case EXEC_KEY_U8: GATHER_LOOP(uint8_t); break;
    case EXEC_KEY_I16: GATHER_LOOP(int16_t); break;
    case EXEC_KEY_I32: GATHER_LOOP(int32_t); break;
    case EXEC_KEY_F32: GATHER_LOOP(float); break;
    case EXEC_KEY_I64: GATHER_LOOP(int64_t); break;
    case EXEC_KEY_F64: GATHER_LOOP(double); break;
    case EXEC_KEY_I128: GATHER_LOOP(int128); break;
    case EXEC_KEY_TSTZ: GATHER_LOOP(sqe_timestamp_tz); break;
    case EXEC_KEY_STR: GATHER_LOOP(sqe_str); break;
    default:
        for (uint32_t i = 0; i < count; i++) {
            const uint8_t *row = rows[i];
            if (row && !exec_row_is_null(l, row, f)) {
                exec_row_nested_ref ref;
                memcpy(&ref, row + off, sizeof ref);
                SQE_TRY(vec_copy_row(out, out_offset + i, ref.store, ref.idx, err));
            } else if (vec_set_null(out, out_offset + i) != SQE_OK) {
                return exec_alloc_error(out->tracker, 0, err, "validity");
            }
        }
        break;
    }
    return SQE_OK;
}

int exec_row_copy(exec_row_store *s, const uint8_t *src, uint8_t **out, sqe_error *err) {
    const exec_row_layout *l = s->layout;
    uint8_t *row = store_append_one(s, err);
    if (!row) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
    memcpy(row, src, l->row_width);
    for (uint32_t f = 0; f < l->n_fields; f++) {
        if (exec_row_is_null(l, row, f)) continue;
        if (l->kinds[f] == EXEC_KEY_STR) {
            sqe_str sv;
            memcpy(&sv, row + l->offsets[f], sizeof sv);
            if (sv.len > SQE_STR_INLINE) {
                char *p = store_str_alloc(s, sv.len);
                if (!p) return exec_alloc_error(s->tracker, sv.len, err, "row strings");
                memcpy(p, sv.u.ptr, sv.len);
                sv.u.ptr = p;
                memcpy(row + l->offsets[f], &sv, sizeof sv);
            }
        } else if (l->kinds[f] == EXEC_KEY_NESTED) {
            exec_row_nested_ref ref, now;
            memcpy(&ref, row + l->offsets[f], sizeof ref);
            SQE_TRY(side_store(s, ref.store, ref.idx, &now, l->types[f], err));
            memcpy(row + l->offsets[f], &now, sizeof now);
        }
    }
    *out = row;
    return SQE_OK;
}

static inline bool field_equal_kind(uint8_t kind, const uint8_t *pa, const uint8_t *pb) {
    switch (kind) {
    case EXEC_KEY_U8: return *pa == *pb;
    case EXEC_KEY_I16: return memcmp(pa, pb, 2) == 0;
    case EXEC_KEY_I32: return memcmp(pa, pb, 4) == 0;
    case EXEC_KEY_I64: return memcmp(pa, pb, 8) == 0;
    case EXEC_KEY_I128: return memcmp(pa, pb, 16) == 0;
    case EXEC_KEY_F32: {
        float x, y;
        memcpy(&x, pa, 4);
        memcpy(&y, pb, 4);
        return canon_f32_bits(x) == canon_f32_bits(y);
    }
    case EXEC_KEY_F64: {
        double x, y;
        memcpy(&x, pa, 8);
        memcpy(&y, pb, 8);
        return canon_f64_bits(x) == canon_f64_bits(y);
    }
    case EXEC_KEY_TSTZ: return memcmp(pa, pb, 8) == 0;
    case EXEC_KEY_STR: {
        sqe_str x, y;
        memcpy(&x, pa, sizeof x);
        memcpy(&y, pb, sizeof y);
        return sqe_str_equal(&x, &y);
    }
    default: {
        exec_row_nested_ref x, y;
        memcpy(&x, pa, sizeof x);
        memcpy(&y, pb, sizeof y);
        return value_equal_any(x.store, x.idx, y.store, y.idx);
    }
    }
}

bool exec_row_field_equal(const exec_row_layout *la, const uint8_t *a, uint32_t fa,
                          const exec_row_layout *lb, const uint8_t *b, uint32_t fb) {
    bool na = exec_row_is_null(la, a, fa), nb = exec_row_is_null(lb, b, fb);
    if (na || nb) return na && nb;
    return field_equal_kind(la->kinds[fa], a + la->offsets[fa], b + lb->offsets[fb]);
}

bool exec_row_field_equal_value(const exec_row_layout *l, const uint8_t *row, uint32_t f,
                                const vec *flat, uint32_t idx) {
    if (exec_row_is_null(l, row, f) || !vec_is_valid_flat(flat, idx)) return false;
    if (l->kinds[f] == EXEC_KEY_NESTED) {
        exec_row_nested_ref ref;
        memcpy(&ref, row + l->offsets[f], sizeof ref);
        return value_equal_any(ref.store, ref.idx, flat, idx);
    }
    size_t w = type_physical_size(flat->type);
    return field_equal_kind(l->kinds[f], row + l->offsets[f], (const uint8_t *)flat->data + w * idx);
}

/* Keys 0..n_keys of two rows of the same layout. */
static inline bool rows_keys_equal(const exec_row_layout *l, uint32_t n_keys, const uint8_t *a,
                                   const uint8_t *b) {
    for (uint32_t k = 0; k < n_keys; k++) {
        bool na = exec_row_is_null(l, a, k), nb = exec_row_is_null(l, b, k);
        if (na || nb) {
            if (na != nb) return false;
            continue;
        }
        uint32_t off = l->offsets[k];
        if (!field_equal_kind(l->kinds[k], a + off, b + off)) return false;
    }
    return true;
}

static bool rows_keys_equal2(const exec_row_layout *la, const uint8_t *a, uint32_t n_keys,
                             const exec_row_layout *lb, const uint32_t *fb, const uint8_t *b) {
    for (uint32_t k = 0; k < n_keys; k++)
        if (!exec_row_field_equal(la, a, k, lb, b, fb ? fb[k] : k)) return false;
    return true;
}

/* --------------------------------------------------------------------------------------------
 * Directory
 * ------------------------------------------------------------------------------------------ */

/* Slots: the region of a hash is its radix partition (bits 40..), the slot within the region
 * comes from the low bits, and linear probing wraps around inside the region. A directory with
 * one region is a plain power-of-two table. */
#define HT_LOCALS(ht)                                                                              \
    const uint64_t rmask = (ht)->rmask, pmask = (ht)->pmask;                                       \
    const uint32_t rbits = (ht)->rbits
#define SLOT(h) (((((h) >> 40) & pmask) << rbits) | ((h)&rmask))
#define NEXT(s) (((s) & ~rmask) | (((s) + 1) & rmask))

static uint32_t log2_of(uint64_t pow2) { return (uint32_t)__builtin_ctzll(pow2); }

int exec_ht_init_regions(exec_ht *ht, uint64_t region_capacity, uint32_t part_bits,
                         mem_tracker *tracker, sqe_error *err) {
    memset(ht, 0, sizeof *ht);
    ht->tracker = tracker;
    if (region_capacity < 16) region_capacity = 16;
    uint64_t capacity = region_capacity << part_bits;
    ht->entries = mem_calloc(tracker, sizeof(uint64_t) * capacity, err);
    if (!ht->entries) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
    ht->mask = capacity - 1;
    ht->rmask = region_capacity - 1;
    ht->rbits = log2_of(region_capacity);
    ht->pmask = part_bits ? (1ULL << part_bits) - 1 : 0;
    return SQE_OK;
}

int exec_ht_init(exec_ht *ht, uint64_t capacity, mem_tracker *tracker, sqe_error *err) {
    return exec_ht_init_regions(ht, capacity, 0, tracker, err);
}

void exec_ht_destroy(exec_ht *ht) {
    mem_free(ht->tracker, ht->entries);
    ht->entries = NULL;
    ht->count = 0;
    ht->mask = 0;
}

void exec_ht_clear(exec_ht *ht) {
    memset(ht->entries, 0, sizeof(uint64_t) * (ht->mask + 1));
    ht->count = 0;
}

uint64_t exec_ht_capacity_for(uint64_t n) {
    uint64_t c = 16;
    while (c < 2 * n) c <<= 1;
    return c;
}

int exec_ht_resize(exec_ht *ht, uint64_t new_capacity, sqe_error *err) {
    uint64_t *ne = mem_calloc(ht->tracker, sizeof(uint64_t) * new_capacity, err);
    if (!ne) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
    uint32_t part_bits = ht->pmask ? (uint32_t)__builtin_popcountll(ht->pmask) : 0;
    exec_ht old = *ht;
    ht->entries = ne;
    ht->mask = new_capacity - 1;
    ht->rmask = (new_capacity >> part_bits) - 1;
    ht->rbits = log2_of(new_capacity >> part_bits);
    HT_LOCALS(ht);
    for (uint64_t i = 0; i <= old.mask; i++) {
        uint64_t e = old.entries[i];
        if (!e) continue;
        uint64_t h = exec_row_hash(exec_ht_entry_row(e));
        uint64_t s = SLOT(h);
        while (ne[s]) s = NEXT(s);
        ne[s] = e;
    }
    mem_free(ht->tracker, old.entries);
    return SQE_OK;
}

/* --------------------------------------------------------------------------------------------
 * Vectorized key comparison (vector values against row fields)
 * ------------------------------------------------------------------------------------------ */

#define CMP_LOOP(EQ)                                                                               \
    do {                                                                                           \
        for (uint32_t j = 0; j < n_cur; j++) {                                                     \
            uint32_t p = cur[j];                                                                   \
            const uint8_t *row = rows[p];                                                          \
            uint32_t r = rowidx ? rowidx[p] : p;                                                   \
            uint32_t idx = vec_view_index_composed(w, r);                                          \
            bool rn = exec_row_is_null(l, row, k);                                                 \
            bool vn = !vec_view_valid_at(w, idx);                                                  \
            bool eq;                                                                               \
            if (rn | vn)                                                                           \
                eq = rn & vn;                                                                      \
            else {                                                                                 \
                const uint8_t *rp = row + off;                                                     \
                eq = (EQ);                                                                         \
            }                                                                                      \
            if (eq)                                                                                \
                keep[n_keep++] = p;                                                                \
            else                                                                                   \
                miss[nm++] = p;                                                                    \
        }                                                                                          \
    } while (0)

static inline bool eq_f32(const uint8_t *rp, float b) {
    float a;
    memcpy(&a, rp, 4);
    return canon_f32_bits(a) == canon_f32_bits(b);
}
static inline bool eq_f64(const uint8_t *rp, double b) {
    double a;
    memcpy(&a, rp, 8);
    return canon_f64_bits(a) == canon_f64_bits(b);
}
/* String equality on views: the first 8 bytes hold the length and the 4-byte prefix; short
 * strings (zero-padded views, as sqe_str_make makes them) compare in their second 8 bytes,
 * long ones by their bytes. */
static inline bool eq_str(const uint8_t *rp, const sqe_str *b) {
    uint64_t a0, a1, b0, b1;
    memcpy(&a0, rp, 8);
    memcpy(&b0, b, 8);
    if (a0 != b0) return false;
    uint32_t len = (uint32_t)a0;
    if (len <= SQE_STR_INLINE) {
        memcpy(&a1, rp + 8, 8);
        memcpy(&b1, (const uint8_t *)b + 8, 8);
        return a1 == b1;
    }
    const char *ap;
    memcpy(&ap, rp + 8, sizeof ap);
    return memcmp(ap, b->u.ptr, len) == 0;
}
static inline bool eq_nested(const uint8_t *rp, const vec *flat, uint32_t idx) {
    exec_row_nested_ref ref;
    memcpy(&ref, rp, sizeof ref);
    return value_equal_any(ref.store, ref.idx, flat, idx);
}
static inline int16_t ld16(const uint8_t *p) {
    int16_t v;
    memcpy(&v, p, 2);
    return v;
}
static inline int32_t ld32(const uint8_t *p) {
    int32_t v;
    memcpy(&v, p, 4);
    return v;
}
static inline int64_t ld64(const uint8_t *p) {
    int64_t v;
    memcpy(&v, p, 8);
    return v;
}

uint32_t exec_keys_compare_vec(const exec_row_layout *l, uint32_t n_keys, const vec_view *keys,
                               const uint32_t *rowidx, uint8_t *const *rows, const uint32_t *cand,
                               uint32_t n, uint32_t *match, uint32_t *miss, uint32_t *n_miss) {
    uint32_t nm = 0;
    const uint32_t *cur = cand;
    uint32_t n_cur = n;
    for (uint32_t k = 0; k < n_keys; k++) {
        const vec_view wk = keys[k]; /* a local copy: its fields stay in registers */
        const vec_view *w = &wk;
        const uint8_t *d = w->data;
        uint32_t off = l->offsets[k];
        uint32_t *keep = match; /* filtering in place is safe: keep never overtakes cur */
        uint32_t n_keep = 0;
        if (l->types[k].id == TYPE_UNKNOWN) {
            CMP_LOOP(((void)rp, true));
        } else {
            switch (l->kinds[k]) {
            case EXEC_KEY_U8: CMP_LOOP(*rp == d[idx]); break;
            case EXEC_KEY_I16: CMP_LOOP(ld16(rp) == ((const int16_t *)d)[idx]); break;
            case EXEC_KEY_I32: CMP_LOOP(ld32(rp) == ((const int32_t *)d)[idx]); break;
            case EXEC_KEY_I64: CMP_LOOP(ld64(rp) == ((const int64_t *)d)[idx]); break;
            case EXEC_KEY_I128: CMP_LOOP(memcmp(rp, d + 16 * (size_t)idx, 16) == 0); break;
            case EXEC_KEY_F32: CMP_LOOP(eq_f32(rp, ((const float *)d)[idx])); break;
            case EXEC_KEY_F64: CMP_LOOP(eq_f64(rp, ((const double *)d)[idx])); break;
            case EXEC_KEY_TSTZ:
                CMP_LOOP(ld64(rp) == ((const sqe_timestamp_tz *)d)[idx].micros);
                break;
            case EXEC_KEY_STR: CMP_LOOP(eq_str(rp, &((const sqe_str *)d)[idx])); break;
            default: CMP_LOOP(eq_nested(rp, w->flat, idx)); break;
            }
        }
        cur = match;
        n_cur = n_keep;
    }
    if (n_keys == 0 && match != cand) memcpy(match, cand, sizeof(uint32_t) * n);
    if (n_keys == 0) n_cur = n;
    *n_miss = nm;
    return n_cur;
}

/* --------------------------------------------------------------------------------------------
 * Aggregation: find or create groups
 * ------------------------------------------------------------------------------------------ */

int exec_agg_ht_find_or_create(exec_ht *ht, const exec_row_layout *l, uint32_t n_keys,
                               const vec_view *keys, const vec *const *key_vecs,
                               const uint32_t *rowidx, const uint64_t *hashes, uint32_t count,
                               exec_row_store *stores, uint32_t radix_bits, uint8_t **rows_out,
                               uint32_t *new_idx, uint32_t *n_new, exec_ht_scratch *sc,
                               sqe_error *err) {
    uint64_t *entries = ht->entries;
    HT_LOCALS(ht);
    uint32_t *todo = sc->todo;
    uint32_t n_todo = count;
    uint32_t total_new = 0;
    for (uint32_t i = 0; i < count; i++) {
        todo[i] = i;
        sc->slots[i] = SLOT(hashes[i]);
        __builtin_prefetch(&entries[sc->slots[i]]);
    }
    while (n_todo) {
        uint32_t n_cand = 0, n_round_new = 0;
        for (uint32_t j = 0; j < n_todo; j++) {
            uint32_t t = todo[j];
            uint64_t h = hashes[t];
            uint64_t salt = EXEC_HT_SALT(h);
            uint64_t s = sc->slots[t];
            for (;;) {
                uint64_t e = entries[s];
                if (!e) {
                    uint8_t *row = store_append_one(&stores[exec_radix_of(h, radix_bits)], err);
                    if (!row) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
                    memcpy(row + EXEC_ROW_HASH, &h, 8);
                    entries[s] = salt | ((uint64_t)(uintptr_t)row & EXEC_HT_PTR_MASK);
                    ht->count++;
                    rows_out[t] = row;
                    sc->newi[n_round_new] = rowidx ? rowidx[t] : t;
                    sc->new_rows[n_round_new++] = row;
                    new_idx[total_new++] = t;
                    break;
                }
                if (EXEC_HT_SALT(e) == salt) {
                    sc->cand[n_cand++] = t;
                    sc->cand_rows[t] = exec_ht_entry_row(e);
                    if (n_keys) __builtin_prefetch(sc->cand_rows[t] + l->offsets[0]);
                    sc->slots[t] = s;
                    break;
                }
                s = NEXT(s);
            }
        }
        /* write the keys of new groups before comparing: later rows of this batch may have
         * found them */
        for (uint32_t k = 0; k < n_keys && n_round_new; k++)
            SQE_TRY(exec_row_scatter(&stores[0], k, key_vecs[k], sc->newi, n_round_new,
                                     sc->new_rows, err));
        if (!n_cand) break;
        uint32_t n_miss = 0;
        uint32_t n_match = exec_keys_compare_vec(l, n_keys, keys, rowidx, sc->cand_rows, sc->cand,
                                                 n_cand, sc->cand, sc->miss, &n_miss);
        for (uint32_t j = 0; j < n_match; j++) {
            uint32_t t = sc->cand[j];
            rows_out[t] = sc->cand_rows[t];
        }
        for (uint32_t j = 0; j < n_miss; j++) {
            uint32_t t = sc->miss[j];
            sc->slots[t] = NEXT(sc->slots[t]);
            todo[j] = t;
        }
        n_todo = n_miss;
    }
    *n_new = total_new;
    return SQE_OK;
}

/* --------------------------------------------------------------------------------------------
 * Row-vs-row lookups, merges and join inserts
 * ------------------------------------------------------------------------------------------ */

void exec_ht_find_rows(const exec_ht *ht, const exec_row_layout *la, uint32_t n_keys,
                       const exec_row_layout *lb, const uint32_t *key_fields_b,
                       uint8_t *const *probe, const uint64_t *probe_hashes, uint32_t count,
                       uint8_t **rows_out) {
    const uint64_t *entries = ht->entries;
    HT_LOCALS(ht);
    for (uint32_t i = 0; i < count; i++) {
        const uint8_t *pr = probe[i];
        uint64_t h = probe_hashes ? probe_hashes[i] : exec_row_hash(pr);
        uint64_t salt = EXEC_HT_SALT(h);
        uint64_t s = SLOT(h);
        rows_out[i] = NULL;
        for (;;) {
            uint64_t e = entries[s];
            if (!e) break;
            if (EXEC_HT_SALT(e) == salt) {
                uint8_t *row = exec_ht_entry_row(e);
                if (exec_row_hash(row) == h &&
                    rows_keys_equal2(la, row, n_keys, lb, key_fields_b, pr)) {
                    rows_out[i] = row;
                    break;
                }
            }
            s = NEXT(s);
        }
    }
}

void exec_ht_merge_rows(exec_ht *ht, const exec_row_layout *l, uint32_t n_keys,
                        uint8_t *const *rows, uint32_t count, uint8_t **uniq, uint32_t *n_uniq,
                        uint8_t **dups_dst, uint8_t **dups_src, uint32_t *n_dups,
                        exec_ht_scratch *sc) {
    (void)sc;
    uint64_t *entries = ht->entries;
    HT_LOCALS(ht);
    uint32_t nu = 0, nd = 0;
    for (uint32_t i = 0; i < count && i < 8; i++)
        __builtin_prefetch(&entries[SLOT(exec_row_hash(rows[i]))]);
    for (uint32_t i = 0; i < count; i++) {
        uint8_t *pr = rows[i];
        if (i + 8 < count) __builtin_prefetch(&entries[SLOT(exec_row_hash(rows[i + 8]))]);
        uint64_t h = exec_row_hash(pr);
        uint64_t salt = EXEC_HT_SALT(h);
        uint64_t s = SLOT(h);
        for (;;) {
            uint64_t e = entries[s];
            if (!e) {
                entries[s] = salt | ((uint64_t)(uintptr_t)pr & EXEC_HT_PTR_MASK);
                ht->count++;
                uniq[nu++] = pr;
                break;
            }
            if (EXEC_HT_SALT(e) == salt) {
                uint8_t *row = exec_ht_entry_row(e);
                if (exec_row_hash(row) == h && rows_keys_equal(l, n_keys, row, pr)) {
                    dups_dst[nd] = row;
                    dups_src[nd++] = pr;
                    break;
                }
            }
            s = NEXT(s);
        }
    }
    *n_uniq = nu;
    *n_dups = nd;
}

bool exec_join_ht_insert(exec_ht *ht, const exec_row_layout *l, uint32_t n_keys,
                         uint8_t *const *rows, uint32_t count, uint64_t limit, uint64_t *added) {
    uint64_t n_added = 0;
    uint64_t *entries = ht->entries;
    HT_LOCALS(ht);
    for (uint32_t i = 0; i < count && i < 8; i++)
        __builtin_prefetch(&entries[SLOT(exec_row_hash(rows[i]))]);
    for (uint32_t i = 0; i < count; i++) {
        uint8_t *pr = rows[i];
        if (i + 8 < count) __builtin_prefetch(&entries[SLOT(exec_row_hash(rows[i + 8]))]);
        uint64_t h = exec_row_hash(pr);
        uint64_t salt = EXEC_HT_SALT(h);
        uint64_t s = SLOT(h);
        for (;;) {
            uint64_t e = entries[s];
            if (!e) {
                if (n_added >= limit) {
                    *added += n_added;
                    return false;
                }
                entries[s] = salt | ((uint64_t)(uintptr_t)pr & EXEC_HT_PTR_MASK);
                n_added++;
                memset(pr + EXEC_ROW_NEXT, 0, 8);
                break;
            }
            if (EXEC_HT_SALT(e) == salt) {
                uint8_t *head = exec_ht_entry_row(e);
                if (exec_row_hash(head) == h && rows_keys_equal(l, n_keys, head, pr)) {
                    memcpy(pr + EXEC_ROW_NEXT, head + EXEC_ROW_NEXT, 8);
                    memcpy(head + EXEC_ROW_NEXT, &pr, 8);
                    break;
                }
            }
            s = NEXT(s);
        }
    }
    *added += n_added;
    return true;
}

void exec_join_ht_probe(const exec_ht *ht, const exec_row_layout *l, uint32_t n_keys,
                        const vec_view *keys, const uint32_t *rowidx, const uint64_t *hashes,
                        uint32_t count, uint8_t **heads, exec_ht_scratch *sc) {
    const uint64_t *entries = ht->entries;
    HT_LOCALS(ht);
    uint32_t *todo = sc->todo;
    uint32_t n_todo = count;
    for (uint32_t i = 0; i < count; i++) {
        todo[i] = i;
        sc->slots[i] = SLOT(hashes[i]);
        __builtin_prefetch(&entries[sc->slots[i]]);
    }
    while (n_todo) {
        uint32_t n_cand = 0;
        for (uint32_t j = 0; j < n_todo; j++) {
            uint32_t t = todo[j];
            uint64_t salt = EXEC_HT_SALT(hashes[t]);
            uint64_t s = sc->slots[t];
            for (;;) {
                uint64_t e = entries[s];
                if (!e) {
                    heads[t] = NULL;
                    break;
                }
                if (EXEC_HT_SALT(e) == salt) {
                    sc->cand[n_cand++] = t;
                    sc->cand_rows[t] = exec_ht_entry_row(e);
                    __builtin_prefetch(sc->cand_rows[t] + l->offsets[0]);
                    sc->slots[t] = s;
                    break;
                }
                s = NEXT(s);
            }
        }
        if (!n_cand) break;
        uint32_t n_miss = 0;
        uint32_t n_match = exec_keys_compare_vec(l, n_keys, keys, rowidx, sc->cand_rows, sc->cand,
                                                 n_cand, sc->cand, sc->miss, &n_miss);
        for (uint32_t j = 0; j < n_match; j++) {
            uint32_t t = sc->cand[j];
            heads[t] = sc->cand_rows[t];
        }
        for (uint32_t j = 0; j < n_miss; j++) {
            uint32_t t = sc->miss[j];
            sc->slots[t] = NEXT(sc->slots[t]);
            todo[j] = t;
        }
        n_todo = n_miss;
    }
}

/* --------------------------------------------------------------------------------------------
 * Materialized chunks
 * ------------------------------------------------------------------------------------------ */

void exec_chunk_free(vec_chunk *c, mem_tracker *tracker) {
    if (!c) return;
    vec_chunk_destroy(c);
    mem_free(tracker, c);
}

int exec_chunk_copy(const vec_chunk *src, const uint32_t *cols, uint32_t n_cols,
                    const uint32_t *sel, uint32_t count, mem_tracker *tracker, vec_chunk **out,
                    sqe_error *err) {
    if (!cols) n_cols = src->n_cols;
    sqe_type types_buf[64];
    sqe_type *types = n_cols <= 64 ? types_buf : mem_alloc(tracker, sizeof(sqe_type) * n_cols, err);
    if (!types) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
    for (uint32_t c = 0; c < n_cols; c++) types[c] = src->cols[cols ? cols[c] : c].type;
    vec_chunk *ch = mem_calloc(tracker, sizeof(vec_chunk), err);
    int rc = ch ? SQE_OK : (err ? err->code : SQE_ERR_OUT_OF_MEMORY);
    if (rc == SQE_OK) rc = vec_chunk_init(ch, n_cols, types, count ? count : 1, tracker, err);
    for (uint32_t c = 0; c < n_cols && rc == SQE_OK; c++)
        rc = exec_vec_copy(&ch->cols[c], NULL, 0, &src->cols[cols ? cols[c] : c], sel, count, true,
                           err);
    if (types != types_buf) mem_free(tracker, types);
    if (rc != SQE_OK) {
        exec_chunk_free(ch, tracker);
        if (rc == SQE_ERR_OUT_OF_MEMORY) rc = exec_alloc_error(tracker, 0, err, "chunk copy");
        return rc;
    }
    ch->count = count;
    *out = ch;
    return SQE_OK;
}
