/*
 * puffin.c: Puffin files (footer, blobs, lz4/zstd codecs) and the deletion-vector-v1 blob.
 *
 * INTERFACE: ice_puffin_footer_read, ice_puffin_blob_read, ice_puffin_writer_init / _reset /
 *            _add / _finish, ice_dv_encode, ice_dv_decode, ice_dv_read
 * NOTES:
 *   - Spec: apache/iceberg format/puffin-spec.md (see puffin.h). 4-byte integers of the footer
 *     are signed little-endian; the DV length and CRC are big-endian (Delta compatibility),
 *     the Roaring payload little-endian.
 *   - Decompression never trusts a stated size: output grows in steps up to the caps of
 *     puffin.h, and the frame must end exactly at the end of the input.
 *   - The footer JSON is parsed with jansson; unknown keys are ignored, missing required ones
 *     and wrong JSON types are INVALID_FILE naming the key.
 *   - DV blobs are read by (content_offset, content_size_in_bytes) from the manifest, without
 *     the footer, as Iceberg Java does; the CRC and the exact length make that safe.
 */
#include "iceberg/puffin.h"

#include <jansson.h>
#include <lz4frame.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "format/parquet/pq_codec.h"

static const uint8_t dv_magic[4] = {0xD1, 0xD3, 0x39, 0x64};

static uint32_t get_le32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint32_t get_be32(const uint8_t *p) {
    return (uint32_t)p[3] | (uint32_t)p[2] << 8 | (uint32_t)p[1] << 16 | (uint32_t)p[0] << 24;
}
static void put_le32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static void put_be32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[3 - i] = (uint8_t)(v >> (8 * i));
}

/* ---- decompression -------------------------------------------------------------------------- */

/* Grows *buf (capacity *cap) for more output; fails beyond max. */
static int out_grow(uint8_t **buf, size_t *cap, size_t max, const char *what, sqe_error *err) {
    if (*cap >= max)
        return err_set(err, SQE_ERR_INVALID_FILE, "%s: decompressed size exceeds %zu bytes", what,
                       max);
    size_t c = *cap ? *cap * 2 : 4096;
    if (c > max) c = max;
    uint8_t *q = realloc(*buf, c);
    if (!q) return err_nomem(err, "Puffin decompression");
    *buf = q;
    *cap = c;
    return SQE_OK;
}

static int lz4_frame_decompress(const uint8_t *in, size_t n, size_t max, const char *what,
                                uint8_t **out, size_t *out_len, sqe_error *err) {
    LZ4F_dctx *d = NULL;
    if (LZ4F_isError(LZ4F_createDecompressionContext(&d, LZ4F_VERSION)))
        return err_nomem(err, "LZ4 context");
    uint8_t *buf = NULL;
    size_t cap = 0, len = 0, used = 0;
    int rc = SQE_OK;
    for (;;) {
        if (len == cap && (rc = out_grow(&buf, &cap, max, what, err))) break;
        size_t dst = cap - len, src = n - used;
        size_t r = LZ4F_decompress(d, buf + len, &dst, in + used, &src, NULL);
        if (LZ4F_isError(r)) {
            rc = err_set(err, SQE_ERR_INVALID_FILE, "%s: bad LZ4 frame (%s)", what,
                         LZ4F_getErrorName(r));
            break;
        }
        used += src;
        len += dst;
        if (r == 0) break; /* frame complete */
        if (used == n && dst == 0) {
            rc = err_set(err, SQE_ERR_INVALID_FILE, "%s: truncated LZ4 frame", what);
            break;
        }
    }
    LZ4F_freeDecompressionContext(d);
    if (!rc && used != n)
        rc = err_set(err, SQE_ERR_INVALID_FILE, "%s: bytes after the LZ4 frame", what);
    if (rc) {
        free(buf);
        return rc;
    }
    if (!buf && !(buf = malloc(1))) return err_nomem(err, "Puffin decompression");
    *out = buf;
    *out_len = len;
    return SQE_OK;
}

