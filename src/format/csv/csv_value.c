/*
 * csv_value.c: text -> value conversion for CSV fields, and the candidate types of a value for
 * schema inference.
 *
 * INTERFACE: csv_parse_bool, csv_parse_double_slow, csv_parse_decimal, csv_parse_date_slow,
 *   csv_parse_uuid, csv_utf8_valid, csv_utf8_prefix, csv_value_candidates, csv_candidates_type
 *   (the hot csv_parse_int64 / csv_parse_double / csv_parse_date are inline in csv_int.h).
 * NOTES:
 *   - The common shapes have fast paths that give the same result as the general routines
 *     (strtod, decimal_parse_text, dt_parse_date). Doubles: csv_int.h handles up to 15 plain
 *     digits inline; csv_parse_double_slow converts up to 19 significant digits with a power of
 *     ten <= 22 exactly (Clinger's fast path: one correctly rounded multiplication or division
 *     of exact doubles), and everything else with strtod on a NUL-terminated copy, after our
 *     own syntax check (so "0x1p3" and "1e" are rejected).
 *     Decimals fall back to decimal_parse_text (CAST(varchar AS decimal) syntax: exponents ok).
 *   - Inference is deliberately strict: numbers with a leading zero ("007") stay text, dates
 *     must be YYYY-MM-DD, timestamps YYYY-MM-DD[ T]HH:MM[:SS[.f]]. A value that reads as
 *     several types keeps all of them as candidates (the column takes the most specific type
 *     every value allows).
 */
#include "common/utf8.h"
#include "format/csv/csv_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "types/datetime.h"
#include "types/decimal.h"
#include "common/hex.h"



/* --- booleans and integers ---------------------------------------------------------------- */

bool csv_parse_bool(const char *s, size_t len, uint8_t *out) {
    csv_trim(&s, &len);
    if ((len == 4 && !strncasecmp(s, "true", 4)) ||
        (len == 1 && (*s == 't' || *s == 'T' || *s == '1'))) {
        *out = 1;
        return true;
    }
    if ((len == 5 && !strncasecmp(s, "false", 5)) ||
        (len == 1 && (*s == 'f' || *s == 'F' || *s == '0'))) {
        *out = 0;
        return true;
    }
    return false;
}

/* --- doubles ------------------------------------------------------------------------------- */

static const double exact_pow10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                       1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                       1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static bool parse_special_double(const char *s, size_t len, double *out) {
    bool neg = false;
    if (len && (*s == '-' || *s == '+')) {
        neg = *s == '-';
        s++, len--;
    }
    double v;
    if (len == 3 && !strncasecmp(s, "nan", 3)) v = NAN;
    else if ((len == 3 && !strncasecmp(s, "inf", 3)) ||
             (len == 8 && !strncasecmp(s, "infinity", 8)))
        v = INFINITY;
    else
        return false;
    *out = neg ? -v : v;
    return true;
}

bool csv_parse_double_slow(const char *s, size_t len, double *out) {
    if (len == 0 || csv_is_blank(s[0]) || csv_is_blank(s[len - 1])) csv_trim(&s, &len);
    if (len == 0) return false;
    size_t i = 0;
    bool neg = false;
    if (s[0] == '-' || s[0] == '+') {
        neg = s[0] == '-';
        i++;
    }
    uint64_t mant = 0;
    int sig = 0, exp10 = 0, digits = 0;
    bool exact = true;
    for (; i < len && csv_is_digit(s[i]); i++, digits++) {
        if (sig < 19) {
            mant = mant * 10 + (uint64_t)(s[i] - '0');
            if (mant) sig++;
        } else {
            exact = false;
        }
    }
    if (i < len && s[i] == '.') {
        for (i++; i < len && csv_is_digit(s[i]); i++, digits++) {
            if (sig < 19) {
                mant = mant * 10 + (uint64_t)(s[i] - '0');
                if (mant) sig++;
                exp10--;
            } else {
                exact = false;
            }
        }
    }
    if (digits == 0) return parse_special_double(s, len, out);
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        bool eneg = false;
        if (i < len && (s[i] == '-' || s[i] == '+')) eneg = s[i++] == '-';
        if (i == len || !csv_is_digit(s[i])) return false;
        int e = 0;
        for (; i < len && csv_is_digit(s[i]); i++)
            if (e < 100000) e = e * 10 + (s[i] - '0');
        exp10 += eneg ? -e : e;
    }
    if (i != len) return false;
    if (exact && mant <= ((uint64_t)1 << 53) && exp10 >= -22 && exp10 <= 22) {
        double v = (double)mant;
        v = exp10 < 0 ? v / exact_pow10[-exp10] : v * exact_pow10[exp10];
        *out = neg ? -v : v;
        return true;
    }
    /* Slow path: the syntax is known to be plain decimal notation. */
    char local[128];
    char *tmp = len < sizeof local ? local : malloc(len + 1);
    if (!tmp) return false;
    memcpy(tmp, s, len);
    tmp[len] = 0;
    *out = strtod(tmp, NULL);
    if (tmp != local) free(tmp);
    return true;
}

