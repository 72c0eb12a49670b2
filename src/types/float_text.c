/*
 * float_text.c: Java-compatible text for DOUBLE and REAL (see float_text.h).
 *
 * INTERFACE: float_text_digits, float_text_double, float_text_real, float_text_double_sci,
 *   float_text_real_sci, float_text_parse, float_text_parse_real.
 * NOTES: the shortest round-trip digits come from Ryu (shortest decimal in the rounding
 * interval, closest to the value), the algorithm family JDK 19+ uses; its 125-bit power-of-5
 * tables are computed once, exactly, with a small bignum. Integers below 1e15 take a direct
 * path. Java's one extra rule (one significant digit: take the closest decimal of length 1 or
 * 2) only matters for subnormals, which use the slow reference method: glibc's correctly
 * rounded "%.*e" at increasing precision until strtod reads the value back. */
#include "types/float_text.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reads the digits and exponent of "%e" output ("d.ddde+xx") and drops trailing zeros. */
static int digits_from_e(const char *text, char *digits, int *exp10) {
    int n = 0;
    const char *p = text;
    for (; *p && *p != 'e'; p++)
        if (*p >= '0' && *p <= '9' && n < 19) digits[n++] = *p;
    *exp10 = *p == 'e' ? atoi(p + 1) : 0;
    while (n > 1 && digits[n - 1] == '0') n--;
    digits[n] = '\0';
    return n;
}

static bool round_trips(const char *text, double v, bool single) {
    if (single) return strtof(text, NULL) == (float)v;
    return strtod(text, NULL) == v;
}

/* Reference method: the smallest digit count whose correctly rounded "%.*e" reads back
 * (monotone in the count, so a binary search). Slow (glibc's exact printf), used only where
 * Ryu's result may differ from Java's rule (subnormals, see below). */
static int slow_digits(double v, bool single, char *digits, int *exp10) {
    char tmp[48];
    int lo = 1, hi = single ? 9 : 17;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        snprintf(tmp, sizeof tmp, "%.*e", mid - 1, v);
        if (round_trips(tmp, v, single))
            hi = mid;
        else
            lo = mid + 1;
    }
    /* JDK rule: when one digit suffices, the closest decimal of length 1 or 2 is chosen. */
    if (lo == 1) lo = 2;
    snprintf(tmp, sizeof tmp, "%.*e", lo - 1, v);
    return digits_from_e(tmp, digits, exp10);
}

/* --- Ryu (Ulf Adams, "Ryu: fast float-to-string conversion", PLDI 2018) ------------------
 * Shortest decimal in the rounding interval, closest to the value (ties to even), in 128-bit
 * arithmetic with 125-bit approximations of 5^q and 5^-q. The tables are computed exactly
 * once, with a small bignum, instead of being spelled out here. The same tables serve REAL:
 * its mantissa and exponent ranges are inside DOUBLE's. */

#define POW5_INV_BITCOUNT 125
#define POW5_BITCOUNT 125
#define POW5_INV_TABLE_SIZE 342
#define POW5_TABLE_SIZE 326

typedef unsigned __int128 u128;

static uint64_t pow5_inv_split[POW5_INV_TABLE_SIZE][2]; /* [i] = floor(2^(len(5^i)-1+125) / 5^i) + 1 */
static uint64_t pow5_split[POW5_TABLE_SIZE][2];         /* [i] = 5^i scaled to 125 bits */
static bool ryu_ready;
static pthread_once_t ryu_once = PTHREAD_ONCE_INIT;

static uint32_t pow5bits(uint32_t e) { return ((e * 1217359) >> 19) + 1; }
static uint32_t log10_pow2(int32_t e) { return ((uint32_t)e * 78913) >> 18; }
static uint32_t log10_pow5(int32_t e) { return ((uint32_t)e * 732923) >> 20; }

#define BIG_WORDS 30 /* 5^341 < 2^792 < 2^(32*30) */

typedef struct big {
    uint32_t w[BIG_WORDS]; /* little endian */
} big;

static int big_bits(const big *b) {
    for (int i = BIG_WORDS - 1; i >= 0; i--)
        if (b->w[i]) return i * 32 + 32 - __builtin_clz(b->w[i]);
    return 0;
}

static int big_bit(const big *b, int bit) {
    return bit < 0 || bit >= BIG_WORDS * 32 ? 0 : (b->w[bit / 32] >> (bit % 32)) & 1;
}

