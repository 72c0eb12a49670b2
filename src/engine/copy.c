/*
 * copy.c: COPY (query) TO 'file' [WITH (...)] and COPY table TO 'file' [WITH (...)]: runs the
 * query and streams its result chunks into a file writer (Parquet, format/parquet/pq_writer.h).
 * The statement's result is one row with one BIGINT column "rows": the rows written.
 *
 * INTERFACE: engine_copy.
 * NOTES
 *   - Format: WITH (format = 'parquet'), else inferred from the extension (.parquet, .parq);
 *     anything else is NOT_SUPPORTED. Every other option goes to pq_writer_options_set
 *     (compression, compression_level, row_group_size, row_group_size_bytes, page_size,
 *     dictionary, ...). Option values are constant expressions; a bare word (DuckDB's
 *     `(FORMAT parquet, COMPRESSION zstd)`) counts as its text.
 *   - Where: the target goes through the database's path policy (io/path_policy.h) as the
 *     session's principal, exactly as a table function's path does; the writer writes to the
 *     resolved target it returns. An existing file is never replaced unless the statement says
 *     WITH (overwrite = true): the policy refuses it up front (ALREADY_EXISTS) and the local
 *     writer's final rename refuses to replace one that appeared meanwhile.
 *   - Streaming: the query runs with the writer as its result sink (exec_options.result_sink):
 *     chunks go into the writer as the pipelines produce them, one at a time, so memory is the
 *     query's own plus one buffered row group, never the whole result. Rows are written in
 *     arrival order: file order for a serial last pipeline (ORDER BY), otherwise the order in
 *     which the threads finish their morsels.
 *   - The writer encodes the columns of a row group on the session's thread count.
 *   - The file appears atomically: the writer renames a temporary file at the end, and any
 *     error (query, type, I/O) aborts it so nothing half-written is left.
 *   - Object stores ('s3://bucket/key', io_s3.h, the identity the policy gives): the writer
 *     writes a staging file in a private directory under $TMPDIR, which io_upload_as then sends
 *     (one PUT, or a multipart upload above SQE_S3_PART_SIZE); the staging file is removed
 *     either way. A failed query or upload leaves nothing at the key.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "engine/engine.h"
#include "format/parquet/pq_writer.h"
#include "io/io_s3.h"
#include "io/path_policy.h"
#include "vec/vec_format.h"

/* Sets the error position to (line, col) unless the error already carries one. */
static int at_position(sqe_error *err, int rc, int line, int col) {
    if (rc && err && err->line == 0) {
        err->line = line;
        err->column = col;
    }
    return rc;
}

/* The text of an option value: a bare word as written, else the constant's text. The text is
 * allocated in pctx's arena. */
static int option_text(sqe_conn *conn, plan_ctx *pctx, const sql_property *prop,
                       const vec *const *params, uint32_t n_params, char **out, sqe_error *err) {
    const sql_expr *e = prop->value;
    if (!e)
        return err_set_at(err, SQE_ERR_INVALID_ARGUMENTS, prop->name.line, prop->name.col,
                          "COPY option '%s' needs a value", prop->name.text);
    if (e->kind == SQL_EXPR_NAME && e->u.name.n_parts == 1) {
        *out = arena_strdup(pctx->arena, e->u.name.parts[0].text);
        return *out ? SQE_OK : err_nomem(err, "COPY options");
    }
    bind_env env;
    engine_bind_env(conn, &env);
    env.params = params;
    env.n_params = n_params;
    bexpr *b;
    SQE_TRY(bind_scalar_expr(pctx, &env, e, &b, err));
    if (b->kind != BEXPR_CONST) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        int64_t now = (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
        bexpr *folded;
        int rc = exec_fold_const(pctx, b, conn->time_zone, now, &folded, err);
        if (rc) return at_position(err, rc, e->line, e->col);
        b = folded;
    }
    if (b->kind != BEXPR_CONST || vec_is_null(b->u.constant, 0))
        return err_set_at(err, SQE_ERR_INVALID_ARGUMENTS, e->line, e->col,
                          "COPY option '%s' must be a constant, not NULL", prop->name.text);
    strbuf sb;
    strbuf_init(&sb);
    vec_format_value(b->u.constant, 0, &sb);
    *out = sb.failed ? NULL : arena_strdup(pctx->arena, strbuf_cstr(&sb));
    strbuf_reset(&sb);
    return *out ? SQE_OK : err_nomem(err, "COPY options");
}

