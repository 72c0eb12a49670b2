/*
 * avro_write.c: the object container file writer (Avro 1.11 spec "Object Container Files") and
 * the binary encoder ("Binary Encoding") of avro_value trees.
 *
 * INTERFACE: avro_writer_open, avro_writer_schema, avro_writer_arena, avro_writer_append,
 *            avro_writer_count, avro_writer_finish, avro_writer_destroy
 * NOTES:
 *   - The whole file is built in memory (manifests are small); the caller stores the bytes.
 *   - Header: magic, one metadata map block with "avro.schema" (the caller's text, verbatim),
 *     "avro.codec" (always written, also "null", as Avro Java and fastavro do) and the
 *     caller's entries, then a 0 terminator and the sync marker.
 *   - Arrays and maps are written as one block with a positive count followed by the 0
 *     terminator (no byte-size prefix), as the reference implementations do.
 *   - A record that does not match the schema is rejected before anything of it reaches the
 *     block (the block is cut back to its previous length), so the writer stays usable.
 *   - Codecs: deflate is raw RFC 1951 (windowBits -15); snappy is one snappy block followed by
 *     the big-endian CRC-32 (zlib polynomial) of the uncompressed block.
 */
#include "format/avro/avro_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/random.h>

#include <snappy-c.h>
#include <zlib.h>

#include "common/strbuf.h"

struct avro_writer {
    arena a;                /* schema and caller-built values */
    avro_schema *schema;
    avro_writer_opts opts;
    strbuf out;             /* the file so far */
    strbuf block;           /* encoded objects of the open block */
    uint32_t block_n;       /* objects in the open block */
    uint64_t count;         /* objects appended */
    uint8_t sync[16];
    bool failed, finished;
};

static int bad_value(sqe_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad_value(sqe_error *err, const char *fmt, ...) {
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "Invalid Avro value: %s", msg);
}

/* zig-zag varint (spec "Primitive Types": int and long). */
static void put_long(strbuf *sb, int64_t v) {
    uint64_t z = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
    char tmp[10];
    size_t n = 0;
    while (z >= 0x80) {
        tmp[n++] = (char)(z | 0x80);
        z >>= 7;
    }
    tmp[n++] = (char)z;
    strbuf_append(sb, tmp, n);
}

static void put_bytes(strbuf *sb, const void *p, size_t n) {
    put_long(sb, (int64_t)n);
    if (n) strbuf_append(sb, p, n);
}

static int encode(strbuf *sb, const avro_schema *s, const avro_value *v, int depth,
                  sqe_error *err) {
    if (depth > AVRO_MAX_DEPTH) return bad_value(err, "nested too deeply");
    if (!v) return bad_value(err, "missing value for %s", avro_type_name(s->type));
    switch (s->type) {
    case AVRO_NULL: return SQE_OK;
    case AVRO_BOOLEAN: strbuf_putc(sb, v->b ? 1 : 0); return SQE_OK;
    case AVRO_INT: put_long(sb, v->i); return SQE_OK;
    case AVRO_LONG: put_long(sb, v->l); return SQE_OK;
    case AVRO_FLOAT: strbuf_append(sb, (const char *)&v->f, 4); return SQE_OK; /* little-endian */
    case AVRO_DOUBLE: strbuf_append(sb, (const char *)&v->d, 8); return SQE_OK;
    case AVRO_BYTES:
    case AVRO_STRING:
        if (!v->bytes.data && v->bytes.len) return bad_value(err, "bytes without data");
        put_bytes(sb, v->bytes.data, v->bytes.len);
        return SQE_OK;
    case AVRO_FIXED:
        if (v->bytes.len != s->size || (!v->bytes.data && s->size))
            return bad_value(err, "fixed %s needs %u bytes, got %zu", s->name, s->size,
                             v->bytes.len);
        if (s->size) strbuf_append(sb, (const char *)v->bytes.data, s->size);
        return SQE_OK;
    case AVRO_ENUM:
        if (v->i < 0 || (uint32_t)v->i >= s->n_symbols)
            return bad_value(err, "enum index %d out of range for %s", v->i, s->name);
        put_long(sb, v->i);
        return SQE_OK;
    case AVRO_RECORD:
        if (!v->rec.fields && s->n_fields) return bad_value(err, "record %s without fields", s->name);
        for (uint32_t i = 0; i < s->n_fields; i++) {
            int rc = encode(sb, s->fields[i].type, &v->rec.fields[i], depth + 1, err);
            if (rc != SQE_OK) {
                err_prefix(err, "field \"%s\"", s->fields[i].name);
                return rc;
            }
        }
        return SQE_OK;
    case AVRO_ARRAY:
        if (v->arr.n && !v->arr.items) return bad_value(err, "array without items");
        if (v->arr.n) {
            put_long(sb, v->arr.n);
            for (uint32_t i = 0; i < v->arr.n; i++)
                SQE_TRY(encode(sb, s->items, &v->arr.items[i], depth + 1, err));
        }
        put_long(sb, 0);
        return SQE_OK;
    case AVRO_MAP:
        if (v->map.n && (!v->map.keys || !v->map.values))
            return bad_value(err, "map without keys or values");
        if (v->map.n) {
            put_long(sb, v->map.n);
            for (uint32_t i = 0; i < v->map.n; i++) {
                if (!v->map.keys[i].data && v->map.keys[i].len)
                    return bad_value(err, "map key without data");
                put_bytes(sb, v->map.keys[i].data, v->map.keys[i].len);
                SQE_TRY(encode(sb, s->values, &v->map.values[i], depth + 1, err));
            }
        }
        put_long(sb, 0);
        return SQE_OK;
    case AVRO_UNION:
        if (v->u.branch >= s->n_branches)
            return bad_value(err, "union branch %u out of range (%u branches)", v->u.branch,
                             s->n_branches);
        put_long(sb, v->u.branch);
        return encode(sb, s->branches[v->u.branch], v->u.value, depth + 1, err);
    }
    return bad_value(err, "bad schema node");
}