static int big_cmp(const big *a, const big *b) {
    for (int i = BIG_WORDS - 1; i >= 0; i--)
        if (a->w[i] != b->w[i]) return a->w[i] < b->w[i] ? -1 : 1;
    return 0;
}

static void big_sub(big *a, const big *b) {
    uint64_t borrow = 0;
    for (int i = 0; i < BIG_WORDS; i++) {
        uint64_t d = (uint64_t)a->w[i] - b->w[i] - borrow;
        a->w[i] = (uint32_t)d;
        borrow = (d >> 63) & 1;
    }
}

static void big_shl1(big *a) {
    for (int i = BIG_WORDS - 1; i > 0; i--) a->w[i] = a->w[i] << 1 | a->w[i - 1] >> 31;
    a->w[0] <<= 1;
}

static void ryu_init(void) {
    big p; /* 5^i */
    memset(&p, 0, sizeof p);
    p.w[0] = 1;
    for (uint32_t i = 0; i < POW5_INV_TABLE_SIZE; i++) {
        int len = big_bits(&p);
        if ((uint32_t)len != pow5bits(i)) return; /* never: the formula is exact here */
        if (i < POW5_TABLE_SIZE) {
            /* the top 125 bits of 5^i (shifted left when shorter) */
            u128 v = 0;
            for (int b = 0; b < POW5_BITCOUNT; b++) v |= (u128)big_bit(&p, len - 1 - b) << (POW5_BITCOUNT - 1 - b);
            pow5_split[i][0] = (uint64_t)v;
            pow5_split[i][1] = (uint64_t)(v >> 64);
        }
        /* 2^(len-1+125) / 5^i: start from 2^(len-1) < 5^i and shift in 125 zero bits. */
        big rem;
        memset(&rem, 0, sizeof rem);
        rem.w[(len - 1) / 32] = 1u << ((len - 1) % 32);
        u128 q = 0;
        for (int b = 0; b < POW5_INV_BITCOUNT; b++) {
            big_shl1(&rem);
            q <<= 1;
            if (big_cmp(&rem, &p) >= 0) {
                big_sub(&rem, &p);
                q |= 1;
            }
        }
        q += 1;
        pow5_inv_split[i][0] = (uint64_t)q;
        pow5_inv_split[i][1] = (uint64_t)(q >> 64);
        /* p *= 5 */
        uint64_t carry = 0;
        for (int w = 0; w < BIG_WORDS; w++) {
            uint64_t t = (uint64_t)p.w[w] * 5 + carry;
            p.w[w] = (uint32_t)t;
            carry = t >> 32;
        }
    }
    ryu_ready = true;
}

static uint64_t mul_shift64(uint64_t m, const uint64_t *mul, int32_t j) {
    u128 b0 = (u128)m * mul[0];
    u128 b2 = (u128)m * mul[1];
    return (uint64_t)(((b0 >> 64) + b2) >> (j - 64));
}

static uint32_t pow5_factor(uint64_t v) {
    uint32_t count = 0;
    while (v && v % 5 == 0) {
        v /= 5;
        count++;
    }
    return count;
}

static bool multiple_of_pow5(uint64_t v, uint32_t p) { return pow5_factor(v) >= p; }
static bool multiple_of_pow2(uint64_t v, uint32_t p) { return p < 64 && (v & ((UINT64_C(1) << p) - 1)) == 0; }

/* value = m2 * 2^e2 (the 2 extra bits of Ryu's e2 already subtracted); mm_shift says whether
 * the lower neighbour is half a unit (normal) or a quarter (a power of two). Returns the
 * shortest decimal digits as an integer and its power of ten. */
