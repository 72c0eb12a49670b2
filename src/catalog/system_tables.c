/*
 * system_tables.c: definitions and rows of the metadata tables (information_schema, system.jdbc,
 * system.metadata) with Trino's column names, types and value conventions.
 *
 * INTERFACE: sys_column_type, sys_is_schema, sys_table_find, sys_table_count, sys_table_at,
 *   sys_schema_names, sys_table_rows.
 * NOTES
 *   Column lists follow Trino's InformationSchemaTable, io.trino.connector.system.jdbc.* and
 *   io.trino.connector.system.* (CatalogSystemTable, AbstractPropertiesSystemTable,
 *   TableCommentSystemTable, MaterializedViewSystemTable). JDBC type codes are java.sql.Types;
 *   column_size, decimal_digits, num_prec_radix and char_octet_length follow Trino's
 *   ColumnJdbcTable (unbounded varchar = 2147483647, the longest zone id is 32 characters).
 *   information_schema.tables says 'BASE TABLE' / 'VIEW' (SQL standard), jdbc.tables says
 *   'TABLE' / 'VIEW' (JDBC).
 *   Listings walk catalogs, then schemas, then relations, each sorted by name; the metadata
 *   schemas are listed next to a catalog's own schemas and the system catalog next to the
 *   session's catalogs. A relation is probed as a view first (cheap), and its table entry is
 *   loaded only for the listings that need columns or comments.
 *   We have no procedures, user-defined types, roles, privileges, properties or materialized
 *   views: those tables exist with Trino's columns and no rows.
 *   materialized_views.last_fresh_time is timestamp(6) with time zone (Trino: precision 9,
 *   beyond our types); it is always NULL here.
 *   system.runtime.sessions is SQE's (Trino's runtime schema has queries, nodes, tasks): the
 *   host's live sessions through the lister the server registered (sqe_db_set_session_lister),
 *   of which a caller sees only the rows whose user is theirs (all rows when they hold one of
 *   the database's admin roles: sqe_db_set_admin_roles); no lister, no rows.
 */
#include "catalog/system_tables.h"

#include <stdlib.h>
#include <string.h>

enum {
    SYS_INFO_SCHEMATA = 1, SYS_INFO_TABLES, SYS_INFO_COLUMNS, SYS_INFO_VIEWS, SYS_EMPTY,
    SYS_JDBC_CATALOGS, SYS_JDBC_SCHEMAS, SYS_JDBC_TABLES, SYS_JDBC_TABLE_TYPES, SYS_JDBC_COLUMNS,
    SYS_JDBC_TYPES, SYS_META_CATALOGS, SYS_META_TABLE_COMMENTS, SYS_RUNTIME_SESSIONS,
};

#define V TYPE_VARCHAR
#define B TYPE_BIGINT
#define BOOL TYPE_BOOLEAN

static const sys_column info_schemata[] = {{"catalog_name", V, 0}, {"schema_name", V, 0}};
static const sys_column info_tables[] = {
    {"table_catalog", V, 0}, {"table_schema", V, 0}, {"table_name", V, 0}, {"table_type", V, 0},
    {"trino_relation_type", V, 1}, {"table_comment", V, 1}};
static const sys_column info_columns[] = {
    {"table_catalog", V, 0}, {"table_schema", V, 0}, {"table_name", V, 0},
    {"column_name", V, 0}, {"ordinal_position", B, 0}, {"column_default", V, 0},
    {"is_nullable", V, 0}, {"data_type", V, 0}, {"comment", V, 1}, {"extra_info", V, 1},
    {"column_comment", V, 1}};
static const sys_column info_views[] = {
    {"table_catalog", V, 0}, {"table_schema", V, 0}, {"table_name", V, 0},
    {"view_definition", V, 0}};
static const sys_column info_table_privileges[] = {
    {"grantor", V, 0}, {"grantor_type", V, 0}, {"grantee", V, 0}, {"grantee_type", V, 0},
    {"table_catalog", V, 0}, {"table_schema", V, 0}, {"table_name", V, 0},
    {"privilege_type", V, 0}, {"is_grantable", V, 0}, {"with_hierarchy", V, 0}};
static const sys_column info_roles[] = {{"role_name", V, 0}};
static const sys_column info_applicable_roles[] = {
    {"grantee", V, 0}, {"grantee_type", V, 0}, {"role_name", V, 0}, {"is_grantable", V, 0}};

static const sys_column jdbc_catalogs[] = {{"table_cat", V, 0}};
static const sys_column jdbc_schemas[] = {{"table_schem", V, 0}, {"table_catalog", V, 0}};
static const sys_column jdbc_tables[] = {
    {"table_cat", V, 0}, {"table_schem", V, 0}, {"table_name", V, 0}, {"table_type", V, 0},
    {"remarks", V, 0}, {"type_cat", V, 0}, {"type_schem", V, 0}, {"type_name", V, 0},
    {"self_referencing_col_name", V, 0}, {"ref_generation", V, 0}};
