/*
 * scan_task.c: the scan task struct's checks, its versioned binary encoding and decoding, and
 * its one-line description (see scan_task.h for the format).
 *
 * INTERFACE: scan_task_init, scan_task_validate, scan_task_encode, scan_task_decode,
 *   scan_task_resolve_aggs, scan_task_wipe_credentials, scan_task_describe.
 * NOTES
 *   Each section is written with a placeholder length patched afterwards; the decoder reads a
 *   section into its own bounded reader, so a wrong length inside one section can never read
 *   into the next. Decoding validates the result (scan_task_validate) before returning it:
 *   a decoded task is as consistent as one the planner built.
 */
#include "scan/scan_task.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "scan/scan_task_expr.h"
#include "scan/scan_wire.h"

enum {
    SEC_FILE = 1,
    SEC_COLUMNS,
    SEC_DELETES,
    SEC_RESIDUAL,
    SEC_AGGREGATION,
    SEC_LIMIT,
    SEC_CREDENTIALS,
    SEC_COUNT_ = SEC_CREDENTIALS,
};

static const char *const section_names[] = {"", "file", "columns", "deletes", "residual",
                                            "aggregation", "limit", "credentials"};

void scan_task_init(scan_task *t) {
    memset(t, 0, sizeof *t);
    t->format = SCAN_FORMAT_PARQUET;
    t->file_size = -1;
    t->record_count = -1;
    t->range_kind = SCAN_RANGE_WHOLE;
    t->limit = -1;
}

/* Every column reference of e is a task column of that column's type. */
static int check_expr(const bexpr *e, const scan_task *t, sqe_error *err) {
    if (e->kind == BEXPR_COLUMN) {
        if (e->u.col < 1 || e->u.col > t->n_columns)
            return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                           "scan task: the residual refers to column id %u, not a task column",
                           e->u.col);
        if (!type_equal(e->type, t->columns[e->u.col - 1].type))
            return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                           "scan task: the residual reads column %u with another type", e->u.col);
    }
    for (uint32_t i = 0; i < e->n_args; i++) SQE_TRY(check_expr(e->args[i], t, err));
    return SQE_OK;
}

int scan_task_validate(const scan_task *t, sqe_error *err) {
#define BAD(...) return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "scan task: " __VA_ARGS__)
    if (t->format != SCAN_FORMAT_PARQUET) BAD("unknown file format %u", t->format);
    if (!t->path || !*t->path) BAD("no data file path");
    if (t->range_kind > SCAN_RANGE_ROW_GROUPS) BAD("unknown range kind %u", t->range_kind);
    if (t->range_kind == SCAN_RANGE_BYTES && (t->offset < 0 || t->length <= 0))
        BAD("byte range [%" PRId64 ", +%" PRId64 ") is empty or negative", t->offset, t->length);
    if (t->range_kind == SCAN_RANGE_ROW_GROUPS) {
        if (!t->n_row_groups) BAD("an empty row group list");
        for (uint32_t i = 1; i < t->n_row_groups; i++)
            if (t->row_groups[i] <= t->row_groups[i - 1]) BAD("row groups are not ascending");
    }
    if (t->n_columns > SCAN_TASK_MAX_COLUMNS) BAD("%u columns", t->n_columns);
    for (uint32_t i = 0; i < t->n_columns; i++) {
        const scan_task_column *c = &t->columns[i];
        if (c->kind > SCAN_COL_POS) BAD("column %u has unknown kind %u", i, c->kind);
        if (c->kind == SCAN_COL_FIELD && (!c->name || c->type.id == TYPE_UNKNOWN))
            BAD("column %u has no name or type", i);
        if (c->kind == SCAN_COL_PATH && c->type.id != TYPE_VARCHAR) BAD("$path must be varchar");
        if (c->kind == SCAN_COL_POS && c->type.id != TYPE_BIGINT) BAD("$pos must be bigint");
    }
    for (uint32_t i = 0; i < t->n_output; i++)
        if (t->output[i] >= t->n_columns) BAD("output %u is not a task column", i);
    for (uint32_t i = 0; i < t->n_deletes; i++) {
        const scan_task_delete *d = &t->deletes[i];
        if (d->kind < SCAN_DELETE_POSITION || d->kind > SCAN_DELETE_EQUALITY)
            BAD("delete file %u has unknown kind %u", i, d->kind);
        if (!d->path || !*d->path) BAD("delete file %u has no path", i);
        if (d->kind == SCAN_DELETE_DV && (d->content_offset < 0 || d->content_size <= 0))
            BAD("deletion vector %u has no blob offset and size", i);
        if (d->kind == SCAN_DELETE_EQUALITY && !d->n_equality_ids)
            BAD("equality delete file %u has no equality ids", i);
    }
    if (t->residual) {
        if (t->residual->type.id != TYPE_BOOLEAN) BAD("the residual is not boolean");
        SQE_TRY(check_expr(t->residual, t, err));
    }
    if (t->aggregate) {
        if (t->limit >= 0) BAD("a limit with a partial aggregation");
        for (uint32_t i = 0; i < t->n_keys; i++)
            if (t->keys[i] >= t->n_columns) BAD("group key %u is not a task column", i);
        for (uint32_t i = 0; i < t->n_aggs; i++) {
            const scan_task_agg *g = &t->aggs[i];
            if (!g->name) BAD("aggregate %u has no name", i);
            for (uint32_t k = 0; k < g->n_args; k++) {
                if (g->args[k] >= t->n_columns) BAD("aggregate %u argument %u is not a column", i, k);
                if (!type_equal(g->arg_types[k], t->columns[g->args[k]].type))
                    BAD("aggregate %u argument %u has another type than its column", i, k);
            }
        }
    } else if (t->n_keys || t->n_aggs) {
        BAD("group keys or aggregates without aggregation");
    }
    if (t->limit < -1) BAD("limit %" PRId64, t->limit);
#undef BAD
    return SQE_OK;
}

