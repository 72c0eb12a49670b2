/*
 * s3_driver.c: command-line access to the S3 client for tests/s3/test_s3_io.py, using the
 * SQE_S3_* environment (io_s3.h).
 *
 *   s3_driver upload LOCAL s3://b/k     s3_upload_file (multipart above SQE_S3_PART_SIZE)
 *   s3_driver get s3://b/k OFF LEN      ranged GET, bytes to stdout
 *   s3_driver ls s3://b/prefix          "key<TAB>size" per object (ListObjectsV2 pages)
 *   s3_driver rm s3://b/k1 [k2 ...]     DeleteObjects of the keys of one bucket
 * Prints "requests N" on stderr at the end; exit status 0, or 1 with "error: <message>".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/io_s3.h"

static int fail(const sqe_error *err) {
    fprintf(stderr, "error: %s\n", err->message);
    return 1;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: s3_driver upload|get|ls|rm ...\n");
        return 2;
    }
    const io_s3_context *ctx;
    sqe_error err = {0};
    if (io_s3_env_context(&ctx, &err)) return fail(&err);
    const char *cmd = argv[1];
    int rc = 0;
    char *bucket = NULL, *key = NULL;
    if (strcmp(cmd, "upload") == 0 && argc == 4) {
        rc = io_s3_upload_file(argv[2], argv[3], NULL, &err);
    } else if (strcmp(cmd, "get") == 0 && argc == 5) {
        size_t len = (size_t)strtoull(argv[4], NULL, 10);
        char *buf = malloc(len ? len : 1);
        rc = io_s3_parse_uri(argv[2], &bucket, &key, &err);
        if (!rc) rc = s3_get_range(ctx->client, &ctx->cred, bucket, key,
                                   strtoull(argv[3], NULL, 10), len, buf, &err);
        if (!rc) fwrite(buf, 1, len, stdout);
        free(buf);
    } else if (strcmp(cmd, "ls") == 0 && argc == 3) {
        rc = io_s3_parse_uri(argv[2], &bucket, &key, &err);
        s3_object_entry *items = NULL;
        uint32_t n = 0;
        if (!rc) rc = s3_list(ctx->client, &ctx->cred, bucket, key, &items, &n, &err);
        for (uint32_t i = 0; !rc && i < n; i++)
            printf("%s\t%llu\n", items[i].key, (unsigned long long)items[i].size);
        s3_entries_free(items, n);
    } else if (strcmp(cmd, "rm") == 0) {
        const char **keys = calloc((size_t)argc, sizeof *keys);
        char **owned = calloc((size_t)argc, sizeof *owned);
        int n = 0;
        for (int i = 2; !rc && i < argc; i++) {
            char *b;
            rc = io_s3_parse_uri(argv[i], &b, &owned[n], &err);
            if (rc) break;
            if (!bucket) bucket = b;
            else free(b);
            keys[n] = owned[n];
            n++;
        }
        if (!rc) rc = s3_delete_objects(ctx->client, &ctx->cred, bucket, keys, (uint32_t)n, &err);
        for (int i = 0; i < n; i++) free(owned[i]);
        free(owned);
        free(keys);
    } else {
        fprintf(stderr, "usage: s3_driver upload|get|ls|rm ...\n");
        return 2;
    }
    free(bucket);
    free(key);
    fprintf(stderr, "requests %llu\n", (unsigned long long)s3_client_requests(ctx->client));
    return rc ? fail(&err) : 0;
}
