/*
 * vec_view.c: the "any vector shape" read view (vec_view, vec.h).
 *
 * INTERFACE: vec_view_init, vec_view_init_buf.
 * NOTES: a dictionary chain is followed to its FLAT or CONST bottom. Levels with a NULL
 * selection (identity views) cost nothing; one selection is used as it is; two or more are
 * composed into the caller's buffer when there is one, else each row walks the chain. A chain
 * ending in a constant is a constant whatever its selections.
 */
#include "vec/vec.h"

void vec_view_init_buf(vec_view *w, const vec *v, uint32_t rows, uint32_t *buf) {
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
    w->flat = v;
    w->data = v->data;
    w->validity = v->validity;
    w->sel = NULL;
    w->chain = NULL;
    w->mask = UINT32_MAX;
    if (v->shape == VEC_CONST) {
        w->mask = 0;
        return;
    }
    if (n_sel == 1) {
        w->sel = first;
    } else if (n_sel > 1) {
        if (!buf || rows == 0) {
            w->chain = top;
            return;
        }
        for (uint32_t i = 0; i < rows; i++) buf[i] = i;
        for (const vec *d = top; d->shape == VEC_DICT; d = d->dict)
            if (d->sel)
                for (uint32_t i = 0; i < rows; i++) buf[i] = d->sel[buf[i]];
        w->sel = buf;
    }
}

void vec_view_init(vec_view *w, const vec *v) { vec_view_init_buf(w, v, 0, NULL); }
