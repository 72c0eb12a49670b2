/*
 * scalar_string.c: the string family, core part: length, lower/upper, concat, concat_ws,
 * substr, strpos/position, replace, reverse, trim/ltrim/rtrim, lpad/rpad, split, split_part,
 * chr, codepoint, starts_with, translate, levenshtein_distance, hamming_distance. The family
 * getter joins this table with the binary (_binary.c), URL (_url.c) and format() (_format.c)
 * parts.
 *
 * INTERFACE: func_scalar_family_string, func_ret_same_as_arg0.
 *
 * NOTES: positions and lengths count Unicode code points, as Trino does (a byte that is not a
 * UTF-8 continuation byte starts a code point, so invalid UTF-8 never crashes, it just counts
 * bytes). lower/upper map code points with the C.UTF-8 locale's tables (towlower_l), bytes that
 * are not valid UTF-8 pass through. substr and trim return views into their input (valid as
 * long as the input is, per vec.h, as casts between strings do); every other result is copied
 * into the output vector's heap.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <locale.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <wctype.h>

#include "func/scalar_kernel.h"

#define KERNEL(name)                                                                               \
    static int name(func_ctx *ctx, const vec *const *args, uint32_t n_args, const uint32_t *sel,   \
                    uint32_t count, vec *out)

#define SDATA(s) sqe_str_data(s)

int func_ret_same_as_arg0(const sqe_type *args, uint32_t n_args, sqe_type *ret, sqe_error *err) {
    *ret = args[0];
    return SQE_OK;
}

/* --- length, case ----------------------------------------------------------------------------- */

KERNEL(length_fn) {
    int64_t *r = out->data;
    vec_view us;
    vec_view_init(&us, args[0]);
    FUNC_FOR_ROWS(sel, count, row) {
        const sqe_str *s = ustr(&us, row);
        r[row] = utf8_count(SDATA(s), s->len);
    }
    return SQE_OK;
}

KERNEL(length_bytes_fn) {
    int64_t *r = out->data;
    vec_view us;
    vec_view_init(&us, args[0]);
    FUNC_FOR_ROWS(sel, count, row) r[row] = ustr(&us, row)->len;
    return SQE_OK;
}

static locale_t g_utf8_locale;
static pthread_once_t g_locale_once = PTHREAD_ONCE_INIT;
static void locale_init(void) {
    g_utf8_locale = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
}

/* Maps every code point of s through towlower_l / towupper_l (ASCII fast path). */
static int change_case(func_ctx *ctx, const vec *const *args, const uint32_t *sel, uint32_t count,
                       vec *out, bool upper) {
    pthread_once(&g_locale_once, locale_init);
    vec_view us;
    vec_view_init(&us, args[0]);
    FUNC_FOR_ROWS(sel, count, row) {
        const sqe_str *s = ustr(&us, row);
        const unsigned char *p = (const unsigned char *)SDATA(s);
        uint32_t n = s->len;
        char small[SQE_STR_INLINE];
        char *dst = n <= SQE_STR_INLINE ? small : vec_str_reserve(out, n + n / 2 + 4);
        if (!dst) return func_nomem(ctx);
        size_t cap = n <= SQE_STR_INLINE ? SQE_STR_INLINE : n + n / 2 + 4, o = 0;
        bool ascii = true;
        for (uint32_t i = 0; i < n; i++) {
            unsigned char c = p[i];
            if (c >= 0x80) {
                ascii = false;
                break;
            }
            dst[i] = (char)(upper ? (c >= 'a' && c <= 'z' ? c - 32 : c)
                                  : (c >= 'A' && c <= 'Z' ? c + 32 : c));
        }
        if (ascii) {
            VEC_DATA(out, sqe_str)[row] = sqe_str_make(dst, n);
            continue;
        }
        if (dst == small) {
            dst = vec_str_reserve(out, n * 2 + 4);
            if (!dst) return func_nomem(ctx);
            cap = n * 2 + 4;
        }
        for (uint32_t i = 0; i < n;) {
            size_t adv;
            int32_t cp = utf8_decode_cp(p + i, n - i, &adv);
            if (cp < 0 || !g_utf8_locale) {
                if (cp >= 0 && cp < 0x80)
                    dst[o++] = (char)(upper ? (cp >= 'a' && cp <= 'z' ? cp - 32 : cp)
                                            : (cp >= 'A' && cp <= 'Z' ? cp + 32 : cp));
                else
                    for (size_t k = 0; k < adv; k++) dst[o++] = (char)p[i + k];
            } else {
                wint_t m = upper ? towupper_l((wint_t)cp, g_utf8_locale)
                                 : towlower_l((wint_t)cp, g_utf8_locale);
                if (m > 0x10FFFF || (m >= 0xD800 && m <= 0xDFFF)) m = (wint_t)cp;
                if (o + 4 > cap) return func_nomem(ctx); /* cannot happen: <= 1.5x growth */
                o += utf8_encode((uint32_t)m, dst + o);
            }
            i += (uint32_t)adv;
        }
        VEC_DATA(out, sqe_str)[row] = sqe_str_make(dst, (uint32_t)o);
    }
    return SQE_OK;
}

