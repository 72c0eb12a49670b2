/*
 * sort_keys.c: normalized sort keys, radix sort of key entries, k-way merge and the top-N heap
 * (see sort_keys.h for the encoding).
 *
 * INTERFACE: exec_sort_spec_init, exec_sort_encode, exec_sort_entries, exec_sort_merge,
 *   exec_sort_compare_values, exec_sort_compare_fields, exec_topn_heap_init/destroy/admits/
 *   push/sort.
 * NOTES: the sort is an MSD radix sort over the key bytes: one histogram pass per byte level,
 *   a scatter into a scratch buffer, recursion into every bucket, levels where all entries share
 *   the byte are skipped without moving anything, buckets under 32 entries go to an insertion
 *   sort that compares from the current byte on. Entries whose key bytes are all equal are
 *   ordered by the operator's tie-break (only when a key is truncated). The encoders run one
 *   loop per key kind with the direction folded in (DESC inverts the value bytes).
 */
#include "exec/sort_keys.h"

#include <stdlib.h>
#include <string.h>

#define STR_PREFIX_DEFAULT 16
#define STR_PREFIX_MAX 32

/* --------------------------------------------------------------------------------------------
 * Spec
 * ------------------------------------------------------------------------------------------ */

int exec_sort_spec_init(exec_sort_spec *s, arena *a, const sqe_type *types, const bool *desc,
                        const bool *nulls_first, uint32_t n_keys, sqe_error *err) {
    memset(s, 0, sizeof *s);
    s->n_keys = n_keys;
    s->keys = n_keys ? arena_zalloc(a, sizeof(exec_sort_key) * n_keys) : NULL;
    if (n_keys && !s->keys) return err_nomem(err, "sort keys");
    uint32_t off = 0;
    for (uint32_t k = 0; k < n_keys; k++) {
        exec_sort_key *key = &s->keys[k];
        key->type = types[k];
        key->desc = desc ? desc[k] : false;
        key->nulls_first = nulls_first ? nulls_first[k] : false;
        key->offset = off;
        uint32_t vw;
        if (types[k].id == TYPE_UNKNOWN) {
            vw = 0;
        } else {
            switch (exec_key_kind_of(types[k])) {
            case EXEC_KEY_U8: vw = 1; break;
            case EXEC_KEY_I16: vw = 2; break;
            case EXEC_KEY_I32:
            case EXEC_KEY_F32: vw = 4; break;
            case EXEC_KEY_I64:
            case EXEC_KEY_F64:
            case EXEC_KEY_TSTZ: vw = 8; break;
            case EXEC_KEY_I128: vw = 16; break;
            case EXEC_KEY_STR: {
                uint32_t len = types[k].length;
                /* varchar(n) holds at most 4n bytes; longer values (should the declared length
                 * not hold) still sort right: their length byte marks them truncated */
                if (len > 0 && len <= STR_PREFIX_MAX / 4 && types[k].id != TYPE_VARBINARY &&
                    types[k].id != TYPE_JSON)
                    key->prefix = len * 4;
                else
                    key->prefix = STR_PREFIX_DEFAULT;
                key->truncated = true;
                vw = key->prefix + 1;
                break;
            }
            default:
                vw = 0;
                key->truncated = true;
                break;
            }
        }
        key->width = 1 + vw;
        off += key->width;
        if (key->truncated) s->needs_tiebreak = true;
    }
    s->key_width = off;
    s->entry_width = ((off + 7) & ~7u) + 8;
    return SQE_OK;
}

/* --------------------------------------------------------------------------------------------
 * Encoding
 * ------------------------------------------------------------------------------------------ */

static inline void put_be64(uint8_t *p, uint64_t v) {
    v = __builtin_bswap64(v);
    memcpy(p, &v, 8);
}
static inline void put_be32(uint8_t *p, uint32_t v) {
    v = __builtin_bswap32(v);
    memcpy(p, &v, 4);
}
static inline void put_be16(uint8_t *p, uint16_t v) {
    v = __builtin_bswap16(v);
    memcpy(p, &v, 2);
}
static inline uint64_t f64_key(double d) {
    uint64_t u;
    if (d != d) return 0xFFF8000000000000ULL; /* canonical NaN, above +inf (0xFFF0...) */
    if (d == 0) d = 0.0;
    memcpy(&u, &d, 8);
    return (u >> 63) ? ~u : (u ^ 0x8000000000000000ULL);
}
static inline uint32_t f32_key(float f) {
    uint32_t u;
    if (f != f) return 0xFFC00000u;
    if (f == 0) f = 0.0f;
    memcpy(&u, &f, 4);
    return (u >> 31) ? ~u : (u ^ 0x80000000u);
}

