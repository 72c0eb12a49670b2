/*
 * scan_task_run.c: a scan task's residual, limit and partial aggregation over the rows
 * scan_task_reader produces, and the coordinator's final merge (see scan_task_run.h).
 *
 * INTERFACE: scan_task_output_types, scan_task_run, scan_task_final_create,
 *   scan_task_final_add, scan_task_final_finish, scan_task_final_destroy.
 * NOTES
 *   The residual is compiled once with exec_expr_compile against a layout whose column ids are
 *   scan_task_col_id(i), so the decoded tree runs exactly as a bound one does.
 *   Groups are found through an open-addressing table over a canonical key (per key column: a
 *   NULL byte, then the value: fixed-width bytes with floats normalized and timestamps with
 *   time zone reduced to their instant, or length + bytes); the first row of a group also
 *   keeps its full value bytes, which the output decodes. States are 16-byte aligned blocks
 *   in the group arena, one slot per aggregate.
 */
#include "exec/scan_task_run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"
#include "exec/exec_int.h"
#include "scan/scan_task_read.h"

uint32_t scan_task_output_types(const scan_task *t, sqe_type *types) {
    if (!t->aggregate) {
        for (uint32_t i = 0; i < t->n_output; i++) types[i] = t->columns[t->output[i]].type;
        return t->n_output;
    }
    for (uint32_t i = 0; i < t->n_keys; i++) types[i] = t->columns[t->keys[i]].type;
    for (uint32_t i = 0; i < t->n_aggs; i++) types[t->n_keys + i] = type_make(TYPE_VARBINARY);
    return t->n_keys + t->n_aggs;
}

/* ---- groups ---- */

typedef struct group {
    uint64_t hash;
    const uint8_t *key, *full;
    uint32_t key_len, full_len;
    uint8_t *states;
} group;

typedef struct grouper {
    const scan_task *t;
    arena a;
    group *g;
    uint32_t n, cap;
    uint32_t *slots;          /* group index + 1; 0 = empty */
    uint32_t n_slots;
    uint32_t *state_off;
    uint32_t state_total;
    sqe_type *key_types;
    strbuf kbuf, fbuf;
    func_ctx fctx;
    arena scratch;
    sqe_error *err;
} grouper;

static void grouper_destroy(grouper *gr) {
    arena_destroy(&gr->a);
    arena_destroy(&gr->scratch);
    free(gr->g);
    free(gr->slots);
    free(gr->state_off);
    free(gr->key_types);
    strbuf_reset(&gr->kbuf);
    strbuf_reset(&gr->fbuf);
}

static int grouper_init(grouper *gr, const scan_task *t, const scan_task_run_options *o,
                        sqe_error *err) {
    memset(gr, 0, sizeof *gr);
    gr->t = t;
    arena_init(&gr->a, NULL);
    arena_init(&gr->scratch, NULL);
    strbuf_init(&gr->kbuf);
    strbuf_init(&gr->fbuf);
    gr->err = err;
    gr->state_off = calloc(t->n_aggs + 1, sizeof *gr->state_off);
    gr->key_types = calloc(t->n_keys + 1, sizeof *gr->key_types);
    gr->n_slots = 1024;
    gr->slots = calloc(gr->n_slots, sizeof *gr->slots);
    if (!gr->state_off || !gr->key_types || !gr->slots) return err_nomem(err, "scan task aggregation");
    for (uint32_t i = 0; i < t->n_keys; i++) {
        gr->key_types[i] = t->columns[t->keys[i]].type;
        if (type_is_nested(gr->key_types[i]))
            return err_set(err, SQE_ERR_NOT_SUPPORTED,
                           "unsupported: a group key of a nested type in a scan task");
    }
    for (uint32_t i = 0; i < t->n_aggs; i++) {
        const func_agg_def *d = t->aggs[i].def;
        if (!d)
            return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                           "scan task: aggregate %s is not resolved", t->aggs[i].name);
        if (d->destroy)
            return err_set(err, SQE_ERR_NOT_SUPPORTED,
                           "unsupported: the partial state of aggregate %s owns memory and cannot "
                           "leave a scan task", d->name);
        gr->state_off[i] = gr->state_total;
        gr->state_total += (d->state_size + 15u) & ~15u;
    }
    gr->fctx.tracker = o ? o->tracker : NULL;
    gr->fctx.scratch = &gr->scratch;
    gr->fctx.session_zone = o ? o->session_zone : 0;
    gr->fctx.query_start_micros = o ? o->query_start_micros : 0;
    gr->fctx.cancel = o ? o->cancel : NULL;
    gr->fctx.err = err;
    return SQE_OK;
}

