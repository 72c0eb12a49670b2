/*
 * pq_codec.c: Parquet page decompression and compression over the system codec libraries
 * (snappy, zlib, brotli, lz4, zstd), and the CRC-32 of page bodies.
 *
 * INTERFACE: pq_codec_name, pq_decompress, pq_compress, pq_crc32, pq_check_page_crc
 * NOTES:
 *   - Every decompressor writes into the caller's buffer of exactly out_len bytes (the page
 *     header's uncompressed_page_size) and nothing else: no length found inside the compressed
 *     bytes is used to size anything. A stream that ends early or would produce more than out_len
 *     bytes is INVALID_FILE with the "decompressed size ... does not match ..." message; when the
 *     library cannot tell "too much output" from "corrupt" (LZ4 blocks) the message says both.
 *   - GZIP (parquet-format Compression.md: "GZIP ... RFC 1952"): zlib's inflate with automatic
 *     gzip/zlib header detection (windowBits 15 + 32); after a member ends, remaining input must
 *     be another member (concatenated members, RFC 1952 section 2.2); trailing garbage is an error.
 *   - LZ4 (deprecated, Compression.md "LZ4"): Hadoop's framing is a sequence of blocks, each
 *     a big-endian uint32 uncompressed size, a big-endian uint32 compressed size and one raw LZ4
 *     block. As Arrow does (arrow/util/compression_lz4.cc, Lz4HadoopCodec), the whole buffer is
 *     first tried as such frames; if any frame does not fit, it is decoded as one raw LZ4 block
 *     (older parquet-cpp wrote that under the LZ4 id).
 *   - LZ4_RAW (Compression.md: "LZ4 block format ... without any additional framing").
 *   - SNAPPY (Compression.md: the snappy block format, no framing): the varint preamble must
 *     equal out_len before decoding.
 *   - ZSTD (RFC 8878): ZSTD_decompress decodes all concatenated frames and skips skippable ones.
 *   - BROTLI (RFC 7932): the streaming decoder, so that "output full but more to come" is told
 *     apart from corruption; the large-window extension is not enabled.
 *   - An empty input with out_len 0 succeeds for every supported codec (some writers store empty
 *     pages with compressed size 0).
 */
#include "format/parquet/pq_codec.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <brotli/decode.h>
#include <brotli/encode.h>
#include <lz4.h>
#include <snappy-c.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#define PQ_GZIP_DEFAULT_LEVEL 6
#define PQ_BROTLI_DEFAULT_LEVEL 8 /* Arrow's default */

const char *pq_codec_name(int codec) {
    switch (codec) {
    case PQ_CODEC_UNCOMPRESSED: return "UNCOMPRESSED";
    case PQ_CODEC_SNAPPY: return "SNAPPY";
    case PQ_CODEC_GZIP: return "GZIP";
    case PQ_CODEC_LZO: return "LZO";
    case PQ_CODEC_BROTLI: return "BROTLI";
    case PQ_CODEC_LZ4: return "LZ4";
    case PQ_CODEC_ZSTD: return "ZSTD";
    case PQ_CODEC_LZ4_RAW: return "LZ4_RAW";
    default: return "UNKNOWN";
    }
}

static int pq_unsupported(int codec, sqe_error *err) {
    if (codec == PQ_CODEC_LZO || codec == PQ_CODEC_LZ4)
        return err_set(err, SQE_ERR_NOT_SUPPORTED, "unsupported: Parquet compression codec %s",
                       pq_codec_name(codec));
    return err_set(err, SQE_ERR_NOT_SUPPORTED, "unsupported: Parquet compression codec %d", codec);
}

static int pq_size_mismatch(size_t got, size_t want, sqe_error *err) {
    return err_set(err, SQE_ERR_INVALID_FILE,
                   "Invalid Parquet page: decompressed size %zu does not match the page header's "
                   "uncompressed size %zu",
                   got, want);
}

static int pq_size_overflow(size_t want, sqe_error *err) {
    return err_set(err, SQE_ERR_INVALID_FILE,
                   "Invalid Parquet page: decompressed size (more than %zu) does not match the "
                   "page header's uncompressed size %zu",
                   want, want);
}

static int pq_corrupt(const char *codec, const char *what, sqe_error *err) {
    return err_set(err, SQE_ERR_INVALID_FILE, "Invalid Parquet page: corrupt %s data (%s)", codec,
                   what);
}

/* ---- decompression ------------------------------------------------------------------------ */

