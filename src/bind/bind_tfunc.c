/*
 * bind_tfunc.c: table functions in FROM: read_csv('path or glob', name => value, ...) and a
 * file path used as a table ('data/x.csv'); the Parquet functions are handed to
 * bind_tfunc_parquet.c. The bound relation is a PLAN_TABLE_FUNC whose
 * plan_source splits the files into byte ranges (morsels) read in parallel.
 *
 * INTERFACE: bind_table_function, bind_file_list_free (bind_int.h).
 * NOTES: the path or glob goes through the session's path policy (bind_env.paths,
 * io/path_policy.h) before anything looks at a file, including the check for Parquet magic bytes
 * of a path used as a table; the readers get only the resolved files. Option values must be
 * constants; their text (vec_format_value) is what csv_options_set parses, so
 * read_csv(..., header => true, delim => '|', skip => 1) all work.
 * The files are sniffed at bind time (the schema is needed to type the query); all files of a
 * glob must have the first file's columns.
 */
#include "bind/bind_int.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "format/csv/csv.h"
#include "io/io.h"
#include "io/path_policy.h"
#include "vec/vec_format.h"

typedef struct csv_morsel {
    uint32_t file;
    csv_range range;
} csv_morsel;

typedef struct csv_source_state {
    csv_options opts;
    csv_schema schema;
    char **paths;
    uint32_t n_paths;
    csv_morsel *morsels;
    uint32_t n_morsels;
    mem_tracker *tracker;
} csv_source_state;

static void csv_state_destroy(void *state) {
    csv_source_state *st = state;
    if (!st) return;
    csv_options_reset(&st->opts);
    csv_schema_reset(&st->schema);
    io_paths_free(st->paths, st->n_paths);
    free(st->morsels);
    free(st);
}

static int csv_plan_morsels(void *state, uint32_t n_threads, uint32_t *n_morsels, sqe_error *err) {
    csv_source_state *st = state;
    free(st->morsels);
    st->morsels = NULL;
    st->n_morsels = 0;
    uint32_t cap = 0;
    for (uint32_t f = 0; f < st->n_paths; f++) {
        csv_range *ranges;
        uint32_t n;
        SQE_TRY(csv_split_ranges(st->paths[f], &st->opts, &st->schema, n_threads * 4, &ranges, &n, err));
        if (st->n_morsels + n > cap) {
            cap = (st->n_morsels + n) * 2;
            csv_morsel *grown = realloc(st->morsels, cap * sizeof(csv_morsel));
            if (!grown) {
                free(ranges);
                return err_nomem(err, "csv morsels");
            }
            st->morsels = grown;
        }
        for (uint32_t i = 0; i < n; i++) st->morsels[st->n_morsels++] = (csv_morsel){f, ranges[i]};
        free(ranges);
    }
    *n_morsels = st->n_morsels;
    return SQE_OK;
}

static int csv_open(void *state, uint32_t morsel, const uint32_t *columns, uint32_t n_columns,
                    void **reader, sqe_error *err) {
    csv_source_state *st = state;
    const csv_morsel *m = &st->morsels[morsel];
    csv_schema file_schema;
    csv_schema_init(&file_schema);
    const csv_schema *schema = &st->schema;
    if (m->file > 0) {
        /* other files of a glob: their own header/offsets, the first file's types */
        SQE_TRY(csv_sniff(st->paths[m->file], &st->opts, &file_schema, err));
        if (file_schema.n_cols != st->schema.n_cols) {
            csv_schema_reset(&file_schema);
            return err_set(err, SQE_ERR_INVALID_FILE,
                           "File %s has %u columns but %s has %u", st->paths[m->file],
                           file_schema.n_cols, st->paths[0], st->schema.n_cols);
        }
        memcpy(file_schema.types, st->schema.types, st->schema.n_cols * sizeof(sqe_type));
        schema = &file_schema;
    }
    csv_reader *r;
    int rc = csv_reader_open(st->paths[m->file], &st->opts, schema, m->range.start, m->range.end,
                             st->tracker, &r, err);
    csv_schema_reset(&file_schema);
    SQE_TRY(rc);
    rc = csv_reader_project(r, columns, n_columns, err);
    if (rc) {
        csv_reader_close(r);
        return rc;
    }
    *reader = r;
    return SQE_OK;
}