/* --- decimals ------------------------------------------------------------------------------ */

int csv_parse_decimal(const char *s, size_t len, int precision, int scale, int128 *out) {
    if (len == 0 || csv_is_blank(s[0]) || csv_is_blank(s[len - 1])) csv_trim(&s, &len);
    if (len == 0) return -1;
    if (precision <= 18) {
        /* fast path: [+-]digits[.digits] with no more fraction digits than the scale */
        size_t i = 0;
        bool neg = false;
        if (s[0] == '-' || s[0] == '+') neg = s[i++] == '-';
        uint64_t ip = 0, fp = 0; /* at most 19 digits each: no overflow */
        int idig = 0, fdig = 0;
        for (; i < len && csv_is_digit(s[i]) && idig < 19; i++, idig++)
            ip = ip * 10 + (uint64_t)(s[i] - '0');
        if (i < len && s[i] == '.') {
            i++;
            for (; i < len && csv_is_digit(s[i]) && fdig < 19; i++, fdig++)
                fp = fp * 10 + (uint64_t)(s[i] - '0');
        }
        if (i == len && idig + fdig > 0 && fdig <= scale && idig <= 18) {
            static const int64_t p10[19] = {
                1LL, 10LL, 100LL, 1000LL, 10000LL, 100000LL, 1000000LL, 10000000LL,
                100000000LL, 1000000000LL, 10000000000LL, 100000000000LL, 1000000000000LL,
                10000000000000LL, 100000000000000LL, 1000000000000000LL, 10000000000000000LL,
                100000000000000000LL, 1000000000000000000LL};
            /* ip < 10^(p-s) keeps ip * 10^s + fraction below 10^p <= 10^18 */
            if (ip >= (uint64_t)p10[precision - scale]) return -2;
            int64_t v = (int64_t)ip * p10[scale] + (int64_t)fp * p10[scale - fdig];
            *out = neg ? -v : v;
            return 0;
        }
    }
    return decimal_parse_text(s, len, precision, scale, out);
}

/* --- dates --------------------------------------------------------------------------------- */

/* Strict YYYY-MM-DD (10 bytes). */
static bool parse_ymd(const char *s, int32_t *y, int32_t *m, int32_t *d) {
    for (int i = 0; i < 10; i++) {
        if (i == 4 || i == 7) {
            if (s[i] != '-') return false;
        } else if (!csv_is_digit(s[i])) {
            return false;
        }
    }
    *y = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10 + (s[3] - '0');
    *m = (s[5] - '0') * 10 + (s[6] - '0');
    *d = (s[8] - '0') * 10 + (s[9] - '0');
    return *m >= 1 && *m <= 12 && *d >= 1 && *d <= dt_days_in_month(*y, *m);
}

bool csv_parse_date_slow(const char *s, size_t len, int32_t *out) {
    return len > 0 && dt_parse_date(s, len, out) == 0;
}

/* --- uuid ---------------------------------------------------------------------------------- */

bool csv_parse_uuid(const char *s, size_t len, uint8_t out[16]) {
    csv_trim(&s, &len);
    if (len != 36) return false;
    int byte = 0;
    for (size_t i = 0; i < 36;) {
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            if (s[i] != '-') return false;
            i++;
            continue;
        }
        int hi = hex_digit(s[i]), lo = hex_digit(s[i + 1]);
        if (hi < 0 || lo < 0) return false;
        out[byte++] = (uint8_t)(hi << 4 | lo);
        i += 2;
    }
    return true;
}

