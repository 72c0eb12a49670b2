/*
 * ice_sqlite.c: the embedded Iceberg catalog on SQLite (see ice_sqlite.h): namespaces and table
 * pointers in the tables of Iceberg's JDBC catalog layout, table metadata in JSON files under the
 * warehouse, commits as a compare-and-swap of the metadata location.
 *
 * INTERFACE: ice_sqlite_open/close, ice_sqlite_warehouse/catalog_name/db_path,
 *   ice_sqlite_namespace_exists, ice_sqlite_{create,drop}_namespace, ice_sqlite_list_namespaces,
 *   ice_sqlite_{load,update}_namespace_properties, ice_sqlite_list_tables,
 *   ice_sqlite_default_table_location, ice_sqlite_{load,create,register,drop,rename}_table,
 *   ice_sqlite_commit, ice_sqlite_metadata_version, ice_sqlite_read_metadata.
 * NOTES:
 *   - Schema: the DDL below is what SQLAlchemy emits for pyiceberg 0.12's SqlCatalog models on
 *     SQLite (pyiceberg/catalog/sql.py), and matches Iceberg Java's JdbcUtil V1 tables, so either
 *     tool opens a file SQE created and SQE opens theirs. A "v0" file without iceberg_type is
 *     used without that column (no filter, no value written), as both tools do.
 *   - Every write runs in a BEGIN IMMEDIATE transaction: it takes the write lock up front, so a
 *     read-then-write sequence (exists check, insert) never fails half-way with SQLITE_BUSY and
 *     waits for the busy timeout instead. WAL mode lets readers run during a write.
 *   - Locking: one connection per handle, serialized by c->lock. Metadata files are written and
 *     read outside the lock; a commit holds the lock only for its UPDATE.
 *   - Files: metadata files are created with O_EXCL (names carry a fresh UUID), written fully and
 *     fsync'ed before the catalog row points at them, so a crash leaves at most an orphan file.
 *     Local paths only for now (plain paths and file: URIs); the helpers in the "files" section
 *     are the seam where io/ takes over (object stores).
 *   - Namespace matching uses substr() prefix tests rather than LIKE, so '_' and '%' in names
 *     need no escaping.
 */
#include "catalog/ice_sqlite.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "common/strbuf.h"

struct ice_sqlite {
    sqlite3 *db;
    pthread_mutex_t lock;  /* serializes every use of db */
    char *db_path;
    char *warehouse;       /* no trailing slash */
    char *catalog;
    bool has_type_column;  /* iceberg_tables.iceberg_type exists (JDBC layout "v1") */
};

/* Iceberg JDBC catalog layout, as SQLAlchemy creates it for pyiceberg on SQLite. */
static const char create_tables_sql[] =
    "CREATE TABLE IF NOT EXISTS iceberg_tables (\n"
    "\tcatalog_name VARCHAR(255) NOT NULL, \n"
    "\ttable_namespace VARCHAR(255) NOT NULL, \n"
    "\ttable_name VARCHAR(255) NOT NULL, \n"
    "\tmetadata_location VARCHAR(1000), \n"
    "\tprevious_metadata_location VARCHAR(1000), \n"
    "\ticeberg_type VARCHAR(5), \n"
    "\tPRIMARY KEY (catalog_name, table_namespace, table_name)\n"
    ");\n"
    "CREATE TABLE IF NOT EXISTS iceberg_namespace_properties (\n"
    "\tcatalog_name VARCHAR(255) NOT NULL, \n"
    "\tnamespace VARCHAR(255) NOT NULL, \n"
    "\tproperty_key VARCHAR(255) NOT NULL, \n"
    "\tproperty_value VARCHAR(1000) NOT NULL, \n"
    "\tPRIMARY KEY (catalog_name, namespace, property_key)\n"
    ");\n";

/* "ns = ?2 or ns starts with ?2." for a column; ?1 is the catalog name throughout. */
#define NS_OR_CHILD(col) "(" col " = ?2 OR substr(" col ", 1, length(?2) + 1) = ?2 || '.')"
#define TABLE_TYPE_FILTER " AND (iceberg_type = 'TABLE' OR iceberg_type IS NULL)"

/* ---- small helpers --------------------------------------------------------------------------- */

static const char *type_filter(const ice_sqlite *c) {
    return c->has_type_column ? TABLE_TYPE_FILTER : "";
}

static int db_fail(ice_sqlite *c, sqe_error *err, const char *what) {
    return err_set(err, SQE_ERR_IO_ERROR, "sqlite catalog %s: %s: %s", c->db_path, what,
                   sqlite3_errmsg(c->db));
}

static int prep(ice_sqlite *c, const char *sql, sqlite3_stmt **st, sqe_error *err) {
    if (sqlite3_prepare_v2(c->db, sql, -1, st, NULL) != SQLITE_OK) {
        *st = NULL;
        return db_fail(c, err, "prepare");
    }
    return SQE_OK;
}

/* Binds ?1 = catalog name, ?2.. = the given strings (NULL binds SQL NULL). */
static int bind_texts(ice_sqlite *c, sqlite3_stmt *st, int n, const char *const *vals,
                      sqe_error *err) {
    if (sqlite3_bind_text(st, 1, c->catalog, -1, SQLITE_STATIC) != SQLITE_OK)
        return db_fail(c, err, "bind");
    for (int i = 0; i < n; i++) {
        int rc = vals[i] ? sqlite3_bind_text(st, i + 2, vals[i], -1, SQLITE_STATIC)
                         : sqlite3_bind_null(st, i + 2);
        if (rc != SQLITE_OK) return db_fail(c, err, "bind");
    }
    return SQE_OK;
}

/* Prepares sql and binds the catalog name plus n strings. */
static int prep_bind(ice_sqlite *c, const char *sql, int n, const char *const *vals,
                     sqlite3_stmt **st, sqe_error *err) {
    SQE_TRY(prep(c, sql, st, err));
    int rc = bind_texts(c, *st, n, vals, err);
    if (rc != SQE_OK) {
        sqlite3_finalize(*st);
        *st = NULL;
    }
    return rc;
}

/* Runs a statement that returns no rows (or whose rows are ignored). Sets *changes if non-NULL.
 * *constraint (if non-NULL) is set when it failed on a key constraint (err is then not set). */
