/*
 * test_func_string.c: unit tests of the string family: core functions, binary encodings and
 * digests, URL functions and format().
 */
#include "test_func_util.h"

static void test_length_case(void **state) {
    (void)state;
    tf_expect("length", "5", "varchar:hello");
    tf_expect("length", "4", "varchar:héé€");
    tf_expect("length", "0", "varchar:");
    tf_expect("length", "3", "varbinary:abc");
    tf_expect("char_length", "2", "varchar:é€");
    tf_expect("character_length", "2", "varchar:é€");
    tf_expect("lower", "hello wörld éà", "varchar:HELLO WÖRLD ÉÀ");
    tf_expect("upper", "HELLO WÖRLD ÉÀ", "varchar:hello wörld éà");
    tf_expect("upper", "ΑΒΓ ДЖ", "varchar:αβγ дж");
    tf_expect("lower", "istanbul", "varchar:İstanbul"); /* code point mapping, as Java's Character */
    tf_expect("upper", "ABC", "varchar:abc");
    tf_expect_ret("lower", "varchar(5)", "varchar(5)");
}

static void test_concat(void **state) {
    (void)state;
    tf_expect("concat", "abcdef", "varchar:abc", "varchar:def");
    tf_expect("concat", "a long string that is not inline: xyz", "varchar:a long string ",
              "varchar:that is not inline: ", "varchar:xyz");
    tf_expect("concat", "NULL", "varchar:abc", "varchar:\\N");
    tf_expect("concat_ws", "a,b,c", "varchar:,", "varchar:a", "varchar:b", "varchar:c");
    tf_expect("concat_ws", "a,c", "varchar:,", "varchar:a", "varchar:\\N", "varchar:c");
    tf_expect("concat_ws", "NULL", "varchar:\\N", "varchar:a", "varchar:b");
    tf_expect("concat_ws", "x-y", "varchar:-", "array(varchar):[\"x\",null,\"y\"]");
    tf_expect_ret("concat", "varchar", "varchar(2)", "varchar(3)"); /* unbounded, as Trino */
}

static void test_substr_strpos(void **state) {
    (void)state;
    tf_expect("substr", "llo", "varchar:hello", "bigint:3");
    tf_expect("substr", "ll", "varchar:hello", "bigint:3", "bigint:2");
    tf_expect("substr", "lo", "varchar:hello", "bigint:-2");
    tf_expect("substr", "", "varchar:hello", "bigint:0");
    tf_expect("substr", "", "varchar:hello", "bigint:10");
    tf_expect("substr", "", "varchar:hello", "bigint:-10");
    tf_expect("substring", "éé", "varchar:héé€", "bigint:2", "bigint:2");
    tf_expect("substr", "el", "varchar:hello", "bigint:-4", "bigint:2");
    tf_expect("strpos", "3", "varchar:hello", "varchar:ll");
    tf_expect("strpos", "0", "varchar:hello", "varchar:x");
    tf_expect("strpos", "1", "varchar:hello", "varchar:");
    tf_expect("strpos", "3", "varchar:a€b€", "varchar:b");
    tf_expect("strpos", "3", "varchar:aaaa", "varchar:aa", "bigint:3");
    tf_expect("strpos", "3", "varchar:aaaa", "varchar:aa", "bigint:-1");
    tf_expect("strpos", "0", "varchar:aaaa", "varchar:aa", "bigint:4");
    tf_expect_error("strpos", "'instance' must be a positive or negative number",
                    "varchar:aaaa", "varchar:a", "bigint:0");
    tf_expect("position", "2", "varchar:abc", "varchar:b");
    tf_expect("starts_with", "true", "varchar:hello", "varchar:he");
    tf_expect("starts_with", "false", "varchar:hello", "varchar:lo");
}