/* Encodes the value bytes (not the NULL byte) of a non-NULL value at flat index idx. */
static inline void encode_value(const exec_sort_key *k, uint8_t kind, const uint8_t *d,
                                uint32_t idx, uint8_t *p) {
    switch (kind) {
    case EXEC_KEY_U8: {
        uint8_t v = d[idx];
        if (k->type.id == TYPE_TINYINT) v ^= 0x80;
        p[0] = k->desc ? (uint8_t)~v : v;
        break;
    }
    case EXEC_KEY_I16: {
        uint16_t v = (uint16_t)((const int16_t *)d)[idx] ^ 0x8000u;
        put_be16(p, k->desc ? (uint16_t)~v : v);
        break;
    }
    case EXEC_KEY_I32: {
        uint32_t v = (uint32_t)((const int32_t *)d)[idx] ^ 0x80000000u;
        put_be32(p, k->desc ? ~v : v);
        break;
    }
    case EXEC_KEY_F32: {
        uint32_t v = f32_key(((const float *)d)[idx]);
        put_be32(p, k->desc ? ~v : v);
        break;
    }
    case EXEC_KEY_I64: {
        uint64_t v = (uint64_t)((const int64_t *)d)[idx] ^ 0x8000000000000000ULL;
        put_be64(p, k->desc ? ~v : v);
        break;
    }
    case EXEC_KEY_F64: {
        uint64_t v = f64_key(((const double *)d)[idx]);
        put_be64(p, k->desc ? ~v : v);
        break;
    }
    case EXEC_KEY_TSTZ: {
        uint64_t v = (uint64_t)((const sqe_timestamp_tz *)d)[idx].micros ^ 0x8000000000000000ULL;
        put_be64(p, k->desc ? ~v : v);
        break;
    }
    case EXEC_KEY_I128: {
        const uint8_t *src = d + 16 * (size_t)idx;
        if (k->type.id == TYPE_UUID) {
            for (int i = 0; i < 16; i++) p[i] = k->desc ? (uint8_t)~src[i] : src[i];
        } else {
            uint64_t lo, hi;
            memcpy(&lo, src, 8);
            memcpy(&hi, src + 8, 8);
            hi ^= 0x8000000000000000ULL;
            if (k->desc) {
                hi = ~hi;
                lo = ~lo;
            }
            put_be64(p, hi);
            put_be64(p + 8, lo);
        }
        break;
    }
    case EXEC_KEY_STR: {
        const sqe_str *sv = &((const sqe_str *)d)[idx];
        uint32_t n = sv->len < k->prefix ? sv->len : k->prefix;
        memcpy(p, sqe_str_data(sv), n);
        memset(p + n, 0, k->prefix - n);
        p[k->prefix] = (uint8_t)(sv->len <= k->prefix ? sv->len : k->prefix + 1);
        if (k->desc)
            for (uint32_t i = 0; i <= k->prefix; i++) p[i] = (uint8_t)~p[i];
        break;
    }
    default:
        break;
    }
}

#define ENCODE_LOOP(KIND)                                                                          \
    for (uint32_t i = 0; i < count; i++) {                                                         \
        uint32_t r = sel ? sel[i] : i;                                                             \
        uint32_t idx = vec_view_index_composed(&w, r);                                             \
        uint8_t *p = entries + (size_t)i * stride + key->offset;                                   \
        if (vec_view_valid_at(&w, idx)) {                                                          \
            p[0] = 1;                                                                              \
            encode_value(key, KIND, w.data, idx, p + 1);                                           \
        } else {                                                                                   \
            p[0] = null_byte;                                                                      \
            memset(p + 1, 0, vw);                                                                  \
        }                                                                                          \
    }

