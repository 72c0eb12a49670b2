/*
 * vec.c: column vectors and chunks (see vec.h).
 *
 * INTERFACE: vec_init, vec_destroy, vec_reset, vec_reserve, vec_set_null, vec_validity_make,
 *   vec_resolve, vec_is_null, vec_flatten, vec_set_const_from, vec_set_const_null,
 *   vec_copy_row, vec_str_copy, vec_str_reserve, vec_chunk_init/destroy/reset.
 * NOTES: nested vectors allocate their children at init with the same capacity; ARRAY/MAP
 * children grow on demand as elements are appended (child_len).
 */
#include "vec/vec.h"

#include <stdlib.h>
#include <string.h>

#include "common/err.h"

static size_t bitmap_bytes(uint32_t capacity) { return ((size_t)capacity + 63) / 64 * 8; }

int vec_init(vec *v, sqe_type type, uint32_t capacity, mem_tracker *tracker, sqe_error *err) {
    memset(v, 0, sizeof *v);
    v->type = type;
    v->shape = VEC_FLAT;
    v->tracker = tracker;
    arena_init(&v->heap, tracker);
    if (capacity == 0) capacity = 1;
    size_t width = type_physical_size(type);
    if (width) {
        v->data = mem_alloc(tracker, width * capacity, err);
        if (!v->data) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
    }
    v->capacity = capacity;
    if (type_is_nested(type)) {
        uint32_t n = type.nested ? type.nested->n_children : 0;
        if (n) {
            v->children = calloc(n, sizeof(vec));
            if (!v->children) return err_nomem(err, "vector children");
            v->n_children = n;
            uint32_t child_cap = type.id == TYPE_ROW ? capacity : capacity;
            for (uint32_t i = 0; i < n; i++)
                SQE_TRY(vec_init(&v->children[i], type.nested->children[i], child_cap, tracker, err));
        }
    }
    return SQE_OK;
}

void vec_destroy(vec *v) {
    if (!v) return;
    mem_free(v->tracker, v->data);
    mem_free(v->tracker, v->validity_buf);
    mem_free(v->tracker, v->sel_buf);
    arena_destroy(&v->heap);
    for (uint32_t i = 0; i < v->n_children; i++) vec_destroy(&v->children[i]);
    free(v->children);
    memset(v, 0, sizeof *v);
}

void vec_reset(vec *v) {
    v->shape = VEC_FLAT;
    v->validity = NULL;
    v->dict = NULL;
    v->sel = NULL;
    v->child_len = 0;
    arena_reset(&v->heap);
    for (uint32_t i = 0; i < v->n_children; i++) vec_reset(&v->children[i]);
}

int vec_reserve(vec *v, uint32_t n, sqe_error *err) {
    if (n <= v->capacity) return SQE_OK;
    uint32_t cap = v->capacity ? v->capacity : 1;
    while (cap < n) {
        if (cap > UINT32_MAX / 2) return err_set(err, SQE_ERR_EXCEEDED_MEMORY_LIMIT, "vector too large");
        cap *= 2;
    }
    size_t width = type_physical_size(v->type);
    if (width) {
        void *p = mem_realloc(v->tracker, v->data, width * cap, err);
        if (!p) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
        v->data = p;
    }
    if (v->validity_buf) {
        size_t old = bitmap_bytes(v->capacity), now = bitmap_bytes(cap);
        uint64_t *p = mem_realloc(v->tracker, v->validity_buf, now, err);
        if (!p) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
        memset((char *)p + old, 0xff, now - old);
        /* bits past the old capacity inside the last old word are already 1 (see make) */
        if (v->validity) v->validity = p;
        v->validity_buf = p;
    }
    if (v->sel_buf) {
        uint32_t *p = mem_realloc(v->tracker, v->sel_buf, sizeof(uint32_t) * cap, err);
        if (!p) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
        if (v->sel == v->sel_buf) v->sel = p;
        v->sel_buf = p;
    }
    if (v->type.id == TYPE_ROW)
        for (uint32_t i = 0; i < v->n_children; i++) SQE_TRY(vec_reserve(&v->children[i], cap, err));
    v->capacity = cap;
    return SQE_OK;
}

