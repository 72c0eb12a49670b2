/*
 * stage.h: where an Iceberg writer builds a file that ends up at a table location.
 *
 * The writers (Parquet data files, position delete files, Puffin deletion vectors) need a
 * local file: pq_writer seeks and renames, and a Puffin file is written in one go. For a local
 * location the writer writes the location itself. For an object-store location ("s3://...")
 * it writes a private staging file under $TMPDIR (default /tmp), and ice_stage_publish
 * uploads that file as the table's user (io_upload_as with the identity from the table
 * reference, so every request is signed with that user's keys) and deletes the local copy.
 *
 * Use:
 *   ice_stage s;  ice_stage_begin(&s, location, io, err);
 *   write s.local ...;  ice_stage_publish(&s, err);  ice_stage_end(&s);   (end always)
 */
#ifndef SQE_ICEBERG_STAGE_H
#define SQE_ICEBERG_STAGE_H

#include <stdbool.h>

#include "common/err.h"
#include "io/io.h"

typedef struct ice_stage {
    const char *location;     /* the final location (borrowed) */
    const io_identity *io;    /* borrowed; NULL: the environment's credentials */
    bool remote;              /* location is an object-store URI */
    char *local;              /* the path to write: location itself, or the staging file */
    char *dir;                /* the private staging directory (remote only), malloc'ed */
} ice_stage;

/* Prepares s for a file at location (borrowed, as io is, until ice_stage_end). For a local
 * location s->local is the location; for a remote one a fresh private directory is made and
 * s->local is a file in it (not yet created). Errors: IO_ERROR naming $TMPDIR when the
 * directory cannot be made, OUT_OF_MEMORY; after an error s needs no ice_stage_end (calling it
 * is harmless). */
int ice_stage_begin(ice_stage *s, const char *location, const io_identity *io, sqe_error *err);

/* Makes the written file appear at its location: uploads s->local as s->io for a remote
 * location (nothing for a local one). Errors: those of io_upload_as (PERMISSION_DENIED,
 * IO_ERROR, ...) naming the location; nothing is then left at the location. */
int ice_stage_publish(ice_stage *s, sqe_error *err);

/* Removes the staging file and directory (remote) and frees s's strings. Safe on a zeroed s
 * and twice. */
void ice_stage_end(ice_stage *s);

/* Deletes the file at location (a published one, or a local file), as io; missing is fine. */
void ice_stage_remove(const char *location, const io_identity *io);

#endif