void exec_sort_encode(const exec_sort_spec *s, uint32_t k, const vec *v, const uint32_t *sel,
                      uint32_t count, uint8_t *entries, uint32_t stride) {
    const exec_sort_key *key = &s->keys[k];
    uint8_t null_byte = key->nulls_first ? 0 : 2;
    uint32_t vw = key->width - 1;
    uint8_t kind = (uint8_t)exec_key_kind_of(key->type);
    if (key->type.id == TYPE_UNKNOWN || vw == 0) {
        /* NULL byte only (unknown: always NULL; nested: decided by the tie-break) */
        for (uint32_t i = 0; i < count; i++) {
            uint8_t *p = entries + (size_t)i * stride + key->offset;
            p[0] = key->type.id != TYPE_UNKNOWN && !vec_is_null(v, sel ? sel[i] : i) ? 1 : null_byte;
        }
        return;
    }
    if (v->shape == VEC_CONST || (v->shape == VEC_DICT && v->dict->shape != VEC_FLAT)) {
        for (uint32_t i = 0; i < count; i++) {
            uint32_t phys;
            const vec *flat = vec_resolve(v, sel ? sel[i] : i, &phys);
            uint8_t *p = entries + (size_t)i * stride + key->offset;
            if (vec_is_valid_flat(flat, phys)) {
                p[0] = 1;
                encode_value(key, kind, flat->data, phys, p + 1);
            } else {
                p[0] = null_byte;
                memset(p + 1, 0, vw);
            }
        }
        return;
    }
    vec_view w;
    vec_view_init(&w, v);
    switch (kind) {
    case EXEC_KEY_U8: ENCODE_LOOP(EXEC_KEY_U8) break;
    case EXEC_KEY_I16: ENCODE_LOOP(EXEC_KEY_I16) break;
    case EXEC_KEY_I32: ENCODE_LOOP(EXEC_KEY_I32) break;
    case EXEC_KEY_F32: ENCODE_LOOP(EXEC_KEY_F32) break;
    case EXEC_KEY_I64: ENCODE_LOOP(EXEC_KEY_I64) break;
    case EXEC_KEY_F64: ENCODE_LOOP(EXEC_KEY_F64) break;
    case EXEC_KEY_TSTZ: ENCODE_LOOP(EXEC_KEY_TSTZ) break;
    case EXEC_KEY_I128: ENCODE_LOOP(EXEC_KEY_I128) break;
    case EXEC_KEY_STR: ENCODE_LOOP(EXEC_KEY_STR) break;
    default: break;
    }
}

static inline bool key_truncated(const exec_sort_key *key, const uint8_t *entry) {
    const uint8_t *p = entry + key->offset;
    if (p[0] != 1) return false; /* NULL */
    if (key->width == 1) return true; /* nested: no value bytes */
    uint8_t len = p[1 + key->prefix];
    if (key->desc) len = (uint8_t)~len;
    return len > key->prefix;
}

/* Compares the bytes of two strings after the first `from` (equal) ones. */
static inline int str_suffix_cmp(const sqe_str *a, const sqe_str *b, uint32_t from) {
    uint32_t la = a->len > from ? a->len - from : 0, lb = b->len > from ? b->len - from : 0;
    uint32_t m = la < lb ? la : lb;
    int c = m ? memcmp(sqe_str_data(a) + from, sqe_str_data(b) + from, m) : 0;
    if (c) return c < 0 ? -1 : 1;
    return la < lb ? -1 : la > lb;
}

int exec_sort_cmp_from(const exec_sort_spec *s, const uint8_t *a, const uint8_t *b,
                       uint32_t depth, const exec_sort_ctx *c) {
    uint32_t pos = depth;
    if (c && s->needs_tiebreak) {
        for (uint32_t k = 0; k < s->n_keys; k++) {
            const exec_sort_key *key = &s->keys[k];
            uint32_t end = key->offset + key->width;
            if (!key->truncated || end <= pos) continue;
            int r = memcmp(a + pos, b + pos, end - pos);
            if (r) return r;
            pos = end;
            /* equal bytes through this key: a truncated value needs the real comparison */
            if (!key_truncated(key, a)) continue;
            if (c->str && type_is_string_view(key->type)) {
                r = str_suffix_cmp(c->str(c->ud, a, k), c->str(c->ud, b, k), key->prefix);
                if (r) return key->desc ? -r : r;
                continue;
            }
            if (c->tb) return c->tb(c->ud, a, b);
        }
    }
    return pos < s->key_width ? memcmp(a + pos, b + pos, s->key_width - pos) : 0;
}

/* At byte `depth`, where all entries of a bucket share bytes [0, depth): does a truncated key end
 * exactly here with a truncated value (then only the real values can order the bucket)? Returns
 * the key, or -1. */
static int bucket_needs_tiebreak(const exec_sort_spec *s, const uint8_t *first, uint32_t depth) {
    for (uint32_t k = 0; k < s->n_keys; k++) {
        const exec_sort_key *key = &s->keys[k];
        if (key->truncated && key->offset + key->width == depth && key_truncated(key, first))
            return (int)k;
    }
    return -1;
}

/* --------------------------------------------------------------------------------------------
 * Value comparison (tie-breaks)
 * ------------------------------------------------------------------------------------------ */

static int cmp_raw(sqe_type t, const vec *fa, uint32_t pa, const vec *fb, uint32_t pb);

/* Compares values at logical rows (any shape), NULLs last, ascending. */
static int cmp_any(const vec *a, uint32_t ra, const vec *b, uint32_t rb) {
    uint32_t pa, pb;
    const vec *fa = vec_resolve(a, ra, &pa);
    const vec *fb = vec_resolve(b, rb, &pb);
    bool na = !vec_is_valid_flat(fa, pa) || fa->type.id == TYPE_UNKNOWN;
    bool nb = !vec_is_valid_flat(fb, pb) || fb->type.id == TYPE_UNKNOWN;
    if (na || nb) return na == nb ? 0 : na ? 1 : -1;
    return cmp_raw(fa->type, fa, pa, fb, pb);
}