/* Appends row `row` of v to the canonical key k and the full value f. */
static void key_append(strbuf *k, strbuf *f, const vec *v, uint32_t row) {
    if (vec_is_null(v, row)) {
        strbuf_putc(k, 1);
        strbuf_putc(f, 1);
        return;
    }
    strbuf_putc(k, 0);
    strbuf_putc(f, 0);
    uint32_t phys;
    const vec *flat = vec_resolve(v, row, &phys);
    sqe_type t = v->type;
    if (type_is_string_view(t)) {
        const sqe_str *s = &VEC_DATA(flat, sqe_str)[phys];
        uint32_t n = s->len;
        strbuf_append(k, (const char *)&n, 4);
        strbuf_append(k, sqe_str_data(s), n);
        strbuf_append(f, (const char *)&n, 4);
        strbuf_append(f, sqe_str_data(s), n);
        return;
    }
    size_t size = type_physical_size(t);
    const uint8_t *p = (const uint8_t *)flat->data + (size_t)phys * size;
    strbuf_append(f, (const char *)p, size);
    if (t.id == TYPE_DOUBLE) {
        double d;
        memcpy(&d, p, 8);
        if (d == 0) d = 0;
        if (isnan(d)) d = NAN;
        strbuf_append(k, (const char *)&d, 8);
    } else if (t.id == TYPE_REAL) {
        float d;
        memcpy(&d, p, 4);
        if (d == 0) d = 0;
        if (isnan(d)) d = NAN;
        strbuf_append(k, (const char *)&d, 4);
    } else if (t.id == TYPE_TIMESTAMP_TZ) {
        strbuf_append(k, (const char *)p, 8); /* the instant */
    } else {
        strbuf_append(k, (const char *)p, size);
    }
}

static int grow_slots(grouper *gr) {
    uint32_t n = gr->n_slots * 2;
    uint32_t *s = calloc(n, sizeof *s);
    if (!s) return err_nomem(gr->err, "scan task aggregation");
    for (uint32_t i = 0; i < gr->n; i++) {
        uint32_t at = (uint32_t)(gr->g[i].hash & (n - 1));
        while (s[at]) at = (at + 1) & (n - 1);
        s[at] = i + 1;
    }
    free(gr->slots);
    gr->slots = s;
    gr->n_slots = n;
    return SQE_OK;
}

/* The group of the key in kbuf/fbuf (created with initialized states when new). */
static int find_group(grouper *gr, group **out) {
    if (gr->kbuf.failed || gr->fbuf.failed) return err_nomem(gr->err, "scan task aggregation");
    const uint8_t *k = (const uint8_t *)(gr->kbuf.data ? gr->kbuf.data : "");
    uint32_t kl = (uint32_t)gr->kbuf.len;
    uint64_t h = hash_bytes(k, kl);
    uint32_t at = (uint32_t)(h & (gr->n_slots - 1));
    while (gr->slots[at]) {
        group *g = &gr->g[gr->slots[at] - 1];
        if (g->hash == h && g->key_len == kl && !memcmp(g->key, k, kl)) {
            *out = g;
            return SQE_OK;
        }
        at = (at + 1) & (gr->n_slots - 1);
    }
    if (gr->n == gr->cap) {
        uint32_t cap = gr->cap ? gr->cap * 2 : 64;
        group *ng = realloc(gr->g, cap * sizeof *ng);
        if (!ng) return err_nomem(gr->err, "scan task aggregation");
        gr->g = ng;
        gr->cap = cap;
    }
    group *g = &gr->g[gr->n];
    g->hash = h;
    g->key_len = kl;
    g->full_len = (uint32_t)gr->fbuf.len;
    g->key = arena_memdup(&gr->a, k, kl ? kl : 1);
    g->full = arena_memdup(&gr->a, gr->fbuf.data ? gr->fbuf.data : "", g->full_len ? g->full_len : 1);
    g->states = arena_alloc(&gr->a, gr->state_total ? gr->state_total : 16);
    if (!g->key || !g->full || !g->states) return err_nomem(gr->err, "scan task aggregation");
    memset(g->states, 0, gr->state_total);
    for (uint32_t i = 0; i < gr->t->n_aggs; i++)
        gr->t->aggs[i].def->init(gr->t->aggs[i].bind_data, g->states + gr->state_off[i]);
    gr->slots[at] = gr->n + 1;
    gr->n++;
    if (gr->n * 2 > gr->n_slots) SQE_TRY(grow_slots(gr));
    *out = &gr->g[gr->n - 1];
    return SQE_OK;
}

