/*
 * vec.h: column vectors and chunks, the unit of data every operator passes.
 *
 * A vec is one column of up to `capacity` rows in one of three shapes:
 *   VEC_FLAT   values in `data` (layout per types.h), validity bitmap in `validity`;
 *   VEC_CONST  one value at index 0 standing for every row (literals, partition values);
 *   VEC_DICT   row i is row sel[i] of `dict` (a filter or gather without copying; Parquet
 *              dictionary pages); with sel == NULL row i is row i of `dict` (a zero-copy view
 *              of another vector, e.g. a scan handing out a stored column).
 * `validity` is NULL when no row is NULL; otherwise bit i (LSB-first in 64-bit words) is 1 when
 * row i is valid, as in Arrow.
 *
 * Lifetimes: a vec owns its data, validity and child vectors. String views may point into
 *   (a) the vec's own `heap` arena (strings made by a kernel), or
 *   (b) memory of the producer that lives at least until the chunk has been pushed through the
 *       pipeline (e.g. a table's storage, a dictionary page).
 * Anything that keeps values beyond the current push (hash tables, sort runs, materialized
 * results) copies the string bytes into its own storage. vec_reset drops the heap and children
 * contents, so a producer reuses the same chunk for every batch.
 *
 * A chunk is a set of equally long columns plus a row count.
 */
#ifndef SQE_VEC_VEC_H
#define SQE_VEC_VEC_H

#include <stdbool.h>
#include <stdint.h>

#include "common/arena.h"
#include "common/mem.h"
#include "types/types.h"

#define VEC_CHUNK_SIZE 2048

typedef enum vec_shape { VEC_FLAT = 0, VEC_CONST, VEC_DICT } vec_shape;

typedef struct vec vec;

struct vec {
    sqe_type type;
    uint8_t shape;          /* vec_shape */
    uint32_t capacity;      /* rows the data buffer holds */
    void *data;             /* FLAT/CONST: values */
    uint64_t *validity;     /* NULL = all valid; else points at validity_buf */
    uint64_t *validity_buf; /* owned bitmap storage, capacity bits, allocated on demand */
    arena heap;             /* string bytes made for this vec; reset with vec_reset */
    mem_tracker *tracker;
    /* nested: ARRAY -> children[0] elements; MAP -> children[0] keys, [1] values;
       ROW -> one child per field (same row count as this vec). */
    vec *children;
    uint32_t n_children;
    uint32_t child_len;     /* ARRAY/MAP: elements used in children */
    /* VEC_DICT */
    const uint32_t *sel;    /* row -> dict row; NULL = identity; may point at sel_buf */
    uint32_t *sel_buf;      /* owned index storage (vec_sel_make), capacity entries */
    const vec *dict;        /* borrowed: must outlive this vector's current contents */
};

typedef struct vec_chunk {
    uint32_t n_cols;
    uint32_t count;         /* rows in use */
    uint32_t capacity;
    vec *cols;              /* n_cols vectors */
    uint64_t seq;           /* place of these rows in their source's order (morsel and batch),
                               kept by streaming operators; 0 = no order (see op_result.c) */
} vec_chunk;

/* Initializes caller-owned storage as an empty flat vector of `type` with room for capacity
 * rows (data allocated through tracker, which may be NULL). Returns SQE_OK or an error; on error
 * v is left safe to vec_destroy. */
int vec_init(vec *v, sqe_type type, uint32_t capacity, mem_tracker *tracker, sqe_error *err);
/* Frees everything the vector owns. Safe on a zeroed or failed vec. */
void vec_destroy(vec *v);
/* Makes v flat again with no NULLs, drops its heap strings and children's contents (keeps
 * buffers). */
void vec_reset(vec *v);
/* Grows a flat vector to hold at least n rows (keeps values). */
int vec_reserve(vec *v, uint32_t n, sqe_error *err);

/* Validity. */
static inline bool vec_is_valid_flat(const vec *v, uint32_t row) {
    return !v->validity || ((v->validity[row >> 6] >> (row & 63)) & 1);
}
/* Marks row NULL (allocates the bitmap on first use: all other rows valid). */
int vec_set_null(vec *v, uint32_t row);
static inline void vec_set_valid(vec *v, uint32_t row) {
    if (v->validity) v->validity[row >> 6] |= (uint64_t)1 << (row & 63);
}
/* Ensures the bitmap exists (all rows valid) and returns it; NULL on out-of-memory. */
uint64_t *vec_validity_make(vec *v);