static const sys_column jdbc_table_types[] = {{"table_type", V, 0}};
static const sys_column jdbc_columns[] = {
    {"table_cat", V, 0}, {"table_schem", V, 0}, {"table_name", V, 0}, {"column_name", V, 0},
    {"data_type", B, 0}, {"type_name", V, 0}, {"column_size", B, 0}, {"buffer_length", B, 0},
    {"decimal_digits", B, 0}, {"num_prec_radix", B, 0}, {"nullable", B, 0}, {"remarks", V, 0},
    {"column_def", V, 0}, {"sql_data_type", B, 0}, {"sql_datetime_sub", B, 0},
    {"char_octet_length", B, 0}, {"ordinal_position", B, 0}, {"is_nullable", V, 0},
    {"scope_catalog", V, 0}, {"scope_schema", V, 0}, {"scope_table", V, 0},
    {"source_data_type", B, 0}, {"is_autoincrement", V, 0}, {"is_generatedcolumn", V, 0}};
static const sys_column jdbc_types[] = {
    {"type_name", V, 0}, {"data_type", B, 0}, {"precision", B, 0}, {"literal_prefix", V, 0},
    {"literal_suffix", V, 0}, {"create_params", V, 0}, {"nullable", B, 0},
    {"case_sensitive", BOOL, 0}, {"searchable", B, 0}, {"unsigned_attribute", BOOL, 0},
    {"fixed_prec_scale", BOOL, 0}, {"auto_increment", BOOL, 0}, {"local_type_name", V, 0},
    {"minimum_scale", B, 0}, {"maximum_scale", B, 0}, {"sql_data_type", B, 0},
    {"sql_datetime_sub", B, 0}, {"num_prec_radix", B, 0}};
static const sys_column jdbc_procedures[] = {
    {"procedure_cat", V, 0}, {"procedure_schem", V, 0}, {"procedure_name", V, 0},
    {"remarks", V, 0}, {"procedure_type", B, 0}, {"specific_name", V, 0}};
static const sys_column jdbc_procedure_columns[] = {
    {"procedure_cat", V, 0}, {"procedure_schem", V, 0}, {"procedure_name", V, 0},
    {"column_name", V, 0}, {"column_type", B, 0}, {"data_type", B, 0}, {"type_name", V, 0},
    {"precision", B, 0}, {"length", B, 0}, {"scale", B, 0}, {"radix", B, 0},
    {"nullable", B, 0}, {"remarks", V, 0}, {"column_def", V, 0}, {"sql_data_type", B, 0},
    {"sql_datetime_sub", B, 0}, {"char_octet_length", B, 0}, {"ordinal_position", B, 0},
    {"is_nullable", V, 0}, {"specific_name", V, 0}};
static const sys_column jdbc_super_tables[] = {
    {"table_cat", V, 0}, {"table_schem", V, 0}, {"table_name", V, 0},
    {"supertable_name", V, 0}};
static const sys_column jdbc_super_types[] = {
    {"type_cat", V, 0}, {"type_schem", V, 0}, {"type_name", V, 0}, {"supertype_cat", V, 0},
    {"supertype_schem", V, 0}, {"supertype_name", V, 0}};
static const sys_column jdbc_udts[] = {
    {"type_cat", V, 0}, {"type_schem", V, 0}, {"type_name", V, 0}, {"class_name", V, 0},
    {"data_type", V, 0}, {"remarks", V, 0}, {"base_type", V, 0}};
static const sys_column jdbc_attributes[] = {
    {"type_cat", V, 0}, {"type_schem", V, 0}, {"type_name", V, 0}, {"attr_name", V, 0},
    {"data_type", B, 0}, {"attr_type_name", V, 0}, {"attr_size", B, 0},
    {"decimal_digits", B, 0}, {"num_prec_radix", B, 0}, {"nullable", B, 0}, {"remarks", V, 0},
    {"attr_def", V, 0}, {"sql_data_type", B, 0}, {"sql_datetime_sub", B, 0},
    {"char_octet_length", B, 0}, {"ordinal_position", B, 0}, {"is_nullable", V, 0},
    {"scope_catalog", V, 0}, {"scope_schema", V, 0}, {"scope_table", V, 0},
    {"source_data_type", B, 0}};
static const sys_column jdbc_pseudo_columns[] = {
    {"table_cat", V, 0}, {"table_schem", V, 0}, {"table_name", V, 0}, {"column_name", V, 0},
    {"data_type", B, 0}, {"column_size", B, 0}, {"decimal_digits", B, 0},
    {"num_prec_radix", B, 0}, {"column_usage", V, 0}, {"remarks", V, 0},
    {"char_octet_length", B, 0}, {"is_nullable", B, 0}};
static const sys_column jdbc_primary_keys[] = {
    {"table_cat", V, 0}, {"table_schem", V, 0}, {"table_name", V, 0}, {"column_name", V, 0},
    {"key_seq", B, 0}, {"pk_name", V, 0}};

