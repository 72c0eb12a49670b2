/*
 * scalar_string_format.c: the string family, format() part: format(fmt, args...) with the
 * subset of java.util.Formatter that Trino queries use.
 *
 * INTERFACE: func_string_format_defs (joined into the string family).
 *
 * NOTES: supported: %[index$][flags][width][.precision]conversion with flags - # + space 0 , (
 * and conversions s S d x X o f e E g G b B c C % n, and '<' (reuse the previous argument).
 * Arguments keep their SQL types (signature "varchar,any..."): %s prints the value's text form
 * (Java's toString: vec_format_value), %d/%x/%o take integer types, %f/%e/%g take real, double
 * and decimal (decimal %f is exact, HALF_UP). Anything else is INVALID_FUNCTION_ARGUMENT with a
 * message in the style of Java's exceptions, as Trino reports them.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "func/scalar_kernel.h"
#include "vec/vec_format.h"

typedef struct fmt_spec {
    bool left, alt, plus, space, zero, group, paren;
    int width;     /* -1 none */
    int precision; /* -1 none */
    char conv;
} fmt_spec;

/* Appends body (already with its sign) padded to spec->width. `numeric_zero` enables zero
 * padding after a leading sign or '('. */
static void put_padded(strbuf *sb, const fmt_spec *f, const char *body, size_t n, bool numeric) {
    size_t w = f->width > 0 ? (size_t)f->width : 0;
    if (n >= w) {
        strbuf_append(sb, body, n);
        return;
    }
    size_t pad = w - n;
    if (f->left) {
        strbuf_append(sb, body, n);
        for (size_t i = 0; i < pad; i++) strbuf_putc(sb, ' ');
    } else if (f->zero && numeric) {
        size_t lead = (n && (body[0] == '-' || body[0] == '+' || body[0] == ' ' || body[0] == '('))
                          ? 1 : 0;
        strbuf_append(sb, body, lead);
        for (size_t i = 0; i < pad; i++) strbuf_putc(sb, '0');
        strbuf_append(sb, body + lead, n - lead);
    } else {
        for (size_t i = 0; i < pad; i++) strbuf_putc(sb, ' ');
        strbuf_append(sb, body, n);
    }
}

/* Inserts ',' every three digits into the integer digits at the start of digits. */
static void group_digits(const char *digits, strbuf *out) {
    size_t n = strspn(digits, "0123456789");
    for (size_t i = 0; i < n; i++) {
        if (i && (n - i) % 3 == 0) strbuf_putc(out, ',');
        strbuf_putc(out, digits[i]);
    }
    strbuf_puts(out, digits + n);
}

/* Formats a number given as unsigned digit text plus a sign, applying + space ( , flags. */
static void put_number(strbuf *sb, const fmt_spec *f, bool negative, const char *digits) {
    strbuf body;
    strbuf_init(&body);
    if (negative) strbuf_putc(&body, f->paren ? '(' : '-');
    else if (f->plus) strbuf_putc(&body, '+');
    else if (f->space) strbuf_putc(&body, ' ');
    if (f->group) group_digits(digits, &body);
    else strbuf_puts(&body, digits);
    if (negative && f->paren) strbuf_putc(&body, ')');
    put_padded(sb, f, strbuf_cstr(&body), body.len, true);
    strbuf_reset(&body);
}

static bool is_int_type(uint8_t id) { return id >= TYPE_TINYINT && id <= TYPE_BIGINT; }
static bool is_float_type(uint8_t id) {
    return id == TYPE_REAL || id == TYPE_DOUBLE || id == TYPE_DECIMAL;
}

static int64_t int_value(const vec *f, uint32_t p) {
    switch (f->type.id) {
    case TYPE_TINYINT: return VEC_DATA(f, int8_t)[p];
    case TYPE_SMALLINT: return VEC_DATA(f, int16_t)[p];
    case TYPE_INTEGER: return VEC_DATA(f, int32_t)[p];
    default: return VEC_DATA(f, int64_t)[p];
    }
}

