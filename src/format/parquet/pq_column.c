/*
 * pq_column.c: the column chunk reader (see pq_column.h): pages, levels, values, conversion.
 *
 * INTERFACE: pq_column_open, pq_column_close, pq_column_batch_begin, pq_column_read_flat,
 *   pq_column_skip_flat, pq_column_next_entries.
 * NOTES
 *   Pages: an uncompressed page is used in place (a slice of the chunk); a compressed one is
 *   decompressed into a buffer that stays alive until the batch that used it is over (finished
 *   pages are parked in `retired` and freed by pq_column_batch_begin). Each page also has an
 *   arena for what DELTA_(LENGTH_)BYTE_ARRAY decoding makes.
 *   Values: decode_values decodes n non-null values of the current page into a flat vector at
 *   a row offset, converting physical values (pq_conv) on the way; fixed-width values without a
 *   conversion are decoded straight into the vector. NULLs are placed afterwards by expanding
 *   the dense values backwards in place (expand_nulls).
 *   Dictionary: the dictionary page is decoded and converted once into `dict` (one extra NULL
 *   row at the end). String columns hand out VEC_DICT vectors over it; other types gather.
 */
#include "format/parquet/pq_column.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/parquet/pq_codec.h"
#include "format/parquet/pq_meta.h"

#define SCRATCH_VALUES VEC_CHUNK_SIZE

typedef enum value_enc {
    VENC_PLAIN,
    VENC_DICT,
    VENC_RLE_BOOL,
    VENC_DELTA,
    VENC_DLBA,
    VENC_DBA,
    VENC_BSS,
} value_enc;

typedef struct page_mem {
    uint8_t *buf;   /* malloc'ed decompressed bytes, or NULL when the page is used in place */
    arena a;        /* DELTA_(LENGTH_)BYTE_ARRAY allocations */
    bool arena_used;
} page_mem;

struct pq_column_reader {
    const pq_node *leaf;
    const pq_column_meta *cm;
    const uint8_t *chunk;
    size_t len, pos;
    const char *what;
    mem_tracker *tracker;
    int bit_width_def, bit_width_rep;
    /* dictionary */
    bool has_dict;
    vec dict;
    uint32_t dict_size;
    page_mem dict_mem;
    /* current page */
    bool in_page;
    int64_t page_left;         /* entries left in the current page */
    bool page_is_dict;         /* values are dictionary indices */
    page_mem cur;
    value_enc venc;
    pq_rle_decoder def_dec, rep_dec;
    bool def_legacy, rep_legacy;
    pq_bitpacked_legacy_decoder def_leg, rep_leg;
    union {
        pq_plain_decoder plain;
        pq_rle_decoder rle;
        pq_delta_decoder delta;
        pq_dlba_decoder dlba;
        pq_dba_decoder dba;
        pq_bss_decoder bss;
    } vd;
    /* pages finished during the current batch */
    page_mem *retired;
    uint32_t n_retired, cap_retired;
    /* scratch */
    uint32_t *u32;             /* indices / levels, SCRATCH_VALUES */
    uint32_t *lv;              /* definition levels of the flat reader, SCRATCH_VALUES */
    uint8_t *raw;              /* physical values, SCRATCH_VALUES * 16 bytes */
    vec skip_vec;              /* for skipping values */
    bool skip_vec_ok;
};

static int file_error(pq_column_reader *r, sqe_error *err, const char *why) {
    char path[256];
    pq_node_path(r->leaf, path, sizeof path);
    return err_set(err, SQE_ERR_INVALID_FILE, "Invalid Parquet file %s: column %s: %s", r->what,
                   path, why);
}

static int add_context(pq_column_reader *r, int rc, sqe_error *err) {
    if (rc == SQE_OK || !err || rc != SQE_ERR_INVALID_FILE) return rc;
    char path[256];
    pq_node_path(r->leaf, path, sizeof path);
    char msg[sizeof err->message];
    if (snprintf(msg, sizeof msg, "%s (file %s, column %s)", err->message, r->what, path) > 0)
        memcpy(err->message, msg, sizeof msg);
    return rc;
}

static void page_mem_free(pq_column_reader *r, page_mem *m) {
    mem_free(r->tracker, m->buf);
    m->buf = NULL;
    if (m->arena_used) arena_destroy(&m->a);
    m->arena_used = false;
}

static arena *page_arena(pq_column_reader *r, page_mem *m) {
    if (!m->arena_used) {
        arena_init(&m->a, r->tracker);
        m->arena_used = true;
    }
    return &m->a;
}

static int retire_current(pq_column_reader *r, sqe_error *err) {
    r->in_page = false;
    if (!r->cur.buf && !r->cur.arena_used) return SQE_OK;
    if (r->n_retired == r->cap_retired) {
        uint32_t cap = r->cap_retired ? r->cap_retired * 2 : 8;
        page_mem *p = realloc(r->retired, cap * sizeof *p);
        if (!p) {
            page_mem_free(r, &r->cur);
            return err_nomem(err, "Parquet page");
        }
        r->retired = p;
        r->cap_retired = cap;
    }
    r->retired[r->n_retired++] = r->cur;
    memset(&r->cur, 0, sizeof r->cur);
    return SQE_OK;
}

void pq_column_batch_begin(pq_column_reader *r) {
    for (uint32_t i = 0; i < r->n_retired; i++) page_mem_free(r, &r->retired[i]);
    r->n_retired = 0;
}

static int bit_width_of(int v) {
    int w = 0;
    while (v > 0) {
        w++;
        v >>= 1;
    }
    return w;
}