static int exec_bound(ice_sqlite *c, const char *sql, int n, const char *const *vals,
                      int *changes, bool *constraint, sqe_error *err) {
    sqlite3_stmt *st;
    SQE_TRY(prep_bind(c, sql, n, vals, &st, err));
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    }
    int status = SQE_OK;
    if (rc != SQLITE_DONE) {
        if (constraint && (rc & 0xff) == SQLITE_CONSTRAINT)
            *constraint = true;
        else
            status = db_fail(c, err, "execute");
    } else if (changes) {
        *changes = sqlite3_changes(c->db);
    }
    sqlite3_finalize(st);
    if (status == SQE_OK && constraint && *constraint) status = SQE_ERR_ALREADY_EXISTS;
    return status;
}

static int tx_begin(ice_sqlite *c, sqe_error *err) {
    if (sqlite3_exec(c->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
        return db_fail(c, err, "begin transaction");
    return SQE_OK;
}

static int tx_commit(ice_sqlite *c, sqe_error *err) {
    if (sqlite3_exec(c->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
        int rc = db_fail(c, err, "commit");
        if (!sqlite3_get_autocommit(c->db)) sqlite3_exec(c->db, "ROLLBACK", NULL, NULL, NULL);
        return rc;
    }
    return SQE_OK;
}

static void tx_rollback(ice_sqlite *c) {
    if (!sqlite3_get_autocommit(c->db)) sqlite3_exec(c->db, "ROLLBACK", NULL, NULL, NULL);
}

/* Commits when status is SQE_OK, else rolls back; returns the final status. */
static int tx_end(ice_sqlite *c, int status, sqe_error *err) {
    if (status == SQE_OK) return tx_commit(c, err);
    tx_rollback(c);
    return status;
}

static int check_ns(const char *ns, sqe_error *err) {
    if (!ns || !*ns) return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "namespace name is empty");
    size_t len = strlen(ns);
    if (len > ICE_SQLITE_MAX_NAME_LEN)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "namespace name longer than %d bytes",
                       ICE_SQLITE_MAX_NAME_LEN);
    if (ns[0] == '.' || ns[len - 1] == '.' || strstr(ns, ".."))
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                       "invalid namespace \"%s\": empty level", ns);
    if (strchr(ns, '/'))
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                       "invalid namespace \"%s\": '/' is not allowed", ns);
    return SQE_OK;
}

static int check_name(const char *name, sqe_error *err) {
    if (!name || !*name) return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "table name is empty");
    if (strlen(name) > ICE_SQLITE_MAX_NAME_LEN)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "table name longer than %d bytes",
                       ICE_SQLITE_MAX_NAME_LEN);
    if (strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "invalid table name \"%s\"", name);
    return SQE_OK;
}

static int check_ns_name(const char *ns, const char *name, sqe_error *err) {
    SQE_TRY(check_ns(ns, err));
    return check_name(name, err);
}

static char *xstrdup(const char *s) {
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p) memcpy(p, s, n);
    return p;
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* ---- files (local only; the seam for io/) ---------------------------------------------------- */

/* The local path of a location: a plain path as is, "file:/p", "file:///p" and
 * "file://localhost/p" as "/p". Other schemes are NOT_SUPPORTED. *out is malloc'ed. */
static int local_path(const char *location, char **out, sqe_error *err) {
    const char *p = location;
    if (!strncmp(p, "file:", 5)) {
        p += 5;
        if (!strncmp(p, "//", 2)) {
            p += 2;
            if (!strncmp(p, "localhost/", 10)) p += 9;
            if (*p != '/')
                return err_set(err, SQE_ERR_NOT_SUPPORTED,
                               "unsupported: file URI with a host: %s", location);
        }
    } else {
        const char *colon = strstr(p, "://");
        if (colon) {
            bool scheme = colon > p;
            for (const char *q = p; q < colon; q++)
                if (!((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') ||
                      (*q >= '0' && *q <= '9') || *q == '+' || *q == '-' || *q == '.'))
                    scheme = false;
            if (scheme)
                return err_set(err, SQE_ERR_NOT_SUPPORTED,
                               "unsupported: location %s: the SQLite catalog reads and writes "
                               "local files only for now",
                               location);
        }
    }
    if (!*p) return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "empty location: %s", location);
    *out = xstrdup(p);
    return *out ? SQE_OK : err_nomem(err, "location");
}

static int errno_error(sqe_error *err, int e, const char *what, const char *path) {
    int code = e == ENOENT    ? SQE_ERR_NOT_FOUND
               : e == EACCES ? SQE_ERR_PERMISSION_DENIED
                             : SQE_ERR_IO_ERROR;
    return err_set(err, code, "%s %s: %s", what, path, strerror(e));
}

/* mkdir -p of path (a local directory). */
static int make_dirs(const char *path, sqe_error *err) {
    char *buf = xstrdup(path);
    if (!buf) return err_nomem(err, "path");
    int rc = SQE_OK;
    for (char *p = buf + 1;; p++) {
        if (*p == '/' || *p == 0) {
            char saved = *p;
            *p = 0;
            if (mkdir(buf, 0755) != 0 && errno != EEXIST) {
                rc = errno_error(err, errno, "cannot create directory", buf);
                break;
            }
            *p = saved;
            if (!saved) break;
        }
    }
    free(buf);
    if (rc == SQE_OK) {
        struct stat stb;
        if (stat(path, &stb) != 0 || !S_ISDIR(stb.st_mode))
            rc = err_set(err, SQE_ERR_IO_ERROR, "cannot create directory %s: not a directory",
                         path);
    }
    return rc;
}

/* Creates the local file at path (its directory too) with exactly these bytes, fsync'ed. Fails
 * if the file exists. On error nothing is left behind. */
static int file_write_new(const char *path, const char *data, size_t len, sqe_error *err) {
    const char *slash = strrchr(path, '/');
    if (slash && slash != path) {
        char *dir = malloc((size_t)(slash - path) + 1);
        if (!dir) return err_nomem(err, "path");
        memcpy(dir, path, (size_t)(slash - path));
        dir[slash - path] = 0;
        int rc = make_dirs(dir, err);
        free(dir);
        if (rc != SQE_OK) return rc;
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) return errno_error(err, errno, "cannot create", path);
    size_t done = 0;
    while (done < len) {
        ssize_t n = write(fd, data + done, len - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            int e = n < 0 ? errno : EIO;
            close(fd);
            unlink(path);
            return errno_error(err, e, "cannot write", path);
        }
        done += (size_t)n;
    }
    if (fsync(fd) != 0 || close(fd) != 0) {
        int e = errno;
        unlink(path);
        return errno_error(err, e, "cannot write", path);
    }
    return SQE_OK;
}