static double double_value(const vec *f, uint32_t p) {
    switch (f->type.id) {
    case TYPE_REAL: return VEC_DATA(f, float)[p];
    case TYPE_DOUBLE: return VEC_DATA(f, double)[p];
    default: return decimal_to_double(decimal_get(f->data, f->type, p), f->type.scale);
    }
}

/* Java %g: scientific when the rounded value is < 1e-4 or >= 10^precision, else fixed with
 * precision significant digits (trailing zeros kept). */
static void format_g(double x, int prec, bool upper, char *buf, size_t cap) {
    if (prec == 0) prec = 1;
    double ax = fabs(x);
    if (ax != 0 && (ax < 1e-4 || ax >= pow(10, prec))) {
        snprintf(buf, cap, upper ? "%.*E" : "%.*e", prec - 1, ax);
        return;
    }
    int exp10 = ax == 0 ? 0 : (int)floor(log10(ax));
    char tmp[64];
    snprintf(tmp, sizeof tmp, "%.*e", prec - 1, ax); /* correct exponent after rounding */
    const char *e = strchr(tmp, 'e');
    if (e) exp10 = atoi(e + 1);
    int decimals = prec - 1 - exp10;
    snprintf(buf, cap, "%.*f", decimals < 0 ? 0 : decimals, ax);
}

/* Applies one conversion to argument value (flat f, index p; valid = non-NULL). Returns NULL or
 * an error message (static or in errbuf). */