/* --- UTF-8 --------------------------------------------------------------------------------- */

size_t csv_utf8_prefix(const char *str, size_t len) { return utf8_valid_prefix(str, len); }

bool csv_utf8_valid(const char *s, size_t len) { return csv_utf8_prefix(s, len) == len; }

/* --- inference ----------------------------------------------------------------------------- */

/* [+-]digits with no leading zero (except "0" itself) */
static bool looks_integer(const char *s, size_t len) {
    size_t i = (len && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
    if (i == len) return false;
    if (s[i] == '0' && len - i > 1) return false;
    for (; i < len; i++)
        if (!csv_is_digit(s[i])) return false;
    return true;
}

/* decimal notation with at least one digit, no leading zero before another digit */
static bool looks_float(const char *s, size_t len) {
    size_t i = (len && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
    if (i + 1 < len && s[i] == '0' && csv_is_digit(s[i + 1])) return false;
    size_t digits = 0;
    while (i < len && csv_is_digit(s[i])) i++, digits++;
    if (i < len && s[i] == '.') {
        i++;
        while (i < len && csv_is_digit(s[i])) i++, digits++;
    }
    if (!digits) return false;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < len && (s[i] == '-' || s[i] == '+')) i++;
        if (i == len || !csv_is_digit(s[i])) return false;
        while (i < len && csv_is_digit(s[i])) i++;
    }
    return i == len;
}

/* YYYY-MM-DD[ T]HH:MM[:SS[.fraction]] */
static bool looks_timestamp(const char *s, size_t len) {
    if (len < 16 || (s[10] != ' ' && s[10] != 'T')) return false;
    int32_t y, m, d;
    if (!parse_ymd(s, &y, &m, &d)) return false;
    const char *t = s + 11;
    size_t n = len - 11;
    if (!(csv_is_digit(t[0]) && csv_is_digit(t[1]) && t[2] == ':' && csv_is_digit(t[3]) &&
          csv_is_digit(t[4])))
        return false;
    size_t i = 5;
    if (i < n && t[i] == ':') {
        if (i + 3 > n || !csv_is_digit(t[i + 1]) || !csv_is_digit(t[i + 2])) return false;
        i += 3;
        if (i < n && t[i] == '.') {
            i++;
            size_t f = 0;
            while (i < n && csv_is_digit(t[i])) i++, f++;
            if (f == 0 || f > 9) return false;
        }
    }
    if (i != n) return false;
    int64_t micros;
    int prec;
    return dt_parse_timestamp(s, len, &micros, &prec) == 0;
}

uint32_t csv_value_candidates(const char *s, size_t len) {
    csv_trim(&s, &len);
    uint32_t m = CSV_CAND_VARCHAR;
    if (len == 0) return m;
    char c = s[0];
    if (csv_is_digit(c) || c == '-' || c == '+' || c == '.') {
        if (looks_integer(s, len)) {
            int64_t v;
            if (csv_parse_int64(s, len, &v)) m |= CSV_CAND_BIGINT;
            m |= CSV_CAND_DOUBLE;
        } else if (looks_float(s, len)) {
            m |= CSV_CAND_DOUBLE;
        } else if (len == 10) {
            int32_t y, mo, d;
            if (parse_ymd(s, &y, &mo, &d)) m |= CSV_CAND_DATE | CSV_CAND_TIMESTAMP;
        } else if (looks_timestamp(s, len)) {
            m |= CSV_CAND_TIMESTAMP;
        }
        return m;
    }
    if ((len == 4 && !strncasecmp(s, "true", 4)) || (len == 5 && !strncasecmp(s, "false", 5)))
        m |= CSV_CAND_BOOLEAN;
    return m;
}

sqe_type csv_candidates_type(uint32_t mask) {
    if (mask & CSV_CAND_BOOLEAN) return type_make(TYPE_BOOLEAN);
    if (mask & CSV_CAND_BIGINT) return type_make(TYPE_BIGINT);
    if (mask & CSV_CAND_DOUBLE) return type_make(TYPE_DOUBLE);
    if (mask & CSV_CAND_DATE) return type_make(TYPE_DATE);
    if (mask & CSV_CAND_TIMESTAMP) return type_make(TYPE_TIMESTAMP);
    return type_varchar(0);
}