static int csv_next(void *reader, vec_chunk *out, sqe_error *err) { return csv_reader_next(reader, out, err); }
static void csv_close(void *reader) { csv_reader_close(reader); }

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
    *out = NULL;
    plan_source *src = ARENA_NEW(b->pctx->arena, plan_source);
    if (!src) {
        destroy(state);
        return bind_nomem(b);
    }
    src->state = state;
    src->destroy = destroy;
    SQE_TRY(plan_ctx_add_source(b->pctx, src, b->err)); /* destroys state on failure */
    *out = src;
    return SQE_OK;
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

void bind_file_list_free(bind_file_list *l) {
    io_paths_free(l->paths, l->n);
    io_identity_unref(l->id);
    memset(l, 0, sizeof *l);
}

/* The files path (a file, glob or object-store URI) names, as the session's path policy allows
 * them: this is the only way a table function learns of a file. */
static int resolve_files(binder *b, const char *path, bind_file_list *out) {
    memset(out, 0, sizeof *out);
    const bind_env *env = b->env;
    return path_policy_read(env ? env->paths : NULL, env ? env->principal : NULL, path,
                            &out->paths, &out->n, &out->id, b->err);
}

/* A path used as a table is Parquet when its name says so or the first file's first bytes are
 * "PAR1" (files already allowed by the policy). */
static bool looks_like_parquet(const char *path, const bind_file_list *files) {
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
    bind_file_list files;
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
            bind_file_list_free(&files);
            return bind_error(b, SQE_ERR_INVALID_ARGUMENTS, opts[0].value->line,
                              opts[0].value->col, "%s takes no options", "read_parquet");
        }
        return bind_parquet_source(b, r, fname && strcmp(fname, "parquet_scan") ? fname : "read_parquet",
                                   &files, out, names);
    }
    csv_source_state *st = calloc(1, sizeof *st);
    if (!st) {
        bind_file_list_free(&files);
        return bind_nomem(b);
    }
    st->paths = files.paths; /* the CSV reader opens local files only (no identity) */
    st->n_paths = files.n;
    files.paths = NULL;
    files.n = 0;
    bind_file_list_free(&files);
    csv_options_init(&st->opts);
    csv_schema_init(&st->schema);
    st->tracker = b->pctx->tracker;
    plan_source *src;
    SQE_TRY(bind_tfunc_source_new(b, st, csv_state_destroy, &src));
    for (int i = 0; i < n_opts; i++) {
        const sql_named_arg *a = &opts[i];
        if (!a->name)
            return bind_error(b, SQE_ERR_INVALID_ARGUMENTS, a->value->line, a->value->col,
                              "read_csv options must be named: name => value");
        bexpr *v;
        SQE_TRY(bind_scalar_expr(b->pctx, b->env, a->value, &v, b->err));
        char *text;
        SQE_TRY(const_text(b, v, a->name->name, a->value->line, a->value->col, &text));
        int rc = csv_options_set(&st->opts, a->name->name, text, b->err);
        if (rc) {
            if (b->err) {
                b->err->line = a->name->line;
                b->err->column = a->name->col;
            }
            return rc;
        }
    }
    int rc = csv_sniff(st->paths[0], &st->opts, &st->schema, b->err);
    if (rc) {
        if (b->err && b->err->line == 0) {
            b->err->line = r->line;
            b->err->column = r->col;
        }
        return rc;
    }
    uint32_t n = st->schema.n_cols;
    src->n_columns = n;
    src->names = (const char *const *)st->schema.names;
    src->types = st->schema.types;
    /* Only the first file was sniffed: assume the others are as large, ~100 bytes a row. */
    src->est_rows = (double)st->schema.file_size * st->n_paths / 100.0;
    src->plan_morsels = csv_plan_morsels;
    src->open = csv_open;
    src->next = csv_next;
    src->close = csv_close;
    (void)s;
    return bind_tfunc_plan(b, "read_csv", src, out, names);
}