static const char *format_one(strbuf *sb, const fmt_spec *f, const vec *v, uint32_t row,
                              char *errbuf, size_t errcap) {
    uint32_t p;
    const vec *fv = vec_resolve(v, row, &p);
    bool valid = vec_is_valid_flat(fv, p);
    uint8_t id = fv->type.id;
    char conv = f->conv;
    bool upper = conv >= 'A' && conv <= 'Z';
    char lc = upper ? (char)(conv + 32) : conv;
    char buf[512];
    switch (lc) {
    case 's': {
        strbuf text;
        strbuf_init(&text);
        if (!valid) strbuf_puts(&text, "null");
        else vec_format_value(v, row, &text);
        size_t n = text.len;
        if (f->precision >= 0 && (size_t)f->precision < n) n = (size_t)f->precision;
        if (upper)
            for (size_t i = 0; i < n; i++)
                if (text.data[i] >= 'a' && text.data[i] <= 'z') text.data[i] -= 32;
        put_padded(sb, f, strbuf_cstr(&text), n, false);
        strbuf_reset(&text);
        return NULL;
    }
    case 'b': {
        bool b = valid && (id != TYPE_BOOLEAN || VEC_DATA(fv, uint8_t)[p]);
        const char *t = b ? (upper ? "TRUE" : "true") : (upper ? "FALSE" : "false");
        size_t n = strlen(t);
        if (f->precision >= 0 && (size_t)f->precision < n) n = (size_t)f->precision;
        put_padded(sb, f, t, n, false);
        return NULL;
    }
    default: break;
    }
    if (!valid) {
        put_padded(sb, f, "null", 4, false);
        return NULL;
    }
    switch (lc) {
    case 'd': {
        if (!is_int_type(id)) goto bad_conversion;
        int64_t x = int_value(fv, p);
        snprintf(buf, sizeof buf, "%" PRIu64, x < 0 ? 0 - (uint64_t)x : (uint64_t)x);
        put_number(sb, f, x < 0, buf);
        return NULL;
    }
    case 'x':
    case 'o': {
        if (!is_int_type(id)) goto bad_conversion;
        int64_t x = int_value(fv, p);
        int bits = id == TYPE_TINYINT ? 8 : id == TYPE_SMALLINT ? 16 : id == TYPE_INTEGER ? 32 : 64;
        uint64_t u = bits == 64 ? (uint64_t)x : (uint64_t)x & ((UINT64_C(1) << bits) - 1);
        char digits[40];
        snprintf(digits, sizeof digits, lc == 'x' ? (upper ? "%" PRIX64 : "%" PRIx64) : "%" PRIo64,
                 u);
        snprintf(buf, sizeof buf, "%s%s", f->alt ? (lc == 'x' ? (upper ? "0X" : "0x") : "0") : "",
                 digits);
        put_padded(sb, f, buf, strlen(buf), true);
        return NULL;
    }
    case 'c': {
        int64_t cp;
        if (is_int_type(id)) {
            cp = int_value(fv, p);
        } else if (id == TYPE_VARCHAR || id == TYPE_CHAR) {
            const sqe_str *s = &VEC_DATA(fv, sqe_str)[p];
            size_t adv = 0;
            cp = s->len ? utf8_decode_cp((const unsigned char *)sqe_str_data(s), s->len, &adv) : -1;
            if (adv != s->len) goto bad_conversion;
        } else {
            goto bad_conversion;
        }
        if (cp < 0 || cp > 0x10FFFF) return "IllegalFormatCodePoint";
        size_t n = utf8_encode((uint32_t)cp, buf);
        if (upper && n == 1 && buf[0] >= 'a' && buf[0] <= 'z') buf[0] -= 32;
        put_padded(sb, f, buf, n, false);
        return NULL;
    }
    case 'f':
    case 'e':
    case 'g': {
        if (!is_float_type(id)) goto bad_conversion;
        int prec = f->precision >= 0 ? f->precision : 6;
        if (prec > 300) prec = 300;
        if (id == TYPE_DECIMAL && lc == 'f') {
            int128 v128 = decimal_get(fv->data, fv->type, p), r;
            int scale = fv->type.scale;
            if (prec < scale) {
                if (!decimal_rescale(v128, scale, prec, &r)) return "decimal overflow";
                scale = prec;
            } else {
                r = v128;
            }
            char d[48];
            decimal_format(r < 0 ? -r : r, scale, d);
            strbuf num;
            strbuf_init(&num);
            strbuf_puts(&num, d);
            if (prec > scale) {
                if (scale == 0) strbuf_putc(&num, '.');
                for (int i = scale; i < prec; i++) strbuf_putc(&num, '0');
            }
            put_number(sb, f, r < 0, strbuf_cstr(&num));
            strbuf_reset(&num);
            return NULL;
        }
        double x = double_value(fv, p);
        if (isnan(x) || isinf(x)) {
            const char *t = isnan(x) ? "NaN" : x > 0 ? (f->plus ? "+Infinity" : "Infinity")
                                                     : (f->paren ? "(Infinity)" : "-Infinity");
            put_padded(sb, f, t, strlen(t), false);
            return NULL;
        }
        if (lc == 'f') snprintf(buf, sizeof buf, "%.*f", prec, fabs(x));
        else if (lc == 'e') snprintf(buf, sizeof buf, upper ? "%.*E" : "%.*e", prec, fabs(x));
        else format_g(x, prec, upper, buf, sizeof buf);
        put_number(sb, f, signbit(x) && x != 0, buf);
        return NULL;
    }
    default:
        snprintf(errbuf, errcap, "UnknownFormatConversion: Conversion = '%c'", conv);
        return errbuf;
    }
bad_conversion: {
    char tname[64];
    type_format(fv->type, tname, sizeof tname);
    snprintf(errbuf, errcap, "IllegalFormatConversion: %c != %s", conv, tname);
    return errbuf;
}
}

