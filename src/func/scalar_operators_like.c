/*
 * scalar_operators_like.c: SQL LIKE (value LIKE pattern [ESCAPE esc]).
 *
 * INTERFACE: func_like, func_like_bind (see scalar_kernel.h).
 *
 * NOTES: a pattern compiles into a matcher once: at bind time when the pattern (and escape)
 * are constants, else per row with a one-entry cache. Patterns without '_' and with '%' only
 * at the ends become exact / prefix / suffix / contains tests on bytes; anything else becomes a
 * list of segments separated by '%', matched leftmost-first, where '_' matches exactly one
 * UTF-8 code point. Invalid escape usage is INVALID_FUNCTION_ARGUMENT, as in Trino.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "func/scalar_kernel.h"

typedef enum like_kind {
    LIKE_EXACT,
    LIKE_PREFIX,
    LIKE_SUFFIX,
    LIKE_CONTAINS,
    LIKE_ALL,
    LIKE_GENERAL,
} like_kind;

/* A segment between '%'s: bytes, with one_char[i] set where the pattern had '_'. */
typedef struct like_segment {
    const char *bytes;
    const uint8_t *one_char;
    uint32_t len;
    bool has_one;
} like_segment;

typedef struct like_matcher {
    like_kind kind;
    const char *lit; /* simple kinds */
    uint32_t lit_len;
    like_segment *segs;
    uint32_t n_segs;
    bool anchored_start; /* the pattern does not start with '%' */
    bool anchored_end;   /* the pattern does not end with '%' */
} like_matcher;

/* Compiles pattern p (len bytes) with optional escape (esc_len 0 = none) into m, memory from a.
 * Returns SQE_OK or INVALID_FUNCTION_ARGUMENT / OUT_OF_MEMORY. */
static int like_compile(arena *a, const char *p, uint32_t len, const char *esc, uint32_t esc_len,
                        like_matcher *m, sqe_error *err) {
    memset(m, 0, sizeof *m);
    if (esc && esc_len != utf8_seq_len((unsigned char)esc[0]))
        return err_set(err, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                       "Escape string must be a single character");
    char *bytes = arena_alloc(a, len + 1);
    uint8_t *kinds = arena_alloc(a, len + 1); /* 0 literal, 1 '_', 2 '%' */
    if (!bytes || !kinds) return err_nomem(err, "LIKE pattern");
    uint32_t n = 0;
    for (uint32_t i = 0; i < len;) {
        if (esc && i + esc_len <= len && memcmp(p + i, esc, esc_len) == 0) {
            i += esc_len;
            bool ok = i < len && (p[i] == '%' || p[i] == '_' ||
                                  (i + esc_len <= len && memcmp(p + i, esc, esc_len) == 0));
            if (!ok)
                return err_set(err, SQE_ERR_INVALID_FUNCTION_ARGUMENT,
                               "Escape character must be followed by '%%', '_' or the escape "
                               "character itself");
            uint32_t l = (p[i] == '%' || p[i] == '_') ? 1 : esc_len;
            for (uint32_t k = 0; k < l; k++) {
                bytes[n] = p[i + k];
                kinds[n++] = 0;
            }
            i += l;
            continue;
        }
        if (p[i] == '%') {
            if (n == 0 || kinds[n - 1] != 2) {
                bytes[n] = '%';
                kinds[n++] = 2;
            }
        } else {
            bytes[n] = p[i];
            kinds[n++] = p[i] == '_' ? 1 : 0;
        }
        i++;
    }
    uint32_t n_any = 0, n_one = 0;
    for (uint32_t i = 0; i < n; i++) {
        n_any += kinds[i] == 2;
        n_one += kinds[i] == 1;
    }
    m->anchored_start = n == 0 || kinds[0] != 2;
    m->anchored_end = n == 0 || kinds[n - 1] != 2;
    if (n_one == 0) {
        if (n_any == 0) {
            m->kind = LIKE_EXACT;
            m->lit = bytes;
            m->lit_len = n;
            return SQE_OK;
        }
        if (n_any == 1 && n == 1) {
            m->kind = LIKE_ALL;
            return SQE_OK;
        }
        if (n_any == 1 && !m->anchored_end) {
            m->kind = LIKE_PREFIX;
            m->lit = bytes;
            m->lit_len = n - 1;
            return SQE_OK;
        }
        if (n_any == 1 && !m->anchored_start) {
            m->kind = LIKE_SUFFIX;
            m->lit = bytes + 1;
            m->lit_len = n - 1;
            return SQE_OK;
        }
        if (n_any == 2 && !m->anchored_start && !m->anchored_end) {
            m->kind = LIKE_CONTAINS;
            m->lit = bytes + 1;
            m->lit_len = n - 2;
            return SQE_OK;
        }
    }
    m->kind = LIKE_GENERAL;
    m->segs = ARENA_ARRAY(a, like_segment, n_any + 1);
    if (!m->segs) return err_nomem(err, "LIKE pattern");
    uint32_t start = 0;
    for (uint32_t i = 0; i <= n; i++) {
        if (i < n && kinds[i] != 2) continue;
        if (i > start || (m->n_segs == 0 && m->anchored_start) || (i == n && m->anchored_end)) {
            like_segment *s = &m->segs[m->n_segs++];
            s->bytes = bytes + start;
            s->one_char = kinds + start;
            s->len = i - start;
            for (uint32_t k = start; k < i; k++) s->has_one |= kinds[k] == 1;
        }
        start = i + 1;
    }
    return SQE_OK;
}