/* Reads a whole local file into a malloc'ed, NUL-terminated buffer. */
static int file_read_all(const char *path, char **data, size_t *len, sqe_error *err) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return errno_error(err, errno, "cannot open", path);
    struct stat stb;
    if (fstat(fd, &stb) != 0) {
        int e = errno;
        close(fd);
        return errno_error(err, e, "cannot read", path);
    }
    if (!S_ISREG(stb.st_mode) || stb.st_size > (off_t)1 << 30) {
        close(fd);
        return err_set(err, SQE_ERR_INVALID_FILE, "%s: not a regular file of at most 1 GiB",
                       path);
    }
    size_t cap = (size_t)stb.st_size + 1, n = 0;
    char *buf = malloc(cap);
    if (!buf) {
        close(fd);
        return err_nomem(err, "metadata file");
    }
    for (;;) {
        if (n + 1 >= cap) { /* the file grew since fstat */
            char *bigger = cap < ((size_t)1 << 30) ? realloc(buf, cap * 2) : NULL;
            if (!bigger) {
                free(buf);
                close(fd);
                return err_set(err, SQE_ERR_INVALID_FILE, "%s: file too large", path);
            }
            buf = bigger;
            cap *= 2;
        }
        ssize_t r = read(fd, buf + n, cap - 1 - n);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            int e = errno;
            free(buf);
            close(fd);
            return errno_error(err, e, "cannot read", path);
        }
        if (r == 0) break;
        n += (size_t)r;
    }
    close(fd);
    buf[n] = 0;
    *data = buf;
    *len = n;
    return SQE_OK;
}

static void file_remove(const char *location) {
    char *path = NULL;
    if (local_path(location, &path, NULL) == SQE_OK) {
        unlink(path);
        free(path);
    }
}

/* A random (version 4) UUID in canonical text form. */
static int new_uuid(char out[37], sqe_error *err) {
    uint8_t u[16];
    size_t got = 0;
    while (got < sizeof u) {
        ssize_t n = getrandom(u + got, sizeof u - got, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return errno_error(err, n < 0 ? errno : EIO, "getrandom", "(uuid)");
        got += (size_t)n;
    }
    u[6] = (uint8_t)((u[6] & 0x0f) | 0x40);
    u[8] = (uint8_t)((u[8] & 0x3f) | 0x80);
    snprintf(out, 37,
             "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
             u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14],
             u[15]);
    return SQE_OK;
}

int64_t ice_sqlite_metadata_version(const char *location) {
    if (!location) return -1;
    const char *name = strrchr(location, '/');
    name = name ? name + 1 : location;
    const char *p = name;
    int64_t v = 0;
    int digits = 0;
    while (*p >= '0' && *p <= '9') {
        if (v > (INT64_MAX - 9) / 10) return -1;
        v = v * 10 + (*p++ - '0');
        digits++;
    }
    if (!digits || *p++ != '-') return -1;
    /* a UUID: 8-4-4-4-12 hex digits */
    static const int groups[5] = {8, 4, 4, 4, 12};
    for (int g = 0; g < 5; g++) {
        for (int k = 0; k < groups[g]; k++, p++)
            if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f') ||
                  (*p >= 'A' && *p <= 'F')))
                return -1;
        if (g < 4 && *p++ != '-') return -1;
    }
    if (!strcmp(p, ".metadata.json") || !strcmp(p, ".gz.metadata.json")) return v;
    return -1;
}

int ice_sqlite_read_metadata(const char *location, arena *a, ice_metadata **out,
                             sqe_error *err) {
    if (!location || !a || !out)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "ice_sqlite_read_metadata: NULL argument");
    char *path = NULL;
    SQE_TRY(local_path(location, &path, err));
    char *data = NULL;
    size_t len = 0;
    int rc = file_read_all(path, &data, &len, err);
    free(path);
    if (rc != SQE_OK) return rc;
    rc = ice_metadata_parse(a, data, len, out, err);
    free(data);
    if (rc != SQE_OK) err_prefix(err, "%s", location);
    return rc;
}

/* The directory new metadata files of m go to: the "write.metadata.path" property, else
 * <location>/metadata (Iceberg Java and pyiceberg), without a trailing slash; in a. */
static int metadata_dir(const ice_metadata *m, arena *a, const char **out, sqe_error *err) {
    const char *base = ice_kv_get(&m->properties, "write.metadata.path");
    const char *suffix = "";
    if (!base || !*base) {
        base = m->location;
        suffix = "/metadata";
    }
    if (!base || !*base)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "table metadata has no location");
    size_t len = strlen(base);
    while (len > 1 && base[len - 1] == '/') len--;
    char *dir = arena_sprintf(a, "%.*s%s", (int)len, base, suffix);
    if (!dir) return err_nomem(err, "metadata location");
    *out = dir;
    return SQE_OK;
}

/* Writes m as <metadata dir>/<version>-<uuid>.metadata.json; *location gets its location (in
 * a). On error no file is left. */
static int write_metadata_file(const ice_metadata *m, int64_t version, arena *a,
                               char **location, sqe_error *err) {
    const char *dir = NULL;
    SQE_TRY(metadata_dir(m, a, &dir, err));
    char uuid[37];
    SQE_TRY(new_uuid(uuid, err));
    char *loc = arena_sprintf(a, "%s/%05lld-%s.metadata.json", dir, (long long)version, uuid);
    if (!loc) return err_nomem(err, "metadata location");
    strbuf sb;
    strbuf_init(&sb);
    int rc = ice_metadata_write(m, &sb, err);
    if (rc == SQE_OK && sb.failed) rc = err_nomem(err, "metadata JSON");
    char *path = NULL;
    if (rc == SQE_OK) rc = local_path(loc, &path, err);
    if (rc == SQE_OK) rc = file_write_new(path, strbuf_cstr(&sb), sb.len, err);
    free(path);
    strbuf_reset(&sb);
    if (rc == SQE_OK) *location = loc;
    return rc;
}

/* ---- open / close ---------------------------------------------------------------------------- */

