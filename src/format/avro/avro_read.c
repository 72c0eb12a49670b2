/*
 * avro_read.c: the object container file reader (Avro 1.11 spec "Object Container Files") and
 * the generic decoder of the binary encoding ("Binary Encoding") into avro_value trees.
 *
 * INTERFACE: avro_reader_open, avro_reader_schema, avro_reader_meta, avro_reader_meta_count,
 *            avro_reader_meta_at, avro_reader_codec, avro_reader_set_value_arena,
 *            avro_reader_next, avro_reader_close
 * NOTES:
 *   - File = magic "Obj" 0x01, metadata map<bytes> (may span several map blocks), 16-byte sync
 *     marker, then blocks of: long object count, long byte size, the (compressed) objects and
 *     the sync marker again. A block must decode to exactly its count of objects with no bytes
 *     left over, and its trailing marker must equal the header's; anything else is corruption.
 *   - Codecs (spec "Required Codecs", "Optional Codecs"): "null"; "deflate" is raw RFC 1951
 *     data (zlib-wrapped data is accepted too, as a fallback), and bytes after the end of the
 *     deflate stream are ignored: fastavro leaves 3 bytes of the zlib trailer there and Avro
 *     Java's raw Inflater ignores them; "snappy" is one snappy block followed by the big-endian
 *     CRC-32 of the uncompressed data, which is checked. Other codecs are NOT_SUPPORTED.
 *     Uncompressed blocks are capped at AVRO_MAX_BLOCK_BYTES.
 *   - Hostile input: varints take at most 10 bytes, ints must fit 32 bits; every length is
 *     checked against the bytes left; an array/map block count is checked against the least
 *     encoded size of its items, and each block may produce at most 8 values per byte plus
 *     4096 (values of zero-size types such as null cost no bytes), so allocation stays linear
 *     in the input. Value nesting is capped at AVRO_MAX_DEPTH.
 *   - Strings, bytes and fixed values are copied into the value arena with a trailing NUL.
 *     A string is not checked for valid UTF-8 (Avro Java does not either).
 *   - One decompression buffer (heap) is reused from block to block; avro_reader_close frees it.
 */
#include "format/avro/avro_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <snappy-c.h>
#include <zlib.h>

#define AVRO_MAGIC "Obj\x01"

typedef struct meta_entry {
    const char *key;
    const uint8_t *value;  /* NUL-terminated copy */
    size_t len;
} meta_entry;

struct avro_reader {
    arena *a;                  /* reader, schema, metadata */
    arena *values;             /* decoded values (a unless redirected) */
    const uint8_t *buf;        /* the whole file */
    size_t len;
    size_t pos;                /* next unread byte of buf (the next block) */
    avro_schema *schema;
    meta_entry *meta;
    uint32_t n_meta;
    const char *codec_name;
    avro_codec codec;
    uint8_t sync[16];
    uint8_t *block;            /* decompression buffer (heap) */
    size_t block_cap;
    const uint8_t *cur, *end;  /* unread part of the current block's objects */
    int64_t left_in_block;     /* objects not yet decoded from the current block */
    int64_t budget;            /* values the current block may still produce */
    bool failed;
};

/* A cursor over bytes; decode errors go through the reader so they carry the same prefix. */
typedef struct cursor {
    const uint8_t *p, *end;
} cursor;

