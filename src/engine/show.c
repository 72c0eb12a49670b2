/*
 * show.c: SHOW CATALOGS / SCHEMAS / TABLES / COLUMNS / FUNCTIONS / SESSION / CREATE TABLE /
 * CREATE VIEW, DESCRIBE, DESCRIBE INPUT and DESCRIBE OUTPUT, with Trino's column names.
 *
 * INTERFACE: engine_show.
 * NOTES: results are built in memory (they are small). LIKE patterns use SQL LIKE semantics
 * (% and _, optional ESCAPE). SHOW TABLES lists views too, and DESCRIBE of a view shows the
 * columns recorded when it was created (Trino).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/system_tables.h"
#include "common/utf8.h"
#include "engine/engine.h"
#include "types/tz.h"

static bool like_match(const char *s, const char *p, char esc) {
    while (*p) {
        if (esc && *p == esc && p[1]) {
            if (*s != p[1]) return false;
            s++;
            p += 2;
            continue;
        }
        if (*p == '%') {
            while (*p == '%') p++;
            if (!*p) return true;
            for (; *s; s++)
                if (like_match(s, p, esc)) return true;
            return false;
        }
        if (!*s) return false;
        if (*p != '_' && *p != *s) return false;
        s++;
        p++;
    }
    return !*s;
}

static bool matches(const sql_stmt *st, const char *name) {
    if (!st->u.show.like) return true;
    char esc = st->u.show.escape ? st->u.show.escape[0] : 0;
    return like_match(name, st->u.show.like, esc);
}

static int one_column(const char *col, sqe_result **out, sqe_error *err) {
    return engine_result_create(1, &col, NULL, out, err);
}

static int cmp_name(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Catalogs sorted by name, the virtual system catalog included (Trino). The column is
 * varchar(n), n the longest name (Trino answers it from a VALUES list of the names). */
static int show_catalogs(sqe_conn *conn, const sql_stmt *st, sqe_result **out, sqe_error *err) {
    uint32_t n = conn->db->n_catalogs;
    const char **names = calloc(n + 1, sizeof *names);
    if (!names) return err_nomem(err, "SHOW CATALOGS");
    bool have_system = false;
    for (uint32_t i = 0; i < n; i++) {
        names[i] = conn->db->catalogs[i]->name;
        have_system = have_system || strcmp(names[i], SYS_CATALOG) == 0;
    }
    if (!have_system) names[n++] = SYS_CATALOG;
    qsort(names, n, sizeof *names, cmp_name);
    uint32_t longest = 1;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t len = (uint32_t)utf8_count(names[i], strlen(names[i]));
        if (len > longest) longest = len;
    }
    const char *col = "Catalog";
    sqe_type type = type_varchar(longest);
    int rc = engine_result_create(1, &col, &type, out, err);
    for (uint32_t i = 0; !rc && i < n; i++)
        if (matches(st, names[i])) rc = engine_result_add_text_row(*out, &names[i], err);
    free(names);
    return rc;
}

/* A catalog's schemas with its metadata schemas (information_schema; the system catalog has
 * only those), sorted. */
static int show_schemas(sqe_conn *conn, const sql_stmt *st, sqe_result **out, sqe_error *err) {
    bind_env env;
    engine_bind_env(conn, &env);
    const char *cat_name = st->u.show.target ? st->u.show.target->parts[0].name : conn->catalog;
    if (!cat_name)
        return err_set(err, SQE_ERR_CATALOG_NOT_FOUND,
                       "Catalog must be specified when session catalog is not set");
    catalog *cat = bind_find_catalog(&env, cat_name);
    if (!cat && strcmp(cat_name, SYS_CATALOG) != 0)
        return err_set(err, SQE_ERR_CATALOG_NOT_FOUND, "Catalog '%s' not found", cat_name);
    arena a;
    arena_init(&a, NULL);
    char **own = NULL;
    uint32_t n_own = 0;
    int rc = cat ? catalog_list_schemas(cat, conn->principal, &a, &own, &n_own, err) : SQE_OK;
    const char *const *virt;
    uint32_t n_virt = sys_schema_names(cat_name, &virt);
    const char **names = rc ? NULL : ARENA_ARRAY(&a, const char *, n_own + n_virt + 1);
    if (!rc && !names) rc = err_nomem(err, "SHOW SCHEMAS");
    uint32_t n = 0;
    for (uint32_t i = 0; !rc && i < n_virt; i++) names[n++] = virt[i];
    for (uint32_t i = 0; !rc && i < n_own; i++)
        if (!sys_is_schema(cat_name, own[i])) names[n++] = own[i];
    if (!rc) {
        qsort(names, n, sizeof *names, cmp_name);
        rc = one_column("Schema", out, err);
    }
    for (uint32_t i = 0; !rc && i < n; i++)
        if (matches(st, names[i])) rc = engine_result_add_text_row(*out, &names[i], err);
    arena_destroy(&a);
    return rc;
}

