/*
 * flight_meta.c: Flight SQL metadata commands: GetCatalogs, GetDbSchemas, GetTables (with
 * include_schema), GetTableTypes, GetXdbcTypeInfo (one row per SQE type) and the key commands
 * (empty results).
 *
 * INTERFACE: flight_meta_result (flight_int.h).
 * NOTES: the rows come from SHOW CATALOGS / SHOW SCHEMAS FROM c / SHOW TABLES FROM c.s run
 * through the engine; a table's schema for include_schema from planning `SELECT * FROM t WHERE
 * false`. Filter patterns are SQL LIKE patterns (% and _, backslash escapes). Result column
 * names, order and nullability follow the Flight SQL specification; the key commands' uint8
 * rule columns are written as int8 (SQE has no unsigned types).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "engine/engine_api.h"
#include "server/flight/flight_int.h"
#include "sqe/sqe_values.h"

/* Appends a row; cells[i] NULL = NULL; lens[i] for varbinary columns (else strlen). */
static int add_row(sqe_result *r, const char *const *cells, const size_t *lens, sqe_error *err) {
    SQE_TRY(engine_result_add_text_row(r, (const char *const *)cells, err));
    vec_chunk *c = engine_result_last_chunk(r);
    uint32_t row = c->count - 1;
    for (uint32_t i = 0; i < c->n_cols; i++) {
        vec *v = &c->cols[i];
        if (!cells[i]) continue;
        if (v->type.id == TYPE_INTEGER) VEC_DATA(v, int32_t)[row] = (int32_t)strtol(cells[i], NULL, 10);
        else if (v->type.id == TYPE_TINYINT) VEC_DATA(v, int8_t)[row] = (int8_t)strtol(cells[i], NULL, 10);
        else if (v->type.id == TYPE_VARBINARY && lens) {
            bool ok = true;
            VEC_DATA(v, sqe_str)[row] = vec_str_copy(v, cells[i], (uint32_t)lens[i], &ok);
            if (!ok) return err_nomem(err, "result");
        }
    }
    return SQE_OK;
}

static bool like(const char *s, const char *p) {
    for (; *p; p++, s++) {
        if (*p == '%') {
            while (p[1] == '%') p++;
            if (!p[1]) return true;
            for (; *s; s++)
                if (like(s, p + 1)) return true;
            return false;
        }
        if (*p == '\\' && p[1]) p++;
        else if (*p == '_') {
            if (!*s) return false;
            continue;
        }
        if (*s != *p) return false;
    }
    return *s == 0;
}

/* Runs a SHOW statement and returns its first column as a malloc'ed array of strings. */
static int show_list(flight_call *fc, const char *sql, char ***out, size_t *n, sqe_error *err) {
    *out = NULL;
    *n = 0;
    volatile int cancel = 0;
    sqe_conn *conn;
    sqe_stmt *stmt;
    sqe_result *res;
    SQE_TRY(flight_run_statement(fc, sql, NULL, 0, &cancel, &conn, &stmt, &res, err));
    int rc;
    const sqe_chunk *ch;
    while (!(rc = sqe_result_next(res, &ch, err)) && ch) {
        int rows = sqe_chunk_row_count(ch);
        for (int r = 0; r < rows && !rc; r++) {
            size_t len = sqe_chunk_format(ch, 0, r, NULL, 0);
            char *s = malloc(len + 1);
            char **g = realloc(*out, (*n + 1) * sizeof *g);
            if (!s || !g) {
                free(s);
                if (g) *out = g;
                rc = err_nomem(err, "metadata");
                break;
            }
            *out = g;
            sqe_chunk_format(ch, 0, r, s, len + 1);
            (*out)[(*n)++] = s;
        }
        if (rc) break;
    }
    sqe_result_destroy(res);
    sqe_disconnect(conn);
    if (rc) {
        for (size_t i = 0; i < *n; i++) free((*out)[i]);
        free(*out);
        *out = NULL;
        *n = 0;
    }
    return rc;
}

static void free_list(char **l, size_t n) {
    for (size_t i = 0; i < n; i++) free(l[i]);
    free(l);
}