static void ryu_decimal(uint64_t m2, int32_t e2, uint32_t mm_shift, uint64_t *out_digits,
                        int32_t *out_exp10) {
    bool accept_bounds = (m2 & 1) == 0;
    uint64_t mv = 4 * m2;
    uint64_t vr, vp, vm;
    int32_t e10;
    bool vm_trailing_zeros = false, vr_trailing_zeros = false;
    if (e2 >= 0) {
        uint32_t q = log10_pow2(e2) - (e2 > 3);
        e10 = (int32_t)q;
        int32_t k = POW5_INV_BITCOUNT + (int32_t)pow5bits(q) - 1;
        int32_t i = -e2 + (int32_t)q + k;
        vr = mul_shift64(4 * m2, pow5_inv_split[q], i);
        vp = mul_shift64(4 * m2 + 2, pow5_inv_split[q], i);
        vm = mul_shift64(4 * m2 - 1 - mm_shift, pow5_inv_split[q], i);
        if (q <= 21) {
            if (mv % 5 == 0)
                vr_trailing_zeros = multiple_of_pow5(mv, q);
            else if (accept_bounds)
                vm_trailing_zeros = multiple_of_pow5(mv - 1 - mm_shift, q);
            else
                vp -= multiple_of_pow5(mv + 2, q);
        }
    } else {
        uint32_t q = log10_pow5(-e2) - (-e2 > 1);
        e10 = (int32_t)q + e2;
        int32_t i = -e2 - (int32_t)q;
        int32_t k = (int32_t)pow5bits((uint32_t)i) - POW5_BITCOUNT;
        int32_t j = (int32_t)q - k;
        vr = mul_shift64(4 * m2, pow5_split[i], j);
        vp = mul_shift64(4 * m2 + 2, pow5_split[i], j);
        vm = mul_shift64(4 * m2 - 1 - mm_shift, pow5_split[i], j);
        if (q <= 1) {
            vr_trailing_zeros = true;
            if (accept_bounds)
                vm_trailing_zeros = mm_shift == 1;
            else
                vp--;
        } else if (q < 63) {
            vr_trailing_zeros = multiple_of_pow2(mv, q);
        }
    }
    int32_t removed = 0;
    uint8_t last_removed = 0;
    uint64_t output;
    if (vm_trailing_zeros || vr_trailing_zeros) {
        for (;;) {
            uint64_t vp10 = vp / 10, vm10 = vm / 10;
            if (vp10 <= vm10) break;
            uint64_t vr10 = vr / 10;
            vm_trailing_zeros &= vm % 10 == 0;
            vr_trailing_zeros &= last_removed == 0;
            last_removed = (uint8_t)(vr % 10);
            vr = vr10;
            vp = vp10;
            vm = vm10;
            removed++;
        }
        if (vm_trailing_zeros) {
            while (vm % 10 == 0) {
                vr_trailing_zeros &= last_removed == 0;
                last_removed = (uint8_t)(vr % 10);
                vr /= 10;
                vp /= 10;
                vm /= 10;
                removed++;
            }
        }
        if (vr_trailing_zeros && last_removed == 5 && vr % 2 == 0) last_removed = 4; /* ties to even */
        output = vr + ((vr == vm && (!accept_bounds || !vm_trailing_zeros)) || last_removed >= 5);
    } else {
        bool round_up = false;
        if (vp / 100 > vm / 100) {
            round_up = vr % 100 >= 50;
            vr /= 100;
            vp /= 100;
            vm /= 100;
            removed += 2;
        }
        for (;;) {
            uint64_t vp10 = vp / 10, vm10 = vm / 10;
            if (vp10 <= vm10) break;
            round_up = vr % 10 >= 5;
            vr /= 10;
            vp = vp10;
            vm = vm10;
            removed++;
        }
        output = vr + (vr == vm || round_up);
    }
    *out_digits = output;
    *out_exp10 = e10 + removed;
}

