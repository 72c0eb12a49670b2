/*
 * s3_driver.c: command-line access to the S3 client for tests/s3/test_s3_io.py, using the
 * SQE_S3_* environment (io_s3.h).
 *
 *   s3_driver upload LOCAL s3://b/k     s3_upload_file (multipart above SQE_S3_PART_SIZE)
 *   s3_driver get s3://b/k OFF LEN      ranged GET, bytes to stdout
 *   s3_driver ls s3://b/prefix          "key<TAB>size" per object (ListObjectsV2 pages)
 *   s3_driver rm s3://b/k1 [k2 ...]     DeleteObjects of the keys of one bucket
 *   s3_driver many s3://b/k OFF:LEN...  io_s3_object_read_many of the ranges (coalesced, split,
 *                                       parallel); the bytes of each range to stdout in order
 *   s3_driver many-known s3://b/k OFF:LEN...  the same through io_s3_object_open_known (no HEAD)
 *   s3_driver threads N s3://b/k OFF:LEN...  N threads each doing the `many` read 5 times at
 *                                       once (connection sharing under ASan/TSan); prints the
 *                                       bytes of one read, after checking all reads agree
 * Prints "requests N" and "stats <s3_stats_format line>" on stderr at the end; exit status 0,
 * or 1 with "error: <message>".
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/io_s3.h"

typedef struct many_job {
    const char *uri;
    s3_range *ranges;
    uint32_t n;
    int rc;
    sqe_error err;
} many_job;

/* Parses "OFF:LEN" arguments into ranges with their own buffers. */
static s3_range *parse_ranges(char **args, int n) {
    s3_range *r = calloc((size_t)n, sizeof *r);
    for (int i = 0; r && i < n; i++) {
        char *colon = strchr(args[i], ':');
        if (!colon) return NULL;
        r[i].off = strtoull(args[i], NULL, 10);
        r[i].len = (size_t)strtoull(colon + 1, NULL, 10);
        r[i].buf = malloc(r[i].len ? r[i].len : 1);
    }
    return r;
}

static void free_ranges(s3_range *r, uint32_t n) {
    for (uint32_t i = 0; r && i < n; i++) free(r[i].buf);
    free(r);
}

static int read_many(const char *uri, s3_range *ranges, uint32_t n, bool known, sqe_error *err) {
    io_s3_object *o;
    uint64_t size;
    int64_t version;
    int rc = known ? io_s3_object_open_known(uri, NULL, &o, err)
                   : io_s3_object_open(uri, NULL, &o, &size, &version, err);
    if (rc) return rc;
    rc = io_s3_object_read_many(o, ranges, n, err);
    io_s3_object_close(o);
    return rc;
}

static void *many_thread(void *arg) {
    many_job *j = arg;
    for (int k = 0; k < 5 && !j->rc; k++) j->rc = read_many(j->uri, j->ranges, j->n, false, &j->err);
    return NULL;
}

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
    } else if ((strcmp(cmd, "many") == 0 || strcmp(cmd, "many-known") == 0) && argc >= 4) {
        uint32_t n = (uint32_t)(argc - 3);
        s3_range *r = parse_ranges(argv + 3, argc - 3);
        if (!r) {
            fprintf(stderr, "bad range\n");
            return 2;
        }
        rc = read_many(argv[2], r, n, strcmp(cmd, "many-known") == 0, &err);
        for (uint32_t i = 0; !rc && i < n; i++) fwrite(r[i].buf, 1, r[i].len, stdout);
        free_ranges(r, n);
    } else if (strcmp(cmd, "threads") == 0 && argc >= 5) {
        int nt = atoi(argv[2]);
        if (nt < 1 || nt > 64) return 2;
        uint32_t n = (uint32_t)(argc - 4);
        many_job jobs[64];
        pthread_t tids[64];
        for (int t = 0; t < nt; t++) {
            jobs[t] = (many_job){argv[3], parse_ranges(argv + 4, argc - 4), n, 0, {0}};
            if (!jobs[t].ranges) return 2;
        }
        for (int t = 0; t < nt; t++) pthread_create(&tids[t], NULL, many_thread, &jobs[t]);
        for (int t = 0; t < nt; t++) pthread_join(tids[t], NULL);
        for (int t = 0; t < nt && !rc; t++) {
            if (jobs[t].rc) {
                rc = jobs[t].rc;
                err = jobs[t].err;
            }
            for (uint32_t i = 0; !rc && i < n; i++)
                if (memcmp(jobs[t].ranges[i].buf, jobs[0].ranges[i].buf, jobs[0].ranges[i].len))
                    rc = err_set(&err, SQE_ERR_IO_ERROR, "thread %d read other bytes", t);
        }
        for (uint32_t i = 0; !rc && i < n; i++)
            fwrite(jobs[0].ranges[i].buf, 1, jobs[0].ranges[i].len, stdout);
        for (int t = 0; t < nt; t++) free_ranges(jobs[t].ranges, n);
    } else {
        fprintf(stderr, "usage: s3_driver upload|get|ls|rm|many|threads ...\n");
        return 2;
    }
    free(bucket);
    free(key);
    fprintf(stderr, "requests %llu\n", (unsigned long long)s3_client_requests(ctx->client));
    s3_stats st;
    s3_stats_get(&st);
    char line[512];
    s3_stats_format(&st, line, sizeof line);
    fprintf(stderr, "stats %s\n", line);
    return rc ? fail(&err) : 0;
}
