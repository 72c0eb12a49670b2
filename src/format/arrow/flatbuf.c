/*
 * flatbuf.c: a minimal FlatBuffers builder and bounds-checked reader (see flatbuf.h), enough for
 * the Arrow IPC Message/Schema/RecordBatch tables. Written from the FlatBuffers format
 * description ("FlatBuffers internals"); no generated code.
 *
 * INTERFACE: fb_builder_init/reset, fb_create_string, fb_create_vector, fb_create_vector_refs,
 *   fb_table_start/add_u8/add_i16/add_i32/add_i64/add_ref/end, fb_builder_finish;
 *   fb_reader_root, fb_get_u8/i16/i32/i64, fb_get_table, fb_get_vector, fb_get_string,
 *   fb_vector_table, fb_vector_string.
 * NOTES: the builder writes back to front (children before parents, so that every offset points
 *   forward), keeping the data at the end of its allocation; positions are distances from the
 *   end, which keeps alignment stable while the buffer grows. Table fields are staged and written
 *   in fb_table_end, largest first, followed by the vtable (no vtable sharing: Arrow messages
 *   are small). The reader never trusts an offset: every access is checked against the buffer
 *   length with 64-bit arithmetic, and failures set a sticky flag instead of returning errors
 *   from every accessor.
 */
#include "format/arrow/flatbuf.h"

#include <stdlib.h>
#include <string.h>

/* ---- Builder ------------------------------------------------------------------------------ */

void fb_builder_init(fb_builder *b) { memset(b, 0, sizeof *b); b->minalign = 8; }

void fb_builder_reset(fb_builder *b) {
    free(b->buf);
    memset(b, 0, sizeof *b);
}

static bool ensure(fb_builder *b, size_t n) {
    if (b->failed) return false;
    if (b->cap - b->used >= n) return true;
    if (n > ((size_t)1 << 31) || b->used > ((size_t)1 << 31)) {
        b->failed = 1;
        return false;
    }
    size_t cap = b->cap ? b->cap * 2 : 512;
    while (cap - b->used < n) cap *= 2;
    uint8_t *p = malloc(cap);
    if (!p) {
        b->failed = 1;
        return false;
    }
    if (b->used) memcpy(p + cap - b->used, b->buf + b->cap - b->used, b->used);
    free(b->buf);
    b->buf = p;
    b->cap = cap;
    return true;
}

static void push(fb_builder *b, const void *data, size_t n) {
    if (n == 0 || !ensure(b, n)) return;
    b->used += n;
    memcpy(b->buf + b->cap - b->used, data, n);
}

static void push_zeros(fb_builder *b, size_t n) {
    if (n == 0 || !ensure(b, n)) return;
    b->used += n;
    memset(b->buf + b->cap - b->used, 0, n);
}

/* Pads so that after `additional` more bytes the position is a multiple of align. */
static void prep(fb_builder *b, size_t align, size_t additional) {
    if (align > b->minalign) b->minalign = align;
    size_t pad = (~(b->used + additional) + 1) & (align - 1);
    push_zeros(b, pad);
}

static void push_u32(fb_builder *b, uint32_t v) { push(b, &v, 4); }

fb_ref fb_create_string(fb_builder *b, const char *s, size_t len) {
    if (b->in_table || len > UINT32_MAX / 2) b->failed = 1;
    if (b->failed) return 0;
    prep(b, 4, len + 1);
    push_zeros(b, 1);
    if (len) push(b, s, len);
    push_u32(b, (uint32_t)len);
    return b->failed ? 0 : (fb_ref)b->used;
}

fb_ref fb_create_vector(fb_builder *b, const void *data, size_t elem_size, size_t n, size_t align) {
    if (b->in_table || (elem_size && n > (UINT32_MAX / 2) / elem_size) || align == 0 ||
        (align & (align - 1)) || align > 16)
        b->failed = 1;
    if (b->failed) return 0;
    size_t bytes = elem_size * n;
    prep(b, align > 4 ? align : 4, bytes);
    if (bytes) push(b, data, bytes);
    push_u32(b, (uint32_t)n);
    return b->failed ? 0 : (fb_ref)b->used;
}

fb_ref fb_create_vector_refs(fb_builder *b, const fb_ref *refs, size_t n) {
    if (b->in_table || n > UINT32_MAX / 8) b->failed = 1;
    if (b->failed) return 0;
    prep(b, 4, 4 * n);
    for (size_t i = n; i-- > 0;) {
        if (refs[i] == 0 || refs[i] >= b->used + 4) {
            b->failed = 1;
            return 0;
        }
        push_u32(b, (uint32_t)(b->used + 4 - refs[i]));
    }
    push_u32(b, (uint32_t)n);
    return b->failed ? 0 : (fb_ref)b->used;
}