static char *quote_ident(const char *s) {
    size_t n = strlen(s);
    char *o = malloc(2 * n + 3);
    if (!o) return NULL;
    size_t k = 0;
    o[k++] = '"';
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"') o[k++] = '"';
        o[k++] = s[i];
    }
    o[k++] = '"';
    o[k] = 0;
    return o;
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int table_schema(flight_call *fc, const char *c, const char *s, const char *t,
                        arrow_buf *out, sqe_error *err) {
    char *qc = quote_ident(c), *qs = quote_ident(s), *qt = quote_ident(t);
    int rc = SQE_OK;
    if (!qc || !qs || !qt) rc = err_nomem(err, "metadata");
    char *sql = NULL;
    if (!rc && asprintf(&sql, "SELECT * FROM %s.%s.%s WHERE false", qc, qs, qt) < 0) {
        sql = NULL;
        rc = err_nomem(err, "metadata");
    }
    free(qc);
    free(qs);
    free(qt);
    if (rc) return rc;
    volatile int cancel = 0;
    sqe_conn *conn;
    sqe_stmt *stmt;
    sqe_result *res;
    rc = flight_run_statement(fc, sql, NULL, 0, &cancel, &conn, &stmt, &res, err);
    free(sql);
    if (rc) return rc;
    rc = flight_result_schema(res, NULL, true, out, err);
    sqe_result_destroy(res);
    sqe_disconnect(conn);
    return rc;
}

/* ---- GetXdbcTypeInfo: one row per SQE type -------------------------------------------------- */

#define NONE INT32_MIN /* a NULL int32 cell */

/* One SQE type as ODBC/JDBC describe it (FlightSql.proto CommandGetXdbcTypeInfo). data_type is
 * an XdbcDataType (java.sql.Types codes; nested types use JDBC's ARRAY / JAVA_OBJECT / STRUCT,
 * which XdbcDataType lacks); sql_data_type and datetime_subcode follow ODBC (SQL_DATETIME = 9
 * with subcodes 1 date, 2 time, 3 timestamp; SQL_INTERVAL = 10 with 107 year to month, 110 day
 * to second). unsigned_attribute: -1 = NULL (not numeric). */
typedef struct xdbc_type {
    const char *name;
    int32_t data_type, column_size;
    const char *prefix, *suffix, *params; /* params: comma-separated create_params or NULL */
    bool case_sensitive;
    int32_t searchable; /* 0 none, 1 LIKE only, 2 all but LIKE, 3 all */
    int unsigned_attribute;
    int32_t min_scale, max_scale, sql_data_type, subcode, radix;
} xdbc_type;

/* Ordered by data_type, then type_name, as the specification asks. */
static const xdbc_type xdbc_types[] = {
    {"boolean", -7, 1, NULL, NULL, NULL, false, 2, -1, NONE, NONE, -7, NONE, NONE},
    {"tinyint", -6, 3, NULL, NULL, NULL, false, 2, 0, 0, 0, -6, NONE, 10},
    {"bigint", -5, 19, NULL, NULL, NULL, false, 2, 0, 0, 0, -5, NONE, 10},
    {"varbinary", -3, 2147483647, "X'", "'", NULL, false, 2, -1, NONE, NONE, -3, NONE, NONE},
    {"uuid", -2, 16, "UUID '", "'", NULL, false, 2, -1, NONE, NONE, -2, NONE, NONE},
    {"json", -1, 2147483647, "JSON '", "'", NULL, true, 0, -1, NONE, NONE, -1, NONE, NONE},
    {"char", 1, 65536, "'", "'", "length", true, 3, -1, NONE, NONE, 1, NONE, NONE},
    {"decimal", 3, 38, NULL, NULL, "precision,scale", false, 2, 0, 0, 38, 3, NONE, 10},
    {"integer", 4, 10, NULL, NULL, NULL, false, 2, 0, 0, 0, 4, NONE, 10},
    {"smallint", 5, 5, NULL, NULL, NULL, false, 2, 0, 0, 0, 5, NONE, 10},
    {"real", 7, 24, NULL, NULL, NULL, false, 2, 0, NONE, NONE, 7, NONE, 2},
    {"double", 8, 53, NULL, NULL, NULL, false, 2, 0, NONE, NONE, 8, NONE, 2},
    {"interval day to second", 10, 29, "INTERVAL '", "' DAY TO SECOND", NULL, false, 2, -1, 3, 3,
     10, 110, NONE},
    {"interval year to month", 10, 22, "INTERVAL '", "' YEAR TO MONTH", NULL, false, 2, -1, NONE,
     NONE, 10, 107, NONE},
    {"varchar", 12, 2147483647, "'", "'", "length", true, 3, -1, NONE, NONE, 12, NONE, NONE},
    {"date", 91, 10, "DATE '", "'", NULL, false, 2, -1, NONE, NONE, 9, 1, NONE},
    {"time", 92, 15, "TIME '", "'", "precision", false, 2, -1, 0, 12, 9, 2, NONE},
    {"timestamp", 93, 26, "TIMESTAMP '", "'", "precision", false, 2, -1, 0, 12, 9, 3, NONE},
    {"timestamp with time zone", 93, 33, "TIMESTAMP '", "'", "precision", false, 2, -1, 0, 12, 9,
     3, NONE},
    {"map", 2000, NONE, NULL, NULL, "key_type,value_type", false, 0, -1, NONE, NONE, 2000, NONE,
     NONE},
    {"row", 2002, NONE, NULL, NULL, "field_definitions", false, 0, -1, NONE, NONE, 2002, NONE,
     NONE},
    {"array", 2003, NONE, NULL, NULL, "element_type", false, 0, -1, NONE, NONE, 2003, NONE, NONE},
};

