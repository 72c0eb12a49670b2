/*
 * transform_driver.c: a small driver that lets tests/iceberg/test_transform_oracle.py compare
 * SQE's Iceberg partition transforms (src/iceberg/transform.c) with pyiceberg's.
 *
 * Input (stdin), one value per line:  <type> <value> <transform>
 *   type       int | long | decimal(P,S) | date | time | timestamp | timestamptz | string |
 *              binary | uuid
 *   value      null, or: ints as decimal integers; decimals as the unscaled integer; dates as
 *              days since 1970-01-01; times and timestamps as microseconds; string, binary and
 *              uuid as lowercase hex of their bytes ("-" for an empty string or binary)
 *   transform  the Iceberg JSON spelling (identity, bucket[16], truncate[4], year, ..., void)
 * Output (stdout), one line per input line: the partition value in the same encoding as the
 * input values (year/month/hour/bucket as integers, day as days), "null", or
 * "error <ERROR_NAME>" when the transform fails for the batch (or the line is malformed).
 *
 * Consecutive lines with the same type and transform are applied as one vector (up to 1024
 * rows), so the vectorized path is what gets compared. Exit status 0 unless stdin breaks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "iceberg/transform.h"
#include "types/decimal.h"
#include "types/types.h"
#include "vec/vec.h"

#define BATCH 1024
#define LINE_MAX_LEN 8192

typedef struct line {
    char *value; /* owned copy of the value token */
} line;

static char g_type[64], g_transform[64];
static line g_lines[BATCH];
static uint32_t g_n;
static uint8_t g_bytes[BATCH][LINE_MAX_LEN / 2];

static bool parse_type(const char *s, sqe_type *out) {
    int p, sc;
    if (strcmp(s, "int") == 0) *out = type_make(TYPE_INTEGER);
    else if (strcmp(s, "long") == 0) *out = type_make(TYPE_BIGINT);
    else if (sscanf(s, "decimal(%d,%d)", &p, &sc) == 2 && p >= 1 && p <= 38 && sc >= 0 && sc <= p)
        *out = type_decimal(p, sc);
    else if (strcmp(s, "date") == 0) *out = type_make(TYPE_DATE);
    else if (strcmp(s, "time") == 0) *out = type_make(TYPE_TIME);
    else if (strcmp(s, "timestamp") == 0) *out = type_make(TYPE_TIMESTAMP);
    else if (strcmp(s, "timestamptz") == 0) *out = type_make(TYPE_TIMESTAMP_TZ);
    else if (strcmp(s, "string") == 0) *out = type_make(TYPE_VARCHAR);
    else if (strcmp(s, "binary") == 0) *out = type_make(TYPE_VARBINARY);
    else if (strcmp(s, "uuid") == 0) *out = type_make(TYPE_UUID);
    else return false;
    return true;
}

static bool parse_int128(const char *s, int128 *out) {
    bool neg = *s == '-';
    if (neg || *s == '+') s++;
    if (!*s) return false;
    int128 v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9') return false;
        v = v * 10 + (*s - '0');
    }
    *out = neg ? -v : v;
    return true;
}

