/*
 * s3_xml.h: reading the few XML documents S3 answers with (error bodies, ListObjectsV2 pages,
 * CreateMultipartUpload, DeleteObjects results) and escaping text for the bodies we send.
 *
 * Not a general XML parser: elements are found by name (first match at any depth, no
 * nesting of an element inside one of the same name), text is entity-decoded (&lt; &gt; &amp;
 * &quot; &apos; and numeric references), CDATA and comments are not interpreted. Every
 * function is bounded by the given length (no NUL needed) and safe on any input.
 */
#ifndef SQE_IO_S3_XML_H
#define SQE_IO_S3_XML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "common/strbuf.h"

/* The decoded text of the first element named tag in xml[0..len), malloc'ed (caller frees);
 * NULL when there is no such element or memory ran out (then *oom is set when oom != NULL). */
char *s3_xml_text(const char *xml, size_t len, const char *tag, bool *oom);

/* S3's <Error><Code>..</Code><Message>..</Message></Error>: both fields malloc'ed or NULL. */
typedef struct s3_error_info {
    char *code;
    char *message;
} s3_error_info;
void s3_error_info_parse(const char *xml, size_t len, s3_error_info *out);
void s3_error_info_reset(s3_error_info *e);

/* One object of a listing. */
typedef struct s3_object_entry {
    char *key;
    uint64_t size;
    char *etag;      /* may be NULL */
} s3_object_entry;

/* One ListObjectsV2 page. */
typedef struct s3_list_page {
    s3_object_entry *items;
    uint32_t n_items;
    bool truncated;
    char *next_token;   /* NextContinuationToken; non-NULL whenever truncated */
} s3_list_page;

/* Parses a ListObjectsV2 result. IO_ERROR ("malformed ...") when the body is not one (no
 * ListBucketResult, a Contents without Key, a Size that is not a number, truncated without a
 * continuation token); OUT_OF_MEMORY. On error *out is empty. */
int s3_list_page_parse(const char *xml, size_t len, s3_list_page *out, sqe_error *err);
void s3_list_page_reset(s3_list_page *p);

/* Appends s with & < > " ' escaped as entities. */
void s3_xml_escape(strbuf *sb, const char *s);

#endif