/* Row r's logical value position, following CONST and DICT shapes down to a flat vector:
 * returns the flat vector and sets *phys to the index inside it. */
const vec *vec_resolve(const vec *v, uint32_t row, uint32_t *phys);
/* NULL test for any shape. */
bool vec_is_null(const vec *v, uint32_t row);

/* A view of a vector of any shape (flat, constant, dictionary chains) for reading rows: logical
 * row r's value is at data index vec_view_index(&w, r) of w.flat, a FLAT or CONST vector (the
 * bottom of the chain), and its validity is vec_view_valid(&w, r). The view borrows everything
 * from the vector (and from buf, see vec_view_init_buf) and is valid while they are unchanged.
 * Modes (tested in this order per row, so flat rows cost one test and dictionary rows two, as
 * with the views this one replaced; kernels special-case constants before their row loops):
 *   VEC_VIEW_FLAT   index = row;
 *   VEC_VIEW_SEL    index = sel[row] (one dictionary selection, or a composed one in buf);
 *   VEC_VIEW_CONST  index = 0;
 *   VEC_VIEW_CHAIN  a dictionary chain with two or more selections and no buffer to compose
 *                   them into: each row walks `chain` as vec_resolve does, correct but slower.
 * Views made by vec_view_init_buf with a buffer are "composed" (FLAT or SEL only: constants
 * become a zero map in buf), so the hot loops of exec/ read them with vec_view_index_composed. */
enum { VEC_VIEW_FLAT = 0, VEC_VIEW_SEL, VEC_VIEW_CONST, VEC_VIEW_CHAIN };

typedef struct vec_view {
    const vec *flat;          /* FLAT or CONST vector holding the values */
    const void *data;         /* flat->data */
    const uint64_t *validity; /* flat->validity; NULL = no NULLs */
    const uint32_t *sel;      /* VEC_VIEW_SEL: logical row -> data index; else NULL */
    const vec *chain;         /* VEC_VIEW_CHAIN: the viewed vector; else NULL */
    uint8_t mode;             /* VEC_VIEW_* */
} vec_view;

/* Writes into buf[0..rows) the index in the bottom vector of rows 0..rows-1 of dictionary chain
 * v (out of line: the composing loop of vec_view_init_buf). */
void vec_view_compose(const vec *v, uint32_t rows, uint32_t *buf);

/* Like vec_view_init, but for rows 0..rows-1 a chain of several selections is composed into buf
 * and a constant becomes a zero map in buf (caller-owned, `rows` entries, must outlive the
 * view), so every row is one lookup. buf NULL or rows 0 behaves as vec_view_init. (Inline, and
 * taking no address of w out of line, so the hot loops keep the view's fields in registers.) */
static inline void vec_view_init_buf(vec_view *w, const vec *v, uint32_t rows, uint32_t *buf) {
    const vec *top = v;
    const uint32_t *first = NULL;
    uint32_t n_sel = 0;
    while (v->shape == VEC_DICT) {
        if (v->sel) {
            if (!first) first = v->sel;
            n_sel++;
        }
        v = v->dict;
    }
    bool have_buf = buf && rows;
    w->flat = v;
    w->data = v->data;
    w->validity = v->validity;
    w->sel = NULL;
    w->chain = NULL;
    w->mode = VEC_VIEW_FLAT;
    if (v->shape == VEC_CONST) {
        if (have_buf) {
            for (uint32_t i = 0; i < rows; i++) buf[i] = 0;
            w->sel = buf;
            w->mode = VEC_VIEW_SEL;
        } else {
            w->mode = VEC_VIEW_CONST;
        }
    } else if (n_sel == 1) {
        w->sel = first;
        w->mode = VEC_VIEW_SEL;
    } else if (n_sel > 1) {
        if (have_buf) {
            vec_view_compose(top, rows, buf);
            w->sel = buf;
            w->mode = VEC_VIEW_SEL;
        } else {
            w->chain = top;
            w->mode = VEC_VIEW_CHAIN;
        }
    }
}
/* Makes a view of v with no buffer of its own (chains of several selections walk per row). */
static inline void vec_view_init(vec_view *w, const vec *v) { vec_view_init_buf(w, v, 0, NULL); }