/* SHOW TABLES of a metadata schema (information_schema, system.jdbc, system.metadata), or
 * *handled = false. */
static int show_system_tables(sqe_conn *conn, const sql_stmt *st, sqe_result **out, bool *handled,
                              sqe_error *err) {
    const sql_qname *t = st->u.show.target;
    const char *cat_name = t && t->n_parts == 2 ? t->parts[0].name : conn->catalog;
    const char *schema = t ? t->parts[t->n_parts - 1].name : conn->schema;
    bind_env env;
    engine_bind_env(conn, &env);
    *handled = false;
    if (!cat_name || !schema || (t && t->n_parts > 2)) return SQE_OK;
    bool known = bind_find_catalog(&env, cat_name) != NULL;
    if (!(strcmp(cat_name, SYS_CATALOG) == 0 && !known) &&
        !(known && strcmp(schema, SYS_INFO_SCHEMA) == 0))
        return SQE_OK;
    *handled = true;
    if (!sys_is_schema(cat_name, schema))
        return err_set(err, SQE_ERR_SCHEMA_NOT_FOUND, "Schema '%s' does not exist", schema);
    SQE_TRY(one_column("Table", out, err));
    for (uint32_t i = 0; i < sys_table_count(); i++) {
        const sys_table *def = sys_table_at(i); /* sorted by schema, then name */
        if (strcmp(def->schema, schema) == 0 && matches(st, def->name))
            SQE_TRY(engine_result_add_text_row(*out, &def->name, err));
    }
    return SQE_OK;
}

static int show_tables(sqe_conn *conn, const sql_stmt *st, sqe_result **out, sqe_error *err) {
    bool system_schema;
    int system_rc = show_system_tables(conn, st, out, &system_schema, err);
    if (system_schema) return system_rc;
    bind_env env;
    engine_bind_env(conn, &env);
    catalog *cat;
    const char *schema;
    SQE_TRY(bind_resolve_schema_name(&env, st->u.show.target, &cat, &schema, err));
    arena a;
    arena_init(&a, NULL);
    char **names;
    uint32_t n;
    int rc = catalog_list_tables(cat, conn->principal, schema, &a, &names, &n, err);
    if (rc && err && !err->line && st->u.show.target) {
        err->line = st->u.show.target->parts[0].line;
        err->column = st->u.show.target->parts[0].col;
    }
    if (!rc) rc = one_column("Table", out, err);
    for (uint32_t i = 0; !rc && i < n; i++)
        if (matches(st, names[i])) rc = engine_result_add_text_row(*out, (const char **)&names[i], err);
    arena_destroy(&a);
    return rc;
}

/* Looks up the table or view `name` names: on success exactly one of *t and *v is set (a new
 * reference). Errors point at the name; a missing name is TABLE_NOT_FOUND ("Table ... does not
 * exist", or "View ..." when want_view). */
static int get_relation(sqe_conn *conn, const sql_qname *name, bool want_view, cat_table **t,
                        cat_view **v, sqe_error *err) {
    *t = NULL;
    *v = NULL;
    bind_env env;
    engine_bind_env(conn, &env);
    catalog *cat;
    const char *schema, *table;
    SQE_TRY(bind_resolve_table_name(&env, name, &cat, &schema, &table, err));
    int rc = catalog_get_table(cat, conn->principal, schema, table, t, err);
    if (rc == SQE_ERR_TABLE_NOT_FOUND) {
        int view_rc = catalog_get_view(cat, schema, table, v, want_view ? err : NULL);
        if (view_rc == SQE_OK || want_view) rc = view_rc;
    }
    if (rc && err) {
        err->line = name->parts[0].line;
        err->column = name->parts[0].col;
    }
    return rc;
}

