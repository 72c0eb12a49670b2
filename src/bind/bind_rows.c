/*
 * bind_rows.c: small tables whose rows are built at bind time (parquet_metadata,
 * parquet_schema, Iceberg metadata tables): a plan_source over column vectors the binder fills
 * row by row.
 *
 * INTERFACE: bind_rows_init, bind_rows_init_types, bind_rb_* (bind_int.h).
 */
#include "bind/bind_int.h"

#include <stdlib.h>
#include <string.h>

typedef struct rows_reader {
    bind_rows *st;
    uint32_t pos;
    uint32_t *columns;           /* the projected columns */
} rows_reader;

static void rows_destroy(void *state) {
    bind_rows *st = state;
    if (!st) return;
    for (uint32_t i = 0; i < st->n_cols; i++) vec_destroy(&st->cols[i]);
    free(st->cols);
    free(st);
}

static int rows_open(void *state, uint32_t morsel, const uint32_t *columns, uint32_t n_columns,
                     void **reader, sqe_error *err) {
    (void)morsel;
    rows_reader *r = calloc(1, sizeof *r);
    uint32_t *c = malloc((n_columns ? n_columns : 1) * sizeof *c);
    if (!r || !c) {
        free(r);
        free(c);
        return err_nomem(err, "table function");
    }
    memcpy(c, columns, n_columns * sizeof *c);
    r->st = state;
    r->columns = c;
    *reader = r;
    return SQE_OK;
}

static int rows_next(void *reader, vec_chunk *out, sqe_error *err) {
    rows_reader *r = reader;
    uint32_t n = r->st->n_rows - r->pos;
    if (n > out->capacity) n = out->capacity;
    for (uint32_t i = 0; i < out->n_cols && n; i++)
        SQE_TRY(vec_copy_rows(&out->cols[i], 0, &r->st->cols[r->columns[i]], r->pos, n, err));
    r->pos += n;
    out->count = n;
    return SQE_OK;
}

static void rows_close(void *reader) {
    rows_reader *r = reader;
    if (!r) return;
    free(r->columns);
    free(r);
}

int bind_rows_init_types(binder *b, bind_rows **out, const char *const *names_in,
                         const sqe_type *types_in, uint32_t n, plan_source **src_out) {
    bind_rows *st = calloc(1, sizeof *st);
    if (!st) return bind_nomem(b);
    plan_source *src;
    SQE_TRY(bind_tfunc_source_new(b, st, rows_destroy, &src));
    st->cols = calloc(n, sizeof *st->cols);
    BIND_CHECK(b, st->cols);
    st->n_cols = n;
    const char **names = ARENA_ARRAY(b->pctx->arena, const char *, n);
    sqe_type *types = ARENA_ARRAY(b->pctx->arena, sqe_type, n);
    BIND_CHECK(b, names && types);
    for (uint32_t i = 0; i < n; i++) {
        names[i] = names_in[i];
        types[i] = types_in[i];
        SQE_TRY(vec_init(&st->cols[i], types[i], 64, b->pctx->tracker, b->err));
    }
    src->n_columns = n;
    src->names = names;
    src->types = types;
    src->open = rows_open;
    src->next = rows_next;
    src->close = rows_close;
    *out = st;
    *src_out = src;
    return SQE_OK;
}

int bind_rows_init(binder *b, bind_rows **out, const bind_rows_col *defs, uint32_t n,
                   plan_source **src_out) {
    const char **names = ARENA_ARRAY(b->pctx->arena, const char *, n + 1);
    sqe_type *types = ARENA_ARRAY(b->pctx->arena, sqe_type, n + 1);
    BIND_CHECK(b, names && types);
    for (uint32_t i = 0; i < n; i++) {
        names[i] = defs[i].name;
        types[i] = defs[i].type == TYPE_VARCHAR ? type_varchar(0) : type_make(defs[i].type);
    }
    return bind_rows_init_types(b, out, names, types, n, src_out);
}

int bind_rb_reserve(bind_rows_builder *rb) {
    for (uint32_t i = 0; i < rb->st->n_cols; i++)
        SQE_TRY(vec_reserve(&rb->st->cols[i], rb->row + 1, rb->b->err));
    return SQE_OK;
}

void bind_rb_int(bind_rows_builder *rb, uint32_t c, int64_t v) {
    vec *col = &rb->st->cols[c];
    switch (type_physical_size(col->type)) {
    case 4: VEC_DATA(col, int32_t)[rb->row] = (int32_t)v; break;
    default: VEC_DATA(col, int64_t)[rb->row] = v; break;
    }
}

void bind_rb_bool(bind_rows_builder *rb, uint32_t c, bool v) {
    VEC_DATA(&rb->st->cols[c], bool)[rb->row] = v;
}

void bind_rb_timestamp_tz(bind_rows_builder *rb, uint32_t c, int64_t utc_micros) {
    sqe_timestamp_tz *t = &VEC_DATA(&rb->st->cols[c], sqe_timestamp_tz)[rb->row];
    memset(t, 0, sizeof *t);
    t->micros = utc_micros;
}

int bind_rb_null(bind_rows_builder *rb, uint32_t c) {
    return vec_set_null(&rb->st->cols[c], rb->row) ? bind_nomem(rb->b) : SQE_OK;
}

static sqe_str copy_str(binder *b, vec *v, const char *s, int *rc) {
    bool ok = true;
    sqe_str r = vec_str_copy(v, s, (uint32_t)strlen(s), &ok);
    if (!ok) *rc = bind_nomem(b);
    return r;
}

int bind_rb_str(bind_rows_builder *rb, uint32_t c, const char *s) {
    if (!s) return bind_rb_null(rb, c);
    int rc = SQE_OK;
    VEC_DATA(&rb->st->cols[c], sqe_str)[rb->row] = copy_str(rb->b, &rb->st->cols[c], s, &rc);
    return rc;
}

int bind_rb_str_map(bind_rows_builder *rb, uint32_t c, const char *const *keys,
                    const char *const *values, uint32_t n) {
    vec *m = &rb->st->cols[c];
    uint32_t at = m->child_len;
    SQE_TRY(vec_reserve(&m->children[0], at + n + 1, rb->b->err));
    SQE_TRY(vec_reserve(&m->children[1], at + n + 1, rb->b->err));
    int rc = SQE_OK;
    for (uint32_t i = 0; i < n && !rc; i++) {
        VEC_DATA(&m->children[0], sqe_str)[at + i] = copy_str(rb->b, &m->children[0], keys[i], &rc);
        if (!values[i]) {
            if (vec_set_null(&m->children[1], at + i)) rc = bind_nomem(rb->b);
        } else {
            VEC_DATA(&m->children[1], sqe_str)[at + i] =
                copy_str(rb->b, &m->children[1], values[i], &rc);
        }
    }
    SQE_TRY(rc);
    m->child_len = at + n;
    VEC_DATA(m, sqe_list_entry)[rb->row] = (sqe_list_entry){at, n};
    return SQE_OK;
}