/* The group of row `row` of key vectors keys[0..n_keys). */
static int row_group(grouper *gr, const vec *const *keys, uint32_t row, group **out) {
    strbuf_clear(&gr->kbuf);
    strbuf_clear(&gr->fbuf);
    for (uint32_t k = 0; k < gr->t->n_keys; k++) key_append(&gr->kbuf, &gr->fbuf, keys[k], row);
    return find_group(gr, out);
}

/* Writes the full key bytes of g into row `row` of the key columns of c (strings referenced). */
static void key_output(const grouper *gr, const group *g, vec_chunk *c, uint32_t row) {
    const uint8_t *p = g->full;
    for (uint32_t k = 0; k < gr->t->n_keys; k++) {
        vec *v = &c->cols[k];
        bool null = *p++ == 1;
        if (null) {
            vec_set_null(v, row);
            continue;
        }
        if (type_is_string_view(v->type)) {
            uint32_t n;
            memcpy(&n, p, 4);
            VEC_DATA(v, sqe_str)[row] = sqe_str_make((const char *)p + 4, n);
            p += 4 + n;
        } else {
            size_t size = type_physical_size(v->type);
            memcpy((uint8_t *)v->data + (size_t)row * size, p, size);
            p += size;
        }
    }
}

/* ---- running a task ---- */

typedef struct runner {
    const scan_task *t;
    scan_task_run_options o;
    exec_query_ctx q;
    arena qarena;
    exec_expr_state *residual;
    scan_task_reader *reader;
    vec_chunk in, out;
    uint32_t *sel;
    grouper gr;
    bool gr_ready;
    uint8_t **states;
} runner;

static int compile_residual(runner *r, sqe_error *err) {
    const scan_task *t = r->t;
    r->q.tracker = r->o.tracker;
    r->q.session_zone = r->o.session_zone;
    r->q.query_start_micros = r->o.query_start_micros;
    r->q.arena = &r->qarena;
    r->q.cancel = r->o.cancel;
    r->q.threads = 1;
    if (!t->residual) return SQE_OK;
    plan_col *cols = ARENA_ARRAY(&r->qarena, plan_col, t->n_columns + 1);
    if (!cols) return err_nomem(err, "scan task");
    for (uint32_t i = 0; i < t->n_columns; i++)
        cols[i] = (plan_col){scan_task_col_id(i), t->columns[i].type, t->columns[i].name};
    exec_layout layout = {cols, t->n_columns};
    exec_expr *x;
    SQE_TRY(exec_expr_compile(&r->q, t->residual, &layout, &x, err));
    return exec_expr_state_create(x, &r->q, &r->residual, err);
}

static int aggregate_rows(runner *r, const uint32_t *sel, uint32_t n, sqe_error *err) {
    const scan_task *t = r->t;
    const vec *keys[t->n_keys ? t->n_keys : 1];
    for (uint32_t k = 0; k < t->n_keys; k++) keys[k] = &r->in.cols[t->keys[k]];
    /* group states live in the group arena: their addresses stay valid as groups are added */
    uint8_t *row_states[VEC_CHUNK_SIZE];
    for (uint32_t i = 0; i < n; i++) {
        group *g;
        SQE_TRY(row_group(&r->gr, keys, sel ? sel[i] : i, &g));
        row_states[i] = g->states;
    }
    for (uint32_t a = 0; a < t->n_aggs; a++) {
        const scan_task_agg *g = &t->aggs[a];
        const vec *args[g->n_args ? g->n_args : 1];
        for (uint32_t k = 0; k < g->n_args; k++) args[k] = &r->in.cols[g->args[k]];
        for (uint32_t i = 0; i < n; i++)
            r->states[sel ? sel[i] : i] = row_states[i] + r->gr.state_off[a];
        r->gr.fctx.bind_data = g->bind_data;
        SQE_TRY(g->def->update(&r->gr.fctx, args, g->n_args, sel, n, r->states));
        arena_reset(&r->gr.scratch);
    }
    return SQE_OK;
}

