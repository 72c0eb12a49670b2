/*
 * arrow_encode.c: SQE vectors -> Arrow RecordBatch messages (Columnar.rst "Serialization and
 * Interprocess Communication"), the encapsulated message framing and the IPC stream writer.
 *
 * INTERFACE: arrow_buf_init/reset/append, arrow_batch_encode, arrow_message_frame,
 *   arrow_stream_write_schema/batch/eos.
 * NOTES: a column is encoded from a list of logical rows, resolving each through
 *   vec_resolve, so CONST and DICT vectors (and slices of a chunk) need no flattening copy; a
 *   nested child is encoded from the rows its parents reference (list elements gathered from
 *   their entries, struct fields from the parents' physical rows). Rows under a NULL struct are
 *   written as NULL in every field, because the engine leaves those child slots unset. NULL
 *   slots of fixed-width buffers are zeroed; validity buffers are omitted (length 0) for
 *   columns without NULLs. Buffers start at 8-byte offsets in the body and the body length is
 *   a multiple of 8. Utf8/Binary/List use int32 offsets: a batch whose string bytes or list
 *   elements exceed 2^31-1 fails (the server slices batches long before that).
 */
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "format/arrow/arrow_int.h"
#include "format/arrow/flatbuf.h"

/* ---- arrow_buf ------------------------------------------------------------------------------ */

void arrow_buf_init(arrow_buf *b) { memset(b, 0, sizeof *b); }

void arrow_buf_reset(arrow_buf *b) {
    free(b->data);
    memset(b, 0, sizeof *b);
}

static int buf_reserve(arrow_buf *b, size_t extra, sqe_error *err) {
    if (b->cap - b->len >= extra) return SQE_OK;
    if (extra > SIZE_MAX / 4 - b->len) return err_nomem(err, "arrow buffer");
    size_t cap = b->cap ? b->cap : 256;
    while (cap - b->len < extra) cap *= 2;
    uint8_t *p = realloc(b->data, cap);
    if (!p) return err_nomem(err, "arrow buffer");
    b->data = p;
    b->cap = cap;
    return SQE_OK;
}

int arrow_buf_append(arrow_buf *b, const void *data, size_t len, sqe_error *err) {
    SQE_TRY(buf_reserve(b, len, err));
    if (len) {
        if (data)
            memcpy(b->data + b->len, data, len);
        else
            memset(b->data + b->len, 0, len);
    }
    b->len += len;
    return SQE_OK;
}

/* ---- Batch encoding ------------------------------------------------------------------------- */

typedef struct enc_pair {
    int64_t a, b; /* FieldNode{length, null_count} or Buffer{offset, length} */
} enc_pair;

typedef struct enc {
    arrow_buf *body;
    size_t base;          /* body length on entry: buffer offsets are relative to it */
    enc_pair *nodes;
    uint32_t n_nodes, cap_nodes;
    enc_pair *bufs;
    uint32_t n_bufs, cap_bufs;
    sqe_error *err;
} enc;

static int pair_push(enc_pair **arr, uint32_t *n, uint32_t *cap, int64_t a, int64_t b,
                     sqe_error *err) {
    if (*n == *cap) {
        uint32_t nc = *cap ? *cap * 2 : 32;
        enc_pair *p = realloc(*arr, sizeof(enc_pair) * nc);
        if (!p) return err_nomem(err, "arrow batch metadata");
        *arr = p;
        *cap = nc;
    }
    (*arr)[(*n)++] = (enc_pair){a, b};
    return SQE_OK;
}

static int add_node(enc *e, int64_t length, int64_t nulls) {
    return pair_push(&e->nodes, &e->n_nodes, &e->cap_nodes, length, nulls, e->err);
}

/* Appends a zeroed buffer of len bytes at the next 8-byte offset and records it; *out points
 * at it (valid until the body grows again). */