/* Formats one row: fmt with arguments args[1..n_args-1]. Returns NULL or an error message. */
static const char *format_row(strbuf *sb, const char *fmt, uint32_t len, const vec *const *args,
                              uint32_t n_args, uint32_t row, char *errbuf, size_t errcap) {
    uint32_t next_arg = 0; /* ordinary index */
    int64_t last_arg = -1;
    for (uint32_t i = 0; i < len; i++) {
        if (fmt[i] != '%') {
            strbuf_putc(sb, fmt[i]);
            continue;
        }
        uint32_t start = i++;
        fmt_spec f = {.width = -1, .precision = -1};
        int64_t index = -1;
        bool relative = false;
        /* argument index: digits followed by '$' */
        uint32_t j = i;
        while (j < len && fmt[j] >= '0' && fmt[j] <= '9') j++;
        if (j < len && j > i && fmt[j] == '$') {
            index = atoll(fmt + i) - 1;
            i = j + 1;
        }
        for (; i < len; i++) {
            char c = fmt[i];
            if (c == '-') f.left = true;
            else if (c == '#') f.alt = true;
            else if (c == '+') f.plus = true;
            else if (c == ' ') f.space = true;
            else if (c == '0') f.zero = true;
            else if (c == ',') f.group = true;
            else if (c == '(') f.paren = true;
            else if (c == '<') relative = true;
            else break;
        }
        if (i < len && fmt[i] >= '1' && fmt[i] <= '9') {
            f.width = 0;
            while (i < len && fmt[i] >= '0' && fmt[i] <= '9' && f.width < 100000)
                f.width = f.width * 10 + (fmt[i++] - '0');
        }
        if (i < len && fmt[i] == '.') {
            i++;
            f.precision = 0;
            if (i >= len || fmt[i] < '0' || fmt[i] > '9') {
                snprintf(errbuf, errcap, "IllegalFormatPrecision");
                return errbuf;
            }
            while (i < len && fmt[i] >= '0' && fmt[i] <= '9' && f.precision < 100000)
                f.precision = f.precision * 10 + (fmt[i++] - '0');
        }
        if (i >= len) {
            snprintf(errbuf, errcap, "UnknownFormatConversion: Conversion = '%%'");
            return errbuf;
        }
        f.conv = fmt[i];
        if (f.conv == '%') {
            put_padded(sb, &f, "%", 1, false);
            continue;
        }
        if (f.conv == 'n') {
            strbuf_putc(sb, '\n');
            continue;
        }
        if (f.left && f.width < 0) {
            snprintf(errbuf, errcap, "MissingFormatWidth: %.*s", (int)(i - start + 1), fmt + start);
            return errbuf;
        }
        int64_t arg;
        if (relative) arg = last_arg;
        else if (index >= 0) arg = index;
        else arg = next_arg++;
        if (arg < 0 || arg + 1 >= (int64_t)n_args) {
            snprintf(errbuf, errcap, "MissingFormatArgument: Format specifier '%.*s'",
                     (int)(i - start + 1), fmt + start);
            return errbuf;
        }
        last_arg = arg;
        const char *e = format_one(sb, &f, args[arg + 1], row, errbuf, errcap);
        if (e) return e;
    }
    return NULL;
}

static int format_fn(func_ctx *ctx, const vec *const *args, uint32_t n_args, const uint32_t *sel,
                     uint32_t count, vec *out) {
    strbuf sb;
    strbuf_init_limit(&sb, FUNC_MAX_STRING);
    int rc = SQE_OK;
    FUNC_FOR_ROWS(sel, count, row) {
        if (vec_is_null(args[0], row)) {
            if ((rc = func_out_null(ctx, out, row))) break;
            continue;
        }
        uint32_t p;
        const vec *fv = vec_resolve(args[0], row, &p);
        const sqe_str *fmt = &VEC_DATA(fv, sqe_str)[p];
        char errbuf[256];
        strbuf_clear(&sb);
        const char *e = format_row(&sb, sqe_str_data(fmt), fmt->len, args, n_args, row, errbuf,
                                   sizeof errbuf);
        if (e) {
            rc = func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                                "Invalid format string: %.*s (%s)",
                                (int)(fmt->len > 100 ? 100 : fmt->len), sqe_str_data(fmt), e);
            if (rc) break;
            continue;
        }
        if (sb.len > FUNC_MAX_STRING) {
            rc = func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                                "format result is too large");
            if (rc) break;
            continue;
        }
        if ((rc = func_out_sb(ctx, out, row, &sb))) break;
    }
    strbuf_reset(&sb);
    return rc;
}

static const func_scalar_def format_defs[] = {
    {"format", "varchar,any...", "varchar", NULL, NULL, format_fn, 0,
     "formats arguments with a Java format string"},
};

const func_scalar_def *func_string_format_defs(uint32_t *count) {
    *count = FUNC_N(format_defs);
    return format_defs;
}