static int zstd_frame_decompress(const uint8_t *in, size_t n, size_t max, const char *what,
                                 uint8_t **out, size_t *out_len, sqe_error *err) {
    ZSTD_DCtx *d = ZSTD_createDCtx();
    if (!d) return err_nomem(err, "zstd context");
    uint8_t *buf = NULL;
    size_t cap = 0, len = 0;
    ZSTD_inBuffer ib = {in, n, 0};
    int rc = SQE_OK;
    for (;;) {
        if (len == cap && (rc = out_grow(&buf, &cap, max, what, err))) break;
        ZSTD_outBuffer ob = {buf + len, cap - len, 0};
        size_t r = ZSTD_decompressStream(d, &ob, &ib);
        if (ZSTD_isError(r)) {
            rc = err_set(err, SQE_ERR_INVALID_FILE, "%s: bad zstd frame (%s)", what,
                         ZSTD_getErrorName(r));
            break;
        }
        len += ob.pos;
        if (r == 0) break;
        if (ib.pos == ib.size && ob.pos < ob.size) {
            rc = err_set(err, SQE_ERR_INVALID_FILE, "%s: truncated zstd frame", what);
            break;
        }
    }
    ZSTD_freeDCtx(d);
    if (!rc && ib.pos != n)
        rc = err_set(err, SQE_ERR_INVALID_FILE, "%s: bytes after the zstd frame", what);
    if (rc) {
        free(buf);
        return rc;
    }
    if (!buf && !(buf = malloc(1))) return err_nomem(err, "Puffin decompression");
    *out = buf;
    *out_len = len;
    return SQE_OK;
}

/* ---- footer ---------------------------------------------------------------------------------- */

static int bad_file(sqe_error *err, io_file *f, const char *fmt, const char *arg) {
    char msg[256];
    snprintf(msg, sizeof msg, fmt, arg);
    return err_set(err, SQE_ERR_INVALID_FILE, "Invalid Puffin file %s: %s", io_path(f), msg);
}

static int get_long(io_file *f, json_t *o, const char *key, bool required, int64_t *out,
                    bool *present, sqe_error *err) {
    json_t *v = json_object_get(o, key);
    if (present) *present = v && !json_is_null(v);
    if (!v || json_is_null(v))
        return required ? bad_file(err, f, "blob metadata lacks \"%s\"", key) : SQE_OK;
    if (!json_is_integer(v)) return bad_file(err, f, "\"%s\" is not an integer", key);
    *out = json_integer_value(v);
    return SQE_OK;
}

static int get_props(arena *a, io_file *f, json_t *o, ice_kv_list *out, sqe_error *err) {
    json_t *p = json_object_get(o, "properties");
    memset(out, 0, sizeof *out);
    if (!p || json_is_null(p)) return SQE_OK;
    if (!json_is_object(p)) return bad_file(err, f, "\"%s\" is not an object", "properties");
    size_t n = json_object_size(p);
    out->items = ARENA_ARRAY(a, ice_kv, n ? n : 1);
    if (!out->items) return err_nomem(err, "Puffin footer");
    const char *k;
    json_t *v;
    json_object_foreach(p, k, v) {
        if (!json_is_string(v)) return bad_file(err, f, "property \"%s\" is not a string", k);
        ice_kv *kv = &out->items[out->n++];
        kv->key = arena_strdup(a, k);
        kv->value = arena_strndup(a, json_string_value(v), json_string_length(v));
        if (!kv->key || !kv->value) return err_nomem(err, "Puffin footer");
    }
    return SQE_OK;
}

static int parse_blob(arena *a, io_file *f, json_t *o, uint64_t footer_start,
                      ice_puffin_blob *b, sqe_error *err) {
    if (!json_is_object(o)) return bad_file(err, f, "a blob entry is not an %s", "object");
    json_t *t = json_object_get(o, "type");
    if (!t) return bad_file(err, f, "blob metadata lacks \"%s\"", "type");
    if (!json_is_string(t)) return bad_file(err, f, "\"%s\" is not a string", "type");
    b->type = arena_strndup(a, json_string_value(t), json_string_length(t));
    json_t *fl = json_object_get(o, "fields");
    if (!fl) return bad_file(err, f, "blob metadata lacks \"%s\"", "fields");
    if (!json_is_array(fl)) return bad_file(err, f, "\"%s\" is not a list", "fields");
    b->n_fields = (uint32_t)json_array_size(fl);
    b->fields = ARENA_ARRAY(a, int32_t, b->n_fields ? b->n_fields : 1);
    if (!b->type || !b->fields) return err_nomem(err, "Puffin footer");
    for (uint32_t i = 0; i < b->n_fields; i++) {
        json_t *v = json_array_get(fl, i);
        if (!json_is_integer(v) || json_integer_value(v) < INT32_MIN ||
            json_integer_value(v) > INT32_MAX)
            return bad_file(err, f, "\"%s\" holds a value that is not a field id", "fields");
        b->fields[i] = (int32_t)json_integer_value(v);
    }
    SQE_TRY(get_long(f, o, "snapshot-id", true, &b->snapshot_id, NULL, err));
    SQE_TRY(get_long(f, o, "sequence-number", true, &b->sequence_number, NULL, err));
    SQE_TRY(get_long(f, o, "offset", true, &b->offset, NULL, err));
    SQE_TRY(get_long(f, o, "length", true, &b->length, NULL, err));
    if (b->offset < 4 || b->length < 0 || (uint64_t)b->offset > footer_start ||
        (uint64_t)b->length > footer_start - (uint64_t)b->offset)
        return bad_file(err, f, "a blob lies outside the blob area%s", "");
    json_t *c = json_object_get(o, "compression-codec");
    b->compression_codec = NULL;
    if (c && !json_is_null(c)) {
        if (!json_is_string(c)) return bad_file(err, f, "\"%s\" is not a string", "compression-codec");
        b->compression_codec = arena_strdup(a, json_string_value(c));
        if (!b->compression_codec) return err_nomem(err, "Puffin footer");
    }
    return get_props(a, f, o, &b->properties, err);
}