int pq_column_open(const pq_node *leaf, const pq_column_meta *cm, const uint8_t *chunk, size_t len,
                   const char *what, mem_tracker *tracker, pq_column_reader **out, sqe_error *err) {
    *out = NULL;
    pq_column_reader *r = calloc(1, sizeof *r);
    if (!r) return err_nomem(err, "Parquet column reader");
    r->leaf = leaf;
    r->cm = cm;
    r->chunk = chunk;
    r->len = len;
    r->what = what;
    r->tracker = tracker;
    r->bit_width_def = bit_width_of(leaf->max_def);
    r->bit_width_rep = bit_width_of(leaf->max_rep);
    r->u32 = mem_alloc(tracker, SCRATCH_VALUES * sizeof(uint32_t), err);
    r->raw = mem_alloc(tracker, SCRATCH_VALUES * 16, err);
    r->lv = mem_alloc(tracker, SCRATCH_VALUES * sizeof(uint32_t), err);
    if (!r->u32 || !r->raw || !r->lv) {
        pq_column_close(r);
        return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
    }
    *out = r;
    return SQE_OK;
}

void pq_column_close(pq_column_reader *r) {
    if (!r) return;
    pq_column_batch_begin(r);
    free(r->retired);
    page_mem_free(r, &r->cur);
    page_mem_free(r, &r->dict_mem);
    if (r->has_dict) vec_destroy(&r->dict);
    if (r->skip_vec_ok) vec_destroy(&r->skip_vec);
    mem_free(r->tracker, r->u32);
    mem_free(r->tracker, r->raw);
    mem_free(r->tracker, r->lv);
    free(r);
}

/* ---- conversion ----------------------------------------------------------------------------- */

static inline int64_t floor_div(int64_t a, int64_t b) {
    int64_t q = a / b;
    if ((a % b) != 0 && ((a < 0) != (b < 0))) q--;
    return q;
}

static float half_to_float(uint16_t h) {
    uint32_t sign = (uint32_t)(h >> 15) << 31;
    int exp = (h >> 10) & 0x1f;
    uint32_t mant = h & 0x3ff;
    float f;
    if (exp == 0) {
        f = ldexpf((float)mant, -24);
    } else if (exp == 31) {
        f = mant ? NAN : INFINITY;
    } else {
        f = ldexpf((float)(mant | 0x400), exp - 25);
    }
    uint32_t bits;
    memcpy(&bits, &f, 4);
    bits |= sign;
    memcpy(&f, &bits, 4);
    return f;
}

/* Big-endian two's complement bytes (at most 16) -> int128. */
static int128 be_to_int128(const uint8_t *p, uint32_t len) {
    if (len == 0) return 0;
    unsigned __int128 v = (p[0] & 0x80) ? ~(unsigned __int128)0 : 0;
    for (uint32_t i = 0; i < len; i++) v = (v << 8) | p[i];
    return (int128)v;
}

/* Converts n physical values at src (layout by the leaf's physical type; pq_bytes for byte
 * arrays) into dst rows [off, off + n). */