/* ---- encoding ---- */

static size_t section_begin(strbuf *w, uint8_t tag) {
    scan_w_u8(w, tag);
    size_t at = w->len;
    scan_w_u32(w, 0);
    return at;
}

static void section_end(strbuf *w, size_t at) {
    scan_w_patch_u32(w, at, (uint32_t)(w->len - at - 4));
}

int scan_task_encode(const scan_task *t, uint8_t **out, size_t *len, sqe_error *err) {
    SQE_TRY(scan_task_validate(t, err));
    strbuf w;
    strbuf_init(&w);
    scan_w_bytes(&w, SCAN_TASK_MAGIC, 4);
    scan_w_u16(&w, SCAN_TASK_VERSION);
    scan_w_u16(&w, 0);
    size_t body_at = w.len;
    scan_w_u32(&w, 0);

    size_t s = section_begin(&w, SEC_FILE);
    scan_w_u8(&w, t->format);
    scan_w_str(&w, t->path);
    scan_w_u64(&w, (uint64_t)t->file_size);
    scan_w_u64(&w, (uint64_t)t->record_count);
    scan_w_u64(&w, (uint64_t)t->data_sequence_number);
    scan_w_u8(&w, t->range_kind);
    scan_w_u64(&w, (uint64_t)t->offset);
    scan_w_u64(&w, (uint64_t)t->length);
    uint32_t n_rg = t->range_kind == SCAN_RANGE_ROW_GROUPS ? t->n_row_groups : 0;
    scan_w_u32(&w, n_rg);
    for (uint32_t i = 0; i < n_rg; i++) scan_w_u32(&w, t->row_groups[i]);
    section_end(&w, s);

    s = section_begin(&w, SEC_COLUMNS);
    scan_w_u32(&w, t->n_columns);
    for (uint32_t i = 0; i < t->n_columns; i++) {
        const scan_task_column *c = &t->columns[i];
        scan_w_u8(&w, c->kind);
        scan_w_u32(&w, (uint32_t)c->field_id);
        scan_w_str(&w, c->name);
        scan_w_type(&w, c->type);
    }
    uint32_t n_out = t->aggregate ? 0 : t->n_output;
    scan_w_u32(&w, n_out);
    for (uint32_t i = 0; i < n_out; i++) scan_w_u32(&w, t->output[i]);
    section_end(&w, s);

    s = section_begin(&w, SEC_DELETES);
    scan_w_u32(&w, t->n_deletes);
    for (uint32_t i = 0; i < t->n_deletes; i++) {
        const scan_task_delete *d = &t->deletes[i];
        scan_w_u8(&w, d->kind);
        scan_w_str(&w, d->path);
        scan_w_u64(&w, (uint64_t)d->sequence_number);
        scan_w_u64(&w, (uint64_t)d->record_count);
        scan_w_u64(&w, (uint64_t)d->file_size);
        scan_w_str(&w, d->referenced_data_file);
        scan_w_u64(&w, (uint64_t)d->content_offset);
        scan_w_u64(&w, (uint64_t)d->content_size);
        uint32_t ne = d->kind == SCAN_DELETE_EQUALITY ? d->n_equality_ids : 0;
        scan_w_u32(&w, ne);
        for (uint32_t k = 0; k < ne; k++) scan_w_u32(&w, (uint32_t)d->equality_ids[k]);
    }
    section_end(&w, s);

    int rc = SQE_OK;
    s = section_begin(&w, SEC_RESIDUAL);
    scan_w_u8(&w, t->residual ? 1 : 0);
    if (t->residual) rc = scan_expr_encode(t->residual, t->n_columns, &w, err);
    section_end(&w, s);

    s = section_begin(&w, SEC_AGGREGATION);
    scan_w_u8(&w, t->aggregate ? 1 : 0);
    uint32_t nk = t->aggregate ? t->n_keys : 0, na = t->aggregate ? t->n_aggs : 0;
    scan_w_u32(&w, nk);
    for (uint32_t i = 0; i < nk; i++) scan_w_u32(&w, t->keys[i]);
    scan_w_u32(&w, na);
    for (uint32_t i = 0; i < na; i++) {
        const scan_task_agg *g = &t->aggs[i];
        scan_w_str(&w, g->name);
        scan_w_u32(&w, g->n_args);
        for (uint32_t k = 0; k < g->n_args; k++) {
            scan_w_u32(&w, g->args[k]);
            scan_w_type(&w, g->arg_types[k]);
        }
        scan_w_type(&w, g->ret);
    }
    section_end(&w, s);

    s = section_begin(&w, SEC_LIMIT);
    scan_w_u64(&w, (uint64_t)t->limit);
    section_end(&w, s);

    /* SECRET section: opaque credentials, never logged */
    const scan_task_credentials *c = &t->credentials;
    s = section_begin(&w, SEC_CREDENTIALS);
    scan_w_u8(&w, c->present ? 1 : 0);
    if (c->present) {
        scan_w_str(&w, c->access_key_id);
        scan_w_str(&w, c->secret_access_key);
        scan_w_str(&w, c->session_token);
        scan_w_str(&w, c->endpoint);
        scan_w_str(&w, c->region);
        scan_w_u8(&w, c->path_style ? 1 : 0);
        scan_w_str(&w, c->principal_token);
    }
    section_end(&w, s);

    scan_w_patch_u32(&w, body_at, (uint32_t)(w.len - body_at - 4));
    if (!rc && w.failed) rc = err_nomem(err, "scan task");
    if (rc) {
        if (w.data) memset(w.data, 0, w.len); /* it may hold credentials */
        strbuf_reset(&w);
        return rc;
    }
    *len = w.len;
    *out = (uint8_t *)strbuf_move(&w);
    return SQE_OK;
}