static int add_buffer(enc *e, size_t len, uint8_t **out) {
    size_t rel = e->body->len - e->base;
    size_t pad = (8 - (rel & 7)) & 7;
    SQE_TRY(arrow_buf_append(e->body, NULL, pad, e->err));
    size_t off = e->body->len - e->base;
    SQE_TRY(arrow_buf_append(e->body, NULL, len, e->err));
    SQE_TRY(pair_push(&e->bufs, &e->n_bufs, &e->cap_bufs, (int64_t)off, (int64_t)len, e->err));
    if (out) *out = e->body->data ? e->body->data + e->base + off : NULL;
    return SQE_OK;
}

static int enc_col(enc *e, sqe_type t, const vec *v, const uint32_t *rows, uint32_t n,
                   const uint8_t *parent_null, int depth);

/* Scratch arrays of one column level. */
typedef struct level {
    uint32_t *phys;
    uint8_t *null;
    uint32_t *child_rows;
} level;

static void level_free(level *l) {
    free(l->phys);
    free(l->null);
    free(l->child_rows);
}

static int enc_list_like(enc *e, sqe_type t, const vec *flat, const level *l, uint32_t n,
                         int depth, level *scratch) {
    uint8_t *p;
    SQE_TRY(add_buffer(e, ((size_t)n + 1) * 4, &p));
    int32_t *offs = (int32_t *)p;
    uint64_t total = 0;
    for (uint32_t i = 0; i < n; i++) {
        offs[i] = (int32_t)total;
        if (!l->null[i]) total += VEC_DATA(flat, const sqe_list_entry)[l->phys[i]].length;
        if (total > INT32_MAX)
            return err_set(e->err, SQE_ERR_NOT_SUPPORTED, "arrow: batch list too large");
    }
    offs[n] = (int32_t)total;
    uint32_t *child_rows = NULL;
    if (total) {
        child_rows = malloc(sizeof(uint32_t) * total);
        if (!child_rows) return err_nomem(e->err, "arrow list rows");
        scratch->child_rows = child_rows;
        uint32_t k = 0;
        for (uint32_t i = 0; i < n; i++) {
            if (l->null[i]) continue;
            sqe_list_entry ent = VEC_DATA(flat, const sqe_list_entry)[l->phys[i]];
            for (uint32_t j = 0; j < ent.length; j++) child_rows[k++] = ent.offset + j;
        }
    }
    uint32_t n_kids = t.nested ? t.nested->n_children : 0;
    if (t.id == TYPE_ARRAY) {
        if (n_kids != 1 || (total && (!flat->children || flat->n_children < 1)))
            return err_set(e->err, SQE_ERR_GENERIC_INTERNAL_ERROR, "arrow: malformed array vector");
        return enc_col(e, t.nested->children[0], total ? &flat->children[0] : NULL, child_rows,
                       (uint32_t)total, NULL, depth + 1);
    }
    if (n_kids != 2 || (total && (!flat->children || flat->n_children < 2)))
        return err_set(e->err, SQE_ERR_GENERIC_INTERNAL_ERROR, "arrow: malformed map vector");
    /* entries struct: never null, no validity buffer */
    SQE_TRY(add_node(e, (int64_t)total, 0));
    SQE_TRY(add_buffer(e, 0, NULL));
    SQE_TRY(enc_col(e, t.nested->children[0], total ? &flat->children[0] : NULL, child_rows,
                    (uint32_t)total, NULL, depth + 2));
    return enc_col(e, t.nested->children[1], total ? &flat->children[1] : NULL, child_rows,
                   (uint32_t)total, NULL, depth + 2);
}