static int convert_values(pq_column_reader *r, const void *src, vec *dst, uint32_t off, uint32_t n,
                          sqe_error *err) {
    const pq_node *l = r->leaf;
    switch (l->conv) {
    case PQ_CONV_NULL:
        return SQE_OK;
    case PQ_CONV_BOOL:
        memcpy(VEC_DATA(dst, uint8_t) + off, src, n);
        return SQE_OK;
    case PQ_CONV_I32:
        memcpy(VEC_DATA(dst, int32_t) + off, src, n * 4u);
        return SQE_OK;
    case PQ_CONV_I64:
        memcpy(VEC_DATA(dst, int64_t) + off, src, n * 8u);
        return SQE_OK;
    case PQ_CONV_FLOAT:
        memcpy(VEC_DATA(dst, float) + off, src, n * 4u);
        return SQE_OK;
    case PQ_CONV_DOUBLE:
        memcpy(VEC_DATA(dst, double) + off, src, n * 8u);
        return SQE_OK;
    case PQ_CONV_I32_TO_I8: {
        const int32_t *s = src;
        int8_t *d = VEC_DATA(dst, int8_t) + off;
        for (uint32_t i = 0; i < n; i++) d[i] = (int8_t)s[i];
        return SQE_OK;
    }
    case PQ_CONV_I32_TO_I16: {
        const int32_t *s = src;
        int16_t *d = VEC_DATA(dst, int16_t) + off;
        for (uint32_t i = 0; i < n; i++) d[i] = (int16_t)s[i];
        return SQE_OK;
    }
    case PQ_CONV_U8_TO_I16: {
        const int32_t *s = src;
        int16_t *d = VEC_DATA(dst, int16_t) + off;
        for (uint32_t i = 0; i < n; i++) d[i] = (int16_t)(uint8_t)s[i];
        return SQE_OK;
    }
    case PQ_CONV_U16_TO_I32: {
        const int32_t *s = src;
        int32_t *d = VEC_DATA(dst, int32_t) + off;
        for (uint32_t i = 0; i < n; i++) d[i] = (int32_t)(uint16_t)s[i];
        return SQE_OK;
    }
    case PQ_CONV_U32_TO_I64: {
        const int32_t *s = src;
        int64_t *d = VEC_DATA(dst, int64_t) + off;
        for (uint32_t i = 0; i < n; i++) d[i] = (int64_t)(uint32_t)s[i];
        return SQE_OK;
    }
    case PQ_CONV_I32_TO_I64: {
        const int32_t *s = src;
        int64_t *d = VEC_DATA(dst, int64_t) + off;
        for (uint32_t i = 0; i < n; i++) d[i] = s[i];
        return SQE_OK;
    }
    case PQ_CONV_I32_MILLIS_TO_MICROS: {
        const int32_t *s = src;
        int64_t *d = VEC_DATA(dst, int64_t) + off;
        for (uint32_t i = 0; i < n; i++) d[i] = (int64_t)s[i] * 1000;
        return SQE_OK;
    }
    case PQ_CONV_I64_TO_I128:
    case PQ_CONV_U64_TO_I64DEC: {
        const int64_t *s = src;
        int128 *d = VEC_DATA(dst, int128) + off;
        if (l->conv == PQ_CONV_I64_TO_I128)
            for (uint32_t i = 0; i < n; i++) d[i] = s[i];
        else
            for (uint32_t i = 0; i < n; i++) d[i] = (int128)(uint64_t)s[i];
        return SQE_OK;
    }
    case PQ_CONV_I64_MILLIS_TO_MICROS:
    case PQ_CONV_I64_NANOS_TO_MICROS: {
        const int64_t *s = src;
        int64_t *d = VEC_DATA(dst, int64_t) + off;
        if (l->conv == PQ_CONV_I64_MILLIS_TO_MICROS) {
            for (uint32_t i = 0; i < n; i++) {
                if (__builtin_mul_overflow(s[i], (int64_t)1000, &d[i]))
                    return file_error(r, err, "timestamp out of range");
            }
        } else {
            for (uint32_t i = 0; i < n; i++) d[i] = floor_div(s[i], 1000);
        }
        return SQE_OK;
    }
    case PQ_CONV_I64_TO_TSTZ:
    case PQ_CONV_I64_MILLIS_TO_TSTZ:
    case PQ_CONV_I64_NANOS_TO_TSTZ: {
        const int64_t *s = src;
        sqe_timestamp_tz *d = VEC_DATA(dst, sqe_timestamp_tz) + off;
        for (uint32_t i = 0; i < n; i++) {
            int64_t v = s[i];
            if (l->conv == PQ_CONV_I64_MILLIS_TO_TSTZ) {
                if (__builtin_mul_overflow(v, (int64_t)1000, &v))
                    return file_error(r, err, "timestamp out of range");
            } else if (l->conv == PQ_CONV_I64_NANOS_TO_TSTZ) {
                v = floor_div(v, 1000);
            }
            d[i].micros = v;
            d[i].zone = 0;
            d[i].pad_ = 0;
        }
        return SQE_OK;
    }
    case PQ_CONV_INT96: {
        const uint8_t *s = src;
        int64_t *d = VEC_DATA(dst, int64_t) + off;
        for (uint32_t i = 0; i < n; i++) SQE_TRY(pq_int96_to_micros(s + 12 * (size_t)i, &d[i], err));
        return SQE_OK;
    }
    case PQ_CONV_FLOAT16: {
        const pq_bytes *s = src;
        float *d = VEC_DATA(dst, float) + off;
        for (uint32_t i = 0; i < n; i++) {
            if (s[i].len != 2) return file_error(r, err, "FLOAT16 value is not 2 bytes");
            d[i] = half_to_float((uint16_t)(s[i].ptr[0] | (s[i].ptr[1] << 8)));
        }
        return SQE_OK;
    }
    case PQ_CONV_BYTES: {
        const pq_bytes *s = src;
        sqe_str *d = VEC_DATA(dst, sqe_str) + off;
        for (uint32_t i = 0; i < n; i++) d[i] = sqe_str_make((const char *)s[i].ptr, s[i].len);
        return SQE_OK;
    }
    case PQ_CONV_UUID: {
        const pq_bytes *s = src;
        uint8_t *d = (uint8_t *)dst->data + (size_t)off * 16;
        for (uint32_t i = 0; i < n; i++) {
            if (s[i].len != 16) return file_error(r, err, "UUID value is not 16 bytes");
            memcpy(d + 16 * (size_t)i, s[i].ptr, 16);
        }
        return SQE_OK;
    }
    case PQ_CONV_DEC_BYTES: {
        const pq_bytes *s = src;
        bool wide = type_decimal_is_long(l->type);
        int128 limit = 1;
        for (int i = 0; i < l->type.precision; i++) limit *= 10;
        for (uint32_t i = 0; i < n; i++) {
            const uint8_t *p = s[i].ptr;
            uint32_t len = s[i].len;
            /* Sign-extension bytes beyond 16 are allowed; anything else does not fit. */
            while (len > 16) {
                uint8_t ext = (p[1] & 0x80) ? 0xff : 0x00;
                if (p[0] != ext) return file_error(r, err, "decimal value wider than 16 bytes");
                p++;
                len--;
            }
            int128 v = be_to_int128(p, len);
            if (v >= limit || v <= -limit)
                return file_error(r, err, "decimal value exceeds the column's precision");
            if (wide)
                VEC_DATA(dst, int128)[off + i] = v;
            else
                VEC_DATA(dst, int64_t)[off + i] = (int64_t)v;
        }
        return SQE_OK;
    }
    }
    return file_error(r, err, "unknown conversion");
}

/* ---- pages ---------------------------------------------------------------------------------- */

