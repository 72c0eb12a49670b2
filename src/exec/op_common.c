/*
 * op_common.c: helpers every physical operator shares: allocating an operator, layouts, output
 * chunks, cancellation checks, and the vector primitives for zero-copy views (slices) and for
 * copying values between vectors of any shape.
 *
 * INTERFACE: exec_op_alloc, exec_layout_of, exec_chunk_create_for, exec_check_cancel,
 *   exec_types_compatible, exec_op_set_detail, exec_op_detail_expr, exec_vec_unwrap, exec_vec_slice, exec_chunk_slice, exec_vec_copy, exec_vec_may_have_nulls.
 * NOTES: a slice is at most one dictionary over a flat vector: views of views compose their
 * selections, so kernels and the next operator see FLAT, CONST or DICT-over-FLAT. exec_vec_copy
 * first turns the source rows into physical indexes (one pass, blocks of VEC_CHUNK_SIZE) and
 * then runs one tight typed loop per value width.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "exec/ops.h"

exec_op *exec_op_alloc(exec_query_ctx *qctx, const exec_op_vtable *vt, const plan *p,
                       uint32_t n_children) {
    exec_op *op = ARENA_NEW(qctx->arena, exec_op);
    if (!op) return NULL;
    op->vt = vt;
    op->qctx = qctx;
    op->plan = p;
    if (n_children) {
        op->children = ARENA_ARRAY(qctx->arena, exec_op *, n_children);
        if (!op->children) return NULL;
    }
    op->n_children = n_children;
    if (p && p->n_out) {
        op->types = ARENA_ARRAY(qctx->arena, sqe_type, p->n_out);
        if (!op->types) return NULL;
        for (uint32_t i = 0; i < p->n_out; i++) op->types[i] = p->out[i].type;
        op->n_types = p->n_out;
    }
    return op;
}

exec_layout exec_layout_of(const plan *p) {
    exec_layout l = {p->out, p->n_out};
    return l;
}

int exec_chunk_create_for(const exec_op *op, vec_chunk *c, sqe_error *err) {
    int rc = vec_chunk_init(c, op->n_types, op->types, VEC_CHUNK_SIZE, op->qctx->tracker, err);
    if (rc != SQE_OK) vec_chunk_destroy(c);
    return rc;
}

int exec_check_cancel(exec_query_ctx *qctx, sqe_error *err) {
    if (qctx->cancel && __atomic_load_n(qctx->cancel, __ATOMIC_RELAXED))
        return err_set(err, SQE_ERR_USER_CANCELED, "Query was canceled");
    if (clock_deadline_passed(qctx->deadline_ns))
        return err_set(err, SQE_ERR_EXCEEDED_TIME_LIMIT,
                       "Query exceeded the maximum execution time limit of %u ms",
                       qctx->time_limit_ms);
    return SQE_OK;
}

bool exec_types_compatible(sqe_type a, sqe_type b) {
    if (a.id != b.id) return false;
    if (type_is_nested(a) || a.id == TYPE_DECIMAL) return type_equal(a, b);
    return type_physical_size(a) == type_physical_size(b);
}

void exec_op_set_detail(exec_op *op, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(op->detail, sizeof op->detail, fmt, ap);
    va_end(ap);
}

void exec_op_detail_expr(exec_op *op, const char *label, const bexpr *e, const plan *input) {
    if (!e) return;
    strbuf sb;
    strbuf_init(&sb);
    bexpr_to_string(e, input, &sb);
    size_t len = strlen(op->detail);
    if (len + 1 < sizeof op->detail)
        snprintf(op->detail + len, sizeof op->detail - len, "%s%s%s", len ? "  " : "", label,
                 strbuf_cstr(&sb));
    strbuf_reset(&sb);
}

const vec *exec_vec_unwrap(const vec *v) {
    while (v->shape == VEC_DICT && v->sel == NULL && v->dict) v = v->dict;
    return v;
}

bool exec_vec_may_have_nulls(const vec *v) {
    for (;;) {
        if (v->shape == VEC_FLAT) return v->validity != NULL;
        if (v->shape == VEC_CONST) return v->validity && !(v->validity[0] & 1);
        v = v->dict;
    }
}

/* Composes the selections of a dictionary chain for `count` rows into buf: buf[i] is the index
 * in the flat vector at the bottom of the chain for logical row (sel ? sel[i] : i) of v. Returns
 * that flat vector, or a CONST vector when the chain ends in a constant (buf unused then). */