static void test_replace_reverse_trim(void **state) {
    (void)state;
    tf_expect("replace", "hexxo", "varchar:hello", "varchar:l", "varchar:x");
    tf_expect("replace", "heo", "varchar:hello", "varchar:l");
    tf_expect("replace", "xaxbxcx", "varchar:abc", "varchar:", "varchar:x");
    tf_expect("reverse", "€éh", "varchar:hé€");
    tf_expect("reverse", "63 62 61", "varbinary:abc");
    tf_expect("trim", "a b", "varchar:  a b \t\n");
    tf_expect("ltrim", "a  ", "varchar:  a  ");
    tf_expect("rtrim", "  a", "varchar:  a  ");
    tf_expect("trim", "b", "varchar:xxbxx", "varchar:x");
    tf_expect("ltrim", "€b€", "varchar:é€b€", "varchar:é");
    tf_expect("rtrim", "é€b", "varchar:é€b€€", "varchar:€");
    tf_expect("lpad", "  abc", "varchar:abc", "bigint:5", "varchar: ");
    tf_expect("lpad", "xyxabc", "varchar:abc", "bigint:6", "varchar:xy");
    tf_expect("rpad", "abc€€", "varchar:abc", "bigint:5", "varchar:€");
    tf_expect("lpad", "ab", "varchar:abc", "bigint:2", "varchar:x");
    tf_expect_error("lpad", "Padding string must not be empty", "varchar:abc", "bigint:5",
                    "varchar:");
    tf_expect_error("rpad", "Target length must be in the range", "varchar:abc", "bigint:-1",
                    "varchar:x");
    tf_expect("translate", "1b3", "varchar:abc", "varchar:ac", "varchar:13");
    tf_expect("translate", "b", "varchar:abc", "varchar:ac", "varchar:");
}

static void test_split(void **state) {
    (void)state;
    tf_expect("split", "[a, b, c]", "varchar:a,b,c", "varchar:,");
    tf_expect("split", "[a, b,c]", "varchar:a,b,c", "varchar:,", "bigint:2");
    tf_expect("split", "[, a, ]", "varchar:,a,", "varchar:,");
    tf_expect("split", "[abc]", "varchar:abc", "varchar:--");
    tf_expect_error("split", "The delimiter may not be the empty string", "varchar:abc",
                    "varchar:");
    tf_expect_error("split", "Limit must be positive", "varchar:abc", "varchar:,", "bigint:0");
    tf_expect("split_part", "b", "varchar:a,b,c", "varchar:,", "bigint:2");
    tf_expect("split_part", "NULL", "varchar:a,b,c", "varchar:,", "bigint:4");
    tf_expect("split_part", "", "varchar:a,,c", "varchar:,", "bigint:2");
    tf_expect_error("split_part", "Index must be greater than zero", "varchar:a", "varchar:,",
                    "bigint:0");
}

static void test_codepoints_distances(void **state) {
    (void)state;
    tf_expect("chr", "A", "bigint:65");
    tf_expect("chr", "€", "bigint:8364");
    tf_expect_error("chr", "Not a valid Unicode code point: 1114112", "bigint:1114112");
    tf_expect("codepoint", "8364", "varchar(1):€");
    tf_expect_error("codepoint", "single character", "varchar:ab");
    tf_expect("levenshtein_distance", "3", "varchar:kitten", "varchar:sitting");
    tf_expect("levenshtein_distance", "1", "varchar:€a", "varchar:a");
    tf_expect("hamming_distance", "2", "varchar:abcde", "varchar:abxdy");
    tf_expect_error("hamming_distance", "must have the same length", "varchar:ab", "varchar:a");
}