int float_text_digits(double v, bool single, char *digits, int *exp10) {
    v = fabs(v);
    if (v == floor(v) && v < (single ? 1e7 : 1e15)) {
        /* Integers: every digit is needed (the spacing of doubles there is below 1). */
        char rev[20];
        int k = 0;
        for (uint64_t u = (uint64_t)v; u; u /= 10) rev[k++] = (char)('0' + u % 10);
        if (k == 0) rev[k++] = '0';
        *exp10 = k - 1;
        int n = 0;
        for (int i = k - 1; i >= 0; i--) digits[n++] = rev[i];
        while (n > 1 && digits[n - 1] == '0') n--;
        digits[n] = '\0';
        return n;
    }
    pthread_once(&ryu_once, ryu_init);
    uint64_t m2;
    int32_t e2;
    uint32_t mm_shift;
    bool subnormal;
    if (single) {
        float f = (float)v;
        uint32_t bits;
        memcpy(&bits, &f, sizeof bits);
        uint32_t mantissa = bits & ((1u << 23) - 1), exponent = (bits >> 23) & 0xff;
        subnormal = exponent == 0;
        e2 = (subnormal ? 1 : (int32_t)exponent) - 127 - 23 - 2;
        m2 = subnormal ? mantissa : (1u << 23) | mantissa;
        mm_shift = mantissa != 0 || exponent <= 1;
    } else {
        uint64_t bits;
        memcpy(&bits, &v, sizeof bits);
        uint64_t mantissa = bits & ((UINT64_C(1) << 52) - 1);
        uint32_t exponent = (uint32_t)(bits >> 52) & 0x7ff;
        subnormal = exponent == 0;
        e2 = (subnormal ? 1 : (int32_t)exponent) - 1023 - 52 - 2;
        m2 = subnormal ? mantissa : (UINT64_C(1) << 52) | mantissa;
        mm_shift = mantissa != 0 || exponent <= 1;
    }
    if (!ryu_ready || v == 0) return slow_digits(v, single, digits, exp10);
    uint64_t out;
    int32_t e10;
    ryu_decimal(m2, e2, mm_shift, &out, &e10);
    /* Java picks the closest of the decimals of length 1 or 2 when one digit suffices; that
     * can only differ from Ryu's one digit where the rounding interval is wide: subnormals. */
    if (out < 10 && subnormal) return slow_digits(v, single, digits, exp10);
    char rev[24];
    int k = 0;
    for (; out; out /= 10) rev[k++] = (char)('0' + out % 10);
    int n = 0;
    for (int i = k - 1; i >= 0; i--) digits[n++] = rev[i];
    while (n > 1 && digits[n - 1] == '0') n--;
    digits[n] = '\0';
    *exp10 = e10 + k - 1;
    return n;
}

static int put_str(char *buf, const char *s) {
    size_t n = strlen(s);
    memcpy(buf, s, n + 1);
    return (int)n;
}

