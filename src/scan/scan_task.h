/*
 * scan_task.h: a scan task (DESIGN.md section 5): a self-contained, serializable description of
 * the work on one data file or one byte range of it: path and format, the row groups to read,
 * the projected columns (Iceberg field ids), the delete files that apply, the residual
 * predicate, a limit, an optional partial aggregation and the credentials to read the files.
 * The coordinator builds tasks (scan_task_plan.h), encodes them (scan_task_encode); a worker
 * decodes one (scan_task_decode) and runs it with no binder and no catalog
 * (exec/scan_task_run.h; the rows themselves come from scan_task_read.h).
 *
 * Encoding (version SCAN_TASK_VERSION), all integers little-endian:
 *   "SQET" u16 version u16 flags(0) u32 body_length, then body_length bytes of sections, each
 *   u8 tag, u32 length, payload; the sections of version 1 come once each in tag order:
 *   1 file, 2 columns, 3 deletes, 4 residual, 5 aggregation, 6 limit, 7 credentials. Strings
 *   are u32 length + bytes (no NUL), arrays u32 count + items. The decoder checks every length
 *   and count against the bytes left before it allocates, refuses unknown tags, trailing bytes
 *   and versions it does not know; its errors (INVALID_ARGUMENTS "Invalid scan task: ...") say
 *   what is wrong and at which byte offset.
 *
 * Credentials are an opaque, clearly marked section: never logged (scan_task_describe prints
 * only whether they are present), wiped by scan_task_wipe_credentials.
 *
 * Lifetimes: a decoded task and everything it points to live in the arena given to
 * scan_task_decode; residual constants are arena-backed vectors (never vec_destroy them).
 */
#ifndef SQE_SCAN_SCAN_TASK_H
#define SQE_SCAN_SCAN_TASK_H

#include <stdbool.h>
#include <stdint.h>

#include "common/arena.h"
#include "common/err.h"
#include "common/strbuf.h"
#include "func/func.h"
#include "plan/plan.h"
#include "types/types.h"

#define SCAN_TASK_MAGIC "SQET"
#define SCAN_TASK_VERSION 1
/* Limits the decoder enforces (a task far beyond them is hostile or broken). */
#define SCAN_TASK_MAX_COLUMNS 4096
#define SCAN_TASK_MAX_EXPR_DEPTH 64

typedef enum scan_task_format { SCAN_FORMAT_PARQUET = 1 } scan_task_format;

/* Which part of the file the task reads. */
typedef enum scan_task_range_kind {
    SCAN_RANGE_WHOLE = 0,      /* every row group */
    SCAN_RANGE_BYTES,          /* row groups whose first byte is in [offset, offset + length) */
    SCAN_RANGE_ROW_GROUPS,     /* the listed row groups (ascending) */
} scan_task_range_kind;

typedef enum scan_task_column_kind {
    SCAN_COL_FIELD = 0,        /* a table field (by field id, by name when the file has no ids) */
    SCAN_COL_PATH,             /* "$path": the data file's location */
    SCAN_COL_POS,              /* "$pos": the row's position in the file */
} scan_task_column_kind;

typedef struct scan_task_column {
    uint8_t kind;              /* scan_task_column_kind */
    int32_t field_id;
    const char *name;
    sqe_type type;             /* the type the query reads it as */
} scan_task_column;

typedef enum scan_task_delete_kind {
    SCAN_DELETE_POSITION = 1,  /* Parquet position delete file */
    SCAN_DELETE_DV,            /* deletion vector: a blob of a Puffin file */
    SCAN_DELETE_EQUALITY,      /* Parquet equality delete file */
} scan_task_delete_kind;

/* A delete file that applies to the task's data file (the planner decided that already; the
 * sequence numbers are kept so the worker applies the same rules). */
typedef struct scan_task_delete {
    uint8_t kind;              /* scan_task_delete_kind */
    const char *path;
    int64_t sequence_number;
    int64_t record_count;
    int64_t file_size;
    const char *referenced_data_file; /* NULL when not set */
    int64_t content_offset, content_size; /* DV: the blob in the Puffin file */
    uint32_t n_equality_ids;
    const int32_t *equality_ids;
} scan_task_delete;

/* One aggregate of a partial aggregation: name and argument types (resolved again through the
 * function registry on decode), its arguments as column indexes of the task. */
typedef struct scan_task_agg {
    const char *name;
    uint32_t n_args;
    const uint32_t *args;      /* task column index of each argument */
    const sqe_type *arg_types;
    sqe_type ret;              /* the final type (checked against the registry on decode) */
    /* resolved (by scan_task_resolve / decode): */
    const func_agg_def *def;
    const void *bind_data;
} scan_task_agg;