KERNEL(lower_fn) { return change_case(ctx, args, sel, count, out, false); }
KERNEL(upper_fn) { return change_case(ctx, args, sel, count, out, true); }

/* --- concat ----------------------------------------------------------------------------------- */

KERNEL(concat_fn) {
    vec_view stack[16];
    vec_view *u = n_args <= 16 ? stack : malloc(sizeof(vec_view) * n_args);
    if (!u) return func_nomem(ctx);
    uint32_t n = n_args;
    for (uint32_t i = 0; i < n; i++) vec_view_init(&u[i], args[i]);
    int rc = SQE_OK;
    FUNC_FOR_ROWS(sel, count, row) {
        size_t total = 0;
        for (uint32_t i = 0; i < n; i++) total += ustr(&u[i], row)->len;
        if (total > FUNC_MAX_STRING) {
            rc = func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                                "concatenated string is too large");
            if (rc) break;
            continue;
        }
        char small[SQE_STR_INLINE];
        char *dst = total <= SQE_STR_INLINE ? small : vec_str_reserve(out, (uint32_t)total);
        if (!dst) {
            rc = func_nomem(ctx);
            break;
        }
        size_t o = 0;
        for (uint32_t i = 0; i < n; i++) {
            const sqe_str *s = ustr(&u[i], row);
            if (s->len) memcpy(dst + o, SDATA(s), s->len);
            o += s->len;
        }
        VEC_DATA(out, sqe_str)[row] = sqe_str_make(dst, (uint32_t)o);
    }
    if (u != stack) free(u);
    return rc;
}

static int ret_concat(const sqe_type *args, uint32_t n_args, sqe_type *ret, sqe_error *err) {
    if (n_args < 2)
        return err_set(err, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                       "There must be two or more concatenation arguments");
    /* As Trino: concat and || of varchars are an unbounded varchar, whatever the bounds. */
    *ret = args[0].id == TYPE_VARBINARY ? type_make(TYPE_VARBINARY) : type_varchar(0);
    return SQE_OK;
}

/* concat_ws(sep, s...): NULL separator gives NULL, NULL strings are skipped. */
KERNEL(concat_ws_fn) {
    vec_view stack[16];
    vec_view *u = n_args <= 16 ? stack : malloc(sizeof(vec_view) * n_args);
    if (!u) return func_nomem(ctx);
    uint32_t n = n_args;
    for (uint32_t i = 0; i < n; i++) vec_view_init(&u[i], args[i]);
    strbuf sb;
    strbuf_init_limit(&sb, FUNC_MAX_STRING);
    int rc = SQE_OK;
    FUNC_FOR_ROWS(sel, count, row) {
        if (!vec_view_valid(&u[0], row)) {
            if ((rc = func_out_null(ctx, out, row))) break;
            continue;
        }
        const sqe_str *sep = ustr(&u[0], row);
        strbuf_clear(&sb);
        bool first = true;
        for (uint32_t i = 1; i < n; i++) {
            if (!vec_view_valid(&u[i], row)) continue;
            if (!first) strbuf_append(&sb, SDATA(sep), sep->len);
            const sqe_str *s = ustr(&u[i], row);
            strbuf_append(&sb, SDATA(s), s->len);
            first = false;
        }
        if ((rc = func_out_sb(ctx, out, row, &sb))) break;
    }
    strbuf_reset(&sb);
    if (u != stack) free(u);
    return rc;
}

KERNEL(concat_ws_array_fn) {
    vec_view us, ua, ue;
    vec_view_init(&us, args[0]);
    vec_view_init(&ua, args[1]);
    vec_view_init(&ue, ulist_elems(&ua));
    strbuf sb;
    strbuf_init_limit(&sb, FUNC_MAX_STRING);
    int rc = SQE_OK;
    FUNC_FOR_ROWS(sel, count, row) {
        const sqe_str *sep = ustr(&us, row);
        sqe_list_entry e = ulist(&ua, row);
        strbuf_clear(&sb);
        bool first = true;
        for (uint32_t i = 0; i < e.length; i++) {
            if (!vec_view_valid(&ue, e.offset + i)) continue;
            if (!first) strbuf_append(&sb, SDATA(sep), sep->len);
            const sqe_str *s = ustr(&ue, e.offset + i);
            strbuf_append(&sb, SDATA(s), s->len);
            first = false;
        }
        if ((rc = func_out_sb(ctx, out, row, &sb))) break;
    }
    strbuf_reset(&sb);
    return rc;
}

/* --- substr, strpos, replace, reverse --------------------------------------------------------- */