static int enc_values(enc *e, sqe_type t, const vec *flat, const level *l, uint32_t n,
                      int depth, level *scratch) {
    uint8_t *p;
    switch ((type_id)t.id) {
    case TYPE_BOOLEAN:
        SQE_TRY(add_buffer(e, ((size_t)n + 7) / 8, &p));
        for (uint32_t i = 0; i < n; i++)
            if (!l->null[i] && VEC_DATA(flat, const uint8_t)[l->phys[i]])
                p[i >> 3] |= (uint8_t)(1u << (i & 7));
        return SQE_OK;
    case TYPE_TINYINT:
    case TYPE_SMALLINT:
    case TYPE_INTEGER:
    case TYPE_BIGINT:
    case TYPE_REAL:
    case TYPE_DOUBLE:
    case TYPE_DATE:
    case TYPE_INTERVAL_DS:
    case TYPE_INTERVAL_YM:
    case TYPE_UUID: {
        size_t w = type_physical_size(t);
        SQE_TRY(add_buffer(e, w * n, &p));
        if (!flat) return SQE_OK;
        const uint8_t *src = flat->data;
        for (uint32_t i = 0; i < n; i++)
            if (!l->null[i]) memcpy(p + w * i, src + w * l->phys[i], w);
        return SQE_OK;
    }
    case TYPE_TIME:
    case TYPE_TIMESTAMP:
    case TYPE_TIMESTAMP_TZ: {
        /* microseconds -> the unit of the precision (arrow_unit_for_precision), floored; time in
         * seconds or milliseconds is Time32 */
        int unit = arrow_unit_for_precision(t.precision);
        int64_t div = arrow_unit_micros(unit);
        size_t w = t.id == TYPE_TIME && unit != ARROW_UNIT_MICRO ? 4 : 8;
        SQE_TRY(add_buffer(e, w * n, &p));
        if (!flat) return SQE_OK;
        for (uint32_t i = 0; i < n; i++) {
            if (l->null[i]) continue;
            int64_t us = t.id == TYPE_TIMESTAMP_TZ
                             ? VEC_DATA(flat, const sqe_timestamp_tz)[l->phys[i]].micros
                             : VEC_DATA(flat, const int64_t)[l->phys[i]];
            int64_t v = us / div - (us % div < 0);
            if (w == 4) {
                int32_t x = (int32_t)v;
                memcpy(p + 4 * (size_t)i, &x, 4);
            } else {
                memcpy(p + 8 * (size_t)i, &v, 8);
            }
        }
        return SQE_OK;
    }
    case TYPE_DECIMAL:
        SQE_TRY(add_buffer(e, (size_t)16 * n, &p));
        for (uint32_t i = 0; i < n; i++) {
            if (l->null[i]) continue;
            int128 x = type_decimal_is_long(t) ? VEC_DATA(flat, const int128)[l->phys[i]]
                                               : (int128)VEC_DATA(flat, const int64_t)[l->phys[i]];
            memcpy(p + 16 * (size_t)i, &x, 16);
        }
        return SQE_OK;
    case TYPE_VARCHAR:
    case TYPE_CHAR:
    case TYPE_VARBINARY:
    case TYPE_JSON: {
        uint64_t total = 0;
        for (uint32_t i = 0; i < n; i++)
            if (!l->null[i]) total += VEC_DATA(flat, const sqe_str)[l->phys[i]].len;
        if (total > INT32_MAX)
            return err_set(e->err, SQE_ERR_NOT_SUPPORTED, "arrow: batch strings exceed 2 GiB");
        SQE_TRY(add_buffer(e, ((size_t)n + 1) * 4, NULL));
        size_t offs_at = e->body->len - ((size_t)n + 1) * 4;
        SQE_TRY(add_buffer(e, total, &p));
        int32_t *offs = (int32_t *)(e->body->data + offs_at);
        uint32_t pos = 0;
        for (uint32_t i = 0; i < n; i++) {
            offs[i] = (int32_t)pos;
            if (l->null[i]) continue;
            const sqe_str *s = &VEC_DATA(flat, const sqe_str)[l->phys[i]];
            if (s->len) memcpy(p + pos, sqe_str_data(s), s->len);
            pos += s->len;
        }
        offs[n] = (int32_t)pos;
        return SQE_OK;
    }
    case TYPE_ARRAY:
    case TYPE_MAP:
        return enc_list_like(e, t, flat, l, n, depth, scratch);
    case TYPE_ROW: {
        uint32_t n_kids = t.nested ? t.nested->n_children : 0;
        if (n && n_kids && (!flat->children || flat->n_children < n_kids))
            return err_set(e->err, SQE_ERR_GENERIC_INTERNAL_ERROR, "arrow: malformed row vector");
        for (uint32_t c = 0; c < n_kids; c++)
            SQE_TRY(enc_col(e, t.nested->children[c], n ? &flat->children[c] : NULL, l->phys, n,
                            l->null, depth + 1));
        return SQE_OK;
    }
    case TYPE_UNKNOWN:
    case TYPE_COUNT_:
    default: break;
    }
    return err_set(e->err, SQE_ERR_GENERIC_INTERNAL_ERROR, "arrow: cannot encode type id %d", t.id);
}