/* Emits the groups of gr: with states (partial) or finalized (final). */
static int emit_groups(grouper *gr, bool final, const scan_task_run_options *o,
                       scan_task_emit_fn emit, void *ud, sqe_error *err) {
    const scan_task *t = gr->t;
    uint32_t nc = t->n_keys + t->n_aggs;
    sqe_type types[nc ? nc : 1];
    for (uint32_t k = 0; k < t->n_keys; k++) types[k] = gr->key_types[k];
    for (uint32_t a = 0; a < t->n_aggs; a++)
        types[t->n_keys + a] = final ? t->aggs[a].ret : type_make(TYPE_VARBINARY);
    vec_chunk c;
    SQE_TRY(vec_chunk_init(&c, nc, types, VEC_CHUNK_SIZE, o ? o->tracker : NULL, err));
    int rc = SQE_OK;
    for (uint32_t at = 0; !rc && at < gr->n; at += VEC_CHUNK_SIZE) {
        vec_chunk_reset(&c);
        uint32_t n = gr->n - at < VEC_CHUNK_SIZE ? gr->n - at : VEC_CHUNK_SIZE;
        for (uint32_t i = 0; !rc && i < n; i++) {
            const group *g = &gr->g[at + i];
            key_output(gr, g, &c, i);
            for (uint32_t a = 0; !rc && a < t->n_aggs; a++) {
                const func_agg_def *d = t->aggs[a].def;
                const uint8_t *st = g->states + gr->state_off[a];
                vec *v = &c.cols[t->n_keys + a];
                if (final) {
                    gr->fctx.bind_data = t->aggs[a].bind_data;
                    rc = d->finalize(&gr->fctx, st, v, i);
                } else {
                    VEC_DATA(v, sqe_str)[i] = sqe_str_make((const char *)st, d->state_size);
                }
            }
        }
        c.count = n;
        if (!rc) rc = emit(ud, &c, err);
        arena_reset(&gr->scratch);
    }
    vec_chunk_destroy(&c);
    return rc;
}

static int run_rows(runner *r, scan_task_emit_fn emit, void *ud, sqe_error *err) {
    const scan_task *t = r->t;
    int64_t produced = 0;
    for (;;) {
        if (r->o.cancel && __atomic_load_n(r->o.cancel, __ATOMIC_RELAXED))
            return err_set(err, SQE_ERR_USER_CANCELED, "Query was canceled");
        if (t->limit >= 0 && produced >= t->limit) return SQE_OK;
        vec_chunk_reset(&r->in);
        SQE_TRY(scan_task_reader_next(r->reader, &r->in, err));
        if (!r->in.count) return SQE_OK;
        uint32_t n = r->in.count;
        const uint32_t *sel = NULL;
        if (r->residual) {
            SQE_TRY(exec_expr_select(r->residual, &r->in, NULL, r->in.count, r->sel, &n, err));
            sel = r->sel;
        }
        if (t->aggregate) {
            SQE_TRY(aggregate_rows(r, sel, n, err));
            continue;
        }
        if (t->limit >= 0 && (int64_t)n > t->limit - produced) n = (uint32_t)(t->limit - produced);
        if (!n) continue;
        if (!sel) {
            for (uint32_t i = 0; i < n; i++) r->sel[i] = i;
            sel = r->sel;
        }
        vec_chunk_reset(&r->out);
        for (uint32_t j = 0; j < t->n_output; j++)
            vec_set_dict(&r->out.cols[j], &r->in.cols[t->output[j]], sel);
        r->out.count = n;
        produced += n;
        SQE_TRY(emit(ud, &r->out, err));
    }
}