static int decompress_into(pq_column_reader *r, page_mem *m, const uint8_t *in, size_t in_len,
                           size_t out_len, const uint8_t **out, sqe_error *err) {
    if (r->cm->codec == PQ_CODEC_UNCOMPRESSED) {
        if (in_len != out_len)
            return file_error(r, err, "uncompressed page with different compressed and uncompressed sizes");
        *out = in;
        return SQE_OK;
    }
    m->buf = mem_alloc(r->tracker, out_len ? out_len : 1, err);
    if (!m->buf) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
    SQE_TRY(add_context(r, pq_decompress(r->cm->codec, in, in_len, m->buf, out_len, err), err));
    *out = m->buf;
    return SQE_OK;
}

static int decode_dictionary(pq_column_reader *r, const pq_page_header *h, const uint8_t *body,
                             sqe_error *err) {
    if (r->has_dict) return file_error(r, err, "more than one dictionary page");
    if (!h->has_dictionary_page_header) return file_error(r, err, "dictionary page without its header");
    const pq_dictionary_page_header *dh = &h->dictionary_page_header;
    if (dh->encoding != PQ_ENC_PLAIN && dh->encoding != PQ_ENC_PLAIN_DICTIONARY)
        return err_set(err, SQE_ERR_NOT_SUPPORTED, "unsupported: Parquet dictionary page encoding %d",
                       dh->encoding);
    if (dh->num_values < 0) return file_error(r, err, "negative dictionary size");
    if (r->leaf->physical == PQ_TYPE_BOOLEAN) return file_error(r, err, "dictionary page for a BOOLEAN column");
    const uint8_t *data;
    SQE_TRY(decompress_into(r, &r->dict_mem, body, (size_t)h->compressed_page_size,
                            (size_t)h->uncompressed_page_size, &data, err));
    uint32_t n = (uint32_t)dh->num_values;
    /* Every dictionary entry takes at least one byte (FLBA(0) aside), so the page bounds it. */
    if (n > (uint32_t)h->uncompressed_page_size && !(r->leaf->physical == PQ_TYPE_FIXED_LEN_BYTE_ARRAY &&
                                                    r->leaf->type_length == 0))
        return file_error(r, err, "dictionary larger than its page");
    SQE_TRY(vec_init(&r->dict, r->leaf->type, n + 1, r->tracker, err));
    r->has_dict = true;
    r->dict_size = n;
    pq_plain_decoder pd;
    pq_plain_init(&pd, data, (size_t)h->uncompressed_page_size);
    for (uint32_t done = 0; done < n;) {
        uint32_t k = n - done < SCRATCH_VALUES ? n - done : SCRATCH_VALUES;
        int rc;
        switch (r->leaf->physical) {
        case PQ_TYPE_INT32: rc = pq_plain_get_int32(&pd, (int32_t *)r->raw, k, err); break;
        case PQ_TYPE_INT64: rc = pq_plain_get_int64(&pd, (int64_t *)r->raw, k, err); break;
        case PQ_TYPE_INT96: rc = pq_plain_get_int96(&pd, r->raw, k, err); break;
        case PQ_TYPE_FLOAT: rc = pq_plain_get_float(&pd, (float *)r->raw, k, err); break;
        case PQ_TYPE_DOUBLE: rc = pq_plain_get_double(&pd, (double *)r->raw, k, err); break;
        case PQ_TYPE_BYTE_ARRAY: rc = pq_plain_get_byte_array(&pd, (pq_bytes *)r->raw, k, err); break;
        default:
            rc = pq_plain_get_flba(&pd, (uint32_t)r->leaf->type_length, (pq_bytes *)r->raw, k, err);
            break;
        }
        SQE_TRY(add_context(r, rc, err));
        SQE_TRY(convert_values(r, r->raw, &r->dict, done, k, err));
        done += k;
    }
    return vec_set_null(&r->dict, n);
}

static int init_levels(pq_column_reader *r, pq_rle_decoder *dec, pq_bitpacked_legacy_decoder *leg,
                       bool *legacy, int encoding, int bit_width, int64_t n_values,
                       const uint8_t *p, size_t avail, size_t *used, sqe_error *err) {
    *legacy = false;
    if (encoding == PQ_ENC_RLE) return add_context(r, pq_rle_init_prefixed(dec, p, avail, bit_width, used, err), err);
    if (encoding == PQ_ENC_BIT_PACKED) {
        size_t need = pq_bitpacked_legacy_size((uint64_t)n_values, bit_width);
        if (need > avail) return file_error(r, err, "BIT_PACKED levels past the end of the page");
        *legacy = true;
        *used = need;
        return add_context(r, pq_bitpacked_legacy_init(leg, p, need, bit_width, err), err);
    }
    return err_set(err, SQE_ERR_NOT_SUPPORTED, "unsupported: Parquet level encoding %d", encoding);
}