static char *put_int(char *p, int v) {
    char rev[12];
    int k = 0;
    unsigned u = v < 0 ? (unsigned)-(long)v : (unsigned)v;
    if (v < 0) *p++ = '-';
    do {
        rev[k++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    while (k) *p++ = rev[--k];
    return p;
}

/* "d.dddE[-]n" with at least one fraction digit. */
static char *put_sci(char *p, const char *digits, int n, int exp10) {
    *p++ = digits[0];
    *p++ = '.';
    if (n > 1) {
        memcpy(p, digits + 1, (size_t)n - 1);
        p += n - 1;
    } else {
        *p++ = '0';
    }
    *p++ = 'E';
    return put_int(p, exp10);
}

/* Plain decimal with at least one fraction digit ("100.0", "0.001"). */
static char *put_plain(char *p, const char *digits, int n, int exp10) {
    if (exp10 >= 0) {
        for (int i = 0; i <= exp10; i++) *p++ = i < n ? digits[i] : '0';
        *p++ = '.';
        if (n > exp10 + 1) {
            memcpy(p, digits + exp10 + 1, (size_t)(n - exp10 - 1));
            p += n - exp10 - 1;
        } else {
            *p++ = '0';
        }
    } else {
        *p++ = '0';
        *p++ = '.';
        for (int i = 0; i < -exp10 - 1; i++) *p++ = '0';
        memcpy(p, digits, (size_t)n);
        p += n;
    }
    return p;
}

/* Java's Double.toString / Float.toString. */
static int java_text(double v, bool single, char *buf) {
    if (isnan(v)) return put_str(buf, "NaN");
    if (isinf(v)) return put_str(buf, v > 0 ? "Infinity" : "-Infinity");
    char *p = buf;
    if (signbit(v)) *p++ = '-';
    if (v == 0) {
        p += put_str(p, "0.0");
        return (int)(p - buf);
    }
    char digits[20];
    int exp10;
    int n = float_text_digits(v, single, digits, &exp10);
    bool plain;
    if (single) {
        float a = fabsf((float)v);
        plain = a >= 1e-3f && a < 1e7f;
    } else {
        double a = fabs(v);
        plain = a >= 1e-3 && a < 1e7;
    }
    p = plain ? put_plain(p, digits, n, exp10) : put_sci(p, digits, n, exp10);
    *p = '\0';
    return (int)(p - buf);
}

int float_text_double(double v, char *buf) { return java_text(v, false, buf); }

int float_text_real(float v, char *buf) { return java_text(v, true, buf); }

/* DecimalFormat "0.0<max_frac #>E0" over the shortest digits, HALF_EVEN to max significant. */
static int sci_text(double v, bool single, int max_digits, char *buf) {
    if (isnan(v)) return put_str(buf, "NaN");
    if (isinf(v)) return put_str(buf, v > 0 ? "Infinity" : "-Infinity");
    if (v == 0) return put_str(buf, signbit(v) ? "-0E0" : "0E0");
    char *p = buf;
    if (v < 0) *p++ = '-';
    char digits[21];
    int exp10;
    int n = float_text_digits(v, single, digits, &exp10);
    if (n > max_digits) {
        bool up;
        char next = digits[max_digits];
        if (next > '5') {
            up = true;
        } else if (next < '5') {
            up = false;
        } else {
            bool rest = false;
            for (int i = max_digits + 1; i < n; i++) rest |= digits[i] != '0';
            up = rest || ((digits[max_digits - 1] - '0') & 1);
        }
        n = max_digits;
        if (up) {
            int i = n - 1;
            while (i >= 0 && digits[i] == '9') digits[i--] = '0';
            if (i < 0) {
                digits[0] = '1';
                n = 1;
                exp10++;
            } else {
                digits[i]++;
            }
        }
        while (n > 1 && digits[n - 1] == '0') n--;
        digits[n] = '\0';
    }
    p = put_sci(p, digits, n, exp10);
    *p = '\0';
    return (int)(p - buf);
}

int float_text_double_sci(double v, char *buf) { return sci_text(v, false, 21, buf); }

int float_text_real_sci(float v, char *buf) { return sci_text(v, true, 7, buf); }

/* Validates Java floating-point syntax and copies the number (without a type suffix) into tmp.
 * Returns 1 for a finite number in tmp, 2 for NaN, 3 for +Infinity, 4 for -Infinity, 0 if bad. */
static int java_number_syntax(const char *s, size_t len, char *tmp, size_t tmp_len) {
    while (len && (unsigned char)*s <= ' ') s++, len--;
    while (len && (unsigned char)s[len - 1] <= ' ') len--;
    if (len == 0) return 0;
    size_t i = 0;
    bool neg = false;
    if (s[0] == '+' || s[0] == '-') {
        neg = s[0] == '-';
        i++;
    }
    if (len - i == 3 && memcmp(s + i, "NaN", 3) == 0) return 2;
    if (len - i == 8 && memcmp(s + i, "Infinity", 8) == 0) return neg ? 4 : 3;
    size_t end = len;
    if (end > i && strchr("dDfF", s[end - 1])) end--;
    size_t j = i, n_digits = 0;
    while (j < end && s[j] >= '0' && s[j] <= '9') j++, n_digits++;
    if (j < end && s[j] == '.') {
        j++;
        while (j < end && s[j] >= '0' && s[j] <= '9') j++, n_digits++;
    }
    if (n_digits == 0) return 0;
    if (j < end && (s[j] == 'e' || s[j] == 'E')) {
        j++;
        if (j < end && (s[j] == '+' || s[j] == '-')) j++;
        size_t k = j;
        while (j < end && s[j] >= '0' && s[j] <= '9') j++;
        if (j == k) return 0;
    }
    if (j != end || end >= tmp_len) return 0;
    memcpy(tmp, s, end);
    tmp[end] = '\0';
    return 1;
}

int float_text_parse(const char *s, size_t len, double *out) {
    char stack[128];
    char *tmp = len < sizeof stack ? stack : malloc(len + 1);
    if (!tmp) return -1;
    int kind = java_number_syntax(s, len, tmp, len < sizeof stack ? sizeof stack : len + 1);
    int rc = 0;
    switch (kind) {
    case 1: *out = strtod(tmp, NULL); break;
    case 2: *out = NAN; break;
    case 3: *out = INFINITY; break;
    case 4: *out = -INFINITY; break;
    default: rc = -1; break;
    }
    if (tmp != stack) free(tmp);
    return rc;
}

int float_text_parse_real(const char *s, size_t len, float *out) {
    char stack[128];
    char *tmp = len < sizeof stack ? stack : malloc(len + 1);
    if (!tmp) return -1;
    int kind = java_number_syntax(s, len, tmp, len < sizeof stack ? sizeof stack : len + 1);
    int rc = 0;
    switch (kind) {
    case 1: *out = strtof(tmp, NULL); break;
    case 2: *out = NAN; break;
    case 3: *out = INFINITY; break;
    case 4: *out = -INFINITY; break;
    default: rc = -1; break;
    }
    if (tmp != stack) free(tmp);
    return rc;
}