/* The column list of a table or view (SHOW COLUMNS, DESCRIBE). */
static int show_columns(sqe_conn *conn, const sql_stmt *st, sqe_result **out, sqe_error *err) {
    cat_table *t;
    cat_view *v;
    SQE_TRY(get_relation(conn, st->u.show.target, false, &t, &v, err));
    const cat_column *cols = t ? t->columns : v->columns;
    uint32_t n_cols = t ? t->n_columns : v->n_columns;
    const char *names[] = {"Column", "Type", "Extra", "Comment"};
    int rc = engine_result_create(4, names, NULL, out, err);
    for (uint32_t i = 0; !rc && i < n_cols; i++) {
        char type[256];
        type_format(cols[i].type, type, sizeof type);
        if (!matches(st, cols[i].name)) continue;
        const char *row[4] = {cols[i].name, type, cols[i].not_null ? "not null" : "",
                              cols[i].comment ? cols[i].comment : ""};
        rc = engine_result_add_text_row(*out, row, err);
    }
    cat_table_unref(t);
    cat_view_unref(v);
    return rc;
}

/* Appends s as a SQL string literal ('' doubles a quote). */
static void put_string_literal(strbuf *sb, const char *s) {
    strbuf_puts(sb, "'");
    for (const char *q = s; *q; q++) {
        if (*q == '\'') strbuf_putc(sb, '\'');
        strbuf_putc(sb, *q);
    }
    strbuf_puts(sb, "'");
}

/* Appends a name, double-quoted unless it reads back the same unquoted (lower case letters,
 * digits and '_'; reserved words are not detected). */
static void put_name(strbuf *sb, const char *name) {
    bool plain = *name && !(*name >= '0' && *name <= '9');
    for (const char *q = name; plain && *q; q++)
        plain = (*q >= 'a' && *q <= 'z') || (*q >= '0' && *q <= '9') || *q == '_';
    if (plain) {
        strbuf_puts(sb, name);
        return;
    }
    strbuf_putc(sb, '"');
    for (const char *q = name; *q; q++) {
        if (*q == '"') strbuf_putc(sb, '"');
        strbuf_putc(sb, *q);
    }
    strbuf_putc(sb, '"');
}

/* SHOW CREATE VIEW: Trino's form (CREATE VIEW c.s.v [COMMENT '..'] SECURITY DEFINER AS), then
 * the query text as written. */
static int show_create_view(sqe_conn *conn, const sql_stmt *st, sqe_result **out, sqe_error *err) {
    const sql_qname *target = st->u.show.target;
    cat_table *t;
    cat_view *v;
    SQE_TRY(get_relation(conn, target, true, &t, &v, err));
    if (t) {
        int rc = err_set_at(err, SQE_ERR_NOT_SUPPORTED, target->parts[0].line,
                            target->parts[0].col, "Relation '%s.%s.%s' is a table, not a view",
                            t->catalog, t->schema, t->name);
        cat_table_unref(t);
        return rc;
    }
    strbuf sb;
    strbuf_init(&sb);
    strbuf_puts(&sb, "CREATE VIEW ");
    put_name(&sb, v->catalog);
    strbuf_putc(&sb, '.');
    put_name(&sb, v->schema);
    strbuf_putc(&sb, '.');
    put_name(&sb, v->name);
    if (v->comment) {
        strbuf_puts(&sb, " COMMENT ");
        put_string_literal(&sb, v->comment);
    }
    strbuf_printf(&sb, " SECURITY DEFINER AS\n%s", v->sql);
    cat_view_unref(v);
    int rc = sb.failed ? err_nomem(err, "show create view") : one_column("Create View", out, err);
    const char *text = strbuf_cstr(&sb);
    if (!rc) rc = engine_result_add_text_row(*out, &text, err);
    strbuf_reset(&sb);
    return rc;
}