#define CMP3(x, y) ((x) < (y) ? -1 : (x) > (y))

static int cmp_raw(sqe_type t, const vec *fa, uint32_t pa, const vec *fb, uint32_t pb) {
    const uint8_t *da = fa->data, *db = fb->data;
    switch (exec_key_kind_of(t)) {
    case EXEC_KEY_U8:
        if (t.id == TYPE_TINYINT) return CMP3(((const int8_t *)da)[pa], ((const int8_t *)db)[pb]);
        return CMP3(da[pa], db[pb]);
    case EXEC_KEY_I16: return CMP3(((const int16_t *)da)[pa], ((const int16_t *)db)[pb]);
    case EXEC_KEY_I32: return CMP3(((const int32_t *)da)[pa], ((const int32_t *)db)[pb]);
    case EXEC_KEY_I64: return CMP3(((const int64_t *)da)[pa], ((const int64_t *)db)[pb]);
    case EXEC_KEY_F32: return CMP3(f32_key(((const float *)da)[pa]), f32_key(((const float *)db)[pb]));
    case EXEC_KEY_F64: return CMP3(f64_key(((const double *)da)[pa]), f64_key(((const double *)db)[pb]));
    case EXEC_KEY_TSTZ:
        return CMP3(((const sqe_timestamp_tz *)da)[pa].micros, ((const sqe_timestamp_tz *)db)[pb].micros);
    case EXEC_KEY_I128:
        if (t.id == TYPE_UUID) {
            int c = memcmp(da + 16 * (size_t)pa, db + 16 * (size_t)pb, 16);
            return CMP3(c, 0);
        }
        return CMP3(((const int128 *)da)[pa], ((const int128 *)db)[pb]);
    case EXEC_KEY_STR: {
        int c = sqe_str_compare(&((const sqe_str *)da)[pa], &((const sqe_str *)db)[pb]);
        return CMP3(c, 0);
    }
    default:
        break;
    }
    if (t.id == TYPE_ROW) {
        for (uint32_t c = 0; c < fa->n_children && c < fb->n_children; c++) {
            int r = cmp_any(&fa->children[c], pa, &fb->children[c], pb);
            if (r) return r;
        }
        return 0;
    }
    if (t.id == TYPE_ARRAY) {
        sqe_list_entry ea = ((const sqe_list_entry *)da)[pa];
        sqe_list_entry eb = ((const sqe_list_entry *)db)[pb];
        uint32_t n = ea.length < eb.length ? ea.length : eb.length;
        for (uint32_t i = 0; i < n; i++) {
            int r = cmp_any(&fa->children[0], ea.offset + i, &fb->children[0], eb.offset + i);
            if (r) return r;
        }
        return CMP3(ea.length, eb.length);
    }
    return 0; /* maps are not orderable */
}

static inline int apply_dir(const exec_sort_key *k, int c) { return k->desc ? -c : c; }

int exec_sort_compare_values(const exec_sort_key *k, const vec *a, uint32_t ra, const vec *b,
                             uint32_t rb) {
    uint32_t pa, pb;
    const vec *fa = vec_resolve(a, ra, &pa);
    const vec *fb = vec_resolve(b, rb, &pb);
    bool na = !vec_is_valid_flat(fa, pa) || fa->type.id == TYPE_UNKNOWN;
    bool nb = !vec_is_valid_flat(fb, pb) || fb->type.id == TYPE_UNKNOWN;
    if (na || nb) {
        if (na && nb) return 0;
        return na ? (k->nulls_first ? -1 : 1) : (k->nulls_first ? 1 : -1);
    }
    return apply_dir(k, cmp_raw(k->type, fa, pa, fb, pb));
}