static int compress_block(avro_writer *w, const uint8_t *in, size_t in_len, uint8_t **out,
                          size_t *out_len, sqe_error *err) {
    *out = NULL;
    *out_len = 0;
    if (w->opts.codec == AVRO_CODEC_DEFLATE) {
        z_stream zs;
        memset(&zs, 0, sizeof zs);
        int level = w->opts.deflate_level ? w->opts.deflate_level : Z_DEFAULT_COMPRESSION;
        if (deflateInit2(&zs, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
            return err_nomem(err, "Avro deflate");
        size_t cap = deflateBound(&zs, (uLong)in_len);
        uint8_t *buf = malloc(cap);
        if (!buf) {
            deflateEnd(&zs);
            return err_nomem(err, "Avro deflate");
        }
        zs.next_in = (Bytef *)(uintptr_t)in;
        zs.avail_in = (uInt)in_len;
        zs.next_out = buf;
        zs.avail_out = (uInt)cap;
        int zrc = deflate(&zs, Z_FINISH);
        size_t n = cap - zs.avail_out;
        deflateEnd(&zs);
        if (zrc != Z_STREAM_END) {
            free(buf);
            return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "Avro deflate failed (%d)", zrc);
        }
        *out = buf;
        *out_len = n;
        return SQE_OK;
    }
    /* snappy */
    size_t cap = snappy_max_compressed_length(in_len) + 4;
    uint8_t *buf = malloc(cap);
    if (!buf) return err_nomem(err, "Avro snappy");
    size_t n = cap - 4;
    if (snappy_compress((const char *)in, in_len, (char *)buf, &n) != SNAPPY_OK) {
        free(buf);
        return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "Avro snappy compression failed");
    }
    uint32_t crc = (uint32_t)crc32_z(0L, in, in_len);
    buf[n] = (uint8_t)(crc >> 24);
    buf[n + 1] = (uint8_t)(crc >> 16);
    buf[n + 2] = (uint8_t)(crc >> 8);
    buf[n + 3] = (uint8_t)crc;
    *out = buf;
    *out_len = n + 4;
    return SQE_OK;
}

/* Writes the open block (count, size, data, sync) to the output. */
static int flush_block(avro_writer *w, sqe_error *err) {
    if (w->block_n == 0) return SQE_OK;
    const uint8_t *data = (const uint8_t *)w->block.data;
    size_t len = w->block.len;
    uint8_t *packed = NULL;
    if (w->opts.codec != AVRO_CODEC_NULL) {
        SQE_TRY(compress_block(w, data, len, &packed, &len, err));
        data = packed;
    }
    put_long(&w->out, w->block_n);
    put_long(&w->out, (int64_t)len);
    strbuf_append(&w->out, (const char *)data, len);
    strbuf_append(&w->out, (const char *)w->sync, 16);
    free(packed);
    w->block.len = 0;
    if (w->block.data) w->block.data[0] = 0;
    w->block_n = 0;
    if (w->out.failed) return err_nomem(err, "Avro output");
    return SQE_OK;
}

static void random_sync(uint8_t sync[16]) {
    if (getrandom(sync, 16, 0) == 16) return;
    /* Fallback: any 16 bytes that differ between files will do. */
    uint64_t x = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32) ^ (uint64_t)(uintptr_t)sync;
    for (int i = 0; i < 16; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        sync[i] = (uint8_t)x;
    }
}