/* ---- decoding ---- */

#define NOMEM(r) scan_r_fail_code((r), SQE_ERR_OUT_OF_MEMORY, "out of memory decoding a scan task")

static uint32_t *read_u32s(scan_r *r, uint32_t *n, uint32_t max, const char *what) {
    *n = scan_r_count(r, 4, max, what);
    if (!scan_r_ok(r) || !*n) return NULL;
    uint32_t *v = ARENA_ARRAY(r->a, uint32_t, *n);
    if (!v) {
        NOMEM(r);
        return NULL;
    }
    for (uint32_t i = 0; i < *n; i++) v[i] = scan_r_u32(r, what);
    return v;
}

static void read_file(scan_r *r, scan_task *t) {
    t->format = scan_r_u8(r, "file format");
    t->path = scan_r_str(r, false, NULL, "data file path");
    t->file_size = scan_r_i64(r, "file size");
    t->record_count = scan_r_i64(r, "record count");
    t->data_sequence_number = scan_r_i64(r, "data sequence number");
    t->range_kind = scan_r_u8(r, "range kind");
    t->offset = scan_r_i64(r, "range offset");
    t->length = scan_r_i64(r, "range length");
    t->row_groups = read_u32s(r, &t->n_row_groups, UINT32_MAX, "row groups");
}