int ice_puffin_footer_read(arena *a, io_file *f, ice_puffin_footer **out, sqe_error *err) {
    uint64_t size = io_size(f);
    if (size < 20) return bad_file(err, f, "%s", "file too small");
    uint8_t head[4], tail[12];
    SQE_TRY(io_read(f, 0, 4, head, err));
    SQE_TRY(io_read(f, size - 12, 12, tail, err));
    if (memcmp(head, ICE_PUFFIN_MAGIC, 4) != 0 || memcmp(tail + 8, ICE_PUFFIN_MAGIC, 4) != 0)
        return bad_file(err, f, "%s", "bad magic");
    int32_t payload = (int32_t)get_le32(tail);
    uint32_t flags = get_le32(tail + 4);
    if (payload < 0 || (uint64_t)payload > size - 20)
        return bad_file(err, f, "%s", "footer payload size outside the file");
    if (flags & ~1u)
        return err_set(err, SQE_ERR_NOT_SUPPORTED, "unsupported: Puffin footer flags 0x%x in %s",
                       flags, io_path(f));
    uint64_t footer_start = size - 12 - (uint64_t)payload - 4;
    uint8_t *raw = malloc((size_t)payload + 4);
    if (!raw) return err_nomem(err, "Puffin footer");
    int rc = io_read(f, footer_start, (size_t)payload + 4, raw, err);
    if (!rc && memcmp(raw, ICE_PUFFIN_MAGIC, 4) != 0) rc = bad_file(err, f, "%s", "bad footer magic");
    uint8_t *json = raw + 4;
    size_t json_len = (size_t)payload;
    uint8_t *plain = NULL;
    if (!rc && (flags & 1)) {
        char what[300];
        snprintf(what, sizeof what, "Invalid Puffin file %s: footer", io_path(f));
        rc = lz4_frame_decompress(json, json_len, ICE_PUFFIN_MAX_FOOTER, what, &plain,
                                  &json_len, err);
        json = plain;
    }
    json_t *root = NULL;
    if (!rc) {
        json_error_t je;
        root = json_loadb((const char *)json, json_len, JSON_REJECT_DUPLICATES, &je);
        if (!root) rc = bad_file(err, f, "footer is not JSON (%s)", je.text);
    }
    free(plain);
    free(raw);
    if (rc) return rc;
    ice_puffin_footer *ft = ARENA_NEW(a, ice_puffin_footer);
    json_t *blobs = json_is_object(root) ? json_object_get(root, "blobs") : NULL;
    if (!ft) rc = err_nomem(err, "Puffin footer");
    else if (!json_is_object(root)) rc = bad_file(err, f, "%s", "footer is not a JSON object");
    else if (!blobs) rc = bad_file(err, f, "footer lacks \"%s\"", "blobs");
    else if (!json_is_array(blobs)) rc = bad_file(err, f, "\"%s\" is not a list", "blobs");
    if (!rc) {
        ft->footer_start = footer_start;
        ft->n_blobs = (uint32_t)json_array_size(blobs);
        ft->blobs = ARENA_ARRAY(a, ice_puffin_blob, ft->n_blobs ? ft->n_blobs : 1);
        if (!ft->blobs) rc = err_nomem(err, "Puffin footer");
        for (uint32_t i = 0; !rc && i < ft->n_blobs; i++)
            rc = parse_blob(a, f, json_array_get(blobs, i), footer_start, &ft->blobs[i], err);
        if (!rc) rc = get_props(a, f, root, &ft->properties, err);
    }
    json_decref(root);
    if (!rc) *out = ft;
    return rc;
}

