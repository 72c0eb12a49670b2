/*
 * stage.c: local staging of files written for object-store tables (see stage.h).
 *
 * INTERFACE: ice_stage_begin, ice_stage_publish, ice_stage_end, ice_stage_remove
 * NOTES: the staging directory is made with mkdtemp (mode 0700), so another user of the
 * machine can neither read the staged rows nor plant a file under the name; the file keeps the
 * location's base name (pq_writer writes "<name>.tmp-..." next to it and renames at close).
 */
#include "iceberg/stage.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int ice_stage_begin(ice_stage *s, const char *location, const io_identity *io, sqe_error *err) {
    memset(s, 0, sizeof *s);
    s->location = location;
    s->io = io;
    s->remote = io_location_is_remote(location);
    if (!s->remote) {
        s->local = strdup(location);
        return s->local ? SQE_OK : err_nomem(err, "Iceberg file staging");
    }
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp) tmp = "/tmp";
    const char *base = strrchr(location, '/');
    base = base ? base + 1 : location;
    size_t dl = strlen(tmp) + 32, fl = dl + strlen(base) + 2;
    s->dir = malloc(dl);
    s->local = malloc(fl);
    if (!s->dir || !s->local) {
        ice_stage_end(s);
        return err_nomem(err, "Iceberg file staging");
    }
    snprintf(s->dir, dl, "%s/sqe-ice-XXXXXX", tmp);
    if (!mkdtemp(s->dir)) {
        int e = errno;
        free(s->dir);
        s->dir = NULL;
        ice_stage_end(s);
        return err_set(err, SQE_ERR_IO_ERROR,
                       "Cannot create a staging directory in %s for %s: %s", tmp, location,
                       strerror(e));
    }
    snprintf(s->local, fl, "%s/%s", s->dir, *base ? base : "file");
    return SQE_OK;
}

int ice_stage_publish(ice_stage *s, sqe_error *err) {
    if (!s->remote) return SQE_OK;
    int rc = io_upload_as(s->local, s->location, s->io, err);
    unlink(s->local);
    return rc;
}

void ice_stage_end(ice_stage *s) {
    if (s->remote && s->local) unlink(s->local);
    if (s->dir) rmdir(s->dir);
    free(s->local);
    free(s->dir);
    s->local = NULL;
    s->dir = NULL;
}

void ice_stage_remove(const char *location, const io_identity *io) {
    if (location) io_remove_as(location, io, NULL);
}