static int pq_decompress_snappy(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len,
                                sqe_error *err) {
    size_t claimed = 0;
    if (snappy_uncompressed_length((const char *)in, in_len, &claimed) != SNAPPY_OK)
        return pq_corrupt("SNAPPY", "bad length preamble", err);
    if (claimed != out_len) return pq_size_mismatch(claimed, out_len, err);
    size_t got = out_len;
    if (snappy_uncompress((const char *)in, in_len, (char *)out, &got) != SNAPPY_OK)
        return pq_corrupt("SNAPPY", "invalid block", err);
    if (got != out_len) return pq_size_mismatch(got, out_len, err);
    return SQE_OK;
}

static int pq_decompress_gzip(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len,
                              sqe_error *err) {
    if (in_len > UINT_MAX || out_len > UINT_MAX)
        return err_set(err, SQE_ERR_INVALID_FILE, "Invalid Parquet page: GZIP page over 4 GiB");
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (inflateInit2(&zs, 15 + 32) != Z_OK) return err_nomem(err, "GZIP decompressor");
    zs.next_in = (Bytef *)in;
    zs.avail_in = (uInt)in_len;
    zs.next_out = out;
    zs.avail_out = (uInt)out_len;
    int rc = SQE_OK;
    for (;;) {
        int zrc = inflate(&zs, Z_NO_FLUSH);
        if (zrc == Z_STREAM_END) {
            if (zs.avail_in == 0) break;
            /* Another gzip member follows (RFC 1952 2.2: a file is a series of members). */
            if (inflateReset(&zs) != Z_OK) {
                rc = pq_corrupt("GZIP", "cannot reset stream", err);
                break;
            }
            continue;
        }
        if (zrc == Z_OK) continue; /* progress was made */
        if (zrc == Z_BUF_ERROR && zs.avail_out == 0 && zs.avail_in > 0) {
            rc = pq_size_overflow(out_len, err);
        } else if (zrc == Z_BUF_ERROR) {
            rc = pq_corrupt("GZIP", "truncated stream", err);
        } else if (zrc == Z_MEM_ERROR) {
            rc = err_nomem(err, "GZIP decompressor");
        } else {
            rc = pq_corrupt("GZIP", zs.msg ? zs.msg : "invalid stream", err);
        }
        break;
    }
    size_t got = out_len - zs.avail_out;
    inflateEnd(&zs);
    if (rc == SQE_OK && got != out_len) rc = pq_size_mismatch(got, out_len, err);
    return rc;
}

static int pq_decompress_brotli(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len,
                                sqe_error *err) {
    BrotliDecoderState *st = BrotliDecoderCreateInstance(NULL, NULL, NULL);
    if (!st) return err_nomem(err, "BROTLI decompressor");
    size_t avail_in = in_len, avail_out = out_len;
    const uint8_t *next_in = in;
    uint8_t *next_out = out;
    int rc = SQE_OK;
    for (;;) {
        BrotliDecoderResult r =
            BrotliDecoderDecompressStream(st, &avail_in, &next_in, &avail_out, &next_out, NULL);
        if (r == BROTLI_DECODER_RESULT_SUCCESS) {
            if (avail_in != 0) rc = pq_corrupt("BROTLI", "trailing bytes after stream", err);
            break;
        }
        if (r == BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT) {
            /* The decoder only asks for more output when it has some to write. */
            rc = pq_size_overflow(out_len, err);
            break;
        }
        if (r == BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT) {
            rc = pq_corrupt("BROTLI", "truncated stream", err);
            break;
        }
        rc = pq_corrupt("BROTLI", BrotliDecoderErrorString(BrotliDecoderGetErrorCode(st)), err);
        break;
    }
    BrotliDecoderDestroyInstance(st);
    if (rc == SQE_OK && avail_out != 0) rc = pq_size_mismatch(out_len - avail_out, out_len, err);
    return rc;
}

/* One raw LZ4 block into out[0..cap); returns the decoded size or -1. */
static int64_t pq_lz4_block(const uint8_t *in, size_t in_len, uint8_t *out, size_t cap) {
    if (in_len > (size_t)INT_MAX || cap > (size_t)INT_MAX) return -1;
    int n = LZ4_decompress_safe((const char *)in, (char *)out, (int)in_len, (int)cap);
    return n < 0 ? -1 : (int64_t)n;
}