void fb_table_start(fb_builder *b) {
    if (b->in_table) b->failed = 1;
    b->in_table = true;
    b->n_staged = 0;
}

static void stage(fb_builder *b, unsigned slot, const void *v, uint8_t size, bool is_ref) {
    if (!b->in_table || slot >= FB_MAX_SLOTS || b->n_staged >= FB_MAX_SLOTS) {
        b->failed = 1;
        return;
    }
    for (uint32_t i = 0; i < b->n_staged; i++)
        if (b->staged[i].slot == slot) {
            b->failed = 1;
            return;
        }
    struct fb_staged *s = &b->staged[b->n_staged++];
    s->slot = (uint8_t)slot;
    s->size = size;
    s->align = size;
    s->is_ref = is_ref;
    memcpy(s->bytes, v, size);
}

void fb_table_add_u8(fb_builder *b, unsigned slot, uint8_t v) { stage(b, slot, &v, 1, false); }
void fb_table_add_i16(fb_builder *b, unsigned slot, int16_t v) { stage(b, slot, &v, 2, false); }
void fb_table_add_i32(fb_builder *b, unsigned slot, int32_t v) { stage(b, slot, &v, 4, false); }
void fb_table_add_i64(fb_builder *b, unsigned slot, int64_t v) { stage(b, slot, &v, 8, false); }
void fb_table_add_ref(fb_builder *b, unsigned slot, fb_ref ref) {
    if (ref) stage(b, slot, &ref, 4, true);
}

fb_ref fb_table_end(fb_builder *b) {
    if (!b->in_table) b->failed = 1;
    b->in_table = false;
    if (b->failed) return 0;
    size_t start = b->used;
    size_t field_at[FB_MAX_SLOTS] = {0};
    unsigned n_slots = 0;
    /* largest first: they land at the highest addresses, the small ones pack below */
    for (unsigned size = 8; size >= 1; size /= 2) {
        for (uint32_t i = 0; i < b->n_staged; i++) {
            struct fb_staged *s = &b->staged[i];
            if (s->size != size) continue;
            prep(b, s->align, 0);
            if (s->is_ref) {
                fb_ref ref;
                memcpy(&ref, s->bytes, 4);
                if (ref == 0 || ref >= b->used + 4) b->failed = 1;
                push_u32(b, (uint32_t)(b->used + 4 - ref));
            } else {
                push(b, s->bytes, s->size);
            }
            field_at[s->slot] = b->used;
            if (s->slot + 1u > n_slots) n_slots = s->slot + 1u;
        }
    }
    prep(b, 4, 0);
    push_zeros(b, 4); /* soffset to the vtable, patched below */
    if (b->failed) return 0;
    size_t table_at = b->used;
    uint16_t vt[2 + FB_MAX_SLOTS];
    vt[0] = (uint16_t)(4 + 2 * n_slots);
    vt[1] = (uint16_t)(table_at - start);
    for (unsigned s = 0; s < n_slots; s++)
        vt[2 + s] = field_at[s] ? (uint16_t)(table_at - field_at[s]) : 0;
    push(b, vt, vt[0]);
    if (b->failed) return 0;
    int32_t soff = (int32_t)(b->used - table_at);
    memcpy(b->buf + b->cap - table_at, &soff, 4);
    return (fb_ref)table_at;
}

bool fb_builder_finish(fb_builder *b, fb_ref root, const uint8_t **out, size_t *len) {
    if (b->in_table || root == 0) b->failed = 1;
    if (b->failed) return false;
    if (b->minalign < 8) b->minalign = 8;
    prep(b, b->minalign, 4);
    push_u32(b, (uint32_t)(b->used + 4 - root));
    if (b->failed) return false;
    *out = b->buf + b->cap - b->used;
    *len = b->used;
    return true;
}

/* ---- Reader ------------------------------------------------------------------------------- */

static uint16_t rd16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static uint32_t rd32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }

static bool table_at(fb_reader *r, uint64_t pos, fb_table *out) {
    if (pos + 4 > r->len) goto malformed;
    int32_t soff;
    memcpy(&soff, r->buf + pos, 4);
    int64_t vt = (int64_t)pos - soff;
    if (vt < 0 || (uint64_t)vt + 4 > r->len) goto malformed;
    uint16_t vt_len = rd16(r->buf + vt), tbl_len = rd16(r->buf + vt + 2);
    if (vt_len < 4 || (uint64_t)vt + vt_len > r->len) goto malformed;
    if (tbl_len < 4 || pos + tbl_len > r->len) goto malformed;
    out->r = r;
    out->pos = (uint32_t)pos;
    out->vt = (uint32_t)vt;
    out->vt_len = vt_len;
    out->tbl_len = tbl_len;
    return true;
malformed:
    r->bad = true;
    return false;
}

