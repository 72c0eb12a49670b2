/*
 * cli_catalogs.h: the catalogs of the configuration ([catalog] and [catalogs.NAME]) opened and
 * added to an embedded database, for `sqe serve` and `sqe sql --config`.
 */
#ifndef SQE_CLI_CLI_CATALOGS_H
#define SQE_CLI_CLI_CATALOGS_H

#include "common/config.h"
#include "sqe/sqe.h"

/* Opens the embedded database the configuration describes, as `sqe serve` and `sqe sql` both
 * do: base's settings (threads, memory_limit; NULL = defaults) with the Iceberg catalog of a
 * [catalog] of type sqlite (its warehouse and uri, by default <data_dir>/warehouse and
 * <data_dir>/catalog.db, so both commands open the same tables), then cli_catalogs_attach. On
 * success the caller owns *out (sqe_db_close); on error *out is NULL, nothing stays open and err
 * says why. */
int cli_database_open(const config *cfg, const sqe_db_options *base, sqe_db **out,
                      sqe_error *err);

/* Opens every configured catalog that sqe_db_open did not (a [catalog] of type "rest", and each
 * [catalogs.NAME]: rest, sqlite or memory) and adds it to db, which must have no session yet. A
 * REST [catalog] becomes the first catalog (the sessions' default); [catalogs.NAME] follow in
 * file order. data_dir roots the default locations of [catalogs.NAME] of type sqlite
 * (<data_dir>/catalogs/NAME/, its SQLite file catalog.db inside). REST catalogs make no request
 * here (a catalog that is down does not stop startup). On error (the message names the catalog)
 * the catalogs added before stay in db (sqe_db_close frees them). */
int cli_catalogs_attach(const config *cfg, const char *data_dir, sqe_db *db, sqe_error *err);

#endif