static int pq_decompress_lz4_raw(const char *name, const uint8_t *in, size_t in_len, uint8_t *out,
                                 size_t out_len, sqe_error *err) {
    if (in_len > (size_t)INT_MAX || out_len > (size_t)INT_MAX)
        return err_set(err, SQE_ERR_INVALID_FILE, "Invalid Parquet page: %s page over 2 GiB", name);
    int64_t n = pq_lz4_block(in, in_len, out, out_len);
    if (n < 0)
        return err_set(err, SQE_ERR_INVALID_FILE,
                       "Invalid Parquet page: corrupt %s data, or decompressed size (more than "
                       "%zu) does not match the page header's uncompressed size %zu",
                       name, out_len, out_len);
    if ((size_t)n != out_len) return pq_size_mismatch((size_t)n, out_len, err);
    return SQE_OK;
}

static uint32_t pq_load_be32(const uint8_t *p) {
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

/* Hadoop framing: true when the whole input is well-formed frames decoding to exactly out_len. */
static bool pq_lz4_hadoop(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len) {
    size_t done = 0;
    while (in_len >= 8) {
        uint32_t usize = pq_load_be32(in), csize = pq_load_be32(in + 4);
        in += 8;
        in_len -= 8;
        if (csize > in_len || usize > out_len - done) return false;
        int64_t n = pq_lz4_block(in, csize, out + done, out_len - done);
        if (n < 0 || (uint64_t)n != usize) return false;
        in += csize;
        in_len -= csize;
        done += usize;
    }
    return in_len == 0 && done == out_len;
}

int pq_decompress(int codec, const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len,
                  sqe_error *err) {
    static const uint8_t no_input[1] = {0};
    uint8_t no_output[1];
    if (codec < PQ_CODEC_UNCOMPRESSED || codec > PQ_CODEC_LZ4_RAW || codec == PQ_CODEC_LZO)
        return pq_unsupported(codec, err);
    if (in_len == 0 && out_len == 0) return SQE_OK;
    if (in == NULL || in_len == 0) {
        in = no_input;
        in_len = 0;
    }
    if (out == NULL || out_len == 0) {
        if (out_len != 0)
            return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "pq_decompress: NULL output buffer");
        out = no_output;
    }
    switch (codec) {
    case PQ_CODEC_UNCOMPRESSED:
        if (in_len != out_len) return pq_size_mismatch(in_len, out_len, err);
        memcpy(out, in, in_len);
        return SQE_OK;
    case PQ_CODEC_SNAPPY: return pq_decompress_snappy(in, in_len, out, out_len, err);
    case PQ_CODEC_GZIP: return pq_decompress_gzip(in, in_len, out, out_len, err);
    case PQ_CODEC_BROTLI: return pq_decompress_brotli(in, in_len, out, out_len, err);
    case PQ_CODEC_LZ4:
        if (pq_lz4_hadoop(in, in_len, out, out_len)) return SQE_OK;
        return pq_decompress_lz4_raw("LZ4", in, in_len, out, out_len, err);
    case PQ_CODEC_ZSTD: {
        size_t n = ZSTD_decompress(out, out_len, in, in_len);
        if (ZSTD_isError(n)) {
            if (ZSTD_getErrorCode(n) == ZSTD_error_dstSize_tooSmall)
                return pq_size_overflow(out_len, err);
            return pq_corrupt("ZSTD", ZSTD_getErrorName(n), err);
        }
        if (n != out_len) return pq_size_mismatch(n, out_len, err);
        return SQE_OK;
    }
    case PQ_CODEC_LZ4_RAW: return pq_decompress_lz4_raw("LZ4_RAW", in, in_len, out, out_len, err);
    default: return pq_unsupported(codec, err);
    }
}

/* ---- compression -------------------------------------------------------------------------- */

static int pq_bad_level(int codec, int level, sqe_error *err) {
    return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "invalid %s compression level %d",
                   pq_codec_name(codec), level);
}

