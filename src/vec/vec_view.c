/*
 * vec_view.c: the out-of-line parts of the "any vector shape" read view (vec_view, vec.h; the
 * init and accessors are inline there).
 *
 * INTERFACE: vec_view_compose.
 * NOTES: a chain ending in a constant never gets here (the view is that constant).
 */
#include "vec/vec.h"

void vec_view_compose(const vec *v, uint32_t rows, uint32_t *buf) {
    for (uint32_t i = 0; i < rows; i++) buf[i] = i;
    for (; v->shape == VEC_DICT; v = v->dict)
        if (v->sel)
            for (uint32_t i = 0; i < rows; i++) buf[i] = v->sel[buf[i]];
}
