/*
 * pq_codec.h: Parquet page (de)compression and page checksums.
 *
 * A Parquet page body (everything after the PageHeader) is compressed with the column chunk's
 * codec (parquet.thrift ColumnMetaData.codec, enum CompressionCodec). The PageHeader carries
 * uncompressed_page_size and compressed_page_size and, optionally, a CRC-32 of the page body as
 * written to disk (parquet.thrift PageHeader.crc: "The 32-bit CRC checksum for the page, to be
 * calculated as follows: ... over the compressed page ... excluding the page header"; the
 * polynomial is the one of zlib/gzip, CRC-32 0x04C11DB7 reflected).
 *
 * Typical use (reader):
 *   pq_check_page_crc(hdr.has_crc, hdr.crc, body, hdr.compressed_page_size, err);
 *   out = buffer of hdr.uncompressed_page_size bytes;
 *   pq_decompress(codec, body, hdr.compressed_page_size, out, hdr.uncompressed_page_size, err);
 * (For DATA_PAGE_V2 the caller passes only the values section, after the level bytes, and skips
 * the call when is_compressed is false.)
 *
 * Codecs (CompressionCodec values, parquet-format Compression.md):
 *   UNCOMPRESSED 0, SNAPPY 1 (raw snappy block format, no framing), GZIP 2 (RFC 1952; zlib RFC
 *   1950 streams and concatenated gzip members are accepted too), LZO 3 (not supported), BROTLI 4
 *   (RFC 7932), LZ4 5 (deprecated: Hadoop-framed LZ4 blocks, falling back to a raw LZ4 block as
 *   written by older parquet-cpp), ZSTD 6 (RFC 8878, one or more frames), LZ4_RAW 7 (one LZ4
 *   block, no framing).
 *
 * Errors: INVALID_FILE for corrupt or mis-sized data ("Invalid Parquet page: ..."),
 * NOT_SUPPORTED for LZO and unknown codec values, INVALID_ARGUMENTS for a bad compression
 * level, OUT_OF_MEMORY when an allocation fails. No function trusts any length inside the
 * compressed data; output is always bounded by the caller's buffer.
 */
#ifndef SQE_FORMAT_PARQUET_PQ_CODEC_H
#define SQE_FORMAT_PARQUET_PQ_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "format/parquet/pq_meta.h" /* pq_codec: parquet.thrift enum CompressionCodec */

/* pq_compress level meaning "the codec's default" (GZIP 6, ZSTD 3, BROTLI 8). */
#define PQ_LEVEL_DEFAULT 0

/* Name of a codec value ("SNAPPY", ...); "UNKNOWN" for values outside the enum. Never NULL. */
const char *pq_codec_name(int codec);

/*
 * Decompresses in[0..in_len) with codec into out[0..out_len). out_len is the page header's
 * uncompressed_page_size and must be exactly the decompressed size: less or more data is
 * INVALID_FILE ("Invalid Parquet page: decompressed size ... does not match ..."). out may be
 * NULL when out_len is 0; in may be NULL when in_len is 0. An empty input with out_len 0 is
 * accepted for every codec. Never writes outside out[0..out_len); after an error the contents
 * of out are unspecified. in and out must not overlap.
 */
int pq_decompress(int codec, const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len,
                  sqe_error *err);

/*
 * Compresses in[0..in_len) with codec (UNCOMPRESSED, SNAPPY, GZIP, BROTLI, ZSTD, LZ4_RAW) at
 * level (PQ_LEVEL_DEFAULT or: GZIP 1..9, ZSTD the library's min..max level except 0, BROTLI
 * 1..11; ignored by the others). On success *out is a malloc'ed buffer of *out_len bytes that
 * the caller frees with free() (non-NULL even when *out_len is 0). On error *out is NULL and
 * *out_len 0. LZO and the deprecated LZ4 are NOT_SUPPORTED (writers should use LZ4_RAW).
 */
int pq_compress(int codec, const uint8_t *in, size_t in_len, uint8_t **out, size_t *out_len,
                int level, sqe_error *err);

/* Standard CRC-32 (ISO-HDLC / zlib / gzip) of p[0..n); the checksum of Parquet page headers.
 * crc32("123456789") == 0xCBF43926. p may be NULL when n is 0. */
uint32_t pq_crc32(const uint8_t *p, size_t n);

/*
 * Checks a page body against the PageHeader crc field: when has_crc is true, returns
 * INVALID_FILE ("Invalid Parquet page: CRC mismatch ...") unless pq_crc32(page, page_len)
 * equals (uint32_t)crc. page is the page body exactly as stored (compressed, after the header).
 * Returns SQE_OK when has_crc is false.
 */
int pq_check_page_crc(bool has_crc, int32_t crc, const uint8_t *page, size_t page_len,
                      sqe_error *err);

#endif