static int init_values(pq_column_reader *r, int encoding, const uint8_t *p, size_t avail,
                       int64_t n_values, sqe_error *err) {
    int phys = r->leaf->physical;
    r->page_is_dict = false;
    switch (encoding) {
    case PQ_ENC_PLAIN:
        r->venc = VENC_PLAIN;
        pq_plain_init(&r->vd.plain, p, avail);
        return SQE_OK;
    case PQ_ENC_PLAIN_DICTIONARY:
    case PQ_ENC_RLE_DICTIONARY:
        if (!r->has_dict) return file_error(r, err, "dictionary-encoded page without a dictionary page");
        if (avail < 1) {
            /* A page without non-null values may have an empty value section. */
            r->venc = VENC_DICT;
            r->page_is_dict = true;
            return add_context(r, pq_rle_init(&r->vd.rle, p, 0, 0, err), err);
        }
        if (p[0] > 32) return file_error(r, err, "dictionary index bit width over 32");
        r->venc = VENC_DICT;
        r->page_is_dict = true;
        return add_context(r, pq_rle_init(&r->vd.rle, p + 1, avail - 1, p[0], err), err);
    case PQ_ENC_RLE:
        if (phys != PQ_TYPE_BOOLEAN) break;
        r->venc = VENC_RLE_BOOL;
        {
            size_t used;
            return add_context(r, pq_rle_init_prefixed(&r->vd.rle, p, avail, 1, &used, err), err);
        }
    case PQ_ENC_DELTA_BINARY_PACKED:
        if (phys != PQ_TYPE_INT32 && phys != PQ_TYPE_INT64) break;
        r->venc = VENC_DELTA;
        return add_context(r, pq_delta_init(&r->vd.delta, p, avail, err), err);
    case PQ_ENC_DELTA_LENGTH_BYTE_ARRAY:
        if (phys != PQ_TYPE_BYTE_ARRAY) break;
        r->venc = VENC_DLBA;
        return add_context(r, pq_dlba_init(&r->vd.dlba, p, avail, (uint64_t)n_values,
                                           page_arena(r, &r->cur), err), err);
    case PQ_ENC_DELTA_BYTE_ARRAY:
        if (phys != PQ_TYPE_BYTE_ARRAY && phys != PQ_TYPE_FIXED_LEN_BYTE_ARRAY) break;
        r->venc = VENC_DBA;
        return add_context(r, pq_dba_init(&r->vd.dba, p, avail, (uint64_t)n_values,
                                          page_arena(r, &r->cur), err), err);
    case PQ_ENC_BYTE_STREAM_SPLIT: {
        uint32_t w;
        switch (phys) {
        case PQ_TYPE_INT32:
        case PQ_TYPE_FLOAT: w = 4; break;
        case PQ_TYPE_INT64:
        case PQ_TYPE_DOUBLE: w = 8; break;
        case PQ_TYPE_FIXED_LEN_BYTE_ARRAY: w = (uint32_t)r->leaf->type_length; break;
        default: w = 0; break;
        }
        if (!w) break;
        r->venc = VENC_BSS;
        if (avail == 0) {
            r->vd.bss = (pq_bss_decoder){.buf = p, .n_total = 0, .idx = 0, .width = w};
            return SQE_OK;
        }
        return add_context(r, pq_bss_init(&r->vd.bss, p, avail, w, err), err);
    }
    default:
        return err_set(err, SQE_ERR_NOT_SUPPORTED, "unsupported: Parquet encoding %d in file %s",
                       encoding, r->what);
    }
    return file_error(r, err, "encoding not valid for the column's physical type");
}

/* Moves to the next data page (decoding a dictionary page on the way). *end = true when the
 * chunk has no more pages. With skip > 0 (leaves without repetition only, where a page's
 * entries are its rows), whole data pages of at most skip - *skipped rows are passed over
 * without being decompressed, and *skipped counts their rows. */
static int load_page_skipping(pq_column_reader *r, uint64_t skip, uint64_t *skipped, bool *end,
                              sqe_error *err) {
    *end = false;
    for (;;) {
        /* The previous page (also an empty one passed over below) is done. */
        if (r->in_page) SQE_TRY(retire_current(r, err));
        if (r->pos >= r->len) {
            *end = true;
            return SQE_OK;
        }
        pq_page_header h;
        size_t hlen;
        arena ha;
        arena_init(&ha, r->tracker);
        int rc = pq_meta_decode_page_header(&ha, r->chunk + r->pos, r->len - r->pos, &h, &hlen, err);
        arena_destroy(&ha); /* statistics binaries are not used */
        SQE_TRY(add_context(r, rc, err));
        size_t body_off = r->pos + hlen;
        if ((size_t)h.compressed_page_size > r->len - body_off)
            return file_error(r, err, "page extends past the end of the column chunk");
        const uint8_t *body = r->chunk + body_off;
        r->pos = body_off + (size_t)h.compressed_page_size;
        if (skip > *skipped && r->leaf->max_rep == 0) {
            int64_t rows = -1;
            if (h.type == PQ_PAGE_DATA && h.has_data_page_header)
                rows = h.data_page_header.num_values;
            else if (h.type == PQ_PAGE_DATA_V2 && h.has_data_page_header_v2)
                rows = h.data_page_header_v2.num_values;
            if (rows >= 0 && (uint64_t)rows <= skip - *skipped) {
                *skipped += (uint64_t)rows;
                continue;
            }
        }
        SQE_TRY(add_context(r, pq_check_page_crc(h.has_crc, h.crc, body, (size_t)h.compressed_page_size, err), err));
        if (h.type == PQ_PAGE_DICTIONARY) {
            SQE_TRY(decode_dictionary(r, &h, body, err));
            continue;
        }
        if (h.type == PQ_PAGE_DATA) {
            if (!h.has_data_page_header) return file_error(r, err, "data page without its header");
            const pq_data_page_header *dh = &h.data_page_header;
            if (dh->num_values < 0) return file_error(r, err, "negative value count in a page");
            const uint8_t *data;
            SQE_TRY(decompress_into(r, &r->cur, body, (size_t)h.compressed_page_size,
                                    (size_t)h.uncompressed_page_size, &data, err));
            r->in_page = true;
            size_t avail = (size_t)h.uncompressed_page_size, off = 0, used = 0;
            if (r->leaf->max_rep > 0) {
                SQE_TRY(init_levels(r, &r->rep_dec, &r->rep_leg, &r->rep_legacy,
                                    dh->repetition_level_encoding, r->bit_width_rep, dh->num_values,
                                    data, avail, &used, err));
                off += used;
            }
            if (r->leaf->max_def > 0) {
                SQE_TRY(init_levels(r, &r->def_dec, &r->def_leg, &r->def_legacy,
                                    dh->definition_level_encoding, r->bit_width_def, dh->num_values,
                                    data + off, avail - off, &used, err));
                off += used;
            }
            r->page_left = dh->num_values;
            SQE_TRY(init_values(r, dh->encoding, data + off, avail - off, dh->num_values, err));
            if (r->page_left == 0) continue;
            return SQE_OK;
        }
        if (h.type == PQ_PAGE_DATA_V2) {
            if (!h.has_data_page_header_v2) return file_error(r, err, "data page v2 without its header");
            const pq_data_page_header_v2 *dh = &h.data_page_header_v2;
            if (dh->num_values < 0 || dh->num_nulls < 0 || dh->num_rows < 0 ||
                dh->definition_levels_byte_length < 0 || dh->repetition_levels_byte_length < 0)
                return file_error(r, err, "negative count in a data page v2 header");
            size_t lv = (size_t)dh->definition_levels_byte_length + (size_t)dh->repetition_levels_byte_length;
            if (lv > (size_t)h.compressed_page_size || lv > (size_t)h.uncompressed_page_size)
                return file_error(r, err, "level sections larger than the page");
            const uint8_t *rep_p = body, *def_p = body + dh->repetition_levels_byte_length;
            r->in_page = true;
            if (r->leaf->max_rep > 0) {
                r->rep_legacy = false;
                SQE_TRY(add_context(r, pq_rle_init(&r->rep_dec, rep_p, (size_t)dh->repetition_levels_byte_length,
                                                   r->bit_width_rep, err), err));
            }
            if (r->leaf->max_def > 0) {
                r->def_legacy = false;
                SQE_TRY(add_context(r, pq_rle_init(&r->def_dec, def_p, (size_t)dh->definition_levels_byte_length,
                                                   r->bit_width_def, err), err));
            }
            const uint8_t *vals = body + lv;
            size_t vin = (size_t)h.compressed_page_size - lv, vout = (size_t)h.uncompressed_page_size - lv;
            const uint8_t *data;
            if (dh->is_compressed && r->cm->codec != PQ_CODEC_UNCOMPRESSED) {
                SQE_TRY(decompress_into(r, &r->cur, vals, vin, vout, &data, err));
            } else {
                if (vin != vout)
                    return file_error(r, err, "uncompressed page with different compressed and uncompressed sizes");
                data = vals;
            }
            r->page_left = dh->num_values;
            SQE_TRY(init_values(r, dh->encoding, data, vout, dh->num_values, err));
            if (r->page_left == 0) continue;
            return SQE_OK;
        }
        /* INDEX_PAGE and unknown page types are skipped. */
    }
}