/* Trino's substring on code points (bytes when `bytes`): [*from, *to) of p. */
static void substring_range(const char *p, uint32_t len, int64_t start, int64_t length,
                            bool has_length, bool bytes, uint32_t *from, uint32_t *to) {
    *from = *to = 0;
    if (start == 0 || len == 0 || (has_length && length <= 0)) return;
    if (start > 0) {
        /* no need to count the code points: walk to the start, then length more */
        if (bytes) {
            if (start > (int64_t)len) return;
            *from = (uint32_t)(start - 1);
            *to = has_length && length < (int64_t)len - *from ? *from + (uint32_t)length : len;
            return;
        }
        uint32_t f = (uint32_t)utf8_offset(p, len, start - 1);
        if (f >= len) return;
        *from = f;
        *to = has_length ? (uint32_t)(f + utf8_offset(p + f, len - f, length)) : len;
        return;
    }
    int64_t n_units = bytes ? len : utf8_count(p, len);
    start += n_units;
    if (start < 0) return;
    int64_t end = has_length && length < n_units - start ? start + length : n_units;
    if (bytes) {
        *from = (uint32_t)start;
        *to = (uint32_t)end;
    } else {
        *from = (uint32_t)utf8_offset(p, len, start);
        *to = (uint32_t)(*from + utf8_offset(p + *from, len - *from, end - start));
    }
}

static int substr_common(func_ctx *ctx, const vec *const *args, uint32_t n_args,
                         const uint32_t *sel, uint32_t count, vec *out, bool bytes) {
    vec_view us, ub, ul = {0};
    vec_view_init(&us, args[0]);
    vec_view_init(&ub, args[1]);
    if (n_args > 2) vec_view_init(&ul, args[2]);
    FUNC_FOR_ROWS(sel, count, row) {
        const sqe_str *s = ustr(&us, row);
        uint32_t from, to;
        substring_range(SDATA(s), s->len, UVAL(&ub, int64_t, row),
                        n_args > 2 ? UVAL(&ul, int64_t, row) : 0, n_args > 2, bytes, &from, &to);
        VEC_DATA(out, sqe_str)[row] = sqe_str_make(SDATA(s) + from, to - from); /* a view */
    }
    return SQE_OK;
}
KERNEL(substr_fn) { return substr_common(ctx, args, n_args, sel, count, out, false); }
KERNEL(substr_bin_fn) { return substr_common(ctx, args, n_args, sel, count, out, true); }

static int64_t find_forward(const char *s, uint32_t n, const char *sub, uint32_t m, int64_t from) {
    if (from > (int64_t)n) return -1;
    if (m == 0) return from;
    const char *hit = func_find(s + from, n - (uint32_t)from, sub, m);
    return hit ? hit - s : -1;
}

static int64_t find_backward(const char *s, uint32_t n, const char *sub, uint32_t m, int64_t before) {
    /* last occurrence starting at or before `before` */
    if (m > n) return -1;
    int64_t i = before < (int64_t)(n - m) ? before : (int64_t)(n - m);
    for (; i >= 0; i--)
        if (memcmp(s + i, sub, m) == 0) return i;
    return -1;
}

KERNEL(strpos_fn) {
    int64_t *r = out->data;
    vec_view us, ub, ui = {0};
    vec_view_init(&us, args[0]);
    vec_view_init(&ub, args[1]);
    if (n_args > 2) vec_view_init(&ui, args[2]);
    FUNC_FOR_ROWS(sel, count, row) {
        const sqe_str *s = ustr(&us, row), *sub = ustr(&ub, row);
        int64_t instance = n_args > 2 ? UVAL(&ui, int64_t, row) : 1;
        if (instance == 0) {
            SQE_TRY(func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                                   "'instance' must be a positive or negative number."));
            continue;
        }
        const char *p = SDATA(s), *q = SDATA(sub);
        int64_t at = -1;
        if (instance > 0) {
            int64_t pos = -1;
            for (int64_t k = 0; k < instance; k++) {
                pos = find_forward(p, s->len, q, sub->len, pos + 1);
                if (pos < 0) break;
            }
            at = pos;
        } else {
            int64_t pos = (int64_t)s->len + 1;
            for (int64_t k = 0; k < -instance; k++) {
                pos = find_backward(p, s->len, q, sub->len, pos - 1);
                if (pos < 0) break;
            }
            at = pos;
        }
        r[row] = at < 0 ? 0 : utf8_count(p, (size_t)at) + 1;
    }
    return SQE_OK;
}

KERNEL(replace_fn) {
    vec_view us, ua, ub = {0};
    vec_view_init(&us, args[0]);
    vec_view_init(&ua, args[1]);
    if (n_args > 2) vec_view_init(&ub, args[2]);
    strbuf sb;
    strbuf_init_limit(&sb, FUNC_MAX_STRING);
    int rc = SQE_OK;
    FUNC_FOR_ROWS(sel, count, row) {
        if ((rc = func_check_cancel(ctx))) break;
        const sqe_str *s = ustr(&us, row), *a = ustr(&ua, row);
        const sqe_str *b = n_args > 2 ? ustr(&ub, row) : NULL;
        const char *p = SDATA(s), *pa = SDATA(a), *pb = b ? SDATA(b) : "";
        uint32_t lb = b ? b->len : 0;
        strbuf_clear(&sb);
        if (a->len == 0) {
            /* insert the replacement before every code point and at the end */
            for (uint32_t i = 0; i < s->len;) {
                uint32_t l = (uint32_t)utf8_seq_len((unsigned char)p[i]);
                if (l > s->len - i) l = s->len - i;
                strbuf_append(&sb, pb, lb);
                strbuf_append(&sb, p + i, l);
                i += l;
            }
            strbuf_append(&sb, pb, lb);
        } else {
            uint32_t i = 0;
            for (;;) {
                int64_t hit = find_forward(p, s->len, pa, a->len, i);
                if (hit < 0) break;
                strbuf_append(&sb, p + i, (size_t)hit - i);
                strbuf_append(&sb, pb, lb);
                i = (uint32_t)hit + a->len;
            }
            strbuf_append(&sb, p + i, s->len - i);
        }
        if (sb.failed == STRBUF_TOO_LONG) {
            if ((rc = func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                                     "replace result is too large")))
                break;
            continue;
        }
        if ((rc = func_out_sb(ctx, out, row, &sb))) break;
    }
    strbuf_reset(&sb);
    return rc;
}