static int pq_compress_gzip(const uint8_t *in, size_t in_len, uint8_t *buf, size_t cap,
                            size_t *len, int level, sqe_error *err) {
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    /* windowBits 15 + 16: a gzip (RFC 1952) wrapper, as Compression.md requires. */
    if (deflateInit2(&zs, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return err_nomem(err, "GZIP compressor");
    zs.next_in = (Bytef *)in;
    zs.avail_in = (uInt)in_len;
    zs.next_out = buf;
    zs.avail_out = (uInt)cap;
    int zrc = deflate(&zs, Z_FINISH);
    *len = cap - zs.avail_out;
    deflateEnd(&zs);
    if (zrc != Z_STREAM_END)
        return err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "GZIP compression failed (%d)", zrc);
    return SQE_OK;
}

int pq_compress(int codec, const uint8_t *in, size_t in_len, uint8_t **out, size_t *out_len,
                int level, sqe_error *err) {
    static const uint8_t no_input[1] = {0};
    *out = NULL;
    *out_len = 0;
    if (in == NULL) {
        if (in_len != 0)
            return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "pq_compress: NULL input buffer");
        in = no_input;
    }
    size_t cap = 0;
    switch (codec) {
    case PQ_CODEC_UNCOMPRESSED: cap = in_len; break;
    case PQ_CODEC_SNAPPY: cap = snappy_max_compressed_length(in_len); break;
    case PQ_CODEC_GZIP:
        if (level == PQ_LEVEL_DEFAULT) level = PQ_GZIP_DEFAULT_LEVEL;
        if (level < 1 || level > 9) return pq_bad_level(codec, level, err);
        if (in_len > UINT_MAX / 2)
            return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "GZIP page input over 2 GiB");
        cap = compressBound((uLong)in_len) + 32; /* + gzip header/trailer over zlib's */
        break;
    case PQ_CODEC_BROTLI:
        if (level == PQ_LEVEL_DEFAULT) level = PQ_BROTLI_DEFAULT_LEVEL;
        if (level < 1 || level > BROTLI_MAX_QUALITY) return pq_bad_level(codec, level, err);
        cap = BrotliEncoderMaxCompressedSize(in_len);
        if (cap == 0)
            return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "BROTLI page input too large");
        break;
    case PQ_CODEC_ZSTD:
        if (level == PQ_LEVEL_DEFAULT) level = ZSTD_CLEVEL_DEFAULT;
        if (level < ZSTD_minCLevel() || level > ZSTD_maxCLevel())
            return pq_bad_level(codec, level, err);
        cap = ZSTD_compressBound(in_len);
        if (ZSTD_isError(cap))
            return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "ZSTD page input too large");
        break;
    case PQ_CODEC_LZ4_RAW:
        if (in_len > LZ4_MAX_INPUT_SIZE)
            return err_set(err, SQE_ERR_INVALID_ARGUMENTS, "LZ4_RAW page input too large");
        cap = (size_t)LZ4_compressBound((int)in_len);
        break;
    default: return pq_unsupported(codec, err);
    }
    uint8_t *buf = malloc(cap ? cap : 1);
    if (!buf) return err_nomem(err, "compressed page");
    size_t len = cap;
    int rc = SQE_OK;
    switch (codec) {
    case PQ_CODEC_UNCOMPRESSED: memcpy(buf, in, in_len); break;
    case PQ_CODEC_SNAPPY:
        if (snappy_compress((const char *)in, in_len, (char *)buf, &len) != SNAPPY_OK)
            rc = err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "SNAPPY compression failed");
        break;
    case PQ_CODEC_GZIP: rc = pq_compress_gzip(in, in_len, buf, cap, &len, level, err); break;
    case PQ_CODEC_BROTLI:
        if (!BrotliEncoderCompress(level, BROTLI_DEFAULT_WINDOW, BROTLI_MODE_GENERIC, in_len, in,
                                   &len, buf))
            rc = err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "BROTLI compression failed");
        break;
    case PQ_CODEC_ZSTD:
        len = ZSTD_compress(buf, cap, in, in_len, level);
        if (ZSTD_isError(len))
            rc = err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "ZSTD compression failed: %s",
                         ZSTD_getErrorName(len));
        break;
    case PQ_CODEC_LZ4_RAW: {
        int n = LZ4_compress_default((const char *)in, (char *)buf, (int)in_len, (int)cap);
        if (n <= 0) rc = err_set(err, SQE_ERR_GENERIC_INTERNAL_ERROR, "LZ4_RAW compression failed");
        len = n > 0 ? (size_t)n : 0;
        break;
    }
    default: break;
    }
    if (rc != SQE_OK) {
        free(buf);
        return rc;
    }
    *out = buf;
    *out_len = len;
    return SQE_OK;
}

/* ---- checksums ---------------------------------------------------------------------------- */

uint32_t pq_crc32(const uint8_t *p, size_t n) {
    if (n == 0) return 0;
    return (uint32_t)crc32_z(0L, p, n);
}

int pq_check_page_crc(bool has_crc, int32_t crc, const uint8_t *page, size_t page_len,
                      sqe_error *err) {
    if (!has_crc) return SQE_OK;
    uint32_t got = pq_crc32(page, page_len);
    if (got != (uint32_t)crc)
        return err_set(err, SQE_ERR_INVALID_FILE,
                       "Invalid Parquet page: CRC mismatch (page header 0x%08x, page data 0x%08x)",
                       (uint32_t)crc, got);
    return SQE_OK;
}