/* An absolute form of a local warehouse path or a URI as is, without trailing slashes. */
static char *warehouse_root(const char *w) {
    strbuf sb;
    strbuf_init(&sb);
    if (w[0] != '/' && !strstr(w, ":/")) {
        char cwd[PATH_MAX];
        if (!getcwd(cwd, sizeof cwd)) return NULL;
        strbuf_puts(&sb, cwd);
        strbuf_putc(&sb, '/');
        if (!strncmp(w, "./", 2)) w += 2;
    }
    strbuf_puts(&sb, w);
    if (sb.failed) {
        strbuf_reset(&sb);
        return NULL;
    }
    while (sb.len > 1 && sb.data[sb.len - 1] == '/') sb.data[--sb.len] = 0;
    return strbuf_move(&sb);
}

static void handle_free(ice_sqlite *c) {
    if (c->db) sqlite3_close(c->db);
    pthread_mutex_destroy(&c->lock);
    free(c->db_path);
    free(c->warehouse);
    free(c->catalog);
    free(c);
}

int ice_sqlite_open(const char *db_path, const char *warehouse, const char *catalog_name,
                    ice_sqlite **out, sqe_error *err) {
    if (!out) return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "ice_sqlite_open: NULL out");
    const char *home = getenv("HOME");
    if ((!db_path || !warehouse) && (!home || !*home))
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                       "sqlite catalog: HOME is not set; give the database and warehouse paths");
    if (!catalog_name) catalog_name = "iceberg";
    if (!*catalog_name || strlen(catalog_name) > ICE_SQLITE_MAX_NAME_LEN)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "invalid catalog name \"%s\"",
                       catalog_name);
    if ((db_path && !*db_path) || (warehouse && !*warehouse))
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "sqlite catalog: empty path");

    ice_sqlite *c = calloc(1, sizeof *c);
    if (!c) return err_nomem(err, "sqlite catalog");
    pthread_mutex_init(&c->lock, NULL);
    strbuf sb;
    strbuf_init(&sb);
    if (db_path)
        strbuf_puts(&sb, db_path);
    else
        strbuf_printf(&sb, "%s/.sqe/catalog.db", home);
    c->db_path = strbuf_move(&sb);
    strbuf_init(&sb);
    if (warehouse)
        c->warehouse = warehouse_root(warehouse);
    else {
        strbuf_printf(&sb, "%s/.sqe/warehouse", home);
        c->warehouse = strbuf_move(&sb);
    }
    c->catalog = xstrdup(catalog_name);
    if (!c->db_path || !c->warehouse || !c->catalog) {
        handle_free(c);
        return err_nomem(err, "sqlite catalog");
    }

    int rc = SQE_OK;
    /* The database's directory and a local warehouse directory. */
    const char *slash = strrchr(c->db_path, '/');
    if (slash && slash != c->db_path) {
        char *dir = strndup(c->db_path, (size_t)(slash - c->db_path));
        rc = dir ? make_dirs(dir, err) : err_nomem(err, "path");
        free(dir);
    }
    char *wh_path = NULL;
    if (rc == SQE_OK && local_path(c->warehouse, &wh_path, NULL) == SQE_OK)
        rc = make_dirs(wh_path, err);
    free(wh_path);
    if (rc != SQE_OK) {
        handle_free(c);
        return rc;
    }

    int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX;
    if (sqlite3_open_v2(c->db_path, &c->db, flags, NULL) != SQLITE_OK) {
        rc = c->db ? db_fail(c, err, "open")
                   : err_set(err, SQE_ERR_IO_ERROR, "sqlite catalog %s: cannot open",
                             c->db_path);
        handle_free(c);
        return rc;
    }
    sqlite3_extended_result_codes(c->db, 0);
    sqlite3_busy_timeout(c->db, ICE_SQLITE_BUSY_TIMEOUT_MS);
    /* WAL: readers do not block the writer; the mode persists in the file. The pragma returns
     * the resulting mode, which stays "delete" where WAL cannot work (some network file
     * systems); the catalog is correct either way, only less concurrent. */
    if (sqlite3_exec(c->db, "PRAGMA journal_mode=WAL", NULL, NULL, NULL) != SQLITE_OK)
        rc = db_fail(c, err, "set WAL mode");
    if (rc == SQE_OK) rc = tx_begin(c, err);
    if (rc == SQE_OK) {
        if (sqlite3_exec(c->db, create_tables_sql, NULL, NULL, NULL) != SQLITE_OK)
            rc = db_fail(c, err, "create catalog tables");
        rc = tx_end(c, rc, err);
    }
    if (rc != SQE_OK) {
        handle_free(c);
        return rc;
    }
    /* The JDBC layout "v1" has iceberg_type; older files ("v0") do not (pyiceberg's probe). */
    sqlite3_stmt *probe = NULL;
    c->has_type_column = sqlite3_prepare_v2(c->db,
                                            "SELECT iceberg_type FROM iceberg_tables LIMIT 0", -1,
                                            &probe, NULL) == SQLITE_OK;
    sqlite3_finalize(probe);
    *out = c;
    return SQE_OK;
}

void ice_sqlite_close(ice_sqlite *c) {
    if (c) handle_free(c);
}

const char *ice_sqlite_warehouse(const ice_sqlite *c) { return c->warehouse; }
const char *ice_sqlite_catalog_name(const ice_sqlite *c) { return c->catalog; }
const char *ice_sqlite_db_path(const ice_sqlite *c) { return c->db_path; }

/* ---- namespaces ------------------------------------------------------------------------------ */

static int ns_exists_locked(ice_sqlite *c, const char *ns, bool *exists, sqe_error *err) {
    static const char sql[] =
        "SELECT EXISTS (SELECT 1 FROM iceberg_tables WHERE catalog_name = ?1 AND "
        NS_OR_CHILD("table_namespace") ") OR EXISTS (SELECT 1 FROM iceberg_namespace_properties "
        "WHERE catalog_name = ?1 AND " NS_OR_CHILD("namespace") ")";
    sqlite3_stmt *st;
    const char *vals[1] = {ns};
    SQE_TRY(prep_bind(c, sql, 1, vals, &st, err));
    int rc = SQE_OK;
    if (sqlite3_step(st) == SQLITE_ROW)
        *exists = sqlite3_column_int(st, 0) != 0;
    else
        rc = db_fail(c, err, "query namespace");
    sqlite3_finalize(st);
    return rc;
}