/* Column names for the file: unnamed columns become _col<i>, and a name equal (ignoring case)
 * to an earlier one gets the first free suffix _1, _2, ... (as DuckDB does), since readers
 * such as pyarrow cannot select duplicate names. Strings live in a. */
static int unique_names(arena *a, uint32_t n, const char *const *in, const char ***out,
                        sqe_error *err) {
    const char **names = ARENA_ARRAY(a, const char *, n + 1);
    if (!names) return err_nomem(err, "COPY column names");
    for (uint32_t i = 0; i < n; i++) {
        const char *base = in && in[i] && *in[i] ? in[i] : arena_sprintf(a, "_col%u", i);
        const char *name = base;
        for (uint32_t k = 1; name; k++) {
            uint32_t j = 0;
            while (j < i && strcasecmp(names[j], name) != 0) j++;
            if (j == i) break;
            name = arena_sprintf(a, "%s_%u", base, k);
        }
        if (!name) return err_nomem(err, "COPY column names");
        names[i] = name;
    }
    *out = names;
    return SQE_OK;
}

static bool has_suffix(const char *s, const char *suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcasecmp(s + n - m, suffix) == 0;
}

static int bool_option(const sql_property *prop, const char *text, bool *out, sqe_error *err) {
    if (!strcasecmp(text, "true")) *out = true;
    else if (!strcasecmp(text, "false")) *out = false;
    else
        return err_set_at(err, SQE_ERR_INVALID_ARGUMENTS, prop->value->line, prop->value->col,
                          "COPY option '%s' must be true or false, not '%s'", prop->name.text,
                          text);
    return SQE_OK;
}

/* Reads the WITH options into o; sets *format_given and *overwrite when given. */
static int copy_options(sqe_conn *conn, const sql_stmt *st, const vec *const *params,
                        uint32_t n_params, pq_writer_options *o, bool *format_given,
                        bool *overwrite, sqe_error *err) {
    arena a;
    arena_init(&a, NULL);
    plan_ctx pctx;
    plan_ctx_init(&pctx, &a, NULL, exec_fold_const);
    int rc = SQE_OK;
    const sql_property_list *opts = &st->u.copy.options;
    for (int i = 0; !rc && i < opts->n; i++) {
        const sql_property *prop = &opts->items[i];
        char *text;
        rc = option_text(conn, &pctx, prop, params, n_params, &text, err);
        if (rc) break;
        if (strcasecmp(prop->name.name, "format") == 0) {
            if (strcasecmp(text, "parquet") != 0)
                rc = err_set_at(err, SQE_ERR_NOT_SUPPORTED, prop->value->line, prop->value->col,
                                "unsupported: COPY format '%s' (only parquet can be written)", text);
            *format_given = true;
            continue;
        }
        if (strcasecmp(prop->name.name, "overwrite") == 0) {
            rc = bool_option(prop, text, overwrite, err);
            continue;
        }
        rc = pq_writer_options_set(o, prop->name.name, text, err);
        if (rc && err) {
            err->line = prop->name.line;
            err->column = prop->name.col;
        }
    }
    plan_ctx_destroy(&pctx);
    arena_destroy(&a);
    return rc;
}

typedef struct copy_sink {
    pq_writer *w;
} copy_sink;

/* Where the writer writes when the target is an object store: a file in a fresh private
 * directory under $TMPDIR (default /tmp). */
typedef struct copy_staging {
    char dir[PATH_MAX];
    char file[PATH_MAX + 32];
} copy_staging;

static int staging_create(copy_staging *s, sqe_error *err) {
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp) tmp = "/tmp";
    if (snprintf(s->dir, sizeof s->dir, "%s/sqe-copy-XXXXXX", tmp) >= (int)sizeof s->dir)
        return err_set(err, SQE_ERR_IO_ERROR, "TMPDIR is too long for COPY staging");
    if (!mkdtemp(s->dir))
        return err_set(err, SQE_ERR_IO_ERROR, "Cannot create a staging directory in %s for COPY: %s",
                       tmp, strerror(errno));
    snprintf(s->file, sizeof s->file, "%s/copy.parquet", s->dir);
    return SQE_OK;
}

/* Removes the staged file (if any) and its directory. */
static void staging_remove(copy_staging *s) {
    unlink(s->file);
    rmdir(s->dir);
}

