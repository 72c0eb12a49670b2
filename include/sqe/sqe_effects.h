/*
 * sqe_effects.h: what a statement did, read off its result: the statement kind, Trino's update
 * type and the update count, the session changes it made (USE, SET/RESET SESSION, PREPARE,
 * DEALLOCATE), and the tables and columns it read and wrote with the Iceberg snapshots it read
 * or produced. For SQE's own front ends (protocol servers, audit, policy) and embedders.
 *
 * The engine fills these from the statement's syntax tree and bound plan (the binder reports
 * every table it resolves), never from the text. Everything here is owned by the result:
 * pointers stay valid until sqe_result_destroy and must not be freed.
 *
 * Threads: like sqe.h, a result is used by one thread at a time.
 */
#ifndef SQE_SQE_EFFECTS_H
#define SQE_SQE_EFFECTS_H

#include "sqe/sqe.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The kind of statement a result came from. */
typedef enum sqe_statement_kind {
    SQE_STATEMENT_QUERY = 1,        /* SELECT, VALUES, TABLE, WITH ... */
    SQE_STATEMENT_INSERT,
    SQE_STATEMENT_UPDATE,
    SQE_STATEMENT_DELETE,
    SQE_STATEMENT_MERGE,
    SQE_STATEMENT_TRUNCATE,
    SQE_STATEMENT_CREATE_SCHEMA,
    SQE_STATEMENT_DROP_SCHEMA,
    SQE_STATEMENT_CREATE_TABLE,
    SQE_STATEMENT_CREATE_TABLE_AS,
    SQE_STATEMENT_DROP_TABLE,
    SQE_STATEMENT_ALTER_TABLE,
    SQE_STATEMENT_CREATE_VIEW,
    SQE_STATEMENT_DROP_VIEW,
    SQE_STATEMENT_USE,
    SQE_STATEMENT_SET_SESSION,
    SQE_STATEMENT_RESET_SESSION,
    SQE_STATEMENT_SET_TIME_ZONE,    /* reserved: the parser has no SET TIME ZONE yet */
    SQE_STATEMENT_PREPARE,
    SQE_STATEMENT_DEALLOCATE,
    SQE_STATEMENT_EXECUTE,          /* EXECUTE name / EXECUTE IMMEDIATE 'text' */
    SQE_STATEMENT_SHOW,             /* SHOW ..., DESCRIBE t */
    SQE_STATEMENT_DESCRIBE,         /* DESCRIBE INPUT / OUTPUT */
    SQE_STATEMENT_EXPLAIN,
    SQE_STATEMENT_COPY,
    SQE_STATEMENT_CALL,
    SQE_STATEMENT_START_TRANSACTION,
    SQE_STATEMENT_COMMIT,
    SQE_STATEMENT_ROLLBACK,
} sqe_statement_kind;

/* A name for kind ("INSERT", "CREATE TABLE AS", ...; "UNKNOWN" out of range). Static. */
const char *sqe_statement_kind_name(sqe_statement_kind kind);

/* The statement kind of res. For EXECUTE it is SQE_STATEMENT_EXECUTE; what the executed
 * statement did (update type, changes, tables) is reported as this statement's. */
sqe_statement_kind sqe_result_statement_kind(const sqe_result *res);

/* Whether the statement hands out rows to show (queries, SHOW, DESCRIBE, EXPLAIN, and EXECUTE
 * of one of those); 0 for statements that change something. */
int sqe_result_returns_rows(const sqe_result *res);

/* Trino's updateType ("INSERT", "CREATE TABLE", "SET SESSION", "USE", ...), or "" for
 * statements that return rows. Static storage; never NULL. The update count is
 * sqe_result_update_count (sqe.h). */
const char *sqe_result_update_type(const sqe_result *res);

/* ---- session changes ------------------------------------------------------------------------ */

typedef enum sqe_session_change_kind {
    SQE_CHANGE_CATALOG_SCHEMA = 1, /* USE: name = the new catalog, value = the new schema */
    SQE_CHANGE_PROPERTY_SET,       /* SET SESSION: name = property (dotted, folded), value = the
                                      value as text (a string's characters, digits, true/false) */
    SQE_CHANGE_PROPERTY_RESET,     /* RESET SESSION: name; value NULL */
    SQE_CHANGE_PREPARED_ADDED,     /* PREPARE: name, value = the statement text */
    SQE_CHANGE_PREPARED_REMOVED,   /* DEALLOCATE PREPARE: name; value NULL */
    SQE_CHANGE_TIME_ZONE,          /* value = the zone name (reserved for SET TIME ZONE) */
} sqe_session_change_kind;

typedef struct sqe_session_change {
    sqe_session_change_kind kind;
    const char *name;
    const char *value;
} sqe_session_change;

/* The changes the statement made to its session, in the order it made them. idx is 0-based;
 * out of range gives NULL. Owned by res (valid until sqe_result_destroy). */
int sqe_result_session_change_count(const sqe_result *res);
const sqe_session_change *sqe_result_session_change(const sqe_result *res, int idx);

/* ---- tables read and written ---------------------------------------------------------------- */

typedef struct sqe_table_access {
    const char *catalog;
    const char *schema;
    const char *table;
    int written;             /* 1: the statement wrote it (DML target, CREATE/DROP/ALTER/
                                TRUNCATE); 0: it read it */
    int64_t snapshot_id;     /* Iceberg: the snapshot read, or for a write the table's snapshot
                                after it; -1 for memory tables, tables without snapshots,
                                time-travel reads (not reported yet) and dropped tables */
    int n_columns;           /* reads: the columns the plan reads (after pruning); writes:
                                INSERT's target columns; 0 when not known */
    const char *const *columns;
} sqe_table_access;

/* Each (catalog, schema, table, written) once, reads in the order the binder met them, then
 * writes. idx is 0-based; out of range gives NULL. Owned by res (until sqe_result_destroy). */
int sqe_result_table_count(const sqe_result *res);
const sqe_table_access *sqe_result_table(const sqe_result *res, int idx);

/* ---- before running ------------------------------------------------------------------------- */

/* Parses sql (nothing runs) and tells its kind and whether it returns rows; for EXECUTE name,
 * whether the prepared statement of conn it names does. Fails with the parse error (or
 * NOT_FOUND for an unknown prepared statement). kind and returns_rows may be NULL. */
int sqe_statement_classify(sqe_conn *conn, const char *sql, sqe_statement_kind *kind,
                           int *returns_rows, sqe_error *err);

/* ---- applying session state without SQL ----------------------------------------------------- */

/* Sets session property name to value as SET SESSION would (value given as a client header
 * carries it: digits are an integer, true/false a boolean, anything else a string), or resets
 * it when value is NULL. INVALID_SESSION_PROPERTY for an unknown name or a bad value; on error
 * nothing changes. Errors carry no position. */
int sqe_conn_set_session_property(sqe_conn *conn, const char *name, const char *value,
                                  sqe_error *err);

#ifdef __cplusplus
}
#endif
#endif