uint64_t *vec_validity_make(vec *v) {
    if (v->validity) return v->validity;
    if (!v->validity_buf) {
        v->validity_buf = mem_alloc(v->tracker, bitmap_bytes(v->capacity), NULL);
        if (!v->validity_buf) return NULL;
    }
    memset(v->validity_buf, 0xff, bitmap_bytes(v->capacity));
    v->validity = v->validity_buf;
    return v->validity;
}

int vec_set_null(vec *v, uint32_t row) {
    uint64_t *bits = vec_validity_make(v);
    if (!bits) return SQE_ERR_OUT_OF_MEMORY;
    bits[row >> 6] &= ~((uint64_t)1 << (row & 63));
    return SQE_OK;
}

const vec *vec_resolve(const vec *v, uint32_t row, uint32_t *phys) {
    for (;;) {
        if (v->shape == VEC_CONST) {
            row = 0;
            break;
        }
        if (v->shape == VEC_DICT) {
            if (v->sel) row = v->sel[row];
            v = v->dict;
            continue;
        }
        break;
    }
    *phys = row;
    return v;
}

bool vec_is_null(const vec *v, uint32_t row) {
    uint32_t phys;
    const vec *flat = vec_resolve(v, row, &phys);
    return !vec_is_valid_flat(flat, phys);
}

sqe_str vec_str_copy(vec *v, const char *p, uint32_t len, bool *ok) {
    if (len <= SQE_STR_INLINE) return sqe_str_make(p, len);
    char *dst = arena_alloc(&v->heap, len);
    if (!dst) {
        *ok = false;
        sqe_str empty;
        memset(&empty, 0, sizeof empty);
        return empty;
    }
    memcpy(dst, p, len);
    return sqe_str_make(dst, len);
}

char *vec_str_reserve(vec *v, uint32_t len) { return arena_alloc(&v->heap, len ? len : 1); }

/* Appends the elements [offset, offset+len) of src's children (src flat nested) to dst's
 * children; returns dst's start offset in *start. */
static int append_children(vec *dst, const vec *src, sqe_list_entry e, uint32_t *start,
                           sqe_error *err) {
    *start = dst->child_len;
    uint32_t need = dst->child_len + e.length;
    for (uint32_t c = 0; c < dst->n_children; c++) {
        SQE_TRY(vec_reserve(&dst->children[c], need, err));
        for (uint32_t i = 0; i < e.length; i++)
            SQE_TRY(vec_copy_row(&dst->children[c], dst->child_len + i, &src->children[c],
                                 e.offset + i, err));
    }
    dst->child_len = need;
    return SQE_OK;
}

int vec_copy_row(vec *dst, uint32_t dst_row, const vec *src, uint32_t src_row, sqe_error *err) {
    uint32_t phys;
    const vec *flat = vec_resolve(src, src_row, &phys);
    if (!vec_is_valid_flat(flat, phys)) {
        if (vec_set_null(dst, dst_row) != SQE_OK) return err_nomem(err, "validity");
        return SQE_OK;
    }
    vec_set_valid(dst, dst_row);
    size_t width = type_physical_size(dst->type);
    switch (dst->type.id) {
    case TYPE_VARCHAR:
    case TYPE_CHAR:
    case TYPE_VARBINARY:
    case TYPE_JSON: {
        const sqe_str *s = &VEC_DATA(flat, const sqe_str)[phys];
        bool ok = true;
        VEC_DATA(dst, sqe_str)[dst_row] = vec_str_copy(dst, sqe_str_data(s), s->len, &ok);
        if (!ok) return err_nomem(err, "string");
        return SQE_OK;
    }
    case TYPE_ARRAY:
    case TYPE_MAP: {
        sqe_list_entry e = VEC_DATA(flat, const sqe_list_entry)[phys];
        uint32_t start;
        SQE_TRY(append_children(dst, flat, e, &start, err));
        VEC_DATA(dst, sqe_list_entry)[dst_row] = (sqe_list_entry){start, e.length};
        return SQE_OK;
    }
    case TYPE_ROW:
        for (uint32_t c = 0; c < dst->n_children; c++)
            SQE_TRY(vec_copy_row(&dst->children[c], dst_row, &flat->children[c], phys, err));
        return SQE_OK;
    default:
        memcpy((char *)dst->data + width * dst_row, (const char *)flat->data + width * phys, width);
        return SQE_OK;
    }
}

