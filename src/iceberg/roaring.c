/*
 * roaring.c: 64-bit Roaring bitmaps of row positions and their portable serialization (the
 * payload of Iceberg deletion vectors).
 *
 * INTERFACE: ice_roaring_init, ice_roaring_reset, ice_roaring_add, ice_roaring_add_all,
 *            ice_roaring_contains, ice_roaring_max, ice_roaring_iter_init / _seek / _next,
 *            ice_roaring_portable_size, ice_roaring_portable_write, ice_roaring_portable_read
 * NOTES:
 *   - Spec: RoaringBitmap/RoaringFormatSpec. 32-bit bitmap = cookie header (12346 "no run
 *     containers" + count, or 12347 | (count - 1) << 16 + a bitset of run containers), a
 *     descriptive header (key, cardinality - 1 as 16-bit pairs), an offset header (always with
 *     12346, with 12347 only from 4 containers on), then the containers: arrays of 16-bit
 *     values (cardinality <= 4096), 8 KiB bitsets (more), or runs (count, then start and
 *     length - 1 pairs). 64-bit form: bucket count as 8 bytes, then (key, 32-bit bitmap) pairs.
 *     All little-endian.
 *   - Containers are ARRAY or BITMAP in memory, chosen by cardinality as in the spec, and RUN
 *     when read from runs: a run container keeps its runs, so a few input bytes never expand
 *     into 8 KiB bitsets (a hostile file cannot make us allocate more than a small multiple of
 *     its size). Adding to a run container first turns it into an array or bitmap.
 *   - The writer picks per container the smallest of runs and the standard form (as Java's
 *     runOptimize does), so dense deletes serialize compactly.
 */
#include "iceberg/roaring.h"

#include <stdlib.h>
#include <string.h>

enum { CONT_ARRAY = 0, CONT_BITMAP = 1, CONT_RUN = 2 };

#define ARRAY_MAX 4096u
#define BITMAP_WORDS 1024u
#define COOKIE_NO_RUN 12346u
#define COOKIE_RUN 12347u
#define NO_OFFSET_THRESHOLD 4u

struct ice_roaring_container {
    uint16_t key;
    uint8_t kind;
    uint32_t card; /* 1..65536 */
    uint32_t n;    /* ARRAY: values used; RUN: runs */
    uint32_t cap;  /* ARRAY: values allocated */
    uint16_t *a;   /* ARRAY: values; RUN: (start, length - 1) pairs */
    uint64_t *bits; /* BITMAP */
};

struct ice_roaring_bucket {
    uint32_t key;
    uint32_t n, cap;
    ice_roaring_container *c;
};

static void cont_free(ice_roaring_container *c) {
    free(c->a);
    free(c->bits);
    c->a = NULL;
    c->bits = NULL;
}

void ice_roaring_init(ice_roaring *r) { memset(r, 0, sizeof *r); }

void ice_roaring_reset(ice_roaring *r) {
    for (uint32_t i = 0; i < r->n_buckets; i++) {
        ice_roaring_bucket *b = &r->buckets[i];
        for (uint32_t k = 0; k < b->n; k++) cont_free(&b->c[k]);
        free(b->c);
    }
    free(r->buckets);
    memset(r, 0, sizeof *r);
}

