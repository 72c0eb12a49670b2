/*
 * bind_tfunc.c: table functions in FROM: read_csv('path or glob', name => value, ...) and a
 * file path used as a table ('data/x.csv'); the Parquet functions are handed to
 * bind_tfunc_parquet.c. The bound relation is a PLAN_TABLE_FUNC over a scan source
 * (scan/scan_csv.c for CSV), which splits the files into morsels read in parallel.
 *
 * INTERFACE: bind_table_function, bind_tfunc_source_new, bind_tfunc_plan (bind_int.h).
 * NOTES: the path or glob goes through the session's path policy (bind_env.paths,
 * io/path_policy.h) before anything looks at a file, including the check for Parquet magic bytes
 * of a path used as a table; the sources get only the resolved files. Option values must be
 * constants; their text (vec_format_value) is what csv_options_set parses, so
 * read_csv(..., header => true, delim => '|', skip => 1) all work. Errors of the sources get
 * the position of the relation (or of the option) here.
 */
#include "bind/bind_int.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "scan/scan_csv.h"
#include "io/io.h"
#include "io/path_policy.h"
#include "vec/vec_format.h"

/* The text of a constant argument for csv_options_set. */
static int const_text(binder *b, const bexpr *e, const char *name, int line, int col, char **out) {
    if (e->kind != BEXPR_CONST)
        return bind_error(b, SQE_ERR_INVALID_ARGUMENTS, line, col,
                          "read_csv option '%s' must be a constant", name);
    strbuf sb;
    strbuf_init(&sb);
    vec_format_value(e->u.constant, 0, &sb);
    if (sb.failed) {
        strbuf_reset(&sb);
        return bind_nomem(b);
    }
    *out = arena_strdup(b->pctx->arena, strbuf_cstr(&sb));
    strbuf_reset(&sb);
    BIND_CHECK(b, *out);
    return SQE_OK;
}

int bind_table_function(binder *b, bind_scope *s, const sql_relation *r, plan **out,
                        const char ***names);

int bind_tfunc_source_new(binder *b, void *state, void (*destroy)(void *), plan_source **out) {
    return scan_source_new(b->pctx, state, destroy, out, b->err);
}

int bind_tfunc_plan(binder *b, const char *name, plan_source *src, plan **out, const char ***names) {
    uint32_t n = src->n_columns;
    plan *p = plan_new(b->pctx, PLAN_TABLE_FUNC, 0, n);
    BIND_CHECK(b, p);
    p->u.tfunc.name = name;
    p->u.tfunc.source = src;
    p->u.tfunc.columns = ARENA_ARRAY(b->pctx->arena, uint32_t, n + 1);
    const char **nm = ARENA_ARRAY(b->pctx->arena, const char *, n + 1);
    BIND_CHECK(b, p->u.tfunc.columns && nm);
    for (uint32_t i = 0; i < n; i++) {
        p->out[i].id = plan_new_col(b->pctx);
        p->out[i].type = src->types[i];
        p->out[i].name = src->names[i];
        p->u.tfunc.columns[i] = i;
        nm[i] = src->names[i];
    }
    p->est_rows = src->est_rows;
    *out = p;
    *names = nm;
    return SQE_OK;
}

static bool is_parquet_function(const char *name) {
    return strcmp(name, "read_parquet") == 0 || strcmp(name, "parquet_scan") == 0 ||
           strcmp(name, "parquet_metadata") == 0 || strcmp(name, "parquet_schema") == 0;
}

/* The files path (a file, glob or object-store URI) names, as the session's path policy allows
 * them: this is the only way a table function learns of a file. */
static int resolve_files(binder *b, const char *path, scan_file_list *out) {
    memset(out, 0, sizeof *out);
    const bind_env *env = b->env;
    return path_policy_read(env ? env->paths : NULL, env ? env->principal : NULL, path,
                            &out->paths, &out->n, &out->id, b->err);
}

/* A path used as a table is Parquet when its name says so or the first file's first bytes are
 * "PAR1" (files already allowed by the policy). */