static int bad(sqe_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad(sqe_error *err, const char *fmt, ...) {
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return err_set(err, SQE_ERR_INVALID_FILE, "Invalid Avro file: %s", msg);
}

/* Avro "Binary Encoding": long = zig-zag varint of at most 10 bytes. */
static int read_long(cursor *c, int64_t *out, sqe_error *err) {
    uint64_t v = 0;
    for (int i = 0; i < 10; i++) {
        if (c->p >= c->end) return bad(err, "truncated varint");
        uint8_t byte = *c->p++;
        if (i == 9 && byte > 1) return bad(err, "varint longer than 64 bits");
        v |= (uint64_t)(byte & 0x7f) << (7 * i);
        if (!(byte & 0x80)) {
            *out = (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
            return SQE_OK;
        }
    }
    return bad(err, "varint longer than 10 bytes");
}

static int read_int(cursor *c, int32_t *out, sqe_error *err) {
    int64_t v;
    SQE_TRY(read_long(c, &v, err));
    if (v < INT32_MIN || v > INT32_MAX) return bad(err, "int value out of range");
    *out = (int32_t)v;
    return SQE_OK;
}

/* A length prefix (bytes, string, metadata): non-negative and no more than the bytes left. */
static int read_len(cursor *c, size_t *out, sqe_error *err) {
    int64_t v;
    SQE_TRY(read_long(c, &v, err));
    if (v < 0) return bad(err, "negative length");
    if ((uint64_t)v > (uint64_t)(c->end - c->p)) return bad(err, "length exceeds the data left");
    *out = (size_t)v;
    return SQE_OK;
}

static int copy_bytes(arena *a, cursor *c, size_t n, avro_bytes *out, sqe_error *err) {
    uint8_t *d = arena_alloc(a, n + 1);
    if (!d) return err_nomem(err, "Avro value");
    if (n) memcpy(d, c->p, n);
    d[n] = 0;
    c->p += n;
    out->data = d;
    out->len = n;
    return SQE_OK;
}

/* Block count of an array or map (spec "Arrays": a negative count is followed by the block's
 * byte size). Checks the count against the bytes left and the value budget. */
static int read_block_count(avro_reader *r, cursor *c, uint32_t item_min, uint64_t have,
                            int64_t *out, sqe_error *err) {
    int64_t n;
    SQE_TRY(read_long(c, &n, err));
    if (n < 0) {
        if (n == INT64_MIN) return bad(err, "bad block count");
        n = -n;
        int64_t size;
        SQE_TRY(read_long(c, &size, err));
        if (size < 0 || (uint64_t)size > (uint64_t)(c->end - c->p))
            return bad(err, "block size exceeds the data left");
    }
    if (item_min && (uint64_t)n > (uint64_t)(c->end - c->p) / item_min)
        return bad(err, "item count exceeds the data left");
    if (n > r->budget || have + (uint64_t)n > UINT32_MAX)
        return bad(err, "too many values for the block size");
    r->budget -= n;
    *out = n;
    return SQE_OK;
}

static int decode(avro_reader *r, cursor *c, const avro_schema *s, int depth, avro_value *v,
                  sqe_error *err);

/* Reads array or map blocks until the 0 terminator, growing items (and keys) in the arena. */
static int decode_blocks(avro_reader *r, cursor *c, const avro_schema *s, int depth,
                         avro_value *v, sqe_error *err) {
    bool is_map = s->type == AVRO_MAP;
    const avro_schema *item = is_map ? s->values : s->items;
    uint32_t item_min = item->min_size + (is_map ? 1 : 0);
    avro_value *items = NULL;
    avro_bytes *keys = NULL;
    uint64_t n = 0;
    for (;;) {
        int64_t count = 0;
        SQE_TRY(read_block_count(r, c, item_min, n, &count, err));
        if (count == 0) break;
        uint64_t total = n + (uint64_t)count;
        avro_value *grown = ARENA_ARRAY(r->values, avro_value, total);
        avro_bytes *grown_keys = is_map ? ARENA_ARRAY(r->values, avro_bytes, total) : NULL;
        if (!grown || (is_map && !grown_keys)) return err_nomem(err, "Avro value");
        if (n) {
            memcpy(grown, items, n * sizeof *items);
            if (is_map) memcpy(grown_keys, keys, n * sizeof *keys);
        }
        items = grown;
        keys = grown_keys;
        for (uint64_t i = n; i < total; i++) {
            if (is_map) {
                size_t klen;
                SQE_TRY(read_len(c, &klen, err));
                SQE_TRY(copy_bytes(r->values, c, klen, &keys[i], err));
            }
            SQE_TRY(decode(r, c, item, depth + 1, &items[i], err));
        }
        n = total;
    }
    if (is_map) {
        v->map.keys = keys;
        v->map.values = items;
        v->map.n = (uint32_t)n;
    } else {
        v->arr.items = items;
        v->arr.n = (uint32_t)n;
    }
    return SQE_OK;
}

static int decode(avro_reader *r, cursor *c, const avro_schema *s, int depth, avro_value *v,
                  sqe_error *err) {
    if (depth > AVRO_MAX_DEPTH) return bad(err, "values nested too deeply");
    v->schema = s;
    switch (s->type) {
    case AVRO_NULL: return SQE_OK;
    case AVRO_BOOLEAN:
        if (c->p >= c->end) return bad(err, "truncated boolean");
        if (*c->p > 1) return bad(err, "boolean byte %u is not 0 or 1", *c->p);
        v->b = *c->p++ == 1;
        return SQE_OK;
    case AVRO_INT: return read_int(c, &v->i, err);
    case AVRO_LONG: return read_long(c, &v->l, err);
    case AVRO_FLOAT:
        if (c->end - c->p < 4) return bad(err, "truncated float");
        memcpy(&v->f, c->p, 4); /* little-endian (x86-64, aarch64) */
        c->p += 4;
        return SQE_OK;
    case AVRO_DOUBLE:
        if (c->end - c->p < 8) return bad(err, "truncated double");
        memcpy(&v->d, c->p, 8);
        c->p += 8;
        return SQE_OK;
    case AVRO_BYTES:
    case AVRO_STRING: {
        size_t n;
        SQE_TRY(read_len(c, &n, err));
        return copy_bytes(r->values, c, n, &v->bytes, err);
    }
    case AVRO_FIXED:
        if ((size_t)(c->end - c->p) < s->size) return bad(err, "truncated fixed");
        return copy_bytes(r->values, c, s->size, &v->bytes, err);
    case AVRO_ENUM:
        SQE_TRY(read_int(c, &v->i, err));
        if (v->i < 0 || (uint32_t)v->i >= s->n_symbols)
            return bad(err, "enum index %d out of range for %s", v->i, s->name);
        return SQE_OK;
    case AVRO_RECORD: {
        if (--r->budget < 0) return bad(err, "too many values for the block size");
        v->rec.fields = ARENA_ARRAY(r->values, avro_value, s->n_fields ? s->n_fields : 1);
        if (!v->rec.fields) return err_nomem(err, "Avro value");
        for (uint32_t i = 0; i < s->n_fields; i++)
            SQE_TRY(decode(r, c, s->fields[i].type, depth + 1, &v->rec.fields[i], err));
        return SQE_OK;
    }
    case AVRO_ARRAY:
    case AVRO_MAP: return decode_blocks(r, c, s, depth, v, err);
    case AVRO_UNION: {
        int64_t idx;
        SQE_TRY(read_long(c, &idx, err));
        if (idx < 0 || idx >= s->n_branches)
            return bad(err, "union branch %lld out of range", (long long)idx);
        v->u.branch = (uint32_t)idx;
        if (!(v->u.value = ARENA_NEW(r->values, avro_value))) return err_nomem(err, "Avro value");
        return decode(r, c, s->branches[idx], depth + 1, v->u.value, err);
    }
    }
    return bad(err, "bad schema node");
}

/* ---- codecs ------------------------------------------------------------------------------ */

static int ensure_block(avro_reader *r, size_t n, sqe_error *err) {
    if (n <= r->block_cap) return SQE_OK;
    size_t cap = r->block_cap ? r->block_cap : 4096;
    while (cap < n) cap *= 2;
    if (cap > AVRO_MAX_BLOCK_BYTES) cap = AVRO_MAX_BLOCK_BYTES;
    uint8_t *b = realloc(r->block, cap);
    if (!b) return err_nomem(err, "Avro block");
    r->block = b;
    r->block_cap = cap;
    return SQE_OK;
}

/* Inflates in[0..in_len) into r->block; window_bits -15 (raw) or 15 + 32 (zlib/gzip). Returns
 * SQE_OK, or INVALID_FILE with *data_error set when the stream is corrupt. */
static int inflate_block(avro_reader *r, const uint8_t *in, size_t in_len, int window_bits,
                         size_t *out_len, sqe_error *err) {
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (inflateInit2(&zs, window_bits) != Z_OK) return err_nomem(err, "Avro deflate");
    zs.next_in = (Bytef *)(uintptr_t)in;
    size_t in_left = in_len;
    size_t produced = 0;
    int zrc = Z_OK;
    int rc = SQE_OK;
    while (zrc != Z_STREAM_END) {
        if (produced == r->block_cap) {
            if (r->block_cap >= AVRO_MAX_BLOCK_BYTES) {
                rc = bad(err, "deflate block larger than %zu bytes", AVRO_MAX_BLOCK_BYTES);
                break;
            }
            if ((rc = ensure_block(r, r->block_cap + 1, err)) != SQE_OK) break;
        }
        zs.next_out = r->block + produced;
        zs.avail_out = (uInt)(r->block_cap - produced > UINT32_MAX ? UINT32_MAX
                                                                  : r->block_cap - produced);
        uInt chunk = in_left > UINT32_MAX ? UINT32_MAX : (uInt)in_left;
        zs.avail_in = chunk;
        uInt out_before = zs.avail_out;
        zrc = inflate(&zs, Z_NO_FLUSH);
        in_left -= chunk - zs.avail_in;
        produced += out_before - zs.avail_out;
        if (zrc == Z_STREAM_END) break;
        if (zrc == Z_BUF_ERROR && in_left == 0 && zs.avail_out > 0) {
            rc = bad(err, "truncated deflate block");
            break;
        }
        if (zrc != Z_OK && zrc != Z_BUF_ERROR) {
            rc = bad(err, "corrupt deflate block");
            break;
        }
    }
    inflateEnd(&zs);
    *out_len = produced;
    return rc;
}

static int decompress(avro_reader *r, const uint8_t *in, size_t in_len, const uint8_t **out,
                      size_t *out_len, sqe_error *err) {
    switch (r->codec) {
    case AVRO_CODEC_NULL:
        *out = in;
        *out_len = in_len;
        return SQE_OK;
    case AVRO_CODEC_DEFLATE: {
        SQE_TRY(ensure_block(r, in_len < 4096 ? 4096 : in_len, err));
        int rc = inflate_block(r, in, in_len, -15, out_len, err);
        if (rc == SQE_ERR_INVALID_FILE && in_len >= 2 && (in[0] & 0x0f) == 8 &&
            ((in[0] << 8) | in[1]) % 31 == 0)
            rc = inflate_block(r, in, in_len, 15 + 32, out_len, err); /* zlib-wrapped */
        if (rc != SQE_OK) return rc;
        *out = r->block;
        return SQE_OK;
    }
    case AVRO_CODEC_SNAPPY: {
        if (in_len < 4) return bad(err, "snappy block shorter than its CRC");
        size_t body = in_len - 4;
        size_t n;
        if (snappy_uncompressed_length((const char *)in, body, &n) != SNAPPY_OK)
            return bad(err, "corrupt snappy block");
        if (n > AVRO_MAX_BLOCK_BYTES)
            return bad(err, "snappy block larger than %zu bytes", AVRO_MAX_BLOCK_BYTES);
        /* snappy expands at most ~21x (a 3-byte copy of 64 bytes); reject impossible claims
         * before allocating. */
        if (n / 32 > body) return bad(err, "corrupt snappy block (impossible length)");
        SQE_TRY(ensure_block(r, n ? n : 1, err));
        size_t got = n;
        if (snappy_uncompress((const char *)in, body, (char *)r->block, &got) != SNAPPY_OK ||
            got != n)
            return bad(err, "corrupt snappy block");
        const uint8_t *c = in + body;
        uint32_t want = (uint32_t)c[0] << 24 | (uint32_t)c[1] << 16 | (uint32_t)c[2] << 8 | c[3];
        uint32_t have = (uint32_t)crc32_z(0L, r->block, n);
        if (want != have)
            return bad(err, "snappy block CRC mismatch (stored %08x, computed %08x)", want, have);
        *out = r->block;
        *out_len = n;
        return SQE_OK;
    }
    }
    return bad(err, "bad codec");
}

/* ---- container ----------------------------------------------------------------------------- */

static int fail_reader(avro_reader *r, int rc) {
    r->failed = true;
    r->cur = r->end = NULL;
    r->left_in_block = 0;
    return rc;
}

/* Reads the next block header and objects; sets left_in_block (0 with pos == len at the end). */
static int load_block(avro_reader *r, sqe_error *err) {
    cursor c = {r->buf + r->pos, r->buf + r->len};
    int64_t count, size;
    SQE_TRY(read_long(&c, &count, err));
    SQE_TRY(read_long(&c, &size, err));
    if (count < 0) return bad(err, "negative object count in block at byte %zu", r->pos);
    if (size < 0 || (uint64_t)size > (uint64_t)(c.end - c.p))
        return bad(err, "block at byte %zu is truncated (size %lld, %zu bytes left)", r->pos,
                   (long long)size, (size_t)(c.end - c.p));
    const uint8_t *data = c.p;
    c.p += size;
    if (c.end - c.p < 16) return bad(err, "block at byte %zu lacks its sync marker", r->pos);
    if (memcmp(c.p, r->sync, 16) != 0)
        return bad(err, "sync marker mismatch after block at byte %zu", r->pos);
    c.p += 16;
    const uint8_t *objs = NULL;
    size_t objs_len = 0;
    SQE_TRY(decompress(r, data, (size_t)size, &objs, &objs_len, err));
    if (r->schema->min_size && (uint64_t)count > objs_len / r->schema->min_size)
        return bad(err, "block at byte %zu claims %lld objects in %zu bytes", r->pos,
                   (long long)count, objs_len);
    r->budget = 8 * (int64_t)objs_len + 4096;
    if (count > r->budget)
        return bad(err, "block at byte %zu claims too many objects (%lld)", r->pos,
                   (long long)count);
    r->pos = (size_t)(c.p - r->buf);
    r->cur = objs;
    r->end = objs + objs_len;
    r->left_in_block = count;
    return SQE_OK;
}

int avro_reader_next(avro_reader *r, avro_value **out, sqe_error *err) {
    *out = NULL;
    if (r->failed) return bad(err, "the reader failed earlier");
    while (r->left_in_block == 0) {
        if (r->cur != r->end)
            return fail_reader(r, bad(err, "%zu bytes left over in a block",
                                      (size_t)(r->end - r->cur)));
        if (r->pos == r->len) return SQE_OK;
        int rc = load_block(r, err);
        if (rc != SQE_OK) return fail_reader(r, rc);
    }
    cursor c = {r->cur, r->end};
    avro_value *v = ARENA_NEW(r->values, avro_value);
    if (!v) return fail_reader(r, err_nomem(err, "Avro value"));
    int rc = decode(r, &c, r->schema, 0, v, err);
    if (rc != SQE_OK) return fail_reader(r, rc);
    r->cur = c.p;
    r->left_in_block--;
    *out = v;
    return SQE_OK;
}

static int read_header(avro_reader *r, sqe_error *err) {
    if (r->len < 4 || memcmp(r->buf, AVRO_MAGIC, 4) != 0)
        return bad(err, "missing magic bytes \"Obj\\x01\"");
    cursor c = {r->buf + 4, r->buf + r->len};
    uint32_t cap = 0;
    for (;;) {
        int64_t n;
        SQE_TRY(read_long(&c, &n, err));
        if (n < 0) {
            if (n == INT64_MIN) return bad(err, "bad metadata block count");
            n = -n;
            int64_t size;
            SQE_TRY(read_long(&c, &size, err));
            if (size < 0 || (uint64_t)size > (uint64_t)(c.end - c.p))
                return bad(err, "metadata block size exceeds the file");
        }
        if (n == 0) break;
        /* each entry takes at least 2 bytes (two length prefixes) */
        if ((uint64_t)n > (uint64_t)(c.end - c.p) / 2 || r->n_meta + (uint64_t)n > 1000000)
            return bad(err, "metadata count exceeds the file");
        if (r->n_meta + (uint32_t)n > cap) {
            uint32_t ncap = r->n_meta + (uint32_t)n;
            meta_entry *m = ARENA_ARRAY(r->a, meta_entry, ncap);
            if (!m) return err_nomem(err, "Avro metadata");
            if (r->n_meta) memcpy(m, r->meta, r->n_meta * sizeof *m);
            r->meta = m;
            cap = ncap;
        }
        for (int64_t i = 0; i < n; i++) {
            avro_bytes k, v;
            size_t len;
            SQE_TRY(read_len(&c, &len, err));
            SQE_TRY(copy_bytes(r->a, &c, len, &k, err));
            SQE_TRY(read_len(&c, &len, err));
            SQE_TRY(copy_bytes(r->a, &c, len, &v, err));
            if (strlen((const char *)k.data) != k.len)
                return bad(err, "metadata key contains a NUL byte");
            for (uint32_t j = 0; j < r->n_meta; j++)
                if (strcmp(r->meta[j].key, (const char *)k.data) == 0)
                    return bad(err, "metadata key \"%.100s\" appears twice", k.data);
            r->meta[r->n_meta++] = (meta_entry){(const char *)k.data, v.data, v.len};
        }
    }
    if (c.end - c.p < 16) return bad(err, "truncated header (no sync marker)");
    memcpy(r->sync, c.p, 16);
    c.p += 16;
    r->pos = (size_t)(c.p - r->buf);

    size_t schema_len;
    const uint8_t *schema = avro_reader_meta(r, "avro.schema", &schema_len);
    if (!schema) return bad(err, "no avro.schema in the header");
    SQE_TRY(avro_schema_parse_as(r->a, (const char *)schema, schema_len, SQE_ERR_INVALID_FILE,
                                 "Invalid Avro file: bad avro.schema: ", &r->schema, err));
    const uint8_t *codec = avro_reader_meta(r, "avro.codec", NULL);
    r->codec_name = codec ? (const char *)codec : "null";
    if (strcmp(r->codec_name, "null") == 0)
        r->codec = AVRO_CODEC_NULL;
    else if (strcmp(r->codec_name, "deflate") == 0)
        r->codec = AVRO_CODEC_DEFLATE;
    else if (strcmp(r->codec_name, "snappy") == 0)
        r->codec = AVRO_CODEC_SNAPPY;
    else
        return err_set(err, SQE_ERR_NOT_SUPPORTED, "unsupported: Avro codec %.100s",
                       r->codec_name);
    return SQE_OK;
}

int avro_reader_open(const uint8_t *buf, size_t len, arena *a, avro_reader **out,
                     sqe_error *err) {
    *out = NULL;
    avro_reader *r = ARENA_NEW(a, avro_reader);
    if (!r) return err_nomem(err, "Avro reader");
    r->a = r->values = a;
    r->buf = buf;
    r->len = len;
    SQE_TRY(read_header(r, err));
    *out = r;
    return SQE_OK;
}

const avro_schema *avro_reader_schema(const avro_reader *r) { return r->schema; }

const uint8_t *avro_reader_meta(const avro_reader *r, const char *key, size_t *len) {
    for (uint32_t i = 0; i < r->n_meta; i++) {
        if (strcmp(r->meta[i].key, key) == 0) {
            if (len) *len = r->meta[i].len;
            return r->meta[i].value;
        }
    }
    if (len) *len = 0;
    return NULL;
}

uint32_t avro_reader_meta_count(const avro_reader *r) { return r->n_meta; }

const char *avro_reader_meta_at(const avro_reader *r, uint32_t i, const uint8_t **value,
                                size_t *len) {
    if (i >= r->n_meta) return NULL;
    if (value) *value = r->meta[i].value;
    if (len) *len = r->meta[i].len;
    return r->meta[i].key;
}

const char *avro_reader_codec(const avro_reader *r) { return r->codec_name; }

void avro_reader_set_value_arena(avro_reader *r, arena *values) {
    r->values = values ? values : r->a;
}

void avro_reader_close(avro_reader *r) {
    if (!r) return;
    free(r->block);
    r->block = NULL;
    r->block_cap = 0;
    r->cur = r->end = NULL;
    r->failed = true;
}