bool fb_reader_root(fb_reader *r, const void *buf, size_t len, fb_table *root) {
    r->buf = buf;
    r->len = len;
    r->bad = false;
    memset(root, 0, sizeof *root);
    root->r = r;
    if (!buf || len < 8 || len > UINT32_MAX) {
        r->bad = true;
        return false;
    }
    return table_at(r, rd32(r->buf), root);
}

/* Absolute position of the field in slot (size bytes), or 0 when absent or malformed. */
static uint64_t field_pos(const fb_table *t, unsigned slot, size_t size) {
    if (!t->r || t->r->bad) return 0;
    uint64_t idx = 4 + 2 * (uint64_t)slot;
    if (idx + 2 > t->vt_len) return 0;
    uint16_t off = rd16(t->r->buf + t->vt + idx);
    if (off == 0) return 0;
    if (off + size > t->tbl_len) {
        t->r->bad = true;
        return 0;
    }
    return (uint64_t)t->pos + off;
}

uint8_t fb_get_u8(const fb_table *t, unsigned slot, uint8_t dflt) {
    uint64_t p = field_pos(t, slot, 1);
    return p ? t->r->buf[p] : dflt;
}

int16_t fb_get_i16(const fb_table *t, unsigned slot, int16_t dflt) {
    uint64_t p = field_pos(t, slot, 2);
    int16_t v = dflt;
    if (p) memcpy(&v, t->r->buf + p, 2);
    return v;
}

int32_t fb_get_i32(const fb_table *t, unsigned slot, int32_t dflt) {
    uint64_t p = field_pos(t, slot, 4);
    int32_t v = dflt;
    if (p) memcpy(&v, t->r->buf + p, 4);
    return v;
}

int64_t fb_get_i64(const fb_table *t, unsigned slot, int64_t dflt) {
    uint64_t p = field_pos(t, slot, 8);
    int64_t v = dflt;
    if (p) memcpy(&v, t->r->buf + p, 8);
    return v;
}

/* Follows the uoffset stored at absolute position at (at + 4 <= len already checked). */
static uint64_t deref(fb_reader *r, uint64_t at) {
    uint64_t target = at + rd32(r->buf + at);
    if (target >= r->len) {
        r->bad = true;
        return 0;
    }
    return target;
}

static bool vector_at(fb_reader *r, uint64_t at, size_t elem_size, fb_vector *out) {
    if (at + 4 > r->len) {
        r->bad = true;
        return false;
    }
    uint32_t n = rd32(r->buf + at);
    if ((uint64_t)n * elem_size > r->len - at - 4) {
        r->bad = true;
        return false;
    }
    out->r = r;
    out->pos = (uint32_t)(at + 4);
    out->n = n;
    return true;
}

bool fb_get_table(const fb_table *t, unsigned slot, fb_table *out) {
    uint64_t p = field_pos(t, slot, 4);
    if (!p) return false;
    uint64_t target = deref(t->r, p);
    return target && table_at(t->r, target, out);
}

bool fb_get_vector(const fb_table *t, unsigned slot, size_t elem_size, fb_vector *out) {
    uint64_t p = field_pos(t, slot, 4);
    if (!p) return false;
    uint64_t target = deref(t->r, p);
    return target && vector_at(t->r, target, elem_size, out);
}

bool fb_get_string(const fb_table *t, unsigned slot, const char **s, uint32_t *len) {
    fb_vector v;
    if (!fb_get_vector(t, slot, 1, &v)) return false;
    *s = (const char *)fb_vector_data(&v);
    *len = v.n;
    return true;
}

bool fb_vector_table(const fb_vector *v, uint32_t i, fb_table *out) {
    if (i >= v->n || v->r->bad) return false;
    uint64_t target = deref(v->r, (uint64_t)v->pos + 4 * (uint64_t)i);
    return target && table_at(v->r, target, out);
}

bool fb_vector_string(const fb_vector *v, uint32_t i, const char **s, uint32_t *len) {
    if (i >= v->n || v->r->bad) return false;
    uint64_t target = deref(v->r, (uint64_t)v->pos + 4 * (uint64_t)i);
    fb_vector sv;
    if (!target || !vector_at(v->r, target, 1, &sv)) return false;
    *s = (const char *)fb_vector_data(&sv);
    *len = sv.n;
    return true;
}