static int reverse_common(func_ctx *ctx, const vec *const *args, const uint32_t *sel,
                          uint32_t count, vec *out, bool bytes) {
    vec_view us;
    vec_view_init(&us, args[0]);
    FUNC_FOR_ROWS(sel, count, row) {
        const sqe_str *s = ustr(&us, row);
        const char *p = SDATA(s);
        uint32_t n = s->len;
        char small[SQE_STR_INLINE];
        char *dst = n <= SQE_STR_INLINE ? small : vec_str_reserve(out, n);
        if (!dst) return func_nomem(ctx);
        for (uint32_t i = 0; i < n;) {
            uint32_t l = bytes ? 1 : (uint32_t)utf8_seq_len((unsigned char)p[i]);
            if (l > n - i) l = n - i;
            memcpy(dst + n - i - l, p + i, l);
            i += l;
        }
        VEC_DATA(out, sqe_str)[row] = sqe_str_make(dst, n);
    }
    return SQE_OK;
}
KERNEL(reverse_fn) { return reverse_common(ctx, args, sel, count, out, false); }
KERNEL(reverse_bin_fn) { return reverse_common(ctx, args, sel, count, out, true); }

/* --- trim, pad -------------------------------------------------------------------------------- */

/* Java's Character.isWhitespace. */
static bool is_whitespace(int32_t cp) {
    if (cp < 0) return false;
    if (cp == ' ' || (cp >= 9 && cp <= 13) || (cp >= 0x1C && cp <= 0x1F)) return true;
    return cp == 0x1680 || (cp >= 0x2000 && cp <= 0x2006) || (cp >= 0x2008 && cp <= 0x200A) ||
           cp == 0x2028 || cp == 0x2029 || cp == 0x205F || cp == 0x3000;
}

/* Is code point cp one of the code points of set (UTF-8)? NULL set = whitespace. */
static bool in_set(int32_t cp, const sqe_str *set) {
    if (!set) return is_whitespace(cp);
    const unsigned char *p = (const unsigned char *)SDATA(set);
    for (uint32_t i = 0; i < set->len;) {
        size_t adv;
        if (utf8_decode_cp(p + i, set->len - i, &adv) == cp) return true;
        i += (uint32_t)adv;
    }
    return false;
}

/* Start of the last code point before byte `end` of p. */
static uint32_t prev_cp_start(const char *p, uint32_t end) {
    uint32_t i = end - 1;
    while (i > 0 && end - i < 4 && ((unsigned char)p[i] & 0xC0) == 0x80) i--;
    return i;
}

static int trim_common(func_ctx *ctx, const vec *const *args, uint32_t n_args,
                       const uint32_t *sel, uint32_t count, vec *out, bool left, bool right) {
    vec_view us, uc = {0};
    vec_view_init(&us, args[0]);
    if (n_args > 1) vec_view_init(&uc, args[1]);
    FUNC_FOR_ROWS(sel, count, row) {
        const sqe_str *s = ustr(&us, row), *set = n_args > 1 ? ustr(&uc, row) : NULL;
        const char *p = SDATA(s);
        uint32_t from = 0, to = s->len;
        while (left && from < to) {
            size_t adv;
            int32_t cp = utf8_decode_cp((const unsigned char *)p + from, to - from, &adv);
            if (!in_set(cp, set)) break;
            from += (uint32_t)adv;
        }
        while (right && to > from) {
            uint32_t st = prev_cp_start(p, to);
            if (st < from) st = from;
            size_t adv;
            int32_t cp = utf8_decode_cp((const unsigned char *)p + st, to - st, &adv);
            if (st + adv != to || !in_set(cp, set)) break;
            to = st;
        }
        VEC_DATA(out, sqe_str)[row] = sqe_str_make(p + from, to - from); /* a view */
    }
    return SQE_OK;
}
KERNEL(trim_fn) { return trim_common(ctx, args, n_args, sel, count, out, true, true); }
KERNEL(ltrim_fn) { return trim_common(ctx, args, n_args, sel, count, out, true, false); }
KERNEL(rtrim_fn) { return trim_common(ctx, args, n_args, sel, count, out, false, true); }