int exec_sort_compare_fields(const exec_sort_key *k, const exec_row_layout *l, const uint8_t *a,
                             const uint8_t *b, uint32_t f) {
    bool na = exec_row_is_null(l, a, f), nb = exec_row_is_null(l, b, f);
    if (na || nb) {
        if (na && nb) return 0;
        return na ? (k->nulls_first ? -1 : 1) : (k->nulls_first ? 1 : -1);
    }
    const uint8_t *pa = a + l->offsets[f], *pb = b + l->offsets[f];
    int c;
    switch (l->kinds[f]) {
    case EXEC_KEY_STR: {
        sqe_str x, y;
        memcpy(&x, pa, sizeof x);
        memcpy(&y, pb, sizeof y);
        c = sqe_str_compare(&x, &y);
        c = CMP3(c, 0);
        break;
    }
    case EXEC_KEY_NESTED: {
        exec_row_nested_ref x, y;
        memcpy(&x, pa, sizeof x);
        memcpy(&y, pb, sizeof y);
        c = cmp_any(x.store, x.idx, y.store, y.idx);
        break;
    }
    default: {
        /* fixed width: compare the encoded bytes */
        uint8_t ea[17], eb[17];
        exec_sort_key asc = *k;
        asc.desc = false;
        encode_value(&asc, l->kinds[f], pa, 0, ea);
        encode_value(&asc, l->kinds[f], pb, 0, eb);
        c = memcmp(ea, eb, k->width - 1);
        c = CMP3(c, 0);
        break;
    }
    }
    return apply_dir(k, c);
}

/* --------------------------------------------------------------------------------------------
 * Radix sort
 * ------------------------------------------------------------------------------------------ */

typedef struct sort_run {
    const exec_sort_spec *s;
    const exec_sort_ctx *c; /* NULL when no key can be truncated */
    exec_sort_tiebreak tb;
    exec_sort_str_fn str;
    void *ud;
    uint32_t W, K;
} sort_run;

static inline int cmp_from(const sort_run *r, const uint8_t *a, const uint8_t *b, uint32_t depth) {
    if (!r->c) return depth < r->K ? memcmp(a + depth, b + depth, r->K - depth) : 0;
    return exec_sort_cmp_from(r->s, a, b, depth, r->c);
}

static void insertion_sort(const sort_run *r, uint8_t *base, uint64_t n, uint32_t depth,
                           uint8_t *tmp) {
    uint32_t W = r->W;
    for (uint64_t i = 1; i < n; i++) {
        uint8_t *cur = base + i * W;
        if (cmp_from(r, cur - W, cur, depth) <= 0) continue;
        memcpy(tmp, cur, W);
        uint64_t j = i;
        while (j > 0 && cmp_from(r, base + (j - 1) * W, tmp, depth) > 0) {
            memcpy(base + j * W, base + (j - 1) * W, W);
            j--;
        }
        memcpy(base + j * W, tmp, W);
    }
}

static _Thread_local const sort_run *tls_run;

static int qsort_tb(const void *a, const void *b) {
    return tls_run->tb(tls_run->ud, (const uint8_t *)a, (const uint8_t *)b);
}

/* Strings of a tie bucket: their first 8 bytes after the shared prefix are cached big-endian
 * in the item, so most comparisons stay inside the (cache-resident) item array. */
typedef struct str_item {
    uint64_t cache;
    const uint8_t *p;
    uint32_t len;
    uint32_t idx;
} str_item;

static inline int str_item_cmp(const str_item *a, const str_item *b, uint32_t from) {
    if (a->cache != b->cache) return a->cache < b->cache ? -1 : 1;
    uint32_t d = from + 8;
    if (a->len <= d || b->len <= d) return a->len < b->len ? -1 : a->len > b->len;
    uint32_t la = a->len - d, lb = b->len - d, m = la < lb ? la : lb;
    int c = memcmp(a->p + d, b->p + d, m);
    if (c) return c < 0 ? -1 : 1;
    return la < lb ? -1 : la > lb;
}

/* Introspective quicksort of items (insertion sort below 16, heap sort never needed in practice:
 * the recursion goes into the smaller side). */
static void str_items_sort(str_item *a, uint64_t n, uint32_t from) {
    while (n > 16) {
        uint64_t m = n / 2;
        /* median of three to a[0] */
        if (str_item_cmp(&a[m], &a[0], from) < 0) { str_item t = a[m]; a[m] = a[0]; a[0] = t; }
        if (str_item_cmp(&a[n - 1], &a[0], from) < 0) { str_item t = a[n - 1]; a[n - 1] = a[0]; a[0] = t; }
        if (str_item_cmp(&a[n - 1], &a[m], from) < 0) { str_item t = a[n - 1]; a[n - 1] = a[m]; a[m] = t; }
        str_item pivot = a[m];
        uint64_t i = 0, j = n - 1;
        for (;;) {
            while (str_item_cmp(&a[i], &pivot, from) < 0) i++;
            while (str_item_cmp(&pivot, &a[j], from) < 0) j--;
            if (i >= j) break;
            str_item t = a[i];
            a[i++] = a[j];
            a[j--] = t;
        }
        uint64_t left = j + 1;
        if (left < n - left) {
            str_items_sort(a, left, from);
            a += left;
            n -= left;
        } else {
            str_items_sort(a + left, n - left, from);
            n = left;
        }
    }
    for (uint64_t i = 1; i < n; i++) {
        str_item x = a[i];
        uint64_t j = i;
        while (j > 0 && str_item_cmp(&a[j - 1], &x, from) > 0) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = x;
    }
}