int ice_puffin_blob_read(io_file *f, const ice_puffin_blob *b, uint8_t **data, size_t *len,
                         sqe_error *err) {
    *data = NULL;
    uint64_t size = io_size(f);
    if (b->offset < 0 || b->length < 0 || (uint64_t)b->offset > size ||
        (uint64_t)b->length > size - (uint64_t)b->offset || (uint64_t)b->length > ICE_PUFFIN_MAX_BLOB)
        return bad_file(err, f, "%s", "blob range outside the file");
    const char *codec = b->compression_codec;
    if (codec && strcmp(codec, "lz4") != 0 && strcmp(codec, "zstd") != 0)
        return err_set(err, SQE_ERR_NOT_SUPPORTED,
                       "unsupported: Puffin compression codec \"%s\" in %s", codec, io_path(f));
    uint8_t *raw = malloc(b->length ? (size_t)b->length : 1);
    if (!raw) return err_nomem(err, "Puffin blob");
    int rc = io_read(f, (uint64_t)b->offset, (size_t)b->length, raw, err);
    if (rc || !codec) {
        if (rc) free(raw);
        else {
            *data = raw;
            *len = (size_t)b->length;
        }
        return rc;
    }
    char what[300];
    snprintf(what, sizeof what, "Invalid Puffin file %s: blob at %lld", io_path(f),
             (long long)b->offset);
    rc = codec[0] == 'l' ? lz4_frame_decompress(raw, (size_t)b->length, ICE_PUFFIN_MAX_BLOB, what,
                                                data, len, err)
                         : zstd_frame_decompress(raw, (size_t)b->length, ICE_PUFFIN_MAX_BLOB,
                                                 what, data, len, err);
    free(raw);
    return rc;
}

/* ---- writer ----------------------------------------------------------------------------------- */

void ice_puffin_writer_init(ice_puffin_writer *w) { memset(w, 0, sizeof *w); }

void ice_puffin_writer_reset(ice_puffin_writer *w) {
    free(w->buf);
    if (w->blobs_json) json_decref((json_t *)w->blobs_json);
    memset(w, 0, sizeof *w);
}

static int buf_append(ice_puffin_writer *w, const void *p, size_t n, sqe_error *err) {
    if (w->cap - w->len < n) {
        size_t c = w->cap ? w->cap : 4096;
        while (c - w->len < n) c *= 2;
        uint8_t *q = realloc(w->buf, c);
        if (!q) return err_nomem(err, "Puffin writer");
        w->buf = q;
        w->cap = c;
    }
    if (n) memcpy(w->buf + w->len, p, n);
    w->len += n;
    return SQE_OK;
}

static int writer_start(ice_puffin_writer *w, sqe_error *err) {
    if (!w->blobs_json && !(w->blobs_json = json_array())) return err_nomem(err, "Puffin writer");
    return w->len ? SQE_OK : buf_append(w, ICE_PUFFIN_MAGIC, 4, err);
}

static json_t *props_json(const ice_kv_list *props) {
    json_t *o = json_object();
    for (uint32_t i = 0; o && props && i < props->n; i++)
        if (json_object_set_new(o, props->items[i].key, json_string(props->items[i].value))) {
            json_decref(o);
            return NULL;
        }
    return o;
}