static int ns_require_locked(ice_sqlite *c, const char *ns, sqe_error *err) {
    bool exists = false;
    SQE_TRY(ns_exists_locked(c, ns, &exists, err));
    if (!exists) return err_set(err, SQE_ERR_SCHEMA_NOT_FOUND, "Namespace does not exist: %s", ns);
    return SQE_OK;
}

int ice_sqlite_namespace_exists(ice_sqlite *c, const char *ns, bool *exists, sqe_error *err) {
    SQE_TRY(check_ns(ns, err));
    pthread_mutex_lock(&c->lock);
    bool e = false;
    int rc = ns_exists_locked(c, ns, &e, err);
    pthread_mutex_unlock(&c->lock);
    if (rc == SQE_OK) *exists = e;
    return rc;
}

static int put_property_locked(ice_sqlite *c, const char *ns, const char *key, const char *value,
                               sqe_error *err) {
    if (!key || !*key || !value)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                       "namespace property with empty key or NULL value");
    const char *vals[3] = {ns, key, value};
    return exec_bound(c,
                      "INSERT OR REPLACE INTO iceberg_namespace_properties (catalog_name, "
                      "namespace, property_key, property_value) VALUES (?1, ?2, ?3, ?4)",
                      3, vals, NULL, NULL, err);
}

int ice_sqlite_create_namespace(ice_sqlite *c, const char *ns, const ice_kv_list *props,
                                sqe_error *err) {
    SQE_TRY(check_ns(ns, err));
    pthread_mutex_lock(&c->lock);
    int rc = tx_begin(c, err);
    if (rc == SQE_OK) {
        bool exists = false;
        rc = ns_exists_locked(c, ns, &exists, err);
        if (rc == SQE_OK && exists)
            rc = err_set(err, SQE_ERR_ALREADY_EXISTS, "Namespace %s already exists", ns);
        bool has_exists = false;
        for (uint32_t i = 0; rc == SQE_OK && props && i < props->n; i++) {
            rc = put_property_locked(c, ns, props->items[i].key, props->items[i].value, err);
            if (rc == SQE_OK && !strcmp(props->items[i].key, "exists")) has_exists = true;
        }
        if (rc == SQE_OK && !has_exists) rc = put_property_locked(c, ns, "exists", "true", err);
        rc = tx_end(c, rc, err);
    }
    pthread_mutex_unlock(&c->lock);
    return rc;
}

/* Adds s to a malloc'ed growing array. */
static int push_str(char ***arr, uint32_t *n, uint32_t *cap, const char *s, size_t len) {
    if (*n == *cap) {
        uint32_t ncap = *cap ? *cap * 2 : 16;
        char **bigger = realloc(*arr, ncap * sizeof **arr);
        if (!bigger) return -1;
        *arr = bigger;
        *cap = ncap;
    }
    char *copy = strndup(s, len);
    if (!copy) return -1;
    (*arr)[(*n)++] = copy;
    return 0;
}

static void free_strs(char **arr, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) free(arr[i]);
    free(arr);
}

/* Sorts and dedupes a malloc'ed list and copies it into a; frees the list. */
static int strs_to_arena(char **list, uint32_t n, arena *a, char ***names, uint32_t *n_names,
                         sqe_error *err) {
    if (n) qsort(list, n, sizeof *list, cmp_str);
    char **outv = ARENA_ARRAY(a, char *, n ? n : 1);
    uint32_t k = 0;
    int rc = SQE_OK;
    for (uint32_t i = 0; outv && i < n; i++) {
        if (k && !strcmp(outv[k - 1], list[i])) continue;
        if (!(outv[k++] = arena_strdup(a, list[i]))) {
            outv = NULL;
            break;
        }
    }
    if (!outv) rc = err_nomem(err, "name list");
    free_strs(list, n);
    if (rc == SQE_OK) {
        *names = outv;
        *n_names = k;
    }
    return rc;
}

int ice_sqlite_list_namespaces(ice_sqlite *c, const char *parent, arena *a, char ***names,
                               uint32_t *n_names, sqe_error *err) {
    if (parent && !*parent) parent = NULL;
    if (parent) SQE_TRY(check_ns(parent, err));
    size_t plen = parent ? strlen(parent) : 0;
    char **list = NULL;
    uint32_t n = 0, cap = 0;
    pthread_mutex_lock(&c->lock);
    int rc = parent ? ns_require_locked(c, parent, err) : SQE_OK;
    sqlite3_stmt *st = NULL;
    if (rc == SQE_OK)
        rc = prep_bind(c,
                       "SELECT table_namespace FROM iceberg_tables WHERE catalog_name = ?1 UNION "
                       "SELECT namespace FROM iceberg_namespace_properties WHERE catalog_name = ?1",
                       0, NULL, &st, err);
    while (rc == SQE_OK) {
        int step = sqlite3_step(st);
        if (step == SQLITE_DONE) break;
        if (step != SQLITE_ROW) {
            rc = db_fail(c, err, "list namespaces");
            break;
        }
        const char *s = (const char *)sqlite3_column_text(st, 0);
        if (!s || !*s) continue;
        const char *rest = s;
        if (parent) {
            if (strncmp(s, parent, plen) != 0 || s[plen] != '.') continue;
            rest = s + plen + 1;
        }
        const char *dot = strchr(rest, '.');
        size_t len = dot ? (size_t)(dot - s) : strlen(s);
        if (len == (size_t)(rest - s)) continue; /* empty level */
        if (push_str(&list, &n, &cap, s, len) != 0) rc = err_nomem(err, "namespace list");
    }
    sqlite3_finalize(st);
    pthread_mutex_unlock(&c->lock);
    if (rc != SQE_OK) {
        free_strs(list, n);
        return rc;
    }
    return strs_to_arena(list, n, a, names, n_names, err);
}