static void radix_sort(const sort_run *r, uint8_t *base, uint64_t n, uint32_t depth,
                       uint8_t *tmp, uint32_t resolved);

/* Orders a bucket whose entries share every key byte up to the end of truncated string key k:
 * by the strings, then (runs of equal strings) by the following key bytes. */
static void string_bucket_sort(const sort_run *r, uint8_t *base, uint64_t n, uint32_t k,
                               uint32_t depth, uint8_t *tmp) {
    const exec_sort_key *key = &r->s->keys[k];
    uint32_t W = r->W;
    str_item *items = malloc(sizeof(str_item) * n);
    if (!items) { /* no memory for the fast path: comparison sort */
        const sort_run *saved = tls_run;
        tls_run = r;
        qsort(base, n, W, qsort_tb);
        tls_run = saved;
        return;
    }
    uint32_t from = key->prefix;
    for (uint64_t i = 0; i < n; i++) {
        const sqe_str *sv = r->str(r->ud, base + i * W, k);
        items[i].p = (const uint8_t *)sqe_str_data(sv);
        items[i].len = sv->len;
        items[i].idx = (uint32_t)i;
        uint8_t buf[8] = {0};
        if (sv->len > from) memcpy(buf, items[i].p + from, sv->len - from < 8 ? sv->len - from : 8);
        uint64_t c;
        memcpy(&c, buf, 8);
        items[i].cache = __builtin_bswap64(c);
    }
    str_items_sort(items, n, from);
    if (key->desc)
        for (uint64_t i = 0, j = n - 1; i < j; i++, j--) {
            str_item t = items[i];
            items[i] = items[j];
            items[j] = t;
        }
    for (uint64_t i = 0; i < n; i++) memcpy(tmp + i * W, base + (uint64_t)items[i].idx * W, W);
    memcpy(base, tmp, n * W);
    /* runs of equal strings continue with the next keys */
    if (depth < r->K)
        for (uint64_t i = 0; i < n;) {
            uint64_t j = i + 1;
            while (j < n && items[j].len == items[i].len &&
                   memcmp(items[j].p, items[i].p, items[i].len) == 0)
                j++;
            if (j - i > 1) radix_sort(r, base + i * W, j - i, depth, tmp + i * W, depth);
            i = j;
        }
    free(items);
}

/* Moves every entry to its bucket; a constant width lets the compiler inline the copy. */
#define SCATTER_FIXED(WIDTH)                                                                       \
    for (uint64_t i = 0; i < n; i++) {                                                             \
        const uint8_t *e = base + i * (WIDTH);                                                     \
        memcpy(tmp + (offs[e[depth]]++) * (WIDTH), e, (WIDTH));                                    \
    }

/* resolved: a depth at which the truncated key ending there has already been ordered by its
 * strings (UINT32_MAX: none). */
static void radix_sort(const sort_run *r, uint8_t *base, uint64_t n, uint32_t depth,
                       uint8_t *tmp, uint32_t resolved) {
    uint32_t W = r->W;
    for (;;) {
        if (n < 32) {
            insertion_sort(r, base, n, depth, tmp);
            return;
        }
        int tk = r->c && depth != resolved ? bucket_needs_tiebreak(r->s, base, depth) : -1;
        if (tk >= 0) {
            if (r->str && type_is_string_view(r->s->keys[tk].type)) {
                string_bucket_sort(r, base, n, (uint32_t)tk, depth, tmp);
                return;
            }
            if (r->tb) {
                const sort_run *saved = tls_run;
                tls_run = r;
                qsort(base, n, W, qsort_tb);
                tls_run = saved;
                return;
            }
        }
        if (depth >= r->K) return; /* all equal */
        uint32_t counts[256];
        memset(counts, 0, sizeof counts);
        const uint8_t *p = base + depth;
        for (uint64_t i = 0; i < n; i++) counts[p[i * W]]++;
        uint8_t first = p[0];
        if (counts[first] == n) {
            /* every entry shares this byte: skip the whole common prefix at once (up to the end
             * of the next truncated key, where the bucket may need the real values) */
            uint32_t stop = r->K;
            for (uint32_t k = 0; r->c && k < r->s->n_keys; k++) {
                const exec_sort_key *key = &r->s->keys[k];
                uint32_t end = key->offset + key->width;
                if (key->truncated && end > depth && end < stop) stop = end;
            }
            uint32_t lcp = stop - depth;
            for (uint64_t i = 1; i < n && lcp > 1; i++) {
                const uint8_t *a = base + depth, *b = base + i * W + depth;
                uint32_t m = 1;
                while (m < lcp && a[m] == b[m]) m++;
                lcp = m;
            }
            depth += lcp;
            continue;
        }
        uint64_t offs[256];
        uint64_t sum = 0;
        for (int b = 0; b < 256; b++) {
            offs[b] = sum;
            sum += counts[b];
        }
        switch (W) {
        case 16: SCATTER_FIXED(16); break;
        case 24: SCATTER_FIXED(24); break;
        case 32: SCATTER_FIXED(32); break;
        case 40: SCATTER_FIXED(40); break;
        case 48: SCATTER_FIXED(48); break;
        default: SCATTER_FIXED(W); break;
        }
        memcpy(base, tmp, n * W);
        uint64_t start = 0;
        for (int b = 0; b < 256; b++) {
            uint64_t c = counts[b];
            if (c > 1) radix_sort(r, base + start * W, c, depth + 1, tmp + start * W, UINT32_MAX);
            start += c;
        }
        return;
    }
}

