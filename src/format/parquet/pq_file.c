/*
 * pq_file.c: opening a Parquet file: the footer read through io/, decoded, its schema built,
 * and the result cached for later queries.
 *
 * INTERFACE: pq_file_open, pq_file_release, pq_file_cache_clear, pq_file_dictionary_size.
 * NOTES
 *   The footer is fetched with one read of the file's last 64 KiB (a second read only for larger
 *   footers). The cache is a small array under a mutex: lookups compare path, size and version;
 *   hits move to the front; beyond CACHE_BYTES of decoded footers the least recently used
 *   entries are dropped (an entry in use lives on until its last pq_file_release).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "format/parquet/pq_reader.h"

#define TAIL_READ ((size_t)64 << 10)
#define CACHE_ENTRIES 256
#define CACHE_BYTES ((size_t)256 << 20)

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static pq_file *cache[CACHE_ENTRIES]; /* most recently used first */
static uint32_t cache_n;
static size_t cache_bytes;

static void file_free(pq_file *f) {
    arena_destroy(&f->a);
    io_identity_unref(f->id);
    free(f->path);
    free(f);
}

void pq_file_release(pq_file *f) {
    if (f && atomic_fetch_sub(&f->refs, 1) == 1) file_free(f);
}

static int read_footer(io_file *io, pq_file *f, sqe_error *err) {
    uint64_t size = io_size(io);
    if (size < 12)
        return err_set(err, SQE_ERR_INVALID_FILE, "Invalid Parquet file %s: too short (%llu bytes)",
                       f->path, (unsigned long long)size);
    size_t tail_len = size < TAIL_READ ? (size_t)size : TAIL_READ;
    uint8_t *tail = malloc(tail_len);
    if (!tail) return err_nomem(err, "Parquet footer");
    uint8_t head[4];
    int rc = io_read(io, 0, 4, head, err);
    if (!rc) rc = io_read(io, size - tail_len, tail_len, tail, err);
    uint32_t footer_len = 0;
    if (!rc) rc = pq_meta_check_ends(head, tail + tail_len - 8, size, &footer_len, err);
    const uint8_t *footer = NULL;
    uint8_t *big = NULL;
    if (!rc) {
        if ((size_t)footer_len + 8 <= tail_len) {
            footer = tail + tail_len - 8 - footer_len;
        } else {
            big = malloc(footer_len);
            if (!big) rc = err_nomem(err, "Parquet footer");
            if (!rc) rc = io_read(io, size - 8 - footer_len, footer_len, big, err);
            footer = big;
        }
    }
    if (!rc) rc = pq_meta_decode_footer(&f->a, footer, footer_len, &f->meta, err);
    free(tail);
    free(big);
    if (!rc) rc = pq_schema_build(&f->a, f->meta, &f->schema, err);
    if (rc && err && !strstr(err->message, f->path)) {
        char msg[sizeof err->message];
        if (snprintf(msg, sizeof msg, "%s (file %s)", err->message, f->path) > 0)
            memcpy(err->message, msg, sizeof msg);
    }
    if (rc) return rc;
    f->footer_bytes = footer_len;
    for (uint32_t g = 0; g < f->meta->n_row_groups; g++)
        f->total_rows += (uint64_t)f->meta->row_groups[g].num_rows;
    return SQE_OK;
}

static void cache_evict_locked(void) {
    while (cache_n > 0 && (cache_bytes > CACHE_BYTES || cache_n == CACHE_ENTRIES)) {
        pq_file *victim = cache[--cache_n];
        cache_bytes -= victim->footer_bytes * 4;
        pq_file_release(victim);
    }
}

int pq_file_open(const char *path, pq_file **out, sqe_error *err) {
    return pq_file_open_as(path, NULL, out, err);
}

