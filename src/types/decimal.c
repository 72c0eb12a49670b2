/*
 * decimal.c: fixed-point decimal arithmetic helpers (see decimal.h): powers of ten, Trino's
 * result types, HALF_UP rescaling and division, text and double conversions.
 *
 * INTERFACE: decimal_pow10, decimal_add_type, decimal_mul_type, decimal_div_type,
 *   decimal_mod_type, decimal_for_integer, decimal_rescale, decimal_div_round, decimal_format,
 *   decimal_parse, decimal_parse_text, decimal_literal_type, decimal_to_double,
 *   decimal_from_double.
 * NOTES: values are int128 unscaled integers; every multiplication is checked with
 * __builtin_mul_overflow. Division whose scaled dividend does not fit in 128 bits falls back to
 * an exact 256-bit long division (rare: only for operands near 38 digits). Double -> decimal
 * uses the shortest round-trip digits of the double, as Java's BigDecimal.valueOf does.
 */
#include "types/decimal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "types/float_text.h"

typedef unsigned __int128 uint128;

#define E19 ((int128)10000000000000000000ULL)
#define INT128_MAX_ ((int128)(((uint128)1 << 127) - 1))

static const int128 pow10_table[39] = {
    1,
    10,
    100,
    1000,
    10000,
    100000,
    1000000,
    10000000,
    100000000,
    1000000000,
    10000000000LL,
    100000000000LL,
    1000000000000LL,
    10000000000000LL,
    100000000000000LL,
    1000000000000000LL,
    10000000000000000LL,
    100000000000000000LL,
    1000000000000000000LL,
    E19,
    E19 * 10,
    E19 * 100,
    E19 * 1000,
    E19 * 10000,
    E19 * 100000,
    E19 * 1000000,
    E19 * 10000000,
    E19 * 100000000,
    E19 * 1000000000,
    E19 * 10000000000LL,
    E19 * 100000000000LL,
    E19 * 1000000000000LL,
    E19 * 10000000000000LL,
    E19 * 100000000000000LL,
    E19 * 1000000000000000LL,
    E19 * 10000000000000000LL,
    E19 * 100000000000000000LL,
    E19 * 1000000000000000000LL,
    E19 * E19,
};

int128 decimal_pow10(int n) {
    if (n < 0 || n > 38) return 0;
    return pow10_table[n];
}

/* --- Result types ------------------------------------------------------------------------ */

static int min_int(int a, int b) { return a < b ? a : b; }
static int max_int(int a, int b) { return a > b ? a : b; }

sqe_type decimal_add_type(sqe_type a, sqe_type b) {
    if (a.id != TYPE_DECIMAL || b.id != TYPE_DECIMAL) return type_make(TYPE_UNKNOWN);
    int s = max_int(a.scale, b.scale);
    int p = min_int(38, max_int(a.precision - a.scale, b.precision - b.scale) + s + 1);
    return type_decimal(p, s);
}

sqe_type decimal_mul_type(sqe_type a, sqe_type b) {
    if (a.id != TYPE_DECIMAL || b.id != TYPE_DECIMAL) return type_make(TYPE_UNKNOWN);
    int s = a.scale + b.scale;
    int p = min_int(38, a.precision + b.precision);
    return type_decimal(p, s);
}

sqe_type decimal_div_type(sqe_type a, sqe_type b) {
    if (a.id != TYPE_DECIMAL || b.id != TYPE_DECIMAL) return type_make(TYPE_UNKNOWN);
    int s = max_int(a.scale, b.scale);
    int p = min_int(38, a.precision + b.scale + max_int(0, b.scale - a.scale));
    return type_decimal(p, s);
}

sqe_type decimal_mod_type(sqe_type a, sqe_type b) {
    if (a.id != TYPE_DECIMAL || b.id != TYPE_DECIMAL) return type_make(TYPE_UNKNOWN);
    int s = max_int(a.scale, b.scale);
    int p = min_int(38, min_int(a.precision - a.scale, b.precision - b.scale) + s);
    return type_decimal(p, s);
}