static int enc_col(enc *e, sqe_type t, const vec *v, const uint32_t *rows, uint32_t n,
                   const uint8_t *parent_null, int depth) {
    if (depth > 64)
        return err_set(e->err, SQE_ERR_NOT_SUPPORTED, "arrow: type nesting too deep");
    if (t.id == TYPE_UNKNOWN) /* Null type: no buffers in V5 */
        return add_node(e, n, n);
    level l = {0};
    const vec *flat = NULL;
    int64_t nulls = 0;
    if (n) {
        l.phys = malloc(sizeof(uint32_t) * n);
        l.null = malloc(n);
        if (!l.phys || !l.null) {
            level_free(&l);
            return err_nomem(e->err, "arrow column");
        }
        for (uint32_t i = 0; i < n; i++) {
            const vec *f = vec_resolve(v, rows[i], &l.phys[i]);
            if (!flat) flat = f;
            if (f != flat) {
                level_free(&l);
                return err_set(e->err, SQE_ERR_GENERIC_INTERNAL_ERROR, "arrow: mixed vector shapes");
            }
            l.null[i] = (uint8_t)((parent_null && parent_null[i]) || !vec_is_valid_flat(f, l.phys[i]));
            nulls += l.null[i];
        }
    }
    int rc = add_node(e, n, nulls);
    if (!rc) {
        uint8_t *bits = NULL;
        rc = add_buffer(e, nulls ? ((size_t)n + 7) / 8 : 0, &bits);
        if (!rc && nulls)
            for (uint32_t i = 0; i < n; i++)
                if (!l.null[i]) bits[i >> 3] |= (uint8_t)(1u << (i & 7));
    }
    level scratch = {0};
    if (!rc) rc = enc_values(e, t, flat, &l, n, depth, &scratch);
    level_free(&scratch);
    level_free(&l);
    return rc;
}