static int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static bool parse_hex(const char *s, uint8_t *out, uint32_t *len) {
    if (strcmp(s, "-") == 0) {
        *len = 0;
        return true;
    }
    size_t n = strlen(s);
    if (n % 2 || n / 2 > LINE_MAX_LEN / 2) return false;
    for (size_t i = 0; i < n / 2; i++) {
        int hi = hex_digit(s[2 * i]), lo = hex_digit(s[2 * i + 1]);
        if (hi < 0 || lo < 0) return false;
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    *len = (uint32_t)(n / 2);
    return true;
}

static void print_int128(int128 v) {
    char buf[64];
    int n = decimal_format(v, 0, buf);
    fwrite(buf, 1, (size_t)n, stdout);
}

static void print_hex(const uint8_t *p, uint32_t len) {
    if (!len) fputc('-', stdout);
    for (uint32_t i = 0; i < len; i++) printf("%02x", p[i]);
}

static void fail_batch(const char *name) {
    for (uint32_t i = 0; i < g_n; i++) printf("error %s\n", name);
}

static void flush_batch(void) {
    if (!g_n) return;
    sqe_type type;
    ice_transform t;
    sqe_type rt;
    vec in, out;
    memset(&in, 0, sizeof in);
    memset(&out, 0, sizeof out);
    if (!parse_type(g_type, &type) || ice_transform_parse(g_transform, &t, NULL) != SQE_OK) {
        fail_batch("MALFORMED");
        goto out_free_lines;
    }
    if (!ice_transform_result_type(t, type, &rt)) {
        fail_batch("NOT_SUPPORTED");
        goto out_free_lines;
    }
    if (vec_init(&in, type, g_n, NULL, NULL) != SQE_OK ||
        vec_init(&out, rt, 1, NULL, NULL) != SQE_OK) {
        fail_batch("OUT_OF_MEMORY");
        goto out_destroy;
    }
    for (uint32_t i = 0; i < g_n; i++) {
        const char *v = g_lines[i].value;
        if (strcmp(v, "null") == 0) {
            vec_set_null(&in, i);
            continue;
        }
        bool ok;
        if (type.id == TYPE_VARCHAR || type.id == TYPE_VARBINARY || type.id == TYPE_UUID) {
            uint32_t len = 0;
            ok = parse_hex(v, g_bytes[i], &len);
            if (ok && type.id == TYPE_UUID) {
                ok = len == 16;
                if (ok) memcpy((uint8_t *)in.data + 16 * (size_t)i, g_bytes[i], 16);
            } else if (ok) {
                VEC_DATA(&in, sqe_str)[i] = sqe_str_make((const char *)g_bytes[i], len);
            }
        } else {
            int128 x;
            ok = parse_int128(v, &x);
            if (ok) {
                switch ((type_id)type.id) {
                case TYPE_INTEGER:
                case TYPE_DATE: VEC_DATA(&in, int32_t)[i] = (int32_t)x; break;
                case TYPE_BIGINT:
                case TYPE_TIME:
                case TYPE_TIMESTAMP: VEC_DATA(&in, int64_t)[i] = (int64_t)x; break;
                case TYPE_TIMESTAMP_TZ: {
                    sqe_timestamp_tz tz = {.micros = (int64_t)x, .zone = 0, .pad_ = 0};
                    VEC_DATA(&in, sqe_timestamp_tz)[i] = tz;
                    break;
                }
                case TYPE_DECIMAL: decimal_put(in.data, type, i, x); break;
                default: ok = false;
                }
            }
        }
        if (!ok) {
            fail_batch("MALFORMED");
            goto out_destroy;
        }
    }
    sqe_error err;
    int rc = ice_transform_apply(t, &in, g_n, &out, &err);
    if (rc != SQE_OK) {
        fail_batch(err_code_lookup(rc)->name);
        goto out_destroy;
    }
    for (uint32_t i = 0; i < g_n; i++) {
        if (vec_is_null(&out, i)) {
            fputs("null\n", stdout);
            continue;
        }
        switch ((type_id)rt.id) {
        case TYPE_INTEGER:
        case TYPE_DATE: print_int128(VEC_DATA(&out, int32_t)[i]); break;
        case TYPE_BIGINT:
        case TYPE_TIME:
        case TYPE_TIMESTAMP: print_int128(VEC_DATA(&out, int64_t)[i]); break;
        case TYPE_TIMESTAMP_TZ: print_int128(VEC_DATA(&out, sqe_timestamp_tz)[i].micros); break;
        case TYPE_DECIMAL: print_int128(decimal_get(out.data, rt, i)); break;
        case TYPE_VARCHAR:
        case TYPE_VARBINARY: {
            const sqe_str *s = &VEC_DATA(&out, sqe_str)[i];
            print_hex((const uint8_t *)sqe_str_data(s), s->len);
            break;
        }
        case TYPE_UUID: print_hex((const uint8_t *)out.data + 16 * (size_t)i, 16); break;
        default: fputs("?", stdout);
        }
        fputc('\n', stdout);
    }
out_destroy:
    vec_destroy(&in);
    vec_destroy(&out);
out_free_lines:
    for (uint32_t i = 0; i < g_n; i++) free(g_lines[i].value);
    g_n = 0;
}

int main(void) {
    static char buf[LINE_MAX_LEN + 256];
    while (fgets(buf, sizeof buf, stdin)) {
        char type[64], value[LINE_MAX_LEN + 1], transform[64];
        if (sscanf(buf, "%63s %8192s %63s", type, value, transform) != 3) {
            flush_batch();
            puts("error MALFORMED");
            continue;
        }
        if (g_n && (strcmp(type, g_type) != 0 || strcmp(transform, g_transform) != 0 ||
                    g_n == BATCH))
            flush_batch();
        strcpy(g_type, type);
        strcpy(g_transform, transform);
        char *copy = strdup(value);
        if (!copy) {
            flush_batch();
            puts("error OUT_OF_MEMORY");
            continue;
        }
        g_lines[g_n++].value = copy;
    }
    flush_batch();
    return ferror(stdin) ? 1 : 0;
}