int scan_task_run(const scan_task *t, const scan_task_run_options *o, scan_task_emit_fn emit,
                  void *ud, sqe_error *err) {
    runner r;
    memset(&r, 0, sizeof r);
    r.t = t;
    if (o) r.o = *o;
    arena_init(&r.qarena, NULL);
    int rc = scan_task_validate(t, err);
    if (!rc && t->aggregate) {
        r.gr_ready = true;
        rc = grouper_init(&r.gr, t, &r.o, err);
        if (!rc && !t->n_keys) { /* a global aggregate has its one row even over no input */
            group *g;
            rc = row_group(&r.gr, NULL, 0, &g);
        }
        if (!rc && !(r.states = calloc(VEC_CHUNK_SIZE, sizeof *r.states)))
            rc = err_nomem(err, "scan task");
    }
    if (!rc) rc = compile_residual(&r, err);
    if (!rc) rc = scan_task_reader_open(t, r.o.tracker, &r.reader, err);
    if (!rc)
        rc = vec_chunk_init(&r.in, t->n_columns, scan_task_reader_types(r.reader), VEC_CHUNK_SIZE,
                            r.o.tracker, err);
    if (!rc && !t->aggregate) {
        sqe_type types[t->n_output ? t->n_output : 1];
        scan_task_output_types(t, types);
        rc = vec_chunk_init(&r.out, t->n_output, types, VEC_CHUNK_SIZE, r.o.tracker, err);
    }
    if (!rc && !(r.sel = malloc(VEC_CHUNK_SIZE * sizeof *r.sel))) rc = err_nomem(err, "scan task");
    if (!rc) rc = run_rows(&r, emit, ud, err);
    if (!rc && t->aggregate) rc = emit_groups(&r.gr, false, &r.o, emit, ud, err);
    vec_chunk_reset(&r.out); /* dictionary views of r.in go first */
    vec_chunk_destroy(&r.out);
    vec_chunk_destroy(&r.in);
    scan_task_reader_close(r.reader);
    exec_expr_state_destroy(r.residual);
    if (r.gr_ready) grouper_destroy(&r.gr);
    free(r.states);
    free(r.sel);
    arena_destroy(&r.qarena);
    return rc;
}

/* ---- the coordinator's merge ---- */

struct scan_task_final {
    grouper gr;
    scan_task_run_options o;
    uint8_t *tmp;             /* an aligned copy of one partial state */
};

int scan_task_final_create(const scan_task *t, const scan_task_run_options *o,
                           scan_task_final **out, sqe_error *err) {
    *out = NULL;
    if (!t->aggregate)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "scan task: no aggregation to finalize");
    scan_task_final *f = calloc(1, sizeof *f);
    if (!f) return err_nomem(err, "scan task");
    if (o) f->o = *o;
    int rc = grouper_init(&f->gr, t, &f->o, err);
    if (!rc && !(f->tmp = aligned_alloc(16, f->gr.state_total + 16))) rc = err_nomem(err, "scan task");
    if (!rc && !t->n_keys) {
        group *g;
        rc = row_group(&f->gr, NULL, 0, &g);
    }
    if (rc) {
        scan_task_final_destroy(f);
        return rc;
    }
    *out = f;
    return SQE_OK;
}

int scan_task_final_add(scan_task_final *f, const vec_chunk *c, sqe_error *err) {
    grouper *gr = &f->gr;
    const scan_task *t = gr->t;
    if (c->n_cols != t->n_keys + t->n_aggs)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                       "scan task: a partial result of %u columns, expected %u", c->n_cols,
                       t->n_keys + t->n_aggs);
    for (uint32_t k = 0; k < t->n_keys; k++)
        if (!type_equal(c->cols[k].type, gr->key_types[k]))
            return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "scan task: group key %u has another type", k);
    const vec *keys[t->n_keys ? t->n_keys : 1];
    for (uint32_t k = 0; k < t->n_keys; k++) keys[k] = &c->cols[k];
    gr->err = err;
    gr->fctx.err = err;
    for (uint32_t row = 0; row < c->count; row++) {
        group *g;
        SQE_TRY(row_group(gr, keys, row, &g));
        for (uint32_t a = 0; a < t->n_aggs; a++) {
            const func_agg_def *d = t->aggs[a].def;
            const vec *v = &c->cols[t->n_keys + a];
            if (v->type.id != TYPE_VARBINARY || vec_is_null(v, row))
                return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                               "scan task: partial state of %s missing", d->name);
            uint32_t phys;
            const vec *flat = vec_resolve(v, row, &phys);
            const sqe_str *s = &VEC_DATA(flat, sqe_str)[phys];
            if (s->len != d->state_size)
                return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                               "scan task: partial state of %s has %u bytes, expected %u", d->name,
                               s->len, d->state_size);
            memcpy(f->tmp, sqe_str_data(s), s->len);
            gr->fctx.bind_data = t->aggs[a].bind_data;
            SQE_TRY(d->combine(&gr->fctx, f->tmp, g->states + gr->state_off[a]));
        }
    }
    return SQE_OK;
}

int scan_task_final_finish(scan_task_final *f, scan_task_emit_fn emit, void *ud, sqe_error *err) {
    f->gr.err = err;
    f->gr.fctx.err = err;
    return emit_groups(&f->gr, true, &f->o, emit, ud, err);
}

void scan_task_final_destroy(scan_task_final *f) {
    if (!f) return;
    grouper_destroy(&f->gr);
    free(f->tmp);
    free(f);
}