static void read_columns(scan_r *r, scan_task *t) {
    t->n_columns = scan_r_count(r, 14, SCAN_TASK_MAX_COLUMNS, "columns");
    if (!scan_r_ok(r)) return;
    scan_task_column *cols = t->n_columns ? ARENA_ARRAY(r->a, scan_task_column, t->n_columns) : NULL;
    if (t->n_columns && !cols) {
        NOMEM(r);
        return;
    }
    for (uint32_t i = 0; i < t->n_columns && scan_r_ok(r); i++) {
        cols[i].kind = scan_r_u8(r, "column kind");
        cols[i].field_id = scan_r_i32(r, "field id");
        cols[i].name = scan_r_str(r, true, NULL, "column name");
        cols[i].type = scan_r_type(r, 8, "column type");
    }
    t->columns = cols;
    t->output = read_u32s(r, &t->n_output, SCAN_TASK_MAX_COLUMNS, "output columns");
}

static void read_deletes(scan_r *r, scan_task *t) {
    t->n_deletes = scan_r_count(r, 53, 1u << 20, "delete files");
    if (!scan_r_ok(r) || !t->n_deletes) return;
    scan_task_delete *d = ARENA_ARRAY(r->a, scan_task_delete, t->n_deletes);
    if (!d) {
        NOMEM(r);
        return;
    }
    for (uint32_t i = 0; i < t->n_deletes && scan_r_ok(r); i++) {
        d[i].kind = scan_r_u8(r, "delete kind");
        d[i].path = scan_r_str(r, false, NULL, "delete file path");
        d[i].sequence_number = scan_r_i64(r, "delete sequence number");
        d[i].record_count = scan_r_i64(r, "delete record count");
        d[i].file_size = scan_r_i64(r, "delete file size");
        d[i].referenced_data_file = scan_r_str(r, true, NULL, "referenced data file");
        d[i].content_offset = scan_r_i64(r, "DV offset");
        d[i].content_size = scan_r_i64(r, "DV size");
        uint32_t n;
        uint32_t *ids = read_u32s(r, &n, 65536, "equality ids");
        d[i].n_equality_ids = n;
        d[i].equality_ids = (const int32_t *)ids;
    }
    t->deletes = d;
}

static void read_residual(scan_r *r, scan_task *t) {
    if (!scan_r_bool(r, "residual flag")) {
        if (scan_r_ok(r) && scan_r_left(r)) scan_r_fail(r, "bytes after an absent residual");
        return;
    }
    sqe_type *types = ARENA_ARRAY(r->a, sqe_type, t->n_columns + 1);
    if (!types) {
        NOMEM(r);
        return;
    }
    for (uint32_t i = 0; i < t->n_columns; i++) types[i] = t->columns[i].type;
    bexpr *e = NULL;
    int rc = scan_expr_decode(r->a, r->p + r->pos, scan_r_left(r), r->base + r->pos, types,
                              t->n_columns, &e, r->err);
    if (rc) {
        r->rc = rc;
        return;
    }
    r->pos = r->len;
    t->residual = e;
}