static int load_page(pq_column_reader *r, bool *end, sqe_error *err) {
    uint64_t none = 0;
    return load_page_skipping(r, 0, &none, end, err);
}

static int get_levels(pq_column_reader *r, bool rep, uint32_t *out, uint32_t n, sqe_error *err) {
    int rc;
    if (rep ? r->rep_legacy : r->def_legacy)
        rc = pq_bitpacked_legacy_get(rep ? &r->rep_leg : &r->def_leg, out, n, err);
    else
        rc = pq_rle_get_exact(rep ? &r->rep_dec : &r->def_dec, out, n, err);
    SQE_TRY(add_context(r, rc, err));
    int max = rep ? r->leaf->max_rep : r->leaf->max_def;
    for (uint32_t i = 0; i < n; i++)
        if (out[i] > (uint32_t)max) return file_error(r, err, "level above the column's maximum");
    return SQE_OK;
}

/* Gathers dictionary entries idx[0..n) into dst rows [off, off + n). */
static void gather_dict(pq_column_reader *r, const uint32_t *idx, vec *dst, uint32_t off, uint32_t n) {
    size_t w = type_physical_size(r->leaf->type);
    const uint8_t *d = r->dict.data;
    uint8_t *o = (uint8_t *)dst->data + (size_t)off * w;
    switch (w) {
    case 1:
        for (uint32_t i = 0; i < n; i++) o[i] = d[idx[i]];
        break;
    case 2:
        for (uint32_t i = 0; i < n; i++) ((int16_t *)o)[i] = ((const int16_t *)d)[idx[i]];
        break;
    case 4:
        for (uint32_t i = 0; i < n; i++) ((int32_t *)o)[i] = ((const int32_t *)d)[idx[i]];
        break;
    case 8:
        for (uint32_t i = 0; i < n; i++) ((int64_t *)o)[i] = ((const int64_t *)d)[idx[i]];
        break;
    case 16:
        for (uint32_t i = 0; i < n; i++) memcpy(o + 16 * (size_t)i, d + 16 * (size_t)idx[i], 16);
        break;
    default:
        for (uint32_t i = 0; i < n; i++) memcpy(o + w * i, d + w * idx[i], w);
        break;
    }
}

/* True when the physical values decode straight into the SQE layout. */
static bool direct_layout(const pq_node *l) {
    return l->conv == PQ_CONV_I32 || l->conv == PQ_CONV_I64 || l->conv == PQ_CONV_FLOAT ||
           l->conv == PQ_CONV_DOUBLE || l->conv == PQ_CONV_BOOL;
}

/* Decodes n (<= SCRATCH_VALUES) non-null values of the current page into dst rows
 * [off, off + n). */