static const vec *compose_chain(const vec *v, const uint32_t *sel, uint32_t count, uint32_t *buf) {
    for (uint32_t i = 0; i < count; i++) buf[i] = sel ? sel[i] : i;
    for (;;) {
        if (v->shape != VEC_DICT) return v;
        if (v->sel)
            for (uint32_t i = 0; i < count; i++) buf[i] = v->sel[buf[i]];
        v = v->dict;
    }
}

static int sel_buf_for(vec *out, uint32_t count, uint32_t **buf, sqe_error *err) {
    if (count > out->capacity) SQE_TRY(vec_reserve(out, count, err));
    *buf = vec_sel_make(out, err);
    if (!*buf) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
    return SQE_OK;
}

int exec_vec_slice(vec *out, const vec *src, const uint32_t *sel, uint32_t count,
                   sqe_error *err) {
    const vec *v = exec_vec_unwrap(src);
    if (v->shape == VEC_CONST) return vec_set_const_from(out, v, 0, err);
    if (v->shape == VEC_FLAT) {
        vec_set_dict(out, v, sel);
        return SQE_OK;
    }
    const vec *base = exec_vec_unwrap(v->dict);
    if (base->shape == VEC_CONST) return vec_set_const_from(out, base, 0, err);
    if (base->shape == VEC_FLAT && !sel) {
        vec_set_dict(out, base, v->sel);
        return SQE_OK;
    }
    uint32_t *buf;
    SQE_TRY(sel_buf_for(out, count, &buf, err));
    const vec *flat;
    if (base->shape == VEC_FLAT) {
        const uint32_t *s = v->sel;
        for (uint32_t i = 0; i < count; i++) buf[i] = s[sel[i]];
        flat = base;
    } else {
        flat = compose_chain(v, sel, count, buf);
        if (flat->shape == VEC_CONST) return vec_set_const_from(out, flat, 0, err);
    }
    vec_set_dict(out, flat, buf);
    return SQE_OK;
}

int exec_chunk_slice(vec_chunk *out, const vec_chunk *in, const uint32_t *sel, uint32_t count,
                     sqe_error *err) {
    enum { CACHE = 8 };
    const uint32_t *from[CACHE];
    const uint32_t *to[CACHE];
    uint32_t n_cache = 0;
    for (uint32_t c = 0; c < in->n_cols; c++) {
        const vec *v = exec_vec_unwrap(&in->cols[c]);
        if (sel && v->shape == VEC_DICT && v->sel) {
            const vec *base = exec_vec_unwrap(v->dict);
            if (base->shape == VEC_FLAT) {
                const uint32_t *hit = NULL;
                for (uint32_t k = 0; k < n_cache; k++)
                    if (from[k] == v->sel) hit = to[k];
                if (hit) {
                    vec_set_dict(&out->cols[c], base, hit);
                    continue;
                }
                SQE_TRY(exec_vec_slice(&out->cols[c], v, sel, count, err));
                if (n_cache < CACHE) {
                    from[n_cache] = v->sel;
                    to[n_cache++] = out->cols[c].sel;
                }
                continue;
            }
        }
        SQE_TRY(exec_vec_slice(&out->cols[c], v, sel, count, err));
    }
    out->count = count;
    return SQE_OK;
}

/* --- Copying ------------------------------------------------------------------------------- */

#define COPY_BLOCK VEC_CHUNK_SIZE

/* Physical source indexes of a block of rows: idx[i] for logical rows (rows ? rows[i] : first+i). */
typedef struct src_map {
    const vec *flat;       /* flat (or constant) vector holding the values */
    const uint32_t *sel;   /* dictionary selection or NULL */
    uint8_t mode;          /* 0 identity, 1 constant, 2 through sel, 3 generic chain */
    const vec *chain;      /* mode 3: the original vector */
} src_map;

static void src_map_init(src_map *m, const vec *src) {
    const vec *v = exec_vec_unwrap(src);
    m->chain = v;
    m->sel = NULL;
    if (v->shape == VEC_FLAT) {
        m->flat = v;
        m->mode = 0;
        return;
    }
    if (v->shape == VEC_CONST) {
        m->flat = v;
        m->mode = 1;
        return;
    }
    const vec *base = exec_vec_unwrap(v->dict);
    if (base->shape == VEC_FLAT) {
        m->flat = base;
        m->sel = v->sel;
        m->mode = 2;
    } else if (base->shape == VEC_CONST) {
        m->flat = base;
        m->mode = 1;
    } else {
        const vec *f = base;
        while (f->shape == VEC_DICT) f = f->dict;
        m->flat = f;
        m->mode = f->shape == VEC_CONST ? 1 : 3;
    }
}