static const sys_column meta_catalogs[] = {
    {"catalog_name", V, 0}, {"connector_id", V, 0}, {"connector_name", V, 0}};
static const sys_column meta_properties[] = {
    {"catalog_name", V, 0}, {"property_name", V, 0}, {"default_value", V, 0}, {"type", V, 0},
    {"description", V, 0}};
static const sys_column meta_table_comments[] = {
    {"catalog_name", V, 0}, {"schema_name", V, 0}, {"table_name", V, 0}, {"comment", V, 0}};
static const sys_column meta_materialized_views[] = {
    {"catalog_name", V, 0}, {"schema_name", V, 0}, {"name", V, 0}, {"storage_catalog", V, 0},
    {"storage_schema", V, 0}, {"storage_table", V, 0}, {"freshness", V, 0},
    {"last_fresh_time", TYPE_TIMESTAMP_TZ, 0}, {"comment", V, 0}, {"definition", V, 0}};

static const sys_column runtime_sessions[] = {
    {"session_id", V, 0}, {"user", V, 0}, {"auth_method", V, 0}, {"protocol", V, 0},
    {"source", V, 0}, {"client_address", V, 0}, {"created", TYPE_TIMESTAMP_TZ, 0},
    {"last_used", TYPE_TIMESTAMP_TZ, 0}, {"catalog", V, 0}, {"schema", V, 0},
    {"state", V, 0}};

#undef V
#undef B
#undef BOOL

#define COLS(a) a, (uint32_t)(sizeof a / sizeof a[0])

/* Sorted by schema, then name (listings rely on it). */
static const sys_table tables[] = {
    {"information_schema", "applicable_roles", COLS(info_applicable_roles), -1, -1, -1, SYS_EMPTY},
    {"information_schema", "columns", COLS(info_columns), 0, 1, 2, SYS_INFO_COLUMNS},
    {"information_schema", "enabled_roles", COLS(info_roles), -1, -1, -1, SYS_EMPTY},
    {"information_schema", "roles", COLS(info_roles), -1, -1, -1, SYS_EMPTY},
    {"information_schema", "schemata", COLS(info_schemata), 0, 1, -1, SYS_INFO_SCHEMATA},
    {"information_schema", "table_privileges", COLS(info_table_privileges), 4, 5, 6, SYS_EMPTY},
    {"information_schema", "tables", COLS(info_tables), 0, 1, 2, SYS_INFO_TABLES},
    {"information_schema", "views", COLS(info_views), 0, 1, 2, SYS_INFO_VIEWS},
    {"jdbc", "attributes", COLS(jdbc_attributes), -1, -1, -1, SYS_EMPTY},
    {"jdbc", "catalogs", COLS(jdbc_catalogs), 0, -1, -1, SYS_JDBC_CATALOGS},
    {"jdbc", "columns", COLS(jdbc_columns), 0, 1, 2, SYS_JDBC_COLUMNS},
    {"jdbc", "primary_keys", COLS(jdbc_primary_keys), -1, -1, -1, SYS_EMPTY},
    {"jdbc", "procedure_columns", COLS(jdbc_procedure_columns), -1, -1, -1, SYS_EMPTY},
    {"jdbc", "procedures", COLS(jdbc_procedures), -1, -1, -1, SYS_EMPTY},
    {"jdbc", "pseudo_columns", COLS(jdbc_pseudo_columns), -1, -1, -1, SYS_EMPTY},
    {"jdbc", "schemas", COLS(jdbc_schemas), 1, 0, -1, SYS_JDBC_SCHEMAS},
    {"jdbc", "super_tables", COLS(jdbc_super_tables), -1, -1, -1, SYS_EMPTY},
    {"jdbc", "super_types", COLS(jdbc_super_types), -1, -1, -1, SYS_EMPTY},
    {"jdbc", "table_types", COLS(jdbc_table_types), -1, -1, -1, SYS_JDBC_TABLE_TYPES},
    {"jdbc", "tables", COLS(jdbc_tables), 0, 1, 2, SYS_JDBC_TABLES},
    {"jdbc", "types", COLS(jdbc_types), -1, -1, -1, SYS_JDBC_TYPES},
    {"jdbc", "udts", COLS(jdbc_udts), -1, -1, -1, SYS_EMPTY},
    {"metadata", "analyze_properties", COLS(meta_properties), -1, -1, -1, SYS_EMPTY},
    {"metadata", "catalogs", COLS(meta_catalogs), 0, -1, -1, SYS_META_CATALOGS},
    {"metadata", "column_properties", COLS(meta_properties), -1, -1, -1, SYS_EMPTY},
    {"metadata", "materialized_view_properties", COLS(meta_properties), -1, -1, -1, SYS_EMPTY},
    {"metadata", "materialized_views", COLS(meta_materialized_views), 0, 1, 2, SYS_EMPTY},
    {"metadata", "schema_properties", COLS(meta_properties), -1, -1, -1, SYS_EMPTY},
    {"metadata", "table_comments", COLS(meta_table_comments), 0, 1, 2, SYS_META_TABLE_COMMENTS},
    {"metadata", "table_properties", COLS(meta_properties), -1, -1, -1, SYS_EMPTY},
    {"runtime", "sessions", COLS(runtime_sessions), -1, -1, -1, SYS_RUNTIME_SESSIONS},
};
#define N_TABLES (sizeof tables / sizeof tables[0])

