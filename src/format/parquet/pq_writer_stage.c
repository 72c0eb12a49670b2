/*
 * pq_writer_stage.c: shredding (Dremel) of the rows of a chunk into the per-leaf staging
 * buffers of the current row group.
 *
 * INTERFACE (pq_writer_int.h)
 *   pqw_stage_flat     a top-level flat-typed column, in bulk
 *   pqw_shred          one row of a nested column, recursively
 *   pqw_staged_bytes   bytes staged so far
 * NOTES
 *   - Staging keeps levels as bytes and values in their Parquet physical form (DECIMAL p > 18
 *     big-endian, TIMESTAMP WITH TIME ZONE as UTC micros), byte arrays as uint32 lengths plus
 *     bytes back to back. Flat top-level columns take a bulk path (memcpy when nothing is NULL
 *     and the layouts agree); nested columns recurse row by row. String bytes are copied into
 *     the staging buffers, so input chunks are not referenced after the call.
 *   - A NULL written to a REQUIRED node (or a map key) is INVALID_ARGUMENTS; the leaves may then
 *     hold part of the row, and the writer must only be aborted.
 */
#include <string.h>

#include "format/parquet/pq_writer_int.h"

/* ---- staging (shredding) -------------------------------------------------------------------- */

static inline int push_level(leaf *l, uint8_t rep, uint8_t def, sqe_error *err) {
    if (l->max_def) SQE_TRY(pq_buf_append(&l->def, &def, 1, err));
    if (l->max_rep) SQE_TRY(pq_buf_append(&l->rep, &rep, 1, err));
    l->n_levels++;
    return SQE_OK;
}

/* Big-endian two's complement of v in width bytes (v fits: width comes from the precision). */
static inline void decimal_to_be(int128 v, uint8_t *out, uint32_t width) {
    for (uint32_t i = 0; i < width; i++) out[width - 1 - i] = (uint8_t)(v >> (8 * i));
}

/* Stages one non-NULL value at row `row` of flat vector v. */
static int stage_value(leaf *l, const vec *v, uint32_t row, sqe_error *err) {
    uint8_t tmp[16];
    switch (l->kind) {
    case LK_BOOL:
        tmp[0] = VEC_DATA(v, uint8_t)[row] ? 1 : 0;
        break;
    case LK_I8: {
        int32_t x = VEC_DATA(v, int8_t)[row];
        memcpy(tmp, &x, 4);
        break;
    }
    case LK_I16: {
        int32_t x = VEC_DATA(v, int16_t)[row];
        memcpy(tmp, &x, 4);
        break;
    }
    case LK_I32:
    case LK_F32:
        memcpy(tmp, (const uint8_t *)v->data + (size_t)row * 4, 4);
        break;
    case LK_I64:
    case LK_F64:
        memcpy(tmp, (const uint8_t *)v->data + (size_t)row * 8, 8);
        break;
    case LK_DEC_I32: {
        int32_t x = (int32_t)VEC_DATA(v, int64_t)[row];
        memcpy(tmp, &x, 4);
        break;
    }
    case LK_DEC_FLBA:
        decimal_to_be(VEC_DATA(v, int128)[row], tmp, l->width);
        break;
    case LK_TSTZ:
        memcpy(tmp, &VEC_DATA(v, sqe_timestamp_tz)[row].micros, 8);
        break;
    case LK_UUID:
        memcpy(tmp, (const uint8_t *)v->data + (size_t)row * 16, 16);
        break;
    case LK_STR: {
        const sqe_str *s = &VEC_DATA(v, sqe_str)[row];
        uint32_t len = s->len;
        SQE_TRY(pq_buf_append(&l->lens, &len, 4, err));
        SQE_TRY(pq_buf_append(&l->vals, sqe_str_data(s), len, err));
        l->n_vals++;
        return SQE_OK;
    }
    case LK_NULL:
        return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "value for a NULL-typed Parquet column");
    }
    SQE_TRY(pq_buf_append(&l->vals, tmp, l->width, err));
    l->n_vals++;
    return SQE_OK;
}