static int decode_values(pq_column_reader *r, vec *dst, uint32_t off, uint32_t n, sqe_error *err) {
    if (n == 0) return SQE_OK;
    const pq_node *l = r->leaf;
    if (l->conv == PQ_CONV_NULL) return SQE_OK;
    int phys = l->physical;
    if (r->venc == VENC_DICT) {
        SQE_TRY(add_context(r, pq_rle_get_indices(&r->vd.rle, r->u32, n, r->dict_size, err), err));
        gather_dict(r, r->u32, dst, off, n);
        return SQE_OK;
    }
    bool direct = direct_layout(l);
    void *raw = direct ? (uint8_t *)dst->data + (size_t)off * type_physical_size(l->type) : r->raw;
    int rc = SQE_OK;
    switch (r->venc) {
    case VENC_PLAIN:
        switch (phys) {
        case PQ_TYPE_BOOLEAN: rc = pq_plain_get_bool(&r->vd.plain, raw, n, err); break;
        case PQ_TYPE_INT32: rc = pq_plain_get_int32(&r->vd.plain, raw, n, err); break;
        case PQ_TYPE_INT64: rc = pq_plain_get_int64(&r->vd.plain, raw, n, err); break;
        case PQ_TYPE_INT96: rc = pq_plain_get_int96(&r->vd.plain, raw, n, err); break;
        case PQ_TYPE_FLOAT: rc = pq_plain_get_float(&r->vd.plain, raw, n, err); break;
        case PQ_TYPE_DOUBLE: rc = pq_plain_get_double(&r->vd.plain, raw, n, err); break;
        case PQ_TYPE_BYTE_ARRAY: rc = pq_plain_get_byte_array(&r->vd.plain, raw, n, err); break;
        default: rc = pq_plain_get_flba(&r->vd.plain, (uint32_t)l->type_length, raw, n, err); break;
        }
        break;
    case VENC_RLE_BOOL:
        rc = pq_rle_get_exact(&r->vd.rle, r->u32, n, err);
        if (rc == SQE_OK) {
            uint8_t *b = raw;
            for (uint32_t i = 0; i < n; i++) b[i] = (uint8_t)(r->u32[i] & 1);
        }
        break;
    case VENC_DELTA:
        if (phys == PQ_TYPE_INT32)
            rc = pq_delta_get_int32(&r->vd.delta, raw, n, err);
        else
            rc = pq_delta_get_int64(&r->vd.delta, raw, n, err);
        break;
    case VENC_DLBA: rc = pq_dlba_get(&r->vd.dlba, raw, n, err); break;
    case VENC_DBA:
        rc = pq_dba_get(&r->vd.dba, raw, n, err);
        if (rc == SQE_OK && phys == PQ_TYPE_FIXED_LEN_BYTE_ARRAY) {
            const pq_bytes *b = raw;
            for (uint32_t i = 0; i < n; i++)
                if (b[i].len != (uint32_t)l->type_length)
                    return file_error(r, err, "DELTA_BYTE_ARRAY value of the wrong length for its FIXED_LEN_BYTE_ARRAY column");
        }
        break;
    case VENC_BSS:
        if (phys == PQ_TYPE_FIXED_LEN_BYTE_ARRAY) {
            /* Reassemble into the tail of raw, then point views at it (page arena lifetime). */
            uint32_t w = (uint32_t)l->type_length;
            uint8_t *bytes = arena_alloc(page_arena(r, &r->cur), (size_t)w * n + 1);
            if (!bytes) return err_nomem(err, "Parquet page");
            rc = pq_bss_get(&r->vd.bss, bytes, n, err);
            pq_bytes *b = raw;
            for (uint32_t i = 0; i < n && rc == SQE_OK; i++) b[i] = (pq_bytes){bytes + (size_t)w * i, w};
        } else {
            rc = pq_bss_get(&r->vd.bss, raw, n, err);
        }
        break;
    case VENC_DICT: break;
    }
    SQE_TRY(add_context(r, rc, err));
    if (direct) return SQE_OK;
    return convert_values(r, raw, dst, off, n, err);
}

/* dst rows [off, off + n) hold `valid` dense values in their first slots; spreads them to the
 * rows whose level is max_def and marks the others NULL. */
static int expand_nulls(pq_column_reader *r, vec *dst, uint32_t off, const uint32_t *lv, uint32_t n,
                        uint32_t valid, sqe_error *err) {
    size_t w = type_physical_size(r->leaf->type);
    uint8_t *d = (uint8_t *)dst->data;
    uint32_t max = (uint32_t)r->leaf->max_def;
    int64_t j = (int64_t)valid - 1;
    for (int64_t i = (int64_t)n - 1; i >= 0; i--) {
        if (lv[i] == max) {
            if (j != i && w) memcpy(d + (off + (size_t)i) * w, d + (off + (size_t)j) * w, w);
            j--;
        } else {
            SQE_TRY(vec_set_null(dst, off + (uint32_t)i));
        }
    }
    (void)err;
    return SQE_OK;
}

static uint32_t count_valid(const uint32_t *lv, uint32_t n, uint32_t max) {
    uint32_t c = 0;
    for (uint32_t i = 0; i < n; i++) c += lv[i] == max;
    return c;
}