/* Appends the first n code points of pad repeated (pad_cp code points, plen bytes each): whole
 * copies by doubling what is already written, so a size of a billion costs a few dozen memcpy
 * calls, not one append per code point. */
static void append_pad_cycle(strbuf *sb, const char *pp, uint32_t plen, int64_t pad_cp,
                             int64_t n) {
    int64_t reps = n / pad_cp, rest = n % pad_cp;
    if (reps > 0) {
        size_t total = (size_t)reps * plen;
        if (!strbuf_reserve(sb, total)) return;
        char *dst = sb->data + sb->len;
        memcpy(dst, pp, plen);
        for (size_t done = plen; done < total;) {
            size_t k = done < total - done ? done : total - done;
            memcpy(dst + done, dst, k);
            done += k;
        }
        sb->len += total;
        sb->data[sb->len] = 0;
    }
    strbuf_append(sb, pp, utf8_offset(pp, plen, rest));
}

static int pad_common(func_ctx *ctx, const vec *const *args, const uint32_t *sel, uint32_t count,
                      vec *out, bool left) {
    vec_view us, un, up;
    vec_view_init(&us, args[0]);
    vec_view_init(&un, args[1]);
    vec_view_init(&up, args[2]);
    strbuf sb;
    strbuf_init_limit(&sb, FUNC_MAX_STRING);
    int rc = SQE_OK;
    FUNC_FOR_ROWS(sel, count, row) {
        if ((rc = func_check_cancel(ctx))) break;
        const sqe_str *s = ustr(&us, row), *pad = ustr(&up, row);
        int64_t size = UVAL(&un, int64_t, row);
        if (size < 0 || size > (int64_t)FUNC_MAX_STRING) {
            if ((rc = func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                                     "Target length must be in the range [0..%u]",
                                     FUNC_MAX_STRING)))
                break;
            continue;
        }
        const char *p = SDATA(s);
        int64_t n_cp = utf8_count(p, s->len);
        if (n_cp >= size) {
            if ((rc = func_out_str(ctx, out, row, p, utf8_offset(p, s->len, size)))) break;
            continue;
        }
        if (pad->len == 0) {
            if ((rc = func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                                     "Padding string must not be empty")))
                break;
            continue;
        }
        /* the result is built in a scratch buffer first: charge it to the query while it lives,
         * so a billion-character pad meets the memory limit before it is written */
        const char *pp = SDATA(pad);
        int64_t pad_cp = utf8_count(pp, pad->len), need = size - n_cp;
        if (pad_cp == 0) pad_cp = 1; /* only continuation bytes (invalid UTF-8): one unit */
        int64_t bytes = (need / pad_cp + 1) * (int64_t)pad->len + s->len;
        if ((rc = mem_charge(ctx->tracker, bytes, ctx->err))) break;
        strbuf_clear(&sb);
        if (!left) strbuf_append(&sb, p, s->len);
        append_pad_cycle(&sb, pp, pad->len, pad_cp, need);
        if (left) strbuf_append(&sb, p, s->len);
        rc = func_out_sb(ctx, out, row, &sb);
        mem_release(ctx->tracker, bytes);
        if (rc) break;
    }
    strbuf_reset(&sb);
    return rc;
}
KERNEL(lpad_fn) { return pad_common(ctx, args, sel, count, out, true); }
KERNEL(rpad_fn) { return pad_common(ctx, args, sel, count, out, false); }

/* --- split ------------------------------------------------------------------------------------ */

/* Splits s at delim into at most limit parts (limit <= 0: unlimited); calls emit per part. */
static uint32_t split_parts(const char *p, uint32_t n, const char *d, uint32_t dl, int64_t limit,
                            uint32_t *starts, uint32_t *ends, uint32_t cap) {
    uint32_t k = 0, i = 0;
    for (;;) {
        int64_t hit = (limit > 0 && (int64_t)k + 1 >= limit) ? -1 : find_forward(p, n, d, dl, i);
        if (hit < 0) {
            if (k < cap) {
                starts[k] = i;
                ends[k] = n;
            }
            return k + 1;
        }
        if (k < cap) {
            starts[k] = i;
            ends[k] = (uint32_t)hit;
        }
        k++;
        i = (uint32_t)hit + dl;
    }
}

KERNEL(split_fn) {
    vec_view us, ud, ul = {0};
    vec_view_init(&us, args[0]);
    vec_view_init(&ud, args[1]);
    if (n_args > 2) vec_view_init(&ul, args[2]);
    vec *elems = &out->children[0];
    FUNC_FOR_ROWS(sel, count, row) {
        const sqe_str *s = ustr(&us, row), *d = ustr(&ud, row);
        int64_t limit = n_args > 2 ? UVAL(&ul, int64_t, row) : 0;
        if (d->len == 0) {
            SQE_TRY(func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                                   "The delimiter may not be the empty string"));
            continue;
        }
        if (n_args > 2 && limit <= 0) {
            SQE_TRY(func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                                   "Limit must be positive"));
            continue;
        }
        const char *p = SDATA(s), *pd = SDATA(d);
        uint32_t n = split_parts(p, s->len, pd, d->len, limit, NULL, NULL, 0);
        uint32_t *bounds = malloc(sizeof(uint32_t) * 2 * n);
        if (!bounds) return func_nomem(ctx);
        split_parts(p, s->len, pd, d->len, limit, bounds, bounds + n, n);
        uint32_t start;
        int rc = func_list_reserve(ctx, out, n, &start);
        for (uint32_t k = 0; rc == SQE_OK && k < n; k++)
            rc = func_out_str(ctx, elems, start + k, p + bounds[k], bounds[n + k] - bounds[k]);
        free(bounds);
        if (rc) return rc;
        out->child_len = start + n;
        VEC_DATA(out, sqe_list_entry)[row] = (sqe_list_entry){start, n};
    }
    return SQE_OK;
}