int arrow_batch_encode(const vec_chunk *chunk, uint32_t row_start, uint32_t n_rows,
                       arrow_buf *header, arrow_buf *body, sqe_error *err) {
    if ((uint64_t)row_start + n_rows > chunk->count)
        return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "arrow: rows %u+%u beyond chunk of %u",
                       row_start, n_rows, chunk->count);
    if (body->len & 7)
        return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "arrow: body not 8-byte aligned");
    enc e = {.body = body, .base = body->len, .err = err};
    size_t header_len0 = header->len;
    uint32_t *rows = malloc(sizeof(uint32_t) * (n_rows ? n_rows : 1));
    int rc = rows ? SQE_OK : err_nomem(err, "arrow rows");
    for (uint32_t i = 0; !rc && i < n_rows; i++) rows[i] = row_start + i;
    for (uint32_t c = 0; !rc && c < chunk->n_cols; c++)
        rc = enc_col(&e, chunk->cols[c].type, &chunk->cols[c], rows, n_rows, NULL, 0);
    free(rows);
    if (!rc) {
        size_t rel = body->len - e.base;
        rc = arrow_buf_append(body, NULL, (8 - (rel & 7)) & 7, err);
    }
    if (!rc) {
        fb_builder b;
        fb_builder_init(&b);
        fb_ref nodes = fb_create_vector(&b, e.nodes, sizeof(enc_pair), e.n_nodes, 8);
        fb_ref bufs = fb_create_vector(&b, e.bufs, sizeof(enc_pair), e.n_bufs, 8);
        fb_table_start(&b);
        fb_table_add_i64(&b, RB_LENGTH, n_rows);
        fb_table_add_ref(&b, RB_NODES, nodes);
        fb_table_add_ref(&b, RB_BUFFERS, bufs);
        fb_ref rb = fb_table_end(&b);
        fb_table_start(&b);
        fb_table_add_i16(&b, MSG_VERSION, ARROW_V5);
        fb_table_add_u8(&b, MSG_HEADER_TYPE, ARROW_MSG_RECORD_BATCH);
        fb_table_add_ref(&b, MSG_HEADER, rb);
        fb_table_add_i64(&b, MSG_BODY_LENGTH, (int64_t)(body->len - e.base));
        fb_ref msg = fb_table_end(&b);
        const uint8_t *bytes;
        size_t len;
        if (!fb_builder_finish(&b, msg, &bytes, &len))
            rc = err_nomem(err, "arrow batch message");
        else
            rc = arrow_buf_append(header, bytes, len, err);
        fb_builder_reset(&b);
    }
    free(e.nodes);
    free(e.bufs);
    if (rc) {
        body->len = e.base;
        header->len = header_len0;
    }
    return rc;
}

/* ---- Framing and streams -------------------------------------------------------------------- */

int arrow_message_frame(const uint8_t *header, size_t header_len, const uint8_t *body,
                        size_t body_len, arrow_buf *out, sqe_error *err) {
    size_t padded = (header_len + 7) & ~(size_t)7;
    if (padded > INT32_MAX)
        return err_set(err, SQE_ERR_NOT_SUPPORTED, "arrow: message metadata too large");
    if (body_len & 7)
        return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "arrow: body length not a multiple of 8");
    size_t len0 = out->len;
    uint32_t prefix[2] = {0xFFFFFFFFu, (uint32_t)padded};
    int rc = buf_reserve(out, 8 + padded + body_len, err);
    if (!rc) rc = arrow_buf_append(out, prefix, 8, err);
    if (!rc) rc = arrow_buf_append(out, header, header_len, err);
    if (!rc) rc = arrow_buf_append(out, NULL, padded - header_len, err);
    if (!rc) rc = arrow_buf_append(out, body, body_len, err);
    if (rc) out->len = len0;
    return rc;
}

int arrow_stream_write_schema(arrow_buf *out, const arrow_schema *schema, sqe_error *err) {
    arrow_buf h;
    arrow_buf_init(&h);
    int rc = arrow_schema_encode(schema, &h, err);
    if (!rc) rc = arrow_message_frame(h.data, h.len, NULL, 0, out, err);
    arrow_buf_reset(&h);
    return rc;
}

int arrow_stream_write_batch(arrow_buf *out, const vec_chunk *chunk, uint32_t row_start,
                             uint32_t n_rows, sqe_error *err) {
    arrow_buf h, body;
    arrow_buf_init(&h);
    arrow_buf_init(&body);
    int rc = arrow_batch_encode(chunk, row_start, n_rows, &h, &body, err);
    if (!rc) rc = arrow_message_frame(h.data, h.len, body.data, body.len, out, err);
    arrow_buf_reset(&h);
    arrow_buf_reset(&body);
    return rc;
}

int arrow_stream_write_eos(arrow_buf *out, sqe_error *err) {
    uint32_t eos[2] = {0xFFFFFFFFu, 0};
    return arrow_buf_append(out, eos, 8, err);
}