int vec_copy_rows(vec *dst, uint32_t dst_row, const vec *src, uint32_t src_row, uint32_t n,
                  sqe_error *err) {
    /* follow identity views down to the flat vector */
    while (src->shape == VEC_DICT && !src->sel) src = src->dict;
    size_t width = type_physical_size(dst->type);
    bool fixed = width > 0 && !type_is_string_view(dst->type) && !type_is_nested(dst->type);
    if (src->shape != VEC_FLAT || !fixed) {
        for (uint32_t i = 0; i < n; i++) SQE_TRY(vec_copy_row(dst, dst_row + i, src, src_row + i, err));
        return SQE_OK;
    }
    memcpy((char *)dst->data + width * dst_row, (const char *)src->data + width * src_row, width * n);
    if (!src->validity) {
        if (dst->validity)
            for (uint32_t i = 0; i < n; i++) vec_set_valid(dst, dst_row + i);
        return SQE_OK;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (vec_is_valid_flat(src, src_row + i))
            vec_set_valid(dst, dst_row + i);
        else if (vec_set_null(dst, dst_row + i) != SQE_OK)
            return err_nomem(err, "validity");
    }
    return SQE_OK;
}

int vec_flatten(vec *v, uint32_t count, sqe_error *err) {
    if (v->shape == VEC_FLAT) return SQE_OK;
    vec tmp;
    SQE_TRY(vec_init(&tmp, v->type, count > v->capacity ? count : v->capacity, v->tracker, err));
    for (uint32_t i = 0; i < count; i++) {
        int rc = vec_copy_row(&tmp, i, v, i, err);
        if (rc) {
            vec_destroy(&tmp);
            return rc;
        }
    }
    vec_destroy(v);
    *v = tmp;
    return SQE_OK;
}

int vec_set_const_from(vec *v, const vec *src, uint32_t row, sqe_error *err) {
    vec_reset(v);
    SQE_TRY(vec_copy_row(v, 0, src, row, err));
    v->shape = VEC_CONST;
    return SQE_OK;
}

void vec_set_dict(vec *v, const vec *src, const uint32_t *sel) {
    vec_reset(v);
    v->shape = VEC_DICT;
    v->dict = src;
    v->sel = sel;
}

uint32_t *vec_sel_make(vec *v, sqe_error *err) {
    if (!v->sel_buf) {
        v->sel_buf = mem_alloc(v->tracker, sizeof(uint32_t) * v->capacity, err);
        if (!v->sel_buf) return NULL;
    }
    return v->sel_buf;
}

void vec_set_const_null(vec *v) {
    vec_reset(v);
    vec_set_null(v, 0);
    v->shape = VEC_CONST;
}

int vec_chunk_init(vec_chunk *c, uint32_t n_cols, const sqe_type *types, uint32_t capacity,
                   mem_tracker *tracker, sqe_error *err) {
    memset(c, 0, sizeof *c);
    c->capacity = capacity;
    if (n_cols == 0) return SQE_OK;
    c->cols = calloc(n_cols, sizeof(vec));
    if (!c->cols) return err_nomem(err, "chunk");
    c->n_cols = n_cols;
    for (uint32_t i = 0; i < n_cols; i++) SQE_TRY(vec_init(&c->cols[i], types[i], capacity, tracker, err));
    return SQE_OK;
}

void vec_chunk_destroy(vec_chunk *c) {
    if (!c) return;
    for (uint32_t i = 0; i < c->n_cols; i++) vec_destroy(&c->cols[i]);
    free(c->cols);
    memset(c, 0, sizeof *c);
}

void vec_chunk_reset(vec_chunk *c) {
    for (uint32_t i = 0; i < c->n_cols; i++) vec_reset(&c->cols[i]);
    c->count = 0;
    c->seq = 0;
}