/* Matches segment s at byte offset pos of str; returns the end offset or -1. */
static int64_t seg_match_at(const like_segment *s, const char *str, uint32_t len, uint32_t pos) {
    uint32_t j = pos;
    for (uint32_t k = 0; k < s->len; k++) {
        if (j >= len) return -1;
        if (s->one_char[k] == 1) {
            j += (uint32_t)utf8_seq_len((unsigned char)str[j]);
            if (j > len) return -1;
        } else if (str[j] != s->bytes[k]) {
            return -1;
        } else {
            j++;
        }
    }
    return j;
}

/* Leftmost match of s at or after pos (code point steps); returns start in *at, end or -1. */
static int64_t seg_find(const like_segment *s, const char *str, uint32_t len, uint32_t pos,
                        bool must_end) {
    if (!s->has_one) {
        if (must_end) {
            if (len < s->len || len - s->len < pos) return -1;
            return memcmp(str + len - s->len, s->bytes, s->len) == 0 ? (int64_t)len : -1;
        }
        if (s->len == 0) return pos;
        if (pos > len) return -1;
        const char *hit = func_find(str + pos, len - pos, s->bytes, s->len);
        return hit ? (int64_t)(hit - str) + s->len : -1;
    }
    for (uint32_t q = pos; q <= len; q += (uint32_t)utf8_seq_len((unsigned char)str[q])) {
        int64_t e = seg_match_at(s, str, len, q);
        if (e >= 0 && (!must_end || e == len)) return e;
        if (q == len) break;
    }
    return -1;
}

static bool like_match(const like_matcher *m, const char *str, uint32_t len) {
    switch (m->kind) {
    case LIKE_EXACT: return len == m->lit_len && memcmp(str, m->lit, len) == 0;
    case LIKE_PREFIX: return len >= m->lit_len && memcmp(str, m->lit, m->lit_len) == 0;
    case LIKE_SUFFIX:
        return len >= m->lit_len && memcmp(str + len - m->lit_len, m->lit, m->lit_len) == 0;
    case LIKE_CONTAINS:
        return m->lit_len == 0 || func_find(str, len, m->lit, m->lit_len) != NULL;
    case LIKE_ALL: return true;
    case LIKE_GENERAL: break;
    }
    uint32_t pos = 0;
    for (uint32_t i = 0; i < m->n_segs; i++) {
        const like_segment *s = &m->segs[i];
        bool first = i == 0 && m->anchored_start;
        bool last = i == m->n_segs - 1 && m->anchored_end;
        int64_t e;
        if (first) {
            e = seg_match_at(s, str, len, 0);
            if (e >= 0 && last && e != len) e = -1;
        } else {
            e = seg_find(s, str, len, pos, last);
        }
        if (e < 0) return false;
        pos = (uint32_t)e;
    }
    return true;
}

static const sqe_str *const_str(const vec *v) {
    if (!v || vec_is_null(v, 0)) return NULL;
    uint32_t p;
    const vec *f = vec_resolve(v, 0, &p);
    return &VEC_DATA(f, sqe_str)[p];
}