static void test_binary(void **state) {
    (void)state;
    tf_expect("to_utf8", "61 62", "varchar:ab");
    tf_expect("from_utf8", "ab", "varbinary:ab");
    tf_expect("to_hex", "6162FF", "varbinary:ab\xff");
    tf_expect("from_utf8", "ab\xef\xbf\xbd", "varbinary:ab\xff");
    tf_expect("from_utf8", "ab?", "varbinary:ab\xff", "varchar:?");
    tf_expect("from_utf8", "ab#", "varbinary:ab\xff", "bigint:35");
    tf_expect("from_hex", "61 62 ff", "varchar:6162ff");
    tf_expect_error("from_hex", "invalid input length 3", "varchar:616");
    tf_expect_error("from_hex", "invalid hex character: g", "varchar:6g");
    tf_expect("to_base64", "aGVsbG8=", "varbinary:hello");
    tf_expect("to_base64", "", "varbinary:");
    tf_expect("from_utf8", "hello", "varbinary:hello");
    tf_expect("from_base64", "68 65 6c 6c 6f", "varchar:aGVsbG8=");
    tf_expect("from_base64", "68 65 6c 6c 6f", "varchar:aGVsbG8");
    tf_expect_error("from_base64", "Illegal base64 character", "varchar:aGV*bG8=");
    tf_expect("to_base64url", "-_8=", "varbinary:\xfb\xff");
    tf_expect("from_base64url", "fb ff", "varchar:-_8");
    tf_expect("to_hex", "68656C6C6F", "varbinary:hello");
    tf_expect("md5", "5d 41 40 2a bc 4b 2a 76 b9 71 9d 91 10 17 c5 92", "varbinary:hello");
    tf_expect("length", "20", "varbinary:aaaaaaaaaaaaaaaaaaaa");
    tf_expect("crc32", "907060870", "varbinary:hello");
    tf_expect("xxhash64", "26 c7 82 7d 88 9f 6d a3", "varbinary:hello");
    tf_expect("xxhash64", "ef 46 db 37 51 d8 e9 99", "varbinary:");
    tf_expect("to_big_endian_64", "00 00 00 00 00 00 01 02", "bigint:258");
    tf_expect("to_big_endian_32", "ff ff ff fe", "integer:-2");
    tf_expect("from_big_endian_32", "-2", "varbinary:\xff\xff\xff\xfe");
    tf_expect_error("from_big_endian_32", "expected 4-byte input", "varbinary:ab");
    tf_expect("from_big_endian_64", "72623859790382856", "varbinary:\x01\x02\x03\x04\x05\x06\x07\x08");
    tf_expect("luhn_check", "true", "varchar:79927398713");
    tf_expect("luhn_check", "false", "varchar:79927398710");
    tf_expect_error("luhn_check", "only digits", "varchar:7992a");
}

#define HMAC_MD5 "04130747AFCA4D79E32E87CF2104F087"
#define HMAC_SHA1 "B34CEAC4516FF23A143E61D79D0FA7A4FBE5F266"
#define HMAC_SHA512                                                                                \
    "FF06AB36757777815C008D32C8E14A705B4E7BF310351A06A23B612DC4C7433E7757D20525A5593B71020EA2EE16" \
    "2D2311B247E9855862B270122419652C0C92"

static void test_digests(void **state) {
    (void)state;
    vec *in = tf_col("varbinary", 1, S("hello"));
    const char *names[] = {"sha1", "sha256", "sha512", "hmac_sha256", "hmac_md5", "hmac_sha1",
                           "hmac_sha512"};
    const char *hex[] = {"AAF4C61DDCC5E8A2DABEDE0F3B482CD9AEA9434D",
                         "2CF24DBA5FB0A30E26E83B2AC5B9E29E1B161E5C1FA7425E73043362938B9824",
                         "9B71D224BD62F3785D96D46AD3EA3D73319BFBC2890CAADAE2DFF72519673CA7"
                         "2323C3D99BA5C11D7C7ACC6E14B8C5DA0C4663475C2E5C3ADEF46F73BCDEC043",
                         "9307B3B915EFB5171FF14D8CB55FBCC798C6C0EF1456D66DED1A6AA723A58B7B",
                         HMAC_MD5, HMAC_SHA1, HMAC_SHA512};
    vec *key = tf_col("varbinary", 1, S("key"));
    for (int i = 0; i < 7; i++) {
        vec *digest, *text;
        sqe_error err;
        vec *args[2] = {in, key};
        assert_int_equal(tf_call_ex(names[i], args, i >= 3 ? 2 : 1, NULL, 1, false, NULL, &digest,
                                    &err),
                         0);
        assert_int_equal(tf_call_ex("to_hex", &digest, 1, NULL, 1, false, NULL, &text, &err), 0);
        char *t = tf_text(text, 0);
        assert_string_equal(t, hex[i]);
        free(t);
        tf_free(text);
        tf_free(digest);
    }
    tf_free(key);
    tf_free(in);
}