/* Index of the first bucket with key >= key. */
static uint32_t bucket_lower(const ice_roaring *r, uint32_t key) {
    uint32_t lo = 0, hi = r->n_buckets;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (r->buckets[mid].key < key) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

static uint32_t cont_lower(const ice_roaring_bucket *b, uint16_t key) {
    uint32_t lo = 0, hi = b->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (b->c[mid].key < key) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

static uint32_t u16_lower(const uint16_t *a, uint32_t n, uint16_t v) {
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (a[mid] < v) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* Index of the run containing v or the first run after it (runs are pairs in a). */
static uint32_t run_lower(const ice_roaring_container *c, uint32_t v) {
    uint32_t lo = 0, hi = c->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        uint32_t end = (uint32_t)c->a[2 * mid] + c->a[2 * mid + 1]; /* inclusive */
        if (end < v) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

static bool cont_contains(const ice_roaring_container *c, uint16_t v) {
    switch (c->kind) {
    case CONT_BITMAP: return (c->bits[v >> 6] >> (v & 63)) & 1;
    case CONT_ARRAY: {
        uint32_t i = u16_lower(c->a, c->n, v);
        return i < c->n && c->a[i] == v;
    }
    default: {
        uint32_t i = run_lower(c, v);
        return i < c->n && c->a[2 * i] <= v;
    }
    }
}

bool ice_roaring_contains(const ice_roaring *r, uint64_t pos) {
    uint32_t bi = bucket_lower(r, (uint32_t)(pos >> 32));
    if (bi == r->n_buckets || r->buckets[bi].key != (uint32_t)(pos >> 32)) return false;
    const ice_roaring_bucket *b = &r->buckets[bi];
    uint16_t key = (uint16_t)(pos >> 16);
    uint32_t ci = cont_lower(b, key);
    if (ci == b->n || b->c[ci].key != key) return false;
    return cont_contains(&b->c[ci], (uint16_t)pos);
}

/* Makes c a BITMAP holding its current values (c may be ARRAY or RUN). */
static int cont_to_bitmap(ice_roaring_container *c, sqe_error *err) {
    uint64_t *bits = calloc(BITMAP_WORDS, sizeof(uint64_t));
    if (!bits) return err_nomem(err, "Roaring bitmap");
    if (c->kind == CONT_ARRAY) {
        for (uint32_t i = 0; i < c->n; i++) bits[c->a[i] >> 6] |= (uint64_t)1 << (c->a[i] & 63);
    } else {
        for (uint32_t i = 0; i < c->n; i++) {
            uint32_t s = c->a[2 * i], e = s + c->a[2 * i + 1];
            for (uint32_t v = s; v <= e; v++) bits[v >> 6] |= (uint64_t)1 << (v & 63);
        }
    }
    free(c->a);
    c->a = NULL;
    c->n = c->cap = 0;
    c->bits = bits;
    c->kind = CONT_BITMAP;
    return SQE_OK;
}

/* Makes a RUN container an ARRAY (its cardinality is at most ARRAY_MAX - 1 here). */
static int run_to_array(ice_roaring_container *c, sqe_error *err) {
    uint32_t cap = c->card + 1;
    uint16_t *a = malloc(cap * sizeof(uint16_t));
    if (!a) return err_nomem(err, "Roaring bitmap");
    uint32_t n = 0;
    for (uint32_t i = 0; i < c->n; i++) {
        uint32_t s = c->a[2 * i], e = s + c->a[2 * i + 1];
        for (uint32_t v = s; v <= e; v++) a[n++] = (uint16_t)v;
    }
    free(c->a);
    c->a = a;
    c->n = n;
    c->cap = cap;
    c->kind = CONT_ARRAY;
    return SQE_OK;
}

/* Adds v to c; *added tells whether it was new. On error c is unchanged. */
static int cont_add(ice_roaring_container *c, uint16_t v, bool *added, sqe_error *err) {
    *added = false;
    if (c->kind == CONT_RUN) {
        if (cont_contains(c, v)) return SQE_OK;
        SQE_TRY(c->card + 1 > ARRAY_MAX ? cont_to_bitmap(c, err) : run_to_array(c, err));
    }
    if (c->kind == CONT_BITMAP) {
        uint64_t bit = (uint64_t)1 << (v & 63);
        if (c->bits[v >> 6] & bit) return SQE_OK;
        c->bits[v >> 6] |= bit;
        c->card++;
        *added = true;
        return SQE_OK;
    }
    uint32_t i = (c->n && c->a[c->n - 1] < v) ? c->n : u16_lower(c->a, c->n, v);
    if (i < c->n && c->a[i] == v) return SQE_OK;
    if (c->n == ARRAY_MAX) {
        SQE_TRY(cont_to_bitmap(c, err));
        c->bits[v >> 6] |= (uint64_t)1 << (v & 63);
        c->card++;
        *added = true;
        return SQE_OK;
    }
    if (c->n == c->cap) {
        uint32_t cap = c->cap ? c->cap * 2 : 4;
        if (cap > ARRAY_MAX) cap = ARRAY_MAX;
        uint16_t *a = realloc(c->a, cap * sizeof(uint16_t));
        if (!a) return err_nomem(err, "Roaring bitmap");
        c->a = a;
        c->cap = cap;
    }
    memmove(c->a + i + 1, c->a + i, (c->n - i) * sizeof(uint16_t));
    c->a[i] = v;
    c->n++;
    c->card++;
    *added = true;
    return SQE_OK;
}

static int grow(void **p, uint32_t *cap, uint32_t need, size_t elem, sqe_error *err) {
    if (need <= *cap) return SQE_OK;
    uint32_t c = *cap ? *cap : 4;
    while (c < need) c *= 2;
    void *q = realloc(*p, (size_t)c * elem);
    if (!q) return err_nomem(err, "Roaring bitmap");
    *p = q;
    *cap = c;
    return SQE_OK;
}

int ice_roaring_add(ice_roaring *r, uint64_t pos, sqe_error *err) {
    uint32_t hi = (uint32_t)(pos >> 32);
    uint16_t mid = (uint16_t)(pos >> 16);
    uint32_t bi = (r->n_buckets && r->buckets[r->n_buckets - 1].key < hi) ? r->n_buckets
                                                                           : bucket_lower(r, hi);
    bool new_bucket = bi == r->n_buckets || r->buckets[bi].key != hi;
    ice_roaring_bucket nb = {.key = hi};
    ice_roaring_bucket *b = new_bucket ? &nb : &r->buckets[bi];
    uint32_t ci = (b->n && b->c[b->n - 1].key < mid) ? b->n : cont_lower(b, mid);
    bool new_cont = ci == b->n || b->c[ci].key != mid;
    if (!new_cont) {
        bool added;
        SQE_TRY(cont_add(&b->c[ci], (uint16_t)pos, &added, err));
        if (added) r->cardinality++;
        return SQE_OK;
    }
    /* Allocate everything first so that a failure leaves r unchanged. */
    if (new_bucket) SQE_TRY(grow((void **)&r->buckets, &r->cap_buckets, r->n_buckets + 1,
                                 sizeof *r->buckets, err));
    int rc = grow((void **)&b->c, &b->cap, b->n + 1, sizeof *b->c, err);
    uint16_t *vals = rc ? NULL : malloc(4 * sizeof(uint16_t));
    if (!rc && !vals) rc = err_nomem(err, "Roaring bitmap");
    if (rc) {
        if (new_bucket) free(nb.c);
        return rc;
    }
    memmove(b->c + ci + 1, b->c + ci, (b->n - ci) * sizeof *b->c);
    b->c[ci] = (ice_roaring_container){
        .key = mid, .kind = CONT_ARRAY, .card = 1, .n = 1, .cap = 4, .a = vals};
    vals[0] = (uint16_t)pos;
    b->n++;
    if (new_bucket) {
        memmove(r->buckets + bi + 1, r->buckets + bi, (r->n_buckets - bi) * sizeof *r->buckets);
        r->buckets[bi] = nb;
        r->n_buckets++;
    }
    r->cardinality++;
    return SQE_OK;
}

int ice_roaring_add_all(ice_roaring *dst, const ice_roaring *src, sqe_error *err) {
    ice_roaring_iter it;
    ice_roaring_iter_init(&it, src);
    uint64_t buf[256];
    uint32_t n;
    while ((n = ice_roaring_iter_next(&it, buf, 256)) > 0)
        for (uint32_t i = 0; i < n; i++) SQE_TRY(ice_roaring_add(dst, buf[i], err));
    return SQE_OK;
}

static uint32_t cont_max(const ice_roaring_container *c) {
    if (c->kind == CONT_ARRAY) return c->a[c->n - 1];
    if (c->kind == CONT_RUN) return (uint32_t)c->a[2 * c->n - 2] + c->a[2 * c->n - 1];
    for (uint32_t w = BITMAP_WORDS; w-- > 0;)
        if (c->bits[w]) return w * 64 + 63 - (uint32_t)__builtin_clzll(c->bits[w]);
    return 0;
}

uint64_t ice_roaring_max(const ice_roaring *r) {
    if (!r->n_buckets) return 0;
    const ice_roaring_bucket *b = &r->buckets[r->n_buckets - 1];
    const ice_roaring_container *c = &b->c[b->n - 1];
    return ((uint64_t)b->key << 32) | ((uint64_t)c->key << 16) | cont_max(c);
}

/* ---- iteration ------------------------------------------------------------------------------ */

void ice_roaring_iter_init(ice_roaring_iter *it, const ice_roaring *r) {
    it->r = r;
    it->bucket = it->container = it->index = 0;
}

void ice_roaring_iter_seek(ice_roaring_iter *it, uint64_t pos) {
    const ice_roaring *r = it->r;
    uint32_t hi = (uint32_t)(pos >> 32);
    it->bucket = bucket_lower(r, hi);
    it->container = 0;
    it->index = 0;
    if (it->bucket == r->n_buckets || r->buckets[it->bucket].key != hi) return;
    const ice_roaring_bucket *b = &r->buckets[it->bucket];
    uint16_t mid = (uint16_t)(pos >> 16);
    it->container = cont_lower(b, mid);
    if (it->container == b->n || b->c[it->container].key != mid) return;
    const ice_roaring_container *c = &b->c[it->container];
    uint16_t lo = (uint16_t)pos;
    it->index = c->kind == CONT_ARRAY ? u16_lower(c->a, c->n, lo) : lo;
}

uint32_t ice_roaring_iter_next(ice_roaring_iter *it, uint64_t *out, uint32_t max) {
    const ice_roaring *r = it->r;
    uint32_t n = 0;
    while (n < max && it->bucket < r->n_buckets) {
        const ice_roaring_bucket *b = &r->buckets[it->bucket];
        if (it->container >= b->n) {
            it->bucket++;
            it->container = it->index = 0;
            continue;
        }
        const ice_roaring_container *c = &b->c[it->container];
        uint64_t base = ((uint64_t)b->key << 32) | ((uint64_t)c->key << 16);
        if (c->kind == CONT_ARRAY) {
            while (n < max && it->index < c->n) out[n++] = base | c->a[it->index++];
            if (it->index < c->n) break;
        } else if (c->kind == CONT_BITMAP) {
            while (n < max && it->index < 65536) {
                uint64_t w = c->bits[it->index >> 6] & (~(uint64_t)0 << (it->index & 63));
                if (!w) {
                    it->index = (it->index | 63) + 1;
                    continue;
                }
                uint32_t v = (it->index & ~63u) + (uint32_t)__builtin_ctzll(w);
                out[n++] = base | v;
                it->index = v + 1;
            }
            if (it->index < 65536) break;
        } else {
            uint32_t ri = run_lower(c, it->index);
            while (n < max && ri < c->n) {
                uint32_t s = c->a[2 * ri], e = s + c->a[2 * ri + 1];
                if (it->index < s) it->index = s;
                while (n < max && it->index <= e) out[n++] = base | it->index++;
                if (it->index > e) ri++;
            }
            if (ri < c->n) break;
        }
        it->container++;
        it->index = 0;
    }
    return n;
}

/* ---- serialization -------------------------------------------------------------------------- */

static uint32_t cont_runs(const ice_roaring_container *c) {
    if (c->kind == CONT_RUN) return c->n;
    uint32_t runs = 0;
    if (c->kind == CONT_ARRAY) {
        for (uint32_t i = 0; i < c->n; i++)
            if (i == 0 || c->a[i] != c->a[i - 1] + 1) runs++;
        return runs;
    }
    uint64_t prev = 0;
    for (uint32_t w = 0; w < BITMAP_WORDS; w++) {
        uint64_t x = c->bits[w];
        runs += (uint32_t)__builtin_popcountll(x & ~((x << 1) | (prev >> 63)));
        prev = x;
    }
    return runs;
}

static size_t std_size(uint32_t card) { return card <= ARRAY_MAX ? 2u * card : 8192u; }

/* Whether the writer stores c as runs, and its serialized size. */
static bool cont_plan(const ice_roaring_container *c, size_t *size) {
    size_t run = 2 + 4 * (size_t)cont_runs(c), std = std_size(c->card);
    *size = run < std ? run : std;
    return run < std;
}

static size_t bucket_size(const ice_roaring_bucket *b, bool *has_run) {
    size_t body = 0;
    *has_run = false;
    for (uint32_t k = 0; k < b->n; k++) {
        size_t s;
        if (cont_plan(&b->c[k], &s)) *has_run = true;
        body += s;
    }
    size_t hdr = *has_run ? 4 + (b->n + 7) / 8 + 4 * (size_t)b->n +
                                (b->n >= NO_OFFSET_THRESHOLD ? 4 * (size_t)b->n : 0)
                          : 8 + 8 * (size_t)b->n;
    return hdr + body;
}

size_t ice_roaring_portable_size(const ice_roaring *r) {
    size_t total = 8;
    for (uint32_t i = 0; i < r->n_buckets; i++) {
        bool has_run;
        total += 4 + bucket_size(&r->buckets[i], &has_run);
    }
    return total;
}

static void put16(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static void put32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static uint32_t get16(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static uint32_t get32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Writes c as runs at p; returns the bytes written. */
static size_t write_runs(const ice_roaring_container *c, uint8_t *p) {
    uint32_t nr = 0;
    uint8_t *q = p + 2;
    if (c->kind == CONT_RUN) {
        for (uint32_t i = 0; i < c->n; i++, q += 4) {
            put16(q, c->a[2 * i]);
            put16(q + 2, c->a[2 * i + 1]);
        }
        nr = c->n;
    } else if (c->kind == CONT_ARRAY) {
        uint32_t i = 0;
        while (i < c->n) {
            uint32_t j = i;
            while (j + 1 < c->n && c->a[j + 1] == c->a[j] + 1) j++;
            put16(q, c->a[i]);
            put16(q + 2, j - i);
            q += 4;
            nr++;
            i = j + 1;
        }
    } else {
        uint32_t v = 0;
        while (v < 65536) {
            uint64_t w = c->bits[v >> 6] & (~(uint64_t)0 << (v & 63));
            if (!w) {
                v = (v | 63) + 1;
                continue;
            }
            uint32_t s = (v & ~63u) + (uint32_t)__builtin_ctzll(w);
            uint32_t e = s;
            for (;;) { /* e: first absent value after s */
                uint64_t z = ~c->bits[e >> 6] & (~(uint64_t)0 << (e & 63));
                if (z) {
                    e = (e & ~63u) + (uint32_t)__builtin_ctzll(z);
                    break;
                }
                e = (e | 63) + 1;
                if (e >= 65536) break;
            }
            put16(q, s);
            put16(q + 2, e - s - 1);
            q += 4;
            nr++;
            v = e;
        }
    }
    put16(p, nr);
    return (size_t)(q - p);
}

static size_t write_std(const ice_roaring_container *c, uint8_t *p) {
    if (c->card > ARRAY_MAX) {
        if (c->kind == CONT_BITMAP) {
            for (uint32_t w = 0; w < BITMAP_WORDS; w++)
                for (int i = 0; i < 8; i++) p[8 * w + (uint32_t)i] = (uint8_t)(c->bits[w] >> (8 * i));
        } else { /* RUN */
            memset(p, 0, 8192);
            for (uint32_t i = 0; i < c->n; i++) {
                uint32_t s = c->a[2 * i], e = s + c->a[2 * i + 1];
                for (uint32_t v = s; v <= e; v++) p[v >> 3] |= (uint8_t)(1u << (v & 7));
            }
        }
        return 8192;
    }
    uint8_t *q = p;
    if (c->kind == CONT_ARRAY) {
        for (uint32_t i = 0; i < c->n; i++, q += 2) put16(q, c->a[i]);
    } else if (c->kind == CONT_BITMAP) {
        for (uint32_t w = 0; w < BITMAP_WORDS; w++)
            for (uint64_t x = c->bits[w]; x; x &= x - 1, q += 2)
                put16(q, w * 64 + (uint32_t)__builtin_ctzll(x));
    } else {
        for (uint32_t i = 0; i < c->n; i++) {
            uint32_t s = c->a[2 * i], e = s + c->a[2 * i + 1];
            for (uint32_t v = s; v <= e; v++, q += 2) put16(q, v);
        }
    }
    return (size_t)(q - p);
}

void ice_roaring_portable_write(const ice_roaring *r, uint8_t *out) {
    uint8_t *p = out;
    put32(p, r->n_buckets);
    put32(p + 4, 0);
    p += 8;
    for (uint32_t i = 0; i < r->n_buckets; i++) {
        const ice_roaring_bucket *b = &r->buckets[i];
        put32(p, b->key);
        p += 4;
        uint8_t *start = p;
        bool has_run;
        (void)bucket_size(b, &has_run);
        bool offsets;
        if (has_run) {
            put32(p, COOKIE_RUN | ((b->n - 1) << 16));
            p += 4;
            memset(p, 0, (b->n + 7) / 8);
            for (uint32_t k = 0; k < b->n; k++) {
                size_t s;
                if (cont_plan(&b->c[k], &s)) p[k / 8] |= (uint8_t)(1u << (k % 8));
            }
            p += (b->n + 7) / 8;
            offsets = b->n >= NO_OFFSET_THRESHOLD;
        } else {
            put32(p, COOKIE_NO_RUN);
            put32(p + 4, b->n);
            p += 8;
            offsets = true;
        }
        for (uint32_t k = 0; k < b->n; k++, p += 4) {
            put16(p, b->c[k].key);
            put16(p + 2, b->c[k].card - 1);
        }
        uint8_t *offs = p;
        if (offsets) p += 4 * (size_t)b->n;
        for (uint32_t k = 0; k < b->n; k++) {
            if (offsets) put32(offs + 4 * (size_t)k, (uint32_t)(p - start));
            size_t s;
            p += cont_plan(&b->c[k], &s) ? write_runs(&b->c[k], p) : write_std(&b->c[k], p);
        }
    }
}

static int bad(sqe_error *err, const char *what) {
    return err_set(err, SQE_ERR_INVALID_FILE, "Invalid Roaring bitmap: %s", what);
}

/* Reads one 32-bit bitmap at p[0..len) into bucket b (empty, key set). *used: bytes read. */
static int read_bucket(ice_roaring_bucket *b, uint64_t *card_total, const uint8_t *p,
                       size_t len, size_t *used, sqe_error *err) {
    if (len < 4) return bad(err, "truncated cookie");
    uint32_t cookie = get32(p);
    size_t pos, n;
    const uint8_t *runbits = NULL;
    bool offsets;
    if ((cookie & 0xffff) == COOKIE_RUN) {
        n = (cookie >> 16) + 1;
        runbits = p + 4;
        pos = 4 + (n + 7) / 8;
        offsets = n >= NO_OFFSET_THRESHOLD;
    } else if (cookie == COOKIE_NO_RUN) {
        if (len < 8) return bad(err, "truncated container count");
        n = get32(p + 4);
        if (n > 65536) return bad(err, "more than 65536 containers");
        pos = 8;
        offsets = true;
    } else {
        return bad(err, "unknown cookie");
    }
    size_t hdr = pos + 4 * n + (offsets ? 4 * n : 0);
    if (hdr > len) return bad(err, "truncated header");
    if (n) {
        b->c = calloc(n, sizeof *b->c);
        if (!b->c) return err_nomem(err, "Roaring bitmap");
        b->cap = (uint32_t)n;
    }
    const uint8_t *desc = p + pos, *offs = p + pos + 4 * n;
    pos = hdr;
    for (size_t k = 0; k < n; k++) {
        uint32_t key = get16(desc + 4 * k), card = get16(desc + 4 * k + 2) + 1;
        if (k && key <= b->c[k - 1].key) return bad(err, "container keys not ascending");
        if (offsets && get32(offs + 4 * k) != pos) return bad(err, "wrong container offset");
        ice_roaring_container *c = &b->c[k];
        c->key = (uint16_t)key;
        c->card = card;
        b->n = (uint32_t)k + 1; /* c is owned by b from here (freed on error) */
        bool is_run = runbits && ((runbits[k / 8] >> (k % 8)) & 1);
        if (is_run) {
            if (len - pos < 2) return bad(err, "truncated run container");
            uint32_t nr = get16(p + pos);
            if (len - pos - 2 < 4 * (size_t)nr) return bad(err, "truncated run container");
            const uint8_t *q = p + pos + 2;
            c->kind = CONT_RUN;
            c->a = malloc((nr ? 2 * (size_t)nr : 1) * sizeof(uint16_t));
            if (!c->a) return err_nomem(err, "Roaring bitmap");
            c->n = nr;
            uint32_t total = 0, next_min = 0;
            for (uint32_t i = 0; i < nr; i++) {
                uint32_t s = get16(q + 4 * i), l = get16(q + 4 * i + 2);
                if (s < next_min || (i && s == 0)) return bad(err, "runs overlap or unsorted");
                if (s + l > 65535) return bad(err, "run past its container");
                c->a[2 * i] = (uint16_t)s;
                c->a[2 * i + 1] = (uint16_t)l;
                total += l + 1;
                next_min = s + l + 1;
            }
            if (total != card) return bad(err, "run lengths do not match the cardinality");
            pos += 2 + 4 * (size_t)nr;
        } else if (card <= ARRAY_MAX) {
            if (len - pos < 2 * (size_t)card) return bad(err, "truncated array container");
            c->kind = CONT_ARRAY;
            c->a = malloc(card * sizeof(uint16_t));
            if (!c->a) return err_nomem(err, "Roaring bitmap");
            c->n = c->cap = card;
            for (uint32_t i = 0; i < card; i++) {
                c->a[i] = (uint16_t)get16(p + pos + 2 * i);
                if (i && c->a[i] <= c->a[i - 1]) return bad(err, "array values not ascending");
            }
            pos += 2 * (size_t)card;
        } else {
            if (len - pos < 8192) return bad(err, "truncated bitmap container");
            c->kind = CONT_BITMAP;
            c->bits = malloc(8192);
            if (!c->bits) return err_nomem(err, "Roaring bitmap");
            uint32_t pop = 0;
            for (uint32_t w = 0; w < BITMAP_WORDS; w++) {
                uint64_t x = 0;
                for (int i = 0; i < 8; i++) x |= (uint64_t)p[pos + 8 * w + (uint32_t)i] << (8 * i);
                c->bits[w] = x;
                pop += (uint32_t)__builtin_popcountll(x);
            }
            if (pop != card) return bad(err, "bitmap popcount does not match the cardinality");
            pos += 8192;
        }
        *card_total += card;
    }
    *used = pos;
    return SQE_OK;
}

int ice_roaring_portable_read(ice_roaring *r, const uint8_t *p, size_t len, size_t *used,
                              sqe_error *err) {
    ice_roaring_reset(r);
    if (len < 8) return bad(err, "truncated bucket count");
    uint64_t nb = (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
    /* Each bucket takes at least 12 bytes (key and an empty bitmap). */
    if (nb > (len - 8) / 12) return bad(err, "bucket count exceeds the data");
    size_t pos = 8;
    int rc = SQE_OK;
    if (nb) {
        r->buckets = calloc(nb, sizeof *r->buckets);
        if (!r->buckets) return err_nomem(err, "Roaring bitmap");
        r->cap_buckets = (uint32_t)nb;
    }
    int64_t last_key = -1; /* empty buckets count for the order too */
    for (uint64_t i = 0; i < nb && !rc; i++) {
        if (len - pos < 4) {
            rc = bad(err, "truncated bucket key");
            break;
        }
        uint32_t key = get32(p + pos);
        pos += 4;
        if ((int64_t)key <= last_key) {
            rc = bad(err, "bucket keys not ascending");
            break;
        }
        last_key = key;
        ice_roaring_bucket *b = &r->buckets[r->n_buckets];
        b->key = key;
        size_t u = 0;
        rc = read_bucket(b, &r->cardinality, p + pos, len - pos, &u, err);
        if (rc || b->n == 0) { /* drop empty buckets (and free a failed one) */
            for (uint32_t k = 0; k < b->n; k++) cont_free(&b->c[k]);
            free(b->c);
            memset(b, 0, sizeof *b);
        } else {
            r->n_buckets++;
        }
        pos += u;
    }
    if (rc) {
        ice_roaring_reset(r);
        return rc;
    }
    if (used) *used = pos;
    return SQE_OK;
}
