/*
 * path_policy.h: which files and object-store locations SQL may reach for a session, decided in
 * one place: every table function (read_csv, read_parquet, parquet_metadata, parquet_schema), a
 * quoted path used as a table, globs, COPY ... TO and explicit Iceberg table locations ask this
 * object, and only open what it hands back.
 *
 * The embedded shell has no policy (NULL): every local path and every object-store location is
 * reachable with the process's credentials, as before. `sqe sql` is the user's own process.
 *
 * `sqe serve` builds one from [storage.tvf] and [storage] (path_policy_create):
 *   - Local paths only with allow_local_paths, and then only under allowed_local_roots. A path
 *     is normalized lexically first ("." and ".." removed, relative paths made absolute against
 *     the working directory); a path outside every root is refused without touching the file
 *     system. Inside, it is resolved with realpath(3): a symlink that leads outside a root is
 *     refused, and what the caller gets is the resolved path (so the reader opens exactly what
 *     was checked). A glob is normalized, its fixed prefix (the directories before the first
 *     wildcard) must be inside a root, and every match is resolved and checked again.
 *   - Object-store locations ("s3://bucket/key", also s3a:// and s3n://) only under
 *     allowed_object_store_prefixes, where "{user}" stands for the caller's name (a name with
 *     '/' or equal to "." or ".." never matches), unless the caller holds one of
 *     object_store_admin_roles. Keys with "." or ".." segments are refused (HTTP clients remove
 *     dot segments). They are read and written with the [storage] keys when configured, else
 *     with no credentials at all (the request is refused before it is sent); never with the
 *     process's environment.
 *   - Other URL schemes (http://, gs://, ...) are not supported.
 *
 * Errors never tell whether a refused path exists: every refusal outside the allowed locations
 * is PERMISSION_DENIED with the same message for existing and missing files. NOT_FOUND is given
 * only for paths inside an allowed location.
 *
 * A policy is immutable after creation and shared by every session (thread-safe).
 */
#ifndef SQE_IO_PATH_POLICY_H
#define SQE_IO_PATH_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "common/principal.h"
#include "io/io.h"

typedef struct path_policy path_policy;

typedef struct path_policy_config {
    bool allow_local_paths;
    const char *const *local_roots;             /* directories; each must exist */
    size_t n_local_roots;
    const char *const *object_store_prefixes;   /* "s3://bucket/users/{user}/" */
    size_t n_object_store_prefixes;
    const char *const *object_store_admin_roles;
    size_t n_object_store_admin_roles;
    const io_identity_config *object_store_keys; /* credentials for allowed object-store
                                                    locations, or NULL: none */
} path_policy_config;

/* A policy from cfg (strings copied; roots resolved with realpath now). INVALID_ARGUMENTS
 * naming the setting for a root that is not an existing directory, a prefix that is not an
 * object-store URI, bad keys. On success the caller owns *out (path_policy_destroy). */
int path_policy_create(const path_policy_config *cfg, path_policy **out, sqe_error *err);
void path_policy_destroy(path_policy *p);

/* The files a read of pattern (a path, a file: URI or an object-store URI; each may be a glob)
 * reaches for who. p NULL: everything (io_glob). On success *paths holds *n_paths resolved
 * locations (io_paths_free) and *id the identity to open object-store ones with (a new
 * reference, NULL for local files and for "no credentials"). Errors: PERMISSION_DENIED,
 * NOT_SUPPORTED (other schemes), NOT_FOUND (no such file or no match, inside an allowed
 * location), those of io_glob; on error nothing is allocated. */
int path_policy_read(const path_policy *p, const sqe_principal *who, const char *pattern,
                     char ***paths, uint32_t *n_paths, io_identity **id, sqe_error *err);

/* Where a write of one file at location (no glob) by who goes: *target (malloc'd) is the
 * resolved local path (the parent directory resolved, the last name as given, so an existing
 * symlink there is replaced, never followed) or the object-store location, *id as for
 * path_policy_read. Without overwrite an existing file is ALREADY_EXISTS (only inside allowed
 * locations; the writer must still refuse to replace atomically). p NULL: every location, with
 * the same overwrite rule. Errors as path_policy_read; on error nothing is allocated. */
int path_policy_write(const path_policy *p, const sqe_principal *who, const char *location,
                      bool overwrite, char **target, io_identity **id, sqe_error *err);

/* May who create files under directory location (an Iceberg table's location or data path)?
 * p NULL: yes. PERMISSION_DENIED as above, NOT_SUPPORTED for other schemes. */
int path_policy_check_dir(const path_policy *p, const sqe_principal *who, const char *location,
                          sqe_error *err);

#endif