sqe_type decimal_for_integer(sqe_type t) {
    switch ((type_id)t.id) {
    case TYPE_TINYINT: return type_decimal(3, 0);
    case TYPE_SMALLINT: return type_decimal(5, 0);
    case TYPE_INTEGER: return type_decimal(10, 0);
    case TYPE_BIGINT: return type_decimal(19, 0);
    default: return type_make(TYPE_UNKNOWN);
    }
}

/* --- Rescale and division ---------------------------------------------------------------- */

static uint128 magnitude(int128 v) { return v < 0 ? (uint128)0 - (uint128)v : (uint128)v; }

bool decimal_rescale(int128 v, int from, int to, int128 *out) {
    if (to >= from) {
        int diff = to - from;
        if (v == 0) {
            *out = 0;
            return true;
        }
        if (diff > 38) return false;
        return !__builtin_mul_overflow(v, pow10_table[diff], out);
    }
    int diff = from - to;
    if (diff > 38) {
        *out = 0; /* |v| < 1.7e38 < 0.5e39 */
        return true;
    }
    int128 d = pow10_table[diff];
    int128 q = v / d, r = v % d;
    uint128 ar = magnitude(r);
    if (ar >= (uint128)d - ar) q += v < 0 ? -1 : 1; /* |r| >= d/2: HALF_UP */
    *out = q;
    return true;
}

/* 256-bit unsigned helpers for the slow division path: w[0] is the least significant word. */
typedef struct u256 {
    uint64_t w[4];
} u256;

static u256 u256_mul(uint128 a, uint128 b) {
    uint64_t x[2] = {(uint64_t)a, (uint64_t)(a >> 64)};
    uint64_t y[2] = {(uint64_t)b, (uint64_t)(b >> 64)};
    u256 r = {{0, 0, 0, 0}};
    for (int i = 0; i < 2; i++) {
        uint128 carry = 0;
        for (int j = 0; j < 2; j++) {
            uint128 t = (uint128)x[i] * y[j] + r.w[i + j] + carry;
            r.w[i + j] = (uint64_t)t;
            carry = t >> 64;
        }
        r.w[i + 2] += (uint64_t)carry;
    }
    return r;
}

static int u256_cmp(const u256 *a, const u256 *b) {
    for (int i = 3; i >= 0; i--)
        if (a->w[i] != b->w[i]) return a->w[i] < b->w[i] ? -1 : 1;
    return 0;
}

static void u256_sub(u256 *a, const u256 *b) {
    uint64_t borrow = 0;
    for (int i = 0; i < 4; i++) {
        uint64_t bi = b->w[i] + borrow;
        uint64_t nb = (bi < borrow) || (a->w[i] < bi);
        a->w[i] -= bi;
        borrow = nb;
    }
}

static void u256_shl1(u256 *a) {
    for (int i = 3; i > 0; i--) a->w[i] = (a->w[i] << 1) | (a->w[i - 1] >> 63);
    a->w[0] <<= 1;
}

/* q = n / d, r = n % d (d != 0), by shift-subtract. */
static void u256_divmod(const u256 *n, const u256 *d, u256 *q, u256 *r) {
    memset(q, 0, sizeof *q);
    memset(r, 0, sizeof *r);
    for (int bit = 255; bit >= 0; bit--) {
        u256_shl1(r);
        r->w[0] |= (n->w[bit / 64] >> (bit % 64)) & 1;
        if (u256_cmp(r, d) >= 0) {
            u256_sub(r, d);
            q->w[bit / 64] |= (uint64_t)1 << (bit % 64);
        }
    }
}