int ice_puffin_writer_add(ice_puffin_writer *w, const char *type, const int32_t *fields,
                          uint32_t n_fields, int64_t snapshot_id, int64_t sequence_number,
                          const char *codec, const ice_kv_list *properties, const uint8_t *data,
                          size_t len, int64_t *offset, int64_t *length, sqe_error *err) {
    if (codec && strcmp(codec, "lz4") != 0 && strcmp(codec, "zstd") != 0)
        return err_set(err, SQE_ERR_NOT_SUPPORTED, "unsupported: Puffin compression codec \"%s\"",
                       codec);
    SQE_TRY(writer_start(w, err));
    uint8_t *packed = NULL;
    size_t plen = len;
    if (codec && codec[0] == 'z') {
        size_t bound = ZSTD_compressBound(len);
        packed = malloc(bound ? bound : 1);
        if (!packed) return err_nomem(err, "Puffin writer");
        plen = ZSTD_compress(packed, bound, data, len, 3);
        if (ZSTD_isError(plen)) {
            free(packed);
            return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "zstd: %s", ZSTD_getErrorName(plen));
        }
    } else if (codec) {
        LZ4F_preferences_t pref;
        memset(&pref, 0, sizeof pref);
        pref.frameInfo.contentSize = len;
        size_t bound = LZ4F_compressFrameBound(len, &pref);
        packed = malloc(bound);
        if (!packed) return err_nomem(err, "Puffin writer");
        plen = LZ4F_compressFrame(packed, bound, data, len, &pref);
        if (LZ4F_isError(plen)) {
            free(packed);
            return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "lz4: %s", LZ4F_getErrorName(plen));
        }
    }
    size_t at = w->len;
    json_t *o = json_object(), *fl = json_array();
    bool ok = o && fl;
    for (uint32_t i = 0; ok && i < n_fields; i++) ok = !json_array_append_new(fl, json_integer(fields[i]));
    ok = ok && !json_object_set_new(o, "type", json_string(type)) &&
         !json_object_set(o, "fields", fl) &&
         !json_object_set_new(o, "snapshot-id", json_integer(snapshot_id)) &&
         !json_object_set_new(o, "sequence-number", json_integer(sequence_number)) &&
         !json_object_set_new(o, "offset", json_integer((json_int_t)at)) &&
         !json_object_set_new(o, "length", json_integer((json_int_t)plen));
    if (ok && codec) ok = !json_object_set_new(o, "compression-codec", json_string(codec));
    if (ok && properties && properties->n) {
        json_t *p = props_json(properties);
        ok = p && !json_object_set_new(o, "properties", p);
    }
    json_decref(fl);
    int rc = ok ? buf_append(w, packed ? packed : data, plen, err) : err_nomem(err, "Puffin writer");
    free(packed);
    if (!rc && json_array_append_new((json_t *)w->blobs_json, o)) {
        o = NULL;
        w->len = at;
        rc = err_nomem(err, "Puffin writer");
    } else if (!rc) {
        o = NULL; /* now owned by the array */
    }
    if (rc) {
        w->len = at;
        json_decref(o);
        return rc;
    }
    if (offset) *offset = (int64_t)at;
    if (length) *length = (int64_t)plen;
    return SQE_OK;
}

int ice_puffin_writer_finish(ice_puffin_writer *w, const ice_kv_list *properties,
                             bool compress_footer, uint8_t **bytes, size_t *len, sqe_error *err) {
    *bytes = NULL;
    SQE_TRY(writer_start(w, err));
    json_t *root = json_object(), *props = props_json(properties);
    bool ok = root && props;
    if (ok && !json_object_get(props, "created-by"))
        ok = !json_object_set_new(props, "created-by", json_string("SQE"));
    ok = ok && !json_object_set(root, "blobs", (json_t *)w->blobs_json) &&
         !json_object_set(root, "properties", props);
    char *text = ok ? json_dumps(root, JSON_COMPACT) : NULL;
    json_decref(root);
    json_decref(props);
    if (!text) return err_nomem(err, "Puffin footer");
    size_t tlen = strlen(text);
    uint8_t *payload = (uint8_t *)text;
    size_t plen = tlen;
    uint8_t *packed = NULL;
    if (compress_footer) {
        LZ4F_preferences_t pref;
        memset(&pref, 0, sizeof pref);
        pref.frameInfo.contentSize = tlen;
        size_t bound = LZ4F_compressFrameBound(tlen, &pref);
        packed = malloc(bound);
        if (!packed) {
            free(text);
            return err_nomem(err, "Puffin footer");
        }
        plen = LZ4F_compressFrame(packed, bound, text, tlen, &pref);
        if (LZ4F_isError(plen)) {
            free(text);
            free(packed);
            return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "lz4: %s", LZ4F_getErrorName(plen));
        }
        payload = packed;
    }
    int rc = plen > INT32_MAX ? err_set(err, SQE_ERR_INVALID_ARGUMENTS, "Puffin footer too large")
                              : SQE_OK;
    uint8_t trailer[12];
    put_le32(trailer, (uint32_t)plen);
    put_le32(trailer + 4, compress_footer ? 1u : 0u);
    memcpy(trailer + 8, ICE_PUFFIN_MAGIC, 4);
    if (!rc) rc = buf_append(w, ICE_PUFFIN_MAGIC, 4, err);
    if (!rc) rc = buf_append(w, payload, plen, err);
    if (!rc) rc = buf_append(w, trailer, 12, err);
    free(text);
    free(packed);
    if (rc) return rc;
    *bytes = w->buf;
    *len = w->len;
    w->buf = NULL;
    w->len = w->cap = 0;
    json_decref((json_t *)w->blobs_json);
    w->blobs_json = NULL;
    return SQE_OK;
}