int pq_column_read_flat(pq_column_reader *r, vec *out, uint32_t n, sqe_error *err) {
    if (r->leaf->unsupported)
        return err_set(err, SQE_ERR_NOT_SUPPORTED, "unsupported: %s (file %s, column %s)",
                       r->leaf->unsupported, r->what, r->leaf->name);
    if (r->leaf->conv == PQ_CONV_NULL) {
        /* Always-NULL column: still consume the levels to validate the chunk. */
        SQE_TRY(pq_column_skip_flat(r, n, err));
        for (uint32_t i = 0; i < n; i++) SQE_TRY(vec_set_null(out, i));
        return SQE_OK;
    }
    bool strings = type_is_string_view(r->leaf->type);
    uint32_t rows = 0;
    uint32_t max_def = (uint32_t)r->leaf->max_def;
    while (rows < n) {
        if (!r->in_page || r->page_left == 0) {
            bool end;
            SQE_TRY(load_page(r, &end, err));
            if (end) return file_error(r, err, "fewer values than the row group's row count");
        }
        uint32_t k = n - rows;
        if (k > SCRATCH_VALUES) k = SCRATCH_VALUES;
        if ((int64_t)k > r->page_left) k = (uint32_t)r->page_left;
        uint32_t valid = k;
        uint32_t *lv = NULL;
        if (max_def > 0) {
            lv = r->lv;
            SQE_TRY(get_levels(r, false, lv, k, err));
            valid = count_valid(lv, k, max_def);
        }
        if (strings && r->page_is_dict && (rows == 0 || out->shape == VEC_DICT)) {
            if (rows == 0) {
                uint32_t *sel = vec_sel_make(out, err);
                if (!sel) return err ? err->code : SQE_ERR_OUT_OF_MEMORY;
                out->shape = VEC_DICT;
                out->dict = &r->dict;
                out->sel = sel;
            }
            uint32_t *sel = out->sel_buf + rows;
            uint32_t *idx = valid == k ? sel : (uint32_t *)r->raw;
            SQE_TRY(add_context(r, pq_rle_get_indices(&r->vd.rle, idx, valid, r->dict_size, err), err));
            if (valid != k) {
                uint32_t j = 0;
                for (uint32_t i = 0; i < k; i++) sel[i] = lv[i] == max_def ? idx[j++] : r->dict_size;
            }
        } else {
            if (out->shape == VEC_DICT) SQE_TRY(vec_flatten(out, rows, err));
            if (lv && valid != k) {
                SQE_TRY(decode_values(r, out, rows, valid, err));
                SQE_TRY(expand_nulls(r, out, rows, lv, k, valid, err));
            } else {
                SQE_TRY(decode_values(r, out, rows, valid, err));
            }
        }
        rows += k;
        r->page_left -= k;
    }
    return SQE_OK;
}

int pq_column_skip_flat(pq_column_reader *r, uint64_t n, sqe_error *err) {
    uint32_t max_def = (uint32_t)r->leaf->max_def;
    while (n > 0) {
        if (!r->in_page || r->page_left == 0) {
            bool end;
            uint64_t skipped = 0;
            SQE_TRY(load_page_skipping(r, n, &skipped, &end, err));
            n -= skipped;
            if (n == 0) break;
            if (end) return file_error(r, err, "fewer values than the row group's row count");
        }
        uint32_t k = n > SCRATCH_VALUES ? SCRATCH_VALUES : (uint32_t)n;
        if ((int64_t)k > r->page_left) k = (uint32_t)r->page_left;
        if (k == r->page_left && r->page_left == 0) continue;
        uint32_t valid = k;
        if (max_def > 0) {
            SQE_TRY(get_levels(r, false, r->u32, k, err));
            valid = count_valid(r->u32, k, max_def);
        }
        if (r->leaf->conv != PQ_CONV_NULL && valid) {
            if (!r->skip_vec_ok) {
                SQE_TRY(vec_init(&r->skip_vec, r->leaf->type, SCRATCH_VALUES, r->tracker, err));
                r->skip_vec_ok = true;
            }
            SQE_TRY(decode_values(r, &r->skip_vec, 0, valid, err));
        }
        n -= k;
        r->page_left -= k;
    }
    return SQE_OK;
}

int pq_column_next_entries(pq_column_reader *r, uint32_t max, uint16_t *def, uint16_t *rep,
                           uint32_t *n_entries, vec *vals, uint32_t *n_vals, sqe_error *err) {
    *n_entries = 0;
    if (r->leaf->unsupported)
        return err_set(err, SQE_ERR_NOT_SUPPORTED, "unsupported: %s (file %s, column %s)",
                       r->leaf->unsupported, r->what, r->leaf->name);
    if (!r->in_page || r->page_left == 0) {
        bool end;
        SQE_TRY(load_page(r, &end, err));
        if (end) return SQE_OK;
    }
    uint32_t k = max > SCRATCH_VALUES ? SCRATCH_VALUES : max;
    if ((int64_t)k > r->page_left) k = (uint32_t)r->page_left;
    uint32_t max_def = (uint32_t)r->leaf->max_def;
    uint32_t valid = k;
    if (r->leaf->max_rep > 0) {
        SQE_TRY(get_levels(r, true, r->u32, k, err));
        for (uint32_t i = 0; i < k; i++) rep[i] = (uint16_t)r->u32[i];
    }
    if (max_def > 0) {
        SQE_TRY(get_levels(r, false, r->u32, k, err));
        valid = 0;
        for (uint32_t i = 0; i < k; i++) {
            def[i] = (uint16_t)r->u32[i];
            valid += r->u32[i] == max_def;
        }
    } else {
        for (uint32_t i = 0; i < k; i++) def[i] = 0;
    }
    if (r->leaf->conv != PQ_CONV_NULL && valid) {
        SQE_TRY(vec_reserve(vals, *n_vals + valid, err));
        SQE_TRY(decode_values(r, vals, *n_vals, valid, err));
    }
    *n_vals += valid;
    r->page_left -= k;
    *n_entries = k;
    return SQE_OK;
}
