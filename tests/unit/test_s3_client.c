/*
 * test_s3_client.c: the S3 client's pure parts: S3 XML error bodies, ListObjectsV2 pages
 * (valid and hostile), XML escaping, URL/host building for both addressing styles, endpoint
 * validation and s3:// URI parsing. Requests against a real server are in tests/s3.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "io/io_s3.h"
#include "io/s3_client.h"
#include "io/s3_xml.h"

static void test_error_body(void **state) {
    (void)state;
    const char *xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>AccessDenied</Code>"
                      "<Message>Access &amp; more &lt;denied&gt; &#x263A;&#65;</Message>"
                      "<RequestId>1</RequestId></Error>";
    s3_error_info e;
    s3_error_info_parse(xml, strlen(xml), &e);
    assert_string_equal(e.code, "AccessDenied");
    assert_string_equal(e.message, "Access & more <denied> \xe2\x98\xba" "A");
    s3_error_info_reset(&e);
    /* not XML, truncated, empty: no fields, no crash */
    const char *bad[] = {"", "<Error><Code>NoSuchKey", "<Code", "plain text", "<Code/>x",
                         "<Error><Message>&#xFFFFFFFFFF;&#0;&bogus;&</Message></Error>"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        s3_error_info_parse(bad[i], strlen(bad[i]), &e);
        if (i == 4) assert_string_equal(e.code, "");
        else if (i == 5) assert_string_equal(e.message, "&#xFFFFFFFFFF;\xef\xbf\xbd&bogus;&");
        else assert_null(e.code);
        s3_error_info_reset(&e);
    }
    s3_error_info_parse(NULL, 0, &e);
    assert_null(e.code);
    /* the length bounds the scan: the Code past len is not seen */
    const char *cut = "<Error><Code>X</Code></Error>";
    s3_error_info_parse(cut, 15, &e);
    assert_null(e.code);
}

static void test_list_page(void **state) {
    (void)state;
    const char *xml =
        "<?xml version=\"1.0\"?><ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
        "<Name>b</Name><Prefix>dir/</Prefix><KeyCount>2</KeyCount><MaxKeys>1000</MaxKeys>"
        "<IsTruncated>true</IsTruncated>"
        "<Contents><Key>dir/a&amp;b.parquet</Key><LastModified>x</LastModified>"
        "<ETag>&quot;abc&quot;</ETag><Size>123</Size></Contents>"
        "<Contents><Key>dir/c.parquet</Key><Size>18446744073709551615</Size></Contents>"
        "<NextContinuationToken>tok/+=</NextContinuationToken></ListBucketResult>";
    s3_list_page p;
    assert_int_equal(s3_list_page_parse(xml, strlen(xml), &p, NULL), SQE_OK);
    assert_int_equal(p.n_items, 2);
    assert_string_equal(p.items[0].key, "dir/a&b.parquet");
    assert_int_equal(p.items[0].size, 123);
    assert_string_equal(p.items[0].etag, "\"abc\"");
    assert_string_equal(p.items[1].key, "dir/c.parquet");
    assert_true(p.items[1].size == UINT64_MAX);
    assert_null(p.items[1].etag);
    assert_true(p.truncated);
    assert_string_equal(p.next_token, "tok/+=");
    s3_list_page_reset(&p);

    const char *empty = "<ListBucketResult><IsTruncated>false</IsTruncated></ListBucketResult>";
    assert_int_equal(s3_list_page_parse(empty, strlen(empty), &p, NULL), SQE_OK);
    assert_int_equal(p.n_items, 0);
    assert_false(p.truncated);
    s3_list_page_reset(&p);
}

static void test_list_page_hostile(void **state) {
    (void)state;
    const char *bad[] = {
        "",
        "<html>not s3</html>",
        "<ListBucketResult>",                                                   /* unclosed */
        "<ListBucketResult><Contents><Size>1</Size></Contents></ListBucketResult>", /* no key */
        "<ListBucketResult><Contents><Key>k</Key><Size>-1</Size></Contents></ListBucketResult>",
        "<ListBucketResult><Contents><Key>k</Key><Size>18446744073709551616</Size></Contents>"
        "</ListBucketResult>",                                                  /* overflow */
        "<ListBucketResult><Contents><Key>k</Key></Contents></ListBucketResult>", /* no size */
        "<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>",   /* no token */
        "<ListBucketResult><Contents><Key></Key><Size>1</Size></Contents></ListBucketResult>",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        s3_list_page p;
        sqe_error err;
        int rc = s3_list_page_parse(bad[i], strlen(bad[i]), &p, &err);
        if (rc != SQE_ERR_IO_ERROR) fail_msg("case %zu: rc %d", i, rc);
        assert_non_null(strstr(err.message, "malformed ListObjectsV2"));
        assert_null(p.items);
        assert_int_equal(p.n_items, 0);
    }
    /* a big page of objects, and a body cut at every length: never reads past the end */
    char *big = malloc(1 << 20);
    size_t n = (size_t)sprintf(big, "<ListBucketResult>");
    for (int i = 0; i < 3000; i++)
        n += (size_t)sprintf(big + n, "<Contents><Key>k%04d</Key><Size>%d</Size></Contents>", i, i);
    n += (size_t)sprintf(big + n, "</ListBucketResult>");
    s3_list_page p;
    assert_int_equal(s3_list_page_parse(big, n, &p, NULL), SQE_OK);
    assert_int_equal(p.n_items, 3000);
    assert_string_equal(p.items[2999].key, "k2999");
    s3_list_page_reset(&p);
    for (size_t cut = 0; cut < 400; cut++) {
        char *copy = malloc(cut ? cut : 1); /* exact size: ASan catches any overread */
        memcpy(copy, big, cut);
        if (s3_list_page_parse(copy, cut, &p, NULL) == SQE_OK) s3_list_page_reset(&p);
        free(copy);
    }
    free(big);
}