static int show_create_table(sqe_conn *conn, const sql_stmt *st, sqe_result **out, sqe_error *err) {
    cat_table *t;
    cat_view *v;
    SQE_TRY(get_relation(conn, st->u.show.target, false, &t, &v, err));
    if (v) {
        int rc = err_set_at(err, SQE_ERR_NOT_SUPPORTED, st->u.show.target->parts[0].line,
                            st->u.show.target->parts[0].col,
                            "Relation '%s.%s.%s' is a view, not a table", v->catalog, v->schema,
                            v->name);
        cat_view_unref(v);
        return rc;
    }
    strbuf sb;
    strbuf_init(&sb);
    strbuf_printf(&sb, "CREATE TABLE %s.%s.%s (\n", t->catalog, t->schema, t->name);
    for (uint32_t i = 0; i < t->n_columns; i++) {
        char type[256];
        type_format(t->columns[i].type, type, sizeof type);
        strbuf_printf(&sb, "   %s %s%s%s\n", t->columns[i].name, type, t->columns[i].not_null ? " NOT NULL" : "",
                      i + 1 < t->n_columns ? "," : "");
    }
    strbuf_puts(&sb, ")");
    cat_table_unref(t);
    int rc = one_column("Create Table", out, err);
    const char *text = strbuf_cstr(&sb);
    if (!rc) rc = engine_result_add_text_row(*out, &text, err);
    strbuf_reset(&sb);
    return rc;
}

typedef struct fn_list_state {
    sqe_result *r;
    const sql_stmt *st;
    sqe_error *err;
    int rc;
} fn_list_state;

static void fn_cb(void *ud, const char *name, const char *args, const char *ret, const char *kind,
                  const char *description) {
    fn_list_state *s = ud;
    if (s->rc || name[0] == '$' || !matches(s->st, name)) return;
    const char *row[6] = {name, ret, args, kind, "true", description ? description : ""};
    s->rc = engine_result_add_text_row(s->r, row, s->err);
}

static int show_functions(const sql_stmt *st, sqe_result **out, sqe_error *err) {
    const char *names[] = {"Function", "Return Type", "Argument Types", "Function Type",
                           "Deterministic", "Description"};
    SQE_TRY(engine_result_create(6, names, NULL, out, err));
    fn_list_state s = {*out, st, err, SQE_OK};
    func_registry_list(fn_cb, &s);
    return s.rc;
}

static int show_session(sqe_conn *conn, sqe_result **out, sqe_error *err) {
    const char *names[] = {"Name", "Value", "Default", "Type", "Description"};
    SQE_TRY(engine_result_create(5, names, NULL, out, err));
    char threads[32], mem[32];
    snprintf(threads, sizeof threads, "%u", conn->threads ? conn->threads : conn->db->threads);
    snprintf(mem, sizeof mem, "%lldB",
             (long long)(conn->query_max_memory ? conn->query_max_memory : conn->db->query_memory_limit));
    const char *rows[][5] = {
        {"join_reordering_strategy", conn->join_reorder ? "AUTOMATIC" : "NONE", "AUTOMATIC", "varchar",
         "Join reordering strategy (AUTOMATIC or NONE)"},
        {"query_max_memory", mem, "", "varchar", "Maximum memory of one query (e.g. 512MB)"},
        {"threads", threads, "", "integer", "Threads one query uses"},
        {"time_zone", tz_name(conn->time_zone), "", "varchar", "Session time zone"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        SQE_TRY(engine_result_add_text_row(*out, rows[i], err));
    return SQE_OK;
}

int engine_show(sqe_conn *conn, const sql_stmt *st, sqe_result **out, sqe_error *err) {
    *out = NULL;
    int rc;
    if (st->kind == SQL_STMT_DESCRIBE_INPUT || st->kind == SQL_STMT_DESCRIBE_OUTPUT)
        return err_set_at(err, SQE_ERR_NOT_SUPPORTED, st->line, st->col,
                          "DESCRIBE INPUT/OUTPUT is not supported yet");
    switch (st->u.show.what) {
    case SQL_SHOW_CATALOGS: rc = show_catalogs(conn, st, out, err); break;
    case SQL_SHOW_SCHEMAS: rc = show_schemas(conn, st, out, err); break;
    case SQL_SHOW_TABLES: rc = show_tables(conn, st, out, err); break;
    case SQL_SHOW_COLUMNS: rc = show_columns(conn, st, out, err); break;
    case SQL_SHOW_FUNCTIONS: rc = show_functions(st, out, err); break;
    case SQL_SHOW_SESSION: rc = show_session(conn, out, err); break;
    case SQL_SHOW_CREATE_TABLE: rc = show_create_table(conn, st, out, err); break;
    case SQL_SHOW_CREATE_VIEW: rc = show_create_view(conn, st, out, err); break;
    default:
        rc = err_set_at(err, SQE_ERR_NOT_SUPPORTED, st->line, st->col, "This SHOW statement is not supported");
        break;
    }
    if (rc && *out) {
        sqe_result_destroy(*out);
        *out = NULL;
    }
    return rc;
}