int avro_writer_open(const char *schema_json, size_t schema_len, const avro_kv *meta,
                     uint32_t n_meta, const avro_writer_opts *opts, avro_writer **out,
                     sqe_error *err) {
    *out = NULL;
    avro_writer_opts o = opts ? *opts : (avro_writer_opts){0};
    if (o.codec != AVRO_CODEC_NULL && o.codec != AVRO_CODEC_DEFLATE &&
        o.codec != AVRO_CODEC_SNAPPY)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "unknown Avro codec %d", (int)o.codec);
    if (o.deflate_level < 0 || o.deflate_level > 9)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "deflate level must be 1..9");
    if (o.block_records == 0) o.block_records = 1000;
    if (o.block_bytes == 0) o.block_bytes = (size_t)1 << 20;
    if (o.block_bytes > AVRO_MAX_BLOCK_BYTES / 2) o.block_bytes = AVRO_MAX_BLOCK_BYTES / 2;
    for (uint32_t i = 0; i < n_meta; i++) {
        if (!meta[i].key || (!meta[i].value && meta[i].value_len))
            return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "Avro metadata entry %u is empty", i);
        if (strcmp(meta[i].key, "avro.schema") == 0 || strcmp(meta[i].key, "avro.codec") == 0)
            return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                           "Avro metadata key %s is set by the writer", meta[i].key);
        for (uint32_t k = 0; k < i; k++)
            if (strcmp(meta[i].key, meta[k].key) == 0)
                return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                               "Avro metadata key %.100s appears twice", meta[i].key);
    }
    avro_writer *w = calloc(1, sizeof *w);
    if (!w) return err_nomem(err, "Avro writer");
    arena_init(&w->a, NULL);
    strbuf_init(&w->out);
    strbuf_init(&w->block);
    w->opts = o;
    int rc = avro_schema_parse(&w->a, schema_json, schema_len, &w->schema, err);
    if (rc != SQE_OK) {
        avro_writer_destroy(w);
        return rc;
    }
    if (o.sync)
        memcpy(w->sync, o.sync, 16);
    else
        random_sync(w->sync);
    w->opts.sync = NULL;

    static const char *codec_names[] = {"null", "deflate", "snappy"};
    const char *codec = codec_names[o.codec];
    strbuf_append(&w->out, "Obj\x01", 4);
    put_long(&w->out, 2 + (int64_t)n_meta);
    put_bytes(&w->out, "avro.schema", 11);
    put_bytes(&w->out, schema_json, schema_len);
    put_bytes(&w->out, "avro.codec", 10);
    put_bytes(&w->out, codec, strlen(codec));
    for (uint32_t i = 0; i < n_meta; i++) {
        put_bytes(&w->out, meta[i].key, strlen(meta[i].key));
        put_bytes(&w->out, meta[i].value, meta[i].value_len);
    }
    put_long(&w->out, 0);
    strbuf_append(&w->out, (const char *)w->sync, 16);
    if (w->out.failed) {
        avro_writer_destroy(w);
        return err_nomem(err, "Avro output");
    }
    *out = w;
    return SQE_OK;
}

const avro_schema *avro_writer_schema(const avro_writer *w) { return w->schema; }

arena *avro_writer_arena(avro_writer *w) { return &w->a; }

uint64_t avro_writer_count(const avro_writer *w) { return w->count; }

int avro_writer_append(avro_writer *w, const avro_value *v, sqe_error *err) {
    if (w->failed || w->finished)
        return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "Avro writer is %s",
                       w->finished ? "finished" : "failed");
    size_t mark = w->block.len;
    int rc = encode(&w->block, w->schema, v, 0, err);
    if (rc == SQE_OK && w->block.len > AVRO_MAX_BLOCK_BYTES / 2 && w->block_n == 0)
        rc = bad_value(err, "record larger than %zu bytes", AVRO_MAX_BLOCK_BYTES / 2);
    if (w->block.failed) {
        w->failed = true;
        return err_nomem(err, "Avro block");
    }
    if (rc != SQE_OK) {
        w->block.len = mark;
        if (w->block.data) w->block.data[mark] = 0;
        return rc;
    }
    w->block_n++;
    w->count++;
    if (w->block_n >= w->opts.block_records || w->block.len >= w->opts.block_bytes) {
        rc = flush_block(w, err);
        if (rc != SQE_OK) w->failed = true;
        return rc;
    }
    return SQE_OK;
}

int avro_writer_finish(avro_writer *w, uint8_t **bytes, size_t *len, sqe_error *err) {
    *bytes = NULL;
    *len = 0;
    if (w->failed || w->finished)
        return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "Avro writer is %s",
                       w->finished ? "finished" : "failed");
    int rc = flush_block(w, err);
    if (rc != SQE_OK) {
        w->failed = true;
        return rc;
    }
    w->finished = true;
    *len = w->out.len;
    *bytes = (uint8_t *)strbuf_move(&w->out);
    if (!*bytes) {
        *len = 0;
        return err_nomem(err, "Avro output");
    }
    return SQE_OK;
}

void avro_writer_destroy(avro_writer *w) {
    if (!w) return;
    strbuf_reset(&w->out);
    strbuf_reset(&w->block);
    arena_destroy(&w->a);
    free(w);
}