int exec_sort_entries(const exec_sort_spec *s, uint8_t *entries, uint64_t n,
                      const exec_sort_ctx *c, mem_tracker *tracker, sqe_error *err) {
    if (n < 2) return SQE_OK;
    if (!s->needs_tiebreak || (c && !c->tb && !c->str)) c = NULL;
    sort_run r = {s, c, c ? c->tb : NULL, c ? c->str : NULL, c ? c->ud : NULL, s->entry_width,
                  s->key_width};
    if (n < 32) {
        uint8_t tmp[1024];
        if (r.W <= sizeof tmp) {
            insertion_sort(&r, entries, n, 0, tmp);
            return SQE_OK;
        }
    }
    if (n > UINT32_MAX) return err_set(err, SQE_ERR_EXCEEDED_MEMORY_LIMIT, "sort input too large");
    uint8_t *tmp = mem_alloc(tracker, (size_t)n * r.W, err);
    if (!tmp) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
    radix_sort(&r, entries, n, 0, tmp, UINT32_MAX);
    mem_free(tracker, tmp);
    return SQE_OK;
}

/* --------------------------------------------------------------------------------------------
 * K-way merge
 * ------------------------------------------------------------------------------------------ */

void exec_sort_merge(const exec_sort_spec *s, uint8_t *const *runs, const uint64_t *run_n,
                     uint32_t n_runs, uint8_t *out, const exec_sort_ctx *c) {
    uint32_t W = s->entry_width;
    if (!s->needs_tiebreak) c = NULL;
    if (n_runs == 2) {
        /* two runs (two threads): a plain two-pointer merge */
        const uint8_t *a = runs[0], *b = runs[1];
        const uint8_t *ae = a + run_n[0] * W, *be = b + run_n[1] * W;
        uint8_t *o = out;
        while (a < ae && b < be) {
            if (exec_sort_entry_cmp(s, b, a, c) < 0) {
                memcpy(o, b, W);
                b += W;
            } else {
                memcpy(o, a, W);
                a += W;
            }
            o += W;
        }
        if (a < ae) memcpy(o, a, (size_t)(ae - a));
        if (b < be) memcpy(o + (ae - a), b, (size_t)(be - b));
        return;
    }
    /* binary min-heap of run indexes keyed by each run's current entry */
    uint32_t heap_buf[64];
    uint64_t pos_buf[64];
    uint32_t *heap = n_runs <= 64 ? heap_buf : malloc(sizeof(uint32_t) * n_runs);
    uint64_t *pos = n_runs <= 64 ? pos_buf : malloc(sizeof(uint64_t) * n_runs);
    if (!heap || !pos) {
        /* fall back to repeated linear selection without allocation */
        if (heap != heap_buf) free(heap);
        if (pos != pos_buf) free(pos);
        uint64_t total = 0;
        for (uint32_t i = 0; i < n_runs; i++) total += run_n[i];
        uint8_t *o = out;
        for (uint32_t i = 0; i < n_runs; i++) {
            memcpy(o, runs[i], run_n[i] * W);
            o += run_n[i] * W;
        }
        sort_run r = {s, c, c ? c->tb : NULL, c ? c->str : NULL, c ? c->ud : NULL, W, s->key_width};
        uint8_t tmp[1024];
        if (W <= sizeof tmp) insertion_sort(&r, out, total, 0, tmp);
        return;
    }
    uint32_t hn = 0;
    for (uint32_t i = 0; i < n_runs; i++) {
        pos[i] = 0;
        if (run_n[i] == 0) continue;
        /* sift up */
        uint32_t ci = hn++;
        heap[ci] = i;
        while (ci > 0) {
            uint32_t p = (ci - 1) / 2;
            if (exec_sort_entry_cmp(s, runs[heap[ci]], runs[heap[p]], c) >= 0) break;
            uint32_t t = heap[ci];
            heap[ci] = heap[p];
            heap[p] = t;
            ci = p;
        }
    }
    uint8_t *o = out;
    while (hn) {
        uint32_t ri = heap[0];
        memcpy(o, runs[ri] + pos[ri] * W, W);
        o += W;
        if (++pos[ri] == run_n[ri]) heap[0] = heap[--hn];
        /* sift down */
        uint32_t cj = 0;
        for (;;) {
            uint32_t l = 2 * cj + 1, best = cj;
            if (l >= hn) break;
            const uint8_t *bc = runs[heap[best]] + pos[heap[best]] * W;
            const uint8_t *lc = runs[heap[l]] + pos[heap[l]] * W;
            if (exec_sort_entry_cmp(s, lc, bc, c) < 0) {
                best = l;
                bc = lc;
            }
            if (l + 1 < hn) {
                const uint8_t *rc = runs[heap[l + 1]] + pos[heap[l + 1]] * W;
                if (exec_sort_entry_cmp(s, rc, bc, c) < 0) best = l + 1;
            }
            if (best == cj) break;
            uint32_t t = heap[cj];
            heap[cj] = heap[best];
            heap[best] = t;
            cj = best;
        }
    }
    if (heap != heap_buf) free(heap);
    if (pos != pos_buf) free(pos);
}