int func_like_bind(arena *a, const sqe_type *args, const vec *const *const_args, uint32_t n_args,
                   sqe_type ret, const void **bind_data, sqe_error *err) {
    *bind_data = NULL;
    if (!const_args || !const_args[1] || (n_args > 2 && !const_args[2])) return SQE_OK;
    const sqe_str *pat = const_str(const_args[1]);
    const sqe_str *esc = n_args > 2 ? const_str(const_args[2]) : NULL;
    if (!pat || (n_args > 2 && !esc)) return SQE_OK; /* NULL pattern: every row is NULL */
    like_matcher *m = ARENA_NEW(a, like_matcher);
    if (!m) return err_nomem(err, "LIKE pattern");
    SQE_TRY(like_compile(a, sqe_str_data(pat), pat->len, esc ? sqe_str_data(esc) : NULL,
                         esc ? esc->len : 0, m, err));
    *bind_data = m;
    return SQE_OK;
}

/* Prefix test on a string view: the first 4 bytes are compared in the view itself as one
 * masked 32-bit word (no pointer chase), the rest only when those match. */
static inline bool view_has_prefix(const sqe_str *s, const char *lit, uint32_t n, uint32_t head,
                                   uint32_t mask) {
    if (s->len < n) return false;
    uint32_t p;
    memcpy(&p, s->prefix, 4);
    if ((p & mask) != head) return false;
    return n <= 4 || memcmp(sqe_str_data(s) + 4, lit + 4, n - 4) == 0;
}

int func_like(func_ctx *ctx, const vec *const *args, uint32_t n_args, const uint32_t *sel,
              uint32_t count, vec *out) {
    uint8_t *r = out->data;
    const like_matcher *bound = ctx->bind_data;
    vec_view us;
    vec_view_init(&us, args[0]);
    if (bound) {
        if (!sel && args[0]->shape == VEC_FLAT) {
            const sqe_str *s = args[0]->data;
            const char *lit = bound->lit;
            uint32_t n = bound->lit_len, head = 0, mask = 0;
            if (n) {
                memcpy(&head, lit, n < 4 ? n : 4);
                memset(&mask, 0xff, n < 4 ? n : 4);
            }
            switch (bound->kind) {
            case LIKE_PREFIX:
                for (uint32_t i = 0; i < count; i++)
                    r[i] = view_has_prefix(&s[i], lit, n, head, mask);
                return SQE_OK;
            case LIKE_EXACT:
                for (uint32_t i = 0; i < count; i++)
                    r[i] = s[i].len == n && view_has_prefix(&s[i], lit, n, head, mask);
                return SQE_OK;
            case LIKE_ALL:
                for (uint32_t i = 0; i < count; i++) r[i] = 1;
                return SQE_OK;
            default:
                for (uint32_t i = 0; i < count; i++)
                    r[i] = like_match(bound, sqe_str_data(&s[i]), s[i].len);
                return SQE_OK;
            }
        }
        FUNC_FOR_ROWS(sel, count, row) {
            const sqe_str *s = ustr(&us, row);
            r[row] = like_match(bound, sqe_str_data(s), s->len);
        }
        return SQE_OK;
    }
    /* per-row patterns, with a cache of the last one */
    vec_view up, ue = {0};
    vec_view_init(&up, args[1]);
    if (n_args > 2) vec_view_init(&ue, args[2]);
    arena mem;
    arena_init(&mem, ctx->tracker);
    like_matcher m;
    const sqe_str *last_p = NULL, *last_e = NULL;
    int rc = SQE_OK;
    FUNC_FOR_ROWS(sel, count, row) {
        const sqe_str *p = ustr(&up, row), *e = n_args > 2 ? ustr(&ue, row) : NULL;
        bool same = last_p && sqe_str_equal(p, last_p) &&
                    (!e || (last_e && sqe_str_equal(e, last_e)));
        if (!same) {
            arena_reset(&mem);
            last_p = NULL;
            sqe_error cerr;
            int crc = like_compile(&mem, sqe_str_data(p), p->len, e ? sqe_str_data(e) : NULL,
                                   e ? e->len : 0, &m, &cerr);
            if (crc == SQE_ERR_OUT_OF_MEMORY) {
                rc = func_nomem(ctx);
                break;
            }
            if (crc) {
                rc = func_row_error(ctx, out, row, crc, "%s", cerr.message);
                if (rc) break;
                continue;
            }
            last_p = p;
            last_e = e;
        }
        const sqe_str *s = ustr(&us, row);
        r[row] = like_match(&m, sqe_str_data(s), s->len);
    }
    arena_destroy(&mem);
    return rc;
}