static int copy_write(void *ud, const vec_chunk *c, sqe_error *err) {
    copy_sink *s = ud;
    if (!s->w) return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "COPY writer not open");
    return c->count ? pq_writer_write(s->w, c, err) : SQE_OK;
}

int engine_copy(sqe_conn *conn, const sql_stmt *st, const vec *const *params, uint32_t n_params,
                sqe_result **out, sqe_error *err) {
    *out = NULL;
    const char *path = st->u.copy.path;
    int pl = st->u.copy.path_line, pc = st->u.copy.path_col;
    if (!path || !*path)
        return err_set_at(err, SQE_ERR_INVALID_ARGUMENTS, pl, pc, "COPY needs a file name");
    pq_writer_options o;
    pq_writer_options_init(&o);
    o.threads = conn->threads ? conn->threads : conn->db->threads;
    bool format_given = false, overwrite = false;
    SQE_TRY(copy_options(conn, st, params, n_params, &o, &format_given, &overwrite, err));
    if (!format_given && !has_suffix(path, ".parquet") && !has_suffix(path, ".parq"))
        return err_set_at(err, SQE_ERR_NOT_SUPPORTED, pl, pc,
                          "unsupported: COPY TO '%s': cannot tell the file format from the name; "
                          "only Parquet can be written (use a .parquet name or WITH (format = "
                          "'parquet'))",
                          path);

    bool to_s3 = io_s3_is_uri(path);
    copy_staging staging;
    if (to_s3) {
        char *bucket, *key;
        int prc = io_s3_parse_uri(path, &bucket, &key, err);
        if (!prc && !*key)
            prc = err_set(err, SQE_ERR_INVALID_ARGUMENTS, "COPY TO '%s': the location has no key",
                          path);
        free(bucket);
        free(key);
        SQE_TRY(at_position(err, prc, pl, pc));
    }
    char *target = NULL;
    io_identity *id = NULL;
    SQE_TRY(at_position(err, path_policy_write(conn->db->paths, conn->principal, path, overwrite,
                                               &target, &id, err),
                        pl, pc));
    o.no_replace = !overwrite;
    sqe_result *r;
    int crc = engine_result_create(0, NULL, NULL, &r, err);
    if (!crc && to_s3 && (crc = staging_create(&staging, err)) != SQE_OK) {
        sqe_result_destroy(r);
        crc = at_position(err, crc, pl, pc);
    }
    if (crc) {
        free(target);
        io_identity_unref(id);
        return crc;
    }
    bound_query bq;
    copy_sink sink = {NULL};
    int rc = engine_plan_query_sink(conn, st->u.copy.query, params, n_params, copy_write, &sink, r,
                                    &bq, err);
    pq_writer *w = NULL;
    if (!rc) {
        uint32_t n = bq.root->n_out;
        sqe_type types[n + 1];
        for (uint32_t i = 0; i < n; i++) types[i] = bq.root->out[i].type;
        const char **names = NULL;
        rc = unique_names(&r->arena, n, bq.names, &names, err);
        if (!rc)
            rc = pq_writer_open(to_s3 ? staging.file : target, n, names, types, &o, &r->tracker,
                                &w, err);
        /* I/O errors point at the file name, type errors at the statement */
        bool io = rc == SQE_ERR_IO_ERROR;
        rc = at_position(err, rc, io ? pl : st->line, io ? pc : st->col);
    }
    sink.w = w;
    while (!rc) {
        const vec_chunk *c;
        rc = exec_query_next(r->query, &c, err); /* runs the query; the sink gets the rows */
        if (rc || !c) break;
        if (c->count) rc = pq_writer_write(w, c, err);
    }
    uint64_t rows = 0;
    if (w) {
        if (rc)
            pq_writer_abort(w);
        else
            rc = at_position(err, pq_writer_close(w, &rows, err), pl, pc);
    }
    if (to_s3) {
        /* a failed upload leaves nothing at the key (io_s3_upload_file aborts multipart) */
        if (!rc) rc = at_position(err, io_upload_as(staging.file, target, id, err), pl, pc);
        staging_remove(&staging);
    }
    free(target);
    io_identity_unref(id);
    sqe_result_destroy(r);
    SQE_TRY(rc);
    return engine_result_count((int64_t)rows, out, err);
}