/* Every leaf under node gets a level (rep, def) without a value. */
static int emit_absent(pq_writer *w, const wnode *n, uint8_t rep, uint8_t def, sqe_error *err) {
    for (uint32_t i = n->first_leaf; i < n->end_leaf; i++)
        SQE_TRY(push_level(&w->leaves[i], rep, def, err));
    return SQE_OK;
}

/* Shreds row `row` of v (any shape) into the leaves under node ni: rep is the repetition level
 * of this occurrence, parent_def the definition level of the enclosing value. */
int pqw_shred(pq_writer *w, uint32_t ni, const vec *v, uint32_t row, uint8_t rep,
              uint8_t parent_def, sqe_error *err) {
    const wnode *n = &w->nodes[ni];
    uint32_t phys;
    const vec *f = vec_resolve(v, row, &phys);
    bool is_null = !vec_is_valid_flat(f, phys);
    if (n->kind == NODE_LEAF && w->leaves[n->leaf].kind == LK_NULL) is_null = true;
    if (is_null) {
        if (n->required) {
            if (n->map_key)
                return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "Cannot write a NULL map key to Parquet");
            return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                           "Cannot write a NULL value to the required Parquet field '%s'",
                           w->schema[n->schema_idx].name);
        }
        return emit_absent(w, n, rep, parent_def, err);
    }
    switch (n->kind) {
    case NODE_LEAF: {
        leaf *l = &w->leaves[n->leaf];
        SQE_TRY(push_level(l, rep, n->def, err));
        return stage_value(l, f, phys, err);
    }
    case NODE_ROW:
        if (f->n_children < n->n_children)
            return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "row vector without its fields");
        for (uint32_t i = 0; i < n->n_children; i++)
            SQE_TRY(pqw_shred(w, n->children[i], &f->children[i], phys, rep, n->def, err));
        return SQE_OK;
    default: {
        const sqe_list_entry e = VEC_DATA(f, sqe_list_entry)[phys];
        if (e.length == 0) return emit_absent(w, n, rep, n->def, err);
        if (f->n_children < n->n_children)
            return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "nested vector without its children");
        for (uint32_t j = 0; j < e.length; j++) {
            uint8_t r = j ? n->rep : rep;
            for (uint32_t c = 0; c < n->n_children; c++)
                SQE_TRY(pqw_shred(w, n->children[c], &f->children[c], e.offset + j, r,
                                  (uint8_t)(n->def + 1), err));
        }
        return SQE_OK;
    }
    }
}