static bool looks_like_parquet(const char *path, const scan_file_list *files) {
    size_t n = strlen(path);
    static const char *const exts[] = {".parquet", ".parq", ".pq"};
    for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++) {
        size_t e = strlen(exts[i]);
        if (n >= e && strcasecmp(path + n - e, exts[i]) == 0) return true;
    }
    if (!files->n) return false;
    io_file *f = NULL;
    sqe_error ignored;
    char magic[4];
    bool yes = io_open_as(files->paths[0], files->id, &f, &ignored) == SQE_OK &&
               io_size(f) >= 4 && io_read(f, 0, 4, magic, &ignored) == SQE_OK &&
               memcmp(magic, "PAR1", 4) == 0;
    io_close(f);
    return yes;
}

int bind_table_function(binder *b, bind_scope *s, const sql_relation *r, plan **out,
                        const char ***names) {
    const char *path = NULL;
    const char *fname = NULL;
    const sql_named_arg *opts = NULL;
    int n_opts = 0;
    if (r->kind == SQL_REL_FILE) {
        path = arena_strndup(b->pctx->arena, r->u.file.path, r->u.file.len);
        BIND_CHECK(b, path);
    } else {
        const sql_qname *qn = &r->u.function.name;
        fname = qn->parts[qn->n_parts - 1].name;
        if (strcmp(fname, "read_csv") != 0 && strcmp(fname, "read_csv_auto") != 0 &&
            !is_parquet_function(fname))
            return bind_error(b, SQE_ERR_FUNCTION_NOT_FOUND, r->line, r->col,
                              "Table function '%s' not registered", qn->parts[qn->n_parts - 1].text);
        if (r->u.function.n_args < 1 || r->u.function.args[0].name)
            return bind_error(b, SQE_ERR_INVALID_ARGUMENTS, r->line, r->col,
                              "%s requires a file path or glob as its first argument", fname);
        bexpr *p;
        SQE_TRY(bind_scalar_expr(b->pctx, b->env, r->u.function.args[0].value, &p, b->err));
        if (p->kind != BEXPR_CONST || !type_is_string(p->type) || vec_is_null(p->u.constant, 0))
            return bind_error(b, SQE_ERR_INVALID_ARGUMENTS, r->line, r->col,
                              "%s path must be a constant string", fname);
        const sqe_str *sv = &VEC_DATA(p->u.constant, sqe_str)[0];
        path = arena_strndup(b->pctx->arena, sqe_str_data(sv), sv->len);
        BIND_CHECK(b, path);
        opts = r->u.function.args + 1;
        n_opts = r->u.function.n_args - 1;
    }
    if (fname && is_parquet_function(fname) && n_opts > 0)
        return bind_error(b, SQE_ERR_INVALID_ARGUMENTS, opts[0].value->line, opts[0].value->col,
                          "%s takes no options", fname);
    scan_file_list files;
    int frc = resolve_files(b, path, &files);
    if (frc) {
        if (b->err && b->err->line == 0) {
            b->err->line = r->line;
            b->err->column = r->col;
        }
        return frc;
    }
    if (fname ? is_parquet_function(fname) : looks_like_parquet(path, &files)) {
        if (n_opts > 0) {
            scan_file_list_free(&files);
            return bind_error(b, SQE_ERR_INVALID_ARGUMENTS, opts[0].value->line,
                              opts[0].value->col, "%s takes no options", "read_parquet");
        }
        return bind_parquet_source(b, r, fname && strcmp(fname, "parquet_scan") ? fname : "read_parquet",
                                   &files, out, names);
    }
    scan_csv *csv;
    plan_source *src;
    SQE_TRY(scan_csv_source(b->pctx, &files, &csv, &src, b->err));
    for (int i = 0; i < n_opts; i++) {
        const sql_named_arg *a = &opts[i];
        if (!a->name)
            return bind_error(b, SQE_ERR_INVALID_ARGUMENTS, a->value->line, a->value->col,
                              "read_csv options must be named: name => value");
        bexpr *v;
        SQE_TRY(bind_scalar_expr(b->pctx, b->env, a->value, &v, b->err));
        char *text;
        SQE_TRY(const_text(b, v, a->name->name, a->value->line, a->value->col, &text));
        int rc = scan_csv_option(csv, a->name->name, text, b->err);
        if (rc) {
            if (b->err) {
                b->err->line = a->name->line;
                b->err->column = a->name->col;
            }
            return rc;
        }
    }
    int rc = scan_csv_finish(csv, src, b->err);
    if (rc) {
        if (b->err && b->err->line == 0) {
            b->err->line = r->line;
            b->err->column = r->col;
        }
        return rc;
    }
    (void)s;
    return bind_tfunc_plan(b, "read_csv", src, out, names);
}
