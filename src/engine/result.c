/*
 * result.c: statement results (sqe_result) and chunk access (sqe_chunk) of the public API.
 *
 * INTERFACE: engine_result_create, engine_result_add_text_row, engine_result_set_update_count,
 *   engine_result_count,
 *   sqe_result_column_count/name/type, sqe_result_update_count, sqe_result_next,
 *   sqe_result_destroy, sqe_chunk_row_count, sqe_chunk_is_null, sqe_chunk_format. What the
 *   statement did (sqe_effects.h) is in effects.c; a result owns that report (r->fx).
 * NOTES: a query result streams chunks from its exec_query and owns the query's arena, plan and
 * memory tracker until destroyed; results of SHOW and EXPLAIN are small and held as chunks.
 * A query result hands out at most row_limit rows ([query] max_result_rows in the server): the
 * chunk that would go past it is an EXCEEDED_RESULT_ROWS_LIMIT error instead.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "vec/vec_format.h"

int engine_result_create(uint32_t n_cols, const char *const *names, const sqe_type *types,
                         sqe_result **out, sqe_error *err) {
    sqe_result *r = calloc(1, sizeof *r);
    if (!r) return err_nomem(err, "result");
    r->update_count = -1;
    r->n_cols = n_cols;
    r->names = calloc(n_cols + 1, sizeof(char *));
    r->types = calloc(n_cols + 1, sizeof(char *));
    r->col_types = calloc(n_cols + 1, sizeof(sqe_type));
    if (!r->names || !r->types || !r->col_types) {
        sqe_result_destroy(r);
        return err_nomem(err, "result");
    }
    for (uint32_t i = 0; i < n_cols; i++) {
        char buf[256];
        sqe_type t = types ? types[i] : type_varchar(0);
        type_format(t, buf, sizeof buf);
        r->names[i] = strdup(names[i] ? names[i] : "");
        r->types[i] = strdup(buf);
        r->col_types[i] = t;
        if (!r->names[i] || !r->types[i]) {
            sqe_result_destroy(r);
            return err_nomem(err, "result");
        }
    }
    *out = r;
    return SQE_OK;
}

int engine_result_set_columns(sqe_result *r, uint32_t n_cols, const char *const *names,
                              const sqe_type *types, sqe_error *err) {
    char **nm = calloc(n_cols + 1, sizeof(char *));
    char **ty = calloc(n_cols + 1, sizeof(char *));
    sqe_type *ct = calloc(n_cols + 1, sizeof(sqe_type));
    if (!nm || !ty || !ct) goto out_nomem;
    for (uint32_t i = 0; i < n_cols; i++) {
        char buf[256];
        type_format(types[i], buf, sizeof buf);
        nm[i] = strdup(names[i] ? names[i] : "");
        ty[i] = strdup(buf);
        ct[i] = types[i];
        if (!nm[i] || !ty[i]) goto out_nomem;
    }
    for (uint32_t i = 0; i < r->n_cols; i++) {
        free(r->names[i]);
        free(r->types[i]);
    }
    free(r->names);
    free(r->types);
    free(r->col_types);
    r->names = nm;
    r->types = ty;
    r->col_types = ct;
    r->n_cols = n_cols;
    return SQE_OK;
out_nomem:
    for (uint32_t i = 0; nm && ty && i < n_cols; i++) {
        free(nm[i]);
        free(ty[i]);
    }
    free(nm);
    free(ty);
    free(ct);
    return err_nomem(err, "result");
}

vec_chunk *engine_result_last_chunk(sqe_result *r) {
    return r->n_chunks ? r->chunks[r->n_chunks - 1] : NULL;
}

int engine_result_add_text_row(sqe_result *r, const char *const *cells, sqe_error *err) {
    vec_chunk *c = r->n_chunks ? r->chunks[r->n_chunks - 1] : NULL;
    if (!c || c->count == c->capacity) {
        vec_chunk **grown = realloc(r->chunks, (r->n_chunks + 1) * sizeof(vec_chunk *));
        if (!grown) return err_nomem(err, "result");
        r->chunks = grown;
        c = calloc(1, sizeof *c);
        if (!c) return err_nomem(err, "result");
        int rc = vec_chunk_init(c, r->n_cols, r->col_types, VEC_CHUNK_SIZE, NULL, err);
        if (rc) {
            vec_chunk_destroy(c);
            free(c);
            return rc;
        }
        r->chunks[r->n_chunks++] = c;
    }
    uint32_t row = c->count;
    for (uint32_t i = 0; i < r->n_cols; i++) {
        vec *v = &c->cols[i];
        if (!cells[i]) {
            if (vec_set_null(v, row)) return err_nomem(err, "result");
            continue;
        }
        if (v->type.id == TYPE_BIGINT) {
            VEC_DATA(v, int64_t)[row] = strtoll(cells[i], NULL, 10);
        } else if (v->type.id == TYPE_BOOLEAN) {
            VEC_DATA(v, uint8_t)[row] = strcmp(cells[i], "true") == 0;
        } else {
            bool ok = true;
            VEC_DATA(v, sqe_str)[row] = vec_str_copy(v, cells[i], (uint32_t)strlen(cells[i]), &ok);
            if (!ok) return err_nomem(err, "result");
        }
    }
    c->count++;
    return SQE_OK;
}

int engine_result_set_update_count(sqe_result *r, int64_t n) {
    r->update_count = n;
    return SQE_OK;
}

int sqe_result_column_count(const sqe_result *res) { return (int)res->n_cols; }

const char *sqe_result_column_name(const sqe_result *res, int col) {
    return col >= 0 && (uint32_t)col < res->n_cols ? res->names[col] : NULL;
}

const char *sqe_result_column_type(const sqe_result *res, int col) {
    return col >= 0 && (uint32_t)col < res->n_cols ? res->types[col] : NULL;
}

int64_t sqe_result_update_count(const sqe_result *res) { return res->update_count; }

int sqe_result_next(sqe_result *res, const sqe_chunk **out, sqe_error *err) {
    *out = NULL;
    if (res->query) {
        const vec_chunk *c;
        for (;;) {
            SQE_TRY(exec_query_next(res->query, &c, err));
            if (!c) return SQE_OK;
            if (c->count > 0) break;
        }
        if (res->row_limit > 0 && res->rows_out + (int64_t)c->count > res->row_limit)
            return err_set(err, SQE_ERR_EXCEEDED_RESULT_ROWS_LIMIT,
                           "Query exceeded the maximum result size of %lld rows ([query] "
                           "max_result_rows); add a LIMIT or aggregate",
                           (long long)res->row_limit);
        res->rows_out += (int64_t)c->count;
        res->current.chunk = c;
        *out = &res->current;
        return SQE_OK;
    }
    while (res->next_chunk < res->n_chunks) {
        const vec_chunk *c = res->chunks[res->next_chunk++];
        if (c->count == 0) continue;
        res->current.chunk = c;
        *out = &res->current;
        return SQE_OK;
    }
    return SQE_OK;
}

void sqe_result_destroy(sqe_result *res) {
    if (!res) return;
    if (res->query) exec_query_destroy(res->query);
    if (res->has_plan) {
        plan_ctx_destroy(&res->pctx);
        arena_destroy(&res->arena);
    }
    db_user_memory_release(res->db, res->user_mem); /* after everything charged to it */
    if (res->has_ast) arena_destroy(&res->ast_arena);
    for (uint32_t i = 0; i < res->n_chunks; i++) {
        vec_chunk_destroy(res->chunks[i]);
        free(res->chunks[i]);
    }
    free(res->chunks);
    for (uint32_t i = 0; i < res->n_cols; i++) {
        if (res->names) free(res->names[i]);
        if (res->types) free(res->types[i]);
    }
    free(res->names);
    free(res->types);
    free(res->col_types);
    engine_effects_clear(&res->fx);
    free(res);
}