static const char *const system_schemas[] = {"information_schema", "jdbc", "metadata", "runtime"};
static const char *const catalog_schemas[] = {"information_schema"};

sqe_type sys_column_type(const sys_column *c) {
    if (c->type == TYPE_VARCHAR) return type_varchar(0);
    if (c->type == TYPE_TIMESTAMP_TZ) return type_with_precision(TYPE_TIMESTAMP_TZ, 6);
    return type_make(c->type);
}

bool sys_is_schema(const char *cat_name, const char *schema) {
    const char *const *names;
    uint32_t n = sys_schema_names(cat_name, &names);
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(names[i], schema) == 0) return true;
    return false;
}

const sys_table *sys_table_find(const char *cat_name, const char *schema, const char *name) {
    if (!sys_is_schema(cat_name, schema)) return NULL;
    for (size_t i = 0; i < N_TABLES; i++)
        if (strcmp(tables[i].schema, schema) == 0 && strcmp(tables[i].name, name) == 0)
            return &tables[i];
    return NULL;
}

uint32_t sys_table_count(void) { return (uint32_t)N_TABLES; }
const sys_table *sys_table_at(uint32_t i) { return i < N_TABLES ? &tables[i] : NULL; }

uint32_t sys_schema_names(const char *cat_name, const char *const **names) {
    if (strcmp(cat_name, SYS_CATALOG) == 0) {
        *names = system_schemas;
        return (uint32_t)(sizeof system_schemas / sizeof system_schemas[0]);
    }
    *names = catalog_schemas;
    return 1;
}

/* ---- row writing -------------------------------------------------------------------------- */

enum { CELL_NULL = 0, CELL_STR, CELL_INT, CELL_BOOL, CELL_TS };
typedef struct sys_cell {
    uint8_t kind;
    const char *s;
    int64_t i;
} sys_cell;
static inline sys_cell cell_str(const char *s) { return (sys_cell){s ? CELL_STR : CELL_NULL, s, 0}; }
#define STR(x) cell_str(x)
#define INT(x) ((sys_cell){CELL_INT, NULL, (x)})
#define OPT_INT(x) ((x) < 0 ? NUL : INT(x)) /* negative = NULL */
#define BOOLV(x) ((sys_cell){CELL_BOOL, NULL, (x)})
#define TS_MS(x) ((sys_cell){CELL_TS, NULL, (x)}) /* timestamp with time zone, ms since the epoch */
#define NUL ((sys_cell){CELL_NULL, NULL, 0})

typedef struct sys_rows {
    const sys_table *t;
    const sys_scope *scope;
    vec *cols;
    uint32_t *n_rows;
    sqe_error *err;
} sys_rows;

static int add_row_n(sys_rows *r, const sys_cell *cells, uint32_t n) {
    if (n != r->t->n_columns)
        return err_set(r->err, SQE_ERR_GENERIC_INTERNAL_ERROR, "%s.%s: row of %u values for %u columns",
                       r->t->schema, r->t->name, n, r->t->n_columns);
    uint32_t row = *r->n_rows;
    for (uint32_t c = 0; c < n; c++) {
        vec *v = &r->cols[c];
        SQE_TRY(vec_reserve(v, row + 1, r->err));
        switch (cells[c].kind) {
        case CELL_STR: {
            bool ok = true;
            VEC_DATA(v, sqe_str)[row] = vec_str_copy(v, cells[c].s, (uint32_t)strlen(cells[c].s), &ok);
            if (!ok) return err_nomem(r->err, "metadata table");
            vec_set_valid(v, row);
            break;
        }
        case CELL_INT:
            VEC_DATA(v, int64_t)[row] = cells[c].i;
            vec_set_valid(v, row);
            break;
        case CELL_BOOL:
            VEC_DATA(v, uint8_t)[row] = cells[c].i != 0;
            vec_set_valid(v, row);
            break;
        case CELL_TS:
            VEC_DATA(v, sqe_timestamp_tz)[row] = (sqe_timestamp_tz){cells[c].i * 1000, 0, 0};
            vec_set_valid(v, row);
            break;
        default:
            if (vec_set_null(v, row)) return err_nomem(r->err, "metadata table");
        }
    }
    (*r->n_rows)++;
    return SQE_OK;
}
#define ADD_ROW(r, ...)                                                                            \
    add_row_n((r), (const sys_cell[]){__VA_ARGS__},                                                \
              (uint32_t)(sizeof((const sys_cell[]){__VA_ARGS__}) / sizeof(sys_cell)))

/* ---- JDBC type attributes (Trino's ColumnJdbcTable) --------------------------------------- */