static void test_url(void **state) {
    (void)state;
    const char *url = "varchar:https://user@example.com:8080/path/a%20b?q=1&r=&s#frag";
    tf_expect("url_extract_protocol", "https", url);
    tf_expect("url_extract_host", "example.com", url);
    tf_expect("url_extract_port", "8080", url);
    tf_expect("url_extract_path", "/path/a%20b", url);
    tf_expect("url_extract_query", "q=1&r=&s", url);
    tf_expect("url_extract_fragment", "frag", url);
    tf_expect("url_extract_parameter", "1", url, "varchar:q");
    tf_expect("url_extract_parameter", "", url, "varchar:r");
    tf_expect("url_extract_parameter", "", url, "varchar:s");
    tf_expect("url_extract_parameter", "NULL", url, "varchar:t");
    tf_expect("url_extract_port", "NULL", "varchar:http://example.com/");
    tf_expect("url_extract_host", "NULL", "varchar:http://exa mple.com/");
    tf_expect("url_extract_path", "/a/b", "varchar:/a/b?x");
    tf_expect("url_extract_protocol", "NULL", "varchar:/a/b");
    tf_expect("url_encode", "a+b%2Fc%C3%A9*-._", "varchar:a b/cé*-._");
    tf_expect("url_decode", "a b/cé", "varchar:a+b%2Fc%C3%A9");
    tf_expect_error("url_decode", "Incomplete trailing escape", "varchar:abc%2");
}

static void test_format(void **state) {
    (void)state;
    tf_expect("format", "1 + 2 = 3", "varchar:%d + %d = %s", "integer:1", "bigint:2",
              "varchar:3");
    tf_expect("format", "3.14", "varchar:%.2f", "double:3.14159");
    tf_expect("format", "3.142", "varchar:%.3f", "decimal(6,5):3.14159");
    tf_expect("format", "   42|42   |00042", "varchar:%5d|%-5d|%05d", "integer:42", "integer:42",
              "integer:42");
    tf_expect("format", "1,234,567", "varchar:%,d", "bigint:1234567");
    tf_expect("format", "ff FF", "varchar:%x %X", "integer:255", "integer:255");
    tf_expect("format", "ffffffff", "varchar:%x", "integer:-1");
    tf_expect("format", "1.500000e+00", "varchar:%e", "double:1.5");
    tf_expect("format", "b a", "varchar:%2$s %1$s", "varchar:a", "varchar:b");
    tf_expect("format", "true null", "varchar:%b %s", "boolean:true", "varchar:\\N");
    tf_expect("format", "100%", "varchar:%d%%", "integer:100");
    tf_expect("format", "1.0E7", "varchar:%s", "double:10000000");
    tf_expect("format", "ABC", "varchar:%S", "varchar:abc");
    tf_expect_error("format", "IllegalFormatConversion", "varchar:%d", "double:1.5");
    tf_expect_error("format", "MissingFormatArgument", "varchar:%s %s", "varchar:a");
    tf_expect_error("format", "UnknownFormatConversion", "varchar:%q", "varchar:a");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_length_case),      cmocka_unit_test(test_concat),
        cmocka_unit_test(test_substr_strpos),    cmocka_unit_test(test_replace_reverse_trim),
        cmocka_unit_test(test_split),            cmocka_unit_test(test_codepoints_distances),
        cmocka_unit_test(test_binary),           cmocka_unit_test(test_digests),
        cmocka_unit_test(test_url),              cmocka_unit_test(test_format),
    };
    return cmocka_run_group_tests(tests, tf_setup, NULL);
}