bool decimal_div_round(int128 a, int128 b, int shift, int128 *out) {
    if (b == 0) return false;
    bool negative = (a < 0) != (b < 0);
    uint128 ua = magnitude(a), ub = magnitude(b);
    int128 scaled;
    if (shift >= 0 && shift <= 38 && !__builtin_mul_overflow(a, pow10_table[shift], &scaled)) {
        uint128 un = magnitude(scaled);
        uint128 q = un / ub, r = un % ub;
        if (r >= ub - r) q++;
        if (q > (uint128)INT128_MAX_) return false;
        *out = negative ? -(int128)q : (int128)q;
        return true;
    }
    if (shift > 76 || shift < -76) return false;
    /* n = |a| * 10^max(shift,0); d = |b| * 10^max(-shift,0), computed in 256 bits. */
    int sa = shift > 0 ? shift : 0, sb = shift < 0 ? -shift : 0;
    u256 n = u256_mul(ua, (uint128)pow10_table[sa > 38 ? 38 : sa]);
    if (sa > 38) {
        u256 tmp = n;
        if (tmp.w[2] | tmp.w[3]) return false;
        n = u256_mul(((uint128)tmp.w[1] << 64) | tmp.w[0], (uint128)pow10_table[sa - 38]);
    }
    u256 d = u256_mul(ub, (uint128)pow10_table[sb > 38 ? 38 : sb]);
    if (sb > 38) {
        u256 tmp = d;
        if (tmp.w[2] | tmp.w[3]) {
            *out = 0; /* divisor above 2^128 > any dividend here: quotient rounds to 0 */
            return true;
        }
        d = u256_mul(((uint128)tmp.w[1] << 64) | tmp.w[0], (uint128)pow10_table[sb - 38]);
    }
    u256 q, r;
    u256_divmod(&n, &d, &q, &r);
    u256 rest = d;
    u256_sub(&rest, &r);
    if (u256_cmp(&r, &rest) >= 0) {
        for (int i = 0; i < 4 && ++q.w[i] == 0; i++) {
        }
    }
    if (q.w[2] | q.w[3] || (q.w[1] >> 63)) return false;
    int128 mag = (int128)(((uint128)q.w[1] << 64) | q.w[0]);
    *out = negative ? -mag : mag;
    return true;
}

/* --- Text -------------------------------------------------------------------------------- */

int decimal_format(int128 v, int scale, char *buf) {
    char digits[48];
    int n = 0;
    uint128 u = magnitude(v);
    /* Peel 19-digit chunks with one 128-bit division each, then digits in 64 bits. */
    while (u > UINT64_MAX) {
        uint64_t chunk = (uint64_t)(u % (uint128)10000000000000000000ULL);
        u /= (uint128)10000000000000000000ULL;
        for (int i = 0; i < 19; i++, chunk /= 10) digits[n++] = (char)('0' + chunk % 10);
    }
    uint64_t low = (uint64_t)u;
    do {
        digits[n++] = (char)('0' + low % 10);
        low /= 10;
    } while (low);
    while (n <= scale) digits[n++] = '0'; /* at least one digit before the point */
    char *p = buf;
    if (v < 0) *p++ = '-';
    for (int i = n - 1; i >= 0; i--) {
        *p++ = digits[i];
        if (i == scale && scale > 0) *p++ = '.';
    }
    *p = '\0';
    return (int)(p - buf);
}

/* Turns significant digits d[0..n) (value = int(d) * 10^e) into the unscaled value at `scale`
 * with HALF_UP rounding. Returns 0 or -2 on overflow of 38 digits. */
static int digits_to_unscaled(const char *d, int n, int64_t e, int scale, bool negative,
                              int128 *out) {
    int64_t k = e + scale;
    int keep = n;
    bool round_up = false;
    if (k < 0) {
        if (k < -(int64_t)n - 1) {
            keep = 0;
        } else {
            keep = (int)(n + k);
            if (keep >= 0 && keep < n) round_up = d[keep] >= '5';
            if (keep < 0) keep = 0;
        }
        k = 0;
    }
    int128 acc = 0;
    for (int i = 0; i < keep; i++) {
        if (__builtin_mul_overflow(acc, 10, &acc) || __builtin_add_overflow(acc, d[i] - '0', &acc))
            return -2;
    }
    if (round_up) acc++;
    if (k > 0 && acc != 0) {
        if (k > 38 || __builtin_mul_overflow(acc, pow10_table[k], &acc)) return -2;
    }
    if (acc > decimal_max_unscaled(38)) return -2;
    *out = negative ? -acc : acc;
    return 0;
}