#define JDBC_MAX_LENGTH 2147483647
#define MAX_ZONE_ID_LENGTH 32

static int64_t jdbc_data_type(sqe_type t) {
    switch (t.id) {
    case TYPE_BOOLEAN: return 16;
    case TYPE_BIGINT: return -5;
    case TYPE_INTEGER: return 4;
    case TYPE_SMALLINT: return 5;
    case TYPE_TINYINT: return -6;
    case TYPE_REAL: return 7;
    case TYPE_DOUBLE: return 8;
    case TYPE_DECIMAL: return 3;
    case TYPE_VARCHAR: return 12;
    case TYPE_CHAR: return 1;
    case TYPE_VARBINARY: return -3;
    case TYPE_DATE: return 91;
    case TYPE_TIME: return 92;
    case TYPE_TIMESTAMP: return 93;
    case TYPE_TIMESTAMP_TZ: return 2014;
    case TYPE_ARRAY: return 2003;
    default: return 2000; /* JAVA_OBJECT */
    }
}

/* column_size, or -1 (NULL). */
static int64_t jdbc_column_size(sqe_type t) {
    int64_t p = t.precision, frac = p > 0 ? 1 : 0;
    switch (t.id) {
    case TYPE_BIGINT: return 19;
    case TYPE_INTEGER: return 10;
    case TYPE_SMALLINT: return 5;
    case TYPE_TINYINT: return 3;
    case TYPE_DECIMAL: return t.precision;
    case TYPE_REAL: return 24;
    case TYPE_DOUBLE: return 53;
    case TYPE_VARCHAR: return t.length ? t.length : JDBC_MAX_LENGTH;
    case TYPE_CHAR: return t.length;
    case TYPE_VARBINARY: return JDBC_MAX_LENGTH;
    case TYPE_TIME: return 8 + frac + p;
    case TYPE_DATE: return 14;
    case TYPE_TIMESTAMP: return 1 + 5 + 15 + frac + p;
    case TYPE_TIMESTAMP_TZ: return 1 + 6 + 15 + frac + p + 1 + MAX_ZONE_ID_LENGTH;
    default: return -1;
    }
}

static int64_t jdbc_decimal_digits(sqe_type t) {
    switch (t.id) {
    case TYPE_DECIMAL: return t.scale;
    case TYPE_TIME:
    case TYPE_TIMESTAMP:
    case TYPE_TIMESTAMP_TZ: return t.precision;
    default: return -1;
    }
}

static int64_t jdbc_num_prec_radix(sqe_type t) {
    if (type_is_integer(t) || t.id == TYPE_DECIMAL) return 10;
    if (t.id == TYPE_REAL || t.id == TYPE_DOUBLE) return 2;
    return -1;
}

static int64_t jdbc_char_octet_length(sqe_type t) {
    if (t.id == TYPE_VARCHAR) return t.length ? t.length : JDBC_MAX_LENGTH;
    if (t.id == TYPE_CHAR) return t.length;
    if (t.id == TYPE_VARBINARY) return JDBC_MAX_LENGTH;
    return -1;
}

/* ---- walking catalogs, schemas and relations ---------------------------------------------- */

typedef struct sys_cat_ref {
    const char *name;
    catalog *cat; /* NULL for the system catalog */
    const sqe_principal *who;
} sys_cat_ref;

/* What the row builder needs of each relation. */
enum { NEED_NAME = 0, NEED_KIND, NEED_DETAILS };

typedef struct sys_rel {
    const char *catalog, *schema, *name;
    bool is_view;
    const cat_column *columns;  /* NEED_DETAILS only */
    uint32_t n_columns;
    const char *comment;        /* NEED_DETAILS only */
    const char *view_sql;       /* views (NEED_KIND and up) */
} sys_rel;

typedef int (*rel_fn)(sys_rows *r, const sys_rel *rel);
typedef int (*schema_fn)(sys_rows *r, const char *cat_name, const char *schema);

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}
static int cmp_cat(const void *a, const void *b) {
    return strcmp(((const sys_cat_ref *)a)->name, ((const sys_cat_ref *)b)->name);
}

static bool pass(const char *filter, const char *name) { return !filter || strcmp(filter, name) == 0; }

/* The catalogs in scope, sorted, the system catalog included (from arena a). */
static int list_catalogs(const sys_scope *sc, arena *a, sys_cat_ref **out, uint32_t *n, sqe_error *err) {
    sys_cat_ref *refs = ARENA_ARRAY(a, sys_cat_ref, sc->n_catalogs + 1);
    if (!refs) return err_nomem(err, "metadata listing");
    uint32_t k = 0;
    bool have_system = false;
    for (uint32_t i = 0; i < sc->n_catalogs; i++) {
        const char *name = sc->catalogs[i]->name;
        if (sc->info_catalog && strcmp(sc->info_catalog, name) != 0) continue;
        if (!pass(sc->catalog, name)) continue;
        have_system = have_system || strcmp(name, SYS_CATALOG) == 0;
        refs[k++] = (sys_cat_ref){name, sc->catalogs[i], sc->who};
    }
    if (!have_system && pass(sc->catalog, SYS_CATALOG) &&
        (!sc->info_catalog || strcmp(sc->info_catalog, SYS_CATALOG) == 0))
        refs[k++] = (sys_cat_ref){SYS_CATALOG, NULL, sc->who};
    qsort(refs, k, sizeof *refs, cmp_cat);
    *out = refs;
    *n = k;
    return SQE_OK;
}