KERNEL(split_part_fn) {
    vec_view us, ud, ui;
    vec_view_init(&us, args[0]);
    vec_view_init(&ud, args[1]);
    vec_view_init(&ui, args[2]);
    FUNC_FOR_ROWS(sel, count, row) {
        const sqe_str *s = ustr(&us, row), *d = ustr(&ud, row);
        int64_t idx = UVAL(&ui, int64_t, row);
        if (idx <= 0) {
            SQE_TRY(func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                                   "Index must be greater than zero"));
            continue;
        }
        const char *p = SDATA(s), *pd = SDATA(d);
        if (d->len == 0) {
            /* each code point is a part */
            if (idx > (int64_t)utf8_count(p, s->len)) {
                SQE_TRY(func_out_null(ctx, out, row));
                continue;
            }
            size_t from = utf8_offset(p, s->len, idx - 1);
            size_t to = from + utf8_offset(p + from, s->len - from, 1);
            SQE_TRY(func_out_str(ctx, out, row, p + from, to - from));
            continue;
        }
        int64_t start = 0, k = 1;
        while (k < idx) {
            int64_t hit = find_forward(p, s->len, pd, d->len, start);
            if (hit < 0) break;
            start = hit + d->len;
            k++;
        }
        if (k < idx) {
            SQE_TRY(func_out_null(ctx, out, row));
            continue;
        }
        int64_t end = find_forward(p, s->len, pd, d->len, start);
        if (end < 0) end = s->len;
        SQE_TRY(func_out_str(ctx, out, row, p + start, (size_t)(end - start)));
    }
    return SQE_OK;
}

/* --- code points -------------------------------------------------------------------------------- */

KERNEL(chr_fn) {
    vec_view ua;
    vec_view_init(&ua, args[0]);
    FUNC_FOR_ROWS(sel, count, row) {
        int64_t cp = UVAL(&ua, int64_t, row);
        if (cp < 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
            SQE_TRY(func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                                   "Not a valid Unicode code point: %" PRId64, cp));
            continue;
        }
        char buf[4];
        size_t n = utf8_encode((uint32_t)cp, buf);
        SQE_TRY(func_out_str(ctx, out, row, buf, n));
    }
    return SQE_OK;
}

KERNEL(codepoint_fn) {
    int32_t *r = out->data;
    vec_view us;
    vec_view_init(&us, args[0]);
    FUNC_FOR_ROWS(sel, count, row) {
        const sqe_str *s = ustr(&us, row);
        size_t adv = 0;
        int32_t cp = s->len ? utf8_decode_cp((const unsigned char *)SDATA(s), s->len, &adv) : -1;
        if (cp < 0 || adv != s->len) {
            SQE_TRY(func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                                   "Input string must be a single character string"));
            continue;
        }
        r[row] = cp;
    }
    return SQE_OK;
}

KERNEL(starts_with_fn) {
    uint8_t *r = out->data;
    vec_view us, up;
    vec_view_init(&us, args[0]);
    vec_view_init(&up, args[1]);
    FUNC_FOR_ROWS(sel, count, row) {
        const sqe_str *s = ustr(&us, row), *p = ustr(&up, row);
        r[row] = s->len >= p->len && memcmp(SDATA(s), SDATA(p), p->len) == 0;
    }
    return SQE_OK;
}

/* Decodes s into code points (invalid bytes as themselves, negated); caller frees. */
static int32_t *decode_all(const sqe_str *s, uint32_t *n_out) {
    const unsigned char *p = (const unsigned char *)SDATA(s);
    int32_t *cps = malloc(sizeof(int32_t) * (s->len ? s->len : 1));
    if (!cps) return NULL;
    uint32_t n = 0;
    for (uint32_t i = 0; i < s->len;) {
        size_t adv;
        int32_t cp = utf8_decode_cp(p + i, s->len - i, &adv);
        cps[n++] = cp < 0 ? -(int32_t)p[i] - 1 : cp;
        i += (uint32_t)adv;
    }
    *n_out = n;
    return cps;
}

static void append_cp(strbuf *sb, int32_t cp) {
    char buf[4];
    if (cp < 0) {
        buf[0] = (char)(-(cp + 1));
        strbuf_append(sb, buf, 1);
        return;
    }
    strbuf_append(sb, buf, utf8_encode((uint32_t)cp, buf));
}