/* Bulk staging of rows [start, start + n) of a top-level flat-typed OPTIONAL column. */
static int stage_flat_optional(leaf *l, const vec *v, uint32_t start, uint32_t n, sqe_error *err) {
    if (v->shape != VEC_FLAT || l->kind == LK_NULL) {
        SQE_TRY(pq_buf_reserve(&l->def, n, err));
        for (uint32_t r = 0; r < n; r++) {
            uint32_t phys;
            const vec *f = vec_resolve(v, start + r, &phys);
            bool valid = l->kind != LK_NULL && vec_is_valid_flat(f, phys);
            l->def.data[l->def.len++] = valid ? 1 : 0;
            l->n_levels++;
            if (valid) SQE_TRY(stage_value(l, f, phys, err));
        }
        return SQE_OK;
    }
    /* definition levels: 1 = present, 0 = NULL */
    SQE_TRY(pq_buf_reserve(&l->def, n, err));
    uint8_t *d = l->def.data + l->def.len;
    const uint64_t *valid = v->validity;
    uint32_t nv = n;
    if (!valid) {
        memset(d, 1, n);
    } else {
        nv = 0;
        for (uint32_t r = 0; r < n; r++) {
            uint32_t row = start + r;
            d[r] = (uint8_t)((valid[row >> 6] >> (row & 63)) & 1);
            nv += d[r];
        }
        if (nv == n) valid = NULL;
    }
    l->def.len += n;
    l->n_levels += n;
    if (nv == 0) return SQE_OK;

#define GATHER(SRC_T, DST_T, CONV)                                                                 \
    do {                                                                                           \
        SQE_TRY(pq_buf_reserve(&l->vals, (size_t)nv * sizeof(DST_T), err));                        \
        DST_T *o = (DST_T *)(void *)(l->vals.data + l->vals.len);                                  \
        const SRC_T *s = (const SRC_T *)v->data + start;                                           \
        if (!valid) {                                                                              \
            for (uint32_t r = 0; r < n; r++) o[r] = CONV(s[r]);                                    \
        } else {                                                                                   \
            uint32_t k = 0;                                                                        \
            for (uint32_t r = 0; r < n; r++)                                                       \
                if (d[r]) o[k++] = CONV(s[r]);                                                     \
        }                                                                                          \
        l->vals.len += (size_t)nv * sizeof(DST_T);                                                 \
    } while (0)
#define SAME(x) (x)
#define BOOL01(x) ((uint8_t)((x) ? 1 : 0))
#define MICROS(x) ((x).micros)

    switch (l->kind) {
    case LK_BOOL: GATHER(uint8_t, uint8_t, BOOL01); break;
    case LK_I8: GATHER(int8_t, int32_t, SAME); break;
    case LK_I16: GATHER(int16_t, int32_t, SAME); break;
    case LK_I32: GATHER(int32_t, int32_t, SAME); break;
    case LK_F32: GATHER(float, float, SAME); break;
    case LK_I64: GATHER(int64_t, int64_t, SAME); break;
    case LK_F64: GATHER(double, double, SAME); break;
    case LK_DEC_I32: GATHER(int64_t, int32_t, (int32_t)); break;
    case LK_TSTZ: GATHER(sqe_timestamp_tz, int64_t, MICROS); break;
    case LK_UUID:
    case LK_DEC_FLBA: {
        uint32_t wd = l->width;
        SQE_TRY(pq_buf_reserve(&l->vals, (size_t)nv * wd, err));
        uint8_t *o = l->vals.data + l->vals.len;
        for (uint32_t r = 0; r < n; r++) {
            if (valid && !d[r]) continue;
            if (l->kind == LK_UUID) {
                memcpy(o, (const uint8_t *)v->data + (size_t)(start + r) * 16, 16);
            } else {
                decimal_to_be(VEC_DATA(v, int128)[start + r], o, wd);
            }
            o += wd;
        }
        l->vals.len += (size_t)nv * wd;
        break;
    }
    case LK_STR: {
        const sqe_str *s = (const sqe_str *)v->data + start;
        SQE_TRY(pq_buf_reserve(&l->lens, (size_t)nv * 4, err));
        uint32_t *lens = (uint32_t *)(void *)(l->lens.data + l->lens.len);
        size_t bytes = 0;
        uint32_t k = 0;
        for (uint32_t r = 0; r < n; r++) {
            if (valid && !d[r]) continue;
            lens[k++] = s[r].len;
            bytes += s[r].len;
        }
        l->lens.len += (size_t)nv * 4;
        SQE_TRY(pq_buf_reserve(&l->vals, bytes, err));
        uint8_t *o = l->vals.data + l->vals.len;
        for (uint32_t r = 0; r < n; r++) {
            if (valid && !d[r]) continue;
            uint32_t len = s[r].len;
            memcpy(o, sqe_str_data(&s[r]), len);
            o += len;
        }
        l->vals.len += bytes;
        break;
    }
    case LK_NULL:
        break;
    }
#undef GATHER
#undef SAME
#undef BOOL01
#undef MICROS
    l->n_vals += nv;
    return SQE_OK;
}

/* Bulk staging of a top-level flat-typed column; a REQUIRED one (max_def 0) must hold no NULL
 * and keeps no definition levels. */
int pqw_stage_flat(leaf *l, const vec *v, uint32_t start, uint32_t n, sqe_error *err) {
    if (l->max_def) return stage_flat_optional(l, v, start, n, err);
    for (uint32_t r = 0; r < n; r++)
        if (l->kind == LK_NULL || vec_is_null(v, start + r))
            return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                           "Cannot write a NULL value to the required Parquet column '%s'",
                           l->path[0]);
    size_t keep = l->def.len;
    int rc = stage_flat_optional(l, v, start, n, err);
    l->def.len = keep;
    return rc;
}

uint64_t pqw_staged_bytes(const pq_writer *w) {
    uint64_t total = 0;
    for (uint32_t i = 0; i < w->n_leaves; i++) {
        const leaf *l = &w->leaves[i];
        total += l->def.len + l->rep.len + l->vals.len + l->lens.len;
    }
    return total;
}
