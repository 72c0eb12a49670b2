/*
 * io_identity_int.h: what io_local.c and io_write.c need of an io_identity (io_identity.c);
 * not for use outside src/io.
 */
#ifndef SQE_IO_IO_IDENTITY_INT_H
#define SQE_IO_IO_IDENTITY_INT_H

#include "io/io.h"
#include "io/io_s3.h"

/* The S3 context of id (client and credentials, valid while id is); NULL for a NULL id (then
 * io_s3.c uses the environment context). */
const io_s3_context *io_identity_s3(const io_identity *id);

#endif