KERNEL(translate_fn) {
    vec_view us, uf, ut;
    vec_view_init(&us, args[0]);
    vec_view_init(&uf, args[1]);
    vec_view_init(&ut, args[2]);
    strbuf sb;
    strbuf_init_limit(&sb, FUNC_MAX_STRING);
    int rc = SQE_OK;
    FUNC_FOR_ROWS(sel, count, row) {
        uint32_t ns, nf, nt;
        int32_t *s = decode_all(ustr(&us, row), &ns);
        int32_t *f = decode_all(ustr(&uf, row), &nf);
        int32_t *t = decode_all(ustr(&ut, row), &nt);
        if (!s || !f || !t) {
            rc = func_nomem(ctx);
        } else {
            strbuf_clear(&sb);
            for (uint32_t i = 0; i < ns; i++) {
                uint32_t k = 0;
                while (k < nf && f[k] != s[i]) k++;
                if (k == nf) append_cp(&sb, s[i]);
                else if (k < nt) append_cp(&sb, t[k]);
            }
            rc = func_out_sb(ctx, out, row, &sb);
        }
        free(s);
        free(f);
        free(t);
        if (rc) break;
    }
    strbuf_reset(&sb);
    return rc;
}

KERNEL(levenshtein_fn) {
    int64_t *r = out->data;
    vec_view ua, ub;
    vec_view_init(&ua, args[0]);
    vec_view_init(&ub, args[1]);
    FUNC_FOR_ROWS(sel, count, row) {
        uint32_t na, nb;
        int32_t *a = decode_all(ustr(&ua, row), &na);
        int32_t *b = decode_all(ustr(&ub, row), &nb);
        uint32_t *d = a && b ? malloc(sizeof(uint32_t) * (nb + 1)) : NULL;
        if (!d) {
            free(a);
            free(b);
            return func_nomem(ctx);
        }
        if ((uint64_t)na * nb > 1000000) {
            free(a);
            free(b);
            free(d);
            SQE_TRY(func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                                   "The combined inputs for Levenshtein distance are too large"));
            continue;
        }
        for (uint32_t j = 0; j <= nb; j++) d[j] = j;
        for (uint32_t i = 1; i <= na; i++) {
            uint32_t prev = d[0];
            d[0] = i;
            for (uint32_t j = 1; j <= nb; j++) {
                uint32_t cur = d[j];
                uint32_t sub = prev + (a[i - 1] != b[j - 1]);
                uint32_t del = d[j] + 1, ins = d[j - 1] + 1;
                d[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
                prev = cur;
            }
        }
        r[row] = d[nb];
        free(a);
        free(b);
        free(d);
    }
    return SQE_OK;
}

KERNEL(hamming_fn) {
    int64_t *r = out->data;
    vec_view ua, ub;
    vec_view_init(&ua, args[0]);
    vec_view_init(&ub, args[1]);
    FUNC_FOR_ROWS(sel, count, row) {
        const sqe_str *a = ustr(&ua, row), *b = ustr(&ub, row);
        const unsigned char *pa = (const unsigned char *)SDATA(a), *pb = (const unsigned char *)SDATA(b);
        uint32_t i = 0, j = 0;
        int64_t dist = 0;
        while (i < a->len && j < b->len) {
            size_t la, lb;
            int32_t ca = utf8_decode_cp(pa + i, a->len - i, &la), cb = utf8_decode_cp(pb + j, b->len - j, &lb);
            dist += ca != cb || (ca < 0 && pa[i] != pb[j]);
            i += (uint32_t)la;
            j += (uint32_t)lb;
        }
        if (i < a->len || j < b->len) {
            SQE_TRY(func_row_error(ctx, out, row, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                                   "The input strings to hamming_distance function must have the "
                                   "same length"));
            continue;
        }
        r[row] = dist;
    }
    return SQE_OK;
}

/* --- The table ------------------------------------------------------------------------------ */

#define NP FUNC_NULL_PROPAGATES
#define SAME func_ret_same_as_arg0