int ice_sqlite_drop_namespace(ice_sqlite *c, const char *ns, sqe_error *err) {
    SQE_TRY(check_ns(ns, err));
    pthread_mutex_lock(&c->lock);
    int rc = tx_begin(c, err);
    if (rc == SQE_OK) {
        rc = ns_require_locked(c, ns, err);
        sqlite3_stmt *st = NULL;
        const char *vals[1] = {ns};
        if (rc == SQE_OK)
            rc = prep_bind(c,
                           "SELECT (SELECT count(*) FROM iceberg_tables WHERE catalog_name = ?1 "
                           "AND table_namespace = ?2), EXISTS (SELECT 1 FROM iceberg_tables "
                           "WHERE catalog_name = ?1 AND substr(table_namespace, 1, length(?2) + 1) "
                           "= ?2 || '.') OR EXISTS (SELECT 1 FROM iceberg_namespace_properties "
                           "WHERE catalog_name = ?1 AND substr(namespace, 1, length(?2) + 1) = "
                           "?2 || '.')",
                           1, vals, &st, err);
        if (rc == SQE_OK) {
            if (sqlite3_step(st) != SQLITE_ROW) {
                rc = db_fail(c, err, "query namespace");
            } else if (sqlite3_column_int64(st, 0) > 0) {
                rc = err_set(err, SQE_ERR_SCHEMA_NOT_EMPTY,
                             "Namespace %s is not empty: %lld tables exist", ns,
                             (long long)sqlite3_column_int64(st, 0));
            } else if (sqlite3_column_int(st, 1)) {
                rc = err_set(err, SQE_ERR_SCHEMA_NOT_EMPTY,
                             "Namespace %s is not empty: it has child namespaces", ns);
            }
        }
        sqlite3_finalize(st);
        if (rc == SQE_OK)
            rc = exec_bound(c,
                            "DELETE FROM iceberg_namespace_properties WHERE catalog_name = ?1 "
                            "AND namespace = ?2",
                            1, vals, NULL, NULL, err);
        rc = tx_end(c, rc, err);
    }
    pthread_mutex_unlock(&c->lock);
    return rc;
}

static int load_props_locked(ice_sqlite *c, const char *ns, arena *a, ice_kv_list *out,
                             sqe_error *err) {
    const char *vals[1] = {ns};
    sqlite3_stmt *st;
    SQE_TRY(prep_bind(c,
                      "SELECT property_key, property_value FROM iceberg_namespace_properties "
                      "WHERE catalog_name = ?1 AND namespace = ?2 ORDER BY property_key",
                      1, vals, &st, err));
    int rc = SQE_OK;
    ice_kv_list list = {0, NULL};
    uint32_t cap = 0;
    for (;;) {
        int step = sqlite3_step(st);
        if (step == SQLITE_DONE) break;
        if (step != SQLITE_ROW) {
            rc = db_fail(c, err, "load namespace properties");
            break;
        }
        if (list.n == cap) {
            uint32_t ncap = cap ? cap * 2 : 8;
            ice_kv *items = ARENA_ARRAY(a, ice_kv, ncap);
            if (!items) {
                rc = err_nomem(err, "namespace properties");
                break;
            }
            if (list.n) memcpy(items, list.items, list.n * sizeof *items);
            list.items = items;
            cap = ncap;
        }
        const char *k = (const char *)sqlite3_column_text(st, 0);
        const char *v = (const char *)sqlite3_column_text(st, 1);
        ice_kv *kv = &list.items[list.n++];
        kv->key = arena_strdup(a, k ? k : "");
        kv->value = arena_strdup(a, v ? v : "");
        if (!kv->key || !kv->value) {
            rc = err_nomem(err, "namespace properties");
            break;
        }
    }
    sqlite3_finalize(st);
    if (rc == SQE_OK) *out = list;
    return rc;
}

int ice_sqlite_load_namespace_properties(ice_sqlite *c, const char *ns, arena *a,
                                         ice_kv_list *out, sqe_error *err) {
    SQE_TRY(check_ns(ns, err));
    pthread_mutex_lock(&c->lock);
    int rc = ns_require_locked(c, ns, err);
    if (rc == SQE_OK) rc = load_props_locked(c, ns, a, out, err);
    pthread_mutex_unlock(&c->lock);
    return rc;
}

int ice_sqlite_update_namespace_properties(ice_sqlite *c, const char *ns,
                                           const char *const *removals, uint32_t n_removals,
                                           const ice_kv_list *updates, sqe_error *err) {
    SQE_TRY(check_ns(ns, err));
    for (uint32_t i = 0; i < n_removals; i++)
        for (uint32_t j = 0; updates && j < updates->n; j++)
            if (removals[i] && updates->items[j].key && !strcmp(removals[i], updates->items[j].key))
                return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                               "property \"%s\" is both removed and updated", removals[i]);
    pthread_mutex_lock(&c->lock);
    int rc = tx_begin(c, err);
    if (rc == SQE_OK) {
        rc = ns_require_locked(c, ns, err);
        for (uint32_t i = 0; rc == SQE_OK && i < n_removals; i++) {
            if (!removals[i]) continue;
            const char *vals[2] = {ns, removals[i]};
            rc = exec_bound(c,
                            "DELETE FROM iceberg_namespace_properties WHERE catalog_name = ?1 AND "
                            "namespace = ?2 AND property_key = ?3",
                            2, vals, NULL, NULL, err);
        }
        for (uint32_t i = 0; rc == SQE_OK && updates && i < updates->n; i++)
            rc = put_property_locked(c, ns, updates->items[i].key, updates->items[i].value, err);
        if (rc == SQE_OK) {
            /* Keep the namespace alive when its last property went. */
            const char *vals[1] = {ns};
            rc = exec_bound(c,
                            "INSERT INTO iceberg_namespace_properties (catalog_name, namespace, "
                            "property_key, property_value) SELECT ?1, ?2, 'exists', 'true' WHERE "
                            "NOT EXISTS (SELECT 1 FROM iceberg_namespace_properties WHERE "
                            "catalog_name = ?1 AND namespace = ?2)",
                            1, vals, NULL, NULL, err);
        }
        rc = tx_end(c, rc, err);
    }
    pthread_mutex_unlock(&c->lock);
    return rc;
}

/* ---- tables ---------------------------------------------------------------------------------- */

int ice_sqlite_list_tables(ice_sqlite *c, const char *ns, arena *a, char ***names,
                           uint32_t *n_names, sqe_error *err) {
    SQE_TRY(check_ns(ns, err));
    char sql[256];
    snprintf(sql, sizeof sql,
             "SELECT table_name FROM iceberg_tables WHERE catalog_name = ?1 AND "
             "table_namespace = ?2%s",
             type_filter(c));
    char **list = NULL;
    uint32_t n = 0, cap = 0;
    pthread_mutex_lock(&c->lock);
    int rc = ns_require_locked(c, ns, err);
    sqlite3_stmt *st = NULL;
    const char *vals[1] = {ns};
    if (rc == SQE_OK) rc = prep_bind(c, sql, 1, vals, &st, err);
    while (rc == SQE_OK) {
        int step = sqlite3_step(st);
        if (step == SQLITE_DONE) break;
        if (step != SQLITE_ROW) {
            rc = db_fail(c, err, "list tables");
            break;
        }
        const char *s = (const char *)sqlite3_column_text(st, 0);
        if (s && push_str(&list, &n, &cap, s, strlen(s)) != 0)
            rc = err_nomem(err, "table list");
    }
    sqlite3_finalize(st);
    pthread_mutex_unlock(&c->lock);
    if (rc != SQE_OK) {
        free_strs(list, n);
        return rc;
    }
    return strs_to_arena(list, n, a, names, n_names, err);
}