static void src_map_indexes(const src_map *m, const uint32_t *rows, uint32_t first, uint32_t n,
                            uint32_t *idx) {
    switch (m->mode) {
    case 0:
        if (rows)
            memcpy(idx, rows, n * sizeof(uint32_t));
        else
            for (uint32_t i = 0; i < n; i++) idx[i] = first + i;
        break;
    case 1: memset(idx, 0, n * sizeof(uint32_t)); break;
    case 2:
        if (rows)
            for (uint32_t i = 0; i < n; i++) idx[i] = m->sel[rows[i]];
        else
            for (uint32_t i = 0; i < n; i++) idx[i] = m->sel[first + i];
        break;
    default:
        for (uint32_t i = 0; i < n; i++) {
            uint32_t r = rows ? rows[i] : first + i;
            const vec *v = m->chain;
            while (v->shape == VEC_DICT) {
                if (v->sel) r = v->sel[r];
                v = v->dict;
            }
            idx[i] = v->shape == VEC_CONST ? 0 : r;
        }
        break;
    }
}

#define COPY_VALUES(CT)                                                                            \
    do {                                                                                           \
        CT *restrict d = (CT *)dst->data;                                                          \
        const CT *restrict s = (const CT *)m.flat->data;                                           \
        if (drows)                                                                                 \
            for (uint32_t i = 0; i < n; i++) d[drows[i]] = s[idx[i]];                              \
        else                                                                                       \
            for (uint32_t i = 0; i < n; i++) d[doff + i] = s[idx[i]];                              \
    } while (0)

typedef struct wide16 {
    uint64_t a, b;
} wide16;

int exec_vec_copy(vec *dst, const uint32_t *dst_rows, uint32_t dst_off, const vec *src,
                  const uint32_t *src_rows, uint32_t count, bool deep, sqe_error *err) {
    if (count == 0) return SQE_OK;
    if (type_is_nested(dst->type)) {
        for (uint32_t i = 0; i < count; i++)
            SQE_TRY(vec_copy_row(dst, dst_rows ? dst_rows[i] : dst_off + i, src,
                                 src_rows ? src_rows[i] : i, err));
        return SQE_OK;
    }
    src_map m;
    src_map_init(&m, src);
    size_t width = type_physical_size(dst->type);
    bool strings = type_is_string_view(dst->type);
    const uint64_t *sv = m.flat->validity;
    uint32_t idx[COPY_BLOCK];
    for (uint32_t done = 0; done < count; done += COPY_BLOCK) {
        uint32_t n = count - done < COPY_BLOCK ? count - done : COPY_BLOCK;
        const uint32_t *srows = src_rows ? src_rows + done : NULL;
        const uint32_t *drows = dst_rows ? dst_rows + done : NULL;
        uint32_t doff = dst_off + done;
        src_map_indexes(&m, srows, done, n, idx);
        switch (width) {
        case 1: COPY_VALUES(uint8_t); break;
        case 2: COPY_VALUES(uint16_t); break;
        case 4: COPY_VALUES(uint32_t); break;
        case 8: COPY_VALUES(uint64_t); break;
        case 16: COPY_VALUES(wide16); break;
        default:
            for (uint32_t i = 0; i < n; i++)
                memcpy((char *)dst->data + width * (drows ? drows[i] : doff + i),
                       (const char *)m.flat->data + width * idx[i], width);
            break;
        }
        /* validity */
        if (sv) {
            uint64_t *dv = vec_validity_make(dst);
            if (!dv) return err_nomem(err, "validity");
            for (uint32_t i = 0; i < n; i++) {
                uint32_t di = drows ? drows[i] : doff + i;
                uint64_t bit = (sv[idx[i] >> 6] >> (idx[i] & 63)) & 1;
                dv[di >> 6] = (dv[di >> 6] & ~((uint64_t)1 << (di & 63))) | (bit << (di & 63));
            }
        } else if (dst->validity) {
            for (uint32_t i = 0; i < n; i++) {
                uint32_t di = drows ? drows[i] : doff + i;
                dst->validity[di >> 6] |= (uint64_t)1 << (di & 63);
            }
        }
        if (strings && deep) {
            sqe_str *d = dst->data;
            for (uint32_t i = 0; i < n; i++) {
                uint32_t di = drows ? drows[i] : doff + i;
                sqe_str *s = &d[di];
                if (s->len <= SQE_STR_INLINE) continue;
                if (sv && !((sv[idx[i] >> 6] >> (idx[i] & 63)) & 1)) continue;
                bool ok = true;
                *s = vec_str_copy(dst, s->u.ptr, s->len, &ok);
                if (!ok) return err_nomem(err, "string");
            }
        }
    }
    return SQE_OK;
}