/* The schemas of one catalog (its own and the metadata schemas), sorted. */
static int list_schemas(const sys_cat_ref *c, arena *a, char ***out, uint32_t *n, sqe_error *err) {
    char **own = NULL;
    uint32_t n_own = 0;
    if (c->cat) SQE_TRY(catalog_list_schemas(c->cat, c->who, a, &own, &n_own, err));
    const char *const *virt;
    uint32_t n_virt = sys_schema_names(c->name, &virt);
    char **all = ARENA_ARRAY(a, char *, n_own + n_virt + 1);
    if (!all) return err_nomem(err, "metadata listing");
    uint32_t k = 0;
    for (uint32_t i = 0; i < n_virt; i++) all[k++] = (char *)virt[i];
    for (uint32_t i = 0; i < n_own; i++) {
        bool dup = false;
        for (uint32_t j = 0; j < n_virt; j++) dup = dup || strcmp(own[i], virt[j]) == 0;
        if (!dup) all[k++] = own[i];
    }
    qsort(all, k, sizeof *all, cmp_str);
    *out = all;
    *n = k;
    return SQE_OK;
}

/* Calls fn for each relation of a metadata schema. */
static int walk_virtual_schema(sys_rows *r, const char *cat_name, const char *schema, rel_fn fn) {
    for (size_t i = 0; i < N_TABLES; i++) {
        const sys_table *t = &tables[i];
        if (strcmp(t->schema, schema) != 0 || !pass(r->scope->table, t->name)) continue;
        cat_column cols[32];
        uint32_t n = 0;
        for (uint32_t c = 0; c < t->n_columns && n < 32; c++) {
            if (t->columns[c].hidden) continue;
            cols[n++] = (cat_column){(char *)t->columns[c].name, sys_column_type(&t->columns[c]),
                                     false, NULL};
        }
        sys_rel rel = {cat_name, schema, t->name, false, cols, n, NULL, NULL};
        SQE_TRY(fn(r, &rel));
    }
    return SQE_OK;
}

/* Calls fn for each relation of an ordinary schema, loading what `need` asks for. */
static int walk_schema(sys_rows *r, const sys_cat_ref *c, const char *schema, int need, arena *a,
                       rel_fn fn) {
    char **names;
    uint32_t n;
    int rc = catalog_list_tables(c->cat, c->who, schema, a, &names, &n, r->err);
    if (rc == SQE_ERR_SCHEMA_NOT_FOUND) return SQE_OK; /* dropped meanwhile */
    SQE_TRY(rc);
    for (uint32_t i = 0; i < n; i++) {
        if (!pass(r->scope->table, names[i])) continue;
        sys_rel rel = {c->name, schema, names[i], false, NULL, 0, NULL, NULL};
        if (need == NEED_NAME) {
            SQE_TRY(fn(r, &rel));
            continue;
        }
        cat_view *v = NULL;
        if (catalog_get_view(c->cat, schema, names[i], &v, NULL) == SQE_OK) {
            rel.is_view = true;
            rel.view_sql = v->sql;
            rel.columns = v->columns;
            rel.n_columns = v->n_columns;
            rel.comment = v->comment;
            rc = fn(r, &rel);
            cat_view_unref(v);
            SQE_TRY(rc);
            continue;
        }
        if (need == NEED_KIND) {
            SQE_TRY(fn(r, &rel));
            continue;
        }
        cat_table *t = NULL;
        sqe_error ignored;
        if (catalog_get_table(c->cat, c->who, schema, names[i], &t, &ignored) != SQE_OK) continue;
        rel.columns = t->columns;
        rel.n_columns = t->n_columns;
        rel.comment = t->comment;
        rc = fn(r, &rel);
        cat_table_unref(t);
        SQE_TRY(rc);
    }
    return SQE_OK;
}

/* Walks the scope: schema_fn (may be NULL) for each schema, rel_fn (may be NULL) for each
 * relation. */