/* Shared syntax: [sign] digits [. digits] [e [sign] digits]. Collects significant digits. */
static int parse_number(const char *s, size_t len, bool allow_exp, int precision, int scale,
                        int128 *out) {
    if (precision < 1 || precision > 38 || scale < 0 || scale > precision) return -1;
    size_t i = 0;
    bool negative = false;
    if (i < len && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
    char stack[80];
    char *digits = len <= sizeof stack ? stack : malloc(len);
    if (!digits) return -1;
    int n = 0, n_seen = 0;
    int64_t frac = 0;
    while (i < len && s[i] >= '0' && s[i] <= '9') {
        if (n || s[i] != '0') digits[n++] = s[i];
        n_seen++;
        i++;
    }
    if (i < len && s[i] == '.') {
        i++;
        while (i < len && s[i] >= '0' && s[i] <= '9') {
            if (n || s[i] != '0') digits[n++] = s[i];
            frac++;
            n_seen++;
            i++;
        }
    }
    int rc = -1;
    int64_t exp10 = 0;
    if (n_seen == 0) goto out_free;
    if (allow_exp && i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        bool eneg = false;
        if (i < len && (s[i] == '+' || s[i] == '-')) eneg = s[i++] == '-';
        size_t start = i;
        while (i < len && s[i] >= '0' && s[i] <= '9') {
            if (exp10 < 1000000000) exp10 = exp10 * 10 + (s[i] - '0');
            i++;
        }
        if (i == start) goto out_free;
        if (eneg) exp10 = -exp10;
    }
    if (i != len) goto out_free;
    int128 v = 0;
    rc = n == 0 ? 0 : digits_to_unscaled(digits, n, exp10 - frac, scale, negative, &v);
    if (rc == 0 && !decimal_fits(v, precision)) rc = -2;
    if (rc == 0) *out = v;
out_free:
    if (digits != stack) free(digits);
    return rc;
}

int decimal_parse(const char *s, size_t len, int precision, int scale, int128 *out) {
    return parse_number(s, len, false, precision, scale, out);
}

int decimal_parse_text(const char *s, size_t len, int precision, int scale, int128 *out) {
    while (len && (unsigned char)*s <= ' ') s++, len--;
    while (len && (unsigned char)s[len - 1] <= ' ') len--;
    return parse_number(s, len, true, precision, scale, out);
}

int decimal_literal_type(const char *s, size_t len, sqe_type *out) {
    size_t i = 0;
    if (i < len && (s[i] == '+' || s[i] == '-')) i++;
    size_t int_start = i;
    while (i < len && s[i] >= '0' && s[i] <= '9') i++;
    size_t int_len = i - int_start;
    size_t frac_len = 0;
    if (i < len && s[i] == '.') {
        i++;
        size_t f = i;
        while (i < len && s[i] >= '0' && s[i] <= '9') i++;
        frac_len = i - f;
    }
    if (i != len || int_len + frac_len == 0) return -1;
    size_t lead = 0;
    while (lead < int_len && s[int_start + lead] == '0') lead++;
    size_t precision = int_len - lead + frac_len;
    if (precision == 0) precision = 1;
    if (precision > 38 || frac_len > 38) return -2;
    if (precision < frac_len) precision = frac_len;
    *out = type_decimal((int)precision, (int)frac_len);
    return 0;
}

/* --- Doubles ----------------------------------------------------------------------------- */

double decimal_to_double(int128 v, int scale) {
    static const double exact_pow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                         1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                         1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    uint128 m = magnitude(v);
    if (m <= ((uint128)1 << 53) && scale >= 0 && scale <= 22)
        return (double)v / exact_pow10[scale]; /* both exact: one correctly rounded division */
    char buf[64];
    int n = decimal_format(v, scale < 0 ? 0 : scale, buf);
    (void)n;
    return strtod(buf, NULL);
}

bool decimal_from_double(double d, int precision, int scale, int128 *out) {
    if (isnan(d) || isinf(d)) return false;
    if (precision < 1 || precision > 38 || scale < 0 || scale > precision) return false;
    if (d == 0) {
        *out = 0;
        return true;
    }
    char digits[24];
    int exp10;
    int n = float_text_digits(d, false, digits, &exp10);
    int128 v;
    if (digits_to_unscaled(digits, n, (int64_t)exp10 - (n - 1), scale, d < 0, &v) != 0)
        return false;
    if (!decimal_fits(v, precision)) return false;
    *out = v;
    return true;
}