int ice_sqlite_default_table_location(ice_sqlite *c, const char *ns, const char *name, arena *a,
                                      char **out, sqe_error *err) {
    SQE_TRY(check_ns_name(ns, name, err));
    arena scratch;
    arena_init(&scratch, NULL);
    ice_kv_list props = {0, NULL};
    pthread_mutex_lock(&c->lock);
    int rc = ns_require_locked(c, ns, err);
    if (rc == SQE_OK) rc = load_props_locked(c, ns, &scratch, &props, err);
    pthread_mutex_unlock(&c->lock);
    if (rc == SQE_OK) {
        const char *ns_loc = ice_kv_get(&props, "location");
        char *loc;
        if (ns_loc && *ns_loc) {
            size_t len = strlen(ns_loc);
            while (len > 1 && ns_loc[len - 1] == '/') len--;
            loc = arena_sprintf(a, "%.*s/%s", (int)len, ns_loc, name);
        } else {
            char *ns_path = arena_strdup(&scratch, ns);
            for (char *p = ns_path; p && *p; p++) /* levels become directories: a.b -> a/b */
                if (*p == '.') *p = '/';
            loc = ns_path ? arena_sprintf(a, "%s/%s/%s", c->warehouse, ns_path, name) : NULL;
        }
        if (loc)
            *out = loc;
        else
            rc = err_nomem(err, "table location");
    }
    arena_destroy(&scratch);
    return rc;
}

/* The current metadata location of ns.name (malloc'ed, NULL when the row has none). *found is
 * false when there is no such table. */
static int table_location_locked(ice_sqlite *c, const char *ns, const char *name, bool *found,
                                 char **location, sqe_error *err) {
    char sql[256];
    snprintf(sql, sizeof sql,
             "SELECT metadata_location FROM iceberg_tables WHERE catalog_name = ?1 AND "
             "table_namespace = ?2 AND table_name = ?3%s",
             type_filter(c));
    const char *vals[2] = {ns, name};
    sqlite3_stmt *st;
    SQE_TRY(prep_bind(c, sql, 2, vals, &st, err));
    int rc = SQE_OK;
    *found = false;
    *location = NULL;
    int step = sqlite3_step(st);
    if (step == SQLITE_ROW) {
        *found = true;
        const char *loc = (const char *)sqlite3_column_text(st, 0);
        if (loc && *loc && !(*location = xstrdup(loc))) rc = err_nomem(err, "location");
    } else if (step != SQLITE_DONE) {
        rc = db_fail(c, err, "load table");
    }
    sqlite3_finalize(st);
    return rc;
}

int ice_sqlite_load_table(ice_sqlite *c, const char *ns, const char *name, arena *a,
                          char **metadata_location, ice_metadata **meta, sqe_error *err) {
    SQE_TRY(check_ns_name(ns, name, err));
    bool found = false;
    char *loc = NULL;
    pthread_mutex_lock(&c->lock);
    int rc = table_location_locked(c, ns, name, &found, &loc, err);
    pthread_mutex_unlock(&c->lock);
    if (rc != SQE_OK) return rc;
    if (!found)
        return err_set(err, SQE_ERR_TABLE_NOT_FOUND, "Table does not exist: %s.%s", ns, name);
    if (!loc)
        return err_set(err, SQE_ERR_INVALID_FILE, "table %s.%s has no metadata location", ns,
                       name);
    ice_metadata *m = NULL;
    if (meta) rc = ice_sqlite_read_metadata(loc, a, &m, err);
    char *loc_copy = NULL;
    if (rc == SQE_OK && metadata_location && !(loc_copy = arena_strdup(a, loc)))
        rc = err_nomem(err, "location");
    free(loc);
    if (rc != SQE_OK) return rc;
    if (metadata_location) *metadata_location = loc_copy;
    if (meta) *meta = m;
    return SQE_OK;
}

/* Inserts the row of a new table in its own transaction (namespace checked inside it). */
static int insert_table_row(ice_sqlite *c, const char *ns, const char *name,
                            const char *location, sqe_error *err) {
    pthread_mutex_lock(&c->lock);
    int rc = tx_begin(c, err);
    if (rc == SQE_OK) {
        rc = ns_require_locked(c, ns, err);
        const char *vals[3] = {ns, name, location};
        bool constraint = false;
        if (rc == SQE_OK)
            rc = exec_bound(c,
                            c->has_type_column
                                ? "INSERT INTO iceberg_tables (catalog_name, table_namespace, "
                                  "table_name, metadata_location, previous_metadata_location, "
                                  "iceberg_type) VALUES (?1, ?2, ?3, ?4, NULL, 'TABLE')"
                                : "INSERT INTO iceberg_tables (catalog_name, table_namespace, "
                                  "table_name, metadata_location, previous_metadata_location) "
                                  "VALUES (?1, ?2, ?3, ?4, NULL)",
                            3, vals, NULL, &constraint, err);
        if (constraint)
            rc = err_set(err, SQE_ERR_ALREADY_EXISTS, "Table %s.%s already exists", ns, name);
        rc = tx_end(c, rc, err);
    }
    pthread_mutex_unlock(&c->lock);
    return rc;
}

