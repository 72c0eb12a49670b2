/*
 * engine_api.h: what the layers above the engine (server front ends, cli) use of it beyond the
 * public API (include/sqe/sqe.h): the database's catalog list, which the command line fills
 * from the configuration before any session exists (cli/cli_catalogs.c), and the chunk view of
 * a result, which front ends read as vectors (server/flight: Arrow encoding, DoPut literals),
 * and results built row by row in memory (server/flight: the metadata commands' answers).
 * engine.h (private to src/engine/) includes this header.
 *
 * NOTES:
 * - sqe_db.catalogs is a plain NULL-terminated array that sessions read without a lock: it is
 *   grown only before the first sqe_connect. The rest of the database is the engine's own
 *   (sqe_db_open / sqe_db_set_limits / sqe_db_close set and free it).
 * - A sqe_chunk borrows its vec_chunk from the result; it is valid until the next
 *   sqe_result_next or sqe_result_destroy.
 */
#ifndef SQE_ENGINE_ENGINE_API_H
#define SQE_ENGINE_ENGINE_API_H

#include <pthread.h>
#include <stdint.h>

#include "common/mem.h"
#include "sqe/sqe.h"
#include "sqe/sqe_values.h"
#include "vec/vec.h"

typedef struct catalog catalog;         /* catalog/catalog.h */
typedef struct exec_pool exec_pool;     /* exec/exec.h */
typedef struct user_memory user_memory; /* engine.h */
struct path_policy;                     /* io/path_policy.h */

struct sqe_db {
    catalog **catalogs;
    uint32_t n_catalogs;
    exec_pool *pool;
    uint32_t threads;
    mem_tracker tracker;       /* everything the database holds (tables, running queries);
                                  limit: sqe_db_set_limits memory_total */
    int64_t query_memory_limit;/* per query, the ceiling of SET SESSION query_max_memory */
    int64_t user_memory_limit; /* per user ([query] per_user_memory); 0 = none */
    int64_t max_result_rows;   /* rows a result may hand to the client; 0 = no limit */
    user_memory *users;        /* users with running queries (guarded by lock) */
    struct path_policy *paths; /* what SQL may read and write of files and object stores
                                  (io/path_policy.h; owned); NULL: everything (embedded) */
    sqe_session_lister sessions; /* the host's live sessions (system.runtime.sessions); NULL:
                                    none (sqe_db_set_session_lister) */
    void *sessions_ud;
    char **admin_roles;          /* sqe_db_set_admin_roles (owned) */
    uint32_t n_admin_roles;
    pthread_mutex_t lock;
};

struct sqe_chunk {
    const vec_chunk *chunk;
};

/* Results built in memory (the servers' metadata answers, SHOW): engine_result_create makes one
 * with the given columns (names and types copied), owned by the caller (sqe_result_destroy).
 * engine_result_add_text_row appends a row of texts (NULL entries are NULL values): BIGINT and
 * BOOLEAN cells are converted, other columns take the text as is (a caller with INTEGER, TINYINT
 * or VARBINARY columns sets those values itself). engine_result_last_chunk is the chunk holding
 * the row added last (borrowed from r, valid as long as r; NULL when it has none). */
int engine_result_create(uint32_t n_cols, const char *const *names, const sqe_type *types,
                         sqe_result **out, sqe_error *err);
int engine_result_add_text_row(sqe_result *r, const char *const *cells, sqe_error *err);
vec_chunk *engine_result_last_chunk(sqe_result *r);

#endif