static void read_aggregation(scan_r *r, scan_task *t) {
    t->aggregate = scan_r_bool(r, "aggregation flag");
    t->keys = read_u32s(r, &t->n_keys, SCAN_TASK_MAX_COLUMNS, "group keys");
    t->n_aggs = scan_r_count(r, 15, SCAN_TASK_MAX_COLUMNS, "aggregates");
    if (!scan_r_ok(r) || !t->n_aggs) return;
    scan_task_agg *g = ARENA_ARRAY(r->a, scan_task_agg, t->n_aggs);
    if (!g) {
        NOMEM(r);
        return;
    }
    for (uint32_t i = 0; i < t->n_aggs && scan_r_ok(r); i++) {
        g[i].name = scan_r_str(r, false, NULL, "aggregate name");
        g[i].n_args = scan_r_count(r, 11, 64, "aggregate arguments");
        if (!scan_r_ok(r)) break;
        uint32_t *args = g[i].n_args ? ARENA_ARRAY(r->a, uint32_t, g[i].n_args) : NULL;
        sqe_type *types = g[i].n_args ? ARENA_ARRAY(r->a, sqe_type, g[i].n_args) : NULL;
        if (g[i].n_args && (!args || !types)) {
            NOMEM(r);
            break;
        }
        for (uint32_t k = 0; k < g[i].n_args; k++) {
            args[k] = scan_r_u32(r, "aggregate argument");
            types[k] = scan_r_type(r, 8, "aggregate argument type");
        }
        g[i].args = args;
        g[i].arg_types = types;
        g[i].ret = scan_r_type(r, 8, "aggregate result type");
    }
    t->aggs = g;
}

static void read_credentials(scan_r *r, scan_task *t) {
    scan_task_credentials *c = &t->credentials;
    c->present = scan_r_bool(r, "credentials flag");
    if (!c->present) return;
    c->access_key_id = scan_r_str(r, true, NULL, "credentials");
    c->secret_access_key = scan_r_str(r, true, NULL, "credentials");
    c->session_token = scan_r_str(r, true, NULL, "credentials");
    c->endpoint = scan_r_str(r, true, NULL, "credentials");
    c->region = scan_r_str(r, true, NULL, "credentials");
    c->path_style = scan_r_bool(r, "credentials");
    c->principal_token = scan_r_str(r, true, NULL, "credentials");
}

int scan_task_resolve_aggs(arena *a, scan_task *t, sqe_error *err) {
    for (uint32_t i = 0; i < t->n_aggs; i++) {
        scan_task_agg *g = (scan_task_agg *)&t->aggs[i];
        func_resolved res;
        SQE_TRY(func_resolve_agg(a, g->name, g->arg_types, g->n_args, &res, err));
        bool same = res.agg && res.n_args == g->n_args && type_equal(res.ret, g->ret);
        for (uint32_t k = 0; same && k < g->n_args; k++)
            same = type_equal(res.arg_types[k], g->arg_types[k]);
        if (!same)
            return err_set(err, SQE_ERR_TYPE_MISMATCH,
                           "scan task: aggregate %s does not resolve to the encoded argument and "
                           "result types", g->name);
        g->def = res.agg;
        g->bind_data = NULL;
        if (res.agg->bind_fn) {
            const vec *consts[g->n_args ? g->n_args : 1];
            for (uint32_t k = 0; k < g->n_args; k++) consts[k] = NULL;
            SQE_TRY(res.agg->bind_fn(a, g->arg_types, consts, g->n_args, res.ret, &g->bind_data,
                                     err));
        }
    }
    return SQE_OK;
}