/* Credentials to read the task's files: opaque to everything but io/. Never log them. */
typedef struct scan_task_credentials {
    bool present;
    const char *access_key_id;
    const char *secret_access_key;   /* SECRET */
    const char *session_token;       /* SECRET; NULL or "" when none */
    const char *endpoint;            /* NULL or "": AWS */
    const char *region;
    bool path_style;
    const char *principal_token;     /* SECRET: the principal's token, for a catalog or a
                                        credential vendor; NULL when none */
} scan_task_credentials;

typedef struct scan_task {
    /* file */
    uint8_t format;            /* scan_task_format */
    const char *path;
    int64_t file_size;         /* -1 unknown */
    int64_t record_count;      /* -1 unknown */
    int64_t data_sequence_number;
    uint8_t range_kind;        /* scan_task_range_kind */
    int64_t offset, length;    /* SCAN_RANGE_BYTES */
    uint32_t n_row_groups;
    const uint32_t *row_groups; /* SCAN_RANGE_ROW_GROUPS */
    /* what is read */
    uint32_t n_columns;
    const scan_task_column *columns;
    uint32_t n_output;         /* without aggregation: the task column index of each output */
    const uint32_t *output;    /* column (ignored with an aggregation) */
    uint32_t n_deletes;
    const scan_task_delete *deletes;
    /* residual predicate over the task columns (BEXPR_COLUMN u.col = column index + 1), or
     * NULL: rows it does not make TRUE are dropped */
    const bexpr *residual;
    /* partial aggregation (n_aggs > 0 or n_keys > 0): the output is the group keys then one
     * VARBINARY partial state per aggregate (see exec/scan_task_run.h) */
    bool aggregate;
    uint32_t n_keys;
    const uint32_t *keys;      /* task column index of each group key */
    uint32_t n_aggs;
    const scan_task_agg *aggs;
    int64_t limit;             /* rows to produce at most (after the residual); -1 = no limit;
                                  not allowed with an aggregation */
    scan_task_credentials credentials;
} scan_task;

/* Column id of task column i in the residual (BEXPR_COLUMN). */
static inline plan_col_id scan_task_col_id(uint32_t i) { return i + 1; }

/* Sets *t to an empty task (whole file, no limit). */
void scan_task_init(scan_task *t);

/* Checks that t is consistent: column, key, argument and output indexes in range, a limit not
 * with an aggregation, residual column references in range and of the column's type, delete
 * kinds known. Errors: INVALID_ARGUMENTS naming what is wrong. */
int scan_task_validate(const scan_task *t, sqe_error *err);

/* Encodes t (validated first) into a malloc'ed buffer the caller owns (free). Errors:
 * INVALID_ARGUMENTS (scan_task_validate), NOT_SUPPORTED for residual expressions that cannot
 * cross to a worker (scan_task_expr.h), OUT_OF_MEMORY. */
int scan_task_encode(const scan_task *t, uint8_t **out, size_t *len, sqe_error *err);

/* Decodes p[0..len) into *t, everything in a; resolves residual functions and aggregates
 * through the function registry (func_registry_init must have run). Errors:
 * INVALID_ARGUMENTS "Invalid scan task: <what> at offset N", NOT_SUPPORTED for a newer version
 * or a function the registry does not have with these types, OUT_OF_MEMORY. On error *t is
 * unspecified (its memory is in a). */
int scan_task_decode(arena *a, const uint8_t *p, size_t len, scan_task *t, sqe_error *err);

/* Resolves each aggregate's def and bind data through the registry (done by decode; the
 * planner calls it for tasks it builds). Errors: FUNCTION_NOT_FOUND / TYPE_MISMATCH from the
 * registry, TYPE_MISMATCH when the result type differs from agg->ret. */
int scan_task_resolve_aggs(arena *a, scan_task *t, sqe_error *err);

/* Overwrites the secret credential strings of a decoded task (they live in its arena, which
 * must be writable memory: scan_task_decode's) with zeroes and clears t->credentials. Call it
 * when the task's files are open or the task is done. An encoded buffer holds the credentials
 * too: its owner wipes it (memset) before freeing it. */
void scan_task_wipe_credentials(scan_task *t);

/* One line for logs and EXPLAIN: path, range, columns, deletes, residual, aggregation, limit,
 * and "credentials: present" (never their values). */
void scan_task_describe(const scan_task *t, strbuf *out);

#endif