/* Sets row `row` of the list<utf8> vector v to the comma-separated names of params. */
static int set_string_list(vec *v, uint32_t row, const char *params, sqe_error *err) {
    vec *child = &v->children[0];
    uint32_t start = v->child_len, n = 0;
    for (const char *p = params; p && *p;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        SQE_TRY(vec_reserve(child, start + n + 1, err));
        bool ok = true;
        VEC_DATA(child, sqe_str)[start + n] = vec_str_copy(child, p, (uint32_t)len, &ok);
        if (!ok) return err_nomem(err, "type info");
        n++;
        p = comma ? comma + 1 : p + len;
    }
    v->child_len = start + n;
    VEC_DATA(v, sqe_list_entry)[row] = (sqe_list_entry){start, n};
    if (v->validity) v->validity[row >> 6] |= (uint64_t)1 << (row & 63);
    return SQE_OK;
}

static int xdbc_rows(sqe_result *r, bool filter, int32_t want, sqe_error *err) {
    for (size_t i = 0; i < sizeof xdbc_types / sizeof xdbc_types[0]; i++) {
        const xdbc_type *t = &xdbc_types[i];
        if (filter && t->data_type != want) continue;
        char num[7][16];
        const int32_t ints[] = {t->data_type, t->column_size, t->searchable, t->min_scale,
                                t->max_scale, t->sql_data_type, t->subcode};
        for (int k = 0; k < 7; k++) snprintf(num[k], sizeof num[k], "%d", (int)ints[k]);
        char radix[16];
        snprintf(radix, sizeof radix, "%d", (int)t->radix);
        const char *cells[19] = {
            t->name, num[0], t->column_size == NONE ? NULL : num[1], t->prefix, t->suffix,
            NULL, "1", t->case_sensitive ? "true" : "false", num[2],
            t->unsigned_attribute < 0 ? NULL : t->unsigned_attribute ? "true" : "false",
            "false", t->unsigned_attribute < 0 ? NULL : "false", t->name,
            t->min_scale == NONE ? NULL : num[3], t->max_scale == NONE ? NULL : num[4], num[5],
            t->subcode == NONE ? NULL : num[6], t->radix == NONE ? NULL : radix, NULL};
        SQE_TRY(add_row(r, cells, NULL, err));
        vec_chunk *c = engine_result_last_chunk(r);
        vec *pv = &c->cols[5];
        if (t->params) SQE_TRY(set_string_list(pv, c->count - 1, t->params, err));
        else VEC_DATA(pv, sqe_list_entry)[c->count - 1] = (sqe_list_entry){pv->child_len, 0};
    }
    return SQE_OK;
}

#undef NONE