/* --------------------------------------------------------------------------------------------
 * Top-N heap
 * ------------------------------------------------------------------------------------------ */

int exec_topn_heap_init(exec_topn_heap *h, const exec_sort_spec *spec, uint64_t capacity,
                        const exec_sort_ctx *c, mem_tracker *tracker, sqe_error *err) {
    memset(h, 0, sizeof *h);
    h->spec = spec;
    if (c) h->cmp = *c;
    h->capacity = capacity;
    h->tracker = tracker;
    if (capacity) {
        /* one spare entry for swapping */
        h->entries = mem_alloc(tracker, (size_t)(capacity + 1) * spec->entry_width, err);
        if (!h->entries) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
    }
    return SQE_OK;
}

void exec_topn_heap_destroy(exec_topn_heap *h) {
    mem_free(h->tracker, h->entries);
    h->entries = NULL;
    h->size = 0;
}

static inline uint8_t *heap_at(const exec_topn_heap *h, uint64_t i) {
    return h->entries + i * h->spec->entry_width;
}

bool exec_topn_heap_admits(const exec_topn_heap *h, const uint8_t *entry) {
    if (h->capacity == 0) return false;
    if (h->size < h->capacity) return true;
    return exec_sort_entry_cmp(h->spec, entry, heap_at(h, 0), &h->cmp) < 0;
}

static void heap_swap(exec_topn_heap *h, uint64_t a, uint64_t b) {
    uint32_t W = h->spec->entry_width;
    uint8_t *spare = heap_at(h, h->capacity);
    memcpy(spare, heap_at(h, a), W);
    memcpy(heap_at(h, a), heap_at(h, b), W);
    memcpy(heap_at(h, b), spare, W);
}

static void heap_sift_down(exec_topn_heap *h, uint64_t c, uint64_t n) {
    for (;;) {
        uint64_t l = 2 * c + 1, best = c;
        if (l >= n) break;
        if (exec_sort_entry_cmp(h->spec, heap_at(h, l), heap_at(h, best), &h->cmp) > 0) best = l;
        if (l + 1 < n &&
            exec_sort_entry_cmp(h->spec, heap_at(h, l + 1), heap_at(h, best), &h->cmp) > 0)
            best = l + 1;
        if (best == c) break;
        heap_swap(h, c, best);
        c = best;
    }
}

bool exec_topn_heap_push(exec_topn_heap *h, const uint8_t *entry, uint8_t *evicted) {
    uint32_t W = h->spec->entry_width;
    if (h->size < h->capacity) {
        uint64_t c = h->size++;
        memcpy(heap_at(h, c), entry, W);
        while (c > 0) {
            uint64_t p = (c - 1) / 2;
            if (exec_sort_entry_cmp(h->spec, heap_at(h, c), heap_at(h, p), &h->cmp) <= 0) break;
            heap_swap(h, c, p);
            c = p;
        }
        return false;
    }
    if (evicted) memcpy(evicted, heap_at(h, 0), W);
    memcpy(heap_at(h, 0), entry, W);
    heap_sift_down(h, 0, h->size);
    return true;
}

void exec_topn_heap_sort(exec_topn_heap *h) {
    /* heap sort: repeatedly move the maximum behind the shrinking heap */
    for (uint64_t n = h->size; n > 1; n--) {
        heap_swap(h, 0, n - 1);
        heap_sift_down(h, 0, n - 1);
    }
}