static int walk(sys_rows *r, int need, schema_fn sfn, rel_fn rfn) {
    const sys_scope *sc = r->scope;
    arena a;
    arena_init(&a, NULL);
    sys_cat_ref *cats = NULL;
    uint32_t n_cats = 0;
    int rc = list_catalogs(sc, &a, &cats, &n_cats, r->err);
    for (uint32_t ci = 0; !rc && ci < n_cats; ci++) {
        char **schemas = NULL;
        uint32_t n_schemas = 0;
        rc = list_schemas(&cats[ci], &a, &schemas, &n_schemas, r->err);
        for (uint32_t si = 0; !rc && si < n_schemas; si++) {
            const char *s = schemas[si];
            if (!pass(sc->schema, s)) continue;
            if (sfn) rc = sfn(r, cats[ci].name, s);
            if (rc || !rfn) continue;
            if (sys_is_schema(cats[ci].name, s))
                rc = walk_virtual_schema(r, cats[ci].name, s, rfn);
            else
                rc = walk_schema(r, &cats[ci], s, need, &a, rfn);
        }
    }
    arena_destroy(&a);
    return rc;
}

/* ---- row builders ------------------------------------------------------------------------- */

static int info_schemata_row(sys_rows *r, const char *cat_name, const char *schema) {
    return ADD_ROW(r, STR(cat_name), STR(schema));
}

static int jdbc_schemas_row(sys_rows *r, const char *cat_name, const char *schema) {
    return ADD_ROW(r, STR(schema), STR(cat_name));
}

static int info_tables_row(sys_rows *r, const sys_rel *rel) {
    return ADD_ROW(r, STR(rel->catalog), STR(rel->schema), STR(rel->name),
                   STR(rel->is_view ? "VIEW" : "BASE TABLE"), STR(rel->is_view ? "VIEW" : "TABLE"),
                   STR(rel->comment));
}

static int jdbc_tables_row(sys_rows *r, const sys_rel *rel) {
    return ADD_ROW(r, STR(rel->catalog), STR(rel->schema), STR(rel->name),
                   STR(rel->is_view ? "VIEW" : "TABLE"), NUL, NUL, NUL, NUL, NUL, NUL);
}

static int info_views_row(sys_rows *r, const sys_rel *rel) {
    if (!rel->is_view) return SQE_OK;
    return ADD_ROW(r, STR(rel->catalog), STR(rel->schema), STR(rel->name), STR(rel->view_sql));
}

static int table_comments_row(sys_rows *r, const sys_rel *rel) {
    return ADD_ROW(r, STR(rel->catalog), STR(rel->schema), STR(rel->name), STR(rel->comment));
}

static int info_columns_row(sys_rows *r, const sys_rel *rel) {
    for (uint32_t i = 0; i < rel->n_columns; i++) {
        const cat_column *c = &rel->columns[i];
        char type[256];
        type_format(c->type, type, sizeof type);
        SQE_TRY(ADD_ROW(r, STR(rel->catalog), STR(rel->schema), STR(rel->name), STR(c->name),
                        INT(i + 1), NUL, STR(c->not_null ? "NO" : "YES"), STR(type), STR(c->comment),
                        NUL, STR(c->comment)));
    }
    return SQE_OK;
}

static int jdbc_columns_row(sys_rows *r, const sys_rel *rel) {
    for (uint32_t i = 0; i < rel->n_columns; i++) {
        const cat_column *c = &rel->columns[i];
        sqe_type t = c->type;
        char type[256];
        type_format(t, type, sizeof type);
        SQE_TRY(ADD_ROW(r, STR(rel->catalog), STR(rel->schema), STR(rel->name), STR(c->name),
                        INT(jdbc_data_type(t)), STR(type), OPT_INT(jdbc_column_size(t)), INT(0),
                        OPT_INT(jdbc_decimal_digits(t)), OPT_INT(jdbc_num_prec_radix(t)),
                        INT(c->not_null ? 0 /* columnNoNulls */ : 1 /* columnNullable, as Trino */),
                        STR(c->comment), NUL, NUL, NUL,
                        OPT_INT(jdbc_char_octet_length(t)), INT(i + 1),
                        STR(c->not_null ? "NO" : "YES"), NUL, NUL, NUL, NUL, NUL, NUL));
    }
    return SQE_OK;
}

static int jdbc_catalogs_rows(sys_rows *r, bool metadata) {
    arena a;
    arena_init(&a, NULL);
    sys_cat_ref *cats = NULL;
    uint32_t n = 0;
    int rc = list_catalogs(r->scope, &a, &cats, &n, r->err);
    for (uint32_t i = 0; !rc && i < n; i++) {
        const char *connector = cats[i].cat ? "memory" : SYS_CATALOG;
        rc = metadata ? ADD_ROW(r, STR(cats[i].name), STR(cats[i].name), STR(connector))
                      : ADD_ROW(r, STR(cats[i].name));
    }
    arena_destroy(&a);
    return rc;
}

/* The types rows: concrete types first (Trino's TypeRegistry.getTypes), then the parametric
 * type constructors (precision, radix and searchability unknown). */