static int meta_result(flight_call *fc, const flight_cmd *cmd, sqe_result **out,
                       const bool **not_null, sqe_error *err) {
    *out = NULL;
    sqe_type vc = type_varchar(0), i32 = type_make(TYPE_INTEGER), i8 = type_make(TYPE_TINYINT);
    sqe_type bin = type_make(TYPE_VARBINARY);
    int rc = SQE_OK;
    sqe_result *r = NULL;
    switch (cmd->kind) {
    case FCMD_CATALOGS: {
        static const bool nn[] = {true};
        const char *names[] = {"catalog_name"};
        SQE_TRY(engine_result_create(1, names, &vc, &r, err));
        char **cats;
        size_t n;
        rc = show_list(fc, "SHOW CATALOGS", &cats, &n, err);
        if (!rc && n > 1) qsort(cats, n, sizeof *cats, cmp_str);
        for (size_t i = 0; !rc && i < n; i++) {
            const char *cells[] = {cats[i]};
            rc = add_row(r, cells, NULL, err);
        }
        free_list(cats, n);
        *not_null = nn;
        break;
    }
    case FCMD_DB_SCHEMAS:
    case FCMD_TABLES: {
        static const bool nn_s[] = {false, true};
        static const bool nn_t[] = {false, false, true, true, true};
        const char *want_cat = NULL, *spat = NULL, *tpat = NULL;
        bool include_schema = false;
        size_t n_types = 0;
        char **types = NULL;
        if (cmd->kind == FCMD_DB_SCHEMAS) {
            const Arrow__Flight__Protocol__Sql__CommandGetDbSchemas *q = (const void *)cmd->msg;
            if (q->_catalog_case) want_cat = q->catalog;
            if (q->_db_schema_filter_pattern_case) spat = q->db_schema_filter_pattern;
            const char *names[] = {"catalog_name", "db_schema_name"};
            sqe_type ts[] = {vc, vc};
            SQE_TRY(engine_result_create(2, names, ts, &r, err));
            *not_null = nn_s;
        } else {
            const Arrow__Flight__Protocol__Sql__CommandGetTables *q = (const void *)cmd->msg;
            if (q->_catalog_case) want_cat = q->catalog;
            if (q->_db_schema_filter_pattern_case) spat = q->db_schema_filter_pattern;
            if (q->_table_name_filter_pattern_case) tpat = q->table_name_filter_pattern;
            include_schema = q->include_schema;
            n_types = q->n_table_types;
            types = q->table_types;
            const char *names[] = {"catalog_name", "db_schema_name", "table_name", "table_type",
                                   "table_schema"};
            sqe_type ts[] = {vc, vc, vc, vc, bin};
            SQE_TRY(engine_result_create(include_schema ? 5 : 4, names, ts, &r, err));
            *not_null = nn_t;
        }
        bool want_table = n_types == 0;
        for (size_t i = 0; i < n_types; i++)
            if (strcmp(types[i], "TABLE") == 0) want_table = true;
        char **cats = NULL;
        size_t n_cats = 0;
        rc = show_list(fc, "SHOW CATALOGS", &cats, &n_cats, err);
        if (!rc && n_cats > 1) qsort(cats, n_cats, sizeof *cats, cmp_str);
        for (size_t ci = 0; !rc && ci < n_cats; ci++) {
            if (want_cat && strcmp(want_cat, cats[ci]) != 0) continue;
            char *qc = quote_ident(cats[ci]);
            char *sql = NULL;
            if (!qc || asprintf(&sql, "SHOW SCHEMAS FROM %s", qc) < 0) {
                free(qc);
                rc = err_nomem(err, "metadata");
                break;
            }
            char **schemas;
            size_t n_s;
            rc = show_list(fc, sql, &schemas, &n_s, err);
            free(sql);
            if (rc) {
                free(qc);
                break;
            }
            if (n_s > 1) qsort(schemas, n_s, sizeof *schemas, cmp_str);
            for (size_t si = 0; !rc && si < n_s; si++) {
                if (spat && !like(schemas[si], spat)) continue;
                if (cmd->kind == FCMD_DB_SCHEMAS) {
                    const char *cells[] = {cats[ci], schemas[si]};
                    rc = add_row(r, cells, NULL, err);
                    continue;
                }
                if (!want_table) continue;
                char *qs = quote_ident(schemas[si]);
                char **tables = NULL;
                size_t n_t = 0;
                if (!qs || asprintf(&sql, "SHOW TABLES FROM %s.%s", qc, qs) < 0) {
                    rc = err_nomem(err, "metadata");
                } else {
                    rc = show_list(fc, sql, &tables, &n_t, err);
                    free(sql);
                }
                free(qs);
                if (!rc && n_t > 1) qsort(tables, n_t, sizeof *tables, cmp_str);
                for (size_t ti = 0; !rc && ti < n_t; ti++) {
                    if (tpat && !like(tables[ti], tpat)) continue;
                    arrow_buf sch;
                    arrow_buf_init(&sch);
                    if (include_schema) rc = table_schema(fc, cats[ci], schemas[si], tables[ti], &sch, err);
                    const char *cells[] = {cats[ci], schemas[si], tables[ti], "TABLE",
                                           include_schema ? (const char *)sch.data : NULL};
                    size_t lens[] = {0, 0, 0, 0, sch.len};
                    if (include_schema && !sch.data) cells[4] = "";
                    if (!rc) rc = add_row(r, cells, lens, err);
                    arrow_buf_reset(&sch);
                }
                free_list(tables, n_t);
            }
            free_list(schemas, n_s);
            free(qc);
        }
        free_list(cats, n_cats);
        break;
    }
    case FCMD_TABLE_TYPES: {
        static const bool nn[] = {true};
        const char *names[] = {"table_type"};
        SQE_TRY(engine_result_create(1, names, &vc, &r, err));
        const char *cells[] = {"TABLE"};
        rc = add_row(r, cells, NULL, err);
        *not_null = nn;
        break;
    }
    case FCMD_PRIMARY_KEYS: {
        static const bool nn[] = {false, false, true, true, false, true};
        const char *names[] = {"catalog_name", "db_schema_name", "table_name", "column_name",
                               "key_name", "key_sequence"};
        sqe_type ts[] = {vc, vc, vc, vc, vc, i32};
        rc = engine_result_create(6, names, ts, &r, err);
        *not_null = nn;
        break;
    }
    case FCMD_EXPORTED_KEYS:
    case FCMD_IMPORTED_KEYS:
    case FCMD_CROSS_REFERENCE: {
        static const bool nn[] = {false, false, true, true, false, false, true, true,
                                  true, false, false, true, true};
        const char *names[] = {"pk_catalog_name", "pk_db_schema_name", "pk_table_name",
                               "pk_column_name", "fk_catalog_name", "fk_db_schema_name",
                               "fk_table_name", "fk_column_name", "key_sequence", "fk_key_name",
                               "pk_key_name", "update_rule", "delete_rule"};
        sqe_type ts[] = {vc, vc, vc, vc, vc, vc, vc, vc, i32, vc, vc, i8, i8};
        rc = engine_result_create(13, names, ts, &r, err);
        *not_null = nn;
        break;
    }
    case FCMD_XDBC_TYPE_INFO: {
        static const bool nn[] = {true, true, false, false, false, false, true, true, true,
                                  false, true, false, false, false, false, true, false, false,
                                  false};
        const char *names[] = {"type_name", "data_type", "column_size", "literal_prefix",
                               "literal_suffix", "create_params", "nullable", "case_sensitive",
                               "searchable", "unsigned_attribute", "fixed_prec_scale",
                               "auto_increment", "local_type_name", "minimum_scale",
                               "maximum_scale", "sql_data_type", "datetime_subcode",
                               "num_prec_radix", "interval_precision"};
        sqe_type bo = type_make(TYPE_BOOLEAN), lst = type_array(vc);
        sqe_type ts[] = {vc, i32, i32, vc, vc, lst, i32, bo, i32, bo, bo, bo, vc, i32, i32, i32,
                         i32, i32, i32};
        rc = engine_result_create(19, names, ts, &r, err);
        const Arrow__Flight__Protocol__Sql__CommandGetXdbcTypeInfo *q = (const void *)cmd->msg;
        if (!rc) rc = xdbc_rows(r, q->_data_type_case != 0, q->data_type, err);
        *not_null = nn;
        break;
    }
    default:
        rc = err_set(err, SQE_ERR_NOT_SUPPORTED, "%s is not a metadata command",
                     flight_cmd_name(cmd->kind));
    }
    if (rc) {
        if (r) sqe_result_destroy(r);
        return rc;
    }
    *out = r;
    return SQE_OK;
}

int flight_meta_result(flight_call *fc, const flight_cmd *cmd, sqe_result **out,
                       const bool **not_null, sqe_error *err) {
    int rc = meta_result(fc, cmd, out, not_null, err);
    if (rc && err) err->line = err->column = 0; /* positions in our SQL mean nothing to the client */
    return rc;
}