/* ---- deletion vectors ------------------------------------------------------------------------- */

int ice_dv_encode(const ice_roaring *positions, uint8_t **out, size_t *len, sqe_error *err) {
    *out = NULL;
    if (ice_roaring_cardinality(positions) && (ice_roaring_max(positions) >> 63))
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS,
                       "deletion vector position %llu is beyond 2^63 - 1",
                       (unsigned long long)ice_roaring_max(positions));
    size_t vlen = ice_roaring_portable_size(positions);
    if (vlen > (size_t)INT32_MAX - 8)
        return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "deletion vector too large");
    uint8_t *p = malloc(vlen + 12);
    if (!p) return err_nomem(err, "deletion vector");
    put_be32(p, (uint32_t)(vlen + 4));
    memcpy(p + 4, dv_magic, 4);
    ice_roaring_portable_write(positions, p + 8);
    put_be32(p + 8 + vlen, pq_crc32(p + 4, vlen + 4));
    *out = p;
    *len = vlen + 12;
    return SQE_OK;
}

int ice_dv_decode(const uint8_t *p, size_t len, const char *what, ice_roaring *out,
                  sqe_error *err) {
    ice_roaring_reset(out);
    const char *w = what ? what : "";
    const char *sp = what ? " " : "";
    if (len < 12)
        return err_set(err, SQE_ERR_INVALID_FILE, "Invalid deletion vector%s%s: %zu bytes", sp, w,
                       len);
    uint32_t l = get_be32(p);
    if ((size_t)l != len - 8)
        return err_set(err, SQE_ERR_INVALID_FILE,
                       "Invalid deletion vector%s%s: length field %u does not match %zu bytes",
                       sp, w, l, len);
    if (memcmp(p + 4, dv_magic, 4) != 0)
        return err_set(err, SQE_ERR_INVALID_FILE, "Invalid deletion vector%s%s: bad magic", sp, w);
    uint32_t crc = get_be32(p + 4 + l);
    if (crc != pq_crc32(p + 4, l))
        return err_set(err, SQE_ERR_INVALID_FILE, "Invalid deletion vector%s%s: CRC mismatch", sp,
                       w);
    size_t used = 0;
    int rc = ice_roaring_portable_read(out, p + 8, l - 4, &used, err);
    if (rc) {
        if (rc == SQE_ERR_INVALID_FILE) err_prefix(err, "Invalid deletion vector%s%s", sp, w);
        return rc;
    }
    if (used != l - 4) {
        ice_roaring_reset(out);
        return err_set(err, SQE_ERR_INVALID_FILE,
                       "Invalid deletion vector%s%s: bytes after the bitmap", sp, w);
    }
    if (ice_roaring_cardinality(out) && (ice_roaring_max(out) >> 63)) {
        ice_roaring_reset(out);
        return err_set(err, SQE_ERR_INVALID_FILE,
                       "Invalid deletion vector%s%s: position beyond 2^63 - 1", sp, w);
    }
    return SQE_OK;
}

int ice_dv_read(io_file *f, int64_t offset, int64_t size, ice_roaring *out, sqe_error *err) {
    uint64_t fsize = io_size(f);
    if (offset < 0 || size < 0 || (uint64_t)offset > fsize ||
        (uint64_t)size > fsize - (uint64_t)offset || (uint64_t)size > ICE_PUFFIN_MAX_BLOB)
        return err_set(err, SQE_ERR_INVALID_FILE,
                       "Invalid deletion vector in %s: range %lld+%lld outside the file",
                       io_path(f), (long long)offset, (long long)size);
    uint8_t *buf = malloc(size ? (size_t)size : 1);
    if (!buf) return err_nomem(err, "deletion vector");
    int rc = io_read(f, (uint64_t)offset, (size_t)size, buf, err);
    if (!rc) {
        char what[400];
        snprintf(what, sizeof what, "in %s at %lld", io_path(f), (long long)offset);
        rc = ice_dv_decode(buf, (size_t)size, what, out, err);
    }
    free(buf);
    return rc;
}