int scan_task_decode(arena *a, const uint8_t *p, size_t len, scan_task *t, sqe_error *err) {
    scan_task_init(t);
    scan_r r;
    scan_r_init(&r, p, len, 0, a, err);
    const uint8_t *magic = scan_r_bytes(&r, 4, "magic");
    if (magic && memcmp(magic, SCAN_TASK_MAGIC, 4) != 0) {
        r.pos = 0;
        return scan_r_fail(&r, "not a scan task (bad magic)");
    }
    uint16_t version = scan_r_u16(&r, "version");
    uint16_t flags = scan_r_u16(&r, "flags");
    if (!scan_r_ok(&r)) return r.rc;
    if (version != SCAN_TASK_VERSION)
        return err_set(err, version > SCAN_TASK_VERSION ? SQE_ERR_NOT_SUPPORTED : SQE_ERR_INVALID_ARGUMENTS,
                       "Invalid scan task: version %u, this build reads version %d", version,
                       SCAN_TASK_VERSION);
    if (flags) {
        r.pos -= 2;
        return scan_r_fail(&r, "unknown flags 0x%x", flags);
    }
    uint32_t body = scan_r_u32(&r, "body length");
    if (!scan_r_ok(&r)) return r.rc;
    if (body != scan_r_left(&r)) {
        r.pos -= 4;
        return scan_r_fail(&r, "body length %u, but %zu bytes follow", body, scan_r_left(&r) - 4);
    }
    for (uint8_t want = 1; want <= SEC_COUNT_; want++) {
        size_t at = r.pos;
        uint8_t tag = scan_r_u8(&r, "section tag");
        uint32_t n = scan_r_u32(&r, "section length");
        if (!scan_r_ok(&r)) return r.rc;
        if (tag != want) {
            r.pos = at;
            return scan_r_fail(&r, "section %u where section %u (%s) belongs", tag, want,
                               section_names[want]);
        }
        if (n > scan_r_left(&r)) {
            r.pos = at + 1;
            return scan_r_fail(&r, "%s section length %u exceeds the %zu bytes left",
                               section_names[want], n, scan_r_left(&r) - 4);
        }
        scan_r s;
        scan_r_init(&s, r.p + r.pos, n, r.pos, a, err);
        switch (want) {
        case SEC_FILE: read_file(&s, t); break;
        case SEC_COLUMNS: read_columns(&s, t); break;
        case SEC_DELETES: read_deletes(&s, t); break;
        case SEC_RESIDUAL: read_residual(&s, t); break;
        case SEC_AGGREGATION: read_aggregation(&s, t); break;
        case SEC_LIMIT: t->limit = scan_r_i64(&s, "limit"); break;
        case SEC_CREDENTIALS: read_credentials(&s, t); break;
        }
        if (scan_r_ok(&s) && scan_r_left(&s))
            scan_r_fail(&s, "%zu bytes left over in the %s section", scan_r_left(&s),
                        section_names[want]);
        if (!scan_r_ok(&s)) return s.rc;
        r.pos += n;
    }
    if (scan_r_left(&r)) return scan_r_fail(&r, "%zu bytes after the last section", scan_r_left(&r));
    SQE_TRY(scan_task_validate(t, err));
    if (t->aggregate) SQE_TRY(scan_task_resolve_aggs(a, t, err));
    return SQE_OK;
}

static void wipe(const char *s) {
    if (s) memset((char *)s, 0, strlen(s));
}

void scan_task_wipe_credentials(scan_task *t) {
    scan_task_credentials *c = &t->credentials;
    wipe(c->secret_access_key);
    wipe(c->session_token);
    wipe(c->principal_token);
    memset(c, 0, sizeof *c);
}

/* ---- description ---- */

void scan_task_describe(const scan_task *t, strbuf *out) {
    strbuf_printf(out, "scan task: %s", t->path ? t->path : "?");
    if (t->range_kind == SCAN_RANGE_BYTES)
        strbuf_printf(out, " bytes [%" PRId64 ", %" PRId64 ")", t->offset, t->offset + t->length);
    else if (t->range_kind == SCAN_RANGE_ROW_GROUPS)
        strbuf_printf(out, " row groups: %u", t->n_row_groups);
    strbuf_printf(out, " columns: %u", t->n_columns);
    for (uint32_t i = 0; i < t->n_columns; i++)
        strbuf_printf(out, "%s%d", i ? "," : " [", t->columns[i].field_id);
    if (t->n_columns) strbuf_puts(out, "]");
    if (t->n_deletes) strbuf_printf(out, " deletes: %u", t->n_deletes);
    if (t->residual) strbuf_puts(out, " residual");
    if (t->aggregate) strbuf_printf(out, " partial aggregation: %u keys, %u aggregates", t->n_keys, t->n_aggs);
    if (t->limit >= 0) strbuf_printf(out, " limit: %" PRId64, t->limit);
    strbuf_puts(out, t->credentials.present ? " credentials: present" : " credentials: none");
}