int pq_file_open_as(const char *path, const io_identity *id, pq_file **out, sqe_error *err) {
    *out = NULL;
    io_file *io;
    SQE_TRY(io_open_as(path, id, &io, err));
    uint64_t size = io_size(io);
    int64_t version = io_version(io);
    pthread_mutex_lock(&cache_lock);
    for (uint32_t i = 0; i < cache_n; i++) {
        pq_file *c = cache[i];
        /* identities are interned (io_identity_create): same credentials, same pointer */
        if (c->id == id && c->size == size && c->version == version &&
            strcmp(c->path, path) == 0) {
            memmove(cache + 1, cache, i * sizeof *cache);
            cache[0] = c;
            atomic_fetch_add(&c->refs, 1);
            pthread_mutex_unlock(&cache_lock);
            io_close(io);
            *out = c;
            return SQE_OK;
        }
    }
    pthread_mutex_unlock(&cache_lock);
    pq_file *f = calloc(1, sizeof *f);
    if (!f || !(f->path = strdup(path))) {
        free(f);
        io_close(io);
        return err_nomem(err, "Parquet file");
    }
    arena_init(&f->a, NULL);
    atomic_init(&f->refs, 1);
    f->id = io_identity_ref(id);
    f->size = size;
    f->version = version;
    int rc = read_footer(io, f, err);
    io_close(io);
    if (rc) {
        file_free(f);
        return rc;
    }
    pthread_mutex_lock(&cache_lock);
    /* Drop a stale entry for the same path and identity. */
    for (uint32_t i = 0; i < cache_n; i++) {
        if (cache[i]->id == id && strcmp(cache[i]->path, path) == 0) {
            pq_file *old = cache[i];
            memmove(cache + i, cache + i + 1, (cache_n - i - 1) * sizeof *cache);
            cache_n--;
            cache_bytes -= old->footer_bytes * 4;
            pq_file_release(old);
            break;
        }
    }
    cache_bytes += f->footer_bytes * 4;
    cache_evict_locked();
    memmove(cache + 1, cache, cache_n * sizeof *cache);
    cache[0] = f;
    cache_n++;
    atomic_fetch_add(&f->refs, 1);
    pthread_mutex_unlock(&cache_lock);
    *out = f;
    return SQE_OK;
}

void pq_file_cache_clear(void) {
    pthread_mutex_lock(&cache_lock);
    while (cache_n > 0) pq_file_release(cache[--cache_n]);
    cache_bytes = 0;
    pthread_mutex_unlock(&cache_lock);
}

int64_t pq_file_dictionary_size(const pq_file *f, uint32_t g, uint32_t leaf) {
    if (g >= f->meta->n_row_groups || leaf >= f->meta->row_groups[g].n_columns) return -1;
    const pq_column_chunk *cc = &f->meta->row_groups[g].columns[leaf];
    if (!cc->has_meta_data || cc->file_path) return -1;
    const pq_column_meta *cm = &cc->meta_data;
    int64_t off = cm->data_page_offset;
    if (cm->has_dictionary_page_offset && cm->dictionary_page_offset > 0 &&
        cm->dictionary_page_offset < off)
        off = cm->dictionary_page_offset;
    if (off < 4 || (uint64_t)off >= f->size) return -1;
    uint8_t buf[512];
    size_t len = f->size - (uint64_t)off < sizeof buf ? (size_t)(f->size - (uint64_t)off) : sizeof buf;
    io_file *io;
    sqe_error err;
    if (io_open_known(f->path, f->id, f->size, f->version, &io, &err) != SQE_OK) return -1;
    int rc = io_read(io, (uint64_t)off, len, buf, &err);
    io_close(io);
    if (rc) return -1;
    arena a;
    arena_init(&a, NULL);
    pq_page_header h;
    size_t hlen;
    rc = pq_meta_decode_page_header(&a, buf, len, &h, &hlen, &err);
    arena_destroy(&a);
    if (rc || h.type != PQ_PAGE_DICTIONARY || !h.has_dictionary_page_header) return -1;
    return h.dictionary_page_header.num_values >= 0 ? h.dictionary_page_header.num_values : -1;
}