static int jdbc_types_rows(sys_rows *r) {
    static const struct { const char *name; type_id id; int precision; } concrete[] = {
        {"bigint", TYPE_BIGINT, -1}, {"boolean", TYPE_BOOLEAN, -1}, {"date", TYPE_DATE, -1},
        {"double", TYPE_DOUBLE, -1}, {"integer", TYPE_INTEGER, -1},
        {"interval day to second", TYPE_INTERVAL_DS, -1},
        {"interval year to month", TYPE_INTERVAL_YM, -1}, {"json", TYPE_JSON, -1},
        {"real", TYPE_REAL, -1}, {"smallint", TYPE_SMALLINT, -1}, {"tinyint", TYPE_TINYINT, -1},
        {"uuid", TYPE_UUID, -1}, {"varbinary", TYPE_VARBINARY, -1},
    };  /* time, timestamp (with time zone) and varchar only as parametric types, as in Trino 476 */
    for (size_t i = 0; i < sizeof concrete / sizeof concrete[0]; i++) {
        sqe_type t = concrete[i].precision >= 0 ? type_with_precision(concrete[i].id, concrete[i].precision)
                                                : concrete[i].id == TYPE_VARCHAR ? type_varchar(0)
                                                                                 : type_make(concrete[i].id);
        bool comparable = type_is_comparable(t);
        SQE_TRY(ADD_ROW(r, STR(concrete[i].name), INT(jdbc_data_type(t)), OPT_INT(jdbc_column_size(t)),
                        NUL, NUL, NUL, INT(1 /* typeNullable */), BOOLV(false),
                        INT(comparable ? 3 /* typeSearchable */ : 0 /* typePredNone */), NUL,
                        BOOLV(false), NUL, NUL, INT(0), INT(0), NUL, NUL,
                        OPT_INT(jdbc_num_prec_radix(t))));
    }
    static const char *const parametric[] = {"array", "char", "decimal", "map", "row", "time",
                                             "timestamp", "timestamp with time zone", "varchar"};
    for (size_t i = 0; i < sizeof parametric / sizeof parametric[0]; i++) {
        int64_t code = strcmp(parametric[i], "array") == 0 ? 2003 : 2000;
        SQE_TRY(ADD_ROW(r, STR(parametric[i]), INT(code), NUL, NUL, NUL, NUL, INT(1), BOOLV(false),
                        INT(0), NUL, BOOLV(false), NUL, NUL, INT(0), INT(0), NUL, NUL, NUL));
    }
    return SQE_OK;
}

/* ---- system.runtime.sessions ------------------------------------------------------------- */

/* One row from the host's lister, shown only when it is the caller's own session (or the
 * caller is an admin). */
static int session_row(void *ctx, const sqe_session_row *s, sqe_error *err) {
    sys_rows *r = ctx;
    (void)err;
    const sqe_principal *who = r->scope->who;
    if (!r->scope->sessions_all && (!who || !s->user || strcmp(s->user, who->user) != 0))
        return SQE_OK;
    return ADD_ROW(r, STR(s->session_id), STR(s->user), STR(s->auth_method), STR(s->protocol),
                   STR(s->source), STR(s->client_address),
                   s->created_ms > 0 ? TS_MS(s->created_ms) : NUL,
                   s->last_used_ms > 0 ? TS_MS(s->last_used_ms) : NUL, STR(s->catalog),
                   STR(s->schema), STR(s->state));
}

int sys_table_rows(const sys_table *t, const sys_scope *scope, vec *cols, uint32_t *n_rows,
                   sqe_error *err) {
    sys_rows r = {t, scope, cols, n_rows, err};
    switch (t->id) {
    case SYS_INFO_SCHEMATA: return walk(&r, NEED_NAME, info_schemata_row, NULL);
    case SYS_INFO_TABLES: /* the hidden table_comment needs the table entry */
        return walk(&r, !scope->wanted || scope->wanted[5] ? NEED_DETAILS : NEED_KIND, NULL,
                    info_tables_row);
    case SYS_INFO_COLUMNS: return walk(&r, NEED_DETAILS, NULL, info_columns_row);
    case SYS_INFO_VIEWS: return walk(&r, NEED_KIND, NULL, info_views_row);
    case SYS_JDBC_CATALOGS: return jdbc_catalogs_rows(&r, false);
    case SYS_JDBC_SCHEMAS: return walk(&r, NEED_NAME, jdbc_schemas_row, NULL);
    case SYS_JDBC_TABLES: return walk(&r, NEED_KIND, NULL, jdbc_tables_row);
    case SYS_JDBC_TABLE_TYPES:
        SQE_TRY(ADD_ROW(&r, STR("TABLE")));
        return ADD_ROW(&r, STR("VIEW"));
    case SYS_JDBC_COLUMNS: return walk(&r, NEED_DETAILS, NULL, jdbc_columns_row);
    case SYS_JDBC_TYPES: return jdbc_types_rows(&r);
    case SYS_META_CATALOGS: return jdbc_catalogs_rows(&r, true);
    case SYS_META_TABLE_COMMENTS: return walk(&r, NEED_DETAILS, NULL, table_comments_row);
    case SYS_RUNTIME_SESSIONS:
        return scope->sessions ? scope->sessions(scope->sessions_ud, session_row, &r, err) : SQE_OK;
    default: return SQE_OK; /* SYS_EMPTY */
    }
}