int sqe_chunk_row_count(const sqe_chunk *chunk) { return (int)chunk->chunk->count; }

int sqe_chunk_is_null(const sqe_chunk *chunk, int col, int row) {
    return vec_is_null(&chunk->chunk->cols[col], (uint32_t)row);
}

size_t sqe_chunk_format(const sqe_chunk *chunk, int col, int row, char *buf, size_t buf_len) {
    strbuf sb;
    strbuf_init(&sb);
    vec_format_value(&chunk->chunk->cols[col], (uint32_t)row, &sb);
    size_t need = sb.len;
    if (buf_len) {
        size_t n = need < buf_len - 1 ? need : buf_len - 1;
        memcpy(buf, strbuf_cstr(&sb), n);
        buf[n] = 0;
    }
    strbuf_reset(&sb);
    return need;
}

int engine_result_count(int64_t n, sqe_result **out, sqe_error *err) {
    const char *name = "rows";
    sqe_type t = type_make(TYPE_BIGINT);
    SQE_TRY(engine_result_create(1, &name, &t, out, err));
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", (long long)n);
    const char *cell = buf;
    int rc = engine_result_add_text_row(*out, &cell, err);
    if (rc) {
        sqe_result_destroy(*out);
        *out = NULL;
        return rc;
    }
    engine_result_set_update_count(*out, n);
    return SQE_OK;
}