static const func_scalar_def string_defs[] = {
    {"length", "varchar", "bigint", NULL, NULL, length_fn, NP, "length in code points"},
    {"length", "varbinary", "bigint", NULL, NULL, length_bytes_fn, NP, "length in bytes"},
    {"char_length", "varchar", "bigint", NULL, NULL, length_fn, NP, "length in code points"},
    {"character_length", "varchar", "bigint", NULL, NULL, length_fn, NP,
     "length in code points"},
    {"lower", "varchar", "?", SAME, NULL, lower_fn, NP, "lower case"},
    {"upper", "varchar", "?", SAME, NULL, upper_fn, NP, "upper case"},
    {"concat", "varchar,varchar,varchar...", "?", ret_concat, NULL, concat_fn, NP,
     "concatenation"},
    {"concat", "varbinary,varbinary,varbinary...", "?", ret_concat, NULL, concat_fn, NP,
     "concatenation"},
    {"concat_ws", "varchar,varchar,varchar...", "varchar", NULL, NULL, concat_ws_fn, 0,
     "concatenation with a separator, skipping NULLs"},
    {"concat_ws", "varchar,array(varchar)", "varchar", NULL, NULL, concat_ws_array_fn, NP,
     "concatenation with a separator, skipping NULLs"},
    {"substr", "varchar,bigint", "?", SAME, NULL, substr_fn, NP, "substring from start"},
    {"substr", "varchar,bigint,bigint", "?", SAME, NULL, substr_fn, NP,
     "substring of length from start"},
    {"substring", "varchar,bigint", "?", SAME, NULL, substr_fn, NP, "substring from start"},
    {"substring", "varchar,bigint,bigint", "?", SAME, NULL, substr_fn, NP,
     "substring of length from start"},
    {"substr", "varbinary,bigint", "varbinary", NULL, NULL, substr_bin_fn, NP, "bytes from start"},
    {"substr", "varbinary,bigint,bigint", "varbinary", NULL, NULL, substr_bin_fn, NP,
     "bytes from start"},
    {"strpos", "varchar,varchar", "bigint", NULL, NULL, strpos_fn, NP,
     "position of the first occurrence (1-based, 0 if none)"},
    {"strpos", "varchar,varchar,bigint", "bigint", NULL, NULL, strpos_fn, NP,
     "position of the n-th occurrence (negative: from the end)"},
    {"position", "varchar,varchar", "bigint", NULL, NULL, strpos_fn, NP,
     "position(substring IN string) as strpos(string, substring)"},
    {"replace", "varchar,varchar", "?", func_ret_varchar_of_arg0, NULL, replace_fn, NP,
     "removes every occurrence of search"},
    {"replace", "varchar,varchar,varchar", "?", func_ret_replace3, NULL, replace_fn, NP,
     "replaces every occurrence of search"},
    {"reverse", "varchar", "?", SAME, NULL, reverse_fn, NP, "code points in reverse order"},
    {"reverse", "varbinary", "varbinary", NULL, NULL, reverse_bin_fn, NP,
     "bytes in reverse order"},
    {"trim", "varchar", "?", SAME, NULL, trim_fn, NP, "removes leading and trailing whitespace"},
    {"trim", "varchar,varchar", "?", SAME, NULL, trim_fn, NP,
     "removes leading and trailing characters"},
    {"ltrim", "varchar", "?", SAME, NULL, ltrim_fn, NP, "removes leading whitespace"},
    {"ltrim", "varchar,varchar", "?", SAME, NULL, ltrim_fn, NP, "removes leading characters"},
    {"rtrim", "varchar", "?", SAME, NULL, rtrim_fn, NP, "removes trailing whitespace"},
    {"rtrim", "varchar,varchar", "?", SAME, NULL, rtrim_fn, NP, "removes trailing characters"},
    {"lpad", "varchar,bigint,varchar", "varchar", NULL, NULL, lpad_fn, NP,
     "left-pads to size code points"},
    {"rpad", "varchar,bigint,varchar", "varchar", NULL, NULL, rpad_fn, NP,
     "right-pads to size code points"},
    {"split", "varchar,varchar", "?", func_ret_array_varchar_of_arg0, NULL, split_fn, NP,
     "splits on a delimiter"},
    {"split", "varchar,varchar,bigint", "?", func_ret_array_varchar_of_arg0, NULL, split_fn, NP,
     "splits on a delimiter into at most limit parts"},
    {"split_part", "varchar,varchar,bigint", "?", func_ret_varchar_of_arg0, NULL, split_part_fn, NP,
     "the index-th field (1-based) after splitting"},
    {"chr", "bigint", "varchar(1)", NULL, NULL, chr_fn, NP, "the character of a code point"},
    {"codepoint", "varchar", "integer", NULL, NULL, codepoint_fn, NP,
     "the code point of a single character"},
    {"starts_with", "varchar,varchar", "boolean", NULL, NULL, starts_with_fn, NP,
     "does string start with prefix"},
    {"translate", "varchar,varchar,varchar", "varchar", NULL, NULL, translate_fn, NP,
     "replaces characters of from with those of to"},
    {"levenshtein_distance", "varchar,varchar", "bigint", NULL, NULL, levenshtein_fn, NP,
     "Levenshtein edit distance"},
    {"hamming_distance", "varchar,varchar", "bigint", NULL, NULL, hamming_fn, NP,
     "number of positions with different characters"},
};

static func_scalar_def *g_all;
static uint32_t g_n_all;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void join_parts(void) {
    func_def_part parts[] = {
        {string_defs, FUNC_N(string_defs)},
        {NULL, 0},
        {NULL, 0},
        {NULL, 0},
    };
    parts[1].defs = func_string_binary_defs(&parts[1].count);
    parts[2].defs = func_string_url_defs(&parts[2].count);
    parts[3].defs = func_string_format_defs(&parts[3].count);
    g_all = func_defs_join(parts, FUNC_N(parts), &g_n_all);
}

const func_scalar_def *func_scalar_family_string(uint32_t *count) {
    pthread_once(&g_once, join_parts);
    *count = g_n_all;
    return g_all;
}