static inline uint32_t vec_view_index(const vec_view *w, uint32_t row) {
    if (w->mode == VEC_VIEW_FLAT) return row;
    if (w->mode == VEC_VIEW_SEL) return w->sel[row];
    if (w->mode == VEC_VIEW_CONST) return 0;
    /* VEC_VIEW_CHAIN: walk the chain here rather than call vec_resolve, so that a call in the
     * loop does not make the compiler spill the loop's registers on the common paths */
    const vec *c = w->chain;
    uint32_t i = row;
    do {
        if (c->sel) i = c->sel[i];
        c = c->dict;
    } while (c->shape == VEC_DICT);
    return i; /* the bottom is FLAT: a chain ending in a constant is mode CONST */
}
/* True for views in mode FLAT or SEL (see above). */
static inline bool vec_view_is_composed(const vec_view *w) {
    return w->mode == VEC_VIEW_FLAT || w->mode == VEC_VIEW_SEL;
}
/* vec_view_index for composed views (one branch per row, as the hash and compare loops need). */
static inline uint32_t vec_view_index_composed(const vec_view *w, uint32_t row) {
    return w->sel ? w->sel[row] : row;
}
/* Validity at a data index (as returned by vec_view_index). */
static inline bool vec_view_valid_at(const vec_view *w, uint32_t idx) {
    return !w->validity || ((w->validity[idx >> 6] >> (idx & 63)) & 1);
}
/* Validity of logical row `row`. */
static inline bool vec_view_valid(const vec_view *w, uint32_t row) {
    return vec_view_valid_at(w, vec_view_index(w, row));
}
/* True when logical row r is data index r (a flat vector or an identity view of one). */
static inline bool vec_view_is_flat(const vec_view *w) { return w->mode == VEC_VIEW_FLAT; }

/* Makes v a view of src: row i of v is row sel[i] of src (sel NULL = identity). sel is
 * borrowed and must stay valid as long as v's contents; src likewise. */
void vec_set_dict(vec *v, const vec *src, const uint32_t *sel);
/* Returns the owned selection buffer (capacity entries), allocating it on first use. */
uint32_t *vec_sel_make(vec *v, sqe_error *err);

/* Converts any shape into a flat vector of `count` rows in place (copies values). */
int vec_flatten(vec *v, uint32_t count, sqe_error *err);

/* Turns v into a constant vector holding row `row` of src (src any shape; strings copied into
 * v's heap). */
int vec_set_const_from(vec *v, const vec *src, uint32_t row, sqe_error *err);
/* Turns v into a constant NULL. */
void vec_set_const_null(vec *v);

/* Copies row src_row of src (any shape) into row dst_row of flat vector dst; string bytes that
 * are not inline are copied into dst's heap; nested values are appended to dst's children. */
int vec_copy_row(vec *dst, uint32_t dst_row, const vec *src, uint32_t src_row, sqe_error *err);

/* Copies rows [src_row, src_row + n) of src (any shape) to rows [dst_row, dst_row + n) of flat
 * vector dst (which must have the capacity), like vec_copy_row row by row but with bulk copies
 * for flat fixed-width data. */
int vec_copy_rows(vec *dst, uint32_t dst_row, const vec *src, uint32_t src_row, uint32_t n,
                  sqe_error *err);

/* String helpers: copies len bytes into v's heap and returns a view on them (inline when short).
 * On out-of-memory returns a view with len 0 and sets *ok=false. */
sqe_str vec_str_copy(vec *v, const char *p, uint32_t len, bool *ok);
/* Reserves len bytes in v's heap for a string the caller fills, or NULL on failure. */
char *vec_str_reserve(vec *v, uint32_t len);

/* Typed access to flat data. */
#define VEC_DATA(v, ctype) ((ctype *)(v)->data)

/* Chunks. */
int vec_chunk_init(vec_chunk *c, uint32_t n_cols, const sqe_type *types, uint32_t capacity,
                   mem_tracker *tracker, sqe_error *err);
void vec_chunk_destroy(vec_chunk *c);
/* Resets every column and sets count to 0. */
void vec_chunk_reset(vec_chunk *c);

#endif