int ice_sqlite_create_table(ice_sqlite *c, const char *ns, const char *name,
                            const ice_metadata *m, arena *a, char **metadata_location_out,
                            sqe_error *err) {
    SQE_TRY(check_ns_name(ns, name, err));
    if (!m || !m->location || !*m->location)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                       "create table %s.%s: metadata without location", ns, name);
    /* Cheap checks first, so the common errors leave no file to clean up. */
    bool found = false;
    pthread_mutex_lock(&c->lock);
    int rc = ns_require_locked(c, ns, err);
    if (rc == SQE_OK) {
        /* any row with this name blocks (a view too) */
        const char *vals[2] = {ns, name};
        sqlite3_stmt *st;
        rc = prep_bind(c,
                       "SELECT 1 FROM iceberg_tables WHERE catalog_name = ?1 AND "
                       "table_namespace = ?2 AND table_name = ?3",
                       2, vals, &st, err);
        if (rc == SQE_OK) {
            int step = sqlite3_step(st);
            if (step == SQLITE_ROW)
                found = true;
            else if (step != SQLITE_DONE)
                rc = db_fail(c, err, "load table");
            sqlite3_finalize(st);
        }
    }
    pthread_mutex_unlock(&c->lock);
    if (rc != SQE_OK) return rc;
    if (found) return err_set(err, SQE_ERR_ALREADY_EXISTS, "Table %s.%s already exists", ns, name);

    char *loc = NULL;
    SQE_TRY(write_metadata_file(m, 0, a, &loc, err));
    rc = insert_table_row(c, ns, name, loc, err);
    if (rc != SQE_OK) {
        file_remove(loc);
        return rc;
    }
    if (metadata_location_out) *metadata_location_out = loc;
    return SQE_OK;
}

int ice_sqlite_register_table(ice_sqlite *c, const char *ns, const char *name,
                              const char *metadata_location, sqe_error *err) {
    SQE_TRY(check_ns_name(ns, name, err));
    if (!metadata_location || !*metadata_location)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "register table %s.%s: empty location", ns,
                       name);
    return insert_table_row(c, ns, name, metadata_location, err);
}

int ice_sqlite_commit(ice_sqlite *c, const char *ns, const char *name,
                      const char *expected_location, const ice_metadata *new_meta, arena *a,
                      char **new_location_out, sqe_error *err) {
    SQE_TRY(check_ns_name(ns, name, err));
    if (!expected_location || !*expected_location || !new_meta)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                       "commit %s.%s: missing expected location or metadata", ns, name);
    int64_t version = ice_sqlite_metadata_version(expected_location);
    char *loc = NULL;
    SQE_TRY(write_metadata_file(new_meta, version < 0 ? 0 : version + 1, a, &loc, err));

    char sql[320];
    snprintf(sql, sizeof sql,
             "UPDATE iceberg_tables SET metadata_location = ?5, previous_metadata_location = ?4 "
             "WHERE catalog_name = ?1 AND table_namespace = ?2 AND table_name = ?3 AND "
             "metadata_location = ?4%s",
             type_filter(c));
    pthread_mutex_lock(&c->lock);
    int rc = tx_begin(c, err);
    if (rc == SQE_OK) {
        const char *vals[4] = {ns, name, expected_location, loc};
        int changes = 0;
        rc = exec_bound(c, sql, 4, vals, &changes, NULL, err);
        if (rc == SQE_OK && changes != 1) {
            bool found = false;
            char *current = NULL;
            rc = table_location_locked(c, ns, name, &found, &current, err);
            if (rc == SQE_OK && !found)
                rc = err_set(err, SQE_ERR_TABLE_NOT_FOUND, "Table does not exist: %s.%s", ns,
                             name);
            else if (rc == SQE_OK)
                rc = err_set(err, ICE_SQLITE_ERR_COMMIT_CONFLICT,
                             "Commit failed: table %s.%s was changed concurrently (expected "
                             "metadata %s, found %s)",
                             ns, name, expected_location, current ? current : "none");
            free(current);
        }
        rc = tx_end(c, rc, err);
    }
    pthread_mutex_unlock(&c->lock);
    if (rc != SQE_OK) {
        file_remove(loc);
        return rc;
    }
    if (new_location_out) *new_location_out = loc;
    return SQE_OK;
}

int ice_sqlite_drop_table(ice_sqlite *c, const char *ns, const char *name, bool purge,
                          sqe_error *err) {
    SQE_TRY(check_ns_name(ns, name, err));
    if (purge)
        return err_set(err, SQE_ERR_NOT_SUPPORTED,
                       "unsupported: DROP TABLE with purge in the SQLite catalog (table %s.%s "
                       "was not dropped)",
                       ns, name);
    char sql[256];
    snprintf(sql, sizeof sql,
             "DELETE FROM iceberg_tables WHERE catalog_name = ?1 AND table_namespace = ?2 AND "
             "table_name = ?3%s",
             type_filter(c));
    const char *vals[2] = {ns, name};
    int changes = 0;
    pthread_mutex_lock(&c->lock);
    int rc = tx_begin(c, err);
    if (rc == SQE_OK) {
        rc = exec_bound(c, sql, 2, vals, &changes, NULL, err);
        if (rc == SQE_OK && changes < 1)
            rc = err_set(err, SQE_ERR_TABLE_NOT_FOUND, "Table does not exist: %s.%s", ns, name);
        rc = tx_end(c, rc, err);
    }
    pthread_mutex_unlock(&c->lock);
    return rc;
}

int ice_sqlite_rename_table(ice_sqlite *c, const char *ns, const char *name, const char *to_ns,
                            const char *to_name, sqe_error *err) {
    SQE_TRY(check_ns_name(ns, name, err));
    SQE_TRY(check_ns_name(to_ns, to_name, err));
    char sql[320];
    snprintf(sql, sizeof sql,
             "UPDATE iceberg_tables SET table_namespace = ?4, table_name = ?5 WHERE "
             "catalog_name = ?1 AND table_namespace = ?2 AND table_name = ?3%s",
             type_filter(c));
    pthread_mutex_lock(&c->lock);
    int rc = tx_begin(c, err);
    if (rc == SQE_OK) {
        rc = ns_require_locked(c, to_ns, err);
        const char *vals[4] = {ns, name, to_ns, to_name};
        int changes = 0;
        bool constraint = false;
        if (rc == SQE_OK) rc = exec_bound(c, sql, 4, vals, &changes, &constraint, err);
        if (constraint)
            rc = err_set(err, SQE_ERR_ALREADY_EXISTS, "Table %s.%s already exists", to_ns,
                         to_name);
        else if (rc == SQE_OK && changes < 1)
            rc = err_set(err, SQE_ERR_TABLE_NOT_FOUND, "Table does not exist: %s.%s", ns, name);
        rc = tx_end(c, rc, err);
    }
    pthread_mutex_unlock(&c->lock);
    return rc;
}