static void test_escape(void **state) {
    (void)state;
    strbuf sb;
    strbuf_init(&sb);
    s3_xml_escape(&sb, "a<b>&\"c'");
    assert_string_equal(strbuf_cstr(&sb), "a&lt;b&gt;&amp;&quot;c&apos;");
    const char *x = "<Key>a&lt;b&gt;&amp;&quot;c&apos;</Key>";
    char *back = s3_xml_text(x, strlen(x), "Key", NULL);
    assert_string_equal(back, "a<b>&\"c'");
    free(back);
    strbuf_reset(&sb);
}

static void test_urls(void **state) {
    (void)state;
    s3_config cfg = {.endpoint = "http://127.0.0.1:9000", .path_style = true};
    s3_client *c;
    assert_int_equal(s3_client_create(&cfg, &c, NULL), SQE_OK);
    char *host;
    char *url = s3_client_url(c, "bkt", "dir/my file+1.parquet", &host);
    assert_string_equal(url, "http://127.0.0.1:9000/bkt/dir/my%20file%2B1.parquet");
    assert_string_equal(host, "127.0.0.1:9000");
    free(url);
    free(host);
    url = s3_client_url(c, "bkt", NULL, &host);
    assert_string_equal(url, "http://127.0.0.1:9000/bkt");
    free(url);
    free(host);
    s3_client_destroy(c);

    s3_config vh = {.region = "eu-west-1"};
    assert_int_equal(s3_client_create(&vh, &c, NULL), SQE_OK);
    url = s3_client_url(c, "bkt", "a/b", &host);
    assert_string_equal(url, "https://bkt.s3.eu-west-1.amazonaws.com/a/b");
    assert_string_equal(host, "bkt.s3.eu-west-1.amazonaws.com");
    free(url);
    free(host);
    s3_client_destroy(c);

    const char *bad[] = {"ftp://x", "127.0.0.1:9000", "http://", "http://h/path", "http://u@h",
                         "http://h h"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        s3_config b = {.endpoint = bad[i]};
        sqe_error err;
        assert_int_equal(s3_client_create(&b, &c, &err), SQE_ERR_INVALID_ARGUMENTS);
        assert_null(c);
    }
    s3_config slash = {.endpoint = "http://h:1/"};
    assert_int_equal(s3_client_create(&slash, &c, NULL), SQE_OK);
    s3_client_destroy(c);
}

static void test_uri_parse(void **state) {
    (void)state;
    char *b, *k;
    assert_true(io_s3_is_uri("s3://b/k"));
    assert_true(io_s3_is_uri("s3a://b/k"));
    assert_false(io_s3_is_uri("/tmp/s3://x"));
    assert_false(io_s3_is_uri("file:///x"));
    assert_int_equal(io_s3_parse_uri("s3://bucket/dir/x.parquet", &b, &k, NULL), SQE_OK);
    assert_string_equal(b, "bucket");
    assert_string_equal(k, "dir/x.parquet");
    free(b);
    free(k);
    assert_int_equal(io_s3_parse_uri("s3a://bucket", &b, &k, NULL), SQE_OK);
    assert_string_equal(b, "bucket");
    assert_string_equal(k, "");
    free(b);
    free(k);
    assert_int_equal(io_s3_parse_uri("s3:///k", &b, &k, NULL), SQE_ERR_INVALID_ARGUMENTS);
    assert_null(b);
    assert_int_equal(io_s3_parse_uri("/local", &b, &k, NULL), SQE_ERR_INVALID_ARGUMENTS);
}

static void test_no_credentials(void **state) {
    (void)state;
    /* nothing listens on port 9: the missing credentials are reported before any request */
    s3_config cfg = {.endpoint = "http://127.0.0.1:9", .path_style = true, .max_attempts = 1};
    s3_client *c;
    assert_int_equal(s3_client_create(&cfg, &c, NULL), SQE_OK);
    sigv4_credentials none = {NULL, NULL, NULL};
    uint64_t size;
    sqe_error err;
    assert_int_equal(s3_head(c, &none, "b", "k", &size, NULL, &err), SQE_ERR_PERMISSION_DENIED);
    assert_int_equal(s3_client_requests(c), 0);
    /* a refused connection is an IO_ERROR naming the object, after max_attempts tries */
    sigv4_credentials some = {"AK", "SK", NULL};
    assert_int_equal(s3_head(c, &some, "b", "k", &size, NULL, &err), SQE_ERR_IO_ERROR);
    assert_non_null(strstr(err.message, "s3://b/k"));
    assert_int_equal(s3_client_requests(c), 1);
    s3_client_destroy(c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_error_body),      cmocka_unit_test(test_list_page),
        cmocka_unit_test(test_list_page_hostile), cmocka_unit_test(test_escape),
        cmocka_unit_test(test_urls),            cmocka_unit_test(test_uri_parse),
        cmocka_unit_test(test_no_credentials),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
